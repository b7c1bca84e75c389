/* The single-track model's per-vehicle set-up (constants, initial state,
 * held command), the scalar parts of its tick that single_track_step.h
 * calls lane by lane (the longitudinal contact solve, the fault), and the
 * choice between the tick's builds: baseline and AVX2 for batches, the
 * lone vehicle's (single_track_lone.c) for one. */
#include "vehicle/single_track.h"

#include <math.h>
#include <stdint.h>

#include "math/trig.h"
#include "sim/builds.h"
#include "sim/channels.h"
#include "vehicle/single_track_step.h" /* the tick, compiled here for the baseline */

#define PI 3.14159265358979323846
#define TWO_PI 6.28318530717958647692

double pdk_st_wrap_angle(double x)
{
    if (x > PI || x <= -PI) {
        /* remainder() is exact and lands in [-pi, pi]; -pi maps to +pi. */
        x = remainder(x, TWO_PI);
        if (x <= -PI) {
            x += TWO_PI;
        }
    }
    return x;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* fmin/fmax are library calls unless NaN handling is relaxed; plain
 * comparisons give q when either operand is NaN, as VMAXPD/VMINPD do. */
static double max2(double p, double q)
{
    return p > q ? p : q;
}

static double min2(double p, double q)
{
    return p < q ? p : q;
}

void pdk_st_params_init(pdk_st_params *p, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction)
{
    const pdk_chassis_def *c = &def->chassis;
    double m = c->mass_kg;
    double len = c->wheelbase_m;
    double a = c->cg_to_front_axle_m;
    double b = len - a;

    p->h_s = substep_s;
    p->inv_h = 1.0 / substep_s;
    p->h_per_mass = substep_s / m;
    p->h_per_inertia = substep_s / c->yaw_inertia_kgm2;
    p->hb_per_inertia = p->h_per_inertia * b;
    p->a_m = a;
    p->b_m = b;
    p->cg_height_m = c->cg_height_m;
    /* Static axle loads from moment balance about each axle (Gillespie ch. 2). */
    p->gravity_mps2 = gravity_mps2;
    p->static_load_front_n = m * gravity_mps2 * b / len;
    p->static_load_rear_n = m * gravity_mps2 * a / len;
    p->transfer_n_per_mps2 = m * c->cg_height_m / len;
    p->cornering_front_n_per_rad = def->tyre_front.cornering_stiffness_n_per_rad;
    p->cornering_rear_n_per_rad = def->tyre_rear.cornering_stiffness_n_per_rad;
    p->mu_front = def->tyre_front.friction_coeff * surface_friction;
    p->mu_rear = def->tyre_rear.friction_coeff * surface_friction;
    p->rolling_coeff = def->resist.rolling_coeff;
    p->drag_n_per_mps2 = 0.5 * air_density_kgpm3 * def->resist.drag_area_m2;
    p->drive_force_n = def->drive.max_force_n;
    p->drive_power_w = def->drive.max_power_w;
    p->drive_front_fraction = def->drive.front_fraction;
    p->drive_rear_fraction = 1.0 - def->drive.front_fraction;
}

void pdk_st_state_init(pdk_st_state *s, const pdk_pose *pose, double speed_mps)
{
    s->x_m = pose->x_m;
    s->y_m = pose->y_m;
    s->yaw_rad = pdk_st_wrap_angle(pose->yaw_rad);
    s->vx_mps = speed_mps;
    s->vy_mps = 0.0;
    s->yaw_rate_radps = 0.0;
    s->ax_mps2 = 0.0;
    s->ay_mps2 = 0.0;
    s->faulted = 0u;
}

void pdk_st_cmd_set(pdk_st_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear)
{
    cmd->throttle_pct = throttle_pct;
    cmd->brake_bar = brake_bar;
    cmd->steer_wheel_deg = steer_wheel_deg;
    cmd->gear = (int32_t)gear;
    cmd->gear_code = (double)cmd->gear;

    /* Road-wheel angle: steering-wheel angle within lock over the ratio. */
    double lock = def->steering.lock_deg;
    double wheel_deg = clamp(steer_wheel_deg, -lock, lock);
    cmd->steer_rad = wheel_deg * ((PI / 180.0) / def->steering.ratio);
    pdk_trig_sincos(cmd->steer_rad, &cmd->sin_steer, &cmd->cos_steer);

    pdk_demand d =
        pdk_vehicle_def_demand(def, throttle_pct, brake_bar, gear, PDK_ST_GOVERNOR_BAND_MPS);
    cmd->drive_gain = d.drive_gain;
    cmd->governor_mps = d.governor_mps;
    cmd->governor_fade_mps = d.governor_fade_mps;
    cmd->hold_front_n = d.hold_front_n;
    cmd->hold_rear_n = d.hold_rear_n;
}

/* The rear's best force for the front force ff: the force that holds vx'
 * at zero, clamped to the rear's range; held says whether it does. */
static double rear_for(const pdk_st_contact *pb, double ff, double inv_wrr, int *held)
{
    double y = -(pb->vr0 + pb->wfr * ff) * inv_wrr;
    *held = y >= pb->lo_r && y <= pb->hi_r;
    return clamp(y, pb->lo_r, pb->hi_r);
}

static double front_speed(const pdk_st_contact *pb, double ff, double inv_wrr)
{
    int held;
    return pb->uf0 + pb->wff * ff + pb->wfr * rear_for(pb, ff, inv_wrr, &held);
}

/* Solves the contact problem when neither both-forward nor both-backward
 * sliding nor exact rest is the answer (the caller tries those first).
 * The conditions are those of the convex problem min F'WF/2 + (uf0, vr0)'F
 * over the box of ranges: Coulomb friction as maximal dissipation (Moreau;
 * Stewart, Rigid-body dynamics with friction and impact, SIAM Review 42,
 * 2000). With the wheels straight, W is singular and the problem is the
 * one speed vx' against both axles; the axles share a stick in proportion
 * to their ranges. Otherwise the rear's best force for a given front force
 * is a clamp, and the front speed with it, G(Ff), is the derivative of a
 * convex function of Ff: nondecreasing and piecewise linear with at most two
 * kinks. The front force is lo or hi where G keeps one sign, else G's root,
 * found exactly on the linear piece that brackets it. */
void pdk_st_contact_solve(const pdk_st_contact *pb, pdk_st_contact_result *res)
{
    res->rear_held = 0;
    res->held = 0;
    if (pb->straight) {
        double v_lo = pb->vr0 + pb->wfr * pb->lo_f + pb->wrr * pb->lo_r;
        double v_hi = 0.0;
        if (v_lo > 0.0) {
            res->ff = pb->lo_f;
            res->fr = pb->lo_r;
        } else if ((v_hi = pb->vr0 + pb->wfr * pb->hi_f + pb->wrr * pb->hi_r) < 0.0) {
            res->ff = pb->hi_f;
            res->fr = pb->hi_r;
        } else {
            double v_mid = pb->vr0 + pb->wfr * pb->mid_f + pb->wrr * pb->mid_r;
            res->ff = pb->mid_f;
            res->fr = pb->mid_r;
            if (v_mid > 0.0) {
                double l = v_mid / (v_mid - v_lo);
                res->ff += l * (pb->lo_f - pb->mid_f);
                res->fr += l * (pb->lo_r - pb->mid_r);
            } else if (v_mid < 0.0) {
                double l = v_mid / (v_mid - v_hi);
                res->ff += l * (pb->hi_f - pb->mid_f);
                res->fr += l * (pb->hi_r - pb->mid_r);
            }
            res->rear_held = 1;
            res->held = 1;
        }
        return;
    }
    double inv_wrr = 1.0 / pb->wrr;
    double g_lo = front_speed(pb, pb->lo_f, inv_wrr);
    double g_hi = 0.0;
    if (g_lo >= 0.0) {
        res->ff = pb->lo_f;
    } else if ((g_hi = front_speed(pb, pb->hi_f, inv_wrr)) <= 0.0) {
        res->ff = pb->hi_f;
    } else {
        /* The kinks: where the rear's best force reaches lo_r and hi_r. */
        double p1 = pb->lo_f;
        double p2 = pb->lo_f;
        if (pb->wfr != 0.0) {
            double inv_wfr = 1.0 / pb->wfr;
            double k1 = clamp(-(pb->vr0 + pb->wrr * pb->lo_r) * inv_wfr, pb->lo_f, pb->hi_f);
            double k2 = clamp(-(pb->vr0 + pb->wrr * pb->hi_r) * inv_wfr, pb->lo_f, pb->hi_f);
            p1 = min2(k1, k2);
            p2 = max2(k1, k2);
        }
        double xa, xb, ga, gb;
        double g1 = front_speed(pb, p1, inv_wrr);
        if (g1 >= 0.0) {
            xa = pb->lo_f;
            ga = g_lo;
            xb = p1;
            gb = g1;
        } else {
            double g2 = front_speed(pb, p2, inv_wrr);
            if (g2 >= 0.0) {
                xa = p1;
                ga = g1;
                xb = p2;
                gb = g2;
            } else {
                xa = p2;
                ga = g2;
                xb = pb->hi_f;
                gb = g_hi;
            }
        }
        /* ga < 0 <= gb, so the division is safe and the root lies in [xa, xb]. */
        res->ff = clamp(xa + (xb - xa) * (ga / (ga - gb)), xa, xb);
        res->held = 1;
    }
    int rear_held;
    res->fr = rear_for(pb, res->ff, inv_wrr, &rear_held);
    res->rear_held = rear_held;
    res->held |= rear_held;
}

static double finite_or_zero(double x)
{
    return x - x == 0.0 ? x : 0.0;
}

void pdk_st_fault(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, double *ch)
{
    st->x_m = finite_or_zero(st->x_m);
    st->y_m = finite_or_zero(st->y_m);
    st->yaw_rad = pdk_st_wrap_angle(finite_or_zero(st->yaw_rad));
    st->vx_mps = 0.0;
    st->vy_mps = 0.0;
    st->yaw_rate_radps = 0.0;
    st->ax_mps2 = 0.0;
    st->ay_mps2 = 0.0;
    st->faulted = 1u;
    if (ch == NULL) {
        return;
    }
    for (int i = 0; i < PDK_CH_COUNT; i++) {
        ch[i] = 0.0;
    }
    ch[PDK_CH_POS_X] = st->x_m;
    ch[PDK_CH_POS_Y] = st->y_m;
    ch[PDK_CH_POS_Z] = p->cg_height_m;
    ch[PDK_CH_YAW] = st->yaw_rad;
    ch[PDK_CH_STEER_ANGLE] = cmd->steer_rad;
    ch[PDK_CH_STEER_WHEEL] = cmd->steer_wheel_deg;
    ch[PDK_CH_THROTTLE] = cmd->throttle_pct;
    ch[PDK_CH_BRAKE] = cmd->brake_bar;
    ch[PDK_CH_GEAR] = cmd->gear_code;
    ch[PDK_CH_TYRE_LOAD_F] = p->static_load_front_n;
    ch[PDK_CH_TYRE_LOAD_R] = p->static_load_rear_n;
    ch[PDK_CH_FAULTED] = 1.0;
}

int pdk_st_step_batch_build(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                            const pdk_st_params *const *params, double *const *channels, int count,
                            int substeps, pdk_fw_build build)
{
    PDK_ASSERT(count >= 1 && count <= PDK_ST_BATCH);
#if defined(__x86_64__) && defined(__GNUC__)
    if (count == 1 && build == PDK_FW_BUILD_BEST && pdk_fw_build_available(PDK_FW_BUILD_AVX2)) {
        return pdk_st_step_lone(states[0], cmds[0], params[0], channels[0], substeps);
    }
    if (pdk_fw_build_resolve(build) != PDK_FW_BUILD_BASELINE &&
        pdk_fw_build_available(PDK_FW_BUILD_AVX2)) {
        return pdk_st_groups_avx2(states, cmds, params, channels, count, substeps);
    }
#else
    (void)build;
#endif
    return st_step_groups(states, cmds, params, channels, count, substeps);
}

int pdk_st_step_batch(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                      const pdk_st_params *const *params, double *const *channels, int count,
                      int substeps)
{
    return pdk_st_step_batch_build(states, cmds, params, channels, count, substeps,
                                   PDK_FW_BUILD_BEST);
}

void pdk_st_step(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, int substeps,
                 double *ch)
{
    (void)pdk_st_step_batch(&st, &cmd, &p, &ch, 1, substeps);
}
