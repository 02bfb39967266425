/* test_ops.c: the op table (the ops/ .def files, through ops/all.def).
 *
 * Every row names an ATen overload of the form "ns.op.overload", has a
 * lowering, an opset range within the options' and sensible flags; the
 * rows of one name have adjacent ranges and are found by ops_find_opset();
 * each row's variant agrees with its name, which no lowering reads any
 * more; and docs/ops.md is what `make docs` would write now. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "pipeline/pipeline.h"
#include "lower/ops/ops.h"
#include "testutil.h"

/* A name has one row, or one per opset range when its lowering emits an
 * ONNX operator from some opset on: then the rows are adjacent in the
 * table, their ranges follow each other without a gap or an overlap, all
 * but the last are the OPV_FORMULA of the operator's opsets before, and
 * they share the lowering and flags. */
START_TEST(test_names_and_ranges)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i], *next = i + 1 < OP_COUNT ? &op_table[i + 1] : NULL;
		int same = next && strcmp(r->aten, next->aten) == 0;
		for (int j = i + 1; j < OP_COUNT; j++)
			ck_assert_msg(strcmp(r->aten, op_table[j].aten) != 0 || strcmp(op_table[j - 1].aten, r->aten) == 0,
			              "'%s' has rows apart from each other", r->aten);
		ck_assert_msg(same == (r->variant == OPV_FORMULA), "'%s' (opsets %d-%d): %s", r->aten,
		              r->opset_min, r->opset_max, same ? "a row followed by another of its name must be "
		              "its OPV_FORMULA" : "an OPV_FORMULA row needs the row of the ONNX operator after it");
		if (!same)
			continue;
		ck_assert_msg(next->opset_min == r->opset_max + 1, "'%s': opsets %d-%d then %d-%d", r->aten,
		              r->opset_min, r->opset_max, next->opset_min, next->opset_max);
		ck_assert_msg(next->fn == r->fn && next->flags == r->flags && next->sp == r->sp,
		              "'%s': its rows differ in more than the operator and opsets", r->aten);
	}
}
END_TEST

/* Python-level targets have no overload: size arithmetic ("_operator.add",
 * "torch.sym_max", "math.trunc") and higher-order ops ("higher_order.cond"). */
static int
is_python_target(const char *name)
{
	static const char *const ns[] = {"_operator.", "torch.", "math.", "higher_order."};

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		if (strncmp(name, ns[i], strlen(ns[i])) == 0)
			return 1;
	return 0;
}

/* The module of the functions torch.vmap leaves in a training IR graph. */
#define PREDISPATCH "torch._functorch.predispatch."

START_TEST(test_rows_well_formed)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		const char *dot1 = strchr(r->aten, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
		if (strncmp(r->aten, PREDISPATCH, strlen(PREDISPATCH)) == 0)   /* the vmap markers */
			ck_assert_msg(r->aten[strlen(PREDISPATCH)] && !strchr(r->aten + strlen(PREDISPATCH), '.'),
			              "'%s' is not " PREDISPATCH "function", r->aten);
		else if (is_python_target(r->aten))
			ck_assert_msg(dot1 && !dot2 && dot1[1], "'%s' is not namespace.function", r->aten);
		else
			ck_assert_msg(dot1 && dot2 && !strchr(dot2 + 1, '.') && dot2[1],
			              "'%s' is not namespace.op.overload", r->aten);
		ck_assert_msg(r->fn != NULL, "'%s' has no lowering", r->aten);
		ck_assert_msg(strncmp(r->fn_name, "lower_", 6) == 0, "'%s': lowering '%s' lacks the lower_ prefix",
		              r->aten, r->fn_name);
		ck_assert_msg(r->onnx != NULL && r->family != NULL, "'%s': missing column", r->aten);
		ck_assert_msg(r->opset_min >= OPTIONS_OPSET_MIN && r->opset_min <= r->opset_max &&
		              r->opset_max <= OPTIONS_OPSET_MAX, "'%s': opsets %d-%d outside %d-%d", r->aten,
		              r->opset_min, r->opset_max, OPTIONS_OPSET_MIN, OPTIONS_OPSET_MAX);
		ck_assert_msg((r->variant & OPV_SP) == 0 && r->variant >= 0 && r->variant <= OPV_FORMULA &&
		              r->sp >= 0 && r->sp <= 3 && r->variant_name[0], "'%s': bad variant %s", r->aten,
		              r->variant_name);
		ck_assert_msg((r->flags & ~(OPF_VIEW | OPF_INPLACE | OPF_INT18 | OPF_COMPLEX)) == 0 &&
		              (r->flags & (OPF_VIEW | OPF_INPLACE)) != (OPF_VIEW | OPF_INPLACE),
		              "'%s': bad flags %d", r->aten, r->flags);
	}
}
END_TEST

/* ATen's in-place overloads end in '_'; they must be flagged so the driver
 * writes the result back into self (detach_ writes self's own contents). */
START_TEST(test_inplace_rows_flagged)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		const char *op = strchr(r->aten, '.') + 1;
		const char *end = strchr(op, '.');
		if (is_python_target(r->aten))        /* "_operator.and_" is not in-place */
			continue;
		int dunder = op[0] == '_' && op[1] == '_' && end - op > 4 && end[-2] == '_';   /* __and__ */
		int trailing = end[-1] == '_' && !dunder;
		ck_assert_msg(trailing == !!(r->flags & OPF_INPLACE), "'%s': in-place flag %s the name",
		              r->aten, trailing ? "missing for" : "contradicts");
	}
}
END_TEST

/* ops_find() gives a name's first row, ops_find_opset() the row of each
 * opset of its range and none outside its rows' ranges, ops_opsets() the
 * span of them all. */
START_TEST(test_lookup)
{
	int lo, hi;

	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i], *first = ops_find(r->aten);
		int f = i;
		while (f && strcmp(op_table[f - 1].aten, r->aten) == 0)    /* rows of a name are adjacent */
			f--;
		ck_assert_ptr_eq(first, &op_table[f]);
		for (int o = r->opset_min; o <= r->opset_max; o++)
			ck_assert_ptr_eq(ops_find_opset(r->aten, o), r);
		ck_assert_int_eq(ops_opsets(r->aten, &lo, &hi), 0);
		ck_assert_int_eq(lo, first->opset_min);
		ck_assert_ptr_null(ops_find_opset(r->aten, lo - 1));
		ck_assert_ptr_null(ops_find_opset(r->aten, hi + 1));
		ck_assert_ptr_nonnull(ops_find_opset(r->aten, hi));
	}
	ck_assert_ptr_eq(ops_find_opset("aten.gelu.default", 19)->fn, lower_gelu);
	ck_assert_int_eq(ops_find_opset("aten.gelu.default", 19)->variant, OPV_FORMULA);
	ck_assert_str_eq(ops_find_opset("aten.gelu.default", 20)->onnx, "Gelu");
	/* the operators of opsets 24 and 26 */
	ck_assert_str_eq(ops_find_opset("aten.silu.default", 23)->onnx, "Sigmoid");
	ck_assert_str_eq(ops_find_opset("aten.silu.default", 24)->onnx, "Swish");
	ck_assert_str_eq(ops_find_opset("aten.cumprod.default", 25)->onnx, "Mul");
	ck_assert_str_eq(ops_find_opset("aten.cumprod.default", 26)->onnx, "CumProd");
	ck_assert_ptr_null(ops_find_opset("aten.view.dtype", 25));
	ck_assert_str_eq(ops_find_opset("aten.view.dtype", 26)->onnx, "BitCast");
	ck_assert_int_eq(ops_find_opset("aten.view.dtype", ONNX_OPSET_NEWEST)->opset_max, ONNX_OPSET_NEWEST);
	ck_assert_ptr_null(ops_find("aten.no_such_op.default"));
	ck_assert_ptr_null(ops_find(""));
	ck_assert_ptr_null(ops_find("aten.relu"));
	ck_assert_ptr_null(ops_find_opset("aten.relu", 18));
	ck_assert_int_eq(ops_opsets("aten.relu", &lo, &hi), -1);
}
END_TEST

/* What each variant stands for in the names of its lowering's rows: a row
 * of `fn` whose name contains `pattern` has `variant` (the longest pattern
 * it contains decides), the other rows of `fn` have variant 0.  These are
 * the name tests the lowerings made before the table had the column. */
static const struct {
	LowerFn fn;
	int variant;
	const char *pattern;
} name_variants[] = {
	{lower_hardtanh, OPV_RELU6, "relu6"},
	{lower_elu, OPV_SELU, ".selu."},
	{lower_elu, OPV_CELU, ".celu."},
	{lower_shrink, OPV_SOFT, "softshrink"},
	{lower_conv, OPV_TRANSPOSED, "conv_transpose"},
	{lower_trilu, OPV_UPPER, ".triu."},
	{lower_binary, OPV_REVERSED, ".rsub."},
	{lower_trunc, OPV_FRAC, ".frac."},
	{lower_isnan, OPV_FINITE, ".isfinite."},
	{lower_fmod, OPV_PYTHON, ".remainder."},
	{lower_scatter, OPV_ADD, ".scatter_add."},
	{lower_scatter, OPV_ADD, ".scatter_add_."},
	{lower_index_add, OPV_ADD, ".index_add."},
	{lower_topk, OPV_INDICES, ".argsort."},
	{lower_upsample, OPV_NEAREST, "nearest"},
	{lower_upsample, OPV_NEAREST_EXACT, "nearest_exact"},
	{lower_upsample, OPV_CUBIC, "bicubic"},
	{lower_upsample, OPV_AA, "bilinear2d_aa"},
	{lower_upsample, OPV_CUBIC_AA, "bicubic2d_aa"},
	{lower_var_mean, OPV_STD, ".std."},
	{lower_arg_reduce, OPV_MAX, "max"},
	{lower_adaptive_pool, OPV_MAX, "max"},
	{lower_split, OPV_UNBIND, ".unbind."},
	{lower_constrain_range, OPV_FOR_SIZE, "_for_size"},
	{lower_compare, OPV_NOT, ".ne."},
	{lower_sym_compare, OPV_NOT, ".ne"},
	{lower_real, OPV_IMAG, ".imag."},
	{lower_complex, OPV_POLAR, ".polar."},
	{lower_fft, OPV_IFFT, ".fft_ifft."},
	{lower_fft, OPV_RFFT, ".fft_rfft."},
	{lower_fft, OPV_IRFFT, ".fft_irfft."},
	{lower_fft, OPV_HFFT, ".fft_hfft."},
	{lower_fft, OPV_IHFFT, ".fft_ihfft."},
	{lower_fft2, OPV_IFFT, ".fft_ifft2."},
	{lower_fft2, OPV_RFFT, ".fft_rfft2."},
	{lower_fft2, OPV_IRFFT, ".fft_irfft2."},
	{lower_fftn, OPV_IFFT, ".fft_ifftn."},
	{lower_fftn, OPV_RFFT, ".fft_rfftn."},
	{lower_fftn, OPV_IRFFT, ".fft_irfftn."},
	{lower_fft_core, OPV_RFFT, "._fft_r2c."},
	{lower_fft_core, OPV_IRFFT, "._fft_c2r."},
	{lower_fftshift, OPV_IFFT, ".fft_ifftshift."},
	{lower_fftfreq, OPV_RFFT, ".fft_rfftfreq."},
	{lower_median, OPV_NAN, ".nanmedian."},
	{lower_quantile, OPV_NAN, ".nanquantile."},
	{lower_cumext, OPV_MAX, "max"},
};

/* The lowerings that read the spatial rank (OpRow.sp). */
static const LowerFn sp_readers[] = {lower_max_pool, lower_avg_pool, lower_adaptive_pool, lower_upsample};

/* The spatial rank the op part of a name states ("max_pool3d" -> 3), else 0. */
static int
name_sp(const char *aten)
{
	const char *op = strchr(aten, '.') + 1, *end = strchr(op, '.');

	for (const char *p = op; end && p + 1 < end; p++)
		if (p[0] >= '1' && p[0] <= '3' && p[1] == 'd')
			return p[0] - '0';
	return 0;
}

START_TEST(test_variants_match_names)
{
	const size_t nv = sizeof name_variants / sizeof name_variants[0];

	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		int want = 0, reads_sp = 0;
		const char *why = "no pattern";
		size_t best = 0;
		for (size_t k = 0; k < nv; k++)
			if (name_variants[k].fn == r->fn && strstr(r->aten, name_variants[k].pattern) &&
			    strlen(name_variants[k].pattern) > best) {
				want = name_variants[k].variant;
				why = name_variants[k].pattern;
				best = strlen(why);
			}
		if (r->variant == OPV_FORMULA)      /* checked by test_names_and_ranges */
			want = OPV_FORMULA;
		ck_assert_msg(r->variant == want, "'%s' (%s): variant %s, its name (%s) says %d", r->aten, r->fn_name,
		              r->variant_name, why, want);
		for (size_t k = 0; k < sizeof sp_readers / sizeof sp_readers[0]; k++)
			reads_sp |= sp_readers[k] == r->fn;
		ck_assert_msg(r->sp == (reads_sp ? name_sp(r->aten) : 0), "'%s' (%s): spatial rank %d, %s %d",
		              r->aten, r->fn_name, r->sp, reads_sp ? "its name says" : "its lowering reads none:",
		              reads_sp ? name_sp(r->aten) : 0);
		ck_assert_msg(!reads_sp || r->sp, "'%s' (%s): no spatial rank", r->aten, r->fn_name);
	}
	/* every entry above names a lowering some row has (no stale pattern) */
	for (size_t k = 0; k < nv; k++) {
		int used = 0;
		for (int i = 0; i < OP_COUNT; i++)
			used |= op_table[i].fn == name_variants[k].fn;
		ck_assert_msg(used, "name_variants[%zu] ('%s') names no row's lowering", k, name_variants[k].pattern);
	}
}
END_TEST

/* No lowering tests its own op name any more (the variant column says what
 * it did): none of these appears in the .c files of ops/ or in lib/lower/. */
START_TEST(test_no_name_comparisons)
{
	static const char *const banned[] = {
		"strcmp(n->op", "strncmp(n->op", "strstr(n->op", "strchr(n->op", "strrchr(n->op",
		"strcmp(row->aten", "strncmp(row->aten", "strstr(row->aten", "strchr(row->aten",
	};
	glob_t gl;
	int nfiles = 0;

	ck_assert_int_eq(glob("lib/lower/ops/*.c", 0, NULL, &gl), 0);
	ck_assert_int_eq(glob("lib/lower/*.c", GLOB_APPEND, NULL, &gl), 0);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		size_t len;
		char *text = test_slurp(gl.gl_pathv[i], &len);
		ck_assert_msg(text != NULL, "cannot read %s", gl.gl_pathv[i]);
		for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++) {
			const char *hit = strstr(text, banned[k]);
			int line = 1;
			for (const char *p = text; hit && p < hit; p++)
				line += *p == '\n';
			ck_assert_msg(!hit, "%s:%d: `%s...`: read the row's variant instead of the op name",
			              gl.gl_pathv[i], line, banned[k]);
		}
		free(text);
		nfiles++;
	}
	globfree(&gl);
	ck_assert_int_ge(nfiles, 17);      /* ops/ has 16 lowering files and ops.c, lib/lower/ its own */
}
END_TEST

/* The ops every first-coverage fixture needs (mlp, cnn, attention, inplace,
 * dtypes, in training IR and core ATen) stay in the table. */
START_TEST(test_fixture_ops_present)
{
	static const char *const need[] = {
		"aten.linear.default", "aten.conv2d.default", "aten.batch_norm.default", "aten.softmax.int",
		"aten.scaled_dot_product_attention.default", "aten.layer_norm.default", "aten.gelu.default",
		"aten.view.default", "aten.reshape.default", "aten.transpose.int", "aten.permute.default",
		"aten.flatten.using_ints", "aten.add_.Tensor", "aten.mul_.Tensor", "aten.masked_fill_.Scalar",
		"aten.index_put_.default", "aten.copy_.default", "aten.addmm.default", "aten.convolution.default",
		"aten._native_batch_norm_legit_no_training.default",
		"aten._native_batch_norm_legit_functional.default", "aten._softmax.default",
		"aten.max_pool2d_with_indices.default", "aten.mean.dim", "aten.var_mean.correction",
		"aten.rsqrt.default", "aten.expand.default", "aten.clone.default", "aten._to_copy.default",
		"aten.native_layer_norm.default", "aten.bmm.default", "aten.where.self", "aten.full.default",
		"aten.arange.start_step", "aten.any.dim", "aten._assert_tensor_metadata.default",
	};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		ck_assert_msg(ops_find(need[i]) != NULL, "'%s' has no row", need[i]);
}
END_TEST

/* The ops whose torch result is partly open (open.def) say what they give
 * there: every note names an op of the table, and every row of a lowering
 * that sorts (lower_topk: ties), skips rows (lower_grouped_mm) or makes
 * uninitialized tensors (lower_zeros on an empty*) has a note. */
START_TEST(test_open_rows_noted)
{
	int n = 0;

	for (const char *a; (a = ops_open_name(n)); n++) {
		ck_assert_msg(ops_find(a) != NULL, "open.def: '%s' has no row", a);
		ck_assert_msg(strlen(ops_open_note(a)) > 40, "open.def: '%s' says too little", a);
	}
	ck_assert_int_ge(n, 8);
	for (int i = 0; i < OP_COUNT; i++) {
		const OpRow *r = &op_table[i];
		int open = strcmp(r->fn_name, "lower_topk") == 0 || strcmp(r->fn_name, "lower_grouped_mm") == 0 ||
		           (strcmp(r->fn_name, "lower_zeros") == 0 && strstr(r->aten, "empty"));
		ck_assert_msg(!open || ops_open_note(r->aten), "'%s' (%s) leaves part of torch's result open: "
		              "say in lib/lower/ops/open.def what it gives there", r->aten, r->fn_name);
	}
}
END_TEST

START_TEST(test_docs_up_to_date)
{
	free(test_doc_current(ops_write_doc, "docs/ops.md"));
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_names_and_ranges);
	tcase_add_test(tc, test_rows_well_formed);
	tcase_add_test(tc, test_inplace_rows_flagged);
	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_variants_match_names);
	tcase_add_test(tc, test_no_name_comparisons);
	tcase_add_test(tc, test_fixture_ops_present);
	tcase_add_test(tc, test_open_rows_noted);
	tcase_add_test(tc, test_docs_up_to_date);
	suite_add_tcase(s, tc);
	return s;
}
