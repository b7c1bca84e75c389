/* A held car on a slope stays where it stands (issue 25, item 3): every
 * preset, parked in P and braked in N and D, nose up and nose down on the
 * hill world's 30 % lane, moves no further and gains no potential energy
 * once it has settled; and the pitch links' load of a held car is steady
 * (the anti-dive and anti-squat shares follow the longitudinal force and
 * the brakes' capacity, never the sign of the contact's speed, which at
 * rest is rounding noise). Runs the presets as shipped through the world,
 * as `paddockd run` does. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sim/channels.h"
#include "sim/world.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

#include "params_test_util.h"

#define PI 3.14159265358979323846
#define TICKS_PER_S 120
/* The hill world's 30 % lane (presets/worlds/hill.json): its ramp starts at
 * x = 20 m, rounds over 2 m and climbs for 15 m, centred on y = 20 m; a
 * car centred at x = 27.5 m has all four wheels on the constant grade. */
#define LANE_X_M 27.5
#define LANE_Y_M 20.0
/* The line pressure of the braked cases, or the preset's limit if lower. */
#define HOLD_BAR 40.0
#define SETTLE_S 5
#define HELD_S 20

typedef struct held {
    pdk_world_def wd;
    pdk_vehicle_def def;
    void *mem;
    pdk_world *w;
    pdk_vehicle_id id;
} held;

/* preset at rest on the 30 % lane, nose up (yaw 0) or down (yaw 180 deg),
 * in gear with brake_bar of line pressure. */
static void held_open(held *h, const char *preset, double yaw_rad, pdk_gear gear, double brake_bar)
{
    memset(h, 0, sizeof *h);
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_world_load(PRESETS, "hill", NULL, &h->wd, NULL, err, sizeof err) ==
                      PDK_OK,
                  "hill: %s", err);
    h->wd.max_vehicles = 1;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, preset, NULL, &h->def, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s: %s", preset, err);
    size_t bytes = (pdk_world_mem_size(&h->wd) + 63u) / 64u * 64u;
    h->mem = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(h->mem);
    ck_assert_int_eq(pdk_world_init(h->mem, bytes, &h->wd, &h->w), PDK_OK);
    pdk_pose pose = {LANE_X_M, LANE_Y_M, yaw_rad};
    ck_assert_int_eq(pdk_world_spawn(h->w, &h->def, &pose, 0.0, gear, &h->id), PDK_OK);
    pdk_dbw_cmd cmd = {
        .fields = PDK_DBW_BRAKE | PDK_DBW_GEAR, .brake_bar = brake_bar, .gear = gear};
    ck_assert_int_eq(pdk_world_command(h->w, h->id, &cmd), PDK_OK);
}

static void held_run(held *h, int seconds)
{
    for (int k = 0; k < seconds * TICKS_PER_S; k++) {
        pdk_world_step(h->w);
    }
}

static const double *held_ch(const held *h)
{
    const double *ch = pdk_world_channels(h->w, h->id);
    ck_assert_ptr_nonnull(ch);
    return ch;
}

/* Each preset of presets/vehicles, one loop index each (the index past the
 * last preset has nothing to do). Six holds: parked in P with no brake,
 * braked in N and in D, each nose up and nose down. Settled for 5 s, over
 * the next 20 s the CG moves less than 10 um (the bound is 1 mm in
 * 60 s; a car whose link loads flip with the sign of its contacts' speed
 * creeps further than this) and rises by no more than 1 mJ of potential
 * energy's worth (m g dz): a held car stores no energy. */
START_TEST(test_every_preset_held_on_30_pct_stays)
{
    listing l = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, collect_preset, &l), PDK_OK);
    ck_assert_uint_ge(l.n, 1);
    if ((size_t)_i >= l.n) {
        return;
    }
    const char *preset = l.names[_i];
    static const struct {
        pdk_gear gear;
        int braked;
    } cases[] = {{PDK_GEAR_PARK, 0}, {PDK_GEAR_NEUTRAL, 1}, {PDK_GEAR_DRIVE, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int down = 0; down < 2; down++) {
            held h;
            held_open(&h, preset, down ? PI : 0.0, cases[c].gear, 0.0);
            const double bar = cases[c].braked ? fmin(HOLD_BAR, h.def.brake.max_line_bar) : 0.0;
            pdk_dbw_cmd cmd = {.fields = PDK_DBW_BRAKE, .brake_bar = bar};
            ck_assert_int_eq(pdk_world_command(h.w, h.id, &cmd), PDK_OK);
            held_run(&h, SETTLE_S);
            double p0[3], p1[3];
            memcpy(p0, &held_ch(&h)[PDK_CH_POS_X], sizeof p0);
            held_run(&h, HELD_S);
            memcpy(p1, &held_ch(&h)[PDK_CH_POS_X], sizeof p1);
            const double moved =
                sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                     (p1[2] - p0[2]) * (p1[2] - p0[2]));
            const double gained_j = h.def.chassis.mass_kg * h.wd.gravity_mps2 * (p1[2] - p0[2]);
            ck_assert_msg(moved < 1e-5, "%s, gear %d, %g bar, nose %s: moved %.3f um in %d s",
                          preset, (int)cases[c].gear, bar, down ? "down" : "up", moved * 1e6,
                          HELD_S);
            ck_assert_msg(gained_j <= 1e-3,
                          "%s, gear %d, %g bar, nose %s: gained %.4f J of potential energy in %d s",
                          preset, (int)cases[c].gear, bar, down ? "down" : "up", gained_j, HELD_S);
            free(h.mem);
        }
    }
}
END_TEST

/* The midsize sedan braked with 40 bar in N, nose up on the 30 % lane: its
 * front and rear pitch links carry a steady load once it has settled (from
 * one tick to the next within 1 N over 10 s). The brakes hold the whole
 * longitudinal force, so each link takes the anti-dive share of it,
 * antiBrake F_x h_cg / L per wheel (docs/vehicle-model.md), whatever the
 * sign of the contact's speed; chosen by that sign, the front link's load
 * jumped between some -170 N and 0. */
START_TEST(test_held_car_link_loads_are_steady)
{
    held h;
    held_open(&h, "midsize_sedan", 0.0, PDK_GEAR_NEUTRAL, HOLD_BAR);
    held_run(&h, SETTLE_S);
    double prev_f = held_ch(&h)[PDK_CH_PITCH_LINK_LOAD_F];
    double prev_r = held_ch(&h)[PDK_CH_PITCH_LINK_LOAD_R];
    double jump = 0.0;
    for (int k = 0; k < 10 * TICKS_PER_S; k++) {
        pdk_world_step(h.w);
        const double *ch = held_ch(&h);
        jump = fmax(jump, fabs(ch[PDK_CH_PITCH_LINK_LOAD_F] - prev_f));
        jump = fmax(jump, fabs(ch[PDK_CH_PITCH_LINK_LOAD_R] - prev_r));
        prev_f = ch[PDK_CH_PITCH_LINK_LOAD_F];
        prev_r = ch[PDK_CH_PITCH_LINK_LOAD_R];
    }
    ck_assert_msg(jump < 1.0, "a pitch link's load jumped %.3f N between ticks", jump);
    /* The front link holds the nose down on the slope (the brakes' force
     * points uphill, forward): not nothing. */
    ck_assert_double_gt(fabs(prev_f), 10.0);
    free(h.mem);
}
END_TEST

static Suite *fw_creep_suite(void)
{
    Suite *s = suite_create("fw_creep");
    TCase *links = tcase_create("links");
    tcase_add_test(links, test_held_car_link_loads_are_steady);
    suite_add_tcase(s, links);
    TCase *held_tc = tcase_create("held");
    tcase_set_timeout(held_tc, 120);
    tcase_add_loop_test(held_tc, test_every_preset_held_on_30_pct_stays, 0, 16);
    suite_add_tcase(s, held_tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fw_creep_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
