/* The four-wheel step's own lane helpers (internal to the four-wheel step,
 * four_wheel_step.h), on the four-wide vectors of lanes.h: the
 * deterministic asin lane by lane, the four wheels' sums in a fixed order,
 * and the small functions of the tyres' relaxation and carcass. Everything
 * here is static and always inlined, so that the AVX2 build of the step
 * (four_wheel_avx.c) compiles it for AVX2 too; that is why it is a header
 * and not a second .c file. */
#ifndef PDK_FOUR_WHEEL_LANES_H
#define PDK_FOUR_WHEEL_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math/lanes.h"
#include "math/trig.h"
#include "sim/vehicle_def.h"
#include "vehicle/four_wheel.h"

/* asin(s) for |s| <= 1, deterministic like trig.h. Up to |s| = 0.25 (14
 * degrees, every camber a car runs) by its Taylor series to s^23,
 * sum C(2k, k) / (4^k (2k + 1)) s^(2k+1): the first omitted term is below
 * 0.0066 * 0.25^25 = 5.8e-18, a twentieth of an ulp of the result. Beyond,
 * by atan2(s, sqrt(1 - s^2)). */
static inline double asin_det(double s)
{
    if (s >= -0.25 && s <= 0.25) {
        double z = s * s;
        double p = 88179.0 / 12058624.0; /* k = 11 */
        p = 46189.0 / 5505024.0 + z * p;
        p = 12155.0 / 1245184.0 + z * p;
        p = 6435.0 / 557056.0 + z * p;
        p = 143.0 / 10240.0 + z * p;
        p = 231.0 / 13312.0 + z * p;
        p = 63.0 / 2816.0 + z * p;
        p = 35.0 / 1152.0 + z * p;
        p = 5.0 / 112.0 + z * p;
        p = 3.0 / 40.0 + z * p;
        p = 1.0 / 6.0 + z * p;
        return s + s * (z * p);
    }
    s = s < -1.0 ? -1.0 : (s > 1.0 ? 1.0 : s);
    return pdk_trig_atan2(s, sqrt(1.0 - s * s));
}

/* asin_det lane by lane where |s| <= 0.25 (the series), and by the scalar
 * code in the lanes beyond. */
VEC v4 asin4(v4 s)
{
    v4 z = s * s;
    v4 p = splat(88179.0 / 12058624.0);
    p = splat(46189.0 / 5505024.0) + z * p;
    p = splat(12155.0 / 1245184.0) + z * p;
    p = splat(6435.0 / 557056.0) + z * p;
    p = splat(143.0 / 10240.0) + z * p;
    p = splat(231.0 / 13312.0) + z * p;
    p = splat(63.0 / 2816.0) + z * p;
    p = splat(35.0 / 1152.0) + z * p;
    p = splat(5.0 / 112.0) + z * p;
    p = splat(3.0 / 40.0) + z * p;
    p = splat(1.0 / 6.0) + z * p;
    v4 r = s + s * (z * p);
    m4 in = (m4)(s >= splat(-0.25)) & (m4)(s <= splat(0.25));
    if (any4(~in)) {
        for (int i = 0; i < PDK_WHEELS; i++) {
            if (in[i] == 0) {
                r[i] = asin_det(s[i]);
            }
        }
    }
    return r;
}

/* The sums of the four wheels' values of a, b, c and d, each as (FL + RL)
 * + (FR + RR). */
VEC v4 sum4x4(v4 a, v4 b, v4 c, v4 d)
{
    v4 x = (v4){a[0], a[1], c[0], c[1]} + (v4){a[2], a[3], c[2], c[3]};
    v4 y = (v4){b[0], b[1], d[0], d[1]} + (v4){b[2], b[3], d[2], d[3]};
    return (v4){x[0], y[0], x[2], y[2]} + (v4){x[1], y[1], x[3], y[3]};
}

/* x within -m..m lane by lane. */
VEC v4 clamp_sym4(v4 x, v4 m)
{
    return sel(gt4(x, m), m, sel(lt4(x, -m), -m, x));
}

/* The lanes' -1 where x < 0, +1 where x > 0, 0 where x is 0. */
VEC v4 sign4(v4 x)
{
    const v4 zero = splat(0.0);
    return sel(gt4(x, zero), splat(1.0), sel(lt4(x, zero), splat(-1.0), zero));
}

/* The relaxation's g = h phi(z) with phi(z) = (1 - e) / z, e = exp(-z),
 * z = |V_x| h / sigma >= 0, and sigma_per_v = sigma / |V_x|: below z = 0.05
 * h times phi's series 1 - z/2 + z^2/6 - ... - z^7/40320, whose first
 * omitted term, z^8 / 9!, is below 1.1e-16 there; above it (1 - e) sigma /
 * |V_x|, which loses at most 2e-15 to the rounding of 1 - e. */
VEC v4 relax_g4(v4 z, v4 e, v4 h, v4 sigma_per_v)
{
    v4 p = splat(-1.0 / 40320.0);
    p = splat(1.0 / 5040.0) + z * p;
    p = splat(-1.0 / 720.0) + z * p;
    p = splat(1.0 / 120.0) + z * p;
    p = splat(-1.0 / 24.0) + z * p;
    p = splat(1.0 / 6.0) + z * p;
    p = splat(-0.5) + z * p;
    p = splat(1.0) + z * p;
    m4 small = lt4(z, splat(0.05));
    return sel(small, h * p, (splat(1.0) - e) * sigma_per_v);
}

/* The share of the relaxation's g that the substep's start input carries
 * when the input moves linearly from its start value to its end value
 * over the substep (a first-order hold): the exact solution of
 * du/dt = v(t) - |V_x| u / sigma is then u1 = e u0 + g0 v0 + (g - g0) v1
 * with g0 = h psi(z), psi(z) = (phi(z) - e) / z = (1 - (1 + z) e) / z^2.
 * psi falls from 1/2 at z = 0 (the trapezoidal rule) toward 1/z^2 (the
 * start's input forgotten within the substep). Below z = 0.05 h times
 * psi's series 1/2 - z/3 + z^2/8 - ... + (-1)^k (k + 1) z^k / (k + 2)!
 * to k = 7, whose first omitted term is below 1e-16 there; above it the
 * closed form, which loses at most 1e-13 to the rounding of 1 - (1 + z) e. */
VEC v4 relax_g0_4(v4 z, v4 e, v4 h)
{
    v4 p = splat(-8.0 / 362880.0);
    p = splat(7.0 / 40320.0) + z * p;
    p = splat(-6.0 / 5040.0) + z * p;
    p = splat(5.0 / 720.0) + z * p;
    p = splat(-4.0 / 120.0) + z * p;
    p = splat(3.0 / 24.0) + z * p;
    p = splat(-2.0 / 6.0) + z * p;
    p = splat(0.5) + z * p;
    const m4 small = lt4(z, splat(0.05));
    const v4 zs = sel(small, splat(1.0), z);
    return sel(small, h * p, h * ((splat(1.0) - (splat(1.0) + zs) * e) / (zs * zs)));
}

/* The linear fade of the carcass damper with the contact's speed v:
 * 1 up to PDK_FW_CARCASS_FULL_MPS, 0 from PDK_FW_CARCASS_FADE_MPS. */
VEC v4 carcass_fade4(v4 v)
{
    v4 f = (splat(PDK_FW_CARCASS_FADE_MPS) - v) *
           splat(1.0 / (PDK_FW_CARCASS_FADE_MPS - PDK_FW_CARCASS_FULL_MPS));
    f = max4(f, splat(0.0));
    return sel(gt4(f, splat(1.0)), splat(1.0), f);
}

#endif
