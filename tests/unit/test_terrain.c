/* Unit tests for the ground (server/sim/terrain.h): the plane, the
 * raised-cosine bump's height and normal against its formula, the raycast
 * against the exact hit, and every validation rule; a prepared terrain
 * (derived direction cosines and boxes, the rays' early outs) gives the
 * very bits of the plain formulas, and it is plain data. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ground/surface.h"
#include "ground/terrain.h"
#include "math/trig.h"
#include "sim/world.h"

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

/* ---- the terrain of issue 4: ramps, heightfield, surfaces, sweep ---------- */

/* A terrain is about 82 KB (the grid's capacity): the tests below keep
 * theirs on the heap. */
static pdk_terrain_def *new_flat(void)
{
    pdk_terrain_def *t = malloc(sizeof *t);
    ck_assert_ptr_nonnull(t);
    pdk_terrain_def_flat(t);
    return t;
}

static void assert_normal(const double n[3], double gx, double gy, double tol)
{
    double inv = 1.0 / sqrt(1.0 + gx * gx + gy * gy);
    ck_assert_double_le(fabs(n[0] + gx * inv), tol);
    ck_assert_double_le(fabs(n[1] + gy * inv), tol);
    ck_assert_double_le(fabs(n[2] - inv), tol);
}

START_TEST(test_def_flat)
{
    pdk_terrain_def *t = new_flat();
    ck_assert_int_eq(t->base_surface_id, PDK_SURFACE_TARMAC);
    ck_assert_int_eq(t->contact_mode, PDK_CONTACT_RAY);
    ck_assert_double_eq(t->air_temp_c, 20.0);
    ck_assert_double_eq(t->road_temp_c, 20.0);
    ck_assert_int_eq(t->n_bumps + t->n_ramps + t->n_patches + t->field.nx + t->field.ny, 0);
    ck_assert_ptr_null(pdk_terrain_problem(t));
    ck_assert_int_eq(pdk_terrain_is_plane(t), 1);
    double depth = -1.0;
    ck_assert_int_eq(pdk_terrain_surface(t, 3.0, -4.0, &depth), PDK_SURFACE_TARMAC);
    ck_assert_double_eq(depth, 0.0);
    double o[3] = {1.0, 2.0, 0.7};
    double d[3] = {sin(0.3), 0.0, -cos(0.3)};
    pdk_ground_hit hit;
    pdk_terrain_ray_hit(t, o, d, &hit);
    ck_assert(same_bits(hit.distance_m, -o[2] / d[2]));
    ck_assert_double_le(fabs(hit.point_m[2]), 1e-15);
    ck_assert_double_eq(hit.normal[2], 1.0);
    ck_assert_int_eq(hit.surface_id, PDK_SURFACE_TARMAC);
    ck_assert_double_eq(hit.water_depth_m, 0.0);
    t->base_surface_id = PDK_SURFACE_GRAVEL;
    pdk_terrain_ray_hit(t, o, d, &hit);
    ck_assert_int_eq(hit.surface_id, PDK_SURFACE_GRAVEL);
    free(t);
}
END_TEST

/* A ramp of grade G from the line x = 5 along +x, length 20 m, rounded over
 * 4 m: 0 before x = 3, G (x - 5) on the slope from 7 to 23, G L on top from
 * 27 on; the normal (-G, 0, 1) / sqrt(1 + G^2) on the slope. */
static pdk_ramp test_ramp(double grade)
{
    return (pdk_ramp){.x_m = 5.0,
                      .y_m = 0.0,
                      .yaw_rad = 0.0,
                      .length_m = 20.0,
                      .width_m = 6.0,
                      .grade = grade,
                      .transition_m = 4.0,
                      .hold_m = 0.0};
}

START_TEST(test_ramp_grades)
{
    pdk_terrain_def *t = new_flat();
    t->n_ramps = 1;
    const double grades[] = {0.10, 0.20, 0.30, -0.20};
    for (size_t k = 0; k < sizeof grades / sizeof grades[0]; k++) {
        double g = grades[k];
        t->ramps[0] = test_ramp(g);
        t->prepared = 0;
        ck_assert_ptr_null(pdk_terrain_problem(t));
        ck_assert_int_eq(pdk_terrain_is_plane(t), 0);
        double n[3];
        ck_assert_double_eq(pdk_terrain_height(t, 2.9, 0.0, n), 0.0);
        ck_assert_double_eq(n[2], 1.0);
        for (double x = 7.0; x <= 23.0; x += 0.5) {
            ck_assert_double_le(fabs(pdk_terrain_height(t, x, 1.0, n) - g * (x - 5.0)), 1e-12);
            assert_normal(n, g, 0.0, 1e-15);
        }
        /* The middle of the lower rounding: slope G / 2, height
         * G (T/2 - T/pi) / 2; the top holds G L for ever. */
        ck_assert_double_le(fabs(pdk_terrain_height(t, 5.0, 0.0, n) - 0.5 * g * (2.0 - 4.0 / PI)),
                            1e-14);
        assert_normal(n, 0.5 * g, 0.0, 1e-15);
        ck_assert_double_le(fabs(pdk_terrain_height(t, 1000.0, -2.9, n) - 20.0 * g), 1e-12);
        assert_normal(n, 0.0, 0.0, 0.0);
        /* Outside its width: the plane. */
        ck_assert_double_eq(pdk_terrain_height(t, 15.0, 3.01, n), 0.0);
        /* Continuity: the height and the normal run on smoothly through both
         * roundings (steps of 1 mm change them by O(1 mm) and O(G / T mm)),
         * and the slope read from the normal is the height's derivative. */
        double prev_h = pdk_terrain_height(t, 2.0, 0.0, n);
        double prev_slope = -n[0] / n[2];
        for (int i = 1; i <= 28000; i++) {
            double x = 2.0 + 0.001 * i;
            double h = pdk_terrain_height(t, x, 0.0, n);
            double slope = -n[0] / n[2];
            ck_assert_double_le(fabs(h - prev_h), fabs(g) * 0.001 + 1e-12);
            ck_assert_double_le(fabs(slope - prev_slope), fabs(g) * PI / 2.0 / 4.0 * 0.001 + 1e-12);
            ck_assert_double_le(fabs((h - prev_h) / 0.001 - 0.5 * (slope + prev_slope)),
                                fabs(g) * 1e-6 + 1e-9);
            prev_h = h;
            prev_slope = slope;
        }
        /* At the corners of the roundings the slope is 0 and G. */
        pdk_terrain_height(t, 3.0, 0.0, n);
        assert_normal(n, 0.0, 0.0, 1e-15);
        pdk_terrain_height(t, 7.0, 0.0, n);
        assert_normal(n, g, 0.0, 1e-15);
        pdk_terrain_height(t, 27.0, 0.0, n);
        assert_normal(n, 0.0, 0.0, 1e-15);
    }
    free(t);
}
END_TEST

/* A hold: the top ends H after the slope and the ground comes back down the
 * same way, symmetric about the middle of the top; a yawed ramp and a bank
 * tilt the normal along their direction. */
START_TEST(test_ramp_hold_and_bank)
{
    pdk_terrain_def *t = new_flat();
    t->n_ramps = 1;
    t->ramps[0] = test_ramp(0.3);
    t->ramps[0].hold_m = 10.0;
    double n[3], m[3];
    /* Up 5..25, top 25..35, down 35..55: middle at x = 30. */
    ck_assert_double_le(fabs(pdk_terrain_height(t, 30.0, 0.0, n) - 6.0), 1e-12);
    ck_assert_double_le(fabs(pdk_terrain_height(t, 45.0, 0.0, n) - 3.0), 1e-12);
    assert_normal(n, -0.3, 0.0, 1e-15);
    ck_assert_double_eq(pdk_terrain_height(t, 57.0, 0.0, n), 0.0);
    for (double x = 0.0; x <= 25.0; x += 0.37) {
        double a = pdk_terrain_height(t, 30.0 - x, 0.0, n);
        double b = pdk_terrain_height(t, 30.0 + x, 0.0, m);
        ck_assert_double_le(fabs(a - b), 1e-12);
        ck_assert_double_le(fabs(n[0] + m[0]), 1e-12);
    }
    /* A hold shorter than the transition still gives a continuous bump. */
    t->ramps[0].hold_m = 1.0;
    double prev = pdk_terrain_height(t, 20.0, 0.0, n);
    for (int i = 1; i <= 20000; i++) {
        double h = pdk_terrain_height(t, 20.0 + 0.001 * i, 0.0, n);
        ck_assert_double_le(fabs(h - prev), 0.3 * 0.001 + 1e-12);
        prev = h;
    }

    /* A 20 % ramp along yaw 30 deg: the gradient points along (cos, sin). */
    double yaw = 30.0 * PI / 180.0;
    t->ramps[0] = test_ramp(0.2);
    t->ramps[0].yaw_rad = yaw;
    t->ramps[0].x_m = 0.0;
    t->prepared = 0;
    double s = 12.0, w = -2.0;
    double x = s * cos(yaw) - w * sin(yaw), y = s * sin(yaw) + w * cos(yaw);
    ck_assert_double_le(fabs(pdk_terrain_height(t, x, y, n) - 2.4), 1e-12);
    assert_normal(n, 0.2 * cos(yaw), 0.2 * sin(yaw), 1e-12);

    /* A 10 % bank: a road along x, the ground rising to the left (+y) from
     * y = -3 over 6 m, 100 m long. */
    t->ramps[0] = (pdk_ramp){.x_m = 50.0,
                             .y_m = -3.0,
                             .yaw_rad = PI / 2.0,
                             .length_m = 6.0,
                             .width_m = 100.0,
                             .grade = 0.1,
                             .transition_m = 1.0,
                             .hold_m = 0.0};
    t->prepared = 0;
    ck_assert_double_le(fabs(pdk_terrain_height(t, 20.0, 0.0, n) - 0.3), 1e-12);
    assert_normal(n, 0.0, 0.1, 1e-12);
    ck_assert_double_le(fabs(pdk_terrain_height(t, 80.0, 5.0, n) - 0.6), 1e-12);
    ck_assert_double_eq(pdk_terrain_height(t, 101.0, 0.0, n), 0.0);
    free(t);
}
END_TEST

/* A grid whose heights are a plane, h = 1 + x / 8 - y / 16 at every corner
 * (exact in float): bilinear is that plane inside, to rounding, and the
 * edge's height held outside. */
static void planar_field(pdk_terrain_def *t)
{
    pdk_heightfield *f = &t->field;
    f->nx = 5;
    f->ny = 4;
    f->cell_m = 2.0;
    f->origin_x_m = -3.0;
    f->origin_y_m = 1.0;
    f->has_heights = 1;
    for (int j = 0; j < f->ny; j++) {
        for (int i = 0; i < f->nx; i++) {
            double x = -3.0 + 2.0 * i, y = 1.0 + 2.0 * j;
            f->height_m[j * f->nx + i] = (float)(1.0 + x / 8.0 - y / 16.0);
        }
    }
}

START_TEST(test_field_bilinear)
{
    pdk_terrain_def *t = new_flat();
    planar_field(t);
    ck_assert_ptr_null(pdk_terrain_problem(t));
    ck_assert_int_eq(pdk_terrain_is_plane(t), 0);
    uint64_t rng = 5u;
    double n[3];
    for (int k = 0; k < 2000; k++) {
        double x = uniform(&rng, -3.0, 5.0), y = uniform(&rng, 1.0, 7.0);
        ck_assert_double_le(fabs(pdk_terrain_height(t, x, y, n) - (1.0 + x / 8.0 - y / 16.0)),
                            1e-14);
        assert_normal(n, 1.0 / 8.0, -1.0 / 16.0, 1e-15);
    }
    /* Corners exactly. */
    ck_assert_double_eq(pdk_terrain_height(t, 1.0, 3.0, n), 1.0 + 1.0 / 8.0 - 3.0 / 16.0);
    /* Outside: held at the edge, flat across it. */
    ck_assert_double_le(fabs(pdk_terrain_height(t, 40.0, 4.0, n) - (1.0 + 5.0 / 8.0 - 0.25)),
                        1e-14);
    assert_normal(n, 0.0, -1.0 / 16.0, 1e-15);
    ck_assert_double_le(
        fabs(pdk_terrain_height(t, -10.0, -10.0, n) - (1.0 - 3.0 / 8.0 - 1.0 / 16.0)), 1e-14);
    assert_normal(n, 0.0, 0.0, 0.0);
    /* A saddle cell: the centre is the corners' mean, the gradient there
     * the mean of the edges' differences. */
    t->field.height_m[0] = 0.0f;
    t->field.height_m[1] = 1.0f;
    t->field.height_m[5] = 1.0f;
    t->field.height_m[6] = 0.0f;
    ck_assert_double_eq(pdk_terrain_height(t, -2.0, 2.0, n), 0.5);
    assert_normal(n, 0.0, 0.0, 1e-15);
    ck_assert_double_eq(pdk_terrain_height(t, -2.5, 2.0, n), 0.5);
    ck_assert_double_eq(pdk_terrain_height(t, -2.5, 1.5, n), 0.25 * 0.75 + 0.75 * 0.25 + 0.0);
    free(t);
}
END_TEST

/* Materials per cell, the base surface outside the grid, patches over both
 * with the last listed winning, a rotated rectangle's and a circle's
 * edges. */
START_TEST(test_materials_and_patches)
{
    pdk_terrain_def *t = new_flat();
    pdk_heightfield *f = &t->field;
    f->nx = 4;
    f->ny = 3;
    f->cell_m = 10.0;
    f->has_materials = 1;
    /* Cells row-major: y in 0..10 then 10..20; x in 0..10, 10..20, 20..30. */
    const uint8_t mats[6] = {PDK_SURFACE_GRAVEL, PDK_SURFACE_GRASS, PDK_SURFACE_MUD,
                             PDK_SURFACE_SAND, PDK_SURFACE_ICE, PDK_SURFACE_SNOW};
    memcpy(f->material, mats, sizeof mats);
    ck_assert_ptr_null(pdk_terrain_problem(t));
    ck_assert_int_eq(pdk_terrain_is_plane(t), 1);
    ck_assert_int_eq(pdk_terrain_surface(t, 5.0, 5.0, NULL), PDK_SURFACE_GRAVEL);
    ck_assert_int_eq(pdk_terrain_surface(t, 10.0, 5.0, NULL), PDK_SURFACE_GRASS);
    ck_assert_int_eq(pdk_terrain_surface(t, 29.9, 5.0, NULL), PDK_SURFACE_MUD);
    ck_assert_int_eq(pdk_terrain_surface(t, 15.0, 19.99, NULL), PDK_SURFACE_ICE);
    ck_assert_int_eq(pdk_terrain_surface(t, 25.0, 15.0, NULL), PDK_SURFACE_SNOW);
    ck_assert_int_eq(pdk_terrain_surface(t, 30.0, 15.0, NULL), PDK_SURFACE_TARMAC);
    ck_assert_int_eq(pdk_terrain_surface(t, -0.01, 5.0, NULL), PDK_SURFACE_TARMAC);
    ck_assert_int_eq(pdk_terrain_surface(t, 5.0, 20.0, NULL), PDK_SURFACE_TARMAC);

    /* A 4 x 2 m concrete rectangle turned 90 deg at (5, 5), and a dirt
     * circle of radius 3 at (7, 5) listed after it. */
    t->n_patches = 2;
    t->patches[0] = (pdk_patch){.shape = PDK_PATCH_RECT,
                                .surface_id = PDK_SURFACE_CONCRETE,
                                .x_m = 5.0,
                                .y_m = 5.0,
                                .yaw_rad = PI / 2.0,
                                .size_x_m = 4.0,
                                .size_y_m = 2.0};
    t->patches[1] = (pdk_patch){.shape = PDK_PATCH_CIRCLE,
                                .surface_id = PDK_SURFACE_DIRT,
                                .x_m = 7.0,
                                .y_m = 5.0,
                                .size_x_m = 3.0};
    ck_assert_ptr_null(pdk_terrain_problem(t));
    double depth = -1.0;
    ck_assert_int_eq(pdk_terrain_surface(t, 4.5, 6.9, &depth), PDK_SURFACE_CONCRETE);
    ck_assert_double_eq(depth, 0.0);
    ck_assert_int_eq(pdk_terrain_surface(t, 3.9, 5.0, NULL), PDK_SURFACE_GRAVEL); /* 1 m across */
    ck_assert_int_eq(pdk_terrain_surface(t, 4.1, 5.0, NULL), PDK_SURFACE_DIRT);   /* both: last */
    ck_assert_int_eq(pdk_terrain_surface(t, 9.9, 5.0, NULL), PDK_SURFACE_DIRT);
    ck_assert_int_eq(pdk_terrain_surface(t, 10.1, 5.0, NULL), PDK_SURFACE_GRASS);
    /* Reversed, the rectangle wins where they overlap. */
    pdk_patch tmp = t->patches[0];
    t->patches[0] = t->patches[1];
    t->patches[1] = tmp;
    ck_assert_int_eq(pdk_terrain_surface(t, 4.1, 5.0, NULL), PDK_SURFACE_CONCRETE);
    /* The ray's hit reports the surface where it lands. */
    double o[3] = {7.0, 2.5, 0.5};
    double d[3] = {0.0, 0.0, -1.0};
    pdk_ground_hit hit;
    pdk_terrain_ray_hit(t, o, d, &hit);
    ck_assert_int_eq(hit.surface_id, PDK_SURFACE_DIRT);
    ck_assert_double_eq(hit.distance_m, 0.5);
    free(t);
}
END_TEST

/* A ford: a dip 0.4 m deep (a falling ramp with a hold), a water patch
 * 0.4 m deep at its centre: the water's level is 0 and the depth is what
 * the ground lacks of it, deepest on the bottom and running out on the
 * approaches; the surface under the water is the ground's. */
START_TEST(test_water_depth)
{
    pdk_terrain_def *t = new_flat();
    t->base_surface_id = PDK_SURFACE_DIRT;
    t->n_ramps = 1;
    t->ramps[0] = (pdk_ramp){.x_m = 10.0,
                             .y_m = 0.0,
                             .yaw_rad = 0.0,
                             .length_m = 4.0,
                             .width_m = 8.0,
                             .grade = -0.1,
                             .transition_m = 1.0,
                             .hold_m = 6.0};
    t->n_patches = 1;
    t->patches[0] = (pdk_patch){.shape = PDK_PATCH_RECT,
                                .surface_id = 0,
                                .x_m = 17.0,
                                .y_m = 0.0,
                                .size_x_m = 20.0,
                                .size_y_m = 8.0,
                                .water_depth_m = 0.4};
    ck_assert_ptr_null(pdk_terrain_problem(t));
    double depth, n[3];
    ck_assert_int_eq(pdk_terrain_surface(t, 17.0, 0.0, &depth), PDK_SURFACE_DIRT);
    ck_assert_double_le(fabs(depth - 0.4), 1e-12);
    ck_assert_double_le(fabs(pdk_terrain_height(t, 17.0, 0.0, n) + 0.4), 1e-12);
    pdk_terrain_surface(t, 12.0, 0.0, &depth); /* on the way down: 0.2 m below 0 */
    ck_assert_double_le(fabs(depth - 0.2), 1e-12);
    pdk_terrain_surface(t, 8.0, 0.0, &depth); /* level ground, inside the patch */
    ck_assert_double_eq(depth, 0.0);
    pdk_terrain_surface(t, 17.0, 4.5, &depth); /* beside it */
    ck_assert_double_eq(depth, 0.0);
    /* The hit measures from its own point. */
    double o[3] = {12.0, 1.0, 0.5};
    double dn[3] = {0.0, 0.0, -1.0};
    pdk_ground_hit hit;
    pdk_terrain_ray_hit(t, o, dn, &hit);
    ck_assert_double_le(fabs(hit.distance_m - 0.7), 1e-9);
    ck_assert_double_le(fabs(hit.water_depth_m - 0.2), 1e-9);
    ck_assert_int_eq(hit.surface_id, PDK_SURFACE_DIRT);
    /* A surface patch under the water changes the surface, not the depth. */
    t->n_patches = 2;
    t->patches[1] = t->patches[0];
    t->patches[0].water_depth_m = 0.0;
    t->patches[0].surface_id = PDK_SURFACE_MUD;
    ck_assert_int_eq(pdk_terrain_surface(t, 17.0, 0.0, &depth), PDK_SURFACE_MUD);
    ck_assert_double_le(fabs(depth - 0.4), 1e-12);
    free(t);
}
END_TEST

/* Walks the ray from its origin to s in steps of 1 mm and checks it stays
 * above the ground until s - 1 mm: the hit is the first one. */
static void assert_first_hit(const pdk_terrain_def *t, const double o[3], const double d[3],
                             double s)
{
    double n[3];
    for (double u = 0.0; u < s - 1e-3; u += 1e-3) {
        double h = pdk_terrain_height(t, o[0] + u * d[0], o[1] + u * d[1], n);
        ck_assert_msg(o[2] + u * d[2] > h, "the ray is below the ground at %g before its hit %g", u,
                      s);
    }
}

/* Rays over ramps of 10, 20 and 30 % (slope and roundings) and over a
 * rough heightfield, vertical and tilted up to 30 degrees: the hit lies on
 * the ground to 1e-9 m and is the first along the ray; a vertical ray is
 * exact; from below the ground the distance is negative. */
START_TEST(test_rays_on_ramps_and_field)
{
    pdk_terrain_def *t = new_flat();
    t->n_ramps = 1;
    uint64_t rng = 17u;
    const double grades[] = {0.10, 0.20, 0.30};
    for (int k = 0; k < 3; k++) {
        t->ramps[0] = test_ramp(grades[k]);
        t->ramps[0].hold_m = 5.0;
        t->prepared = 0;
        for (int i = 0; i < 400; i++) {
            double x = uniform(&rng, 0.0, 55.0), y = uniform(&rng, -2.5, 2.5);
            double n[3];
            double h = pdk_terrain_height(t, x, y, n);
            double o[3] = {x, y, h + uniform(&rng, -0.2, 0.8)};
            double down[3] = {0.0, 0.0, -1.0};
            double s = pdk_terrain_raycast(t, o, down, n);
            ck_assert_double_le(fabs(s - (o[2] - h)), 1e-12);
            double tilt = uniform(&rng, 0.0, 30.0 * PI / 180.0), az = uniform(&rng, -PI, PI);
            double d[3] = {sin(tilt) * cos(az), sin(tilt) * sin(az), -cos(tilt)};
            s = pdk_terrain_raycast(t, o, d, n);
            double px = o[0] + s * d[0], py = o[1] + s * d[1], pz = o[2] + s * d[2];
            double hp = pdk_terrain_height(t, px, py, n);
            ck_assert_msg(fabs(pz - hp) <= 1e-9, "ramp %d: off the ground by %g", k, pz - hp);
            if (o[2] < h) {
                ck_assert_double_lt(s, 0.0);
            } else if (fabs(py) < 2.0) {
                assert_first_hit(t, o, d, s);
            }
        }
    }
    /* A 16 x 16 grid of 0.5 m cells, heights random within +-0.15 m
     * (slopes up to 0.6), with a 10 % ramp across it. */
    pdk_heightfield *f = &t->field;
    f->nx = 16;
    f->ny = 16;
    f->cell_m = 0.5;
    f->has_heights = 1;
    for (int i = 0; i < 256; i++) {
        f->height_m[i] = (float)uniform(&rng, -0.15, 0.15);
    }
    t->ramps[0] = test_ramp(0.1);
    t->ramps[0].x_m = 2.0;
    t->ramps[0].y_m = 4.0;
    t->ramps[0].width_m = 40.0; /* no vertical edge in the grid's area */
    t->ramps[0].length_m = 4.0;
    t->ramps[0].transition_m = 1.0;
    t->prepared = 0;
    ck_assert_ptr_null(pdk_terrain_problem(t));
    for (int i = 0; i < 2000; i++) {
        double x = uniform(&rng, -0.5, 8.0), y = uniform(&rng, -0.5, 8.0);
        double n[3];
        double h = pdk_terrain_height(t, x, y, n);
        double o[3] = {x, y, h + uniform(&rng, 0.05, 0.8)};
        double tilt = uniform(&rng, 0.0, 30.0 * PI / 180.0), az = uniform(&rng, -PI, PI);
        double d[3] = {sin(tilt) * cos(az), sin(tilt) * sin(az), -cos(tilt)};
        double s = pdk_terrain_raycast(t, o, d, n);
        double hp = pdk_terrain_height(t, o[0] + s * d[0], o[1] + s * d[1], n);
        ck_assert_msg(fabs(o[2] + s * d[2] - hp) <= 1e-9,
                      "field: off the ground by %g (ray %d from %.17g %.17g %.17g along %.17g "
                      "%.17g %.17g)",
                      o[2] + s * d[2] - hp, i, o[0], o[1], o[2], d[0], d[1], d[2]);
        if (i % 10 == 0) {
            assert_first_hit(t, o, d, s);
        }
    }
    free(t);
}
END_TEST

/* Issue 4's Done-when: "A kerb strike on one wheel is seen by the cylinder
 * sweep where a ray misses it." A wheel of radius 0.3 m and width 0.2 m,
 * its centre 0.6 m up, axle along y, moving straight down. */
START_TEST(test_sweep_sees_kerbs_the_ray_misses)
{
    const double radius = 0.3, width = 0.2;
    double o[3] = {0.0, 0.0, 0.6};
    double down[3] = {0.0, 0.0, -1.0};
    double axle[3] = {0.0, 1.0, 0.0};
    pdk_terrain_def *t = new_flat();
    t->contact_mode = PDK_CONTACT_CYLINDER;
    t->n_bumps = 1;

    /* A kerb strip along the wheel's path under its left shoulder: a
     * raised cosine 12 cm across, peaking 5 cm at y = width / 2. */
    t->bumps[0] = (pdk_bump){.x_m = 0.0,
                             .y_m = 0.5 * width,
                             .yaw_rad = PI / 2.0,
                             .length_m = 0.12,
                             .width_m = 3.0,
                             .height_m = 0.05};
    t->patches[0] = (pdk_patch){.shape = PDK_PATCH_RECT,
                                .surface_id = PDK_SURFACE_CONCRETE,
                                .x_m = 0.0,
                                .y_m = 0.1,
                                .size_x_m = 3.0,
                                .size_y_m = 0.08};
    t->n_patches = 1;
    ck_assert_ptr_null(pdk_terrain_problem(t));
    pdk_ground_hit ray, sweep;
    pdk_terrain_ray_hit(t, o, down, &ray);
    pdk_terrain_sweep(t, o, down, axle, radius, width, &sweep);
    ck_assert_double_eq(ray.distance_m, 0.6); /* the ray misses it */
    ck_assert_int_eq(ray.surface_id, PDK_SURFACE_TARMAC);
    ck_assert_double_le(fabs(sweep.distance_m - (0.6 - 0.05)), 1e-12);
    ck_assert_double_le(fabs(sweep.point_m[1] - 0.1), 1e-15);
    ck_assert_double_le(fabs(sweep.point_m[2] - 0.05), 1e-12);
    ck_assert_int_eq(sweep.surface_id, PDK_SURFACE_CONCRETE);
    /* The right shoulder, mirrored. */
    t->bumps[0].y_m = -0.5 * width;
    t->prepared = 0;
    pdk_terrain_sweep(t, o, down, axle, radius, width, &sweep);
    ck_assert_double_le(fabs(sweep.distance_m - 0.55), 1e-12);
    ck_assert_double_le(fabs(sweep.point_m[1] + 0.1), 1e-15);

    /* A kerb 8 cm high just ahead of the contact, from x = 0.05 to 0.25 m
     * (peak at R sin 30 deg = 0.15 m): the circle there is R - R cos 30 deg
     * = 40.2 mm above its lowest point, so the centre stops 80 - 40.2 mm
     * early. */
    t->bumps[0] = (pdk_bump){.x_m = 0.15,
                             .y_m = 0.0,
                             .yaw_rad = 0.0,
                             .length_m = 0.2,
                             .width_m = 2.0,
                             .height_m = 0.08};
    t->n_patches = 0;
    t->prepared = 0;
    double rise30 = radius - sqrt(radius * radius - 0.15 * 0.15);
    pdk_terrain_ray_hit(t, o, down, &ray);
    pdk_terrain_sweep(t, o, down, axle, radius, width, &sweep);
    ck_assert_double_eq(ray.distance_m, 0.6);
    ck_assert_double_le(fabs(sweep.distance_m - (0.6 - (0.08 - rise30))), 1e-12);
    ck_assert_double_le(fabs(sweep.point_m[0] - 0.15), 1e-15);
    /* Behind the wheel alike; a kerb lower than the circle's rise there is
     * not felt. */
    t->bumps[0].x_m = -0.15;
    t->prepared = 0;
    pdk_terrain_sweep(t, o, down, axle, radius, width, &sweep);
    ck_assert_double_le(fabs(sweep.distance_m - (0.6 - (0.08 - rise30))), 1e-12);
    t->bumps[0].height_m = 0.03;
    t->prepared = 0;
    pdk_terrain_sweep(t, o, down, axle, radius, width, &sweep);
    ck_assert_double_eq(sweep.distance_m, 0.6);
    /* A wheel steered 90 deg (axle along x) has the kerb, now -0.25..-0.05
     * m along x, beside it: its shoulder at x = -0.1 m stands where the
     * kerb is half its height. */
    t->bumps[0].height_m = 0.08;
    t->prepared = 0;
    double axle_x[3] = {1.0, 0.0, 0.0};
    pdk_terrain_sweep(t, o, down, axle_x, radius, width, &sweep);
    ck_assert_double_le(fabs(sweep.distance_m - (0.6 - 0.04)), 1e-12);
    ck_assert_double_le(fabs(sweep.point_m[0] + 0.1), 1e-15);
    free(t);
}
END_TEST

/* Where the ground under the footprint is level, the sweep is the ray to
 * the bit, for a tilted strut and a turned axle: on the plane, beside a
 * bump, on a ramp's top and on a level grid; the sweep is never longer
 * than the ray. */
START_TEST(test_sweep_is_the_ray_on_level_ground)
{
    pdk_terrain_def *t = new_flat();
    double tilt = 0.2, yaw = 0.7;
    double d[3] = {sin(tilt) * cos(yaw), sin(tilt) * sin(yaw), -cos(tilt)};
    /* An axle perpendicular to d: (-sin yaw, cos yaw, 0) is. */
    double axle[3] = {-sin(yaw), cos(yaw), 0.0};
    double o[3] = {3.0, -1.0, 0.55};
    pdk_ground_hit ray, sweep;
    for (int k = 0; k < 4; k++) {
        if (k == 1) {
            t->n_bumps = 1;
            t->bumps[0] = (pdk_bump){.x_m = 9.0, .y_m = 0.0, .length_m = 1.0, .width_m = 1.0,
                                     .height_m = 0.1};
        } else if (k == 2) {
            t->n_ramps = 1;
            t->ramps[0] = test_ramp(0.3);
            t->ramps[0].x_m = -30.0;
            o[2] = 6.55;
        } else if (k == 3) {
            planar_field(t);
            for (int i = 0; i < 20; i++) {
                t->field.height_m[i] = 0.25f;
            }
            o[2] = 6.8;
        }
        t->prepared = 0;
        pdk_terrain_ray_hit(t, o, d, &ray);
        pdk_terrain_sweep(t, o, d, axle, 0.33, 0.25, &sweep);
        ck_assert_msg(same_bits(ray.distance_m, sweep.distance_m), "case %d: %.17g vs %.17g", k,
                      ray.distance_m, sweep.distance_m);
        for (int j = 0; j < 3; j++) {
            ck_assert(same_bits(ray.point_m[j], sweep.point_m[j]));
            ck_assert(same_bits(ray.normal[j], sweep.normal[j]));
        }
    }
    /* On a slope the sweep meets the ground before the ray does. */
    t->n_bumps = 0;
    t->field.nx = t->field.ny = 0;
    t->field.has_heights = 0;
    t->ramps[0].x_m = 0.0;
    t->prepared = 0;
    o[0] = 7.0;
    o[1] = 0.0;
    o[2] = 0.3 * 7.0 + 0.6;
    double down[3] = {0.0, 0.0, -1.0};
    double along_y[3] = {0.0, 1.0, 0.0};
    pdk_terrain_ray_hit(t, o, down, &ray);
    pdk_terrain_sweep(t, o, down, along_y, 0.3, 0.2, &sweep);
    ck_assert_double_le(fabs(ray.distance_m - 0.6), 1e-12);
    /* The sample at 60 deg uphill: 0.26 m ahead the ground is 0.078 m higher,
     * the circle 0.15 m up: no touch. The one at 30 deg: 0.045 m higher,
     * the circle 0.0402 m up: it touches first, by 4.8 mm. */
    double ahead = 0.3 * 0.5;
    double expect = 0.6 - (0.3 * ahead - (0.3 - sqrt(0.09 - ahead * ahead)));
    ck_assert_double_le(fabs(sweep.distance_m - expect), 1e-12);
    free(t);
}
END_TEST

/* Every rule of pdk_terrain_problem for the new fields, each message naming
 * its field. */
static void expect_problem(const pdk_terrain_def *t, const char *part)
{
    const char *why = pdk_terrain_problem(t);
    ck_assert_msg(why != NULL && strstr(why, part) != NULL, "expected '%s', got '%s'", part,
                  why != NULL ? why : "(null)");
}

START_TEST(test_problems_new_fields)
{
    pdk_terrain_def *t = new_flat();
    pdk_terrain_def *good = new_flat();
    good->n_ramps = 2;
    good->ramps[0] = test_ramp(0.1);
    good->ramps[1] = test_ramp(0.2);
    good->n_patches = 2;
    good->patches[1] = (pdk_patch){.shape = PDK_PATCH_CIRCLE, .surface_id = PDK_SURFACE_MUD,
                                   .size_x_m = 2.0};
    good->patches[0] = (pdk_patch){.shape = PDK_PATCH_RECT, .surface_id = PDK_SURFACE_MUD,
                                   .size_x_m = 2.0, .size_y_m = 1.0};
    planar_field(good);
    good->field.has_materials = 1;
    ck_assert_ptr_null(pdk_terrain_problem(good));

#define RESET() memcpy(t, good, sizeof *t)
    RESET();
    t->base_surface_id = PDK_SURFACE_COUNT;
    expect_problem(t, "terrain.base_surface_id must be a surface.h id");
    RESET();
    t->base_surface_id = -1;
    expect_problem(t, "terrain.base_surface_id");
    RESET();
    t->contact_mode = 2;
    expect_problem(t, "terrain.contact_mode must be PDK_CONTACT_RAY or PDK_CONTACT_CYLINDER");
    RESET();
    t->air_temp_c = 61.0;
    expect_problem(t, "terrain.air_temp_c must be within -60..60 C");
    RESET();
    t->road_temp_c = NAN;
    expect_problem(t, "terrain.road_temp_c must be within -60..80 C");
    RESET();
    t->n_ramps = 9;
    expect_problem(t, "terrain.n_ramps must be within 0..8");
    RESET();
    t->n_patches = -1;
    expect_problem(t, "terrain.n_patches must be within 0..16");

    RESET();
    t->ramps[1].x_m = INFINITY;
    expect_problem(t, "terrain.ramps[1].x_m and y_m must be finite and within 1e7 m");
    RESET();
    t->ramps[1].yaw_rad = NAN;
    expect_problem(t, "terrain.ramps[1].yaw_rad must be finite");
    RESET();
    t->ramps[1].width_m = 0.0;
    expect_problem(t, "terrain.ramps[1].length_m and width_m must be finite, above 0");
    RESET();
    t->ramps[1].grade = 1.01;
    expect_problem(t, "terrain.ramps[1].grade must be within -1..1");
    RESET();
    t->ramps[1].transition_m = 10.01;
    expect_problem(t, "terrain.ramps[1].transition_m must be within 0..length_m / 2");
    RESET();
    t->ramps[1].hold_m = -1.0;
    expect_problem(t, "terrain.ramps[1].hold_m must be finite, at least 0");

    RESET();
    t->patches[1].shape = 2;
    expect_problem(t, "terrain.patches[1].shape must be PDK_PATCH_RECT or PDK_PATCH_CIRCLE");
    RESET();
    t->patches[1].y_m = -2e7;
    expect_problem(t, "terrain.patches[1].x_m and y_m must be finite and within 1e7 m");
    RESET();
    t->patches[1].yaw_rad = INFINITY;
    expect_problem(t, "terrain.patches[1].yaw_rad must be finite");
    RESET();
    t->patches[0].size_y_m = 0.0;
    expect_problem(t, "terrain.patches[0].size_x_m and size_y_m (a rectangle's sides)");
    RESET();
    t->patches[1].size_x_m = -1.0;
    expect_problem(t, "terrain.patches[1].size_x_m (a circle's radius)");
    RESET();
    t->patches[1].water_depth_m = 10.5;
    expect_problem(t, "terrain.patches[1].water_depth_m must be within 0..10 m");
    RESET();
    t->patches[1].surface_id = PDK_SURFACE_COUNT;
    expect_problem(t, "terrain.patches[1].surface_id must be a surface.h id");
    t->patches[1].water_depth_m = 0.3; /* a water patch ignores it */
    ck_assert_ptr_null(pdk_terrain_problem(t));

    RESET();
    t->field.nx = 1;
    expect_problem(t, "terrain.field.nx and ny must both be 0 (no grid) or both at least 2");
    RESET();
    t->field.nx = 0;
    t->field.ny = 0;
    expect_problem(t, "terrain.field.has_heights and has_materials need a grid");
    RESET();
    t->field.nx = 200;
    t->field.ny = 100;
    expect_problem(t, "terrain.field.nx * ny must be at most 16384");
    RESET();
    t->field.has_materials = 2;
    expect_problem(t, "terrain.field.has_heights and has_materials must be 0 or 1");
    RESET();
    t->field.cell_m = 0.0;
    expect_problem(t, "terrain.field.cell_m must be within 0.01..1e4 m");
    RESET();
    t->field.origin_x_m = 1e7 - 5.0; /* the far corner is outside */
    expect_problem(t, "terrain.field.origin_x_m and origin_y_m must be finite and the whole grid");
    RESET();
    t->field.height_m[19] = (float)NAN;
    expect_problem(t, "terrain.field.height_m must be finite and within -1e4..1e4 m");
    t->field.has_heights = 0; /* unused heights are not checked */
    ck_assert_ptr_null(pdk_terrain_problem(t));
    RESET();
    t->field.material[11] = PDK_SURFACE_COUNT;
    expect_problem(t, "terrain.field.material must be a surface.h id");
    t->field.material[11] = 0;
    t->field.material[12] = PDK_SURFACE_COUNT; /* past the 12 cells: unused */
    ck_assert_ptr_null(pdk_terrain_problem(t));
#undef RESET
    free(t);
    free(good);
}
END_TEST

/* A terrain with everything, prepared and not: the same bits from every
 * query; preparing fills the ramps' and patches' derived fields and the
 * water's level. */
START_TEST(test_prepared_matches_unprepared_everywhere)
{
    uint64_t rng = 23u;
    pdk_terrain_def *plain = malloc(sizeof *plain);
    ck_assert_ptr_nonnull(plain);
    *plain = random_terrain(&rng);
    plain->base_surface_id = PDK_SURFACE_GRASS;
    plain->n_ramps = 3;
    for (int i = 0; i < plain->n_ramps; i++) {
        double len = uniform(&rng, 2.0, 10.0);
        plain->ramps[i] = (pdk_ramp){.x_m = uniform(&rng, -20.0, 20.0),
                                     .y_m = uniform(&rng, -20.0, 20.0),
                                     .yaw_rad = uniform(&rng, -4.0, 4.0),
                                     .length_m = len,
                                     .width_m = uniform(&rng, 1.0, 20.0),
                                     .grade = uniform(&rng, -0.3, 0.3),
                                     .transition_m = uniform(&rng, 0.0, 0.5 * len),
                                     .hold_m = i == 0 ? 0.0 : uniform(&rng, 0.0, 5.0)};
    }
    plain->n_patches = 4;
    for (int i = 0; i < plain->n_patches; i++) {
        plain->patches[i] = (pdk_patch){.shape = i % 2,
                                        .surface_id = i + 3,
                                        .x_m = uniform(&rng, -20.0, 20.0),
                                        .y_m = uniform(&rng, -20.0, 20.0),
                                        .yaw_rad = uniform(&rng, -4.0, 4.0),
                                        .size_x_m = uniform(&rng, 2.0, 15.0),
                                        .size_y_m = uniform(&rng, 2.0, 15.0),
                                        .water_depth_m = i == 3 ? 0.5 : 0.0};
    }
    planar_field(plain);
    plain->field.cell_m = 10.0;
    plain->field.origin_x_m = -25.0;
    plain->field.origin_y_m = -25.0;
    plain->field.has_materials = 1;
    for (int i = 0; i < 12; i++) {
        plain->field.material[i] = (uint8_t)(i % PDK_SURFACE_COUNT);
    }
    ck_assert_ptr_null(pdk_terrain_problem(plain));
    pdk_terrain_def *prep = malloc(sizeof *prep);
    ck_assert_ptr_nonnull(prep);
    memcpy(prep, plain, sizeof *prep);
    pdk_terrain_prepare(prep);
    ck_assert_int_eq(prep->prepared, 1);
    double sy, cy;
    pdk_trig_sincos(plain->ramps[1].yaw_rad, &sy, &cy);
    ck_assert(same_bits(prep->ramps[1].cos_yaw, cy) && same_bits(prep->ramps[1].sin_yaw, sy));
    double n[3];
    ck_assert(same_bits(prep->patches[3].water_level_m,
                        pdk_terrain_height(plain, plain->patches[3].x_m, plain->patches[3].y_m, n) +
                            0.5));
    double axle[3] = {0.0, 1.0, 0.0};
    for (int i = 0; i < 3000; i++) {
        double x = uniform(&rng, -30.0, 30.0), y = uniform(&rng, -30.0, 30.0);
        double na[3], nb[3];
        ck_assert(same_bits(pdk_terrain_height(plain, x, y, na),
                            pdk_terrain_height(prep, x, y, nb)));
        for (int j = 0; j < 3; j++) {
            ck_assert(same_bits(na[j], nb[j]));
        }
        double da, db;
        ck_assert_int_eq(pdk_terrain_surface(plain, x, y, &da),
                         pdk_terrain_surface(prep, x, y, &db));
        ck_assert(same_bits(da, db));
        double o[3] = {x, y, pdk_terrain_height(prep, x, y, n) + uniform(&rng, 0.1, 1.0)};
        double tilt = uniform(&rng, 0.0, 0.5);
        double d[3] = {sin(tilt), 0.0, -cos(tilt)};
        pdk_ground_hit ha, hb;
        pdk_terrain_sweep(plain, o, d, axle, 0.3, 0.2, &ha);
        pdk_terrain_sweep(prep, o, d, axle, 0.3, 0.2, &hb);
        ck_assert(same_bits(ha.distance_m, hb.distance_m));
        ck_assert(same_bits(ha.water_depth_m, hb.water_depth_m));
        ck_assert_int_eq(ha.surface_id, hb.surface_id);
        ck_assert_double_le(hb.distance_m, pdk_terrain_raycast(prep, o, d, n));
    }
    free(plain);
    free(prep);
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
    TCase *ground = tcase_create("ground");
    tcase_add_test(ground, test_def_flat);
    tcase_add_test(ground, test_ramp_grades);
    tcase_add_test(ground, test_ramp_hold_and_bank);
    tcase_add_test(ground, test_field_bilinear);
    tcase_add_test(ground, test_materials_and_patches);
    tcase_add_test(ground, test_water_depth);
    tcase_add_test(ground, test_rays_on_ramps_and_field);
    tcase_add_test(ground, test_sweep_sees_kerbs_the_ray_misses);
    tcase_add_test(ground, test_sweep_is_the_ray_on_level_ground);
    tcase_add_test(ground, test_problems_new_fields);
    tcase_add_test(ground, test_prepared_matches_unprepared_everywhere);
    suite_add_tcase(s, ground);
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
