/* Unit tests for the server run in parts (server.h: pdk_server_start, the
 * local listener, stop, finish), as tests/fuzz/fuzz_requests.c uses it: a
 * real server on a SQLite file in a temporary folder, a client in the
 * process through the in-process transport, served as a TCP one is. */
#include <check.h>
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
    char error[256];     /* the last Error's message */
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
    if (f->body_case == PADDOCK__V1__FRAME__BODY_ERROR)
        snprintf(cl->error, sizeof cl->error, "%s", f->error->message);
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
