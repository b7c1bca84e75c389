/* Convergence in the substep of the four-wheel model with its powertrain:
 * the same maneuver at the default 2 substeps (h = 1/240 s) and at four
 * times as many (h = 1/960 s), each preset loaded from presets/vehicles as
 * paddockd loads it, on flat dry tarmac at 120 Hz:
 *  - the Polaris Ranger's 0-60 km/h at full throttle in H from rest: its
 *    CVT, clutch and driveline under the whole launch;
 *  - the sports car's step steer (presets/scripts/step_steer.json: 80 km/h
 *    at 8.5 % throttle in D, 23.6 deg on the steering wheel at 2 s): its
 *    yaw rate's peak.
 * A scheme of the first order in h differs between the two by 3/4 of its
 * error at the default; the bounds say how far from converged the default
 * may be. The figures at 1, 2, 4, 8 and 16 substeps are printed. */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "params.h"
#include "sim/world.h"

#include "fw_test_util.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

static void load(const char *name, pdk_vehicle_def *d)
{
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, name, NULL, d, NULL, err, sizeof err) == PDK_OK,
                  "%s: %s", name, err);
}

static void start(fw_run *r, const pdk_vehicle_def *d, int substeps, double speed_mps,
                  pdk_gear gear)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    pdk_terrain_prepare(&t);
    run_init_at(r, d, &t, DT, substeps, 0.0, 0.0, speed_mps, gear);
}

/* Full throttle from rest to 60 km/h, s, interpolated inside the tick. */
static double polaris_0_60_s(const pdk_vehicle_def *d, int substeps)
{
    const double v_mps = 60.0 / 3.6;
    fw_run r;
    start(&r, d, substeps, 0.0, PDK_GEAR_DRIVE);
    run_command(&r, 100.0, 0.0, 0.0);
    double before = 0.0;
    for (int k = 1; k <= 20 * TICKS_PER_S; k++) {
        run_tick(&r);
        const double v = r.ch[PDK_CH_SPEED];
        if (v >= v_mps) {
            return (k - 1 + (v_mps - before) / (v - before)) * DT;
        }
        before = v;
    }
    ck_abort_msg("the Polaris never reached 60 km/h at %d substeps", substeps);
    return 0.0;
}

/* The step steer of presets/scripts/step_steer.json: the yaw rate's peak
 * over the 4 s the step is held, rad/s. */
static double step_steer_peak_radps(const pdk_vehicle_def *d, int substeps)
{
    fw_run r;
    start(&r, d, substeps, 22.2222, PDK_GEAR_DRIVE);
    run_command(&r, 8.5, 0.0, 0.0);
    run_for(&r, 2.0);
    run_command(&r, 8.5, 0.0, 23.6);
    double peak = 0.0;
    for (int k = 0; k < 4 * TICKS_PER_S; k++) {
        run_tick(&r);
        peak = fmax(peak, r.ch[PDK_CH_YAW_RATE]);
    }
    assert_channels_finite(&r);
    return peak;
}

static const int SUBSTEPS[] = {1, 2, 4, 8, 16};
#define N_SUBSTEPS ((int)(sizeof SUBSTEPS / sizeof SUBSTEPS[0]))

/* The Polaris's 0-60 km/h within 0.5 % between 2 and 8 substeps. Before
 * the driveline took the contacts' speed at the substep's end
 * (four_wheel_powertrain.c) it was 1.3 % quicker at 2. */
START_TEST(polaris_0_60_converges)
{
    pdk_vehicle_def d;
    load("polaris_ranger", &d);
    double t_s[N_SUBSTEPS];
    for (int i = 0; i < N_SUBSTEPS; i++) {
        t_s[i] = polaris_0_60_s(&d, SUBSTEPS[i]);
        printf("polaris_ranger 0-60 km/h at %2d substeps: %.4f s\n", SUBSTEPS[i], t_s[i]);
    }
    const double diff = t_s[1] / t_s[3] - 1.0;
    printf("  2 against 8 substeps: %+.3f %%\n", 100.0 * diff);
    ck_assert_double_lt(fabs(diff), 0.005);
}
END_TEST

/* The sports car's step-steer yaw peak between 2 and 8 substeps. What is
 * left is the chassis' linearly implicit Euler solve, whose numerical
 * damping of the yaw mode takes a little off the overshoot at the longer
 * substep (the peak rises with the substeps, as a first-order error); the
 * lagged links add a fiftieth of it. The bound holds the present 0.53 %
 * and is not yet issue 25's 0.5 %. */
START_TEST(sports_car_step_steer_converges)
{
    pdk_vehicle_def d;
    load("sports_car", &d);
    double peak[N_SUBSTEPS];
    for (int i = 0; i < N_SUBSTEPS; i++) {
        peak[i] = step_steer_peak_radps(&d, SUBSTEPS[i]);
        printf("sports_car step steer at %2d substeps: yaw rate peak %.5f rad/s\n", SUBSTEPS[i],
               peak[i]);
    }
    const double diff = peak[1] / peak[3] - 1.0;
    printf("  2 against 8 substeps: %+.3f %%\n", 100.0 * diff);
    ck_assert_double_lt(fabs(diff), 0.006);
    /* First order: halving the substep halves the error, so the peak
     * moves the same way at each doubling and by less each time. */
    for (int i = 1; i + 1 < N_SUBSTEPS; i++) {
        ck_assert_double_gt(peak[i + 1], peak[i]);
        ck_assert_double_lt(peak[i + 1] - peak[i], peak[i] - peak[i - 1]);
    }
}
END_TEST

static Suite *convergence_suite(void)
{
    Suite *s = suite_create("convergence");
    TCase *tc = tcase_create("convergence");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, polaris_0_60_converges);
    tcase_add_test(tc, sports_car_step_steer_converges);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(convergence_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
