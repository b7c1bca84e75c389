/* The validation's own parts (server/validate), on synthetic inputs whose
 * answers are known in closed form: the understeer gradient's line fit,
 * the step response's times and overshoot against first- and second-order
 * systems, the rows' pass logic, the convergence rows, and the command
 * line's refusals. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "measure.h"
#include "rows.h"
#include "validate.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

/* ---- the line fit --------------------------------------------------------- */

/* A circle's steer: an exact line in the fit's range, curving above it as a
 * tyre saturates; the fit returns the line's slope, the curve left out. */
START_TEST(test_fit_exact_line_in_range)
{
    double x[200], y[200];
    for (int i = 0; i < 200; i++) {
        x[i] = 0.05 * i; /* 0 .. 9.95 m/s^2 */
        y[i] = 0.0021 * x[i] + 0.001;
        if (x[i] > 4.0) {
            y[i] += 0.01 * (x[i] - 4.0) * (x[i] - 4.0);
        }
    }
    double k = 0.0, c = 0.0;
    const size_t used = pdk_fit_line(x, y, 200, 0.5, 4.0, &k, &c);
    ck_assert_uint_eq(used, 71); /* 0.50, 0.55, ..., 4.00 */
    ck_assert_double_eq_tol(k, 0.0021, 1e-12);
    ck_assert_double_eq_tol(c, 0.001, 1e-12);
    /* Taken over the whole range the curve pulls the slope up. */
    pdk_fit_line(x, y, 200, 0.0, 10.0, &k, &c);
    ck_assert_double_gt(k, 0.0021 * 1.5);
}
END_TEST

/* Scattered about a line, least squares returns the line (the scatter is
 * symmetric about each x, so it cancels exactly). */
START_TEST(test_fit_least_squares)
{
    double x[40], y[40];
    for (int i = 0; i < 20; i++) {
        x[2 * i] = x[2 * i + 1] = 1.0 + 0.1 * i;
        y[2 * i] = -0.5 * x[2 * i] + 2.0 + 0.03;
        y[2 * i + 1] = -0.5 * x[2 * i] + 2.0 - 0.03;
    }
    double k = 0.0, c = 0.0;
    ck_assert_uint_eq(pdk_fit_line(x, y, 40, -INFINITY, INFINITY, &k, &c), 40);
    ck_assert_double_eq_tol(k, -0.5, 1e-12);
    ck_assert_double_eq_tol(c, 2.0, 1e-12);
}
END_TEST

/* Fewer than two points, or all at one x, give no line. */
START_TEST(test_fit_degenerate)
{
    const double x[3] = {1.0, 1.0, 5.0}, y[3] = {1.0, 2.0, 3.0};
    double k = 0.0, c = 0.0;
    ck_assert_uint_eq(pdk_fit_line(x, y, 3, 0.0, 2.0, &k, &c), 0); /* two points at x = 1 */
    ck_assert(isnan(k) && isnan(c));
    ck_assert_uint_eq(pdk_fit_line(x, y, 3, 4.0, 6.0, &k, &c), 0); /* one point */
    ck_assert(isnan(k));
}
END_TEST

/* ---- the step response ---------------------------------------------------- */

#define STEP_DT 1e-3

/* A first-order response 1 - exp(-(t - t0) / tau) from t0: rise time (10 to
 * 90 %) tau ln 9, response time to 90 % from t0 tau ln 10, no overshoot. */
START_TEST(test_step_first_order)
{
    const double tau = 0.2, t0 = 0.5, gain = 0.3;
    enum { N = 8000 };
    static double t[N], r[N];
    for (int i = 0; i < N; i++) {
        t[i] = i * STEP_DT;
        r[i] = t[i] < t0 ? 0.0 : gain * (1.0 - exp(-(t[i] - t0) / tau));
    }
    pdk_step_figures f;
    ck_assert_int_eq(pdk_step_figures_of(t, r, N, t0, 1.0, &f), 0);
    ck_assert_double_eq_tol(f.steady, gain, 1e-9);
    ck_assert_double_eq_tol(f.rise_time_s, tau * log(9.0), 1e-6);
    ck_assert_double_eq_tol(f.response_time_s, tau * log(10.0), 1e-6);
    ck_assert_double_eq_tol(f.overshoot, 0.0, 1e-9);
    ck_assert_double_lt(f.settle_spread, 1e-9);
}
END_TEST

/* An underdamped second-order response, zeta 0.4 at 2 Hz: overshoot
 * exp(-pi zeta / sqrt(1 - zeta^2)) at t0 + pi / omega_d. The settled tail
 * spreads less than its envelope says. */
START_TEST(test_step_second_order)
{
    const double zeta = 0.4, wn = 2.0 * 3.14159265358979323846 * 2.0, t0 = 0.2, gain = -0.25;
    const double wd = wn * sqrt(1.0 - zeta * zeta);
    enum { N = 6000 };
    static double t[N], r[N];
    for (int i = 0; i < N; i++) {
        t[i] = i * STEP_DT;
        const double s = t[i] - t0;
        r[i] =
            s < 0.0
                ? 0.0
                : gain * (1.0 - exp(-zeta * wn * s) *
                                    (cos(wd * s) + zeta / sqrt(1.0 - zeta * zeta) * sin(wd * s)));
    }
    pdk_step_figures f;
    ck_assert_int_eq(pdk_step_figures_of(t, r, N, t0, 0.5, &f), 0);
    const double over = exp(-3.14159265358979323846 * zeta / sqrt(1.0 - zeta * zeta));
    ck_assert_double_eq_tol(f.overshoot, over, 1e-4);
    ck_assert_double_eq_tol(f.peak_time_s, 3.14159265358979323846 / wd, 2.0 * STEP_DT);
    ck_assert_double_lt(f.peak, gain); /* signed as the steady value: a right turn */
    ck_assert_double_lt(f.settle_spread, exp(-zeta * wn * 5.3));
    ck_assert_double_gt(f.rise_time_s, 0.0);
    ck_assert_double_lt(f.rise_time_s, f.response_time_s);
}
END_TEST

/* A response that stays at 0, or a trace too short, has no figures. */
START_TEST(test_step_refusals)
{
    const double t[3] = {0.0, 0.1, 0.2}, zero[3] = {0.0, 0.0, 0.0};
    pdk_step_figures f;
    ck_assert_int_eq(pdk_step_figures_of(t, zero, 3, 0.0, 1.0, &f), -1);
    ck_assert_int_eq(pdk_step_figures_of(t, zero, 1, 0.0, 1.0, &f), -1);
    /* Crossings inside one sample interval are interpolated: 10 % at 0.11 s,
     * 90 % at 0.19 s. */
    const double jump[3] = {0.0, 0.0, 1.0};
    ck_assert_int_eq(pdk_step_figures_of(t, jump, 3, 0.0, 0.01, &f), 0);
    ck_assert_double_eq_tol(f.rise_time_s, 0.08, 1e-12);
}
END_TEST

/* ---- the rows' pass logic ------------------------------------------------- */

static pdk_row row_of(pdk_row_rule rule, double value, double reference, double tol)
{
    pdk_row r;
    memset(&r, 0, sizeof r);
    r.rule = rule;
    r.value = value;
    r.reference = reference;
    r.tol = tol;
    pdk_row_judge(&r);
    return r;
}

START_TEST(test_row_rules)
{
    /* Within 10 %: 1.09 passes, 1.12 misses by 2 % of the reference. */
    ck_assert_int_eq(row_of(PDK_ROW_WITHIN, 1.09, 1.0, 0.1).verdict, PDK_VERDICT_PASS);
    pdk_row r = row_of(PDK_ROW_WITHIN, 1.12, 1.0, 0.1);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.02, 1e-12);
    r = row_of(PDK_ROW_WITHIN, -0.85, -1.0, 0.1); /* a negative reference */
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.05, 1e-12);
    /* At least / at most. */
    ck_assert_int_eq(row_of(PDK_ROW_AT_LEAST, 5.0, 5.0, 0).verdict, PDK_VERDICT_PASS);
    r = row_of(PDK_ROW_AT_LEAST, 4.5, 5.0, 0);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.1, 1e-12);
    ck_assert_int_eq(row_of(PDK_ROW_AT_MOST, 0.9, 1.0, 0).verdict, PDK_VERDICT_PASS);
    r = row_of(PDK_ROW_AT_MOST, 1.79, 1.0, 0);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.79, 1e-12);
    /* No shorter than the bound and within 10 % above it: both sides fail. */
    ck_assert_int_eq(row_of(PDK_ROW_ABOVE_WITHIN, 105.0, 100.0, 0.1).verdict, PDK_VERDICT_PASS);
    r = row_of(PDK_ROW_ABOVE_WITHIN, 99.0, 100.0, 0.1);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.01, 1e-12);
    r = row_of(PDK_ROW_ABOVE_WITHIN, 135.0, 100.0, 0.1);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.25, 1e-12);
    /* A maneuver that produced no figure has failed. */
    r = row_of(PDK_ROW_AT_MOST, NAN, 1.0, 0);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert(isinf(r.miss));
    ck_assert_int_eq(row_of(PDK_ROW_WITHIN, 1.0, NAN, 0.1).verdict, PDK_VERDICT_FAIL);
    /* Informational and not-applicable rows decide nothing. */
    ck_assert_int_eq(row_of(PDK_ROW_INFO, NAN, NAN, 0).verdict, PDK_VERDICT_INFO);
    ck_assert_int_eq(row_of(PDK_ROW_NOT_APPLICABLE, NAN, NAN, 0).verdict,
                     PDK_VERDICT_NOT_APPLICABLE);
    ck_assert_str_eq(pdk_row_verdict_name(PDK_VERDICT_FAIL), "FAIL");
    ck_assert_str_eq(pdk_row_verdict_name(PDK_VERDICT_NOT_APPLICABLE), "n/a");
    char buf[PDK_ROW_TEXT];
    r = row_of(PDK_ROW_WITHIN, 1.0, 1.0, 0.03);
    pdk_row_criterion(&r, buf, sizeof buf);
    ck_assert_str_eq(buf, "within 3 % of the reference");
    /* A reference that is a small difference of larger shares is judged
     * against its largest share: 0.0044 against 0.0068 with shares up to
     * 0.066 passes (10 % of 0.066), 0.0144 misses by 0.0010 of it; a
     * scale below |reference| changes nothing. */
    memset(&r, 0, sizeof r);
    r.rule = PDK_ROW_WITHIN;
    r.value = 0.0044;
    r.reference = 0.0068;
    r.tol = 0.1;
    snprintf(r.unit, sizeof r.unit, "deg/g");
    pdk_row_judge(&r);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    r.tol_scale = 0.066;
    pdk_row_judge(&r);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_PASS);
    pdk_row_criterion(&r, buf, sizeof buf);
    ck_assert_str_eq(buf, "within 10 % of the reference's largest share, 0.066 deg/g");
    r.value = 0.0144;
    pdk_row_judge(&r);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, (0.0076 - 0.0066) / 0.066, 1e-9);
    r = row_of(PDK_ROW_WITHIN, 1.12, 1.0, 0.1);
    r.tol_scale = 0.5;
    pdk_row_judge(&r);
    ck_assert_int_eq(r.verdict, PDK_VERDICT_FAIL);
    ck_assert_double_eq_tol(r.miss, 0.02, 1e-12);
}
END_TEST

START_TEST(test_relative_difference)
{
    ck_assert_double_eq_tol(pdk_row_relative_difference(1.0, 1.005), 0.005 / 1.005, 1e-15);
    ck_assert_double_eq(pdk_row_relative_difference(0.0, 0.0), 0.0);
    ck_assert(isinf(pdk_row_relative_difference(NAN, 1.0)));
}
END_TEST

/* ---- convergence rows ----------------------------------------------------- */

START_TEST(test_convergence_rows)
{
    static pdk_job base, fine;
    memset(&base, 0, sizeof base);
    memset(&fine, 0, sizeof fine);
    base.substeps = 2;
    fine.substeps = 8;
    const double a[3] = {10.0, 5.0, 7.0}, b[3] = {10.04, 5.1, 7.0};
    const char *figs[3] = {"converges", "drifts", "not compared"};
    for (int i = 0; i < 3; i++) {
        pdk_row *r = pdk_job_row(&base, "m", figs[i], "s");
        r->value = a[i];
        r->converges = i < 2;
        pdk_row *q = pdk_job_row(&fine, "m", figs[i], "s");
        q->value = b[i];
        q->converges = i < 2;
    }
    /* A row the finer run named otherwise has no partner. */
    pdk_row *r = pdk_job_row(&base, "m", "went otherwise", "s");
    r->value = 1.0;
    r->converges = 1;
    pdk_job_row(&fine, "m", "another figure", "s")->value = 1.0;
    pdk_validate_convergence(&base, &fine);
    ck_assert_int_eq(base.n_rows, 4 + 3);
    ck_assert_int_eq(base.rows[4].verdict, PDK_VERDICT_PASS); /* 0.4 % */
    ck_assert_double_eq_tol(base.rows[4].value, 100.0 * 0.04 / 10.04, 1e-12);
    ck_assert_int_eq(base.rows[5].verdict, PDK_VERDICT_FAIL); /* 2 % */
    ck_assert_int_eq(base.rows[6].verdict, PDK_VERDICT_FAIL);
    ck_assert_ptr_nonnull(strstr(base.rows[6].note, "no such row"));
}
END_TEST

/* ---- the command line ----------------------------------------------------- */

static int run_cli(const char *a0, const char *a1, const char *a2, const char *a3)
{
    char *argv[4] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3};
    int argc = 0;
    while (argc < 4 && argv[argc]) {
        argc++;
    }
    return pdk_validate_main(argc, argv, PRESETS);
}

START_TEST(test_cli_refusals)
{
    ck_assert_int_eq(run_cli("--jobs", "0", NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--jobs", "many", NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--substeps", "2,0", NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--substeps", "2,4,8,16,32", NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--substeps", "", NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--bogus", NULL, NULL, NULL), 2);
    ck_assert_int_eq(run_cli("--preset", NULL, NULL, NULL), 2); /* no value */
    char *argv[2] = {"--presets", "/nonexistent-presets"};
    ck_assert_int_eq(pdk_validate_main(2, argv, PRESETS), 2);
}
END_TEST

/* A preset that does not load fails its rows (exit 1), naming it; an
 * output folder that cannot be made is exit 2. */
START_TEST(test_cli_missing_preset)
{
    ck_assert_int_eq(run_cli("--preset", "no_such_car", "--fast", NULL), 1);
    char *argv[5] = {"--preset", "no_such_car", "--out", "/proc/no/such/dir", "--fast"};
    ck_assert_int_eq(pdk_validate_main(5, argv, PRESETS), 2);
    static pdk_job job;
    memset(&job, 0, sizeof job);
    job.presets_dir = PRESETS;
    snprintf(job.preset, sizeof job.preset, "no_such_car");
    job.substeps = 2;
    job.fast = 1;
    pdk_validate_job(&job);
    ck_assert_int_gt(job.n_rows, 0);
    for (int i = 0; i < job.n_rows; i++) {
        ck_assert_int_eq(job.rows[i].verdict, PDK_VERDICT_FAIL);
        ck_assert_ptr_nonnull(strstr(job.rows[i].note, "no_such_car"));
    }
    pdk_job_free(&job);
}
END_TEST

/* ---- the maneuvers on the analytic car ------------------------------------ */

static const pdk_row *find_row(const pdk_job *job, const char *maneuver, const char *figure)
{
    for (int i = 0; i < job->n_rows; i++) {
        if (strcmp(job->rows[i].maneuver, maneuver) == 0 &&
            strncmp(job->rows[i].figure, figure, strlen(figure)) == 0) {
            return &job->rows[i];
        }
    }
    ck_abort_msg("no row %s: %s", maneuver, figure);
    return NULL;
}

/* The single-track traffic car is the linear bicycle model the references
 * are written for, so the maneuvers must measure the references
 * themselves: the circle's gradient is m/L (b/C_f - a/C_r), the locked
 * stop v^2 / (2 mu g) with drag and rolling resistance taken off. What a
 * planar model cannot do is not applicable, saying why. */
START_TEST(test_job_on_the_bicycle_model)
{
    static pdk_job job;
    memset(&job, 0, sizeof job);
    job.presets_dir = PRESETS;
    snprintf(job.preset, sizeof job.preset, "traffic_sedan");
    job.substeps = 2;
    job.fast = 1;
    pdk_validate_job(&job);
    ck_assert_str_eq(job.error, "");
    const pdk_row *r = find_row(&job, "circle R100", "understeer gradient, road wheel");
    ck_assert_double_eq_tol(r->value, r->reference, 0.01 * fabs(r->reference));
    r = find_row(&job, "circle R100", "understeer gradient against the bicycle");
    ck_assert_double_eq_tol(r->value, r->reference, 0.01 * fabs(r->reference));
    r = find_row(&job, "brake locked tarmac", "100-0 km/h");
    ck_assert_double_eq_tol(r->value, r->reference, 0.005 * r->reference);
    ck_assert_int_eq(find_row(&job, "brake ABS tarmac", "100-0")->verdict,
                     PDK_VERDICT_NOT_APPLICABLE);
    r = find_row(&job, "launch", "top speed");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_PASS);
    r = find_row(&job, "step steer 80", "yaw rate: settles");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_PASS);
    r = find_row(&job, "tilt table", "rollover angle");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_NOT_APPLICABLE);
    ck_assert_ptr_nonnull(strstr(r->note, "single-track"));
    r = find_row(&job, "creep 30 %", "braked, nose down");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_NOT_APPLICABLE);
    r = find_row(&job, "energy ledger", "residual");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_NOT_APPLICABLE);
    r = find_row(&job, "lane change", "highest entry speed");
    ck_assert_int_eq(r->verdict, PDK_VERDICT_PASS);
    pdk_job_free(&job);
}
END_TEST

static Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fit_exact_line_in_range);
    tcase_add_test(tc, test_fit_least_squares);
    tcase_add_test(tc, test_fit_degenerate);
    tcase_add_test(tc, test_step_first_order);
    tcase_add_test(tc, test_step_second_order);
    tcase_add_test(tc, test_step_refusals);
    tcase_add_test(tc, test_row_rules);
    tcase_add_test(tc, test_relative_difference);
    tcase_add_test(tc, test_convergence_rows);
    tcase_add_test(tc, test_cli_refusals);
    tcase_add_test(tc, test_cli_missing_preset);
    tcase_add_test(tc, test_job_on_the_bicycle_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(validate_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
