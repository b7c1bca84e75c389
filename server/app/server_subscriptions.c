/* Requests for a session's streams: state, telemetry and DBW report
 * subscriptions, and their ends. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sim/channels.h"
#include "server_internal.h"
#include "server_request.h"

/* DbwSubscribe: one vehicle's kit reports, each kind at its own rate. */
static void pdk_server_handle_dbw_subscribe(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__DbwSubscribe *m = f->dbw_subscribe;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(rq->out, c, f->request_id))
        return;
    uint32_t kinds = m->n_reports == 0 ? (1u << PDK_RPT_COUNT) - 1u : 0u;
    uint32_t fastest = 0; /* the shortest period asked for, ticks */
    for (size_t i = 0; i < m->n_reports; i++) {
        int k = (int)m->reports[i];
        if (k < 0 || k >= PDK_RPT_COUNT) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "reports[%zu] = %d is not a DbwReportKind (0 STEERING .. 11 AW_STATUS)", i, k);
            pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
            return;
        }
        kinds |= 1u << k;
    }
    for (int k = 0; k < PDK_RPT_COUNT; k++)
        if ((kinds & (1u << k)) && (fastest == 0 || pdk_dbw_report_period_ticks[k] < fastest))
            fastest = pdk_dbw_report_period_ticks[k];
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e = pdk_session_dbw_subscribe(slot->session, c->id, sub_id, m->vehicle_id, kinds);
    if (e != PDK_OK) {
        char msg[128];
        if (e == PDK_ERR_STALE_ID)
            snprintf(msg, sizeof(msg), "vehicle %u is not in session %" PRIu64, m->vehicle_id,
                     m->session_id);
        else
            snprintf(msg, sizeof(msg), "session %" PRIu64 " has too many DBW subscriptions",
                     m->session_id);
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, msg);
        return;
    }
    c->last_sub_id = sub_id;
    c->n_subs++;
    Paddock__V1__Subscribed sd = PADDOCK__V1__SUBSCRIBED__INIT;
    sd.subscription_id = sub_id;
    sd.rate_hz = PDK_TICK_HZ / fastest;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBED;
    r.subscribed = &sd;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* The refusals state and telemetry subscriptions share: what
 * pdk_session_subscribe's error e says of rate_hz and the n_ids ids. */
static void refuse_subscription(const pdk_request *rq, const pdk_server_slot *slot,
                                uint64_t session_id, uint32_t rate_hz, size_t n_ids, pdk_error e)
{
    pdk_server_conn *c = rq->c;
    uint64_t rid = rq->f->request_id;
    if (e == PDK_ERR_OUT_OF_RANGE)
        pdk_server_refuse(
            rq->out, c, rid, e,
            "vehicle_ids lists %zu ids; session %" PRIu64 " holds at most %d vehicles", n_ids,
            session_id, pdk_world_def_get(pdk_session_world(slot->session))->max_vehicles);
    else if (e == PDK_ERR_INVALID_ARGUMENT)
        pdk_server_refuse(rq->out, c, rid, e,
                          "rate_hz %u does not divide 120; use 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, "
                          "20, 24, 30, 40, 60 or 120",
                          rate_hz);
    else
        pdk_server_send_error(rq->out, c->conn, rid, e, "session has too many subscriptions");
}

/* A Subscribe's area of interest, refused naming what is wrong: a radius
 * that is not a finite distance of 0 or more, a centre that is not a
 * finite point, a centre vehicle without a radius or not in the session. */
static bool aoi_ok(const pdk_request *rq, const pdk_server_slot *slot, const pdk_session_aoi *aoi)
{
    pdk_server_conn *c = rq->c;
    uint64_t rid = rq->f->request_id;
    uint64_t sid = rq->f->subscribe->session_id;
    if (!isfinite(aoi->radius_m) || aoi->radius_m < 0.0) {
        pdk_server_refuse(rq->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "aoi_radius_m %g is not a distance: give metres above 0, or 0 for no "
                          "area of interest",
                          aoi->radius_m);
        return false;
    }
    if (aoi->radius_m == 0.0) {
        if (aoi->vehicle != 0 || aoi->x_m != 0.0 || aoi->y_m != 0.0) {
            pdk_server_refuse(rq->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
                              "an area of interest (aoi_x_m, aoi_y_m or aoi_vehicle_id) needs "
                              "aoi_radius_m above 0");
            return false;
        }
        return true;
    }
    if (!isfinite(aoi->x_m) || !isfinite(aoi->y_m)) {
        pdk_server_refuse(rq->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "aoi_x_m and aoi_y_m must be finite numbers");
        return false;
    }
    pdk_vehicle_pose pose;
    if (aoi->vehicle != 0 &&
        pdk_world_vehicle_pose(pdk_session_world(slot->session), aoi->vehicle, &pose) != PDK_OK) {
        pdk_server_refuse(rq->out, c, rid, PDK_ERR_STALE_ID,
                          "aoi_vehicle_id %u is not a vehicle of session %" PRIu64, aoi->vehicle,
                          sid);
        return false;
    }
    return true;
}

static void pdk_server_handle_subscribe(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__Subscribe *m = f->subscribe;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(rq->out, c, f->request_id))
        return;
    uint32_t unknown = m->fields & ~PDK_WIRE_STATE_FIELDS_KNOWN;
    if (unknown != 0u) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "fields holds %u, whose bit %u is no StateField; use WHEELS 1, INSTRUMENTS 2 "
                 "and STEERING_FEEL 4, or 0 for the pose alone",
                 m->fields, unknown & (~unknown + 1u));
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
        return;
    }
    pdk_session_aoi aoi = {.radius_m = m->aoi_radius_m,
                           .x_m = m->aoi_x_m,
                           .y_m = m->aoi_y_m,
                           .vehicle = m->aoi_vehicle_id};
    if (!aoi_ok(rq, slot, &aoi))
        return;
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e = pdk_session_subscribe(slot->session, c->id, sub_id, m->rate_hz, m->fields,
                                        m->vehicle_ids, m->n_vehicle_ids, m->max_batch_vehicles,
                                        &aoi);
    if (e != PDK_OK) {
        refuse_subscription(rq, slot, m->session_id, m->rate_hz, m->n_vehicle_ids, e);
        return;
    }
    c->last_sub_id = sub_id;
    c->n_subs++;
    Paddock__V1__Subscribed sd = PADDOCK__V1__SUBSCRIBED__INIT;
    sd.subscription_id = sub_id;
    sd.rate_hz = m->rate_hz ? m->rate_hz : PDK_TICK_HZ;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBED;
    r.subscribed = &sd;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* The registry indexes of m's channel names into chans (PDK_CH_COUNT
 * room). Refuses, naming the entry, an empty list, a name that is not a
 * channel's and a name given twice (a row holds each channel once, so the
 * schema's order is the order asked for). */
static bool telemetry_channels(const pdk_request *rq, const Paddock__V1__TelemetrySubscribe *m,
                               int *chans)
{
    pdk_server_conn *c = rq->c;
    uint64_t rid = rq->f->request_id;
    if (m->n_channels == 0) {
        pdk_server_refuse(rq->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
                          "channels is empty: name at least one; `paddockd channels` lists them");
        return false;
    }
    for (size_t i = 0; i < m->n_channels; i++) {
        int ch = pdk_channel_find(m->channels[i]);
        if (ch < 0) {
            pdk_server_refuse(rq->out, c, rid, PDK_ERR_UNKNOWN_KEY,
                              "channels[%zu] = \"%.64s\" is not a channel; `paddockd channels` "
                              "lists them",
                              i, m->channels[i]);
            return false;
        }
        for (size_t k = 0; k < i; k++) {
            if (chans[k] == ch) {
                pdk_server_refuse(rq->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
                                  "channels[%zu] = \"%s\" repeats channels[%zu]; name each "
                                  "channel once",
                                  i, m->channels[i], k);
                return false;
            }
        }
        /* No repeats, so at most PDK_CH_COUNT names get this far. */
        chans[i] = ch;
    }
    return true;
}

/* TelemetrySubscribe: channels of the registry for some vehicles, answered
 * with the schema that orders each row's values. */
static void pdk_server_handle_telemetry_subscribe(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__TelemetrySubscribe *m = f->telemetry_subscribe;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(rq->out, c, f->request_id))
        return;
    int chans[PDK_CH_COUNT];
    if (!telemetry_channels(rq, m, chans))
        return;
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e =
        pdk_session_telemetry_subscribe(slot->session, c->id, sub_id, m->rate_hz, m->vehicle_ids,
                                        m->n_vehicle_ids, chans, m->n_channels);
    if (e != PDK_OK) {
        refuse_subscription(rq, slot, m->session_id, m->rate_hz, m->n_vehicle_ids, e);
        return;
    }
    c->last_sub_id = sub_id;
    c->n_subs++;
    Paddock__V1__TelemetryChannel infos[PDK_CH_COUNT];
    Paddock__V1__TelemetryChannel *ptrs[PDK_CH_COUNT];
    for (size_t i = 0; i < m->n_channels; i++) {
        const pdk_channel_info *ci = pdk_channel_get((size_t)chans[i]);
        paddock__v1__telemetry_channel__init(&infos[i]);
        infos[i].name = (char *)ci->name;
        infos[i].unit = (char *)ci->unit;
        infos[i].index = (uint32_t)chans[i];
        infos[i].description = (char *)ci->description;
        ptrs[i] = &infos[i];
    }
    Paddock__V1__TelemetrySchema schema = PADDOCK__V1__TELEMETRY_SCHEMA__INIT;
    schema.subscription_id = sub_id;
    schema.session_id = m->session_id;
    schema.rate_hz = m->rate_hz ? m->rate_hz : PDK_TICK_HZ;
    schema.n_channels = m->n_channels;
    schema.channels = ptrs;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_TELEMETRY_SCHEMA;
    r.telemetry_schema = &schema;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* ContactSubscribe: the session's contact events, every tick that has
 * some (docs/protocol.md "Contact events"). */
static void pdk_server_handle_contact_subscribe(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ContactSubscribe *m = f->contact_subscribe;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(rq->out, c, f->request_id))
        return;
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e = pdk_session_contact_subscribe(slot->session, c->id, sub_id);
    if (e != PDK_OK) {
        refuse_subscription(rq, slot, m->session_id, PDK_TICK_HZ, 0, e);
        return;
    }
    c->last_sub_id = sub_id;
    c->n_subs++;
    Paddock__V1__Subscribed sd = PADDOCK__V1__SUBSCRIBED__INIT;
    sd.subscription_id = sub_id;
    sd.rate_hz = PDK_TICK_HZ;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBED;
    r.subscribed = &sd;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

static void pdk_server_handle_unsubscribe(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    uint32_t sub = f->unsubscribe->subscription_id;
    if (pdk_server_stats_unsubscribe(rq->stats, c->id, sub)) {
        c->n_subs--;
        pdk_server_send_ok(rq->out, c->conn, f->request_id, 0);
        return;
    }
    bool busy = false;
    uint64_t out = 0;
    for (size_t i = 0; i < rq->table->n; i++) {
        pdk_server_slot *slot = &rq->table->items[i];
        if (slot->stepping.out) {
            out = slot->id;
            continue;
        }
        if (slot->worker.busy) {
            busy = true;
            continue;
        }
        if (pdk_session_unsubscribe(slot->session, c->id, sub) == PDK_OK) {
            c->n_subs--;
            pdk_server_send_ok(rq->out, c->conn, f->request_id, pdk_server_slot_tick(slot));
            return;
        }
    }
    if (out != 0) {
        /* It may be a session's on a step thread: ask that one when it is
         * back (and the next one out after it, until none is). */
        pdk_server_park(srv, c, f, out);
        return;
    }
    char msg[128];
    if (busy) {
        /* It may be one of the seeking replay's: ask again after the seek. */
        snprintf(msg, sizeof(msg),
                 "subscription %u was not found, and a replay is seeking; ask again once the "
                 "seek is answered",
                 sub);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_BUSY, msg);
        return;
    }
    snprintf(msg, sizeof(msg), "subscription %u does not exist on this connection", sub);
    pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_NOT_FOUND, msg);
}

/* This file's requests (server.c dispatches them). */
const pdk_server_request pdk_server_subscription_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_SUBSCRIBE,
     .handle = pdk_server_handle_subscribe,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_TELEMETRY_SUBSCRIBE,
     .handle = pdk_server_handle_telemetry_subscribe,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_DBW_SUBSCRIBE,
     .handle = pdk_server_handle_dbw_subscribe,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_CONTACT_SUBSCRIBE,
     .handle = pdk_server_handle_contact_subscribe,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_UNSUBSCRIBE,
     /* It looks through every session, some of them on step threads. */
     .handle_server = pdk_server_handle_unsubscribe,
     .needs = PDK_NEEDS_NOTHING},
    {0},
};
