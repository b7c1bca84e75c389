/* The four-wheel step's tick (internal to four_wheel.c): its start (the
 * tyres' effects, the terrain's kind), its end (the tyres' life, rest, the
 * fault check and the fault) and the vehicle's telemetry channels. Static
 * and inlined where it runs every tick, for the AVX2 build of the step. */
#ifndef PDK_FOUR_WHEEL_TICK_H
#define PDK_FOUR_WHEEL_TICK_H

#include "sim/channels.h"
#include "vehicle/four_wheel_ground.h"
#include "vehicle/four_wheel_substep.h"
#include "vehicle/steering.h"

/* ---- the tick ------------------------------------------------------------ */

static double finite_or_zero(double x)
{
    return x - x == 0.0 ? x : 0.0;
}

static inline double negligible_to_zero(double x)
{
    return fabs(x) < PDK_FW_NEGLIGIBLE ? 0.0 : x;
}

/* Whether any state value is infinite or NaN (x - x is NaN then, 0 else). */
VEC int state_broken(const pdk_fw_state *s)
{
    /* The state's doubles, four at a time: pos, vel and omega (9), accel
     * (3), quat (4), the lagged forces (8), and the squared rates, which
     * overflow before any of them does. */
    double v2 = dot3(s->vel_mps, s->vel_mps) + dot3(s->omega_radps, s->omega_radps);
    v4 a = (v4){s->pos_m[0], s->pos_m[1], s->pos_m[2], v2};
    v4 b = (v4){s->vel_mps[0], s->vel_mps[1], s->vel_mps[2], s->omega_radps[0]};
    v4 c = (v4){s->omega_radps[1], s->omega_radps[2], s->accel_mps2[0], s->accel_mps2[1]};
    v4 d = (v4){s->accel_mps2[2], 0.0, 0.0, 0.0};
    v4 z = ((a - a) + (b - b)) + ((c - c) + (d - d));
    v4 q = load4(s->quat), fx = load4(s->prev_fx_n), fy = load4(s->prev_fy_n);
    z += (q - q) + ((fx - fx) + (fy - fy));
    /* The wheels: spins, deflections, sinkages and the tyres' heat, air
     * and tread. */
    v4 sp = load4(s->spin_radps), ux = load4(s->defl_x_m), uy = load4(s->defl_y_m);
    v4 zs = load4(s->sinkage_m);
    z += ((sp - sp) + (zs - zs)) + ((ux - ux) + (uy - uy));
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_tyre_life *l = &s->life[i];
        v4 t = (v4){l->surface_temp_c, l->carcass_temp_c, l->gas_temp_c, l->tread_m};
        v4 e = (v4){l->air_share, l->leak_per_s, l->flat_run_m, l->grip_scale};
        z += (t - t) + (e - e);
    }
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_tyre_effect *f = &s->effect[i];
        v4 e = (v4){f->grip, f->radius_drop_m, f->rolling_scale, f->pressure_kpa};
        z += e - e;
    }
    v4 wp = load4(s->work_power_w), wl = load4(s->work_load_n);
    v4 ws = load4(s->work_speed_mps), wc = load4(s->work_contact);
    z += ((wp - wp) + (wl - wl)) + ((ws - ws) + (wc - wc));
    z += splat(s->power_scale - s->power_scale);
    return any4(~(m4)(z == splat(0.0)));
}

/* The fault (as pdk_st_step's): the vehicle stays at the pose where the tick
 * began, with no velocity, and reports why (code, pdk_vehicle_fault). */
static void fault(const fw_vehicle *vh, const pose7 *start, uint32_t code)
{
    pdk_fw_state *s = vh->st;
    const pdk_fw_cmd *cmd = vh->cmd;
    const pdk_fw_consts *p = vh->p;
    double *ch = vh->ch;
    double qn = 0.0;
    int quat_ok = 1;
    for (int j = 0; j < 4; j++) {
        double c = start->quat[j];
        quat_ok &= c - c == 0.0;
        qn += c * c;
    }
    quat_ok &= qn > 0.0 && qn - qn == 0.0;
    for (int j = 0; j < 3; j++) {
        s->pos_m[j] = finite_or_zero(start->pos_m[j]);
        s->vel_mps[j] = 0.0;
        s->omega_radps[j] = 0.0;
        s->accel_mps2[j] = 0.0;
    }
    if (quat_ok) {
        double inv = 1.0 / sqrt(qn);
        for (int j = 0; j < 4; j++) {
            s->quat[j] = start->quat[j] * inv;
        }
    } else {
        s->quat[0] = 1.0;
        s->quat[1] = s->quat[2] = s->quat[3] = 0.0;
    }
    for (int i = 0; i < PDK_WHEELS; i++) {
        pdk_tyre_life *l = &s->life[i];
        s->prev_fx_n[i] = 0.0;
        s->prev_fy_n[i] = 0.0;
        s->spin_radps[i] = 0.0;
        s->defl_x_m[i] = 0.0;
        s->defl_y_m[i] = 0.0;
        s->sinkage_m[i] = finite_or_zero(s->sinkage_m[i]);
        l->surface_temp_c = finite_or_zero(l->surface_temp_c);
        l->carcass_temp_c = finite_or_zero(l->carcass_temp_c);
        l->gas_temp_c = finite_or_zero(l->gas_temp_c);
        l->tread_m = finite_or_zero(l->tread_m);
        l->air_share = finite_or_zero(l->air_share);
        l->leak_per_s = finite_or_zero(l->leak_per_s);
        l->flat_run_m = finite_or_zero(l->flat_run_m);
        l->grip_scale = finite_or_zero(l->grip_scale);
        s->work_power_w[i] = 0.0;
        s->work_load_n[i] = 0.0;
        s->work_speed_mps[i] = 0.0;
        s->work_contact[i] = 0.0;
    }
    pdk_fw_life_effects(s->life, vh->life, p->radius_m, s->effect);
    s->work_ticks = 0u;
    s->power_scale = finite_or_zero(s->power_scale);
    s->faulted = code;
    if (ch == NULL) {
        return; /* no telemetry asked for (pdk_fw_step_batch) */
    }
    for (int i = 0; i < PDK_CH_COUNT; i++) {
        ch[i] = 0.0;
    }
    double yaw, pitch, roll;
    pdk_fw_euler(s->quat, &yaw, &pitch, &roll);
    ch[PDK_CH_POS_X] = s->pos_m[0];
    ch[PDK_CH_POS_Y] = s->pos_m[1];
    ch[PDK_CH_POS_Z] = s->pos_m[2];
    ch[PDK_CH_YAW] = yaw;
    ch[PDK_CH_PITCH] = pitch;
    ch[PDK_CH_ROLL] = roll;
    ch[PDK_CH_STEER_ANGLE] = cmd->steer_rad;
    ch[PDK_CH_STEER_WHEEL] = cmd->steer_wheel_deg;
    ch[PDK_CH_THROTTLE] = cmd->throttle_pct;
    ch[PDK_CH_BRAKE] = cmd->brake_bar;
    ch[PDK_CH_GEAR] = cmd->gear_code;
    ch[PDK_CH_TYRE_LOAD_F] = 2.0 * p->static_load_n[PDK_FL];
    ch[PDK_CH_TYRE_LOAD_R] = 2.0 * p->static_load_n[PDK_RL];
    for (int i = 0; i < PDK_WHEELS; i++) {
        ch[PDK_CH_TYRE_LOAD_FL + i] = p->static_load_n[i];
        ch[PDK_CH_WHEEL_STEER_FL + i] = cmd->wheel_steer_rad[i];
    }
    ch[PDK_CH_FAULTED] = 1.0;
    ch[PDK_CH_FAULT_CODE] = (double)code;
}

/* Why the state that settle leaves is impossible (pdk_vehicle_fault), or
 * PDK_VEHICLE_FAULT_NONE: a value not finite, the CG faster than
 * PDK_FW_FAULT_SPEED_MPS, or the CG under the ground beneath it by more
 * than the hull reaches plus PDK_FW_FAULT_DEPTH_M (no point of the body
 * above the ground). */
static uint32_t impossible(const fw_vehicle *vh, const pdk_terrain_def *terrain, int plane)
{
    const pdk_fw_state *s = vh->st;
    if (state_broken(s)) {
        return PDK_VEHICLE_FAULT_NON_FINITE;
    }
    if (dot3(s->vel_mps, s->vel_mps) > PDK_FW_FAULT_SPEED_MPS * PDK_FW_FAULT_SPEED_MPS) {
        return PDK_VEHICLE_FAULT_OVER_SPEED;
    }
    const double floor_m = -(vh->p->hull_reach_m + PDK_FW_FAULT_DEPTH_M);
    if (plane) {
        return s->pos_m[2] < floor_m ? PDK_VEHICLE_FAULT_BELOW_GROUND : PDK_VEHICLE_FAULT_NONE;
    }
    double n[3];
    const double ground_m = pdk_terrain_height(terrain, s->pos_m[0], s->pos_m[1], n);
    return s->pos_m[2] - ground_m < floor_m ? PDK_VEHICLE_FAULT_BELOW_GROUND
                                            : PDK_VEHICLE_FAULT_NONE;
}

/* The per-wheel channels of one kind are four in a row, FL FR RL RR, so
 * that the tick stores each kind's wheel vector at once. */
#define WHEEL_ROW(kind)                                                                            \
    _Static_assert(PDK_CH_##kind##_FR == PDK_CH_##kind##_FL + 1 &&                                 \
                       PDK_CH_##kind##_RL == PDK_CH_##kind##_FL + 2 &&                             \
                       PDK_CH_##kind##_RR == PDK_CH_##kind##_FL + 3,                               \
                   "PDK_CH_" #kind "_FL..RR are four in a row")
WHEEL_ROW(SUSP_TRAVEL);
WHEEL_ROW(SUSP_FORCE);
WHEEL_ROW(WHEEL_STEER);
WHEEL_ROW(CAMBER);
WHEEL_ROW(TOE);
WHEEL_ROW(TYRE_LOAD);
WHEEL_ROW(SLIP_ANGLE);
WHEEL_ROW(FORCE_X);
WHEEL_ROW(FORCE_Y);
WHEEL_ROW(SLIP_RATIO);
WHEEL_ROW(TYRE_MZ);
WHEEL_ROW(WHEEL_SPEED);
WHEEL_ROW(SURFACE_TEMP);
WHEEL_ROW(CORE_TEMP);
WHEEL_ROW(PRESSURE);
WHEEL_ROW(WEAR);
WHEEL_ROW(GRIP);
WHEEL_ROW(SINKAGE);
WHEEL_ROW(SURFACE);
WHEEL_ROW(SLIDE_POWER);
WHEEL_ROW(CONDITION);
WHEEL_ROW(WHEEL_ANGLE);
#undef WHEEL_ROW

/* The tick's end: the quaternion renormalised, rest, and the fault check
 * on the terrain (a fault writes the channels too). Returns whether the
 * vehicle faulted. */
VEC int settle(const fw_vehicle *vh, const pose7 *start_pose, const pdk_terrain_def *terrain,
               int plane)
{
    pdk_fw_state *s = vh->st;
    const pdk_fw_cmd *cmd = vh->cmd;
    double *quat = s->quat;
    double inv_norm =
        1.0 / sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    for (int j = 0; j < 4; j++) {
        quat[j] *= inv_norm;
    }

    /* Rest (as the single-track model's): a vehicle held by its brakes or
     * pawl and slower than the thresholds stands exactly still on the
     * ground; its suspension keeps settling. */
    int held = 0;
    for (int i = 0; i < PDK_WHEELS; i++) {
        held |= cmd->hold_n[i] > 0.0;
        held |= cmd->brake_nm[i] > 0.0;
    }
    if (vh->pt != NULL) {
        /* In P: the UTV's lever engaged there, a car's selector there. */
        held |= vh->pt->kind == PDK_POWERTRAIN_UTV
                    ? pdk_utv_lever_gear(&s->pt.lever) == PDK_UTV_GEAR_PARK
                    : cmd->gear == PDK_GEAR_PARK;
    }
    if (held && fabs(s->vel_mps[0]) < PDK_FW_REST_SPEED_MPS &&
        fabs(s->vel_mps[1]) < PDK_FW_REST_SPEED_MPS &&
        dot3(s->omega_radps, s->omega_radps) < PDK_FW_REST_RATE_RADPS * PDK_FW_REST_RATE_RADPS) {
        s->vel_mps[0] = 0.0;
        s->vel_mps[1] = 0.0;
        s->omega_radps[2] = 0.0;
    }
    {
        /* Components below PDK_FW_NEGLIGIBLE become exactly zero. */
        const v4 tiny = splat(PDK_FW_NEGLIGIBLE);
        v4 vel = (v4){s->vel_mps[0], s->vel_mps[1], s->vel_mps[2], s->omega_radps[0]};
        v4 rest = (v4){s->omega_radps[1], s->omega_radps[2], s->accel_mps2[0], s->accel_mps2[1]};
        double acc2 = s->accel_mps2[2];
        vel = keep(~lt4(abs4(vel), tiny), vel);
        rest = keep(~lt4(abs4(rest), tiny), rest);
        s->vel_mps[0] = vel[0];
        s->vel_mps[1] = vel[1];
        s->vel_mps[2] = vel[2];
        s->omega_radps[0] = vel[3];
        s->omega_radps[1] = rest[0];
        s->omega_radps[2] = rest[1];
        s->accel_mps2[0] = rest[2];
        s->accel_mps2[1] = rest[3];
        s->accel_mps2[2] = negligible_to_zero(acc2);
    }
    const uint32_t code = impossible(vh, terrain, plane);
    if (code != PDK_VEHICLE_FAULT_NONE) {
        fault(vh, start_pose, code);
        return 1;
    }
    return 0;
}

/* The channels of a vehicle that settled without a fault, from its state
 * and the last substep's wheels. */
VEC void telemetry(const fw_vehicle *vh, const sub *sv, const wheels *q, int substeps)
{
    const pdk_fw_state *s = vh->st;
    const pdk_fw_cmd *cmd = vh->cmd;
    const pdk_fw_consts *p = vh->p;
    double *ch = vh->ch;
    mat3 rm;
    rotation_of(s->quat, &rm);
    double vb[3];
    rot_apply_t(&rm, s->vel_mps, vb);
    double yaw, pitch, roll;
    euler4(s->quat, &yaw, &pitch, &roll);
    ch[PDK_CH_POS_X] = s->pos_m[0];
    ch[PDK_CH_POS_Y] = s->pos_m[1];
    ch[PDK_CH_POS_Z] = s->pos_m[2];
    ch[PDK_CH_YAW] = yaw;
    ch[PDK_CH_SPEED] = sqrt(s->vel_mps[0] * s->vel_mps[0] + s->vel_mps[1] * s->vel_mps[1]);
    ch[PDK_CH_VEL_X] = vb[0];
    ch[PDK_CH_VEL_Y] = vb[1];
    ch[PDK_CH_YAW_RATE] = s->omega_radps[2];
    ch[PDK_CH_ACCEL_X] = s->accel_mps2[0];
    ch[PDK_CH_ACCEL_Y] = s->accel_mps2[1];
    ch[PDK_CH_ACCEL_Z] = s->accel_mps2[2];
    ch[PDK_CH_STEER_ANGLE] = cmd->steer_rad;
    ch[PDK_CH_STEER_WHEEL] = cmd->steer_wheel_deg;
    ch[PDK_CH_THROTTLE] = cmd->throttle_pct;
    ch[PDK_CH_BRAKE] = cmd->brake_bar;
    ch[PDK_CH_GEAR] = cmd->gear_code;
    ch[PDK_CH_DRAG] = sv->drag;
    ch[PDK_CH_FAULTED] = 0.0;
    ch[PDK_CH_FAULT_CODE] = 0.0;
    /* The contact between bodies is the world's (world_contact.c), which
     * writes these after the step; alone, a car touches nothing. */
    ch[PDK_CH_CONTACT_IMPULSE] = 0.0;
    ch[PDK_CH_CONTACT_COUNT] = 0.0;
    {
        /* The hull's contacts at the last substep (hull_contact.h). */
        const hull_contacts *hc = &sv->hull;
        ch[PDK_CH_BODY_CONTACT] = (double)__builtin_popcount(hc->on);
        ch[PDK_CH_BODY_CONTACT_FORCE] = hc->on != 0u ? hc->force_n : 0.0;
        ch[PDK_CH_BODY_CONTACT_FACE] = hc->on != 0u ? (double)hc->face : 0.0;
    }
    ch[PDK_CH_ROLL] = roll;
    ch[PDK_CH_PITCH] = pitch;
    ch[PDK_CH_ROLL_RATE] = s->omega_radps[0];
    ch[PDK_CH_PITCH_RATE] = s->omega_radps[1];
    ch[PDK_CH_VEL_Z] = s->vel_mps[2];

    /* Per wheel, the last substep's values: its geometry at the substep's
     * start, its forces and the tyre's slips at the end (kappa' and
     * alpha' = atan(tan(alpha')) of the deflections, the slips the law
     * sees). */
    const v4 kappa = load4(s->defl_x_m) * q->inv_sk;
    const v4 slip = atan2_4(load4(s->defl_y_m), q->sig_a);
    store4(&ch[PDK_CH_SUSP_TRAVEL_FL], q->travel);
    store4(&ch[PDK_CH_SUSP_FORCE_FL], q->s_end);
    store4(&ch[PDK_CH_WHEEL_STEER_FL], q->delta);
    store4(&ch[PDK_CH_CAMBER_FL], q->camber);
    store4(&ch[PDK_CH_TOE_FL], q->toe);
    store4(&ch[PDK_CH_TYRE_LOAD_FL], q->fz);
    store4(&ch[PDK_CH_SLIP_ANGLE_FL], slip);
    store4(&ch[PDK_CH_FORCE_X_FL], q->fx_end);
    store4(&ch[PDK_CH_FORCE_Y_FL], q->fy_end);
    store4(&ch[PDK_CH_SLIP_RATIO_FL], kappa);
    const v4 mz = keep(q->loaded, q->mz);
    store4(&ch[PDK_CH_TYRE_MZ_FL], mz);
    store4(&ch[PDK_CH_WHEEL_SPEED_FL], load4(s->spin_radps));

    store4(&ch[PDK_CH_SINKAGE_FL], load4(s->sinkage_m));
    store4(&ch[PDK_CH_SURFACE_FL], q->surface);
    store4(&ch[PDK_CH_SLIDE_POWER_FL], sv->sum_power * splat(1.0 / (double)substeps));
    {
        const pdk_tyre_life *l = s->life;
        const pdk_tyre_effect *e = s->effect;
        const double df = vh->life[0]->tread_depth_m, dr = vh->life[1]->tread_depth_m;
        const v4 tread = (v4){l[0].tread_m, l[1].tread_m, l[2].tread_m, l[3].tread_m};
        const v4 depth = (v4){df, df, dr, dr};
        const m4 worn = gt4(depth, splat(0.0));
        store4(&ch[PDK_CH_SURFACE_TEMP_FL], (v4){l[0].surface_temp_c, l[1].surface_temp_c,
                                                 l[2].surface_temp_c, l[3].surface_temp_c});
        store4(&ch[PDK_CH_CORE_TEMP_FL], (v4){l[0].carcass_temp_c, l[1].carcass_temp_c,
                                              l[2].carcass_temp_c, l[3].carcass_temp_c});
        store4(&ch[PDK_CH_WEAR_FL], keep(worn, splat(1.0) - tread / sel(worn, depth, splat(1.0))));
        store4(&ch[PDK_CH_CONDITION_FL], (v4){(double)l[0].condition, (double)l[1].condition,
                                              (double)l[2].condition, (double)l[3].condition});
        store4(&ch[PDK_CH_PRESSURE_FL],
               (v4){e[0].pressure_kpa, e[1].pressure_kpa, e[2].pressure_kpa, e[3].pressure_kpa});
        store4(&ch[PDK_CH_GRIP_FL], (v4){e[0].grip, e[1].grip, e[2].grip, e[3].grip});
    }
    /* The rolling resistance as the force it makes at the contacts, f Fz
     * against each free wheel's spin (a held wheel's is part of what holds
     * it). */
    const v4 rolling = keep(~q->lock, -(q->roll_t * sign4(load4(s->spin_radps)))) * sv->inv_radius;
    ch[PDK_CH_ROLLING] = ((rolling[0] + rolling[1]) + rolling[2]) + rolling[3];
    ch[PDK_CH_STEERING_TORQUE] = steering_torque(q, mz, p);
    ch[PDK_CH_STEERING_WHEEL_TORQUE] = steering_wheel_torque(q, mz, keep(q->loaded, q->fy_end), p);
    for (int k = 0; k < 2; k++) {
        int l = 2 * k, r = 2 * k + 1;
        ch[PDK_CH_TYRE_LOAD_F + k] = q->fz[l] + q->fz[r];
        ch[PDK_CH_SLIP_ANGLE_F + k] = 0.5 * (slip[l] + slip[r]);
        ch[PDK_CH_FORCE_X_F + k] = q->fx_end[l] + q->fx_end[r];
        ch[PDK_CH_FORCE_Y_F + k] = q->fy_end[l] + q->fy_end[r];
        ch[PDK_CH_GEOMETRIC_TRANSFER_F + k] = 0.5 * (q->link_rc[r] - q->link_rc[l]);
        ch[PDK_CH_PITCH_LINK_LOAD_F + k] = q->link_pitch[l] + q->link_pitch[r];
        ch[PDK_CH_JACKING_FORCE_F + k] = q->link_rc[l] + q->link_rc[r];
    }
    /* The drive and brake torques at each wheel; the powertrain's own. */
    store4(&ch[PDK_CH_WHEEL_TORQUE_FL], q->t_drive);
    store4(&ch[PDK_CH_BRAKE_TORQUE_FL], (load4(cmd->hold_n) * sv->radius + sv->brake) + sv->pawl);
    if (vh->pt != NULL) {
        pdk_fwpt_channels(s, vh->pt, &sv->pto, ch);
    }
}

/* What a step needs to know of the terrain, the same for every vehicle on
 * it: whether it is the plane, of one surface everywhere (and that
 * surface's ground), how wheels meet it and whether it has faces (ramps or
 * bumps, pdk_terrain_face). */
typedef struct terrain_kind {
    int plane, uniform, cylinder, faces;
    pdk_fw_ground base;
} terrain_kind;

/* Called at the step's entry (four_wheel.c), not by the AVX2 build of the
 * step, which includes this header too. */
static __attribute__((unused)) void terrain_kind_of(const pdk_terrain_def *terrain, terrain_kind *k)
{
    k->plane = pdk_terrain_is_plane(terrain);
    k->uniform =
        terrain->n_patches == 0 && !(terrain->field.nx > 0 && terrain->field.has_materials);
    k->cylinder = terrain->contact_mode == PDK_CONTACT_CYLINDER;
    k->faces = terrain->n_ramps > 0 || terrain->n_bumps > 0;
    pdk_fw_ground_of(terrain->base_surface_id, &k->base);
}

/* The tick's start: each tyre's life (its effect, as the state holds it)
 * gives its rolling radius, drop, grip,
 * rolling-resistance scale and pressure (step 0 of the file's scheme); the
 * terrain's kind and, on a terrain of one surface, its ground for every
 * wheel; the sums for the tyres' life start at zero. */
VEC void tick_begin(const fw_vehicle *vh, sub *sv, const terrain_kind *tk)
{
    const pdk_fw_consts *p = vh->p;
    const pdk_fw_state *st = vh->st;
    const pdk_tyre_effect *e = st->effect;
    const v4 drop =
        (v4){e[0].radius_drop_m, e[1].radius_drop_m, e[2].radius_drop_m, e[3].radius_drop_m};
    const v4 grip = (v4){e[0].grip, e[1].grip, e[2].grip, e[3].grip};
    const v4 roll =
        (v4){e[0].rolling_scale, e[1].rolling_scale, e[2].rolling_scale, e[3].rolling_scale};
    const v4 kpa = (v4){e[0].pressure_kpa, e[1].pressure_kpa, e[2].pressure_kpa, e[3].pressure_kpa};
    sv->drop = drop;
    sv->radius = load4(p->radius_m) - drop;
    sv->inv_radius = splat(1.0) / sv->radius;
    sv->tyre_grip = grip * splat(p->surface_friction);
    sv->roll_scale = roll;
    sv->pressure_pa = splat(1000.0) * kpa;
    sv->any_sinkage = any4(~(m4)(load4(st->sinkage_m) == splat(0.0)));
    sv->plane = tk->plane;
    sv->uniform = tk->uniform;
    sv->cylinder = tk->cylinder;
    sv->faces = tk->faces;
    if (sv->uniform) {
        const pdk_fw_ground *g = &tk->base;
        sv->base_ground.grip = splat(g->grip) * sv->tyre_grip;
        sv->base_ground.stiffness = splat(g->stiffness);
        sv->base_ground.slide = splat(g->slide);
        v4 f = splat(g->rolling_coeff) * load4(p->rolling_ratio) * roll;
        sv->base_roll_f = sel(gt4(f, splat(MAX_ROLLING_COEFF)), splat(MAX_ROLLING_COEFF), f);
        sv->base_soil = g->deformable;
    }
    sv->sum_power = splat(0.0);
    sv->sum_load = splat(0.0);
    sv->sum_speed = splat(0.0);
    sv->sum_contact = splat(0.0);
    sv->drag = 0.0;
    sv->shaft = splat(0.0);
    sv->pawl = splat(0.0);
    sv->brake = splat(0.0);
}

/* The tick's end for the tyres: what the tick's substeps did to each one
 * added to the work since its life was last advanced, and at the end of
 * the period (life_ticks, PDK_FW_LIFE_TICKS but for a car's first) its
 * life advanced by them with their means (and what it gives the step
 * renewed). */
static __attribute__((noinline)) void life_steps(pdk_fw_state *st, const fw_vehicle *vh,
                                                 const pdk_terrain_def *terrain, int substeps)
{
    const double n = (double)st->work_ticks * (double)substeps;
    const v4 inv_n = splat(1.0 / n);
    double power[PDK_WHEELS], load[PDK_WHEELS], speed[PDK_WHEELS], contact[PDK_WHEELS];
    store4(power, load4(st->work_power_w) * inv_n);
    store4(load, load4(st->work_load_n) * inv_n);
    store4(speed, load4(st->work_speed_mps) * inv_n);
    store4(contact, load4(st->work_contact) * inv_n);
    pdk_fw_life_steps(st->life, vh->life, power, load, speed, contact, terrain->air_temp_c,
                      terrain->road_temp_c, vh->p->h_s * n);
    pdk_fw_life_effects(st->life, vh->life, vh->p->radius_m, st->effect);
    store4(st->work_power_w, splat(0.0));
    store4(st->work_load_n, splat(0.0));
    store4(st->work_speed_mps, splat(0.0));
    store4(st->work_contact, splat(0.0));
    st->work_ticks = 0u;
    st->life_ticks = PDK_FW_LIFE_TICKS;
}

VEC void tick_life(const fw_vehicle *vh, const sub *sv, const pdk_terrain_def *terrain,
                   int substeps)
{
    pdk_fw_state *st = vh->st;
    store4(st->work_power_w, load4(st->work_power_w) + sv->sum_power);
    store4(st->work_load_n, load4(st->work_load_n) + sv->sum_load);
    store4(st->work_speed_mps, load4(st->work_speed_mps) + sv->sum_speed);
    store4(st->work_contact, load4(st->work_contact) + sv->sum_contact);
    if (++st->work_ticks >= st->life_ticks) {
        life_steps(st, vh, terrain, substeps);
    }
}

#endif
