/* Unit tests for the UTV's gear lever (server/sim/utv_gear.h;
 * docs/powertrain.md): the ratios and ring ratios of the Polaris model's
 * table, a change below 0.3 m/s lasting exactly one second in neutral at 60,
 * 120 and 240 Hz, the kit's reject codes (vehicle speed, shift in progress,
 * unsupported), a request for the engaged position or for none changing
 * nothing, and every check of a definition. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "def_problem_util.h"
#include "powertrain/utv_gear.h"

static pdk_utv_gearbox_def polaris(void)
{
    pdk_utv_gearbox_def d = pdk_utv_gearbox_def_polaris();
    ck_assert_ptr_null(pdk_utv_gearbox_def_problem(&d));
    return d;
}

/* The Polaris model's table: direction, rear reduction, front reduction and K
 * to its three decimals; P and N take L's K and drive nothing. */
START_TEST(ratios_match_the_seed_table)
{
    const pdk_utv_gearbox_def d = polaris();
    const struct {
        pdk_utv_gear g;
        int dir;
        double rear, front, ring;
    } want[] = {
        {PDK_UTV_GEAR_PARK, 0, 0.0, 0.0, 0.925},
        {PDK_UTV_GEAR_REVERSE, -1, 27.39, 9.16 * 3.23, 0.926},
        {PDK_UTV_GEAR_NEUTRAL, 0, 0.0, 0.0, 0.925},
        {PDK_UTV_GEAR_HIGH, 1, 13.01, 4.35 * 3.23, 0.926},
        {PDK_UTV_GEAR_LOW, 1, 28.84, 9.65 * 3.23, 0.925},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pdk_utv_ratios r;
        pdk_utv_gear_ratios(&d, want[i].g, &r);
        ck_assert_int_eq(r.direction, want[i].dir);
        ck_assert_double_eq_tol(r.rear, want[i].rear, 1e-12);
        ck_assert_double_eq_tol(r.front, want[i].front, 1e-12);
        ck_assert_double_eq_tol(r.ring, want[i].ring, 0.0005);
        if (r.front > 0.0) {
            ck_assert_double_eq_tol(r.ring, r.rear / r.front, 1e-15);
        }
    }
}
END_TEST

/* Below 0.3 m/s a change starts at once, the transmission is in neutral
 * for exactly one second and then in the new position, at any tick
 * rate. */
START_TEST(a_change_takes_one_second_in_neutral)
{
    const pdk_utv_gearbox_def d = polaris();
    const int rates[3] = {60, 120, 240};
    for (int i = 0; i < 3; i++) {
        pdk_utv_lever l = pdk_utv_lever_in(PDK_UTV_GEAR_PARK);
        ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_HIGH, 0.29), 0);
        ck_assert_int_eq(pdk_utv_lever_gear(&l), PDK_UTV_GEAR_NEUTRAL);
        const double dt = 1.0 / rates[i];
        int ticks = 0;
        while (pdk_utv_lever_gear(&l) == PDK_UTV_GEAR_NEUTRAL && ticks < 10 * rates[i]) {
            pdk_utv_lever_step(&l, dt);
            ticks++;
        }
        ck_assert_int_eq(ticks, rates[i]);
        ck_assert_int_eq(pdk_utv_lever_gear(&l), PDK_UTV_GEAR_HIGH);
        ck_assert_int_eq(l.engaged, PDK_UTV_GEAR_HIGH);
    }
    /* moving backward slowly counts the same */
    pdk_utv_lever l = pdk_utv_lever_in(PDK_UTV_GEAR_REVERSE);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_LOW, -0.2), 0);
    /* a shift time of 0 engages at once */
    pdk_utv_gearbox_def quick = d;
    quick.shift_time_s = 0.0;
    l = pdk_utv_lever_in(PDK_UTV_GEAR_NEUTRAL);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &quick, PDK_UTV_GEAR_LOW, 0.0), 0);
    ck_assert_int_eq(pdk_utv_lever_gear(&l), PDK_UTV_GEAR_LOW);
}
END_TEST

/* The refusals, each leaving the lever as it was: VEHICLE_SPEED at or
 * above 0.3 m/s either way, SHIFT_IN_PROGRESS for another position during
 * a change (its own target is no refusal), UNSUPPORTED for the kit's
 * values the UTV lacks (MANUAL 6, SPORT 7, CALIBRATE 15) and for nonsense;
 * NONE and the engaged position ask for nothing. */
START_TEST(refusals_carry_the_kits_codes)
{
    const pdk_utv_gearbox_def d = polaris();
    pdk_utv_lever l = pdk_utv_lever_in(PDK_UTV_GEAR_HIGH);
    const pdk_utv_lever before = l;
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_REVERSE, 0.3),
                     PDK_GEAR_REJECT_VEHICLE_SPEED);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_PARK, -5.0),
                     PDK_GEAR_REJECT_VEHICLE_SPEED);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_PARK, NAN),
                     PDK_GEAR_REJECT_VEHICLE_SPEED);
    const int unsupported[5] = {6, 7, 15, -1, 99};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(pdk_utv_lever_request(&l, &d, unsupported[i], 0.0),
                         PDK_GEAR_REJECT_UNSUPPORTED);
    }
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_NONE, 10.0), 0);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_HIGH, 10.0), 0);
    ck_assert(memcmp(&l, &before, sizeof l) == 0);
    /* during a change */
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_NEUTRAL, 0.0), 0);
    pdk_utv_lever_step(&l, 0.5);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_PARK, 0.0),
                     PDK_GEAR_REJECT_SHIFT_IN_PROGRESS);
    ck_assert_int_eq(pdk_utv_lever_request(&l, &d, PDK_UTV_GEAR_NEUTRAL, 0.0), 0);
    ck_assert_double_eq_tol(l.shift_left_s, 0.5, 1e-15); /* not restarted */
}
END_TEST

static const char *const fields[] = {"gearbox.rear_low_ratio",    "gearbox.front_low_ratio",
                                     "gearbox.front_drive_ratio", "gearbox.park_hold_nm",
                                     "gearbox.shift_below_mps",   "gearbox.shift_time_s"};

static void spoil(void *def, int k)
{
    pdk_utv_gearbox_def *g = def;
    switch (k) {
    case 0:
        g->rear_high = 0.5;
        break;
    case 1:
        g->front_reverse = NAN;
        break;
    case 2:
        g->front_drive = 0.0;
        break;
    case 3:
        g->park_hold_nm = -1.0;
        break;
    case 4:
        g->shift_below_mps = -0.1;
        break;
    default:
        g->shift_time_s = 11.0;
        break;
    }
}

static const char *problem(const void *def)
{
    return pdk_utv_gearbox_def_problem(def);
}

/* Every field out of its range is refused, the message naming it. */
START_TEST(definition_problems_name_the_field)
{
    const pdk_utv_gearbox_def good = polaris();
    assert_problems_name_fields(&good, sizeof good, spoil, problem, fields,
                                (int)(sizeof fields / sizeof fields[0]));
}
END_TEST

static Suite *utv_gear_suite(void)
{
    Suite *s = suite_create("utv_gear");
    TCase *tc = tcase_create("gear");
    tcase_add_test(tc, ratios_match_the_seed_table);
    tcase_add_test(tc, a_change_takes_one_second_in_neutral);
    tcase_add_test(tc, refusals_carry_the_kits_codes);
    tcase_add_test(tc, definition_problems_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(utv_gear_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
