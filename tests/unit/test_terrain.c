/* Unit tests for the ground (server/sim/terrain.h): the plane, the
 * raised-cosine bump's height and normal against its formula, the raycast
 * against the exact hit, and every validation rule. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "terrain.h"

#define PI 3.14159265358979323846

static pdk_terrain_def one_bump(double yaw_rad)
{
    pdk_terrain_def t = {0};
    t.n_bumps = 1;
    t.bumps[0] = (pdk_bump){.x_m = 10.0, .y_m = -2.0, .yaw_rad = yaw_rad, .length_m = 0.8,
                            .width_m = 1.0, .height_m = 0.1};
    return t;
}

START_TEST(test_plane_is_exact)
{
    pdk_terrain_def flat = {0};
    double n[3];
    ck_assert_double_eq(pdk_terrain_height(&flat, 123.0, -45.0, n), 0.0);
    ck_assert(n[0] == 0.0 && n[1] == 0.0 && n[2] == 1.0);
    /* A ray tilted 20 degrees from 1 m up meets the plane at 1 / cos(20). */
    double o[3] = {1.0, 2.0, 1.0};
    double d[3] = {sin(20.0 * PI / 180.0), 0.0, -cos(20.0 * PI / 180.0)};
    double s = pdk_terrain_raycast(&flat, o, d, n);
    ck_assert_double_le(fabs(s - 1.0 / cos(20.0 * PI / 180.0)), 1e-15);
    ck_assert(n[2] == 1.0);
    /* From below the ground the distance is negative. */
    double below[3] = {0.0, 0.0, -0.25};
    double down[3] = {0.0, 0.0, -1.0};
    ck_assert_double_eq(pdk_terrain_raycast(&flat, below, down, n), -0.25);
}
END_TEST

/* h = H (1 - cos 2 pi u) / 2 along the length; full height across the
 * width; the normal is (-dh/dx, -dh/dy, 1) normalised. */
START_TEST(test_bump_height_and_normal)
{
    for (int k = 0; k < 3; k++) {
        double yaw = (double)k * 0.7;
        pdk_terrain_def t = one_bump(yaw);
        double cy = cos(yaw), sy = sin(yaw);
        double n[3];
        /* Peak at the centre, flat on top. */
        ck_assert_double_le(fabs(pdk_terrain_height(&t, 10.0, -2.0, n) - 0.1), 1e-15);
        ck_assert_double_le(fabs(n[2] - 1.0), 1e-15);
        /* A quarter of the way: half height and the steepest slope, H pi / L. */
        double s = -0.2; /* u = 0.25 */
        double x = 10.0 + s * cy, y = -2.0 + s * sy;
        ck_assert_double_le(fabs(pdk_terrain_height(&t, x, y, n) - 0.05), 1e-12);
        double slope = 0.1 * PI / 0.8;
        double inv = 1.0 / sqrt(1.0 + slope * slope);
        ck_assert_double_le(fabs(n[0] - (-slope * cy * inv)), 1e-12);
        ck_assert_double_le(fabs(n[1] - (-slope * sy * inv)), 1e-12);
        ck_assert_double_le(fabs(n[2] - inv), 1e-12);
        /* Off the ends and beside it: the plane. */
        ck_assert_double_eq(pdk_terrain_height(&t, 10.0 + 0.41 * cy, -2.0 + 0.41 * sy, n), 0.0);
        ck_assert_double_eq(pdk_terrain_height(&t, 10.0 - 0.51 * sy, -2.0 + 0.51 * cy, n), 0.0);
        /* Across the width at the centre: full height to the edge. */
        ck_assert_double_le(
            fabs(pdk_terrain_height(&t, 10.0 - 0.49 * sy, -2.0 + 0.49 * cy, n) - 0.1), 1e-15);
    }
}
END_TEST

/* The highest of overlapping bumps wins; a dip alone goes below 0. */
START_TEST(test_overlap_and_dip)
{
    pdk_terrain_def t = one_bump(0.0);
    t.n_bumps = 2;
    t.bumps[1] = t.bumps[0];
    t.bumps[1].height_m = 0.2;
    double n[3];
    ck_assert_double_le(fabs(pdk_terrain_height(&t, 10.0, -2.0, n) - 0.2), 1e-15);
    t.n_bumps = 1;
    t.bumps[0].height_m = -0.05;
    ck_assert_double_le(fabs(pdk_terrain_height(&t, 10.0, -2.0, n) + 0.05), 1e-15);
}
END_TEST

/* A vertical ray hits the bump's surface exactly; a tilted one converges to
 * the point where the ray's height equals the ground's (checked by
 * evaluating the ground at the reported hit). */
START_TEST(test_raycast_on_bump)
{
    pdk_terrain_def t = one_bump(0.3);
    double n[3];
    for (int i = 0; i <= 20; i++) {
        double x = 9.5 + 0.05 * i;
        double o[3] = {x, -2.0 + (x - 10.0) * tan(0.3), 0.6};
        double down[3] = {0.0, 0.0, -1.0};
        double s = pdk_terrain_raycast(&t, o, down, n);
        double h = pdk_terrain_height(&t, o[0], o[1], n);
        ck_assert_double_le(fabs((0.6 - s) - h), 1e-15);
        /* 10 degrees of roll (a rolled body's strut). */
        double tilt[3] = {0.0, sin(0.17), -cos(0.17)};
        s = pdk_terrain_raycast(&t, o, tilt, n);
        double px = o[0] + s * tilt[0], py = o[1] + s * tilt[1], pz = o[2] + s * tilt[2];
        ck_assert_double_le(fabs(pz - pdk_terrain_height(&t, px, py, n)), 1e-4);
        /* 20 degrees of pitch across the steep part. */
        double pitch[3] = {sin(0.35), 0.0, -cos(0.35)};
        s = pdk_terrain_raycast(&t, o, pitch, n);
        px = o[0] + s * pitch[0];
        py = o[1] + s * pitch[1];
        pz = o[2] + s * pitch[2];
        ck_assert_double_le(fabs(pz - pdk_terrain_height(&t, px, py, n)), 1e-3);
    }
}
END_TEST

START_TEST(test_problems)
{
    pdk_terrain_def t = one_bump(0.0);
    ck_assert_ptr_null(pdk_terrain_problem(&t));
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(NULL), "NULL"));
    t.n_bumps = 17;
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(&t), "n_bumps"));
    t = one_bump(0.0);
    t.bumps[0].height_m = 0.41; /* steeper than |height| <= length / 2 */
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(&t), "bumps[0].height_m"));
    t = one_bump(NAN);
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(&t), "bumps[0].yaw_rad"));
    t = one_bump(0.0);
    t.bumps[0].width_m = 0.0;
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(&t), "bumps[0].length_m and width_m"));
    t = one_bump(0.0);
    t.bumps[0].x_m = -1.1e7;
    ck_assert_ptr_nonnull(strstr(pdk_terrain_problem(&t), "bumps[0].x_m and y_m"));
}
END_TEST

static Suite *terrain_suite(void)
{
    Suite *s = suite_create("terrain");
    TCase *tc = tcase_create("terrain");
    tcase_add_test(tc, test_plane_is_exact);
    tcase_add_test(tc, test_bump_height_and_normal);
    tcase_add_test(tc, test_overlap_and_dip);
    tcase_add_test(tc, test_raycast_on_bump);
    tcase_add_test(tc, test_problems);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(terrain_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
