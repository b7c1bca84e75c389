/* Issue 28's "no identity" attack replayed against the real paddockd on
 * loopback with an --auth file made here: a second identity can neither
 * change another's session nor read its recording, a join token gives
 * exactly its role, a viewer key stays a viewer whatever its Hello says,
 * wrong keys are refused and closed, session patterns and operators reach
 * what they should; and without --auth the server serves loopback only and
 * says so; with --auth, Foxglove's subprotocol (no Hello, so no key) is
 * refused. Owners and join tokens survive a restart, and go with a
 * session that leaves no recording or with a deleted recording; listings
 * show an identity only what it reaches; a key's role binds its lease
 * source. */
#include <check.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pb_decode.h>
#include <pb_encode.h>

#include "harness.h"
#include "paddock_client.h"

#define KEY_ADMIN "k-admin-2f9c1e7a5b3d"
#define KEY_OPS "k-ops-8d41c0b2e6f7"
#define KEY_ALICE "k-alice-71e3a9d05c4b"
#define KEY_MALLORY "k-mallory-c2b84f1e9a06"
#define KEY_EVE "k-eve-5a0d3c8e7b12"
#define KEY_ROBO "k-robo-e9f2740a1d3c"

static char log_text[1 << 16];
static char out[1 << 14];
static paddock_v1_Frame req, rep;
static pdk_client alice, mallory, other;
static pdk_test_server srv;
static char auth_path[300];

/* SHA-256 as the docs tell an operator to make it. */
static void sha256_hex(const char *key, char hex[65])
{
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), "printf %%s '%s' | sha256sum", key), 0);
    memcpy(hex, out, 64);
    hex[64] = '\0';
}

static void write_auth(const char *path)
{
    const char *names[] = {"boss", "ops", "alice", "mallory", "eve", "robo"};
    const char *roles[] = {"admin", "operator", "driver", "driver", "viewer", "autonomy"};
    const char *keys[] = {KEY_ADMIN, KEY_OPS, KEY_ALICE, KEY_MALLORY, KEY_EVE, KEY_ROBO};
    static char text[4096];
    size_t n = (size_t)snprintf(text, sizeof(text), "{\"keys\": [\n");
    for (int i = 0; i < 6; i++) {
        char hex[65];
        sha256_hex(keys[i], hex);
        n += (size_t)snprintf(text + n, sizeof(text) - n,
                              "  {\"name\": \"%s\", \"role\": \"%s\", \"sha256\": \"%s\"%s}%s\n",
                              names[i], roles[i], hex, i == 5 ? ", \"sessions\": [\"robo-*\"]" : "",
                              i < 5 ? "," : "");
    }
    snprintf(text + n, sizeof(text) - n, "]}\n");
    pdk_test_write_file(path, text);
}

static void setup(void)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    snprintf(auth_path, sizeof(auth_path), "%s/keys.json", dir);
    write_auth(auth_path);
    const char *extra[] = {"--auth", auth_path, NULL};
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
}

static void teardown(void)
{
    pdk_client_close(&alice);
    pdk_client_close(&mallory);
    pdk_client_close(&other);
    int rc = pdk_test_server_stop(&srv, log_text, sizeof(log_text));
    ck_assert_msg(rc == 0, "paddockd exited %d: %s", rc, log_text);
}

static void connect_key(pdk_client *c, const char *key, bool viewer, paddock_v1_Welcome *w)
{
    pdk_client_hello hello = {"auth-test", key, viewer, NULL};
    pdk_client_status st = pdk_client_connect_hello(c, srv.addr, 5000, &hello, w);
    ck_assert_msg(st == PDK_CLIENT_OK, "connect with %s: %s", key, c->error);
}

static pdk_client_status call(pdk_client *c)
{
    return pdk_client_call(c, &req, &rep, NULL, NULL);
}

/* The request in req is refused with code, its message holding each of the
 * NULL-terminated fragments. */
static void expect_refused(pdk_client *c, paddock_v1_ErrorCode code, const char *what, ...)
{
    pdk_client_status st = call(c);
    ck_assert_msg(st == PDK_CLIENT_ESERVER, "%s: not refused (%s)", what,
                  pdk_client_status_name(st));
    ck_assert_msg(c->server_code == code, "%s: %s", what, c->error);
    va_list ap;
    va_start(ap, what);
    for (const char *frag = va_arg(ap, const char *); frag; frag = va_arg(ap, const char *))
        ck_assert_msg(strstr(c->error, frag), "%s: '%s' lacks '%s'", what, c->error, frag);
    va_end(ap);
}

static void expect_denied(pdk_client *c, const char *what, const char *frag1, const char *frag2)
{
    expect_refused(c, paddock_v1_ErrorCode_PERMISSION_DENIED, what, frag1, frag2, NULL);
}

static uint64_t create(pdk_client *c, const char *name)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "create %s: %s", name, c->error);
    return rep.body.session_created.session.session_id;
}

static void set_spawn(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    snprintf(req.body.vehicle_spawn.preset, sizeof(req.body.vehicle_spawn.preset), "ref1_sedan");
}

static uint32_t spawn(pdk_client *c, uint64_t sid)
{
    set_spawn(sid);
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "spawn: %s", c->error);
    return rep.body.vehicle_spawned.vehicle_id;
}

static void set_control(uint64_t sid, pb_size_t action)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = action;
    if (action == paddock_v1_SessionControl_pause_tag)
        req.body.session_control.action.pause = true;
    else if (action == paddock_v1_SessionControl_resume_tag)
        req.body.session_control.action.resume = true;
    else if (action == paddock_v1_SessionControl_reseed_tag)
        req.body.session_control.action.reseed = 99;
}

static void set_tyre(uint64_t sid, uint32_t vid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_tyre_command_tag;
    req.body.tyre_command.session_id = sid;
    req.body.tyre_command.vehicle_id = vid;
    req.body.tyre_command.wheel_mask = 1;
    req.body.tyre_command.action = paddock_v1_TyreAction_TYRE_ACTION_PUNCTURE;
    req.body.tyre_command.value = 0.5;
}

static void set_remove(uint64_t sid, uint32_t vid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_remove_tag;
    req.body.vehicle_remove.session_id = sid;
    req.body.vehicle_remove.vehicle_id = vid;
}

static void set_close(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
}

static void set_verify(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_verify_request_tag;
    req.body.verify_request.session_id = sid;
}

static void set_export(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_export_request_tag;
    req.body.export_request.session_id = sid;
}

static void set_subscribe(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 10;
}

static const char *share(pdk_client *c, uint64_t sid, paddock_v1_Role role)
{
    static char token[64];
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_share_tag;
    req.body.session_share.session_id = sid;
    req.body.session_share.role = role;
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "share: %s", c->error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_session_share_reply_tag);
    ck_assert_uint_eq(strlen(rep.body.session_share_reply.token), 32);
    snprintf(token, sizeof(token), "%s", rep.body.session_share_reply.token);
    return token;
}

static paddock_v1_Role join(pdk_client *c, const char *token)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_join_tag;
    snprintf(req.body.session_join.token, sizeof(req.body.session_join.token), "%s", token);
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "join: %s", c->error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_session_joined_tag);
    return rep.body.session_joined.role;
}

static uint32_t vehicles_in(pdk_client *c, uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    ck_assert_int_eq(call(c), PDK_CLIENT_OK);
    for (pb_size_t i = 0; i < rep.body.session_list_reply.sessions_count; i++)
        if (rep.body.session_list_reply.sessions[i].session_id == sid)
            return rep.body.session_list_reply.sessions[i].vehicle_count;
    ck_abort_msg("session %" PRIu64 " is not listed", sid);
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int count_bytes(const uint8_t *data, size_t len, void *ud)
{
    (void)data;
    *(size_t *)ud += len;
    return 0;
}

/* The attack: while alice holds the DRIVER lease on her car, mallory
 * (another driver) tries everything the issue did, and each is refused
 * naming mallory, the session and its owner; alice's session is untouched. */
START_TEST(a_stranger_cannot_touch_anothers_session)
{
    paddock_v1_Welcome w;
    connect_key(&alice, KEY_ALICE, false, &w);
    ck_assert_str_eq(w.identity, "alice");
    ck_assert_int_eq(w.role, paddock_v1_Role_ROLE_DRIVER);
    uint64_t sid = create(&alice, "alice-run");
    uint32_t vid = spawn(&alice, sid);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_control_lease_tag;
    req.body.control_lease.session_id = sid;
    req.body.control_lease.vehicle_id = vid;
    req.body.control_lease.source = paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER;
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "lease: %s", alice.error);

    connect_key(&mallory, KEY_MALLORY, false, &w);
    ck_assert_str_eq(w.identity, "mallory");
    char sess[48];
    snprintf(sess, sizeof(sess), "session %" PRIu64, sid);
    set_spawn(sid);
    expect_denied(&mallory, "spawn", "identity 'mallory' (driver) may not send vehicle_spawn",
                  sess);
    set_control(sid, paddock_v1_SessionControl_pause_tag);
    expect_denied(&mallory, "pause", "session_control", "it belongs to 'alice'");
    set_control(sid, paddock_v1_SessionControl_resume_tag);
    expect_denied(&mallory, "resume", "session_control", sess);
    set_control(sid, paddock_v1_SessionControl_reseed_tag);
    expect_denied(&mallory, "reseed", "session_control", sess);
    set_tyre(sid, vid);
    expect_denied(&mallory, "puncture", "tyre_command", "it belongs to 'alice'");
    set_remove(sid, vid);
    expect_denied(&mallory, "remove", "vehicle_remove", sess);
    set_close(sid);
    expect_denied(&mallory, "close", "session_close", sess);
    set_subscribe(sid);
    expect_denied(&mallory, "subscribe", "subscribe", sess);
    set_verify(sid);
    expect_denied(&mallory, "verify", "verify_request", "SessionShare");
    set_export(sid);
    expect_denied(&mallory, "export", "export_request", sess);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_share_tag;
    req.body.session_share.session_id = sid;
    req.body.session_share.role = paddock_v1_Role_ROLE_DRIVER;
    expect_denied(&mallory, "share", "session_share", "only its owner");

    /* Nothing of it touched alice's session: her car is there, it was never
     * paused, and her own commands still go through. */
    ck_assert_uint_eq(vehicles_in(&alice, sid), 1);
    ck_assert(!rep.body.session_list_reply.sessions[0].paused);
    set_tyre(sid, vid);
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "owner's puncture: %s", alice.error);
    /* Mallory's own session is hers to run. */
    uint64_t mine = create(&mallory, "mallory-run");
    spawn(&mallory, mine);
    set_close(mine);
    ck_assert_int_eq(call(&mallory), PDK_CLIENT_OK);
}
END_TEST

/* Tokens: a viewer token lets mallory watch and nothing more, a driver
 * token lets her drive and pause but not share further, and after the
 * session closed it still lets her verify and export its recording. A
 * token never lifts a viewer key above viewer. */
START_TEST(a_join_token_gives_exactly_its_role)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    connect_key(&mallory, KEY_MALLORY, false, NULL);
    uint64_t sid = create(&alice, "alice-shared");
    uint32_t vid = spawn(&alice, sid);
    char sess[48];
    snprintf(sess, sizeof(sess), "session %" PRIu64, sid);

    ck_assert_int_eq(join(&mallory, share(&alice, sid, paddock_v1_Role_ROLE_VIEWER)),
                     paddock_v1_Role_ROLE_VIEWER);
    set_subscribe(sid);
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "viewer token subscribe: %s", mallory.error);
    set_tyre(sid, vid);
    expect_denied(&mallory, "viewer token puncture", "has the role viewer on session",
                  "may not send tyre_command");

    ck_assert_int_eq(join(&mallory, share(&alice, sid, paddock_v1_Role_ROLE_DRIVER)),
                     paddock_v1_Role_ROLE_DRIVER);
    spawn(&mallory, sid);
    set_control(sid, paddock_v1_SessionControl_pause_tag);
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "driver token pause: %s", mallory.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_share_tag;
    req.body.session_share.session_id = sid;
    req.body.session_share.role = paddock_v1_Role_ROLE_VIEWER;
    expect_denied(&mallory, "token holder shares", "only its owner", sess);
    /* Alice, a driver, cannot hand out more than she has. */
    req.body.session_share.role = paddock_v1_Role_ROLE_ADMIN;
    expect_denied(&alice, "share as admin", "has the role driver", "cannot share it as admin");

    /* A viewer key joining with a driver token stays a viewer. */
    connect_key(&other, KEY_EVE, false, NULL);
    ck_assert_int_eq(join(&other, share(&alice, sid, paddock_v1_Role_ROLE_DRIVER)),
                     paddock_v1_Role_ROLE_VIEWER);
    set_spawn(sid);
    expect_denied(&other, "eve spawn", "identity 'eve' has the role viewer", sess);
    pdk_client_close(&other);

    /* A token nobody handed out. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_join_tag;
    snprintf(req.body.session_join.token, sizeof(req.body.session_join.token),
             "00000000000000000000000000000000");
    expect_denied(&mallory, "forged token", "not one this server handed out", NULL);

    /* The recording, once closed, is readable by the token's holder. */
    set_control(sid, paddock_v1_SessionControl_resume_tag);
    ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    sleep_ms(300);
    set_close(sid);
    ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    set_verify(sid);
    mallory.timeout_ms = 30000;
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "verify by token: %s", mallory.error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_verify_reply_tag);
    ck_assert(rep.body.verify_reply.match);
    ck_assert_uint_gt(rep.body.verify_reply.hashes_checked, 0);
    size_t bytes = 0;
    set_export(sid);
    ck_assert_msg(pdk_client_download(&mallory, &req, count_bytes, &bytes, NULL, NULL, NULL) ==
                      PDK_CLIENT_OK,
                  "export by token: %s", mallory.error);
    ck_assert_uint_gt(bytes, 0);
    /* And still not by a stranger. */
    connect_key(&other, KEY_ROBO, false, NULL);
    set_verify(sid);
    expect_denied(&other, "robo verify", "identity 'robo'", sess);
}
END_TEST

/* A session closed without a recording leaves nothing to reach: its join
 * tokens no longer join, and the grants they gave no longer count against
 * a connection's sessions, so a long-lived client joins session after
 * session. A closed session's recording keeps its tokens until the
 * recording is deleted. */
START_TEST(a_closed_session_leaves_only_its_recording)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    connect_key(&mallory, KEY_MALLORY, false, NULL);
    char token[64];
    for (int i = 0; i < 16 + 1; i++) { /* one more than a connection's 16 grants */
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_session_create_tag;
        snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "brief-%d", i);
        req.body.session_create.no_record = true;
        ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "create brief-%d: %s", i, alice.error);
        uint64_t sid = rep.body.session_created.session.session_id;
        snprintf(token, sizeof(token), "%s", share(&alice, sid, paddock_v1_Role_ROLE_VIEWER));
        ck_assert_int_eq(join(&mallory, token), paddock_v1_Role_ROLE_VIEWER);
        set_close(sid);
        ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    }
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_join_tag;
    snprintf(req.body.session_join.token, sizeof(req.body.session_join.token), "%s", token);
    expect_denied(&mallory, "a closed session's token", "not one this server handed out", NULL);

    uint64_t sid = create(&alice, "alice-kept");
    snprintf(token, sizeof(token), "%s", share(&alice, sid, paddock_v1_Role_ROLE_VIEWER));
    set_close(sid);
    ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    ck_assert_int_eq(join(&mallory, token), paddock_v1_Role_ROLE_VIEWER);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_delete_tag;
    req.body.recording_delete.session_id = sid;
    alice.timeout_ms = 30000;
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "delete: %s", alice.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_join_tag;
    snprintf(req.body.session_join.token, sizeof(req.body.session_join.token), "%s", token);
    expect_denied(&mallory, "a deleted recording's token", "not one this server handed out", NULL);
    set_verify(sid);
    expect_denied(&mallory, "verify of a deleted recording", "identity 'mallory'", NULL);

    /* The retention rule's deletions take the tokens with them too. */
    pdk_client_close(&alice);
    pdk_client_close(&mallory);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
    const char *extra[] = {"--auth", auth_path, "--retain-bytes", "1", NULL};
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    connect_key(&alice, KEY_ALICE, false, NULL);
    connect_key(&mallory, KEY_MALLORY, false, NULL);
    sid = create(&alice, "alice-retired");
    snprintf(token, sizeof(token), "%s", share(&alice, sid, paddock_v1_Role_ROLE_VIEWER));
    set_close(sid);
    ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    char line[96];
    snprintf(line, sizeof(line), "retention deleted recording %" PRIu64 " ", sid);
    for (int i = 0; i < 100 && !strstr(log_text, line); i++) {
        sleep_ms(50);
        pdk_test_read_log(&srv, log_text, sizeof(log_text));
    }
    ck_assert_msg(strstr(log_text, line), "no '%s' in: %s", line, log_text);
    /* The line is written on the pool, before the loop hears the run end. */
    pdk_client_status st = PDK_CLIENT_OK;
    for (int i = 0; i < 100 && st == PDK_CLIENT_OK; i++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_session_join_tag;
        snprintf(req.body.session_join.token, sizeof(req.body.session_join.token), "%s", token);
        st = call(&mallory);
        if (st == PDK_CLIENT_OK)
            sleep_ms(20);
    }
    ck_assert_msg(st == PDK_CLIENT_ESERVER &&
                      mallory.server_code == paddock_v1_ErrorCode_PERMISSION_DENIED &&
                      strstr(mallory.error, "not one this server handed out"),
                  "a retired recording's token: %s", mallory.error);
}
END_TEST

/* The role is the key's: a viewer key saying viewer:false creates nothing
 * and changes nothing; a driver saying viewer:true is a viewer. */
START_TEST(a_viewer_key_cannot_change_whatever_its_hello_says)
{
    paddock_v1_Welcome w;
    connect_key(&other, KEY_EVE, false, &w);
    ck_assert_str_eq(w.identity, "eve");
    ck_assert_int_eq(w.role, paddock_v1_Role_ROLE_VIEWER);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    expect_denied(&other, "viewer creates", "identity 'eve' has the role viewer",
                  "may not send session_create");

    connect_key(&alice, KEY_ALICE, true, &w);
    ck_assert_int_eq(w.role, paddock_v1_Role_ROLE_VIEWER);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    expect_refused(&alice, paddock_v1_ErrorCode_PROTOCOL, "hello viewer creates",
                   "said Hello as a viewer", NULL);
}
END_TEST

/* Sends a Hello with key by hand and reads until the server closes. */
static const paddock_v1_Error *hello_refused(const char *key)
{
    static paddock_v1_Frame f;
    static uint8_t bytes[4096];
    int fd = pdk_test_raw_connect(srv.port);
    ck_assert_int_ge(fd, 0);
    memset(&f, 0, sizeof(f));
    f.request_id = 1;
    f.which_body = paddock_v1_Frame_hello_tag;
    f.body.hello.protocol_version = 1;
    snprintf(f.body.hello.api_key, sizeof(f.body.hello.api_key), "%s", key);
    pb_ostream_t os = pb_ostream_from_buffer(bytes, sizeof(bytes));
    ck_assert(pb_encode_ex(&os, paddock_v1_Frame_fields, &f, PB_ENCODE_DELIMITED));
    ck_assert_int_eq(write(fd, bytes, os.bytes_written), (ssize_t)os.bytes_written);
    /* Read to EOF: the server closes after the Error. */
    ssize_t n = pdk_test_read_all(fd, bytes, sizeof(bytes), 5000);
    close(fd);
    ck_assert_int_gt(n, 0);
    pb_istream_t is = pb_istream_from_buffer(bytes, (size_t)n);
    memset(&f, 0, sizeof(f));
    ck_assert(pb_decode_ex(&is, paddock_v1_Frame_fields, &f, PB_DECODE_DELIMITED));
    ck_assert_uint_eq(f.which_body, paddock_v1_Frame_error_tag);
    ck_assert_msg(is.bytes_left == 0, "more than one frame before the close");
    return &f.body.error;
}

START_TEST(wrong_or_missing_keys_are_refused_and_closed)
{
    const paddock_v1_Error *e = hello_refused("k-not-a-key");
    ck_assert_int_eq(e->code, paddock_v1_ErrorCode_UNAUTHENTICATED);
    ck_assert_msg(strstr(e->message, "not one of this server's keys"), "%s", e->message);
    e = hello_refused("");
    ck_assert_int_eq(e->code, paddock_v1_ErrorCode_UNAUTHENTICATED);
    ck_assert_msg(strstr(e->message, "must carry an api_key"), "%s", e->message);
    /* The client library reports it as the server's refusal. */
    pdk_client_hello hello = {"auth-test", KEY_ALICE "x", false, NULL};
    ck_assert_int_eq(pdk_client_connect_hello(&other, srv.addr, 5000, &hello, NULL),
                     PDK_CLIENT_ESERVER);
    ck_assert_int_eq(other.server_code, paddock_v1_ErrorCode_UNAUTHENTICATED);
    /* The CLI takes the key from --api-key or $PADDOCK_API_KEY. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), PDK_PADDOCK " --server %s sessions", srv.addr),
                     3);
    ck_assert_msg(strstr(out, "UNAUTHENTICATED"), "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCK " --server %s --api-key " KEY_EVE " sessions",
                                 srv.addr),
                     0);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "PADDOCK_API_KEY=" KEY_EVE " " PDK_PADDOCK " --server %s create",
                                 srv.addr),
                     1);
    ck_assert_msg(strstr(out, "PERMISSION_DENIED") && strstr(out, "identity 'eve'"), "%s", out);
}
END_TEST

/* An operator and an admin act on any session; a key limited to robo-*
 * sessions acts on those only. */
START_TEST(operators_admins_and_patterns_reach_what_they_should)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    uint64_t run = create(&alice, "alice-run");
    uint64_t robo_sid = create(&alice, "robo-7");
    connect_key(&other, KEY_OPS, false, NULL);
    set_control(run, paddock_v1_SessionControl_pause_tag);
    ck_assert_msg(call(&other) == PDK_CLIENT_OK, "operator pause: %s", other.error);
    pdk_client_close(&other);

    connect_key(&mallory, KEY_ROBO, false, NULL);
    spawn(&mallory, robo_sid);
    set_spawn(run);
    expect_denied(&mallory, "robo outside its pattern", "identity 'robo' (autonomy)",
                  "it belongs to 'alice'");

    connect_key(&other, KEY_ADMIN, false, NULL);
    set_close(run);
    ck_assert_msg(call(&other) == PDK_CLIENT_OK, "admin close: %s", other.error);
}
END_TEST

/* The HTTP status of a WebSocket upgrade to path offering subprotocol
 * (0: the server closed without a status line). */
static int upgrade_status(int port, const char *path, const char *subprotocol)
{
    int fd = pdk_test_raw_connect(port);
    ck_assert_int_ge(fd, 0);
    char rq[512];
    int n = snprintf(rq, sizeof(rq),
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                     "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Protocol: %s\r\n\r\n",
                     path, subprotocol);
    ck_assert_int_eq(write(fd, rq, (size_t)n), n);
    uint8_t got[1024];
    ssize_t len = pdk_test_read_all(fd, got, sizeof(got) - 1, 2000);
    close(fd);
    if (len <= 0)
        return 0;
    got[len] = '\0';
    int status = 0;
    if (sscanf((const char *)got, "HTTP/1.1 %d", &status) != 1)
        return 0;
    return status;
}

/* Start-up: bad key files are refused naming what is wrong; without
 * --auth a non-loopback listen is refused, a loopback one says so; with
 * --auth any address is allowed and Foxglove's server is off. */
START_TEST(start_up_checks)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    char hex[65];
    sha256_hex("k", hex);
    struct {
        const char *text;
        const char *says;
    } bad[] = {
        {"{\"keys\": [\n  {\"name\": \"a\",,}\n]}", "line 2"},
        {"{\"keys\": []}", "at least one key"},
        {"{\"keys\": [{\"name\": \"a\", \"role\": \"root\", \"sha256\": \"@\"}]}",
         "keys[0] (\"a\"): role: 'root' is not one of admin"},
        {"{\"keys\": [{\"name\": \"a\", \"role\": \"admin\", \"sha256\": \"abc\"}]}",
         "keys[0] (\"a\"): sha256 must be"},
        {"{\"keys\": [{\"name\": \"a\", \"role\": \"admin\", \"sha256\": \"@\", \"key\": 1}]}",
         "keys[0]: unknown field 'key'"},
        {"{\"keys\": [{\"name\": \"a\", \"role\": \"admin\", \"sha256\": \"@\"}, {\"name\": "
         "\"a\", \"role\": \"viewer\", \"sha256\": \"@\"}]}",
         "keys[1]: name \"a\" is also keys[0]'s"},
        {"{\"keys\": [{\"name\": \"a\", \"role\": \"admin\", \"sha256\": \"@\", \"sessions\": "
         "[3]}]}",
         "keys[0] (\"a\"): sessions[0] must be a pattern"},
    };
    char path[320];
    snprintf(path, sizeof(path), "%s/bad.json", dir);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        /* Each @ stands for a well-formed digest. */
        char text[1024];
        size_t n = 0;
        for (const char *p = bad[i].text; *p && n + 65 < sizeof(text); p++) {
            if (*p == '@') {
                memcpy(text + n, hex, 64);
                n += 64;
            } else {
                text[n++] = *p;
            }
        }
        text[n] = '\0';
        pdk_test_write_file(path, text);
        ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                     PDK_PADDOCKD " --listen 127.0.0.1:0 --db %s/x.db --auth %s",
                                     dir, path),
                         1);
        ck_assert_msg(strstr(out, bad[i].says) && strstr(out, path), "%zu: %s", i, out);
    }
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCKD " --listen 127.0.0.1:0 --db %s/x.db --auth %s/none",
                                 dir, dir),
                     1);
    ck_assert_msg(strstr(out, "none: cannot be read"), "%s", out);
    const char *nets[][2] = {{"--listen", "0.0.0.0:0"}, {"--http", "192.0.2.1:0"}};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pdk_test_sh(out, sizeof(out), PDK_PADDOCKD " %s %s --db %s/x.db",
                                     nets[i][0], nets[i][1], dir),
                         1);
        char says[128];
        snprintf(says, sizeof(says), "%s %s is not a loopback address", nets[i][0], nets[i][1]);
        ck_assert_msg(strstr(out, says) && strstr(out, "--auth"), "%s", out);
    }
    /* The start messages, with and without keys. */
    pdk_test_server plain;
    ck_assert_int_eq(pdk_test_server_start(&plain, NULL, NULL, log_text, sizeof(log_text)), 0);
    ck_assert_int_eq(pdk_test_server_stop(&plain, log_text, sizeof(log_text)), 0);
    ck_assert_msg(strstr(log_text, "no --auth: serving loopback clients only"), "%s", log_text);
    write_auth(path);
    const char *extra[] = {"--auth", path, "--http", "127.0.0.1:0", NULL};
    ck_assert_int_eq(pdk_test_server_start(&plain, NULL, extra, log_text, sizeof(log_text)), 0);
    /* Foxglove's subprotocol is refused at the handshake; Paddock's is not. */
    /* The HTTP listener's line may follow the TCP one the harness waited
     * for (a slow, sanitized start): read the log until it is there. */
    const char *at = NULL;
    for (int tries = 0; tries < 100 && at == NULL; tries++) {
        if (tries > 0)
            pdk_test_sleep_ms(50);
        pdk_test_read_log(&plain, log_text, sizeof(log_text));
        at = strstr(log_text, "http on 127.0.0.1:");
    }
    ck_assert_msg(at != NULL, "%s", log_text);
    int http_port = atoi(at + strlen("http on 127.0.0.1:"));
    ck_assert_int_eq(upgrade_status(http_port, "/", "foxglove.websocket.v1"), 0);
    ck_assert_int_eq(upgrade_status(http_port, "/v1/ws", "paddock.v1"), 101);
    ck_assert_int_eq(pdk_test_server_stop(&plain, log_text, sizeof(log_text)), 0);
    ck_assert_msg(strstr(log_text, "6 keys; every client must send one in Hello"), "%s", log_text);
    ck_assert_msg(strstr(log_text, "the Foxglove WebSocket server is off"), "%s", log_text);
}
END_TEST

/* The --demo session is nobody's: a driver does not reach it, a key whose
 * pattern matches its name does. */
START_TEST(the_demo_is_nobodys)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    char a[65], w[65];
    sha256_hex(KEY_ALICE, a);
    sha256_hex(KEY_EVE, w);
    static char text[1024];
    snprintf(text, sizeof(text),
             "{\"keys\": [{\"name\": \"alice\", \"role\": \"driver\", \"sha256\": \"%s\"},"
             " {\"name\": \"wall\", \"role\": \"viewer\", \"sha256\": \"%s\", "
             "\"sessions\": [\"demo\"]}]}",
             a, w);
    char path[320];
    snprintf(path, sizeof(path), "%s/keys.json", dir);
    pdk_test_write_file(path, text);
    const char *extra[] = {"--auth", path, "--demo", NULL};
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    connect_key(&alice, KEY_ALICE, false, NULL);
    set_subscribe(1);
    expect_denied(&alice, "driver watches the demo", "session 1: it has no owner here", NULL);
    connect_key(&other, KEY_EVE, false, NULL);
    set_subscribe(1);
    ck_assert_msg(call(&other) == PDK_CLIENT_OK, "pattern key watches the demo: %s", other.error);
    teardown();
}
END_TEST

/* Whether a SessionList from c shows sid; *total gets the reply's total. */
static bool session_listed(pdk_client *c, uint64_t sid, uint32_t *total)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "SessionList: %s", c->error);
    *total = rep.body.session_list_reply.total;
    for (pb_size_t i = 0; i < rep.body.session_list_reply.sessions_count; i++)
        if (rep.body.session_list_reply.sessions[i].session_id == sid)
            return true;
    return false;
}

/* Whether a RecordingList from c, filtered to names holding name_part,
 * shows sid; *total gets the reply's total. */
static bool recording_listed(pdk_client *c, const char *name_part, uint64_t sid, uint32_t *total)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_list_tag;
    snprintf(req.body.recording_list.name_contains, sizeof(req.body.recording_list.name_contains),
             "%s", name_part);
    c->timeout_ms = 30000;
    ck_assert_msg(call(c) == PDK_CLIENT_OK, "RecordingList: %s", c->error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_recording_list_reply_tag);
    *total = rep.body.recording_list_reply.total;
    for (pb_size_t i = 0; i < rep.body.recording_list_reply.recordings_count; i++)
        if (rep.body.recording_list_reply.recordings[i].session_id == sid)
            return true;
    return false;
}

static void set_meta(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_meta_request_tag;
    req.body.session_meta_request.session_id = sid;
}

/* Issue 28's owners across a restart: alice records a session and shares
 * it with a viewer token; after paddockd restarts on the same database she
 * still verifies, exports, replays and reads the metadata of her
 * recording, mallory is refused by name until she joins with the token,
 * and the file holds alice's name and the token's digest but never the
 * token. */
START_TEST(owners_and_tokens_survive_a_restart)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    uint64_t sid = create(&alice, "alice-kept");
    spawn(&alice, sid);
    char token[64];
    snprintf(token, sizeof(token), "%s", share(&alice, sid, paddock_v1_Role_ROLE_VIEWER));
    sleep_ms(300);
    set_close(sid);
    ck_assert_int_eq(call(&alice), PDK_CLIENT_OK);
    pdk_client_close(&alice);

    char db[320];
    snprintf(db, sizeof(db), "%s", srv.db);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "sqlite3 %s 'SELECT owner FROM session_owners WHERE "
                                 "session_id = %" PRIu64 "'",
                                 db, sid),
                     0);
    ck_assert_str_eq(out, "alice\n");
    char digest[65];
    sha256_hex(token, digest);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "sqlite3 %s 'SELECT lower(hex(token_sha256)), role FROM "
                                 "join_tokens WHERE session_id = %" PRIu64 "'",
                                 db, sid),
                     0);
    ck_assert_msg(strncmp(out, digest, 64) == 0 && strcmp(out + 64, "|5\n") == 0, "%s", out);
    /* grep exits 1: no line of the database or its WAL holds the token. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), "grep -c %s %s*", token, db), 1);

    const char *extra[] = {"--auth", auth_path, NULL};
    ck_assert_msg(pdk_test_server_start(&srv, db, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not restart: %s", log_text);
    pdk_test_read_log(&srv, log_text, sizeof(log_text));
    ck_assert_msg(strstr(log_text, "1 recorded session owner and 1 join token read"), "%s",
                  log_text);

    connect_key(&alice, KEY_ALICE, false, NULL);
    alice.timeout_ms = 30000;
    set_verify(sid);
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "owner's verify after restart: %s", alice.error);
    ck_assert(rep.body.verify_reply.match);
    ck_assert_uint_gt(rep.body.verify_reply.hashes_checked, 0);
    size_t bytes = 0;
    set_export(sid);
    ck_assert_msg(pdk_client_download(&alice, &req, count_bytes, &bytes, NULL, NULL, NULL) ==
                      PDK_CLIENT_OK,
                  "owner's export after restart: %s", alice.error);
    ck_assert_uint_gt(bytes, 0);
    set_meta(sid);
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "owner's meta after restart: %s", alice.error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_session_meta_tag);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    req.body.replay_open.paused = true;
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "owner's replay after restart: %s", alice.error);
    ck_assert_uint_eq(rep.which_body, paddock_v1_Frame_session_created_tag);
    uint32_t total = 0;
    ck_assert(recording_listed(&alice, "alice-kept", sid, &total));

    char sess[48];
    snprintf(sess, sizeof(sess), "session %" PRIu64, sid);
    connect_key(&mallory, KEY_MALLORY, false, NULL);
    set_verify(sid);
    expect_denied(&mallory, "stranger's verify after restart", "identity 'mallory' (driver)",
                  "it belongs to 'alice'");
    set_export(sid);
    expect_denied(&mallory, "stranger's export after restart", "export_request", sess);
    set_meta(sid);
    expect_denied(&mallory, "stranger's meta after restart", "session_meta_request", sess);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    expect_denied(&mallory, "stranger's replay after restart", "replay_open", sess);
    ck_assert(!recording_listed(&mallory, "alice-kept", sid, &total));
    ck_assert_uint_eq(total, 0);
    /* The token given before the restart still opens the recording. */
    ck_assert_int_eq(join(&mallory, token), paddock_v1_Role_ROLE_VIEWER);
    set_verify(sid);
    mallory.timeout_ms = 30000;
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "verify by an old token: %s", mallory.error);
    ck_assert(rep.body.verify_reply.match);
    ck_assert(recording_listed(&mallory, "alice-kept", sid, &total));
}
END_TEST

/* Listings show an identity only what it reaches: its own sessions, those
 * shared with its connection, those its patterns match, every one for an
 * operator; SessionList and RecordingList alike, their totals counting
 * only those; and StatsSubscribe names a session like any read. */
START_TEST(listings_show_only_what_an_identity_reaches)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    connect_key(&mallory, KEY_MALLORY, false, NULL);
    uint64_t a = create(&alice, "list-alice");
    uint64_t m = create(&mallory, "list-mallory");
    uint32_t total = 0;
    ck_assert(session_listed(&alice, a, &total));
    ck_assert(!session_listed(&alice, m, &total));
    ck_assert_uint_eq(total, 1);
    ck_assert(session_listed(&mallory, m, &total));
    ck_assert(!session_listed(&mallory, a, &total));
    ck_assert_uint_eq(total, 1);
    ck_assert(recording_listed(&alice, "list-", a, &total));
    ck_assert(!recording_listed(&alice, "list-", m, &total));
    ck_assert_uint_eq(total, 1);

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_stats_subscribe_tag;
    req.body.stats_subscribe.session_id = a;
    char sess[48];
    snprintf(sess, sizeof(sess), "session %" PRIu64, a);
    expect_denied(&mallory, "stranger's stats", "may not send stats_subscribe", sess);

    /* A viewer key sees nothing until a token shares a session with it. */
    connect_key(&other, KEY_EVE, false, NULL);
    ck_assert(!session_listed(&other, a, &total));
    ck_assert_uint_eq(total, 0);
    ck_assert(!recording_listed(&other, "list-", a, &total));
    ck_assert_uint_eq(total, 0);
    join(&other, share(&alice, a, paddock_v1_Role_ROLE_VIEWER));
    ck_assert(session_listed(&other, a, &total));
    ck_assert_uint_eq(total, 1);
    ck_assert(recording_listed(&other, "list-", a, &total));
    ck_assert_uint_eq(total, 1);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_stats_subscribe_tag;
    req.body.stats_subscribe.session_id = a;
    ck_assert_msg(call(&other) == PDK_CLIENT_OK, "shared stats: %s", other.error);
    pdk_client_close(&other);

    /* An operator sees both. */
    connect_key(&other, KEY_OPS, false, NULL);
    ck_assert(session_listed(&other, a, &total) && session_listed(&other, m, &total));
    ck_assert_uint_eq(total, 2);
    ck_assert(recording_listed(&other, "list-", a, &total));
    ck_assert(recording_listed(&other, "list-", m, &total));
    ck_assert_uint_eq(total, 2);
}
END_TEST

/* A key's role binds its lease source: a driver takes no AUTONOMY lease
 * and an autonomy stack no DRIVER one, neither by ControlLease nor by the
 * commands that take a lease when it is free; an operator takes either. */
START_TEST(a_keys_role_binds_its_lease_source)
{
    connect_key(&alice, KEY_ALICE, false, NULL);
    uint64_t sid = create(&alice, "robo-lease");
    uint32_t vid = spawn(&alice, sid);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_control_lease_tag;
    req.body.control_lease.session_id = sid;
    req.body.control_lease.vehicle_id = vid;
    req.body.control_lease.source = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    expect_denied(&alice, "driver takes AUTONOMY", "identity 'alice' has the role driver",
                  "may not take the AUTONOMY lease");
    req.body.control_lease.source = paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER;
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "driver takes DRIVER: %s", alice.error);
    req.body.control_lease.release = true;
    ck_assert_msg(call(&alice) == PDK_CLIENT_OK, "driver releases DRIVER: %s", alice.error);

    /* robo's pattern (robo-*) reaches the session with its autonomy role. */
    connect_key(&mallory, KEY_ROBO, false, NULL);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_control_lease_tag;
    req.body.control_lease.session_id = sid;
    req.body.control_lease.vehicle_id = vid;
    req.body.control_lease.source = paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER;
    expect_denied(&mallory, "autonomy takes DRIVER", "identity 'robo' has the role autonomy",
                  "may not take the DRIVER lease");
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_dbw_command_tag;
    req.body.dbw_command.session_id = sid;
    req.body.dbw_command.vehicle_id = vid;
    req.body.dbw_command.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
    req.body.dbw_command.throttle.throttle_pct = 10;
    expect_denied(&mallory, "autonomy drives by DbwCommand", "has the role autonomy",
                  "DRIVER lease");
    /* A batch's entries drive through the same lease: refused whole. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_dbw_command_batch_tag;
    req.body.dbw_command_batch.session_id = sid;
    req.body.dbw_command_batch.commands_count = 2;
    for (int i = 0; i < 2; i++) {
        req.body.dbw_command_batch.commands[i].vehicle_id = vid;
        req.body.dbw_command_batch.commands[i].which_throttle =
            paddock_v1_DbwCommand_throttle_pct_tag;
        req.body.dbw_command_batch.commands[i].throttle.throttle_pct = 10;
    }
    expect_denied(&mallory, "autonomy drives by DbwCommandBatch", "has the role autonomy",
                  "may not take the DRIVER lease of vehicle");
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_control_lease_tag;
    req.body.control_lease.session_id = sid;
    req.body.control_lease.vehicle_id = vid;
    req.body.control_lease.source = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "autonomy takes AUTONOMY: %s", mallory.error);
    req.body.control_lease.release = true;
    ck_assert_msg(call(&mallory) == PDK_CLIENT_OK, "autonomy releases: %s", mallory.error);

    connect_key(&other, KEY_OPS, false, NULL);
    req.body.control_lease.release = false;
    ck_assert_msg(call(&other) == PDK_CLIENT_OK, "operator takes AUTONOMY: %s", other.error);
}
END_TEST

/* A database whose recorded join tokens cannot be read stops the start,
 * exit status 1, naming what was wrong: the server never serves with half
 * of its owners and tokens. */
START_TEST(unreadable_recorded_tokens_stop_the_start)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    char keys[300];
    snprintf(keys, sizeof(keys), "%s/keys.json", dir);
    write_auth(keys);
    const char *extra[] = {"--auth", keys, NULL};
    ck_assert_int_eq(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)), 0);
    char db[320];
    snprintf(db, sizeof(db), "%s", srv.db);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "sqlite3 %s \"INSERT INTO join_tokens VALUES (x'0102', 1, 5)\"",
                                 db),
                     0);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCKD " --listen 127.0.0.1:0 --db %s --auth %s", db, keys),
                     1);
    ck_assert_msg(strstr(out, "paddockd: reading the recorded owners and join tokens: ") &&
                      strstr(out, "a join token of session 1 is not a 32-byte SHA-256"),
                  "%s", out);
}
END_TEST

/* Without --auth every loopback client is the admin 'local': each lists
 * every session and recording, as before identities. */
START_TEST(without_auth_listings_show_everything)
{
    ck_assert_int_eq(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)), 0);
    ck_assert_int_eq(pdk_client_connect_as(&alice, srv.addr, 5000, "one", NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_client_connect_as(&mallory, srv.addr, 5000, "two", NULL), PDK_CLIENT_OK);
    uint64_t a = create(&alice, "plain-one");
    uint64_t m = create(&mallory, "plain-two");
    uint32_t total = 0;
    ck_assert(session_listed(&alice, m, &total) && session_listed(&mallory, a, &total));
    ck_assert_uint_eq(total, 2);
    ck_assert(recording_listed(&alice, "plain-", m, &total));
    ck_assert(recording_listed(&mallory, "plain-", a, &total));
    ck_assert_uint_eq(total, 2);
    teardown();
}
END_TEST

static Suite *auth_suite(void)
{
    Suite *s = suite_create("integration_auth");
    TCase *tc = tcase_create("auth");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_stranger_cannot_touch_anothers_session);
    tcase_add_test(tc, a_join_token_gives_exactly_its_role);
    tcase_add_test(tc, a_closed_session_leaves_only_its_recording);
    tcase_add_test(tc, a_viewer_key_cannot_change_whatever_its_hello_says);
    tcase_add_test(tc, wrong_or_missing_keys_are_refused_and_closed);
    tcase_add_test(tc, operators_admins_and_patterns_reach_what_they_should);
    tcase_add_test(tc, owners_and_tokens_survive_a_restart);
    tcase_add_test(tc, listings_show_only_what_an_identity_reaches);
    tcase_add_test(tc, a_keys_role_binds_its_lease_source);
    suite_add_tcase(s, tc);
    TCase *start = tcase_create("start");
    tcase_set_timeout(start, 60);
    tcase_add_test(start, start_up_checks);
    tcase_add_test(start, the_demo_is_nobodys);
    tcase_add_test(start, without_auth_listings_show_everything);
    tcase_add_test(start, unreadable_recorded_tokens_stop_the_start);
    suite_add_tcase(s, start);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(auth_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
