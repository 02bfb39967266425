/* fold.c: constant folding: the evaluator of onnx.h (fold_eval,
 * fold_eval_row), which lib/opt's ConstantFolding pattern applies in its
 * worklist.
 *
 * Each op is a function over FoldTensors listed in one table.  Element
 * access goes through core's element codec (dtype_decode_f64 and co.:
 * inputs may be unaligned mapped weights), floating-point values travel as
 * double and integers as int64, so one loop serves every type; the loops are simple
 * because the folded tensors are shape computations and small constants,
 * and anything larger than the byte budget is left to the runtime. */
#include "onnx/onnx.h"
#include "core/core.h"

#include <math.h>
#include <string.h>


/* ---- elements ---- */

int
fold_elem_size(int elem)
{
	DType t = dtype_from_onnx(elem);
	DTypeKind k = dtype_kind(t);

	/* the bools, integers and four floats getd() and put() decode; the
	 * sizes are dtype.def's */
	return k == DK_BOOL || k == DK_INT || k == DK_FLOAT ? dtype_size(t) : 0;
}

/* Element i of t through the codec (core.h: dtype_decode_f64 and co.). */
static double
getd(const FoldTensor *t, int64_t i)
{
	return dtype_decode_f64(dtype_from_onnx(t->elem), (const uint8_t *)t->data + i * fold_elem_size(t->elem));
}

static int64_t
geti(const FoldTensor *t, int64_t i)
{
	return dtype_decode_i64(dtype_from_onnx(t->elem), (const uint8_t *)t->data + i * fold_elem_size(t->elem));
}

static void
setd(FoldTensor *t, int64_t i, double x)
{
	dtype_encode_f64(dtype_from_onnx(t->elem), (uint8_t *)t->data + i * fold_elem_size(t->elem), x);
}

static void
seti(FoldTensor *t, int64_t i, int64_t x)
{
	dtype_encode_i64(dtype_from_onnx(t->elem), (uint8_t *)t->data + i * fold_elem_size(t->elem), x);
}

/* t's elements as doubles in a new array. */
static double *
as_doubles(Arena *a, const FoldTensor *t)
{
	double *v = ARENA_ARRAY(a, double, t->numel + 1);

	dtype_decode_array(dtype_from_onnx(t->elem), t->data, t->numel, v);
	return v;
}

/* Stores v[0..numel) into y, rounding to y's type. */
static void
from_doubles(FoldTensor *y, const double *v)
{
	dtype_encode_array(dtype_from_onnx(y->elem), (uint8_t *)y->data, y->numel, v);
}

/* ---- shapes ---- */

typedef struct Ctx {
	Arena *a;
	const OnnxNode *n;
	int nin;
	const FoldTensor *const *in;
	FoldTensor *out;
	int64_t max_bytes;
} Ctx;

/* Sets out's type and shape and gives it a fresh buffer; -1 over budget. */
static int
alloc_out(Ctx *c, FoldTensor *t, int elem, int rank, const int64_t *dims)
{
	int64_t n = 1;
	uint64_t bytes;

	if (rank < 0 || rank > MAX_RANK || !fold_elem_size(elem))
		return -1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && n > INT64_MAX / dims[i]))
			return -1;
		n *= dims[i];
		t->dims[i] = dims[i];
	}
	if (size_bytes(n, fold_elem_size(elem), &bytes) || bytes > (uint64_t)c->max_bytes)
		return -1;
	t->elem = elem;
	t->rank = rank;
	t->numel = n;
	t->data = arena_alloc(c->a, (size_t)bytes + 1);
	return 0;
}

/* Same type, new shape, shared bytes. */
static int
view_out(FoldTensor *t, const FoldTensor *x, int rank, const int64_t *dims)
{
	int64_t n = 1;

	if (rank < 0 || rank > MAX_RANK)
		return -1;
	for (int i = 0; i < rank; i++) {
		n *= dims[i];
		t->dims[i] = dims[i];
	}
	if (n != x->numel)
		return -1;
	t->elem = x->elem;
	t->rank = rank;
	t->numel = n;
	t->data = x->data;
	return 0;
}

static const Onnx__AttributeProto *
attr(const Ctx *c, const char *name)
{
	for (size_t i = 0; i < c->n->n_attribute; i++)
		if (strcmp(c->n->attribute[i]->name, name) == 0)
			return c->n->attribute[i];
	return NULL;
}

static int64_t
attr_i(const Ctx *c, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = attr(c, name);

	return a && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? a->i : def;
}

/* An int list from input k (1-D int) or, when absent, attribute name:
 * count, or -1. */
static int
ints_arg(const Ctx *c, int k, const char *name, int64_t *buf, int max)
{
	const FoldTensor *t = k >= 0 && k < c->nin ? c->in[k] : NULL;
	const Onnx__AttributeProto *a;

	if (t) {
		if (t->rank > 1 || dtype_onnx_is_float(t->elem) || t->numel > max)
			return -1;
		for (int64_t i = 0; i < t->numel; i++)
			buf[i] = geti(t, i);
		return (int)t->numel;
	}
	if (!name || !(a = attr(c, name)) || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS ||
	    (int)a->n_ints > max)
		return -1;
	for (size_t i = 0; i < a->n_ints; i++)
		buf[i] = a->ints[i];
	return (int)a->n_ints;
}

static void
strides_of(int rank, const int64_t *dims, int64_t *st)
{
	int64_t s = 1;

	for (int i = rank - 1; i >= 0; i--) {
		st[i] = s;
		s *= dims[i];
	}
}

/* Broadcast shape of a and b; -1 when incompatible. */
static int
bcast(int ra, const int64_t *a, int rb, const int64_t *b, int64_t *out)
{
	int r = ra > rb ? ra : rb;

	if (r > MAX_RANK)
		return -1;
	for (int i = 0; i < r; i++) {
		int64_t x = i - (r - ra) >= 0 ? a[i - (r - ra)] : 1;
		int64_t y = i - (r - rb) >= 0 ? b[i - (r - rb)] : 1;
		if (x != y && x != 1 && y != 1)
			return -1;
		out[i] = x == 1 ? y : x;
	}
	return r;
}

/* Strides of t read as the broadcast shape (rank r): 0 where broadcast. */
static void
bstrides(const FoldTensor *t, int r, int64_t *st)
{
	int64_t own[MAX_RANK];

	strides_of(t->rank, t->dims, own);
	for (int i = 0; i < r; i++) {
		int j = i - (r - t->rank);
		st[i] = j >= 0 && t->dims[j] != 1 ? own[j] : 0;
	}
}

/* Iterates a multi-index over dims, keeping k offsets in step. */
typedef struct Iter {
	int r, k;
	int64_t dims[MAX_RANK], idx[MAX_RANK];
	int64_t st[3][MAX_RANK], off[3];
} Iter;

static void
iter_next(Iter *it)
{
	for (int d = it->r - 1; d >= 0; d--) {
		for (int j = 0; j < it->k; j++)
			it->off[j] += it->st[j][d];
		if (++it->idx[d] < it->dims[d])
			return;
		for (int j = 0; j < it->k; j++)
			it->off[j] -= it->st[j][d] * it->dims[d];
		it->idx[d] = 0;
	}
}

/* ---- ops ---- */

static int
f_identity(Ctx *c)
{
	return view_out(&c->out[0], c->in[0], c->in[0]->rank, c->in[0]->dims);
}

static int
f_reshape(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t s[MAX_RANK], known = 1;
	int k = ints_arg(c, 1, NULL, s, MAX_RANK), neg = -1;

	if (k < 0)
		return -1;
	for (int i = 0; i < k; i++) {
		if (s[i] == 0 && !attr_i(c, "allowzero", 0)) {
			if (i >= x->rank)
				return -1;
			s[i] = x->dims[i];
		}
		if (s[i] == -1) {
			if (neg >= 0)
				return -1;
			neg = i;
		} else if (s[i] < 0) {
			return -1;
		} else {
			known *= s[i];
		}
	}
	if (neg >= 0) {
		if (!known || x->numel % known)
			return -1;
		s[neg] = x->numel / known;
	}
	return view_out(&c->out[0], x, k, s);
}

static int
f_flatten(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t axis = attr_i(c, "axis", 1), d[2] = {1, 1};

	axis = axis < 0 ? axis + x->rank : axis;
	if (axis < 0 || axis > x->rank)
		return -1;
	for (int i = 0; i < x->rank; i++)
		d[i >= axis] *= x->dims[i];
	return view_out(&c->out[0], x, 2, d);
}

static int
f_unsqueeze(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t ax[MAX_RANK], d[MAX_RANK];
	int k = ints_arg(c, 1, "axes", ax, MAX_RANK), r, j = 0;
	unsigned mark = 0;

	if (k < 0 || (r = x->rank + k) > MAX_RANK)
		return -1;
	for (int i = 0; i < k; i++) {
		int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
		if (a < 0 || a >= r || (mark >> a & 1))
			return -1;
		mark |= 1u << a;
	}
	for (int i = 0; i < r; i++)
		d[i] = mark >> i & 1 ? 1 : x->dims[j++];
	return view_out(&c->out[0], x, r, d);
}

static int
f_squeeze(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t ax[MAX_RANK], d[MAX_RANK];
	int k = ints_arg(c, 1, "axes", ax, MAX_RANK), j = 0;
	unsigned mark = 0;

	if (k < 0)
		for (int i = 0; i < x->rank; i++)
			if (x->dims[i] == 1)
				mark |= 1u << i;
	for (int i = 0; i < k; i++) {
		int64_t a = ax[i] < 0 ? ax[i] + x->rank : ax[i];
		if (a < 0 || a >= x->rank || x->dims[a] != 1)
			return -1;
		mark |= 1u << a;
	}
	for (int i = 0; i < x->rank; i++)
		if (!(mark >> i & 1))
			d[j++] = x->dims[i];
	return view_out(&c->out[0], x, j, d);
}

static int
f_transpose(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t p[MAX_RANK], d[MAX_RANK] = {0}, st[MAX_RANK];
	int k = ints_arg(c, -1, "perm", p, MAX_RANK), es = fold_elem_size(x->elem);
	Iter it = {0};

	if (k < 0) {
		k = x->rank;
		for (int i = 0; i < k; i++)
			p[i] = k - 1 - i;
	}
	if (k != x->rank)
		return -1;
	strides_of(x->rank, x->dims, st);
	for (int i = 0; i < k; i++) {
		if (p[i] < 0 || p[i] >= k)
			return -1;
		d[i] = x->dims[p[i]];
		it.st[0][i] = st[p[i]];
	}
	if (alloc_out(c, &c->out[0], x->elem, k, d))
		return -1;
	/* the iterator walks the outer dims, a strided loop the innermost one
	 * (a weight's transpose is most of the folding some models do) */
	it.r = k > 0 ? k - 1 : 0;
	it.k = 1;
	memcpy(it.dims, d, sizeof d);
	{
		int64_t inner = k > 0 ? c->out[0].dims[k - 1] : 1, step = (k > 0 ? it.st[0][k - 1] : 0) * es;
		int64_t rows = inner ? c->out[0].numel / inner : 0;
		uint8_t *y = (uint8_t *)c->out[0].data;
		for (int64_t i = 0; i < rows; i++, iter_next(&it)) {
			const uint8_t *src = (const uint8_t *)x->data + it.off[0] * es;
			if (es == 4)
				for (int64_t j = 0; j < inner; j++, y += 4, src += step)
					memcpy(y, src, 4);
			else if (es == 8)
				for (int64_t j = 0; j < inner; j++, y += 8, src += step)
					memcpy(y, src, 8);
			else
				for (int64_t j = 0; j < inner; j++, y += es, src += step)
					memcpy(y, src, (size_t)es);
		}
	}
	return 0;
}

static int
f_concat(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t axis = attr_i(c, "axis", 0), d[MAX_RANK], outer = 1, pos = 0;
	int es = fold_elem_size(x->elem);

	axis = axis < 0 ? axis + x->rank : axis;
	if (axis < 0 || axis >= x->rank)
		return -1;
	memcpy(d, x->dims, sizeof d);
	d[axis] = 0;
	for (int k = 0; k < c->nin; k++) {
		const FoldTensor *t = c->in[k];
		if (!t || t->elem != x->elem || t->rank != x->rank)
			return -1;
		for (int i = 0; i < x->rank; i++)
			if (i != axis && t->dims[i] != x->dims[i])
				return -1;
		d[axis] += t->dims[axis];
	}
	if (alloc_out(c, &c->out[0], x->elem, x->rank, d))
		return -1;
	for (int i = 0; i < axis; i++)
		outer *= x->dims[i];
	for (int64_t o = 0; o < outer; o++)
		for (int k = 0; k < c->nin; k++) {
			const FoldTensor *t = c->in[k];
			int64_t block = outer ? t->numel / outer * es : 0;
			memcpy((uint8_t *)c->out[0].data + pos, (const uint8_t *)t->data + o * block, (size_t)block);
			pos += block;
		}
	return 0;
}

static int
f_shape(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t start = attr_i(c, "start", 0), end = attr_i(c, "end", x->rank), n;

	start = start < 0 ? start + x->rank : start;
	end = end < 0 ? end + x->rank : end;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < start ? start : end > x->rank ? x->rank : end;
	n = end - start;
	if (alloc_out(c, &c->out[0], 7, 1, &n))
		return -1;
	for (int64_t i = 0; i < n; i++)
		seti(&c->out[0], i, x->dims[start + i]);
	return 0;
}

static int
f_size(Ctx *c)
{
	if (alloc_out(c, &c->out[0], 7, 0, NULL))
		return -1;
	seti(&c->out[0], 0, c->in[0]->numel);
	return 0;
}

static int
f_gather(Ctx *c)
{
	const FoldTensor *x = c->in[0], *idx = c->in[1];
	int64_t axis = attr_i(c, "axis", 0), d[MAX_RANK] = {0}, outer = 1, inner = 1;
	int r = 0, es = fold_elem_size(x->elem);

	axis = axis < 0 ? axis + x->rank : axis;
	if (axis < 0 || axis >= x->rank || dtype_onnx_is_float(idx->elem) || x->rank - 1 + idx->rank > MAX_RANK)
		return -1;
	for (int i = 0; i < x->rank; i++) {
		if (i == axis)
			for (int j = 0; j < idx->rank; j++)
				d[r++] = idx->dims[j];
		else
			d[r++] = x->dims[i];
		if (i < axis)
			outer *= x->dims[i];
		if (i > axis)
			inner *= x->dims[i];
	}
	if (alloc_out(c, &c->out[0], x->elem, r, d))
		return -1;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < idx->numel; j++) {
			int64_t k = geti(idx, j);
			k = k < 0 ? k + x->dims[axis] : k;
			if (k < 0 || k >= x->dims[axis])
				return -1;
			memcpy((uint8_t *)c->out[0].data + ((o * idx->numel + j) * inner) * es,
			       (const uint8_t *)x->data + ((o * x->dims[axis] + k) * inner) * es, (size_t)(inner * es));
		}
	return 0;
}

static int
f_slice(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t st[MAX_RANK], en[MAX_RANK], ax[MAX_RANK], sp[MAX_RANK];
	int64_t start[MAX_RANK], step[MAX_RANK], d[MAX_RANK], xs[MAX_RANK];
	int k = ints_arg(c, 1, NULL, st, MAX_RANK), es = fold_elem_size(x->elem);
	int ke = ints_arg(c, 2, NULL, en, MAX_RANK), ka = ints_arg(c, 3, NULL, ax, MAX_RANK);
	int ks = ints_arg(c, 4, NULL, sp, MAX_RANK);
	Iter it = {0};
	int64_t base = 0;

	if (k < 0 || ke != k || (ka >= 0 && ka != k) || (ks >= 0 && ks != k))
		return -1;
	for (int i = 0; i < x->rank; i++) {
		start[i] = 0;
		step[i] = 1;
		d[i] = x->dims[i];
	}
	for (int i = 0; i < k; i++) {
		int64_t a = ka >= 0 ? ax[i] : i, s = ks >= 0 ? sp[i] : 1, dim, b, e;
		a = a < 0 ? a + x->rank : a;
		if (a < 0 || a >= x->rank || s == 0)
			return -1;
		dim = x->dims[a];
		b = st[i] < 0 ? st[i] + dim : st[i];
		e = en[i] < 0 ? en[i] + dim : en[i];
		if (s > 0) {
			b = b < 0 ? 0 : b > dim ? dim : b;
			e = e < 0 ? 0 : e > dim ? dim : e;
			d[a] = e > b ? (e - b + s - 1) / s : 0;
		} else {
			b = b < 0 ? -1 : b > dim - 1 ? dim - 1 : b;
			e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
			d[a] = b > e ? (b - e - s - 1) / -s : 0;
		}
		start[a] = b;
		step[a] = s;
	}
	if (alloc_out(c, &c->out[0], x->elem, x->rank, d))
		return -1;
	strides_of(x->rank, x->dims, xs);
	for (int i = 0; i < x->rank; i++) {
		base += start[i] * xs[i];
		it.st[0][i] = step[i] * xs[i];
	}
	it.r = x->rank;
	it.k = 1;
	it.off[0] = base;
	memcpy(it.dims, d, sizeof d);
	for (int64_t i = 0; i < c->out[0].numel; i++, iter_next(&it))
		memcpy((uint8_t *)c->out[0].data + i * es, (const uint8_t *)x->data + it.off[0] * es, (size_t)es);
	return 0;
}

static int
f_expand(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t s[MAX_RANK], d[MAX_RANK];
	int k = ints_arg(c, 1, NULL, s, MAX_RANK), r, es = fold_elem_size(x->elem);
	Iter it = {0};

	if (k < 0 || (r = bcast(x->rank, x->dims, k, s, d)) < 0 || alloc_out(c, &c->out[0], x->elem, r, d))
		return -1;
	it.r = r;
	it.k = 1;
	memcpy(it.dims, d, sizeof d);
	bstrides(x, r, it.st[0]);
	for (int64_t i = 0; i < c->out[0].numel; i++, iter_next(&it))
		memcpy((uint8_t *)c->out[0].data + i * es, (const uint8_t *)x->data + it.off[0] * es, (size_t)es);
	return 0;
}

static int
f_cast(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int to = (int)(strcmp(c->n->op_type, "CastLike") == 0 ? c->in[1]->elem : attr_i(c, "to", 0));
	FoldTensor *y = &c->out[0];

	/* Quantized storage stays quantized: an 8-bit integer tensor (a weight of a
	 * quantized model) cast to a float type is left to run time, or the written
	 * model would hold it as float, 2 to 8 times its bytes (issue 32).  A few
	 * elements (a zero point) still fold. */
	if ((x->elem == ONNX_INT8 || x->elem == ONNX_UINT8) && dtype_onnx_is_float(to) && x->numel > 16)
		return -1;
	if (alloc_out(c, y, to, x->rank, x->dims))
		return -1;
	for (int64_t i = 0; i < x->numel; i++) {
		if (dtype_onnx_is_float(x->elem) && !dtype_onnx_is_float(to)) {
			double v = getd(x, i);
			if (to == ONNX_BOOL) {
				seti(y, i, v != 0);
				continue;
			}
			if (!(v > -9.2e18 && v < 9.2e18)) {
				/* NaN or out of range: ONNX leaves it undefined.  To int64 it is
				 * INT64_MIN, the "integer indefinite" the x86 conversion gives
				 * onnxruntime and torch alike (a T5 bucket's log(0) cast to long,
				 * which a Where then discards); other types: the runtime decides */
				if (to != ONNX_INT64)
					return -1;
				seti(y, i, INT64_MIN);
				continue;
			}
			seti(y, i, (int64_t)v);
		} else if (!dtype_onnx_is_float(x->elem) && dtype_onnx_is_float(to)) {
			int64_t v = geti(x, i);
			if (to == ONNX_FLOAT) {
				float f = x->elem == ONNX_UINT64 ? (float)(uint64_t)v : (float)v;
				setd(y, i, f);
			} else {
				setd(y, i, x->elem == ONNX_UINT64 ? (double)(uint64_t)v : (double)v);
			}
		} else if (dtype_onnx_is_float(to)) {
			double v = getd(x, i);
			setd(y, i, to == ONNX_FLOAT16 || to == ONNX_BFLOAT16 ? (double)(float)v : v);
		} else {
			seti(y, i, to == ONNX_BOOL ? geti(x, i) != 0 : geti(x, i));
		}
	}
	return 0;
}

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_POW, B_MAX, B_MIN, B_MOD, B_EQ, B_LT, B_GT, B_LE, B_GE,
       B_AND, B_OR, B_XOR };

static const char *const bin_ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod",
	"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", NULL};

static int
f_binary(Ctx *c)
{
	const FoldTensor *a = c->in[0], *b = c->in[1];
	int op = 0, r, fl = dtype_onnx_is_float(a->elem), cmp, out;
	int64_t d[MAX_RANK] = {0}, inner, sa, sb;
	int i64 = a->elem == ONNX_INT64 && b->elem == ONNX_INT64;
	Iter it = {0};
	FoldTensor *y = &c->out[0];

	while (strcmp(bin_ops[op], c->n->op_type) != 0)
		op++;
	cmp = op >= B_EQ;
	if (c->nin != 2 || (a->elem != b->elem && op != B_POW))
		return -1;
	if (op == B_POW && !(fl && dtype_onnx_is_float(b->elem)))
		return -1;
	if (op >= B_AND && a->elem != ONNX_BOOL)
		return -1;
	out = cmp ? ONNX_BOOL : a->elem;
	if ((r = bcast(a->rank, a->dims, b->rank, b->dims, d)) < 0 || alloc_out(c, y, out, r, d))
		return -1;
	/* the iterator walks the outer dims, a strided loop the innermost one */
	it.r = r > 0 ? r - 1 : 0;
	it.k = 2;
	memcpy(it.dims, d, sizeof d);
	bstrides(a, r, it.st[0]);
	bstrides(b, r, it.st[1]);
	inner = r > 0 ? y->dims[r - 1] : 1;
	sa = r > 0 ? it.st[0][r - 1] : 0;
	sb = r > 0 ? it.st[1][r - 1] : 0;
	if (fl) {
		double *da = as_doubles(c->a, a), *db = as_doubles(c->a, b);
		double *res = ARENA_ARRAY(c->a, double, y->numel + 1);
		for (int64_t i = 0; i < y->numel; iter_next(&it))
		for (int64_t j = 0, oa = it.off[0], ob = it.off[1]; j < inner; j++, i++, oa += sa, ob += sb) {
			double x = da[oa], z = db[ob], v = 0;
			switch (op) {
			case B_ADD: v = x + z; break;
			case B_SUB: v = x - z; break;
			case B_MUL: v = x * z; break;
			case B_DIV: v = x / z; break;
			case B_POW: v = z == 2 ? x * x : pow(x, z); break;
			case B_MAX: v = isnan(x) || isnan(z) ? NAN : x > z ? x : z; break;
			case B_MIN: v = isnan(x) || isnan(z) ? NAN : x < z ? x : z; break;
			case B_MOD:
				if (!attr_i(c, "fmod", 0))
					return -1;
				v = fmod(x, z);
				break;
			case B_EQ: v = x == z; break;
			case B_LT: v = x < z; break;
			case B_GT: v = x > z; break;
			case B_LE: v = x <= z; break;
			case B_GE: v = x >= z; break;
			}
			res[i] = v;
		}
		from_doubles(y, res);
		return 0;
	}
	for (int64_t i = 0; i < y->numel; iter_next(&it))
	for (int64_t j = 0, oa = it.off[0], ob = it.off[1]; j < inner; j++, i++, oa += sa, ob += sb) {
		int64_t x, z, v = 0;
		if (i64) {      /* geti() and seti() for int64, without their switch */
			memcpy(&x, (const uint8_t *)a->data + 8 * oa, 8);
			memcpy(&z, (const uint8_t *)b->data + 8 * ob, 8);
		} else {
			x = geti(a, oa);
			z = geti(b, ob);
		}
		switch (op) {
		case B_ADD: v = (int64_t)((uint64_t)x + (uint64_t)z); break;
		case B_SUB: v = (int64_t)((uint64_t)x - (uint64_t)z); break;
		case B_MUL: v = (int64_t)((uint64_t)x * (uint64_t)z); break;
		case B_DIV:
			if (z == 0 || (x == INT64_MIN && z == -1))
				return -1;
			v = x / z;
			break;
		case B_MAX: v = x > z ? x : z; break;
		case B_MIN: v = x < z ? x : z; break;
		case B_MOD:
			if (z == 0 || (x == INT64_MIN && z == -1))
				return -1;
			v = x % z;
			if (!attr_i(c, "fmod", 0) && v != 0 && ((v < 0) != (z < 0)))
				v += z;
			break;
		case B_EQ: v = x == z; break;
		case B_LT: v = x < z; break;
		case B_GT: v = x > z; break;
		case B_LE: v = x <= z; break;
		case B_GE: v = x >= z; break;
		case B_AND: v = x && z; break;
		case B_OR: v = x || z; break;
		case B_XOR: v = !x != !z; break;
		default: return -1;
		}
		if (y->elem == ONNX_INT64)
			memcpy((uint8_t *)y->data + 8 * i, &v, 8);
		else
			seti(y, i, v);
	}
	return 0;
}

static double
erf_d(double x)
{
	return erf(x);
}

static double
sigmoid_d(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static double
neg_d(double x)
{
	return -x;
}

static double
relu_d(double x)
{
	return x > 0 ? x : x == x ? 0 : x;
}

static double
recip_d(double x)
{
	return 1.0 / x;
}

static double
sign_d(double x)
{
	return x > 0 ? 1 : x < 0 ? -1 : x;      /* 0 and NaN as they are */
}

/* Unary float functions; results within an ulp or so of onnxruntime's. */
static const struct {
	const char *op;
	double (*fn)(double);
} unary_fns[] = {
	{"Neg", neg_d}, {"Abs", fabs}, {"Sqrt", sqrt}, {"Reciprocal", recip_d}, {"Floor", floor},
	{"Ceil", ceil}, {"Cos", cos}, {"Sin", sin}, {"Exp", exp}, {"Log", log}, {"Tanh", tanh},
	{"Sigmoid", sigmoid_d}, {"Erf", erf_d}, {"Relu", relu_d}, {"Sign", sign_d},
};

static int
f_unary(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	const char *op = c->n->op_type;
	FoldTensor *y = &c->out[0];
	double (*fn)(double) = NULL;

	for (size_t i = 0; i < sizeof unary_fns / sizeof unary_fns[0]; i++)
		if (strcmp(unary_fns[i].op, op) == 0)
			fn = unary_fns[i].fn;
	if (strcmp(op, "Not") == 0 ? x->elem != ONNX_BOOL : x->elem == ONNX_BOOL)
		return -1;
	if (!dtype_onnx_is_float(x->elem) && strcmp(op, "Neg") != 0 && strcmp(op, "Abs") != 0 && strcmp(op, "Not") != 0 &&
	    strcmp(op, "Sign") != 0)
		return -1;
	if (alloc_out(c, y, x->elem, x->rank, x->dims))
		return -1;
	if (dtype_onnx_is_float(x->elem)) {
		double *v = as_doubles(c->a, x);
		for (int64_t i = 0; i < x->numel; i++)
			v[i] = fn(v[i]);
		from_doubles(y, v);
		return 0;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t w = geti(x, i);
		seti(y, i, op[0] == 'N' && op[1] == 'e' ? -w : op[0] == 'N' ? !w : op[0] == 'S' ? (w > 0) - (w < 0)
		           : w < 0 ? -w : w);
	}
	return 0;
}

/* Clip(x, min, max) with its bounds as inputs (opset 11 on; either may be
 * omitted): min(max(x, lo), hi), so lo > hi gives hi as ONNX says.  A NaN
 * is left to the runtime. */
static int
f_clip(Ctx *c)
{
	const FoldTensor *x = c->in[0], *lo = c->nin > 1 ? c->in[1] : NULL, *hi = c->nin > 2 ? c->in[2] : NULL;
	FoldTensor *y = &c->out[0];
	int fl = dtype_onnx_is_float(x->elem);

	if (c->n->n_attribute || x->elem == ONNX_BOOL || (lo && (lo->numel != 1 || lo->elem != x->elem)) ||
	    (hi && (hi->numel != 1 || hi->elem != x->elem)) || alloc_out(c, y, x->elem, x->rank, x->dims))
		return -1;
	for (int64_t i = 0; i < x->numel; i++) {
		if (fl) {
			double v = getd(x, i);
			if (v != v)
				return -1;
			v = lo && v < getd(lo, 0) ? getd(lo, 0) : v;
			v = hi && v > getd(hi, 0) ? getd(hi, 0) : v;
			setd(y, i, v);
		} else {
			int64_t v = geti(x, i);
			v = lo && v < geti(lo, 0) ? geti(lo, 0) : v;
			v = hi && v > geti(hi, 0) ? geti(hi, 0) : v;
			seti(y, i, v);
		}
	}
	return 0;
}

/* MatMul of float operands (rank >= 2, broadcast batch dims), summed in
 * double; the work is bounded like the output. */
static int
f_matmul(Ctx *c)
{
	const FoldTensor *a = c->in[0], *b = c->in[1];
	int64_t d[MAX_RANK], m, k, n, batch = 1;
	int r;
	Iter it = {0};

	if (!dtype_onnx_is_float(a->elem) || a->elem != b->elem || a->rank < 2 || b->rank < 2 ||
	    a->dims[a->rank - 1] != b->dims[b->rank - 2])
		return -1;
	m = a->dims[a->rank - 2];
	k = a->dims[a->rank - 1];
	n = b->dims[b->rank - 1];
	if ((r = bcast(a->rank - 2, a->dims, b->rank - 2, b->dims, d)) < 0 || r + 2 > MAX_RANK)
		return -1;
	for (int i = 0; i < r; i++)
		batch *= d[i];
	if (batch * m * n * k > ((int64_t)1 << 26))
		return -1;
	d[r] = m;
	d[r + 1] = n;
	if (alloc_out(c, &c->out[0], a->elem, r + 2, d))
		return -1;
	/* batch offsets of a and b in matrices, by the broadcast iterator */
	{
		FoldTensor ab = *a, bb = *b;
		ab.rank = a->rank - 2;
		bb.rank = b->rank - 2;
		it.r = r;
		it.k = 2;
		memcpy(it.dims, d, sizeof *d * (size_t)r);
		bstrides(&ab, r, it.st[0]);
		bstrides(&bb, r, it.st[1]);
	}
	/* both operands as doubles once, then row by row in i, t, j order */
	{
		double *da = as_doubles(c->a, a), *db = as_doubles(c->a, b);
		double *row = ARENA_ARRAY(c->a, double, n + 1);
		for (int64_t bi = 0; bi < batch; bi++, iter_next(&it))
			for (int64_t i = 0; i < m; i++) {
				const double *ar = da + (it.off[0] * m + i) * k;
				memset(row, 0, sizeof *row * (size_t)n);
				for (int64_t t = 0; t < k; t++) {
					const double *br = db + (it.off[1] * k + t) * n;
					double x = ar[t];
					for (int64_t j = 0; j < n; j++)
						row[j] += x * br[j];
				}
				for (int64_t j = 0; j < n; j++)
					setd(&c->out[0], (bi * m + i) * n + j, row[j]);
			}
	}
	return 0;
}

static int
f_where(Ctx *c)
{
	const FoldTensor *cd = c->in[0], *a = c->in[1], *b = c->in[2];
	int64_t t[MAX_RANK], d[MAX_RANK];
	int r, es = fold_elem_size(a->elem);
	Iter it = {0};

	if (cd->elem != ONNX_BOOL || a->elem != b->elem)
		return -1;
	if ((r = bcast(cd->rank, cd->dims, a->rank, a->dims, t)) < 0 || (r = bcast(r, t, b->rank, b->dims, d)) < 0 ||
	    alloc_out(c, &c->out[0], a->elem, r, d))
		return -1;
	it.r = r;
	it.k = 3;
	memcpy(it.dims, d, sizeof d);
	bstrides(cd, r, it.st[0]);
	bstrides(a, r, it.st[1]);
	bstrides(b, r, it.st[2]);
	for (int64_t i = 0; i < c->out[0].numel; i++, iter_next(&it)) {
		const FoldTensor *src = geti(cd, it.off[0]) ? a : b;
		memcpy((uint8_t *)c->out[0].data + i * es, (const uint8_t *)src->data + it.off[src == a ? 1 : 2] * es,
		       (size_t)es);
	}
	return 0;
}

static int
f_range(Ctx *c)
{
	const FoldTensor *s = c->in[0], *l = c->in[1], *dl = c->in[2];
	int64_t n;

	if (s->numel != 1 || l->numel != 1 || dl->numel != 1 || s->elem != l->elem || s->elem != dl->elem)
		return -1;
	if (dtype_onnx_is_float(s->elem)) {
		double a = getd(s, 0), b = getd(l, 0), d = getd(dl, 0);
		double q = ceil((b - a) / d);
		if (d == 0 || !(q < 1e9))
			return -1;
		n = q > 0 ? (int64_t)q : 0;
		if (alloc_out(c, &c->out[0], s->elem, 1, &n))
			return -1;
		for (int64_t i = 0; i < n; i++)
			setd(&c->out[0], i, s->elem == ONNX_FLOAT ? (double)((float)a + (float)i * (float)d) : a + (double)i * d);
		return 0;
	}
	int64_t a = geti(s, 0), b = geti(l, 0), d = geti(dl, 0), span;
	if (d == 0 || d == INT64_MIN || __builtin_sub_overflow(d > 0 ? b : a, d > 0 ? a : b, &span))
		return -1;          /* no fold where the count would overflow: the runtime computes it */
	n = span <= 0 ? 0 : span / (d > 0 ? d : -d) + (span % (d > 0 ? d : -d) != 0);
	if (alloc_out(c, &c->out[0], s->elem, 1, &n))
		return -1;
	for (int64_t i = 0; i < n; i++)
		seti(&c->out[0], i, a + i * d);
	return 0;
}

static int
f_constant_of_shape(Ctx *c)
{
	const Onnx__AttributeProto *v = attr(c, "value");
	int64_t s[MAX_RANK];
	int k = ints_arg(c, 0, NULL, s, MAX_RANK), es;
	FoldTensor val = {0};

	if (k < 0)
		return -1;
	if (v && v->t) {
		if (fold_from_tensor(v->t, &val) || val.numel != 1)
			return -1;
	} else {
		static const float zero = 0;
		val = (FoldTensor){.elem = ONNX_FLOAT, .rank = 1, .dims = {1}, .numel = 1, .data = &zero};
	}
	if (alloc_out(c, &c->out[0], val.elem, k, s))
		return -1;
	es = fold_elem_size(val.elem);
	for (int64_t i = 0; i < c->out[0].numel; i++)
		memcpy((uint8_t *)c->out[0].data + i * es, val.data, (size_t)es);
	return 0;
}

static int
f_trilu(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	int64_t k = c->nin > 1 && c->in[1] ? geti(c->in[1], 0) : 0, rows, cols;
	int upper = (int)attr_i(c, "upper", 1), es = fold_elem_size(x->elem);

	if (x->rank < 2 || alloc_out(c, &c->out[0], x->elem, x->rank, x->dims))
		return -1;
	rows = x->dims[x->rank - 2];
	cols = x->dims[x->rank - 1];
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t col = i % cols, row = i / cols % rows;
		int keep = upper ? col - row >= k : col - row <= k;
		if (keep)
			memcpy((uint8_t *)c->out[0].data + i * es, (const uint8_t *)x->data + i * es, (size_t)es);
		else
			memset((uint8_t *)c->out[0].data + i * es, 0, (size_t)es);
	}
	return 0;
}

static int
f_reduce(Ctx *c)
{
	const FoldTensor *x = c->in[0];
	const char *op = c->n->op_type + 6;    /* after "Reduce" */
	int64_t ax[MAX_RANK], d[MAX_RANK], kd[MAX_RANK], st[MAX_RANK];
	int k = ints_arg(c, 1, "axes", ax, MAX_RANK), keep = (int)attr_i(c, "keepdims", 1), r = 0;
	unsigned mark = 0;
	int64_t cnt = 1;
	double *acc;
	FoldTensor *y = &c->out[0];

	int sq = strcmp(op, "L2") == 0 || strcmp(op, "SumSquare") == 0;   /* sums v * v */

	if (x->elem == ONNX_BOOL || (k <= 0 && attr_i(c, "noop_with_empty_axes", 0)) ||
	    (op[0] == 'L' && !dtype_onnx_is_float(x->elem)))
		return -1;
	if (k <= 0)
		mark = (1u << x->rank) - 1;
	for (int i = 0; i < k; i++) {
		int64_t a = ax[i] < 0 ? ax[i] + x->rank : ax[i];
		if (a < 0 || a >= x->rank)
			return -1;
		mark |= 1u << a;
	}
	for (int i = 0; i < x->rank; i++) {
		kd[i] = mark >> i & 1 ? 1 : x->dims[i];
		if (mark >> i & 1)
			cnt *= x->dims[i];
		if (!(mark >> i & 1) || keep)
			d[r++] = kd[i];
	}
	if (alloc_out(c, y, x->elem, r, d))
		return -1;
	acc = arena_alloc(c->a, sizeof *acc * (size_t)(y->numel + 1));
	for (int64_t i = 0; i < y->numel; i++)
		acc[i] = strcmp(op, "Max") == 0 ? -INFINITY : strcmp(op, "Min") == 0 ? INFINITY
		         : strcmp(op, "Prod") == 0 ? 1 : 0;
	strides_of(x->rank, kd, st);
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t rest = i, o = 0;
		double v = getd(x, i);
		for (int j = x->rank - 1; j >= 0; j--) {
			int64_t idx = rest % x->dims[j];
			rest /= x->dims[j];
			if (!(mark >> j & 1))
				o += idx * st[j];
		}
		if (strcmp(op, "Max") == 0)
			acc[o] = v > acc[o] ? v : acc[o];
		else if (strcmp(op, "Min") == 0)
			acc[o] = v < acc[o] ? v : acc[o];
		else if (strcmp(op, "Prod") == 0)
			acc[o] *= v;
		else
			acc[o] += sq ? v * v : v;
	}
	for (int64_t i = 0; i < y->numel; i++) {
		double v = strcmp(op, "Mean") == 0 ? acc[i] / (double)cnt : op[0] == 'L' ? sqrt(acc[i]) : acc[i];
		if (dtype_onnx_is_float(x->elem))
			setd(y, i, v);
		else if (fabs(v) < 9007199254740992.0)      /* 2^53: a double holds the integer exactly */
			seti(y, i, (int64_t)v);
		else
			return -1;      /* not folded: the runtime accumulates in the integer type */
	}
	return 0;
}

static int
f_constant(Ctx *c)
{
	const Onnx__AttributeProto *a = c->n->n_attribute == 1 ? c->n->attribute[0] : NULL;
	FoldTensor t = {0};
	int64_t n;

	if (!a)
		return -1;
	if (strcmp(a->name, "value") == 0 && a->t) {
		if (fold_from_tensor(a->t, &t))
			return -1;
		c->out[0] = t;
		return 0;
	}
	if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_int") == 0) {
		int fl = a->name[6] == 'f';
		if (alloc_out(c, &c->out[0], fl ? ONNX_FLOAT : ONNX_INT64, 0, NULL))
			return -1;
		if (fl)
			setd(&c->out[0], 0, a->f);
		else
			seti(&c->out[0], 0, a->i);
		return 0;
	}
	if (strcmp(a->name, "value_floats") == 0 || strcmp(a->name, "value_ints") == 0) {
		int fl = a->name[6] == 'f';
		n = fl ? (int64_t)a->n_floats : (int64_t)a->n_ints;
		if (alloc_out(c, &c->out[0], fl ? ONNX_FLOAT : ONNX_INT64, 1, &n))
			return -1;
		for (int64_t i = 0; i < n; i++) {
			if (fl)
				setd(&c->out[0], i, a->floats[i]);
			else
				seti(&c->out[0], i, a->ints[i]);
		}
		return 0;
	}
	return -1;
}

/* The fold column of onnxops.def, by row. */
static const struct FoldRow {
	int (*fn)(Ctx *c);
	int min_in;             /* inputs that must be present */
} fold_rows[ONNXOP_COUNT] = {
#define OP(id, name, dom, lo, hi, infer, models, fold, fold_in, fl, fl_k) [ONNXOP_##id] = {fold, fold_in},
#include "onnx/onnxops.def"
#undef OP
};

/* The row of op, or NULL.  Every node is looked up, most of them for an op
 * the evaluator does not know: onnx_op_find() searches the sorted rows. */
const struct FoldRow *
fold_row(const char *op)
{
	int k = onnx_op_find(NULL, op);

	return k >= 0 && fold_rows[k].fn ? &fold_rows[k] : NULL;
}

int
fold_supported(const char *op)
{
	return fold_row(op) != NULL;
}

int
fold_from_tensor(const OnnxTensor *t, FoldTensor *out)
{
	int64_t n = 1;

	if (!t->has_raw_data || (t->has_data_location && t->data_location) || t->n_dims > MAX_RANK ||
	    !fold_elem_size(t->data_type))
		return -1;
	memset(out, 0, sizeof *out);
	out->elem = t->data_type;
	out->rank = (int)t->n_dims;
	for (size_t i = 0; i < t->n_dims; i++) {
		out->dims[i] = t->dims[i];
		n *= t->dims[i];
	}
	if (t->raw_data.len != (size_t)n * (size_t)fold_elem_size(t->data_type))
		return -1;
	out->numel = n;
	out->data = t->raw_data.data;
	return 0;
}

int
fold_eval_row(const struct FoldRow *row, Arena *a, const OnnxNode *n, int nin, const FoldTensor *const *in,
         FoldTensor *out, int64_t max_bytes)
{
	Ctx c = {a, n, nin, in, out, max_bytes};

	if (!row || nin < row->min_in || n->n_output != 1)
		return -1;
	for (int k = 0; k < row->min_in; k++)
		if (!in[k])
			return -1;
	return row->fn(&c);
}

int
fold_eval(Arena *a, const OnnxNode *n, int nin, const FoldTensor *const *in, FoldTensor *out,
          int64_t max_bytes)
{
	return fold_eval_row(fold_row(n->op_type), a, n, nin, in, out, max_bytes);
}
