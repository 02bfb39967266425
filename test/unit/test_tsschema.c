/* test_tsschema.c: the schema table (lib/read/ts/tsschema.def) and the
 * overload TorchScript's rules choose for a call.
 *
 * The choices are torch's own: test/unit/tsschema/make_cases.py scripts
 * each call in torch 2.14 (and re-binds every op call of traced, scripted
 * and frozen models as their printed code writes it) and records what
 * torch picked in cases.txt; every case there must come out the same.
 * The hand-written tests below pin the table's shape, the conversions a
 * binding reports and the error text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ts/ts.h"
#include "testutil.h"

static char why[4096];

/* Binds ns::name over kinds written as text: "Tensor, int, alpha=int". */
typedef struct Parsed {
	int npos, nkw;
	TsKind pos[64], kw[16];
	char names[16][32];
	const char *kwname[16];
} Parsed;

static int
kind_of(const char *s, size_t n, TsKind *k)
{
	for (int i = TK_NONE; i <= TK_EMPTY_LIST; i++)
		if (strlen(ts_kind_name((TsKind)i)) == n && strncmp(ts_kind_name((TsKind)i), s, n) == 0) {
			*k = (TsKind)i;
			return 1;
		}
	return 0;
}

/* Reads "A, B, kw=C" (no parentheses) into p; returns 0 on a bad kind. */
static int
parse_kinds(const char *s, Parsed *p)
{
	memset(p, 0, sizeof *p);
	while (*s) {
		const char *end, *eq;
		TsKind k;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		eq = memchr(s, '=', (size_t)(end - s));
		if (eq) {
			if (!kind_of(eq + 1, (size_t)(end - eq - 1), &k) || p->nkw == 16)
				return 0;
			snprintf(p->names[p->nkw], sizeof p->names[0], "%.*s", (int)(eq - s), s);
			p->kwname[p->nkw] = p->names[p->nkw];
			p->kw[p->nkw++] = k;
		} else {
			if (!kind_of(s, (size_t)(end - s), &k) || p->npos == 64)
				return 0;
			p->pos[p->npos++] = k;
		}
		s = *end ? end + 1 : end;
	}
	return 1;
}

static int
bind(const char *ns, const char *name, const char *kinds, TsBind *b)
{
	Parsed p;

	ck_assert_msg(parse_kinds(kinds, &p), "bad kinds '%s'", kinds);
	return ts_schema_bind(ns, name, p.npos, p.pos, p.nkw, p.kwname, p.kw, b, why, sizeof why);
}

/* The overload chosen, "add.Tensor" ("add" for the default one), or "!"
 * when none fits. */
static const char *
choice(const char *ns, const char *name, const char *kinds)
{
	static char out[128];
	TsBind b;

	if (bind(ns, name, kinds, &b) < 0)
		return "!";
	snprintf(out, sizeof out, "%s%s%s%s", b.schema->body ? "builtin " : "", b.schema->name,
	         *b.schema->overload ? "." : "", b.schema->overload);
	return out;
}

START_TEST(table_shape)
{
	int n, total;
	const TsSchema *const *s = ts_schemas("aten", "add", &n);
	const TsSchema *const *all = ts_schema_table(&total);

	ck_assert_int_ge(n, 14);
	ck_assert_str_eq(s[0]->overload, "Tensor");    /* registration order */
	ck_assert_str_eq(s[1]->overload, "Scalar");
	ck_assert_ptr_null(ts_schemas("aten", "no_such_op", &n));
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(ts_schemas("nons", "add", &n));
	ck_assert_int_gt(total, 2500);
	/* Sorted by (ns, name); a name's operators unique and before its
	 * builtin functions; every row found by its name; arguments within
	 * TS_MAX_ARGS, named, their types known. */
	for (int i = 0; i < total; i++) {
		const TsSchema *r = all[i];
		int d = i ? strcmp(all[i - 1]->ns, r->ns) : -1;

		if (!d)
			d = strcmp(all[i - 1]->name, r->name);
		ck_assert_msg(d <= 0, "row %d (%s::%s) out of order", i, r->ns, r->name);
		if (d == 0 && !r->body) {
			ck_assert_msg(!all[i - 1]->body, "%s::%s: an operator after a builtin", r->ns, r->name);
			for (int j = i - 1; j >= 0 && strcmp(all[j]->name, r->name) == 0 &&
			                    strcmp(all[j]->ns, r->ns) == 0; j--)
				ck_assert_msg(strcmp(all[j]->overload, r->overload) != 0, "%s::%s.%s twice", r->ns,
				              r->name, r->overload);
		}
		s = ts_schemas(r->ns, r->name, &n);
		ck_assert_msg(s && s <= &all[i] && &all[i] < s + n, "%s::%s not found", r->ns, r->name);
		ck_assert_int_le(r->narg, TS_MAX_ARGS);
		for (int a = 0; a < r->narg; a++) {
			ck_assert_ptr_nonnull(r->args[a].name);
			ck_assert_int_le(r->args[a].type, TA_FREE);
			ck_assert_int_eq(r->args[a].has_default, r->args[a].def != NULL);
			ck_assert_msg(!a || r->args[a].kwonly >= r->args[a - 1].kwonly, "%s::%s: * twice",
			              r->ns, r->name);
		}
		for (int k = 0; k < r->nret; k++)
			ck_assert_ptr_nonnull(r->rets[k]);
	}
}
END_TEST

START_TEST(known_rows)
{
	const TsSchema *s = ts_schema_find("aten", "max_pool2d", "");

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->narg, 6);
	ck_assert_str_eq(s->args[1].name, "kernel_size");
	ck_assert_int_eq(s->args[1].type, TA_INTS);
	ck_assert_int_eq(s->args[1].list_len, 2);
	ck_assert_int_eq(s->args[1].has_default, 0);
	ck_assert_str_eq(s->args[3].def, "[0, 0]");     /* int[2] padding=0, as TorchScript holds it */
	ck_assert_str_eq(s->args[5].def, "False");
	ck_assert_int_eq(s->nret, 1);
	ck_assert_str_eq(s->rets[0], "Tensor");
	ck_assert_int_eq(s->alias, 0);

	s = ts_schema_find("aten", "add", "Tensor");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->args[2].kwonly, 1);
	ck_assert_int_eq(s->args[2].type, TA_SCALAR);
	ck_assert_str_eq(s->args[2].def, "1");

	s = ts_schema_find("aten", "gelu", "");
	ck_assert_str_eq(s->args[1].def, "'none'");
	s = ts_schema_find("aten", "view", "");
	ck_assert_int_eq(s->alias, 1);
	ck_assert_str_eq(s->rets[0], "Tensor(a)");
	s = ts_schema_find("aten", "add_", "Tensor");
	ck_assert_int_eq(s->alias, 2);
	s = ts_schema_find("aten", "max", "dim");
	ck_assert_int_eq(s->nret, 2);
	s = ts_schema_find("aten", "format", "");
	ck_assert_int_eq(s->vararg, 1);
	s = ts_schema_find("prim", "RaiseException", "");
	ck_assert_int_eq(s->nret, 0);
	s = ts_schema_find("aten", "contiguous", "");
	ck_assert_int_eq(s->args[1].type, TA_MEMORY_FORMAT);
	ck_assert_str_eq(s->args[1].def, "0");
	/* No out= and no Dimname overloads. */
	ck_assert_ptr_null(ts_schema_find("aten", "add", "out"));
	ck_assert_ptr_null(ts_schema_find("aten", "sum", "IntList_out"));
	ck_assert_ptr_null(ts_schema_find("aten", "sum", "dim_DimnameList"));
	ck_assert_ptr_nonnull(ts_schema_find("torchvision", "nms", ""));
	/* Old overloads older printed code may call, after 2.14's. */
	ck_assert_ptr_null(ts_schema_find("aten", "add", "Tensor")->until);
	s = ts_schema_find("aten", "frobenius_norm", "");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->until, "1.13");
	ck_assert_str_eq(ts_schema_find("aten", "qr", "")->until, "2.6");
	ck_assert_str_eq(choice("aten", "frobenius_norm", "Tensor, int[], bool"), "frobenius_norm.dim");
	ck_assert_str_eq(choice("aten", "frobenius_norm", "Tensor"), "frobenius_norm");
}
END_TEST

START_TEST(schema_text)
{
	char buf[256];
	int n = ts_schema_text(ts_schema_find("aten", "add", "Tensor"), buf, sizeof buf);

	ck_assert_str_eq(buf, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)");
	ck_assert_int_eq(n, (int)strlen(buf));
	ts_schema_text(ts_schema_find("aten", "sum", "dim_IntList"), buf, sizeof buf);
	ck_assert_str_eq(buf, "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
	                      "ScalarType? dtype=None)");
	ts_schema_text(ts_schema_find("aten", "format", ""), buf, sizeof buf);
	ck_assert_str_eq(buf, "aten::format(str self, ...)");
	ts_schema_op_name(ts_schema_find("aten", "add", "Tensor"), buf, sizeof buf);
	ck_assert_str_eq(buf, "aten.add.Tensor");
	ts_schema_op_name(ts_schema_find("aten", "relu", ""), buf, sizeof buf);
	ck_assert_str_eq(buf, "aten.relu.default");
	/* Cut short: snprintf's contract. */
	n = ts_schema_text(ts_schema_find("aten", "add", "Tensor"), buf, 10);
	ck_assert_str_eq(buf, "aten::add");
	ck_assert_int_eq(n, 62);
}
END_TEST

START_TEST(choices)
{
	ck_assert_str_eq(choice("aten", "add", "Tensor, Tensor, alpha=int"), "add.Tensor");
	ck_assert_str_eq(choice("aten", "add", "Tensor, int"), "add.Scalar");
	ck_assert_str_eq(choice("aten", "add", "Tensor, int, int"), "add.Scalar");
	ck_assert_str_eq(choice("aten", "add", "int, int"), "add.int");
	ck_assert_str_eq(choice("aten", "add", "int, Tensor"), "builtin add");
	ck_assert_str_eq(choice("aten", "add", "float, int"), "add.float_int");
	ck_assert_str_eq(choice("aten", "add", "int[], int[]"), "add.t");
	ck_assert_str_eq(choice("aten", "size", "Tensor, int"), "size.int");
	ck_assert_str_eq(choice("aten", "size", "Tensor"), "size");
	ck_assert_str_eq(choice("aten", "softmax", "input=Tensor, dim=int"), "softmax.int");
	ck_assert_str_eq(choice("aten", "sum", "Tensor, int"), "sum.dim_IntList");
	ck_assert_str_eq(choice("aten", "sum", "Tensor, None"), "sum.dim_IntList");
	ck_assert_str_eq(choice("aten", "sum", "Tensor, dtype=int"), "sum");
	ck_assert_str_eq(choice("aten", "mean", "Tensor, []"), "mean.dim");
	ck_assert_str_eq(choice("aten", "view", "Tensor, int"), "view");  /* view.dtype is blocked */
	ck_assert_str_eq(choice("aten", "to", "Tensor, str"), "to.prim_Device");
	ck_assert_str_eq(choice("aten", "to", "Tensor, int"), "to.dtype");
	ck_assert_str_eq(choice("aten", "index", "Tensor, Tensor?[]"), "index.Tensor");
	ck_assert_str_eq(choice("aten", "index", "Tensor, Tensor[]"), "index.Tensor_hacked_twin");
	ck_assert_str_eq(choice("aten", "dropout", "Tensor, int, bool"), "!");  /* no int for float */
	ck_assert_str_eq(choice("aten", "add", "Tensor, str"), "!");
	ck_assert_str_eq(choice("aten", "softmax", "Tensor, dim=int, dim=int"), "!");
	ck_assert_str_eq(choice("aten", "gelu", "Tensor, str"), "!");         /* approximate is keyword-only */
	ck_assert_str_eq(choice("aten", "gelu", "Tensor, approximate=str"), "gelu");
	/* t is one type throughout a schema; __is__'s t1 and t2 are two. */
	ck_assert_str_eq(choice("aten", "append", "int[], int"), "append.t");
	ck_assert_str_eq(choice("aten", "append", "int[], Tensor"), "!");
	ck_assert_str_eq(choice("aten", "append", "Tensor?[], None"), "append.t");
	ck_assert_str_eq(choice("aten", "append", "[], int"), "!");       /* [] is a Tensor[] to t */
	ck_assert_str_eq(choice("aten", "__is__", "Tensor, None"), "__is__");
}
END_TEST

START_TEST(conversions)
{
	TsBind b;

	/* A single int for int[2]: repeated, in the first pass. */
	ck_assert_int_eq(bind("aten", "max_pool2d", "Tensor, int", &b), 0);
	ck_assert_int_eq(b.convert, 0);
	ck_assert_int_eq(b.slot[0], 0);
	ck_assert_int_eq(b.slot[1], 1);
	ck_assert_int_eq(b.conv[1], TC_REPEAT);
	ck_assert_int_eq(b.slot[2], -1);
	/* zeros(2, 3): the ints packed into size, second pass. */
	ck_assert_int_eq(bind("aten", "zeros", "int, int, dtype=int", &b), 0);
	ck_assert_str_eq(b.schema->overload, "");
	ck_assert_int_eq(b.convert, 1);
	ck_assert_int_eq(b.conv[0], TC_PACK);
	ck_assert_int_eq(b.slot[0], 0);
	ck_assert_int_eq(b.slot[1], 2);                 /* dtype: the first keyword */
	/* A Tensor for an int: IntImplicit. */
	ck_assert_int_eq(bind("aten", "softmax", "Tensor, Tensor", &b), 0);
	ck_assert_str_eq(b.schema->overload, "int");
	ck_assert_int_eq(b.convert, 1);
	ck_assert_int_eq(b.conv[1], TC_TO_NUMBER);
	/* A bool for a Scalar: aten::Int. */
	ck_assert_int_eq(bind("aten", "add", "Tensor, bool", &b), 0);
	ck_assert_str_eq(b.schema->overload, "Scalar");
	ck_assert_int_eq(b.conv[1], TC_TO_NUMBER);
	/* A str for a Device. */
	ck_assert_int_eq(bind("aten", "to", "Tensor, device=str", &b), 0);
	ck_assert_str_eq(b.schema->overload, "dtype_layout");
	ck_assert_int_eq(b.conv[3], TC_DEVICE);
	/* `...`: the rest go to the varargs. */
	ck_assert_int_eq(bind("aten", "format", "str, Tensor, int", &b), 0);
	ck_assert_int_eq(b.nextra, 2);
}
END_TEST

START_TEST(errors)
{
	TsBind b;

	ck_assert_int_eq(bind("aten", "no_such_op", "Tensor", &b), -1);
	ck_assert_str_eq(why, "aten::no_such_op(Tensor): no such operator in torch's schemas "
	                      "(lib/read/ts/tsschema.def)");
	ck_assert_int_eq(bind("aten", "gelu", "Tensor, str", &b), -1);
	ck_assert_str_eq(why, "aten::gelu(Tensor, str) matches none of its 1 overload: "
	                      "(Tensor self, *, str approximate='none')");
	ck_assert_int_eq(bind("aten", "relu", "", &b), -1);
	ck_assert_str_eq(why, "aten::relu() matches none of its 1 overload: (Tensor self)");
	ck_assert_int_eq(bind("aten", "div", "Tensor, str, rounding_mode=int", &b), -1);
	ck_assert_msg(strncmp(why, "aten::div(Tensor, str, rounding_mode=int) matches none of its ", 60) == 0,
	              "%s", why);
	ck_assert_msg(strstr(why, "; Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode)") != NULL,
	              "%s", why);
	/* Cut to fit. */
	{
		Parsed p;
		char small[40];

		parse_kinds("Tensor, str", &p);
		ck_assert_int_eq(ts_schema_bind("aten", "add", p.npos, p.pos, 0, NULL, NULL, &b, small,
		                                sizeof small), -1);
		ck_assert_uint_eq(strlen(small), sizeof small - 1);
		ck_assert_str_eq(small + sizeof small - 4, "...");
	}
}
END_TEST

/* The overload a builtin function's body calls, bound over the kinds the
 * call gave its parameters (a nested call stands for a Tensor):
 * add(int a, Tensor b) is torch.add(b, a), so aten::add(Tensor, int). */
static const char *
builtin_choice(const TsBind *b, const Parsed *p, char *out, size_t len)
{
	const char *body = b->schema->body, *open = strchr(body, '(');
	TsKind kinds[TS_MAX_ARGS];
	char name[64];
	int n = 0, depth = 0;
	TsBind inner;

	if (strncmp(body, "torch.", 6) != 0 || !open)
		return "(body is not a call)";
	snprintf(name, sizeof name, "%.*s", (int)(open - body - 6), body + 6);
	for (const char *q = open + 1; *q && n < TS_MAX_ARGS; q++) {
		const char *start = q;

		while (*q == ' ')
			start = ++q;
		if (strncmp(q, "torch.", 6) == 0) {     /* a nested call: a Tensor */
			for (; *q && !(depth == 0 && (*q == ',' || *q == ')')); q++)
				depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
			kinds[n++] = TK_TENSOR;
		} else {
			int i;

			while (*q && *q != ',' && *q != ')')
				q++;
			for (i = 0; i < b->schema->narg; i++)
				if (strlen(b->schema->args[i].name) == (size_t)(q - start) &&
				    strncmp(b->schema->args[i].name, start, (size_t)(q - start)) == 0)
					break;
			ck_assert_msg(i < b->schema->narg && b->slot[i] >= 0, "body %s: what is %.*s?", body,
			              (int)(q - start), start);
			kinds[n++] = b->slot[i] < p->npos ? p->pos[b->slot[i]] : p->kw[b->slot[i] - p->npos];
		}
		if (*q == ')')
			break;
	}
	if (ts_schema_bind("aten", name, n, kinds, 0, NULL, NULL, &inner, why, sizeof why) < 0)
		return "(its body binds nothing)";
	snprintf(out, len, "builtin aten::%s%s%s", name, *inner.schema->overload ? "." : "",
	         inner.schema->overload);
	return out;
}

/* Every line of a cases file, "ns::name(kinds) -> choice [conv]"; returns
 * how many differ from torch (each listed on stderr), *ncase the count. */
static int
check_cases(const char *path, int *ncase)
{
	size_t len;
	char *text = test_slurp(path, &len), *line, *save = NULL;
	int nbad = 0;

	*ncase = 0;
	ck_assert_msg(text != NULL, "%s is missing", path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ns[32], name[64], kinds[512], want[128], got[160];
		const char *arrow = strstr(line, ") -> "), *colons = strstr(line, "::");
		const char *paren = strchr(line, '(');
		int want_conv, have_conv = 0;
		Parsed p;
		TsBind b;

		if (line[0] == '#')
			continue;
		ck_assert_msg(arrow && colons && paren && colons < paren, "bad case line: %s", line);
		snprintf(ns, sizeof ns, "%.*s", (int)(colons - line), line);
		snprintf(name, sizeof name, "%.*s", (int)(paren - colons - 2), colons + 2);
		snprintf(kinds, sizeof kinds, "%.*s", (int)(arrow - paren - 1), paren + 1);
		snprintf(want, sizeof want, "%s", arrow + 5);
		want_conv = strlen(want) > 5 && strcmp(want + strlen(want) - 5, " conv") == 0;
		if (want_conv)
			want[strlen(want) - 5] = 0;
		ck_assert_msg(parse_kinds(kinds, &p), "bad kinds in: %s", line);
		(*ncase)++;
		if (ts_schema_bind(ns, name, p.npos, p.pos, p.nkw, p.kwname, p.kw, &b, why, sizeof why) < 0) {
			snprintf(got, sizeof got, "!");
		} else if (b.schema->body) {
			builtin_choice(&b, &p, got, sizeof got);
		} else {
			snprintf(got, sizeof got, "%s::%s%s%s", b.schema->ns, b.schema->name,
			         *b.schema->overload ? "." : "", b.schema->overload);
			for (int i = 0; i < b.schema->narg; i++) {
				TsArgType t = b.schema->args[i].type;

				have_conv |= b.conv[i] == TC_TO_NUMBER || b.conv[i] == TC_DEVICE;
				/* zeros(2, x): the Tensor packed into int[] is converted. */
				for (int j = b.slot[i]; b.conv[i] == TC_PACK && j < p.npos; j++)
					have_conv |= (p.pos[j] == TK_TENSOR || p.pos[j] == TK_BOOL) &&
					             t != TA_TENSORS && t != TA_OPT_TENSORS;
			}
		}
		if (strcmp(got, want) != 0 || (strcmp(got, "!") != 0 && !b.schema->body && have_conv != want_conv)) {
			fprintf(stderr, "%s: %s: torch %s%s, we %s%s\n", path, line, want,
			        want_conv ? " conv" : "", got, have_conv ? " conv" : "");
			nbad++;
		}
	}
	free(text);
	return nbad;
}

/* What torch 2.14 picks (cases.txt), and the calls the printed code of
 * torch 1.13 and 2.6 makes, which the 2.14 table must bind the same. */
START_TEST(torch_cases)
{
	static const struct { const char *path; int min; } files[] = {
		{TEST_PATH("unit/tsschema/cases.txt"), 500},
		{TEST_PATH("unit/tsschema/printed-1.13.txt"), 150},
		{TEST_PATH("unit/tsschema/printed-2.6.txt"), 150},
	};

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		int n, bad = check_cases(files[i].path, &n);

		ck_assert_int_ge(n, files[i].min);
		ck_assert_msg(bad == 0, "%s: %d of %d cases differ from torch (listed above)", files[i].path,
		              bad, n);
	}
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("tsschema");
	TCase *t = tcase_create("table");

	tcase_add_test(t, table_shape);
	tcase_add_test(t, known_rows);
	tcase_add_test(t, schema_text);
	tcase_add_test(t, choices);
	tcase_add_test(t, conversions);
	tcase_add_test(t, errors);
	tcase_add_test(t, torch_cases);
	suite_add_tcase(s, t);
	return s;
}
