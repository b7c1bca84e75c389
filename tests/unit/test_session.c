/* Unit tests of app's session and lateness statistics: inputs at tick
 * boundaries with (tick, seq), replies, refusals, scripts, subscriptions and
 * recording into a real SQLite file. */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "stats.h"
#include "wire.h"
#include "world_mem.h"

#define MAX_RESULTS 64

static pdk_input_result results[MAX_RESULTS];
static char messages[MAX_RESULTS][256];
static pdk_reply_to result_to[MAX_RESULTS];
static int n_results;
static int n_states;
static uint32_t last_state_sub;

static void on_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    (void)ud;
    ck_assert_int_lt(n_results, MAX_RESULTS);
    results[n_results] = *res;
    snprintf(messages[n_results], sizeof(messages[0]), "%s", res->message ? res->message : "");
    result_to[n_results] = to;
    n_results++;
}

static pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                          size_t len)
{
    (void)ud;
    (void)conn_id;
    ck_assert_uint_gt(len, 4);
    ck_assert_ptr_nonnull(frame);
    last_state_sub = sub_id;
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

static pdk_session *make(pdk_store *store)
{
    n_results = 0;
    n_states = 0;
    pdk_session_def def = {
        .name = "unit",
        .world_preset = "flat",
        .world_json = "{}",
        .world = pdk_world_def_default(),
        .timing = PDK_TIMING_FAST,
        .build_id = "test",
        .store = store,
    };
    n_ended = 0;
    pdk_session_hooks hooks = {
        .on_result = on_result, .on_state = on_state, .on_sub_end = on_sub_end};
    pdk_session *s = NULL;
    ck_assert_int_eq(pdk_session_create(7, &def, &hooks, &s), PDK_OK);
    return s;
}

static pdk_vehicle_id spawn(pdk_session *s, uint64_t conn, uint64_t rid)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_spawn_place place = {.gear = PDK_GEAR_DRIVE};
    pdk_reply_to to = {conn, rid};
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
    ck_assert_int_eq(pdk_session_queue_dbw(s, v, &cmd, (pdk_reply_to){1, 11}), PDK_OK);
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
    pdk_session_destroy(s);
}
END_TEST

START_TEST(refused_inputs_are_answered_and_not_counted)
{
    pdk_session *s = make(NULL);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd bad = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 150};
    pdk_session_queue_dbw(s, v, &bad, (pdk_reply_to){1, 2});
    pdk_dbw_cmd ok = {.fields = PDK_DBW_STEER, .steer_wheel_deg = 10};
    pdk_session_queue_dbw(s, v + 5, &ok, (pdk_reply_to){1, 3});
    pdk_session_queue_remove(s, v + 5, (pdk_reply_to){1, 4});
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
    while (pdk_session_queue_dbw(s, v, &cmd, (pdk_reply_to){2, (uint64_t)queued + 100}) == PDK_OK)
        queued++;
    ck_assert_int_eq(queued, PDK_SESSION_MAX_PENDING);
    ck_assert_int_eq(pdk_session_queue_dbw(s, v, &cmd, (pdk_reply_to){2, 1}), PDK_ERR_BUSY);
    /* Connection 2 goes away: its pending inputs still apply, silently. */
    pdk_session_forget_conn(s, 2);
    int before = n_results;
    pdk_session_tick(s);
    ck_assert_int_eq(n_results, before);
    ck_assert_uint_eq(pdk_session_inputs_applied(s), 1 + (uint64_t)queued);
    /* An input still pending when the session closes is told CLOSED. */
    pdk_session_queue_dbw(s, v, &cmd, (pdk_reply_to){3, 9});
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
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 7, NULL, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 240, NULL, 0), PDK_ERR_INVALID_ARGUMENT);
    static uint32_t too_many[300];
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 30, too_many, 300), PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(pdk_session_subscribe(s, 1, 1, 30, NULL, 0), PDK_OK);
    uint32_t ids[3] = {12345, 12345, 12345}; /* duplicates collapse to one */
    ck_assert_int_eq(pdk_session_subscribe(s, 2, 5, 0, ids, 3), PDK_OK);
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
    ck_assert_int_eq(pdk_session_subscribe(s, 3, 99, 120, NULL, 0), PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(pdk_session_subscriber_count(s), 0);
    ck_assert_int_eq(n_ended, 1);
    ck_assert_int_eq(ended_code, PDK_ERR_FRAME_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(ended_why, "larger than the frame limit"));

    /* Closing the session ends the rest, with CLOSED. */
    ck_assert_int_eq(pdk_session_subscribe(s, 4, 1, 60, NULL, 0), PDK_OK);
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

START_TEST(sessions_are_recorded)
{
    char dir[] = "/tmp/pdk-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/t.db", dir);
    char err[PDK_STORE_ERR_LEN];
    pdk_store *store = NULL;
    ck_assert_int_eq(pdk_store_open(path, PDK_SOURCE_DIR "/migrations", &store, err, sizeof(err)),
                     PDK_OK);
    pdk_session *s = make(store);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE, .throttle_pct = 30};
    pdk_session_queue_dbw(s, v, &cmd, (pdk_reply_to){1, 2});
    pdk_dbw_cmd bad = {.fields = PDK_DBW_THROTTLE, .throttle_pct = -1};
    pdk_session_queue_dbw(s, v, &bad, (pdk_reply_to){1, 3});
    for (int i = 0; i < 24; i++)
        pdk_session_tick(s);
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
    /* Tick 0 and every PDK_SESSION_HASH_EVERY ticks: 0, 12, 24. */
    ck_assert_int_eq(sql_int(path, "SELECT count(*) FROM state_hashes WHERE session_id = 7"), 3);
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
    char dir[] = "/tmp/pdk-session-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/t.db", dir);
    char err[PDK_STORE_ERR_LEN];
    pdk_store *store = NULL;
    ck_assert_int_eq(pdk_store_open(path, PDK_SOURCE_DIR "/migrations", &store, err, sizeof(err)),
                     PDK_OK);
    pdk_session *s = make(store);
    pdk_vehicle_id v = spawn(s, 1, 1);
    pdk_vehicle_def planar_def = pdk_vehicle_def_default();
    planar_def.model = PDK_MODEL_SINGLE_TRACK;
    pdk_spawn_place place = {.y_m = 10, .gear = PDK_GEAR_PARK};
    ck_assert_int_eq(pdk_session_queue_spawn(s, &planar_def, "traffic_sedan", "", "{}", &place,
                                             (pdk_reply_to){1, 2}),
                     PDK_OK);
    pdk_session_tick(s);
    ck_assert_int_eq(results[n_results - 1].err, PDK_OK);
    pdk_vehicle_id planar = results[n_results - 1].vehicle;

    int first = n_results;
    pdk_tyre_input puncture = {.wheel_mask = 1u, .action = PDK_TYRE_PUNCTURE, .value = 0.5};
    ck_assert_int_eq(pdk_session_queue_tyre(s, v, &puncture, (pdk_reply_to){1, 3}), PDK_OK);
    pdk_tyre_input too_fast = {.wheel_mask = 2u, .action = PDK_TYRE_PUNCTURE, .value = 2.0};
    ck_assert_int_eq(pdk_session_queue_tyre(s, v, &too_fast, (pdk_reply_to){1, 4}), PDK_OK);
    ck_assert_int_eq(pdk_session_queue_tyre(s, v + 9, &puncture, (pdk_reply_to){1, 5}), PDK_OK);
    ck_assert_int_eq(pdk_session_queue_tyre(s, planar, &puncture, (pdk_reply_to){1, 6}), PDK_OK);
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
    ck_assert_int_eq(pdk_store_open(path, PDK_SOURCE_DIR "/migrations", &store, err, sizeof(err)),
                     PDK_OK);

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
                                             (pdk_reply_to){0, 0}),
                     PDK_OK);
    pdk_session_tick(r);
    while (pdk_world_tick(pdk_session_world(r)) < end_tick) {
        if (pdk_world_tick(pdk_session_world(r)) == rec.tyre_tick[0])
            ck_assert_int_eq(
                pdk_session_queue_tyre(r, rec.tyre_vehicle[0], &rec.tyre[0], (pdk_reply_to){0, 0}),
                PDK_OK);
        pdk_session_tick(r);
    }
    ck_assert_uint_eq(pdk_session_hash(r), hash);
    pdk_session_destroy(r);
    unlink(path);
    rmdir(dir);
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
    pdk_lateness_add(&l, UINT64_MAX / 2, 8333333); /* beyond the histogram: last bucket */
    ck_assert_double_eq_tol(pdk_lateness_quantile_ms(&l, 1.0), 100.0, 1e-9);
}
END_TEST

/* A session's world memory: a small world on a 64-byte boundary, one of a
 * huge page or more on a 2 MB boundary (where the kernel may back it with
 * huge pages), both usable for their whole length and freed with free(). */
START_TEST(world_memory_alignment)
{
    const size_t sizes[2] = {(size_t)100 << 10, ((size_t)3 << 20) + 17};
    const uintptr_t align[2] = {64, (uintptr_t)2 << 20};
    for (int i = 0; i < 2; i++) {
        unsigned char *m = pdk_world_mem_alloc(sizes[i]);
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_eq((uintptr_t)m % align[i], 0);
        memset(m, 0xA5, sizes[i]);
        ck_assert_uint_eq(m[sizes[i] - 1], 0xA5);
        free(m);
    }
}
END_TEST

static Suite *session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("session");
    tcase_add_test(tc, world_memory_alignment);
    tcase_add_test(tc, inputs_apply_at_the_next_tick_boundary);
    tcase_add_test(tc, refused_inputs_are_answered_and_not_counted);
    tcase_add_test(tc, queue_is_bounded_and_close_answers_pending);
    tcase_add_test(tc, scripts_become_inputs_at_their_ticks);
    tcase_add_test(tc, subscriptions_publish_at_their_rate);
    tcase_add_test(tc, sessions_are_recorded);
    tcase_add_test(tc, tyre_inputs_apply_record_and_replay);
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
