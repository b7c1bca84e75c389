/* Requests for a live session's streams: state and DBW report
 * subscriptions, and their ends. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
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
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e = pdk_session_subscribe(slot->session, c->id, sub_id, m->rate_hz, m->fields,
                                        m->vehicle_ids, m->n_vehicle_ids);
    if (e == PDK_ERR_OUT_OF_RANGE) {
        char msg[128];
        snprintf(msg, sizeof(msg),
                 "vehicle_ids lists %zu ids; session %" PRIu64 " holds at most %d vehicles",
                 m->n_vehicle_ids, m->session_id,
                 pdk_world_def_get(pdk_session_world(slot->session))->max_vehicles);
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, msg);
        return;
    }
    if (e == PDK_ERR_INVALID_ARGUMENT) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "rate_hz %u does not divide 120; use 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, "
                 "30, 40, 60 or 120",
                 m->rate_hz);
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, msg);
        return;
    }
    if (e != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, e,
                              "session has too many subscriptions");
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

static void pdk_server_handle_unsubscribe(const pdk_request *rq)
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
    for (size_t i = 0; i < rq->table->n; i++) {
        pdk_server_slot *slot = &rq->table->items[i];
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
     .changes = false},
    {.body = PADDOCK__V1__FRAME__BODY_DBW_SUBSCRIBE,
     .handle = pdk_server_handle_dbw_subscribe,
     .changes = false},
    {.body = PADDOCK__V1__FRAME__BODY_UNSUBSCRIBE,
     .handle = pdk_server_handle_unsubscribe,
     .changes = false},
    {0},
};
