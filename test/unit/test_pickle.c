/* test_pickle.c: the pickle machine, on pickles Python and torch wrote
 * (test/data/pickle, made by gen.py there) and on hand-made byte strings.
 * Results are compared as text: dump() renders a PyObj much as Python's
 * repr would, with globals as module.name, calls as f(args), BUILD state
 * as f(args)<-state and persistent ids as persid(id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "diagtext.h"
#include "testutil.h"

static void dump_to(FILE *f, const PyObj *o, int depth);

static void
dump_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\'' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

static void
dump_seq(FILE *f, PyObj *const *items, size_t n, int depth)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		dump_to(f, items[i], depth + 1);
	}
}

static void
dump_to(FILE *f, const PyObj *o, int depth)
{
	if (!o) {
		fputs("NULL", f);
		return;
	}
	if (depth > 50) {
		fputs("...", f);
		return;
	}
	switch (o->kind) {
	case PY_NONE: fputs("None", f); break;
	case PY_BOOL: fputs(o->i ? "True" : "False", f); break;
	case PY_INT: fprintf(f, "%lld", (long long)o->i); break;
	case PY_FLOAT: fprintf(f, "%.17g", o->f); break;
	case PY_STR:
	case PY_BYTES:
		fputs(o->kind == PY_BYTES ? "b'" : "'", f);
		dump_text(f, o->s, o->n);
		fputc('\'', f);
		break;
	case PY_TUPLE:
		fputc('(', f);
		dump_seq(f, o->items, o->n, depth);
		fputs(o->n == 1 ? ",)" : ")", f);
		break;
	case PY_LIST:
		fputc('[', f);
		dump_seq(f, o->items, o->n, depth);
		fputc(']', f);
		break;
	case PY_DICT:
		fputc('{', f);
		for (size_t i = 0; i < o->n; i++) {
			fputs(i ? ", " : "", f);
			dump_to(f, o->items[i], depth + 1);
			fputs(": ", f);
			dump_to(f, o->values[i], depth + 1);
		}
		fputc('}', f);
		break;
	case PY_GLOBAL: fprintf(f, "%s.%s", o->s, o->name); break;
	case PY_CALL:
		dump_to(f, o->func, depth + 1);
		fputc('(', f);
		if (o->args && o->args->kind == PY_TUPLE)
			dump_seq(f, o->args->items, o->args->n, depth);
		fputc(')', f);
		if (o->state) {
			fputs("<-", f);
			dump_to(f, o->state, depth + 1);
		}
		break;
	case PY_PERSID:
		fputs("persid(", f);
		dump_to(f, o->args, depth + 1);
		fputc(')', f);
		break;
	default: fprintf(f, "<kind %d>", (int)o->kind); break;
	}
}

/* Returns a malloc'd rendering of o. */
static char *
dump(const PyObj *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	dump_to(f, o, 0);
	fclose(f);
	return buf;
}

static uint8_t *
read_data(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof path, "%s%s", TEST_PATH("data/pickle/"), name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Loads a byte string that must succeed and compares its rendering. */
#define CHECK_OK(bytes, expect) check_ok((const uint8_t *)(bytes), sizeof(bytes) - 1, (expect))

static void
check_ok(const uint8_t *buf, size_t len, const char *expect)
{
	Arena a;
	Diag d = {0};
	PyObj *o;
	char *s;

	arena_init(&a);
	o = pickle_load(&a, "t", buf, len, &d);
	ck_assert_msg(o != NULL, "load failed: %s", test_diag_text(&d) ? test_diag_text(&d) : "(no text)");
	ck_assert_int_eq(d.code, DIAG_OK);
	s = dump(o);
	ck_assert_str_eq(s, expect);
	free(s);
	arena_free(&a);
	diag_free(&d);
}

/* Loads a byte string that must fail with exactly the message expect. */
#define CHECK_ERR(bytes, expect) check_err((const uint8_t *)(bytes), sizeof(bytes) - 1, (expect))

static void
check_err(const uint8_t *buf, size_t len, const char *expect)
{
	Arena a;
	Diag d = {0};

	arena_init(&a);
	ck_assert_ptr_null(pickle_load(&a, "t", buf, len, &d));
	ck_assert_int_eq(d.code, DIAG_INPUT);
	ck_assert_ptr_nonnull(test_diag_text(&d));
	ck_assert_str_eq(test_diag_text(&d), expect);
	arena_free(&a);
	diag_free(&d);
}

/* Loads test/data/pickle/name and compares its rendering. */
static void
check_file(const char *name, const char *expect)
{
	size_t len;
	uint8_t *buf = read_data(name, &len);

	check_ok(buf, len, expect);
	free(buf);
}

/* ---- pickles Python wrote ---- */

#define SCALARS "[0, 255, 256, 65535, 65536, -1, -2147483648, 2147483647, 2147483648, " \
	"9223372036854775807, -9223372036854775808, True, False, None, 1.5, -0.25, " \
	"'h\\xc3\\xa9llo \\xe2\\x82\\xac', '', (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)]"

START_TEST(python_protocol2)
{
	check_file("proto2.pkl",
	    "{'scalars': " SCALARS ", 'shared': ([1, 2], [1, 2]), 'od': {'w': 1, 'b': 2}, "
	    "'bytes': _codecs.encode('xy', 'latin1'), 'point': __main__.Point()<-{'x': 3}, "
	    "'pid': persid(('storage', '0', 4))}");
}
END_TEST

START_TEST(python_protocol0)
{
	check_file("proto0.pkl",
	    "{'scalars': " SCALARS ", 'shared': ([1, 2], [1, 2]), 'od': {'w': 1, 'b': 2}, "
	    "'point': copy_reg._reconstructor(__main__.Point, __builtin__.object, None)<-{'x': 3}, "
	    "'pid': persid('storage_0')}");
}
END_TEST

START_TEST(python_protocol4)
{
	size_t len;
	uint8_t *buf = read_data("proto4.pkl", &len);
	Arena a;
	Diag d = {0};
	PyObj *o, *b;
	char *s;

	arena_init(&a);
	o = pickle_load(&a, "p4", buf, len, &d);
	ck_assert_ptr_nonnull(o);
	b = py_dict_get(o, "long_bytes");
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->kind, PY_BYTES);
	ck_assert_uint_eq(b->n, 300);
	o->n -= 4;   /* hide 'long_bytes', 'set', 'frozen' and 'pid' from the dump */
	s = dump(o);
	ck_assert_str_eq(s, "{'scalars': " SCALARS ", 'shared': ([1, 2], [1, 2]), "
	    "'od': {'w': 1, 'b': 2}, 'bytes': b'\\x00\\x01xy'}");
	free(s);
	o->n += 4;
	s = dump(py_dict_get(o, "set"));
	ck_assert_str_eq(s, "[7]");
	free(s);
	s = dump(py_dict_get(o, "frozen"));
	ck_assert_str_eq(s, "[8]");
	free(s);
	s = dump(py_dict_get(o, "pid"));
	ck_assert_str_eq(s, "persid(('storage', '0', 4))");
	free(s);
	arena_free(&a);
	diag_free(&d);
	free(buf);
}
END_TEST

START_TEST(python_protocol5)
{
	check_file("proto5.pkl", "b'ab'");
}
END_TEST

START_TEST(python_long_memo)
{
	size_t len;
	uint8_t *buf = read_data("memo_long.pkl", &len);
	Arena a;
	Diag d = {0};
	PyObj *o;

	arena_init(&a);
	o = pickle_load(&a, "memo", buf, len, &d);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->kind, PY_LIST);
	ck_assert_uint_eq(o->n, 2);
	ck_assert_uint_eq(o->items[0]->n, 300);
	ck_assert_str_eq(o->items[0]->items[299]->s, "s299");
	/* LONG_BINGET 299 gives back the very object LONG_BINPUT stored. */
	ck_assert_ptr_eq(o->items[1], o->items[0]->items[299]);
	arena_free(&a);
	diag_free(&d);
	free(buf);
}
END_TEST

START_TEST(shared_containers)
{
	Arena a;
	Diag d = {0};
	size_t len;
	uint8_t *buf = read_data("proto2.pkl", &len);
	PyObj *o, *t;

	arena_init(&a);
	o = pickle_load(&a, "p2", buf, len, &d);
	t = py_dict_get(o, "shared");
	ck_assert_int_eq(t->kind, PY_TUPLE);
	ck_assert_ptr_eq(t->items[0], t->items[1]);
	arena_free(&a);
	free(buf);
	/* APPENDS through BINGET edits the list already inside the tuple. */
	CHECK_OK("\x80\x02]q\x00h\x00\x86q\x01h\x00(K\x01K\x02" "e0.",
	         "([1, 2], [1, 2])");
	/* SETITEMS through BINGET, and a memo key far from the others. */
	CHECK_OK("}r\xff\xff\xff\xff(K\x01K\x02u0j\xff\xff\xff\xffK\x03K\x04s.",
	         "{1: 2, 3: 4}");
}
END_TEST

/* ---- torch's data.pkl files ---- */

/* Checks persid(('storage', torch.<storage>, key, 'cpu', numel)). */
static void
check_storage(const PyObj *pid, const char *storage, const char *key, int64_t numel)
{
	const PyObj *t;

	ck_assert_int_eq(pid->kind, PY_PERSID);
	t = pid->args;
	ck_assert_int_eq(t->kind, PY_TUPLE);
	ck_assert_uint_eq(t->n, 5);
	ck_assert_str_eq(t->items[0]->s, "storage");
	ck_assert(py_is_global(t->items[1], "torch", storage));
	ck_assert_int_eq(t->items[2]->kind, PY_STR);
	ck_assert_str_eq(t->items[2]->s, key);
	ck_assert_str_eq(t->items[3]->s, "cpu");
	ck_assert_int_eq(t->items[4]->kind, PY_INT);
	ck_assert_int_eq(t->items[4]->i, numel);
}

/* Checks a _rebuild_tensor_v2 call and returns its size tuple's rendering. */
static char *
check_tensor(const PyObj *c, const char *storage, const char *key, int64_t numel)
{
	const PyObj *args;

	ck_assert_int_eq(c->kind, PY_CALL);
	ck_assert(py_is_global(c->func, "torch._utils", "_rebuild_tensor_v2"));
	args = c->args;
	ck_assert_int_eq(args->kind, PY_TUPLE);
	ck_assert_uint_eq(args->n, 6);
	check_storage(args->items[0], storage, key, numel);
	ck_assert_int_eq(args->items[1]->kind, PY_INT);         /* storage offset */
	ck_assert_int_eq(args->items[4]->kind, PY_BOOL);        /* requires_grad */
	ck_assert_int_eq(args->items[5]->kind, PY_DICT);        /* OrderedDict() hooks */
	ck_assert_uint_eq(args->items[5]->n, 0);
	return dump(args->items[2]);
}

START_TEST(torch_state_dict_2_6)
{
	static const struct {
		const char *name, *storage;
		int64_t numel;
		const char *sizes;
		int param;
	} want[] = {
		{"conv.weight", "FloatStorage", 108, "(4, 3, 3, 3)", 1},
		{"conv.bias", "FloatStorage", 4, "(4,)", 1},
		{"bn.weight", "FloatStorage", 4, "(4,)", 1},
		{"bn.bias", "FloatStorage", 4, "(4,)", 1},
		{"bn.running_mean", "FloatStorage", 4, "(4,)", 0},
		{"bn.running_var", "FloatStorage", 4, "(4,)", 0},
		{"bn.num_batches_tracked", "LongStorage", 1, "()", 0},
	};
	size_t len;
	uint8_t *buf = read_data("state_dict_2_6.pkl", &len);
	Arena a;
	Diag d = {0};
	PyObj *sd;

	arena_init(&a);
	sd = pickle_load(&a, "serialized_state_dict.pt/archive/data.pkl", buf, len, &d);
	ck_assert_msg(sd != NULL, "%s", test_diag_text(&d));
	ck_assert_int_eq(sd->kind, PY_DICT);
	ck_assert_uint_eq(sd->n, 7);
	for (size_t i = 0; i < 7; i++) {
		PyObj *v = py_dict_get(sd, want[i].name), *t = v;
		char key[2] = {(char)('0' + i), 0}, *sizes;

		ck_assert_ptr_nonnull(v);
		ck_assert_str_eq(sd->items[i]->s, want[i].name);   /* insertion order */
		if (want[i].param) {
			ck_assert(py_is_global(v->func, "torch._utils", "_rebuild_parameter"));
			ck_assert_uint_eq(v->args->n, 3);
			t = v->args->items[0];
			ck_assert_int_eq(v->args->items[1]->kind, PY_BOOL);
			ck_assert_int_eq(v->args->items[1]->i, 1);
		}
		sizes = check_tensor(t, want[i].storage, key, want[i].numel);
		ck_assert_str_eq(sizes, want[i].sizes);
		free(sizes);
	}
	arena_free(&a);
	free(buf);
}
END_TEST

START_TEST(torch_constants_2_6)
{
	check_file("constants_2_6.pkl",
	    "{'nonpersist': torch._utils._rebuild_tensor_v2("
	    "persid(('storage', torch.FloatStorage, '0', 'cpu', 4)), 0, (4,), (1,), False, {}), "
	    "'const': torch._utils._rebuild_tensor_v2("
	    "persid(('storage', torch.FloatStorage, '1', 'cpu', 4)), 0, (4,), (1,), False, {})}");
}
END_TEST

START_TEST(torch_sample_inputs_2_14)
{
	size_t len;
	uint8_t *buf = read_data("sample_inputs_2_14.pkl", &len);
	Arena a;
	Diag d = {0};
	PyObj *o;
	char *sizes;

	arena_init(&a);
	o = pickle_load(&a, "model.pt/archive/data.pkl", buf, len, &d);
	ck_assert_ptr_nonnull(o);
	/* (args, kwargs) = ((tensor,), {}) */
	ck_assert_int_eq(o->kind, PY_TUPLE);
	ck_assert_uint_eq(o->n, 2);
	ck_assert_int_eq(o->items[0]->kind, PY_TUPLE);
	ck_assert_uint_eq(o->items[0]->n, 1);
	ck_assert_int_eq(o->items[1]->kind, PY_DICT);
	ck_assert_uint_eq(o->items[1]->n, 0);
	sizes = check_tensor(o->items[0]->items[0], "FloatStorage", "0", 384);
	ck_assert_str_eq(sizes, "(2, 3, 8, 8)");
	free(sizes);
	arena_free(&a);
	free(buf);
}
END_TEST

/* ---- opcodes one at a time ---- */

START_TEST(ints)
{
	CHECK_OK("I01\n.", "True");
	CHECK_OK("I00\n.", "False");
	CHECK_OK("I-42\n.", "-42");
	CHECK_OK("I -7 \r\n.", "-7");
	CHECK_OK("I9223372036854775807\n.", "9223372036854775807");
	CHECK_OK("L-9223372036854775808L\n.", "-9223372036854775808");
	CHECK_OK("J\xff\xff\xff\xff.", "-1");
	CHECK_OK("K\xff.", "255");
	CHECK_OK("M\xff\xff.", "65535");
	CHECK_OK("\x8a\x00.", "0");
	CHECK_OK("\x8a\x01\xff.", "-1");
	CHECK_OK("\x8a\x02\x00\x80.", "-32768");
	CHECK_OK("\x8a\x03\x00\x80\x00.", "32768");
	CHECK_OK("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\x00.", "9223372036854775807");
	CHECK_OK("\x8a\x0a\x00\x00\x00\x00\x00\x00\x00\x80\xff\xff.", "-9223372036854775808");
	CHECK_OK("\x8b\x03\x00\x00\x00\x01\x02\x03.", "197121");
	CHECK_ERR("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00.",
	          "t: offset 0: LONG1: integer of 9 bytes does not fit in int64\n");
	CHECK_ERR("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.",
	          "t: offset 0: LONG1: integer of 9 bytes does not fit in int64\n");
	CHECK_ERR("\x8b\xff\xff\xff\xff.", "t: offset 0: LONG4: negative length\n");
	CHECK_ERR("I9223372036854775808\n.",
	          "t: offset 0: INT: integer '9223372036854775808' does not fit in int64\n");
	CHECK_ERR("I12x\n.", "t: offset 0: INT: bad integer '12x'\n");
	CHECK_ERR("I\n.", "t: offset 0: INT: bad integer ''\n");
}
END_TEST

START_TEST(floats)
{
	CHECK_OK("G\x3f\xf8\x00\x00\x00\x00\x00\x00.", "1.5");
	CHECK_OK("G\xc0\x09\x21\xfb\x54\x44\x2d\x18.", "-3.1415926535897931");
	CHECK_OK("F2.5e3\n.", "2500");
	CHECK_ERR("F2.5x\n.", "t: offset 0: FLOAT: bad float '2.5x'\n");
	CHECK_ERR("F\n.", "t: offset 0: FLOAT: bad float ''\n");
}
END_TEST

START_TEST(strings)
{
	CHECK_OK("X\x02\x00\x00\x00hi.", "'hi'");
	CHECK_OK("\x8c\x00.", "''");
	CHECK_OK("\x8d\x01\x00\x00\x00\x00\x00\x00\x00z.", "'z'");
	CHECK_OK("U\x02" "ab.", "'ab'");
	CHECK_OK("T\x01\x00\x00\x00" "c.", "'c'");
	CHECK_OK("C\x02\x00\xff.", "b'\\x00\\xff'");
	CHECK_OK("B\x01\x00\x00\x00q.", "b'q'");
	CHECK_OK("\x8e\x01\x00\x00\x00\x00\x00\x00\x00r.", "b'r'");
	CHECK_OK("\x96\x00\x00\x00\x00\x00\x00\x00\x00.", "b''");
	/* raw-unicode-escape: Latin-1 bytes, \u and \U escapes, \\u kept. */
	CHECK_OK("Va\xe9\\u20ac\\U0001F600\n.", "'a\\xc3\\xa9\\xe2\\x82\\xac\\xf0\\x9f\\x98\\x80'");
	CHECK_OK("V\\\\u0041\\x\n.", "'\\\\\\\\u0041\\\\x'");
	CHECK_ERR("V\\u12\n.", "t: offset 0: UNICODE: truncated \\u escape\n");
	CHECK_ERR("V\\u12g4\n.", "t: offset 0: UNICODE: bad \\u escape\n");
	CHECK_ERR("V\\U00110000\n.", "t: offset 0: UNICODE: \\U escape out of range\n");
	CHECK_ERR("T\xff\xff\xff\xff.", "t: offset 0: BINSTRING: negative length\n");
	CHECK_ERR("\x8d\x00\x00\x00\x00\x00\x00\x00\x80.",
	          "t: offset 0: BINUNICODE8: truncated argument: needs 9223372036854775808 bytes, 1 left\n");
	CHECK_ERR("X\x05\x00\x00\x00" "abcd",
	          "t: offset 0: BINUNICODE: truncated argument: needs 5 bytes, 4 left\n");
	/* Embedded NUL bytes survive: n counts them. */
	{
		Arena a;
		Diag d = {0};
		PyObj *o;

		arena_init(&a);
		o = pickle_load(&a, "t", (const uint8_t *)"U\x03\x61\x00\x62.", 6, &d);
		ck_assert_ptr_nonnull(o);
		ck_assert_uint_eq(o->n, 3);
		ck_assert_int_eq(memcmp(o->s, "a\0b", 4), 0);
		arena_free(&a);
	}
}
END_TEST

START_TEST(containers)
{
	CHECK_OK(").", "()");
	CHECK_OK("K\x01\x85.", "(1,)");
	CHECK_OK("K\x01K\x02\x86.", "(1, 2)");
	CHECK_OK("K\x01K\x02K\x03\x87.", "(1, 2, 3)");
	CHECK_OK("(K\x01K\x02K\x03K\x04t.", "(1, 2, 3, 4)");
	CHECK_OK("(t.", "()");
	CHECK_OK("(d.", "{}");
	CHECK_OK("(l.", "[]");
	CHECK_OK("](e}(u\x86.", "([], {})");
	CHECK_OK("]K\x01" "a(K\x02K\x03" "e.", "[1, 2, 3]");
	CHECK_OK("(K\x01K\x02l.", "[1, 2]");
	CHECK_OK("(K\x01K\x02" "d.", "{1: 2}");
	CHECK_OK("}K\x01K\x02s(K\x03K\x04K\x05K\x06u.", "{1: 2, 3: 4, 5: 6}");
	CHECK_OK("\x8f(K\x01K\x02\x90.", "[1, 2]");
	CHECK_OK("(K\x01\x91.", "[1]");
	CHECK_OK("]N\x88\x89\x87" "a.", "[(None, True, False)]");
	/* A list growing past its first allocation keeps every item. */
	CHECK_OK("](K\x00K\x01K\x02K\x03K\x04K\x05K\x06K\x07K\x08K\x09" "eK\x0a" "a.",
	         "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
	CHECK_ERR("(K\x01" "d.", "t: offset 3: DICT: odd number of items (1)\n");
	CHECK_ERR("}(K\x01u.", "t: offset 4: SETITEMS: odd number of items (1)\n");
	CHECK_ERR("](K\x01K\x02u.", "t: offset 6: SETITEMS: expected dict below the items, got list\n");
	CHECK_ERR("}K\x01" "a.", "t: offset 3: APPEND: expected list below the items, got dict\n");
	CHECK_ERR(")(K\x01" "e.", "t: offset 4: APPENDS: expected list below the items, got tuple\n");
	CHECK_ERR("(K\x01K\x02s.", "t: offset 5: SETITEM: stack underflow\n");
	CHECK_ERR("](K\x01K\x02s.", "t: offset 6: SETITEM: stack underflow\n");
}
END_TEST

START_TEST(stack_ops)
{
	CHECK_OK("K\x01\x32\x86.", "(1, 1)");            /* DUP */
	CHECK_OK("K\x01K\x02\x30.", "1");                /* POP */
	CHECK_OK("K\x01(K\x02K\x03\x31.", "1");          /* POP_MARK */
	CHECK_OK("K\x01(\x30.", "1");                    /* POP takes an empty mark */
	CHECK_OK("\x80\x05\x95\x03\x00\x00\x00\x00\x00\x00\x00K\x07\x94\x94h\x01.", "7");
	CHECK_OK("K\x05p7\ng7\n.", "5");                  /* PUT, GET */
	CHECK_OK("K\x09.trailing", "9");                 /* bytes after STOP are left */
	CHECK_ERR("\x80\x06.", "t: offset 0: PROTO: unsupported protocol 6\n");
	CHECK_ERR("K\x01(\x32.", "t: offset 3: DUP: stack underflow\n");
	CHECK_ERR("\x30", "t: offset 0: POP: stack underflow\n");
	CHECK_ERR("\x31", "t: offset 0: POP_MARK: mark not found\n");
	CHECK_ERR("K\x01(.", "t: offset 3: STOP: stack underflow\n");
	CHECK_ERR("(\x94.", "t: offset 1: MEMOIZE: stack underflow\n");
	CHECK_ERR("K\x01p-1\n.", "t: offset 2: PUT: negative memo key -1\n");
	CHECK_ERR("K\x01p4294967296\n.", "t: offset 2: PUT: memo key 4294967296 too large\n");
}
END_TEST

START_TEST(globals_and_calls)
{
	CHECK_OK("cmod.sub\nname\n.", "mod.sub.name");
	CHECK_OK("\x8c\x01m\x8c\x01n\x93.", "m.n");
	CHECK_OK("cm\nf\nK\x01\x85R.", "m.f(1)");
	CHECK_OK("cm\nC\n)\x81}b.", "m.C()<-{}");
	CHECK_OK("ccollections\nOrderedDict\n)R(K\x01K\x02u}b.", "{1: 2}");
	CHECK_OK("ccollections\nOrderedDict\n]\x85R.",
	         "collections.OrderedDict([])");
	CHECK_OK("K\x01Q.", "persid(1)");
	CHECK_OK("Pabc\n.", "persid('abc')");
	CHECK_ERR("cm\nf\nK\x01R.", "t: offset 7: REDUCE: arguments must be a tuple, got int\n");
	CHECK_ERR("K\x01K\x02\x93.", "t: offset 4: STACK_GLOBAL: expected two str, got int and int\n");
	CHECK_ERR("]}b.", "t: offset 2: BUILD: cannot set the state of list\n");
	CHECK_ERR("cmod\n", "t: offset 0: GLOBAL: truncated argument: no end of line\n");
}
END_TEST

/* ---- errors ---- */

START_TEST(error_messages)
{
	CHECK_ERR("\x80\x02\xff.", "t: offset 2: unknown opcode 0xff\n");
	CHECK_ERR("S'a'\n.", "t: offset 0: STRING: unsupported opcode 0x53\n");
	CHECK_ERR("h\x05.", "t: offset 0: BINGET: memo key 5 not found\n");
	CHECK_ERR("K\x01q\x00j\x00\x01\x00\x00.", "t: offset 4: LONG_BINGET: memo key 256 not found\n");
	CHECK_ERR("R", "t: offset 0: REDUCE: stack underflow\n");
	CHECK_ERR("K\x01(\x85.", "t: offset 3: TUPLE1: stack underflow\n");
	CHECK_ERR("K\x01t.", "t: offset 2: TUPLE: mark not found\n");
	CHECK_ERR("K\x01", "t: offset 2: pickle ends without STOP\n");
	CHECK_ERR("", "t: offset 0: pickle ends without STOP\n");
	CHECK_ERR(".", "t: offset 0: STOP: stack underflow\n");
	CHECK_ERR("J\x01\x02", "t: offset 0: BININT: truncated argument: needs 4 bytes, 2 left\n");
}
END_TEST

/* Every proper prefix of every data file fails cleanly, with the label. */
START_TEST(truncated_everywhere)
{
	static const char *const files[] = {
		"proto0.pkl", "proto2.pkl", "proto4.pkl", "proto5.pkl", "memo_long.pkl",
		"state_dict_2_6.pkl", "constants_2_6.pkl", "sample_inputs_2_14.pkl",
	};
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		size_t len;
		uint8_t *buf = read_data(files[f], &len);

		for (size_t n = 0; n < len; n++) {
			Arena a;
			Diag d = {0};
			/* A copy of exactly n bytes lets ASan catch any read past len. */
			uint8_t *cut = malloc(n ? n : 1);

			memcpy(cut, buf, n);
			arena_init(&a);
			ck_assert_msg(pickle_load(&a, "cut", cut, n, &d) == NULL,
			              "%s cut at %zu loaded", files[f], n);
			ck_assert_int_eq(d.code, DIAG_INPUT);
			ck_assert_msg(strncmp(test_diag_text(&d), "cut: offset ", 12) == 0, "%s", test_diag_text(&d));
			arena_free(&a);
			diag_free(&d);
			free(cut);
		}
		free(buf);
	}
}
END_TEST

START_TEST(helpers)
{
	/* {'a': 'y', 'g': m.n, 'ab': 5, 'a': 2} */
	static const uint8_t dict4[] = "(\x8c\x01" "a\x8c\x01" "y\x8c\x01" "gcm\nn\n"
		"\x8c\x02" "abK\x05\x8c\x01" "aK\x02" "d.";
	Arena a;
	Diag d = {0};
	PyObj *o;

	ck_assert(!py_is_global(NULL, "a", "b"));
	ck_assert_ptr_null(py_dict_get(NULL, "a"));
	arena_init(&a);
	o = pickle_load(&a, "t", dict4, sizeof dict4 - 1, &d);
	ck_assert_msg(o != NULL, "%s", test_diag_text(&d));
	/* The last of two equal keys wins, as a Python dict would keep it. */
	ck_assert_int_eq(py_dict_get(o, "a")->i, 2);
	ck_assert_int_eq(py_dict_get(o, "ab")->i, 5);
	ck_assert_ptr_null(py_dict_get(o, "y"));
	ck_assert_ptr_null(py_dict_get(o, "b"));
	ck_assert(py_is_global(o->values[1], "m", "n"));
	ck_assert(!py_is_global(o->values[1], "m", "nn"));
	ck_assert(!py_is_global(o->values[1], "mm", "n"));
	ck_assert(!py_is_global(o->items[0], "m", "n"));
	ck_assert_ptr_null(py_dict_get(o->items[0], "a"));
	arena_free(&a);
	diag_free(&d);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("pickle");
	TCase *py = tcase_create("python");
	TCase *torch = tcase_create("torch");
	TCase *ops = tcase_create("opcodes");
	TCase *err = tcase_create("errors");

	tcase_add_test(py, python_protocol2);
	tcase_add_test(py, python_protocol0);
	tcase_add_test(py, python_protocol4);
	tcase_add_test(py, python_protocol5);
	tcase_add_test(py, python_long_memo);
	tcase_add_test(py, shared_containers);
	tcase_add_test(torch, torch_state_dict_2_6);
	tcase_add_test(torch, torch_constants_2_6);
	tcase_add_test(torch, torch_sample_inputs_2_14);
	tcase_add_test(ops, ints);
	tcase_add_test(ops, floats);
	tcase_add_test(ops, strings);
	tcase_add_test(ops, containers);
	tcase_add_test(ops, stack_ops);
	tcase_add_test(ops, globals_and_calls);
	tcase_add_test(ops, helpers);
	tcase_add_test(err, error_messages);
	tcase_add_test(err, truncated_everywhere);
	tcase_set_timeout(err, 60);
	suite_add_tcase(s, py);
	suite_add_tcase(s, torch);
	suite_add_tcase(s, ops);
	suite_add_tcase(s, err);
	return s;
}
