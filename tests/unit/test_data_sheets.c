/* The performance figures of the data sheets (docs/presets.md) of the six
 * presets with a geared powertrain, each loaded from presets/vehicles as
 * paddockd loads it and run on its own on flat dry tarmac
 * (pdk_terrain_def_flat: 20 C air and road) at 120 Hz with 2 substeps, the
 * flat world's, its tyres at their optimal temperature as on tyre warmers
 * (cold slicks have 0.6 of their grip, and the open-wheeler's rear wheels
 * then spin at full throttle):
 *  - the time from rest to 60 and to 100 km/h at full throttle in D (the
 *    kart's 100 km/h is 96 % of its top speed, so its figure is mostly the
 *    last crawl);
 *  - the top speed at full throttle in D from rest, through the gears
 *    without hunting (at most one upshift per gear, no downshift, the
 *    engine never past its limiter), at 2 and at 8 substeps;
 *  - the stopping distance from 100 km/h (the kart's from 60) at the
 *    preset's highest line pressure, in N.
 * Each figure is printed, for the sheets, and held to physics computed here
 * from the preset's own numbers, not from the model:
 *  - the top speed within 3 % of where the engine's full-load power through
 *    the best gear meets drag and rolling resistance (the downforce's share
 *    of it too): T_wot(n) i eta / R = 1/2 rho C_d A v^2 + f (m g + 1/2 rho
 *    C_L A v^2) with n = v i / R, by bisection in each gear (the curve falls
 *    to 0 at the limiter, so a car the limiter stops in top gear is held to
 *    that, and the governor caps it where there is one);
 *  - the launch no quicker than the engine's peak power allows, 1/2 m v^2 /
 *    P_peak, nor than the driven tyres' peak friction allows, the integral
 *    of dv / (mu (g + 1/2 rho C_L A v^2 / m)), mu the driven tyres' peak
 *    |Fx| / Fz over loads of 0.25 to 2.5 times the static, every inflation
 *    pressure the law takes and slips either way, times 1.02 for what the
 *    scan leaves out (camber, combined slip);
 *  - the stop no shorter than every tyre at that friction with drag and
 *    rolling resistance helping allows: the integral of v dv / a_max(v),
 *    a_max = (mu + f) (g + 1/2 rho C_L A v^2 / m) + 1/2 rho C_d A v^2 / m;
 *  - the energy ledger's residual within 0.1 % of the fuel's energy at the
 *    end of the launch.
 * The whole file takes about half a second of CPU (printed per preset). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "params.h"
#include "reference.h"
#include "powertrain/engine.h"
#include "tyre/tyre.h"
#include "tyre/tyre_life.h"
#include "sim/world.h"

#include "fw_test_util.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

/* Each preset and the speed its stop starts at. */
typedef struct sheet {
    const char *name;
    double brake_kmh;
} sheet;

static const sheet sheets[] = {
    {"compact_hatch", 100.0}, {"midsize_sedan", 100.0}, {"sports_car", 100.0},
    {"open_wheeler", 100.0},  {"kart", 60.0},           {"pickup4x4", 100.0},
};

/* The launch's end, and a speed on the way there the sheets quote too. */
#define LAUNCH_KMH 100.0
#define LAUNCH_MID_KMH 60.0

#define N_SHEETS ((int)(sizeof sheets / sizeof sheets[0]))

/* What the scan of the tyre's law leaves out (camber, combined slip). */
#define MU_MARGIN 1.02

static void load(const char *name, pdk_vehicle_def *d)
{
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, name, NULL, d, NULL, err, sizeof err) == PDK_OK,
                  "%s: %s", name, err);
    ck_assert_int_eq(d->model, PDK_MODEL_FOUR_WHEEL);
    ck_assert_int_eq(d->powertrain.kind, PDK_POWERTRAIN_GEARED);
}

/* A run on flat tarmac from the origin, the tyres warm: each at its own
 * optimal temperature (tyre warmers), as a data sheet's runs start. */
static void start_at(fw_run *r, const pdk_vehicle_def *d, int substeps, double speed_mps,
                     pdk_gear gear)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    pdk_terrain_prepare(&t);
    run_init_at(r, d, &t, DT, substeps, 0.0, 0.0, speed_mps, gear);
    for (int axle = 0; axle < 2; axle++) {
        const pdk_axle_tyre_def *ty = axle == 0 ? &d->tyre_front : &d->tyre_rear;
        const double warm_c = ty->life.optimal_temp_c;
        ck_assert_ptr_null(pdk_tyre_action_problem(PDK_TYRE_SET_TEMPERATURE, warm_c));
        pdk_fw_tyre_action(&r->state, d, axle == 0 ? 0x3u : 0xcu, PDK_TYRE_SET_TEMPERATURE, warm_c,
                           t.air_temp_c);
    }
}

/* The same at the flat world's 2 substeps. */
static void start(fw_run *r, const pdk_vehicle_def *d, double speed_mps, pdk_gear gear)
{
    start_at(r, d, 2, speed_mps, gear);
}

/* The peak |Fx| / Fz of an axle's tyre as the step runs it, over loads of
 * 0.25 to 2.5 times its static load, the inflation pressures the law
 * takes (its pressure terms hold dpi within +-0.5) and slips either way. */
static double peak_mu_x(const pdk_fw_axle *ax)
{
    const pdk_tyre_ground ground = {1.0, 1.0, 1.0};
    const double p0 = ax->law.mf.nominal_pressure_pa > 0.0 ? ax->law.mf.nominal_pressure_pa : 2e5;
    double mu = 0.0;
    for (double load = 0.25; load <= 2.5; load += 0.25) {
        const double fz = load * ax->static_load_n;
        for (double dp = -0.5; dp <= 0.5; dp += 0.25) {
            for (int i = -400; i <= 400; i++) {
                const pdk_tyre_in in = {.fz_n = fz, .kappa = i * 2.5e-3, .vx_mps = 20.0};
                pdk_tyre_out out;
                pdk_tyre_eval_at_pressure(&ax->law, &ground, &in, (1.0 + dp) * p0, 0, &out);
                mu = fmax(mu, fabs(out.fx_n) / fz);
            }
        }
    }
    return MU_MARGIN * mu;
}

/* Downforce per (m/s)^2, N. */
static double lift_per_v2(const pdk_vehicle_def *d)
{
    return 0.5 * RHO * d->resist.downforce_area_m2;
}

/* The shortest time to v_mps with at most mu (m g + q v^2) of traction. */
static double traction_bound_s(const pdk_vehicle_def *d, double mu, double v_mps)
{
    const double m = d->chassis.mass_kg, q = lift_per_v2(d);
    const int n = 2000;
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = (i + 0.5) * v_mps / n;
        t += (v_mps / n) / (mu * (G + q * v * v / m));
    }
    return t;
}

/* The shortest stop from v_mps with every tyre at mu, drag and rolling
 * resistance f helping. */
static double stop_bound_m(const pdk_vehicle_def *d, double mu, double f, double v_mps)
{
    const double m = d->chassis.mass_kg, q = lift_per_v2(d);
    const double drag = 0.5 * RHO * d->resist.drag_area_m2;
    const int n = 2000;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = (i + 0.5) * v_mps / n;
        const double a = (mu + f) * (G + q * v * v / m) + drag * v * v / m;
        s += v * (v_mps / n) / a;
    }
    return s;
}

/* The power-limited top speed, m/s, and its gear: the validation's
 * reference (server/validate/reference.h), at the flat world's air and g. */
static double power_limited_top_mps(const pdk_vehicle_def *d, int *gear)
{
    return pdk_ref_power_limited_top_mps(d, RHO, G, gear, NULL);
}

/* Full throttle from rest in D to v_mps: the time (interpolated inside the
 * tick), and to mid_mps on the way; the shifts, the gear and engine speed
 * at the end, and the ledger's balance there. */
static double launch(const pdk_vehicle_def *d, double v_mps, double mid_mps, double bound_s)
{
    fw_run r;
    start(&r, d, 0.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 0.0, 0.0);
    double before = 0.0, t_s = -1.0, t_mid_s = -1.0;
    int shifts = 0, last_gear = 1;
    for (int k = 1; k <= 60 * TICKS_PER_S && t_s < 0.0; k++) {
        run_tick(&r);
        const double v = r.ch[PDK_CH_SPEED];
        const int gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
        if (gear != 0 && gear != last_gear) {
            shifts++;
            last_gear = gear;
        }
        if (v >= mid_mps && t_mid_s < 0.0) {
            t_mid_s = (k - 1 + (mid_mps - before) / (v - before)) * DT;
        }
        if (v >= v_mps) {
            t_s = (k - 1 + (v_mps - before) / (v - before)) * DT;
        }
        before = v;
    }
    ck_assert_msg(t_s > 0.0, "the car never reached %.0f km/h", v_mps * 3.6);
    assert_channels_finite(&r);
    const double fuel = r.ch[PDK_CH_ENERGY_FUEL], residual = r.ch[PDK_CH_ENERGY_RESIDUAL];
    printf("  0-%.0f km/h: %.2f s; 0-%.0f km/h: %.2f s (%d upshifts, gear %d at %.0f rev/min), at "
           "least %.2f s; ledger: fuel %.3f MJ, residual %.0f J (%.4f %%)\n",
           mid_mps * 3.6, t_mid_s, v_mps * 3.6, t_s, shifts, last_gear, r.ch[PDK_CH_ENGINE_RPM],
           bound_s, fuel * 1e-6, residual, 100.0 * residual / fuel);
    ck_assert_double_lt(fabs(residual), 1e-3 * fuel);
    return t_s;
}

/* A run to the top speed: the speed, its gear and the engine's speed, the
 * shifts on the way (GearNumber's changes, not counting the 0 a shift reads
 * while its clutch is open) and the engine's fastest. */
typedef struct top_run {
    double v_mps;
    int gear;
    double rpm;
    int upshifts, downshifts;
    double max_rpm;
} top_run;

/* Full throttle in D from rest, at substeps per tick, until the speed
 * changes by less than 0.01 m/s in a second (at most 150 s). */
static top_run top_speed(const pdk_vehicle_def *d, int substeps)
{
    fw_run r;
    start_at(&r, d, substeps, 0.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 0.0, 0.0);
    top_run out = {0};
    int last_gear = 0;
    double last = 0.0;
    for (int s = 1; s <= 150; s++) {
        for (int k = 0; k < TICKS_PER_S; k++) {
            run_tick(&r);
            const int gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
            if (gear != 0 && last_gear != 0 && gear != last_gear) {
                out.upshifts += gear > last_gear;
                out.downshifts += gear < last_gear;
            }
            last_gear = gear != 0 ? gear : last_gear;
            out.max_rpm = fmax(out.max_rpm, r.ch[PDK_CH_ENGINE_RPM]);
        }
        const double v = r.ch[PDK_CH_SPEED];
        if (s >= 5 && fabs(v - last) < 0.01) {
            break;
        }
        last = v;
    }
    assert_channels_finite(&r);
    out.v_mps = r.ch[PDK_CH_SPEED];
    out.gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
    out.rpm = r.ch[PDK_CH_ENGINE_RPM];
    return out;
}

/* A full-throttle run from rest goes up through the gears and never down:
 * at most one upshift per gear above first, no downshift, the engine never
 * past its limiter. */
static void assert_no_hunting(const pdk_vehicle_def *d, const top_run *t, int substeps)
{
    printf("  from rest at %d substeps: %.1f km/h in gear %d, %d upshifts, %d downshifts, the "
           "engine at most %.0f rev/min\n",
           substeps, t->v_mps * 3.6, t->gear, t->upshifts, t->downshifts, t->max_rpm);
    ck_assert_int_le(t->upshifts, d->powertrain.geared.n_gears - 1);
    ck_assert_int_eq(t->downshifts, 0);
    ck_assert_double_le(t->max_rpm, d->powertrain.engine.max_rpm);
}

/* From v0_mps in N at the highest line pressure to a stop: the distance
 * and the time. */
static double stop(const pdk_vehicle_def *d, double v0_mps, double *t_s)
{
    fw_run r;
    start(&r, d, v0_mps, PDK_GEAR_NEUTRAL);
    run_command(&r, 0.0, d->brake.max_line_bar, 0.0);
    int k = 0;
    while (r.ch[PDK_CH_SPEED] > 0.05 || k == 0) {
        ck_assert_int_lt(k, 20 * TICKS_PER_S);
        run_tick(&r);
        k++;
    }
    assert_channels_finite(&r);
    *t_s = k * DT;
    return hypot(r.state.pos_m[0], r.state.pos_m[1]);
}

START_TEST(test_data_sheet)
{
    const clock_t cpu0 = clock();
    const sheet *sh = &sheets[_i];
    pdk_vehicle_def d;
    load(sh->name, &d);
    double peak_rpm = 0.0;
    const double p_peak = pdk_ref_peak_power_w(&d, &peak_rpm);
    printf("%s: %.0f kg, peak power %.1f kW at %.0f rev/min\n", sh->name, d.chassis.mass_kg,
           p_peak * 1e-3, peak_rpm);

    /* The tyres as the step runs them, from a run's constants. */
    fw_run probe;
    start(&probe, &d, 0.0, PDK_GEAR_PARK);
    const double mu_front = peak_mu_x(&probe.params.axle[0]);
    const double mu_rear = peak_mu_x(&probe.params.axle[1]);
    const pdk_layout_def *l = &d.powertrain.layout;
    double mu_driven = l->driven_axle == 0 ? mu_front : mu_rear;
    if (l->coupling == PDK_COUPLING_LOCKED) {
        mu_driven = fmax(mu_front, mu_rear);
    }
    const double mu_all = fmax(mu_front, mu_rear);

    /* (a) The launch. */
    const double v_launch = LAUNCH_KMH / 3.6;
    const double energy_s = 0.5 * d.chassis.mass_kg * v_launch * v_launch / p_peak;
    const double grip_s = traction_bound_s(&d, mu_driven, v_launch);
    const double t_launch = launch(&d, v_launch, LAUNCH_MID_KMH / 3.6, fmax(energy_s, grip_s));
    printf(
        "    bounds: energy 1/2 m v^2 / P_peak %.2f s, traction %.2f s (driven tyres' mu %.2f)\n",
        energy_s, grip_s, mu_driven);
    ck_assert_double_ge(t_launch, energy_s);
    ck_assert_double_ge(t_launch, grip_s);

    /* (b) The top speed, from rest, through the gears without hunting. */
    int gear_expect = 0;
    const double v_expect = power_limited_top_mps(&d, &gear_expect);
    const top_run top = top_speed(&d, 2);
    printf("  top speed: %.1f km/h in gear %d at %.0f rev/min; power-limited %.1f km/h in gear "
           "%d (%+.2f %%)\n",
           top.v_mps * 3.6, top.gear, top.rpm, v_expect * 3.6, gear_expect,
           100.0 * (top.v_mps / v_expect - 1.0));
    ck_assert_double_eq_tol(top.v_mps, v_expect, 0.03 * v_expect);
    assert_no_hunting(&d, &top, 2);

    /* (c) The stop. */
    const double v_brake = sh->brake_kmh / 3.6;
    const double f = fmax(d.tyre_front.law.rolling_coeff, d.tyre_rear.law.rolling_coeff);
    const double s_bound = stop_bound_m(&d, mu_all, f, v_brake);
    double t_stop = 0.0;
    const double s_stop = stop(&d, v_brake, &t_stop);
    printf("  %.0f-0 km/h at %.0f bar%s: %.1f m in %.2f s (%.2f g mean), at least %.1f m (the "
           "tyres' mu %.2f front, %.2f rear)\n",
           sh->brake_kmh, d.brake.max_line_bar, d.powertrain.abs ? ", ABS" : "", s_stop, t_stop,
           v_brake * v_brake / (2.0 * s_stop) / G, s_bound, mu_front, mu_rear);
    ck_assert_double_ge(s_stop, s_bound);
    printf("  (%.3f s of CPU)\n", (double)(clock() - cpu0) / CLOCKS_PER_SEC);
}
END_TEST

/* The shift program cannot hunt at four times the substeps either: full
 * throttle from rest at 8 substeps goes up through the gears, never down,
 * to the same top speed. */
START_TEST(test_no_hunting_at_8_substeps)
{
    const sheet *sh = &sheets[_i];
    pdk_vehicle_def d;
    load(sh->name, &d);
    printf("%s:\n", sh->name);
    const top_run top = top_speed(&d, 8);
    assert_no_hunting(&d, &top, 8);
    int gear_expect = 0;
    const double v_expect = power_limited_top_mps(&d, &gear_expect);
    ck_assert_double_eq_tol(top.v_mps, v_expect, 0.03 * v_expect);
}
END_TEST

/* The pickup's part-time four-wheel drive in 4H (as shipped) locks its
 * front axle to the rear, so no wheel's brake sets its own slip: the rear
 * brakes drag the front wheels through the transfer case. Its ABS stop
 * from 100 km/h on ice, at the highest line pressure in N with no drag,
 * downforce or rolling resistance and the tread's temperature held (the
 * validation's stop, server/validate/maneuvers_brake.c), is no shorter
 * than v^2 / (2 mu g) with the law's peak mu at each wheel's load and
 * within 10 % above it. Controlled wheel by wheel, the front controllers
 * let their brakes off entirely and the stop was 16 % over (508 m). */
START_TEST(test_abs_in_4h_on_ice)
{
    pdk_vehicle_def d;
    char err[256];
    ck_assert_msg(pdk_params_vehicle_load(
                      PRESETS, "pickup4x4",
                      "resistance.dragArea=0;resistance.downforceArea=0;"
                      "tyres.front.rollingCoeff=0;tyres.rear.rollingCoeff=0;"
                      "tyres.front.life.heatScale=0;tyres.rear.life.heatScale=0",
                      &d, NULL, err, sizeof err) == PDK_OK,
                  "pickup4x4: %s", err);
    ck_assert(d.powertrain.abs);
    ck_assert_int_eq(d.powertrain.layout.coupling, PDK_COUPLING_LOCKED);
    const pdk_ref_world rw = {G, 1.0};
    pdk_ref_friction fr;
    ck_assert_int_eq(pdk_ref_friction_on(&d, &rw, PDK_SURFACE_ICE, &fr), PDK_OK);
    const double v0 = 100.0 / 3.6;
    const double bound = pdk_ref_stopping_distance_m(v0, fr.peak_mu_car, G);
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    t.base_surface_id = PDK_SURFACE_ICE;
    pdk_terrain_prepare(&t);
    fw_run r;
    run_init_at(&r, &d, &t, DT, 2, 0.0, 0.0, v0, PDK_GEAR_NEUTRAL);
    run_command(&r, 0.0, d.brake.max_line_bar, 0.0);
    int ticks = 0;
    do {
        run_tick(&r);
        ticks++;
    } while (r.ch[PDK_CH_SPEED] > 0.05 && ticks < 120 * TICKS_PER_S);
    const double s = hypot(r.state.pos_m[0], r.state.pos_m[1]);
    printf("pickup4x4 in 4H, ABS on ice from 100 km/h: %.1f m, bound v^2/(2 mu g) %.1f m (mu "
           "%.3f; %+.1f %%)\n",
           s, bound, fr.peak_mu_car, 100.0 * (s / bound - 1.0));
    ck_assert_double_ge(s, bound);
    ck_assert_double_le(s, 1.10 * bound);
}
END_TEST

/* The sheets' physics uses the flat world's air and gravity. */
START_TEST(test_world_constants)
{
    const pdk_world_def w = pdk_world_def_default();
    ck_assert_double_eq(w.air_density_kgpm3, RHO);
    ck_assert_double_eq(w.gravity_mps2, G);
    ck_assert_int_eq(w.substeps, 2);
}
END_TEST

static Suite *data_sheets_suite(void)
{
    Suite *s = suite_create("data_sheets");
    TCase *tc = tcase_create("data_sheets");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_world_constants);
    tcase_add_test(tc, test_abs_in_4h_on_ice);
    tcase_add_loop_test(tc, test_data_sheet, 0, N_SHEETS);
    tcase_add_loop_test(tc, test_no_hunting_at_8_substeps, 0, N_SHEETS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(data_sheets_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
