/* test_dtype.c: the element codec (core.h: dtype_decode_f64 and co.) over
 * every dtype of dtype.def: round trips, every bit pattern of the 16- and
 * 8-bit floats, NaN and infinity, subnormals, rounding to nearest even,
 * integer widths and saturation. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "testutil.h"

static const DType all[] = {
#define X(e, code, c10, name, size, onnx, oname, kind) e,
#include "core/dtype.def"
#undef X
};
#define NALL ((int)(sizeof all / sizeof all[0]))

/* the bits an encode wrote, little-endian */
static uint32_t
bits_of(DType t, double x)
{
	uint8_t b[16] = {0};
	uint32_t u = 0;

	ck_assert_int_eq(dtype_encode_f64(t, b, x), 0);
	for (int i = dtype_size(t) > 4 ? 3 : dtype_size(t) - 1; i >= 0; i--)
		u = u << 8 | b[i];
	return u;
}

static double
value_of(DType t, uint32_t bits)
{
	uint8_t b[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16), (uint8_t)(bits >> 24)};
	return dtype_decode_f64(t, b);
}

START_TEST(every_dtype_round_trips)
{
	for (int k = 0; k < NALL; k++) {
		DType t = all[k];
		uint8_t b[17];

		/* unaligned on purpose */
		ck_assert_msg(dtype_encode_f64(t, b + 1, 2) == 0, "%s", dtype_name(t));
		ck_assert_msg(dtype_decode_f64(t, b + 1) == (t == DT_BOOL ? 1 : 2), "%s", dtype_name(t));
		ck_assert_msg(dtype_decode_i64(t, b + 1) == (t == DT_BOOL ? 1 : 2), "%s", dtype_name(t));
		ck_assert_int_eq(dtype_encode_i64(t, b + 1, 4), 0);
		ck_assert_msg(dtype_decode_i64(t, b + 1) == (t == DT_BOOL ? 1 : 4), "%s", dtype_name(t));
		if (dtype_kind(t) == DK_COMPLEX) {   /* the imaginary part is 0 */
			DType part = dtype_complex_part(t);
			ck_assert(dtype_decode_f64(part, b + 1 + dtype_size(part)) == 0);
		}
		if (t != DT_BOOL && t != DT_FLOAT8E8M0FNU && (dtype_kind(t) != DK_INT || strncmp(dtype_name(t), "uint", 4))) {
			ck_assert_int_eq(dtype_encode_f64(t, b, -3), 0);
			ck_assert_msg(dtype_decode_f64(t, b) == -3, "%s", dtype_name(t));
		}
	}
	uint8_t b[8];
	ck_assert_int_eq(dtype_encode_f64(DT_UNKNOWN, b, 1), -1);
	ck_assert(dtype_decode_f64(DT_UNKNOWN, b) == 0);
}
END_TEST

/* Every pattern of a 16- or 8-bit float decodes and encodes back to itself
 * (NaN to a NaN); the value order matches the bit order. */
START_TEST(every_small_float_pattern)
{
	static const DType small[] = {DT_FLOAT16, DT_BFLOAT16, DT_FLOAT8E4M3FN, DT_FLOAT8E5M2,
	                              DT_FLOAT8E4M3FNUZ, DT_FLOAT8E5M2FNUZ, DT_FLOAT8E8M0FNU};
	for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
		DType t = small[k];
		uint32_t n = dtype_size(t) == 2 ? 65536 : 256, nnan = 0;
		double prev = -INFINITY;
		for (uint32_t u = 0; u < n; u++) {
			double v = value_of(t, u);
			if (isnan(v)) {
				nnan++;
				ck_assert_msg(isnan(value_of(t, bits_of(t, v))), "%s %#x", dtype_name(t), u);
				continue;
			}
			ck_assert_msg(bits_of(t, v) == u, "%s %#x -> %g -> %#x", dtype_name(t), u, v, bits_of(t, v));
			/* positives ascend with their bits */
			if (u < n / 2 || t == DT_FLOAT8E8M0FNU) {
				ck_assert_msg(v > prev, "%s %#x", dtype_name(t), u);
				prev = v;
			}
		}
		if (t == DT_FLOAT8E4M3FN || t == DT_FLOAT8E4M3FNUZ || t == DT_FLOAT8E5M2FNUZ ||
		    t == DT_FLOAT8E8M0FNU)
			ck_assert_msg(nnan == (t == DT_FLOAT8E4M3FN ? 2u : 1u), "%s: %u NaNs", dtype_name(t), nnan);
	}
}
END_TEST

START_TEST(float_specials_and_ranges)
{
	/* float16 */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, 65504), 0x7bff);
	ck_assert_uint_eq(bits_of(DT_FLOAT16, 65519.99), 0x7bff);
	ck_assert_uint_eq(bits_of(DT_FLOAT16, 65520), 0x7c00);    /* the tie goes up, to infinity */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, -1e10), 0xfc00);
	ck_assert_uint_eq(bits_of(DT_FLOAT16, INFINITY), 0x7c00);
	ck_assert(isnan(value_of(DT_FLOAT16, bits_of(DT_FLOAT16, NAN))));
	ck_assert_uint_eq(bits_of(DT_FLOAT16, -0.0), 0x8000);
	ck_assert(value_of(DT_FLOAT16, 0x0001) == ldexp(1, -24));  /* the smallest subnormal */
	ck_assert(value_of(DT_FLOAT16, 0x03ff) == ldexp(1023, -24));
	ck_assert_uint_eq(bits_of(DT_FLOAT16, ldexp(1, -25)), 0x0000);    /* a tie: to even, 0 */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, ldexp(3, -26)), 0x0001);    /* above the half */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, ldexp(3, -25)), 0x0002);    /* a tie between 1 and 2: 2 */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, ldexp(2047, -25)), 0x0400); /* carries into the smallest normal */
	/* bfloat16 */
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, 1), 0x3f80);
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, 1 + ldexp(1, -8)), 0x3f80);      /* tie: even */
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, 1 + ldexp(3, -8)), 0x3f82);      /* tie: even, up */
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, 1 + ldexp(1, -8) + ldexp(1, -30)), 0x3f81);
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, -2), 0xc000);
	ck_assert_uint_eq(bits_of(DT_BFLOAT16, 1e39), 0x7f80);
	ck_assert(value_of(DT_BFLOAT16, 0x0001) == ldexp(1, -133));
	ck_assert(isinf(value_of(DT_BFLOAT16, 0xff80)) && value_of(DT_BFLOAT16, 0xff80) < 0);
	/* no double rounding: just above a float16 tie, though float32 would round onto it */
	ck_assert_uint_eq(bits_of(DT_FLOAT16, 1 + ldexp(1, -11) + ldexp(1, -40)), 0x3c01);
	/* float32 and float64 */
	ck_assert(isinf(dtype_decode_f64(DT_FLOAT32, &(float){INFINITY})));
	{
		uint8_t b[8];
		dtype_encode_f64(DT_FLOAT32, b, 1e39);
		ck_assert(isinf(dtype_decode_f64(DT_FLOAT32, b)));
		dtype_encode_f64(DT_FLOAT32, b, -1e39);
		ck_assert(dtype_decode_f64(DT_FLOAT32, b) == -INFINITY);
		dtype_encode_f64(DT_FLOAT32, b, 3.4028235e38);
		ck_assert(dtype_decode_f64(DT_FLOAT32, b) == (double)FLT_MAX);
		dtype_encode_f64(DT_FLOAT32, b, ldexp(1, -149));
		ck_assert(dtype_decode_f64(DT_FLOAT32, b) == ldexp(1, -149));
		dtype_encode_f64(DT_FLOAT64, b, NAN);
		ck_assert(isnan(dtype_decode_f64(DT_FLOAT64, b)));
		dtype_encode_f64(DT_FLOAT64, b, 0.1);
		ck_assert(dtype_decode_f64(DT_FLOAT64, b) == 0.1);
	}
	/* float8: the largest finite, and past it infinity or NaN */
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FN, 448), 0x7e);
	ck_assert(isnan(value_of(DT_FLOAT8E4M3FN, bits_of(DT_FLOAT8E4M3FN, 500))));
	ck_assert(isnan(value_of(DT_FLOAT8E4M3FN, bits_of(DT_FLOAT8E4M3FN, INFINITY))));
	ck_assert(value_of(DT_FLOAT8E4M3FN, 0x01) == ldexp(1, -9));
	ck_assert_uint_eq(bits_of(DT_FLOAT8E5M2, 57344), 0x7b);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E5M2, 1e6), 0x7c);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E5M2, -INFINITY), 0xfc);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FNUZ, 240), 0x7f);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FNUZ, -0.0), 0x00);        /* no negative zero */
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FNUZ, -ldexp(1, -20)), 0x00);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FNUZ, NAN), 0x80);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E4M3FNUZ, 1000), 0x80);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E5M2FNUZ, 57344), 0x7f);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E5M2FNUZ, -1), 0xc0);
	/* float8_e8m0fnu: powers of two, ties to the even exponent code */
	ck_assert_uint_eq(bits_of(DT_FLOAT8E8M0FNU, 1), 127);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E8M0FNU, 3), 128);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E8M0FNU, 6), 130);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E8M0FNU, 1.6), 128);
	ck_assert_uint_eq(bits_of(DT_FLOAT8E8M0FNU, -1), 0xff);
	ck_assert(isnan(value_of(DT_FLOAT8E8M0FNU, 0xff)));
	ck_assert(value_of(DT_FLOAT8E8M0FNU, 0) == ldexp(1, -127));
}
END_TEST

START_TEST(integers)
{
	uint8_t b[8];

	dtype_encode_f64(DT_INT8, b, 200);                  /* wrapped to the width */
	ck_assert_int_eq(dtype_decode_i64(DT_INT8, b), -56);
	dtype_encode_i64(DT_UINT8, b, -1);
	ck_assert_int_eq(dtype_decode_i64(DT_UINT8, b), 255);
	dtype_encode_f64(DT_INT32, b, -1.7);                /* toward zero */
	ck_assert_int_eq(dtype_decode_i64(DT_INT32, b), -1);
	dtype_encode_f64(DT_INT64, b, 1e300);               /* saturated */
	ck_assert_int_eq(dtype_decode_i64(DT_INT64, b), INT64_MAX);
	dtype_encode_f64(DT_INT64, b, -INFINITY);
	ck_assert_int_eq(dtype_decode_i64(DT_INT64, b), INT64_MIN);
	dtype_encode_f64(DT_INT64, b, NAN);
	ck_assert_int_eq(dtype_decode_i64(DT_INT64, b), 0);
	dtype_encode_i64(DT_INT64, b, INT64_MAX - 1);       /* exact, past 2^53 */
	ck_assert_int_eq(dtype_decode_i64(DT_INT64, b), INT64_MAX - 1);
	dtype_encode_f64(DT_UINT64, b, ldexp(1, 63));
	ck_assert_uint_eq(b[7], 0x80);
	ck_assert(dtype_decode_f64(DT_UINT64, b) == ldexp(1, 63));
	ck_assert_int_eq(dtype_decode_i64(DT_UINT64, b), INT64_MIN);   /* wraps */
	dtype_encode_f64(DT_UINT64, b, 1e30);
	ck_assert(dtype_decode_f64(DT_UINT64, b) == ldexp(1, 64));       /* UINT64_MAX, rounded */
	dtype_encode_i64(DT_UINT32, b, 0xffffffffLL);
	ck_assert(dtype_decode_f64(DT_UINT32, b) == 4294967295.0);
	dtype_encode_i64(DT_INT16, b, -32768);
	ck_assert_int_eq(dtype_decode_i64(DT_INT16, b), -32768);
	dtype_encode_i64(DT_UINT16, b, 65535);
	ck_assert_int_eq(dtype_decode_i64(DT_UINT16, b), 65535);
	dtype_encode_f64(DT_FLOAT32, b, 1e30);              /* float to int64: saturated */
	ck_assert_int_eq(dtype_decode_i64(DT_FLOAT32, b), INT64_MAX);
	dtype_encode_f64(DT_FLOAT16, b, -2.5);
	ck_assert_int_eq(dtype_decode_i64(DT_FLOAT16, b), -2);
	/* bool: anything not zero is true; any nonzero byte reads as 1 */
	dtype_encode_f64(DT_BOOL, b, 0.5);
	ck_assert_uint_eq(b[0], 1);
	dtype_encode_f64(DT_BOOL, b, NAN);
	ck_assert_uint_eq(b[0], 1);
	dtype_encode_i64(DT_BOOL, b, 0);
	ck_assert_uint_eq(b[0], 0);
	b[0] = 7;
	ck_assert(dtype_decode_f64(DT_BOOL, b) == 1);
}
END_TEST

START_TEST(arrays)
{
	double in[5] = {1, -0.5, 65504, 1e-8, NAN}, out[5];
	uint8_t b[48];          /* 5 float64 elements after one byte of offset */

	for (int k = 0; k < NALL; k++) {
		DType t = all[k];
		if (dtype_kind(t) != DK_FLOAT)
			continue;
		dtype_encode_array(t, b + 1, 5, in);
		dtype_decode_array(t, b + 1, 5, out);
		for (int i = 0; i < 4; i++)
			ck_assert_msg(fabs(out[i] - in[i]) <= fabs(in[i]) * ldexp(1, -8) + (t == DT_FLOAT16 ? ldexp(1, -24) : 0),
			              "%s [%d] %g", dtype_name(t), i, out[i]);
		ck_assert(isnan(out[4]));
	}
}
END_TEST

static Suite *
make_suite(void)
{
	Suite *s = suite_create("dtype");
	TCase *tc = tcase_create("codec");
	tcase_add_test(tc, every_dtype_round_trips);
	tcase_add_test(tc, every_small_float_pattern);
	tcase_add_test(tc, float_specials_and_ranges);
	tcase_add_test(tc, integers);
	tcase_add_test(tc, arrays);
	suite_add_tcase(s, tc);
	return s;
}
