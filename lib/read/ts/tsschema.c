/* tsschema.c: torch's operator schemas (tsschema.def) and the overload a
 * TorchScript call chooses among them.
 *
 * Printed TorchScript names no overload: `torch.add(x, 1)` is aten::add,
 * and torch, loading the file, picks the overload again by the rules of
 * torch/csrc/jit/frontend/schema_matching.cpp.  ts_schema_bind replays
 * them over the kinds of the call's arguments: every schema of the name
 * in registration order, then TorchScript's builtin functions, first
 * with no conversion, then allowing implicit ones.  The table is one
 * pointer per row, each to a static compound literal, sorted by
 * namespace and name (tsschema.py writes it so), searched with bsearch. */
#include "ts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The row macros of tsschema.def (its header says what they hold).  Every
 * list ends in a sentinel, so an empty one is still a valid array and its
 * length is the array's less one. */
#define A(n, t)          {#n, TA_##t, 0, 0, NULL, 0},
#define D(n, t, d)       {#n, TA_##t, 0, 1, d, 0},
#define N(n, t, l)       {#n, TA_##t, 0, 0, NULL, l},
#define ND(n, t, l, d)   {#n, TA_##t, 0, 1, d, l},
#define K(n, t)          {#n, TA_##t, 1, 0, NULL, 0},
#define KD(n, t, d)      {#n, TA_##t, 1, 1, d, 0},
#define R(...)           {__VA_ARGS__ NULL}
/* S, O and F cannot hand their lists to a shared macro (they would
 * expand to commas first), so each spells the row out. */
#define ARGS_(...)       (const TsSchemaArg[]){__VA_ARGS__ {0}}
#define NARGS_(...)      ((int)(sizeof(ARGS_(__VA_ARGS__)) / sizeof(TsSchemaArg)) - 1)
#define S(ns, name, ovl, alias, vararg, rets, ...) \
	&(const TsSchema){#name, #ns, #ovl, NARGS_(__VA_ARGS__), ARGS_(__VA_ARGS__), \
		(int)(sizeof((const char *const[])rets) / sizeof(char *)) - 1, \
		(const char *const[])rets, alias, vararg, NULL, NULL},
#define O(until, ns, name, ovl, alias, vararg, rets, ...) \
	&(const TsSchema){#name, #ns, #ovl, NARGS_(__VA_ARGS__), ARGS_(__VA_ARGS__), \
		(int)(sizeof((const char *const[])rets) / sizeof(char *)) - 1, \
		(const char *const[])rets, alias, vararg, NULL, until},
#define F(ns, name, body, rets, ...) \
	&(const TsSchema){#name, #ns, "", NARGS_(__VA_ARGS__), ARGS_(__VA_ARGS__), \
		(int)(sizeof((const char *const[])rets) / sizeof(char *)) - 1, \
		(const char *const[])rets, 0, 0, body, NULL},

static const TsSchema *const table[] = {
#include "tsschema.def"
};

#undef A
#undef D
#undef N
#undef ND
#undef K
#undef KD
#undef R
#undef ARGS_
#undef NARGS_
#undef S
#undef O
#undef F

enum { NTABLE = sizeof table / sizeof table[0] };

static const char *const type_names[] = {
	[TA_TENSOR] = "Tensor", [TA_OPT_TENSOR] = "Tensor?", [TA_TENSORS] = "Tensor[]",
	[TA_OPT_TENSORS] = "Tensor?[]", [TA_INT] = "int", [TA_OPT_INT] = "int?", [TA_INTS] = "int[]",
	[TA_OPT_INTS] = "int[]?", [TA_FLOAT] = "float", [TA_OPT_FLOAT] = "float?",
	[TA_FLOATS] = "float[]", [TA_OPT_FLOATS] = "float[]?", [TA_BOOL] = "bool",
	[TA_OPT_BOOL] = "bool?", [TA_BOOLS] = "bool[]", [TA_SCALAR] = "Scalar",
	[TA_OPT_SCALAR] = "Scalar?", [TA_STR] = "str", [TA_OPT_STR] = "str?",
	[TA_SCALAR_TYPE] = "ScalarType", [TA_OPT_SCALAR_TYPE] = "ScalarType?",
	[TA_LAYOUT] = "Layout", [TA_OPT_LAYOUT] = "Layout?", [TA_MEMORY_FORMAT] = "MemoryFormat",
	[TA_OPT_MEMORY_FORMAT] = "MemoryFormat?", [TA_DEVICE] = "Device", [TA_OPT_DEVICE] = "Device?",
	[TA_GENERATOR] = "Generator", [TA_OPT_GENERATOR] = "Generator?", [TA_DIMNAME] = "Dimname",
	[TA_DIMNAMES] = "Dimname[]", [TA_OTHER] = "(other)", [TA_COMPLEX] = "complex",
	[TA_ANY] = "t", [TA_ANY_LIST] = "t[]", [TA_FREE] = "Any",
};

static const char *const kind_names[] = {
	[TK_NONE] = "None", [TK_BOOL] = "bool", [TK_INT] = "int", [TK_FLOAT] = "float",
	[TK_COMPLEX] = "complex", [TK_STR] = "str", [TK_DEVICE] = "Device", [TK_TENSOR] = "Tensor",
	[TK_INTS] = "int[]", [TK_FLOATS] = "float[]", [TK_BOOLS] = "bool[]", [TK_TENSORS] = "Tensor[]",
	[TK_OPT_TENSORS] = "Tensor?[]", [TK_OTHER] = "other", [TK_EMPTY_LIST] = "[]",
};

const char *
ts_kind_name(TsKind k)
{
	return (unsigned)k < sizeof kind_names / sizeof kind_names[0] && kind_names[k] ? kind_names[k] : "?";
}

static int
cmp_name(const char *ns, const char *name, const TsSchema *s)
{
	int d = strcmp(ns, s->ns);

	return d ? d : strcmp(name, s->name);
}

const TsSchema *const *
ts_schemas(const char *ns, const char *name, int *n)
{
	int lo = 0, hi = NTABLE, first;

	*n = 0;
	while (lo < hi) {       /* the first row not below (ns, name) */
		int mid = lo + (hi - lo) / 2;

		if (cmp_name(ns, name, table[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < NTABLE && cmp_name(ns, name, table[lo]) == 0)
		lo++;
	*n = lo - first;
	return *n ? &table[first] : NULL;
}

const TsSchema *const *
ts_schema_table(int *n)
{
	*n = NTABLE;
	return table;
}

const TsSchema *
ts_schema_find(const char *ns, const char *name, const char *overload)
{
	int n;
	const TsSchema *const *s = ts_schemas(ns, name, &n);

	for (int i = 0; i < n; i++)
		if (!s[i]->body && strcmp(s[i]->overload, overload) == 0)
			return s[i];
	return NULL;
}

/* ---- matching ---- */

static int
is_list_kind(TsKind k)
{
	return k == TK_INTS || k == TK_FLOATS || k == TK_BOOLS || k == TK_TENSORS ||
	       k == TK_OPT_TENSORS || k == TK_EMPTY_LIST;
}

/* The type T of an Optional[T] (the type itself otherwise). */
static TsArgType
unwrap(TsArgType t)
{
	switch (t) {
	case TA_OPT_TENSOR: return TA_TENSOR;
	case TA_OPT_INT: return TA_INT;
	case TA_OPT_INTS: return TA_INTS;
	case TA_OPT_FLOAT: return TA_FLOAT;
	case TA_OPT_FLOATS: return TA_FLOATS;
	case TA_OPT_BOOL: return TA_BOOL;
	case TA_OPT_SCALAR: return TA_SCALAR;
	case TA_OPT_STR: return TA_STR;
	case TA_OPT_SCALAR_TYPE: return TA_SCALAR_TYPE;
	case TA_OPT_LAYOUT: return TA_LAYOUT;
	case TA_OPT_MEMORY_FORMAT: return TA_MEMORY_FORMAT;
	case TA_OPT_DEVICE: return TA_DEVICE;
	case TA_OPT_GENERATOR: return TA_GENERATOR;
	default: return t;
	}
}

static int
is_optional(TsArgType t)
{
	return unwrap(t) != t;
}

/* ScalarType, Layout and MemoryFormat are plain ints to TorchScript. */
static int
is_int_type(TsArgType t)
{
	return t == TA_INT || t == TA_SCALAR_TYPE || t == TA_LAYOUT || t == TA_MEMORY_FORMAT;
}

/* 1 when a value of kind k is a subtype of t (no conversion). */
static int
subtype(TsArgType t, TsKind k)
{
	if (t == TA_ANY || t == TA_FREE)
		return 1;
	if (k == TK_NONE)
		return is_optional(t);
	t = unwrap(t);
	if (k == TK_EMPTY_LIST)
		return t == TA_TENSORS || t == TA_OPT_TENSORS || t == TA_INTS || t == TA_FLOATS ||
		       t == TA_BOOLS || t == TA_ANY_LIST;
	switch (t) {
	case TA_TENSOR: return k == TK_TENSOR;
	case TA_TENSORS: return k == TK_TENSORS;
	case TA_OPT_TENSORS: return k == TK_OPT_TENSORS;
	case TA_INTS: return k == TK_INTS;
	case TA_FLOATS: return k == TK_FLOATS;
	case TA_BOOLS: return k == TK_BOOLS;
	case TA_FLOAT: return k == TK_FLOAT;
	case TA_BOOL: return k == TK_BOOL;
	case TA_COMPLEX: return k == TK_COMPLEX;
	case TA_SCALAR: return k == TK_INT || k == TK_FLOAT || k == TK_COMPLEX;
	case TA_STR: return k == TK_STR;
	case TA_DEVICE: return k == TK_DEVICE;
	case TA_ANY_LIST: return is_list_kind(k);
	default: return is_int_type(t) && k == TK_INT;
	}
}

/* Whether k fits argument a, and how (a TsConv), or -1.  A single int or
 * float stands for a fixed-size list of it in either pass; the other
 * conversions only when conv is set (tryConvertToType's implicit ones). */
static int
match_arg(const TsSchemaArg *a, TsKind k, int conv)
{
	TsArgType t = a->type, u = unwrap(a->type);

	if (a->list_len && ((u == TA_INTS && k == TK_INT) || (u == TA_FLOATS && k == TK_FLOAT)))
		return TC_REPEAT;
	if (subtype(t, k))
		return TC_NONE;
	if (!conv || k == TK_NONE)
		return -1;
	if ((k == TK_TENSOR || k == TK_BOOL) &&
	    (is_int_type(u) || u == TA_FLOAT || u == TA_SCALAR || (u == TA_COMPLEX && k == TK_TENSOR)))
		return TC_TO_NUMBER;
	if (k == TK_STR && u == TA_DEVICE)
		return TC_DEVICE;
	return -1;
}

/* The element type of a list argument zeros(2, 3) may pack into, or -1
 * when a is not such an argument (varargsCanBeUsedAsList: the last
 * positional argument, a plain list, no fixed length, no type variable). */
static int
pack_elem(const TsSchema *s, int i)
{
	const TsSchemaArg *a = &s->args[i];

	if (!(i + 1 == s->narg || s->args[i + 1].kwonly) || a->list_len)
		return -1;
	switch (a->type) {
	case TA_INTS: return TA_INT;
	case TA_FLOATS: return TA_FLOAT;
	case TA_BOOLS: return TA_BOOL;
	case TA_TENSORS: return TA_TENSOR;
	case TA_OPT_TENSORS: return TA_OPT_TENSOR;
	default: return -1;
	}
}

/* The keyword naming schema argument a, or -1; an aten `self` is also
 * called `input` (the functional forms' name for it). */
static int
find_kw(const TsSchema *s, const TsSchemaArg *a, int nkw, const char *const *kwname)
{
	int aten_self = strcmp(s->ns, "aten") == 0 && strcmp(a->name, "self") == 0;

	for (int j = 0; j < nkw; j++)
		if (strcmp(kwname[j], a->name) == 0 || (aten_self && strcmp(kwname[j], "input") == 0))
			return j;
	return -1;
}

/* What t stands for (matchTypeVariables): a TsKind, or one of these. */
enum { TV_UNBOUND = -1, TV_OPT_TENSOR = -2 };   /* Tensor?, the elements of a Tensor?[] */

/* The element kind of a list kind.  To a type variable `[]` is a
 * Tensor[] ("Empty lists default to List[Tensor]"): append([], 1) fails. */
static int
elem_kind(TsKind k)
{
	switch (k) {
	case TK_INTS: return TK_INT;
	case TK_FLOATS: return TK_FLOAT;
	case TK_BOOLS: return TK_BOOL;
	case TK_TENSORS: case TK_EMPTY_LIST: return TK_TENSOR;
	case TK_OPT_TENSORS: return TV_OPT_TENSOR;
	default: return TV_UNBOUND;
	}
}

/* Binds t from k for argument type t_ (TA_ANY or TA_ANY_LIST), or checks k
 * against what t already is; returns 0 on a mismatch.  The first binding
 * stays: a later value must be of it (a Tensor or None for a Tensor?), a
 * later list exactly of it (lists are invariant). */
static int
bind_tvar(int *tv, TsArgType t_, TsKind k)
{
	int e = t_ == TA_ANY_LIST ? elem_kind(k) : (int)k;

	if (*tv == TV_UNBOUND) {
		*tv = e;
		return 1;
	}
	if (e == *tv)
		return 1;
	return t_ == TA_ANY && *tv == TV_OPT_TENSOR && (k == TK_TENSOR || k == TK_NONE);
}

typedef struct Call {
	int npos, nkw;
	const TsKind *pos, *kw;
	const char *const *kwname;
} Call;

/* tryMatchSchema: fills *b and returns 1 when the call fits s. */
static int
try_schema(const TsSchema *s, const Call *c, int conv, TsBind *b)
{
	int used = 0, tv = TV_UNBOUND;
	unsigned char kwused[TS_MAX_ARGS] = {0};

	if (s->narg > TS_MAX_ARGS || c->nkw > TS_MAX_ARGS)
		return 0;
	if (strcmp(s->ns, "aten") == 0 && strcmp(s->name, "view") == 0 && strcmp(s->overload, "dtype") == 0)
		return 0;       /* isBlockListedSchema: x.view(int) would pick it */
	memset(b, 0, sizeof *b);
	b->schema = s;
	b->convert = conv;
	for (int i = 0; i < s->narg; i++) {
		const TsSchemaArg *a = &s->args[i];
		int how, j, elem;

		b->slot[i] = -1;
		if (!a->kwonly && used < c->npos) {
			elem = conv ? pack_elem(s, i) : -1;
			if (elem >= 0 && !is_list_kind(c->pos[used])) {
				TsSchemaArg ea = {a->name, (TsArgType)elem, 0, 0, NULL, 0};

				for (j = used; j < c->npos; j++)
					if (match_arg(&ea, c->pos[j], 1) < 0)
						return 0;
				b->slot[i] = used;
				b->conv[i] = TC_PACK;
				used = c->npos;
				continue;
			}
			how = match_arg(a, c->pos[used], conv);
			if (how < 0 || ((a->type == TA_ANY || a->type == TA_ANY_LIST) &&
			                !bind_tvar(&tv, a->type, c->pos[used])))
				return 0;
			b->slot[i] = used++;
			b->conv[i] = (uint8_t)how;
		} else if ((j = find_kw(s, a, c->nkw, c->kwname)) >= 0) {
			if (kwused[j])
				return 0;
			kwused[j] = 1;
			how = match_arg(a, c->kw[j], conv);
			if (how < 0 || ((a->type == TA_ANY || a->type == TA_ANY_LIST) &&
			                !bind_tvar(&tv, a->type, c->kw[j])))
				return 0;
			b->slot[i] = c->npos + j;
			b->conv[i] = (uint8_t)how;
		} else if (!a->has_default) {
			return 0;
		}
	}
	if (s->vararg) {
		b->nextra = c->npos - used;
		used = c->npos;
	}
	if (used < c->npos)
		return 0;
	for (int j = 0; j < c->nkw; j++)
		if (!kwused[j])
			return 0;
	return 1;
}

int
ts_schema_text(const TsSchema *s, char *buf, size_t len)
{
	size_t n = 0;
	int star = 0;

#define PUT(...) do { \
		int k_ = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, __VA_ARGS__); \
		n += k_ > 0 ? (size_t)k_ : 0; \
	} while (0)
	if (len)
		buf[0] = 0;
	PUT("%s::%s%s%s(", s->ns, s->name, *s->overload ? "." : "", s->overload);
	for (int i = 0; i < s->narg; i++) {
		const TsSchemaArg *a = &s->args[i];
		const char *t = type_names[a->type];

		if (a->kwonly && !star) {
			PUT("*, ");
			star = 1;
		}
		if (a->list_len && strchr(t, '['))      /* int[2], int[1]? */
			PUT("%.*s[%d]%s", (int)(strchr(t, '[') - t), t, a->list_len, is_optional(a->type) ? "?" : "");
		else
			PUT("%s", t);
		PUT(" %s%s%s%s", a->name, a->has_default ? "=" : "", a->has_default ? a->def : "",
		    i + 1 < s->narg || s->vararg ? ", " : "");
	}
	if (s->vararg)
		PUT("...");
	PUT(")");
#undef PUT
	return (int)n;
}

int
ts_schema_op_name(const TsSchema *s, char *buf, size_t len)
{
	return snprintf(buf, len, "%s.%s.%s", s->ns, s->name, *s->overload ? s->overload : "default");
}

/* Appends the call's argument kinds, "(Tensor, int, alpha=int)". */
static size_t
put_call(char *buf, size_t len, size_t n, const Call *c)
{
	for (int i = 0; i < c->npos + c->nkw; i++) {
		int kw = i >= c->npos;
		int k = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s%s%s",
		                 i ? ", " : "(", kw ? c->kwname[i - c->npos] : "", kw ? "=" : "",
		                 ts_kind_name(kw ? c->kw[i - c->npos] : c->pos[i]));

		n += k > 0 ? (size_t)k : 0;
	}
	n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s",
	                      c->npos + c->nkw ? ")" : "()");
	return n;
}

/* why[]: "aten::add(Tensor, str) matches no overload; tried
 * add.Tensor(Tensor self, ...), add.Scalar(...)" and so on, cut to fit. */
static void
explain(const char *ns, const char *name, const Call *c, const TsSchema *const *s, int ns_, char *why,
        size_t len)
{
	size_t n;
	char one[512];

	if (!len)
		return;
	n = (size_t)snprintf(why, len, "%s::%s", ns, name);
	n = put_call(why, len, n, c);
	if (!ns_) {
		snprintf(why + (n < len ? n : len), n < len ? len - n : 0,
		         ": no such operator in torch's schemas (lib/read/ts/tsschema.def)");
		return;
	}
	n += (size_t)snprintf(why + (n < len ? n : len), n < len ? len - n : 0,
	                      " matches none of its %d overload%s: ", ns_, ns_ == 1 ? "" : "s");
	for (int i = 0; i < ns_ && n < len; i++) {
		ts_schema_text(s[i], one, sizeof one);
		/* Drop the namespace and name the message already gave. */
		n += (size_t)snprintf(why + n, len - n, "%s%s%s", i ? "; " : "",
		                      one + strlen(ns) + 2 + strlen(name) + (*s[i]->overload ? 1 : 0),
		                      s[i]->body ? " (builtin)" : "");
	}
	if (n >= len && len > 4)
		memcpy(why + len - 4, "...", 4);
}

int
ts_schema_bind(const char *ns, const char *name, int npos, const TsKind *pos, int nkw,
               const char *const *kwname, const TsKind *kw, TsBind *b, char *why, size_t whylen)
{
	Call c = {npos, nkw, pos, kw, kwname};
	int n;
	const TsSchema *const *s = ts_schemas(ns, name, &n);

	for (int conv = 0; conv <= 1; conv++)
		for (int i = 0; i < n; i++)
			if (try_schema(s[i], &c, conv, b))
				return 0;
	explain(ns, name, &c, s, n, why, whylen);
	return -1;
}
