/* The chassis of the four-wheel model: one rigid body with six degrees of
 * freedom (internal to the four-wheel step, four_wheel_step.h, which runs
 * its phases; four_wheel.c's steps 5 to 7 for the body). At a substep's
 * start, the body's velocity and rate in its own frame and gravity there;
 * then the linearly implicit velocity solve (four_wheel_solve.h builds and
 * solves the system; Baraff and Witkin, "Large steps in cloth simulation",
 * SIGGRAPH 1998, section 4), with the hard contacts and the downforce
 * added, made again after each event a pass finds (a wheel lifting off,
 * locking, freed or saturating, a strut crossing a kink of its force, a
 * hard contact letting go; at most MAX_SOLVES); then the integration:
 * position by the mean velocity, orientation by the exact rotation of the
 * mean body rate (Sola, Quaternion kinematics for the error-state Kalman
 * filter, 2017), the body's angular damping; and a powertrain's energy
 * ledger (ADR 0010; docs/powertrain.md, "The energy ledger"). Why the
 * system needs no pivoting and what the step conserves:
 * docs/vehicle-model.md, "The step's energy balance".
 *
 * Reads the state's pose and velocities, the constants' mass, inertias and
 * drag, the wheels' dampers, explicit forces and geometry, and the struts'
 * start values (sub). Writes the substep's start (sub's rm, v, w, grav,
 * c_drag, gyro), the solve's end velocities (sub's sol), the wheels' end
 * contact velocities, normal forces and events, and the state's pose,
 * velocities, acceleration and ledger. Static and inlined where it runs
 * every substep, so that each build of the step compiles it for its own
 * instruction set. */
#ifndef PDK_CHASSIS_H
#define PDK_CHASSIS_H

#include <math.h>
#include <stdint.h>

#include "math/trig.h"
#include "math/vmath.h"
#include "vehicle/brakes.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_lanes.h"
#include "vehicle/four_wheel_solve.h"
#include "vehicle/four_wheel_substep.h"
#include "vehicle/four_wheel_tyres.h"
#include "vehicle/hull_contact.h"
#include "vehicle/suspension.h"

/* Above this rotation per substep (rad) the quaternion's increment uses
 * pdk_trig_sincos; below it, a series. */
#define SMALL_ROT_RAD 0.1

/* Most solves in one substep: the first, and one more each time a wheel is
 * found to lift off, to enter its bump stop, to take load, to lock, to be
 * freed, to saturate or to leave its hard contact (each happens to a wheel
 * at most once), or a point of the hull to leave the ground (once each),
 * and once for the hull's friction (hull_contact.h). */
#define MAX_SOLVES (30 + PDK_HULL_POINTS)

/* A substep's start for the body: its rotation, its velocity and rate in
 * its own frame, and gravity there. */
VEC void body_start(const fw_vehicle *restrict vh, sub *restrict sv)
{
    const pdk_fw_state *restrict st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    mat3 rm;
    rotation_of(st->quat, &rm);
    sv->rm = rm;
    double v[3];
    rot_apply_t(&rm, st->vel_mps, v);
    const double w[3] = {st->omega_radps[0], st->omega_radps[1], st->omega_radps[2]};
    /* Gravity in the body frame, R' (0, 0, -g); body z in the world. */
    const double g = p->gravity_mps2;
    const double grav[3] = {-g * rm.m[2][0], -g * rm.m[2][1], -g * rm.m[2][2]};
    for (int j = 0; j < 3; j++) {
        sv->v[j] = v[j];
        sv->w[j] = w[j];
        sv->grav[j] = grav[j];
    }
}

/* What the passes of the solve start from, before the tyres' laws: every
 * wheel free or locked as it stands (wheel_hold locks those standing
 * still), none saturated, no event tried yet; the air drag's damper and
 * half the gyroscopic torque. 5. is the implicit solve, made again after
 * the events of check_pass (a wheel lifting off, locking, freed,
 * saturating, a strut crossing a kink of its force: docs/vehicle-model.md,
 * "The step's energy balance"; ADR 0008). Each pass changes a wheel one
 * way only, once per kind, so there are at most MAX_SOLVES. */
VEC void solve_start(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const double *v = sv->v, *w = sv->w;
    const v4 zero = splat(0.0);
    q->lock = (m4){0, 0, 0, 0};
    q->unlocked = (m4){0, 0, 0, 0};
    q->sat = (m4){0, 0, 0, 0};
    q->unlock_sign = zero;
    q->fcap_x = zero;
    q->fcap_y = zero;
    const double c_drag = p->drag_n_per_mps2 * fabs(v[0]);
    /* The gyroscopic torque at the mean rate, -(w_avg x L0) with L0 = I w0:
     * half of it in the matrix (G = -[L0 / 2]x), half explicit. */
    const double gyro[3] = {0.5 * (p->inertia_kgm2[0] * w[0]), 0.5 * (p->inertia_kgm2[1] * w[1]),
                            0.5 * (p->inertia_kgm2[2] * w[2])};
    sv->c_drag = c_drag;
    for (int j = 0; j < 3; j++) {
        sv->gyro[j] = gyro[j];
    }
    sv->tried = (m4){0, 0, 0, 0};
    sv->entered = (m4){0, 0, 0, 0};
    sv->tried_lock = (m4){0, 0, 0, 0};
    sv->tried_unlock = (m4){0, 0, 0, 0};
    sv->tried_hard = (m4){0, 0, 0, 0};
}

/* 4. of a substep, a pass of the solve: the system (build_system), its
 * solution (solve_system), and check_pass. */
VEC void build_pass(PHASE_ARGS)
{
    build_system(&sv->sy, q, vh->p, sv->v, sv->w, sv->grav, sv->c_drag, sv->gyro);
    {
        /* A tyre's force lies in its contact plane along the wheel's
         * heading, which turns with the body about the contact's normal n
         * over the substep, while the solve holds it in the start's frame:
         * its impulse is h F plus (h^2 / 2) (w0 . n) n x F to the second
         * order, with F the law's force at the start's deflections (n x
         * e_x = e_y, n x e_y = -e_x). */
        const m4 on = q->loaded;
        const double *w = sv->w;
        const v4 wn = splat(0.5 * vh->p->h_s) *
                      ((splat(w[0]) * q->nx + splat(w[1]) * q->ny) + splat(w[2]) * q->nz);
        const v4 ax = keep(on, wn * q->fx0), ay = keep(on, wn * q->fy0);
        const v4 tf = sum4x4(ax * q->eyx - ay * q->exx, ax * q->eyy - ay * q->exy,
                             ax * q->eyz - ay * q->exz, splat(0.0));
        sv->turn_f[0] = tf[0];
        sv->turn_f[1] = tf[1];
        sv->turn_f[2] = tf[2];
        sv->sy.g[3][3] += sv->turn_f[0];
        sv->sy.g[4][3] += sv->turn_f[1];
        sv->sy.g[5][3] += sv->turn_f[2];
    }
    if (any4(q->hard)) {
        add_hard(&sv->sy, vh->p, q);
    }
    if (sv->hull.on != 0u) {
        add_hull(&sv->sy, vh->p, &sv->hull);
    }
    if (vh->p->lift) {
        /* Downforce (resist.downforce_area_m2), explicit at the start's
         * forward speed: -L_f - L_r along body z, and its moment about
         * body y, x_f L_f + x_r L_r (r x F with r = (x, 0, 0), F = (0, 0,
         * -L)). */
        const pdk_fw_consts *p = vh->p;
        const double v2 = sv->v[0] * sv->v[0];
        const double lf = p->lift_n_per_mps2[0] * v2, lr = p->lift_n_per_mps2[1] * v2;
        sv->sy.g[5][3] -= lf + lr;
        sv->sy.g[6][1] += p->lift_x_m[0] * lf + p->lift_x_m[1] * lr;
    }
}

VEC void solve_pass(PHASE_ARGS)
{
    (void)vh;
    (void)q;
    solve_system(&sv->sy, sv->gyro, sv->sol);
}

/* After the pass numbered pass: the end velocities at the contacts and the
 * normal forces; then the events (lift-off, stick, kinks) that ask for
 * another pass (sv->more), with the wheels' values changed for it. */
VEC void check_pass(PHASE_ARGS, int pass)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const double *sol = sv->sol;
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    const v4 n0 = q->nx, n1 = q->ny, n2 = q->nz;
    const v4 zero = splat(0.0);
    const v4 arb_qh = load4(cr->arb_quarter_h);
    m4 tried = sv->tried;
    m4 entered = sv->entered;
    sv->more = 0;
    q->vcx = splat(sol[0]) + (splat(sol[4]) * r2 - splat(sol[5]) * r1);
    q->vcy = splat(sol[1]) + (splat(sol[5]) * r0 - splat(sol[3]) * r2);
    q->vcz = splat(sol[2]) + (splat(sol[3]) * r1 - splat(sol[4]) * r0);
    const v4 vn_all = n0 * q->vcx + n1 * q->vcy + n2 * q->vcz;
    v4 vn = keep(q->loaded, vn_all);
    /* The normal force: strut, links, and the bar's implicit part. */
    v4 dn = q->c_n * vn + arb_qh * (vn - other4(vn));
    q->fz = q->fn - dn;
    q->s_end = q->s_exp - dn * q->inv_cos;
    /* The contacts' end velocities along e_x and e_y, and each wheel's end
     * slip velocity (integrate takes those of the last pass). */
    const v4 u1 = q->exx * q->vcx + q->exy * q->vcy + q->exz * q->vcz;
    const v4 vl1 = q->eyx * q->vcx + q->eyy * q->vcy + q->eyz * q->vcz;
    const v4 sx1 = wheel_slip_end(q, u1);
    q->u1 = u1;
    q->vl1 = vl1;
    q->sx1 = sx1;
    const m4 hard_ev = any4(q->hard) ? hard_check(vh, sv, q) : (m4){0, 0, 0, 0};
    const int hull_ev = sv->hull.on != 0u ? hull_check(vh, sv) : 0;
    if (pass + 1 >= MAX_SOLVES) {
        return;
    }
    m4 lift = q->loaded & lt4(q->fz, zero);
    /* The wheels (ADR 0008). A free wheel whose spin would cross zero
     * against its Coulomb torque is locked (one step of it never reverses
     * a wheel); a locked wheel whose holding torque, from I (0 - Omega0) /
     * h = T_drive + T_b - R F_x (F_x the force the wheel takes,
     * wheel_fx_taken), would exceed its capacity B is freed with B turned
     * the way it was asked to hold; a tyre whose linearised end
     * force leaves its friction circle takes the force on the circle. A
     * wheel changes its spin mode or saturates at most once a substep. */
    const v4 om0 = load4(vh->st->spin_radps);
    const v4 om1 = (u1 + sx1) * sv->inv_radius;
    const v4 f1x = q->fex_e + q->kx_e * sx1;
    const v4 f1y = q->fey_e - q->ky_e * vl1;
    const m4 cross = (gt4(om0, zero) & ~gt4(om1, zero)) | (lt4(om0, zero) & ~lt4(om1, zero));
    const m4 lock_ev = ~q->lock & ~sv->tried_lock & gt4(q->hold, zero) & cross;
    const v4 t_req = (sv->radius * wheel_fx_taken(q, f1x) - q->t_drive) -
                     load4(cr->spin_inertia_kgm2) * om0 * p->inv_h;
    const m4 unlock_ev = q->lock & ~sv->tried_unlock & gt4(abs4(t_req), q->hold);
    const v4 f2 = f1x * f1x + f1y * f1y;
    const m4 sat_ev =
        q->loaded & ~lift & ~q->sat & ~(lock_ev | unlock_ev) & gt4(f2, q->peak * q->peak);
    const m4 wheel_ev = lock_ev | unlock_ev | sat_ev;
    /* The struts' kinks (suspension.h). */
    m4 enter, engage;
    strut_kinks(vh, sv, q, vn_all, lift, &enter, &engage);
    if (!any4(lift | wheel_ev | enter | engage | hard_ev) && !hull_ev) {
        return;
    }
    q->hard &= ~hard_ev;
    q->hard_f = keep(~hard_ev, q->hard_f);
    sv->tried_hard |= hard_ev;
    q->loaded = (q->loaded & ~lift) | engage;
    q->soil &= q->loaded;
    tried |= lift | engage;
    entered |= enter | engage;
    if (any4(wheel_ev)) {
        q->lock = (q->lock | lock_ev) & ~unlock_ev;
        q->unlocked |= unlock_ev;
        q->unlock_sign = sel(unlock_ev, sign4(t_req), q->unlock_sign);
        sv->tried_lock |= lock_ev;
        sv->tried_unlock |= unlock_ev;
        if (any4(sat_ev)) {
            const v4 scale = q->peak / sqrt4(sel(sat_ev, f2, splat(1.0)));
            q->fcap_x = sel(sat_ev, f1x * scale, q->fcap_x);
            q->fcap_y = sel(sat_ev, f1y * scale, q->fcap_y);
            q->sat |= sat_ev;
        }
    }
    if (any4(engage)) {
        tyre_law_again(vh, sv, q);
    }
    wheel_hold(vh, sv, q);
    wheel_coeffs(vh, sv, q);
    sv->tried = tried;
    sv->entered = entered;
    sv->more = 1;
}

/* A powertrain's energy ledger for the substep integrate has just ended:
 * each force's work at the velocities the step integrated with (ADR 0010;
 * docs/powertrain.md, "The energy ledger"). om0 is the wheels' spin at the start, vz0
 * the body's world vertical velocity there. The wheels' terms are computed
 * in lanes, each lane the IEEE operations of the formula for its wheel,
 * and each ledger entry takes its four wheels' terms in wheel order, so
 * the sums are a wheel-by-wheel loop's. Rare (powertrains only): not
 * inlined. */
static __attribute__((noinline)) void energy_ledger(PHASE_ARGS, v4 om0, double vz0)
{
    pdk_fw_state *st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    const double *sol = sv->sol, *v = sv->v, *w = sv->w;
    const double h = p->h_s;
    const v4 hv = splat(h);
    /* The wheel: J (w1 - w0) / h = T_drive + T_b - R F_x with F_x the force
     * it takes over the substep (wheel_fx_taken), so its energy changes by
     * (T_drive + T_b - R F_x) mean(w) h exactly.
     * T_b is the Coulomb torque the solve applied (against the spin, or
     * what held a locked wheel), shared between the brakes and pawl and
     * the rolling resistance by their capacities. */
    const v4 inertia = load4(p->spin_inertia_kgm2);
    const v4 w0 = om0, w1 = load4(st->spin_radps);
    const v4 mean_w = 0.5 * (w0 + w1);
    const v4 fx_taken = wheel_fx_taken(q, q->fx_end);
    const v4 t_b = inertia * (w1 - w0) / hv - q->t_drive + sv->radius * fx_taken;
    const v4 coulomb = -t_b * mean_w * hv;
    const v4 brake = sv->brake + sv->pawl;
    const v4 cap = brake + q->roll_t;
    const v4 brake_share = sel(gt4(cap, splat(0.0)), brake / cap, splat(0.0));
    const v4 brake_j = brake_share * coulomb;
    const v4 rolling_j = (1.0 - brake_share) * coulomb;
    const v4 spin_j = 0.5 * inertia * (w1 * w1 - w0 * w0);
    /* The tyre: the wheel gives it R F_x mean(w), the chassis takes F_x
     * mean(V_x) + F_y mean(V_y); the difference is its slip's. */
    const v4 mean_u = 0.5 * (q->u0 + q->u1);
    const v4 mean_l = 0.5 * (q->vlat0 + q->vl1);
    const v4 fy0 = keep(q->loaded, q->fy0);
    const v4 fy_body = fy0 + q->th_y * (q->fy_end - fy0);
    const v4 slip_j = (fx_taken * (sv->radius * mean_w - mean_u) - fy_body * mean_l) * hv;
    /* The other forces at the contact (soil, water) and the strut's along
     * the normal, each at the contact's mean velocity; the normal
     * velocity at the start is n . (v + w x r), at the end check_pass's. */
    const v4 soil_j =
        (keep(q->loaded, q->ext_x) * mean_u + keep(q->loaded, q->ext_y) * mean_l) * hv;
    const v4 vc0x = splat(v[0]) + (splat(w[1]) * q->rz - splat(w[2]) * q->ry);
    const v4 vc0y = splat(v[1]) + (splat(w[2]) * q->rx - splat(w[0]) * q->rz);
    const v4 vc0z = splat(v[2]) + (splat(w[0]) * q->ry - splat(w[1]) * q->rx);
    const v4 vn0 = (q->nx * vc0x + q->ny * vc0y) + q->nz * vc0z;
    const v4 vn1 = (q->nx * q->vcx + q->ny * q->vcy) + q->nz * q->vcz;
    const v4 strut_j = q->fz * 0.5 * (vn0 + vn1) * hv;
    double *ledger = st->pt.ledger_j;
    /* The tyres' forces' turn with the body (build_pass) is the tyres'
     * work on the chassis too. */
    ledger[PDK_LEDGER_TYRE_SLIP] -= (sv->turn_f[0] * 0.5 * (v[0] + sol[0]) +
                                     sv->turn_f[1] * 0.5 * (v[1] + sol[1]) +
                                     sv->turn_f[2] * 0.5 * (v[2] + sol[2])) *
                                    h;
    for (int j = 0; j < PDK_WHEELS; j++) {
        ledger[PDK_LEDGER_BRAKE] += brake_j[j];
        ledger[PDK_LEDGER_ROLLING] += rolling_j[j];
        ledger[PDK_LEDGER_KINETIC] += spin_j[j];
        ledger[PDK_LEDGER_TYRE_SLIP] += slip_j[j];
        ledger[PDK_LEDGER_SOIL] -= soil_j[j];
        ledger[PDK_LEDGER_SUSPENSION] -= strut_j[j];
    }
    /* The body: its kinetic energy in the start's frame (the solve's), its
     * height by the mean world velocity, the drag at the end's speed. */
    double ke = 0.0;
    for (int k = 0; k < 3; k++) {
        ke += 0.5 * p->mass_kg * (sol[k] * sol[k] - v[k] * v[k]);
        ke += 0.5 * p->inertia_kgm2[k] * (st->omega_radps[k] * st->omega_radps[k] - w[k] * w[k]);
    }
    ledger[PDK_LEDGER_KINETIC] += ke;
    /* The body's angular damping (chassis.angular_damping_per_s) takes what
     * the rates lose after the solve (sol: before it, omega_radps: after);
     * the ledger counts it with the air's. */
    for (int k = 0; k < 3; k++) {
        ledger[PDK_LEDGER_AERO] +=
            0.5 * p->inertia_kgm2[k] *
            (sol[3 + k] * sol[3 + k] - st->omega_radps[k] * st->omega_radps[k]);
    }
    /* The hard contacts at the struts' tops (docs/vehicle-model.md, "Faces
     * and the end of the travel") are counted with the struts. */
    double hard_work_j = 0.0;
    for (int j = 0; j < PDK_WHEELS; j++) {
        if (q->hard[j]) {
            hard_work_j += q->hard_f[j] * (0.5 * (q->hard_vn0[j] + q->hard_vn1[j])) * h;
        }
    }
    ledger[PDK_LEDGER_SUSPENSION] -= hard_work_j;
    if (sv->hull.n > 0) {
        hull_ledger(vh, sv, ledger);
    }
    const double dz_m = (0.5 * h) * (vz0 + st->vel_mps[2]);
    ledger[PDK_LEDGER_POTENTIAL] += p->mass_kg * p->gravity_mps2 * dz_m;
    ledger[PDK_LEDGER_AERO] += sv->c_drag * sol[0] * 0.5 * (v[0] + sol[0]) * h;
}

/* 7. of a substep for the body: the drag for the channels, the
 * integration and the accelerometer's reading. */
VEC void body_integrate(const fw_vehicle *restrict vh, sub *restrict sv)
{
    pdk_fw_state *restrict st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    const double h = p->h_s;
    const double *sol = sv->sol;
    const double *v = sv->v, *w = sv->w, *grav = sv->grav;
    const double c_drag = sv->c_drag;
    const mat3 rm = sv->rm;
    sv->drag = -c_drag * sol[0];

    /* 6. Integrate: velocity to the world, position by the mean velocity,
     * orientation by the exact rotation of the mean body rate over h, the
     * accelerometer's reading (body, gravity excluded). */
    double vw[3];
    rot_apply(&rm, sol, vw);
    double w1[3];
    for (int j = 0; j < 3; j++) {
        st->accel_mps2[j] = (sol[j] - v[j]) * p->inv_h - grav[j];
        st->pos_m[j] += (0.5 * h) * (st->vel_mps[j] + vw[j]);
        st->vel_mps[j] = vw[j];
        st->omega_radps[j] = sol[3 + j];
        w1[j] = 0.5 * (w[j] + sol[3 + j]);
    }
    if (p->spin_keep != 1.0) {
        /* chassis.angular_damping_per_s (docs/powertrain.md). */
        for (int k = 0; k < 3; k++) {
            st->omega_radps[k] *= p->spin_keep;
        }
    }
    double ww = dot3(w1, w1);
    double half = 0.5 * h;
    double z = half * half * ww; /* (angle / 2)^2 */
    double cq, sq_per;           /* cos(angle / 2), sin(angle / 2) / |w| */
    if (z <= 0.25 * SMALL_ROT_RAD * SMALL_ROT_RAD) {
        /* Series in z; first omitted terms below 1e-17. */
        cq = 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0)));
        sq_per = half * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0))));
    } else {
        double sn, rate = sqrt(ww);
        pdk_trig_sincos(half * rate, &sn, &cq);
        sq_per = sn / rate;
    }
    const double dq[4] = {cq, sq_per * w1[0], sq_per * w1[1], sq_per * w1[2]};
    const double *q0 = st->quat;
    double qn[4] = {
        q0[0] * dq[0] - q0[1] * dq[1] - q0[2] * dq[2] - q0[3] * dq[3],
        q0[0] * dq[1] + q0[1] * dq[0] + q0[2] * dq[3] - q0[3] * dq[2],
        q0[0] * dq[2] - q0[1] * dq[3] + q0[2] * dq[0] + q0[3] * dq[1],
        q0[0] * dq[3] + q0[1] * dq[2] - q0[2] * dq[1] + q0[3] * dq[0],
    };
    /* The increment is a unit quaternion, so the product drifts from unit
     * length by rounding only; pdk_fw_step renormalises once a tick. */
    for (int j = 0; j < 4; j++) {
        st->quat[j] = qn[j];
    }
}

#endif
