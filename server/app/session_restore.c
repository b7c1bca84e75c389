/* The restores that lay a snapshot's world under a session: a replay's
 * seek (pdk_session_restore), and a session created from a snapshot (a
 * fork), recorded from its first tick on. */
#include <stdio.h>
#include <stdlib.h>

#include "session_internal.h"
#include "wire_snapshot.h"
#include "world_mem.h"

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
        /* Its leases go, the array's last ones taking their places: those
         * below i stay where they were, and i is looked at again. */
        pdk_session_drop_vehicle_leases_(s, v, reason);
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
    pdk_error e = pdk_world_init_zeroed(mem, bytes, &s->world_def, &staging);
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
        pdk_world_mem_free(mem, bytes);
        return e;
    }
    pdk_world_mem_free(s->world_mem, s->world_mem_bytes);
    s->world_mem = mem;
    s->world_mem_bytes = bytes;
    s->world = staging;
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
    const pdk_session_vehicle *v = pdk_session_vehicle_origin_(o->v, o->n, id);
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
