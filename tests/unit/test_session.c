/* Unit tests of app's session and lateness statistics: inputs at tick
 * boundaries with (tick, seq), replies, refusals, scripts, subscriptions
 * (state and DBW reports), control leases, reset and reseed, restores
 * through a staging world, publishing off, and recording (a hash every
 * tick, keyframes) into a real SQLite file. */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "session_inputs_util.h"
#include "stats.h"
#include "wire.h"
#include "wire_snapshot.h"
#include "sim/snapshot.h"
#include "world_mem.h"

#define MAX_RESULTS 64

static pdk_input_result results[MAX_RESULTS];
static char messages[MAX_RESULTS][256];
static pdk_reply_to result_to[MAX_RESULTS];
static int n_results;
static int n_states;
static uint32_t last_state_sub;
/* The last state frame of each subscription below MAX_STATE_SUBS. */
#define MAX_STATE_SUBS 8
static uint8_t state_frames[MAX_STATE_SUBS][4096];
static size_t state_lens[MAX_STATE_SUBS];

static void on_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    (void)ud;
    ck_assert_int_lt(n_results, MAX_RESULTS);
    results[n_results] = *res;
    snprintf(messages[n_results], sizeof(messages[0]), "%s", res->message ? res->message : "");
    result_to[n_results] = to;
    n_results++;
}

static uint32_t state_parts[8]; /* the part of each on_state call, by n_states % 8 */

static pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, uint32_t part,
                          const pdk_session_frame *frame)
{
    (void)ud;
    (void)conn_id;
    size_t len = frame->head_len + frame->body_len;
    ck_assert_uint_gt(len, 4);
    ck_assert_ptr_nonnull(frame->head);
    last_state_sub = sub_id;
    state_parts[n_states % 8] = part;
    if (sub_id < MAX_STATE_SUBS) {
        /* The two pieces back to back are the frame the tests decode. */
        ck_assert_uint_le(len, sizeof(state_frames[0]));
        memcpy(state_frames[sub_id], frame->head, frame->head_len);
        memcpy(state_frames[sub_id] + frame->head_len, frame->body, frame->body_len);
        state_lens[sub_id] = len;
    }
    n_states++;
    /* Subscription 99 stands for a subscriber whose batch outgrew a frame. */
    return sub_id == 99 ? PDK_ERR_FRAME_TOO_LARGE : PDK_OK;
}

static int n_ended;
static pdk_error ended_code;
static char ended_why[192];

static void on_sub_end(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code, const char *why)
{
    (void)ud;
    (void)conn_id;
    (void)sub_id;
    n_ended++;
    ended_code = code;
    snprintf(ended_why, sizeof(ended_why), "%s", why);
}

/* DBW report frames as they were pushed: the session tick they went out
 * at, and what they said. */
typedef struct got_report {
    uint64_t sent_tick;
    uint64_t tick;
    uint32_t sub;
    int kind;
    float steer_deg;
    uint32_t sys_state, reason_disengage, active_source;
} got_report;

#define MAX_REPORTS 8192
static got_report reports[MAX_REPORTS];
static int n_reports;
static const pdk_session *report_session; /* whose tick stamps the frames */

static pdk_error on_dbw_report(void *ud, uint64_t conn_id, uint32_t sub_id, int kind,
                               const uint8_t *frame, size_t len)
{
    (void)ud;
    (void)conn_id;
    ck_assert_int_eq(pdk_wire_frame_check(frame, len), PDK_OK);
    pdk_error err;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_DBW_REPORT);
    const Paddock__V1__DbwReport *d = f->dbw_report;
    ck_assert_uint_eq(d->subscription_id, sub_id);
    ck_assert_int_eq((int)d->report_case, kind + 10);
    ck_assert_int_lt(n_reports, MAX_REPORTS);
    got_report *g = &reports[n_reports++];
    memset(g, 0, sizeof(*g));
    g->sent_tick = report_session ? pdk_world_tick(pdk_session_world(report_session)) : 0;
    g->tick = d->tick;
    g->sub = sub_id;
    g->kind = kind;
    if (kind == PDK_RPT_STEER)
        g->steer_deg = d->steering->steering_wheel_angle;
    if (kind == PDK_RPT_SYSTEM) {
        g->sys_state = d->system->state;
        g->reason_disengage = d->system->reason_disengage;
        g->active_source = (uint32_t)d->system->active_source;
    }
    pdk_wire_frame_free(f);
    return PDK_OK;
}

#define MAX_EVENTS 16
static pdk_control_event events[MAX_EVENTS];
static uint64_t event_conn[MAX_EVENTS];
static char event_reason[MAX_EVENTS][192];
static int n_events;

static void on_control(void *ud, uint64_t conn_id, const pdk_control_event *ev)
{
    (void)ud;
    ck_assert_int_lt(n_events, MAX_EVENTS);
    events[n_events] = *ev;
    event_conn[n_events] = conn_id;
    snprintf(event_reason[n_events], sizeof(event_reason[0]), "%s", ev->reason);
    events[n_events].reason = event_reason[n_events];
    n_events++;
}

/* The store at path opened (made where there is none). */
static pdk_store *reopen_store(const char *path)
{
    char err[PDK_STORE_ERR_LEN];
    pdk_store *store = NULL;
    ck_assert_msg(pdk_store_open(path, PDK_SOURCE_DIR "/migrations", &store, err, sizeof(err)) ==
                      PDK_OK,
                  "%s", err);
    return store;
}

/* A fresh store in a directory of its own; its file's path in path. */
static pdk_store *open_store(char path[128])
{
    char dir[] = "/tmp/pdk-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, 128, "%s/t.db", dir);
    return reopen_store(path);
}

/* The store's file at path and the directory open_store made for it. */
static void remove_store(const char *path)
{
    unlink(path);
    char dir[128];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    rmdir(dir);
}

/* make's session with keyframes every ticks apart, offset ticks into each
 * interval (every 0: the default interval). */
static pdk_session *make_keyframed(pdk_store *store, uint32_t every, uint32_t offset);

static pdk_session *make(pdk_store *store)
{
    return make_keyframed(store, 0, 0);
}

static pdk_session *make_keyframed(pdk_store *store, uint32_t every, uint32_t offset)
{
    n_results = 0;
    n_states = 0;
    n_reports = 0;
    n_events = 0;
    pdk_session_def def = {
        .name = "unit",
        .world_preset = "flat",
        .world_json = "{}",
        .world = pdk_world_def_default(),
        .timing = PDK_TIMING_FAST,
        .build_id = "test",
        .store = store,
        .keyframe_every_ticks = every,
        .keyframe_offset_ticks = offset,
    };
    n_ended = 0;
    pdk_session_hooks hooks = {.on_result = on_result,
                               .on_state = on_state,
                               .on_sub_end = on_sub_end,
                               .on_dbw_report = on_dbw_report,
                               .on_control = on_control};
    pdk_session *s = NULL;
    ck_assert_int_eq(pdk_session_create(7, &def, &hooks, &s), PDK_OK);
    return s;
}

static pdk_vehicle_id spawn(pdk_session *s, uint64_t conn, uint64_t rid)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_spawn_place place = {.gear = PDK_GEAR_DRIVE};
    pdk_reply_to to = {conn, rid, 0};
    ck_assert_int_eq(pdk_session_queue_spawn(s, &def, "midsize_sedan", "", "{\"x\":1}", &place, to),
                     PDK_OK);
    int before = n_results;
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, before + 1);
    ck_assert_int_eq(results[before].err, PDK_OK);
    return results[before].vehicle;
}

START_TEST(inputs_apply_at_the_next_tick_boundary)
{
    pdk_session *s = make(NULL);
    ck_assert_uint_eq(pdk_world_tick(pdk_session_world(s)), 0);
    pdk_vehicle_id v = spawn(s, 1, 10);
    ck_assert_uint_ne(v, 0);
    /* The spawn was stamped with tick 0 (applied before the first step). */
    ck_assert_uint_eq(results[0].tick, 0);
    ck_assert_int_eq(results[0].kind, PDK_INPUT_SPAWN);
    ck_assert_uint_eq(result_to[0].request_id, 10);

    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 50};
    ck_assert_int_eq(queue_dbw(s, v, &cmd, (pdk_reply_to){1, 11, 0}), PDK_OK);
    /* Nothing changes until the tick boundary. */
    ck_assert_int_eq(n_results, 1);
    const double *ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 0.0);
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, 2);
    ck_assert_uint_eq(results[1].tick, 1);
    ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 50.0);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 2);
    /* Unrecorded, a tick takes no hash: the one after it is computed. */
    ck_assert_uint_eq(pdk_session_tick_hash(s), pdk_session_hash(s));
    pdk_session_destroy(s);
}
END_TEST

START_TEST(refused_inputs_are_answered_and_not_counted)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd bad = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 150};
    queue_dbw(s, v, &bad, (pdk_reply_to){1, 2, 0});
    pdk_dbw_cmd ok = {.fields = PDK_DBW_STEER, .steer_wheel_deg = 10};
    queue_dbw(s, v + 5, &ok, (pdk_reply_to){1, 3, 0});
    queue_remove(s, v + 5, (pdk_reply_to){1, 4, 0});
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, 4);
    ck_assert_int_eq(results[1].err, PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(messages[1], "throttle_pct must be within 0..100"));
    ck_assert_int_eq(results[2].err, PDK_ERR_STALE_ID);
    ck_assert_ptr_nonnull(strstr(messages[2], "is not in session 7"));
    ck_assert_int_eq(results[3].err, PDK_ERR_STALE_ID);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 1);
    pdk_session_destroy(s);
}
END_TEST

START_TEST(queue_is_bounded_and_close_answers_pending)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 10};
    int queued = 0;
    while (queue_dbw(s, v, &cmd, (pdk_reply_to){2, (uint64_t)queued + 100, 0}) == PDK_OK)
        queued++;
    ck_assert_int_eq(queued, PDK_SESSION_MAX_PENDING);
    ck_assert_int_eq(queue_dbw(s, v, &cmd, (pdk_reply_to){2, 1, 0}), PDK_ERR_BUSY);
    /* Connection 2 goes away: its pending inputs still apply, silently. */
    pdk_session_forget_conn(s, 2);
    int before = n_results;
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, before);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 1 + (uint64_t)queued);
    /* An input still pending when the session closes is told CLOSED. */
    queue_dbw(s, v, &cmd, (pdk_reply_to){3, 9, 0});
    pdk_session_destroy(s);
    ck_assert_int_eq(n_results, before + 1);
    ck_assert_int_eq(results[before].err, PDK_ERR_CLOSED);
    ck_assert_uint_eq(result_to[before].request_id, 9);
}
END_TEST

START_TEST(scripts_become_inputs_at_their_ticks)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_script_step steps[2] = {
        {.t_s = 0.0, .cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 40}},
        {.t_s = 0.5,
         .cmd = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE, .throttle_pct = 0, .brake_bar = 20}},
    };
    pdk_script script = {.steps = steps, .n_steps = 2};
    uint64_t start = pdk_world_tick(pdk_session_world(s));
    ck_assert_int_eq(pdk_session_attach_script(s, v, &script, true, 0.25), PDK_OK);
    pdk_session_tick(s);
    const double *ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 40.0);
    while (pdk_world_tick(pdk_session_world(s)) < start + 60)
        pdk_session_tick(s);
    ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 40.0);
    pdk_session_tick(s); /* tick start + 60 applies the t = 0.5 s step */
    ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_BRAKE], 20.0);
    /* Looping: 0.25 s (30 ticks) after the last step the script starts over. */
    while (pdk_world_tick(pdk_session_world(s)) < start + 91)
        pdk_session_tick(s);
    ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_THROTTLE], 40.0);
    /* Script inputs are recorded inputs: 1 spawn + 3 steps so far. */
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 4);
    /* Scripts answer nobody. */
    ck_assert_int_eq(n_results, 1);
    pdk_session_destroy(s);
}
END_TEST

START_TEST(subscriptions_publish_at_their_rate)
{
    pdk_session *s = make(NULL);
    spawn(s, 1, 1);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 7, 0, NULL, 0, 0, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 240, 0, NULL, 0, 0, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 30, 8, NULL, 0, 0, NULL), PDK_ERR_INVALID_ARGUMENT);
    static uint32_t too_many[300];
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 30, 0, too_many, 300, 0, NULL), PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 30, 0, NULL, 0, 0, NULL), PDK_OK);
    uint32_t ids[3] = {12345, 12345, 12345}; /* duplicates collapse to one */
    ck_assert_int_eq(pdk_session_subscribe(s, 2, 5, 0, 0, ids, 3, 0, NULL), PDK_OK);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 2);
    n_states = 0;
    for (int i = 0; i < 120; i++)
        pdk_session_tick(s);
    /* 30 Hz over one second plus 120 Hz over one second. */
    ck_assert_int_eq(n_states, 30 + 120);
    ck_assert_int_eq(pdk_session_unsubscribe(s, 1, 5), PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_session_unsubscribe(s, 2, 5), PDK_OK);
    pdk_session_forget_conn(s, 1);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);
    n_states = 0;
    pdk_session_tick(s);
    ck_assert_int_eq(n_states, 0);

    /* A subscription whose batch does not fit a frame ends and says why. */
    ck_assert_int_eq(pdk_session_subscribe(s, 3, 99, 120, 0, NULL, 0, 0, NULL), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_FRAME_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(ended_why, "larger than the frame limit"));

    /* Closing the session ends the rest, with CLOSED. */
    ck_assert_int_eq(pdk_session_subscribe(s, 4, 1, 60, 0, NULL, 0, 0, NULL), PDK_OK);
    pdk_session_destroy(s);
    ck_assert_int_eq(n_ended, 2);
    ck_assert_int_eq(ended_code, PDK_ERR_CLOSED);
}
END_TEST

/* Telemetry subscriptions share the state ones' rates, limits and ends;
 * their own refusal is a channel list that is empty or holds an index
 * the registry does not have. */
START_TEST(telemetry_subscriptions_publish_and_end)
{
    pdk_session *s = make(NULL);
    spawn(s, 1, 1);
    const int chans[2] = {PDK_CH_SPEED, PDK_CH_POS_X};
    const int beyond[2] = {PDK_CH_SPEED, PDK_CH_COUNT};
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 0, NULL, 0, chans, 0),
                     PDK_ERR_UNKNOWN_KEY);
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 0, NULL, 0, NULL, 2),
                     PDK_ERR_UNKNOWN_KEY);
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 0, NULL, 0, beyond, 2),
                     PDK_ERR_UNKNOWN_KEY);
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 7, NULL, 0, chans, 2),
                     PDK_ERR_INVALID_ARGUMENT);
    static uint32_t too_many[300];
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 0, too_many, 300, chans, 2),
                     PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 1, 1, 40, NULL, 0, chans, 2), PDK_OK);
    n_states = 0;
    for (int i = 0; i < 120; i++)
        pdk_session_tick(s);
    ck_assert_int_eq(n_states, 40);
    ck_assert_int_eq(pdk_session_unsubscribe(s, 1, 1), PDK_OK);

    n_ended = 0;
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 3, 99, 120, NULL, 0, chans, 2), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_FRAME_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(ended_why, "a telemetry batch of"));
    ck_assert_int_eq(pdk_session_telemetry_subscribe(s, 4, 1, 60, NULL, 0, chans, 2), PDK_OK);
    pdk_session_destroy(s);
    ck_assert_int_eq(n_ended, 2);
    ck_assert_int_eq(ended_code, PDK_ERR_CLOSED);
}
END_TEST

static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* A recorded session whose fleet grew asks the store's writer for a warm
 * block for its next keyframe (session_record.c plan_keyframe_block): once
 * the tick that spawned 40 cars is written, the session's spare holds at
 * least what it asked for, half a record a car and a quarter more (the
 * fleet's first keyframe knows no bytes a car yet). */
START_TEST(a_grown_fleet_has_its_keyframes_block_made_ready)
{
    char path[128];
    pdk_store *store = open_store(path);
    pdk_session *s = make(store);
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_spawn_place place = {.gear = PDK_GEAR_DRIVE};
    for (int i = 0; i < 40; i++) {
        place.x_m = 10.0 * i;
        ck_assert_int_eq(pdk_session_queue_spawn(s, &def, "midsize_sedan", "", "{}", &place,
                                                 (pdk_reply_to){1, 10 + (uint64_t)i, 0}),
                         PDK_OK);
    }
    pdk_session_tick(s); /* all 40 at once */
    ck_assert_int_eq(pdk_world_vehicle_count(pdk_session_world(s)), 40);
    ck_assert_int_eq(pdk_store_flush(store), PDK_OK);
    size_t cap = 0;
    void *block = pdk_store_spare_take(store, 7, &cap);
    ck_assert_ptr_nonnull(block);
    ck_assert_uint_ge(cap, 65536u + 40u * (pdk_snapshot_vehicle_bytes() / 2u) / 4u * 5u);
    free(block);
    pdk_session_destroy(s);
    pdk_store_close(store);
}
END_TEST

START_TEST(sessions_are_recorded)
{
    char path[128];
    pdk_store *store = open_store(path);
    pdk_session *s = make(store);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 30};
    queue_dbw(s, v, &cmd, (pdk_reply_to){1, 2, 0});
    pdk_dbw_cmd bad = {.fields = PDK_DBW_THROTTLE, .throttle_pct = -1};
    queue_dbw(s, v, &bad, (pdk_reply_to){1, 3, 0});
    /* The hash a step thread shows after each tick is the one the tick
     * recorded, the world's own. */
    for (int i = 0; i < 24; i++) {
        pdk_session_tick(s);
        ck_assert_uint_eq(pdk_session_tick_hash(s), pdk_session_hash(s));
    }
    uint64_t hash = pdk_session_hash(s);
    pdk_session_destroy(s);
    pdk_store_close(store);

    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM sessions WHERE session_id = 7 AND "
                                   "final_tick = 25"),
                     1);
    ck_assert_int_eq(sql_int(path, "SELECT final_hash FROM sessions WHERE session_id = 7"),
                     (int64_t)hash);
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM inputs WHERE session_id = 7"), 2);
    ck_assert_int_eq(sql_int(path, "SELECT tick FROM inputs WHERE kind = 3"), 1);
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM vehicles WHERE params_json = "
                                   "'{\"x\":1}'"),
                     1);
    /* A hash every tick, tick 0 included: 0..25. */
    ck_assert_int_eq(PDK_SESSION_HASH_EVERY, 1);
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM state_hashes WHERE session_id = 7"), 26);
    ck_assert_int_eq(sql_int(path, "SELECT min(tick) FROM state_hashes WHERE session_id = 7"), 0);
    ck_assert_int_eq(sql_int(path, "SELECT hash FROM state_hashes WHERE session_id = 7 AND "
                                   "tick = 25"),
                     (int64_t)hash);
    /* A keyframe at its start tick (the next is due at tick 120), and the
     * recording's settings. */
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM snapshots WHERE session_id = 7 AND "
                                   "tick = 0"),
                     1);
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM snapshots WHERE session_id = 7"), 1);
    ck_assert_int_eq(sql_int(path, "SELECT keyframe_every_ticks FROM sessions WHERE "
                                   "session_id = 7"),
                     PDK_SESSION_KEYFRAME_EVERY);
    ck_assert_int_eq(sql_int(path, "SELECT start_tick + parent_session_id + parent_tick FROM "
                                   "sessions WHERE session_id = 7"),
                     0);
}
END_TEST

/* The inputs a store holds, decoded: spawns are counted, tyre inputs
 * kept with their ticks. */
typedef struct recorded_inputs {
    int spawns;
    int tyres;
    uint64_t tyre_tick[4];
    pdk_tyre_input tyre[4];
    pdk_vehicle_id tyre_vehicle[4];
} recorded_inputs;

static pdk_error collect_input(void *ctx, uint64_t tick, uint32_t seq, int kind,
                               const void *payload, size_t len)
{
    (void)seq;
    recorded_inputs *r = ctx;
    if (kind == PDK_INPUT_SPAWN) {
        r->spawns++;
    } else if (kind == PDK_INPUT_TYRE) {
        ck_assert_int_lt(r->tyres, 4);
        ck_assert_int_eq(
            pdk_wire_tyre_decode(payload, len, &r->tyre[r->tyres], &r->tyre_vehicle[r->tyres]),
            PDK_OK);
        r->tyre_tick[r->tyres++] = tick;
    }
    return PDK_OK;
}

/* A tyre input applies at the tick boundary like a DBW command: a
 * puncture lets the tyre down to flat; refusals name what was wrong; the
 * accepted one is recorded as a TyreCommand of kind PDK_INPUT_TYRE, and
 * fed back at its tick it reproduces the run to the bit. */
START_TEST(tyre_inputs_apply_record_and_replay)
{
    char path[128];
    pdk_store *store = open_store(path);
    char err[PDK_STORE_ERR_LEN];
    pdk_session *s = make(store);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_vehicle_def planar_def = pdk_vehicle_def_default();
    planar_def.model = PDK_MODEL_SINGLE_TRACK;
    pdk_spawn_place place = {.y_m = 10, .gear = PDK_GEAR_PARK};
    ck_assert_int_eq(pdk_session_queue_spawn(s, &planar_def, "traffic_sedan", "", "{}", &place,
                                             (pdk_reply_to){1, 2, 0}),
                     PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(results[n_results - 1].err, PDK_OK);
    pdk_vehicle_id planar = results[n_results - 1].vehicle;

    int first = n_results;
    pdk_tyre_input puncture = {.wheel_mask = 1u, .action = PDK_TYRE_PUNCTURE, .value = 0.5};
    ck_assert_int_eq(queue_tyre(s, v, &puncture, (pdk_reply_to){1, 3, 0}), PDK_OK);
    pdk_tyre_input too_fast = {.wheel_mask = 2u, .action = PDK_TYRE_PUNCTURE, .value = 2.0};
    ck_assert_int_eq(queue_tyre(s, v, &too_fast, (pdk_reply_to){1, 4, 0}), PDK_OK);
    ck_assert_int_eq(queue_tyre(s, v + 9, &puncture, (pdk_reply_to){1, 5, 0}), PDK_OK);
    ck_assert_int_eq(queue_tyre(s, planar, &puncture, (pdk_reply_to){1, 6, 0}), PDK_OK);
    ck_assert_int_eq(n_results, first);
    uint64_t at = pdk_world_tick(pdk_session_world(s));
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, first + 4);
    ck_assert_int_eq(results[first].err, PDK_OK);
    ck_assert_int_eq(results[first].kind, PDK_INPUT_TYRE);
    ck_assert_uint_eq(results[first].tick, at);
    ck_assert_int_eq(results[first + 1].err, PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(messages[first + 1], "tyre command refused: ") != NULL &&
                      strstr(messages[first + 1], "leak rate") != NULL,
                  "%s", messages[first + 1]);
    ck_assert_int_eq(results[first + 2].err, PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(messages[first + 2], "is not in session 7") != NULL, "%s",
                  messages[first + 2]);
    ck_assert_int_eq(results[first + 3].err, PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(messages[first + 3], "tyre command refused: ") != NULL, "%s",
                  messages[first + 3]);

    /* At 0.5/s the tyre is at a quarter of its air after 1.5 s (180
     * ticks): flat. */
    const double *ch = pdk_world_channels(pdk_session_world(s), v);
    double p0 = ch[PDK_CH_PRESSURE_FR];
    for (int i = 0; i < 200; i++)
        pdk_session_tick(s);
    ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert_double_eq(ch[PDK_CH_CONDITION_FL], PDK_TYRE_FLAT);
    ck_assert_double_eq(ch[PDK_CH_CONDITION_FR], PDK_TYRE_INTACT);
    ck_assert_msg(ch[PDK_CH_PRESSURE_FL] < 0.3 * p0, "pressure %g kPa of %g",
                  ch[PDK_CH_PRESSURE_FL], p0);
    uint64_t end_tick = pdk_world_tick(pdk_session_world(s));
    uint64_t hash = pdk_session_hash(s);
    pdk_session_destroy(s);
    /* Closing the store waits for its writer thread to commit everything;
     * read back through a fresh one, as a replay would. */
    pdk_store_close(store);
    store = reopen_store(path);

    recorded_inputs rec = {0};
    ck_assert_msg(pdk_store_read_inputs(store, 7, collect_input, &rec, err, sizeof(err)) == PDK_OK,
                  "%s", err);
    pdk_store_close(store);
    ck_assert_int_eq(rec.spawns, 2);
    ck_assert_int_eq(rec.tyres, 1);
    ck_assert_uint_eq(rec.tyre_tick[0], at);
    ck_assert_uint_eq(rec.tyre_vehicle[0], v);
    ck_assert_int_eq(rec.tyre[0].action, PDK_TYRE_PUNCTURE);
    ck_assert_uint_eq(rec.tyre[0].wheel_mask, 1u);
    ck_assert_double_eq(rec.tyre[0].value, 0.5);

    /* The replay: the same spawns, the recorded tyre input at its tick. */
    pdk_session *r = make(NULL);
    ck_assert_uint_eq(spawn(r, 1, 1), v);
    ck_assert_int_eq(pdk_session_queue_spawn(r, &planar_def, "traffic_sedan", "", "{}", &place,
                                             (pdk_reply_to){0, 0, 0}),
                     PDK_OK);
    pdk_session_tick(r);
    while (pdk_world_tick(pdk_session_world(r)) < end_tick) {
        if (pdk_world_tick(pdk_session_world(r)) == rec.tyre_tick[0])
            ck_assert_int_eq(
                queue_tyre(r, rec.tyre_vehicle[0], &rec.tyre[0], (pdk_reply_to){0, 0, 0}),
                PDK_OK);
        pdk_session_tick(r);
    }
    ck_assert_uint_eq(pdk_session_hash(r), hash);
    pdk_session_destroy(r);
    remove_store(path);
}
END_TEST

/* ---- the DBW kit ------------------------------------------------------- */

static pdk_dbw_msg kit_chan(int kind, double cmd, int cmd_type, uint8_t rc)
{
    pdk_dbw_msg m = {.kind = kind, .crc = -1};
    m.u.chan.cmd = cmd;
    m.u.chan.cmd_type = cmd_type;
    m.u.chan.enable = 1;
    m.u.chan.rc = rc;
    return m;
}

static pdk_dbw_msg kit_fault(int kind, int target, double value)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_FAULT, .crc = -1};
    m.u.fault.kind = kind;
    m.u.fault.target = target;
    m.u.fault.value = value;
    return m;
}

static pdk_dbw_msg kit_enable(void)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_SYSTEM, .crc = -1};
    m.u.system.cmd = PDK_DBW_SYS_ENABLE;
    m.u.system.sync_mode = -1;
    m.u.system.validate_crc = -1;
    m.u.system.comms_loss_arm = -1;
    m.u.system.rc = 1;
    return m;
}

/* The kit inputs of one run, by the tick they applied. */
#define MAX_KIT 128
typedef struct kit_input {
    uint64_t tick;
    pdk_dbw_msg msg;
    pdk_vehicle_id vehicle;
} kit_input;

typedef struct kit_inputs {
    int spawns;
    int n;
    kit_input in[MAX_KIT];
} kit_inputs;

static pdk_error collect_kit(void *ctx, uint64_t tick, uint32_t seq, int kind, const void *payload,
                             size_t len)
{
    (void)seq;
    kit_inputs *r = ctx;
    if (kind == PDK_INPUT_SPAWN)
        r->spawns++;
    if (kind != PDK_INPUT_DBW_KIT)
        return PDK_OK;
    ck_assert_int_lt(r->n, MAX_KIT);
    kit_input *k = &r->in[r->n++];
    k->tick = tick;
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(payload, len, &k->msg, &k->vehicle), PDK_OK);
    return PDK_OK;
}

/* The kit script of the run: enable, steer left in steps, a stuck steering
 * servo at tick 60, the steering report losing half its frames from tick
 * 90 and the system report 0.1 s late from tick 100; each given at the
 * tick it is listed for. The run feeds it live; the replay feeds what the
 * recording gives back. */
static void kit_script(pdk_session *s, pdk_vehicle_id v, uint64_t tick, int *sent)
{
    pdk_reply_to to = {.conn_id = 1, .request_id = 100 + tick};
    if (tick == 2) {
        pdk_dbw_msg m = kit_enable();
        ck_assert_int_eq(queue_dbw_kit(s, v, &m, to), PDK_OK);
    }
    if (tick >= 2 && tick % 6 == 2) {
        /* A new rolling counter every time; the angle sweeps. */
        pdk_dbw_msg m = kit_chan(PDK_DBW_MSG_STEER, 0.1 * (double)tick * (tick < 120 ? 1 : -1),
                                 PDK_STEER_CMD_ANGLE, (uint8_t)((tick / 6) % 16));
        ck_assert_int_eq(queue_dbw_kit(s, v, &m, to), PDK_OK);
        (*sent)++;
    }
    if (tick == 60) {
        pdk_dbw_msg m = kit_fault(PDK_FAULT_STUCK, PDK_DBW_CH_STEER, 0.0);
        ck_assert_int_eq(queue_dbw_kit(s, v, &m, to), PDK_OK);
    }
    if (tick == 90) {
        pdk_dbw_msg m = kit_fault(PDK_FAULT_REPORT_DROP, PDK_RPT_STEER, 0.5);
        ck_assert_int_eq(queue_dbw_kit(s, v, &m, to), PDK_OK);
    }
    if (tick == 100) {
        pdk_dbw_msg m = kit_fault(PDK_FAULT_REPORT_DELAY, PDK_RPT_SYSTEM, 0.1);
        ck_assert_int_eq(queue_dbw_kit(s, v, &m, to), PDK_OK);
    }
}

static int cmp_reports(const got_report *a, int na, const got_report *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++) {
        if (a[i].sent_tick != b[i].sent_tick || a[i].tick != b[i].tick || a[i].kind != b[i].kind ||
            memcmp(&a[i].steer_deg, &b[i].steer_deg, sizeof(float)) != 0 ||
            a[i].sys_state != b[i].sys_state || a[i].reason_disengage != b[i].reason_disengage)
            return 0;
    }
    return 1;
}

/* DBW kit messages apply at the tick boundary like every input: refusals
 * name what was wrong; the accepted ones are recorded as DbwMessage bodies
 * of kind PDK_INPUT_DBW_KIT; fed back at their ticks into a fresh session
 * they reproduce the state hash and every DBW report the subscriber saw,
 * the stuck steering servo's frozen angle, the dropped steering frames and
 * the late system reports included. */
START_TEST(dbw_kit_inputs_apply_record_and_replay)
{
    char path[128];
    pdk_store *store = open_store(path);
    char err[PDK_STORE_ERR_LEN];
    pdk_session *s = make(store);
    report_session = s;
    pdk_vehicle_id v = spawn(s, 1, 1); /* applies at tick 0; the world is at tick 1 */

    /* Refusals, each naming what was wrong; nothing of them is recorded. */
    int first = n_results;
    pdk_dbw_msg ok = kit_chan(PDK_DBW_MSG_THROTTLE, 0.0, PDK_THROTTLE_CMD_PERCENT, 0);
    pdk_dbw_msg bad_rc = kit_chan(PDK_DBW_MSG_BRAKE, 10.0, PDK_BRAKE_CMD_PRESSURE, 16);
    pdk_dbw_msg torque = kit_chan(PDK_DBW_MSG_STEER, 1.0, PDK_STEER_CMD_TORQUE, 1);
    pdk_dbw_msg bad_type = kit_chan(PDK_DBW_MSG_THROTTLE, 1.0, 7, 1);
    ck_assert_int_eq(queue_dbw_kit(s, v + 9, &ok, (pdk_reply_to){1, 2, 0}), PDK_OK);
    ck_assert_int_eq(queue_dbw_kit(s, v, &bad_rc, (pdk_reply_to){1, 3, 0}), PDK_OK);
    ck_assert_int_eq(queue_dbw_kit(s, v, &torque, (pdk_reply_to){1, 4, 0}), PDK_OK);
    ck_assert_int_eq(queue_dbw_kit(s, v, &bad_type, (pdk_reply_to){1, 5, 0}), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, first + 4);
    ck_assert_int_eq(results[first].err, PDK_ERR_STALE_ID);
    ck_assert_int_eq(results[first].kind, PDK_INPUT_DBW_KIT);
    ck_assert_msg(strstr(messages[first], "is not in session 7") != NULL, "%s", messages[first]);
    for (int i = 1; i < 4; i++) {
        ck_assert_int_ne(results[first + i].err, PDK_OK);
        ck_assert_msg(strstr(messages[first + i], "DBW message refused: ") != NULL, "%s",
                      messages[first + i]);
    }
    ck_assert_int_eq(results[first + 1].err, PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(messages[first + 1], "rc") != NULL, "%s", messages[first + 1]);
    ck_assert_int_eq(results[first + 2].err, PDK_ERR_UNSUPPORTED);
    ck_assert_int_eq(results[first + 3].err, PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(messages[first + 3], "cmd_type") != NULL, "%s", messages[first + 3]);
    /* A message with no recorded form is not queued at all. */
    pdk_dbw_msg unknown = {.kind = 99, .crc = -1};
    ck_assert_int_eq(queue_dbw_kit(s, v, &unknown, (pdk_reply_to){1, 6, 0}),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_dbw_msg big_crc = ok;
    big_crc.crc = 300;
    ck_assert_int_eq(queue_dbw_kit(s, v, &big_crc, (pdk_reply_to){1, 7, 0}),
                     PDK_ERR_OUT_OF_RANGE);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 1);

    /* The subscriber of every kind, from tick 2 on. */
    uint64_t sub_tick = pdk_world_tick(pdk_session_world(s));
    ck_assert_uint_eq(sub_tick, 2);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 50, v, (1u << PDK_RPT_COUNT) - 1u), PDK_OK);
    n_reports = 0;
    int sent = 0;
    while (pdk_world_tick(pdk_session_world(s)) < 240) {
        kit_script(s, v, pdk_world_tick(pdk_session_world(s)), &sent);
        pdk_session_tick(s);
    }
    ck_assert_int_eq(results[n_results - 1].err, PDK_OK);
    uint64_t end_tick = pdk_world_tick(pdk_session_world(s));
    uint64_t hash = pdk_session_hash(s);
    int n_live = n_reports;
    static got_report live[MAX_REPORTS];
    memcpy(live, reports, sizeof(reports[0]) * (size_t)n_live);

    /* What the subscriber saw: the steering servo moved, then froze at the
     * stuck fault while its commands went on; half the steering frames were
     * lost after tick 90; the system report came 12 ticks late after tick
     * 100. */
    float before_stuck = 0, at_stuck = 0;
    int steer_90_239 = 0, sys_late = 0, sys_on_time = 0;
    for (int i = 0; i < n_live; i++) {
        const got_report *g = &live[i];
        if (g->kind == PDK_RPT_STEER && g->tick == 55)
            before_stuck = g->steer_deg;
        if (g->kind == PDK_RPT_STEER && g->tick == 62)
            at_stuck = g->steer_deg;
        if (g->kind == PDK_RPT_STEER && g->tick > 62)
            ck_assert_msg(g->steer_deg == at_stuck, "tick %llu: %g deg, stuck at %g",
                          (unsigned long long)g->tick, (double)g->steer_deg, (double)at_stuck);
        if (g->kind == PDK_RPT_STEER && g->sent_tick >= 91)
            steer_90_239++;
        if (g->kind == PDK_RPT_SYSTEM && g->sent_tick > 101) {
            ck_assert_uint_eq(g->tick + 12, g->sent_tick);
            sys_late++;
        } else if (g->kind == PDK_RPT_SYSTEM) {
            ck_assert_uint_eq(g->tick, g->sent_tick);
            sys_on_time++;
            ck_assert_uint_eq(g->sys_state, PDK_DBW_ACTIVE * (g->tick > 2));
        }
        ck_assert_uint_eq(g->sent_tick % pdk_dbw_report_period_ticks[g->kind], 0);
    }
    ck_assert_msg(at_stuck > 0.5f && at_stuck > before_stuck, "steering %g then %g",
                  (double)before_stuck, (double)at_stuck);
    ck_assert_msg(steer_90_239 > 35 && steer_90_239 < 115, "%d of 149 steering frames",
                  steer_90_239);
    ck_assert_int_gt(sys_late, 8);
    ck_assert_int_gt(sys_on_time, 6);

    pdk_session_destroy(s);
    pdk_store_close(store);
    store = reopen_store(path);
    static kit_inputs rec;
    memset(&rec, 0, sizeof(rec));
    ck_assert_msg(pdk_store_read_inputs(store, 7, collect_kit, &rec, err, sizeof(err)) == PDK_OK,
                  "%s", err);
    pdk_store_close(store);
    ck_assert_int_eq(rec.spawns, 1);
    ck_assert_int_eq(rec.n, 1 + sent + 3); /* enable, the steering, three faults */
    ck_assert_uint_eq(rec.in[0].tick, 2);
    ck_assert_int_eq(rec.in[0].msg.kind, PDK_DBW_MSG_SYSTEM);
    ck_assert_int_eq(rec.in[0].msg.u.system.sync_mode, -1);
    int faults = 0;
    for (int i = 0; i < rec.n; i++) {
        ck_assert_uint_eq(rec.in[i].vehicle, v);
        if (rec.in[i].msg.kind == PDK_DBW_MSG_FAULT)
            faults++;
    }
    ck_assert_int_eq(faults, 3);

    /* The replay: the same spawn and subscription, the recorded kit
     * messages at their ticks. */
    pdk_session *r = make(NULL);
    report_session = r;
    ck_assert_uint_eq(spawn(r, 1, 1), v);
    pdk_session_tick(r);
    ck_assert_int_eq(pdk_session_dbw_subscribe(r, 1, 50, v, (1u << PDK_RPT_COUNT) - 1u), PDK_OK);
    n_reports = 0;
    int next = 0;
    while (pdk_world_tick(pdk_session_world(r)) < end_tick) {
        uint64_t t = pdk_world_tick(pdk_session_world(r));
        for (; next < rec.n && rec.in[next].tick == t; next++)
            ck_assert_int_eq(queue_dbw_kit(r, rec.in[next].vehicle, &rec.in[next].msg,
                                                       (pdk_reply_to){0, 0, 0}),
                             PDK_OK);
        pdk_session_tick(r);
    }
    ck_assert_int_eq(next, rec.n);
    ck_assert_uint_eq(pdk_session_hash(r), hash);
    ck_assert_msg(cmp_reports(live, n_live, reports, n_reports), "%d reports live, %d replayed",
                  n_live, n_reports);

    /* Removing the vehicle ends the subscription, saying why. */
    n_ended = 0;
    ck_assert_int_eq(queue_remove(r, v, (pdk_reply_to){0, 0, 0}), PDK_OK);
    pdk_session_tick(r);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(ended_why, "subscription 50 ended: vehicle") != NULL &&
                      strstr(ended_why, "was removed") != NULL,
                  "%s", ended_why);
    ck_assert_int_eq(pdk_session_subscriber_count(r), 0);
    report_session = NULL;
    pdk_session_destroy(r);
    remove_store(path);
}
END_TEST

/* Reset and reseed are inputs: applied at the tick boundary, answered with
 * their kinds, recorded as SessionControl bodies; a reset removes every
 * vehicle (recorded as removals), ends their leases and DBW report
 * subscriptions saying why, and the next spawn gets the slot's next
 * generation. */
START_TEST(reset_and_reseed_are_inputs)
{
    char path[128];
    pdk_store *store = open_store(path);
    pdk_session *s = make(store);
    report_session = s;
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_vehicle_id w = spawn(s, 1, 2);
    char why[256];
    ck_assert_int_eq(pdk_session_lease_take(s, v, PDK_SOURCE_AUTONOMY, 3, "c3", why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 4, 9, w, 1u << PDK_RPT_STEER), PDK_OK);
    int first = n_results;
    ck_assert_int_eq(queue_reseed(s, 99, (pdk_reply_to){1, 3, 0}), PDK_OK);
    ck_assert_uint_eq(pdk_world_def_get(pdk_session_world(s))->seed, 1);
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, first + 1);
    ck_assert_int_eq(results[first].kind, PDK_INPUT_RESEED);
    ck_assert_int_eq(results[first].err, PDK_OK);
    ck_assert_uint_eq(pdk_world_def_get(pdk_session_world(s))->seed, 99);

    n_events = 0;
    n_ended = 0;
    uint64_t reset_tick = pdk_world_tick(pdk_session_world(s));
    ck_assert_int_eq(queue_reset(s, (pdk_reply_to){1, 4, 0}), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(results[first + 1].kind, PDK_INPUT_RESET);
    ck_assert_int_eq(results[first + 1].err, PDK_OK);
    ck_assert_uint_eq(results[first + 1].tick, reset_tick);
    ck_assert_int_eq(pdk_world_vehicle_count(pdk_session_world(s)), 0);
    ck_assert_int_eq(n_events, 1);
    ck_assert_uint_eq(event_conn[0], 3);
    ck_assert_msg(strstr(events[0].reason, "session 7 was reset"), "%s", events[0].reason);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(ended_why, "subscription 9 ended: session 7 was reset"), "%s", ended_why);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);
    /* The reseeded seed stays; the next spawn takes slot 0's next generation. */
    ck_assert_uint_eq(pdk_world_def_get(pdk_session_world(s))->seed, 99);
    ck_assert_uint_eq(spawn(s, 1, 5), (1u << 16) | 1u);
    report_session = NULL;
    pdk_session_destroy(s);
    pdk_store_close(store);

    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM inputs WHERE kind = 6"), 1);
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM inputs WHERE kind = 7"), 1);
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM vehicles WHERE removed_tick = %llu AND vehicle_id IN (%u, %u)",
             (unsigned long long)reset_tick, v, w);
    ck_assert_int_eq(sql_int(path, sql), 2);
    /* The bodies: SessionControl, session 7, reseed 99 and reset. */
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT kind, payload FROM inputs WHERE kind IN (6, 7) "
                                        "ORDER BY tick",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        Paddock__V1__SessionControl *m = paddock__v1__session_control__unpack(
            NULL, (size_t)sqlite3_column_bytes(st, 1), sqlite3_column_blob(st, 1));
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_eq(m->session_id, 7);
        if (i == 0) {
            ck_assert_int_eq(sqlite3_column_int(st, 0), PDK_INPUT_RESEED);
            ck_assert_int_eq(m->action_case, PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED);
            ck_assert_uint_eq(m->reseed, 99);
        } else {
            ck_assert_int_eq(sqlite3_column_int(st, 0), PDK_INPUT_RESET);
            ck_assert_int_eq(m->action_case, PADDOCK__V1__SESSION_CONTROL__ACTION_RESET);
        }
        paddock__v1__session_control__free_unpacked(m, NULL);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_store(path);
}
END_TEST

static pdk_vehicle_def restore_def;

static const pdk_vehicle_def *def_for_any(void *ctx, pdk_vehicle_id id)
{
    (void)id;
    return ctx ? &restore_def : NULL;
}

/* The last state batch subscription sub got, decoded. */
static Paddock__V1__Frame *state_frame_of(uint32_t sub)
{
    ck_assert_uint_gt(state_lens[sub], 0);
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(state_frames[sub], state_lens[sub], &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_STATE_BATCH);
    ck_assert_uint_eq(f->state_batch->subscription_id, sub);
    return f;
}

/* A vehicle at (x_m, 0), spawned at the next tick. */
static pdk_vehicle_id spawn_at_x(pdk_session *s, double x_m)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_spawn_place place = {.x_m = x_m, .gear = PDK_GEAR_PARK};
    ck_assert_int_eq(pdk_session_queue_spawn(s, &def, "midsize_sedan", "", "{\"x\":1}", &place,
                                             (pdk_reply_to){1, 1, 0}),
                     PDK_OK);
    int before = n_results;
    pdk_session_tick(s);
    ck_assert_int_eq(results[before].err, PDK_OK);
    return results[before].vehicle;
}

/* The vehicle ids of sub's last batch. */
static size_t batch_ids(uint32_t sub, pdk_vehicle_id *ids)
{
    Paddock__V1__Frame *f = state_frame_of(sub);
    size_t n = f->state_batch->n_vehicles;
    for (size_t i = 0; i < n; i++)
        ids[i] = f->state_batch->vehicles[i]->vehicle_id;
    pdk_wire_frame_free(f);
    return n;
}

/* An area of interest: the vehicles within its radius of a point, or of
 * its centre vehicle as it is at each tick; the subscription ends, saying
 * why, once the centre vehicle is gone; a bad area is refused. */
START_TEST(subscriptions_keep_to_their_area_of_interest)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id a = spawn_at_x(s, 0.0);
    pdk_vehicle_id b = spawn_at_x(s, 50.0);
    pdk_vehicle_id c = spawn_at_x(s, 200.0);
    pdk_session_aoi near_origin = {.radius_m = 60.0};
    pdk_session_aoi around_c = {.radius_m = 10.0, .vehicle = c};
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 120, 0, NULL, 0, 0, &near_origin), PDK_OK);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 2, 120, 0, NULL, 0, 0, &around_c), PDK_OK);
    uint32_t listed[2] = {b, c};
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 3, 120, 0, listed, 2, 0, &near_origin), PDK_OK);
    pdk_session_tick(s);
    pdk_vehicle_id got[4];
    ck_assert_uint_eq(batch_ids(1, got), 2);
    ck_assert_uint_eq(got[0], a);
    ck_assert_uint_eq(got[1], b);
    ck_assert_uint_eq(batch_ids(2, got), 1);
    ck_assert_uint_eq(got[0], c);
    ck_assert_uint_eq(batch_ids(3, got), 1); /* the list and the area both */
    ck_assert_uint_eq(got[0], b);

    n_ended = 0;
    ck_assert_int_eq(queue_remove(s, c, (pdk_reply_to){0, 0, 0}), PDK_OK);
    pdk_session_tick(s);
    pdk_session_tick(s);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(ended_why, "subscription 2 ended: vehicle") &&
                      strstr(ended_why, "centre of its area of interest"),
                  "%s", ended_why);

    pdk_session_aoi bad = {.radius_m = NAN};
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 4, 120, 0, NULL, 0, 0, &bad),
                     PDK_ERR_INVALID_ARGUMENT);
    bad = (pdk_session_aoi){.radius_m = 5.0, .x_m = INFINITY};
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 4, 120, 0, NULL, 0, 0, &bad),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 4, 120, 0, NULL, 0, 0, &around_c),
                     PDK_ERR_STALE_ID);
    pdk_session_destroy(s);
}
END_TEST

/* A subscription with max_batch gets a tick as parts of at most that
 * many vehicles, each its own frame and its own on_state part, in order. */
START_TEST(subscriptions_split_ticks_into_parts)
{
    pdk_session *s = make(NULL);
    for (int i = 0; i < 5; i++)
        spawn(s, 1, (uint64_t)i + 1);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 120, 0, NULL, 0, 2, NULL), PDK_OK);
    int before = n_states;
    pdk_session_tick(s);
    ck_assert_int_eq(n_states, before + 3);
    for (int k = 0; k < 3; k++)
        ck_assert_uint_eq(state_parts[(before + k) % 8], (uint32_t)k);
    Paddock__V1__Frame *f = state_frame_of(1); /* the last part */
    ck_assert_uint_eq(f->state_batch->part, 2);
    ck_assert_uint_eq(f->state_batch->parts, 3);
    ck_assert_uint_eq(f->state_batch->n_vehicles, 1);
    pdk_wire_frame_free(f);
    pdk_session_destroy(s);
}
END_TEST

/* Each subscription gets the parts its fields ask for, and every batch the
 * wall clock of the tick's step; two subscriptions with the same fields
 * and vehicles get the same body; an input's effect first shows in the
 * batch after its tick. */
START_TEST(subscriptions_get_their_fields)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    uint32_t ids[1] = {v};
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 120, 0, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 2, 120, 7, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(pdk_session_subscribe(s, 2, 3, 120, 7, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(pdk_session_subscribe(s, 2, 4, 120, 2, ids, 1, 0, NULL), PDK_OK);
    memset(state_lens, 0, sizeof state_lens);
    for (int i = 0; i < 3; i++)
        pdk_session_tick(s);
    uint64_t wall = pdk_session_tick_wall_ns(s);
    ck_assert_uint_gt(wall, 0);
    Paddock__V1__Frame *f[5] = {NULL};
    for (uint32_t k = 1; k <= 4; k++) {
        f[k] = state_frame_of(k);
        ck_assert_uint_eq(f[k]->state_batch->wall_time_ns, wall);
        ck_assert_uint_eq(f[k]->state_batch->n_vehicles, 1);
    }
    const Paddock__V1__VehicleState *pose = f[1]->state_batch->vehicles[0];
    ck_assert_uint_eq(pose->n_wheels, 0);
    ck_assert_ptr_null(pose->instruments);
    ck_assert_double_eq(pose->steering_wheel_torque_nm, 0.0);
    const Paddock__V1__VehicleState *all = f[2]->state_batch->vehicles[0];
    ck_assert_uint_eq(all->n_wheels, 4);
    ck_assert_ptr_nonnull(all->instruments);
    const double *ch = pdk_world_channels(pdk_session_world(s), v);
    ck_assert(all->steering_wheel_torque_nm == ch[PDK_CH_STEERING_WHEEL_TORQUE]);
    const Paddock__V1__VehicleState *instruments = f[4]->state_batch->vehicles[0];
    ck_assert_uint_eq(instruments->n_wheels, 0);
    ck_assert_ptr_nonnull(instruments->instruments);
    /* 2 and 3 differ only in the subscription id, which leads the body. */
    ck_assert_uint_eq(state_lens[2], state_lens[3]);
    ck_assert_mem_eq(state_frames[2] + state_lens[2] - 200, state_frames[3] + state_lens[3] - 200,
                     200);
    for (int k = 1; k <= 4; k++)
        pdk_wire_frame_free(f[k]);

    /* The tick timeline (docs/protocol.md "State"): a steer answered
     * Ok{tick: T} is applied before the step of tick T; the batch of tick
     * T still shows the old angle, that of T + 1 the new one. */
    Paddock__V1__Frame *before = state_frame_of(4);
    uint64_t t = before->state_batch->tick;
    ck_assert_double_eq(before->state_batch->vehicles[0]->instruments->steer_wheel_deg, 0.0);
    pdk_wire_frame_free(before);
    pdk_dbw_cmd steer = {.fields = PDK_DBW_STEER, .steer_wheel_deg = 30.0};
    queue_dbw(s, v, &steer, (pdk_reply_to){1, 9, 0});
    int asked = n_results;
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, asked + 1);
    ck_assert_int_eq(results[asked].err, PDK_OK);
    ck_assert_uint_eq(results[asked].tick, t);
    Paddock__V1__Frame *after = state_frame_of(4);
    ck_assert_uint_eq(after->state_batch->tick, t + 1);
    ck_assert_double_eq(after->state_batch->vehicles[0]->instruments->steer_wheel_deg, 30.0);
    pdk_wire_frame_free(after);
    pdk_session_destroy(s);
}
END_TEST

/* Steps both sessions one tick, driving their one car alike, and says
 * whether the as-read session's channels were written: they are then
 * those of the session that writes them every tick, and otherwise those
 * it held before. Either way both hold the same state. */
static bool step_pair(pdk_session *every, pdk_session *read, pdk_vehicle_id v)
{
    uint64_t tick = pdk_world_tick(pdk_session_world(every));
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                       .throttle_pct = 40.0,
                       .steer_wheel_deg = (double)(tick % 90) - 45.0};
    ck_assert_int_eq(queue_dbw(every, v, &cmd, (pdk_reply_to){0}), PDK_OK);
    ck_assert_int_eq(queue_dbw(read, v, &cmd, (pdk_reply_to){0}), PDK_OK);
    double held[PDK_CH_COUNT];
    memcpy(held, pdk_world_channels(pdk_session_world(read), v), sizeof held);
    pdk_session_tick(every);
    pdk_session_tick(read);
    ck_assert_uint_eq(pdk_session_hash(every), pdk_session_hash(read));
    const double *ch_every = pdk_world_channels(pdk_session_world(every), v);
    const double *ch_read = pdk_world_channels(pdk_session_world(read), v);
    if (memcmp(ch_read, ch_every, sizeof held) == 0) {
        ck_assert(memcmp(ch_read, held, sizeof held) != 0); /* they moved this tick */
        return true;
    }
    ck_assert_mem_eq(ch_read, held, sizeof held);
    return false;
}

/* Steps the pair n ticks and counts the ticks whose channels were written. */
static int step_pairs(pdk_session *every, pdk_session *read, pdk_vehicle_id v, int n)
{
    int written = 0;
    for (int i = 0; i < n; i++)
        written += step_pair(every, read, v);
    return written;
}

/* A session whose channels are written as read (what the server's are)
 * writes them on exactly the ticks its own streams read them: a due
 * telemetry batch, a due state batch with fields (not one of poses only),
 * every tick of a DBW report ring; none while publishing is off; the
 * state stays that of a session that writes them every tick. */
START_TEST(channels_are_written_on_the_ticks_read)
{
    pdk_session *every = make(NULL);
    pdk_session *read = make(NULL);
    pdk_session_set_channels(read, PDK_CHANNELS_AS_READ);
    pdk_vehicle_id v = spawn(every, 1, 1);
    ck_assert_uint_eq(spawn(read, 1, 1), v);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 0);

    const int chans[2] = {PDK_CH_SPEED, PDK_CH_POS_X};
    ck_assert_int_eq(pdk_session_telemetry_subscribe(read, 1, 1, 40, NULL, 0, chans, 2), PDK_OK);
    n_states = 0;
    ck_assert_int_eq(step_pairs(every, read, v, 30), 10);
    ck_assert_int_eq(n_states, 10);
    ck_assert_int_eq(pdk_session_unsubscribe(read, 1, 1), PDK_OK);

    ck_assert_int_eq(pdk_session_subscribe(read, 1, 2, 120, 0, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 0);
    uint32_t instruments = PADDOCK__V1__STATE_FIELD__STATE_FIELD_INSTRUMENTS;
    ck_assert_int_eq(pdk_session_subscribe(read, 1, 3, 60, instruments, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 15);
    pdk_session_set_publishing(read, false);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 0);
    pdk_session_set_publishing(read, true);
    pdk_session_forget_conn(read, 1);

    ck_assert_int_eq(pdk_session_dbw_subscribe(read, 2, 4, v, 1u << PDK_RPT_SECONDARY), PDK_OK);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 30);
    ck_assert_int_eq(pdk_session_unsubscribe(read, 2, 4), PDK_OK);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 0);

    /* Every tick again: the channels follow from the next step on. */
    pdk_session_set_channels(read, PDK_CHANNELS_EVERY_TICK);
    ck_assert_int_eq(step_pairs(every, read, v, 30), 30);
    pdk_session_destroy(every);
    pdk_session_destroy(read);
}
END_TEST

/* A recorded session whose channels are written as read records the
 * same keyframes, byte for byte, as one that writes them every tick, for
 * a four-wheel car and for a single-track one coasting beside it: a
 * keyframe holds no channels (ADR 0040), so the step to it need not write
 * them, and does not. */
START_TEST(channels_as_read_record_the_same_keyframes)
{
    char dir[] = "/tmp/pdk-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char err[PDK_STORE_ERR_LEN];
    void *blob[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    uint64_t hash[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        char path[128];
        snprintf(path, sizeof(path), "%s/%d.db", dir, k);
        pdk_store *store = NULL;
        ck_assert_int_eq(
            pdk_store_open(path, PDK_SOURCE_DIR "/migrations", &store, err, sizeof(err)), PDK_OK);
        pdk_session *s = make(store);
        if (k == 1)
            pdk_session_set_channels(s, PDK_CHANNELS_AS_READ);
        pdk_vehicle_id v = spawn(s, 1, 1);
        pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                           .throttle_pct = 50.0,
                           .steer_wheel_deg = 60.0};
        queue_dbw(s, v, &cmd, (pdk_reply_to){0});
        pdk_vehicle_def planar_def = pdk_vehicle_def_default();
        planar_def.model = PDK_MODEL_SINGLE_TRACK;
        pdk_spawn_place place = {.y_m = 20.0, .speed_mps = 12.0, .gear = PDK_GEAR_DRIVE};
        ck_assert_int_eq(pdk_session_queue_spawn(s, &planar_def, "traffic_sedan", "", "{}", &place,
                                                 (pdk_reply_to){0}),
                         PDK_OK);
        while (pdk_world_tick(pdk_session_world(s)) < 2 * PDK_SESSION_KEYFRAME_EVERY - 1)
            pdk_session_tick(s);
        double before[PDK_CH_COUNT];
        memcpy(before, pdk_world_channels(pdk_session_world(s), v), sizeof before);
        pdk_session_tick(s); /* to the keyframe */
        const bool written =
            memcmp(before, pdk_world_channels(pdk_session_world(s), v), sizeof before) != 0;
        ck_assert_msg(written == (k == 0), "session %d: the keyframe's tick %s its channels", k,
                      written ? "wrote" : "did not write");
        while (pdk_world_tick(pdk_session_world(s)) < 2 * PDK_SESSION_KEYFRAME_EVERY + 5)
            pdk_session_tick(s);
        hash[k] = pdk_session_hash(s);
        ck_assert_int_eq(pdk_world_vehicle_count(pdk_session_world(s)), 2);
        pdk_session_destroy(s);
        ck_assert_int_eq(pdk_store_flush(store), PDK_OK);
        ck_assert_int_eq(pdk_store_read_snapshot(store, 7, 2 * PDK_SESSION_KEYFRAME_EVERY, &blob[k],
                                                 &len[k], err, sizeof(err)),
                         PDK_OK);
        pdk_store_close(store);
        unlink(path);
    }
    rmdir(dir);
    ck_assert_uint_eq(hash[0], hash[1]);
    ck_assert_uint_gt(len[0], 0);
    ck_assert_uint_eq(len[0], len[1]);
    ck_assert_mem_eq(blob[0], blob[1], len[0]);
    free(blob[0]);
    free(blob[1]);
}
END_TEST

/* A vehicle reset counts in that vehicle's teleport_count, which its
 * VehicleState carries from then on (a proxy view jumps on it); a refused
 * reset does not count; a move of every vehicle (a seek) counts for all. */
START_TEST(vehicle_resets_count_teleports)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_vehicle_id w = spawn(s, 1, 2);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 120, 0, NULL, 0, 0, NULL), PDK_OK);
    pdk_input right = {.kind = PDK_INPUT_VEHICLE_RESET,
                       .vehicle = v,
                       .u.reset = {.at_pose = 1, .x_m = 50.0, .y_m = 0.0, .yaw_deg = 90.0}};
    int asked = n_results;
    ck_assert_int_eq(pdk_session_queue_input(s, &right, (pdk_reply_to){1, 3, 0}), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, asked + 1);
    ck_assert_int_eq(results[asked].err, PDK_OK);
    ck_assert_uint_eq(pdk_session_teleport_count(s, v), 1);
    ck_assert_uint_eq(pdk_session_teleport_count(s, w), 0);
    Paddock__V1__Frame *f = state_frame_of(1);
    ck_assert_uint_eq(f->state_batch->n_vehicles, 2);
    for (size_t i = 0; i < 2; i++) {
        const Paddock__V1__VehicleState *vs = f->state_batch->vehicles[i];
        if (vs->vehicle_id == v) {
            ck_assert_uint_eq(vs->teleport_count, 1);
            ck_assert_double_eq_tol(vs->x_m, 50.0, 0.5);
        } else {
            ck_assert_uint_eq(vs->vehicle_id, w);
            ck_assert_uint_eq(vs->teleport_count, 0);
        }
    }
    pdk_wire_frame_free(f);

    /* A reset of a vehicle the session does not have is refused, and
     * counts nowhere. */
    pdk_input stale = {.kind = PDK_INPUT_VEHICLE_RESET, .vehicle = 999};
    asked = n_results;
    if (pdk_session_queue_input(s, &stale, (pdk_reply_to){1, 4, 0}) == PDK_OK) {
        pdk_session_tick(s);
        ck_assert_int_eq(n_results, asked + 1);
        ck_assert_int_ne(results[asked].err, PDK_OK);
    }
    ck_assert_uint_eq(pdk_session_teleport_count(s, 999), 0);
    ck_assert_uint_eq(pdk_session_teleport_count(s, v), 1);

    pdk_session_count_teleport_all(s);
    ck_assert_uint_eq(pdk_session_teleport_count(s, v), 2);
    ck_assert_uint_eq(pdk_session_teleport_count(s, w), 1);
    pdk_session_destroy(s);
}
END_TEST

/* A restore lays a snapshot's world under the session through a staging
 * world: on any error nothing changed; on success the hash is the
 * snapshot's and subscriptions go on. Publishing off sends nothing. */
START_TEST(restore_swaps_only_when_it_all_succeeds)
{
    restore_def = pdk_vehicle_def_default();
    pdk_session *s = make(NULL);
    report_session = s;
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 40};
    queue_dbw(s, v, &cmd, (pdk_reply_to){0, 0, 0});
    for (int i = 0; i < 48; i++)
        pdk_session_tick(s);
    ck_assert_uint_eq(pdk_world_tick(pdk_session_world(s)), 49);
    pdk_buf snap = {0};
    ck_assert_int_eq(pdk_wire_snapshot_encode(pdk_session_world(s), "test", &snap), PDK_OK);
    uint64_t at49 = pdk_session_hash(s);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 120, 0, NULL, 0, 0, NULL), PDK_OK);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 2, v, 1u << PDK_RPT_STEER), PDK_OK);
    for (int i = 0; i < 51; i++)
        pdk_session_tick(s);
    uint64_t at100 = pdk_session_hash(s);

    char err[PDK_SESSION_ERR_LEN];
    /* Bytes that are not a snapshot, then a vehicle nobody defines. */
    const uint8_t junk[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    ck_assert_int_ne(
        pdk_session_restore(s, junk, sizeof(junk), def_for_any, &restore_def, err, sizeof(err)),
        PDK_OK);
    ck_assert_msg(strstr(err, "session 7: the snapshot does not restore"), "%s", err);
    ck_assert_int_eq(
        pdk_session_restore(s, snap.data, snap.len, def_for_any, NULL, err, sizeof(err)),
        PDK_ERR_NOT_FOUND);
    ck_assert_uint_eq(pdk_world_tick(pdk_session_world(s)), 100);
    ck_assert_uint_eq(pdk_session_hash(s), at100);

    /* The good one: tick 49 again, the same ticks after it. */
    ck_assert_msg(pdk_session_restore(s, snap.data, snap.len, def_for_any, &restore_def, err,
                                      sizeof(err)) == PDK_OK,
                  "%s", err);
    ck_assert_uint_eq(pdk_world_tick(pdk_session_world(s)), 49);
    ck_assert_uint_eq(pdk_session_hash(s), at49);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 2);
    n_states = 0;
    n_reports = 0;
    pdk_session_set_publishing(s, false);
    ck_assert(!pdk_session_publishing(s));
    for (int i = 0; i < 11; i++)
        pdk_session_tick(s);
    ck_assert_int_eq(n_states, 0);
    ck_assert_int_eq(n_reports, 0);
    pdk_session_set_publishing(s, true);
    for (int i = 0; i < 40; i++)
        pdk_session_tick(s);
    ck_assert_int_eq(n_states, 40);
    ck_assert_int_gt(n_reports, 0);
    ck_assert_uint_eq(pdk_session_hash(s), at100);

    /* No snapshot: a fresh world; the vehicle's subscription ends. */
    n_ended = 0;
    ck_assert_int_eq(pdk_session_restore(s, NULL, 0, NULL, NULL, err, sizeof(err)), PDK_OK);
    ck_assert_uint_eq(pdk_world_tick(pdk_session_world(s)), 0);
    ck_assert_int_eq(pdk_world_vehicle_count(pdk_session_world(s)), 0);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(ended_why, "restored world"), "%s", ended_why);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 1);
    report_session = NULL;
    pdk_session_destroy(s);

    /* A recorded session refuses: its recording would not replay. */
    char dir[] = "/tmp/pdk-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/t.db", dir);
    pdk_store *store = NULL;
    store = reopen_store(path);
    s = make(store);
    ck_assert_int_eq(
        pdk_session_restore(s, snap.data, snap.len, def_for_any, &restore_def, err, sizeof(err)),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "session 7 is recorded"), "%s", err);
    pdk_session_destroy(s);
    pdk_store_close(store);
    pdk_buf_free(&snap);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A DBW subscription's arguments, its kinds' rates, and its end. */
START_TEST(dbw_subscriptions_are_checked_and_end)
{
    pdk_session *s = make(NULL);
    report_session = s;
    pdk_vehicle_id v = spawn(s, 1, 1);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 1, v, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 1, v, 1u << PDK_RPT_COUNT),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 1, v + 9, 1u), PDK_ERR_STALE_ID);
    for (uint32_t i = 0; i < PDK_SESSION_MAX_DBW_SUBS; i++)
        ck_assert_int_eq(pdk_session_dbw_subscribe(s, 2, 100 + i, v, 1u << PDK_RPT_GEAR), PDK_OK);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 1, v, 1u), PDK_ERR_CAPACITY);
    pdk_session_forget_conn(s, 2);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);

    /* Two kinds, each at its own period, shared ring, both subscribers. */
    uint32_t kinds = (1u << PDK_RPT_BRAKE) | (1u << PDK_RPT_SECONDARY);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 1, 1, v, kinds), PDK_OK);
    ck_assert_int_eq(pdk_session_dbw_subscribe(s, 3, 1, v, 1u << PDK_RPT_SECONDARY), PDK_OK);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 2);
    n_reports = 0;
    while (pdk_world_tick(pdk_session_world(s)) < 120)
        pdk_session_tick(s);
    int brake = 0, secondary = 0;
    for (int i = 0; i < n_reports; i++) {
        brake += reports[i].kind == PDK_RPT_BRAKE;
        secondary += reports[i].kind == PDK_RPT_SECONDARY;
        ck_assert_uint_eq(reports[i].tick, reports[i].sent_tick);
        ck_assert_uint_eq(reports[i].tick % pdk_dbw_report_period_ticks[reports[i].kind], 0);
    }
    /* Ticks 2..120: brake every 2 ticks, secondary every 24 to both. */
    ck_assert_int_eq(brake, 60);
    ck_assert_int_eq(secondary, 2 * 5);
    ck_assert_int_eq(pdk_session_unsubscribe(s, 3, 1), PDK_OK);
    ck_assert_int_eq(pdk_session_unsubscribe(s, 3, 1), PDK_ERR_NOT_FOUND);
    /* Closing the session ends the rest, with CLOSED. */
    n_ended = 0;
    report_session = NULL;
    pdk_session_destroy(s);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_CLOSED);
    ck_assert_ptr_nonnull(strstr(ended_why, "was closed"));
}
END_TEST

/* Leases are found by their vehicle's slot, however many there are: 200
 * vehicles each leased by one connection, ten with a second holder; a
 * removed vehicle's slot, spawned into again, starts with no lease; a
 * disconnect releases every lease of its connection and the other holders
 * hear of it; a restore drops the leases of vehicles it does not hold. */
START_TEST(control_leases_of_many_vehicles)
{
    pdk_session *s = make(NULL);
    enum { N = 200 };
    static pdk_vehicle_id v[N];
    char why[256];
    for (int i = 0; i < N; i++) {
        n_results = 0; /* the helpers keep 64 results */
        v[i] = spawn(s, 1, (uint64_t)i + 1);
        ck_assert_int_eq(
            pdk_session_lease_command(s, v[i], PDK_SOURCE_DRIVER, 1, "c1", why, sizeof why),
            PDK_OK);
    }
    for (int i = 0; i < N; i += 20)
        ck_assert_int_eq(pdk_session_lease_take(s, v[i], PDK_SOURCE_AI, 2, "c2", why, sizeof why),
                         PDK_OK);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(pdk_session_active_source(s, v[i]), PDK_SOURCE_DRIVER);
        ck_assert_uint_eq(pdk_session_lease_holder(s, v[i], PDK_SOURCE_DRIVER), 1);
        ck_assert_uint_eq(pdk_session_lease_holder(s, v[i], PDK_SOURCE_AI), i % 20 == 0 ? 2 : 0);
        ck_assert_uint_eq(pdk_session_lease_holder(s, v[i], PDK_SOURCE_AUTONOMY), 0);
    }

    /* Vehicle 20 goes, both its holders told; its slot's next vehicle is free. */
    n_events = 0;
    ck_assert_int_eq(queue_remove(s, v[20], (pdk_reply_to){0, 0, 0}), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(n_events, 2);
    n_results = 0;
    pdk_vehicle_id again = spawn(s, 1, 999);
    ck_assert_uint_eq(again & 0xFFFFu, v[20] & 0xFFFFu); /* the same slot */
    ck_assert_uint_ne(again, v[20]);
    ck_assert_int_eq(pdk_session_active_source(s, again), PDK_SOURCE_NONE);
    ck_assert_uint_eq(pdk_session_lease_holder(s, v[20], PDK_SOURCE_DRIVER), 0);
    ck_assert_int_eq(
        pdk_session_lease_take(s, again, PDK_SOURCE_AUTONOMY, 3, "c3", why, sizeof why), PDK_OK);
    ck_assert_uint_eq(pdk_session_lease_holder(s, v[20], PDK_SOURCE_AUTONOMY), 0);

    /* Connection 1 leaves: the nine vehicles connection 2 holds too go to AI. */
    n_events = 0;
    pdk_session_forget_conn(s, 1);
    ck_assert_int_eq(n_events, 9);
    for (int e = 0; e < n_events; e++) {
        ck_assert_uint_eq(event_conn[e], 2);
        ck_assert_int_eq(events[e].active, PDK_SOURCE_AI);
        ck_assert_msg(strstr(events[e].reason, "c1 disconnected, releasing the DRIVER lease"), "%s",
                      events[e].reason);
    }
    for (int i = 0; i < N; i++) {
        if (i == 20)
            continue;
        ck_assert_int_eq(pdk_session_active_source(s, v[i]),
                         i % 20 == 0 ? PDK_SOURCE_AI : PDK_SOURCE_NONE);
        ck_assert_uint_eq(pdk_session_lease_holder(s, v[i], PDK_SOURCE_DRIVER), 0);
    }
    ck_assert_int_eq(pdk_session_active_source(s, again), PDK_SOURCE_AUTONOMY);

    /* A fresh world: every lease left ends, each holder told why. */
    n_events = 0;
    char err[PDK_SESSION_ERR_LEN];
    ck_assert_int_eq(pdk_session_restore(s, NULL, 0, NULL, NULL, err, sizeof(err)), PDK_OK);
    ck_assert_int_eq(n_events, 10);
    for (int e = 0; e < n_events; e++)
        ck_assert_msg(strstr(events[e].reason, "is not in session 7's restored world"), "%s",
                      events[e].reason);
    ck_assert_int_eq(pdk_session_active_source(s, v[0]), PDK_SOURCE_NONE);
    ck_assert_int_eq(pdk_session_active_source(s, again), PDK_SOURCE_NONE);
    pdk_vehicle_id first = spawn(s, 4, 1000);
    ck_assert_int_eq(pdk_session_active_source(s, first), PDK_SOURCE_NONE);
    ck_assert_int_eq(pdk_session_lease_take(s, first, PDK_SOURCE_DRIVER, 4, "c4", why, sizeof why),
                     PDK_OK);
    ck_assert_uint_eq(pdk_session_lease_holder(s, first, PDK_SOURCE_DRIVER), 4);
    pdk_session_destroy(s);
}
END_TEST

/* Control leases: one holder per source; a higher source pre-empts and the
 * lower holders hear it; the gate refuses a pre-empted source's commands
 * and takes a free lease implicitly; a disconnect releases; a script holds
 * its vehicle's AI lease and stops while a connection holds a higher one;
 * a removed vehicle's holders hear so. */
START_TEST(control_leases)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    char why[256];
    ck_assert_int_eq(pdk_session_active_source(s, v), PDK_SOURCE_NONE);
    ck_assert_int_eq(pdk_session_lease_take(s, v, (pdk_control_source)0, 1, "c1", why, sizeof why),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "source 0 is not a control source") != NULL, "%s", why);
    ck_assert_int_eq(pdk_session_lease_take(s, v + 9, PDK_SOURCE_AI, 1, "c1", why, sizeof why),
                     PDK_ERR_STALE_ID);
    ck_assert_msg(strstr(why, "is not in session 7") != NULL, "%s", why);

    /* Connection 1 drives as AUTONOMY; connection 2 may not take it. */
    ck_assert_int_eq(pdk_session_lease_take(s, v, PDK_SOURCE_AUTONOMY, 1, "connection 1 (stack)",
                                            why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(pdk_session_lease_take(s, v, PDK_SOURCE_AUTONOMY, 1, "again", why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(
        pdk_session_lease_take(s, v, PDK_SOURCE_AUTONOMY, 2, "connection 2", why, sizeof why),
        PDK_ERR_BUSY);
    ck_assert_msg(strstr(why, "AUTONOMY lease") && strstr(why, "connection 1 (stack)"), "%s", why);
    ck_assert_uint_eq(pdk_session_lease_holder(s, v, PDK_SOURCE_AUTONOMY), 1);
    ck_assert_int_eq(pdk_session_active_source(s, v), PDK_SOURCE_AUTONOMY);
    ck_assert_int_eq(n_events, 0);

    /* Connection 3 takes AI: lower, so nothing changes and nobody hears. */
    ck_assert_int_eq(
        pdk_session_lease_command(s, v, PDK_SOURCE_AI, 3, "connection 3", why, sizeof why),
        PDK_ERR_BUSY);
    ck_assert_msg(strstr(why, "driven by its AUTONOMY lease, held by connection 1 (stack)") &&
                      strstr(why, "AI commands are refused"),
                  "%s", why);
    ck_assert_uint_eq(pdk_session_lease_holder(s, v, PDK_SOURCE_AI), 0); /* not taken */
    ck_assert_int_eq(
        pdk_session_lease_take(s, v, PDK_SOURCE_AI, 3, "connection 3", why, sizeof why), PDK_OK);
    ck_assert_int_eq(n_events, 0);

    /* Connection 2 drives: DRIVER pre-empts, both lower holders hear. */
    ck_assert_int_eq(pdk_session_lease_command(s, v, PDK_SOURCE_DRIVER, 2, "connection 2 (wheel)",
                                               why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(pdk_session_active_source(s, v), PDK_SOURCE_DRIVER);
    ck_assert_int_eq(n_events, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(events[i].active, PDK_SOURCE_DRIVER);
        ck_assert_uint_eq(events[i].session_id, 7);
        ck_assert_uint_eq(events[i].vehicle, v);
        ck_assert_msg(strstr(events[i].reason, "connection 2 (wheel) took the DRIVER lease"), "%s",
                      events[i].reason);
        ck_assert_int_eq(events[i].preempted,
                         event_conn[i] == 1 ? PDK_SOURCE_AUTONOMY : PDK_SOURCE_AI);
    }
    /* The pre-empted source's commands are refused, naming the driver; the
     * driver's own go through; the driver's connection may use its lower
     * lease too. */
    ck_assert_int_eq(pdk_session_lease_command(s, v, PDK_SOURCE_AUTONOMY, 1, "c1", why, sizeof why),
                     PDK_ERR_BUSY);
    ck_assert_msg(strstr(why, "driven by its DRIVER lease, held by connection 2 (wheel)"), "%s",
                  why);
    ck_assert_int_eq(pdk_session_lease_command(s, v, PDK_SOURCE_DRIVER, 2, "c2", why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(pdk_session_lease_command(s, v, PDK_SOURCE_DRIVER, 1, "c1", why, sizeof why),
                     PDK_ERR_BUSY);
    ck_assert_msg(strstr(why, "the DRIVER lease on vehicle") && strstr(why, "connection 2 (wheel)"),
                  "%s", why);
    /* A stale vehicle passes the gate: the input says STALE_ID later. */
    ck_assert_int_eq(pdk_session_lease_command(s, v + 9, PDK_SOURCE_AI, 5, "c5", why, sizeof why),
                     PDK_OK);

    /* Releases: not held, then the driver's disconnect. */
    ck_assert_int_eq(pdk_session_lease_release(s, v, PDK_SOURCE_DRIVER, 1, why, sizeof why),
                     PDK_ERR_NOT_FOUND);
    ck_assert_msg(strstr(why, "does not hold the DRIVER lease"), "%s", why);
    ck_assert_int_eq(pdk_session_lease_release(s, v, (pdk_control_source)7, 1, why, sizeof why),
                     PDK_ERR_INVALID_ARGUMENT);
    n_events = 0;
    pdk_session_forget_conn(s, 2);
    ck_assert_int_eq(pdk_session_active_source(s, v), PDK_SOURCE_AUTONOMY);
    ck_assert_int_eq(n_events, 2);
    ck_assert_int_eq(events[0].active, PDK_SOURCE_AUTONOMY);
    ck_assert_int_eq(events[0].preempted, PDK_SOURCE_NONE);
    ck_assert_msg(strstr(events[0].reason, "disconnected"), "%s", events[0].reason);
    n_events = 0;
    ck_assert_int_eq(pdk_session_lease_release(s, v, PDK_SOURCE_AUTONOMY, 1, why, sizeof why),
                     PDK_OK);
    ck_assert_int_eq(n_events, 1); /* connection 3 (AI) hears AI is active */
    ck_assert_uint_eq(event_conn[0], 3);
    ck_assert_int_eq(events[0].active, PDK_SOURCE_AI);
    ck_assert_msg(strstr(events[0].reason, "released the AUTONOMY lease"), "%s", events[0].reason);

    /* Removing the vehicle drops its leases; the holder hears why. */
    n_events = 0;
    ck_assert_int_eq(queue_remove(s, v, (pdk_reply_to){0, 0, 0}), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(n_events, 1);
    ck_assert_int_eq(events[0].active, PDK_SOURCE_NONE);
    ck_assert_int_eq(events[0].preempted, PDK_SOURCE_AI);
    ck_assert_msg(strstr(events[0].reason, "was removed"), "%s", events[0].reason);
    ck_assert_uint_eq(pdk_session_lease_holder(s, v, PDK_SOURCE_AI), 0);

    /* A script holds its vehicle's AI lease; a connection's DRIVER lease
     * stops its steps. */
    pdk_vehicle_id w = spawn(s, 1, 2);
    pdk_script_step steps[2] = {
        {.t_s = 0.0, .cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 40}},
        {.t_s = 0.1, .cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 20}},
    };
    pdk_script script = {.steps = steps, .n_steps = 2};
    ck_assert_int_eq(pdk_session_attach_script(s, w, &script, false, 0.0), PDK_OK);
    ck_assert_int_eq(pdk_session_active_source(s, w), PDK_SOURCE_AI);
    ck_assert_int_eq(pdk_session_lease_take(s, w, PDK_SOURCE_AI, 4, "c4", why, sizeof why),
                     PDK_ERR_BUSY);
    ck_assert_msg(strstr(why, "held by a drive script"), "%s", why);
    pdk_session_tick(s);
    ck_assert_double_eq(pdk_world_channels(pdk_session_world(s), w)[PDK_CH_THROTTLE], 40.0);
    ck_assert_int_eq(pdk_session_lease_take(s, w, PDK_SOURCE_DRIVER, 4, "c4", why, sizeof why),
                     PDK_OK);
    uint64_t applied = pdk_session_inputs_applied(s);
    for (int i = 0; i < 24; i++)
        pdk_session_tick(s);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), applied); /* the 0.1 s step passed unapplied */
    ck_assert_double_eq(pdk_world_channels(pdk_session_world(s), w)[PDK_CH_THROTTLE], 40.0);
    ck_assert_int_eq(pdk_session_active_source(s, w), PDK_SOURCE_DRIVER);
    pdk_session_destroy(s);
}
END_TEST

START_TEST(lateness_quantiles)
{
    static pdk_lateness l;
    pdk_lateness_reset(&l);
    ck_assert_double_eq(pdk_lateness_quantile_ms(&l, 0.99), 0.0);
    for (int i = 0; i < 98; i++)
        pdk_lateness_add(&l, 15000, 8333333); /* 15 µs: the 10..20 µs bucket */
    pdk_lateness_add(&l, 400000, 8333333);    /* 0.4 ms */
    pdk_lateness_add(&l, 9000000, 8333333);   /* 9 ms: an overrun */
    ck_assert_double_eq_tol(pdk_lateness_quantile_ms(&l, 0.5), 0.02, 1e-12);
    ck_assert_double_eq_tol(pdk_lateness_quantile_ms(&l, 0.99), 0.41, 1e-12);
    ck_assert_uint_eq(l.overruns, 1);
    ck_assert_uint_eq(l.max_ns, 9000000);
    ck_assert_uint_eq(l.sum_ns, 98u * 15000u + 400000u + 9000000u);
    /* The coarse buckets of /metrics: 15 µs at most 0.1 ms, 0.4 ms at most
     * 0.5 ms, 9 ms above the period; a tick exactly one period late is on
     * time by a hair, not an overrun. */
    ck_assert_uint_eq(l.coarse[0], 98);
    ck_assert_uint_eq(l.coarse[2], 1);
    ck_assert_uint_eq(pdk_lateness_bounds_ns[6], 8333333);
    ck_assert_uint_eq(l.coarse[7], 1);
    pdk_lateness_add(&l, 8333333, 8333333);
    ck_assert_uint_eq(l.coarse[6], 1);
    ck_assert_uint_eq(l.overruns, 1);
    pdk_lateness_add(&l, UINT64_MAX / 2, 8333333); /* beyond the histogram: last bucket */
    ck_assert_double_eq_tol(pdk_lateness_quantile_ms(&l, 1.0), 100.0, 1e-9);
    ck_assert_uint_eq(l.coarse[PDK_LATENESS_BOUNDS], 1);
}
END_TEST

/* A session's world memory: a small world on a 64-byte boundary, one of a
 * huge page or more on a 2 MB boundary (where the kernel may back it with
 * huge pages), both zeros for their whole length, usable for all of it and
 * freed with pdk_world_mem_free; a world laid out in it without clearing
 * it is the world pdk_world_init lays out in dirty memory. */
/* Keyframes after the start's fall keyframe_offset_ticks into each interval
 * (modulo it), the server's way of keeping sessions' keyframe ticks apart
 * (ADR 0037); pdk_session_keyframe_ahead says how far the next is; where
 * they fall changes no state. */
START_TEST(keyframes_fall_at_their_offset_into_each_interval)
{
    const uint32_t offsets[] = {0, 20, 70};
    const int64_t want[][4] = {{0, 50, 100, -1}, {0, 20, 70, 120}, {0, 20, 70, 120}};
    uint64_t hashes[3];
    for (int k = 0; k < 3; k++) {
        char path[128];
        pdk_store *store = open_store(path);
        pdk_session *s = make_keyframed(store, 50, offsets[k]);
        ck_assert_uint_eq(pdk_session_keyframe_ahead(s, 0), offsets[k] % 50 ? offsets[k] % 50 : 50);
        pdk_vehicle_id v = spawn(s, 1, 1);
        pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 40};
        ck_assert_int_eq(queue_dbw(s, v, &cmd, (pdk_reply_to){1, 2, 0}), PDK_OK);
        while (pdk_world_tick(pdk_session_world(s)) < 130) {
            uint64_t tick = pdk_world_tick(pdk_session_world(s));
            uint32_t ahead = pdk_session_keyframe_ahead(s, tick);
            ck_assert_msg(ahead >= 1 && ahead <= 50, "tick %llu: next keyframe %u ahead",
                          (unsigned long long)tick, ahead);
            pdk_session_tick(s);
        }
        hashes[k] = pdk_session_hash(s);
        pdk_session_destroy(s);
        pdk_store_close(store);
        ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM snapshots"), want[k][3] < 0 ? 3 : 4);
        for (int i = 0; i < 4 && want[k][i] >= 0; i++) {
            char q[96];
            snprintf(q, sizeof(q), "SELECT count(*) FROM snapshots WHERE tick = %lld",
                     (long long)want[k][i]);
            ck_assert_msg(sql_int(path, q) == 1, "offset %u: no keyframe at tick %lld", offsets[k],
                          (long long)want[k][i]);
        }
        remove_store(path);
    }
    ck_assert_uint_eq(hashes[1], hashes[0]);
    ck_assert_uint_eq(hashes[2], hashes[0]);
    /* Not recorded: no keyframe ahead. */
    pdk_session *s = make_keyframed(NULL, 50, 20);
    ck_assert_uint_eq(pdk_session_keyframe_ahead(s, 0), 0);
    pdk_session_destroy(s);
}
END_TEST

START_TEST(world_memory_alignment)
{
    const size_t sizes[2] = {(size_t)100 << 10, ((size_t)3 << 20) + 17};
    const uintptr_t align[2] = {64, (uintptr_t)2 << 20};
    for (int i = 0; i < 2; i++) {
        unsigned char *m = pdk_world_mem_alloc(sizes[i]);
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_eq((uintptr_t)m % align[i], 0);
        for (size_t at = 0; at < sizes[i]; at++) {
            if (m[at] != 0) {
                ck_abort_msg("byte %zu of %zu is %u, not 0", at, sizes[i], m[at]);
            }
        }
        memset(m, 0xA5, sizes[i]);
        ck_assert_uint_eq(m[sizes[i] - 1], 0xA5);
        pdk_world_mem_free(m, sizes[i]);
    }
    pdk_world_mem_free(NULL, 0);

    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 300; /* over a huge page */
    const size_t bytes = pdk_world_mem_size(&wd);
    ck_assert_uint_ge(bytes, (size_t)2 << 20);
    unsigned char *zeroed = pdk_world_mem_alloc(bytes);
    unsigned char *dirty = pdk_world_mem_alloc(bytes);
    ck_assert_ptr_nonnull(zeroed);
    ck_assert_ptr_nonnull(dirty);
    memset(dirty, 0x5A, bytes);
    pdk_world *a = NULL, *b = NULL;
    ck_assert_int_eq(pdk_world_init_zeroed(zeroed, bytes, &wd, &a), PDK_OK);
    ck_assert_int_eq(pdk_world_init(dirty, bytes, &wd, &b), PDK_OK);
    ck_assert_int_eq(memcmp(zeroed, dirty, bytes), 0);
    pdk_world_mem_free(zeroed, bytes);
    pdk_world_mem_free(dirty, bytes);
}
END_TEST

static Suite *session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("session");
    tcase_add_test(tc, world_memory_alignment);
    tcase_add_test(tc, keyframes_fall_at_their_offset_into_each_interval);
    tcase_add_test(tc, inputs_apply_at_the_next_tick_boundary);
    tcase_add_test(tc, refused_inputs_are_answered_and_not_counted);
    tcase_add_test(tc, queue_is_bounded_and_close_answers_pending);
    tcase_add_test(tc, scripts_become_inputs_at_their_ticks);
    tcase_add_test(tc, subscriptions_publish_at_their_rate);
    tcase_add_test(tc, subscriptions_get_their_fields);
    tcase_add_test(tc, subscriptions_split_ticks_into_parts);
    tcase_add_test(tc, subscriptions_keep_to_their_area_of_interest);
    tcase_add_test(tc, telemetry_subscriptions_publish_and_end);
    tcase_add_test(tc, channels_are_written_on_the_ticks_read);
    tcase_add_test(tc, channels_as_read_record_the_same_keyframes);
    tcase_add_test(tc, sessions_are_recorded);
    tcase_add_test(tc, a_grown_fleet_has_its_keyframes_block_made_ready);
    tcase_add_test(tc, tyre_inputs_apply_record_and_replay);
    tcase_add_test(tc, dbw_kit_inputs_apply_record_and_replay);
    tcase_add_test(tc, dbw_subscriptions_are_checked_and_end);
    tcase_add_test(tc, control_leases);
    tcase_add_test(tc, control_leases_of_many_vehicles);
    tcase_add_test(tc, reset_and_reseed_are_inputs);
    tcase_add_test(tc, vehicle_resets_count_teleports);
    tcase_add_test(tc, restore_swaps_only_when_it_all_succeeds);
    tcase_add_test(tc, lateness_quantiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(session_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
