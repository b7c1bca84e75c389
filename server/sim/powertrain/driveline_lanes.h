/* The driveline's solve (driveline.c) for several vehicles at once, one
 * vehicle a lane: the four-wheel step hands it its group's problems each
 * substep (four_wheel_step.h solve_drivelines). Each lane performs the IEEE
 * operations of driveline.c's scalar code on its vehicle's operands, in
 * the same order, and takes the same decisions: where the scalar code
 * branches, a lane selects between values both computed exactly; where it
 * loops (the rising root finder), the lanes step together, each as long as
 * its own search lasts, masked off once it has ended. So every lane's
 * result is the scalar solve's bits (test_driveline compares them on
 * random problems; the golden hashes hold). Solved by lanes are layouts
 * with no coupling to a second axle (a driven axle behind an open, limited
 * slip or locked differential); solve_drivelines leaves the others to
 * pdk_dl_solve. Why: the solve is a long chain of dependent operations and
 * data-dependent branches, about a seventh of a powertrain car's step;
 * two vehicles' chains in the lanes of one take the time of one. */
#ifndef PDK_DRIVELINE_LANES_H
#define PDK_DRIVELINE_LANES_H

#include <float.h>

#include "math/lanes.h"
#include "math/vmath.h"
#include "powertrain/driveline.h"

/* driveline.c's limits (ROOT_MAX_DOUBLINGS, ROOT_MAX_STEPS,
 * ROOT_SLOW_NEWTON): the same numbers, for the same decisions. */
#define DLV_MAX_DOUBLINGS 200
#define DLV_MAX_STEPS 200
#define DLV_SLOW_NEWTON 2

/* One wheel of each lane's driven axle, as pdk_dl_wheel. */
typedef struct dlv_wheel {
    v4 spin0, inertia, radius, fx_e, kx, vx, fx_max, coulomb, fx0, start_share;
    v4 j_h;             /* inertia / h, the division wheel_torque makes each time */
    int coulomb_finite; /* in every lane */
} dlv_wheel;

/* Each lane's problem: its axle's wheels, its differential's law, its
 * engine side, its substep. */
typedef struct dlv_problem {
    dlv_wheel left, right;
    m4 locked;    /* the differential is locked */
    v4 k_b;       /* (TBR - 1) / (TBR + 1) of a limited slip one, else 0 */
    v4 preload;   /* its preload, else 0 */
    m4 open;      /* the clutch is open: neutral, or no capacity either way */
    v4 free, j_e, ratio, eta, cap_fwd, cap_rev, stall, coupling; /* pdk_dl_engine */
    v4 h;
    /* balance_at's terms that do not change with the carrier's speed,
     * divided once: R eta, R / eta and -J_e R / h. */
    v4 ratio_eta, ratio_per_eta, hold_slope;
} dlv_problem;

/* What balance_at fills, lane by lane (pdk_dl_result's). */
typedef struct dlv_fill {
    v4 spin_l, spin_r, shaft_l, shaft_r;
    v4 clutch, delivered, engine, tr;
    m4 slips;
} dlv_fill;

VEC v4 dlv_min(v4 a, v4 b)
{
    return sel(lt4(a, b), a, b); /* min_d: a < b ? a : b */
}

VEC v4 dlv_clamp(v4 v, v4 lo, v4 hi)
{
    return sel(lt4(v, lo), lo, sel(gt4(v, hi), hi, v));
}

/* m ? a : b for masks and counters, lane by lane. */
VEC m4 dlv_selm(m4 m, m4 a, m4 b)
{
    return (a & m) | (b & ~m);
}

/* Lanes whose doubles are the same bits (so -0 is not 0). */
VEC m4 dlv_same_bits(v4 a, v4 b)
{
    return (m4)((m4)a == (m4)b);
}

/* wheel_torque (driveline.c), lane by lane. Where every lane turns faster
 * than 2 rad/s (beyond 20 smoothing speeds, where tanh is +-1 exactly) its
 * Coulomb part of the slope is B (1 - 1) / 0.1 = +0, which adds nothing to
 * J / h + R^2 k > 0, so neither that division nor the one by the smoothing
 * speed is made: the same bits for a finite B. */
VEC v4 dlv_torque(const dlv_wheel *w, v4 h, v4 spin, v4 *slope)
{
    const v4 fx_lin = w->fx_e + w->kx * (spin * w->radius - w->vx);
    const v4 lo = -w->fx_max;
    const v4 s = w->start_share;
    const v4 fx = s * w->fx0 + (splat(1.0) - s) * dlv_clamp(fx_lin, lo, w->fx_max);
    const m4 inside = gt4(fx_lin, lo) & lt4(fx_lin, w->fx_max);
    const v4 tyre_slope = keep(inside, (splat(1.0) - s) * (w->radius * w->radius * w->kx));
    const m4 fast = gt4(abs4(spin), splat(2.000000001)); /* |spin / 0.1| > 20 */
    if (w->coulomb_finite && bits4(fast) == 0xFu) {
        const v4 th = sel(gt4(spin, splat(0.0)), splat(1.0), splat(-1.0));
        *slope = w->j_h + tyre_slope;
        return w->inertia * (spin - w->spin0) / h + w->radius * fx + w->coulomb * th;
    }
    const v4 x = spin / splat(PDK_DL_COULOMB_RADPS);
    const m4 up = gt4(x, splat(20.0));
    const m4 down = lt4(x, splat(-20.0));
    const m4 mid = ~(up | down);
    v4 th = sel(up, splat(1.0), splat(-1.0));
    if (any4(mid)) {
        th = sel(mid, pdk_v_tanh(x), th);
    }
    *slope = w->j_h + tyre_slope +
             w->coulomb * (splat(1.0) - th * th) / splat(PDK_DL_COULOMB_RADPS);
    return w->inertia * (spin - w->spin0) / h + w->radius * fx + w->coulomb * th;
}

/* root_found (driveline.c), lane by lane. */
VEC m4 dlv_found(v4 x, v4 fx, v4 sx, v4 scale)
{
    const v4 tol = splat(2.0 * DBL_EPSILON) * max4(abs4(x), scale);
    return (m4)(fx == splat(0.0)) | (gt4(sx, splat(0.0)) & (m4)(abs4(fx) <= sx * tol));
}

/* rising_root (driveline.c) in lanes: dlv_root_start, then, while any lane
 * runs, the caller evaluates f at x in the running lanes and hands the
 * values to dlv_root_take. A lane's root is in res once it has stopped. */
typedef struct dlv_root {
    m4 run;     /* the lanes still searching */
    m4 bracket; /* of them, those with a bracket (else still stepping out) */
    v4 x;       /* where each running lane wants f next */
    v4 res;     /* each stopped lane's root */
    v4 dir, step, step0, scale;
    v4 x_near, f_near, s_near;
    v4 lo, f_lo, s_lo, hi, f_hi, s_hi;
    v4 width;  /* the bracket's width when x was chosen */
    m4 newton; /* x is a Newton step */
    m4 slow;   /* Newton steps in a row that failed to halve the bracket */
    m4 steps;  /* evaluations inside the bracket */
    m4 evaluations;
    int doublings; /* step-outs so far: every lane stepping out has made as many */
} dlv_root;

/* Stops the lanes of m with root r. */
VEC void dlv_root_stop(dlv_root *rt, m4 m, v4 r)
{
    rt->res = sel(m, r, rt->res);
    rt->run &= ~m;
}

/* The bracketed lanes' next x, or their end: rising_root's loop head. */
VEC void dlv_root_choose(dlv_root *rt)
{
    const m4 b = rt->run & rt->bracket;
    if (!any4(b)) {
        return;
    }
    const v4 lo = rt->lo, hi = rt->hi;
    const v4 width = hi - lo;
    const v4 tol = splat(2.0 * DBL_EPSILON) * max4(max4(abs4(lo), abs4(hi)), rt->scale);
    const m4 from_lo = lt4(-rt->f_lo, rt->f_hi);
    const m4 done = b & (~gt4(width, splat(2.0) * tol) | (rt->steps >= DLV_MAX_STEPS));
    dlv_root_stop(rt, done, sel(from_lo, lo, hi));
    const m4 go = b & ~done;
    v4 x = lo + splat(0.5) * width;
    const v4 s_end = sel(from_lo, rt->s_lo, rt->s_hi);
    v4 xn = sel(from_lo, lo - rt->f_lo / s_end, hi - rt->f_hi / s_end);
    xn = sel(from_lo, max4(xn, lo + tol), dlv_min(xn, hi - tol));
    const m4 newton = (rt->slow < DLV_SLOW_NEWTON) & gt4(s_end, splat(0.0)) & gt4(xn, lo) &
                      lt4(xn, hi);
    x = sel(newton, xn, x);
    rt->x = sel(go, x, rt->x);
    rt->newton = dlv_selm(go, newton, rt->newton);
    rt->width = sel(go, width, rt->width);
}

/* Starts the search in the lanes of m from x0, where f is f0 with slope
 * slope0 (rising_root's head). */
VEC void dlv_root_start(dlv_root *rt, m4 m, v4 x0, v4 f0, v4 slope0, v4 step0, v4 scale)
{
    const v4 zero = splat(0.0);
    rt->res = x0;
    rt->run = m;
    rt->bracket = (m4){0, 0, 0, 0};
    rt->evaluations = (m4){0, 0, 0, 0};
    rt->doublings = 0;
    dlv_root_stop(rt, m & dlv_found(x0, f0, slope0, scale), x0);
    rt->dir = sel(gt4(f0, zero), splat(-1.0), splat(1.0));
    v4 step = sel(gt4(slope0, zero), abs4(f0 / slope0), step0);
    const m4 good = gt4(step, zero) & (m4)(step <= splat(DBL_MAX));
    rt->step = sel(good, step, step0);
    rt->step0 = step0;
    rt->scale = scale;
    rt->x_near = x0;
    rt->f_near = f0;
    rt->s_near = slope0;
    rt->x = x0 + rt->dir * rt->step;
    rt->lo = rt->f_lo = rt->s_lo = rt->hi = rt->f_hi = rt->s_hi = rt->width = zero;
    rt->newton = (m4){0, 0, 0, 0};
    rt->slow = (m4){0, 0, 0, 0};
    rt->steps = (m4){0, 0, 0, 0};
}

/* f at x is fx with slope sx in the running lanes: each lane goes on as
 * rising_root would, and picks its next x or stops. */
VEC void dlv_root_take(dlv_root *rt, v4 fx, v4 sx)
{
    const v4 zero = splat(0.0);
    const v4 x = rt->x;
    const m4 run = rt->run;
    rt->evaluations -= run; /* a running lane's mask is -1: one more */
    const m4 found = run & dlv_found(x, fx, sx, rt->scale);
    dlv_root_stop(rt, found, x);

    /* Stepping out: a change of sign brackets the root. */
    const m4 out = run & ~found & ~rt->bracket;
    if (any4(out)) {
        const m4 up = gt4(rt->dir, zero);
        const m4 crossed = out & dlv_selm(up, gt4(fx, zero), lt4(fx, zero));
        const m4 far_enough = rt->doublings >= DLV_MAX_DOUBLINGS ? out & ~crossed
                                                                  : (m4){0, 0, 0, 0};
        dlv_root_stop(rt, far_enough, x);
        /* f(lo) < 0 < f(hi). */
        rt->lo = sel(crossed, sel(up, rt->x_near, x), rt->lo);
        rt->f_lo = sel(crossed, sel(up, rt->f_near, fx), rt->f_lo);
        rt->s_lo = sel(crossed, sel(up, rt->s_near, sx), rt->s_lo);
        rt->hi = sel(crossed, sel(up, x, rt->x_near), rt->hi);
        rt->f_hi = sel(crossed, sel(up, fx, rt->f_near), rt->f_hi);
        rt->s_hi = sel(crossed, sel(up, sx, rt->s_near), rt->s_hi);
        rt->slow = dlv_selm(crossed, (m4){0, 0, 0, 0}, rt->slow);
        rt->steps = dlv_selm(crossed, (m4){0, 0, 0, 0}, rt->steps);
        rt->bracket |= crossed;
        const m4 on = out & ~crossed & ~far_enough;
        rt->x_near = sel(on, x, rt->x_near);
        rt->f_near = sel(on, fx, rt->f_near);
        rt->s_near = sel(on, sx, rt->s_near);
        rt->step = sel(on, max4(splat(2.0) * rt->step, rt->step0), rt->step);
        rt->x = sel(on, rt->x_near + rt->dir * rt->step, rt->x);
        rt->doublings++;
    }

    /* Inside a bracket (those that had one when x was chosen). */
    const m4 in = run & ~found & rt->bracket & ~out;
    if (any4(in)) {
        const m4 below = in & lt4(fx, zero);
        const m4 above = in & ~below;
        rt->lo = sel(below, x, rt->lo);
        rt->f_lo = sel(below, fx, rt->f_lo);
        rt->s_lo = sel(below, sx, rt->s_lo);
        rt->hi = sel(above, x, rt->hi);
        rt->f_hi = sel(above, fx, rt->f_hi);
        rt->s_hi = sel(above, sx, rt->s_hi);
        const m4 slower = rt->newton & gt4(rt->hi - rt->lo, splat(0.5) * rt->width);
        rt->slow = dlv_selm(in, dlv_selm(slower, rt->slow + 1, (m4){0, 0, 0, 0}), rt->slow);
        rt->steps = dlv_selm(in, rt->steps + 1, rt->steps);
    }
    dlv_root_choose(rt);
}

/* gap_of (driveline.c), lane by lane. */
VEC v4 dlv_gap_of(v4 sign, v4 k_b, v4 preload, v4 t_l, v4 s_l, v4 t_r, v4 s_r, v4 *slope)
{
    const v4 sum_sign = sel(ge4(t_l + t_r, splat(0.0)), splat(1.0), splat(-1.0));
    *slope = s_l + s_r - sign * k_b * sum_sign * (s_l - s_r);
    return t_l - t_r - sign * (k_b * abs4(t_l + t_r) + preload);
}

/* axle_at (driveline.c) at carrier speed c in the lanes of m: the axle's
 * torque and slope, and in fill its wheels' spins and shaft torques. */
VEC v4 dlv_axle(const dlv_problem *pb, v4 c, m4 m, v4 *slope, dlv_fill *fill)
{
    const v4 h = pb->h;
    v4 s_l, s_r;
    v4 t_l = dlv_torque(&pb->left, h, c, &s_l);
    v4 t_r = dlv_torque(&pb->right, h, c, &s_r);
    v4 d = splat(0.0);
    v4 sl = s_l + s_r;
    const v4 sign = sel(gt4(t_l, t_r), splat(1.0), splat(-1.0));
    const m4 slips = m & ~pb->locked &
                     gt4(abs4(t_l - t_r), pb->k_b * abs4(t_l + t_r) + pb->preload);
    if (any4(slips)) {
        v4 g0_slope;
        const v4 g0 = dlv_gap_of(sign, pb->k_b, pb->preload, t_l, s_l, t_r, s_r, &g0_slope);
        dlv_root rt;
        dlv_root_start(&rt, slips, splat(0.0), g0, g0_slope,
                       max4(splat(1.0), splat(0.05) * abs4(c)), max4(abs4(c), splat(1e-9)));
        /* The torques at the last split each lane evaluated (gap_last). */
        m4 last_valid = (m4){0, 0, 0, 0};
        v4 last_d = splat(0.0), lt_l = t_l, ls_l = s_l, lt_r = t_r, ls_r = s_r;
        while (any4(rt.run)) {
            v4 a_l, a_r;
            const v4 u_l = dlv_torque(&pb->left, h, c + rt.x, &a_l);
            const v4 u_r = dlv_torque(&pb->right, h, c - rt.x, &a_r);
            const m4 r = rt.run;
            last_valid |= r;
            last_d = sel(r, rt.x, last_d);
            lt_l = sel(r, u_l, lt_l);
            ls_l = sel(r, a_l, ls_l);
            lt_r = sel(r, u_r, lt_r);
            ls_r = sel(r, a_r, ls_r);
            v4 g_slope;
            const v4 g = dlv_gap_of(sign, pb->k_b, pb->preload, u_l, a_l, u_r, a_r, &g_slope);
            dlv_root_take(&rt, g, g_slope);
        }
        d = sel(slips, rt.res, d);
        /* The torques at d: the last split's, or evaluated again (at 0
         * they are t_l and t_r already, but for c = -0, where c + 0 is +0). */
        const m4 reuse = slips & last_valid & dlv_same_bits(last_d, d);
        const m4 again = slips & ~reuse & ((m4)(d != splat(0.0)) | (m4)(c == splat(0.0)));
        t_l = sel(reuse, lt_l, t_l);
        s_l = sel(reuse, ls_l, s_l);
        t_r = sel(reuse, lt_r, t_r);
        s_r = sel(reuse, ls_r, s_r);
        if (any4(again)) {
            v4 a_l, a_r;
            const v4 u_l = dlv_torque(&pb->left, h, c + d, &a_l);
            const v4 u_r = dlv_torque(&pb->right, h, c - d, &a_r);
            t_l = sel(again, u_l, t_l);
            s_l = sel(again, a_l, s_l);
            t_r = sel(again, u_r, t_r);
            s_r = sel(again, a_r, s_r);
        }
        const v4 q =
            sign * pb->k_b * sel(ge4(t_l + t_r, splat(0.0)), splat(1.0), splat(-1.0));
        const v4 den = (splat(1.0) - q) * s_l + (splat(1.0) + q) * s_r;
        sl = sel(slips, sel(gt4(den, splat(0.0)), splat(4.0) * s_l * s_r / den, splat(0.0)), sl);
    }
    fill->spin_l = c + d;
    fill->spin_r = c - d;
    fill->shaft_l = t_l;
    fill->shaft_r = t_r;
    *slope = sl;
    return t_l + t_r;
}

/* balance_at (driveline.c) for a layout without a coupling, in the lanes
 * of m, with fill. */
VEC v4 dlv_balance(const dlv_problem *pb, v4 c, m4 m, v4 *slope, dlv_fill *fill)
{
    const v4 zero = splat(0.0), one = splat(1.0);
    v4 need_slope;
    const v4 need = dlv_axle(pb, c, m, &need_slope, fill);
    const v4 h = pb->h;
    const v4 hold = pb->j_e * (pb->free - pb->ratio * c) / h;
    const m4 holds = gt4(hold, -pb->cap_rev) & lt4(hold, pb->cap_fwd);
    const v4 clutch = dlv_clamp(hold, -pb->cap_rev, pb->cap_fwd);
    const m4 converts = ~holds & gt4(clutch, zero) & gt4(pb->stall, one);
    const v4 engine_end = max4(zero, pb->free - h * clutch / pb->j_e);
    v4 tr = one, tr_slope = zero;
    const m4 conv = converts & gt4(engine_end, zero);
    if (any4(conv)) {
        const v4 fall = (pb->stall - one) / pb->coupling;
        const v4 sr = pb->ratio * c / engine_end;
        const m4 under = conv & lt4(sr, pb->coupling);
        const m4 moving = gt4(sr, zero);
        tr = sel(under, sel(moving, pb->stall - fall * sr, pb->stall), tr);
        tr_slope = sel(under, sel(moving, -fall * pb->ratio / engine_end, zero), tr_slope);
    }
    const v4 gain = sel(ge4(clutch, zero), pb->ratio_eta, pb->ratio_per_eta) * tr;
    const v4 delivered = gain * clutch;
    const v4 clutch_slope = keep(holds, pb->hold_slope);
    const m4 open = pb->open;
    fill->clutch = keep(~open, clutch);
    fill->delivered = keep(~open, delivered);
    fill->engine = sel(open, max4(zero, pb->free), engine_end);
    fill->tr = sel(open, one, tr);
    fill->slips = open | ~holds;
    *slope = sel(open, need_slope,
                 need_slope - gain * clutch_slope - pb->ratio_eta * clutch * tr_slope);
    return sel(open, need, need - delivered);
}

/* pdk_dl_solve in the lanes of m: the carrier's end speed in *carrier, the
 * balance's evaluations in *evaluations, the rest in out. */
VEC void dlv_solve(const dlv_problem *pb, m4 m, v4 *carrier, m4 *evaluations, dlv_fill *out)
{
    const v4 c0 = splat(0.5) * (pb->left.spin0 + pb->right.spin0);
    v4 slope0;
    dlv_fill last;
    const v4 f0 = dlv_balance(pb, c0, m, &slope0, &last);
    v4 last_c = c0;
    dlv_root rt;
    dlv_root_start(&rt, m, c0, f0, slope0, max4(splat(1.0), splat(0.05) * abs4(c0)),
                   splat(1e-9));
    while (any4(rt.run)) {
        v4 sx;
        dlv_fill f;
        const m4 r = rt.run;
        const v4 fx = dlv_balance(pb, rt.x, r, &sx, &f);
        last_c = sel(r, rt.x, last_c);
        last.spin_l = sel(r, f.spin_l, last.spin_l);
        last.spin_r = sel(r, f.spin_r, last.spin_r);
        last.shaft_l = sel(r, f.shaft_l, last.shaft_l);
        last.shaft_r = sel(r, f.shaft_r, last.shaft_r);
        last.clutch = sel(r, f.clutch, last.clutch);
        last.delivered = sel(r, f.delivered, last.delivered);
        last.engine = sel(r, f.engine, last.engine);
        last.tr = sel(r, f.tr, last.tr);
        last.slips = dlv_selm(r, f.slips, last.slips);
        dlv_root_take(&rt, fx, sx);
    }
    const v4 c = rt.res;
    /* The outputs at the root: the last evaluation's where it was there,
     * else one more (pdk_dl_solve). */
    m4 evals = (m4){1, 1, 1, 1} + rt.evaluations;
    const m4 again = m & ~dlv_same_bits(c, last_c);
    if (any4(again)) {
        v4 sx;
        dlv_fill f;
        (void)dlv_balance(pb, c, again, &sx, &f);
        last.spin_l = sel(again, f.spin_l, last.spin_l);
        last.spin_r = sel(again, f.spin_r, last.spin_r);
        last.shaft_l = sel(again, f.shaft_l, last.shaft_l);
        last.shaft_r = sel(again, f.shaft_r, last.shaft_r);
        last.clutch = sel(again, f.clutch, last.clutch);
        last.delivered = sel(again, f.delivered, last.delivered);
        last.engine = sel(again, f.engine, last.engine);
        last.tr = sel(again, f.tr, last.tr);
        last.slips = dlv_selm(again, f.slips, last.slips);
        evals -= again;
    }
    *carrier = c;
    *evaluations = evals;
    *out = last;
}

/* Whether pdk_dl_solve4 takes a problem of this layout. */
static inline int pdk_dl_lanes_take(const pdk_dl_layout *layout)
{
    return layout->coupling == PDK_COUPLING_NONE;
}

/* pdk_dl_solve for n (1..4) problems whose layouts pdk_dl_lanes_take
 * takes, one a lane: out[i] as pdk_dl_solve(layouts[i], engines[i],
 * wheels[i], h_s[i]) gives it, bit for bit. */
VEC void pdk_dl_solve4(const pdk_dl_layout *const *layouts, const pdk_dl_engine *const *engines,
                       const pdk_dl_wheel *const *wheels, const double *h_s, int n,
                       pdk_dl_result *const *out)
{
    dlv_problem pb;
    m4 m = (m4){0, 0, 0, 0};
    for (int k = 0; k < PDK_LANES; k++) {
        /* An empty lane repeats the first problem, which stays finite. */
        const int i = k < n ? k : 0;
        const pdk_dl_layout *l = layouts[i];
        const pdk_dl_engine *e = engines[i];
        const pdk_dl_wheel *wl = &wheels[i][2 * l->primary];
        const pdk_dl_wheel *wr = wl + 1;
        m[k] = k < n ? -1 : 0;
        pb.left.spin0[k] = wl->spin0_radps;
        pb.left.inertia[k] = wl->inertia_kgm2;
        pb.left.radius[k] = wl->radius_m;
        pb.left.fx_e[k] = wl->fx_e_n;
        pb.left.kx[k] = wl->kx_nspm;
        pb.left.vx[k] = wl->vx_mps;
        pb.left.fx_max[k] = wl->fx_max_n;
        pb.left.coulomb[k] = wl->coulomb_nm;
        pb.left.fx0[k] = wl->fx0_n;
        pb.left.start_share[k] = wl->start_share;
        pb.right.spin0[k] = wr->spin0_radps;
        pb.right.inertia[k] = wr->inertia_kgm2;
        pb.right.radius[k] = wr->radius_m;
        pb.right.fx_e[k] = wr->fx_e_n;
        pb.right.kx[k] = wr->kx_nspm;
        pb.right.vx[k] = wr->vx_mps;
        pb.right.fx_max[k] = wr->fx_max_n;
        pb.right.coulomb[k] = wr->coulomb_nm;
        pb.right.fx0[k] = wr->fx0_n;
        pb.right.start_share[k] = wr->start_share;
        const pdk_dl_diff *d = &l->primary_diff;
        const int lsd = d->kind == PDK_DIFF_LSD;
        pb.locked[k] = d->kind == PDK_DIFF_LOCKED ? -1 : 0;
        pb.k_b[k] = lsd ? (d->bias_ratio - 1.0) / (d->bias_ratio + 1.0) : 0.0;
        pb.preload[k] = lsd ? d->preload_nm : 0.0;
        pb.open[k] = e->ratio == 0.0 || (e->cap_fwd_nm == 0.0 && e->cap_rev_nm == 0.0) ? -1 : 0;
        pb.free[k] = e->free_radps;
        pb.j_e[k] = e->inertia_kgm2;
        pb.ratio[k] = e->ratio;
        pb.eta[k] = e->efficiency;
        pb.cap_fwd[k] = e->cap_fwd_nm;
        pb.cap_rev[k] = e->cap_rev_nm;
        pb.stall[k] = e->converter_stall_ratio;
        pb.coupling[k] = e->converter_coupling;
        pb.h[k] = h_s[i];
        pb.left.j_h[k] = wl->inertia_kgm2 / h_s[i];
        pb.right.j_h[k] = wr->inertia_kgm2 / h_s[i];
        pb.ratio_eta[k] = e->ratio * e->efficiency;
        pb.ratio_per_eta[k] = e->ratio / e->efficiency;
        pb.hold_slope[k] = -e->inertia_kgm2 * e->ratio / h_s[i];
    }
    pb.left.coulomb_finite = bits4((m4)(pb.left.coulomb - pb.left.coulomb == splat(0.0))) == 0xFu;
    pb.right.coulomb_finite =
        bits4((m4)(pb.right.coulomb - pb.right.coulomb == splat(0.0))) == 0xFu;
    v4 c;
    m4 evaluations;
    dlv_fill f;
    dlv_solve(&pb, m, &c, &evaluations, &f);
    for (int k = 0; k < n; k++) {
        const int p = 2 * layouts[k]->primary;
        pdk_dl_result *r = out[k];
        *r = (pdk_dl_result){0};
        r->carrier_radps = c[k];
        r->spin_radps[p] = f.spin_l[k];
        r->spin_radps[p + 1] = f.spin_r[k];
        r->shaft_nm[p] = f.shaft_l[k];
        r->shaft_nm[p + 1] = f.shaft_r[k];
        r->clutch_nm = f.clutch[k];
        r->delivered_nm = f.delivered[k];
        r->torque_ratio = f.tr[k];
        r->engine_radps = f.engine[k];
        r->driven = 3u << p;
        r->clutch_slips = f.slips[k] != 0;
        r->evaluations = (int)evaluations[k];
    }
}

#endif
