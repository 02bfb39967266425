/* test_tsarchive.c: the TorchScript archive reader (lib/read/ts/tsarchive.c)
 * on the archives torch 1.13, 2.6 and 2.14 wrote (test/models/jit-unit/,
 * made by make.py there) and on small ones made here (zipwrite.h) for the
 * faults torch never writes.  The lines spans must point at are found in
 * make.py through its `# SPAN: name` markers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ts/ts.h"
#include "diagtext.h"
#include "zipwrite.h"
#include "testutil.h"

static const char *const versions[] = {"1.13", "2.6", "2.14"};
enum { NVERSION = sizeof versions / sizeof versions[0] };

typedef struct Opened {
	Arena a;
	Diag d;
	Zip z;
	TsArchive t;
	int rc;
	uint8_t *mem;           /* a made archive, freed with the rest */
} Opened;

static void
open_path(Opened *o, const char *path)
{
	memset(o, 0, sizeof *o);
	arena_init(&o->a);
	o->rc = zip_open(&o->z, path, &o->a, &o->d);
	if (o->rc == 0)
		o->rc = ts_archive_read(&o->t, &o->z, &o->a, &o->d);
}

static void
open_fixture(Opened *o, int v, const char *name)
{
	char path[256];

	snprintf(path, sizeof path, "test/models/jit-unit/torch-%s/%s.pt", versions[v], name);
	open_path(o, path);
	ck_assert_msg(o->rc == 0, "%s: %s", path, test_diag_text(&o->d));
}

static void
open_mem(Opened *o, Zb *b)
{
	size_t len;

	memset(o, 0, sizeof *o);
	arena_init(&o->a);
	o->mem = zb_finish(b, &len);
	o->rc = zip_open_mem(&o->z, "made.pt", o->mem, len, &o->a, &o->d);
	if (o->rc == 0)
		o->rc = ts_archive_read(&o->t, &o->z, &o->a, &o->d);
}

static void
done(Opened *o)
{
	zip_close(&o->z);
	diag_free(&o->d);
	arena_free(&o->a);
	free(o->mem);
}

/* The 1-based line of make.py holding "# SPAN: name", and its text without indent. */
static int
marker_line(const char *name, char *text, size_t size)
{
	size_t len;
	char *src = test_slurp("test/models/jit-unit/make.py", &len), *p, *nl;
	char want[64];
	int line = 1;

	ck_assert_ptr_nonnull(src);
	snprintf(want, sizeof want, "# SPAN: %s\n", name);
	p = strstr(src, want);
	ck_assert_msg(p != NULL, "make.py has no marker %s", name);
	for (char *q = src; q < p; q++)
		line += *q == '\n';
	nl = p + strlen(want) - 1;
	while (p > src && p[-1] != '\n')
		p--;
	while (*p == ' ')
		p++;
	snprintf(text, size, "%.*s", (int)(nl - p), p);
	free(src);
	return line;
}

/* The class of a TorchScript object: its PY_GLOBAL's module and name. */
static void
check_class(const PyObj *o, const char *module_prefix, const char *name)
{
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->kind, PY_CALL);
	ck_assert_int_eq(o->func->kind, PY_GLOBAL);
	ck_assert_msg(strncmp(o->func->s, module_prefix, strlen(module_prefix)) == 0,
	              "module %s, want %s...", o->func->s, module_prefix);
	ck_assert_str_eq(o->func->name, name);
	ck_assert_ptr_nonnull(o->state);
	ck_assert_int_eq(o->state->kind, PY_DICT);
}

static const PyObj *
attr(const PyObj *o, const char *name)
{
	const PyObj *v = py_dict_get(o->state, name);

	ck_assert_msg(v != NULL, "no attribute %s", name);
	return v;
}

/* A tensor of dtype and shape dims[0..rank). */
static const TensorData *
check_tensor(const PyObj *o, DType dt, int rank, const int64_t *dims)
{
	ck_assert_int_eq(o->kind, PY_TENSOR);
	ck_assert_int_eq(o->tensor->dtype, dt);
	ck_assert_int_eq(o->tensor->rank, rank);
	for (int i = 0; i < rank; i++)
		ck_assert_int_eq(o->tensor->sizes[i], dims[i]);
	return o->tensor;
}

static float
f32_at(const TensorData *t, int64_t i)
{
	return (float)dtype_decode_f64(DT_FLOAT32, t->storage + (t->offset + i) * 4);
}

static const TsCode *
code_of(const TsArchive *t, const char *rel)
{
	for (int i = 0; i < t->ncode; i++)
		if (strcmp(t->code[i].rel, rel) == 0)
			return &t->code[i];
	ck_abort_msg("no code file %s", rel);
	return NULL;
}

/* The span at the first occurrence of needle in c's text. */
static const TsSpan *
span_of(const TsCode *c, const char *needle)
{
	const char *p = strstr(c->text, needle);

	ck_assert_msg(p != NULL, "%s has no '%s'", c->rel, needle);
	return ts_span_at(c, (uint32_t)(p - c->text));
}

static void
check_span(const TsSpan *s, const char *marker, int traced)
{
	char text[256];
	int line = marker_line(marker, text, sizeof text);
	size_t n;

	ck_assert_ptr_nonnull(s);
	n = strlen(s->file);
	ck_assert_msg(n >= 16 && strcmp(s->file + n - 16, "jit-unit/make.py") == 0, "file %s", s->file);
	ck_assert_int_eq(s->line, line);
	if (traced) {
		ck_assert_ptr_null(s->src);
		ck_assert_ptr_nonnull(s->trace);
		ck_assert_msg(strstr(s->trace, "make.py(") != NULL, "trace %s", s->trace);
	} else {
		ck_assert_ptr_null(s->trace);
		ck_assert_str_eq(s->src, text);
	}
}

START_TEST(linear)
{
	Opened o;
	const TensorData *w, *b;

	open_fixture(&o, _i, "linear");
	ck_assert(ts_sniff(&o.z));
	ck_assert_int_eq(o.t.format, 3);
	ck_assert_msg(strstr(o.t.producer, "format 3 in 'version'") != NULL, "%s", o.t.producer);
	/* 1.13 writes no byteorder record, 2.x does. */
	ck_assert_int_eq(strstr(o.t.producer, "torch 2.x") != NULL, _i > 0);
	check_class(o.t.root, "__torch__.torch.nn.modules.linear", "Linear");
	ck_assert_str_eq(o.t.root->func->s, "__torch__.torch.nn.modules.linear");
	w = check_tensor(attr(o.t.root, "weight"), DT_FLOAT32, 2, (int64_t[]){2, 3});
	b = check_tensor(attr(o.t.root, "bias"), DT_FLOAT32, 1, (int64_t[]){2});
	for (int i = 0; i < 6; i++)
		ck_assert_float_eq(f32_at(w, i), i / 8.0f);
	ck_assert_float_eq(f32_at(b, 0), 0.5f);
	ck_assert_float_eq(f32_at(b, 1), -1.0f);
	ck_assert_int_eq(attr(o.t.root, "training")->kind, PY_BOOL);
	ck_assert_ptr_nonnull(o.t.constants);
	ck_assert_int_eq(o.t.constants->kind, PY_TUPLE);
	ck_assert_int_eq(o.t.constants->n, 0);
	ck_assert_int_eq(o.t.ncode, 1);
	ck_assert_str_eq(o.t.code[0].rel, "code/__torch__/torch/nn/modules/linear.py");
	ck_assert_ptr_eq(ts_code_file(&o.t, "__torch__.torch.nn.modules.linear"), &o.t.code[0]);
	ck_assert_ptr_null(ts_code_file(&o.t, "__torch__"));
	ck_assert_msg(strstr(o.t.code[0].text, "def forward(") != NULL, "%s", o.t.code[0].text);
	ck_assert_int_eq(strlen(o.t.code[0].text), o.t.code[0].len);
	ck_assert_ptr_null(o.t.code[0].no_spans);
	/* traced_inputs.pkl: torch 2.x only, the dtype and shape of the example */
	if (_i == 0) {
		ck_assert_int_eq(o.t.ntraced, 0);
	} else {
		ck_assert_int_eq(o.t.ntraced, 1);
		ck_assert_int_eq(o.t.traced[0].dtype, DT_FLOAT32);
		ck_assert_int_eq(o.t.traced[0].rank, 2);
		ck_assert_int_eq(o.t.traced[0].sizes[0], 1);
		ck_assert_int_eq(o.t.traced[0].sizes[1], 3);
	}
	done(&o);
}
END_TEST

START_TEST(tree)
{
	Opened o;
	const PyObj *a, *fc, *seq;
	const TensorData *t;
	const TsCode *c;
	int64_t one[1] = {4};

	open_fixture(&o, _i, "tree");
	check_class(o.t.root, "__torch__", "Tree");
	ck_assert_str_eq(o.t.root->func->s, "__torch__");
	a = attr(o.t.root, "a");
	check_class(a, "__torch__", "Scale");
	t = check_tensor(attr(a, "scale"), DT_FLOAT32, 1, one);
	for (int i = 0; i < 4; i++)
		ck_assert_float_eq(f32_at(t, i), 2.0f);
	t = check_tensor(attr(a, "steps"), DT_INT64, 1, (int64_t[]){3});
	for (int64_t i = 0; i < 3; i++)
		ck_assert_int_eq(dtype_decode_i64(DT_INT64, t->storage + (t->offset + i) * 8), i);
	fc = attr(a, "fc");
	/* a mangled class: the module names it, the class keeps its name */
	check_class(fc, "__torch__.torch.nn.modules.linear.___torch_mangle_", "Linear");
	check_tensor(attr(fc, "weight"), DT_FLOAT32, 2, (int64_t[]){4, 4});
	seq = attr(o.t.root, "b");
	check_class(seq, "__torch__.torch.nn.modules.container", "Sequential");
	check_class(attr(seq, "0"), "__torch__.torch.nn.modules.activation", "ReLU");
	check_tensor(attr(attr(seq, "1"), "weight"), DT_FLOAT32, 2, (int64_t[]){2, 4});
	/* the captured tensor: CONSTANTS.c0, from constants/0 */
	ck_assert_int_eq(o.t.constants->n, 1);
	t = check_tensor(o.t.constants->items[0], DT_FLOAT32, 1, (int64_t[]){2});
	ck_assert_float_eq(f32_at(t, 0), 0.5f);
	ck_assert_float_eq(f32_at(t, 1), -0.5f);
	ck_assert_str_eq(t->entry, "tree/constants/0");
	/* every code file, in central-directory order */
	ck_assert_int_eq(o.t.ncode, 5);
	ck_assert_str_eq(o.t.code[0].rel, "code/__torch__.py");
	ck_assert_str_eq(o.t.code[0].module, "__torch__");
	{
		/* the mangled class's file: code/ and its module as a path */
		char *rel = arena_printf(&o.a, "code/%s.py", fc->func->s);
		for (char *p = rel; *p; p++)
			if (*p == '.' && strcmp(p, ".py"))
				*p = '/';
		ck_assert_ptr_eq(ts_code_file(&o.t, fc->func->s), code_of(&o.t, rel));
	}
	ck_assert_ptr_nonnull(ts_code_file(&o.t, "__torch__.torch.nn.modules.container"));
	ck_assert_ptr_nonnull(ts_code_file(&o.t, "__torch__.torch.nn.modules.activation"));
	c = code_of(&o.t, "code/__torch__.py");
	check_span(span_of(c, "torch.add("), "tree-add", 1);
	check_span(span_of(c, "torch.mul("), "tree-scale", 1);
	ck_assert_ptr_null(ts_span_at(c, 0));   /* the class header has no source */
	/* Sequential's code has a .debug_pkl whose records hold no source */
	c = code_of(&o.t, "code/__torch__/torch/nn/modules/container.py");
	ck_assert_int_eq(c->nspan, 0);
	ck_assert_ptr_null(c->no_spans);
	ck_assert_int_eq(o.t.ntraced, _i == 0 ? 0 : 1);
	if (_i > 0)
		ck_assert_int_eq(o.t.traced[0].sizes[1], 4);
	done(&o);
}
END_TEST

/* scripted.pt and inline.pt: the same module, the debug records with and
 * without a string table. */
static void
check_scripted(int v, const char *name)
{
	Opened o;
	const PyObj *l, *tab;
	const TsCode *c;
	const TsSpan *s;

	open_fixture(&o, v, name);
	check_class(o.t.root, "__torch__", "Scripted");
	ck_assert_int_eq(attr(o.t.root, "alpha")->kind, PY_FLOAT);
	ck_assert_double_eq(attr(o.t.root, "alpha")->f, 0.25);
	ck_assert_str_eq(attr(o.t.root, "name")->s, "scripted");
	l = attr(o.t.root, "sizes");    /* restore_type_tag([1, 2, 3], "List[int]") unwrapped */
	ck_assert_int_eq(l->kind, PY_LIST);
	ck_assert_int_eq(l->n, 3);
	ck_assert_int_eq(l->items[2]->i, 3);
	tab = attr(o.t.root, "table");
	ck_assert_int_eq(tab->kind, PY_DICT);
	ck_assert_int_eq(py_dict_get(tab, "b")->i, 2);
	check_tensor(attr(o.t.root, "bias"), DT_FLOAT32, 1, (int64_t[]){3});
	ck_assert_int_eq(o.t.ncode, 1);
	c = code_of(&o.t, "code/__torch__.py");
	ck_assert_msg(strstr(c->text, "k : Final[int] = 2") != NULL, "%s", c->text);
	s = span_of(c, "torch.mul(x, alpha)");
	check_span(s, "scripted-first", 0);
	ck_assert_ptr_eq(ts_span_at(c, s->start), s);
	ck_assert(s->end > s->start);
	ck_assert(s->end == (uint32_t)c->len || ts_span_at(c, s->end) != s);
	for (int i = 1; i < c->nspan; i++)
		ck_assert_uint_ge(c->spans[i].start, c->spans[i - 1].end);
	/* `if bool(x.sum() > 0)` is the next line */
	ck_assert_int_eq(span_of(c, "if bool(")->line, s->line + 1);
	done(&o);
}

START_TEST(scripted)
{
	check_scripted(_i, "scripted");
}
END_TEST

START_TEST(inline_text)
{
	check_scripted(_i, "inline");
}
END_TEST

START_TEST(frozen)
{
	Opened o;
	const TsCode *c;
	const TensorData *t;

	open_fixture(&o, _i, "frozen");
	check_class(o.t.root, "__torch__.___torch_mangle_", "ConvBn");
	ck_assert_int_eq(o.t.root->state->n, 0);     /* frozen: no attributes left */
	ck_assert_int_eq(o.t.constants->n, 4);       /* conv (bn folded in) and fc weights */
	t = check_tensor(o.t.constants->items[0], DT_FLOAT32, 4, (int64_t[]){2, 1, 1, 1});
	ck_assert_str_eq(t->entry, "frozen/constants/0");
	check_tensor(o.t.constants->items[2], DT_FLOAT32, 2, (int64_t[]){2, 2});
	ck_assert_int_eq(o.t.ncode, 1);
	c = ts_code_file(&o.t, o.t.root->func->s);
	ck_assert_ptr_nonnull(c);
	ck_assert_msg(strstr(c->text, "CONSTANTS.c0") != NULL, "%s", c->text);
	check_span(span_of(c, "torch.mean("), "frozen-fc", 0);
	done(&o);
}
END_TEST

/* An operator whose meaning changed (gelu): format 10 in .data/version. */
START_TEST(versioned)
{
	Opened o;

	open_fixture(&o, _i, "versioned");
	ck_assert_int_eq(o.t.format, 10);
	ck_assert_msg(strstr(o.t.producer, "format 10 in '.data/version' (aten::gelu") != NULL, "%s",
	              o.t.producer);
	ck_assert_msg(strstr(o.t.producer, "extra files: meta.txt") != NULL, "%s", o.t.producer);
	check_class(o.t.root, "__torch__", "Gelu");
	ck_assert_msg(strstr(o.t.code[0].text, "gelu") != NULL, "%s", o.t.code[0].text);
	done(&o);
}
END_TEST

START_TEST(truncated)
{
	Opened o;
	char path[256];

	snprintf(path, sizeof path, "test/models/jit-unit/torch-%s/truncated.pt", versions[_i]);
	open_path(&o, path);
	ck_assert_int_eq(o.rc, DIAG_INPUT);
	ck_assert_msg(strstr(test_diag_text(&o.d), path) != NULL, "%s", test_diag_text(&o.d));
	done(&o);
}
END_TEST

START_TEST(unknown_global)
{
	Opened o;
	char path[256], want[512];

	snprintf(path, sizeof path, "test/models/jit-unit/torch-%s/global.pt", versions[_i]);
	open_path(&o, path);
	ck_assert_int_eq(o.rc, DIAG_INPUT);
	snprintf(want, sizeof want, "%s:global/data.pkl: offset 2: GLOBAL: global 'os.system' is not "
	         "one torch.jit.save writes\n", path);
	ck_assert_str_eq(test_diag_text(&o.d), want);
	done(&o);
}
END_TEST

/* ---- made archives ---- */

/* A module object of class __torch__.M with attribute w = tensor data/0 (2 floats). */
static const char module_pkl[] =
	"\x80\x02" "c__torch__\nM\nq\x00)\x81}(X\x01\x00\x00\x00w"
	"ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
	"ctorch\nFloatStorage\nX\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpuK\x02tQK\x00K\x02\x85K\x01\x85\x89"
	"ccollections\nOrderedDict\n)RtRub.";
static const char code_py[] = "class M(Module):\n  w : Tensor\n  def forward(self, x):\n    return x\n";
static const float two[2] = {1.5f, -2.0f};

/* The made archive's entries but the one named skip, and extra ones. */
static void
base(Zb *b, const char *skip)
{
	if (!skip || strcmp(skip, "version"))
		zb_add(b, "m/version", "3\n", 2);
	if (!skip || strcmp(skip, "data.pkl"))
		zb_add(b, "m/data.pkl", module_pkl, sizeof module_pkl - 1);
	if (!skip || strcmp(skip, "code"))
		zb_add(b, "m/code/__torch__.py", code_py, sizeof code_py - 1);
	if (!skip || strcmp(skip, "data/0"))
		zb_add(b, "m/data/0", two, sizeof two);
}

START_TEST(made_ok)
{
	Zb b = {0};
	Opened o;

	base(&b, NULL);
	zb_add(&b, "m/code/__torch__.py.debug_pkl", "garbage", 7);   /* unreadable: no spans, no error */
	zb_add(&b, "m/extra/notes.txt", "hi", 2);
	zb_add(&b, "m/code/__torch__/helper.py", "x = 1\n", 6);
	open_mem(&o, &b);
	ck_assert_msg(o.rc == 0, "%s", test_diag_text(&o.d));
	ck_assert_ptr_null(test_diag_text(&o.d));
	check_class(o.t.root, "__torch__", "M");
	ck_assert_float_eq(f32_at(attr(o.t.root, "w")->tensor, 1), -2.0f);
	ck_assert_ptr_null(o.t.constants);
	ck_assert_int_eq(o.t.ncode, 2);
	ck_assert_str_eq(o.t.code[1].module, "__torch__.helper");
	ck_assert_int_eq(o.t.code[0].nspan, 0);
	ck_assert_str_eq(o.t.code[0].no_spans, "made.pt:m/code/__torch__.py.debug_pkl: offset 0: GET: "
	                 "truncated argument: no end of line");
	ck_assert_ptr_null(ts_span_at(&o.t.code[0], 3));
	ck_assert_str_eq(o.t.code[1].no_spans, "no .debug_pkl");
	ck_assert_int_eq(o.t.ntraced, 0);
	ck_assert_msg(strstr(o.t.producer, "extra files: notes.txt") != NULL, "%s", o.t.producer);
	ck_assert_msg(strstr(o.t.producer, "torch 2.x") == NULL, "%s", o.t.producer);
	done(&o);
}
END_TEST

/* Each fault: what to leave out or add, and the message. */
static void
made_fault(const char *skip, const char *name, const void *data, size_t size, const char *want)
{
	Zb b = {0};
	Opened o;
	const char *text;

	base(&b, skip);
	if (name)
		zb_add(&b, name, data, size);
	open_mem(&o, &b);
	text = test_diag_text(&o.d);
	ck_assert_int_eq(o.rc, DIAG_INPUT);
	ck_assert_msg(text && strstr(text, want), "got %s, want %s", text, want);
	done(&o);
}

START_TEST(made_faults)
{
	static const char nul_py[] = "class N(Module):\n\0";
	static const char bad_utf8[] = "x = '\xff'\n";
	static const char evil[] = "\x80\x02" "cbuiltins\neval\nX\x01\x00\x00\x00" "1\x85R.";
	static const char bad_tag[] = "\x80\x02" "ctorch.jit._pickle\nrestore_type_tag\n]\x85R.";
	static const char legacy[] = "\x80\x02" "c__main__\nTensorID\nK\x00\x85R.";

	made_fault("data.pkl", NULL, NULL, 0, "made.pt: no data.pkl (the module tree)");
	made_fault("data.pkl", "m/model.json", "{}", 2, "a model.json archive (torch 1.0 to 1.2)");
	made_fault("version", NULL, NULL, 0, "made.pt: no version record");
	made_fault("version", "m/version", "3x", 2, "made.pt:m/version: the version record is not a number");
	made_fault("version", "m/.data/version", "11\n", 3, "made.pt:m/.data/version: TorchScript format 11 is "
	           "not one torch 1.x or 2.x writes (1 to 10)");
	made_fault(NULL, "m/byteorder", "big", 3, "made.pt:m/byteorder: tensor data of byte order 'big'");
	made_fault(NULL, "m/code/__torch__/n.py", nul_py, sizeof nul_py - 1,
	           "made.pt:m/code/__torch__/n.py: the code holds a NUL byte");
	made_fault(NULL, "m/code/__torch__/u.py", bad_utf8, sizeof bad_utf8 - 1,
	           "made.pt:m/code/__torch__/u.py: the code holds bytes that are not UTF-8");
	made_fault("data/0", NULL, NULL, 0, "missing entry 'm/data/0' for a tensor storage");
	made_fault(NULL, "m/constants.pkl", evil, sizeof evil - 1,
	           "made.pt:m/constants.pkl: offset 2: GLOBAL: global 'builtins.eval' is not one torch.jit.save writes");
	made_fault(NULL, "m/constants.pkl", bad_tag, sizeof bad_tag - 1,
	           "torch.jit._pickle.restore_type_tag: expects (value, type string)");
	made_fault(NULL, "m/constants.pkl", legacy, sizeof legacy - 1, "a pre-zip archive (torch 1.0 to 1.2)");
	made_fault("code", "m/code/__torch__/other.py", code_py, sizeof code_py - 1,
	           "made.pt: data.pkl's module class __torch__.M has no code file (code/__torch__.py)");
	made_fault(NULL, "m/constants.pkl", "\x80\x02K\x01.", 5, "made.pt:m/constants.pkl: constants.pkl holds no tuple");
}
END_TEST

START_TEST(made_not_module)
{
	static const char list_pkl[] = "\x80\x02]q\x00.";
	Zb b = {0};
	Opened o;

	zb_add(&b, "m/version", "3", 1);
	zb_add(&b, "m/data.pkl", list_pkl, sizeof list_pkl - 1);
	zb_add(&b, "m/code/__torch__.py", code_py, sizeof code_py - 1);
	open_mem(&o, &b);
	ck_assert_int_eq(o.rc, DIAG_INPUT);
	ck_assert_str_eq(test_diag_text(&o.d), "made.pt:m/data.pkl: the top object is not a TorchScript module "
	                 "(a __torch__ class instance)\n");
	done(&o);
}
END_TEST

START_TEST(sniff)
{
	Zb b = {0};
	Opened o;

	zb_add(&b, "archive/data.pkl", "\x80\x02N.", 4);    /* a torch.save file: no code/ */
	zb_add(&b, "archive/data/0", two, sizeof two);
	open_mem(&o, &b);
	ck_assert(!ts_sniff(&o.z));
	done(&o);
}
END_TEST

/* torch.jit.save cut short (a transformers Bloom model: its GeLUFunction
 * cannot be exported): data.pkl of __torch__ classes and no code/.  It is
 * a TorchScript archive, refused as one, not "a torch.save file". */
START_TEST(sniff_cut_short)
{
	made_fault("code", NULL, NULL, 0, "made.pt: a TorchScript archive without code (no code/ records): "
	           "torch.jit.save stopped after data.pkl");
	{
		Zb b = {0};
		Opened o;
		base(&b, "code");
		open_mem(&o, &b);
		ck_assert(ts_sniff(&o.z));
		done(&o);
	}
}
END_TEST

/* The older record layouts, as Python pickles them (protocol 2): the
 * records alone, text inline, as (offset, range) pairs and as (offset,
 * tag, range); the source is "def f(x):\n  y = x + 1\n  return y\n" of
 * /u/m.py from line 7, the ranges `y = x + 1` and `return y`. */
static const char pairs_pkl[] =
	"\x80\x02\x4b\x00\x58\x21\x00\x00\x00\x64\x65\x66\x20\x66\x28\x78"
	"\x29\x3a\x0a\x20\x20\x79\x20\x3d\x20\x78\x20\x2b\x20\x31\x0a\x20"
	"\x20\x72\x65\x74\x75\x72\x6e\x20\x79\x0a\x71\x00\x58\x07\x00\x00"
	"\x00\x2f\x75\x2f\x6d\x2e\x70\x79\x71\x01\x4b\x07\x87\x71\x02\x4b"
	"\x0c\x4b\x15\x87\x71\x03\x86\x71\x04\x4b\x14\x68\x02\x4b\x1a\x4b"
	"\x20\x87\x71\x05\x86\x71\x06\x86\x71\x07\x2e";
static const char tagged_pkl[] =
	"\x80\x02\x4b\x00\x4b\x03\x58\x21\x00\x00\x00\x64\x65\x66\x20\x66"
	"\x28\x78\x29\x3a\x0a\x20\x20\x79\x20\x3d\x20\x78\x20\x2b\x20\x31"
	"\x0a\x20\x20\x72\x65\x74\x75\x72\x6e\x20\x79\x0a\x71\x00\x58\x07"
	"\x00\x00\x00\x2f\x75\x2f\x6d\x2e\x70\x79\x71\x01\x4b\x07\x87\x71"
	"\x02\x4b\x0c\x4b\x15\x87\x71\x03\x87\x71\x04\x4b\x14\x4a\xff\xff"
	"\xff\xff\x68\x02\x4b\x1a\x4b\x20\x87\x71\x05\x87\x71\x06\x86\x71"
	"\x07\x2e";

static void
check_old_layout(const char *pkl, size_t len)
{
	Zb b = {0};
	Opened o;
	const TsCode *c;

	base(&b, NULL);
	zb_add(&b, "m/code/__torch__.py.debug_pkl", pkl, len);
	open_mem(&o, &b);
	ck_assert_msg(o.rc == 0, "%s", test_diag_text(&o.d));
	c = &o.t.code[0];
	ck_assert_msg(c->nspan == 2, "%d spans: %s", c->nspan, c->no_spans);
	ck_assert_uint_eq(c->spans[0].start, 0);
	ck_assert_uint_eq(c->spans[0].end, 20);
	ck_assert_str_eq(c->spans[0].file, "/u/m.py");
	ck_assert_int_eq(c->spans[0].line, 8);
	ck_assert_str_eq(c->spans[0].src, "y = x + 1");
	ck_assert_uint_eq(c->spans[1].end, c->len);
	ck_assert_int_eq(c->spans[1].line, 9);
	ck_assert_str_eq(c->spans[1].src, "return y");
	ck_assert_ptr_eq(ts_span_at(c, 25), &c->spans[1]);
	done(&o);
}

START_TEST(old_layouts)
{
	Zb b = {0};
	Opened o;

	check_old_layout(pairs_pkl, sizeof pairs_pkl - 1);
	check_old_layout(tagged_pkl, sizeof tagged_pkl - 1);
	/* a pickle, but not of records */
	base(&b, NULL);
	zb_add(&b, "m/code/__torch__.py.debug_pkl", "\x80\x02N.", 4);
	open_mem(&o, &b);
	ck_assert_int_eq(o.rc, 0);
	ck_assert_str_eq(o.t.code[0].no_spans, "made.pt:m/code/__torch__.py.debug_pkl: not the source-range "
	                 "records torch writes");
	done(&o);
}
END_TEST

/* ts_span_at over hand-made spans, gaps between them included. */
START_TEST(span_lookup)
{
	TsSpan sp[3] = {
		{.start = 2, .end = 5, .file = "a", .line = 1},
		{.start = 5, .end = 9, .file = "a", .line = 2},
		{.start = 12, .end = 13, .file = "a", .line = 3},
	};
	TsCode c = {.rel = "code/x.py", .text = "", .nspan = 3, .spans = sp};
	static const int want[14] = {-1, -1, 0, 0, 0, 1, 1, 1, 1, -1, -1, -1, 2, -1};

	for (uint32_t i = 0; i < 14; i++) {
		const TsSpan *s = ts_span_at(&c, i);
		ck_assert_msg(want[i] < 0 ? s == NULL : s == &sp[want[i]], "offset %u", i);
	}
	c.nspan = 0;
	ck_assert_ptr_null(ts_span_at(&c, 0));
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("tsarchive");
	TCase *tc = tcase_create("archives");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, linear, 0, NVERSION);
	tcase_add_loop_test(tc, tree, 0, NVERSION);
	tcase_add_loop_test(tc, scripted, 0, NVERSION);
	tcase_add_loop_test(tc, inline_text, 0, NVERSION);
	tcase_add_loop_test(tc, frozen, 0, NVERSION);
	tcase_add_loop_test(tc, versioned, 0, NVERSION);
	tcase_add_loop_test(tc, truncated, 0, NVERSION);
	tcase_add_loop_test(tc, unknown_global, 0, NVERSION);
	tcase_add_test(tc, made_ok);
	tcase_add_test(tc, made_faults);
	tcase_add_test(tc, made_not_module);
	tcase_add_test(tc, sniff);
	tcase_add_test(tc, sniff_cut_short);
	tcase_add_test(tc, old_layouts);
	tcase_add_test(tc, span_lookup);
	suite_add_tcase(s, tc);
	return s;
}
