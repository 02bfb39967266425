/* ops.h: the op table, generated from the ops/<family>.def rows.
 *
 * One row per ATen overload (the IR's Node.op, "aten.add.Tensor") and
 * opset range:
 *
 *   OP(ATEN_NAME, LOWER_FN, ONNX_OP, VARIANT, OPSET_MIN, OPSET_MAX, FLAGS)
 *
 * ATEN_NAME  the overload, as Node.op spells it
 * LOWER_FN   the lowering; shared ones (lower_unary, lower_binary, ...) read
 *            ONNX_OP from the row, irregular ones are lower_<name> in
 *            ops/<family>.c
 * ONNX_OP    the ONNX operator a shared lowering emits; for an irregular row
 *            the main operator, for the docs ("" when it varies)
 * VARIANT    what the rows of one lowering differ in besides ONNX_OP (which
 *            reduction, hard or soft, reversed operands, ...): an OPV_*
 *            value or 0, plus for the pooling and upsampling rows the
 *            spatial rank their name states (OPV_1D..OPV_3D).  Lowerings read
 *            it instead of their op name; test_ops checks it against the
 *            names.
 * OPSET_MIN  the lowest target opset at which every ONNX operator the
 *            lowering can emit there exists with the semantics it uses
 * OPSET_MAX  the highest target opset the row is valid for: NEWEST (the
 *            newest opset we write, ONNX_OPSET_NEWEST) unless a later row of
 *            the same name takes over
 * FLAGS      OPF_VIEW: the result aliases `self` (a view); the lowering must
 *            also handle LowerCtx.update (write a new view content back into
 *            `self`).  OPF_INPLACE: the result is written back into `self`
 *            and aliases it (add_, copy_, index_put_).  OPF_INT18: on integer
 *            operands the row needs opset 18 (ONNX's Bitwise* operators);
 *            OPSET_MIN holds for bool ones.  0 otherwise.
 *
 * A name may have several rows with adjacent opset ranges when its lowering
 * differs by opset in the operator it emits (gelu: a formula up to opset 19,
 * ONNX's Gelu from 20); ops_find_opset() picks the row of the target opset.
 * A lowering still branches on the target opset where only an operator's
 * signature changed (axes as an input from opset 18, Split's num_outputs).
 * OPF_INT18 stays a flag, not a range: a bitwise row lowers bool operands at
 * opset 17 and integer ones from 18, and lookup does not see dtypes.
 *
 * ops/all.def lists the family files; ops.c includes it to build the table,
 * its sorted index and docs/ops.md.  Lowering contract: read arguments by
 * schema name (torch omits those left at their default, so each lowering
 * knows the defaults), emit nodes through lower.h, bind every used output
 * with lower_out() or lower_bind(), return 0 or lower_fail(). */
#ifndef OPS_H
#define OPS_H

#include <stdio.h>

typedef struct LowerCtx LowerCtx;
typedef struct Node Node;
typedef struct OpRow OpRow;

typedef int (*LowerFn)(LowerCtx *c, const Node *n, const OpRow *row);

enum {
	OPF_VIEW = 1,       /* result is a view of self (see above) */
	OPF_INPLACE = 2,    /* result is written into self */
	OPF_INT18 = 4,      /* integer operands need opset 18 (see above) */
	OPF_COMPLEX = 8,    /* the lowering takes complex tensors (see below) */
};

/* VARIANT values.  The spatial rank takes the low two bits (OPV_SP) and is
 * stored apart (OpRow.sp); the other values are OpRow.variant, each read by
 * the lowerings named. */
enum {
	OPV_1D = 1,                   /* pools, upsample: one spatial dim (max_pool1d) */
	OPV_2D = 2,                   /* two (avg_pool2d, upsample_nearest2d) */
	OPV_3D = 3,                   /* three (adaptive_avg_pool3d) */
	OPV_SP = 3,                   /* the bits of the spatial rank */
	OPV_RELU6 = 1 << 2,           /* lower_hardtanh: relu6, the fixed range 0..6 */
	OPV_SELU = 2 << 2,            /* lower_elu: selu's fixed alpha and scale */
	OPV_CELU = 3 << 2,            /* lower_elu: celu, input_scale = 1 / alpha */
	OPV_SOFT = 4 << 2,            /* lower_shrink: softshrink (bias lambd) */
	OPV_TRANSPOSED = 5 << 2,      /* lower_conv: conv_transpose (else the transposed argument) */
	OPV_UPPER = 6 << 2,           /* lower_trilu: triu */
	OPV_REVERSED = 7 << 2,        /* lower_binary: rsub, other - alpha * self */
	OPV_FRAC = 8 << 2,            /* lower_trunc: frac, x - trunc(x) */
	OPV_FINITE = 9 << 2,          /* lower_isnan: isfinite, neither inf nor nan */
	OPV_PYTHON = 10 << 2,         /* lower_fmod: remainder, the divisor's sign */
	OPV_ADD = 11 << 2,            /* lower_scatter: scatter_add; lower_index_add: index_add */
	OPV_INDICES = 12 << 2,        /* lower_topk: argsort, the indices only */
	OPV_NEAREST = 13 << 2,        /* lower_upsample: nearest (else linear) */
	OPV_NEAREST_EXACT = 14 << 2,  /* lower_upsample: nearest-exact */
	OPV_CUBIC = 15 << 2,          /* lower_upsample: bicubic */
	OPV_STD = 16 << 2,            /* lower_var_mean: std, the root of var */
	OPV_MAX = 17 << 2,            /* lower_arg_reduce: max.dim, argmax; lower_adaptive_pool: max */
	OPV_UNBIND = 18 << 2,         /* lower_split: unbind, parts of 1 squeezed */
	OPV_FOR_SIZE = 19 << 2,       /* lower_constrain_range: _for_size, size >= 0 */
	OPV_NOT = 20 << 2,            /* lower_compare, lower_sym_compare: ne, Not of the ONNX op */
	OPV_IMAG = 21 << 2,           /* lower_real: imag, the second part */
	OPV_POLAR = 22 << 2,          /* lower_complex: polar(abs, angle), else complex(real, imag) */
	OPV_IFFT = 23 << 2,           /* lower_fft*: the inverse (ifft); lower_fftshift: ifftshift */
	OPV_RFFT = 24 << 2,           /* lower_fft*: rfft; lower_fft_core: _fft_r2c; lower_fftfreq: rfftfreq */
	OPV_IRFFT = 25 << 2,          /* lower_fft*: irfft; lower_fft_core: _fft_c2r */
	OPV_HFFT = 26 << 2,           /* lower_fft: hfft */
	OPV_IHFFT = 27 << 2,          /* lower_fft: ihfft */
	OPV_AA = 28 << 2,             /* lower_upsample: antialiased bilinear (_upsample_bilinear2d_aa) */
	OPV_CUBIC_AA = 29 << 2,       /* lower_upsample: antialiased bicubic */
	OPV_NAN = 30 << 2,            /* lower_median, lower_quantile: nan*, NaN left out */
	OPV_FORMULA = 31 << 2,        /* lower_gelu, _mish, _rms_norm: the formula, before
	                                 the opset of the ONNX operator (the name's next row);
	                                 the last value (test_ops bounds the column by it) */
};

struct OpRow {
	const char *aten;       /* "aten.relu.default" */
	LowerFn fn;             /* the lowering */
	const char *fn_name;    /* "lower_unary", for docs and messages */
	const char *onnx;       /* "Relu" */
	int variant;            /* VARIANT without the spatial rank: OPV_* or 0 */
	int sp;                 /* the spatial rank VARIANT states (1..3), else 0 */
	const char *variant_name; /* VARIANT as the row spells it, for the docs */
	int opset_min;          /* lowest target opset the row is valid for */
	int opset_max;          /* highest target opset the row is valid for */
	int flags;              /* OPF_* */
	const char *family;     /* the .def file: "elementwise" */
};

/* Number of rows: one "+ 1" per row of every family. */
enum {
	OP_COUNT = 0
#define OP(aten, fn, onnx, variant, opset_min, opset_max, flags) + 1
#include "all.def"
#undef OP
};

/* Every lowering named in a row. */
#define OP(aten, fn, onnx, variant, opset_min, opset_max, flags) int fn(LowerCtx *c, const Node *n, const OpRow *row);
#include "all.def"
#undef OP
#define CX(aten, fn) int fn(LowerCtx *c, const Node *n, const OpRow *row);
#include "complex.def"
#undef CX

extern const OpRow op_table[OP_COUNT];

/* The note of open.def for an op whose torch result is partly left open
 * (uninitialized contents, the order of ties), or NULL; ops_open_name(i)
 * is the op of note i, NULL past the last. */
const char *ops_open_note(const char *aten);
const char *ops_open_name(int i);

/* Returns the first row of an ATen overload (that of its lowest opsets),
 * or NULL when it has none. */
const OpRow *ops_find(const char *aten);
/* Returns the row of an ATen overload whose opset range holds opset, or
 * NULL. */
const OpRow *ops_find_opset(const char *aten, int opset);
/* Sets *lo and *hi to the lowest and highest opset some row of aten is
 * valid for; returns 0, or -1 when aten has no row. */
int ops_opsets(const char *aten, int *lo, int *hi);
/* Complex tensors are carried as their (real, imag) parts in a trailing
 * dim of 2 (ops/complex.c).  A node reading or writing one lowers through
 * its row when the row is OPF_COMPLEX, else through the op's row in
 * ops/complex.def, CX(ATEN_NAME, LOWER_FN): the lowering of the op on
 * complex operands, called with the op's own row.  Returns that LOWER_FN,
 * or NULL when the op has none. */
LowerFn ops_find_complex(const char *aten);
/* Writes docs/ops.md (the table as Markdown, by family). */
void ops_write_doc(FILE *f);

#endif
