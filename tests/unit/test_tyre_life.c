/* Unit tests for tyre life (server/sim/tyre_life.h): heat (a burnout, the
 * carcass's minutes, cooling with speed, a backward Euler step that is
 * stable and monotone at any length), the gas law, wear and its hot rate,
 * blowing when worn out, a puncture's timing, the conditions' radius, grip
 * and drag, running flat to the rim, the actions, and every check of a
 * definition and an action; four tyres at once as one at a time. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tyre/tyre_life.h"

#define ATM_KPA 101.325
#define KELVIN 273.15
#define DT (1.0 / 120.0)
#define R0 0.31

static pdk_tyre_life_def road(void)
{
    return pdk_tyre_life_def_default(R0, 220.0);
}

static pdk_tyre_work still(double ambient_c)
{
    return (pdk_tyre_work){.slide_power_w = 0.0,
                           .load_n = 0.0,
                           .roll_speed_mps = 0.0,
                           .contact = 1.0,
                           .air_temp_c = ambient_c,
                           .road_temp_c = ambient_c};
}

static int rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fabs(b);
}

/* ---- heat ---- */

/* A burnout: a rear wheel spinning at 20 m/s slip speed on the spot under
 * 4 kN of traction slides 80 kW, 0.7 of it into the tread. The surface
 * passes 150 C in under 3.5 s (2.7 s with the defaults) while the carcass
 * barely moves; the time agrees within 5 % with the surface node alone,
 * t = tau ln((T_eq - T0) / (T_eq - 150)), tau = C_s / G, G = G_sc + G_road
 * + hA(0), T_eq = T0 + a_f P / G. */
START_TEST(test_burnout)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_work w = still(20.0);
    w.slide_power_w = 4000.0 * 20.0;
    w.load_n = 4000.0;
    double t150 = -1.0;
    for (int i = 1; i <= 120 * 10 && t150 < 0.0; i++) {
        pdk_tyre_life_step(&life, &d, &w, DT);
        if (life.surface_temp_c > 150.0) {
            t150 = (double)i * DT;
        }
    }
    ck_assert_double_gt(t150, 1.0);
    ck_assert_double_lt(t150, 3.5);
    ck_assert_double_lt(life.carcass_temp_c, 25.0);
    double g = d.surface_carcass_wpk + d.road_wpk + d.air_wpk;
    double tau = d.surface_heat_capacity_jpk / g;
    double teq = 20.0 + d.slide_heat_share * w.slide_power_w / g;
    double t_node = tau * log((teq - 20.0) / (teq - 150.0));
    ck_assert_msg(fabs(t150 - t_node) <= 0.05 * t_node, "t150 %.3f s, one node %.3f s", t150,
                  t_node);
    /* heat_scale 0 turns heating off. */
    d.heat_scale = 0.0;
    pdk_tyre_life_init(&life, &d, 20.0);
    for (int i = 0; i < 120; i++) {
        pdk_tyre_life_step(&life, &d, &w, DT);
    }
    ck_assert_double_eq(life.surface_temp_c, 20.0);
}
END_TEST

/* Flexing warms the carcass in minutes: at 30 m/s under 4 kN (1.4 kW of
 * hysteresis) it has made under 40 % of its hour's rise after a minute and
 * over 90 % after 20 minutes; the gas follows the carcass. */
START_TEST(test_carcass_minutes)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_work w = still(20.0);
    w.load_n = 4000.0;
    w.roll_speed_mps = 30.0;
    double at60 = 0.0, at1200 = 0.0;
    for (int s = 1; s <= 3600; s++) {
        for (int i = 0; i < 120; i++) {
            pdk_tyre_life_step(&life, &d, &w, DT);
        }
        if (s == 60) {
            at60 = life.carcass_temp_c - 20.0;
        } else if (s == 1200) {
            at1200 = life.carcass_temp_c - 20.0;
        }
    }
    double rise = life.carcass_temp_c - 20.0;
    ck_assert_double_gt(rise, 10.0);
    ck_assert_double_lt(rise, 60.0);
    ck_assert_double_lt(at60 / rise, 0.4);
    ck_assert_double_gt(at1200 / rise, 0.9);
    ck_assert_double_le(fabs(life.gas_temp_c - life.carcass_temp_c), 0.1);
    /* A soft tyre flexes more: half the air, warmer carcass. */
    pdk_tyre_life soft;
    pdk_tyre_life_init(&soft, &d, 20.0);
    soft.air_share = 0.5;
    pdk_tyre_life hard;
    pdk_tyre_life_init(&hard, &d, 20.0);
    for (int i = 0; i < 120 * 60; i++) {
        pdk_tyre_life_step(&soft, &d, &w, DT);
        pdk_tyre_life_step(&hard, &d, &w, DT);
    }
    ck_assert_double_gt(soft.carcass_temp_c, hard.carcass_temp_c + 1.0);
}
END_TEST

/* A hot tyre in the air cools faster the faster it rolls. */
START_TEST(test_cooling_with_speed)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life slow, fast;
    pdk_tyre_life_init(&slow, &d, 100.0);
    pdk_tyre_life_init(&fast, &d, 100.0);
    pdk_tyre_work w0 = still(20.0);
    w0.contact = 0.0;
    pdk_tyre_work w1 = w0;
    w1.roll_speed_mps = 30.0;
    for (int i = 0; i < 120 * 30; i++) {
        pdk_tyre_life_step(&slow, &d, &w0, DT);
        pdk_tyre_life_step(&fast, &d, &w1, DT);
    }
    ck_assert_double_lt(fast.surface_temp_c, slow.surface_temp_c - 5.0);
    ck_assert_double_lt(fast.carcass_temp_c, slow.carcass_temp_c);
    ck_assert_double_lt(slow.surface_temp_c, 100.0);
    ck_assert_double_gt(fast.surface_temp_c, 20.0);
    /* The road takes heat too: on the ground it cools faster than in the
     * air at the same speed. */
    pdk_tyre_life air, ground;
    pdk_tyre_life_init(&air, &d, 100.0);
    pdk_tyre_life_init(&ground, &d, 100.0);
    pdk_tyre_work wg = w0;
    wg.contact = 1.0;
    for (int i = 0; i < 120 * 10; i++) {
        pdk_tyre_life_step(&air, &d, &w0, DT);
        pdk_tyre_life_step(&ground, &d, &wg, DT);
    }
    ck_assert_double_lt(ground.surface_temp_c, air.surface_temp_c - 5.0);
}
END_TEST

/* Backward Euler on the whole three-node system: one 10 s step of a
 * burnout lands between the start and the steady state of the same inputs
 * (no overshoot), a 10 s step of cooling stays above the air, and steps of
 * any length reach the same steady state. (The flexing heat depends on the
 * pressure, so the true steady state is the fixed point of repeated
 * infinite steps.) */
START_TEST(test_stability)
{
    pdk_tyre_life_def d = road();
    d.wear_scale = 0.0; /* keep it intact through the long steps */
    pdk_tyre_work w = still(20.0);
    w.slide_power_w = 80000.0;
    w.load_n = 4000.0;
    w.roll_speed_mps = 5.0;
    pdk_tyre_life once;
    pdk_tyre_life_init(&once, &d, 20.0);
    pdk_tyre_life steady = once;
    pdk_tyre_life big = once;
    pdk_tyre_life small = once;
    pdk_tyre_life_step(&once, &d, &w, 1.0e9);
    for (int i = 0; i < 100; i++) {
        pdk_tyre_life_step(&steady, &d, &w, 1.0e9);
    }
    pdk_tyre_life_step(&big, &d, &w, 10.0);
    double *tb[3] = {&big.surface_temp_c, &big.carcass_temp_c, &big.gas_temp_c};
    double ts[3] = {once.surface_temp_c, once.carcass_temp_c, once.gas_temp_c};
    for (int k = 0; k < 3; k++) {
        ck_assert(isfinite(*tb[k]));
        ck_assert_double_ge(*tb[k], 20.0);
        ck_assert_double_le(*tb[k], ts[k]);
    }
    ck_assert_double_gt(big.surface_temp_c, 150.0);
    /* 10 s steps and 0.5 s steps reach the same steady state (20 000 s,
     * some 50 carcass time constants). */
    for (int i = 0; i < 2000; i++) {
        pdk_tyre_life_step(&big, &d, &w, 10.0);
    }
    for (int i = 0; i < 40000; i++) {
        pdk_tyre_life_step(&small, &d, &w, 0.5);
    }
    ck_assert_double_le(fabs(big.surface_temp_c - steady.surface_temp_c), 0.01);
    ck_assert_double_le(fabs(big.carcass_temp_c - steady.carcass_temp_c), 0.01);
    ck_assert_double_le(fabs(small.surface_temp_c - steady.surface_temp_c), 0.01);
    ck_assert_double_le(fabs(small.carcass_temp_c - steady.carcass_temp_c), 0.01);
    ck_assert(isfinite(steady.surface_temp_c) && steady.surface_temp_c > 300.0);
    /* Cooling from 300 C in one 10 s step: no undershoot. */
    pdk_tyre_life hot;
    pdk_tyre_life_init(&hot, &d, 300.0);
    pdk_tyre_work cool = still(20.0);
    cool.roll_speed_mps = 50.0;
    pdk_tyre_life_step(&hot, &d, &cool, 10.0);
    ck_assert(hot.surface_temp_c > 20.0 && hot.surface_temp_c < 300.0);
    ck_assert(hot.carcass_temp_c > 20.0 && hot.carcass_temp_c < 300.0);
    ck_assert(hot.gas_temp_c > 20.0 && hot.gas_temp_c <= 300.0);
    /* dt 0 changes nothing. */
    pdk_tyre_life before = hot;
    pdk_tyre_life_step(&hot, &d, &w, 0.0);
    ck_assert(memcmp(&before, &hot, sizeof hot) == 0);
}
END_TEST

/* ---- pressure ---- */

/* p_abs / p_abs,cold = T_gas / T_cold at constant volume: 2.2 bar gauge at 20
 * C is 2.86 bar at 80 C (2.0 bar gives 2.62). */
START_TEST(test_gas_law)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_effect e;
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert(rel_close(e.pressure_kpa, 220.0, 1e-14));
    const double temps[4] = {80.0, -20.0, 40.0, 120.0};
    for (int k = 0; k < 4; k++) {
        pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_TEMPERATURE, temps[k], 20.0);
        pdk_tyre_work w = still(temps[k]);
        for (int i = 0; i < 1200; i++) {
            pdk_tyre_life_step(&life, &d, &w, DT); /* equilibrium: nothing moves */
        }
        ck_assert_double_le(fabs(life.gas_temp_c - temps[k]), 1e-9);
        pdk_tyre_life_effect(&life, &d, R0, &e);
        ck_assert(rel_close((e.pressure_kpa + ATM_KPA) / (220.0 + ATM_KPA),
                            (life.gas_temp_c + KELVIN) / (20.0 + KELVIN), 1e-14));
    }
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_TEMPERATURE, 80.0, 20.0);
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert_double_le(fabs(e.pressure_kpa - 285.8), 0.1);
    pdk_tyre_life_def d2 = pdk_tyre_life_def_default(R0, 200.0);
    pdk_tyre_life_effect(&life, &d2, R0, &e);
    ck_assert_double_le(fabs(e.pressure_kpa - 261.7), 0.1);
    /* Half the air, half the gauge pressure. */
    life.air_share = 0.5;
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert_double_le(fabs(e.pressure_kpa - 0.5 * 285.8), 0.1);
}
END_TEST

/* ---- wear ---- */

/* Tread falls by k_w * sliding work, three times as fast above 120 C; the
 * temperature is held (no heating, air and road at the tyre's). */
START_TEST(test_wear)
{
    pdk_tyre_life_def d = road();
    d.heat_scale = 0.0;
    const double temps[2] = {100.0, 150.0};
    double lost[2];
    for (int k = 0; k < 2; k++) {
        pdk_tyre_life life;
        pdk_tyre_life_init(&life, &d, temps[k]);
        pdk_tyre_work w = still(temps[k]);
        w.slide_power_w = 10000.0;
        for (int i = 0; i < 1200; i++) {
            pdk_tyre_life_step(&life, &d, &w, DT);
        }
        ck_assert_double_le(fabs(life.surface_temp_c - temps[k]), 1e-9);
        lost[k] = d.tread_depth_m - life.tread_m;
    }
    /* 100 kJ of sliding work. */
    ck_assert(rel_close(lost[0], d.wear_m_per_j * 1.0e5, 1e-9));
    ck_assert(rel_close(lost[1], 3.0 * lost[0], 1e-9));
    /* 1 mm per 10 000 km of normal driving (7 J/m, tyre_life.c's
     * calibration): 1e7 m * 7 J/m of work wears 0.98 mm. */
    ck_assert_double_le(fabs(d.wear_m_per_j * 7.0e7 - 0.98e-3), 0.01e-3);
    /* Grip falls with wear: linear to worn_grip. */
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, d.optimal_temp_c);
    pdk_tyre_effect e_new, e_half;
    pdk_tyre_life_effect(&life, &d, R0, &e_new);
    life.tread_m = 0.5 * d.tread_depth_m;
    pdk_tyre_life_effect(&life, &d, R0, &e_half);
    ck_assert(rel_close(e_half.grip / e_new.grip, 0.5 * (1.0 + d.worn_grip), 1e-14));
    /* wear_scale 0 turns it off. */
    d.wear_scale = 0.0;
    pdk_tyre_life_init(&life, &d, 100.0);
    pdk_tyre_work w = still(100.0);
    w.slide_power_w = 1.0e5;
    pdk_tyre_life_step(&life, &d, &w, 1.0);
    ck_assert_double_eq(life.tread_m, d.tread_depth_m);
}
END_TEST

/* A worn-out tyre blows: FLAT at once, no air. */
START_TEST(test_worn_out_blows)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    life.tread_m = 1.0e-6;
    pdk_tyre_work w = still(20.0);
    w.slide_power_w = 5000.0;
    int steps = 0;
    while (life.condition == PDK_TYRE_INTACT && steps < 120 * 60) {
        pdk_tyre_life_step(&life, &d, &w, DT);
        steps++;
    }
    ck_assert_int_eq(life.condition, PDK_TYRE_FLAT);
    ck_assert_double_eq(life.tread_m, 0.0);
    ck_assert_double_eq(life.air_share, 0.0);
    /* 1 um at 5 kW and 1.4e-11 m/J: about 14 s. */
    ck_assert_double_le(fabs((double)steps * DT - 1.0e-6 / (d.wear_m_per_j * 5000.0)), 2.0 * DT);
    pdk_tyre_effect e;
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert_double_eq(e.pressure_kpa, 0.0);
    ck_assert_double_eq(e.radius_drop_m, d.flat_drop_m);
}
END_TEST

/* ---- damage ---- */

/* A puncture at 0.05 of the air per second: flat when a quarter is left,
 * after 0.75 / 0.05 = 15 s, to the tick; then on down to no air. */
START_TEST(test_puncture)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    ck_assert_ptr_null(pdk_tyre_action_problem(PDK_TYRE_PUNCTURE, 0.05));
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_PUNCTURE, 0.05, 20.0);
    pdk_tyre_work w = still(20.0);
    double t_flat = -1.0;
    double last_p = 1e9;
    for (int i = 1; i <= 120 * 30; i++) {
        pdk_tyre_life_step(&life, &d, &w, DT);
        pdk_tyre_effect e;
        pdk_tyre_life_effect(&life, &d, R0, &e);
        ck_assert_double_le(e.pressure_kpa, last_p);
        last_p = e.pressure_kpa;
        if (t_flat < 0.0 && life.condition == PDK_TYRE_FLAT) {
            t_flat = (double)i * DT;
            ck_assert_double_le(life.air_share, 0.25);
            ck_assert_double_gt(life.air_share, 0.25 - 0.05 * DT - 1e-12);
        } else if (t_flat < 0.0) {
            ck_assert_int_eq(life.condition, PDK_TYRE_INTACT);
        }
    }
    ck_assert_double_le(fabs(t_flat - 15.0), DT + 1e-9);
    ck_assert_double_eq(life.air_share, 0.0);
    ck_assert_double_eq(last_p, 0.0);
    /* A puncture on a rim does nothing. */
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, PDK_TYRE_RIM, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_PUNCTURE, 0.05, 20.0);
    ck_assert_double_eq(life.leak_per_s, 0.0);
}
END_TEST

/* Each condition: radius drop, grip and rolling drag as tyre_life.h gives
 * them. The tyre is at its optimal temperature, so the window gives 1, and
 * new. */
START_TEST(test_conditions)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_TEMPERATURE, d.optimal_temp_c, 20.0);
    pdk_tyre_effect e;
    pdk_tyre_life_effect(&life, &d, R0, &e);
    /* Intact at the optimum: the best pressure, so grip 1. */
    ck_assert(rel_close(e.grip, 1.0, 1e-12));
    ck_assert_double_eq(e.radius_drop_m, 0.0);
    double rr_hot = (0.005 + 0.01 / (e.pressure_kpa / 100.0)) / (0.005 + 0.01 / 2.2);
    ck_assert(rel_close(e.rolling_scale, rr_hot, 1e-12));
    ck_assert_double_lt(e.rolling_scale, 1.0); /* hot and harder than the cold setting */

    const struct {
        int cond;
        double grip, drop, rolling;
    } want[3] = {
        {PDK_TYRE_FLAT, 0.5, 0.25 * R0, 6.0},
        {PDK_TYRE_RIM, 0.3, R0 - 0.62 * R0, 10.0},
        {PDK_TYRE_DETACHED, 0.2, R0 - 0.45 * R0, 18.0},
    };
    double last_drop = 0.0;
    for (int k = 0; k < 3; k++) {
        pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, want[k].cond, 20.0);
        ck_assert_int_eq(life.condition, want[k].cond);
        pdk_tyre_life_effect(&life, &d, R0, &e);
        ck_assert(rel_close(e.grip, want[k].grip, 1e-12));
        ck_assert(rel_close(e.radius_drop_m, want[k].drop, 1e-12));
        ck_assert_double_eq(e.rolling_scale, want[k].rolling);
        ck_assert_double_eq(e.pressure_kpa, 0.0);
        ck_assert_double_gt(e.radius_drop_m, last_drop); /* flat < rim < hub */
        last_drop = e.radius_drop_m;
    }
    /* Back to intact: refilled. */
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, PDK_TYRE_INTACT, 20.0);
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert(rel_close(e.grip, 1.0, 1e-12));
    ck_assert_double_eq(life.air_share, 1.0);
    /* A flat tyre keeps the window: half of a cold tyre's window grip. */
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, PDK_TYRE_FLAT, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_TEMPERATURE, 20.0, 20.0);
    pdk_tyre_life_effect(&life, &d, R0, &e);
    double dw = (20.0 - d.optimal_temp_c) / d.window_c;
    ck_assert(rel_close(e.grip, 0.5 * (1.0 - 0.05 * dw * dw), 1e-12));
}
END_TEST

/* Grip window: 1 at the optimum, 1 - window_loss at its edges, floored;
 * the pressure term: 1 - slope |p / p_best - 1|. */
START_TEST(test_grip_window)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, d.optimal_temp_c);
    pdk_tyre_effect e;
    const double ts[2] = {d.optimal_temp_c - d.window_c, d.optimal_temp_c + d.window_c};
    for (int k = 0; k < 2; k++) {
        life.surface_temp_c = ts[k];
        pdk_tyre_life_effect(&life, &d, R0, &e);
        ck_assert(rel_close(e.grip, 1.0 - d.window_loss, 1e-12));
    }
    life.surface_temp_c = 500.0;
    pdk_tyre_life_effect(&life, &d, R0, &e);
    ck_assert(rel_close(e.grip, d.min_temp_grip, 1e-12));
    /* A cold new tyre at 20 C: the window and the pressure together. */
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_life_effect(&life, &d, R0, &e);
    double dw = (20.0 - d.optimal_temp_c) / d.window_c;
    double gp = 1.0 - d.pressure_grip_slope * fabs(1.0 / d.best_pressure_ratio - 1.0);
    ck_assert(rel_close(e.grip, (1.0 - 0.05 * dw * dw) * gp, 1e-12));
    ck_assert_double_eq(e.rolling_scale, 1.0); /* at its cold setting */
    /* A road tyre loses 5-10 % cold or hot (est.): 3.4 % at 20 C. */
    ck_assert(e.grip > 0.96 && e.grip < 0.97);
}
END_TEST

/* Running flat: RIM after 1.5 km on the ground (75 s at 20 m/s, to the
 * tick); airborne spinning does not count. */
START_TEST(test_flat_to_rim)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, PDK_TYRE_FLAT, 20.0);
    pdk_tyre_work air = still(20.0);
    air.roll_speed_mps = 20.0;
    air.contact = 0.0;
    for (int i = 0; i < 120 * 100; i++) {
        pdk_tyre_life_step(&life, &d, &air, DT);
    }
    ck_assert_int_eq(life.condition, PDK_TYRE_FLAT);
    ck_assert_double_eq(life.flat_run_m, 0.0);
    pdk_tyre_work w = air;
    w.contact = 1.0;
    w.load_n = 3000.0;
    double t_rim = -1.0;
    for (int i = 1; i <= 120 * 100 && t_rim < 0.0; i++) {
        pdk_tyre_life_step(&life, &d, &w, DT);
        if (life.condition == PDK_TYRE_RIM) {
            t_rim = (double)i * DT;
        }
    }
    ck_assert_double_le(fabs(t_rim - 75.0), DT + 1e-9);
    ck_assert_double_ge(life.flat_run_m, 1500.0);
}
END_TEST

START_TEST(test_replace_and_set)
{
    pdk_tyre_life_def d = road();
    pdk_tyre_life life;
    pdk_tyre_life_init(&life, &d, 20.0);
    life.tread_m = 0.001;
    life.surface_temp_c = 200.0;
    life.flat_run_m = 300.0;
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_PUNCTURE, 0.1, 20.0);
    ck_assert_double_eq(life.leak_per_s, 0.1);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_PUNCTURE, 0.0, 20.0); /* 0: the def's rate */
    ck_assert_double_eq(life.leak_per_s, d.leak_per_s);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_PUNCTURE, 0.1, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_CONDITION, PDK_TYRE_FLAT, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_GRIP_SCALE, 0.7, 20.0);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_REPLACE, 0.0, 15.0);
    pdk_tyre_life fresh;
    pdk_tyre_life_init(&fresh, &d, 15.0);
    fresh.grip_scale = 0.7; /* the corner's damage stays */
    ck_assert(memcmp(&life, &fresh, sizeof life) == 0);
    /* Tyre warmers: all three layers. */
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_TEMPERATURE, 90.0, 15.0);
    ck_assert(life.surface_temp_c == 90.0 && life.carcass_temp_c == 90.0 &&
              life.gas_temp_c == 90.0);
    /* The grip scale multiplies the grip. */
    pdk_tyre_effect e1, e2;
    pdk_tyre_life_effect(&life, &d, R0, &e1);
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_GRIP_SCALE, 0.35, 15.0);
    pdk_tyre_life_effect(&life, &d, R0, &e2);
    ck_assert(rel_close(e2.grip, 0.5 * e1.grip, 1e-15));
    ck_assert_double_eq(e2.rolling_scale, e1.rolling_scale);
    /* The power scale is the world's: the tyre is untouched. */
    pdk_tyre_life before = life;
    pdk_tyre_life_apply(&life, &d, PDK_TYRE_SET_POWER_SCALE, 0.5, 15.0);
    ck_assert(memcmp(&before, &life, sizeof life) == 0);
}
END_TEST

/* ---- checks ---- */

START_TEST(test_action_problems)
{
    const struct {
        int action;
        double value;
        const char *msg; /* NULL: accepted */
    } cases[] = {
        {PDK_TYRE_PUNCTURE, 0.01, NULL},
        {PDK_TYRE_PUNCTURE, 0.0, NULL}, /* the def's own leak rate */
        {PDK_TYRE_PUNCTURE, -0.1, "value must be a leak rate"},
        {PDK_TYRE_PUNCTURE, 1.5, "value must be a leak rate"},
        {PDK_TYRE_PUNCTURE, NAN, "value must be a leak rate"},
        {PDK_TYRE_SET_CONDITION, 3.0, NULL},
        {PDK_TYRE_SET_CONDITION, 0.0, NULL},
        {PDK_TYRE_SET_CONDITION, 4.0, "value must be a tyre condition 0..3"},
        {PDK_TYRE_SET_CONDITION, 1.5, "value must be a tyre condition 0..3"},
        {PDK_TYRE_SET_CONDITION, -1.0, "value must be a tyre condition 0..3"},
        {PDK_TYRE_SET_CONDITION, NAN, "value must be a tyre condition 0..3"},
        {PDK_TYRE_REPLACE, 0.0, NULL},
        {PDK_TYRE_REPLACE, NAN, NULL},
        {PDK_TYRE_SET_TEMPERATURE, 100.0, NULL},
        {PDK_TYRE_SET_TEMPERATURE, 260.0, "value must be a temperature within -50..250 C"},
        {PDK_TYRE_SET_TEMPERATURE, -60.0, "value must be a temperature within -50..250 C"},
        {PDK_TYRE_SET_TEMPERATURE, INFINITY, "value must be a temperature within -50..250 C"},
        {PDK_TYRE_SET_GRIP_SCALE, 2.0, NULL},
        {PDK_TYRE_SET_GRIP_SCALE, 2.5, "value must be a grip scale within 0..2"},
        {PDK_TYRE_SET_GRIP_SCALE, -0.1, "value must be a grip scale within 0..2"},
        {PDK_TYRE_SET_POWER_SCALE, 0.0, NULL},
        {PDK_TYRE_SET_POWER_SCALE, 1.2, "value must be a power scale within 0..1"},
        {PDK_TYRE_SET_POWER_SCALE, NAN, "value must be a power scale within 0..1"},
        {0, 0.0, "action must be a tyre action 1..6"},
        {7, 0.0, "action must be a tyre action 1..6"},
        {-3, 1.0, "action must be a tyre action 1..6"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = pdk_tyre_action_problem(cases[i].action, cases[i].value);
        if (cases[i].msg == NULL) {
            ck_assert_msg(m == NULL, "case %zu refused: %s", i, m);
        } else {
            ck_assert_msg(m != NULL && strncmp(m, cases[i].msg, strlen(cases[i].msg)) == 0,
                          "case %zu: \"%s\"", i, m ? m : "(null)");
        }
    }
}
END_TEST

typedef struct bad_field {
    size_t offset;
    double value;
    const char *field;
} bad_field;

#define BF(f, v)                                                                                   \
    {                                                                                              \
        offsetof(pdk_tyre_life_def, f), (v), "tyre.life." #f " "                                   \
    }

START_TEST(test_def_problems)
{
    const double radii[3] = {0.14, 0.31, 0.345};
    for (int k = 0; k < 3; k++) {
        pdk_tyre_life_def d = pdk_tyre_life_def_default(radii[k], 95.0 + 60.0 * (double)k);
        ck_assert_ptr_null(pdk_tyre_life_def_problem(&d));
    }
    ck_assert_str_eq(pdk_tyre_life_def_problem(NULL), "tyre.life is NULL");
    const bad_field cases[] = {
        BF(cold_pressure_kpa, 0.0),
        BF(cold_pressure_kpa, NAN),
        BF(cold_temp_c, 150.0),
        BF(optimal_temp_c, -100.0),
        BF(window_c, 0.0),
        BF(window_loss, 1.5),
        BF(min_temp_grip, -0.1),
        BF(best_pressure_ratio, 0.0),
        BF(pressure_grip_slope, -1.0),
        BF(surface_heat_capacity_jpk, 0.0),
        BF(carcass_heat_capacity_jpk, -5.0),
        BF(gas_heat_capacity_jpk, INFINITY),
        BF(slide_heat_share, 1.1),
        BF(surface_carcass_wpk, -1.0),
        BF(carcass_gas_wpk, NAN),
        BF(road_wpk, -1.0),
        BF(air_wpk, -1.0),
        BF(air_wpk_per_mps, -1.0),
        BF(hysteresis_coeff, 2.0),
        BF(heat_scale, -1.0),
        BF(tread_depth_m, 0.0),
        BF(wear_m_per_j, -1e-12),
        BF(wear_scale, NAN),
        BF(worn_grip, 1.2),
        BF(leak_per_s, -0.1),
        BF(flat_drop_m, -0.01),
        BF(rim_radius_m, 0.0),
        BF(hub_radius_m, 0.0),
        BF(hub_radius_m, 0.3), /* above the rim */
        BF(flat_to_rim_m, -1.0),
    };
    pdk_tyre_life_def ok = road();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_tyre_life_def d = ok;
        memcpy((char *)&d + cases[i].offset, &cases[i].value, sizeof(double));
        const char *m = pdk_tyre_life_def_problem(&d);
        ck_assert_msg(m != NULL, "case %zu (%s) accepted", i, cases[i].field);
        ck_assert_msg(strncmp(m, cases[i].field, strlen(cases[i].field)) == 0,
                      "case %zu: \"%s\" does not name %s", i, m, cases[i].field);
    }
}
END_TEST

/* The default's sizes: a car tyre's (tyre_life.c), scaled with the radius
 * squared. */
START_TEST(test_default_sizes)
{
    pdk_tyre_life_def d = road();
    ck_assert_double_eq(d.surface_heat_capacity_jpk, 1000.0);
    ck_assert_double_eq(d.carcass_heat_capacity_jpk, 15000.0);
    ck_assert_double_eq(d.gas_heat_capacity_jpk, 70.0);
    ck_assert_double_eq(d.optimal_temp_c, 60.0); /* a road tyre's */
    ck_assert_double_eq(d.window_c, 55.0);      /* the default's half width */
    ck_assert_double_eq(d.flat_to_rim_m, 1500.0);
    pdk_tyre_life_def kart = pdk_tyre_life_def_default(0.14, 100.0);
    ck_assert(kart.carcass_heat_capacity_jpk > 2000.0 && kart.carcass_heat_capacity_jpk < 4000.0);
    /* The gas follows the carcass within seconds; the carcass takes
     * minutes (at 30 m/s its conductance to the air alone gives tau). */
    ck_assert_double_lt(d.gas_heat_capacity_jpk / d.carcass_gas_wpk, 15.0);
    double g30 = d.air_wpk + d.air_wpk_per_mps * pow(30.0, 0.8);
    ck_assert_double_gt(d.carcass_heat_capacity_jpk / (g30 + d.surface_carcass_wpk), 120.0);
}
END_TEST

/* pdk_tyre_life_step4 is four pdk_tyre_life_step calls, bit for bit:
 * four tyres of two definitions, at speeds from standstill (and a
 * negative one, taken as 0) to 60 m/s, sliding, loaded and in contact by
 * turns, one of them punctured so that it goes flat on the way, for ten
 * minutes of 1/15 s steps. */
START_TEST(test_four_at_once)
{
    pdk_tyre_life_def front = road();
    pdk_tyre_life_def rear = pdk_tyre_life_def_default(0.33, 240.0);
    const pdk_tyre_life_def *defs[4] = {&front, &front, &rear, &rear};
    pdk_tyre_life one[4], four[4];
    for (int i = 0; i < 4; i++) {
        pdk_tyre_life_init(&one[i], defs[i], 15.0 + 5.0 * (double)i);
    }
    one[3].leak_per_s = 0.01;
    memcpy(four, one, sizeof one);
    const double dt = 8.0 / 120.0;
    int flat = 0;
    for (int k = 0; k < 15 * 600; k++) {
        pdk_tyre_work w[4];
        for (int i = 0; i < 4; i++) {
            const double t = (double)k * dt + (double)i;
            w[i] =
                (pdk_tyre_work){.slide_power_w = (k + i) % 5 == 0 ? 3000.0 * (1.0 + sin(t)) : 0.0,
                                .load_n = 3500.0 + 500.0 * cos(0.3 * t),
                                .roll_speed_mps = i == 1 ? -2.0 : 30.0 + 30.0 * sin(0.05 * t),
                                .contact = (k + i) % 7 == 0 ? 0.5 : 1.0,
                                .air_temp_c = 20.0,
                                .road_temp_c = 35.0};
            pdk_tyre_life_step(&one[i], defs[i], &w[i], dt);
        }
        pdk_tyre_life_step4(four, defs, w, dt);
        ck_assert_mem_eq(four, one, sizeof one);
        flat |= one[3].condition == PDK_TYRE_FLAT;
    }
    ck_assert(flat);
    ck_assert(one[0].surface_temp_c > 25.0);
    /* No time: nothing moves. */
    pdk_tyre_work w[4] = {still(20.0), still(20.0), still(20.0), still(20.0)};
    pdk_tyre_life_step4(four, defs, w, 0.0);
    ck_assert_mem_eq(four, one, sizeof one);
}
END_TEST

static Suite *tyre_life_suite(void)
{
    Suite *s = suite_create("tyre_life");
    TCase *heat = tcase_create("heat");
    tcase_add_test(heat, test_burnout);
    tcase_add_test(heat, test_carcass_minutes);
    tcase_add_test(heat, test_cooling_with_speed);
    tcase_add_test(heat, test_stability);
    tcase_add_test(heat, test_gas_law);
    tcase_add_test(heat, test_four_at_once);
    suite_add_tcase(s, heat);
    TCase *wear = tcase_create("wear and damage");
    tcase_add_test(wear, test_wear);
    tcase_add_test(wear, test_worn_out_blows);
    tcase_add_test(wear, test_puncture);
    tcase_add_test(wear, test_conditions);
    tcase_add_test(wear, test_grip_window);
    tcase_add_test(wear, test_flat_to_rim);
    tcase_add_test(wear, test_replace_and_set);
    suite_add_tcase(s, wear);
    TCase *checks = tcase_create("checks");
    tcase_add_test(checks, test_action_problems);
    tcase_add_test(checks, test_def_problems);
    tcase_add_test(checks, test_default_sizes);
    suite_add_tcase(s, checks);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tyre_life_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
