/* Unit tests for the engine as a torque source (server/sim/engine.h;
 * docs/powertrain.md): the full-load curve and its rev limit, the friction and
 * pumping torques the Polaris model quotes at idle, the full-load and motoring
 * ends of the torque law, the idle governor's balance and its hold of idle
 * speed, the exact lag of the request at any step, the pedal map and the
 * top-speed governor, an empty tank, the free engine speed, the Willans line,
 * and every check of a definition. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "def_problem_util.h"
#include "powertrain/engine.h"

#define PI 3.14159265358979323846
#define RADPS_PER_RPM (2.0 * PI / 60.0)
#define DT (1.0 / 120.0)

static pdk_engine_def prostar(void)
{
    pdk_engine_def d = pdk_engine_def_prostar999();
    ck_assert_ptr_null(pdk_engine_def_problem(&d));
    return d;
}

/* ---- torques ---- */

/* The curve at its points, linear between them, held at its ends and 0
 * from the rev limiter up. */
START_TEST(full_load_curve_and_rev_limit)
{
    const pdk_engine_def d = prostar();
    for (int i = 0; i < d.n_curve - 1; i++) {
        ck_assert_double_eq(pdk_engine_full_load_nm(&d, d.curve_rpm[i]), d.curve_nm[i]);
    }
    ck_assert_double_eq_tol(pdk_engine_full_load_nm(&d, 2500.0), 66.0, 1e-12);
    ck_assert_double_eq_tol(pdk_engine_full_load_nm(&d, 7250.0), 0.5 * (83.4 + 74.0), 1e-12);
    ck_assert_double_eq(pdk_engine_full_load_nm(&d, 800.0), 52.0);
    ck_assert_double_eq(pdk_engine_full_load_nm(&d, 7999.0) > 0.0, 1);
    ck_assert_double_eq(pdk_engine_full_load_nm(&d, 8000.0), 0.0);
    ck_assert_double_eq(pdk_engine_full_load_nm(&d, 9000.0), 0.0);
    ck_assert_double_eq(pdk_engine_full_load_nm(&d, NAN), 0.0);
}
END_TEST

/* One bar of mean effective pressure is V_d / (4 pi): 7.95 N m for 0.999 L,
 * and at idle the friction torque is 7.9 N m and the pumping torque 6.4, as
 * the Polaris model states; friction grows with speed as its quadratic. */
START_TEST(friction_and_pumping_from_mean_effective_pressures)
{
    const pdk_engine_def d = prostar();
    ck_assert_double_eq_tol(pdk_engine_nm_per_bar(&d), 7.95, 0.005);
    ck_assert_double_eq_tol(pdk_engine_friction_nm(&d, 1250.0), 7.9, 0.05);
    ck_assert_double_eq_tol(pdk_engine_pumping_nm(&d), 6.4, 0.05);
    const double per_bar = 1e5 * 0.999e-3 / (4.0 * PI);
    ck_assert_double_eq_tol(pdk_engine_friction_nm(&d, 6000.0),
                            (0.8 + 0.12 * 6.0 + 0.03 * 36.0) * per_bar, 1e-12);
    /* a negative pressure gives no torque, not a push */
    pdk_engine_def neg = d;
    neg.fmep_bar = -2.0;
    ck_assert_double_eq(pdk_engine_friction_nm(&neg, 1000.0), 0.0);
}
END_TEST

/* u = 1 gives the full-load curve, u = 0 the motoring curve (friction and
 * pumping, no fuel), and in between the law is linear in u; the rev
 * limiter cuts the fuel; an empty tank leaves the motoring curve whatever
 * the request. */
START_TEST(torque_law_ends_and_fuel_cut)
{
    const pdk_engine_def d = prostar();
    const double w = 4000.0 * RADPS_PER_RPM;
    pdk_engine_torque t;
    pdk_engine_torque_at(&d, 1.0, w, false, &t);
    ck_assert(t.fuelled);
    ck_assert_double_eq_tol(t.brake_nm, 76.0, 1e-12);
    ck_assert_double_eq(t.pumping_nm, 0.0);
    pdk_engine_torque_at(&d, 0.0, w, false, &t);
    ck_assert(!t.fuelled);
    const double motoring = -(pdk_engine_friction_nm(&d, 4000.0) + pdk_engine_pumping_nm(&d));
    ck_assert_double_eq_tol(t.brake_nm, motoring, 1e-12);
    pdk_engine_torque_at(&d, 0.5, w, false, &t);
    ck_assert_double_eq_tol(t.brake_nm, 0.5 * (76.0 + motoring), 1e-12);
    /* rev limiter */
    pdk_engine_torque_at(&d, 1.0, 8000.0 * RADPS_PER_RPM, false, &t);
    ck_assert(!t.fuelled);
    ck_assert_double_eq_tol(t.brake_nm, -pdk_engine_friction_nm(&d, 8000.0), 1e-12);
    /* empty tank */
    pdk_engine_torque_at(&d, 1.0, w, true, &t);
    ck_assert(!t.fuelled);
    ck_assert_double_eq_tol(t.brake_nm, -pdk_engine_friction_nm(&d, 4000.0), 1e-12);
    /* requests outside 0..1 are held to it */
    pdk_engine_torque at_two;
    pdk_engine_torque_at(&d, 2.0, w, false, &at_two);
    ck_assert_double_eq_tol(at_two.brake_nm, 76.0, 1e-12);
}
END_TEST

/* ---- governors and the request ---- */

/* At idle speed the idle governor's request makes the engine's torque
 * exactly what the accessories take: the free engine holds its speed. */
START_TEST(idle_request_balances_the_engine_at_idle)
{
    const pdk_engine_def d = prostar();
    const double w_idle = d.idle_rpm * RADPS_PER_RPM;
    const double u = pdk_engine_idle_request(&d, w_idle);
    ck_assert(u > 0.0 && u < 1.0);
    pdk_engine_torque t;
    pdk_engine_torque_at(&d, u, w_idle, false, &t);
    ck_assert_double_eq_tol(t.brake_nm, d.accessory_drag_nm, 1e-12);
    ck_assert_double_eq_tol(pdk_engine_free_speed(&d, w_idle, t.brake_nm, DT), w_idle, 1e-9);
    /* below idle it asks for more, above for less, within 0..1 */
    ck_assert(pdk_engine_idle_request(&d, 0.8 * w_idle) > u);
    ck_assert(pdk_engine_idle_request(&d, 1.2 * w_idle) < u);
    ck_assert_double_eq(pdk_engine_idle_request(&d, 0.0), 1.0);
    ck_assert_double_eq(pdk_engine_idle_request(&d, 3.0 * w_idle), 0.0);
}
END_TEST

/* A free engine (no clutch) released from 3000 rev/min and one started at
 * 600 rev/min both settle to idle within 0.2 % in 10 s through the lagged
 * request: the first dips less than 5 % below idle on the way (1.7 %), the
 * second overshoots less than 5 % (2.5 %) and does not stall first. */
START_TEST(idle_governor_holds_a_free_engine)
{
    const pdk_engine_def d = prostar();
    const double w_idle = d.idle_rpm * RADPS_PER_RPM;
    const double starts[2] = {3000.0 * RADPS_PER_RPM, 600.0 * RADPS_PER_RPM};
    for (int s = 0; s < 2; s++) {
        double w = starts[s], u = 0.0, lo = w, hi = w;
        for (int k = 0; k < 10 * 120; k++) {
            double target = pdk_engine_target_request(&d, 0.0, w, 0.0, false);
            u = pdk_engine_lag_request(&d, u, target, DT);
            pdk_engine_torque t;
            pdk_engine_torque_at(&d, u, w, false, &t);
            w = pdk_engine_free_speed(&d, w, t.brake_nm, DT);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
        ck_assert_msg(fabs(w - w_idle) < 0.002 * w_idle, "start %g: ends at %g rpm", starts[s],
                      w / RADPS_PER_RPM);
        if (s == 0) {
            ck_assert_msg(lo > 0.95 * w_idle, "undershoots to %g rpm", lo / RADPS_PER_RPM);
        } else {
            ck_assert_msg(hi < 1.05 * w_idle, "overshoots to %g rpm", hi / RADPS_PER_RPM);
            ck_assert_msg(lo > 0.9 * starts[1], "stalls toward %g rpm", lo / RADPS_PER_RPM);
        }
    }
}
END_TEST

/* The lag is the exact first-order response: after tau the request has
 * gone 1 - 1/e of the way, and the same whether it took 12 steps or 120. */
START_TEST(request_lag_is_exact_at_any_step)
{
    const pdk_engine_def d = prostar();
    const int steps[3] = {12, 120, 1200};
    for (int i = 0; i < 3; i++) {
        double u = 0.0;
        for (int k = 0; k < steps[i]; k++) {
            u = pdk_engine_lag_request(&d, u, 1.0, d.torque_lag_s / steps[i]);
        }
        ck_assert_double_eq_tol(u, 1.0 - exp(-1.0), 1e-12);
    }
    /* a lag of 0 is taken as 0.1 ms: one game step reaches the target */
    pdk_engine_def quick = d;
    quick.torque_lag_s = 0.0;
    ck_assert_double_eq_tol(pdk_engine_lag_request(&quick, 0.0, 0.7, DT), 0.7, 1e-12);
}
END_TEST

/* The pedal map p^max(0.1, gamma), the top-speed governor's 0.5 m/s fade
 * (none when max_speed_mps is 0), the idle request as a floor, an empty
 * tank's 0. */
START_TEST(pedal_map_governor_and_empty_tank)
{
    const pdk_engine_def d = prostar();
    const double w = 4000.0 * RADPS_PER_RPM; /* well above idle: no idle request */
    ck_assert_double_eq(pdk_engine_idle_request(&d, w), 0.0);
    ck_assert_double_eq_tol(pdk_engine_target_request(&d, 0.5, w, 10.0, false), pow(0.5, 0.85),
                            1e-15);
    ck_assert_double_eq(pdk_engine_target_request(&d, 1.0, w, 10.0, false), 1.0);
    ck_assert_double_eq(pdk_engine_target_request(&d, 1.5, w, 10.0, false), 1.0);
    ck_assert_double_eq(pdk_engine_target_request(&d, -0.5, w, 10.0, false), 0.0);
    pdk_engine_def flat = d;
    flat.pedal_exponent = 0.0; /* taken as 0.1 */
    ck_assert_double_eq_tol(pdk_engine_target_request(&flat, 0.5, w, 10.0, false), pow(0.5, 0.1),
                            1e-15);
    /* governor */
    ck_assert_double_eq(pdk_engine_governor(&d, 27.2), 1.0);
    ck_assert_double_eq_tol(pdk_engine_governor(&d, 27.45), 0.5, 1e-12);
    ck_assert_double_eq(pdk_engine_governor(&d, 27.7), 0.0);
    ck_assert_double_eq(pdk_engine_governor(&d, 40.0), 0.0);
    ck_assert_double_eq_tol(pdk_engine_target_request(&d, 1.0, w, 27.45, false), 0.5, 1e-12);
    pdk_engine_def free = d;
    free.max_speed_mps = 0.0;
    ck_assert_double_eq(pdk_engine_governor(&free, 60.0), 1.0);
    /* the idle request is a floor under the pedal */
    const double w_low = 900.0 * RADPS_PER_RPM;
    ck_assert_double_eq(pdk_engine_target_request(&d, 0.0, w_low, 0.0, false),
                        pdk_engine_idle_request(&d, w_low));
    /* empty tank */
    ck_assert_double_eq(pdk_engine_target_request(&d, 1.0, w_low, 0.0, true), 0.0);
}
END_TEST

/* The free speed is omega + dt (T_e - T_acc) / J_e, and never below 0. */
START_TEST(free_speed)
{
    const pdk_engine_def d = prostar();
    ck_assert_double_eq_tol(pdk_engine_free_speed(&d, 300.0, 51.5, 0.01), 300.0 + 0.01 * 50.0 / 0.1,
                            1e-12);
    ck_assert_double_eq(pdk_engine_free_speed(&d, 1.0, -100.0, 0.01), 0.0);
}
END_TEST

/* The Willans line: at full load the fuel power is (brake + friction)
 * power over the indicated efficiency, so brake efficiency is below it;
 * motoring, stalled or unfuelled, no fuel. At 5750 rev/min full load the
 * brake efficiency is 0.34 * 84.1 / (84.1 + T_fr). */
START_TEST(willans_fuel_power)
{
    const pdk_engine_def d = prostar();
    const double w = 5750.0 * RADPS_PER_RPM;
    pdk_engine_torque t;
    pdk_engine_torque_at(&d, 1.0, w, false, &t);
    const double p_fuel = pdk_engine_fuel_power_w(&d, &t, w);
    const double fr = pdk_engine_friction_nm(&d, 5750.0);
    ck_assert_double_eq_tol(p_fuel, (84.1 + fr) * w / 0.34, 1e-9 * p_fuel);
    ck_assert_double_eq_tol(t.brake_nm * w / p_fuel, 0.34 * 84.1 / (84.1 + fr), 1e-12);
    ck_assert(t.brake_nm * w / p_fuel < 0.34);
    /* part load: the pumping loss is burnt too */
    pdk_engine_torque_at(&d, 0.3, w, false, &t);
    ck_assert_double_eq_tol(pdk_engine_fuel_power_w(&d, &t, w),
                            (t.brake_nm + t.friction_nm + t.pumping_nm) * w / 0.34, 1e-6);
    pdk_engine_torque_at(&d, 0.0, w, false, &t);
    ck_assert_double_eq(pdk_engine_fuel_power_w(&d, &t, w), 0.0);
    pdk_engine_torque_at(&d, 1.0, w, false, &t);
    ck_assert_double_eq(pdk_engine_fuel_power_w(&d, &t, 0.5), 0.0);
    /* the efficiency is held to 0.05..0.7 */
    pdk_engine_def odd = d;
    odd.indicated_efficiency = 0.9;
    ck_assert_double_eq_tol(pdk_engine_fuel_power_w(&odd, &t, w), (84.1 + fr) * w / 0.7,
                            1e-9 * p_fuel);
}
END_TEST

/* ---- definitions ---- */

static const char *problem(const void *def)
{
    return pdk_engine_def_problem(def);
}

/* Every field out of its range is refused with a message naming it: case
 * k of spoil breaks one field, and fields[k] is what the message names. */
static const char *const fields[] = {
    "engine.idle_rpm",          "engine.idle_rpm",          "engine.max_rpm",
    "engine.max_rpm",           "engine.torque_curve must", "engine.torque_curve must",
    "engine.torque_curve_rpm",  "engine.torque_curve_nm",   "engine.inertia_kg_m2",
    "engine.accessory_drag_nm", "engine.displacement_l",    "engine.indicated_efficiency",
    "engine.fmep_bar",          "engine.pumping_bar",       "engine.torque_lag_s",
    "engine.idle_gain",         "engine.pedal_exponent",    "engine.max_speed_mps",
};

static void spoil(void *def, int k)
{
    pdk_engine_def *e = def;
    switch (k) {
    case 0:
        e->idle_rpm = 50.0;
        break;
    case 1:
        e->idle_rpm = NAN;
        break;
    case 2:
        e->max_rpm = 1000.0;
        break;
    case 3:
        e->max_rpm = 30000.0;
        break;
    case 4:
        e->n_curve = 1;
        break;
    case 5:
        e->n_curve = 17;
        break;
    case 6:
        e->curve_rpm[3] = e->curve_rpm[2];
        break;
    case 7:
        e->curve_nm[2] = -1.0;
        break;
    case 8:
        e->inertia_kgm2 = 0.0;
        break;
    case 9:
        e->accessory_drag_nm = -1.0;
        break;
    case 10:
        e->displacement_l = 0.0;
        break;
    case 11:
        e->indicated_efficiency = 0.9;
        break;
    case 12:
        e->fmep_bar_per_krpm2 = 20.0;
        break;
    case 13:
        e->pumping_bar = -0.1;
        break;
    case 14:
        e->torque_lag_s = -1.0;
        break;
    case 15:
        e->idle_gain = INFINITY;
        break;
    case 16:
        e->pedal_exponent = -1.0;
        break;
    default:
        e->max_speed_mps = -1.0;
        break;
    }
}

START_TEST(definition_problems_name_the_field)
{
    const pdk_engine_def good = prostar();
    assert_problems_name_fields(&good, sizeof good, spoil, problem, fields,
                                (int)(sizeof fields / sizeof fields[0]));
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tq = tcase_create("torques");
    tcase_add_test(tq, full_load_curve_and_rev_limit);
    tcase_add_test(tq, friction_and_pumping_from_mean_effective_pressures);
    tcase_add_test(tq, torque_law_ends_and_fuel_cut);
    tcase_add_test(tq, free_speed);
    tcase_add_test(tq, willans_fuel_power);
    suite_add_tcase(s, tq);
    TCase *gv = tcase_create("governors");
    tcase_add_test(gv, idle_request_balances_the_engine_at_idle);
    tcase_add_test(gv, idle_governor_holds_a_free_engine);
    tcase_add_test(gv, request_lag_is_exact_at_any_step);
    tcase_add_test(gv, pedal_map_governor_and_empty_tank);
    suite_add_tcase(s, gv);
    TCase *df = tcase_create("definitions");
    tcase_add_test(df, definition_problems_name_the_field);
    suite_add_tcase(s, df);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
