/* test_sym.c: symbolic sizes: srepr and infix parsing, printing, round
 * trips, evaluation, errors with columns and the nesting limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym.h"
#include "diagtext.h"
#include "testutil.h"

static Arena arena;
static Diag diag;

static void
setup(void)
{
	arena_init(&arena);
	memset(&diag, 0, sizeof diag);
}

static void
teardown(void)
{
	diag_free(&diag);
	arena_free(&arena);
}

static SymExpr *
srepr(const char *s)
{
	return sym_parse_srepr(&arena, "t", s, strlen(s), &diag);
}

static SymExpr *
infix(const char *s)
{
	return sym_parse_infix(&arena, "t", s, strlen(s), &diag);
}

/* Parses, prints, and checks the printed text reads back to the same tree. */
static const char *
show(SymExpr *e)
{
	ck_assert_msg(e != NULL, "parse failed: %s", test_diag_text(&diag) ? test_diag_text(&diag) : "");
	const char *text = sym_print(&arena, e);
	SymExpr *back = infix(text);
	ck_assert_msg(back != NULL, "'%s' does not read back: %s", text, test_diag_text(&diag));
	ck_assert_msg(sym_equal(e, back), "'%s' reads back to another tree", text);
	ck_assert_str_eq(sym_print(&arena, back), text);
	return text;
}

/* Symbol values for sym_eval; negative ones exercise floor semantics. */
static int
lookup(void *ctx, const char *name, int64_t *v)
{
	static const struct { const char *name; int64_t v; } vals[] = {
		{"s0", 5}, {"s1", -3}, {"s2", 0}, {"s3", 7}, {"s27", 3}, {"s77", 4},
		{"big", INT64_MAX}, {"tiny", INT64_MIN},
	};
	(void)ctx;
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		if (strcmp(vals[i].name, name) == 0) {
			*v = vals[i].v;
			return 1;
		}
	return 0;
}

/* Evaluates infix text: 1 and *v on success, 0 on failure. */
static int
eval_infix(const char *s, int64_t *v)
{
	SymExpr *e = infix(s);
	ck_assert_msg(e != NULL, "'%s': %s", s, test_diag_text(&diag));
	return sym_eval(e, lookup, NULL, v);
}

static void
check_eval(const char *s, int64_t want)
{
	int64_t v = 0;
	ck_assert_msg(eval_infix(s, &v), "'%s' failed to evaluate", s);
	ck_assert_msg(v == want, "'%s' = %lld, want %lld", s, (long long)v, (long long)want);
}

static void
check_eval_fails(const char *s)
{
	int64_t v = 0;
	ck_assert_msg(!eval_infix(s, &v), "'%s' evaluated to %lld", s, (long long)v);
}

/* The parser fails with exactly this diagnostic line. */
static void
check_error(SymExpr *(*parse)(const char *), const char *s, const char *want)
{
	diag_free(&diag);
	ck_assert_msg(parse(s) == NULL, "'%s' parsed", s);
	ck_assert_int_eq(diag.code, DIAG_INPUT);
	ck_assert_msg(test_diag_text(&diag) && strncmp(test_diag_text(&diag), want, strlen(want)) == 0 &&
	              test_diag_text(&diag)[strlen(want)] == '\n',
	              "'%s': got '%s', want '%s'", s, test_diag_text(&diag) ? test_diag_text(&diag) : "(none)", want);
}

/* What torch 2.6+ writes, with the infix we print for it. */
static const struct { const char *srepr, *infix; } golden[] = {
	{"Symbol('s77', positive=True, integer=True)", "s77"},
	{"Mul(Integer(2), Symbol('s3', positive=True, integer=True))", "2*s3"},
	{"FloorDiv(Mul(Symbol('s27', positive=True, integer=True), Symbol('s77', positive=True, "
	 "integer=True)), Integer(2))", "((s27*s77)//2)"},
	{"Add(Symbol('s0', positive=True, integer=True), Integer(-1))", "s0 - 1"},
	{"Add(Symbol('s0'), Integer(1))", "s0 + 1"},
	{"Add(Integer(-1), Symbol('s0'))", "-1 + s0"},
	{"Add(Mul(Integer(-1), Symbol('s1')), Mul(Integer(2), FloorDiv(Symbol('s0'), Integer(3))), "
	 "Integer(4))", "-s1 + 2*(s0//3) + 4"},
	{"Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))", "s0 - 2*s1"},
	{"Add(Symbol('s0'), Mul(Integer(-1), Symbol('s1'), Symbol('s2')))", "s0 - s1*s2"},
	{"Add(Symbol('s0'), Mul(Integer(-1), Integer(3)))", "s0 - 1*3"},
	{"Mul(Integer(-1), Symbol('s0'))", "-s0"},
	{"Mul(Integer(-1), Symbol('s0'), Symbol('s1'))", "-s0*s1"},
	{"Mul(Add(Symbol('s0'), Integer(1)), Integer(2))", "(s0 + 1)*2"},
	{"Mul(Symbol('s0'), Symbol('s1'))", "s0*s1"},
	{"Mul(Symbol('s1'), Pow(Symbol('s0'), Integer(-1)))", "s1/s0"},
	{"Mul(Integer(2), Pow(Integer(3), Integer(-1)))", "2*3**(-1)"},
	{"Pow(Symbol('s0'), Integer(2))", "s0**2"},
	{"Pow(Symbol('s0'), Integer(-1))", "s0**(-1)"},
	{"Pow(Add(Symbol('s0'), Integer(1)), Integer(2))", "(s0 + 1)**2"},
	{"Pow(Integer(-2), Symbol('s0'))", "(-2)**s0"},
	{"Max(Integer(1), Symbol('s0', positive=True, integer=True))", "Max(1, s0)"},
	{"Min(Symbol('s0'), Symbol('s1'), Integer(4))", "Min(s0, s1, 4)"},
	{"Mod(Symbol('s0'), Integer(2))", "Mod(s0, 2)"},
	{"PythonMod(Symbol('s0'), Integer(2))", "PythonMod(s0, 2)"},
	{"CeilToInt(IntTrueDiv(Symbol('s0'), Integer(2)))", "CeilToInt(IntTrueDiv(s0, 2))"},
	{"FloorDiv(Add(Symbol('s0'), Integer(1)), Integer(2))", "((s0 + 1)//2)"},
	{"FloorDiv(Pow(Symbol('s0'), Integer(2)), Integer(-3))", "(s0**2//(-3))"},
	{"ModularIndexing(Symbol('s0'), Integer(1), Integer(8))", "ModularIndexing(s0, 1, 8)"},
	{"Where(StrictLessThan(Symbol('s0'), Integer(4)), Integer(1), Symbol('s0'))",
	 "Where(s0 < 4, 1, s0)"},
	{"And(LessThan(Integer(2), Symbol('s0')), Not(Equality(Symbol('s0'), Integer(3))))",
	 "And(2 <= s0, Not(Eq(s0, 3)))"},
	{"Or(StrictGreaterThan(Symbol('s0'), Integer(1)), GreaterThan(Symbol('s1'), Integer(2)), "
	 "Ne(Symbol('s2'), Integer(0)))", "Or(s0 > 1, s1 >= 2, Ne(s2, 0))"},
	{"Unequality(Symbol('s0'), Integer(1))", "Ne(s0, 1)"},
	{"Rational(1, 2)", "1/2"},
	{"Mul(Rational(1, 2), Symbol('s0'))", "1/2*s0"},
	{"Mul(Symbol('s0'), Rational(-1, 2))", "s0*(-1/2)"},
	{"Add(Symbol('s0'), Rational(-1, 2))", "s0 - 1/2"},
	{"Rational(1, -2)", "Rational(1, -2)"},
	{"Float('0.5', precision=53)", "0.5"},
	{"Float('100.0', precision=53)", "100.0"},
	{"Float(2.5)", "2.5"},
	{"Float('1e-7', precision=53)", "1e-07"},
	{"Float('-0.25', precision=53)", "-0.25"},
	{"true", "True"},
	{"false", "False"},
	{"Integer(-9223372036854775808)", "-9223372036854775808"},
	{"LShift(Symbol('s0'), Integer(1))", "LShift(s0, 1)"},
	{"IsNonOverlappingAndDenseIndicator(Symbol('s0'), Integer(1))",
	 "IsNonOverlappingAndDenseIndicator(s0, 1)"},
	{"Symbol('t0.size(1)')", "Symbol('t0.size(1)')"},
	{"Symbol('True')", "Symbol('True')"},
	{"Symbol(\"it's\")", "Symbol(\"it's\")"},
	{"Add(Symbol('s0'))", "Add(s0)"},
	{"Mul()", "Mul()"},
	{"Add(Add(Symbol('s0'), Integer(1)), Symbol('s1'))", "(s0 + 1) + s1"},
	{"Mul(Mul(Integer(2), Symbol('s0')), Symbol('s1'))", "(2*s0)*s1"},
	{"  Mul( Integer( 2 ) ,\tSymbol( 's3' , ) )  ", "2*s3"},
};

START_TEST(srepr_golden)
{
	for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
		const char *text = show(srepr(golden[i].srepr));
		ck_assert_msg(strcmp(text, golden[i].infix) == 0, "%s: printed '%s', want '%s'",
		              golden[i].srepr, text, golden[i].infix);
	}
}
END_TEST

START_TEST(srepr_tree)
{
	SymExpr *e = srepr("Symbol('s77', positive=True, integer=True)");
	ck_assert_int_eq(e->op, SYM_SYMBOL);
	ck_assert_str_eq(e->name, "s77");
	ck_assert_int_eq(e->n, 0);

	e = srepr("Mul(Integer(2), Symbol('s3', positive=True, integer=True))");
	ck_assert_int_eq(e->op, SYM_MUL);
	ck_assert_int_eq(e->n, 2);
	ck_assert_int_eq(e->args[0]->op, SYM_INT);
	ck_assert_int_eq(e->args[0]->i, 2);
	ck_assert_str_eq(e->args[1]->name, "s3");

	e = srepr("Rational(3, 4)");
	ck_assert_int_eq(e->op, SYM_RATIONAL);
	ck_assert_int_eq(e->i, 3);
	ck_assert_int_eq(e->den, 4);

	e = srepr("Float('0.5', precision=53)");
	ck_assert_int_eq(e->op, SYM_FLOAT);
	ck_assert(e->f == 0.5);

	e = srepr("Frobnicate(Symbol('s0'), Integer(1), flag=None)");
	ck_assert_int_eq(e->op, SYM_CALL);
	ck_assert_str_eq(e->name, "Frobnicate");
	ck_assert_int_eq(e->n, 2);

	e = srepr("Integer(-9223372036854775808)");
	ck_assert(e->i == INT64_MIN);
	ck_assert_int_eq(srepr("Equality(Integer(1), Integer(2))")->op, SYM_EQ);
	ck_assert_int_eq(srepr("Eq(Integer(1), Integer(2))")->op, SYM_EQ);
	ck_assert_int_eq(srepr("StrictLessThan(Integer(1), Integer(2))")->op, SYM_LT);
	ck_assert_int_eq(srepr("true")->op, SYM_TRUE);
	ck_assert_int_eq(srepr("false")->op, SYM_FALSE);
	ck_assert_int_eq(srepr("Max(Integer(1))")->op, SYM_MAX);
}
END_TEST

/* Infix as torch's str() writes it, the tree it means, and how we print it. */
START_TEST(infix_parse)
{
	SymExpr *e = infix("2*s0");
	ck_assert(sym_equal(e, srepr("Mul(Integer(2), Symbol('s0'))")));
	ck_assert(sym_equal(infix("s0*2"), srepr("Mul(Symbol('s0'), Integer(2))")));
	ck_assert(sym_equal(infix("s0 + s1 - 1"),
	                    srepr("Add(Symbol('s0'), Symbol('s1'), Integer(-1))")));
	ck_assert(sym_equal(infix("(s0 + 1)//2"),
	                    srepr("FloorDiv(Add(Symbol('s0'), Integer(1)), Integer(2))")));
	ck_assert(sym_equal(infix("Max(1, s0)"), srepr("Max(Integer(1), Symbol('s0'))")));
	ck_assert(sym_equal(infix("s0**2"), srepr("Pow(Symbol('s0'), Integer(2))")));
	ck_assert(sym_equal(infix("-s0"), srepr("Mul(Integer(-1), Symbol('s0'))")));
	ck_assert(sym_equal(infix("-s0*s1"),
	                    srepr("Mul(Integer(-1), Symbol('s0'), Symbol('s1'))")));
	ck_assert(sym_equal(infix("s0 - 2*s1"),
	                    srepr("Add(Symbol('s0'), Mul(Integer(-2), Symbol('s1')))")));
	ck_assert(sym_equal(infix("s0 - s1"),
	                    srepr("Add(Symbol('s0'), Mul(Integer(-1), Symbol('s1')))")));
	ck_assert(sym_equal(infix("s0/s1"),
	                    srepr("Mul(Symbol('s0'), Pow(Symbol('s1'), Integer(-1)))")));
	ck_assert(sym_equal(infix("s0 % 3"), srepr("PythonMod(Symbol('s0'), Integer(3))")));
	ck_assert(sym_equal(infix("1/2"), srepr("Rational(1, 2)")));
	ck_assert(sym_equal(infix("-3"), srepr("Integer(-3)")));
	ck_assert(sym_equal(infix("-3**2"),
	                    srepr("Mul(Integer(-1), Pow(Integer(3), Integer(2)))")));
	ck_assert(sym_equal(infix("2**-1"), srepr("Pow(Integer(2), Integer(-1))")));
	ck_assert(sym_equal(infix("2**3**2"),
	                    srepr("Pow(Integer(2), Pow(Integer(3), Integer(2)))")));
	ck_assert(sym_equal(infix("s0 >= 2"), srepr("GreaterThan(Symbol('s0'), Integer(2))")));
	ck_assert(sym_equal(infix("s0 == 2"), srepr("Eq(Symbol('s0'), Integer(2))")));
	ck_assert(sym_equal(infix("s0 != 2"), srepr("Ne(Symbol('s0'), Integer(2))")));
	ck_assert(sym_equal(infix("CeilToInt(s0/2)"),
	                    srepr("CeilToInt(Mul(Symbol('s0'), Pow(Integer(2), Integer(-1))))")));
	ck_assert(sym_equal(infix("True"), srepr("true")));
	ck_assert(sym_equal(infix("Symbol('s0', positive=True)"), srepr("Symbol('s0')")));
	ck_assert(sym_equal(infix("Integer(-4)"), srepr("Integer(-4)")));
	ck_assert(sym_equal(infix("Float('0.5')"), srepr("Float(0.5)")));
	ck_assert(sym_equal(infix("FloorDiv(s0, 2)"), infix("(s0//2)")));
	ck_assert(sym_equal(infix(" \t(s0+1 )*2\n"), infix("(s0 + 1)*2")));

	e = infix("u0 + foo(s0, 1)");
	ck_assert_int_eq(e->args[1]->op, SYM_CALL);
	ck_assert_str_eq(e->args[1]->name, "foo");
	ck_assert_str_eq(e->args[0]->name, "u0");

	ck_assert_str_eq(show(infix("2*s0")), "2*s0");
	ck_assert_str_eq(show(infix("s0*2")), "s0*2");
	ck_assert_str_eq(show(infix("s0 + s1 - 1")), "s0 + s1 - 1");
	ck_assert_str_eq(show(infix("(s0 + 1)//2")), "((s0 + 1)//2)");
	ck_assert_str_eq(show(infix("Max(1, s0)")), "Max(1, s0)");
	ck_assert_str_eq(show(infix("s0**2")), "s0**2");
	ck_assert_str_eq(show(infix("-s0")), "-s0");
	ck_assert_str_eq(show(infix("s0 % 3")), "PythonMod(s0, 3)");
	ck_assert_str_eq(show(infix("s0 == 3")), "Eq(s0, 3)");
	ck_assert_str_eq(show(infix("s0 < 3")), "s0 < 3");
	ck_assert_str_eq(show(infix("(s0 < 3) < True")), "(s0 < 3) < True");
	ck_assert_str_eq(show(infix("-(s0 + 1)")), "-(s0 + 1)");
	ck_assert_str_eq(show(infix("--s0")), "-(-s0)");
	ck_assert_str_eq(show(infix("s0 - -1")), "s0 + 1");
	ck_assert_str_eq(show(infix("1.5e3*s0")), "1500.0*s0");
	ck_assert_str_eq(show(infix("s0 - 0.5")), "s0 - 0.5");
}
END_TEST

/* print(parse(print(e))) == print(e), and the trees are equal (in show()). */
START_TEST(round_trips)
{
	static const char *const texts[] = {
		"2*s0", "s0*2", "s0 + s1 - 1", "(s0 + 1)//2", "Max(1, s0)", "s0**2", "-s0",
		"-2*s0 + 3", "s0 - 2*s1 - s2 + 4", "s0/s1/2", "1/2 - s0/3", "2/3*s0",
		"-1/2*s0", "s0*(-1/2)", "-s0**-s1", "(-s0)**2", "2**s0**2", "(2**s0)**2",
		"s0//2//3", "s0//(2//3)", "(s0 + 1)*(s1 - 1)", "-(s0*s1)", "-s0*s1*s2",
		"-1*3*s0", "s0 - 1*3", "s0 - (2*s1)", "s0 - s1*(-2)", "-0.0", "s0 - -0.0",
		"0.1 + 1e300 + 1e-300", "s0 % s1 % 2", "(s0 % 2)*3", "Where(s0 > 1, s1, -s2)",
		"Max(s0, Min(s1, -3), 2*s2)", "s0 + 1 <= 2*s1", "(s0 <= 1) + 1", "Add()",
		"Mul(s0)", "Pow(s0, 2)", "Symbol('a b')**2", "-Symbol('x')", "Rational(1, 0)",
		"-9223372036854775808*s0", "s0 + -9223372036854775808",
		"s0 - 9223372036854775807", "-9223372036854775808/2 + s0", "f()",
		"And(True, Or(False, Not(s0 < 1)))", "Integer(2)*Symbol('s0')",
		"2*Pow(3, -1)", "2*Pow(-3, -1)", "s0*Pow(3, -1)", "Pow(s0, -1)*2",
		"Mul(-1, 3)", "Mul(-1, 1/2, s0)", "Mul(-1, 2.5)", "Mul(-2, Pow(3, -1))",
		"s0 + Mul(-1, Pow(3, -1))", "s0 + Mul(-1, 3, Pow(3, -1))", "s0 + Mul(-1, -3)",
		"s0 + Mul(-1, Mul(-1, s1))", "s0 + Mul(-3, Pow(2, -1), s1)",
		"Symbol('back\\\\slash\\n')", "Symbol('')", "Symbol('9lives')",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		SymExpr *e = infix(texts[i]);
		ck_assert_msg(e != NULL, "'%s': %s", texts[i], test_diag_text(&diag));
		show(e);
	}
}
END_TEST

START_TEST(evaluation)
{
	int64_t v;

	/* s0 = 5, s1 = -3, s2 = 0, s3 = 7, s27 = 3, s77 = 4 */
	SymExpr *e = srepr("FloorDiv(Mul(Symbol('s27', positive=True, integer=True), "
	                   "Symbol('s77', positive=True, integer=True)), Integer(2))");
	ck_assert(sym_eval(e, lookup, NULL, &v));
	ck_assert_int_eq(v, 6);
	ck_assert(sym_eval(srepr("Mul(Integer(2), Symbol('s3'))"), lookup, NULL, &v));
	ck_assert_int_eq(v, 14);
	check_eval("s0 + s1 - 1", 1);
	check_eval("1 + 2*3**2", 19);
	check_eval("-s0**2", -25);
	check_eval("2**10", 1024);
	check_eval("0**0", 1);
	check_eval("(-2)**3", -8);
	check_eval("(-1)**-3", -1);
	check_eval("PowByNatural(3, 4)", 81);
	check_eval("-7//2", -4);
	check_eval("7//-2", -4);
	check_eval("s1//2", -2);
	check_eval("-7 % 2", 1);
	check_eval("7 % -2", -1);
	check_eval("Mod(-7, 2)", 1);
	check_eval("Mod(s0, 3)", 2);
	check_eval("CeilDiv(7, 2)", 4);
	check_eval("CeilDiv(-7, 2)", -3);
	check_eval("CleanDiv(8, 2)", 4);
	check_eval("ModularIndexing(s0*4 + 3, 2, 4)", 3);
	check_eval("Max(s0, s1, 2)", 5);
	check_eval("Min(s0, s1, 2)", -3);
	check_eval("Where(s0 > 3, 10, 1//0)", 10);
	check_eval("Where(s2, 1//0, 20)", 20);
	check_eval("(s0 == 5) + (s0 != 5) + (s1 < 0) + (s1 <= -4) + (s0 > 5) + (s0 >= 5)", 3);
	check_eval("And(s0 > 1, s1 < 0)", 1);
	check_eval("And(s0 > 1, s1 > 0)", 0);
	check_eval("Or(s2, False, s1 > 0)", 0);
	check_eval("Or(s2, True)", 1);
	check_eval("Not(s2)", 1);
	check_eval("CeilToInt(IntTrueDiv(s0, 2))", 3);
	check_eval("FloorToInt(IntTrueDiv(s0, 2))", 2);
	check_eval("TruncToInt(IntTrueDiv(-7, 2))", -3);
	check_eval("FloorToInt(IntTrueDiv(-7, 2))", -4);
	check_eval("RoundToInt(IntTrueDiv(5, 2))", 2);
	check_eval("RoundToInt(IntTrueDiv(7, 2))", 4);
	check_eval("RoundToInt(IntTrueDiv(-5, 2))", -2);
	check_eval("RoundToInt(IntTrueDiv(8, 3))", 3);
	check_eval("CeilToInt(s0)", 5);
	check_eval("CeilToInt(2.5)", 3);
	check_eval("IntTrueDiv(6, 3)", 2);
	check_eval("FloatTrueDiv(s0*2, 5)", 2);
	check_eval("Rational(4, 2)", 2);
	check_eval("Float('3.0')", 3);
	check_eval("s0/5", 1);
	check_eval("s0*2/10*3", 3);
	check_eval("1/2*s77", 2);
	check_eval("big", INT64_MAX);
	check_eval("tiny", INT64_MIN);
	check_eval("-9223372036854775808//-2", INT64_MIN / -2);

	check_eval_fails("s0/2");
	check_eval_fails("IntTrueDiv(5, 2)");
	check_eval_fails("Rational(1, 2)");
	check_eval_fails("0.5");
	check_eval_fails("unknown + 1");
	check_eval_fails("LShift(s0, 1)");
	check_eval_fails("s0//0");
	check_eval_fails("s0//s2");
	check_eval_fails("s0 % 0");
	check_eval_fails("Mod(s0, 0)");
	check_eval_fails("CeilDiv(1, 0)");
	check_eval_fails("IntTrueDiv(1, 0)");
	check_eval_fails("0**-1");
	check_eval_fails("2**-1");
	check_eval_fails("2**63");
	check_eval_fails("PowByNatural(2, -1)");
	check_eval_fails("big + 1");
	check_eval_fails("tiny - 1");
	check_eval_fails("big*2");
	check_eval_fails("tiny*-1");
	check_eval_fails("tiny//-1");
	check_eval_fails("Max()");
	check_eval_fails("Rational(1, 0)");
	ck_assert(!sym_eval(infix("s0"), NULL, NULL, &v));
	ck_assert(!sym_eval(NULL, lookup, NULL, &v));
}
END_TEST

START_TEST(errors)
{
	check_error(srepr, "Add(Integer(1), Integer(2)",
	            "t: column 27: missing ')' for the '(' at column 4");
	check_error(srepr, "Add(Integer(1), Integer(2)))",
	            "t: column 28: unexpected ')' after the expression");
	check_error(srepr, "Mul(Integer(2), %)", "t: column 17: unexpected '%'");
	check_error(srepr, "Mul(Integer(2) Integer(3))",
	            "t: column 16: expected ',' or ')', found 'Integer'");
	check_error(srepr, "Pow(Integer(2))", "t: column 1: Pow takes 2 arguments, got 1");
	check_error(srepr, "Add(Integer(1), Not(Integer(1), Integer(2)))",
	            "t: column 17: Not takes 1 argument, got 2");
	check_error(srepr, "Integer(9223372036854775808)", "t: column 9: integer out of range");
	check_error(srepr, "Integer(-9223372036854775809)", "t: column 10: integer out of range");
	check_error(srepr, "Integer(99999999999999999999999)", "t: column 9: integer out of range");
	check_error(srepr, "Integer(Symbol('s0'))", "t: column 1: Integer expects one integer");
	check_error(srepr, "Symbol(s0)", "t: column 8: unknown name 's0'");
	check_error(srepr, "Symbol(Integer(1))", "t: column 1: Symbol expects a quoted name");
	check_error(srepr, "Symbol('s0)", "t: column 8: unterminated string");
	check_error(srepr, "Float('abc')",
	            "t: column 1: Float expects a number or a quoted finite number");
	check_error(srepr, "Float('inf')",
	            "t: column 1: Float expects a number or a quoted finite number");
	check_error(srepr, "Add(Symbol('s0'), 's1')", "t: column 19: unexpected string argument");
	check_error(srepr, "'s0'", "t: column 1: expected an expression, found a string");
	check_error(srepr, "", "t: column 1: unexpected end of input");
	check_error(srepr, "   ", "t: column 4: unexpected end of input");
	check_error(srepr, "oo", "t: column 1: unknown name 'oo'");
	check_error(srepr, "Add(,)", "t: column 5: unexpected ','");
	check_error(srepr, "Add(Integer(1)\x01)", "t: column 15: unexpected byte 0x01");
	check_error(srepr, "Mul(Integer(2), Symbol('s3'))x", "t: column 30: unexpected 'x' after the expression");

	check_error(infix, "s0 + ", "t: column 6: unexpected end of input");
	check_error(infix, "(s0 + 1", "t: column 8: missing ')' for the '(' at column 1");
	check_error(infix, "(s0 + 1 s1)", "t: column 9: expected ')', found 's1'");
	check_error(infix, "s0 $ 1", "t: column 4: unexpected '$'");
	check_error(infix, "s0 + 1)", "t: column 7: unexpected ')' after the expression");
	check_error(infix, "FloorDiv(s0)", "t: column 1: FloorDiv takes 2 arguments, got 1");
	check_error(infix, "Max(1, s0", "t: column 10: missing ')' for the '(' at column 4");
	check_error(infix, "1 < s0 < 3", "t: column 8: chained comparisons are not supported");
	check_error(infix, "s0 = 3", "t: column 4: unexpected '=' after the expression");
	check_error(infix, "s0 + 'x'", "t: column 6: unexpected a string");
	check_error(infix, "9223372036854775808", "t: column 1: integer out of range");
	check_error(infix, "1e999", "t: column 1: float out of range");
	check_error(infix, "", "t: column 1: unexpected end of input");

	/* A NULL label still names the thing. */
	diag_free(&diag);
	ck_assert_ptr_null(sym_parse_infix(&arena, NULL, "(", 1, &diag));
	ck_assert_str_eq(test_diag_text(&diag), "expression: column 2: unexpected end of input\n");
}
END_TEST

/* Every proper prefix of a valid srepr is an error, never a crash. */
START_TEST(truncated)
{
	for (size_t g = 0; g < sizeof golden / sizeof golden[0]; g++) {
		const char *s = golden[g].srepr;
		size_t n = strlen(s);
		while (n > 0 && s[n - 1] == ' ')
			n--;
		for (size_t len = 0; len < n; len++) {
			diag_free(&diag);
			SymExpr *e = sym_parse_srepr(&arena, "t", s, len, &diag);
			ck_assert_msg(e == NULL, "prefix %zu of %s parsed", len, s);
			ck_assert_int_eq(diag.code, DIAG_INPUT);
			/* The same bytes as infix may parse; they must not crash. */
			diag_free(&diag);
			e = sym_parse_infix(&arena, "t", s, len, &diag);
			if (e)
				show(e);
		}
	}
}
END_TEST

static char *
repeat(const char *head, int n, const char *mid, const char *tail)
{
	size_t hl = strlen(head), tl = strlen(tail), ml = strlen(mid);
	char *s = arena_alloc(&arena, (hl + tl) * (size_t)n + ml + 1), *p = s;
	for (int i = 0; i < n; i++, p += hl)
		memcpy(p, head, hl);
	memcpy(p, mid, ml);
	p += ml;
	for (int i = 0; i < n; i++, p += tl)
		memcpy(p, tail, tl);
	*p = 0;
	return s;
}

/* Nesting is bounded so input cannot overflow the stack; the deepest trees
 * accepted still print and read back. */
START_TEST(depth_limits)
{
	/* 999 Nots around Integer(1): a tree 1000 deep. */
	SymExpr *e = srepr(repeat("Not(", 999, "Integer(1)", ")"));
	show(e);
	diag_free(&diag);
	ck_assert_ptr_null(srepr(repeat("Not(", 1000, "Integer(1)", ")")));
	ck_assert_ptr_null(srepr(repeat("Not(", 100000, "Integer(1)", ")")));
	ck_assert(strstr(test_diag_text(&diag), "nesting deeper than 1000"));

	/* Worst cases for the printer: two nesting units per level. */
	show(srepr(repeat("Mul(Integer(-1), Add(Symbol('s0'), ", 499, "Integer(1)", "))")));
	show(srepr(repeat("Pow(Symbol('s0'), Mul(Integer(-1), ", 499, "Integer(1)", "))")));
	show(srepr(repeat("Pow(Integer(2), Symbol('x y', ", 1, "", "))")));
	show(infix(repeat("-", 999, "s0", "")));
	show(infix(repeat("2**", 999, "s0", "")));
	show(infix(repeat("(", 2999, "s0", ")")));
	diag_free(&diag);
	ck_assert_ptr_null(infix(repeat("-", 1000, "s0", "")));
	ck_assert(strstr(test_diag_text(&diag), "expression deeper than 1000 levels"));
	ck_assert_ptr_null(infix(repeat("(", 3001, "s0", ")")));
	ck_assert_ptr_null(infix(repeat("-", 100000, "s0", "")));
	ck_assert_ptr_null(infix(repeat("s0//", 5000, "s0", "")));

	/* Long flat chains are no problem. */
	e = infix(repeat("s0*", 20000, "s0", ""));
	ck_assert_int_eq(e->n, 20001);
	e = infix(repeat("s0 - ", 20000, "s0", ""));
	ck_assert_int_eq(e->n, 20001);
	show(e);
}
END_TEST

START_TEST(equality)
{
	ck_assert(sym_equal(srepr("Float(0.0)"), srepr("Float(0.0)")));
	ck_assert(!sym_equal(srepr("Float(0.0)"), srepr("Float(-0.0)")));
	ck_assert(!sym_equal(srepr("Integer(1)"), srepr("Float(1.0)")));
	ck_assert(!sym_equal(srepr("Rational(1, 2)"), srepr("Rational(2, 4)")));
	ck_assert(!sym_equal(infix("s0"), infix("s1")));
	ck_assert(!sym_equal(infix("f(s0)"), infix("g(s0)")));
	ck_assert(!sym_equal(infix("f(s0)"), infix("f(s0, 1)")));
	ck_assert(!sym_equal(infix("s0 + s1"), infix("s1 + s0")));
	ck_assert(sym_equal(NULL, NULL));
	ck_assert(!sym_equal(infix("s0"), NULL));
	ck_assert_str_eq(sym_print(&arena, NULL), "");
}
END_TEST

/* poly_call copies its arguments: callers pass arrays on their stack, and an
 * expression poly_canon cannot rewrite (a FloorDiv of a symbol) is returned
 * as it is, outliving the caller's frame (swin_v2_t traced: a slice's start). */
START_TEST(call_copies_args)
{
	SymExpr *args[2] = {infix("s0"), poly_num(&arena, 8)};
	SymExpr *e = poly_canon(&arena, poly_call(&arena, SYM_FLOORDIV, 2, args));

	args[0] = args[1] = NULL;
	ck_assert_str_eq(sym_print(&arena, e), "(s0//8)");
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("sym");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, srepr_golden);
	tcase_add_test(tc, srepr_tree);
	tcase_add_test(tc, infix_parse);
	tcase_add_test(tc, round_trips);
	tcase_add_test(tc, evaluation);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, depth_limits);
	tcase_add_test(tc, equality);
	tcase_add_test(tc, call_copies_args);
	suite_add_tcase(s, tc);
	return s;
}
