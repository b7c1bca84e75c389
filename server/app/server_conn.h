/* paddockd's connections as the requests see them (server_conn.c): a
 * connection's state, and sending it a frame, an Ok or an error through
 * the server's encoding buffer. */
#ifndef PDK_SERVER_CONN_H
#define PDK_SERVER_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "net.h"
#include "session.h"
#include "wire.h"

#define PDK_SERVER_HOLDER_LEN 96       /* "connection 4 (wheel-rig)" */
#define PDK_SERVER_MAX_NAME_BYTES 64   /* session names, presets */
#define PDK_SERVER_MAX_TEXT_BYTES 4096 /* override strings */
#define PDK_SERVER_CONN_MAX_SUBS 32    /* state, DBW and stats subscriptions of one connection */
#define PDK_SERVER_CONN_MAX_GRANTS 16  /* sessions one connection joined by token */

/* A session this connection joined with a token, and the role it gave. */
typedef struct pdk_grant {
    uint64_t session_id;
    pdk_role role;
} pdk_grant;

/* An ImportChunk upload in progress on one connection. */
typedef struct pdk_upload {
    int fd; /* -1: none */
    char dir[256];
    char path[300];
    uint64_t offset; /* bytes received */
} pdk_upload;

/* A batch request (VehicleSpawnBatch, DbwCommandBatch) whose entries are
 * queued as inputs of their own and whose one reply waits for the last of
 * them (server_batch.c). */
typedef struct pdk_server_batch {
    uint64_t request_id;
    int kind;         /* PDK_INPUT_SPAWN or PDK_INPUT_DBW */
    uint32_t n, done; /* entries, and those whose result came */
    uint64_t tick;    /* the tick they applied at */
    uint32_t *ids;    /* a spawn batch's vehicles, by entry */
    uint32_t failed;  /* entries refused when they applied */
    uint32_t first_failed;
    int err; /* the first refused one's pdk_error and why */
    char why[192];
} pdk_server_batch;

typedef struct pdk_server_conn {
    uint64_t id;
    pdk_conn *conn;
    bool greeted;
    uint64_t opened_ms;      /* uv_now when it opened: its Hello is due hello_timeout_s later */
    bool hello_late;         /* told it missed its Hello deadline, and closing */
    bool viewer;             /* Hello.viewer: watches, never commands */
    const pdk_identity *who; /* from Hello's api_key ("local" without --auth) */
    pdk_grant grants[PDK_SERVER_CONN_MAX_GRANTS];
    int n_grants;
    char holder[PDK_SERVER_HOLDER_LEN]; /* "connection 4 (wheel-rig)": how messages name it */
    uint32_t last_sub_id;               /* subscription ids are unique per connection */
    int n_subs;
    int pending; /* queued inputs whose reply is still to come */
    bool eof;    /* the peer half-closed: close once pending is 0 */
    pdk_upload upload;
    uint32_t jobs; /* its recording jobs waiting or running (--max-queued-jobs bounds them) */
    /* Its costly requests handled in the tick numbered costly_tick (uv_hrtime
     * in 1/120 s); --max-spawns-per-tick of them hold its reading. */
    uint64_t costly_tick;
    uint32_t costly_in_tick;
    /* Its frames waiting for a session on a step thread (server_park.c),
     * and whether that wait holds its reading. */
    uint32_t n_parked;
    bool park_held;
    bool budget_held; /* held by a budget until the next tick (server.c) */
    /* Likewise its inputs, --max-inputs-per-tick of them. */
    uint64_t inputs_tick;
    uint32_t inputs_in_tick;
    /* The tick at which a budget's hold ends: a batch spends one unit per
     * entry, and what is over the budget carries into the next ticks. */
    uint64_t held_until_tick;
    pdk_server_batch *batches; /* its batch requests waiting for their entries */
    size_t n_batches, cap_batches;
} pdk_server_conn;

/* ---- server_conn.c: connections and sending ------------------------------ */

/* Encodes and queues a frame (an encoding failure closes the connection). */
void pdk_server_send_frame(pdk_buf *out, pdk_conn *conn, const Paddock__V1__Frame *frame);
void pdk_server_send_error(pdk_buf *out, pdk_conn *conn, uint64_t request_id, pdk_error code,
                           const char *message);
void pdk_server_send_ok(pdk_buf *out, pdk_conn *conn, uint64_t request_id, uint64_t tick);
/* Checks a request's text field: at most max bytes of UTF-8 without control
 * characters. On failure replies INVALID_ARGUMENT naming the field. */
bool pdk_server_text_ok(pdk_buf *out, pdk_conn *conn, uint64_t rid, const char *field,
                        const char *text, size_t max);
/* A client's name for messages other clients read (a Hello's client_name,
 * a proxy's label): printable ASCII, anything else as '?', at most
 * out_len - 1 bytes, into out. */
void pdk_server_printable(char *out, size_t out_len, const char *in);
/* Room for one more subscription on c (CAPACITY reply otherwise). */
bool pdk_server_sub_room(pdk_buf *out, pdk_server_conn *c, uint64_t request_id);
/* An error reply to c's request rid, its message printf-formatted. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void pdk_server_refuse(pdk_buf *out, pdk_server_conn *c, uint64_t rid, pdk_error code,
                       const char *fmt, ...);

/* ---- server_batch.c: batch requests' replies ----------------------------- */

/* Opens the batch of c's request rid: n entries of kind (PDK_INPUT_SPAWN or
 * PDK_INPUT_DBW), each queued with pdk_reply_to.batch 1 + its index.
 * PDK_ERR_NO_MEMORY when it cannot be kept. */
pdk_error pdk_server_batch_open(pdk_server_conn *c, uint64_t rid, int kind, uint32_t n);
/* One entry's result (to.batch names it); the batch's one reply (its
 * vehicles or Ok, or an Error naming the first entry refused) goes out
 * with the last. */
void pdk_server_batch_result(pdk_buf *out, pdk_server_conn *c, pdk_reply_to to,
                             const pdk_input_result *res);
/* Forgets c's batches (it closed). */
void pdk_server_batch_free_all(pdk_server_conn *c);

#endif
