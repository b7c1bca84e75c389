/* Unit tests for the ground (server/sim/terrain.h): the plane, the
 * raised-cosine bump's height and normal against its formula, the raycast
 * against the exact hit, and every validation rule; a prepared terrain
 * (derived direction cosines and boxes, the rays' early outs) gives the
 * very bits of the plain formulas, and it is plain data. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "terrain.h"
#include "trig.h"
#include "world.h"

#define PI 3.14159265358979323846

static pdk_terrain_def one_bump(double yaw_rad)
{
    pdk_terrain_def t = {0};
    t.n_bumps = 1;
    t.bumps[0] = (pdk_bump){.x_m = 10.0,
                            .y_m = -2.0,
                            .yaw_rad = yaw_rad,
                            .length_m = 0.8,
                            .width_m = 1.0,
                            .height_m = 0.1};
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

/* ---- prepared terrains --------------------------------------------------- */

/* The ground as it was computed before terrains were prepared, written out
 * here as the reference: each bump's direction from its yaw by
 * pdk_trig_sincos at every call, every bump tested exactly, the ray's three
 * fixed-point passes always taken. */
static int ref_bump(const pdk_bump *b, double x, double y, double *h, double *gx, double *gy)
{
    double sy, cy;
    pdk_trig_sincos(b->yaw_rad, &sy, &cy);
    double dx = x - b->x_m;
    double dy = y - b->y_m;
    double s = dx * cy + dy * sy;
    double w = -dx * sy + dy * cy;
    if (fabs(s) >= 0.5 * b->length_m || fabs(w) > 0.5 * b->width_m) {
        return 0;
    }
    double u = s / b->length_m + 0.5;
    double su, cu;
    pdk_trig_sincos(2.0 * PI * u, &su, &cu);
    *h = b->height_m * 0.5 * (1.0 - cu);
    double dhds = b->height_m * (2.0 * PI * 0.5) * su / b->length_m;
    *gx = dhds * cy;
    *gy = dhds * sy;
    return 1;
}

static double ref_height(const pdk_terrain_def *t, double x, double y, double normal[3])
{
    double best = 0.0, gx = 0.0, gy = 0.0;
    int found = 0;
    for (int i = 0; i < t->n_bumps; i++) {
        double h, bx, by;
        if (ref_bump(&t->bumps[i], x, y, &h, &bx, &by) && (!found || h > best)) {
            best = h;
            gx = bx;
            gy = by;
            found = 1;
        }
    }
    double inv = 1.0 / sqrt(gx * gx + gy * gy + 1.0);
    normal[0] = -gx * inv;
    normal[1] = -gy * inv;
    normal[2] = inv;
    return best;
}

static double ref_raycast(const pdk_terrain_def *t, const double o[3], const double d[3],
                          double normal[3])
{
    double s = (ref_height(t, o[0], o[1], normal) - o[2]) / d[2];
    for (int pass = 0; pass < 3; pass++) {
        double h = ref_height(t, o[0] + s * d[0], o[1] + s * d[1], normal);
        s = (h - o[2]) / d[2];
    }
    return s;
}

static uint64_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 11;
}

static double uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * ((double)lcg(state) / 9007199254740992.0);
}

/* Twelve bumps of every yaw, some overlapping, some dips, in a 40 m square. */
static pdk_terrain_def random_terrain(uint64_t *rng)
{
    pdk_terrain_def t = {0};
    t.n_bumps = 12;
    for (int i = 0; i < t.n_bumps; i++) {
        double length = uniform(rng, 0.3, 4.0);
        t.bumps[i] = (pdk_bump){.x_m = uniform(rng, -20.0, 20.0),
                                .y_m = uniform(rng, -20.0, 20.0),
                                .yaw_rad = uniform(rng, -4.0, 4.0),
                                .length_m = length,
                                .width_m = uniform(rng, 0.3, 8.0),
                                .height_m = uniform(rng, -0.4, 0.5) * length};
    }
    ck_assert_ptr_null(pdk_terrain_problem(&t));
    return t;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Heights, normals and rays over random terrains at random points, many of
 * them on a bump's edge or corner (where a box too tight would drop a hit),
 * and rays tilted up to 30 degrees: the prepared terrain, the same terrain
 * unprepared, and the reference agree bit for bit, zero signs included. */
START_TEST(test_prepared_matches_reference)
{
    uint64_t rng = 7u;
    int on_bump = 0, rays_on_bump = 0;
    for (int k = 0; k < 20; k++) {
        pdk_terrain_def plain = random_terrain(&rng);
        pdk_terrain_def prepared = plain;
        pdk_terrain_prepare(&prepared);
        ck_assert_int_eq(prepared.prepared, 1);
        ck_assert_int_eq(plain.prepared, 0);
        for (int i = 0; i < 2000; i++) {
            double x, y;
            if (i % 2 == 0) {
                x = uniform(&rng, -25.0, 25.0);
                y = uniform(&rng, -25.0, 25.0);
            } else {
                /* A point on the boundary of a random bump (or a hair
                 * inside or outside it). */
                const pdk_bump *b = &plain.bumps[lcg(&rng) % (uint64_t)plain.n_bumps];
                double sy, cy;
                pdk_trig_sincos(b->yaw_rad, &sy, &cy);
                double s = (i % 4 == 1 ? 0.5 : uniform(&rng, -0.5, 0.5)) * b->length_m;
                double w = (i % 4 == 3 ? 0.5 : uniform(&rng, -0.5, 0.5)) * b->width_m;
                s = (lcg(&rng) & 1u) ? -s : s;
                w *= 1.0 + uniform(&rng, -1e-15, 1e-15);
                x = b->x_m + s * cy - w * sy;
                y = b->y_m + s * sy + w * cy;
            }
            double n_ref[3], n_prep[3], n_plain[3];
            double h_ref = ref_height(&plain, x, y, n_ref);
            double h_prep = pdk_terrain_height(&prepared, x, y, n_prep);
            double h_plain = pdk_terrain_height(&plain, x, y, n_plain);
            on_bump += h_ref != 0.0;
            ck_assert_msg(same_bits(h_ref, h_prep) && same_bits(h_ref, h_plain),
                          "height at (%.17g, %.17g): %.17g, prepared %.17g, unprepared %.17g", x, y,
                          h_ref, h_prep, h_plain);
            for (int j = 0; j < 3; j++) {
                ck_assert(same_bits(n_ref[j], n_prep[j]) && same_bits(n_ref[j], n_plain[j]));
            }

            double tilt = uniform(&rng, 0.0, 30.0 * PI / 180.0);
            double dir_yaw = uniform(&rng, -PI, PI);
            double d[3] = {sin(tilt) * cos(dir_yaw), sin(tilt) * sin(dir_yaw), -cos(tilt)};
            double o[3] = {x, y, uniform(&rng, -0.2, 1.5)};
            double s_ref = ref_raycast(&plain, o, d, n_ref);
            double s_prep = pdk_terrain_raycast(&prepared, o, d, n_prep);
            double s_plain = pdk_terrain_raycast(&plain, o, d, n_plain);
            rays_on_bump += n_ref[2] != 1.0;
            ck_assert_msg(same_bits(s_ref, s_prep) && same_bits(s_ref, s_plain),
                          "ray from (%.17g, %.17g, %.17g): %.17g, prepared %.17g, unprepared "
                          "%.17g",
                          o[0], o[1], o[2], s_ref, s_prep, s_plain);
            for (int j = 0; j < 3; j++) {
                ck_assert(same_bits(n_ref[j], n_prep[j]) && same_bits(n_ref[j], n_plain[j]));
            }
        }
    }
    /* The samples did land on bumps (about half the edge points, a few of
     * the others): the comparison is not only of the plane. */
    ck_assert_int_gt(on_bump, 5000);
    ck_assert_int_gt(rays_on_bump, 5000);
}
END_TEST

/* The derived fields: the direction cosines are pdk_trig_sincos of the
 * yaw; every point of the bump (its four corners, at every yaw) lies in
 * its box, and the box is no bigger than the bump's bounding rectangle
 * plus its slack (1e-9 of the half extents). */
START_TEST(test_prepare_boxes)
{
    uint64_t rng = 11u;
    for (int k = 0; k < 200; k++) {
        pdk_terrain_def t = random_terrain(&rng);
        pdk_terrain_prepare(&t);
        for (int i = 0; i < t.n_bumps; i++) {
            const pdk_bump *b = &t.bumps[i];
            double sy, cy;
            pdk_trig_sincos(b->yaw_rad, &sy, &cy);
            ck_assert(same_bits(b->sin_yaw, sy) && same_bits(b->cos_yaw, cy));
            double hl = 0.5 * b->length_m, hw = 0.5 * b->width_m;
            double far_x = 0.0, far_y = 0.0;
            for (int c = 0; c < 4; c++) {
                double s = (c & 1) ? hl : -hl;
                double w = (c & 2) ? hw : -hw;
                far_x = fmax(far_x, fabs(s * cy - w * sy));
                far_y = fmax(far_y, fabs(s * sy + w * cy));
            }
            ck_assert_double_ge(b->box_half_x_m, far_x);
            ck_assert_double_ge(b->box_half_y_m, far_y);
            ck_assert_double_le(b->box_half_x_m, far_x + 1e-8 * (hl + hw));
            ck_assert_double_le(b->box_half_y_m, far_y + 1e-8 * (hl + hw));
        }
    }
}
END_TEST

/* A prepared terrain is plain data: a byte copy is prepared and answers
 * alike; preparing twice changes nothing; the world prepares its own copy
 * (the definition it was made from stays as it was). */
START_TEST(test_prepared_is_plain_data)
{
    uint64_t rng = 3u;
    pdk_terrain_def t = random_terrain(&rng);
    pdk_terrain_def once = t;
    pdk_terrain_prepare(&once);
    pdk_terrain_def twice = once;
    pdk_terrain_prepare(&twice);
    ck_assert(memcmp(&once, &twice, sizeof once) == 0);
    pdk_terrain_def copy;
    memcpy(&copy, &once, sizeof copy);
    double n1[3], n2[3];
    double o[3] = {1.0, 2.0, 0.8};
    double d[3] = {0.0, 0.0, -1.0};
    ck_assert(
        same_bits(pdk_terrain_raycast(&once, o, d, n1), pdk_terrain_raycast(&copy, o, d, n2)));

    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 1;
    wd.terrain = t;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    const pdk_terrain_def *in_world = &pdk_world_def_get(w)->terrain;
    ck_assert_int_eq(in_world->prepared, 1);
    ck_assert(memcmp(in_world, &once, sizeof once) == 0);
    ck_assert_int_eq(wd.terrain.prepared, 0);
    free(mem);
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
    TCase *prep = tcase_create("prepared");
    tcase_add_test(prep, test_prepared_matches_reference);
    tcase_add_test(prep, test_prepare_boxes);
    tcase_add_test(prep, test_prepared_is_plain_data);
    suite_add_tcase(s, prep);
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
