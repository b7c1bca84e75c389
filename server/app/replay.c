/* Recordings loaded from the store, and the player that feeds one into a
 * session at its recorded ticks, compares its state hashes and seeks
 * through keyframes (replay.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "replay_internal.h"
#include "sim/snapshot.h"
#include "wire.h"
#include "wire_snapshot.h"
#include "world_mem.h"

/* A parent chain longer than this is a loop in a damaged file. */
#define MAX_FORK_DEPTH 64

void pdk_rec_errf(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static const char *kind_name(int kind)
{
    const pdk_input_ops *ops = pdk_input_ops_of(kind);
    return ops ? ops->body->short_name : "unknown kind";
}

/* ---- loading ------------------------------------------------------------------ */

/* An input as the store gave it: its payload is at bytes + at. */
typedef struct raw_input {
    uint64_t tick;
    uint32_t seq;
    int kind;
    size_t at, len;
} raw_input;

typedef struct loader {
    pdk_recording *rec;
    size_t cap_vehicles, cap_hashes, cap_keyframes;
    /* The inputs read, decoded once all are in (decode_inputs). */
    raw_input *raw;
    size_t n_raw, cap_raw;
    size_t n_spawns; /* of the raw inputs: those that will own text */
    unsigned char *bytes;
    size_t n_bytes, cap_bytes;
    const atomic_bool *cancel; /* NULL, or set by another thread to stop the load */
    char *err;
    size_t err_len;
} loader;

/* A cancelled load stops at the first row of a kind and then at every
 * every-th: PDK_ERR_CLOSED, err naming the session. rows: how many of the
 * kind were read before this one. */
static pdk_error check_cancel(loader *ld, size_t rows, size_t every)
{
    if (!ld->cancel || rows % every != 0 || !atomic_load_explicit(ld->cancel, memory_order_relaxed))
        return PDK_OK;
    pdk_rec_errf(ld->err, ld->err_len, "session %llu: the load of its recording was cancelled",
                 (unsigned long long)ld->rec->info.session.session_id);
    return PDK_ERR_CLOSED;
}

/* Grows *arr (of elem bytes) to hold one more than n. */
static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = c;
    return true;
}

static pdk_error on_vehicle(void *ctx, const pdk_store_vehicle_row *row)
{
    loader *ld = ctx;
    pdk_recording *rec = ld->rec;
    /* Each vehicle's parameters may be parsed: a look at every one. */
    pdk_error e = check_cancel(ld, rec->n_vehicles, 1);
    if (e != PDK_OK)
        return e;
    if (!grow((void **)&rec->vehicles, &ld->cap_vehicles, rec->n_vehicles, sizeof(rec_vehicle)))
        return PDK_ERR_NO_MEMORY;
    rec_vehicle *v = &rec->vehicles[rec->n_vehicles];
    memset(v, 0, sizeof(*v));
    v->id = row->vehicle_id;
    v->spawn_tick = row->spawn_tick;
    v->removed = row->removed != 0;
    v->removed_tick = row->removed_tick;
    v->preset = strdup(row->preset ? row->preset : "");
    v->overrides = strdup(row->overrides ? row->overrides : "");
    v->params_json = strdup(row->params_json ? row->params_json : "");
    rec->n_vehicles++;
    if (!v->preset || !v->overrides || !v->params_json)
        return PDK_ERR_NO_MEMORY;
    /* A fleet of one preset has many rows of the same parameters: each
     * distinct text is parsed once (parsing is most of a load). Texts are
     * compared by length, then by memcmp, latest first: a length differs
     * without reading the text, where a hash would read every byte of
     * every row. */
    v->params_len = strlen(v->params_json);
    for (size_t i = rec->n_vehicles - 1; i-- > 0;) {
        const rec_vehicle *o = &rec->vehicles[i];
        if (o->params_len == v->params_len &&
            memcmp(o->params_json, v->params_json, v->params_len) == 0) {
            v->def = o->def;
            return PDK_OK;
        }
    }
    char origin[128];
    snprintf(origin, sizeof(origin), "session %llu, vehicle %u's recorded parameters",
             (unsigned long long)rec->info.session.session_id, v->id);
    char why[PDK_PARAMS_ERR_LEN];
    e = pdk_params_vehicle_parse(v->params_json, origin, NULL, &v->def, NULL, why, sizeof(why));
    if (e != PDK_OK)
        pdk_rec_errf(ld->err, ld->err_len,
                     "session %llu: vehicle %u (preset %s, spawned at tick %llu) no longer "
                     "parses: %s",
                     (unsigned long long)rec->info.session.session_id, v->id, v->preset,
                     (unsigned long long)v->spawn_tick, why);
    return e;
}

/* What an input of kind does to the world's vehicle slots (KEPT for a
 * kind this build does not know: its load fails). */
static pdk_input_slots slots_of(int kind)
{
    const pdk_input_ops *ops = pdk_input_ops_of(kind);
    return ops ? ops->slots : PDK_INPUT_SLOTS_KEPT;
}

/* A spawn: it takes a slot, and its decoded input holds text (its preset
 * and overrides). */
static bool is_spawn(int kind)
{
    return slots_of(kind) == PDK_INPUT_SLOTS_TAKE_ONE;
}

static pdk_error on_input(void *ctx, uint64_t tick, uint32_t seq, int kind, const void *payload,
                          size_t len)
{
    loader *ld = ctx;
    pdk_error e = check_cancel(ld, ld->n_raw, 1024);
    if (e != PDK_OK)
        return e;
    if (!grow((void **)&ld->raw, &ld->cap_raw, ld->n_raw, sizeof(raw_input)))
        return PDK_ERR_NO_MEMORY;
    while (ld->cap_bytes - ld->n_bytes < len) {
        size_t c = ld->cap_bytes ? ld->cap_bytes * 2 : 4096;
        unsigned char *b = realloc(ld->bytes, c);
        if (!b)
            return PDK_ERR_NO_MEMORY;
        ld->bytes = b;
        ld->cap_bytes = c;
    }
    if (len > 0)
        memcpy(ld->bytes + ld->n_bytes, payload, len);
    ld->raw[ld->n_raw++] = (raw_input){tick, seq, kind, ld->n_bytes, len};
    ld->n_spawns += is_spawn(kind);
    ld->n_bytes += len;
    return PDK_OK;
}

/* Decodes one input into in (PDK_ERR_UNSUPPORTED for a kind this build
 * does not know). Touches nothing but in and the heap, so several threads
 * decode at once. */
static pdk_error decode_input(rec_input *in, const raw_input *r, const unsigned char *bytes)
{
    const void *payload = bytes + r->at;
    in->tick = r->tick;
    in->seq = r->seq;
    in->in.kind = (pdk_input_kind)r->kind;
    const pdk_input_ops *ops = pdk_input_ops_of(r->kind);
    return ops ? pdk_input_decode(ops, payload, r->len, &in->in) : PDK_ERR_UNSUPPORTED;
}

/* A share of the inputs to decode, and the first that did not. The
 * spawns it decodes (even one that failed half way: what its decode did
 * allocate is freed with the recording) take the next slots of the
 * recording's text_inputs, whose length the loader counted: in no
 * particular order, which freeing them does not need. */
typedef struct decode_share {
    const loader *ld;
    size_t from, to;
    size_t failed_at; /* to when none failed */
    pdk_error failed;
    atomic_size_t *next_text;
} decode_share;

static void *decode_share_run(void *arg)
{
    decode_share *d = arg;
    pdk_recording *rec = d->ld->rec;
    d->failed_at = d->to;
    d->failed = PDK_OK;
    for (size_t i = d->from; i < d->to; i++) {
        pdk_error e = decode_input(&rec->inputs[i], &d->ld->raw[i], d->ld->bytes);
        if (is_spawn(d->ld->raw[i].kind))
            rec->text_inputs[atomic_fetch_add_explicit(d->next_text, 1, memory_order_relaxed)] = i;
        if (e != PDK_OK) {
            d->failed_at = i;
            d->failed = e;
            break;
        }
    }
    return NULL;
}

/* Below this many inputs one thread decodes them all. */
#define DECODE_SHARE_MIN 8192u
#define DECODE_THREADS_MAX 4

/* Decodes every input read into rec->inputs, in shares on up to
 * DECODE_THREADS_MAX threads (decoding is most of a large recording's
 * load, and a verify waits for it); the error is the first input's that
 * does not decode, whichever thread found it. */
static pdk_error decode_inputs(loader *ld)
{
    pdk_recording *rec = ld->rec;
    if (ld->n_raw == 0)
        return PDK_OK;
    rec->inputs = calloc(ld->n_raw, sizeof(rec_input));
    if (!rec->inputs)
        return PDK_ERR_NO_MEMORY;
    rec->n_inputs = ld->n_raw;
    if (ld->n_spawns > 0) {
        rec->text_inputs = malloc(ld->n_spawns * sizeof(*rec->text_inputs));
        if (!rec->text_inputs)
            return PDK_ERR_NO_MEMORY;
    }
    atomic_size_t next_text;
    atomic_init(&next_text, 0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = ld->n_raw < 2 * DECODE_SHARE_MIN ? 1 : (size_t)(cpus > 1 ? cpus : 1);
    if (n > DECODE_THREADS_MAX)
        n = DECODE_THREADS_MAX;
    decode_share shares[DECODE_THREADS_MAX];
    pthread_t threads[DECODE_THREADS_MAX];
    bool started[DECODE_THREADS_MAX] = {false};
    for (size_t t = 0; t < n; t++) {
        shares[t] = (decode_share){.ld = ld,
                                   .from = ld->n_raw * t / n,
                                   .to = ld->n_raw * (t + 1) / n,
                                   .next_text = &next_text};
        if (t > 0)
            started[t] = pthread_create(&threads[t], NULL, decode_share_run, &shares[t]) == 0;
    }
    for (size_t t = 0; t < n; t++) {
        if (t == 0 || !started[t])
            decode_share_run(&shares[t]); /* this thread's, or one no thread took */
        else
            pthread_join(threads[t], NULL);
    }
    rec->n_text_inputs = atomic_load(&next_text);
    for (size_t t = 0; t < n; t++) {
        if (shares[t].failed == PDK_OK)
            continue;
        const raw_input *r = &ld->raw[shares[t].failed_at];
        pdk_error e = shares[t].failed;
        if (e == PDK_ERR_NO_MEMORY)
            return e;
        if (strcmp(kind_name(r->kind), "unknown kind") == 0)
            pdk_rec_errf(ld->err, ld->err_len,
                         "session %llu: the input at tick %llu, seq %u has kind %d, which this "
                         "build does not know",
                         (unsigned long long)rec->info.session.session_id,
                         (unsigned long long)r->tick, r->seq, r->kind);
        else
            pdk_rec_errf(ld->err, ld->err_len,
                         "session %llu: the input at tick %llu, seq %u (kind %d) is not a valid "
                         "%s (%zu bytes): %s",
                         (unsigned long long)rec->info.session.session_id,
                         (unsigned long long)r->tick, r->seq, r->kind, kind_name(r->kind), r->len,
                         pdk_error_message(e));
        return PDK_ERR_PARSE;
    }
    return PDK_OK;
}

static pdk_error on_hash(void *ctx, uint64_t tick, uint64_t hash)
{
    loader *ld = ctx;
    pdk_recording *rec = ld->rec;
    pdk_error e = check_cancel(ld, rec->n_hashes, 1024);
    if (e != PDK_OK)
        return e;
    if (!grow((void **)&rec->hashes, &ld->cap_hashes, rec->n_hashes, sizeof(rec_hash)))
        return PDK_ERR_NO_MEMORY;
    rec->hashes[rec->n_hashes++] = (rec_hash){tick, hash};
    return PDK_OK;
}

static pdk_error on_keyframe(void *ctx, uint64_t tick, uint64_t hash, uint64_t layout,
                             size_t blob_len)
{
    loader *ld = ctx;
    pdk_recording *rec = ld->rec;
    pdk_error e = check_cancel(ld, rec->n_keyframes, 1024);
    if (e != PDK_OK)
        return e;
    if (!grow((void **)&rec->keyframes, &ld->cap_keyframes, rec->n_keyframes, sizeof(rec_keyframe)))
        return PDK_ERR_NO_MEMORY;
    rec->keyframes[rec->n_keyframes++] = (rec_keyframe){tick, hash, layout, blob_len};
    return PDK_OK;
}

/* The recording must hang together: inputs from its start tick on, a
 * vehicle row for every spawn a replay applies (same tick, same count). */
static pdk_error check_recording(const pdk_recording *rec, char *err, size_t err_len)
{
    unsigned long long sid = (unsigned long long)rec->info.session.session_id;
    if (rec->n_inputs > 0 && rec->inputs[0].tick < rec->start_tick) {
        pdk_rec_errf(err, err_len,
                     "session %llu: an input at tick %llu comes before its start tick %llu", sid,
                     (unsigned long long)rec->inputs[0].tick, (unsigned long long)rec->start_tick);
        return PDK_ERR_PARSE;
    }
    size_t v = 0;
    while (v < rec->n_vehicles && rec->vehicles[v].spawn_tick < rec->start_tick)
        v++;
    for (size_t i = 0; i < rec->n_inputs;) {
        uint64_t tick = rec->inputs[i].tick;
        if (tick >= rec->end_tick)
            break; /* a replay stops before it applies them */
        size_t spawns = 0;
        for (; i < rec->n_inputs && rec->inputs[i].tick == tick; i++)
            spawns += is_spawn(rec->inputs[i].in.kind);
        while (v < rec->n_vehicles && rec->vehicles[v].spawn_tick < tick) {
            pdk_rec_errf(err, err_len,
                         "session %llu: vehicle %u's row says it was spawned at tick %llu, "
                         "where no spawn was recorded",
                         sid, rec->vehicles[v].id, (unsigned long long)rec->vehicles[v].spawn_tick);
            return PDK_ERR_PARSE;
        }
        size_t rows = 0;
        for (; v < rec->n_vehicles && rec->vehicles[v].spawn_tick == tick; v++)
            rows++;
        if (rows != spawns) {
            pdk_rec_errf(err, err_len,
                         "session %llu: tick %llu has %zu recorded spawns but %zu vehicle rows",
                         sid, (unsigned long long)tick, spawns, rows);
            return PDK_ERR_PARSE;
        }
    }
    return PDK_OK;
}

/* The later half of a recording's inputs, read on a thread of its own
 * into a loader of its own (read_vehicles_and_inputs): on_input touches
 * nothing but its loader's buffers. */
typedef struct input_half {
    loader ld;
    pdk_store *store;
    uint64_t session_id, first_tick;
    pdk_error e;
    char why[PDK_STORE_ERR_LEN];
    char err[PDK_REPLAY_ERR_LEN];
} input_half;

static void *read_later_half(void *arg)
{
    input_half *h = arg;
    h->e = pdk_store_read_inputs_between(h->store, h->session_id, h->first_tick, UINT64_MAX,
                                         on_input, &h->ld, h->why, sizeof(h->why));
    return NULL;
}

/* Appends the later half's inputs to ld's (their payloads' offsets moved
 * past ld's bytes). */
static pdk_error join_halves(loader *ld, loader *later)
{
    if (later->n_raw == 0)
        return PDK_OK;
    raw_input *raw = realloc(ld->raw, (ld->n_raw + later->n_raw) * sizeof(*raw));
    if (!raw)
        return PDK_ERR_NO_MEMORY;
    ld->raw = raw;
    ld->cap_raw = ld->n_raw + later->n_raw;
    unsigned char *bytes = ld->bytes;
    if (later->n_bytes > 0) {
        bytes = realloc(ld->bytes, ld->n_bytes + later->n_bytes);
        if (!bytes)
            return PDK_ERR_NO_MEMORY;
        memcpy(bytes + ld->n_bytes, later->bytes, later->n_bytes);
        ld->bytes = bytes;
        ld->cap_bytes = ld->n_bytes + later->n_bytes;
    }
    for (size_t i = 0; i < later->n_raw; i++) {
        raw[ld->n_raw + i] = later->raw[i];
        raw[ld->n_raw + i].at += ld->n_bytes;
    }
    ld->n_raw += later->n_raw;
    ld->n_bytes += later->n_bytes;
    ld->n_spawns += later->n_spawns;
    return PDK_OK;
}

/* Reads the session's vehicles and its inputs into ld. The inputs are
 * read in two halves by tick, the later on a thread of its own through
 * the store's second read connection, while this one reads the vehicles
 * and the earlier half: reading the rows is most of a large recording's
 * load, which a verify waits for.
 * An error is the earlier half's when both fail, as one read in tick
 * order would report. */
static pdk_error read_vehicles_and_inputs(loader *ld, pdk_store *store, uint64_t session_id,
                                          char *why, size_t why_len)
{
    const pdk_recording *rec = ld->rec;
    uint64_t end =
        rec->info.last_tick > rec->info.final_tick ? rec->info.last_tick : rec->info.final_tick;
    uint64_t mid =
        end > rec->start_tick ? rec->start_tick + (end - rec->start_tick) / 2 + 1 : UINT64_MAX;
    input_half *later = NULL;
    bool started = false;
    pthread_t thread;
    if (mid != UINT64_MAX) {
        later = calloc(1, sizeof(*later));
        if (!later)
            return PDK_ERR_NO_MEMORY;
        *later = (input_half){.store = store, .session_id = session_id, .first_tick = mid};
        later->ld = (loader){
            .rec = ld->rec, .cancel = ld->cancel, .err = later->err, .err_len = sizeof(later->err)};
        started = pthread_create(&thread, NULL, read_later_half, later) == 0;
    }
    pdk_error e = pdk_store_read_vehicles(store, session_id, on_vehicle, ld, why, why_len);
    if (e == PDK_OK)
        e = pdk_store_read_inputs_between(store, session_id, 0, mid - 1, on_input, ld, why,
                                          why_len);
    if (later) {
        if (started)
            pthread_join(thread, NULL);
        else
            read_later_half(later); /* no thread: in turn */
        if (e == PDK_OK && later->e != PDK_OK) {
            e = later->e;
            snprintf(why, why_len, "%s", later->why);
            if (later->err[0] != '\0')
                pdk_rec_errf(ld->err, ld->err_len, "%s", later->err);
        }
        if (e == PDK_OK)
            e = join_halves(ld, &later->ld);
        free(later->ld.raw);
        free(later->ld.bytes);
        free(later);
    }
    return e;
}

pdk_error pdk_recording_load(pdk_store *store, uint64_t session_id, pdk_recording **out, char *err,
                             size_t err_len)
{
    return pdk_recording_load_cancellable(store, session_id, NULL, out, err, err_len);
}

pdk_error pdk_recording_load_cancellable(pdk_store *store, uint64_t session_id,
                                         const atomic_bool *cancel, pdk_recording **out, char *err,
                                         size_t err_len)
{
    *out = NULL;
    pdk_rec_errf(err, err_len, "%s", "");
    if (store == NULL) {
        pdk_rec_errf(err, err_len, "no store to load session %llu from",
                     (unsigned long long)session_id);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_recording *rec = calloc(1, sizeof(*rec));
    if (!rec)
        return PDK_ERR_NO_MEMORY;
    rec->store = store;
    char why[PDK_STORE_ERR_LEN];
    why[0] = '\0';
    pdk_error e = pdk_store_read_session(store, session_id, &rec->info, why, sizeof(why));
    if (e != PDK_OK) {
        free(rec);
        if (e == PDK_ERR_NOT_FOUND)
            pdk_rec_errf(err, err_len, "session %llu is not in the database",
                         (unsigned long long)session_id);
        else
            pdk_rec_errf(err, err_len, "session %llu: %s", (unsigned long long)session_id,
                         why[0] ? why : pdk_error_message(e));
        return e;
    }
    const pdk_store_session *ss = &rec->info.session;
    char origin[96];
    snprintf(origin, sizeof(origin), "session %llu's recorded world",
             (unsigned long long)session_id);
    char pwhy[PDK_PARAMS_ERR_LEN];
    e = pdk_params_world_parse(ss->world_json, origin, NULL, &rec->world, NULL, pwhy, sizeof(pwhy));
    if (e != PDK_OK) {
        pdk_rec_errf(err, err_len, "session %llu: its world no longer parses: %s",
                     (unsigned long long)session_id, pwhy);
        pdk_recording_free(rec);
        return e;
    }
    /* The tick length is not a world parameter; the session's row keeps it. */
    if (ss->dt_s > 0.0)
        rec->world.dt_s = ss->dt_s;
    if (ss->substeps != rec->world.substeps) {
        pdk_rec_errf(err, err_len, "session %llu: its row says %d substeps, its recorded world %d",
                     (unsigned long long)session_id, ss->substeps, rec->world.substeps);
        pdk_recording_free(rec);
        return PDK_ERR_PARSE;
    }
    rec->start_tick = ss->start_tick;
    loader ld = {.rec = rec, .cancel = cancel, .err = err, .err_len = err_len};
    why[0] = '\0';
    e = read_vehicles_and_inputs(&ld, store, session_id, why, sizeof(why));
    if (e == PDK_OK)
        e = decode_inputs(&ld);
    free(ld.raw);
    free(ld.bytes);
    if (e == PDK_OK)
        e = pdk_store_read_hashes(store, session_id, on_hash, &ld, why, sizeof(why));
    if (e == PDK_OK)
        e = pdk_store_read_keyframes(store, session_id, on_keyframe, &ld, why, sizeof(why));
    if (e != PDK_OK) {
        /* A callback's own error already wrote err; the store's says why. */
        if (e == PDK_ERR_NO_MEMORY)
            pdk_rec_errf(err, err_len, "session %llu: out of memory loading its recording",
                         (unsigned long long)session_id);
        else if (why[0] != '\0' && e == PDK_ERR_DB)
            pdk_rec_errf(err, err_len, "session %llu: %s", (unsigned long long)session_id, why);
        pdk_recording_free(rec);
        return e;
    }
    uint64_t end = rec->info.last_tick;
    if (rec->info.final_tick > end)
        end = rec->info.final_tick;
    if (rec->n_hashes > 0 && rec->hashes[rec->n_hashes - 1].tick > end)
        end = rec->hashes[rec->n_hashes - 1].tick;
    /* Ticks lost while the disk was full (recording_gaps): a replay, a
     * verify and a fork stop before the first, never running across it. */
    if (rec->info.gaps > 0 && rec->info.gap_first_tick <= end)
        end = rec->info.gap_first_tick > rec->start_tick ? rec->info.gap_first_tick - 1
                                                         : rec->start_tick;
    rec->end_tick = end < rec->start_tick ? rec->start_tick : end;
    e = check_recording(rec, err, err_len);
    if (e != PDK_OK) {
        pdk_recording_free(rec);
        return e;
    }
    *out = rec;
    return PDK_OK;
}

void pdk_recording_free(pdk_recording *rec)
{
    if (!rec)
        return;
    for (size_t i = 0; i < rec->n_vehicles; i++) {
        free(rec->vehicles[i].preset);
        free(rec->vehicles[i].overrides);
        free(rec->vehicles[i].params_json);
    }
    for (size_t k = 0; k < rec->n_text_inputs; k++) {
        free(rec->inputs[rec->text_inputs[k]].in.preset);
        free(rec->inputs[rec->text_inputs[k]].in.overrides);
    }
    free(rec->text_inputs);
    free(rec->vehicles);
    free(rec->inputs);
    free(rec->hashes);
    free(rec->keyframes);
    pdk_store_session_info_free(&rec->info);
    free(rec);
}

void pdk_recording_info_get(const pdk_recording *rec, pdk_recording_info *out)
{
    const pdk_store_session *ss = &rec->info.session;
    *out = (pdk_recording_info){
        .session_id = ss->session_id,
        .name = ss->name,
        .build_id = ss->build_id,
        .world_preset = ss->world_preset,
        .start_tick = rec->start_tick,
        .last_tick = rec->end_tick,
        .parent_session_id = ss->parent_session_id,
        .parent_tick = ss->parent_tick,
        .ended = rec->info.ended != 0,
        .interrupted = rec->info.interrupted != 0,
        .gaps = rec->info.gaps,
        .gap_first_tick = rec->info.gap_first_tick,
        .gap_last_tick = rec->info.gap_last_tick,
        .n_inputs = rec->n_inputs,
        .n_hashes = rec->n_hashes,
        .n_keyframes = rec->n_keyframes,
        .n_vehicles = rec->n_vehicles,
    };
}

const pdk_world_def *pdk_recording_world_def(const pdk_recording *rec)
{
    return &rec->world;
}

uint64_t pdk_rec_hash_at(const pdk_recording *rec, uint64_t tick, bool *found)
{
    size_t lo = pdk_rec_first_at(rec->hashes, rec->n_hashes, sizeof(rec_hash), tick);
    *found = lo < rec->n_hashes && rec->hashes[lo].tick == tick;
    return *found ? rec->hashes[lo].hash : 0;
}

uint64_t pdk_recording_hash_at(const pdk_recording *rec, uint64_t tick, bool *found)
{
    return pdk_rec_hash_at(rec, tick, found);
}

const rec_vehicle *pdk_rec_vehicle_at(const pdk_recording *rec, pdk_vehicle_id id, uint64_t tick)
{
    /* The state at tick is taken before tick's inputs apply: a vehicle
     * spawned at tick is not in it yet, one removed at tick still is. */
    for (size_t i = 0; i < rec->n_vehicles; i++) {
        const rec_vehicle *v = &rec->vehicles[i];
        if (v->id == id && v->spawn_tick < tick && (!v->removed || v->removed_tick >= tick))
            return v;
    }
    return NULL;
}

typedef struct alive_ctx {
    const pdk_recording *rec;
    uint64_t tick;
} alive_ctx;

static const pdk_vehicle_def *def_alive(void *ctx, pdk_vehicle_id id)
{
    const alive_ctx *a = ctx;
    const rec_vehicle *v = pdk_rec_vehicle_at(a->rec, id, a->tick);
    return v ? &v->def : NULL;
}

static pdk_error read_keyframe(const pdk_recording *rec, size_t k, void **blob, size_t *len,
                               char *err, size_t err_len)
{
    char why[PDK_STORE_ERR_LEN];
    why[0] = '\0';
    pdk_error e = pdk_store_read_snapshot(rec->store, rec->info.session.session_id,
                                          rec->keyframes[k].tick, blob, len, why, sizeof(why));
    if (e != PDK_OK)
        pdk_rec_errf(err, err_len, "session %llu: its keyframe at tick %llu cannot be read: %s",
                     (unsigned long long)rec->info.session.session_id,
                     (unsigned long long)rec->keyframes[k].tick,
                     why[0] ? why : pdk_error_message(e));
    return e;
}

pdk_error pdk_rec_keyframe_world(const pdk_recording *rec, size_t k, void **mem, pdk_world **out,
                                 char *err, size_t err_len)
{
    *mem = NULL;
    *out = NULL;
    void *blob = NULL;
    size_t len = 0;
    pdk_error e = read_keyframe(rec, k, &blob, &len, err, err_len);
    if (e != PDK_OK)
        return e;
    size_t bytes = pdk_world_mem_size(&rec->world);
    *mem = pdk_world_mem_alloc(bytes);
    if (!*mem) {
        free(blob);
        return PDK_ERR_NO_MEMORY;
    }
    pdk_world *w;
    e = pdk_world_init_zeroed(*mem, bytes, &rec->world, &w);
    if (e == PDK_OK) {
        alive_ctx a = {rec, rec->keyframes[k].tick};
        char why[PDK_REPLAY_ERR_LEN];
        why[0] = '\0';
        e = pdk_wire_snapshot_restore(blob, len, w, def_alive, &a, NULL, why, sizeof(why));
        if (e != PDK_OK)
            pdk_rec_errf(
                err, err_len, "session %llu: its keyframe at tick %llu does not restore: %s",
                (unsigned long long)rec->info.session.session_id,
                (unsigned long long)rec->keyframes[k].tick, why[0] ? why : pdk_error_message(e));
    }
    free(blob);
    if (e == PDK_OK)
        *out = w;
    return e;
}

pdk_error pdk_rec_scratch_session(const pdk_recording *rec, pdk_session **out, char *err,
                                  size_t err_len)
{
    pdk_session_def def = {
        .name = rec->info.session.name,
        .world_preset = rec->info.session.world_preset,
        .world_json = rec->info.session.world_json,
        .world = rec->world,
        .timing = PDK_TIMING_FAST,
        .build_id = rec->info.session.build_id,
    };
    pdk_error e = pdk_session_create(rec->info.session.session_id, &def, NULL, out);
    if (e != PDK_OK)
        pdk_rec_errf(err, err_len, "session %llu: a session for its replay: %s",
                     (unsigned long long)rec->info.session.session_id, pdk_error_message(e));
    return e;
}

pdk_error pdk_rec_replay_range(const pdk_recording *rec, uint64_t from_tick, uint64_t to_tick,
                               uint64_t every_ticks, pdk_rec_visit_fn visit, void *ctx, char *err,
                               size_t err_len)
{
    uint64_t every = every_ticks ? every_ticks : 1;
    pdk_session *s = NULL;
    pdk_player *p = NULL;
    pdk_error e = pdk_rec_scratch_session(rec, &s, err, err_len);
    if (e == PDK_OK)
        e = pdk_player_create(rec, s, &p, err, err_len);
    if (e == PDK_OK)
        e = pdk_player_seek(p, from_tick, err, err_len);
    if (e == PDK_OK)
        pdk_session_set_publishing(s, false);
    for (uint64_t t = from_tick; e == PDK_OK; t++) {
        if ((t - from_tick) % every == 0)
            e = visit(ctx, s);
        if (e != PDK_OK || t == to_tick)
            break;
        e = pdk_player_step(p);
        if (e != PDK_OK)
            pdk_rec_errf(err, err_len, "session %llu: the replay failed at tick %llu: %s",
                         (unsigned long long)rec->info.session.session_id, (unsigned long long)t,
                         pdk_error_message(e));
    }
    pdk_player_free(p);
    pdk_session_destroy(s);
    return e;
}

/* ---- the player --------------------------------------------------------------- */

static size_t first_input_at(const pdk_recording *rec, uint64_t tick)
{
    return pdk_rec_first_at(rec->inputs, rec->n_inputs, sizeof(rec_input), tick);
}

static uint64_t player_tick(const pdk_player *p)
{
    return pdk_world_tick(pdk_session_world(p->s));
}

/* Compares the session's hash with the recording's at the session's tick. */
static void check_hash(pdk_player *p)
{
    uint64_t tick = player_tick(p);
    bool found;
    uint64_t want = pdk_rec_hash_at(p->rec, tick, &found);
    if (!found)
        return;
    if (pdk_session_hash(p->s) != want && !p->has_diverged) {
        p->has_diverged = true;
        p->diverged = tick;
    }
}

/* Which vehicle row each spawn of the tick at inputs [i, end) creates. The
 * world gives a spawn the lowest free slot with that slot's generation, and
 * removals (a reset's too) free slots and bump their generations, so
 * walking the tick's inputs in seq order over the world's slots gives the
 * id each spawn gets; the row with that id and tick holds its definition.
 * rows[j] gets the row of the tick's j-th spawn. */
static pdk_error spawn_rows(pdk_player *p, size_t i, size_t end, const rec_vehicle **rows,
                            size_t n_rows)
{
    const pdk_recording *rec = p->rec;
    const pdk_world *w = pdk_session_world(p->s);
    if (pdk_world_snapshot_generations(w, p->generations, (size_t)p->capacity) != PDK_OK)
        return PDK_ERR_CAPACITY;
    memset(p->alive, 0, (size_t)p->capacity * sizeof(bool));
    for (int k = 0; k < pdk_world_vehicle_count(w); k++)
        p->alive[(pdk_world_vehicle_at(w, k) & 0xffffu) - 1u] = true;
    uint64_t tick = rec->inputs[i].tick;
    size_t first_row = 0;
    while (first_row < rec->n_vehicles && rec->vehicles[first_row].spawn_tick < tick)
        first_row++;
    size_t j = 0;
    for (; i < end; i++) {
        const rec_input *in = &rec->inputs[i];
        pdk_input_slots effect = slots_of(in->in.kind);
        if (effect == PDK_INPUT_SLOTS_FREE_ONE || effect == PDK_INPUT_SLOTS_FREE_ALL) {
            int from = 0, to = p->capacity;
            if (effect == PDK_INPUT_SLOTS_FREE_ONE) {
                from = (int)(in->in.vehicle & 0xffffu) - 1;
                to = from + 1;
                if (from < 0 || to > p->capacity || (in->in.vehicle >> 16) != p->generations[from])
                    continue; /* not alive: it was refused */
            }
            for (int slot = from; slot < to; slot++) {
                if (p->alive[slot]) {
                    p->alive[slot] = false;
                    p->generations[slot] = (p->generations[slot] + 1u) & 0xffffu;
                }
            }
            continue;
        }
        if (effect != PDK_INPUT_SLOTS_TAKE_ONE)
            continue;
        int slot = 0;
        while (slot < p->capacity && p->alive[slot])
            slot++;
        pdk_vehicle_id id = 0;
        if (slot < p->capacity) {
            p->alive[slot] = true;
            id = (p->generations[slot] << 16) | (uint32_t)(slot + 1);
        }
        /* The row with the predicted id; failing that (a file written by
         * another allocator), the first unused row of the same preset. */
        const rec_vehicle *row = NULL;
        for (size_t r = first_row; r < n_rows && rec->vehicles[r].spawn_tick == tick; r++)
            if (rec->vehicles[r].id == id)
                row = &rec->vehicles[r];
        for (size_t r = first_row; !row && r < n_rows && rec->vehicles[r].spawn_tick == tick; r++) {
            bool used = false;
            for (size_t u = 0; u < j; u++)
                used = used || rows[u] == &rec->vehicles[r];
            if (!used && strcmp(rec->vehicles[r].preset, in->in.preset) == 0 &&
                strcmp(rec->vehicles[r].overrides, in->in.overrides) == 0)
                row = &rec->vehicles[r];
        }
        if (!row)
            return PDK_ERR_NOT_FOUND;
        rows[j++] = row;
    }
    return PDK_OK;
}

/* Queues the recorded inputs of the session's tick, in seq order, through
 * the session's own queue. */
static pdk_error queue_tick(pdk_player *p)
{
    const pdk_recording *rec = p->rec;
    uint64_t tick = player_tick(p);
    if (p->next_input > rec->n_inputs ||
        (p->next_input < rec->n_inputs && rec->inputs[p->next_input].tick < tick) ||
        (p->next_input > 0 && rec->inputs[p->next_input - 1].tick >= tick))
        p->next_input = first_input_at(rec, tick);
    size_t end = p->next_input;
    size_t spawns = 0;
    while (end < rec->n_inputs && rec->inputs[end].tick == tick)
        spawns += is_spawn(rec->inputs[end++].in.kind);
    const rec_vehicle *stack_rows[16];
    const rec_vehicle **rows = stack_rows;
    if (spawns > 16) {
        rows = malloc(spawns * sizeof(*rows));
        if (!rows)
            return PDK_ERR_NO_MEMORY;
    }
    pdk_error e = spawns ? spawn_rows(p, p->next_input, end, rows, rec->n_vehicles) : PDK_OK;
    pdk_reply_to none = {0};
    size_t j = 0;
    for (size_t i = p->next_input; e == PDK_OK && i < end; i++) {
        const rec_input *in = &rec->inputs[i];
        if (is_spawn(in->in.kind)) {
            const rec_vehicle *row = rows[j++];
            e = pdk_session_queue_spawn(p->s, &row->def, row->preset, row->overrides,
                                        row->params_json, &in->in.u.place, none);
        } else {
            e = pdk_session_queue_recorded(p->s, &in->in, none);
        }
    }
    if (rows != stack_rows)
        free(rows);
    p->next_input = end;
    return e;
}

pdk_error pdk_player_step(pdk_player *p)
{
    if (player_tick(p) >= p->rec->end_tick)
        return PDK_ERR_CLOSED;
    pdk_error e = queue_tick(p);
    if (e != PDK_OK)
        return e;
    pdk_session_tick(p->s);
    check_hash(p);
    return PDK_OK;
}

static bool keyframe_usable(const pdk_player *p, size_t k)
{
    const rec_keyframe *kf = &p->rec->keyframes[k];
    if (p->bad_keyframe[k] || kf->layout != pdk_snapshot_layout())
        return false;
    bool found;
    uint64_t h = pdk_rec_hash_at(p->rec, kf->tick, &found);
    return !found || h == kf->hash;
}

/* Restores keyframe k into the session; a keyframe that fails is marked
 * and never tried again. *swapped tells whether the session's world was
 * replaced (also when the restored world then failed its hash). */
static pdk_error restore_keyframe(pdk_player *p, size_t k, bool *swapped, char *err, size_t err_len)
{
    const pdk_recording *rec = p->rec;
    void *blob = NULL;
    size_t len = 0;
    pdk_error e = read_keyframe(rec, k, &blob, &len, err, err_len);
    if (e == PDK_OK) {
        alive_ctx a = {rec, rec->keyframes[k].tick};
        e = pdk_session_restore(p->s, blob, len, def_alive, &a, err, err_len);
        free(blob);
    }
    if (e == PDK_OK) {
        *swapped = true;
        bool found;
        uint64_t want = pdk_rec_hash_at(rec, rec->keyframes[k].tick, &found);
        if (found && pdk_session_hash(p->s) != want) {
            pdk_rec_errf(err, err_len,
                         "session %llu: its keyframe at tick %llu restores a state whose hash "
                         "differs from the one recorded at that tick",
                         (unsigned long long)rec->info.session.session_id,
                         (unsigned long long)rec->keyframes[k].tick);
            e = PDK_ERR_VERSION;
        }
    }
    if (e != PDK_OK && e != PDK_ERR_NO_MEMORY)
        p->bad_keyframe[k] = true;
    return e;
}

static pdk_error player_create(const pdk_recording *rec, pdk_session *s, int depth,
                               pdk_player **out, char *err, size_t err_len);

/* A fork whose first keyframe cannot be restored starts from its parent's
 * recording instead: replayed up to the tick it was forked at, that is the
 * state its own recording starts from. */
static pdk_error start_from_parent(pdk_player *p, int depth, const char *why, char *err,
                                   size_t err_len)
{
    const pdk_store_session *ss = &p->rec->info.session;
    unsigned long long sid = (unsigned long long)ss->session_id;
    if (ss->parent_session_id == 0 || ss->parent_tick != p->rec->start_tick ||
        depth >= MAX_FORK_DEPTH) {
        pdk_rec_errf(err, err_len, "session %llu cannot start at its tick %llu: %s", sid,
                     (unsigned long long)p->rec->start_tick, why);
        return PDK_ERR_NOT_FOUND;
    }
    pdk_recording *parent = NULL;
    char perr[PDK_REPLAY_ERR_LEN];
    pdk_error e =
        pdk_recording_load(p->rec->store, ss->parent_session_id, &parent, perr, sizeof(perr));
    pdk_player *pp = NULL;
    if (e == PDK_OK)
        e = player_create(parent, p->s, depth + 1, &pp, perr, sizeof(perr));
    if (e == PDK_OK)
        e = pdk_player_seek(pp, ss->parent_tick, perr, sizeof(perr));
    pdk_player_free(pp);
    pdk_recording_free(parent);
    if (e != PDK_OK)
        pdk_rec_errf(err, err_len,
                     "session %llu cannot start at its tick %llu: %s; nor from its parent, "
                     "session %llu: %s",
                     sid, (unsigned long long)p->rec->start_tick, why,
                     (unsigned long long)ss->parent_session_id, perr);
    return e;
}

/* Puts the session at the recording's start: a fresh world at tick 0, or
 * (a fork) its first keyframe, or its parent's replay. */
static pdk_error position_start(pdk_player *p, int depth, char *err, size_t err_len)
{
    const pdk_recording *rec = p->rec;
    pdk_error e = PDK_OK;
    if (rec->start_tick == 0) {
        const pdk_world *w = pdk_session_world(p->s);
        if (pdk_world_tick(w) != 0 || pdk_world_vehicle_count(w) != 0)
            e = pdk_session_restore(p->s, NULL, 0, NULL, NULL, err, err_len);
    } else {
        char why[PDK_REPLAY_ERR_LEN] = "it has no keyframe at that tick";
        e = PDK_ERR_NOT_FOUND;
        for (size_t k = 0; k < rec->n_keyframes && e != PDK_OK; k++) {
            if (rec->keyframes[k].tick != rec->start_tick)
                continue;
            if (!keyframe_usable(p, k)) {
                snprintf(why, sizeof(why),
                         "its keyframe there was written in another state layout");
                continue;
            }
            bool swapped = false;
            e = restore_keyframe(p, k, &swapped, why, sizeof(why));
        }
        if (e != PDK_OK)
            e = start_from_parent(p, depth, why, err, err_len);
    }
    if (e == PDK_OK)
        check_hash(p);
    return e;
}

pdk_error pdk_rec_player_new(const pdk_recording *rec, pdk_session *s, pdk_player **out)
{
    *out = NULL;
    pdk_player *p = calloc(1, sizeof(*p));
    if (!p)
        return PDK_ERR_NO_MEMORY;
    p->rec = rec;
    p->s = s;
    p->capacity = rec->world.max_vehicles;
    p->bad_keyframe = calloc(rec->n_keyframes + 1, sizeof(bool));
    p->generations = calloc((size_t)p->capacity, sizeof(uint32_t));
    p->alive = calloc((size_t)p->capacity, sizeof(bool));
    if (!p->bad_keyframe || !p->generations || !p->alive) {
        pdk_player_free(p);
        return PDK_ERR_NO_MEMORY;
    }
    *out = p;
    return PDK_OK;
}

/* Forgets what was compared since the player last started or seeked. */
static void reset_comparison(pdk_player *p)
{
    p->diverged = 0;
    p->has_diverged = false;
}

pdk_error pdk_rec_player_start(pdk_player *p, char *err, size_t err_len)
{
    reset_comparison(p);
    bool publishing = pdk_session_publishing(p->s);
    pdk_session_set_publishing(p->s, false);
    pdk_error e = position_start(p, 0, err, err_len);
    pdk_session_set_publishing(p->s, publishing);
    return e;
}

pdk_error pdk_rec_player_restore(pdk_player *p, size_t k, char *err, size_t err_len)
{
    const pdk_recording *rec = p->rec;
    reset_comparison(p);
    bool found;
    pdk_rec_hash_at(rec, rec->keyframes[k].tick, &found);
    if (!found || !keyframe_usable(p, k)) {
        pdk_rec_errf(err, err_len,
                     "session %llu: its keyframe at tick %llu is of another state layout, or no "
                     "recorded state hash vouches for it",
                     (unsigned long long)rec->info.session.session_id,
                     (unsigned long long)rec->keyframes[k].tick);
        return PDK_ERR_VERSION;
    }
    bool swapped = false;
    pdk_error e = restore_keyframe(p, k, &swapped, err, err_len);
    if (e == PDK_OK)
        check_hash(p);
    return e;
}

static pdk_error player_create(const pdk_recording *rec, pdk_session *s, int depth,
                               pdk_player **out, char *err, size_t err_len)
{
    pdk_player *p = NULL;
    pdk_error e = pdk_rec_player_new(rec, s, &p);
    if (e != PDK_OK)
        return e;
    bool publishing = pdk_session_publishing(s);
    pdk_session_set_publishing(s, false);
    e = position_start(p, depth, err, err_len);
    pdk_session_set_publishing(s, publishing);
    if (e != PDK_OK) {
        pdk_player_free(p);
        return e;
    }
    *out = p;
    return PDK_OK;
}

pdk_error pdk_player_create(const pdk_recording *rec, pdk_session *s, pdk_player **out, char *err,
                            size_t err_len)
{
    pdk_rec_errf(err, err_len, "%s", "");
    return player_create(rec, s, 0, out, err, err_len);
}

void pdk_player_free(pdk_player *p)
{
    if (!p)
        return;
    free(p->bad_keyframe);
    free(p->generations);
    free(p->alive);
    free(p);
}

/* Steps up to tick with publishing off. */
static pdk_error fast_forward(pdk_player *p, uint64_t tick)
{
    bool publishing = pdk_session_publishing(p->s);
    pdk_session_set_publishing(p->s, false);
    pdk_error e = PDK_OK;
    while (e == PDK_OK && player_tick(p) < tick)
        e = pdk_player_step(p);
    pdk_session_set_publishing(p->s, publishing);
    return e;
}

pdk_error pdk_player_seek(pdk_player *p, uint64_t tick, char *err, size_t err_len)
{
    const pdk_recording *rec = p->rec;
    pdk_rec_errf(err, err_len, "%s", "");
    if (tick < rec->start_tick || tick > rec->end_tick) {
        pdk_rec_errf(err, err_len, "session %llu: tick %llu is outside its recording (%llu..%llu)",
                     (unsigned long long)rec->info.session.session_id, (unsigned long long)tick,
                     (unsigned long long)rec->start_tick, (unsigned long long)rec->end_tick);
        return PDK_ERR_OUT_OF_RANGE;
    }
    reset_comparison(p);
    /* Whatever happens next, the vehicles are somewhere else: clients jump. */
    pdk_session_count_teleport_all(p->s);
    uint64_t cur = player_tick(p);
    bool swapped = false, positioned = false;
    /* The nearest usable keyframe before tick, unless stepping on from
     * where the player is gets there sooner. Before, not at: a keyframe
     * holds no channels (ADR 0040), so the player steps into tick and its
     * channels there are that step's. Only the recording's first tick is
     * taken as it is (no step of it made channels there). */
    for (size_t k = rec->n_keyframes; k-- > 0 && !positioned;) {
        uint64_t kt = rec->keyframes[k].tick;
        if (kt > tick || (kt == tick && tick > rec->start_tick) || !keyframe_usable(p, k))
            continue;
        if (cur <= tick && kt <= cur && !swapped)
            break;
        char why[PDK_REPLAY_ERR_LEN];
        pdk_error e = restore_keyframe(p, k, &swapped, why, sizeof(why));
        if (e == PDK_ERR_NO_MEMORY) {
            pdk_rec_errf(err, err_len, "%s", why);
            return e;
        }
        positioned = e == PDK_OK;
    }
    if (!positioned && (swapped || cur > tick)) {
        bool publishing = pdk_session_publishing(p->s);
        pdk_session_set_publishing(p->s, false);
        pdk_error e = position_start(p, 0, err, err_len);
        pdk_session_set_publishing(p->s, publishing);
        if (e != PDK_OK)
            return e;
    }
    if (positioned)
        check_hash(p);
    pdk_error e = fast_forward(p, tick);
    if (e != PDK_OK)
        pdk_rec_errf(err, err_len,
                     "session %llu: replaying up to tick %llu failed at tick %llu: %s",
                     (unsigned long long)rec->info.session.session_id, (unsigned long long)tick,
                     (unsigned long long)player_tick(p), pdk_error_message(e));
    return e;
}

uint64_t pdk_player_tick(const pdk_player *p)
{
    return player_tick(p);
}

uint64_t pdk_player_end_tick(const pdk_player *p)
{
    return p->rec->end_tick;
}

uint64_t pdk_player_diverged(const pdk_player *p)
{
    return p->diverged;
}
