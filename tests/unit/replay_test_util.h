/* The recorded-session fixture the replay suites share (test_replay.c,
 * test_replay_load.c): the presets, a temporary database, a session whose
 * frames and reports are seen, the drive that gives every kind of input
 * (several presets, DBW commands, DBW kit messages with fault injections
 * and the ULC, tyre damage, a removal and a respawn, a reseed and a reset),
 * the rich recording made of it, and verify by a chosen number of threads.
 * Included once per suite. */
#ifndef PDK_REPLAY_TEST_UTIL_H
#define PDK_REPLAY_TEST_UTIL_H

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/channels.h"
#include "paddock/v1/snapshot.pb-c.h"
#include "params.h"
#include "replay.h"
#include "session.h"
#include "session_inputs_util.h"
#include "sim/snapshot.h"
#include "wire.h"

#define PRESETS PDK_SOURCE_DIR "/presets"
#define MIGRATIONS PDK_SOURCE_DIR "/migrations"
#define BUILD "test-build"

/* ---- presets, loaded once per process ------------------------------------- */

typedef struct preset {
    const char *name;
    pdk_vehicle_def def;
    char *json;
} preset;

static preset presets[] = {
    {"midsize_sedan", {0}, NULL}, {"polaris_ranger", {0}, NULL}, {"traffic_sedan", {0}, NULL},
    {"kart", {0}, NULL},          {"compact_hatch", {0}, NULL},  {"pickup4x4", {0}, NULL},
    {"sports_car", {0}, NULL},    {"open_wheeler", {0}, NULL},
};
#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

static inline const preset *preset_get(size_t i)
{
    preset *p = &presets[i % N_PRESETS];
    if (!p->json) {
        char err[PDK_PARAMS_ERR_LEN];
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, p->name, NULL, &p->def, &p->json, err,
                                              sizeof(err)) == PDK_OK,
                      "%s", err);
    }
    return p;
}

static pdk_world_def world_def;
static char *world_json;

static inline void world_load(void)
{
    if (world_json)
        return;
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_world_load(PRESETS, "flat", NULL, &world_def, &world_json, err,
                                        sizeof(err)) == PDK_OK,
                  "%s", err);
}

/* ---- a temp dir with a store -------------------------------------------- */

typedef struct tmp_db {
    char dir[64];
    char path[128];
} tmp_db;

static inline void tmp_make(tmp_db *t)
{
    snprintf(t->dir, sizeof(t->dir), "/tmp/pdk-replay-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    snprintf(t->path, sizeof(t->path), "%s/r.db", t->dir);
}

static inline void tmp_remove(tmp_db *t)
{
    char p[160];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s%s", t->path, suffix[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

static inline pdk_store *store_open(const tmp_db *t)
{
    char err[PDK_STORE_ERR_LEN];
    pdk_store *store = NULL;
    ck_assert_msg(pdk_store_open(t->path, MIGRATIONS, &store, err, sizeof(err)) == PDK_OK, "%s",
                  err);
    return store;
}

static inline void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql,
                  msg ? msg : "");
    sqlite3_close(db);
}

static inline int64_t sql_int(const char *path, const char *sql)
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

/* ---- what the sessions tell ------------------------------------------------- */

static int n_refused;
static char refused[256]; /* the last refusal */

static inline void on_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    (void)ud;
    (void)to;
    if (res->err != PDK_OK) {
        n_refused++;
        snprintf(refused, sizeof(refused), "tick %llu, vehicle %u: %s",
                 (unsigned long long)res->tick, res->vehicle, res->message);
    }
}

/* DBW report frames as pushed: the tick they went out at and their bytes'
 * digest, so two runs' frames compare exactly. */
typedef struct frame_seen {
    uint64_t sent_tick;
    int kind;
    uint64_t digest;
} frame_seen;

#define MAX_FRAMES 20000
static frame_seen frames[MAX_FRAMES];
static int n_frames;
static const pdk_session *frames_of;

static inline uint64_t digest(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

static inline pdk_error on_dbw_report(void *ud, uint64_t conn_id, uint32_t sub_id, int kind,
                                      const uint8_t *frame, size_t len)
{
    (void)ud;
    (void)conn_id;
    (void)sub_id;
    ck_assert_int_lt(n_frames, MAX_FRAMES);
    frames[n_frames++] =
        (frame_seen){pdk_world_tick(pdk_session_world(frames_of)), kind, digest(frame, len)};
    return PDK_OK;
}

static int n_state_frames;

static inline pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, uint32_t part,
                                 const pdk_session_frame *frame)
{
    (void)ud;
    (void)part;
    (void)conn_id;
    (void)sub_id;
    (void)frame;
    n_state_frames++;
    return PDK_OK;
}

static const pdk_session_hooks hooks = {
    .on_result = on_result, .on_state = on_state, .on_dbw_report = on_dbw_report};

static inline pdk_session *session_new(pdk_store *store, uint64_t id)
{
    world_load();
    pdk_session_def def = {
        .name = "replay test",
        .world_preset = "flat",
        .world_json = world_json,
        .world = world_def,
        .timing = PDK_TIMING_FAST,
        .build_id = BUILD,
        .store = store,
    };
    pdk_session *s = NULL;
    ck_assert_int_eq(pdk_session_create(id, &def, &hooks, &s), PDK_OK);
    return s;
}

/* A session for a recording's replay, with the test's hooks. */
static inline pdk_session *replay_session(const pdk_recording *rec)
{
    pdk_session_def def = {
        .name = "replay",
        .world = *pdk_recording_world_def(rec),
        .timing = PDK_TIMING_FAST,
        .build_id = BUILD,
    };
    pdk_session *s = NULL;
    ck_assert_int_eq(pdk_session_create(900, &def, &hooks, &s), PDK_OK);
    return s;
}

/* ---- the drivers ------------------------------------------------------------ */

static const pdk_reply_to told = {.conn_id = 1, .request_id = 1};

static inline void spawn(pdk_session *s, size_t preset_index, double x, double y, double speed)
{
    const preset *p = preset_get(preset_index);
    pdk_spawn_place place = {
        .x_m = x, .y_m = y, .yaw_deg = 3.0 * y, .speed_mps = speed, .gear = PDK_GEAR_DRIVE};
    ck_assert_int_eq(pdk_session_queue_spawn(s, &p->def, p->name, "", p->json, &place, told),
                     PDK_OK);
}

static inline pdk_dbw_msg kit_chan(int kind, double cmd, int cmd_type, uint64_t tick)
{
    pdk_dbw_msg m = {.kind = kind, .crc = -1};
    m.u.chan.cmd = cmd;
    m.u.chan.cmd_type = cmd_type;
    m.u.chan.enable = 1;
    m.u.chan.rc = (uint8_t)((tick / 3) % 16);
    return m;
}

static inline pdk_dbw_msg kit_fault(int kind, int target, double value)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_FAULT, .crc = -1};
    m.u.fault.kind = kind;
    m.u.fault.target = target;
    m.u.fault.value = value;
    return m;
}

static inline pdk_dbw_msg kit_system(int cmd, uint64_t tick)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_SYSTEM, .crc = -1};
    m.u.system.cmd = cmd;
    m.u.system.sync_mode = -1;
    m.u.system.validate_crc = -1;
    m.u.system.comms_loss_arm = -1;
    m.u.system.rc = (uint8_t)(tick % 16);
    return m;
}

static inline pdk_dbw_msg kit_ulc(double speed, uint64_t tick)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_ULC, .crc = -1};
    m.u.ulc.cmd = speed;
    m.u.ulc.cmd_type = PDK_ULC_CMD_VELOCITY;
    m.u.ulc.limit_accel = 1.5;
    m.u.ulc.limit_decel = 3.0;
    m.u.ulc.limit_jerk_throttle = 4.0;
    m.u.ulc.limit_jerk_brake = 4.0;
    m.u.ulc.enable = 1;
    m.u.ulc.rc = (uint8_t)((tick / 3) % 16);
    return m;
}

/* Queues what drives the vehicles at tick: each vehicle's role follows
 * its slot. Slot % 3 == 0 is driven by DbwCommand, 1 by the kit's channel
 * commands, 2 by the kit's ULC; faults, tyre damage and sensor noise at
 * set ticks of a 1200-tick cycle. Every value is a function of tick and
 * slot, so the run is the same every time. */
static inline void drive(pdk_session *s, uint64_t tick)
{
    const pdk_world *w = pdk_session_world(s);
    for (int i = 0; i < pdk_world_vehicle_count(w); i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(w, i);
        uint32_t slot = (id & 0xffffu) - 1u;
        const pdk_vehicle_def *def = pdk_world_vehicle_def(w, id);
        uint64_t t = tick + 7u * slot;
        uint64_t cycle = t % 1200u;
        double phase = (double)(t % 600u) / 600.0;
        int role = (int)(slot % 3u);
        if (role == 0 && t % 6u == 0) {
            pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER};
            c.throttle_pct = phase < 0.6 ? 20.0 + 30.0 * phase : 0.0;
            c.brake_bar = phase < 0.6 ? 0.0 : 0.2 * def->brake.max_line_bar * (phase - 0.5);
            c.steer_wheel_deg = 0.4 * def->steering.lock_deg * sin(6.283185307179586 * phase);
            if (cycle == 6)
                c.fields |= PDK_DBW_GEAR, c.gear = PDK_GEAR_DRIVE;
            ck_assert_int_eq(queue_dbw(s, id, &c, told), PDK_OK);
        }
        if (role != 0 && cycle == 3) {
            pdk_dbw_msg m = kit_system(PDK_DBW_SYS_ENABLE, t);
            ck_assert_int_eq(queue_dbw_kit(s, id, &m, told), PDK_OK);
        }
        if (role == 1 && t % 3u == 0 && cycle > 3) {
            double steer = 0.3 * def->steering.lock_deg * sin(6.283185307179586 * 2.0 * phase);
            pdk_dbw_msg m = kit_chan(PDK_DBW_MSG_STEER, steer, PDK_STEER_CMD_ANGLE, t);
            ck_assert_int_eq(queue_dbw_kit(s, id, &m, told), PDK_OK);
            m = kit_chan(PDK_DBW_MSG_THROTTLE, phase < 0.7 ? 25.0 : 0.0, PDK_THROTTLE_CMD_PERCENT,
                         t);
            ck_assert_int_eq(queue_dbw_kit(s, id, &m, told), PDK_OK);
            m = kit_chan(PDK_DBW_MSG_BRAKE, phase < 0.7 ? 0.0 : 8.0, PDK_BRAKE_CMD_PRESSURE, t);
            ck_assert_int_eq(queue_dbw_kit(s, id, &m, told), PDK_OK);
        }
        if (role == 2 && t % 3u == 0 && cycle > 3) {
            pdk_dbw_msg m = kit_ulc(phase < 0.5 ? 8.0 : 3.0, t);
            ck_assert_int_eq(queue_dbw_kit(s, id, &m, told), PDK_OK);
        }
        pdk_dbw_msg f = {0};
        bool fault = true;
        switch (cycle) {
        case 40:
            f = kit_fault(PDK_FAULT_REPORT_DROP, PDK_RPT_STEER, 0.4);
            break;
        case 60:
            f = kit_fault(PDK_FAULT_REPORT_DELAY, PDK_RPT_SYSTEM, 0.1);
            break;
        case 80:
            f = kit_fault(PDK_FAULT_SENSOR_NOISE, PDK_SENSOR_ACCEL_X, 3.0);
            break;
        case 300:
            f = kit_fault(PDK_FAULT_STUCK, PDK_DBW_CH_STEER, 0.0);
            break;
        case 420:
            f = kit_fault(PDK_FAULT_LATENCY, PDK_DBW_CH_THROTTLE, 0.05);
            break;
        case 700:
            f = kit_fault(PDK_FAULT_CLEAR, 0, 0.0);
            break;
        default:
            fault = false;
        }
        if (fault)
            ck_assert_int_eq(queue_dbw_kit(s, id, &f, told), PDK_OK);
        if (def->model == PDK_MODEL_FOUR_WHEEL && cycle == 150 && slot % 2 == 1) {
            pdk_tyre_input in = {
                .wheel_mask = 1u << (slot % 4u), .action = PDK_TYRE_PUNCTURE, .value = 0.05};
            ck_assert_int_eq(queue_tyre(s, id, &in, told), PDK_OK);
        }
        if (def->model == PDK_MODEL_FOUR_WHEEL && cycle == 500) {
            pdk_tyre_input in = {.wheel_mask = 15u,
                                 .action = PDK_TYRE_SET_GRIP_SCALE,
                                 .value = 0.8 + 0.05 * (double)(slot % 4u)};
            ck_assert_int_eq(queue_tyre(s, id, &in, told), PDK_OK);
        }
        if (def->model == PDK_MODEL_FOUR_WHEEL && cycle == 1100) {
            pdk_tyre_input in = {.wheel_mask = 15u, .action = PDK_TYRE_REPLACE, .value = 0};
            ck_assert_int_eq(queue_tyre(s, id, &in, told), PDK_OK);
        }
    }
}

/* ---- the rich recording ------------------------------------------------------ */

#define RICH_ID 5
#define RICH_TICKS 600
#define CSV_FROM 100
#define CSV_TO 200
#define CSV_EVERY 10

/* What the live run showed: Speed and PosX of vehicles 1 and 3 at the CSV
 * ticks, the DBW report frames of vehicle 2, the hash at the end. */
typedef struct live_run {
    double speed[2][CSV_TO + 1];
    double posx[2][CSV_TO + 1];
    uint64_t end_hash;
    uint64_t hash[RICH_TICKS + 1];
    pdk_vehicle_id kart_respawned;
} live_run;

/* The rich session: four presets spawned at tick 0 (the sedan, the
 * Polaris Ranger, the single-track traffic sedan, the kart), driven by
 * drive(); the kart removed at tick 200 and spawned again at 230 (into its
 * old slot, with the next generation), a reseed at 300, a reset at 400, a
 * sedan and a traffic sedan spawned at 410, to tick 600. */
static inline void record_rich(const tmp_db *t, live_run *live)
{
    pdk_store *store = store_open(t);
    pdk_session *s = session_new(store, RICH_ID);
    memset(live, 0, sizeof(*live));
    live->hash[0] = pdk_session_hash(s);
    spawn(s, 0, 0.0, 0.0, 5.0);
    spawn(s, 1, 0.0, 20.0, 3.0);
    spawn(s, 2, 0.0, 40.0, 10.0);
    spawn(s, 3, 0.0, 60.0, 2.0);
    n_refused = 0;
    while (pdk_world_tick(pdk_session_world(s)) < RICH_TICKS) {
        uint64_t tick = pdk_world_tick(pdk_session_world(s));
        drive(s, tick); /* first: the reset at 400 comes after the tick's drive */
        if (tick == 200)
            ck_assert_int_eq(queue_remove(s, 4, told), PDK_OK);
        if (tick == 230)
            spawn(s, 3, 0.0, 60.0, 0.0);
        if (tick == 300)
            ck_assert_int_eq(queue_reseed(s, 42, told), PDK_OK);
        if (tick == 400)
            ck_assert_int_eq(queue_reset(s, told), PDK_OK);
        if (tick == 410) {
            spawn(s, 0, 5.0, 0.0, 1.0);
            spawn(s, 2, 5.0, 40.0, 1.0);
        }
        pdk_session_tick(s);
        tick++;
        live->hash[tick] = pdk_session_hash(s);
        if (tick == 231)
            live->kart_respawned = pdk_world_vehicle_at(pdk_session_world(s), 3);
        if (tick >= CSV_FROM && tick <= CSV_TO) {
            const pdk_vehicle_id ids[2] = {1, 3};
            for (int k = 0; k < 2; k++) {
                const double *ch = pdk_world_channels(pdk_session_world(s), ids[k]);
                live->speed[k][tick] = ch[PDK_CH_SPEED];
                live->posx[k][tick] = ch[PDK_CH_POS_X];
            }
        }
    }
    ck_assert_msg(n_refused == 0, "%d refused, the last at %s", n_refused, refused);
    ck_assert_uint_eq(live->kart_respawned, (1u << 16) | 4u);
    ck_assert_int_eq(pdk_world_vehicle_count(pdk_session_world(s)), 2);
    live->end_hash = pdk_session_hash(s);
    pdk_session_destroy(s);
    pdk_store_close(store);
}

static inline pdk_recording *load(pdk_store *store, uint64_t id)
{
    char err[PDK_REPLAY_ERR_LEN];
    pdk_recording *rec = NULL;
    ck_assert_msg(pdk_recording_load(store, id, &rec, err, sizeof(err)) == PDK_OK, "%s", err);
    return rec;
}

/* ---- verify by worker threads ----------------------------------------------- */

/* pdk_verify of session id up to to_tick with threads workers, as
 * PADDOCK_VERIFY_THREADS asks (each test runs in a process of its own). */
static inline pdk_verify_result verify_by(pdk_store *store, uint64_t id, uint64_t to_tick,
                                          int threads)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", threads);
    ck_assert_int_eq(setenv("PADDOCK_VERIFY_THREADS", n, 1), 0);
    pdk_verify_result r;
    char err[PDK_REPLAY_ERR_LEN];
    pdk_error e = pdk_verify(store, id, to_tick, BUILD, &r, err, sizeof(err));
    unsetenv("PADDOCK_VERIFY_THREADS");
    ck_assert_msg(e == PDK_OK, "%d threads: %s", threads, err);
    return r;
}

/* Everything verify tells but its wall time and its thread count. */
static inline void assert_same_outcome(const pdk_verify_result *a, const pdk_verify_result *b)
{
    ck_assert_int_eq(a->match, b->match);
    ck_assert_uint_eq(a->hashes_checked, b->hashes_checked);
    ck_assert_uint_eq(a->last_tick, b->last_tick);
    ck_assert_uint_eq(a->first_divergent_tick, b->first_divergent_tick);
    ck_assert_uint_eq(a->vehicle_id, b->vehicle_id);
    ck_assert_str_eq(a->field, b->field);
    ck_assert_str_eq(a->recorded_build, b->recorded_build);
    ck_assert_int_eq(a->same_build, b->same_build);
    ck_assert_int_eq(a->interrupted, b->interrupted);
    ck_assert_str_eq(a->message, b->message);
}

/* Verifies session id of the file t up to to_tick with one thread, then
 * with four (three times: the workers' timing differs from run to run)
 * and eight: the same outcome every time, which it returns. segments is
 * how many keyframe segments the recording has (the most threads that
 * run). */
static inline pdk_verify_result verify_agree(const tmp_db *t, uint64_t id, uint64_t to_tick,
                                             int segments)
{
    pdk_store *store = store_open(t);
    pdk_verify_result one = verify_by(store, id, to_tick, 1);
    ck_assert_int_eq(one.threads, 1);
    for (int i = 0; i < 4; i++) {
        int n = i < 3 ? 4 : 8;
        pdk_verify_result many = verify_by(store, id, to_tick, n);
        assert_same_outcome(&one, &many);
        ck_assert_int_eq(many.threads, n < segments ? n : segments);
    }
    pdk_store_close(store);
    return one;
}

/* ---- the tests ---------------------------------------------------------------- */

#endif
