/* Real-time ticks on step threads (ADR 0031), against the real paddockd on
 * loopback with --step-threshold-us 0, so that every real-time session
 * steps on a thread: the demo's recording is bit for bit the one the loop
 * makes and verifies; requests naming a session whose tick is out wait for
 * it, each is answered once and the inputs in order; unsubscribe, close and SIGTERM find
 * the session wherever it is; bad values of the flags are refused. */
#include <check.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

static char log_text[1 << 20];
static char out[1 << 16];
static paddock_v1_Frame req, rep, got;

static void start_with(pdk_test_server *srv, const char *db, const char *const *extra)
{
    ck_assert_msg(pdk_test_server_start(srv, db, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
}

static void stop_clean(pdk_test_server *srv)
{
    pdk_test_stop_ok(srv, log_text, sizeof(log_text), true);
}

static void call_ok(pdk_client *c, const char *what)
{
    pdk_test_call_ok(c, &req, &rep, what);
}

static paddock_v1_SessionInfo session_info(pdk_client *c, uint64_t sid)
{
    paddock_v1_SessionInfo info;
    pdk_test_session_info(c, &req, &rep, sid, &info);
    return info;
}

/* The one number sql (with session sid and tick bound to its two ?s)
 * selects from the database db; fails the test, naming what it looked
 * for, when there is none. */
static int64_t session_number(const char *db, const char *sql, uint64_t sid, uint64_t tick,
                              const char *what)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)tick);
    ck_assert_msg(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL,
                  "no %s tick %" PRIu64 " in %s", what, tick, db);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* The recorded state hash of session sid at tick in the database db. */
static int64_t recorded_hash(const char *db, uint64_t sid, uint64_t tick)
{
    return session_number(db, "SELECT hash FROM state_hashes WHERE session_id = ? AND tick = ?",
                          sid, tick, "hash for");
}

/* Runs the demo (its car drives the demo route from tick 0) until its
 * session passes tick, then stops; the database is in dir. */
static void run_demo(const char *dir, const char *threads, uint64_t tick)
{
    char db[320];
    snprintf(db, sizeof(db), "%s/paddock.db", dir);
    const char *const extra[] = {"--step-threads", threads, "--step-threshold-us", "0",
                                 "--demo", NULL};
    pdk_test_server srv;
    start_with(&srv, db, extra);
    pdk_client c;
    ck_assert_msg(pdk_client_connect_as(&c, srv.addr, 30000, "watcher", NULL) == PDK_CLIENT_OK,
                  "%s", c.error);
    double t0 = pdk_test_now_s();
    paddock_v1_SessionInfo info;
    while ((info = session_info(&c, 1)).tick <= tick) {
        ck_assert_msg(pdk_test_now_s() - t0 < 60.0, "the demo did not reach tick %" PRIu64, tick);
        pdk_test_sleep_ms(50);
    }
    /* Where it ticked is what the listing says. */
    ck_assert_msg(info.step_thread == (strcmp(threads, "0") != 0), "step_thread %d with %s threads",
                  (int)info.step_thread, threads);
    ck_assert_msg(info.tick_cost_ms > 0.0, "tick cost %g ms", info.tick_cost_ms);
    /* Where its ticks went: every tick counted, each part of a recorded
     * session's tick timed, the loop's sending only for a thread's ticks. */
    const paddock_v1_TickParts *p = &info.tick_parts;
    bool threaded = strcmp(threads, "0") != 0;
    ck_assert_msg(info.has_tick_parts && p->ticks == info.tick,
                  "tick_parts.ticks %" PRIu64 " at tick %" PRIu64, p->ticks, info.tick);
    ck_assert_msg(p->step_ns > 0 && p->hash_ns > 0 && p->keyframe_ns > 0 && p->inputs_ns > 0 &&
                      p->publish_ns > 0 && p->writer_cpu_ns > 0,
                  "a part is 0 ns: inputs %" PRIu64 " step %" PRIu64 " hash %" PRIu64
                  " keyframe %" PRIu64 " publish %" PRIu64 " writer %" PRIu64,
                  p->inputs_ns, p->step_ns, p->hash_ns, p->keyframe_ns, p->publish_ns,
                  p->writer_cpu_ns);
    ck_assert_msg((p->delivery_ns > 0) == threaded, "delivery %" PRIu64 " ns with %s threads",
                  p->delivery_ns, threads);
    pdk_client_close(&c);
    stop_clean(&srv);
}

/* The demo on a step thread records the very hashes the loop records, and
 * its recording verifies. */
START_TEST(demo_on_a_thread_hashes_as_on_the_loop)
{
    char on_threads[256], on_loop[256];
    pdk_test_tmpdir(on_threads, sizeof(on_threads));
    pdk_test_tmpdir(on_loop, sizeof(on_loop));
    run_demo(on_threads, "2", 360);
    run_demo(on_loop, "0", 360);
    char db_threads[320], db_loop[320];
    snprintf(db_threads, sizeof(db_threads), "%s/paddock.db", on_threads);
    snprintf(db_loop, sizeof(db_loop), "%s/paddock.db", on_loop);
    for (uint64_t tick = 60; tick <= 360; tick += 100) {
        int64_t a = recorded_hash(db_threads, 1, tick);
        int64_t b = recorded_hash(db_loop, 1, tick);
        ck_assert_msg(a == b, "tick %" PRIu64 ": %" PRIx64 " on a thread, %" PRIx64 " on the loop",
                      tick, (uint64_t)a, (uint64_t)b);
    }
    int rc = pdk_test_sh(out, sizeof(out), "%s verify --db %s 1", PDK_PADDOCKD, db_threads);
    ck_assert_msg(rc == 0 && strstr(out, "match") != NULL, "verify (%d): %s", rc, out);
}
END_TEST

static uint64_t new_session(pdk_client *c, const char *name)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, name);
    call_ok(c, "SessionCreate");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_session_created_tag);
    return rep.body.session_created.session.session_id;
}

static void fill_spawn(uint64_t sid, unsigned i)
{
    pdk_test_fill_spawn(&req, sid, "compact_hatch", i, 16);
}

/* The next frame that is not a pushed state batch. */
static void recv_reply(pdk_client *c, const char *what)
{
    do {
        ck_assert_msg(pdk_client_recv(c, &got, 30000) == PDK_CLIENT_OK, "%s: %s", what, c->error);
    } while (got.which_body == paddock_v1_Frame_state_batch_tag);
}

/* Pipelined requests, half naming the session whose ticks are on a thread
 * (spawns, answered at a tick), half not (listings): every reply comes, in
 * order, each the right kind; then an unsubscribe finds its subscription
 * and a close its session while they tick on threads. */
START_TEST(requests_wait_for_a_tick_on_a_thread_in_order)
{
    const char *const extra[] = {"--step-threads", "2", "--step-threshold-us", "0", NULL};
    pdk_test_server srv;
    start_with(&srv, NULL, extra);
    pdk_client c;
    ck_assert_msg(pdk_client_connect_as(&c, srv.addr, 30000, "driver", NULL) == PDK_CLIENT_OK,
                  "%s", c.error);
    uint64_t sid = new_session(&c, "threaded");
    uint64_t other = new_session(&c, "beside");
    fill_spawn(other, 0);
    call_ok(&c, "VehicleSpawn beside");

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 120;
    call_ok(&c, "Subscribe");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_subscribed_tag);
    uint32_t sub = rep.body.subscribed.subscription_id;

    enum { N = 120 }; /* 60 cars: the C client decodes batches of at most 64 */
    uint64_t first = 0;
    for (unsigned i = 0; i < N; i++) {
        if (i % 2 == 0) {
            fill_spawn(sid, i / 2);
        } else {
            memset(&req, 0, sizeof(req));
            req.which_body = paddock_v1_Frame_session_list_tag;
        }
        ck_assert_msg(pdk_client_send(&c, &req) == PDK_CLIENT_OK, "send %u: %s", i, c.error);
        if (i == 0)
            first = req.request_id;
    }
    /* A spawn is answered at the tick it took effect, a listing at once:
     * each is answered once, with its kind, and the spawns in order. */
    static bool answered[N];
    memset(answered, 0, sizeof(answered));
    uint64_t last_tick = 0;
    uint64_t last_spawn = 0;
    for (unsigned k = 0; k < N; k++) {
        recv_reply(&c, "pipelined reply");
        ck_assert_msg(got.request_id >= first && got.request_id < first + N,
                      "a reply to request %" PRIu64, got.request_id);
        unsigned i = (unsigned)(got.request_id - first);
        ck_assert_msg(!answered[i], "request %u answered twice", i);
        answered[i] = true;
        if (i % 2 == 0) {
            ck_assert_msg(got.which_body == paddock_v1_Frame_vehicle_spawned_tag,
                          "reply %u: body %d (%s)", i, (int)got.which_body,
                          got.which_body == paddock_v1_Frame_error_tag ? got.body.error.message
                                                                       : "");
            ck_assert_msg(last_spawn == 0 || got.request_id > last_spawn,
                          "spawn %" PRIu64 " answered after spawn %" PRIu64, got.request_id,
                          last_spawn);
            ck_assert_uint_ge(got.body.vehicle_spawned.tick, last_tick);
            last_spawn = got.request_id;
            last_tick = got.body.vehicle_spawned.tick;
        } else {
            ck_assert_int_eq(got.which_body, paddock_v1_Frame_session_list_reply_tag);
        }
    }
    paddock_v1_SessionInfo info = session_info(&c, sid);
    ck_assert_msg(info.step_thread, "the session did not tick on a step thread");
    ck_assert_uint_eq(info.vehicle_count, N / 2);
    ck_assert_msg(info.tick > last_tick, "tick %" PRIu64 " after spawns at %" PRIu64, info.tick,
                  last_tick);

    /* State kept coming while the session ticked on a thread. */
    unsigned batches = 0;
    double t0 = pdk_test_now_s();
    while (batches < 10 && pdk_test_now_s() - t0 < 10.0)
        if (pdk_client_recv(&c, &got, 1000) == PDK_CLIENT_OK &&
            got.which_body == paddock_v1_Frame_state_batch_tag) {
            ck_assert_uint_eq(got.body.state_batch.session_id, sid);
            batches++;
        }
    ck_assert_uint_eq(batches, 10);

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_unsubscribe_tag;
    req.body.unsubscribe.subscription_id = sub;
    ck_assert_msg(pdk_client_send(&c, &req) == PDK_CLIENT_OK, "%s", c.error);
    uint64_t unsub = req.request_id;
    recv_reply(&c, "Unsubscribe");
    ck_assert_uint_eq(got.request_id, unsub);
    ck_assert_msg(got.which_body == paddock_v1_Frame_ok_tag, "Unsubscribe: body %d (%s)",
                  (int)got.which_body,
                  got.which_body == paddock_v1_Frame_error_tag ? got.body.error.message : "");
    /* None after its Ok. */
    while (pdk_client_recv(&c, &got, 300) == PDK_CLIENT_OK)
        ck_assert_msg(got.which_body != paddock_v1_Frame_state_batch_tag,
                      "a state batch came after the Unsubscribe's Ok");

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    call_ok(&c, "SessionClose");
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    call_ok(&c, "SessionList");
    ck_assert_uint_eq(rep.body.session_list_reply.sessions_count, 1);
    ck_assert_uint_eq(rep.body.session_list_reply.sessions[0].session_id, other);
    pdk_client_close(&c);
    /* SIGTERM with a session still ticking on a thread. */
    stop_clean(&srv);
}
END_TEST

/* The spawn budget holds for a session whose every tick is on a thread,
 * where spawns wait for the tick and are handled as it comes back: at
 * one spawn a tick, 120 still take about a second. */
START_TEST(a_parked_spawn_keeps_its_budget_hold)
{
    const char *const extra[] = {"--step-threads",      "2", "--step-threshold-us", "0",
                                 "--max-spawns-per-tick", "1", NULL};
    pdk_test_server srv;
    start_with(&srv, NULL, extra);
    pdk_client c;
    ck_assert_msg(pdk_client_connect_as(&c, srv.addr, 30000, "flooder", NULL) == PDK_CLIENT_OK,
                  "%s", c.error);
    uint64_t sid = new_session(&c, "threaded");
    enum { N = 120 };
    uint64_t first = 0;
    double t0 = pdk_test_now_s();
    for (unsigned i = 0; i < N; i++) {
        fill_spawn(sid, i);
        ck_assert_msg(pdk_client_send(&c, &req) == PDK_CLIENT_OK, "send %u: %s", i, c.error);
        if (i == 0)
            first = req.request_id;
    }
    for (unsigned i = 0; i < N; i++) {
        recv_reply(&c, "spawn");
        ck_assert_msg(got.which_body == paddock_v1_Frame_vehicle_spawned_tag,
                      "reply %u: body %d (%s)", i, (int)got.which_body,
                      got.which_body == paddock_v1_Frame_error_tag ? got.body.error.message : "");
        ck_assert_uint_eq(got.request_id, first + i);
    }
    double took_s = pdk_test_now_s() - t0;
    printf("steps: %u spawns at one a tick into a session on a step thread in %.2f s\n", N,
           took_s);
    ck_assert_msg(took_s > 0.8, "%u spawns at one a tick were answered in %.3f s", N, took_s);
    pdk_client_close(&c);
    stop_clean(&srv);
}
END_TEST

START_TEST(bad_step_flags_are_refused_by_name)
{
    int rc = pdk_test_sh(out, sizeof(out), "%s --step-threads -1", PDK_PADDOCKD);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "--step-threads: '-1' is not a whole number 0..256") != NULL, "%s",
                  out);
    rc = pdk_test_sh(out, sizeof(out), "%s --step-threshold-us soon", PDK_PADDOCKD);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "--step-threshold-us: 'soon' is not a whole number") != NULL, "%s",
                  out);
    rc = pdk_test_sh(out, sizeof(out), "%s --step-split 70000", PDK_PADDOCKD);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "--step-split: '70000' is not a whole number 0..65535") != NULL,
                  "%s", out);
    rc = pdk_test_sh(out, sizeof(out), "%s --step-poll-us 9000", PDK_PADDOCKD);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "--step-poll-us: '9000' is not a whole number 0..8333") != NULL, "%s",
                  out);
}
END_TEST

/* A fleet of n cars of three presets, made in lockstep so that nothing
 * ticks until they all drive (every spawn and command at tick 0), then
 * real-time; runs until its session passes tick, stops; the database is in
 * dir. extra: paddockd's flags. */
static void run_fleet(const char *dir, const char *const *extra, unsigned n, uint64_t tick)
{
    char db[320];
    snprintf(db, sizeof(db), "%s/paddock.db", dir);
    pdk_test_server srv;
    start_with(&srv, db, extra);
    pdk_client c;
    ck_assert_msg(pdk_client_connect(&c, srv.addr, 30000, NULL) == PDK_CLIENT_OK, "%s", c.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "fleet");
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    call_ok(&c, "SessionCreate");
    uint64_t sid = rep.body.session_created.session.session_id;
    static const char *const presets[] = {"midsize_sedan", "traffic_sedan", "compact_hatch"};
    for (unsigned i = 0; i < n;) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_vehicle_spawn_batch_tag;
        paddock_v1_VehicleSpawnBatch *b = &req.body.vehicle_spawn_batch;
        b->session_id = sid;
        for (; i < n && b->spawns_count < 32; i++) {
            paddock_v1_VehicleSpawn *sp = &b->spawns[b->spawns_count++];
            strcpy(sp->preset, presets[i % 3]);
            sp->x_m = (double)(i % 8) * 6.0;
            sp->y_m = (double)(i / 8) * 4.0;
            sp->speed_mps = (double)(i % 6);
            sp->gear = paddock_v1_Gear_GEAR_DRIVE;
        }
        call_ok(&c, "VehicleSpawnBatch");
        ck_assert_int_eq(rep.which_body, paddock_v1_Frame_vehicle_spawn_batch_reply_tag);
        paddock_v1_VehicleSpawnBatchReply ids = rep.body.vehicle_spawn_batch_reply;
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_dbw_command_batch_tag;
        paddock_v1_DbwCommandBatch *d = &req.body.dbw_command_batch;
        d->session_id = sid;
        for (pb_size_t k = 0; k < ids.vehicle_ids_count; k++) {
            paddock_v1_DbwCommand *cmd = &d->commands[d->commands_count++];
            cmd->vehicle_id = ids.vehicle_ids[k];
            cmd->which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
            cmd->throttle.throttle_pct = 10.0 + (double)(k % 5) * 10.0;
            cmd->which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
            cmd->steer.steer_wheel_deg = (double)(k % 7) * 30.0 - 90.0;
        }
        call_ok(&c, "DbwCommandBatch");
    }
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_set_timing_tag;
    req.body.session_control.action.set_timing = paddock_v1_TimingMode_TIMING_MODE_REALTIME;
    call_ok(&c, "set_timing");
    double t0 = pdk_test_now_s();
    while (session_info(&c, sid).tick <= tick) {
        ck_assert_msg(pdk_test_now_s() - t0 < 90.0, "the fleet did not reach tick %" PRIu64, tick);
        pdk_test_sleep_ms(50);
    }
    pdk_client_close(&c);
    stop_clean(&srv);
}

/* The stored bytes of session sid's keyframe at tick in the database db,
 * into *bytes (malloc'd); their length. */
static size_t recorded_keyframe(const char *db, uint64_t sid, uint64_t tick, void **bytes)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(h,
                                        "SELECT blob FROM snapshots WHERE session_id = ? AND "
                                        "tick = ?",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)tick);
    ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "no keyframe at tick %" PRIu64 " in %s", tick,
                  db);
    size_t len = (size_t)sqlite3_column_bytes(st, 0);
    *bytes = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(*bytes);
    memcpy(*bytes, sqlite3_column_blob(st, 0), len);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return len;
}

/* The tick of session sid's first keyframe after tick in the database db. */
static uint64_t keyframe_after(const char *db, uint64_t sid, uint64_t tick)
{
    return (uint64_t)session_number(
        db, "SELECT min(tick) FROM snapshots WHERE session_id = ? AND tick > ?", sid, tick,
        "keyframe after");
}

/* A fleet of 96 cars stepped, and its keyframes encoded, in slices of 8 on
 * three step threads at once (--step-split 8) records the very hashes and
 * keyframes one thread does (--step-split 0) and the loop does
 * (--step-threads 0), and its recording verifies. */
START_TEST(a_shared_step_hashes_as_one_thread)
{
    char shared[256], alone[256], loop[256];
    pdk_test_tmpdir(shared, sizeof(shared));
    pdk_test_tmpdir(alone, sizeof(alone));
    pdk_test_tmpdir(loop, sizeof(loop));
    const char *const split[] = {"--step-threads", "3", "--step-threshold-us", "0",
                                 "--step-split", "8", NULL};
    const char *const one[] = {"--step-threads", "3", "--step-threshold-us", "0",
                               "--step-split", "0", NULL};
    const char *const none[] = {"--step-threads", "0", NULL};
    run_fleet(shared, split, 96, 300);
    run_fleet(alone, one, 96, 300);
    run_fleet(loop, none, 96, 300);
    char db_shared[320], db_alone[320], db_loop[320];
    snprintf(db_shared, sizeof(db_shared), "%s/paddock.db", shared);
    snprintf(db_alone, sizeof(db_alone), "%s/paddock.db", alone);
    snprintf(db_loop, sizeof(db_loop), "%s/paddock.db", loop);
    for (uint64_t tick = 1; tick <= 300; tick += 37) {
        int64_t a = recorded_hash(db_shared, 1, tick);
        ck_assert_msg(a == recorded_hash(db_alone, 1, tick) && a == recorded_hash(db_loop, 1, tick),
                      "tick %" PRIu64 ": the shared step's hash %" PRIx64 " differs", tick,
                      (uint64_t)a);
    }
    /* The two keyframes after the start, wherever the server put them
     * (ADR 0037): on the same ticks in both recordings. */
    uint64_t first = keyframe_after(db_shared, 1, 0);
    const uint64_t ticks[2] = {first, keyframe_after(db_shared, 1, first)};
    for (int k = 0; k < 2; k++) {
        const uint64_t tick = ticks[k];
        void *a, *b;
        size_t la = recorded_keyframe(db_shared, 1, tick, &a);
        size_t lb = recorded_keyframe(db_loop, 1, tick, &b);
        ck_assert_msg(la == lb && memcmp(a, b, la) == 0,
                      "tick %" PRIu64 ": the shared keyframe (%zu bytes) is not the loop's (%zu)",
                      tick, la, lb);
        free(a);
        free(b);
    }
    int rc = pdk_test_sh(out, sizeof(out), "%s verify --db %s 1", PDK_PADDOCKD, db_shared);
    ck_assert_msg(rc == 0 && strstr(out, "match") != NULL, "verify (%d): %s", rc, out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("steps");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, demo_on_a_thread_hashes_as_on_the_loop);
    tcase_add_test(tc, requests_wait_for_a_tick_on_a_thread_in_order);
    tcase_add_test(tc, a_parked_spawn_keeps_its_budget_hold);
    tcase_add_test(tc, bad_step_flags_are_refused_by_name);
    tcase_add_test(tc, a_shared_step_hashes_as_one_thread);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
