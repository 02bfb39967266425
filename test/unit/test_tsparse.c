/* test_tsparse.c: the TorchScript code parser (lib/read/ts/tsparse.c).
 *
 * Every code file test/unit/tsparse/make.py extracted from torch 2.14, 2.6
 * and 1.13 archives parses, with the trees of a few known ones checked
 * (classes, parameters, attributes, constants, statement kinds and lines,
 * keyword names); small snippets show each construct as the tree's text
 * (tsdump.h); bad code gives one DIAG_INPUT "t.py:line:col: expected X,
 * found Y"; and nesting past TS_MAX_NEST is an error, not a crash.  Every
 * text is parsed from an exact-size copy, so ASan sees a read past it. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "read/ts/ts.h"
#include "diagtext.h"
#include "tsdump.h"
#include "testutil.h"

static Arena arena;
static Diag diag;
static TsAst ast;
static char *dumped;

static void
setup(void)
{
	arena_init(&arena);
	memset(&diag, 0, sizeof diag);
}

static void
teardown(void)
{
	arena_free(&arena);
	diag_free(&diag);
	free(dumped);
	dumped = NULL;
}

/* Parses text[0..len) from a buffer that ends exactly there; returns the status. */
static int
parse_n(const char *label, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len);
	rc = ts_parse(&arena, label, copy, len, &ast, &diag);
	/* The tree must not point into the text. */
	memset(copy, 'X', len);
	free(copy);
	return rc;
}

/* The tree of the last parse as text (kept until teardown or the next call). */
static const char *
dump(size_t len)
{
	size_t n = 0;
	FILE *f;
	const char *bad;

	free(dumped);
	f = open_memstream(&dumped, &n);
	bad = ts_dump(f, &ast, len);
	fclose(f);
	ck_assert_msg(bad == NULL, "tree breaks an invariant: %s", bad);
	return dumped;
}

/* Parses src, which must succeed, and returns the tree as text. */
static const char *
parse_ok(const char *src)
{
	int rc = parse_n("t.py", src, strlen(src));

	ck_assert_msg(rc == 0, "unexpected error: %s", test_diag_text(&diag));
	return dump(strlen(src));
}

/* The single error line for code that must fail. */
static const char *
parse_err(const char *src, size_t len)
{
	static char buf[600];
	int rc;
	size_t n;

	diag_free(&diag);
	rc = parse_n("t.py", src, len);
	ck_assert_msg(rc == DIAG_INPUT, "accepted: %s", src);
	ck_assert_int_eq(diag.n, 1);
	ck_assert_int_eq(diag.code, DIAG_INPUT);
	ck_assert_int_eq(diag.items[0].code, YE_TS_SYNTAX);
	n = strlen(test_diag_text(&diag));
	ck_assert_msg(n > 0 && test_diag_text(&diag)[n - 1] == '\n', "one line expected");
	snprintf(buf, sizeof buf, "%.*s", (int)n - 1, test_diag_text(&diag));
	ck_assert_int_eq(ast.nclass, 0);
	return buf;
}

/* ---- every extracted file ---- */

/* Parses every *.py of test/unit/tsparse/DIR; returns how many there were. */
static int
parse_dir(const char *dir)
{
	char pattern[512];
	glob_t g;
	int n = 0;

	snprintf(pattern, sizeof pattern, "test/unit/tsparse/%s/*.py", dir);
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (size_t k = 0; k < g.gl_pathc; k++) {
		size_t len;
		char *text = test_slurp(g.gl_pathv[k], &len);

		ck_assert_msg(text != NULL, "cannot read %s", g.gl_pathv[k]);
		ck_assert_msg(parse_n(g.gl_pathv[k], text, len) == 0, "%s", test_diag_text(&diag));
		ck_assert_msg(ast.nclass + ast.ndef > 0, "%s: nothing parsed", g.gl_pathv[k]);
		dump(len);
		free(text);
		n++;
	}
	globfree(&g);
	return n;
}

START_TEST(every_file)
{
	/* torch 2.6 prints exactly what 2.14 does (make.py keeps no file of it
	 * that 2.14's hold, digits aside), so its folder may be empty. */
	static const struct { const char *dir; int min; } dirs[] = {
		{"torch-2.14", 60}, {"torch-2.6", 0}, {"torch-1.13", 3},
	};

	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
		int n = parse_dir(dirs[k].dir);

		ck_assert_msg(n >= dirs[k].min, "%s: %d files, expected at least %d", dirs[k].dir, n, dirs[k].min);
	}
}
END_TEST

/* Parses test/unit/tsparse/REL and returns its tree as text. */
static const char *
parse_file(const char *rel)
{
	char path[512];
	size_t len;
	char *text;
	const char *d;

	snprintf(path, sizeof path, "test/unit/tsparse/%s", rel);
	text = test_slurp(path, &len);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	ck_assert_msg(parse_n(path, text, len) == 0, "%s", test_diag_text(&diag));
	d = dump(len);
	free(text);
	return d;
}

static const TsStmt *
stmt_at(const TsDef *f, int k)
{
	ck_assert_msg(k < f->nbody, "%s has %d statements", f->name, f->nbody);
	return f->body[k];
}

/* The first call in e whose callee is ATTR .name, depth first. */
static const TsExpr *
find_call(const TsExpr *e, const char *name)
{
	const TsExpr *r;

	if (!e)
		return NULL;
	if (e->kind == TE_CALL && e->a->kind == TE_ATTR && strcmp(e->a->s, name) == 0)
		return e;
	if ((r = find_call(e->a, name)) || (r = find_call(e->b, name)))
		return r;
	for (int k = 0; k < e->nitem; k++)
		if ((r = find_call(e->items[k], name)))
			return r;
	return NULL;
}

START_TEST(traced_mlp)
{
	const TsClass *c;
	const TsDef *f;
	const TsStmt *s;

	parse_file("torch-2.14/mlp-trace.__torch__.py");
	ck_assert_int_eq(ast.nclass, 1);
	c = ts_class(&ast, "MLP");
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_null(ts_class(&ast, "Linear"));
	ck_assert_str_eq(c->base, "Module");
	ck_assert_int_eq(c->line, 1);
	ck_assert_int_eq(c->nparameter, 0);
	ck_assert_int_eq(c->nbuffer, 0);
	ck_assert_int_eq(c->nattr, 5);
	ck_assert_str_eq(c->attrs[0].name, "training");
	ck_assert_str_eq(c->attrs[2].name, "fc1");
	/* the submodule's class as a dotted name */
	ck_assert_int_eq(c->attrs[2].type->kind, TE_ATTR);
	ck_assert_str_eq(c->attrs[2].type->s, "Linear");
	f = ts_method(c, "forward");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(ts_method(c, "backward"));
	ck_assert_int_eq(f->line, 9);
	ck_assert_int_eq(f->nparam, 2);
	ck_assert_str_eq(f->params[0].name, "self");
	ck_assert_str_eq(f->params[1].name, "x");
	ck_assert_str_eq(f->params[1].type->s, "Tensor");
	ck_assert_str_eq(f->ret->s, "Tensor");
	ck_assert_int_eq(f->nbody, 5);
	s = stmt_at(f, 0);
	ck_assert_int_eq(s->kind, TS_ASSIGN);
	ck_assert_int_eq(s->line, 11);
	ck_assert_int_eq(s->col, 5);
	ck_assert_str_eq(s->target->s, "fc2");
	ck_assert_int_eq(s->value->kind, TE_ATTR);
	s = stmt_at(f, 4);
	ck_assert_int_eq(s->kind, TS_RETURN);
	ck_assert_int_eq(s->line, 15);
	ck_assert_str_eq(s->value->s, "_0");
	/* (fc2).forward((act).forward(...), ): a method call on a parenthesized name */
	s = stmt_at(f, 3);
	ck_assert_int_eq(s->value->kind, TE_CALL);
	ck_assert_int_eq(s->value->nitem, 1);
	ck_assert_str_eq(s->value->a->s, "forward");
	ck_assert_str_eq(s->value->a->a->s, "fc2");
	ck_assert_int_eq(s->value->col, 11);  /* where fc2 is: parentheses make no node */

	parse_file("torch-2.14/mlp-trace.__torch__.torch.nn.modules.linear.py");
	c = ts_class(&ast, "Linear");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->nparameter, 2);
	ck_assert_str_eq(c->parameters[0], "weight");
	ck_assert_str_eq(c->parameters[1], "bias");
	f = ts_method(c, "forward");
	s = stmt_at(f, 2);
	ck_assert_int_eq(s->kind, TS_RETURN);
	ck_assert_ptr_nonnull(find_call(s->value, "linear"));
}
END_TEST

START_TEST(traced_lstm_keywords)
{
	const TsDef *f;
	const TsExpr *zeros;
	static const char *const want[] = {NULL, "dtype", "layout", "device", "pin_memory"};

	parse_file("torch-2.14/lstm-trace.__torch__.torch.nn.modules.rnn.py");
	f = ts_method(ts_class(&ast, "LSTM"), "forward");
	ck_assert_ptr_nonnull(f);
	zeros = find_call(stmt_at(f, 10)->value, "zeros");
	ck_assert_ptr_nonnull(zeros);
	ck_assert_int_eq(zeros->nitem, 5);
	for (int k = 0; k < 5; k++) {
		if (want[k])
			ck_assert_str_eq(zeros->kw[k], want[k]);
		else
			ck_assert_ptr_null(zeros->kw[k]);
	}
	ck_assert_int_eq(zeros->items[1]->kind, TE_INT);
	ck_assert_int_eq(zeros->items[1]->i, 6);
	ck_assert_int_eq(zeros->items[2]->kind, TE_NONE);
	ck_assert_int_eq(zeros->items[4]->kind, TE_FALSE);
	ck_assert_str_eq(zeros->items[3]->a->s, "device");
	ck_assert_str_eq(zeros->items[3]->items[0]->s, "cpu");
	/* y, h, c = torch.lstm(...) */
	ck_assert_int_eq(stmt_at(f, 14)->target->kind, TE_TUPLE);
	ck_assert_int_eq(stmt_at(f, 14)->target->nitem, 3);
}
END_TEST

/* The value of the class constant name (their order follows Python's set order). */
static const TsExpr *
const_value(const TsClass *c, const char *name)
{
	for (int k = 0; k < c->nconst; k++)
		if (strcmp(c->const_names[k], name) == 0)
			return c->const_values[k];
	ck_abort_msg("class %s has no constant %s", c->name, name);
	return NULL;
}

/* The scripted module of every construct: control flow, constants, enums,
 * named tuples, free functions, with, strings with escapes. */
static void
check_flow(const char *rel)
{
	const char *d = parse_file(rel);
	const TsClass *c = ts_class(&ast, "Flow"), *e, *p;
	const TsDef *f;
	const TsStmt *s;
	int nwhile = 0, nwith = 0;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->nbuffer, 1);
	ck_assert_str_eq(c->buffers[0], "steps");
	ck_assert_int_eq(c->nconst, 2);
	ck_assert_int_eq(const_value(c, "widths")->kind, TE_TUPLE);
	ck_assert_int_eq(const_value(c, "widths")->nitem, 3);
	ck_assert_str_eq(const_value(c, "mode")->s, "sum");
	ck_assert_int_eq(c->ndef, 2);
	f = ts_method(c, "pick");
	ck_assert_int_eq(f->nparam, 4);
	ck_assert_str_eq(f->params[3].name, "c");
	ck_assert_str_eq(f->params[3].def->s, "RED");
	ck_assert_int_eq(f->params[2].def->i, 1);
	ck_assert_str_eq(f->ret->a->s, "Tuple");
	ck_assert_int_eq(f->ret->b->kind, TE_TUPLE);
	/* if / else holding an if: the printer's elif */
	s = stmt_at(f, 0);
	ck_assert_int_eq(s->kind, TS_IF);
	ck_assert_int_eq(s->norelse, 2);
	ck_assert_int_eq(s->orelse[0]->kind, TS_IF);

	f = ts_method(c, "forward");
	ck_assert_str_eq(f->params[3].name, "opt");
	ck_assert_int_eq(f->params[3].def->kind, TE_NONE);
	ck_assert_str_eq(f->params[3].type->a->s, "Optional");
	for (int k = 0; k < f->nbody; k++) {
		nwhile += f->body[k]->kind == TS_WHILE;
		nwith += f->body[k]->kind == TS_WITH;
	}
	ck_assert_int_eq(nwhile, 2);
	ck_assert_int_eq(nwith, 1);
	/* the escapes of the string literal come back as bytes */
	ck_assert_ptr_nonnull(strstr(d, "(call (. torch eq) tag \"a\\\"b\\\\c\\x0a\\x09'd\\x01\")"));
	ck_assert_ptr_nonnull(strstr(d, "(call (. torch clamp) y11 -inff inff)"));
	ck_assert_ptr_nonnull(strstr(d, "(call (. torch tensor) (list 1) dtype=3)"));
	ck_assert_ptr_nonnull(strstr(d, " = (call uninitialized bool)"));
	ck_assert_ptr_nonnull(strstr(d, "assign (tuple a b) = _27"));
	ck_assert_ptr_nonnull(strstr(d, "(call (. (. ops prim) RaiseException) "));
	ck_assert_ptr_nonnull(strstr(d, "1.0000000000000001e-05f"));

	e = ts_class(&ast, "Color");
	ck_assert_str_eq(e->base, "Enum");
	ck_assert_int_eq(e->nconst, 2);
	ck_assert_str_eq(e->const_names[1], "GREEN");
	ck_assert_int_eq(e->const_values[1]->i, 2);
	p = ts_class(&ast, "Pair");
	ck_assert_str_eq(p->base, "NamedTuple");
	ck_assert_int_eq(p->nattr, 2);
	ck_assert_str_eq(p->attrs[1].name, "hi");
	ck_assert_int_eq(ast.ndef, 2);
	f = ts_function(&ast, "clamp_pair");
	ck_assert_ptr_nonnull(f);
	ck_assert(f->params[2].def->f == 1.0000000000000001e-05);
	ck_assert(f->params[1].def->f == -1.5);
	ck_assert_ptr_null(ts_function(&ast, "forward"));
}

START_TEST(scripted_flow)
{
	/* 2.6 and 1.13 print it alike, digits aside (make.py keeps one) */
	check_flow("torch-2.14/flow-script.__torch__.py");
}
END_TEST

START_TEST(scripted_fork_and_loops)
{
	const TsDef *f;
	const TsStmt *s = NULL;

	parse_file("torch-2.14/ctx-script.__torch__.py");
	f = ts_method(ts_class(&ast, "Ctx"), "forward");
	for (int k = 0; k < f->nbody; k++)
		if (f->body[k]->kind == TS_DEF)
			s = f->body[k];
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->def->name, "__forked_function");
	ck_assert_int_eq(s->def->nparam, 0);
	ck_assert_int_eq(s->def->body[0]->kind, TS_RETURN);
	s = stmt_at(f, 3);
	ck_assert_int_eq(s->kind, TS_FOR);
	ck_assert_str_eq(s->target->s, "_0");
	ck_assert_str_eq(s->value->a->s, "range");
	ck_assert_int_eq(s->nbody, 4);
}
END_TEST

/* ---- snippets ---- */

static const struct {
	const char *src, *tree;
} snippets[] = {
	/* precedence: ** over unary minus over * over +, comparisons, not, and, or */
	{"def f():\n  return -a ** 2 * b + c\n",
	 "1 def f()\n  2:3 return (+ (* (neg (** a 2)) b) c)\n"},
	{"def f():\n  return not a == b and c or d\n",
	 "1 def f()\n  2:3 return (or (and (not (== a b)) c) d)\n"},
	{"def f():\n  return a | b ^ c & d << 1 >> 2 - e // f % g @ h / i\n",
	 "1 def f()\n  2:3 return (| a (^ b (& c (>> (<< d 1) (- 2 (/ (@ (% (// e f) g) h) i))))))\n"},
	/* chained comparisons share their middle operand */
	{"def f():\n  return 0 < n <= 10 != m\n",
	 "1 def f()\n  2:3 return (and (and (< 0 n) (<= n 10)) (!= 10 m))\n"},
	{"def f():\n  return a is not None, b is None, c not in d, e in f, ~g, +h\n",
	 "1 def f()\n  2:3 return (tuple (is-not a None) (is b None) (not-in c d) (in e f) (inv g) (pos h))\n"},
	/* a ternary, right-associative */
	{"def f():\n  return a if c else b if d else e\n",
	 "1 def f()\n  2:3 return (if c a (if d b e))\n"},
	/* literals: floats as the printer writes them, negatives folded, the int64 extremes */
	{"def f():\n  return [1., -0., 1e-05, 1.0000000000000001e-05, 1e+20, .5, inf, -inf, nan, 2.j, 1.+2.j]\n",
	 "1 def f()\n  2:3 return (list 1f -0f 1.0000000000000001e-05f 1.0000000000000001e-05f 1e+20f 0.5f inff -inff "
	 "nanf 2j (+ 1f 2j))\n"},
	{"def f():\n  return (9223372036854775807, -9223372036854775808, -1, - 2, True, False, None)\n",
	 "1 def f()\n  2:3 return (tuple 9223372036854775807 -9223372036854775808 -1 -2 True False None)\n"},
	/* strings: the printer's escapes, octal, hex, \u, both quotes, joined literals */
	{"def f():\n  return \"a\\\"b\\\\c\\n\\t\\'d\\001\" 'x\\x41\\u00e9' \"\"\"t\nq\"\"\"\n",
	 "1 def f()\n  2:3 return \"a\\\"b\\\\c\\x0a\\x09'd\\x01xA\\xc3\\xa9t\\x0aq\"\n"},
	/* calls with keywords, attribute chains, getattr, subscripts and slices */
	{"def f(self):\n  return torch.zeros([2, 3], dtype=6, device=torch.device(\"cpu\"))\n",
	 "1 def f(self)\n  2:3 return (call (. torch zeros) (list 2 3) dtype=6 device=(call (. torch device) \"cpu\"))\n"},
	{"def f(self):\n  _0 = getattr(self.blocks, \"0\")\n  return (_0).forward(x, )\n",
	 "1 def f(self)\n  2:3 assign _0 = (call getattr (. self blocks) \"0\")\n"
	 "  3:3 return (call (. _0 forward) x)\n"},
	{"def f():\n  return (x)[0:2], x[1:], x[:-1], x[::2], x[:], d[\"a\"], m[1, 2:3]\n",
	 "1 def f()\n  2:3 return (tuple (index x (slice 0 2 _)) (index x (slice 1 _ _)) (index x (slice _ -1 _)) "
	 "(index x (slice _ _ 2)) (index x (slice _ _ _)) (index d \"a\") (index m (tuple 1 (slice 2 3 _))))\n"},
	/* containers: empty, one-element tuple, dicts, nested */
	{"def f():\n  return ((), (a,), [], {}, {\"a\": 1, \"b\": [x, ]}, annotate(List[int], []))\n",
	 "1 def f()\n  2:3 return (tuple (tuple) (tuple a) (list) (dict) (dict \"a\" 1 \"b\" (list x)) "
	 "(call annotate (index List int) (list)))\n"},
	/* statements: tuple unpacking with a trailing comma, aug-assign, annotated */
	{"def f():\n  a, b, = x\n  c, = y\n  d += 1\n  e //= 2\n  g **= 3\n  h : Tensor = m[0]\n  self.w = 1\n  l[0] = 2\n",
	 "1 def f()\n  2:3 assign (tuple a b) = x\n  3:3 assign (tuple c) = y\n  4:3 augassign + d = 1\n"
	 "  5:3 augassign // e = 2\n  6:3 augassign ** g = 3\n  7:3 annassign h : Tensor = (index m 0)\n"
	 "  8:3 assign (. self w) = 1\n  9:3 assign (index l 0) = 2\n"},
	/* control flow, elif as an else holding an if */
	{"def f(x: Tensor) -> Tensor:\n  if a:\n    pass\n  elif b:\n    return x\n  else:\n    raise E(\"m\")\n"
	 "  for i in range(3):\n    continue\n  for k, v in d.items():\n    break\n  while c: x = 1\n",
	 "1 def f(x: Tensor) -> Tensor\n  2:3 if a\n    3:5 pass\n  else\n    4:3 if b\n      5:5 return x\n"
	 "    else\n      7:5 raise (call E \"m\")\n  8:3 for i in (call range 3)\n    9:5 continue\n"
	 "  10:3 for (tuple k v) in (call (. d items))\n    11:5 break\n  12:3 while c\n    12:12 assign x = 1\n"},
	{"def f():\n  assert x, \"msg\"\n  del l[0], m\n  raise\n  return\n",
	 "1 def f()\n  2:3 assert x, \"msg\"\n  3:3 del (tuple (index l 0) m)\n  4:3 raise\n  5:3 return\n"},
	/* with, a nested def, fork */
	{"def f(x):\n  with _0:\n    y = 1\n  with a as b:\n    pass\n  def __forked_function():\n    return x\n"
	 "  return fork(__forked_function)\n",
	 "1 def f(x)\n  2:3 with _0\n    3:5 assign y = 1\n  4:3 with a as b\n    5:5 pass\n  6:3 def\n"
	 "    6 def __forked_function()\n      7:5 return x\n  8:3 return (call fork __forked_function)\n"},
	/* typed parameters over lines, defaults, comments, blank lines, continuations */
	{"# a comment\n\ndef f(self,\n    x: Tensor,\n    n: int=3,  # why\n    o: Optional[List[int]]=None) -> Tuple[Tensor, Tensor]:\n"
	 "\n  # inside\n  y = torch.add(x,\n      1)\n  z = 1 + \\\n    2\n  return (y,\n    z)",
	 "3 def f(self, x: Tensor, n: int=3, o: (index Optional (index List int))=None) -> (index Tuple (tuple Tensor Tensor))\n"
	 "  9:3 assign y = (call (. torch add) x 1)\n  11:3 assign z = (+ 1 2)\n  13:3 return (tuple y z)\n"},
	/* a class body: parameters, buffers, attributes, constants, odd names */
	{"class M(Module):\n  __parameters__ = [\"weight\", ]\n  __buffers__ = [\"b1\", \"b2\", ]\n  weight : Tensor\n"
	 "  training : bool\n  __annotations__ = []\n  __annotations__[\"0\"] = __torch__.L\n"
	 "  eps : Final[float] = 1.0000000000000001e-05\n  __forward_hooks__ = [\"h\", ]\n"
	 "  def forward(self: __torch__.M) -> NoneType:\n    return None\n"
	 "class C(Enum):\n  A = \"x\"\nclass I(Interface):\n  def f(self, x: int) -> int:\n    pass\n",
	 "1 class M(Module)\n  parameters weight\n  buffers b1 b2\n  attr weight : Tensor\n  attr training : bool\n"
	 "  attr 0 : (. __torch__ L)\n  const eps = 1.0000000000000001e-05f\n  const __forward_hooks__ = (list \"h\")\n"
	 "  10 def forward(self: (. __torch__ M)) -> NoneType\n    11:5 return None\n"
	 "12 class C(Enum)\n  parameters\n  buffers\n  const A = \"x\"\n"
	 "14 class I(Interface)\n  parameters\n  buffers\n  15 def f(self, x: int) -> int\n    16:5 pass\n"},
	/* tabs and a file with no last newline, CRLF line ends */
	{"def f():\r\n\tif a:\r\n\t\treturn 1\r\n\treturn 2",
	 "1 def f()\n  2:2 if a\n    3:3 return 1\n  4:2 return 2\n"},
	{"", ""},
};

START_TEST(snippet_trees)
{
	for (size_t k = 0; k < sizeof snippets / sizeof *snippets; k++) {
		const char *got = parse_ok(snippets[k].src);

		ck_assert_msg(strcmp(got, snippets[k].tree) == 0, "snippet %zu:\n%s\ngave\n%s\nexpected\n%s", k,
		              snippets[k].src, got, snippets[k].tree);
	}
}
END_TEST

/* ---- errors ---- */

static const struct {
	const char *src, *msg;
} errors[] = {
	{"x = 1\n", "t.py:1:1: expected 'class' or 'def', found name 'x'"},
	{"def f(:\n  pass\n", "t.py:1:7: expected a parameter name, found ':'"},
	{"def f()\n  pass\n", "t.py:1:8: expected ':' after the function's signature, found end of line"},
	{"def f():\npass\n", "t.py:2:1: expected an indented block, found 'pass'"},
	{"def f():\n  return (1,\n", "t.py:3:1: expected ',' or ')', found end of file"},
	{"def f():\n  return [1 2]\n", "t.py:2:13: expected ',' or ']', found number 2"},
	{"def f():\n  x = \"abc\n", "t.py:2:7: expected '\"' to close the string, found end of line"},
	{"def f():\n    x = 1\n  y = 2\n", "t.py:3:3: expected an indent of 0 columns, as an enclosing block, found 2"},
	{"def f():\n  x = 1\n    y = 2\n", "t.py:3:5: expected a statement, found an indented line"},
	{"def f():\n  return a $ b\n", "t.py:2:12: expected a name, number, string or operator, found '$'"},
	{"def f():\n  return [x for x in y]\n", "t.py:2:13: expected ',' or ']', found 'for'"},
	{"def f():\n  x = lambda: 1\n", "t.py:2:7: expected an expression, found 'lambda'"},
	{"def f():\n  f(x=1, 2)\n", "t.py:2:10: expected a keyword argument after x=, found a positional one"},
	{"def f():\n  f(1) = 2\n", "t.py:2:3: expected a name, attribute or subscript to assign to, found a call"},
	{"def f():\n  a = b = 1\n", "t.py:2:9: expected end of line (one target per assignment), found '='"},
	{"def f():\n  return 9223372036854775808\n",
	 "t.py:2:10: expected an integer of 64 bits, found number 9223372036854775808"},
	{"def f():\n  return 1e\n", "t.py:2:12: expected a digit in the exponent, found end of line"},
	{"def f():\n  return 12abc\n", "t.py:2:12: expected an operator or a space after a number, found 'a'"},
	{"def f():\n  return \"\\x4\"\n", "t.py:2:14: expected 2 hex digits after '\\x', found '\"'"},
	{"def f():\n  x = 1 \\ 2\n", "t.py:2:10: expected a line end after '\\', found ' '"},
	{"def f():\n  if a\n    pass\n", "t.py:2:7: expected ':' after the condition, found end of line"},
	{"def f():\n  return a if b\n", "t.py:2:16: expected 'else' in a conditional expression, found end of line"},
	{"def f():\n  return a not b\n", "t.py:2:16: expected 'in' after 'not', found name 'b'"},
	{"class A(Module):\n  __parameters__ = [weight, ]\n", "t.py:2:21: expected a name in quotes, found name 'weight'"},
	{"class A(Module):\n  x = 1\n  f(x)\n",
	 "t.py:3:3: expected a method, an attribute (name : type) or a constant (name = value) in the class body, "
	 "found another statement"},
	{"class A(Module): pass\n", "t.py:1:18: expected end of line after 'class ...:', found 'pass'"},
	{"def f():\n  return x[]\n", "t.py:2:11: expected a subscript, found '[]'"},
	{"def f():\n  return 1\x01\n", "t.py:2:11: expected a name, number, string or operator, found byte 0x01"},
	{"def f():\n  with a, b:\n    pass\n", "t.py:2:9: expected ':' after the with item, found ','"},
	{"def f():\n  x.if = 1\n", "t.py:2:5: expected an attribute name after '.', found 'if'"},
};

START_TEST(error_messages)
{
	for (size_t k = 0; k < sizeof errors / sizeof *errors; k++) {
		const char *got = parse_err(errors[k].src, strlen(errors[k].src));

		ck_assert_msg(strcmp(got, errors[k].msg) == 0, "error %zu:\n%s\ngave\n%s\nexpected\n%s", k,
		              errors[k].src, got, errors[k].msg);
	}
}
END_TEST

/* A string of n copies of unit between head and tail, malloc'd. */
static char *
repeat(const char *head, const char *unit, int n, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * (size_t)n + tl + 1), *p = s;

	memcpy(p, head, hl);
	p += hl;
	for (int k = 0; k < n; k++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl + 1);
	return s;
}

/* Past TS_MAX_NEST: brackets, unary operators, operator and trailer chains,
 * blocks.  Each is an error at the level where it stopped, not a crash. */
START_TEST(nesting_limits)
{
	static const struct { const char *head, *unit, *tail; } deep[] = {
		{"def f():\n  return ", "(", "1"},
		{"def f():\n  return ", "[", "1"},
		{"def f():\n  return ", "-", "x"},
		{"def f():\n  return ", "not ", "x"},
		{"def f():\n  return x", " + x", "\n"},
		{"def f():\n  return x", ".a", "\n"},
		{"def f():\n  return x", "(1)", "\n"},
		{"def f():\n  return x", " < x", "\n"},
		{"def f():\n  return x", " and x", "\n"},
		{"def f():\n  return x", " if x else x", "\n"},
		{"def f():\n  return x", " ** x", "\n"},
	};
	char *s;
	const char *msg;

	for (size_t k = 0; k < sizeof deep / sizeof *deep; k++) {
		/* just under the limit parses */
		s = repeat(deep[k].head, deep[k].unit, TS_MAX_NEST - 10, "");
		if (deep[k].unit[0] == '(' || deep[k].unit[0] == '[') {
			free(s);
			s = NULL;
		} else {
			char *full = malloc(strlen(s) + strlen(deep[k].tail) + 2);

			sprintf(full, "%s%s\n", s, deep[k].tail);
			ck_assert_msg(parse_n("t.py", full, strlen(full)) == 0, "%zu: %s", k, test_diag_text(&diag));
			dump(strlen(full));
			free(full);
			free(s);
		}
		s = repeat(deep[k].head, deep[k].unit, 100000, deep[k].tail);
		msg = parse_err(s, strlen(s));
		ck_assert_msg(strstr(msg, "expected at most 200 levels of nesting, found more") != NULL, "%zu: %s", k, msg);
		free(s);
	}
	/* one line indented past a million columns */
	s = repeat("def f():\n", " ", (1 << 20) + 1, "x\n");
	msg = parse_err(s, strlen(s));
	ck_assert_str_eq(msg, "t.py:2:1048578: expected an indent of at most 1048576 columns, found more");
	free(s);
	/* blocks: if inside if; indentation grows by one column a level */
	{
		size_t cap = 64 + 300 * 320, n = 0;
		char *b = malloc(cap);

		n += (size_t)sprintf(b + n, "def f():\n");
		for (int k = 1; k <= 300; k++)
			n += (size_t)sprintf(b + n, "%*sif x:\n", k, "");
		n += (size_t)sprintf(b + n, "%*spass\n", 301, "");
		msg = parse_err(b, n);
		ck_assert_msg(strstr(msg, "levels of") != NULL, "%s", msg);
		free(b);
	}
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("tsparse");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_file);
	tcase_add_test(tc, traced_mlp);
	tcase_add_test(tc, traced_lstm_keywords);
	tcase_add_test(tc, scripted_flow);
	tcase_add_test(tc, scripted_fork_and_loops);
	tcase_add_test(tc, snippet_trees);
	tcase_add_test(tc, error_messages);
	tcase_add_test(tc, nesting_limits);
	suite_add_tcase(s, tc);
	return s;
}
