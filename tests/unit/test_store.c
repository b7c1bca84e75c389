/* Unit tests of server/store: migrations, the writer thread, flush and close,
 * and the read API, all on real SQLite files in fresh temporary folders. */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "sql_test_util.h"

#define MIGRATIONS PDK_SOURCE_DIR "/migrations"
#define BUILD_ID "0.1.0+test"

/* ---- Helpers: temporary folders, files, raw SQLite ---- */

static char g_tmp[256];

static void tmp_setup(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/pdk-test-store-XXXXXX");
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
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", g_tmp, rel);
    return b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* A migrations folder in g_tmp holding copies of the real migrations (the
 * store's statements need the schema they make), 0001 and 0002. */
static const char *migrations_copy(const char *rel)
{
    const char *dir = tmp_path(rel);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    const char *names[] = {"0001_initial.sql", "0002_replay.sql"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char file[600];
        snprintf(file, sizeof file, "%s/%s", MIGRATIONS, names[i]);
        char *sql = read_file(file);
        snprintf(file, sizeof file, "%s/%s", dir, names[i]);
        write_file(file, sql);
        free(sql);
    }
    return dir;
}

static void add_migration(const char *dir, const char *name, const char *sql)
{
    char file[600];
    snprintf(file, sizeof file, "%s/%s", dir, name);
    write_file(file, sql);
}

static int table_exists(const char *path, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
    return (int)file_int(path, sql);
}

static pdk_store *open_ok(const char *path, const char *dir)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_open(path, dir, &s, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "open %s: %s: %s", path, pdk_error_name(rc), err);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(err, "");
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

/* Callbacks of the read API that collect what they see. */
typedef struct input_seen {
    uint64_t tick;
    uint32_t seq;
    int kind;
    size_t len;
    unsigned char payload[64];
    int payload_null;
} input_seen;

typedef struct inputs_ctx {
    input_seen *rows;
    size_t cap;
    size_t n;
    int stop_after; /* 0: never */
} inputs_ctx;

static pdk_error collect_input(void *ctx, uint64_t tick, uint32_t seq, int kind,
                               const void *payload, size_t len)
{
    inputs_ctx *c = ctx;
    if (c->n < c->cap) {
        input_seen *r = &c->rows[c->n];
        r->tick = tick;
        r->seq = seq;
        r->kind = kind;
        r->len = len;
        r->payload_null = payload == NULL;
        if (payload && len <= sizeof r->payload) {
            memcpy(r->payload, payload, len);
        }
    }
    c->n++;
    if (c->stop_after && (int)c->n >= c->stop_after) {
        return PDK_ERR_CAPACITY;
    }
    return PDK_OK;
}

typedef struct hashes_ctx {
    uint64_t ticks[32];
    uint64_t hashes[32];
    size_t n;
} hashes_ctx;

static pdk_error collect_hash(void *ctx, uint64_t tick, uint64_t hash)
{
    hashes_ctx *c = ctx;
    if (c->n < 32) {
        c->ticks[c->n] = tick;
        c->hashes[c->n] = hash;
    }
    c->n++;
    return PDK_OK;
}

static pdk_error count_hash(void *ctx, uint64_t tick, uint64_t hash)
{
    (void)tick;
    (void)hash;
    (*(uint64_t *)ctx)++;
    return PDK_OK;
}

static pdk_error count_input(void *ctx, uint64_t tick, uint32_t seq, int kind, const void *p,
                             size_t len)
{
    (void)tick;
    (void)seq;
    (void)kind;
    (void)p;
    (void)len;
    (*(uint64_t *)ctx)++;
    return PDK_OK;
}

typedef struct vehicles_ctx {
    pdk_store_vehicle_row rows[4];
    char presets[4][32];
    char overrides[4][64];
    char params[4][64];
    size_t n;
} vehicles_ctx;

static pdk_error collect_vehicle(void *ctx, const pdk_store_vehicle_row *row)
{
    vehicles_ctx *c = ctx;
    if (c->n < 4) {
        c->rows[c->n] = *row;
        snprintf(c->presets[c->n], sizeof c->presets[0], "%s", row->preset);
        snprintf(c->overrides[c->n], sizeof c->overrides[0], "%s", row->overrides);
        snprintf(c->params[c->n], sizeof c->params[0], "%s", row->params_json);
    }
    c->n++;
    return PDK_OK;
}

static uint64_t count_inputs(pdk_store *s, uint64_t session_id)
{
    uint64_t n = 0;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_read_inputs(s, session_id, count_input, &n, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "read_inputs: %s", err);
    return n;
}

/* Redirects stderr to a file for the records the writer refuses. */
typedef struct captured {
    int saved_fd;
    const char *path;
} captured;

static captured capture_stderr(const char *path)
{
    fflush(stderr);
    captured c = {dup(2), path};
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
    return c;
}

static char *release_stderr(captured c)
{
    fflush(stderr);
    dup2(c.saved_fd, 2);
    close(c.saved_fd);
    return read_file(c.path);
}

static int count_occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

/* ---- Migrations ---- */

START_TEST(test_fresh_open_applies_initial)
{
    const char *path = tmp_path("deep/er/paddock.db"); /* the folders do not exist yet */
    pdk_store *s = open_ok(path, MIGRATIONS);
    ck_assert_int_eq(pdk_store_schema_version(s), 6);
    pdk_store_close(s);

    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM schema_migrations"), 6);
    ck_assert_int_eq(file_int(path, "SELECT MAX(version) FROM schema_migrations"), 6);
    ck_assert_int_eq(
        file_int(path, "SELECT COUNT(*) FROM schema_migrations WHERE name = 'initial'"), 1);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM schema_migrations WHERE name = 'replay'"),
                     1);
    ck_assert_int_gt(file_int(path, "SELECT MIN(applied_unix_ms) FROM schema_migrations"),
                     1600000000000);
    const char *tables[] = {"build", "sessions", "vehicles", "inputs", "state_hashes", "snapshots"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        ck_assert_msg(table_exists(path, tables[i]), "table %s missing", tables[i]);
    }
    sqlite3 *db = raw_open(path);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
}
END_TEST

START_TEST(test_reopen_applies_nothing)
{
    const char *path = tmp_path("paddock.db");
    pdk_store_close(open_ok(path, MIGRATIONS));
    int64_t applied = file_int(path, "SELECT MAX(applied_unix_ms) FROM schema_migrations");
    pdk_store *s = open_ok(path, MIGRATIONS);
    ck_assert_int_eq(pdk_store_schema_version(s), 6);
    pdk_store_close(s);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM schema_migrations"), 6);
    ck_assert_int_eq(file_int(path, "SELECT MAX(applied_unix_ms) FROM schema_migrations"), applied);
}
END_TEST

START_TEST(test_second_migration_applies_on_reopen)
{
    const char *dir = migrations_copy("mig");
    const char *path = tmp_path("paddock.db");
    pdk_store_close(open_ok(path, dir));
    add_migration(dir, "0003_extra.sql",
                  "CREATE TABLE extra (x INTEGER NOT NULL);\n"
                  "CREATE INDEX extra_x ON extra(x);\n");
    add_migration(dir, "README.md", "not a migration: ignored\n");
    pdk_store *s = open_ok(path, dir);
    ck_assert_int_eq(pdk_store_schema_version(s), 3);
    pdk_store_close(s);
    ck_assert_int_eq(file_int(path, "SELECT MAX(version) FROM schema_migrations"), 3);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM schema_migrations WHERE version = 3 "
                                    "AND name = 'extra'"),
                     1);
    ck_assert(table_exists(path, "extra"));
}
END_TEST

START_TEST(test_newer_database_refused)
{
    const char *path = tmp_path("paddock.db");
    pdk_store_close(open_ok(path, MIGRATIONS));
    sqlite3 *db = raw_open(path);
    raw_exec(db, "INSERT INTO schema_migrations(version, name, applied_unix_ms) "
                 "VALUES (9999, 'future', 0)");
    sqlite3_close(db);

    pdk_store *s = (pdk_store *)&s; /* must be set to NULL */
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(path, MIGRATIONS, &s, err, sizeof err), PDK_ERR_DB_TOO_NEW);
    ck_assert_ptr_null(s);
    char want[PDK_STORE_ERR_LEN];
    snprintf(want, sizeof want,
             "%s: database schema version 9999 is newer than this binary knows (6); "
             "use a newer paddockd",
             path);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_misnamed_migration_refused)
{
    const char *bad[] = {"2_short.sql",    "0002-dash.sql", "0002_Upper.sql", "0002_.sql",
                         "00002_five.sql", "0002_a-b.sql",  "x002_name.sql",  "0002name.sql"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "mig%zu", i);
        const char *dir = migrations_copy(rel);
        add_migration(dir, bad[i], "CREATE TABLE t (x);\n");
        snprintf(rel, sizeof rel, "db%zu/paddock.db", i);
        const char *path = tmp_path(rel);
        pdk_store *s = NULL;
        char err[PDK_STORE_ERR_LEN];
        ck_assert_int_eq(pdk_store_open(path, dir, &s, err, sizeof err), PDK_ERR_PARSE);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(err, bad[i]) != NULL, "error does not name %s: %s", bad[i], err);
        ck_assert_msg(strstr(err, "NNNN_name.sql") != NULL, "%s", err);
        ck_assert_int_ne(access(path, F_OK), 0); /* the bad folder created nothing */
    }
}
END_TEST

START_TEST(test_duplicate_migration_number_refused)
{
    const char *dir = migrations_copy("mig");
    add_migration(dir, "0001_again.sql", "CREATE TABLE t (x);\n");
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), dir, &s, err, sizeof err), PDK_ERR_PARSE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "0001_again.sql") && strstr(err, "0001_initial.sql") &&
                      strstr(err, "share number 0001"),
                  "%s", err);
}
END_TEST

START_TEST(test_migration_gap_refused)
{
    const char *dir = migrations_copy("mig");
    add_migration(dir, "0004_later.sql", "CREATE TABLE t (x);\n");
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), dir, &s, err, sizeof err), PDK_ERR_PARSE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "0004_later.sql") && strstr(err, "expected migration 0003"), "%s",
                  err);
}
END_TEST

START_TEST(test_missing_or_empty_migrations_dir)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    const char *missing = tmp_path("no-such-folder");
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), missing, &s, err, sizeof err), PDK_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, missing) != NULL, "%s", err);

    const char *empty = tmp_path("empty");
    ck_assert_int_eq(mkdir(empty, 0755), 0);
    add_migration(empty, "notes.txt", "nothing here\n");
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), empty, &s, err, sizeof err), PDK_ERR_IO);
    ck_assert_msg(strstr(err, "no migration files") != NULL, "%s", err);
    ck_assert_int_ne(access(tmp_path("p.db"), F_OK), 0);
}
END_TEST

START_TEST(test_broken_migration_rolls_back)
{
    const char *dir = migrations_copy("mig");
    const char *path = tmp_path("paddock.db");
    pdk_store_close(open_ok(path, dir));
    add_migration(dir, "0003_broken.sql",
                  "CREATE TABLE partial (x INTEGER);\n"
                  "INSERT INTO partial VALUES (1);\n"
                  "CREATE TABLEX oops (y);\n");
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(path, dir, &s, err, sizeof err), PDK_ERR_DB);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "0003_broken.sql") && strstr(err, "syntax error") &&
                      strstr(err, "left at version 2"),
                  "%s", err);
    ck_assert_int_eq(file_int(path, "SELECT MAX(version) FROM schema_migrations"), 2);
    ck_assert_int_eq(table_exists(path, "partial"), 0);

    /* Fixed, it applies; the same holds on a fresh file where 0001 and the
     * broken 0003 come in one open. */
    add_migration(dir, "0003_broken.sql", "CREATE TABLE partial (x INTEGER);\n");
    s = open_ok(path, dir);
    ck_assert_int_eq(pdk_store_schema_version(s), 3);
    pdk_store_close(s);
    ck_assert(table_exists(path, "partial"));

    add_migration(dir, "0003_broken.sql", "CREATE TABLE partial (x INTEGER);\nSELEC 1;\n");
    const char *fresh = tmp_path("fresh.db");
    ck_assert_int_eq(pdk_store_open(fresh, dir, &s, err, sizeof err), PDK_ERR_DB);
    ck_assert_int_eq(file_int(fresh, "SELECT MAX(version) FROM schema_migrations"), 2);
    ck_assert_int_eq(table_exists(fresh, "partial"), 0);
    ck_assert(table_exists(fresh, "sessions"));
}
END_TEST

START_TEST(test_migration_with_own_transaction_refused)
{
    const char *dir = migrations_copy("mig");
    add_migration(dir, "0003_commits.sql",
                  "CREATE TABLE early (x);\nCOMMIT;\n"
                  "CREATE TABLE late (y);\n");
    const char *path = tmp_path("paddock.db");
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(path, dir, &s, err, sizeof err), PDK_ERR_DB);
    ck_assert_msg(strstr(err, "0003_commits.sql") && strstr(err, "not allowed"), "%s", err);
    ck_assert_int_eq(file_int(path, "SELECT MAX(version) FROM schema_migrations"), 2);
    ck_assert_int_eq(table_exists(path, "early"), 0);
    ck_assert_int_eq(table_exists(path, "late"), 0);
}
END_TEST

START_TEST(test_not_a_database_refused)
{
    const char *path = tmp_path("notes.db");
    const char *text = "These are somebody's notes, not a SQLite database.\n"
                       "They are long enough to fill a header and then some more.\n";
    write_file(path, text);
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(path, MIGRATIONS, &s, err, sizeof err), PDK_ERR_DB);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, path) && strstr(err, "not a SQLite database"), "%s", err);
    char *after = read_file(path);
    ck_assert_str_eq(after, text); /* untouched */
    free(after);
}
END_TEST

START_TEST(test_parent_is_a_file)
{
    write_file(tmp_path("plain"), "x");
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(tmp_path("plain/sub/p.db"), MIGRATIONS, &s, err, sizeof err),
                     PDK_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "cannot create folder") != NULL, "%s", err);
}
END_TEST

/* ---- Recording and reading back ---- */

START_TEST(test_records_round_trip)
{
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    uint64_t a = pdk_store_next_session_id(s);
    uint64_t b = pdk_store_next_session_id(s);
    ck_assert_uint_eq(a, 1);
    ck_assert_uint_eq(b, 2);

    pdk_store_session sa = session_def(a, "track day");
    pdk_store_session sb = session_def(b, "hil bench");
    sb.timing = "fast";
    sb.world_preset = NULL; /* optional: stored as "" */
    ck_assert_int_eq(pdk_store_record_session(s, &sa), PDK_OK);
    ck_assert_int_eq(pdk_store_record_session(s, &sb), PDK_OK);

    ck_assert_int_eq(
        pdk_store_record_vehicle(s, a, 7, 0, "kart", "{\"mass_kg\":160}", "{\"resolved\":1}"),
        PDK_OK);
    ck_assert_int_eq(pdk_store_record_vehicle(s, a, 8, 120, "utv", NULL, "{\"resolved\":2}"),
                     PDK_OK);
    ck_assert_int_eq(pdk_store_record_vehicle_removed(s, a, 7, 600), PDK_OK);

    const unsigned char p1[] = {0x00, 0xff, 0x10, 0x00, 0x7f}; /* binary, with NULs */
    const unsigned char p2[] = {0x42};
    ck_assert_int_eq(pdk_store_record_input(s, a, 10, 1, 3, p1, sizeof p1), PDK_OK);
    ck_assert_int_eq(pdk_store_record_input(s, a, 10, 0, 2, p2, sizeof p2), PDK_OK);
    ck_assert_int_eq(pdk_store_record_input(s, a, 5, 0, -1, NULL, 0), PDK_OK);

    const uint64_t hashes[] = {
        0, 1, (uint64_t)INT64_MAX, UINT64_C(1) << 63, UINT64_MAX, UINT64_C(0xdeadbeefcafef00d)};
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(pdk_store_record_hash(s, a, 120 * (uint64_t)i, hashes[i]), PDK_OK);
    }
    ck_assert_int_eq(
        pdk_store_record_session_end(s, a, 1200, UINT64_C(0x8000000000000001), 1700000060000),
        PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);

    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written, 2 + 3 + 3 + 6 + 1);
    ck_assert_uint_eq(st.failed, 0);
    ck_assert_uint_eq(st.queued, 0);

    char err[PDK_STORE_ERR_LEN];
    uint64_t count = 0;
    ck_assert_int_eq(pdk_store_session_count(s, &count, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(count, 2);

    pdk_store_session_info info;
    ck_assert_int_eq(pdk_store_read_session(s, a, &info, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(info.session.session_id, a);
    ck_assert_str_eq(info.session.name, "track day");
    ck_assert_str_eq(info.session.timing, "realtime");
    ck_assert_str_eq(info.session.world_preset, "flat");
    ck_assert_str_eq(info.session.world_json, "{\"gravity_mps2\":9.81}");
    ck_assert_str_eq(info.session.build_id, BUILD_ID);
    ck_assert(info.session.dt_s == 1.0 / 120.0);
    ck_assert_int_eq(info.session.substeps, 4);
    ck_assert_int_eq(info.session.created_unix_ms, 1700000000000);
    ck_assert_int_eq(info.ended, 1);
    ck_assert_uint_eq(info.final_tick, 1200);
    ck_assert_uint_eq(info.final_hash, UINT64_C(0x8000000000000001));
    ck_assert_int_eq(info.closed_unix_ms, 1700000060000);
    pdk_store_session_info_free(&info);
    ck_assert_ptr_null(info.strings_);

    ck_assert_int_eq(pdk_store_read_session(s, b, &info, err, sizeof err), PDK_OK);
    ck_assert_str_eq(info.session.timing, "fast");
    ck_assert_str_eq(info.session.world_preset, "");
    ck_assert_int_eq(info.ended, 0);
    pdk_store_session_info_free(&info);

    vehicles_ctx vc = {0};
    ck_assert_int_eq(pdk_store_read_vehicles(s, a, collect_vehicle, &vc, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(vc.n, 2);
    ck_assert_uint_eq(vc.rows[0].vehicle_id, 7);
    ck_assert_uint_eq(vc.rows[0].spawn_tick, 0);
    ck_assert_int_eq(vc.rows[0].removed, 1);
    ck_assert_uint_eq(vc.rows[0].removed_tick, 600);
    ck_assert_str_eq(vc.presets[0], "kart");
    ck_assert_str_eq(vc.overrides[0], "{\"mass_kg\":160}");
    ck_assert_str_eq(vc.params[0], "{\"resolved\":1}");
    ck_assert_uint_eq(vc.rows[1].vehicle_id, 8);
    ck_assert_uint_eq(vc.rows[1].spawn_tick, 120);
    ck_assert_int_eq(vc.rows[1].removed, 0);
    ck_assert_str_eq(vc.overrides[1], "");

    input_seen rows[8];
    inputs_ctx ic = {rows, 8, 0, 0};
    ck_assert_int_eq(pdk_store_read_inputs(s, a, collect_input, &ic, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(ic.n, 3);
    /* (tick, seq) order, not arrival order */
    ck_assert_uint_eq(rows[0].tick, 5);
    ck_assert_int_eq(rows[0].kind, -1);
    ck_assert_uint_eq(rows[0].len, 0);
    ck_assert(rows[0].payload_null);
    ck_assert_uint_eq(rows[1].tick, 10);
    ck_assert_uint_eq(rows[1].seq, 0);
    ck_assert_int_eq(rows[1].kind, 2);
    ck_assert_uint_eq(rows[1].len, 1);
    ck_assert_int_eq(rows[1].payload[0], 0x42);
    ck_assert_uint_eq(rows[2].seq, 1);
    ck_assert_int_eq(rows[2].kind, 3);
    ck_assert_uint_eq(rows[2].len, sizeof p1);
    ck_assert_int_eq(memcmp(rows[2].payload, p1, sizeof p1), 0);

    hashes_ctx hc = {0};
    ck_assert_int_eq(pdk_store_read_hashes(s, a, collect_hash, &hc, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(hc.n, 6);
    for (size_t i = 0; i < 6; i++) {
        ck_assert_uint_eq(hc.ticks[i], 120 * i);
        ck_assert_uint_eq(hc.hashes[i], hashes[i]);
    }
    hashes_ctx none = {0};
    ck_assert_int_eq(pdk_store_read_hashes(s, b, collect_hash, &none, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(none.n, 0);
    pdk_store_close(s);

    /* In the file: the build once, hashes as the int64 with the same bits. */
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM build WHERE build_id = '" BUILD_ID "'"),
                     1);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM build"), 1);
    ck_assert_int_eq(file_int(path, "SELECT hash FROM state_hashes WHERE tick = 360"), INT64_MIN);
    ck_assert_int_eq(file_int(path, "SELECT hash FROM state_hashes WHERE tick = 480"), -1);
    ck_assert_int_eq(file_int(path, "SELECT typeof(payload) = 'blob' FROM inputs WHERE tick = 5"),
                     1);
}
END_TEST

START_TEST(test_session_ids_continue_after_reopen)
{
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    ck_assert_uint_eq(pdk_store_next_session_id(s), 1);
    pdk_store_session def = session_def(41, "explicit");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    pdk_store_close(s);
    s = open_ok(path, MIGRATIONS);
    ck_assert_uint_eq(pdk_store_next_session_id(s), 42);
    ck_assert_uint_eq(pdk_store_next_session_id(s), 43);
    ck_assert_uint_eq(pdk_store_next_session_id(NULL), 0);
    pdk_store_close(s);
}
END_TEST

enum { ID_THREADS = 4, IDS_PER_THREAD = 20000 };

static void *take_ids(void *arg)
{
    void **a = arg;
    pdk_store *s = a[0];
    uint64_t *ids = a[1];
    for (int i = 0; i < IDS_PER_THREAD; i++) {
        ids[i] = pdk_store_next_session_id(s);
    }
    return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x;
    uint64_t b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

START_TEST(test_session_ids_unique_across_threads)
{
    pdk_store *s = open_ok(tmp_path("paddock.db"), MIGRATIONS);
    uint64_t *ids = malloc(sizeof *ids * ID_THREADS * IDS_PER_THREAD);
    ck_assert_ptr_nonnull(ids);
    pthread_t th[ID_THREADS];
    void *args[ID_THREADS][2];
    for (int t = 0; t < ID_THREADS; t++) {
        args[t][0] = s;
        args[t][1] = ids + (size_t)t * IDS_PER_THREAD;
        ck_assert_int_eq(pthread_create(&th[t], NULL, take_ids, args[t]), 0);
    }
    for (int t = 0; t < ID_THREADS; t++) {
        pthread_join(th[t], NULL);
    }
    size_t n = (size_t)ID_THREADS * IDS_PER_THREAD;
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(ids[i], i + 1); /* 1..n, each once */
    }
    free(ids);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_many_inputs_never_block_the_caller)
{
    enum { N = 100000 };
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "load");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    double worst_s = 0.0;
    double t0 = now_s();
    for (uint32_t i = 0; i < N; i++) {
        unsigned char payload[24];
        memset(payload, (int)(i & 0xff), sizeof payload);
        memcpy(payload, &i, sizeof i);
        double a = now_s();
        pdk_error rc =
            pdk_store_record_input(s, 1, i / 4, i % 4, (int)(i % 7), payload, sizeof payload);
        double d = now_s() - a;
        ck_assert_int_eq(rc, PDK_OK);
        worst_s = d > worst_s ? d : worst_s;
    }
    double total_s = now_s() - t0;
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    double drained_s = now_s() - t0;
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    printf("store: %d record_input calls: worst %.3f ms, mean %.2f us; all committed after "
           "%.3f s in %llu transactions\n",
           N, worst_s * 1e3, total_s / N * 1e6, drained_s, (unsigned long long)st.transactions);
    ck_assert_uint_eq(st.written, N + 1);
    ck_assert_uint_eq(st.failed, 0);
    ck_assert_uint_eq(st.queued, 0);

    /* Every input is there, in (tick, seq) order, with its own payload. */
    input_seen *rows = calloc(N, sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    inputs_ctx ic = {rows, N, 0, 0};
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, collect_input, &ic, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(ic.n, N);
    for (uint32_t i = 0; i < N; i++) {
        ck_assert_uint_eq(rows[i].tick, i / 4);
        ck_assert_uint_eq(rows[i].seq, i % 4);
        ck_assert_int_eq(rows[i].kind, (int)(i % 7));
        ck_assert_uint_eq(rows[i].len, 24);
        uint32_t tag = 0;
        memcpy(&tag, rows[i].payload, sizeof tag);
        ck_assert_uint_eq(tag, i);
    }
    free(rows);
    pdk_store_close(s);
}
END_TEST

/* With another connection holding the write lock, the writer cannot commit:
 * record_* must still return at once, the queue depth must show every
 * record, and once the lock is gone the backlog goes in one batch. */
START_TEST(test_locked_file_queues_without_blocking)
{
    enum { N = 1000 };
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "locked");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats before;
    pdk_store_stats_get(s, &before);

    sqlite3 *other = raw_open(path);
    raw_exec(other, "BEGIN IMMEDIATE");
    double worst_s = 0.0;
    for (uint32_t i = 0; i < N; i++) {
        double a = now_s();
        ck_assert_int_eq(pdk_store_record_hash(s, 1, i, i * 7919u), PDK_OK);
        double d = now_s() - a;
        worst_s = d > worst_s ? d : worst_s;
    }
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL); /* let the writer take a batch and wait on the lock */
    pdk_store_stats locked;
    pdk_store_stats_get(s, &locked);
    ck_assert_uint_eq(locked.queued, N);
    ck_assert_uint_eq(locked.written, before.written);
    raw_exec(other, "ROLLBACK");
    sqlite3_close(other);
    printf("store: %d record_hash calls with the file locked: worst %.3f ms\n", N, worst_s * 1e3);

    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats after;
    pdk_store_stats_get(s, &after);
    ck_assert_uint_eq(after.queued, 0);
    ck_assert_uint_eq(after.written, before.written + N);
    ck_assert_uint_eq(after.failed, 0);
    /* at most the batch the writer held while waiting, then all the rest */
    ck_assert_uint_le(after.transactions - before.transactions, 2);
    pdk_store_close(s);
}
END_TEST

typedef struct flusher_arg {
    pdk_store *s;
    uint64_t session_id;
    int ok;
} flusher_arg;

static void *record_flush_read(void *p)
{
    flusher_arg *a = p;
    a->ok = 1;
    for (uint64_t round = 1; round <= 5; round++) {
        for (uint64_t t = 0; t < 500; t++) {
            if (pdk_store_record_hash(a->s, a->session_id, (round - 1) * 500 + t, t) != PDK_OK) {
                a->ok = 0;
            }
        }
        if (pdk_store_flush(a->s) != PDK_OK) {
            a->ok = 0;
        }
        /* Everything this thread queued before the flush is readable now. */
        uint64_t n = 0;
        if (pdk_store_read_hashes(a->s, a->session_id, count_hash, &n, NULL, 0) != PDK_OK ||
            n < round * 500) {
            a->ok = 0;
        }
    }
    return NULL;
}

START_TEST(test_flush_covers_what_was_queued)
{
    pdk_store *s = open_ok(tmp_path("paddock.db"), MIGRATIONS);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK); /* nothing queued: returns at once */
    for (uint64_t id = 1; id <= 2; id++) {
        pdk_store_session def = session_def(id, "flush");
        ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    }
    flusher_arg args[2] = {{s, 1, 0}, {s, 2, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_create(&th[i], NULL, record_flush_read, &args[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(args[i].ok, "thread %d saw fewer records than it flushed", i);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written, 2 + 2 * 2500);
    ck_assert_uint_eq(st.queued, 0);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_close_drains_the_queue)
{
    enum { N = 50000 };
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "drain");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    for (uint32_t i = 0; i < N; i++) {
        ck_assert_int_eq(pdk_store_record_input(s, 1, i, 0, 1, &i, sizeof i), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_record_session_end(s, 1, N, 99, 1700000001000), PDK_OK);
    pdk_store_close(s); /* no flush */

    s = open_ok(path, MIGRATIONS);
    ck_assert_uint_eq(count_inputs(s, 1), N);
    pdk_store_session_info info;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_session(s, 1, &info, err, sizeof err), PDK_OK);
    ck_assert_int_eq(info.ended, 1);
    ck_assert_uint_eq(info.final_tick, N);
    pdk_store_session_info_free(&info);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_record_after_shutdown_is_closed)
{
    pdk_store *s = open_ok(tmp_path("paddock.db"), MIGRATIONS);
    pdk_store_session def = session_def(1, "closing");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 0, 5), PDK_OK);
    pdk_store_shutdown(s);

    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written, 2); /* shutdown drained */
    ck_assert_uint_eq(st.queued, 0);

    unsigned char b = 1;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_record_session_end(s, 1, 1, 1, 1), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_record_vehicle(s, 1, 1, 0, "kart", "", "{}"), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_record_vehicle_removed(s, 1, 1, 1), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_record_input(s, 1, 1, 0, 1, &b, 1), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 1, 1), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_shutdown(s); /* twice is harmless */

    uint64_t n = 0;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, count_hash, &n, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(n, 1);
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written, 2);
    pdk_store_close(s);
}
END_TEST

typedef struct worker_arg {
    const char *path;
    const char *name;
    int ok;
} worker_arg;

static void *fill_store(void *p)
{
    worker_arg *a = p;
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    a->ok = pdk_store_open(a->path, MIGRATIONS, &s, err, sizeof err) == PDK_OK;
    if (!a->ok) {
        return NULL;
    }
    pdk_store_session def = session_def(1, a->name);
    a->ok &= pdk_store_record_session(s, &def) == PDK_OK;
    for (uint32_t i = 0; i < 20000; i++) {
        a->ok &= pdk_store_record_input(s, 1, i, 0, 1, &i, sizeof i) == PDK_OK;
        if (i % 120 == 0) {
            a->ok &= pdk_store_record_hash(s, 1, i, (uint64_t)i * 31u) == PDK_OK;
        }
    }
    pdk_store_close(s);
    return NULL;
}

START_TEST(test_two_stores_concurrently)
{
    worker_arg args[2] = {{tmp_path("a/one.db"), "one", 0}, {tmp_path("b/two.db"), "two", 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_create(&th[i], NULL, fill_store, &args[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(args[i].ok, "store %s failed", args[i].name);
    }
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(file_int(args[i].path, "SELECT COUNT(*) FROM inputs"), 20000);
        ck_assert_int_eq(file_int(args[i].path, "SELECT COUNT(*) FROM state_hashes"), 167);
        ck_assert_int_eq(file_int(args[i].path, "SELECT COUNT(*) FROM sessions"), 1);
    }
    ck_assert_int_eq(file_int(args[0].path, "SELECT COUNT(*) FROM sessions WHERE name = 'one'"), 1);
    ck_assert_int_eq(file_int(args[1].path, "SELECT COUNT(*) FROM sessions WHERE name = 'two'"), 1);
}
END_TEST

START_TEST(test_refused_records_counted_and_logged)
{
    pdk_store *s = open_ok(tmp_path("paddock.db"), MIGRATIONS);
    captured cap = capture_stderr(tmp_path("stderr.txt"));
    pdk_store_session def = session_def(1, "stats");
    unsigned char b = 9;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    ck_assert_int_eq(pdk_store_record_input(s, 999, 1, 0, 1, &b, 1), PDK_OK); /* no session */
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 60, 1), PDK_OK);
    ck_assert_int_eq(pdk_store_record_hash(s, 1, 60, 2), PDK_OK);            /* duplicate */
    ck_assert_int_eq(pdk_store_record_session_end(s, 77, 1, 1, 1), PDK_OK);  /* no session */
    ck_assert_int_eq(pdk_store_record_vehicle_removed(s, 1, 3, 10), PDK_OK); /* no vehicle */
    for (uint32_t i = 0; i < 10; i++) {
        ck_assert_int_eq(pdk_store_record_input(s, 1, i, 0, 1, &b, 1), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    char *log = release_stderr(cap);

    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written, 1 + 1 + 10);
    ck_assert_uint_eq(st.failed, 4);
    ck_assert_uint_eq(st.queued, 0);
    ck_assert_uint_ge(st.transactions, 1);
    /* The commit-time histogram has a batch for each write that committed
     * (a batch retried record by record commits more than once, once in
     * the histogram), and its time. */
    uint64_t batches = 0;
    for (size_t i = 0; i <= PDK_STORE_COMMIT_BOUNDS; i++)
        batches += st.commit_buckets[i];
    ck_assert_uint_ge(batches, 1);
    ck_assert_uint_le(batches, st.transactions);
    ck_assert_uint_gt(st.commit_ns, 0);
    ck_assert_uint_eq(count_inputs(s, 1), 10); /* the good records around the bad ones */

    ck_assert_int_eq(count_occurrences(log, "refused"), 4);
    ck_assert_int_eq(count_occurrences(log, "input (session 999, tick 1, seq 0, kind 1) refused: "
                                            "FOREIGN KEY constraint failed"),
                     1);
    ck_assert_int_eq(count_occurrences(log, "UNIQUE constraint failed"), 1);
    ck_assert_int_eq(count_occurrences(log, "end of session 77 at tick 1 refused: no such session"),
                     1);
    ck_assert_int_eq(count_occurrences(log, "removal of vehicle 3 of session 1"), 1);
    free(log);

    uint64_t n = 0;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, count_hash, &n, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(n, 1);
    pdk_store_close(s);
}
END_TEST

/* ---- Argument checks and the read API's errors ---- */

START_TEST(test_invalid_arguments)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_open(NULL, MIGRATIONS, &s, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "path") != NULL, "%s", err);
    ck_assert_int_eq(pdk_store_open("", MIGRATIONS, &s, err, sizeof err), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), NULL, &s, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_open(tmp_path("p.db"), MIGRATIONS, NULL, NULL, 0),
                     PDK_ERR_INVALID_ARGUMENT);

    s = open_ok(tmp_path("p.db"), MIGRATIONS);
    pdk_store_session def = session_def(1, "args");
    ck_assert_int_eq(pdk_store_record_session(NULL, &def), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_session(s, NULL), PDK_ERR_INVALID_ARGUMENT);
    def.name = NULL;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_ERR_INVALID_ARGUMENT);
    def = session_def(1, "args");
    def.build_id = NULL;
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_vehicle(s, 1, 1, 0, NULL, "", "{}"),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_vehicle(s, 1, 1, 0, "kart", "", NULL),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_input(s, 1, 0, 0, 1, NULL, 4), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_hash(NULL, 1, 0, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_session_end(NULL, 1, 0, 0, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_vehicle_removed(NULL, 1, 0, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_flush(NULL), PDK_ERR_INVALID_ARGUMENT);

    /* The length is checked before anything is read from the buffer. */
    unsigned char small = 0;
    ck_assert_int_eq(
        pdk_store_record_input(s, 1, 0, 0, 1, &small, (size_t)PDK_STORE_MAX_FIELD_BYTES + 1),
        PDK_ERR_OUT_OF_RANGE);

    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.written + st.failed + st.queued, 0); /* nothing was queued */
    pdk_store_stats_get(NULL, &st);
    ck_assert_uint_eq(st.written, 0);

    uint64_t n = 0;
    ck_assert_int_eq(pdk_store_session_count(NULL, &n, err, sizeof err), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_session_count(s, NULL, err, sizeof err), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_read_hashes(s, 1, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_read_session(s, 1, NULL, err, sizeof err), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_schema_version(NULL), 0);
    pdk_store_close(s);
    pdk_store_close(NULL);
    pdk_store_shutdown(NULL);
    pdk_store_session_info_free(NULL);
}
END_TEST

START_TEST(test_read_errors)
{
    const char *path = tmp_path("p.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    char err[PDK_STORE_ERR_LEN];
    pdk_store_session_info info;
    ck_assert_int_eq(pdk_store_read_session(s, 5, &info, err, sizeof err), PDK_ERR_NOT_FOUND);
    ck_assert_msg(strstr(err, "no session 5") != NULL, "%s", err);
    uint64_t n = 0;
    ck_assert_int_eq(pdk_store_read_inputs(s, 5, count_input, &n, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_store_read_hashes(s, 5, count_hash, &n, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_store_read_vehicles(s, 5, collect_vehicle, &n, err, sizeof err),
                     PDK_ERR_NOT_FOUND);

    /* A callback's error stops the read and comes back. */
    pdk_store_session def = session_def(1, "reads");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    for (uint32_t i = 0; i < 10; i++) {
        ck_assert_int_eq(pdk_store_record_input(s, 1, i, 0, 1, &i, sizeof i), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    input_seen rows[10];
    inputs_ctx ic = {rows, 10, 0, 3};
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, collect_input, &ic, err, sizeof err),
                     PDK_ERR_CAPACITY);
    ck_assert_uint_eq(ic.n, 3);
    ck_assert_msg(strstr(err, "PDK_ERR_CAPACITY") != NULL, "%s", err);

    /* A value out of range for its C type (as an imported file might hold)
     * is refused with its column named, not truncated. */
    sqlite3 *db = raw_open(path);
    raw_exec(db, "INSERT INTO inputs(session_id, tick, seq, kind, payload) "
                 "VALUES (1, 100, 5000000000, 1, x'00')");
    sqlite3_close(db);
    ic = (inputs_ctx){rows, 10, 0, 0};
    ck_assert_int_eq(pdk_store_read_inputs(s, 1, collect_input, &ic, err, sizeof err), PDK_ERR_DB);
    ck_assert_msg(strstr(err, "seq") && strstr(err, "5000000000"), "%s", err);
    ck_assert_uint_eq(ic.n, 10); /* the good rows before it were delivered */
    pdk_store_close(s);
}
END_TEST

/* Inputs of a tick range (pdk_store_read_inputs_between): both ends
 * included, in (tick, seq) order; an empty or reversed range reads
 * nothing; a range running past 2^63 reads to the end. Two threads read
 * at once through the store's two read connections, and a third waits
 * its turn: every read sees all its rows. */
typedef struct range_read {
    pdk_store *s;
    uint64_t first, last;
    size_t n;
    pdk_error e;
} range_read;

static void *read_range(void *arg)
{
    range_read *r = arg;
    for (int k = 0; k < 20 && r->e == PDK_OK; k++) {
        inputs_ctx ic = {NULL, 0, 0, 0}; /* counts the rows, keeps none */
        char err[PDK_STORE_ERR_LEN];
        r->e = pdk_store_read_inputs_between(r->s, 1, r->first, r->last, collect_input, &ic, err,
                                             sizeof err);
        r->n = ic.n;
    }
    return NULL;
}

START_TEST(test_inputs_between_ticks)
{
    pdk_store *s = open_ok(tmp_path("paddock.db"), MIGRATIONS);
    pdk_store_session def = session_def(1, "ranges");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    /* Ticks 0 to 999, two inputs each (seq 1 queued before seq 0). */
    for (uint32_t t = 0; t < 1000; t++) {
        ck_assert_int_eq(pdk_store_record_input(s, 1, t, 2 * t + 1, 1, &t, sizeof t), PDK_OK);
        ck_assert_int_eq(pdk_store_record_input(s, 1, t, 2 * t, 1, &t, sizeof t), PDK_OK);
    }
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    char err[PDK_STORE_ERR_LEN];
    input_seen rows[8];
    inputs_ctx ic = {rows, 8, 0, 0};
    ck_assert_int_eq(
        pdk_store_read_inputs_between(s, 1, 10, 12, collect_input, &ic, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(ic.n, 6);
    for (size_t i = 0; i < 6; i++) {
        ck_assert_uint_eq(rows[i].tick, 10 + i / 2);
        ck_assert_uint_eq(rows[i].seq, 20 + i);
    }
    ic = (inputs_ctx){rows, 8, 0, 0};
    ck_assert_int_eq(
        pdk_store_read_inputs_between(s, 1, 12, 11, collect_input, &ic, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(ic.n, 0);
    ic = (inputs_ctx){rows, 8, 0, 0};
    ck_assert_int_eq(
        pdk_store_read_inputs_between(s, 1, 998, UINT64_MAX, collect_input, &ic, err, sizeof err),
        PDK_OK);
    ck_assert_uint_eq(ic.n, 4);
    ck_assert_int_eq(pdk_store_read_inputs_between(s, 2, 0, 5, collect_input, &ic, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_store_read_inputs_between(s, 1, 0, 5, NULL, &ic, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);

    range_read r[3] = {{s, 0, 499, 0, PDK_OK}, {s, 500, 999, 0, PDK_OK}, {s, 0, 999, 0, PDK_OK}};
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(pthread_create(&th[i], NULL, read_range, &r[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(r[i].e, PDK_OK);
    }
    ck_assert_uint_eq(r[0].n, 1000);
    ck_assert_uint_eq(r[1].n, 1000);
    ck_assert_uint_eq(r[2].n, 2000);
    pdk_store_close(s);
}
END_TEST

/* What pdk_store_read_access hands out, for test_owners_and_tokens. */
typedef struct access_seen {
    int owners, tokens;
    uint64_t owner_session;
    char owner[64], session_name[64];
    uint8_t digest[32];
    int role;
} access_seen;

static pdk_error seen_owner(void *ctx, uint64_t session_id, const char *owner,
                            const char *session_name)
{
    access_seen *a = ctx;
    a->owners++;
    a->owner_session = session_id;
    snprintf(a->owner, sizeof a->owner, "%s", owner);
    snprintf(a->session_name, sizeof a->session_name, "%s", session_name);
    return PDK_OK;
}

static pdk_error seen_token(void *ctx, uint64_t session_id, const uint8_t token_sha256[32],
                            int role)
{
    access_seen *a = ctx;
    (void)session_id;
    a->tokens++;
    memcpy(a->digest, token_sha256, 32);
    a->role = role;
    return PDK_OK;
}

/* Migration 0005: an owner and a join token's digest go in through the
 * writer and come back with the session's name; a second owner is refused
 * like a duplicate input; a token row that is not a digest or a role is
 * refused by name at the read; deleting the recording deletes both; a
 * store on a schema before 0005 records no owner. */
START_TEST(test_owners_and_tokens)
{
    const char *path = tmp_path("paddock.db");
    pdk_store *s = open_ok(path, MIGRATIONS);
    pdk_store_session def = session_def(1, "owned");
    ck_assert_int_eq(pdk_store_record_session(s, &def), PDK_OK);
    uint8_t digest[32];
    for (int i = 0; i < 32; i++)
        digest[i] = (uint8_t)(i * 7 + 1);
    ck_assert_int_eq(pdk_store_record_owner(s, 1, "alice"), PDK_OK);
    ck_assert_int_eq(pdk_store_record_join_token(s, 1, digest, 5), PDK_OK);
    ck_assert_int_eq(pdk_store_record_owner(s, 1, "mallory"), PDK_OK); /* refused by SQLite */
    ck_assert_int_eq(pdk_store_record_owner(s, 1, ""), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_join_token(s, 1, NULL, 5), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_record_session_end(s, 1, 10, 99, 1700000001000), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    pdk_store_stats st;
    pdk_store_stats_get(s, &st);
    ck_assert_uint_eq(st.failed, 1);

    access_seen a = {0};
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_read_access(s, seen_owner, seen_token, &a, err, sizeof err), PDK_OK);
    ck_assert_int_eq(a.owners, 1);
    ck_assert_uint_eq(a.owner_session, 1);
    ck_assert_str_eq(a.owner, "alice");
    ck_assert_str_eq(a.session_name, "owned");
    ck_assert_int_eq(a.tokens, 1);
    ck_assert_int_eq(memcmp(a.digest, digest, 32), 0);
    ck_assert_int_eq(a.role, 5);
    ck_assert_int_eq(pdk_store_read_access(s, NULL, seen_token, &a, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "owner_fn is NULL"), "%s", err);

    sqlite3 *db = raw_open(path);
    raw_exec(db, "INSERT INTO join_tokens VALUES (x'0102', 1, 5)");
    sqlite3_close(db);
    ck_assert_int_eq(pdk_store_read_access(s, seen_owner, seen_token, &a, err, sizeof err),
                     PDK_ERR_DB);
    ck_assert_msg(strstr(err, "a join token of session 1 is not a 32-byte SHA-256"), "%s", err);
    db = raw_open(path);
    raw_exec(db, "UPDATE join_tokens SET token_sha256 = randomblob(32), role = 9 "
                 "WHERE length(token_sha256) = 2");
    sqlite3_close(db);
    ck_assert_int_eq(pdk_store_read_access(s, seen_owner, seen_token, &a, err, sizeof err),
                     PDK_ERR_DB);
    ck_assert_msg(strstr(err, "role = 9 is out of range [1, 5]"), "%s", err);

    ck_assert_int_eq(pdk_store_delete_recording(s, 1, err, sizeof err), PDK_OK);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM session_owners"), 0);
    ck_assert_int_eq(file_int(path, "SELECT COUNT(*) FROM join_tokens"), 0);
    pdk_store_close(s);

    /* Before migration 0005 there is nowhere to put an owner. */
    const char *dir = migrations_copy("mig");
    pdk_store *old = open_ok(tmp_path("old.db"), dir);
    ck_assert_int_eq(pdk_store_record_owner(old, 1, "alice"), PDK_ERR_DB);
    ck_assert_int_eq(pdk_store_record_join_token(old, 1, digest, 5), PDK_ERR_DB);
    pdk_store_close(old);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *mig = tcase_create("migrations");
    tcase_add_checked_fixture(mig, tmp_setup, tmp_teardown);
    tcase_add_test(mig, test_fresh_open_applies_initial);
    tcase_add_test(mig, test_reopen_applies_nothing);
    tcase_add_test(mig, test_second_migration_applies_on_reopen);
    tcase_add_test(mig, test_newer_database_refused);
    tcase_add_test(mig, test_misnamed_migration_refused);
    tcase_add_test(mig, test_duplicate_migration_number_refused);
    tcase_add_test(mig, test_migration_gap_refused);
    tcase_add_test(mig, test_missing_or_empty_migrations_dir);
    tcase_add_test(mig, test_broken_migration_rolls_back);
    tcase_add_test(mig, test_migration_with_own_transaction_refused);
    tcase_add_test(mig, test_not_a_database_refused);
    tcase_add_test(mig, test_parent_is_a_file);
    suite_add_tcase(s, mig);

    TCase *rec = tcase_create("recording");
    tcase_add_checked_fixture(rec, tmp_setup, tmp_teardown);
    tcase_set_timeout(rec, 60);
    tcase_add_test(rec, test_records_round_trip);
    tcase_add_test(rec, test_session_ids_continue_after_reopen);
    tcase_add_test(rec, test_session_ids_unique_across_threads);
    tcase_add_test(rec, test_many_inputs_never_block_the_caller);
    tcase_add_test(rec, test_locked_file_queues_without_blocking);
    tcase_add_test(rec, test_flush_covers_what_was_queued);
    tcase_add_test(rec, test_close_drains_the_queue);
    tcase_add_test(rec, test_record_after_shutdown_is_closed);
    tcase_add_test(rec, test_two_stores_concurrently);
    tcase_add_test(rec, test_refused_records_counted_and_logged);
    tcase_add_test(rec, test_invalid_arguments);
    tcase_add_test(rec, test_read_errors);
    tcase_add_test(rec, test_inputs_between_ticks);
    tcase_add_test(rec, test_owners_and_tokens);
    suite_add_tcase(s, rec);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(store_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
