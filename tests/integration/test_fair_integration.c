/* Issue 28's fair shares, against the real paddockd on loopback: a client
 * pipelining verifies of a long recording keeps at most --max-queued-jobs
 * of them and cannot hold up another client's SessionMeta; its waiting
 * jobs are dropped and its running verify stops when it leaves; a Step or
 * run_to_tick past --max-fast-ticks is refused naming the flag; and
 * SIGTERM stops the server at once with 10,000 requests waiting. Figures
 * are printed; the assertions are generous bounds. */
#include <check.h>
#include <errno.h>
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

/* The long recording: one verify of it takes a good part of a
 * second, so 200 of them one after another take minutes, and a verify is
 * still running when its client leaves. */
#if defined(__SANITIZE_ADDRESS__)
#define LONG_TICKS 20000u /* the sanitized debug build steps and verifies ten times slower */
#else
#define LONG_TICKS 200000u
#endif
#define FLOOD_VERIFIES 200u /* the figure */
#define QUEUED_METAS 10000u /* likewise */

static char log_text[1 << 20];
static paddock_v1_Frame req, rep, got;

static paddock_v1_SessionControl *control_req(uint64_t sid, pb_size_t tag)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = tag;
    return &req.body.session_control;
}

/* A lockstep session with one car driving, stepped to ticks as fast as the
 * server steps, then closed: a finished recording of ticks + 1 hashes. */
static uint64_t long_recording(pdk_client *c, uint64_t ticks)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    strcpy(req.body.session_create.name, "long");
    pdk_test_call_ok(c, &req, &rep, "SessionCreate");
    uint64_t sid = rep.body.session_created.session.session_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    req.body.vehicle_spawn.speed_mps = 10.0;
    req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    pdk_test_call_ok(c, &req, &rep, "VehicleSpawn");
    paddock_v1_SessionControl *m = control_req(sid, paddock_v1_SessionControl_take_step_lease_tag);
    m->action.take_step_lease.deadline_ms = 60000;
    pdk_test_call_ok(c, &req, &rep, "take_step_lease");
    control_req(sid, paddock_v1_SessionControl_run_to_tick_tag)->action.run_to_tick = ticks;
    double t0 = pdk_test_now_s();
    int timeout_ms = c->timeout_ms;
    c->timeout_ms = 120000;
    pdk_test_call_ok(c, &req, &rep, "run_to_tick");
    c->timeout_ms = timeout_ms;
    printf("fair: %" PRIu64 " ticks of one car recorded in %.2f s\n", ticks, pdk_test_now_s() - t0);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    pdk_test_call_ok(c, &req, &rep, "SessionClose");
    return sid;
}

/* A real-time session of one car, unrecorded, to watch beside a flood. */
static uint64_t watched_session(pdk_client *c)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "watched");
    req.body.session_create.no_record = true;
    pdk_test_call_ok(c, &req, &rep, "SessionCreate");
    uint64_t sid = rep.body.session_created.session.session_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    pdk_test_call_ok(c, &req, &rep, "VehicleSpawn");
    return sid;
}

static paddock_v1_SessionInfo session_info(pdk_client *c, uint64_t sid)
{
    paddock_v1_SessionInfo info;
    pdk_test_session_info(c, &req, &rep, sid, &info);
    return info;
}

static void fill_meta(uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_meta_request_tag;
    req.body.session_meta_request.session_id = sid;
}

/* SessionMeta of sid on c; returns how long its reply took. */
static double meta_s(pdk_client *c, uint64_t sid)
{
    fill_meta(sid);
    double t0 = pdk_test_now_s();
    pdk_test_call_ok(c, &req, &rep, "SessionMetaRequest");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_session_meta_tag);
    return pdk_test_now_s() - t0;
}

/* Sends n VerifyRequests of sid on c without reading; their request ids
 * are first_id, first_id + 1, ... */
static uint64_t pipeline_verifies(pdk_client *c, uint64_t sid, unsigned n)
{
    uint64_t first_id = 0;
    for (unsigned i = 0; i < n; i++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_verify_request_tag;
        req.body.verify_request.session_id = sid;
        ck_assert_msg(pdk_client_send(c, &req) == PDK_CLIENT_OK, "%s", c->error);
        if (i == 0)
            first_id = req.request_id;
    }
    return first_id;
}

/* Waits up to timeout_ms for needle in the server's log. */
static bool log_says(const pdk_test_server *srv, const char *needle, int timeout_ms)
{
    double end = pdk_test_now_s() + timeout_ms / 1000.0;
    do {
        pdk_test_read_log(srv, log_text, sizeof(log_text));
        if (strstr(log_text, needle))
            return true;
        pdk_test_sleep_ms(20);
    } while (pdk_test_now_s() < end);
    return false;
}

/* One connection may have --max-queued-jobs recording jobs waiting or
 * running; the next is refused BUSY, naming the flag and its value, and a
 * job answered makes room again. */
START_TEST(queued_jobs_per_connection_are_bounded)
{
    pdk_test_server srv;
    const char *const extra[] = {"--max-queued-jobs", "4", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    pdk_client a;
    pdk_test_connect_ok(&a, &srv, "recorder", 30000);
    uint64_t sid = long_recording(&a, LONG_TICKS);
    pdk_client f;
    pdk_test_connect_ok(&f, &srv, "flooder", 30000);
    uint64_t first = pipeline_verifies(&f, sid, 10);
    unsigned verified = 0, busy = 0;
    double end = pdk_test_now_s() + 120.0;
    while (verified + busy < 10 && pdk_test_now_s() < end) {
        if (pdk_client_recv(&f, &got, 1000) != PDK_CLIENT_OK)
            continue;
        ck_assert_uint_ge(got.request_id, first);
        ck_assert_uint_lt(got.request_id, first + 10);
        if (got.which_body == paddock_v1_Frame_verify_reply_tag) {
            ck_assert_msg(got.body.verify_reply.match, "%s", got.body.verify_reply.message);
            printf("fair: a verify of %" PRIu64 " ticks took %.3f s\n",
                   got.body.verify_reply.hashes_checked, got.body.verify_reply.seconds);
            verified++;
            continue;
        }
        ck_assert_int_eq(got.which_body, paddock_v1_Frame_error_tag);
        ck_assert_int_eq(got.body.error.code, paddock_v1_ErrorCode_BUSY);
        ck_assert_msg(strstr(got.body.error.message, "(--max-queued-jobs 4)") &&
                          strstr(got.body.error.message, "(flooder)") &&
                          strstr(got.body.error.message, "VerifyRequest"),
                      "%s", got.body.error.message);
        busy++;
    }
    printf("fair: of 10 pipelined verifies at --max-queued-jobs 4, %u verified, %u refused BUSY\n",
           verified, busy);
    ck_assert_uint_eq(verified + busy, 10);
    /* All ten came in one read, well within one verify's time. */
    ck_assert_uint_eq(verified, 4);
    /* Answered, they make room: the next is taken. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_verify_request_tag;
    req.body.verify_request.session_id = sid;
    f.timeout_ms = 120000;
    pdk_test_call_ok(&f, &req, &rep, "VerifyRequest after the others were answered");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_verify_reply_tag);
    pdk_client_close(&f);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* The verify flood: 200 VerifyRequests pipelined on a long
 * recording (all of them taken, at --max-queued-jobs 256) while another
 * client's SessionMeta of the same recording is answered without waiting
 * behind them; then the flooder leaves, its waiting jobs are dropped and
 * its running verify stops at its next tick, and the other client's next
 * request is answered at once. */
START_TEST(verify_flood_leaves_others_answered_and_is_cancelled)
{
    pdk_test_server srv;
    const char *const extra[] = {"--max-queued-jobs", "256", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    pdk_client a;
    pdk_test_connect_ok(&a, &srv, "recorder", 30000);
    uint64_t sid = long_recording(&a, LONG_TICKS);
    double solo_s = meta_s(&a, sid);

    uint64_t watched = watched_session(&a);
    pdk_test_sleep_ms(300);
    paddock_v1_SessionInfo w0 = session_info(&a, watched);
    double t0 = pdk_test_now_s();

    pdk_client f;
    pdk_test_connect_ok(&f, &srv, "flooder", 30000);
    (void)pipeline_verifies(&f, sid, FLOOD_VERIFIES);
    pdk_test_sleep_ms(300); /* the flood is read and its first verify runs */
    double worst_s = 0.0;
    for (int i = 0; i < 5; i++) {
        double s = meta_s(&a, sid);
        worst_s = s > worst_s ? s : worst_s;
    }
    /* Behind 200 verifies it would wait for all of them (minutes); fairly
     * it waits for no more than one job of the flooder's, so the flood is
     * still mostly waiting when the five are answered. An order, not a
     * time: the times are printed (docs/perf/README.md). */
    unsigned answered = 0;
    while (pdk_client_recv(&f, &got, 0) == PDK_CLIENT_OK)
        if (got.which_body == paddock_v1_Frame_verify_reply_tag)
            answered++;
    printf("fair: SessionMeta alone %.3f s; during %u pipelined verifies at most %.3f s of 5, "
           "%u verifies answered by then\n",
           solo_s, FLOOD_VERIFIES, worst_s, answered);
    ck_assert_msg(answered < FLOOD_VERIFIES / 2,
                  "five SessionMetas waited for %u of the flooder's %u verifies", answered,
                  FLOOD_VERIFIES);
    /* Some 300 ticks under the flood, so that its p99 is not two ticks'. */
    pdk_test_sleep_ms(2500);
    paddock_v1_SessionInfo w1 = session_info(&a, watched);
    double rate_hz = (double)(w1.tick - w0.tick) / (pdk_test_now_s() - t0);
    printf("fair: the watched session beside the verify flood ran %.1f ticks/s, %" PRIu64
           " deadlines skipped, lateness p99 %.3f ms (since it began)\n",
           rate_hz, w1.skipped_ticks - w0.skipped_ticks, w1.lateness_p99_ms);
    /* It kept ticking: how fast is a figure (printed), not a test. */
    ck_assert_msg(w1.tick > w0.tick, "the watched session stood still beside the flood");

    /* The verifies answered while the watched session was watched: they
     * are neither waiting nor running when the flooder leaves. */
    while (pdk_client_recv(&f, &got, 0) == PDK_CLIENT_OK)
        if (got.which_body == paddock_v1_Frame_verify_reply_tag)
            answered++;
    pdk_client_close(&f);
    double closed = pdk_test_now_s();
    ck_assert_msg(log_says(&srv, "left: ", 5000), "no word of the flooder's jobs: %s", log_text);
    const char *line = strstr(log_text, "left: ");
    unsigned dropped = 0, stopped = 0;
    ck_assert_msg(sscanf(line, "left: %u waiting recording jobs dropped, %u running told to stop",
                         &dropped, &stopped) == 2,
                  "%s", line);
    printf("fair: the flooder left: %u waiting jobs dropped, %u running told to stop\n", dropped,
           stopped);
    /* Five SessionMetas took at least 5 of the flooder's turns at most
     * (and a few replies may still have been on their way). */
    ck_assert_uint_ge(dropped + answered, FLOOD_VERIFIES - 10);
    ck_assert_uint_eq(stopped, 1);
    /* At a tick, or in its load of the recording (a tenth of its time). */
    ck_assert_msg(log_says(&srv, "the verify was cancelled", 5000),
                  "the running verify did not stop: %s", log_text);
    printf("fair: its running verify stopped %.3f s after the close\n", pdk_test_now_s() - closed);
    /* Nothing of the flooder's is left before it: answered (the time is
     * printed). */
    double after_s = meta_s(&a, sid);
    printf("fair: SessionMeta after the flooder left %.3f s\n", after_s);

    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* A CSV, an MCAP and a session file export of a long recording, each on a
 * connection that leaves while it runs: each stops (the CSV and MCAP at
 * their next write, the file in its copy of the rows), and the log says
 * so, instead of finishing for nobody. */
START_TEST(exports_stop_when_their_client_leaves)
{
    pdk_test_server srv;
    pdk_test_start_ok(&srv, NULL, log_text, sizeof(log_text));
    pdk_client a, csv, mcap, file;
    pdk_test_connect_ok(&a, &srv, "recorder", 30000);
    uint64_t sid = long_recording(&a, LONG_TICKS);
    pdk_test_connect_ok(&csv, &srv, "csv", 30000);
    pdk_test_connect_ok(&mcap, &srv, "mcap", 30000);
    pdk_test_connect_ok(&file, &srv, "file", 30000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_csv_export_request_tag;
    req.body.csv_export_request.session_id = sid;
    static const char *const channels[] = {"Speed",  "YawRate", "PosX",   "PosY",
                                           "Yaw",    "VelX",    "VelY",   "AccelX",
                                           "AccelY", "Roll",    "Pitch",  "SteerAngle"};
    for (size_t i = 0; i < sizeof(channels) / sizeof(channels[0]); i++)
        strcpy(req.body.csv_export_request.channels[i], channels[i]);
    req.body.csv_export_request.channels_count = sizeof(channels) / sizeof(channels[0]);
    ck_assert_msg(pdk_client_send(&csv, &req) == PDK_CLIENT_OK, "%s", csv.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_mcap_export_request_tag;
    req.body.mcap_export_request.session_id = sid;
    ck_assert_msg(pdk_client_send(&mcap, &req) == PDK_CLIENT_OK, "%s", mcap.error);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_export_request_tag;
    req.body.export_request.session_id = sid;
    ck_assert_msg(pdk_client_send(&file, &req) == PDK_CLIENT_OK, "%s", file.error);
    /* A file is sent once it is written whole. The session file's copy of
     * its rows takes from some 30 ms (a fast disk) to 0.6 s, so its client
     * leaves at once: the server reads the request, then the close, and
     * the job it started is told to stop before its copy can end (at 50
     * ms in, a CI machine's copy had already ended). The CSV and MCAP
     * take a second or more: 200 ms in, each has loaded the recording and
     * runs. */
    double closed = pdk_test_now_s();
    pdk_client_close(&file);
    ck_assert_msg(log_says(&srv, "a ExportRequest of connection", 10000),
                  "the session file's export ran on for nobody: %s", log_text);
    printf("fair: the session file's export stopped %.3f s after its client left\n",
           pdk_test_now_s() - closed);
    pdk_test_sleep_ms(150);
    pdk_client_close(&csv);
    pdk_client_close(&mcap);
    ck_assert_msg(log_says(&srv, "a CsvExportRequest of connection", 10000) &&
                      log_says(&srv, "a McapExportRequest of connection", 10000),
                  "an export ran on for nobody: %s", log_text);
    ck_assert_msg(strstr(log_text, "stopped: its client left, or the server is stopping"),
                  "%s", log_text);
    char word[64];
    snprintf(word, sizeof(word), "the export of session %" PRIu64 " was cancelled", sid);
    ck_assert_msg(strstr(log_text, word), "%s", log_text);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* A Step or run_to_tick ticks as fast as a fast session and is bounded as
 * one is: past --max-fast-ticks it is refused OUT_OF_RANGE naming the flag
 * (the step of 1,000,000 on a real-time session at the default),
 * and at the bound it is taken. */
START_TEST(steps_are_bounded_by_max_fast_ticks)
{
    pdk_test_server srv;
    pdk_test_start_ok(&srv, NULL, log_text, sizeof(log_text));
    pdk_client a;
    pdk_test_connect_ok(&a, &srv, "stepper", 30000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "realtime");
    pdk_test_call_ok(&a, &req, &rep, "SessionCreate");
    uint64_t sid = rep.body.session_created.session.session_id;
    control_req(sid, paddock_v1_SessionControl_step_tag)->action.step = 1000000;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    ck_assert_msg(strstr(a.error, "step 1000000 is outside 1..432000 ticks") &&
                      strstr(a.error, "--max-fast-ticks"),
                  "%s", a.error);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);

    const char *const extra[] = {"--max-fast-ticks", "600", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    pdk_test_connect_ok(&a, &srv, "stepper", 30000);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "realtime");
    pdk_test_call_ok(&a, &req, &rep, "SessionCreate");
    sid = rep.body.session_created.session.session_id;
    control_req(sid, paddock_v1_SessionControl_step_tag)->action.step = 601;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    ck_assert_msg(strstr(a.error, "step 601 is outside 1..600 ticks") &&
                      strstr(a.error, "--max-fast-ticks"),
                  "%s", a.error);
    control_req(sid, paddock_v1_SessionControl_step_tag)->action.step = 600;
    pdk_test_call_ok(&a, &req, &rep, "step 600");
    uint64_t tick = rep.body.session_control_reply.tick;
    control_req(sid, paddock_v1_SessionControl_run_to_tick_tag)->action.run_to_tick = tick + 601;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    ck_assert_msg(strstr(a.error, "to 600 ticks after it") && strstr(a.error, "--max-fast-ticks"),
                  "%s", a.error);
    control_req(sid, paddock_v1_SessionControl_run_to_tick_tag)->action.run_to_tick = tick + 600;
    pdk_test_call_ok(&a, &req, &rep, "run_to_tick 600 ahead");
    ck_assert_uint_eq(rep.body.session_control_reply.tick, tick + 600);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

/* The 10,000 queued SessionMeta requests (all taken, at
 * --max-queued-jobs 20000): SIGTERM is obeyed at once, the waiting jobs
 * dropped. */
START_TEST(sigterm_stops_at_once_with_10000_requests_queued)
{
    pdk_test_server srv;
    const char *const extra[] = {"--max-queued-jobs", "20000", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    pdk_client a;
    pdk_test_connect_ok(&a, &srv, "recorder", 30000);
    uint64_t sid = long_recording(&a, LONG_TICKS);
    uint64_t first = 0;
    for (unsigned i = 0; i < QUEUED_METAS; i++) {
        fill_meta(sid);
        ck_assert_msg(pdk_client_send(&a, &req) == PDK_CLIENT_OK, "%s", a.error);
        if (i == 0)
            first = req.request_id;
    }
    /* The first is answered: the server has read the pipeline. */
    do
        ck_assert_msg(pdk_client_recv(&a, &got, 10000) == PDK_CLIENT_OK, "%s", a.error);
    while (got.request_id != first);
    ck_assert_int_eq(got.which_body, paddock_v1_Frame_session_meta_tag);
    pdk_test_sleep_ms(200);
    double t0 = pdk_test_now_s();
    int rc = pdk_test_server_stop(&srv, log_text, sizeof(log_text));
    double took_s = pdk_test_now_s() - t0;
    printf("fair: SIGTERM with %u SessionMeta requests queued: exited in %.3f s\n", QUEUED_METAS,
           took_s);
    ck_assert_msg(rc == 0, "paddockd exited %d: %s", rc, log_text);
    ck_assert_msg(strstr(log_text, "stopped cleanly") != NULL, "no clean stop: %s", log_text);
    unsigned dropped = 0, stopped = 0;
    const char *line = strstr(log_text, "stopping: ");
    ck_assert_msg(line, "no word of the dropped jobs: %s", log_text);
    ck_assert_msg(sscanf(line,
                         "stopping: %u waiting recording jobs dropped, %u running told to stop",
                         &dropped, &stopped) == 2,
                  "%s", line);
    printf("fair: %u waiting jobs dropped, %u running told to stop\n", dropped, stopped);
    /* The waiting jobs were dropped, not run: the issue measured more than
     * 10 s to run them before the exit; how long the exit took is printed
     * (a time, not a test). */
    ck_assert_msg(dropped >= QUEUED_METAS / 2, "%s", log_text);
    pdk_client_close(&a);
}
END_TEST

/* --max-queued-jobs takes a whole number 1..65536; anything else stops
 * paddockd at start, the message naming the flag and the value. */
START_TEST(max_queued_jobs_refuses_bad_values)
{
    static char out[4096];
    const char *const bad[] = {"0", "65537", "many", "1.5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(
            pdk_test_sh(out, sizeof(out), PDK_PADDOCKD " --max-queued-jobs %s", bad[i]), 2);
        ck_assert_msg(strstr(out, "--max-queued-jobs: '") && strstr(out, bad[i]) &&
                          strstr(out, "1..65536"),
                      "%s", out);
    }
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), PDK_PADDOCKD " --max-queued-jobs"), 2);
    ck_assert_msg(strstr(out, "--max-queued-jobs needs a value") != NULL, "%s", out);
}
END_TEST

static Suite *fair_suite(void)
{
    Suite *s = suite_create("fair");
    TCase *tc = tcase_create("fair");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, queued_jobs_per_connection_are_bounded);
    tcase_add_test(tc, verify_flood_leaves_others_answered_and_is_cancelled);
    tcase_add_test(tc, exports_stop_when_their_client_leaves);
    tcase_add_test(tc, steps_are_bounded_by_max_fast_ticks);
    tcase_add_test(tc, sigterm_stops_at_once_with_10000_requests_queued);
    tcase_add_test(tc, max_queued_jobs_refuses_bad_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(fair_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
