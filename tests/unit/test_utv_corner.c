/* Unit tests for the UTV's corner rates and dampers (server/sim/utv_corner.h;
 * docs/powertrain.md): the Polaris model's corner rates of about 17.9 kN/m
 * front and 24.7 kN/m rear from its defaults, springs in series, and the
 * damping ratio the damper gives on the corner's mass (the free response of
 * that mass-spring-damper decays as exp(-zeta omega_n t)). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "vehicle/utv_corner.h"
#include "sim/utv_mass.h"

#define G 9.81

/* the Polaris model tyres.* and suspension.* defaults */
#define R_T 0.3429
#define WIDTH_F 0.2286
#define WIDTH_R 0.2794
#define P_F 124e3
#define P_R 138e3
#define P_C 15e3

START_TEST(corner_rates_match_the_seed)
{
    const double kt_f = pdk_utv_tyre_rate(P_F, P_C, R_T, WIDTH_F);
    const double kt_r = pdk_utv_tyre_rate(P_R, P_C, R_T, WIDTH_R);
    const double k_f = pdk_utv_corner_rate(kt_f, 20000.0);
    const double k_r = pdk_utv_corner_rate(kt_r, 28000.0);
    ck_assert_double_eq_tol(k_f, 17.9e3, 0.05e3);
    ck_assert_double_eq_tol(k_r, 24.7e3, 0.05e3);
    /* in series: softer than either, and the compliances add */
    ck_assert(k_f < 20000.0 && k_f < kt_f);
    ck_assert_double_eq_tol(1.0 / k_f, 1.0 / kt_f + 1.0 / 20000.0, 1e-18);
    /* the membrane's rate grows with pressure and with the footprint's size */
    ck_assert(pdk_utv_tyre_rate(2.0 * P_F, P_C, R_T, WIDTH_F) > kt_f);
    ck_assert(pdk_utv_tyre_rate(P_F, P_C, R_T, 2.0 * WIDTH_F) > kt_f);
}
END_TEST

/* The damper on the driver's corner of the Polaris (its static load from
 * the mass model) has the damping ratio asked for: by its definition, and
 * in the free response of that corner's mass on its spring and damper,
 * simulated finely (semi-implicit Euler at 1 us), whose logarithmic
 * decrement between the first two peaks gives zeta back within 0.001. */
START_TEST(damper_gives_the_damping_ratio)
{
    pdk_utv_mass_def d = pdk_utv_mass_def_polaris();
    pdk_utv_mass o;
    pdk_utv_mass_of(&d, 2.8702, 1.31, 1.31, G, &o);
    const double k = pdk_utv_corner_rate(pdk_utv_tyre_rate(P_F, P_C, R_T, WIDTH_F), 20000.0);
    const double zeta = 0.35;
    const double c = pdk_utv_corner_damping(k, o.corner_load_n[0], zeta, G);
    const double m = o.corner_load_n[0] / G;
    ck_assert_double_eq_tol(c / (2.0 * sqrt(k * m)), zeta, 1e-12);
    /* the free response's first two positive peaks */
    double x = 0.01, v = 0.0, peaks[2] = {0.0, 0.0}, prev_v = 0.0;
    int found = 0;
    const double h = 1e-6;
    for (long i = 0; i < 4000000 && found < 2; i++) {
        v += h * (-(k * x) - c * v) / m;
        x += h * v;
        if (prev_v > 0.0 && v <= 0.0 && x > 0.0) {
            peaks[found++] = x;
        }
        prev_v = v;
    }
    ck_assert_int_eq(found, 2);
    const double delta = log(peaks[0] / peaks[1]);
    const double zeta_seen = delta / sqrt(4.0 * M_PI * M_PI + delta * delta);
    ck_assert_double_eq_tol(zeta_seen, zeta, 1e-3);
}
END_TEST

static Suite *utv_corner_suite(void)
{
    Suite *s = suite_create("utv_corner");
    TCase *tc = tcase_create("corner");
    tcase_add_test(tc, corner_rates_match_the_seed);
    tcase_add_test(tc, damper_gives_the_damping_ratio);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(utv_corner_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
