/* A recording's telemetry re-simulated as CSV, and its metadata as JSON
 * (replay.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "replay_internal.h"

#define CSV_FLUSH_BYTES (64u * 1024u)

typedef struct csv_out {
    pdk_buf buf;
    pdk_csv_write_fn write_fn;
    void *ctx;
    pdk_error err;
} csv_out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
outf(csv_out *o, const char *fmt, ...)
{
    if (o->err != PDK_OK)
        return;
    for (;;) {
        size_t room = o->buf.cap - o->buf.len;
        va_list ap;
        va_start(ap, fmt);
        int n = room > 0 ? vsnprintf((char *)o->buf.data + o->buf.len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            o->buf.len += (size_t)n;
            return;
        }
        if (pdk_buf_reserve(&o->buf, n > 0 ? (size_t)n + 1 : 256) != PDK_OK) {
            o->err = PDK_ERR_NO_MEMORY;
            return;
        }
    }
}

static void flush_out(csv_out *o, bool all)
{
    if (o->err != PDK_OK || o->buf.len == 0 || (!all && o->buf.len < CSV_FLUSH_BYTES))
        return;
    o->err = o->write_fn(o->ctx, (const char *)o->buf.data, o->buf.len);
    pdk_buf_reset(&o->buf);
}

static bool wanted(const uint32_t *ids, size_t n_ids, pdk_vehicle_id id)
{
    if (n_ids == 0)
        return true;
    for (size_t i = 0; i < n_ids; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* What writing the rows needs at each tick. */
typedef struct csv_rows {
    csv_out *o;
    const int *chans;
    size_t n_chans;
    const uint32_t *ids;
    size_t n_ids;
} csv_rows;

/* The rows of the replay's tick: one per wanted vehicle. */
static pdk_error write_rows(void *ctx, pdk_session *s)
{
    csv_rows *r = ctx;
    csv_out *o = r->o;
    const pdk_world *w = pdk_session_world(s);
    for (int i = 0; i < pdk_world_vehicle_count(w); i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(w, i);
        if (!wanted(r->ids, r->n_ids, id))
            continue;
        const double *v = pdk_world_channels(w, id);
        /* %.17g: every value reads back to the bits the replay computed. */
        outf(o, "%" PRIu64 ",%.17g,%u", pdk_world_tick(w), pdk_world_time_s(w), id);
        for (size_t c = 0; c < r->n_chans; c++)
            outf(o, ",%.17g", v[r->chans[c]]);
        outf(o, "\n");
    }
    flush_out(o, false);
    return o->err;
}

pdk_error pdk_csv_export(const pdk_recording *rec, uint64_t from_tick, uint64_t to_tick,
                         uint32_t every_ticks, const char *const *channels, size_t n_channels,
                         const uint32_t *ids, size_t n_ids, pdk_csv_write_fn write_fn, void *ctx,
                         char *err, size_t err_len)
{
    unsigned long long sid = (unsigned long long)rec->info.session.session_id;
    pdk_rec_errf(err, err_len, "%s", "");
    uint64_t to = to_tick ? to_tick : rec->end_tick;
    if (from_tick < rec->start_tick || to > rec->end_tick || from_tick > to) {
        pdk_rec_errf(err, err_len,
                     "session %llu: ticks %llu..%llu are not within its recording (%llu..%llu)",
                     sid, (unsigned long long)from_tick, (unsigned long long)to,
                     (unsigned long long)rec->start_tick, (unsigned long long)rec->end_tick);
        return PDK_ERR_OUT_OF_RANGE;
    }
    size_t n_chans = n_channels ? n_channels : PDK_CH_COUNT;
    int *chans = malloc(n_chans * sizeof(*chans));
    if (!chans)
        return PDK_ERR_NO_MEMORY;
    for (size_t c = 0; c < n_chans; c++) {
        chans[c] = n_channels ? pdk_channel_find(channels[c]) : (int)c;
        if (chans[c] < 0) {
            pdk_rec_errf(err, err_len, "unknown channel '%s' (`paddockd channels` lists them)",
                         channels[c]);
            free(chans);
            return PDK_ERR_UNKNOWN_KEY;
        }
    }
    for (size_t i = 0; i < n_ids; i++) {
        bool known = false;
        for (size_t v = 0; v < rec->n_vehicles && !known; v++)
            known = rec->vehicles[v].id == ids[i];
        if (!known) {
            pdk_rec_errf(err, err_len, "vehicle %u is not in session %llu's recording", ids[i],
                         sid);
            free(chans);
            return PDK_ERR_NOT_FOUND;
        }
    }
    uint64_t every = every_ticks ? every_ticks : 1;
    csv_out o = {.write_fn = write_fn, .ctx = ctx};
    outf(&o, "tick,time_s,vehicle");
    for (size_t c = 0; c < n_chans; c++)
        outf(&o, ",%s", pdk_channel_get((size_t)chans[c])->name);
    outf(&o, "\n");

    csv_rows rows = {.o = &o, .chans = chans, .n_chans = n_chans, .ids = ids, .n_ids = n_ids};
    pdk_error e = pdk_rec_replay_range(rec, from_tick, to, every, write_rows, &rows, err, err_len);
    if (e == o.err)
        e = PDK_OK; /* a write's failure: said below */
    flush_out(&o, true);
    if (e == PDK_OK && o.err != PDK_OK) {
        e = o.err;
        pdk_rec_errf(err, err_len, "session %llu: writing its CSV: %s", sid, pdk_error_message(e));
    }
    pdk_buf_free(&o.buf);
    free(chans);
    return e;
}

/* ---- metadata ---------------------------------------------------------------- */

/* s as a JSON string: quotes, backslashes and control characters escaped;
 * other bytes (UTF-8) as they are. */
static void json_str(csv_out *o, const char *s)
{
    outf(o, "\"");
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            outf(o, "\\%c", *c);
        else if (*c == '\n')
            outf(o, "\\n");
        else if (*c == '\t')
            outf(o, "\\t");
        else if (*c == '\r')
            outf(o, "\\r");
        else if (*c < 0x20)
            outf(o, "\\u%04x", *c);
        else
            outf(o, "%c", *c);
    }
    outf(o, "\"");
}

char *pdk_recording_meta_json(const pdk_recording *rec)
{
    const pdk_store_session *ss = &rec->info.session;
    csv_out o = {0};
    outf(&o, "{\"session_id\":%" PRIu64 ",\"name\":", ss->session_id);
    json_str(&o, ss->name);
    outf(&o, ",\"build_id\":");
    json_str(&o, ss->build_id);
    outf(&o, ",\"timing\":");
    json_str(&o, ss->timing);
    outf(&o, ",\"world_preset\":");
    json_str(&o, ss->world_preset);
    outf(&o, ",\"dt_s\":%.17g,\"substeps\":%d,\"seed\":%" PRIu64, rec->world.dt_s, ss->substeps,
         rec->world.seed);
    outf(&o, ",\"created_unix_ms\":%" PRId64, ss->created_unix_ms);
    if (rec->info.ended)
        outf(&o, ",\"closed_unix_ms\":%" PRId64, rec->info.closed_unix_ms);
    else
        outf(&o, ",\"closed_unix_ms\":null");
    outf(&o,
         ",\"ended\":%s,\"interrupted\":%s,\"start_tick\":%" PRIu64 ",\"last_tick\":%" PRIu64
         ",\"final_tick\":%" PRIu64 ",\"final_hash\":\"%016" PRIx64 "\"",
         rec->info.ended ? "true" : "false", rec->info.interrupted ? "true" : "false",
         rec->start_tick, rec->end_tick, rec->info.final_tick, rec->info.final_hash);
    /* Ticks lost while the disk was full: last_tick stops before them. */
    if (rec->info.gaps)
        outf(&o,
             ",\"gaps\":%" PRIu64 ",\"gap\":{\"first_tick\":%" PRIu64 ",\"last_tick\":%" PRIu64 "}",
             rec->info.gaps, rec->info.gap_first_tick, rec->info.gap_last_tick);
    else
        outf(&o, ",\"gaps\":0,\"gap\":null");
    if (ss->parent_session_id)
        outf(&o, ",\"parent\":{\"session_id\":%" PRIu64 ",\"tick\":%" PRIu64 "}",
             ss->parent_session_id, ss->parent_tick);
    else
        outf(&o, ",\"parent\":null");
    outf(&o,
         ",\"keyframe_every_ticks\":%u,\"inputs\":%zu,\"hashes\":%zu,\"keyframes\":%zu,"
         "\"vehicles\":[",
         ss->keyframe_every_ticks, rec->n_inputs, rec->n_hashes, rec->n_keyframes);
    for (size_t i = 0; i < rec->n_vehicles; i++) {
        const rec_vehicle *v = &rec->vehicles[i];
        outf(&o, "%s{\"vehicle_id\":%u,\"preset\":", i ? "," : "", v->id);
        json_str(&o, v->preset);
        outf(&o, ",\"overrides\":");
        json_str(&o, v->overrides);
        outf(&o, ",\"model\":\"%s\",\"spawn_tick\":%" PRIu64,
             v->def.model == PDK_MODEL_SINGLE_TRACK ? "singleTrack" : "fourWheel", v->spawn_tick);
        if (v->removed)
            outf(&o, ",\"removed_tick\":%" PRIu64 "}", v->removed_tick);
        else
            outf(&o, ",\"removed_tick\":null}");
    }
    outf(&o, "]}");
    if (o.err != PDK_OK) {
        pdk_buf_free(&o.buf);
        return NULL;
    }
    char *json = malloc(o.buf.len + 1);
    if (json) {
        memcpy(json, o.buf.data, o.buf.len);
        json[o.buf.len] = '\0';
    }
    pdk_buf_free(&o.buf);
    return json;
}
