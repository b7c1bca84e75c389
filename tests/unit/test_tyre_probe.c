/* sim/tyre_probe.h: an axle's tyre law outside a world gives the bits the
 * law gives with the four-wheel model's spawn-time resolution and the
 * surface's scales, a right wheel the left one's mirror image, and each
 * refusal names its field. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "ground/surface.h"
#include "params.h"
#include "sim/tyre_probe.h"
#include "tyre/tyre.h"
#include "vehicle/four_wheel.h"

#define PRESETS PDK_SOURCE_DIR "/presets"
#define G 9.81

static void load(const char *name, pdk_vehicle_def *d)
{
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, name, NULL, d, NULL, err, sizeof err) == PDK_OK,
                  "%s: %s", name, err);
}

/* The relaxation lengths: a grip-law tyre's are the def's at its nominal
 * load, scaled with load by sin(2 atan(Fz / 2 Fz_nom)) / sin(2 atan(1/2))
 * (tyre.h pdk_tyre_relaxation): at twice the nominal load, 1 / 0.8 of
 * them. */
START_TEST(test_probe_relaxation)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    ck_assert_int_eq(d.tyre_front.law.law, PDK_TYRE_GRIP);
    const double fz_nom = d.tyre_front.law.nominal_load_n;
    const double sa = d.tyre_front.law.relaxation_lat_m, sk = d.tyre_front.law.relaxation_long_m;
    pdk_tyre_probe_in in = {0, 0, PDK_SURFACE_TARMAC, 1.0, G, fz_nom, 0.0, 0.0, 0.0};
    pdk_tyre_probe_out o;
    ck_assert_int_eq(pdk_tyre_probe(&d, &in, &o), PDK_OK);
    ck_assert_double_eq_tol(o.sigma_alpha_m, sa, 1e-12);
    ck_assert_double_eq_tol(o.sigma_kappa_m, sk, 1e-12);
    in.fz_n = 2.0 * fz_nom;
    ck_assert_int_eq(pdk_tyre_probe(&d, &in, &o), PDK_OK);
    const double ratio = sin(2.0 * atan(1.0)) / sin(2.0 * atan(0.5));
    ck_assert_double_eq_tol(ratio, 1.25, 1e-12);
    ck_assert_double_eq_tol(o.sigma_alpha_m, 1.25 * sa, 1e-12);
}
END_TEST

/* For a Magic Formula preset (the sedan), a grip-law car (the default) and
 * the UTV law (the Polaris), front and rear, on tarmac and ice, at a
 * spread of slips and cambers: the probe's left wheel is pdk_tyre_eval on
 * the law pdk_fw_law_of resolves at the static load, to the bit, and its
 * right wheel is that at (-tan_alpha, -gamma) with Fy negated. */
START_TEST(test_probe_is_the_law)
{
    pdk_vehicle_def defs[3];
    load("midsize_sedan", &defs[0]);
    defs[1] = pdk_vehicle_def_default();
    load("polaris_ranger", &defs[2]);
    const int surfaces[2] = {PDK_SURFACE_TARMAC, PDK_SURFACE_ICE};
    for (int v = 0; v < 3; v++) {
        const pdk_vehicle_def *d = &defs[v];
        for (int axle = 0; axle < 2; axle++) {
            const double len = d->chassis.wheelbase_m, a = d->chassis.cg_to_front_axle_m;
            const double w0 = d->chassis.mass_kg * G * (axle == 0 ? len - a : a) / (2.0 * len);
            pdk_tyre_law_def law;
            pdk_fw_law_of(d, axle, w0, &law);
            for (int s = 0; s < 2; s++) {
                pdk_tyre_ground ground;
                pdk_surface_ground(surfaces[s], 0.9, &ground);
                for (int k = 0; k < 5; k++) {
                    const double kappa = -0.2 + 0.1 * k, ta = 0.05 - 0.025 * k;
                    const double gamma = 0.02 * (k - 2);
                    const pdk_tyre_in in = {1.3 * w0, kappa, ta, gamma, 10.0};
                    pdk_tyre_out want;
                    pdk_tyre_eval(&law, &ground, &in, 0, &want);
                    pdk_tyre_probe_in pin = {axle, 0, surfaces[s], 0.9, G, 1.3 * w0,
                                             kappa, ta, gamma};
                    pdk_tyre_probe_out got;
                    ck_assert_int_eq(pdk_tyre_probe(d, &pin, &got), PDK_OK);
                    ck_assert(got.fx_n == want.fx_n && got.fy_n == want.fy_n);
                    ck_assert(got.dfx_dkappa_n == want.dfx_dkappa_n);
                    ck_assert(got.dfy_dalpha_n == want.dfy_dalpha_n);
                    ck_assert(got.peak_n == want.peak_n);
                    const pdk_tyre_in mirror = {1.3 * w0, kappa, -ta, -gamma, 10.0};
                    pdk_tyre_eval(&law, &ground, &mirror, 0, &want);
                    pin.right = 1;
                    ck_assert_int_eq(pdk_tyre_probe(d, &pin, &got), PDK_OK);
                    ck_assert(got.fx_n == want.fx_n && got.fy_n == -want.fy_n);
                }
            }
        }
    }
}
END_TEST

START_TEST(test_probe_refusals)
{
    const pdk_vehicle_def d = pdk_vehicle_def_default();
    const pdk_tyre_probe_in good = {0, 0, PDK_SURFACE_TARMAC, 1.0, G, 4000.0, 0.0, 0.0, 0.0};
    pdk_tyre_probe_out out;
    ck_assert_ptr_null(pdk_tyre_probe_problem(&d, &good));
    ck_assert_int_eq(pdk_tyre_probe(&d, &good, &out), PDK_OK);
    ck_assert_int_eq(pdk_tyre_probe(NULL, &good, &out), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_tyre_probe(&d, NULL, &out), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_tyre_probe(&d, &good, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(pdk_tyre_probe_problem(NULL, &good),
                     "tyre probe: the definition and the input must not be NULL");
    pdk_vehicle_def st = d;
    st.model = PDK_MODEL_SINGLE_TRACK;
    ck_assert_int_eq(pdk_tyre_probe(&st, &good, &out), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(pdk_tyre_probe_problem(&st, &good),
                     "tyre probe: the definition must be a four-wheel one (the single-track "
                     "model's tyre is its axle's cornering stiffness and friction)");
    struct {
        pdk_tyre_probe_in in;
        const char *why;
    } bad[] = {
        {{2, 0, 0, 1.0, G, 4000.0, 0.0, 0.0, 0.0}, "tyre probe: axle must be 0 (front) or 1 (rear)"},
        {{0, 0, PDK_SURFACE_COUNT, 1.0, G, 4000.0, 0.0, 0.0, 0.0},
         "tyre probe: surface_id is not a surface (0..PDK_SURFACE_COUNT - 1)"},
        {{0, 0, 0, -1.0, G, 4000.0, 0.0, 0.0, 0.0}, "tyre probe: grip_scale must be finite and >= 0"},
        {{0, 0, 0, 1.0, 0.0, 4000.0, 0.0, 0.0, 0.0},
         "tyre probe: gravity_mps2 must be finite and above 0"},
        {{0, 0, 0, 1.0, G, -1.0, 0.0, 0.0, 0.0}, "tyre probe: fz_n must be finite and >= 0"},
        {{0, 0, 0, 1.0, G, 4000.0, NAN, 0.0, 0.0},
         "tyre probe: kappa, tan_alpha and gamma_rad must be finite"},
        {{0, 0, 0, 1.0, G, 4000.0, 0.0, 0.0, INFINITY},
         "tyre probe: kappa, tan_alpha and gamma_rad must be finite"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_str_eq(pdk_tyre_probe_problem(&d, &bad[i].in), bad[i].why);
        ck_assert_int_eq(pdk_tyre_probe(&d, &bad[i].in, &out), PDK_ERR_OUT_OF_RANGE);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tyre_probe");
    TCase *tc = tcase_create("probe");
    tcase_add_test(tc, test_probe_is_the_law);
    tcase_add_test(tc, test_probe_refusals);
    tcase_add_test(tc, test_probe_relaxation);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
