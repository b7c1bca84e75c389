/* The SQLite store: one database file in WAL mode, numbered migrations
 * applied at open, and a writer thread that owns the write connection. The
 * loop thread only enqueues records (pdk_store_record_*); it never waits on
 * SQLite. Records are never dropped: the queue grows, and its depth is
 * reported so the caller can slow a session down that outruns the writer. */
#ifndef PDK_STORE_H
#define PDK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define PDK_STORE_ERR_LEN 512

typedef struct pdk_store pdk_store;

/* Opens (creating if needed, with its parent folder) the database at path,
 * sets WAL, applies every migrations_dir/NNNN_name.sql newer than the
 * database's version in order, each inside one transaction and recorded in
 * schema_migrations, and starts the writer thread. Errors: PDK_ERR_DB (SQLite
 * failed; err has SQLite's message and the file), PDK_ERR_DB_TOO_NEW (the
 * database has a migration this binary does not know), PDK_ERR_IO (missing
 * migrations folder), PDK_ERR_PARSE (a migration file misnamed). */
pdk_error pdk_store_open(const char *path, const char *migrations_dir, pdk_store **out, char *err,
                         size_t err_len);

/* Drains the queue, stops the writer and closes. Accepts NULL. */
void pdk_store_close(pdk_store *store);

/* Schema version (highest migration number applied). */
int pdk_store_schema_version(const pdk_store *store);

/* Session ids are handed out here, above every id already in the file, so
 * the loop thread knows the id at once. */
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
} pdk_store_session;

/* Each record_* copies what it is given and returns at once. They return
 * PDK_ERR_NO_MEMORY when a copy cannot be made (nothing is queued then) and
 * PDK_ERR_CLOSED after close began. */
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

/* Blocks until every record queued before the call is committed. For tests,
 * shutdown and offline runs; never on the loop thread of a live server. */
pdk_error pdk_store_flush(pdk_store *store);

typedef struct pdk_store_stats {
    uint64_t queued;        /* records waiting for the writer now */
    uint64_t written;       /* records committed */
    uint64_t failed;        /* records SQLite refused (each logged once to stderr) */
    uint64_t transactions;  /* commits */
} pdk_store_stats;

void pdk_store_stats_get(pdk_store *store, pdk_store_stats *out);

#endif
