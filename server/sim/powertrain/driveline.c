/* The implicit driveline over one substep (driveline.h): each wheel's
 * torque law, the differentials and the couplings of a secondary axle, the
 * clutch, and the bracketed Newton root finder that solves them together
 * for the carrier's end speed. */
#include "powertrain/driveline.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "math/vmath.h" /* pdk_tanh: the same bits on every build, unlike libm's */
#include "sim/error.h"

/* The root finder's limits. A bracket's step doubles at most this many
 * times (from 1 rad/s that is 1.6e60 rad/s, far beyond any speed), so a
 * function that never changes sign still ends. */
#define ROOT_MAX_DOUBLINGS 200
/* Steps inside a bracket. Newton lands on the root of a linear piece in
 * one step, and every third step at least halves the bracket, so an
 * ordinary bracket (within 2^60 of the tolerance) needs far fewer. */
#define ROOT_MAX_STEPS 200
/* Consecutive Newton steps that fail to halve the bracket before a
 * bisection takes over. */
#define ROOT_SLOW_NEWTON 2

/* fmax and fmin without libm's call (no NaN reaches them here). */
static inline double max_d(double a, double b)
{
    return a > b ? a : b;
}

static inline double min_d(double a, double b)
{
    return a < b ? a : b;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* a and b are the same double bit for bit (so -0 is not 0). */
static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* pdk_dl_wheel_torque, inlined into the solve's loops. */
static inline __attribute__((always_inline)) double
wheel_torque(const pdk_dl_wheel *wheel, double h_s, double spin_radps, double *slope)
{
    /* The shaft torque a wheel needs: the torque that
     * turns the wheel from w0 to w over h, J (w - w0) / h, plus the tyre's
     * force over the substep times the radius, plus the Coulomb torques
     * smoothed by tanh(w / 0.1 rad/s). The tyre's end force is the chassis
     * solve's linearisation (ADR 0008), bounded by F_max; the wheel takes
     * its start's share s of the start's force and the rest of the end's. */
    const double fx_lin_n =
        wheel->fx_e_n + wheel->kx_nspm * (spin_radps * wheel->radius_m - wheel->vx_mps);
    const double s = wheel->start_share;
    const double fx_n =
        s * wheel->fx0_n + (1.0 - s) * clamp(fx_lin_n, -wheel->fx_max_n, wheel->fx_max_n);
    /* pdk_tanh is exactly +-1 beyond 20: the same bits without its cost
     * for a wheel that turns (faster than 2 rad/s). */
    const double x = spin_radps / PDK_DL_COULOMB_RADPS;
    const double th = x > 20.0 ? 1.0 : (x < -20.0 ? -1.0 : pdk_tanh(x));
    if (slope != NULL) {
        /* The derivative of each term: J / h; (1 - s) R^2 k while the
         * force is inside its bound and 0 on it; B (1 - tanh^2) / 0.1 rad/s. */
        const bool inside = fx_lin_n > -wheel->fx_max_n && fx_lin_n < wheel->fx_max_n;
        const double tyre_slope =
            inside ? (1.0 - s) * (wheel->radius_m * wheel->radius_m * wheel->kx_nspm) : 0.0;
        *slope = wheel->inertia_kgm2 / h_s + tyre_slope +
                 wheel->coulomb_nm * (1.0 - th * th) / PDK_DL_COULOMB_RADPS;
    }
    return wheel->inertia_kgm2 * (spin_radps - wheel->spin0_radps) / h_s + wheel->radius_m * fx_n +
           wheel->coulomb_nm * th;
}

double pdk_dl_wheel_torque(const pdk_dl_wheel *wheel, double h_s, double spin_radps, double *slope)
{
    return wheel_torque(wheel, h_s, spin_radps, slope);
}

/* ---- the rising root finder (bracketing, with Newton steps) ---- */

/* A non-decreasing function of x and its slope at x (>= 0). */
typedef double (*rising_fn)(const void *ctx, double x, double *slope);

/* The root finder's tolerance at x: a few ulps of the larger of |x| and
 * the scale. */
static double root_tol(double x, double x_scale)
{
    return 2.0 * DBL_EPSILON * max_d(fabs(x), x_scale);
}

/* Whether x, where f is fx with slope sx, is a root within the tolerance:
 * f is exactly 0 there, or the Newton step to the root of f's tangent is
 * shorter than the tolerance. The torque laws are linear between their
 * kinks, so Newton lands on a piece's root and this ends the search at
 * that evaluation, instead of two more that only closed a bracket of the
 * tolerance's width around it (and then mostly returned this same point,
 * the end with the smaller |f|). What is left of f is below sx times a few
 * ulps of x: about 1e-10 N m on a car's driveline. A driveline solve of the
 * midsize sedan went from 38 wheel-torque evaluations to 17. */
static bool root_found(double x, double fx, double sx, double x_scale)
{
    return fx == 0.0 || (sx > 0.0 && fabs(fx) <= sx * root_tol(x, x_scale));
}

/* The x where f crosses 0, given f's value f0 and slope slope0 at a first
 * estimate x0. It steps from x0 toward the root, first by the Newton
 * distance and then by step0 and doubling, until f changes sign; then,
 * inside the bracket, it takes Newton steps from the end with the smaller
 * |f| and bisects where a step would leave the bracket, the slope is 0, or
 * Newton has twice failed to halve the bracket. A Newton step moves at
 * least the tolerance, so that a step converging from one side crosses
 * the root and closes the bracket. It stops at a point where f is exactly
 * 0 or where the Newton step f / slope is within the tolerance (a few ulps
 * of max(|x|, x_scale)), where the bracket is within that tolerance, or
 * after ROOT_MAX_STEPS, returning the end with the smaller |f|. If f never
 * changes sign (it is bounded: only a pathological wheel without inertia
 * does that) it returns the last point tried. Each evaluation of f adds 1
 * to *evaluations. */
static double rising_root(rising_fn f, const void *ctx, double x0, double f0, double slope0,
                          double step0, double x_scale, int *evaluations)
{
    if (root_found(x0, f0, slope0, x_scale)) {
        return x0;
    }
    const double dir = f0 > 0.0 ? -1.0 : 1.0;
    double step = slope0 > 0.0 ? fabs(f0 / slope0) : step0;
    if (!(step > 0.0 && step <= DBL_MAX)) {
        step = step0;
    }
    double x_near = x0, f_near = f0, s_near = slope0;
    double x_far, f_far, s_far;
    for (int doublings = 0;; doublings++) {
        x_far = x_near + dir * step;
        f_far = f(ctx, x_far, &s_far);
        (*evaluations)++;
        if (root_found(x_far, f_far, s_far, x_scale)) {
            return x_far;
        }
        if (dir > 0.0 ? f_far > 0.0 : f_far < 0.0) {
            break;
        }
        if (doublings >= ROOT_MAX_DOUBLINGS) {
            return x_far;
        }
        x_near = x_far;
        f_near = f_far;
        s_near = s_far;
        step = max_d(2.0 * step, step0);
    }
    /* f(lo) < 0 < f(hi). */
    const bool up = dir > 0.0;
    double lo = up ? x_near : x_far;
    double f_lo = up ? f_near : f_far;
    double s_lo = up ? s_near : s_far;
    double hi = up ? x_far : x_near;
    double f_hi = up ? f_far : f_near;
    double s_hi = up ? s_far : s_near;
    int slow = 0;
    for (int i = 0; i < ROOT_MAX_STEPS; i++) {
        const double width = hi - lo;
        const double tol = root_tol(max_d(fabs(lo), fabs(hi)), x_scale);
        if (!(width > 2.0 * tol)) {
            break;
        }
        double x = lo + 0.5 * width;
        bool newton = false;
        const bool from_lo = -f_lo < f_hi;
        const double s_end = from_lo ? s_lo : s_hi;
        if (slow < ROOT_SLOW_NEWTON && s_end > 0.0) {
            double xn = from_lo ? lo - f_lo / s_end : hi - f_hi / s_end;
            xn = from_lo ? max_d(xn, lo + tol) : min_d(xn, hi - tol);
            if (xn > lo && xn < hi) {
                x = xn;
                newton = true;
            }
        }
        double sx;
        const double fx = f(ctx, x, &sx);
        (*evaluations)++;
        if (root_found(x, fx, sx, x_scale)) {
            return x;
        }
        if (fx < 0.0) {
            lo = x;
            f_lo = fx;
            s_lo = sx;
        } else {
            hi = x;
            f_hi = fx;
            s_hi = sx;
        }
        slow = newton && hi - lo > 0.5 * width ? slow + 1 : 0;
    }
    return -f_lo < f_hi ? lo : hi;
}

/* ---- one axle behind its differential ---- */

/* The wheels' torques and slopes at the last split d that gap evaluated,
 * so that the split the root finder returns (mostly that last one) costs
 * no second evaluation. */
typedef struct gap_last {
    double d_radps;
    double t_l_nm, slope_l, t_r_nm, slope_r;
    bool valid;
} gap_last;

/* The slipping differential: wheels at c + d and c - d, the torque
 * difference at the friction's limit in the direction s it slips. */
typedef struct gap_ctx {
    const pdk_dl_wheel *left;
    const pdk_dl_wheel *right;
    double h_s;
    double carrier_radps;
    const pdk_dl_diff *diff; /* open or limited slip */
    double k_b;              /* (TBR - 1) / (TBR + 1) */
    double sign;       /* s: +1 while the left wheel takes the larger torque */
    gap_last *last;    /* gap's last evaluation, when not NULL */
} gap_ctx;

/* k_b of a differential: (TBR - 1) / (TBR + 1) for a limited slip one, 0
 * for an open one. */
static double bias_coeff(const pdk_dl_diff *diff)
{
    return diff->kind == PDK_DIFF_LSD ? (diff->bias_ratio - 1.0) / (diff->bias_ratio + 1.0) : 0.0;
}

double pdk_dl_diff_hold_nm(const pdk_dl_diff *diff, double sum_nm)
{
    if (diff->kind == PDK_DIFF_LOCKED) {
        return HUGE_VAL;
    }
    return bias_coeff(diff) * fabs(sum_nm) + (diff->kind == PDK_DIFF_LSD ? diff->preload_nm : 0.0);
}

/* g = T_L - T_R - s (k_b |T_L + T_R| + P) from the wheels' torques, and its
 * derivative in d: T_L' + T_R' - s k_b sign(T_L + T_R) (T_L' - T_R'), at
 * least (1 - k_b)(T_L' + T_R') >= 0, so g rises in d. */
static double gap_of(const gap_ctx *g, double t_l_nm, double slope_l, double t_r_nm, double slope_r,
                     double *slope)
{
    const double sum_sign = t_l_nm + t_r_nm >= 0.0 ? 1.0 : -1.0;
    *slope = slope_l + slope_r - g->sign * g->k_b * sum_sign * (slope_l - slope_r);
    return t_l_nm - t_r_nm - g->sign * pdk_dl_diff_hold_nm(g->diff, t_l_nm + t_r_nm);
}

static double gap(const void *ctx, double d_radps, double *slope)
{
    const gap_ctx *g = ctx;
    double slope_l, slope_r;
    const double t_l = wheel_torque(g->left, g->h_s, g->carrier_radps + d_radps, &slope_l);
    const double t_r = wheel_torque(g->right, g->h_s, g->carrier_radps - d_radps, &slope_r);
    if (g->last != NULL) {
        *g->last = (gap_last){d_radps, t_l, slope_l, t_r, slope_r, true};
    }
    return gap_of(g, t_l, slope_l, t_r, slope_r, slope);
}

typedef struct axle_state {
    double torque_nm; /* T_L + T_R, at the carrier */
    double slope;     /* its derivative in the carrier's speed */
    double spin_radps[2];
    double shaft_nm[2];
} axle_state;

/* The torque an axle needs to end at carrier speed c, through its
 * differential (driveline.h): the open axle's equal split, generalised to a
 * limited slip one. */
static void axle_at(const pdk_dl_wheel *left, const pdk_dl_wheel *right, const pdk_dl_diff *diff,
                    double h_s, double carrier_radps, axle_state *out)
{
    double slope_l, slope_r;
    double t_l = wheel_torque(left, h_s, carrier_radps, &slope_l);
    double t_r = wheel_torque(right, h_s, carrier_radps, &slope_r);
    double d_radps = 0.0;
    double slope = slope_l + slope_r;
    if (diff->kind != PDK_DIFF_LOCKED) {
        /* The torque-bias ratio's definition: the diff's friction holds
         * T_hi / T_lo <= TBR, which is |T_L - T_R| <= k_b |T_L + T_R| with
         * k_b = (TBR - 1) / (TBR + 1), plus the preload; an open diff has
         * TBR 1 and no preload, so only equal torques hold it. */
        gap_ctx g = {
            .left = left,
            .right = right,
            .h_s = h_s,
            .carrier_radps = carrier_radps,
            .diff = diff,
            .k_b = bias_coeff(diff),
            .sign = t_l > t_r ? 1.0 : -1.0,
        };
        if (fabs(t_l - t_r) > pdk_dl_diff_hold_nm(diff, t_l + t_r)) {
            /* It slips: the wheel that needs more torque to turn at c
             * turns slower (d has the sign -s) and takes the larger
             * torque. */
            double g0_slope;
            const double g0 = gap_of(&g, t_l, slope_l, t_r, slope_r, &g0_slope);
            int evaluations = 0;
            gap_last last = {.valid = false};
            g.last = &last;
            d_radps =
                rising_root(gap, &g, 0.0, g0, g0_slope, max_d(1.0, 0.05 * fabs(carrier_radps)),
                            max_d(fabs(carrier_radps), 1e-9), &evaluations);
            /* The torques at d: at 0 they are t_l and t_r already; at the
             * last split tried, gap's; elsewhere (an end of the bracket
             * tried earlier) evaluated again. */
            if (last.valid && same_bits(last.d_radps, d_radps)) {
                t_l = last.t_l_nm;
                slope_l = last.slope_l;
                t_r = last.t_r_nm;
                slope_r = last.slope_r;
            } else if (d_radps != 0.0 || carrier_radps == 0.0) { /* c + 0 is +0 for c = -0 */
                t_l = wheel_torque(left, h_s, carrier_radps + d_radps, &slope_l);
                t_r = wheel_torque(right, h_s, carrier_radps - d_radps, &slope_r);
            }
            /* The implicit derivative of T_L + T_R in c with the diff at its
             * limit: differentiating (1 - q) T_L - (1 + q) T_R = s P,
             * q = s k_b sign(T_L + T_R), with w_L = c + d and w_R = c - d
             * gives dT/dc = 4 a b / ((1 - q) a + (1 + q) b), a = T_L',
             * b = T_R' (for the open diff, 4 / (1/a + 1/b)). */
            const double q = g.sign * g.k_b * (t_l + t_r >= 0.0 ? 1.0 : -1.0);
            const double den = (1.0 - q) * slope_l + (1.0 + q) * slope_r;
            slope = den > 0.0 ? 4.0 * slope_l * slope_r / den : 0.0;
        }
    }
    out->torque_nm = t_l + t_r;
    out->slope = slope;
    out->spin_radps[0] = carrier_radps + d_radps;
    out->spin_radps[1] = carrier_radps - d_radps;
    out->shaft_nm[0] = t_l;
    out->shaft_nm[1] = t_r;
}

/* ---- a centre differential between two axles ---- */

typedef struct centre_ctx {
    const pdk_dl_wheel *wheels;
    const pdk_dl_layout *layout;
    double h_s;
    gap_ctx g; /* the centre diff's law; left the primary, right the secondary */
} centre_ctx;

/* Each side's torque at the centre's output speeds c + e (the primary
 * carrier) and c - e (the secondary, whose ring turns K times as fast and
 * takes K times its axle's torque there). */
static void centre_sides(const centre_ctx *cc, double c_radps, double e_radps, axle_state *prim,
                         axle_state *sec)
{
    const pdk_dl_layout *l = cc->layout;
    const int p = 2 * l->primary, s = 2 - p;
    const double k = l->secondary_k;
    axle_at(&cc->wheels[p], &cc->wheels[p + 1], &l->primary_diff, cc->h_s, c_radps + e_radps, prim);
    axle_at(&cc->wheels[s], &cc->wheels[s + 1], &l->secondary_diff, cc->h_s,
            k * (c_radps - e_radps), sec);
}

static double centre_gap(const void *ctx, double e_radps, double *slope)
{
    const centre_ctx *cc = ctx;
    const double k = cc->layout->secondary_k;
    axle_state prim, sec;
    centre_sides(cc, cc->g.carrier_radps, e_radps, &prim, &sec);
    return gap_of(&cc->g, prim.torque_nm, prim.slope, k * sec.torque_nm, k * k * sec.slope, slope);
}

/* The torque both axles need at the centre's output speed c through the
 * centre differential, and its slope; the axles' states at the split found. */
static void centre_at(const pdk_dl_wheel *wheels, const pdk_dl_layout *layout, double h_s,
                      double c_radps, double *torque_nm, double *slope, axle_state *prim,
                      axle_state *sec)
{
    const pdk_dl_diff *diff = &layout->centre_diff;
    const double k = layout->secondary_k;
    centre_ctx cc = {.wheels = wheels, .layout = layout, .h_s = h_s};
    centre_sides(&cc, c_radps, 0.0, prim, sec);
    double t_p = prim->torque_nm, s_p = prim->slope;
    double t_s = k * sec->torque_nm, s_s = k * k * sec->slope;
    *slope = s_p + s_s;
    if (diff->kind != PDK_DIFF_LOCKED) {
        /* The axle differential's law (axle_at), between the axles. */
        cc.g = (gap_ctx){
            .h_s = h_s,
            .carrier_radps = c_radps,
            .diff = diff,
            .k_b = bias_coeff(diff),
            .sign = t_p > t_s ? 1.0 : -1.0,
        };
        if (fabs(t_p - t_s) > pdk_dl_diff_hold_nm(diff, t_p + t_s)) {
            double g0_slope;
            const double g0 = gap_of(&cc.g, t_p, s_p, t_s, s_s, &g0_slope);
            int evaluations = 0;
            const double e =
                rising_root(centre_gap, &cc, 0.0, g0, g0_slope, max_d(1.0, 0.05 * fabs(c_radps)),
                            max_d(fabs(c_radps), 1e-9), &evaluations);
            centre_sides(&cc, c_radps, e, prim, sec);
            t_p = prim->torque_nm;
            s_p = prim->slope;
            t_s = k * sec->torque_nm;
            s_s = k * k * sec->slope;
            const double q = cc.g.sign * cc.g.k_b * (t_p + t_s >= 0.0 ? 1.0 : -1.0);
            const double den = (1.0 - q) * s_p + (1.0 + q) * s_s;
            *slope = den > 0.0 ? 4.0 * s_p * s_s / den : 0.0;
        }
    }
    *torque_nm = t_p + t_s;
}

/* ---- the balance at the carrier ---- */

typedef struct balance_ctx {
    const pdk_dl_layout *layout;
    const pdk_dl_engine *engine;
    const pdk_dl_wheel *wheels;
    double h_s;
    bool clutch_open; /* neutral, or no capacity either way */
    /* The outputs at the last carrier speed evaluated (balance fills
     * them), so that the root the finder returns, mostly that last one,
     * costs no second evaluation. */
    pdk_dl_result *last;
    double *last_c_radps;
} balance_ctx;

static void put_wheel(pdk_dl_result *out, int j, double spin_radps, double shaft_nm)
{
    out->spin_radps[j] = spin_radps;
    out->shaft_nm[j] = shaft_nm;
    out->driven |= 1u << j;
}

/* The balance T_need(c) - D(T_c(c)), or T_need(c) with the clutch open,
 * and its slope; with fill, every output the
 * substep reports at c except the carrier and the evaluations. */
static double balance_at(const balance_ctx *ctx, double c_radps, double *slope, pdk_dl_result *fill)
{
    const pdk_dl_layout *layout = ctx->layout;
    const pdk_dl_engine *engine = ctx->engine;
    const int p = 2 * layout->primary;
    const int s = 2 - p;
    axle_state axle;
    double need_nm, need_slope;
    if (layout->coupling == PDK_COUPLING_CENTRE) {
        axle_state sec;
        centre_at(ctx->wheels, layout, ctx->h_s, c_radps, &need_nm, &need_slope, &axle, &sec);
        if (fill != NULL) {
            put_wheel(fill, s, sec.spin_radps[0], sec.shaft_nm[0]);
            put_wheel(fill, s + 1, sec.spin_radps[1], sec.shaft_nm[1]);
        }
    } else {
        axle_at(&ctx->wheels[p], &ctx->wheels[p + 1], &layout->primary_diff, ctx->h_s, c_radps,
                &axle);
        need_nm = axle.torque_nm;
        need_slope = axle.slope;
    }
    if (fill != NULL) {
        put_wheel(fill, p, axle.spin_radps[0], axle.shaft_nm[0]);
        put_wheel(fill, p + 1, axle.spin_radps[1], axle.shaft_nm[1]);
    }

    /* The wheels in total: each coupled wheel of
     * the secondary axle turns at K c and adds K times its torque (a torque
     * T at the ring, which turns K times as fast as the carrier, takes the
     * power T K c, which is the carrier's torque K T at c). */
    const double k = layout->secondary_k;
    const double ring_radps = k * c_radps;
    if (layout->coupling == PDK_COUPLING_LOCKED) {
        axle_state sec;
        axle_at(&ctx->wheels[s], &ctx->wheels[s + 1], &layout->secondary_diff, ctx->h_s, ring_radps,
                &sec);
        need_nm += k * sec.torque_nm;
        need_slope += k * k * sec.slope;
        if (fill != NULL) {
            put_wheel(fill, s, sec.spin_radps[0], sec.shaft_nm[0]);
            put_wheel(fill, s + 1, sec.spin_radps[1], sec.shaft_nm[1]);
        }
    } else if (layout->coupling == PDK_COUPLING_OVERRUN || layout->coupling == PDK_COUPLING_BOTH) {
        /* An overrunning clutch (a UTV's demand drive) locks while its
         * wheel needs torque in the ring's direction to turn at K c. The
         * ring's direction is sign(c); at c = 0 it is the direction the
         * gear would turn it, sign(R), and none in neutral. */
        const double ratio = engine->ratio;
        const double ring_sign = c_radps > 0.0   ? 1.0
                                 : c_radps < 0.0 ? -1.0
                                 : ratio > 0.0   ? 1.0
                                 : ratio < 0.0   ? -1.0
                                                 : 0.0;
        for (int j = s; j < s + 2; j++) {
            double t_slope;
            const double t_nm = wheel_torque(&ctx->wheels[j], ctx->h_s, ring_radps, &t_slope);
            if (layout->coupling == PDK_COUPLING_BOTH || ring_sign * t_nm > 0.0) {
                need_nm += k * t_nm;
                need_slope += k * k * t_slope;
                if (fill != NULL) {
                    put_wheel(fill, j, ring_radps, t_nm);
                }
            }
        }
    }

    if (ctx->clutch_open) {
        if (fill != NULL) {
            fill->clutch_nm = 0.0;
            fill->delivered_nm = 0.0;
            fill->torque_ratio = 1.0;
            fill->engine_radps = max_d(0.0, engine->free_radps);
            fill->clutch_slips = 1;
        }
        *slope = need_slope;
        return need_nm;
    }

    /* The engine side: the clutch torque that puts
     * the engine at R c at the end, J_e (w_free - R c) / h, bounded by the
     * capacities; the carrier receives R eta T_c while the engine drives
     * and R T_c / eta while it is driven. D falls as c rises (its slope is
     * -R^2 J_e eta / h or -R^2 J_e / (eta h) while the clutch holds, 0
     * while it slips), so the balance rises for either sign of R. */
    const double ratio = engine->ratio;
    const double eta = engine->efficiency;
    const double hold_nm = engine->inertia_kgm2 * (engine->free_radps - ratio * c_radps) / ctx->h_s;
    const bool holds = hold_nm > -engine->cap_rev_nm && hold_nm < engine->cap_fwd_nm;
    const double clutch_nm = clamp(hold_nm, -engine->cap_rev_nm, engine->cap_fwd_nm);
    /* A torque converter multiplies the slipping pump's torque by TR(SR),
     * falling with the speed ratio SR = R c / w_e (pdk_dl_engine). */
    double tr = 1.0, tr_slope = 0.0;
    const double stall = engine->converter_stall_ratio;
    const int converts = !holds && clutch_nm > 0.0 && stall > 1.0;
    const double engine_end =
        converts || fill != NULL
            ? max_d(0.0, engine->free_radps - ctx->h_s * clutch_nm / engine->inertia_kgm2)
            : 0.0;
    if (converts && engine_end > 0.0) {
        const double fall = (stall - 1.0) / engine->converter_coupling;
        const double sr = ratio * c_radps / engine_end;
        if (sr < engine->converter_coupling) {
            tr = sr > 0.0 ? stall - fall * sr : stall;
            tr_slope = sr > 0.0 ? -fall * ratio / engine_end : 0.0;
        }
    }
    const double gain = (clutch_nm >= 0.0 ? ratio * eta : ratio / eta) * tr;
    const double delivered_nm = gain * clutch_nm;
    const double clutch_slope = holds ? -engine->inertia_kgm2 * ratio / ctx->h_s : 0.0;
    if (fill != NULL) {
        fill->clutch_nm = clutch_nm;
        fill->delivered_nm = delivered_nm;
        fill->engine_radps = engine_end;
        fill->clutch_slips = holds ? 0 : 1;
        fill->torque_ratio = tr;
    }
    /* D's slope in c: its gain times the clutch's, and while a converter
     * multiplies, R eta T_c dTR/dc (both <= 0: the balance rises). */
    *slope = need_slope - gain * clutch_slope - ratio * eta * clutch_nm * tr_slope;
    return need_nm - delivered_nm;
}

static double balance(const void *ctx, double c_radps, double *slope)
{
    const balance_ctx *b = ctx;
    *b->last = (pdk_dl_result){0};
    *b->last_c_radps = c_radps;
    return balance_at(b, c_radps, slope, b->last);
}

void pdk_dl_solve(const pdk_dl_layout *layout, const pdk_dl_engine *engine,
                  const pdk_dl_wheel wheels[4], double h_s, pdk_dl_result *out)
{
    PDK_ASSERT(layout->primary == 0 || layout->primary == 1);
    PDK_ASSERT(h_s > 0.0 && engine->inertia_kgm2 > 0.0);
    PDK_ASSERT(layout->coupling == PDK_COUPLING_NONE || layout->secondary_k > 0.0);
    PDK_ASSERT(layout->coupling != PDK_COUPLING_CENTRE ||
               layout->centre_diff.kind != PDK_DIFF_LSD || layout->centre_diff.bias_ratio >= 1.0);
    PDK_ASSERT(engine->efficiency > 0.0);
    pdk_dl_result last;
    double last_c_radps;
    const balance_ctx ctx = {
        .layout = layout,
        .engine = engine,
        .wheels = wheels,
        .h_s = h_s,
        .clutch_open =
            engine->ratio == 0.0 || (engine->cap_fwd_nm == 0.0 && engine->cap_rev_nm == 0.0),
        .last = &last,
        .last_c_radps = &last_c_radps,
    };
    /* The first estimate: the primary wheels' mean spin at the start. */
    const int p = 2 * layout->primary;
    const double c0_radps = 0.5 * (wheels[p].spin0_radps + wheels[p + 1].spin0_radps);
    double slope0;
    const double f0 = balance(&ctx, c0_radps, &slope0);
    int evaluations = 1;
    const double c_radps = rising_root(balance, &ctx, c0_radps, f0, slope0,
                                       max_d(1.0, 0.05 * fabs(c0_radps)), 1e-9, &evaluations);
    /* The outputs at the root: the last evaluation's where the root is
     * where it evaluated last (the same bits as evaluating again), else
     * one more evaluation (an end of the bracket tried earlier). */
    if (same_bits(c_radps, last_c_radps)) {
        *out = last;
    } else {
        *out = (pdk_dl_result){0};
        double slope;
        (void)balance_at(&ctx, c_radps, &slope, out);
        evaluations++;
    }
    out->carrier_radps = c_radps;
    out->evaluations = evaluations;
}
