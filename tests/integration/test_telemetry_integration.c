/* Telemetry subscriptions end to end (docs/protocol.md "Telemetry"): live
 * values equal, bit for bit, what the recording's CSV export gives for the
 * same ticks; a replay sends them again; rates, ends and every refusal. The
 * real paddockd on loopback, the real client library, real SQLite files. */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
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

static void connect_viewer(pdk_client *c, const pdk_test_server *srv)
{
    ck_assert_int_eq(pdk_test_connect_viewer(c, srv->port, 10000, "watcher"), 0);
}

static uint64_t new_session(pdk_client *c, const char *world_overrides)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_REALTIME;
    snprintf(req.body.session_create.world_overrides,
             sizeof(req.body.session_create.world_overrides), "%s", world_overrides);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.session_created.session.session_id;
}

static uint32_t new_vehicle(pdk_client *c, uint64_t sid, double x_m, double y_m, double speed_mps)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    req.body.vehicle_spawn.x_m = x_m;
    req.body.vehicle_spawn.y_m = y_m;
    req.body.vehicle_spawn.speed_mps = speed_mps;
    req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return rep.body.vehicle_spawned.vehicle_id;
}

/* Fills req with a TelemetrySubscribe of the n names and n_ids ids. */
static void telemetry_req(uint64_t sid, uint32_t rate_hz, const char *const *names, size_t n,
                          const uint32_t *ids, size_t n_ids)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_telemetry_subscribe_tag;
    paddock_v1_TelemetrySubscribe *m = &req.body.telemetry_subscribe;
    m->session_id = sid;
    m->rate_hz = rate_hz;
    for (size_t i = 0; i < n; i++)
        snprintf(m->channels[i], sizeof(m->channels[i]), "%s", names[i]);
    m->channels_count = (pb_size_t)n;
    for (size_t i = 0; i < n_ids; i++)
        m->vehicle_ids[i] = ids[i];
    m->vehicle_ids_count = (pb_size_t)n_ids;
}

/* Subscribes and checks the schema: the names in the order asked for. */
static uint32_t telemetry_subscribe(pdk_client *c, uint64_t sid, uint32_t rate_hz,
                                    const char *const *names, size_t n, const uint32_t *ids,
                                    size_t n_ids)
{
    telemetry_req(sid, rate_hz, names, n, ids, n_ids);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_telemetry_schema_tag);
    const paddock_v1_TelemetrySchema *s = &rep.body.telemetry_schema;
    ck_assert_uint_eq(s->session_id, sid);
    ck_assert_uint_eq(s->rate_hz, rate_hz ? rate_hz : 120);
    ck_assert_uint_eq(s->channels_count, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(s->channels[i].name, names[i]);
    ck_assert_uint_ne(s->subscription_id, 0);
    return s->subscription_id;
}

/* Sends req and expects the server to refuse it with code and a message
 * holding needle; the connection stays usable. */
static void expect_refusal(pdk_client *c, paddock_v1_ErrorCode code, const char *needle)
{
    ck_assert_int_eq(pdk_client_call(c, &req, &rep, NULL, NULL), PDK_CLIENT_ESERVER);
    ck_assert_msg(c->server_code == code, "code %d, wanted %d: %s", (int)c->server_code, (int)code,
                  c->error);
    ck_assert_msg(strstr(c->error, needle) != NULL, "'%s' not in: %s", needle, c->error);
}

/* ---- live against the recording's CSV ------------------------------------ */

#define N_TICKS 1000
#define N_CHANS 7
#define N_CARS 2

static const char *const chans[N_CHANS] = {"Speed",         "PosX",   "YawRate", "SuspForce_FL",
                                           "WheelSpeed_RR", "AccelY", "Throttle"};
enum { THROTTLE = 6 };

/* What the live subscription gave: per tick, sim time and each car's row. */
typedef struct live_log {
    uint32_t sub;
    uint64_t from_tick;   /* batches of earlier ticks are passed over */
    uint32_t ids[N_CARS]; /* in id order, as the rows come */
    size_t n;
    uint64_t tick[N_TICKS];
    double time_s[N_TICKS];
    double v[N_TICKS][N_CARS][N_CHANS];
    uint64_t wall_ns_first, wall_ns_last;
} live_log;

/* The every-vehicle subscription at 60 Hz: its ticks and row counts. */
typedef struct half_log {
    uint32_t sub;
    size_t n;
    uint64_t tick[N_TICKS];
    size_t rows[N_TICKS];
    bool ended; /* the pushed CLOSED error came */
    char why[512];
} half_log;

typedef struct both_logs {
    live_log *live;
    half_log *half;
} both_logs;

static void keep_push(const paddock_v1_Frame *f, void *ud)
{
    both_logs *b = ud;
    if (f->which_body == paddock_v1_Frame_error_tag && f->request_id == 0) {
        ck_assert_int_eq(f->body.error.code, paddock_v1_ErrorCode_CLOSED);
        b->half->ended = true;
        snprintf(b->half->why, sizeof(b->half->why), "%s", f->body.error.message);
        return;
    }
    if (f->which_body != paddock_v1_Frame_telemetry_batch_tag)
        return;
    const paddock_v1_TelemetryBatch *tb = &f->body.telemetry_batch;
    if (tb->subscription_id == b->half->sub) {
        ck_assert_uint_lt(b->half->n, N_TICKS);
        b->half->tick[b->half->n] = tb->tick;
        b->half->rows[b->half->n] = tb->rows_count;
        b->half->n++;
        return;
    }
    live_log *l = b->live;
    ck_assert_uint_eq(tb->subscription_id, l->sub);
    if (l->n == N_TICKS || tb->tick < l->from_tick)
        return;
    ck_assert_msg(tb->rows_count == N_CARS, "tick %" PRIu64 ": %u rows, the first of vehicle %u",
                  tb->tick, (unsigned)tb->rows_count, tb->rows_count ? tb->rows[0].vehicle_id : 0u);
    l->tick[l->n] = tb->tick;
    l->time_s[l->n] = tb->sim_time_s;
    for (size_t r = 0; r < N_CARS; r++) {
        ck_assert_uint_eq(tb->rows[r].vehicle_id, l->ids[r]);
        ck_assert_uint_eq(tb->rows[r].values_count, N_CHANS);
        memcpy(l->v[l->n][r], tb->rows[r].values, sizeof(l->v[l->n][r]));
    }
    if (l->n == 0)
        l->wall_ns_first = tb->wall_time_ns;
    l->wall_ns_last = tb->wall_time_ns;
    l->n++;
}

/* A DbwCommand sent without waiting: its Ok comes back among the pushes,
 * with the request id returned. */
static uint64_t drive(pdk_client *c, uint64_t sid, uint32_t vid, double throttle, double steer)
{
    static paddock_v1_Frame cmd;
    memset(&cmd, 0, sizeof(cmd));
    cmd.which_body = paddock_v1_Frame_dbw_command_tag;
    cmd.body.dbw_command.session_id = sid;
    cmd.body.dbw_command.vehicle_id = vid;
    cmd.body.dbw_command.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
    cmd.body.dbw_command.throttle.throttle_pct = throttle;
    cmd.body.dbw_command.which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
    cmd.body.dbw_command.steer.steer_wheel_deg = steer;
    cmd.body.dbw_command.gear = paddock_v1_Gear_GEAR_DRIVE;
    ck_assert_int_eq(pdk_client_send(c, &cmd), PDK_CLIENT_OK);
    return cmd.request_id;
}

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static int keep_text(const uint8_t *data, size_t len, void *ud)
{
    text *t = ud;
    if (t->len + len + 1 > t->cap) {
        t->cap = (t->len + len + 1) * 2;
        t->data = realloc(t->data, t->cap);
        ck_assert_ptr_nonnull(t->data);
    }
    memcpy(t->data + t->len, data, len);
    t->len += len;
    t->data[t->len] = '\0';
    return 0;
}

/* The row of (tick, vehicle) in l; asserts there is one. */
static const double *live_row(const live_log *l, uint64_t tick, uint32_t vid)
{
    ck_assert_uint_ge(tick, l->tick[0]);
    size_t i = (size_t)(tick - l->tick[0]);
    ck_assert_uint_lt(i, l->n);
    ck_assert_uint_eq(l->tick[i], tick);
    for (size_t r = 0; r < N_CARS; r++)
        if (l->ids[r] == vid)
            return l->v[i][r];
    ck_abort_msg("vehicle %u is not in the live rows", vid);
    return NULL;
}

/* Three cars, two of them subscribed at 120 Hz with six channels while they
 * are driven; all of them at 60 Hz with one channel (a fourth car spawned
 * later joins it). Each live value must be the CSV export's, bit for bit;
 * the 60 Hz stream must hold every second tick and no other. Unsubscribe
 * stops a stream; the session's close ends the other with CLOSED. Then a
 * viewer's subscription to a replay of the recording sends the live values
 * again. */
START_TEST(live_values_are_the_recordings)
{
    pdk_test_server srv;
    pdk_test_start_ok(&srv, NULL, log_text, sizeof(log_text));
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "driver", 10000);
    uint64_t sid = new_session(&a, "");
    uint32_t cars[3];
    cars[0] = new_vehicle(&a, sid, 0.0, 0.0, 8.0);
    cars[1] = new_vehicle(&a, sid, 0.0, 20.0, 0.0);
    cars[2] = new_vehicle(&a, sid, 0.0, -20.0, 14.0);
    static live_log live;
    static half_log half;
    memset(&live, 0, sizeof(live));
    memset(&half, 0, sizeof(half));
    both_logs logs = {&live, &half};
    uint32_t chosen[N_CARS] = {cars[2], cars[0]}; /* rows come in id order */
    live.ids[0] = cars[0];
    live.ids[1] = cars[2];
    live.sub = telemetry_subscribe(&a, sid, 120, chans, N_CHANS, chosen, N_CARS);
    const char *speed[] = {"Speed"};
    half.sub = telemetry_subscribe(&a, sid, 60, speed, 1, NULL, 0);
    uint32_t late = 0;
    uint64_t throttle_rid = 0, throttle_tick = 0;
    double until = pdk_test_now_s() + 30.0;
    while (live.n < N_TICKS && pdk_test_now_s() < until) {
        if (pdk_client_recv(&a, &push, 50) != PDK_CLIENT_OK)
            continue;
        if (push.request_id == 0)
            keep_push(&push, &logs);
        else
            ck_assert_msg(push.which_body != paddock_v1_Frame_error_tag, "%s",
                          push.body.error.message);
        if (push.request_id == throttle_rid && push.which_body == paddock_v1_Frame_ok_tag)
            throttle_tick = push.body.ok.tick;
        if (live.n == 100 && throttle_rid == 0) {
            throttle_rid = drive(&a, sid, cars[0], 60.0, 90.0);
            drive(&a, sid, cars[2], 0.0, -45.0);
        }
        if (live.n == 300 && late == 0) {
            /* A car spawned after the subscriptions: the every-vehicle
             * stream takes it in. */
            memset(&req, 0, sizeof(req));
            req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
            req.body.vehicle_spawn.session_id = sid;
            strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
            req.body.vehicle_spawn.y_m = 40.0;
            ck_assert_int_eq(pdk_client_call(&a, &req, &rep, keep_push, &logs), PDK_CLIENT_OK);
            late = rep.body.vehicle_spawned.vehicle_id;
        }
        if (live.n == 500 && late != UINT32_MAX) {
            drive(&a, sid, cars[0], 20.0, -120.0);
            late = UINT32_MAX; /* driven once */
        }
    }
    ck_assert_msg(live.n == N_TICKS, "%zu of %d ticks in 30 s", live.n, N_TICKS);
    for (size_t i = 1; i < live.n; i++)
        ck_assert_uint_eq(live.tick[i], live.tick[i - 1] + 1);
    /* The tick timeline (docs/protocol.md "Telemetry"): the command
     * answered Ok{tick: T} is first used by the step of tick T, so the
     * batch of tick T still has the old pedal and that of T + 1 the new. */
    ck_assert_uint_gt(throttle_tick, live.tick[0]);
    ck_assert_double_eq(live_row(&live, throttle_tick, cars[0])[THROTTLE], 0.0);
    ck_assert_double_eq(live_row(&live, throttle_tick + 1, cars[0])[THROTTLE], 60.0);
    /* The wall clock of the steps: UTC now, and 1000 ticks take about 8 s. */
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    uint64_t wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    ck_assert_uint_gt(live.wall_ns_first, wall_ns - 60000000000u);
    ck_assert_uint_le(live.wall_ns_last, wall_ns);
    ck_assert_uint_gt(live.wall_ns_last - live.wall_ns_first, 6000000000u);

    /* Unsubscribe: nothing of that stream after its Ok. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_unsubscribe_tag;
    req.body.unsubscribe.subscription_id = live.sub;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, keep_push, &logs), PDK_CLIENT_OK);
    size_t kept = live.n;
    live.n = N_TICKS - 1; /* one more would be recorded, and is checked not to come */
    uint64_t last_live = live.tick[N_TICKS - 1];
    double drain_until = pdk_test_now_s() + 0.3;
    while (pdk_test_now_s() < drain_until)
        if (pdk_client_recv(&a, &push, 20) == PDK_CLIENT_OK && push.request_id == 0)
            keep_push(&push, &logs);
    ck_assert_uint_eq(live.tick[N_TICKS - 1], last_live);
    live.n = kept;

    /* The close ends the 60 Hz stream with a pushed CLOSED. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_close_tag;
    req.body.session_close.session_id = sid;
    ck_assert_int_eq(pdk_client_call(&a, &req, &rep, keep_push, &logs), PDK_CLIENT_OK);
    drain_until = pdk_test_now_s() + 2.0;
    while (!half.ended && pdk_test_now_s() < drain_until)
        if (pdk_client_recv(&a, &push, 20) == PDK_CLIENT_OK && push.request_id == 0)
            keep_push(&push, &logs);
    ck_assert_msg(half.ended, "no CLOSED for the 60 Hz stream");
    char why[96];
    snprintf(why, sizeof(why), "subscription %u ended: session %" PRIu64 " was closed", half.sub,
             sid);
    ck_assert_str_eq(half.why, why);

    /* 60 Hz: every second tick, none missing, the late car included. */
    ck_assert_uint_gt(half.n, 400);
    bool joined = false;
    for (size_t i = 0; i < half.n; i++) {
        ck_assert_uint_eq(half.tick[i] % 2, 0);
        if (i > 0)
            ck_assert_uint_eq(half.tick[i], half.tick[i - 1] + 2);
        ck_assert_uint_ge(half.rows[i], 3);
        joined = joined || half.rows[i] == 4;
    }
    ck_assert(joined);

    /* The recording's CSV of the same ticks, vehicles and channels. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_csv_export_request_tag;
    paddock_v1_CsvExportRequest *csv = &req.body.csv_export_request;
    csv->session_id = sid;
    csv->from_tick = live.tick[0];
    csv->to_tick = live.tick[N_TICKS - 1];
    for (size_t c = 0; c < N_CHANS; c++)
        strcpy(csv->channels[c], chans[c]);
    csv->channels_count = N_CHANS;
    csv->vehicle_ids[0] = cars[0];
    csv->vehicle_ids[1] = cars[2];
    csv->vehicle_ids_count = 2;
    static text t;
    memset(&t, 0, sizeof(t));
    ck_assert_msg(pdk_client_download(&a, &req, keep_text, &t, NULL, NULL, NULL) == PDK_CLIENT_OK,
                  "%s", a.error);
    const char *header = "tick,time_s,vehicle,Speed,PosX,YawRate,SuspForce_FL,WheelSpeed_RR,"
                         "AccelY,Throttle\n";
    ck_assert_msg(strncmp(t.data, header, strlen(header)) == 0, "%.200s", t.data);
    size_t compared = 0;
    for (char *line = t.data + strlen(header); *line;) {
        char *end = NULL;
        uint64_t tick = strtoull(line, &end, 10);
        ck_assert(*end == ',');
        double time_s = strtod(end + 1, &end);
        ck_assert(*end == ',');
        uint32_t vid = (uint32_t)strtoul(end + 1, &end, 10);
        const double *row = live_row(&live, tick, vid);
        ck_assert_mem_eq(&time_s, &live.time_s[tick - live.tick[0]], sizeof(double));
        for (size_t c = 0; c < N_CHANS; c++) {
            ck_assert(*end == ',');
            double v = strtod(end + 1, &end);
            ck_assert_msg(memcmp(&v, &row[c], sizeof v) == 0,
                          "tick %" PRIu64 " vehicle %u %s: CSV %.17g, live %.17g", tick, vid,
                          chans[c], v, row[c]);
            compared++;
        }
        ck_assert(*end == '\n');
        line = end + 1;
    }
    ck_assert_uint_eq(compared, (size_t)N_TICKS * N_CARS * N_CHANS);
    free(t.data);

    /* A replay, paused, subscribed to by a viewer, run over the first 300
     * live ticks: the same values. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = sid;
    req.body.replay_open.paused = true;
    ck_assert_msg(pdk_client_call(&a, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", a.error);
    uint64_t rid = rep.body.session_created.session.session_id;
    static pdk_client v;
    connect_viewer(&v, &srv);
    static live_log again;
    memset(&again, 0, sizeof(again));
    again.ids[0] = cars[0];
    again.ids[1] = cars[2];
    again.from_tick = live.tick[0]; /* before it, the cars were still being spawned */
    again.sub = telemetry_subscribe(&v, rid, 0, chans, N_CHANS, chosen, N_CARS);
    half_log none = {.sub = UINT32_MAX};
    both_logs replay_logs = {&again, &none};
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = rid;
    req.body.session_control.which_action = paddock_v1_SessionControl_run_to_tick_tag;
    req.body.session_control.action.run_to_tick = live.tick[0] + 300;
    ck_assert_msg(pdk_client_call(&a, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", a.error);
    drain_until = pdk_test_now_s() + 10.0;
    while (pdk_test_now_s() < drain_until && (again.n == 0 || again.tick[again.n - 1] < live.tick[0] + 300))
        if (pdk_client_recv(&v, &push, 20) == PDK_CLIENT_OK && push.request_id == 0)
            keep_push(&push, &replay_logs);
    size_t matched = 0;
    for (size_t i = 0; i < again.n; i++) {
        for (size_t r = 0; r < N_CARS; r++)
            ck_assert_mem_eq(again.v[i][r], live_row(&live, again.tick[i], again.ids[r]),
                             sizeof(again.v[i][r]));
        matched++;
    }
    ck_assert_uint_ge(matched, 300);
    pdk_client_close(&v);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* Every refusal names what was wrong; the connection's 32 subscriptions
 * count telemetry ones; a batch too large for a frame ends its
 * subscription with a pushed FRAME_TOO_LARGE. */
START_TEST(refusals_name_what_was_wrong)
{
    pdk_test_server srv;
    const char *extra[] = {"--max-frame", "2048", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "asker", 10000);
    uint64_t sid = new_session(&a, "maxVehicles=4");
    uint32_t car = new_vehicle(&a, sid, 0.0, 0.0, 5.0);

    const char *foo[] = {"Speed", "PosX", "YawRate", "Foo"};
    telemetry_req(sid, 0, foo, 4, NULL, 0);
    expect_refusal(&a, paddock_v1_ErrorCode_UNKNOWN_KEY,
                   "channels[3] = \"Foo\" is not a channel; `paddockd channels` lists them");
    telemetry_req(sid, 0, NULL, 0, NULL, 0);
    expect_refusal(&a, paddock_v1_ErrorCode_INVALID_ARGUMENT, "channels is empty");
    const char *twice[] = {"Speed", "PosX", "Speed"};
    telemetry_req(sid, 0, twice, 3, NULL, 0);
    expect_refusal(&a, paddock_v1_ErrorCode_INVALID_ARGUMENT,
                   "channels[2] = \"Speed\" repeats channels[0]");
    const char *speed[] = {"Speed"};
    telemetry_req(sid, 7, speed, 1, NULL, 0);
    expect_refusal(&a, paddock_v1_ErrorCode_INVALID_ARGUMENT, "rate_hz 7 does not divide 120");
    uint32_t five[5] = {car, car + 1, car + 2, car + 3, car + 4};
    telemetry_req(sid, 0, speed, 1, five, 5);
    expect_refusal(&a, paddock_v1_ErrorCode_OUT_OF_RANGE, "vehicle_ids lists 5 ids; session");
    telemetry_req(sid + 1000, 0, speed, 1, NULL, 0);
    char missing[64];
    snprintf(missing, sizeof(missing), "session %" PRIu64 " does not exist", sid + 1000);
    expect_refusal(&a, paddock_v1_ErrorCode_NOT_FOUND, missing);

    /* Thirty-two subscriptions on one connection, then no more. */
    for (int i = 0; i < 32; i++)
        telemetry_subscribe(&a, sid, 1, speed, 1, NULL, 0);
    telemetry_req(sid, 1, speed, 1, NULL, 0);
    expect_refusal(&a, paddock_v1_ErrorCode_CAPACITY, "already holds 32 subscriptions");
    pdk_client_close(&a);

    /* Eight channels of forty moving cars: about 3 KB a batch against the
     * 2 KB frame limit, while the schema reply stays well under it. */
    pdk_test_connect_ok(&a, &srv, "greedy", 10000);
    uint64_t big = new_session(&a, "maxVehicles=64");
    for (int i = 0; i < 40; i++)
        new_vehicle(&a, big, 10.0 * i, 5.0 * i, 5.0 + i);
    const char *eight[] = {"PosX", "PosY", "Yaw", "Speed", "VelX", "VelY", "YawRate", "AccelX"};
    uint32_t sub = telemetry_subscribe(&a, big, 1, eight, 8, NULL, 0);
    bool told = false;
    for (int i = 0; i < 30 && !told; i++) {
        if (pdk_client_recv(&a, &push, 200) == PDK_CLIENT_OK &&
            push.which_body == paddock_v1_Frame_error_tag && push.request_id == 0) {
            ck_assert_int_eq(push.body.error.code, paddock_v1_ErrorCode_FRAME_TOO_LARGE);
            char want[96];
            snprintf(want, sizeof(want), "subscription %u ended: a telemetry batch of", sub);
            ck_assert_msg(strstr(push.body.error.message, want) != NULL, "%s",
                          push.body.error.message);
            told = true;
        }
    }
    ck_assert_msg(told, "no pushed error for the oversized batch");
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* `paddock telemetry`: the header once, then a row per vehicle per batch;
 * --csv values read back to the bits a subscription of the same ticks got
 * (the CLI's rows are checked against a subscription of the test's own). */
START_TEST(cli_prints_rows_that_round_trip)
{
    pdk_test_server srv;
    pdk_test_start_ok(&srv, NULL, log_text, sizeof(log_text));
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "cli-test", 10000);
    uint64_t sid = new_session(&a, "");
    uint32_t car = new_vehicle(&a, sid, 0.0, 0.0, 11.0);
    uint32_t other = new_vehicle(&a, sid, 0.0, 30.0, 4.0);
    const char *two[] = {"Speed", "YawRate"};
    uint32_t sub = telemetry_subscribe(&a, sid, 60, two, 2, NULL, 0);
    static char out[1 << 16];
    ck_assert_msg(pdk_test_sh(out, sizeof(out),
                              PDK_PADDOCK " --server %s telemetry %" PRIu64
                                          " --channels Speed,YawRate --vehicles %u,%u --rate 60 "
                                          "--ticks 20 --csv 2>/dev/null",
                              srv.addr, sid, other, car) == 0,
                  "%s", out);
    ck_assert_msg(strncmp(out, "tick,sim_time_s,vehicle_id,Speed,YawRate\n", 41) == 0, "%s", out);
    /* Ten batches (every second tick over twenty ticks) of two rows. */
    static uint64_t ticks[32];
    static uint32_t vids[32];
    static double vals[32][2];
    size_t rows = 0;
    for (char *line = strchr(out, '\n') + 1; *line && rows < 32;) {
        char *end = NULL;
        ticks[rows] = strtoull(line, &end, 10);
        strtod(end + 1, &end);
        vids[rows] = (uint32_t)strtoul(end + 1, &end, 10);
        vals[rows][0] = strtod(end + 1, &end);
        vals[rows][1] = strtod(end + 1, &end);
        ck_assert(*end == '\n');
        line = end + 1;
        rows++;
    }
    ck_assert_uint_eq(rows, 20);
    ck_assert_uint_eq(ticks[19], ticks[0] + 18);
    ck_assert_uint_eq(vids[0], car < other ? car : other);
    /* The test's own 60 Hz subscription saw the same ticks: same bits. */
    size_t same = 0;
    double until = pdk_test_now_s() + 5.0;
    while (same < rows && pdk_test_now_s() < until) {
        if (pdk_client_recv(&a, &push, 50) != PDK_CLIENT_OK ||
            push.which_body != paddock_v1_Frame_telemetry_batch_tag)
            continue;
        const paddock_v1_TelemetryBatch *tb = &push.body.telemetry_batch;
        ck_assert_uint_eq(tb->subscription_id, sub);
        for (size_t r = 0; r < rows; r++) {
            if (ticks[r] != tb->tick)
                continue;
            for (pb_size_t k = 0; k < tb->rows_count; k++) {
                if (tb->rows[k].vehicle_id != vids[r])
                    continue;
                ck_assert_mem_eq(vals[r], tb->rows[k].values, sizeof(vals[r]));
                same++;
            }
        }
        if (tb->tick > ticks[rows - 1])
            break;
    }
    ck_assert_uint_eq(same, rows);

    /* The table form and the refusals of the command line and the server. */
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCK " --server %s telemetry %" PRIu64
                                             " --channels Speed --ticks 3 2>/dev/null",
                                 srv.addr, sid),
                     0);
    ck_assert_msg(strstr(out, "TICK") && strstr(out, "VEHICLE_ID") && strstr(out, "Speed"), "%s",
                  out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCK " --server %s telemetry %" PRIu64 " --ticks 3",
                                 srv.addr, sid),
                     2);
    /* The command line's own refusals, each naming the option, exit 2. */
    const char *const usage[][2] = {
        {"--channels , --ticks 3", "--channels: ',' holds an empty or too long name"},
        {"--channels Speed --vehicles 1,x --ticks 3", "--vehicles"},
        {"--channels Speed --ticks 3 --seconds 1", "give --ticks or --seconds, not both"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                     PDK_PADDOCK " --server %s telemetry %" PRIu64 " %s",
                                     srv.addr, sid, usage[i][0]),
                         2);
        ck_assert_msg(strstr(out, usage[i][1]) != NULL, "%s: %s", usage[i][0], out);
    }
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 PDK_PADDOCK " --server %s telemetry %" PRIu64
                                             " --channels Nope --ticks 3",
                                 srv.addr, sid),
                     1);
    ck_assert_msg(strstr(out, "UNKNOWN_KEY") && strstr(out, "\"Nope\" is not a channel"), "%s",
                  out);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

static Suite *telemetry_suite(void)
{
    Suite *s = suite_create("telemetry_integration");
    TCase *tc = tcase_create("telemetry");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, live_values_are_the_recordings);
    tcase_add_test(tc, refusals_name_what_was_wrong);
    tcase_add_test(tc, cli_prints_rows_that_round_trip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(telemetry_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
