/* Physics tests of the single-track model against analytic results: standstill
 * (exact zeros), braking distance and the friction limit, launch, coast-down,
 * steady-state cornering (Pacejka ch. 1, Gillespie ch. 6), the friction
 * circle, the gear governors, substep convergence, the deterministic
 * trigonometry the state path uses (and its safety for any input), and a
 * fleet stepping bit for bit like its vehicles alone (the vector path against
 * the scalar one). The energy ledger: a frictionless spin keeps its speed,
 * and with the pedal released the kinetic energy never rises, in violent
 * driving and for any parameters; locked brakes stop a sliding car without
 * spinning it up. Rest is exact and never subnormal; a broken state faults.
 * Every tolerance is stated beside its assertion with the reason for its
 * size. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vehicle/single_track.h"
#include "math/trig.h"
#include "sim/world.h"

#define G 9.81
#define PI 3.14159265358979323846
#define RHO 1.225
#define DT (1.0 / 120.0)
#define TICKS_PER_S 120

/* The default definition on the single-track model (the default model is
 * the four-wheel one). */
static pdk_vehicle_def st_default(void)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    def.model = PDK_MODEL_SINGLE_TRACK;
    return def;
}

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

/* A world of any definition. */
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    double want_fast =
        (def.drive.max_power_w / v - def.resist.rolling_coeff * m * G - k * v * v) / m;
    /* The tick's speed change (0.02 m/s) shifts P/v by 0.1 %. */
    ck_assert_double_le(rel_err(p.ax_mps2, want_fast), 0.005);
    world_free(w);
}
END_TEST

START_TEST(test_coast_down)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    shift(w, id, PDK_GEAR_REVERSE);
    command(w, id, 100.0, 0.0, 0.0);
    double limit = def.drive.max_reverse_speed_mps;
    for (int t = 0; t < 20 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        ck_assert_double_le(p.vx_mps, 0.0);
        /* The governor fades the drive to zero over the band below the
         * limit: the limit is never passed, not even by an overshoot. */
        ck_assert_double_le(-p.vx_mps, limit);
    }
    pdk_vehicle_pose p = pose_of(w, id);
    ck_assert_double_lt(p.x_m, -50.0);
    /* It settles inside the band, where the faded drive meets rolling
     * resistance and drag (177 N + 15 N of 6000 N: 3 % of the band). */
    ck_assert_double_ge(-p.vx_mps, limit - PDK_ST_GOVERNOR_BAND_MPS);
    ck_assert_double_ge(-p.vx_mps, limit - 0.05 * PDK_ST_GOVERNOR_BAND_MPS);
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
    pdk_vehicle_def def = st_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_LOW);
    command(w, id, 100.0, 0.0, 0.0);
    double limit = def.drive.max_low_speed_mps;
    for (int t = 0; t < 30 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        ck_assert_double_le(pose_of(w, id).vx_mps, limit);
    }
    /* At 12 m/s rolling resistance and drag are 234 N of 6000 N: the car
     * settles 4 % of the band below the limit. */
    ck_assert_double_ge(pose_of(w, id).vx_mps, limit - 0.1 * PDK_ST_GOVERNOR_BAND_MPS);
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
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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

/* ---- energy: the step never adds energy of its own ---------------------- */

/* The traffic sedan preset (presets/vehicles/traffic_sedan.json, data sheet
 * in docs/presets.md): rear-wheel drive, 60/40 brakes, 520 deg lock. */
static pdk_vehicle_def sedan_def(void)
{
    pdk_vehicle_def d = st_default();
    d.tyre_front.cornering_stiffness_n_per_rad = 120000.0;
    d.tyre_rear.cornering_stiffness_n_per_rad = 120000.0;
    d.steering.lock_deg = 520.0;
    d.drive.max_force_n = 7500.0;
    d.drive.max_power_w = 100000.0;
    d.drive.front_fraction = 0.0;
    d.drive.max_reverse_speed_mps = 25.0 / 3.6;
    d.drive.max_low_speed_mps = 50.0 / 3.6;
    d.brake.front_fraction = 0.6;
    d.brake.max_line_bar = 150.0;
    d.brake.park_hold_force_n = 6000.0;
    return d;
}

/* Kinetic energy, translational and rotational: m |v|^2 / 2 + Iz r^2 / 2. */
static double kinetic_energy(const pdk_vehicle_def *d, double vx, double vy, double r)
{
    return 0.5 * d->chassis.mass_kg * (vx * vx + vy * vy) +
           0.5 * d->chassis.yaw_inertia_kgm2 * r * r;
}

/* Rounding allowance for "never increases": the energy is formed from
 * rounded velocities and the frame rotation is exact only to an ulp. */
#define ENERGY_ROUNDING 1e-12

/* A frictionless puck: on a surface of friction 0 with no air, a vehicle
 * spinning at 10 and 30 rad/s (the latter past the per-substep series, at
 * 1 substep) keeps its speed to rounding and slides in a straight line at
 * its initial velocity while it turns: the body-frame Coriolis terms are an
 * exact rotation. (The old explicit coupling grew the speed by
 * sqrt(1 + (h r)^2) per substep: 20 -> 24.6 m/s in 1 s at 10 rad/s.) */
START_TEST(test_frictionless_spin_keeps_speed_and_course)
{
    pdk_vehicle_def def = st_default();
    const double rates[] = {10.0, 30.0};
    const int substeps[] = {2, 1};
    for (int k = 0; k < 2; k++) {
        pdk_st_params p;
        pdk_st_params_init(&p, &def, DT / substeps[k], G, 0.0, 0.0);
        pdk_st_cmd c;
        pdk_st_cmd_set(&c, &def, 0.0, 0.0, 0.0, PDK_GEAR_NEUTRAL);
        pdk_pose pose = {0.0, 0.0, 0.3};
        pdk_st_state s;
        pdk_st_state_init(&s, &pose, 20.0);
        s.yaw_rate_radps = rates[k];
        double ch[PDK_CH_COUNT];
        for (int t = 0; t < 10 * TICKS_PER_S; t++) {
            pdk_st_step(&s, &c, &p, substeps[k], ch);
            /* 2400 rotations, each exact to an ulp. */
            ck_assert_double_le(fabs(hypot(s.vx_mps, s.vy_mps) - 20.0), 1e-10);
            ck_assert(s.yaw_rate_radps == rates[k]);
        }
        double cy = cos(s.yaw_rad);
        double sy = sin(s.yaw_rad);
        ck_assert_double_le(fabs(s.vx_mps * cy - s.vy_mps * sy - 20.0 * cos(0.3)), 1e-9);
        ck_assert_double_le(fabs(s.vx_mps * sy + s.vy_mps * cy - 20.0 * sin(0.3)), 1e-9);
        ck_assert_double_le(hypot(s.x_m - 200.0 * cos(0.3), s.y_m - 200.0 * sin(0.3)), 1e-6);
        ck_assert(s.faulted == 0u);
    }
}
END_TEST

/* Violent driving with the pedal released: full lock at speed, lock-to-lock
 * swerves that spin the car, locked brakes while sliding, reverse, the
 * parking pawl at 20 m/s, ice, coarse substeps. With no drive only friction
 * acts, and friction cannot add energy: the kinetic energy never rises from
 * one tick to the next. */
typedef struct energy_case {
    const char *name;
    double speed_mps, friction, dt_s;
    int substeps;
    pdk_gear gear;
    int sedan;
} energy_case;

static void energy_command(int k, pdk_world *w, pdk_vehicle_id id, const pdk_vehicle_def *d, int t)
{
    double lock = d->steering.lock_deg;
    double bar = d->brake.max_line_bar;
    double time_s = (double)t * pdk_world_def_get(w)->dt_s;
    switch (k) {
    case 0: /* full left lock, then full brake */
        command(w, id, 0.0, time_s < 1.0 ? 0.0 : bar, lock);
        break;
    case 1: /* lock to lock every half second, no brake: spins */
        command(w, id, 0.0, 0.0, (int)(time_s / 0.5) % 2 ? -lock : lock);
        break;
    case 2: /* the reviewer's lockbrake: -520 deg, 150 bar at 1.5 s */
        command(w, id, 0.0, time_s < 1.5 ? 0.0 : 150.0, -520.0);
        break;
    case 3: /* rolling backward at full right lock, moderate brake */
        command(w, id, 0.0, 40.0, -lock);
        break;
    case 4: /* ice at 60 m/s: lock, then a light brake while sliding */
        command(w, id, 0.0, time_s < 1.0 ? 0.0 : 30.0, lock);
        break;
    case 5: /* PARK at 20 m/s with full lock: the pawl locks the front axle */
        command(w, id, 0.0, 0.0, lock);
        break;
    case 6: /* a full-amplitude weave at 80 m/s with a light brake */
        command(w, id, 0.0, 20.0, lock * sin(2.0 * PI * 0.7 * time_s));
        break;
    default: /* 50 Hz, 1 substep: full lock, full brake after half a second */
        command(w, id, 0.0, time_s < 0.5 ? 0.0 : bar, -lock);
        break;
    }
}

START_TEST(test_energy_never_increases_without_throttle)
{
    const energy_case cases[] = {
        {"full lock, then full brake", 30.0, 1.0, DT, 2, PDK_GEAR_DRIVE, 0},
        {"lock-to-lock spins", 40.0, 1.0, DT, 2, PDK_GEAR_NEUTRAL, 0},
        {"sedan lockbrake", 12.0, 1.0, DT, 2, PDK_GEAR_DRIVE, 1},
        {"reverse at full lock", -8.0, 1.0, DT, 2, PDK_GEAR_REVERSE, 0},
        {"ice", 60.0, 0.1, DT, 2, PDK_GEAR_DRIVE, 0},
        {"PARK at speed", 20.0, 1.0, DT, 2, PDK_GEAR_PARK, 0},
        {"weave at 80 m/s", 80.0, 1.0, DT, 4, PDK_GEAR_NEUTRAL, 1},
        {"50 Hz, one substep", 45.0, 1.0, 0.02, 1, PDK_GEAR_DRIVE, 0},
    };
    double max_rate = 0.0;
    double min_vx = 0.0;
    double max_slip = 0.0;
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
        pdk_world_def wd = pdk_world_def_default();
        wd.dt_s = cases[k].dt_s;
        wd.substeps = cases[k].substeps;
        wd.surface_friction = cases[k].friction;
        wd.max_vehicles = 1;
        pdk_world *w = world_of(&wd);
        pdk_vehicle_def def = cases[k].sedan ? sedan_def() : st_default();
        pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, cases[k].speed_mps, cases[k].gear);
        double before = kinetic_energy(&def, cases[k].speed_mps, 0.0, 0.0);
        for (int t = 0; t < (int)(8.0 / wd.dt_s); t++) {
            energy_command(k, w, id, &def, t);
            pdk_world_step(w);
            pdk_vehicle_pose p = pose_of(w, id);
            double now = kinetic_energy(&def, p.vx_mps, p.vy_mps, p.yaw_rate_radps);
            if (now > before * (1.0 + ENERGY_ROUNDING)) {
                ck_abort_msg("%s: tick %d: kinetic energy rose from %.17g to %.17g J",
                             cases[k].name, t, before, now);
            }
            before = now;
            max_rate = fmax(max_rate, fabs(p.yaw_rate_radps));
            min_vx = fmin(min_vx, p.vx_mps);
            const double *ch = pdk_world_channels(w, id);
            max_slip =
                fmax(max_slip, fmax(fabs(ch[PDK_CH_SLIP_ANGLE_F]), fabs(ch[PDK_CH_SLIP_ANGLE_R])));
        }
        ck_assert(!pdk_world_vehicle_faulted(w, id));
        world_free(w);
    }
    /* The cases were violent: spins, backward motion, sliding sideways. */
    ck_assert_double_gt(max_rate, 2.0);
    ck_assert_double_lt(min_vx, -5.0);
    ck_assert_double_gt(max_slip, 1.0);
}
END_TEST

static uint64_t fuzz_rng;

static double fuzz_unit(void)
{
    fuzz_rng = fuzz_rng * 6364136223846793005u + 1442695040888963407u;
    return (double)(fuzz_rng >> 11) / 9007199254740992.0;
}

/* Log-uniform in [lo, hi]. */
static double fuzz_log(double lo, double hi)
{
    return exp(log(lo) + (log(hi) - log(lo)) * fuzz_unit());
}

/* The energy bound holds for any parameters and any substep, not only for
 * plausible cars: vehicles drawn across (and, for the yaw inertia, below)
 * the params bounds, on surfaces of friction 0 to 10 and substeps of
 * 2.5 ms to 20 ms, thrown in at up to 150 m/s sideways and spinning at up
 * to 20 rad/s, with random brake, steering and gear and no throttle. Among
 * them the parameter set that once blew up the integrator (38 t, 20 kg m^2
 * of yaw inertia, 49 m^2 of drag area on ice). No state ever faults and
 * every channel stays finite. */
START_TEST(test_energy_bound_holds_for_any_parameters)
{
    fuzz_rng = 7u;
    double worst = 0.0;
    for (int k = 0; k < 300; k++) {
        pdk_vehicle_def d = st_default();
        d.chassis.mass_kg = fuzz_log(50.0, 1e5);
        d.chassis.wheelbase_m = fuzz_log(0.5, 15.0);
        d.chassis.cg_to_front_axle_m = d.chassis.wheelbase_m * (0.02 + 0.96 * fuzz_unit());
        double a = d.chassis.cg_to_front_axle_m;
        double b = d.chassis.wheelbase_m - a;
        d.chassis.yaw_inertia_kgm2 =
            k % 3 == 0 ? fuzz_log(1.0, 5e6) : d.chassis.mass_kg * a * b * fuzz_log(0.3, 3.0);
        d.chassis.cg_height_m = fuzz_log(0.05, 5.0);
        d.tyre_front.cornering_stiffness_n_per_rad = fuzz_log(1e3, 5e6);
        d.tyre_rear.cornering_stiffness_n_per_rad = fuzz_log(1e3, 5e6);
        d.tyre_front.friction_coeff = fuzz_log(0.1, 2.5);
        d.tyre_rear.friction_coeff = fuzz_log(0.1, 2.5);
        d.steering.ratio = fuzz_log(1.0, 40.0);
        d.steering.lock_deg = d.steering.ratio * 79.0 * fuzz_unit();
        d.drive.front_fraction = fuzz_unit();
        d.brake.force_per_bar_n = fuzz_log(1.0, 1e5);
        d.brake.front_fraction = fuzz_unit();
        d.brake.max_line_bar = fuzz_log(1.0, 500.0);
        d.brake.park_hold_force_n = fuzz_log(1.0, 1e6);
        d.resist.rolling_coeff = 0.5 * fuzz_unit();
        d.resist.drag_area_m2 = 50.0 * fuzz_unit();
        double speed = 300.0 * fuzz_unit() - 150.0;
        double friction = k % 5 == 0 ? 0.0 : fuzz_log(0.05, 10.0);
        if (k == 0) {
            d = st_default();
            d.chassis.mass_kg = 37820.0;
            d.chassis.yaw_inertia_kgm2 = 20.4;
            d.resist.drag_area_m2 = 49.2;
            d.resist.rolling_coeff = 0.152;
            speed = 91.0;
            friction = 0.085;
        }
        pdk_st_params p;
        pdk_st_params_init(&p, &d, 0.02 / (double)(1 + (int)(8.0 * fuzz_unit())),
                           fuzz_log(0.5, 100.0), 2.0 * fuzz_unit(), friction);
        pdk_pose pose = {0.0, 0.0, 6.0 * fuzz_unit() - 3.0};
        pdk_st_state s;
        pdk_st_state_init(&s, &pose, speed);
        s.vy_mps = 100.0 * fuzz_unit() - 50.0;
        s.yaw_rate_radps = fuzz_unit() < 0.5 ? 40.0 * fuzz_unit() - 20.0 : 0.0;
        pdk_st_cmd c;
        double ch[PDK_CH_COUNT];
        for (int t = 0; t < 300; t++) {
            if (t % 60 == 0) {
                double brake = fuzz_unit() < 0.5 ? d.brake.max_line_bar * fuzz_unit() : 0.0;
                double steer = d.steering.lock_deg * (2.0 * fuzz_unit() - 1.0);
                pdk_gear gear = (pdk_gear)(PDK_GEAR_PARK + (int)(5.0 * fuzz_unit()));
                pdk_st_cmd_set(&c, &d, 0.0, brake, steer, gear);
            }
            double e0 = kinetic_energy(&d, s.vx_mps, s.vy_mps, s.yaw_rate_radps);
            pdk_st_step(&s, &c, &p, 1 + t % 3, ch);
            double e1 = kinetic_energy(&d, s.vx_mps, s.vy_mps, s.yaw_rate_radps);
            ck_assert(s.faulted == 0u);
            if (e1 > e0) {
                worst = fmax(worst, (e1 - e0) / e0);
            }
            for (int i = 0; i < PDK_CH_COUNT; i++) {
                ck_assert(isfinite(ch[i]));
            }
        }
    }
    ck_assert_double_le(worst, ENERGY_ROUNDING);
}
END_TEST

/* The reviewer's lockbrake: the sedan at 12 m/s on full right lock, then
 * 150 bar with the front wheels sliding. The brakes slow the front wheels
 * along their own plane, so they cannot push the car forward or spin it up
 * (the old law, which opposed body vx, took the yaw rate from -1.1 to
 * +5.4 rad/s and the energy from 10.5 to 38 kJ). */
START_TEST(test_locked_brakes_stop_without_spinning_up)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = sedan_def();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 12.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, 0.0, -520.0);
    for (int t = 0; t < 180; t++) {
        pdk_world_step(w);
    }
    double r_at_brake = fabs(pose_of(w, id).yaw_rate_radps);
    ck_assert_double_gt(r_at_brake, 0.5);
    command(w, id, 0.0, 150.0, -520.0);
    int stopped_at = -1;
    for (int t = 0; t < 5 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        ck_assert_double_le(fabs(p.yaw_rate_radps), r_at_brake);
        ck_assert_double_le(p.yaw_rate_radps, 0.0);
        if (stopped_at < 0 && p.vx_mps == 0.0 && p.vy_mps == 0.0 && p.yaw_rate_radps == 0.0) {
            stopped_at = t;
        }
    }
    /* About 7 m/s left at the brake: at 0.7 g or more it stops within 1.5 s. */
    ck_assert_int_ge(stopped_at, 0);
    ck_assert_int_le(stopped_at, 3 * TICKS_PER_S / 2);
    world_free(w);
}
END_TEST

/* The front brake opposes the front wheel's own speed u_f. Here the car
 * rolls forward slowly while spinning left with the wheels turned right,
 * so the front wheel plane moves backward (u_f < 0): the front brake must
 * push the wheel forward (Fx_f > 0), not backward as body vx would say. */
START_TEST(test_front_brake_opposes_front_wheel_speed)
{
    pdk_vehicle_def def = st_default();
    def.brake.front_fraction = 1.0;
    pdk_st_params p;
    pdk_st_params_init(&p, &def, DT / 2.0, G, RHO, 1.0);
    pdk_st_cmd c;
    pdk_st_cmd_set(&c, &def, 0.0, 20.0, -def.steering.lock_deg, PDK_GEAR_NEUTRAL);
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_st_state s;
    pdk_st_state_init(&s, &pose, 1.0);
    s.yaw_rate_radps = 3.0;
    double u_f = c.cos_steer * s.vx_mps +
                 c.sin_steer * (s.vy_mps + def.chassis.cg_to_front_axle_m * s.yaw_rate_radps);
    ck_assert_double_lt(u_f, -1.0);
    double e0 = kinetic_energy(&def, s.vx_mps, s.vy_mps, s.yaw_rate_radps);
    double ch[PDK_CH_COUNT];
    pdk_st_step(&s, &c, &p, 1, ch);
    ck_assert_double_gt(ch[PDK_CH_FORCE_X_F], 0.0);
    ck_assert_double_lt(kinetic_energy(&def, s.vx_mps, s.vy_mps, s.yaw_rate_radps), e0);
}
END_TEST

/* ---- rest: exact zeros, no subnormals --------------------------------------- */

static void assert_no_subnormal(double v)
{
    ck_assert(fpclassify(v) != FP_SUBNORMAL);
}

/* A car turning on part lock brakes to a stop and stays parked: vx, vy and
 * the yaw rate settle to exact zeros and the slip angles read exactly 0
 * (they read +-90 deg from the direction of a vanishing velocity before);
 * no state value or channel is ever subnormal. */
START_TEST(test_parked_after_braking_reports_exact_zeros)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = st_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 15.0, PDK_GEAR_DRIVE);
    command(w, id, 0.0, 0.0, 200.0);
    for (int t = 0; t < TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    ck_assert_double_gt(fabs(pose_of(w, id).vy_mps), 0.1);
    command(w, id, 0.0, 60.0, 200.0);
    int settled_at = -1;
    for (int t = 0; t < 15 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        const double *ch = pdk_world_channels(w, id);
        double values[] = {p.vx_mps, p.vy_mps, p.yaw_rate_radps, p.ax_mps2, p.ay_mps2};
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            assert_no_subnormal(values[i]);
        }
        for (int i = 0; i < PDK_CH_COUNT; i++) {
            assert_no_subnormal(ch[i]);
        }
        int still = p.vx_mps == 0.0 && p.vy_mps == 0.0 && p.yaw_rate_radps == 0.0;
        if (still && settled_at < 0) {
            settled_at = t;
        }
        if (settled_at >= 0) {
            ck_assert(still);
            ck_assert(ch[PDK_CH_SLIP_ANGLE_F] == 0.0 && ch[PDK_CH_SLIP_ANGLE_R] == 0.0);
            ck_assert(ch[PDK_CH_SPEED] == 0.0);
            /* The tick it stops, the stop itself is its acceleration. */
            ck_assert(t == settled_at || (p.ax_mps2 == 0.0 && p.ay_mps2 == 0.0));
        }
    }
    /* 15 m/s at 60 bar (0.6 g) stops in under 3 s, and stays stopped. */
    ck_assert_int_ge(settled_at, 0);
    ck_assert_int_le(settled_at, 3 * TICKS_PER_S);
    pdk_vehicle_pose p = pose_of(w, id);
    for (int t = 0; t < TICKS_PER_S; t++) {
        pdk_world_step(w);
        assert_exactly_still(w, id, p.x_m, p.y_m, p.yaw_rad);
    }
    world_free(w);
}
END_TEST

/* Straight driving after a turn: the yaw and sideslip decay while the car
 * keeps moving; below 1e-100 they are stored as exact zeros, so a minute
 * later nothing is subnormal. */
START_TEST(test_decaying_yaw_never_subnormal)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = st_default();
    def.resist.rolling_coeff = 0.0;
    def.resist.drag_area_m2 = 0.0;
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 20.0, PDK_GEAR_NEUTRAL);
    command(w, id, 0.0, 0.0, 60.0);
    for (int t = 0; t < TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    command(w, id, 0.0, 0.0, 0.0);
    int zero_at = -1;
    for (int t = 0; t < 120 * TICKS_PER_S; t++) {
        pdk_world_step(w);
        pdk_vehicle_pose p = pose_of(w, id);
        assert_no_subnormal(p.vy_mps);
        assert_no_subnormal(p.yaw_rate_radps);
        assert_no_subnormal(p.ay_mps2);
        if (zero_at < 0 && p.vy_mps == 0.0 && p.yaw_rate_radps == 0.0) {
            zero_at = t;
        }
    }
    ck_assert_int_ge(zero_at, 0);
    ck_assert_double_gt(pose_of(w, id).vx_mps, 19.0);
    world_free(w);
}
END_TEST

/* ---- faults --------------------------------------------------------------- */

/* A state that cannot be stepped faults instead of spreading NaN: here a
 * corrupted speed of 1e200 m/s, whose sideways share overflows the speed,
 * then an infinite yaw rate. The vehicle stays where the tick began, its
 * velocities are zero, the flag is set, and every channel is finite,
 * PDK_CH_FAULTED reading 1. */
START_TEST(test_non_finite_state_faults)
{
    pdk_vehicle_def def = st_default();
    pdk_st_params p;
    pdk_st_params_init(&p, &def, DT / 2.0, G, RHO, 1.0);
    pdk_st_cmd c;
    pdk_st_cmd_set(&c, &def, 50.0, 0.0, 90.0, PDK_GEAR_DRIVE);
    pdk_pose pose = {12.0, -7.0, 0.4};
    pdk_st_state s;
    pdk_st_state_init(&s, &pose, 10.0);
    double ch[PDK_CH_COUNT];
    pdk_st_step(&s, &c, &p, 2, ch);
    ck_assert_double_eq(ch[PDK_CH_FAULTED], 0.0);
    const pdk_st_state before = s;
    for (int k = 0; k < 2; k++) {
        s = before;
        if (k == 0) {
            s.vx_mps = 1e200;
        } else {
            s.yaw_rate_radps = INFINITY;
        }
        pdk_st_step(&s, &c, &p, 2, ch);
        ck_assert_uint_eq(s.faulted, 1u);
        ck_assert(s.x_m == before.x_m && s.y_m == before.y_m && s.yaw_rad == before.yaw_rad);
        ck_assert(s.vx_mps == 0.0 && s.vy_mps == 0.0 && s.yaw_rate_radps == 0.0);
        ck_assert(s.ax_mps2 == 0.0 && s.ay_mps2 == 0.0);
        for (int i = 0; i < PDK_CH_COUNT; i++) {
            ck_assert(isfinite(ch[i]));
        }
        ck_assert_double_eq(ch[PDK_CH_FAULTED], 1.0);
        ck_assert_double_eq(ch[PDK_CH_POS_X], before.x_m);
        ck_assert_double_eq(ch[PDK_CH_SPEED], 0.0);
        ck_assert_double_eq(ch[PDK_CH_THROTTLE], 50.0);
    }
    /* A corrupted pose faults too; a non-finite position is held at 0. */
    pdk_st_state_init(&s, &pose, 10.0);
    s.y_m = NAN;
    pdk_st_step(&s, &c, &p, 2, ch);
    ck_assert_uint_eq(s.faulted, 1u);
    ck_assert(s.x_m == 12.0 && s.y_m == 0.0);
}
END_TEST

/* ---- convergence -------------------------------------------------------- */

static double steady_yaw_rate(int substeps)
{
    pdk_world *w = world_with(substeps);
    pdk_vehicle_def def = st_default();
    pdk_vehicle_id id = spawn(w, &def, 0.0, 0.0, 0.0, 20.0, PDK_GEAR_DRIVE);
    double r = drive_steady(w, id, 20.0, 30.0, 8.0).yaw_rate_radps;
    world_free(w);
    return r;
}

static double stopping_distance(int substeps)
{
    pdk_world *w = world_with(substeps);
    pdk_vehicle_def def = st_default();
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
    pdk_vehicle_def def = st_default();
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
    for (int n = 1; n <= 4; n *= 2) {
        /* Steady state: measured 2.7e-4, 7.2e-5, 1.6e-5 at 1, 2, 4
         * substeps, second order (the lateral dampers' weight th leans
         * from 1/2 by order h, and the frame turns between their two
         * velocities); 1e-3. */
        ck_assert_double_le(rel_err(steady_yaw_rate(n), r8), 1e-3);
        /* Stopping distance: the position advances by the mean of the
         * velocities before and after each force step. Measured 3.2e-5,
         * 1.4e-5, 4.6e-6 at 1, 2, 4 substeps; the end velocity alone gave
         * 1.8e-3, 7.9e-4, 2.6e-4. */
        ck_assert_double_le(rel_err(stopping_distance(n), d8), 2e-4);
    }
    /* The step-steer rise is the stiffest transient, and the step is second
     * order in the substep: halving it quarters the error. Against 32
     * substeps, measured 1.6e-4, 4.2e-5, 1.05e-5 at 1, 2, 4 substeps
     * (4 times less per halving); a first-order step (the frame's whole
     * turn before a backward-Euler force step) gave 7.9e-3, 3.9e-3, 1.8e-3,
     * twice less per halving. */
    double s32 = step_steer_yaw_rate(32);
    double e1 = rel_err(step_steer_yaw_rate(1), s32);
    double e2 = rel_err(step_steer_yaw_rate(2), s32);
    double e4 = rel_err(step_steer_yaw_rate(4), s32);
    ck_assert_double_le(e1, 5e-4);
    ck_assert_double_le(e2, 1.5e-4);
    ck_assert_double_ge(e2, 3.0 * e4);
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
            ck_assert_double_le(fabs(pdk_trig_atan2(y, x) - want),
                                2.0 * 4.5e-16 * fabs(want) + 1e-300);
        }
    }
    ck_assert(pdk_trig_atan2(0.0, 0.0) == 0.0);
    ck_assert(signbit(pdk_trig_atan2(-0.0, 1.0)));
    ck_assert_double_eq(pdk_trig_atan2(0.0, -1.0), atan2(0.0, -1.0));
}
END_TEST

/* No input takes the trigonometry out of its tables or into undefined
 * behaviour: NaN gives NaN, infinities give C's quadrants (UBSan and ASan
 * builds check the rest). */
START_TEST(test_trig_is_safe_for_any_input)
{
    const double special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1e300, 1e300};
    const int n = (int)(sizeof special / sizeof special[0]);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double y = special[i];
            double x = special[j];
            double got = pdk_trig_atan2(y, x);
            double want = atan2(y, x);
            if (isnan(want)) {
                ck_assert(isnan(got));
            } else {
                ck_assert_double_le(fabs(got - want), 4.5e-16 * fabs(want));
                ck_assert(signbit(got) == signbit(want));
            }
        }
        double sn, cs;
        pdk_trig_sincos(special[i], &sn, &cs);
        if (!isfinite(special[i])) {
            ck_assert(isnan(sn) && isnan(cs));
        }
    }
}
END_TEST

START_TEST(test_wrap_angle)
{
    ck_assert_double_eq(pdk_st_wrap_angle(0.5), 0.5);
    ck_assert_double_eq(pdk_st_wrap_angle(PI), PI);
    ck_assert_double_eq(pdk_st_wrap_angle(-PI), PI);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(3.0 * PI / 2.0) + PI / 2.0), 1e-15);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(-7.0 * PI + 0.25) - (PI + 0.25 - 2.0 * PI)), 1e-14);
    ck_assert_double_le(fabs(pdk_st_wrap_angle(1.0e6) - remainder(1.0e6, 2.0 * PI)), 1e-9);
}
END_TEST

/* A full circle at constant speed closes on itself: heading and position
 * are integrated consistently (the per-substep heading rotation and the yaw
 * angle agree). */
START_TEST(test_circle_closes)
{
    pdk_world *w = world_new();
    pdk_vehicle_def def = st_default();
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

/* The world steps vehicles in batches, four at a time in vectors, a lone
 * vehicle in one lane with copies of itself in the others. A vehicle's
 * state and channels must not depend on its lane, its neighbours or the
 * build of the tick that stepped it. */

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
        pdk_vehicle_def d = st_default();
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

#define FLEET_MAX 24

/* What the fleet went through, so the test knows it reached every branch. */
typedef struct fleet_seen {
    long stuck, backward, sliding, large_turn, wrapped, governed;
    long locked;   /* brakes beyond the front tyres' grip while moving */
    long opposite; /* front wheel plane and body moving opposite ways */
    long rested;   /* came to exact rest from motion */
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
    int was_at_rest[FLEET_MAX];
    for (int i = 0; i < n; i++) {
        last_yaw[i] = pose_of(fleet, fleet_id[i]).yaw_rad;
        was_at_rest[i] = 1;
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
            double hold_f =
                pc[PDK_CH_BRAKE] * defs[i].brake.force_per_bar_n * defs[i].brake.front_fraction;
            double cap_f =
                defs[i].tyre_front.friction_coeff * wd.surface_friction * pc[PDK_CH_TYRE_LOAD_F];
            seen->locked += hold_f >= cap_f && fabs(p.vx_mps) > 1.0;
            double u_f = cos(pc[PDK_CH_STEER_ANGLE]) * p.vx_mps +
                         sin(pc[PDK_CH_STEER_ANGLE]) *
                             (p.vy_mps + defs[i].chassis.cg_to_front_axle_m * p.yaw_rate_radps);
            seen->opposite += u_f * p.vx_mps < 0.0;
            int at_rest = p.vx_mps == 0.0 && p.vy_mps == 0.0 && p.yaw_rate_radps == 0.0;
            seen->rested += at_rest && !was_at_rest[i];
            was_at_rest[i] = at_rest;
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
    ck_assert_int_gt(seen.locked, 0);
    ck_assert_int_gt(seen.opposite, 0);
    ck_assert_int_gt(seen.rested, 0);
}
END_TEST

/* Steps the same random fleet by the baseline and the AVX2 build of the
 * tick (where the processor has it), and by BEST, which takes the lone
 * vehicle's build for a batch of one, and requires bitwise equal states
 * and channels after every tick, in batches of every size. */
static void builds_agree(double dt_s, int substeps, double surface_friction, int ticks,
                         uint64_t seed)
{
    fleet_rng = seed;
    pdk_st_state st[3][PDK_ST_BATCH];
    pdk_st_cmd cmd[PDK_ST_BATCH];
    pdk_st_params par[PDK_ST_BATCH];
    pdk_vehicle_def defs[PDK_ST_BATCH];
    double ch[3][PDK_ST_BATCH][PDK_CH_COUNT];
    for (int i = 0; i < PDK_ST_BATCH; i++) {
        defs[i] = fleet_def();
        pdk_st_params_init(&par[i], &defs[i], dt_s / (double)substeps, G, RHO, surface_friction);
        pdk_pose pose = {.x_m = fleet_between(-500.0, 500.0),
                         .y_m = fleet_between(-500.0, 500.0),
                         .yaw_rad = fleet_between(-PI, PI)};
        pdk_st_state_init(&st[0][i], &pose, fleet_between(-8.0, 45.0));
        st[0][i].yaw_rate_radps = fleet_between(-3.0, 3.0);
        st[0][i].vy_mps = fleet_between(-3.0, 3.0);
        st[1][i] = st[0][i];
        st[2][i] = st[0][i];
        pdk_st_cmd_set(&cmd[i], &defs[i], 0.0, 0.0, 0.0, PDK_GEAR_DRIVE);
    }
    memset(ch, 0, sizeof ch);
    for (int t = 0; t < ticks; t++) {
        for (int i = 0; i < PDK_ST_BATCH; i++) {
            if (t == 0 || fleet_unit() < 0.02) {
                pdk_dbw_cmd c = fleet_cmd(&defs[i]);
                pdk_gear gear = (pdk_gear)(PDK_GEAR_PARK + (int)(fleet_unit() * 5.0));
                pdk_st_cmd_set(&cmd[i], &defs[i], c.throttle_pct, c.brake_bar, c.steer_wheel_deg,
                               gear);
            }
        }
        /* Batches of 1 to 16 vehicles in turn, so that every lane count of
         * the last group is taken. */
        int count = 1 + t % PDK_ST_BATCH;
        for (int first = 0; first < PDK_ST_BATCH; first += count) {
            int n = PDK_ST_BATCH - first < count ? PDK_ST_BATCH - first : count;
            for (int b = 0; b < 3; b++) {
                pdk_st_state *sp[PDK_ST_BATCH];
                const pdk_st_cmd *cp[PDK_ST_BATCH];
                const pdk_st_params *pp[PDK_ST_BATCH];
                double *chp[PDK_ST_BATCH];
                for (int k = 0; k < n; k++) {
                    sp[k] = &st[b][first + k];
                    cp[k] = &cmd[first + k];
                    pp[k] = &par[first + k];
                    chp[k] = ch[b][first + k];
                }
                const pdk_fw_build builds[3] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2,
                                                PDK_FW_BUILD_BEST};
                (void)pdk_st_step_batch_build(sp, cp, pp, chp, n, substeps, builds[b]);
            }
        }
        for (int b = 1; b < 3; b++) {
            if (memcmp(st[0], st[b], sizeof st[0]) != 0 ||
                memcmp(ch[0], ch[b], sizeof ch[0]) != 0) {
                ck_abort_msg("tick %d: build %d differs from the baseline", t, b);
            }
        }
    }
}

START_TEST(test_builds_give_the_same_bits)
{
    if (!pdk_fw_build_available(PDK_FW_BUILD_AVX2)) {
        return; /* one build on this processor: nothing to compare */
    }
    builds_agree(DT, 2, 1.0, 3000, 11u);
    builds_agree(DT, 4, 0.3, 2000, 12u);
    /* Coarse substeps on a grippy surface: large turns, recomputed headings. */
    builds_agree(0.02, 1, 8.0, 3000, 13u);
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
    tcase_add_test(num, test_trig_is_safe_for_any_input);
    tcase_add_test(num, test_fleet_matches_vehicles_alone);
    tcase_add_test(num, test_builds_give_the_same_bits);
    suite_add_tcase(s, num);

    TCase *energy = tcase_create("energy");
    tcase_add_test(energy, test_frictionless_spin_keeps_speed_and_course);
    tcase_add_test(energy, test_energy_never_increases_without_throttle);
    tcase_add_test(energy, test_energy_bound_holds_for_any_parameters);
    tcase_add_test(energy, test_locked_brakes_stop_without_spinning_up);
    tcase_add_test(energy, test_front_brake_opposes_front_wheel_speed);
    suite_add_tcase(s, energy);

    TCase *rest = tcase_create("rest and faults");
    tcase_add_test(rest, test_parked_after_braking_reports_exact_zeros);
    tcase_add_test(rest, test_decaying_yaw_never_subnormal);
    tcase_add_test(rest, test_non_finite_state_faults);
    suite_add_tcase(s, rest);
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
