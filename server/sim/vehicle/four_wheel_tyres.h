/* The tyres and the wheels' spin of the four-wheel model (internal to the
 * four-wheel step, four_wheel_step.h, which runs its phases; four_wheel.c's
 * step 4 and the wheels' part of step 7; ADR 0008). The ground under each
 * wheel gives its law's scales and its rolling coefficient; each tyre's
 * law (tyre_lanes.h) is taken at its deflections, on the soil and in the
 * water under it (four_wheel_ground.c), with the exact relaxation over the
 * substep of Pacejka's single contact point transient model (Tire and
 * Vehicle Dynamics, 3rd ed., section 7.2) and the linearisation that puts
 * tyre and wheel spin, in series, into the chassis' solve; at the end the
 * wheels' spins and the tyres' deflections follow from the end velocities.
 * A powertrain's substep meets the wheels here (powertrain_begin,
 * powertrain_end); the Coulomb torques of the brakes, the pawl and the
 * rolling resistance are brakes.h's.
 *
 * Reads the state's spins, deflections and sinkage, the tyres' constants,
 * the wheels' loads, contact velocities and camber, the ground, and the
 * tick's tyre values (sub). Writes the wheels' ground and tyre values
 * (relaxation, linear model, forces, aligning moment, friction circle),
 * the state's spins, deflections, sinkage and lagged contact forces, and
 * the sums for the tyres' life (sub). Static and inlined, so that each
 * build of the step compiles it for its own instruction set. */
#ifndef PDK_FOUR_WHEEL_TYRES_H
#define PDK_FOUR_WHEEL_TYRES_H

#include "ground/surface.h"
#include "math/vmath.h"
#include "vehicle/four_wheel_ground.h"
#include "vehicle/four_wheel_substep.h"

/* The ground under each wheel (geometry, after wheel_rays): the tyre law's
 * scales with the tyre's grip, and the rolling-resistance coefficient,
 * surface f times the tyre's own over the reference's times its life's
 * scale, at most the Polaris model's 0.45; which wheels stand on
 * deformable soil, and the surface for the channels. */
VEC void ground_under(PHASE_ARGS, const pdk_terrain_def *restrict terrain)
{
    const pdk_fw_consts *restrict p = vh->p;
    const m4 contact = q->contact;
    const v4 zero = splat(0.0);
    if (sv->uniform) {
        q->ground = sv->base_ground;
        q->roll_f = sv->base_roll_f;
        q->soil = sv->base_soil ? contact : (m4){0, 0, 0, 0};
        q->surface = splat((double)terrain->base_surface_id);
    } else {
        v4 gg = zero, gs = zero, gl = zero, gf = zero;
        m4 soil = (m4){0, 0, 0, 0};
        for (int i = 0; i < PDK_WHEELS; i++) {
            pdk_fw_ground gr;
            pdk_fw_ground_of(q->surf[i], &gr);
            gg[i] = gr.grip;
            gs[i] = gr.stiffness;
            gl[i] = gr.slide;
            gf[i] = gr.rolling_coeff;
            soil[i] = gr.deformable ? -1 : 0;
            q->surface[i] = (double)q->surf[i];
        }
        q->ground.grip = gg * sv->tyre_grip;
        q->ground.stiffness = gs;
        q->ground.slide = gl;
        v4 f = gf * load4(p->rolling_ratio) * sv->roll_scale;
        q->roll_f = sel(gt4(f, splat(MAX_ROLLING_COEFF)), splat(MAX_ROLLING_COEFF), f);
        q->soil = soil & contact;
    }
}

/* The tyres' laws (tyre_lanes.h) at each loaded wheel's load fz0 and its
 * deflections' slips, on the ground under it and at its pressure; the soil
 * and water where a wheel meets them (scalar, four_wheel_ground.c); then
 * the exact exponentials and the linearisation of the file's step 4: q's
 * fex, kx, fey, ky, the extra contact forces, the aligning moment and the
 * friction-circle radius. */
VEC void tyre_law(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_state *restrict st = vh->st;
    const double h = p->h_s;
    const v4 zero = splat(0.0);
    const v4 one = splat(1.0);
    const m4 on = q->loaded;
    const v4 fz = keep(on, q->fz0);
    v4 sk, sa;
    pdk_tyre_relaxation4(vh->tyre, fz, &sk, &sa);
    const v4 inv_sk = one / sk;
    const v4 inv_sa = one / sa;
    const v4 ux0 = load4(st->defl_x_m);
    const v4 uy0 = load4(st->defl_y_m);
    const v4 kap = clamp_sym4(ux0 * inv_sk, splat(PDK_FW_KAPPA_MAX));
    const v4 ta = clamp_sym4(uy0 * inv_sa, splat(PDK_FW_TAN_ALPHA_MAX));
    const v4 au = abs4(q->u0);
    /* Camber and the law's zero-slip forces work with the rolling
     * (PDK_FW_ROLLING_SPEED_MPS). */
    const v4 vroll = splat(PDK_FW_ROLLING_SPEED_MPS);
    const m4 slow = on & lt4(au, vroll);
    const v4 roll = sel(slow, au * splat(1.0 / PDK_FW_ROLLING_SPEED_MPS), one);
    pdk_tyre_in4 in = {fz, kap, ta, q->camber * roll, q->u0};
    pdk_tyre_out4 o;
    pdk_tyre_eval4_at_pressure(vh->tyre, &in, sv->pressure_pa, &q->ground, sv->want_mz, &o);
    if ((vh->tyre->laws & (1u << PDK_TYRE_MAGIC)) && any4(slow)) {
        /* The Magic Formula's forces at zero slip and camber (the grip
         * and UTV laws have none). */
        pdk_tyre_in4 rest = {fz, zero, zero, zero, q->u0};
        pdk_tyre_out4 o0;
        pdk_tyre_eval4_at_pressure(vh->tyre, &rest, sv->pressure_pa, &q->ground, sv->want_mz, &o0);
        const v4 off = keep(slow, one - roll);
        o.fx_n -= off * o0.fx_n;
        o.fy_n -= off * o0.fy_n;
        o.mz_nm -= off * o0.mz_nm;
    }
    v4 ext_x = zero, ext_y = zero;
    if (any4(q->soil)) {
        /* Deformable ground: the soil's thrust and slope replace the
         * longitudinal law, the lateral law is scaled to the soil's traction
         * limit, which is the tyre's peak there, and the motion resistance
         * acts at the contact (the Polaris model). */
        for (int i = 0; i < PDK_WHEELS; i++) {
            if (q->soil[i] == 0) {
                continue;
            }
            const pdk_surface *sf = pdk_surface_get(q->surf[i]);
            pdk_fw_soil_in si = {&sf->soil, vh->soil[i >> 1], p->radius_m[i], sv->pressure_pa[i],
                                 fz[i],     kap[i],           q->u0[i],       p->corner_mass_kg[i],
                                 h,         st->sinkage_m[i]};
            pdk_fw_soil_out so;
            pdk_fw_soil(&si, &so);
            double scale = so.traction_limit_n / max2(o.peak_n[i], 1e-9);
            o.fx_n[i] = so.fx_n;
            o.dfx_dkappa_n[i] = so.dfx_dkappa_n;
            o.dfx_fall_n[i] = 0.0;
            o.fy_n[i] *= scale;
            o.dfy_dalpha_n[i] *= scale;
            o.mz_nm[i] *= scale;
            o.peak_n[i] = so.traction_limit_n;
            ext_x[i] = so.resistance_n;
            double f = so.rolling_coeff * sv->roll_scale[i];
            q->roll_f[i] = f < MAX_ROLLING_COEFF ? f : MAX_ROLLING_COEFF;
        }
    }
    if (!sv->uniform) {
        /* Water drag on a wheel in water (docs/presets.md, water_crossing), with the
         * contact's velocity in the contact plane for the horizontal. */
        for (int i = 0; i < PDK_WHEELS; i++) {
            if (!(q->water_m[i] > 0.0) || on[i] == 0) {
                continue;
            }
            const double vel[2] = {q->u0[i], q->vlat0[i]};
            double f[2];
            pdk_water_drag(q->water_m[i], vh->soil[i >> 1]->width_m, sv->radius[i], vel, f);
            ext_x[i] += f[0];
            ext_y[i] += f[1];
        }
    }

    /* The exact exponentials over the substep at the start's |V_x|: e and
     * g = h phi(z) = sigma (1 - e) / |V_x|. */
    const v4 hh = splat(h);
    const v4 auh = au * hh;
    const v4 zx = auh * inv_sk;
    const v4 zy = auh * inv_sa;
    const v4 ex = pdk_v_exp(-zx);
    const v4 ey = pdk_v_exp(-zy);
    const v4 inv_au = one / sel(gt4(au, zero), au, one);
    const v4 gx = relax_g4(zx, ex, hh, sk * inv_au);
    const v4 gy = relax_g4(zy, ey, hh, sa * inv_au);
    /* Laterally the input moves from the start's lateral velocity to the
     * end's over the substep (a first-order hold, four_wheel.c's step 4):
     * g0 of g is the start's share, g1 the end's. The solve works in the
     * start's frame, so the end's velocity also holds the turn of that
     * frame over the substep, T = h (w x v) along e_y, which the tyre's
     * own frame, turning with the body, does not see: the tyre's input at
     * the end is V_y1 - T. In a steady turn V_y1 - T is the start's V_y0,
     * so the steady deflection sigma V_y / |V_x| does not depend on h. */
    const v4 gy0 = relax_g0_4(zy, ey, hh);
    const v4 gy1 = gy - gy0;
    const double *v0 = sv->v, *w0 = sv->w;
    const v4 turn = q->eyx * splat(h * (w0[1] * v0[2] - w0[2] * v0[1])) +
                    q->eyy * splat(h * (w0[2] * v0[0] - w0[0] * v0[2])) +
                    q->eyz * splat(h * (w0[0] * v0[1] - w0[1] * v0[0]));
    const v4 uy_in0 = gy0 * q->vlat0 - gy1 * turn;
    /* The deflections' stiffnesses K / sigma, and with the carcass damper
     * d = tau K / sigma (faded by the contact's speed and slip speed) the
     * increment's coefficient K / sigma + d / h. */
    const v4 ksx = o.dfx_dkappa_n * inv_sk;
    const v4 ksy = o.dfy_dalpha_n * inv_sa;
    v4 kex = ksx, key = ksy;
    /* The share of each force's change over the substep that the chassis
     * and the wheel take (the trapezoidal rule's 1/2 at speed, backward
     * Euler's 1 at rest, over the carcass damper's fade: four_wheel.c's
     * steps 4 and 5). */
    v4 th_x = splat(0.5);
    v4 th_y = splat(0.5);
    /* Longitudinally the input moves too, from the start's slip velocity
     * to the end's (g0 of g the start's share), at speed; at rest, where
     * the tyre's deflection is a stiff spring against the body and the
     * wheel, the end's alone (backward Euler's damping), over the same
     * fade. */
    const v4 slip_x0 = keep(on, load4(st->spin_radps) * sv->radius - q->u0);
    v4 gx0 = relax_g0_4(zx, ex, hh);
    if (any4(lt4(au, splat(PDK_FW_CARCASS_FADE_MPS)))) {
        const v4 tau_h = splat(PDK_FW_CARCASS_DAMPING_S * p->inv_h);
        const v4 fade_x = carcass_fade4(au + abs4(slip_x0));
        const v4 fade_y = carcass_fade4(au + abs4(q->vlat0));
        kex = ksx + ksx * (tau_h * fade_x);
        key = ksy + ksy * (tau_h * fade_y);
        th_x = splat(0.5) + splat(0.5) * fade_x;
        th_y = splat(0.5) + splat(0.5) * fade_y;
        gx0 = gx0 - gx0 * fade_x;
    }
    const v4 gx1 = gx - gx0;
    const v4 ux_in0 = gx0 * slip_x0;
    q->sig_k = sk;
    q->sig_a = sa;
    q->inv_sk = inv_sk;
    q->e_x = ex;
    q->e_y = ey;
    /* Past the peak the law's slope is held at 0 in the linear model
     * (a negative stiffness there would let the wheel's spin run away
     * within the implicit solve), so the force would be the start's over
     * the whole substep: on a locking wheel, whose force falls as its
     * slip grows, too much of it the longer the substep. The end force
     * takes instead its fall, F_0 + F'/sigma (u_1 - u_0), with the end
     * deflection u_1 that the start's slip velocity gives (within the
     * slips' bound), and the chassis and the wheel its share th_x of it. */
    v4 fall_x = zero;
    const v4 kfall = o.dfx_fall_n * inv_sk;
    if (any4(lt4(kfall, zero))) {
        const v4 u1 = clamp_sym4(ex * ux0 + gx * slip_x0, splat(PDK_FW_KAPPA_MAX) * sk);
        fall_x = kfall * (u1 - ux0);
    }
    q->fex = (o.fx_n + fall_x) + kex * (ux0 * (ex - one) + ux_in0);
    q->kx = kex * gx1;
    q->g_x = gx1;
    q->ux_in = ux_in0;
    q->g_y = gy1;
    q->uy_in = uy_in0;
    q->fey = o.fy_n - key * (uy0 * (ey - one) + uy_in0);
    q->ky = key * gy1;
    q->fy0 = o.fy_n;
    q->fx0 = o.fx_n;
    q->th_x = th_x;
    q->th_y = th_y;
    q->ext_x = ext_x;
    q->ext_y = ext_y;
    q->mz = o.mz_nm;
    q->peak = o.peak_n;
}

/* tyre_law again after a wheel was loaded at the end of a substep (its tyre
 * works with that load; the others' laws give the same bits again): rare,
 * so it is not inlined: one copy in each build of the step. */
static __attribute__((noinline)) void tyre_law_again(PHASE_ARGS)
{
    tyre_law(vh, sv, q);
}

/* A powertrain's substep (four_wheel_powertrain.h), after the tyres' laws
 * and before the wheels' torques: each wheel as the driveline sees it, the
 * tyre linearised as wheel_coeffs linearises it (F_x1 = fex + kx s_x1 at
 * the start's contact speed), at most the friction circle's share left by
 * its lateral force, with its Coulomb torques (brakes and rolling); then
 * its first half, up to the driveline's problem in sv->ptm, which the
 * step solves with the group's others (solve_drivelines) before
 * powertrain_end. Scalar: not inlined. */
static __attribute__((noinline)) void powertrain_begin(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_state *st = vh->st;
    const v4 r = sv->radius;
    const m4 on = q->loaded;
    const v4 roll_t = keep(on, q->roll_f * q->fz0 * r);
    const v4 fex = keep(on, q->fex), kx = keep(on, q->kx), fey = keep(on, q->fey);
    const v4 fx0 = keep(on, q->fx0);
    const v4 peak = keep(on, q->peak);
    /* The friction circle's share left, its square root on four lanes (the
     * IEEE root in each, as sqrt gives it: the same bits). */
    const v4 left = peak * peak - fey * fey;
    const v4 fx_max = keep(gt4(left, splat(0.0)), sqrt4(left));
    pdk_dl_wheel *w = sv->ptm.wheels;
    for (int j = 0; j < PDK_WHEELS; j++) {
        w[j].spin0_radps = st->spin_radps[j];
        w[j].inertia_kgm2 = p->spin_inertia_kgm2[j];
        w[j].radius_m = r[j];
        w[j].fx_e_n = fex[j];
        w[j].kx_nspm = kx[j];
        w[j].vx_mps = q->u0[j];
        w[j].fx_max_n = fx_max[j];
        w[j].coulomb_nm = roll_t[j];
        w[j].fx0_n = fx0[j];
        w[j].start_share = 1.0 - q->th_x[j];
    }
    /* The body's forward acceleration over the last substep (the
     * accelerometer's reading with gravity put back): the contacts' speed
     * change this substep, to second order (pdk_fwpt_substep_begin). */
    const double dvx_mps = p->h_s * (st->accel_mps2[0] + sv->grav[0]);
    pdk_fwpt_substep_begin(vh->st, vh->cmd, vh->pt, p, vh->cmd->brake_nm, dvx_mps, &sv->pto,
                           &sv->ptm);
}

/* The powertrain's second half, from the solved driveline: the shaft
 * torques, the pawl and the brakes for wheel_hold. */
static __attribute__((noinline)) void powertrain_end(PHASE_ARGS)
{
    (void)q;
    pdk_fwpt_substep_end(vh->st, vh->pt, vh->p, &sv->ptm, &sv->pto);
    sv->shaft = load4(sv->pto.shaft_nm);
    sv->pawl = load4(sv->pto.pawl_nm);
    sv->brake = load4(sv->pto.brake_nm);
}

/* The damper and explicit force each wheel's tyre puts on the contact along
 * e_x and e_y (the file's step 4): the tyre's linear model, or the force
 * held on the friction circle where saturated, with the wheel's spin
 * eliminated (free) or held at 0 (locked), plus the contact's other forces. */
VEC void wheel_coeffs(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_state *restrict st = vh->st;
    const m4 on = q->loaded;
    const m4 sat = q->sat;
    const v4 r = sv->radius;
    const v4 om0 = load4(st->spin_radps);
    const v4 fex = keep(on, sel(sat, q->fcap_x, q->fex));
    const v4 kx = keep(on & ~sat, q->kx);
    const v4 fey = keep(on, sel(sat, q->fcap_y, q->fey));
    const v4 ky = keep(on & ~sat, q->ky);
    /* The free wheel's Coulomb torque: against its spin, or as check_pass
     * turned it when it freed the wheel. */
    const v4 tau_b = sel(q->unlocked, q->hold * q->unlock_sign, -(q->hold * sign4(om0)));
    /* The wheel and the chassis take the longitudinal force's start and a
     * share th_x of its change, F_x0 + th_x (F_x1 - F_x0) = F_m + k_m s_x1
     * (the driveline's wheels take the same, powertrain_begin). */
    const v4 fx0 = keep(on, q->fx0);
    const v4 fexm = fx0 + q->th_x * (fex - fx0);
    const v4 kxm = q->th_x * kx;
    const v4 hri = splat(p->h_s) * r * load4(p->inv_spin_inertia);
    const v4 a = hri * r * kxm;
    const v4 w0 = om0 * r + hri * ((q->t_drive + tau_b) - r * fexm);
    const v4 inv_1a = splat(1.0) / (splat(1.0) + a);
    const v4 c_free = kxm * inv_1a;
    const m4 lock = q->lock;
    q->c_x = sel(lock, kxm, c_free);
    q->fx = sel(lock, fexm, fexm + c_free * w0) + q->ext_x;
    /* The chassis takes the lateral force at the substep's start and a
     * share th_y of its change, F_y0 + th_y (F_y1 - F_y0): a damper th_y
     * ky on the end lateral velocity (four_wheel.c's step 5). */
    const v4 fy0 = keep(on, q->fy0);
    q->c_y = q->th_y * ky;
    q->fy = (fy0 + q->th_y * (fey - fy0)) + q->ext_y;
    q->fex_e = fex;
    q->kx_e = kx;
    q->fey_e = fey;
    q->ky_e = ky;
    q->inv_1a = inv_1a;
    q->w0 = w0;
}

/* The longitudinal force the chassis and the wheel take over the substep,
 * F_x0 + th_x (F_x1 - F_x0), from the end force F_x1. */
VEC v4 wheel_fx_taken(const wheels *restrict q, v4 fx1)
{
    const v4 fx0 = keep(q->loaded, q->fx0);
    return fx0 + q->th_x * (fx1 - fx0);
}

/* The end slip velocity s_x1 = Omega1 R - V_x1 of each wheel from its end
 * forward velocity u1: -u1 where locked, (W0 - u1) / (1 + a) where free. */
VEC v4 wheel_slip_end(const wheels *restrict q, v4 u1)
{
    return sel(q->lock, -u1, (q->w0 - u1) * q->inv_1a);
}

/* 7. of a substep for the wheels: the end-of-substep forces, for telemetry
 * and the next substep's links (the force each contact puts on the body, in
 * body x and y); the wheels' spins and the tyres' deflections at the end
 * (four_wheel.c's step 4 with the end velocities), each deflection within
 * the slips' bounds and none off the ground; the sums for the tyres' life,
 * and the sinkage. */
VEC void wheels_end(PHASE_ARGS)
{
    pdk_fw_state *restrict st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    const v4 zero = splat(0.0);
    const m4 on = q->loaded;
    const v4 u1 = q->u1, vl1 = q->vl1, s1 = q->sx1;
    const v4 om1 = sel(q->lock, zero, (u1 + s1) * sv->inv_radius);
    const v4 fx_end = keep(on, q->fex_e + q->kx_e * s1);
    const v4 fy_end = keep(on, q->fey_e - q->ky_e * vl1);
    const v4 ux = q->e_x * load4(st->defl_x_m) + q->ux_in + q->g_x * s1;
    const v4 uy = q->e_y * load4(st->defl_y_m) + q->uy_in + q->g_y * vl1;
    /* The slips' bounds: whole at speed, down to the law's peak slip at
     * rest (PDK_FW_KAPPA_MAX). The peak's slip moves with the ground's
     * grip over its stiffness (a law's peak slip is its friction over
     * its slip stiffness); on soil the thrust rises to full slip and
     * the bound stays whole. */
    const v4 au1 = abs4(u1);
    v4 kb = splat(PDK_FW_KAPPA_MAX);
    v4 tb = splat(PDK_FW_TAN_ALPHA_MAX);
    if (any4(lt4(au1, splat(PDK_FW_CARCASS_FADE_MPS)))) {
        const v4 kmax = kb, tmax = tb;
        const v4 scale = q->ground.grip / q->ground.stiffness;
        const v4 rest_x = keep(~q->soil, carcass_fade4(au1 + abs4(s1)));
        const v4 rest_y = carcass_fade4(au1 + abs4(vl1));
        const v4 kr = load4(p->kappa_rest) * scale;
        const v4 tr = load4(p->tan_alpha_rest) * scale;
        kb = kmax - (kmax - sel(gt4(kr, kmax), kmax, kr)) * rest_x;
        tb = tmax - (tmax - sel(gt4(tr, tmax), tmax, tr)) * rest_y;
    }
    store4(st->defl_x_m, keep(on, clamp_sym4(ux, kb * q->sig_k)));
    store4(st->defl_y_m, keep(on, clamp_sym4(uy, tb * q->sig_a)));
    store4(st->spin_radps, om1);
    q->fx_end = fx_end;
    q->fy_end = fy_end;
    q->fz = keep(on, q->fz);
    q->s_end = keep(on, max4(q->s_end, zero));
    q->link_rc = keep(on, q->link_rc);
    q->link_pitch = keep(on, q->link_pitch);
    const v4 cx = fx_end + keep(on, q->ext_x);
    const v4 cy = fy_end + keep(on, q->ext_y);
    store4(st->prev_fx_n, keep(on, cx * q->exx + cy * q->eyx));
    store4(st->prev_fy_n, keep(on, cx * q->exy + cy * q->eyy));
    /* The tyres' work for their life: the sliding power |Fx Vsx| +
     * |Fy Vsy| (Vsx = -s1, Vsy = v_y1), the load, the rolling speed and
     * the contact. */
    sv->sum_power += abs4(fx_end * s1) + abs4(fy_end * vl1);
    sv->sum_load += q->fz;
    sv->sum_speed += keep(on, au1);
    sv->sum_contact += keep(on, splat(1.0));
    /* Sinkage toward the soil's static value at the end's load, or out of a
     * rut where there is no soil or no load: its share of the way there, by
     * at most its step a substep (four_wheel_ground.c). */
    if (sv->any_sinkage || any4(q->soil)) {
        const v4 z0 = load4(st->sinkage_m);
        v4 target = zero;
        v4 step = load4(p->sinkage_step_m);
        for (int i = 0; i < PDK_WHEELS; i++) {
            if (q->soil[i] != 0 && q->fz[i] > 0.0) {
                /* Through scalars: a vector's element has no address in
                 * clang (the fuzz build), and the copies are exact. */
                double target_m = target[i];
                double step_m = step[i];
                pdk_fw_sinkage_at(&pdk_surface_get(q->surf[i])->soil, vh->soil[i >> 1],
                                  p->radius_m[i], sv->pressure_pa[i], q->fz[i], p->h_s, &target_m,
                                  &step_m);
                target[i] = target_m;
                step[i] = step_m;
            }
        }
        store4(st->sinkage_m, z0 + clamp_sym4(splat(p->sinkage_share) * (target - z0), step));
    }
}

#endif
