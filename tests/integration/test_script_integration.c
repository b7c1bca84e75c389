/* A drive script's step that the vehicle would refuse is an error before
 * any tick runs (issue 25, item 5), through the real programs: `paddockd
 * run` exits 2 naming the step and the vehicle's limit and records nothing;
 * `paddock drive` against a real paddockd refuses the script before it
 * spawns or sends anything, with --preset and with --vehicle. Each refusal
 * kind a script file can carry: brake above the vehicle's line pressure,
 * steering beyond its lock (the vehicle's limits); throttle outside
 * 0..100, a negative brake and a gear no lever has (the parser's). */
#include <check.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "paddock_client.h"

#define CLI PDK_PADDOCK " --server %s "
#define RUN                                                                                        \
    PDK_PADDOCKD " run --presets " PDK_SOURCE_DIR "/presets --migrations " PDK_SOURCE_DIR          \
                 "/migrations --vehicle midsize_sedan"

static char out[1 << 16];
static char log_text[1 << 16];

/* The script files' steps, each after two good steps (so the refused one is
 * step 2, at t = 2 s), and what the refusal says. */
static const struct {
    const char *name;
    const char *step;
    const char *says;
} refusals[] = {
    {"brake", "{\"t\":2,\"brake_bar\":180}",
     "step 2 (t=2.000 s): brake_bar 180 is above midsize_sedan's brakes.maxLineBar 150"},
    {"steer", "{\"t\":2,\"steer_wheel_deg\":-600}",
     "step 2 (t=2.000 s): steer_wheel_deg -600 is beyond midsize_sedan's steering.lockDeg 520 "
     "either way"},
    {"throttle", "{\"t\":2,\"throttle_pct\":120}", "steps[2].throttle_pct"},
    {"negative", "{\"t\":2,\"brake_bar\":-5}", "steps[2].brake_bar"},
    {"gear", "{\"t\":2,\"gear\":\"X\"}", "steps[2].gear"},
};
#define N_REFUSALS (sizeof refusals / sizeof refusals[0])

static void write_script(char *path, size_t len, const char *dir, const char *name,
                         const char *step)
{
    snprintf(path, len, "%s/%s.json", dir, name);
    char text[512];
    snprintf(text, sizeof text,
             "{\"initial\":{\"gear\":\"D\"},\"steps\":[{\"t\":0,\"throttle_pct\":30},"
             "{\"t\":1,\"throttle_pct\":0,\"brake_bar\":20},%s]}",
             step);
    pdk_test_write_file(path, text);
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

/* `paddockd run`: each refused script exits 2 with the refusal on stderr,
 * no tick run and no database made; the same script with its step inside
 * the limits runs, applies all three steps and is recorded. */
START_TEST(run_refuses_before_any_tick)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof dir);
    for (size_t i = 0; i < N_REFUSALS; i++) {
        char script[400], db[400];
        write_script(script, sizeof script, dir, refusals[i].name, refusals[i].step);
        snprintf(db, sizeof db, "%s/%s.db", dir, refusals[i].name);
        int rc = pdk_test_sh(out, sizeof out, RUN " --script %s --db %s", script, db);
        ck_assert_msg(rc == 2, "%s: exit %d: %s", refusals[i].name, rc, out);
        ck_assert_msg(strstr(out, refusals[i].says) != NULL, "%s: %s", refusals[i].name, out);
        ck_assert_msg(strstr(out, "inputs applied") == NULL && strstr(out, "ticks") == NULL,
                      "%s ran: %s", refusals[i].name, out);
        ck_assert_msg(access(db, F_OK) != 0, "%s: %s was made", refusals[i].name, db);
    }
    char script[400], db[400];
    write_script(script, sizeof script, dir, "good", "{\"t\":2,\"brake_bar\":150}");
    snprintf(db, sizeof db, "%s/good.db", dir);
    ck_assert_msg(
        pdk_test_sh(out, sizeof out, RUN " --script %s --db %s --duration 3", script, db) == 0,
        "%s", out);
    ck_assert_msg(strstr(out, "inputs applied: 4") != NULL, "%s", out); /* the spawn and 3 */
    ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM sessions"), 1);
    ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM inputs WHERE kind = 3"), 3);
}
END_TEST

/* `paddock drive` against a real server: with --preset, each refused
 * script exits non-zero naming the step and the limit, and the session
 * gains no vehicle and records no command; with --vehicle, the existing
 * vehicle is sent nothing. A script within the limits drives. */
START_TEST(drive_refuses_before_the_first_command)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof log_text) == 0,
                  "paddockd did not start: %s", log_text);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof out, CLI "create --name refusals 2>/dev/null", srv.addr), 0);
    long session = strtol(out, NULL, 10);
    ck_assert_int_gt(session, 0);
    for (size_t i = 0; i < N_REFUSALS; i++) {
        char script[400];
        write_script(script, sizeof script, srv.dir, refusals[i].name, refusals[i].step);
        int rc = pdk_test_sh(out, sizeof out,
                             CLI "drive --session %ld --preset midsize_sedan --script %s", srv.addr,
                             session, script);
        ck_assert_msg(rc != 0, "%s: drive exited 0: %s", refusals[i].name, out);
        ck_assert_msg(strstr(out, refusals[i].says) != NULL, "%s: %s", refusals[i].name, out);
        ck_assert_msg(strstr(out, "spawned vehicle") == NULL, "%s: %s", refusals[i].name, out);
    }
    /* An existing vehicle: its own limits, named by its id. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof out,
                                 CLI "spawn --session %ld --preset midsize_sedan 2>/dev/null",
                                 srv.addr, session),
                     0);
    long vehicle = strtol(out, NULL, 10);
    ck_assert_int_gt(vehicle, 0);
    char script[400];
    write_script(script, sizeof script, srv.dir, "brake", refusals[0].step);
    ck_assert_int_ne(pdk_test_sh(out, sizeof out,
                                 CLI "drive --session %ld --vehicle %ld --script %s", srv.addr,
                                 session, vehicle, script),
                     0);
    char want[160];
    snprintf(want, sizeof want,
             "step 2 (t=2.000 s): brake_bar 180 is above vehicle %ld's brakes.maxLineBar 150",
             vehicle);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(strstr(out, "nothing was sent") != NULL, "%s", out);
    /* A vehicle of the session that does not exist. */
    ck_assert_int_ne(pdk_test_sh(out, sizeof out,
                                 CLI "drive --session %ld --vehicle 99 --script %s", srv.addr,
                                 session, script),
                     0);
    ck_assert_msg(strstr(out, "vehicle 99 is not in session") != NULL, "%s", out);
    /* Within the limits it drives (the steps are sent in real time). */
    write_script(script, sizeof script, srv.dir, "good", "{\"t\":2,\"brake_bar\":150}");
    ck_assert_msg(pdk_test_sh(out, sizeof out, CLI "drive --session %ld --vehicle %ld --script %s",
                              srv.addr, session, vehicle, script) == 0,
                  "%s", out);
    int rc = pdk_test_server_stop(&srv, log_text, sizeof log_text);
    ck_assert_msg(rc == 0, "paddockd exited %d: %s", rc, log_text);
    /* One vehicle (the spawned one), and only the good script's commands
     * (its initial gear and three steps). */
    char q[200];
    snprintf(q, sizeof q, "SELECT count(*) FROM vehicles WHERE session_id = %ld", session);
    ck_assert_int_eq(sql_int(srv.db, q), 1);
    snprintf(q, sizeof q, "SELECT count(*) FROM inputs WHERE session_id = %ld AND kind = 3",
             session);
    ck_assert_int_eq(sql_int(srv.db, q), 4);
}
END_TEST

/* ScriptStepCheck sent by hand: each way it is refused, named; a step
 * within the limits is Ok; none of it spawns or records anything. */
static paddock_v1_Frame req, rep;

static void check_request(uint64_t session, uint32_t vehicle, const char *preset, bool command)
{
    memset(&req, 0, sizeof req);
    req.which_body = paddock_v1_Frame_script_step_check_tag;
    paddock_v1_ScriptStepCheck *m = &req.body.script_step_check;
    m->session_id = session;
    m->vehicle_id = vehicle;
    snprintf(m->preset, sizeof m->preset, "%s", preset);
    m->step = 4;
    m->t_s = 1.5;
    m->has_command = command;
    m->command.which_brake = paddock_v1_DbwCommand_brake_bar_tag;
    m->command.brake.brake_bar = 100.0;
}

static void expect_refusal(pdk_client *c, paddock_v1_ErrorCode code, const char *needle)
{
    ck_assert_int_eq(pdk_client_call(c, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(c->server_code, code);
    ck_assert_msg(strstr(c->error, needle) != NULL, "%s", c->error);
}

START_TEST(step_check_refusals_are_named)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof log_text) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client c;
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, NULL), PDK_CLIENT_OK);
    memset(&req, 0, sizeof req);
    req.which_body = paddock_v1_Frame_session_create_tag;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    const uint64_t sid = rep.body.session_created.session.session_id;

    check_request(sid, 0, "kart", true);
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_msg(strstr(c.error, "step 4 (t=1.500 s): brake_bar 100 is above kart's "
                                  "brakes.maxLineBar 60") != NULL,
                  "%s", c.error);
    ck_assert_int_eq(c.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    check_request(sid, 0, "midsize_sedan", true);
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_ok_tag);

    check_request(sid, 0, "midsize_sedan", false);
    expect_refusal(&c, paddock_v1_ErrorCode_INVALID_ARGUMENT,
                   "step 4 (t=1.500 s): no command to check");
    check_request(sid, 0, "midsize_sedan", true);
    req.body.script_step_check.command.gear = (paddock_v1_Gear)9;
    expect_refusal(&c, paddock_v1_ErrorCode_OUT_OF_RANGE,
                   "step 4 (t=1.500 s): gear 9 is not a DBW2 gear");
    check_request(sid, 0, "no_such_car", true);
    expect_refusal(&c, paddock_v1_ErrorCode_NOT_FOUND,
                   "vehicle preset \"no_such_car\" is not one of");
    check_request(sid, 0, "../etc", true);
    expect_refusal(&c, paddock_v1_ErrorCode_INVALID_ARGUMENT, "preset");
    check_request(sid, 0, "midsize_sedan", true);
    snprintf(req.body.script_step_check.overrides, sizeof req.body.script_step_check.overrides,
             "brakes.maxLineBar=90");
    expect_refusal(&c, paddock_v1_ErrorCode_OUT_OF_RANGE,
                   "brake_bar 100 is above midsize_sedan's brakes.maxLineBar 90");
    check_request(sid, 3, "", true);
    expect_refusal(&c, paddock_v1_ErrorCode_STALE_ID, "vehicle 3 is not in session");
    check_request(sid + 100, 0, "midsize_sedan", true);
    expect_refusal(&c, paddock_v1_ErrorCode_NOT_FOUND, "does not exist");

    pdk_client_close(&c);
    int rc = pdk_test_server_stop(&srv, log_text, sizeof log_text);
    ck_assert_msg(rc == 0, "paddockd exited %d: %s", rc, log_text);
    char q[200];
    snprintf(q, sizeof q, "SELECT count(*) FROM vehicles WHERE session_id = %llu",
             (unsigned long long)sid);
    ck_assert_int_eq(sql_int(srv.db, q), 0);
    snprintf(q, sizeof q, "SELECT count(*) FROM inputs WHERE session_id = %llu",
             (unsigned long long)sid);
    ck_assert_int_eq(sql_int(srv.db, q), 0);
}
END_TEST

static Suite *script_integration_suite(void)
{
    Suite *s = suite_create("script_integration");
    TCase *tc = tcase_create("refusals");
    tcase_add_test(tc, run_refuses_before_any_tick);
    tcase_add_test(tc, drive_refuses_before_the_first_command);
    tcase_add_test(tc, step_check_refusals_are_named);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(script_integration_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
