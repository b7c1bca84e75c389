/* Issue 7 end to end: lockstep with its step lease, session control and the
 * stats stream; recordings verified, exported, imported, forked and cut to
 * CSV through the real CLI; replays that reproduce a live run's state; and
 * paddockd killed with SIGKILL at random moments, its database checked and
 * every interrupted session verified after each restart. The real paddockd
 * on loopback, the real paddock CLI and client library, real SQLite files. */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

#define CLI PDK_PADDOCK " --server %s "

static char out[1 << 16];
static char log_text[1 << 16];
static paddock_v1_Frame req, rep;

static void start_on(pdk_test_server *srv, const char *db)
{
    ck_assert_msg(pdk_test_server_start(srv, db, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
}

static int64_t sql_int(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static uint64_t create_session(pdk_client *c, paddock_v1_TimingMode timing, const char *name)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = timing;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.session_created.session.session_id;
}

static uint32_t spawn(pdk_client *c, uint64_t sid, double speed_mps)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    req.body.vehicle_spawn.speed_mps = speed_mps;
    req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.vehicle_spawned.vehicle_id;
}

static void fill_dbw(paddock_v1_Frame *f, uint64_t sid, uint32_t vid, double throttle, double steer)
{
    memset(f, 0, sizeof(*f));
    f->which_body = paddock_v1_Frame_dbw_command_tag;
    f->body.dbw_command.session_id = sid;
    f->body.dbw_command.vehicle_id = vid;
    f->body.dbw_command.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
    f->body.dbw_command.throttle.throttle_pct = throttle;
    f->body.dbw_command.which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
    f->body.dbw_command.steer.steer_wheel_deg = steer;
    f->body.dbw_command.gear = paddock_v1_Gear_GEAR_DRIVE;
}

/* A DbwCommand; returns its tick. */
static uint64_t dbw(pdk_client *c, uint64_t sid, uint32_t vid, double throttle, double steer,
                    pdk_client_push_fn on_push, void *ud)
{
    fill_dbw(&req, sid, vid, throttle, steer);
    ck_assert_msg(pdk_client_call(c, &req, &rep, on_push, ud) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.ok.tick;
}

/* A SessionControl of action tag with its value set by the caller through
 * req after this returns it. */
static paddock_v1_SessionControl *control_req(uint64_t sid, pb_size_t tag)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = tag;
    return &req.body.session_control;
}

static pdk_client_status control_call(pdk_client *c)
{
    pdk_client_status st = pdk_client_call(c, &req, &rep, NULL, NULL);
    if (st == PDK_CLIENT_OK)
        ck_assert_int_eq(rep.which_body, paddock_v1_Frame_session_control_reply_tag);
    return st;
}

static uint64_t take_lease(pdk_client *c, uint64_t sid, uint32_t deadline_ms,
                           paddock_v1_LapsePolicy policy)
{
    paddock_v1_SessionControl *m = control_req(sid, paddock_v1_SessionControl_take_step_lease_tag);
    m->action.take_step_lease.deadline_ms = deadline_ms;
    m->action.take_step_lease.on_lapse = policy;
    ck_assert_msg(control_call(c) == PDK_CLIENT_OK, "take_step_lease: %s", c->error);
    return rep.body.session_control_reply.tick;
}

static pdk_client_status step(pdk_client *c, uint64_t sid, uint32_t n)
{
    control_req(sid, paddock_v1_SessionControl_step_tag)->action.step = n;
    return control_call(c);
}

static void session_info(pdk_client *c, uint64_t sid, paddock_v1_SessionInfo *out_info)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    ck_assert_int_eq(pdk_client_call(c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    for (pb_size_t i = 0; i < rep.body.session_list_reply.sessions_count; i++) {
        if (rep.body.session_list_reply.sessions[i].session_id == sid) {
            *out_info = rep.body.session_list_reply.sessions[i];
            return;
        }
    }
    ck_abort_msg("session %" PRIu64 " is not listed", sid);
}

/* Subscribes c to sid's stats at rate_hz; returns the subscription id. */
static uint32_t stats_subscribe(pdk_client *c, uint64_t sid, uint32_t rate_hz)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_stats_subscribe_tag;
    req.body.stats_subscribe.session_id = sid;
    req.body.stats_subscribe.rate_hz = rate_hz;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_subscribed_tag);
    return rep.body.subscribed.subscription_id;
}

typedef bool (*stats_pred)(const paddock_v1_SessionStats *s, const void *arg);

/* Reads c's frames until a SessionStats of sub satisfies pred (copied to
 * *got); false after timeout_ms. */
static bool wait_stats(pdk_client *c, uint32_t sub, stats_pred pred, const void *arg,
                       int timeout_ms, paddock_v1_SessionStats *got)
{
    static paddock_v1_Frame f;
    double end = pdk_test_now_s() + timeout_ms / 1000.0;
    while (pdk_test_now_s() < end) {
        if (pdk_client_recv(c, &f, 50) != PDK_CLIENT_OK)
            continue;
        if (f.which_body != paddock_v1_Frame_session_stats_tag ||
            f.body.session_stats.subscription_id != sub)
            continue;
        *got = f.body.session_stats;
        if (pred(got, arg))
            return true;
    }
    return false;
}

static bool is_paused(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)arg;
    return s->paused;
}

static bool is_running(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)arg;
    return !s->paused;
}

static bool lease_held(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)arg;
    return s->step_lease_conn != 0;
}

static bool runs_realtime(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)arg;
    return s->timing == paddock_v1_TimingMode_TIMING_MODE_REALTIME && !s->paused;
}

/* ---- lockstep ---------------------------------------------------------------- */

/* A lockstep session ticks only on its stepper's steps. The stepper closing
 * its socket with a large Step owed pauses it at once, the reason naming who,
 * why and the tick in stats and SessionInfo; a new stepper takes the lease
 * and goes on. A lease left without a step lapses and pauses the session too,
 * and the old stepper's next step is refused; LAPSE_REALTIME falls back to
 * real time instead. Two lockstep sessions advance independently, and a step
 * owed when the session pauses or closes is answered with an error. */
START_TEST(lockstep_lease)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a, b, watcher;
    pdk_test_connect_ok(&a, &srv, "rig-a", 10000);
    pdk_test_connect_ok(&b, &srv, "rig-b", 10000);
    pdk_test_connect_ok(&watcher, &srv, "watcher", 10000);

    uint64_t l1 = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP, "lock-1");
    /* A lockstep session nobody steps applies inputs at once. */
    uint32_t v1 = spawn(&a, l1, 5.0);
    ck_assert_uint_gt(v1, 0);
    ck_assert_uint_eq(dbw(&a, l1, v1, 30, 0, NULL, NULL), 0);
    pdk_test_sleep_ms(100);
    paddock_v1_SessionInfo info;
    session_info(&a, l1, &info);
    ck_assert_uint_eq(info.tick, 0);
    ck_assert_int_eq(info.timing, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP);

    /* Steps need the lease. */
    ck_assert_int_eq(step(&a, l1, 5), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_NOT_FOUND);
    ck_assert_msg(strstr(a.error, "take_step_lease") != NULL, "%s", a.error);
    paddock_v1_SessionControl *m = control_req(l1, paddock_v1_SessionControl_take_step_lease_tag);
    m->action.take_step_lease.deadline_ms = 5;
    ck_assert_int_eq(control_call(&a), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);

    take_lease(&a, l1, 2000, paddock_v1_LapsePolicy_LAPSE_PAUSE);
    ck_assert_int_eq(step(&a, l1, 10), PDK_CLIENT_OK);
    ck_assert_uint_eq(rep.body.session_control_reply.tick, 10);
    m = control_req(l1, paddock_v1_SessionControl_run_to_tick_tag);
    m->action.run_to_tick = 25;
    ck_assert_int_eq(control_call(&a), PDK_CLIENT_OK);
    ck_assert_uint_eq(rep.body.session_control_reply.tick, 25);

    /* A second client is refused, naming the holder. */
    m = control_req(l1, paddock_v1_SessionControl_take_step_lease_tag);
    ck_assert_int_eq(control_call(&b), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(b.server_code, paddock_v1_ErrorCode_BUSY);
    ck_assert_msg(strstr(b.error, "(rig-a)") != NULL, "%s", b.error);
    ck_assert_int_eq(step(&b, l1, 1), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(b.server_code, paddock_v1_ErrorCode_BUSY);

    /* The stepper closes its socket while a large step is owed. */
    uint32_t sub = stats_subscribe(&watcher, l1, 20);
    control_req(l1, paddock_v1_SessionControl_step_tag)->action.step = 400000;
    ck_assert_int_eq(pdk_client_send(&a, &req), PDK_CLIENT_OK);
    pdk_test_sleep_ms(150);
    pdk_client_close(&a);
    double closed_at = pdk_test_now_s();
    paddock_v1_SessionStats st;
    ck_assert_msg(wait_stats(&watcher, sub, is_paused, NULL, 1000, &st),
                  "the session did not pause within the lease's 2000 ms deadline");
    ck_assert_double_lt(pdk_test_now_s() - closed_at, 2.0);
    ck_assert_msg(strstr(st.pause_reason, "step lease of connection") &&
                      strstr(st.pause_reason, "(rig-a)") &&
                      strstr(st.pause_reason, "disconnected at tick"),
                  "pause reason: %s", st.pause_reason);
    ck_assert_uint_gt(st.tick, 25);
    ck_assert_uint_lt(st.tick, 25 + 400000);
    ck_assert_uint_eq(st.step_lease_conn, 0);
    uint64_t paused_tick = st.tick;
    session_info(&b, l1, &info);
    ck_assert(info.paused);
    ck_assert_str_eq(info.pause_reason, st.pause_reason);
    pdk_test_sleep_ms(200);
    session_info(&b, l1, &info);
    ck_assert_uint_eq(info.tick, paused_tick); /* the owed steps were dropped */

    /* A new stepper takes the lease; its first step resumes the session. */
    take_lease(&b, l1, 300, paddock_v1_LapsePolicy_LAPSE_PAUSE);
    ck_assert_int_eq(step(&b, l1, 20), PDK_CLIENT_OK);
    double last_step = pdk_test_now_s();
    ck_assert_uint_eq(rep.body.session_control_reply.tick, paused_tick + 20);
    ck_assert(!rep.body.session_control_reply.session.paused);
    ck_assert_msg(wait_stats(&watcher, sub, is_running, NULL, 1000, &st), "still paused");

    /* A lapse without a disconnect: no step for longer than 300 ms. */
    ck_assert_msg(wait_stats(&watcher, sub, is_paused, NULL, 2000, &st), "no lapse");
    double lapse_s = pdk_test_now_s() - last_step;
    ck_assert_msg(lapse_s > 0.25, "lapsed after %.3f s of a 300 ms lease", lapse_s);
    ck_assert_msg(strstr(st.pause_reason, "(rig-b) lapsed after 300 ms without a step at tick"),
                  "%s", st.pause_reason);
    /* The old stepper's next step is answered with an error at once. */
    ck_assert_int_eq(step(&b, l1, 5), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(b.server_code, paddock_v1_ErrorCode_NOT_FOUND);
    ck_assert_msg(strstr(b.error, "lapsed") != NULL, "%s", b.error);

    /* LAPSE_REALTIME: the session falls back to real time and says so. */
    take_lease(&b, l1, 200, paddock_v1_LapsePolicy_LAPSE_REALTIME);
    ck_assert_int_eq(step(&b, l1, 1), PDK_CLIENT_OK);
    ck_assert_msg(wait_stats(&watcher, sub, runs_realtime, NULL, 2000, &st), "no fallback");
    ck_assert_msg(strstr(st.timing_reason, "lapsed") && strstr(st.timing_reason, "real time"), "%s",
                  st.timing_reason);
    uint64_t t0 = st.tick;
    pdk_test_sleep_ms(500);
    session_info(&b, l1, &info);
    ck_assert_uint_ge(info.tick, t0 + 30);
    ck_assert_int_eq(info.timing, paddock_v1_TimingMode_TIMING_MODE_REALTIME);
    ck_assert_msg(strstr(info.timing_reason, "LAPSE_REALTIME") != NULL, "%s", info.timing_reason);

    /* Two lockstep sessions, one stepper each, advance independently. */
    static pdk_client c;
    pdk_test_connect_ok(&c, &srv, "rig-c", 10000);
    uint64_t l2 = create_session(&b, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP, "lock-2");
    uint64_t l3 = create_session(&c, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP, "lock-3");
    spawn(&b, l2, 10.0);
    spawn(&c, l3, 10.0);
    take_lease(&b, l2, 5000, paddock_v1_LapsePolicy_LAPSE_PAUSE);
    take_lease(&c, l3, 5000, paddock_v1_LapsePolicy_LAPSE_PAUSE);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(step(&b, l2, 6), PDK_CLIENT_OK);
        ck_assert_int_eq(step(&c, l3, 10), PDK_CLIENT_OK);
    }
    pdk_test_sleep_ms(200);
    session_info(&b, l2, &info);
    ck_assert_uint_eq(info.tick, 30);
    session_info(&c, l3, &info);
    ck_assert_uint_eq(info.tick, 50);

    /* A step owed when someone pauses the session is answered at once. */
    control_req(l2, paddock_v1_SessionControl_step_tag)->action.step = 400000;
    ck_assert_int_eq(pdk_client_send(&b, &req), PDK_CLIENT_OK);
    uint64_t owed_id = req.request_id;
    pdk_test_sleep_ms(100);
    control_req(l2, paddock_v1_SessionControl_pause_tag)->action.pause = true;
    ck_assert_int_eq(control_call(&c), PDK_CLIENT_OK);
    static paddock_v1_Frame f;
    double until = pdk_test_now_s() + 2.0;
    bool answered = false;
    while (!answered && pdk_test_now_s() < until) {
        if (pdk_client_recv(&b, &f, 100) == PDK_CLIENT_OK && f.request_id == owed_id) {
            ck_assert_int_eq(f.which_body, paddock_v1_Frame_error_tag);
            ck_assert_int_eq(f.body.error.code, paddock_v1_ErrorCode_CLOSED);
            ck_assert_msg(strstr(f.body.error.message, "paused by connection") != NULL, "%s",
                          f.body.error.message);
            answered = true;
        }
    }
    ck_assert_msg(answered, "the owed step was not answered when the session paused");
    /* ... and when the session closes. */
    ck_assert_int_eq(step(&b, l2, 1), PDK_CLIENT_OK); /* paused: steps still go */
    control_req(l2, paddock_v1_SessionControl_step_tag)->action.step = 400000;
    ck_assert_int_eq(pdk_client_send(&b, &req), PDK_CLIENT_OK);
    owed_id = req.request_id;
    pdk_test_sleep_ms(100);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = l2;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    answered = false;
    until = pdk_test_now_s() + 2.0;
    while (!answered && pdk_test_now_s() < until) {
        if (pdk_client_recv(&b, &f, 100) == PDK_CLIENT_OK && f.request_id == owed_id) {
            ck_assert_int_eq(f.which_body, paddock_v1_Frame_error_tag);
            ck_assert_msg(strstr(f.body.error.message, "closed") != NULL, "%s",
                          f.body.error.message);
            answered = true;
        }
    }
    ck_assert_msg(answered, "the owed step was not answered when the session closed");

    /* The real CLI as the stepper, killed with SIGKILL mid-step. */
    memset(&req, 0, sizeof(req));
    control_req(l3, paddock_v1_SessionControl_release_step_lease_tag)->action.release_step_lease =
        true;
    ck_assert_int_eq(control_call(&c), PDK_CLIENT_OK);
    uint32_t sub3 = stats_subscribe(&watcher, l3, 20);
    char pidfile[300];
    snprintf(pidfile, sizeof(pidfile), "%s/stepper.pid", srv.dir);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCK " --server %s stepper --session %" PRIu64
                                             " --ticks 100000000 --chunk 400000 --deadline-ms "
                                             "1000 >/dev/null 2>&1 & echo $! > %s",
                                 srv.addr, l3, pidfile),
                     0);
    ck_assert_msg(wait_stats(&watcher, sub3, lease_held, NULL, 5000, &st), "no stepper");
    pdk_test_sleep_ms(200);
    FILE *pf = fopen(pidfile, "r");
    ck_assert_ptr_nonnull(pf);
    int pid = 0;
    ck_assert_int_eq(fscanf(pf, "%d", &pid), 1);
    fclose(pf);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    double killed_at = pdk_test_now_s();
    ck_assert_msg(wait_stats(&watcher, sub3, is_paused, NULL, 2000, &st),
                  "the session did not pause when its stepper was killed");
    ck_assert_double_lt(pdk_test_now_s() - killed_at, 1.0);
    ck_assert_msg(strstr(st.pause_reason, "(paddock-cli") &&
                      strstr(st.pause_reason, "disconnected at tick"),
                  "%s", st.pause_reason);
    /* Unsubscribe ends a stats stream. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_unsubscribe_tag;
    req.body.unsubscribe.subscription_id = sub3;
    ck_assert_int_eq(pdk_client_call(&watcher, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    /* The CLI shows the reason as well. */
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "stats --session %" PRIu64 " --count 1", srv.addr, l3),
        0);
    ck_assert_msg(strstr(out, "paused") && strstr(out, "disconnected at tick"), "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "sessions", srv.addr), 0);
    ck_assert_msg(strstr(out, "disconnected at tick") != NULL, "%s", out);
    /* And a new CLI stepper goes on from there. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "stepper --session %" PRIu64 " --ticks 120 --chunk 10 "
                                     "2>/dev/null",
                                 srv.addr, l3),
                     0);
    ck_assert_uint_eq(strtoull(out, NULL, 10), st.tick + 120);

    pdk_client_close(&b);
    pdk_client_close(&c);
    pdk_client_close(&watcher);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* Pause, resume, step and reseed of a real-time session through the CLI;
 * inputs to a paused session apply at once; control errors are named. */
START_TEST(session_control)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "ctl", 10000);
    uint64_t sid = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_REALTIME, "ctl");
    uint32_t vid = spawn(&a, sid, 0.0);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " pause 2>/dev/null", srv.addr, sid),
        0);
    uint64_t paused = strtoull(out, NULL, 10);
    pdk_test_sleep_ms(200);
    paddock_v1_SessionInfo info;
    session_info(&a, sid, &info);
    ck_assert(info.paused);
    ck_assert_uint_eq(info.tick, paused);
    ck_assert_msg(strstr(info.pause_reason, "paused by connection") != NULL, "%s",
                  info.pause_reason);
    /* An input to the paused session applies now, at the paused tick. */
    ck_assert_uint_eq(dbw(&a, sid, vid, 40, 0, NULL, NULL), paused);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "control --session %" PRIu64 " step 30 2>/dev/null", srv.addr,
                                 sid),
                     0);
    ck_assert_uint_eq(strtoull(out, NULL, 10), paused + 30);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "control %" PRIu64 " run-to %" PRIu64 " 2>/dev/null", srv.addr,
                                 sid, paused + 50),
                     0);
    ck_assert_uint_eq(strtoull(out, NULL, 10), paused + 50);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " reseed 77 2>/dev/null",
                                 srv.addr, sid),
                     0);
    ck_assert_uint_eq(strtoull(out, NULL, 10), paused + 50);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " seek 3", srv.addr, sid),
                     1);
    ck_assert_msg(strstr(out, "INVALID_ARGUMENT") && strstr(out, "not a replay"), "%s", out);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " run-to 3", srv.addr, sid), 1);
    ck_assert_msg(strstr(out, "OUT_OF_RANGE") != NULL, "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " fly", srv.addr, sid),
                     2);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " resume", srv.addr, sid),
                     0);
    pdk_test_sleep_ms(300);
    session_info(&a, sid, &info);
    ck_assert(!info.paused);
    ck_assert_uint_ge(info.tick, paused + 50 + 20);
    /* Timing switches re-base the schedule: no burst of catch-up ticks. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "control %" PRIu64 " timing lockstep 2>/dev/null", srv.addr,
                                 sid),
                     0);
    uint64_t locked = strtoull(out, NULL, 10);
    pdk_test_sleep_ms(300);
    session_info(&a, sid, &info);
    ck_assert_uint_eq(info.tick, locked);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "control %" PRIu64 " timing realtime", srv.addr, sid), 0);
    pdk_test_sleep_ms(250);
    session_info(&a, sid, &info);
    ck_assert_uint_le(info.tick, locked + 45);
    ck_assert_uint_eq(info.skipped_ticks, 0);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* ---- recordings through the CLI ------------------------------------------------ */

/* A minimal JSON syntax check: true when text is one JSON value. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *json_string(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p && *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && *++p == '\0')
            return NULL;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_value(const char *p)
{
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = json_string(json_ws(p));
                if (!p || *(p = json_ws(p)) != ':')
                    return NULL;
                p++;
            }
            p = json_value(p);
            if (!p)
                return NULL;
            p = json_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return json_string(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    char *end;
    strtod(p, &end);
    return end == p ? NULL : end;
}

static bool json_ok(const char *text)
{
    const char *end = json_value(text);
    return end && *json_ws(end) == '\0';
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

typedef struct speed_log {
    uint32_t sub;
    uint64_t ticks[1024];
    double speed[1024];
    size_t n;
} speed_log;

static void log_speed(const paddock_v1_Frame *f, void *ud)
{
    speed_log *l = ud;
    if (f->which_body != paddock_v1_Frame_state_batch_tag ||
        f->body.state_batch.subscription_id != l->sub || f->body.state_batch.vehicles_count == 0 ||
        l->n == 1024)
        return;
    l->ticks[l->n] = f->body.state_batch.tick;
    l->speed[l->n] = f->body.state_batch.vehicles[0].speed_mps;
    l->n++;
}

static void drain(pdk_client *c, int ms, pdk_client_push_fn fn, void *ud)
{
    static paddock_v1_Frame f;
    double end = pdk_test_now_s() + ms / 1000.0;
    while (pdk_test_now_s() < end)
        if (pdk_client_recv(c, &f, 20) == PDK_CLIENT_OK && f.request_id == 0)
            fn(&f, ud);
}

/* A session recorded with a car driven by DBW commands, closed, verified,
 * exported, imported (a new id, the same hashes), forked, the fork driven
 * and verified, cut to CSV (header, rows, values as the live state gave
 * them) and described as JSON, all through the real CLI. */
START_TEST(recordings_round_trip)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "driver", 10000);
    uint64_t sid = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_REALTIME, "recorded");
    static speed_log live;
    memset(&live, 0, sizeof(live));
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 120;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    live.sub = rep.body.subscribed.subscription_id;
    uint32_t vid = spawn(&a, sid, 0.0);
    dbw(&a, sid, vid, 60, 0, log_speed, &live);
    drain(&a, 500, log_speed, &live);
    dbw(&a, sid, vid, 30, 25, log_speed, &live);
    drain(&a, 500, log_speed, &live);
    ck_assert_uint_gt(live.n, 40);
    pdk_client_close(&a);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);

    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, sid) == 0, "%s",
                  out);
    ck_assert_msg(strstr(out, "match:            yes") && strstr(out, "same_build:       yes"),
                  "%s", out);
    char exported[400];
    snprintf(exported, sizeof(exported), "%s/export.db", srv.dir);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "export %" PRIu64 " --out %s", srv.addr, sid,
                              exported) == 0,
                  "%s", out);
    struct stat stt;
    ck_assert_int_eq(stat(exported, &stt), 0);
    ck_assert_int_gt(stt.st_size, 4096);
    char sql[400];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM state_hashes WHERE session_id=%" PRIu64, sid);
    int64_t hashes = sql_int(exported, sql);
    ck_assert_int_gt(hashes, 100);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "export %" PRIu64 " --out %s", srv.addr, sid, exported),
        1); /* it exists */

    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "import %s 2>/dev/null", srv.addr, exported) ==
                      0,
                  "%s", out);
    uint64_t imported = strtoull(out, NULL, 10);
    ck_assert_uint_ne(imported, sid);
    ck_assert_int_gt(imported, 0);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, imported) == 0,
                  "%s", out);
    char checked[64];
    snprintf(checked, sizeof(checked), "hashes_checked:   %" PRId64, hashes);
    ck_assert_msg(strstr(out, checked) != NULL, "%s (%s)", out, checked);
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM state_hashes a JOIN state_hashes b ON a.tick=b.tick AND "
             "a.hash=b.hash WHERE a.session_id=%" PRIu64 " AND b.session_id=%" PRIu64,
             sid, imported);
    ck_assert_int_eq(sql_int(srv.db, sql), hashes);

    /* Uploads out of order are refused and dropped; a file that is not an
     * export is refused when it is complete. */
    pdk_test_connect_ok(&a, &srv, "uploader", 10000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_import_chunk_tag;
    memcpy(req.body.import_chunk.data.bytes, "garbage", 7);
    req.body.import_chunk.data.size = 7;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_ok_tag);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_import_chunk_tag;
    req.body.import_chunk.offset = 100;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_INVALID_ARGUMENT);
    ck_assert_msg(strstr(a.error, "where 7 was next") != NULL, "%s", a.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_import_chunk_tag;
    memcpy(req.body.import_chunk.data.bytes, "not a database", 14);
    req.body.import_chunk.data.size = 14;
    req.body.import_chunk.last = true;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_PARSE);
    /* It names the upload, never the server's temporary file. */
    ck_assert_msg(strstr(a.error, "the uploaded file") != NULL, "%s", a.error);
    ck_assert_msg(strchr(a.error, '/') == NULL, "%s", a.error);
    pdk_client_close(&a);

    /* A fork at tick 60, driven on, closed and verified on its own. */
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              CLI "fork %" PRIu64 " --tick 60 --name forked 2>/dev/null", srv.addr,
                              sid) == 0,
                  "%s", out);
    uint64_t fork_id = strtoull(out, NULL, 10);
    ck_assert_int_gt(fork_id, imported);
    pdk_test_connect_ok(&a, &srv, "fork-driver", 10000);
    paddock_v1_SessionInfo info;
    session_info(&a, fork_id, &info);
    ck_assert_uint_ge(info.tick, 60);
    ck_assert_uint_eq(info.vehicle_count, 1);
    dbw(&a, fork_id, vid, 0, -40, NULL, NULL);
    pdk_test_sleep_ms(300);
    pdk_client_close(&a);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, fork_id), 0);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, fork_id) == 0,
                  "%s", out);
    snprintf(sql, sizeof(sql),
             "SELECT parent_session_id * 1000000 + parent_tick FROM sessions WHERE "
             "session_id=%" PRIu64,
             fork_id);
    ck_assert_int_eq(sql_int(srv.db, sql), (int64_t)sid * 1000000 + 60);

    /* CSV of ticks 100..110: a header, eleven rows, the live speeds. */
    char csv[400];
    snprintf(csv, sizeof(csv), "%s/cut.csv", srv.dir);
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              CLI "csv %" PRIu64 " --from 100 --to 110 --channels Speed,YawRate "
                                  "--out %s",
                              srv.addr, sid, csv) == 0,
                  "%s", out);
    char *text = read_file(csv);
    ck_assert_msg(strncmp(text, "tick,time_s,vehicle,Speed,YawRate\n", 34) == 0, "%s", text);
    int rows = 0;
    int matched = 0;
    for (char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        unsigned long long tick = 0;
        unsigned v = 0;
        double t = 0, speed = 0, yaw_rate = 0;
        ck_assert_int_eq(sscanf(line, "%llu,%lf,%u,%lf,%lf", &tick, &t, &v, &speed, &yaw_rate), 5);
        ck_assert_uint_eq(tick, 100 + (unsigned)rows);
        ck_assert_uint_eq(v, vid);
        ck_assert_double_eq_tol(t, tick / 120.0, 1e-9);
        for (size_t i = 0; i < live.n; i++) {
            if (live.ticks[i] == tick) {
                ck_assert_double_eq_tol(speed, live.speed[i], 1e-9);
                matched++;
            }
        }
        rows++;
        if (!strchr(line, '\n'))
            break;
    }
    ck_assert_int_eq(rows, 11);
    ck_assert_int_gt(matched, 5);
    free(text);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "csv %" PRIu64 " --channels NoSuch", srv.addr, sid), 1);
    ck_assert_msg(strstr(out, "UNKNOWN_KEY") && strstr(out, "NoSuch"), "%s", out);

    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "meta %" PRIu64 " 2>/dev/null", srv.addr, sid), 0);
    ck_assert_msg(json_ok(out), "not JSON: %s", out);
    char id_key[64];
    snprintf(id_key, sizeof(id_key), "\"session_id\":%" PRIu64, sid);
    ck_assert_msg(strstr(out, id_key) != NULL, "%s", out);

    /* The offline verify prints the same. */
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCKD " verify --db %s --migrations %s/migrations %" PRIu64,
                                 srv.db, PDK_SOURCE_DIR, imported),
                     0);
    ck_assert_msg(strstr(out, "match:            yes") && strstr(out, checked), "%s", out);
}
END_TEST

/* ---- replay ----------------------------------------------------------------------- */

#define MAX_LIVE 512

typedef struct frames {
    uint32_t sub;
    size_t n;
    uint64_t tick[MAX_LIVE];
    paddock_v1_VehicleState v[MAX_LIVE];
} frames;

static void keep_frame(const paddock_v1_Frame *f, void *ud)
{
    frames *fr = ud;
    if (f->which_body != paddock_v1_Frame_state_batch_tag ||
        f->body.state_batch.subscription_id != fr->sub || f->body.state_batch.vehicles_count != 1 ||
        fr->n == MAX_LIVE)
        return;
    fr->tick[fr->n] = f->body.state_batch.tick;
    fr->v[fr->n] = f->body.state_batch.vehicles[0];
    fr->n++;
}

/* The StateField parts, field by field (each wheel, the instruments, the
 * steering feel); the batch's wall_time_ns, the one field a replay sends
 * differently, is not in a VehicleState. */
static bool same_parts(const paddock_v1_VehicleState *a, const paddock_v1_VehicleState *b)
{
    if (a->wheels_count != b->wheels_count || a->has_instruments != b->has_instruments ||
        a->steering_wheel_torque_nm != b->steering_wheel_torque_nm)
        return false;
    for (pb_size_t w = 0; w < a->wheels_count; w++) {
        const paddock_v1_WheelState *p = &a->wheels[w], *q = &b->wheels[w];
        if (p->spin_angle_rad != q->spin_angle_rad || p->spin_rate_radps != q->spin_rate_radps ||
            p->steer_rad != q->steer_rad || p->center_x_m != q->center_x_m ||
            p->center_y_m != q->center_y_m || p->center_z_m != q->center_z_m ||
            p->in_contact != q->in_contact || p->slip_ratio != q->slip_ratio ||
            p->slip_angle_rad != q->slip_angle_rad || p->surface != q->surface ||
            p->condition != q->condition || p->camber_rad != q->camber_rad ||
            p->load_n != q->load_n || p->travel_m != q->travel_m ||
            p->surface_temp_c != q->surface_temp_c || p->wear != q->wear)
            return false;
    }
    const paddock_v1_Instruments *i = &a->instruments, *j = &b->instruments;
    return i->engine_rpm == j->engine_rpm && i->gear == j->gear &&
           i->gear_number == j->gear_number && i->throttle_pct == j->throttle_pct &&
           i->brake_bar == j->brake_bar && i->speed_mps == j->speed_mps &&
           i->steer_wheel_deg == j->steer_wheel_deg && i->fuel_level_l == j->fuel_level_l;
}

static bool same_state(const paddock_v1_VehicleState *a, const paddock_v1_VehicleState *b)
{
    return same_parts(a, b) && a->vehicle_id == b->vehicle_id && a->x_m == b->x_m &&
           a->y_m == b->y_m && a->z_m == b->z_m && a->yaw_rad == b->yaw_rad &&
           a->vx_mps == b->vx_mps && a->vy_mps == b->vy_mps &&
           a->yaw_rate_radps == b->yaw_rate_radps && a->steer_angle_rad == b->steer_angle_rad &&
           a->speed_mps == b->speed_mps && a->ax_mps2 == b->ax_mps2 && a->ay_mps2 == b->ay_mps2 &&
           a->pitch_rad == b->pitch_rad && a->roll_rad == b->roll_rad && a->vz_mps == b->vz_mps &&
           a->roll_rate_radps == b->roll_rate_radps && a->pitch_rate_radps == b->pitch_rate_radps;
}

/* Every replayed frame whose tick the live run also sent must be the same,
 * value for value. Returns how many were compared. */
static int compare_frames(const frames *live, const frames *replayed)
{
    int compared = 0;
    for (size_t i = 0; i < replayed->n; i++) {
        for (size_t k = 0; k < live->n; k++) {
            if (live->tick[k] != replayed->tick[i])
                continue;
            ck_assert_msg(same_state(&live->v[k], &replayed->v[i]),
                          "tick %" PRIu64 ": replay x %.17g speed %.17g, live x %.17g speed %.17g",
                          replayed->tick[i], replayed->v[i].x_m, replayed->v[i].speed_mps,
                          live->v[k].x_m, live->v[k].speed_mps);
            compared++;
        }
    }
    return compared;
}

/* Subscribes c to session sid's state at rate with every StateField. */
static uint32_t subscribe_state(pdk_client *c, uint64_t sid, uint32_t rate)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = rate;
    req.body.subscribe.fields = 7;
    ck_assert_int_eq(pdk_client_call(c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    return rep.body.subscribed.subscription_id;
}

static bool at_end(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)arg;
    return s->paused && strstr(s->pause_reason, "last tick") != NULL;
}

/* A replay sends the StateBatch values a live subscription got, at the same
 * ticks; seek and step land on recorded states; its speed paces it; it
 * refuses commands and pauses at the end, saying so. */
START_TEST(replay_reproduces_live_state)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a, r;
    pdk_test_connect_ok(&a, &srv, "live", 10000);
    uint64_t sid = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_REALTIME, "to-replay");
    static frames live, replayed;
    memset(&live, 0, sizeof(live));
    live.sub = subscribe_state(&a, sid, 30);
    uint32_t vid = spawn(&a, sid, 3.0);
    dbw(&a, sid, vid, 50, 0, keep_frame, &live);
    drain(&a, 400, keep_frame, &live);
    dbw(&a, sid, vid, 20, 60, keep_frame, &live);
    drain(&a, 600, keep_frame, &live);
    dbw(&a, sid, vid, 0, -30, keep_frame, &live);
    drain(&a, 400, keep_frame, &live);
    ck_assert_uint_gt(live.n, 30);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, keep_frame, &live), PDK_CLIENT_OK);
    uint64_t last = rep.body.ok.tick;

    /* Open it paused, subscribe, then play at four times real time. */
    pdk_test_connect_ok(&r, &srv, "replayer", 10000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    req.body.replay_open.paused = true;
    ck_assert_msg(pdk_client_call(&r, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", r.error);
    const paddock_v1_SessionInfo opened = rep.body.session_created.session;
    uint64_t rid = opened.session_id;
    ck_assert_uint_ne(rid, sid);
    ck_assert(opened.paused);
    ck_assert_uint_eq(opened.replay_of, sid);
    memset(&replayed, 0, sizeof(replayed));
    replayed.sub = subscribe_state(&r, rid, 30);
    uint32_t sub = stats_subscribe(&r, rid, 20);
    control_req(rid, paddock_v1_SessionControl_speed_tag)->action.speed = 4.0;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    control_req(rid, paddock_v1_SessionControl_resume_tag)->action.resume = true;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    static paddock_v1_Frame f;
    paddock_v1_SessionStats st;
    memset(&st, 0, sizeof(st));
    double until = pdk_test_now_s() + 10.0;
    bool ended = false;
    while (!ended && pdk_test_now_s() < until) {
        if (pdk_client_recv(&r, &f, 50) != PDK_CLIENT_OK)
            continue;
        keep_frame(&f, &replayed);
        if (f.which_body == paddock_v1_Frame_session_stats_tag &&
            f.body.session_stats.subscription_id == sub) {
            st = f.body.session_stats;
            ended = at_end(&st, NULL);
            if (!st.paused && st.tick > 60)
                ck_assert_double_gt(st.real_time_factor, 1.5);
        }
    }
    ck_assert_msg(ended, "the replay did not pause at its end: %s", st.pause_reason);
    char reason[96];
    snprintf(reason, sizeof(reason), "replay reached the recording's last tick %" PRIu64, last);
    ck_assert_str_eq(st.pause_reason, reason);
    ck_assert_uint_eq(st.replay_of, sid);
    ck_assert_uint_eq(st.replay_end_tick, last);
    ck_assert_uint_eq(st.diverged_tick, 0);
    ck_assert_int_gt(compare_frames(&live, &replayed), 25);
    ck_assert_uint_eq(live.v[live.n - 1].wheels_count, 4);
    ck_assert(live.v[live.n - 1].has_instruments);

    /* Seek back (a replay sought after its end stays paused there) and
     * step: the frames of the steps are the live ones too. */
    control_req(rid, paddock_v1_SessionControl_seek_tag)->action.seek = 40;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    ck_assert_uint_eq(rep.body.session_control_reply.tick, 40);
    ck_assert(rep.body.session_control_reply.session.paused);
    uint32_t keep = replayed.sub;
    memset(&replayed, 0, sizeof(replayed));
    replayed.sub = keep;
    control_req(rid, paddock_v1_SessionControl_run_to_tick_tag)->action.run_to_tick = 80;
    ck_assert_int_eq(pdk_client_call(&r, &req, &rep, keep_frame, &replayed), PDK_CLIENT_OK);
    ck_assert_uint_eq(rep.body.session_control_reply.tick, 80);
    drain(&r, 100, keep_frame, &replayed);
    ck_assert_int_ge(compare_frames(&live, &replayed), 5);

    /* Half speed: a tick every 1/60 s. */
    control_req(rid, paddock_v1_SessionControl_speed_tag)->action.speed = 0.5;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    control_req(rid, paddock_v1_SessionControl_resume_tag)->action.resume = true;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    pdk_test_sleep_ms(600);
    paddock_v1_SessionInfo info;
    session_info(&r, rid, &info);
    ck_assert_msg(info.tick >= 80 + 20 && info.tick <= 80 + 50, "tick %" PRIu64 " after 0.6 s",
                  info.tick);

    /* A replay takes no commands. */
    fill_dbw(&req, rid, vid, 10, 0);
    ck_assert_int_eq(pdk_client_call(&r, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(r.server_code, paddock_v1_ErrorCode_UNSUPPORTED);
    char refusal[128];
    snprintf(refusal, sizeof(refusal),
             "session %" PRIu64 " is a replay of session %" PRIu64
             " and takes no commands; fork it to drive",
             rid, sid);
    ck_assert_msg(strstr(r.error, refusal) != NULL, "%s", r.error);
    control_req(rid, paddock_v1_SessionControl_reset_tag)->action.reset = true;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(r.server_code, paddock_v1_ErrorCode_UNSUPPORTED);

    /* The CLI opens one too and watches it. */
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              CLI "replay %" PRIu64 " --speed 8 --watch --rate 30 --count 5 "
                                  "2>/dev/null",
                              srv.addr, sid) == 0,
                  "%s", out);
    ck_assert_msg(strstr(out, "TICK") != NULL, "%s", out);
    pdk_client_close(&a);
    pdk_client_close(&r);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* A VehicleReset through the real server and CLI: the car driven off, then
 * righted at a place (client) and where it stands (CLI), each answered with
 * its tick and seen in the state that follows; a reset of a vehicle not in
 * the session is refused naming it; the recording with both resets
 * verifies, and a replay sends the live frames. */
START_TEST(vehicle_reset_replays)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "resetter", 10000);
    uint64_t sid = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_REALTIME, "reset");
    static frames live;
    memset(&live, 0, sizeof(live));
    live.sub = subscribe_state(&a, sid, 30);
    uint32_t vid = spawn(&a, sid, 5.0);
    dbw(&a, sid, vid, 40, 90, keep_frame, &live);
    drain(&a, 500, keep_frame, &live);
    dbw(&a, sid, vid, 0, 0, keep_frame, &live);

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_reset_tag;
    req.body.vehicle_reset.session_id = sid;
    req.body.vehicle_reset.vehicle_id = vid;
    req.body.vehicle_reset.at_pose = true;
    req.body.vehicle_reset.x_m = -20.0;
    req.body.vehicle_reset.y_m = 7.0;
    req.body.vehicle_reset.yaw_deg = 90.0;
    ck_assert_msg(pdk_client_call(&a, &req, &rep, keep_frame, &live) == PDK_CLIENT_OK, "%s",
                  a.error);
    const uint64_t at = rep.body.ok.tick;
    drain(&a, 150, keep_frame, &live);
    ck_assert_uint_gt(live.n, 2);
    const paddock_v1_VehicleState *v = &live.v[live.n - 1];
    ck_assert_uint_gt(live.tick[live.n - 1], at);
    ck_assert_double_eq_tol(v->x_m, -20.0, 0.2);
    ck_assert_double_eq_tol(v->y_m, 7.0, 0.2);
    ck_assert_double_eq_tol(v->yaw_rad, 0.5 * 3.14159265358979323846, 0.01);
    ck_assert(!v->faulted);
    ck_assert_uint_eq(v->fault_code, 0);

    /* Where it stands, from the CLI; and a vehicle that is not there. */
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              CLI "reset --session %" PRIu64 " --vehicle %u", srv.addr, sid,
                              vid) == 0,
                  "%s", out);
    ck_assert_msg(strstr(out, "reset vehicle") != NULL, "%s", out);
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              CLI "reset --session %" PRIu64 " --vehicle %u 2>&1", srv.addr, sid,
                              vid + 7u) != 0,
                  "%s", out);
    char refusal[96];
    snprintf(refusal, sizeof(refusal), "vehicle %u is not in session %" PRIu64, vid + 7u, sid);
    ck_assert_msg(strstr(out, refusal) != NULL, "%s", out);
    /* The command line's own refusals, before anything is sent: half a
     * place, and no vehicle. */
    ck_assert_int_ne(pdk_test_sh(out, sizeof(out),
                                 CLI "reset --session %" PRIu64 " --vehicle %u --x 3 2>&1",
                                 srv.addr, sid, vid),
                     0);
    ck_assert_msg(strstr(out, "--x and --y together") != NULL, "%s", out);
    ck_assert_int_ne(
        pdk_test_sh(out, sizeof(out), CLI "reset --session %" PRIu64 " 2>&1", srv.addr, sid), 0);
    ck_assert_msg(strstr(out, "vehicle") != NULL, "%s", out);
    drain(&a, 300, keep_frame, &live);
    pdk_client_close(&a);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);

    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, sid) == 0, "%s",
                  out);
    ck_assert_msg(strstr(out, "match:            yes"), "%s", out);

    /* The replay's frames are the live ones. */
    static pdk_client r;
    pdk_test_connect_ok(&r, &srv, "replayer", 10000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    req.body.replay_open.paused = true;
    ck_assert_msg(pdk_client_call(&r, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", r.error);
    uint64_t rid = rep.body.session_created.session.session_id;
    static frames replayed;
    memset(&replayed, 0, sizeof(replayed));
    replayed.sub = subscribe_state(&r, rid, 30);
    control_req(rid, paddock_v1_SessionControl_speed_tag)->action.speed = 8.0;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    control_req(rid, paddock_v1_SessionControl_resume_tag)->action.resume = true;
    ck_assert_int_eq(control_call(&r), PDK_CLIENT_OK);
    drain(&r, 1000, keep_frame, &replayed);
    ck_assert_int_gt(compare_frames(&live, &replayed), 20);
    pdk_client_close(&r);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* Another process's write lock on the file, taken and given back from a
 * thread of the test. */
typedef struct lock_holder {
    sqlite3 *db;
    int release_after_ms;
} lock_holder;

static void *release_later(void *p)
{
    lock_holder *h = p;
    pdk_test_sleep_ms(h->release_after_ms);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(h->db);
    return NULL;
}

static bool any_stats(const paddock_v1_SessionStats *s, const void *arg)
{
    (void)s;
    (void)arg;
    return true;
}

/* A replay opened just after its session closed, while the session's last
 * records are still queued (here: another process holds the file's write
 * lock, so the writer cannot commit them), waits for them: it ends at the
 * tick the close answered, not at the last tick committed before. */
START_TEST(replay_waits_for_its_recording)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "live", 10000);
    uint64_t sid = create_session(&a, paddock_v1_TimingMode_TIMING_MODE_REALTIME, "locked-close");
    uint32_t vid = spawn(&a, sid, 3.0);
    dbw(&a, sid, vid, 30, 0, NULL, NULL);
    pdk_test_sleep_ms(300);

    lock_holder h = {NULL, 400};
    ck_assert_int_eq(sqlite3_open(srv.db, &h.db), SQLITE_OK);
    sqlite3_busy_timeout(h.db, 5000);
    ck_assert_int_eq(sqlite3_exec(h.db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    uint64_t last = rep.body.ok.tick;
    pthread_t releaser;
    ck_assert_int_eq(pthread_create(&releaser, NULL, release_later, &h), 0);

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    req.body.replay_open.paused = true;
    double asked = pdk_test_now_s();
    ck_assert_msg(pdk_client_call(&a, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", a.error);
    double waited_s = pdk_test_now_s() - asked;
    pthread_join(releaser, NULL);
    uint64_t rid = rep.body.session_created.session.session_id;
    uint32_t sub = stats_subscribe(&a, rid, 20);
    paddock_v1_SessionStats st;
    ck_assert(wait_stats(&a, sub, any_stats, NULL, 3000, &st));
    ck_assert_uint_eq(st.replay_of, sid);
    ck_assert_msg(st.replay_end_tick == last,
                  "the replay ends at tick %" PRIu64 ", the close answered %" PRIu64
                  " (opened after %.3f s)",
                  st.replay_end_tick, last, waited_s);
    ck_assert_double_ge(waited_s, 0.2); /* it waited for the lock to go */
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* ---- kill -9 ------------------------------------------------------------------------ */

typedef struct streamer {
    char addr[64];
    uint64_t sessions[4];
    uint32_t vehicles[4];
    int n;
    volatile int stop;
    int sent;
} streamer;

/* DBW commands to every session's car, every few milliseconds, until the
 * server dies or the test says stop. */
static void *stream_commands(void *arg)
{
    streamer *s = arg;
    static pdk_client c;
    static paddock_v1_Frame q, a;
    if (pdk_client_connect_as(&c, s->addr, 5000, "streamer", NULL) != PDK_CLIENT_OK)
        return NULL;
    c.timeout_ms = 1000;
    for (int i = 0; !s->stop; i++) {
        int k = i % s->n;
        fill_dbw(&q, s->sessions[k], s->vehicles[k], 20 + (i % 50), (i % 90) - 45.0);
        if (pdk_client_call(&c, &q, &a, NULL, NULL) != PDK_CLIENT_OK &&
            !pdk_client_is_connected(&c))
            break;
        s->sent++;
        pdk_test_sleep_ms(3);
    }
    pdk_client_close(&c);
    return NULL;
}

static void integrity_ok(const char *db_path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    const char *verdict = (const char *)sqlite3_column_text(st, 0);
    ck_assert_msg(verdict && strcmp(verdict, "ok") == 0, "integrity_check: %s",
                  verdict ? verdict : "(null)");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Two recorded sessions side by side keyframe on different ticks (ADR
 * 0037), each on ticks where no subscription slower than 120 Hz
 * publishes: the first at its start, then 119, 239; the second, opened
 * while the first keyframes 119 ticks ahead, half an interval off at 0,
 * 59, 179; the second's
 * recording verifies segment by segment from its keyframes, and a fork at
 * a tick between them has the recorded state. */
START_TEST(side_by_side_sessions_keyframe_apart)
{
    pdk_test_server srv;
    start_on(&srv, NULL);
    static pdk_client c;
    pdk_test_connect_ok(&c, &srv, "stepper", 10000);
    uint64_t sid[2];
    for (int i = 0; i < 2; i++) {
        sid[i] = create_session(&c, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP, "apart");
        uint32_t vid = spawn(&c, sid[i], 8.0);
        take_lease(&c, sid[i], 10000, paddock_v1_LapsePolicy_LAPSE_PAUSE);
        dbw(&c, sid[i], vid, 30, 10, NULL, NULL);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_msg(step(&c, sid[i], 250) == PDK_CLIENT_OK, "step: %s", c.error);
    for (int i = 0; i < 2; i++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_session_close_tag;
        req.body.session_close.session_id = sid[i];
        ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c.error);
    }
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_verify_request_tag;
    req.body.verify_request.session_id = sid[1];
    ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "verify: %s",
                  c.error);
    ck_assert_msg(rep.body.verify_reply.match, "%s", rep.body.verify_reply.message);
    ck_assert_uint_ge(rep.body.verify_reply.hashes_checked, 250);
    /* A fork at tick 100 starts from the keyframe at 59: the recorded state. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_fork_request_tag;
    req.body.fork_request.session_id = sid[1];
    req.body.fork_request.tick = 100;
    req.body.fork_request.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "fork: %s",
                  c.error);
    ck_assert_uint_eq(rep.body.session_created.session.tick, 100);
    uint64_t forked_hash = rep.body.session_created.session.state_hash;
    pdk_client_close(&c);
    /* The database as the stopped server's writer left it. */
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
    char sql[200];
    snprintf(sql, sizeof(sql),
             "SELECT hash FROM state_hashes WHERE session_id=%" PRIu64 " AND tick=100", sid[1]);
    ck_assert_uint_eq(forked_hash, (uint64_t)sql_int(srv.db, sql));
    const int64_t want[2][4] = {{0, 119, 239, -1}, {0, 59, 179, -1}};
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof(sql), "SELECT count(*) FROM snapshots WHERE session_id=%" PRIu64,
                 sid[i]);
        ck_assert_int_eq(sql_int(srv.db, sql), 3);
        for (int k = 0; want[i][k] >= 0; k++) {
            snprintf(sql, sizeof(sql),
                     "SELECT count(*) FROM snapshots WHERE session_id=%" PRIu64
                     " AND tick=%" PRId64,
                     sid[i], want[i][k]);
            ck_assert_msg(sql_int(srv.db, sql) == 1, "session %" PRIu64 ": no keyframe at %" PRId64,
                          sid[i], want[i][k]);
        }
    }
}
END_TEST

/* THE KILL -9 TEST: paddockd on a fresh database with fast and real-time
 * sessions whose cars take a stream of DBW commands, killed with SIGKILL
 * after a random 50-800 ms, 6 to 10 times (the seed is printed; set
 * PADDOCK_KILL_SEED to repeat a run), restarted on the same file each time:
 * the file passes integrity_check, every session that was running is marked
 * interrupted, and each verifies up to its last committed tick. */
START_TEST(kill_nine)
{
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    const char *env = getenv("PADDOCK_KILL_SEED");
    if (env && *env)
        seed = (unsigned)strtoul(env, NULL, 10);
    fprintf(stderr, "kill_nine: PADDOCK_KILL_SEED=%u\n", seed);
    srand(seed);
    int kills = 6 + rand() % 5;
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    char db[320];
    snprintf(db, sizeof(db), "%s/paddock.db", dir);
    uint64_t running[64];
    int n_running = 0;
    static pdk_client c;
    for (int round = 0; round <= kills; round++) {
        pdk_test_server srv;
        start_on(&srv, db);
        pdk_test_connect_ok(&c, &srv, "kill-test", 10000);
        int recorded = 0;
        for (int i = 0; i < n_running; i++) {
            char sql[200];
            snprintf(sql, sizeof(sql), "SELECT count(*) FROM sessions WHERE session_id=%" PRIu64,
                     running[i]);
            recorded += (int)sql_int(db, sql);
        }
        if (recorded > 0) {
            pdk_test_read_log(&srv, log_text, sizeof(log_text));
            ck_assert_msg(strstr(log_text, "marked interrupted") != NULL, "seed %u round %d: %s",
                          seed, round, log_text);
        }
        ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM sessions WHERE closed_unix_ms IS NULL "
                                     "AND interrupted = 0"),
                         0);
        for (int i = 0; i < n_running; i++) {
            char sql[200];
            snprintf(sql, sizeof(sql),
                     "SELECT count(*) FROM sessions WHERE session_id=%" PRIu64 " AND interrupted=1",
                     running[i]);
            if (sql_int(db, sql) == 0) {
                /* Killed before its first record was committed: nothing of it. */
                snprintf(sql, sizeof(sql),
                         "SELECT count(*) FROM sessions WHERE session_id=%" PRIu64, running[i]);
                ck_assert_int_eq(sql_int(db, sql), 0);
                continue;
            }
            snprintf(sql, sizeof(sql),
                     "SELECT coalesce(final_tick, 0) FROM sessions WHERE session_id=%" PRIu64,
                     running[i]);
            int64_t final_tick = sql_int(db, sql);
            memset(&req, 0, sizeof(req));
            req.which_body = paddock_v1_Frame_verify_request_tag;
            req.body.verify_request.session_id = running[i];
            c.timeout_ms = 120000;
            ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK,
                          "seed %u: verify %" PRIu64 ": %s", seed, running[i], c.error);
            const paddock_v1_VerifyReply *v = &rep.body.verify_reply;
            ck_assert_msg(v->match, "seed %u: session %" PRIu64 " does not verify: %s", seed,
                          running[i], v->message);
            ck_assert(v->interrupted);
            ck_assert_msg((int64_t)v->last_tick == final_tick,
                          "seed %u: session %" PRIu64 " verified to %" PRIu64 ", final %" PRId64,
                          seed, running[i], v->last_tick, final_tick);
            fprintf(stderr,
                    "kill_nine: round %d: session %" PRIu64 " verified to tick %" PRIu64
                    " (%" PRIu64 " hashes, %.2f s)\n",
                    round, running[i], v->last_tick, v->hashes_checked, v->seconds);
        }
        c.timeout_ms = 10000;
        if (round == kills) {
            pdk_client_close(&c);
            pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
            break;
        }
        static streamer s;
        memset(&s, 0, sizeof(s));
        snprintf(s.addr, sizeof(s.addr), "%s", srv.addr);
        n_running = 0;
        for (int k = 0; k < 3; k++) {
            paddock_v1_TimingMode timing = k == 0 ? paddock_v1_TimingMode_TIMING_MODE_FAST
                                                  : paddock_v1_TimingMode_TIMING_MODE_REALTIME;
            uint64_t sid = create_session(&c, timing, k == 0 ? "fast" : "realtime");
            s.sessions[k] = sid;
            s.vehicles[k] = spawn(&c, sid, 5.0 * k);
            running[n_running++] = sid;
        }
        s.n = 3;
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, stream_commands, &s), 0);
        int delay = 50 + rand() % 751;
        pdk_test_sleep_ms(delay);
        fprintf(stderr, "kill_nine: round %d: SIGKILL after %d ms, %d commands sent\n", round + 1,
                delay, s.sent);
        kill(srv.pid, SIGKILL);
        int status;
        waitpid(srv.pid, &status, 0);
        srv.pid = 0;
        s.stop = 1;
        pthread_join(th, NULL);
        pdk_client_close(&c);
        integrity_ok(db);
    }
}
END_TEST

static Suite *replay_suite(void)
{
    Suite *s = suite_create("replay_integration");
    TCase *tc = tcase_create("server");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, lockstep_lease);
    tcase_add_test(tc, session_control);
    tcase_add_test(tc, recordings_round_trip);
    tcase_add_test(tc, replay_reproduces_live_state);
    tcase_add_test(tc, vehicle_reset_replays);
    tcase_add_test(tc, replay_waits_for_its_recording);
    tcase_add_test(tc, side_by_side_sessions_keyframe_apart);
    tcase_add_test(tc, kill_nine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(replay_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
