/* ops.c: the op table built from ops/all.def, its lookup index and
 * docs/ops.md.  The index is an array of row numbers sorted by name, then
 * by opset range, searched with bsearch; it is built on first use and
 * never changes after.  The rows of one name sit together in it, lowest
 * opsets first. */
#include "ops.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "onnx/onnx.h"

/* The OPSET_MAX of a row no later row replaces (ops.h). */
#define NEWEST ONNX_OPSET_NEWEST

const OpRow op_table[OP_COUNT] = {
#define OP(aten, fn, onnx, variant, opset_min, opset_max, flags) \
	{aten, fn, #fn, onnx, (variant) & ~OPV_SP, (variant) & OPV_SP, #variant, opset_min, opset_max, flags, OPS_FAMILY},
#include "all.def"
#undef OP
};

static_assert(sizeof op_table / sizeof op_table[0] == OP_COUNT, "one table entry per .def row");
static_assert(OP_COUNT > 0, "the op table is empty");

static const struct {
	const char *aten;
	LowerFn fn;
	const char *fn_name;
} complex_table[] = {
#define CX(aten, fn) {aten, fn, #fn},
#include "complex.def"
#undef CX
};

enum { CX_COUNT = sizeof complex_table / sizeof complex_table[0] };

static const struct {
	const char *aten;
	const char *note;
} open_table[] = {
#define OPEN(aten, note) {aten, note},
#include "open.def"
#undef OPEN
};

enum { OPEN_COUNT = sizeof open_table / sizeof open_table[0] };

const char *
ops_open_note(const char *aten)
{
	for (int i = 0; i < OPEN_COUNT; i++)   /* a few rows: a scan */
		if (strcmp(open_table[i].aten, aten) == 0)
			return open_table[i].note;
	return NULL;
}

const char *
ops_open_name(int i)
{
	return i >= 0 && i < OPEN_COUNT ? open_table[i].aten : NULL;
}

LowerFn
ops_find_complex(const char *aten)
{
	char canon[256];

	aten = ir_alias(aten, canon, sizeof canon);
	for (int i = 0; i < CX_COUNT; i++)     /* a few rows: a scan */
		if (strcmp(complex_table[i].aten, aten) == 0)
			return complex_table[i].fn;
	return NULL;
}

static int sorted[OP_COUNT];
static int nsorted;

static int
cmp_rows(const void *a, const void *b)
{
	const OpRow *x = &op_table[*(const int *)a], *y = &op_table[*(const int *)b];
	int d = strcmp(x->aten, y->aten);

	return d ? d : x->opset_min - y->opset_min;
}

static int
cmp_key(const void *key, const void *row)
{
	return strcmp(key, op_table[*(const int *)row].aten);
}

/* The index position of aten's first row, or -1. */
static int
first_of(const char *aten)
{
	const int *hit;
	int k;

	if (!nsorted) {
		for (int i = 0; i < OP_COUNT; i++)
			sorted[i] = i;
		qsort(sorted, OP_COUNT, sizeof sorted[0], cmp_rows);
		nsorted = OP_COUNT;
	}
	hit = bsearch(aten, sorted, OP_COUNT, sizeof sorted[0], cmp_key);
	if (!hit)
		return -1;
	for (k = (int)(hit - sorted); k > 0 && strcmp(op_table[sorted[k - 1]].aten, aten) == 0; k--)
		;
	return k;
}

/* The lookups below take an alias by its op (lib/ir/alias.def): it has no row of its own. */
const OpRow *
ops_find(const char *aten)
{
	char canon[256];
	int k = first_of(aten = ir_alias(aten, canon, sizeof canon));

	return k < 0 ? NULL : &op_table[sorted[k]];
}

const OpRow *
ops_find_opset(const char *aten, int opset)
{
	char canon[256];
	int k = first_of(aten = ir_alias(aten, canon, sizeof canon));

	for (; k >= 0 && k < OP_COUNT && strcmp(op_table[sorted[k]].aten, aten) == 0; k++)
		if (op_table[sorted[k]].opset_min <= opset && opset <= op_table[sorted[k]].opset_max)
			return &op_table[sorted[k]];
	return NULL;
}

int
ops_opsets(const char *aten, int *lo, int *hi)
{
	char canon[256];
	int k = first_of(aten = ir_alias(aten, canon, sizeof canon));

	if (k < 0)
		return -1;
	*lo = op_table[sorted[k]].opset_min;
	for (*hi = 0; k < OP_COUNT && strcmp(op_table[sorted[k]].aten, aten) == 0; k++)
		if (op_table[sorted[k]].opset_max > *hi)
			*hi = op_table[sorted[k]].opset_max;
	return 0;
}

/* Writes a row's VARIANT column as the docs show it: "2D + MAX" for
 * OPV_2D | OPV_MAX, nothing for 0. */
static void
write_variant(FILE *f, const char *v)
{
	if (strcmp(v, "0") == 0)
		return;
	for (; *v; v++) {
		if (strncmp(v, "OPV_", 4) == 0)
			v += 3;
		else if (*v == '|')
			fputc('+', f);
		else
			fputc(*v, f);
	}
}

/* The ATen base name of a row ("add_" of aten.add_.Tensor) into buf; 0
 * for a row outside the aten namespace. */
static int
base_name(const char *aten, char *buf, size_t size, int inplace_too)
{
	const char *b = strncmp(aten, "aten.", 5) == 0 ? aten + 5 : NULL, *e;
	size_t n;

	if (!b)
		return 0;
	e = strchr(b, '.');
	n = e ? (size_t)(e - b) : strlen(b);
	if (!inplace_too && n > 1 && b[n - 1] == '_' && b[n - 2] != '_')
		n--;
	snprintf(buf, size, "%.*s", (int)n, b);
	return 1;
}

/* How many distinct ATen base names the rows hold (in-place forms apart,
 * or folded into their function when !inplace_too). */
static int
count_base_names(int inplace_too)
{
	int n = 0;

	for (int i = 0; i < OP_COUNT; i++) {
		char a[128], b[128];
		int seen = 0;
		if (!base_name(op_table[i].aten, a, sizeof a, inplace_too))
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = base_name(op_table[k].aten, b, sizeof b, inplace_too) && strcmp(a, b) == 0;
		n += !seen;
	}
	return n;
}

/* The leading comment of ops/FAMILY.def, as text: the family's notes (what
 * it covers, how, and what ONNX cannot express).  docs are made from the
 * repository root (make docs), where the file is; elsewhere nothing. */
static void
write_family_notes(FILE *f, const char *family)
{
	char path[256], line[1024];
	FILE *in;
	int open = 0;

	snprintf(path, sizeof path, "lib/lower/ops/%s.def", family);
	if (!(in = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, in)) {
		char *t = line, *end;
		if (!open) {
			if (strncmp(t, "/*", 2) != 0)
				break;
			t += 2;
			open = 1;
		} else {
			while (*t == ' ' || *t == '\t')
				t++;
			if (*t == '*' && t[1] != '/')
				t++;
		}
		if ((end = strstr(t, "*/")))
			*end = 0;
		while (*t == ' ')
			t++;
		fputs(*t ? t : "\n", f);
		if (*t && t[strlen(t) - 1] != '\n')
			fputc('\n', f);
		if (end)
			break;
	}
	fclose(in);
	fputc('\n', f);
}

/* The notes of open.def for the ops of family, after its table: what the
 * lowering writes where torch leaves the result open, and why it matches. */
static void
write_open_notes(FILE *f, const char *family)
{
	int first = 1;

	for (int i = 0; i < OPEN_COUNT; i++) {
		const OpRow *r = ops_find(open_table[i].aten);
		if (!r || strcmp(r->family, family) != 0)
			continue;
		if (first)
			fputs("\nWhere torch leaves the result open (`lib/lower/ops/open.def`):\n\n", f);
		first = 0;
		fprintf(f, "- `%s`: %s\n", open_table[i].aten, open_table[i].note);
	}
}

void
ops_write_doc(FILE *f)
{
	const char *family = NULL;
	int names = 0;

	for (int i = 0; i < OP_COUNT; i++)
		names += ops_find(op_table[i].aten) == &op_table[i];
	fprintf(f, "# Supported ATen operators\n\n"
	        "<!-- Generated from lib/lower/ops/*.def by `make docs`; do not edit. -->\n\n"
	        "%d ATen overloads in %d rows of `lib/lower/ops/<family>.def`: one row each, or one per opset\n"
	        "range where the lowering emits a different operator from some opset on. *ONNX* is\n"
	        "the operator the lowering emits (the main one, for lowerings that emit several);\n"
	        "*opsets* are the target opsets (option `opset`) the row is valid for, the lowest\n"
	        "being the first at which every operator it emits exists (\"17-23; 18 on integers\":\n"
	        "the Bitwise* operators, on integer tensors, need 18); *variant* is what the rows of\n"
	        "one lowering differ in besides the ONNX operator (the spatial rank of a pool, the\n"
	        "reduction, ...; `OPV_*` in `lib/lower/ops/ops.h`). *view*: the result aliases `self`;\n"
	        "*in-place*: the result is written back into `self` (both are functionalized\n"
	        "during lowering, so writes through views reach their base); *open*: torch leaves\n"
	        "part of the result open (uninitialized contents, the order of ties), and the note\n"
	        "under the family's table says what the lowering gives there and why it matches.\n\n"
	        "The rows hold %d distinct ATen base names (`add` of `aten.add.Tensor`; the in-place\n"
	        "`add_` counted apart), %d with the in-place forms folded into their function.\n"
	        "Each family below opens with its notes: what it covers, how, and what ONNX cannot\n"
	        "express (such a node fails with a message saying why and what to do).\n"
	        "How every op fares on torch's own test samples (OpInfo and ModuleInfo, converted and\n"
	        "checked in onnxruntime by `make check`), and why a sample is refused, is\n"
	        "`docs/conformance.md`.\n",
	        names, OP_COUNT, count_base_names(1), count_base_names(0));
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		if (!family || strcmp(family, r->family) != 0) {
			family = r->family;
			fprintf(f, "\n## %s\n\n", family);
			write_family_notes(f, family);
			fprintf(f, "| ATen overload | ONNX | opsets | variant | lowering | kind |\n"
			        "| --- | --- | --- | --- | --- | --- |\n");
		}
		fprintf(f, "| `%s` | %s | %d-%d%s | ", r->aten, r->onnx[0] ? r->onnx : "-", r->opset_min,
		        r->opset_max, r->flags & OPF_INT18 ? "; 18 on integers" : "");
		write_variant(f, r->variant_name);
		fprintf(f, " | `%s` | %s%s |\n", r->fn_name,
		        r->flags & OPF_INPLACE ? "in-place" : r->flags & OPF_VIEW ? "view" : "",
		        ops_open_note(r->aten) && ops_find(r->aten) == r ? " open (below)" : "");
		if (i + 1 == OP_COUNT || strcmp(op_table[i + 1].family, family) != 0)
			write_open_notes(f, family);
	}
	fprintf(f, "\n## complex operands\n\n"
	        "A complex tensor is carried as its (real, imaginary) parts, a trailing dim of 2 of the\n"
	        "part's float type (complex64: float32); a complex model input, output or weight is\n"
	        "such a float tensor in the ONNX model.  The signal rows above take complex tensors;\n"
	        "these overloads of other families lower complex operands through their own lowering\n"
	        "(`lib/lower/ops/complex.def`); any other op on a complex tensor fails with a message.\n\n"
	        "| ATen overload | lowering |\n| --- | --- |\n");
	for (int i = 0; i < CX_COUNT; i++)
		fprintf(f, "| `%s` | `%s` |\n", complex_table[i].aten, complex_table[i].fn_name);
	static const char *const decomp[][2] = {   /* the rows of decomp.def (no call into decomp.c: it uses this file) */
#define DECOMP(aten, into, args, fn) {aten, into},
#include "../decomp.def"
#undef DECOMP
	};
	int ndecomp = (int)(sizeof decomp / sizeof decomp[0]);

	fprintf(f, "\n## decompositions\n\n"
	        "%d overloads without a lowering of their own become nodes of other ATen ops before\n"
	        "lowering (`lib/lower/decomp.def`, `lib/lower/decomp.c`), which then go through the same\n"
	        "lowering, optimizer and report; *into* is the op the result comes from.  A row of the\n"
	        "tables above, where one is written, takes over from its decomposition.\n\n"
	        "| ATen overload | into |\n| --- | --- |\n", ndecomp);
	for (int i = 0; i < ndecomp; i++)
		fprintf(f, "| `%s` | `%s` |\n", decomp[i][0], decomp[i][1]);
	fprintf(f, "\n## aliases\n\n"
	        "Other names of one op (`lib/ir/alias.def`) convert and are typed as that op, whichever\n"
	        "front end read them; a name alone stands for every overload.\n\n"
	        "| alias | op |\n| --- | --- |\n");
	for (int i = 0; i < ir_alias_count(); i++) {
		const char *from, *to;
		ir_alias_row(i, &from, &to);
		fprintf(f, "| `aten.%s` | `aten.%s` |\n", from, to);
	}
	fprintf(f, "\n## legalizations\n\n"
	        "Every model written is checked before it is written (`lib/onnx/legal.c`): each node's\n"
	        "element types must be allowed by its operator's ONNX schema at the target opset and\n"
	        "have an onnxruntime CPU kernel (`lib/onnx/optypes.def`, generated from onnx's schemas\n"
	        "and onnxruntime's kernel list, corrected by probing onnxruntime-node itself).  A node\n"
	        "that fails is a bug of the converter (diagnostic `illegal-node`, nothing written).  So\n"
	        "the lowering asks the same table before writing an operator, and where the operator\n"
	        "does not take its operands' type writes instead what the row of\n"
	        "`lib/lower/ops/legalize.def` says; an operator without a row is refused by name.\n"
	        "*widen*: the operands are cast to the first wider type the operator takes (bool and\n"
	        "small integers to int32, then int64; float16 and bfloat16 to float32, then float64)\n"
	        "and the result back, exact for these operators.\n\n"
	        "| ONNX operator | operand types | written instead |\n| --- | --- | --- |\n");
	for (int i = 0; i < lower_nlegal; i++) {
		const LegalRow *r = &lower_legal_rows[i];
		static const char *const act[] = {"widen", "the operand itself", "Max(x, 0)", "MatMul, Mul, Add",
		                                  "refused"};
		fprintf(f, "| %s | %s%s%s%s%s | %s: %s |\n", r->op, r->kinds & LK_BOOL ? "bool" : "",
		        (r->kinds & LK_BOOL) && (r->kinds & ~LK_BOOL) ? ", " : "", r->kinds & LK_INT ? "integers" : "",
		        (r->kinds & LK_FLOAT) && (r->kinds & ~LK_FLOAT) ? ", " : "", r->kinds & LK_FLOAT ? "floats" : "",
		        act[r->action], r->how);
	}
}
