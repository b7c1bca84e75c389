/* The validation's analytic references (reference.h): the understeer
 * gradients, the static stability factor, the law's own friction and the
 * stopping distance, and the ISO 3888-1 course with its path check. Every
 * tyre force comes from sim's law through sim/tyre_probe.h. */
#include "reference.h"

#include <math.h>
#include <stddef.h>

#include "sim/surface_def.h"
#include "sim/tyre_probe.h"

#define DEG_PER_RAD (180.0 / 3.14159265358979323846)

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
    const pdk_tyre_probe_in in = {axle,   right, PDK_SURFACE_TARMAC, w->surface_friction,
                                  w->gravity_mps2, fz_n > 0.0 ? fz_n : 0.0,
                                  0.0,    tan_alpha, gamma_rad};
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
 * bicycle, load transfer, camber, toe, roll steer; *u gets the figures
 * behind them. */
enum { SHARE_BICYCLE, SHARE_TRANSFER, SHARE_CAMBER, SHARE_TOE, SHARE_ROLL_STEER, SHARES };

static pdk_error steer_shares(const pdk_vehicle_def *def, const pdk_ref_world *w, double ay,
                              double share[SHARES], pdk_ref_understeer *u)
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
        k_roll[i] =
            (0.5 * susp[i]->spring_rate_npm + susp[i]->anti_roll_npm) * track[i] * track[i];
        u->roll_stiffness_nm_per_rad[i] = k_roll[i];
    }
    /* The body rolls about the ground on its springs and bars; the roll
     * centres take their geometric share (docs/vehicle-model.md, "The roll
     * gradient"; Milliken and Milliken, ch. 18). */
    const double h_rc = (b * susp[0]->roll_center_height_m + a * susp[1]->roll_center_height_m) / len;
    const double k_net = k_roll[0] + k_roll[1] - m * g * h;
    if (!(k_net > 0.0)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    const double roll = atan(m * ay * (h - h_rc) / k_net);
    u->roll_rad = roll;
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
            toe[side] = -sgn * (s->static_toe_rad +
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
    }
    return PDK_OK;
}

/* The shares at a signed lateral acceleration: a right turn is a left
 * turn's mirror image. */
static pdk_error signed_shares(const pdk_vehicle_def *def, const pdk_ref_world *w, double ay,
                               double share[SHARES])
{
    pdk_ref_understeer scratch = {0};
    pdk_error e = steer_shares(def, w, fabs(ay), share, &scratch);
    for (int k = 0; ay < 0.0 && k < SHARES; k++) {
        share[k] = -share[k];
    }
    return e;
}

pdk_error pdk_ref_understeer_at(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                double ay_mps2, pdk_ref_understeer *out)
{
    if (def == NULL || world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(ay_mps2) || ay_mps2 < 0.0 || ay_mps2 > MAX_AY_MPS2 || !world_ok(world)) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    pdk_ref_understeer u = {0};
    u.ay_mps2 = ay_mps2;
    double at[SHARES], hi[SHARES], lo[SHARES];
    pdk_error e = steer_shares(def, world, ay_mps2, at, &u);
    if (e == PDK_OK) {
        e = signed_shares(def, world, ay_mps2 + AY_STEP_MPS2, hi);
    }
    if (e == PDK_OK) {
        e = signed_shares(def, world, ay_mps2 - AY_STEP_MPS2, lo);
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
    const double per_g = world->gravity_mps2 * DEG_PER_RAD;
    u.bicycle_deg_per_g = u.bicycle_rad_per_mps2 * per_g;
    u.total_deg_per_g = u.total_rad_per_mps2 * per_g;
    u.steering_wheel_deg_per_g = u.total_deg_per_g * def->steering.ratio;
    *out = u;
    return PDK_OK;
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

/* An axle's peak and locked-wheel friction in pure braking slip at a load
 * per tyre of fz_n on surface id, from the law. */
static void axle_friction(const pdk_vehicle_def *def, const pdk_ref_world *w, int axle, int id,
                          double fz_n, double *peak_mu, double *peak_kappa, double *locked_mu)
{
    pdk_tyre_probe_in in = {axle, 0,   id,  w->surface_friction, w->gravity_mps2,
                            fz_n, 0.0, 0.0, 0.0};
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
        const double scale = s->mu_peak / pdk_surface_get(PDK_SURFACE_TARMAC)->mu_peak *
                             world->surface_friction;
        f.peak_mu[0] = f.locked_mu[0] = def->tyre_front.friction_coeff * scale;
        f.peak_mu[1] = f.locked_mu[1] = def->tyre_rear.friction_coeff * scale;
        f.peak_kappa[0] = f.peak_kappa[1] = -1.0;
        f.peak_mu_car = (b * f.peak_mu[0] + a * f.peak_mu[1]) / len;
        f.locked_mu_car = f.peak_mu_car;
        *out = f;
        return PDK_OK;
    }
    /* Every wheel at its own limit: the car's deceleration mu g moves load
     * forward by m mu g h / L, which changes each axle's mu through the
     * law's load sensitivity (Gillespie ch. 3, "Braking performance").
     * Fixed-point passes from the static loads. */
    for (int locked = 0; locked < 2; locked++) {
        double mu_car = 0.0;
        for (int pass = 0; pass < FRICTION_LOAD_PASSES; pass++) {
            const double shift = m * mu_car * g * c->cg_height_m / len;
            const double fz[2] = {0.5 * (m * g * b / len + shift),
                                  0.5 * (m * g * a / len - shift)};
            double sum = 0.0;
            for (int i = 0; i < 2; i++) {
                double pk, pkk, lk;
                if (!(fz[i] > 0.0)) {
                    continue; /* a rear axle lifted by the stop carries nothing */
                }
                axle_friction(def, world, i, surface_id, fz[i], &pk, &pkk, &lk);
                const double mu = locked ? lk : pk;
                sum += 2.0 * mu * fz[i];
                if (pass == FRICTION_LOAD_PASSES - 1) {
                    if (locked) {
                        f.locked_mu[i] = lk;
                    } else {
                        f.peak_mu[i] = pk;
                        f.peak_kappa[i] = pkk;
                    }
                }
            }
            mu_car = sum / (m * g);
        }
        if (locked) {
            f.locked_mu_car = mu_car;
        } else {
            f.peak_mu_car = mu_car;
        }
    }
    *out = f;
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

pdk_error pdk_dlc_course_make(double vehicle_width_m, double x0_m, double y0_m,
                              pdk_dlc_course *out)
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
