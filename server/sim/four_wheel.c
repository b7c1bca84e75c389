/* One tick of the four-wheel model (seed 000): per substep the struts' rays,
 * the wheel angles and contact frames, the strut and link loads, the tyre
 * forces, one 6x6 linearly implicit velocity solve for the chassis and the
 * rigid-body integration; then the vehicle's telemetry channels.
 *
 * The scheme, per substep of length h. The unknowns are the CG velocity v
 * and the angular velocity w at the END of the substep, both in the body
 * frame as it stands at the substep's start (R, frozen over the substep;
 * the velocity is stored in the world frame and rotated in and out).
 *  1. Each corner's ray runs from ride_ray_top_m above its static contact
 *     point down the body's z axis; the hit gives the travel x (positive in
 *     bump), the contact point r and normal n. x < -droop: the wheel is in
 *     the air. The compression rate xdot = -(n . v_c) / (z_b . n), with v_c
 *     = v + w x r the contact's velocity at the start.
 *  2. Wheel angles: Ackermann and static toe from the command, plus the toe
 *     curve; the wheel's heading projected on the contact plane gives the
 *     tyre frame (e_x, e_y, n). Camber from the spin axis tilted about body
 *     x by static camber plus curve, or on a solid axle by the beam through
 *     the two contacts (seed 000 "Camber", "Solid axles").
 *  3. Struts (seed 000 "A strut per corner"): S_exp = k (s0 + x) + arb (x -
 *     x_other) + k_bs max(0, x - bump), damper c (bump or rebound by the sign
 *     of xdot). Link loads from the previous substep's tyre forces: the
 *     roll-centre couple F_y h_rc / t, or per wheel F_y,i 2 h_rc,i / t with a
 *     roll-centre curve (Milliken and Milliken, Race Car Vehicle Dynamics,
 *     ch. 17 and 18), and the anti-dive/anti-squat/anti-lift loads anti F_x
 *     h_cg / L (ibid. ch. 17; Gillespie, Fundamentals of Vehicle Dynamics,
 *     ch. 9). They load the tyre and push the body at the contact without
 *     moving the spring. The ground never pulls: a strut or tyre load that
 *     would be negative leaves the wheel unloaded.
 *  4. Tyres (tyre_forces): the linear tyre of the single-track model per
 *     wheel, a lateral damper C / max(|u|, floor) with C proportional to the
 *     load (Pacejka, Tire and Vehicle Dynamics, ch. 1), explicit camber
 *     thrust and drive; brakes, pawl and rolling resistance as Coulomb
 *     friction; the resultant kept inside the friction circle (ibid. ch. 3).
 *  5. The solve, linearly implicit Euler with the coefficients frozen at
 *     the start (Baraff and Witkin, "Large steps in cloth simulation",
 *     SIGGRAPH 1998, section 4; the single-track model uses the same idea):
 *       (M/h + sum_k c_k J_k' J_k - G) q1 = M q0 / h + F_explicit,
 *     q = (v, w), M = diag(m, m, m, Ixx, Iyy, Izz), every damper k (each
 *     loaded wheel's n, e_x and e_y, each axle's bar, and the air drag on
 *     body x) with J_k = [d', (r x d)'] and coefficient c_k. The normal's
 *     coefficient is the strut damper plus h times the spring and bump-stop
 *     rates: with x_end = x + h xdot_end the strut force at the end is S_exp
 *     + (c + h k) xdot_end, so the spring is integrated by backward Euler
 *     and the damper implicitly. The bar is implicit the same way in the
 *     travel difference (add_arb), so it adds nothing in heave. The
 *     gyroscopic torque is taken as -(w1 x I w0), G = [I w0]x, which does no
 *     work at the end velocity (w1 . (w1 x L) = 0). The system is solved by
 *     Gaussian elimination without pivoting in 3x3 blocks (solve_system).
 *     After the solve a wheel whose end normal force would be negative is
 *     unloaded, and a wheel whose Coulomb force would not keep its sign is
 *     given the stick damper instead, and the system is solved again.
 *  6. Position by the end velocity, orientation by q <- q exp(h w / 2) (the
 *     exact rotation by the body angular velocity over the substep, the
 *     zeroth-order quaternion integrator of Sola, Quaternion kinematics for
 *     the error-state Kalman filter, 2017), renormalised once a tick.
 * Why it is stable: the matrix is M/h plus a sum of positive semi-definite
 * damper terms plus a skew-symmetric gyroscopic term, so x' A x >= x' M x / h
 * > 0: it is always solvable, and the elimination needs no pivoting (every
 * leading block has a positive-definite symmetric part). With K(q) =
 * q' M q / 2, K(q1) - K(q0) = h q1 . F - (q1 - q0)' M (q1 - q0) / 2 - h
 * sum_k c_k (J_k q1)^2 <= h q1 . F_explicit: every damper (tyre slip, the
 * stick damper, strut damping, the implicit part of the springs and bars)
 * only removes energy at the end velocity, whatever its size and the
 * substep, and the gyroscopic term neither adds nor removes it. A Coulomb
 * force is explicit only while the contact's end velocity keeps the sign
 * it opposes, so it too only removes energy (-B |u_end|). On a linear
 * spring the backward-Euler step removes (h k xdot_end)^2 / (2 k) of spring
 * energy per substep, so heave, pitch and roll on flat ground decay and
 * never grow (tests/unit/test_four_wheel.c checks the energy tick by
 * tick). What stays explicit is small against the implicit part: gravity
 * (exact in a constant field), the drive (adds at most its power), the
 * link loads (lagged one substep; their loop gain h_rc / t times the load
 * sensitivity is far below one, seed 000) and the camber thrust. The price
 * is numerical damping of the ride modes, a damping ratio of about
 * omega h / 2 (0.03 for a 2 Hz mode at 240 Hz), which vanishes as the
 * substep shrinks. */
#include "four_wheel.h"

#include <math.h>
#include <stdint.h>

#include "channels.h"
#include "single_track.h"
#include "trig.h"

#define PI 3.14159265358979323846

/* A strut whose axis makes less than this cosine with the contact normal
 * (more than 84 degrees: the car is on its side or upside down) has no
 * contact: its ray would graze the ground. */
#define MIN_COS 0.1

/* Above this rotation per substep (rad) the quaternion's increment uses
 * pdk_trig_sincos; below it, a series. */
#define SMALL_ROT_RAD 0.1

/* Most solves in one substep: the first, and one more each time a wheel is
 * found to lift off or to stick (each happens to a wheel at most once). */
#define MAX_SOLVES 9

/* The margin above the bump travel at which a ray starts: half the bump
 * travel, at least this. Travel beyond the bump stop is still seen. */
#define MIN_RAY_MARGIN_M 0.05

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline double max2(double p, double q)
{
    return p > q ? p : q;
}

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* asin(s) for |s| <= 1, deterministic like trig.h. Up to |s| = 0.25 (14
 * degrees, every camber a car runs) by its Taylor series to s^23,
 * sum C(2k, k) / (4^k (2k + 1)) s^(2k+1): the first omitted term is below
 * 0.0066 * 0.25^25 = 5.8e-18, a twentieth of an ulp of the result. Beyond,
 * by atan2(s, sqrt(1 - s^2)). */
static inline double asin_det(double s)
{
    if (s >= -0.25 && s <= 0.25) {
        double z = s * s;
        double p = 88179.0 / 12058624.0; /* k = 11 */
        p = 46189.0 / 5505024.0 + z * p;
        p = 12155.0 / 1245184.0 + z * p;
        p = 6435.0 / 557056.0 + z * p;
        p = 143.0 / 10240.0 + z * p;
        p = 231.0 / 13312.0 + z * p;
        p = 63.0 / 2816.0 + z * p;
        p = 35.0 / 1152.0 + z * p;
        p = 5.0 / 112.0 + z * p;
        p = 3.0 / 40.0 + z * p;
        p = 1.0 / 6.0 + z * p;
        return s + s * (z * p);
    }
    s = s < -1.0 ? -1.0 : (s > 1.0 ? 1.0 : s);
    return pdk_trig_atan2(s, sqrt(1.0 - s * s));
}

/* A rotation matrix, row i, column j (a struct so that it passes as const). */
typedef struct mat3 {
    double m[3][3];
} mat3;

static inline void rotation_of(const double q[4], mat3 *rm)
{
    double(*r)[3] = rm->m;
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0][0] = 1.0 - 2.0 * (y * y + z * z);
    r[0][1] = 2.0 * (x * y - w * z);
    r[0][2] = 2.0 * (x * z + w * y);
    r[1][0] = 2.0 * (x * y + w * z);
    r[1][1] = 1.0 - 2.0 * (x * x + z * z);
    r[1][2] = 2.0 * (y * z - w * x);
    r[2][0] = 2.0 * (x * z - w * y);
    r[2][1] = 2.0 * (y * z + w * x);
    r[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

/* out = R v (body to world) and out = R' v (world to body). */
static inline void rot_apply(const mat3 *rm, const double v[3], double out[3])
{
    const double(*r)[3] = rm->m;
    double x = r[0][0] * v[0] + r[0][1] * v[1] + r[0][2] * v[2];
    double y = r[1][0] * v[0] + r[1][1] * v[1] + r[1][2] * v[2];
    double z = r[2][0] * v[0] + r[2][1] * v[1] + r[2][2] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static inline void rot_apply_t(const mat3 *rm, const double v[3], double out[3])
{
    const double(*r)[3] = rm->m;
    double x = r[0][0] * v[0] + r[1][0] * v[1] + r[2][0] * v[2];
    double y = r[0][1] * v[0] + r[1][1] * v[1] + r[2][1] * v[2];
    double z = r[0][2] * v[0] + r[1][2] * v[1] + r[2][2] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void pdk_fw_euler(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    /* ZYX (yaw, pitch, roll) from the rotation matrix's first column and
     * third row. */
    *yaw_rad =
        pdk_st_wrap_angle(pdk_trig_atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)));
    *pitch_rad = asin_det(2.0 * (w * y - z * x));
    *roll_rad = pdk_trig_atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
}

void pdk_fw_body_velocity(const pdk_fw_state *s, double out[3])
{
    mat3 rm;
    rotation_of(s->quat, &rm);
    rot_apply_t(&rm, s->vel_mps, out);
}

/* ---- constants, pose and command ---------------------------------------- */

void pdk_fw_params_init(pdk_fw_params *p, const pdk_vehicle_def *def, double substep_s,
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
    p->inertia_kgm2[0] = c->roll_inertia_kgm2;
    p->inertia_kgm2[1] = c->pitch_inertia_kgm2;
    p->inertia_kgm2[2] = c->yaw_inertia_kgm2;
    for (int j = 0; j < 3; j++) {
        p->inertia_per_h[j] = p->inertia_kgm2[j] / substep_s;
    }
    p->gravity_mps2 = gravity_mps2;
    p->wheelbase_m = len;
    p->cg_height_m = c->cg_height_m;
    p->rolling_coeff = def->resist.rolling_coeff;
    p->drag_n_per_mps2 = 0.5 * air_density_kgpm3 * def->resist.drag_area_m2;
    p->drive_force_n = def->drive.max_force_n;
    p->drive_power_w = def->drive.max_power_w;
    p->steer_ratio = def->steering.ratio;
    p->steer_center_deg = def->steering.center_offset_deg;
    p->steer_lock_deg = def->steering.lock_deg;
    p->ackermann = def->steering.ackermann;

    double top = 0.0;
    for (int k = 0; k < 2; k++) {
        const pdk_suspension_def *s = k == 0 ? &def->susp_front : &def->susp_rear;
        const pdk_axle_tyre_def *ty = k == 0 ? &def->tyre_front : &def->tyre_rear;
        pdk_fw_axle *ax = &p->axle[k];
        ax->track_m = pdk_vehicle_def_track_m(def, k);
        ax->x_m = k == 0 ? a : -b;
        /* Static wheel loads from moment balance about each axle
         * (Gillespie ch. 2), shared equally by the two wheels. */
        ax->static_load_n = m * gravity_mps2 * (k == 0 ? b : a) / (2.0 * len);
        ax->static_compression_m = ax->static_load_n / s->spring_rate_npm;
        ax->spring_npm = s->spring_rate_npm;
        ax->bump_nspm = s->bump_damping_nspm;
        ax->rebound_nspm = s->rebound_damping_nspm;
        ax->arb_npm = s->anti_roll_npm;
        ax->bump_stop_npm = s->bump_stop_npm;
        ax->travel_bump_m = s->travel_bump_m;
        ax->travel_droop_m = s->travel_droop_m;
        ax->rc_height_m = s->roll_center_height_m;
        ax->anti_brake = s->anti_brake;
        ax->anti_drive = s->anti_drive;
        ax->static_camber_rad = s->static_camber_rad;
        ax->static_toe_rad = s->static_toe_rad;
        /* Each tyre has half the axle's stiffness at its static load, in
         * proportion to its load. */
        ax->cornering_per_n = ty->cornering_stiffness_n_per_rad / (2.0 * ax->static_load_n);
        ax->camber_per_n = ty->camber_stiffness_n_per_rad / (2.0 * ax->static_load_n);
        ax->mu = ty->friction_coeff * surface_friction;
        ax->drive_share =
            0.5 * (k == 0 ? def->drive.front_fraction : 1.0 - def->drive.front_fraction);
        ax->half_track_m = 0.5 * ax->track_m;
        ax->rc_per_track = ax->rc_height_m / ax->track_m;
        ax->two_per_track = 2.0 / ax->track_m;
        ax->pitch_arm = (k == 0 ? -1.0 : 1.0) * c->cg_height_m / len;
        pdk_trig_sincos(s->static_camber_rad, &ax->sin_camber, &ax->cos_camber);
        ax->solid = s->kind == PDK_AXLE_SOLID ? 1 : 0;
        ax->per_wheel_links = s->kinematics.roll_center_height_m.n_points > 0 ? 1 : 0;
        ax->kin = s->kinematics;
        double margin = max2(0.5 * s->travel_bump_m, MIN_RAY_MARGIN_M);
        top = max2(top, s->travel_bump_m + margin);
    }
    p->ride_ray_top_m = top;
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
    s->pos_m[2] = ground + p->cg_height_m;
    s->quat[0] = ch;
    s->quat[1] = 0.0;
    s->quat[2] = 0.0;
    s->quat[3] = sh;
    s->vel_mps[0] = speed_mps * cy;
    s->vel_mps[1] = speed_mps * sy;
    s->vel_mps[2] = 0.0;
    for (int j = 0; j < 3; j++) {
        s->omega_radps[j] = 0.0;
        s->accel_mps2[j] = 0.0;
    }
    /* At rest the springs carry the weight: the accelerometer reads +g. */
    s->accel_mps2[2] = p->gravity_mps2;
    for (int i = 0; i < PDK_WHEELS; i++) {
        s->prev_fx_n[i] = 0.0;
        s->prev_fy_n[i] = 0.0;
    }
    s->faulted = 0u;
}

void pdk_fw_cmd_set(pdk_fw_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear)
{
    cmd->throttle_pct = throttle_pct;
    cmd->brake_bar = brake_bar;
    cmd->steer_wheel_deg = steer_wheel_deg;
    cmd->gear = (int32_t)gear;
    cmd->gear_code = (double)cmd->gear;

    /* The bicycle road-wheel angle: the steering wheel, less its centre
     * offset, within lock, over the ratio (as pdk_st_cmd_set). */
    const pdk_steering_def *sd = &def->steering;
    double lock = sd->lock_deg;
    double wheel_deg = clamp(steer_wheel_deg - sd->center_offset_deg, -lock, lock);
    double delta = wheel_deg * ((PI / 180.0) / sd->ratio);
    cmd->steer_rad = delta;

    /* Ackermann (seed 000): the ideal angle of front wheel i rolls about the
     * rear axle's line, tan(d_i) = L tan(d) / (L - s_i (t/2) tan(d)),
     * written with sin and cos (both sides times cos d > 0) so that it has
     * no division; the wheel runs ackermann of the way from parallel steer
     * to it. Static toe-in turns each wheel toward the centreline. */
    double sin_d, cos_d;
    pdk_trig_sincos(delta, &sin_d, &cos_d);
    double len = def->chassis.wheelbase_m;
    double half_t = 0.5 * pdk_vehicle_def_track_m(def, 0);
    for (int i = 0; i < PDK_WHEELS; i++) {
        int front = i < PDK_RL;
        double side = (i & 1) ? -1.0 : 1.0;
        double d = 0.0;
        if (front) {
            double ideal = pdk_trig_atan2(len * sin_d, len * cos_d - side * half_t * sin_d);
            d = delta + sd->ackermann * (ideal - delta);
        }
        double toe = front ? def->susp_front.static_toe_rad : def->susp_rear.static_toe_rad;
        d -= side * toe;
        cmd->wheel_steer_rad[i] = d;
        pdk_trig_sincos(d, &cmd->wheel_sin[i], &cmd->wheel_cos[i]);
    }

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
    cmd->governor_fade_mps = cmd->governor_mps - PDK_FW_GOVERNOR_BAND_MPS;
    cmd->drive_gain = direction * throttle_pct / 100.0;

    /* Brake force split by the brake balance, the parking pawl in the drive
     * split (it locks the transmission), each axle's share halved between
     * its wheels. */
    double brake_n = brake_bar * def->brake.force_per_bar_n;
    double brake_front = def->brake.front_fraction;
    double drive_front = def->drive.front_fraction;
    double park_n = gear == PDK_GEAR_PARK ? def->brake.park_hold_force_n : 0.0;
    double hold_front = 0.5 * (brake_n * brake_front + park_n * drive_front);
    double hold_rear = 0.5 * (brake_n * (1.0 - brake_front) + park_n * (1.0 - drive_front));
    cmd->hold_n[PDK_FL] = hold_front;
    cmd->hold_n[PDK_FR] = hold_front;
    cmd->hold_n[PDK_RL] = hold_rear;
    cmd->hold_n[PDK_RR] = hold_rear;
}

/* ---- the substep -------------------------------------------------------- */

/* One wheel's working values in a substep. Vectors are in the body frame. */
typedef struct wheel {
    double r[3];                  /* contact point */
    double n[3];                  /* contact normal */
    double ex[3];                 /* tyre frame: heading on the contact plane */
    double ey[3];                 /* and lateral, n x e_x */
    double vc[3];                 /* contact velocity at the end */
    double travel;                /* from the static ride position, >= -droop */
    double inv_cos;               /* 1 / (z_b . n) */
    double xdot;                  /* compression rate at the start */
    double u0, vlat0;             /* contact velocity along e_x, e_y at the start */
    double delta;                 /* road-wheel angle, toe curve included */
    double sin_d, cos_d;          /* of delta */
    double toe;                   /* static toe plus curve, toe-in positive */
    double camber;                /* ISO inclination to n */
    double s_exp;                 /* strut force, explicit part */
    double link_rc;               /* roll-centre link load */
    double link_pitch;            /* anti-dive/squat/lift link load */
    double fn;                    /* explicit normal force: cos S_exp + links */
    double c_n, c_x, c_y, c_roll; /* damper coefficients (c_roll: the rolling part of c_x) */
    double fz0;                   /* the load the tyre works with (start prediction) */
    double f_roll;                /* explicit rolling resistance (Coulomb mode) */
    double fx, fy;                /* explicit forces along e_x, e_y (drive, camber thrust) */
    double fz, s_end, fx_end, fy_end, rolling; /* at the end of the substep */
    int contact;                               /* the ray meets the ground within droop */
    int loaded;
    int coulomb; /* friction as an explicit Coulomb force, not a damper */
    int sliding; /* locked by its brakes */
    int stick;   /* friction as the stick damper: the force would not keep its sign */
} wheel;

/* The linear system of the velocity solve, A q1 = rhs with q = (v, w):
 * A = [T B; B' W + G] in 3x3 blocks, T and W symmetric (upper triangles
 * xx, xy, xz, yy, yz, zz), G the gyroscopic term's skew part. */
typedef struct system6 {
    double t[6];
    double b[3][3];
    double w[6];
    double rhs[6];
} system6;

/* The system without wheels: M/h, the air drag as a damper on body x;
 * M q0 / h plus gravity. */
static inline void system_init(system6 *sy, const pdk_fw_params *p, const double v[3],
                               const double w[3], const double grav[3], double c_drag)
{
    for (int k = 0; k < 6; k++) {
        sy->t[k] = 0.0;
        sy->w[k] = 0.0;
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            sy->b[i][j] = 0.0;
        }
    }
    sy->t[0] = p->mass_per_h + c_drag;
    sy->t[3] = p->mass_per_h;
    sy->t[5] = p->mass_per_h;
    sy->w[0] = p->inertia_per_h[0];
    sy->w[3] = p->inertia_per_h[1];
    sy->w[5] = p->inertia_per_h[2];
    for (int j = 0; j < 3; j++) {
        sy->rhs[j] = p->mass_per_h * v[j] + p->mass_kg * grav[j];
        sy->rhs[3 + j] = p->inertia_per_h[j] * w[j];
    }
}

/* Adds a loaded wheel's three dampers (n, e_x, e_y with c_n, c_x, c_y, at
 * lever r) and its explicit force. The dampers exert -D v_c with v_c = v +
 * w x r = v - [r]x w and D = c_n nn' + c_x e_x e_x' + c_y e_y e_y'; as n,
 * e_x, e_y are orthonormal, D = c_y I + (c_n - c_y) nn' + (c_x - c_y) e_x
 * e_x'. With P = D [r]x ([r]x v = r x v):
 *   T += D,  B += -P,  W += -[r]x P  (= [r]x' D [r]x, symmetric). */
static inline void add_wheel(system6 *restrict sy, const wheel *restrict q)
{
    const double r0 = q->r[0], r1 = q->r[1], r2 = q->r[2];
    const double n0 = q->n[0], n1 = q->n[1], n2 = q->n[2];
    const double e0 = q->ex[0], e1 = q->ex[1], e2 = q->ex[2];
    const double cy = q->c_y;
    const double ka = q->c_n - cy;
    const double kb = q->c_x - cy;
    double an0 = ka * n0, an1 = ka * n1, an2 = ka * n2;
    double be0 = kb * e0, be1 = kb * e1, be2 = kb * e2;
    double d00 = cy + (an0 * n0 + be0 * e0);
    double d01 = an0 * n1 + be0 * e1;
    double d02 = an0 * n2 + be0 * e2;
    double d11 = cy + (an1 * n1 + be1 * e1);
    double d12 = an1 * n2 + be1 * e2;
    double d22 = cy + (an2 * n2 + be2 * e2);
    sy->t[0] += d00;
    sy->t[1] += d01;
    sy->t[2] += d02;
    sy->t[3] += d11;
    sy->t[4] += d12;
    sy->t[5] += d22;
    double p00 = d01 * r2 - d02 * r1, p01 = d02 * r0 - d00 * r2, p02 = d00 * r1 - d01 * r0;
    double p10 = d11 * r2 - d12 * r1, p11 = d12 * r0 - d01 * r2, p12 = d01 * r1 - d11 * r0;
    double p20 = d12 * r2 - d22 * r1, p21 = d22 * r0 - d02 * r2, p22 = d02 * r1 - d12 * r0;
    sy->b[0][0] -= p00;
    sy->b[0][1] -= p01;
    sy->b[0][2] -= p02;
    sy->b[1][0] -= p10;
    sy->b[1][1] -= p11;
    sy->b[1][2] -= p12;
    sy->b[2][0] -= p20;
    sy->b[2][1] -= p21;
    sy->b[2][2] -= p22;
    /* -[r]x P: the rows of -[r]x are (0, rz, -ry), (-rz, 0, rx), (ry, -rx, 0). */
    sy->w[0] += r2 * p10 - r1 * p20;
    sy->w[1] += r2 * p11 - r1 * p21;
    sy->w[2] += r2 * p12 - r1 * p22;
    sy->w[3] += r0 * p21 - r2 * p01;
    sy->w[4] += r0 * p22 - r2 * p02;
    sy->w[5] += r1 * p02 - r0 * p12;
    const double fn = q->fn, fx = q->fx, fy = q->fy;
    double f0 = fn * n0 + fx * e0 + fy * q->ey[0];
    double f1 = fn * n1 + fx * e1 + fy * q->ey[1];
    double f2 = fn * n2 + fx * e2 + fy * q->ey[2];
    sy->rhs[0] += f0;
    sy->rhs[1] += f1;
    sy->rhs[2] += f2;
    sy->rhs[3] += r1 * f2 - r2 * f1;
    sy->rhs[4] += r2 * f0 - r0 * f2;
    sy->rhs[5] += r0 * f1 - r1 * f0;
}

/* Adds an axle's anti-roll bar, implicitly in the travel difference: the
 * bar's end force is arb (x_l - x_r) + h arb (xdot_l - xdot_r), and with
 * xdot = -(n . v_c) / cos the increment on the left contact's normal force
 * is -h arb (g_l - g_r) . q, g = [n; r x n] (+ on the right), exactly when
 * both normals make the same angle with the body (flat ground) and to
 * first order otherwise. The term h arb j j', j = g_l - g_r, is symmetric
 * and positive semi-definite, and it is zero in heave: the bar adds no ride
 * rate (seed 000), not even a numerical one. A wheel not loaded drops out
 * of j (its strut is not pushed by the bar). */
static inline void add_arb(system6 *restrict sy, const wheel *restrict l, const wheel *restrict r,
                           double c)
{
    double jt[3] = {0.0, 0.0, 0.0};
    double jw[3] = {0.0, 0.0, 0.0};
    if (l->loaded) {
        cross3(l->r, l->n, jw);
        for (int j = 0; j < 3; j++) {
            jt[j] = l->n[j];
        }
    }
    if (r->loaded) {
        double t[3];
        cross3(r->r, r->n, t);
        for (int j = 0; j < 3; j++) {
            jt[j] -= r->n[j];
            jw[j] -= t[j];
        }
    }
    double cw0 = c * jw[0], cw1 = c * jw[1], cw2 = c * jw[2];
    sy->w[0] += cw0 * jw[0];
    sy->w[1] += cw0 * jw[1];
    sy->w[2] += cw0 * jw[2];
    sy->w[3] += cw1 * jw[1];
    sy->w[4] += cw1 * jw[2];
    sy->w[5] += cw2 * jw[2];
    if (jt[0] == 0.0 && jt[1] == 0.0 && jt[2] == 0.0) {
        return; /* both normals alike (flat ground): only the moment rows */
    }
    double ct0 = c * jt[0], ct1 = c * jt[1], ct2 = c * jt[2];
    sy->t[0] += ct0 * jt[0];
    sy->t[1] += ct0 * jt[1];
    sy->t[2] += ct0 * jt[2];
    sy->t[3] += ct1 * jt[1];
    sy->t[4] += ct1 * jt[2];
    sy->t[5] += ct2 * jt[2];
    sy->b[0][0] += ct0 * jw[0];
    sy->b[0][1] += ct0 * jw[1];
    sy->b[0][2] += ct0 * jw[2];
    sy->b[1][0] += ct1 * jw[0];
    sy->b[1][1] += ct1 * jw[1];
    sy->b[1][2] += ct1 * jw[2];
    sy->b[2][0] += ct2 * jw[0];
    sy->b[2][1] += ct2 * jw[1];
    sy->b[2][2] += ct2 * jw[2];
}

/* All loaded wheels and the bars. */
static void add_wheels(system6 *restrict sy, const wheel *restrict wh,
                       const pdk_fw_params *restrict p)
{
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (wh[i].loaded) {
            add_wheel(sy, &wh[i]);
        }
    }
    for (int k = 0; k < 2; k++) {
        if (p->axle[k].arb_npm > 0.0 && (wh[2 * k].loaded || wh[2 * k + 1].loaded)) {
            add_arb(sy, &wh[2 * k], &wh[2 * k + 1], p->h_s * p->axle[k].arb_npm);
        }
    }
}

/* Solves the system for q = (v, w) by Gaussian elimination without
 * pivoting, in 3x3 blocks: T's block first (T is symmetric positive
 * definite: m/h I plus dampers), which leaves the Schur complement S = W +
 * G - B' T^-1 B for w; then v = T^-1 (rhs_v - B w). The symmetric part of
 * S is positive definite and its skew part is G (the file's comment), so
 * both 3x3 solves, by the adjugate, divide by a positive determinant. */
static inline void solve_system(const system6 *restrict sy, const double gyro[3], double q[6])
{
    const double *t = sy->t;
    /* T^-1 = adj(T) / det(T), symmetric. */
    double i0 = t[3] * t[5] - t[4] * t[4];
    double i1 = t[2] * t[4] - t[1] * t[5];
    double i2 = t[1] * t[4] - t[2] * t[3];
    double i3 = t[0] * t[5] - t[2] * t[2];
    double i4 = t[1] * t[2] - t[0] * t[4];
    double i5 = t[0] * t[3] - t[1] * t[1];
    double inv_det = 1.0 / (t[0] * i0 + t[1] * i1 + t[2] * i2);
    const double ti[3][3] = {{i0 * inv_det, i1 * inv_det, i2 * inv_det},
                             {i1 * inv_det, i3 * inv_det, i4 * inv_det},
                             {i2 * inv_det, i4 * inv_det, i5 * inv_det}};
    /* X = T^-1 B and y = T^-1 rhs_v. */
    double x[3][3], y[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            x[i][j] = ti[i][0] * sy->b[0][j] + ti[i][1] * sy->b[1][j] + ti[i][2] * sy->b[2][j];
        }
        y[i] = ti[i][0] * sy->rhs[0] + ti[i][1] * sy->rhs[1] + ti[i][2] * sy->rhs[2];
    }
    /* S = W - B' X (symmetric) plus G = -[L0]x; z = rhs_w - B' y. */
    double bx[6];
    static const int row[6] = {0, 0, 0, 1, 1, 2};
    static const int col[6] = {0, 1, 2, 1, 2, 2};
    for (int k = 0; k < 6; k++) {
        int i = row[k], j = col[k];
        bx[k] = sy->w[k] - (sy->b[0][i] * x[0][j] + sy->b[1][i] * x[1][j] + sy->b[2][i] * x[2][j]);
    }
    const double s[3][3] = {{bx[0], bx[1] + gyro[2], bx[2] - gyro[1]},
                            {bx[1] - gyro[2], bx[3], bx[4] + gyro[0]},
                            {bx[2] + gyro[1], bx[4] - gyro[0], bx[5]}};
    double z[3];
    for (int j = 0; j < 3; j++) {
        z[j] = sy->rhs[3 + j] - (sy->b[0][j] * y[0] + sy->b[1][j] * y[1] + sy->b[2][j] * y[2]);
    }
    /* w = adj(S) z / det(S). */
    double c00 = s[1][1] * s[2][2] - s[1][2] * s[2][1];
    double c01 = s[0][2] * s[2][1] - s[0][1] * s[2][2];
    double c02 = s[0][1] * s[1][2] - s[0][2] * s[1][1];
    double c10 = s[1][2] * s[2][0] - s[1][0] * s[2][2];
    double c11 = s[0][0] * s[2][2] - s[0][2] * s[2][0];
    double c12 = s[0][2] * s[1][0] - s[0][0] * s[1][2];
    double c20 = s[1][0] * s[2][1] - s[1][1] * s[2][0];
    double c21 = s[0][1] * s[2][0] - s[0][0] * s[2][1];
    double c22 = s[0][0] * s[1][1] - s[0][1] * s[1][0];
    double inv_s = 1.0 / (s[0][0] * c00 + s[0][1] * c10 + s[0][2] * c20);
    double *w = &q[3];
    w[0] = (c00 * z[0] + c01 * z[1] + c02 * z[2]) * inv_s;
    w[1] = (c10 * z[0] + c11 * z[1] + c12 * z[2]) * inv_s;
    w[2] = (c20 * z[0] + c21 * z[1] + c22 * z[2]) * inv_s;
    for (int i = 0; i < 3; i++) {
        q[i] = y[i] - (x[i][0] * w[0] + x[i][1] * w[1] + x[i][2] * w[2]);
    }
}

/* The tyre's forces on a loaded wheel, from its load fz0 and the contact's
 * start velocity (u0, vlat0): the dampers c_x, c_y and the explicit forces
 * fx, fy along e_x, e_y. The linear tyre (Pacejka ch. 1) is a lateral
 * damper, F_y = -C alpha with tan(alpha) = v_lat / max(|u|, floor), C
 * proportional to the load; camber thrust and the drive are explicit.
 * Brakes, pawl and rolling resistance (capacity B) are Coulomb friction:
 * while the contact moves faster than PDK_FW_STICK_SPEED_MPS they are the
 * explicit force -B sign(u), exactly Coulomb's, and the solve checks that u
 * keeps its sign to the end of the substep (no force can reverse it); a
 * wheel slower than that, or one whose u would not keep its sign (stick),
 * takes them as the stiff damper B / max(|u|, stick) instead, which stops
 * it and cannot reverse it. A wheel whose brakes alone exceed mu F_z is
 * locked and slides, its friction mu F_z opposing the contact's velocity in
 * the plane (Pacejka ch. 3, full sliding), by the same two modes. The
 * resultant at the start velocity stays inside the friction circle mu F_z:
 * every coefficient and force is scaled down together where it would not. */
static void tyre_forces(wheel *restrict q, const pdk_fw_axle *restrict ax, double hold,
                        double rolling_coeff, double drive_n)
{
    double fz0 = q->fz0;
    double cap = ax->mu * fz0;
    double u = q->u0;
    double vl = q->vlat0;
    double au = fabs(u);
    q->c_roll = 0.0;
    q->f_roll = 0.0;
    q->coulomb = 0;
    q->sliding = hold >= cap;
    if (q->sliding) {
        double vp = sqrt(u * u + vl * vl);
        q->c_x = 0.0;
        q->c_y = 0.0;
        q->fx = 0.0;
        q->fy = 0.0;
        if (!q->stick && vp > PDK_FW_STICK_SPEED_MPS) {
            double per = cap / vp;
            q->fx = -per * u;
            q->fy = -per * vl;
            q->coulomb = 1;
        } else {
            double c_s = cap / max2(vp, PDK_FW_STICK_SPEED_MPS);
            q->c_x = c_s;
            q->c_y = c_s;
        }
        return;
    }
    double c_y = ax->cornering_per_n * fz0 / max2(au, PDK_FW_SLIP_SPEED_FLOOR_MPS);
    double fx = drive_n * ax->drive_share;
    double fy = -ax->camber_per_n * fz0 * q->camber;
    double roll_n = rolling_coeff * fz0;
    double res = hold + roll_n;
    double c_x = 0.0;
    double c_roll = 0.0;
    double f_roll = 0.0;
    if (!q->stick && au > PDK_FW_STICK_SPEED_MPS) {
        double sign = u > 0.0 ? 1.0 : -1.0;
        fx -= sign * res;
        f_roll = -sign * roll_n;
        q->coulomb = res > 0.0;
    } else {
        double inv = 1.0 / max2(au, PDK_FW_STICK_SPEED_MPS);
        c_x = res * inv;
        c_roll = roll_n * inv;
    }
    double fx0 = fx - c_x * u;
    double fy0 = fy - c_y * vl;
    double f2 = fx0 * fx0 + fy0 * fy0;
    if (f2 > cap * cap) {
        double scale = cap / sqrt(f2);
        c_x *= scale;
        c_roll *= scale;
        c_y *= scale;
        fx *= scale;
        fy *= scale;
        f_roll *= scale;
    }
    q->c_x = c_x;
    q->c_y = c_y;
    q->c_roll = c_roll;
    q->fx = fx;
    q->fy = fy;
    q->f_roll = f_roll;
}

/* One substep: advances st by h. wh receives each wheel's values; last
 * asks for what only the telemetry needs. */
static void substep(pdk_fw_state *restrict st, const pdk_fw_cmd *restrict cmd,
                    const pdk_fw_params *restrict p, const pdk_terrain_def *restrict terrain,
                    wheel *restrict wh, double *restrict drag_out, int last)
{
    const double h = p->h_s;
    const double top = p->ride_ray_top_m;
    const double cg = p->cg_height_m;
    mat3 rm;
    rotation_of(st->quat, &rm);
    double v[3];
    rot_apply_t(&rm, st->vel_mps, v);
    const double w[3] = {st->omega_radps[0], st->omega_radps[1], st->omega_radps[2]};
    /* Gravity in the body frame, R' (0, 0, -g); body z in the world. */
    const double g = p->gravity_mps2;
    const double grav[3] = {-g * rm.m[2][0], -g * rm.m[2][1], -g * rm.m[2][2]};
    const double zb[3] = {rm.m[0][2], rm.m[1][2], rm.m[2][2]};
    const double dir[3] = {-zb[0], -zb[1], -zb[2]};
    const int upright = zb[2] > MIN_COS;
    const int flat = terrain->n_bumps == 0;
    const double inv_zb = upright ? 1.0 / zb[2] : 0.0;

    /* 1. Geometry: each corner's ray. The static contact point in the world
     * first, then the ray's origin above it, so that on flat ground at rest
     * the origin is exactly ride_ray_top_m above z = 0 and the travel is
     * exactly 0. */
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        wheel *q = &wh[i];
        double bx = ax->x_m;
        double by = (i & 1) ? -ax->half_track_m : ax->half_track_m;
        q->contact = 0;
        q->loaded = 0;
        q->travel = -ax->travel_droop_m;
        q->r[0] = bx;
        q->r[1] = by;
        q->r[2] = -cg - ax->travel_droop_m;
        q->n[0] = 0.0;
        q->n[1] = 0.0;
        q->n[2] = 1.0;
        q->inv_cos = 1.0;
        if (!upright) {
            continue;
        }
        const double b[3] = {bx, by, -cg};
        double x, nb[3];
        if (flat) {
            /* The ray against the plane z = 0: the distance o_z / (z_b)_z
             * and the normal e_z, R' e_z in the body. */
            double base_z = rm.m[2][0] * b[0] + rm.m[2][1] * b[1] + rm.m[2][2] * b[2];
            double origin_z = (st->pos_m[2] + base_z) + top * zb[2];
            x = top - origin_z * inv_zb;
            nb[0] = rm.m[2][0];
            nb[1] = rm.m[2][1];
            nb[2] = rm.m[2][2];
        } else {
            double base[3], origin[3], nw[3];
            rot_apply(&rm, b, base);
            for (int j = 0; j < 3; j++) {
                origin[j] = (st->pos_m[j] + base[j]) + top * zb[j];
            }
            x = top - pdk_terrain_raycast(terrain, origin, dir, nw);
            rot_apply_t(&rm, nw, nb);
        }
        if (!(x >= -ax->travel_droop_m) || !(nb[2] > MIN_COS)) {
            continue; /* in the air (or the strut lies along the ground) */
        }
        q->contact = 1;
        q->travel = x;
        q->r[2] = -cg + x;
        q->n[0] = nb[0];
        q->n[1] = nb[1];
        q->n[2] = nb[2];
        q->inv_cos = flat ? inv_zb : 1.0 / nb[2];
    }

    /* The drive: pedal share of min(max force, power / speed), the
     * governors fading it over their band (pdk_st_step's law). */
    double speed = fabs(v[0]);
    double avail = p->drive_force_n;
    if (p->drive_power_w < avail * speed) {
        avail = p->drive_power_w / speed;
    }
    double drive = cmd->drive_gain * avail;
    if (cmd->governor_mps > 0.0) {
        double excess = (cmd->drive_gain < 0.0 ? -v[0] : v[0]) - cmd->governor_fade_mps;
        if (excess > 0.0) {
            drive *= max2(0.0, 1.0 - excess / PDK_FW_GOVERNOR_BAND_MPS);
        }
    }

    const double c_drag = p->drag_n_per_mps2 * fabs(v[0]);
    system6 sy;
    system_init(&sy, p, v, w, grav, c_drag);

    /* 2. Per wheel: angles, tyre frame, camber, strut, links, tyre. */
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        const pdk_kinematics_def *kin = &ax->kin;
        wheel *q = &wh[i];
        const double side = (i & 1) ? -1.0 : 1.0;
        const double x = q->travel;

        double sd = cmd->wheel_sin[i];
        double cd = cmd->wheel_cos[i];
        double delta = cmd->wheel_steer_rad[i];
        double toe = ax->static_toe_rad;
        if (kin->toe_rad.n_points > 0) {
            /* Toe-in turns the left wheel right and the right wheel left. */
            double toe_c = pdk_curve_eval(&kin->toe_rad, x);
            toe += toe_c;
            delta -= side * toe_c;
            pdk_trig_sincos(delta, &sd, &cd);
        }
        q->delta = delta;
        q->sin_d = sd;
        q->cos_d = cd;
        q->toe = toe;

        /* The heading (cos d, sin d, 0) projected on the contact plane. */
        const double n0 = q->n[0], n1 = q->n[1], n2 = q->n[2];
        double fdn = cd * n0 + sd * n1;
        double ex0 = cd - fdn * n0, ex1 = sd - fdn * n1, ex2 = -fdn * n2;
        double inv = 1.0 / sqrt(ex0 * ex0 + ex1 * ex1 + ex2 * ex2);
        ex0 *= inv;
        ex1 *= inv;
        ex2 *= inv;
        double ey0 = n1 * ex2 - n2 * ex1;
        double ey1 = n2 * ex0 - n0 * ex2;
        double ey2 = n0 * ex1 - n1 * ex0;
        q->ex[0] = ex0;
        q->ex[1] = ex1;
        q->ex[2] = ex2;
        q->ey[0] = ey0;
        q->ey[1] = ey1;
        q->ey[2] = ey2;

        /* The contact's velocity and the strut's compression rate. */
        const double *r = q->r;
        double vc0 = v[0] + (w[1] * r[2] - w[2] * r[1]);
        double vc1 = v[1] + (w[2] * r[0] - w[0] * r[2]);
        double vc2 = v[2] + (w[0] * r[1] - w[1] * r[0]);
        q->xdot = -(n0 * vc0 + n1 * vc1 + n2 * vc2) * q->inv_cos;
        q->u0 = ex0 * vc0 + ex1 * vc1 + ex2 * vc2;
        q->vlat0 = ey0 * vc0 + ey1 * vc1 + ey2 * vc2;
    }

    /* Each loop below takes the four wheels' independent chains side by
     * side, so the processor overlaps them. */
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        const pdk_kinematics_def *kin = &ax->kin;
        wheel *q = &wh[i];
        const double side = (i & 1) ? -1.0 : 1.0;
        /* Camber: the spin axis (-sin d, cos d, 0) tilted about body x by
         * the wheel's inclination to the body, gamma = -side * camber
         * (alignment camber, negative top-in), or on a solid axle with both
         * wheels down by the beam's roll psi relative to the body on top;
         * Camber = asin(axis . n). Only the thrust and the telemetry read
         * it. */
        q->camber = 0.0;
        if ((q->contact && ax->camber_per_n != 0.0) || last) {
            double sg, cgam;
            if (kin->camber_rad.n_points > 0) {
                double cam = ax->static_camber_rad + pdk_curve_eval(&kin->camber_rad, q->travel);
                pdk_trig_sincos(-side * cam, &sg, &cgam);
            } else {
                sg = -side * ax->sin_camber;
                cgam = ax->cos_camber;
            }
            const wheel *wl = &wh[i & ~1];
            const wheel *wr = &wh[i | 1];
            if (ax->solid && wl->contact && wr->contact) {
                double by = wl->r[1] - wr->r[1];
                double bz = wl->r[2] - wr->r[2];
                double inv_b = 1.0 / sqrt(by * by + bz * bz);
                double sp = bz * inv_b;
                double cp = by * inv_b;
                double s2 = sp * cgam + cp * sg;
                cgam = cp * cgam - sp * sg;
                sg = s2;
            }
            q->camber = asin_det(-q->sin_d * q->n[0] + q->cos_d * (cgam * q->n[1] + sg * q->n[2]));
        }
    }

    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        const pdk_kinematics_def *kin = &ax->kin;
        wheel *q = &wh[i];
        const double side = (i & 1) ? -1.0 : 1.0;
        const double x = q->travel;

        q->s_exp = 0.0;
        q->link_rc = 0.0;
        q->link_pitch = 0.0;
        q->fn = 0.0;
        q->c_n = q->c_x = q->c_y = q->c_roll = 0.0;
        q->fx = q->fy = 0.0;
        if (!q->contact) {
            continue;
        }

        const double xdot = q->xdot;
        const double u = q->u0;
        const double n2 = q->n[2];

        /* The strut: k (s0 + x) written as the static load plus k x, exactly
         * the static load at the ride position. */
        double s_exp =
            ax->static_load_n + ax->spring_npm * x + ax->arb_npm * (x - wh[i ^ 1].travel);
        double k_tot = ax->spring_npm;
        if (x > ax->travel_bump_m) {
            s_exp += ax->bump_stop_npm * (x - ax->travel_bump_m);
            k_tot += ax->bump_stop_npm;
        }
        double c = xdot > 0.0 ? ax->bump_nspm : ax->rebound_nspm;
        double s0 = s_exp + c * xdot;
        if (!(s0 > 0.0)) {
            continue; /* the ground cannot pull */
        }

        /* Lateral links: the roll-centre couple, or per wheel with a
         * roll-centre curve (jacking where the two do not cancel). */
        double fy_prev = st->prev_fy_n[i];
        double link_rc;
        if (ax->per_wheel_links) {
            double hrc = ax->rc_height_m + pdk_curve_eval(&kin->roll_center_height_m, x);
            link_rc = -side * fy_prev * hrc * ax->two_per_track;
        } else {
            link_rc = -side * (fy_prev + st->prev_fy_n[i ^ 1]) * ax->rc_per_track;
        }
        /* Pitch links: anti-brake when the force opposes the rolling, else
         * anti-drive; static plus curve. */
        double fx_prev = st->prev_fx_n[i];
        int braking = (fx_prev < 0.0 && u >= 0.0) || (fx_prev > 0.0 && u < 0.0);
        double anti;
        if (braking) {
            anti = ax->anti_brake;
            if (kin->anti_brake.n_points > 0) {
                anti += pdk_curve_eval(&kin->anti_brake, x);
            }
        } else {
            anti = ax->anti_drive;
            if (kin->anti_drive.n_points > 0) {
                anti += pdk_curve_eval(&kin->anti_drive, x);
            }
        }
        double link_pitch = anti * fx_prev * ax->pitch_arm;
        double link = link_rc + link_pitch;
        double fz0 = n2 * s0 + link;
        if (!(fz0 > 0.0)) {
            continue;
        }
        q->loaded = 1;
        q->link_rc = link_rc;
        q->link_pitch = link_pitch;
        q->s_exp = s_exp;
        q->fn = n2 * s_exp + link;
        q->c_n = c + h * k_tot;

        q->fz0 = fz0;
        q->stick = 0;
        tyre_forces(q, ax, cmd->hold_n[i], p->rolling_coeff, drive);
    }
    add_wheels(&sy, wh, p);

    /* 3. The implicit solve, again without a wheel whose end normal force
     * would be negative (it lifts off) and with the stick damper on a wheel
     * whose Coulomb force would not keep its sign (tyre_forces). Each pass
     * changes a wheel one way only, so there are at most nine. */
    const double gyro[3] = {p->inertia_kgm2[0] * w[0], p->inertia_kgm2[1] * w[1],
                            p->inertia_kgm2[2] * w[2]};
    double sol[6];
    for (int pass = 0;; pass++) {
        solve_system(&sy, gyro, sol);
        double vn[PDK_WHEELS];
        for (int i = 0; i < PDK_WHEELS; i++) {
            wheel *q = &wh[i];
            cross3(&sol[3], q->r, q->vc);
            for (int j = 0; j < 3; j++) {
                q->vc[j] += sol[j];
            }
            vn[i] = q->loaded ? dot3(q->n, q->vc) : 0.0;
        }
        int changed = 0;
        for (int i = 0; i < PDK_WHEELS; i++) {
            wheel *q = &wh[i];
            if (!q->loaded) {
                continue;
            }
            /* The normal force at the end: strut, links, and the bar's
             * implicit part (add_arb). */
            double side = (i & 1) ? -1.0 : 1.0;
            double bar = side * (p->h_s * p->axle[i >> 1].arb_npm) * (vn[i & ~1] - vn[i | 1]);
            double dn = q->c_n * vn[i] + bar;
            q->fz = q->fn - dn;
            q->s_end = q->s_exp - dn * q->inv_cos;
            if (pass + 1 >= MAX_SOLVES) {
                continue;
            }
            if (q->fz < 0.0) {
                q->loaded = 0;
                changed = 1;
            } else if (q->coulomb) {
                /* The end velocity along the start's direction of motion
                 * (in the plane for a sliding wheel, along e_x else). */
                double u = dot3(q->ex, q->vc);
                double along, start;
                if (q->sliding) {
                    along = u * q->u0 + dot3(q->ey, q->vc) * q->vlat0;
                    start = sqrt(q->u0 * q->u0 + q->vlat0 * q->vlat0);
                } else {
                    along = q->u0 > 0.0 ? u : -u;
                    start = 1.0;
                }
                if (!(along > PDK_FW_STICK_SPEED_MPS * start)) {
                    q->stick = 1;
                    tyre_forces(q, &p->axle[i >> 1], cmd->hold_n[i], p->rolling_coeff, drive);
                    changed = 1;
                }
            }
        }
        if (!changed) {
            break;
        }
        system_init(&sy, p, v, w, grav, c_drag);
        add_wheels(&sy, wh, p);
    }

    /* 4. The end-of-substep forces, for telemetry and the next substep's
     * links (the force each contact puts on the body, in body x and y). */
    for (int i = 0; i < PDK_WHEELS; i++) {
        wheel *q = &wh[i];
        if (!q->loaded) {
            q->fz = q->s_end = q->fx_end = q->fy_end = q->rolling = 0.0;
            q->link_rc = 0.0;
            q->link_pitch = 0.0;
            st->prev_fx_n[i] = 0.0;
            st->prev_fy_n[i] = 0.0;
            continue;
        }
        double u = dot3(q->ex, q->vc);
        double vl = dot3(q->ey, q->vc);
        q->fx_end = q->fx - q->c_x * u;
        q->fy_end = q->fy - q->c_y * vl;
        q->rolling = q->f_roll - q->c_roll * u;
        q->s_end = max2(q->s_end, 0.0);
        st->prev_fx_n[i] = q->fx_end * q->ex[0] + q->fy_end * q->ey[0];
        st->prev_fy_n[i] = q->fx_end * q->ex[1] + q->fy_end * q->ey[1];
    }
    *drag_out = -c_drag * sol[0];

    /* 5. Integrate: velocity to the world, position by the end velocity,
     * orientation by the exact rotation of the body rate over h, the
     * accelerometer's reading (body, gravity excluded). */
    double vw[3];
    rot_apply(&rm, sol, vw);
    for (int j = 0; j < 3; j++) {
        st->accel_mps2[j] = (sol[j] - v[j]) * p->inv_h - grav[j];
        st->vel_mps[j] = vw[j];
        st->pos_m[j] += h * vw[j];
        st->omega_radps[j] = sol[3 + j];
    }
    const double *w1 = &sol[3];
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

/* ---- the tick ------------------------------------------------------------ */

static double finite_or_zero(double x)
{
    return x - x == 0.0 ? x : 0.0;
}

static double negligible_to_zero(double x)
{
    return fabs(x) < PDK_FW_NEGLIGIBLE ? 0.0 : x;
}

/* Whether any state value is infinite or NaN (x - x is NaN then, 0 else). */
static int state_broken(const pdk_fw_state *s)
{
    double z = 0.0;
    for (int j = 0; j < 3; j++) {
        z += (s->pos_m[j] - s->pos_m[j]) + (s->vel_mps[j] - s->vel_mps[j]) +
             (s->omega_radps[j] - s->omega_radps[j]) + (s->accel_mps2[j] - s->accel_mps2[j]);
    }
    for (int j = 0; j < 4; j++) {
        z += s->quat[j] - s->quat[j];
        z += (s->prev_fx_n[j] - s->prev_fx_n[j]) + (s->prev_fy_n[j] - s->prev_fy_n[j]);
    }
    double v2 = dot3(s->vel_mps, s->vel_mps) + dot3(s->omega_radps, s->omega_radps);
    z += v2 - v2;
    return z != 0.0;
}

/* The fault (as pdk_st_step's): the vehicle stays at the pose where the tick
 * began, with no velocity, and reports so. */
static void fault(pdk_fw_state *s, const pdk_fw_state *start, const pdk_fw_cmd *cmd,
                  const pdk_fw_params *p, double *ch)
{
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
        s->prev_fx_n[i] = 0.0;
        s->prev_fy_n[i] = 0.0;
    }
    s->faulted = 1u;
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
    ch[PDK_CH_TYRE_LOAD_F] = 2.0 * p->axle[0].static_load_n;
    ch[PDK_CH_TYRE_LOAD_R] = 2.0 * p->axle[1].static_load_n;
    for (int i = 0; i < PDK_WHEELS; i++) {
        ch[PDK_CH_TYRE_LOAD_FL + i] = p->axle[i >> 1].static_load_n;
        ch[PDK_CH_WHEEL_STEER_FL + i] = cmd->wheel_steer_rad[i];
    }
    ch[PDK_CH_FAULTED] = 1.0;
}

void pdk_fw_step(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                 const pdk_terrain_def *terrain, int substeps, double *ch)
{
    pdk_fw_state start = *s;
    wheel wh[PDK_WHEELS];
    double drag = 0.0;
    for (int k = 0; k < substeps; k++) {
        substep(s, cmd, p, terrain, wh, &drag, k == substeps - 1);
    }
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
    }
    if (held && fabs(s->vel_mps[0]) < PDK_FW_REST_SPEED_MPS &&
        fabs(s->vel_mps[1]) < PDK_FW_REST_SPEED_MPS &&
        dot3(s->omega_radps, s->omega_radps) < PDK_FW_REST_RATE_RADPS * PDK_FW_REST_RATE_RADPS) {
        s->vel_mps[0] = 0.0;
        s->vel_mps[1] = 0.0;
        s->omega_radps[2] = 0.0;
    }
    for (int j = 0; j < 3; j++) {
        s->vel_mps[j] = negligible_to_zero(s->vel_mps[j]);
        s->omega_radps[j] = negligible_to_zero(s->omega_radps[j]);
        s->accel_mps2[j] = negligible_to_zero(s->accel_mps2[j]);
    }
    if (state_broken(s)) {
        fault(s, &start, cmd, p, ch);
        return;
    }

    mat3 rm;
    rotation_of(s->quat, &rm);
    double vb[3];
    rot_apply_t(&rm, s->vel_mps, vb);
    double yaw, pitch, roll;
    pdk_fw_euler(s->quat, &yaw, &pitch, &roll);
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
    ch[PDK_CH_DRAG] = drag;
    ch[PDK_CH_FAULTED] = 0.0;
    ch[PDK_CH_ROLL] = roll;
    ch[PDK_CH_PITCH] = pitch;
    ch[PDK_CH_ROLL_RATE] = s->omega_radps[0];
    ch[PDK_CH_PITCH_RATE] = s->omega_radps[1];
    ch[PDK_CH_VEL_Z] = s->vel_mps[2];

    /* Per wheel, the last substep's values: its geometry at the substep's
     * start, its forces at the end. Slip angles by ISO 8855 with the force
     * law's speed floor (single_track.h). */
    double rolling = 0.0;
    double slip[PDK_WHEELS];
    for (int i = 0; i < PDK_WHEELS; i++) {
        const wheel *q = &wh[i];
        double u = dot3(q->ex, q->vc);
        slip[i] = pdk_trig_atan2(dot3(q->ey, q->vc), max2(fabs(u), PDK_FW_SLIP_SPEED_FLOOR_MPS));
        ch[PDK_CH_SUSP_TRAVEL_FL + i] = q->travel;
        ch[PDK_CH_SUSP_FORCE_FL + i] = q->s_end;
        ch[PDK_CH_WHEEL_STEER_FL + i] = q->delta;
        ch[PDK_CH_CAMBER_FL + i] = q->camber;
        ch[PDK_CH_TOE_FL + i] = q->toe;
        ch[PDK_CH_TYRE_LOAD_FL + i] = q->fz;
        ch[PDK_CH_SLIP_ANGLE_FL + i] = slip[i];
        ch[PDK_CH_FORCE_X_FL + i] = q->fx_end;
        ch[PDK_CH_FORCE_Y_FL + i] = q->fy_end;
        rolling += q->rolling;
    }
    ch[PDK_CH_ROLLING] = rolling;
    for (int k = 0; k < 2; k++) {
        const wheel *l = &wh[2 * k];
        const wheel *r = &wh[2 * k + 1];
        ch[PDK_CH_TYRE_LOAD_F + k] = l->fz + r->fz;
        ch[PDK_CH_SLIP_ANGLE_F + k] = 0.5 * (slip[2 * k] + slip[2 * k + 1]);
        ch[PDK_CH_FORCE_X_F + k] = l->fx_end + r->fx_end;
        ch[PDK_CH_FORCE_Y_F + k] = l->fy_end + r->fy_end;
        ch[PDK_CH_GEOMETRIC_TRANSFER_F + k] = 0.5 * (r->link_rc - l->link_rc);
        ch[PDK_CH_PITCH_LINK_LOAD_F + k] = l->link_pitch + r->link_pitch;
        ch[PDK_CH_JACKING_FORCE_F + k] = l->link_rc + r->link_rc;
    }
}
