/* serde.c: ExportedProgram JSON -> Program.
 *
 * One function per schema.py dataclass.  Values are created from a graph's
 * tensor_values / sym_*_values tables first, so arguments can resolve names
 * to Values in one pass over the nodes; a subgraph (as_graph) is read
 * recursively with its own table and its parent as the outer scope.
 *
 * The JSON tree is scratch: pt2.c frees it, and drops its text from
 * memory, as soon as the Program is built, since on a deep graph the tree
 * is several times the size of the IR.  So every string the IR keeps goes
 * through keep(), which copies it into the program's arena. */
#include "read/read.h"

#include <stdio.h>
#include <string.h>

#include "core/core.h"

enum {
	MAX_GRAPH_DEPTH = 64,
	KEEP_BITS = 10,     /* a 1024-entry cache of copies by address */
	FRAME_BITS = 6,     /* and a 64-entry one of user frames */
	SHARE_MIN = 33,     /* the parser shares strings up to 32 bytes; keep() shares longer ones */
};

typedef struct Kept {
	const char *json;   /* a string of the tree */
	const char *copy;   /* its copy in the program's arena */
} Kept;

typedef struct Ctx {
	Arena *a;
	const char *label;
	Diag *d;
	int depth;
	const char *what;   /* the kind of thing being read ("tensor value"), or NULL */
	const char *name;   /* its name, or NULL: messages start "tensor value 'x': " */
	Kept *kept;         /* recent copies, by the tree string's address */
	StrMap *shared;     /* copies of long strings, by content */
	Kept *frames;       /* user_frame() of recent kept stack traces, by address */
} Ctx;

/* The program's own copy of a string of the tree.  The parser already
 * shares short repeated strings ("cpu", targets, argument names), so the
 * same address recurs: a direct-mapped cache by address copies each once.
 * Long strings are metadata (stack traces, module stacks), repeated for
 * every layer built by the same code: one copy per distinct text. */
static const char *
keep(Ctx *c, const char *s)
{
	Kept *k;
	size_t n;
	char *copy;

	if (!s)
		return NULL;
	k = &c->kept[((uintptr_t)s * 0x9e3779b97f4a7c15u) >> (64 - KEEP_BITS)];
	if (k->json == s)
		return k->copy;
	k->json = s;
	if ((n = strlen(s)) >= SHARE_MIN && (k->copy = strmap_get(c->shared, s)))
		return k->copy;
	k->copy = copy = arena_strndup(c->a, s, n);
	if (n >= SHARE_MIN)
		strmap_put(c->shared, copy, copy);
	return copy;
}

static int parse_arg(Ctx *c, Graph *g, const Json *j, Arg *out);
static Graph *parse_graph(Ctx *c, const Json *j, Graph *parent, const char *name);

static int
err(Ctx *c, const Json *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
err(Ctx *c, const Json *at, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	if (c->what && c->name)
		msg = arena_printf(c->a, "%s '%s': %s", c->what, c->name, msg);
	else if (c->what)
		msg = arena_printf(c->a, "%s: %s", c->what, msg);
	if (at)
		return diag_report(c->d, YE_SCHEMA, &(DiagAt){.file = c->label, .line = at->line, .column = at->col},
			"%s", msg);
	return diag_report(c->d, YE_SCHEMA, &(DiagAt){.file = c->label}, "%s", msg);
}

/* Field accessors that report a missing or mistyped field. */
static const Json *
need(Ctx *c, const Json *obj, const char *key, JsonType type)
{
	const Json *v = json_get(obj, key);

	if (!v) {
		err(c, obj, "missing field '%s'", key);
		return NULL;
	}
	if (type == JSON_TRUE ? (v->type != JSON_TRUE && v->type != JSON_FALSE) : v->type != type) {
		err(c, v, "field '%s' has the wrong type", key);
		return NULL;
	}
	return v;
}

static const char *
need_str(Ctx *c, const Json *obj, const char *key)
{
	const Json *v = need(c, obj, key, JSON_STRING);

	return v ? v->s : NULL;
}

static int
need_int(Ctx *c, const Json *v, int64_t *out, const char *what)
{
	if (!v || !json_int(v, out))
		return err(c, v, "%s: expected an integer", what);
	return 0;
}

/* The one key of a union, or an error naming what was expected. */
static const char *
union_key(Ctx *c, const Json *j, const char *what)
{
	const char *k = j && j->type == JSON_OBJECT ? json_union_key(j) : NULL;

	if (!k)
		err(c, j, "%s: expected a one-key object (a union)", what);
	return k;
}

/* Symbolic expressions: srepr since torch 2.6, infix before. */
static SymExpr *
parse_expr(Ctx *c, const Json *at, const char *s)
{
	SymExpr *e;
	char *label = at ? arena_printf(c->a, "%s:%u:%u: expression '%s'", c->label, at->line, at->col, s)
	                 : arena_printf(c->a, "%s: expression '%s'", c->label, s);

	if (strstr(s, "Symbol(") || strstr(s, "Integer("))
		e = sym_parse_srepr(c->a, label, s, strlen(s), c->d);
	else
		e = sym_parse_infix(c->a, label, s, strlen(s), c->d);
	return e;
}

/* SymInt: {"as_int": n} or {"as_expr": {"expr_str": s, "hint": {"as_int": n}}}. */
static int
parse_symint(Ctx *c, const Json *j, Dim *dim)
{
	const char *k = union_key(c, j, "SymInt");
	const Json *v;

	if (!k)
		return DIAG_INPUT;
	v = json_union_value(j);
	if (strcmp(k, "as_int") == 0)
		return need_int(c, v, &dim->v, "as_int");
	if (strcmp(k, "as_expr") == 0) {
		const char *s = v && v->type == JSON_OBJECT ? need_str(c, v, "expr_str") : NULL;
		const Json *hint = v ? json_get(v, "hint") : NULL;
		if (!s)
			return DIAG_INPUT;
		if (!(dim->e = parse_expr(c, v, s)))
			return DIAG_INPUT;
		dim->v = -1;
		if (hint) {
			const Json *h = hint->type == JSON_OBJECT ? json_get(hint, "as_int") : hint;
			json_int(h, &dim->v);
		}
		return 0;
	}
	return err(c, j, "unknown SymInt variant '%s'", k);
}

static int
parse_symint_list(Ctx *c, const Json *j, Dim **out, int *n)
{
	if (!j || j->type != JSON_ARRAY)
		return err(c, j, "expected a list of SymInt");
	*n = (int)j->len;
	*out = ARENA_ARRAY(c->a, Dim, j->len + 1);
	for (size_t i = 0; i < j->len; i++)
		if (parse_symint(c, j->kids[i], &(*out)[i]))
			return DIAG_INPUT;
	return 0;
}

int
serde_tensor_meta(Arena *a, const char *label, const char *what, const char *name, const Json *j,
                  TensorMeta *m, Diag *d)
{
	Ctx c = {a, label, d, 0, what, name, NULL, NULL, NULL};   /* keeps no string */
	const Json *v;
	int64_t code;
	int nstride;

	memset(m, 0, sizeof *m);
	if (!j || j->type != JSON_OBJECT)
		return err(&c, j, "expected a TensorMeta object");
	if (need_int(&c, json_get(j, "dtype"), &code, "TensorMeta.dtype"))
		return DIAG_INPUT;
	if ((m->dtype = dtype_from_torch(code)) == DT_UNKNOWN)
		return err(&c, json_get(j, "dtype"), "unknown dtype %lld", (long long)code);
	if (parse_symint_list(&c, json_get(j, "sizes"), &m->sizes, &m->rank))
		return DIAG_INPUT;
	if ((v = json_get(j, "strides"))) {
		if (parse_symint_list(&c, v, &m->strides, &nstride))
			return DIAG_INPUT;
		if (nstride != m->rank)
			return err(&c, v, "%d strides for %d sizes", nstride, m->rank);
	}
	if ((v = json_get(j, "storage_offset"))) {
		if (v->type == JSON_NUMBER)
			json_int(v, &m->offset.v);
		else if (parse_symint(&c, v, &m->offset))
			return DIAG_INPUT;
	}
	m->requires_grad = (v = json_get(j, "requires_grad")) && v->type == JSON_TRUE;
	return 0;
}

/* Values named in a graph's tables. */
static Value *
lookup_or_err(Ctx *c, Graph *g, const Json *at, const char *name, ValueKind kind)
{
	Value *v = ir_lookup(g, name);

	if (!v) {
		err(c, at, "'%s' is not in the graph's value tables", name);
		return NULL;
	}
	if (v->kind != kind && !(kind == VAL_TENSOR && v->kind == VAL_TOKEN)) {
		err(c, at, "'%s' is used as a different kind of value than it was declared", name);
		return NULL;
	}
	return v;
}

static int
ref_tensor(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	const char *name;

	if (!j || j->type != JSON_OBJECT || !(name = need_str(c, j, "name")))
		return err(c, j, "expected a tensor reference {\"name\": ...}");
	out->kind = ARG_TENSOR;
	return (out->u.v = lookup_or_err(c, g, j, name, VAL_TENSOR)) ? 0 : DIAG_INPUT;
}

/* {"as_name": n} | {"as_int"/"as_bool"/"as_float": x} for SymInt/Bool/Float arguments. */
static int
ref_sym(Ctx *c, Graph *g, const Json *j, Arg *out, ArgKind kind, ValueKind vk)
{
	const char *k = union_key(c, j, "symbolic argument");
	const Json *v;

	if (!k)
		return DIAG_INPUT;
	v = json_union_value(j);
	if (strcmp(k, "as_name") == 0) {
		if (!json_str(v))
			return err(c, v, "as_name: expected a string");
		out->kind = kind;
		return (out->u.v = lookup_or_err(c, g, v, v->s, vk)) ? 0 : DIAG_INPUT;
	}
	if (strcmp(k, "as_int") == 0) {
		out->kind = ARG_INT;
		return need_int(c, v, &out->u.i, "as_int");
	}
	if (strcmp(k, "as_bool") == 0) {
		out->kind = ARG_BOOL;
		out->u.i = v && v->type == JSON_TRUE;
		return v && (v->type == JSON_TRUE || v->type == JSON_FALSE) ? 0 : err(c, v, "as_bool: expected a boolean");
	}
	if (strcmp(k, "as_float") == 0) {
		out->kind = ARG_FLOAT;
		return json_float(v, &out->u.f) ? 0 : err(c, v, "as_float: expected a number");
	}
	return err(c, j, "unknown symbolic argument variant '%s'", k);
}

typedef int (*ItemFn)(Ctx *c, Graph *g, const Json *j, Arg *out);

static int
item_int(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	(void)g;
	out->kind = ARG_INT;
	return need_int(c, j, &out->u.i, "list item");
}

static int
item_float(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	(void)g;
	out->kind = ARG_FLOAT;
	return json_float(j, &out->u.f) ? 0 : err(c, j, "expected a number");
}

static int
item_bool(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	(void)g;
	out->kind = ARG_BOOL;
	out->u.i = j && j->type == JSON_TRUE;
	return j && (j->type == JSON_TRUE || j->type == JSON_FALSE) ? 0 : err(c, j, "expected a boolean");
}

static int
item_string(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	(void)g;
	out->kind = ARG_STRING;
	return (out->u.s = keep(c, json_str(j))) ? 0 : err(c, j, "expected a string");
}

static int
item_symint(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return ref_sym(c, g, j, out, ARG_SYM_INT, VAL_SYM_INT);
}

static int
item_symbool(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return ref_sym(c, g, j, out, ARG_SYM_BOOL, VAL_SYM_BOOL);
}

static int
item_symfloat(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return ref_sym(c, g, j, out, ARG_SYM_FLOAT, VAL_SYM_FLOAT);
}

static int
item_opt_tensor(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	const char *k = union_key(c, j, "OptionalTensorArgument");

	if (!k)
		return DIAG_INPUT;
	if (strcmp(k, "as_none") == 0) {
		out->kind = ARG_NONE;
		return 0;
	}
	if (strcmp(k, "as_tensor") == 0)
		return ref_tensor(c, g, json_union_value(j), out);
	return err(c, j, "unknown OptionalTensorArgument variant '%s'", k);
}

static int
item_int_list(Ctx *c, Graph *g, const Json *j, Arg *out);
static int
item_float_list(Ctx *c, Graph *g, const Json *j, Arg *out);
static int
item_tensor_list(Ctx *c, Graph *g, const Json *j, Arg *out);

static int
list_of(Ctx *c, Graph *g, const Json *j, Arg *out, ArgKind kind, ItemFn fn)
{
	if (!j || j->type != JSON_ARRAY)
		return err(c, j, "expected a list");
	out->kind = kind;
	out->n = (int)j->len;
	out->u.list = ARENA_ARRAY(c->a, Arg, j->len + 1);
	for (size_t i = 0; i < j->len; i++)
		if (fn(c, g, j->kids[i], &out->u.list[i]))
			return DIAG_INPUT;
	return 0;
}

static int
item_int_list(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return list_of(c, g, j, out, ARG_INTS, item_int);
}

static int
item_float_list(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return list_of(c, g, j, out, ARG_FLOATS, item_float);
}

static int
item_tensor_list(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	return list_of(c, g, j, out, ARG_TENSORS, ref_tensor);
}

static int
parse_graph_arg(Ctx *c, Graph *g, const Json *v, Arg *out)
{
	const char *name = v && v->type == JSON_OBJECT ? need_str(c, v, "name") : NULL;
	const Json *gj = name ? need(c, v, "graph", JSON_OBJECT) : NULL;

	if (!gj)
		return DIAG_INPUT;
	if (c->depth >= MAX_GRAPH_DEPTH)
		return err(c, v, "subgraphs nested more than %d deep", MAX_GRAPH_DEPTH);
	out->kind = ARG_GRAPH;
	c->depth++;
	out->u.g = parse_graph(c, gj, g, keep(c, name));
	c->depth--;
	return out->u.g ? 0 : DIAG_INPUT;
}

static int
parse_arg(Ctx *c, Graph *g, const Json *j, Arg *out)
{
	const char *k = union_key(c, j, "Argument");
	const Json *v;
	ArgKind kind;

	if (!k)
		return DIAG_INPUT;
	v = json_union_value(j);
	for (kind = 0; kind < ARG_KIND_COUNT; kind++)
		if (strcmp(arg_kind_key[kind], k) == 0)
			break;
	memset(out, 0, sizeof *out);
	out->kind = kind;
	switch (kind) {
	case ARG_NONE:
		return 0;
	case ARG_TENSOR:
		return ref_tensor(c, g, v, out);
	case ARG_TENSORS:
		return list_of(c, g, v, out, ARG_TENSORS, ref_tensor);
	case ARG_OPT_TENSOR:
		if (item_opt_tensor(c, g, v, out))
			return DIAG_INPUT;
		if (out->kind == ARG_TENSOR)
			out->kind = ARG_OPT_TENSOR;
		return 0;
	case ARG_OPT_TENSORS:
		return list_of(c, g, v, out, ARG_OPT_TENSORS, item_opt_tensor);
	case ARG_INT:
	case ARG_SCALAR_TYPE:
	case ARG_MEMORY_FORMAT:
	case ARG_LAYOUT:
		return need_int(c, v, &out->u.i, k);
	case ARG_INTS:
		return list_of(c, g, v, out, kind, item_int);
	case ARG_FLOAT:
		return json_float(v, &out->u.f) ? 0 : err(c, v, "%s: expected a number", k);
	case ARG_FLOATS:
		return list_of(c, g, v, out, kind, item_float);
	case ARG_STRING:
	case ARG_OPERATOR:
		return (out->u.s = keep(c, json_str(v))) ? 0 : err(c, v, "%s: expected a string", k);
	case ARG_STRINGS:
		return list_of(c, g, v, out, kind, item_string);
	case ARG_BOOL:
		return item_bool(c, g, v, out);
	case ARG_BOOLS:
		return list_of(c, g, v, out, kind, item_bool);
	case ARG_SYM_INT:
		return item_symint(c, g, v, out);
	case ARG_SYM_INTS:
		return list_of(c, g, v, out, kind, item_symint);
	case ARG_SYM_BOOL:
		return item_symbool(c, g, v, out);
	case ARG_SYM_BOOLS:
		return list_of(c, g, v, out, kind, item_symbool);
	case ARG_SYM_FLOAT:
		return item_symfloat(c, g, v, out);
	case ARG_SYM_FLOATS:
		return list_of(c, g, v, out, kind, item_symfloat);
	case ARG_DEVICE: {
		const char *type = v && v->type == JSON_OBJECT ? need_str(c, v, "type") : NULL;
		int64_t index;
		if (!type)
			return DIAG_INPUT;
		out->u.s = json_int(json_get(v, "index"), &index)
		               ? arena_printf(c->a, "%s:%lld", type, (long long)index) : keep(c, type);
		return 0;
	}
	case ARG_GRAPH:
		return parse_graph_arg(c, g, v, out);
	case ARG_CUSTOM_OBJ: {
		const char *name = v && v->type == JSON_OBJECT ? need_str(c, v, "name") : NULL;
		if (!name)
			return DIAG_INPUT;
		return (out->u.v = lookup_or_err(c, g, v, name, VAL_CUSTOM_OBJ)) ? 0 : DIAG_INPUT;
	}
	case ARG_COMPLEX:
		if (!v || !json_float(json_get(v, "real"), &out->u.c[0]) ||
		    !json_float(json_get(v, "imag"), &out->u.c[1]))
			return err(c, v, "as_complex: expected {real, imag}");
		return 0;
	case ARG_INT_LISTS:
		return list_of(c, g, v, out, kind, item_int_list);
	case ARG_FLOAT_LISTS:
		return list_of(c, g, v, out, kind, item_float_list);
	case ARG_NESTED_TENSORS:
		return list_of(c, g, v, out, kind, item_tensor_list);
	case ARG_STRING_TO_ARG:
		if (!v || v->type != JSON_OBJECT)
			return err(c, v, "as_string_to_argument: expected an object");
		out->n = (int)v->len;
		out->u.list = ARENA_ARRAY(c->a, Arg, v->len + 1);
		for (size_t i = 0; i < v->len; i++) {
			if (parse_arg(c, g, v->kids[i], &out->u.list[i]))
				return DIAG_INPUT;
			out->u.list[i].key = keep(c, json_keys(v)[i]);
		}
		return 0;
	case ARG_KIND_COUNT:
		break;
	}
	return err(c, j, "unknown Argument variant '%s'", k);
}

/* The value tables: tensor_values, sym_int_values, sym_bool_values, ... */
static int
declare_values(Ctx *c, Graph *g, const Json *gj)
{
	static const struct { const char *key; ValueKind kind; } tables[] = {
		{"tensor_values", VAL_TENSOR}, {"sym_int_values", VAL_SYM_INT},
		{"sym_bool_values", VAL_SYM_BOOL}, {"sym_float_values", VAL_SYM_FLOAT},
		{"custom_obj_values", VAL_CUSTOM_OBJ},
	};
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		const Json *tab = json_get(gj, tables[t].key);
		if (!tab)
			continue;
		if (tab->type != JSON_OBJECT)
			return err(c, tab, "'%s' is not an object", tables[t].key);
		for (size_t i = 0; i < tab->len; i++) {
			const Json *m = tab->kids[i];
			const char *key = json_keys(tab)[i];
			Value *v;
			if (strmap_get(g->index, key))
				return err(c, m, "value '%s' is declared twice", key);
			v = ir_new_value(c->a, g, keep(c, key), tables[t].kind);
			if (tables[t].kind == VAL_TENSOR) {
				TensorMeta tm;
				if (serde_tensor_meta(c->a, c->label, "tensor value", key, m, &tm, c->d))
					return DIAG_INPUT;
				v->dtype = tm.dtype;
				v->rank = tm.rank;
				v->dims = tm.sizes;
				v->requires_grad = tm.requires_grad;
			} else if (tables[t].kind == VAL_CUSTOM_OBJ) {
				v->class_fqn = keep(c, json_str(json_get(m, "class_fqn")));
			} else {
				/* {"as_expr": {"expr_str", "hint"}} or a constant {"as_int": 3} */
				const char *k = union_key(c, m, key);
				const Json *u;
				if (!k)
					return DIAG_INPUT;
				u = json_union_value(m);
				if (strcmp(k, "as_expr") == 0) {
					const char *s = need_str(c, u, "expr_str");
					const Json *h = json_get(u, "hint");
					if (!s || !(v->expr = parse_expr(c, u, s)))
						return DIAG_INPUT;
					if (h) {
						const char *hk = h->type == JSON_OBJECT ? json_union_key(h) : NULL;
						const Json *hv = hk ? json_union_value(h) : h;
						double f;
						if (json_int(hv, &v->hint))
							v->has_hint = 1;
						else if (hv && (hv->type == JSON_TRUE || hv->type == JSON_FALSE))
							v->hint = hv->type == JSON_TRUE, v->has_hint = 1;
						else if (json_float(hv, &f))
							v->hint = (int64_t)f, v->has_hint = 1;
					}
				} else if (json_int(u, &v->hint)) {
					v->has_hint = 1;
				} else if (u && (u->type == JSON_TRUE || u->type == JSON_FALSE)) {
					v->hint = u->type == JSON_TRUE;
					v->has_hint = 1;
				}
			}
		}
	}
	return 0;
}

/* 1 when the file path [s, end) is inside an installed torch package. */
static int
frame_in_torch(const char *s, const char *end)
{
	if (end - s >= 6 && memcmp(s, "torch/", 6) == 0)
		return 1;
	for (const char *q = s; q + 16 <= end; q++)
		if (memcmp(q, "-packages/torch/", 16) == 0)
			return 1;
	return 0;
}

/* The last "File "...", line N, in fn\n    code" frame of a stack trace,
 * as "path:N in fn: code". */
static const char *
user_frame(Arena *a, const char *st)
{
	const char *p = st, *last = NULL, *q;
	int last_in_torch = 0;
	const char *file, *file_end, *line, *fn, *fn_end, *code, *code_end;

	/* The innermost frame outside torch's own modules: torch.nn layers
	 * call F.linear etc., but the user wants their forward()'s line. */
	while ((q = strstr(p, "File \""))) {
		const char *end = strchr(q + 6, '"');
		int in_torch = end && frame_in_torch(q + 6, end);
		if (!last || !in_torch || last_in_torch)
			last = q, last_in_torch = in_torch;
		p = q + 6;
	}
	if (!last)
		return NULL;
	file = last + 6;
	if (!(file_end = strchr(file, '"')))
		return NULL;
	if (!(line = strstr(file_end, ", line ")))
		return NULL;
	line += 7;
	fn = strstr(line, ", in ");
	fn_end = fn ? strchr(fn + 5, '\n') : NULL;
	if (fn && !fn_end)
		fn_end = fn + strlen(fn);
	code = fn_end && *fn_end ? fn_end + 1 : NULL;
	while (code && (*code == ' ' || *code == '\t'))
		code++;
	code_end = code ? strchr(code, '\n') : NULL;
	if (code && !code_end)
		code_end = code + strlen(code);
	return arena_printf(a, "%.*s:%.*s%s%.*s%s%.*s", (int)(file_end - file), file,
	                    (int)strspn(line, "0123456789"), line,
	                    fn ? " in " : "", fn ? (int)(fn_end - fn - 5) : 0, fn ? fn + 5 : "",
	                    code && code < code_end ? ": " : "", code ? (int)(code_end - code) : 0,
	                    code ? code : "");
}

static int
parse_node(Ctx *c, Graph *g, const Json *j, Node *n)
{
	const Json *ins = json_get(j, "inputs"), *outs = json_get(j, "outputs");
	const Json *meta = json_get(j, "metadata");

	n->graph = g;
	if (!(n->target = keep(c, need_str(c, j, "target"))))
		return DIAG_INPUT;
	n->op = strncmp(n->target, "torch.ops.", 10) == 0 ? n->target + 10 : n->target;
	if (meta && meta->type == JSON_OBJECT) {
		n->nmeta = (int)meta->len;
		n->meta = ARENA_ARRAY(c->a, Meta, meta->len + 1);
		for (size_t i = 0; i < meta->len; i++) {
			n->meta[i].key = keep(c, json_keys(meta)[i]);
			n->meta[i].val = json_str(meta->kids[i]) ? keep(c, meta->kids[i]->s) : "";
		}
		n->stack_trace = ir_meta(n, "stack_trace");
		n->nn_module_stack = ir_meta(n, "nn_module_stack");
		if (n->stack_trace) {
			/* layers built by the same code share one kept trace */
			Kept *k = &c->frames[((uintptr_t)n->stack_trace * 0x9e3779b97f4a7c15u) >> (64 - FRAME_BITS)];
			if (k->json != n->stack_trace)
				*k = (Kept){n->stack_trace, user_frame(c->a, n->stack_trace)};
			n->frame = k->copy;
		}
	}
	if (ins) {
		if (ins->type != JSON_ARRAY)
			return err(c, ins, "node inputs: expected a list");
		n->nin = (int)ins->len;
		n->in = ARENA_ARRAY(c->a, NamedArg, ins->len + 1);
		for (size_t i = 0; i < ins->len; i++) {
			const Json *na = ins->kids[i];
			const Json *kind = json_get(na, "kind");
			n->in[i].name = keep(c, json_str(json_get(na, "name")));
			if (!n->in[i].name)
				n->in[i].name = "";
			int64_t k;
			if (json_int(kind, &k))
				n->in[i].kind = (int)k;
			if (parse_arg(c, g, need(c, na, "arg", JSON_OBJECT), &n->in[i].arg))
				return DIAG_INPUT;
		}
	}
	if (outs) {
		if (outs->type != JSON_ARRAY)
			return err(c, outs, "node outputs: expected a list");
		n->nout = (int)outs->len;
		n->out = ARENA_ARRAY(c->a, Arg, outs->len + 1);
		for (size_t i = 0; i < outs->len; i++)
			if (parse_arg(c, g, outs->kids[i], &n->out[i]))
				return DIAG_INPUT;
	}
	n->name = keep(c, json_str(json_get(j, "name")));
	if (!n->name)
		n->name = n->nout && (n->out[0].kind == ARG_TENSOR || n->out[0].kind == ARG_SYM_INT ||
		                      n->out[0].kind == ARG_SYM_BOOL || n->out[0].kind == ARG_SYM_FLOAT)
		              ? n->out[0].u.v->name
		          : n->nout && n->out[0].kind == ARG_TENSORS && n->out[0].n
		              ? n->out[0].u.list[0].u.v->name
		              : arena_printf(c->a, "%s_%d", g->name[0] ? g->name : "node", n->id);
	return 0;
}

/* Marks n as the definer of the values in an output Arg. */
static int
define_outputs(Ctx *c, const Json *at, Node *n, Arg *o)
{
	Value *v = NULL;

	switch (o->kind) {
	case ARG_TENSOR: case ARG_OPT_TENSOR: case ARG_SYM_INT: case ARG_SYM_BOOL:
	case ARG_SYM_FLOAT: case ARG_CUSTOM_OBJ:
		v = o->u.v;
		break;
	case ARG_TENSORS: case ARG_OPT_TENSORS: case ARG_SYM_INTS: case ARG_SYM_BOOLS:
	case ARG_SYM_FLOATS:
		for (int i = 0; i < o->n; i++)
			if (define_outputs(c, at, n, &o->u.list[i]))
				return DIAG_INPUT;
		return 0;
	default:
		return 0;
	}
	if (v->def)
		return err(c, at, "value '%s' is produced by both node '%s' and node '%s'",
		           v->name, v->def->name, n->name);
	v->def = n;
	return 0;
}

static Graph *
parse_graph(Ctx *c, const Json *j, Graph *parent, const char *name)
{
	Graph *g = ARENA_NEW(c->a, Graph);
	const Json *ins = need(c, j, "inputs", JSON_ARRAY);
	const Json *outs = need(c, j, "outputs", JSON_ARRAY);
	const Json *nodes = need(c, j, "nodes", JSON_ARRAY);
	const Json *tv = json_get(j, "tensor_values");
	const Json *v;

	if (!ins || !outs || !nodes)
		return NULL;
	g->name = name;
	g->parent = parent;
	g->index = strmap_new(c->a, tv ? tv->len + 16 : 16);
	if (declare_values(c, g, j))
		return NULL;
	g->ninput = (int)ins->len;
	g->inputs = ARENA_ARRAY(c->a, Arg, ins->len + 1);
	for (size_t i = 0; i < ins->len; i++)
		if (parse_arg(c, g, ins->kids[i], &g->inputs[i]))
			return NULL;
	g->nnode = (int)nodes->len;
	g->nodes = ARENA_ARRAY(c->a, Node *, nodes->len + 1);
	for (size_t i = 0; i < nodes->len; i++) {
		Node *n = ARENA_NEW(c->a, Node);
		n->id = (int)i;
		g->nodes[i] = n;
		if (parse_node(c, g, nodes->kids[i], n))
			return NULL;
		for (int k = 0; k < n->nout; k++)
			if (define_outputs(c, nodes->kids[i], n, &n->out[k]))
				return NULL;
	}
	g->noutput = (int)outs->len;
	g->outputs = ARENA_ARRAY(c->a, Arg, outs->len + 1);
	for (size_t i = 0; i < outs->len; i++)
		if (parse_arg(c, g, outs->kids[i], &g->outputs[i]))
			return NULL;
	g->is_single_tensor_return = (v = json_get(j, "is_single_tensor_return")) && v->type == JSON_TRUE;
	return g;
}

static int
parse_input_spec(Ctx *c, Program *p, const Json *j, InputSpec *s)
{
	static const struct { const char *key, *target; InputKind kind; } kinds[] = {
		{"user_input", NULL, IN_USER_INPUT}, {"parameter", "parameter_name", IN_PARAMETER},
		{"buffer", "buffer_name", IN_BUFFER}, {"tensor_constant", "tensor_constant_name", IN_TENSOR_CONSTANT},
		{"custom_obj", "custom_obj_name", IN_CUSTOM_OBJ}, {"token", NULL, IN_TOKEN},
		{"constant_input", "name", IN_CONSTANT_INPUT},
	};
	const char *k = union_key(c, j, "InputSpec");
	const Json *v, *pv;

	if (!k)
		return DIAG_INPUT;
	v = json_union_value(j);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(kinds[i].key, k) != 0)
			continue;
		s->kind = kinds[i].kind;
		if (kinds[i].target && !(s->target = keep(c, need_str(c, v, kinds[i].target))))
			return DIAG_INPUT;
		s->persistent = (pv = json_get(v, "persistent")) ? pv->type == JSON_TRUE : 1;
		if (s->kind == IN_CONSTANT_INPUT) {
			const Json *cv = need(c, v, "value", JSON_OBJECT);
			return cv ? parse_arg(c, p->graph, cv, &s->value) : DIAG_INPUT;
		}
		return 0;
	}
	return err(c, j, "unknown InputSpec variant '%s'", k);
}

static int
parse_output_spec(Ctx *c, const Json *j, OutputSpec *s)
{
	static const struct { const char *key, *target; OutputKind kind; } kinds[] = {
		{"user_output", NULL, OUT_USER_OUTPUT}, {"loss_output", NULL, OUT_LOSS_OUTPUT},
		{"buffer_mutation", "buffer_name", OUT_BUFFER_MUTATION},
		{"gradient_to_parameter", "parameter_name", OUT_GRADIENT_TO_PARAMETER},
		{"gradient_to_user_input", "user_input_name", OUT_GRADIENT_TO_USER_INPUT},
		{"user_input_mutation", "user_input_name", OUT_USER_INPUT_MUTATION},
		{"token", NULL, OUT_TOKEN}, {"parameter_mutation", "parameter_name", OUT_PARAMETER_MUTATION},
	};
	const char *k = union_key(c, j, "OutputSpec");

	if (!k)
		return DIAG_INPUT;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(kinds[i].key, k) != 0)
			continue;
		s->kind = kinds[i].kind;
		if (kinds[i].target && !(s->target = keep(c, need_str(c, json_union_value(j), kinds[i].target))))
			return DIAG_INPUT;
		return 0;
	}
	return err(c, j, "unknown OutputSpec variant '%s'", k);
}

static int
parse_signature(Ctx *c, Program *p, const Json *sig)
{
	const Json *ins = sig ? need(c, sig, "input_specs", JSON_ARRAY) : NULL;
	const Json *outs = ins ? need(c, sig, "output_specs", JSON_ARRAY) : NULL;
	Graph *g = p->graph;

	if (!outs)
		return sig ? DIAG_INPUT : err(c, NULL, "missing the graph signature");
	if ((int)ins->len != g->ninput)
		return err(c, ins, "%u input specs for %d graph inputs", (unsigned)ins->len, g->ninput);
	if ((int)outs->len != g->noutput)
		return err(c, outs, "%u output specs for %d graph outputs", (unsigned)outs->len, g->noutput);
	p->ninput_spec = g->ninput;
	p->input_specs = ARENA_ARRAY(c->a, InputSpec, g->ninput + 1);
	for (int i = 0; i < g->ninput; i++) {
		p->input_specs[i].arg = &g->inputs[i];
		if (parse_input_spec(c, p, ins->kids[i], &p->input_specs[i]))
			return DIAG_INPUT;
	}
	p->noutput_spec = g->noutput;
	p->output_specs = ARENA_ARRAY(c->a, OutputSpec, g->noutput + 1);
	for (int i = 0; i < g->noutput; i++) {
		p->output_specs[i].arg = &g->outputs[i];
		if (parse_output_spec(c, outs->kids[i], &p->output_specs[i]))
			return DIAG_INPUT;
	}
	return 0;
}

static int
parse_ranges(Ctx *c, Program *p, const Json *rc)
{
	if (!rc)
		return 0;
	if (rc->type != JSON_OBJECT)
		return err(c, rc, "range_constraints: expected an object");
	p->nrange = (int)rc->len;
	p->ranges = ARENA_ARRAY(c->a, RangeConstraint, rc->len + 1);
	for (size_t i = 0; i < rc->len; i++) {
		RangeConstraint *r = &p->ranges[i];
		r->key = keep(c, json_keys(rc)[i]);
		if (!(r->expr = sym_parse_infix(c->a, arena_printf(c->a, "%s:%u:%u: range constraint '%s'",
		                                c->label, rc->kids[i]->line, rc->kids[i]->col, r->key),
		                                r->key, strlen(r->key), c->d)))
			return DIAG_INPUT;
		r->has_min = json_int(json_get(rc->kids[i], "min_val"), &r->min);
		r->has_max = json_int(json_get(rc->kids[i], "max_val"), &r->max);
	}
	return 0;
}

static void
parse_forward_args(Ctx *c, Program *p, const Json *mcg)
{
	const Json *names;

	if (!mcg || mcg->type != JSON_ARRAY)
		return;
	/* every module torch entered, in call order: the outlining's instances */
	p->module_fqns = ARENA_ARRAY(c->a, const char *, mcg->len + 1);
	for (size_t i = 0; i < mcg->len; i++) {
		const char *fqn = json_str(json_get(mcg->kids[i], "fqn"));
		if (fqn && fqn[0])
			p->module_fqns[p->nmodule_fqn++] = keep(c, fqn);
	}
	for (size_t i = 0; i < mcg->len; i++) {
		const char *fqn = json_str(json_get(mcg->kids[i], "fqn"));
		if (!fqn || fqn[0])
			continue;
		names = json_get(json_get(mcg->kids[i], "signature"), "forward_arg_names");
		if (!names || names->type != JSON_ARRAY)
			return;
		p->nforward_arg = (int)names->len;
		p->forward_arg_names = ARENA_ARRAY(c->a, const char *, names->len + 1);
		for (size_t k = 0; k < names->len; k++)
			p->forward_arg_names[k] = json_str(names->kids[k]) ? keep(c, names->kids[k]->s) : "";
		return;
	}
}

static int read_program(Ctx *c, Program *p, const Json *root);

int
serde_program(Program *p, const Json *root, const char *label, Diag *d)
{
	Kept kept[1 << KEEP_BITS] = {{0}}, frames[1 << FRAME_BITS] = {{0}};
	Arena scratch;   /* the map of shared copies, needed only while reading */
	int rc;

	arena_init(&scratch);
	rc = read_program(&(Ctx){p->arena, label, d, 0, NULL, NULL, kept, strmap_new(&scratch, 64), frames},
	                  p, root);
	arena_free(&scratch);
	return rc;
}

static int
read_program(Ctx *cp, Program *p, const Json *root)
{
	Ctx c = *cp;
	const Json *ver, *gm, *gj, *v;
	int64_t major = 0, minor = 0;

	if (!root || root->type != JSON_OBJECT)
		return err(&c, root, "the exported program is not a JSON object");
	if (!(ver = json_get(root, "schema_version")))
		return err(&c, root, "missing field 'schema_version'");
	if (ver->type == JSON_OBJECT) {
		if (need_int(&c, json_get(ver, "major"), &major, "schema_version.major"))
			return DIAG_INPUT;
		json_int(json_get(ver, "minor"), &minor);
	} else if (need_int(&c, ver, &major, "schema_version")) {
		return DIAG_INPUT;
	}
	p->schema_major = (int)major;
	p->schema_minor = (int)minor;
	if (major != 8)
		return err(&c, ver, "unsupported schema version %lld.%lld: this reader handles 8.x (torch 2.6 to 2.14)",
		           (long long)major, (long long)minor);
	p->torch_version = (v = json_get(root, "torch_version")) && json_str(v) ? keep(&c, v->s) : "<=2.4";
	if ((v = json_get(root, "verifiers")) && v->type == JSON_ARRAY) {
		p->nverifier = (int)v->len;
		p->verifiers = ARENA_ARRAY(c.a, const char *, v->len + 1);
		for (size_t i = 0; i < v->len; i++)
			p->verifiers[i] = json_str(v->kids[i]) ? keep(&c, v->kids[i]->s) : "";
	} else if ((v = json_get(root, "dialect")) && json_str(v)) {
		p->nverifier = 1;
		p->verifiers = ARENA_ARRAY(c.a, const char *, 1);
		p->verifiers[0] = keep(&c, v->s);
	}
	if (json_int(json_get(json_get(root, "opset_version"), "aten"), &minor))
		p->aten_opset = (int)minor;
	if (!(gm = need(&c, root, "graph_module", JSON_OBJECT)) || !(gj = need(&c, gm, "graph", JSON_OBJECT)))
		return DIAG_INPUT;
	if (!(p->graph = parse_graph(&c, gj, NULL, "")))
		return DIAG_INPUT;
	if (parse_signature(&c, p, json_get(gm, "signature")))
		return DIAG_INPUT;
	if (parse_ranges(&c, p, json_get(root, "range_constraints")))
		return DIAG_INPUT;
	parse_forward_args(&c, p, json_get(gm, "module_call_graph"));
	if ((v = json_get(root, "guards_code")) && v->type == JSON_ARRAY) {
		p->guards = ARENA_ARRAY(c.a, const char *, v->len + 1);
		for (size_t i = 0; i < v->len; i++)
			if (json_str(v->kids[i]))
				p->guards[p->nguard++] = keep(&c, v->kids[i]->s);
	}
	return ir_validate(p, c.d) ? DIAG_INPUT : 0;
}
