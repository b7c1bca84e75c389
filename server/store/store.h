/* The SQLite store: one database file in WAL mode, numbered migrations
 * applied at open, and a writer thread that owns the write connection. The
 * loop thread only enqueues records (pdk_store_record_*); it never waits on
 * SQLite. Records are never dropped: the queue grows, and its depth is
 * reported so the caller can slow a session down that outruns the writer.
 * A second, read-only connection serves the small synchronous read API at
 * the end of this header (tests, replay, tooling).
 *
 * Integers: SQLite stores signed 64-bit integers only. Every uint64_t here
 * (session ids, ticks, state hashes) is stored as the int64 with the same
 * bits (two's complement), so a hash >= 2^63 reads back from SQL as a
 * negative number and from this API as the original uint64_t. Tools reading
 * the file directly must reinterpret the bits (Python: `h & (2**64 - 1)`).
 * See docs/adr/0002-sqlite-writer-thread.md. */
#ifndef PDK_STORE_H
#define PDK_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

#define PDK_STORE_ERR_LEN 512

typedef struct pdk_store pdk_store;

/* Opens (creating if needed, with its parent folder) the database at path,
 * sets WAL, applies every migrations_dir/NNNN_name.sql newer than the
 * database's version in order, each inside one transaction and recorded in
 * schema_migrations, and starts the writer thread. Errors: PDK_ERR_DB (SQLite
 * failed; err has SQLite's message and the file), PDK_ERR_DB_TOO_NEW (the
 * database has a migration this binary does not know), PDK_ERR_IO (missing
 * migrations folder), PDK_ERR_PARSE (a migration file misnamed). */
/* Migration files: only names ending in ".sql" are considered (others, e.g. a
 * README, are ignored). Each must be exactly NNNN_name.sql: four digits, an
 * underscore, a name of [a-z0-9_]+. Numbers start at 0001 and run without
 * gaps or duplicates (a gap almost always means a lost or misnumbered file,
 * and every database must see the same sequence); a folder with no migration
 * is refused with PDK_ERR_IO. A failing migration is rolled back whole: the
 * file stays at the version before it. Also PDK_ERR_INVALID_ARGUMENT (NULL or
 * empty path, NULL migrations_dir or out) and PDK_ERR_NO_MEMORY. On error
 * *out is NULL and nothing is left allocated; err (which may be NULL) always
 * holds a message, empty on success. */
pdk_error pdk_store_open(const char *path, const char *migrations_dir, pdk_store **out, char *err,
                         size_t err_len);

/* Stops taking records (every record_* returns PDK_ERR_CLOSED from here on),
 * commits everything already queued and stops the writer thread. The store
 * stays valid for stats, flush and the read API until pdk_store_close. Call
 * from one thread; calling it twice is harmless. Accepts NULL. */
void pdk_store_shutdown(pdk_store *store);

/* Drains the queue, stops the writer and closes (pdk_store_shutdown first if
 * it was not called), finalizes every statement and frees the store. No other
 * call on this store may run during or after it. Accepts NULL. */
void pdk_store_close(pdk_store *store);

/* Schema version (highest migration number applied). */
int pdk_store_schema_version(const pdk_store *store);

/* Session ids are handed out here, above every id already in the file, so
 * the loop thread knows the id at once. Thread-safe; the first is
 * MAX(session_id) + 1 as read at open. An id handed out but never recorded
 * may be handed out again by a later open. */
uint64_t pdk_store_next_session_id(pdk_store *store);

typedef struct pdk_store_session {
    uint64_t session_id;
    const char *name;
    const char *timing;        /* "realtime", "fast" */
    const char *world_preset;
    const char *world_json;    /* fully resolved world parameters */
    const char *build_id;
    double dt_s;
    int substeps;
    int64_t created_unix_ms;
    /* Since migration 0002 (each 0 in older files): */
    uint64_t start_tick;        /* its first tick; a fork starts at its parent's tick */
    uint64_t parent_session_id; /* 0 unless forked from a recording */
    uint64_t parent_tick;
    uint32_t keyframe_every_ticks; /* ticks between keyframe snapshots */
} pdk_store_session;

/* Each record_* copies what it is given and returns at once. They return
 * PDK_ERR_NO_MEMORY when a copy cannot be made (nothing is queued then) and
 * PDK_ERR_CLOSED after close began. They are thread-safe; records are written
 * in the order they were queued. PDK_ERR_INVALID_ARGUMENT: store NULL, or a
 * required field NULL (session; its name, timing, build_id; a vehicle's
 * preset and params_json; a payload NULL with payload_len > 0). Optional
 * text given as NULL (world_preset, world_json, overrides) is stored as "".
 * PDK_ERR_OUT_OF_RANGE: one text or payload longer than
 * PDK_STORE_MAX_FIELD_BYTES.
 *
 * What SQLite refuses later (an input for a session never recorded, a
 * duplicate (session, tick, seq), a session end or vehicle removal with no
 * matching row) is counted in pdk_store_stats.failed and logged to stderr
 * with the reason, once per record; the writer goes on with the rest.
 * record_session also records its build_id in the build table, once. */
#define PDK_STORE_MAX_FIELD_BYTES (64u * 1024u * 1024u)

pdk_error pdk_store_record_session(pdk_store *store, const pdk_store_session *session);
pdk_error pdk_store_record_session_end(pdk_store *store, uint64_t session_id, uint64_t final_tick,
                                       uint64_t final_hash, int64_t closed_unix_ms);
pdk_error pdk_store_record_vehicle(pdk_store *store, uint64_t session_id, uint32_t vehicle_id,
                                   uint64_t spawn_tick, const char *preset, const char *overrides,
                                   const char *params_json);
pdk_error pdk_store_record_vehicle_removed(pdk_store *store, uint64_t session_id,
                                           uint32_t vehicle_id, uint64_t tick);
/* kind: the input's kind (the app's PDK_INPUT_*); payload: its encoded form. */
pdk_error pdk_store_record_input(pdk_store *store, uint64_t session_id, uint64_t tick,
                                 uint32_t seq, int kind, const void *payload, size_t payload_len);
pdk_error pdk_store_record_hash(pdk_store *store, uint64_t session_id, uint64_t tick,
                                uint64_t hash);

/* Several inputs of one tick as one record, what a session records at the
 * end of a tick's inputs: packed holds entries one after another, each
 * three uint32_t in host order (seq, kind, payload length) and then the
 * payload. PDK_ERR_INVALID_ARGUMENT when the entries do not fill len
 * exactly. Rows as pdk_store_record_input's, written in statements of up to
 * 16 rows each: a refused row (a duplicate (tick, seq)) refuses its
 * statement's rows and the rest of the record; the statements before it
 * stay written. */
pdk_error pdk_store_record_inputs(pdk_store *store, uint64_t session_id, uint64_t tick,
                                  const void *packed, size_t len);

/* The state hashes of n consecutive ticks from first_tick (n at most
 * PDK_STORE_MAX_HASHES), one record: what a session records between
 * inputs, so that a tick's hash costs it no record of its own. A refused
 * row (a duplicate tick) refuses its statement's rows and the rest of the
 * record, as pdk_store_record_inputs. */
#define PDK_STORE_MAX_HASHES 1024u
pdk_error pdk_store_record_hashes(pdk_store *store, uint64_t session_id, uint64_t first_tick,
                                  const uint64_t *hashes, size_t n);

/* Both in one record, what a session records at the end of a tick's
 * inputs: the n_hashes hashes it held from hashes_from (0 or more), then
 * the inputs of tick packed as pdk_store_record_inputs takes them (len 0
 * or more; not both none). The hashes' rows go in first. One record a tick
 * instead of two: a session with inputs every tick queued one for its
 * hashes and one for its inputs. */
pdk_error pdk_store_record_tick(pdk_store *store, uint64_t session_id, uint64_t hashes_from,
                                const uint64_t *hashes, size_t n_hashes, uint64_t tick,
                                const void *packed, size_t len);

/* A keyframe: the session's complete snapshot at tick (a WorldSnapshot
 * message, snapshot.proto), with the state hash at that tick and the state
 * layout it was written in (sim/snapshot.h pdk_snapshot_layout). The blob
 * is copied (NULL only with blob_len 0). A second keyframe at the same tick
 * of a session is refused by SQLite like a duplicate input. */
pdk_error pdk_store_record_snapshot(pdk_store *store, uint64_t session_id, uint64_t tick,
                                    uint64_t hash, uint64_t layout, const void *blob,
                                    size_t blob_len);

/* pdk_store_record_snapshot without the copy: the store takes *blob, a
 * malloc'd block of blob_cap bytes whose first blob_len are the keyframe,
 * and sets *blob to NULL; refused, *blob stays the caller's. Once written
 * the block is kept for pdk_store_spare_take (a few at most) rather than
 * freed, so that the next keyframe is encoded into memory already mapped:
 * a large world's keyframe is megabytes, and copying it into fresh memory,
 * page faults and all, took milliseconds of its tick. */
pdk_error pdk_store_record_snapshot_take(pdk_store *store, uint64_t session_id, uint64_t tick,
                                         uint64_t hash, uint64_t layout, void **blob,
                                         size_t blob_len, size_t blob_cap);

/* Written keyframes' blocks the store keeps for pdk_store_spare_take: one
 * for each of a few recording sessions; more are freed. */
#define PDK_STORE_SPARES 4

/* A block a written keyframe left (its size in *cap), the caller's to
 * free or hand back; NULL (and *cap 0) when there is none. Of several,
 * session_id's own (its keyframes' blocks, and what it asked for with
 * pdk_store_spare_want), the one mapped the furthest. */
void *pdk_store_spare_take(pdk_store *store, uint64_t session_id, size_t *cap);

/* Asks the writer thread for a spare of session_id's whose first bytes
 * are mapped (its pages written once): its own grown, one no session has,
 * or a new block. A session whose fleet grew asks before its next
 * keyframe, so that the keyframe's encode meets no page faults on its tick
 * (fresh memory cost some 0.45 ms a MB on the machines of docs/perf). The
 * writer does it when it next wakes; a take before then gets what there
 * is; a later ask of the same session replaces an earlier one. */
void pdk_store_spare_want(pdk_store *store, uint64_t session_id, size_t bytes);

/* Who owns a recorded session and the join tokens given for it (migration
 * 0004, docs/security.md "Identities and roles"): owner is an --auth key's
 * name (1..63 bytes), never a key; a token is kept as its SHA-256 only.
 * role is paddock.v1.Role's number. A second owner or a token already
 * recorded is refused by SQLite like a duplicate input. Also
 * PDK_ERR_INVALID_ARGUMENT for a NULL or empty owner or a NULL digest. */
pdk_error pdk_store_record_owner(pdk_store *store, uint64_t session_id, const char *owner);
pdk_error pdk_store_record_join_token(pdk_store *store, uint64_t session_id,
                                      const uint8_t token_sha256[32], int role);

/* Blocks until every record queued before the call is committed (or refused
 * and counted in failed). For tests, shutdown and offline runs; never on the
 * loop thread of a live server. PDK_ERR_INVALID_ARGUMENT when store is NULL;
 * PDK_ERR_IO when the disk is full: it returns after the writer's next
 * failed attempt, with the records still kept (PDK_STORE_FULL_RETRY_MS). */
pdk_error pdk_store_flush(pdk_store *store);

/* The writer's batches by how long each took to write and commit (its
 * records' statements, BEGIN to COMMIT), for /metrics: the bounds, in ns,
 * of the buckets of pdk_store_stats.commit_buckets. */
#define PDK_STORE_COMMIT_BOUNDS 9
extern const uint64_t pdk_store_commit_bounds_ns[PDK_STORE_COMMIT_BOUNDS];

typedef struct pdk_store_stats {
    uint64_t queued;        /* records waiting for the writer now, including the
                               batch it is writing (queued, not yet committed) */
    uint64_t written;       /* records committed */
    uint64_t failed;        /* records SQLite refused (each logged once to stderr) */
    uint64_t transactions;  /* commits */
    int disk_full;          /* 1 while the disk is full (pdk_store_disk_full) */
    uint64_t lost;          /* records given up when the store closed on a full disk */
    uint64_t writer_cpu_ns; /* the writer thread's CPU time since it started (keyframes
                               packed, records written); 0 for a read-only store */
    /* Committed batches: bucket i counts those that took at most
     * pdk_store_commit_bounds_ns[i] and more than the bound before it;
     * the last, those longer than every bound. commit_ns sums them all. */
    uint64_t commit_buckets[PDK_STORE_COMMIT_BOUNDS + 1];
    uint64_t commit_ns;
} pdk_store_stats;

/* A write that fails for want of space (SQLITE_FULL, or an I/O error whose
 * errno is ENOSPC or EDQUOT, e.g. when the WAL or its index cannot grow)
 * refuses nothing: the transaction is rolled back and its records are kept
 * in memory, in order, with everything queued behind them. The writer tries
 * again every PDK_STORE_FULL_RETRY_MS and logs once when the disk fills and
 * once when space returns; the kept records are then written in their
 * order, so the recording has no hole. Meanwhile flush returns after each
 * failed attempt (PDK_ERR_IO) instead of waiting for space, and a
 * pdk_store_mark_interrupted waiting is refused (PDK_ERR_DB naming the
 * disk; its marking is kept and done when space returns). Shutdown on a full disk
 * tries once more and then gives the kept and queued records up, counted in
 * pdk_store_stats.lost and logged with the sessions and ticks they held. */
#define PDK_STORE_FULL_RETRY_MS 1000u

/* What may be kept in memory while the disk is full: the texts, payloads
 * and blobs of the kept and queued records, in bytes. Past it the writer
 * gives up the newest inputs, state hashes and keyframes (never a
 * session's row, end or vehicles) and marks each session's lost ticks in
 * recording_gaps (migration 0004) once space returns, one row per run,
 * logged once per full disk. PDK_ERR_INVALID_ARGUMENT when store is NULL
 * or bytes is 0. */
#define PDK_STORE_DEFAULT_KEPT_BYTES (256u * 1024u * 1024u)
pdk_error pdk_store_set_kept_limit(pdk_store *store, uint64_t bytes);

/* 1 while the disk is full, with the reason (the database's path and
 * SQLite's message) copied to why (may be NULL); 0 otherwise, why empty. */
int pdk_store_disk_full(pdk_store *store, char *why, size_t why_len);

/* 1 when pdk_store_open found the disk full (the database, its WAL or the
 * WAL's index could not grow) and opened the store read-only instead of
 * failing: the read API, listing and export work on what was committed;
 * every record_* returns PDK_ERR_CLOSED, import, delete and retention
 * return PDK_ERR_IO, pdk_store_mark_interrupted marks nothing, and
 * pdk_store_disk_full stays 1 with the reason. Such an open is refused
 * instead (PDK_ERR_IO, err saying so) when the WAL holds commits not yet in
 * the database (only a writer can read them) or the database needs
 * migrations (they must write). */
int pdk_store_read_only(const pdk_store *store);

/* A consistent snapshot of the counters (all zero when store is NULL). */
void pdk_store_stats_get(pdk_store *store, pdk_store_stats *out);

/* At start-up, before any session runs: every session whose end was never
 * recorded and that is not marked yet (paddockd was killed or crashed while
 * it ran) is marked interrupted, with its last committed state hash's tick
 * and hash as its final tick and hash (0 and 0 without any hash); its
 * closed_unix_ms stays unset. Calling it again marks nothing more. *n_marked
 * (may be NULL) gets how many were marked now. Synchronous: it is queued
 * behind every record queued before it, runs on the writer's connection (so
 * it never races the writer) and waits for it like pdk_store_flush. Errors:
 * PDK_ERR_INVALID_ARGUMENT (store NULL), PDK_ERR_CLOSED (after shutdown),
 * PDK_ERR_DB (SQLite refused it; err says why). */
pdk_error pdk_store_mark_interrupted(pdk_store *store, uint64_t *n_marked, char *err,
                                     size_t err_len);

/* ---- Reading (synchronous, on the store's own read-only connection) ----
 *
 * For tests, replay and tooling; never on the loop thread of a live server.
 * A read sees everything committed when it starts (pdk_store_flush first to
 * see your own records). The read calls are serialized by a mutex, so they
 * may come from any thread, but a callback must not call back into this
 * store. Views handed to a callback are valid only during that call. A
 * callback returns PDK_OK to go on; any other value stops the read, which
 * returns that value. Errors: PDK_ERR_INVALID_ARGUMENT (NULL store, out or
 * fn), PDK_ERR_NOT_FOUND (no such session), PDK_ERR_DB (SQLite failed, or a
 * stored value is out of range for its C type, e.g. a seq above UINT32_MAX
 * in an imported file). err (may be NULL) gets a message naming what was
 * wrong, empty on success. */

/* Number of sessions recorded in the file. */
pdk_error pdk_store_session_count(pdk_store *store, uint64_t *out, char *err, size_t err_len);

/* A session as recorded. The strings in session belong to the info and live
 * until pdk_store_session_info_free. ended is 1 once a session end was
 * recorded; final_tick, final_hash and closed_unix_ms are 0 before. An
 * interrupted session has ended 0, interrupted 1, closed_unix_ms 0, and the
 * final_tick and final_hash pdk_store_mark_interrupted gave it. */
typedef struct pdk_store_session_info {
    pdk_store_session session;
    int ended;
    int interrupted;    /* marked by pdk_store_mark_interrupted */
    uint64_t last_tick; /* the tick of its last recorded state hash (0: none) */
    /* Runs of ticks lost while the disk was full (recording_gaps): how
     * many, and the first one's ticks (0, 0: none). */
    uint64_t gaps;
    uint64_t gap_first_tick;
    uint64_t gap_last_tick;
    uint64_t final_tick;
    uint64_t final_hash;
    int64_t closed_unix_ms;
    char *strings_; /* private: the one allocation holding the strings */
} pdk_store_session_info;

/* Fills *out (zeroed first) for session_id. On success free it with
 * pdk_store_session_info_free; on error there is nothing to free. */
pdk_error pdk_store_read_session(pdk_store *store, uint64_t session_id, pdk_store_session_info *out,
                                 char *err, size_t err_len);
/* Frees the strings of an info filled by pdk_store_read_session and zeroes
 * it. Accepts NULL and a zeroed info. */
void pdk_store_session_info_free(pdk_store_session_info *info);

/* Every recorded owner with its session's name, then every join token,
 * each through its callback (strings valid during the call only). For the
 * server's start, before it serves anyone. A token row whose digest is not
 * 32 bytes or whose role is not 1..5 is PDK_ERR_DB naming it. Errors as the
 * other reads; a callback's own error stops the read and is returned. */
typedef pdk_error (*pdk_store_owner_fn)(void *ctx, uint64_t session_id, const char *owner,
                                        const char *session_name);
typedef pdk_error (*pdk_store_join_token_fn)(void *ctx, uint64_t session_id,
                                             const uint8_t token_sha256[32], int role);
pdk_error pdk_store_read_access(pdk_store *store, pdk_store_owner_fn owner_fn,
                                pdk_store_join_token_fn token_fn, void *ctx, char *err,
                                size_t err_len);

/* One vehicle row; removed is 1 once a removal was recorded. */
typedef struct pdk_store_vehicle_row {
    uint32_t vehicle_id;
    uint64_t spawn_tick;
    int removed;
    uint64_t removed_tick;
    const char *preset;
    const char *overrides;
    const char *params_json;
} pdk_store_vehicle_row;

typedef pdk_error (*pdk_store_vehicle_fn)(void *ctx, const pdk_store_vehicle_row *row);
typedef pdk_error (*pdk_store_input_fn)(void *ctx, uint64_t tick, uint32_t seq, int kind,
                                        const void *payload, size_t payload_len);
typedef pdk_error (*pdk_store_hash_fn)(void *ctx, uint64_t tick, uint64_t hash);

/* The session's vehicles in (spawn_tick, vehicle_id) order. */
pdk_error pdk_store_read_vehicles(pdk_store *store, uint64_t session_id, pdk_store_vehicle_fn fn,
                                  void *ctx, char *err, size_t err_len);
/* The session's inputs in (tick, seq) order, the order a replay applies them.
 * payload is NULL when payload_len is 0. */
pdk_error pdk_store_read_inputs(pdk_store *store, uint64_t session_id, pdk_store_input_fn fn,
                                void *ctx, char *err, size_t err_len);
/* Those of ticks first_tick to last_tick (both included; ticks from 2^63
 * on, which no session reaches, are never read). The store has
 * PDK_STORE_READERS read connections, so as many threads read at once: a
 * recording's load reads two halves side by side. */
pdk_error pdk_store_read_inputs_between(pdk_store *store, uint64_t session_id, uint64_t first_tick,
                                        uint64_t last_tick, pdk_store_input_fn fn, void *ctx,
                                        char *err, size_t err_len);
/* The session's state hashes in tick order. */
pdk_error pdk_store_read_hashes(pdk_store *store, uint64_t session_id, pdk_store_hash_fn fn,
                                void *ctx, char *err, size_t err_len);

/* The session's keyframes' ticks, hashes and layouts in tick order (no blobs). */
typedef pdk_error (*pdk_store_keyframe_fn)(void *ctx, uint64_t tick, uint64_t hash, uint64_t layout,
                                           size_t blob_len);
pdk_error pdk_store_read_keyframes(pdk_store *store, uint64_t session_id, pdk_store_keyframe_fn fn,
                                   void *ctx, char *err, size_t err_len);

/* The keyframe at exactly tick: *blob (malloc'd, the caller frees) and
 * *blob_len. PDK_ERR_NOT_FOUND when there is none. */
pdk_error pdk_store_read_snapshot(pdk_store *store, uint64_t session_id, uint64_t tick, void **blob,
                                  size_t *blob_len, char *err, size_t err_len);

/* ---- Standalone session files ----------------------------------------------
 *
 * A session exported is an SQLite file of its own: the same tables holding
 * that one session (its rows, vehicles, inputs, hashes, keyframes), its own
 * schema_migrations, and an export table (format 1, the original session id,
 * the exporting build, the time). Both calls open connections of their own
 * and may run on any thread but the loop's; they wait for the writer's
 * queue to drain first (pdk_store_flush). */

/* Writes session_id to a new file at path (refused with PDK_ERR_ALREADY_EXISTS
 * when path exists), its schema made by migrations_dir's migrations, which
 * must give the store's own schema version (else PDK_ERR_DB naming both). The
 * file is written beside path as path.tmp-XXXXXX, without a journal or a
 * sync until it is whole, then synced and only then linked to path, so a
 * crash never leaves a partial file there. An interrupted or
 * still running session is exported as far as it is committed. Errors:
 * PDK_ERR_INVALID_ARGUMENT, PDK_ERR_NOT_FOUND, PDK_ERR_IO (the folder, the
 * migrations folder), PDK_ERR_PARSE (a misnamed migration), PDK_ERR_DB; on
 * error no file is left at path. */
pdk_error pdk_store_export_session(pdk_store *store, uint64_t session_id, const char *path,
                                   const char *migrations_dir, char *err, size_t err_len);
/* pdk_store_export_session that stops when *cancel becomes true (set from
 * any thread): the copy of the rows looks every thousand of SQLite's
 * steps, and the call then returns PDK_ERR_CLOSED, err naming the session,
 * with no file left at path or beside it. cancel may be NULL. */
pdk_error pdk_store_export_session_cancellable(pdk_store *store, uint64_t session_id,
                                               const char *path, const char *migrations_dir,
                                               const atomic_bool *cancel, char *err,
                                               size_t err_len);

/* Imports the one session in the standalone file at path as a new session
 * (its id from pdk_store_next_session_id, in *new_id; the original id in
 * *original_id, may be NULL), all in one transaction on a connection of its
 * own (it waits up to the busy timeout for the writer's write lock). Its
 * parent_session_id is kept as it was. The file is a stranger's: it is
 * checked whole first (pdk_import_check, import_check.h: hardened and
 * read-only, its schema exactly what the store's migrations make, no
 * trigger or view, quick_check) and only then copied, on a hardened
 * connection, never through its indexes. Errors: PDK_ERR_INVALID_ARGUMENT,
 * PDK_ERR_IO (unreadable), PDK_ERR_PARSE (not an SQLite file, a damaged
 * one, or not exactly a Paddock export: err says what differs),
 * PDK_ERR_DB_TOO_NEW (its schema version or export format is newer than
 * this server's), PDK_ERR_DB; on error nothing is added and *new_id is 0. */
pdk_error pdk_store_import_session(pdk_store *store, const char *path, uint64_t *new_id,
                                   uint64_t *original_id, char *err, size_t err_len);

/* ---- The catalogue of recordings (store_catalog.c) ------------------------
 *
 * Listing, deleting and retention. Each call opens a connection of its own
 * and may run on any thread but the loop's; delete and retention wait for
 * the writer's queue to drain first (pdk_store_flush). Errors name what was
 * wrong without the database's path, since they go to clients. */

/* Which recordings a listing returns; every member left NULL, "" or 0
 * matches all. Times are the sessions' created_unix_ms. */
typedef struct pdk_store_list_filter {
    const char *name_contains;      /* a substring of the name, case-sensitive */
    const char *world_preset;       /* the world preset, exactly */
    const char *vehicle_preset;     /* at least one vehicle of this preset */
    int64_t started_after_unix_ms;  /* created at or after */
    int64_t started_before_unix_ms; /* created before */
    int interrupted_only;           /* only those marked interrupted */
    /* NULL: every recording. Else only those it returns true for, counted
     * and paged as the other filters are; called on the listing's thread
     * with the recording's id and name, so ctx must be the call's alone. */
    bool (*visible)(void *ctx, uint64_t session_id, const char *name);
    void *visible_ctx;
} pdk_store_list_filter;

typedef struct pdk_store_recorded_vehicle {
    uint32_t vehicle_id;
    char preset[64];
} pdk_store_recorded_vehicle;

/* One recording as listed; its strings and vehicles are valid during the
 * callback only. last_tick is the final tick of an ended or interrupted
 * session, else (one still being recorded) its last committed state hash's
 * tick, or start_tick before any. size_bytes is what its rows hold: input
 * payloads, keyframe blobs, vehicle and world parameters and 8 bytes per
 * state hash (SQLite's pages and indexes around them are not counted). */
typedef struct pdk_store_recording {
    uint64_t session_id;
    const char *name;
    const char *world_preset;
    const char *build_id;
    const char *timing;
    int64_t created_unix_ms;
    uint64_t start_tick;
    uint64_t last_tick;
    double dt_s;
    int ended;       /* its end was recorded */
    int interrupted; /* marked by pdk_store_mark_interrupted */
    uint64_t size_bytes;
    pdk_store_recorded_vehicle *vehicles; /* in (spawn_tick, vehicle_id) order */
    size_t n_vehicles;
} pdk_store_recording;

typedef pdk_error (*pdk_store_recording_fn)(void *ctx, const pdk_store_recording *rec);

/* The recordings matching filter in session id order, skipping offset of
 * them and handing at most limit (0: no limit) to fn; *total (may be NULL)
 * gets how many match in all. The count and the rows are one read of the
 * file. A callback's error stops the listing and is returned. Errors:
 * PDK_ERR_INVALID_ARGUMENT (store, filter or fn NULL), PDK_ERR_NO_MEMORY,
 * PDK_ERR_DB. */
pdk_error pdk_store_list_recordings(pdk_store *store, const pdk_store_list_filter *filter,
                                    uint64_t offset, uint64_t limit, uint64_t *total,
                                    pdk_store_recording_fn fn, void *ctx, char *err,
                                    size_t err_len);

/* Deletes a finished (ended or interrupted) recording: its keyframes, state
 * hashes, inputs, vehicles and session row, in one transaction. The freed
 * pages join SQLite's free list for later recordings (or go back to the
 * file system in a database made with auto_vacuum=INCREMENTAL). Errors:
 * PDK_ERR_INVALID_ARGUMENT (store NULL), PDK_ERR_NOT_FOUND (no such
 * recording), PDK_ERR_BUSY (its session is still being recorded: no end
 * and not interrupted), PDK_ERR_DB. */
pdk_error pdk_store_delete_recording(pdk_store *store, uint64_t session_id, char *err,
                                     size_t err_len);

/* The retention rule: keep the finished recordings within max_bytes in all
 * (0: no limit) and younger than max_age_ms at now_unix_ms (0: no limit).
 * keep lists n_keep session ids never to delete (sessions live, or replayed,
 * now); a recording still being recorded is never deleted either. */
typedef struct pdk_store_retention {
    uint64_t max_bytes;
    int64_t max_age_ms;
    int64_t now_unix_ms;
    const uint64_t *keep;
    size_t n_keep;
} pdk_store_retention;

/* Told of each recording retention deleted: its id, its size_bytes and why
 * (a sentence). */
typedef void (*pdk_store_retired_fn)(void *ctx, uint64_t session_id, uint64_t size_bytes,
                                     const char *why);

/* Applies rule: oldest first (by start time, then id), deletes each
 * finished recording older than the age limit, and then each while the
 * recordings take more than max_bytes (sizes as pdk_store_recording's),
 * calling on_deleted (may be NULL) after each. Recordings it may not
 * delete are skipped, so the total can stay above max_bytes. Errors:
 * PDK_ERR_INVALID_ARGUMENT (store or rule NULL), PDK_ERR_NO_MEMORY,
 * PDK_ERR_DB (what was deleted before it stays deleted). */
pdk_error pdk_store_retain(pdk_store *store, const pdk_store_retention *rule,
                           pdk_store_retired_fn on_deleted, void *ctx, char *err, size_t err_len);

#endif
