/* One tick of the single-track model: loads, drive, brakes and resistances,
 * the implicit lateral/yaw solve, the longitudinal stick/slip solve and the
 * kinematics, repeated per substep, then the vehicle's telemetry channels.
 * Every implicit part is solved in closed form, so the cost per substep is
 * fixed: a few divisions, at most two square roots and one sine/cosine. The
 * scalar code below steps one vehicle and states the physics; the vector
 * code after it steps four vehicles at once, bit for bit the same. */
#include "single_track.h"

#include <math.h>
#include <stdint.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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
static inline void lane_substep(lane *v, const pdk_st_cmd *cmd, const pdk_st_params *p)
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

/* ---- four vehicles at once ------------------------------------------------
 * On x86-64 processors with AVX, the batch's vehicles take the tick in
 * groups of LANES, one vehicle per lane of 256-bit vectors. Each operator is
 * the IEEE operation the scalar code above applies, to the same operands in
 * the same order, lane by lane; each scalar branch becomes a select between
 * values each computed exactly as the scalar code computes them, or a branch
 * on all lanes agreeing; the square root is correctly rounded in both. So
 * every lane is bit for bit the vehicle stepped alone by the scalar code: a
 * state hash does not depend on the processor or on the fleet, and
 * tests/unit/test_single_track.c checks it on random fleets. (Lanes compute
 * values the scalar code skips and then drop them, so the floating-point
 * exception flags may differ; sim never reads or traps on them.) The target
 * attribute compiles just this code for AVX and __builtin_cpu_supports picks
 * it at run time, so the library still runs on any x86-64; elsewhere every
 * vehicle takes the scalar path. A group's substep is one long dependency
 * chain through its divisions, so a batch holds several groups for the
 * processor to overlap. */
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_VECTORS 1
#else
#define HAVE_VECTORS 0
#endif

#if HAVE_VECTORS
#define LANES 4
/* A batch remainder of at least this many vehicles fills a group padded with
 * copies of its last vehicle; a single one is faster on the scalar path. */
#define MIN_GROUP 2
#define VECTOR_CODE __attribute__((target("avx")))

typedef double vf __attribute__((vector_size(LANES * sizeof(double))));
typedef int64_t vm __attribute__((vector_size(LANES * sizeof(int64_t)))); /* lane masks: 0 or -1 */

VECTOR_CODE static inline vf splat(double x)
{
    return (vf){x, x, x, x};
}

/* m ? p : q lane by lane; exact, as it only moves bits. */
VECTOR_CODE static inline vf sel(vm m, vf p, vf q)
{
    return (vf)_mm256_blendv_pd((__m256d)q, (__m256d)p, (__m256d)m);
}

/* fabs lane by lane: the sign bit cleared. (Unary minus flips it, as in
 * scalar code.) */
VECTOR_CODE static inline vf vabs(vf x)
{
    return (vf)((vm)x & INT64_MAX);
}

/* The IEEE comparisons lane by lane (false where an operand is NaN). */
VECTOR_CODE static inline vm lt(vf p, vf q)
{
    return p < q;
}

VECTOR_CODE static inline vm gt(vf p, vf q)
{
    return p > q;
}

VECTOR_CODE static inline vm le(vf p, vf q)
{
    return p <= q;
}

VECTOR_CODE static inline vm eq(vf p, vf q)
{
    return p == q;
}

/* max2 and min2 lane by lane: p > q ? p : q and p < q ? p : q, which is
 * exactly what VMAXPD and VMINPD compute (q on ties of signed zeros and on
 * NaN). */
VECTOR_CODE static inline vf vmax(vf p, vf q)
{
    return (vf)_mm256_max_pd((__m256d)p, (__m256d)q);
}

VECTOR_CODE static inline vf vmin(vf p, vf q)
{
    return (vf)_mm256_min_pd((__m256d)p, (__m256d)q);
}

/* clamp lane by lane: v < lo ? lo : (v > hi ? hi : v), whose inner choice is
 * min2(hi, v). */
VECTOR_CODE static inline vf vclamp(vf v, vf lo, vf hi)
{
    return sel(lt(v, lo), lo, vmin(hi, v));
}

/* Whether any lane of m is set: a rare branch runs only when a lane takes it. */
VECTOR_CODE static inline int any(vm m)
{
    return _mm256_movemask_pd((__m256d)m) != 0;
}

/* Whether every lane of m is set: a branch on it is predicted, so the common
 * case goes on without waiting for the comparison, as scalar code does. */
VECTOR_CODE static inline int all(vm m)
{
    return _mm256_movemask_pd((__m256d)m) == (1 << LANES) - 1;
}

/* sqrt lane by lane, correctly rounded as sqrt() is. */
VECTOR_CODE static inline vf vsqrt(vf x)
{
    return (vf)_mm256_sqrt_pd((__m256d)x);
}

/* floor lane by lane, exact. */
VECTOR_CODE static inline vf vfloor(vf x)
{
    return (vf)_mm256_floor_pd((__m256d)x);
}

/* pdk_trig_sincos (trig.h) lane by lane, step for step. */
VECTOR_CODE static inline void vsincos(vf x, vf *sin_out, vf *cos_out)
{
    vf t = x * PDK_TRIG_TWO_OVER_PI;
    vf k = (t + PDK_TRIG_ROUND_MAGIC) - PDK_TRIG_ROUND_MAGIC;
    vf y = (x - k * PDK_TRIG_PIO2_HI) - k * PDK_TRIG_PIO2_LO;
    vf z = y * y;
    vf p = splat(-1.0 / 1307674368000.0);
    p = 1.0 / 6227020800.0 + z * p;
    p = -1.0 / 39916800.0 + z * p;
    p = 1.0 / 362880.0 + z * p;
    p = -1.0 / 5040.0 + z * p;
    p = 1.0 / 120.0 + z * p;
    p = -1.0 / 6.0 + z * p;
    vf s = y + y * z * p;
    p = splat(1.0 / 20922789888000.0);
    p = -1.0 / 87178291200.0 + z * p;
    p = 1.0 / 479001600.0 + z * p;
    p = -1.0 / 3628800.0 + z * p;
    p = 1.0 / 40320.0 + z * p;
    p = -1.0 / 720.0 + z * p;
    p = 1.0 / 24.0 + z * p;
    vf c = 1.0 - (0.5 * z - z * z * p);
    /* The quadrant n mod 4 as a double, exactly (k is a small integer): sin
     * takes the cos kernel in odd quadrants and flips in quadrants 2 and 3,
     * cos flips in quadrants 1 and 2. */
    vf q = k - 4.0 * vfloor(k * 0.25);
    vm odd = eq(q, splat(1.0)) | eq(q, splat(3.0));
    vm sin_flip = le(splat(2.0), q);
    vm cos_flip = eq(q, splat(1.0)) | eq(q, splat(2.0));
    *sin_out = sel(odd, c, s) * sel(sin_flip, splat(-1.0), splat(1.0));
    *cos_out = sel(odd, s, c) * sel(cos_flip, splat(-1.0), splat(1.0));
}

/* pdk_trig_atan2 (trig.h) lane by lane, step for step. */
VECTOR_CODE static inline vf vatan2(vf y, vf x)
{
    vf ax = vabs(x);
    vf ay = vabs(y);
    vm at_origin = eq(ay, splat(0.0)) & eq(ax, splat(0.0));
    vm swap = gt(ay, ax);
    /* At the origin t would be 0/0; 0 keeps the table index in range, and
     * the lane's result is replaced below. */
    vf t = sel(at_origin, splat(0.0), sel(swap, ax, ay) / sel(swap, ay, ax));
    /* k = (int)t8 is floor(t8), as t8 >= 0.5. */
    vf t8 = t * 8.0 + 0.5;
    vf c = vfloor(t8) * 0.125;
    __m128i k = _mm256_cvttpd_epi32((__m256d)t8);
    vf base = {
        pdk_trig_atan_table[_mm_cvtsi128_si32(k)], pdk_trig_atan_table[_mm_extract_epi32(k, 1)],
        pdk_trig_atan_table[_mm_extract_epi32(k, 2)], pdk_trig_atan_table[_mm_extract_epi32(k, 3)]};
    vf u = (t - c) / (1.0 + t * c);
    vf z = u * u;
    vf p = splat(1.0 / 13.0);
    p = -1.0 / 11.0 + z * p;
    p = 1.0 / 9.0 + z * p;
    p = -1.0 / 7.0 + z * p;
    p = 1.0 / 5.0 + z * p;
    p = -1.0 / 3.0 + z * p;
    vf r = base + (u + u * z * p);
    r = sel(swap, (PDK_TRIG_PIO2_D - r) + PDK_TRIG_PIO2_D_LO, r);
    vm x_negative = (vm)x >> 63;
    r = sel(x_negative, (PDK_TRIG_PI_D - r) + PDK_TRIG_PI_D_LO, r);
    r = sel(at_origin, sel(x_negative, splat(PDK_TRIG_PI_D), splat(0.0)), r);
    return (vf)((vm)r ^ ((vm)y & INT64_MIN)); /* the sign of y */
}

/* rotate_heading lane by lane. */
VECTOR_CODE static inline void vrotate_heading(vf *c, vf *s, vf t)
{
    vf z = t * t;
    vf st = t * (1.0 + z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0))));
    vf ct = 1.0 + z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0))));
    vf c0 = *c;
    vf s0 = *s;
    *c = c0 * ct - s0 * st;
    *s = s0 * ct + c0 * st;
}

/* lateral_damping lane by lane. */
VECTOR_CODE static inline vf vlateral_damping(vf stiffness, vf u, vf v_lat, vf cap, vf fx)
{
    vf c = stiffness / vmax(vabs(u), splat(PDK_ST_SLIP_SPEED_FLOOR_MPS));
    vf cap2 = cap * cap - fx * fx;
    vm has_cap = gt(cap2, splat(0.0));
    vf f = c * v_lat;
    vm saturated = has_cap & gt(f * f, cap2);
    if (all(has_cap & ~saturated)) {
        return c;
    }
    if (any(saturated)) {
        c = sel(saturated, vsqrt(cap2) / vabs(v_lat), c);
    }
    return (vf)(has_cap & (vm)c); /* c, or +0.0 without capacity */
}

/* A group of LANES vehicles during a tick: the lane struct's values, then
 * the vehicles' constants and held commands, gathered once per tick. */
typedef struct group {
    vf x, y, yaw, vx, vy, r, ax, ay;
    vf hc, hs;
    vf fz_f, fz_r, fx_f, fx_r, fy_f, fy_r, drag;
    /* pdk_st_params */
    vf h, inv_h, mass, mass_per_h, h_per_mass, inertia_per_h, a, b;
    vf a2, b2; /* a * a and b * b: a * a * x is (a * a) * x */
    vf static_load_f, static_load_r, transfer, stiffness_f, stiffness_r, mu_f, mu_r;
    vf rolling, drag_coeff, drive_force, drive_power, drive_frac_f, drive_frac_r;
    /* pdk_st_cmd */
    vf sd, cd, drive_gain, governor, hold_f, hold_r;
    vm reverse_drive; /* the sign bit where the drive pushes backward */
    int governed;     /* some lane has a governor */
} group;

#define GATHER(dst, src, field)                                                                    \
    (dst) = (vf)                                                                                   \
    {                                                                                              \
        (src)[0]->field, (src)[1]->field, (src)[2]->field, (src)[3]->field                         \
    }

/* lane_load for LANES vehicles, with their constants and commands. */
VECTOR_CODE static void group_load(group *g, pdk_st_state *const *st, const pdk_st_cmd *const *cmd,
                                   const pdk_st_params *const *p)
{
    GATHER(g->x, st, x_m);
    GATHER(g->y, st, y_m);
    GATHER(g->yaw, st, yaw_rad);
    GATHER(g->vx, st, vx_mps);
    GATHER(g->vy, st, vy_mps);
    GATHER(g->r, st, yaw_rate_radps);
    GATHER(g->ax, st, ax_mps2);
    GATHER(g->ay, st, ay_mps2);
    vsincos(g->yaw, &g->hs, &g->hc);
    g->fz_f = g->fz_r = g->fx_f = g->fx_r = g->fy_f = g->fy_r = g->drag = splat(0.0);

    GATHER(g->h, p, h_s);
    GATHER(g->inv_h, p, inv_h);
    GATHER(g->mass, p, mass_kg);
    GATHER(g->mass_per_h, p, mass_per_h);
    GATHER(g->h_per_mass, p, h_per_mass);
    GATHER(g->inertia_per_h, p, inertia_per_h);
    GATHER(g->a, p, a_m);
    GATHER(g->b, p, b_m);
    g->a2 = g->a * g->a;
    g->b2 = g->b * g->b;
    GATHER(g->static_load_f, p, static_load_front_n);
    GATHER(g->static_load_r, p, static_load_rear_n);
    GATHER(g->transfer, p, transfer_n_per_mps2);
    GATHER(g->stiffness_f, p, cornering_front_n_per_rad);
    GATHER(g->stiffness_r, p, cornering_rear_n_per_rad);
    GATHER(g->mu_f, p, mu_front);
    GATHER(g->mu_r, p, mu_rear);
    GATHER(g->rolling, p, rolling_coeff);
    GATHER(g->drag_coeff, p, drag_n_per_mps2);
    GATHER(g->drive_force, p, drive_force_n);
    GATHER(g->drive_power, p, drive_power_w);
    GATHER(g->drive_frac_f, p, drive_front_fraction);
    GATHER(g->drive_frac_r, p, drive_rear_fraction);

    GATHER(g->sd, cmd, sin_steer);
    GATHER(g->cd, cmd, cos_steer);
    GATHER(g->drive_gain, cmd, drive_gain);
    GATHER(g->governor, cmd, governor_mps);
    GATHER(g->hold_f, cmd, hold_front_n);
    GATHER(g->hold_r, cmd, hold_rear_n);
    g->reverse_drive = lt(g->drive_gain, splat(0.0)) & INT64_MIN;
    g->governed = any(gt(g->governor, splat(0.0)));
}

/* lane_substep lane by lane; the comments there give the physics. */
VECTOR_CODE static inline void group_substep(group *restrict g)
{
    const vf zero = splat(0.0);
    const vf h = g->h;
    const vf sd = g->sd;
    const vf cd = g->cd;
    const vf a = g->a;
    const vf b = g->b;
    const vf vx = g->vx;
    const vf vy = g->vy;
    const vf r = g->r;

    vf transfer = g->transfer * g->ax;
    vf fz_f = vmax(g->static_load_f - transfer, zero);
    vf fz_r = vmax(g->static_load_r + transfer, zero);
    vf cap_f = g->mu_f * fz_f;
    vf cap_r = g->mu_r * fz_r;

    vf speed = vabs(vx);
    vf avail =
        sel(lt(g->drive_power, g->drive_force * speed), g->drive_power / speed, g->drive_force);
    vf drive = g->drive_gain * avail;
    if (g->governed) {
        vf excess = (vf)((vm)vx ^ g->reverse_drive) - g->governor;
        vm fading = gt(g->governor, zero) & gt(excess, zero);
        drive = sel(fading, drive * vmax(zero, 1.0 - excess / PDK_ST_GOVERNOR_BAND_MPS), drive);
    }
    vf d_f = vclamp(drive * g->drive_frac_f, -cap_f, cap_f);
    vf d_r = vclamp(drive * g->drive_frac_r, -cap_r, cap_r);

    /* axle_range_of for each axle */
    vf res_f = g->hold_f + g->rolling * fz_f;
    vf res_r = g->hold_r + g->rolling * fz_r;
    vf lo_f = vmax(d_f - res_f, -cap_f);
    vf hi_f = vmin(d_f + res_f, cap_f);
    vf mid_f = vclamp(zero, lo_f, hi_f);
    vf lo_r = vmax(d_r - res_r, -cap_r);
    vf hi_r = vmin(d_r + res_r, cap_r);
    vf mid_r = vclamp(zero, lo_r, hi_r);

    vf w_f = vy + a * r;
    vf u_f = cd * vx + sd * w_f;
    vf vlat_f = -sd * vx + cd * w_f;
    vf vlat_r = vy - b * r;
    vm forward = gt(vx, zero);
    vm backward = lt(vx, zero);
    vf est_f = sel(forward, lo_f, sel(backward, hi_f, mid_f));
    vf est_r = sel(forward, lo_r, sel(backward, hi_r, mid_r));
    vf c_f = vlateral_damping(g->stiffness_f, u_f, vlat_f, cap_f, est_f);
    vf c_r = vlateral_damping(g->stiffness_r, vx, vlat_r, cap_r, est_r);

    vf cfc = c_f * cd;
    vf cfcc = cfc * cd;
    vf m21 = a * cfcc - b * c_r;
    vf m11 = g->mass_per_h + cfcc + c_r;
    vf m12 = m21 + g->mass * vx;
    vf m22 = g->inertia_per_h + g->a2 * cfcc + g->b2 * c_r;
    vf inv_det = 1.0 / (m11 * m22 - m12 * m21);
    vf k = cfc * sd * vx;
    vf e1 = g->mass_per_h * vy + k;
    vf e2 = g->inertia_per_h * r + a * k;
    vf vy0 = (m22 * e1 - m12 * e2) * inv_det;
    vf r0 = (m11 * e2 - m21 * e1) * inv_det;
    vf gy = (m22 - m12 * a) * sd * inv_det;
    vf gr = (m11 * a - m21) * sd * inv_det;
    vf fy0 = c_f * (sd * vx - cd * (vy0 + a * r0));
    vf fyg = -cfc * (gy + a * gr);

    vf drag = g->drag_coeff * vx * speed;
    vf v0 = vx + h * vy * r - g->h_per_mass * (fy0 * sd + drag);
    vf kf = g->h_per_mass * (cd - fyg * sd);
    vf kr = g->h_per_mass;
    /* Every lane gets v_hi, which the scalar code computes only when v_lo
     * fails; the lanes that stick then get the forces that hold them. */
    vf v_lo = v0 + kf * lo_f + kr * lo_r;
    vf v_hi = v0 + kf * hi_f + kr * hi_r;
    vm rolls_fwd = gt(v_lo, zero);
    vm stuck = ~rolls_fwd & ~lt(v_hi, zero);
    vf fx_f = lo_f;
    vf fx_r = lo_r;
    vf vx_new = v_lo;
    if (!all(rolls_fwd)) {
        fx_f = sel(rolls_fwd, lo_f, hi_f);
        fx_r = sel(rolls_fwd, lo_r, hi_r);
        vx_new = sel(rolls_fwd, v_lo, v_hi);
    }
    if (any(stuck)) {
        vf v_mid = v0 + kf * mid_f + kr * mid_r;
        vm toward_lo = gt(v_mid, zero);
        vm slides = toward_lo | lt(v_mid, zero);
        vf l = v_mid / (v_mid - sel(toward_lo, v_lo, v_hi));
        vf held_f = sel(slides, mid_f + l * (sel(toward_lo, lo_f, hi_f) - mid_f), mid_f);
        vf held_r = sel(slides, mid_r + l * (sel(toward_lo, lo_r, hi_r) - mid_r), mid_r);
        fx_f = sel(stuck, held_f, fx_f);
        fx_r = sel(stuck, held_r, fx_r);
        vx_new = sel(stuck, zero, vx_new);
    }
    vf vy_new = vy0 + gy * fx_f;
    vf r_new = r0 + gr * fx_f;

    g->ax = (vx_new - vx) * g->inv_h - r_new * vy_new;
    g->ay = (vy_new - vy) * g->inv_h + r_new * vx_new;
    g->vx = vx_new;
    g->vy = vy_new;
    g->r = r_new;

    /* A lane whose yaw leaves (-pi, pi] or whose turn is too large for the
     * series is finished alone, as the scalar code does it. */
    vf turn = h * r_new;
    vf yaw = g->yaw + turn;
    vf hc = g->hc;
    vf hs = g->hs;
    vrotate_heading(&hc, &hs, turn);
    vm wrap = gt(yaw, splat(PI)) | le(yaw, splat(-PI));
    vm large = ~(le(turn, splat(SMALL_TURN_RAD)) & le(splat(-SMALL_TURN_RAD), turn));
    if (any(wrap | large)) {
        for (int l = 0; l < LANES; l++) {
            if (wrap[l]) {
                yaw[l] = pdk_st_wrap_angle(yaw[l]);
            }
            if (large[l]) {
                double s, c;
                pdk_trig_sincos(yaw[l], &s, &c);
                hs[l] = s;
                hc[l] = c;
            }
        }
    }
    g->yaw = yaw;
    g->hc = hc;
    g->hs = hs;
    g->x += h * (vx_new * hc - vy_new * hs);
    g->y += h * (vx_new * hs + vy_new * hc);

    g->fz_f = fz_f;
    g->fz_r = fz_r;
    g->fx_f = fx_f;
    g->fx_r = fx_r;
    g->fy_f = fy0 + fyg * fx_f;
    g->fy_r = -c_r * (vy_new - b * r_new);
    g->drag = drag;
}

/* lane_store for the group's first n lanes. */
VECTOR_CODE static void group_store(const group *g, int n, pdk_st_state *const *st,
                                    const pdk_st_cmd *const *cmd, const pdk_st_params *const *p,
                                    double *const *chs)
{
    vf w_f = g->vy + g->a * g->r;
    vf u_f = g->cd * g->vx + g->sd * w_f;
    vf vlat_f = -g->sd * g->vx + g->cd * w_f;
    vf rolling = g->rolling * (g->fz_f * g->cd + g->fz_r);
    vf rolling_ch =
        sel(gt(g->vx, splat(0.0)), -rolling, sel(lt(g->vx, splat(0.0)), rolling, splat(0.0)));
    vf speed = vsqrt(g->vx * g->vx + g->vy * g->vy);
    vf slip_f = vatan2(vlat_f, vabs(u_f));
    vf slip_r = vatan2(g->vy - g->b * g->r, vabs(g->vx));
    for (int l = 0; l < n; l++) {
        pdk_st_state *s = st[l];
        s->x_m = g->x[l];
        s->y_m = g->y[l];
        s->yaw_rad = g->yaw[l];
        s->vx_mps = g->vx[l];
        s->vy_mps = g->vy[l];
        s->yaw_rate_radps = g->r[l];
        s->ax_mps2 = g->ax[l];
        s->ay_mps2 = g->ay[l];

        const pdk_st_cmd *c = cmd[l];
        double *ch = chs[l];
        ch[PDK_CH_POS_X] = g->x[l];
        ch[PDK_CH_POS_Y] = g->y[l];
        ch[PDK_CH_POS_Z] = p[l]->cg_height_m;
        ch[PDK_CH_YAW] = g->yaw[l];
        ch[PDK_CH_SPEED] = speed[l];
        ch[PDK_CH_VEL_X] = g->vx[l];
        ch[PDK_CH_VEL_Y] = g->vy[l];
        ch[PDK_CH_YAW_RATE] = g->r[l];
        ch[PDK_CH_ACCEL_X] = g->ax[l];
        ch[PDK_CH_ACCEL_Y] = g->ay[l];
        ch[PDK_CH_STEER_ANGLE] = c->steer_rad;
        ch[PDK_CH_STEER_WHEEL] = c->steer_wheel_deg;
        ch[PDK_CH_THROTTLE] = c->throttle_pct;
        ch[PDK_CH_BRAKE] = c->brake_bar;
        ch[PDK_CH_GEAR] = (double)c->gear;
        ch[PDK_CH_TYRE_LOAD_F] = g->fz_f[l];
        ch[PDK_CH_TYRE_LOAD_R] = g->fz_r[l];
        ch[PDK_CH_SLIP_ANGLE_F] = slip_f[l];
        ch[PDK_CH_SLIP_ANGLE_R] = slip_r[l];
        ch[PDK_CH_FORCE_X_F] = g->fx_f[l];
        ch[PDK_CH_FORCE_X_R] = g->fx_r[l];
        ch[PDK_CH_FORCE_Y_F] = g->fy_f[l];
        ch[PDK_CH_FORCE_Y_R] = g->fy_r[l];
        ch[PDK_CH_DRAG] = -g->drag[l];
        ch[PDK_CH_ROLLING] = rolling_ch[l];
    }
}

/* Steps the first count vehicles of a batch in groups, the last group padded
 * with copies of its last vehicle when count is not a multiple of LANES. */
VECTOR_CODE static void step_groups(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                                    const pdk_st_params *const *params, double *const *channels,
                                    int count, int substeps)
{
    group gs[(PDK_ST_BATCH + LANES - 1) / LANES];
    int groups = (count + LANES - 1) / LANES;
    for (int j = 0; j < groups; j++) {
        int first = j * LANES;
        int n = count - first < LANES ? count - first : LANES;
        pdk_st_state *st[LANES];
        const pdk_st_cmd *cm[LANES];
        const pdk_st_params *pa[LANES];
        for (int l = 0; l < LANES; l++) {
            int v = first + (l < n ? l : n - 1);
            st[l] = states[v];
            cm[l] = cmds[v];
            pa[l] = params[v];
        }
        group_load(&gs[j], st, cm, pa);
    }
    for (int i = 0; i < substeps; i++) {
        for (int j = 0; j < groups; j++) {
            group_substep(&gs[j]);
        }
    }
    for (int j = 0; j < groups; j++) {
        int first = j * LANES;
        int n = count - first < LANES ? count - first : LANES;
        group_store(&gs[j], n, &states[first], &cmds[first], &params[first], &channels[first]);
    }
}
#endif /* HAVE_VECTORS */

void pdk_st_step_batch(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                       const pdk_st_params *const *params, double *const *channels, int count,
                       int substeps)
{
    PDK_ASSERT(count >= 1 && count <= PDK_ST_BATCH);
    int first = 0;
#if HAVE_VECTORS
    if (__builtin_cpu_supports("avx")) {
        int rest = count % LANES;
        first = rest >= MIN_GROUP ? count : count - rest;
        if (first > 0) {
            step_groups(states, cmds, params, channels, first, substeps);
        }
    }
#endif
    /* The scalar path, substep-major: the lanes' dependency chains are
     * independent, so the processor overlaps them. */
    lane lanes[PDK_ST_BATCH];
    int n = count - first;
    for (int k = 0; k < n; k++) {
        lane_load(&lanes[k], states[first + k]);
    }
    for (int i = 0; i < substeps; i++) {
        for (int k = 0; k < n; k++) {
            lane_substep(&lanes[k], cmds[first + k], params[first + k]);
        }
    }
    for (int k = 0; k < n; k++) {
        int v = first + k;
        lane_store(&lanes[k], states[v], cmds[v], params[v], channels[v]);
    }
}

void pdk_st_step(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, int substeps,
                 double *ch)
{
    pdk_st_step_batch(&st, &cmd, &p, &ch, 1, substeps);
}
