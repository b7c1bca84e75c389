/* One tick of the single-track model: loads, drive, brakes and resistances,
 * the implicit lateral/yaw solve, the longitudinal stick/slip solve and the
 * kinematics, repeated per substep, then the vehicle's telemetry channels.
 * Every implicit part is solved in closed form, so the cost per substep is
 * fixed: a few divisions, at most two square roots and one sine/cosine. */
#include "single_track.h"

#include <math.h>

#include "channels.h"
#include "trig.h"

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

/* fmin/fmax are library calls unless NaN handling is relaxed; the operands
 * here are never NaN, so plain comparisons give the same values. */
static double max2(double p, double q)
{
    return p > q ? p : q;
}

static double min2(double p, double q)
{
    return p < q ? p : q;
}

/* Above this heading change per substep (rad) the heading is recomputed from
 * the yaw angle instead of rotated by a short series. */
#define SMALL_TURN_RAD 0.1

/* Rotates the heading (c, s) by the small angle t, |t| <= SMALL_TURN_RAD,
 * with sin and cos from their series; the first omitted terms, t^9/9! and
 * t^10/10!, are below 3e-15 and 3e-17 there. */
static void rotate_heading(double *c, double *s, double t)
{
    double z = t * t;
    double st = t * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0))));
    double ct = 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0))));
    double c0 = *c;
    double s0 = *s;
    *c = c0 * ct - s0 * st;
    *s = s0 * ct + c0 * st;
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
    p->mass_kg = m;
    p->mass_per_h = m / substep_s;
    p->h_per_mass = substep_s / m;
    p->inertia_per_h = c->yaw_inertia_kgm2 / substep_s;
    p->a_m = a;
    p->b_m = b;
    p->cg_height_m = c->cg_height_m;
    /* Static axle loads from moment balance about each axle (Gillespie ch. 2). */
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
}

void pdk_st_cmd_set(pdk_st_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear)
{
    cmd->throttle_pct = throttle_pct;
    cmd->brake_bar = brake_bar;
    cmd->steer_wheel_deg = steer_wheel_deg;
    cmd->gear = (int32_t)gear;

    /* Road-wheel angle: steering-wheel angle within lock over the ratio. */
    double lock = def->steering.lock_deg;
    double wheel_deg = clamp(steer_wheel_deg, -lock, lock);
    cmd->steer_rad = wheel_deg * ((PI / 180.0) / def->steering.ratio);
    pdk_trig_sincos(cmd->steer_rad, &cmd->sin_steer, &cmd->cos_steer);

    double direction = 0.0;
    cmd->governor_mps = 0.0;
    switch (gear) {
    case PDK_GEAR_DRIVE:
        direction = 1.0;
        break;
    case PDK_GEAR_LOW:
        direction = 1.0;
        cmd->governor_mps = def->drive.max_low_speed_mps;
        break;
    case PDK_GEAR_REVERSE:
        direction = -1.0;
        cmd->governor_mps = def->drive.max_reverse_speed_mps;
        break;
    default: /* PARK, NEUTRAL: no drive */
        break;
    }
    cmd->drive_gain = direction * throttle_pct / 100.0;

    /* Brake force split by the brake balance; the parking pawl locks the
     * transmission, so it holds the driven axles in the drive split. */
    double brake_n = brake_bar * def->brake.force_per_bar_n;
    double brake_front = def->brake.front_fraction;
    double drive_front = def->drive.front_fraction;
    double park_n = gear == PDK_GEAR_PARK ? def->brake.park_hold_force_n : 0.0;
    cmd->hold_front_n = brake_n * brake_front + park_n * drive_front;
    cmd->hold_rear_n = brake_n * (1.0 - brake_front) + park_n * (1.0 - drive_front);
}

/* The lateral tyre force as a damper, F = -c v_lat (Pacejka ch. 1: a linear
 * tyre, Fy = -C alpha with tan(alpha) = v_lat / |u|): c = C / max(|u|, floor)
 * until the force reaches the lateral capacity left by the longitudinal force
 * on the friction circle, sqrt((mu Fz)^2 - Fx^2), and c = capacity / |v_lat|
 * beyond it. */
static double lateral_damping(double stiffness, double u, double v_lat, double cap, double fx)
{
    double speed = fabs(u);
    double c = stiffness / (speed > PDK_ST_SLIP_SPEED_FLOOR_MPS ? speed : PDK_ST_SLIP_SPEED_FLOOR_MPS);
    double cap2 = cap * cap - fx * fx;
    if (!(cap2 > 0.0)) {
        return 0.0;
    }
    double f = c * v_lat;
    if (f * f > cap2) {
        c = sqrt(cap2) / fabs(v_lat);
    }
    return c;
}

/* The axle's admissible longitudinal force when the resistive forces act as
 * Coulomb friction: drive d plus a resistance of at most res opposing the
 * motion, all within the friction limit +-cap. lo applies while the axle
 * rolls forward, hi while it rolls backward, and at rest any value between;
 * mid is the value nearest zero, the force of a wheel whose brake holds its
 * own drive torque. */
typedef struct axle_range {
    double lo, mid, hi;
} axle_range;

static axle_range axle_range_of(double d, double res, double cap)
{
    axle_range ar;
    ar.lo = max2(d - res, -cap);
    ar.hi = min2(d + res, cap);
    ar.mid = clamp(0.0, ar.lo, ar.hi);
    return ar;
}

/* One vehicle's working values during a tick: the state being advanced,
 * its heading as a unit vector, and the last substep's forces for telemetry. */
typedef struct lane {
    double x, y, yaw, vx, vy, r, ax, ay;
    double hc, hs;
    double fz_f, fz_r, fx_f, fx_r, fy_f, fy_r, drag;
} lane;

static void lane_load(lane *v, const pdk_st_state *st)
{
    v->x = st->x_m;
    v->y = st->y_m;
    v->yaw = st->yaw_rad;
    v->vx = st->vx_mps;
    v->vy = st->vy_mps;
    v->r = st->yaw_rate_radps;
    v->ax = st->ax_mps2;
    v->ay = st->ay_mps2;
    pdk_trig_sincos(v->yaw, &v->hs, &v->hc);
    v->fz_f = v->fz_r = v->fx_f = v->fx_r = v->fy_f = v->fy_r = v->drag = 0.0;
}

/* One substep of one vehicle. */
static inline void substep(lane *v, const pdk_st_cmd *cmd, const pdk_st_params *p)
{
    const double h = p->h_s;
    const double sd = cmd->sin_steer;
    const double cd = cmd->cos_steer;
    const double a = p->a_m;
    const double b = p->b_m;
    const double vx = v->vx;
    const double vy = v->vy;
    const double r = v->r;

    /* Axle loads with the quasi-static longitudinal transfer m ax h / L
     * (Gillespie ch. 3), from the previous substep's ax. */
    double transfer = p->transfer_n_per_mps2 * v->ax;
    double fz_f = max2(p->static_load_front_n - transfer, 0.0);
    double fz_r = max2(p->static_load_rear_n + transfer, 0.0);
    double cap_f = p->mu_front * fz_f;
    double cap_r = p->mu_rear * fz_r;

    /* Drive: pedal share of min(max force, power / speed), continuous in
     * speed; the governors fade it out just above their limit. */
    double speed = fabs(vx);
    double avail = p->drive_force_n;
    if (p->drive_power_w < avail * speed) {
        avail = p->drive_power_w / speed;
    }
    double drive = cmd->drive_gain * avail;
    if (cmd->governor_mps > 0.0) {
        double excess = (cmd->drive_gain < 0.0 ? -vx : vx) - cmd->governor_mps;
        if (excess > 0.0) {
            drive *= max2(0.0, 1.0 - excess / PDK_ST_GOVERNOR_BAND_MPS);
        }
    }
    double d_f = clamp(drive * p->drive_front_fraction, -cap_f, cap_f);
    double d_r = clamp(drive * p->drive_rear_fraction, -cap_r, cap_r);

    /* Brakes, parking pawl and rolling resistance as Coulomb friction. */
    axle_range rf = axle_range_of(d_f, cmd->hold_front_n + p->rolling_coeff * fz_f, cap_f);
    axle_range rr = axle_range_of(d_r, cmd->hold_rear_n + p->rolling_coeff * fz_r, cap_r);

    /* Lateral damping at the current velocities, with the friction circle cut
     * by the longitudinal force expected for the current direction. */
    double w_f = vy + a * r;
    double u_f = cd * vx + sd * w_f;
    double vlat_f = -sd * vx + cd * w_f;
    double vlat_r = vy - b * r;
    double est_f = vx > 0.0 ? rf.lo : (vx < 0.0 ? rf.hi : rf.mid);
    double est_r = vx > 0.0 ? rr.lo : (vx < 0.0 ? rr.hi : rr.mid);
    double c_f = lateral_damping(p->cornering_front_n_per_rad, u_f, vlat_f, cap_f, est_f);
    double c_r = lateral_damping(p->cornering_rear_n_per_rad, vx, vlat_r, cap_r, est_r);

    /* Backward Euler for (vy', r'):
     *   m (vy'-vy)/h = Fy_f' cos d + Fx_f sin d + Fy_r' - m vx r'
     *   Iz (r'-r)/h  = a (Fy_f' cos d + Fx_f sin d) - b Fy_r'
     * with Fy_f' = -c_f (-sin d vx + cos d (vy' + a r')) and
     * Fy_r' = -c_r (vy' - b r'). The 2x2 system is solved for the right-hand
     * side without Fx_f (vy0, r0) and per newton of Fx_f (gy, gr), since Fx_f
     * is settled by the stick/slip solve below. Its determinant is at least
     * (m/h)(Iz/h) + c_f c_r L^2 cos^2 d - m vx (a c_f cos^2 d - b c_r), and
     * m vx c_f <= m C_f, so it is positive whenever h < sqrt(Iz / (a C_f))
     * (0.14 s for the default car; the world allows substeps up to 0.02 s). */
    double cfc = c_f * cd;
    double cfcc = cfc * cd;
    double m21 = a * cfcc - b * c_r;
    double m11 = p->mass_per_h + cfcc + c_r;
    double m12 = m21 + p->mass_kg * vx;
    double m22 = p->inertia_per_h + a * a * cfcc + b * b * c_r;
    double inv_det = 1.0 / (m11 * m22 - m12 * m21);
    double k = cfc * sd * vx;
    double e1 = p->mass_per_h * vy + k;
    double e2 = p->inertia_per_h * r + a * k;
    double vy0 = (m22 * e1 - m12 * e2) * inv_det;
    double r0 = (m11 * e2 - m21 * e1) * inv_det;
    double gy = (m22 - m12 * a) * sd * inv_det;
    double gr = (m11 * a - m21) * sd * inv_det;
    double fy0 = c_f * (sd * vx - cd * (vy0 + a * r0));
    double fyg = -cfc * (gy + a * gr);

    /* Longitudinal: m (vx'-vx)/h = Fx_f cos d - Fy_f' sin d + Fx_r - drag
     * + m vy r, linear in (Fx_f, Fx_r): vx' = v0 + kf Fx_f + kr Fx_r with
     * kf, kr > 0. Implicit Coulomb friction: the resistance opposes the new
     * velocity; if neither direction is consistent the axles stick and vx' is
     * exactly zero, with the forces that achieve it. */
    double drag = p->drag_n_per_mps2 * vx * speed;
    double v0 = vx + h * vy * r - p->h_per_mass * (fy0 * sd + drag);
    double kf = p->h_per_mass * (cd - fyg * sd);
    double kr = p->h_per_mass;
    double fx_f, fx_r, vx_new;
    double v_lo = v0 + kf * rf.lo + kr * rr.lo;
    double v_hi = 0.0;
    if (v_lo > 0.0) {
        fx_f = rf.lo;
        fx_r = rr.lo;
        vx_new = v_lo;
    } else if ((v_hi = v0 + kf * rf.hi + kr * rr.hi) < 0.0) {
        fx_f = rf.hi;
        fx_r = rr.hi;
        vx_new = v_hi;
    } else {
        double v_mid = v0 + kf * rf.mid + kr * rr.mid;
        fx_f = rf.mid;
        fx_r = rr.mid;
        if (v_mid > 0.0) {
            double l = v_mid / (v_mid - v_lo);
            fx_f += l * (rf.lo - rf.mid);
            fx_r += l * (rr.lo - rr.mid);
        } else if (v_mid < 0.0) {
            double l = v_mid / (v_mid - v_hi);
            fx_f += l * (rf.hi - rf.mid);
            fx_r += l * (rr.hi - rr.mid);
        }
        vx_new = 0.0;
    }
    double vy_new = vy0 + gy * fx_f;
    double r_new = r0 + gr * fx_f;

    /* CG acceleration in the rotating body frame. */
    v->ax = (vx_new - vx) * p->inv_h - r_new * vy_new;
    v->ay = (vy_new - vy) * p->inv_h + r_new * vx_new;
    v->vx = vx_new;
    v->vy = vy_new;
    v->r = r_new;

    /* Semi-implicit kinematics: the new heading, then the new velocities
     * rotated into the world. */
    double turn = h * r_new;
    v->yaw += turn;
    if (v->yaw > PI || v->yaw <= -PI) {
        v->yaw = pdk_st_wrap_angle(v->yaw);
    }
    if (turn <= SMALL_TURN_RAD && turn >= -SMALL_TURN_RAD) {
        rotate_heading(&v->hc, &v->hs, turn);
    } else {
        pdk_trig_sincos(v->yaw, &v->hs, &v->hc);
    }
    v->x += h * (vx_new * v->hc - vy_new * v->hs);
    v->y += h * (vx_new * v->hs + vy_new * v->hc);

    v->fz_f = fz_f;
    v->fz_r = fz_r;
    v->fx_f = fx_f;
    v->fx_r = fx_r;
    v->fy_f = fy0 + fyg * fx_f;
    v->fy_r = -c_r * (vy_new - b * r_new);
    v->drag = drag;
}

/* Writes the tick's end state back and the telemetry, once per tick. Slip
 * angles follow ISO 8855: the angle from the wheel plane to the contact's
 * velocity, positive to the left. */
static void lane_store(const lane *v, pdk_st_state *st, const pdk_st_cmd *cmd,
                       const pdk_st_params *p, double *ch)
{
    st->x_m = v->x;
    st->y_m = v->y;
    st->yaw_rad = v->yaw;
    st->vx_mps = v->vx;
    st->vy_mps = v->vy;
    st->yaw_rate_radps = v->r;
    st->ax_mps2 = v->ax;
    st->ay_mps2 = v->ay;

    double w_f = v->vy + p->a_m * v->r;
    double u_f = cmd->cos_steer * v->vx + cmd->sin_steer * w_f;
    double vlat_f = -cmd->sin_steer * v->vx + cmd->cos_steer * w_f;
    double rolling = p->rolling_coeff * (v->fz_f * cmd->cos_steer + v->fz_r);
    ch[PDK_CH_POS_X] = v->x;
    ch[PDK_CH_POS_Y] = v->y;
    ch[PDK_CH_POS_Z] = p->cg_height_m;
    ch[PDK_CH_YAW] = v->yaw;
    ch[PDK_CH_SPEED] = sqrt(v->vx * v->vx + v->vy * v->vy);
    ch[PDK_CH_VEL_X] = v->vx;
    ch[PDK_CH_VEL_Y] = v->vy;
    ch[PDK_CH_YAW_RATE] = v->r;
    ch[PDK_CH_ACCEL_X] = v->ax;
    ch[PDK_CH_ACCEL_Y] = v->ay;
    ch[PDK_CH_STEER_ANGLE] = cmd->steer_rad;
    ch[PDK_CH_STEER_WHEEL] = cmd->steer_wheel_deg;
    ch[PDK_CH_THROTTLE] = cmd->throttle_pct;
    ch[PDK_CH_BRAKE] = cmd->brake_bar;
    ch[PDK_CH_GEAR] = (double)cmd->gear;
    ch[PDK_CH_TYRE_LOAD_F] = v->fz_f;
    ch[PDK_CH_TYRE_LOAD_R] = v->fz_r;
    ch[PDK_CH_SLIP_ANGLE_F] = pdk_trig_atan2(vlat_f, fabs(u_f));
    ch[PDK_CH_SLIP_ANGLE_R] = pdk_trig_atan2(v->vy - p->b_m * v->r, fabs(v->vx));
    ch[PDK_CH_FORCE_X_F] = v->fx_f;
    ch[PDK_CH_FORCE_X_R] = v->fx_r;
    ch[PDK_CH_FORCE_Y_F] = v->fy_f;
    ch[PDK_CH_FORCE_Y_R] = v->fy_r;
    ch[PDK_CH_DRAG] = -v->drag;
    ch[PDK_CH_ROLLING] = v->vx > 0.0 ? -rolling : (v->vx < 0.0 ? rolling : 0.0);
}

void pdk_st_step_batch(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                       const pdk_st_params *const *params, double *const *channels, int count,
                       int substeps)
{
    lane lanes[PDK_ST_BATCH];
    PDK_ASSERT(count >= 1 && count <= PDK_ST_BATCH);
    for (int k = 0; k < count; k++) {
        lane_load(&lanes[k], states[k]);
    }
    /* Substep-major: the lanes' dependency chains are independent, so the
     * processor overlaps them; each lane does exactly what it would alone. */
    for (int i = 0; i < substeps; i++) {
        for (int k = 0; k < count; k++) {
            substep(&lanes[k], cmds[k], params[k]);
        }
    }
    for (int k = 0; k < count; k++) {
        lane_store(&lanes[k], states[k], cmds[k], params[k], channels[k]);
    }
}

void pdk_st_step(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, int substeps,
                 double *ch)
{
    pdk_st_step_batch(&st, &cmd, &p, &ch, 1, substeps);
}
