/* The requests of a live session, answered on the loop: Hello, Ping, session
 * create, list and close, spawn and remove, DBW commands, tyre commands, DBW
 * kit messages, control leases, and state and DBW report subscriptions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "server_internal.h"

/* An input was queued: its reply is owed, and a session that will not tick
 * soon applies it now. */
/* Answers an input's queueing (err, what pdk_session_queue_* returned):
 * refused with the reason when the queue did not take it, else pending
 * until its tick answers it. */
static void answer_queued(pdk_server *srv, pdk_server_conn *c, uint64_t request_id,
                          pdk_server_slot *slot, pdk_error err, const char *what)
{
    if (err == PDK_ERR_BUSY) {
        pdk_server_send_error(srv, c->conn, request_id, err,
                              "too many inputs are waiting for the next tick");
        return;
    }
    if (err != PDK_OK) {
        char msg[128];
        snprintf(msg, sizeof(msg), "the %s could not be queued: %s", what, pdk_error_message(err));
        pdk_server_send_error(srv, c->conn, request_id, err, msg);
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(srv, slot);
}

void pdk_server_handle_hello(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    if (f->hello->protocol_version != PDK_PROTOCOL_VERSION) {
        char msg[128];
        snprintf(msg, sizeof(msg), "protocol version %u is not supported; this server speaks %u",
                 f->hello->protocol_version, PDK_PROTOCOL_VERSION);
        pdk_conn_fail(c->conn, f->request_id, PDK_ERR_VERSION, msg);
        return;
    }
    c->greeted = true;
    c->viewer = f->hello->viewer;
    /* The name goes into messages other clients read: printable ASCII only,
     * at most 63 bytes of it. */
    char name[64];
    size_t n = 0;
    for (const char *p = f->hello->client_name; *p && n < sizeof(name) - 1; p++)
        name[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    name[n] = '\0';
    if (n > 0)
        snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64 " (%s)", c->id, name);
    else
        snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64, c->id);
    Paddock__V1__Welcome w = PADDOCK__V1__WELCOME__INIT;
    w.protocol_version = PDK_PROTOCOL_VERSION;
    w.server_version = PDK_SERVER_VERSION;
    w.build_id = PDK_BUILD_ID;
    w.tick_rate_hz = PDK_TICK_HZ;
    w.max_frame_bytes = (uint32_t)srv->cfg.limits.max_frame_bytes;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_WELCOME;
    r.welcome = &w;
    pdk_server_send_frame(srv, c->conn, &r);
}

void pdk_server_handle_session_create(pdk_server *srv, pdk_server_conn *c,
                                      const Paddock__V1__Frame *f)
{
    const Paddock__V1__SessionCreate *m = f->session_create;
    pdk_timing timing = PDK_TIMING_REALTIME;
    if (m->timing == PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST)
        timing = PDK_TIMING_FAST;
    else if (m->timing == PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP)
        timing = PDK_TIMING_LOCKSTEP;
    else if (m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME &&
             m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_UNSPECIFIED) {
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                              "timing must be TIMING_MODE_REALTIME, TIMING_MODE_FAST or "
                              "TIMING_MODE_LOCKSTEP");
        return;
    }
    if (!pdk_server_text_ok(srv, c->conn, f->request_id, "name", m->name,
                            PDK_SERVER_MAX_NAME_BYTES) ||
        !pdk_server_text_ok(srv, c->conn, f->request_id, "world_preset", m->world_preset,
                            PDK_SERVER_MAX_NAME_BYTES) ||
        !pdk_server_text_ok(srv, c->conn, f->request_id, "world_overrides", m->world_overrides,
                            PDK_SERVER_MAX_TEXT_BYTES))
        return;
    char err[PDK_PARAMS_ERR_LEN];
    pdk_server_slot *slot;
    pdk_error e = pdk_server_session_open(srv, m->name, m->world_preset, m->world_overrides, timing,
                                          !m->no_record, err, sizeof(err), &slot);
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, err);
        return;
    }
    Paddock__V1__SessionInfo info;
    pdk_server_fill_info(srv, slot, &info);
    Paddock__V1__SessionCreated sc = PADDOCK__V1__SESSION_CREATED__INIT;
    sc.session = &info;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATED;
    r.session_created = &sc;
    pdk_server_send_frame(srv, c->conn, &r);
}

void pdk_server_handle_session_list(pdk_server *srv, pdk_server_conn *c,
                                    const Paddock__V1__Frame *f)
{
    const Paddock__V1__SessionList *m = f->session_list;
    size_t first = m->offset < srv->n_sessions ? m->offset : srv->n_sessions;
    size_t n = srv->n_sessions - first;
    if (m->limit > 0 && m->limit < n)
        n = m->limit;
    /* A reply must fit one frame: an encoded SessionInfo stays under 768
     * bytes (names and reasons are capped), so a page holds at most
     * frame / 768; the client reads total and asks for the next page. */
    size_t fit = srv->cfg.limits.max_frame_bytes / 768;
    if (n > fit)
        n = fit;
    Paddock__V1__SessionInfo *infos = calloc(n ? n : 1, sizeof(*infos));
    Paddock__V1__SessionInfo **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
    if (!infos || !ptrs) {
        free(infos);
        free(ptrs);
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pdk_server_fill_info(srv, &srv->sessions[first + i], &infos[i]);
        ptrs[i] = &infos[i];
    }
    Paddock__V1__SessionListReply lr = PADDOCK__V1__SESSION_LIST_REPLY__INIT;
    lr.n_sessions = n;
    lr.sessions = ptrs;
    lr.total = (uint32_t)srv->n_sessions;
    lr.offset = (uint32_t)first;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_LIST_REPLY;
    r.session_list_reply = &lr;
    pdk_server_send_frame(srv, c->conn, &r);
    free(infos);
    free(ptrs);
}

void pdk_server_handle_session_close(pdk_server *srv, pdk_server_conn *c,
                                     const Paddock__V1__Frame *f)
{
    /* A session a worker owns (a replay seeking) closes too: the worker
     * frees it when it is done. */
    pdk_server_slot *slot = pdk_server_session_find(srv, f->session_close->session_id);
    if (!slot) {
        char msg[96];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " does not exist",
                 f->session_close->session_id);
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_NOT_FOUND, msg);
        return;
    }
    uint64_t tick = pdk_server_slot_tick(slot);
    if (pdk_session_id(slot->session) == srv->demo_session)
        srv->demo_session = 0;
    pdk_server_session_close(srv, slot);
    pdk_server_send_ok(srv, c->conn, f->request_id, tick);
}

void pdk_server_handle_spawn(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__VehicleSpawn *m = f->vehicle_spawn;
    pdk_server_slot *slot =
        pdk_server_need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    if (!pdk_server_text_ok(srv, c->conn, f->request_id, "preset", m->preset,
                            PDK_SERVER_MAX_NAME_BYTES) ||
        !pdk_server_text_ok(srv, c->conn, f->request_id, "overrides", m->overrides,
                            PDK_SERVER_MAX_TEXT_BYTES))
        return;
    pdk_gear gear = PDK_GEAR_PARK;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        char msg[96];
        snprintf(msg, sizeof(msg), "gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 (int)m->gear);
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    if (!isfinite(m->x_m) || !isfinite(m->y_m) || !isfinite(m->yaw_deg) ||
        !isfinite(m->speed_mps)) {
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                              "x_m, y_m, yaw_deg and speed_mps must be finite numbers");
        return;
    }
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *json = NULL;
    pdk_error e = pdk_params_vehicle_load(srv->cfg.presets_dir, m->preset, m->overrides, &def,
                                          &json, err, sizeof(err));
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, err);
        return;
    }
    pdk_spawn_place place = {.x_m = m->x_m,
                             .y_m = m->y_m,
                             .yaw_deg = m->yaw_deg,
                             .speed_mps = m->speed_mps,
                             .gear = gear};
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    e = pdk_session_queue_spawn(slot->session, &def, m->preset, m->overrides, json, &place, to);
    free(json);
    answer_queued(srv, c, f->request_id, slot, e, "spawn");
}

void pdk_server_handle_remove(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__VehicleRemove *m = f->vehicle_remove;
    pdk_server_slot *slot =
        pdk_server_need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    answer_queued(srv, c, f->request_id, slot,
                  pdk_session_queue_remove(slot->session, m->vehicle_id, to), "removal");
}

void pdk_server_handle_dbw(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwCommand *m = f->dbw_command;
    pdk_server_slot *slot =
        pdk_server_need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_gear gear;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        char msg[96];
        snprintf(msg, sizeof(msg), "gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 (int)m->gear);
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    /* The driver's own controls: the DRIVER lease, taken when free. */
    char why[256];
    pdk_error e = pdk_session_lease_command(slot->session, m->vehicle_id, PDK_SOURCE_DRIVER, c->id,
                                            c->holder, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    pdk_dbw_cmd cmd;
    pdk_wire_dbw_from_pb(m, &cmd);
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    answer_queued(srv, c, f->request_id, slot,
                  pdk_session_queue_dbw(slot->session, m->vehicle_id, &cmd, to), "DbwCommand");
}

/* A TyreCommand: what the message alone decides is checked here (wire);
 * the vehicle, the action's range and the model at the tick boundary
 * (session), exactly as a DbwCommand. */
void pdk_server_handle_tyre(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__TyreCommand *m = f->tyre_command;
    pdk_server_slot *slot =
        pdk_server_need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_tyre_input in;
    char why[192];
    pdk_error e = pdk_wire_tyre_from_pb(m, &in, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    answer_queued(srv, c, f->request_id, slot,
                  pdk_session_queue_tyre(slot->session, m->vehicle_id, &in, to), "TyreCommand");
}

/* A DBW kit message: what the message alone decides is checked here
 * (wire), the lease gate next (AUTONOMY, or AI for a connection that holds
 * the vehicle's AI lease and not its AUTONOMY one; faults and buttons pass
 * without one), the rest at the tick boundary (session, sim). */
void pdk_server_handle_dbw_message(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwMessage *m = f->dbw_message;
    pdk_server_slot *slot =
        pdk_server_need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_dbw_msg msg;
    char why[256];
    pdk_error e = pdk_wire_dbw_msg_from_pb(m, &msg, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    /* A fault injection is the test rig's, a button press the safety
     * operator's hand on the kit: neither drives, so neither needs a lease. */
    if (msg.kind != PDK_DBW_MSG_FAULT && msg.kind != PDK_DBW_MSG_BUTTON) {
        pdk_control_source src = PDK_SOURCE_AUTONOMY;
        if (pdk_session_lease_holder(slot->session, m->vehicle_id, PDK_SOURCE_AI) == c->id &&
            pdk_session_lease_holder(slot->session, m->vehicle_id, PDK_SOURCE_AUTONOMY) != c->id)
            src = PDK_SOURCE_AI;
        e = pdk_session_lease_command(slot->session, m->vehicle_id, src, c->id, c->holder, why,
                                      sizeof(why));
        if (e != PDK_OK) {
            pdk_server_send_error(srv, c->conn, f->request_id, e, why);
            return;
        }
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    answer_queued(srv, c, f->request_id, slot,
                  pdk_session_queue_dbw_kit(slot->session, m->vehicle_id, &msg, to), "DBW message");
}

/* ControlLease: take or release one source's lease on one vehicle. */
void pdk_server_handle_control_lease(pdk_server *srv, pdk_server_conn *c,
                                     const Paddock__V1__Frame *f)
{
    const Paddock__V1__ControlLease *m = f->control_lease;
    pdk_server_slot *slot = pdk_server_need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot || pdk_server_refuse_replay(srv, c->conn, f->request_id, slot))
        return;
    pdk_control_source src = (pdk_control_source)m->source;
    char why[256];
    pdk_error e = m->release ? pdk_session_lease_release(slot->session, m->vehicle_id, src, c->id,
                                                         why, sizeof(why))
                             : pdk_session_lease_take(slot->session, m->vehicle_id, src, c->id,
                                                      c->holder, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    Paddock__V1__ControlLeaseReply lr = PADDOCK__V1__CONTROL_LEASE_REPLY__INIT;
    lr.vehicle_id = m->vehicle_id;
    lr.source = m->release ? PADDOCK__V1__CONTROL_SOURCE__CONTROL_SOURCE_NONE
                           : (Paddock__V1__ControlSource)src;
    lr.active_source =
        (Paddock__V1__ControlSource)pdk_session_active_source(slot->session, m->vehicle_id);
    lr.tick = pdk_world_tick(pdk_session_world(slot->session));
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_CONTROL_LEASE_REPLY;
    r.control_lease_reply = &lr;
    pdk_server_send_frame(srv, c->conn, &r);
}

/* DbwSubscribe: one vehicle's kit reports, each kind at its own rate. */
void pdk_server_handle_dbw_subscribe(pdk_server *srv, pdk_server_conn *c,
                                     const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwSubscribe *m = f->dbw_subscribe;
    pdk_server_slot *slot = pdk_server_need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(srv, c, f->request_id))
        return;
    uint32_t kinds = m->n_reports == 0 ? (1u << PDK_RPT_COUNT) - 1u : 0u;
    uint32_t fastest = 0; /* the shortest period asked for, ticks */
    for (size_t i = 0; i < m->n_reports; i++) {
        int k = (int)m->reports[i];
        if (k < 0 || k >= PDK_RPT_COUNT) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "reports[%zu] = %d is not a DbwReportKind (0 STEERING .. 11 AW_STATUS)", i, k);
            pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
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
        pdk_server_send_error(srv, c->conn, f->request_id, e, msg);
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
    pdk_server_send_frame(srv, c->conn, &r);
}

void pdk_server_handle_subscribe(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__Subscribe *m = f->subscribe;
    pdk_server_slot *slot = pdk_server_need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot || !pdk_server_sub_room(srv, c, f->request_id))
        return;
    uint32_t sub_id = c->last_sub_id + 1;
    pdk_error e = pdk_session_subscribe(slot->session, c->id, sub_id, m->rate_hz, m->vehicle_ids,
                                        m->n_vehicle_ids);
    if (e == PDK_ERR_OUT_OF_RANGE) {
        char msg[128];
        snprintf(msg, sizeof(msg),
                 "vehicle_ids lists %zu ids; session %" PRIu64 " holds at most %d vehicles",
                 m->n_vehicle_ids, m->session_id,
                 pdk_world_def_get(pdk_session_world(slot->session))->max_vehicles);
        pdk_server_send_error(srv, c->conn, f->request_id, e, msg);
        return;
    }
    if (e == PDK_ERR_INVALID_ARGUMENT) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "rate_hz %u does not divide 120; use 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, "
                 "30, 40, 60 or 120",
                 m->rate_hz);
        pdk_server_send_error(srv, c->conn, f->request_id, e, msg);
        return;
    }
    if (e != PDK_OK) {
        pdk_server_send_error(srv, c->conn, f->request_id, e, "session has too many subscriptions");
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
    pdk_server_send_frame(srv, c->conn, &r);
}

void pdk_server_handle_unsubscribe(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    uint32_t sub = f->unsubscribe->subscription_id;
    if (pdk_server_stats_unsubscribe(srv, c->id, sub)) {
        c->n_subs--;
        pdk_server_send_ok(srv, c->conn, f->request_id, 0);
        return;
    }
    bool busy = false;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        pdk_server_slot *slot = &srv->sessions[i];
        if (slot->worker.busy) {
            busy = true;
            continue;
        }
        if (pdk_session_unsubscribe(slot->session, c->id, sub) == PDK_OK) {
            c->n_subs--;
            pdk_server_send_ok(srv, c->conn, f->request_id, pdk_server_slot_tick(slot));
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
        pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_BUSY, msg);
        return;
    }
    snprintf(msg, sizeof(msg), "subscription %u does not exist on this connection", sub);
    pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_NOT_FOUND, msg);
}

void pdk_server_handle_ping(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    Paddock__V1__Pong p = PADDOCK__V1__PONG__INIT;
    p.client_time_ns = f->ping->client_time_ns;
    p.server_time_ns = uv_hrtime();
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    r.pong = &p;
    pdk_server_send_frame(srv, c->conn, &r);
}
