/* A geared powertrain on the four-wheel model (vehicle_def.h
 * PDK_POWERTRAIN_GEARED): an engine, a launch clutch, a gearbox of fixed
 * ratios shifting itself, a final drive and differentials, through the
 * implicit driveline. The test car is the default car (front-wheel drive,
 * 1500 kg) with a 1.2 L turbo petrol and a six-speed automatic, built here
 * field by field so that each expectation follows from numbers this file
 * states. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_test_util.h"
#include "ground/surface.h"
#include "tyre/tyre.h"
#include "powertrain/engine.h"
#include "sim/world.h"

/* The test car's engine: 85 kW at 5600 rev/min, 175 N m from 1400 to 4000;
 * friction from Heywood's correlation for spark-ignition engines,
 * fmep = 0.97 + 0.15 n_k + 0.05 n_k^2 bar (Internal Combustion Engine
 * Fundamentals, eq. 13.13). */
static pdk_engine_def engine_12tsi(void)
{
    pdk_engine_def e = pdk_engine_def_prostar999();
    static const double rpm[] = {1000, 1400, 4000, 5000, 5600, 6200, 6500};
    static const double nm[] = {110, 175, 175, 160, 145, 120, 0};
    e.n_curve = 7;
    for (int i = 0; i < 7; i++) {
        e.curve_rpm[i] = rpm[i];
        e.curve_nm[i] = nm[i];
    }
    e.idle_rpm = 750.0;
    e.max_rpm = 6500.0;
    e.inertia_kgm2 = 0.15;
    e.accessory_drag_nm = 3.0;
    e.displacement_l = 1.2;
    e.indicated_efficiency = 0.36;
    e.fmep_bar = 0.97;
    e.fmep_bar_per_krpm = 0.15;
    e.fmep_bar_per_krpm2 = 0.05;
    e.pumping_bar = 0.8;
    e.torque_lag_s = 0.2;
    e.pedal_exponent = 1.0;
    e.max_speed_mps = 0.0;
    return e;
}

static pdk_vehicle_def geared_car(void)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_powertrain_def *pt = &d.powertrain;
    memset(pt, 0, sizeof *pt);
    pt->kind = PDK_POWERTRAIN_GEARED;
    pt->engine = engine_12tsi();
    pdk_gearbox_def *g = &pt->geared;
    static const double ratios[] = {4.148, 2.370, 1.556, 1.155, 0.859, 0.686};
    g->shift = PDK_SHIFT_AUTOMATIC;
    g->n_gears = 6;
    for (int i = 0; i < 6; i++) {
        g->ratio[i] = ratios[i];
    }
    g->reverse_ratio = 3.394;
    g->final_drive = 3.683;
    g->low_range = 1.0;
    g->efficiency = 0.92;
    g->upshift_rpm_light = 2000.0;
    g->upshift_rpm_full = 6000.0;
    g->downshift_rpm = 1100.0;
    g->shift_time_s = 0.25;
    g->clutch_capacity_nm = 400.0;
    g->clutch_engage_rpm = 900.0;
    g->clutch_full_rpm = 2200.0;
    g->park_hold_nm = 10000.0;
    g->handbrake_nm = 1200.0;
    pt->layout.driven_axle = 0;
    pt->layout.diff = (pdk_dl_diff){PDK_DIFF_OPEN, 1.0, 0.0};
    pt->layout.coupling = PDK_COUPLING_NONE;
    pt->output_inertia_kgm2 = 0.1;
    /* The default car's brakes, 150 N/bar at the contacts 65/35, as torques
     * at each wheel (radius 0.31 m). */
    pt->brake_front_nm_per_bar = 150.0 * 0.65 / 2.0 * 0.31;
    pt->brake_rear_nm_per_bar = 150.0 * 0.35 / 2.0 * 0.31;
    pt->fuel_tank_l = 50.0;
    pt->fuel_heating_value_jpkg = 43.4e6;
    pt->fuel_density_kgpl = 0.745;
    return d;
}

static void car_init(fw_run *r, const pdk_vehicle_def *d, double speed_mps, pdk_gear gear)
{
    run_init(r, d, 2, speed_mps, gear);
}

/* A limited-slip differential's friction is heat the ledger books. The car,
 * driven at the rear, in N and at rest on flat ground, is given 8 m/s
 * sideways and 1 rad/s of yaw: a spinning slide, in which its rear wheels
 * turn apart and the diff's preload resists that with no torque through
 * it. Over 8 s the residual stays under 1e-5 of the work the tyres took,
 * with an LSD as with an open differential, and the LSD's preload work
 * shows in the driveline's term. Before the differential's friction was
 * booked (what the carrier took less what the shafts gave the wheels) it
 * left the ledger unbooked: about 100 J here, and 198 J of 45.7 kJ in the
 * sports car's plain sideways slide. */
static void slide_sideways(const pdk_dl_diff diff, double *residual_j, double *driveline_j,
                           double *slip_j)
{
    pdk_vehicle_def d = geared_car();
    d.powertrain.layout.driven_axle = 1;
    d.powertrain.layout.diff = diff;
    fw_run r;
    car_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
    run_for(&r, 2.0);
    const double res0 = r.ch[PDK_CH_ENERGY_RESIDUAL];
    const double line0 = r.ch[PDK_CH_ENERGY_DRIVELINE];
    const double slip0 = r.ch[PDK_CH_ENERGY_TYRE_SLIP];
    r.state.vel_mps[1] = 8.0;
    r.state.omega_radps[2] = 1.0;
    run_for(&r, 8.0);
    assert_channels_finite(&r);
    *residual_j = r.ch[PDK_CH_ENERGY_RESIDUAL] - res0;
    *driveline_j = r.ch[PDK_CH_ENERGY_DRIVELINE] - line0;
    *slip_j = r.ch[PDK_CH_ENERGY_TYRE_SLIP] - slip0;
}

START_TEST(test_lsd_friction_is_booked)
{
    const pdk_dl_diff diffs[2] = {{PDK_DIFF_OPEN, 1.0, 0.0}, {PDK_DIFF_LSD, 2.0, 50.0}};
    double line_j[2];
    for (int k = 0; k < 2; k++) {
        double residual_j, slip_j;
        slide_sideways(diffs[k], &residual_j, &line_j[k], &slip_j);
        printf("geared car, %s diff, a spinning slide from 8 m/s in N: tyres %.1f J, "
               "driveline %.3f J, residual %.4f J\n",
               k ? "50 N m LSD" : "open", slip_j, line_j[k], residual_j);
        ck_assert_double_gt(slip_j, 10000.0);
        ck_assert_double_lt(fabs(residual_j), 1e-5 * slip_j);
    }
    ck_assert_double_gt(line_j[1] - line_j[0], 50.0);
}
END_TEST

/* The definition passes its checks; each gearbox rule is enforced with a
 * message naming its key. */
START_TEST(test_definition_checks)
{
    pdk_vehicle_def d = geared_car();
    ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
    int n = 0;
#define SPOIL(body, k)                                                                             \
    do {                                                                                           \
        pdk_vehicle_def bad = geared_car();                                                        \
        body;                                                                                      \
        const char *why = pdk_vehicle_def_problem(&bad);                                           \
        ck_assert_ptr_nonnull(why);                                                                \
        ck_assert_msg(strstr(why, k) != NULL, "\"%s\" does not name %s", why, k);                  \
        n++;                                                                                       \
    } while (0)
    SPOIL(bad.powertrain.geared.n_gears = 0, "transmission.ratios");
    SPOIL(bad.powertrain.geared.ratio[3] = 2.0, "transmission.ratios");
    SPOIL(bad.powertrain.geared.downshift_rpm = 1500.0, "transmission.downshiftRpm");
    SPOIL(bad.powertrain.geared.upshift_rpm_full = 7000.0, "upshiftRpmFull");
    SPOIL(bad.powertrain.geared.clutch_engage_rpm = 700.0, "clutch.engageRpm");
    SPOIL(bad.powertrain.layout.diff.kind = (pdk_diff_kind)7, "driveline.diff");
    SPOIL(bad.powertrain.geared.efficiency = 1.5, "transmission.efficiency");
#undef SPOIL
    ck_assert_int_eq(n, 7);
}
END_TEST

/* Full throttle from rest in D: the launch clutch slips at first (the
 * engine runs ahead of the wheels), then locks; the box shifts up through
 * its gears in order, each time where the next gear gives the more power
 * (past the curve's peak), with the clutch open (no wheel torque) while it
 * shifts; the engine never passes its limiter. */
START_TEST(test_launch_and_upshifts)
{
    pdk_vehicle_def d = geared_car();
    fw_run r;
    car_init(&r, &d, 0.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 0.0, 0.0);
    int last_gear = 1, slipped = 0, locked = 0, shifts = 0;
    double rpm_before = 0.0, max_rpm = 0.0;
    for (int t = 0; t < 40 * TICKS_PER_S; t++) {
        run_tick(&r);
        const int gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
        const double rpm = r.ch[PDK_CH_ENGINE_RPM];
        max_rpm = fmax(max_rpm, rpm);
        if (t < TICKS_PER_S && r.ch[PDK_CH_CLUTCH_SLIP] > 20.0) {
            slipped = 1;
        }
        if (slipped && fabs(r.ch[PDK_CH_CLUTCH_SLIP]) < 0.5) {
            locked = 1;
        }
        if (gear == 0) {
            /* Shifting: the clutch is open. */
            ck_assert_double_eq(r.ch[PDK_CH_CLUTCH_TORQUE], 0.0);
            ck_assert_double_lt(fabs(r.ch[PDK_CH_WHEEL_TORQUE_FL]), 1e-6);
        } else if (gear != last_gear) {
            printf("upshift %d -> %d at %.0f rev/min, %.1f km/h, t %.2f s\n", last_gear, gear,
                   rpm_before, r.ch[PDK_CH_SPEED] * 3.6, (t + 1) * DT);
            ck_assert_int_eq(gear, last_gear + 1);
            /* At full pedal the box shifts where the next gear gives the
             * more power: past the curve's peak (5600), below the limiter. */
            ck_assert_double_ge(rpm_before, 5600.0);
            last_gear = gear;
            shifts++;
        }
        if (gear != 0) {
            rpm_before = rpm;
        }
    }
    printf("after 40 s: gear %d, %.1f km/h, engine %.0f rev/min (max %.0f)\n", last_gear,
           r.ch[PDK_CH_SPEED] * 3.6, r.ch[PDK_CH_ENGINE_RPM], max_rpm);
    assert_channels_finite(&r);
    ck_assert_int_eq(slipped, 1);
    ck_assert_int_eq(locked, 1);
    ck_assert_int_ge(shifts, 4);
    ck_assert_double_lt(max_rpm, d.powertrain.engine.max_rpm);
    /* The energy ledger places the fuel's energy, shifts and all, to within
     * 0.1 %. */
    printf("ledger: fuel %.0f J, residual %.1f J\n", r.ch[PDK_CH_ENERGY_FUEL],
           r.ch[PDK_CH_ENERGY_RESIDUAL]);
    ck_assert_double_lt(fabs(r.ch[PDK_CH_ENERGY_RESIDUAL]), 1e-3 * r.ch[PDK_CH_ENERGY_FUEL]);
}
END_TEST

/* The top speed, reached in 120 s at full throttle from 50 m/s, is where the engine's
 * wheel power in the best gear meets the drag and rolling resistance:
 * T(n) i eta / R = 1/2 rho C_d A v^2 + f m g with n = v i / R, solved here
 * by bisection in each gear from the engine's curve (the tyres' slip and
 * the wheels' rolling resistance at speed make the model's a little lower);
 * within 3 %. */
START_TEST(test_top_speed_power_limited)
{
    pdk_vehicle_def d = geared_car();
    const pdk_powertrain_def *pt = &d.powertrain;
    const pdk_gearbox_def *g = &pt->geared;
    fw_run r;
    car_init(&r, &d, 50.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 0.0, 0.0);
    run_for(&r, 120.0);
    const double v_model = r.ch[PDK_CH_SPEED];
    const double radius = d.tyre_front.law.radius_m;
    const double f_roll = d.tyre_front.law.rolling_coeff * d.chassis.mass_kg * G;
    double v_best = 0.0;
    for (int k = 0; k < g->n_gears; k++) {
        const double i = g->ratio[k] * g->final_drive;
        double lo = 1.0, hi = 150.0;
        for (int it = 0; it < 100; it++) {
            const double v = 0.5 * (lo + hi);
            const double rpm = v / radius * i * 60.0 / (2.0 * PI);
            const double fr = pdk_engine_friction_nm(&pt->engine, rpm);
            /* Full load less friction is the engine's brake torque, less
             * the accessories. */
            const double t =
                pdk_engine_full_load_nm(&pt->engine, rpm) - pt->engine.accessory_drag_nm;
            (void)fr;
            const double push = t * i * g->efficiency / radius;
            const double resist = 0.5 * RHO * d.resist.drag_area_m2 * v * v + f_roll;
            if (push > resist) {
                lo = v;
            } else {
                hi = v;
            }
        }
        v_best = fmax(v_best, lo);
    }
    printf("top speed %.1f km/h in gear %d at %.0f rev/min (power-limited %.1f km/h)\n",
           v_model * 3.6, (int)r.ch[PDK_CH_GEAR_NUMBER], r.ch[PDK_CH_ENGINE_RPM], v_best * 3.6);
    ck_assert_double_eq_tol(v_model, v_best, 0.03 * v_best);
}
END_TEST

/* Braking from 100 km/h in D at 60 bar: the box shifts down as the engine
 * slows below its downshift speed, and the car stops; R then drives it
 * backward; P holds it on a 20 % slope. */
START_TEST(test_downshifts_reverse_and_park)
{
    pdk_vehicle_def d = geared_car();
    fw_run r;
    car_init(&r, &d, 100.0 / 3.6, PDK_GEAR_DRIVE);
    run_command(&r, 0.0, 0.0, 0.0);
    run_tick(&r);
    const int top = (int)r.ch[PDK_CH_GEAR_NUMBER];
    run_command(&r, 0.0, 60.0, 0.0);
    int lowest = top;
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        run_tick(&r);
        if (r.ch[PDK_CH_GEAR_NUMBER] > 0.0) {
            lowest = (int)fmin(lowest, r.ch[PDK_CH_GEAR_NUMBER]);
        }
    }
    printf("braking from 100 km/h: gear %d down to %d, stopped at %.3f m/s, engine %.0f rev/min\n",
           top, lowest, r.ch[PDK_CH_SPEED], r.ch[PDK_CH_ENGINE_RPM]);
    ck_assert_int_ge(top, 4);
    ck_assert_int_eq(lowest, 1);
    ck_assert_double_lt(r.ch[PDK_CH_SPEED], 0.01);
    /* The engine idles with the car stopped in gear: the clutch has let go. */
    ck_assert_double_eq_tol(r.ch[PDK_CH_ENGINE_RPM], d.powertrain.engine.idle_rpm, 50.0);
    r.gear = PDK_GEAR_REVERSE;
    run_command(&r, 60.0, 0.0, 0.0);
    run_for(&r, 3.0);
    ck_assert_double_lt(r.ch[PDK_CH_VEL_X], -1.0);
    ck_assert_double_lt(r.ch[PDK_CH_WHEEL_TORQUE_FL], 0.0);
}
END_TEST

/* ABS: braking from 25 m/s at 150 bar (far more than the tyres pass) with
 * 90 deg on the steering wheel. Without ABS the front wheels lock and the
 * car slides on straight ahead, stopping in about v^2 / 2 g mu_slide; with
 * ABS they keep turning (the slip held near the tyre's peak, never a
 * locked wheel above ABS's 2 m/s), the car turns, and it stops shorter,
 * no shorter than v^2 / 2 g mu_peak (the tyre's, 1.0, on tarmac's). */
START_TEST(test_abs_keeps_the_wheels_turning)
{
    double dist[2], heading[2];
    int locked_ticks[2];
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def d = geared_car();
        d.powertrain.abs = k;
        fw_run r;
        car_init(&r, &d, 25.0, PDK_GEAR_NEUTRAL);
        run_command(&r, 0.0, 150.0, 90.0);
        locked_ticks[k] = 0;
        int t = 0;
        r.ch[PDK_CH_SPEED] = 25.0;
        while (r.ch[PDK_CH_SPEED] > 0.05 && t < 20 * TICKS_PER_S) {
            run_tick(&r);
            t++;
            if (r.ch[PDK_CH_SPEED] > 3.0 && r.state.spin_radps[PDK_FL] == 0.0) {
                locked_ticks[k]++;
            }
        }
        dist[k] = hypot(r.state.pos_m[0], r.state.pos_m[1]);
        heading[k] = r.ch[PDK_CH_YAW];
        printf("braking from 25 m/s at 150 bar, %s: %.1f m, heading %.1f deg, front left locked "
               "for %d ticks above 3 m/s\n",
               k ? "ABS" : "no ABS", dist[k], heading[k] / DEG, locked_ticks[k]);
    }
    /* The ABS stop to the bit: its regulator's exp and sin are the
     * project's (math/vmath.h), so every machine stops the car here (with
     * glibc's, which picks its variant by processor, this one stopped at
     * ...984f). 39.3685 m; 39.3696 m (0x4043af4fff88984b) before the tyres'
     * life came to advance on ticks drawn from where the car was placed
     * (ADR 0038). */
    uint64_t abs_dist_bits;
    memcpy(&abs_dist_bits, &dist[1], sizeof abs_dist_bits);
    ck_assert_uint_eq(abs_dist_bits, UINT64_C(0x4043af29beaac7fe));
    ck_assert_int_gt(locked_ticks[0], 60);
    ck_assert_int_eq(locked_ticks[1], 0);
    ck_assert_double_lt(dist[1], dist[0]);
    ck_assert_double_ge(dist[1], 625.0 / (2.0 * G * 1.0) * 0.98);
    ck_assert_double_gt(fabs(heading[1]), 3.0 * fabs(heading[0]));
}
END_TEST

/* ABS on every hard surface: a straight stop at 150 bar (far more than any
 * surface passes) from 100 km/h, and from 50 km/h on ice, with no aero drag
 * or rolling resistance, so that only the tyres stop the car. No stop can
 * be shorter than v^2 / (2 a_max), a_max the deceleration at which every
 * tyre gives its law's peak on the surface at the load it then carries
 * (braking_decel); an ABS that holds each wheel near its peak slip comes
 * within 10 % of it, and no wheel stays locked for more than a few ticks
 * above 3 m/s. Two tyres: the grip law (mu 1, no load sensitivity: a_max is
 * exactly the surface's peak mu times g) and the Magic Formula road205 set,
 * whose curve the surface compresses so that on ice it peaks at about 3 %
 * slip. The fixed 8 % / 15 % slip thresholds this controller replaced sat
 * past that peak. */
static pdk_vehicle_def abs_car(int magic)
{
    pdk_vehicle_def d = geared_car();
    d.powertrain.abs = 1;
    d.resist.drag_area_m2 = 0.0;
    d.resist.rolling_coeff = 0.0;
    for (int axle = 0; axle < 2; axle++) {
        pdk_tyre_law_def *law = axle == 0 ? &d.tyre_front.law : &d.tyre_rear.law;
        if (magic) {
            law->law = PDK_TYRE_MAGIC;
            law->mf_set = PDK_MF_ROAD_205_60R15;
            law->mf = *pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
            law->slide_grip = 0.0;
            law->nominal_load_n = law->mf.fnomin_n * law->mf.lfzo;
        }
        law->rolling_coeff = 0.0;
    }
    return d;
}

/* The largest braking force of a tyre with law on surface_id at load fz_n,
 * or with locked set its force at kappa = -1. */
static double peak_braking_n(const pdk_tyre_law_def *law, int surface_id, double fz_n, int locked)
{
    pdk_tyre_ground g;
    pdk_surface_ground(surface_id, 1.0, &g);
    if (locked) {
        pdk_tyre_in in = {fz_n, -1.0, 0.0, 0.0, 20.0};
        pdk_tyre_out o;
        pdk_tyre_eval(law, &g, &in, 0, &o);
        return -o.fx_n;
    }
    double best = 0.0;
    for (int k = 1; k <= 10000; k++) {
        pdk_tyre_in in = {fz_n, -1e-4 * k, 0.0, 0.0, 20.0};
        pdk_tyre_out o;
        pdk_tyre_eval(law, &g, &in, 0, &o);
        best = fmax(best, -o.fx_n);
    }
    return best;
}

/* a_max: the fixed point of a = sum of the four tyres' peak braking forces
 * (or locked-wheel forces, with locked set) / m, with the loads of a car
 * decelerating at a (each axle's static load plus m a h / L moved
 * forward). */
static double braking_decel(const pdk_vehicle_def *d, int surface_id, int locked)
{
    pdk_tyre_law_def law[2];
    const pdk_chassis_def *c = &d->chassis;
    const double m = c->mass_kg, len = c->wheelbase_m, lf = c->cg_to_front_axle_m;
    const double static_n[2] = {m * G * (len - lf) / (2.0 * len), m * G * lf / (2.0 * len)};
    pdk_fw_law_of(d, 0, static_n[0], &law[0]);
    pdk_fw_law_of(d, 1, static_n[1], &law[1]);
    double a = G * pdk_surface_get(surface_id)->mu_peak;
    for (int it = 0; it < 20; it++) {
        const double shift_n = m * a * c->cg_height_m / (2.0 * len);
        const double f =
            2.0 * peak_braking_n(&law[0], surface_id, static_n[0] + shift_n, locked) +
            2.0 * peak_braking_n(&law[1], surface_id, static_n[1] - shift_n, locked);
        a = f / m;
    }
    return a;
}

static double abs_stop_at(const pdk_vehicle_def *d, int surface_id, double v0_mps, int substeps,
                          int *max_locked_ticks)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    t.base_surface_id = surface_id;
    pdk_terrain_prepare(&t);
    fw_run r;
    run_init_at(&r, d, &t, DT, substeps, 0.0, 0.0, v0_mps, PDK_GEAR_NEUTRAL);
    run_command(&r, 0.0, 150.0, 0.0);
    int locked[PDK_WHEELS] = {0, 0, 0, 0};
    *max_locked_ticks = 0;
    int ticks = 0;
    do {
        run_tick(&r);
        ticks++;
        for (int j = 0; j < PDK_WHEELS; j++) {
            locked[j] = r.ch[PDK_CH_SPEED] > 3.0 && r.state.spin_radps[j] == 0.0 ? locked[j] + 1 : 0;
            if (locked[j] > *max_locked_ticks) {
                *max_locked_ticks = locked[j];
            }
        }
    } while (r.ch[PDK_CH_SPEED] > 0.01 && ticks < 60 * TICKS_PER_S);
    return hypot(r.state.pos_m[0], r.state.pos_m[1]);
}

static double abs_stop(const pdk_vehicle_def *d, int surface_id, double v0_mps,
                       int *max_locked_ticks)
{
    return abs_stop_at(d, surface_id, v0_mps, 2, max_locked_ticks);
}

START_TEST(test_abs_stops_near_the_peak_grip_bound)
{
    static const int surfaces[] = {PDK_SURFACE_TARMAC, PDK_SURFACE_TARMAC_WET,
                                   PDK_SURFACE_CONCRETE, PDK_SURFACE_GRAVEL,
                                   PDK_SURFACE_DIRT, PDK_SURFACE_GRASS,
                                   PDK_SURFACE_SNOW, PDK_SURFACE_ICE, PDK_SURFACE_ICE};
    const int n = (int)(sizeof surfaces / sizeof surfaces[0]);
    for (int magic = 0; magic < 2; magic++) {
        const pdk_vehicle_def d = abs_car(magic);
        for (int i = 0; i < n; i++) {
            const double v0 = i == n - 1 ? 50.0 / 3.6 : 100.0 / 3.6;
            const double a_max = braking_decel(&d, surfaces[i], 0);
            const double bound = v0 * v0 / (2.0 * a_max);
            int locked = 0;
            const double s = abs_stop(&d, surfaces[i], v0, &locked);
            printf("ABS stop, %s, from %.0f km/h on %s: %.1f m, bound v^2/(2 a_max) %.1f m "
                   "(a_max %.3f g; %+.1f %%), longest lock %d ticks\n",
                   magic ? "road205" : "grip law", v0 * 3.6, pdk_surface_get(surfaces[i])->name,
                   s, bound, a_max / G, 100.0 * (s / bound - 1.0), locked);
            ck_assert_double_ge(s, bound * 0.995);
            ck_assert_double_le(s, bound * 1.10);
            ck_assert_int_le(locked, 3);
        }
    }
}
END_TEST

/* An ABS stop converges with the substep as the rest of the model does:
 * from 100 km/h at 150 bar, the stop at the default 2 substeps and at 8
 * agree within 0.5 % (the validation's criterion), on dry tarmac (a road
 * tyre's peak near 10 % slip, quick wheel cycles) and on packed snow (a
 * peak of a few per cent, slow ones), with both tyres. A controller that
 * decides on thresholds at every substep from the substep's start moved
 * these stops by 1 to 3 %: its valve timing moved with the substep. */
START_TEST(test_abs_converges_with_the_substep)
{
    static const int surfaces[] = {PDK_SURFACE_TARMAC, PDK_SURFACE_SNOW};
    for (int magic = 0; magic < 2; magic++) {
        const pdk_vehicle_def d = abs_car(magic);
        for (int i = 0; i < 2; i++) {
            int locked = 0;
            const double v0 = 100.0 / 3.6;
            const double s2 = abs_stop_at(&d, surfaces[i], v0, 2, &locked);
            const double s8 = abs_stop_at(&d, surfaces[i], v0, 8, &locked);
            printf("ABS stop, %s, on %s: %.3f m at 2 substeps, %.3f m at 8 (%+.3f %%)\n",
                   magic ? "road205" : "grip law", pdk_surface_get(surfaces[i])->name, s2, s8,
                   100.0 * (s8 / s2 - 1.0));
            ck_assert_double_lt(fabs(s8 / s2 - 1.0), 0.005);
        }
    }
}
END_TEST

/* Locked wheels on each law: without ABS, 150 bar locks every wheel, and
 * the car stops in v^2 / (2 a_locked), a_locked the deceleration the four
 * tyres' locked-wheel forces give at the loads they then carry: mu
 * slide_grip g for the grip and utv laws (no load sensitivity), the set's
 * own sliding share for road205. A slide_grip of 0 on the grip or utv law,
 * which left the car sliding for ever, is refused by the definition check
 * (test_tyre). */
START_TEST(test_locked_wheels_stop_at_the_sliding_friction)
{
    for (int kind = 0; kind < 3; kind++) {
        pdk_vehicle_def d = abs_car(kind == 2);
        d.powertrain.abs = 0;
        if (kind == 1) {
            for (int axle = 0; axle < 2; axle++) {
                pdk_tyre_law_def *law = axle == 0 ? &d.tyre_front.law : &d.tyre_rear.law;
                law->law = PDK_TYRE_UTV;
                law->hard_slip_stiffness = 12.0;
                law->slide_grip = 0.75;
            }
        }
        const double v0 = 20.0;
        const double a = braking_decel(&d, PDK_SURFACE_TARMAC, 1);
        int locked = 0;
        const double s = abs_stop(&d, PDK_SURFACE_TARMAC, v0, &locked);
        const double want = v0 * v0 / (2.0 * a);
        printf("locked wheels, %s: %.2f m from 20 m/s, v^2/(2 a_locked) %.2f m (a_locked %.3f g)\n",
               kind == 0 ? "grip law" : kind == 1 ? "utv law" : "road205", s, want, a / G);
        if (kind < 2) {
            ck_assert(fabs(a / G - 0.75) < 1e-9);
        }
        ck_assert_double_lt(fabs(s / want - 1.0), 0.03);
        ck_assert_int_gt(locked, 100);
    }
}
END_TEST

/* P on a 20 % slope: the pawl holds the driven (front) wheels and the
 * parking brake the rear ones, so none turns and the car stays. With a
 * pawl and brake too weak for the slope (100 N m each, where the grade
 * asks m g sin(theta) R, about 900 N m in all) the car rolls away. */
START_TEST(test_park_on_a_slope)
{
    pdk_terrain_def t = ramp_terrain(-50.0, 0.2);
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def d = geared_car();
        if (k == 1) {
            d.powertrain.geared.park_hold_nm = 100.0;
            d.powertrain.geared.handbrake_nm = 100.0;
        }
        fw_run r;
        run_init_at(&r, &d, &t, DT, 2, 0.0, 0.0, 0.0, PDK_GEAR_PARK);
        run_for(&r, 3.0);
        const double x0 = r.state.pos_m[0];
        run_for(&r, 3.0);
        const double moved = fabs(r.state.pos_m[0] - x0);
        printf("P on 20 %%, %s: moved %.3g m in 3 s\n", k ? "weak pawl and brake" : "as built",
               moved);
        if (k == 0) {
            ck_assert_double_lt(moved, 1e-5);
            for (int i = 0; i < PDK_WHEELS; i++) {
                ck_assert_double_eq(r.state.spin_radps[i], 0.0);
            }
        } else {
            ck_assert_double_gt(moved, 0.5);
        }
    }
}
END_TEST

/* A manual gearbox (transmission.shift manual): the gear is the one the
 * command names. Full throttle in first runs the engine up to its limiter
 * and holds it there (the box does not shift itself); commanded into
 * second, the clutch opens for the shift time (GearNumber 0, no wheel
 * torque) and the engine then turns at the road's speed times second's
 * ratio, slower by the step; in a world, a gear number is refused on a
 * vehicle without a manual box and beyond the box's gears, with the
 * reason, and changes nothing. */
START_TEST(test_manual_gearbox)
{
    pdk_vehicle_def d = geared_car();
    d.powertrain.geared.shift = PDK_SHIFT_MANUAL;
    const pdk_gearbox_def *g = &d.powertrain.geared;
    fw_run r;
    car_init(&r, &d, 0.0, PDK_GEAR_DRIVE);
    r.cmd.gear_number = 1;
    run_command(&r, 100.0, 0.0, 0.0);
    run_for(&r, 8.0);
    printf("manual, first gear at full throttle for 8 s: %.1f km/h, engine %.0f rev/min\n",
           r.ch[PDK_CH_SPEED] * 3.6, r.ch[PDK_CH_ENGINE_RPM]);
    ck_assert_double_eq(r.ch[PDK_CH_GEAR_NUMBER], 1.0);
    ck_assert_double_gt(r.ch[PDK_CH_ENGINE_RPM], 0.97 * d.powertrain.engine.max_rpm);
    r.cmd.gear_number = 2;
    run_tick(&r);
    ck_assert_double_eq(r.ch[PDK_CH_GEAR_NUMBER], 0.0);
    ck_assert_double_lt(fabs(r.ch[PDK_CH_WHEEL_TORQUE_FL]), 1e-6);
    run_for(&r, g->shift_time_s + 0.5);
    ck_assert_double_eq(r.ch[PDK_CH_GEAR_NUMBER], 2.0);
    const double wheel = 0.5 * (r.state.spin_radps[PDK_FL] + r.state.spin_radps[PDK_FR]);
    const double want = wheel * g->ratio[1] * g->final_drive * 60.0 / (2.0 * PI);
    printf("manual, second: engine %.0f rev/min, the wheels' speed through second %.0f\n",
           r.ch[PDK_CH_ENGINE_RPM], want);
    ck_assert_double_eq_tol(r.ch[PDK_CH_ENGINE_RPM], want, 0.02 * want);

    /* Spawned moving with no gear named yet, the box keeps the gear its
     * moving start chose rather than dropping to first at 90 km/h. */
    fw_run moving;
    car_init(&moving, &d, 25.0, PDK_GEAR_DRIVE);
    run_for(&moving, 1.0);
    ck_assert_double_ge(moving.ch[PDK_CH_GEAR_NUMBER], 3.0);
    ck_assert_double_lt(moving.ch[PDK_CH_ENGINE_RPM], d.powertrain.engine.max_rpm);

    /* Through a world: refused where it does not apply or is out of range. */
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    pdk_vehicle_def autobox = geared_car();
    pdk_pose pose = {0.0, 0.0, 0.0}, pose2 = {0.0, 10.0, 0.0};
    pdk_vehicle_id manual_id, auto_id;
    ck_assert_int_eq(pdk_world_spawn(w, &d, &pose, 0.0, PDK_GEAR_DRIVE, &manual_id), PDK_OK);
    ck_assert_int_eq(pdk_world_spawn(w, &autobox, &pose2, 0.0, PDK_GEAR_DRIVE, &auto_id), PDK_OK);
    pdk_world_step(w);
    const uint64_t before = pdk_world_hash(w);
    pdk_dbw_cmd c = {.fields = PDK_DBW_GEAR_NUMBER, .gear_number = 3};
    ck_assert_int_eq(pdk_world_command(w, auto_id, &c), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(pdk_world_command_problem(w, auto_id, &c), "manual gearbox"));
    c.gear_number = 7;
    ck_assert_int_eq(pdk_world_command(w, manual_id, &c), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(pdk_world_command_problem(w, manual_id, &c), "gear_number"));
    ck_assert_uint_eq(pdk_world_hash(w), before);
    c.gear_number = 3;
    ck_assert_int_eq(pdk_world_command(w, manual_id, &c), PDK_OK);
    ck_assert_uint_ne(pdk_world_hash(w), before); /* the held gear is state */
    free(mem);
}
END_TEST

/* A torque converter (clutch.converterStallRatio 2, coupling 0.85).
 * Stalled (the brakes hold the car, full throttle in D) the engine settles
 * where the pump absorbs its torque, and the turbine gives twice that
 * through first and the final drive: the driven wheels' shaft torques sum
 * to 2 C R eta. Launching at 35 % pedal the car gains speed faster than
 * with a plain clutch of the same capacity law, which gives only C. */
START_TEST(test_torque_converter)
{
    pdk_vehicle_def d = geared_car();
    d.powertrain.geared.converter_stall_ratio = 2.0;
    d.powertrain.geared.converter_coupling = 0.85;
    ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
    const pdk_gearbox_def *g = &d.powertrain.geared;
    fw_run r;
    car_init(&r, &d, 0.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 150.0, 0.0);
    run_for(&r, 3.0);
    const double clutch = r.ch[PDK_CH_CLUTCH_TORQUE];
    const double shafts = r.ch[PDK_CH_WHEEL_TORQUE_FL] + r.ch[PDK_CH_WHEEL_TORQUE_FR];
    const double want = 2.0 * clutch * g->ratio[0] * g->final_drive * g->efficiency;
    printf("converter stalled: engine %.0f rev/min, pump %.1f N m (engine %.1f), wheels %.0f N m "
           "(2 C R eta %.0f)\n",
           r.ch[PDK_CH_ENGINE_RPM], clutch, r.ch[PDK_CH_ENGINE_TORQUE], shafts, want);
    ck_assert_double_lt(r.ch[PDK_CH_SPEED], 1e-3);
    ck_assert_double_eq_tol(clutch, r.ch[PDK_CH_ENGINE_TORQUE], 0.01 * clutch);
    /* Within 1 %: inside the driveline the brakes' Coulomb torque is smoothed
     * over 0.1 rad/s (the Polaris model), so the held wheels' carrier turns a
     * hair there and the speed ratio is not quite 0. */
    ck_assert_double_eq_tol(shafts, want, 0.01 * want);
    ck_assert_double_le(shafts, want);
    double v[2];
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def e = geared_car();
        e.powertrain.geared.converter_stall_ratio = k ? 2.0 : 0.0;
        e.powertrain.geared.converter_coupling = 0.85;
        car_init(&r, &e, 0.0, PDK_GEAR_DRIVE);
        run_command(&r, 35.0, 0.0, 0.0);
        run_for(&r, 3.0);
        v[k] = r.ch[PDK_CH_SPEED];
        /* The ledger counts the converter's slip as the clutch's. */
        ck_assert_double_lt(fabs(r.ch[PDK_CH_ENERGY_RESIDUAL]), 1e-3 * r.ch[PDK_CH_ENERGY_FUEL]);
    }
    printf("35 %% pedal for 3 s: %.2f m/s with a plain clutch, %.2f with the converter\n", v[0],
           v[1]);
    ck_assert_double_gt(v[1], 1.3 * v[0]);
}
END_TEST

/* A full-time AWD (driveline.coupling centre) with an open centre
 * differential: at full throttle both axles are driven, each with half the
 * torque (their shaft torques' sums alike to rounding); with the centre
 * locked the split follows the axles' grip and loads instead. */
START_TEST(test_full_time_awd)
{
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def d = geared_car();
        d.powertrain.layout.coupling = PDK_COUPLING_CENTRE;
        d.powertrain.layout.secondary_diff = (pdk_dl_diff){PDK_DIFF_OPEN, 1.0, 0.0};
        d.powertrain.layout.secondary_ratio = 1.0;
        d.powertrain.layout.centre_diff =
            (pdk_dl_diff){k ? PDK_DIFF_LOCKED : PDK_DIFF_OPEN, 1.0, 0.0};
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
        fw_run r;
        car_init(&r, &d, 0.0, PDK_GEAR_DRIVE);
        run_command(&r, 100.0, 0.0, 0.0);
        run_for(&r, 3.0);
        const double front = r.ch[PDK_CH_WHEEL_TORQUE_FL] + r.ch[PDK_CH_WHEEL_TORQUE_FR];
        const double rear = r.ch[PDK_CH_WHEEL_TORQUE_RL] + r.ch[PDK_CH_WHEEL_TORQUE_RR];
        printf("full-time AWD, %s centre, 3 s of full throttle: %.1f m/s, front %.0f N m, rear "
               "%.0f N m\n",
               k ? "locked" : "open", r.ch[PDK_CH_SPEED], front, rear);
        ck_assert_double_gt(front, 50.0);
        ck_assert_double_gt(rear, 50.0);
        if (k == 0) {
            /* The secondary's inertia share aside, the carrier splits equally. */
            ck_assert_double_eq_tol(front, rear, 0.01 * (front + rear));
        }
    }
}
END_TEST

/* A world of wd laid out in memory of its own (free it). */
static pdk_world *world_of(const pdk_world_def *wd)
{
    size_t bytes = pdk_world_mem_size(wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, wd, &w), PDK_OK);
    return w;
}

/* A fleet of one geared definition spawned one after another takes each
 * car's full-load upshift speeds from the car before
 * (pdk_fw_params_init_like) rather than scanning the engine's curve again:
 * at full pedal, where the box shifts at those speeds, every car of the
 * fleet runs bit for bit as the same car alone, and shifts up (at full pedal
 * the first upshift comes at about 6,000 rev/min, 6 s from rest). */
START_TEST(test_fleet_shifts_as_alone)
{
    const pdk_vehicle_def d = geared_car();
    enum { FLEET = 3 };
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = FLEET;
    pdk_world *w = world_of(&wd);
    wd.max_vehicles = 1;
    pdk_world *alone[FLEET];
    pdk_vehicle_id ids[FLEET], solo[FLEET];
    for (int i = 0; i < FLEET; i++) {
        pdk_pose pose = {.x_m = 60.0 * i, .y_m = 10.0 * i, .yaw_rad = 0.3 * i};
        ck_assert_int_eq(pdk_world_spawn(w, &d, &pose, 0.0, PDK_GEAR_DRIVE, &ids[i]), PDK_OK);
        alone[i] = world_of(&wd);
        ck_assert_int_eq(pdk_world_spawn(alone[i], &d, &pose, 0.0, PDK_GEAR_DRIVE, &solo[i]),
                         PDK_OK);
    }
    for (int t = 0; t < 8 * 120; t++) {
        for (int i = 0; i < FLEET; i++) {
            pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                             .throttle_pct = 100.0,
                             .steer_wheel_deg = 5.0 * i};
            ck_assert_int_eq(pdk_world_command(w, ids[i], &c), PDK_OK);
            ck_assert_int_eq(pdk_world_command(alone[i], solo[i], &c), PDK_OK);
        }
        pdk_world_step(w);
        for (int i = 0; i < FLEET; i++)
            pdk_world_step(alone[i]);
    }
    for (int i = 0; i < FLEET; i++) {
        const double *ch = pdk_world_channels(w, ids[i]);
        ck_assert_double_ge(ch[PDK_CH_GEAR_NUMBER], 2.0);
        ck_assert_msg(
            memcmp(ch, pdk_world_channels(alone[i], solo[i]), sizeof(double) * PDK_CH_COUNT) == 0,
            "car %d of the fleet differs from its twin alone", i);
        free(alone[i]);
    }
    free(w);
}
END_TEST

/* The shift program (four_wheel_powertrain.c): cruising at 80 km/h at 25 %
 * pedal, the box holds a high gear; pushing the pedal to full kicks it down
 * (the kickdown, armed by the pedal's rise), the engine staying under its
 * limiter; lifting off the moment the lower gear is in, the box would go
 * up at once, but a shift that reverses the last waits its minimum time in
 * gear (1 s after the take-up, which is at most the 0.25 s shift time). */
START_TEST(test_kickdown_and_time_in_gear)
{
    pdk_vehicle_def d = geared_car();
    fw_run r;
    car_init(&r, &d, 80.0 / 3.6, PDK_GEAR_DRIVE);
    run_command(&r, 25.0, 0.0, 0.0);
    run_for(&r, 5.0);
    const int cruise = (int)r.ch[PDK_CH_GEAR_NUMBER];
    run_command(&r, 100.0, 0.0, 0.0);
    int kicked = 0, t = 0;
    double max_rpm = 0.0;
    for (; t < 3 * TICKS_PER_S && kicked == 0; t++) {
        run_tick(&r);
        const int gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
        max_rpm = fmax(max_rpm, r.ch[PDK_CH_ENGINE_RPM]);
        kicked = gear != 0 && gear < cruise ? gear : 0;
    }
    printf("cruising in gear %d at %.1f km/h; full pedal: down to %d after %.2f s, the engine at "
           "most %.0f rev/min\n",
           cruise, r.ch[PDK_CH_SPEED] * 3.6, kicked, t * DT, max_rpm);
    ck_assert_int_ge(cruise, 4);
    ck_assert_int_gt(kicked, 0);
    ck_assert_double_lt(max_rpm, d.powertrain.engine.max_rpm);
    run_command(&r, 0.0, 0.0, 0.0);
    int up_at = -1;
    for (int k = 1; k <= 3 * TICKS_PER_S && up_at < 0; k++) {
        run_tick(&r);
        const int gear = (int)r.ch[PDK_CH_GEAR_NUMBER];
        if (gear != kicked) {
            up_at = k;
        }
    }
    printf("lifted off: the next shift after %.2f s\n", up_at * DT);
    ck_assert_int_ge(up_at, TICKS_PER_S);
    ck_assert_int_le(up_at, (int)(1.25 * TICKS_PER_S) + 2);
}
END_TEST

static Suite *geared_suite(void)
{
    Suite *s = suite_create("geared");
    /* Each case's timeout is CK_DEFAULT_TIMEOUT, which tests/unit's CMake
     * scales for the sanitizer build (the ABS stops on every surface take
     * over a minute there). */
    TCase *tc = tcase_create("geared");
    tcase_add_test(tc, test_definition_checks);
    tcase_add_test(tc, test_launch_and_upshifts);
    tcase_add_test(tc, test_top_speed_power_limited);
    tcase_add_test(tc, test_downshifts_reverse_and_park);
    tcase_add_test(tc, test_kickdown_and_time_in_gear);
    tcase_add_test(tc, test_fleet_shifts_as_alone);
    tcase_add_test(tc, test_abs_keeps_the_wheels_turning);
    tcase_add_test(tc, test_abs_stops_near_the_peak_grip_bound);
    tcase_add_test(tc, test_abs_converges_with_the_substep);
    tcase_add_test(tc, test_locked_wheels_stop_at_the_sliding_friction);
    tcase_add_test(tc, test_park_on_a_slope);
    tcase_add_test(tc, test_manual_gearbox);
    tcase_add_test(tc, test_torque_converter);
    tcase_add_test(tc, test_full_time_awd);
    tcase_add_test(tc, test_lsd_friction_is_booked);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(geared_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
