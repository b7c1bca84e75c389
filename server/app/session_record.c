/* A session's recording (its row, vehicles, a state hash every tick,
 * keyframe snapshots and its end) and the restores that lay a snapshot's
 * world under a session: a replay's seek, and a session created from a
 * snapshot (a fork). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session_internal.h"
#include "sim/snapshot.h"
#include "wire_snapshot.h"
#include "world_mem.h"

static int64_t unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The store refuses a record only when it is closing or out of memory; the
 * session goes on, and the first refusal is logged so the gap in the
 * recording is known. */
void pdk_session_recorded_(pdk_session *s, pdk_error err, const char *what)
{
    if (err == PDK_OK)
        return;
    if (s->record_failures++ == 0)
        fprintf(stderr, "paddockd: session %llu: the recording lost %s: %s\n",
                (unsigned long long)s->id, what, pdk_error_message(err));
}

static const char *timing_name(pdk_timing timing)
{
    switch (timing) {
    case PDK_TIMING_FAST:
        return "fast";
    case PDK_TIMING_LOCKSTEP:
        return "lockstep";
    case PDK_TIMING_REALTIME:
        break;
    }
    return "realtime";
}

void pdk_session_flush_hashes_(pdk_session *s)
{
    if (s->n_hashes == 0)
        return;
    pdk_session_recorded_(
        s, pdk_store_record_hashes(s->store, s->id, s->hashes_from, s->hashes, s->n_hashes),
        "state hashes");
    s->n_hashes = 0;
}

/* Holds tick's hash for the next record of held hashes. A full batch is
 * recorded when the next hash comes, not when it fills: inputs that come
 * every PDK_SESSION_HASH_BATCH ticks (a 10 Hz client) then carry the
 * batch in their own record, one record where there were two. */
static void hold_hash(pdk_session *s, uint64_t tick, uint64_t hash)
{
    if (s->n_hashes > 0 &&
        (s->hashes_from + s->n_hashes != tick || s->n_hashes == PDK_SESSION_HASH_BATCH))
        pdk_session_flush_hashes_(s); /* full, or not the next tick: a run of its own */
    if (s->n_hashes == 0)
        s->hashes_from = tick;
    s->hashes[s->n_hashes++] = hash;
}

/* The world's complete snapshot now, as a keyframe. A snapshot that cannot
 * be encoded (out of memory) is a lost record like any other: a replay
 * seeks from an earlier keyframe. */
static void record_keyframe(pdk_session *s, uint64_t tick, uint64_t hash)
{
    pdk_session_flush_hashes_(s);
    pdk_error err =
        pdk_wire_snapshot_encode_with(&s->snapshot_scratch, s->world, s->build_id, &s->snapshot);
    if (err == PDK_OK)
        err = pdk_store_record_snapshot(s->store, s->id, tick, hash, pdk_snapshot_layout(),
                                        s->snapshot.data, s->snapshot.len);
    pdk_session_recorded_(s, err, "a keyframe");
}

static const pdk_session_vehicle *origin_of(const pdk_session_vehicle *vehicles, size_t n,
                                            pdk_vehicle_id id)
{
    for (size_t i = 0; i < n; i++)
        if (vehicles[i].id == id)
            return &vehicles[i];
    return NULL;
}

pdk_error pdk_session_record_start_(pdk_session *s, const pdk_session_def *def,
                                    const pdk_session_vehicle *vehicles, size_t n_vehicles)
{
    uint64_t tick = pdk_world_tick(s->world);
    pdk_store_session rec = {
        .session_id = s->id,
        .name = s->name,
        .timing = timing_name(s->timing),
        .world_preset = s->world_preset,
        .world_json = def->world_json ? def->world_json : "{}",
        .build_id = s->build_id,
        .dt_s = s->world_def.dt_s,
        .substeps = s->world_def.substeps,
        .created_unix_ms = unix_ms(),
        .start_tick = tick,
        .parent_session_id = def->parent_session_id,
        .parent_tick = def->parent_tick,
        .keyframe_every_ticks = s->keyframe_every,
    };
    pdk_error err = pdk_store_record_session(s->store, &rec);
    if (err != PDK_OK)
        return err;
    s->start_tick = tick;
    /* The vehicles it holds from the start, with their original spawns, so
     * that its recording names every vehicle its keyframes hold. */
    for (int i = 0; i < pdk_world_vehicle_count(s->world); i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(s->world, i);
        const pdk_session_vehicle *v = origin_of(vehicles, n_vehicles, id);
        PDK_ASSERT(v != NULL); /* the restore needed its definition */
        pdk_session_recorded_(s,
                              pdk_store_record_vehicle(s->store, s->id, id, v->spawn_tick,
                                                       v->preset ? v->preset : "", v->overrides,
                                                       v->params_json ? v->params_json : "{}"),
                              "a vehicle");
    }
    uint64_t hash = pdk_world_hash(s->world);
    hold_hash(s, tick, hash);
    record_keyframe(s, tick, hash);
    return PDK_OK;
}

/* The first tick from tick on whose distance from the recording's start is
 * a multiple of keyframe_every. */
static uint64_t keyframe_from(const pdk_session *s, uint64_t tick)
{
    uint64_t r = (tick - s->start_tick) % s->keyframe_every;
    return r == 0 ? tick : tick + (s->keyframe_every - r);
}

void pdk_session_record_tick_(pdk_session *s)
{
    uint64_t tick = pdk_world_tick(s->world);
    bool hash_due = tick % PDK_SESSION_HASH_EVERY == 0;
    /* Due where (tick - start) % keyframe_every is 0, found by a compare:
     * the division cost a lone car's tick 1 %. A tick that jumped (a
     * restore, a reset) is placed again by the division. */
    if (tick > s->next_keyframe || s->next_keyframe - tick > s->keyframe_every)
        s->next_keyframe = keyframe_from(s, tick);
    bool keyframe_due = tick == s->next_keyframe;
    if (keyframe_due)
        s->next_keyframe = tick + s->keyframe_every;
    if (!hash_due && !keyframe_due)
        return;
    uint64_t hash = pdk_world_hash(s->world);
    if (hash_due)
        hold_hash(s, tick, hash);
    if (keyframe_due)
        record_keyframe(s, tick, hash);
}

void pdk_session_record_end_(pdk_session *s)
{
    pdk_session_flush_inputs_(s);
    pdk_session_flush_hashes_(s);
    pdk_session_recorded_(s,
                          pdk_store_record_session_end(s->store, s->id, pdk_world_tick(s->world),
                                                       pdk_world_hash(s->world), unix_ms()),
                          "the session's end");
}

uint64_t pdk_session_start_tick(const pdk_session *s)
{
    return s->start_tick;
}

/* ---- restores --------------------------------------------------------------- */

/* What the session keeps across a restore, made consistent with the new
 * world: leases and DBW report subscriptions of vehicles it no longer holds
 * end (their holders and subscribers hear why), the report rings start over
 * from the restored tick, and drive scripts are detached (their steps were
 * timed in the world that is gone). */
static void after_restore(pdk_session *s)
{
    for (size_t i = 0; i < s->n_leases;) {
        pdk_vehicle_id v = s->leases[i].vehicle;
        if (pdk_world_dbw_state(s->world, v) != NULL) {
            i++;
            continue;
        }
        char reason[128];
        snprintf(reason, sizeof(reason), "vehicle %u is not in session %llu's restored world", v,
                 (unsigned long long)s->id);
        pdk_session_drop_vehicle_leases_(s, v, reason);
        i = 0; /* the array was rearranged */
    }
    for (size_t i = 0; i < s->n_scripts; i++)
        free(s->scripts[i].steps);
    s->n_scripts = 0;
    pdk_session_rings_restart_(s);
}

/* Lays out a staging world from the session's definition, restores the
 * snapshot into it (or leaves it fresh when snapshot is NULL) and swaps it
 * in only when all of that succeeded. */
static pdk_error restore_world(pdk_session *s, const uint8_t *snapshot, size_t len,
                               pdk_snapshot_def_fn def_for, void *ctx, char *err, size_t err_len)
{
    if (err_len > 0)
        err[0] = '\0';
    size_t bytes = pdk_world_mem_size(&s->world_def);
    void *mem = pdk_world_mem_alloc(bytes);
    if (!mem) {
        snprintf(err, err_len, "session %llu: no memory for a staging world of %zu bytes",
                 (unsigned long long)s->id, bytes);
        return PDK_ERR_NO_MEMORY;
    }
    pdk_world *staging = NULL;
    pdk_error e = pdk_world_init(mem, bytes, &s->world_def, &staging);
    if (e != PDK_OK) {
        snprintf(err, err_len, "session %llu: the staging world: %s", (unsigned long long)s->id,
                 pdk_error_message(e));
    } else if (snapshot != NULL) {
        char why[PDK_SESSION_ERR_LEN];
        why[0] = '\0';
        e = pdk_wire_snapshot_restore(snapshot, len, staging, def_for, ctx, NULL, why, sizeof(why));
        if (e != PDK_OK)
            snprintf(err, err_len, "session %llu: the snapshot does not restore: %s",
                     (unsigned long long)s->id, why[0] ? why : pdk_error_message(e));
    }
    if (e != PDK_OK) {
        free(mem);
        return e;
    }
    free(s->world_mem);
    s->world_mem = mem;
    s->world = staging;
    pdk_world_set_telemetry(s->world, s->telemetry);
    after_restore(s);
    return PDK_OK;
}

pdk_error pdk_session_restore(pdk_session *s, const uint8_t *snapshot, size_t len,
                              pdk_snapshot_def_fn def_for, void *ctx, char *err, size_t err_len)
{
    if (s->store) {
        snprintf(err, err_len,
                 "session %llu is recorded: a restore would leave a recording that does not "
                 "replay",
                 (unsigned long long)s->id);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return restore_world(s, snapshot, len, def_for, ctx, err, err_len);
}

typedef struct origins {
    const pdk_session_vehicle *v;
    size_t n;
} origins;

static const pdk_vehicle_def *origin_def(void *ctx, pdk_vehicle_id id)
{
    const origins *o = ctx;
    const pdk_session_vehicle *v = origin_of(o->v, o->n, id);
    return v ? v->def : NULL;
}

pdk_error pdk_session_create_from_snapshot(uint64_t id, const pdk_session_def *def,
                                           const pdk_session_hooks *hooks, const uint8_t *snapshot,
                                           size_t len, const pdk_session_vehicle *vehicles,
                                           size_t n_vehicles, pdk_session **out, char *err,
                                           size_t err_len)
{
    *out = NULL;
    if (snapshot == NULL || len == 0) {
        snprintf(err, err_len, "session %llu: no snapshot to start from", (unsigned long long)id);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_session *s;
    pdk_error e = pdk_session_create_bare_(id, def, hooks, &s);
    if (e != PDK_OK) {
        snprintf(err, err_len, "session %llu: %s", (unsigned long long)id,
                 e == PDK_ERR_OUT_OF_RANGE && pdk_world_def_problem(&def->world)
                     ? pdk_world_def_problem(&def->world)
                     : pdk_error_message(e));
        return e;
    }
    origins o = {vehicles, n_vehicles};
    e = restore_world(s, snapshot, len, origin_def, &o, err, err_len);
    if (e != PDK_OK) {
        pdk_session_destroy(s);
        return e;
    }
    s->start_tick = pdk_world_tick(s->world);
    if (def->store) {
        s->store = def->store;
        e = pdk_session_record_start_(s, def, vehicles, n_vehicles);
        if (e != PDK_OK) {
            snprintf(err, err_len, "session %llu: the store refused its recording: %s",
                     (unsigned long long)id, pdk_error_message(e));
            s->store = NULL;
            pdk_session_destroy(s);
            return e;
        }
    }
    *out = s;
    return PDK_OK;
}
