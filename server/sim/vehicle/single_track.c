/* One tick of the single-track model: the frame rotation, loads, drive,
 * brakes and resistances, the implicit lateral solve, the longitudinal
 * stick/slip solve and the kinematics, repeated per substep, then the
 * vehicle's telemetry channels. Every implicit part is solved in closed form,
 * so the cost per substep is fixed in the common case: a few divisions and
 * one square root at most. The scalar code below steps one vehicle and states
 * the physics; the vector code after it steps four vehicles at once, bit for
 * bit the same.
 *
 * The scheme, per substep of length h, for q = (vx, vy, r) and the body
 * equations of motion m (dvx/dt - r vy) = Fx, m (dvy/dt + r vx) = Fy,
 * Iz dr/dt = Mz (Pacejka, Tire and Vehicle Dynamics, ch. 1):
 *  1. The body frame turns by the heading change t = h r. Velocities are
 *     carried over into the new frame exactly, q* = (R(-t) (vx, vy), r):
 *     this is the whole of the r vy and r vx terms, a rotation (its
 *     determinant is cos^2 t + sin^2 t = 1, and it keeps |v| itself, not
 *     only areas), so it neither adds nor removes energy; a car spinning on
 *     ice keeps its
 *     speed, and its world-frame velocity, to rounding. (Splitting the
 *     motion into this exact rotation and the force step is the
 *     Lie-Trotter composition; Hairer, Lubich and Wanner, Geometric
 *     Numerical Integration, ch. II.5.)
 *  2. Forces act in the new frame, backward Euler: D (q1 - q*) = F for the
 *     end velocities q1, with D = diag(m, m, Iz) / h. Lateral tyre forces
 *     are dampers on the end velocities, F_lat = -c (n . q1) along n = n_f,
 *     n_r (single_track.h), c frozen at the substep's start; the
 *     longitudinal forces are Coulomb friction on the front wheel-plane
 *     speed u_f = t_f . q1 and on vx = e_x . q1, whichever way those end up
 *     pointing.
 * Why it cannot blow up: T(q) = h (q . D q) / 2 is the kinetic energy, and
 * T(q1) - T(q*) = h q1 . F - h (q1 - q*) . D (q1 - q*) / 2 <= h q1 . F.
 * Every force is dissipative at the end velocities (a damper, or Coulomb
 * friction opposing its own contact velocity or holding it at zero), so with
 * no drive the energy never increases, whatever the parameters and the
 * substep; the drive adds at most its power. The linear system
 * D + c_f n_f n_f' + c_r n_r n_r' is symmetric positive definite, so it
 * always has a solution. The price of the splitting is a steady-state error
 * of order h r / 2 in the centripetal balance (1e-3 of it at r = 0.5 rad/s,
 * h = 1/240 s), well inside the tests' 1 % against Pacejka's steady state. */
#include "vehicle/single_track.h"

#include <math.h>
#include <stdint.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "math/trig.h"
#include "sim/channels.h"

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

/* Above this heading change per substep (rad) sin and cos of the turn come
 * from pdk_trig_sincos and the heading from the yaw angle, instead of a
 * short series. */
#define SMALL_TURN_RAD 0.1

/* sin and cos of the small angle t, |t| <= SMALL_TURN_RAD, from their
 * series; the first omitted terms, t^9/9! and t^10/10!, are below 3e-15 and
 * 3e-17 there. The polynomials are split in z^2 (Estrin's scheme) so that
 * they take fewer dependent steps: the velocities of the substep wait for
 * them. */
static void small_sincos(double t, double *st, double *ct)
{
    double z = t * t;
    double z2 = z * z;
    *st = t * ((1.0 + z * (-1.0 / 6.0)) + z2 * (1.0 / 120.0 + z * (-1.0 / 5040.0)));
    *ct = (1.0 + z * -0.5) + z2 * ((1.0 / 24.0 + z * (-1.0 / 720.0)) + z2 * (1.0 / 40320.0));
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

/* The substep's velocity response for one steering angle (see "the
 * implicit solve" in lane_substep): with D = diag(m, m, Iz) / h, the
 * generalised directions of the front wheel plane t_f = (cos d, sin d,
 * a sin d), of the front and rear lateral slip n_f = (-sin d, cos d,
 * a cos d), n_r = (0, 1, -b), and of body x e_x = (1, 0, 0):
 * S = [n_f n_r]' D^-1 [n_f n_r] and its determinant, s_f = [n_f n_r]' D^-1 t_f,
 * s_r = [n_f n_r]' D^-1 e_x (its second entry is 0), t_ff = t_f' D^-1 t_f,
 * t_fr = t_f' D^-1 e_x, and D^-1 t_f, D^-1 n_f written out. Computed once a
 * tick, from the command's steering and the vehicle's constants. */
typedef struct projection {
    double s11, s12, s22, s_det;
    double sf1, sf2, sr1;
    double t_ff, t_fr;
    double hm_cos, hm_sin;     /* (h / m) cos d, (h / m) sin d */
    double hi_a_sin, hi_a_cos; /* (h / Iz) a sin d, (h / Iz) a cos d */
} projection;

/* The projections, written out: hm = h/m, hi = h/Iz. The determinant of S
 * is expanded so that it has no cancellation: h^2 (sin^2 d / m^2 +
 * (b^2 sin^2 d + L^2 cos^2 d) / (m Iz)) > 0, as n_f and n_r are never
 * parallel. group_load repeats this step for step. */
static inline void projection_of(projection *pj, const pdk_st_cmd *cmd, const pdk_st_params *p)
{
    double sd = cmd->sin_steer;
    double cd = cmd->cos_steer;
    double hm = p->h_per_mass;
    double hi = p->h_per_inertia;
    double a = p->a_m;
    double b = p->b_m;
    double len = a + b;
    double acd = a * cd;
    double asd = a * sd;
    double cross = hm - hi * (a * b); /* h (1/m - a b / Iz) */
    pj->s11 = hm + hi * (acd * acd);
    pj->s12 = cd * cross;
    pj->s22 = hm + hi * (b * b);
    pj->s_det = hm * hm * (sd * sd) + hm * hi * (b * b * (sd * sd) + len * len * (cd * cd));
    pj->sf1 = hi * (acd * asd);
    pj->sf2 = sd * cross;
    pj->sr1 = -(hm * sd);
    pj->t_ff = hm + hi * (asd * asd);
    pj->t_fr = hm * cd;
    pj->hm_cos = hm * cd;
    pj->hm_sin = hm * sd;
    pj->hi_a_sin = hi * asd;
    pj->hi_a_cos = hi * acd;
}

/* An axle's admissible longitudinal force when the resistive forces act as
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

/* The axle's lateral damping coefficient c (N s/m), F_lat = -c v_lat, at
 * wheel-plane speed u and lateral slip velocity v_lat, narrowing ar where
 * the wheels lock. The linear tyre, Fy = -C alpha with tan(alpha) =
 * v_lat / |u| (Pacejka ch. 1), is a damper c = C / max(|u|, floor).
 * A rolling wheel: the lateral force is capped by what the friction circle
 * leaves beside the longitudinal force expected for the direction of
 * travel, sqrt((mu Fz)^2 - Fx^2), so c = capacity / |v_lat| beyond it.
 * A locked wheel, one whose brakes (with rolling resistance) exceed the
 * friction limit in the direction of travel, slides: its whole friction
 * force mu Fz opposes the contact's velocity (u, v_lat) (Pacejka ch. 3,
 * combined slip: in full sliding the force is opposite the slip velocity).
 * So it resists u by Coulomb friction of at most mu Fz |u| / s and v_lat by
 * a damper of at most mu Fz / s, s = |(u, v_lat)|, with the direction fixed
 * at the substep's start. */
static inline double axle_damping(axle_range *ar, double stiffness, double u, double v_lat,
                                  double cap)
{
    double c = stiffness / max2(fabs(u), PDK_ST_SLIP_SPEED_FLOOR_MPS);
    if ((u > 0.0 && ar->lo <= -cap) || (u < 0.0 && ar->hi >= cap)) {
        double per_mps = cap / sqrt(u * u + v_lat * v_lat);
        double cap_x = per_mps * fabs(u);
        ar->lo = -cap_x;
        ar->hi = cap_x;
        ar->mid = 0.0;
        return min2(c, per_mps);
    }
    double est = u > 0.0 ? ar->lo : (u < 0.0 ? ar->hi : ar->mid);
    double cap2 = cap * cap - est * est;
    if (!(cap2 > 0.0)) {
        return 0.0;
    }
    double f = c * v_lat;
    if (f * f > cap2) {
        c = sqrt(cap2) / fabs(v_lat);
    }
    return c;
}

/* The longitudinal contact problem of a substep once the lateral dampers are
 * eliminated: the end speeds are affine in the front and rear forces,
 *   u_f' = uf0 + wff Ff + wfr Fr,   vx' = vr0 + wfr Ff + wrr Fr,
 * with W = [wff wfr; wfr wrr] = [t_f e_x]' A^-1 [t_f e_x] symmetric positive
 * semi-definite (A is the system matrix above). Each axle's force lies in its
 * range and opposes its own speed, or holds that speed at zero. The rear
 * range includes the air drag (a resistance on vx like the others). */
typedef struct contact_problem {
    double uf0, vr0, wff, wfr, wrr;
    double lo_f, mid_f, hi_f;
    double lo_r, mid_r, hi_r;
    int straight; /* sin d == 0: u_f' == vx', one speed for both axles */
} contact_problem;

typedef struct contact_result {
    double ff, fr;
    int rear_held; /* vx' is exactly zero */
    int held;      /* some axle holds its speed at zero */
} contact_result;

static double rear_for(const contact_problem *pb, double ff, double inv_wrr, int *held)
{
    double y = -(pb->vr0 + pb->wfr * ff) * inv_wrr;
    *held = y >= pb->lo_r && y <= pb->hi_r;
    return clamp(y, pb->lo_r, pb->hi_r);
}

static double front_speed(const contact_problem *pb, double ff, double inv_wrr)
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
static void contact_solve(const contact_problem *pb, contact_result *res)
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

/* One vehicle's working values during a tick: the state being advanced,
 * its heading as a unit vector, and the last substep's forces for telemetry
 * (drag is the air drag on body x, signed). */
typedef struct lane {
    double x, y, yaw, vx, vy, r, ax, ay;
    double hc, hs;
    double fz_f, fz_r, fx_f, fx_r, fy_f, fy_r, drag;
    projection pj;
} lane;

static void lane_load(lane *v, const pdk_st_state *st, const pdk_st_cmd *cmd,
                      const pdk_st_params *p)
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
    projection_of(&v->pj, cmd, p);
}

/* One substep of one vehicle. */
static inline void lane_substep(lane *v, const pdk_st_cmd *cmd, const pdk_st_params *p)
{
    const double h = p->h_s;
    const double sd = cmd->sin_steer;
    const double cd = cmd->cos_steer;
    const double a = p->a_m;
    const double b = p->b_m;
    const double r = v->r;
    const projection *pj = &v->pj;

    /* 1. The frame turns by t = h r: the heading, then the velocities carried
     * into the new frame, (vx, vy) <- R(-t) (vx, vy). */
    double turn = h * r;
    double st, ct;
    int small = turn <= SMALL_TURN_RAD && turn >= -SMALL_TURN_RAD;
    if (small) {
        small_sincos(turn, &st, &ct);
    } else {
        pdk_trig_sincos(turn, &st, &ct);
    }
    v->yaw += turn;
    if (v->yaw > PI || v->yaw <= -PI) {
        v->yaw = pdk_st_wrap_angle(v->yaw);
    }
    if (small) {
        double hc = v->hc;
        double hs = v->hs;
        v->hc = hc * ct - hs * st;
        v->hs = hs * ct + hc * st;
    } else {
        pdk_trig_sincos(v->yaw, &v->hs, &v->hc);
    }
    const double vx = ct * v->vx + st * v->vy;
    const double vy = ct * v->vy - st * v->vx;

    /* What the forces' laws freeze over the substep (loads, drive, the
     * directions of travel and the damping coefficients) is taken at the
     * substep's start, before the turn, so it does not wait for it. */
    const double vx0 = v->vx;
    const double vy0 = v->vy;

    /* Axle loads with the quasi-static longitudinal transfer m ax h / L
     * (Gillespie ch. 3), from the previous substep's ax. */
    double transfer = p->transfer_n_per_mps2 * v->ax;
    double fz_f = max2(p->static_load_front_n - transfer, 0.0);
    double fz_r = max2(p->static_load_rear_n + transfer, 0.0);
    double cap_f = p->mu_front * fz_f;
    double cap_r = p->mu_rear * fz_r;

    /* Drive: pedal share of min(max force, power / speed), continuous in
     * speed; the governors fade it out over the band below their limit. */
    double speed = fabs(vx0);
    double avail = p->drive_force_n;
    if (p->drive_power_w < avail * speed) {
        avail = p->drive_power_w / speed;
    }
    double drive = cmd->drive_gain * avail;
    if (cmd->governor_mps > 0.0) {
        double excess = (cmd->drive_gain < 0.0 ? -vx0 : vx0) - cmd->governor_fade_mps;
        if (excess > 0.0) {
            drive *= max2(0.0, 1.0 - excess / PDK_ST_GOVERNOR_BAND_MPS);
        }
    }
    double d_f = clamp(drive * p->drive_front_fraction, -cap_f, cap_f);
    double d_r = clamp(drive * p->drive_rear_fraction, -cap_r, cap_r);

    /* Brakes, parking pawl and rolling resistance as Coulomb friction, and
     * the lateral dampers with the friction circle, from the contacts'
     * velocities: the front wheel plane's speed u_f and lateral slip
     * velocity, the rear's (its speed is vx). */
    double w_f0 = vy0 + a * r;
    axle_range rf = axle_range_of(d_f, cmd->hold_front_n + p->rolling_coeff * fz_f, cap_f);
    axle_range rr = axle_range_of(d_r, cmd->hold_rear_n + p->rolling_coeff * fz_r, cap_r);
    double c_f = axle_damping(&rf, p->cornering_front_n_per_rad, cd * vx0 + sd * w_f0,
                              cd * w_f0 - sd * vx0, cap_f);
    double c_r = axle_damping(&rr, p->cornering_rear_n_per_rad, vx0, vy0 - b * r, cap_r);

    /* The same velocities in the new frame, for the solve. */
    double w_f = vy + a * r;
    double u_f = cd * vx + sd * w_f;
    double vlat_f = cd * w_f - sd * vx;
    double vlat_r = vy - b * r;

    /* 2. The implicit solve. A = D + N C N' with N = [n_f n_r], C =
     * diag(c_f, c_r); for any right-hand side, A^-1 = D^-1 - D^-1 N K N'
     * D^-1 with K = (I + C S)^-1 C (Sherman-Morrison-Woodbury; Golub and
     * Van Loan, Matrix Computations, 2.1.4), S = N' D^-1 N (projection).
     * det(I + C S) = 1 + c_f s11 + c_r s22 + c_f c_r det S >= 1. The lateral
     * forces are F_lat = -K (v_lat* + s_f Ff + s_r Fr): (l1, l2) = K v_lat*,
     * (m1, m2) = K s_f, (n1, n2) = K s_r. */
    double cfs = c_f * pj->s11;
    double crs = c_r * pj->s22;
    double cfcr = c_f * c_r;
    double inv_det = 1.0 / (1.0 + cfs + crs + cfcr * pj->s_det);
    double k11 = c_f * (1.0 + crs) * inv_det;
    double k22 = c_r * (1.0 + cfs) * inv_det;
    double k12 = -(cfcr * pj->s12) * inv_det;
    double l1 = k11 * vlat_f + k12 * vlat_r;
    double l2 = k12 * vlat_f + k22 * vlat_r;
    double m1 = k11 * pj->sf1 + k12 * pj->sf2;
    double m2 = k12 * pj->sf1 + k22 * pj->sf2;
    double n1 = k11 * pj->sr1;
    double n2 = k12 * pj->sr1;

    /* The longitudinal contact problem (contact_problem): air drag k vx^2
     * is a resistance on vx like rolling resistance, so it never reverses
     * the car within a substep. */
    double drag = p->drag_n_per_mps2 * vx * vx;
    contact_problem pb;
    pb.uf0 = u_f - (pj->sf1 * l1 + pj->sf2 * l2);
    pb.vr0 = vx - pj->sr1 * l1;
    pb.wff = pj->t_ff - (pj->sf1 * m1 + pj->sf2 * m2);
    pb.wfr = pj->t_fr - pj->sr1 * m1;
    pb.wrr = p->h_per_mass - pj->sr1 * n1;
    pb.lo_f = rf.lo;
    pb.mid_f = rf.mid;
    pb.hi_f = rf.hi;
    pb.lo_r = rr.lo - drag;
    pb.hi_r = rr.hi + drag;
    pb.mid_r = clamp(0.0, pb.lo_r, pb.hi_r);
    contact_result cr;
    cr.rear_held = 0;
    cr.held = 0;
    if (pb.uf0 + pb.wff * pb.lo_f + pb.wfr * pb.lo_r > 0.0 &&
        pb.vr0 + pb.wfr * pb.lo_f + pb.wrr * pb.lo_r > 0.0) {
        cr.ff = pb.lo_f; /* both roll forward */
        cr.fr = pb.lo_r;
    } else if (pb.uf0 + pb.wff * pb.hi_f + pb.wfr * pb.hi_r < 0.0 &&
               pb.vr0 + pb.wfr * pb.hi_f + pb.wrr * pb.hi_r < 0.0) {
        cr.ff = pb.hi_f; /* both roll backward */
        cr.fr = pb.hi_r;
    } else if (vx == 0.0 && vy == 0.0 && r == 0.0 && pb.lo_f <= 0.0 && pb.hi_f >= 0.0 &&
               pb.lo_r <= 0.0 && pb.hi_r >= 0.0) {
        cr.ff = 0.0; /* at rest and held there by nothing at all */
        cr.fr = 0.0;
        cr.rear_held = 1;
        cr.held = 1;
    } else {
        pb.straight = sd == 0.0;
        contact_solve(&pb, &cr);
    }
    double ff = cr.ff;
    double fr = cr.fr;
    double ffl = -(l1 + m1 * ff + n1 * fr);
    double frl = -(l2 + m2 * ff + n2 * fr);
    double vx_new = vx + pj->hm_cos * ff + p->h_per_mass * fr - pj->hm_sin * ffl;
    double vy_new = vy + pj->hm_sin * ff + pj->hm_cos * ffl + p->h_per_mass * frl;
    double r_new = r + pj->hi_a_sin * ff + pj->hi_a_cos * ffl - p->hb_per_inertia * frl;
    if (cr.held) {
        if (cr.rear_held) {
            vx_new = 0.0;
        }
        if (fabs(vx_new) <= PDK_ST_REST_SPEED_MPS && fabs(vy_new) <= PDK_ST_REST_SPEED_MPS &&
            fabs(r_new) <= PDK_ST_REST_YAW_RATE_RADPS) {
            vx_new = 0.0;
            vy_new = 0.0;
            r_new = 0.0;
        }
    }

    /* The CG acceleration in the (new) body frame is the force over the
     * mass: the frame's rotation is already in q*. */
    v->ax = (vx_new - vx) * p->inv_h;
    v->ay = (vy_new - vy) * p->inv_h;
    v->vx = vx_new;
    v->vy = vy_new;
    v->r = r_new;

    /* The new velocities rotated into the world by the new heading. */
    v->x += h * (vx_new * v->hc - vy_new * v->hs);
    v->y += h * (vx_new * v->hs + vy_new * v->hc);

    double fx_r = clamp(fr, rr.lo, rr.hi);
    v->fz_f = fz_f;
    v->fz_r = fz_r;
    v->fx_f = ff;
    v->fx_r = fx_r;
    v->fy_f = ffl;
    v->fy_r = frl;
    v->drag = fr - fx_r;
}

/* Whether any of the lane's state values is infinite or NaN, or its speed
 * overflows (|v| > 1e154 m/s, which only a corrupted state can reach): x - x
 * is 0 for every finite x and NaN otherwise. */
static int lane_broken(const lane *v)
{
    double v2 = v->vx * v->vx + v->vy * v->vy;
    double z = (((v->x - v->x) + (v->y - v->y)) + ((v->yaw - v->yaw) + (v->vx - v->vx))) +
               (((v->vy - v->vy) + (v->r - v->r)) + ((v->ax - v->ax) + (v->ay - v->ay))) +
               (v2 - v2);
    return z != 0.0;
}

static double finite_or_zero(double x)
{
    return x - x == 0.0 ? x : 0.0;
}

/* The fault of a vehicle whose tick produced a non-finite value: it stays
 * where the tick began (st still holds it) with no velocity, and reports so. */
static void lane_fault(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, double *ch)
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

static double negligible_to_zero(double x)
{
    return fabs(x) < PDK_ST_NEGLIGIBLE ? 0.0 : x;
}

/* Writes the tick's end state back and the telemetry, once per tick. Slip
 * angles follow ISO 8855: the angle from the wheel plane to the contact's
 * velocity, positive to the left, with the force law's speed floor. */
static int lane_store(const lane *v, pdk_st_state *st, const pdk_st_cmd *cmd,
                      const pdk_st_params *p, double *ch)
{
    if (lane_broken(v)) {
        lane_fault(st, cmd, p, ch);
        return 1;
    }
    double vy = negligible_to_zero(v->vy);
    double r = negligible_to_zero(v->r);
    st->x_m = v->x;
    st->y_m = v->y;
    st->yaw_rad = v->yaw;
    st->vx_mps = v->vx;
    st->vy_mps = vy;
    st->yaw_rate_radps = r;
    st->ax_mps2 = negligible_to_zero(v->ax);
    st->ay_mps2 = negligible_to_zero(v->ay);

    double w_f = vy + p->a_m * r;
    double u_f = cmd->cos_steer * v->vx + cmd->sin_steer * w_f;
    double vlat_f = cmd->cos_steer * w_f - cmd->sin_steer * v->vx;
    double rolling = p->rolling_coeff * (v->fz_f * cmd->cos_steer + v->fz_r);
    ch[PDK_CH_POS_X] = v->x;
    ch[PDK_CH_POS_Y] = v->y;
    ch[PDK_CH_POS_Z] = p->cg_height_m;
    ch[PDK_CH_YAW] = v->yaw;
    ch[PDK_CH_SPEED] = sqrt(v->vx * v->vx + vy * vy);
    ch[PDK_CH_VEL_X] = v->vx;
    ch[PDK_CH_VEL_Y] = vy;
    ch[PDK_CH_YAW_RATE] = r;
    ch[PDK_CH_ACCEL_X] = st->ax_mps2;
    ch[PDK_CH_ACCEL_Y] = st->ay_mps2;
    ch[PDK_CH_STEER_ANGLE] = cmd->steer_rad;
    ch[PDK_CH_STEER_WHEEL] = cmd->steer_wheel_deg;
    ch[PDK_CH_THROTTLE] = cmd->throttle_pct;
    ch[PDK_CH_BRAKE] = cmd->brake_bar;
    ch[PDK_CH_GEAR] = cmd->gear_code;
    ch[PDK_CH_TYRE_LOAD_F] = v->fz_f;
    ch[PDK_CH_TYRE_LOAD_R] = v->fz_r;
    ch[PDK_CH_SLIP_ANGLE_F] = pdk_trig_atan2(vlat_f, max2(fabs(u_f), PDK_ST_SLIP_SPEED_FLOOR_MPS));
    ch[PDK_CH_SLIP_ANGLE_R] =
        pdk_trig_atan2(vy - p->b_m * r, max2(fabs(v->vx), PDK_ST_SLIP_SPEED_FLOOR_MPS));
    ch[PDK_CH_FORCE_X_F] = v->fx_f;
    ch[PDK_CH_FORCE_X_R] = v->fx_r;
    ch[PDK_CH_FORCE_Y_F] = v->fy_f;
    ch[PDK_CH_FORCE_Y_R] = v->fy_r;
    ch[PDK_CH_DRAG] = v->drag;
    ch[PDK_CH_ROLLING] = v->vx > 0.0 ? -rolling : (v->vx < 0.0 ? rolling : 0.0);
    ch[PDK_CH_FAULTED] = 0.0;
    return 0;
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
    vm nan_in = ~(eq(x, x) & eq(y, y));
    vf ax = vabs(x);
    vf ay = vabs(y);
    vm at_origin = eq(ay, splat(0.0)) & eq(ax, splat(0.0));
    vm swap = gt(ay, ax);
    /* At the origin t would be 0/0; 0 keeps the table index in range, and
     * the lane's result is replaced below. NaN lanes get t = 1 (their result
     * is replaced too), both-infinite lanes t = 1 as in the scalar code. */
    vf t = sel(at_origin, splat(0.0), sel(swap, ax, ay) / sel(swap, ay, ax));
    t = sel(eq(t, t), t, splat(1.0));
    /* k = (int)t8 is floor(t8), as t8 >= 0.5. */
    vf t8 = vmin(t * 8.0 + 0.5, splat(8.5));
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
    r = (vf)((vm)r ^ ((vm)y & INT64_MIN)); /* the sign of y */
    return sel(nan_in, splat(PDK_TRIG_NAN), r);
}

/* small_sincos lane by lane. */
VECTOR_CODE static inline void vsmall_sincos(vf t, vf *st, vf *ct)
{
    vf z = t * t;
    vf z2 = z * z;
    *st = t * ((1.0 + z * (-1.0 / 6.0)) + z2 * (1.0 / 120.0 + z * (-1.0 / 5040.0)));
    *ct = (1.0 + z * -0.5) + z2 * ((1.0 / 24.0 + z * (-1.0 / 720.0)) + z2 * (1.0 / 40320.0));
}

/* axle_damping lane by lane: the rolling law for every lane, then the
 * locked law for the lanes that lock (the scalar code computes only the
 * one that applies; both give the same values). */
VECTOR_CODE static inline vf vaxle_damping(vf *lo, vf *mid, vf *hi, vf stiffness, vf u, vf v_lat,
                                           vf cap)
{
    const vf zero = splat(0.0);
    vf c = stiffness / vmax(vabs(u), splat(PDK_ST_SLIP_SPEED_FLOOR_MPS));
    vm fwd = gt(u, zero);
    vm bwd = lt(u, zero);
    vm locked = (fwd & le(*lo, -cap)) | (bwd & le(cap, *hi));
    vf est = sel(fwd, *lo, sel(bwd, *hi, *mid));
    vf cap2 = cap * cap - est * est;
    vm has_cap = gt(cap2, zero);
    vf f = c * v_lat;
    vm saturated = has_cap & gt(f * f, cap2);
    if (all(has_cap & ~saturated & ~locked)) {
        return c;
    }
    vf rolling = c;
    if (any(saturated)) {
        rolling = sel(saturated, vsqrt(cap2) / vabs(v_lat), c);
    }
    rolling = (vf)(has_cap & (vm)rolling); /* or +0.0 without capacity */
    if (any(locked)) {
        vf per_mps = cap / vsqrt(u * u + v_lat * v_lat);
        vf cap_x = per_mps * vabs(u);
        *lo = sel(locked, -cap_x, *lo);
        *hi = sel(locked, cap_x, *hi);
        *mid = sel(locked, zero, *mid);
        rolling = sel(locked, vmin(c, per_mps), rolling);
    }
    return rolling;
}

/* A group of LANES vehicles during a tick: the lane struct's values, then
 * the vehicles' constants and held commands, gathered once per tick. */
typedef struct group {
    vf x, y, yaw, vx, vy, r, ax, ay;
    vf hc, hs;
    vf fz_f, fz_r, fx_f, fx_r, fy_f, fy_r, drag;
    /* pdk_st_params */
    vf h, inv_h, h_per_mass, hb_per_inertia, a, b;
    vf static_load_f, static_load_r, transfer, stiffness_f, stiffness_r, mu_f, mu_r;
    vf rolling, drag_coeff, drive_force, drive_power, drive_frac_f, drive_frac_r;
    /* pdk_st_cmd */
    vf sd, cd, drive_gain, governor, governor_fade, hold_f, hold_r;
    vf s11, s12, s22, s_det, sf1, sf2, sr1, t_ff, t_fr, hm_cos, hm_sin, hi_a_sin, hi_a_cos;
    vf cg_height, steer_rad, steer_wheel, throttle, brake, gear; /* echoed as channels */
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

    vf hi;
    GATHER(g->h, p, h_s);
    GATHER(g->inv_h, p, inv_h);
    GATHER(g->h_per_mass, p, h_per_mass);
    GATHER(hi, p, h_per_inertia);
    GATHER(g->hb_per_inertia, p, hb_per_inertia);
    GATHER(g->a, p, a_m);
    GATHER(g->b, p, b_m);
    GATHER(g->cg_height, p, cg_height_m);
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

    GATHER(g->throttle, cmd, throttle_pct);
    GATHER(g->brake, cmd, brake_bar);
    GATHER(g->steer_wheel, cmd, steer_wheel_deg);
    GATHER(g->steer_rad, cmd, steer_rad);
    GATHER(g->sd, cmd, sin_steer);
    GATHER(g->cd, cmd, cos_steer);
    GATHER(g->drive_gain, cmd, drive_gain);
    GATHER(g->governor, cmd, governor_mps);
    GATHER(g->governor_fade, cmd, governor_fade_mps);
    GATHER(g->hold_f, cmd, hold_front_n);
    GATHER(g->hold_r, cmd, hold_rear_n);
    GATHER(g->gear, cmd, gear_code);

    /* projection_of, lane by lane. */
    vf hm = g->h_per_mass;
    vf sd = g->sd;
    vf cd = g->cd;
    vf a = g->a;
    vf b = g->b;
    vf len = a + b;
    vf acd = a * cd;
    vf asd = a * sd;
    vf cross = hm - hi * (a * b);
    g->s11 = hm + hi * (acd * acd);
    g->s12 = cd * cross;
    g->s22 = hm + hi * (b * b);
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
    const vf r = g->r;

    /* The frame's turn: the series for every lane, then the lanes whose yaw
     * leaves (-pi, pi] or whose turn is too large for the series are
     * finished alone, as the scalar code does it. */
    vf turn = h * r;
    vf st, ct;
    vsmall_sincos(turn, &st, &ct);
    vf yaw = g->yaw + turn;
    vf hc = g->hc * ct - g->hs * st;
    vf hs = g->hs * ct + g->hc * st;
    vm wrap = gt(yaw, splat(PI)) | le(yaw, splat(-PI));
    vm large = ~(le(turn, splat(SMALL_TURN_RAD)) & le(splat(-SMALL_TURN_RAD), turn));
    if (any(wrap | large)) {
        for (int l = 0; l < LANES; l++) {
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
    const vf vx = ct * g->vx + st * g->vy;
    const vf vy = ct * g->vy - st * g->vx;
    const vf vx0 = g->vx;
    const vf vy0 = g->vy;

    vf transfer = g->transfer * g->ax;
    vf fz_f = vmax(g->static_load_f - transfer, zero);
    vf fz_r = vmax(g->static_load_r + transfer, zero);
    vf cap_f = g->mu_f * fz_f;
    vf cap_r = g->mu_r * fz_r;

    vf speed = vabs(vx0);
    vf avail =
        sel(lt(g->drive_power, g->drive_force * speed), g->drive_power / speed, g->drive_force);
    vf drive = g->drive_gain * avail;
    if (g->governed) {
        vf excess = (vf)((vm)vx0 ^ g->reverse_drive) - g->governor_fade;
        vm fading = gt(g->governor, zero) & gt(excess, zero);
        drive = sel(fading, drive * vmax(zero, 1.0 - excess / PDK_ST_GOVERNOR_BAND_MPS), drive);
    }
    vf d_f = vclamp(drive * g->drive_frac_f, -cap_f, cap_f);
    vf d_r = vclamp(drive * g->drive_frac_r, -cap_r, cap_r);

    /* axle_range_of and axle_damping for each axle */
    vf w_f0 = vy0 + a * r;
    vf res_f = g->hold_f + g->rolling * fz_f;
    vf res_r = g->hold_r + g->rolling * fz_r;
    vf lo_f = vmax(d_f - res_f, -cap_f);
    vf hi_f = vmin(d_f + res_f, cap_f);
    vf mid_f = vclamp(zero, lo_f, hi_f);
    vf lo_r = vmax(d_r - res_r, -cap_r);
    vf hi_r = vmin(d_r + res_r, cap_r);
    vf mid_r = vclamp(zero, lo_r, hi_r);
    vf c_f = vaxle_damping(&lo_f, &mid_f, &hi_f, g->stiffness_f, cd * vx0 + sd * w_f0,
                           cd * w_f0 - sd * vx0, cap_f);
    vf c_r = vaxle_damping(&lo_r, &mid_r, &hi_r, g->stiffness_r, vx0, vy0 - b * r, cap_r);

    vf w_f = vy + a * r;
    vf u_f = cd * vx + sd * w_f;
    vf vlat_f = cd * w_f - sd * vx;
    vf vlat_r = vy - b * r;

    vf cfs = c_f * g->s11;
    vf crs = c_r * g->s22;
    vf cfcr = c_f * c_r;
    vf inv_det = 1.0 / (1.0 + cfs + crs + cfcr * g->s_det);
    vf k11 = c_f * (1.0 + crs) * inv_det;
    vf k22 = c_r * (1.0 + cfs) * inv_det;
    vf k12 = -(cfcr * g->s12) * inv_det;
    vf l1 = k11 * vlat_f + k12 * vlat_r;
    vf l2 = k12 * vlat_f + k22 * vlat_r;
    vf m1 = k11 * g->sf1 + k12 * g->sf2;
    vf m2 = k12 * g->sf1 + k22 * g->sf2;
    vf n1 = k11 * g->sr1;
    vf n2 = k12 * g->sr1;

    vf drag = g->drag_coeff * vx * vx;
    vf uf0 = u_f - (g->sf1 * l1 + g->sf2 * l2);
    vf vr0 = vx - g->sr1 * l1;
    vf wff = g->t_ff - (g->sf1 * m1 + g->sf2 * m2);
    vf wfr = g->t_fr - g->sr1 * m1;
    vf wrr = g->h_per_mass - g->sr1 * n1;
    vf lo_rd = lo_r - drag;
    vf hi_rd = hi_r + drag;
    vm fwd = gt(uf0 + wff * lo_f + wfr * lo_rd, zero) & gt(vr0 + wfr * lo_f + wrr * lo_rd, zero);
    vf ff = lo_f;
    vf fr = lo_rd;
    vm held = {0, 0, 0, 0};
    vm rear_held = {0, 0, 0, 0};
    if (!all(fwd)) {
        vm bwd = ~fwd & lt(uf0 + wff * hi_f + wfr * hi_rd, zero) &
                 lt(vr0 + wfr * hi_f + wrr * hi_rd, zero);
        vm rest = ~fwd & ~bwd & eq(vx, zero) & eq(vy, zero) & eq(r, zero) & le(lo_f, zero) &
                  le(zero, hi_f) & le(lo_rd, zero) & le(zero, hi_rd);
        ff = sel(fwd, lo_f, sel(bwd, hi_f, zero));
        fr = sel(fwd, lo_rd, sel(bwd, hi_rd, zero));
        held = rest;
        rear_held = rest;
        vm other = ~(fwd | bwd | rest);
        if (any(other)) {
            vf mid_rd = vclamp(zero, lo_rd, hi_rd);
            for (int l = 0; l < LANES; l++) {
                if (other[l]) {
                    contact_problem pb = {
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
                    contact_result cr;
                    contact_solve(&pb, &cr);
                    ff[l] = cr.ff;
                    fr[l] = cr.fr;
                    held[l] = cr.held ? -1 : 0;
                    rear_held[l] = cr.rear_held ? -1 : 0;
                }
            }
        }
    }
    vf ffl = -(l1 + m1 * ff + n1 * fr);
    vf frl = -(l2 + m2 * ff + n2 * fr);
    vf vx_new = vx + g->hm_cos * ff + g->h_per_mass * fr - g->hm_sin * ffl;
    vf vy_new = vy + g->hm_sin * ff + g->hm_cos * ffl + g->h_per_mass * frl;
    vf r_new = r + g->hi_a_sin * ff + g->hi_a_cos * ffl - g->hb_per_inertia * frl;
    if (any(held)) {
        vx_new = sel(rear_held, zero, vx_new);
        vm resting = held & le(vabs(vx_new), splat(PDK_ST_REST_SPEED_MPS)) &
                     le(vabs(vy_new), splat(PDK_ST_REST_SPEED_MPS)) &
                     le(vabs(r_new), splat(PDK_ST_REST_YAW_RATE_RADPS));
        vx_new = sel(resting, zero, vx_new);
        vy_new = sel(resting, zero, vy_new);
        r_new = sel(resting, zero, r_new);
    }

    g->ax = (vx_new - vx) * g->inv_h;
    g->ay = (vy_new - vy) * g->inv_h;
    g->vx = vx_new;
    g->vy = vy_new;
    g->r = r_new;
    g->x += h * (vx_new * hc - vy_new * hs);
    g->y += h * (vx_new * hs + vy_new * hc);

    vf fx_r = vclamp(fr, lo_r, hi_r);
    g->fz_f = fz_f;
    g->fz_r = fz_r;
    g->fx_f = ff;
    g->fx_r = fx_r;
    g->fy_f = ffl;
    g->fy_r = frl;
    g->drag = fr - fx_r;
}

/* negligible_to_zero lane by lane. */
VECTOR_CODE static inline vf vnegligible_to_zero(vf x)
{
    return sel(lt(vabs(x), splat(PDK_ST_NEGLIGIBLE)), splat(0.0), x);
}

/* Writes four channels of each of the first n lanes, channels ch..ch+3 from
 * the vectors c0..c3: a 4x4 transpose, then one store per lane. */
VECTOR_CODE static inline void store4(double *const *chs, int n, int ch, vf c0, vf c1, vf c2, vf c3)
{
    __m256d t0 = _mm256_unpacklo_pd((__m256d)c0, (__m256d)c1);
    __m256d t1 = _mm256_unpackhi_pd((__m256d)c0, (__m256d)c1);
    __m256d t2 = _mm256_unpacklo_pd((__m256d)c2, (__m256d)c3);
    __m256d t3 = _mm256_unpackhi_pd((__m256d)c2, (__m256d)c3);
    __m256d row[LANES] = {
        _mm256_permute2f128_pd(t0, t2, 0x20),
        _mm256_permute2f128_pd(t1, t3, 0x20),
        _mm256_permute2f128_pd(t0, t2, 0x31),
        _mm256_permute2f128_pd(t1, t3, 0x31),
    };
    for (int l = 0; l < n; l++) {
        _mm256_storeu_pd(&chs[l][ch], row[l]);
    }
}

/* store4 writes channels in fours: the registry's order, checked here. */
_Static_assert(
    PDK_CH_POS_Y == PDK_CH_POS_X + 1 && PDK_CH_POS_Z == PDK_CH_POS_X + 2 &&
        PDK_CH_YAW == PDK_CH_POS_X + 3 && PDK_CH_SPEED == PDK_CH_POS_X + 4 &&
        PDK_CH_VEL_X == PDK_CH_SPEED + 1 && PDK_CH_VEL_Y == PDK_CH_SPEED + 2 &&
        PDK_CH_YAW_RATE == PDK_CH_SPEED + 3 && PDK_CH_ACCEL_X == PDK_CH_SPEED + 4 &&
        PDK_CH_ACCEL_Y == PDK_CH_ACCEL_X + 1 && PDK_CH_STEER_ANGLE == PDK_CH_ACCEL_X + 2 &&
        PDK_CH_STEER_WHEEL == PDK_CH_ACCEL_X + 3 && PDK_CH_THROTTLE == PDK_CH_ACCEL_X + 4 &&
        PDK_CH_BRAKE == PDK_CH_THROTTLE + 1 && PDK_CH_GEAR == PDK_CH_THROTTLE + 2 &&
        PDK_CH_TYRE_LOAD_F == PDK_CH_THROTTLE + 3 && PDK_CH_TYRE_LOAD_R == PDK_CH_THROTTLE + 4 &&
        PDK_CH_SLIP_ANGLE_F == PDK_CH_TYRE_LOAD_R + 1 &&
        PDK_CH_SLIP_ANGLE_R == PDK_CH_TYRE_LOAD_R + 2 &&
        PDK_CH_FORCE_X_F == PDK_CH_TYRE_LOAD_R + 3 && PDK_CH_FORCE_X_R == PDK_CH_TYRE_LOAD_R + 4 &&
        PDK_CH_FORCE_Y_F == PDK_CH_FORCE_X_R + 1 && PDK_CH_FORCE_Y_R == PDK_CH_FORCE_X_R + 2 &&
        PDK_CH_DRAG == PDK_CH_FORCE_X_R + 3 && PDK_CH_ROLLING == PDK_CH_FORCE_X_R + 4 &&
        PDK_CH_FAULTED == PDK_CH_ROLLING + 1,
    "group_store writes the channels in this order (the four-wheel channels after Faulted "
    "are the world's to fill for a single-track vehicle)");

/* lane_store for the group's first n lanes. */
VECTOR_CODE static int group_store(const group *g, int n, pdk_st_state *const *st,
                                   const pdk_st_cmd *const *cmd, const pdk_st_params *const *p,
                                   double *const *chs)
{
    const vf zero = splat(0.0);
    vf v2 = g->vx * g->vx + g->vy * g->vy;
    vf broken_sum = (((g->x - g->x) + (g->y - g->y)) + ((g->yaw - g->yaw) + (g->vx - g->vx))) +
                    (((g->vy - g->vy) + (g->r - g->r)) + ((g->ax - g->ax) + (g->ay - g->ay))) +
                    (v2 - v2);
    vm broken = ~eq(broken_sum, zero);
    vf vx = g->vx;
    vf vy = vnegligible_to_zero(g->vy);
    vf r = vnegligible_to_zero(g->r);
    vf ax = vnegligible_to_zero(g->ax);
    vf ay = vnegligible_to_zero(g->ay);
    vf w_f = vy + g->a * r;
    vf u_f = g->cd * vx + g->sd * w_f;
    vf vlat_f = g->cd * w_f - g->sd * vx;
    vf rolling = g->rolling * (g->fz_f * g->cd + g->fz_r);
    vf rolling_ch = sel(gt(vx, zero), -rolling, sel(lt(vx, zero), rolling, zero));
    vf speed = vsqrt(vx * vx + vy * vy);
    vf floor_mps = splat(PDK_ST_SLIP_SPEED_FLOOR_MPS);
    vf slip_f = vatan2(vlat_f, vmax(vabs(u_f), floor_mps));
    vf slip_r = vatan2(vy - g->b * r, vmax(vabs(vx), floor_mps));
    store4(chs, n, PDK_CH_POS_X, g->x, g->y, g->cg_height, g->yaw);
    store4(chs, n, PDK_CH_SPEED, speed, vx, vy, r);
    store4(chs, n, PDK_CH_ACCEL_X, ax, ay, g->steer_rad, g->steer_wheel);
    store4(chs, n, PDK_CH_THROTTLE, g->throttle, g->brake, g->gear, g->fz_f);
    store4(chs, n, PDK_CH_TYRE_LOAD_R, g->fz_r, slip_f, slip_r, g->fx_f);
    store4(chs, n, PDK_CH_FORCE_X_R, g->fx_r, g->fy_f, g->fy_r, g->drag);
    int faults = 0;
    for (int l = 0; l < n; l++) {
        pdk_st_state *s = st[l];
        double *ch = chs[l];
        if (broken[l]) {
            /* The state still holds where the tick began; the fault
             * rewrites every channel. */
            lane_fault(s, cmd[l], p[l], ch);
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
        ch[PDK_CH_ROLLING] = rolling_ch[l];
        ch[PDK_CH_FAULTED] = 0.0;
    }
    return faults;
}

/* Steps the first count vehicles of a batch in groups, the last group padded
 * with copies of its last vehicle when count is not a multiple of LANES. */
VECTOR_CODE static int step_groups(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
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
    int faults = 0;
    for (int j = 0; j < groups; j++) {
        int first = j * LANES;
        int n = count - first < LANES ? count - first : LANES;
        faults +=
            group_store(&gs[j], n, &states[first], &cmds[first], &params[first], &channels[first]);
    }
    return faults;
}
#endif /* HAVE_VECTORS */

int pdk_st_step_batch(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                      const pdk_st_params *const *params, double *const *channels, int count,
                      int substeps)
{
    PDK_ASSERT(count >= 1 && count <= PDK_ST_BATCH);
    int first = 0;
    int faults = 0;
#if HAVE_VECTORS
    if (__builtin_cpu_supports("avx")) {
        int rest = count % LANES;
        first = rest >= MIN_GROUP ? count : count - rest;
        if (first > 0) {
            faults = step_groups(states, cmds, params, channels, first, substeps);
        }
    }
#endif
    /* The scalar path, substep-major: the lanes' dependency chains are
     * independent, so the processor overlaps them. */
    lane lanes[PDK_ST_BATCH];
    int n = count - first;
    for (int k = 0; k < n; k++) {
        lane_load(&lanes[k], states[first + k], cmds[first + k], params[first + k]);
    }
    for (int i = 0; i < substeps; i++) {
        for (int k = 0; k < n; k++) {
            lane_substep(&lanes[k], cmds[first + k], params[first + k]);
        }
    }
    for (int k = 0; k < n; k++) {
        int v = first + k;
        faults += lane_store(&lanes[k], states[v], cmds[v], params[v], channels[v]);
    }
    return faults;
}

void pdk_st_step(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, int substeps,
                 double *ch)
{
    (void)pdk_st_step_batch(&st, &cmd, &p, &ch, 1, substeps);
}
