/* paddockd's server: the libuv loop, connections opened and closed, their
 * frames dispatched to the requests by topic (each topic's file has a
 * table of its requests: server_requests.c, server_vehicles.c,
 * server_subscriptions.c, server_control.c, server_stats.c,
 * server_recording.c), the demo, and start and clean shutdown. The
 * scheduler is server_sched.c, the session table server_sessions.c. */
#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "foxglove.h"
#include "local.h"
#include "params.h"
#include "preset_cache.h"
#include "run.h"
#include "script.h"
#include "server_internal.h"
#include "server_request.h"
#include "world_mem.h"

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
        .hello_timeout_s = 10.0,
        .max_queued_jobs = 16,
        /* As much as the largest single upload: any one upload still fits,
         * and a thousand connections can no longer hold a thousand times
         * that on the server's temporary disk. */
        .max_import_bytes = 1ull << 30,
        .max_spawns_per_tick = 4,
        .step_threads = uv_available_parallelism(),
        /* About what a hand-off to a thread and back costs in latency, and
         * some thirty cars' step: lighter sessions tick on the loop. */
        .step_threshold_ns = 250000,
        .step_poll_ns = 2000000,
        .step_split_vehicles = 512,
        .max_inputs_per_tick = 64,
        .agones_health_s = 2.0,
        .agones_export_dir = "exports",
        .limits = pdk_net_limits_default(),
    };
    return c;
}

/* ---- connections' frames ------------------------------------------------- */

/* Every request a client may send, by topic. */
static const pdk_server_request *const topics[] = {
    pdk_server_session_requests, pdk_server_vehicle_requests, pdk_server_subscription_requests,
    pdk_server_control_requests, pdk_server_stats_requests,   pdk_server_recording_requests,
    pdk_server_proxy_requests,   pdk_server_access_requests,
};

const pdk_server_request *pdk_server_request_for(Paddock__V1__Frame__BodyCase bc)
{
    for (size_t t = 0; t < sizeof(topics) / sizeof(topics[0]); t++)
        for (const pdk_server_request *r = topics[t]; r->handle || r->handle_server; r++)
            if (r->body == bc)
                return r;
    return NULL;
}

/* ---- the budgets of costly requests and inputs per connection and tick ---- */

static void arm_hold_timer(pdk_server *srv, uint64_t tick);

/* A request of c counted in a budget was handled, spending units of it
 * (*at_tick, *in_tick: the budget's tick and what c spent by then; each
 * tick since pays budget of it back). Once c has spent its budget in this
 * tick, its connection is held (no more frames delivered, nothing more
 * read) until the tick where what it spent is paid back: one client's
 * pipelined spawns or inputs, or a batch of many, cost each tick a bounded
 * share of the loop on average, not all of them at once; its replies keep
 * their order because its requests do. Both transports hold (TCP stops
 * reading its socket, WebSocket uses libwebsockets' receive flow
 * control). */
static void spend_budget(pdk_server *srv, pdk_server_conn *c, uint64_t *at_tick, uint32_t *in_tick,
                         uint32_t budget, uint32_t units)
{
    const uint64_t tick_ns = PDK_SERVER_NS_PER_S / PDK_TICK_HZ;
    uint64_t tick = uv_hrtime() / tick_ns;
    if (*at_tick != tick) {
        uint64_t paid = (tick - *at_tick) * (uint64_t)budget;
        *in_tick = *in_tick > paid ? (uint32_t)(*in_tick - paid) : 0;
        *at_tick = tick;
    }
    *in_tick = *in_tick > UINT32_MAX - units ? UINT32_MAX : *in_tick + units;
    if (*in_tick < budget || srv->stopping)
        return;
    if (!pdk_conn_hold(c->conn))
        return; /* local connections (Foxglove's) cannot hold: they are the server's own */
    c->budget_held = true; /* a parked frame's release must not end this hold */
    uint64_t until = tick + *in_tick / budget;
    if (until > c->held_until_tick)
        c->held_until_tick = until;
    if (!srv->hold_timer_on || c->held_until_tick < srv->hold_until_tick)
        arm_hold_timer(srv, c->held_until_tick);
}

/* ---- costly requests wait for a near tick -------------------------------- */

static void drain_parked(pdk_server *srv);

static void on_costly_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    srv->costly_timer_on = false;
    drain_parked(srv);
}

/* True when the costly request f of c is kept (parked, its connection held)
 * until a real-time session's next tick has run, because it would start
 * within one budget unit of that tick's deadline: a request's cost is
 * known only once it has run, and the budgets bound what each connection
 * spends a tick, not when, so without this the requests of several
 * connections whose holds end together run back to back across another
 * session's deadline and make that tick late by all of them (issue 28's
 * uncached preset flood: a p99 of 1.9 ms in some runs). The tick's turn
 * then lets one costly request through whatever the next deadline is, so
 * that sessions whose deadlines crowd the loop still leave the requests a
 * way on; a timer lets them on should that tick never come. */
static bool costly_waits(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    if (srv->stopping)
        return false;
    if (srv->costly_free) {
        srv->costly_free = false;
        return false;
    }
    uint64_t due = pdk_server_next_deadline_ns(srv);
    uint64_t now = uv_hrtime();
    if (due == 0 || now + srv->cfg.tick_spin_ns + PDK_SERVER_COSTLY_UNIT_NS < due)
        return false;
    /* Kept with the session it names, so that it waits for that session's
     * tick too should it be out on a step thread when the others run. */
    uint64_t sid = 0;
    if (!pdk_wire_frame_session_id(f, &sid))
        sid = 0;
    pdk_server_park(srv, c, f, sid);
    if (!srv->costly_timer_on) {
        uint64_t wait_ms = due > now ? (due - now + 999999) / 1000000 : 0;
        uv_timer_start(&srv->costly_timer, on_costly_timer, wait_ms + 1, 0);
        srv->costly_timer_on = true;
    }
    return true;
}

/* A frame of a greeted connection: the access check, then its handler. */
static void dispatch(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    pdk_conn *conn = c->conn;
    const pdk_server_request *r = pdk_server_request_for(f->body_case);
    if (!r) {
        char msg[128];
        snprintf(msg, sizeof(msg), "'%s' is not a request a client may send",
                 pdk_wire_frame_body_name(f->body_case));
        pdk_server_send_error(&srv->out, conn, f->request_id, PDK_ERR_PROTOCOL, msg);
        return;
    }
    if (!pdk_server_access_check(srv, c, r, f))
        return;
    if (r->costly && costly_waits(srv, c, f))
        return;
    pdk_request rq = {.c = c,
                      .f = f,
                      .out = &srv->out,
                      .cfg = &srv->cfg,
                      .table = &srv->table,
                      .sched = &srv->sched,
                      .stats = &srv->stats,
                      .auth = srv->access.auth,
                      .presets = srv->presets};
    const uint64_t t0 = r->costly ? pdk_thread_cpu_ns() : 0;
    if (r->handle)
        r->handle(&rq);
    else
        r->handle_server(srv, &rq);
    uint32_t units = r->units ? r->units(f) : 1;
    if (r->costly) {
        /* What it cost the loop, when more than its count: a spawn whose
         * preset was not in the cache, or that was refused after reading
         * it, costs several times one that was. The loop thread's CPU
         * time, so that neither a preemption nor a stopped process makes a
         * request look dear. */
        uint64_t took = (pdk_thread_cpu_ns() - t0) / PDK_SERVER_COSTLY_UNIT_NS;
        if (took > units && !r->counted)
            units = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
        spend_budget(srv, c, &c->costly_tick, &c->costly_in_tick, srv->cfg.max_spawns_per_tick,
                     units);
    }
    if (r->input)
        spend_budget(srv, c, &c->inputs_tick, &c->inputs_in_tick, srv->cfg.max_inputs_per_tick,
                     units);
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
    if (pdk_server_park_if_busy(srv, c, f))
        return;
    dispatch(srv, c, f);
}

/* ---- ticks on step threads (ADR 0031) ------------------------------------ */

/* The frames kept while sessions were on step threads, handled in order. */
static void drain_parked(pdk_server *srv)
{
    pdk_server_parked pass;
    if (!pdk_server_park_begin(srv, &pass))
        return;
    pdk_server_conn *c;
    Paddock__V1__Frame *f;
    while ((f = pdk_server_park_next(srv, &pass, &c)) != NULL) {
        dispatch(srv, c, f);
        pdk_wire_frame_free(f);
    }
    pdk_server_park_end(srv, &pass);
}

/* A session's tick came back: its replies and frames go out, then the
 * requests that waited for it run, then its next tick is decided. */
static void on_step_done(pdk_step_job *base, void *ud)
{
    pdk_server *srv = ud;
    pdk_server_step *job = (pdk_server_step *)base;
    uint64_t id = job->session_id;
    bool orphan = !pdk_server_step_back(srv, job);
    uint64_t t0 = uv_hrtime();
    pdk_server_outbox_deliver(srv, &job->out);
    pdk_server_slot *slot = orphan ? NULL : pdk_server_session_find(&srv->table, id);
    if (slot)
        slot->stepping.delivery_ns += uv_hrtime() - t0;
    if (orphan)
        pdk_server_step_free(job);
    drain_parked(srv);
    pdk_server_step_next(srv, id);
}

/* The real-time ticks' turn (pdk_server_on_timer), then the requests it
 * kept waiting (costly_waits), one of them whatever comes next. */
static void on_tick_timer(uv_poll_t *handle, int status, int events)
{
    pdk_server *srv = handle->data;
    pdk_server_on_timer(handle, status, events);
    srv->costly_free = true;
    drain_parked(srv);
    srv->costly_free = false;
}

static void on_hold_timer(uv_timer_t *t);

/* Arms the hold timer for the start of tick (uv_hrtime in 1/120 s). */
static void arm_hold_timer(pdk_server *srv, uint64_t tick)
{
    const uint64_t tick_ns = PDK_SERVER_NS_PER_S / PDK_TICK_HZ;
    uint64_t now_ns = uv_hrtime();
    uint64_t at_ns = tick * tick_ns;
    uint64_t wait_ms = at_ns > now_ns ? (at_ns - now_ns + 999999) / 1000000 : 0;
    srv->hold_until_tick = tick;
    uv_timer_start(&srv->hold_timer, on_hold_timer, wait_ms > 0 ? wait_ms : 1, 0);
    srv->hold_timer_on = true;
}

static void on_hold_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    srv->hold_timer_on = false;
    /* libuv's timers count whole milliseconds from the loop's cached
     * clock, so this may run a little before the tick begins: wait on, or
     * a held connection would get a second budget in the same tick. */
    if (uv_hrtime() / (PDK_SERVER_NS_PER_S / PDK_TICK_HZ) < srv->hold_until_tick) {
        arm_hold_timer(srv, srv->hold_until_tick);
        return;
    }
    /* A connection whose hold ends now resumes; its kept-back frames are
     * delivered now and may hold it again (and re-arm this timer). One
     * held longer (a batch over its budget) waits on, and the timer is
     * armed for the earliest of those. Closes only start here, so conns
     * is not shrunk under this loop. */
    uint64_t tick = srv->hold_until_tick;
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < srv->n_conns; i++) {
        pdk_server_conn *c = srv->conns[i];
        if (c->budget_held && c->held_until_tick > tick) {
            next = c->held_until_tick < next ? c->held_until_tick : next;
            continue;
        }
        c->budget_held = false;
        if (pdk_conn_is_held(c->conn))
            pdk_conn_resume(c->conn);
    }
    if (next != UINT64_MAX && (!srv->hold_timer_on || next < srv->hold_until_tick))
        arm_hold_timer(srv, next);
}

/* ---- the Hello deadline -------------------------------------------------- */

/* A connection holds one of max_connections slots from its accept; one that
 * never says Hello must not hold it for ever, so each gets hello_timeout_s
 * to do so. One timer serves them all, armed for the earliest deadline. */
static uint64_t hello_deadline_ms(const pdk_server *srv, const pdk_server_conn *c)
{
    return c->opened_ms + (uint64_t)(srv->cfg.hello_timeout_s * 1000.0 + 0.5);
}

static void on_hello_timer(uv_timer_t *t);

static void arm_hello_timer(pdk_server *srv)
{
    uint64_t now = uv_now(&srv->loop);
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < srv->n_conns; i++) {
        const pdk_server_conn *c = srv->conns[i];
        if (!c->greeted && !c->hello_late && hello_deadline_ms(srv, c) < next)
            next = hello_deadline_ms(srv, c);
    }
    if (next == UINT64_MAX || srv->stopping) {
        uv_timer_stop(&srv->hello_timer);
        srv->hello_timer_on = false;
        return;
    }
    uv_timer_start(&srv->hello_timer, on_hello_timer, next > now ? next - now : 0, 0);
    srv->hello_timer_on = true;
}

static void on_hello_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    uint64_t now = uv_now(&srv->loop);
    char msg[160];
    snprintf(msg, sizeof(msg),
             "no Hello within %g s of connecting (--hello-timeout): the first frame on a "
             "connection must be Hello with protocol_version 1",
             srv->cfg.hello_timeout_s);
    /* pdk_conn_fail only starts the close: on_close runs later, from the
     * loop, so the table stays as it is during this walk. */
    for (size_t i = 0; i < srv->n_conns; i++) {
        pdk_server_conn *c = srv->conns[i];
        if (!c->greeted && !c->hello_late && hello_deadline_ms(srv, c) <= now) {
            c->hello_late = true;
            pdk_conn_fail(c->conn, 0, PDK_ERR_TIMEOUT, msg);
        }
    }
    arm_hello_timer(srv);
}

/* ---- connections opened and closed ---------------------------------------- */

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
    c->opened_ms = uv_now(&srv->loop);
    c->upload.fd = -1;
    snprintf(c->holder, sizeof(c->holder), "connection %" PRIu64, c->id);
    PDK_ASSERT(srv->n_conns == 0 || srv->conns[srv->n_conns - 1]->id < c->id);
    srv->conns[srv->n_conns++] = c;
    pdk_conn_set_data(conn, c);
    if (!srv->hello_timer_on)
        arm_hello_timer(srv);
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
    if (slot->worker.n_forget == slot->worker.cap_forget) {
        size_t cap = slot->worker.cap_forget ? slot->worker.cap_forget * 2 : 4;
        uint64_t *p = realloc(slot->worker.forget, cap * sizeof(*p));
        if (!p)
            return; /* its subscriptions then end when they fail to send */
        slot->worker.forget = p;
        slot->worker.cap_forget = cap;
    }
    slot->worker.forget[slot->worker.n_forget++] = conn_id;
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
    for (size_t i = 0; i < srv->table.n; i++) {
        if (srv->table.items[i].worker.busy)
            forget_later(&srv->table.items[i], c->id);
        else
            pdk_session_forget_conn(srv->table.items[i].session, c->id);
    }
    pdk_server_stats_forget_conn(srv, c->id);
    pdk_server_controls_forget_conn(srv, c->id);
    pdk_server_steps_forget_conn(srv, c->id);
    pdk_server_recording_forget_conn(srv, c);
    pdk_conn_stats cs;
    pdk_conn_stats_get(conn, &cs);
    pdk_server_conn_stats_add(&srv->closed_conns, &cs);
    for (size_t i = 0; i < srv->n_conns; i++) {
        if (srv->conns[i] == c) {
            memmove(&srv->conns[i], &srv->conns[i + 1],
                    (srv->n_conns - i - 1) * sizeof(srv->conns[0]));
            srv->n_conns--;
            break;
        }
    }
    pdk_conn_set_data(conn, NULL);
    pdk_server_batch_free_all(c);
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
    pdk_error e = pdk_server_session_open(srv, "demo", "flat", NULL, PDK_TIMING_REALTIME, true, 0, err,
                                          sizeof(err), &slot);
    /* Nobody's: keys that reach every session, or match its name, reach it. */
    if (e == PDK_OK)
        pdk_server_access_own(srv, slot, "");
    pdk_vehicle_def def;
    char *json = NULL;
    if (e == PDK_OK)
        e = pdk_params_vehicle_load(srv->cfg.presets_dir, srv->cfg.demo_vehicle,
                                    PDK_SCRIPT_DEMO_OVERRIDES, &def, &json, err, sizeof(err));
    /* A step the car would refuse is an error at start, as in `paddockd
     * run`, rather than a command the attached script drops on its turn. */
    if (e == PDK_OK)
        e = pdk_script_check(&script, &def, srv->cfg.demo_vehicle, err, sizeof(err));
    if (e != PDK_OK) {
        fprintf(stderr, "paddockd: demo: %s\n", err);
        pdk_script_free(&script);
        free(json);
        return -1;
    }
    /* on_live prints its car's throttle and brake channels between ticks. */
    pdk_session_set_channels(slot->session, PDK_CHANNELS_EVERY_TICK);
    pdk_spawn_place place = pdk_run_place_from_script(&script);
    pdk_reply_to none = {0};
    pdk_session_queue_spawn(slot->session, &def, srv->cfg.demo_vehicle, PDK_SCRIPT_DEMO_OVERRIDES,
                            json, &place, none);
    free(json);
    /* The spawn applies at the next tick; the first vehicle gets the first id. */
    pdk_server_tick_session(slot);
    slot->sched.next_index++;
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
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, srv->demo_session);
    if (!slot || slot->worker.busy)
        return; /* its tick is on a step thread: the next line shows it */
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

/* Closes every handle left on the loop. Work still running on the pool (a
 * verify, an export) finishes, and its results are dropped, before uv_run
 * returns. */
static void close_all(void *ud)
{
    pdk_server *srv = ud;
    uv_walk(&srv->loop, on_walk_close, NULL);
}

void pdk_server_close_sessions(pdk_server *srv)
{
    /* A session a step thread is ticking is not the loop's to close. */
    PDK_ASSERT(!srv->step_pool_on);
    while (srv->table.n > 0)
        pdk_server_session_close(srv, &srv->table.items[srv->table.n - 1]);
}

/* Stops: every session closed and its recording flushed, every
 * connection and listener closed; uv_run then returns. why: "interrupted". */
static void stop_now(pdk_server *srv, const char *why)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    srv->draining = false;
    uv_timer_stop(&srv->drain_timer);
    pdk_server_agones_stop(srv);
    if (srv->live_on && isatty(STDOUT_FILENO))
        printf("\n");
    printf("paddockd: %s, stopping\n", why);
    fflush(stdout);
    /* Every tick on a step thread comes back (its replies sent) before the
     * sessions close. */
    if (srv->step_pool_on) {
        pdk_step_pool_stop(&srv->step_pool);
        srv->step_pool_on = false;
    }
    pdk_server_close_sessions(srv);
    pdk_server_recording_stop(srv);
    pdk_listener_close(srv->net);
    srv->net = NULL;
    pdk_listener_close(srv->local);
    srv->local = NULL;
    pdk_foxglove_close(srv->fox);
    if (srv->http) {
        /* The rest closes once libwebsockets has let go of the loop. */
        pdk_listener_close(srv->http);
        srv->http = NULL;
        return;
    }
    close_all(srv);
}

#define DRAIN_LOOK_MS 50

/* The drain looks every DRAIN_LOOK_MS whether the last session has gone,
 * until its time is up. */
static void on_drain_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    if (srv->table.n > 0 && uv_now(&srv->loop) < srv->drain_until_ms)
        return;
    if (srv->table.n > 0)
        printf("paddockd: the drain's %.3g s are over: ending %zu sessions\n",
               srv->cfg.drain_seconds, srv->table.n);
    stop_now(srv, "drained");
}

/* A SIGTERM with --drain-seconds: every connection is told, no session is
 * created from now on (pdk_server_session_room), and the server stops
 * when the last session has closed or the time is up, whichever comes
 * first. */
static void start_drain(pdk_server *srv)
{
    srv->draining = true;
    printf("paddockd: terminated, draining: %zu sessions end within %.3g s (SIGTERM or SIGINT "
           "again stops at once)\n",
           srv->table.n, srv->cfg.drain_seconds);
    fflush(stdout);
    Paddock__V1__ServerDraining d = PADDOCK__V1__SERVER_DRAINING__INIT;
    d.grace_s = srv->cfg.drain_seconds;
    d.reason = "SIGTERM";
    d.sessions = (uint32_t)srv->table.n;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_SERVER_DRAINING;
    f.server_draining = &d;
    for (size_t i = 0; i < srv->n_conns; i++)
        if (srv->conns[i]->greeted)
            pdk_server_send_frame(&srv->out, srv->conns[i]->conn, &f);
    uv_update_time(&srv->loop);
    srv->drain_until_ms = uv_now(&srv->loop) + (uint64_t)(srv->cfg.drain_seconds * 1000.0 + 0.5);
    uv_timer_start(&srv->drain_timer, on_drain_timer, 0, DRAIN_LOOK_MS);
}

/* SIGINT stops at once; SIGTERM drains first when --drain-seconds asks,
 * and a second signal during the drain stops at once. */
static void on_signal(uv_signal_t *sig, int signum)
{
    pdk_server *srv = sig->data;
    if (signum == SIGTERM && srv->cfg.drain_seconds > 0 && !srv->draining && !srv->stopping) {
        start_drain(srv);
        return;
    }
    stop_now(srv, signum == SIGINT ? "interrupted" : "terminated");
}

/* The HTTP and WebSocket listener beside the TCP one: the same callbacks,
 * so a WebSocket client is served exactly as a TCP client. */
static int start_http(pdk_server *srv, const pdk_net_callbacks *cb)
{
    char err[PDK_STORE_ERR_LEN];
    /* Foxglove's clients become connections of the server like any other
     * (foxglove.h), so they get the same callbacks and limits. Its protocol
     * has no Hello to carry a key, so with --auth it is not served at all:
     * its subprotocol is refused at the handshake. */
    pdk_ws_handler foxglove = {0};
    if (!srv->access.auth) {
        srv->fox = pdk_foxglove_create(&srv->loop, &srv->table, &srv->cfg.limits, cb, srv, err,
                                       sizeof(err));
        if (!srv->fox) {
            fprintf(stderr, "paddockd: cannot start the Foxglove server: %s\n", err);
            return -1;
        }
        foxglove = pdk_foxglove_handler(srv->fox);
    } else {
        fprintf(stderr, "paddockd: --auth: the Foxglove WebSocket server is off (its protocol "
                        "cannot carry a key)\n");
    }
    pdk_http_config hc = {
        .listen = srv->cfg.http_listen,
        .web_root = srv->cfg.web_root,
        .pages = pdk_server_pages,
        .n_pages = PDK_SERVER_PAGES,
        .pages_ud = srv,
        .handlers = srv->fox ? &foxglove : NULL,
        .n_handlers = srv->fox ? 1 : 0,
        .on_closed = close_all,
        .on_closed_ud = srv,
        /* The TCP listener's files: load_tls has checked them already. */
        .tls_cert_file = srv->tls ? srv->cfg.tls_cert : NULL,
        .tls_key_file = srv->tls ? srv->cfg.tls_key : NULL,
        .tls_client_ca_file = srv->tls ? srv->cfg.tls_client_ca : NULL,
        .tls_require_client_cert = srv->cfg.tls_require_client_cert,
    };
    if (pdk_http_listen(&srv->loop, &hc, &srv->cfg.limits, cb, srv, &srv->http, err,
                        sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd: cannot serve HTTP on %s: %s\n", srv->cfg.http_listen, err);
        return -1;
    }
    char host[128];
    snprintf(host, sizeof(host), "%s", srv->cfg.http_listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    printf("paddockd: %s on %s:%d (dashboard at /, WebSocket at %s, health at /healthz, "
           "metrics at /metrics)\n",
           srv->tls ? "https" : "http", host, pdk_listener_port(srv->http), PDK_WS_PADDOCK_PATH);
    fflush(stdout);
    return 0;
}

static void pool_warm_work(uv_work_t *req)
{
    (void)req;
}

static void pool_warm_done(uv_work_t *req, int status)
{
    (void)req;
    (void)status;
}

/* --rt-priority: the loop thread, which runs the ticks, at SCHED_FIFO.
 * A thread takes its creator's policy, so every other thread is started
 * first at the ordinary one: the step threads, the store's writer and the
 * Agones agent already are, and libuv starts its whole pool at its first
 * job, queued here. -1 after saying why. */
static int set_rt_priority(pdk_server *srv)
{
    int n = srv->cfg.rt_priority;
    if (uv_queue_work(&srv->loop, &srv->pool_warm, pool_warm_work, pool_warm_done) != 0) {
        fprintf(stderr, "paddockd: --rt-priority %d: cannot start libuv's pool first\n", n);
        return -1;
    }
    struct sched_param sp = {.sched_priority = n};
    int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (r != 0) {
        fprintf(stderr,
                "paddockd: --rt-priority %d: cannot run the loop thread at SCHED_FIFO (%s): give "
                "the service LimitRTPRIO=%d (or CAP_SYS_NICE)\n",
                n, strerror(r), n);
        return -1;
    }
    printf("paddockd: the loop thread runs the ticks at SCHED_FIFO priority %d; the other "
           "threads at the ordinary policy\n",
           n);
    fflush(stdout);
    return 0;
}

/* Sessions an earlier paddockd left running (killed, crashed) are marked
 * interrupted before any session of this one runs. */
static int mark_interrupted(pdk_server *srv)
{
    char err[PDK_STORE_ERR_LEN];
    uint64_t marked = 0;
    if (pdk_store_mark_interrupted(srv->store, &marked, err, sizeof(err)) != PDK_OK) {
        if (pdk_store_disk_full(srv->store, NULL, 0)) {
            /* The store keeps the marking and does it once space returns;
             * meanwhile recorded sessions are refused (pdk_server_disk_look). */
            fprintf(stderr,
                    "paddockd: the disk is full: sessions left running by an earlier paddockd "
                    "are marked interrupted once space returns (%s)\n",
                    err);
            return 0;
        }
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

/* Who may connect: with --auth, whoever holds a key, on any address; without
 * it, only this machine, each client the identity "local" (an admin), so a
 * listen other hosts could reach is refused before anything starts. */
static int load_auth(pdk_server *srv)
{
    const pdk_server_config *cfg = &srv->cfg;
    if (cfg->auth_path) {
        char err[512];
        if (pdk_auth_load(cfg->auth_path, &srv->access.auth, err, sizeof(err)) != PDK_OK) {
            fprintf(stderr, "paddockd: --auth %s\n", err);
            return -1;
        }
        fprintf(stderr,
                "paddockd: --auth %s: %zu key%s; every client must send one in Hello "
                "(docs/security.md)\n",
                cfg->auth_path, pdk_auth_count(srv->access.auth),
                pdk_auth_count(srv->access.auth) == 1 ? "" : "s");
        return 0;
    }
    const char *flags[2] = {"--listen", "--http"};
    const char *addrs[2] = {cfg->listen, cfg->http_listen};
    for (int i = 0; i < 2; i++) {
        if (addrs[i] && !pdk_auth_loopback(addrs[i])) {
            fprintf(stderr,
                    "paddockd: %s %s is not a loopback address: without --auth FILE paddockd "
                    "serves only clients on this machine (127.0.0.1, ::1); give it API keys "
                    "with --auth to listen on a network (docs/security.md)\n",
                    flags[i], addrs[i]);
            return -1;
        }
    }
    fprintf(stderr, "paddockd: no --auth: serving loopback clients only, each as the identity "
                    "'local' with the admin role (docs/security.md)\n");
    return 0;
}

/* TLS from the --tls-* files, loaded before anything starts so that a bad
 * file stops paddockd naming it. With --auth, a listener other hosts reach
 * without TLS carries the API keys in clear: allowed (a lab network may
 * be trusted), but said. */
static int load_tls(pdk_server *srv)
{
    const pdk_server_config *cfg = &srv->cfg;
    if (cfg->tls_cert || cfg->tls_key || cfg->tls_client_ca || cfg->tls_require_client_cert) {
        pdk_tls_config tc = {.cert_file = cfg->tls_cert,
                             .key_file = cfg->tls_key,
                             .client_ca_file = cfg->tls_client_ca,
                             .require_client_cert = cfg->tls_require_client_cert};
        char err[512];
        if (pdk_tls_create(&tc, &srv->tls, err, sizeof(err)) != PDK_OK) {
            fprintf(stderr, "paddockd: %s\n", err);
            return -1;
        }
        fprintf(stderr,
                "paddockd: TLS on %s%s%s with %s; client certificates: %s "
                "(docs/security.md)\n",
                cfg->listen, cfg->http_listen ? " and --http " : "",
                cfg->http_listen ? cfg->http_listen : "", cfg->tls_cert,
                !cfg->tls_client_ca            ? "not asked for"
                : cfg->tls_require_client_cert ? "required, verified against --tls-client-ca"
                                               : "verified when sent, not required");
    }
    if (!cfg->auth_path)
        return 0;
    if (!srv->tls && !pdk_auth_loopback(cfg->listen))
        fprintf(stderr,
                "paddockd: warning: --listen %s is not a loopback address and has no TLS: API "
                "keys travel in clear; give it --tls-cert and --tls-key (docs/security.md)\n",
                cfg->listen);
    if (!srv->tls && cfg->http_listen && !pdk_auth_loopback(cfg->http_listen))
        fprintf(stderr,
                "paddockd: warning: --http %s is not a loopback address and has no TLS: API "
                "keys travel in clear; give it --tls-cert and --tls-key (docs/security.md)\n",
                cfg->http_listen);
    return 0;
}

static void init_timer(pdk_server *srv, uv_timer_t *t)
{
    uv_timer_init(&srv->loop, t);
    t->data = srv;
}

/* Frees what pdk_server_start made, once the loop has no handles left (or
 * never ran), and returns rc. */
static int server_free(pdk_server *srv, int rc)
{
    if (uv_loop_close(&srv->loop) != 0)
        fprintf(stderr, "paddockd: the loop still had open handles at exit\n");
    if (srv->sched.timer_fd >= 0)
        close(srv->sched.timer_fd);
    pdk_foxglove_free(srv->fox);
    pdk_agones_free(srv->agones.agent);
    pdk_store_close(srv->store);
    pdk_preset_cache_free(srv->presets);
    for (size_t i = 0; i < srv->n_conns; i++) {
        pdk_server_batch_free_all(srv->conns[i]);
        free(srv->conns[i]);
    }
    free(srv->conns);
    free(srv->table.items);
    free(srv->stats.subs);
    free(srv->streams.items);
    free(srv->controls.items);
    free(srv->deferred.items);
    pdk_server_park_free(srv);
    uv_mutex_destroy(&srv->deferred.lock);
    pdk_buf_free(&srv->out);
    pdk_buf_free(&srv->frame_join);
    pdk_server_access_free(&srv->access);
    pdk_tls_destroy(srv->tls);
    free(srv);
    if (rc == 0)
        printf("paddockd: stopped cleanly\n");
    return rc;
}

/* A start that failed after the store opened: NULL, with everything freed. */
static pdk_server *start_failed(pdk_server *srv)
{
    server_free(srv, 1);
    return NULL;
}

pdk_server *pdk_server_start(const pdk_server_config *config)
{
    pdk_server *srv = calloc(1, sizeof(*srv));
    if (!srv)
        return NULL;
    srv->cfg = *config;
    if (load_auth(srv) != 0 || load_tls(srv) != 0) {
        pdk_server_access_free(&srv->access);
        free(srv);
        return NULL;
    }
    /* One budget for partial frames, whichever listener they arrive on. */
    srv->cfg.limits.partial_budget = &srv->partial;
    srv->sched.timer_fd = -1;
    char err[PDK_STORE_ERR_LEN];
    if (pdk_store_open(config->db_path, config->migrations_dir, &srv->store, err, sizeof(err)) !=
        PDK_OK) {
        fprintf(stderr, "paddockd: %s\n", err);
        pdk_server_access_free(&srv->access);
        pdk_tls_destroy(srv->tls);
        free(srv);
        return NULL;
    }
    /* NULL (no memory) only loses the cache: spawns then load each time. */
    srv->presets = pdk_preset_cache_new(PDK_SERVER_PRESET_CACHE_ENTRIES);
    uv_loop_init(&srv->loop);
    srv->deferred.loop_thread = uv_thread_self();
    uv_mutex_init(&srv->deferred.lock);
    if (srv->cfg.max_kept_bytes)
        pdk_store_set_kept_limit(srv->store, srv->cfg.max_kept_bytes);
    if (mark_interrupted(srv) != 0)
        return start_failed(srv);
    if (pdk_server_access_load(srv) != 0)
        return start_failed(srv);
    if (pdk_store_read_only(srv->store)) {
        char why[PDK_STORE_ERR_LEN];
        pdk_store_disk_full(srv->store, why, sizeof(why));
        fprintf(stderr,
                "paddockd: %s; serving read-only: recordings can be listed, replayed, verified "
                "and exported, recorded sessions are refused (no_record sessions run); free "
                "space and restart to record (docs/security.md)\n",
                why);
    } else {
        /* Queued now, run by the pool once the loop runs. */
        pdk_server_retain(srv);
    }
    /* Linux lets a timer fire up to the thread's timer slack (50 µs by
     * default) late so it can batch wake-ups; ticks want their deadline. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    srv->sched.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (srv->sched.timer_fd < 0) {
        fprintf(stderr, "paddockd: timerfd_create: %s\n", strerror(errno));
        return start_failed(srv);
    }
    uv_poll_init(&srv->loop, &srv->sched.timer_poll, srv->sched.timer_fd);
    srv->sched.timer_poll.data = srv;
    uv_poll_start(&srv->sched.timer_poll, UV_READABLE, on_tick_timer);
    uv_idle_init(&srv->loop, &srv->sched.fast_idle);
    srv->sched.fast_idle.data = srv;
    init_timer(srv, &srv->sched.writer_wait);
    init_timer(srv, &srv->sched.lease_timer);
    init_timer(srv, &srv->sched.disk_timer);
    uv_timer_start(&srv->sched.disk_timer, pdk_server_on_disk_timer, PDK_SERVER_DISK_LOOK_MS,
                   PDK_SERVER_DISK_LOOK_MS);
    pdk_server_disk_look(srv); /* a store opened read-only refuses recording from the start */
    init_timer(srv, &srv->stats.timer);
    srv->stats.stopping = &srv->stopping;
    init_timer(srv, &srv->streams.timer);
    init_timer(srv, &srv->hello_timer);
    init_timer(srv, &srv->hold_timer);
    init_timer(srv, &srv->costly_timer);
    init_timer(srv, &srv->drain_timer);
    uv_signal_init(&srv->loop, &srv->sig_int);
    uv_signal_init(&srv->loop, &srv->sig_term);
    srv->sig_int.data = srv->sig_term.data = srv;
    uv_signal_start(&srv->sig_int, on_signal, SIGINT);
    uv_signal_start(&srv->sig_term, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);

    pdk_net_callbacks cb = {
        .on_open = on_open, .on_frame = on_frame, .on_close = on_close, .on_eof = on_eof};
    if (pdk_tcp_listen_tls(&srv->loop, config->listen, &srv->cfg.limits, srv->tls, &cb, srv,
                           &srv->net, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd: cannot listen on %s: %s\n", config->listen, err);
        uv_walk(&srv->loop, on_walk_close, NULL);
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        return start_failed(srv);
    }
    srv->started_ms = uv_now(&srv->loop);
    char host[128];
    snprintf(host, sizeof(host), "%s", config->listen);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    printf("paddockd %s (build %s) listening on %s:%d, database %s (schema v%d)\n",
           PDK_SERVER_VERSION, PDK_BUILD_ID, host, pdk_listener_port(srv->net), config->db_path,
           pdk_store_schema_version(srv->store));
    fflush(stdout);
    if (config->http_listen && start_http(srv, &cb) != 0) {
        stop_now(srv, "terminated");
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        return start_failed(srv);
    }
    if (config->demo_script) {
        if (start_demo(srv) != 0) {
            stop_now(srv, "terminated");
            uv_run(&srv->loop, UV_RUN_DEFAULT);
            return start_failed(srv);
        }
        uv_timer_init(&srv->loop, &srv->live_timer);
        srv->live_timer.data = srv;
        uv_timer_start(&srv->live_timer, on_live, 100, isatty(STDOUT_FILENO) ? 100 : 1000);
        srv->live_on = true;
    }
    if (srv->cfg.step_threads > 0) {
        int sr = pdk_step_pool_start(&srv->step_pool, &srv->loop, srv->cfg.step_threads,
                                     srv->cfg.step_poll_ns, on_step_done, srv);
        if (sr == 0)
            srv->step_pool_on = true;
        else
            fprintf(stderr,
                    "paddockd: could not start %u step threads (%s): every tick runs on the "
                    "loop\n",
                    srv->cfg.step_threads, uv_strerror(sr));
    }
    if ((srv->cfg.agones && pdk_server_agones_start(srv) != 0) ||
        (srv->cfg.rt_priority > 0 && set_rt_priority(srv) != 0)) {
        stop_now(srv, "terminated");
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        return start_failed(srv);
    }
    pdk_server_arm_timer(srv);
    return srv;
}

uv_loop_t *pdk_server_loop(pdk_server *srv)
{
    return &srv->loop;
}

pdk_listener *pdk_server_local_listener(pdk_server *srv, char *err, size_t err_len)
{
    if (srv->stopping) {
        snprintf(err, err_len, "the server is stopping");
        return NULL;
    }
    pdk_net_callbacks cb = {
        .on_open = on_open, .on_frame = on_frame, .on_close = on_close, .on_eof = on_eof};
    if (!srv->local &&
        pdk_local_listen(&srv->cfg.limits, &cb, srv, &srv->local, err, err_len) != PDK_OK)
        return NULL;
    return srv->local;
}

void pdk_server_stop(pdk_server *srv)
{
    stop_now(srv, "terminated");
}

int pdk_server_finish(pdk_server *srv)
{
    int rc = 0;
    /* Everything queued is written; on a full disk the store tries once
     * more and then says what it gives up (store.h). */
    pdk_store_shutdown(srv->store);
    pdk_store_stats st;
    pdk_store_stats_get(srv->store, &st);
    if (st.failed > 0) {
        fprintf(stderr, "paddockd: %" PRIu64 " records could not be written to %s\n", st.failed,
                srv->cfg.db_path);
        rc = 1;
    }
    if (st.lost > 0) {
        fprintf(stderr,
                "paddockd: the disk holding %s is full: %" PRIu64
                " records kept in memory were not written (their sessions' ticks are logged "
                "above)\n",
                srv->cfg.db_path, st.lost);
        rc = 1;
    }
    return server_free(srv, rc);
}

int pdk_server_run(const pdk_server_config *config)
{
    pdk_server *srv = pdk_server_start(config);
    if (!srv)
        return 1;
    uv_run(&srv->loop, UV_RUN_DEFAULT);
    return pdk_server_finish(srv);
}
