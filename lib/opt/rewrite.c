/* rewrite.c: the Rewrite pass, a worklist (see opt.h): each node is tried
 * against constant folding and then the patterns rooted at its op type;
 * nodes a rewrite touches go on the list of the next iteration, so the work
 * is proportional to the rewrites, not to the graph size times the
 * iterations.  Also the per-row counters and stats events of every pass. */
#include "opt/opt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "onnx/onnx.h"
#include "internal.h"

#define OPT_MAX_ITER 64
#define OPT_MAX_RETRY 16
double
opt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
account(Opt *o, int row, double dt, int matched, int64_t added, int64_t removed)
{
	OptIter *it = &o->iter[row];

	o->count[row].seconds += dt;
	it->seconds += dt;
	if (!matched)
		return;
	if (!it->matches)
		it->first = o->match_index;
	o->match_index++;
	it->matches++;
	it->added += added;
	it->removed += removed;
	o->count[row].matches++;
	o->count[row].added += added;
	o->count[row].removed += removed;
}

/* Emits one stats row per pattern that matched in this iteration, in the
 * order of their first match, and clears the iteration's counters. */
static void
flush_iteration(Opt *o)
{
	int order[OPT_NROW], n = 0;

	for (int i = 0; i < OPT_NROW; i++) {
		if (o->iter[i].matches) {
			int j = n++;
			while (j > 0 && o->iter[order[j - 1]].first > o->iter[i].first) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = i;
		}
	}
	for (int k = 0; k < n && o->log; k++) {
		const OptIter *it = &o->iter[order[k]];
		OptStat s = {opt_rows[order[k]].name, it->removed, it->added, it->seconds,
		                o->iteration, it->first, it->matches};
		o->log->fn(o->log->ctx, &s);
	}
	memset(o->iter, 0, sizeof *o->iter * OPT_NROW);
}

static int
call_pattern(Opt *o, int row, int n)
{
	int64_t a0 = o->added, r0 = o->removed;
	double t0 = opt_now();
	int res;

	o->hint = opt_msg(o, n)->name;
	o->fresh_from = o->nnode;
	res = opt_rows[row].pat(o, n);
	o->fresh_from = INT_MAX;
	if (res == OPT_NOMATCH && (o->added != a0 || o->removed != r0 || o->nsweep))
		die("optimizer: pattern %s changed the graph but reported no match", opt_rows[row].name);
	if (res != OPT_NOMATCH)
		opt_sweep(o);
	account(o, row, opt_now() - t0, res != OPT_NOMATCH, o->added - a0, o->removed - r0);
	if (res != OPT_NOMATCH && o->verify_each)
		opt_verify(o, opt_rows[row].name);
	return res;
}

/* Tries folding and the patterns of node n's op; 1 when something matched. */
static int
try_node(Opt *o, int n)
{
	int tries = 0;

again:
	if (opt_node(o, n)->dead)
		return tries > 0;
	if (o->on[OPT_ConstantFolding] && call_pattern(o, OPT_ConstantFolding, n) != OPT_NOMATCH)
		return 1;
	if (opt_node(o, n)->root < 0)
		return tries > 0;
	{
		const OptRoot *rt = &o->roots[opt_node(o, n)->root];
		for (int i = 0; i < rt->n; i++) {
			int res = call_pattern(o, rt->rows[i], n);
			if (res == OPT_REWROTE)
				return 1;
			if (res == OPT_RETRY) {
				if (++tries < OPT_MAX_RETRY)
					goto again;
				return 1;
			}
		}
	}
	return tries > 0;
}

/* Runs the worklist until an iteration leaves it empty; returns matches. */
int
opt_rewrite(Opt *o)
{
	int total = 0;

	for (int it = 0; o->nqueue && it < OPT_MAX_ITER; it++) {
		int *cur = o->queue, ncur = o->nqueue;
		o->queue = NULL;
		o->nqueue = o->capqueue = 0;
		o->iteration++;
		o->match_index = 0;
		for (int i = 0; i < ncur; i++) {
			opt_node(o, cur[i])->queued = 0;
			total += try_node(o, cur[i]);
		}
		flush_iteration(o);
	}
	for (int i = 0; i < o->nqueue; i++)     /* the iteration cap was reached */
		opt_node(o, o->queue[i])->queued = 0;
	o->nqueue = 0;
	return total;
}

/* Runs pass `row` with its counters and its stats row. */
int
opt_run_pass(Opt *o, int row)
{
	int64_t a0 = o->added, r0 = o->removed;
	double t0 = opt_now();
	int n = opt_rows[row].pass(o);
	double dt = opt_now() - t0;

	o->count[row].seconds += dt;
	o->count[row].matches += n;
	o->count[row].added += o->added - a0;
	o->count[row].removed += o->removed - r0;
	if (o->log && n) {
		OptStat s = {opt_rows[row].name, o->removed - r0, o->added - a0, dt, o->iteration, 0, n};
		o->log->fn(o->log->ctx, &s);
	}
	if (n || o->verify_each)     /* a pass that changed nothing left the index as it was */
		opt_verify(o, opt_rows[row].name);
	return n;
}
