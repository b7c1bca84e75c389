/* Four-wide double vectors for the simulation's per-wheel arithmetic: one
 * wheel (or one tyre, one vehicle) per lane, lane-wise selects and masks;
 * and the same primitives on two lanes (lane2), for code written once over
 * lanes that also runs on fewer values (trig.h's scalar calls, a lone
 * single-track vehicle). Everything is static and always inlined, so that
 * a file compiled for AVX (four_wheel_avx.c, where __AVX__ is defined and a
 * few primitives take AVX instructions) compiles all of it for AVX; the
 * results are the same bits on every processor. four_wheel_lanes.h (the
 * four-wheel step's own helpers), vmath.h (the deterministic elementary
 * functions), tyre_lanes.h (the tyre laws) and trig.h (sine, cosine and
 * atan2 over lanes) build on it. */
#ifndef PDK_LANES_H
#define PDK_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* Two lanes, one SSE2 register: the same primitives for code written once
 * over lanes that runs on fewer values than four, a single one in lane 0
 * with lane 1 a copy of it (trig.h's scalar calls, a lone single-track
 * vehicle). The processor then takes the instructions of one register
 * instead of two halves or a 256-bit one, and keeps the masks beside the
 * values. Each lane's bits are those of the same operation in a v4 lane. */
typedef double lane2 __attribute__((vector_size(2 * sizeof(double))));
typedef int64_t mask2 __attribute__((vector_size(2 * sizeof(int64_t)))); /* 0 or -1 */

VEC lane2 splat2(double x)
{
    return (lane2){x, x};
}

/* m ? p : q lane by lane; with SSE4.1 (the AVX2 builds have it), one
 * blendvpd, which takes each lane by its mask's sign bit. */
VEC lane2 sel2(mask2 m, lane2 p, lane2 q)
{
#if defined(__SSE4_1__) && defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_blendvpd(q, p, (lane2)m);
#else
    return (lane2)(((mask2)p & m) | ((mask2)q & ~m));
#endif
}

/* m ? p : q where both lanes hold one value, so that m's lanes agree: a
 * branch on lane 0, which the processor predicts instead of waiting for
 * the comparison, and which skips the operand not taken. The same bits as
 * sel2 for such lanes. */
VEC lane2 pick2(mask2 m, lane2 p, lane2 q)
{
    return m[0] != 0 ? p : q;
}

VEC lane2 keep2(mask2 m, lane2 p)
{
    return (lane2)((mask2)p & m);
}

VEC mask2 lt2(lane2 p, lane2 q)
{
    return (mask2)(p < q);
}

VEC mask2 gt2(lane2 p, lane2 q)
{
    return (mask2)(p > q);
}

VEC lane2 abs2(lane2 x)
{
    return (lane2)((mask2)x & INT64_MAX);
}

/* The correctly rounded square root lane by lane, as sqrt4 gives it: one
 * SSE2 instruction on x86-64, without sqrt's errno check. */
VEC lane2 sqrt2(lane2 x)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_sqrtpd(x);
#else
    return (lane2){sqrt(x[0]), sqrt(x[1])};
#endif
}

#endif
