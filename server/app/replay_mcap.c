/* A recording re-simulated into an MCAP file (replay.h pdk_mcap_export):
 * the same replay as the CSV export (pdk_rec_replay_range), each tick's
 * messages encoded by wire as a live subscriber gets them, written by the
 * MCAP writer (store/mcap.h) with paddock.proto's FileDescriptorSet as
 * the schema. docs/web.md "MCAP export" gives the channel layout. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcap.h"
#include "paddock/v1/descriptors.h"
#include "sim/channels.h"
#include "sim/dbw.h"
#include "replay_internal.h"
#include "wire.h"

/* Every part of VehicleState: the wheels, instruments and steering feel. */
#define STATE_FIELDS PDK_WIRE_STATE_FIELDS_KNOWN

/* The channels of one vehicle, made when it is first seen alive. */
typedef struct vehicle_channels {
    pdk_vehicle_id id;
    bool made;
    bool dbw; /* it carries the DBW kit */
    uint16_t state, telemetry, reports;
} vehicle_channels;

typedef struct mcap_run {
    const pdk_recording *rec;
    pdk_mcap_writer *w;
    uint16_t schema_state, schema_telemetry, schema_report;
    const int *chans;
    size_t n_chans;
    char *channel_list;         /* the telemetry channels' names, comma-separated */
    vehicle_channels *vehicles; /* one per recorded vehicle, by id */
    pdk_buf msg;
    pdk_mcap_export_stats *stats;
    char *err;
    size_t err_len;
} mcap_run;

static pdk_error writer_error(mcap_run *r, pdk_error e, const char *what)
{
    if (e != PDK_OK)
        pdk_rec_errf(r->err, r->err_len, "session %llu: writing its MCAP file (%s): %s",
                     (unsigned long long)r->rec->info.session.session_id, what,
                     pdk_error_message(e));
    return e;
}

/* The state, telemetry and (with a kit) DBW report channels of vehicle v. */
static pdk_error make_channels(mcap_run *r, vehicle_channels *v, const pdk_world *world)
{
    const rec_vehicle *rv = NULL;
    for (size_t i = 0; i < r->rec->n_vehicles && !rv; i++)
        if (r->rec->vehicles[i].id == v->id)
            rv = &r->rec->vehicles[i];
    char id_text[16], topic[96];
    /* The live Foxglove channels' topics (docs/web.md), so one layout
     * serves a live session and its log. */
    unsigned long long session = (unsigned long long)r->rec->info.session.session_id;
    snprintf(id_text, sizeof(id_text), "%u", v->id);
    const char *preset = rv && rv->preset ? rv->preset : "";
    /* Metadata keys in sorted order, as the spec's map is. */
    const char *keys[] = {"preset", "vehicle_id"};
    const char *values[] = {preset, id_text};
    snprintf(topic, sizeof(topic), "/session/%llu/vehicle/%u/state", session, v->id);
    pdk_error e =
        pdk_mcap_add_channel(r->w, r->schema_state, topic, "protobuf", keys, values, 2, &v->state);
    if (e == PDK_OK) {
        const char *tkeys[] = {"channels", "preset", "vehicle_id"};
        const char *tvalues[] = {r->channel_list, preset, id_text};
        snprintf(topic, sizeof(topic), "/session/%llu/vehicle/%u/telemetry", session, v->id);
        e = pdk_mcap_add_channel(r->w, r->schema_telemetry, topic, "protobuf", tkeys, tvalues, 3,
                                 &v->telemetry);
    }
    v->dbw = pdk_world_dbw_state(world, v->id) != NULL;
    if (e == PDK_OK && v->dbw) {
        snprintf(topic, sizeof(topic), "/session/%llu/vehicle/%u/dbw_report", session, v->id);
        e = pdk_mcap_add_channel(r->w, r->schema_report, topic, "protobuf", keys, values, 2,
                                 &v->reports);
    }
    v->made = e == PDK_OK;
    return writer_error(r, e, "a channel");
}

static pdk_error put_message(mcap_run *r, uint16_t channel, uint64_t time_ns)
{
    pdk_error e = pdk_mcap_write_message(r->w, channel, time_ns, time_ns, r->msg.data, r->msg.len);
    return writer_error(r, e, "a message");
}

/* The reports of the kinds due at this tick (each at its period), as the
 * kit made them. */
static pdk_error write_reports(mcap_run *r, pdk_session *s, const vehicle_channels *v,
                               uint64_t time_ns)
{
    const pdk_world *w = pdk_session_world(s);
    uint64_t tick = pdk_world_tick(w);
    pdk_dbw_report report;
    bool read = false;
    for (int kind = 0; kind < PDK_RPT_COUNT; kind++) {
        if (tick % pdk_dbw_report_period_ticks[kind] != 0)
            continue;
        if (!read && pdk_world_dbw_report(w, v->id, &report) != PDK_OK)
            return PDK_OK; /* no kit at this tick */
        read = true;
        pdk_buf_reset(&r->msg);
        pdk_error e = pdk_wire_dbw_report_common(r->rec->info.session.session_id, v->id,
                                                 pdk_world_def_get(w)->dt_s, kind, &report,
                                                 (int)pdk_session_active_source(s, v->id), &r->msg);
        if (e != PDK_OK)
            return writer_error(r, e, "a DBW report");
        r->stats->reports++;
        e = put_message(r, v->reports, time_ns);
        if (e != PDK_OK)
            return e;
    }
    return PDK_OK;
}

static int by_id(const void *a, const void *b)
{
    pdk_vehicle_id x = ((const vehicle_channels *)a)->id, y = ((const vehicle_channels *)b)->id;
    return (x > y) - (x < y);
}

/* One tick: each live vehicle's state, telemetry and due reports. */
static pdk_error write_tick(void *ctx, pdk_session *s)
{
    mcap_run *r = ctx;
    const pdk_world *w = pdk_session_world(s);
    /* Sim time in ns: log and publish time alike. */
    uint64_t time_ns = (uint64_t)llround(pdk_world_time_s(w) * 1e9);
    uint64_t session_id = r->rec->info.session.session_id;
    for (int i = 0; i < pdk_world_vehicle_count(w); i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(w, i);
        vehicle_channels key = {.id = id};
        vehicle_channels *v = bsearch(&key, r->vehicles, r->rec->n_vehicles, sizeof(key), by_id);
        if (!v)
            continue; /* not a recorded vehicle: cannot happen in a replay */
        pdk_error e = v->made ? PDK_OK : make_channels(r, v, w);
        if (e != PDK_OK)
            return e;
        pdk_buf_reset(&r->msg);
        e = pdk_wire_vehicle_state_append(w, id, STATE_FIELDS, &r->msg);
        if (e == PDK_OK)
            e = put_message(r, v->state, time_ns);
        else
            writer_error(r, e, "a vehicle state");
        if (e != PDK_OK)
            return e;
        r->stats->states++;
        pdk_buf_reset(&r->msg);
        e = pdk_wire_telemetry_common(w, session_id, 0, &id, 1, r->chans, r->n_chans, &r->msg);
        if (e == PDK_OK)
            e = put_message(r, v->telemetry, time_ns);
        else
            writer_error(r, e, "a telemetry row");
        if (e != PDK_OK)
            return e;
        r->stats->telemetry++;
        if (v->dbw) {
            e = write_reports(r, s, v, time_ns);
            if (e != PDK_OK)
                return e;
        }
    }
    return PDK_OK;
}

/* The telemetry channels' indexes (all when n_channels is 0) and their
 * names joined by commas, for the telemetry channels' metadata. */
static pdk_error pick_channels(mcap_run *r, const char *const *channels, size_t n_channels,
                               int **chans_out)
{
    size_t n = n_channels ? n_channels : PDK_CH_COUNT;
    int *chans = malloc(n * sizeof(*chans));
    if (!chans)
        return PDK_ERR_NO_MEMORY;
    size_t text = 1;
    for (size_t c = 0; c < n; c++) {
        chans[c] = n_channels ? pdk_channel_find(channels[c]) : (int)c;
        if (chans[c] < 0) {
            pdk_rec_errf(r->err, r->err_len,
                         "unknown channel '%s' (`paddockd channels` lists them)", channels[c]);
            free(chans);
            return PDK_ERR_UNKNOWN_KEY;
        }
        text += strlen(pdk_channel_get((size_t)chans[c])->name) + 1;
    }
    r->channel_list = malloc(text);
    if (!r->channel_list) {
        free(chans);
        return PDK_ERR_NO_MEMORY;
    }
    size_t at = 0;
    for (size_t c = 0; c < n; c++)
        at += (size_t)snprintf(r->channel_list + at, text - at, "%s%s", c ? "," : "",
                               pdk_channel_get((size_t)chans[c])->name);
    r->chans = chans;
    r->n_chans = n;
    *chans_out = chans;
    return PDK_OK;
}

pdk_error pdk_mcap_export(const pdk_recording *rec, const char *const *channels, size_t n_channels,
                          bool zstd, pdk_mcap_write_fn write_fn, void *ctx,
                          pdk_mcap_export_stats *stats, char *err, size_t err_len)
{
    pdk_rec_errf(err, err_len, "%s", "");
    pdk_mcap_export_stats ignored;
    mcap_run r = {.rec = rec, .stats = stats ? stats : &ignored, .err = err, .err_len = err_len};
    memset(r.stats, 0, sizeof(*r.stats));
    int *chans = NULL;
    pdk_error e = pick_channels(&r, channels, n_channels, &chans);
    if (e != PDK_OK)
        return e;
    r.vehicles = calloc(rec->n_vehicles ? rec->n_vehicles : 1, sizeof(*r.vehicles));
    if (!r.vehicles) {
        e = PDK_ERR_NO_MEMORY;
        goto done;
    }
    for (size_t i = 0; i < rec->n_vehicles; i++)
        r.vehicles[i].id = rec->vehicles[i].id;
    qsort(r.vehicles, rec->n_vehicles, sizeof(*r.vehicles), by_id);
    pdk_mcap_options opt = {.profile = "", .library = "paddock " PDK_BUILD_ID, .zstd = zstd};
    e = writer_error(&r, pdk_mcap_writer_open(&opt, write_fn, ctx, &r.w), "its header");
    if (e != PDK_OK)
        goto done;
    /* One FileDescriptorSet holds every message: each schema names its own. */
    static const char *const names[] = {"paddock.v1.VehicleState", "paddock.v1.TelemetryBatch",
                                        "paddock.v1.DbwReport"};
    uint16_t *ids[] = {&r.schema_state, &r.schema_telemetry, &r.schema_report};
    for (size_t i = 0; i < 3 && e == PDK_OK; i++)
        e = writer_error(&r,
                         pdk_mcap_add_schema(r.w, names[i], "protobuf", pdk_paddock_fds,
                                             pdk_paddock_fds_len, ids[i]),
                         "a schema");
    if (e == PDK_OK)
        e = pdk_rec_replay_range(rec, rec->start_tick, rec->end_tick, 1, write_tick, &r, err,
                                 err_len);
    if (e == PDK_OK)
        e = writer_error(&r, pdk_mcap_finish(r.w), "its summary");
    if (e == PDK_OK) {
        pdk_mcap_stats ms;
        pdk_mcap_stats_get(r.w, &ms);
        r.stats->messages = ms.messages;
        r.stats->chunks = ms.chunks;
        r.stats->bytes = ms.bytes;
    }
done:
    pdk_mcap_writer_free(r.w);
    pdk_buf_free(&r.msg);
    free(r.vehicles);
    free(r.channel_list);
    free(chans);
    return e;
}
