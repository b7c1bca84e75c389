/* A session's recording: its row, vehicles, each applied input (packed a
 * tick at a time), a state hash every tick, keyframe snapshots and its
 * end. Calls nothing of the rest of the session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session_internal.h"
#include "sim/snapshot.h"
#include "wire_snapshot.h"

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

/* Adds the input in payload to this tick's packed inputs (one store
 * record a tick with the hashes held before them,
 * pdk_session_flush_inputs_). */
static void record_payload(pdk_session *s, uint64_t tick, pdk_input_kind kind)
{
    if (s->inputs.len > 0 && s->inputs_tick != tick)
        pdk_session_flush_inputs_(s);
    s->inputs_tick = tick;
    uint32_t head[3] = {(uint32_t)s->seq, (uint32_t)kind, (uint32_t)s->payload.len};
    if (pdk_buf_append(&s->inputs, head, sizeof head) != PDK_OK ||
        pdk_buf_append(&s->inputs, s->payload.data, s->payload.len) != PDK_OK)
        pdk_session_recorded_(s, PDK_ERR_NO_MEMORY, "an input");
}

/* The held inputs as one record, with the hashes held before them (every
 * one of a tick up to the inputs' tick: the inputs of tick T are queued
 * after the hashes of every tick up to T, docs/adr/0012). */
void pdk_session_flush_inputs_(pdk_session *s)
{
    if (s->inputs.len == 0)
        return;
    pdk_session_recorded_(s,
                          pdk_store_record_tick(s->store, s->id, s->hashes_from, s->hashes,
                                                s->n_hashes, s->inputs_tick, s->inputs.data,
                                                s->inputs.len),
                          s->n_hashes > 0 ? "state hashes and inputs" : "inputs");
    s->n_hashes = 0;
    pdk_buf_reset(&s->inputs);
}

/* Records an applied input: its body (kept by its kind's prepare, else
 * encoded now), then the store rows its kind leaves besides it, after the
 * tick's inputs so far, so that a row never lands before its input. */
void pdk_session_record_input_(pdk_session *s, const pdk_input_ctx *ctx, const pdk_input_ops *ops,
                               const pdk_pending_input *p, uint64_t tick)
{
    pdk_buf_reset(&s->payload);
    pdk_error e = p->payload_len > 0 ? pdk_buf_append(&s->payload, p->payload, p->payload_len)
                                     : ops->encode(s->id, &p->in, &s->payload);
    if (e != PDK_OK) {
        pdk_session_recorded_(s, e, "an input");
        return;
    }
    record_payload(s, tick, p->in.kind);
    if (ops->record_rows) {
        pdk_session_flush_inputs_(s);
        ops->record_rows(ctx, p, tick);
    }
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
    if (!s->keyframe_scratch)
        s->keyframe_scratch = calloc(1, sizeof(*s->keyframe_scratch));
    pdk_keyframe_scratch *ks = s->keyframe_scratch;
    if (!s->snapshot.data) {
        /* The last keyframe's block went to the store: a written one's
         * comes back, its memory mapped already. */
        size_t cap = 0;
        uint8_t *block = pdk_store_spare_take(s->store, s->id, &cap);
        if (block)
            s->snapshot = (pdk_buf){.data = block, .len = 0, .cap = cap};
    }
    pdk_error err =
        !ks ? PDK_ERR_NO_MEMORY
        : s->hooks.encode_keyframe
            ? s->hooks.encode_keyframe(s->hooks.ud, ks, s->world, hash, s->build_id, &s->snapshot)
            : pdk_wire_snapshot_encode_with(&ks->whole, s->world, hash, s->build_id, &s->snapshot);
    if (err == PDK_OK && pdk_world_vehicle_count(s->world) > 0)
        s->keyframe_vehicle_bytes = s->snapshot.len / (size_t)pdk_world_vehicle_count(s->world);
    if (err == PDK_OK) {
        void *blob = s->snapshot.data;
        err = pdk_store_record_snapshot_take(s->store, s->id, tick, hash, pdk_snapshot_layout(),
                                             &blob, s->snapshot.len, s->snapshot.cap);
        if (!blob)
            s->snapshot = (pdk_buf){0};
    }
    pdk_session_recorded_(s, err, "a keyframe");
}

const pdk_session_vehicle *pdk_session_vehicle_origin_(const pdk_session_vehicle *vehicles,
                                                       size_t n, pdk_vehicle_id id)
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
        const pdk_session_vehicle *v = pdk_session_vehicle_origin_(vehicles, n_vehicles, id);
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
 * keyframe_offset past a multiple of keyframe_every. */
static uint64_t keyframe_from(const pdk_session *s, uint64_t tick)
{
    uint64_t r = (tick - s->start_tick) % s->keyframe_every;
    return tick + (s->keyframe_offset + s->keyframe_every - r) % s->keyframe_every;
}

/* The tick of the next keyframe from tick on: where (tick - start) %
 * keyframe_every is keyframe_offset, found by a compare rather than a
 * division every tick. A tick that jumped (a restore, a reset) is placed
 * again by the division. */
static uint64_t next_keyframe(const pdk_session *s, uint64_t tick)
{
    if (tick > s->next_keyframe || s->next_keyframe - tick > s->keyframe_every)
        return keyframe_from(s, tick);
    return s->next_keyframe;
}

/* A fleet that grew by a quarter since the last ask has the store's
 * writer make a spare block large enough for its next keyframe, its pages
 * mapped (pdk_store_spare_want): else that keyframe, the first of the
 * larger fleet, would fault in its fresh memory page by page on its tick
 * (10,000 cars: some 6 MB, 5 to 9 ms on docs/perf's machine). Sized by
 * the last keyframe's bytes a vehicle, or half a record's before one. */
static void plan_keyframe_block(pdk_session *s)
{
    const int count = pdk_world_vehicle_count(s->world);
    if (count <= s->keyframe_planned)
        return;
    const size_t per =
        s->keyframe_vehicle_bytes ? s->keyframe_vehicle_bytes : pdk_snapshot_vehicle_bytes() / 2u;
    pdk_store_spare_want(s->store, s->id, 65536u + (size_t)count * per / 4u * 5u);
    s->keyframe_planned = count + count / 4;
}

void pdk_session_record_tick_(pdk_session *s)
{
    plan_keyframe_block(s);
    uint64_t tick = pdk_world_tick(s->world);
    bool hash_due = tick % PDK_SESSION_HASH_EVERY == 0;
    s->next_keyframe = next_keyframe(s, tick);
    bool keyframe_due = tick == s->next_keyframe;
    if (keyframe_due)
        s->next_keyframe = tick + s->keyframe_every;
    if (!hash_due && !keyframe_due)
        return;
    uint64_t t0 = pdk_tick_clock_ns();
    uint64_t hash = pdk_world_hash(s->world);
    s->tick_hash = hash;
    s->tick_hashed = true;
    if (hash_due)
        hold_hash(s, tick, hash);
    uint64_t t1 = pdk_tick_clock_ns();
    s->parts.hash_ns += t1 - t0;
    if (keyframe_due) {
        record_keyframe(s, tick, hash);
        s->parts.keyframe_ns += pdk_tick_clock_ns() - t1;
    }
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

bool pdk_session_recorded(const pdk_session *s)
{
    return s->store != NULL;
}

uint64_t pdk_session_start_tick(const pdk_session *s)
{
    return s->start_tick;
}

uint32_t pdk_session_keyframe_ahead(const pdk_session *s, uint64_t tick)
{
    return s->store ? (uint32_t)(keyframe_from(s, tick + 1) - tick) : 0u;
}
