/* Unit tests for the server run in parts (server.h: pdk_server_start, the
 * local listener, stop, finish), as tests/fuzz/fuzz_requests.c uses it: a
 * real server on a SQLite file in a temporary folder, a client in the
 * process through the in-process transport, served as a TCP one is. */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local.h"
#include "server.h"
#include "wire.h"

typedef struct client {
    int frames, closes;
    int last_body;
    uint64_t last_rid;
    uint64_t session_id; /* from SessionCreated */
    uint32_t vehicle;    /* the first of the last VehicleSpawnBatchReply's */
    char error[256];     /* the last Error's message */
    struct {
        uint64_t rid;
        int body, code;
        char message[256];
    } got[8]; /* the first eight frames other than state */
} client;

static pdk_error client_frame(void *ud, const uint8_t *frame, size_t len, bool state, uint32_t key)
{
    (void)state;
    (void)key;
    client *cl = ud;
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
    ck_assert_ptr_nonnull(f);
    cl->frames++;
    cl->last_body = f->body_case;
    cl->last_rid = f->request_id;
    if (f->body_case == PADDOCK__V1__FRAME__BODY_SESSION_CREATED)
        cl->session_id = f->session_created->session->session_id;
    if (f->body_case == PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY &&
        f->vehicle_spawn_batch_reply->n_vehicle_ids > 0)
        cl->vehicle = f->vehicle_spawn_batch_reply->vehicle_ids[0];
    if (f->body_case == PADDOCK__V1__FRAME__BODY_ERROR)
        snprintf(cl->error, sizeof cl->error, "%s", f->error->message);
    if (cl->frames <= 8) {
        cl->got[cl->frames - 1].rid = f->request_id;
        cl->got[cl->frames - 1].body = f->body_case;
        cl->got[cl->frames - 1].code =
            f->body_case == PADDOCK__V1__FRAME__BODY_ERROR ? f->error->code : 0;
        snprintf(cl->got[cl->frames - 1].message, sizeof cl->got[0].message, "%s",
                 f->body_case == PADDOCK__V1__FRAME__BODY_ERROR ? f->error->message : "");
    }
    pdk_wire_frame_free(f);
    return PDK_OK;
}

static void client_close(void *ud)
{
    client *cl = ud;
    cl->closes++;
}

static char dir[64];
static char db[128];

static pdk_server *start(void)
{
    snprintf(dir, sizeof dir, "/tmp/pdk-server-local-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/paddock.db", dir);
    pdk_server_config cfg = pdk_server_config_default();
    cfg.listen = "127.0.0.1:0";
    cfg.db_path = db;
    cfg.presets_dir = PDK_SOURCE_DIR "/presets";
    cfg.migrations_dir = PDK_SOURCE_DIR "/migrations";
    cfg.step_threads = 0; /* pdk_server_close_sessions needs every tick on the loop */
    pdk_server *srv = pdk_server_start(&cfg);
    ck_assert_ptr_nonnull(srv);
    return srv;
}

/* Stops srv, runs its loop to the end, and removes the folder. */
static void finish(pdk_server *srv)
{
    pdk_server_stop(srv);
    uv_run(pdk_server_loop(srv), UV_RUN_DEFAULT);
    ck_assert_int_eq(pdk_server_finish(srv), 0);
    char path[160];
    static const char *const names[] = {"paddock.db", "paddock.db-wal", "paddock.db-shm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0);
}

/* Runs the loop without waiting until cl has n frames (or a few hundred
 * passes went by). */
static void run_until(pdk_server *srv, const client *cl, int n)
{
    for (int i = 0; i < 500 && cl->frames < n; i++) {
        uv_run(pdk_server_loop(srv), UV_RUN_NOWAIT);
        usleep(1000);
    }
    ck_assert_int_ge(cl->frames, n);
}

static void send_frame(pdk_conn *conn, Paddock__V1__Frame *f)
{
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&b, f), PDK_OK);
    pdk_local_write(conn, b.data, b.len);
    pdk_buf_free(&b);
}

START_TEST(test_local_client_served)
{
    pdk_server *srv = start();
    char err[256];
    pdk_listener *local = pdk_server_local_listener(srv, err, sizeof err);
    ck_assert_ptr_nonnull(local);
    ck_assert_ptr_eq(pdk_server_local_listener(srv, err, sizeof err), local);
    client cl = {0};
    pdk_local_peer peer = {.on_frame = client_frame, .on_close = client_close};
    pdk_conn *conn = pdk_local_open(local, &peer, &cl, "test");
    ck_assert_ptr_nonnull(conn);

    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    hello.protocol_version = PADDOCK__V1__PROTOCOL_VERSION__PROTOCOL_VERSION_1;
    hello.client_name = "test_server_local";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 1;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &hello;
    send_frame(conn, &f);
    run_until(srv, &cl, 1);
    ck_assert_int_eq(cl.last_body, PADDOCK__V1__FRAME__BODY_WELCOME);

    Paddock__V1__SessionCreate create = PADDOCK__V1__SESSION_CREATE__INIT;
    create.name = "local";
    create.timing = PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST;
    f = (Paddock__V1__Frame)PADDOCK__V1__FRAME__INIT;
    f.request_id = 2;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATE;
    f.session_create = &create;
    send_frame(conn, &f);
    run_until(srv, &cl, 2);
    ck_assert_int_eq(cl.last_body, PADDOCK__V1__FRAME__BODY_SESSION_CREATED);
    ck_assert_uint_ne(cl.session_id, 0);

    /* A bad request gets the server's own error, naming what was wrong. */
    Paddock__V1__VehicleSpawn spawn = PADDOCK__V1__VEHICLE_SPAWN__INIT;
    spawn.session_id = cl.session_id;
    spawn.preset = "no_such_car";
    f = (Paddock__V1__Frame)PADDOCK__V1__FRAME__INIT;
    f.request_id = 3;
    f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN;
    f.vehicle_spawn = &spawn;
    send_frame(conn, &f);
    run_until(srv, &cl, 3);
    ck_assert_int_eq(cl.last_body, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_uint_eq(cl.last_rid, 3);
    ck_assert_msg(strstr(cl.error, "no_such_car") != NULL, "error: %s", cl.error);

    /* The session outlives its client until closed; then none is left. */
    pdk_local_hangup(conn);
    pdk_server_close_sessions(srv);
    ck_assert_int_eq(cl.closes, 0);
    finish(srv);
}
END_TEST

/* A client said Hello on a new local connection of srv. */
static pdk_conn *hello(pdk_server *srv, client *cl, const char *name)
{
    char err[256];
    pdk_listener *local = pdk_server_local_listener(srv, err, sizeof err);
    ck_assert_ptr_nonnull(local);
    static const pdk_local_peer peer = {.on_frame = client_frame, .on_close = client_close};
    pdk_conn *conn = pdk_local_open(local, &peer, cl, name);
    ck_assert_ptr_nonnull(conn);
    Paddock__V1__Hello h = PADDOCK__V1__HELLO__INIT;
    h.protocol_version = PADDOCK__V1__PROTOCOL_VERSION__PROTOCOL_VERSION_1;
    h.client_name = (char *)name;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 1;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &h;
    send_frame(conn, &f);
    run_until(srv, cl, 1);
    ck_assert_int_eq(cl->last_body, PADDOCK__V1__FRAME__BODY_WELCOME);
    return conn;
}

/* Sends a DbwCommandBatch of n throttle commands into sid, command i
 * driving vehicle first + i % 4. */
static void send_dbw_batch(pdk_conn *conn, uint64_t rid, uint64_t sid, uint32_t first, size_t n)
{
    Paddock__V1__DbwCommand *cmds = calloc(n, sizeof(*cmds));
    Paddock__V1__DbwCommand **ptrs = calloc(n, sizeof(*ptrs));
    ck_assert(cmds && ptrs);
    for (size_t i = 0; i < n; i++) {
        paddock__v1__dbw_command__init(&cmds[i]);
        cmds[i].vehicle_id = first + (uint32_t)(i % 4);
        cmds[i].throttle_case = PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT;
        cmds[i].throttle_pct = (double)(i % 50);
        ptrs[i] = &cmds[i];
    }
    Paddock__V1__DbwCommandBatch m = PADDOCK__V1__DBW_COMMAND_BATCH__INIT;
    m.session_id = sid;
    m.n_commands = n;
    m.commands = ptrs;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = rid;
    f.body_case = PADDOCK__V1__FRAME__BODY_DBW_COMMAND_BATCH;
    f.dbw_command_batch = &m;
    send_frame(conn, &f);
    free(cmds);
    free(ptrs);
}

/* Sends a VehicleSpawnBatch of n midsize sedans into sid, 12 m apart. */
static void send_spawn_batch(pdk_conn *conn, uint64_t rid, uint64_t sid, size_t n)
{
    Paddock__V1__VehicleSpawn *spawns = calloc(n, sizeof(*spawns));
    Paddock__V1__VehicleSpawn **ptrs = calloc(n, sizeof(*ptrs));
    ck_assert(spawns && ptrs);
    for (size_t i = 0; i < n; i++) {
        paddock__v1__vehicle_spawn__init(&spawns[i]);
        spawns[i].preset = "midsize_sedan";
        spawns[i].x_m = 12.0 * (double)i;
        ptrs[i] = &spawns[i];
    }
    Paddock__V1__VehicleSpawnBatch m = PADDOCK__V1__VEHICLE_SPAWN_BATCH__INIT;
    m.session_id = sid;
    m.n_spawns = n;
    m.spawns = ptrs;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = rid;
    f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH;
    f.vehicle_spawn_batch = &m;
    send_frame(conn, &f);
    free(spawns);
    free(ptrs);
}

/* got[i] of cl must be an Error to rid of code naming a and b. */
static void expect_error(const client *cl, int i, uint64_t rid, Paddock__V1__ErrorCode code,
                         const char *a, const char *b)
{
    ck_assert_msg(cl->got[i].rid == rid && cl->got[i].body == PADDOCK__V1__FRAME__BODY_ERROR,
                  "frame %d: body %d to %" PRIu64 ", not an Error to %" PRIu64, i, cl->got[i].body,
                  cl->got[i].rid, rid);
    ck_assert_msg(cl->got[i].code == (int)code, "code %d, not %d: %s", cl->got[i].code, (int)code,
                  cl->got[i].message);
    ck_assert_msg(strstr(cl->got[i].message, a) && strstr(cl->got[i].message, b),
                  "'%s' does not name '%s' and '%s'", cl->got[i].message, a, b);
}

/* A real-time session's input queue between two ticks: the frames of the
 * in-process transport are handled as they are written, so no tick comes
 * between them, but for a costly one that starts too near the next tick
 * and waits for it (server.c costly_waits). One client's batch of 4,000
 * commands waits for the next tick; another's batch larger than the 96
 * places left is BUSY, naming the room; a spawn batch larger than the room
 * is refused naming it (BUSY for the queue's, or, had it waited for the
 * tick that applied the 4,000, CAPACITY for the world's); one larger than
 * any queue takes is OUT_OF_RANGE whatever the room; an entry driving a
 * vehicle whose DRIVER lease the first client holds is refused by its
 * index. The first batch then applies whole. */
START_TEST(test_batch_refused_by_a_full_queue_or_a_held_lease)
{
    pdk_server *srv = start();
    client filler = {0}, late = {0};
    pdk_conn *a = hello(srv, &filler, "filler");
    pdk_conn *b = hello(srv, &late, "latecomer");

    Paddock__V1__SessionCreate create = PADDOCK__V1__SESSION_CREATE__INIT;
    create.name = "queued";
    create.world_overrides = "maxVehicles=8";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 2;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATE;
    f.session_create = &create;
    send_frame(a, &f);
    run_until(srv, &filler, 2);
    ck_assert_int_eq(filler.last_body, PADDOCK__V1__FRAME__BODY_SESSION_CREATED);
    const uint64_t sid = filler.session_id;
    send_spawn_batch(a, 3, sid, 4);
    run_until(srv, &filler, 3);
    ck_assert_int_eq(filler.last_body, PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY);

    send_dbw_batch(a, 4, sid, filler.vehicle, 4000);
    ck_assert_int_eq(filler.frames, 3); /* queued: answered when it applies */
    send_dbw_batch(b, 10, sid, filler.vehicle, 200);
    send_spawn_batch(b, 11, sid, 97);
    send_spawn_batch(b, 12, sid, 4097);
    send_dbw_batch(b, 13, sid, filler.vehicle + 2, 1);
    run_until(srv, &late, 5);
    expect_error(&late, 1, 10, PADDOCK__V1__ERROR_CODE__BUSY, "DbwCommandBatch has 200 entries",
                 "queues 96 more inputs before its next tick");
    if (late.got[2].code == PADDOCK__V1__ERROR_CODE__CAPACITY)
        expect_error(&late, 2, 11, PADDOCK__V1__ERROR_CODE__CAPACITY,
                     "VehicleSpawnBatch has 97 spawns", "has room for 4 more vehicles");
    else
        expect_error(&late, 2, 11, PADDOCK__V1__ERROR_CODE__BUSY,
                     "VehicleSpawnBatch has 97 entries", "queues 96 more inputs");
    expect_error(&late, 3, 12, PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE,
                 "VehicleSpawnBatch has 4097 entries", "(at most 4096)");
    expect_error(&late, 4, 13, PADDOCK__V1__ERROR_CODE__BUSY, "commands[0]: ", "DRIVER");

    run_until(srv, &filler, 4);
    ck_assert_uint_eq(filler.got[3].rid, 4);
    ck_assert_msg(filler.got[3].body == PADDOCK__V1__FRAME__BODY_OK, "the 4,000: body %d %s",
                  filler.got[3].body, filler.got[3].message);

    pdk_local_hangup(a);
    pdk_local_hangup(b);
    pdk_server_close_sessions(srv);
    finish(srv);
}
END_TEST

/* A batch still queued when its session closes is answered, once, with
 * an Error naming why none of its entries applied. */
START_TEST(test_batch_answered_when_its_session_closes)
{
    pdk_server *srv = start();
    client cl = {0};
    pdk_conn *a = hello(srv, &cl, "closer");
    Paddock__V1__SessionCreate create = PADDOCK__V1__SESSION_CREATE__INIT;
    create.name = "closing";
    create.world_overrides = "maxVehicles=4";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 2;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATE;
    f.session_create = &create;
    send_frame(a, &f);
    run_until(srv, &cl, 2);
    const uint64_t sid = cl.session_id;
    send_spawn_batch(a, 3, sid, 4);
    run_until(srv, &cl, 3);
    ck_assert_int_eq(cl.last_body, PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY);

    send_dbw_batch(a, 4, sid, cl.vehicle, 10);
    Paddock__V1__SessionClose close = PADDOCK__V1__SESSION_CLOSE__INIT;
    close.session_id = sid;
    f = (Paddock__V1__Frame)PADDOCK__V1__FRAME__INIT;
    f.request_id = 5;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CLOSE;
    f.session_close = &close;
    send_frame(a, &f);
    run_until(srv, &cl, 5);
    expect_error(&cl, 3, 4, PADDOCK__V1__ERROR_CODE__CLOSED,
                 "commands[0] was refused when it applied",
                 "the session was closed before the input applied; all 10 of the batch's "
                 "entries were refused");
    ck_assert_uint_eq(cl.got[4].rid, 5);
    ck_assert_int_ne(cl.got[4].body, PADDOCK__V1__FRAME__BODY_ERROR);
    for (int i = 0; i < 20; i++)
        uv_run(pdk_server_loop(srv), UV_RUN_NOWAIT);
    ck_assert_int_eq(cl.frames, 5); /* answered once */

    pdk_local_hangup(a);
    pdk_server_close_sessions(srv);
    finish(srv);
}
END_TEST

/* The server closes its local clients when it stops, and makes no new
 * local listener once stopping. */
START_TEST(test_local_listener_closes_with_server)
{
    pdk_server *srv = start();
    char err[256];
    pdk_listener *local = pdk_server_local_listener(srv, err, sizeof err);
    ck_assert_ptr_nonnull(local);
    client cl = {0};
    pdk_local_peer peer = {.on_frame = client_frame, .on_close = client_close};
    pdk_conn *conn = pdk_local_open(local, &peer, &cl, "test");
    ck_assert_ptr_nonnull(conn);
    pdk_server_stop(srv);
    ck_assert_int_eq(cl.closes, 1);
    pdk_local_hangup(conn);
    err[0] = '\0';
    ck_assert_ptr_null(pdk_server_local_listener(srv, err, sizeof err));
    ck_assert_str_eq(err, "the server is stopping");
    uv_run(pdk_server_loop(srv), UV_RUN_DEFAULT);
    ck_assert_int_eq(pdk_server_finish(srv), 0);
    unlink(db);
    char path[160];
    snprintf(path, sizeof path, "%s-wal", db);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", db);
    unlink(path);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *server_local_suite(void)
{
    Suite *s = suite_create("server_local");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_local_client_served);
    tcase_add_test(tc, test_local_listener_closes_with_server);
    tcase_add_test(tc, test_batch_refused_by_a_full_queue_or_a_held_lease);
    tcase_add_test(tc, test_batch_answered_when_its_session_closes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(server_local_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
