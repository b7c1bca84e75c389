/* Sine, cosine and atan2 for the simulation's state path, written out so
 * that a state hash does not depend on which libm (or which of its
 * CPU-specific variants) the process loaded. Only IEEE add, multiply,
 * divide and exact conversions between integers and doubles are used, and
 * sim is built with -ffp-contract=off, so the result is bit-identical on
 * every conforming platform; telemetry computed with them is reproducible
 * too. Each formula is written once, over lanes, in trig_lanes.h: this
 * header compiles it for four lanes (sincos4, atan2_4: the camber curves,
 * the slip-angle channels, the single-track headings) and for two
 * (sincos2, atan2_2: the lone single-track build), and a scalar call is
 * lane 0 of the two-lane function, so every lane of every width gives the
 * scalar call's bits. */
#ifndef PDK_TRIG_H
#define PDK_TRIG_H

#include <math.h>
#include <stdint.h>

#include "math/lanes.h"

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

/* The NaN atan2 gives for a NaN argument, always this one. */
#define PDK_TRIG_NAN ((double)NAN)

/* sincos4 and atan2_4: four lanes. */
#define TRIG_W 4
#define TRIG_V v4
#define TRIG_M m4
#define TRIG_SPLAT splat
#define TRIG_SEL sel
#define TRIG_PICK sel
#define TRIG_KEEP keep
#define TRIG_LT lt4
#define TRIG_GT gt4
#define TRIG_ABS abs4
#define TRIG_SINCOS sincos4
#define TRIG_ATAN2 atan2_4
#include "math/trig_lanes.h"

/* sincos2 and atan2_2: two lanes; atan2_2 takes one argument pair in both
 * lanes (its rare cases are branches, pick2). */
#define TRIG_W 2
#define TRIG_V lane2
#define TRIG_M mask2
#define TRIG_SPLAT splat2
#define TRIG_SEL sel2
#define TRIG_PICK pick2
#define TRIG_KEEP keep2
#define TRIG_LT lt2
#define TRIG_GT gt2
#define TRIG_ABS abs2
#define TRIG_SINCOS sincos2
#define TRIG_ATAN2 atan2_2
#include "math/trig_lanes.h"

/* sin(x) and cos(x) (sincos in trig_lanes.h): within about one ulp for
 * finite |x| <= PDK_TRIG_MAX_ARG; any other x gives NaN or an inaccurate
 * value, never undefined behaviour. */
static inline void pdk_trig_sincos(double x, double *sin_out, double *cos_out)
{
    lane2 s, c;
    sincos2(splat2(x), &s, &c);
    *sin_out = s[0];
    *cos_out = c[0];
}

/* atan2(y, x) (atan2 in trig_lanes.h): within about two ulp, C's signs and
 * quadrants, PDK_TRIG_NAN when either argument is NaN. */
static inline double pdk_trig_atan2(double y, double x)
{
    return atan2_2(splat2(y), splat2(x))[0];
}

#endif
