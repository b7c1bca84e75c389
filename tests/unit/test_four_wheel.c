/* Unit tests of the four-wheel model's step (four_wheel.c), calling pdk_fw_*
 * directly: a parked car stands exactly still on its springs at its CG
 * height, whatever the spring rate, with the static loads of moment balance,
 * and a car in neutral at rest does not creep; the energy of a coasting car
 * never rises, and a stiff strut crossing its bump stop or touching down
 * never adds any; the same inputs give the same bytes, and so do the
 * baseline build and a batch stepping vehicles side by side; a broken state
 * faults as the single-track model's does; a drive with steering, braking
 * and bumps keeps every channel finite; the command's cached part (steering
 * lock and centre, hold split), the Euler angles (and the channels' bits of
 * them), a free fall and a car on its roof. The physics validation (ride
 * frequency, load transfer, anti-dive, the single-track cross-check,
 * kinematic curves, convergence) lives in test_fw_validation.c. Every
 * tolerance is argued beside its assertion. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "vehicle/four_wheel.h"
#include "ground/surface.h"
#include "ground/terrain.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"

#define G 9.81
#define RHO 1.225
#define PI 3.14159265358979323846
#define DT (1.0 / 120.0)
#define TICKS_PER_S 120

/* ---- a vehicle on its own ------------------------------------------------ */

typedef struct run {
    pdk_vehicle_def def;
    pdk_terrain_def terrain;
    pdk_fw_params params;
    pdk_fw_state state;
    pdk_fw_cmd cmd;
    pdk_gear gear;
    int substeps;
    double ch[PDK_CH_COUNT];
} run;

static void run_init_at(run *r, const pdk_vehicle_def *def, const pdk_terrain_def *terrain,
                        int substeps, double x_m, double y_m, double yaw_rad, double speed_mps,
                        pdk_gear gear)
{
    memset(r, 0, sizeof *r); /* padding too: states compare with memcmp */
    r->def = *def;
    if (terrain != NULL) {
        r->terrain = *terrain;
    }
    r->substeps = substeps;
    r->gear = gear;
    pdk_fw_params_init(&r->params, &r->def, DT / substeps, G, RHO, 1.0);
    pdk_pose pose = {x_m, y_m, yaw_rad};
    pdk_fw_state_init(&r->state, &r->params, &r->terrain, &pose, speed_mps);
    pdk_fw_cmd_set(&r->cmd, &r->def, 0.0, 0.0, 0.0, gear);
}

static void run_init(run *r, const pdk_vehicle_def *def, double speed_mps, pdk_gear gear)
{
    run_init_at(r, def, NULL, 2, 0.0, 0.0, 0.0, speed_mps, gear);
}

static void run_command(run *r, double throttle_pct, double brake_bar, double steer_deg)
{
    pdk_fw_cmd_set(&r->cmd, &r->def, throttle_pct, brake_bar, steer_deg, r->gear);
}

static void run_tick(run *r)
{
    pdk_fw_step(&r->state, &r->cmd, &r->params, &r->terrain, r->substeps, r->ch);
}

static void assert_channels_finite(const run *r)
{
    for (int c = 0; c < PDK_CH_COUNT; c++) {
        ck_assert_msg(isfinite(r->ch[c]), "channel %s is %g", pdk_channel_get((size_t)c)->name,
                      r->ch[c]);
    }
}

/* A definition with no resistances (drag, rolling) and no camber thrust: the
 * tyres' slip dampers and the struts' dampers are the only forces that take
 * energy out. */
static pdk_vehicle_def frictionless_def(void)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    d.resist.rolling_coeff = 0.0;
    d.resist.drag_area_m2 = 0.0;
    d.tyre_front.law.rolling_coeff = 0.0;
    d.tyre_rear.law.rolling_coeff = 0.0;
    d.tyre_front.camber_stiffness_n_per_rad = 0.0;
    d.tyre_rear.camber_stiffness_n_per_rad = 0.0;
    return d;
}

/* Body-to-world rotation's third row (the world z of body x, y, z). */
static void third_row(const double q[4], double row[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    row[0] = 2.0 * (x * z - w * y);
    row[1] = 2.0 * (y * z + w * x);
    row[2] = 1.0 - 2.0 * (x * x + y * y);
}

/* Each wheel's travel on flat ground from the state alone: the strut's ray
 * runs down body z from above the static contact point c, which sits at
 * world height c_z; the ray meets z = 0 at -c_z / (z_b)_z below it, so the
 * travel (positive in bump) is -c_z / (z_b)_z. */
static void flat_travel(const run *r, double travel[PDK_WHEELS])
{
    double row[3];
    third_row(r->state.quat, row);
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &r->params.axle[i >> 1];
        double y = (i & 1) ? -0.5 * ax->track_m : 0.5 * ax->track_m;
        double cz =
            r->state.pos_m[2] + row[0] * ax->x_m + row[1] * y - row[2] * r->params.c.cg_height_m;
        travel[i] = -cz / row[2];
    }
}

/* The wheels' spin energy, I Omega^2 / 2 each. */
static double spin_energy_j(const run *r)
{
    double e = 0.0;
    for (int i = 0; i < PDK_WHEELS; i++) {
        double w = r->state.spin_radps[i];
        e += 0.5 * r->params.c.spin_inertia_kgm2[i] * w * w;
    }
    return e;
}

/* Total mechanical energy on flat ground: translation, rotation, the
 * wheels' spin, gravity, and what the springs, bars and bump stops hold
 * (each strut's spring from its free length: k (s0 + x)^2 / 2). */
static double energy_j(const run *r)
{
    const pdk_fw_params *p = &r->params;
    const pdk_fw_state *s = &r->state;
    double e = spin_energy_j(r);
    for (int j = 0; j < 3; j++) {
        e += 0.5 * p->c.mass_kg * s->vel_mps[j] * s->vel_mps[j];
        e += 0.5 * p->c.inertia_kgm2[j] * s->omega_radps[j] * s->omega_radps[j];
    }
    e += p->c.mass_kg * p->c.gravity_mps2 * s->pos_m[2];
    double x[PDK_WHEELS];
    flat_travel(r, x);
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        double stretch = ax->static_compression_m + x[i];
        ck_assert_double_gt(stretch, 0.0); /* every strut stays loaded */
        e += 0.5 * ax->spring_npm * stretch * stretch;
        double beyond = x[i] - ax->travel_bump_m;
        if (beyond > 0.0) {
            e += 0.5 * ax->bump_stop_npm * beyond * beyond;
        }
    }
    for (int k = 0; k < 2; k++) {
        double diff = x[2 * k] - x[2 * k + 1];
        e += 0.5 * p->axle[k].arb_npm * diff * diff;
    }
    return e;
}

/* ---- standstill ---------------------------------------------------------- */

/* Parked on flat ground the car starts exactly at its CG height with every
 * travel exactly 0 (four_wheel.c places the rays so that this is exact),
 * and stays: over 10 s it moves less than 1e-9 m (the struts' static loads
 * sum to m g only to rounding, 1e-12 N, which moves the CG by far less),
 * never turns, and reports the static loads of moment balance, m g b / L
 * and m g a / L per axle (Gillespie, Fundamentals of Vehicle Dynamics,
 * ch. 2), to 1e-9. */
START_TEST(test_parked_car_stands_exactly_still)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init_at(&r, &d, NULL, 2, 3.0, -2.0, 0.7, 0.0, PDK_GEAR_PARK);
    const double x0 = r.state.pos_m[0], y0 = r.state.pos_m[1], z0 = r.state.pos_m[2];
    ck_assert(z0 == d.chassis.cg_height_m);
    double m = d.chassis.mass_kg;
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    for (int t = 0; t < 10 * TICKS_PER_S; t++) {
        run_tick(&r);
        for (int i = 0; i < PDK_WHEELS; i++) {
            double travel = r.ch[PDK_CH_SUSP_TRAVEL_FL + i];
            if (t == 0) {
                ck_assert(travel == 0.0);
            }
            ck_assert_double_le(fabs(travel), 1e-12);
        }
        ck_assert_double_le(fabs(r.state.pos_m[0] - x0), 1e-9);
        ck_assert_double_le(fabs(r.state.pos_m[1] - y0), 1e-9);
        ck_assert_double_le(fabs(r.state.pos_m[2] - z0), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_YAW] - 0.7), 1e-12);
        ck_assert(r.state.vel_mps[0] == 0.0 && r.state.vel_mps[1] == 0.0);
        ck_assert(r.state.omega_radps[2] == 0.0);
    }
    double f = r.ch[PDK_CH_TYRE_LOAD_F];
    double rr = r.ch[PDK_CH_TYRE_LOAD_R];
    ck_assert_double_le(fabs(f + rr - m * G) / (m * G), 1e-9);
    ck_assert_double_le(fabs(f - m * G * (len - a) / len) / f, 1e-9);
    ck_assert_double_le(fabs(rr - m * G * a / len) / rr, 1e-9);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TYRE_LOAD_FL] - r.ch[PDK_CH_TYRE_LOAD_FR]), 1e-9 * f);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TYRE_LOAD_RL] - r.ch[PDK_CH_TYRE_LOAD_RR]), 1e-9 * rr);
    ck_assert_double_le(r.ch[PDK_CH_SPEED], 1e-12);
    ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
}
END_TEST

/* The car sits at chassis.cg_height_m whatever its springs (the four-wheel
 * model: the static compression is the static load over the rate). Started 2
 * cm high and released in neutral with no brakes, it settles back to the CG
 * height within 1e-9 m, level within 1e-9 rad, its travels back to 0, for
 * spring rates of 15, 30 and 120 kN/m (softest: 0.73 Hz front, settled after
 * 20 s at the default damping). */
START_TEST(test_sits_at_cg_height_for_any_spring_rate)
{
    const double rates[] = {15000.0, 30000.0, 120000.0};
    for (int k = 0; k < 3; k++) {
        pdk_vehicle_def d = pdk_vehicle_def_default();
        d.susp_front.spring_rate_npm = rates[k];
        d.susp_rear.spring_rate_npm = rates[k];
        run r;
        run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
        r.state.pos_m[2] += 0.02;
        for (int t = 0; t < 20 * TICKS_PER_S; t++) {
            run_tick(&r);
        }
        ck_assert_double_le(fabs(r.ch[PDK_CH_POS_Z] - d.chassis.cg_height_m), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_PITCH]), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_ROLL]), 1e-9);
        for (int i = 0; i < PDK_WHEELS; i++) {
            ck_assert_double_le(fabs(r.ch[PDK_CH_SUSP_TRAVEL_FL + i]), 1e-9);
        }
    }
}
END_TEST

/* A braked car rolling at walking pace stops and then stands still: the
 * rest rule zeroes its horizontal velocity and yaw rate exactly at every
 * tick's end (no subnormal creep). Its body still settles in pitch on the
 * held wheels, which moves the CG along x by h_cg times the pitch change
 * (millimetres just after the stop, decaying): 5 s after the brakes came
 * on the CG moves less than 1e-5 m in the next 2 s. */
START_TEST(test_braked_car_stops_exactly)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init(&r, &d, 1.0, PDK_GEAR_DRIVE);
    run_command(&r, 0.0, 20.0, 0.0);
    for (int t = 0; t < 5 * TICKS_PER_S; t++) {
        run_tick(&r);
    }
    double x = r.state.pos_m[0];
    ck_assert_double_gt(x, 0.1); /* it did roll: 1 m/s at 2 m/s^2, 0.25 m */
    ck_assert_double_lt(x, 0.5);
    for (int t = 0; t < 2 * TICKS_PER_S; t++) {
        run_tick(&r);
        ck_assert(r.state.vel_mps[0] == 0.0 && r.state.vel_mps[1] == 0.0);
        ck_assert(r.state.omega_radps[2] == 0.0);
        ck_assert_double_le(fabs(r.state.pos_m[0] - x), 1e-5);
        ck_assert(r.state.pos_m[1] == 0.0);
    }
}
END_TEST

/* ---- energy -------------------------------------------------------------- */

/* Coasting in neutral with no brakes, drive, drag, rolling resistance or
 * camber thrust, released 3 cm high with a roll and a pitch rate at 10 m/s,
 * with the default dampers: the total energy (energy_j) never rises from
 * one tick to the next by more than 1e-13 of itself (84 kJ; 8e-9 J is some
 * 600 ulps of its largest term, the 75 kJ of motion, and the rises seen are
 * 10 to 20 ulps: rounding), at 1, 2 and 4 substeps, and it falls by more
 * than 10 J in 10 s. The dampers take out h c xdot_avg^2 per substep, the
 * tyres' slip dampers h/2 c u1 (u0 + u1); what could add energy (the slip
 * dampers where a slip velocity reverses within a substep, and the contact
 * geometry frozen over a substep, four_wheel.c) is orders of magnitude
 * below that. */
START_TEST(test_energy_never_rises_coasting)
{
    for (int substeps = 1; substeps <= 4; substeps *= 2) {
        pdk_vehicle_def d = frictionless_def();
        run r;
        run_init_at(&r, &d, NULL, substeps, 0.0, 0.0, 0.4, 10.0, PDK_GEAR_NEUTRAL);
        r.state.pos_m[2] += 0.03;
        r.state.omega_radps[0] = 0.2;
        r.state.omega_radps[1] = -0.1;
        double e0 = energy_j(&r);
        double prev = e0;
        for (int t = 0; t < 10 * TICKS_PER_S; t++) {
            run_tick(&r);
            double e = energy_j(&r);
            ck_assert_msg(e <= prev + 1e-13 * e0, "energy rose by %g J at tick %d (%d substeps)",
                          e - prev, t, substeps);
            prev = e;
        }
        ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
        ck_assert_double_lt(prev, e0 - 10.0);
        /* Coasting straight it keeps its speed: no hidden drag (the slip
         * dampers only act on what the ride motion disturbs). */
        ck_assert_double_le(fabs(r.ch[PDK_CH_SPEED] - 10.0), 1e-3);
    }
}
END_TEST

/* The default car with its corner rates and dampers in proportion to its
 * corner masses (front rates scaled to b / a of the rear's), so that heave
 * does not pitch: then every strut's travel is linear in the motion and the
 * trapezoidal rule's energy balance is exact (four_wheel.c). */
static pdk_vehicle_def heave_def(double damping_nspm)
{
    pdk_vehicle_def d = frictionless_def();
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    double k_r = d.susp_rear.spring_rate_npm;
    d.susp_front.spring_rate_npm = k_r * (len - a) / a;
    d.susp_rear.bump_damping_nspm = d.susp_rear.rebound_damping_nspm = damping_nspm;
    d.susp_front.bump_damping_nspm = d.susp_front.rebound_damping_nspm =
        damping_nspm * (len - a) / a;
    return d;
}

/* No numerical damping: dropped 3 cm in pure heave with no dampers, the car
 * keeps its total energy to 1e-12 of it (rounding) for 10 s, 15 cycles
 * of its 1.5 Hz heave, at 1, 2 and 4 substeps (the backward-Euler springs
 * this scheme replaced lost some 97 % of the 60 J ride energy in that time
 * at 2 substeps). With dampers, at 1 substep (a tick is then a
 * substep), each tick removes exactly what the dampers dissipate at the
 * mean rate, h sum_i c_i xdot_i^2 with xdot_i = -(v_z0 + v_z1) / 2, again
 * to 1e-12 of the total. */
START_TEST(test_energy_exact_in_heave)
{
    for (int substeps = 1; substeps <= 4; substeps *= 2) {
        pdk_vehicle_def d = heave_def(0.0);
        run r;
        run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
        r.substeps = substeps;
        pdk_fw_params_init(&r.params, &r.def, DT / substeps, G, RHO, 1.0);
        r.state.pos_m[2] += 0.03;
        double e0 = energy_j(&r);
        double swing = 0.0;
        for (int t = 0; t < 10 * TICKS_PER_S; t++) {
            run_tick(&r);
            double e = energy_j(&r);
            ck_assert_msg(fabs(e - e0) <= 1e-12 * e0,
                          "energy changed by %g J at tick %d (%d "
                          "substeps)",
                          e - e0, t, substeps);
            swing = fmax(swing, fabs(r.state.pos_m[2] - d.chassis.cg_height_m));
        }
        ck_assert_double_gt(swing, 0.029); /* it still bounces fully */
    }

    pdk_vehicle_def d = heave_def(2000.0);
    run r;
    run_init_at(&r, &d, NULL, 1, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_NEUTRAL);
    r.state.pos_m[2] += 0.03;
    double e0 = energy_j(&r);
    double prev = e0;
    double lost = 0.0;
    for (int t = 0; t < 3 * TICKS_PER_S; t++) {
        double vz0 = r.state.vel_mps[2];
        run_tick(&r);
        double rate = -0.5 * (vz0 + r.state.vel_mps[2]);
        double c_sum = 2.0 * (d.susp_front.bump_damping_nspm + d.susp_rear.bump_damping_nspm);
        double dissipated = DT * c_sum * rate * rate;
        double e = energy_j(&r);
        ck_assert_msg(fabs((prev - e) - dissipated) <= 1e-12 * e0,
                      "tick %d: energy fell by %g J, the dampers took %g J", t, prev - e,
                      dissipated);
        lost += dissipated;
        prev = e;
    }
    /* The drop's 60 J (1/2 sum k dz^2), all but 1e-7 of it gone in 3 s at
     * zeta 0.32. */
    ck_assert_double_gt(lost, 59.0);
}
END_TEST

/* A kart-sized car (165 kg, corners of 35 and 48 kg) with no dampers,
 * resistances or camber thrust, whose struts are stiff for the substep. */
static pdk_vehicle_def stiff_kart_def(double spring_npm, double bump_stop_npm)
{
    pdk_vehicle_def d = frictionless_def();
    d.chassis.mass_kg = 165.0;
    d.chassis.yaw_inertia_kgm2 = 40.0;
    d.chassis.roll_inertia_kgm2 = 15.0;
    d.chassis.pitch_inertia_kgm2 = 32.0;
    d.chassis.wheelbase_m = 1.04;
    d.chassis.cg_to_front_axle_m = 0.6;
    d.chassis.cg_height_m = 0.26;
    d.chassis.track_width_m = 1.05;
    pdk_suspension_def *axles[2] = {&d.susp_front, &d.susp_rear};
    for (int k = 0; k < 2; k++) {
        pdk_suspension_def *s = axles[k];
        s->spring_rate_npm = spring_npm;
        s->bump_stop_npm = bump_stop_npm;
        s->bump_damping_nspm = 0.0;
        s->rebound_damping_nspm = 0.0;
        s->anti_roll_npm = 0.0;
        s->travel_bump_m = 0.02;
        s->travel_droop_m = 0.04;
        s->roll_center_height_m = 0.0;
        s->static_camber_rad = 0.0;
    }
    return d;
}

/* energy_j for a car that may leave the ground (flat ground, no bars): a
 * wheel below full droop hangs there, its spring holding what it holds at
 * full droop, and a spring in tension carries nothing (the ground does not
 * pull). */
static double energy_airborne_j(const run *r)
{
    const pdk_fw_params *p = &r->params;
    const pdk_fw_state *s = &r->state;
    double e = spin_energy_j(r);
    for (int j = 0; j < 3; j++) {
        e += 0.5 * p->c.mass_kg * s->vel_mps[j] * s->vel_mps[j];
        e += 0.5 * p->c.inertia_kgm2[j] * s->omega_radps[j] * s->omega_radps[j];
    }
    e += p->c.mass_kg * p->c.gravity_mps2 * s->pos_m[2];
    double x[PDK_WHEELS];
    flat_travel(r, x);
    for (int i = 0; i < PDK_WHEELS; i++) {
        const pdk_fw_axle *ax = &p->axle[i >> 1];
        double travel = fmax(x[i], -ax->travel_droop_m);
        double stretch = fmax(ax->static_compression_m + travel, 0.0);
        double beyond = fmax(travel - ax->travel_bump_m, 0.0);
        e += 0.5 * ax->spring_npm * stretch * stretch + 0.5 * ax->bump_stop_npm * beyond * beyond;
    }
    return e;
}

/* A strut's force has kinks: the bump stop, and zero (the ground does not
 * pull). Crossing one within a substep must not add energy (four_wheel.c,
 * "Kinks"); without that rule a stop entered by delta in a substep gained
 * k_bs delta^2 / 2, more than the motion had wherever omega h exceeds one,
 * and a stiff kart dropped on its wheels rang up without bound (to 1e19 J).
 * The undamped stiff kart dropped 0.3 m in neutral, for 5 s: with a 1e7 and
 * a 1e8 N/m bump stop (omega h 2.2 and 7 at the default 240 Hz), and with
 * 1e7 N/m springs at 60 Hz in one substep (omega h 9): its total energy
 * never exceeds what it was dropped with (906 J; 1e-9 of it for rounding),
 * and every crossing takes some away (more than 100 J in 5 s). The car
 * pitches on landing (its corner masses differ), up to 24 degrees, where
 * the struts' normal force cos S differs from the S / cos that would do
 * their energy's work (the file's energy argument): that moves energy by
 * joules per tick, but never above the start. */
START_TEST(test_kinks_never_add_energy)
{
    const struct {
        double spring_npm, bump_stop_npm, tick_s;
        int substeps;
    } cases[] = {
        {64500.0, 1.0e7, DT, 2},
        {64500.0, 1.0e8, DT, 2},
        {1.0e7, 1.0e7, 1.0 / 60.0, 1},
        {64500.0, 2.0e5, DT, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pdk_vehicle_def d = stiff_kart_def(cases[c].spring_npm, cases[c].bump_stop_npm);
        run r;
        run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
        r.substeps = cases[c].substeps;
        pdk_fw_params_init(&r.params, &r.def, cases[c].tick_s / cases[c].substeps, G, RHO, 1.0);
        r.state.pos_m[2] += 0.3;
        double e0 = energy_airborne_j(&r);
        double e = e0;
        int ticks = (int)lround(5.0 / cases[c].tick_s);
        for (int t = 0; t < ticks; t++) {
            run_tick(&r);
            assert_channels_finite(&r);
            e = energy_airborne_j(&r);
            ck_assert_msg(e <= e0 * (1.0 + 1e-9),
                          "case %zu: energy %g J above the drop's %g J at tick %d", c, e - e0, e0,
                          t);
        }
        ck_assert_double_lt(e, e0 - 100.0);
    }
}
END_TEST

/* A car at rest in neutral on flat ground, with static camber and toe and
 * the wheel at full lock, stands still: camber thrust comes from rolling
 * (four_wheel.c's tyre_forces), so a tyre at rest pushes nowhere. Before,
 * each tyre's camber thrust pushed against the standstill slip damper and
 * the default car crept backwards at 2 um/s, turning 1e-3 rad a minute. */
START_TEST(test_neutral_car_at_rest_does_not_creep)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    d.susp_front.static_toe_rad = 0.2 * PI / 180.0;
    d.susp_rear.static_toe_rad = 0.1 * PI / 180.0;
    run r;
    run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
    run_command(&r, 0.0, 0.0, d.steering.lock_deg);
    for (int t = 0; t < 60 * TICKS_PER_S; t++) {
        run_tick(&r);
    }
    ck_assert_double_le(fabs(r.state.pos_m[0]), 1e-12);
    ck_assert_double_le(fabs(r.state.pos_m[1]), 1e-12);
    ck_assert_double_le(fabs(r.ch[PDK_CH_YAW]), 1e-12);
    ck_assert_double_le(fabs(r.state.pos_m[2] - d.chassis.cg_height_m), 1e-12);
}
END_TEST

/* ---- wheels and tyres (ADR 0008) ----------------------------------------- */

/* A straight ramp rising at grade along +x from x = -50 m, 100 m long and
 * wide, rounded over 2 m at its foot. */
static pdk_terrain_def slope(double grade)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    t.n_ramps = 1;
    t.ramps[0] = (pdk_ramp){.x_m = -50.0,
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

/* Braking hard from 20 m/s (180 bar locks every wheel of the default car,
 * whose grip law slides at 0.75 of its peak) to a stop, then driving off.
 * One step of brake torque never reverses a wheel: no wheel's spin ever
 * changes sign from one tick to the next, nor goes backward (the car rolls
 * forward throughout). A locked wheel's spin is exactly 0, and while the
 * car is faster than 4 m/s (above the slips' rest bounds,
 * PDK_FW_KAPPA_MAX) its slip ratio is below -0.95 once its deflection has
 * relaxed for 0.1 s (kappa' -> -1: the contact slides at the car's speed,
 * sigma_kappa / |V_x| = 8 ms at 20 m/s); the car decelerates at the
 * sliding friction, 0.75 g within 5 %. Stopped, the wheels stay locked at
 * exactly 0 and the car stands still. Released with throttle, the driven
 * front wheels are freed and spin forward and the car moves off forward. */
START_TEST(test_brakes_lock_and_never_reverse_a_wheel)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init(&r, &d, 20.0, PDK_GEAR_DRIVE);
    run_command(&r, 0.0, 180.0, 0.0);
    double prev[PDK_WHEELS];
    memcpy(prev, r.state.spin_radps, sizeof prev);
    int locked_ticks = 0, checked = 0;
    double decel_sum = 0.0;
    int decel_n = 0;
    for (int t = 0; t < 6 * TICKS_PER_S; t++) {
        double v0 = r.state.vel_mps[0];
        run_tick(&r);
        assert_channels_finite(&r);
        int all_locked = 1;
        for (int i = 0; i < PDK_WHEELS; i++) {
            double w = r.state.spin_radps[i];
            ck_assert_msg(w >= 0.0 && w * prev[i] >= 0.0, "wheel %d reversed at tick %d: %g -> %g",
                          i, t, prev[i], w);
            prev[i] = w;
            all_locked &= w == 0.0;
        }
        locked_ticks = all_locked ? locked_ticks + 1 : 0;
        if (locked_ticks > TICKS_PER_S / 10 && r.ch[PDK_CH_SPEED] > 4.0) {
            for (int i = 0; i < PDK_WHEELS; i++) {
                ck_assert_double_lt(r.ch[PDK_CH_SLIP_RATIO_FL + i], -0.95);
                /* The deflection's slip is the end slip velocity over the
                 * start's speed: a tenth of a percent beyond -1 while the
                 * car slows. */
                ck_assert_double_ge(r.ch[PDK_CH_SLIP_RATIO_FL + i], -1.01);
            }
            decel_sum += (v0 - r.state.vel_mps[0]) * TICKS_PER_S;
            decel_n++;
            checked++;
        }
    }
    ck_assert_int_gt(checked, TICKS_PER_S);
    ck_assert_double_le(fabs(decel_sum / decel_n / (0.75 * G) - 1.0), 0.05);
    /* Stopped and held. */
    double x = r.state.pos_m[0];
    for (int t = 0; t < TICKS_PER_S; t++) {
        run_tick(&r);
        for (int i = 0; i < PDK_WHEELS; i++) {
            ck_assert(r.state.spin_radps[i] == 0.0);
        }
        ck_assert(r.state.vel_mps[0] == 0.0);
    }
    ck_assert_double_le(fabs(r.state.pos_m[0] - x), 1e-5);
    /* Released with throttle: the driven wheels turn forward. (An undriven
     * wheel may first turn back a little: its tyre unwinds the deflection
     * the stop left in it, the car having settled back on its tyres with
     * the front ones still deflected rearward and the rear ones forward.) */
    run_command(&r, 40.0, 0.0, 0.0);
    for (int t = 0; t < 2 * TICKS_PER_S; t++) {
        run_tick(&r);
        ck_assert_double_ge(r.state.spin_radps[PDK_FL], 0.0);
        ck_assert_double_ge(r.state.spin_radps[PDK_FR], 0.0);
    }
    ck_assert_double_gt(r.state.spin_radps[PDK_FL], 1.0);
    ck_assert_double_gt(r.state.spin_radps[PDK_RL], 1.0);
    ck_assert_double_gt(r.state.pos_m[0], x + 1.0);
}
END_TEST

/* Parked on a 20 % grade with 60 bar of brake in neutral, the car is held
 * by its tyres' deflections: no creep (over 10 s after it settled, 10 s in,
 * it moves less than 1e-9 m; its pitch settles with a time constant of
 * some 0.6 s, moving the CG by less than 1e-10 m from then on), every
 * wheel's spin exactly 0, the tyres' forces along
 * the slope carry gravity's m g sin(theta) (1 %: the wheels and struts are
 * massless), each tyre deflected forward by the slip its force needs on the
 * grip law, Fx / (18 Fz) within 5 % (tyre.h's Ck / Fz), which is inside
 * the law's linear range. Released, it rolls back down (more than 2 m in
 * 3 s). */
START_TEST(test_deflections_hold_a_parked_car)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_terrain_def t = slope(0.2);
    run r;
    run_init_at(&r, &d, &t, 2, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_NEUTRAL);
    run_command(&r, 0.0, 60.0, 0.0);
    for (int k = 0; k < 10 * TICKS_PER_S; k++) {
        run_tick(&r);
    }
    const double x0 = r.state.pos_m[0], y0 = r.state.pos_m[1], z0 = r.state.pos_m[2];
    for (int k = 0; k < 10 * TICKS_PER_S; k++) {
        run_tick(&r);
        assert_channels_finite(&r);
    }
    ck_assert_double_le(fabs(r.state.pos_m[0] - x0), 1e-9);
    ck_assert_double_le(fabs(r.state.pos_m[1] - y0), 1e-9);
    ck_assert_double_le(fabs(r.state.pos_m[2] - z0), 1e-9);
    double fx = 0.0;
    for (int i = 0; i < PDK_WHEELS; i++) {
        ck_assert(r.state.spin_radps[i] == 0.0);
        double f = r.ch[PDK_CH_FORCE_X_FL + i];
        double kappa = f / (18.0 * r.ch[PDK_CH_TYRE_LOAD_FL + i]);
        ck_assert_double_gt(r.state.defl_x_m[i], 0.0);
        ck_assert_double_le(fabs(r.ch[PDK_CH_SLIP_RATIO_FL + i] / kappa - 1.0), 0.05);
        fx += f;
    }
    double along = d.chassis.mass_kg * G * 0.2 / sqrt(1.0 + 0.2 * 0.2);
    ck_assert_double_le(fabs(fx / along - 1.0), 0.01);
    run_command(&r, 0.0, 0.0, 0.0);
    for (int k = 0; k < 3 * TICKS_PER_S; k++) {
        run_tick(&r);
    }
    ck_assert_double_lt(r.state.pos_m[0], x0 - 2.0);
}
END_TEST

/* In a steady left turn the front tyres' aligning moments turn them back
 * toward straight ahead (negative: the grip law's pneumatic trail behind
 * the contact), and SteeringTorque is their sum about the steering axes
 * over the steering ratio: negative, self-centring, some N m at the
 * steering wheel. */
START_TEST(test_steering_torque_from_aligning_moments)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init(&r, &d, 15.0, PDK_GEAR_DRIVE);
    run_command(&r, 10.0, 0.0, 60.0);
    for (int k = 0; k < 3 * TICKS_PER_S; k++) {
        run_tick(&r);
    }
    ck_assert_double_gt(r.ch[PDK_CH_YAW_RATE], 0.1);
    double mz_l = r.ch[PDK_CH_TYRE_MZ_FL], mz_r = r.ch[PDK_CH_TYRE_MZ_FR];
    ck_assert_double_lt(mz_l, 0.0);
    ck_assert_double_lt(mz_r, 0.0);
    /* On flat ground the normals are world z, whose body z component is
     * cos(pitch) cos(roll) (here at the tick's end, where the channel takes
     * it at the last substep's start: 1e-6 for the body's motion between). */
    double nz = cos(r.ch[PDK_CH_PITCH]) * cos(r.ch[PDK_CH_ROLL]);
    double want = (mz_l + mz_r) * nz / d.steering.ratio;
    ck_assert_double_le(fabs(r.ch[PDK_CH_STEERING_TORQUE] - want), 1e-6 * fabs(want));
    ck_assert_double_lt(r.ch[PDK_CH_STEERING_TORQUE], -0.5);
}
END_TEST

/* A front tyre's lateral force and aligning moment by the grip law's own
 * formula (docs/tyres.md "The grip law"), at the slip angle, slip ratio,
 * camber, load and grip scale its channels measured: in the linear range
 * (the demanded force inside the friction ellipse, asserted)
 *   Fy = -C' Fz (tan(alpha) + (C_gamma / C_alpha) gamma),
 *   Mz = -t0 (1 - s) Fy,  s = |(C_kappa' kappa / mu, C' tan(alpha') / mu)|,
 * with C' = C_alpha / (2 Fz_static) the tyre's cornering stiffness per load
 * (half the axle's at its static load), C_kappa' the law's slip stiffness
 * per load, mu the axle's friction times the tyre's grip scale and t0 the
 * law's zero-slip pneumatic trail (Pacejka, Tyre and Vehicle Dynamics,
 * ch. 3, the brush model's trail falling to 0 at full sliding). */
static double grip_law_mz(const pdk_vehicle_def *d, const double *ch, int i, double *fy)
{
    const pdk_axle_tyre_def *ty = &d->tyre_front;
    const double len = d->chassis.wheelbase_m, a = d->chassis.cg_to_front_axle_m;
    const double static_n = d->chassis.mass_kg * G * (len - a) / len / 2.0;
    const double per_load = ty->cornering_stiffness_n_per_rad / (2.0 * static_n);
    const double mu = ty->friction_coeff * ch[PDK_CH_GRIP_FL + i];
    const double fz = ch[PDK_CH_TYRE_LOAD_FL + i];
    /* The camber thrust acts toward the lean: a positive ISO camber adds
     * to the slip angle (docs/tyres.md). */
    const double t = tan(ch[PDK_CH_SLIP_ANGLE_FL + i]) +
                     ty->camber_stiffness_n_per_rad / ty->cornering_stiffness_n_per_rad *
                         ch[PDK_CH_CAMBER_FL + i];
    const double b = per_load * t / mu;
    const double a_lin = ty->law.slip_stiffness_per_load * ch[PDK_CH_SLIP_RATIO_FL + i] / mu;
    const double s = sqrt(a_lin * a_lin + b * b);
    ck_assert_double_lt(s, 1.0);
    *fy = -per_load * fz * t;
    return -ty->law.trail_m * (1.0 - s) * *fy;
}

/* A steady left turn at 15 m/s (as above), run three times with one
 * steering feel each: trail alone, trail with a power assist below its
 * limit, and with an assist that saturates. SteeringWheelTorque against
 * the analytic column torque T_c = sum (Mz - t_m Fy) n_z / ratio of the
 * front tyres (grip_law_mz), within 0.1 %; then over (1 + gain) below the
 * assist's limit and |T_c| - T_max past it. The feel is an output: the
 * three states are the same bits. */
START_TEST(test_steering_wheel_torque_against_the_aligning_moment)
{
    const double gain = 3.0;
    const double max_nm[3] = {0.0, 50.0, 0.5};
    run r[3];
    for (int k = 0; k < 3; k++) {
        pdk_vehicle_def d = pdk_vehicle_def_default();
        d.steering.trail_m = 0.025;
        d.steering.assist_gain = k == 0 ? 0.0 : gain;
        d.steering.assist_max_nm = max_nm[k];
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
        run_init(&r[k], &d, 15.0, PDK_GEAR_DRIVE);
        run_command(&r[k], 10.0, 0.0, 60.0);
        for (int t = 0; t < 3 * TICKS_PER_S; t++) {
            run_tick(&r[k]);
        }
    }
    ck_assert_mem_eq(&r[0].state, &r[1].state, sizeof r[0].state);
    ck_assert_mem_eq(&r[0].state, &r[2].state, sizeof r[0].state);
    const double *ch = r[0].ch;
    ck_assert_double_gt(ch[PDK_CH_YAW_RATE], 0.1);
    const pdk_vehicle_def *d = &r[0].def;
    double nz = cos(ch[PDK_CH_PITCH]) * cos(ch[PDK_CH_ROLL]);
    double column = 0.0;
    for (int i = PDK_FL; i <= PDK_FR; i++) {
        double fy = 0.0;
        double mz = grip_law_mz(d, ch, i, &fy);
        /* The law's formula is the model's: its force and moment agree. */
        ck_assert_double_le(fabs(fy - ch[PDK_CH_FORCE_Y_FL + i]), 0.001 * fabs(fy));
        ck_assert_double_le(fabs(mz - ch[PDK_CH_TYRE_MZ_FL + i]), 0.001 * fabs(mz));
        column += (mz - d->steering.trail_m * fy) * nz / d->steering.ratio;
    }
    /* Self-centring, and the trail adds to the tyres' own moment. */
    ck_assert_double_lt(column, -0.5);
    ck_assert_double_lt(ch[PDK_CH_STEERING_WHEEL_TORQUE], ch[PDK_CH_STEERING_TORQUE]);
    ck_assert_double_le(fabs(ch[PDK_CH_STEERING_WHEEL_TORQUE] - column), 0.001 * fabs(column));
    /* The assist below its limit: the driver holds 1 / (1 + gain). */
    double boosted = column / (1.0 + gain);
    ck_assert_double_le(gain * fabs(boosted), max_nm[1]);
    ck_assert_double_le(fabs(r[1].ch[PDK_CH_STEERING_WHEEL_TORQUE] - boosted),
                        0.001 * fabs(boosted));
    /* Past it: the assist gives its most, the driver the rest. */
    ck_assert_double_gt(gain * fabs(boosted), max_nm[2]);
    double rest = column + max_nm[2];
    ck_assert_double_le(fabs(r[2].ch[PDK_CH_STEERING_WHEEL_TORQUE] - rest), 0.001 * fabs(rest));
    /* SteeringTorque keeps its meaning: the aligning moments alone. */
    for (int k = 1; k < 3; k++) {
        ck_assert(r[k].ch[PDK_CH_STEERING_TORQUE] == ch[PDK_CH_STEERING_TORQUE]);
    }
}
END_TEST

/* A world of one default four-wheel car, driven a little. */
static pdk_world *one_car_world(pdk_vehicle_id *id)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_pose pose = {0.0, 0.0, 0.0};
    ck_assert_int_eq(pdk_world_spawn(w, &d, &pose, 5.0, PDK_GEAR_DRIVE, id), PDK_OK);
    return w;
}

/* pdk_world_tyre_input refuses, with a message naming what was wrong, a
 * NULL world or input, a stale id, a single-track vehicle, an unknown
 * action, a wheel mask of 0 or above 15, and a value out of its action's
 * range; pdk_world_tyre_input_problem says the same, and NULL for a good
 * input. A refused input changes nothing (the hash stays). An accepted one
 * acts: a puncture deflates the wheel it names and no other, a power scale
 * of 0 leaves a car on full throttle without drive. */
START_TEST(test_tyre_input_validation)
{
    pdk_vehicle_id id;
    pdk_world *w = one_car_world(&id);
    pdk_vehicle_def st = pdk_vehicle_def_default();
    st.model = PDK_MODEL_SINGLE_TRACK;
    pdk_pose pose = {20.0, 0.0, 0.0};
    pdk_vehicle_id st_id;
    ck_assert_int_eq(pdk_world_spawn(w, &st, &pose, 0.0, PDK_GEAR_DRIVE, &st_id), PDK_OK);
    uint64_t h0 = pdk_world_hash(w);
    const struct {
        pdk_vehicle_id id;
        pdk_tyre_input in;
        pdk_error err;
        const char *names;
    } bad[] = {
        {0, {1u, PDK_TYRE_PUNCTURE, 0.1}, PDK_ERR_STALE_ID, "vehicle id"},
        {id + 0x10000u, {1u, PDK_TYRE_PUNCTURE, 0.1}, PDK_ERR_STALE_ID, "vehicle id"},
        {st_id, {1u, PDK_TYRE_PUNCTURE, 0.1}, PDK_ERR_INVALID_ARGUMENT, "four-wheel"},
        {id, {1u, 0, 0.0}, PDK_ERR_INVALID_ARGUMENT, "action"},
        {id, {1u, 7, 0.0}, PDK_ERR_INVALID_ARGUMENT, "action"},
        {id, {0u, PDK_TYRE_PUNCTURE, 0.1}, PDK_ERR_INVALID_ARGUMENT, "wheel_mask"},
        {id, {16u, PDK_TYRE_REPLACE, 0.0}, PDK_ERR_INVALID_ARGUMENT, "wheel_mask"},
        {id, {1u, PDK_TYRE_PUNCTURE, -0.1}, PDK_ERR_OUT_OF_RANGE, "leak rate"},
        {id, {1u, PDK_TYRE_SET_CONDITION, 4.0}, PDK_ERR_OUT_OF_RANGE, "condition"},
        {id, {1u, PDK_TYRE_SET_TEMPERATURE, NAN}, PDK_ERR_OUT_OF_RANGE, "temperature"},
        {id, {1u, PDK_TYRE_SET_GRIP_SCALE, 2.5}, PDK_ERR_OUT_OF_RANGE, "grip scale"},
        {id, {0u, PDK_TYRE_SET_POWER_SCALE, -0.1}, PDK_ERR_OUT_OF_RANGE, "power scale"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(pdk_world_tyre_input(w, bad[k].id, &bad[k].in), bad[k].err);
        const char *why = pdk_world_tyre_input_problem(w, bad[k].id, &bad[k].in);
        ck_assert_msg(why != NULL && strstr(why, bad[k].names) != NULL, "case %zu: %s", k,
                      why == NULL ? "(null)" : why);
    }
    pdk_tyre_input good = {2u, PDK_TYRE_PUNCTURE, 0.5};
    ck_assert_int_eq(pdk_world_tyre_input(NULL, id, &good), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(pdk_world_tyre_input_problem(NULL, id, &good), "world"));
    ck_assert_int_eq(pdk_world_tyre_input(w, id, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(pdk_world_tyre_input_problem(w, id, NULL), "input"));
    ck_assert_uint_eq(pdk_world_hash(w), h0);
    /* A puncture on the front right: it alone goes flat. */
    ck_assert_ptr_null(pdk_world_tyre_input_problem(w, id, &good));
    ck_assert_int_eq(pdk_world_tyre_input(w, id, &good), PDK_OK);
    ck_assert_uint_ne(pdk_world_hash(w), h0);
    for (int t = 0; t < 5 * TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    const double *ch = pdk_world_channels(w, id);
    ck_assert_double_eq(ch[PDK_CH_CONDITION_FR], (double)PDK_TYRE_FLAT);
    ck_assert_double_lt(ch[PDK_CH_PRESSURE_FR], 0.5 * ch[PDK_CH_PRESSURE_FL]);
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (i != PDK_FR) {
            ck_assert_double_eq(ch[PDK_CH_CONDITION_FL + i], (double)PDK_TYRE_INTACT);
        }
    }
    /* No engine: full throttle from rest gives no drive. */
    pdk_tyre_input none = {0u, PDK_TYRE_SET_POWER_SCALE, 0.0};
    ck_assert_int_eq(pdk_world_tyre_input(w, id, &none), PDK_OK);
    pdk_dbw_cmd c = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE, .throttle_pct = 100.0, .brake_bar = 0.0};
    ck_assert_int_eq(pdk_world_command(w, id, &c), PDK_OK);
    pdk_vehicle_pose before, after;
    ck_assert_int_eq(pdk_world_vehicle_pose(w, id, &before), PDK_OK);
    for (int t = 0; t < TICKS_PER_S; t++) {
        pdk_world_step(w);
    }
    ck_assert_int_eq(pdk_world_vehicle_pose(w, id, &after), PDK_OK);
    ck_assert_double_le(after.speed_mps, before.speed_mps);
    free(w);
}
END_TEST

/* The world's hash covers the wheels' and tyres' state: a byte copy of a
 * world is identical (same hash) until one field of one vehicle's state
 * changes, and each of the new fields, changed alone, changes the hash:
 * a wheel's spin, each deflection, the sinkage, a tyre's temperatures,
 * air, tread, grip scale and condition, the power scale. The vehicle's
 * state is found in the world's bytes as pdk_fw_state_init writes it
 * (the world is zeroed first, as a local struct here). */
START_TEST(test_hash_covers_wheel_state)
{
    pdk_vehicle_id id;
    pdk_world *w = one_car_world(&id);
    const pdk_world_def *wd = pdk_world_def_get(w);
    size_t bytes = pdk_world_mem_size(wd);
    pdk_fw_params p;
    pdk_fw_params_init(&p, pdk_world_vehicle_def(w, id), wd->dt_s / wd->substeps, wd->gravity_mps2,
                       wd->air_density_kgpm3, wd->surface_friction);
    pdk_fw_state s;
    memset(&s, 0, sizeof s);
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_fw_state_init(&s, &p, &wd->terrain, &pose, 5.0);
    unsigned char *base = (unsigned char *)w;
    size_t at = 0;
    while (at + sizeof s <= bytes && memcmp(base + at, &s, sizeof s) != 0) {
        at += 8;
    }
    ck_assert_msg(at + sizeof s <= bytes, "the vehicle's state is not in the world's bytes");
    uint64_t h0 = pdk_world_hash(w);
    void *copy = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(copy);
    const size_t fields[] = {
        offsetof(pdk_fw_state, spin_radps) + 3 * sizeof(double),
        offsetof(pdk_fw_state, defl_x_m),
        offsetof(pdk_fw_state, defl_y_m) + sizeof(double),
        offsetof(pdk_fw_state, sinkage_m) + 2 * sizeof(double),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, surface_temp_c),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, carcass_temp_c),
        offsetof(pdk_fw_state, life) + sizeof(pdk_tyre_life) + offsetof(pdk_tyre_life, gas_temp_c),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, air_share),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, leak_per_s),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, tread_m),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, flat_run_m),
        offsetof(pdk_fw_state, life) + offsetof(pdk_tyre_life, grip_scale),
        offsetof(pdk_fw_state, power_scale),
    };
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        memcpy(copy, w, bytes);
        ck_assert_uint_eq(pdk_world_hash(copy), h0);
        double v;
        memcpy(&v, (unsigned char *)copy + at + fields[k], sizeof v);
        v += 0.125;
        memcpy((unsigned char *)copy + at + fields[k], &v, sizeof v);
        ck_assert_msg(pdk_world_hash(copy) != h0, "field %zu is not hashed", k);
    }
    memcpy(copy, w, bytes);
    int32_t cond = PDK_TYRE_RIM;
    memcpy((unsigned char *)copy + at + offsetof(pdk_fw_state, life) + 2 * sizeof(pdk_tyre_life) +
               offsetof(pdk_tyre_life, condition),
           &cond, sizeof cond);
    ck_assert_uint_ne(pdk_world_hash(copy), h0);
    free(copy);
    free(w);
}
END_TEST

/* ---- determinism --------------------------------------------------------- */

static void scripted_drive(run *r, int tick)
{
    int phase = (tick / 90) % 5;
    double throttle = phase == 0 || phase == 2 ? 60.0 : (phase == 3 ? 15.0 : 0.0);
    double brake = phase == 4 ? 40.0 : 0.0;
    double steer = phase == 1 ? 120.0 : (phase == 3 ? -200.0 : 10.0 * (double)(tick % 7));
    run_command(r, throttle, brake, steer);
}

static pdk_bump bump_along_x(double x_m, double y_m, double length_m, double width_m,
                             double height_m)
{
    pdk_bump b = {.x_m = x_m,
                  .y_m = y_m,
                  .yaw_rad = 0.0,
                  .length_m = length_m,
                  .width_m = width_m,
                  .height_m = height_m};
    return b;
}

static pdk_terrain_def bumpy(void)
{
    pdk_terrain_def t;
    memset(&t, 0, sizeof t);
    t.n_bumps = 3;
    t.bumps[0] = bump_along_x(15.0, 0.5, 0.6, 1.0, 0.08);   /* a kerb under the left wheels */
    t.bumps[1] = bump_along_x(30.0, 0.0, 4.0, 8.0, 0.1);    /* a speed hump across the road */
    t.bumps[2] = bump_along_x(45.0, -0.8, 2.0, 1.0, -0.05); /* a pothole on the right */
    return t;
}

/* Two runs with the same inputs, over bumps, with steering, throttle and
 * brakes, give the same state and channels, byte for byte, every tick. */
START_TEST(test_same_inputs_same_bytes)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_terrain_def t = bumpy();
    static run a, b;
    run_init_at(&a, &d, &t, 2, 0.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE);
    run_init_at(&b, &d, &t, 2, 0.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE);
    for (int tick = 0; tick < 8 * TICKS_PER_S; tick++) {
        scripted_drive(&a, tick);
        scripted_drive(&b, tick);
        run_tick(&a);
        run_tick(&b);
        ck_assert(memcmp(&a.state, &b.state, sizeof a.state) == 0);
        ck_assert(memcmp(a.ch, b.ch, sizeof a.ch) == 0);
    }
    ck_assert_double_gt(a.ch[PDK_CH_SPEED], 1.0);
}
END_TEST

/* ---- the two builds of the step ------------------------------------------- */

static pdk_curve curve3(double lo, double at_lo, double hi, double at_hi)
{
    pdk_curve c;
    memset(&c, 0, sizeof c);
    c.n_points = 3;
    c.travel_m[0] = lo;
    c.value[0] = at_lo;
    c.travel_m[1] = 0.0;
    c.value[1] = 0.0;
    c.travel_m[2] = hi;
    c.value[2] = at_hi;
    return c;
}

/* The bumps of bumpy() and the rest of the ground's kinds: a hill (a 10 %
 * ramp up and down), gravel, silt loam (deformable: the soil model) and a
 * water crossing across the route, wheels meeting it by the cylinder
 * sweep. */
static pdk_terrain_def rich(void)
{
    pdk_terrain_def t = bumpy();
    t.contact_mode = PDK_CONTACT_CYLINDER;
    t.air_temp_c = 25.0;
    t.road_temp_c = 35.0;
    t.n_ramps = 1;
    t.ramps[0] = (pdk_ramp){.x_m = 50.0,
                            .y_m = 0.0,
                            .yaw_rad = 0.0,
                            .length_m = 10.0,
                            .width_m = 30.0,
                            .grade = 0.1,
                            .transition_m = 2.0,
                            .hold_m = 5.0};
    t.n_patches = 3;
    t.patches[0] = (pdk_patch){.shape = PDK_PATCH_RECT,
                               .surface_id = PDK_SURFACE_GRAVEL,
                               .x_m = 8.0,
                               .y_m = 0.0,
                               .size_x_m = 6.0,
                               .size_y_m = 30.0};
    t.patches[1] = (pdk_patch){.shape = PDK_PATCH_RECT,
                               .surface_id = PDK_SURFACE_SILT_LOAM,
                               .x_m = 22.0,
                               .y_m = 0.0,
                               .size_x_m = 8.0,
                               .size_y_m = 30.0};
    t.patches[2] = (pdk_patch){
        .shape = PDK_PATCH_CIRCLE, .x_m = 38.0, .y_m = 0.0, .size_x_m = 5.0, .water_depth_m = 0.15};
    ck_assert_ptr_null(pdk_terrain_problem(&t));
    return t;
}

/* Both axles of d on law (the Magic Formula with the road 205/60R15 set,
 * or the UTV law). */
static void set_law(pdk_vehicle_def *d, pdk_tyre_law law)
{
    pdk_tyre_law_def *axles[2] = {&d->tyre_front.law, &d->tyre_rear.law};
    for (int k = 0; k < 2; k++) {
        axles[k]->law = law;
        if (law == PDK_TYRE_MAGIC) {
            axles[k]->mf_set = PDK_MF_ROAD_205_60R15;
            axles[k]->mf = *pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
            axles[k]->slide_grip = 0.0;
        }
    }
}

/* The cars of the same-bits tests: 0 the default car, 1 one with every
 * kinematic curve on its front axle and a solid rear axle (the per-wheel
 * scalar paths), 2 the stiff kart of the kinks test (dropped on its wheels,
 * its struts cross their kinks: the re-solves), 3 the default car on Magic
 * Formula tyres, 4 on the UTV law. */
#define SAME_BITS_VARIANTS 5
static pdk_vehicle_def same_bits_def(int variant)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    if (variant == 2) {
        d = stiff_kart_def(64500.0, 1.0e7);
    }
    if (variant == 3) {
        set_law(&d, PDK_TYRE_MAGIC);
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
    }
    if (variant == 4) {
        set_law(&d, PDK_TYRE_UTV);
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
    }
    if (variant == 1) {
        pdk_kinematics_def *k = &d.susp_front.kinematics;
        k->toe_rad = curve3(-0.08, 0.004, 0.08, -0.003);
        k->camber_rad = curve3(-0.08, 0.02, 0.08, -0.03);
        k->roll_center_height_m = curve3(-0.08, 0.05, 0.08, -0.06);
        k->anti_brake = curve3(-0.08, 0.1, 0.08, -0.1);
        k->anti_drive = curve3(-0.08, -0.1, 0.08, 0.1);
        d.susp_rear.kind = PDK_AXLE_SOLID;
        d.susp_rear.roll_center_height_m = 0.3;
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
    }
    return d;
}

/* The builds of the step this processor has besides the baseline (AVX2,
 * AVX-512), and how many. */
static int other_builds(pdk_fw_build out[2])
{
    int n = 0;
    const pdk_fw_build all[2] = {PDK_FW_BUILD_AVX2, PDK_FW_BUILD_AVX512};
    for (int i = 0; i < 2; i++) {
        if (pdk_fw_build_available(all[i])) {
            out[n++] = all[i];
        }
    }
    return n;
}

/* Every build of the step the processor has (AVX2, AVX-512) gives the
 * baseline build's state and channels, byte for byte, every tick: over
 * bumps, with steering, throttle and locked brakes, for the default car,
 * for one with every kinematic curve on its front axle and a solid rear
 * axle (the per-wheel scalar paths), for the stiff kart of the kinks test
 * dropped on its wheels (the re-solves of a strut crossing a kink), and on
 * Magic Formula and UTV tyres over the rich terrain (cylinder sweeps, a
 * hill, surfaces, soil, water). pdk_fw_step is the widest of them. */
START_TEST(test_builds_same_bits)
{
    pdk_fw_build builds[2];
    const int n_builds = other_builds(builds);
    if (n_builds == 0) {
        printf("test_builds_same_bits: this processor has only the baseline build\n");
    }
    for (int variant = 0; variant < SAME_BITS_VARIANTS; variant++) {
        pdk_vehicle_def d = same_bits_def(variant);
        pdk_terrain_def t = variant >= 3 ? rich() : bumpy();
        static run b, o[2];
        run *rs[3] = {&b, &o[0], &o[1]};
        for (int k = 0; k <= n_builds; k++) {
            run_init_at(rs[k], &d, &t, 2, 0.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE);
            if (variant == 2) {
                /* Dropped: its stiff struts cross their kinks on landing. */
                rs[k]->state.pos_m[2] += 0.3;
            }
        }
        for (int tick = 0; tick < 8 * TICKS_PER_S; tick++) {
            for (int k = 0; k <= n_builds; k++) {
                run *r = rs[k];
                scripted_drive(r, tick);
                if (tick > 6 * TICKS_PER_S) {
                    run_command(r, 0.0, 180.0, 30.0);
                }
                pdk_fw_build build = k == 0 ? PDK_FW_BUILD_BASELINE : builds[k - 1];
                if (k == n_builds && k > 0) {
                    build = PDK_FW_BUILD_BEST; /* pdk_fw_step's, the widest */
                }
                pdk_fw_step_build(&r->state, &r->cmd, &r->params, &r->terrain, r->substeps, r->ch,
                                  build);
            }
            for (int k = 1; k <= n_builds; k++) {
                ck_assert_msg(memcmp(&b.state, &rs[k]->state, sizeof b.state) == 0,
                              "variant %d, build %d: states differ at tick %d", variant,
                              (int)builds[k - 1], tick);
                ck_assert_msg(memcmp(b.ch, rs[k]->ch, sizeof b.ch) == 0,
                              "variant %d, build %d: channels differ at tick %d", variant,
                              (int)builds[k - 1], tick);
            }
        }
        ck_assert_double_eq(b.ch[PDK_CH_FAULTED], 0.0);
    }
}
END_TEST

/* A build that is not one (or that this processor lacks) runs as the
 * baseline, giving its bits, rather than failing. */
START_TEST(test_unknown_build_runs_the_baseline)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    static run a, b;
    run_init(&a, &d, 10.0, PDK_GEAR_DRIVE);
    run_init(&b, &d, 10.0, PDK_GEAR_DRIVE);
    ck_assert_int_eq(pdk_fw_build_available((pdk_fw_build)99), 0);
    for (int tick = 0; tick < TICKS_PER_S; tick++) {
        scripted_drive(&a, tick);
        scripted_drive(&b, tick);
        pdk_fw_step_build(&a.state, &a.cmd, &a.params, &a.terrain, a.substeps, a.ch,
                          (pdk_fw_build)99);
        pdk_fw_step_build(&b.state, &b.cmd, &b.params, &b.terrain, b.substeps, b.ch,
                          PDK_FW_BUILD_BASELINE);
    }
    ck_assert(memcmp(&a.state, &b.state, sizeof a.state) == 0);
    ck_assert(memcmp(a.ch, b.ch, sizeof a.ch) == 0);
}
END_TEST

/* pdk_fw_step_batch, which steps vehicles four side by side (phase by phase
 * of each substep), gives every vehicle the state and channels, byte for
 * byte, of the baseline pdk_fw_step on it alone, every tick, in every build
 * the processor has: six vehicles (so a group of four and two alone), the
 * five same-bits cars and the first again on the rich terrain, driven apart
 * over bumps, one faulted by a NaN midway (in the group of four, whose
 * others go on), the curves and tyre parameters read through the batch's
 * own definitions (as a world passes its own). The return value counts the
 * faulted vehicle. */
#define BATCH_N 6
#define BATCH_BUILDS 3
START_TEST(test_batch_same_bits)
{
    const pdk_fw_build builds[BATCH_BUILDS] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2,
                                               PDK_FW_BUILD_AVX512};
    static run ref[BATCH_N], batch[BATCH_BUILDS][BATCH_N];
    pdk_terrain_def t = rich();
    for (int i = 0; i < BATCH_N; i++) {
        pdk_vehicle_def d = same_bits_def(i % SAME_BITS_VARIANTS);
        pdk_gear gear = i == 3 ? PDK_GEAR_REVERSE : PDK_GEAR_DRIVE;
        double speed = i == 3 ? -3.0 : 6.0 + 2.0 * i;
        for (int k = 0; k <= BATCH_BUILDS; k++) {
            run *r = k == 0 ? &ref[i] : &batch[k - 1][i];
            run_init_at(r, &d, &t, 2, 1.5 * i, -0.7 * i, 0.4 * i, speed, gear);
            if (i == 2) {
                r->state.pos_m[2] += 0.3; /* dropped */
            }
        }
    }
    for (int tick = 0; tick < 4 * TICKS_PER_S; tick++) {
        for (int i = 0; i < BATCH_N; i++) {
            for (int k = 0; k <= BATCH_BUILDS; k++) {
                run *r = k == 0 ? &ref[i] : &batch[k - 1][i];
                scripted_drive(r, tick + 37 * i);
                if (i == 1 && tick == TICKS_PER_S) {
                    r->state.vel_mps[1] = NAN;
                }
            }
            pdk_fw_step_build(&ref[i].state, &ref[i].cmd, &ref[i].params, &ref[i].terrain,
                              ref[i].substeps, ref[i].ch, PDK_FW_BUILD_BASELINE);
        }
        int faults = tick >= TICKS_PER_S ? 1 : 0;
        for (int k = 0; k < BATCH_BUILDS; k++) {
            if (!pdk_fw_build_available(builds[k])) {
                continue;
            }
            pdk_fw_state *s[BATCH_N];
            const pdk_fw_cmd *c[BATCH_N];
            const pdk_fw_consts *p[BATCH_N];
            const pdk_tyre_consts4 *ty[BATCH_N];
            const pdk_vehicle_def *d[BATCH_N];
            double *ch[BATCH_N];
            for (int i = 0; i < BATCH_N; i++) {
                run *r = &batch[k][i];
                s[i] = &r->state;
                c[i] = &r->cmd;
                p[i] = &r->params.c;
                ty[i] = &r->params.tyre;
                d[i] = &r->def;
                ch[i] = r->ch;
            }
            ck_assert_int_eq(pdk_fw_step_batch_build(s, c, p, ty, d, ch, BATCH_N, &t, 2, builds[k]),
                             faults);
            for (int i = 0; i < BATCH_N; i++) {
                ck_assert_msg(memcmp(&ref[i].state, s[i], sizeof ref[i].state) == 0 &&
                                  memcmp(ref[i].ch, ch[i], sizeof ref[i].ch) == 0,
                              "batch, build %d: vehicle %d differs at tick %d", (int)builds[k], i,
                              tick);
            }
        }
    }
    ck_assert_uint_eq(ref[1].state.faulted, 1u);
    for (int i = 0; i < BATCH_N; i++) {
        if (i == 1) {
            continue;
        }
        ck_assert_uint_eq(ref[i].state.faulted, 0u);
        ck_assert_double_eq(ref[i].ch[PDK_CH_FAULTED], 0.0);
    }
}
END_TEST

/* ---- faults -------------------------------------------------------------- */

/* A non-finite value in the state faults the vehicle exactly as
 * pdk_st_step does: the pose stays where the tick began, velocities (and
 * the lagged tyre forces, the wheels' spins and the tyres' deflections) are
 * zeroed, faulted is set, every channel is finite and Faulted reads 1. A
 * NaN velocity, an infinite angular velocity, a NaN quaternion (whose pose
 * cannot be kept: it becomes level) and a NaN wheel spin each fault; the
 * next tick of the restored state is clean. */
START_TEST(test_non_finite_state_faults)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    for (int k = 0; k < 4; k++) {
        run r;
        run_init_at(&r, &d, NULL, 2, 5.0, 6.0, 1.0, 12.0, PDK_GEAR_DRIVE);
        run_command(&r, 30.0, 0.0, 45.0);
        for (int t = 0; t < 60; t++) {
            run_tick(&r);
        }
        pdk_fw_state before = r.state;
        if (k == 0) {
            r.state.vel_mps[1] = NAN;
        } else if (k == 1) {
            r.state.omega_radps[2] = INFINITY;
        } else if (k == 2) {
            r.state.quat[2] = NAN;
        } else {
            r.state.spin_radps[PDK_RL] = NAN;
        }
        run_tick(&r);
        ck_assert_uint_eq(r.state.faulted, 1u);
        ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 1.0);
        assert_channels_finite(&r);
        for (int j = 0; j < 3; j++) {
            ck_assert(r.state.pos_m[j] == before.pos_m[j]);
            ck_assert(r.state.vel_mps[j] == 0.0 && r.state.omega_radps[j] == 0.0);
        }
        for (int i = 0; i < PDK_WHEELS; i++) {
            ck_assert(r.state.prev_fx_n[i] == 0.0 && r.state.prev_fy_n[i] == 0.0);
            ck_assert(r.state.spin_radps[i] == 0.0 && r.state.defl_x_m[i] == 0.0 &&
                      r.state.defl_y_m[i] == 0.0);
        }
        ck_assert_double_eq(r.ch[PDK_CH_POS_X], before.pos_m[0]);
        ck_assert_double_eq(r.ch[PDK_CH_POS_Y], before.pos_m[1]);
        ck_assert_double_eq(r.ch[PDK_CH_GEAR], (double)PDK_GEAR_DRIVE);
        ck_assert_double_eq(r.ch[PDK_CH_THROTTLE], 30.0);
        if (k != 2) {
            /* The quaternion was fine: the pose is kept (renormalised). */
            for (int j = 0; j < 4; j++) {
                ck_assert_double_eq_tol(r.state.quat[j], before.quat[j], 1e-15);
            }
        } else {
            ck_assert(r.state.quat[0] == 1.0 && r.state.quat[1] == 0.0 && r.state.quat[2] == 0.0 &&
                      r.state.quat[3] == 0.0);
        }
        /* The world stops stepping a faulted vehicle; stepped anyway, the
         * restored state is a valid one. */
        run_tick(&r);
        assert_channels_finite(&r);
        ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
    }
}
END_TEST

/* ---- channels ------------------------------------------------------------ */

/* Every channel stays finite through 15 s of driving with steering, full
 * braking (locked wheels) and throttle, over a kerb, a hump and a pothole;
 * the bumps show in the travels (the kerb's 8 cm lifts the left wheels by
 * more than 3 cm), and the loads and strut forces never go negative. */
START_TEST(test_every_channel_finite_over_bumps)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_terrain_def t = bumpy();
    run r;
    run_init_at(&r, &d, &t, 2, 0.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE);
    double max_travel = 0.0;
    for (int tick = 0; tick < 15 * TICKS_PER_S; tick++) {
        scripted_drive(&r, tick);
        if (tick > 12 * TICKS_PER_S) {
            run_command(&r, 0.0, 180.0, 30.0); /* full brakes: the wheels lock */
        }
        run_tick(&r);
        assert_channels_finite(&r);
        ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
        for (int i = 0; i < PDK_WHEELS; i++) {
            max_travel = fmax(max_travel, r.ch[PDK_CH_SUSP_TRAVEL_FL + i]);
            ck_assert_double_ge(r.ch[PDK_CH_TYRE_LOAD_FL + i], 0.0);
            ck_assert_double_ge(r.ch[PDK_CH_SUSP_FORCE_FL + i], 0.0);
        }
    }
    ck_assert_double_gt(max_travel, 0.03);
}
END_TEST

/* ---- command and small parts ---------------------------------------------- */

/* The command's cached part: the steering wheel's centre offset comes off
 * before the lock, the bicycle angle is (wheel - offset) / ratio; parallel
 * steer with no toe gives every front wheel that angle and the rears none;
 * the brake and the parking pawl split per wheel (half an axle's share each)
 * add up to the line force and the pawl's force. */
START_TEST(test_cmd_set_steering_and_holds)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    d.steering.center_offset_deg = 10.0;
    d.steering.ackermann = 0.0;
    d.susp_front.static_toe_rad = 0.0;
    d.susp_rear.static_toe_rad = 0.0;
    pdk_fw_cmd c;
    pdk_fw_cmd_set(&c, &d, 0.0, 0.0, 100.0, PDK_GEAR_DRIVE);
    double want = 90.0 / 15.0 * PI / 180.0;
    ck_assert_double_eq_tol(c.steer_rad, want, 1e-15);
    ck_assert_double_eq_tol(c.wheel_steer_rad[PDK_FL], want, 1e-15);
    ck_assert_double_eq_tol(c.wheel_steer_rad[PDK_FR], want, 1e-15);
    ck_assert(c.wheel_steer_rad[PDK_RL] == 0.0 && c.wheel_steer_rad[PDK_RR] == 0.0);
    ck_assert_double_eq_tol(c.wheel_sin[PDK_FL], sin(want), 1e-15);
    ck_assert_double_eq_tol(c.wheel_cos[PDK_FL], cos(want), 1e-15);
    /* Past the lock: 600 - 10 is clamped to 540. */
    pdk_fw_cmd_set(&c, &d, 0.0, 0.0, 600.0, PDK_GEAR_DRIVE);
    ck_assert_double_eq_tol(c.steer_rad, 540.0 / 15.0 * PI / 180.0, 1e-15);
    pdk_fw_cmd_set(&c, &d, 0.0, 0.0, -600.0, PDK_GEAR_DRIVE);
    ck_assert_double_eq_tol(c.steer_rad, -540.0 / 15.0 * PI / 180.0, 1e-15);

    /* Holds: 20 bar at 150 N/bar, 65 % front; the pawl's 8 kN on the driven
     * (front) axle only. */
    pdk_fw_cmd_set(&c, &d, 0.0, 20.0, 0.0, PDK_GEAR_PARK);
    ck_assert_double_eq_tol(c.hold_n[PDK_FL], 0.5 * (3000.0 * 0.65 + 8000.0), 1e-9);
    ck_assert(c.hold_n[PDK_FR] == c.hold_n[PDK_FL]);
    ck_assert_double_eq_tol(c.hold_n[PDK_RL], 0.5 * 3000.0 * 0.35, 1e-9);
    ck_assert(c.hold_n[PDK_RR] == c.hold_n[PDK_RL]);
    ck_assert(c.drive_gain == 0.0);
    pdk_fw_cmd_set(&c, &d, 40.0, 0.0, 0.0, PDK_GEAR_REVERSE);
    ck_assert_double_eq_tol(c.drive_gain, -0.4, 1e-15);
    ck_assert(c.governor_mps == d.drive.max_reverse_speed_mps);
    ck_assert(c.hold_n[PDK_FL] == 0.0 && c.hold_n[PDK_RR] == 0.0);
}
END_TEST

/* pdk_fw_euler inverts the ZYX composition q = q_z(yaw) q_y(pitch) q_x(roll)
 * to 1e-15 rad (a few ulps: the angles come from the deterministic atan2
 * and asin, each within two ulps), for angles in every quadrant of yaw. */
START_TEST(test_euler_inverts_zyx)
{
    const double yaws[] = {0.3, 2.9, -2.0, -0.1};
    const double pitches[] = {0.1, -0.4, 0.7, 0.0};
    const double rolls[] = {-0.2, 0.5, 0.05, 1.2};
    for (int k = 0; k < 4; k++) {
        double cy = cos(0.5 * yaws[k]), sy = sin(0.5 * yaws[k]);
        double cp = cos(0.5 * pitches[k]), sp = sin(0.5 * pitches[k]);
        double cr = cos(0.5 * rolls[k]), sr = sin(0.5 * rolls[k]);
        double q[4] = {cy * cp * cr + sy * sp * sr, cy * cp * sr - sy * sp * cr,
                       cy * sp * cr + sy * cp * sr, sy * cp * cr - cy * sp * sr};
        double yaw, pitch, roll;
        pdk_fw_euler(q, &yaw, &pitch, &roll);
        ck_assert_double_eq_tol(yaw, yaws[k], 1e-15);
        ck_assert_double_eq_tol(pitch, pitches[k], 1e-15);
        ck_assert_double_eq_tol(roll, rolls[k], 1e-15);
    }
}
END_TEST

/* Dropped from 1 m above its ride height, the car falls freely: every
 * wheel in the air reports full droop travel and no load, the accelerometer
 * reads 0 (free fall, gravity excluded) and VelZ follows -g t to 1e-9 m/s;
 * then it lands, bounces and settles at its CG height without a fault. */
/* The step's Yaw, Pitch and Roll channels (their atan2s taken two lanes
 * at a time, branch-free) are pdk_fw_euler's of the state's quaternion, bit
 * for bit: over a spread of orientations, upside down and on the quadrant
 * edges (yaw exactly pi, the x and y arguments zero) included. */
START_TEST(test_euler_channels_same_bits)
{
    const double edges[][4] = {{1.0, 0.0, 0.0, 0.0},  {0.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 0.0, -1.0},
                               {0.0, 1.0, 0.0, 0.0},  {0.0, 0.0, 1.0, 0.0}, {0.5, 0.5, 0.5, 0.5},
                               {0.5, -0.5, 0.5, -0.5}};
    const int n_edges = (int)(sizeof edges / sizeof edges[0]);
    pdk_vehicle_def d = pdk_vehicle_def_default();
    uint64_t seed = 12345u;
    for (int k = 0; k < 400; k++) {
        run r;
        run_init_at(&r, &d, NULL, 2, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_NEUTRAL);
        r.state.pos_m[2] = 50.0; /* in the air: nothing turns it */
        if (k < n_edges) {
            memcpy(r.state.quat, edges[k], sizeof r.state.quat);
        } else {
            double n2 = 0.0;
            for (int j = 0; j < 4; j++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                r.state.quat[j] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
                n2 += r.state.quat[j] * r.state.quat[j];
            }
            for (int j = 0; j < 4; j++) {
                r.state.quat[j] /= sqrt(n2);
            }
        }
        run_tick(&r);
        ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
        double yaw, pitch, roll;
        pdk_fw_euler(r.state.quat, &yaw, &pitch, &roll);
        ck_assert_msg(memcmp(&yaw, &r.ch[PDK_CH_YAW], sizeof yaw) == 0 &&
                          memcmp(&pitch, &r.ch[PDK_CH_PITCH], sizeof pitch) == 0 &&
                          memcmp(&roll, &r.ch[PDK_CH_ROLL], sizeof roll) == 0,
                      "orientation %d: channels %.17g %.17g %.17g, pdk_fw_euler %.17g %.17g %.17g",
                      k, r.ch[PDK_CH_YAW], r.ch[PDK_CH_PITCH], r.ch[PDK_CH_ROLL], yaw, pitch, roll);
    }
}
END_TEST

START_TEST(test_free_fall_and_landing)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
    r.state.pos_m[2] += 1.0;
    for (int t = 1; t <= 12; t++) {
        run_tick(&r);
        for (int i = 0; i < PDK_WHEELS; i++) {
            double droop = r.params.axle[i >> 1].travel_droop_m;
            ck_assert_double_eq(r.ch[PDK_CH_SUSP_TRAVEL_FL + i], -droop);
            ck_assert_double_eq(r.ch[PDK_CH_TYRE_LOAD_FL + i], 0.0);
            ck_assert_double_eq(r.ch[PDK_CH_SUSP_FORCE_FL + i], 0.0);
        }
        ck_assert_double_le(fabs(r.ch[PDK_CH_ACCEL_Z]), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_VEL_Z] + G * DT * t), 1e-9);
    }
    for (int t = 0; t < 15 * TICKS_PER_S; t++) {
        run_tick(&r);
        assert_channels_finite(&r);
    }
    ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
    ck_assert_double_le(fabs(r.ch[PDK_CH_POS_Z] - d.chassis.cg_height_m), 1e-6);
}
END_TEST

/* On its roof the struts point up and never meet the ground: no load, no
 * force, no fault; the hull's roof holds the car (vehicle/hull.h): spawned
 * turned over with its roof in the ground, it is pushed out and after 2 s
 * lies at rest on its roof, every channel finite meanwhile. */
START_TEST(test_car_on_its_roof_rests_on_it)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    run r;
    run_init(&r, &d, 0.0, PDK_GEAR_NEUTRAL);
    r.state.quat[0] = 0.0;
    r.state.quat[1] = 1.0; /* half a turn about body x */
    for (int t = 0; t < 2 * TICKS_PER_S; t++) {
        run_tick(&r);
        assert_channels_finite(&r);
        for (int i = 0; i < PDK_WHEELS; i++) {
            ck_assert_double_eq(r.ch[PDK_CH_TYRE_LOAD_FL + i], 0.0);
        }
    }
    ck_assert_double_eq(r.ch[PDK_CH_FAULTED], 0.0);
    ck_assert_double_eq(r.ch[PDK_CH_BODY_CONTACT_FACE], (double)PDK_HULL_FACE_ROOF);
    ck_assert_double_le(fabs(r.ch[PDK_CH_VEL_Z]), 1e-6);
    ck_assert_double_le(fabs(r.ch[PDK_CH_POS_Z] - 1.5 * d.chassis.cg_height_m), 0.01);
}
END_TEST

static Suite *four_wheel_suite(void)
{
    Suite *s = suite_create("four_wheel");
    TCase *still = tcase_create("standstill");
    tcase_add_test(still, test_parked_car_stands_exactly_still);
    tcase_add_test(still, test_sits_at_cg_height_for_any_spring_rate);
    tcase_add_test(still, test_braked_car_stops_exactly);
    tcase_add_test(still, test_neutral_car_at_rest_does_not_creep);
    suite_add_tcase(s, still);

    TCase *wheels = tcase_create("wheels and tyres");
    tcase_add_test(wheels, test_brakes_lock_and_never_reverse_a_wheel);
    tcase_add_test(wheels, test_deflections_hold_a_parked_car);
    tcase_add_test(wheels, test_steering_torque_from_aligning_moments);
    tcase_add_test(wheels, test_steering_wheel_torque_against_the_aligning_moment);
    tcase_add_test(wheels, test_tyre_input_validation);
    tcase_add_test(wheels, test_hash_covers_wheel_state);
    suite_add_tcase(s, wheels);

    TCase *energy = tcase_create("energy");
    tcase_add_test(energy, test_energy_never_rises_coasting);
    tcase_add_test(energy, test_energy_exact_in_heave);
    tcase_add_test(energy, test_kinks_never_add_energy);
    suite_add_tcase(s, energy);

    TCase *det = tcase_create("determinism and faults");
    tcase_add_test(det, test_same_inputs_same_bytes);
    tcase_add_test(det, test_builds_same_bits);
    tcase_add_test(det, test_batch_same_bits);
    tcase_add_test(det, test_unknown_build_runs_the_baseline);
    tcase_add_test(det, test_non_finite_state_faults);
    tcase_add_test(det, test_every_channel_finite_over_bumps);
    suite_add_tcase(s, det);

    TCase *parts = tcase_create("parts");
    tcase_add_test(parts, test_cmd_set_steering_and_holds);
    tcase_add_test(parts, test_euler_inverts_zyx);
    tcase_add_test(parts, test_euler_channels_same_bits);
    tcase_add_test(parts, test_free_fall_and_landing);
    tcase_add_test(parts, test_car_on_its_roof_rests_on_it);
    suite_add_tcase(s, parts);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(four_wheel_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
