/* Requests about the connection and the session table: Hello, Ping, and
 * session create, list and close. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "params.h"
#include "server_internal.h"
#include "server_request.h"

/* The server's two clocks, which Welcome and Pong both carry so that a
 * client can estimate its offset from either (docs/protocol.md "Clocks"):
 * the wall clock is UTC in ns since the Unix epoch and may step when NTP
 * sets it; the monotonic clock is uv_hrtime's, ns from an arbitrary origin
 * (the machine's boot on Linux), and never steps. */
static uint64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pdk_server_handle_hello(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    if (f->hello->protocol_version != PDK_PROTOCOL_VERSION) {
        char msg[128];
        snprintf(msg, sizeof(msg), "protocol version %u is not supported; this server speaks %u",
                 f->hello->protocol_version, PDK_PROTOCOL_VERSION);
        pdk_conn_fail(c->conn, f->request_id, PDK_ERR_VERSION, msg);
        return;
    }
    /* The role is the server's to decide, from the key alone; Hello.viewer
     * can only lower it. */
    if (rq->auth) {
        const char *key = f->hello->api_key;
        c->who = pdk_auth_find(rq->auth, key);
        if (!c->who) {
            pdk_conn_fail(c->conn, f->request_id, PDK_ERR_UNAUTHENTICATED,
                          key[0] == '\0'
                              ? "this server runs with --auth: Hello must carry an api_key "
                                "(docs/security.md)"
                              : "the api_key in Hello is not one of this server's keys");
            return;
        }
    } else {
        c->who = pdk_auth_local();
    }
    c->greeted = true;
    c->viewer = f->hello->viewer;
    /* The name goes into messages other clients read: printable ASCII only,
     * at most 63 bytes of it. */
    char name[64];
    pdk_server_printable(name, sizeof(name), f->hello->client_name);
    if (name[0] != '\0')
        snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64 " (%s)", c->id, name);
    else
        snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64, c->id);
    Paddock__V1__Welcome w = PADDOCK__V1__WELCOME__INIT;
    w.protocol_version = PDK_PROTOCOL_VERSION;
    w.server_version = PDK_SERVER_VERSION;
    w.build_id = PDK_BUILD_ID;
    w.tick_rate_hz = PDK_TICK_HZ;
    w.max_frame_bytes = (uint32_t)rq->cfg->limits.max_frame_bytes;
    w.wall_time_ns = wall_now_ns();
    w.monotonic_ns = uv_hrtime();
    w.identity = (char *)c->who->name;
    w.role = (Paddock__V1__Role)(c->viewer ? pdk_auth_role_min(c->who->role, PDK_ROLE_VIEWER)
                                           : c->who->role);
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_WELCOME;
    r.welcome = &w;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

static void pdk_server_handle_session_create(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__SessionCreate *m = f->session_create;
    pdk_timing timing = PDK_TIMING_REALTIME;
    if (m->timing == PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST)
        timing = PDK_TIMING_FAST;
    else if (m->timing == PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP)
        timing = PDK_TIMING_LOCKSTEP;
    else if (m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME &&
             m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_UNSPECIFIED) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                              "timing must be TIMING_MODE_REALTIME, TIMING_MODE_FAST or "
                              "TIMING_MODE_LOCKSTEP");
        return;
    }
    if (!pdk_server_text_ok(rq->out, c->conn, f->request_id, "name", m->name,
                            PDK_SERVER_MAX_NAME_BYTES) ||
        !pdk_server_text_ok(rq->out, c->conn, f->request_id, "world_preset", m->world_preset,
                            PDK_SERVER_MAX_NAME_BYTES) ||
        !pdk_server_text_ok(rq->out, c->conn, f->request_id, "world_overrides", m->world_overrides,
                            PDK_SERVER_MAX_TEXT_BYTES))
        return;
    if (m->keyframe_every_ticks > PDK_SESSION_KEYFRAME_EVERY_MAX) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_OUT_OF_RANGE,
                          "keyframe_every_ticks %u is more than %u (ten minutes); 0 is the "
                          "default, one keyframe a second",
                          m->keyframe_every_ticks, PDK_SESSION_KEYFRAME_EVERY_MAX);
        return;
    }
    char err[PDK_PARAMS_ERR_LEN];
    pdk_server_slot *slot;
    pdk_error e = pdk_server_session_open(srv, m->name, m->world_preset, m->world_overrides, timing,
                                          !m->no_record, m->keyframe_every_ticks, err, sizeof(err),
                                          &slot);
    if (e != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, err);
        return;
    }
    pdk_server_access_own(srv, slot, c->who->name);
    Paddock__V1__SessionInfo info;
    Paddock__V1__TickParts parts;
    pdk_server_fill_info(&srv->sched, slot, &info, &parts);
    Paddock__V1__SessionCreated sc = PADDOCK__V1__SESSION_CREATED__INIT;
    sc.session = &info;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATED;
    r.session_created = &sc;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* Lists the sessions the identity reaches (all of them without --auth, or
 * for an admin or operator without patterns): a stranger's sessions are
 * neither shown nor counted in total. */
static void pdk_server_handle_session_list(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__SessionList *m = f->session_list;
    size_t *seen = calloc(rq->table->n ? rq->table->n : 1, sizeof(*seen));
    if (!seen) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < rq->table->n; i++)
        if (pdk_server_access_sees(srv, c, rq->table->items[i].id))
            seen[total++] = i;
    size_t first = m->offset < total ? m->offset : total;
    size_t n = total - first;
    if (m->limit > 0 && m->limit < n)
        n = m->limit;
    /* A reply must fit one frame: an encoded SessionInfo stays under 768
     * bytes (names and reasons are capped), so a page holds at most
     * frame / 768; the client reads total and asks for the next page. */
    size_t fit = rq->cfg->limits.max_frame_bytes / 768;
    if (n > fit)
        n = fit;
    Paddock__V1__SessionInfo *infos = calloc(n ? n : 1, sizeof(*infos));
    Paddock__V1__SessionInfo **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
    Paddock__V1__TickParts *parts = calloc(n ? n : 1, sizeof(*parts));
    if (!infos || !ptrs || !parts) {
        free(infos);
        free(ptrs);
        free(parts);
        free(seen);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pdk_server_fill_info(rq->sched, &rq->table->items[seen[first + i]], &infos[i], &parts[i]);
        ptrs[i] = &infos[i];
    }
    Paddock__V1__SessionListReply lr = PADDOCK__V1__SESSION_LIST_REPLY__INIT;
    lr.n_sessions = n;
    lr.sessions = ptrs;
    lr.total = (uint32_t)total;
    lr.offset = (uint32_t)first;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_LIST_REPLY;
    r.session_list_reply = &lr;
    pdk_server_send_frame(rq->out, c->conn, &r);
    free(infos);
    free(ptrs);
    free(parts);
    free(seen);
}

static void pdk_server_handle_session_close(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    /* A session a worker owns (a replay seeking) closes too: the worker
     * frees it when it is done. */
    pdk_server_slot *slot = pdk_server_session_find(rq->table, f->session_close->session_id);
    if (!slot) {
        char msg[96];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " does not exist",
                 f->session_close->session_id);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_NOT_FOUND, msg);
        return;
    }
    uint64_t tick = pdk_server_slot_tick(slot);
    if (pdk_session_id(slot->session) == srv->demo_session)
        srv->demo_session = 0;
    pdk_server_session_close(srv, slot);
    pdk_server_send_ok(rq->out, c->conn, f->request_id, tick);
}

static void pdk_server_handle_ping(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    Paddock__V1__Pong p = PADDOCK__V1__PONG__INIT;
    p.client_time_ns = f->ping->client_time_ns;
    p.wall_time_ns = wall_now_ns();
    p.monotonic_ns = uv_hrtime();
    p.server_time_ns = p.monotonic_ns;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    r.pong = &p;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* This file's requests (server.c dispatches them). Hello and Ping take the
 * request's context only. Create and close see the whole server: a session
 * opened gets the server's hooks and the store and is scheduled; one
 * closed answers owed steps and stats subscribers and re-arms the
 * scheduler's timers. The listing asks the owners and join tokens, which
 * are the server's (server_access.c). */
const pdk_server_request pdk_server_session_requests[] = {
    /* Costly: it loads a world preset and zeroes a world (megabytes).
     * Counted, not timed: its client's next requests are mostly for the
     * new session, and a hold of many ticks after a large world's create
     * would let a fast session run its --max-fast-ticks before the first
     * spawn reached it. */
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_CREATE,
     .handle_server = pdk_server_handle_session_create,
     .needs = PDK_NEEDS_CREATE,
     .costly = true,
     .counted = true},
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_CLOSE,
     .handle_server = pdk_server_handle_session_close,
     .needs = PDK_NEEDS_CHANGE},
    {.body = PADDOCK__V1__FRAME__BODY_HELLO,
     .handle = pdk_server_handle_hello,
     .needs = PDK_NEEDS_NOTHING},
    {.body = PADDOCK__V1__FRAME__BODY_PING,
     .handle = pdk_server_handle_ping,
     .needs = PDK_NEEDS_NOTHING},
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_LIST,
     .handle_server = pdk_server_handle_session_list,
     .needs = PDK_NEEDS_NOTHING},
    {0},
};
