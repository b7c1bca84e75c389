/* `paddockd run`: the session machinery without the network. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/channels.h"
#include "params.h"
#include "script.h"
#include "session.h"
#include "store.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif

/* Parses "A,B,C" into channel indices; names the first unknown one. */
static int parse_channels(const char *list, int *out, int max, int *n_out)
{
    *n_out = 0;
    if (!list) {
        for (int i = 0; i < PDK_CH_COUNT && i < max; i++)
            out[(*n_out)++] = i;
        return 0;
    }
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[64];
        if (len == 0 || len >= sizeof(name)) {
            fprintf(stderr, "paddockd run: --channels: empty or over-long channel name in '%s'\n",
                    list);
            return -1;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        int ch = pdk_channel_find(name);
        if (ch < 0) {
            fprintf(stderr,
                    "paddockd run: --channels: unknown channel '%s' (`paddockd channels` lists "
                    "them)\n",
                    name);
            return -1;
        }
        if (*n_out >= max) {
            fprintf(stderr, "paddockd run: --channels: more than %d channels\n", max);
            return -1;
        }
        out[(*n_out)++] = ch;
        p += len;
        if (*p == ',')
            p++;
    }
    if (*n_out == 0) {
        fprintf(stderr, "paddockd run: --channels: no channel named\n");
        return -1;
    }
    return 0;
}

pdk_spawn_place pdk_run_place_from_script(const pdk_script *script)
{
    unsigned f = script->initial_fields;
    pdk_spawn_place place = {
        .x_m = (f & PDK_SCRIPT_INIT_X) ? script->initial_pose.x_m : 0.0,
        .y_m = (f & PDK_SCRIPT_INIT_Y) ? script->initial_pose.y_m : 0.0,
        .yaw_deg = (f & PDK_SCRIPT_INIT_YAW) ? script->initial_yaw_deg : 0.0,
        .speed_mps = (f & PDK_SCRIPT_INIT_SPEED) ? script->initial_speed_mps : 0.0,
        .gear = (f & PDK_SCRIPT_INIT_GEAR) ? script->initial_gear : PDK_GEAR_PARK,
    };
    return place;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pdk_run(const pdk_run_config *cfg)
{
    char err[PDK_PARAMS_ERR_LEN];
    int channels[4 * PDK_CH_COUNT];
    int n_channels = 0;
    if (!cfg->vehicle) {
        fprintf(stderr, "paddockd run: --vehicle PRESET is required\n");
        return 2;
    }
    if (parse_channels(cfg->channels, channels, 4 * PDK_CH_COUNT, &n_channels) != 0)
        return 2;

    pdk_vehicle_def vdef;
    char *vjson = NULL;
    if (pdk_params_vehicle_load(cfg->presets_dir, cfg->vehicle, cfg->vehicle_set, &vdef, &vjson,
                                err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd run: %s\n", err);
        return 2;
    }
    const char *world_name = cfg->world ? cfg->world : "flat";
    pdk_world_def wdef;
    char *wjson = NULL;
    if (pdk_params_world_load(cfg->presets_dir, world_name, cfg->world_set, &wdef, &wjson, err,
                              sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd run: %s\n", err);
        free(vjson);
        return 2;
    }
    pdk_script script;
    memset(&script, 0, sizeof(script));
    if (cfg->script_path &&
        pdk_script_load(cfg->script_path, &script, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd run: %s\n", err);
        free(vjson);
        free(wjson);
        return 2;
    }
    /* Every step the vehicle would refuse is an error now, before a session
     * or a record exists, rather than a command dropped in the middle of the
     * run. */
    if (pdk_script_check(&script, &vdef, cfg->vehicle, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd run: %s: %s\n", cfg->script_path, err);
        pdk_script_free(&script);
        free(vjson);
        free(wjson);
        return 2;
    }
    double duration = cfg->duration_s;
    if (duration <= 0)
        duration = script.n_steps ? script.steps[script.n_steps - 1].t_s + 5.0 : 10.0;

    int rc = 1;
    pdk_store *store = NULL;
    pdk_session *s = NULL;
    FILE *csv = NULL;
    if (cfg->db_path &&
        pdk_store_open(cfg->db_path, cfg->migrations_dir, &store, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd run: %s\n", err);
        goto out;
    }
    if (cfg->csv_path) {
        csv = fopen(cfg->csv_path, "w");
        if (!csv) {
            fprintf(stderr, "paddockd run: --csv %s: cannot write: %s\n", cfg->csv_path,
                    strerror(errno));
            rc = 2;
            goto out;
        }
    }
    uint64_t id = store ? pdk_store_next_session_id(store) : 1;
    char name[96];
    snprintf(name, sizeof(name), "run %s", cfg->vehicle);
    pdk_session_def sdef = {
        .name = name,
        .world_preset = world_name,
        .world_json = wjson,
        .world = wdef,
        .timing = PDK_TIMING_FAST,
        .build_id = PDK_BUILD_ID,
        .store = store,
    };
    pdk_error e = pdk_session_create(id, &sdef, NULL, &s);
    if (e != PDK_OK) {
        fprintf(stderr, "paddockd run: session: %s\n", pdk_error_message(e));
        goto out;
    }
    pdk_spawn_place place = pdk_run_place_from_script(&script);
    pdk_reply_to none = {0};
    pdk_session_queue_spawn(s, &vdef, cfg->vehicle, cfg->vehicle_set, vjson, &place, none);
    pdk_session_apply_inputs(s);
    const pdk_world *w = pdk_session_world(s);
    if (pdk_world_vehicle_count(w) != 1) {
        fprintf(stderr,
                "paddockd run: the vehicle could not be spawned (speed %g m/s, pose %g, "
                "%g m, %g deg)\n",
                place.speed_mps, place.x_m, place.y_m, place.yaw_deg);
        rc = 2;
        goto out;
    }
    pdk_vehicle_id vid = pdk_world_vehicle_at(w, 0);
    if (script.n_steps > 0 && pdk_session_attach_script(s, vid, &script, false, 0) != PDK_OK) {
        fprintf(stderr, "paddockd run: the script could not be attached\n");
        goto out;
    }
    if (csv) {
        fprintf(csv, "time");
        for (int i = 0; i < n_channels; i++)
            fprintf(csv, ",%s", pdk_channel_get((size_t)channels[i])->name);
        fprintf(csv, "\n");
    }
    uint64_t ticks = (uint64_t)llround(duration / wdef.dt_s);
    double t0 = wall_s();
    for (uint64_t k = 0; k < ticks; k++) {
        pdk_session_tick(s);
        if (!csv)
            continue;
        const double *v = pdk_world_channels(w, vid);
        fprintf(csv, "%.6f", pdk_world_time_s(w));
        for (int i = 0; i < n_channels; i++)
            fprintf(csv, ",%.9g", v ? v[channels[i]] : 0.0);
        fprintf(csv, "\n");
    }
    double wall = wall_s() - t0;
    if (csv && (fflush(csv) != 0 || ferror(csv))) {
        fprintf(stderr, "paddockd run: --csv %s: write failed\n", cfg->csv_path);
        goto out;
    }
    printf("session %" PRIu64 ": %s on %s, %" PRIu64 " ticks (%.3f s simulated) in %.3f s "
           "(%.0fx real time)\n",
           id, cfg->vehicle, world_name, ticks, pdk_world_time_s(w), wall,
           wall > 0 ? pdk_world_time_s(w) / wall : 0.0);
    printf("inputs applied: %" PRIu64 "\n", pdk_session_inputs_applied(s));
    printf("state hash: %016" PRIx64 "\n", pdk_session_hash(s));
    if (cfg->csv_path)
        printf("csv: %s (%d channels)\n", cfg->csv_path, n_channels);
    if (store)
        printf("recorded in: %s (session %" PRIu64 ": a state hash every tick, a keyframe "
               "every %u ticks; `paddockd verify --db %s %" PRIu64 "` replays it)\n",
               cfg->db_path, id, PDK_SESSION_KEYFRAME_EVERY, cfg->db_path, id);
    rc = 0;
out:
    pdk_session_destroy(s);
    if (store) {
        pdk_store_stats st;
        pdk_store_flush(store);
        pdk_store_stats_get(store, &st);
        if (st.failed > 0) {
            fprintf(stderr, "paddockd run: %" PRIu64 " records could not be written\n", st.failed);
            rc = 1;
        }
        pdk_store_close(store);
    }
    if (csv)
        fclose(csv);
    pdk_script_free(&script);
    free(vjson);
    free(wjson);
    return rc;
}
