/* One tick of the four-wheel model (seed 000; its set-up, constants and
 * command cache are in four_wheel_setup.c): per substep the struts' rays,
 * the wheel angles and contact frames, the strut and link loads, the tyre
 * forces, one 6x6 linearly implicit velocity solve for the chassis and the
 * rigid-body integration; then the vehicle's telemetry channels. The
 * wheels' arithmetic runs four wheels at once in vectors
 * (four_wheel_lanes.h), pdk_fw_step takes an AVX build of it where the
 * processor has AVX, with the same bits as the baseline build, and
 * pdk_fw_step_batch steps vehicles two side by side, phase by phase of each
 * substep (struct sub), so that the processor overlaps their latencies.
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
 *     thrust (in proportion to the rolling speed below the floor) and
 *     drive; brakes, pawl and rolling resistance as Coulomb friction; the
 *     resultant at the start velocity kept inside the friction circle
 *     (ibid. ch. 3).
 *  5. The solve. The struts (springs, dampers, bump stops) and the bars
 *     take the trapezoidal rule: their force is evaluated at the mean of the
 *     start and end travel and rate, x_avg = x + h (xdot + xdot_end) / 4 and
 *     xdot_avg = (xdot + xdot_end) / 2, so S = S_exp + c_n (xdot + xdot_end)
 *     with c_n = c / 2 + h k / 4 (bars: h arb / 4 on the travel
 *     difference), and the position and orientation are advanced with the
 *     mean of the start and end velocities (step 6). The tyres, the stick
 *     damper and the air drag stay implicit at the END velocity (backward
 *     Euler, L-stable: a damper of any size stops a contact and never
 *     reverses it). The gyroscopic torque is taken at the mean rate,
 *     -(w_avg x L0) with L0 = I w0, half in the matrix and half explicit.
 *     With the coefficients and the contact geometry frozen at the start,
 *     this is one linear system (Baraff and Witkin, "Large steps in cloth
 *     simulation", SIGGRAPH 1998, section 4, for the linearly implicit
 *     form; the single-track model uses the same idea):
 *       (M/h + sum_k c_k J_k' J_k - G) q1 = M q0 / h + F_explicit,
 *     q = (v, w), M = diag(m, m, m, Ixx, Iyy, Izz), every damper k (each
 *     loaded wheel's n with c_n, e_x and e_y with the tyre's, each axle's
 *     bar, and the air drag on body x) with J_k = [d', (r x d)']
 *     (build_system); F_explicit holds the explicit halves (S_exp + c_n
 *     xdot on the normal, the bar's, the gyroscopic one). The bar adds
 *     nothing in heave. It is solved by Gaussian elimination without
 *     pivoting in 3x3 blocks (solve_system). After the solve a wheel whose
 *     normal force would be negative is unloaded, a wheel whose Coulomb
 *     force would not keep its sign is given the stick damper instead, and
 *     a strut that crosses a kink of its force within the substep takes
 *     that part of its force at the END travel x1 = x + h (xdot +
 *     xdot_end) / 2: a loaded strut entering its bump stop takes k_bs (x1 -
 *     bump), a wheel in contact but unloaded whose strut would push at the
 *     end is loaded with its spring and stop at x1. Then the system is
 *     solved again.
 *  6. Position by the mean velocity, orientation by q <- q exp(h w_avg / 2)
 *     (the exact rotation by the mean body rate over the substep, the
 *     zeroth-order quaternion integrator of Sola, Quaternion kinematics for
 *     the error-state Kalman filter, 2017), renormalised once a tick.
 * Why the matrix is always solvable without pivoting, what the step
 * conserves, why a kink is taken at the end travel (a force at the mean
 * travel would gain the energy of the kink's far side: a stiff bump stop
 * rang up without bound) and what is not passive (the lagged link loads):
 * docs/adr/0007-four-wheel-step.md, "The energy balance". */
#include "four_wheel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "channels.h"
#include "four_wheel_lanes.h"
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
 * found to lift off, to stick, to enter its bump stop or to take load (each
 * happens to a wheel at most once). */
#define MAX_SOLVES 17

static inline double max2(double p, double q)
{
    return p > q ? p : q;
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
 * atan2_4, which gives pdk_trig_atan2's bits without its branches (a fleet's
 * headings make them unpredictable). */
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

void pdk_fw_euler(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad)
{
    euler_of(q, yaw_rad, pitch_rad, roll_rad);
}

void pdk_fw_body_velocity(const pdk_fw_state *s, double out[3])
{
    mat3 rm;
    rotation_of(s->quat, &rm);
    rot_apply_t(&rm, s->vel_mps, out);
}

/* ---- the substep -------------------------------------------------------- */

/* The substep's arithmetic runs on four-wide wheel vectors, one wheel per
 * lane (four_wheel_lanes.h says how that stays bit-identical everywhere). */

/* The four wheels' working values in a substep, one lane each. Vectors are
 * in the body frame. */
typedef struct wheels {
    v4 rx, ry, rz;            /* contact point */
    v4 nx, ny, nz;            /* contact normal */
    v4 exx, exy, exz;         /* tyre frame: heading on the contact plane */
    v4 eyx, eyy, eyz;         /* and lateral, n x e_x */
    v4 vcx, vcy, vcz;         /* contact velocity at the end */
    v4 travel;                /* from the static ride position, >= -droop */
    v4 inv_cos;               /* 1 / (z_b . n) */
    v4 xdot;                  /* compression rate at the start */
    v4 u0, vlat0;             /* contact velocity along e_x, e_y at the start */
    v4 delta;                 /* road-wheel angle, toe curve included */
    v4 sin_d, cos_d;          /* of delta */
    v4 toe;                   /* static toe plus curve, toe-in positive */
    v4 camber;                /* ISO inclination to n */
    v4 s_exp;                 /* strut force, explicit part (trapezoidal) */
    v4 link_rc;               /* roll-centre link load */
    v4 link_pitch;            /* anti-dive/squat/lift link load */
    v4 fn;                    /* explicit normal force: cos S_exp + links */
    v4 c_n, c_x, c_y, c_roll; /* damper coefficients (c_roll: the rolling part of c_x) */
    v4 fz0;                   /* the tyre's load: the start's (the end's on touch-down) */
    v4 f_roll;                /* explicit rolling resistance (Coulomb mode) */
    v4 fx, fy;                /* explicit forces along e_x, e_y (drive, camber thrust) */
    v4 fz, s_end, fx_end, fy_end, rolling; /* at the end of the substep */
    m4 contact;                            /* the ray meets the ground within droop */
    m4 loaded;
    m4 coulomb; /* friction as an explicit Coulomb force, not a damper */
    m4 sliding; /* locked by its brakes */
    m4 stick;   /* friction as the stick damper: the force would not keep its sign */
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

/* The system: M/h, the air drag as a damper on body x; M q0 / h plus
 * gravity and the explicit half of the gyroscopic torque, (L0 / 2) x w0
 * with half_l = L0 / 2; then the loaded wheels' dampers and explicit
 * forces and the bars, all four wheels at once, each entry summed over the
 * wheels by sum4x4.
 * A wheel's three dampers (n, e_x, e_y with c_n, c_x, c_y, at lever r)
 * exert -D v_c with v_c = v + w x r = v - [r]x w and D = c_n nn' + c_x e_x
 * e_x' + c_y e_y e_y'; as n, e_x, e_y are orthonormal, D = c_y I + (c_n -
 * c_y) nn' + (c_x - c_y) e_x e_x'. With P = D [r]x ([r]x v = r x v):
 *   T += D,  B += -P,  W += -[r]x P  (= [r]x' D [r]x, symmetric).
 * An axle's anti-roll bar is implicit in the travel difference: the bar's
 * force is arb (x_l - x_r) at the mean travels, whose part in the end rates
 * is h arb / 4 (xdot_l - xdot_r); with xdot = -(n . v_c) / cos the
 * increment on the left contact's normal force is -(h arb / 4) (g_l - g_r)
 * . q, g = [n; r x n] (+ on the right), exactly when both normals make the
 * same angle with the body (flat ground) and to first order otherwise. The
 * term (h arb / 4) j j', j = g_l - g_r, is symmetric and positive
 * semi-definite, and it is zero in heave: the bar adds no ride rate (seed
 * 000), not even a numerical one. A wheel not loaded drops out of j (its
 * strut is not pushed by the bar). The bar's terms ride in the left
 * wheels' lanes. */
VEC void build_system(system6 *restrict sy, const wheels *restrict q,
                      const pdk_fw_consts *restrict p, const double v[3], const double w[3],
                      const double grav[3], double c_drag, const double half_l[3])
{
    const m4 on = q->loaded;
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    const v4 n0 = keep(on, q->nx), n1 = keep(on, q->ny), n2 = keep(on, q->nz);
    const v4 e0 = q->exx, e1 = q->exy, e2 = q->exz;
    const v4 cy = keep(on, q->c_y);
    const v4 ka = keep(on, q->c_n) - cy;
    const v4 kb = keep(on, q->c_x) - cy;
    v4 an0 = ka * n0, an1 = ka * n1, an2 = ka * n2;
    v4 be0 = kb * e0, be1 = kb * e1, be2 = kb * e2;
    v4 d00 = cy + (an0 * n0 + be0 * e0);
    v4 d01 = an0 * n1 + be0 * e1;
    v4 d02 = an0 * n2 + be0 * e2;
    v4 d11 = cy + (an1 * n1 + be1 * e1);
    v4 d12 = an1 * n2 + be1 * e2;
    v4 d22 = cy + (an2 * n2 + be2 * e2);
    v4 p00 = d01 * r2 - d02 * r1, p01 = d02 * r0 - d00 * r2, p02 = d00 * r1 - d01 * r0;
    v4 p10 = d11 * r2 - d12 * r1, p11 = d12 * r0 - d01 * r2, p12 = d01 * r1 - d11 * r0;
    v4 p20 = d12 * r2 - d22 * r1, p21 = d22 * r0 - d02 * r2, p22 = d02 * r1 - d12 * r0;

    /* The bars: g = [n; r x n] of each loaded wheel, j = g_l - g_r in the
     * left lanes, c = h arb / 4 there and 0 in the right lanes. */
    v4 g3 = r1 * n2 - r2 * n1;
    v4 g4 = r2 * n0 - r0 * n2;
    v4 g5 = r0 * n1 - r1 * n0;
    v4 j0 = n0 - other4(n0), j1 = n1 - other4(n1), j2 = n2 - other4(n2);
    v4 j3 = g3 - other4(g3), j4 = g4 - other4(g4), j5 = g5 - other4(g5);
    const v4 cb = (v4){p->arb_quarter_h[0], 0.0, p->arb_quarter_h[2], 0.0};
    v4 c0 = cb * j0, c1 = cb * j1, c2 = cb * j2;
    v4 c3 = cb * j3, c4 = cb * j4, c5 = cb * j5;

    /* The explicit forces and their moments. */
    const v4 fn = keep(on, q->fn), fx = keep(on, q->fx), fy = keep(on, q->fy);
    v4 f0 = fn * n0 + fx * e0 + fy * q->eyx;
    v4 f1 = fn * n1 + fx * e1 + fy * q->eyy;
    v4 f2 = fn * n2 + fx * e2 + fy * q->eyz;

    /* -[r]x P: the rows of -[r]x are (0, rz, -ry), (-rz, 0, rx), (ry, -rx, 0). */
    const double mh = p->mass_per_h;
    const double *ih = p->inertia_per_h;
    sy->g[0] = sum4x4(d00 + c0 * j0, d01 + c0 * j1, d02 + c0 * j2, d11 + c1 * j1);
    sy->g[1] = sum4x4(d12 + c1 * j2, d22 + c2 * j2, (r2 * p10 - r1 * p20) + c3 * j3,
                      (r2 * p11 - r1 * p21) + c3 * j4);
    sy->g[2] = sum4x4((r2 * p12 - r1 * p22) + c3 * j5, (r0 * p21 - r2 * p01) + c4 * j4,
                      (r0 * p22 - r2 * p02) + c4 * j5, (r1 * p02 - r0 * p12) + c5 * j5);
    sy->g[3] = sum4x4(c0 * j3 - p00, c0 * j4 - p01, c0 * j5 - p02, f0);
    sy->g[4] = sum4x4(c1 * j3 - p10, c1 * j4 - p11, c1 * j5 - p12, f1);
    sy->g[5] = sum4x4(c2 * j3 - p20, c2 * j4 - p21, c2 * j5 - p22, f2);
    sy->g[6] = sum4x4(r1 * f2 - r2 * f1, r2 * f0 - r0 * f2, r0 * f1 - r1 * f0, splat(0.0));
    sy->g[0] += (v4){mh + c_drag, 0.0, 0.0, mh};
    sy->g[1] += (v4){0.0, mh, ih[0], 0.0};
    sy->g[2] += (v4){0.0, ih[1], 0.0, ih[2]};
    sy->g[3] += (v4){0.0, 0.0, 0.0, mh * v[0] + p->mass_kg * grav[0]};
    sy->g[4] += (v4){0.0, 0.0, 0.0, mh * v[1] + p->mass_kg * grav[1]};
    sy->g[5] += (v4){0.0, 0.0, 0.0, mh * v[2] + p->mass_kg * grav[2]};
    sy->g[6] += (v4){ih[0] * w[0] + (half_l[1] * w[2] - half_l[2] * w[1]),
                     ih[1] * w[1] + (half_l[2] * w[0] - half_l[0] * w[2]),
                     ih[2] * w[2] + (half_l[0] * w[1] - half_l[1] * w[0]), 0.0};
}

/* Solves the system for q = (v, w) by Gaussian elimination without
 * pivoting, in 3x3 blocks: T's block first (T is symmetric positive
 * definite: m/h I plus dampers), which leaves the Schur complement S = W +
 * G - B' T^-1 B for w; then v = T^-1 (rhs_v - B w). The symmetric part of
 * S is positive definite and its skew part is G (the file's comment), so
 * both 3x3 solves, by the adjugate, divide by a positive determinant. The
 * 3-vectors ride in the first three lanes of four. */
VEC void solve_system(const system6 *restrict sy, const double gyro[3], double q[6])
{
    const v4 g0 = sy->g[0], g1 = sy->g[1], g2 = sy->g[2];
    const double T00 = g0[0], T01 = g0[1], T02 = g0[2], T11 = g0[3], T12 = g1[0], T22 = g1[1];
    const double W00 = g1[2], W01 = g1[3], W02 = g2[0], W11 = g2[1], W12 = g2[2], W22 = g2[3];
    const v4 b0 = sy->g[3], b1 = sy->g[4], b2 = sy->g[5];
    /* T^-1 = adj(T) / det(T), symmetric: its rows are its columns. */
    double i0 = T11 * T22 - T12 * T12;
    double i1 = T02 * T12 - T01 * T22;
    double i2 = T01 * T12 - T02 * T11;
    double i3 = T00 * T22 - T02 * T02;
    double i4 = T01 * T02 - T00 * T12;
    double i5 = T00 * T11 - T01 * T01;
    v4 inv_det = splat(1.0 / (T00 * i0 + T01 * i1 + T02 * i2));
    const v4 t0 = (v4){i0, i1, i2, 0.0} * inv_det;
    const v4 t1 = (v4){i1, i3, i4, 0.0} * inv_det;
    const v4 t2 = (v4){i2, i4, i5, 0.0} * inv_det;
    /* X = T^-1 B by rows, y = T^-1 r_v. */
    const v4 x0 = splat(t0[0]) * b0 + splat(t0[1]) * b1 + splat(t0[2]) * b2;
    const v4 x1 = splat(t1[0]) * b0 + splat(t1[1]) * b1 + splat(t1[2]) * b2;
    const v4 x2 = splat(t2[0]) * b0 + splat(t2[1]) * b1 + splat(t2[2]) * b2;
    const v4 y = t0 * splat(b0[3]) + t1 * splat(b1[3]) + t2 * splat(b2[3]);
    /* S = W - B' X plus G = -[L0]x by rows, (B' X)_ij = sum_k B_ki X_kj;
     * z = r_w - B' y. */
    const v4 s0 = (v4){W00, W01 + gyro[2], W02 - gyro[1], 0.0} -
                  (splat(b0[0]) * x0 + splat(b1[0]) * x1 + splat(b2[0]) * x2);
    const v4 s1 = (v4){W01 - gyro[2], W11, W12 + gyro[0], 0.0} -
                  (splat(b0[1]) * x0 + splat(b1[1]) * x1 + splat(b2[1]) * x2);
    const v4 s2 = (v4){W02 + gyro[1], W12 - gyro[0], W22, 0.0} -
                  (splat(b0[2]) * x0 + splat(b1[2]) * x1 + splat(b2[2]) * x2);
    const v4 z = sy->g[6] - (b0 * splat(y[0]) + b1 * splat(y[1]) + b2 * splat(y[2]));
    /* w = adj(S) z / det(S). */
    double c00 = s1[1] * s2[2] - s1[2] * s2[1];
    double c01 = s0[2] * s2[1] - s0[1] * s2[2];
    double c02 = s0[1] * s1[2] - s0[2] * s1[1];
    double c10 = s1[2] * s2[0] - s1[0] * s2[2];
    double c11 = s0[0] * s2[2] - s0[2] * s2[0];
    double c12 = s0[2] * s1[0] - s0[0] * s1[2];
    double c20 = s1[0] * s2[1] - s1[1] * s2[0];
    double c21 = s0[1] * s2[0] - s0[0] * s2[1];
    double c22 = s0[0] * s1[1] - s0[1] * s1[0];
    double inv_s = 1.0 / (s0[0] * c00 + s0[1] * c10 + s0[2] * c20);
    double *wq = &q[3];
    wq[0] = (c00 * z[0] + c01 * z[1] + c02 * z[2]) * inv_s;
    wq[1] = (c10 * z[0] + c11 * z[1] + c12 * z[2]) * inv_s;
    wq[2] = (c20 * z[0] + c21 * z[1] + c22 * z[2]) * inv_s;
    /* v = y - X w, X w = T^-1 (B w). */
    double u0 = b0[0] * wq[0] + b0[1] * wq[1] + b0[2] * wq[2];
    double u1 = b1[0] * wq[0] + b1[1] * wq[1] + b1[2] * wq[2];
    double u2 = b2[0] * wq[0] + b2[1] * wq[1] + b2[2] * wq[2];
    v4 vq = y - (t0 * splat(u0) + t1 * splat(u1) + t2 * splat(u2));
    q[0] = vq[0];
    q[1] = vq[1];
    q[2] = vq[2];
}

/* The tyres' forces on the loaded wheels, from each wheel's load fz0 and
 * the contact's start velocity (u0, vlat0): the dampers c_x, c_y and the
 * explicit forces fx, fy along e_x, e_y. The linear tyre (Pacejka ch. 1) is
 * a lateral damper, F_y = -C alpha with tan(alpha) = v_lat / max(|u|,
 * floor), C proportional to the load; camber thrust and the drive are
 * explicit. Brakes, pawl and rolling resistance (capacity B) are Coulomb
 * friction: while the contact moves faster than PDK_FW_STICK_SPEED_MPS they
 * are the explicit force -B sign(u), exactly Coulomb's, and the solve
 * checks that u keeps its sign to the end of the substep (no force can
 * reverse it); a wheel slower than that, or one whose u would not keep its
 * sign (stick), takes them as the stiff damper B / max(|u|, stick) instead,
 * which stops it and cannot reverse it. A wheel whose brakes alone exceed
 * mu F_z is locked and slides, its friction mu F_z opposing the contact's
 * velocity in the plane (Pacejka ch. 3, full sliding), by the same two
 * modes. The resultant at the start velocity stays inside the friction
 * circle mu F_z: every coefficient and force is scaled down together where
 * it would not. Lanes of wheels not loaded are computed and ignored. */
VEC void tyre_forces(wheels *restrict q, const pdk_fw_consts *restrict cr,
                     const pdk_fw_cmd *restrict cmd, double rolling_coeff, double drive_n)
{
    const v4 fz0 = q->fz0;
    const v4 cap = load4(cr->mu) * fz0;
    const v4 hold = load4(cmd->hold_n);
    const v4 u = q->u0;
    const v4 vl = q->vlat0;
    const v4 au = abs4(u);
    const m4 free_ = ~q->stick;
    const v4 zero = splat(0.0);

    /* Locked and sliding (computed only when a wheel is). */
    const m4 sliding = ge4(hold, cap);
    m4 slide_coulomb = sliding & free_;
    v4 per = zero, c_s = zero;
    if (any4(sliding)) {
        v4 vp = u * u + vl * vl;
        vp = sqrt4(vp);
        slide_coulomb &= gt4(vp, splat(PDK_FW_STICK_SPEED_MPS));
        per = cap / sel(slide_coulomb, vp, splat(1.0));
        c_s = cap / max4(vp, splat(PDK_FW_STICK_SPEED_MPS));
    }

    /* Rolling. */
    const v4 floor_u = splat(PDK_FW_SLIP_SPEED_FLOOR_MPS);
    v4 c_y = load4(cr->cornering_per_n) * fz0 / max4(au, floor_u);
    v4 fx = splat(drive_n) * load4(cr->drive_share);
    /* Camber thrust comes from rolling: it grows with the contact's rolling
     * speed up to the slip floor and is whole above it, so a tyre at rest
     * pushes nowhere (a constant push against the standstill slip damper
     * would make a car in neutral creep). */
    const v4 rolling_share =
        sel(lt4(au, floor_u), au, floor_u) * splat(1.0 / PDK_FW_SLIP_SPEED_FLOOR_MPS);
    v4 fy = -(load4(cr->camber_per_n) * fz0 * q->camber * rolling_share);
    const v4 roll_n = splat(rolling_coeff) * fz0;
    const v4 res = hold + roll_n;
    const m4 coul = free_ & gt4(au, splat(PDK_FW_STICK_SPEED_MPS));
    const v4 sign = sel(gt4(u, zero), splat(1.0), splat(-1.0));
    fx = sel(coul, fx - sign * res, fx);
    v4 f_roll = keep(coul, -(sign * roll_n));
    const v4 inv = splat(1.0) / max4(au, splat(PDK_FW_STICK_SPEED_MPS));
    v4 c_x = sel(coul, zero, res * inv);
    v4 c_roll = sel(coul, zero, roll_n * inv);
    const v4 fx0 = fx - c_x * u;
    const v4 fy0 = fy - c_y * vl;
    const v4 f2 = fx0 * fx0 + fy0 * fy0;
    const m4 over = gt4(f2, cap * cap);
    if (any4(over)) {
        v4 root = sqrt4(f2);
        v4 scale = sel(over, cap / sel(over, root, splat(1.0)), splat(1.0));
        c_x = sel(over, c_x * scale, c_x);
        c_roll = sel(over, c_roll * scale, c_roll);
        c_y = sel(over, c_y * scale, c_y);
        fx = sel(over, fx * scale, fx);
        fy = sel(over, fy * scale, fy);
        f_roll = sel(over, f_roll * scale, f_roll);
    }

    q->sliding = sliding;
    q->coulomb = coul & gt4(res, zero);
    q->c_x = c_x;
    q->c_y = c_y;
    q->c_roll = c_roll;
    q->fx = fx;
    q->fy = fy;
    q->f_roll = f_roll;
    if (any4(sliding)) {
        q->coulomb = (sliding & slide_coulomb) | (~sliding & q->coulomb);
        q->c_x = sel(sliding, keep(~slide_coulomb, c_s), c_x);
        q->c_y = sel(sliding, keep(~slide_coulomb, c_s), c_y);
        q->c_roll = keep(~sliding, c_roll);
        q->fx = sel(sliding, keep(slide_coulomb, -(per * u)), fx);
        q->fy = sel(sliding, keep(slide_coulomb, -(per * vl)), fy);
        q->f_roll = keep(~sliding, f_roll);
    }
}

/* The camber inputs of wheel i where its axle (curves kin) has a camber
 * curve or is a solid axle: the sine and cosine of the wheel's inclination
 * to the body (or, on a solid axle with both wheels down, to the beam), as
 * the vector code's sg and cgam. */
static void camber_rare(const wheels *q, const pdk_fw_consts *p, const pdk_kinematics_def *kin,
                        int i, double *sg_out, double *cgam_out)
{
    const double side = (i & 1) ? -1.0 : 1.0;
    double sg = *sg_out, cgam = *cgam_out;
    if ((p->camber_curve >> i) & 1u) {
        double cam = p->static_camber_rad[i >> 1] + pdk_curve_eval(&kin->camber_rad, q->travel[i]);
        pdk_trig_sincos(-side * cam, &sg, &cgam);
    }
    int l = i & ~1, r = i | 1;
    if (((p->solid >> i) & 1u) && q->contact[l] != 0 && q->contact[r] != 0) {
        double by = q->ry[l] - q->ry[r];
        double bz = q->rz[l] - q->rz[r];
        double inv_b = 1.0 / sqrt(by * by + bz * bz);
        double sp = bz * inv_b;
        double cp = by * inv_b;
        double s2 = sp * cgam + cp * sg;
        cgam = cp * cgam - sp * sg;
        sg = s2;
    }
    *sg_out = sg;
    *cgam_out = cgam;
}

/* The pose where a tick began: all a fault needs of the start. */
typedef struct pose7 {
    double pos_m[3];
    double quat[4];
} pose7;

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
    double drive;               /* the drive force */
    double c_drag;              /* the air drag's damper on body x */
    double gyro[3];             /* L0 / 2 */
    double drag;                /* the drag force, for the channels */
    double sol[6];              /* the solve's end velocities (v, w) */
    pose7 start;                /* the pose where the tick began */
    /* The struts' values at the start (step 3), for the kinks. */
    v4 xt, xdot, spring, bump, k_bs, c, s_exp, link, xdot_c;
    m4 in_stop;
    m4 tried;   /* wheels that lifted off or were engaged */
    m4 entered; /* wheels whose bump stop was engaged */
    system6 sy;
} sub;

/* What one vehicle's step reads and writes: the world's arrays (or a
 * test's). */
typedef struct fw_vehicle {
    pdk_fw_state *st;
    const pdk_fw_cmd *cmd;
    const pdk_fw_consts *p;
    const pdk_kinematics_def *kin[2];
    double *ch;
} fw_vehicle;

/* The arguments of every phase: the vehicle vh, its substep in progress sv
 * and its wheels q. */
#define PHASE_ARGS const fw_vehicle *restrict vh, sub *restrict sv, wheels *restrict q

/* 1. and 2. of a substep: the body's velocity in its frame, each corner's
 * ray, the drive and the wheels' angles. */
VEC void geometry(PHASE_ARGS, const pdk_terrain_def *restrict terrain)
{
    pdk_fw_state *restrict st = vh->st;
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const double top = p->ride_ray_top_m;
    const double cg = p->cg_height_m;
    const v4 zero = splat(0.0);
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
    const double zb[3] = {rm.m[0][2], rm.m[1][2], rm.m[2][2]};
    const int upright = zb[2] > MIN_COS;
    const int flat = terrain->n_bumps == 0;
    const double inv_zb = upright ? 1.0 / zb[2] : 0.0;

    /* 1. Geometry: each corner's ray. The static contact point in the world
     * first, then the ray's origin above it, so that on flat ground at rest
     * the origin is exactly ride_ray_top_m above z = 0 and the travel is
     * exactly 0. */
    const v4 bx = load4(cr->x_m), by = load4(cr->y_m);
    const v4 droop = load4(cr->droop_m);
    v4 x = -droop;
    v4 nbx = zero, nby = zero, nbz = splat(1.0), inv_cos = splat(1.0);
    m4 contact = (m4){0, 0, 0, 0};
    if (upright && flat) {
        /* The ray against the plane z = 0: the distance o_z / (z_b)_z and
         * the normal e_z, R' e_z in the body. */
        v4 base_z = splat(rm.m[2][0]) * bx + splat(rm.m[2][1]) * by + splat(rm.m[2][2] * -cg);
        v4 origin_z = (splat(st->pos_m[2]) + base_z) + splat(top * zb[2]);
        v4 xf = splat(top) - origin_z * splat(inv_zb);
        contact = ge4(xf, -droop);
        nbx = splat(rm.m[2][0]);
        nby = splat(rm.m[2][1]);
        nbz = splat(rm.m[2][2]);
        inv_cos = splat(inv_zb);
        x = xf;
    } else if (upright) {
        const double dir[3] = {-zb[0], -zb[1], -zb[2]};
        for (int i = 0; i < PDK_WHEELS; i++) {
            const double b[3] = {bx[i], by[i], -cg};
            double base[3], origin[3], nw[3], nb[3];
            rot_apply(&rm, b, base);
            for (int j = 0; j < 3; j++) {
                origin[j] = (st->pos_m[j] + base[j]) + top * zb[j];
            }
            double xi = top - pdk_terrain_raycast(terrain, origin, dir, nw);
            rot_apply_t(&rm, nw, nb);
            if (!(xi >= -droop[i]) || !(nb[2] > MIN_COS)) {
                continue; /* in the air (or the strut lies along the ground) */
            }
            contact[i] = -1;
            x[i] = xi;
            nbx[i] = nb[0];
            nby[i] = nb[1];
            nbz[i] = nb[2];
            inv_cos[i] = 1.0 / nb[2];
        }
    }
    q->contact = contact;
    q->travel = sel(contact, x, -droop);
    q->rx = bx;
    q->ry = by;
    q->rz = splat(-cg) + q->travel;
    q->nx = keep(contact, nbx);
    q->ny = keep(contact, nby);
    q->nz = sel(contact, nbz, splat(1.0));
    q->inv_cos = sel(contact, inv_cos, splat(1.0));

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
    sv->drive = drive;

    /* 2. Angles: Ackermann and static toe from the command, the toe curve
     * where there is one (toe-in turns the left wheel right and the right
     * wheel left). */
    const v4 side = (v4){1.0, -1.0, 1.0, -1.0}; /* +1 left, -1 right */
    v4 sd = load4(cmd->wheel_sin);
    v4 cd = load4(cmd->wheel_cos);
    v4 delta = load4(cmd->wheel_steer_rad);
    v4 toe = load4(cr->static_toe_rad);
    if (cr->toe_curve != 0u) {
        for (int i = 0; i < PDK_WHEELS; i++) {
            if ((cr->toe_curve >> i) & 1u) {
                double toe_c = pdk_curve_eval(&kin[i >> 1]->toe_rad, q->travel[i]);
                toe[i] += toe_c;
                delta[i] -= side[i] * toe_c;
                double s_i, c_i;
                pdk_trig_sincos(delta[i], &s_i, &c_i);
                sd[i] = s_i;
                cd[i] = c_i;
            }
        }
    }
    q->delta = delta;
    q->sin_d = sd;
    q->cos_d = cd;
    q->toe = toe;
}

/* 2. of a substep, continued: the tyre frame, the contacts' velocities at
 * the start and the camber. */
VEC void frame(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const double *v = sv->v, *w = sv->w;
    const m4 contact = q->contact;
    const v4 sd = q->sin_d, cd = q->cos_d;
    const v4 zero = splat(0.0);
    const int last = sv->last;

    /* The heading (cos d, sin d, 0) projected on the contact plane gives
     * the tyre frame. */
    const v4 n0 = q->nx, n1 = q->ny, n2 = q->nz;
    v4 fdn = cd * n0 + sd * n1;
    v4 ex0 = cd - fdn * n0, ex1 = sd - fdn * n1, ex2 = -(fdn * n2);
    v4 len2 = ex0 * ex0 + ex1 * ex1 + ex2 * ex2;
    v4 inv = splat(1.0) / sqrt4(len2);
    ex0 *= inv;
    ex1 *= inv;
    ex2 *= inv;
    q->exx = ex0;
    q->exy = ex1;
    q->exz = ex2;
    q->eyx = n1 * ex2 - n2 * ex1;
    q->eyy = n2 * ex0 - n0 * ex2;
    q->eyz = n0 * ex1 - n1 * ex0;

    /* The contact's velocity and the strut's compression rate. */
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    v4 vc0 = splat(v[0]) + (splat(w[1]) * r2 - splat(w[2]) * r1);
    v4 vc1 = splat(v[1]) + (splat(w[2]) * r0 - splat(w[0]) * r2);
    v4 vc2 = splat(v[2]) + (splat(w[0]) * r1 - splat(w[1]) * r0);
    q->xdot = -(n0 * vc0 + n1 * vc1 + n2 * vc2) * q->inv_cos;
    q->u0 = ex0 * vc0 + ex1 * vc1 + ex2 * vc2;
    q->vlat0 = q->eyx * vc0 + q->eyy * vc1 + q->eyz * vc2;

    /* Camber: the spin axis (-sin d, cos d, 0) tilted about body x by the
     * wheel's inclination to the body, gamma = -side * camber (alignment
     * camber, negative top-in), or on a solid axle with both wheels down by
     * the beam's roll psi relative to the body on top; Camber = asin(axis .
     * n). Only the thrust and the telemetry read it. */
    v4 cpn = load4(cr->camber_per_n);
    m4 need = last ? (m4){-1, -1, -1, -1} : contact & ~(m4)(cpn == zero);
    if (any4(need)) {
        v4 sg = load4(cr->sin_camber);
        v4 cgam = load4(cr->cos_camber);
        uint32_t rare = (cr->camber_curve | cr->solid) & bits4(need);
        for (int i = 0; rare != 0u && i < PDK_WHEELS; i++) {
            if ((rare >> i) & 1u) {
                double sg_i = sg[i], cg_i = cgam[i];
                camber_rare(q, p, kin[i >> 1], i, &sg_i, &cg_i);
                sg[i] = sg_i;
                cgam[i] = cg_i;
            }
        }
        v4 arg = -(sd * n0) + cd * (cgam * n1 + sg * n2);
        q->camber = keep(need, asin4(keep(need, arg)));
    } else {
        q->camber = zero;
    }
}

/* 3. of a substep: the struts, the links, which wheels are loaded, and the
 * tyres' forces; and what the passes of the solve start from. */
VEC void struts(PHASE_ARGS)
{
    const pdk_fw_state *restrict st = vh->st;
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const double h = p->h_s;
    const double *v = sv->v, *w = sv->w;
    const m4 contact = q->contact;
    const v4 n2 = q->nz;
    const v4 side = (v4){1.0, -1.0, 1.0, -1.0}; /* +1 left, -1 right */
    const v4 zero = splat(0.0);
    const double drive = sv->drive;

    /* 3. Struts: S_exp = k (s0 + x) + arb (x - x_other) + bump stop, written
     * with the static load plus k x, exactly the static load at the ride
     * position; damper bump or rebound by the sign of xdot. */
    const v4 xt = q->travel;
    const v4 xdot = q->xdot;
    const v4 spring = load4(cr->spring_npm);
    v4 s_exp = load4(cr->static_load_n) + spring * xt + load4(cr->arb_npm) * (xt - other4(xt));
    const v4 bump = load4(cr->bump_m);
    const m4 in_stop = gt4(xt, bump);
    const v4 k_bs = load4(cr->bump_stop_npm);
    s_exp = sel(in_stop, s_exp + k_bs * (xt - bump), s_exp);
    const v4 k_tot = sel(in_stop, spring + k_bs, spring);
    const v4 c = sel(gt4(xdot, zero), load4(cr->bump_nspm), load4(cr->rebound_nspm));
    const v4 s0 = s_exp + c * xdot;

    /* Lateral links: the roll-centre couple, or per wheel with a
     * roll-centre curve (jacking where the two do not cancel). */
    const v4 fy_prev = load4(st->prev_fy_n);
    v4 link_rc = -side * (fy_prev + other4(fy_prev)) * load4(cr->rc_per_track);
    const m4 per_wheel = load_mask(cr->per_wheel_links);
    if (cr->per_wheel_any) {
        v4 hrc = load4(cr->rc_height_m);
        for (int i = 0; cr->rc_curve != 0u && i < PDK_WHEELS; i++) {
            if ((cr->rc_curve >> i) & 1u) {
                hrc[i] += pdk_curve_eval(&kin[i >> 1]->roll_center_height_m, xt[i]);
            }
        }
        link_rc = sel(per_wheel, -side * fy_prev * hrc * load4(cr->two_per_track), link_rc);
    }
    /* Pitch links: anti-brake when the force opposes the rolling, else
     * anti-drive; static plus curve. */
    const v4 fx_prev = load4(st->prev_fx_n);
    const v4 u0 = q->u0;
    const m4 braking = (lt4(fx_prev, zero) & ge4(u0, zero)) | (gt4(fx_prev, zero) & lt4(u0, zero));
    v4 anti_b = load4(cr->anti_brake);
    v4 anti_d = load4(cr->anti_drive);
    if ((cr->anti_brake_curve | cr->anti_drive_curve) != 0u) {
        for (int i = 0; i < PDK_WHEELS; i++) {
            const pdk_kinematics_def *ki = kin[i >> 1];
            if ((cr->anti_brake_curve >> i) & 1u) {
                anti_b[i] += pdk_curve_eval(&ki->anti_brake, xt[i]);
            }
            if ((cr->anti_drive_curve >> i) & 1u) {
                anti_d[i] += pdk_curve_eval(&ki->anti_drive, xt[i]);
            }
        }
    }
    const v4 anti = sel(braking, anti_b, anti_d);
    const v4 link_pitch = anti * fx_prev * load4(cr->pitch_arm);
    const v4 link = link_rc + link_pitch;
    const v4 fz0 = n2 * s0 + link;
    /* The ground never pulls: a strut or tyre load that would be negative
     * leaves the wheel unloaded. */
    const m4 loaded = contact & gt4(s0, zero) & gt4(fz0, zero);

    /* The trapezoidal rule: the force at the mean of the start and end
     * travel and rate, S = s_exp + c_n (xdot0 + xdot1) with c_n = c / 2 +
     * h k / 4; the bar's rate part likewise (its explicit half here, its
     * implicit half in build_system). */
    const v4 c_n = splat(0.5) * c + splat(0.25 * h) * k_tot;
    const v4 xdot_c = keep(contact, xdot);
    const v4 s_mid = s_exp + c_n * xdot + load4(cr->arb_quarter_h) * (xdot - other4(xdot_c));
    q->loaded = loaded;
    q->link_rc = link_rc; /* kept for the wheels loaded at the end (step 5) */
    q->link_pitch = link_pitch;
    q->s_exp = keep(loaded, s_mid);
    q->fn = keep(loaded, n2 * s_mid + link);
    q->c_n = keep(loaded, c_n);
    q->fz0 = fz0;
    q->stick = (m4){0, 0, 0, 0};
    tyre_forces(q, cr, cmd, p->rolling_coeff, drive);

    /* 4. The implicit solve; again without a wheel whose normal force would
     * be negative (it lifts off), with the stick damper on a wheel whose
     * Coulomb force would not keep its sign (tyre_forces), and with the
     * strut of a wheel that crosses a kink of its force during the substep
     * (into its bump stop, or from unloaded to pushing) taken at the end
     * travel (ADR 0007, "Kinks"). Each pass changes a wheel one way only,
     * once per kind, so there are at most seventeen. */
    const double c_drag = p->drag_n_per_mps2 * fabs(v[0]);
    /* The gyroscopic torque at the mean rate, -(w_avg x L0) with L0 = I w0:
     * half of it in the matrix (G = -[L0 / 2]x), half explicit. */
    const double gyro[3] = {0.5 * (p->inertia_kgm2[0] * w[0]), 0.5 * (p->inertia_kgm2[1] * w[1]),
                            0.5 * (p->inertia_kgm2[2] * w[2])};
    sv->xt = xt;
    sv->xdot = xdot;
    sv->spring = spring;
    sv->bump = bump;
    sv->k_bs = k_bs;
    sv->c = c;
    sv->s_exp = s_exp;
    sv->link = link;
    sv->xdot_c = xdot_c;
    sv->in_stop = in_stop;
    sv->c_drag = c_drag;
    for (int j = 0; j < 3; j++) {
        sv->gyro[j] = gyro[j];
    }
    sv->tried = (m4){0, 0, 0, 0};
    sv->entered = (m4){0, 0, 0, 0};
}

/* 4. of a substep, a pass of the solve: the system (build_system), its
 * solution (solve_system), and check_pass. */
VEC void build_pass(PHASE_ARGS)
{
    build_system(&sv->sy, q, vh->p, sv->v, sv->w, sv->grav, sv->c_drag, sv->gyro);
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
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const double *sol = sv->sol;
    const double h = p->h_s;
    const m4 contact = q->contact;
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    const v4 n0 = q->nx, n1 = q->ny, n2 = q->nz;
    const v4 xt = sv->xt, xdot = sv->xdot, spring = sv->spring, bump = sv->bump, k_bs = sv->k_bs;
    const v4 c = sv->c, s_exp = sv->s_exp, link = sv->link, xdot_c = sv->xdot_c;
    const m4 in_stop = sv->in_stop;
    const double drive = sv->drive;
    const v4 zero = splat(0.0);
    const v4 arb_qh = load4(cr->arb_quarter_h);
    const v4 half_h = splat(0.5 * h);
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
    if (pass + 1 >= MAX_SOLVES) {
        return;
    }
    m4 lift = q->loaded & lt4(q->fz, zero);
    m4 check = q->loaded & ~lift & q->coulomb;
    m4 to_stick = (m4){0, 0, 0, 0};
    if (any4(check)) {
        /* The end velocity along the start's direction of motion (in
         * the plane for a sliding wheel, along e_x else). */
        v4 u = q->exx * q->vcx + q->exy * q->vcy + q->exz * q->vcz;
        v4 along = sel(gt4(q->u0, zero), u, -u);
        v4 start = splat(1.0);
        if (any4(q->sliding & check)) {
            v4 ul = q->eyx * q->vcx + q->eyy * q->vcy + q->eyz * q->vcz;
            v4 sp2 = q->u0 * q->u0 + q->vlat0 * q->vlat0;
            v4 sp = sqrt4(sp2);
            along = sel(q->sliding, u * q->u0 + ul * q->vlat0, along);
            start = sel(q->sliding, sp, start);
        }
        to_stick = check & ~gt4(along, splat(PDK_FW_STICK_SPEED_MPS) * start);
    }
    /* Kinks. The end travel x1 = x0 + h (xdot0 + xdot1) / 2 (the
     * position advances by the mean velocity). A loaded strut that
     * enters its bump stop takes the stop's force k_bs (x1 - bump) at
     * that end travel; a wheel in contact but unloaded whose strut would
     * push at the end (the force it would then take, spring and stop at
     * x1, bar and damper as on every wheel, and its normal load
     * positive) is loaded with its spring and stop at x1. */
    m4 enter = (m4){0, 0, 0, 0};
    m4 engage = (m4){0, 0, 0, 0};
    const m4 cand_enter = q->loaded & ~lift & ~in_stop & ~entered;
    const m4 cand_engage = contact & ~q->loaded & ~tried;
    if (any4(cand_enter | cand_engage)) {
        const v4 xdot1 = -(vn_all * q->inv_cos);
        const v4 x1 = xt + half_h * (xdot + xdot1);
        const m4 past = gt4(x1, bump);
        enter = cand_enter & past;
        if (any4(enter)) {
            const v4 add = k_bs * (xt - bump) + half_h * k_bs * xdot;
            q->s_exp = sel(enter, q->s_exp + add, q->s_exp);
            q->fn = sel(enter, q->fn + n2 * add, q->fn);
            q->c_n = sel(enter, q->c_n + half_h * k_bs, q->c_n);
        }
        if (any4(cand_engage)) {
            /* The stop as it stands at x1: in it or not. */
            const v4 k_e = sel(past, spring + k_bs, spring);
            const v4 stop_e = keep(past & ~in_stop, k_bs * (xt - bump)) -
                              keep(in_stop & ~past, k_bs * (xt - bump));
            const v4 c_n_e = splat(0.5) * c + half_h * k_e;
            const v4 s_mid_e = s_exp + stop_e + c_n_e * xdot + arb_qh * (xdot - other4(xdot_c));
            const v4 s1 = s_mid_e + c_n_e * xdot1 + arb_qh * (xdot1 - other4(keep(contact, xdot1)));
            const v4 fz1 = n2 * s1 + link;
            engage = cand_engage & gt4(s1, zero) & gt4(fz1, zero);
            if (any4(engage)) {
                q->s_exp = sel(engage, s_mid_e, q->s_exp);
                q->fn = sel(engage, n2 * s_mid_e + link, q->fn);
                q->c_n = sel(engage, c_n_e, q->c_n);
                q->fz0 = sel(engage, fz1, q->fz0); /* the tyre works with the end load */
            }
        }
    }
    if (!any4(lift | to_stick | enter | engage)) {
        return;
    }
    q->loaded = (q->loaded & ~lift) | engage;
    tried |= lift | engage;
    entered |= enter | engage;
    q->stick |= to_stick;
    tyre_forces(q, cr, cmd, p->rolling_coeff, drive);
    sv->tried = tried;
    sv->entered = entered;
    sv->more = 1;
}

/* 5. and 6. of a substep: the end forces, and the integration. */
VEC void integrate(PHASE_ARGS)
{
    pdk_fw_state *restrict st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    const double h = p->h_s;
    const double *sol = sv->sol;
    const double *v = sv->v, *w = sv->w, *grav = sv->grav;
    const double c_drag = sv->c_drag;
    const mat3 rm = sv->rm;
    const v4 zero = splat(0.0);

    /* 5. The end-of-substep forces, for telemetry and the next substep's
     * links (the force each contact puts on the body, in body x and y). */
    {
        const m4 on = q->loaded;
        v4 u = q->exx * q->vcx + q->exy * q->vcy + q->exz * q->vcz;
        v4 vl = q->eyx * q->vcx + q->eyy * q->vcy + q->eyz * q->vcz;
        v4 fx_end = keep(on, q->fx - q->c_x * u);
        v4 fy_end = keep(on, q->fy - q->c_y * vl);
        q->fx_end = fx_end;
        q->fy_end = fy_end;
        q->rolling = keep(on, q->f_roll - q->c_roll * u);
        q->fz = keep(on, q->fz);
        q->s_end = keep(on, max4(q->s_end, zero));
        q->link_rc = keep(on, q->link_rc);
        q->link_pitch = keep(on, q->link_pitch);
        store4(st->prev_fx_n, keep(on, fx_end * q->exx + fy_end * q->eyx));
        store4(st->prev_fy_n, keep(on, fx_end * q->exy + fy_end * q->eyy));
    }
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
    return any4(~(m4)(z == splat(0.0)));
}

/* The fault (as pdk_st_step's): the vehicle stays at the pose where the tick
 * began, with no velocity, and reports so. */
static void fault(pdk_fw_state *s, const pose7 *start, const pdk_fw_cmd *cmd,
                  const pdk_fw_consts *p, double *ch)
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
    ch[PDK_CH_TYRE_LOAD_F] = 2.0 * p->static_load_n[PDK_FL];
    ch[PDK_CH_TYRE_LOAD_R] = 2.0 * p->static_load_n[PDK_RL];
    for (int i = 0; i < PDK_WHEELS; i++) {
        ch[PDK_CH_TYRE_LOAD_FL + i] = p->static_load_n[i];
        ch[PDK_CH_WHEEL_STEER_FL + i] = cmd->wheel_steer_rad[i];
    }
    ch[PDK_CH_FAULTED] = 1.0;
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
#undef WHEEL_ROW

/* The tick's end: the quaternion renormalised, rest, and the fault check
 * (a fault writes the channels too). Returns whether the vehicle faulted. */
VEC int settle(pdk_fw_state *s, const pose7 *start_pose, const pdk_fw_cmd *cmd,
               const pdk_fw_consts *p, double *ch)
{
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
    if (state_broken(s)) {
        fault(s, start_pose, cmd, p, ch);
        return 1;
    }
    return 0;
}

/* The channels of a vehicle that settled without a fault, from its state
 * and the last substep's wheels. */
VEC void telemetry(const pdk_fw_state *s, const pdk_fw_cmd *cmd, const wheels *q, double drag,
                   double *ch)
{
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
    v4 u = q->exx * q->vcx + q->exy * q->vcy + q->exz * q->vcz;
    v4 vl = q->eyx * q->vcx + q->eyy * q->vcy + q->eyz * q->vcz;
    v4 slip = atan2_4(vl, max4(abs4(u), splat(PDK_FW_SLIP_SPEED_FLOOR_MPS)));
    store4(&ch[PDK_CH_SUSP_TRAVEL_FL], q->travel);
    store4(&ch[PDK_CH_SUSP_FORCE_FL], q->s_end);
    store4(&ch[PDK_CH_WHEEL_STEER_FL], q->delta);
    store4(&ch[PDK_CH_CAMBER_FL], q->camber);
    store4(&ch[PDK_CH_TOE_FL], q->toe);
    store4(&ch[PDK_CH_TYRE_LOAD_FL], q->fz);
    store4(&ch[PDK_CH_SLIP_ANGLE_FL], slip);
    store4(&ch[PDK_CH_FORCE_X_FL], q->fx_end);
    store4(&ch[PDK_CH_FORCE_Y_FL], q->fy_end);
    ch[PDK_CH_ROLLING] = ((q->rolling[0] + q->rolling[1]) + q->rolling[2]) + q->rolling[3];
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
}

/* Steps the n vehicles of vs_in (1..PDK_FW_GROUP) by one tick: each phase
 * of a substep (sub) for every one of them in turn, then each one's tick's
 * end. Inlined into the step's builds below, each for one n. */
VEC void step_group(const fw_vehicle *vs_in, int n, const pdk_terrain_def *terrain, int substeps)
{
    /* The pointers in a copy of its own, which the compiler can see no store
     * reach (else it reloads them after every store to a state). */
    fw_vehicle vs[PDK_FW_GROUP];
    sub svs[PDK_FW_GROUP];
    wheels qs[PDK_FW_GROUP];
    for (int j = 0; j < n; j++) {
        vs[j] = vs_in[j];
        for (int k = 0; k < 3; k++) {
            svs[j].start.pos_m[k] = vs[j].st->pos_m[k];
        }
        for (int k = 0; k < 4; k++) {
            svs[j].start.quat[k] = vs[j].st->quat[k];
        }
        svs[j].drag = 0.0;
    }
    for (int k = 0; k < substeps; k++) {
        for (int j = 0; j < n; j++) {
            svs[j].last = k == substeps - 1;
            geometry(&vs[j], &svs[j], &qs[j], terrain);
        }
        for (int j = 0; j < n; j++) {
            frame(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            struts(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            build_pass(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            solve_pass(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            check_pass(&vs[j], &svs[j], &qs[j], 0);
        }
        /* The rare further passes, one vehicle at a time. */
        for (int j = 0; j < n; j++) {
            for (int pass = 1; svs[j].more; pass++) {
                build_pass(&vs[j], &svs[j], &qs[j]);
                solve_pass(&vs[j], &svs[j], &qs[j]);
                check_pass(&vs[j], &svs[j], &qs[j], pass);
            }
        }
        for (int j = 0; j < n; j++) {
            integrate(&vs[j], &svs[j], &qs[j]);
        }
    }
    int faulted[PDK_FW_GROUP];
    for (int j = 0; j < n; j++) {
        const pose7 start = svs[j].start; /* fault takes its address, not svs's */
        faulted[j] = settle(vs[j].st, &start, vs[j].cmd, vs[j].p, vs[j].ch);
    }
    for (int j = 0; j < n; j++) {
        if (!faulted[j]) {
            telemetry(vs[j].st, vs[j].cmd, &qs[j], svs[j].drag, vs[j].ch);
        }
    }
}

/* The step compiled for the processor's baseline: the reference. One
 * vehicle, or PDK_FW_GROUP side by side, each a build of its own (the count
 * a constant in it). */
static void group_portable(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                           int substeps)
{
    if (n == 1) {
        step_group(vs, 1, terrain, substeps);
    } else {
        step_group(vs, PDK_FW_GROUP, terrain, substeps);
    }
}

/* On x86-64 the same code compiled for AVX, whose four-wide vectors hold
 * the four wheels in one register; __builtin_cpu_supports picks it at run
 * time, so the library still runs on any x86-64. The vector operations are
 * the same IEEE operations in both builds (no fused multiply-add: AVX has
 * none, and -ffp-contract=off forbids forming them), so the two give the
 * same bits (tests/unit/test_four_wheel.c checks it). Not a wider set:
 * AVX2 measured no faster, and with AVX-512 (avx512f, vl, dq, bw) GCC 12
 * made fused multiply-add-subtracts of a vector product and an alternating
 * add and subtract, -ffp-contract=off notwithstanding, which changes bits. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void group_avx(const fw_vehicle *vs, int n,
                                                     const pdk_terrain_def *terrain, int substeps)
{
    if (n == 1) {
        step_group(vs, 1, terrain, substeps);
    } else {
        step_group(vs, PDK_FW_GROUP, terrain, substeps);
    }
}
#endif

/* Steps vs[0..n), n 1 or PDK_FW_GROUP, by the AVX build where the processor
 * has AVX and portable is 0, else by the baseline build. */
static void group_step(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain, int substeps,
                       int portable)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (!portable && __builtin_cpu_supports("avx")) {
        group_avx(vs, n, terrain, substeps);
        return;
    }
#else
    (void)portable;
#endif
    group_portable(vs, n, terrain, substeps);
}

void pdk_fw_step(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                 const pdk_terrain_def *terrain, int substeps, double *ch)
{
    const fw_vehicle v = {s, cmd, &p->c, {&p->axle[0].kin, &p->axle[1].kin}, ch};
    group_step(&v, 1, terrain, substeps, 0);
}

void pdk_fw_step_portable(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                          const pdk_terrain_def *terrain, int substeps, double *ch)
{
    const fw_vehicle v = {s, cmd, &p->c, {&p->axle[0].kin, &p->axle[1].kin}, ch};
    group_step(&v, 1, terrain, substeps, 1);
}

static int step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts,
                      const pdk_kinematics_def *const *kin_front,
                      const pdk_kinematics_def *const *kin_rear, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps, int portable)
{
    int faults = 0;
    for (int i = 0, n = 0; i < count; i += n) {
        n = count - i >= PDK_FW_GROUP ? PDK_FW_GROUP : 1;
        fw_vehicle vs[PDK_FW_GROUP];
        for (int j = 0; j < n; j++) {
            const fw_vehicle v = {states[i + j],
                                  cmds[i + j],
                                  consts[i + j],
                                  {kin_front[i + j], kin_rear[i + j]},
                                  channels[i + j]};
            vs[j] = v;
        }
        group_step(vs, n, terrain, substeps, portable);
        for (int j = 0; j < n; j++) {
            faults += states[i + j]->faulted != 0u;
        }
    }
    return faults;
}

int pdk_fw_step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts,
                      const pdk_kinematics_def *const *kin_front,
                      const pdk_kinematics_def *const *kin_rear, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps)
{
    return step_batch(states, cmds, consts, kin_front, kin_rear, channels, count, terrain, substeps,
                      0);
}

int pdk_fw_step_batch_portable(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                               const pdk_fw_consts *const *consts,
                               const pdk_kinematics_def *const *kin_front,
                               const pdk_kinematics_def *const *kin_rear, double *const *channels,
                               int count, const pdk_terrain_def *terrain, int substeps)
{
    return step_batch(states, cmds, consts, kin_front, kin_rear, channels, count, terrain, substeps,
                      1);
}
