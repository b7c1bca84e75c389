/* Unit tests for the UTV's CVT and clutches (server/sim/cvt.h;
 * docs/powertrain.md): the centrifugal clutch's square law between its
 * engagement speeds, the EBS's capacity from idle, the two directions'
 * capacities and none out of gear, the shift speed's law in the clutch torque,
 * the target ratio that holds the engine at the shift speed within the belt's
 * range, the low ratio while the belt does not grip, the exact lag, and every
 * check of a definition. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "def_problem_util.h"
#include "powertrain/cvt.h"

#define PI 3.14159265358979323846
#define RADPS_PER_RPM (2.0 * PI / 60.0)
#define IDLE_RPM 1250.0
#define PEAK_NM 84.1

static pdk_cvt_def polaris(void)
{
    pdk_cvt_def d = pdk_cvt_def_polaris();
    ck_assert_ptr_null(pdk_cvt_def_problem(&d));
    return d;
}

/* C grows with the square of the free speed: 0 up to 1600 rev/min, a
 * quarter-way in w^2 at sqrt(1600^2 + (2600^2 - 1600^2) / 4), full from
 * 2600; the EBS rises linearly from idle to the engagement speed. */
START_TEST(clutch_and_ebs_capacities)
{
    const pdk_cvt_def d = polaris();
    pdk_cvt_capacity c;
    pdk_cvt_capacities(&d, IDLE_RPM, 1500.0 * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq(c.centrifugal_nm, 0.0);
    const double quarter = sqrt(1600.0 * 1600.0 + (2600.0 * 2600.0 - 1600.0 * 1600.0) / 4.0);
    pdk_cvt_capacities(&d, IDLE_RPM, quarter * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq_tol(c.centrifugal_nm, 150.0 / 4.0, 1e-9);
    pdk_cvt_capacities(&d, IDLE_RPM, 2600.0 * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq_tol(c.centrifugal_nm, 150.0, 1e-9);
    pdk_cvt_capacities(&d, IDLE_RPM, 5000.0 * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq(c.centrifugal_nm, 150.0);
    ck_assert_double_eq(c.fwd_nm, 150.0);
    ck_assert_double_eq(c.rev_nm, 150.0);
    /* EBS: 0 at idle, half-way at the middle of idle..engage, full there */
    pdk_cvt_capacities(&d, IDLE_RPM, IDLE_RPM * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq(c.ebs_nm, 0.0);
    pdk_cvt_capacities(&d, IDLE_RPM, 0.5 * (IDLE_RPM + 1600.0) * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq_tol(c.ebs_nm, 30.0, 1e-9);
    ck_assert_double_eq(c.fwd_nm, 0.0);            /* the centrifugal clutch is still open */
    ck_assert_double_eq_tol(c.rev_nm, 30.0, 1e-9); /* the EBS brakes */
    pdk_cvt_capacities(&d, IDLE_RPM, 1600.0 * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq_tol(c.ebs_nm, 60.0, 1e-9);
    /* EBS off */
    pdk_cvt_def off = d;
    off.ebs = false;
    pdk_cvt_capacities(&off, IDLE_RPM, 1500.0 * RADPS_PER_RPM, true, &c);
    ck_assert_double_eq(c.ebs_nm, 0.0);
    ck_assert_double_eq(c.rev_nm, 0.0);
    /* park and neutral */
    pdk_cvt_capacities(&d, IDLE_RPM, 5000.0 * RADPS_PER_RPM, false, &c);
    ck_assert_double_eq(c.fwd_nm, 0.0);
    ck_assert_double_eq(c.rev_nm, 0.0);
    ck_assert_double_eq(c.centrifugal_nm, 150.0);
}
END_TEST

/* The centrifugal law taken where a slipping substep ends: the capacity
 * C(w) at the w with w = w_free - (h / J) C(w) driving and w = w_free +
 * (h / J) C(w) driven, on each piece of the law; none below the
 * engagement speed, the whole capacity once the end is past the full one. */
static double square_law_nm(double w, double w_eng, double w_full, double cap_nm)
{
    const double s = (w * w - w_eng * w_eng) / (w_full * w_full - w_eng * w_eng);
    return cap_nm * (s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s));
}

START_TEST(centrifugal_capacities_at_the_slip_end_speed)
{
    const double w_eng = 4000.0 * RADPS_PER_RPM, w_full = 6000.0 * RADPS_PER_RPM;
    const double cap = 40.0, h_per_j = (1.0 / 240.0) / 0.003;
    /* below the engagement speed: none either way */
    pdk_centrifugal_capacity c =
        pdk_centrifugal_capacities(cap, w_eng, w_full, 3000.0 * RADPS_PER_RPM, h_per_j);
    ck_assert_double_eq(c.fwd_nm, 0.0);
    ck_assert_double_eq(c.rev_nm, 0.0);
    /* on the span: each end speed satisfies its equation */
    const double frees_rpm[] = {4001.0, 4500.0, 5200.0, 5900.0, 6400.0};
    for (size_t i = 0; i < sizeof frees_rpm / sizeof frees_rpm[0]; i++) {
        const double wf = frees_rpm[i] * RADPS_PER_RPM;
        c = pdk_centrifugal_capacities(cap, w_eng, w_full, wf, h_per_j);
        const double w_fwd = wf - h_per_j * c.fwd_nm;
        const double w_rev = wf + h_per_j * c.rev_nm;
        ck_assert_double_eq_tol(c.fwd_nm, square_law_nm(w_fwd, w_eng, w_full, cap), 1e-9);
        ck_assert_double_eq_tol(c.rev_nm, square_law_nm(w_rev, w_eng, w_full, cap), 1e-9);
        /* driving ends below the free speed, so it carries less than the
         * free speed's capacity; driven, more */
        ck_assert_double_le(c.fwd_nm, square_law_nm(wf, w_eng, w_full, cap));
        ck_assert_double_ge(c.rev_nm, square_law_nm(wf, w_eng, w_full, cap));
    }
    /* far past the full speed: the whole capacity both ways */
    c = pdk_centrifugal_capacities(cap, w_eng, w_full, 9000.0 * RADPS_PER_RPM, h_per_j);
    ck_assert_double_eq(c.fwd_nm, cap);
    ck_assert_double_eq(c.rev_nm, cap);
    /* a vanishing substep gives the free speed's law */
    c = pdk_centrifugal_capacities(cap, w_eng, w_full, 5000.0 * RADPS_PER_RPM, 1e-12);
    ck_assert_double_eq_tol(c.fwd_nm, square_law_nm(5000.0 * RADPS_PER_RPM, w_eng, w_full, cap),
                            1e-9);
    ck_assert_double_eq_tol(c.rev_nm, square_law_nm(5000.0 * RADPS_PER_RPM, w_eng, w_full, cap),
                            1e-9);
}
END_TEST

/* n_s = sqrt(n_light^2 + (n_full^2 - n_light^2) sigma): 3000 rev/min with
 * no torque (or a braking one), 6800 at the peak torque and above, the
 * root mean square of the two at half of it. */
START_TEST(shift_speed_follows_the_clutch_torque)
{
    const pdk_cvt_def d = polaris();
    ck_assert_double_eq(pdk_cvt_shift_rpm(&d, 0.0, PEAK_NM), 3000.0);
    ck_assert_double_eq(pdk_cvt_shift_rpm(&d, -40.0, PEAK_NM), 3000.0);
    ck_assert_double_eq_tol(pdk_cvt_shift_rpm(&d, PEAK_NM, PEAK_NM), 6800.0, 1e-9);
    ck_assert_double_eq_tol(pdk_cvt_shift_rpm(&d, 300.0, PEAK_NM), 6800.0, 1e-9);
    ck_assert_double_eq_tol(pdk_cvt_shift_rpm(&d, 0.5 * PEAK_NM, PEAK_NM),
                            sqrt(0.5 * (3000.0 * 3000.0 + 6800.0 * 6800.0)), 1e-9);
    ck_assert_double_eq(pdk_cvt_shift_rpm(&d, 50.0, 0.0), 3000.0);
}
END_TEST

/* While the belt grips, the target ratio puts the engine at the shift
 * speed (engine speed = ratio x secondary speed), within the belt's range;
 * the low ratio when it does not grip (out of gear, clutch open and no
 * EBS braking) or the secondary stands still. */
START_TEST(target_ratio_holds_the_shift_speed)
{
    const pdk_cvt_def d = polaris();
    pdk_cvt_capacity c;
    pdk_cvt_capacities(&d, IDLE_RPM, 4000.0 * RADPS_PER_RPM, true, &c);
    const double n_s = 4500.0;
    const double w_s = 2000.0 * RADPS_PER_RPM;
    const double r = pdk_cvt_target_ratio(&d, &c, true, 20.0, n_s, w_s);
    ck_assert_double_eq_tol(r * w_s, n_s * RADPS_PER_RPM, 1e-9);
    /* beyond the range: held at its ends */
    ck_assert_double_eq(pdk_cvt_target_ratio(&d, &c, true, 20.0, n_s, 100.0 * RADPS_PER_RPM), 3.2);
    ck_assert_double_eq(pdk_cvt_target_ratio(&d, &c, true, 20.0, n_s, 9000.0 * RADPS_PER_RPM),
                        0.72);
    /* no grip */
    ck_assert_double_eq(pdk_cvt_target_ratio(&d, &c, false, 20.0, n_s, w_s), 3.2);
    ck_assert_double_eq(pdk_cvt_target_ratio(&d, &c, true, 20.0, n_s, 0.0), 3.2);
    pdk_cvt_capacity open;
    pdk_cvt_capacities(&d, IDLE_RPM, 1500.0 * RADPS_PER_RPM, true, &open);
    ck_assert(open.centrifugal_nm == 0.0 && open.ebs_nm > 0.0);
    ck_assert_double_eq(pdk_cvt_target_ratio(&d, &open, true, 5.0, n_s, w_s), 3.2);
    /* ... but the EBS grips while the wheels drive the engine */
    ck_assert_double_eq_tol(pdk_cvt_target_ratio(&d, &open, true, -5.0, n_s, w_s) * w_s,
                            n_s * RADPS_PER_RPM, 1e-9);
}
END_TEST

/* The exact first-order lag: 1 - 1/e of the way after tau at any step. */
START_TEST(ratio_lag_is_exact)
{
    const pdk_cvt_def d = polaris();
    const int steps[3] = {12, 120, 1200};
    for (int i = 0; i < 3; i++) {
        double r = 3.2;
        for (int k = 0; k < steps[i]; k++) {
            r = pdk_cvt_lag_ratio(&d, r, 1.0, d.shift_tau_s / steps[i]);
        }
        ck_assert_double_eq_tol(r, 1.0 + 2.2 * exp(-1.0), 1e-12);
    }
}
END_TEST

static const char *const fields[] = {
    "cvt.high_ratio",
    "cvt.low_ratio",
    "cvt.low_ratio",
    "cvt.engage_rpm",
    "cvt.full_engage_rpm",
    "cvt.clutch_capacity_nm",
    "cvt.ebs_capacity_nm",
    "cvt.shift_rpm_light",
    "cvt.shift_rpm_full",
    "cvt.shift_tau_s",
    "cvt.belt_efficiency",
    "cvt.gear_efficiency",
    "cvt.secondary_inertia_kg_m2",
};

static void spoil(void *def, int k)
{
    pdk_cvt_def *c = def;
    switch (k) {
    case 0:
        c->high_ratio = 0.0;
        break;
    case 1:
        c->low_ratio = 20.0;
        break;
    case 2:
        c->low_ratio = 0.5;
        break; /* below high_ratio */
    case 3:
        c->engage_rpm = -1.0;
        break;
    case 4:
        c->full_engage_rpm = c->engage_rpm;
        break;
    case 5:
        c->clutch_capacity_nm = NAN;
        break;
    case 6:
        c->ebs_capacity_nm = -1.0;
        break;
    case 7:
        c->shift_rpm_light = 50.0;
        break;
    case 8:
        c->shift_rpm_full = 2000.0;
        break; /* below shift_rpm_light */
    case 9:
        c->shift_tau_s = -0.1;
        break;
    case 10:
        c->belt_efficiency = 1.5;
        break;
    case 11:
        c->gear_efficiency = 0.0;
        break;
    default:
        c->secondary_inertia_kgm2 = -1.0;
        break;
    }
}

/* A reset at rest: the low ratio and idle. A moving start: the belt grips
 * at the light-load shift speed, 3000 rev/min, while the ratio allows it;
 * at a crawl the low ratio and idle at least; fast, the overdrive and the
 * engine above the shift speed; backward the same as forward; in neutral
 * (no reduction) as at rest. */
START_TEST(reset_and_moving_start)
{
    const pdk_cvt_def d = polaris();
    const double rt = 0.3429, ir = 28.84; /* the tyres and L */
    double r, n;
    pdk_cvt_reset(&d, IDLE_RPM, 0.0, rt, ir, &r, &n);
    ck_assert_double_eq(r, 3.2);
    ck_assert_double_eq(n, IDLE_RPM);
    pdk_cvt_reset(&d, IDLE_RPM, 5.0, rt, ir, &r, &n);
    const double ws = 5.0 / rt * ir;
    ck_assert(r > 0.72 && r < 3.2);
    ck_assert_double_eq_tol(n, 3000.0, 1e-9);
    ck_assert_double_eq_tol(r * ws / RADPS_PER_RPM, 3000.0, 1e-9);
    double rb, nb;
    pdk_cvt_reset(&d, IDLE_RPM, -5.0, rt, ir, &rb, &nb);
    ck_assert_double_eq(rb, r);
    ck_assert_double_eq(nb, n);
    pdk_cvt_reset(&d, IDLE_RPM, 0.2, rt, ir, &r, &n);
    ck_assert_double_eq(r, 3.2);
    ck_assert(n >= IDLE_RPM);
    pdk_cvt_reset(&d, IDLE_RPM, 30.0, rt, ir, &r, &n);
    ck_assert_double_eq(r, 0.72);
    ck_assert_double_eq_tol(n, 0.72 * (30.0 / rt * ir) / RADPS_PER_RPM, 1e-9);
    ck_assert(n > 3000.0);
    pdk_cvt_reset(&d, IDLE_RPM, 5.0, rt, 0.0, &r, &n);
    ck_assert_double_eq(r, 3.2);
    ck_assert_double_eq(n, IDLE_RPM);
}
END_TEST

static const char *problem(const void *def)
{
    return pdk_cvt_def_problem(def);
}

/* Every field out of its range is refused, the message naming it. */
START_TEST(definition_problems_name_the_field)
{
    const pdk_cvt_def good = polaris();
    assert_problems_name_fields(&good, sizeof good, spoil, problem, fields,
                                (int)(sizeof fields / sizeof fields[0]));
}
END_TEST

static Suite *cvt_suite(void)
{
    Suite *s = suite_create("cvt");
    TCase *tc = tcase_create("cvt");
    tcase_add_test(tc, clutch_and_ebs_capacities);
    tcase_add_test(tc, centrifugal_capacities_at_the_slip_end_speed);
    tcase_add_test(tc, shift_speed_follows_the_clutch_torque);
    tcase_add_test(tc, target_ratio_holds_the_shift_speed);
    tcase_add_test(tc, ratio_lag_is_exact);
    tcase_add_test(tc, reset_and_moving_start);
    tcase_add_test(tc, definition_problems_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cvt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
