/* net: the TCP transport on libuv. Accepts connections, splits the byte
 * stream into varint length-delimited Frames, decodes them (through wire) and
 * hands each to the app; sends replies and latest-wins state frames with
 * bounded buffers. A peer can never crash the server or disturb another: an
 * oversized or malformed frame gets an Error frame, then the connection is
 * closed after the flush; a reader too slow for its state stream loses old
 * state frames, then the connection (Redis' output-buffer limits). */
#ifndef PDK_NET_H
#define PDK_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sim/error.h"
#include "wire.h"

typedef struct pdk_net pdk_net;
typedef struct pdk_conn pdk_conn;

typedef struct pdk_net_limits {
    size_t max_frame_bytes;    /* inbound and outbound; default 1 MiB */
    size_t out_soft_bytes;     /* queued bytes above which state frames are dropped; 256 KiB */
    double out_soft_seconds;   /* over soft this long: close; 10 s */
    size_t out_hard_bytes;     /* queued bytes above which the conn closes at once; 8 MiB */
    int max_connections;       /* refused beyond this (Error BUSY, then close); 1024 */
    double close_linger_seconds; /* a closing conn's flush + wait for the peer's EOF; 2 s */
} pdk_net_limits;

pdk_net_limits pdk_net_limits_default(void);

typedef struct pdk_net_callbacks {
    /* A connection was accepted. */
    void (*on_open)(pdk_conn *conn, void *ud);
    /* One decoded frame; it is freed when the callback returns. */
    void (*on_frame)(pdk_conn *conn, const Paddock__V1__Frame *frame, void *ud);
    /* The connection is gone; conn is invalid after this returns. */
    void (*on_close)(pdk_conn *conn, void *ud);
    /* The peer closed its sending side after whole frames (a half-close).
     * Return true to keep the connection open for replies still to come;
     * the app then calls pdk_conn_close once they are sent. NULL, or false:
     * the connection closes once its queued frames are flushed. */
    bool (*on_eof)(pdk_conn *conn, void *ud);
} pdk_net_callbacks;

/* Listens on host_port ("127.0.0.1:7420", "[::1]:0"; port 0 picks a free
 * one). Errors: PDK_ERR_INVALID_ARGUMENT (unparsable address, limits out of
 * range; err says which), PDK_ERR_NET (bind/listen failed; err has libuv's
 * message). limits NULL means the defaults. Hosts are numeric (or
 * "localhost"): no DNS on the loop. Sets SIGPIPE to ignored unless the
 * process installed a handler. After a failure the loop must still run once
 * for libuv to release the half-made listener. */
pdk_error pdk_net_listen(uv_loop_t *loop, const char *host_port, const pdk_net_limits *limits,
                         const pdk_net_callbacks *cb, void *ud, pdk_net **out, char *err,
                         size_t err_len);

/* The bound port (useful after port 0). */
int pdk_net_port(const pdk_net *net);

/* Stops listening and closes every connection at once, dropping unsent
 * frames (send pdk_conn_fail first for a goodbye). on_close runs for each
 * from the loop's close callbacks, after this returns, so keep ud valid until
 * the loop has run; the pdk_net is freed once libuv has closed every handle.
 * Safe from inside any callback. Accepts NULL. */
void pdk_net_close(pdk_net *net);

/* Queues a complete delimited frame (as pdk_wire_frame_append builds it).
 * The bytes are copied. PDK_ERR_CLOSED when the connection is closing, or
 * when this send would pass out_hard_bytes (the connection is then closed);
 * PDK_ERR_FRAME_TOO_LARGE over max_frame_bytes; PDK_ERR_INVALID_ARGUMENT when
 * bytes are not exactly one delimited frame with a body. */
pdk_error pdk_conn_send(pdk_conn *conn, const uint8_t *bytes, size_t len);

/* Queues a state frame under key (one per subscription): if a frame under
 * the same key is still waiting to be written it is replaced (latest wins);
 * above out_soft_bytes it is dropped and counted. Both return PDK_OK. Errors
 * as pdk_conn_send. */
pdk_error pdk_conn_send_state(pdk_conn *conn, uint32_t key, const uint8_t *bytes, size_t len);

/* Sends an Error frame for request_id, then closes once it is flushed (input
 * is read and discarded meanwhile; no more frames are delivered). Does
 * nothing on a connection already closing. */
void pdk_conn_fail(pdk_conn *conn, uint64_t request_id, pdk_error code, const char *message);

/* Closes after pending frames are flushed (bounded by close_linger_seconds).
 * No frame is delivered after this, even from the same read. */
void pdk_conn_close(pdk_conn *conn);

void pdk_conn_set_data(pdk_conn *conn, void *data);
void *pdk_conn_data(const pdk_conn *conn);
uint64_t pdk_conn_id(const pdk_conn *conn);   /* unique per process, from 1 */
const char *pdk_conn_peer(const pdk_conn *conn); /* "127.0.0.1:53422" */

typedef struct pdk_conn_stats {
    uint64_t frames_in;
    uint64_t frames_out;
    uint64_t state_dropped;   /* state frames replaced or dropped */
    size_t queued_bytes;
} pdk_conn_stats;
void pdk_conn_stats_get(const pdk_conn *conn, pdk_conn_stats *out);

#endif
