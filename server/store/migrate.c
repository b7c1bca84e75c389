/* The migration runner: finds migrations/NNNN_name.sql, checks their names
 * and numbering, and brings a database up to the newest one, each migration
 * in its own transaction together with its schema_migrations row. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store_internal.h"

/* A migration file larger than this is refused as unreadable: ours are a
 * few kilobytes, and reading a stray huge file into memory helps nobody. */
#define MIGRATION_MAX_BYTES (16L * 1024L * 1024L)

static int ends_with_sql(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && strcmp(name + n - 4, ".sql") == 0;
}

/* Exactly NNNN_name.sql with name in [a-z0-9_]+. Sets *version on success. */
static int parse_name(const char *fname, int *version)
{
    size_t n = strlen(fname);
    if (n < 4 + 1 + 1 + 4) {
        return 0;
    }
    int v = 0;
    for (size_t i = 0; i < 4; i++) {
        if (fname[i] < '0' || fname[i] > '9') {
            return 0;
        }
        v = v * 10 + (fname[i] - '0');
    }
    if (fname[4] != '_') {
        return 0;
    }
    for (size_t i = 5; i < n - 4; i++) {
        char c = fname[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            return 0;
        }
    }
    *version = v;
    return 1;
}

static int cmp_migration(const void *a, const void *b)
{
    const pdk_migration *x = a;
    const pdk_migration *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

void pdk_migrations_free(pdk_migration_list *list)
{
    if (!list) {
        return;
    }
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].name);
        free(list->items[i].file);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static pdk_error add_migration(pdk_migration_list *list, size_t *cap, const char *dir,
                               const char *fname, int version)
{
    if (list->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        pdk_migration *n = realloc(list->items, ncap * sizeof *n);
        if (!n) {
            return PDK_ERR_NO_MEMORY;
        }
        list->items = n;
        *cap = ncap;
    }
    size_t flen = strlen(dir) + 1 + strlen(fname) + 1;
    char *file = malloc(flen);
    size_t name_len = strlen(fname) - 5 - 4;
    char *name = malloc(name_len + 1);
    if (!file || !name) {
        free(file);
        free(name);
        return PDK_ERR_NO_MEMORY;
    }
    snprintf(file, flen, "%s/%s", dir, fname);
    memcpy(name, fname + 5, name_len);
    name[name_len] = '\0';
    list->items[list->count].version = version;
    list->items[list->count].name = name;
    list->items[list->count].file = file;
    list->count++;
    return PDK_OK;
}

/* Sorted, numbered 1..count: no duplicate, no gap, nothing below 0001. */
static pdk_error check_numbering(const char *dir, const pdk_migration_list *list, char *err,
                                 size_t err_len)
{
    if (list->count == 0) {
        pdk_store_errf(err, err_len, "%s: no migration files (NNNN_name.sql) in this folder", dir);
        return PDK_ERR_IO;
    }
    for (size_t i = 0; i < list->count; i++) {
        const pdk_migration *m = &list->items[i];
        if (i > 0 && m->version == list->items[i - 1].version) {
            pdk_store_errf(err, err_len,
                           "%s: migrations %04d_%s.sql and %04d_%s.sql share number %04d", dir,
                           list->items[i - 1].version, list->items[i - 1].name, m->version, m->name,
                           m->version);
            return PDK_ERR_PARSE;
        }
        int expected = (int)i + 1;
        if (m->version != expected) {
            pdk_store_errf(err, err_len,
                           "%s: %04d_%s.sql: expected migration %04d here; numbers must run "
                           "0001, 0002, ... without gaps",
                           dir, m->version, m->name, expected);
            return PDK_ERR_PARSE;
        }
    }
    return PDK_OK;
}

pdk_error pdk_migrations_scan(const char *dir, pdk_migration_list *out, char *err, size_t err_len)
{
    out->items = NULL;
    out->count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        pdk_store_errf(err, err_len, "%s: cannot open migrations folder: %s", dir, strerror(errno));
        return PDK_ERR_IO;
    }
    size_t cap = 0;
    pdk_error rc = PDK_OK;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno != 0) {
                pdk_store_errf(err, err_len, "%s: cannot read migrations folder: %s", dir,
                               strerror(errno));
                rc = PDK_ERR_IO;
            }
            break;
        }
        if (e->d_name[0] == '.' || !ends_with_sql(e->d_name)) {
            continue;
        }
        int version = 0;
        if (!parse_name(e->d_name, &version)) {
            pdk_store_errf(err, err_len,
                           "%s/%s: migration file name must be NNNN_name.sql (four digits, "
                           "'_', then only a-z, 0-9 and '_')",
                           dir, e->d_name);
            rc = PDK_ERR_PARSE;
            break;
        }
        rc = add_migration(out, &cap, dir, e->d_name, version);
        if (rc != PDK_OK) {
            pdk_store_errf(err, err_len, "%s: out of memory listing migrations", dir);
            break;
        }
    }
    closedir(d);
    if (rc == PDK_OK && out->count > 0) {
        qsort(out->items, out->count, sizeof *out->items, cmp_migration);
    }
    if (rc == PDK_OK) {
        rc = check_numbering(dir, out, err, err_len);
    }
    if (rc != PDK_OK) {
        pdk_migrations_free(out);
    }
    return rc;
}

static pdk_error read_file(const char *file, char **out, char *err, size_t err_len)
{
    *out = NULL;
    FILE *f = fopen(file, "rb");
    if (!f) {
        pdk_store_errf(err, err_len, "%s: cannot open migration: %s", file, strerror(errno));
        return PDK_ERR_IO;
    }
    size_t cap = 4096;
    size_t len = 0;
    char *buf = malloc(cap);
    pdk_error rc = buf ? PDK_OK : PDK_ERR_NO_MEMORY;
    while (rc == PDK_OK) {
        if (len + 1 == cap) {
            if (cap >= (size_t)MIGRATION_MAX_BYTES) {
                pdk_store_errf(err, err_len, "%s: migration larger than %ld bytes", file,
                               MIGRATION_MAX_BYTES);
                rc = PDK_ERR_IO;
                break;
            }
            char *n = realloc(buf, cap * 2);
            if (!n) {
                rc = PDK_ERR_NO_MEMORY;
                break;
            }
            buf = n;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                pdk_store_errf(err, err_len, "%s: cannot read migration: %s", file,
                               strerror(errno));
                rc = PDK_ERR_IO;
            }
            break;
        }
    }
    fclose(f);
    if (rc == PDK_ERR_NO_MEMORY) {
        pdk_store_errf(err, err_len, "%s: out of memory reading migration", file);
    }
    if (rc != PDK_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        free(buf);
        pdk_store_errf(err, err_len, "%s: migration contains a NUL byte", file);
        return PDK_ERR_IO;
    }
    *out = buf;
    return PDK_OK;
}

/* Runs sql that returns no rows; on failure copies SQLite's message. */
static int exec_sql(sqlite3 *db, const char *sql, char *msg, size_t msg_len)
{
    char *e = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
    if (rc != SQLITE_OK) {
        snprintf(msg, msg_len, "%s", e ? e : sqlite3_errstr(rc));
    }
    sqlite3_free(e);
    return rc;
}

static pdk_error current_version(sqlite3 *db, const char *db_path, int64_t *version, char *err,
                                 size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", -1,
                                &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *version = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot read schema_migrations: %s", db_path,
                       sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? PDK_OK : PDK_ERR_DB;
}

/* Migrations run inside the runner's transaction, so one that begins,
 * commits or rolls back its own would break the all-or-nothing promise;
 * SQLite's authorizer refuses such statements before they run. */
static int deny_transaction_control(void *flag, int action, const char *a, const char *b,
                                    const char *c, const char *d)
{
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    if (action == SQLITE_TRANSACTION) {
        *(int *)flag = 1;
        return SQLITE_DENY;
    }
    return SQLITE_OK;
}

static pdk_error apply_one(sqlite3 *db, const char *db_path, const pdk_migration *m, char *err,
                           size_t err_len)
{
    char *sql = NULL;
    pdk_error prc = read_file(m->file, &sql, err, err_len);
    if (prc != PDK_OK) {
        return prc;
    }
    char msg[PDK_STORE_ERR_LEN];
    if (exec_sql(db, "BEGIN IMMEDIATE", msg, sizeof msg) != SQLITE_OK) {
        free(sql);
        pdk_store_errf(err, err_len, "%s: cannot begin migration %s: %s", db_path, m->file, msg);
        return PDK_ERR_DB;
    }
    int denied = 0;
    sqlite3_set_authorizer(db, deny_transaction_control, &denied);
    int rc = exec_sql(db, sql, msg, sizeof msg);
    sqlite3_set_authorizer(db, NULL, NULL);
    free(sql);
    if (rc != SQLITE_OK && denied) {
        snprintf(msg, sizeof msg,
                 "BEGIN, COMMIT and ROLLBACK are not allowed in a migration (each already runs "
                 "in its own transaction)");
    }
    if (rc == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v2(db,
                                "INSERT INTO schema_migrations(version, name, applied_unix_ms) "
                                "VALUES (?, ?, ?)",
                                -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int(st, 1, m->version);
            sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, pdk_store_now_unix_ms());
            rc = sqlite3_step(st);
            rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        if (rc != SQLITE_OK) {
            snprintf(msg, sizeof msg, "recording it in schema_migrations: %s", sqlite3_errmsg(db));
        }
        sqlite3_finalize(st);
    }
    if (rc == SQLITE_OK) {
        rc = exec_sql(db, "COMMIT", msg, sizeof msg);
    }
    if (rc != SQLITE_OK) {
        /* A migration that ran its own COMMIT or ROLLBACK may have ended the
         * transaction already; only roll back one that is still open. */
        if (!sqlite3_get_autocommit(db)) {
            char ignored[64];
            exec_sql(db, "ROLLBACK", ignored, sizeof ignored);
        }
        pdk_store_errf(err, err_len, "%s: migration failed, database left at version %d: %s",
                       m->file, m->version - 1, msg);
        return PDK_ERR_DB;
    }
    return PDK_OK;
}

pdk_error pdk_migrations_apply(sqlite3 *db, const char *db_path, const pdk_migration_list *list,
                               int *version, char *err, size_t err_len)
{
    char msg[PDK_STORE_ERR_LEN];
    if (exec_sql(db,
                 "CREATE TABLE IF NOT EXISTS schema_migrations ("
                 " version INTEGER PRIMARY KEY,"
                 " name TEXT NOT NULL,"
                 " applied_unix_ms INTEGER NOT NULL)",
                 msg, sizeof msg) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: cannot create schema_migrations: %s", db_path, msg);
        return PDK_ERR_DB;
    }
    int64_t have = 0;
    pdk_error rc = current_version(db, db_path, &have, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int64_t known = list->items[list->count - 1].version;
    if (have > known) {
        pdk_store_errf(err, err_len,
                       "%s: database schema version %lld is newer than this binary knows (%lld); "
                       "use a newer paddockd",
                       db_path, (long long)have, (long long)known);
        return PDK_ERR_DB_TOO_NEW;
    }
    if (have < 0) {
        pdk_store_errf(err, err_len, "%s: schema_migrations holds a negative version %lld", db_path,
                       (long long)have);
        return PDK_ERR_DB;
    }
    for (size_t i = (size_t)have; i < list->count; i++) {
        rc = apply_one(db, db_path, &list->items[i], err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    *version = (int)known;
    return PDK_OK;
}
