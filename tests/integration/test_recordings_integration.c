/* End-to-end tests of browsing recordings (docs/protocol.md "Browsing
 * recordings"): the real paddockd on loopback with a real SQLite file, the
 * real C client and the real `paddock recordings`. What a database holds
 * is listed after a restart, with its ticks, vehicles, presets and the
 * interrupted one; deletion is refused for live sessions, replays and
 * viewers; retention deletes the oldest finished recording. */
#include <check.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

#define CLI PDK_PADDOCK " --server %s "

static char log_text[1 << 16];
static char out[1 << 16];
static paddock_v1_Frame req, rep;

static void start(pdk_test_server *srv, const char *db, const char *const *extra)
{
    ck_assert_msg(pdk_test_server_start(srv, db, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
}

static uint64_t new_session(pdk_client *c, const char *name, const char *world)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    snprintf(req.body.session_create.world_preset, sizeof(req.body.session_create.world_preset),
             "%s", world);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.session_created.session.session_id;
}

static void spawn(pdk_client *c, uint64_t sid, const char *preset)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    snprintf(req.body.vehicle_spawn.preset, sizeof(req.body.vehicle_spawn.preset), "%s", preset);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
}

static uint64_t close_session(pdk_client *c, uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.ok.tick;
}

/* One page of RecordingList from offset, filtered by f (may be NULL). */
static const paddock_v1_RecordingListReply *list(pdk_client *c, const paddock_v1_RecordingList *f,
                                                 uint32_t offset, uint32_t limit)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_list_tag;
    if (f)
        req.body.recording_list = *f;
    req.body.recording_list.offset = offset;
    req.body.recording_list.limit = limit;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_recording_list_reply_tag);
    return &rep.body.recording_list_reply;
}

static pdk_client_status delete_recording(pdk_client *c, uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_delete_tag;
    req.body.recording_delete.session_id = sid;
    return pdk_client_call(c, &req, &rep, NULL, NULL);
}

static void expect_refused(pdk_client *c, uint64_t sid, paddock_v1_ErrorCode code,
                           const char *needle)
{
    ck_assert_int_eq(delete_recording(c, sid), PDK_CLIENT_ESERVER);
    ck_assert_msg(c->server_code == code, "code %d, wanted %d: %s", (int)c->server_code, (int)code,
                  c->error);
    ck_assert_msg(strstr(c->error, needle) != NULL, "'%s' not in: %s", needle, c->error);
}

static void connect_viewer(pdk_client *c, const pdk_test_server *srv)
{
    ck_assert_int_eq(pdk_test_connect_viewer(c, srv->port, 5000, "watcher"), 0);
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Two recordings, one closed and one cut short by kill -9, then the server
 * restarted on the same file: both are listed as they were recorded, the
 * filters pick them, the CLI shows them, a viewer lists but may not
 * delete, and a live session and a replayed recording are kept. */
START_TEST(recordings_survive_a_restart_and_delete)
{
    pdk_test_server srv;
    start(&srv, NULL, NULL);
    char db[320];
    snprintf(db, sizeof(db), "%s", srv.db);
    static pdk_client c;
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, NULL), PDK_CLIENT_OK);
    uint64_t t_before = wall_ns();
    uint64_t a = new_session(&c, "lap one", "flat");
    spawn(&c, a, "kart");
    uint64_t b = new_session(&c, "skid test", "skidpad");
    spawn(&c, b, "midsize_sedan");
    spawn(&c, b, "pickup4x4");
    usleep(300 * 1000);
    uint64_t a_end = close_session(&c, a);
    ck_assert_uint_gt(a_end, 0);
    /* Recorded so far: a live one shows as live with its ticks so far. */
    const paddock_v1_RecordingListReply *r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 2);
    ck_assert(!r->recordings[0].live);
    ck_assert(r->recordings[1].live);
    expect_refused(&c, b, paddock_v1_ErrorCode_BUSY,
                   "is still being recorded; close its session first");
    /* Give the writer time to commit some of b's hashes, then kill -9. */
    usleep(500 * 1000);
    pdk_client_close(&c);
    ck_assert_int_eq(kill(srv.pid, SIGKILL), 0);
    int status;
    waitpid(srv.pid, &status, 0);
    srv.pid = 0;

    pdk_test_server again;
    start(&again, db, NULL);
    ck_assert_int_eq(pdk_client_connect(&c, again.addr, 5000, NULL), PDK_CLIENT_OK);
    r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 2);
    ck_assert_uint_eq(r->recordings_count, 2);
    ck_assert_uint_eq(r->offset, 0);
    const paddock_v1_RecordingInfo *ra = &r->recordings[0], *rb = &r->recordings[1];
    ck_assert_uint_eq(ra->session_id, a);
    ck_assert_str_eq(ra->name, "lap one");
    ck_assert_str_eq(ra->world_preset, "flat");
    ck_assert_uint_eq(ra->vehicles_count, 1);
    ck_assert_str_eq(ra->vehicles[0].preset, "kart");
    ck_assert_uint_eq(ra->last_tick, a_end);
    ck_assert_uint_eq(ra->ticks, a_end);
    ck_assert_double_eq_tol(ra->duration_s, (double)a_end / 120.0, 1e-9);
    ck_assert(!ra->interrupted);
    ck_assert(!ra->live);
    ck_assert_uint_gt(ra->size_bytes, 0);
    ck_assert_uint_ge(ra->started_wall_ns + 1000000u, t_before);
    ck_assert_uint_le(ra->started_wall_ns, wall_ns());
    ck_assert_str_ne(ra->build_id, "");
    ck_assert_uint_eq(rb->session_id, b);
    ck_assert_str_eq(rb->world_preset, "skidpad");
    ck_assert_uint_eq(rb->vehicles_count, 2);
    ck_assert_str_eq(rb->vehicles[0].preset, "midsize_sedan");
    ck_assert_str_eq(rb->vehicles[1].preset, "pickup4x4");
    ck_assert(rb->interrupted);
    ck_assert(!rb->live);
    ck_assert_uint_gt(rb->ticks, 0);

    /* Filters. */
    paddock_v1_RecordingList f;
    memset(&f, 0, sizeof(f));
    strcpy(f.vehicle_preset, "pickup4x4");
    r = list(&c, &f, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, b);
    memset(&f, 0, sizeof(f));
    f.interrupted_only = true;
    r = list(&c, &f, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, b);
    memset(&f, 0, sizeof(f));
    strcpy(f.name_contains, "lap");
    strcpy(f.world_preset, "flat");
    r = list(&c, &f, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, a);
    memset(&f, 0, sizeof(f));
    f.started_after_wall_ns = wall_ns();
    r = list(&c, &f, 0, 0);
    ck_assert_uint_eq(r->total, 0);
    /* A page of one, then the next. */
    r = list(&c, NULL, 1, 1);
    ck_assert_uint_eq(r->total, 2);
    ck_assert_uint_eq(r->offset, 1);
    ck_assert_uint_eq(r->recordings_count, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, b);

    /* The CLI, every page, the interrupted one named so. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "recordings", again.addr), 0);
    ck_assert_msg(strstr(out, "STARTED_UTC") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "lap one") != NULL && strstr(out, "1: kart") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "2: midsize_sedan,pick...") != NULL, "%s",
                  out); /* cut to its column */
    ck_assert_msg(strstr(out, "interrupted") != NULL, "%s", out);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "recordings --preset pickup4x4 --json", again.addr), 0);
    ck_assert_msg(strstr(out, "\"name\": \"skid test\"") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"interrupted\": true") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "lap one") == NULL, "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "recordings --since 2200-01-01", again.addr),
                     0);
    ck_assert_msg(strstr(out, "no recordings") != NULL, "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "recordings --since yesterday", again.addr),
                     2);
    ck_assert_msg(strstr(out, "'yesterday' is not a UTC date") != NULL, "%s", out);
    /* The command line's other refusals, each naming what was wrong, exit 2. */
    const char *const usage[][2] = {
        {"recordings frobnicate", "'frobnicate' is not a recordings command"},
        {"recordings --days 0", "--days"},
        {"recordings delete", "recording id"},
        {"recordings delete abc", "abc"},
        {"recordings delete 1 --json", "delete takes the recording's id alone"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "%s", again.addr, usage[i][0]), 2);
        ck_assert_msg(strstr(out, usage[i][1]) != NULL, "%s: %s", usage[i][0], out);
    }

    /* A viewer lists, and may not delete. */
    static pdk_client v;
    connect_viewer(&v, &again);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_list_tag;
    ck_assert_int_eq(pdk_client_call(&v, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    ck_assert_uint_eq(rep.body.recording_list_reply.total, 2);
    expect_refused(&v, a, paddock_v1_ErrorCode_PROTOCOL, "may not send recording_delete");
    pdk_client_close(&v);

    /* A live session that is not recorded is no recording. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.no_record = true;
    ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c.error);
    uint64_t unrecorded = rep.body.session_created.session.session_id;
    char want[96];
    snprintf(want, sizeof(want), "no recording %" PRIu64, unrecorded);
    expect_refused(&c, unrecorded, paddock_v1_ErrorCode_NOT_FOUND, want);
    close_session(&c, unrecorded);

    /* A replay of a keeps it until the replay closes. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = a;
    req.body.replay_open.paused = true;
    ck_assert_msg(pdk_client_call(&c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c.error);
    uint64_t replay = rep.body.session_created.session.session_id;
    snprintf(want, sizeof(want), "is open in replay session %" PRIu64, replay);
    expect_refused(&c, a, paddock_v1_ErrorCode_BUSY, want);
    close_session(&c, replay);
    ck_assert_int_eq(delete_recording(&c, a), PDK_CLIENT_OK);
    snprintf(want, sizeof(want), "no recording %" PRIu64, a);
    expect_refused(&c, a, paddock_v1_ErrorCode_NOT_FOUND, want);
    r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, b);

    /* The CLI deletes the interrupted one, and says when it cannot. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "recordings delete %" PRIu64, again.addr, b),
                     0);
    snprintf(want, sizeof(want), "deleted recording %" PRIu64, b);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "recordings delete %" PRIu64, again.addr, b),
                     1);
    ck_assert_msg(strstr(out, "NOT_FOUND") != NULL, "%s", out);
    r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 0);
    pdk_client_close(&c);
    pdk_test_stop_ok(&again, log_text, sizeof(log_text), false);
    pdk_test_read_log(&again, log_text, sizeof(log_text));
}
END_TEST

/* Waits up to 5 s for needle in the server's log. */
static bool log_shows(const pdk_test_server *srv, const char *needle)
{
    for (int i = 0; i < 500; i++) {
        pdk_test_read_log(srv, log_text, sizeof(log_text));
        if (strstr(log_text, needle))
            return true;
        usleep(10 * 1000);
    }
    return false;
}

/* With --retain-bytes 1 every finished recording goes as soon as its
 * session closes, logged with its id and why, a burst of closes too; the
 * live one stays. A restart with --retain-days deletes nothing younger. */
START_TEST(retention_deletes_finished_recordings_only)
{
    pdk_test_server srv;
    const char *const tiny[] = {"--retain-bytes", "1", NULL};
    start(&srv, NULL, tiny);
    char db[320];
    snprintf(db, sizeof(db), "%s", srv.db);
    static pdk_client c;
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, NULL), PDK_CLIENT_OK);
    uint64_t a = new_session(&c, "first", "flat");
    uint64_t live = new_session(&c, "live", "flat");
    usleep(100 * 1000);
    close_session(&c, a);
    char want[160];
    snprintf(want, sizeof(want), "paddockd: retention deleted recording %" PRIu64 " (", a);
    ck_assert_msg(log_shows(&srv, want), "no deletion logged: %s", log_text);
    ck_assert_msg(strstr(log_text, "more than 1") != NULL, "%s", log_text);
    const paddock_v1_RecordingListReply *r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, live);
    /* A burst of closes: those that come while a run is weighing the
     * recordings are seen by one more run after it, so none is left. */
    uint64_t burst[6];
    for (size_t i = 0; i < 6; i++)
        burst[i] = new_session(&c, "burst", "flat");
    for (size_t i = 0; i < 6; i++)
        close_session(&c, burst[i]);
    for (size_t i = 0; i < 6; i++) {
        snprintf(want, sizeof(want), "paddockd: retention deleted recording %" PRIu64 " (",
                 burst[i]);
        ck_assert_msg(log_shows(&srv, want), "recording %" PRIu64 " kept: %s", burst[i],
                      log_text);
    }
    r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    ck_assert_uint_eq(r->recordings[0].session_id, live);
    pdk_client_close(&c);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
    /* live was closed by the stop, so it is finished now; a week's age
     * limit keeps it, and a byte limit it fits keeps it too. */
    pdk_test_server again;
    const char *const week[] = {"--retain-days", "7", "--retain-bytes", "1G", NULL};
    start(&again, db, week);
    ck_assert_int_eq(pdk_client_connect(&c, again.addr, 5000, NULL), PDK_CLIENT_OK);
    r = list(&c, NULL, 0, 0);
    ck_assert_uint_eq(r->total, 1);
    pdk_client_close(&c);
    pdk_test_stop_ok(&again, log_text, sizeof(log_text), false);
    ck_assert_msg(strstr(log_text, "retention deleted") == NULL, "%s", log_text);
    /* A bad option is refused by name. */
    const char *const bad[] = {"--retain-bytes", "12X", NULL};
    pdk_test_server none;
    ck_assert_int_ne(pdk_test_server_start(&none, db, bad, log_text, sizeof(log_text)), 0);
    ck_assert_msg(strstr(log_text, "--retain-bytes: '12X' is not a byte count") != NULL, "%s",
                  log_text);
    const char *const bad_days[] = {"--retain-days", "0", NULL};
    ck_assert_int_ne(pdk_test_server_start(&none, db, bad_days, log_text, sizeof(log_text)), 0);
    ck_assert_msg(strstr(log_text, "--retain-days: '0' is not a whole number") != NULL, "%s",
                  log_text);
}
END_TEST

/* With the smallest frame a page holds fewer recordings than asked for,
 * total tells the rest, the CLI reads every page; a recording that alone
 * outgrows a frame is refused with CAPACITY naming its offset. */
START_TEST(pages_are_cut_to_one_frame)
{
    pdk_test_server srv;
    const char *const small[] = {"--max-frame", "1024", NULL};
    start(&srv, NULL, small);
    static pdk_client c;
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, NULL), PDK_CLIENT_OK);
    /* Four vehicles each, so that the C client's page of 8 (its
     * fixed-size array: it always asks with a limit) outgrows the frame. */
    char name[64];
    for (unsigned i = 0; i < 12; i++) {
        snprintf(name, sizeof(name), "a long name to fill the frame with, recording number %02u",
                 i % 100u);
        uint64_t sid = new_session(&c, name, "flat");
        for (int v = 0; v < 4; v++)
            spawn(&c, sid, "kart");
    }
    const paddock_v1_RecordingListReply *r = list(&c, NULL, 0, 8);
    ck_assert_uint_eq(r->total, 12);
    ck_assert_uint_gt(r->recordings_count, 0);
    ck_assert_uint_lt(r->recordings_count, 8); /* cut by the frame, not the limit */
    uint32_t seen = 0;
    uint64_t last = 0;
    while (seen < 12) {
        r = list(&c, NULL, seen, 8);
        ck_assert_uint_eq(r->offset, seen);
        ck_assert_uint_gt(r->recordings_count, 0);
        for (pb_size_t i = 0; i < r->recordings_count; i++) {
            ck_assert_uint_gt(r->recordings[i].session_id, last);
            last = r->recordings[i].session_id;
        }
        seen += r->recordings_count;
    }
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "recordings --name 'recording number'", srv.addr), 0);
    int rows = 0;
    for (const char *p = out; (p = strstr(p, "recording number")) != NULL; p++)
        rows++;
    ck_assert_msg(rows == 12, "%d rows: %s", rows, out);
    uint64_t crowded = new_session(&c, "crowded", "flat");
    for (int i = 0; i < 120; i++)
        spawn(&c, crowded, "kart");
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_recording_list_tag;
    req.body.recording_list.offset = 12;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(c.server_code, paddock_v1_ErrorCode_CAPACITY);
    ck_assert_msg(strstr(c.error, "recording at offset 12 does not fit one frame of 1024 bytes"),
                  "%s", c.error);
    pdk_client_close(&c);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

static Suite *recordings_suite(void)
{
    Suite *s = suite_create("integration_recordings");
    TCase *tc = tcase_create("recordings");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, recordings_survive_a_restart_and_delete);
    tcase_add_test(tc, retention_deletes_finished_recordings_only);
    tcase_add_test(tc, pages_are_cut_to_one_frame);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(recordings_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
