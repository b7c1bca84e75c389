/* The four-wheel model's set-up (four_wheel.h): the constants resolved at
 * spawn (the tyres' laws among them), the vehicle at rest on its springs,
 * what a held command caches (the bicycle angle, Ackermann and toe per
 * wheel, from steering.h; drive and holding forces) and the tyre actions
 * of the inputs. The step itself is in four_wheel.c. */
#include "vehicle/four_wheel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ground/surface.h"
#include "math/hash.h"
#include "math/trig.h"
#include "math/vmath.h"
#include "powertrain/cvt.h"
#include "powertrain/engine.h"
#include "tyre/tyre_life.h"
#include "vehicle/four_wheel_ground.h"
#include "vehicle/four_wheel_powertrain.h"
#include "vehicle/single_track.h"
#include "vehicle/steering.h"

/* The margin above the bump travel at which a ray starts: half the bump
 * travel, at least this. Travel beyond the bump stop is still seen. */
#define MIN_RAY_MARGIN_M 0.05

/* The slips at which each axle's law (lanes 0, 1 front, 2, 3 rear of c)
 * reaches its peak force in pure slip at its nominal load on the reference
 * surface: the least slip of a geometric scan (PEAK_SCAN points from
 * PEAK_SCAN_FIRST up to the slip bounds, 4.5 % apart) whose force is within
 * 0.5 % of the scan's largest, so that a law that saturates without a
 * peak gives where it saturates. Longitudinal slips in lanes 0 and 2,
 * lateral in lanes 1 and 3 of each evaluation. */
#define PEAK_SCAN 200
#define PEAK_SCAN_FIRST 1.0e-3
static void peak_slips(const pdk_tyre_consts4 *c, double kappa_out[2], double tan_out[2])
{
    const v4 lim =
        (v4){PDK_FW_KAPPA_MAX, PDK_FW_TAN_ALPHA_MAX, PDK_FW_KAPPA_MAX, PDK_FW_TAN_ALPHA_MAX};
    /* The grid's ratio, lim / first over PEAK_SCAN - 1 steps. */
    v4 ratio;
    for (int k = 0; k < 4; k++) {
        ratio[k] = pdk_pow(lim[k] / PEAK_SCAN_FIRST, 1.0 / (double)(PEAK_SCAN - 1));
    }
    const pdk_tyre_ground4 ground = {splat(1.0), splat(1.0), splat(1.0)};
    const v4 fz = load4(c->fz_nom);
    const m4 long_lanes = (m4){-1, 0, -1, 0};
    v4 force[PEAK_SCAN], slip[PEAK_SCAN];
    v4 best = splat(0.0);
    v4 x = splat(PEAK_SCAN_FIRST);
    for (int n = 0; n < PEAK_SCAN; n++) {
        pdk_tyre_in4 in = {fz, keep(long_lanes, x), keep(~long_lanes, x), splat(0.0), splat(10.0)};
        pdk_tyre_out4 out;
        pdk_tyre_eval4(c, &in, &ground, 0, &out);
        force[n] = abs4(sel(long_lanes, out.fx_n, out.fy_n));
        slip[n] = x;
        best = max4(best, force[n]);
        x = x * ratio;
    }
    v4 peak = lim;
    for (int n = PEAK_SCAN - 1; n >= 0; n--) {
        peak = sel(ge4(force[n], splat(0.995) * best), slip[n], peak);
    }
    kappa_out[0] = peak[0];
    kappa_out[1] = peak[2];
    tan_out[0] = peak[1];
    tan_out[1] = peak[3];
}

void pdk_fw_law_of(const pdk_vehicle_def *def, int axle, double static_load_n,
                   pdk_tyre_law_def *out)
{
    const pdk_axle_tyre_def *ty = axle == 0 ? &def->tyre_front : &def->tyre_rear;
    *out = ty->law;
    if (out->law == PDK_TYRE_GRIP || out->law == PDK_TYRE_UTV) {
        /* Each tyre has half the axle's stiffness at its static load, in
         * proportion to its load (vehicle_def.h): C_alpha / N for the UTV law
         * (the Polaris model's tyres.cornering_per_load) as for the grip law,
         * and the axle's friction is the law's mu (the UTV's wet-film friction
         * on the reference surface). The UTV law has no camber thrust (the
         * Polaris model), so only the grip law takes the camber stiffness. */
        out->cornering_per_load = ty->cornering_stiffness_n_per_rad / (2.0 * static_load_n);
        out->mu_x = ty->friction_coeff;
        out->mu_y = ty->friction_coeff;
        if (out->law == PDK_TYRE_GRIP) {
            out->camber_per_load = ty->camber_stiffness_n_per_rad / (2.0 * static_load_n);
        }
    }
}

double pdk_fw_ray_top_m(const pdk_vehicle_def *def)
{
    double top = 0.0;
    for (int k = 0; k < 2; k++) {
        const pdk_suspension_def *s = k == 0 ? &def->susp_front : &def->susp_rear;
        const double margin = max2(0.5 * s->travel_bump_m, MIN_RAY_MARGIN_M);
        top = max2(top, s->travel_bump_m + margin);
    }
    return top;
}

pdk_error pdk_vehicle_def_hull_box(const pdk_vehicle_def *def, double half_extent_m[3],
                                   double centre_m[3])
{
    if (def == NULL || half_extent_m == NULL || centre_m == NULL ||
        def->model != PDK_MODEL_FOUR_WHEEL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    const pdk_error err = pdk_vehicle_def_check(def);
    if (err != PDK_OK) {
        return err;
    }
    /* The box the four-wheel constants hold (params_init below): the same
     * hull from the same ray top, so a proxy of this definition and a car
     * spawned from it have one box. */
    const pdk_hull h = pdk_hull_from_def(def, pdk_fw_ray_top_m(def));
    half_extent_m[0] = 0.5 * (h.front_m - h.rear_m);
    half_extent_m[1] = h.half_width_m;
    half_extent_m[2] = 0.5 * (h.roof_m - h.bottom_m);
    centre_m[0] = 0.5 * (h.front_m + h.rear_m);
    centre_m[1] = 0.0;
    centre_m[2] = 0.5 * (h.roof_m + h.bottom_m);
    return PDK_OK;
}

/* pdk_fw_params_init, with the peak slips and the full-load upshift speeds
 * from same where it is not NULL. */
static void params_init(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction,
                        const pdk_fw_consts *same)
{
    const pdk_chassis_def *c = &def->chassis;
    double m = c->mass_kg;
    double len = c->wheelbase_m;
    double a = c->cg_to_front_axle_m;
    double b = len - a;
    pdk_fw_consts *p = &params->c;

    memset(p, 0, sizeof *p);
    p->h_s = substep_s;
    p->inv_h = 1.0 / substep_s;
    p->mass_kg = m;
    p->mass_per_h = m / substep_s;
    p->sinkage_share = pdk_fw_sinkage_share(substep_s);
    p->inertia_kgm2[0] = c->roll_inertia_kgm2;
    p->inertia_kgm2[1] = c->pitch_inertia_kgm2;
    p->inertia_kgm2[2] = c->yaw_inertia_kgm2;
    for (int j = 0; j < 3; j++) {
        p->inertia_per_h[j] = p->inertia_kgm2[j] / substep_s;
    }
    p->gravity_mps2 = gravity_mps2;
    p->cg_height_m = c->cg_height_m;
    p->surface_friction = surface_friction;
    p->steering_ratio = def->steering.ratio;
    p->steering_trail_m = def->steering.trail_m;
    p->assist_gain = def->steering.assist_gain;
    p->assist_max_nm = def->steering.assist_max_nm;
    p->drag_n_per_mps2 = 0.5 * air_density_kgpm3 * def->resist.drag_area_m2;
    const double lift = 0.5 * air_density_kgpm3 * def->resist.downforce_area_m2;
    p->lift_n_per_mps2[0] = lift * def->resist.downforce_front;
    p->lift_n_per_mps2[1] = lift * (1.0 - def->resist.downforce_front);
    p->lift_x_m[0] = a;
    p->lift_x_m[1] = -b;
    p->lift = lift > 0.0 ? 1 : 0;
    const double keep = 1.0 - def->chassis.angular_damping_per_s * substep_s;
    p->spin_keep = keep > 0.0 ? keep : 0.0;
    if (def->powertrain.kind != PDK_POWERTRAIN_LUMPED) {
        p->engine_lag = pdk_engine_lag_factor(&def->powertrain.engine, substep_s);
        p->cvt_lag = pdk_cvt_lag_factor(&def->powertrain.cvt, substep_s);
        p->idle_feed = pdk_engine_idle_feed(&def->powertrain.engine);
    }
    if (same != NULL) {
        /* A scan of the engine curve per gear: most of a geared car's
         * resolve once the tyres' peaks come from same too. */
        memcpy(p->full_upshift_rpm, same->full_upshift_rpm, sizeof p->full_upshift_rpm);
    } else {
        pdk_fwpt_full_upshift_rpm(&def->powertrain, p->full_upshift_rpm);
    }
    p->drive_force_n = def->drive.max_force_n;
    p->drive_power_w = def->drive.max_power_w;

    const double top = pdk_fw_ray_top_m(def);
    for (int k = 0; k < 2; k++) {
        const pdk_suspension_def *s = k == 0 ? &def->susp_front : &def->susp_rear;
        const pdk_axle_tyre_def *ty = k == 0 ? &def->tyre_front : &def->tyre_rear;
        pdk_fw_axle *ax = &params->axle[k];
        ax->track_m = pdk_vehicle_def_track_m(def, k);
        ax->x_m = k == 0 ? a : -b;
        /* Static wheel loads from moment balance about each axle
         * (Gillespie ch. 2), shared equally by the two wheels. */
        ax->static_load_n = m * gravity_mps2 * (k == 0 ? b : a) / (2.0 * len);
        ax->static_compression_m = ax->static_load_n / s->spring_rate_npm;
        ax->spring_npm = s->spring_rate_npm;
        ax->arb_npm = s->anti_roll_npm;
        ax->bump_stop_npm = s->bump_stop_npm;
        ax->travel_bump_m = s->travel_bump_m;
        ax->travel_droop_m = s->travel_droop_m;
        ax->static_camber_rad = s->static_camber_rad;
        ax->solid = s->kind == PDK_AXLE_SOLID ? 1 : 0;
        ax->kin = s->kinematics;
        pdk_fw_law_of(def, k, ax->static_load_n, &ax->law);
        ax->life = ty->life;
        /* The soil model's radius is the law's R0 and its inflation the
         * tyre's pressure (the step passes the pressure of the moment). */
        ax->soil = ty->soil;
        ax->soil.radius_m = ax->law.radius_m;
        ax->soil.inflation_pa = 1000.0 * ty->life.cold_pressure_kpa;
        p->static_camber_rad[k] = s->static_camber_rad;
        /* The tyre's rolling coefficient relative to the reference
         * surface's: the step multiplies the surface's by it. */
        const double rolling_ratio =
            ax->law.rolling_coeff / pdk_surface_get(PDK_SURFACE_TARMAC)->rolling_coeff;

        double sin_camber, cos_camber;
        pdk_trig_sincos(s->static_camber_rad, &sin_camber, &cos_camber);
        for (int i = 2 * k; i < 2 * k + 2; i++) {
            double side = (i & 1) ? -1.0 : 1.0;
            uint32_t bit = 1u << i;
            p->x_m[i] = ax->x_m;
            p->y_m[i] = side * (0.5 * ax->track_m);
            p->droop_m[i] = s->travel_droop_m;
            p->bump_m[i] = s->travel_bump_m;
            p->static_load_n[i] = ax->static_load_n;
            p->spring_npm[i] = s->spring_rate_npm;
            p->bump_stop_npm[i] = s->bump_stop_npm;
            p->bump_nspm[i] = s->bump_damping_nspm;
            p->rebound_nspm[i] = s->rebound_damping_nspm;
            p->arb_npm[i] = s->anti_roll_npm;
            /* h arb / 4: the bar's rate coefficient (trapezoidal). */
            p->arb_quarter_h[i] = 0.25 * substep_s * s->anti_roll_npm;
            p->static_toe_rad[i] = s->static_toe_rad;
            p->radius_m[i] = ax->law.radius_m;
            p->spin_inertia_kgm2[i] = ty->spin_inertia_kgm2;
            p->inv_spin_inertia[i] = 1.0 / ty->spin_inertia_kgm2;
            p->rolling_ratio[i] = rolling_ratio;
            p->corner_mass_kg[i] = ax->static_load_n / gravity_mps2;
            p->sinkage_step_m[i] =
                pdk_fw_sinkage_step_m(&ax->soil, ax->law.radius_m, ax->static_load_n, substep_s);
            p->camber_law[i] =
                ax->law.law != PDK_TYRE_GRIP || ax->law.camber_per_load != 0.0 ? -1 : 0;
            p->drive_share[i] =
                0.5 * (k == 0 ? def->drive.front_fraction : 1.0 - def->drive.front_fraction);
            /* The roll-centre couple's arm h_rc / t, the per-wheel links'
             * 2 / t, the pitch links' sign and arm -h_cg / L front, +h_cg /
             * L rear. */
            p->rc_height_m[i] = s->roll_center_height_m;
            p->rc_per_track[i] = s->roll_center_height_m / ax->track_m;
            p->two_per_track[i] = 2.0 / ax->track_m;
            p->pitch_arm[i] = (k == 0 ? -1.0 : 1.0) * c->cg_height_m / len;
            p->anti_brake[i] = s->anti_brake;
            p->anti_drive[i] = s->anti_drive;
            p->sin_camber[i] = -side * sin_camber;
            p->cos_camber[i] = cos_camber;
            p->per_wheel_links[i] = s->kinematics.roll_center_height_m.n_points > 0 ? -1 : 0;
            p->per_wheel_any |= s->kinematics.roll_center_height_m.n_points > 0 ? 1 : 0;
            p->toe_curve |= s->kinematics.toe_rad.n_points > 0 ? bit : 0u;
            p->camber_curve |= s->kinematics.camber_rad.n_points > 0 ? bit : 0u;
            p->solid |= ax->solid ? bit : 0u;
            p->rc_curve |= s->kinematics.roll_center_height_m.n_points > 0 ? bit : 0u;
            p->anti_brake_curve |= s->kinematics.anti_brake.n_points > 0 ? bit : 0u;
            p->anti_drive_curve |= s->kinematics.anti_drive.n_points > 0 ? bit : 0u;
        }
    }
    p->ride_ray_top_m = top;
    p->hard_nspm = PDK_FW_HARD_DAMPING * m / substep_s;
    {
        const pdk_hull hull = pdk_hull_from_def(def, top);
        pdk_hull_points(&hull, p->hull_pts_m);
        p->hull_reach_m = pdk_hull_reach_m(&hull);
    }
    params->powertrain = def->powertrain;
    pdk_tyre_consts4_init(&params->tyre, &params->axle[0].law, &params->axle[1].law);
    if (same != NULL) {
        memcpy(p->kappa_rest, same->kappa_rest, sizeof p->kappa_rest);
        memcpy(p->tan_alpha_rest, same->tan_alpha_rest, sizeof p->tan_alpha_rest);
        return;
    }
    double kappa_peak[2], tan_peak[2];
    peak_slips(&params->tyre, kappa_peak, tan_peak);
    for (int i = 0; i < PDK_WHEELS; i++) {
        p->kappa_rest[i] = kappa_peak[i >> 1];
        p->tan_alpha_rest[i] = tan_peak[i >> 1];
    }
}

void pdk_fw_params_init(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction)
{
    params_init(params, def, substep_s, gravity_mps2, air_density_kgpm3, surface_friction, NULL);
}

void pdk_fw_params_init_like(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                             double gravity_mps2, double air_density_kgpm3, double surface_friction,
                             const pdk_fw_consts *same)
{
    params_init(params, def, substep_s, gravity_mps2, air_density_kgpm3, surface_friction, same);
}

/* The ticks of the first tyre-life period of a car placed at pose: a whole
 * period less a place in it, the pose's hash (math/hash.h, over the bit
 * patterns of x, y and yaw) modulo the period. */
static uint32_t life_first_ticks(const pdk_pose *pose)
{
    uint64_t h = pdk_hash_f64(PDK_HASH_INIT, pose->x_m);
    h = pdk_hash_f64(h, pose->y_m);
    h = pdk_hash_f64(h, pose->yaw_rad);
    return PDK_FW_LIFE_TICKS - (uint32_t)(pdk_hash_finish(h) % PDK_FW_LIFE_TICKS);
}

void pdk_fw_state_init(pdk_fw_state *s, const pdk_fw_params *p, const pdk_terrain_def *terrain,
                       const pdk_pose *pose, double speed_mps)
{
    double normal[3];
    double ground = pdk_terrain_height(terrain, pose->x_m, pose->y_m, normal);
    double yaw = pdk_st_wrap_angle(pose->yaw_rad);
    double sh, ch, sy, cy;
    pdk_trig_sincos(0.5 * yaw, &sh, &ch);
    pdk_trig_sincos(yaw, &sy, &cy);
    s->pos_m[0] = pose->x_m;
    s->pos_m[1] = pose->y_m;
    s->pos_m[2] = ground + p->c.cg_height_m;
    s->quat[0] = ch;
    s->quat[1] = 0.0;
    s->quat[2] = 0.0;
    s->quat[3] = sh;
    s->vel_mps[0] = speed_mps * cy;
    s->vel_mps[1] = speed_mps * sy;
    s->vel_mps[2] = 0.0;
    if (normal[0] != 0.0 || normal[1] != 0.0) {
        /* On a slope the body stands on the ground's plane under the CG,
         * at the pose's yaw: the ZYX angles (yaw, pitch, roll) whose body z
         * is the ground's normal n. With n' = Rz(-yaw) n = (a, b, c) and
         * Ry(pitch) Rx(roll) e_z = (cos roll sin pitch, -sin roll, cos roll
         * cos pitch), pitch = atan2(a, c) and roll = asin(-b). The CG is
         * cg_height_m from the plane along n: cg_height_m / n_z above the
         * ground under it. */
        double a = cy * normal[0] + sy * normal[1];
        double b = -sy * normal[0] + cy * normal[1];
        double c = normal[2];
        double pitch = pdk_trig_atan2(a, c);
        double roll = pdk_trig_atan2(-b, sqrt(a * a + c * c));
        double sp, cp, sr, cr;
        pdk_trig_sincos(0.5 * pitch, &sp, &cp);
        pdk_trig_sincos(0.5 * roll, &sr, &cr);
        /* q = qz(yaw) qy(pitch) qx(roll). */
        s->quat[0] = ch * cp * cr + sh * sp * sr;
        s->quat[1] = ch * cp * sr - sh * sp * cr;
        s->quat[2] = ch * sp * cr + sh * cp * sr;
        s->quat[3] = sh * cp * cr - ch * sp * sr;
        s->pos_m[2] = ground + p->c.cg_height_m / c;
        /* Moving along the body's x axis, R e_x. */
        double w = s->quat[0], x = s->quat[1], y = s->quat[2], z = s->quat[3];
        s->vel_mps[0] = speed_mps * (1.0 - 2.0 * (y * y + z * z));
        s->vel_mps[1] = speed_mps * (2.0 * (x * y + w * z));
        s->vel_mps[2] = speed_mps * (2.0 * (x * z - w * y));
    }
    for (int j = 0; j < 3; j++) {
        s->omega_radps[j] = 0.0;
        s->accel_mps2[j] = 0.0;
    }
    /* At rest the springs carry the weight: the accelerometer reads g
     * upward, R' (0, 0, g) in the body. */
    {
        double w = s->quat[0], x = s->quat[1], y = s->quat[2], z = s->quat[3];
        double g = p->c.gravity_mps2;
        if (normal[0] != 0.0 || normal[1] != 0.0) {
            s->accel_mps2[0] = g * (2.0 * (x * z - w * y));
            s->accel_mps2[1] = g * (2.0 * (y * z + w * x));
            s->accel_mps2[2] = g * (1.0 - 2.0 * (x * x + y * y));
        } else {
            s->accel_mps2[2] = g;
        }
    }
    /* The wheels roll at the spawn speed without slip, their tyres
     * undeflected and new at the air's temperature. */
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        s->prev_fx_n[i] = 0.0;
        s->prev_fy_n[i] = 0.0;
        s->spin_radps[i] = speed_mps / p->c.radius_m[i];
        s->defl_x_m[i] = 0.0;
        s->defl_y_m[i] = 0.0;
        s->sinkage_m[i] = 0.0;
        pdk_tyre_life_init(&s->life[i], &ax->life, terrain->air_temp_c);
        pdk_tyre_life_effect(&s->life[i], &ax->life, p->c.radius_m[i], &s->effect[i]);
        s->work_power_w[i] = 0.0;
        s->work_load_n[i] = 0.0;
        s->work_speed_mps[i] = 0.0;
        s->work_contact[i] = 0.0;
    }
    s->work_ticks = 0u;
    s->life_ticks = life_first_ticks(pose);
    s->power_scale = 1.0;
    s->faulted = 0u;
    memset(&s->pt, 0, sizeof s->pt); /* pdk_fw_powertrain_init resets a powertrain's */
}

void pdk_fw_tyre_action(pdk_fw_state *s, const pdk_vehicle_def *def, uint32_t wheel_mask,
                        int action, double value, double ambient_c)
{
    if (action == PDK_TYRE_SET_POWER_SCALE) {
        s->power_scale = value;
        return;
    }
    for (int i = 0; i < PDK_WHEELS; i++) {
        if ((wheel_mask >> i) & 1u) {
            const pdk_axle_tyre_def *t = i < PDK_RL ? &def->tyre_front : &def->tyre_rear;
            pdk_tyre_life_apply(&s->life[i], &t->life, action, value, ambient_c);
            pdk_tyre_life_effect(&s->life[i], &t->life, t->law.radius_m, &s->effect[i]);
        }
    }
}

void pdk_vehicle_def_wheel_steer(const pdk_vehicle_def *def, double steer_wheel_deg,
                                 double out_rad[4])
{
    pdk_fw_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    steer_cmd(&cmd, def, steer_wheel_deg);
    memcpy(out_rad, cmd.wheel_steer_rad, sizeof cmd.wheel_steer_rad);
}

void pdk_fw_cmd_set(pdk_fw_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear)
{
    cmd->throttle_pct = throttle_pct;
    cmd->brake_bar = brake_bar;
    cmd->steer_wheel_deg = steer_wheel_deg;
    cmd->gear = (int32_t)gear;
    cmd->gear_code = (double)cmd->gear;

    steer_cmd(cmd, def, steer_wheel_deg);

    /* The drive and holding forces (as the single-track model's), each
     * axle's hold halved between its wheels. */
    pdk_demand dm =
        pdk_vehicle_def_demand(def, throttle_pct, brake_bar, gear, PDK_FW_GOVERNOR_BAND_MPS);
    cmd->drive_gain = dm.drive_gain;
    cmd->governor_mps = dm.governor_mps;
    cmd->governor_fade_mps = dm.governor_fade_mps;
    cmd->hold_n[PDK_FL] = 0.5 * dm.hold_front_n;
    cmd->hold_n[PDK_FR] = 0.5 * dm.hold_front_n;
    cmd->hold_n[PDK_RL] = 0.5 * dm.hold_rear_n;
    cmd->hold_n[PDK_RR] = 0.5 * dm.hold_rear_n;
    for (int i = 0; i < PDK_WHEELS; i++) {
        cmd->brake_nm[i] = 0.0;
        cmd->brake_n[i] = 0.5 * (i < PDK_RL ? dm.brake_front_n : dm.brake_rear_n);
    }
    cmd->pedal_map = 0.0;
    const pdk_powertrain_def *pt = &def->powertrain;
    if (pt->kind != PDK_POWERTRAIN_LUMPED) {
        /* A powertrain drives the wheels itself (four_wheel_powertrain.c) and
         * its pawl holds them from the lever's position; the brakes are the
         * Polaris model's: P_out = clamp(P_line + P_bias, 0, P_max), G_f P_out
         * at each front wheel and G_r P_out at each rear one, not changing
         * with the load. */
        double p_out = clamp(brake_bar + pt->brake_bias_bar, 0.0, def->brake.max_line_bar);
        cmd->pedal_map = pdk_engine_pedal_map(&pt->engine, throttle_pct / 100.0);
        cmd->drive_gain = 0.0;
        cmd->governor_mps = 0.0;
        cmd->governor_fade_mps = 0.0;
        for (int i = 0; i < PDK_WHEELS; i++) {
            cmd->hold_n[i] = 0.0;
            cmd->brake_n[i] = 0.0;
            cmd->brake_nm[i] =
                (i < PDK_RL ? pt->brake_front_nm_per_bar : pt->brake_rear_nm_per_bar) * p_out;
        }
    }
}
