/* The four-wheel model's validation suites share this (test_fw_validation.c,
 * test_fw_geometry.c): the test car, and one vehicle run on its own through
 * pdk_fw_* directly, outside any world.
 *
 * The test car is built here field by field (not from the preset), so each
 * expectation is a function of numbers these files state: a 1500 kg mid-size
 * saloon, rear-wheel drive, with equal front and rear ride frequencies (the
 * corner rates are proportional to the corner masses, which uncouples heave
 * from pitch), symmetric dampers, no drag and no rolling resistance (so a
 * coasting car keeps its speed and the tyre forces are the only horizontal
 * forces on the body), on the default car's tyres (the grip law, 1 kg m^2
 * wheels). Included once per suite, after its feature macros. */
#ifndef PDK_FW_TEST_UTIL_H
#define PDK_FW_TEST_UTIL_H

#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/channels.h"
#include "vehicle/four_wheel.h"
#include "ground/terrain.h"
#include "sim/vehicle_def.h"

#define G 9.81
#define RHO 1.225
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define DT (1.0 / 120.0)
#define TICKS_PER_S 120

/* ---- the test car -------------------------------------------------------- */

/* Mass on one corner of the axle (0 front, 1 rear) at rest: m b / 2L, m a / 2L. */
static inline double corner_mass_kg(const pdk_vehicle_def *d, int axle)
{
    double m = d->chassis.mass_kg;
    double len = d->chassis.wheelbase_m;
    double a = d->chassis.cg_to_front_axle_m;
    return 0.5 * m * (axle == 0 ? len - a : a) / len;
}

static pdk_suspension_def *susp(pdk_vehicle_def *d, int axle)
{
    return axle == 0 ? &d->susp_front : &d->susp_rear;
}

static inline double track_m(const pdk_vehicle_def *d, int axle)
{
    const pdk_suspension_def *s = axle == 0 ? &d->susp_front : &d->susp_rear;
    return s->track_width_m > 0.0 ? s->track_width_m : d->chassis.track_width_m;
}

/* Springs and dampers for ride frequency f_hz and damping ratio zeta at both
 * axles, from the definition f = sqrt(k / m_corner) / 2 pi and zeta = c / (2
 * sqrt(k m_corner)); bump = rebound. */
static inline void set_ride(pdk_vehicle_def *d, double f_hz, double zeta)
{
    double w = 2.0 * PI * f_hz;
    for (int axle = 0; axle < 2; axle++) {
        double mc = corner_mass_kg(d, axle);
        double k = w * w * mc;
        double c = 2.0 * zeta * sqrt(k * mc);
        susp(d, axle)->spring_rate_npm = k;
        susp(d, axle)->bump_damping_nspm = c;
        susp(d, axle)->rebound_damping_nspm = c;
    }
}

/* Ride 1.5 Hz, zeta 0.3, bars 15 and 5 kN/m: a roll gradient near 3.9
 * deg/g (printed by the roll test). No camber thrust, toe, Ackermann, roll
 * centre or anti geometry unless a test adds it. */
static inline pdk_vehicle_def test_car(void)
{
    pdk_vehicle_def d;
    memset(&d, 0, sizeof d);
    d.model = PDK_MODEL_FOUR_WHEEL;
    d.dbw = pdk_dbw_def_default();
    d.chassis.mass_kg = 1500.0;
    d.chassis.yaw_inertia_kgm2 = 2500.0;
    d.chassis.roll_inertia_kgm2 = 550.0;
    d.chassis.pitch_inertia_kgm2 = 2400.0;
    d.chassis.wheelbase_m = 2.7;
    d.chassis.cg_to_front_axle_m = 1.2;
    d.chassis.cg_height_m = 0.55;
    d.chassis.track_width_m = 1.55;
    /* The default car's tyres (the grip law), without their rolling
     * resistance. */
    pdk_vehicle_def base = pdk_vehicle_def_default();
    d.tyre_front = base.tyre_front;
    d.tyre_rear = base.tyre_rear;
    d.tyre_front.cornering_stiffness_n_per_rad = 110000.0;
    d.tyre_front.friction_coeff = 1.0;
    d.tyre_front.camber_stiffness_n_per_rad = 0.0;
    d.tyre_front.law.rolling_coeff = 0.0;
    d.tyre_rear.cornering_stiffness_n_per_rad = 130000.0;
    d.tyre_rear.friction_coeff = 1.0;
    d.tyre_rear.camber_stiffness_n_per_rad = 0.0;
    d.tyre_rear.law.rolling_coeff = 0.0;
    d.steering.ratio = 15.0;
    d.steering.lock_deg = 540.0;
    for (int axle = 0; axle < 2; axle++) {
        pdk_suspension_def *s = susp(&d, axle);
        s->kind = PDK_AXLE_INDEPENDENT;
        s->travel_bump_m = 0.08;
        s->travel_droop_m = 0.1;
        s->bump_stop_npm = 200000.0;
    }
    d.susp_front.anti_roll_npm = 15000.0;
    d.susp_rear.anti_roll_npm = 5000.0;
    set_ride(&d, 1.5, 0.3);
    d.drive.max_force_n = 6000.0;
    d.drive.max_power_w = 110000.0;
    d.drive.front_fraction = 0.0;
    d.drive.max_reverse_speed_mps = 5.0;
    d.drive.max_low_speed_mps = 12.0;
    d.brake.force_per_bar_n = 150.0;
    d.brake.front_fraction = 0.65;
    d.brake.max_line_bar = 180.0;
    d.brake.park_hold_force_n = 8000.0;
    return d;
}

/* ---- a vehicle on its own ------------------------------------------------ */

typedef struct fw_run {
    pdk_vehicle_def def;
    pdk_terrain_def terrain;
    pdk_fw_params params;
    pdk_fw_state state;
    pdk_fw_cmd cmd;
    pdk_gear gear;
    int substeps;
    double tick_s;
    double vel_before[3]; /* world CG velocity before the last tick */
    double ch[PDK_CH_COUNT];
} fw_run;

static inline void run_init_at(fw_run *r, const pdk_vehicle_def *def,
                               const pdk_terrain_def *terrain, double tick_s, int substeps,
                               double x_m, double y_m, double speed_mps, pdk_gear gear)
{
    /* pdk_fw_params_init takes a checked definition: every car here is one
     * a user could spawn. */
    const char *why = pdk_vehicle_def_problem(def);
    ck_assert_msg(why == NULL, "test definition rejected: %s", why);
    /* Zeroed first, padding included, so that states compare with memcmp. */
    memset(r, 0, sizeof *r);
    r->def = *def;
    if (terrain != NULL) {
        r->terrain = *terrain;
    }
    r->substeps = substeps;
    r->tick_s = tick_s;
    r->gear = gear;
    pdk_fw_params_init(&r->params, &r->def, tick_s / substeps, G, RHO, 1.0);
    pdk_pose pose = {x_m, y_m, 0.0};
    pdk_fw_state_init(&r->state, &r->params, &r->terrain, &pose, speed_mps);
    pdk_fw_powertrain_init(&r->state, &r->def.powertrain, gear, speed_mps,
                           r->params.c.radius_m[PDK_RL]);
    pdk_fw_cmd_set(&r->cmd, &r->def, 0.0, 0.0, 0.0, gear);
}

/* On flat ground at the origin, heading +x, 120 Hz. */
static inline void run_init(fw_run *r, const pdk_vehicle_def *def, int substeps, double speed_mps,
                            pdk_gear gear)
{
    run_init_at(r, def, NULL, DT, substeps, 0.0, 0.0, speed_mps, gear);
}

static inline void run_command(fw_run *r, double throttle_pct, double brake_bar, double steer_deg)
{
    pdk_fw_cmd_set(&r->cmd, &r->def, throttle_pct, brake_bar, steer_deg, r->gear);
}

static inline void run_tick(fw_run *r)
{
    memcpy(r->vel_before, r->state.vel_mps, sizeof r->vel_before);
    pdk_fw_step(&r->state, &r->cmd, &r->params, &r->terrain, r->substeps, r->ch);
}

static inline void run_for(fw_run *r, double seconds)
{
    int ticks = (int)lround(seconds / r->tick_s);
    for (int t = 0; t < ticks; t++) {
        run_tick(r);
    }
}

/* Holds target_mps with a PI throttle loop, as a driver would, for seconds
 * of steer_deg on the steering wheel (as test_single_track.c does). */
static inline void drive_steady(fw_run *r, double target_mps, double steer_deg, double seconds)
{
    double integral = 0.0;
    int ticks = (int)lround(seconds / r->tick_s);
    for (int t = 0; t < ticks; t++) {
        double err = target_mps - r->ch[PDK_CH_VEL_X];
        if (t == 0) {
            err = 0.0;
        }
        integral += err * r->tick_s;
        double throttle = 100.0 * (err + integral);
        throttle = throttle < 0.0 ? 0.0 : (throttle > 100.0 ? 100.0 : throttle);
        run_command(r, throttle, 0.0, steer_deg);
        run_tick(r);
    }
}

/* Flat ground with a straight ramp rising at grade (falling where it is
 * negative) along +x from x0_m, 200 m long and 100 m wide, rounded over 2 m
 * at its foot. */
static inline pdk_terrain_def ramp_terrain(double x0_m, double grade)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    t.n_ramps = 1;
    t.ramps[0] = (pdk_ramp){.x_m = x0_m,
                            .y_m = 0.0,
                            .yaw_rad = 0.0,
                            .length_m = 200.0,
                            .width_m = 100.0,
                            .grade = grade,
                            .transition_m = 2.0,
                            .hold_m = 0.0};
    pdk_terrain_prepare(&t);
    return t;
}

/* Ticks the held command until the car is slower than 0.01 m/s or
 * max_s have passed; the distance its CG covered (m) and, in *seconds,
 * the time it took. */
static inline double run_to_stop(fw_run *r, double max_s, double *seconds)
{
    const double x0 = r->state.pos_m[0], y0 = r->state.pos_m[1];
    int t = 0;
    do {
        run_tick(r);
        t++;
    } while (r->ch[PDK_CH_SPEED] > 0.01 && t < (int)lround(max_s / r->tick_s));
    *seconds = t * r->tick_s;
    return hypot(r->state.pos_m[0] - x0, r->state.pos_m[1] - y0);
}

static inline void assert_channels_finite(const fw_run *r)
{
    for (int c = 0; c < PDK_CH_COUNT; c++) {
        ck_assert_msg(isfinite(r->ch[c]), "channel %s is %g", pdk_channel_get((size_t)c)->name,
                      r->ch[c]);
    }
    ck_assert_double_eq(r->ch[PDK_CH_FAULTED], 0.0);
}

static inline double rel_err(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

#endif
