/* Batch requests against the real paddockd on loopback (issue 27): a
 * VehicleSpawnBatch of cars of several presets, poses and overrides comes
 * back as one reply naming every vehicle, all spawned at one tick and
 * recorded as single spawns are; a DbwCommandBatch drives many cars from
 * one frame at one tick, recorded as DbwCommands, and the recording
 * verifies. Every refusal names the entry and leaves the session as it
 * was; a batch spends its connection's budget per entry. The frames are
 * protobuf-c messages on a raw connection: a batch here is larger than
 * the C client's fixed arrays hold. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock/v1/paddock.pb-c.h"

static char log_text[1 << 20];
static char out[1 << 16];

/* ---- frames on a raw connection ----------------------------------------- */

static void send_frame(int fd, Paddock__V1__Frame *f)
{
    size_t len = paddock__v1__frame__get_packed_size(f);
    uint8_t *buf = malloc(len + 10);
    ck_assert_ptr_nonnull(buf);
    size_t n = 0;
    for (uint64_t v = len;; v >>= 7) {
        buf[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80)
            break;
    }
    paddock__v1__frame__pack(f, buf + n);
    size_t at = 0;
    while (at < n + len) {
        ssize_t w = write(fd, buf + at, n + len - at);
        ck_assert_msg(w > 0, "write failed");
        at += (size_t)w;
    }
    free(buf);
}

/* Frames a and b in one write, so that the server reads them together,
 * before its next tick. */
static void send_two(int fd, Paddock__V1__Frame *a, Paddock__V1__Frame *b)
{
    uint8_t buf[4096];
    size_t n = 0;
    Paddock__V1__Frame *fs[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        size_t len = paddock__v1__frame__get_packed_size(fs[k]);
        ck_assert_uint_lt(len, 127);
        buf[n++] = (uint8_t)len;
        n += paddock__v1__frame__pack(fs[k], buf + n);
    }
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
}

static void read_all(int fd, uint8_t *p, size_t len)
{
    for (size_t at = 0; at < len;) {
        ssize_t r = read(fd, p + at, len - at);
        ck_assert_msg(r > 0, "the server closed the connection or said nothing for 5 s");
        at += (size_t)r;
    }
}

/* The next frame that is not pushed (request_id 0): a reply. */
static Paddock__V1__Frame *recv_reply(int fd)
{
    for (;;) {
        uint64_t len = 0;
        for (int shift = 0;; shift += 7) {
            uint8_t b;
            read_all(fd, &b, 1);
            len |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
            ck_assert_int_lt(shift, 56);
        }
        uint8_t *buf = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(buf);
        read_all(fd, buf, len);
        Paddock__V1__Frame *f = paddock__v1__frame__unpack(NULL, len, buf);
        free(buf);
        ck_assert_ptr_nonnull(f);
        if (f->request_id != 0)
            return f;
        paddock__v1__frame__free_unpacked(f, NULL);
    }
}

static int connect_as(int port, const char *name)
{
    int fd = pdk_test_raw_connect(port);
    ck_assert_int_ge(fd, 0);
    Paddock__V1__Hello h = PADDOCK__V1__HELLO__INIT;
    h.protocol_version = 1;
    h.client_name = (char *)name;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 1;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &h;
    send_frame(fd, &f);
    Paddock__V1__Frame *w = recv_reply(fd);
    ck_assert_int_eq(w->body_case, PADDOCK__V1__FRAME__BODY_WELCOME);
    paddock__v1__frame__free_unpacked(w, NULL);
    return fd;
}

/* Sends f (request id rid) and returns the reply. */
static Paddock__V1__Frame *call(int fd, uint64_t rid, Paddock__V1__Frame *f)
{
    f->request_id = rid;
    send_frame(fd, f);
    Paddock__V1__Frame *r = recv_reply(fd);
    ck_assert_msg(r->request_id == rid, "reply to %" PRIu64 ", not %" PRIu64 ": body %d %s",
                  r->request_id, rid, (int)r->body_case,
                  r->body_case == PADDOCK__V1__FRAME__BODY_ERROR ? r->error->message : "");
    return r;
}

/* The reply must be an Error of code naming every one of the words. */
static void expect_error(Paddock__V1__Frame *r, Paddock__V1__ErrorCode code, const char *a,
                         const char *b)
{
    ck_assert_msg(r->body_case == PADDOCK__V1__FRAME__BODY_ERROR, "not an Error: body %d",
                  (int)r->body_case);
    ck_assert_msg(r->error->code == code, "code %d, not %d: %s", (int)r->error->code, (int)code,
                  r->error->message);
    ck_assert_msg(strstr(r->error->message, a) && (!b || strstr(r->error->message, b)),
                  "'%s' does not name '%s'%s%s", r->error->message, a, b ? " and " : "",
                  b ? b : "");
    paddock__v1__frame__free_unpacked(r, NULL);
}

static uint64_t create_session(int fd, const char *name, const char *overrides)
{
    Paddock__V1__SessionCreate m = PADDOCK__V1__SESSION_CREATE__INIT;
    m.name = (char *)name;
    m.world_overrides = (char *)overrides;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATE;
    f.session_create = &m;
    Paddock__V1__Frame *r = call(fd, 2, &f);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_SESSION_CREATED);
    uint64_t sid = r->session_created->session->session_id;
    paddock__v1__frame__free_unpacked(r, NULL);
    return sid;
}

static uint32_t vehicle_count(int fd, uint64_t sid)
{
    Paddock__V1__SessionList m = PADDOCK__V1__SESSION_LIST__INIT;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_LIST;
    f.session_list = &m;
    Paddock__V1__Frame *r = call(fd, 3, &f);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_SESSION_LIST_REPLY);
    uint32_t n = UINT32_MAX;
    for (size_t i = 0; i < r->session_list_reply->n_sessions; i++)
        if (r->session_list_reply->sessions[i]->session_id == sid)
            n = r->session_list_reply->sessions[i]->vehicle_count;
    paddock__v1__frame__free_unpacked(r, NULL);
    ck_assert_msg(n != UINT32_MAX, "session %" PRIu64 " is not listed", sid);
    return n;
}

/* A spawn batch of n cars into sid: presets in turn, 12 m apart. */
typedef struct spawn_batch {
    Paddock__V1__VehicleSpawnBatch m;
    Paddock__V1__VehicleSpawn *spawns;
    Paddock__V1__VehicleSpawn **ptrs;
    Paddock__V1__Frame f;
} spawn_batch;

static const char *const presets[] = {"midsize_sedan", "traffic_sedan", "compact_hatch"};

static void spawn_batch_init(spawn_batch *b, uint64_t sid, size_t n)
{
    paddock__v1__vehicle_spawn_batch__init(&b->m);
    b->m.session_id = sid;
    b->spawns = calloc(n ? n : 1, sizeof(*b->spawns));
    b->ptrs = calloc(n ? n : 1, sizeof(*b->ptrs));
    ck_assert(b->spawns && b->ptrs);
    for (size_t i = 0; i < n; i++) {
        Paddock__V1__VehicleSpawn *s = &b->spawns[i];
        paddock__v1__vehicle_spawn__init(s);
        s->preset = (char *)presets[i % 3];
        s->x_m = (double)(i % 16) * 12.0;
        s->y_m = (double)(i / 16) * 12.0;
        s->yaw_deg = (double)(i * 30 % 360);
        s->speed_mps = (double)(i % 5);
        s->gear = PADDOCK__V1__GEAR__GEAR_DRIVE;
        b->ptrs[i] = s;
    }
    b->m.n_spawns = n;
    b->m.spawns = b->ptrs;
    paddock__v1__frame__init(&b->f);
    b->f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH;
    b->f.vehicle_spawn_batch = &b->m;
}

static void spawn_batch_free(spawn_batch *b)
{
    free(b->spawns);
    free(b->ptrs);
}

/* How many rows of the recording's table (vehicles or inputs) session sid
 * has at tick; the database is readable while paddockd writes it (WAL). */
static int rows_at(const char *db, const char *sql, uint64_t sid, uint64_t tick)
{
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt *st;
    ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)tick);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* ---- the tests ---------------------------------------------------------- */

/* 100 cars of three presets, one with overrides, in one request: one
 * reply with every vehicle in the batch's order, all at one tick, each
 * recorded as its own spawn. Then one DbwCommandBatch drives all 100 at
 * one tick, its commands recorded as DbwCommands; the recording verifies. */
START_TEST(spawn_and_drive_a_hundred_cars_in_two_frames)
{
    char dir[256], db[320];
    pdk_test_tmpdir(dir, sizeof(dir));
    snprintf(db, sizeof(db), "%s/paddock.db", dir);
    const char *const extra[] = {"--max-spawns-per-tick", "100", NULL};
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, db, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    int fd = connect_as(srv.port, "batcher");
    uint64_t sid = create_session(fd, "batches", "");
    enum { N = 100 };
    spawn_batch b;
    spawn_batch_init(&b, sid, N);
    b.spawns[7].overrides = "chassis.mass=1700";
    Paddock__V1__Frame *r = call(fd, 10, &b.f);
    ck_assert_msg(r->body_case == PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY, "body %d: %s",
                  (int)r->body_case,
                  r->body_case == PADDOCK__V1__FRAME__BODY_ERROR ? r->error->message : "");
    const Paddock__V1__VehicleSpawnBatchReply *sr = r->vehicle_spawn_batch_reply;
    ck_assert_uint_eq(sr->n_vehicle_ids, N);
    uint64_t spawn_tick = sr->tick;
    uint32_t ids[N];
    for (size_t i = 0; i < N; i++) {
        ids[i] = sr->vehicle_ids[i];
        ck_assert_uint_ne(ids[i], 0);
        for (size_t j = 0; j < i; j++)
            ck_assert_uint_ne(ids[i], ids[j]);
    }
    paddock__v1__frame__free_unpacked(r, NULL);
    spawn_batch_free(&b);
    ck_assert_uint_eq(vehicle_count(fd, sid), N);

    Paddock__V1__DbwCommand cmds[N];
    Paddock__V1__DbwCommand *cptr[N];
    for (size_t i = 0; i < N; i++) {
        paddock__v1__dbw_command__init(&cmds[i]);
        cmds[i].vehicle_id = ids[i];
        cmds[i].throttle_case = PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT;
        cmds[i].throttle_pct = 10.0 + (double)(i % 20);
        cmds[i].steer_case = PADDOCK__V1__DBW_COMMAND__STEER_STEER_WHEEL_DEG;
        cmds[i].steer_wheel_deg = (double)(i % 9) * 10.0 - 40.0;
        cptr[i] = &cmds[i];
    }
    Paddock__V1__DbwCommandBatch db_m = PADDOCK__V1__DBW_COMMAND_BATCH__INIT;
    db_m.session_id = sid;
    db_m.n_commands = N;
    db_m.commands = cptr;
    Paddock__V1__Frame df = PADDOCK__V1__FRAME__INIT;
    df.body_case = PADDOCK__V1__FRAME__BODY_DBW_COMMAND_BATCH;
    df.dbw_command_batch = &db_m;
    r = call(fd, 11, &df);
    ck_assert_msg(r->body_case == PADDOCK__V1__FRAME__BODY_OK, "body %d: %s", (int)r->body_case,
                  r->body_case == PADDOCK__V1__FRAME__BODY_ERROR ? r->error->message : "");
    uint64_t drive_tick = r->ok->tick;
    paddock__v1__frame__free_unpacked(r, NULL);
    ck_assert_uint_gt(drive_tick, spawn_tick);

    close(fd);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
    /* The recording holds them: every vehicle spawned at the batch's
     * tick, the commands in the inputs of the drive's tick. */
    ck_assert_int_eq(rows_at(db,
                             "SELECT COUNT(*) FROM vehicles WHERE session_id = ?1 AND "
                             "spawn_tick = ?2",
                             sid, spawn_tick),
                     N);
    ck_assert_int_gt(rows_at(db, "SELECT COUNT(*) FROM inputs WHERE session_id = ?1 AND tick = ?2",
                             sid, drive_tick),
                     0);
    int rc = pdk_test_sh(out, sizeof(out), "%s verify --db %s %" PRIu64, PDK_PADDOCKD, db, sid);
    ck_assert_msg(rc == 0 && strstr(out, "match") != NULL, "verify (%d): %s", rc, out);
}
END_TEST

/* Each refusal names the entry and what was wrong, and spawns nothing. */
START_TEST(a_refused_entry_refuses_the_batch)
{
    const char *const extra[] = {"--max-spawns-per-tick", "4096", NULL};
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    int fd = connect_as(srv.port, "refused");
    uint64_t sid = create_session(fd, "small", "maxVehicles=8");
    spawn_batch b;

    spawn_batch_init(&b, sid, 5);
    b.spawns[3].preset = "no_such_car";
    expect_error(call(fd, 20, &b.f), PADDOCK__V1__ERROR_CODE__NOT_FOUND, "spawns[3]",
                 "no_such_car");
    b.spawns[3].preset = "midsize_sedan";
    b.spawns[2].overrides = "chassis.mass=-5";
    expect_error(call(fd, 21, &b.f), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE, "spawns[2]",
                 "chassis.mass");
    b.spawns[2].overrides = "";
    b.spawns[1].y_m = NAN;
    expect_error(call(fd, 22, &b.f), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE, "spawns[1]: x_m, y_m",
                 NULL);
    b.spawns[1].y_m = 0.0;
    b.spawns[4].gear = (Paddock__V1__Gear)9;
    expect_error(call(fd, 23, &b.f), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE, "spawns[4]: gear 9",
                 NULL);
    b.spawns[4].gear = PADDOCK__V1__GEAR__GEAR_DRIVE;
    /* Refused by the world's own check, before anything is queued. */
    b.spawns[0].speed_mps = 400.0;
    expect_error(call(fd, 27, &b.f), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE,
                 "spawns[0]: spawn refused", "speed_mps");
    spawn_batch_free(&b);
    ck_assert_uint_eq(vehicle_count(fd, sid), 0);

    /* No room: a world of 8 takes no batch of 9. */
    spawn_batch_init(&b, sid, 9);
    expect_error(call(fd, 24, &b.f), PADDOCK__V1__ERROR_CODE__CAPACITY, "room for 8 more vehicles",
                 NULL);
    spawn_batch_free(&b);
    spawn_batch_init(&b, sid, 0);
    expect_error(call(fd, 25, &b.f), PADDOCK__V1__ERROR_CODE__INVALID_ARGUMENT,
                 "VehicleSpawnBatch has no entries", NULL);
    spawn_batch_free(&b);
    ck_assert_uint_eq(vehicle_count(fd, sid), 0);

    /* Eight fit; then a DbwCommandBatch naming one vehicle that is not
     * there, or a bad gear, or more entries than a queue takes. */
    spawn_batch_init(&b, sid, 8);
    Paddock__V1__Frame *r = call(fd, 26, &b.f);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY);
    uint32_t first = r->vehicle_spawn_batch_reply->vehicle_ids[0];
    paddock__v1__frame__free_unpacked(r, NULL);
    spawn_batch_free(&b);
    enum { BIG = 4097 };
    Paddock__V1__DbwCommand *cmds = calloc(BIG, sizeof(*cmds));
    Paddock__V1__DbwCommand **cptr = calloc(BIG, sizeof(*cptr));
    ck_assert(cmds && cptr);
    for (size_t i = 0; i < BIG; i++) {
        paddock__v1__dbw_command__init(&cmds[i]);
        cmds[i].vehicle_id = first + (uint32_t)(i % 8);
        cmds[i].throttle_case = PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT;
        cmds[i].throttle_pct = 20.0;
        cptr[i] = &cmds[i];
    }
    Paddock__V1__DbwCommandBatch dm = PADDOCK__V1__DBW_COMMAND_BATCH__INIT;
    dm.session_id = sid;
    dm.commands = cptr;
    Paddock__V1__Frame df = PADDOCK__V1__FRAME__INIT;
    df.body_case = PADDOCK__V1__FRAME__BODY_DBW_COMMAND_BATCH;
    df.dbw_command_batch = &dm;
    dm.n_commands = 6;
    cmds[5].vehicle_id = 999;
    expect_error(call(fd, 30, &df), PADDOCK__V1__ERROR_CODE__STALE_ID,
                 "commands[5]: vehicle 999 is not in session", NULL);
    cmds[5].vehicle_id = first;
    cmds[2].gear = (Paddock__V1__Gear)12;
    expect_error(call(fd, 31, &df), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE, "commands[2]: gear 12",
                 NULL);
    cmds[2].gear = PADDOCK__V1__GEAR__GEAR_NONE;
    dm.n_commands = BIG;
    expect_error(call(fd, 32, &df), PADDOCK__V1__ERROR_CODE__OUT_OF_RANGE,
                 "DbwCommandBatch has 4097 entries", "at most 4096");
    dm.n_commands = 0;
    expect_error(call(fd, 33, &df), PADDOCK__V1__ERROR_CODE__INVALID_ARGUMENT,
                 "DbwCommandBatch has no entries", NULL);
    /* A batch no one refused still drives. */
    dm.n_commands = 8;
    r = call(fd, 34, &df);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_OK);
    paddock__v1__frame__free_unpacked(r, NULL);
    /* An entry refused when it applies (its vehicle removed by an input
     * queued before it, for the same tick): the one reply names it, and
     * says the others applied. */
    Paddock__V1__VehicleRemove rm = PADDOCK__V1__VEHICLE_REMOVE__INIT;
    rm.session_id = sid;
    rm.vehicle_id = first + 1;
    Paddock__V1__Frame rf = PADDOCK__V1__FRAME__INIT;
    rf.request_id = 35;
    rf.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_REMOVE;
    rf.vehicle_remove = &rm;
    dm.n_commands = 2;
    df.request_id = 36;
    send_two(fd, &rf, &df);
    r = recv_reply(fd);
    ck_assert_uint_eq(r->request_id, 35);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_OK);
    paddock__v1__frame__free_unpacked(r, NULL);
    r = recv_reply(fd);
    ck_assert_uint_eq(r->request_id, 36);
    expect_error(r, PADDOCK__V1__ERROR_CODE__STALE_ID, "commands[1] was refused when it applied",
                 "1 of the batch's 2 entries were refused, the others applied");
    free(cmds);
    free(cptr);
    close(fd);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

/* A batch spends its connection's budget per entry: 100 spawns at 2 a
 * tick hold the connection 50 ticks, so its next request (a spawn) is
 * applied that much later. Another connection is not held meanwhile. */
START_TEST(a_batch_spends_its_budget_per_entry)
{
    const char *const extra[] = {"--max-spawns-per-tick", "2", NULL};
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    int fd = connect_as(srv.port, "spender");
    int other = connect_as(srv.port, "bystander");
    uint64_t sid = create_session(fd, "budget", "");
    spawn_batch b;
    spawn_batch_init(&b, sid, 100);
    Paddock__V1__Frame *r = call(fd, 40, &b.f);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY);
    uint64_t batch_tick = r->vehicle_spawn_batch_reply->tick;
    paddock__v1__frame__free_unpacked(r, NULL);
    spawn_batch_free(&b);
    /* The bystander is not held. */
    ck_assert_uint_eq(vehicle_count(other, sid), 100);
    spawn_batch_init(&b, sid, 1);
    r = call(fd, 41, &b.f);
    ck_assert_int_eq(r->body_case, PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY);
    uint64_t next_tick = r->vehicle_spawn_batch_reply->tick;
    paddock__v1__frame__free_unpacked(r, NULL);
    spawn_batch_free(&b);
    /* Held until 50 ticks' budgets paid for the 100. The session's ticks
     * follow the same clock; half of them is the bound, so that a loaded
     * machine dropping some of the session's deadlines still passes. */
    ck_assert_msg(next_tick >= batch_tick + 25,
                  "the next spawn applied at tick %" PRIu64 ", the batch at %" PRIu64, next_tick,
                  batch_tick);
    close(fd);
    close(other);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("batch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, spawn_and_drive_a_hundred_cars_in_two_frames);
    tcase_add_test(tc, a_refused_entry_refuses_the_batch);
    tcase_add_test(tc, a_batch_spends_its_budget_per_entry);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
