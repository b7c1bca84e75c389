/* The four-wheel step's working values (internal to the four-wheel step,
 * four_wheel_step.h, and the headers of its parts: suspension.h,
 * steering.h, four_wheel_tyres.h, brakes.h, chassis.h, four_wheel_solve.h
 * and four_wheel_tick.h, which all include it): one vehicle's four wheels
 * in a substep, the linear system, the substep in progress and what the
 * step reads and writes; and the body's rotation helpers. Everything here is static and inlined, so that the AVX2 build
 * of the step (four_wheel_avx.c) compiles it for AVX2 too. */
#ifndef PDK_FOUR_WHEEL_SUBSTEP_H
#define PDK_FOUR_WHEEL_SUBSTEP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math/trig.h"
#include "tyre/tyre_lanes.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_lanes.h"
#include "vehicle/four_wheel_powertrain.h"
#include "vehicle/single_track.h"

/* The Polaris model's cap on the rolling-resistance coefficient, T_roll =
 * min(f, 0.45) N R. */
#define MAX_ROLLING_COEFF 0.45

/* Whether the tyres' aligning moments act on the chassis in every substep (1),
 * or are computed only in the tick's last substep for the channels (TyreMz_*,
 * SteeringTorque), and only for a vehicle that has channels that tick (0). 0:
 * in every substep the moment would be a large part of a Magic Formula car's
 * step, and on the chassis it is a yaw moment of -t sum F_y, 2 % more
 * understeer at 0.3 g with 3 cm of trail, below what the model leaves out of
 * the steering (no compliance, no caster); ADR 0008 records the measurement. */
#define MZ_ON_CHASSIS 0

static inline double max2(double p, double q)
{
    return p > q ? p : q;
}

static inline double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
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

static inline __attribute__((always_inline)) void euler_of(const double q[4], double *yaw_rad,
                                                           double *pitch_rad, double *roll_rad)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    /* ZYX (yaw, pitch, roll) from the rotation matrix's first column and
     * third row. */
    *yaw_rad =
        pdk_st_wrap_angle(pdk_trig_atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)));
    *pitch_rad = asin_det(2.0 * (w * y - z * x));
    *roll_rad = pdk_trig_atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
}

/* euler_of with the yaw's and the roll's atan2 taken in two lanes of
 * atan2_4, which gives pdk_trig_atan2's bits: one evaluation for the
 * two. */
VEC void euler4(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    v4 num = (v4){2.0 * (w * z + x * y), 2.0 * (w * x + y * z), 0.0, 0.0};
    v4 den = (v4){1.0 - 2.0 * (y * y + z * z), 1.0 - 2.0 * (x * x + y * y), 1.0, 1.0};
    v4 a = atan2_4(num, den);
    *yaw_rad = pdk_st_wrap_angle(a[0]);
    *pitch_rad = asin_det(2.0 * (w * y - z * x));
    *roll_rad = a[1];
}

/* ---- the substep -------------------------------------------------------- */

/* The substep's arithmetic runs on four-wide wheel vectors, one wheel per
 * lane (four_wheel_lanes.h says how that stays bit-identical everywhere). */

/* The four wheels' working values in a substep, one lane each. Vectors are
 * in the body frame. */
typedef struct wheels {
    v4 rx, ry, rz;    /* contact point */
    v4 nx, ny, nz;    /* contact normal */
    v4 exx, exy, exz; /* tyre frame: heading on the contact plane */
    v4 eyx, eyy, eyz; /* and lateral, n x e_x */
    v4 vcx, vcy, vcz; /* contact velocity at the end */
    v4 travel;        /* from the static ride position, >= -droop */
    v4 inv_cos;       /* 1 / (z_b . n) */
    v4 xdot;          /* compression rate at the start */
    v4 u0, vlat0;     /* contact velocity along e_x, e_y at the start */
    v4 delta;         /* road-wheel angle, toe curve included */
    v4 sin_d, cos_d;  /* of delta */
    v4 toe;           /* static toe plus curve, toe-in positive */
    v4 camber;        /* ISO inclination to n */
    v4 s_exp;         /* strut force, explicit part (trapezoidal) */
    v4 link_rc;       /* roll-centre link load */
    v4 link_pitch;    /* anti-dive/squat/lift link load */
    v4 fn;            /* explicit normal force: cos S_exp + links */
    v4 c_n, c_x, c_y; /* damper coefficients */
    v4 fz0;           /* the tyre's load: the start's (the end's on touch-down) */
    v4 fx, fy;        /* explicit forces along e_x, e_y */
    v4 fz, s_end;     /* at the end of the substep */
    /* The ground (geometry): the tyre law's scales, the rolling-resistance
     * coefficient (surface, tyre and life; the soil's on soil). */
    pdk_tyre_ground4 ground;
    v4 roll_f;
    v4 surface;                 /* surface id, for the channels */
    int32_t surf[PDK_WHEELS];   /* surface id */
    double water_m[PDK_WHEELS]; /* water depth */
    /* The tyres (tyre_law): relaxation lengths at the load, the exact
     * exponential's e and g per direction (g_x and g_y the end input's
     * share, ux_in what the start's input adds to the deflection, uy_in
     * what it and the frame's turn add), the slips the law saw, its aligning moment and
     * friction-circle radius; the linear model F_x1 = fex + kx s_x1, F_y1
     * = fey - ky v_y1 (s_x1 = Omega1 R - V_x1 the end slip velocity, v_y1
     * the end lateral velocity); the forces at the contact that are not
     * the tyre's (soil's motion resistance, water). */
    v4 sig_k, sig_a, inv_sk, e_x, g_x, ux_in, e_y, g_y, uy_in;
    v4 mz, peak; /* mz also on the chassis, about n, where MZ_ON_CHASSIS */
    v4 fex, kx, fey, ky;
    /* The forces at the start's deflections, and the share of their
     * change over the substep the chassis (and longitudinally the wheel)
     * takes (th_x, th_y: 1/2 at speed, 1 at rest): F_0 + th (F_1 - F_0). */
    v4 fy0, th_y, fx0, th_x;
    v4 ext_x, ext_y;
    /* The wheels (wheel_hold, wheel_coeffs): drive torque, Coulomb capacity
     * B (brakes, pawl, rolling) and its rolling part, the sign a freed
     * wheel's Coulomb torque takes, and the linear model in force (the
     * saturated force where sat): 1 / (1 + a) with a = h R^2 kx / I, W0 the
     * free rim speed. */
    v4 t_drive, hold, roll_t, unlock_sign;
    v4 fcap_x, fcap_y;
    v4 fex_e, kx_e, fey_e, ky_e, inv_1a, w0;
    v4 u1, vl1, sx1;   /* end velocities along e_x, e_y, and slip velocity */
    v4 fx_end, fy_end; /* the tyre's end forces */
    m4 contact;        /* the ray meets the ground within droop */
    m4 loaded;
    m4 soil;     /* on deformable ground, loaded */
    m4 lock;     /* the wheel's spin is held at 0 this substep */
    m4 unlocked; /* freed from a lock this substep, its Coulomb torque unlock_sign B */
    m4 sat;      /* the tyre's force is held on its friction circle this substep */
    /* Hard contacts (PDK_FW_HARD_DAMPING): the wheels held behind a face or
     * below the ground, at the body point (rx, ry, hard_rz); the normal out
     * of it (body), the depth, the explicit part of the force along the
     * normal (hard_fe - c vn1, vn1 the point's end velocity along it), the
     * point's velocity along it at the start and the end, and the end
     * force. */
    m4 hard;
    v4 hnx, hny, hnz, hard_d, hard_rz, hard_fe, hard_vn0, hard_vn1, hard_f;
} wheels;

/* The linear system of the velocity solve, A q1 = rhs with q = (v, w):
 * A = [T B; B' W + G] in 3x3 blocks, T and W symmetric, G the gyroscopic
 * term's skew part, rhs = (r_v, r_w). Its entries are held four to a
 * vector, so that the wheels' sums land four at a time (sum4x4) and each
 * row of B is a vector (its fourth lane carries an entry of r_v, which no
 * lane-wise operation mixes into the other three):
 *   g[0] = T00 T01 T02 T11    g[3] = B00 B01 B02 rv0    g[6] = rw0 rw1 rw2 0
 *   g[1] = T12 T22 W00 W01    g[4] = B10 B11 B12 rv1
 *   g[2] = W02 W11 W12 W22    g[5] = B20 B21 B22 rv2 */
typedef struct system6 {
    v4 g[7];
} system6;

/* The pose where a tick began: all a fault needs of the start. */
typedef struct pose7 {
    double pos_m[3];
    double quat[4];
} pose7;

/* The hull's contacts with the ground in a substep (hull_contact.h), one
 * entry per hull point below the ground, n of them: the body point r, the
 * normal out of the ground or face (body frame), the friction coefficient,
 * the explicit part of the normal force and the friction's damper, the
 * point's start and end velocities along the normal and across it, and the
 * end forces; on, the entries still held (a contact that would pull is let
 * go, once: tried). */
typedef struct hull_contacts {
    int n;
    uint32_t on, tried;
    double r[PDK_HULL_POINTS][3];
    double nb[PDK_HULL_POINTS][3];
    double depth_m[PDK_HULL_POINTS];
    double mu[PDK_HULL_POINTS];
    double fe[PDK_HULL_POINTS], c_t[PDK_HULL_POINTS];
    double vn0[PDK_HULL_POINTS], vn1[PDK_HULL_POINTS];
    double vt0[PDK_HULL_POINTS][3], vt1[PDK_HULL_POINTS][3];
    double f_n[PDK_HULL_POINTS];
    int rubbing; /* the friction's dampers are set (after the first pass) */
    /* The last substep's for the channels: the normal forces' sum and the
     * face of the deepest contact. */
    double force_n;
    int face;
} hull_contacts;

/* One vehicle's substep in progress: what the substep's phases (below) hand
 * on to the next, besides its wheels' values. A substep runs as
 * geometry, frame, struts, then passes of build_pass, solve_pass and
 * check_pass, then integrate; step_group runs each phase for a few vehicles
 * in turn, so that the processor overlaps one vehicle's long chains of
 * dependent operations (two divisions and a square root in the frame and
 * the tyres, two more in the solve) with the others'. Every vehicle's
 * operations, and their order, are those of it stepped alone. */
typedef struct sub {
    int last; /* the tick's last substep: the telemetry's values too */
    int more; /* check_pass asks for another pass */
    mat3 rm;
    double v[3], w[3], grav[3]; /* body velocity and rate, gravity, at the start */
    double drive_gain;          /* the pedal's share of the drive, governed */
    double c_drag;              /* the air drag's damper on body x */
    double gyro[3];             /* L0 / 2 */
    double drag;                /* the drag force, for the channels */
    double sol[6];              /* the solve's end velocities (v, w) */
    double turn_f[3];           /* the tyres' forces' turn with the body (build_pass) */
    pose7 start;                /* the pose where the tick began */
    /* The struts' values at the start (step 3), for the kinks. */
    v4 xt, xdot, spring, bump, k_bs, c, s_exp, link, xdot_c;
    m4 in_stop;
    m4 tried;        /* wheels that lifted off or were engaged */
    m4 entered;      /* wheels whose bump stop was engaged */
    m4 tried_lock;   /* wheels locked by check_pass */
    m4 tried_unlock; /* wheels freed by check_pass */
    m4 tried_hard;   /* wheels whose hard contact check_pass let go */
    system6 sy;
    /* The tick's (tick_begin): the terrain's kind (a plane, one surface
     * everywhere), the contact mode, the tyres' rolling radius R, radius
     * drop, grip (their own times the world's friction), rolling-resistance
     * scale and pressure (gauge), and the ground of a terrain of
     * one surface. */
    int plane, uniform, cylinder, faces, want_mz, any_sinkage;
    v4 radius, inv_radius, drop, tyre_grip, roll_scale, pressure_pa;
    pdk_tyre_ground4 base_ground;
    v4 base_roll_f;
    int base_soil;
    /* Sums over the tick's substeps for the tyres' life and the channels:
     * sliding power, load, rolling speed, substeps in contact. */
    v4 sum_power, sum_load, sum_speed, sum_contact;
    /* A powertrain's substep (four_wheel_powertrain.h): the driveline's
     * shaft torques and the pawl's capacities the wheels take, and what the
     * channels report. */
    v4 shaft, pawl, brake;
    pdk_fwpt_out pto;
    pdk_fwpt_mid ptm; /* between the powertrain's halves (struts, struts_end) */
    hull_contacts hull;
} sub;

/* What one vehicle's step reads and writes: the world's arrays (or a
 * test's). */
typedef struct fw_vehicle {
    pdk_fw_state *st;
    const pdk_fw_cmd *cmd;
    const pdk_fw_consts *p;
    const pdk_tyre_consts4 *tyre;
    const pdk_kinematics_def *kin[2];
    const pdk_tyre_life_def *life[2];
    const pdk_soil_tyre *soil[2];
    const pdk_powertrain_def *pt; /* NULL for the lumped drive */
    double *ch;
} fw_vehicle;

/* The arguments of every phase: the vehicle vh, its substep in progress sv
 * and its wheels q. */
#define PHASE_ARGS const fw_vehicle *restrict vh, sub *restrict sv, wheels *restrict q

#endif
