/* Measures what contact between bodies costs (sim/contact.h, ADR 0027):
 * the cost per tick of 1,000 parked four-wheel cars (the default vehicle,
 * in P with its brake on, on flat ground, 2 substeps), laid out three ways:
 *  - spread: on a grid 50 m apart, where the broad phase pairs nothing;
 *  - dense: a car park, rows of cars 0.3 m nose to tail and 0.5 m side to
 *    side, so that every car is within a metre of several others (the
 *    issue's case: every pair's bounds are tested, none touches);
 *  - touching: the same rows bumper to bumper (each car's hull against the
 *    next one's), so that the narrow phase and the solve run for every
 *    car's pairs every tick.
 * and prints ms per tick, the dense and touching ones against the spread,
 * and the contact phase's share. Each figure is the best of three runs
 * after a second of settling. It prints; it never fails on a time.
 * Usage: bench_contact [ticks per run, default 240]. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/world.h"
#include "vehicle/four_wheel.h"
#include "model.h"
#include "world_internal.h"
#include "world_mem.h"

#define CARS 1000
#define PER_ROW 25

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The default car's hull length and width, from a lone car's constants. */
static void hull_size(double *length_m, double *width_m, double *rear_m)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 1;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = pdk_world_mem_alloc(bytes);
    pdk_world *w;
    if (mem == NULL || pdk_world_init_zeroed(mem, bytes, &wd, &w) != PDK_OK) {
        fprintf(stderr, "bench_contact: no world\n");
        exit(1);
    }
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_vehicle_id id;
    (void)pdk_world_spawn(w, &def, &pose, 0.0, PDK_GEAR_PARK, &id);
    const pdk_fw_consts *c = pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, 2);
    const double *lo = &c[0].hull_pts_m[0], *hi = &c[0].hull_pts_m[3 * 7];
    *length_m = hi[0] - lo[0];
    *width_m = hi[1] - lo[1];
    *rear_m = lo[0];
    pdk_world_mem_free(mem, bytes);
}

/* ms per tick of the world laid out with gaps gx (nose to tail) and gy
 * (side to side) between hulls; *contact_ms the contact phase's part of
 * it, *touching the contact events in the last tick. */
static double run(double gx, double gy, int ticks, double *contact_ms, int *touching)
{
    double length_m, width_m, rear_m;
    hull_size(&length_m, &width_m, &rear_m);
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = CARS;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = pdk_world_mem_alloc(bytes);
    pdk_world *w;
    if (mem == NULL || pdk_world_init_zeroed(mem, bytes, &wd, &w) != PDK_OK) {
        fprintf(stderr, "bench_contact: no world of %d cars\n", CARS);
        exit(1);
    }
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_dbw_cmd hold = {.fields = PDK_DBW_BRAKE, .brake_bar = 40.0};
    for (int i = 0; i < CARS; i++) {
        /* The CG is -rear_m behind the hull's rear: rows along x. */
        pdk_pose pose = {(i % PER_ROW) * (length_m + gx) - rear_m, (i / PER_ROW) * (width_m + gy),
                         0.0};
        pdk_vehicle_id id;
        if (pdk_world_spawn(w, &def, &pose, 0.0, PDK_GEAR_PARK, &id) != PDK_OK ||
            pdk_world_command(w, id, &hold) != PDK_OK) {
            fprintf(stderr, "bench_contact: spawn %d refused\n", i);
            exit(1);
        }
    }
    for (int k = 0; k < 120; k++) {
        pdk_world_step(w); /* settle on the springs, brakes on */
    }
    void *copy = pdk_world_mem_alloc(bytes);
    if (copy == NULL) {
        fprintf(stderr, "bench_contact: no memory for a copy\n");
        exit(1);
    }
    double best = 1e30, best_contact = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        for (int k = 0; k < ticks; k++) {
            pdk_world_step(w);
        }
        double t1 = now_s();
        /* The contact phase alone, as the step runs it, on a byte copy
         * (a world is position independent), so that the stepped world is
         * left as the step leaves it. */
        memcpy(copy, w, bytes);
        t1 = now_s();
        for (int k = 0; k < ticks; k++) {
            pdk_world_contact_phase_((pdk_world *)copy);
        }
        double t2 = now_s();
        if (t1 - t0 < best) {
            best = t1 - t0;
        }
        if (t2 - t1 < best_contact) {
            best_contact = t2 - t1;
        }
    }
    int n = 0;
    (void)pdk_world_contact_events(w, &n, NULL);
    *touching = n;
    *contact_ms = 1e3 * best_contact / ticks;
    pdk_world_mem_free(copy, bytes);
    pdk_world_mem_free(mem, bytes);
    return 1e3 * best / ticks;
}

int main(int argc, char **argv)
{
    int ticks = argc > 1 ? atoi(argv[1]) : 240;
    if (ticks <= 0) {
        fprintf(stderr, "usage: bench_contact [ticks per run, > 0]\n");
        return 2;
    }
    double c_spread, c_dense, c_touch;
    int n_spread, n_dense, n_touch;
    const double spread = run(50.0, 50.0, ticks, &c_spread, &n_spread);
    const double dense = run(0.3, 0.5, ticks, &c_dense, &n_dense);
    const double touch = run(0.0, 0.5, ticks, &c_touch, &n_touch);
    printf("%d parked cars, default vehicle, 2 substeps, ms per tick (best of 3 x %d ticks)\n",
           CARS, ticks);
    printf("%-28s %10s %12s %10s %10s\n", "layout", "ms/tick", "vs spread", "contact", "contacts");
    printf("%-28s %10.3f %11.1f%% %10.3f %10d\n", "spread (50 m grid)", spread, 0.0, c_spread,
           n_spread);
    printf("%-28s %10.3f %+11.1f%% %10.3f %10d\n", "dense (0.3 m x 0.5 m gaps)", dense,
           100.0 * (dense / spread - 1.0), c_dense, n_dense);
    printf("%-28s %10.3f %+11.1f%% %10.3f %10d\n", "touching (rows nose to tail)", touch,
           100.0 * (touch / spread - 1.0), c_touch, n_touch);
    return 0;
}
