/* The formulas of trig.h, sine with cosine and atan2, written once over a
 * lane type: trig.h includes this file once for four lanes (sincos4,
 * atan2_4) and once for two (sincos2, atan2_2, which its scalar calls
 * take), naming the type, the lane primitives of lanes.h and the
 * functions' names before each inclusion. Every lane performs the same IEEE
 * operations on its own operands, a branch is a select between values
 * computed exactly, so a lane's value does not depend on the width or on
 * its neighbours. No include guard: it is meant to be included again. */

/* TRIG_W lanes of type TRIG_V, masks (and 64-bit integers) of type TRIG_M,
 * and TRIG_SPLAT, TRIG_SEL, TRIG_PICK, TRIG_KEEP, TRIG_LT, TRIG_GT,
 * TRIG_ABS from lanes.h, all defined by the includer. TRIG_PICK is the
 * select of atan2's rare cases (an axis, the origin, NaN, |y| > |x|, x < 0):
 * a branch where the width holds one value, a select otherwise. */
#if !defined(TRIG_W) || !defined(TRIG_V) || !defined(TRIG_M) || !defined(TRIG_SINCOS) ||           \
    !defined(TRIG_ATAN2) || !defined(TRIG_PICK)
#error "trig_lanes.h is included by trig.h, which names the lane type first"
#endif

/* The AVX instructions that take the place of conversions AVX lacks, for
 * four lanes compiled for AVX. */
#if TRIG_W == 4 && defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
#define TRIG_AVX4 1
#else
#define TRIG_AVX4 0
#endif
/* The conversions by their intrinsics, which GCC and clang both define (as
 * the same instructions GCC's builtins name; clang lacks some of those
 * builtins). SSE2 is part of x86-64. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* sin(x) and cos(x) lane by lane, for finite |x| <= PDK_TRIG_MAX_ARG within
 * about one ulp (tests/unit/test_single_track.c compares with libm); any
 * other x, NaN and infinities included, gives NaN or an inaccurate value,
 * never undefined behaviour. Cody-Waite reduction by the nearest multiple k
 * of pi/2, then the Taylor series of sin and cos on |y| <= pi/4 in Horner
 * form: the first omitted terms are below x^17/17! = 4.6e-17 (sin) and
 * x^18/18! = 2e-18 (cos) at pi/4, under half an ulp (the reduction: Cody
 * and Waite, Software Manual for the Elementary Functions, 1980). */
VEC void TRIG_SINCOS(TRIG_V x, TRIG_V *sin_out, TRIG_V *cos_out)
{
    /* Adding and subtracting 1.5 * 2^52 rounds to an integer in IEEE
     * round-to-nearest (sim never changes the rounding mode), without a
     * branch on the sign. */
    TRIG_V t = x * TRIG_SPLAT(PDK_TRIG_TWO_OVER_PI);
    TRIG_V k = (t + TRIG_SPLAT(PDK_TRIG_ROUND_MAGIC)) - TRIG_SPLAT(PDK_TRIG_ROUND_MAGIC);
    /* Converting a NaN or a huge k to an integer is undefined; such a lane
     * takes quadrant 0, as its y is NaN or inaccurate anyway. */
    TRIG_M in_range = TRIG_GT(k, TRIG_SPLAT(-4.0e15)) & TRIG_LT(k, TRIG_SPLAT(4.0e15));
#if TRIG_AVX4
    /* AVX has no conversion to 64-bit integers: n mod 4 as a double,
     * n - 4 floor(n / 4), each step exact for an integer n of this range;
     * the same quadrant as n & 3. */
    TRIG_V nd = TRIG_KEEP(in_range, k);
    typedef int32_t trig_quadrant __attribute__((vector_size(4 * sizeof(int32_t))));
    TRIG_V qd = nd - TRIG_SPLAT(4.0) * (TRIG_V)_mm256_round_pd((__m256d)(nd * TRIG_SPLAT(0.25)),
                                                               _MM_FROUND_TO_NEG_INF);
    TRIG_M q = __builtin_convertvector((trig_quadrant)_mm256_cvttpd_epi32((__m256d)qd), TRIG_M);
#else
    TRIG_M q = __builtin_convertvector(TRIG_KEEP(in_range, k), TRIG_M) & 3;
#endif
    TRIG_V y = (x - k * TRIG_SPLAT(PDK_TRIG_PIO2_HI)) - k * TRIG_SPLAT(PDK_TRIG_PIO2_LO);
    TRIG_V z = y * y;
    TRIG_V p = TRIG_SPLAT(-1.0 / 1307674368000.0);
    p = TRIG_SPLAT(1.0 / 6227020800.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 39916800.0) + z * p;
    p = TRIG_SPLAT(1.0 / 362880.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 5040.0) + z * p;
    p = TRIG_SPLAT(1.0 / 120.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 6.0) + z * p;
    TRIG_V s = y + y * z * p;
    p = TRIG_SPLAT(1.0 / 20922789888000.0);
    p = TRIG_SPLAT(-1.0 / 87178291200.0) + z * p;
    p = TRIG_SPLAT(1.0 / 479001600.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 3628800.0) + z * p;
    p = TRIG_SPLAT(1.0 / 40320.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 720.0) + z * p;
    p = TRIG_SPLAT(1.0 / 24.0) + z * p;
    TRIG_V c = TRIG_SPLAT(1.0) - (TRIG_SPLAT(0.5) * z - z * z * p);
    /* Quadrant q = n mod 4: sin takes the cosine kernel in odd quadrants
     * and flips in quadrants 2 and 3, cos flips in 1 and 2; multiplying by
     * +-1 is exact. The masks and signs are integer adds, ands and shifts,
     * which SSE2 has for 64-bit lanes: the odd lanes' mask is -(q & 1), and
     * bit 1 of q (of q + 1) moved to the sign bit of 1.0 makes -1.0. */
    typedef uint64_t trig_bits __attribute__((vector_size(TRIG_W * sizeof(uint64_t))));
    const trig_bits one_bits = (trig_bits)TRIG_SPLAT(1.0);
    trig_bits uq = (trig_bits)q;
    TRIG_M odd = (TRIG_M)(-(uq & 1u));
    TRIG_V sin_flip = (TRIG_V)(one_bits | ((uq & 2u) << 62));
    TRIG_V cos_flip = (TRIG_V)(one_bits | (((uq + 1u) & 2u) << 62));
    *sin_out = TRIG_SEL(odd, c, s) * sin_flip;
    *cos_out = TRIG_SEL(odd, s, c) * cos_flip;
}

/* atan2(y, x) lane by lane, within about two ulp of the exact value and
 * with C's signs and quadrants (atan2(+-0, +0) = +-0, atan2(+-inf, +-inf) =
 * +-pi/4 or +-3pi/4); NaN (PDK_TRIG_NAN) when either argument is NaN. The
 * ratio t in [0, 1] is reduced by the nearest k/8, atan(t) = atan(k/8) +
 * atan((t - k/8) / (1 + t k/8)), leaving |u| <= 1/16, where the Taylor
 * series to u^13 is exact to 5e-20. No argument can take the table index
 * out of 0..8. */
VEC TRIG_V TRIG_ATAN2(TRIG_V y, TRIG_V x)
{
    const TRIG_V zero = TRIG_SPLAT(0.0);
    TRIG_M nan_in = ~((TRIG_M)(x == x) & (TRIG_M)(y == y));
    TRIG_V ax = TRIG_ABS(x);
    TRIG_V ay = TRIG_ABS(y);
    TRIG_M at_origin = (TRIG_M)(ay == zero) & (TRIG_M)(ax == zero);
    TRIG_M swap = TRIG_GT(ay, ax);
    /* At the origin t would be 0/0; 0 keeps the table index in range, and
     * the lane's result is replaced below. NaN lanes get t = 1 (their
     * result is replaced too), both-infinite lanes t = 1, atan(1). */
    TRIG_V t = TRIG_PICK(at_origin, zero,
                         TRIG_PICK(swap, ax, ay) /
                             TRIG_PICK(swap, ay, TRIG_PICK(at_origin, TRIG_SPLAT(1.0), ax)));
    t = TRIG_PICK((TRIG_M)(t == t), t, TRIG_SPLAT(1.0));
    TRIG_V t8 = t * TRIG_SPLAT(8.0) + TRIG_SPLAT(0.5);
    t8 = TRIG_PICK(TRIG_LT(t8, TRIG_SPLAT(8.5)), t8, TRIG_SPLAT(8.5)); /* guards the index */
    /* k = (int)t8, 0..8, and c = k / 8: on x86-64 one truncation of the
     * lanes to 32-bit integers and one conversion back (SSE2 and AVX have
     * no 64-bit ones), the same values. */
#if TRIG_AVX4
    typedef int32_t trig_index __attribute__((vector_size(4 * sizeof(int32_t))));
    trig_index k = (trig_index)_mm256_cvttpd_epi32((__m256d)t8);
    TRIG_V c = (TRIG_V)_mm256_cvtepi32_pd((__m128i)k) * TRIG_SPLAT(0.125);
#elif TRIG_W == 2 && defined(__x86_64__) && defined(__GNUC__)
    typedef int32_t trig_index __attribute__((vector_size(4 * sizeof(int32_t))));
    trig_index k = (trig_index)_mm_cvttpd_epi32((__m128d)t8);
    TRIG_V c = (TRIG_V)_mm_cvtepi32_pd((__m128i)k) * TRIG_SPLAT(0.125);
#else
    TRIG_M k = __builtin_convertvector(t8, TRIG_M);
    TRIG_V c = __builtin_convertvector(k, TRIG_V) * TRIG_SPLAT(0.125);
#endif
    TRIG_V base;
    for (int l = 0; l < TRIG_W; l++) {
        base[l] = pdk_trig_atan_table[k[l]];
    }
    TRIG_V u = (t - c) / (TRIG_SPLAT(1.0) + t * c);
    TRIG_V z = u * u;
    TRIG_V p = TRIG_SPLAT(1.0 / 13.0);
    p = TRIG_SPLAT(-1.0 / 11.0) + z * p;
    p = TRIG_SPLAT(1.0 / 9.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 7.0) + z * p;
    p = TRIG_SPLAT(1.0 / 5.0) + z * p;
    p = TRIG_SPLAT(-1.0 / 3.0) + z * p;
    TRIG_V r = base + (u + u * z * p);
    r = TRIG_PICK(swap, (TRIG_SPLAT(PDK_TRIG_PIO2_D) - r) + TRIG_SPLAT(PDK_TRIG_PIO2_D_LO), r);
    TRIG_M x_negative = (TRIG_M)x >> 63;
    r = TRIG_PICK(x_negative, (TRIG_SPLAT(PDK_TRIG_PI_D) - r) + TRIG_SPLAT(PDK_TRIG_PI_D_LO), r);
    r = TRIG_PICK(at_origin, TRIG_KEEP(x_negative, TRIG_SPLAT(PDK_TRIG_PI_D)), r);
    r = (TRIG_V)((TRIG_M)r ^ ((TRIG_M)y & INT64_MIN)); /* the sign of y */
    return TRIG_PICK(nan_in, TRIG_SPLAT(PDK_TRIG_NAN), r);
}

#undef TRIG_AVX4
#undef TRIG_W
#undef TRIG_V
#undef TRIG_M
#undef TRIG_SPLAT
#undef TRIG_SEL
#undef TRIG_PICK
#undef TRIG_KEEP
#undef TRIG_LT
#undef TRIG_GT
#undef TRIG_ABS
#undef TRIG_SINCOS
#undef TRIG_ATAN2
