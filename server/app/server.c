/* paddockd's server: the libuv loop, connections (viewers, their frames
 * dispatched), the session table, the schedulers (real-time deadlines on a
 * timerfd, fast sessions and owed steps in idle slices, replays at their
 * speed) and clean shutdown. The requests themselves are in
 * server_requests.c, server_control.c and server_recording.c. */
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
#include "server_internal.h"
#include "world_mem.h"

#define NS_PER_S PDK_SERVER_NS_PER_S
#define FAST_SLICE_NS 2000000ull    /* a fast session yields every 2 ms */
#define WRITER_HIGH_WATER 200000u   /* queued records that pause ticking */
#define REPLAY_SLICE_NS 2000000ull  /* a replay's catch-up per wake-up */
#define REPLAY_BEHIND_NS 250000000u /* a replay further behind starts its schedule afresh */

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

static uint64_t deadline_ns(const pdk_server_slot *slot)
{
    /* Integer arithmetic keeps the real-time schedule exact over any run
     * length; a replay's period is 1/(120 * speed) s. */
    if (slot->player)
        return slot->start_ns + (uint64_t)((double)slot->next_index * (double)NS_PER_S /
                                           ((double)PDK_TICK_HZ * slot->speed));
    return slot->start_ns + slot->next_index * NS_PER_S / PDK_TICK_HZ;
}

/* ---- connections ------------------------------------------------------- */

/* Connections are kept in id order (net gives ids out increasing and the
 * table only appends and removes in place), so a reply or a state frame
 * finds its connection by binary search: this runs for every subscription
 * every published tick. */
pdk_server_conn *pdk_server_conn_find(pdk_server *srv, uint64_t id)
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

void pdk_server_send_frame(pdk_server *srv, pdk_conn *conn, const Paddock__V1__Frame *frame)
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

void pdk_server_send_error(pdk_server *srv, pdk_conn *conn, uint64_t request_id, pdk_error code,
                           const char *message)
{
    pdk_buf_reset(&srv->out);
    if (pdk_wire_error_append(&srv->out, request_id, code, message) == PDK_OK)
        pdk_conn_send(conn, srv->out.data, srv->out.len);
}

void pdk_server_error_to(pdk_server *srv, uint64_t conn_id, uint64_t request_id, pdk_error code,
                         const char *message)
{
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (c)
        pdk_server_send_error(srv, c->conn, request_id, code, message);
}

void pdk_server_send_ok(pdk_server *srv, pdk_conn *conn, uint64_t request_id, uint64_t tick)
{
    Paddock__V1__Ok ok = PADDOCK__V1__OK__INIT;
    ok.tick = tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_OK;
    f.ok = &ok;
    pdk_server_send_frame(srv, conn, &f);
}

/* ---- sessions ---------------------------------------------------------- */

pdk_server_slot *pdk_server_session_find(pdk_server *srv, uint64_t id)
{
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (srv->sessions[i].id == id)
            return &srv->sessions[i];
    return NULL;
}

static void send_input_reply(pdk_server *srv, pdk_server_conn *c, pdk_reply_to to,
                             const pdk_input_result *res)
{
    if (pdk_server_control_result(srv, c, to, res))
        return;
    if (res->kind == PDK_INPUT_SPAWN) {
        Paddock__V1__VehicleSpawned sp = PADDOCK__V1__VEHICLE_SPAWNED__INIT;
        sp.vehicle_id = res->vehicle;
        sp.tick = res->tick;
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = to.request_id;
        f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWNED;
        f.vehicle_spawned = &sp;
        pdk_server_send_frame(srv, c->conn, &f);
    } else {
        pdk_server_send_ok(srv, c->conn, to.request_id, res->tick);
    }
}

/* True on the loop's thread; hooks called elsewhere (a worker's seek) keep
 * what they have for the loop. */
static bool on_loop(const pdk_server *srv)
{
    uv_thread_t self = uv_thread_self();
    return uv_thread_equal(&self, &srv->loop_thread) != 0;
}

static void defer(pdk_server *srv, const pdk_deferred *d)
{
    uv_mutex_lock(&srv->defer_lock);
    if (srv->n_deferred == srv->cap_deferred) {
        size_t cap = srv->cap_deferred ? srv->cap_deferred * 2 : 8;
        pdk_deferred *p = realloc(srv->deferred, cap * sizeof(*p));
        if (p) {
            srv->deferred = p;
            srv->cap_deferred = cap;
        }
    }
    if (srv->n_deferred < srv->cap_deferred)
        srv->deferred[srv->n_deferred++] = *d;
    uv_mutex_unlock(&srv->defer_lock);
}

static void on_input_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    pdk_server *srv = ud;
    /* Inputs with a reply are queued by requests, on the loop, into
     * sessions the loop ticks. */
    PDK_ASSERT(on_loop(srv));
    pdk_server_conn *c = pdk_server_conn_find(srv, to.conn_id);
    if (!c)
        return;
    c->pending--;
    if (res->err != PDK_OK) {
        pdk_server_control_result(srv, NULL, to, res); /* forgets a failed reset's entry */
        pdk_server_send_error(srv, c->conn, to.request_id, res->err, res->message);
    } else {
        send_input_reply(srv, c, to, res);
    }
    if (c->eof && c->pending == 0)
        pdk_conn_close(c->conn);
}

static pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                          size_t len)
{
    pdk_server *srv = ud;
    if (!on_loop(srv))
        return PDK_OK;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
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
    if (!on_loop(srv))
        return PDK_OK;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    return c ? pdk_conn_send_state(c->conn, report_key(sub_id, kind), frame, len) : PDK_OK;
}

/* A lease holder hears that its vehicle changed hands. */
static void on_control(void *ud, uint64_t conn_id, const pdk_control_event *ev)
{
    pdk_server *srv = ud;
    if (!on_loop(srv)) {
        pdk_deferred d = {.control = true, .conn_id = conn_id, .event = *ev};
        snprintf(d.why, sizeof(d.why), "%s", ev->reason ? ev->reason : "");
        defer(srv, &d);
        return;
    }
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
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
    pdk_server_send_frame(srv, c->conn, &f);
}

/* A subscriber whose subscription ends (its session closed, its batches
 * outgrew the frame limit) is told so with a pushed Error rather than left
 * waiting for state that will never come. */
static void on_sub_end(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code, const char *why)
{
    pdk_server *srv = ud;
    if (!on_loop(srv)) {
        pdk_deferred d = {.conn_id = conn_id, .sub_id = sub_id, .code = code};
        snprintf(d.why, sizeof(d.why), "%s", why ? why : "");
        defer(srv, &d);
        return;
    }
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (!c)
        return;
    c->n_subs--;
    pdk_server_send_error(srv, c->conn, 0, code, why);
}

void pdk_server_flush_deferred(pdk_server *srv)
{
    uv_mutex_lock(&srv->defer_lock);
    size_t n = srv->n_deferred;
    pdk_deferred *list = srv->deferred;
    srv->deferred = NULL;
    srv->n_deferred = srv->cap_deferred = 0;
    uv_mutex_unlock(&srv->defer_lock);
    for (size_t i = 0; i < n; i++) {
        pdk_deferred *d = &list[i];
        if (d->control) {
            d->event.reason = d->why;
            on_control(srv, d->conn_id, &d->event);
        } else {
            on_sub_end(srv, d->conn_id, d->sub_id, d->code, d->why);
        }
    }
    free(list);
}

pdk_session_hooks pdk_server_hooks(pdk_server *srv)
{
    pdk_session_hooks hooks = {.on_result = on_input_result,
                               .on_state = on_state,
                               .on_sub_end = on_sub_end,
                               .on_dbw_report = on_dbw_report,
                               .on_control = on_control,
                               .ud = srv};
    return hooks;
}

pdk_error pdk_server_session_room(pdk_server *srv, size_t bytes, char *err, size_t err_len)
{
    if ((int)srv->n_sessions + srv->reserved_sessions >= srv->cfg.max_sessions) {
        snprintf(err, err_len, "the server hosts its maximum of %d sessions",
                 srv->cfg.max_sessions);
        return PDK_ERR_CAPACITY;
    }
    if (bytes > srv->cfg.max_world_bytes - srv->world_bytes ||
        srv->world_bytes > srv->cfg.max_world_bytes) {
        snprintf(err, err_len,
                 "a world of this size needs %zu bytes; the server's world memory budget has "
                 "%zu of %zu bytes left (lower maxVehicles or raise --max-world-mb)",
                 bytes,
                 srv->world_bytes > srv->cfg.max_world_bytes
                     ? (size_t)0
                     : srv->cfg.max_world_bytes - srv->world_bytes,
                 srv->cfg.max_world_bytes);
        return PDK_ERR_CAPACITY;
    }
    return PDK_OK;
}

pdk_error pdk_server_session_adopt(pdk_server *srv, pdk_session *s, pdk_timing timing,
                                   size_t world_bytes, pdk_server_slot **out)
{
    if (srv->n_sessions == srv->cap_sessions) {
        size_t cap = srv->cap_sessions ? srv->cap_sessions * 2 : 8;
        pdk_server_slot *p = realloc(srv->sessions, cap * sizeof(*p));
        if (!p)
            return PDK_ERR_NO_MEMORY;
        srv->sessions = p;
        srv->cap_sessions = cap;
    }
    pdk_server_slot *slot = &srv->sessions[srv->n_sessions++];
    memset(slot, 0, sizeof(*slot));
    slot->session = s;
    slot->id = pdk_session_id(s);
    slot->timing = timing;
    slot->world_bytes = world_bytes;
    slot->speed = 1.0;
    pdk_server_rebase(slot);
    *out = slot;
    pdk_server_reschedule(srv);
    return PDK_OK;
}

pdk_error pdk_server_session_open(pdk_server *srv, const char *name, const char *world_preset,
                                  const char *world_overrides, pdk_timing timing, bool record,
                                  char *err, size_t err_len, pdk_server_slot **out)
{
    if (!world_preset || !*world_preset)
        world_preset = "flat";
    pdk_world_def wdef;
    char *world_json = NULL;
    pdk_error e = pdk_params_world_load(srv->cfg.presets_dir, world_preset, world_overrides, &wdef,
                                        &world_json, err, err_len);
    if (e != PDK_OK)
        return e;
    size_t bytes = pdk_world_mem_size(&wdef);
    e = pdk_server_session_room(srv, bytes, err, err_len);
    if (e != PDK_OK) {
        free(world_json);
        return e;
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
    pdk_session_hooks hooks = pdk_server_hooks(srv);
    pdk_session *s = NULL;
    e = pdk_session_create(id, &def, &hooks, &s);
    free(world_json);
    if (e != PDK_OK) {
        snprintf(err, err_len, "session could not be created: %s", pdk_error_message(e));
        return e;
    }
    e = pdk_server_session_adopt(srv, s, timing, bytes, out);
    if (e != PDK_OK) {
        pdk_session_destroy(s);
        snprintf(err, err_len, "out of memory");
        return e;
    }
    srv->world_bytes += bytes;
    return PDK_OK;
}

void pdk_server_session_close(pdk_server *srv, pdk_server_slot *slot)
{
    pdk_server_control_forget_session(srv, slot);
    srv->world_bytes -= slot->world_bytes;
    if (!slot->busy) {
        /* A busy slot's session, player and recording are its worker's to
         * free once it is done (server_recording.c). */
        pdk_player_free(slot->player);
        pdk_session_destroy(slot->session);
        pdk_recording_free(slot->rec);
    }
    free(slot->forget);
    size_t i = (size_t)(slot - srv->sessions);
    memmove(&srv->sessions[i], &srv->sessions[i + 1],
            (srv->n_sessions - i - 1) * sizeof(srv->sessions[0]));
    srv->n_sessions--;
    pdk_server_reschedule(srv);
}

uint64_t pdk_server_slot_tick(const pdk_server_slot *slot)
{
    return slot->busy ? slot->view.tick : pdk_world_tick(pdk_session_world(slot->session));
}

void pdk_server_rebase(pdk_server_slot *slot)
{
    slot->start_ns = uv_hrtime();
    slot->next_index = 1;
}

bool pdk_server_tick_slot(pdk_server *srv, pdk_server_slot *slot)
{
    if (!slot->player) {
        pdk_session_tick(slot->session);
        return true;
    }
    if (pdk_player_step(slot->player) == PDK_OK)
        return true;
    char reason[PDK_SERVER_REASON_LEN];
    snprintf(reason, sizeof(reason), "replay reached the recording's last tick %" PRIu64,
             pdk_player_end_tick(slot->player));
    pdk_server_pause(srv, slot, PDK_PAUSE_REPLAY_END, reason);
    return false;
}

/* True while the SQLite writer is too far behind for sessions to tick; the
 * start and end of each such stall are logged, and sessions report it as
 * their pause reason meanwhile. */
bool pdk_server_writer_lagging(pdk_server *srv)
{
    pdk_store_stats st;
    pdk_store_stats_get(srv->store, &st);
    srv->writer_queued = st.queued;
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
    if (lagging)
        snprintf(srv->writer_reason, sizeof(srv->writer_reason),
                 "the database writer is %" PRIu64
                 " records behind: sessions wait for it (nothing is dropped)",
                 st.queued);
    srv->writer_stalled = lagging;
    return lagging;
}

/* ---- the schedulers ------------------------------------------------------ */

/* Real-time sessions and playing replays tick on the timerfd's deadlines. */
static bool runs_on_timer(const pdk_server_slot *slot)
{
    return !slot->busy && !slot->stepping && slot->pause == PDK_PAUSE_NONE &&
           (slot->player != NULL || slot->timing == PDK_TIMING_REALTIME);
}

/* Fast sessions and owed steps tick in the idle slices. */
static bool runs_fast(const pdk_server_slot *slot)
{
    if (slot->busy)
        return false;
    if (slot->stepping)
        return true;
    return !slot->player && slot->timing == PDK_TIMING_FAST && slot->pause == PDK_PAUSE_NONE;
}

/* The earliest deadline of the sessions on the timer, or 0 when there is none. */
static uint64_t next_deadline_ns(const pdk_server *srv)
{
    uint64_t next = 0;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        if (!runs_on_timer(&srv->sessions[i]))
            continue;
        uint64_t d = deadline_ns(&srv->sessions[i]);
        if (next == 0 || d < next)
            next = d;
    }
    return next;
}

/* Arms the timerfd for the earliest deadline, or not before not_before_ns
 * when that is later (a pause while the writer catches up). The timer fires
 * tick_spin_ns before the deadline and on_timer waits out the rest on the
 * clock: waking a sleeping core (a VM's above all) can take hundreds of
 * microseconds, a short spin does not. */
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

/* A real-time session's due ticks, at most max_catchup_ticks of them; the
 * deadlines further behind are dropped and counted. */
static void run_realtime(pdk_server *srv, pdk_server_slot *slot)
{
    uint64_t period = NS_PER_S / PDK_TICK_HZ;
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
         * moment does not become a burst of ticks. Sim time now lags wall
         * time by the dropped ticks, which are reported. */
        uint64_t behind = (now - slot->start_ns) * PDK_TICK_HZ / NS_PER_S + 1;
        lat->skipped += behind - slot->next_index;
        slot->next_index = behind; /* the first deadline after now */
    }
}

/* A playing replay's due ticks, for at most REPLAY_SLICE_NS: a replay drops
 * no tick, so one too fast for the CPU plays slower than asked (its stats
 * show the real-time factor), its schedule starting afresh once it is a
 * quarter of a second behind. */
static void run_replay(pdk_server *srv, pdk_server_slot *slot)
{
    uint64_t t0 = uv_hrtime();
    uint64_t now = t0;
    while (deadline_ns(slot) <= now && now - t0 < REPLAY_SLICE_NS) {
        if (!pdk_server_tick_slot(srv, slot))
            return;
        slot->next_index++;
        now = uv_hrtime();
    }
    if (deadline_ns(slot) + REPLAY_BEHIND_NS < now)
        pdk_server_rebase(slot);
}

static void on_timer(uv_poll_t *handle, int status, int events)
{
    (void)status;
    (void)events;
    pdk_server *srv = handle->data;
    uint64_t expirations;
    if (read(srv->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        fprintf(stderr, "paddockd: timerfd read: %s\n", strerror(errno));
    if (pdk_server_writer_lagging(srv)) {
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
    for (size_t i = 0; i < srv->n_sessions; i++) {
        pdk_server_slot *slot = &srv->sessions[i];
        if (!runs_on_timer(slot))
            continue;
        if (slot->player)
            run_replay(srv, slot);
        else
            run_realtime(srv, slot);
    }
    arm_timer(srv);
}

static void update_fast_idle(pdk_server *srv);

static void on_writer_wait(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    update_fast_idle(srv);
}

/* One slot's share of a slice: owed steps up to their tick (answered when
 * done), or a fast session up to the fast-tick limit. */
static void run_fast(pdk_server *srv, pdk_server_slot *slot, uint64_t budget)
{
    uint64_t t0 = uv_hrtime();
    do {
        if (slot->stepping) {
            if (pdk_server_slot_tick(slot) >= slot->step_to)
                break;
        } else if (pdk_world_tick(pdk_session_world(slot->session)) >= srv->cfg.max_fast_ticks) {
            char reason[PDK_SERVER_REASON_LEN];
            snprintf(reason, sizeof(reason),
                     "a fast session stops at the server's limit of %" PRIu64
                     " ticks (--max-fast-ticks)",
                     srv->cfg.max_fast_ticks);
            pdk_server_pause(srv, slot, PDK_PAUSE_LIMIT, reason);
            return;
        }
        if (!pdk_server_tick_slot(srv, slot))
            return;
    } while (uv_hrtime() - t0 < budget);
    if (slot->stepping && pdk_server_slot_tick(slot) >= slot->step_to)
        pdk_server_steps_done(srv, slot);
}

/* Fast sessions and owed steps share each 2 ms slice equally, starting with
 * a different one every slice so none waits behind another. */
static void on_fast_idle(uv_idle_t *handle)
{
    pdk_server *srv = handle->data;
    if (pdk_server_writer_lagging(srv)) {
        /* Sleep, not spin, while the writer catches up: it needs the CPU. */
        uv_idle_stop(&srv->fast_idle);
        srv->fast_idle_on = false;
        uv_timer_start(&srv->writer_wait, on_writer_wait, 1, 0);
        return;
    }
    size_t n_fast = 0;
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (runs_fast(&srv->sessions[i]))
            n_fast++;
    if (n_fast > 0) {
        uint64_t budget = FAST_SLICE_NS / n_fast;
        size_t n = srv->n_sessions;
        size_t first = srv->fast_first % n;
        srv->fast_first = first + 1;
        for (size_t k = 0; k < n; k++) {
            pdk_server_slot *slot = &srv->sessions[(first + k) % n];
            if (runs_fast(slot))
                run_fast(srv, slot, budget);
        }
    }
    update_fast_idle(srv);
}

static void update_fast_idle(pdk_server *srv)
{
    bool any = false;
    for (size_t i = 0; i < srv->n_sessions; i++)
        if (runs_fast(&srv->sessions[i]))
            any = true;
    if (any && !srv->fast_idle_on && !srv->stopping && !pdk_server_writer_lagging(srv)) {
        uv_idle_start(&srv->fast_idle, on_fast_idle);
        srv->fast_idle_on = true;
    } else if (!any && srv->fast_idle_on) {
        uv_idle_stop(&srv->fast_idle);
        srv->fast_idle_on = false;
    } else if (any && !srv->fast_idle_on && !srv->stopping) {
        uv_timer_start(&srv->writer_wait, on_writer_wait, 1, 0); /* the writer lags */
    }
}

void pdk_server_reschedule(pdk_server *srv)
{
    update_fast_idle(srv);
    arm_timer(srv);
}

/* ---- what requests share ------------------------------------------------- */

static Paddock__V1__TimingMode timing_pb(pdk_timing t)
{
    switch (t) {
    case PDK_TIMING_FAST:
        return PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST;
    case PDK_TIMING_LOCKSTEP:
        return PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP;
    case PDK_TIMING_REALTIME:
        break;
    }
    return PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME;
}

void pdk_server_fill_info(pdk_server *srv, pdk_server_slot *slot, Paddock__V1__SessionInfo *info)
{
    pdk_session *s = slot->session;
    pdk_lateness *lat = pdk_session_lateness(s);
    paddock__v1__session_info__init(info);
    info->session_id = slot->id;
    info->name = (char *)pdk_session_name(s);
    if (slot->busy) {
        info->tick = slot->view.tick;
        info->sim_time_s = slot->view.sim_time_s;
        info->vehicle_count = slot->view.vehicle_count;
        info->state_hash = slot->view.state_hash;
        info->subscriber_count = slot->view.subscriber_count;
    } else {
        const pdk_world *w = pdk_session_world(s);
        info->tick = pdk_world_tick(w);
        info->sim_time_s = pdk_world_time_s(w);
        info->vehicle_count = (uint32_t)pdk_world_vehicle_count(w);
        info->state_hash = pdk_session_hash(s);
        info->subscriber_count = (uint32_t)pdk_session_subscriber_count(s);
    }
    info->timing = timing_pb(slot->timing);
    info->world_preset = (char *)pdk_session_world_preset(s);
    info->overruns = lat->overruns;
    info->lateness_p50_ms = pdk_lateness_quantile_ms(lat, 0.50);
    info->lateness_p99_ms = pdk_lateness_quantile_ms(lat, 0.99);
    info->skipped_ticks = lat->skipped;
    info->paused = slot->pause != PDK_PAUSE_NONE || srv->writer_stalled;
    info->pause_reason = slot->pause != PDK_PAUSE_NONE ? slot->pause_reason
                         : srv->writer_stalled         ? srv->writer_reason
                                                       : (char *)"";
    info->timing_reason = slot->timing_reason;
    info->replay_of = slot->replay_of;
}

pdk_server_slot *pdk_server_need_session(pdk_server *srv, pdk_conn *conn, uint64_t rid, uint64_t id)
{
    pdk_server_slot *slot = pdk_server_session_find(srv, id);
    char msg[160];
    if (!slot) {
        snprintf(msg, sizeof(msg), "session %" PRIu64 " does not exist", id);
        pdk_server_send_error(srv, conn, rid, PDK_ERR_NOT_FOUND, msg);
        return NULL;
    }
    if (slot->busy) {
        snprintf(msg, sizeof(msg),
                 "session %" PRIu64 " is a replay seeking a tick; ask again once the seek is "
                 "answered",
                 id);
        pdk_server_send_error(srv, conn, rid, PDK_ERR_BUSY, msg);
        return NULL;
    }
    return slot;
}

bool pdk_server_refuse_replay(pdk_server *srv, pdk_conn *conn, uint64_t rid,
                              const pdk_server_slot *slot)
{
    if (!slot->player)
        return false;
    char msg[160];
    snprintf(msg, sizeof(msg),
             "session %" PRIu64 " is a replay of session %" PRIu64
             " and takes no commands; fork it to drive",
             slot->id, slot->replay_of);
    pdk_server_send_error(srv, conn, rid, PDK_ERR_UNSUPPORTED, msg);
    return true;
}

/* A session that takes inputs: it exists, is not a replay and is not paused
 * at the fast-tick limit (which would hold the input, and its reply, for
 * ever). A session paused otherwise takes them at once. */
pdk_server_slot *pdk_server_need_live_session(pdk_server *srv, pdk_conn *conn, uint64_t rid,
                                              uint64_t id)
{
    pdk_server_slot *slot = pdk_server_need_session(srv, conn, rid, id);
    if (!slot || pdk_server_refuse_replay(srv, conn, rid, slot))
        return NULL;
    if (slot->pause == PDK_PAUSE_LIMIT) {
        char msg[256];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " is paused and takes no inputs: %s", id,
                 slot->pause_reason);
        pdk_server_send_error(srv, conn, rid, PDK_ERR_CLOSED, msg);
        return NULL;
    }
    return slot;
}

void pdk_server_settle_inputs(pdk_server *srv, pdk_server_slot *slot)
{
    (void)srv;
    if (slot->busy || slot->player || slot->pause == PDK_PAUSE_LIMIT || slot->stepping)
        return;
    if (slot->pause != PDK_PAUSE_NONE || slot->timing == PDK_TIMING_LOCKSTEP)
        pdk_session_apply_inputs(slot->session);
}

bool pdk_server_text_ok(pdk_server *srv, pdk_conn *conn, uint64_t rid, const char *field,
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
    pdk_server_send_error(srv, conn, rid, PDK_ERR_INVALID_ARGUMENT, msg);
    return false;
}

const char *pdk_server_body_name(Paddock__V1__Frame__BodyCase bc)
{
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(&paddock__v1__frame__descriptor, (unsigned)bc);
    return fd ? fd->name : "unknown";
}

/* A viewer (Hello.viewer) may watch (list, subscribe, ping, read
 * recordings) but every request that would change something is refused,
 * naming the role. */
static bool refuse_viewer(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    if (!c->viewer)
        return false;
    char msg[160];
    snprintf(msg, sizeof(msg),
             "this connection said Hello as a viewer: a viewer watches and may not send %s",
             pdk_server_body_name(f->body_case));
    pdk_server_send_error(srv, c->conn, f->request_id, PDK_ERR_PROTOCOL, msg);
    return true;
}

/* ---- connections' frames ------------------------------------------------- */

typedef void (*handler_fn)(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f);

/* The requests a client may send, and whether a viewer may. */
static handler_fn handler_for(Paddock__V1__Frame__BodyCase bc, bool *changes)
{
    *changes = true;
    switch (bc) {
    case PADDOCK__V1__FRAME__BODY_SESSION_CREATE:
        return pdk_server_handle_session_create;
    case PADDOCK__V1__FRAME__BODY_SESSION_CLOSE:
        return pdk_server_handle_session_close;
    case PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN:
        return pdk_server_handle_spawn;
    case PADDOCK__V1__FRAME__BODY_VEHICLE_REMOVE:
        return pdk_server_handle_remove;
    case PADDOCK__V1__FRAME__BODY_DBW_COMMAND:
        return pdk_server_handle_dbw;
    case PADDOCK__V1__FRAME__BODY_TYRE_COMMAND:
        return pdk_server_handle_tyre;
    case PADDOCK__V1__FRAME__BODY_DBW_MESSAGE:
        return pdk_server_handle_dbw_message;
    case PADDOCK__V1__FRAME__BODY_CONTROL_LEASE:
        return pdk_server_handle_control_lease;
    case PADDOCK__V1__FRAME__BODY_SESSION_CONTROL:
        return pdk_server_handle_control;
    case PADDOCK__V1__FRAME__BODY_REPLAY_OPEN:
        return pdk_server_handle_replay_open;
    case PADDOCK__V1__FRAME__BODY_FORK_REQUEST:
        return pdk_server_handle_fork;
    case PADDOCK__V1__FRAME__BODY_IMPORT_CHUNK:
        return pdk_server_handle_import;
    default:
        break;
    }
    *changes = false;
    switch (bc) {
    case PADDOCK__V1__FRAME__BODY_HELLO:
        return pdk_server_handle_hello;
    case PADDOCK__V1__FRAME__BODY_PING:
        return pdk_server_handle_ping;
    case PADDOCK__V1__FRAME__BODY_SESSION_LIST:
        return pdk_server_handle_session_list;
    case PADDOCK__V1__FRAME__BODY_SUBSCRIBE:
        return pdk_server_handle_subscribe;
    case PADDOCK__V1__FRAME__BODY_DBW_SUBSCRIBE:
        return pdk_server_handle_dbw_subscribe;
    case PADDOCK__V1__FRAME__BODY_UNSUBSCRIBE:
        return pdk_server_handle_unsubscribe;
    case PADDOCK__V1__FRAME__BODY_STATS_SUBSCRIBE:
        return pdk_server_handle_stats_subscribe;
    case PADDOCK__V1__FRAME__BODY_VERIFY_REQUEST:
        return pdk_server_handle_verify;
    case PADDOCK__V1__FRAME__BODY_EXPORT_REQUEST:
        return pdk_server_handle_export;
    case PADDOCK__V1__FRAME__BODY_CSV_EXPORT_REQUEST:
        return pdk_server_handle_csv;
    case PADDOCK__V1__FRAME__BODY_SESSION_META_REQUEST:
        return pdk_server_handle_meta;
    default:
        break;
    }
    return NULL;
}

static void on_frame(pdk_conn *conn, const Paddock__V1__Frame *f, void *ud)
{
    pdk_server *srv = ud;
    pdk_server_conn *c = pdk_conn_data(conn);
    if (!c)
        return;
    if (!c->greeted && f->body_case != PADDOCK__V1__FRAME__BODY_HELLO) {
        pdk_conn_fail(conn, f->request_id, PDK_ERR_PROTOCOL,
                      "the first frame on a connection must be Hello with protocol_version 1");
        return;
    }
    bool changes = false;
    handler_fn fn = handler_for(f->body_case, &changes);
    if (!fn) {
        char msg[128];
        snprintf(msg, sizeof(msg), "'%s' is not a request a client may send",
                 pdk_server_body_name(f->body_case));
        pdk_server_send_error(srv, conn, f->request_id, PDK_ERR_PROTOCOL, msg);
        return;
    }
    if (changes && refuse_viewer(srv, c, f))
        return;
    fn(srv, c, f);
}

static void on_open(pdk_conn *conn, void *ud)
{
    pdk_server *srv = ud;
    pdk_server_conn *c = calloc(1, sizeof(*c));
    if (c && srv->n_conns == srv->cap_conns) {
        size_t cap = srv->cap_conns ? srv->cap_conns * 2 : 16;
        pdk_server_conn **p = realloc(srv->conns, cap * sizeof(*p));
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
    c->upload.fd = -1;
    snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64, c->id);
    PDK_ASSERT(srv->n_conns == 0 || srv->conns[srv->n_conns - 1]->id < c->id);
    srv->conns[srv->n_conns++] = c;
    pdk_conn_set_data(conn, c);
}

/* A half-closed peer still gets the replies to the inputs it queued. */
static bool on_eof(pdk_conn *conn, void *ud)
{
    (void)ud;
    pdk_server_conn *c = pdk_conn_data(conn);
    if (!c || c->pending == 0)
        return false;
    c->eof = true;
    return true;
}

/* A session a worker owns forgets the connection once the worker is done. */
static void forget_later(pdk_server_slot *slot, uint64_t conn_id)
{
    if (slot->n_forget == slot->cap_forget) {
        size_t cap = slot->cap_forget ? slot->cap_forget * 2 : 4;
        uint64_t *p = realloc(slot->forget, cap * sizeof(*p));
        if (!p)
            return; /* its subscriptions then end when they fail to send */
        slot->forget = p;
        slot->cap_forget = cap;
    }
    slot->forget[slot->n_forget++] = conn_id;
}

static void on_close(pdk_conn *conn, void *ud)
{
    pdk_server *srv = ud;
    pdk_server_conn *c = pdk_conn_data(conn);
    if (!c)
        return;
    /* Its subscriptions and pending replies go first, then its step leases
     * lapse (which may apply other connections' inputs at once). */
    c->eof = false;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        if (srv->sessions[i].busy)
            forget_later(&srv->sessions[i], c->id);
        else
            pdk_session_forget_conn(srv->sessions[i].session, c->id);
    }
    pdk_server_control_forget_conn(srv, c->id);
    pdk_server_recording_forget_conn(srv, c);
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
    pdk_server_slot *slot;
    pdk_error e = pdk_server_session_open(srv, "demo", "flat", NULL, PDK_TIMING_REALTIME, true, err,
                                          sizeof(err), &slot);
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
    pdk_server_slot *slot = pdk_server_session_find(srv, srv->demo_session);
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
        pdk_server_session_close(srv, &srv->sessions[srv->n_sessions - 1]);
    pdk_server_recording_stop(srv);
    pdk_listener_close(srv->net);
    srv->net = NULL;
    /* Work still running on the pool (a verify, an export) finishes, and
     * its results are dropped, before uv_run returns. */
    uv_walk(&srv->loop, on_walk_close, NULL);
}

/* Sessions an earlier paddockd left running (killed, crashed) are marked
 * interrupted before any session of this one runs. */
static int mark_interrupted(pdk_server *srv)
{
    char err[PDK_STORE_ERR_LEN];
    uint64_t marked = 0;
    if (pdk_store_mark_interrupted(srv->store, &marked, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd: cannot mark interrupted sessions: %s\n", err);
        return -1;
    }
    if (marked > 0)
        printf("paddockd: %" PRIu64 " session%s left running by an earlier paddockd (killed or "
               "crashed) marked interrupted; each replays and verifies up to its last committed "
               "tick\n",
               marked, marked == 1 ? "" : "s");
    return 0;
}

static void init_timer(pdk_server *srv, uv_timer_t *t)
{
    uv_timer_init(&srv->loop, t);
    t->data = srv;
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
    srv->loop_thread = uv_thread_self();
    uv_mutex_init(&srv->defer_lock);
    if (mark_interrupted(srv) != 0)
        goto out;
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
    init_timer(srv, &srv->writer_wait);
    init_timer(srv, &srv->lease_timer);
    init_timer(srv, &srv->stats_timer);
    init_timer(srv, &srv->stream_timer);
    uv_signal_init(&srv->loop, &srv->sig_int);
    uv_signal_init(&srv->loop, &srv->sig_term);
    srv->sig_int.data = srv->sig_term.data = srv;
    uv_signal_start(&srv->sig_int, on_signal, SIGINT);
    uv_signal_start(&srv->sig_term, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);

    pdk_net_callbacks cb = {
        .on_open = on_open, .on_frame = on_frame, .on_close = on_close, .on_eof = on_eof};
    if (pdk_tcp_listen(&srv->loop, config->listen, &config->limits, &cb, srv, &srv->net, err,
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
           PDK_SERVER_VERSION, PDK_BUILD_ID, host, pdk_listener_port(srv->net), config->db_path,
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
    free(srv->stats);
    free(srv->streams);
    free(srv->controls);
    free(srv->deferred);
    uv_mutex_destroy(&srv->defer_lock);
    pdk_buf_free(&srv->out);
    free(srv);
    if (rc == 0)
        printf("paddockd: stopped cleanly\n");
    return rc;
}
