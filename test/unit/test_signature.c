/* test_signature.c: the signature's JSON and its comparison
 * (lib/pipeline/sigjson.c).
 *
 * A signature written and read back compares equal to itself; each kind of
 * change of sigchange.def is found, one diagnostic each, and a kind in the
 * allow mask becomes a note; text that is not a signature is YE0903. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "diagtext.h"
#include "testutil.h"

static SigDim dims_x[] = {{-1, "batch"}, {-1, "seq"}, {8, NULL}};
static SigDim dims_y[] = {{-1, "batch"}, {4, NULL}};
static SigDim dims_out[] = {{-1, "batch"}, {-1, "seq"}, {4, NULL}};
static const char *uses_batch[] = {"x[0]", "y[0]", "out[0]"};
static const char *uses_seq[] = {"x[1]", "out[1]"};
static const char *domains[] = {"", "com.microsoft"};
static int64_t versions[] = {18, 1};

/* The signature of a model f(x: float32[batch,seq,8], y: float32[batch,4])
 * -> out: float32[batch,seq,4], copied into the arena so a test may edit it. */
static Signature *
sample(Arena *a)
{
	SigValue in[] = {
		{"x", NULL, "user_input", "float32", 3, dims_x},
		{"y", NULL, "user_input", "float32", 2, dims_y},
	};
	SigValue out[] = {{"out", "add", "user_output", "float32", 3, dims_out}};
	SigSymbol sym[] = {
		{"batch", "s17", 1, 1, 2, 32, 3, uses_batch},
		{"seq", "s27", 1, 0, 2, 0, 2, uses_seq},
	};
	Signature *s = ARENA_NEW(a, Signature);

	memset(s, 0, sizeof *s);
	s->ir_version = 8;
	s->nopset = 2;
	s->opset_domain = domains;
	s->opset_version = versions;
	s->producer_name = "yobx-export";
	s->producer_version = "0.1.0";
	s->torch_version = "2.14.1";
	s->capture_strategy = "torch.export (pt2)";
	s->nin = 2, s->nout = 1, s->nsym = 2;
	s->in = arena_dup(a, in, sizeof in);
	s->out = arena_dup(a, out, sizeof out);
	s->sym = arena_dup(a, sym, sizeof sym);
	for (int i = 0; i < 2; i++)
		s->in[i].dims = arena_dup(a, s->in[i].dims, sizeof(SigDim) * (size_t)s->in[i].rank);
	return s;
}

static Signature *
round_trip(Arena *a, const Signature *s)
{
	size_t len;
	char *text = signature_json(s, &len);
	Diag d = {0};
	Signature *back = signature_parse(a, "sig.json", arena_strndup(a, text, len), len, &d);

	ck_assert_msg(back != NULL, "%s", test_diag_text(&d));
	free(text);
	diag_free(&d);
	return back;
}

START_TEST(test_round_trip)
{
	Arena a;
	Diag d = {0};
	Signature *s, *back;
	size_t n1, n2;
	char *t1, *t2;

	arena_init(&a);
	s = sample(&a);
	back = round_trip(&a, s);
	ck_assert_int_eq(signature_compare(s, back, 0, "sig.json", &d), 0);
	ck_assert_int_eq(d.n, 0);
	ck_assert_str_eq(back->out[0].torch_name, "add");
	ck_assert_int_eq(back->sym[1].has_max, 0);
	t1 = signature_json(s, &n1);
	t2 = signature_json(back, &n2);
	ck_assert_str_eq(t1, t2);     /* what it reads is all it writes that matters */
	ck_assert_ptr_nonnull(strstr(t1, "\n    {\"name\": \"x\", \"source\": \"user_input\", \"dtype\": \"float32\", "
	                                 "\"dims\": [\"batch\", \"seq\", 8]},\n"));
	free(t1);
	free(t2);
	arena_free(&a);
}
END_TEST

START_TEST(test_every_kind)
{
	Arena a;
	Diag d = {0};
	Signature *old, *now;
	const char *text;

	arena_init(&a);
	old = sample(&a);
	now = round_trip(&a, old);
	now->in[0].dims[0] = (SigDim){3, NULL};          /* fixed */
	now->in[0].dims[2] = (SigDim){-1, "feat"};       /* dynamic */
	now->in[1].name = "mask";                        /* renamed */
	now->in[1].dtype = "int64";                      /* dtype, of the renamed input */
	now->in[1].dims[1].size = 5;                     /* size */
	now->out[0].dims[1].param = "2*seq";             /* symbol */
	now->sym[0].max = 16;                            /* range */
	now->opset_version[0] = 21;                      /* opset */
	ck_assert_int_eq(signature_compare(old, now, 0, "g.json", &d), 8);
	text = test_diag_text(&d);
	ck_assert_str_eq(text,
		"g.json: input 'x' axis 0: was symbolic 'batch', now fixed at 3 [fixed]\n"
		"g.json: input 'x' axis 2: was fixed at 8, now symbolic 'feat' [dynamic]\n"
		"g.json: input 1: was 'y', now 'mask' [renamed]\n"
		"g.json: input 'mask': was float32, now int64 [dtype]\n"
		"g.json: input 'mask' axis 1: was 4, now 5 [size]\n"
		"g.json: output 'out' axis 1: was 'seq', now '2*seq' [symbol]\n"
		"g.json: symbol 'batch': range [2, 32] narrowed to [2, 16] [range]\n"
		"g.json: opset ai.onnx: was 18, now 21 [opset]\n");
	ck_assert_int_eq(diag_info(d.items[0].code)->num, 901);
	diag_free(&d);
	/* allowed kinds are notes and do not count */
	d = (Diag){0};
	ck_assert_int_eq(signature_compare(old, now, (1u << SIG_RANGE) | (1u << SIG_OPSET), "g.json", &d), 6);
	ck_assert_int_eq(diag_info(d.items[6].code)->num, 902);
	ck_assert_ptr_nonnull(strstr(test_diag_text(&d), "narrowed to [2, 16] [range, allowed]"));
	diag_free(&d);
	/* added, removed, rank, source */
	d = (Diag){0};
	now = round_trip(&a, old);
	now->nin = 1;
	now->out[0].rank = 2;
	now->in[0].source = "parameter";
	ck_assert_int_eq(signature_compare(old, now, 0, "g.json", &d), 3);
	ck_assert_str_eq(test_diag_text(&d),
		"g.json: input 'x': was a user_input, now a parameter [source]\n"
		"g.json: input 'y' (input 1) is gone [removed]\n"
		"g.json: output 'out': was rank 3, now 2 [rank]\n");
	diag_free(&d);
	d = (Diag){0};
	ck_assert_int_eq(signature_compare(now, old, 0, "g.json", &d), 3);
	ck_assert_ptr_nonnull(strstr(test_diag_text(&d), "g.json: input 'y' (input 1) is new [added]\n"));
	diag_free(&d);
	arena_free(&a);
}
END_TEST

START_TEST(test_not_a_signature)
{
	static const char *const bad[][2] = {
		{"[1, 2", "x.json:1:"},
		{"{\"format\": \"onnx\"}", "x.json:1:1: not a signature written by --signature: no \"format\""},
		{"{\"format\": \"yobx-export signature\", \"version\": 2}", "this reader knows version 1"},
		{"{\"format\": \"yobx-export signature\", \"version\": 1, \"inputs\": 3}", "'inputs' and 'outputs' must be arrays"},
		{"{\"format\": \"yobx-export signature\", \"version\": 1, \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", "
		 "\"dims\": [true]}], \"outputs\": []}", "a dim must be a number or a name"},
	};
	Arena a;

	arena_init(&a);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		Diag d = {0};
		ck_assert_ptr_null(signature_parse(&a, "x.json", bad[i][0], strlen(bad[i][0]), &d));
		ck_assert_int_eq(d.n, 1);
		ck_assert_int_eq(diag_info(d.items[0].code)->num, 903);
		ck_assert_msg(strstr(test_diag_text(&d), bad[i][1]), "%s", test_diag_text(&d));
		diag_free(&d);
	}
	arena_free(&a);
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("signature");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_every_kind);
	tcase_add_test(tc, test_not_a_signature);
	suite_add_tcase(s, tc);
	return s;
}

