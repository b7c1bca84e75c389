/* transport: the one interface every transport of net offers the app. A
 * transport carries whole Frames: the app hands it the encoded Frame bytes
 * (pdk_wire_frame_append, no length prefix) and gets decoded Frames back.
 * How frames are delimited on the wire is the transport's business (TCP
 * writes a varint length prefix, a WebSocket sends one binary message per
 * frame), so nothing above net changes with the transport. Every transport
 * keeps the same bounded buffers: a maximum frame size, an outbound cap with
 * a soft limit plus grace and a hard limit, and latest-wins state frames. */
#ifndef PDK_TRANSPORT_H
#define PDK_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "wire.h"

/* A listening endpoint of one transport (tcp.h makes one). */
typedef struct pdk_listener pdk_listener;
/* One peer's connection, whatever carries it. */
typedef struct pdk_conn pdk_conn;

/* Bytes of buffer held for partial inbound frames, counted across every
 * listener given the same budget (the app gives its TCP and HTTP listeners
 * one, so that max_partial_bytes bounds them together). Loop thread only. */
typedef struct pdk_net_budget {
    size_t held_bytes;
} pdk_net_budget;

/* Limits for every connection of a listener, counted in whole frames and in
 * the bytes the transport queues (its framing included). */
typedef struct pdk_net_limits {
    size_t max_frame_bytes;      /* one Frame, inbound and outbound; default 1 MiB */
    size_t out_soft_bytes;       /* queued bytes above which state frames are dropped; 256 KiB */
    double out_soft_seconds;     /* over soft this long: close; 10 s */
    size_t out_hard_bytes;       /* queued bytes above which the conn closes at once; 8 MiB */
    int max_connections;         /* refused beyond this (Error BUSY, then close); 1024 */
    /* Of them, from one peer address: refused beyond this the same way. A
     * loopback peer (127.0.0.0/8, ::1) is this machine, or a proxy in
     * front of it, and is not counted. 0: no limit; 64. */
    int max_connections_per_host;
    double close_linger_seconds; /* a closing conn's flush + wait for the peer's EOF; 2 s */
    /* A frame whose first bytes came must be whole this long after, or the
     * connection gets Error TIMEOUT and is closed; 30 s. */
    double frame_timeout_seconds;
    /* Buffer held for partial inbound frames by all connections sharing
     * partial_budget together: a connection whose partial frame would need
     * more gets Error BUSY and is closed; 64 MiB. */
    size_t max_partial_bytes;
    pdk_net_budget *partial_budget; /* NULL: the listener counts its own */
} pdk_net_limits;

pdk_net_limits pdk_net_limits_default(void);

typedef struct pdk_net_callbacks {
    /* A connection was accepted. */
    void (*on_open)(pdk_conn *conn, void *ud);
    /* One whole frame, decoded; it is freed when the callback returns. */
    void (*on_frame)(pdk_conn *conn, const Paddock__V1__Frame *frame, void *ud);
    /* The connection is gone; conn is invalid after this returns. */
    void (*on_close)(pdk_conn *conn, void *ud);
    /* The peer closed its sending side after whole frames (a half-close).
     * Return true to keep the connection open for replies still to come;
     * the app then calls pdk_conn_close once they are sent. NULL, or false:
     * the connection closes once its queued frames are flushed. */
    bool (*on_eof)(pdk_conn *conn, void *ud);
} pdk_net_callbacks;

/* The bound port (useful after port 0); 0 for NULL. */
int pdk_listener_port(const pdk_listener *listener);

/* Stops listening and closes every connection at once, dropping unsent
 * frames (send pdk_conn_fail first for a goodbye). on_close runs for each
 * from the loop's close callbacks, after this returns, so keep ud valid until
 * the loop has run; the listener is freed once its transport has closed
 * every handle. Safe from inside any callback. Accepts NULL. */
void pdk_listener_close(pdk_listener *listener);

/* Queues one whole Frame (as pdk_wire_frame_append builds it). The bytes are
 * copied. PDK_ERR_CLOSED when the connection is closing, or when this send
 * would pass out_hard_bytes (the connection is then closed);
 * PDK_ERR_FRAME_TOO_LARGE over max_frame_bytes; PDK_ERR_INVALID_ARGUMENT when
 * bytes are not exactly one Frame with a body (pdk_wire_frame_check). */
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

/* Backpressure from the app: after the frame being delivered, no more are
 * delivered and the transport stops reading (the peer's sends then wait in
 * the kernel's buffers and, once they fill, in the peer), until
 * pdk_conn_resume delivers what was kept back, in order, and reads again.
 * false when the connection is not open or its transport cannot hold (TCP
 * and Paddock's WebSocket hold; local connections do not). */
bool pdk_conn_hold(pdk_conn *conn);
void pdk_conn_resume(pdk_conn *conn);
bool pdk_conn_is_held(const pdk_conn *conn);

/* Whether a numeric host (no port, no brackets) is loopback: 127.0.0.0/8
 * or ::1. */
bool pdk_net_host_is_loopback(const char *host);

void pdk_conn_set_data(pdk_conn *conn, void *data);
void *pdk_conn_data(const pdk_conn *conn);
uint64_t pdk_conn_id(const pdk_conn *conn);      /* unique per process, from 1 */
const char *pdk_conn_peer(const pdk_conn *conn); /* "127.0.0.1:53422" */

typedef struct pdk_conn_stats {
    uint64_t frames_in;
    uint64_t frames_out;
    /* Messages read and written, in wire bytes: TCP's length prefixes
     * included, TLS's records and WebSocket's headers not. */
    uint64_t bytes_in;
    uint64_t bytes_out;
    uint64_t state_dropped; /* state frames replaced or dropped */
    size_t queued_bytes;    /* framing included */
    /* Error frames sent to it, by code (pdk_conn_note_error). */
    uint64_t errors[PDK_ERROR_COUNT];
} pdk_conn_stats;
void pdk_conn_stats_get(const pdk_conn *conn, pdk_conn_stats *out);

/* Counts an Error frame of code sent to conn, for its stats. pdk_conn_fail
 * counts its own; the app calls this for the Errors it sends. */
void pdk_conn_note_error(pdk_conn *conn, pdk_error code);

#endif
