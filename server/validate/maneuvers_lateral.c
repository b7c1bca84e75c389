/* The maneuvers that turn: the ISO 4138 steady-state circle, the ISO 7401
 * step steer and the ISO 3888-1 double lane change, on flat dry tarmac. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"
#include "maneuvers.h"
#include "measure.h"
#include "reference.h"
#include "vrun.h"

#define TICKS_PER_S 120
#define DT_S (1.0 / TICKS_PER_S)
#define KMH (1.0 / 3.6)
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* A speed hold for maneuvers that steer themselves: driver.h's PI on
 * throttle and brake, its steering discarded (the maneuver's own goes in
 * its place). */
typedef struct speed_hold {
    pdk_dlc_driver drv;
    int ok;
} speed_hold;

static int speed_hold_init(pdk_job *job, speed_hold *h, const pdk_vehicle_def *d,
                           const pdk_world_def *w, double target_mps)
{
    pdk_dlc_course course;
    const pdk_ref_world rw = {w->gravity_mps2, w->surface_friction};
    const pdk_dlc_body body = pdk_dlc_body_of_wheels(d);
    const pdk_dlc_driver_def dd = pdk_dlc_driver_def_default(target_mps);
    pdk_error e = pdk_dlc_course_make(body.width_m, 1e6, 0.0, &course);
    if (e == PDK_OK) {
        e = pdk_dlc_driver_init(&h->drv, &dd, &course, d, &rw);
    }
    if (e != PDK_OK) {
        const char *why = pdk_dlc_driver_problem(&dd, &course);
        snprintf(job->error, sizeof job->error, "%s: the driver: %s", job->preset,
                 why ? why : pdk_error_message(e));
        return -1;
    }
    return 0;
}

/* Throttle and brake for the held speed; steer_wheel_deg is the maneuver's. */
static void speed_hold_drive(speed_hold *h, pdk_vrun *run, double target_mps,
                             double steer_wheel_deg)
{
    pdk_dbw_cmd c;
    h->drv.def.target_speed_mps = target_mps;
    pdk_dlc_driver_step(&h->drv, &run->pose, DT_S, &c);
    pdk_vrun_drive(run, c.throttle_pct, c.brake_bar, steer_wheel_deg);
}

/* ---- ISO 4138 steady-state circle ------------------------------------- */

#define CIRCLE_RADIUS_M 100.0
/* The speed rises this slowly, m/s^2, so that every point is a steady
 * state: the lateral acceleration's rise, 2 v dv/dt / R, stays under
 * 0.1 m/s^2 per s at 25 m/s. */
#define CIRCLE_RAMP_MPS2 0.05
/* The linear range the gradient is fitted over, m/s^2. */
#define CIRCLE_FIT_LO_MPS2 0.5
#define CIRCLE_FIT_HI_MPS2 4.0
#define CIRCLE_TOL 0.10
/* The reference's grid over the fit's range, m/s^2 apart (its steer is
 * taken linearly between its points, fine against its curvature). */
#define CIRCLE_REF_STEP_MPS2 0.1
#define CIRCLE_REF_POINTS 36

/* The least-squares slope, over the fit's range, of one of the reference's
 * steer shares (the double at byte offset field of pdk_ref_understeer)
 * taken at the car's own samples ay[0..n): the reference fitted exactly as
 * the car's steer is, so that a steer curving with a_y weighs alike in
 * both (the samples are even in speed, so denser at low a_y, and a line
 * fitted to a curve is not its secant). fit[] is scratch of n. */
static double circle_ref_slope(const pdk_ref_understeer grid[CIRCLE_REF_POINTS], size_t field,
                               const double *ay, double *fit, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        double x = (ay[k] - CIRCLE_FIT_LO_MPS2) / CIRCLE_REF_STEP_MPS2;
        x = x < 0.0 ? 0.0 : (x > CIRCLE_REF_POINTS - 1 ? CIRCLE_REF_POINTS - 1 : x);
        const int g = x < CIRCLE_REF_POINTS - 1 ? (int)x : CIRCLE_REF_POINTS - 2;
        const double lo = *(const double *)((const char *)&grid[g] + field);
        const double hi = *(const double *)((const char *)&grid[g + 1] + field);
        fit[k] = lo + (x - g) * (hi - lo);
    }
    double slope = NAN, icpt = NAN;
    pdk_fit_line(ay, fit, n, CIRCLE_FIT_LO_MPS2, CIRCLE_FIT_HI_MPS2, &slope, &icpt);
    return slope;
}

/* The rate of the car's heading about the earth's vertical, rad/s, from
 * the body's rates and attitude: psi' = (q sin(phi) + r cos(phi)) /
 * cos(theta) for ZYX Euler angles (Stevens, Lewis and Johnson, Aircraft
 * Control and Simulation, 3rd ed. 2016, eq. 1.4-4). ISO 4138 takes the yaw
 * velocity, and so the path's curvature, about the vertical; the body's
 * own rate r reads psi' cos(phi), so a rolled car holding r / v to 1 / R
 * would drive a circle of R cos(phi) (on the Polaris at 6.4 deg of roll, an
 * extra L / R (1 / cos(phi) - 1) of steer: 0.03 deg/g of its gradient). */
static double heading_rate_radps(const double *ch)
{
    const double roll_rad = ch[PDK_CH_ROLL];
    return (ch[PDK_CH_PITCH_RATE] * sin(roll_rad) + ch[PDK_CH_YAW_RATE] * cos(roll_rad)) /
           cos(ch[PDK_CH_PITCH]);
}

void pdk_maneuver_circle(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    if (pdk_vrun_vehicle(job, NULL, &d) || pdk_vrun_world(job, "flat", NULL, &w)) {
        return;
    }
    const double k_target = 1.0 / CIRCLE_RADIUS_M;
    const double v_start = sqrt(0.25 * CIRCLE_RADIUS_M);
    const double v_end = sqrt((CIRCLE_FIT_HI_MPS2 + 1.5) * CIRCLE_RADIUS_M);
    const double ramp = job->fast ? 4.0 * CIRCLE_RAMP_MPS2 : CIRCLE_RAMP_MPS2;
    pdk_vrun run;
    speed_hold hold;
    if (pdk_vrun_start(job, &run, &w, &d, 0.0, 0.0, 0.0, v_start, PDK_GEAR_DRIVE) ||
        speed_hold_init(job, &hold, &d, &w, v_start)) {
        pdk_vrun_end(&run);
        return;
    }
    const double len = d.chassis.wheelbase_m, ratio = d.steering.ratio;
    /* The driver holds the radius by its curvature: the road-wheel steer is
     * the Ackermann angle L / R and an integral of the curvature error
     * (yaw rate over speed) with a time constant of CIRCLE_TAU_S, slow
     * against the car's yaw response. */
    const double tau_s = 1.0;
    double integral_rad = 0.0;
    const int settle = 5 * TICKS_PER_S;
    const int n = settle + (int)((v_end - v_start) / ramp * TICKS_PER_S);
    double *ay = malloc((size_t)n * sizeof *ay), *us = malloc((size_t)n * sizeof *us);
    if (!ay || !us) {
        free(ay);
        free(us);
        pdk_vrun_end(&run);
        snprintf(job->error, sizeof job->error, "%s: out of memory", job->preset);
        return;
    }
    pdk_trace *tr = pdk_job_trace(job, "circle", "t_s,speed_mps,ay_mps2,steer_rad,us_rad");
    size_t m = 0;
    for (int k = 0; k < n; k++) {
        const double target = k < settle ? v_start : v_start + ramp * (k - settle) * DT_S;
        const double delta = len * k_target + integral_rad;
        speed_hold_drive(&hold, &run, target, delta * ratio / DEG);
        /* The tyres stay at their optimal temperature, where the reference
         * takes their law: over the six minutes the ramp takes at this
         * little slip they would cool (the sports car's to 0.88 of their
         * grip), and the gradient would measure their heat balance rather
         * than the car's handling. */
        pdk_vrun_warm_tyres(&run);
        pdk_vrun_tick(&run);
        const double v = fmax(run.pose.speed_mps, 0.1);
        const double heading_radps = heading_rate_radps(run.ch);
        const double curvature = heading_radps / v;
        integral_rad += len * (k_target - curvature) * DT_S / tau_s;
        if (k >= settle) {
            /* The understeer's steer: road-wheel angle beyond L times the
             * path's curvature, against the lateral acceleration v psi'. */
            ay[m] = v * heading_radps;
            us[m] = run.ch[PDK_CH_STEER_ANGLE] - len * curvature;
            if (m % 12 == 0) {
                const double row[5] = {pdk_vrun_time_s(&run), v, ay[m], run.ch[PDK_CH_STEER_ANGLE],
                                       us[m]};
                pdk_trace_add(tr, row);
            }
            m++;
        }
    }
    pdk_vrun_end(&run);
    double slope = NAN, icpt = NAN;
    pdk_fit_line(ay, us, m, CIRCLE_FIT_LO_MPS2, CIRCLE_FIT_HI_MPS2, &slope, &icpt);

    /* The references over the same range: the four-wheel analytic's steer
     * fitted as the car's is, and the bicycle's constant gradient. */
    const pdk_ref_world rw = {w.gravity_mps2, w.surface_friction};
    pdk_ref_understeer grid[CIRCLE_REF_POINTS];
    /* The speed rises at the ramp's rate through the fit, and its m dv/dt
     * is in the reference's drive as in the car's. */
    const pdk_ref_circle circle = {CIRCLE_RADIUS_M, w.air_density_kgpm3, ramp};
    pdk_error e = PDK_OK;
    for (int g = 0; g < CIRCLE_REF_POINTS && e == PDK_OK; g++) {
        e = pdk_ref_understeer_on_circle(&d, &rw, &circle,
                                         CIRCLE_FIT_LO_MPS2 + g * CIRCLE_REF_STEP_MPS2, &grid[g]);
    }
    const double to_deg_per_g = w.gravity_mps2 / DEG;
    pdk_row *r = pdk_job_row(job, "circle R100", "understeer gradient, road wheel", "deg/g");
    if (!r) {
        free(ay);
        free(us);
        return;
    }
    r->value = slope * to_deg_per_g;
    r->rule = PDK_ROW_WITHIN;
    r->tol = CIRCLE_TOL;
    r->converges = 1;
    if (e != PDK_OK) {
        free(ay);
        free(us);
        snprintf(r->note, sizeof r->note, "no four-wheel reference: %s", pdk_error_message(e));
        pdk_row_judge(r);
        return;
    }
    /* The reference's contributions, each fitted as the car's steer is,
     * deg/g (lines fitted to the same samples add up as the shares do);
     * us is free again for the scratch. */
#define REF_SLOPE(f) \
    (circle_ref_slope(grid, offsetof(pdk_ref_understeer, f), ay, us, m) * to_deg_per_g)
    r->reference = REF_SLOPE(total_rad);
    const double bic = REF_SLOPE(bicycle_rad);
    const double lt = REF_SLOPE(load_transfer_rad);
    const double cam = REF_SLOPE(camber_rad);
    const double toe = REF_SLOPE(toe_rad);
    const double rs = REF_SLOPE(roll_steer_rad);
    const double cur = REF_SLOPE(curvature_rad);
    const double df = REF_SLOPE(downforce_rad);
    const double tf = REF_SLOPE(tractive_rad);
    const double ack = REF_SLOPE(ackermann_rad);
    const double damp = REF_SLOPE(damping_rad);
#undef REF_SLOPE
    free(ay);
    free(us);
    /* A near neutral car's gradient is a small difference of larger
     * shares (the kart's bicycle -0.060 and tractive +0.066 deg/g): 10 %
     * of the difference would ask the reference for every yaw moment of a
     * few hundredths of a N m. The tolerance is then taken of the largest
     * share, the gradient's own scale (ADR 0022). */
    const double shares[] = {bic, lt, cam, toe, rs, cur, df, tf, ack, damp};
    for (size_t k = 0; k < sizeof shares / sizeof shares[0]; k++) {
        r->tol_scale = fmax(r->tol_scale, fabs(shares[k]));
    }
    snprintf(r->reference_text, sizeof r->reference_text,
             "four-wheel analytic on the circle, every share below, fitted as the car's "
             "(%.2f-%.1f m/s^2)",
             CIRCLE_FIT_LO_MPS2, CIRCLE_FIT_HI_MPS2);
    snprintf(r->note, sizeof r->note,
             "fit over %.1f-%.1f m/s^2 at R %.0f m, tyres at their optimal temperature; "
             "analytic = bicycle %.3f + load transfer %.3f + camber %.3f + toe %.3f + roll "
             "steer %.3f + tyre curvature %.3f + downforce %.3f + tractive force %.3f + "
             "Ackermann %.4f + body damping %.3f deg/g; the model also has aligning moments "
             "(off the chassis)",
             CIRCLE_FIT_LO_MPS2, CIRCLE_FIT_HI_MPS2, CIRCLE_RADIUS_M, bic, lt, cam, toe, rs, cur,
             df, tf, ack, damp);
    pdk_row_judge(r);
    r = pdk_job_row(job, "circle R100", "understeer gradient against the bicycle model", "deg/g");
    if (r) {
        r->value = slope * to_deg_per_g;
        r->reference = bic;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "m/L (b/C_f - a/C_r), axle stiffnesses at static load");
        r->rule = PDK_ROW_INFO;
        pdk_row_judge(r);
    }
}

/* ---- ISO 7401 step steer ------------------------------------------------ */

#define STEP_SPEED_KMH 80.0
#define STEP_AY_MPS2 4.0
#define STEP_BEFORE_S 4.0
#define STEP_AFTER_S 6.0
/* The steering wheel's step takes this long, s (ISO 7401: 0.08 to 0.2 s). */
#define STEP_RISE_S 0.15
#define STEP_SETTLE_S 1.0
/* Settled: the last STEP_SETTLE_S within this share of the steady yaw rate. */
#define STEP_SETTLE_SPREAD 0.02

/* One step of swa_deg at 80 km/h: the speed held by the driver until the
 * step, the throttle then held where it was (ISO 7401). Fills the yaw rate
 * and lateral acceleration from 0.5 s before the step's start, less their
 * means over that half second (in *yaw_before, the yaw rate's); returns the
 * number of samples, 0 on error. */
static size_t step_run(pdk_job *job, const pdk_vehicle_def *d, const pdk_world_def *w,
                       double swa_deg, double *t, double *yaw, double *ay, pdk_trace *tr,
                       double *yaw_before)
{
    const double v0 = STEP_SPEED_KMH * KMH;
    pdk_vrun run;
    speed_hold hold;
    if (pdk_vrun_start(job, &run, w, d, 0.0, 0.0, 0.0, v0, PDK_GEAR_DRIVE) ||
        speed_hold_init(job, &hold, d, w, v0)) {
        pdk_vrun_end(&run);
        return 0;
    }
    const int before = (int)(STEP_BEFORE_S * TICKS_PER_S);
    const int n = before + (int)(STEP_AFTER_S * TICKS_PER_S);
    size_t m = 0;
    double throttle = 0.0;
    for (int k = 0; k < n; k++) {
        if (k < before) {
            speed_hold_drive(&hold, &run, v0, 0.0);
            throttle = run.cmd.throttle_pct;
        } else {
            const double s = fmin(1.0, (k - before + 1) * DT_S / STEP_RISE_S);
            pdk_vrun_drive(&run, throttle, 0.0, s * swa_deg);
        }
        pdk_vrun_tick(&run);
        if (k >= before - TICKS_PER_S / 2) {
            t[m] = (k + 1) * DT_S - STEP_BEFORE_S;
            yaw[m] = run.pose.yaw_rate_radps;
            ay[m] = run.pose.ay_mps2;
            const double row[4] = {t[m], run.ch[PDK_CH_STEER_WHEEL], yaw[m], ay[m]};
            pdk_trace_add(tr, row);
            m++;
        }
    }
    pdk_vrun_end(&run);
    /* The response is the change the step made: ISO 7401's figures are of
     * the yaw rate and lateral acceleration less what they were before it
     * (a car that does not run straight with the wheel centred has a yaw
     * rate of its own before the step). */
    double yaw0 = 0.0, ay0 = 0.0;
    int k0 = 0;
    for (size_t i = 0; i < m && t[i] < 0.0; i++) {
        yaw0 += yaw[i];
        ay0 += ay[i];
        k0++;
    }
    for (size_t i = 0; i < m && k0 > 0; i++) {
        yaw[i] -= yaw0 / k0;
        ay[i] -= ay0 / k0;
    }
    *yaw_before = k0 > 0 ? yaw0 / k0 : 0.0;
    return m;
}

void pdk_maneuver_step_steer(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    if (pdk_vrun_vehicle(job, NULL, &d) || pdk_vrun_world(job, "flat", NULL, &w)) {
        return;
    }
    const size_t cap = (size_t)((STEP_AFTER_S + 1.0) * TICKS_PER_S);
    double *t = malloc(cap * sizeof *t), *yaw = malloc(cap * sizeof *yaw),
           *ay = malloc(cap * sizeof *ay);
    if (!t || !yaw || !ay) {
        snprintf(job->error, sizeof job->error, "%s: out of memory", job->preset);
        free(t), free(yaw), free(ay);
        return;
    }
    /* The step that gives 4 m/s^2 steady: from the Ackermann angle, scaled
     * by the lateral acceleration each trial reaches (three trials). */
    const double v0 = STEP_SPEED_KMH * KMH;
    double swa = d.chassis.wheelbase_m * STEP_AY_MPS2 / (v0 * v0) * d.steering.ratio / DEG;
    size_t m = 0;
    pdk_step_figures f = {0};
    int ok = 0;
    double yaw_before = 0.0;
    for (int trial = 0; trial < 4; trial++) {
        const int last = trial == 3;
        m = step_run(job, &d, &w, swa, t, yaw, ay,
                     last ? pdk_job_trace(job, "step_steer",
                                          "t_s,steer_wheel_deg,"
                                          "yaw_rate_radps,ay_mps2")
                          : NULL,
                     &yaw_before);
        if (m == 0) {
            break;
        }
        double ay_ss = 0.0;
        int k = 0;
        for (size_t i = 0; i < m; i++) {
            if (t[i] >= STEP_AFTER_S - STEP_SETTLE_S) {
                ay_ss += ay[i];
                k++;
            }
        }
        ay_ss /= k > 0 ? k : 1;
        if (last) {
            ok = pdk_step_figures_of(t, yaw, m, 0.5 * STEP_RISE_S, STEP_SETTLE_S, &f) == 0;
            break;
        }
        if (!(ay_ss > 0.1)) {
            break;
        }
        swa = fmin(swa * STEP_AY_MPS2 / ay_ss, d.steering.lock_deg);
    }
    free(t), free(yaw), free(ay);
    if (job->error[0]) {
        return;
    }
    char fig[PDK_ROW_TEXT];
    snprintf(fig, sizeof fig, "yaw rate: settles after the step (to %.0f m/s^2)", STEP_AY_MPS2);
    pdk_row *r = pdk_job_row(job, "step steer 80", fig, "%");
    if (r) {
        r->value = ok ? 100.0 * f.settle_spread : NAN;
        r->reference = 100.0 * STEP_SETTLE_SPREAD;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "spread over the last %.0f s of %.0f s", STEP_SETTLE_S, STEP_AFTER_S);
        r->rule = PDK_ROW_AT_MOST;
        snprintf(r->note, sizeof r->note,
                 "a %.1f deg steering-wheel step in %.2f s at %.0f km/h; the yaw rate before it, "
                 "wheel centred, %.2f deg/s (the figures are of the change)",
                 swa, STEP_RISE_S, STEP_SPEED_KMH, yaw_before / DEG);
        pdk_row_judge(r);
    }
    static const char *const names[4] = {"yaw-rate rise time (10-90 %)",
                                         "yaw-rate response time (to 90 %)",
                                         "yaw-rate peak overshoot", "steady yaw rate"};
    const double values[4] = {f.rise_time_s, f.response_time_s, 100.0 * f.overshoot,
                              f.steady / DEG};
    static const char *const units[4] = {"s", "s", "%", "deg/s"};
    for (int i = 0; i < 4; i++) {
        r = pdk_job_row(job, "step steer 80", names[i], units[i]);
        if (r) {
            r->value = ok ? values[i] : NAN;
            r->rule = PDK_ROW_INFO;
            r->converges = i != 2 || values[2] > 1.0;
            snprintf(r->reference_text, sizeof r->reference_text, "ISO 7401 figure");
            pdk_row_judge(r);
        }
    }
}

/* ---- ISO 3888-1 double lane change --------------------------------------- */

#define DLC_RUN_UP_M 60.0
#define DLC_FROM_KMH 40.0
#define DLC_STEP_KMH 5.0
#define DLC_TO_KMH 160.0

/* One pass at speed_kmh: 1 when no cone was touched; the peak yaw rate. */
static int dlc_pass(pdk_job *job, const pdk_vehicle_def *d, const pdk_world_def *w,
                    double speed_kmh, pdk_trace *tr, double *peak_yaw, pdk_dlc_check *chk)
{
    const double v = speed_kmh * KMH;
    const pdk_dlc_body body = pdk_dlc_body_of_wheels(d);
    pdk_dlc_course course;
    pdk_dlc_driver drv;
    const pdk_ref_world rw = {w->gravity_mps2, w->surface_friction};
    const pdk_dlc_driver_def dd = pdk_dlc_driver_def_default(v);
    if (pdk_dlc_course_make(body.width_m, DLC_RUN_UP_M, 0.0, &course) != PDK_OK ||
        pdk_dlc_driver_init(&drv, &dd, &course, d, &rw) != PDK_OK) {
        const char *why = pdk_dlc_driver_problem(&dd, &course);
        snprintf(job->error, sizeof job->error, "%s: the lane-change driver: %s", job->preset,
                 why ? why : "refused");
        return -1;
    }
    pdk_vrun run;
    if (pdk_vrun_start(job, &run, w, d, 0.0, 0.0, 0.0, v, PDK_GEAR_DRIVE)) {
        return -1;
    }
    const double x_end = course.section_end_x_m[PDK_DLC_SECTIONS - 1] + 10.0;
    const int n_max = (int)((x_end + 20.0) / v * TICKS_PER_S) + TICKS_PER_S;
    pdk_dlc_point *path = malloc((size_t)n_max * sizeof *path);
    if (!path) {
        pdk_vrun_end(&run);
        snprintf(job->error, sizeof job->error, "%s: out of memory", job->preset);
        return -1;
    }
    size_t m = 0;
    *peak_yaw = 0.0;
    for (int k = 0; k < n_max && run.pose.x_m < x_end; k++) {
        pdk_dbw_cmd c;
        pdk_dlc_driver_step(&drv, &run.pose, DT_S, &c);
        /* The driver steers with the wheel's centre offset already in. */
        pdk_vrun_drive(&run, c.throttle_pct, c.brake_bar,
                       c.steer_wheel_deg - d->steering.center_offset_deg);
        pdk_vrun_tick(&run);
        path[m].x_m = run.pose.x_m;
        path[m].y_m = run.pose.y_m;
        path[m].yaw_rad = run.pose.yaw_rad;
        *peak_yaw = fmax(*peak_yaw, fabs(run.pose.yaw_rate_radps));
        const double row[4] = {run.pose.x_m, run.pose.y_m, run.pose.yaw_rad, run.pose.speed_mps};
        pdk_trace_add(tr, row);
        m++;
    }
    pdk_vrun_end(&run);
    const pdk_error e = pdk_dlc_check_path(&course, &body, path, m, chk);
    free(path);
    return e == PDK_OK && chk->passed && chk->reached_end;
}

void pdk_maneuver_lane_change(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    if (pdk_vrun_vehicle(job, NULL, &d) || pdk_vrun_world(job, "flat", NULL, &w)) {
        return;
    }
    double best = NAN, first_yaw = NAN, yaw = 0.0;
    pdk_dlc_check chk = {0}, fail = {0};
    const double step = job->fast ? 4.0 * DLC_STEP_KMH : DLC_STEP_KMH;
    double failed_at = NAN;
    for (double s = DLC_FROM_KMH; s <= DLC_TO_KMH; s += step) {
        const int pass = dlc_pass(job, &d, &w, s, NULL, &yaw, &chk);
        if (pass < 0) {
            return;
        }
        if (!pass) {
            failed_at = s;
            fail = chk;
            break;
        }
        if (!isfinite(best)) {
            first_yaw = yaw;
        }
        best = s;
    }
    if (isfinite(best)) {
        /* The trace of the fastest pass and the cone lines, for the plot. */
        pdk_trace *tr = pdk_job_trace(job, "lane_change", "x_m,y_m,yaw_rad,speed_mps");
        if (tr) {
            dlc_pass(job, &d, &w, best, tr, &yaw, &chk);
        }
        pdk_dlc_course course;
        pdk_trace *cones = pdk_job_trace(job, "lane_change_cones", "x_m,y_right_m,y_left_m");
        if (cones && pdk_dlc_course_make(pdk_dlc_body_of_wheels(&d).width_m, DLC_RUN_UP_M, 0.0,
                                         &course) == PDK_OK) {
            for (int i = 0; i < PDK_DLC_LANES; i++) {
                const pdk_dlc_lane *l = &course.lane[i];
                const double a[3] = {l->x_start_m, l->y_right_m, l->y_left_m};
                const double b[3] = {l->x_end_m, l->y_right_m, l->y_left_m};
                pdk_trace_add(cones, a);
                pdk_trace_add(cones, b);
            }
        }
    }
    pdk_row *r =
        pdk_job_row(job, "lane change", "highest entry speed with no cone touched", "km/h");
    if (!r) {
        return;
    }
    r->value = best;
    r->reference = DLC_FROM_KMH;
    snprintf(r->reference_text, sizeof r->reference_text,
             "ISO 3888-1 course, driver.h's driver; the search's first speed");
    r->rule = PDK_ROW_AT_LEAST;
    if (isfinite(failed_at)) {
        snprintf(r->note, sizeof r->note,
                 "searched in %.0f km/h steps; at %.0f km/h corner %d left lane %d by %.3f m", step,
                 failed_at, fail.corner, fail.lane, fail.miss_m);
    } else {
        snprintf(r->note, sizeof r->note, "passed every speed up to %.0f km/h", DLC_TO_KMH);
    }
    pdk_row_judge(r);
    /* The figure compared across substeps is taken at the search's first
     * speed, which every car passes with room: at the fastest pass the car
     * is at its limit, where a cone's width decides the speed found. */
    char fig[PDK_ROW_TEXT];
    snprintf(fig, sizeof fig, "peak yaw rate through the course at %.0f km/h", DLC_FROM_KMH);
    r = pdk_job_row(job, "lane change", fig, "deg/s");
    if (r) {
        r->value = first_yaw / DEG;
        r->rule = PDK_ROW_INFO;
        r->converges = 1;
        pdk_row_judge(r);
    }
}
