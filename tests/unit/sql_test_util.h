/* SQLite straight to the file, for the store's tests: what a tool reading
 * or tampering with a Paddock database does, each failure a test failure
 * naming the statement. */
#ifndef PDK_SQL_TEST_UTIL_H
#define PDK_SQL_TEST_UTIL_H

#include <check.h>
#include <sqlite3.h>
#include <stdint.h>

static inline sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

/* The first column of the first row of sql. */
static inline int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static inline void raw_exec(sqlite3 *db, const char *sql)
{
    char *e = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, e ? e : "?");
    sqlite3_free(e);
}

static inline int64_t file_int(const char *path, const char *sql)
{
    sqlite3 *db = raw_open(path);
    int64_t v = raw_int(db, sql);
    sqlite3_close(db);
    return v;
}

static inline void file_exec(const char *path, const char *sql)
{
    sqlite3 *db = raw_open(path);
    raw_exec(db, sql);
    sqlite3_close(db);
}

#endif
