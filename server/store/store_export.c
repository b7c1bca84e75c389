/* Standalone session files: export one session into an SQLite file of its
 * own, and import such a file as a new session. Both use connections of
 * their own (never the writer's or the read API's) and ATTACH the other file,
 * so every row moves with one INSERT ... SELECT per table. A file to import
 * is a stranger's: import_check.c checks it whole on a hardened connection
 * of its own before it is attached here.
 *
 * An export file holds the tables of the migrations that made it (only the
 * session's rows, the build row of its build), its own schema_migrations and
 * one table that exists only in export files, never in a server's database:
 *
 *   paddock_export(format INTEGER = 1, original_session_id INTEGER,
 *                  exported_by_build TEXT, exported_unix_ms INTEGER)
 *
 * with exactly one row. format changes only when the meaning of the file
 * changes beyond what schema_migrations says; a reader refuses a format it
 * does not know. The file uses SQLite's rollback journal (no -wal beside it),
 * so it is one self-contained file to copy. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import_check.h"
#include "store_internal.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif

/* A session's tables, the parent first (foreign keys point at sessions). */
static const char *const session_tables[] = {"sessions",     "vehicles",  "inputs",
                                             "state_hashes", "snapshots", "recording_gaps"};
#define N_SESSION_TABLES (sizeof session_tables / sizeof session_tables[0])

/* ---- Small helpers ---- */

char *pdk_store_file_uri(const char *path, const char *query)
{
    size_t n = strlen(path);
    size_t cap = 8 + 3 * n + (query ? strlen(query) + 1 : 0) + 1;
    char *uri = malloc(cap);
    if (!uri) {
        return NULL;
    }
    size_t o = (size_t)snprintf(uri, cap, "%s", path[0] == '/' ? "file://" : "file:");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        int plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '.' || c == '_' || c == '~' || c == '-';
        if (plain) {
            uri[o++] = (char)c;
        } else {
            o += (size_t)snprintf(uri + o, cap - o, "%%%02X", c);
        }
    }
    uri[o] = '\0';
    if (query) {
        snprintf(uri + o, cap - o, "?%s", query);
    }
    return uri;
}

/* Opens path through its URI with flags (plus URI and NOMUTEX), with the
 * store's busy timeout and extended result codes. */
static pdk_error open_db(const char *path, int flags, sqlite3 **out, char *err, size_t err_len)
{
    *out = NULL;
    char *uri = pdk_store_file_uri(path, NULL);
    if (!uri) {
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(uri, &db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot open: %s", path,
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return PDK_ERR_DB;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, PDK_STORE_BUSY_TIMEOUT_MS);
    *out = db;
    return PDK_OK;
}

/* Runs sql (no rows); on failure puts SQLite's message in msg. */
static int exec_sql(sqlite3 *db, const char *sql, char *msg, size_t msg_len)
{
    char *e = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
    if (rc != SQLITE_OK) {
        snprintf(msg, msg_len, "%s", e ? e : sqlite3_errmsg(db));
    }
    sqlite3_free(e);
    return rc;
}

static void rollback_if_open(sqlite3 *db)
{
    if (db && !sqlite3_get_autocommit(db)) {
        char ignored[64];
        exec_sql(db, "ROLLBACK", ignored, sizeof ignored);
    }
}

/* ATTACH path read-only as schema name; immutable for a file nothing else
 * writes (an upload: no journal beside it is ever read, no lock taken). */
static int attach_ro(sqlite3 *db, const char *path, const char *name, int immutable, char *msg,
                     size_t msg_len)
{
    char *uri = pdk_store_file_uri(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
    char sql[64];
    snprintf(sql, sizeof sql, "ATTACH DATABASE ?1 AS %s", name);
    sqlite3_stmt *st = NULL;
    int rc = uri ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK) {
        snprintf(msg, msg_len, "%s", uri ? sqlite3_errmsg(db) : "out of memory");
    }
    sqlite3_finalize(st);
    free(uri);
    return rc;
}

static int is_corrupt(int rc)
{
    return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

/* ---- Copying a table between attached schemas ---- */

/* A growable text buffer; oom sticks once set. */
typedef struct sbuf {
    char *p;
    size_t len;
    size_t cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->oom) {
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1) {
            ncap *= 2;
        }
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* 1 when schema.table exists, 0 when not, -1 on error (msg filled). */
static int table_exists(sqlite3 *db, const char *schema, const char *table, char *msg,
                        size_t msg_len)
{
    char sql[128];
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM %s.sqlite_master WHERE type = 'table' AND name = ?1", schema);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    int out = -1;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            out = sqlite3_column_int(st, 0) > 0;
        }
    }
    if (out < 0) {
        snprintf(msg, msg_len, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return out;
}

/* Builds "INSERT [OR IGNORE] INTO dst.table (cols) SELECT exprs FROM
 * src.table WHERE where" over the columns of dst.table that src.table has
 * too (a file from an older schema lacks the newer columns, which take their
 * defaults). With remap, the session_id column is replaced by ?2. With
 * not_indexed, src.table is read NOT INDEXED: an uploaded file's indexes
 * are never trusted to agree with its tables (import_check.c). */
static int copy_sql(sqlite3 *db, const char *dst, const char *src, const char *table,
                    const char *where, int or_ignore, int remap, int not_indexed, sbuf *out,
                    char *msg, size_t msg_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT d.name FROM pragma_table_info(?1, ?2) AS d "
                                "WHERE d.name IN (SELECT s.name FROM pragma_table_info(?1, ?3) "
                                "AS s) ORDER BY d.cid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) {
        snprintf(msg, msg_len, "%s", sqlite3_errmsg(db));
        return rc;
    }
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, dst, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, src, -1, SQLITE_STATIC);
    sbuf cols = {0};
    sbuf exprs = {0};
    int n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *sep = n++ ? ", " : "";
        sb_add(&cols, sep);
        sb_add(&cols, "\"");
        sb_add(&cols, name);
        sb_add(&cols, "\"");
        sb_add(&exprs, sep);
        if (remap && strcmp(name, "session_id") == 0) {
            sb_add(&exprs, "?2");
        } else {
            sb_add(&exprs, "\"");
            sb_add(&exprs, name);
            sb_add(&exprs, "\"");
        }
    }
    if (rc != SQLITE_DONE) {
        snprintf(msg, msg_len, "%s", sqlite3_errmsg(db));
    } else if (n == 0) {
        snprintf(msg, msg_len, "table %s has no columns in common", table);
        rc = SQLITE_SCHEMA;
    } else {
        rc = SQLITE_OK;
        out->len = 0;
        sb_add(out, or_ignore ? "INSERT OR IGNORE INTO " : "INSERT INTO ");
        sb_add(out, dst);
        sb_add(out, ".");
        sb_add(out, table);
        sb_add(out, " (");
        sb_add(out, cols.p);
        sb_add(out, ") SELECT ");
        sb_add(out, exprs.p);
        sb_add(out, " FROM ");
        sb_add(out, src);
        sb_add(out, ".");
        sb_add(out, table);
        sb_add(out, not_indexed ? " NOT INDEXED WHERE " : " WHERE ");
        sb_add(out, where);
        if (out->oom || cols.oom || exprs.oom) {
            snprintf(msg, msg_len, "out of memory");
            rc = SQLITE_NOMEM;
        }
    }
    sqlite3_finalize(st);
    free(cols.p);
    free(exprs.p);
    return rc;
}

/* Copies the session's rows of table from src to dst (?1 is the session id
 * in src, ?2 the id in dst). *rows gets how many were inserted. */
static int copy_table(sqlite3 *db, const char *dst, const char *src, const char *table,
                      const char *where, int or_ignore, int not_indexed, uint64_t src_id,
                      uint64_t dst_id, int64_t *rows, char *msg, size_t msg_len)
{
    sbuf sql = {0};
    int rc = copy_sql(db, dst, src, table, where, or_ignore, src_id != dst_id, not_indexed, &sql,
                      msg, msg_len);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(db, sql.p, -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, pdk_store_u64_to_i64(src_id));
            if (src_id != dst_id) {
                sqlite3_bind_int64(st, 2, pdk_store_u64_to_i64(dst_id));
            }
            rc = sqlite3_step(st);
            rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        if (rc != SQLITE_OK) {
            snprintf(msg, msg_len, "copying %s: %s", table, sqlite3_errmsg(db));
        } else {
            *rows = sqlite3_changes64(db);
        }
    }
    sqlite3_finalize(st);
    free(sql.p);
    return rc;
}

/* Copies the build row and every session table; the session row must be
 * there (*found). Runs inside the caller's transaction. not_indexed: as
 * copy_sql. */
static int copy_session(sqlite3 *db, const char *dst, const char *src, int not_indexed,
                        uint64_t src_id, uint64_t dst_id, int *found, char *msg, size_t msg_len)
{
    char where_build[160];
    snprintf(where_build, sizeof where_build,
             "build_id IN (SELECT build_id FROM %s.sessions WHERE session_id = ?1)", src);
    int64_t rows = 0;
    /* The build row is the same in every file that knows the build. */
    int rc = copy_table(db, dst, src, "build", where_build, 1, not_indexed, src_id, src_id, &rows,
                        msg, msg_len);
    *found = 0;
    for (size_t i = 0; rc == SQLITE_OK && i < N_SESSION_TABLES; i++) {
        int have = table_exists(db, src, session_tables[i], msg, msg_len);
        if (have < 0) {
            return SQLITE_ERROR;
        }
        if (!have) {
            continue; /* a file from before that table existed */
        }
        rc = copy_table(db, dst, src, session_tables[i], "session_id = ?1", 0, not_indexed, src_id,
                        dst_id, &rows, msg, msg_len);
        if (rc == SQLITE_OK && i == 0) {
            *found = rows == 1;
            if (!*found) {
                return SQLITE_OK;
            }
        }
    }
    return rc;
}

/* ---- Export ---- */

/* fsync of the file at path: 0, or -1 with errno set. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return -1;
    }
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* fsync of the folder holding path, so the new name survives a power cut
 * (best effort: some file systems refuse it on a folder). */
static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    }
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static void remove_temp(const char *tmp)
{
    unlink(tmp);
    char journal[4200];
    snprintf(journal, sizeof journal, "%s-journal", tmp);
    unlink(journal);
}

/* SQLite's progress handler on the export's connection: non-zero stops the
 * statement running (SQLITE_INTERRUPT) once *cancel is set. */
static int export_progress(void *cancel)
{
    return atomic_load_explicit((const atomic_bool *)cancel, memory_order_relaxed) ? 1 : 0;
}

/* Fills the new file at tmp: migrations, paddock_export and the rows. */
static pdk_error fill_export(pdk_store *s, uint64_t session_id, const char *tmp, const char *path,
                             const pdk_migration_list *migrations, const atomic_bool *cancel,
                             char *err, size_t err_len)
{
    sqlite3 *db = NULL;
    pdk_error rc = open_db(tmp, SQLITE_OPEN_READWRITE, &db, err, err_len);
    if (rc != PDK_OK) {
        return rc == PDK_ERR_DB ? PDK_ERR_IO : rc;
    }
    char msg[PDK_STORE_ERR_LEN];
    /* The file is nobody's until publish links it, and a failed export
     * removes it: its commits (a migration each, then the rows) need no
     * journal on disk and no sync, and sync_file syncs it once, whole,
     * before the link (they were some thirty-five syncs an export). */
    if (exec_sql(db, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF", msg, sizeof msg) !=
        SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: setting up the new file: %s", path, msg);
        sqlite3_close(db);
        return PDK_ERR_DB;
    }
    int version = 0;
    rc = pdk_migrations_apply(db, path, migrations, &version, err, err_len);
    if (rc == PDK_OK && version != s->schema_version) {
        pdk_store_errf(err, err_len,
                       "%s: the migrations given make schema version %d, but %s is at version %d; "
                       "export with the same migrations folder the server uses",
                       path, version, s->path, s->schema_version);
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK && exec_sql(db, PDK_EXPORT_TABLE_SQL, msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: creating paddock_export: %s", path, msg);
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK && attach_ro(db, s->path, "src", s->read_only, msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot attach %s read-only: %s", path, s->path, msg);
        rc = PDK_ERR_DB;
    }
    /* The rows are most of an export's time: a cancel stops their copy
     * within some thousands of SQLite's steps. */
    if (cancel) {
        sqlite3_progress_handler(db, 1000, export_progress, (void *)cancel);
    }
    /* One transaction: the rows read from src are one consistent snapshot
     * even while the writer goes on committing. */
    if (rc == PDK_OK && exec_sql(db, "BEGIN IMMEDIATE", msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot begin: %s", path, msg);
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK) {
        int found = 0;
        int src_rc =
            copy_session(db, "main", "src", 0, session_id, session_id, &found, msg, sizeof msg);
        if (src_rc != SQLITE_OK) {
            pdk_store_errf(err, err_len, "%s: exporting session %llu from %s: %s", path,
                           (unsigned long long)session_id, s->path, msg);
            rc = PDK_ERR_DB;
        } else if (!found) {
            pdk_store_errf(err, err_len, "%s: no session %llu", s->path,
                           (unsigned long long)session_id);
            rc = PDK_ERR_NOT_FOUND;
        }
    }
    if (rc == PDK_OK) {
        sqlite3_stmt *st = NULL;
        int qrc = sqlite3_prepare_v2(db,
                                     "INSERT INTO paddock_export(format, original_session_id, "
                                     "exported_by_build, exported_unix_ms) VALUES (?1, ?2, ?3, ?4)",
                                     -1, &st, NULL);
        if (qrc == SQLITE_OK) {
            sqlite3_bind_int(st, 1, PDK_EXPORT_FORMAT);
            sqlite3_bind_int64(st, 2, pdk_store_u64_to_i64(session_id));
            sqlite3_bind_text(st, 3, PDK_BUILD_ID, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 4, pdk_store_now_unix_ms());
            qrc = sqlite3_step(st);
            qrc = qrc == SQLITE_DONE ? SQLITE_OK : qrc;
        }
        if (qrc != SQLITE_OK) {
            pdk_store_errf(err, err_len, "%s: writing paddock_export: %s", path,
                           sqlite3_errmsg(db));
            rc = PDK_ERR_DB;
        }
        sqlite3_finalize(st);
    }
    if (rc == PDK_OK && exec_sql(db, "COMMIT", msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot commit: %s", path, msg);
        rc = PDK_ERR_DB;
    }
    sqlite3_progress_handler(db, 0, NULL, NULL); /* the rollback is never stopped */
    if (rc != PDK_OK && cancel && atomic_load(cancel)) {
        pdk_store_errf(err, err_len, "%s: the export of session %llu was cancelled", path,
                       (unsigned long long)session_id);
        rc = PDK_ERR_CLOSED;
    }
    rollback_if_open(db);
    if (sqlite3_close(db) != SQLITE_OK && rc == PDK_OK) {
        pdk_store_errf(err, err_len, "%s: cannot close the new file: %s", path, sqlite3_errmsg(db));
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK && sync_file(tmp) != 0) {
        pdk_store_errf(err, err_len, "%s: cannot sync %s: %s", path, tmp, strerror(errno));
        rc = PDK_ERR_IO;
    }
    return rc;
}

/* Gives the finished temporary file its name without ever replacing a file
 * that appeared at path meanwhile: link() refuses an existing name. A file
 * system without hard links gets rename() after one more check. */
static pdk_error publish(const char *tmp, const char *path, char *err, size_t err_len)
{
    if (link(tmp, path) == 0) {
        unlink(tmp);
        sync_parent(path);
        return PDK_OK;
    }
    int e = errno;
    if (e == EEXIST) {
        pdk_store_errf(err, err_len, "%s: already exists; an export never replaces a file", path);
        return PDK_ERR_ALREADY_EXISTS;
    }
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        pdk_store_errf(err, err_len, "%s: already exists; an export never replaces a file", path);
        return PDK_ERR_ALREADY_EXISTS;
    }
    if (rename(tmp, path) != 0) {
        pdk_store_errf(err, err_len, "%s: cannot move %s there: %s", path, tmp, strerror(errno));
        return PDK_ERR_IO;
    }
    sync_parent(path);
    return PDK_OK;
}

pdk_error pdk_store_export_session(pdk_store *store, uint64_t session_id, const char *path,
                                   const char *migrations_dir, char *err, size_t err_len)
{
    return pdk_store_export_session_cancellable(store, session_id, path, migrations_dir, NULL, err,
                                                err_len);
}

pdk_error pdk_store_export_session_cancellable(pdk_store *store, uint64_t session_id,
                                               const char *path, const char *migrations_dir,
                                               const atomic_bool *cancel, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !path || !path[0] || !migrations_dir) {
        const char *what = !store     ? "store is NULL"
                           : !path    ? "path is NULL"
                           : !path[0] ? "path is empty"
                                      : "migrations_dir is NULL";
        pdk_store_errf(err, err_len, "pdk_store_export_session: %s", what);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        pdk_store_errf(err, err_len, "%s: already exists; an export never replaces a file", path);
        return PDK_ERR_ALREADY_EXISTS;
    }
    pdk_store_flush(store);
    pdk_store_session_info info;
    pdk_error rc = pdk_store_read_session(store, session_id, &info, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    pdk_store_session_info_free(&info);

    pdk_migration_list migrations;
    rc = pdk_migrations_scan(migrations_dir, &migrations, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    size_t tlen = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(tlen);
    if (!tmp) {
        pdk_migrations_free(&migrations);
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    snprintf(tmp, tlen, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        pdk_store_errf(err, err_len, "%s: cannot create a file beside it: %s", path,
                       strerror(errno));
        rc = PDK_ERR_IO;
    } else {
        close(fd);
        rc = fill_export(store, session_id, tmp, path, &migrations, cancel, err, err_len);
        if (rc == PDK_OK) {
            rc = publish(tmp, path, err, err_len);
        }
        if (rc != PDK_OK) {
            remove_temp(tmp);
        }
    }
    free(tmp);
    pdk_migrations_free(&migrations);
    return rc;
}

/* ---- Import ---- */

pdk_error pdk_store_import_session(pdk_store *store, const char *path, uint64_t *new_id,
                                   uint64_t *original_id, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (new_id) {
        *new_id = 0;
    }
    if (original_id) {
        *original_id = 0;
    }
    if (!store || !path || !path[0] || !new_id) {
        const char *what = !store     ? "store is NULL"
                           : !path    ? "path is NULL"
                           : !path[0] ? "path is empty"
                                      : "new_id is NULL";
        pdk_store_errf(err, err_len, "pdk_store_import_session: %s", what);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (store->read_only) {
        pdk_store_errf(err, err_len, "%s", PDK_STORE_READ_ONLY_MSG);
        return PDK_ERR_IO;
    }
    /* The whole file is checked on a hardened connection of its own before
     * any connection to the server's database sees it. */
    pdk_import_facts facts;
    pdk_error rc = pdk_import_check(store->import_schema, path, &facts, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    uint64_t orig = facts.original_session_id;
    pdk_store_flush(store);

    /* The copy's connection is hardened too (the checked file has no
     * trigger or view, and its schema is Paddock's, but nothing from it
     * runs with trust): one attached database, read-only and immutable. */
    sqlite3 *db = NULL;
    rc = open_db(store->path, SQLITE_OPEN_READWRITE, &db, err, err_len);
    char msg[PDK_STORE_ERR_LEN];
    if (rc == PDK_OK && pdk_store_harden(db, 1, 0) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: hardening the import's connection: %s", store->path,
                       sqlite3_errmsg(db));
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK && exec_sql(db, "PRAGMA foreign_keys=ON", msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: %s", store->path, msg);
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK) {
        int arc = attach_ro(db, path, "imp", 1, msg, sizeof msg);
        if (arc != SQLITE_OK) {
            pdk_store_errf(err, err_len, "%s: %s: %s", path,
                           (arc & 0xff) == SQLITE_NOTADB    ? "not an SQLite file"
                           : (arc & 0xff) == SQLITE_CORRUPT ? "damaged SQLite file"
                                                            : "cannot open",
                           msg);
            rc = is_corrupt(arc) ? PDK_ERR_PARSE : PDK_ERR_IO;
        }
    }
    uint64_t id = 0;
    if (rc == PDK_OK && exec_sql(db, "BEGIN IMMEDIATE", msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot begin the import of %s: %s", store->path, path,
                       msg);
        rc = PDK_ERR_DB;
    }
    if (rc == PDK_OK) {
        id = pdk_store_next_session_id(store);
        int found = 0;
        int crc = copy_session(db, "main", "imp", 1, orig, id, &found, msg, sizeof msg);
        if (crc != SQLITE_OK) {
            pdk_store_errf(err, err_len, "%s: importing %s: %s", store->path, path, msg);
            rc = is_corrupt(crc) ? PDK_ERR_PARSE : PDK_ERR_DB;
        } else if (!found) {
            pdk_store_errf(err, err_len, "%s: its session %llu vanished while importing", path,
                           (unsigned long long)orig);
            rc = PDK_ERR_DB;
        }
    }
    if (rc == PDK_OK && exec_sql(db, "COMMIT", msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot commit the import of %s: %s", store->path, path,
                       msg);
        rc = PDK_ERR_DB;
    }
    rollback_if_open(db);
    sqlite3_close(db);
    if (rc == PDK_OK) {
        *new_id = id;
        if (original_id) {
            *original_id = orig;
        }
    }
    return rc;
}
