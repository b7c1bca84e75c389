/* Four-wide double vectors for the simulation's per-wheel arithmetic: one
 * wheel (or one tyre, one vehicle) per lane, lane-wise selects and masks,
 * and pdk_trig_atan2 lane by lane. Everything is static and always inlined,
 * so that a file compiled for AVX (four_wheel_avx.c, where __AVX__ is
 * defined and a few primitives take AVX instructions) compiles all of it
 * for AVX; the results are the same bits on every processor.
 * four_wheel_lanes.h (the four-wheel step's own helpers), vmath.h (the
 * deterministic elementary functions) and tyre_lanes.h (the tyre laws)
 * build on it. */
#ifndef PDK_LANES_H
#define PDK_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math/trig.h"

#define PDK_LANES 4

/* The substep works on the four wheels at once, one wheel per lane of a
 * four-wide vector (GCC vector extensions, which the compiler maps to
 * whatever the processor has: two SSE2 halves, one AVX register, or
 * scalar code). Every lane performs the IEEE operations of the scalar
 * formula on its wheel's operands, a branch becomes a select between
 * values computed exactly, and the four wheels' sums are taken in a fixed
 * order, so the result is the same on every processor. Rare cases
 * (kinematic curves, a solid axle's camber, a large camber, a ray over a
 * bump) are computed per wheel by scalar code and put back in their lane. */
#if defined(__GNUC__)
/* The vectors pass between static functions only, so the ABI note GCC and
 * Clang give for 32-byte vectors without AVX concerns no caller. */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double v4 __attribute__((vector_size(4 * sizeof(double))));
/* Everything that handles vectors is inlined into its caller, so that the
 * AVX build of the step (pdk_fw_step) compiles all of it for AVX. */
#define VEC static inline __attribute__((always_inline))
typedef int64_t m4 __attribute__((vector_size(4 * sizeof(int64_t)))); /* lane masks: 0 or -1 */

VEC v4 splat(double x)
{
    return (v4){x, x, x, x};
}

/* The four entries of a double[4], wherever it is aligned. */
VEC v4 load4(const double *a)
{
    v4 v;
    memcpy(&v, a, sizeof v);
    return v;
}

VEC void store4(double *a, v4 v)
{
    memcpy(a, &v, sizeof v);
}

VEC m4 load_mask(const int64_t *a)
{
    m4 m;
    memcpy(&m, a, sizeof m);
    return m;
}

/* m ? p : q lane by lane: exact, as it only moves bits. Compiled for AVX
 * (four_wheel_avx.c), one vblendvpd, which takes each lane by its mask's
 * sign bit: the same bits for masks of 0 and -1. */
VEC v4 sel(m4 m, v4 p, v4 q)
{
#if defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_blendvpd256(q, p, (v4)m);
#else
    return (v4)(((m4)p & m) | ((m4)q & ~m));
#endif
}

/* m ? p : 0. */
VEC v4 keep(m4 m, v4 p)
{
    return (v4)((m4)p & m);
}

/* The IEEE comparisons (false where an operand is NaN). */
VEC m4 lt4(v4 p, v4 q)
{
    return (m4)(p < q);
}

VEC m4 gt4(v4 p, v4 q)
{
    return (m4)(p > q);
}

VEC m4 ge4(v4 p, v4 q)
{
    return (m4)(p >= q);
}

/* max2 lane by lane: p > q ? p : q. */
VEC v4 max4(v4 p, v4 q)
{
    return sel(gt4(p, q), p, q);
}

VEC v4 abs4(v4 x)
{
    return (v4)((m4)x & INT64_MAX);
}

/* Each axle's other wheel: lanes FL FR RL RR -> FR FL RR RL. */
VEC v4 other4(v4 v)
{
    return (v4){v[1], v[0], v[3], v[2]};
}

/* sqrt lane by lane: the correctly rounded IEEE square root in every lane,
 * as sqrt gives it (NaN below zero), two lanes to an instruction on x86-64
 * (SSE2, which the baseline has), four compiled for AVX, and without
 * sqrt's errno check. */
VEC v4 sqrt4(v4 x)
{
#if defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_sqrtpd256(x);
#elif defined(__x86_64__) && defined(__GNUC__)
    typedef double v2 __attribute__((vector_size(2 * sizeof(double))));
    v2 lo = __builtin_ia32_sqrtpd((v2){x[0], x[1]});
    v2 hi = __builtin_ia32_sqrtpd((v2){x[2], x[3]});
    return (v4){lo[0], lo[1], hi[0], hi[1]};
#else
    return (v4){sqrt(x[0]), sqrt(x[1]), sqrt(x[2]), sqrt(x[3])};
#endif
}

/* The lanes whose mask is set, as bits 0..3. */
VEC uint32_t bits4(m4 m)
{
    return (m[0] != 0 ? 1u : 0u) | (m[1] != 0 ? 2u : 0u) | (m[2] != 0 ? 4u : 0u) |
           (m[3] != 0 ? 8u : 0u);
}

/* Whether any lane of m is set: the halves folded, then the two lanes. */
VEC int any4(m4 m)
{
    m4 t = m | (m4){m[2], m[3], m[0], m[1]};
    return (t[0] | t[1]) != 0;
}

/* pdk_trig_sincos (trig.h) lane by lane, step for step, so that each lane
 * is bit for bit the scalar function's sine and cosine. */
VEC void sincos4(v4 x, v4 *sin_out, v4 *cos_out)
{
    typedef int64_t i4 __attribute__((vector_size(4 * sizeof(int64_t))));
    v4 t = x * splat(PDK_TRIG_TWO_OVER_PI);
    v4 k = (t + splat(PDK_TRIG_ROUND_MAGIC)) - splat(PDK_TRIG_ROUND_MAGIC);
    /* The quadrant's integer where the scalar code converts it, 0 where it
     * does not (NaN, or beyond its range). */
    m4 in_range = gt4(k, splat(-4.0e15)) & lt4(k, splat(4.0e15));
#if defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
    /* Compiled for AVX, which has no conversion to 64-bit integers: n mod 4
     * as a double, n - 4 floor(n / 4), each step exact for an integer n of
     * this range; the same quadrant as n & 3. */
    v4 nd = keep(in_range, k);
    v4 qd = nd - splat(4.0) * __builtin_ia32_roundpd256(nd * splat(0.25), 1);
    i4 q = __builtin_convertvector(__builtin_ia32_cvttpd2dq256(qd), i4);
#else
    i4 n = __builtin_convertvector(keep(in_range, k), i4);
#endif
    v4 y = (x - k * splat(PDK_TRIG_PIO2_HI)) - k * splat(PDK_TRIG_PIO2_LO);
    v4 z = y * y;
    v4 p = splat(-1.0 / 1307674368000.0);
    p = splat(1.0 / 6227020800.0) + z * p;
    p = splat(-1.0 / 39916800.0) + z * p;
    p = splat(1.0 / 362880.0) + z * p;
    p = splat(-1.0 / 5040.0) + z * p;
    p = splat(1.0 / 120.0) + z * p;
    p = splat(-1.0 / 6.0) + z * p;
    v4 s = y + y * z * p;
    p = splat(1.0 / 20922789888000.0);
    p = splat(-1.0 / 87178291200.0) + z * p;
    p = splat(1.0 / 479001600.0) + z * p;
    p = splat(-1.0 / 3628800.0) + z * p;
    p = splat(1.0 / 40320.0) + z * p;
    p = splat(-1.0 / 720.0) + z * p;
    p = splat(1.0 / 24.0) + z * p;
    v4 c = splat(1.0) - (splat(0.5) * z - z * z * p);
    /* Quadrant q = n mod 4: sin takes the cosine kernel in odd quadrants
     * and flips in quadrants 2 and 3, cos flips in 1 and 2. */
#if !(defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__))
    i4 q = n & 3;
#endif
    m4 odd = (m4)((q & 1) != 0);
    m4 sin_flip = (m4)((q >> 1) != 0);
    m4 cos_flip = (m4)((((q + 1) >> 1) & 1) != 0);
    *sin_out = sel(odd, c, s) * sel(sin_flip, splat(-1.0), splat(1.0));
    *cos_out = sel(odd, s, c) * sel(cos_flip, splat(-1.0), splat(1.0));
}

/* pdk_trig_atan2 (trig.h) lane by lane, step for step, so that each lane
 * is bit for bit the scalar function's value. */
VEC v4 atan2_4(v4 y, v4 x)
{
    const v4 zero = splat(0.0);
    m4 nan_in = ~((m4)(x == x) & (m4)(y == y));
    v4 ax = abs4(x);
    v4 ay = abs4(y);
    m4 at_origin = (m4)(ay == zero) & (m4)(ax == zero);
    m4 swap = gt4(ay, ax);
    /* At the origin t would be 0/0; 0 keeps the table index in range, and
     * the lane's result is replaced below. NaN lanes get t = 1 (their
     * result is replaced too), both-infinite lanes t = 1 as in the scalar
     * code. */
    v4 t = sel(at_origin, zero, sel(swap, ax, ay) / sel(swap, ay, sel(at_origin, splat(1.0), ax)));
    t = sel((m4)(t == t), t, splat(1.0));
    v4 t8 = t * splat(8.0) + splat(0.5);
    t8 = sel(lt4(t8, splat(8.5)), t8, splat(8.5));
    /* k = (int)t8, 0..8, and c = k / 8: compiled for AVX, one truncation to
     * four 32-bit integers and one conversion back (AVX has no 64-bit
     * one), the same values. */
#if defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
    typedef int32_t i4s __attribute__((vector_size(4 * sizeof(int32_t))));
    i4s k = __builtin_ia32_cvttpd2dq256(t8);
    v4 c = __builtin_ia32_cvtdq2pd256(k) * splat(0.125);
#else
    typedef int64_t i4 __attribute__((vector_size(4 * sizeof(int64_t))));
    i4 k = __builtin_convertvector(t8, i4);
    v4 c = __builtin_convertvector(k, v4) * splat(0.125);
#endif
    v4 base = {pdk_trig_atan_table[k[0]], pdk_trig_atan_table[k[1]], pdk_trig_atan_table[k[2]],
               pdk_trig_atan_table[k[3]]};
    v4 u = (t - c) / (splat(1.0) + t * c);
    v4 z = u * u;
    v4 p = splat(1.0 / 13.0);
    p = splat(-1.0 / 11.0) + z * p;
    p = splat(1.0 / 9.0) + z * p;
    p = splat(-1.0 / 7.0) + z * p;
    p = splat(1.0 / 5.0) + z * p;
    p = splat(-1.0 / 3.0) + z * p;
    v4 r = base + (u + u * z * p);
    r = sel(swap, (splat(PDK_TRIG_PIO2_D) - r) + splat(PDK_TRIG_PIO2_D_LO), r);
    m4 x_negative = (m4)x >> 63;
    r = sel(x_negative, (splat(PDK_TRIG_PI_D) - r) + splat(PDK_TRIG_PI_D_LO), r);
    r = sel(at_origin, keep(x_negative, splat(PDK_TRIG_PI_D)), r);
    r = (v4)((m4)r ^ ((m4)y & INT64_MIN)); /* the sign of y */
    return sel(nan_in, splat(PDK_TRIG_NAN), r);
}

#endif
