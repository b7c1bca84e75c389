/* End-to-end tests of the server's clocks and of the tick timeline
 * (docs/protocol.md "Clocks" and "Ticks"): the real paddockd on an ephemeral
 * loopback port and the real C client. Welcome and Pong carry the server's
 * wall and monotonic clocks, which on loopback must agree with the test's
 * own; a driver command answered Ok{tick: T} first shows in the StateBatch
 * of tick T + 1; real-time sessions fall due spread over the tick. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

static char log_text[1 << 16];
static paddock_v1_Frame req, rep, push;

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* |a - b| in ns, as a double for the messages. */
static double gap_ns(uint64_t a, uint64_t b)
{
    return a > b ? (double)(a - b) : (double)(b - a);
}

static void start(pdk_test_server *srv)
{
    ck_assert_msg(pdk_test_server_start(srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
}

/* Welcome and Pong: the wall clock within a second of the test's
 * CLOCK_REALTIME, the monotonic clock within a second of its
 * CLOCK_MONOTONIC (uv_hrtime reads the same clock on Linux), server_time_ns
 * the monotonic clock, and the NTP-style offset of docs/protocol.md near 0
 * with a round trip that is positive and short. */
START_TEST(welcome_and_pong_carry_both_clocks)
{
    pdk_test_server srv;
    start(&srv);
    static pdk_client c;
    paddock_v1_Welcome w;
    uint64_t before_wall = clock_ns(CLOCK_REALTIME);
    uint64_t before_mono = clock_ns(CLOCK_MONOTONIC);
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, &w), PDK_CLIENT_OK);
    ck_assert_msg(gap_ns(w.wall_time_ns, before_wall) < 1e9,
                  "Welcome wall %" PRIu64 ", test %" PRIu64, w.wall_time_ns, before_wall);
    ck_assert_msg(gap_ns(w.monotonic_ns, before_mono) < 1e9,
                  "Welcome monotonic %" PRIu64 ", test %" PRIu64, w.monotonic_ns, before_mono);

    uint64_t prev_mono = w.monotonic_ns;
    for (int i = 0; i < 5; i++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_ping_tag;
        uint64_t t0 = clock_ns(CLOCK_REALTIME);
        req.body.ping.client_time_ns = t0;
        ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
        uint64_t t3 = clock_ns(CLOCK_REALTIME);
        uint64_t mono = clock_ns(CLOCK_MONOTONIC);
        ck_assert_int_eq(rep.which_body, paddock_v1_Frame_pong_tag);
        const paddock_v1_Pong *p = &rep.body.pong;
        ck_assert_uint_eq(p->client_time_ns, t0);
        ck_assert_uint_eq(p->server_time_ns, p->monotonic_ns);
        ck_assert_msg(gap_ns(p->wall_time_ns, t3) < 1e9, "Pong wall %" PRIu64 ", test %" PRIu64,
                      p->wall_time_ns, t3);
        ck_assert_msg(gap_ns(p->monotonic_ns, mono) < 1e9,
                      "Pong monotonic %" PRIu64 ", test %" PRIu64, p->monotonic_ns, mono);
        ck_assert_uint_ge(p->monotonic_ns, prev_mono);
        prev_mono = p->monotonic_ns;
        /* One server time, so t1 = t2: the offset is the server's time
         * less the middle of the round trip. On loopback, the same clock. */
        double offset_ns =
            ((double)p->wall_time_ns - (double)t0 + (double)p->wall_time_ns - (double)t3) / 2.0;
        ck_assert_uint_ge(t3, t0);
        ck_assert_msg(fabs(offset_ns) <= (double)(t3 - t0) / 2.0 + 1e6,
                      "offset %.0f ns for a round trip of %" PRIu64 " ns", offset_ns, t3 - t0);
    }
    /* The C client's sample: the same clock on loopback, so the offset is
     * within half its round trip (and a millisecond of rounding). */
    int64_t offset_ns = 0;
    uint64_t rtt_ns = 0;
    ck_assert_int_eq(pdk_client_clock_sample(&c, &rep, &offset_ns, &rtt_ns), PDK_CLIENT_OK);
    ck_assert_uint_gt(rtt_ns, 0);
    ck_assert_uint_lt(rtt_ns, 1000000000u);
    ck_assert_msg(llabs(offset_ns) <= (long long)(rtt_ns / 2 + 1000000), "offset %lld ns",
                  (long long)offset_ns);
    pdk_client_close(&c);
    /* paddock info prints the server's clock and the offset. */
    static char out[8192];
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), PDK_PADDOCK " --server %s info", srv.addr), 0);
    ck_assert_msg(strstr(out, "server clock: 20") != NULL, "%s", out);
    const char *off = strstr(out, "clock offset: ");
    ck_assert_msg(off != NULL, "%s", out);
    double off_ms = 0, bound_ms = 0;
    ck_assert_int_eq(sscanf(off, "clock offset: %lf ms +- %lf ms", &off_ms, &bound_ms), 2);
    ck_assert_msg(fabs(off_ms) <= bound_ms + 1.0, "%s", out);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* One vehicle's batch: ticks rise by one (120 Hz), and whether its road
 * wheels have turned yet. */
static void note_batch(const paddock_v1_StateBatch *b, uint64_t *last_tick, uint64_t *first_turned,
                       uint64_t *last_straight)
{
    ck_assert_uint_eq(b->vehicles_count, 1);
    ck_assert_msg(*last_tick == 0 || b->tick == *last_tick + 1, "batch %" PRIu64 " after %" PRIu64,
                  b->tick, *last_tick);
    *last_tick = b->tick;
    bool turned = b->vehicles[0].steer_angle_rad != 0.0;
    if (turned && *first_turned == 0)
        *first_turned = b->tick;
    if (!turned)
        *last_straight = b->tick;
}

/* The state after the step of tick t carries tick t + 1: a car at rest with
 * its wheel straight holds steer_angle_rad 0 until the step that first uses
 * a steering command, the step of the tick its Ok names. */
START_TEST(a_driver_command_shows_in_the_batch_after_its_tick)
{
    pdk_test_server srv;
    start(&srv);
    static pdk_client c;
    ck_assert_int_eq(pdk_client_connect(&c, srv.addr, 5000, NULL), PDK_CLIENT_OK);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    uint64_t sid = rep.body.session_created.session.session_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);
    uint32_t vid = rep.body.vehicle_spawned.vehicle_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 120;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, NULL, NULL), PDK_CLIENT_OK);

    /* Let some batches by, then steer. */
    uint64_t first_turned = 0, last_straight = 0, last_tick = 0;
    for (int seen = 0; seen < 10;) {
        ck_assert_int_eq(pdk_client_recv(&c, &push, 2000), PDK_CLIENT_OK);
        if (push.which_body == paddock_v1_Frame_state_batch_tag) {
            seen++;
            note_batch(&push.body.state_batch, &last_tick, &first_turned, &last_straight);
        }
    }
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_dbw_command_tag;
    req.body.dbw_command.session_id = sid;
    req.body.dbw_command.vehicle_id = vid;
    req.body.dbw_command.which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
    req.body.dbw_command.steer.steer_wheel_deg = 180.0;
    ck_assert_int_eq(pdk_client_send(&c, &req), PDK_CLIENT_OK);
    uint64_t rid = req.request_id;

    /* Every batch until a few ticks past the Ok: its tick and whether the
     * road wheels have turned. */
    uint64_t ok_tick = UINT64_MAX;
    for (;;) {
        ck_assert_int_eq(pdk_client_recv(&c, &push, 2000), PDK_CLIENT_OK);
        if (push.request_id == rid) {
            ck_assert_msg(push.which_body == paddock_v1_Frame_ok_tag, "refused: %s",
                          push.body.error.message);
            ok_tick = push.body.ok.tick;
            continue;
        }
        if (push.which_body != paddock_v1_Frame_state_batch_tag)
            continue;
        const paddock_v1_StateBatch *b = &push.body.state_batch;
        note_batch(b, &last_tick, &first_turned, &last_straight);
        if (ok_tick != UINT64_MAX && b->tick > ok_tick + 3)
            break;
    }
    printf("steering command: Ok.tick %" PRIu64 ", last straight batch %" PRIu64
           ", first turned batch %" PRIu64 "\n",
           ok_tick, last_straight, first_turned);
    ck_assert_uint_eq(first_turned, ok_tick + 1);
    ck_assert_uint_eq(last_straight, ok_tick);
    pdk_client_close(&c);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* The proxy view's example against the real server: it creates a session
 * with a car driving a circle, subscribes at 30 Hz, pings for the clock
 * offset through the same connection, and draws the car at 10 Hz. The car
 * moves along a circle in the drawn poses, mostly interpolated, without a
 * snap or a teleport. */
START_TEST(the_proxy_view_example_draws_a_moving_car)
{
    pdk_test_server srv;
    start(&srv);
    static char out[1 << 16];
    int rc = pdk_test_sh(out, sizeof(out),
                         PDK_PROXY_VIEW_EXAMPLE " --server %s --rate 30 --draw 10 --duration 2",
                         srv.addr);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, out);
    ck_assert_msg(strstr(out, "state at 30 Hz, drawn at 10 Hz, clock offset") != NULL, "%s", out);
    int lines = 0, interpolated = 0;
    double first_x = NAN, last_x = NAN;
    for (const char *p = strstr(out, "\nt "); p != NULL; p = strstr(p + 1, "\nt ")) {
        double t_s = 0, x = 0;
        unsigned car = 0;
        ck_assert_int_eq(sscanf(p + 1, "t %lf s  car %u  x %lf m", &t_s, &car, &x), 3);
        const char *eol = strchr(p + 1, '\n');
        interpolated += eol != NULL && strstr(p + 1, "interp") != NULL &&
                        strstr(p + 1, "interp") < eol;
        first_x = isnan(first_x) ? x : first_x;
        last_x = x;
        lines++;
    }
    ck_assert_msg(lines >= 15, "%d pose lines: %s", lines, out);
    ck_assert_msg(interpolated >= lines / 2, "%d of %d interpolated: %s", interpolated, lines, out);
    ck_assert_msg(fabs(last_x - first_x) > 2.0, "the car did not move: %s", out);
    ck_assert_msg(strstr(out, "(0 refused)") != NULL && strstr(out, "snaps 0, teleports 0"),
                  "%s", out);
    /* A wrong rate is named, before anything connects. */
    rc = pdk_test_sh(out, sizeof(out), PDK_PROXY_VIEW_EXAMPLE " --server %s --rate 7", srv.addr);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "--rate must divide 120") != NULL, "%s", out);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* A new session of timing, through c: its id. */
static uint64_t create(pdk_client *c, paddock_v1_TimingMode timing)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = timing;
    pdk_test_call_ok(c, &req, &rep, "SessionCreate");
    return rep.body.session_created.session.session_id;
}

/* Session sid's tick_phase_ms, through c. */
static double phase_ms(pdk_client *c, uint64_t sid)
{
    static paddock_v1_SessionInfo info;
    pdk_test_session_info(c, &req, &rep, sid, &info);
    return info.tick_phase_ms;
}

/* The closest two of n phases come, around the tick. */
static double closest_ms(const double *phase, int n)
{
    const double tick_ms = 1000.0 / 120.0;
    double least = tick_ms;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double d = fabs(phase[i] - phase[j]);
            d = d < tick_ms - d ? d : tick_ms - d;
            least = d < least ? d : least;
        }
    }
    return least;
}

static void control(pdk_client *c, uint64_t sid, bool pause)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action =
        pause ? paddock_v1_SessionControl_pause_tag : paddock_v1_SessionControl_resume_tag;
    if (pause)
        req.body.session_control.action.pause = true;
    else
        req.body.session_control.action.resume = true;
    pdk_test_call_ok(c, &req, &rep, pause ? "pause" : "resume");
}

/* Real-time sessions fall due spread over the tick (docs/paddockd.md
 * "Timing"): each new one where the others' deadlines leave the most room,
 * so four tick a quarter of a tick apart (to within a 64th); a session
 * paused and resumed takes the widest room again; a fast session has no
 * phase. */
START_TEST(real_time_sessions_fall_due_spread_over_the_tick)
{
    const double tick_ms = 1000.0 / 120.0;
    pdk_test_server srv;
    start(&srv);
    static pdk_client c;
    pdk_test_connect_ok(&c, &srv, "phases", 5000);
    uint64_t sid[4];
    double phase[4];
    for (int i = 0; i < 4; i++)
        sid[i] = create(&c, paddock_v1_TimingMode_TIMING_MODE_REALTIME);
    for (int i = 0; i < 4; i++) {
        phase[i] = phase_ms(&c, sid[i]);
        ck_assert_msg(phase[i] >= 0.0 && phase[i] < tick_ms, "phase %g ms", phase[i]);
    }
    printf("four real-time sessions' phases: %.3f %.3f %.3f %.3f ms\n", phase[0], phase[1],
           phase[2], phase[3]);
    ck_assert_msg(closest_ms(phase, 4) > tick_ms / 4.0 - tick_ms / 64.0,
                  "two sessions fall due %.3f ms apart: %.3f %.3f %.3f %.3f ms",
                  closest_ms(phase, 4), phase[0], phase[1], phase[2], phase[3]);
    /* Paused, it has no phase; resumed, the widest room again. */
    control(&c, sid[1], true);
    ck_assert_msg(phase_ms(&c, sid[1]) == 0.0, "a paused session's phase");
    control(&c, sid[1], false);
    phase[1] = phase_ms(&c, sid[1]);
    ck_assert_msg(closest_ms(phase, 4) > tick_ms / 4.0 - tick_ms / 64.0,
                  "resumed %.3f ms from another: %.3f %.3f %.3f %.3f ms", closest_ms(phase, 4),
                  phase[0], phase[1], phase[2], phase[3]);
    ck_assert_msg(phase_ms(&c, create(&c, paddock_v1_TimingMode_TIMING_MODE_FAST)) == 0.0,
                  "a fast session's phase");
    pdk_client_close(&c);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

static Suite *clock_suite(void)
{
    Suite *s = suite_create("integration_clock");
    TCase *tc = tcase_create("clock");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, welcome_and_pong_carry_both_clocks);
    tcase_add_test(tc, a_driver_command_shows_in_the_batch_after_its_tick);
    tcase_add_test(tc, the_proxy_view_example_draws_a_moving_car);
    tcase_add_test(tc, real_time_sessions_fall_due_spread_over_the_tick);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(clock_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
