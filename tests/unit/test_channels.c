/* Unit tests for the channel registry (server/sim/channels.h) and for the
 * values the single-track model writes into it: each channel agrees with the
 * pose, the command, or the physics it reports (force and moment balance,
 * the tyre law, load sums). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "world.h"

#define G 9.81
#define RHO 1.225

/* ---- registry ------------------------------------------------------------- */

START_TEST(test_every_channel_has_name_unit_description)
{
    for (size_t i = 0; i < PDK_CH_COUNT; i++) {
        const pdk_channel_info *info = pdk_channel_get(i);
        ck_assert_ptr_nonnull(info);
        ck_assert_uint_gt(strlen(info->name), 0);
        ck_assert_ptr_null(strchr(info->name, ' '));
        ck_assert_uint_gt(strlen(info->unit), 0);
        ck_assert_uint_gt(strlen(info->description), 0);
        /* Names are unique: find gives back this index. */
        ck_assert_int_eq(pdk_channel_find(info->name), (int)i);
    }
    ck_assert_ptr_null(pdk_channel_get(PDK_CH_COUNT));
    ck_assert_ptr_null(pdk_channel_get(SIZE_MAX));
}
END_TEST

START_TEST(test_find)
{
    ck_assert_int_eq(pdk_channel_find("Speed"), PDK_CH_SPEED);
    ck_assert_int_eq(pdk_channel_find("PosX"), PDK_CH_POS_X);
    ck_assert_int_eq(pdk_channel_find("RollingResistance"), PDK_CH_ROLLING);
    ck_assert_int_eq(pdk_channel_find("Faulted"), PDK_CH_FAULTED);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_FAULTED)->unit, "bool");
    ck_assert_str_eq(pdk_channel_get(PDK_CH_YAW_RATE)->unit, "rad/s");
    ck_assert_str_eq(pdk_channel_get(PDK_CH_BRAKE)->name, "BrakePressure");
    ck_assert_int_eq(pdk_channel_find("posx"), -1);
    ck_assert_int_eq(pdk_channel_find("Speed "), -1);
    ck_assert_int_eq(pdk_channel_find(""), -1);
    ck_assert_int_eq(pdk_channel_find("NoSuchChannel"), -1);
    ck_assert_int_eq(pdk_channel_find(NULL), -1);
}
END_TEST

/* ---- values --------------------------------------------------------------- */

typedef struct fixture {
    pdk_world *world;
    pdk_vehicle_id id;
    pdk_vehicle_def def;
} fixture;

/* A car cornering steadily at 15 m/s with 60 deg on the wheel; the throttle
 * holds the speed. */
static fixture cornering(void)
{
    fixture f;
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &f.world), PDK_OK);
    f.def = pdk_vehicle_def_default();
    f.def.model = PDK_MODEL_SINGLE_TRACK;
    pdk_pose pose = {5.0, -5.0, 0.5};
    ck_assert_int_eq(pdk_world_spawn(f.world, &f.def, &pose, 15.0, PDK_GEAR_DRIVE, &f.id), PDK_OK);
    /* Freshly spawned: no tick yet, every channel is zero. */
    const double *ch = pdk_world_channels(f.world, f.id);
    for (int i = 0; i < PDK_CH_COUNT; i++) {
        ck_assert_double_eq(ch[i], 0.0);
    }
    double integral = 0.0;
    for (int t = 0; t < 6 * 120; t++) {
        pdk_vehicle_pose p;
        ck_assert_int_eq(pdk_world_vehicle_pose(f.world, f.id, &p), PDK_OK);
        double err = 15.0 - p.vx_mps;
        integral += err / 120.0;
        double throttle = 100.0 * (err + integral);
        throttle = throttle < 0.0 ? 0.0 : (throttle > 100.0 ? 100.0 : throttle);
        pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER | PDK_DBW_BRAKE,
                         .throttle_pct = throttle,
                         .steer_wheel_deg = 60.0};
        ck_assert_int_eq(pdk_world_command(f.world, f.id, &c), PDK_OK);
        pdk_world_step(f.world);
    }
    return f;
}

START_TEST(test_state_channels_match_pose_and_command)
{
    fixture f = cornering();
    const double *ch = pdk_world_channels(f.world, f.id);
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(f.world, f.id, &p), PDK_OK);
    ck_assert_double_eq(ch[PDK_CH_POS_X], p.x_m);
    ck_assert_double_eq(ch[PDK_CH_POS_Y], p.y_m);
    ck_assert_double_eq(ch[PDK_CH_POS_Z], f.def.chassis.cg_height_m);
    ck_assert_double_eq(ch[PDK_CH_YAW], p.yaw_rad);
    ck_assert_double_eq(ch[PDK_CH_SPEED], p.speed_mps);
    ck_assert_double_le(fabs(ch[PDK_CH_SPEED] - hypot(p.vx_mps, p.vy_mps)), 1e-14);
    ck_assert_double_eq(ch[PDK_CH_VEL_X], p.vx_mps);
    ck_assert_double_eq(ch[PDK_CH_VEL_Y], p.vy_mps);
    ck_assert_double_eq(ch[PDK_CH_YAW_RATE], p.yaw_rate_radps);
    ck_assert_double_eq(ch[PDK_CH_ACCEL_X], p.ax_mps2);
    ck_assert_double_eq(ch[PDK_CH_ACCEL_Y], p.ay_mps2);
    ck_assert_double_eq(ch[PDK_CH_STEER_ANGLE], p.steer_angle_rad);
    ck_assert_double_le(fabs(ch[PDK_CH_STEER_ANGLE] - 60.0 / 15.0 * 3.14159265358979323846 / 180.0),
                        1e-15);
    ck_assert_double_eq(ch[PDK_CH_STEER_WHEEL], 60.0);
    ck_assert_double_gt(ch[PDK_CH_THROTTLE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_BRAKE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_GEAR], (double)PDK_GEAR_DRIVE);
    ck_assert_double_eq(ch[PDK_CH_FAULTED], 0.0);
    ck_assert_int_eq(pdk_world_vehicle_faulted(f.world, f.id), 0);
    free(f.world);
}
END_TEST

START_TEST(test_force_channels_balance)
{
    fixture f = cornering();
    const double *ch = pdk_world_channels(f.world, f.id);
    const pdk_vehicle_def *d = &f.def;
    double m = d->chassis.mass_kg;
    double len = d->chassis.wheelbase_m;
    double a = d->chassis.cg_to_front_axle_m;
    double b = len - a;
    double delta = ch[PDK_CH_STEER_ANGLE];
    double fxf = ch[PDK_CH_FORCE_X_F], fyf = ch[PDK_CH_FORCE_Y_F];
    double fxr = ch[PDK_CH_FORCE_X_R], fyr = ch[PDK_CH_FORCE_Y_R];
    double fzf = ch[PDK_CH_TYRE_LOAD_F], fzr = ch[PDK_CH_TYRE_LOAD_R];
    double v = ch[PDK_CH_VEL_X];

    /* Loads carry the weight, split by the CG position (steady: ax ~ 0). */
    ck_assert_double_le(fabs(fzf + fzr - m * G), 1e-9 * m * G);
    ck_assert_double_le(fabs(fzf - m * G * b / len), 2e-3 * m * G);

    /* Steady cornering: the body-frame forces (wheel-frame forces rotated by
     * delta at the front) balance m a, and the yaw moment vanishes. The
     * residue is one substep's change of the gyroscopic term, ~1e-6 m g. */
    double lat_f = fyf * cos(delta) + fxf * sin(delta);
    double lon = fxf * cos(delta) - fyf * sin(delta) + fxr + ch[PDK_CH_DRAG];
    ck_assert_double_le(fabs(m * ch[PDK_CH_ACCEL_Y] - (lat_f + fyr)), 1e-4 * m * G);
    ck_assert_double_le(fabs(m * ch[PDK_CH_ACCEL_X] - lon), 1e-4 * m * G);
    ck_assert_double_le(fabs(a * lat_f - b * fyr), 1e-4 * m * G * len);
    ck_assert_double_gt(m * ch[PDK_CH_ACCEL_Y], 0.1 * m * G);

    /* The linear tyre: Fy = -C tan(alpha), signs per ISO 8855 (a left turn
     * has both axles' contact velocities pointing right of the wheel, so
     * alpha < 0 and Fy > 0). 0.5 %: the slip angle is from the tick's end
     * velocities, the force from the last substep's implicit solve. */
    double af = ch[PDK_CH_SLIP_ANGLE_F], ar = ch[PDK_CH_SLIP_ANGLE_R];
    ck_assert_double_lt(af, 0.0);
    ck_assert_double_lt(ar, 0.0);
    ck_assert_double_le(fabs(fyf + d->tyre_front.cornering_stiffness_n_per_rad * tan(af)),
                        5e-3 * fabs(fyf));
    ck_assert_double_le(fabs(fyr + d->tyre_rear.cornering_stiffness_n_per_rad * tan(ar)),
                        5e-3 * fabs(fyr));

    /* Drag and rolling resistance oppose the forward motion. */
    double k = 0.5 * RHO * d->resist.drag_area_m2;
    ck_assert_double_le(fabs(ch[PDK_CH_DRAG] + k * v * v), 1e-3 * k * v * v);
    double rolling = d->resist.rolling_coeff * (fzf * cos(delta) + fzr);
    ck_assert_double_le(fabs(ch[PDK_CH_ROLLING] + rolling), 1e-9 * rolling);
    free(f.world);
}
END_TEST

static Suite *channels_suite(void)
{
    Suite *s = suite_create("channels");
    TCase *reg = tcase_create("registry");
    tcase_add_test(reg, test_every_channel_has_name_unit_description);
    tcase_add_test(reg, test_find);
    suite_add_tcase(s, reg);
    TCase *val = tcase_create("values");
    tcase_add_test(val, test_state_channels_match_pose_and_command);
    tcase_add_test(val, test_force_channels_balance);
    suite_add_tcase(s, val);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(channels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
