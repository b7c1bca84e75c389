/* Measures the wheel's ground queries (server/sim/terrain.h): nanoseconds
 * per pdk_terrain_ray_hit and per pdk_terrain_sweep on prepared terrains of
 * each kind, from origins 0.5 m above the ground along a car's path with
 * rays tilted a few degrees, as the four-wheel step casts them (4 per
 * substep per car). The plane is the baseline every flat world pays; a
 * terrain whose bumps are far from the path costs their box tests only.
 * Each figure is the best of five runs. It prints; it never fails on a
 * time. Usage: bench_terrain [seconds per run, default 0.1]. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ground/surface.h"
#include "ground/terrain.h"

#define N_QUERIES 4096

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1p-53;
}

static double origins[N_QUERIES][3];
static double dirs[N_QUERIES][3];
static volatile double sink;

/* Origins along x in [x0, x1], |y| < 1, 0.5 m above the ground there;
 * rays within 3 degrees of vertical. */
static void make_queries(const pdk_terrain_def *t, double x0, double x1)
{
    for (int i = 0; i < N_QUERIES; i++) {
        double n[3];
        double x = uniform(x0, x1), y = uniform(-1.0, 1.0);
        origins[i][0] = x;
        origins[i][1] = y;
        origins[i][2] = pdk_terrain_height(t, x, y, n) + 0.5;
        double tilt = uniform(0.0, 0.05), az = uniform(-3.14159, 3.14159);
        dirs[i][0] = sin(tilt) * cos(az);
        dirs[i][1] = sin(tilt) * sin(az);
        dirs[i][2] = -cos(tilt);
    }
}

/* ns per query, the best of five runs of about run_s each. */
static double measure(const pdk_terrain_def *t, int sweep, double run_s)
{
    const double axle[3] = {0.0, 1.0, 0.0};
    double best = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        long n = 0;
        double acc = 0.0;
        double t0 = now_s(), t1;
        do {
            for (int i = 0; i < N_QUERIES; i++) {
                pdk_ground_hit hit;
                if (sweep) {
                    pdk_terrain_sweep(t, origins[i], dirs[i], axle, 0.3, 0.2, &hit);
                } else {
                    pdk_terrain_ray_hit(t, origins[i], dirs[i], &hit);
                }
                acc += hit.distance_m;
            }
            n += N_QUERIES;
            t1 = now_s();
        } while (t1 - t0 < run_s);
        sink = acc;
        double ns = (t1 - t0) * 1e9 / (double)n;
        best = ns < best ? ns : best;
    }
    return best;
}

static void report(const char *name, pdk_terrain_def *t, double x0, double x1, double run_s)
{
    pdk_terrain_prepare(t);
    make_queries(t, x0, x1);
    printf("%-44s %8.1f ns/ray %8.1f ns/sweep\n", name, measure(t, 0, run_s),
           measure(t, 1, run_s));
}

int main(int argc, char **argv)
{
    double run_s = argc > 1 ? atof(argv[1]) : 0.1;
    if (!(run_s > 0.0)) {
        fprintf(stderr, "usage: bench_terrain [seconds per run]\n");
        return 2;
    }
    pdk_terrain_def *t = malloc(sizeof *t);
    if (t == NULL) {
        return 1;
    }
    printf("terrain queries, best of 5 runs of %.2f s, %d origins each\n", run_s, N_QUERIES);

    pdk_terrain_def_flat(t);
    report("plane", t, 0.0, 100.0, run_s);

    t->n_patches = 4;
    for (int i = 0; i < 4; i++) {
        t->patches[i] = (pdk_patch){.shape = PDK_PATCH_RECT, .surface_id = PDK_SURFACE_GRAVEL + i,
                                    .x_m = 25.0 * i + 12.5, .size_x_m = 25.0, .size_y_m = 10.0};
    }
    report("plane, 4 surface patches", t, 0.0, 100.0, run_s);

    pdk_terrain_def_flat(t);
    t->n_bumps = 8;
    for (int i = 0; i < 8; i++) {
        t->bumps[i] = (pdk_bump){.x_m = 20.0 * i, .y_m = 30.0, .length_m = 1.0, .width_m = 2.0,
                                 .height_m = 0.1};
    }
    report("8 bumps, none near the path", t, 0.0, 140.0, run_s);
    for (int i = 0; i < 8; i++) {
        t->bumps[i].y_m = 0.0;
        t->bumps[i].length_m = 3.7;
        t->bumps[i].width_m = 6.0;
    }
    report("8 humps across the path, origins on them", t, 0.0, 3.0, run_s);

    pdk_terrain_def_flat(t);
    t->n_ramps = 1;
    t->ramps[0] = (pdk_ramp){.x_m = 0.0, .length_m = 15.0, .width_m = 6.0, .grade = 0.3,
                             .transition_m = 2.0, .hold_m = 20.0};
    report("30 % ramp with a hold, on its slope", t, 2.0, 13.0, run_s);
    report("30 % ramp with a hold, in its roundings", t, -1.0, 1.0, run_s);

    pdk_terrain_def_flat(t);
    t->field.nx = 128;
    t->field.ny = 128;
    t->field.cell_m = 1.0;
    t->field.origin_y_m = -64.0;
    t->field.has_heights = 1;
    for (int i = 0; i < 128 * 128; i++) {
        t->field.height_m[i] = (float)uniform(-0.05, 0.05);
    }
    report("128 x 128 heightfield of 1 m cells, +-5 cm", t, 0.0, 127.0, run_s);
    free(t);
    return 0;
}
