/* The store's life cycle and its writer: open (folder, pragmas, migrations,
 * statements), the record queue the loop thread fills, the writer thread that
 * drains it in batched transactions, flush, stats, shutdown and close. The
 * design is argued in docs/adr/0002-sqlite-writer-thread.md. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#endif
#include <time.h>
#include <unistd.h>

#include "import_check.h"
#include "store_internal.h"

#define PDK_STORE_GATHER_NS 4000000u /* 4 ms: under half a 120 Hz tick */
#define PDK_STORE_IDLE_NS 200000000u /* 200 ms of empty queue: sleep until called */
#define PDK_STORE_WAKE_RECORDS 4096u /* a backlog this long is written at once */

/* Past this many refused records in one batch, the rest of that batch is
 * summarised in one line instead of one line each (a full disk would
 * otherwise print one line per queued input). */
#define LOG_LINES_PER_BATCH 20

/* One transaction holds at most this many records or bytes of texts and
 * payloads (a record bigger than that goes alone). A backlog is then written
 * as a run of short transactions: each commits within milliseconds, so what a
 * kill -9 loses is only what was not yet committed, a reader or an import
 * waiting for the write lock waits that long at most, and the WAL grows in
 * steps the checkpointer can follow. */
#define MAX_BATCH_RECORDS 8192u
#define MAX_BATCH_BYTES (16u * 1024u * 1024u)

void pdk_store_errf(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

int64_t pdk_store_now_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- Open ---- */

/* mkdir -p of the folder holding path ("a/b/c.db" -> "a/b"). */
static pdk_error make_parent_dirs(const char *path, char *err, size_t err_len)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) {
        return PDK_OK;
    }
    size_t n = (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (!dir) {
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    memcpy(dir, path, n);
    dir[n] = '\0';
    pdk_error rc = PDK_OK;
    for (size_t i = 1; i <= n && rc == PDK_OK; i++) {
        if (dir[i] != '/' && dir[i] != '\0') {
            continue;
        }
        char saved = dir[i];
        dir[i] = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            pdk_store_errf(err, err_len, "%s: cannot create folder %s: %s", path, dir,
                           strerror(errno));
            rc = PDK_ERR_IO;
        }
        dir[i] = saved;
    }
    struct stat sb;
    if (rc == PDK_OK && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        pdk_store_errf(err, err_len, "%s: %s is not a folder", path, dir);
        rc = PDK_ERR_IO;
    }
    free(dir);
    return rc;
}

/* The message for a failure on a connection, with a clearer word for the
 * common case of pointing paddockd at something that is not a database. */
static pdk_error db_error(sqlite3 *db, int rc, const char *path, const char *what, char *err,
                          size_t err_len)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_NOTADB) {
        pdk_store_errf(err, err_len, "%s: not a SQLite database (%s)", path, msg);
    } else {
        pdk_store_errf(err, err_len, "%s: %s: %s", path, what, msg);
    }
    return PDK_ERR_DB;
}

/* One pragma; when want is not NULL the pragma's single text result must
 * equal it (journal_mode answers with the mode it actually set). */
static pdk_error pragma(sqlite3 *db, const char *path, const char *sql, const char *want, char *err,
                        size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        return db_error(db, rc, path, sql, err, err_len);
    }
    pdk_error prc = PDK_OK;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *got = (const char *)sqlite3_column_text(st, 0);
        if (want && (!got || strcmp(got, want) != 0)) {
            pdk_store_errf(err, err_len, "%s: %s gave \"%s\", need \"%s\"", path, sql,
                           got ? got : "", want);
            prc = PDK_ERR_DB;
        }
    } else if (rc != SQLITE_DONE) {
        prc = db_error(db, rc, path, sql, err, err_len);
    }
    sqlite3_finalize(st);
    return prc;
}

static pdk_error open_connection(const char *path, int flags, sqlite3 **out, char *err,
                                 size_t err_len)
{
    sqlite3 *db = NULL;
    /* NOMUTEX: each connection is used by one thread at a time (the write
     * connection by the writer, the read one under read_mu). */
    int rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        db_error(db, rc, path, "cannot open", err, err_len);
        sqlite3_close(db);
        *out = NULL;
        return PDK_ERR_DB;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, PDK_STORE_BUSY_TIMEOUT_MS);
    *out = db;
    return PDK_OK;
}

static pdk_error prepare(pdk_store *s, const char *sql, sqlite3_stmt **out, char *err,
                         size_t err_len)
{
    int rc = sqlite3_prepare_v3(s->wdb, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
    if (rc != SQLITE_OK) {
        pdk_store_errf(err, err_len,
                       "%s: preparing \"%s\": %s (is the schema from these "
                       "migrations?)",
                       s->path, sql, sqlite3_errmsg(s->wdb));
        return PDK_ERR_DB;
    }
    return PDK_OK;
}

static pdk_error prepare_all(pdk_store *s, char *err, size_t err_len)
{
    struct {
        sqlite3_stmt **stmt;
        const char *sql;
    } list[] = {
        {&s->st.begin, "BEGIN IMMEDIATE"},
        {&s->st.commit, "COMMIT"},
        {&s->st.rollback, "ROLLBACK"},
        {&s->st.insert_build,
         "INSERT OR IGNORE INTO build(build_id, first_seen_unix_ms) VALUES (?1, ?2)"},
        {&s->st.insert_session,
         "INSERT INTO sessions(session_id, name, timing, world_preset, world_json, build_id, "
         "dt_s, substeps, created_unix_ms, start_tick, parent_session_id, parent_tick, "
         "keyframe_every_ticks) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"},
        {&s->st.end_session,
         "UPDATE sessions SET final_tick = ?2, final_hash = ?3, closed_unix_ms = ?4 "
         "WHERE session_id = ?1"},
        {&s->st.insert_vehicle,
         "INSERT INTO vehicles(session_id, vehicle_id, spawn_tick, preset, overrides, "
         "params_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
        {&s->st.remove_vehicle,
         "UPDATE vehicles SET removed_tick = ?3 WHERE session_id = ?1 AND vehicle_id = ?2 "
         "AND removed_tick IS NULL AND spawn_tick <= ?3"},
        {&s->st.insert_snapshot,
         s->schema_version >= PDK_STORE_KEYFRAME_ENCODING_VERSION
             ? "INSERT INTO snapshots(session_id, tick, hash, layout, blob, encoding) VALUES "
               "(?1, ?2, ?3, ?4, ?5, ?6)"
             : "INSERT INTO snapshots(session_id, tick, hash, layout, blob) VALUES (?1, ?2, ?3, "
               "?4, ?5)"},
        /* The last hash by tick is one step down state_hashes' primary key. */
        {&s->st.mark_interrupted,
         "UPDATE sessions SET interrupted = 1, "
         "final_tick = COALESCE((SELECT h.tick FROM state_hashes h "
         "WHERE h.session_id = sessions.session_id ORDER BY h.tick DESC LIMIT 1), 0), "
         "final_hash = COALESCE((SELECT h.hash FROM state_hashes h "
         "WHERE h.session_id = sessions.session_id ORDER BY h.tick DESC LIMIT 1), 0) "
         "WHERE closed_unix_ms IS NULL AND interrupted = 0"},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        pdk_error rc = prepare(s, list[i].sql, list[i].stmt, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    if (s->schema_version >= PDK_STORE_OWNERS_VERSION) {
        pdk_error rc = prepare(s, "INSERT INTO session_owners(session_id, owner) VALUES (?1, ?2)",
                               &s->st.insert_owner, err, err_len);
        if (rc == PDK_OK) {
            rc = prepare(s,
                         "INSERT INTO join_tokens(token_sha256, session_id, role) VALUES (?1, ?2, "
                         "?3)",
                         &s->st.insert_join_token, err, err_len);
        }
        if (rc != PDK_OK) {
            return rc;
        }
    }
    /* The grouped inserts (row_group): 2^g rows; an input row binds its
     * seq, kind and payload after the record's session and tick (?1, ?2),
     * a hash row its tick and hash after the session (?1). */
    char sql[2048];
    for (int g = 0; g < PDK_STORE_ROW_GROUPS; g++) {
        const int rows = 1 << g;
        int at = snprintf(sql, sizeof sql,
                          "INSERT INTO inputs(session_id, tick, seq, kind, payload) VALUES ");
        for (int j = 0; j < rows; j++) {
            at += snprintf(sql + at, sizeof sql - (size_t)at, "%s(?1, ?2, ?%d, ?%d, ?%d)",
                           j ? ", " : "", 3 * j + 3, 3 * j + 4, 3 * j + 5);
        }
        pdk_error rc = prepare(s, sql, &s->st.insert_inputs[g], err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
        at = snprintf(sql, sizeof sql, "INSERT INTO state_hashes(session_id, tick, hash) VALUES ");
        for (int j = 0; j < rows; j++) {
            at += snprintf(sql + at, sizeof sql - (size_t)at, "%s(?1, ?%d, ?%d)", j ? ", " : "",
                           2 * j + 2, 2 * j + 3);
        }
        rc = prepare(s, sql, &s->st.insert_hashes[g], err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return PDK_OK;
}

static void finalize_all(pdk_store *s)
{
    sqlite3_stmt **all[] = {&s->st.begin,           &s->st.commit,
                            &s->st.rollback,        &s->st.insert_build,
                            &s->st.insert_session,  &s->st.end_session,
                            &s->st.insert_vehicle,  &s->st.remove_vehicle,
                            &s->st.insert_snapshot, &s->st.mark_interrupted,
                            &s->st.insert_gap,      &s->st.insert_owner,
                            &s->st.insert_join_token};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        sqlite3_finalize(*all[i]);
        *all[i] = NULL;
    }
    for (int g = 0; g < PDK_STORE_ROW_GROUPS; g++) {
        sqlite3_finalize(s->st.insert_inputs[g]);
        sqlite3_finalize(s->st.insert_hashes[g]);
        s->st.insert_inputs[g] = s->st.insert_hashes[g] = NULL;
    }
}

static pdk_error read_max_session_id(pdk_store *s, char *err, size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->wdb, "SELECT COALESCE(MAX(session_id), 0) FROM sessions", -1,
                                &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    if (rc != SQLITE_ROW) {
        pdk_error e = db_error(s->wdb, rc, s->path, "reading the highest session id", err, err_len);
        sqlite3_finalize(st);
        return e;
    }
    atomic_store(&s->last_session_id, pdk_store_i64_to_u64(sqlite3_column_int64(st, 0)));
    sqlite3_finalize(st);
    return PDK_OK;
}

static void *writer_main(void *arg);
static int no_space(sqlite3 *db, int rc);

/* Frees whatever open managed to set up; also the tail of close. */
static void destroy(pdk_store *s)
{
    finalize_all(s);
    for (int i = 0; i < PDK_STORE_READERS; i++) {
        sqlite3_close(s->rdb[i]);
    }
    sqlite3_close(s->ddb);
    sqlite3_close(s->wdb);
    pthread_cond_destroy(&s->flushed_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->mu);
    for (int i = 0; i < PDK_STORE_READERS; i++) {
        pthread_mutex_destroy(&s->read_mu[i]);
    }
    pthread_mutex_destroy(&s->delete_mu);
    pdk_import_schema_free(s->import_schema);
    pdk_store_keyframe_free(s);
    for (int i = 0; i < s->n_spares; i++) {
        free(s->spares[i].block);
    }
    free(s->path);
    free(s);
}

static pdk_error open_store(pdk_store *s, const char *path, const pdk_migration_list *migrations,
                            char *err, size_t err_len)
{
    pdk_error rc = make_parent_dirs(path, err, err_len);
    if (rc == PDK_OK) {
        rc = open_connection(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &s->wdb, err,
                             err_len);
    }
    if (rc == PDK_OK) {
        rc = pragma(s->wdb, path, "PRAGMA journal_mode=WAL", "wal", err, err_len);
    }
    if (rc == PDK_OK) {
        rc = pragma(s->wdb, path, "PRAGMA synchronous=NORMAL", NULL, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = pragma(s->wdb, path, "PRAGMA foreign_keys=ON", NULL, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = pdk_migrations_apply(s->wdb, path, migrations, &s->schema_version, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = read_max_session_id(s, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = prepare_all(s, err, err_len);
    }
    for (int i = 0; i < PDK_STORE_READERS && rc == PDK_OK; i++) {
        rc = open_connection(path, SQLITE_OPEN_READONLY, &s->rdb[i], err, err_len);
    }
    return rc;
}

/* One integer a query on db gives (0 when it gives none); SQLite's code. */
static int query_i64(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    *out = 0;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* The open failed for want of space: the database, its WAL or the WAL's
 * index (the -shm file, 32 KiB) could not grow, so nothing can be written.
 * What was recorded can still be read: the read connections are opened
 * immutable (no WAL index, no lock), which is right only while the WAL is
 * empty, as a clean stop leaves it; a WAL holding commits, or a database
 * that needs migrations, is refused with a message saying so. There is no
 * writer: records are refused (PDK_ERR_CLOSED) and disk_full stays set. */
static pdk_error open_read_only(pdk_store *s, const char *path,
                                const pdk_migration_list *migrations, char *err, size_t err_len)
{
    int sys = s->wdb ? sqlite3_system_errno(s->wdb) : 0;
    char why[PDK_STORE_ERR_LEN];
    snprintf(why, sizeof why, "%.200s%s%.100s%s", s->wdb ? sqlite3_errmsg(s->wdb) : "no space",
             sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
    finalize_all(s);
    for (int i = 0; i < PDK_STORE_READERS; i++) {
        sqlite3_close(s->rdb[i]);
        s->rdb[i] = NULL;
    }
    sqlite3_close(s->wdb);
    s->wdb = NULL;

    size_t wal_len = strlen(path) + 5;
    char *wal = malloc(wal_len);
    char *uri = pdk_store_file_uri(path, "mode=ro&immutable=1");
    if (!wal || !uri) {
        free(wal);
        free(uri);
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    snprintf(wal, wal_len, "%s-wal", path);
    struct stat sb;
    pdk_error rc = PDK_OK;
    if (stat(wal, &sb) == 0 && sb.st_size > 0) {
        pdk_store_errf(err, err_len,
                       "%s: the disk is full (%s) and %s holds %lld bytes of commits not yet in "
                       "the database, which only a writer can read: free some space and start "
                       "again",
                       path, why, wal, (long long)sb.st_size);
        rc = PDK_ERR_IO;
    }
    free(wal);
    for (int i = 0; i < PDK_STORE_READERS && rc == PDK_OK; i++) {
        int orc = sqlite3_open_v2(
            uri, &s->rdb[i], SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
        if (orc != SQLITE_OK) {
            rc = db_error(s->rdb[i], orc, path, "cannot open read-only", err, err_len);
        } else {
            sqlite3_extended_result_codes(s->rdb[i], 1);
        }
    }
    free(uri);
    int64_t have = 0;
    int64_t known = migrations->items[migrations->count - 1].version;
    if (rc == PDK_OK &&
        query_i64(s->rdb[0], "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &have) !=
            SQLITE_OK) {
        have = 0; /* a new, empty file: no schema_migrations yet */
    }
    if (rc == PDK_OK && have > known) {
        pdk_store_errf(err, err_len,
                       "%s: database schema version %lld is newer than this binary knows (%lld)",
                       path, (long long)have, (long long)known);
        rc = PDK_ERR_DB_TOO_NEW;
    } else if (rc == PDK_OK && have < known) {
        pdk_store_errf(err, err_len,
                       "%s: the disk is full (%s) and the database is at schema version %lld "
                       "while this binary needs %lld: the migrations must write; free some "
                       "space and start again",
                       path, why, (long long)have, (long long)known);
        rc = PDK_ERR_IO;
    }
    int64_t max_id = 0;
    if (rc == PDK_OK && query_i64(s->rdb[0], "SELECT COALESCE(MAX(session_id), 0) FROM sessions",
                                  &max_id) != SQLITE_OK) {
        rc = db_error(s->rdb[0], sqlite3_errcode(s->rdb[0]), path, "reading the highest session id",
                      err, err_len);
    }
    if (rc != PDK_OK) {
        return rc;
    }
    atomic_store(&s->last_session_id, pdk_store_i64_to_u64(max_id));
    s->schema_version = (int)known;
    s->read_only = 1;
    s->closing = 1;
    s->disk_full = 1;
    snprintf(s->disk_reason, sizeof s->disk_reason, "%.200s: the disk was full at start: %.250s",
             path, why);
    pdk_store_errf(err, err_len, "%s", "");
    return PDK_OK;
}

pdk_error pdk_store_open(const char *path, const char *migrations_dir, pdk_store **out, char *err,
                         size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (out) {
        *out = NULL;
    }
    if (!path || !path[0] || !migrations_dir || !out) {
        pdk_store_errf(err, err_len, "pdk_store_open: %s is %s",
                       !path || !path[0] ? "path"
                       : !migrations_dir ? "migrations_dir"
                                         : "out",
                       path && !path[0] ? "empty" : "NULL");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!sqlite3_threadsafe()) {
        pdk_store_errf(err, err_len, "%s: this SQLite library was built without thread support",
                       path);
        return PDK_ERR_DB;
    }
    /* The migrations are checked first so a bad folder leaves no new file. */
    pdk_migration_list migrations;
    pdk_error rc = pdk_migrations_scan(migrations_dir, &migrations, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    pdk_store *s = calloc(1, sizeof *s);
    if (s) {
        s->kept_limit = PDK_STORE_DEFAULT_KEPT_BYTES;
    }
    size_t plen = strlen(path) + 1;
    char *pcopy = malloc(plen);
    if (!s || !pcopy) {
        free(s);
        free(pcopy);
        pdk_migrations_free(&migrations);
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    memcpy(pcopy, path, plen);
    s->path = pcopy;
    pthread_mutex_init(&s->mu, NULL);
    for (int i = 0; i < PDK_STORE_READERS; i++) {
        pthread_mutex_init(&s->read_mu[i], NULL);
    }
    pthread_mutex_init(&s->delete_mu, NULL);
    /* The writer's timed waits run on the monotonic clock. */
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&s->work_cv, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_cond_init(&s->flushed_cv, NULL);

    rc = open_store(s, path, &migrations, err, err_len);
    if (rc != PDK_OK && s->wdb &&
        (no_space(s->wdb, sqlite3_extended_errcode(s->wdb)) ||
         sqlite3_system_errno(s->wdb) == ENOSPC || sqlite3_system_errno(s->wdb) == EDQUOT)) {
        rc = open_read_only(s, path, &migrations, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = pdk_import_schema_build(&migrations, &s->import_schema, err, err_len);
    }
    pdk_migrations_free(&migrations);
    if (rc == PDK_OK && !s->read_only) {
        int prc = pthread_create(&s->writer, NULL, writer_main, s);
        if (prc != 0) {
            pdk_store_errf(err, err_len, "%s: cannot start the writer thread: %s", path,
                           strerror(prc));
            rc = PDK_ERR_NO_MEMORY;
        }
    }
    if (rc != PDK_OK) {
        destroy(s);
        return rc;
    }
    s->writer_started = !s->read_only;
    *out = s;
    return PDK_OK;
}

int pdk_store_schema_version(const pdk_store *store)
{
    return store ? store->schema_version : 0;
}

uint64_t pdk_store_next_session_id(pdk_store *store)
{
    if (!store) {
        return 0; /* the null id */
    }
    return atomic_fetch_add(&store->last_session_id, 1) + 1;
}

/* ---- Records: copied by the caller's thread, queued under mu ---- */

static pdk_error text_len(const char *t, size_t *len)
{
    *len = t ? strlen(t) : 0;
    return *len > PDK_STORE_MAX_FIELD_BYTES ? PDK_ERR_OUT_OF_RANGE : PDK_OK;
}

/* Allocates a record with room for ntext texts and a blob, copies them in;
 * the blob is blob_len bytes of blob followed by more_len of more. */
static pdk_error new_record(rec_kind kind, const char *const *texts, size_t ntext, const void *blob,
                            size_t blob_len, const void *more, size_t more_len,
                            pdk_store_record **out)
{
    *out = NULL;
    size_t lens[5] = {0};
    size_t total = 0;
    for (size_t i = 0; i < ntext; i++) {
        pdk_error rc = text_len(texts[i], &lens[i]);
        if (rc != PDK_OK) {
            return rc;
        }
        total += lens[i] + 1;
    }
    if (blob_len > PDK_STORE_MAX_FIELD_BYTES || more_len > PDK_STORE_MAX_FIELD_BYTES - blob_len) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    total += blob_len + more_len;
    pdk_store_record *r = malloc(sizeof *r + total);
    if (!r) {
        return PDK_ERR_NO_MEMORY;
    }
    memset(r, 0, sizeof *r);
    r->kind = kind;
    unsigned char *p = r->data;
    for (size_t i = 0; i < ntext; i++) {
        if (lens[i]) {
            memcpy(p, texts[i], lens[i]);
        }
        p[lens[i]] = '\0';
        r->text[i] = (const char *)p;
        r->text_len[i] = lens[i];
        p += lens[i] + 1;
    }
    if (blob_len + more_len) {
        r->blob = p;
    }
    if (blob_len) {
        memcpy(p, blob, blob_len);
    }
    if (more_len) {
        memcpy(p + blob_len, more, more_len);
    }
    r->blob_len = blob_len + more_len;
    *out = r;
    return PDK_OK;
}

void pdk_store_record_free_(pdk_store_record *r)
{
    if (r) {
        free(r->owned);
        free(r);
    }
}

/* A written record goes; a keyframe's block it was handed stays for its
 * session's next keyframe while there is room among the spares. */
static void record_done(pdk_store *s, pdk_store_record *r)
{
    if (r->owned) {
        pthread_mutex_lock(&s->mu);
        if (s->n_spares < PDK_STORE_SPARES) {
            /* The keyframe's encode wrote its first blob_len bytes. */
            s->spares[s->n_spares++] = (pdk_store_spare){.block = r->owned,
                                                         .cap = r->owned_cap,
                                                         .warm = r->blob_len,
                                                         .session = r->session_id};
            r->owned = NULL;
        }
        pthread_mutex_unlock(&s->mu);
    }
    pdk_store_record_free_(r);
}

/* Spare k out of the list (under mu). */
static pdk_store_spare spare_out(pdk_store *s, int k)
{
    pdk_store_spare sp = s->spares[k];
    s->spares[k] = s->spares[--s->n_spares];
    return sp;
}

/* The spare for session (under mu): the warmest of its own, else the
 * warmest of those no session has (with others, of any session's); -1
 * when there is none. */
static int spare_for(const pdk_store *s, uint64_t session, bool others)
{
    int best = -1, best_rank = 0;
    for (int k = 0; k < s->n_spares; k++) {
        const pdk_store_spare *sp = &s->spares[k];
        const int rank = sp->session == session ? 2 : (sp->session == 0 || others ? 1 : 0);
        if (rank > best_rank ||
            (rank > 0 && rank == best_rank && sp->warm > s->spares[best].warm)) {
            best = k;
            best_rank = rank;
        }
    }
    return best;
}

void *pdk_store_spare_take(pdk_store *store, uint64_t session_id, size_t *cap)
{
    void *block = NULL;
    *cap = 0;
    if (!store) {
        return NULL;
    }
    pthread_mutex_lock(&store->mu);
    int k = spare_for(store, session_id, true);
    if (k >= 0) {
        pdk_store_spare sp = spare_out(store, k);
        block = sp.block;
        *cap = sp.cap;
    }
    pthread_mutex_unlock(&store->mu);
    return block;
}

void pdk_store_spare_want(pdk_store *store, uint64_t session_id, size_t bytes)
{
    if (!store || bytes == 0) {
        return;
    }
    pthread_mutex_lock(&store->mu);
    int i = 0;
    while (i < store->n_wants && store->wants[i].session != session_id) {
        i++;
    }
    if (i == store->n_wants && i < PDK_STORE_SPARES) {
        store->n_wants++;
    }
    if (i < PDK_STORE_SPARES) { /* else more sessions ask at once than spares are kept */
        store->wants[i] = (pdk_store_spare){.warm = bytes, .session = session_id};
        pthread_cond_signal(&store->work_cv);
    }
    pthread_mutex_unlock(&store->mu);
}

/* *sp grown to want bytes (from no block, cap 0, too) and its pages from
 * sp->warm to want written once; as it was when it cannot grow. */
static void grow_warm(pdk_store_spare *sp, size_t want)
{
    if (sp->cap < want) {
        unsigned char *grown = realloc(sp->block, want);
        if (grown) {
            sp->block = grown;
            sp->cap = want;
        }
    }
    if (sp->block && sp->cap >= want) {
        const long page = sysconf(_SC_PAGESIZE);
        const size_t step = page > 0 ? (size_t)page : 4096u;
        for (size_t i = sp->warm; i < want; i += step) {
            ((volatile unsigned char *)sp->block)[i] = 0;
        }
        sp->warm = want;
    }
}

/* The spare mapped the least (under mu); -1 when there is none. */
static int coldest_spare(const pdk_store *s)
{
    int k = -1;
    for (int i = 0; i < s->n_spares; i++) {
        if (k < 0 || s->spares[i].warm < s->spares[k].warm) {
            k = i;
        }
    }
    return k;
}

/* The writer's part of pdk_store_spare_want (called and returning under
 * mu, which it lets go meanwhile): for each session that asked, unless a
 * spare of its own is warm enough, its own warmest spare or one no session
 * has, else a new block while there is room, else the coldest of other
 * sessions' spares (those of sessions long ended, as often as not), grown
 * to the bytes asked for, its pages written once, and kept as the
 * session's. Only this thread adds spares, and each ask takes one out
 * before it puts one back, so there is room. */
static void prepare_spares(pdk_store *s)
{
    while (s->n_wants > 0) {
        const pdk_store_spare want = s->wants[--s->n_wants];
        int k = spare_for(s, want.session, false);
        if (k >= 0 && s->spares[k].session == want.session && s->spares[k].warm >= want.warm) {
            continue;
        }
        if (k < 0 && s->n_spares == PDK_STORE_SPARES) {
            k = coldest_spare(s);
        }
        pdk_store_spare sp = k >= 0 ? spare_out(s, k) : (pdk_store_spare){0};
        pthread_mutex_unlock(&s->mu);
        grow_warm(&sp, want.warm);
        pthread_mutex_lock(&s->mu);
        if (sp.block) {
            PDK_ASSERT(s->n_spares < PDK_STORE_SPARES);
            sp.session = want.session;
            s->spares[s->n_spares++] = sp;
        }
    }
}

static pdk_error enqueue(pdk_store *s, pdk_store_record *r)
{
    pthread_mutex_lock(&s->mu);
    if (s->closing) {
        pthread_mutex_unlock(&s->mu);
        free(r); /* alone: a block it was handed stays its caller's */
        return PDK_ERR_CLOSED;
    }
    int was_empty = s->head == NULL;
    if (s->tail) {
        s->tail->next = r;
    } else {
        s->head = r;
        s->head_ns = pdk_store_monotonic_ns();
    }
    s->tail = r;
    s->queue_len++;
    s->enqueued_seq++;
    /* A gathering writer wakes by itself within PDK_STORE_GATHER_NS; only
     * an idle one, or a backlog worth a transaction now, needs the call. */
    if ((was_empty && s->writer_idle) || s->queue_len == PDK_STORE_WAKE_RECORDS) {
        pthread_cond_signal(&s->work_cv);
    }
    pthread_mutex_unlock(&s->mu);
    return PDK_OK;
}

/* CLOSED is reported before any copy is made, so a closed store costs a
 * caller nothing; enqueue checks again under the lock. The unlocked read is
 * a hint only (closing goes from 0 to 1 once), read atomically so that it
 * costs a record no second lock round trip. */
static int is_closing(pdk_store *s)
{
    return __atomic_load_n(&s->closing, __ATOMIC_RELAXED);
}

pdk_error pdk_store_record_session(pdk_store *store, const pdk_store_session *session)
{
    if (!store || !session || !session->name || !session->timing || !session->build_id) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    const char *texts[5] = {session->name, session->timing, session->world_preset,
                            session->world_json, session->build_id};
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_SESSION, texts, 5, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session->session_id;
    r->dt_s = session->dt_s;
    r->number = session->substeps;
    r->unix_ms = session->created_unix_ms;
    r->tick = session->start_tick;
    r->value = session->parent_session_id;
    r->aux = session->parent_tick;
    r->id = session->keyframe_every_ticks;
    return enqueue(store, r);
}

pdk_error pdk_store_record_session_end(pdk_store *store, uint64_t session_id, uint64_t final_tick,
                                       uint64_t final_hash, int64_t closed_unix_ms)
{
    if (!store) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_SESSION_END, NULL, 0, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->tick = final_tick;
    r->value = final_hash;
    r->unix_ms = closed_unix_ms;
    return enqueue(store, r);
}

pdk_error pdk_store_record_vehicle(pdk_store *store, uint64_t session_id, uint32_t vehicle_id,
                                   uint64_t spawn_tick, const char *preset, const char *overrides,
                                   const char *params_json)
{
    if (!store || !preset || !params_json) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    const char *texts[3] = {preset, overrides, params_json};
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_VEHICLE, texts, 3, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->id = vehicle_id;
    r->tick = spawn_tick;
    return enqueue(store, r);
}

pdk_error pdk_store_record_vehicle_removed(pdk_store *store, uint64_t session_id,
                                           uint32_t vehicle_id, uint64_t tick)
{
    if (!store) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_VEHICLE_REMOVED, NULL, 0, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->id = vehicle_id;
    r->tick = tick;
    return enqueue(store, r);
}

pdk_error pdk_store_record_input(pdk_store *store, uint64_t session_id, uint64_t tick, uint32_t seq,
                                 int kind, const void *payload, size_t payload_len)
{
    if (!store || (!payload && payload_len > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_INPUT, NULL, 0, payload, payload_len, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->tick = tick;
    r->id = seq;
    r->number = kind;
    return enqueue(store, r);
}

pdk_error pdk_store_record_hash(pdk_store *store, uint64_t session_id, uint64_t tick, uint64_t hash)
{
    if (!store) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_HASH, NULL, 0, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->tick = tick;
    r->value = hash;
    return enqueue(store, r);
}

/* Walks a packed inputs blob: PDK_OK when its entries fill it exactly. */
static pdk_error inputs_well_formed(const unsigned char *p, size_t len)
{
    size_t at = 0;
    while (at < len) {
        uint32_t head[3];
        if (len - at < sizeof head) {
            return PDK_ERR_INVALID_ARGUMENT;
        }
        memcpy(head, p + at, sizeof head);
        at += sizeof head;
        if (head[2] > len - at) {
            return PDK_ERR_INVALID_ARGUMENT;
        }
        at += head[2];
    }
    return PDK_OK;
}

pdk_error pdk_store_record_tick(pdk_store *store, uint64_t session_id, uint64_t hashes_from,
                                const uint64_t *hashes, size_t n_hashes, uint64_t tick,
                                const void *packed, size_t len)
{
    if (!store || (n_hashes == 0 && len == 0) || (n_hashes > 0 && !hashes) ||
        n_hashes > PDK_STORE_MAX_HASHES ||
        (len > 0 && (!packed || inputs_well_formed(packed, len) != PDK_OK))) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc =
        new_record(REC_TICK, NULL, 0, hashes, n_hashes * sizeof *hashes, packed, len, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->value = hashes_from;
    r->number = (int32_t)n_hashes;
    r->tick = tick;
    return enqueue(store, r);
}

pdk_error pdk_store_record_inputs(pdk_store *store, uint64_t session_id, uint64_t tick,
                                  const void *packed, size_t len)
{
    if (len == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return pdk_store_record_tick(store, session_id, 0u, NULL, 0, tick, packed, len);
}

pdk_error pdk_store_record_hashes(pdk_store *store, uint64_t session_id, uint64_t first_tick,
                                  const uint64_t *hashes, size_t n)
{
    if (n == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return pdk_store_record_tick(store, session_id, first_tick, hashes, n, 0u, NULL, 0);
}

/* A keyframe's record, its blob copied (none when blob_len is 0). */
static pdk_error new_snapshot(uint64_t session_id, uint64_t tick, uint64_t hash, uint64_t layout,
                              const void *blob, size_t blob_len, pdk_store_record **out)
{
    pdk_error rc = new_record(REC_SNAPSHOT, NULL, 0, blob, blob_len, NULL, 0, out);
    if (rc == PDK_OK) {
        (*out)->session_id = session_id;
        (*out)->tick = tick;
        (*out)->value = hash;
        (*out)->aux = layout;
    }
    return rc;
}

pdk_error pdk_store_record_snapshot(pdk_store *store, uint64_t session_id, uint64_t tick,
                                    uint64_t hash, uint64_t layout, const void *blob,
                                    size_t blob_len)
{
    if (!store || (!blob && blob_len > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_snapshot(session_id, tick, hash, layout, blob, blob_len, &r);
    return rc == PDK_OK ? enqueue(store, r) : rc;
}

pdk_error pdk_store_record_snapshot_take(pdk_store *store, uint64_t session_id, uint64_t tick,
                                         uint64_t hash, uint64_t layout, void **blob,
                                         size_t blob_len, size_t blob_cap)
{
    if (!store || !blob || !*blob || blob_len > blob_cap) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (blob_len > PDK_STORE_MAX_FIELD_BYTES) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_snapshot(session_id, tick, hash, layout, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->blob = *blob;
    r->blob_len = blob_len;
    r->owned = *blob;
    r->owned_cap = blob_cap;
    /* Refused (the store closing meanwhile), enqueue frees the record
     * alone: the block stays the caller's. */
    rc = enqueue(store, r);
    if (rc == PDK_OK) {
        *blob = NULL;
    }
    return rc;
}

pdk_error pdk_store_record_owner(pdk_store *store, uint64_t session_id, const char *owner)
{
    if (!store || !owner || !owner[0]) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!store->st.insert_owner) {
        return PDK_ERR_DB; /* a schema before PDK_STORE_OWNERS_VERSION */
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    const char *texts[1] = {owner};
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_OWNER, texts, 1, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    return enqueue(store, r);
}

pdk_error pdk_store_record_join_token(pdk_store *store, uint64_t session_id,
                                      const uint8_t token_sha256[32], int role)
{
    if (!store || !token_sha256) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!store->st.insert_join_token) {
        return PDK_ERR_DB; /* a schema before PDK_STORE_OWNERS_VERSION */
    }
    if (is_closing(store)) {
        return PDK_ERR_CLOSED;
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_JOIN_TOKEN, NULL, 0, token_sha256, 32, NULL, 0, &r);
    if (rc != PDK_OK) {
        return rc;
    }
    r->session_id = session_id;
    r->number = role;
    return enqueue(store, r);
}

/* ---- The writer thread ---- */

/* Steps a statement that returns no rows and resets it; on failure copies
 * SQLite's message to why. The bound texts are SQLITE_STATIC views into the
 * record, so the bindings are cleared before the record can be freed. */
static int run(sqlite3 *db, sqlite3_stmt *st, char *why, size_t why_len)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        snprintf(why, why_len, "%s", sqlite3_errmsg(db));
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void bind_text(sqlite3_stmt *st, int i, const pdk_store_record *r, int t)
{
    sqlite3_bind_text(st, i, r->text[t], (int)r->text_len[t], SQLITE_STATIC);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, pdk_store_u64_to_i64(v));
}

/* How many rows the next statement of a record takes when left rows remain:
 * the largest group, 2^g rows, that fits. One statement's own cost (its step,
 * reset and the start of its program) is a large share of a single row's, so
 * rows grouped into one statement cost much less each (ADR 0014). */
static int row_group(size_t left)
{
    int g = PDK_STORE_ROW_GROUPS - 1;
    while ((size_t)1 << g > left) {
        g--;
    }
    return g;
}

/* n consecutive ticks' hashes from first_tick (hashes possibly unaligned),
 * in groups. A statement is atomic, so a refused row (a tick already
 * recorded) refuses its group and the rest; the groups before it stay. */
static int insert_hashes(pdk_store *s, uint64_t session_id, uint64_t first_tick, const void *hashes,
                         size_t n, char *why, size_t why_len)
{
    const uint8_t *p = hashes;
    size_t done = 0;
    while (done < n) {
        const int g = row_group(n - done);
        sqlite3_stmt *st = s->st.insert_hashes[g];
        bind_u64(st, 1, session_id);
        for (int j = 0; j < 1 << g; j++) {
            uint64_t h;
            memcpy(&h, p + (done + (size_t)j) * sizeof h, sizeof h);
            bind_u64(st, 2 * j + 2, first_tick + done + (size_t)j);
            bind_u64(st, 2 * j + 3, h);
        }
        int rc = run(s->wdb, st, why, why_len);
        if (rc != SQLITE_OK) {
            return rc;
        }
        done += (size_t)1 << g;
    }
    return SQLITE_OK;
}

/* A tick's inputs, packed as pdk_store_record_tick takes them (a head of
 * seq, kind and payload length, then the payload, each), in groups; a
 * refused row (a (tick, seq) already recorded) refuses its group and the
 * rest, as insert_hashes. */
static int insert_inputs(pdk_store *s, uint64_t session_id, uint64_t tick, const uint8_t *packed,
                         size_t len, char *why, size_t why_len)
{
    size_t left = 0;
    for (size_t at = 0; at < len; left++) {
        uint32_t head[3];
        memcpy(head, packed + at, sizeof head);
        at += sizeof head + head[2];
    }
    size_t at = 0;
    while (left > 0) {
        const int g = row_group(left);
        sqlite3_stmt *st = s->st.insert_inputs[g];
        bind_u64(st, 1, session_id);
        bind_u64(st, 2, tick);
        for (int j = 0; j < 1 << g; j++) {
            uint32_t head[3];
            memcpy(head, packed + at, sizeof head);
            at += sizeof head;
            sqlite3_bind_int64(st, 3 * j + 3, head[0]);
            sqlite3_bind_int(st, 3 * j + 4, (int)head[1]);
            if (head[2]) {
                sqlite3_bind_blob64(st, 3 * j + 5, packed + at, head[2], SQLITE_STATIC);
            } else {
                sqlite3_bind_zeroblob(st, 3 * j + 5, 0); /* an empty BLOB, not NULL */
            }
            at += head[2];
        }
        int rc = run(s->wdb, st, why, why_len);
        if (rc != SQLITE_OK) {
            return rc;
        }
        left -= (size_t)1 << g;
    }
    return SQLITE_OK;
}

/* Writes one record's statements; SQLITE_OK or the failing code, with why. */


static int write_record(pdk_store *s, pdk_store_record *r, char *why, size_t why_len)
{
    sqlite3_stmt *st = NULL;
    int rc;
    switch (r->kind) {
    case REC_SESSION:
        st = s->st.insert_build;
        bind_text(st, 1, r, 4);
        sqlite3_bind_int64(st, 2, r->unix_ms);
        rc = run(s->wdb, st, why, why_len);
        if (rc != SQLITE_OK) {
            return rc;
        }
        st = s->st.insert_session;
        bind_u64(st, 1, r->session_id);
        for (int t = 0; t < 5; t++) {
            bind_text(st, 2 + t, r, t);
        }
        sqlite3_bind_double(st, 7, r->dt_s);
        sqlite3_bind_int(st, 8, r->number);
        sqlite3_bind_int64(st, 9, r->unix_ms);
        bind_u64(st, 10, r->tick);
        bind_u64(st, 11, r->value);
        bind_u64(st, 12, r->aux);
        sqlite3_bind_int64(st, 13, r->id);
        return run(s->wdb, st, why, why_len);
    case REC_SESSION_END:
        st = s->st.end_session;
        bind_u64(st, 1, r->session_id);
        bind_u64(st, 2, r->tick);
        bind_u64(st, 3, r->value);
        sqlite3_bind_int64(st, 4, r->unix_ms);
        rc = run(s->wdb, st, why, why_len);
        if (rc == SQLITE_OK && sqlite3_changes(s->wdb) == 0) {
            snprintf(why, why_len, "no such session");
            return SQLITE_NOTFOUND;
        }
        return rc;
    case REC_VEHICLE:
        st = s->st.insert_vehicle;
        bind_u64(st, 1, r->session_id);
        sqlite3_bind_int64(st, 2, r->id);
        bind_u64(st, 3, r->tick);
        for (int t = 0; t < 3; t++) {
            bind_text(st, 4 + t, r, t);
        }
        return run(s->wdb, st, why, why_len);
    case REC_VEHICLE_REMOVED:
        st = s->st.remove_vehicle;
        bind_u64(st, 1, r->session_id);
        sqlite3_bind_int64(st, 2, r->id);
        bind_u64(st, 3, r->tick);
        rc = run(s->wdb, st, why, why_len);
        if (rc == SQLITE_OK && sqlite3_changes(s->wdb) == 0) {
            snprintf(why, why_len,
                     "no vehicle with this id spawned at or before this tick "
                     "and not yet removed");
            return SQLITE_NOTFOUND;
        }
        return rc;
    case REC_INPUT:
        st = s->st.insert_inputs[0];
        bind_u64(st, 1, r->session_id);
        bind_u64(st, 2, r->tick);
        sqlite3_bind_int64(st, 3, r->id);
        sqlite3_bind_int(st, 4, r->number);
        if (r->blob_len) {
            sqlite3_bind_blob64(st, 5, r->blob, r->blob_len, SQLITE_STATIC);
        } else {
            sqlite3_bind_zeroblob(st, 5, 0); /* an empty BLOB, not NULL */
        }
        return run(s->wdb, st, why, why_len);
    case REC_HASH: {
        const uint64_t h = r->value;
        return insert_hashes(s, r->session_id, r->tick, &h, 1, why, why_len);
    }
    case REC_TICK: {
        /* The hashes first, then the inputs (the order they were held in). */
        const size_t n = (size_t)r->number;
        const size_t hash_bytes = n * sizeof(uint64_t);
        rc = insert_hashes(s, r->session_id, r->value, r->blob, n, why, why_len);
        if (rc != SQLITE_OK) {
            return rc;
        }
        return insert_inputs(s, r->session_id, r->tick, r->blob + hash_bytes,
                             r->blob_len - hash_bytes, why, why_len);
    }
    case REC_SNAPSHOT: {
        st = s->st.insert_snapshot;
        bind_u64(st, 1, r->session_id);
        bind_u64(st, 2, r->tick);
        bind_u64(st, 3, r->value);
        bind_u64(st, 4, r->aux);
        const unsigned char *blob = r->blob;
        size_t blob_len = r->blob_len;
        int encoding = PDK_STORE_KEYFRAME_RAW;
        if (s->schema_version >= PDK_STORE_KEYFRAME_ENCODING_VERSION) {
            size_t packed = pdk_store_keyframe_pack(s, r->blob, r->blob_len);
            if (packed > 0) {
                blob = s->zbuf;
                blob_len = packed;
                encoding = PDK_STORE_KEYFRAME_ZSTD;
            }
            sqlite3_bind_int(st, 6, encoding);
        }
        if (blob_len) {
            sqlite3_bind_blob64(st, 5, blob, blob_len, SQLITE_STATIC);
        } else {
            sqlite3_bind_zeroblob(st, 5, 0);
        }
        return run(s->wdb, st, why, why_len);
    }
    case REC_GAP:
        /* Prepared when first needed: a store opened on migrations before
         * 0004 (the store's tests) has no recording_gaps to prepare it on. */
        if (!s->st.insert_gap &&
            sqlite3_prepare_v3(s->wdb,
                               "INSERT INTO recording_gaps(session_id, first_tick, last_tick, "
                               "records) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(session_id, "
                               "first_tick) DO UPDATE SET last_tick = MAX(last_tick, "
                               "excluded.last_tick), records = records + excluded.records",
                               -1, SQLITE_PREPARE_PERSISTENT, &s->st.insert_gap,
                               NULL) != SQLITE_OK) {
            snprintf(why, why_len, "%s", sqlite3_errmsg(s->wdb));
            return SQLITE_ERROR;
        }
        st = s->st.insert_gap;
        bind_u64(st, 1, r->session_id);
        bind_u64(st, 2, r->tick);
        bind_u64(st, 3, r->value);
        bind_u64(st, 4, r->aux);
        return run(s->wdb, st, why, why_len);
    case REC_MARK_INTERRUPTED:
        rc = run(s->wdb, s->st.mark_interrupted, why, why_len);
        if (rc == SQLITE_OK && r->reply) {
            r->reply->n_marked = (uint64_t)sqlite3_changes64(s->wdb);
        }
        return rc;
    case REC_OWNER:
        st = s->st.insert_owner;
        bind_u64(st, 1, r->session_id);
        bind_text(st, 2, r, 0);
        return run(s->wdb, st, why, why_len);
    case REC_JOIN_TOKEN:
        st = s->st.insert_join_token;
        sqlite3_bind_blob(st, 1, r->blob, (int)r->blob_len, SQLITE_STATIC);
        bind_u64(st, 2, r->session_id);
        sqlite3_bind_int(st, 3, r->number);
        return run(s->wdb, st, why, why_len);
    }
    snprintf(why, why_len, "unknown record kind %d", (int)r->kind);
    return SQLITE_MISUSE;
}

static void describe(const pdk_store_record *r, char *out, size_t len)
{
    unsigned long long sid = (unsigned long long)r->session_id;
    unsigned long long tick = (unsigned long long)r->tick;
    switch (r->kind) {
    case REC_SESSION:
        snprintf(out, len, "session %llu", sid);
        return;
    case REC_SESSION_END:
        snprintf(out, len, "end of session %llu at tick %llu", sid, tick);
        return;
    case REC_VEHICLE:
        snprintf(out, len, "vehicle %u of session %llu spawned at tick %llu", r->id, sid, tick);
        return;
    case REC_VEHICLE_REMOVED:
        snprintf(out, len, "removal of vehicle %u of session %llu at tick %llu", r->id, sid, tick);
        return;
    case REC_INPUT:
        snprintf(out, len, "input (session %llu, tick %llu, seq %u, kind %d)", sid, tick, r->id,
                 (int)r->number);
        return;
    case REC_HASH:
        snprintf(out, len, "state hash (session %llu, tick %llu)", sid, tick);
        return;
    case REC_TICK: {
        const size_t hash_bytes = (size_t)r->number * sizeof(uint64_t);
        snprintf(out, len,
                 "%d state hashes from tick %llu and %zu bytes of inputs at tick %llu (session "
                 "%llu)",
                 (int)r->number, (unsigned long long)r->value, r->blob_len - hash_bytes, tick, sid);
        return;
    }
    case REC_SNAPSHOT:
        snprintf(out, len, "keyframe (session %llu, tick %llu, %zu bytes)", sid, tick, r->blob_len);
        return;
    case REC_MARK_INTERRUPTED:
        snprintf(out, len, "marking sessions without an end as interrupted");
        return;
    case REC_GAP:
        snprintf(out, len, "the lost ticks %llu..%llu of session %llu", tick,
                 (unsigned long long)r->value, sid);
        return;
    case REC_OWNER:
        snprintf(out, len, "owner of session %llu", sid);
        return;
    case REC_JOIN_TOKEN:
        snprintf(out, len, "join token for session %llu", sid);
        return;
    }
    snprintf(out, len, "record of unknown kind %d", (int)r->kind);
}

const uint64_t pdk_store_commit_bounds_ns[PDK_STORE_COMMIT_BOUNDS] = {
    1000000u,  2500000u,   5000000u,   10000000u,   25000000u,
    50000000u, 100000000u, 250000000u, 1000000000u,
};

typedef struct batch_result {
    uint64_t written;
    uint64_t failed;
    uint64_t transactions;
    uint64_t unlogged; /* refusals past LOG_LINES_PER_BATCH */
} batch_result;

static void refuse(pdk_store *s, pdk_store_record *r, const char *why, batch_result *res)
{
    r->state = REC_FAILED;
    res->failed++;
    if (r->reply) {
        r->reply->refused = 1;
        snprintf(r->reply->why, sizeof r->reply->why, "%s", why);
    }
    if (res->failed > LOG_LINES_PER_BATCH) {
        res->unlogged++;
        return;
    }
    char what[160];
    describe(r, what, sizeof what);
    fprintf(stderr, "paddock store: %s: %s refused: %s\n", s->path, what, why);
}

static int writer_closing(pdk_store *s)
{
    pthread_mutex_lock(&s->mu);
    int c = s->closing;
    pthread_mutex_unlock(&s->mu);
    return c;
}

/* Takes the write lock. Only another process writing the same file can make
 * it SQLITE_BUSY past the busy timeout; records are never dropped for that
 * while the store runs (the queue grows and is reported), but a closing
 * store gives up after one more wait rather than hang its caller forever. */
static int begin(pdk_store *s, char *why, size_t why_len)
{
    int logged = 0;
    for (;;) {
        int rc = run(s->wdb, s->st.begin, why, why_len);
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) {
            if (logged && rc == SQLITE_OK) {
                fprintf(stderr, "paddock store: %s: write lock taken, writing again\n", s->path);
            }
            return rc;
        }
        if (logged && writer_closing(s)) {
            return rc;
        }
        if (!logged) {
            fprintf(stderr,
                    "paddock store: %s: %s; another process holds the write lock, retrying "
                    "(records wait in the queue)\n",
                    s->path, why);
            logged = 1;
        }
    }
}

/* A failure for want of space: the database, its WAL or the WAL's index
 * could not grow. SQLite reports it as SQLITE_FULL, or as an I/O error
 * (SQLITE_IOERR_WRITE, _SHMSIZE, _TRUNCATE...) whose errno says why. */
static int no_space(sqlite3 *db, int rc)
{
    if ((rc & 0xff) == SQLITE_FULL) {
        return 1;
    }
    if ((rc & 0xff) != SQLITE_IOERR) {
        return 0;
    }
    int e = sqlite3_system_errno(db);
    return e == ENOSPC || e == EDQUOT;
}

static void rollback(pdk_store *s)
{
    if (!sqlite3_get_autocommit(s->wdb)) {
        char ignored[64];
        run(s->wdb, s->st.rollback, ignored, sizeof ignored);
    }
}

/* The disk is full: what the batch's transaction wrote is rolled back, so
 * its records are pending again (those SQLite refused on their own stay
 * refused). */
static int batch_full(pdk_store *s, pdk_store_record *batch)
{
    rollback(s);
    for (pdk_store_record *r = batch; r; r = r->next) {
        if (r->state == REC_WRITTEN) {
            r->state = REC_PENDING;
        }
    }
    return 1;
}

/* Writes a batch in one transaction. When the transaction itself fails (it
 * cannot begin or commit, or SQLite rolled it back on an I/O error), every
 * record not refused on its own is retried in a transaction of its own, so
 * one bad moment costs at most the records SQLite really refuses. Records
 * refused by an earlier attempt (state REC_FAILED) are skipped. Returns 1
 * when the disk is full (no_space): then every record not written and not
 * refused is left REC_PENDING, to be tried again, and why says what SQLite
 * reported; else 0, with every record written or refused. */
static int write_batch(pdk_store *s, pdk_store_record *batch, batch_result *res, char *why,
                       size_t why_len)
{
    int rc = begin(s, why, why_len);
    if (no_space(s->wdb, rc)) {
        return batch_full(s, batch);
    }
    if (rc == SQLITE_OK) {
        int rolled_back = 0;
        for (pdk_store_record *r = batch; r; r = r->next) {
            if (r->state == REC_FAILED) {
                continue;
            }
            int one = write_record(s, r, why, why_len);
            if (one == SQLITE_OK) {
                r->state = REC_WRITTEN;
            } else if (no_space(s->wdb, one)) {
                return batch_full(s, batch);
            } else if (sqlite3_get_autocommit(s->wdb)) {
                rolled_back = 1;
                break;
            } else {
                refuse(s, r, why, res);
            }
        }
        if (!rolled_back) {
            rc = run(s->wdb, s->st.commit, why, why_len);
            if (rc == SQLITE_OK) {
                res->transactions++;
                for (pdk_store_record *r = batch; r; r = r->next) {
                    res->written += r->state == REC_WRITTEN;
                }
                return 0;
            }
            if (no_space(s->wdb, rc)) {
                return batch_full(s, batch);
            }
            rollback(s);
        }
        fprintf(stderr,
                "paddock store: %s: batch transaction failed (%s); writing its records one by "
                "one\n",
                s->path, why);
    } else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
        for (pdk_store_record *r = batch; r; r = r->next) {
            if (r->state != REC_FAILED) {
                refuse(s, r, why, res);
            }
        }
        return 0;
    }
    /* What the failed transaction wrote is gone: every record not refused
     * is pending again, so that one left unwritten below (the disk filled
     * on the way) is kept, not taken for written. */
    for (pdk_store_record *r = batch; r; r = r->next) {
        if (r->state == REC_WRITTEN) {
            r->state = REC_PENDING;
        }
    }
    int gave_up = 0;
    for (pdk_store_record *r = batch; r; r = r->next) {
        if (r->state == REC_FAILED) {
            continue;
        }
        if (gave_up) {
            refuse(s, r, why, res);
            continue;
        }
        int one = begin(s, why, why_len);
        gave_up = (one & 0xff) == SQLITE_BUSY || (one & 0xff) == SQLITE_LOCKED;
        if (one == SQLITE_OK) {
            one = write_record(s, r, why, why_len);
            if (one == SQLITE_OK) {
                one = run(s->wdb, s->st.commit, why, why_len);
            }
        }
        if (one != SQLITE_OK && no_space(s->wdb, one)) {
            /* This record and the rest stay pending; those before it are
             * committed. */
            rollback(s);
            return 1;
        }
        if (one != SQLITE_OK) {
            rollback(s);
        }
        if (one == SQLITE_OK) {
            r->state = REC_WRITTEN;
            res->written++;
            res->transactions++;
        } else {
            refuse(s, r, why, res);
        }
    }
    return 0;
}

/* Cuts the first batch off list (see MAX_BATCH_RECORDS): returns the rest
 * and sets *n to the batch's length. */
static pdk_store_record *split_batch(pdk_store_record *list, uint64_t *n)
{
    pdk_store_record *last = list;
    uint64_t count = 1;
    size_t bytes = pdk_store_record_bytes(list);
    while (last->next && count < MAX_BATCH_RECORDS) {
        size_t more = pdk_store_record_bytes(last->next);
        if (bytes + more > MAX_BATCH_BYTES) {
            break;
        }
        bytes += more;
        last = last->next;
        count++;
    }
    pdk_store_record *rest = last->next;
    last->next = NULL;
    *n = count;
    return rest;
}

/* Waits, under mu, until the queue holds something worth a transaction:
 * records PDK_STORE_GATHER_NS old, PDK_STORE_WAKE_RECORDS of them, a flush
 * waiting, or a close. While records keep coming the writer wakes on that
 * period by itself, so a ticking session's records cost it no wake-up
 * call (one per tick was most of recording's cost); after
 * PDK_STORE_IDLE_NS of empty queue it sleeps until enqueue calls. A record
 * waits at most PDK_STORE_GATHER_NS, under a real-time tick, before its
 * transaction starts: what a kill -9 can catch uncommitted (ADR 0012). */
static void gather(pdk_store *s)
{
    uint64_t idle_since = pdk_store_monotonic_ns();
    for (;;) {
        if (s->closing) {
            return;
        }
        uint64_t now = pdk_store_monotonic_ns();
        if (s->head && (s->queue_len >= PDK_STORE_WAKE_RECORDS || s->flush_waiting ||
                        now - s->head_ns >= PDK_STORE_GATHER_NS)) {
            return;
        }
        if (s->n_wants > 0) {
            return; /* pdk_store_spare_want */
        }
        if (!s->head && now - idle_since >= PDK_STORE_IDLE_NS) {
            s->writer_idle = 1;
            pthread_cond_wait(&s->work_cv, &s->mu);
            s->writer_idle = 0;
            idle_since = pdk_store_monotonic_ns();
            continue;
        }
        uint64_t until = s->head ? s->head_ns + PDK_STORE_GATHER_NS : now + PDK_STORE_GATHER_NS;
        struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
        pthread_cond_timedwait(&s->work_cv, &s->mu, &ts);
    }
}

/* The writer's nice value (Linux), as the server's step threads' (ADR 0031). */
#define PDK_STORE_WRITER_NICE 10

/* The writer takes the whole queue at once under mu (so a record_* call
 * never waits for more than a pointer swap), then writes it in batches in
 * queue order; flushed_seq advances by each batch's finished records
 * because every record took the next sequence number when it was queued.
 * On a full disk the batch's unwritten records go back in front of the
 * rest taken, in order, and the writer tries again after
 * PDK_STORE_FULL_RETRY_MS (store.h). */
static void *writer_main(void *arg)
{
    pdk_store *s = arg;
#ifdef __linux__
    prctl(PR_SET_NAME, "pdk-store", 0, 0, 0); /* what top -H and perf show */
    /* Below the loop and no higher than a server's step threads (nice 10,
     * docs/adr/0031): packing a large keyframe takes the writer tens of ms
     * at once, and at the loop's priority it held a core that a step
     * thread waking for its tick waited for. Lowering one's own priority
     * needs no privilege. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), PDK_STORE_WRITER_NICE);
#endif
    pdk_store_record *taken = NULL; /* taken from the queue, not yet written */
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (!taken) {
            gather(s);
            if (s->n_wants > 0) {
                prepare_spares(s);
                if (!s->head && !s->closing) {
                    continue;
                }
            }
            if (!s->head) {
                break; /* closing, and everything is written */
            }
            taken = s->head;
            s->in_flight = s->queue_len;
            s->head = s->tail = NULL;
            s->queue_len = 0;
        }
        pthread_mutex_unlock(&s->mu);

        pdk_store_record *batch = taken;
        uint64_t n = 0;
        taken = split_batch(batch, &n);
        batch_result res = {0};
        char why[PDK_STORE_ERR_LEN];
        uint64_t t0 = pdk_store_monotonic_ns();
        int full = write_batch(s, batch, &res, why, sizeof why);
        uint64_t took_ns = pdk_store_monotonic_ns() - t0;
        size_t bucket = 0;
        while (bucket < PDK_STORE_COMMIT_BOUNDS && took_ns > pdk_store_commit_bounds_ns[bucket]) {
            bucket++;
        }
        if (res.unlogged) {
            fprintf(stderr, "paddock store: %s: %llu more records refused in the same batch\n",
                    s->path, (unsigned long long)res.unlogged);
        }
        uint64_t done = 0;
        while (batch && batch->state != REC_PENDING) {
            pdk_store_record *next = batch->next;
            record_done(s, batch);
            batch = next;
            done++;
        }
        if (batch) {
            pdk_store_record *last = batch;
            while (last->next) {
                last = last->next;
            }
            last->next = taken;
            taken = batch;
        }

        pthread_mutex_lock(&s->mu);
        s->written += res.written;
        s->failed += res.failed;
        s->transactions += res.transactions;
        if (res.transactions > 0) {
            s->commit_buckets[bucket]++;
            s->commit_ns += took_ns;
        }
        s->in_flight -= done;
        s->flushed_seq += done;
        if (full) {
            if (!s->disk_full) {
                fprintf(stderr,
                        "paddock store: %s: the disk is full (%s); %llu records are kept in "
                        "memory and written when space returns (trying every %u ms)\n",
                        s->path, why, (unsigned long long)(s->in_flight + s->queue_len),
                        PDK_STORE_FULL_RETRY_MS);
            }
            s->disk_full = 1;
            snprintf(s->disk_reason, sizeof s->disk_reason, "%.255s: %.250s", s->path, why);
            pdk_store_answer_marks_(taken, why);
            pdk_store_answer_marks_(s->head, why);
            pdk_store_trim_kept_(s, &taken);
            s->full_attempts++;
        } else if (s->disk_full && !taken) {
            fprintf(stderr, "paddock store: %s: space returned; the kept records are written\n",
                    s->path);
            if (s->gave_up > 0) {
                fprintf(stderr,
                        "paddock store: %s: %llu records were given up past --max-kept-bytes; "
                        "their ticks are marked in recording_gaps\n",
                        s->path, (unsigned long long)s->gave_up);
                s->gave_up = 0;
            }
            s->disk_full = 0;
            s->disk_reason[0] = '\0';
        }
        pthread_cond_broadcast(&s->flushed_cv);
        if (full && s->closing && s->full_attempts > 1) {
            pdk_store_give_up_(s, taken);
            taken = NULL;
        } else if (full) {
            pdk_store_wait_for_space_(s);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- Flush, stats, shutdown, close ---- */

pdk_error pdk_store_flush(pdk_store *store)
{
    if (!store) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&store->mu);
    uint64_t target = store->enqueued_seq;
    store->flush_waiting++;
    pthread_cond_signal(&store->work_cv);
    uint64_t attempts = store->full_attempts;
    while (store->flushed_seq < target && !(store->disk_full && store->full_attempts != attempts)) {
        pthread_cond_wait(&store->flushed_cv, &store->mu);
    }
    pdk_error rc = store->flushed_seq < target ? PDK_ERR_IO : PDK_OK;
    store->flush_waiting--;
    pthread_mutex_unlock(&store->mu);
    return rc;
}

/* The update runs on the writer's connection like any record, so it never
 * races the writer for the write lock, and flush is the wait: the record is
 * queued after everything recorded before the call, and flush returns once
 * the writer finished it and filled the reply. */
pdk_error pdk_store_mark_interrupted(pdk_store *store, uint64_t *n_marked, char *err,
                                     size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (n_marked) {
        *n_marked = 0;
    }
    if (!store) {
        pdk_store_errf(err, err_len, "pdk_store_mark_interrupted: store is NULL");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (store->read_only) {
        return PDK_OK; /* nothing can be written: they are marked at the next start */
    }
    pdk_store_record *r = NULL;
    pdk_error rc = new_record(REC_MARK_INTERRUPTED, NULL, 0, NULL, 0, NULL, 0, &r);
    if (rc != PDK_OK) {
        pdk_store_errf(err, err_len, "%s: out of memory marking interrupted sessions", store->path);
        return rc;
    }
    mark_reply reply;
    memset(&reply, 0, sizeof reply);
    r->reply = &reply;
    rc = enqueue(store, r);
    if (rc != PDK_OK) {
        pdk_store_errf(err, err_len, "%s: the store is closing", store->path);
        return rc;
    }
    pdk_store_flush(store);
    if (reply.refused) {
        pdk_store_errf(err, err_len, "%s: marking interrupted sessions: %s", store->path,
                       reply.why);
        return PDK_ERR_DB;
    }
    if (n_marked) {
        *n_marked = reply.n_marked;
    }
    return PDK_OK;
}

void pdk_store_stats_get(pdk_store *store, pdk_store_stats *out)
{
    if (!out) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (!store) {
        return;
    }
    pthread_mutex_lock(&store->mu);
    out->queued = store->queue_len + store->in_flight;
    out->written = store->written;
    out->failed = store->failed;
    out->transactions = store->transactions;
    out->disk_full = store->disk_full;
    out->lost = store->lost;
    memcpy(out->commit_buckets, store->commit_buckets, sizeof out->commit_buckets);
    out->commit_ns = store->commit_ns;
    pthread_mutex_unlock(&store->mu);
    clockid_t cid;
    struct timespec ts;
    if (store->writer_started && !store->writer_joined &&
        pthread_getcpuclockid(store->writer, &cid) == 0 &&
        clock_gettime(cid, &ts) == 0)
        out->writer_cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pdk_error pdk_store_set_kept_limit(pdk_store *store, uint64_t bytes)
{
    if (!store || bytes == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&store->mu);
    store->kept_limit = bytes;
    pthread_mutex_unlock(&store->mu);
    return PDK_OK;
}

int pdk_store_read_only(const pdk_store *store)
{
    return store ? store->read_only : 0;
}

int pdk_store_disk_full(pdk_store *store, char *why, size_t why_len)
{
    pdk_store_errf(why, why_len, "%s", "");
    if (!store) {
        return 0;
    }
    pthread_mutex_lock(&store->mu);
    int full = store->disk_full;
    if (full) {
        pdk_store_errf(why, why_len, "%s", store->disk_reason);
    }
    pthread_mutex_unlock(&store->mu);
    return full;
}

void pdk_store_shutdown(pdk_store *store)
{
    if (!store) {
        return;
    }
    pthread_mutex_lock(&store->mu);
    __atomic_store_n(&store->closing, 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&store->work_cv);
    pthread_mutex_unlock(&store->mu);
    if (store->writer_started && !store->writer_joined) {
        pthread_join(store->writer, NULL);
        store->writer_joined = 1;
    }
}

void pdk_store_close(pdk_store *store)
{
    if (!store) {
        return;
    }
    pdk_store_shutdown(store);
    destroy(store);
}
