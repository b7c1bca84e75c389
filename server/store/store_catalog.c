/* The recordings a database holds, as a catalogue: listed a page at a time
 * under filters, deleted one at a time, and trimmed to a size or an age by
 * the retention rule. Each call opens a connection of its own (one for a
 * whole retention run), so it runs on any thread but the loop's and never
 * waits on the read API's locks. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* What a recording takes, in bytes: its inputs' payloads, its keyframes'
 * blobs, its vehicles' parameters and its world's, and 8 bytes for each
 * state hash. The bytes of the rows' content, not of the pages around
 * them: SQLite's page overhead and indexes are not counted. */
#define SIZE_SQL                                                                                   \
    "(COALESCE((SELECT SUM(length(i.payload)) FROM inputs i WHERE i.session_id = s.session_id), "  \
    "0) + COALESCE((SELECT SUM(length(k.blob)) FROM snapshots k WHERE k.session_id = "             \
    "s.session_id), 0) + COALESCE((SELECT SUM(length(v.params_json) + length(v.overrides)) "       \
    "FROM vehicles v WHERE v.session_id = s.session_id), 0) + 8 * (SELECT COUNT(*) FROM "          \
    "state_hashes h WHERE h.session_id = s.session_id) + length(s.world_json))"

/* The last tick: the final one once the session ended or was marked
 * interrupted, else its last committed state hash's (its start before one). */
#define LAST_TICK_SQL                                                                              \
    "(CASE WHEN s.closed_unix_ms IS NOT NULL OR s.interrupted = 1 THEN s.final_tick ELSE "         \
    "COALESCE((SELECT MAX(h.tick) FROM state_hashes h WHERE h.session_id = s.session_id), "        \
    "s.start_tick) END)"

static const char *const WHERE_SQL =
    " WHERE (?1 = '' OR instr(s.name, ?1) > 0) AND (?2 = '' OR s.world_preset = ?2)"
    " AND (?3 = '' OR EXISTS (SELECT 1 FROM vehicles v WHERE v.session_id = s.session_id"
    " AND v.preset = ?3)) AND (?4 = 0 OR s.created_unix_ms >= ?4)"
    " AND (?5 = 0 OR s.created_unix_ms < ?5) AND (?6 = 0 OR s.interrupted = 1)";

/* The filter's visibility callback as an SQL function, so that the count
 * and the page's LIMIT and OFFSET see only what it lets through. */
static const char *const VISIBLE_SQL = " AND paddock_visible(s.session_id, s.name)";

static void sql_visible(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const pdk_store_list_filter *f = sqlite3_user_data(cx);
    const char *name = (const char *)sqlite3_value_text(argv[1]);
    uint64_t id = pdk_store_i64_to_u64(sqlite3_value_int64(argv[0]));
    sqlite3_result_int(cx, f->visible(f->visible_ctx, id, name ? name : "") ? 1 : 0);
}

static pdk_error open_own(const pdk_store *s, int flags, sqlite3 **out, char *err, size_t err_len)
{
    *out = NULL;
    sqlite3 *db = NULL;
    int rc;
    if (s->read_only) {
        /* The disk was full at start: immutable, as the store's readers. */
        char *uri = pdk_store_file_uri(s->path, "mode=ro&immutable=1");
        rc = uri ? sqlite3_open_v2(
                       uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL)
                 : SQLITE_NOMEM;
        free(uri);
    } else {
        rc = sqlite3_open_v2(s->path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    }
    if (rc != SQLITE_OK) {
        pdk_store_errf(err, err_len, "the recordings database cannot be opened: %s",
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return PDK_ERR_DB;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, PDK_STORE_BUSY_TIMEOUT_MS);
    *out = db;
    return PDK_OK;
}

static int exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static pdk_error db_fail(sqlite3 *db, const char *what, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s: %s", what, sqlite3_errmsg(db));
    return PDK_ERR_DB;
}

static void bind_filter(sqlite3_stmt *st, const pdk_store_list_filter *f)
{
    sqlite3_bind_text(st, 1, f->name_contains ? f->name_contains : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->world_preset ? f->world_preset : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, f->vehicle_preset ? f->vehicle_preset : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, f->started_after_unix_ms);
    sqlite3_bind_int64(st, 5, f->started_before_unix_ms);
    sqlite3_bind_int(st, 6, f->interrupted_only != 0);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? t : "";
}

/* The vehicles of one session into the row's arrays (grown as needed). */
static pdk_error read_vehicles(sqlite3 *db, sqlite3_stmt *vst, uint64_t session_id,
                               pdk_store_recording *row, size_t *cap, char *err, size_t err_len)
{
    sqlite3_reset(vst);
    sqlite3_bind_int64(vst, 1, pdk_store_u64_to_i64(session_id));
    row->n_vehicles = 0;
    int rc;
    while ((rc = sqlite3_step(vst)) == SQLITE_ROW) {
        if (row->n_vehicles == *cap) {
            size_t n = *cap ? *cap * 2 : 8;
            pdk_store_recorded_vehicle *v = realloc(row->vehicles, n * sizeof *v);
            if (!v) {
                pdk_store_errf(err, err_len, "out of memory listing the vehicles of session %llu",
                               (unsigned long long)session_id);
                return PDK_ERR_NO_MEMORY;
            }
            row->vehicles = v;
            *cap = n;
        }
        pdk_store_recorded_vehicle *v = &row->vehicles[row->n_vehicles++];
        int64_t id = sqlite3_column_int64(vst, 0);
        v->vehicle_id = id >= 0 && id <= UINT32_MAX ? (uint32_t)id : 0;
        snprintf(v->preset, sizeof v->preset, "%s", col_text(vst, 1));
    }
    if (rc != SQLITE_DONE)
        return db_fail(db, "listing a recording's vehicles", err, err_len);
    return PDK_OK;
}

pdk_error pdk_store_list_recordings(pdk_store *store, const pdk_store_list_filter *filter,
                                    uint64_t offset, uint64_t limit, uint64_t *total,
                                    pdk_store_recording_fn fn, void *ctx, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !filter || !fn) {
        pdk_store_errf(err, err_len, "pdk_store_list_recordings: %s is NULL",
                       !store    ? "store"
                       : !filter ? "filter"
                                 : "fn");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (total)
        *total = 0;
    sqlite3 *db = NULL;
    pdk_error rc = open_own(store, SQLITE_OPEN_READONLY, &db, err, err_len);
    if (rc != PDK_OK)
        return rc;
    char sql[2048];
    sqlite3_stmt *cst = NULL, *st = NULL, *vst = NULL;
    /* One read transaction: the count and the page see the same file. */
    if (exec(db, "BEGIN") != SQLITE_OK) {
        rc = db_fail(db, "listing recordings", err, err_len);
        goto done;
    }
    const char *visible_sql = filter->visible ? VISIBLE_SQL : "";
    if (filter->visible &&
        sqlite3_create_function(db, "paddock_visible", 2, SQLITE_UTF8, (void *)filter, sql_visible,
                                NULL, NULL) != SQLITE_OK) {
        rc = db_fail(db, "listing recordings", err, err_len);
        goto done;
    }
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM sessions s%s%s", WHERE_SQL, visible_sql);
    if (sqlite3_prepare_v2(db, sql, -1, &cst, NULL) != SQLITE_OK) {
        rc = db_fail(db, "listing recordings", err, err_len);
        goto done;
    }
    bind_filter(cst, filter);
    if (sqlite3_step(cst) != SQLITE_ROW) {
        rc = db_fail(db, "counting recordings", err, err_len);
        goto done;
    }
    if (total)
        *total = (uint64_t)sqlite3_column_int64(cst, 0);
    snprintf(sql, sizeof sql,
             "SELECT s.session_id, s.name, s.world_preset, s.build_id, s.timing, "
             "s.created_unix_ms, s.start_tick, " LAST_TICK_SQL ", s.dt_s, "
             "s.closed_unix_ms IS NOT NULL, s.interrupted, " SIZE_SQL
             " FROM sessions s%s%s ORDER BY s.session_id LIMIT ?7 OFFSET ?8",
             WHERE_SQL, visible_sql);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT vehicle_id, preset FROM vehicles WHERE session_id = ?1 "
                           "ORDER BY spawn_tick, vehicle_id",
                           -1, &vst, NULL) != SQLITE_OK) {
        rc = db_fail(db, "listing recordings", err, err_len);
        goto done;
    }
    bind_filter(st, filter);
    sqlite3_bind_int64(st, 7, limit == 0 || limit > INT64_MAX ? -1 : (int64_t)limit);
    sqlite3_bind_int64(st, 8, offset > INT64_MAX ? INT64_MAX : (int64_t)offset);
    pdk_store_recording row;
    memset(&row, 0, sizeof row);
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        row.session_id = pdk_store_i64_to_u64(sqlite3_column_int64(st, 0));
        row.name = col_text(st, 1);
        row.world_preset = col_text(st, 2);
        row.build_id = col_text(st, 3);
        row.timing = col_text(st, 4);
        row.created_unix_ms = sqlite3_column_int64(st, 5);
        row.start_tick = pdk_store_i64_to_u64(sqlite3_column_int64(st, 6));
        row.last_tick = pdk_store_i64_to_u64(sqlite3_column_int64(st, 7));
        row.dt_s = sqlite3_column_double(st, 8);
        row.ended = sqlite3_column_int(st, 9);
        row.interrupted = sqlite3_column_int(st, 10);
        int64_t size = sqlite3_column_int64(st, 11);
        row.size_bytes = size > 0 ? (uint64_t)size : 0;
        rc = read_vehicles(db, vst, row.session_id, &row, &cap, err, err_len);
        if (rc == PDK_OK) {
            rc = fn(ctx, &row);
            if (rc != PDK_OK)
                pdk_store_errf(err, err_len, "listing recordings: the callback stopped with %s",
                               pdk_error_name(rc));
        }
        if (rc != PDK_OK)
            break;
    }
    free(row.vehicles);
    if (rc == PDK_OK && step != SQLITE_DONE)
        rc = db_fail(db, "listing recordings", err, err_len);
done:
    sqlite3_finalize(cst);
    sqlite3_finalize(st);
    sqlite3_finalize(vst);
    exec(db, "ROLLBACK");
    sqlite3_close(db);
    return rc;
}

/* Tables holding a session's rows, children first: every one but sessions
 * refers to sessions(session_id). The first OWNER_DELETES exist from
 * PDK_STORE_OWNERS_VERSION on. */
static const char *const DELETE_SQL[] = {
    "DELETE FROM join_tokens WHERE session_id = ?1",
    "DELETE FROM session_owners WHERE session_id = ?1",
    "DELETE FROM snapshots WHERE session_id = ?1",
    "DELETE FROM state_hashes WHERE session_id = ?1",
    "DELETE FROM inputs WHERE session_id = ?1",
    "DELETE FROM vehicles WHERE session_id = ?1",
    "DELETE FROM recording_gaps WHERE session_id = ?1",
    "DELETE FROM sessions WHERE session_id = ?1",
};
#define OWNER_DELETES 2

/* Deletes on db, which holds no transaction; see pdk_store_delete_recording. */
static pdk_error delete_on(const pdk_store *store, sqlite3 *db, uint64_t session_id, char *err,
                           size_t err_len)
{
    if (exec(db, "BEGIN IMMEDIATE") != SQLITE_OK)
        return db_fail(db, "deleting a recording", err, err_len);
    pdk_error rc = PDK_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT closed_unix_ms IS NOT NULL OR interrupted = 1 FROM sessions "
                           "WHERE session_id = ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = db_fail(db, "deleting a recording", err, err_len);
    } else {
        sqlite3_bind_int64(st, 1, pdk_store_u64_to_i64(session_id));
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE) {
            pdk_store_errf(err, err_len, "no recording %llu", (unsigned long long)session_id);
            rc = PDK_ERR_NOT_FOUND;
        } else if (step != SQLITE_ROW) {
            rc = db_fail(db, "deleting a recording", err, err_len);
        } else if (sqlite3_column_int(st, 0) == 0) {
            pdk_store_errf(err, err_len,
                           "recording %llu is still being recorded; close its session first",
                           (unsigned long long)session_id);
            rc = PDK_ERR_BUSY;
        }
    }
    sqlite3_finalize(st);
    size_t first = store->schema_version >= PDK_STORE_OWNERS_VERSION ? 0 : OWNER_DELETES;
    for (size_t i = first; rc == PDK_OK && i < sizeof DELETE_SQL / sizeof DELETE_SQL[0]; i++) {
        st = NULL;
        if (sqlite3_prepare_v2(db, DELETE_SQL[i], -1, &st, NULL) != SQLITE_OK) {
            rc = db_fail(db, "deleting a recording", err, err_len);
            break;
        }
        sqlite3_bind_int64(st, 1, pdk_store_u64_to_i64(session_id));
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_fail(db, "deleting a recording", err, err_len);
        sqlite3_finalize(st);
    }
    if (rc == PDK_OK && exec(db, "COMMIT") != SQLITE_OK)
        rc = db_fail(db, "deleting a recording", err, err_len);
    if (!sqlite3_get_autocommit(db))
        exec(db, "ROLLBACK");
    /* Frees pages to the file system when the database was made with
     * auto_vacuum=INCREMENTAL; in any other file the pages join SQLite's
     * free list and the next recordings reuse them. */
    if (rc == PDK_OK)
        exec(db, "PRAGMA incremental_vacuum");
    return rc;
}

/* The store's deleting connection (store_internal.h ddb), opened at the
 * first use, held under delete_mu until end_delete, once whatever was
 * queued before (a session's end) is in the file. what names the work in
 * an error; on error nothing is held. */
static pdk_error begin_delete(pdk_store *store, const char *what, sqlite3 **db, char *err,
                              size_t err_len)
{
    pdk_store_flush(store);
    pthread_mutex_lock(&store->delete_mu);
    pdk_error rc = PDK_OK;
    if (store->ddb == NULL) {
        rc = open_own(store, SQLITE_OPEN_READWRITE, &store->ddb, err, err_len);
        if (rc == PDK_OK && exec(store->ddb, "PRAGMA foreign_keys=ON") != SQLITE_OK) {
            rc = db_fail(store->ddb, what, err, err_len);
            sqlite3_close(store->ddb);
            store->ddb = NULL;
        }
    }
    if (rc != PDK_OK) {
        pthread_mutex_unlock(&store->delete_mu);
        *db = NULL;
        return rc;
    }
    *db = store->ddb;
    return PDK_OK;
}

static void end_delete(pdk_store *store)
{
    pthread_mutex_unlock(&store->delete_mu);
}

pdk_error pdk_store_delete_recording(pdk_store *store, uint64_t session_id, char *err,
                                     size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store) {
        pdk_store_errf(err, err_len, "pdk_store_delete_recording: store is NULL");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (store->read_only) {
        pdk_store_errf(err, err_len, "%s", PDK_STORE_READ_ONLY_MSG);
        return PDK_ERR_IO;
    }
    sqlite3 *db = NULL;
    pdk_error rc = begin_delete(store, "deleting a recording", &db, err, err_len);
    if (rc != PDK_OK)
        return rc;
    rc = delete_on(store, db, session_id, err, err_len);
    end_delete(store);
    return rc;
}

/* One finished recording as retention weighs it. */
typedef struct kept {
    uint64_t session_id;
    int64_t created_unix_ms;
    uint64_t size_bytes;
    int finished;
} kept;

typedef struct kept_list {
    kept *items;
    size_t n, cap;
} kept_list;

/* Every recording as retention weighs it, oldest first: by start time,
 * then id (ids grow with time in one file, but an import takes a new id
 * for an old recording). One query, without the listing's vehicles. */
static pdk_error collect_kept(sqlite3 *db, kept_list *l, char *err, size_t err_len)
{
    pdk_error rc = PDK_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT s.session_id, s.created_unix_ms, " SIZE_SQL
                           ", s.closed_unix_ms IS NOT NULL OR s.interrupted = 1 FROM sessions s "
                           "ORDER BY s.created_unix_ms, s.session_id",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, "weighing recordings for retention", err, err_len);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (l->n == l->cap) {
            size_t n = l->cap ? l->cap * 2 : 64;
            kept *k = realloc(l->items, n * sizeof *k);
            if (!k) {
                pdk_store_errf(err, err_len, "weighing recordings for retention: out of memory");
                rc = PDK_ERR_NO_MEMORY;
                break;
            }
            l->items = k;
            l->cap = n;
        }
        int64_t size = sqlite3_column_int64(st, 2);
        l->items[l->n++] = (kept){pdk_store_i64_to_u64(sqlite3_column_int64(st, 0)),
                                  sqlite3_column_int64(st, 1), size > 0 ? (uint64_t)size : 0,
                                  sqlite3_column_int(st, 3)};
    }
    if (rc == PDK_OK && step != SQLITE_DONE)
        rc = db_fail(db, "weighing recordings for retention", err, err_len);
    sqlite3_finalize(st);
    return rc;
}

static int is_protected(uint64_t id, const uint64_t *keep, size_t n_keep)
{
    for (size_t i = 0; i < n_keep; i++)
        if (keep[i] == id)
            return 1;
    return 0;
}

pdk_error pdk_store_retain(pdk_store *store, const pdk_store_retention *rule,
                           pdk_store_retired_fn on_deleted, void *ctx, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !rule) {
        pdk_store_errf(err, err_len, "pdk_store_retain: %s is NULL", store ? "rule" : "store");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (rule->max_bytes == 0 && rule->max_age_ms <= 0)
        return PDK_OK;
    if (store->read_only) {
        pdk_store_errf(err, err_len, "%s", PDK_STORE_READ_ONLY_MSG);
        return PDK_ERR_IO;
    }
    sqlite3 *db = NULL;
    pdk_error rc = begin_delete(store, "weighing recordings for retention", &db, err, err_len);
    if (rc != PDK_OK)
        return rc;
    kept_list l = {0};
    rc = collect_kept(db, &l, err, err_len);
    uint64_t bytes = 0;
    for (size_t i = 0; i < l.n; i++)
        bytes += l.items[i].size_bytes;
    int64_t cutoff_ms = rule->max_age_ms > 0 ? rule->now_unix_ms - rule->max_age_ms : INT64_MIN;
    for (size_t i = 0; rc == PDK_OK && i < l.n; i++) {
        const kept *k = &l.items[i];
        int too_old = k->created_unix_ms < cutoff_ms;
        int too_big = rule->max_bytes > 0 && bytes > rule->max_bytes;
        if (!too_old && !too_big)
            continue;
        if (!k->finished || is_protected(k->session_id, rule->keep, rule->n_keep))
            continue;
        char why[160];
        if (too_old)
            snprintf(why, sizeof why, "started %lld s ago, older than %lld s",
                     (long long)((rule->now_unix_ms - k->created_unix_ms) / 1000),
                     (long long)(rule->max_age_ms / 1000));
        else
            snprintf(why, sizeof why, "the recordings take %llu bytes, more than %llu",
                     (unsigned long long)bytes, (unsigned long long)rule->max_bytes);
        rc = delete_on(store, db, k->session_id, err, err_len);
        if (rc == PDK_ERR_BUSY || rc == PDK_ERR_NOT_FOUND) {
            /* Started or deleted meanwhile: not ours to delete now. */
            rc = PDK_OK;
            continue;
        }
        if (rc != PDK_OK)
            break;
        bytes -= k->size_bytes;
        if (on_deleted)
            on_deleted(ctx, k->session_id, k->size_bytes, why);
    }
    free(l.items);
    end_delete(store);
    return rc;
}
