/* The double lane change's closed-loop driver (driver.h): the reference
 * path, pure-pursuit steering with the car's understeer as feed-forward,
 * a human's steering rate, and a PI on speed. */
#include "driver.h"

#include <math.h>
#include <stddef.h>

#define PI 3.14159265358979323846
#define DEG_PER_RAD (180.0 / PI)

/* The lateral acceleration the understeer feed-forward is taken at: a
 * brisk lane change's. */
#define FEED_FORWARD_AY_MPS2 4.0

/* Bisection steps that find the preview point on the path: the bracket
 * is at most the preview distance, so 40 halve it below a nanometre. */
#define PREVIEW_BISECTIONS 40

/* The speed below which the yaw-rate feedback's steer per yaw rate,
 * (L + K v^2) / v, is taken at this one instead, m/s: it grows without
 * bound toward rest. */
#define MIN_FEEDBACK_SPEED_MPS 1.0

pdk_dlc_driver_def pdk_dlc_driver_def_default(double target_speed_mps)
{
    return (pdk_dlc_driver_def){.target_speed_mps = target_speed_mps,
                                .predict_s = 0.35,
                                .preview_time_s = 0.2,
                                .preview_min_m = 4.0,
                                .yaw_gain = 1.0,
                                .steer_rate_deg_per_s = 800.0,
                                .margin_m = 0.2,
                                .speed_kp_pct_per_mps = 15.0,
                                .speed_ki_pct_per_m = 5.0,
                                .brake_bar_per_pct = 0.5};
}

static int positive(double v)
{
    return isfinite(v) && v > 0.0;
}

const char *pdk_dlc_driver_problem(const pdk_dlc_driver_def *def, const pdk_dlc_course *course)
{
    if (def == NULL || course == NULL) {
        return "driver: the definition and the course must not be NULL";
    }
    if (!positive(def->target_speed_mps)) {
        return "driver: target_speed_mps must be finite and above 0";
    }
    if (!isfinite(def->predict_s) || def->predict_s < 0.0) {
        return "driver: predict_s must be finite and >= 0";
    }
    if (!positive(def->preview_time_s)) {
        return "driver: preview_time_s must be finite and above 0";
    }
    if (!positive(def->preview_min_m)) {
        return "driver: preview_min_m must be finite and above 0";
    }
    if (!positive(def->steer_rate_deg_per_s)) {
        return "driver: steer_rate_deg_per_s must be finite and above 0";
    }
    if (!isfinite(def->yaw_gain) || def->yaw_gain < 0.0) {
        return "driver: yaw_gain must be finite and >= 0";
    }
    if (!isfinite(def->margin_m) || def->margin_m < 0.0) {
        return "driver: margin_m must be finite and >= 0";
    }
    if (!positive(def->speed_kp_pct_per_mps)) {
        return "driver: speed_kp_pct_per_mps must be finite and above 0";
    }
    if (!isfinite(def->speed_ki_pct_per_m) || def->speed_ki_pct_per_m < 0.0) {
        return "driver: speed_ki_pct_per_m must be finite and >= 0";
    }
    if (!positive(def->brake_bar_per_pct)) {
        return "driver: brake_bar_per_pct must be finite and above 0";
    }
    return NULL;
}

/* Where the path holds the car in lane l: margin_m inside the cone line on
 * the side toward the lane it comes from or goes to (left for lanes 0, 2
 * and 3, right for lane 1), or the lane's centre when the lane leaves less
 * room than that. */
static double lane_hold_y(const pdk_dlc_course *c, int l, double margin_m)
{
    const pdk_dlc_lane *lane = &c->lane[l];
    const double centre = 0.5 * (lane->y_left_m + lane->y_right_m);
    const double room = 0.5 * (lane->y_left_m - lane->y_right_m - c->vehicle_width_m) - margin_m;
    const double shift = room > 0.0 ? room : 0.0;
    return l == 1 ? centre - shift : centre + shift;
}

static void path_make(pdk_dlc_path *p, const pdk_dlc_course *c, double margin_m)
{
    const double ya = lane_hold_y(c, 0, margin_m);
    const double yb = lane_hold_y(c, 1, margin_m);
    const double yc = lane_hold_y(c, 2, margin_m);
    p->n_knots = 6;
    p->x_m[0] = c->lane[0].x_start_m;
    p->x_m[1] = c->lane[0].x_end_m;
    p->x_m[2] = c->lane[1].x_start_m;
    p->x_m[3] = c->lane[1].x_end_m;
    p->x_m[4] = c->lane[2].x_start_m;
    p->x_m[5] = c->lane[3].x_end_m;
    p->y_m[0] = p->y_m[1] = ya;
    p->y_m[2] = p->y_m[3] = yb;
    p->y_m[4] = p->y_m[5] = yc;
}

/* The piece x_m is in: the knot it follows, -1 before the first. */
static int piece_of(const pdk_dlc_path *p, double x_m)
{
    int k = -1;
    while (k + 1 < p->n_knots && x_m >= p->x_m[k + 1]) {
        k++;
    }
    return k;
}

double pdk_dlc_path_y_m(const pdk_dlc_path *p, double x_m)
{
    const int k = piece_of(p, x_m);
    if (k < 0) {
        return p->y_m[0];
    }
    if (k >= p->n_knots - 1 || (k & 1) == 0) {
        return p->y_m[k]; /* held in a lane and after the course */
    }
    /* A cosine blend between lanes, level where it meets each. */
    const double s = (x_m - p->x_m[k]) / (p->x_m[k + 1] - p->x_m[k]);
    return p->y_m[k] + (p->y_m[k + 1] - p->y_m[k]) * 0.5 * (1.0 - cos(PI * s));
}

double pdk_dlc_path_slope(const pdk_dlc_path *p, double x_m)
{
    const int k = piece_of(p, x_m);
    if (k < 0 || k >= p->n_knots - 1 || (k & 1) == 0) {
        return 0.0;
    }
    const double len = p->x_m[k + 1] - p->x_m[k];
    const double s = (x_m - p->x_m[k]) / len;
    return (p->y_m[k + 1] - p->y_m[k]) * 0.5 * PI / len * sin(PI * s);
}

pdk_error pdk_dlc_driver_init(pdk_dlc_driver *drv, const pdk_dlc_driver_def *def,
                              const pdk_dlc_course *course, const pdk_vehicle_def *vehicle,
                              const pdk_ref_world *world)
{
    if (drv == NULL || def == NULL || course == NULL || vehicle == NULL || world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_dlc_driver_problem(def, course) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    pdk_ref_understeer u;
    pdk_error e = pdk_ref_understeer_at(vehicle, world, FEED_FORWARD_AY_MPS2, &u);
    if (e != PDK_OK) {
        return e;
    }
    pdk_dlc_driver d = {0};
    d.def = *def;
    path_make(&d.path, course, def->margin_m);
    d.wheelbase_m = vehicle->chassis.wheelbase_m;
    d.cg_to_rear_axle_m = vehicle->chassis.wheelbase_m - vehicle->chassis.cg_to_front_axle_m;
    d.understeer_rad_per_mps2 = u.total_rad_per_mps2;
    d.steering_ratio = vehicle->steering.ratio;
    d.lock_deg = vehicle->steering.lock_deg;
    d.centre_offset_deg = vehicle->steering.center_offset_deg;
    d.max_line_bar = vehicle->brake.max_line_bar;
    *drv = d;
    return PDK_OK;
}

/* The point of the path ahead of (px, py) at distance ld: the x where the
 * distance reaches ld, by bisection (the distance grows with x from px on
 * a path whose slope stays below 1). When the car is more than ld off the
 * path, the path's point abreast of it. */
static void preview_point(const pdk_dlc_path *p, double px, double py, double ld, double *gx,
                          double *gy)
{
    double lo = px, hi = px + ld;
    if (fabs(pdk_dlc_path_y_m(p, px) - py) >= ld) {
        *gx = px;
        *gy = pdk_dlc_path_y_m(p, px);
        return;
    }
    for (int i = 0; i < PREVIEW_BISECTIONS; i++) {
        const double mid = 0.5 * (lo + hi);
        if (hypot(mid - px, pdk_dlc_path_y_m(p, mid) - py) < ld) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    *gx = hi;
    *gy = pdk_dlc_path_y_m(p, hi);
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

void pdk_dlc_driver_step(pdk_dlc_driver *drv, const pdk_vehicle_pose *pose, double dt_s,
                         pdk_dbw_cmd *out)
{
    const pdk_dlc_driver_def *def = &drv->def;
    const double v = pose->speed_mps;
    /* Pure pursuit (Coulter 1992; Snider 2009, sec. 2.2) from where the
     * car will be predict_s ahead, turning at its present yaw rate (the
     * driver's anticipation of its own and the car's lag; MacAdam 1981
     * previews a predicted path the same way): the arc from that pose's
     * rear axle through the preview point, curvature 2 sin(eta) / l_d; the
     * road-wheel angle that holds it, atan(L kappa), plus the steer the
     * car's understeer adds there, K v^2 kappa, plus yaw_gain times the
     * steer this car needs for the yaw rate still missing, (L + K v^2) (v
     * kappa - r) / v (a driver feeling the car turn too little or too
     * much). A driver adapts his gain to the car so that the loop he
     * closes crosses over at the same frequency whatever he drives (the
     * crossover model: D. T. McRuer and D. H. Weir, Theory of Manual
     * Vehicular Control, IEEE Trans. Man-Machine Systems 10(4), 1969); the
     * pursuit's terms already steer in the car's own (L + K v^2) per unit
     * of yaw rate, and the feedback does too. A feedback fixed in rad per
     * rad/s closed a loop whose gain grew as v / L: on a kart's 1.04 m
     * wheelbase it rang at the tick's own frequency, a limit cycle in the
     * steering whose size the substep decided. The steer per yaw rate
     * takes no negative value (an oversteering car past its critical
     * speed). */
    const double ld = fmax(def->preview_min_m, def->preview_time_s * fabs(v));
    const double r = pose->yaw_rate_radps;
    const double yaw = pose->yaw_rad + r * def->predict_s;
    const double mid = pose->yaw_rad + 0.5 * r * def->predict_s;
    const double cy = cos(yaw), sy = sin(yaw);
    const double px = pose->x_m + v * def->predict_s * cos(mid) - drv->cg_to_rear_axle_m * cy;
    const double py = pose->y_m + v * def->predict_s * sin(mid) - drv->cg_to_rear_axle_m * sy;
    double gx, gy;
    preview_point(&drv->path, px, py, ld, &gx, &gy);
    const double eta = atan2(gy - py, gx - px) - yaw;
    const double dist = hypot(gx - px, gy - py);
    const double kappa = dist > 0.0 ? 2.0 * sin(eta) / dist : 0.0;
    const double steer_per_yaw_s =
        fmax(0.0, drv->wheelbase_m + drv->understeer_rad_per_mps2 * v * v) /
        fmax(v, MIN_FEEDBACK_SPEED_MPS);
    const double delta_rad = atan(drv->wheelbase_m * kappa) +
                             drv->understeer_rad_per_mps2 * v * v * kappa +
                             def->yaw_gain * steer_per_yaw_s * (v * kappa - r);
    double sw = delta_rad * DEG_PER_RAD * drv->steering_ratio + drv->centre_offset_deg;
    if (drv->started) {
        const double step = def->steer_rate_deg_per_s * dt_s;
        sw = clamp(sw, drv->steer_wheel_deg - step, drv->steer_wheel_deg + step);
    }
    sw = clamp(sw, -drv->lock_deg, drv->lock_deg);
    drv->steer_wheel_deg = sw;
    drv->started = 1;

    /* Speed: a PI, its integral held where it alone would saturate the
     * throttle or the brake (no wind-up). */
    const double err = def->target_speed_mps - v;
    if (def->speed_ki_pct_per_m > 0.0) {
        const double most = 100.0 / def->speed_ki_pct_per_m;
        drv->speed_integral_m = clamp(drv->speed_integral_m + err * dt_s, -most, most);
    }
    const double demand_pct =
        def->speed_kp_pct_per_mps * err + def->speed_ki_pct_per_m * drv->speed_integral_m;
    out->fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER;
    out->steer_wheel_deg = sw;
    if (demand_pct >= 0.0) {
        out->throttle_pct = clamp(demand_pct, 0.0, 100.0);
        out->brake_bar = 0.0;
    } else {
        out->throttle_pct = 0.0;
        out->brake_bar = clamp(-demand_pct * def->brake_bar_per_pct, 0.0, drv->max_line_bar);
    }
}
