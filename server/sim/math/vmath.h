/* Deterministic elementary functions on four lanes (lanes.h's v4): sin,
 * cos, atan, exp, log, pow and tanh for the tyre laws (Magic Formula
 * sin(C atan(..)), load exponentials, soil pressure powers), four tyres at
 * a time; a call on one value is one lane of its vector function.
 *
 * Determinism. Only IEEE add, subtract, multiply, divide, comparisons,
 * selects, exact integer and bit operations and loads from the constant
 * tables below are used, lane by lane, with no branch on a value in a
 * vector function (a select takes the place of each case; a scalar call
 * may branch to the one case its value takes) and no libm call; sim is built
 * with -ffp-contract=off and AVX has no fused multiply-add, so the
 * baseline x86-64 build, the AVX build of the four-wheel step
 * (four_wheel.c) and any other conforming platform give the same bits
 * (a file outside sim that includes this one needs -ffp-contract=off too,
 * which GCC's ISO C mode, -std=c11, implies).
 * Each lane depends on its own inputs only, and a scalar call (pdk_sin
 * ...) is lane 0 of its vector function (pdk_tanh: of the one path its
 * value takes), so scalar and vector code agree bit for bit.
 *
 * Accuracy: the largest error against the long double libm that
 * tests/unit/test_vmath.c finds (1.3e5 to 1.6e5 points per function,
 * edge cases included; it holds each to 1 ulp) or a run over 4e6 points
 * finds, whichever is larger:
 *   sin, cos  0.78, 0.76 ulp for |x| <= 1e5 (NaN beyond: outside the domain)
 *   atan      0.57 ulp for every x
 *   exp       0.50 ulp where the result is normal, 0.75 ulp where subnormal
 *   log       0.50 ulp for every x > 0
 *   pow       0.51 ulp for x in [1e-6, 1e6], |y| <= 10 (x > 0 only)
 *   tanh      0.56 ulp for every x
 * tests/bench/bench_vmath.c measures their cost. */
#ifndef PDK_VMATH_H
#define PDK_VMATH_H

#include <stdint.h>

#include "math/lanes.h"

/* ---- exact helpers ---- */

/* Unsigned lanes, for shifts that reach the sign bit. */
typedef uint64_t vm_u4 __attribute__((vector_size(4 * sizeof(uint64_t))));

/* 1.5 * 2^52: t + M - M is t rounded to an integer for |t| < 2^51 (in
 * round-to-nearest, which sim never changes), and the low bits of t + M
 * hold that integer. */
#define VM_ROUND_MAGIC 6755399441055744.0

/* The integer n held in kb = t + M, as int64. */
VEC m4 vm_round_int(v4 kb)
{
    return (m4)kb - (m4)splat(VM_ROUND_MAGIC);
}

/* 2^n for integer lanes n in [-1022, 1023]. */
VEC v4 vm_pow2i(m4 n)
{
    return (v4)(((vm_u4)n + 1023u) << 52);
}

/* s + e = a + b exactly (Knuth's TwoSum, any magnitudes). */
VEC void vm_two_sum(v4 a, v4 b, v4 *s, v4 *e)
{
    v4 sum = a + b;
    v4 bb = sum - a;
    *e = (a - (sum - bb)) + (b - bb);
    *s = sum;
}

/* Lane-wise table lookup; each lane of i indexes t. Compiled for AVX2
 * (four_wheel_avx.c), one vgatherqpd: the same loads. */
VEC v4 vm_gather(const double *t, m4 i)
{
#if defined(__AVX2__) && defined(__x86_64__) && defined(__GNUC__)
    typedef long long vm_ll4 __attribute__((vector_size(4 * sizeof(long long))));
    return __builtin_ia32_gatherdiv4df(splat(0.0), t, (vm_ll4)i, (v4)(m4){-1, -1, -1, -1}, 8);
#else
    return (v4){t[i[0]], t[i[1]], t[i[2]], t[i[3]]};
#endif
}

/* Integer lanes n (|n| < 2^51) as doubles, exactly: n + M - M in bits. */
VEC v4 vm_int_to_v4(m4 n)
{
    return (v4)(n + (m4)splat(VM_ROUND_MAGIC)) - splat(VM_ROUND_MAGIC);
}

/* The top 26 bits of x (the others cleared): products of two such are
 * exact. */
VEC v4 vm_top26(v4 x)
{
    return (v4)((m4)x & (m4)(vm_u4){~0ull << 27, ~0ull << 27, ~0ull << 27, ~0ull << 27});
}

/* ---- sin, cos ---- */

/* pi/2 in four parts: the first three hold 37 bits each, so k * part is
 * exact for |k| < 2^16 (|x| below about 1.0e5), the fourth is the double
 * nearest the rest; together 168 bits of pi/2. */
#define VM_PIO2_1 0x1.921fb54440000p+0
#define VM_PIO2_2 0x1.68c234c4c0000p-39
#define VM_PIO2_3 0x1.98a2e03700000p-77
#define VM_PIO2_4 0x1.cd129024e088ap-115
#define VM_TWO_OVER_PI 0.6366197723675814
#define VM_TRIG_MAX_ARG 1.0e5

/* sin and cos of x + y on |x| <= pi/4, |y| <= ulp(x)/2, as fdlibm's
 * __kernel_sin and __kernel_cos compute them (k_sin.c, k_cos.c, Sun
 * Microsystems 1993, also their minimax coefficients: |sin(x)/x - (1 +
 * S1 x^2 + ... + S6 x^12)| <= 2^-58, |cos(x) - (1 - x^2/2 + C1 x^4 + ... +
 * C6 x^14)| <= 2^-58). */
#define VM_S1 -1.66666666666666324348e-01
#define VM_S2 8.33333333332248946124e-03
#define VM_S3 -1.98412698298579493134e-04
#define VM_S4 2.75573137070700676789e-06
#define VM_S5 -2.50507602534068634195e-08
#define VM_S6 1.58969099521155010221e-10
#define VM_C1 4.16666666666666019037e-02
#define VM_C2 -1.38888888888741095749e-03
#define VM_C3 2.48015872894767294178e-05
#define VM_C4 -2.75573143513906633035e-07
#define VM_C5 2.08757232129817482790e-09
#define VM_C6 -1.13596475577881948265e-11

VEC v4 vm_sin_kernel(v4 x, v4 y)
{
    v4 z = x * x;
    v4 w = z * z;
    v4 r = (splat(VM_S2) + z * (splat(VM_S3) + z * splat(VM_S4))) +
           z * w * (splat(VM_S5) + z * splat(VM_S6));
    v4 v = z * x;
    return x - ((z * (splat(0.5) * y - v * r) - y) - v * splat(VM_S1));
}

VEC v4 vm_cos_kernel(v4 x, v4 y)
{
    v4 z = x * x;
    v4 w = z * z;
    v4 r = z * (splat(VM_C1) + z * (splat(VM_C2) + z * splat(VM_C3))) +
           w * w * (splat(VM_C4) + z * (splat(VM_C5) + z * splat(VM_C6)));
    v4 hz = splat(0.5) * z;
    v4 one = splat(1.0);
    v4 ww = one - hz;
    return ww + (((one - ww) - hz) + (z * r - x * y));
}

/* x = k pi/2 + (yh + yl) for |x| <= 1e5 (|k| < 2^16), |yh| <= pi/4 + 2^-50
 * and yh + yl the exact remainder to 2^-100 of itself or better (the
 * remainder of a double there is never below 2^-60.5: k = 29 comes
 * closest, mpmath). Returns kb, whose low bits are k's. */
VEC m4 vm_trig_reduce(v4 x, v4 *yh, v4 *yl)
{
    v4 kb = x * splat(VM_TWO_OVER_PI) + splat(VM_ROUND_MAGIC);
    v4 k = kb - splat(VM_ROUND_MAGIC);
    v4 a = x - k * splat(VM_PIO2_1); /* exact */
    v4 b, e1, h, e2;
    vm_two_sum(a, -(k * splat(VM_PIO2_2)), &b, &e1);
    vm_two_sum(b, -(k * splat(VM_PIO2_3)), &h, &e2);
    v4 l = (e1 + e2) - k * splat(VM_PIO2_4);
    v4 s = h + l;
    *yl = l - (s - h);
    *yh = s;
    return (m4)kb;
}

/* sin(x) and cos(x) together (the reduction is shared), for |x| <= 1e5
 * (radians); beyond, and for inf and NaN, both are NaN: the simulation
 * passes wrapped or small angles, and a NaN shows a caller that did not.
 * sin(-0) = -0. */
VEC void pdk_v_sincos(v4 x, v4 *s, v4 *c)
{
    v4 yh, yl;
    m4 q = vm_trig_reduce(x, &yh, &yl);
    m4 big = ~(m4)(abs4(x) <= splat(VM_TRIG_MAX_ARG));
    v4 ks = vm_sin_kernel(yh, yl);
    v4 kc = vm_cos_kernel(yh, yl);
    m4 swap = -(q & 1);
    m4 sin_sign = (m4)(((vm_u4)q & 2u) << 62);
    m4 cos_sign = (m4)((((vm_u4)q + 1u) & 2u) << 62);
    v4 sv = (v4)((m4)sel(swap, kc, ks) ^ sin_sign);
    v4 cv = (v4)((m4)sel(swap, ks, kc) ^ cos_sign);
    sv = sel((m4)(x == splat(0.0)), x, sv); /* the reduction makes -0 +0 */
    *s = sel(big, splat((double)NAN), sv);
    *c = sel(big, splat((double)NAN), cv);
}

/* sin(x), |x| <= 1e5 (NaN beyond). */
VEC v4 pdk_v_sin(v4 x)
{
    v4 s, c;
    pdk_v_sincos(x, &s, &c);
    return s;
}

/* cos(x), |x| <= 1e5 (NaN beyond). */
VEC v4 pdk_v_cos(v4 x)
{
    v4 s, c;
    pdk_v_sincos(x, &s, &c);
    return c;
}

/* ---- sin, cos near zero ---- */

/* Below this |x| the reduction's k is 0 (|x| 2/pi < 0.4966) and x is within
 * the kernels' pi/4: x = 0 pi/2 + (x + 0), and the reduction gives exactly
 * yh = x, yl = 0 (+0 for -0, which the sin's zero case puts back). */
#define VM_TRIG_NEAR0 0.78

/* Whether every lane has |x| <= VM_TRIG_NEAR0 (false for NaN). */
VEC int vm_trig_all_near0(v4 x)
{
    return !any4(~(m4)(abs4(x) <= splat(VM_TRIG_NEAR0)));
}

/* pdk_v_sincos, pdk_v_sin and pdk_v_cos, the same bits for every x (the
 * same function), cheaper where every lane has |x| <= 0.78: there the
 * reduction and the quadrant are skipped (they are the identity) and the
 * cos or sin alone computes one kernel. For arguments that are usually
 * small (a camber angle, the Magic Formula's weighting offsets), where the
 * branch is well predicted; other lanes take the full function. */
VEC void pdk_v_sincos_near0(v4 x, v4 *s, v4 *c)
{
    if (vm_trig_all_near0(x)) {
        v4 zero = splat(0.0);
        *s = sel((m4)(x == zero), x, vm_sin_kernel(x, zero));
        *c = vm_cos_kernel(x, zero);
    } else {
        pdk_v_sincos(x, s, c);
    }
}

VEC v4 pdk_v_sin_near0(v4 x)
{
    if (vm_trig_all_near0(x)) {
        v4 zero = splat(0.0);
        return sel((m4)(x == zero), x, vm_sin_kernel(x, zero));
    }
    return pdk_v_sin(x);
}

VEC v4 pdk_v_cos_near0(v4 x)
{
    if (vm_trig_all_near0(x)) {
        return vm_cos_kernel(x, splat(0.0));
    }
    return pdk_v_cos(x);
}

/* ---- atan ---- */

/* atan(x) = atan(c) + atan(u), u = (|x| - c) / (1 + c |x|), with c = |x|
 * rounded to 4 significant bits for 1/32 <= |x| < 32 (|x| - c is then
 * exact and |u| <= 1/32), c = 0 below (u = |x|) and c = inf above
 * (atan = pi/2 + atan(-1/|x|)); atan(u) = u + u^3 P(u^2), P fitted at
 * Chebyshev nodes on |u| <= 1/32 (mpmath chebyfit, error 0.006 ulp).
 * atan(c) is a table (double nearest, and the double nearest the rest),
 * computed with mpmath: entry 0 for c = 0, entries 1 to 81 for
 * c = 2^e (1 + m/8) from 1/32 to 32 (index: c's exponent and 3 leading
 * fraction bits), entry 82 for pi/2. */
/* clang-format off */
static const double pdk_vm_atan_hi[83] = {
    0x0.0p+0, 0x1.ffd55bba97625p-6, 0x1.1fe1a5c2ec497p-5, 0x1.3fd65f169c9d9p-5,
    0x1.5fc89a5fa3b2dp-5, 0x1.7fb818430da2ap-5, 0x1.9fa49986984dfp-5, 0x1.bf8ddf139c444p-5,
    0x1.df73a9f9f1882p-5, 0x1.ff55bb72cfdeap-5, 0x1.1f86dbf082d59p-4, 0x1.3f59f0e7c559dp-4,
    0x1.5f2324fd2d7b2p-4, 0x1.7ee182602f10fp-4, 0x1.9e94153cfdcf1p-4, 0x1.be39ebe6f07c3p-4,
    0x1.ddd21701eba6ep-4, 0x1.fd5ba9aac2f6ep-4, 0x1.1e1fafb043727p-3, 0x1.3d6eee8c6626cp-3,
    0x1.5c9811e3ec26ap-3, 0x1.7b97b4bce5b02p-3, 0x1.9a6a8e96c8626p-3, 0x1.b90d7529260a2p-3,
    0x1.d77d5df205736p-3, 0x1.f5b75f92c80ddp-3, 0x1.18bf5a30bf178p-2, 0x1.362773707ebccp-2,
    0x1.530ad9951cd4ap-2, 0x1.6f61941e4def1p-2, 0x1.8b24d394a1b25p-2, 0x1.a64eec3cc23fdp-2,
    0x1.c0db4c94ec9f0p-2, 0x1.dac670561bb4fp-2, 0x1.0657e94db30d0p-1, 0x1.1e00babdefeb4p-1,
    0x1.345f01cce37bbp-1, 0x1.4978fa3269ee1p-1, 0x1.5d58987169b18p-1, 0x1.700a7c5784634p-1,
    0x1.819d0b7158a4dp-1, 0x1.921fb54442d18p-1, 0x1.b034f38649c88p-1, 0x1.cac7c57846f9ep-1,
    0x1.e24dd44c855d1p-1, 0x1.f730bd281f69bp-1, 0x1.04e67277a01d7p+0, 0x1.0d38f2c5ba09fp+0,
    0x1.14b1dd5f90ce1p+0, 0x1.1b6e192ebbe44p+0, 0x1.270ef55a53a25p+0, 0x1.30b6d796a4da8p+0,
    0x1.38d6a6ce13353p+0, 0x1.3fc176b7a8560p+0, 0x1.45b54837351a0p+0, 0x1.4ae10fc6589a5p+0,
    0x1.4f68dea672617p+0, 0x1.5368c951e9cfdp+0, 0x1.5a25052114e60p+0, 0x1.5f97315254857p+0,
    0x1.6414d44094c7cp+0, 0x1.67d8863bc99bdp+0, 0x1.6b0bae830c070p+0, 0x1.6dcc57bb565fdp+0,
    0x1.7030cf9403197p+0, 0x1.7249faa996a21p+0, 0x1.75cbad2a40bd5p+0, 0x1.789bd2c160054p+0,
    0x1.7aea38c1acbd1p+0, 0x1.7cd6f6dc59db4p+0, 0x1.7e7862aa0157cp+0, 0x1.7fde80870c2a0p+0,
    0x1.811518cde39a6p+0, 0x1.82250768ac529p+0, 0x1.83ea8edb40f72p+0, 0x1.8555a2787981fp+0,
    0x1.867ed918ab138p+0, 0x1.87769eb8e956bp+0, 0x1.884855a158b25p+0, 0x1.88fc218ace9dbp+0,
    0x1.8997fbb8b19c0p+0, 0x1.8a205fd558740p+0, 0x1.921fb54442d18p+0,
};
/* clang-format on */
/* clang-format off */
static const double pdk_vm_atan_lo[83] = {
    0x0.0p+0, -0x1.5ec431444912cp-60, 0x1.886091e8fc4cbp-59,
    0x1.7230a716461b5p-61, 0x1.2bb73bf4e7f99p-59, -0x1.86ef8f794f105p-63,
    0x1.322907af0abc2p-59, -0x1.89fe34b2a7fa8p-59, -0x1.251b5c410bcb4p-62,
    -0x1.c934d86d23f1dp-60, -0x1.095dc7732ef81p-59, 0x1.ac4ce285df847p-58,
    0x1.8a8da4401318ep-58, -0x1.cfb654c0c3d98p-58, 0x1.a332e1d69c47ep-58,
    0x1.f7b8f29a05987p-58, 0x1.94effcd76fe58p-58, -0x1.cd37686760c17p-59,
    -0x1.b485914dacf8cp-59, 0x1.61a3b0ce9281bp-57, -0x1.054ab2c010f3dp-58,
    0x1.347b0b4f881cap-58, 0x1.cf601e7b4348ep-59, 0x1.17b10d2e0e5abp-61,
    0x1.c648d1534597ep-57, 0x1.8ab6e3cf7afbdp-57, 0x1.30ca4748b1bf9p-57,
    -0x1.963a544b672d8p-57, -0x1.2566480884082p-57, -0x1.c63aae6f6e918p-56,
    0x1.b6d0ba3748fa8p-56, -0x1.24dec1b50b7ffp-56, -0x1.cc1ce70934c34p-56,
    0x1.a2b7f222f65e2p-56, -0x1.d5b495f6349e6p-56, -0x1.928df287a668fp-58,
    0x1.1021137c71102p-55, 0x1.2419a87f2a458p-56, 0x1.0028e4bc5e7cap-57,
    -0x1.8c34d25aadef6p-56, -0x1.bf76229d3b917p-56, 0x1.1a62633145c07p-55,
    -0x1.be88d6936f833p-55, 0x1.0dae13ad18a6bp-55, 0x1.f7ac612ab33d8p-55,
    0x1.007887af0cbbdp-56, 0x1.7115496c13eb6p-57, -0x1.bd0dc231bfd70p-54,
    -0x1.212d570a63fa2p-56, 0x1.b1b466a88828ep-54, -0x1.a66b1af5f84fbp-54,
    0x1.6254cb03bb199p-54, -0x1.12c77e8a80f5cp-55, -0x1.441a3bd3f1083p-59,
    0x1.9e4a72eedacc4p-56, -0x1.3b03e8a27f555p-54, 0x1.934f9f2b0020ep-54,
    -0x1.96f47948a99f1p-54, 0x1.8c2d0c89de218p-56, -0x1.31151a43b51cap-55,
    -0x1.c5f60a65c7397p-54, -0x1.9b7bd2e1e8c9cp-54, -0x1.7d1ab82ffb70bp-54,
    -0x1.29c86447928e7p-54, -0x1.cbe1896221608p-56, 0x1.a8cc1e7480c68p-54,
    0x1.20bc8af35c4d5p-54, -0x1.f45503ccad255p-54, 0x1.881d48ae6de92p-54,
    0x1.69c1fed612cfcp-54, -0x1.58c9f564b028cp-54, -0x1.008d760c989abp-60,
    0x1.511fe80fbb230p-57, -0x1.e78c96d05afcbp-58, 0x1.aba03a56fdc09p-54,
    0x1.2f08e51763131p-56, 0x1.ca07933f18e43p-56, 0x1.6f77fb9baeba6p-57,
    0x1.535cee7c891bbp-54, 0x1.fe20fa7e1e941p-54, 0x1.7652f3d7700a3p-54,
    -0x1.30228c09a91b4p-54, 0x1.1a62633145c07p-54,
};
/* clang-format on */

#define VM_AT0 -0x1.555555555554ap-2
#define VM_AT1 0x1.99999998de9a7p-3
#define VM_AT2 -0x1.24923a8f95714p-3
#define VM_AT3 0x1.c6621a2d08ca7p-4

/* atan(x) in [-pi/2, pi/2] for every x: odd (computed on |x| and given
 * x's sign, so atan(-0) = -0), +-inf gives +-pi/2 (the double nearest),
 * NaN gives NaN. */
VEC v4 pdk_v_atan(v4 x)
{
    v4 ax = abs4(x);
    v4 one = splat(1.0);
    m4 small = lt4(ax, splat(0x1p-5));
    m4 big = ~lt4(ax, splat(0x1p5)); /* NaN too */
    m4 mid = ~(small | big);
    /* c = ax rounded to 4 bits: add half of the 4th bit, clear below. */
    vm_u4 cbits = ((vm_u4)ax + (1ull << 48)) & (~0ull << 49);
    v4 c = keep(mid, (v4)cbits);
    m4 idx = ((m4)(cbits >> 49) - ((1023 - 5) << 3) + 1) & mid;
    idx = idx | (82 & big);
    v4 num = sel(big, -one, ax - c);
    v4 den = sel(big, ax, one + c * ax);
    v4 u = num / den;
    v4 z = u * u;
    v4 pz = (splat(VM_AT0) + z * splat(VM_AT1)) + (z * z) * (splat(VM_AT2) + z * splat(VM_AT3));
    v4 hi = vm_gather(pdk_vm_atan_hi, idx);
    v4 lo = vm_gather(pdk_vm_atan_lo, idx);
    v4 r = hi + (u + (lo + u * z * pz));
    return (v4)((m4)r | ((m4)x & INT64_MIN));
}

/* ---- exp, log, pow: tables ---- */

/* exp, log and pow after Szabolcs Nagy's exp, log and pow in ARM's
 * optimized-routines (math/exp.c, math/pow.c, 2018; glibc uses them), in
 * their form without fused multiply-add, with tables of 128 entries
 * computed for this file (mpmath, 300 bits) the way those describe:
 *
 * log: x = 2^k z with z in [0x1.69555p-1, 0x1.69555p0) cut into 128
 * intervals by the leading bits of z; in interval i, c is near its centre
 * with 1/c = invc holding 8 bits (round(128/c)/128, or /256 above 1; c = 1
 * for the interval holding 1, so that near x = 1 nothing cancels), so
 * r = z invc - 1 is exact, |r| < 0.0058; logc is log(c) rounded to a
 * multiple of 2^-43 so that k ln2_hi + logc is exact, logctail the rest
 * (|log(c) - logc - logctail| < 2^-97).
 *
 * exp: x = (128 m + j) ln2/128 + r, |r| <= ln2/256, 2^(j/128) as the double
 * exp2_hi[j] times (1 + exp2_tail[j]). */
/* clang-format off */
static const double pdk_vm_log_invc[128] = {
    0x1.6a00000000000p+0, 0x1.6800000000000p+0, 0x1.6600000000000p+0, 0x1.6400000000000p+0,
    0x1.6200000000000p+0, 0x1.6000000000000p+0, 0x1.5e00000000000p+0, 0x1.5c00000000000p+0,
    0x1.5a00000000000p+0, 0x1.5800000000000p+0, 0x1.5600000000000p+0, 0x1.5600000000000p+0,
    0x1.5400000000000p+0, 0x1.5200000000000p+0, 0x1.5000000000000p+0, 0x1.4e00000000000p+0,
    0x1.4c00000000000p+0, 0x1.4a00000000000p+0, 0x1.4a00000000000p+0, 0x1.4800000000000p+0,
    0x1.4600000000000p+0, 0x1.4400000000000p+0, 0x1.4200000000000p+0, 0x1.4000000000000p+0,
    0x1.4000000000000p+0, 0x1.3e00000000000p+0, 0x1.3c00000000000p+0, 0x1.3a00000000000p+0,
    0x1.3a00000000000p+0, 0x1.3800000000000p+0, 0x1.3600000000000p+0, 0x1.3400000000000p+0,
    0x1.3400000000000p+0, 0x1.3200000000000p+0, 0x1.3000000000000p+0, 0x1.3000000000000p+0,
    0x1.2e00000000000p+0, 0x1.2c00000000000p+0, 0x1.2c00000000000p+0, 0x1.2a00000000000p+0,
    0x1.2800000000000p+0, 0x1.2600000000000p+0, 0x1.2600000000000p+0, 0x1.2400000000000p+0,
    0x1.2400000000000p+0, 0x1.2200000000000p+0, 0x1.2000000000000p+0, 0x1.2000000000000p+0,
    0x1.1e00000000000p+0, 0x1.1c00000000000p+0, 0x1.1c00000000000p+0, 0x1.1a00000000000p+0,
    0x1.1a00000000000p+0, 0x1.1800000000000p+0, 0x1.1600000000000p+0, 0x1.1600000000000p+0,
    0x1.1400000000000p+0, 0x1.1400000000000p+0, 0x1.1200000000000p+0, 0x1.1000000000000p+0,
    0x1.1000000000000p+0, 0x1.0e00000000000p+0, 0x1.0e00000000000p+0, 0x1.0c00000000000p+0,
    0x1.0c00000000000p+0, 0x1.0a00000000000p+0, 0x1.0a00000000000p+0, 0x1.0800000000000p+0,
    0x1.0800000000000p+0, 0x1.0600000000000p+0, 0x1.0400000000000p+0, 0x1.0400000000000p+0,
    0x1.0200000000000p+0, 0x1.0200000000000p+0, 0x1.0000000000000p+0, 0x1.0000000000000p+0,
    0x1.fc00000000000p-1, 0x1.f800000000000p-1, 0x1.f400000000000p-1, 0x1.f000000000000p-1,
    0x1.ec00000000000p-1, 0x1.e800000000000p-1, 0x1.e400000000000p-1, 0x1.e200000000000p-1,
    0x1.de00000000000p-1, 0x1.da00000000000p-1, 0x1.d600000000000p-1, 0x1.d400000000000p-1,
    0x1.d000000000000p-1, 0x1.cc00000000000p-1, 0x1.ca00000000000p-1, 0x1.c600000000000p-1,
    0x1.c400000000000p-1, 0x1.c000000000000p-1, 0x1.be00000000000p-1, 0x1.ba00000000000p-1,
    0x1.b800000000000p-1, 0x1.b400000000000p-1, 0x1.b200000000000p-1, 0x1.ae00000000000p-1,
    0x1.ac00000000000p-1, 0x1.aa00000000000p-1, 0x1.a600000000000p-1, 0x1.a400000000000p-1,
    0x1.a000000000000p-1, 0x1.9e00000000000p-1, 0x1.9c00000000000p-1, 0x1.9a00000000000p-1,
    0x1.9600000000000p-1, 0x1.9400000000000p-1, 0x1.9200000000000p-1, 0x1.9000000000000p-1,
    0x1.8c00000000000p-1, 0x1.8a00000000000p-1, 0x1.8800000000000p-1, 0x1.8600000000000p-1,
    0x1.8400000000000p-1, 0x1.8200000000000p-1, 0x1.7e00000000000p-1, 0x1.7c00000000000p-1,
    0x1.7a00000000000p-1, 0x1.7800000000000p-1, 0x1.7600000000000p-1, 0x1.7400000000000p-1,
    0x1.7200000000000p-1, 0x1.7000000000000p-1, 0x1.6e00000000000p-1, 0x1.6c00000000000p-1,
};
/* clang-format on */

/* clang-format off */
static const double pdk_vm_log_logc[128] = {
    -0x1.62c82f2b9c800p-2, -0x1.5d1bdbf580800p-2, -0x1.5767717455800p-2,
    -0x1.51aad872df800p-2, -0x1.4be5f95777800p-2, -0x1.4618bc21c6000p-2,
    -0x1.404308686a800p-2, -0x1.3a64c55694800p-2, -0x1.347dd9a988000p-2,
    -0x1.2e8e2bae12000p-2, -0x1.2895a13de8800p-2, -0x1.2895a13de8800p-2,
    -0x1.22941fbcf7800p-2, -0x1.1c898c1699800p-2, -0x1.1675cababa800p-2,
    -0x1.1058bf9ae4800p-2, -0x1.0a324e2739000p-2, -0x1.0402594b4d000p-2,
    -0x1.0402594b4d000p-2, -0x1.fb9186d5e4000p-3, -0x1.ef0adcbdc6000p-3,
    -0x1.e27076e2af000p-3, -0x1.d5c216b4fc000p-3, -0x1.c8ff7c79aa000p-3,
    -0x1.c8ff7c79aa000p-3, -0x1.bc286742d9000p-3, -0x1.af3c94e80c000p-3,
    -0x1.a23bc1fe2b000p-3, -0x1.a23bc1fe2b000p-3, -0x1.9525a9cf45000p-3,
    -0x1.87fa06520d000p-3, -0x1.7ab890210e000p-3, -0x1.7ab890210e000p-3,
    -0x1.6d60fe719d000p-3, -0x1.5ff3070a79000p-3, -0x1.5ff3070a79000p-3,
    -0x1.526e5e3a1b000p-3, -0x1.44d2b6ccb8000p-3, -0x1.44d2b6ccb8000p-3,
    -0x1.371fc201e9000p-3, -0x1.29552f81ff000p-3, -0x1.1b72ad52f6000p-3,
    -0x1.1b72ad52f6000p-3, -0x1.0d77e7cd09000p-3, -0x1.0d77e7cd09000p-3,
    -0x1.fec9131dbe000p-4, -0x1.e27076e2b0000p-4, -0x1.e27076e2b0000p-4,
    -0x1.c5e548f5bc000p-4, -0x1.a926d3a4ae000p-4, -0x1.a926d3a4ae000p-4,
    -0x1.8c345d631a000p-4, -0x1.8c345d631a000p-4, -0x1.6f0d28ae56000p-4,
    -0x1.51b073f062000p-4, -0x1.51b073f062000p-4, -0x1.341d7961be000p-4,
    -0x1.341d7961be000p-4, -0x1.16536eea38000p-4, -0x1.f0a30c0118000p-5,
    -0x1.f0a30c0118000p-5, -0x1.b42dd71198000p-5, -0x1.b42dd71198000p-5,
    -0x1.77458f632c000p-5, -0x1.77458f632c000p-5, -0x1.39e87b9fec000p-5,
    -0x1.39e87b9fec000p-5, -0x1.f829b0e780000p-6, -0x1.f829b0e780000p-6,
    -0x1.7b91b07d58000p-6, -0x1.fc0a8b0fc0000p-7, -0x1.fc0a8b0fc0000p-7,
    -0x1.fe02a6b100000p-8, -0x1.fe02a6b100000p-8, 0x0.0p+0,
    0x0.0p+0, 0x1.0101575890000p-7, 0x1.0205658938000p-6,
    0x1.8492528c90000p-6, 0x1.0415d89e74000p-5, 0x1.466aed42e0000p-5,
    0x1.894aa149fc000p-5, 0x1.ccb73cdddc000p-5, 0x1.eea31c006c000p-5,
    0x1.1973bd1466000p-4, 0x1.3bdf5a7d1e000p-4, 0x1.5e95a4d97a000p-4,
    0x1.700d30aeac000p-4, 0x1.9335e5d594000p-4, 0x1.b6ac88dad6000p-4,
    0x1.c885801bc4000p-4, 0x1.ec739830a2000p-4, 0x1.fe89139dbe000p-4,
    0x1.1178e8227e000p-3, 0x1.1aa2b7e23f000p-3, 0x1.2d1610c868000p-3,
    0x1.365fcb0159000p-3, 0x1.4913d8333b000p-3, 0x1.527e5e4a1b000p-3,
    0x1.6574ebe8c1000p-3, 0x1.6f0128b757000p-3, 0x1.7898d85445000p-3,
    0x1.8beafeb390000p-3, 0x1.95a5adcf70000p-3, 0x1.a93ed3c8ae000p-3,
    0x1.b31d8575bd000p-3, 0x1.bd087383be000p-3, 0x1.c6ffbc6f01000p-3,
    0x1.db13db0d49000p-3, 0x1.e530effe71000p-3, 0x1.ef5ade4dd0000p-3,
    0x1.f991c6cb3b000p-3, 0x1.07138604d5800p-2, 0x1.0c42d67616000p-2,
    0x1.1178e8227e800p-2, 0x1.16b5ccbacf800p-2, 0x1.1bf99635a6800p-2,
    0x1.214456d0eb800p-2, 0x1.2bef07cdc9000p-2, 0x1.314f1e1d36000p-2,
    0x1.36b6776be1000p-2, 0x1.3c25277333000p-2, 0x1.419b423d5e800p-2,
    0x1.4718dc271c800p-2, 0x1.4c9e09e173000p-2, 0x1.522ae0738a000p-2,
    0x1.57bf753c8d000p-2, 0x1.5d5bddf596000p-2,
};
/* clang-format on */

/* clang-format off */
static const double pdk_vm_log_logctail[128] = {
    0x1.ab42428375680p-48, -0x1.ca508d8e0f720p-46, -0x1.362a4d5b6506dp-45,
    -0x1.684e49eb067d5p-49, -0x1.41b6993293ee0p-47, 0x1.3d82f484c84ccp-46,
    0x1.c42f3ed820b3ap-50, 0x1.0b1c686519460p-45, 0x1.5594dd4c58092p-45,
    0x1.67b1e99b72bd8p-45, 0x1.5ca14b6cfb03fp-46, 0x1.5ca14b6cfb03fp-46,
    -0x1.65a242853da76p-46, -0x1.fafbc68e75404p-46, 0x1.f1fc63382a8f0p-46,
    -0x1.6a8c4fd055a66p-45, -0x1.c6bee7ef4030ep-47, -0x1.036b89ef42d7fp-48,
    -0x1.036b89ef42d7fp-48, 0x1.d572aab993c87p-47, 0x1.b26b79c86af24p-45,
    -0x1.72f4f543fff10p-46, 0x1.1ba91bbca681bp-45, 0x1.7794f689f8434p-45,
    0x1.7794f689f8434p-45, 0x1.94eb0318bb78fp-46, 0x1.a4e633fcd9066p-52,
    -0x1.58c64dc46c1eap-45, -0x1.58c64dc46c1eap-45, -0x1.ad1d904c1d4e3p-45,
    0x1.bbdbf7fdbfa09p-45, 0x1.bdb9072534a58p-45, 0x1.bdb9072534a58p-45,
    -0x1.0e46aa3b2e266p-46, -0x1.e9e439f105039p-46, -0x1.e9e439f105039p-46,
    -0x1.0de8b90075b8fp-45, 0x1.70cc16135783cp-46, 0x1.70cc16135783cp-46,
    0x1.178864d27543ap-48, -0x1.48d301771c408p-45, -0x1.e80a41811a396p-45,
    -0x1.e80a41811a396p-45, 0x1.a699688e85bf4p-47, 0x1.a699688e85bf4p-47,
    -0x1.575545ca333f2p-45, 0x1.a342c2af0003cp-45, 0x1.a342c2af0003cp-45,
    -0x1.d0c57585fbe06p-46, 0x1.53935e85baac8p-45, 0x1.53935e85baac8p-45,
    0x1.37c294d2f5668p-46, 0x1.37c294d2f5668p-46, -0x1.69737c93373dap-45,
    0x1.f025b61c65e57p-46, 0x1.f025b61c65e57p-46, 0x1.c5edaccf913dfp-45,
    0x1.c5edaccf913dfp-45, 0x1.47c5e768fa309p-46, 0x1.d599e83368e91p-45,
    0x1.d599e83368e91p-45, 0x1.c827ae5d6704cp-46, 0x1.c827ae5d6704cp-46,
    -0x1.cfc4634f2a1eep-45, -0x1.cfc4634f2a1eep-45, 0x1.502b7f526feaap-48,
    0x1.502b7f526feaap-48, -0x1.980267c7e09e4p-45, -0x1.980267c7e09e4p-45,
    -0x1.88d5493faa639p-45, -0x1.f1e7cf6d3a69cp-50, -0x1.f1e7cf6d3a69cp-50,
    -0x1.9e23f0dda40e4p-46, -0x1.9e23f0dda40e4p-46, 0x0.0p+0,
    0x0.0p+0, -0x1.0c76b999d2be8p-46, -0x1.3dc5b06e2f7d2p-45,
    -0x1.aa0ba325a0c34p-45, 0x1.111c05cf1d753p-47, -0x1.c167375bdfd28p-45,
    -0x1.97995d05a267dp-46, -0x1.a68f247d82807p-46, -0x1.e113e4fc93b7bp-47,
    -0x1.5325d560d9e9bp-45, 0x1.cc85ea5db4ed7p-45, -0x1.c69063c5d1d1ep-45,
    0x1.c1e8da99ded32p-49, 0x1.3115c3abd47dap-45, -0x1.390802bf768e5p-46,
    0x1.646d1c65aacd3p-45, -0x1.dc068afe645e0p-45, -0x1.534d64fa10afdp-45,
    0x1.1ef78ce2d07f2p-45, 0x1.ca78e44389934p-45, 0x1.39d6ccb81b4a1p-47,
    0x1.62fa8234b7289p-51, 0x1.5837954fdb678p-45, 0x1.633e8e5697dc7p-45,
    0x1.9cf8b2c3c2e78p-46, -0x1.5118de59c21e1p-45, -0x1.c661070914305p-46,
    -0x1.73d54aae92cd1p-47, 0x1.7f22858a0ff6fp-47, -0x1.8724350562169p-45,
    -0x1.c358d4eace1aap-47, -0x1.d4bc4595412b6p-45, -0x1.1ec72c5962bd2p-48,
    -0x1.aff2af715b035p-45, 0x1.212276041f430p-51, -0x1.a211565bb8e11p-51,
    0x1.bcbecca0cdf30p-46, 0x1.89cdb16ed4e91p-48, 0x1.7188b163ceae9p-45,
    -0x1.c210e63a5f01cp-45, 0x1.b9acdf7a51681p-45, 0x1.ca6ed5147bdb7p-45,
    0x1.a87deba46baeap-47, 0x1.a9cfa4a5004f4p-45, -0x1.8e27ad3213cb8p-45,
    0x1.16ecdb0f177c8p-46, 0x1.83b54b606bd5cp-46, 0x1.8e436ec90e09dp-47,
    -0x1.f27ce0967d675p-45, -0x1.e20891b0ad8a4p-45, 0x1.ebe708164c759p-45,
    0x1.fadedee5d40efp-46, -0x1.a0b2a08a465dcp-47,
};
/* clang-format on */

/* clang-format off */
static const double pdk_vm_exp2_hi[128] = {
    0x1.0000000000000p+0, 0x1.0163da9fb3335p+0, 0x1.02c9a3e778061p+0, 0x1.04315e86e7f85p+0,
    0x1.059b0d3158574p+0, 0x1.0706b29ddf6dep+0, 0x1.0874518759bc8p+0, 0x1.09e3ecac6f383p+0,
    0x1.0b5586cf9890fp+0, 0x1.0cc922b7247f7p+0, 0x1.0e3ec32d3d1a2p+0, 0x1.0fb66affed31bp+0,
    0x1.11301d0125b51p+0, 0x1.12abdc06c31ccp+0, 0x1.1429aaea92de0p+0, 0x1.15a98c8a58e51p+0,
    0x1.172b83c7d517bp+0, 0x1.18af9388c8deap+0, 0x1.1a35beb6fcb75p+0, 0x1.1bbe084045cd4p+0,
    0x1.1d4873168b9aap+0, 0x1.1ed5022fcd91dp+0, 0x1.2063b88628cd6p+0, 0x1.21f49917ddc96p+0,
    0x1.2387a6e756238p+0, 0x1.251ce4fb2a63fp+0, 0x1.26b4565e27cddp+0, 0x1.284dfe1f56381p+0,
    0x1.29e9df51fdee1p+0, 0x1.2b87fd0dad990p+0, 0x1.2d285a6e4030bp+0, 0x1.2ecafa93e2f56p+0,
    0x1.306fe0a31b715p+0, 0x1.32170fc4cd831p+0, 0x1.33c08b26416ffp+0, 0x1.356c55f929ff1p+0,
    0x1.371a7373aa9cbp+0, 0x1.38cae6d05d866p+0, 0x1.3a7db34e59ff7p+0, 0x1.3c32dc313a8e5p+0,
    0x1.3dea64c123422p+0, 0x1.3fa4504ac801cp+0, 0x1.4160a21f72e2ap+0, 0x1.431f5d950a897p+0,
    0x1.44e086061892dp+0, 0x1.46a41ed1d0057p+0, 0x1.486a2b5c13cd0p+0, 0x1.4a32af0d7d3dep+0,
    0x1.4bfdad5362a27p+0, 0x1.4dcb299fddd0dp+0, 0x1.4f9b2769d2ca7p+0, 0x1.516daa2cf6642p+0,
    0x1.5342b569d4f82p+0, 0x1.551a4ca5d920fp+0, 0x1.56f4736b527dap+0, 0x1.58d12d497c7fdp+0,
    0x1.5ab07dd485429p+0, 0x1.5c9268a5946b7p+0, 0x1.5e76f15ad2148p+0, 0x1.605e1b976dc09p+0,
    0x1.6247eb03a5585p+0, 0x1.6434634ccc320p+0, 0x1.6623882552225p+0, 0x1.68155d44ca973p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6c012750bdabfp+0, 0x1.6dfb23c651a2fp+0, 0x1.6ff7df9519484p+0,
    0x1.71f75e8ec5f74p+0, 0x1.73f9a48a58174p+0, 0x1.75feb564267c9p+0, 0x1.780694fde5d3fp+0,
    0x1.7a11473eb0187p+0, 0x1.7c1ed0130c132p+0, 0x1.7e2f336cf4e62p+0, 0x1.80427543e1a12p+0,
    0x1.82589994cce13p+0, 0x1.8471a4623c7adp+0, 0x1.868d99b4492edp+0, 0x1.88ac7d98a6699p+0,
    0x1.8ace5422aa0dbp+0, 0x1.8cf3216b5448cp+0, 0x1.8f1ae99157736p+0, 0x1.9145b0b91ffc6p+0,
    0x1.93737b0cdc5e5p+0, 0x1.95a44cbc8520fp+0, 0x1.97d829fde4e50p+0, 0x1.9a0f170ca07bap+0,
    0x1.9c49182a3f090p+0, 0x1.9e86319e32323p+0, 0x1.a0c667b5de565p+0, 0x1.a309bec4a2d33p+0,
    0x1.a5503b23e255dp+0, 0x1.a799e1330b358p+0, 0x1.a9e6b5579fdbfp+0, 0x1.ac36bbfd3f37ap+0,
    0x1.ae89f995ad3adp+0, 0x1.b0e07298db666p+0, 0x1.b33a2b84f15fbp+0, 0x1.b59728de5593ap+0,
    0x1.b7f76f2fb5e47p+0, 0x1.ba5b030a1064ap+0, 0x1.bcc1e904bc1d2p+0, 0x1.bf2c25bd71e09p+0,
    0x1.c199bdd85529cp+0, 0x1.c40ab5fffd07ap+0, 0x1.c67f12e57d14bp+0, 0x1.c8f6d9406e7b5p+0,
    0x1.cb720dcef9069p+0, 0x1.cdf0b555dc3fap+0, 0x1.d072d4a07897cp+0, 0x1.d2f87080d89f2p+0,
    0x1.d5818dcfba487p+0, 0x1.d80e316c98398p+0, 0x1.da9e603db3285p+0, 0x1.dd321f301b460p+0,
    0x1.dfc97337b9b5fp+0, 0x1.e264614f5a129p+0, 0x1.e502ee78b3ff6p+0, 0x1.e7a51fbc74c83p+0,
    0x1.ea4afa2a490dap+0, 0x1.ecf482d8e67f1p+0, 0x1.efa1bee615a27p+0, 0x1.f252b376bba97p+0,
    0x1.f50765b6e4540p+0, 0x1.f7bfdad9cbe14p+0, 0x1.fa7c1819e90d8p+0, 0x1.fd3c22b8f71f1p+0,
};
/* clang-format on */

/* clang-format off */
static const double pdk_vm_exp2_tail[128] = {
    0x0.0p+0, 0x1.b3b4f1a88bf6ep-54, -0x1.160139cd8dc5dp-56,
    -0x1.05e7a108766d1p-54, 0x1.cd2523567f613p-55, -0x1.bce8023f98efap-55,
    0x1.0f74e61e6c861p-57, 0x1.0a3e45b33d399p-54, 0x1.79aa65d837b6dp-54,
    0x1.eb51a92fdeffcp-55, 0x1.ebe3d702f9cd1p-60, -0x1.a033489906e0bp-57,
    -0x1.556522a2fbd0ep-54, -0x1.080ef8c4eea55p-58, -0x1.1c923b9d5f416p-54,
    0x1.0d3e3e95c55afp-55, -0x1.01b15eaa59348p-55, -0x1.f1ff055de323dp-55,
    0x1.b898c3f1353bfp-55, -0x1.6d99c7611eb26p-54, 0x1.aecf73e3a2f60p-54,
    -0x1.fe782cb86389dp-55, 0x1.a6f4144a6c38dp-55, 0x1.07a05b0e4047dp-55,
    0x1.68efde3a8a894p-54, 0x1.75e18f274487dp-55, 0x1.0472b981fe7f2p-55,
    -0x1.6b87b3f71085ep-54, 0x1.2f7e16d09ab31p-55, -0x1.d219b1a6fbffap-60,
    0x1.b3782720c0ab4p-55, 0x1.e149289cecb8fp-57, 0x1.34d754db0abb6p-55,
    0x1.64201e2ac744cp-55, 0x1.fdd395dd3f84ap-55, -0x1.6a3803b8e5b04p-55,
    -0x1.24aedcc4b5068p-54, -0x1.907f81b512d8ep-54, -0x1.1d1e83e9436d2p-56,
    -0x1.91919b3ce1b15p-54, 0x1.59f48a72a4c6dp-55, -0x1.312607a28698ap-54,
    -0x1.8a78f4817895bp-58, -0x1.c2c9b67499a1bp-56, 0x1.363ed60c2ac11p-59,
    0x1.666093b0664efp-54, 0x1.ecce1daa10379p-57, 0x1.3ff8e3f0f1230p-54,
    0x1.690cebb7aafb0p-56, 0x1.31dbdeb54e077p-54, -0x1.f94340071a38ep-55,
    -0x1.7deccdc93a349p-55, -0x1.8dec6bd0f385fp-56, -0x1.61246ec7b5cf6p-55,
    0x1.3350518fdd78ep-54, 0x1.b98b72f8a9b05p-56, 0x1.063e1e21c5409p-54,
    0x1.4c7855019c6eap-60, 0x1.432e62b64c035p-54, -0x1.ce44a6199769fp-55,
    -0x1.c33c53bef4da8p-55, -0x1.45378892be9aep-55, -0x1.3cedd78565858p-54,
    0x1.710aa807e1964p-58, -0x1.3b3efbf5e2228p-54, -0x1.a12ad8734b982p-57,
    -0x1.367efb86da9eep-57, -0x1.0dc3d54e08851p-55, -0x1.81f647e5a3ecfp-56,
    -0x1.6ee4ac08b7db0p-55, -0x1.619321e55e68ap-55, 0x1.09ccb5e09d4d3p-54,
    -0x1.b32dcb94da51dp-56, 0x1.4ecfd5467c06bp-54, 0x1.5ebe1abd66c55p-57,
    -0x1.8a1c52fb3cf42p-55, -0x1.369b6f13b3734p-54, -0x1.05e843a19ff1ep-55,
    -0x1.4d450d872576ep-54, 0x1.0ad675b0e8a00p-54, 0x1.db72fc1f0eab4p-55,
    -0x1.5b6609cc5e7ffp-57, 0x1.bf68359f35f44p-56, -0x1.3091fa71e3d83p-54,
    -0x1.da9b88b6c1e29p-58, -0x1.c23f97c90b959p-57, -0x1.2434322f4f9aap-54,
    -0x1.5ca6cd7668e4bp-55, 0x1.1affc2b91ce27p-56, 0x1.dd235e10a73bbp-57,
    -0x1.7c50422622263p-55, 0x1.b1c86e3e231d5p-55, -0x1.1bbd1d3bcbb15p-54,
    0x1.0cc319cee31d2p-54, 0x1.469846e735ab3p-55, -0x1.2dfcd978e9db4p-55,
    0x1.c1a7792cb3387p-55, -0x1.07b8f4ad1d9fap-54, -0x1.5c3d956dcaebap-58,
    -0x1.0a40e3da6f640p-54, -0x1.8d6f438ad9334p-57, -0x1.1eee26b588a35p-54,
    0x1.4ffd70a5fddcdp-56, -0x1.1bdfbfa9298acp-54, 0x1.36eae30af0cb3p-56,
    0x1.ee3325c9ffd94p-55, 0x1.4e08fd10959acp-55, 0x1.3cdaf384e1a67p-57,
    0x1.76b2c6c921968p-57, -0x1.08a1883ccb5d2p-55, -0x1.fad5d3ffffa6fp-55,
    -0x1.00dae3875a949p-54, 0x1.4a385a63d07a7p-56, -0x1.2919e2040220fp-55,
    0x1.e5a50d5c192acp-55, 0x1.43a59ac016b4bp-55, -0x1.2d52107b43e1fp-55,
    -0x1.92ab93b470dc9p-55, 0x1.4b604603a88d3p-56, 0x1.3c5ec519d7271p-55,
    -0x1.ff7128fd391f0p-55, -0x1.dae98e223747dp-55, 0x1.ec3bc41aa2008p-55,
    0x1.42b94c3a9eb32p-55, 0x1.a64a931d185eep-55, -0x1.e37bae43be3edp-55,
    0x1.7893b4d91cd9dp-56, 0x1.305c14160cc89p-58,
};
/* clang-format on */

/* ---- exp ---- */

/* ln2/128 as a 34-bit head (exact times any |k| < 2^19) and the double
 * nearest the rest; 128/ln2; the polynomial e^r - 1 - r = r^2 (C2 + C3 r +
 * C4 r^2 + C5 r^3) fitted on |r| <= 1.02 ln2/256 (error below 2^-63.5). */
#define VM_LN2N_HI 0x1.62e42fef80000p-8
#define VM_LN2N_LO 0x1.1cf79abc9e3b4p-43
#define VM_N_OVER_LN2 0x1.71547652b82fep+7
#define VM_EXP_C2 0x1.fffffffffff4ap-2
#define VM_EXP_C3 0x1.5555555555521p-3
#define VM_EXP_C4 0x1.55555b054a7b1p-5
#define VM_EXP_C5 0x1.111114510adc1p-7

/* exp(xh + xl) = (v + *vl) *s1 *s2 for |xl| <= 2^-20 |xh| or so (xl = 0
 * for exp itself), v + *vl to about 2^-60 relative, *s1 and *s2 powers of
 * two within the normal exponents. Multiplying v by them in turn is exact
 * unless the result is subnormal, which is then rounded once more only. */
VEC v4 vm_exp_core(v4 xh, v4 xl, v4 *vl, v4 *s1, v4 *s2)
{
    /* Beyond [-750, 710] the result is 0 or inf anyway; the clamp keeps m
     * in range (NaN passes, the comparisons being false). */
    m4 under = lt4(xh, splat(-750.0));
    m4 over = gt4(xh, splat(710.0));
    v4 x = sel(under, splat(-750.0), sel(over, splat(710.0), xh));
    v4 xt = sel(under | over, splat(0.0), xl);
    v4 kb = x * splat(VM_N_OVER_LN2) + splat(VM_ROUND_MAGIC);
    v4 kd = kb - splat(VM_ROUND_MAGIC);
    m4 j = vm_round_int(kb) & 127;
    /* x - kd ln2_hi/128 is exact (Sterbenz), the rest rounds at 2^-60 of r. */
    v4 r = ((x - kd * splat(VM_LN2N_HI)) - kd * splat(VM_LN2N_LO)) + xt;
    v4 th = vm_gather(pdk_vm_exp2_hi, j);
    v4 tail = vm_gather(pdk_vm_exp2_tail, j);
    v4 r2 = r * r;
    v4 tmp = tail + r + r2 * (splat(VM_EXP_C2) + r * splat(VM_EXP_C3)) +
             r2 * r2 * (splat(VM_EXP_C4) + r * splat(VM_EXP_C5));
    v4 thtmp = th * tmp;
    v4 v = th + thtmp;
    *vl = (th - v) + thtmp;
    /* kd = 128 m + j; m = m1 + m2, m1 = m/2 rounded, both normal exponents
     * (|m| <= 1084), found with doubles, as SSE2 and AVX have no 64-bit
     * arithmetic shift. */
    v4 md = (kd - vm_int_to_v4(j)) * splat(0x1p-7);
    m4 m = vm_round_int(md + splat(VM_ROUND_MAGIC));
    m4 m1 = vm_round_int(md * splat(0.5) + splat(VM_ROUND_MAGIC));
    *s1 = vm_pow2i(m1);
    *s2 = vm_pow2i(m - m1);
    return v;
}

VEC v4 vm_exp_kernel(v4 xh, v4 xl)
{
    v4 vl, s1, s2;
    v4 v = vm_exp_core(xh, xl, &vl, &s1, &s2);
    return v * s1 * s2;
}

/* exp(x): exactly 1 at 0, 0 below about -745.13 (subnormal from -708.4),
 * inf above about 709.78, NaN for NaN. */
VEC v4 pdk_v_exp(v4 x)
{
    return vm_exp_kernel(x, splat(0.0));
}

/* ---- log ---- */

/* ln2 as a 42-bit head (exact times any |k| < 2^11) and the double nearest
 * the rest; the polynomial log(1 + r) - r + r^2/2 = r^3 (B1 + B2 r + ...
 * + B6 r^5) fitted on |r| <= 0.0058 (error below 2^-75). */
#define VM_LN2_HI42 0x1.62e42fefa3800p-1
#define VM_LN2_LO42 0x1.ef35793c76730p-45
#define VM_LOG_OFF 0x3fe6955500000000ull
#define VM_LOG_B1 0x1.5555555555558p-2
#define VM_LOG_B2 -0x1.0000000000002p-2
#define VM_LOG_B3 0x1.999999972dcbbp-3
#define VM_LOG_B4 -0x1.5555555327825p-3
#define VM_LOG_B5 0x1.24953841bcaf9p-3
#define VM_LOG_B6 -0x1.0002a400bf841p-3

/* log x = hi + *lo (relative error about 2^-66) for finite x > 0; other x
 * give meaningless lanes, which the callers replace. */
VEC v4 vm_log_kernel(v4 x, v4 *lo)
{
    m4 sub = lt4(x, splat(0x1p-1022));
    vm_u4 ix = (vm_u4)sel(sub, x * splat(0x1p54), x);
    vm_u4 tmp = ix - VM_LOG_OFF;
    m4 i = (m4)((tmp >> 45) & 127u);
    /* k: the top 12 bits of tmp, sign-extended. */
    m4 k = (m4)(((tmp >> 52) ^ 0x800u) - 0x800u);
    v4 z = (v4)(ix - (tmp & (0xfffull << 52)));
    v4 kd = vm_int_to_v4(k) - keep(sub, splat(54.0));
    v4 invc = vm_gather(pdk_vm_log_invc, i);
    v4 logc = vm_gather(pdk_vm_log_logc, i);
    v4 logctail = vm_gather(pdk_vm_log_logctail, i);
    /* z = zhi + zlo, zhi the leading 21 bits (rounded): zhi invc - 1 and
     * zlo invc are exact, and so is their sum r (z invc - 1 fits a double);
     * rhi has at most 22 bits, so rhi^2 is exact too. */
    v4 zhi = (v4)(((vm_u4)z + (1ull << 31)) & (~0ull << 32));
    v4 zlo = z - zhi;
    v4 rhi = zhi * invc - splat(1.0);
    v4 rlo = zlo * invc;
    v4 r = rhi + rlo;
    v4 t1 = kd * splat(VM_LN2_HI42) + logc; /* exact */
    v4 t2, lo2;
    vm_two_sum(t1, r, &t2, &lo2);
    v4 lo1 = kd * splat(VM_LN2_LO42) + logctail;
    /* -r^2/2 = -rhi^2/2 (exact) - rlo (r + rhi)/2. */
    v4 arhi = splat(-0.5) * rhi;
    v4 arhi2 = rhi * arhi;
    v4 hi = t2 + arhi2;
    v4 lo4 = (t2 - hi) + arhi2;
    v4 lo3 = rlo * (splat(-0.5) * r + arhi);
    v4 r2 = r * r;
    v4 p = r2 * r *
           ((splat(VM_LOG_B1) + r * splat(VM_LOG_B2)) +
            r2 * ((splat(VM_LOG_B3) + r * splat(VM_LOG_B4)) +
                  r2 * (splat(VM_LOG_B5) + r * splat(VM_LOG_B6))));
    v4 l = (((lo1 + lo2) + lo3) + lo4) + p;
    v4 y = hi + l;
    *lo = (hi - y) + l;
    return y;
}

/* log(x) as libm gives it for special values: log(+inf) = inf,
 * log(+-0) = -inf, x < 0 or NaN gives NaN. */
VEC v4 vm_log_special(v4 x, v4 r)
{
    r = sel((m4)(x == splat((double)INFINITY)), x, r);
    r = sel((m4)(x == splat(0.0)), splat(-(double)INFINITY), r);
    return sel(~ge4(x, splat(0.0)), splat((double)NAN), r);
}

/* log(x) for x > 0 (subnormals included), exactly 0 at 1; as libm,
 * log(+-0) = -inf, log(inf) = inf, x < 0 and NaN give NaN. */
VEC v4 pdk_v_log(v4 x)
{
    v4 lo;
    return vm_log_special(x, vm_log_kernel(x, &lo));
}

/* ---- pow ---- */

/* x^y for x > 0: exp(y log x) with log x as a double-double (relative
 * error about 2^-66) and y log x as an exact product plus a small part,
 * which exp takes as well, so that the rounding of y log x (up to 2^-46
 * for |y log x| near 700) does not reach the result. The special cases
 * are libm's for x >= 0: x = 1 or y = 0 gives 1 (even for NaN), x = +0
 * gives +0 for y > 0 and inf for y < 0, x = inf the reverse, NaN gives
 * NaN; x < 0 gives NaN (unlike libm for integer y; outside the domain). */
VEC v4 pdk_v_pow(v4 x, v4 y)
{
    v4 lt;
    v4 lh = vm_log_kernel(x, &lt);
    v4 yhi = vm_top26(y);
    v4 ylo = y - yhi;
    v4 lhi = vm_top26(lh);
    v4 llo = (lh - lhi) + lt;
    v4 ehi = yhi * lhi;
    v4 elo = ylo * lhi + y * llo;
    v4 r = vm_exp_kernel(ehi, sel((m4)(elo == elo), elo, splat(0.0)));
    v4 zero = splat(0.0);
    v4 inf = splat((double)INFINITY);
    m4 y_neg = lt4(y, zero);
    r = sel((m4)(x == zero), sel(y_neg, inf, zero), r);
    r = sel((m4)(x == inf), sel(y_neg, zero, inf), r);
    r = sel(~ge4(x, zero) | (m4)(y != y), splat((double)NAN), r);
    return sel((m4)(x == splat(1.0)) | (m4)(y == zero), splat(1.0), r);
}

/* ---- tanh ---- */

/* tanh(a) for 0 <= a < 0.25: a + a^3 P(a^2), P fitted to
 * (tanh(a) - a) / a^3 at Chebyshev nodes (mpmath chebyfit, 8 terms,
 * relative error 0.011 ulp of tanh). */
#define VM_TANH_SMALL 0.25
#define VM_TH0 -0x1.5555555555555p-2
#define VM_TH1 0x1.11111111110a0p-3
#define VM_TH2 -0x1.ba1ba1b9f660bp-5
#define VM_TH3 0x1.664f485d6d4d4p-6
#define VM_TH4 -0x1.226e22fa6f453p-7
#define VM_TH5 0x1.d6c9f446c47cbp-9
#define VM_TH6 -0x1.7c2ad98792f89p-10
#define VM_TH7 0x1.17cd5b9306c04p-11

/* tanh(a) below a = VM_TANH_SMALL: the polynomial (no cancellation near
 * 0). */
VEC v4 vm_tanh_small(v4 a)
{
    v4 z = a * a;
    v4 z2 = z * z;
    v4 z4 = z2 * z2;
    v4 poly = ((splat(VM_TH0) + z * splat(VM_TH1)) + z2 * (splat(VM_TH2) + z * splat(VM_TH3))) +
              z4 * ((splat(VM_TH4) + z * splat(VM_TH5)) + z2 * (splat(VM_TH6) + z * splat(VM_TH7)));
    return a + a * z * poly;
}

/* tanh(a) from a = VM_TANH_SMALL to 20 (and a finite value beyond, which
 * pdk_v_tanh replaces): (E - 1) / (E + 1) with E = exp(2a) as a
 * double-double and the quotient as a 26-bit head plus the rest, so that
 * only the final sum rounds. */
VEC v4 vm_tanh_big(v4 a)
{
    v4 one = splat(1.0);
    /* E = eh + el, 1.6 < eh < 2^58 in the lanes that use it. */
    v4 el, s1, s2;
    v4 eh = vm_exp_core(splat(2.0) * sel(gt4(a, splat(20.0)), splat(20.0), a), splat(0.0), &el, &s1,
                        &s2);
    eh = eh * s1 * s2;
    el = el * s1 * s2;
    v4 nh = eh - one;
    v4 nl = ((eh - nh) - one) + el;
    v4 dh = eh + one;
    v4 dl = ((eh - dh) + one) + el;
    /* q = n / d = qt + ql with qt the quotient's leading 26 bits: qt dhh
     * and qt dhl are exact (dhh the leading 26 bits of dh), nh - qt dhh
     * is exact (Sterbenz), so the remainder is found to 2^-53 of itself. */
    v4 inv = one / dh;
    v4 qt = vm_top26(nh * inv);
    v4 dhh = vm_top26(dh);
    v4 ql = ((((nh - qt * dhh) - qt * (dh - dhh)) + nl) - qt * dl) * inv;
    return qt + ql;
}

/* tanh(x) for every x: odd (computed on |x| = a and given x's sign), +-1
 * from |x| = 20 on (tanh is 1 to 2^-57 there) and at +-inf, NaN for NaN;
 * vm_tanh_small below a = 0.25, vm_tanh_big above. */
VEC v4 pdk_v_tanh(v4 x)
{
    v4 a = abs4(x);
    v4 r = sel(lt4(a, splat(VM_TANH_SMALL)), vm_tanh_small(a),
               sel(gt4(a, splat(20.0)), splat(1.0), vm_tanh_big(a)));
    return (v4)((m4)r | ((m4)x & INT64_MIN));
}

/* ---- one value: lane 0 of the vector functions ---- */

/* Each is its vector function on four copies of the argument, lane 0
 * taken: the same bits as any lane of the vector call, by construction. */

static inline void pdk_sincos(double x, double *s, double *c)
{
    v4 vs, vc;
    pdk_v_sincos(splat(x), &vs, &vc);
    *s = vs[0];
    *c = vc[0];
}

static inline double pdk_sin(double x)
{
    return pdk_v_sin(splat(x))[0];
}

static inline double pdk_cos(double x)
{
    return pdk_v_cos(splat(x))[0];
}

static inline double pdk_atan(double x)
{
    return pdk_v_atan(splat(x))[0];
}

static inline double pdk_exp(double x)
{
    return pdk_v_exp(splat(x))[0];
}

static inline double pdk_log(double x)
{
    return pdk_v_log(splat(x))[0];
}

static inline double pdk_pow(double x, double y)
{
    return pdk_v_pow(splat(x), splat(y))[0];
}

/* pdk_v_tanh on one value, taking only the path its value takes: the
 * vector function computes both of its paths and selects, and a scalar
 * caller (the driveline's Coulomb torques near a standstill) would pay for
 * both on every call. Each path is the vector function's own, on four
 * copies of a, lane 0 taken, and x's sign bit is put on as there: the same
 * bits (test_vmath compares every scalar call with its vector function on
 * every lane). NaN and |x| > 20 take the vector function itself. */
static inline double pdk_tanh(double x)
{
    const double a = fabs(x);
    double r;
    if (a < VM_TANH_SMALL) {
        r = vm_tanh_small(splat(a))[0];
    } else if (a <= 20.0) {
        r = vm_tanh_big(splat(a))[0];
    } else {
        return pdk_v_tanh(splat(x))[0];
    }
    uint64_t bits, sign;
    memcpy(&bits, &r, sizeof bits);
    memcpy(&sign, &x, sizeof sign);
    bits |= sign & UINT64_C(0x8000000000000000);
    memcpy(&r, &bits, sizeof r);
    return r;
}

#endif
