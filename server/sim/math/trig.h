/* Sine and cosine for the simulation's state path, written out so that a
 * state hash does not depend on which libm (or which of its CPU-specific
 * variants) the process loaded. Only IEEE add, multiply, divide and exact
 * conversions between integers and doubles are used, and sim is built with
 * -ffp-contract=off, so the result is bit-identical on every conforming
 * platform; telemetry computed with them is reproducible too.
 * lanes.h repeats pdk_trig_atan2 for the slip-angle channels (atan2_4) and
 * pdk_trig_sincos for the camber curves and the single-track headings
 * (sincos4) step for step on four lanes, so a change here goes there too;
 * tests/unit/test_vmath.c compares sincos4, and the single-track and
 * four-wheel golden hashes hold both. */
#ifndef PDK_TRIG_H
#define PDK_TRIG_H

#include <math.h>
#include <stdint.h>

/* pi/2 split for Cody-Waite range reduction: PDK_TRIG_PIO2_HI holds the
 * leading 33 bits, so k * PDK_TRIG_PIO2_HI is exact for |k| < 2^20, and
 * PDK_TRIG_PIO2_LO is the rest of pi/2. */
#define PDK_TRIG_PIO2_HI 1.57079632673412561417e+00
#define PDK_TRIG_PIO2_LO 6.07710050650619224932e-11
#define PDK_TRIG_TWO_OVER_PI 6.36619772367581382433e-01

/* 1.5 * 2^52: x + M - M is x rounded to an integer for |x| < 2^51. */
#define PDK_TRIG_ROUND_MAGIC 6755399441055744.0

/* Largest |x| the reduction keeps accurate to about an ulp. The simulation
 * only passes wrapped yaw angles and road-wheel angles, both below 4. */
#define PDK_TRIG_MAX_ARG 1.0e5

/* Taylor series of sin and cos on |x| <= pi/4, Horner form. The first
 * omitted term is below x^17/17! = 4.6e-17 (sin) and x^18/18! = 2e-18
 * (cos) at x = pi/4, so the truncation error stays under half an ulp. */
static inline double pdk_trig_sin_kernel(double x)
{
    double z = x * x;
    double p = -1.0 / 1307674368000.0;
    p = 1.0 / 6227020800.0 + z * p;
    p = -1.0 / 39916800.0 + z * p;
    p = 1.0 / 362880.0 + z * p;
    p = -1.0 / 5040.0 + z * p;
    p = 1.0 / 120.0 + z * p;
    p = -1.0 / 6.0 + z * p;
    return x + x * z * p;
}

static inline double pdk_trig_cos_kernel(double x)
{
    double z = x * x;
    double p = 1.0 / 20922789888000.0;
    p = -1.0 / 87178291200.0 + z * p;
    p = 1.0 / 479001600.0 + z * p;
    p = -1.0 / 3628800.0 + z * p;
    p = 1.0 / 40320.0 + z * p;
    p = -1.0 / 720.0 + z * p;
    p = 1.0 / 24.0 + z * p;
    return 1.0 - (0.5 * z - z * z * p);
}

/* sin(x) and cos(x) for finite |x| <= PDK_TRIG_MAX_ARG, within about one ulp
 * of the exact values (tests/unit/test_single_track.c compares with libm).
 * Any other x, NaN and infinities included, gives NaN or an inaccurate
 * value, never undefined behaviour. */
static inline void pdk_trig_sincos(double x, double *sin_out, double *cos_out)
{
    /* Nearest multiple k of pi/2: adding and subtracting 1.5 * 2^52 rounds
     * to an integer in IEEE round-to-nearest (sim never changes the rounding
     * mode), without a branch on the sign. */
    double t = x * PDK_TRIG_TWO_OVER_PI;
    double k = (t + PDK_TRIG_ROUND_MAGIC) - PDK_TRIG_ROUND_MAGIC;
    /* Converting a NaN or a huge k to an integer is undefined; the quadrant
     * of such an x is meaningless anyway (y is NaN or inaccurate). */
    int64_t n = k > -4.0e15 && k < 4.0e15 ? (int64_t)k : 0;
    double y = (x - k * PDK_TRIG_PIO2_HI) - k * PDK_TRIG_PIO2_LO;
    /* Quadrant n mod 4 by table lookup rather than branches (headings are
     * spread over all quadrants, so a branch would mispredict); multiplying
     * by +-1 is exact. */
    static const double flip[2] = {1.0, -1.0};
    double sc[2];
    sc[0] = pdk_trig_sin_kernel(y);
    sc[1] = pdk_trig_cos_kernel(y);
    unsigned q = (unsigned)(n & 3);
    *sin_out = sc[q & 1u] * flip[q >> 1];
    *cos_out = sc[(q & 1u) ^ 1u] * flip[((q + 1u) >> 1) & 1u];
}

/* atan(k/8), k = 0..8, each the double nearest the exact value. */
static const double pdk_trig_atan_table[9] = {
    0.0,
    0.12435499454676144,
    0.24497866312686414,
    0.35877067027057225,
    0.4636476090008061,
    0.5585993153435624,
    0.6435011087932844,
    0.7188299996216245,
    0.7853981633974483,
};

/* pi/2 and pi as a double plus the double nearest the remainder. */
#define PDK_TRIG_PIO2_D 1.5707963267948966
#define PDK_TRIG_PIO2_D_LO 6.123233995736766e-17
#define PDK_TRIG_PI_D 3.141592653589793
#define PDK_TRIG_PI_D_LO 1.2246467991473532e-16

/* atan2(y, x) within about two ulp of the exact value and with C's signs
 * and quadrants (atan2(+-0, +0) = +-0, atan2(+-inf, +-inf) = +-pi/4 or
 * +-3pi/4); NaN (this canonical NaN) when either argument is NaN. The ratio t
 * in [0, 1] is reduced by the nearest k/8, atan(t) = atan(k/8) +
 * atan((t - k/8) / (1 + t k/8)), leaving |u| <= 1/16, where the Taylor
 * series to u^13 is exact to 5e-20. No argument can take the table index
 * out of 0..8. */
#define PDK_TRIG_NAN ((double)NAN)

static inline double pdk_trig_atan2(double y, double x)
{
    if (isnan(x) || isnan(y)) {
        return PDK_TRIG_NAN;
    }
    double ax = fabs(x);
    double ay = fabs(y);
    double r;
    if (ay == 0.0 && ax == 0.0) {
        r = signbit(x) ? PDK_TRIG_PI_D : 0.0;
    } else {
        int swap = ay > ax;
        double t = swap ? ax / ay : ay / ax;
        if (isnan(t)) {
            t = 1.0; /* both infinite */
        }
        double t8 = t * 8.0 + 0.5;
        t8 = t8 < 8.5 ? t8 : 8.5; /* t <= 1; the clamp only guards the index */
        int k = (int)t8;
        double c = (double)k * 0.125;
        double u = (t - c) / (1.0 + t * c);
        double z = u * u;
        double p = 1.0 / 13.0;
        p = -1.0 / 11.0 + z * p;
        p = 1.0 / 9.0 + z * p;
        p = -1.0 / 7.0 + z * p;
        p = 1.0 / 5.0 + z * p;
        p = -1.0 / 3.0 + z * p;
        r = pdk_trig_atan_table[k] + (u + u * z * p);
        if (swap) {
            r = (PDK_TRIG_PIO2_D - r) + PDK_TRIG_PIO2_D_LO;
        }
        if (signbit(x)) {
            r = (PDK_TRIG_PI_D - r) + PDK_TRIG_PI_D_LO;
        }
    }
    return signbit(y) ? -r : r;
}

#endif
