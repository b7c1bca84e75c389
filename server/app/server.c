/* paddockd's server: connections and their requests (viewers, control
 * leases), the session table, the real-time scheduler and clean shutdown,
 * all on one libuv loop. */
#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "params.h"
#include "run.h"
#include "script.h"
#include "session.h"
#include "store.h"
#include "wire.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif
#define PDK_SERVER_VERSION "0.1.0"
#define NS_PER_S 1000000000ull
#define FAST_SLICE_NS 2000000ull  /* a fast session yields every 2 ms */
#define WRITER_HIGH_WATER 200000u /* queued records that pause ticking */
#define CONN_MAX_SUBS 32          /* subscriptions one connection may hold */
#define MAX_TEXT_BYTES 4096       /* overrides strings in a request */
#define MAX_NAME_BYTES 64

typedef struct conn_ctx {
    uint64_t id;
    pdk_conn *conn;
    bool greeted;
    bool viewer;          /* Hello.viewer: watches, never commands */
    char holder[96];      /* "connection 4 (wheel-rig)": how lease messages name it */
    uint32_t last_sub_id; /* subscription ids are unique per connection */
    int n_subs;
    int pending; /* queued inputs whose reply is still to come */
    bool eof;    /* the peer half-closed: close once pending is 0 */
} conn_ctx;

typedef struct session_slot {
    pdk_session *session;
    uint64_t start_ns;   /* wall-clock origin of the tick schedule */
    uint64_t next_index; /* the next deadline is start + next_index / 120 s */
    size_t world_bytes;  /* the world's memory, counted against max_world_bytes */
    bool paused;
    char pause_reason[160];
} session_slot;

typedef struct pdk_server {
    pdk_server_config cfg;
    uv_loop_t loop;
    pdk_net *net;
    pdk_store *store;

    conn_ctx **conns;
    size_t n_conns, cap_conns;

    session_slot *sessions;
    size_t n_sessions, cap_sessions;
    size_t world_bytes; /* sum over sessions */

    int timer_fd;
    uv_poll_t timer_poll;
    uv_idle_t fast_idle;
    bool fast_idle_on;
    uv_timer_t writer_wait; /* re-checks a stalled writer while fast sessions wait */
    size_t fast_first;      /* the fast session that goes first next slice */
    uv_signal_t sig_int, sig_term;
    uv_timer_t live_timer;
    bool live_on;
    bool stopping;
    uint64_t writer_stalls;
    bool writer_stalled;

    uint64_t demo_session;
    pdk_buf out;
} pdk_server;

pdk_server_config pdk_server_config_default(void)
{
    pdk_server_config c = {
        .listen = "127.0.0.1:7420",
        .db_path = "data/paddock.db",
        .presets_dir = "presets",
        .migrations_dir = "migrations",
        .demo_script = NULL,
        .demo_vehicle = "ref1_sedan",
        .max_sessions = 1024,
        .max_world_bytes = (size_t)4 << 30,
        .max_catchup_ticks = 4,
        .tick_spin_ns = 100000,
        /* One hour of sim time: a fast session left running by a client that
         * went away must not fill the disk with its recording. */
        .max_fast_ticks = 3600ull * PDK_TICK_HZ,
        .limits = pdk_net_limits_default(),
    };
    return c;
}

static uint64_t deadline_ns(const session_slot *slot)
{
    /* Integer arithmetic keeps the schedule exact over any run length. */
    return slot->start_ns + slot->next_index * NS_PER_S / PDK_TICK_HZ;
}

/* ---- connections ------------------------------------------------------- */

/* Connections are kept in id order (net gives ids out increasing and the
 * table only appends and removes in place), so a reply or a state frame
 * finds its connection by binary search: this runs for every subscription
 * every published tick. */
static conn_ctx *conn_find(pdk_server *srv, uint64_t id)
{
    size_t lo = 0, hi = srv->n_conns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (srv->conns[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < srv->n_conns && srv->conns[lo]->id == id ? srv->conns[lo] : NULL;
}

static void send_frame(pdk_server *srv, pdk_conn *conn, const Paddock__V1__Frame *frame)
{
    pdk_buf_reset(&srv->out);
    if (pdk_wire_frame_append(&srv->out, frame) != PDK_OK) {
        pdk_conn_fail(conn, frame->request_id, PDK_ERR_NO_MEMORY, "reply could not be encoded");
        return;
    }
    if (pdk_conn_send(conn, srv->out.data, srv->out.len) == PDK_ERR_FRAME_TOO_LARGE)
        pdk_conn_fail(conn, frame->request_id, PDK_ERR_FRAME_TOO_LARGE,
                      "the reply is larger than the frame limit");
}

static void send_error(pdk_server *srv, pdk_conn *conn, uint64_t request_id, pdk_error code,
                       const char *message)
{
    pdk_buf_reset(&srv->out);
    if (pdk_wire_error_append(&srv->out, request_id, code, message) == PDK_OK)
        pdk_conn_send(conn, srv->out.data, srv->out.len);
}

static void send_ok(pdk_server *srv, pdk_conn *conn, uint64_t request_id, uint64_t tick)
{
    Paddock__V1__Ok ok = PADDOCK__V1__OK__INIT;
    ok.tick = tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_OK;
    f.ok = &ok;
    send_frame(srv, conn, &f);
}

/* ---- sessions ---------------------------------------------------------- */

static session_slot *session_find(pdk_server *srv, uint64_t id)
{
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (pdk_session_id(srv->sessions[i].session) == id)
            return &srv->sessions[i];
    return NULL;
}

static void send_input_reply(pdk_server *srv, conn_ctx *c, pdk_reply_to to,
                             const pdk_input_result *res);

static void on_input_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    pdk_server *srv = ud;
    conn_ctx *c = conn_find(srv, to.conn_id);
    if (!c)
        return;
    c->pending--;
    if (res->err != PDK_OK)
        send_error(srv, c->conn, to.request_id, res->err, res->message);
    else
        send_input_reply(srv, c, to, res);
    if (c->eof && c->pending == 0)
        pdk_conn_close(c->conn);
}

static void send_input_reply(pdk_server *srv, conn_ctx *c, pdk_reply_to to,
                             const pdk_input_result *res)
{
    if (res->kind == PDK_INPUT_SPAWN) {
        Paddock__V1__VehicleSpawned sp = PADDOCK__V1__VEHICLE_SPAWNED__INIT;
        sp.vehicle_id = res->vehicle;
        sp.tick = res->tick;
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = to.request_id;
        f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWNED;
        f.vehicle_spawned = &sp;
        send_frame(srv, c->conn, &f);
    } else {
        send_ok(srv, c->conn, to.request_id, res->tick);
    }
}

static pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                          size_t len)
{
    pdk_server *srv = ud;
    conn_ctx *c = conn_find(srv, conn_id);
    return c ? pdk_conn_send_state(c->conn, sub_id, frame, len) : PDK_OK;
}

/* Each report kind of a DBW subscription is its own latest-wins stream, so
 * a fast steering report never replaces a pending system report. State
 * streams are keyed by their subscription id (below 2^31 in practice);
 * report streams set the top bit. Two live streams of one connection share
 * a key only after 2^27 subscriptions on it, and then merely share a
 * latest-wins slot. */
static uint32_t report_key(uint32_t sub_id, int kind)
{
    return 0x80000000u | ((sub_id & 0x07FFFFFFu) << 4) | (uint32_t)kind;
}

static pdk_error on_dbw_report(void *ud, uint64_t conn_id, uint32_t sub_id, int kind,
                               const uint8_t *frame, size_t len)
{
    pdk_server *srv = ud;
    conn_ctx *c = conn_find(srv, conn_id);
    return c ? pdk_conn_send_state(c->conn, report_key(sub_id, kind), frame, len) : PDK_OK;
}

/* A lease holder hears that its vehicle changed hands. */
static void on_control(void *ud, uint64_t conn_id, const pdk_control_event *ev)
{
    pdk_server *srv = ud;
    conn_ctx *c = conn_find(srv, conn_id);
    if (!c)
        return;
    /* Clients with fixed buffers (nanopb, ControlEvent.reason max_size 160)
     * take at most 159 bytes; the reason's names are printable ASCII. */
    char reason[160];
    snprintf(reason, sizeof(reason), "%s", ev->reason ? ev->reason : "");
    Paddock__V1__ControlEvent e = PADDOCK__V1__CONTROL_EVENT__INIT;
    e.session_id = ev->session_id;
    e.vehicle_id = ev->vehicle;
    e.active_source = (Paddock__V1__ControlSource)ev->active;
    e.preempted = (Paddock__V1__ControlSource)ev->preempted;
    e.reason = reason;
    e.tick = ev->tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_CONTROL_EVENT;
    f.control_event = &e;
    send_frame(srv, c->conn, &f);
}

/* A subscriber whose subscription ends (its session closed, its batches
 * outgrew the frame limit) is told so with a pushed Error rather than left
 * waiting for state that will never come. */
static void on_sub_end(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code, const char *why)
{
    (void)sub_id;
    pdk_server *srv = ud;
    conn_ctx *c = conn_find(srv, conn_id);
    if (!c)
        return;
    c->n_subs--;
    send_error(srv, c->conn, 0, code, why);
}

static void update_fast_idle(pdk_server *srv);
static void arm_timer(pdk_server *srv);

static pdk_error session_open(pdk_server *srv, const char *name, const char *world_preset,
                              const char *world_overrides, pdk_timing timing, bool record,
                              char *err, size_t err_len, session_slot **out)
{
    if ((int)srv->n_sessions >= srv->cfg.max_sessions) {
        snprintf(err, err_len, "the server hosts its maximum of %d sessions",
                 srv->cfg.max_sessions);
        return PDK_ERR_CAPACITY;
    }
    if (!world_preset || !*world_preset)
        world_preset = "flat";
    pdk_world_def wdef;
    char *world_json = NULL;
    pdk_error e = pdk_params_world_load(srv->cfg.presets_dir, world_preset, world_overrides, &wdef,
                                        &world_json, err, err_len);
    if (e != PDK_OK)
        return e;
    size_t bytes = pdk_world_mem_size(&wdef);
    if (bytes > srv->cfg.max_world_bytes - srv->world_bytes ||
        srv->world_bytes > srv->cfg.max_world_bytes) {
        snprintf(err, err_len,
                 "a world of %d vehicles needs %zu bytes; the server's world memory budget has "
                 "%zu of %zu bytes left (lower maxVehicles or raise --max-world-mb)",
                 wdef.max_vehicles, bytes, srv->cfg.max_world_bytes - srv->world_bytes,
                 srv->cfg.max_world_bytes);
        free(world_json);
        return PDK_ERR_CAPACITY;
    }
    if (srv->n_sessions == srv->cap_sessions) {
        size_t cap = srv->cap_sessions ? srv->cap_sessions * 2 : 8;
        session_slot *p = realloc(srv->sessions, cap * sizeof(*p));
        if (!p) {
            free(world_json);
            snprintf(err, err_len, "out of memory");
            return PDK_ERR_NO_MEMORY;
        }
        srv->sessions = p;
        srv->cap_sessions = cap;
    }
    uint64_t id = pdk_store_next_session_id(srv->store);
    char default_name[32];
    if (!name || !*name) {
        snprintf(default_name, sizeof(default_name), "session-%" PRIu64, id);
        name = default_name;
    }
    pdk_session_def def = {
        .name = name,
        .world_preset = world_preset,
        .world_json = world_json,
        .world = wdef,
        .timing = timing,
        .build_id = PDK_BUILD_ID,
        .store = record ? srv->store : NULL,
    };
    pdk_session_hooks hooks = {.on_result = on_input_result,
                               .on_state = on_state,
                               .on_sub_end = on_sub_end,
                               .on_dbw_report = on_dbw_report,
                               .on_control = on_control,
                               .ud = srv};
    pdk_session *s = NULL;
    e = pdk_session_create(id, &def, &hooks, &s);
    free(world_json);
    if (e != PDK_OK) {
        snprintf(err, err_len, "session could not be created: %s", pdk_error_message(e));
        return e;
    }
    session_slot *slot = &srv->sessions[srv->n_sessions++];
    slot->session = s;
    slot->start_ns = uv_hrtime();
    slot->next_index = 1;
    slot->world_bytes = bytes;
    slot->paused = false;
    slot->pause_reason[0] = '\0';
    srv->world_bytes += bytes;
    *out = slot;
    update_fast_idle(srv);
    arm_timer(srv);
    return PDK_OK;
}

static void session_close(pdk_server *srv, session_slot *slot)
{
    srv->world_bytes -= slot->world_bytes;
    pdk_session_destroy(slot->session);
    size_t i = (size_t)(slot - srv->sessions);
    memmove(&srv->sessions[i], &srv->sessions[i + 1],
            (srv->n_sessions - i - 1) * sizeof(srv->sessions[0]));
    srv->n_sessions--;
    update_fast_idle(srv);
    arm_timer(srv);
}

/* True while the SQLite writer is too far behind for sessions to tick; the
 * start and end of each such stall are logged. */
static bool writer_lagging(pdk_server *srv)
{
    pdk_store_stats st;
    pdk_store_stats_get(srv->store, &st);
    bool lagging = st.queued > WRITER_HIGH_WATER;
    if (lagging && !srv->writer_stalled) {
        srv->writer_stalls++;
        fprintf(stderr,
                "paddockd: the database writer is %" PRIu64 " records behind; sessions pause "
                "until it catches up (stall %" PRIu64 ")\n",
                st.queued, srv->writer_stalls);
    } else if (!lagging && srv->writer_stalled) {
        fprintf(stderr, "paddockd: the database writer caught up; sessions resume\n");
    }
    srv->writer_stalled = lagging;
    return lagging;
}

/* ---- the real-time scheduler ------------------------------------------- */

/* Arms the timerfd for the earliest real-time deadline, or not before
 * not_before_ns when that is later (a pause while the writer catches up). */
/* The earliest deadline of the real-time sessions, or 0 when there is none. */
static uint64_t next_deadline_ns(const pdk_server *srv)
{
    uint64_t next = 0;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        if (pdk_session_timing(srv->sessions[i].session) != PDK_TIMING_REALTIME)
            continue;
        uint64_t d = deadline_ns(&srv->sessions[i]);
        if (next == 0 || d < next)
            next = d;
    }
    return next;
}

/* The timer fires tick_spin_ns before the deadline and on_timer waits out the
 * rest on the clock: waking a sleeping core (a VM's above all) can take
 * hundreds of microseconds, a short spin does not. */
static void arm_timer_after(pdk_server *srv, uint64_t not_before_ns)
{
    if (srv->timer_fd < 0 || srv->stopping)
        return;
    uint64_t next = next_deadline_ns(srv);
    if (next > srv->cfg.tick_spin_ns)
        next -= srv->cfg.tick_spin_ns;
    if (next != 0 && next < not_before_ns)
        next = not_before_ns;
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    if (next != 0) {
        its.it_value.tv_sec = (time_t)(next / NS_PER_S);
        its.it_value.tv_nsec = (long)(next % NS_PER_S);
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
            its.it_value.tv_nsec = 1;
    }
    timerfd_settime(srv->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void arm_timer(pdk_server *srv)
{
    arm_timer_after(srv, 0);
}

static void on_timer(uv_poll_t *handle, int status, int events)
{
    (void)status;
    (void)events;
    pdk_server *srv = handle->data;
    uint64_t expirations;
    if (read(srv->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        fprintf(stderr, "paddockd: timerfd read: %s\n", strerror(errno));
    if (writer_lagging(srv)) {
        /* The writer is behind: slow down rather than lose an input. Look
         * again in a millisecond; the deadlines missed meanwhile count as
         * late ticks or dropped deadlines. */
        arm_timer_after(srv, uv_hrtime() + 1000000u);
        return;
    }
    uint64_t due = next_deadline_ns(srv);
    uint64_t woke = uv_hrtime();
    if (due > woke && due - woke <= srv->cfg.tick_spin_ns) {
        while (uv_hrtime() < due) {
        }
    }
    uint64_t period = NS_PER_S / PDK_TICK_HZ;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        session_slot *slot = &srv->sessions[i];
        if (pdk_session_timing(slot->session) != PDK_TIMING_REALTIME)
            continue;
        pdk_lateness *lat = pdk_session_lateness(slot->session);
        int ran = 0;
        uint64_t now = uv_hrtime();
        while (deadline_ns(slot) <= now && ran < srv->cfg.max_catchup_ticks) {
            pdk_lateness_add(lat, now - deadline_ns(slot), period);
            pdk_session_tick(slot->session);
            slot->next_index++;
            ran++;
            now = uv_hrtime();
        }
        if (deadline_ns(slot) <= now) {
            /* Bounded catch-up: drop the deadlines already past, so one slow
             * moment does not become a burst of ticks. Sim time now lags
             * wall time by the dropped ticks, which are reported. */
            uint64_t behind = (now - slot->start_ns) * PDK_TICK_HZ / NS_PER_S + 1;
            lat->skipped += behind - slot->next_index;
            slot->next_index = behind; /* the first deadline after now */
        }
    }
    arm_timer(srv);
}

static void on_writer_wait(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    update_fast_idle(srv);
}

/* Fast sessions share each 2 ms slice equally, starting with a different one
 * every slice so none waits behind another. */
static void on_fast_idle(uv_idle_t *handle)
{
    pdk_server *srv = handle->data;
    if (writer_lagging(srv)) {
        /* Sleep, not spin, while the writer catches up: it needs the CPU. */
        uv_idle_stop(&srv->fast_idle);
        srv->fast_idle_on = false;
        uv_timer_start(&srv->writer_wait, on_writer_wait, 1, 0);
        return;
    }
    size_t n_fast = 0;
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (pdk_session_timing(srv->sessions[i].session) == PDK_TIMING_FAST &&
            !srv->sessions[i].paused)
            n_fast++;
    if (n_fast == 0)
        return;
    uint64_t budget = FAST_SLICE_NS / n_fast;
    size_t n = srv->n_sessions;
    size_t first = srv->fast_first % n;
    srv->fast_first = first + 1;
    for (size_t k = 0; k < n; k++) {
        session_slot *slot = &srv->sessions[(first + k) % n];
        if (pdk_session_timing(slot->session) != PDK_TIMING_FAST || slot->paused)
            continue;
        const pdk_world *w = pdk_session_world(slot->session);
        uint64_t t0 = uv_hrtime();
        do {
            if (pdk_world_tick(w) >= srv->cfg.max_fast_ticks) {
                slot->paused = true;
                snprintf(slot->pause_reason, sizeof(slot->pause_reason),
                         "a fast session stops at the server's limit of %" PRIu64
                         " ticks (--max-fast-ticks)",
                         srv->cfg.max_fast_ticks);
                break;
            }
            pdk_session_tick(slot->session);
        } while (uv_hrtime() - t0 < budget);
    }
    update_fast_idle(srv);
}

static void update_fast_idle(pdk_server *srv)
{
    bool any = false;
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (pdk_session_timing(srv->sessions[i].session) == PDK_TIMING_FAST &&
            !srv->sessions[i].paused)
            any = true;
    if (any && !srv->fast_idle_on && !srv->stopping && !writer_lagging(srv)) {
        uv_idle_start(&srv->fast_idle, on_fast_idle);
        srv->fast_idle_on = true;
    } else if (!any && srv->fast_idle_on) {
        uv_idle_stop(&srv->fast_idle);
        srv->fast_idle_on = false;
    } else if (any && !srv->fast_idle_on && !srv->stopping) {
        uv_timer_start(&srv->writer_wait, on_writer_wait, 1, 0); /* the writer lags */
    }
}

/* ---- requests ---------------------------------------------------------- */

static void fill_info(session_slot *slot, Paddock__V1__SessionInfo *info)
{
    pdk_session *s = slot->session;
    const pdk_world *w = pdk_session_world(s);
    pdk_lateness *lat = pdk_session_lateness(s);
    paddock__v1__session_info__init(info);
    info->session_id = pdk_session_id(s);
    info->name = (char *)pdk_session_name(s);
    info->tick = pdk_world_tick(w);
    info->sim_time_s = pdk_world_time_s(w);
    info->vehicle_count = (uint32_t)pdk_world_vehicle_count(w);
    info->timing = pdk_session_timing(s) == PDK_TIMING_FAST
                       ? PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST
                       : PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME;
    info->world_preset = (char *)pdk_session_world_preset(s);
    info->overruns = lat->overruns;
    info->lateness_p50_ms = pdk_lateness_quantile_ms(lat, 0.50);
    info->lateness_p99_ms = pdk_lateness_quantile_ms(lat, 0.99);
    info->state_hash = pdk_session_hash(s);
    info->subscriber_count = (uint32_t)pdk_session_subscriber_count(s);
    info->skipped_ticks = lat->skipped;
    info->paused = slot->paused;
    info->pause_reason = slot->pause_reason;
}

static session_slot *need_session(pdk_server *srv, pdk_conn *conn, uint64_t rid, uint64_t id)
{
    session_slot *slot = session_find(srv, id);
    if (!slot) {
        char msg[96];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " does not exist", id);
        send_error(srv, conn, rid, PDK_ERR_NOT_FOUND, msg);
    }
    return slot;
}

/* A session that takes inputs: it exists and is not paused (a paused
 * session would hold the input, and its reply, for ever). */
static session_slot *need_live_session(pdk_server *srv, pdk_conn *conn, uint64_t rid, uint64_t id)
{
    session_slot *slot = need_session(srv, conn, rid, id);
    if (slot && slot->paused) {
        char msg[256];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " is paused and takes no inputs: %s", id,
                 slot->pause_reason);
        send_error(srv, conn, rid, PDK_ERR_CLOSED, msg);
        return NULL;
    }
    return slot;
}

/* Checks a request's text field: at most max bytes of UTF-8 without control
 * characters. On failure replies INVALID_ARGUMENT naming the field. */
static bool text_ok(pdk_server *srv, pdk_conn *conn, uint64_t rid, const char *field,
                    const char *text, size_t max)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    const char *why = NULL;
    if (len > max)
        why = "is too long";
    for (size_t i = 0; !why && i < len;) {
        unsigned char c = p[i];
        size_t n = c < 0x80           ? 1
                   : (c >> 5) == 0x6  ? 2
                   : (c >> 4) == 0xe  ? 3
                   : (c >> 3) == 0x1e ? 4
                                      : 0;
        if (n == 0 || i + n > len) {
            why = "is not valid UTF-8";
            break;
        }
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                why = "is not valid UTF-8";
        if (n == 1 && (c < 0x20 || c == 0x7f))
            why = "holds a control character";
        i += n;
    }
    if (!why)
        return true;
    char msg[160];
    snprintf(msg, sizeof(msg), "%s %s (at most %zu bytes of UTF-8 text)", field, why, max);
    send_error(srv, conn, rid, PDK_ERR_INVALID_ARGUMENT, msg);
    return false;
}

static const char *body_name(Paddock__V1__Frame__BodyCase bc);

/* A viewer (Hello.viewer) may watch (list, subscribe, ping) but every
 * request that would change something is refused, naming the role. */
static bool refuse_viewer(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    if (!c->viewer)
        return false;
    char msg[160];
    snprintf(msg, sizeof(msg),
             "this connection said Hello as a viewer: a viewer watches and may not send %s",
             body_name(f->body_case));
    send_error(srv, c->conn, f->request_id, PDK_ERR_PROTOCOL, msg);
    return true;
}

static void handle_hello(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
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
    send_frame(srv, c->conn, &r);
}

static void handle_session_create(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__SessionCreate *m = f->session_create;
    pdk_timing timing = PDK_TIMING_REALTIME;
    if (m->timing == PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST)
        timing = PDK_TIMING_FAST;
    else if (m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME &&
             m->timing != PADDOCK__V1__TIMING_MODE__TIMING_MODE_UNSPECIFIED) {
        send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                   "timing must be TIMING_MODE_REALTIME or TIMING_MODE_FAST");
        return;
    }
    if (!text_ok(srv, c->conn, f->request_id, "name", m->name, MAX_NAME_BYTES) ||
        !text_ok(srv, c->conn, f->request_id, "world_preset", m->world_preset, MAX_NAME_BYTES) ||
        !text_ok(srv, c->conn, f->request_id, "world_overrides", m->world_overrides,
                 MAX_TEXT_BYTES))
        return;
    char err[PDK_PARAMS_ERR_LEN];
    session_slot *slot;
    pdk_error e = session_open(srv, m->name, m->world_preset, m->world_overrides, timing,
                               !m->no_record, err, sizeof(err), &slot);
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, err);
        return;
    }
    Paddock__V1__SessionInfo info;
    fill_info(slot, &info);
    Paddock__V1__SessionCreated sc = PADDOCK__V1__SESSION_CREATED__INIT;
    sc.session = &info;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATED;
    r.session_created = &sc;
    send_frame(srv, c->conn, &r);
}

static void handle_session_list(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__SessionList *m = f->session_list;
    size_t first = m->offset < srv->n_sessions ? m->offset : srv->n_sessions;
    size_t n = srv->n_sessions - first;
    if (m->limit > 0 && m->limit < n)
        n = m->limit;
    /* A reply must fit one frame: an encoded SessionInfo stays under 512
     * bytes (names are capped), so a page holds at most frame / 512; the
     * client reads total and asks for the next page. */
    size_t fit = srv->cfg.limits.max_frame_bytes / 512;
    if (n > fit)
        n = fit;
    Paddock__V1__SessionInfo *infos = calloc(n ? n : 1, sizeof(*infos));
    Paddock__V1__SessionInfo **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
    if (!infos || !ptrs) {
        free(infos);
        free(ptrs);
        send_error(srv, c->conn, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fill_info(&srv->sessions[first + i], &infos[i]);
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
    send_frame(srv, c->conn, &r);
    free(infos);
    free(ptrs);
}

static void handle_session_close(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    session_slot *slot = need_session(srv, c->conn, f->request_id, f->session_close->session_id);
    if (!slot)
        return;
    uint64_t tick = pdk_world_tick(pdk_session_world(slot->session));
    if (pdk_session_id(slot->session) == srv->demo_session)
        srv->demo_session = 0;
    session_close(srv, slot);
    send_ok(srv, c->conn, f->request_id, tick);
}

static void handle_spawn(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__VehicleSpawn *m = f->vehicle_spawn;
    session_slot *slot = need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    if (!text_ok(srv, c->conn, f->request_id, "preset", m->preset, MAX_NAME_BYTES) ||
        !text_ok(srv, c->conn, f->request_id, "overrides", m->overrides, MAX_TEXT_BYTES))
        return;
    pdk_gear gear = PDK_GEAR_PARK;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        char msg[96];
        snprintf(msg, sizeof(msg), "gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 (int)m->gear);
        send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    if (!isfinite(m->x_m) || !isfinite(m->y_m) || !isfinite(m->yaw_deg) ||
        !isfinite(m->speed_mps)) {
        send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                   "x_m, y_m, yaw_deg and speed_mps must be finite numbers");
        return;
    }
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *json = NULL;
    pdk_error e = pdk_params_vehicle_load(srv->cfg.presets_dir, m->preset, m->overrides, &def,
                                          &json, err, sizeof(err));
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, err);
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
    if (e != PDK_OK)
        send_error(srv, c->conn, f->request_id, e, "too many inputs are waiting for the next tick");
    else
        c->pending++;
}

static void handle_remove(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__VehicleRemove *m = f->vehicle_remove;
    session_slot *slot = need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    if (pdk_session_queue_remove(slot->session, m->vehicle_id, to) != PDK_OK)
        send_error(srv, c->conn, f->request_id, PDK_ERR_BUSY,
                   "too many inputs are waiting for the next tick");
    else
        c->pending++;
}

static void handle_dbw(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwCommand *m = f->dbw_command;
    session_slot *slot = need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_gear gear;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        char msg[96];
        snprintf(msg, sizeof(msg), "gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 (int)m->gear);
        send_error(srv, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    /* The driver's own controls: the DRIVER lease, taken when free. */
    char why[256];
    pdk_error e = pdk_session_lease_command(slot->session, m->vehicle_id, PDK_SOURCE_DRIVER, c->id,
                                            c->holder, why, sizeof(why));
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    pdk_dbw_cmd cmd;
    pdk_wire_dbw_from_pb(m, &cmd);
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    if (pdk_session_queue_dbw(slot->session, m->vehicle_id, &cmd, to) != PDK_OK)
        send_error(srv, c->conn, f->request_id, PDK_ERR_BUSY,
                   "too many inputs are waiting for the next tick");
    else
        c->pending++;
}

/* A TyreCommand: what the message alone decides is checked here (wire);
 * the vehicle, the action's range and the model at the tick boundary
 * (session), exactly as a DbwCommand. */
static void handle_tyre(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__TyreCommand *m = f->tyre_command;
    session_slot *slot = need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_tyre_input in;
    char why[192];
    pdk_error e = pdk_wire_tyre_from_pb(m, &in, why, sizeof(why));
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, why);
        return;
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    if (pdk_session_queue_tyre(slot->session, m->vehicle_id, &in, to) != PDK_OK)
        send_error(srv, c->conn, f->request_id, PDK_ERR_BUSY,
                   "too many inputs are waiting for the next tick");
    else
        c->pending++;
}

/* A DBW kit message: what the message alone decides is checked here
 * (wire), the lease gate next (AUTONOMY, or AI for a connection that holds
 * the vehicle's AI lease and not its AUTONOMY one; faults and buttons pass
 * without one), the rest at the tick boundary (session, sim). */
static void handle_dbw_message(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwMessage *m = f->dbw_message;
    session_slot *slot = need_live_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_dbw_msg msg;
    char why[256];
    pdk_error e = pdk_wire_dbw_msg_from_pb(m, &msg, why, sizeof(why));
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, why);
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
            send_error(srv, c->conn, f->request_id, e, why);
            return;
        }
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    e = pdk_session_queue_dbw_kit(slot->session, m->vehicle_id, &msg, to);
    if (e == PDK_ERR_BUSY)
        send_error(srv, c->conn, f->request_id, PDK_ERR_BUSY,
                   "too many inputs are waiting for the next tick");
    else if (e != PDK_OK)
        send_error(srv, c->conn, f->request_id, e, "the DBW message could not be queued");
    else
        c->pending++;
}

/* ControlLease: take or release one source's lease on one vehicle. */
static void handle_control_lease(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__ControlLease *m = f->control_lease;
    session_slot *slot = need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_control_source src = (pdk_control_source)m->source;
    char why[256];
    pdk_error e = m->release ? pdk_session_lease_release(slot->session, m->vehicle_id, src, c->id,
                                                         why, sizeof(why))
                             : pdk_session_lease_take(slot->session, m->vehicle_id, src, c->id,
                                                      c->holder, why, sizeof(why));
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, why);
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
    send_frame(srv, c->conn, &r);
}

static bool conn_sub_room(pdk_server *srv, conn_ctx *c, uint64_t request_id)
{
    if (c->n_subs < CONN_MAX_SUBS)
        return true;
    char msg[96];
    snprintf(msg, sizeof(msg), "this connection already holds %d subscriptions", CONN_MAX_SUBS);
    send_error(srv, c->conn, request_id, PDK_ERR_CAPACITY, msg);
    return false;
}

/* DbwSubscribe: one vehicle's kit reports, each kind at its own rate. */
static void handle_dbw_subscribe(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__DbwSubscribe *m = f->dbw_subscribe;
    session_slot *slot = need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot || !conn_sub_room(srv, c, f->request_id))
        return;
    uint32_t kinds = m->n_reports == 0 ? (1u << PDK_RPT_COUNT) - 1u : 0u;
    uint32_t fastest = 0; /* the shortest period asked for, ticks */
    for (size_t i = 0; i < m->n_reports; i++) {
        int k = (int)m->reports[i];
        if (k < 0 || k >= PDK_RPT_COUNT) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "reports[%zu] = %d is not a DbwReportKind (0 STEERING .. 11 AW_STATUS)", i, k);
            send_error(srv, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
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
        send_error(srv, c->conn, f->request_id, e, msg);
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
    send_frame(srv, c->conn, &r);
}

static void handle_subscribe(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__Subscribe *m = f->subscribe;
    session_slot *slot = need_session(srv, c->conn, f->request_id, m->session_id);
    if (!slot || !conn_sub_room(srv, c, f->request_id))
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
        send_error(srv, c->conn, f->request_id, e, msg);
        return;
    }
    if (e == PDK_ERR_INVALID_ARGUMENT) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "rate_hz %u does not divide 120; use 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, "
                 "30, 40, 60 or 120",
                 m->rate_hz);
        send_error(srv, c->conn, f->request_id, e, msg);
        return;
    }
    if (e != PDK_OK) {
        send_error(srv, c->conn, f->request_id, e, "session has too many subscriptions");
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
    send_frame(srv, c->conn, &r);
}

static void handle_unsubscribe(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    uint32_t sub = f->unsubscribe->subscription_id;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        if (pdk_session_unsubscribe(srv->sessions[i].session, c->id, sub) == PDK_OK) {
            c->n_subs--;
            send_ok(srv, c->conn, f->request_id,
                    pdk_world_tick(pdk_session_world(srv->sessions[i].session)));
            return;
        }
    }
    char msg[96];
    snprintf(msg, sizeof(msg), "subscription %u does not exist on this connection", sub);
    send_error(srv, c->conn, f->request_id, PDK_ERR_NOT_FOUND, msg);
}

static void handle_ping(pdk_server *srv, conn_ctx *c, const Paddock__V1__Frame *f)
{
    Paddock__V1__Pong p = PADDOCK__V1__PONG__INIT;
    p.client_time_ns = f->ping->client_time_ns;
    p.server_time_ns = uv_hrtime();
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    r.pong = &p;
    send_frame(srv, c->conn, &r);
}

static const char *body_name(Paddock__V1__Frame__BodyCase bc)
{
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(&paddock__v1__frame__descriptor, (unsigned)bc);
    return fd ? fd->name : "unknown";
}

static void on_frame(pdk_conn *conn, const Paddock__V1__Frame *f, void *ud)
{
    pdk_server *srv = ud;
    conn_ctx *c = pdk_conn_data(conn);
    if (!c)
        return;
    if (!c->greeted && f->body_case != PADDOCK__V1__FRAME__BODY_HELLO) {
        pdk_conn_fail(conn, f->request_id, PDK_ERR_PROTOCOL,
                      "the first frame on a connection must be Hello with protocol_version 1");
        return;
    }
    switch (f->body_case) {
    case PADDOCK__V1__FRAME__BODY_SESSION_CREATE:
    case PADDOCK__V1__FRAME__BODY_SESSION_CLOSE:
    case PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN:
    case PADDOCK__V1__FRAME__BODY_VEHICLE_REMOVE:
    case PADDOCK__V1__FRAME__BODY_DBW_COMMAND:
    case PADDOCK__V1__FRAME__BODY_TYRE_COMMAND:
    case PADDOCK__V1__FRAME__BODY_DBW_MESSAGE:
    case PADDOCK__V1__FRAME__BODY_CONTROL_LEASE:
        if (refuse_viewer(srv, c, f))
            return;
        break;
    default:
        break;
    }
    switch (f->body_case) {
    case PADDOCK__V1__FRAME__BODY_HELLO:
        handle_hello(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_PING:
        handle_ping(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_SESSION_CREATE:
        handle_session_create(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_SESSION_LIST:
        handle_session_list(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_SESSION_CLOSE:
        handle_session_close(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN:
        handle_spawn(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_VEHICLE_REMOVE:
        handle_remove(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_DBW_COMMAND:
        handle_dbw(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_TYRE_COMMAND:
        handle_tyre(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_DBW_MESSAGE:
        handle_dbw_message(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_CONTROL_LEASE:
        handle_control_lease(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_DBW_SUBSCRIBE:
        handle_dbw_subscribe(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_SUBSCRIBE:
        handle_subscribe(srv, c, f);
        break;
    case PADDOCK__V1__FRAME__BODY_UNSUBSCRIBE:
        handle_unsubscribe(srv, c, f);
        break;
    default: {
        char msg[128];
        snprintf(msg, sizeof(msg), "'%s' is not a request a client may send",
                 body_name(f->body_case));
        send_error(srv, conn, f->request_id, PDK_ERR_PROTOCOL, msg);
        break;
    }
    }
}

static void on_open(pdk_conn *conn, void *ud)
{
    pdk_server *srv = ud;
    conn_ctx *c = calloc(1, sizeof(*c));
    if (c && srv->n_conns == srv->cap_conns) {
        size_t cap = srv->cap_conns ? srv->cap_conns * 2 : 16;
        conn_ctx **p = realloc(srv->conns, cap * sizeof(*p));
        if (!p) {
            free(c);
            c = NULL;
        } else {
            srv->conns = p;
            srv->cap_conns = cap;
        }
    }
    if (!c) {
        pdk_conn_fail(conn, 0, PDK_ERR_NO_MEMORY, "the server is out of memory");
        return;
    }
    c->id = pdk_conn_id(conn);
    c->conn = conn;
    PDK_ASSERT(srv->n_conns == 0 || srv->conns[srv->n_conns - 1]->id < c->id);
    srv->conns[srv->n_conns++] = c;
    pdk_conn_set_data(conn, c);
}

/* A half-closed peer still gets the replies to the inputs it queued. */
static bool on_eof(pdk_conn *conn, void *ud)
{
    (void)ud;
    conn_ctx *c = pdk_conn_data(conn);
    if (!c || c->pending == 0)
        return false;
    c->eof = true;
    return true;
}

static void on_close(pdk_conn *conn, void *ud)
{
    pdk_server *srv = ud;
    conn_ctx *c = pdk_conn_data(conn);
    if (!c)
        return;
    for (size_t i = 0; i < srv->n_sessions; i++)
        pdk_session_forget_conn(srv->sessions[i].session, c->id);
    for (size_t i = 0; i < srv->n_conns; i++) {
        if (srv->conns[i] == c) {
            memmove(&srv->conns[i], &srv->conns[i + 1],
                    (srv->n_conns - i - 1) * sizeof(srv->conns[0]));
            srv->n_conns--;
            break;
        }
    }
    pdk_conn_set_data(conn, NULL);
    free(c);
}

/* ---- the demo ---------------------------------------------------------- */

static int start_demo(pdk_server *srv)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_script script;
    if (pdk_script_load(srv->cfg.demo_script, &script, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd: demo: %s\n", err);
        return -1;
    }
    session_slot *slot;
    pdk_error e =
        session_open(srv, "demo", "flat", NULL, PDK_TIMING_REALTIME, true, err, sizeof(err), &slot);
    pdk_vehicle_def def;
    char *json = NULL;
    if (e == PDK_OK)
        e = pdk_params_vehicle_load(srv->cfg.presets_dir, srv->cfg.demo_vehicle,
                                    PDK_SCRIPT_DEMO_OVERRIDES, &def, &json, err, sizeof(err));
    if (e != PDK_OK) {
        fprintf(stderr, "paddockd: demo: %s\n", err);
        pdk_script_free(&script);
        return -1;
    }
    pdk_spawn_place place = pdk_run_place_from_script(&script);
    pdk_reply_to none = {0, 0};
    pdk_session_queue_spawn(slot->session, &def, srv->cfg.demo_vehicle, PDK_SCRIPT_DEMO_OVERRIDES,
                            json, &place, none);
    free(json);
    /* The spawn applies at the next tick; the first vehicle gets the first id. */
    pdk_session_tick(slot->session);
    slot->next_index++;
    pdk_vehicle_id id = pdk_world_vehicle_at(pdk_session_world(slot->session), 0);
    if (id == 0) {
        fprintf(stderr,
                "paddockd: demo: the %s could not be spawned at the script's initial "
                "pose and speed\n",
                srv->cfg.demo_vehicle);
        pdk_script_free(&script);
        return -1;
    }
    e = pdk_session_attach_script(slot->session, id, &script, true, 2.0);
    pdk_script_free(&script);
    if (e != PDK_OK) {
        fprintf(stderr, "paddockd: demo: the script could not be attached: %s\n",
                pdk_error_message(e));
        return -1;
    }
    srv->demo_session = pdk_session_id(slot->session);
    printf("demo session %" PRIu64 ": %s driving %s (Ctrl-C stops the server)\n", srv->demo_session,
           srv->cfg.demo_vehicle, srv->cfg.demo_script);
    fflush(stdout);
    return 0;
}

static void on_live(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    session_slot *slot = session_find(srv, srv->demo_session);
    if (!slot)
        return;
    const pdk_world *w = pdk_session_world(slot->session);
    pdk_vehicle_pose p;
    if (pdk_world_vehicle_count(w) == 0 ||
        pdk_world_vehicle_pose(w, pdk_world_vehicle_at(w, 0), &p) != PDK_OK)
        return;
    const double *ch = pdk_world_channels(w, p.id);
    pdk_lateness *lat = pdk_session_lateness(slot->session);
    bool tty = isatty(STDOUT_FILENO);
    printf("%st=%8.2fs tick=%-7" PRIu64 " x=%8.1fm y=%8.1fm yaw=%6.1f° v=%6.1fkm/h "
           "steer=%6.1f° thr=%3.0f%% brk=%5.1fbar ay=%5.2fm/s² late p99=%.2fms clients=%zu%s",
           tty ? "\r\033[K" : "", pdk_world_time_s(w), pdk_world_tick(w), p.x_m, p.y_m,
           p.yaw_rad * 180.0 / M_PI, p.speed_mps * 3.6, p.steer_angle_rad * 180.0 / M_PI,
           ch ? ch[PDK_CH_THROTTLE] : 0.0, ch ? ch[PDK_CH_BRAKE] : 0.0, p.ay_mps2,
           pdk_lateness_quantile_ms(lat, 0.99), srv->n_conns, tty ? "" : "\n");
    fflush(stdout);
}

/* ---- start and stop ---------------------------------------------------- */

static void on_walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    pdk_server *srv = sig->data;
    if (srv->stopping)
        return;
    srv->stopping = true;
    if (srv->live_on && isatty(STDOUT_FILENO))
        printf("\n");
    printf("paddockd: %s, stopping\n", signum == SIGINT ? "interrupted" : "terminated");
    fflush(stdout);
    while (srv->n_sessions > 0)
        session_close(srv, &srv->sessions[srv->n_sessions - 1]);
    pdk_net_close(srv->net);
    srv->net = NULL;
    uv_walk(&srv->loop, on_walk_close, NULL);
}

int pdk_server_run(const pdk_server_config *config)
{
    pdk_server *srv = calloc(1, sizeof(*srv));
    if (!srv)
        return 1;
    srv->cfg = *config;
    srv->timer_fd = -1;
    char err[PDK_STORE_ERR_LEN];
    int rc = 1;
    if (pdk_store_open(config->db_path, config->migrations_dir, &srv->store, err, sizeof(err)) !=
        PDK_OK) {
        fprintf(stderr, "paddockd: %s\n", err);
        free(srv);
        return 1;
    }
    uv_loop_init(&srv->loop);
    /* Linux lets a timer fire up to the thread's timer slack (50 µs by
     * default) late so it can batch wake-ups; ticks want their deadline. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    srv->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (srv->timer_fd < 0) {
        fprintf(stderr, "paddockd: timerfd_create: %s\n", strerror(errno));
        goto out;
    }
    uv_poll_init(&srv->loop, &srv->timer_poll, srv->timer_fd);
    srv->timer_poll.data = srv;
    uv_poll_start(&srv->timer_poll, UV_READABLE, on_timer);
    uv_idle_init(&srv->loop, &srv->fast_idle);
    srv->fast_idle.data = srv;
    uv_timer_init(&srv->loop, &srv->writer_wait);
    srv->writer_wait.data = srv;
    uv_signal_init(&srv->loop, &srv->sig_int);
    uv_signal_init(&srv->loop, &srv->sig_term);
    srv->sig_int.data = srv->sig_term.data = srv;
    uv_signal_start(&srv->sig_int, on_signal, SIGINT);
    uv_signal_start(&srv->sig_term, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);

    pdk_net_callbacks cb = {
        .on_open = on_open, .on_frame = on_frame, .on_close = on_close, .on_eof = on_eof};
    if (pdk_net_listen(&srv->loop, config->listen, &config->limits, &cb, srv, &srv->net, err,
                       sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd: cannot listen on %s: %s\n", config->listen, err);
        uv_walk(&srv->loop, on_walk_close, NULL);
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        goto out;
    }
    char host[128];
    snprintf(host, sizeof(host), "%s", config->listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    printf("paddockd %s (build %s) listening on %s:%d, database %s (schema v%d)\n",
           PDK_SERVER_VERSION, PDK_BUILD_ID, host, pdk_net_port(srv->net), config->db_path,
           pdk_store_schema_version(srv->store));
    fflush(stdout);
    if (config->demo_script) {
        if (start_demo(srv) != 0) {
            on_signal(&srv->sig_term, SIGTERM);
            uv_run(&srv->loop, UV_RUN_DEFAULT);
            goto out;
        }
        uv_timer_init(&srv->loop, &srv->live_timer);
        srv->live_timer.data = srv;
        uv_timer_start(&srv->live_timer, on_live, 100, isatty(STDOUT_FILENO) ? 100 : 1000);
        srv->live_on = true;
    }
    arm_timer(srv);
    uv_run(&srv->loop, UV_RUN_DEFAULT);
    rc = 0;
    pdk_store_flush(srv->store);
    pdk_store_stats st;
    pdk_store_stats_get(srv->store, &st);
    if (st.failed > 0) {
        fprintf(stderr, "paddockd: %" PRIu64 " records could not be written to %s\n", st.failed,
                config->db_path);
        rc = 1;
    }
out:
    if (uv_loop_close(&srv->loop) != 0)
        fprintf(stderr, "paddockd: the loop still had open handles at exit\n");
    if (srv->timer_fd >= 0)
        close(srv->timer_fd);
    pdk_store_close(srv->store);
    for (size_t i = 0; i < srv->n_conns; i++)
        free(srv->conns[i]);
    free(srv->conns);
    free(srv->sessions);
    pdk_buf_free(&srv->out);
    free(srv);
    if (rc == 0)
        printf("paddockd: stopped cleanly\n");
    return rc;
}
