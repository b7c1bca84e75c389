/* The store's synchronous read API on its read-only connections: session
 * count, one session, and a session's vehicles, inputs, state hashes and
 * keyframes, and the owners and join tokens the server starts with, each
 * value checked against its C type before it is handed out. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* One read: the prepared statement, the store, the connection it holds
 * (locked) and where to report. */
typedef struct reader {
    pdk_store *s;
    sqlite3 *db;
    int slot;
    sqlite3_stmt *st;
    char *err;
    size_t err_len;
} reader;

/* Takes a free read connection, or waits for the first one when every one
 * is busy. */
static int take_connection(pdk_store *s)
{
    for (int i = 0; i < PDK_STORE_READERS; i++) {
        if (pthread_mutex_trylock(&s->read_mu[i]) == 0) {
            return i;
        }
    }
    pthread_mutex_lock(&s->read_mu[0]);
    return 0;
}

static pdk_error begin_read(pdk_store *s, const char *sql, reader *rd, char *err, size_t err_len)
{
    rd->s = s;
    rd->st = NULL;
    rd->err = err;
    rd->err_len = err_len;
    rd->slot = take_connection(s);
    rd->db = s->rdb[rd->slot];
    if (sqlite3_prepare_v2(rd->db, sql, -1, &rd->st, NULL) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "%s: preparing a read: %s", s->path, sqlite3_errmsg(rd->db));
        pthread_mutex_unlock(&s->read_mu[rd->slot]);
        return PDK_ERR_DB;
    }
    return PDK_OK;
}

static void end_read(reader *rd)
{
    sqlite3_finalize(rd->st);
    pthread_mutex_unlock(&rd->s->read_mu[rd->slot]);
}

/* sqlite3_step: 1 for a row, 0 when done, -1 on error (err filled). */
static int step(reader *rd)
{
    int rc = sqlite3_step(rd->st);
    if (rc == SQLITE_ROW) {
        return 1;
    }
    if (rc == SQLITE_DONE) {
        return 0;
    }
    pdk_store_errf(rd->err, rd->err_len, "%s: reading: %s", rd->s->path, sqlite3_errmsg(rd->db));
    return -1;
}

/* Column i as an integer within [lo, hi]; anything else (NULL, text, real,
 * out of range) is a corrupt or foreign file and is reported by name. */
static pdk_error col_int(reader *rd, int i, int64_t lo, int64_t hi, int64_t *out)
{
    if (sqlite3_column_type(rd->st, i) != SQLITE_INTEGER) {
        pdk_store_errf(rd->err, rd->err_len, "%s: %s is not an integer", rd->s->path,
                       sqlite3_column_name(rd->st, i));
        return PDK_ERR_DB;
    }
    int64_t v = sqlite3_column_int64(rd->st, i);
    if (v < lo || v > hi) {
        pdk_store_errf(rd->err, rd->err_len, "%s: %s = %lld is out of range [%lld, %lld]",
                       rd->s->path, sqlite3_column_name(rd->st, i), (long long)v, (long long)lo,
                       (long long)hi);
        return PDK_ERR_DB;
    }
    *out = v;
    return PDK_OK;
}

/* Every uint64 column: any int64 is valid (same bits). */
static pdk_error col_u64(reader *rd, int i, uint64_t *out)
{
    int64_t v = 0;
    pdk_error rc = col_int(rd, i, INT64_MIN, INT64_MAX, &v);
    *out = pdk_store_i64_to_u64(v);
    return rc;
}

static const char *col_text(reader *rd, int i, size_t *len)
{
    const char *t = (const char *)sqlite3_column_text(rd->st, i);
    *len = t ? (size_t)sqlite3_column_bytes(rd->st, i) : 0;
    return t ? t : "";
}

static pdk_error callback_stopped(reader *rd, pdk_error rc, const char *what)
{
    pdk_store_errf(rd->err, rd->err_len, "reading %s: the callback stopped the read with %s", what,
                   pdk_error_name(rc));
    return rc;
}

/* NOT_FOUND (with a message) unless the session exists, on the connection
 * rd holds: the readers of one session's rows ask first. */
static pdk_error session_exists(const reader *rd, uint64_t session_id, char *err, size_t err_len)
{
    const pdk_store *s = rd->s;
    sqlite3_stmt *st = NULL;
    int rc =
        sqlite3_prepare_v2(rd->db, "SELECT 1 FROM sessions WHERE session_id = ?1", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, pdk_store_u64_to_i64(session_id));
        rc = sqlite3_step(st);
    }
    pdk_error out = PDK_OK;
    if (rc == SQLITE_DONE) {
        pdk_store_errf(err, err_len, "%s: no session %llu", s->path,
                       (unsigned long long)session_id);
        out = PDK_ERR_NOT_FOUND;
    } else if (rc != SQLITE_ROW) {
        pdk_store_errf(err, err_len, "%s: looking up session %llu: %s", s->path,
                       (unsigned long long)session_id, sqlite3_errmsg(rd->db));
        out = PDK_ERR_DB;
    }
    sqlite3_finalize(st);
    return out;
}

pdk_error pdk_store_session_count(pdk_store *store, uint64_t *out, char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !out) {
        pdk_store_errf(err, err_len, "pdk_store_session_count: %s is NULL",
                       store ? "out" : "store");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    reader rd;
    pdk_error rc = begin_read(store, "SELECT COUNT(*) FROM sessions", &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int row = step(&rd);
    if (row == 1) {
        rc = col_u64(&rd, 0, out);
    } else {
        if (row == 0) {
            pdk_store_errf(err, err_len, "%s: counting sessions gave no row", store->path);
        }
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}

static char *copy_strings(const char *const *texts, const size_t *lens, size_t n,
                          const char **views)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += lens[i] + 1;
    }
    char *block = malloc(total);
    if (!block) {
        return NULL;
    }
    char *p = block;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, texts[i], lens[i]);
        p[lens[i]] = '\0';
        views[i] = p;
        p += lens[i] + 1;
    }
    return block;
}

pdk_error pdk_store_read_session(pdk_store *store, uint64_t session_id, pdk_store_session_info *out,
                                 char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !out) {
        pdk_store_errf(err, err_len, "pdk_store_read_session: %s is NULL", store ? "out" : "store");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    reader rd;
    pdk_error rc = begin_read(store,
                              "SELECT name, timing, world_preset, world_json, build_id, dt_s, "
                              "substeps, created_unix_ms, closed_unix_ms, final_tick, final_hash, "
                              "start_tick, parent_session_id, parent_tick, keyframe_every_ticks, "
                              "interrupted, (SELECT h.tick FROM state_hashes h WHERE "
                              "h.session_id = ?1 ORDER BY h.tick DESC LIMIT 1) AS last_tick, "
                              "(SELECT COUNT(*) FROM recording_gaps g WHERE g.session_id = ?1), "
                              "(SELECT g.first_tick FROM recording_gaps g WHERE g.session_id = ?1 "
                              "ORDER BY g.first_tick LIMIT 1), "
                              "(SELECT g.last_tick FROM recording_gaps g WHERE g.session_id = ?1 "
                              "ORDER BY g.first_tick LIMIT 1) "
                              "FROM sessions WHERE session_id = ?1",
                              &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    sqlite3_bind_int64(rd.st, 1, pdk_store_u64_to_i64(session_id));
    int row = step(&rd);
    if (row == 0) {
        pdk_store_errf(err, err_len, "%s: no session %llu", store->path,
                       (unsigned long long)session_id);
        rc = PDK_ERR_NOT_FOUND;
    } else if (row < 0) {
        rc = PDK_ERR_DB;
    }
    pdk_store_session_info info;
    memset(&info, 0, sizeof info);
    info.session.session_id = session_id;
    int64_t substeps = 0;
    if (rc == PDK_OK) {
        rc = col_int(&rd, 6, INT_MIN, INT_MAX, &substeps);
    }
    if (rc == PDK_OK) {
        rc = col_int(&rd, 7, INT64_MIN, INT64_MAX, &info.session.created_unix_ms);
    }
    /* A recorded end sets all three; an interrupted session has its final
     * tick and hash from pdk_store_mark_interrupted and no close time. */
    if (rc == PDK_OK && sqlite3_column_type(rd.st, 8) != SQLITE_NULL) {
        info.ended = 1;
        rc = col_int(&rd, 8, INT64_MIN, INT64_MAX, &info.closed_unix_ms);
    }
    if (rc == PDK_OK && sqlite3_column_type(rd.st, 9) != SQLITE_NULL) {
        rc = col_u64(&rd, 9, &info.final_tick);
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 10, &info.final_hash);
        }
    }
    int64_t keyframe_every = 0;
    int64_t interrupted = 0;
    if (rc == PDK_OK) {
        rc = col_u64(&rd, 11, &info.session.start_tick);
    }
    if (rc == PDK_OK) {
        rc = col_u64(&rd, 12, &info.session.parent_session_id);
    }
    if (rc == PDK_OK) {
        rc = col_u64(&rd, 13, &info.session.parent_tick);
    }
    if (rc == PDK_OK) {
        rc = col_int(&rd, 14, 0, UINT32_MAX, &keyframe_every);
    }
    if (rc == PDK_OK) {
        rc = col_int(&rd, 15, 0, 1, &interrupted);
    }
    if (rc == PDK_OK && sqlite3_column_type(rd.st, 16) != SQLITE_NULL) {
        rc = col_u64(&rd, 16, &info.last_tick);
    }
    if (rc == PDK_OK) {
        rc = col_u64(&rd, 17, &info.gaps);
    }
    if (rc == PDK_OK && info.gaps > 0) {
        rc = col_u64(&rd, 18, &info.gap_first_tick);
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 19, &info.gap_last_tick);
        }
    }
    if (rc == PDK_OK) {
        info.session.substeps = (int)substeps;
        info.session.keyframe_every_ticks = (uint32_t)keyframe_every;
        info.interrupted = (int)interrupted;
        info.session.dt_s = sqlite3_column_double(rd.st, 5);
        const char *texts[5];
        size_t lens[5];
        for (int i = 0; i < 5; i++) {
            texts[i] = col_text(&rd, i, &lens[i]);
        }
        const char *views[5];
        info.strings_ = copy_strings(texts, lens, 5, views);
        if (!info.strings_) {
            pdk_store_errf(err, err_len, "%s: out of memory reading session %llu", store->path,
                           (unsigned long long)session_id);
            rc = PDK_ERR_NO_MEMORY;
        } else {
            info.session.name = views[0];
            info.session.timing = views[1];
            info.session.world_preset = views[2];
            info.session.world_json = views[3];
            info.session.build_id = views[4];
            *out = info;
        }
    }
    end_read(&rd);
    return rc;
}

void pdk_store_session_info_free(pdk_store_session_info *info)
{
    if (!info) {
        return;
    }
    free(info->strings_);
    memset(info, 0, sizeof *info);
}

/* Opens a per-session read after checking the session exists. */
static pdk_error begin_session_read(pdk_store *store, uint64_t session_id, int has_fn,
                                    const char *what, const char *sql, reader *rd, char *err,
                                    size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !has_fn) {
        pdk_store_errf(err, err_len, "reading %s: %s is NULL", what, store ? "fn" : "store");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_error rc = begin_read(store, sql, rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = session_exists(rd, session_id, err, err_len);
    if (rc != PDK_OK) {
        end_read(rd);
        return rc;
    }
    sqlite3_bind_int64(rd->st, 1, pdk_store_u64_to_i64(session_id));
    return PDK_OK;
}

pdk_error pdk_store_read_vehicles(pdk_store *store, uint64_t session_id, pdk_store_vehicle_fn fn,
                                  void *ctx, char *err, size_t err_len)
{
    reader rd;
    pdk_error rc = begin_session_read(store, session_id, fn != NULL, "vehicles",
                                      "SELECT vehicle_id, spawn_tick, removed_tick, preset, "
                                      "overrides, params_json FROM vehicles WHERE session_id = ?1 "
                                      "ORDER BY spawn_tick, vehicle_id",
                                      &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int row = 0;
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        pdk_store_vehicle_row v;
        memset(&v, 0, sizeof v);
        int64_t id = 0;
        size_t len = 0;
        rc = col_int(&rd, 0, 0, UINT32_MAX, &id);
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 1, &v.spawn_tick);
        }
        if (rc == PDK_OK && sqlite3_column_type(rd.st, 2) != SQLITE_NULL) {
            v.removed = 1;
            rc = col_u64(&rd, 2, &v.removed_tick);
        }
        if (rc != PDK_OK) {
            break;
        }
        v.vehicle_id = (uint32_t)id;
        v.preset = col_text(&rd, 3, &len);
        v.overrides = col_text(&rd, 4, &len);
        v.params_json = col_text(&rd, 5, &len);
        rc = fn(ctx, &v);
        if (rc != PDK_OK) {
            rc = callback_stopped(&rd, rc, "vehicles");
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}

pdk_error pdk_store_read_inputs(pdk_store *store, uint64_t session_id, pdk_store_input_fn fn,
                                void *ctx, char *err, size_t err_len)
{
    return pdk_store_read_inputs_between(store, session_id, 0, UINT64_MAX, fn, ctx, err, err_len);
}

pdk_error pdk_store_read_inputs_between(pdk_store *store, uint64_t session_id, uint64_t first_tick,
                                        uint64_t last_tick, pdk_store_input_fn fn, void *ctx,
                                        char *err, size_t err_len)
{
    reader rd;
    pdk_error rc = begin_session_read(store, session_id, fn != NULL, "inputs",
                                      "SELECT tick, seq, kind, payload FROM inputs "
                                      "WHERE session_id = ?1 AND tick BETWEEN ?2 AND ?3 "
                                      "ORDER BY tick, seq",
                                      &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    /* Ticks are stored as the signed integers with their bits: past 2^63 - 1
     * the range would wrap. */
    sqlite3_bind_int64(rd.st, 2, first_tick > INT64_MAX ? INT64_MAX : (int64_t)first_tick);
    sqlite3_bind_int64(rd.st, 3, last_tick > INT64_MAX ? INT64_MAX : (int64_t)last_tick);
    int row = 0;
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        uint64_t tick = 0;
        int64_t seq = 0;
        int64_t kind = 0;
        rc = col_u64(&rd, 0, &tick);
        if (rc == PDK_OK) {
            rc = col_int(&rd, 1, 0, UINT32_MAX, &seq);
        }
        if (rc == PDK_OK) {
            rc = col_int(&rd, 2, INT_MIN, INT_MAX, &kind);
        }
        if (rc != PDK_OK) {
            break;
        }
        const void *payload = sqlite3_column_blob(rd.st, 3);
        size_t len = payload ? (size_t)sqlite3_column_bytes(rd.st, 3) : 0;
        rc = fn(ctx, tick, (uint32_t)seq, (int)kind, len ? payload : NULL, len);
        if (rc != PDK_OK) {
            rc = callback_stopped(&rd, rc, "inputs");
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}

pdk_error pdk_store_read_hashes(pdk_store *store, uint64_t session_id, pdk_store_hash_fn fn,
                                void *ctx, char *err, size_t err_len)
{
    reader rd;
    pdk_error rc = begin_session_read(store, session_id, fn != NULL, "state hashes",
                                      "SELECT tick, hash FROM state_hashes WHERE session_id = ?1 "
                                      "ORDER BY tick",
                                      &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int row = 0;
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        uint64_t tick = 0;
        uint64_t hash = 0;
        rc = col_u64(&rd, 0, &tick);
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 1, &hash);
        }
        if (rc != PDK_OK) {
            break;
        }
        rc = fn(ctx, tick, hash);
        if (rc != PDK_OK) {
            rc = callback_stopped(&rd, rc, "state hashes");
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}

pdk_error pdk_store_read_keyframes(pdk_store *store, uint64_t session_id, pdk_store_keyframe_fn fn,
                                   void *ctx, char *err, size_t err_len)
{
    reader rd;
    pdk_error rc = begin_session_read(store, session_id, fn != NULL, "keyframes",
                                      "SELECT tick, hash, layout, length(blob) FROM snapshots "
                                      "WHERE session_id = ?1 ORDER BY tick",
                                      &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int row = 0;
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        uint64_t tick = 0;
        uint64_t hash = 0;
        uint64_t layout = 0;
        int64_t len = 0;
        rc = col_u64(&rd, 0, &tick);
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 1, &hash);
        }
        if (rc == PDK_OK) {
            rc = col_u64(&rd, 2, &layout);
        }
        if (rc == PDK_OK) {
            rc = col_int(&rd, 3, 0, INT64_MAX, &len);
        }
        if (rc != PDK_OK) {
            break;
        }
        rc = fn(ctx, tick, hash, layout, (size_t)len);
        if (rc != PDK_OK) {
            rc = callback_stopped(&rd, rc, "keyframes");
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}


pdk_error pdk_store_read_snapshot(pdk_store *store, uint64_t session_id, uint64_t tick, void **blob,
                                  size_t *blob_len, char *err, size_t err_len)
{
    if (blob) {
        *blob = NULL;
    }
    if (blob_len) {
        *blob_len = 0;
    }
    if (!blob || !blob_len) {
        pdk_store_errf(err, err_len, "reading a keyframe: %s is NULL", blob ? "blob_len" : "blob");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    reader rd;
    pdk_error rc = begin_session_read(
        store, session_id, 1, "a keyframe",
        store && store->schema_version >= PDK_STORE_KEYFRAME_ENCODING_VERSION
            ? "SELECT blob, encoding FROM snapshots WHERE session_id = ?1 AND tick = ?2"
            : "SELECT blob, 0 FROM snapshots WHERE session_id = ?1 AND tick = ?2",
        &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    sqlite3_bind_int64(rd.st, 2, pdk_store_u64_to_i64(tick));
    int row = step(&rd);
    if (row == 0) {
        pdk_store_errf(err, err_len, "%s: session %llu has no keyframe at tick %llu", store->path,
                       (unsigned long long)session_id, (unsigned long long)tick);
        rc = PDK_ERR_NOT_FOUND;
    } else if (row < 0) {
        rc = PDK_ERR_DB;
    } else if (sqlite3_column_type(rd.st, 0) != SQLITE_BLOB &&
               sqlite3_column_type(rd.st, 0) != SQLITE_NULL) {
        pdk_store_errf(err, err_len, "%s: the keyframe of session %llu at tick %llu is not a blob",
                       store->path, (unsigned long long)session_id, (unsigned long long)tick);
        rc = PDK_ERR_DB;
    } else {
        const void *p = sqlite3_column_blob(rd.st, 0);
        size_t len = p ? (size_t)sqlite3_column_bytes(rd.st, 0) : 0;
        rc = pdk_store_keyframe_unpack(store, session_id, tick, sqlite3_column_int(rd.st, 1), p, len, blob,
                             blob_len, err, err_len);
    }
    end_read(&rd);
    return rc;
}

pdk_error pdk_store_read_access(pdk_store *store, pdk_store_owner_fn owner_fn,
                                pdk_store_join_token_fn token_fn, void *ctx, char *err,
                                size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!store || !owner_fn || !token_fn) {
        pdk_store_errf(err, err_len, "pdk_store_read_access: %s is NULL",
                       !store      ? "store"
                       : !owner_fn ? "owner_fn"
                                   : "token_fn");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    reader rd;
    pdk_error rc = begin_read(store,
                              "SELECT o.session_id, o.owner, s.name FROM session_owners AS o "
                              "JOIN sessions AS s USING (session_id) ORDER BY o.session_id",
                              &rd, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    int row = 0;
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        uint64_t sid = 0;
        size_t len = 0;
        rc = col_u64(&rd, 0, &sid);
        if (rc == PDK_OK) {
            const char *owner = col_text(&rd, 1, &len);
            rc = owner_fn(ctx, sid, owner, col_text(&rd, 2, &len));
            if (rc != PDK_OK) {
                rc = callback_stopped(&rd, rc, "session owners");
            }
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = begin_read(store, "SELECT token_sha256, session_id, role FROM join_tokens", &rd, err,
                    err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    while (rc == PDK_OK && (row = step(&rd)) == 1) {
        uint64_t sid = 0;
        int64_t role = 0;
        rc = col_u64(&rd, 1, &sid);
        if (rc == PDK_OK) {
            rc = col_int(&rd, 2, 1, 5, &role);
        }
        if (rc == PDK_OK && (sqlite3_column_type(rd.st, 0) != SQLITE_BLOB ||
                             sqlite3_column_bytes(rd.st, 0) != 32)) {
            pdk_store_errf(err, err_len,
                           "%s: a join token of session %llu is not a 32-byte SHA-256", store->path,
                           (unsigned long long)sid);
            rc = PDK_ERR_DB;
        }
        if (rc == PDK_OK) {
            rc = token_fn(ctx, sid, sqlite3_column_blob(rd.st, 0), (int)role);
            if (rc != PDK_OK) {
                rc = callback_stopped(&rd, rc, "join tokens");
            }
        }
    }
    if (rc == PDK_OK && row < 0) {
        rc = PDK_ERR_DB;
    }
    end_read(&rd);
    return rc;
}
