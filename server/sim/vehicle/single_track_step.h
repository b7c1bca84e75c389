/* One tick of the single-track model, written once over lanes, one
 * vehicle per lane (lanes.h): the frame rotation, loads, drive, brakes and
 * resistances, the implicit lateral solve, the longitudinal stick/slip
 * solve and the kinematics, repeated per substep, then the vehicles'
 * telemetry channels. Every implicit part is solved in closed form, so the
 * cost per substep is fixed in the common case: a few divisions and one
 * square root at most.
 *
 * single_track.c compiles this over four lanes for the baseline
 * instruction set and single_track_avx.c for AVX2; single_track_lone.c
 * compiles it for a vehicle stepped alone, in both lanes of a two-lane
 * register (ST_LONE); all three give the same bits. Each lane
 * performs the IEEE operations of the formula on its vehicle's operands in
 * the same order, whatever its neighbours; a branch is a select between
 * values each computed exactly, or a branch on all lanes agreeing; the rare
 * cases (a large turn, a wrapped heading, a contact problem that neither
 * rolls nor rests) are solved lane by lane by scalar code. So a vehicle's
 * state and channels depend neither on the processor nor on the fleet.
 * (Lanes compute values that a lane's own case does not need and then drop
 * them, so the floating-point exception flags may differ; sim never reads
 * or traps on them.)
 *
 * The scheme, per substep of length h, for q = (vx, vy, r) and the body
 * equations of motion m (dvx/dt - r vy) = Fx, m (dvy/dt + r vx) = Fy,
 * Iz dr/dt = Mz (Pacejka, Tire and Vehicle Dynamics, ch. 1), splits the
 * motion into the body frame's turn and the forces, and composes them
 * symmetrically: half the turn, the force step, the other half (Strang
 * splitting; Hairer, Lubich and Wanner, Geometric Numerical Integration,
 * ch. II.5), second order in h where each part is.
 *  1. The body frame turns by half the heading change, t = h r / 2.
 *     Velocities are carried over into the new frame exactly, q* =
 *     (R(-t) (vx, vy), r): the turn is the whole of the r vy and r vx
 *     terms, a rotation (its determinant is cos^2 t + sin^2 t = 1, and it
 *     keeps |v| itself, not only areas), so it neither adds nor removes
 *     energy; a car spinning on ice keeps its speed, and its world-frame
 *     velocity, to rounding.
 *  2. Forces act in that frame: D (q1 - q*) = F for the velocities q1 after
 *     the force step, with D = diag(m, m, Iz) / h and the laws'
 *     coefficients frozen at q*. Lateral tyre forces are dampers,
 *     F_lat = -c (n . q_th) along n = n_f, n_r (below), on the weighted
 *     velocity q_th = (1 - th) q* +
 *     th q1 of the theta-method, with th = (1 + x) / (2 + x) for each axle's
 *     x = c tr S, S = N' D^-1 N, N = [n_f n_r] (x is h c / m and more: the
 *     damper's stiffness against the substep). Where the damper is soft
 *     against the substep (x -> 0) th -> 1/2, the trapezoidal rule, second
 *     order; th - 1/2 = x / (2 (2 + x)) is itself of order h, so the step
 *     stays second order. Where it is stiff (a slow car: c = C_alpha / |u|)
 *     th -> 1, backward Euler: the trapezoidal rule's factor per substep
 *     on a damper alone (x = h c / m), (1 - x/2) / (1 + x/2), tends to -1
 *     there and a slow car would ring at the substep rate; with this th
 *     the factor is
 *     1 / (1 + x + x^2/2), the (0,2) Pade approximant of exp(-x), which is
 *     positive and tends to 0 (L-stable) (Hairer and Wanner, Solving
 *     Ordinary Differential Equations II, sec. IV.3 on the theta-method's
 *     stability function, IV.4 on the Pade approximations). The
 *     longitudinal forces are Coulomb friction on the front wheel-plane
 *     speed u_f = t_f . q1 and on vx = e_x . q1, whichever way those end up
 *     pointing: at the end velocities, so that a braked wheel stops and
 *     holds instead of reversing.
 *     The position advances by h times the mean of the world-frame
 *     velocities before and after the force step (the turns leave them
 *     unchanged).
 *  3. The frame turns by the other half, h r1 / 2 at the new yaw rate.
 *     Within a tick this half and the next substep's first, both at the
 *     same r1, are one turn by h r1 (the same composition, one rotation
 *     less per substep); the tick's last substep has its own
 *     (st_group_end_turn).
 * Why it cannot blow up: T(q) = h (q . D q) / 2 is the kinetic energy, and
 * with Dl = q1 - q*, T(q1) - T(q*) = h q1 . F - h Dl . D Dl / 2. The
 * longitudinal forces do h q1 . F_lon <= 0 without drive (Coulomb friction
 * opposing its own contact velocity or holding it at zero), and the drive
 * at most its power. For the dampers, let a = N' q1 and b = N' q* be the
 * slip velocities after and before; Dl . D Dl >= (a - b)' S^-1 (a - b)
 * >= |a - b|^2 / tr S (the least D-norm of a change with the given slip
 * change, and tr S bounds S's eigenvalues). So each axle adds at most
 * -c a ((1 - th) b + th a) - (a - b)^2 / (2 tr S), a quadratic form in
 * (a, b) that is never positive when x (1 - th)^2 <= 2 (its discriminant);
 * with th as above, x (1 - th)^2 = x / (2 + x)^2 <= 1/8. With no drive
 * the energy never increases, whatever the parameters and the substep;
 * the drive adds at most its power. The linear system D + th_f c_f n_f
 * n_f' + th_r c_r n_r n_r' is symmetric positive definite, so it always has
 * a solution. The steady state's error of the splitting is of order
 * (h r)^2, below the tests' tolerance on Pacejka's steady state. */
#ifndef PDK_SINGLE_TRACK_STEP_H
#define PDK_SINGLE_TRACK_STEP_H

#include <math.h>
#include <stdint.h>

#include "math/lanes.h" /* v4, m4, lane2, mask2, VEC and the primitives of each width */
#include "math/trig.h"  /* sincos4, atan2_4, sincos2, atan2_2 */
#include "sim/channels.h"
#include "vehicle/single_track.h"

#define PDK_ST_PI 3.14159265358979323846

/* Above this turn of the frame (rad; a turn is half or all of a substep's
 * heading change) sin and cos of the turn come from pdk_trig_sincos and the heading
 * from the yaw angle, instead of a short series. */
#define PDK_ST_SMALL_TURN_RAD 0.1

/* The longitudinal contact problem of a substep once the lateral dampers are
 * eliminated: the end speeds are affine in the front and rear forces,
 *   u_f' = uf0 + wff Ff + wfr Fr,   vx' = vr0 + wfr Ff + wrr Fr,
 * with W = [wff wfr; wfr wrr] = [t_f e_x]' A^-1 [t_f e_x] symmetric positive
 * semi-definite (A is the system matrix of the implicit solve). Each axle's
 * force lies in its range and opposes its own speed, or holds that speed at
 * zero. The rear range includes the air drag (a resistance on vx like the
 * others). */
typedef struct pdk_st_contact {
    double uf0, vr0, wff, wfr, wrr;
    double lo_f, mid_f, hi_f;
    double lo_r, mid_r, hi_r;
    int straight; /* sin d == 0: u_f' == vx', one speed for both axles */
} pdk_st_contact;

typedef struct pdk_st_contact_result {
    double ff, fr;
    int rear_held; /* vx' is exactly zero */
    int held;      /* some axle holds its speed at zero */
} pdk_st_contact_result;

/* Solves one lane's contact problem when neither both-forward nor
 * both-backward sliding nor exact rest is the answer. In single_track.c. */
void pdk_st_contact_solve(const pdk_st_contact *pb, pdk_st_contact_result *res);

/* Faults a vehicle whose tick produced a non-finite value: it stays where
 * the tick began (st still holds it) with no velocity, and its channels
 * (unless ch is NULL) say so. In single_track.c. */
void pdk_st_fault(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, double *ch);

/* st_step_groups below as compiled for AVX2, in single_track_avx.c. */
int pdk_st_groups_avx2(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                       const pdk_st_params *const *params, double *const *channels, int count,
                       int substeps);

/* st_step_groups below compiled over one lane for one vehicle, in
 * single_track_lone.c; returns 1 if it faulted, else 0. */
int pdk_st_step_lone(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, double *ch,
                     int substeps);

/* Vehicles per group, one per lane: four; or, where the including file
 * defines ST_LONE (single_track_lone.c), one vehicle in both lanes of an
 * SSE2 register. Everything below is written over st_vec, ST_LANES
 * doubles, and st_mask, its lane masks (0 or -1), and takes lanes.h's
 * primitives of that width through the st_ functions here. */
#if defined(ST_LONE)
#define ST_LANES 2
typedef lane2 st_vec;
typedef mask2 st_mask;
#define ST_OF_WIDTH(four, two) two
#else
#define ST_LANES 4
typedef v4 st_vec;
typedef m4 st_mask;
#define ST_OF_WIDTH(four, two) four
#endif

/* The AVX instructions that do a primitive's operations on four lanes. */
#if ST_LANES == 4 && defined(__AVX__) && defined(__x86_64__) && defined(__GNUC__)
#define ST_AVX4 1
#else
#define ST_AVX4 0
#endif

VEC st_vec st_splat(double x)
{
    return ST_OF_WIDTH(splat, splat2)(x);
}

/* m ? p : q lane by lane. A lone vehicle's lanes hold the same values, so
 * its masks are all set or all clear and the select is a branch on lane 0:
 * predicted, it lets the processor go on without waiting for the
 * comparison, and the operand not taken need not be computed at all. The
 * bits are those of the select either way. */
VEC st_vec st_sel(st_mask m, st_vec p, st_vec q)
{
#if defined(ST_LONE)
    return pick2(m, p, q);
#else
    return sel(m, p, q);
#endif
}

VEC st_vec st_keep(st_mask m, st_vec p)
{
    return ST_OF_WIDTH(keep, keep2)(m, p);
}

VEC st_vec st_abs(st_vec x)
{
    return ST_OF_WIDTH(abs4, abs2)(x);
}

VEC st_vec st_sqrt(st_vec x)
{
    return ST_OF_WIDTH(sqrt4, sqrt2)(x);
}

VEC void st_sincos(st_vec x, st_vec *sin_out, st_vec *cos_out)
{
    ST_OF_WIDTH(sincos4, sincos2)(x, sin_out, cos_out);
}

VEC st_vec st_atan2(st_vec y, st_vec x)
{
    return ST_OF_WIDTH(atan2_4, atan2_2)(y, x);
}

/* The comparisons, lane by lane with the IEEE meaning of the scalar
 * operator (false where an operand is NaN). */
VEC st_mask st_lt(st_vec p, st_vec q)
{
    return (st_mask)(p < q);
}

VEC st_mask st_gt(st_vec p, st_vec q)
{
    return (st_mask)(p > q);
}

VEC st_mask st_le(st_vec p, st_vec q)
{
    return (st_mask)(p <= q);
}

VEC st_mask st_eq(st_vec p, st_vec q)
{
    return (st_mask)(p == q);
}

/* The lanes whose mask is set, as bits 0..ST_LANES - 1: compiled for AVX,
 * the one instruction that gathers the masks' sign bits (0 and -1 give the
 * same bits either way). The tick branches on it several times a
 * substep. */
VEC uint32_t st_bits(st_mask m)
{
#if ST_AVX4
    return (uint32_t)__builtin_ia32_movmskpd256((st_vec)m);
#else
    uint32_t bits = 0u;
    for (int l = 0; l < ST_LANES; l++) {
        bits |= m[l] != 0 ? 1u << l : 0u;
    }
    return bits;
#endif
}

/* Whether any lane of m is set: a rare branch runs only when a lane takes
 * it. */
VEC int st_any(st_mask m)
{
#if defined(ST_LONE)
    return m[0] != 0; /* the lanes agree (st_sel) */
#else
    return st_bits(m) != 0u;
#endif
}

/* Whether every lane of m is set: a branch on it is predicted, so the common
 * case goes on without waiting for the comparison. */
VEC int st_all(st_mask m)
{
#if defined(ST_LONE)
    return m[0] != 0;
#else
    return st_bits(m) == (1u << ST_LANES) - 1u;
#endif
}

/* p > q ? p : q and p < q ? p : q lane by lane, which is exactly what
 * MAXPD and MINPD (VMAXPD, VMINPD) compute (q on ties of signed zeros and
 * on NaN). */
VEC st_vec st_max(st_vec p, st_vec q)
{
#if ST_AVX4
    return __builtin_ia32_maxpd256(p, q);
#elif ST_LANES == 2 && defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_maxpd(p, q);
#else
    return st_sel(st_gt(p, q), p, q);
#endif
}

VEC st_vec st_min(st_vec p, st_vec q)
{
#if ST_AVX4
    return __builtin_ia32_minpd256(p, q);
#elif ST_LANES == 2 && defined(__x86_64__) && defined(__GNUC__)
    return __builtin_ia32_minpd(p, q);
#else
    return st_sel(st_lt(p, q), p, q);
#endif
}

/* v < lo ? lo : (v > hi ? hi : v), whose inner choice is st_min(hi, v). */
VEC st_vec st_clamp(st_vec v, st_vec lo, st_vec hi)
{
    return st_sel(st_lt(v, lo), lo, st_min(hi, v));
}

/* sin and cos of the small angle t, |t| <= PDK_ST_SMALL_TURN_RAD, from their
 * series; the first omitted terms, t^9/9! and t^10/10!, are below 3e-15 and
 * 3e-17 there. The polynomials are split in z^2 (Estrin's scheme) so that
 * they take fewer dependent steps: the velocities of the substep wait for
 * them. */
VEC void st_small_sincos(st_vec t, st_vec *st, st_vec *ct)
{
    st_vec z = t * t;
    st_vec z2 = z * z;
    *st = t * ((1.0 + z * (-1.0 / 6.0)) + z2 * (1.0 / 120.0 + z * (-1.0 / 5040.0)));
    *ct = (1.0 + z * -0.5) + z2 * ((1.0 / 24.0 + z * (-1.0 / 720.0)) + z2 * (1.0 / 40320.0));
}

/* The axle's lateral damping coefficient c (N s/m), F_lat = -c v_lat, at
 * wheel-plane speed u and lateral slip velocity v_lat, narrowing the axle's
 * force range [lo, hi] (and mid, its value nearest zero) where the wheels
 * lock. The linear tyre, Fy = -C alpha with tan(alpha) = v_lat / |u|
 * (Pacejka ch. 1), is a damper c = C / max(|u|, floor).
 * A rolling wheel: the lateral force is capped by what the friction circle
 * leaves beside the longitudinal force expected for the direction of
 * travel, sqrt((mu Fz)^2 - Fx^2), so c = capacity / |v_lat| beyond it, and
 * 0 without capacity.
 * A locked wheel, one whose brakes (with rolling resistance) exceed the
 * friction limit in the direction of travel, slides: its whole friction
 * force mu Fz opposes the contact's velocity (u, v_lat) (Pacejka ch. 3,
 * combined slip: in full sliding the force is opposite the slip velocity).
 * So it resists u by Coulomb friction of at most mu Fz |u| / s and v_lat by
 * a damper of at most mu Fz / s, s = |(u, v_lat)|, with the direction fixed
 * at the substep's start.
 * The rolling law is computed for every lane, the locked one only when some
 * lane locks. */
VEC st_vec st_axle_damping(st_vec *lo, st_vec *mid, st_vec *hi, st_vec stiffness, st_vec u,
                           st_vec v_lat, st_vec cap)
{
    const st_vec zero = st_splat(0.0);
    st_vec c = stiffness / st_max(st_abs(u), st_splat(PDK_ST_SLIP_SPEED_FLOOR_MPS));
    st_mask fwd = st_gt(u, zero);
    st_mask bwd = st_lt(u, zero);
    st_mask locked = (fwd & st_le(*lo, -cap)) | (bwd & st_le(cap, *hi));
    st_vec est = st_sel(fwd, *lo, st_sel(bwd, *hi, *mid));
    st_vec cap2 = cap * cap - est * est;
    st_mask has_cap = st_gt(cap2, zero);
    st_vec f = c * v_lat;
    st_mask saturated = has_cap & st_gt(f * f, cap2);
    if (st_all(has_cap & ~saturated & ~locked)) {
        return c;
    }
    st_vec rolling = c;
    if (st_any(saturated)) {
        rolling = st_sel(saturated, st_sqrt(cap2) / st_abs(v_lat), c);
    }
    rolling = st_keep(has_cap, rolling); /* or +0.0 without capacity */
    if (st_any(locked)) {
        st_vec per_mps = cap / st_sqrt(u * u + v_lat * v_lat);
        st_vec cap_x = per_mps * st_abs(u);
        *lo = st_sel(locked, -cap_x, *lo);
        *hi = st_sel(locked, cap_x, *hi);
        *mid = st_sel(locked, zero, *mid);
        rolling = st_sel(locked, st_min(c, per_mps), rolling);
    }
    return rolling;
}

/* A group of vehicles during a tick: the state being advanced, the heading
 * as a unit vector, the last substep's forces for telemetry (drag is the air
 * drag on body x, signed), then the vehicles' constants and held commands,
 * gathered once per tick. n of its lanes are vehicles; the rest copy the
 * last of them. */
typedef struct st_group {
    st_vec x, y, yaw, vx, vy, r, ax, ay;
    st_vec hc, hs;
    st_vec fz_f, fz_r, fx_f, fx_r, fy_f, fy_r, drag;
    /* pdk_st_params */
    st_vec h, half_h, turn_h, inv_h, h_per_mass, hb_per_inertia, a, b;
    st_vec static_load_f, static_load_r, transfer, stiffness_f, stiffness_r, mu_f, mu_r;
    st_vec rolling, drag_coeff, drive_force, drive_power, drive_frac_f, drive_frac_r;
    /* pdk_st_cmd and the projections below */
    st_vec sd, cd, drive_gain, governor, governor_fade, hold_f, hold_r;
    st_vec s11, s12, s22, s_det, s_trace, sf1, sf2, sr1, t_ff, t_fr, hm_cos, hm_sin, hi_a_sin,
        hi_a_cos;
    st_mask reverse_drive; /* the sign bit where the drive pushes backward */
    int governed;          /* some lane has a governor */
    int n;                 /* lanes holding distinct vehicles, 1..ST_LANES */
} st_group;

/* dst = the field of each lane's struct. */
#if ST_LANES == 4
#define ST_GATHER(dst, src, field)                                                                 \
    (dst) = (st_vec)                                                                               \
    {                                                                                              \
        (src)[0]->field, (src)[1]->field, (src)[2]->field, (src)[3]->field                         \
    }
#else
#define ST_GATHER(dst, src, field)                                                                 \
    (dst) = (st_vec)                                                                               \
    {                                                                                              \
        (src)[0]->field, (src)[1]->field                                                           \
    }
#endif

/* Loads a group's vehicles, constants and commands, and the substep's
 * velocity response for their steering angles: with D = diag(m, m, Iz) / h,
 * the generalised directions of the front wheel plane t_f = (cos d, sin d,
 * a sin d), of the front and rear lateral slip n_f = (-sin d, cos d,
 * a cos d), n_r = (0, 1, -b), and of body x e_x = (1, 0, 0):
 * S = [n_f n_r]' D^-1 [n_f n_r] and its determinant, s_f = [n_f n_r]' D^-1 t_f,
 * s_r = [n_f n_r]' D^-1 e_x (its second entry is 0), t_ff = t_f' D^-1 t_f,
 * t_fr = t_f' D^-1 e_x, and D^-1 t_f, D^-1 n_f written out (hm = h/m,
 * hi = h/Iz). The determinant of S is expanded so that it has no
 * cancellation: h^2 (sin^2 d / m^2 + (b^2 sin^2 d + L^2 cos^2 d) / (m Iz))
 * > 0, as n_f and n_r are never parallel. */
VEC void st_group_load(st_group *g, int n, pdk_st_state *const *st, const pdk_st_cmd *const *cmd,
                       const pdk_st_params *const *p)
{
    g->n = n;
    ST_GATHER(g->x, st, x_m);
    ST_GATHER(g->y, st, y_m);
    ST_GATHER(g->yaw, st, yaw_rad);
    ST_GATHER(g->vx, st, vx_mps);
    ST_GATHER(g->vy, st, vy_mps);
    ST_GATHER(g->r, st, yaw_rate_radps);
    ST_GATHER(g->ax, st, ax_mps2);
    ST_GATHER(g->ay, st, ay_mps2);
    st_sincos(g->yaw, &g->hs, &g->hc);
    g->fz_f = g->fz_r = g->fx_f = g->fx_r = g->fy_f = g->fy_r = g->drag = st_splat(0.0);

    st_vec hi;
    ST_GATHER(g->h, p, h_s);
    g->half_h = 0.5 * g->h;
    g->turn_h = g->half_h; /* the tick's first turn is half a substep's */
    ST_GATHER(g->inv_h, p, inv_h);
    ST_GATHER(g->h_per_mass, p, h_per_mass);
    ST_GATHER(hi, p, h_per_inertia);
    ST_GATHER(g->hb_per_inertia, p, hb_per_inertia);
    ST_GATHER(g->a, p, a_m);
    ST_GATHER(g->b, p, b_m);
    ST_GATHER(g->static_load_f, p, static_load_front_n);
    ST_GATHER(g->static_load_r, p, static_load_rear_n);
    ST_GATHER(g->transfer, p, transfer_n_per_mps2);
    ST_GATHER(g->stiffness_f, p, cornering_front_n_per_rad);
    ST_GATHER(g->stiffness_r, p, cornering_rear_n_per_rad);
    ST_GATHER(g->mu_f, p, mu_front);
    ST_GATHER(g->mu_r, p, mu_rear);
    ST_GATHER(g->rolling, p, rolling_coeff);
    ST_GATHER(g->drag_coeff, p, drag_n_per_mps2);
    ST_GATHER(g->drive_force, p, drive_force_n);
    ST_GATHER(g->drive_power, p, drive_power_w);
    ST_GATHER(g->drive_frac_f, p, drive_front_fraction);
    ST_GATHER(g->drive_frac_r, p, drive_rear_fraction);

    ST_GATHER(g->sd, cmd, sin_steer);
    ST_GATHER(g->cd, cmd, cos_steer);
    ST_GATHER(g->drive_gain, cmd, drive_gain);
    ST_GATHER(g->governor, cmd, governor_mps);
    ST_GATHER(g->governor_fade, cmd, governor_fade_mps);
    ST_GATHER(g->hold_f, cmd, hold_front_n);
    ST_GATHER(g->hold_r, cmd, hold_rear_n);

    st_vec hm = g->h_per_mass;
    st_vec sd = g->sd;
    st_vec cd = g->cd;
    st_vec a = g->a;
    st_vec b = g->b;
    st_vec len = a + b;
    st_vec acd = a * cd;
    st_vec asd = a * sd;
    st_vec cross = hm - hi * (a * b); /* h (1/m - a b / Iz) */
    g->s11 = hm + hi * (acd * acd);
    g->s12 = cd * cross;
    g->s22 = hm + hi * (b * b);
    g->s_trace = g->s11 + g->s22;
    g->s_det = hm * hm * (sd * sd) + hm * hi * (b * b * (sd * sd) + len * len * (cd * cd));
    g->sf1 = hi * (acd * asd);
    g->sf2 = sd * cross;
    g->sr1 = -(hm * sd);
    g->t_ff = hm + hi * (asd * asd);
    g->t_fr = hm * cd;
    g->hm_cos = hm * cd;
    g->hm_sin = hm * sd;
    g->hi_a_sin = hi * asd;
    g->hi_a_cos = hi * acd;
    g->reverse_drive = st_lt(g->drive_gain, st_splat(0.0)) & INT64_MIN;
    g->governed = st_any(st_gt(g->governor, st_splat(0.0)));
}

/* The body frame turns by the angle t (one lane's t is h r / 2): the
 * heading advances by t and its unit vector turns with it; returns sin t
 * and cos t, with which the caller carries body-frame vectors into the new
 * frame, (u, v) <- R(-t) (u, v). The series for every lane; the lanes
 * whose yaw leaves (-pi, pi] or whose turn is too large for the series are
 * finished one by one. */
VEC void st_group_turn(st_group *restrict g, st_vec turn, st_vec *sin_out, st_vec *cos_out)
{
    st_vec st, ct;
    st_small_sincos(turn, &st, &ct);
    st_vec yaw = g->yaw + turn;
    st_vec hc = g->hc * ct - g->hs * st;
    st_vec hs = g->hs * ct + g->hc * st;
    st_mask wrap = st_gt(yaw, st_splat(PDK_ST_PI)) | st_le(yaw, st_splat(-PDK_ST_PI));
    st_mask large = ~(st_le(turn, st_splat(PDK_ST_SMALL_TURN_RAD)) &
                      st_le(st_splat(-PDK_ST_SMALL_TURN_RAD), turn));
    if (st_any(wrap | large)) {
        for (int l = 0; l < ST_LANES; l++) {
            if (l > 0 && l >= g->n) { /* a copy lane repeats the lane before */
                st[l] = st[l - 1];
                ct[l] = ct[l - 1];
                yaw[l] = yaw[l - 1];
                hs[l] = hs[l - 1];
                hc[l] = hc[l - 1];
                continue;
            }
            double sin_l, cos_l;
            if (large[l]) {
                pdk_trig_sincos(turn[l], &sin_l, &cos_l);
                st[l] = sin_l;
                ct[l] = cos_l;
            }
            if (wrap[l]) {
                yaw[l] = pdk_st_wrap_angle(yaw[l]);
            }
            if (large[l]) {
                pdk_trig_sincos(yaw[l], &sin_l, &cos_l);
                hs[l] = sin_l;
                hc[l] = cos_l;
            }
        }
    }
    g->yaw = yaw;
    g->hc = hc;
    g->hs = hs;
    *sin_out = st;
    *cos_out = ct;
}

/* One substep of a group. */
VEC void st_group_substep(st_group *restrict g)
{
    const st_vec zero = st_splat(0.0);
    const st_vec sd = g->sd;
    const st_vec cd = g->cd;
    const st_vec a = g->a;
    const st_vec b = g->b;
    const st_vec r = g->r;
    const int n = g->n;

    /* 1. The frame turns by half the substep's heading change, h r / 2,
     * and the velocities are carried into it. After the tick's first
     * substep the turn is h r: the last substep's second half and this
     * one's first, both at the same r, as one turn. */
    st_vec st, ct;
    st_group_turn(g, g->turn_h * r, &st, &ct);
    const st_vec vx = ct * g->vx + st * g->vy;
    const st_vec vy = ct * g->vy - st * g->vx;

    /* What the forces' laws freeze over the substep (loads, drive, the
     * directions of travel and the damping coefficients) is taken from
     * these, the substep's starting velocities in the frame the forces act
     * in (so the friction circle caps the slip velocity the solve sees).
     * Axle loads with the quasi-static longitudinal transfer m ax h / L
     * (Gillespie ch. 3), from the previous substep's ax. */
    st_vec transfer = g->transfer * g->ax;
    st_vec fz_f = st_max(g->static_load_f - transfer, zero);
    st_vec fz_r = st_max(g->static_load_r + transfer, zero);
    st_vec cap_f = g->mu_f * fz_f;
    st_vec cap_r = g->mu_r * fz_r;

    /* Drive: pedal share of min(max force, power / speed), continuous in
     * speed; the governors fade it out over the band below their limit. */
    st_vec speed = st_abs(vx);
    st_vec avail = st_sel(st_lt(g->drive_power, g->drive_force * speed), g->drive_power / speed,
                          g->drive_force);
    st_vec drive = g->drive_gain * avail;
    if (g->governed) {
        st_vec excess = (st_vec)((st_mask)vx ^ g->reverse_drive) - g->governor_fade;
        st_mask fading = st_gt(g->governor, zero) & st_gt(excess, zero);
        drive =
            st_sel(fading, drive * st_max(zero, 1.0 - excess / PDK_ST_GOVERNOR_BAND_MPS), drive);
    }
    st_vec d_f = st_clamp(drive * g->drive_frac_f, -cap_f, cap_f);
    st_vec d_r = st_clamp(drive * g->drive_frac_r, -cap_r, cap_r);

    /* Brakes, parking pawl and rolling resistance as Coulomb friction: each
     * axle's admissible longitudinal force is its drive d plus a resistance
     * of at most res opposing the motion, within the friction limit +-cap;
     * lo applies while the axle rolls forward, hi while it rolls backward,
     * and at rest any value between; mid is the value nearest zero, the
     * force of a wheel whose brake holds its own drive torque. Then the
     * lateral dampers with the friction circle, from the contacts'
     * velocities: the front wheel plane's speed u_f and lateral slip
     * velocity, the rear's (its speed is vx). */
    st_vec w_f = vy + a * r;
    st_vec u_f = cd * vx + sd * w_f;
    st_vec vlat_f = cd * w_f - sd * vx;
    st_vec vlat_r = vy - b * r;
    st_vec res_f = g->hold_f + g->rolling * fz_f;
    st_vec res_r = g->hold_r + g->rolling * fz_r;
    st_vec lo_f = st_max(d_f - res_f, -cap_f);
    st_vec hi_f = st_min(d_f + res_f, cap_f);
    st_vec mid_f = st_clamp(zero, lo_f, hi_f);
    st_vec lo_r = st_max(d_r - res_r, -cap_r);
    st_vec hi_r = st_min(d_r + res_r, cap_r);
    st_vec mid_r = st_clamp(zero, lo_r, hi_r);
    st_vec c_f = st_axle_damping(&lo_f, &mid_f, &hi_f, g->stiffness_f, u_f, vlat_f, cap_f);
    st_vec c_r = st_axle_damping(&lo_r, &mid_r, &hi_r, g->stiffness_r, vx, vlat_r, cap_r);

    /* 2. The force step. Each lateral damper acts on its slip velocity
     * weighted between the substep's start and end, F_lat = -c ((1 - th)
     * v_lat* + th v_lat'), with th = (1 + x) / (2 + x), x = c tr S (header
     * comment): the trapezoidal rule where the damper is soft against the
     * substep, backward Euler where it is stiff. A = D + N C_th N' with
     * N = [n_f n_r], C_th = diag(th_f c_f, th_r c_r); for any right-hand
     * side, A^-1 = D^-1 - D^-1 N K N' D^-1 with K = (I + C_th S)^-1 C_th
     * (Sherman-Morrison-Woodbury; Golub and Van Loan, Matrix Computations,
     * 2.1.4), S = N' D^-1 N (st_group_load). det(I + C_th S) = 1 + c_f'
     * s11 + c_r' s22 + c_f' c_r' det S >= 1 (c' = th c). The lateral forces
     * are F_lat = -((I + C_th S)^-1 C v_lat* + K (s_f Ff + s_r Fr)):
     * (l1, l2) = (I + C_th S)^-1 C v_lat*, (m1, m2) = K s_f, (n1, n2) =
     * K s_r. */
    st_vec x_f = c_f * g->s_trace;
    st_vec x_r = c_r * g->s_trace;
    /* c' = q / p with q = c (1 + x), p = 2 + x; the determinant and K are
     * written over p_f p_r det(I + C_th S), so one division serves. */
    st_vec p_f = 2.0 + x_f;
    st_vec p_r = 2.0 + x_r;
    st_vec q_f = c_f * (1.0 + x_f);
    st_vec q_r = c_r * (1.0 + x_r);
    st_vec pqs_f = p_f + q_f * g->s11; /* p_f (1 + c_f' s11) */
    st_vec pqs_r = p_r + q_r * g->s22;
    st_vec qq = q_f * q_r;
    st_vec inv_det = 1.0 / (p_f * pqs_r + q_f * (g->s11 * p_r) + qq * g->s_det);
    st_vec k11 = q_f * pqs_r * inv_det;
    st_vec k22 = q_r * pqs_f * inv_det;
    st_vec k12 = -(qq * g->s12) * inv_det;
    st_vec l1 = (c_f * p_f) * inv_det * (pqs_r * vlat_f - (q_r * g->s12) * vlat_r);
    st_vec l2 = (c_r * p_r) * inv_det * (pqs_f * vlat_r - (q_f * g->s12) * vlat_f);
    st_vec m1 = k11 * g->sf1 + k12 * g->sf2;
    st_vec m2 = k12 * g->sf1 + k22 * g->sf2;
    st_vec n1 = k11 * g->sr1;
    st_vec n2 = k12 * g->sr1;

    /* The longitudinal contact problem (pdk_st_contact): air drag k vx^2
     * is a resistance on vx like rolling resistance, so it never reverses
     * the car within a substep. Both axles rolling forward, both rolling
     * backward, and rest held by nothing at all are answered here; any
     * other lane by pdk_st_contact_solve. */
    st_vec drag = g->drag_coeff * vx * vx;
    st_vec uf0 = u_f - (g->sf1 * l1 + g->sf2 * l2);
    st_vec vr0 = vx - g->sr1 * l1;
    st_vec wff = g->t_ff - (g->sf1 * m1 + g->sf2 * m2);
    st_vec wfr = g->t_fr - g->sr1 * m1;
    st_vec wrr = g->h_per_mass - g->sr1 * n1;
    st_vec lo_rd = lo_r - drag;
    st_vec hi_rd = hi_r + drag;
    st_mask fwd =
        st_gt(uf0 + wff * lo_f + wfr * lo_rd, zero) & st_gt(vr0 + wfr * lo_f + wrr * lo_rd, zero);
    st_vec ff = lo_f;
    st_vec fr = lo_rd;
    st_mask held = {0};
    st_mask rear_held = {0};
    if (!st_all(fwd)) {
        st_mask bwd = ~fwd & st_lt(uf0 + wff * hi_f + wfr * hi_rd, zero) &
                      st_lt(vr0 + wfr * hi_f + wrr * hi_rd, zero);
        st_mask rest = ~fwd & ~bwd & st_eq(vx, zero) & st_eq(vy, zero) & st_eq(r, zero) &
                       st_le(lo_f, zero) & st_le(zero, hi_f) & st_le(lo_rd, zero) &
                       st_le(zero, hi_rd);
        ff = st_sel(fwd, lo_f, st_sel(bwd, hi_f, zero));
        fr = st_sel(fwd, lo_rd, st_sel(bwd, hi_rd, zero));
        held = rest;
        rear_held = rest;
        st_mask other = ~(fwd | bwd | rest);
        if (st_any(other)) {
            st_vec mid_rd = st_clamp(zero, lo_rd, hi_rd);
            for (int l = 0; l < ST_LANES; l++) {
                if (l > 0 && l >= n) {
                    ff[l] = ff[l - 1];
                    fr[l] = fr[l - 1];
                    held[l] = held[l - 1];
                    rear_held[l] = rear_held[l - 1];
                    continue;
                }
                if (other[l]) {
                    pdk_st_contact pb = {
                        .uf0 = uf0[l],
                        .vr0 = vr0[l],
                        .wff = wff[l],
                        .wfr = wfr[l],
                        .wrr = wrr[l],
                        .lo_f = lo_f[l],
                        .mid_f = mid_f[l],
                        .hi_f = hi_f[l],
                        .lo_r = lo_rd[l],
                        .mid_r = mid_rd[l],
                        .hi_r = hi_rd[l],
                        .straight = sd[l] == 0.0,
                    };
                    pdk_st_contact_result cr;
                    pdk_st_contact_solve(&pb, &cr);
                    ff[l] = cr.ff;
                    fr[l] = cr.fr;
                    held[l] = cr.held ? -1 : 0;
                    rear_held[l] = cr.rear_held ? -1 : 0;
                }
            }
        }
    }
    st_vec ffl = -(l1 + m1 * ff + n1 * fr);
    st_vec frl = -(l2 + m2 * ff + n2 * fr);
    st_vec vx_new = vx + g->hm_cos * ff + g->h_per_mass * fr - g->hm_sin * ffl;
    st_vec vy_new = vy + g->hm_sin * ff + g->hm_cos * ffl + g->h_per_mass * frl;
    st_vec r_new = r + g->hi_a_sin * ff + g->hi_a_cos * ffl - g->hb_per_inertia * frl;
    if (st_any(held)) {
        /* A held axle: static friction keeps a creep at exact rest. */
        vx_new = st_sel(rear_held, zero, vx_new);
        st_mask resting = held & st_le(st_abs(vx_new), st_splat(PDK_ST_REST_SPEED_MPS)) &
                          st_le(st_abs(vy_new), st_splat(PDK_ST_REST_SPEED_MPS)) &
                          st_le(st_abs(r_new), st_splat(PDK_ST_REST_YAW_RATE_RADPS));
        vx_new = st_sel(resting, zero, vx_new);
        vy_new = st_sel(resting, zero, vy_new);
        r_new = st_sel(resting, zero, r_new);
    }

    /* The new velocities rotated into the world by the heading at the
     * substep's middle, averaged with those before the force step: in the
     * frame turns the world-frame velocity does not change, so over the
     * substep the position moves by h times the mean of the two. */
    const st_vec half_h = g->half_h;
    st_vec sum_x = vx + vx_new;
    st_vec sum_y = vy + vy_new;
    g->x += half_h * (sum_x * g->hc - sum_y * g->hs);
    g->y += half_h * (sum_x * g->hs + sum_y * g->hc);

    /* The CG acceleration is the force over the mass, in this frame. The
     * frame's other half turn, h r' / 2 at the new yaw rate, waits for the
     * next substep or the tick's end (st_group_end_turn). */
    g->ax = (vx_new - vx) * g->inv_h;
    g->ay = (vy_new - vy) * g->inv_h;
    g->vx = vx_new;
    g->vy = vy_new;
    g->r = r_new;
    g->turn_h = g->h;

    st_vec fx_r = st_clamp(fr, lo_r, hi_r);
    g->fz_f = fz_f;
    g->fz_r = fz_r;
    g->fx_f = ff;
    g->fx_r = fx_r;
    g->fy_f = ffl;
    g->fy_r = frl;
    g->drag = fr - fx_r;
}

/* 3. The frame's last half turn in the tick, h r / 2, carrying the
 * velocities into the body frame at the tick's end. The CG acceleration
 * stays the last force step's force over the mass, in that step's frame,
 * as do the force channels it balances. */
VEC void st_group_end_turn(st_group *restrict g)
{
    st_vec st, ct;
    st_group_turn(g, g->half_h * g->r, &st, &ct);
    st_vec vx = g->vx;
    g->vx = ct * vx + st * g->vy;
    g->vy = ct * g->vy - st * vx;
}

/* Values whose magnitude is below PDK_ST_NEGLIGIBLE as exactly zero. */
VEC st_vec st_negligible_to_zero(st_vec x)
{
    return st_sel(st_lt(st_abs(x), st_splat(PDK_ST_NEGLIGIBLE)), st_splat(0.0), x);
}

/* Writes the tick's end state back and the telemetry of the group's first
 * n lanes, once per tick; returns how many of them faulted. A lane faults
 * when any of its state values is infinite or NaN, or its speed overflows
 * (|v| > 1e154 m/s, which only a corrupted state can reach): x - x is 0 for
 * every finite x and NaN otherwise. Slip angles follow ISO 8855: the angle
 * from the wheel plane to the contact's velocity, positive to the left, with
 * the force law's speed floor. */
VEC int st_group_store(const st_group *g, pdk_st_state *const *st, const pdk_st_cmd *const *cmd,
                       const pdk_st_params *const *p, double *const *chs)
{
    const st_vec zero = st_splat(0.0);
    st_vec v2 = g->vx * g->vx + g->vy * g->vy;
    st_vec broken_sum = (((g->x - g->x) + (g->y - g->y)) + ((g->yaw - g->yaw) + (g->vx - g->vx))) +
                        (((g->vy - g->vy) + (g->r - g->r)) + ((g->ax - g->ax) + (g->ay - g->ay))) +
                        (v2 - v2);
    st_mask broken = ~st_eq(broken_sum, zero);
    st_vec vx = g->vx;
    st_vec vy = st_negligible_to_zero(g->vy);
    st_vec r = st_negligible_to_zero(g->r);
    st_vec ax = st_negligible_to_zero(g->ax);
    st_vec ay = st_negligible_to_zero(g->ay);
    st_vec w_f = vy + g->a * r;
    st_vec u_f = g->cd * vx + g->sd * w_f;
    st_vec vlat_f = g->cd * w_f - g->sd * vx;
    st_vec rolling = g->rolling * (g->fz_f * g->cd + g->fz_r);
    st_vec rolling_ch = st_sel(st_gt(vx, zero), -rolling, st_sel(st_lt(vx, zero), rolling, zero));
    st_vec speed = st_sqrt(vx * vx + vy * vy);
    st_vec floor_mps = st_splat(PDK_ST_SLIP_SPEED_FLOOR_MPS);
    st_vec slip_fx = st_max(st_abs(u_f), floor_mps);
    st_vec slip_ry = vy - g->b * r;
    st_vec slip_rx = st_max(st_abs(vx), floor_mps);
    int faults = 0;
    bool any_channels = false;
    for (int l = 0; l < g->n; l++) {
        pdk_st_state *s = st[l];
        double *ch = chs[l];
        if (broken[l]) {
            /* The state still holds where the tick began. */
            pdk_st_fault(s, cmd[l], p[l], ch);
            faults++;
            continue;
        }
        s->x_m = g->x[l];
        s->y_m = g->y[l];
        s->yaw_rad = g->yaw[l];
        s->vx_mps = vx[l];
        s->vy_mps = vy[l];
        s->yaw_rate_radps = r[l];
        s->ax_mps2 = ax[l];
        s->ay_mps2 = ay[l];
        if (ch == NULL) {
            continue; /* its channels are not read this tick */
        }
        any_channels = true;
        ch[PDK_CH_POS_X] = g->x[l];
        ch[PDK_CH_POS_Y] = g->y[l];
        ch[PDK_CH_POS_Z] = p[l]->cg_height_m;
        ch[PDK_CH_YAW] = g->yaw[l];
        ch[PDK_CH_SPEED] = speed[l];
        ch[PDK_CH_VEL_X] = vx[l];
        ch[PDK_CH_VEL_Y] = vy[l];
        ch[PDK_CH_YAW_RATE] = r[l];
        /* As an accelerometer reads them: the plane's are the body's own
         * on flat ground, and z the ground's reaction to gravity. */
        ch[PDK_CH_ACCEL_X] = ax[l];
        ch[PDK_CH_ACCEL_Y] = ay[l];
        ch[PDK_CH_ACCEL_Z] = p[l]->gravity_mps2;
        ch[PDK_CH_STEER_ANGLE] = cmd[l]->steer_rad;
        ch[PDK_CH_STEER_WHEEL] = cmd[l]->steer_wheel_deg;
        ch[PDK_CH_THROTTLE] = cmd[l]->throttle_pct;
        ch[PDK_CH_BRAKE] = cmd[l]->brake_bar;
        ch[PDK_CH_GEAR] = cmd[l]->gear_code;
        ch[PDK_CH_TYRE_LOAD_F] = g->fz_f[l];
        ch[PDK_CH_TYRE_LOAD_R] = g->fz_r[l];
        ch[PDK_CH_FORCE_X_F] = g->fx_f[l];
        ch[PDK_CH_FORCE_X_R] = g->fx_r[l];
        ch[PDK_CH_FORCE_Y_F] = g->fy_f[l];
        ch[PDK_CH_FORCE_Y_R] = g->fy_r[l];
        ch[PDK_CH_DRAG] = g->drag[l];
        ch[PDK_CH_ROLLING] = rolling_ch[l];
        ch[PDK_CH_FAULTED] = 0.0;
    }
    if (!any_channels) {
        return faults;
    }
    /* The slip angles last: their atan2 is the longest chain of the store,
     * and everything before it in program order can retire while it runs
     * (it matters for a lone vehicle, whose ticks follow each other). */
    st_vec slip_f, slip_r;
#if !defined(ST_LONE)
    if (g->n == 1) {
        /* A lone vehicle's copy lanes would only repeat its two slip
         * angles: one evaluation takes the front's in the even lanes and the
         * rear's in the odd ones. */
        st_vec y, x;
        for (int l = 0; l < ST_LANES; l++) {
            y[l] = l % 2 == 0 ? vlat_f[0] : slip_ry[0];
            x[l] = l % 2 == 0 ? slip_fx[0] : slip_rx[0];
        }
        st_vec both = st_atan2(y, x);
        slip_f = st_splat(both[0]);
        slip_r = st_splat(both[1]);
    } else
#endif
    {
        slip_f = st_atan2(vlat_f, slip_fx);
        slip_r = st_atan2(slip_ry, slip_rx);
    }
    for (int l = 0; l < g->n; l++) {
        if (!broken[l] && chs[l] != NULL) {
            chs[l][PDK_CH_SLIP_ANGLE_F] = slip_f[l];
            chs[l][PDK_CH_SLIP_ANGLE_R] = slip_r[l];
        }
    }
    return faults;
}

/* Steps count (1..PDK_ST_BATCH) vehicles in groups of ST_LANES, the last
 * group's spare lanes copies of its last vehicle; the groups' substeps are
 * interleaved, as each is one long dependency chain through its divisions
 * and the processor overlaps independent ones. Returns how many faulted. */
VEC int st_step_groups(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                       const pdk_st_params *const *params, double *const *channels, int count,
                       int substeps)
{
    if (count == 1) {
        /* A lone vehicle: one group held here, so that the compiler knows
         * it has one vehicle (n == 1) and keeps it out of the batch's
         * array. */
        pdk_st_state *st[ST_LANES];
        const pdk_st_cmd *cm[ST_LANES];
        const pdk_st_params *pa[ST_LANES];
        for (int l = 0; l < ST_LANES; l++) {
            st[l] = states[0];
            cm[l] = cmds[0];
            pa[l] = params[0];
        }
        st_group g;
        st_group_load(&g, 1, st, cm, pa);
        for (int i = 0; i < substeps; i++) {
            st_group_substep(&g);
        }
        st_group_end_turn(&g);
        return st_group_store(&g, states, cmds, params, channels);
    }
    st_group gs[(PDK_ST_BATCH + ST_LANES - 1) / ST_LANES];
    int groups = (count + ST_LANES - 1) / ST_LANES;
    for (int j = 0; j < groups; j++) {
        int first = j * ST_LANES;
        int n = count - first < ST_LANES ? count - first : ST_LANES;
        pdk_st_state *st[ST_LANES];
        const pdk_st_cmd *cm[ST_LANES];
        const pdk_st_params *pa[ST_LANES];
        for (int l = 0; l < ST_LANES; l++) {
            int v = first + (l < n ? l : n - 1);
            st[l] = states[v];
            cm[l] = cmds[v];
            pa[l] = params[v];
        }
        st_group_load(&gs[j], n, st, cm, pa);
    }
    for (int i = 0; i < substeps; i++) {
        for (int j = 0; j < groups; j++) {
            st_group_substep(&gs[j]);
        }
    }
    for (int j = 0; j < groups; j++) {
        st_group_end_turn(&gs[j]);
    }
    int faults = 0;
    for (int j = 0; j < groups; j++) {
        int first = j * ST_LANES;
        faults +=
            st_group_store(&gs[j], &states[first], &cmds[first], &params[first], &channels[first]);
    }
    return faults;
}

#endif
