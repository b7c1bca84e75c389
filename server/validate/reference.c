/* The validation's analytic references (reference.h): the understeer
 * gradients, the static stability factor, the law's own friction and the
 * stopping distance, and the ISO 3888-1 course with its path check. Every
 * tyre force comes from sim's law through sim/tyre_probe.h. */
#include "reference.h"

#include <math.h>
#include <stddef.h>

#include "sim/driveline_def.h"
#include "sim/engine_def.h"
#include "sim/surface_def.h"
#include "sim/tyre_probe.h"

#define PI_REF 3.14159265358979323846
#define DEG_PER_RAD (180.0 / PI_REF)

/* The most lateral acceleration an understeer reference is taken at: above
 * any road car's grip, where a linear reference has long stopped meaning
 * anything. */
#define MAX_AY_MPS2 10.0

/* The step of the central difference that turns the steer shares into
 * their gradients: small against the accelerations the gradient is quoted
 * at, large against rounding. */
#define AY_STEP_MPS2 0.05

/* The braking slips the friction scan covers: geometric from the first to
 * full lock, FRICTION_SCAN points (4.7 % apart). */
#define FRICTION_SCAN 150
#define FRICTION_SCAN_FIRST 1.0e-3

/* Fixed-point passes that put the braking car's loads where its own
 * deceleration moves them (each pass shrinks the error by the load
 * sensitivity's share, well below a tenth). */
#define FRICTION_LOAD_PASSES 8

/* The four-wheel model's cap on a tyre's rolling-resistance coefficient
 * (the Polaris model's, four_wheel_substep.h). */
#define MAX_ROLLING_COEFF 0.45

pdk_ref_world pdk_ref_world_default(void)
{
    return (pdk_ref_world){.gravity_mps2 = 9.81, .surface_friction = 1.0};
}

static int world_ok(const pdk_ref_world *w)
{
    return isfinite(w->gravity_mps2) && w->gravity_mps2 > 0.0 && isfinite(w->surface_friction) &&
           w->surface_friction >= 0.0;
}

/* The lateral force of one tyre (right 0 left, 1 right) at a load, slip and
 * ISO camber on dry tarmac, from the law. */
static double tyre_fy(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle, int right,
                      double fz_n, double tan_alpha, double gamma_rad, double *slope)
{
    const pdk_tyre_probe_in in = {axle,
                                  right,
                                  PDK_SURFACE_TARMAC,
                                  w->surface_friction,
                                  w->gravity_mps2,
                                  fz_n > 0.0 ? fz_n : 0.0,
                                  0.0,
                                  tan_alpha,
                                  gamma_rad};
    pdk_tyre_probe_out out = {0};
    (void)pdk_tyre_probe(def, &in, &out);
    if (slope != NULL) {
        *slope = out.dfy_dalpha_n;
    }
    return out.fy_n;
}

/* One tyre's cornering stiffness at fz_n, zero slip and camber. */
static double tyre_cornering(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle,
                             double fz_n)
{
    double c = 0.0;
    (void)tyre_fy(def, w, axle, 0, fz_n, 0.0, 0.0, &c);
    return c;
}

pdk_error pdk_ref_axle_cornering_n_per_rad(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                           int axle, double fz_n, double *out)
{
    if (def == NULL || world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if ((axle != 0 && axle != 1) || !isfinite(fz_n) || fz_n < 0.0 || !world_ok(world)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        const pdk_axle_tyre_def *t = axle == 0 ? &def->tyre_front : &def->tyre_rear;
        *out = t->cornering_stiffness_n_per_rad;
        return PDK_OK;
    }
    *out = 2.0 * tyre_cornering(def, world, axle, fz_n);
    return PDK_OK;
}

/* The steer shares of reference.h at a left turn of ay >= 0, in the order
 * bicycle, load transfer, camber, toe, roll steer, the tyres' curvature,
 * downforce, tractive force, Ackermann, body damping; *u gets the figures
 * behind them. */
enum {
    SHARE_BICYCLE,
    SHARE_TRANSFER,
    SHARE_CAMBER,
    SHARE_TOE,
    SHARE_ROLL_STEER,
    SHARE_CURVATURE,
    SHARE_DOWNFORCE,
    SHARE_TRACTIVE,
    SHARE_ACKERMANN,
    SHARE_DAMPING,
    SHARES
};

/* The iterations of the axle solve below: Newton's method on a slope that
 * changes little below the peak converges in a handful. */
#define AXLE_SOLVE_ITERATIONS 40
#define KAPPA_SOLVE_ITERATIONS 4

/* One axle in a steady turn, through the law: the slip angle s (rad, of
 * the axle's path against its wheels' centre plane; positive gives a force
 * to the left) at which its two tyres, each at its load fz, ISO camber
 * gamma and toe steer toe (positive to the left), give the axle's lateral
 * force. With fx NULL the wheels roll free of slip (kappa 0); otherwise
 * each wheel's slip kappa is found so that the tyre gives fx[side] along
 * its heading as well, and the lateral force falls as the law's combined
 * slip (friction ellipse, the Magic Formula's G_yk) says (Pacejka, Tire
 * and Vehicle Dynamics, 3rd ed., ch. 4.3.2; Milliken and Milliken ch. 2,
 * the friction circle). Newton's method on the law's own slopes. fy, if
 * not NULL, gets each tyre's lateral force at the last slip tried. */
static double axle_slip_rad(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle,
                            const double fz[2], const double gamma[2], const double toe[2],
                            const double *fx, double force_n, double s, double *fy)
{
    double kappa[2] = {0.0, 0.0};
    for (int it = 0; it < AXLE_SOLVE_ITERATIONS; it++) {
        double fy_sum = 0.0, slope = 0.0;
        for (int side = 0; side < 2; side++) {
            pdk_tyre_probe_in in = {axle,
                                    side,
                                    PDK_SURFACE_TARMAC,
                                    w->surface_friction,
                                    w->gravity_mps2,
                                    fz[side] > 0.0 ? fz[side] : 0.0,
                                    kappa[side],
                                    -tan(s + toe[side]),
                                    gamma[side]};
            pdk_tyre_probe_out out = {0};
            for (int k = 0; fx != NULL && k < KAPPA_SOLVE_ITERATIONS; k++) {
                (void)pdk_tyre_probe(def, &in, &out);
                if (out.dfx_dkappa_n > 0.0) {
                    in.kappa += (fx[side] - out.fx_n) / out.dfx_dkappa_n;
                }
            }
            kappa[side] = in.kappa;
            (void)pdk_tyre_probe(def, &in, &out);
            fy_sum += out.fy_n;
            slope += out.dfy_dalpha_n;
            if (fy != NULL) {
                fy[side] = out.fy_n;
            }
        }
        if (!(slope > 0.0)) {
            break; /* past the peak: no slip gives more */
        }
        const double step = (force_n - fy_sum) / slope;
        s += step;
        if (fabs(step) < 1e-12) {
            break;
        }
    }
    return s;
}

/* Whether def's axle (0 front, 1 rear) is locked: a geared layout's
 * driven axle with a locked differential (a kart's spool), or the UTV's
 * rear in 2WD and AWD (docs/powertrain.md). */
static int axle_locked(const pdk_vehicle_def *def, int axle)
{
    const pdk_powertrain_def *pt = &def->powertrain;
    if (pt->kind == PDK_POWERTRAIN_UTV) {
        return axle == 1 && pt->drive_mode != PDK_DRIVE_TURF;
    }
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        return axle == pt->layout.driven_axle && pt->layout.diff.kind == PDK_DIFF_LOCKED;
    }
    return 0;
}

/* The share of the drive force the front axle takes at a steady speed:
 * the lumped drive's front_fraction; a geared layout's driven axle (half
 * each with a coupling to the other); the UTV's rear (its front's
 * overrunning clutches do not drive at a steady speed). */
static double drive_front_share(const pdk_vehicle_def *def)
{
    switch (def->powertrain.kind) {
    case PDK_POWERTRAIN_UTV:
        return 0.0;
    case PDK_POWERTRAIN_GEARED:
        if (def->powertrain.layout.coupling != PDK_COUPLING_NONE) {
            return 0.5;
        }
        return def->powertrain.layout.driven_axle == 0 ? 1.0 : 0.0;
    default:
        return def->drive.front_fraction;
    }
}

/* The differential between axle's wheels: a geared layout's driven axle's
 * own, the other axle's through a coupling; the UTV's rear is a spool but
 * in turf mode; every other axle an open one (a lumped drive's, and one
 * that is not driven, whose shafts carry no torque). */
static pdk_dl_diff axle_diff(const pdk_vehicle_def *def, int axle)
{
    const pdk_powertrain_def *pt = &def->powertrain;
    pdk_dl_diff open = {PDK_DIFF_OPEN, 1.0, 0.0};
    if (axle_locked(def, axle)) {
        return (pdk_dl_diff){PDK_DIFF_LOCKED, 1.0, 0.0};
    }
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        if (axle == pt->layout.driven_axle) {
            return pt->layout.diff;
        }
        if (pt->layout.coupling != PDK_COUPLING_NONE) {
            return pt->layout.secondary_diff;
        }
    }
    return open;
}

/* The newton steps that find a locked axle's common spin: its slope
 * changes little below the tyres' peak. */
#define SPIN_SOLVE_ITERATIONS 20

/* The longitudinal forces fx[side] of an axle's two tyres whose shafts
 * carry shaft_n between them (the axle's drive as a force at the ground),
 * each tyre pushing back roll_f[side] of rolling resistance, at loads fz,
 * cambers gamma and toe, the axle's slip s (axle_slip_rad). The shafts'
 * torques split as the differential lets them: an open one evenly; a
 * locked one turns both wheels at one spin, so that their slips differ
 * as their contacts' speeds along their headings, speed[side] (on the
 * circle the outer one runs t/R faster), and their tyres' forces differ
 * with them, the inner's the larger (Milliken and Milliken ch. 20, the
 * locked differential in a turn); a limited slip one as a locked one
 * until that difference needs more torque than its friction holds
 * (pdk_dl_diff_hold_nm), then with the difference it holds, the slower
 * wheel's the larger. */
static void axle_fx(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle,
                    const pdk_dl_diff *diff, const double fz[2], const double gamma[2],
                    const double toe[2], const double speed[2], const double roll_f[2],
                    double shaft_n, double s, double fx[2])
{
    double shaft[2] = {0.5 * shaft_n, 0.5 * shaft_n};
    if (diff->kind != PDK_DIFF_OPEN) {
        /* One spin, rho = omega R over the CG's speed: each tyre's slip is
         * rho / speed - 1; newton's method on the law's slopes for the
         * spin at which the tyres give the shafts' force less rolling
         * resistance. */
        const double want = shaft_n - roll_f[0] - roll_f[1];
        double rho = 0.5 * (speed[0] + speed[1]), f[2] = {0.0, 0.0};
        for (int it = 0; it < SPIN_SOLVE_ITERATIONS; it++) {
            double sum = 0.0, slope = 0.0;
            for (int side = 0; side < 2; side++) {
                const pdk_tyre_probe_in in = {axle,
                                              side,
                                              PDK_SURFACE_TARMAC,
                                              w->surface_friction,
                                              w->gravity_mps2,
                                              fz[side] > 0.0 ? fz[side] : 0.0,
                                              rho / speed[side] - 1.0,
                                              -tan(s + toe[side]),
                                              gamma[side]};
                pdk_tyre_probe_out out = {0};
                (void)pdk_tyre_probe(def, &in, &out);
                f[side] = out.fx_n;
                sum += out.fx_n;
                slope += out.dfx_dkappa_n / speed[side];
            }
            if (!(slope > 0.0)) {
                break;
            }
            rho += (want - sum) / slope;
        }
        /* The torque at the shafts, as forces at the ground. */
        const double locked[2] = {f[0] + roll_f[0], f[1] + roll_f[1]};
        const double radius = (axle == 0 ? &def->tyre_front : &def->tyre_rear)->law.radius_m;
        const double hold_n = pdk_dl_diff_hold_nm(diff, shaft_n * radius) / radius;
        const double apart = locked[0] - locked[1];
        if (fabs(apart) <= hold_n) {
            shaft[0] = locked[0];
            shaft[1] = locked[1];
        } else {
            const double sgn = apart > 0.0 ? 1.0 : -1.0;
            shaft[0] = 0.5 * (shaft_n + sgn * hold_n);
            shaft[1] = 0.5 * (shaft_n - sgn * hold_n);
        }
    }
    for (int side = 0; side < 2; side++) {
        fx[side] = shaft[side] - roll_f[side];
    }
}

/* The passes that settle the tractive share: each axle's split of its
 * drive between its tyres moves with their slip angles, which move with
 * the yaw moment of that split. */
#define TRACTIVE_PASSES 4

static pdk_error steer_shares(const pdk_vehicle_def *def, const pdk_ref_world *w,
                              const pdk_ref_circle *circle, double ay, double share[SHARES],
                              pdk_ref_understeer *u)
{
    const pdk_chassis_def *c = &def->chassis;
    const double m = c->mass_kg;
    const double len = c->wheelbase_m;
    const double a = c->cg_to_front_axle_m;
    const double b = len - a;
    const double g = w->gravity_mps2;
    const double h = c->cg_height_m;
    /* Each axle's share of the lateral force (moments about the CG). */
    const double force[2] = {m * ay * b / len, m * ay * a / len};
    for (int k = 0; k < SHARES; k++) {
        share[k] = 0.0;
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        const double cf = def->tyre_front.cornering_stiffness_n_per_rad;
        const double cr = def->tyre_rear.cornering_stiffness_n_per_rad;
        share[SHARE_BICYCLE] = force[0] / cf - force[1] / cr;
        u->c_static_n_per_rad[0] = u->c_loaded_n_per_rad[0] = cf;
        u->c_static_n_per_rad[1] = u->c_loaded_n_per_rad[1] = cr;
        u->static_load_n[0] = m * g * b / (2.0 * len);
        u->static_load_n[1] = m * g * a / (2.0 * len);
        return PDK_OK;
    }
    const pdk_suspension_def *susp[2] = {&def->susp_front, &def->susp_rear};
    double track[2], k_roll[2];
    for (int i = 0; i < 2; i++) {
        track[i] = pdk_vehicle_def_track_m(def, i);
        k_roll[i] = (0.5 * susp[i]->spring_rate_npm + susp[i]->anti_roll_npm) * track[i] * track[i];
        u->roll_stiffness_nm_per_rad[i] = k_roll[i];
    }
    /* The body rolls about the ground on its springs and bars; the roll
     * centres take their geometric share (docs/vehicle-model.md, "The roll
     * gradient"; Milliken and Milliken, ch. 18). */
    const double h_rc =
        (b * susp[0]->roll_center_height_m + a * susp[1]->roll_center_height_m) / len;
    const double k_net = k_roll[0] + k_roll[1] - m * g * h;
    if (!(k_net > 0.0)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    const double roll = atan(m * ay * (h - h_rc) / k_net);
    u->roll_rad = roll;
    double axle_fz[2][2], axle_gamma[2][2], axle_toe[2][2];
    for (int i = 0; i < 2; i++) {
        const pdk_suspension_def *s = susp[i];
        const double t = track[i];
        const double w0 = m * g * (i == 0 ? b : a) / (2.0 * len);
        const double transfer = (k_roll[i] * roll + force[i] * s->roll_center_height_m) / t;
        /* Left (inner) and right (outer) tyre: load, travel, camber, toe. */
        double fz[2] = {w0 - transfer, w0 + transfer};
        fz[0] = fz[0] > 0.0 ? fz[0] : 0.0;
        const double travel[2] = {-0.5 * t * sin(roll), 0.5 * t * sin(roll)};
        const int solid = s->kind == PDK_AXLE_SOLID;
        double cw[2], gamma[2], toe_static[2], toe[2];
        for (int side = 0; side < 2; side++) {
            const double sgn = side == 0 ? 1.0 : -1.0; /* +1 left, -1 right */
            cw[side] = tyre_cornering(def, w, i, fz[side]);
            /* ISO inclination: -side times the alignment camber, plus the
             * body's roll on an independent axle (suspension.h); a solid
             * axle stays square to the road. */
            double cam = s->static_camber_rad;
            if (!solid) {
                cam += pdk_curve_eval(&s->kinematics.camber_rad, travel[side]);
            }
            gamma[side] = -sgn * cam + (solid ? 0.0 : roll);
            /* A wheel's steer from toe: toe-in points it toward the
             * centreline, right for the left wheel. */
            toe_static[side] = -sgn * s->static_toe_rad;
            toe[side] =
                -sgn * (s->static_toe_rad +
                        (solid ? 0.0 : pdk_curve_eval(&s->kinematics.toe_rad, travel[side])));
        }
        const double c0 = 2.0 * tyre_cornering(def, w, i, w0);
        const double c1 = cw[0] + cw[1];
        if (!(c0 > 0.0) || !(c1 > 0.0)) {
            return PDK_ERR_OUT_OF_RANGE;
        }
        /* The force the tyres give at zero slip, without and with camber:
         * a set's ply steer and conicity cancel between the sides only at
         * equal loads, so what is left of them goes with load transfer. */
        double f_zero = 0.0, f_camber = 0.0;
        for (int side = 0; side < 2; side++) {
            const double f0 = tyre_fy(def, w, i, side, fz[side], 0.0, 0.0, NULL);
            f_zero += f0;
            f_camber += tyre_fy(def, w, i, side, fz[side], 0.0, gamma[side], NULL) - f0;
        }
        const double eps_static = (cw[0] * toe_static[0] + cw[1] * toe_static[1]) / c1;
        const double eps = (cw[0] * toe[0] + cw[1] * toe[1]) / c1;
        /* delta - L/R = alpha_f - alpha_r - eps_f + eps_r, alpha = (F - F_0) / C. */
        const double sign = i == 0 ? 1.0 : -1.0;
        share[SHARE_BICYCLE] += sign * force[i] / c0;
        share[SHARE_TRANSFER] += sign * ((force[i] - f_zero) / c1 - force[i] / c0);
        share[SHARE_CAMBER] -= sign * f_camber / c1;
        share[SHARE_TOE] -= sign * eps_static;
        share[SHARE_ROLL_STEER] -= sign * (eps - eps_static);
        u->c_static_n_per_rad[i] = c0;
        u->c_loaded_n_per_rad[i] = c1;
        u->static_load_n[i] = w0;
        u->transfer_n[i] = fz[1] - w0;
        for (int side = 0; side < 2; side++) {
            axle_fz[i][side] = fz[side];
            axle_gamma[i][side] = gamma[side];
            axle_toe[i][side] = toe[side];
        }
    }
    /* The tyres' curvature: the same axles solved through the law itself
     * rather than its slope at zero slip, less the linear shares above. */
    const double linear = share[SHARE_BICYCLE] + share[SHARE_TRANSFER] + share[SHARE_CAMBER] +
                          share[SHARE_TOE] + share[SHARE_ROLL_STEER];
    double slip[2];
    for (int i = 0; i < 2; i++) {
        slip[i] = axle_slip_rad(def, w, i, axle_fz[i], axle_gamma[i], axle_toe[i], NULL, force[i],
                                force[i] / u->c_loaded_n_per_rad[i], NULL);
    }
    share[SHARE_CURVATURE] = (slip[0] - slip[1]) - linear;
    if (circle == NULL) {
        return PDK_OK;
    }
    /* Tractive force on the circle: at v^2 = R a_y the drive holds the
     * speed against drag 1/2 rho C_d A v^2, every tyre's rolling
     * resistance f F_z (a torque at the wheel, so its tyre pushes back
     * f F_z), the lateral forces' own drag: the front's F_yf sin(delta)
     * and the body's slip beta = b / R - alpha_r turning m a_y against the
     * heading, and m dv/dt where the speed rises (Gillespie ch. 6,
     * "Tractive force"; Milliken and Milliken ch. 5, the force balance
     * along x). Each driven wheel takes its share of it (an open
     * differential's half of its axle's), and its lateral stiffness falls
     * with the longitudinal slip that costs. */
    const double v2 = circle->radius_m * ay;
    const double beta0 = b / circle->radius_m - slip[1];
    /* Downforce on the circle: 1/2 rho C_L A v_x^2, each axle its share,
     * half on each tyre, as the four-wheel model puts it at the axles
     * (chassis.h); the axles' stiffnesses follow their loads. */
    const double lift = 0.5 * circle->air_density_kgpm3 * def->resist.downforce_area_m2 * v2 *
                        cos(beta0) * cos(beta0);
    const double lift_share[2] = {def->resist.downforce_front, 1.0 - def->resist.downforce_front};
    for (int i = 0; i < 2; i++) {
        for (int side = 0; side < 2; side++) {
            axle_fz[i][side] += 0.5 * lift * lift_share[i];
        }
    }
    double slip_aero[2];
    for (int i = 0; i < 2; i++) {
        slip_aero[i] = lift > 0.0 ? axle_slip_rad(def, w, i, axle_fz[i], axle_gamma[i], axle_toe[i],
                                                  NULL, force[i], slip[i], NULL)
                                  : slip[i];
    }
    share[SHARE_DOWNFORCE] = (slip_aero[0] - slip_aero[1]) - (slip[0] - slip[1]);
    u->downforce_n = lift;
    const double delta = len / circle->radius_m + slip_aero[0] - slip_aero[1];
    const double beta = b / circle->radius_m - slip_aero[1];
    const double drag = 0.5 * circle->air_density_kgpm3 * def->resist.drag_area_m2 * v2;
    /* The tyres' forces along the body add up to the drag and m dv/dt, and
     * to the body's slip's m a_y sin(beta) against the heading. They act
     * at the ground and what they balance at the CG, so they move F_x h /
     * L of load from the front axle to the rear (Gillespie ch. 2, "Dynamic
     * axle loads"; the four-wheel model takes the drag at the CG), half
     * from each tyre; the axles' stiffnesses follow their loads. */
    const double body_x = drag + m * circle->speed_rate_mps2 - m * ay * sin(beta);
    const double pitch_transfer = 0.5 * body_x * h / len;
    double rolling = 0.0, roll_f[2][2];
    for (int i = 0; i < 2; i++) {
        const pdk_axle_tyre_def *t = i == 0 ? &def->tyre_front : &def->tyre_rear;
        const double f =
            t->law.rolling_coeff < MAX_ROLLING_COEFF ? t->law.rolling_coeff : MAX_ROLLING_COEFF;
        for (int side = 0; side < 2; side++) {
            const double fz = axle_fz[i][side] + (i == 0 ? -pitch_transfer : pitch_transfer);
            axle_fz[i][side] = fz > 0.0 ? fz : 0.0;
            roll_f[i][side] = f * axle_fz[i][side];
            rolling += roll_f[i][side];
        }
    }
    u->pitch_transfer_n = pitch_transfer;
    const double drive = body_x + rolling + force[0] * sin(delta);
    const double front_share = drive_front_share(def);
    u->drive_force_n = drive;
    /* The tyres' longitudinal forces: each axle's share of the drive,
     * split between its wheels by its differential (axle_fx), less each
     * wheel's own rolling resistance. With the loads moved outward, and
     * the inner wheel of a locked or limited slip axle driven harder, they
     * differ between the sides, a yaw moment M_z = sum (t/2)(F_x,right -
     * F_x,left) that the axles' lateral forces must balance: F_yf = (m a_y
     * b - M_z) / L, F_yr = (m a_y a + M_z) / L (Milliken and Milliken ch.
     * 5, the yaw moment balance). Each contact's speed along its wheel's
     * heading, over the CG's speed v, for a locked axle's slips: the
     * contact at (x, y) moves at v (cos(beta), sin(beta)) + r (-y, x) with
     * the yaw rate r = v / R, so its share is (cos(beta) - y / R) cos(d) +
     * (sin(beta) + x / R) sin(d), d the wheel's steer. The split moves the
     * slips and the slips the split: a few passes settle both. */
    const double x_axle[2] = {a, -b};
    const double steer[2] = {delta, 0.0};
    double fx[2][2], yaw_nm = 0.0, lateral[2], slip_driven[2] = {slip_aero[0], slip_aero[1]};
    /* The front tyres' lateral forces, from the last pass (the first pass
     * takes the axle's force evenly split). */
    double fy_front[2] = {0.5 * force[0], 0.5 * force[0]};
    for (int pass = 0; pass < TRACTIVE_PASSES; pass++) {
        /* The front tyres' F_y along their steered heading push back along
         * the body by F_y sin(delta) each, the outer's more: a yaw moment
         * out of the turn, as the tyres' F_x differences give. And the body
         * rolls on its springs over contacts that stay on the ground, so the
         * CG stands h sin(phi) outward of where the contacts' arms are
         * taken: the tyres' forces along the body, which add up to body_x,
         * turn the car out of the turn by h sin(phi) body_x about it
         * (Milliken and Milliken ch. 5, the yaw moment balance; the
         * four-wheel model's contacts move with its body). */
        yaw_nm = -0.5 * track[0] * (fy_front[1] - fy_front[0]) * sin(delta) -
                 h * sin(roll) * body_x;
        for (int i = 0; i < 2; i++) {
            const double axle_share = i == 0 ? front_share : 1.0 - front_share;
            const pdk_dl_diff diff = axle_diff(def, i);
            double speed[2];
            for (int side = 0; side < 2; side++) {
                const double y = (side == 0 ? 0.5 : -0.5) * track[i];
                const double vx = cos(beta) - y / circle->radius_m;
                const double vy = sin(beta) + x_axle[i] / circle->radius_m;
                speed[side] = vx * cos(steer[i]) + vy * sin(steer[i]);
            }
            axle_fx(def, w, i, &diff, axle_fz[i], axle_gamma[i], axle_toe[i], speed, roll_f[i],
                    axle_share * drive, slip_driven[i], fx[i]);
            yaw_nm += 0.5 * track[i] * (fx[i][1] - fx[i][0]);
        }
        lateral[0] = (m * ay * b - yaw_nm) / len;
        lateral[1] = (m * ay * a + yaw_nm) / len;
        for (int i = 0; i < 2; i++) {
            /* The front tyres' F_x along their steered heading carries F_x
             * sin(delta) of the lateral force. */
            const double along = i == 0 ? (fx[0][0] + fx[0][1]) * sin(delta) : 0.0;
            slip_driven[i] = axle_slip_rad(def, w, i, axle_fz[i], axle_gamma[i], axle_toe[i],
                                           fx[i], lateral[i] - along, slip_driven[i],
                                           i == 0 ? fy_front : NULL);
        }
    }
    u->tractive_yaw_nm = yaw_nm;
    for (int i = 0; i < 2; i++) {
        u->fx_n[i][0] = fx[i][0];
        u->fx_n[i][1] = fx[i][1];
    }
    share[SHARE_TRACTIVE] = (slip_driven[0] - slip_driven[1]) - (slip_aero[0] - slip_aero[1]);
    /* Ackermann: at the road-wheel angle the circle takes, each front
     * wheel steers beyond the parallel steer by what the model's steering
     * sets (sim's geometry, the same steering with ackermann 0 giving the
     * parallel steer), a toe of its own; the front's slip solved with it
     * at the forces above. The inner wheel steers more, and the outer,
     * the more loaded, less (Milliken and Milliken ch. 19, Ackermann
     * steering geometry). And the wheels steer about the body's own
     * vertical (the model's tyre frame is the wheel's heading in the body
     * projected on the ground), so on a body rolled by phi a wheel steered
     * by d heads atan(tan(d) cos(phi)) over the ground: the front needs
     * that much more steer, which a soft UTV's 6 degrees of roll make
     * worth 0.03 deg/g. */
    const double delta_driven = len / circle->radius_m + slip_driven[0] - slip_driven[1];
    const double wheel_deg =
        delta_driven * def->steering.ratio * DEG_PER_RAD + def->steering.center_offset_deg;
    pdk_vehicle_def parallel = *def;
    parallel.steering.ackermann = 0.0;
    double steer_ack[4], steer_parallel[4];
    pdk_vehicle_def_wheel_steer(def, wheel_deg, steer_ack);
    pdk_vehicle_def_wheel_steer(&parallel, wheel_deg, steer_parallel);
    double toe_ack[2];
    for (int side = 0; side < 2; side++) {
        const double ground = atan(tan(steer_ack[side]) * cos(roll));
        toe_ack[side] = axle_toe[0][side] + ground - steer_parallel[side];
    }
    const double along = (fx[0][0] + fx[0][1]) * sin(delta);
    const double slip_ack = axle_slip_rad(def, w, 0, axle_fz[0], axle_gamma[0], toe_ack, fx[0],
                                          lateral[0] - along, slip_driven[0], NULL);
    share[SHARE_ACKERMANN] = slip_ack - slip_driven[0];
    /* Body damping: the body's angular velocity decays by c per second
     * (chassis.angular_damping_per_s), so at the circle's yaw rate r = v / R
     * the tyres hold a yaw moment c I_z r that the damping takes out of the
     * turn, M_z = -c I_z r; the axles' lateral forces balance it as they
     * balance the tractive yaw moment above, F_yf = (m a_y b - M_z) / L,
     * F_yr = (m a_y a + M_z) / L (Milliken and Milliken ch. 5, the yaw
     * moment balance), at the tyres' F_x above. */
    const double damping_nm =
        -def->chassis.angular_damping_per_s * c->yaw_inertia_kgm2 * sqrt(v2) / circle->radius_m;
    u->damping_yaw_nm = damping_nm;
    if (damping_nm != 0.0) {
        double slip_damped[2];
        for (int i = 0; i < 2; i++) {
            const double moved = (i == 0 ? -damping_nm : damping_nm) / len;
            slip_damped[i] = axle_slip_rad(def, w, i, axle_fz[i], axle_gamma[i], axle_toe[i], fx[i],
                                           lateral[i] + moved - (i == 0 ? along : 0.0),
                                           slip_driven[i], NULL);
        }
        share[SHARE_DAMPING] =
            (slip_damped[0] - slip_damped[1]) - (slip_driven[0] - slip_driven[1]);
    }
    return PDK_OK;
}

/* The shares at a signed lateral acceleration: a right turn is a left
 * turn's mirror image. */
static pdk_error signed_shares(const pdk_vehicle_def *def, const pdk_ref_world *w,
                               const pdk_ref_circle *circle, double ay, double share[SHARES])
{
    pdk_ref_understeer scratch = {0};
    pdk_error e = steer_shares(def, w, circle, fabs(ay), share, &scratch);
    for (int k = 0; ay < 0.0 && k < SHARES; k++) {
        share[k] = -share[k];
    }
    return e;
}

static pdk_error understeer(const pdk_vehicle_def *def, const pdk_ref_world *world,
                            const pdk_ref_circle *circle, double ay_mps2, pdk_ref_understeer *out)
{
    if (def == NULL || world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(ay_mps2) || ay_mps2 < 0.0 || ay_mps2 > MAX_AY_MPS2 || !world_ok(world)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (circle != NULL &&
        (!isfinite(circle->radius_m) || !(circle->radius_m > 0.0) ||
         !isfinite(circle->air_density_kgpm3) || circle->air_density_kgpm3 < 0.0 ||
         !isfinite(circle->speed_rate_mps2))) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    pdk_ref_understeer u = {0};
    u.ay_mps2 = ay_mps2;
    double at[SHARES], hi[SHARES], lo[SHARES];
    pdk_error e = steer_shares(def, world, circle, ay_mps2, at, &u);
    if (e == PDK_OK) {
        e = signed_shares(def, world, circle, ay_mps2 + AY_STEP_MPS2, hi);
    }
    if (e == PDK_OK) {
        e = signed_shares(def, world, circle, ay_mps2 - AY_STEP_MPS2, lo);
    }
    if (e != PDK_OK) {
        return e;
    }
    double grad[SHARES];
    for (int k = 0; k < SHARES; k++) {
        grad[k] = (hi[k] - lo[k]) / (2.0 * AY_STEP_MPS2);
        u.total_rad += at[k];
        u.total_rad_per_mps2 += grad[k];
    }
    u.bicycle_rad = at[SHARE_BICYCLE];
    u.bicycle_rad_per_mps2 = grad[SHARE_BICYCLE];
    u.load_transfer_rad = at[SHARE_TRANSFER];
    u.load_transfer_rad_per_mps2 = grad[SHARE_TRANSFER];
    u.camber_rad = at[SHARE_CAMBER];
    u.camber_rad_per_mps2 = grad[SHARE_CAMBER];
    u.toe_rad = at[SHARE_TOE];
    u.toe_rad_per_mps2 = grad[SHARE_TOE];
    u.roll_steer_rad = at[SHARE_ROLL_STEER];
    u.roll_steer_rad_per_mps2 = grad[SHARE_ROLL_STEER];
    u.curvature_rad = at[SHARE_CURVATURE];
    u.curvature_rad_per_mps2 = grad[SHARE_CURVATURE];
    u.downforce_rad = at[SHARE_DOWNFORCE];
    u.downforce_rad_per_mps2 = grad[SHARE_DOWNFORCE];
    u.tractive_rad = at[SHARE_TRACTIVE];
    u.tractive_rad_per_mps2 = grad[SHARE_TRACTIVE];
    u.ackermann_rad = at[SHARE_ACKERMANN];
    u.ackermann_rad_per_mps2 = grad[SHARE_ACKERMANN];
    u.damping_rad = at[SHARE_DAMPING];
    u.damping_rad_per_mps2 = grad[SHARE_DAMPING];
    const double per_g = world->gravity_mps2 * DEG_PER_RAD;
    u.bicycle_deg_per_g = u.bicycle_rad_per_mps2 * per_g;
    u.total_deg_per_g = u.total_rad_per_mps2 * per_g;
    u.steering_wheel_deg_per_g = u.total_deg_per_g * def->steering.ratio;
    *out = u;
    return PDK_OK;
}

pdk_error pdk_ref_understeer_at(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                double ay_mps2, pdk_ref_understeer *out)
{
    return understeer(def, world, NULL, ay_mps2, out);
}

pdk_error pdk_ref_understeer_on_circle(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                       const pdk_ref_circle *circle, double ay_mps2,
                                       pdk_ref_understeer *out)
{
    if (circle == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return understeer(def, world, circle, ay_mps2, out);
}

pdk_error pdk_ref_rollover_of(const pdk_vehicle_def *def, pdk_ref_rollover *out)
{
    if (def == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    const double t = 0.5 * (pdk_vehicle_def_track_m(def, 0) + pdk_vehicle_def_track_m(def, 1));
    const double h = def->chassis.cg_height_m;
    if (!(t > 0.0) || !(h > 0.0) || !isfinite(t) || !isfinite(h)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    out->track_m = t;
    out->cg_height_m = h;
    out->ssf = t / (2.0 * h);
    out->tilt_angle_rad = atan(out->ssf);
    return PDK_OK;
}

/* The bisections of the tilt reference: 60 halvings leave far less than
 * a micro-degree and a micrometre. */
#define TILT_BISECTIONS 60
/* The deflection scan: from 0.01 mm in steps of 10 % (at most 200, past
 * any half track). */
#define TILT_FIRST_DEFLECTION_M 1e-5
#define TILT_DEFLECTION_SCAN 200
/* Tyres that cannot hold the car on a table tilted by a degree (no grip)
 * have no tilt-table angle to give. */
#define MIN_TILT_RAD (3.14159265358979323846 / 180.0)

/* The downhill tyres' side force at a common sideways deflection u_m, each
 * axle's at its load fz[i] (the slip tan(alpha) = u / sigma_alpha at that
 * load). */
static double downhill_fy_n(const pdk_vehicle_def *def, const pdk_ref_world *w, const double fz[2],
                            double u_m)
{
    double sum = 0.0;
    for (int i = 0; i < 2; i++) {
        pdk_tyre_probe_in in = {
            i, 0, PDK_SURFACE_TARMAC, w->surface_friction, w->gravity_mps2, fz[i], 0.0, 0.0, 0.0};
        pdk_tyre_probe_out out = {0};
        (void)pdk_tyre_probe(def, &in, &out);
        in.tan_alpha = -u_m / out.sigma_alpha_m;
        (void)pdk_tyre_probe(def, &in, &out);
        sum += out.fy_n;
    }
    return sum;
}

pdk_error pdk_ref_tilt_with_tyres(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                  pdk_ref_tilt *out)
{
    pdk_ref_rollover ro;
    if (world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_error e = pdk_ref_rollover_of(def, &ro);
    if (e != PDK_OK) {
        return e;
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!world_ok(world)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    const pdk_chassis_def *c = &def->chassis;
    const double weight = c->mass_kg * world->gravity_mps2;
    const double b = c->wheelbase_m - c->cg_to_front_axle_m;
    const double front = b / c->wheelbase_m;
    const double half_t = 0.5 * ro.track_m, h = ro.cg_height_m;
    double lo = 0.0, hi = ro.tilt_angle_rad, u = 0.0;
    for (int k = 0; k < TILT_BISECTIONS; k++) {
        const double theta = 0.5 * (lo + hi);
        const double n = weight * cos(theta);
        const double fz[2] = {front * n, (1.0 - front) * n};
        const double side = weight * sin(theta);
        /* The deflection that holds the side force: the first of a
         * geometric scan up the rising branch to reach it, then bisected
         * there (past the law's peak a larger deflection holds less). */
        double ulo = 0.0, uhi = -1.0, ustep = TILT_FIRST_DEFLECTION_M;
        for (int j = 0; j < TILT_DEFLECTION_SCAN && ustep < half_t; j++, ustep *= 1.1) {
            if (downhill_fy_n(def, world, fz, ustep) >= side) {
                uhi = ustep;
                break;
            }
            ulo = ustep;
        }
        if (uhi < 0.0) {
            hi = theta; /* the tyres cannot hold it: it slides below */
            continue;
        }
        for (int j = 0; j < TILT_BISECTIONS; j++) {
            const double mid = 0.5 * (ulo + uhi);
            if (downhill_fy_n(def, world, fz, mid) < side) {
                ulo = mid;
            } else {
                uhi = mid;
            }
        }
        u = 0.5 * (ulo + uhi);
        /* Past the verge the weight's moment about the patches tips it. */
        if (tan(theta) * h > half_t - u) {
            hi = theta;
        } else {
            lo = theta;
        }
    }
    if (!(lo > MIN_TILT_RAD)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    out->rigid_rad = ro.tilt_angle_rad;
    out->tilt_angle_rad = 0.5 * (lo + hi);
    out->shift_m = u;
    return PDK_OK;
}

/* An axle's peak and locked-wheel friction in pure braking slip at a load
 * per tyre of fz_n on surface id, from the law. */
static void axle_friction(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle, int id,
                          double fz_n, double *peak_mu, double *peak_kappa, double *locked_mu)
{
    pdk_tyre_probe_in in = {axle, 0, id, w->surface_friction, w->gravity_mps2, fz_n, 0.0, 0.0, 0.0};
    pdk_tyre_probe_out out = {0};
    const double ratio = pow(1.0 / FRICTION_SCAN_FIRST, 1.0 / (double)(FRICTION_SCAN - 1));
    double best = 0.0, best_kappa = -FRICTION_SCAN_FIRST;
    double k = FRICTION_SCAN_FIRST;
    for (int n = 0; n < FRICTION_SCAN; n++) {
        in.kappa = n == FRICTION_SCAN - 1 ? -1.0 : -k;
        (void)pdk_tyre_probe(def, &in, &out);
        if (fabs(out.fx_n) > best) {
            best = fabs(out.fx_n);
            best_kappa = in.kappa;
        }
        k *= ratio;
    }
    *peak_mu = best / fz_n;
    *peak_kappa = best_kappa;
    *locked_mu = fabs(out.fx_n) / fz_n; /* the scan's last point: kappa -1 */
}

/* Whether def brakes axle (0 front, 1 rear) at all, and the most braking
 * force one of its wheels gets from the line pressure's limit, N: a
 * powertrain's gain G at each wheel times the pressure P_out of
 * four_wheel_setup.c over the rolling radius, or the lumped drive's force
 * per bar times its balance, shared by the axle's two wheels. */
static double wheel_brake_capacity_n(const pdk_vehicle_def *def, int axle)
{
    const double p_max = def->brake.max_line_bar;
    if (def->powertrain.kind != PDK_POWERTRAIN_LUMPED) {
        const pdk_powertrain_def *pt = &def->powertrain;
        double p_out = p_max + pt->brake_bias_bar;
        p_out = p_out < 0.0 ? 0.0 : (p_out > p_max ? p_max : p_out);
        const double gain = axle == 0 ? pt->brake_front_nm_per_bar : pt->brake_rear_nm_per_bar;
        const double r = axle == 0 ? def->tyre_front.law.radius_m : def->tyre_rear.law.radius_m;
        return r > 0.0 ? gain * p_out / r : 0.0;
    }
    const double share = axle == 0 ? def->brake.front_fraction : 1.0 - def->brake.front_fraction;
    return 0.5 * def->brake.force_per_bar_n * p_max * share;
}

/* The four-wheel car's braking at its limit with lift_n[i] of downforce on
 * axle i: each braked wheel gives its law's mu (peak or locked) times its
 * load, or its brakes' capacity where that is less; an unbraked axle gives
 * nothing. The deceleration moves load forward by m d h / L (Gillespie,
 * Fundamentals of Vehicle Dynamics, 1992, ch. 3, eqs. 3-3 and 3-4: the
 * axles' dynamic loads), which changes each axle's mu through the law's
 * load sensitivity: fixed-point passes from the static loads. Returns the
 * braking force, N; fills f's per-axle figures for the kind asked. */
static double braking_force_n(const pdk_vehicle_def *def, const pdk_ref_world *w, int surface_id,
                              int locked, const double lift_n[2], pdk_ref_friction *f)
{
    const pdk_chassis_def *c = &def->chassis;
    const double m = c->mass_kg;
    const double g = w->gravity_mps2;
    const double len = c->wheelbase_m;
    const double a = c->cg_to_front_axle_m;
    const double b = len - a;
    double force = 0.0;
    for (int pass = 0; pass < FRICTION_LOAD_PASSES; pass++) {
        const double shift = force * c->cg_height_m / len;
        const double fz[2] = {0.5 * (m * g * b / len + lift_n[0] + shift),
                              0.5 * (m * g * a / len + lift_n[1] - shift)};
        double sum = 0.0;
        for (int i = 0; i < 2; i++) {
            double pk = 0.0, pkk = -1.0, lk = 0.0;
            if (fz[i] > 0.0) { /* a rear axle lifted by the stop carries nothing */
                axle_friction(def, w, i, surface_id, fz[i], &pk, &pkk, &lk);
            }
            const double mu = locked ? lk : pk;
            const double capacity = f->brake_capacity_n[i];
            const double wheel = fz[i] > 0.0 ? fmin(mu * fz[i], capacity) : 0.0;
            sum += 2.0 * wheel;
            if (locked) {
                f->locked_mu[i] = lk;
            } else {
                f->peak_mu[i] = pk;
                f->peak_kappa[i] = pkk;
            }
        }
        force = sum;
    }
    return force;
}

pdk_error pdk_ref_friction_on(const pdk_vehicle_def *def, const pdk_ref_world *world,
                              int surface_id, pdk_ref_friction *out)
{
    if (def == NULL || world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    const pdk_surface *s = pdk_surface_get(surface_id);
    if (s == NULL || s->deformable || !world_ok(world)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    pdk_ref_friction f = {0};
    const pdk_chassis_def *c = &def->chassis;
    const double m = c->mass_kg;
    const double g = world->gravity_mps2;
    const double len = c->wheelbase_m;
    const double a = c->cg_to_front_axle_m;
    const double b = len - a;
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        const double scale =
            s->mu_peak / pdk_surface_get(PDK_SURFACE_TARMAC)->mu_peak * world->surface_friction;
        f.peak_mu[0] = f.locked_mu[0] = def->tyre_front.friction_coeff * scale;
        f.peak_mu[1] = f.locked_mu[1] = def->tyre_rear.friction_coeff * scale;
        f.peak_kappa[0] = f.peak_kappa[1] = -1.0;
        f.peak_mu_car = (b * f.peak_mu[0] + a * f.peak_mu[1]) / len;
        f.locked_mu_car = f.peak_mu_car;
        f.braked[0] = f.braked[1] = 1;
        f.brake_capacity_n[0] = f.brake_capacity_n[1] = INFINITY;
        *out = f;
        return PDK_OK;
    }
    for (int i = 0; i < 2; i++) {
        f.brake_capacity_n[i] = wheel_brake_capacity_n(def, i);
        f.braked[i] = f.brake_capacity_n[i] > 0.0;
    }
    const double no_lift[2] = {0.0, 0.0};
    f.peak_mu_car = braking_force_n(def, world, surface_id, 0, no_lift, &f) / (m * g);
    f.locked_mu_car = braking_force_n(def, world, surface_id, 1, no_lift, &f) / (m * g);
    *out = f;
    return PDK_OK;
}

/* The intervals of the stop's integral over speed (Simpson's rule): the
 * deceleration is smooth in v (the lift goes as v^2), so 64 leave an error
 * far below the maneuver's 3 %. */
#define STOP_INTERVALS 64

pdk_error pdk_ref_stop_with_lift_m(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                   int surface_id, int locked, double air_density_kgpm3,
                                   double speed_mps, double *out_m)
{
    if (def == NULL || world == NULL || out_m == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_ref_friction f;
    pdk_error e = pdk_ref_friction_on(def, world, surface_id, &f);
    if (e != PDK_OK) {
        return e;
    }
    if (!isfinite(air_density_kgpm3) || air_density_kgpm3 < 0.0 || !isfinite(speed_mps) ||
        speed_mps < 0.0) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    const double m = def->chassis.mass_kg;
    const double cl_a = def->model == PDK_MODEL_FOUR_WHEEL ? def->resist.downforce_area_m2 : 0.0;
    const double front = def->resist.downforce_front;
    /* s = integral of v dv / d(v) from 0 to v0, d the deceleration with the
     * lift 1/2 rho C_L A v^2 on the axles (Gillespie ch. 4, "Lift"). */
    const double h = speed_mps / STOP_INTERVALS;
    double sum = 0.0;
    for (int k = 0; k <= STOP_INTERVALS; k++) {
        const double v = h * k;
        const double lift = 0.5 * air_density_kgpm3 * cl_a * v * v;
        const double lift_n[2] = {front * lift, (1.0 - front) * lift};
        double d = 0.0;
        if (def->model == PDK_MODEL_FOUR_WHEEL) {
            d = braking_force_n(def, world, surface_id, locked, lift_n, &f) / m;
        } else {
            d = (locked ? f.locked_mu_car : f.peak_mu_car) * world->gravity_mps2;
        }
        if (!(d > 0.0)) {
            *out_m = speed_mps > 0.0 ? INFINITY : 0.0;
            return PDK_OK;
        }
        const double weight = (k == 0 || k == STOP_INTERVALS) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        sum += weight * v / d;
    }
    *out_m = sum * h / 3.0;
    return PDK_OK;
}

double pdk_ref_stopping_distance_m(double speed_mps, double mu, double gravity_mps2)
{
    if (speed_mps == 0.0) {
        return 0.0;
    }
    if (!(mu > 0.0) || !(gravity_mps2 > 0.0)) {
        return INFINITY;
    }
    return speed_mps * speed_mps / (2.0 * mu * gravity_mps2);
}

/* ---- ISO 3888-1 ---------------------------------------------------------- */

/* ISO 3888-1:2018 table 1: the sections' lengths, the offset of section 3
 * and each coned lane's width as a + b w for a car w wide. */
static const double section_length_m[PDK_DLC_SECTIONS] = {15.0, 30.0, 25.0, 25.0, 15.0, 15.0};
#define DLC_OFFSET_M 3.5
static const int lane_section[PDK_DLC_LANES] = {0, 2, 4, 5};
static const double lane_width_per_w[PDK_DLC_LANES] = {1.1, 1.0, 1.3, 1.3};
static const double lane_width_add_m[PDK_DLC_LANES] = {0.25, 1.0, 0.25, 0.25};

pdk_error pdk_dlc_course_make(double vehicle_width_m, double x0_m, double y0_m, pdk_dlc_course *out)
{
    if (out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(vehicle_width_m) || vehicle_width_m < 0.5 || vehicle_width_m > 3.0 ||
        !isfinite(x0_m) || !isfinite(y0_m)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    pdk_dlc_course c = {0};
    c.vehicle_width_m = vehicle_width_m;
    c.x0_m = x0_m;
    c.y0_m = y0_m;
    c.offset_m = DLC_OFFSET_M;
    double x = x0_m;
    for (int s = 0; s < PDK_DLC_SECTIONS; s++) {
        c.section_length_m[s] = section_length_m[s];
        x += section_length_m[s];
        c.section_end_x_m[s] = x;
    }
    /* Sections 1, 5 and 6 share their right cone line; section 3's is
     * offset_m to the left of it. */
    const double right = y0_m - 0.5 * (lane_width_per_w[0] * vehicle_width_m + lane_width_add_m[0]);
    for (int l = 0; l < PDK_DLC_LANES; l++) {
        const int s = lane_section[l];
        pdk_dlc_lane *lane = &c.lane[l];
        lane->x_start_m = c.section_end_x_m[s] - section_length_m[s];
        lane->x_end_m = c.section_end_x_m[s];
        lane->y_right_m = right + (s == 2 ? DLC_OFFSET_M : 0.0);
        lane->y_left_m =
            lane->y_right_m + lane_width_per_w[l] * vehicle_width_m + lane_width_add_m[l];
    }
    *out = c;
    return PDK_OK;
}

/* A cosine blend from y0 at x0 to y1 at x1, level at both ends. */
static double blend(double x, double x0, double x1, double y0, double y1)
{
    const double s = (x - x0) / (x1 - x0);
    return y0 + (y1 - y0) * 0.5 * (1.0 - cos(3.14159265358979323846 * s));
}

double pdk_dlc_lane_centre_y_m(const pdk_dlc_course *c, double x_m)
{
    const double y[3] = {0.5 * (c->lane[0].y_right_m + c->lane[0].y_left_m),
                         0.5 * (c->lane[1].y_right_m + c->lane[1].y_left_m),
                         0.5 * (c->lane[2].y_right_m + c->lane[2].y_left_m)};
    if (x_m <= c->lane[0].x_end_m) {
        return y[0];
    }
    if (x_m < c->lane[1].x_start_m) {
        return blend(x_m, c->lane[0].x_end_m, c->lane[1].x_start_m, y[0], y[1]);
    }
    if (x_m <= c->lane[1].x_end_m) {
        return y[1];
    }
    if (x_m < c->lane[2].x_start_m) {
        return blend(x_m, c->lane[1].x_end_m, c->lane[2].x_start_m, y[1], y[2]);
    }
    return y[2];
}

pdk_dlc_body pdk_dlc_body_of_wheels(const pdk_vehicle_def *def)
{
    double width = 0.0;
    for (int i = 0; i < 2; i++) {
        const pdk_axle_tyre_def *t = i == 0 ? &def->tyre_front : &def->tyre_rear;
        const double w = pdk_vehicle_def_track_m(def, i) + t->soil.width_m;
        width = w > width ? w : width;
    }
    const double r_front = def->tyre_front.law.radius_m;
    const double r_rear = def->tyre_rear.law.radius_m;
    return (pdk_dlc_body){.length_m = def->chassis.wheelbase_m + r_front + r_rear,
                          .width_m = width,
                          .cg_to_front_m = def->chassis.cg_to_front_axle_m + r_front};
}

pdk_error pdk_dlc_check_path(const pdk_dlc_course *course, const pdk_dlc_body *body,
                             const pdk_dlc_point *path, size_t n, pdk_dlc_check *out)
{
    if (course == NULL || body == NULL || path == NULL || out == NULL || n == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!(body->length_m > 0.0) || !(body->width_m > 0.0) || !(body->cg_to_front_m > 0.0) ||
        !(body->cg_to_front_m < body->length_m) || !isfinite(body->length_m) ||
        !isfinite(body->width_m)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(path[i].x_m) || !isfinite(path[i].y_m) || !isfinite(path[i].yaw_rad)) {
            return PDK_ERR_OUT_OF_RANGE;
        }
    }
    pdk_dlc_check r = {.passed = 1, .point_index = -1, .lane = -1, .corner = -1};
    r.least_margin_m = INFINITY;
    /* The corners in body axes: front left, front right, rear left, rear right. */
    const double half_w = 0.5 * body->width_m;
    const double fx = body->cg_to_front_m;
    const double rx = body->cg_to_front_m - body->length_m;
    const double corner_x[4] = {fx, fx, rx, rx};
    const double corner_y[4] = {half_w, -half_w, half_w, -half_w};
    for (size_t i = 0; i < n; i++) {
        const double cy = cos(path[i].yaw_rad), sy = sin(path[i].yaw_rad);
        if (path[i].x_m > course->section_end_x_m[PDK_DLC_SECTIONS - 1]) {
            r.reached_end = 1;
        }
        for (int k = 0; k < 4; k++) {
            const double x = path[i].x_m + cy * corner_x[k] - sy * corner_y[k];
            const double y = path[i].y_m + sy * corner_x[k] + cy * corner_y[k];
            for (int l = 0; l < PDK_DLC_LANES; l++) {
                const pdk_dlc_lane *lane = &course->lane[l];
                if (x < lane->x_start_m || x > lane->x_end_m) {
                    continue;
                }
                const double right = y - lane->y_right_m;
                const double left = lane->y_left_m - y;
                const double margin = right < left ? right : left;
                r.least_margin_m = margin < r.least_margin_m ? margin : r.least_margin_m;
                if (margin < 0.0 && r.passed) {
                    r.passed = 0;
                    r.point_index = (int)i;
                    r.lane = l;
                    r.corner = k;
                    r.miss_m = -margin;
                }
            }
        }
    }
    *out = r;
    return PDK_OK;
}

/* ---- Power and top speed ------------------------------------------------ */

double pdk_ref_peak_power_w(const pdk_vehicle_def *def, double *at_rpm)
{
    double best = 0.0, best_rpm = 0.0;
    if (def->powertrain.kind == PDK_POWERTRAIN_LUMPED) {
        best = def->drive.max_power_w;
    } else {
        const pdk_engine_def *e = &def->powertrain.engine;
        for (double rpm = e->idle_rpm; rpm < e->max_rpm; rpm += 1.0) {
            const double p = pdk_engine_full_load_nm(e, rpm) * rpm * (2.0 * PI_REF / 60.0);
            if (p > best) {
                best = p;
                best_rpm = rpm;
            }
        }
    }
    if (at_rpm) {
        *at_rpm = best_rpm;
    }
    return best;
}

/* The resistance at v_mps on flat ground: drag, and rolling resistance on
 * the weight and the downforce, N. */
static double top_resistance_n(const pdk_vehicle_def *d, double rho, double g, double v_mps)
{
    double f = d->resist.rolling_coeff;
    if (d->model == PDK_MODEL_FOUR_WHEEL) {
        const double a = d->chassis.cg_to_front_axle_m, len = d->chassis.wheelbase_m;
        f = d->tyre_front.law.rolling_coeff * (len - a) / len +
            d->tyre_rear.law.rolling_coeff * a / len;
    }
    const double q = 0.5 * rho * v_mps * v_mps;
    return q * d->resist.drag_area_m2 +
           f * (d->chassis.mass_kg * g + q * d->resist.downforce_area_m2);
}

#define TOP_BISECT 100
#define TOP_LO_MPS 0.5
#define TOP_HI_MPS 150.0

double pdk_ref_power_limited_top_mps(const pdk_vehicle_def *def, double air_density_kgpm3,
                                     double gravity_mps2, int *gear, int *governed)
{
    const pdk_powertrain_def *pt = &def->powertrain;
    const double rho = air_density_kgpm3, g = gravity_mps2;
    double best = 0.0;
    int best_gear = 0;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        const pdk_gearbox_def *gb = &pt->geared;
        const double radius = pt->layout.driven_axle == 0 ? def->tyre_front.law.radius_m
                                                          : def->tyre_rear.law.radius_m;
        for (int k = 0; k < gb->n_gears; k++) {
            const double i = gb->ratio[k] * gb->final_drive;
            double lo = TOP_LO_MPS, hi = TOP_HI_MPS;
            for (int it = 0; it < TOP_BISECT; it++) {
                const double v = 0.5 * (lo + hi);
                const double rpm = v / radius * i * (60.0 / (2.0 * PI_REF));
                const double t =
                    pdk_engine_full_load_nm(&pt->engine, rpm) - pt->engine.accessory_drag_nm;
                if (t * i * gb->efficiency / radius > top_resistance_n(def, rho, g, v)) {
                    lo = v;
                } else {
                    hi = v;
                }
            }
            if (lo > best) {
                best = lo;
                best_gear = k + 1;
            }
        }
    } else {
        const double p = pdk_ref_peak_power_w(def, NULL);
        double lo = TOP_LO_MPS, hi = TOP_HI_MPS;
        for (int it = 0; it < TOP_BISECT; it++) {
            const double v = 0.5 * (lo + hi);
            if (p > top_resistance_n(def, rho, g, v) * v) {
                lo = v;
            } else {
                hi = v;
            }
        }
        best = lo;
    }
    int gov = 0;
    if (pt->kind != PDK_POWERTRAIN_LUMPED && pt->engine.max_speed_mps > 0.0 &&
        pt->engine.max_speed_mps < best) {
        best = pt->engine.max_speed_mps;
        gov = 1;
    }
    if (gear) {
        *gear = best_gear;
    }
    if (governed) {
        *governed = gov;
    }
    return best;
}
