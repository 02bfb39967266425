/* opt/internal.h: private to lib/opt/: what its files share beyond opt.h.
 * Nothing outside lib/opt/ includes it. */
#ifndef OPT_INTERNAL_H
#define OPT_INTERNAL_H

#include "opt/opt.h"

void *opt_grow(Arena *a, void *arr, int n, int *cap, size_t size);
int opt_from_outside(const OptValue *x);
int opt_val_new(Opt *o, const char *name);
OptNameHit *opt_hit_slot(OptNameHit *t, int n, const char *p);
int opt_val_intern(Opt *o, const char *name);
const char *opt_fresh_name(Opt *o, StrMap *taken, const char *base);
const char *opt_name_cat(Opt *o, const char *a, const char *b);
int opt_val_fresh(Opt *o);
void opt_use_add(Opt *o, int v, int n, int k);
void opt_use_del(Opt *o, int v, int n, int k);
int opt_plain_domain(const char *d);
void opt_type_from_vi(Opt *o, int v, const Onnx__ValueInfoProto *vi);
void opt_type_from_tensor(Opt *o, int v, const OnnxTensor *t);
int opt_node_index(Opt *o, OnnxNode *m, int before, const int *out_ids);

struct OptSelect {
	unsigned char on[OPT_NROW];
};

/* Patterns rooted at one op type, in row order. */
typedef struct OptRoot {
	int n, cap;
	int *rows;
} OptRoot;

/* One row's counters within the current iteration. */
typedef struct OptIter {
	int64_t matches, removed, added;
	double seconds;
	int first;              /* match_index of its first match */
} OptIter;

/* hash.c */
uint64_t opt_mix(uint64_t h, const uint8_t *p, size_t n);
uint64_t opt_content_hash(const uint8_t *p, size_t n);

/* rewrite.c */
double opt_now(void);
/* Runs the worklist until an iteration leaves it empty; returns matches. */
int opt_rewrite(Opt *o);
/* Runs pass `row` with its counters and its stats row. */
int opt_run_pass(Opt *o, int row);

#endif
