/* Unit tests of the store's exact-replay part (migration 0002): keyframe
 * snapshots, the new session fields, marking interrupted sessions, export and
 * import of standalone session files with every error path, the writer's
 * throughput for per-tick state hashes, and kill -9 while recording. All on
 * real SQLite files in fresh temporary folders. */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "import_check.h"
#include "store.h"
#include "sql_test_util.h"

#define MIGRATIONS PDK_SOURCE_DIR "/migrations"
#define BUILD_ID "0.1.0+test"

/* ---- Helpers: temporary folders, files, raw SQLite ---- */

static char g_tmp[256];

static void tmp_setup(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/pdk-test-store-replay-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void tmp_teardown(void)
{
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* g_tmp/rel in a static rotating buffer (several may be alive at once). */
static const char *tmp_path(const char *rel)
{
    static char bufs[64][512];
    static int next;
    char *b = bufs[next++ % 64];
    snprintf(b, 512, "%s/%s", g_tmp, rel);
    return b;
}

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* Entries of g_tmp whose name contains part. */
static int count_entries(const char *part)
{
    DIR *d = opendir(g_tmp);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        n += strstr(e->d_name, part) != NULL;
    }
    closedir(d);
    return n;
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    FILE *out = fopen(to, "wb");
    ck_assert_msg(in && out, "copy %s -> %s", from, to);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    }
    fclose(in);
    fclose(out);
}

/* PRAGMA integrity_check of path is "ok". */
static void assert_intact(const char *path)
{
    sqlite3 *db = raw_open(path);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    const char *v = (const char *)sqlite3_column_text(st, 0);
    ck_assert_msg(v && strcmp(v, "ok") == 0, "%s: integrity_check: %s", path, v ? v : "?");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static pdk_store *open_ok(const char *path, const char *dir)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_open(path, dir, &s, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "open %s: %s: %s", path, pdk_error_name(rc), err);
    return s;
}

static pdk_store_session session_def(uint64_t id, const char *name)
{
    pdk_store_session s = {
        .session_id = id,
        .name = name,
        .timing = "realtime",
        .world_preset = "flat",
        .world_json = "{\"gravity_mps2\":9.81}",
        .build_id = BUILD_ID,
        .dt_s = 1.0 / 120.0,
        .substeps = 4,
        .created_unix_ms = 1700000000000,
    };
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static pdk_store_session_info read_info(pdk_store *s, uint64_t id)
{
    pdk_store_session_info info;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_read_session(s, id, &info, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "read_session %llu: %s", (unsigned long long)id, err);
    return info;
}

/* ---- Collecting what the read API hands out ---- */

typedef struct keyframe_seen {
    uint64_t tick;
    uint64_t hash;
    uint64_t layout;
    size_t len;
} keyframe_seen;

typedef struct keyframes_ctx {
    keyframe_seen rows[16];
    size_t n;
} keyframes_ctx;

static pdk_error collect_keyframe(void *ctx, uint64_t tick, uint64_t hash, uint64_t layout,
                                  size_t len)
{
    keyframes_ctx *c = ctx;
    if (c->n < 16) {
        c->rows[c->n] = (keyframe_seen){tick, hash, layout, len};
    }
    c->n++;
    return PDK_OK;
}

/* Everything of one session as a text dump, to compare two files' copies:
 * the session's own fields (not its id), vehicles, inputs, hashes and
 * keyframes with their blobs. */
typedef struct dump {
    char *text;
    size_t len;
    size_t cap;
} dump;

static void dumpf(dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void dumpf(dump *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    size_t len = strlen(line);
    if (d->len + len + 1 > d->cap) {
        d->cap = (d->len + len + 1) * 2;
        d->text = realloc(d->text, d->cap);
        ck_assert_ptr_nonnull(d->text);
    }
    memcpy(d->text + d->len, line, len + 1);
    d->len += len;
}

static void dump_bytes(dump *d, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++) {
        dumpf(d, "%02x", b[i]);
    }
    dumpf(d, "\n");
}

static pdk_error dump_vehicle(void *ctx, const pdk_store_vehicle_row *v)
{
    dumpf(ctx, "vehicle %u spawn %llu removed %d/%llu %s %s %s\n", v->vehicle_id,
          (unsigned long long)v->spawn_tick, v->removed, (unsigned long long)v->removed_tick,
          v->preset, v->overrides, v->params_json);
    return PDK_OK;
}

static pdk_error dump_input(void *ctx, uint64_t tick, uint32_t seq, int kind, const void *p,
                            size_t len)
{
    dumpf(ctx, "input %llu %u %d %zu ", (unsigned long long)tick, seq, kind, len);
    dump_bytes(ctx, p, len);
    return PDK_OK;
}

static pdk_error dump_hash(void *ctx, uint64_t tick, uint64_t hash)
{
    dumpf(ctx, "hash %llu %llu\n", (unsigned long long)tick, (unsigned long long)hash);
    return PDK_OK;
}

typedef struct dump_keyframes_ctx {
    dump *d;
    uint64_t ticks[64];
    size_t n;
} dump_keyframes_ctx;

static pdk_error dump_keyframe(void *ctx, uint64_t tick, uint64_t hash, uint64_t layout, size_t len)
{
    dump_keyframes_ctx *c = ctx;
    dumpf(c->d, "keyframe %llu %llu %llu %zu\n", (unsigned long long)tick, (unsigned long long)hash,
          (unsigned long long)layout, len);
    if (c->n < 64) {
        c->ticks[c->n++] = tick;
    }
    return PDK_OK;
}

static char *dump_session(pdk_store *s, uint64_t id)
{
    dump d = {0};
    char err[PDK_STORE_ERR_LEN];
    pdk_store_session_info info = read_info(s, id);
    const pdk_store_session *ss = &info.session;
    dumpf(&d, "session %s %s %s %s %s %.17g %d %lld start %llu parent %llu/%llu kf %u\n", ss->name,
          ss->timing, ss->world_preset, ss->world_json, ss->build_id, ss->dt_s, ss->substeps,
          (long long)ss->created_unix_ms, (unsigned long long)ss->start_tick,
          (unsigned long long)ss->parent_session_id, (unsigned long long)ss->parent_tick,
          ss->keyframe_every_ticks);
    dumpf(&d, "ended %d interrupted %d last %llu final %llu %llu closed %lld\n", info.ended,
          info.interrupted, (unsigned long long)info.last_tick, (unsigned long long)info.final_tick,
          (unsigned long long)info.final_hash, (long long)info.closed_unix_ms);
    pdk_store_session_info_free(&info);
    ck_assert_int_eq(pdk_store_read_vehicles(s, id, dump_vehicle, &d, err, sizeof err), PDK_OK);
    ck_assert_int_eq(pdk_store_read_inputs(s, id, dump_input, &d, err, sizeof err), PDK_OK);
    ck_assert_int_eq(pdk_store_read_hashes(s, id, dump_hash, &d, err, sizeof err), PDK_OK);
    dump_keyframes_ctx kc = {.d = &d};
    ck_assert_int_eq(pdk_store_read_keyframes(s, id, dump_keyframe, &kc, err, sizeof err), PDK_OK);
    for (size_t i = 0; i < kc.n; i++) {
        void *blob = NULL;
        size_t len = 0;
        ck_assert_int_eq(pdk_store_read_snapshot(s, id, kc.ticks[i], &blob, &len, err, sizeof err),
                         PDK_OK);
        dump_bytes(&d, blob, len);
        free(blob);
    }
    return d.text;
}

/* Fills session id with vehicles, inputs (one with an empty payload),
 * hashes (some >= 2^63), keyframes and, when ended, its end. Flushes. */
static void record_full_session(pdk_store *s, uint64_t id, int ticks, int ended)
{
    pdk_store_session def = session_def(id, "full");
    def.start_tick = 600;
    def.parent_session_id = 7;
    def.parent_tick = 600;
    def.keyframe_every_ticks = 120;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    ck_assert_int_eq(
        pdk_store_record_vehicle(s, id, 1, 600, "kart", "{\"mass_kg\":90}", "{\"resolved\":1}"),
        PDK_OK);
    ck_assert_int_eq(pdk_store_record_vehicle(s, id, 2, 610, "utv", NULL, "{\"resolved\":2}"),
                     PDK_OK);
    for (int i = 0; i < ticks; i++) {
        uint64_t tick = 600 + (uint64_t)i;
        unsigned char payload[48];
        for (size_t b = 0; b < sizeof payload; b++) {
            payload[b] = (unsigned char)(i * 31 + (int)b);
        }
        if (i % 3 == 0) {
            ck_assert_int_eq(
                pdk_store_record_input(s, id, tick, 0, 2, payload, sizeof payload - (size_t)i % 7),
                PDK_OK);
        }
        if (i == 5) {
            ck_assert_int_eq(pdk_store_record_input(s, id, tick, 1, 3, NULL, 0), PDK_OK);
        }
        uint64_t hash = 0x9E3779B97F4A7C15ull * (tick + 1);
        ck_assert_int_eq(pdk_store_record_hash(s, id, tick, hash), PDK_OK);
        if (i % 120 == 0) {
            unsigned char blob[3000];
            for (size_t b = 0; b < sizeof blob; b++) {
                blob[b] = (unsigned char)(b * 7 + (size_t)i);
            }
            ck_assert_int_eq(pdk_store_record_snapshot(s, id, tick, hash, 0xF00DF00DF00DF00Dull,
                                                       blob, sizeof blob - (size_t)i % 11),
                             PDK_OK);
        }
    }
    if (ticks > 20) {
        ck_assert_int_eq(pdk_store_record_vehicle_removed(s, id, 2, 620), PDK_OK);
    }
    if (ended) {
        ck_assert_int_eq(
            pdk_store_record_session_end(s, id, 600 + (uint64_t)ticks - 1, 42, 1700000099000),
            PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 0);
}

/* Rows of every session table that belong to no session the file lists,
 * plus the sessions themselves: what a failed import must not change. */
static int64_t all_rows(const char *path)
{
    return file_int(path, "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM "
                          "vehicles) + (SELECT COUNT(*) FROM inputs) + (SELECT COUNT(*) FROM "
                          "state_hashes) + (SELECT COUNT(*) FROM snapshots) + (SELECT COUNT(*) "
                          "FROM build)");
}

/* ---- Migrations 0002 and 0003 on an older file ---- */

START_TEST(test_migration_keeps_0001_rows)
{
    /* A file as a server before migration 0002 left it, made without the
     * store (which needs the newest schema): 0001 applied and recorded,
     * its inputs written out of key order (0003 copies them into a table
     * of their key). */
    const char *path = tmp_path("paddock.db");
    FILE *f = fopen(MIGRATIONS "/0001_initial.sql", "rb");
    ck_assert_ptr_nonnull(f);
    static char sql[65536];
    size_t n = fread(sql, 1, sizeof sql - 1, f);
    fclose(f);
    sql[n] = '\0';
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
                     SQLITE_OK);
    raw_exec(db, "PRAGMA journal_mode=WAL");
    raw_exec(db, sql);
    raw_exec(db, "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT "
                 "NULL, applied_unix_ms INTEGER NOT NULL);"
                 "INSERT INTO schema_migrations VALUES (1, 'initial', 1700000000000);"
                 "INSERT INTO build VALUES ('0.0.9+old', 1700000000000);"
                 "INSERT INTO sessions(session_id, name, timing, world_preset, world_json, "
                 "build_id, dt_s, substeps, created_unix_ms) VALUES (1, 'before replay', "
                 "'realtime', 'flat', '{}', '0.0.9+old', 0.008333, 4, 1700000000000);"
                 "INSERT INTO vehicles(session_id, vehicle_id, spawn_tick, preset, overrides, "
                 "params_json) VALUES (1, 1, 0, 'kart', '', '{}');"
                 "INSERT INTO inputs VALUES (1, 5, 0, 1, x'63');"
                 "INSERT INTO inputs VALUES (1, 3, 0, 1, x'6162');"
                 "INSERT INTO inputs VALUES (1, 4, 1, 1, x'65');"
                 "INSERT INTO inputs VALUES (1, 4, 0, 1, x'64');"
                 "WITH RECURSIVE t(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM t WHERE x < 9) "
                 "INSERT INTO state_hashes SELECT 1, x, x * 11 FROM t;");
    sqlite3_close(db);

    pdk_store *s = open_ok(path, MIGRATIONS);
    ck_assert_int_eq(pdk_store_schema_version(s), 6);
    pdk_store_session_info info = read_info(s, 1);
    ck_assert_str_eq(info.session.name, "before replay");
    ck_assert_uint_eq(info.session.start_tick, 0);
    ck_assert_uint_eq(info.session.parent_session_id, 0);
    ck_assert_uint_eq(info.session.parent_tick, 0);
    ck_assert_uint_eq(info.session.keyframe_every_ticks, 0);
    ck_assert_int_eq(info.interrupted, 0);
    ck_assert_int_eq(info.ended, 0);
    ck_assert_uint_eq(info.last_tick, 9);
    pdk_store_session_info_free(&info);
    char *d = dump_session(s, 1);
    ck_assert_msg(strstr(d, "input 3 0 1 2 6162\ninput 4 0 1 1 64\ninput 4 1 1 1 65\n"
                            "input 5 0 1 1 63\n") &&
                      strstr(d, "hash 9 99\n") && strstr(d, "vehicle 1 spawn 0") &&
                      !strstr(d, "keyframe"),
                  "%s", d);
    free(d);
    pdk_store_close(s);
    assert_intact(path);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'inputs' "
                                    "AND sql LIKE '%WITHOUT ROWID%'"),
                     1);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE "
                                    "'inputs_by_key%'"),
                     0);
}
END_TEST

/* ---- Recording ---- */

START_TEST(test_session_fields_round_trip)
{
    pdk_store *s = open_ok(tmp_path("p.db"), MIGRATIONS);
    pdk_store_session def = session_def(1, "fork");
    def.start_tick = 0xFFFFFFFFFFFFFFF0ull; /* bits above 2^63 survive */
    def.parent_session_id = 0x8000000000000001ull;
    def.parent_tick = 1234;
    def.keyframe_every_ticks = UINT32_MAX;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_session_info info = read_info(s, 1);
    ck_assert_uint_eq(info.session.start_tick, def.start_tick);
    ck_assert_uint_eq(info.session.parent_session_id, def.parent_session_id);
    ck_assert_uint_eq(info.session.parent_tick, 1234);
    ck_assert_uint_eq(info.session.keyframe_every_ticks, UINT32_MAX);
    ck_assert_uint_eq(info.last_tick, 0); /* no hash yet */
    pdk_store_session_info_free(&info);
    pdk_store_close(s);
}
END_TEST

/* Inputs and hashes recorded in batches read back as rows of their own. */
typedef struct batch_rows {
    uint64_t ticks[16];
    uint32_t seqs[16];
    int kinds[16];
    size_t lens[16];
    unsigned char first[16];
    size_t n;
} batch_rows;

static pdk_error collect_input(void *ctx, uint64_t tick, uint32_t seq, int kind,
                               const void *payload, size_t len)
{
    batch_rows *b = ctx;
    ck_assert_uint_lt(b->n, 16);
    b->ticks[b->n] = tick;
    b->seqs[b->n] = seq;
    b->kinds[b->n] = kind;
    b->lens[b->n] = len;
    b->first[b->n] = len ? ((const unsigned char *)payload)[0] : 0;
    b->n++;
    return PDK_OK;
}

static pdk_error collect_hash(void *ctx, uint64_t tick, uint64_t hash)
{
    batch_rows *b = ctx;
    ck_assert_uint_lt(b->n, 16);
    ck_assert_uint_eq(hash, tick * 3u + 1u);
    b->ticks[b->n++] = tick;
    return PDK_OK;
}

START_TEST(test_batched_inputs_and_hashes)
{
    const char *path = tmp_path("b.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "batches");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    /* Three inputs of tick 7, the second with an empty payload. */
    unsigned char packed[64];
    size_t at = 0;
    const uint32_t entries[3][3] = {{0, 3, 2}, {1, 5, 0}, {2, 4, 1}};
    for (int i = 0; i < 3; i++) {
        memcpy(packed + at, entries[i], sizeof entries[i]);
        at += sizeof entries[i];
        memset(packed + at, 0xC0 + i, entries[i][2]);
        at += entries[i][2];
    }
    ck_assert_int_eq(pdk_store_record_inputs(s, 1, 7, packed, at), PDK_OK);
    uint64_t hashes[5];
    for (uint64_t i = 0; i < 5; i++) {
        hashes[i] = (10 + i) * 3u + 1u;
    }
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 10, hashes, 5), PDK_OK);
    /* Refused before anything is queued: entries that do not fill the
     * bytes, none at all, too many hashes. */
    ck_assert_int_eq(pdk_store_record_inputs(s, 1, 8, packed, at - 1), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_inputs(s, 1, 8, packed, 5), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_inputs(s, 1, 8, packed, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 20, hashes, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 20, NULL, 1), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 20, hashes, PDK_STORE_MAX_HASHES + 1),
                     PDK_ERR_INVALID_ARGUMENT);
    /* A batch overlapping committed ticks: its rows from the duplicate on
     * are refused and counted, the rest of the file is untouched. */
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 14, hashes, 2), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 1);
    char err[PDK_STORE_ERR_LEN];
    batch_rows in = {0};
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, collect_input, &in, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(in.n, 3);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(in.ticks[i], 7);
        ck_assert_uint_eq(in.seqs[i], entries[i][0]);
        ck_assert_int_eq(in.kinds[i], (int)entries[i][1]);
        ck_assert_uint_eq(in.lens[i], entries[i][2]);
        ck_assert_uint_eq(in.first[i], entries[i][2] ? 0xC0 + i : 0);
    }
    batch_rows hs = {0};
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, collect_hash, &hs, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(hs.n, 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(hs.ticks[i], 10 + i);
    }
    pdk_store_close(s);
}
END_TEST

/* A tick's record (pdk_store_record_tick): the hashes held, then the
 * tick's inputs, rows in that order; either part may be empty, not both;
 * a refused hash row refuses the inputs after it too. */
START_TEST(test_tick_record_hashes_then_inputs)
{
    const char *path = tmp_path("t.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "ticks");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    uint64_t hashes[4];
    for (uint64_t i = 0; i < 4; i++) {
        hashes[i] = (5 + i) * 3u + 1u;
    }
    unsigned char packed[32];
    const uint32_t head[2][3] = {{0, 3, 1}, {1, 4, 1}};
    size_t at = 0;
    for (int i = 0; i < 2; i++) {
        memcpy(packed + at, head[i], sizeof head[i]);
        at += sizeof head[i];
        packed[at++] = (unsigned char)(0xA0 + i);
    }
    /* Hashes of ticks 5 to 8 and the inputs of tick 8; then hashes alone,
     * inputs alone. */
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 5, hashes, 4, 8, packed, at), PDK_OK);
    uint64_t more = 9u * 3u + 1u;
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 9, &more, 1, 0, NULL, 0), PDK_OK);
    const uint32_t later[3] = {2, 5, 0};
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 0, NULL, 0, 10, later, sizeof later), PDK_OK);
    /* Refused before anything is queued. */
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 0, NULL, 0, 11, NULL, 0),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 11, NULL, 2, 11, packed, at),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 11, hashes, 1, 11, packed, at - 1),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(
        pdk_store_record_tick(s, 1, 11, hashes, PDK_STORE_MAX_HASHES + 1, 11, packed, at),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_tick(NULL, 1, 11, hashes, 1, 11, packed, at),
                     PDK_ERR_INVALID_ARGUMENT);
    /* Hashes from tick 8 again: refused at their first row, and the inputs
     * of tick 12 after them with it. */
    const uint32_t lost[3] = {3, 5, 0};
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 8, &hashes[3], 1, 12, lost, sizeof lost), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 1);
    char err[PDK_STORE_ERR_LEN];
    batch_rows hs = {0};
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, collect_hash, &hs, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(hs.n, 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(hs.ticks[i], 5 + i);
    }
    batch_rows in = {0};
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, collect_input, &in, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(in.n, 3);
    const uint64_t ticks[3] = {8, 8, 10};
    const uint32_t seqs[3] = {0, 1, 2};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(in.ticks[i], ticks[i]);
        ck_assert_uint_eq(in.seqs[i], seqs[i]);
    }
    ck_assert_uint_eq(in.first[0], 0xA0);
    ck_assert_uint_eq(in.first[1], 0xA1);
    pdk_store_close(s);
}
END_TEST

/* The grouped-insert test's rows: record k (0 to 30) holds the inputs of
 * tick 100 + k, k + 1 of them, seq counting on from 0 across records, and
 * before them k + 1 hashes of the ticks counting on from 1000. Each input's
 * kind, payload length and bytes follow its seq. */
#define GROUPED_RECORDS 31u

static uint64_t grouped_hash(uint64_t tick)
{
    return tick * UINT64_C(0x9E3779B97F4A7C15);
}

typedef struct grouped_read {
    uint64_t n;
    uint64_t last_tick;
} grouped_read;

static pdk_error grouped_input(void *ctx, uint64_t tick, uint32_t seq, int kind,
                               const void *payload, size_t len)
{
    grouped_read *g = ctx;
    ck_assert_uint_eq(seq, g->n); /* every row, in order */
    uint64_t k = 0;
    while ((k + 1) * (k + 2) / 2 <= seq) {
        k++;
    }
    ck_assert_uint_eq(tick, 100 + k);
    ck_assert_int_eq(kind, (int)(1 + seq % 7));
    ck_assert_uint_eq(len, seq % 8);
    for (size_t b = 0; b < len; b++) {
        ck_assert_uint_eq(((const unsigned char *)payload)[b], (unsigned char)(seq * 31u + b));
    }
    g->n++;
    return PDK_OK;
}

static pdk_error grouped_hash_row(void *ctx, uint64_t tick, uint64_t hash)
{
    grouped_read *g = ctx;
    ck_assert_uint_eq(hash, grouped_hash(tick));
    ck_assert_uint_gt(tick, g->last_tick);
    g->last_tick = tick;
    g->n++;
    return PDK_OK;
}

/* A record's rows go to SQLite in statements of 16, 8, 4, 2 and 1 rows
 * (store.c row_group): records of every length from 1 to 31 rows read back
 * row for row, every field in its place. A refused row refuses its
 * statement's group and the rest of the record; the groups before it
 * stay. */
START_TEST(test_grouped_rows_read_back_row_for_row)
{
    const char *path = tmp_path("g.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "groups");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    unsigned char packed[GROUPED_RECORDS * 20];
    uint64_t hashes[GROUPED_RECORDS];
    uint32_t seq = 0;
    uint64_t hash_tick = 1000;
    for (uint32_t k = 0; k < GROUPED_RECORDS; k++) {
        size_t at = 0;
        for (uint32_t j = 0; j <= k; j++, seq++) {
            const uint32_t head[3] = {seq, 1 + seq % 7, seq % 8};
            memcpy(packed + at, head, sizeof head);
            at += sizeof head;
            for (uint32_t b = 0; b < head[2]; b++) {
                packed[at++] = (unsigned char)(seq * 31u + b);
            }
            hashes[j] = grouped_hash(hash_tick + j);
        }
        ck_assert_int_eq(pdk_store_record_tick(s, 1, hash_tick, hashes, k + 1, 100 + k, packed, at),
                         PDK_OK);
        hash_tick += k + 1;
    }
    const uint64_t rows = GROUPED_RECORDS * (GROUPED_RECORDS + 1) / 2; /* 496 of each */

    /* Tick 2011's hash alone, then 23 hashes from tick 1990 (groups of
     * 16, 4, 2 and 1) and three inputs of tick 2012: the group of 2010 and
     * 2011 is refused whole, and with it the last hash and the inputs. */
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 2011, grouped_hash(2011)), PDK_OK);
    for (uint64_t j = 0; j < 23; j++) {
        hashes[j] = grouped_hash(1990 + j);
    }
    size_t at = 0;
    for (uint32_t j = 0; j < 3; j++) {
        const uint32_t head[3] = {5000 + j, 1, 0};
        memcpy(packed + at, head, sizeof head);
        at += sizeof head;
    }
    ck_assert_int_eq(pdk_store_record_tick(s, 1, 1990, hashes, 23, 2012, packed, at), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 1);

    char err[PDK_STORE_ERR_LEN];
    grouped_read in = {0, 0};
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, grouped_input, &in, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(in.n, rows); /* none of tick 2012's */
    grouped_read hs = {0, 0};
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, grouped_hash_row, &hs, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(hs.n, rows + 16 + 4 + 1); /* 1990..2009 and 2011's own */
    ck_assert_uint_eq(hs.last_tick, 2011);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM state_hashes WHERE tick >= 1990"), 21);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_snapshots_round_trip)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "keyframes");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    /* Queued out of tick order; read back in tick order. */
    const uint64_t ticks[] = {240, 0, 120, 360};
    for (size_t i = 0; i < 4; i++) {
        unsigned char blob[1000];
        memset(blob, (int)(0xA0 + i), sizeof blob);
        size_t len = ticks[i] == 360 ? 0 : 100 * (i + 1);
        ck_assert_int_eq(pdk_store_record_snapshot(s, 1, ticks[i], UINT64_MAX - ticks[i],
                                                   ticks[i] + 77, len ? blob : NULL, len),
                         PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    keyframes_ctx kc = {0};
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_keyframes(s, 1, collect_keyframe, &kc, err, sizeof err),
                     PDK_OK);
    ck_assert_uint_eq(kc.n, 4);
    const uint64_t want_ticks[] = {0, 120, 240, 360};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(kc.rows[i].tick, want_ticks[i]);
        ck_assert_uint_eq(kc.rows[i].hash, UINT64_MAX - want_ticks[i]);
        ck_assert_uint_eq(kc.rows[i].layout, want_ticks[i] + 77);
    }
    /* The listing says the bytes stored: a run of one byte packs to a few
     * dozen (encoding 1, zstd); the empty keyframe stays as it is. */
    ck_assert_uint_gt(kc.rows[1].len, 0);
    ck_assert_uint_lt(kc.rows[1].len, 64);
    ck_assert_uint_eq(kc.rows[3].len, 0);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM snapshots WHERE encoding = 1"), 3);
    ck_assert_int_eq(file_int(path, "SELECT encoding FROM snapshots WHERE tick = 360"), 0);
    void *blob = NULL;
    size_t len = 0;
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 120, &blob, &len, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(len, 300);
    for (size_t i = 0; i < len; i++) {
        ck_assert_uint_eq(((unsigned char *)blob)[i], 0xA2);
    }
    free(blob);
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 360, &blob, &len, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(len, 0);
    ck_assert_ptr_nonnull(blob); /* an empty keyframe still gets a pointer to free */
    free(blob);

    /* Exact tick only, and each miss says what was missing. */
    blob = (void *)&len;
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 121, &blob, &len, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_ptr_null(blob);
    ck_assert_msg(strstr(err, "no keyframe at tick 121") != NULL, "%s", err);
    ck_assert_int_eq(pdk_store_read_snapshot(s, 9, 0, &blob, &len, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_msg(strstr(err, "no session 9") != NULL, "%s", err);
    ck_assert_int_eq(pdk_store_read_keyframes(s, 9, collect_keyframe, &kc, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 0, NULL, &len, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_read_keyframes(s, 1, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 5, 0, 0, NULL, 3), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot(NULL, 1, 5, 0, 0, NULL, 0),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 5, 0, 0, &len, PDK_STORE_MAX_FIELD_BYTES + 1u),
                     PDK_ERR_OUT_OF_RANGE);

    /* A duplicate tick and a keyframe of no session are refused, the others
     * go on. */
    unsigned char one = 1;
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 120, 0, 0, &one, 1), PDK_OK);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 99, 0, 0, 0, &one, 1), PDK_OK);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 480, 0, 0, &one, 1), PDK_OK);
    fflush(stderr);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 2);
    kc.n = 0;
    ck_assert_int_eq(pdk_store_read_keyframes(s, 1, collect_keyframe, &kc, err, sizeof err),
                     PDK_OK);
    ck_assert_uint_eq(kc.n, 5);
    pdk_store_close(s);
    /* The first keyframe at 120 (300 bytes, packed) stands, not the
     * one-byte duplicate (kept as it is). */
    ck_assert_int_eq(file_int(path, "SELECT encoding FROM snapshots WHERE tick = 120"), 1);
}
END_TEST

/* A keyframe handed over (pdk_store_record_snapshot_take) is stored as a
 * copied one is; its block comes back as a spare once written, whatever the
 * keyframe's fate (a refused duplicate's too); refused arguments and a
 * closed store leave the block with its caller. */
START_TEST(test_snapshot_handed_over_comes_back_as_a_spare)
{
    const char *path = tmp_path("take.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "handed over");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    size_t cap = 0;
    ck_assert_ptr_null(pdk_store_spare_take(s, 1, &cap)); /* none yet */
    ck_assert_uint_eq(cap, 0);

    unsigned char *block = malloc(4096);
    ck_assert_ptr_nonnull(block);
    memset(block, 0x5A, 4096);
    void *blob = block;
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 120, 7, 9, &blob, 1000, 4096), PDK_OK);
    ck_assert_ptr_null(blob);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    char err[PDK_STORE_ERR_LEN];
    void *got = NULL;
    size_t len = 0;
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 120, &got, &len, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(len, 1000);
    for (size_t i = 0; i < len; i++)
        ck_assert_uint_eq(((unsigned char *)got)[i], 0x5A);
    free(got);
    unsigned char *spare = pdk_store_spare_take(s, 1, &cap);
    ck_assert_ptr_eq(spare, block);
    ck_assert_uint_eq(cap, 4096);
    ck_assert_ptr_null(pdk_store_spare_take(s, 1, &cap));

    /* A duplicate tick is refused by SQLite; its block comes back all the same. */
    blob = spare;
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 120, 7, 9, &blob, 10, 4096), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    ck_assert_ptr_eq(pdk_store_spare_take(s, 1, &cap), block);

    /* More written than the store keeps: the rest are freed (ASan would say
     * otherwise), the spares it keeps come back once each. */
    for (int i = 0; i < PDK_STORE_SPARES + 2; i++) {
        void *b = i == 0 ? block : malloc(64);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 240 + (uint64_t)i, 0, 0, &b, 1,
                                                        i == 0 ? 4096 : 64),
                         PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    int back = 0;
    void *b;
    while ((b = pdk_store_spare_take(s, 1, &cap)) != NULL) {
        free(b);
        back++;
    }
    ck_assert_int_eq(back, PDK_STORE_SPARES);

    /* Refused: the block stays the caller's. */
    unsigned char *mine = malloc(16);
    ck_assert_ptr_nonnull(mine);
    blob = mine;
    ck_assert_int_eq(pdk_store_record_snapshot_take(NULL, 1, 1, 0, 0, &blob, 1, 16),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 1, 0, 0, &blob, 17, 16),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 1, 0, 0, NULL, 1, 16),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 1, 0, 0, &blob,
                                                    PDK_STORE_MAX_FIELD_BYTES + 1u,
                                                    PDK_STORE_MAX_FIELD_BYTES + 1u),
                     PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_eq(blob, mine);
    void *none = NULL;
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 1, 0, 0, &none, 0, 0),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(pdk_store_spare_take(NULL, 1, &cap));
    pdk_store_shutdown(s);
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 1, 1, 0, 0, &blob, 1, 16), PDK_ERR_CLOSED);
    ck_assert_ptr_eq(blob, mine);
    free(mine);
    pdk_store_close(s);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM snapshots"), 1 + PDK_STORE_SPARES + 2);
}
END_TEST

/* Spares asked for (pdk_store_spare_want): the writer makes one for each
 * session that asks, grown from that session's own or a new block, and a
 * take gives each session its own, the one it asked for, before the
 * warmer blocks of others; a second ask of the same session replaces its
 * first; an ask already met makes nothing; with every spare another
 * session's, the coldest of them is taken. */
START_TEST(test_spares_are_made_for_the_sessions_that_ask)
{
    const char *path = tmp_path("want.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    for (uint64_t id = 1; id <= 3; id++) {
        pdk_store_session def = session_def(id, "asks");
        ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    }
    /* Session 3's written keyframe leaves a block of its own, 64 KB warm. */
    unsigned char *three = malloc(65536);
    ck_assert_ptr_nonnull(three);
    memset(three, 0x33, 65536);
    void *blob = three;
    ck_assert_int_eq(pdk_store_record_snapshot_take(s, 3, 120, 7, 9, &blob, 65536, 65536), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);

    pdk_store_spare_want(s, 1, 100000);
    pdk_store_spare_want(s, 2, 1000);
    pdk_store_spare_want(s, 2, 300000); /* replaces its 1000 */
    pdk_store_spare_want(s, 3, 4096);   /* met already by its own block */
    pdk_store_spare_want(NULL, 1, 10);  /* nothing */
    pdk_store_spare_want(s, 1, 0);      /* nothing */
    /* The writer makes them when it wakes: a record and a flush wake it. */
    uint64_t h = 1;
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 1, &h, 1), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);

    size_t cap = 0;
    unsigned char *two = pdk_store_spare_take(s, 2, &cap);
    ck_assert_ptr_nonnull(two);
    ck_assert_uint_ge(cap, 300000);
    memset(two, 0x22, cap); /* all of it the caller's */
    unsigned char *one = pdk_store_spare_take(s, 1, &cap);
    ck_assert_ptr_nonnull(one);
    ck_assert_uint_ge(cap, 100000);
    ck_assert_ptr_ne(one, two);
    ck_assert_ptr_eq(pdk_store_spare_take(s, 3, &cap), three);
    ck_assert_uint_eq(cap, 65536);
    ck_assert_ptr_null(pdk_store_spare_take(s, 3, &cap)); /* nothing left */
    free(one);
    free(two);
    free(three);

    /* Every spare session 3's (an ended session's, say): an ask of
     * session 1 grows the coldest of them for itself. */
    for (int i = 0; i < PDK_STORE_SPARES; i++) {
        size_t bytes = 4096 * (size_t)(i + 1);
        void *b = malloc(bytes);
        ck_assert_ptr_nonnull(b);
        memset(b, 0x44, bytes);
        ck_assert_int_eq(
            pdk_store_record_snapshot_take(s, 3, 240 + (uint64_t)i, 0, 0, &b, bytes, bytes),
            PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_spare_want(s, 1, 200000);
    ck_assert_int_eq(pdk_store_record_hashes(s, 1, 2, &h, 1), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    one = pdk_store_spare_take(s, 1, &cap);
    ck_assert_ptr_nonnull(one);
    ck_assert_uint_ge(cap, 200000);
    free(one);
    int left = 0;
    void *b;
    while ((b = pdk_store_spare_take(s, 3, &cap)) != NULL) {
        ck_assert_uint_ge(cap, 8192); /* the coldest, 4096, went to session 1 */
        free(b);
        left++;
    }
    ck_assert_int_eq(left, PDK_STORE_SPARES - 1);
    pdk_store_close(s);
}
END_TEST

/* A keyframe that does not pack smaller is stored as it is; a stored one
 * whose zstd frame is damaged, or whose encoding this build does not know,
 * is refused naming the keyframe, not handed over half-read. */
START_TEST(test_keyframe_encodings)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "encodings");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    unsigned char noise[4096];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof noise; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise[i] = (unsigned char)x;
    }
    unsigned char same[4096];
    memset(same, 0x5A, sizeof same);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 0, 1, 2, noise, sizeof noise), PDK_OK);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 1, 120, 1, 2, same, sizeof same), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    ck_assert_int_eq(file_int(path, "SELECT encoding FROM snapshots WHERE tick = 0"), 0);
    ck_assert_int_eq(file_int(path, "SELECT length(blob) FROM snapshots WHERE tick = 0"), 4096);
    ck_assert_int_eq(file_int(path, "SELECT encoding FROM snapshots WHERE tick = 120"), 1);
    char err[PDK_STORE_ERR_LEN];
    void *blob = NULL;
    size_t len = 0;
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 0, &blob, &len, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(len, sizeof noise);
    ck_assert_mem_eq(blob, noise, sizeof noise);
    free(blob);
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 120, &blob, &len, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(len, sizeof same);
    ck_assert_mem_eq(blob, same, sizeof same);
    free(blob);

    file_exec(path, "UPDATE snapshots SET blob = substr(blob, 1, length(blob) - 3) WHERE tick = 120");
    blob = (void *)&len;
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 120, &blob, &len, err, sizeof err),
                     PDK_ERR_DB);
    ck_assert_ptr_null(blob);
    ck_assert_msg(strstr(err, "the keyframe of session 1 at tick 120 does not unpack"), "%s", err);
    file_exec(path, "UPDATE snapshots SET blob = x'00010203' WHERE tick = 120");
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 120, &blob, &len, err, sizeof err),
                     PDK_ERR_DB);
    ck_assert_msg(strstr(err, "at tick 120 is not a zstd frame of at most"), "%s", err);
    file_exec(path, "UPDATE snapshots SET encoding = 7 WHERE tick = 0");
    ck_assert_int_eq(pdk_store_read_snapshot(s, 1, 0, &blob, &len, err, sizeof err), PDK_ERR_DB);
    ck_assert_msg(strstr(err, "has encoding 7, which this build does not know"), "%s", err);
    pdk_store_close(s);
}
END_TEST

/* ---- Interrupted sessions ---- */

START_TEST(test_mark_interrupted)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    for (uint64_t id = 1; id <= 3; id++) {
        pdk_store_session def = session_def(id, "s");
        ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    }
    /* 1: hashes, no end (killed). 2: ended. 3: nothing but its row. */
    for (uint64_t t = 0; t < 50; t++) {
        ck_assert_int_eq(pdk_store_record_hash(s, 1, t, 0xF000000000000000ull + t), PDK_OK);
        ck_assert_int_eq(pdk_store_record_hash(s, 2, t, t), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_record_session_end(s, 2, 49, 49, 1700000001000), PDK_OK);
    pdk_store_close(s);

    s = open_ok(path, MIGRATIONS);
    uint64_t n = 99;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_mark_interrupted(s, &n, err, sizeof err), PDK_OK);
    ck_assert_str_eq(err, "");
    ck_assert_uint_eq(n, 2);

    pdk_store_session_info a = read_info(s, 1);
    ck_assert_int_eq(a.interrupted, 1);
    ck_assert_int_eq(a.ended, 0);
    ck_assert_uint_eq(a.final_tick, 49);
    ck_assert_uint_eq(a.final_hash, 0xF000000000000000ull + 49);
    ck_assert_uint_eq(a.last_tick, 49);
    ck_assert_int_eq(a.closed_unix_ms, 0);
    pdk_store_session_info_free(&a);

    pdk_store_session_info b = read_info(s, 2);
    ck_assert_int_eq(b.interrupted, 0);
    ck_assert_int_eq(b.ended, 1);
    ck_assert_uint_eq(b.final_tick, 49);
    ck_assert_uint_eq(b.final_hash, 49);
    ck_assert_int_eq(b.closed_unix_ms, 1700000001000);
    pdk_store_session_info_free(&b);

    pdk_store_session_info c = read_info(s, 3);
    ck_assert_int_eq(c.interrupted, 1);
    ck_assert_uint_eq(c.final_tick, 0);
    ck_assert_uint_eq(c.final_hash, 0);
    ck_assert_uint_eq(c.last_tick, 0);
    pdk_store_session_info_free(&c);

    /* Idempotent: nothing left to mark, nothing changes; NULL n_marked. */
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 50, 5), PDK_OK); /* a stray later hash */
    ck_assert_int_eq(pdk_store_mark_interrupted(s, &n, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(pdk_store_mark_interrupted(s, NULL, NULL, 0), PDK_OK);
    a = read_info(s, 1);
    ck_assert_uint_eq(a.final_tick, 49);
    ck_assert_uint_eq(a.last_tick, 50);
    pdk_store_session_info_free(&a);

    ck_assert_int_eq(pdk_store_mark_interrupted(NULL, &n, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_store_shutdown(s);
    ck_assert_int_eq(pdk_store_mark_interrupted(s, &n, err, sizeof err), PDK_ERR_CLOSED);
    pdk_store_close(s);
    ck_assert_int_eq(file_int(path, "SELECT SUM(interrupted) FROM sessions"), 2);
}
END_TEST

/* ---- Export and import ---- */

START_TEST(test_export_import_round_trip)
{
    const char *src_path = tmp_path("src.db");
    pdk_store *src = open_ok(src_path, MIGRATIONS);
    /* Ids come from next_session_id, as in the server, so an import's new
     * id is above them. Session 1 is a decoy that must not travel. */
    ck_assert_uint_eq(pdk_store_next_session_id(src), 1);
    record_full_session(src, 1, 30, 1);
    ck_assert_uint_eq(pdk_store_next_session_id(src), 2);
    record_full_session(src, 2, 400, 1);
    const char *file = tmp_path("session2.paddock");
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_export_session(src, 2, file, MIGRATIONS, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "%s: %s", pdk_error_name(rc), err);
    ck_assert_str_eq(err, "");

    /* The file: one self-contained SQLite file, nothing left beside it. */
    ck_assert(exists(file));
    ck_assert_int_eq(count_entries(".tmp-"), 0);
    ck_assert_int_eq(count_entries("-journal"), 0);
    ck_assert_int_eq(count_entries("paddock-wal"), 0);
    assert_intact(file);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM paddock_export"), 1);
    ck_assert_int_eq(file_int(file, "SELECT format FROM paddock_export"), 1);
    ck_assert_int_eq(file_int(file, "SELECT original_session_id FROM paddock_export"), 2);
    ck_assert_int_gt(file_int(file, "SELECT exported_unix_ms FROM paddock_export"), 1600000000000);
    ck_assert_int_eq(file_int(file, "SELECT length(exported_by_build) > 0 FROM paddock_export"), 1);
    ck_assert_int_eq(file_int(file, "SELECT MAX(version) FROM schema_migrations"), 6);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM sessions"), 1);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM build"), 1);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM state_hashes WHERE session_id <> 2"), 0);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM state_hashes"), 400);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM snapshots"), 4);

    /* Into another database that already holds sessions 1..3: a new id. */
    const char *dst_path = tmp_path("dst.db");
    pdk_store *dst = open_ok(dst_path, MIGRATIONS);
    for (uint64_t id = 1; id <= 3; id++) {
        pdk_store_session def = session_def(pdk_store_next_session_id(dst), "local");
        ck_assert_int_eq(pdk_store_record_session(dst, &def), PDK_OK);
    }
    uint64_t new_id = 0;
    uint64_t orig = 0;
    rc = pdk_store_import_session(dst, file, &new_id, &orig, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "%s: %s", pdk_error_name(rc), err);
    ck_assert_uint_eq(new_id, 4);
    ck_assert_uint_eq(orig, 2);
    ck_assert_uint_eq(pdk_store_next_session_id(dst), 5);

    char *want = dump_session(src, 2);
    char *got = dump_session(dst, new_id);
    ck_assert_str_eq(got, want);
    ck_assert_msg(strstr(got, "parent 7/600") && strstr(got, "kf 120") && strstr(got, "ended 1"),
                  "%s", got);
    free(got);

    /* Into the very database it came from: a copy under yet another id. */
    rc = pdk_store_import_session(src, file, &new_id, NULL, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "%s: %s", pdk_error_name(rc), err);
    ck_assert_uint_eq(new_id, 3);
    got = dump_session(src, 3);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);

    /* An interrupted session exports as far as it is committed. */
    uint64_t cut_id = pdk_store_next_session_id(dst);
    record_full_session(dst, cut_id, 50, 0);
    uint64_t n = 0;
    ck_assert_int_eq(pdk_store_mark_interrupted(dst, &n, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(n, 4); /* the three empty "local" ones and this one */
    const char *file2 = tmp_path("interrupted.paddock");
    ck_assert_int_eq(pdk_store_export_session(dst, cut_id, file2, MIGRATIONS, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_store_import_session(src, file2, &new_id, &orig, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(orig, cut_id);
    pdk_store_session_info info = read_info(src, new_id);
    ck_assert_int_eq(info.interrupted, 1);
    ck_assert_uint_eq(info.final_tick, 649);
    ck_assert_uint_eq(info.last_tick, 649);
    pdk_store_session_info_free(&info);

    pdk_store_close(src);
    pdk_store_close(dst);
    assert_intact(src_path);
    assert_intact(dst_path);
}
END_TEST

START_TEST(test_export_errors)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    record_full_session(s, 1, 10, 1);
    char err[PDK_STORE_ERR_LEN];

    const char *file = tmp_path("out.paddock");
    ck_assert_int_eq(pdk_store_export_session(s, 9, file, MIGRATIONS, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_msg(strstr(err, "no session 9") != NULL, "%s", err);
    ck_assert(!exists(file));

    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("somebody's file", f);
    fclose(f);
    ck_assert_int_eq(pdk_store_export_session(s, 1, file, MIGRATIONS, err, sizeof err),
                     PDK_ERR_ALREADY_EXISTS);
    ck_assert_msg(strstr(err, file) && strstr(err, "already exists"), "%s", err);
    f = fopen(file, "r");
    char line[64] = {0};
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line, "somebody's file");

    const char *nodir = tmp_path("no/such/folder/out.paddock");
    ck_assert_int_eq(pdk_store_export_session(s, 1, nodir, MIGRATIONS, err, sizeof err),
                     PDK_ERR_IO);
    ck_assert_msg(strstr(err, nodir) != NULL, "%s", err);

    /* Migrations that do not match the database's schema: refused by name. */
    const char *old_dir = tmp_path("mig1");
    ck_assert_int_eq(mkdir(old_dir, 0755), 0);
    char mfile[600];
    snprintf(mfile, sizeof mfile, "%s/0001_initial.sql", old_dir);
    copy_file(MIGRATIONS "/0001_initial.sql", mfile);
    const char *file2 = tmp_path("old.paddock");
    ck_assert_int_eq(pdk_store_export_session(s, 1, file2, old_dir, err, sizeof err), PDK_ERR_DB);
    ck_assert_msg(strstr(err, "version 1") && strstr(err, "version 6"), "%s", err);
    ck_assert(!exists(file2));
    ck_assert_int_eq(pdk_store_export_session(s, 1, file2, tmp_path("nope"), err, sizeof err),
                     PDK_ERR_IO);
    ck_assert(!exists(file2));
    ck_assert_int_eq(count_entries(".tmp-"), 0);

    ck_assert_int_eq(pdk_store_export_session(NULL, 1, file2, MIGRATIONS, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_export_session(s, 1, "", MIGRATIONS, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "path is empty") != NULL, "%s", err);
    ck_assert_int_eq(pdk_store_export_session(s, 1, file2, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_store_close(s);
    assert_intact(path);
}
END_TEST

/* An export told to stop (its client left, the server stops) stops in the
 * copy of the rows: PDK_ERR_CLOSED naming the session, nothing left at
 * the path or beside it, the database intact. Never told, it is the
 * export. */
START_TEST(test_export_cancelled)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    record_full_session(s, 1, 400, 1);
    char err[PDK_STORE_ERR_LEN];
    atomic_bool cancel = false;
    const char *file = tmp_path("out.paddock");
    ck_assert_int_eq(
        pdk_store_export_session_cancellable(s, 1, file, MIGRATIONS, &cancel, err, sizeof err),
        PDK_OK);
    ck_assert_int_eq(file_int(file, "SELECT COUNT(*) FROM state_hashes"), 400);

    atomic_store(&cancel, true);
    const char *file2 = tmp_path("cancelled.paddock");
    ck_assert_int_eq(
        pdk_store_export_session_cancellable(s, 1, file2, MIGRATIONS, &cancel, err, sizeof err),
        PDK_ERR_CLOSED);
    ck_assert_msg(strstr(err, "the export of session 1 was cancelled") && strstr(err, file2), "%s",
                  err);
    ck_assert(!exists(file2));
    ck_assert_int_eq(count_entries(".tmp-"), 0);
    ck_assert_int_eq(count_entries("-journal"), 0);
    pdk_store_close(s);
    assert_intact(path);
}
END_TEST

/* One import that must fail with want and leave the database as it was. */
static void import_fails(pdk_store *s, const char *db_path, const char *file, pdk_error want,
                         const char *const *words, size_t n_words)
{
    int64_t before = all_rows(db_path);
    uint64_t new_id = 77;
    uint64_t orig = 77;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_import_session(s, file, &new_id, &orig, err, sizeof err);
    ck_assert_msg(rc == want, "import %s: got %s (%s), want %s", file, pdk_error_name(rc), err,
                  pdk_error_name(want));
    ck_assert_uint_eq(new_id, 0);
    ck_assert_uint_eq(orig, 0);
    ck_assert_msg(strstr(err, file) != NULL, "error does not name the file: %s", err);
    for (size_t i = 0; i < n_words; i++) {
        ck_assert_msg(strstr(err, words[i]) != NULL, "error lacks \"%s\": %s", words[i], err);
    }
    assert_intact(db_path);
    ck_assert_int_eq(all_rows(db_path), before);
}

START_TEST(test_import_errors)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    ck_assert_uint_eq(pdk_store_next_session_id(s), 1);
    record_full_session(s, 1, 2000, 1);
    const char *good = tmp_path("good.paddock");
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_export_session(s, 1, good, MIGRATIONS, err, sizeof err), PDK_OK);

    const char *missing[] = {"cannot read"};
    import_fails(s, path, tmp_path("absent.paddock"), PDK_ERR_IO, missing, 1);

    const char *text = tmp_path("notes.txt");
    FILE *f = fopen(text, "w");
    fputs("These are notes, not a database. Long enough to fill a header.\n", f);
    fclose(f);
    const char *not_sqlite[] = {"not an SQLite file"};
    import_fails(s, path, text, PDK_ERR_PARSE, not_sqlite, 1);
    const char *empty = tmp_path("empty.paddock");
    fclose(fopen(empty, "w"));
    import_fails(s, path, empty, PDK_ERR_PARSE, not_sqlite, 1);

    /* The server's own database is SQLite but not an export. */
    const char *plain = tmp_path("plain.db");
    pdk_store_close(open_ok(plain, MIGRATIONS));
    const char *no_export[] = {"not a Paddock session export", "paddock_export"};
    import_fails(s, path, plain, PDK_ERR_PARSE, no_export, 2);

    const char *newer = tmp_path("newer.paddock");
    copy_file(good, newer);
    file_exec(newer, "INSERT INTO schema_migrations(version, name, applied_unix_ms) "
                     "VALUES (9999, 'future', 0)");
    const char *too_new[] = {"9999", "(6)"};
    import_fails(s, path, newer, PDK_ERR_DB_TOO_NEW, too_new, 2);

    const char *fmt2 = tmp_path("format2.paddock");
    copy_file(good, fmt2);
    file_exec(fmt2, "UPDATE paddock_export SET format = 2");
    const char *fmt_words[] = {"format 2"};
    import_fails(s, path, fmt2, PDK_ERR_DB_TOO_NEW, fmt_words, 1);

    const char *two = tmp_path("two.paddock");
    copy_file(good, two);
    file_exec(two, "INSERT INTO sessions(session_id, name, timing, world_preset, world_json, "
                   "build_id, dt_s, substeps, created_unix_ms) SELECT 5, name, timing, "
                   "world_preset, world_json, build_id, dt_s, substeps, created_unix_ms "
                   "FROM sessions");
    const char *two_words[] = {"2 sessions"};
    import_fails(s, path, two, PDK_ERR_PARSE, two_words, 1);

    const char *no_sessions = tmp_path("nosessions.paddock");
    copy_file(good, no_sessions);
    file_exec(no_sessions, "PRAGMA foreign_keys=OFF; DROP TABLE sessions");
    const char *ns_words[] = {"no sessions table"};
    import_fails(s, path, no_sessions, PDK_ERR_PARSE, ns_words, 1);

    /* Damaged: garbage over pages in the middle, and cut in half. */
    struct stat sb;
    ck_assert_int_eq(stat(good, &sb), 0);
    ck_assert_int_gt(sb.st_size, 16 * 4096);
    const char *corrupt = tmp_path("corrupt.paddock");
    copy_file(good, corrupt);
    f = fopen(corrupt, "r+b");
    ck_assert_int_eq(fseek(f, sb.st_size / 2, SEEK_SET), 0);
    for (int i = 0; i < 3 * 4096; i++) {
        fputc(0x5A, f);
    }
    fclose(f);
    const char *damaged[] = {"damaged"};
    import_fails(s, path, corrupt, PDK_ERR_PARSE, damaged, 1);

    const char *cut = tmp_path("cut.paddock");
    copy_file(good, cut);
    ck_assert_int_eq(truncate(cut, sb.st_size / 2), 0);
    import_fails(s, path, cut, PDK_ERR_PARSE, damaged, 1);

    /* Argument errors. */
    uint64_t id = 0;
    ck_assert_int_eq(pdk_store_import_session(NULL, good, &id, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_import_session(s, good, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_import_session(s, "", &id, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);

    /* After all that, the good file still imports. */
    ck_assert_int_eq(pdk_store_import_session(s, good, &id, NULL, err, sizeof err), PDK_OK);
    ck_assert_uint_gt(id, 1);
    pdk_store_close(s);
    assert_intact(path);
}
END_TEST

/* A file from elsewhere whose schema is not exactly what the migrations
 * make: each difference refused by name before any row is used
 * (import_check.c), the database untouched. */
START_TEST(test_import_foreign_schema)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    record_full_session(s, 1, 240, 1);
    const char *good = tmp_path("good.paddock");
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_export_session(s, 1, good, MIGRATIONS, err, sizeof err), PDK_OK);
    static const struct {
        const char *sql;
        pdk_error want;
        const char *words[2];
    } cases[] = {
        /* A view standing in for a table: the copy would have run its SQL. */
        {"PRAGMA foreign_keys=OFF; ALTER TABLE sessions RENAME TO s0; "
         "CREATE VIEW sessions AS SELECT * FROM s0",
         PDK_ERR_PARSE,
         {"table \"s0\" is not in Paddock's schema", NULL}},
        {"ALTER TABLE vehicles DROP COLUMN overrides",
         PDK_ERR_PARSE,
         {"table vehicles has no column overrides", NULL}},
        /* A name that is not text: shown as '?', never sent as it is. */
        {"CREATE TABLE \"\xff\xfe evil\" (a)",
         PDK_ERR_PARSE,
         {"table \"?? evil\" is not in Paddock's schema", NULL}},
        {"CREATE INDEX extra ON inputs(kind)",
         PDK_ERR_PARSE,
         {"index \"extra\" is not in Paddock's schema", NULL}},
        {"DELETE FROM schema_migrations WHERE version = 2",
         PDK_ERR_PARSE,
         {"versions 1..6 in 5 rows", "without gaps"}},
        {"DROP TABLE schema_migrations",
         PDK_ERR_PARSE,
         {"not a Paddock session export", "no schema_migrations table"}},
        {"ALTER TABLE schema_migrations ADD COLUMN who TEXT",
         PDK_ERR_PARSE,
         {"its schema_migrations table is not Paddock's", NULL}},
        {"DELETE FROM schema_migrations",
         PDK_ERR_PARSE,
         {"schema_migrations holds no version", NULL}},
        {"UPDATE paddock_export SET format = 0", PDK_ERR_PARSE, {"unknown export format 0", NULL}},
        {"UPDATE paddock_export SET original_session_id = 4",
         PDK_ERR_PARSE,
         {"its session is 1 but paddock_export names session 4", NULL}},
        {"INSERT INTO paddock_export SELECT * FROM paddock_export",
         PDK_ERR_PARSE,
         {"paddock_export holds 2 rows", NULL}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "foreign%zu.paddock", i);
        const char *file = tmp_path(name);
        copy_file(good, file);
        file_exec(file, cases[i].sql);
        import_fails(s, path, file, cases[i].want, cases[i].words, cases[i].words[1] ? 2 : 1);
    }

    /* A schema past the check connection's limits (an expression 60
     * deep; SQLITE_LIMIT_EXPR_DEPTH is 10 there) cannot even be read. */
    const char *deep = tmp_path("deep.paddock");
    copy_file(good, deep);
    char sql[512] = "CREATE VIEW deep AS SELECT 1";
    for (int i = 0; i < 60; i++) {
        strcat(sql, "+1");
    }
    file_exec(deep, sql);
    const char *deep_words[] = {"import refused", "reading its schema"};
    import_fails(s, path, deep, PDK_ERR_PARSE, deep_words, 2);

    /* The reference itself, made from a folder. */
    pdk_import_schema *ref = NULL;
    ck_assert_int_eq(pdk_import_schema_make(MIGRATIONS, &ref, err, sizeof err), PDK_OK);
    ck_assert_int_eq(pdk_import_schema_newest(ref), 6);
    pdk_import_facts facts;
    ck_assert_int_eq(pdk_import_check(ref, good, &facts, err, sizeof err), PDK_OK);
    ck_assert_int_eq(facts.schema_version, 6);
    ck_assert_uint_eq(facts.original_session_id, 1);
    ck_assert_int_eq(pdk_import_check(NULL, good, &facts, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "schema is NULL") != NULL, "%s", err);
    pdk_import_schema_free(ref);
    ck_assert_int_eq(pdk_import_schema_make(tmp_path("nope"), &ref, err, sizeof err), PDK_ERR_IO);
    ck_assert_ptr_null(ref);
    ck_assert_int_eq(pdk_import_schema_make(NULL, &ref, err, sizeof err), PDK_ERR_INVALID_ARGUMENT);
    pdk_store_close(s);
    assert_intact(path);
}
END_TEST

/* ---- The writer's throughput for per-tick state hashes ---- */

START_TEST(test_hash_throughput)
{
    /* 100 sessions at 120 Hz record 12,000 hashes a second plus 100
     * keyframes; the writer must keep well ahead of that. Printed, never
     * failed on a time. */
    pdk_store *s = open_ok(tmp_path("p.db"), MIGRATIONS);
    enum { SESSIONS = 100, TICKS = 2400 };
    for (uint64_t id = 1; id <= SESSIONS; id++) {
        pdk_store_session def = session_def(id, "bench");
        ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats before;
    pdk_store_stats_get(s, &before);
    double t0 = now_s();
    for (uint64_t tick = 0; tick < TICKS; tick++) {
        for (uint64_t id = 1; id <= SESSIONS; id++) {
            ck_assert_int_eq(pdk_store_record_hash(s, id, tick, tick * 2654435761u + id), PDK_OK);
        }
    }
    double t1 = now_s();
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    double t2 = now_s();
    pdk_store_stats after;
    pdk_store_stats_get(s, &after);
    double n = (double)SESSIONS * TICKS;
    ck_assert_uint_eq(after.written - before.written, (uint64_t)n);
    printf("store: %.0f hash records: queued in %.3f s, committed after %.3f s: %.0f records/s "
           "in %llu transactions (%.1f session-seconds of 120 Hz hashes per second)\n",
           n, t1 - t0, t2 - t0, n / (t2 - t0),
           (unsigned long long)(after.transactions - before.transactions), n / (t2 - t0) / 120.0);

    /* Mixed, as sessions really record: a hash every tick and a 32 KiB
     * keyframe every 120 ticks. */
    static unsigned char blob[32 * 1024];
    memset(blob, 0x3C, sizeof blob);
    t0 = now_s();
    for (uint64_t tick = TICKS; tick < 2 * TICKS; tick++) {
        for (uint64_t id = 1; id <= SESSIONS; id++) {
            ck_assert_int_eq(pdk_store_record_hash(s, id, tick, tick), PDK_OK);
            if (tick % 120 == 0) {
                ck_assert_int_eq(pdk_store_record_snapshot(s, id, tick, tick, 1, blob, sizeof blob),
                                 PDK_OK);
            }
        }
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    t2 = now_s();
    printf("store: %d sessions x %d ticks with a 32 KiB keyframe each second: %.3f s, i.e. %.1f "
           "session-seconds per second\n",
           SESSIONS, TICKS, t2 - t0, (double)SESSIONS * TICKS / 120.0 / (t2 - t0));
    pdk_store_stats_get(s, &after);
    ck_assert_uint_eq(after.failed, 0);
    pdk_store_close(s);
}
END_TEST

/* ---- kill -9 while recording ---- */

/* The child: records one session like the server does (inputs of tick T
 * queued before the hash of tick T, a keyframe every 120 ticks), throttled
 * like a session that outruns the disk, until it is killed. */
static void crash_child(const char *path)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    if (pdk_store_open(path, MIGRATIONS, &s, err, sizeof err) != PDK_OK) {
        _exit(3);
    }
    uint64_t id = pdk_store_next_session_id(s);
    pdk_store_session def = session_def(id, "doomed");
    def.keyframe_every_ticks = 120;
    if (pdk_store_record_session(s, &def) != PDK_OK) {
        _exit(4);
    }
    unsigned char blob[4096];
    memset(blob, 0x11, sizeof blob);
    for (uint64_t tick = 0;; tick++) {
        uint32_t n_inputs = (uint32_t)(tick % 3);
        for (uint32_t seq = 0; seq < n_inputs; seq++) {
            if (pdk_store_record_input(s, id, tick, seq, 1, &tick, sizeof tick) != PDK_OK) {
                _exit(5);
            }
        }
        if (pdk_store_record_hash(s, id, tick, tick * 7) != PDK_OK) {
            _exit(6);
        }
        if (tick % 120 == 0 &&
            pdk_store_record_snapshot(s, id, tick, tick * 7, 1, blob, sizeof blob) != PDK_OK) {
            _exit(7);
        }
        pdk_store_stats st;
        pdk_store_stats_get(s, &st);
        if (st.queued > 20000) {
            usleep(200);
        }
    }
}

/* For each session: the committed hash ticks are 0..last without a hole,
 * and the committed inputs are exactly those of ticks 0..last (plus, maybe,
 * those of tick last + 1, queued before its hash). */
static void check_prefixes(const char *path, int max_sessions)
{
    sqlite3 *db = raw_open(path);
    ck_assert_int_le(raw_int(db, "SELECT COUNT(*) FROM sessions"), max_sessions);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT s.session_id, "
                                        "(SELECT COUNT(*) FROM state_hashes h WHERE h.session_id = "
                                        "s.session_id), "
                                        "(SELECT COALESCE(MIN(tick), -1) FROM state_hashes h WHERE "
                                        "h.session_id = s.session_id), "
                                        "(SELECT COALESCE(MAX(tick), -1) FROM state_hashes h WHERE "
                                        "h.session_id = s.session_id), "
                                        "(SELECT COUNT(*) FROM state_hashes h WHERE h.session_id = "
                                        "s.session_id AND h.hash <> h.tick * 7) "
                                        "FROM sessions s",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        int64_t count = sqlite3_column_int64(st, 1);
        int64_t min = sqlite3_column_int64(st, 2);
        int64_t last = sqlite3_column_int64(st, 3);
        ck_assert_int_eq(sqlite3_column_int64(st, 4), 0);
        if (count > 0) {
            ck_assert_int_eq(min, 0);
        }
        ck_assert_msg(count == last + 1, "session %lld: %lld hashes up to tick %lld: a hole",
                      (long long)id, (long long)count, (long long)last);
        /* Inputs: tick t has t % 3 of them, seq 0.. */
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM inputs WHERE session_id = %lld AND tick <= %lld",
                 (long long)id, (long long)last);
        int64_t want = 0;
        for (int64_t t = 0; t <= last; t++) {
            want += t % 3;
        }
        ck_assert_int_eq(raw_int(db, sql), want);
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM inputs WHERE session_id = %lld AND (tick > %lld + 1 OR "
                 "seq >= tick %% 3)",
                 (long long)id, (long long)last);
        ck_assert_int_eq(raw_int(db, sql), 0);
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) FROM snapshots WHERE session_id = %lld AND tick > %lld",
                 (long long)id, (long long)last);
        ck_assert_int_eq(raw_int(db, sql), 0);
        /* The keyframe of tick T is queued after T's hash, so the last one
         * may be missing when the last hash is a keyframe's tick. */
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM snapshots WHERE session_id = %lld",
                 (long long)id);
        int64_t kf = raw_int(db, sql);
        int64_t want_kf = last < 0 ? 0 : last / 120 + 1;
        ck_assert_msg(kf == want_kf || (kf == want_kf - 1 && last % 120 == 0),
                      "session %lld: %lld keyframes up to tick %lld", (long long)id, (long long)kf,
                      (long long)last);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

START_TEST(test_kill9_leaves_committed_prefix)
{
    const char *path = tmp_path("crash.db");
    pdk_store_close(open_ok(path, MIGRATIONS));
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    printf("store: kill -9 test seed %u\n", seed);
    srand(seed);
    enum { RUNS = 6 };
    for (int run = 0; run < RUNS; run++) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            crash_child(path);
            _exit(0);
        }
        /* 20..320 ms: now and then before the child recorded anything,
         * mostly in the middle of a batch. */
        usleep((useconds_t)(20000 + rand() % 300000));
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                      "child ended on its own: status %d", status);
        assert_intact(path);
        check_prefixes(path, run + 1);
    }
    /* The next start marks every one of them interrupted at its last hash. */
    uint64_t sessions = (uint64_t)file_int(path, "SELECT COUNT(*) FROM sessions");
    ck_assert_uint_ge(sessions, 1);
    pdk_store *s = open_ok(path, MIGRATIONS);
    uint64_t n = 0;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_mark_interrupted(s, &n, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(n, sessions);
    for (uint64_t id = 1; id <= sessions; id++) {
        pdk_store_session_info info = read_info(s, id);
        ck_assert_int_eq(info.interrupted, 1);
        ck_assert_uint_eq(info.final_tick, info.last_tick);
        ck_assert_uint_eq(info.final_hash, info.last_tick * 7);
        printf("store: killed session %llu had committed %llu ticks\n", (unsigned long long)id,
               (unsigned long long)info.last_tick + 1);
        pdk_store_session_info_free(&info);
    }
    pdk_store_close(s);
    assert_intact(path);
}
END_TEST

static Suite *store_replay_suite(void)
{
    Suite *s = suite_create("store_replay");
    TCase *tc = tcase_create("replay");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 100);
    tcase_add_test(tc, test_migration_keeps_0001_rows);
    tcase_add_test(tc, test_session_fields_round_trip);
    tcase_add_test(tc, test_batched_inputs_and_hashes);
    tcase_add_test(tc, test_tick_record_hashes_then_inputs);
    tcase_add_test(tc, test_grouped_rows_read_back_row_for_row);
    tcase_add_test(tc, test_snapshots_round_trip);
    tcase_add_test(tc, test_snapshot_handed_over_comes_back_as_a_spare);
    tcase_add_test(tc, test_spares_are_made_for_the_sessions_that_ask);
    tcase_add_test(tc, test_keyframe_encodings);
    tcase_add_test(tc, test_mark_interrupted);
    tcase_add_test(tc, test_export_import_round_trip);
    tcase_add_test(tc, test_export_errors);
    tcase_add_test(tc, test_export_cancelled);
    tcase_add_test(tc, test_import_errors);
    tcase_add_test(tc, test_import_foreign_schema);
    tcase_add_test(tc, test_hash_throughput);
    tcase_add_test(tc, test_kill9_leaves_committed_prefix);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(store_replay_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
