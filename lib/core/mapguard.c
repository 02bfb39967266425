/* mapguard.c: mapped input files that may change under us (core.h,
 * "mapguard").
 *
 * A SIGBUS handler decides by the faulting address: inside a registered
 * mapping while mapguard_run() is active, it jumps back to that run, which
 * returns -1 naming the file; anywhere else it restores the default action
 * and returns, so the fault repeats and ends the process as it would have.
 * The jump leaves whatever the interrupted code held half-built (arena
 * blocks, malloc'ed buffers): the caller only reports and cleans up its
 * output files, and the process ends soon after. */
#define _GNU_SOURCE   /* st_mtim */
#include "core/core.h"

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct Guarded {
	const char *lo, *hi;   /* the mapping's bytes; lo NULL: a free slot */
	int fd;                /* our duplicate, or -1 */
	struct stat st;        /* as it was when mapped */
	char *path;            /* malloc'ed */
} Guarded;

static Guarded reg[MAPGUARD_MAX];
static sigjmp_buf *volatile target;    /* the innermost mapguard_run() */
static volatile sig_atomic_t fault_slot = -1;
static int installed;

static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const char *p = si->si_addr;

	(void)uc;
	for (int i = 0; target && i < MAPGUARD_MAX; i++)
		if (reg[i].lo && p >= reg[i].lo && p < reg[i].hi) {
			fault_slot = i;
			siglongjmp(*target, 1);
		}
	{   /* not ours: the fault repeats and ends the run as it would have */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		installed = 0;
	}
}

static void
install(void)
{
	struct sigaction sa;

	if (installed)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	installed = 1;
}

int
mapguard_add(const void *base, size_t len, int fd, const char *path)
{
	for (int i = 0; i < MAPGUARD_MAX; i++) {
		Guarded *g = &reg[i];
		if (g->lo)
			continue;
		install();
		g->fd = fd >= 0 ? dup(fd) : -1;
		if (g->fd < 0 || fstat(g->fd, &g->st) != 0)
			memset(&g->st, 0, sizeof g->st);
		if (!(g->path = strdup(path)))
			die("out of memory");
		g->hi = (const char *)base + len;
		g->lo = base;   /* last: the handler reads lo first */
		return 0;
	}
	return -1;
}

void
mapguard_remove(const void *base)
{
	for (int i = 0; i < MAPGUARD_MAX; i++)
		if (reg[i].lo && reg[i].lo == base) {
			reg[i].lo = NULL;
			if (reg[i].fd >= 0)
				close(reg[i].fd);
			free(reg[i].path);
			memset(&reg[i], 0, sizeof reg[i]);
			return;
		}
}

int
mapguard_run(int (*fn)(void *ctx), void *ctx, const char **faulted)
{
	sigjmp_buf env, *volatile outer = target;
	int rc;

	if (sigsetjmp(env, 1)) {
		target = outer;
		*faulted = reg[fault_slot].path ? reg[fault_slot].path : "(input)";
		return -1;
	}
	target = &env;
	rc = fn(ctx);
	target = outer;
	return rc;
}

const char *
mapguard_changed(void)
{
	for (int i = 0; i < MAPGUARD_MAX; i++) {
		const Guarded *g = &reg[i];
		struct stat now;
		if (!g->lo || g->fd < 0)
			continue;
		if (fstat(g->fd, &now) != 0 || now.st_size != g->st.st_size || now.st_ino != g->st.st_ino ||
		    now.st_mtim.tv_sec != g->st.st_mtim.tv_sec || now.st_mtim.tv_nsec != g->st.st_mtim.tv_nsec)
			return g->path;
	}
	return NULL;
}

int
mapguard_report(Diag *d, const char *path)
{
	if (!path && !(path = mapguard_changed()))
		return 0;
	return diag_report(d, YE_INPUT_CHANGED, &(DiagAt){.file = path},
		"the file changed or shrank while it was read");
}
