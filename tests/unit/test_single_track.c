/* Physics tests of the single-track model against analytic results: standstill
 * (exact zeros), braking distance and the friction limit, launch, coast-down,
 * steady-state cornering (Pacejka ch. 1, Gillespie ch. 6), the friction
 * circle, the gear governors, substep convergence, the deterministic
 * trigonometry the state path uses, and a fleet stepping bit for bit like its
 * vehicles alone (the vector path against the scalar one). Every tolerance is
 * stated beside its assertion with the reason for its size. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "single_track.h"
#include "trig.h"
#include "world.h"

#define G 9.81
#define PI 3.14159265358979323846
#define RHO 1.225
#define DT (1.0 / 120.0)
#define TICKS_PER_S 120

/* ---- helpers ------------------------------------------------------------ */

static pdk_world *world_with(int substeps)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.substeps = substeps;
    wd.max_vehicles = 8;
    size_t bytes = pdk_world_mem_size(&wd);
    ck_assert_uint_gt(bytes, 0);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    ck_assert_ptr_eq(w, mem);
    return w;
}

static pdk_world *world_new(void)
{
    return world_with(pdk_world_def_default().substeps);
}

/* The world starts at its memory (world.h), so freeing it frees the block. */
static void world_free(pdk_world *w)
{
    free(w);
}

static pdk_vehicle_id spawn(pdk_world *w, const pdk_vehicle_def *def, double x, double y,
                            double yaw, double speed, pdk_gear gear)
{
    pdk_pose pose = {x, y, yaw};
    pdk_vehicle_id id = 0;
    ck_assert_int_eq(pdk_world_spawn(w, def, &pose, speed, gear, &id), PDK_OK);
    return id;
}

static void command(pdk_world *w, pdk_vehicle_id id, double throttle, double brake, double steer)
{
    pdk_dbw_cmd c = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER,
        .throttle_pct = throttle,
        .brake_bar = brake,
        .steer_wheel_deg = steer,
    };
    ck_assert_int_eq(pdk_world_command(w, id, &c), PDK_OK);
}

static void shift(pdk_world *w, pdk_vehicle_id id, pdk_gear gear)
{
    pdk_dbw_cmd c = {.fields = PDK_DBW_GEAR, .gear = gear};
    ck_assert_int_eq(pdk_world_command(w, id, &c), PDK_OK);
}

static pdk_vehicle_pose pose_of(const pdk_world *w, pdk_vehicle_id id)
{
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(w, id, &p), PDK_OK);
    return p;
}

static double channel(const pdk_world *w, pdk_vehicle_id id, pdk_channel ch)
{
    const double *v = pdk_world_channels(w, id);
    ck_assert_ptr_nonnull(v);
    return v[ch];
}

static double rel_err(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* Asserts that a vehicle sits exactly at (x, y, yaw) with every rate and
 * acceleration exactly zero: no creep, no jitter, not even rounding. */
static void assert_exactly_still(const pdk_world *w, pdk_vehicle_id id, double x, double y,
                                 double yaw)
{
    pdk_vehicle_pose p = pose_of(w, id);
    ck_assert(p.x_m == x && p.y_m == y && p.yaw_rad == yaw);
    ck_assert(p.vx_mps == 0.0 && p.vy_mps == 0.0 && p.yaw_rate_radps == 0.0);
    ck_assert(p.ax_mps2 == 0.0 && p.ay_mps2 == 0.0);
}

/* Understeer gradient of the linear single-track model, rad per m/s^2
 * (Gillespie ch. 6: K = (m/L)(b/C_f - a/C_r)). */
static double understeer_gradient(const pdk_vehicle_def *d)
{
    double m = d->chassis.mass_kg;
    double len = d->chassis.wheelbase_m;
    double a = d->chassis.cg_to_front_axle_m;
    double b = len - a;
    return m / len *
           (b / d->tyre_front.cornering_stiffness_n_per_rad -
            a / d->tyre_rear.cornering_stiffness_n_per_rad);
}

/* Drives at target_mps with steer_deg on the wheel for seconds, holding the
 * speed with a PI throttle loop as a driver would; returns the final pose. */
static pdk_vehicle_pose drive_steady(pdk_world *w, pdk_vehicle_id id, double target_mps,
                                     double steer_deg, double seconds)
{
    double integral = 0.0;
    int ticks = (int)(seconds * TICKS_PER_S);
    for (int t = 0; t < ticks; t++) {
        double err = target_mps - pose_of(w, id).vx_mps;
        integral += err * DT;
        double throttle = 100.0 * (err + integral);
        throttle = throttle < 0.0 ? 0.0 : (throttle > 100.0 ? 100.0 : throttle);
        command(w, id, throttle, 0.0, steer_deg);
        pdk_world_step(w);
    }
    return pose_of(w, id);
}

/* ---- standstill --------------------------------------------------------- */

START_TEST(test_parked_car_does_not_move_for_60_s)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 3.0, -2.0, 0.7, 0.0, PDK_GEAR_PARK);
    for (int t = 0; t < 60 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, 3.0, -2.0, 0.7);
    }
    ck_assert_double_eq(channel(w, id, PDK_CH_SPEED), 0.0);
    world_free(w);
}
END_TEST

START_TEST(test_braked_car_in_drive_holds)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, -1.2, 0.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, 30.0, 0.0);
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, 0.0, 0.0, -1.2);
    }
    world_free(w);
}
END_TEST

/* Brake held while the pedal asks for less drive than the front brake holds,
 * at full steering lock: the front wheels' brake absorbs their own drive
 * torque, so no tyre force pushes the car sideways and it stays exactly put. */
START_TEST(test_brake_overrides_weaker_throttle_at_full_lock)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 1.0, 1.0, 0.3, 0.0, PDK_GEAR_DRIVE);
    /* 20 % of 6000 N = 1200 N drive; front brake 30 bar * 150 * 0.65 = 2925 N. */
    command(w, id, 20.0, 30.0, def.steering.lock_deg);
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, 1.0, 1.0, 0.3);
    }
    world_free(w);
}
END_TEST

/* The stick is not sticky: a drive stronger than the brakes moves the car
 * off at (F - brake - rolling) / m. */
START_TEST(test_throttle_beats_light_brake)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double m = def.chassis.mass_kg;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    command(w, id, 100.0, 5.0, 0.0);
    pdk_world_step(w);
    double want = (def.drive.max_force_n - 5.0 * def.brake.force_per_bar_n -
                   def.resist.rolling_coeff * m * G) /
                  m;
    /* Drag at 3 cm/s is 4e-4 N, 3e-7 of the net force: 1e-5 is ample. */
    ck_assert_double_le(rel_err(channel(w, id, PDK_CH_ACCEL_X), want), 1e-5);
    ck_assert_double_gt(pose_of(w, id).vx_mps, 0.0);
    world_free(w);
}
END_TEST

START_TEST(test_standstill_full_lock_no_nan_no_jitter)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, 0.0, def.steering.lock_deg);
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, 0.0, 0.0, 0.0);
        const double *ch = pdk_world_channels(w, id);
        for (int c = 0; c < PDK_CH_COUNT; c++) {
            ck_assert(isfinite(ch[c]));
        }
    }
    /* Now pull away at full left lock: the car turns left from the first tick
     * and its yaw rate never changes sign (no oscillation at low speed). */
    command(w, id, 30.0, 0.0, def.steering.lock_deg);
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        ck_assert(isfinite(p.x_m) && isfinite(p.yaw_rate_radps));
        ck_assert_double_gt(p.yaw_rate_radps, 0.0);
    }
    world_free(w);
}
END_TEST

START_TEST(test_park_stops_a_rolling_car_and_holds)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 2.0, PDK_GEAR_DRIVE);
    shift(w, id, PDK_GEAR_PARK);
    double min_vx = 2.0;
    int t = 0;
    for (; t < 5 * TICKS_PER_S && pose_of(w, id).vx_mps != 0.0; t++) {
        pdk_world_step(w);
        double vx = pose_of(w, id).vx_mps;
        min_vx = vx < min_vx ? vx : min_vx;
    }
    ck_assert_double_eq(pose_of(w, id).vx_mps, 0.0);
    ck_assert_double_ge(min_vx, 0.0);
    /* Pawl 8000 N + rolling 177 N decelerate 5.45 m/s^2: 2 m/s stops in 0.37 s. */
    ck_assert_int_le(t, 50);
    pdk_vehicle_pose stopped = pose_of(w, id);
    for (int k = 0; k < 2 * TICKS_PER_S; k++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, stopped.x_m, stopped.y_m, stopped.yaw_rad);
    }
    world_free(w);
}
END_TEST

/* ---- longitudinal ------------------------------------------------------- */

/* Braking below the friction limit: deceleration (F_b + F_rr + k v^2)/m, so
 * the distance is d = m/(2k) ln(1 + k v0^2 / (F_b + F_rr)) (this reduces to
 * v0^2 / (2a) as k -> 0), with k = rho CdA / 2. */
START_TEST(test_braking_distance_below_friction_limit)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double m = def.chassis.mass_kg;
    double v0 = 20.0;
    double bar = 50.0;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, v0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, bar, 0.0);
    double min_vx = v0;
    int t = 0;
    for (; t < 20 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        double vx = pose_of(w, id).vx_mps;
        min_vx = vx < min_vx ? vx : min_vx;
        if (vx == 0.0) {
            break;
        }
    }
    double force = bar * def.brake.force_per_bar_n + def.resist.rolling_coeff * m * G;
    double k = 0.5 * RHO * def.resist.drag_area_m2;
    double want = m / (2.0 * k) * log(1.0 + k * v0 * v0 / force);
    pdk_vehicle_pose p = pose_of(w, id);
    /* 1 %; the integrator's first-order error at the default 1/240 s substep
     * is 0.1 %. */
    ck_assert_double_le(rel_err(p.x_m, want), 0.01);
    ck_assert_double_ge(min_vx, 0.0);
    ck_assert_double_eq(p.vx_mps, 0.0);
    for (int k2 = 0; k2 < 2 * TICKS_PER_S; k2++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, p.x_m, p.y_m, p.yaw_rad);
    }
    world_free(w);
}
END_TEST

/* Full pedal locks both axles: each is held at its friction limit, and the
 * loads sum to m g whatever the transfer, so the tyres decelerate the car at
 * mu g; drag adds k v^2 / m on top. */
START_TEST(test_braking_beyond_limit_decelerates_at_mu_g)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double m = def.chassis.mass_kg;
    double mu = def.tyre_front.friction_coeff;
    double k = 0.5 * RHO * def.resist.drag_area_m2;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 20.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, def.brake.max_line_bar, 0.0);
    int ticks = 0;
    while (pose_of(w, id).vx_mps > 1.0) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        double v = p.vx_mps;
        double want = -(mu * G + k * v * v / m);
        /* 2 % of mu g; the model is within 5e-4 m/s^2 (the drag is taken at
         * the substep's start speed). */
        ck_assert_double_le(fabs(p.ax_mps2 - want), 0.02 * mu * G);
        ck_assert_double_le(fabs(p.ax_mps2 + mu * G), 0.02 * mu * G + k * v * v / m);
        ticks++;
    }
    ck_assert_int_gt(ticks, 100);
    world_free(w);
}
END_TEST

START_TEST(test_full_throttle_launch)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double m = def.chassis.mass_kg;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    command(w, id, 100.0, 0.0, 0.0);
    pdk_world_step(w);
    double want = (def.drive.max_force_n - def.resist.rolling_coeff * m * G) / m;
    /* Drag at the first tick's 3 cm/s is 3e-7 of the force. */
    ck_assert_double_le(rel_err(channel(w, id, PDK_CH_ACCEL_X), want), 1e-5);
    ck_assert_double_le(rel_err(pose_of(w, id).vx_mps, want * DT), 1e-5);
    /* The load moves rearward by m a h / L at once (one substep's lag). */
    double transfer = m * want * def.chassis.cg_height_m / def.chassis.wheelbase_m;
    double static_front = m * G * (def.chassis.wheelbase_m - def.chassis.cg_to_front_axle_m) /
                          def.chassis.wheelbase_m;
    ck_assert_double_le(rel_err(channel(w, id, PDK_CH_TYRE_LOAD_F), static_front - transfer), 1e-5);

    /* Above P / F_max the power limit rules: a = (P / v - F_rr - k v^2) / m. */
    for (int t = 0; t < 12 * TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    pdk_vehicle_pose p = pose_of(w, id);
    double v = p.vx_mps;
    ck_assert_double_gt(v, def.drive.max_power_w / def.drive.max_force_n);
    double k = 0.5 * RHO * def.resist.drag_area_m2;
    double want_fast = (def.drive.max_power_w / v - def.resist.rolling_coeff * m * G - k * v * v) / m;
    /* The tick's speed change (0.02 m/s) shifts P/v by 0.1 %. */
    ck_assert_double_le(rel_err(p.ax_mps2, want_fast), 0.005);
    world_free(w);
}
END_TEST

START_TEST(test_coast_down)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double m = def.chassis.mass_kg;
    double k = 0.5 * RHO * def.resist.drag_area_m2;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 35.0, PDK_GEAR_NEUTRAL);
    int checked = 0;
    for (int t = 0; t < 60 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        if (t % 600 == 0) {
            double v = p.vx_mps;
            double want = -(def.resist.rolling_coeff * G + k * v * v / m);
            /* ax is over the last substep, v at its end: the difference is
             * h * d(ax)/dt, a few 1e-5 relative; 0.5 % is generous. */
            ck_assert_double_le(rel_err(p.ax_mps2, want), 0.005);
            checked++;
        }
    }
    ck_assert_int_eq(checked, 12);
    world_free(w);
}
END_TEST

START_TEST(test_reverse_moves_backward_within_governor)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    shift(w, id, PDK_GEAR_REVERSE);
    command(w, id, 100.0, 0.0, 0.0);
    double limit = def.drive.max_reverse_speed_mps;
    for (int t = 0; t < 20 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        ck_assert_double_le(p.vx_mps, 0.0);
        /* The governor fades the drive to zero over the band above the limit. */
        ck_assert_double_le(-p.vx_mps, limit + PDK_ST_GOVERNOR_BAND_MPS);
    }
    pdk_vehicle_pose p = pose_of(w, id);
    ck_assert_double_lt(p.x_m, -50.0);
    ck_assert_double_ge(-p.vx_mps, limit);
    /* Settled, not hunting: over one more second the speed changes < 1 mm/s. */
    for (int t = 0; t < TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    ck_assert_double_le(fabs(pose_of(w, id).vx_mps - p.vx_mps), 1e-3);
    world_free(w);
}
END_TEST

START_TEST(test_low_gear_governor)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_LOW);
    command(w, id, 100.0, 0.0, 0.0);
    double limit = def.drive.max_low_speed_mps;
    for (int t = 0; t < 30 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        ck_assert_double_le(pose_of(w, id).vx_mps, limit + PDK_ST_GOVERNOR_BAND_MPS);
    }
    ck_assert_double_ge(pose_of(w, id).vx_mps, limit);
    world_free(w);
}
END_TEST

/* ---- lateral ------------------------------------------------------------ */

/* Steady-state cornering at constant speed and small steer (1 deg at the
 * road wheel, up to 0.33 g): yaw rate r = v delta / (L + K v^2) (Pacejka
 * ch. 1; Gillespie ch. 6). The model differs from the linear theory only in
 * second-order terms: cos(delta), tan(alpha) for alpha, and the lateral
 * component Fx sin(delta) of the front drive force that holds the speed,
 * which K v^2 amplifies. Measured: 0.11 %, 0.24 %, 0.49 % at 10, 20 and
 * 30 m/s; the bound is 1 %. A PI throttle loop holds the speed (drag and
 * rolling resistance stay on) and the formula takes the speed the car
 * actually has. */
START_TEST(test_steady_state_cornering_yaw_rate)
{
    const double speeds[] = {10.0, 20.0, 30.0};
    const double steers[] = {15.0, -15.0, 15.0};
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double len = def.chassis.wheelbase_m;
    double k_us = understeer_gradient(&def);
    for (int i = 0; i < 3; i++) {
        pdk_world *w = world_new();
        pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, speeds[i], PDK_GEAR_DRIVE);
        pdk_vehicle_pose p = drive_steady(w, id, speeds[i], steers[i], 8.0);
        double v = p.vx_mps;
        double delta = p.steer_angle_rad;
        ck_assert_double_le(rel_err(delta, steers[i] / def.steering.ratio * PI / 180.0), 1e-12);
        double want = v * delta / (len + k_us * v * v);
        ck_assert_double_le(rel_err(p.yaw_rate_radps, want), 0.01);
        /* Steady: lateral acceleration is v r. */
        ck_assert_double_le(rel_err(p.ay_mps2, v * p.yaw_rate_radps), 0.01);
        world_free(w);
    }
}
END_TEST

/* A ramp of steering at speed drives the car to and past the friction
 * limit; the lateral acceleration never exceeds mu g by more than 2 % (the
 * friction circle is applied with damping coefficients frozen over a
 * substep, which can overshoot the circle slightly while the slip grows). */
START_TEST(test_lateral_acceleration_bounded_by_mu_g)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    double mu = def.tyre_front.friction_coeff;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 25.0, PDK_GEAR_DRIVE);
    double max_ay = 0.0;
    for (int t = 0; t < 6 * TICKS_PER_S; t++) {
        double steer = 90.0 * (double)t / (double)TICKS_PER_S;
        steer = steer > def.steering.lock_deg ? def.steering.lock_deg : steer;
        command(w, id, 20.0, 0.0, steer);
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        ck_assert(isfinite(p.ay_mps2) && isfinite(p.yaw_rate_radps));
        double ay = fabs(p.ay_mps2);
        max_ay = ay > max_ay ? ay : max_ay;
        ck_assert_double_le(ay, 1.02 * mu * G);
        /* Both axles stay on their friction circles. */
        const double *ch = pdk_world_channels(w, id);
        double ff = hypot(ch[PDK_CH_FORCE_X_F], ch[PDK_CH_FORCE_Y_F]);
        double fr = hypot(ch[PDK_CH_FORCE_X_R], ch[PDK_CH_FORCE_Y_R]);
        ck_assert_double_le(ff, 1.02 * mu * ch[PDK_CH_TYRE_LOAD_F] + 1e-9);
        ck_assert_double_le(fr, 1.02 * mu * ch[PDK_CH_TYRE_LOAD_R] + 1e-9);
    }
    /* The test reached the limit, so the bound above was exercised. */
    ck_assert_double_gt(max_ay, 0.9 * mu * G);
    world_free(w);
}
END_TEST

/* ---- convergence -------------------------------------------------------- */

static double steady_yaw_rate(int substeps)
{
    pdk_world *w = world_with(substeps);
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 20.0, PDK_GEAR_DRIVE);
    double r = drive_steady(w, id, 20.0, 30.0, 8.0).yaw_rate_radps;
    world_free(w);
    return r;
}

static double stopping_distance(int substeps)
{
    pdk_world *w = world_with(substeps);
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 25.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, 60.0, 0.0);
    for (int t = 0; t < 10 * TICKS_PER_S && pose_of(w, id).vx_mps > 0.0; t++) {
        pdk_world_step(w);
    }
    double x = pose_of(w, id).x_m;
    world_free(w);
    return x;
}

/* Yaw rate 0.2 s after a step of steering at 20 m/s: a transient in the
 * middle of the rise (the yaw mode has omega_n ~ 9 rad/s, zeta ~ 0.9). */
static double step_steer_yaw_rate(int substeps)
{
    pdk_world *w = world_with(substeps);
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 20.0, PDK_GEAR_NEUTRAL);
    command(w, id, 0.0, 0.0, 40.0);
    for (int t = 0; t < 24; t++) {
        pdk_world_step(w);
    }
    double r = pose_of(w, id).yaw_rate_radps;
    world_free(w);
    return r;
}

START_TEST(test_substep_convergence)
{
    double r8 = steady_yaw_rate(8);
    double d8 = stopping_distance(8);
    double s8 = step_steer_yaw_rate(8);
    for (int n = 1; n <= 4; n *= 2) {
        /* Steady state: 1 % (backward Euler's fixed point does not depend on
         * the step, so the spread is the throttle loop's). */
        ck_assert_double_le(rel_err(steady_yaw_rate(n), r8), 0.01);
        /* Stopping distance, a first-order transient: 1 %. */
        ck_assert_double_le(rel_err(stopping_distance(n), d8), 0.01);
    }
    /* The step-steer rise is the stiffest transient. Measured against 8
     * substeps: 1 substep -1.3 %, 2 substeps -0.6 %, 4 substeps -0.2 %. */
    ck_assert_double_le(rel_err(step_steer_yaw_rate(1), s8), 0.02);
    ck_assert_double_le(rel_err(step_steer_yaw_rate(2), s8), 0.01);
    ck_assert_double_le(rel_err(step_steer_yaw_rate(4), s8), 0.005);
}
END_TEST

/* ---- deterministic trigonometry ------------------------------------------ */

START_TEST(test_trig_matches_libm)
{
    /* Within 2 ulp of libm (itself within 1 ulp of exact) on a dense grid
     * over the yaw range and beyond. */
    for (int i = -200000; i <= 200000; i++) {
        double x = (double)i * 1.0e-4 + 1.0e-9;
        double s, c;
        pdk_trig_sincos(x, &s, &c);
        ck_assert_double_le(fabs(s - sin(x)), 4.5e-16);
        ck_assert_double_le(fabs(c - cos(x)), 4.5e-16);
    }
    double s0, c0;
    pdk_trig_sincos(0.0, &s0, &c0);
    ck_assert(s0 == 0.0 && c0 == 1.0);
    for (int i = -300; i <= 300; i++) {
        for (int j = -300; j <= 300; j += 7) {
            double y = (double)i * 0.37;
            double x = (double)j * 0.53;
            double want = atan2(y, x);
            ck_assert_double_le(fabs(pdk_trig_atan2(y, x) - want), 2.0 * 4.5e-16 * fabs(want) + 1e-300);
        }
    }
    ck_assert(pdk_trig_atan2(0.0, 0.0) == 0.0);
    ck_assert(signbit(pdk_trig_atan2(-0.0, 1.0)));
    ck_assert_double_eq(pdk_trig_atan2(0.0, -1.0), atan2(0.0, -1.0));
}
END_TEST

START_TEST(test_wrap_angle)
{
    ck_assert_double_eq(pdk_st_wrap_angle(0.5), 0.5);
    ck_assert_double_eq(pdk_st_wrap_angle(PI), PI);
    ck_assert_double_eq(pdk_st_wrap_angle(-PI), PI);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(3.0 * PI / 2.0) + PI / 2.0), 1e-15);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(-7.0 * PI + 0.25) - (PI + 0.25 - 2.0 * PI)),
                        1e-14);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(1.0e6) - remainder(1.0e6, 2.0 * PI)), 1e-9);
}
END_TEST

/* A full circle at constant speed closes on itself: heading and position
 * are integrated consistently (the per-substep heading rotation and the yaw
 * angle agree). */
START_TEST(test_circle_closes)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 10.0, PDK_GEAR_DRIVE);
    pdk_vehicle_pose p = drive_steady(w, id, 10.0, 90.0, 10.0);
    /* Now steady: measure one lap from here. */
    double x0 = p.x_m, y0 = p.y_m, yaw0 = p.yaw_rad;
    double period = 2.0 * PI / p.yaw_rate_radps;
    int ticks = (int)lround(period / DT);
    drive_steady(w, id, 10.0, 90.0, (double)ticks * DT);
    p = pose_of(w, id);
    double radius = p.vx_mps / p.yaw_rate_radps;
    double dyaw = fabs(pdk_st_wrap_angle(p.yaw_rad - yaw0));
    /* Rounding the period to a tick leaves at most a tick of arc (the speed
     * loop moves the yaw rate by a few 1e-4 over the lap). */
    ck_assert_double_le(dyaw, DT * p.yaw_rate_radps);
    /* The car is back where the leftover arc puts it: a chord of R dyaw,
     * to 1 mm per metre of radius. */
    ck_assert_double_le(hypot(p.x_m - x0, p.y_m - y0), radius * dyaw + 1e-3 * radius);
    world_free(w);
}
END_TEST

/* ---- batching: a fleet steps bit for bit like its vehicles alone --------- */

/* The world steps vehicles in batches, where the processor allows four at a
 * time in vectors, and a lone vehicle on the scalar path. A vehicle's state
 * and channels must not depend on which path or which neighbours it got. */

static uint64_t fleet_rng;

static double fleet_unit(void)
{
    fleet_rng = fleet_rng * 6364136223846793005u + 1442695040888963407u;
    return (double)(uint32_t)(fleet_rng >> 33) / 4294967296.0;
}

static double fleet_between(double lo, double hi)
{
    return lo + (hi - lo) * fleet_unit();
}

/* Vehicles differing in every constant the substep reads, some rear-driven,
 * some front-driven, some all-wheel. */
static pdk_vehicle_def fleet_def(void)
{
    for (;;) {
        pdk_vehicle_def d = pdk_vehicle_def_default();
        d.chassis.mass_kg *= fleet_between(0.3, 3.0);
        d.chassis.yaw_inertia_kgm2 *= fleet_between(0.3, 3.0);
        d.chassis.wheelbase_m *= fleet_between(0.6, 1.5);
        d.chassis.cg_to_front_axle_m = d.chassis.wheelbase_m * fleet_between(0.2, 0.8);
        d.chassis.cg_height_m *= fleet_between(0.5, 2.0);
        d.tyre_front.cornering_stiffness_n_per_rad *= fleet_between(0.3, 3.0);
        d.tyre_rear.cornering_stiffness_n_per_rad *= fleet_between(0.3, 3.0);
        d.tyre_front.friction_coeff *= fleet_between(0.5, 1.5);
        d.tyre_rear.friction_coeff *= fleet_between(0.5, 1.5);
        d.steering.ratio *= fleet_between(0.5, 2.0);
        d.drive.max_force_n *= fleet_between(0.3, 3.0);
        d.drive.max_power_w *= fleet_between(0.3, 3.0);
        double u = fleet_unit();
        d.drive.front_fraction = u < 0.3 ? 0.0 : (u < 0.6 ? 1.0 : fleet_unit());
        d.brake.force_per_bar_n *= fleet_between(0.3, 3.0);
        d.brake.front_fraction = fleet_unit();
        d.resist.rolling_coeff *= fleet_between(0.0, 3.0);
        d.resist.drag_area_m2 *= fleet_between(0.0, 3.0);
        if (pdk_vehicle_def_check(&d) == PDK_OK) {
            return d;
        }
    }
}

/* Any command a driver may send, full lock and full brake included. */
static pdk_dbw_cmd fleet_cmd(const pdk_vehicle_def *d)
{
    pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR};
    double u = fleet_unit();
    c.throttle_pct = u < 0.3 ? 0.0 : (u < 0.5 ? 100.0 : fleet_between(0.0, 100.0));
    u = fleet_unit();
    c.brake_bar = u < 0.6 ? 0.0 : (u < 0.7 ? d->brake.max_line_bar : fleet_between(0.0, 50.0));
    u = fleet_unit();
    double lock = d->steering.lock_deg;
    c.steer_wheel_deg =
        u < 0.2 ? 0.0 : (u < 0.4 ? (u < 0.3 ? lock : -lock) : fleet_between(-lock, lock));
    u = fleet_unit();
    c.gear = u < 0.6 ? PDK_GEAR_NONE : (pdk_gear)(PDK_GEAR_PARK + (int)(fleet_unit() * 5.0));
    return c;
}

static pdk_world *world_of(const pdk_world_def *wd)
{
    size_t bytes = pdk_world_mem_size(wd);
    ck_assert_uint_gt(bytes, 0);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, wd, &w), PDK_OK);
    return w;
}

#define FLEET_MAX 24

/* What the fleet went through, so the test knows it reached every branch. */
typedef struct fleet_seen {
    long stuck, backward, sliding, large_turn, wrapped, governed;
} fleet_seen;

/* Steps n random vehicles together in one world and each alone in its own,
 * with the same random commands, and requires bitwise equal poses and
 * channels after every tick. */
static void fleet_matches_singles(pdk_world_def wd, int n, int ticks, uint64_t seed,
                                  fleet_seen *seen)
{
    ck_assert_int_le(n, FLEET_MAX);
    fleet_rng = seed;
    wd.max_vehicles = n;
    pdk_world *fleet = world_of(&wd);
    wd.max_vehicles = 1;
    pdk_world *alone[FLEET_MAX];
    pdk_vehicle_id fleet_id[FLEET_MAX], alone_id[FLEET_MAX];
    pdk_vehicle_def defs[FLEET_MAX];
    double h = wd.dt_s / (double)wd.substeps;
    for (int i = 0; i < n; i++) {
        defs[i] = fleet_def();
        double u = fleet_unit();
        pdk_pose pose = {
            .x_m = fleet_between(-500.0, 500.0),
            .y_m = fleet_between(-500.0, 500.0),
            .yaw_rad = u < 0.3 ? (u < 0.15 ? PI : -PI + 1e-9) : fleet_between(-PI, PI),
        };
        u = fleet_unit();
        double speed =
            u < 0.2 ? 0.0 : (u < 0.4 ? fleet_between(-8.0, 0.0) : fleet_between(0.0, 45.0));
        pdk_gear gear = (pdk_gear)(PDK_GEAR_PARK + (int)(fleet_unit() * 5.0));
        ck_assert_int_eq(pdk_world_spawn(fleet, &defs[i], &pose, speed, gear, &fleet_id[i]),
                         PDK_OK);
        alone[i] = world_of(&wd);
        ck_assert_int_eq(pdk_world_spawn(alone[i], &defs[i], &pose, speed, gear, &alone_id[i]),
                         PDK_OK);
    }
    double last_yaw[FLEET_MAX];
    for (int i = 0; i < n; i++) {
        last_yaw[i] = pose_of(fleet, fleet_id[i]).yaw_rad;
    }
    for (int t = 0; t < ticks; t++) {
        for (int i = 0; i < n; i++) {
            if (fleet_unit() < 0.02) {
                pdk_dbw_cmd c = fleet_cmd(&defs[i]);
                ck_assert_int_eq(pdk_world_command(fleet, fleet_id[i], &c), PDK_OK);
                ck_assert_int_eq(pdk_world_command(alone[i], alone_id[i], &c), PDK_OK);
            }
        }
        pdk_world_step(fleet);
        for (int i = 0; i < n; i++) {
            pdk_world_step(alone[i]);
            pdk_vehicle_pose p = pose_of(fleet, fleet_id[i]);
            pdk_vehicle_pose q = pose_of(alone[i], alone_id[i]);
            const double *pc = pdk_world_channels(fleet, fleet_id[i]);
            const double *qc = pdk_world_channels(alone[i], alone_id[i]);
            double pv[] = {p.x_m,     p.y_m,    p.yaw_rad, p.vx_mps, p.vy_mps, p.yaw_rate_radps,
                           p.ax_mps2, p.ay_mps2};
            double qv[] = {q.x_m,     q.y_m,    q.yaw_rad, q.vx_mps, q.vy_mps, q.yaw_rate_radps,
                           q.ax_mps2, q.ay_mps2};
            if (memcmp(pv, qv, sizeof pv) != 0 ||
                memcmp(pc, qc, sizeof(double) * PDK_CH_COUNT) != 0) {
                ck_abort_msg("tick %d: vehicle %d of %d differs from the same vehicle alone", t, i,
                             n);
            }
            pdk_gear gear = (pdk_gear)(int)pc[PDK_CH_GEAR];
            seen->stuck += p.vx_mps == 0.0;
            seen->backward += p.vx_mps < 0.0;
            seen->sliding +=
                fabs(pc[PDK_CH_SLIP_ANGLE_F]) > 0.2 || fabs(pc[PDK_CH_SLIP_ANGLE_R]) > 0.2;
            seen->large_turn += fabs(p.yaw_rate_radps) * h > 0.1;
            seen->wrapped += fabs(p.yaw_rad - last_yaw[i]) > PI;
            seen->governed +=
                (gear == PDK_GEAR_REVERSE && -p.vx_mps > defs[i].drive.max_reverse_speed_mps) ||
                (gear == PDK_GEAR_LOW && p.vx_mps > defs[i].drive.max_low_speed_mps);
            last_yaw[i] = p.yaw_rad;
        }
    }
    world_free(fleet);
    for (int i = 0; i < n; i++) {
        world_free(alone[i]);
    }
}

START_TEST(test_fleet_matches_vehicles_alone)
{
    fleet_seen seen = {0};
    /* 21 vehicles: a full batch, then a group and a lone vehicle; 23: a full
     * batch, then a group and a group of three. */
    pdk_world_def wd = pdk_world_def_default();
    fleet_matches_singles(wd, 21, 1500, 1u, &seen);
    fleet_matches_singles(wd, 23, 1500, 2u, &seen);
    wd.substeps = 4;
    wd.surface_friction = 0.3;
    fleet_matches_singles(wd, 22, 1000, 3u, &seen);
    /* Coarse substeps on a grippy surface: yaw rates above 0.1 rad per
     * substep, where the heading is recomputed instead of rotated. */
    wd.dt_s = 0.02;
    wd.substeps = 1;
    wd.surface_friction = 8.0;
    fleet_matches_singles(wd, 24, 1500, 8u, &seen);
    /* The fleets took every branch the paths differ in. */
    ck_assert_int_gt(seen.stuck, 0);
    ck_assert_int_gt(seen.backward, 0);
    ck_assert_int_gt(seen.sliding, 0);
    ck_assert_int_gt(seen.large_turn, 0);
    ck_assert_int_gt(seen.wrapped, 0);
    ck_assert_int_gt(seen.governed, 0);
}
END_TEST

static Suite *single_track_suite(void)
{
    Suite *s = suite_create("single_track");
    TCase *still = tcase_create("standstill");
    tcase_add_test(still, test_parked_car_does_not_move_for_60_s);
    tcase_add_test(still, test_braked_car_in_drive_holds);
    tcase_add_test(still, test_brake_overrides_weaker_throttle_at_full_lock);
    tcase_add_test(still, test_throttle_beats_light_brake);
    tcase_add_test(still, test_standstill_full_lock_no_nan_no_jitter);
    tcase_add_test(still, test_park_stops_a_rolling_car_and_holds);
    suite_add_tcase(s, still);

    TCase *lon = tcase_create("longitudinal");
    tcase_add_test(lon, test_braking_distance_below_friction_limit);
    tcase_add_test(lon, test_braking_beyond_limit_decelerates_at_mu_g);
    tcase_add_test(lon, test_full_throttle_launch);
    tcase_add_test(lon, test_coast_down);
    tcase_add_test(lon, test_reverse_moves_backward_within_governor);
    tcase_add_test(lon, test_low_gear_governor);
    suite_add_tcase(s, lon);

    TCase *lat = tcase_create("lateral");
    tcase_add_test(lat, test_steady_state_cornering_yaw_rate);
    tcase_add_test(lat, test_lateral_acceleration_bounded_by_mu_g);
    tcase_add_test(lat, test_circle_closes);
    suite_add_tcase(s, lat);

    TCase *num = tcase_create("numerics");
    tcase_add_test(num, test_substep_convergence);
    tcase_add_test(num, test_trig_matches_libm);
    tcase_add_test(num, test_wrap_angle);
    tcase_add_test(num, test_fleet_matches_vehicles_alone);
    suite_add_tcase(s, num);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(single_track_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
