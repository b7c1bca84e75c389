/* What the store's files share and nothing outside server/store sees: the
 * pdk_store struct, the migration runner's interface and small helpers. */
#ifndef PDK_STORE_INTERNAL_H
#define PDK_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "store.h"

/* How long a connection waits for a lock another connection holds before
 * SQLite reports SQLITE_BUSY. Only another process writing the same file can
 * hold it that long; the writer then keeps retrying (see store.c). */
#define PDK_STORE_BUSY_TIMEOUT_MS 5000

typedef struct pdk_store_record pdk_store_record;

/* ---- a queued record (store.c queues them, its writer writes them) ---- */

typedef enum rec_kind {
    REC_SESSION,
    REC_SESSION_END,
    REC_VEHICLE,
    REC_VEHICLE_REMOVED,
    REC_INPUT,
    REC_HASH,
    /* number consecutive ticks' hashes from value, then tick's inputs packed
     * (pdk_store_record_tick), in blob */
    REC_TICK,
    REC_SNAPSHOT,
    REC_MARK_INTERRUPTED,
    /* ticks tick..value of a session lost (aux records), recording_gaps */
    REC_GAP,
    REC_OWNER,      /* the owner's name in text[0] */
    REC_JOIN_TOKEN, /* the token's SHA-256 in blob, its role in number */
} rec_kind;

typedef enum rec_state {
    REC_PENDING,
    REC_WRITTEN, /* its statement(s) succeeded inside the open transaction */
    REC_FAILED,  /* SQLite refused it; counted and logged */
} rec_state;

/* What pdk_store_mark_interrupted waits for: the writer fills it before it
 * frees the record, and the caller reads it once flush returned. */
typedef struct mark_reply {
    uint64_t n_marked;
    int refused;
    char why[PDK_STORE_ERR_LEN];
} mark_reply;

/* One queued record: a single allocation holding the fields and a copy of
 * every text and payload (data[] at the end). */
struct pdk_store_record {
    pdk_store_record *next;
    rec_kind kind;
    rec_state state;
    uint64_t session_id;
    uint64_t tick;   /* input, hash, snapshot, spawn, removal, final or start tick */
    uint64_t value;  /* state hash, final hash or parent session id */
    uint64_t aux;    /* snapshot layout or parent tick */
    int64_t unix_ms; /* created or closed */
    double dt_s;
    int32_t number;    /* input kind or substeps */
    uint32_t id;       /* input seq, vehicle id or keyframe interval */
    mark_reply *reply; /* REC_MARK_INTERRUPTED only */
    const char *text[5];
    size_t text_len[5];
    const unsigned char *blob;
    size_t blob_len;
    /* A keyframe handed over rather than copied (blob points into it),
     * owned_cap bytes: freed with the record, or kept as a spare. */
    unsigned char *owned;
    size_t owned_cap;
    unsigned char data[];
};

/* Frees r and a block it was handed (pdk_store_record_snapshot_take). */
void pdk_store_record_free_(pdk_store_record *r);

/* A record's rows go in statements of up to 2^(PDK_STORE_ROW_GROUPS - 1)
 * rows (store.c row_group). */
#define PDK_STORE_ROW_GROUPS 5

/* The schema version from which a database holds session_owners and
 * join_tokens (migration 0005). A store opened with an older migrations
 * folder (tests, tools) records and deletes no owners. */
#define PDK_STORE_OWNERS_VERSION 5

/* The schema version from which snapshots.encoding says how a keyframe is
 * stored (migration 0006): the store then writes keyframes as zstd frames
 * when that is smaller, and reads either. */
#define PDK_STORE_KEYFRAME_ENCODING_VERSION 6
/* snapshots.encoding */
#define PDK_STORE_KEYFRAME_RAW 0
#define PDK_STORE_KEYFRAME_ZSTD 1
/* The largest keyframe a zstd frame may unpack to: a world of 65,535 cars
 * is about 140 MB. A frame that says more is refused, not unpacked. */
#define PDK_STORE_KEYFRAME_MAX_BYTES ((size_t)512 << 20)

/* Read-only connections (pdk_store.rdb). */
#define PDK_STORE_READERS 2

/* Prepared once at open on the write connection, reused for every record. */
typedef struct pdk_store_stmts {
    sqlite3_stmt *begin;
    sqlite3_stmt *commit;
    sqlite3_stmt *rollback;
    sqlite3_stmt *insert_build;
    sqlite3_stmt *insert_session;
    sqlite3_stmt *end_session;
    sqlite3_stmt *insert_vehicle;
    sqlite3_stmt *remove_vehicle;
    /* [g] inserts 2^g rows in one statement (store.c row_group). */
    sqlite3_stmt *insert_inputs[PDK_STORE_ROW_GROUPS];
    sqlite3_stmt *insert_hashes[PDK_STORE_ROW_GROUPS];
    sqlite3_stmt *insert_snapshot;
    sqlite3_stmt *mark_interrupted;
    sqlite3_stmt *insert_gap;
    sqlite3_stmt *insert_owner;
    sqlite3_stmt *insert_join_token;
} pdk_store_stmts;

struct pdk_import_schema;

/* A written keyframe's block kept for the next keyframe's encode
 * (pdk_store_spare_take): its size, how much of it is mapped (its first
 * warm bytes), and the session it was last the keyframe of or was made
 * for (0: none). */
typedef struct pdk_store_spare {
    unsigned char *block;
    size_t cap, warm;
    uint64_t session;
} pdk_store_spare;

struct pdk_store {
    char *path;
    int schema_version;
    /* What an imported file must look like (import_check.h), made from the
     * same migrations at open. */
    struct pdk_import_schema *import_schema;
    _Atomic uint64_t last_session_id;

    /* The write connection: used by the opening thread until the writer
     * starts, then only by the writer thread, then by close after the join. */
    sqlite3 *wdb;
    pdk_store_stmts st;
    /* The writer's zstd context and the buffer it packs keyframes into. */
    struct ZSTD_CCtx_s *zctx;
    unsigned char *zbuf;
    size_t zbuf_cap;

    /* The read-only connections of the read API, each serialized by its
     * mutex: PDK_STORE_READERS of them, so that as many reads run at once
     * (a recording's load reads its inputs in two halves, app/replay.c). */
    sqlite3 *rdb[PDK_STORE_READERS];
    pthread_mutex_t read_mu[PDK_STORE_READERS];

    /* The connection that deletes recordings (store_catalog.c: a delete
     * and retention's runs), opened at the first and kept, foreign keys
     * on: a new connection reads the whole schema before its first
     * statement, which cost a retention run more than its deletions.
     * Used under delete_mu only. */
    sqlite3 *ddb;
    pthread_mutex_t delete_mu;

    /* Everything below is guarded by mu. */
    pthread_mutex_t mu;
    pthread_cond_t work_cv;    /* the writer waits here for records or close */
    pthread_cond_t flushed_cv; /* flush waits here for flushed_seq */
    pdk_store_record *head;
    pdk_store_record *tail;
    pdk_store_spare spares[PDK_STORE_SPARES];
    int n_spares;
    pdk_store_spare wants[PDK_STORE_SPARES]; /* asked for (pdk_store_spare_want): session, warm */
    int n_wants;
    uint64_t queue_len;
    uint64_t in_flight;    /* records the writer took and has not finished */
    uint64_t enqueued_seq; /* sequence number of the last record queued */
    uint64_t flushed_seq;  /* every record with seq <= this is finished */
    uint64_t written;
    uint64_t failed;
    uint64_t transactions;
    uint64_t commit_buckets[PDK_STORE_COMMIT_BOUNDS + 1]; /* pdk_store_stats' */
    uint64_t commit_ns;
    int closing;
    /* Gathering (writer_main): the writer sleeps without a timeout only
     * after the queue stayed empty for PDK_STORE_IDLE_NS (writer_idle);
     * otherwise it wakes every PDK_STORE_GATHER_NS on its own, so a record
     * queued by a ticking session costs no wake-up call. */
    int writer_idle;
    int flush_waiting; /* flush (and mark_interrupted) calls waiting now */
    uint64_t head_ns;  /* CLOCK_MONOTONIC when the oldest queued record came */
    /* The disk is full (store.c no_space): the writer keeps the records it
     * could not write and tries again every PDK_STORE_FULL_RETRY_MS;
     * full_attempts counts its failed tries, so a flush knows one ended. */
    int disk_full;
    char disk_reason[PDK_STORE_ERR_LEN];
    uint64_t full_attempts;
    uint64_t lost; /* records given up at close on a full disk */
    /* Opened read-only because the disk was full at start (store.c
     * open_read_only): no writer, every connection immutable, disk_full
     * set for good. */
    int read_only;
    uint64_t kept_limit; /* pdk_store_set_kept_limit */
    uint64_t gave_up;    /* records given up past it during this full disk */

    pthread_t writer;
    int writer_started;
    int writer_joined;
};

/* One migration file found in the migrations folder. */
typedef struct pdk_migration {
    int version;
    char *name; /* "initial" for 0001_initial.sql */
    char *file; /* full path */
} pdk_migration;

typedef struct pdk_migration_list {
    pdk_migration *items; /* sorted by version, 1..count without gaps */
    size_t count;
} pdk_migration_list;

/* Reads dir and validates the file names (see pdk_store_open in store.h).
 * Errors: PDK_ERR_IO, PDK_ERR_PARSE, PDK_ERR_NO_MEMORY. */
pdk_error pdk_migrations_scan(const char *dir, pdk_migration_list *out, char *err, size_t err_len);
void pdk_migrations_free(pdk_migration_list *list);

/* Creates schema_migrations if needed, refuses a database newer than list,
 * applies each pending migration in its own transaction and sets *version.
 * db_path is only used in messages. Errors: PDK_ERR_DB, PDK_ERR_DB_TOO_NEW,
 * PDK_ERR_IO (a migration file unreadable), PDK_ERR_NO_MEMORY. */
pdk_error pdk_migrations_apply(sqlite3 *db, const char *db_path, const pdk_migration_list *list,
                               int *version, char *err, size_t err_len);

/* Makes the reference schema of import_check.h from a scanned list. */
pdk_error pdk_import_schema_build(const pdk_migration_list *migrations,
                                  struct pdk_import_schema **out, char *err, size_t err_len);

/* A connection that reads a file from elsewhere (import_check.c): defensive
 * mode, no trusted schema, no extension loading, cell size checks, no
 * memory-mapped I/O, at most attached other databases; with tight_limits
 * also security.html's lowered limits and no triggers or views. Returns an
 * SQLite code. */
int pdk_store_harden(sqlite3 *db, int attached, int tight_limits);

/* "file:" URI for path with every byte outside [A-Za-z0-9/._~-] percent-
 * encoded, so a '?', '#' or '%' in a path cannot be read as URI syntax; an
 * absolute path gets an empty authority ("file:///..."). query may be NULL.
 * Caller frees; NULL when out of memory. */
char *pdk_store_file_uri(const char *path, const char *query);

/* The one table an export file has beside a server's (store_export.c), and
 * the format its row names. */
#define PDK_EXPORT_TABLE_SQL                                                                       \
    "CREATE TABLE paddock_export ("                                                                \
    " format INTEGER NOT NULL,"                                                                    \
    " original_session_id INTEGER NOT NULL,"                                                       \
    " exported_by_build TEXT NOT NULL,"                                                            \
    " exported_unix_ms INTEGER NOT NULL)"
#define PDK_EXPORT_FORMAT 1

/* What import, delete and retention say on a store opened read-only. */
#define PDK_STORE_READ_ONLY_MSG                                                                    \
    "the recordings database is read-only: the disk was full when paddockd started (free "         \
    "space and restart it)"

/* snprintf into err when err is not NULL and err_len > 0. */
void pdk_store_errf(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Wall clock in Unix milliseconds (only for timestamps in the file). */
int64_t pdk_store_now_unix_ms(void);

/* uint64 <-> the int64 with the same bits, without implementation-defined
 * conversions. */
static inline int64_t pdk_store_u64_to_i64(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(UINT64_MAX - v) - 1;
}

static inline uint64_t pdk_store_i64_to_u64(int64_t v)
{
    return (uint64_t)v;
}

/* ---- store_keyframe.c: how a keyframe is stored ---- */

/* A keyframe's blob packed as a zstd frame in s->zbuf, on the writer
 * thread: its length, or 0 when it is to be kept as it is. */
size_t pdk_store_keyframe_pack(pdk_store *s, const unsigned char *blob, size_t len);
/* Frees what pdk_store_keyframe_pack kept in s (its context and buffer). */
void pdk_store_keyframe_free(pdk_store *s);
/* A keyframe's stored bytes (encoding, p, len) as the WorldSnapshot bytes
 * in *out (malloc'd) and *out_len; PDK_ERR_DB naming the keyframe when
 * they do not unpack. */
pdk_error pdk_store_keyframe_unpack(const pdk_store *store, uint64_t session_id, uint64_t tick,
                                    int encoding, const void *p, size_t len, void **out,
                                    size_t *out_len, char *err, size_t err_len);

/* The monotonic clock in ns. */
static inline uint64_t pdk_store_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A record's payload bytes: its blob and texts. */
static inline size_t pdk_store_record_bytes(const pdk_store_record *r)
{
    size_t n = r->blob_len;
    for (size_t t = 0; t < sizeof r->text_len / sizeof r->text_len[0]; t++) {
        n += r->text_len[t];
    }
    return n;
}

/* ---- store_full.c: the writer while the disk is full (under mu) ---- */

/* A pdk_store_mark_interrupted waiting in list is refused with why. */
void pdk_store_answer_marks_(pdk_store_record *list, const char *why);
/* Trims the kept records past kept_limit into gaps; returns how many were
 * given up (*taken: the kept list, updated). */
uint64_t pdk_store_trim_kept_(pdk_store *s, pdk_store_record **taken);
/* Closing on a full disk: list and the queue given up, counted and said. */
void pdk_store_give_up_(pdk_store *s, pdk_store_record *list);
/* Waits PDK_STORE_FULL_RETRY_MS, or less when the store closes. */
void pdk_store_wait_for_space_(pdk_store *s);

#endif
