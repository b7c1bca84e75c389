/* Measures the physics library alone: nanoseconds per vehicle-step (one
 * 120 Hz tick of one vehicle, all substeps and its telemetry included) and
 * the vehicles one core can keep at 120 Hz, for worlds of 1 to 10,000
 * driving vehicles with mixed throttle, brake and steering, at the default
 * substep count, then the cost of 1, 2, 4 and 8 substeps; first for the
 * four-wheel model (the default vehicle, with its default tyre law) on flat
 * ground and over a field of bumps, then for the single-track model. Then,
 * for the four-wheel model at 2 substeps on flat ground: ns per car-step
 * with each tyre law (the grip law, the Magic Formula with the 205/60R15
 * road set, the UTV law) at 1, 100 and 1000 cars, and the wheels' contact
 * by ray against the cylinder sweep at 1000 cars (the laws alone, per tyre:
 * bench_tyre); then each vehicle preset of presets/vehicles as a session
 * spawns it, at 100 and 3,000 cars, with and without its channels; last,
 * the four-wheel step alone in each of its builds (baseline, AVX2,
 * AVX-512) the processor has. Each figure is the best of three runs (of
 * five for the builds). It prints; it never fails on a time.
 * Usage: bench_sim [seconds per run, default 0.25] [presets [name]]:
 * "presets" runs the vehicle presets' lines alone, a name one preset's
 * (what a profile of one fleet wants). */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "params.h"
#include "sim/channels.h"
#include "powertrain/driveline.h"
#include "vehicle/four_wheel.h"
#include "tyre/tyre.h"
#include "sim/utv_def.h"
#include "sim/world.h"
#include "world_mem.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A small deterministic generator for the drivers' choices (the bench must
 * not touch the world's own PRNG). */
static uint32_t next_u32(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*s >> 33);
}

static double unit(uint64_t *s)
{
    return (double)next_u32(s) / 2147483648.0;
}

/* A new command: mostly driving forward with a steady steer,
 * sometimes braking, one in ten in reverse. */
static pdk_dbw_cmd driver_cmd(uint64_t *rng)
{
    pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER};
    double u = unit(rng);
    c.throttle_pct = u < 0.15 ? 0.0 : 60.0 * unit(rng);
    c.brake_bar = u < 0.15 ? 40.0 * unit(rng) : 0.0;
    c.steer_wheel_deg = (unit(rng) - 0.5) * 360.0;
    return c;
}

typedef struct result {
    double ns_per_vehicle_step;
    double ticks;
} result;

/* Bumps across the whole fleet's area, so that every wheel's ray tests all
 * of them and some wheels cross one: the cost of a terrain that is not flat. */
static void add_bumps(pdk_terrain_def *t)
{
    t->n_bumps = 8;
    for (int i = 0; i < t->n_bumps; i++) {
        pdk_bump b = {.x_m = 20.0 + 600.0 * (double)i, .y_m = 2500.0, .yaw_rad = 0.0,
                      .length_m = 0.6, .width_m = 5000.0, .height_m = 0.05};
        t->bumps[i] = b;
    }
}

/* Both axles of def on law: the grip law as the default car has it, the Magic
 * Formula with the 205/60R15 road set (its own load dependence and falling
 * branch), the UTV law with the Polaris model's hard-surface slope 12 and
 * C_alpha / N 8. */
static void set_law(pdk_vehicle_def *def, pdk_tyre_law law)
{
    pdk_tyre_law_def *axles[2] = {&def->tyre_front.law, &def->tyre_rear.law};
    for (int i = 0; i < 2; i++) {
        pdk_tyre_law_def *l = axles[i];
        l->law = law;
        if (law == PDK_TYRE_MAGIC) {
            l->mf_set = PDK_MF_ROAD_205_60R15;
            l->mf = *pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
            l->slide_grip = 0.0;
        } else if (law == PDK_TYRE_UTV) {
            l->hard_slip_stiffness = 12.0;
            l->cornering_per_load = 8.0;
            l->mu_x = 1.0;
            l->mu_y = 1.0;
        }
    }
}

/* channels 0: the steps write no channels, as a server session's do on
 * the ticks nothing reads them (pdk_session_set_channels). */
static result run_world(const pdk_vehicle_def *def_in, int bumps, int contact_mode, int n,
                        int substeps, int channels, double seconds)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = n;
    wd.substeps = substeps;
    wd.terrain.contact_mode = contact_mode;
    if (bumps) {
        add_bumps(&wd.terrain);
    }
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = pdk_world_mem_alloc(bytes); /* as a session's (huge pages) */
    pdk_world *w = NULL;
    if (mem == NULL || pdk_world_init_zeroed(mem, bytes, &wd, &w) != PDK_OK) {
        fprintf(stderr, "bench_sim: cannot make a world of %d vehicles\n", n);
        exit(1);
    }
    pdk_world_set_telemetry(w, channels);
    pdk_vehicle_def def = *def_in;
    uint64_t rng = 12345u;
    for (int i = 0; i < n; i++) {
        pdk_pose pose = {.x_m = 50.0 * (double)(i % 100), .y_m = 50.0 * (double)(i / 100)};
        pdk_gear gear = i % 10 == 9 ? PDK_GEAR_REVERSE : PDK_GEAR_DRIVE;
        pdk_vehicle_id id;
        double speed = gear == PDK_GEAR_REVERSE ? -2.0 : 5.0 + 20.0 * unit(&rng);
        if (pdk_world_spawn(w, &def, &pose, speed, gear, &id) != PDK_OK) {
            fprintf(stderr, "bench_sim: spawn failed\n");
            exit(1);
        }
        pdk_dbw_cmd c = driver_cmd(&rng);
        pdk_world_command(w, id, &c);
    }

    /* Each driver changes its command about every two seconds (240 ticks),
     * as a DBW stack would: n / 240 commands per tick on average. */
    long owed = 0;
    int next_driver = 0;
    long ticks = 0;
    double start = now_s();
    double elapsed = 0.0;
    do {
        for (int k = 0; k < 16; k++) {
            for (owed += n; owed >= 240; owed -= 240) {
                pdk_vehicle_id id = pdk_world_vehicle_at(w, next_driver);
                pdk_dbw_cmd c = driver_cmd(&rng);
                pdk_world_command(w, id, &c);
                next_driver = (next_driver + 1) % n;
            }
            pdk_world_step(w);
            ticks++;
        }
        elapsed = now_s() - start;
    } while (elapsed < seconds);

    /* Keep the result observable so nothing is optimised away. */
    if (pdk_world_hash(w) == 0u) {
        printf("(hash 0)\n");
    }
    pdk_world_mem_free(mem, bytes);
    result r = {elapsed * 1e9 / ((double)ticks * (double)n), (double)ticks};
    return r;
}

/* The best of three runs: the machine's other load only ever adds time. */
static result best_of_3_def(const pdk_vehicle_def *def, int bumps, int contact_mode, int n,
                            int substeps, int channels, double seconds)
{
    result best = run_world(def, bumps, contact_mode, n, substeps, channels, seconds);
    for (int i = 0; i < 2; i++) {
        result r = run_world(def, bumps, contact_mode, n, substeps, channels, seconds);
        if (r.ns_per_vehicle_step < best.ns_per_vehicle_step) {
            best = r;
        }
    }
    return best;
}

/* The default vehicle on model, ray contact. */
static result best_of_3(pdk_model model, int bumps, int n, int substeps, double seconds)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    def.model = model;
    return best_of_3_def(&def, bumps, PDK_CONTACT_RAY, n, substeps, 1, seconds);
}

/* The per-law and per-contact figures of the four-wheel model. */
static void bench_tyres(double seconds)
{
    const struct {
        pdk_tyre_law law;
        const char *name;
    } laws[] = {{PDK_TYRE_GRIP, "grip law"},
                {PDK_TYRE_MAGIC, "Magic Formula (road205)"},
                {PDK_TYRE_UTV, "UTV law"}};
    const int sizes[] = {1, 100, 1000};
    printf("four-wheel model per tyre law, flat ground, 2 substeps, ray contact:\n");
    printf("%-24s %8s %18s %22s\n", "law", "vehicles", "ns/car-step", "cars/core @120Hz");
    for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++) {
        pdk_vehicle_def def = pdk_vehicle_def_default();
        set_law(&def, laws[l].law);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            result r = best_of_3_def(&def, 0, PDK_CONTACT_RAY, sizes[i], 2, 1, seconds);
            printf("%-24s %8d %18.1f %22.0f\n", laws[l].name, sizes[i], r.ns_per_vehicle_step,
                   1e9 / (120.0 * r.ns_per_vehicle_step));
        }
    }
    /* The Polaris with its whole powertrain: the engine, the CVT and the
     * implicit driveline in every substep. */
    pdk_utv_mass_def utv_mass = pdk_utv_mass_def_polaris();
    pdk_vehicle_def utv = pdk_vehicle_def_polaris(&utv_mass, 9.81);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        result r = best_of_3_def(&utv, 0, PDK_CONTACT_RAY, sizes[i], 2, 1, seconds);
        printf("%-24s %8d %18.1f %22.0f\n", "Polaris, powertrain", sizes[i], r.ns_per_vehicle_step,
               1e9 / (120.0 * r.ns_per_vehicle_step));
    }
    printf("four-wheel model, Magic Formula (road205), 1000 cars, 2 substeps, contact mode:\n");
    printf("%-24s %8s %18s %22s\n", "contact", "terrain", "ns/car-step", "cars/core @120Hz");
    pdk_vehicle_def mf = pdk_vehicle_def_default();
    set_law(&mf, PDK_TYRE_MAGIC);
    const struct {
        int mode;
        const char *name;
    } modes[] = {{PDK_CONTACT_RAY, "ray"}, {PDK_CONTACT_CYLINDER, "cylinder sweep"}};
    for (size_t m = 0; m < 2; m++) {
        for (int bumps = 0; bumps < 2; bumps++) {
            result r = best_of_3_def(&mf, bumps, modes[m].mode, 1000, 2, 1, seconds);
            printf("%-24s %8s %18.1f %22.0f\n", modes[m].name, bumps ? "8 bumps" : "flat",
                   r.ns_per_vehicle_step, 1e9 / (120.0 * r.ns_per_vehicle_step));
        }
    }
}

/* The four-wheel step alone (pdk_fw_step_batch_build, no world around
 * it), Magic Formula (road205) cars on flat ground, 2 substeps, each
 * holding one command of run_world's drivers, in each build of the step
 * this processor has: ns per car-step, the builds taking turns over five rounds (so that the
 * machine's moods hit them alike), the best round of each. */
#define BUILD_CARS 100
static void bench_builds(double seconds)
{
    const struct {
        pdk_fw_build build;
        const char *name;
    } builds[] = {{PDK_FW_BUILD_BASELINE, "baseline (SSE2)"},
                  {PDK_FW_BUILD_AVX2, "AVX2"},
                  {PDK_FW_BUILD_AVX512, "AVX-512"}};
    enum { N_BUILDS = sizeof builds / sizeof builds[0] };
    static pdk_fw_params params[BUILD_CARS];
    static pdk_fw_state states[BUILD_CARS];
    static pdk_fw_cmd cmds[BUILD_CARS];
    static double ch[BUILD_CARS][PDK_CH_COUNT];
    pdk_vehicle_def def = pdk_vehicle_def_default();
    set_law(&def, PDK_TYRE_MAGIC);
    pdk_terrain_def terrain = pdk_world_def_default().terrain;
    double best[N_BUILDS];
    for (int b = 0; b < N_BUILDS; b++) {
        best[b] = 1e300;
    }
    for (int round = 0; round < 5; round++) {
        for (int b = 0; b < N_BUILDS; b++) {
            if (!pdk_fw_build_available(builds[b].build)) {
                continue;
            }
            uint64_t rng = 12345u;
            for (int i = 0; i < BUILD_CARS; i++) {
                pdk_fw_params_init(&params[i], &def, 1.0 / 240.0, 9.81, 1.225, 1.0);
                pdk_pose pose = {.x_m = 50.0 * (double)i};
                pdk_fw_state_init(&states[i], &params[i], &terrain, &pose, 5.0 + 20.0 * unit(&rng));
                pdk_dbw_cmd c = driver_cmd(&rng);
                pdk_fw_cmd_set(&cmds[i], &def, c.throttle_pct, c.brake_bar, c.steer_wheel_deg,
                               PDK_GEAR_DRIVE);
            }
            long ticks = 0;
            double start = now_s(), elapsed = 0.0;
            do {
                for (int k = 0; k < 16; k++, ticks++) {
                    for (int i = 0; i < BUILD_CARS; i += PDK_FW_BATCH) {
                        const int n = BUILD_CARS - i < PDK_FW_BATCH ? BUILD_CARS - i : PDK_FW_BATCH;
                        pdk_fw_state *sp[PDK_FW_BATCH];
                        const pdk_fw_cmd *cp[PDK_FW_BATCH];
                        const pdk_fw_consts *pp[PDK_FW_BATCH];
                        const pdk_tyre_consts4 *tp[PDK_FW_BATCH];
                        const pdk_vehicle_def *dp[PDK_FW_BATCH];
                        double *chp[PDK_FW_BATCH];
                        for (int j = 0; j < n; j++) {
                            sp[j] = &states[i + j];
                            cp[j] = &cmds[i + j];
                            pp[j] = &params[i + j].c;
                            tp[j] = &params[i + j].tyre;
                            dp[j] = &def;
                            chp[j] = ch[i + j];
                        }
                        pdk_fw_step_batch_build(sp, cp, pp, tp, dp, chp, n, &terrain, 2,
                                                builds[b].build);
                    }
                }
                elapsed = now_s() - start;
            } while (elapsed < seconds);
            double ns = elapsed * 1e9 / ((double)ticks * BUILD_CARS);
            best[b] = ns < best[b] ? ns : best[b];
        }
    }
    printf("four-wheel step alone by build, Magic Formula (road205), %d cars, 2 substeps "
           "(pdk_fw_step and worlds take the widest):\n",
           BUILD_CARS);
    printf("%-24s %18s %22s\n", "build", "ns/car-step", "cars/core @120Hz");
    for (int b = 0; b < N_BUILDS; b++) {
        if (!pdk_fw_build_available(builds[b].build)) {
            printf("%-24s %18s\n", builds[b].name, "not on this processor");
            continue;
        }
        printf("%-24s %18.1f %22.0f\n", builds[b].name, best[b], 1e9 / (120.0 * best[b]));
    }
}

/* The driveline's solve alone (pdk_dl_solve), per substep of 1/240 s, on
 * the Polaris's numbers: AWD at 10 m/s with the clutch locked (a locked
 * rear axle and the front's overrunning clutches), Turf (the open rear
 * differential's nested solve) with a wheel slipping, and the clutch
 * slipping at its capacity; the wheels' states vary a little from call to
 * call so that nothing is hoisted. */
static void bench_driveline(double seconds)
{
    const struct {
        const char *name;
        pdk_diff_kind diff;
        pdk_dl_coupling coupling;
        double cap_nm;
    } cases[] = {
        {"AWD, clutch locked", PDK_DIFF_LOCKED, PDK_COUPLING_OVERRUN, 150.0},
        {"Turf (open), locked", PDK_DIFF_OPEN, PDK_COUPLING_NONE, 150.0},
        {"2WD, clutch slipping", PDK_DIFF_LOCKED, PDK_COUPLING_NONE, 20.0},
    };
    printf("the driveline's solve alone, per substep (1/240 s):\n");
    printf("%-24s %18s %22s\n", "case", "ns/solve", "balance evaluations");
    const double h = 1.0 / 240.0, rt = 0.3429, v = 10.0, ratio = 1.2 * 13.01;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pdk_dl_layout layout = {.primary = 1,
                                .primary_diff = {cases[c].diff, 1.0, 0.0},
                                .coupling = cases[c].coupling,
                                .secondary_k = 0.926};
        pdk_dl_wheel w[4];
        for (int j = 0; j < 4; j++) {
            double load = j < 2 ? 2600.0 : 3400.0;
            w[j] = (pdk_dl_wheel){.spin0_radps = v / rt,
                                  .inertia_kgm2 = 1.0,
                                  .radius_m = rt,
                                  .fx_e_n = 0.0,
                                  .kx_nspm = 12.0 * load / v,
                                  .vx_mps = v,
                                  .fx_max_n = load,
                                  .coulomb_nm = 0.015 * load * rt};
        }
        if (cases[c].diff == PDK_DIFF_OPEN) {
            w[PDK_RL].fx_max_n = 300.0; /* a rear wheel on a slippery patch */
        }
        pdk_dl_engine eng = {.free_radps = ratio * v / rt + 2.0,
                             .inertia_kgm2 = 0.1,
                             .ratio = ratio,
                             .efficiency = 0.836,
                             .cap_fwd_nm = cases[c].cap_nm,
                             .cap_rev_nm = cases[c].cap_nm};
        long calls = 0, evals = 0;
        double sink = 0.0;
        double start = now_s(), elapsed = 0.0;
        do {
            for (int k = 0; k < 1000; k++) {
                w[PDK_RR].spin0_radps = v / rt + 1e-3 * (double)(k & 15);
                pdk_dl_result res;
                pdk_dl_solve(&layout, &eng, w, h, &res);
                sink += res.carrier_radps;
                evals += res.evaluations;
            }
            calls += 1000;
            elapsed = now_s() - start;
        } while (elapsed < seconds);
        printf("%-24s %18.1f %22.1f\n", cases[c].name, elapsed * 1e9 / (double)calls,
               (double)evals / (double)calls);
        if (sink == 0.0) {
            printf("(0)\n");
        }
    }
}

/* The DBW kit's cost: n default cars, each with its kit engaged (ULC speed
 * target and steering angle commanded at 60 Hz, as a controller does), against
 * the same cars on their driver's controls; and the cost of building one
 * vehicle's reports. */
static void bench_dbw(double seconds)
{
    const int sizes[] = {1, 100, 1000};
    printf("DBW kit, default car, 2 substeps (ns/car-step; commands at 60 Hz included):\n");
    printf("%8s %18s %18s %18s %18s\n", "vehicles", "driver controls", "kit engaged", "kit alone",
           "reports/vehicle");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        double best[2] = {1e30, 1e30}, best_rep = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            for (int kit = 0; kit < 2; kit++) {
                pdk_world_def wd = pdk_world_def_default();
                wd.max_vehicles = n;
                size_t bytes = pdk_world_mem_size(&wd);
                void *mem = pdk_world_mem_alloc(bytes);
                pdk_world *w = NULL;
                if (mem == NULL || pdk_world_init_zeroed(mem, bytes, &wd, &w) != PDK_OK) {
                    exit(1);
                }
                pdk_vehicle_def def = pdk_vehicle_def_default();
                for (int v = 0; v < n; v++) {
                    pdk_pose pose = {.x_m = 50.0 * (double)(v % 100),
                                     .y_m = 50.0 * (double)(v / 100)};
                    pdk_vehicle_id id;
                    if (pdk_world_spawn(w, &def, &pose, 10.0, PDK_GEAR_DRIVE, &id) != PDK_OK) {
                        exit(1);
                    }
                    if (kit) {
                        pdk_dbw_msg on = {.kind = PDK_DBW_MSG_SYSTEM, .crc = -1};
                        on.u.system = (pdk_dbw_system_cmd){.cmd = PDK_DBW_SYS_ENABLE,
                                                           .sync_mode = -1,
                                                           .validate_crc = -1,
                                                           .comms_loss_arm = -1};
                        pdk_world_dbw(w, id, &on);
                    } else {
                        pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                                         .throttle_pct = 20.0,
                                         .steer_wheel_deg = 10.0,
                                         .gear = PDK_GEAR_DRIVE};
                        pdk_world_command(w, id, &c);
                    }
                }
                long ticks = 0;
                double start = now_s(), elapsed = 0.0;
                do {
                    for (int k = 0; k < 16; k++, ticks++) {
                        if (kit && ticks % 2 == 0) {
                            for (int v = 0; v < n; v++) {
                                pdk_vehicle_id id = pdk_world_vehicle_at(w, v);
                                pdk_dbw_msg u = {.kind = PDK_DBW_MSG_ULC, .crc = -1};
                                u.u.ulc = (pdk_dbw_ulc_cmd){.cmd = 12.0,
                                                            .cmd_type = PDK_ULC_CMD_VELOCITY,
                                                            .enable = 1,
                                                            .rc = (uint8_t)((ticks / 2) & 15)};
                                pdk_world_dbw(w, id, &u);
                                pdk_dbw_msg st = {.kind = PDK_DBW_MSG_STEER, .crc = -1};
                                st.u.chan = (pdk_dbw_chan_cmd){.cmd = 10.0,
                                                               .cmd_type = PDK_STEER_CMD_ANGLE,
                                                               .enable = 1,
                                                               .rc = (uint8_t)((ticks / 2) & 15)};
                                pdk_world_dbw(w, id, &st);
                            }
                        }
                        pdk_world_step(w);
                    }
                    elapsed = now_s() - start;
                } while (elapsed < seconds);
                double ns = elapsed * 1e9 / ((double)ticks * (double)n);
                best[kit] = ns < best[kit] ? ns : best[kit];
                if (kit) {
                    pdk_dbw_report r;
                    long reps = 0;
                    double t0 = now_s(), t = 0.0;
                    do {
                        for (int v = 0; v < n; v++, reps++) {
                            pdk_world_dbw_report(w, pdk_world_vehicle_at(w, v), &r);
                        }
                        t = now_s() - t0;
                    } while (t < seconds / 4.0);
                    double per = t * 1e9 / (double)reps;
                    best_rep = per < best_rep ? per : best_rep;
                    if (r.state != PDK_DBW_ACTIVE) {
                        printf("(kit not active: state %d)\n", r.state);
                    }
                }
                pdk_world_mem_free(mem, bytes);
            }
        }
        printf("%8d %18.1f %18.1f %18.1f %18.1f\n", n, best[0], best[1], best[1] - best[0],
               best_rep);
    }
}

#ifndef PDK_SOURCE_DIR
#define PDK_SOURCE_DIR "."
#endif

typedef struct preset_names {
    char names[32][65];
    int n;
} preset_names;

static void add_preset(const char *name, const char *description, void *ud)
{
    (void)description;
    preset_names *l = ud;
    if (l->n < 32) {
        snprintf(l->names[l->n++], sizeof l->names[0], "%s", name);
    }
}

/* Each vehicle preset the server has, as a session spawns it, at 100 cars
 * and at 3,000 (issue 27's large session: its state no longer stays in the
 * caches), flat ground, the world's substeps, ray contact; with the
 * channels every tick, and without them, as a server session steps the
 * ticks whose channels nothing reads (ADR 0035). */
static void bench_presets(double seconds, const char *only)
{
    preset_names l = {0};
    if (pdk_params_names(PDK_SOURCE_DIR "/presets", PDK_PRESET_VEHICLE, add_preset, &l) != PDK_OK) {
        printf("vehicle presets: none found under %s/presets\n", PDK_SOURCE_DIR);
        return;
    }
    const int sizes[] = {100, 3000};
    const int substeps = pdk_world_def_default().substeps;
    printf("vehicle presets, flat ground, %d substeps, ray contact:\n", substeps);
    printf("%-16s %8s %18s %22s %20s\n", "preset", "vehicles", "ns/vehicle-step",
           "vehicles/core @120Hz", "without channels");
    int shown = 0;
    for (int p = 0; p < l.n; p++) {
        if (only != NULL && strcmp(only, l.names[p]) != 0) {
            continue;
        }
        shown++;
        static pdk_vehicle_def def;
        char err[512];
        if (pdk_params_vehicle_load(PDK_SOURCE_DIR "/presets", l.names[p], NULL, &def, NULL, err,
                                    sizeof err) != PDK_OK) {
            printf("%-16s not loaded: %s\n", l.names[p], err);
            continue;
        }
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            result r = best_of_3_def(&def, 0, PDK_CONTACT_RAY, sizes[i], substeps, 1, seconds);
            result q = best_of_3_def(&def, 0, PDK_CONTACT_RAY, sizes[i], substeps, 0, seconds);
            printf("%-16s %8d %18.1f %22.0f %20.1f\n", l.names[p], sizes[i], r.ns_per_vehicle_step,
                   1e9 / (120.0 * r.ns_per_vehicle_step), q.ns_per_vehicle_step);
        }
    }
    if (only != NULL && shown == 0) {
        printf("no vehicle preset named '%s' under %s/presets\n", only, PDK_SOURCE_DIR);
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.25;
    if (!(seconds > 0.0)) {
        seconds = 0.25;
    }
#ifdef __OPTIMIZE__
    const char *build = "optimised build";
#else
    const char *build = "UNOPTIMISED build: figures are not representative, use Release";
#endif
    printf("bench_sim: dt 1/120 s, %s\n", build);
    if (argc > 2 && strcmp(argv[2], "presets") == 0) {
        /* The vehicle presets' lines alone, or one preset's (for a profile). */
        bench_presets(seconds, argc > 3 ? argv[3] : NULL);
        return 0;
    }
    const struct {
        pdk_model model;
        int bumps;
        const char *title;
    } cases[] = {
        {PDK_MODEL_FOUR_WHEEL, 0, "four-wheel model, default car and tyre law, flat ground"},
        {PDK_MODEL_FOUR_WHEEL, 1, "four-wheel model, default car and tyre law, 8 bumps"},
        {PDK_MODEL_SINGLE_TRACK, 0, "single-track model"},
    };
    const int sizes[] = {1, 100, 1000, 10000};
    int default_substeps = pdk_world_def_default().substeps;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        printf("%s:\n", cases[c].title);
        printf("%8s %9s %18s %22s\n", "vehicles", "substeps", "ns/vehicle-step",
               "vehicles/core @120Hz");
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (cases[c].bumps && sizes[i] != 1000) {
                continue;
            }
            result r = best_of_3(cases[c].model, cases[c].bumps, sizes[i], default_substeps,
                                 seconds);
            printf("%8d %9d %18.1f %22.0f\n", sizes[i], default_substeps, r.ns_per_vehicle_step,
                   1e9 / (120.0 * r.ns_per_vehicle_step));
        }
        if (cases[c].bumps) {
            continue;
        }
        printf("cost per substep count, 1000 vehicles:\n");
        for (int s = 1; s <= 8; s *= 2) {
            result r = best_of_3(cases[c].model, 0, 1000, s, seconds);
            printf("%8d %9d %18.1f %22.0f\n", 1000, s, r.ns_per_vehicle_step,
                   1e9 / (120.0 * r.ns_per_vehicle_step));
        }
    }
    bench_dbw(seconds);
    bench_tyres(seconds);
    bench_driveline(seconds);
    bench_presets(seconds, NULL);
    bench_builds(seconds);
    return 0;
}
