/* transport_impl: what a transport implements and what it shares, private to
 * server/net. A transport embeds pdk_conn and pdk_listener as the first
 * member of its own connection and listener structs and fills in an ops
 * table; transport.c checks arguments, state and frame shape once, then
 * dispatches, and decodes inbound frames for every transport alike. */
#ifndef PDK_TRANSPORT_IMPL_H
#define PDK_TRANSPORT_IMPL_H

#include <sys/socket.h>

#include "transport.h"

typedef enum pdk_conn_state {
    PDK_CONN_OPEN,    /* reading and delivering frames */
    PDK_CONN_CLOSING, /* flushing, then closing; input is read and discarded */
    PDK_CONN_CLOSED,  /* being released by the transport; nothing more happens */
} pdk_conn_state;

/* A transport's per-connection operations. transport.c calls them only on an
 * open connection, with a frame that passed pdk_wire_frame_check and the
 * size limit, so they only queue, frame and write. */
typedef struct pdk_conn_ops {
    /* Queues one whole frame; errors as pdk_conn_send. */
    pdk_error (*send)(pdk_conn *conn, const uint8_t *frame, size_t len);
    /* Queues a latest-wins frame under key; errors as pdk_conn_send_state. */
    pdk_error (*send_state)(pdk_conn *conn, uint32_t key, const uint8_t *frame, size_t len);
    /* Queues frame as the last one whatever the limits say (NULL: none),
     * then closes once it is flushed. */
    void (*send_last_and_close)(pdk_conn *conn, const uint8_t *frame, size_t len);
    /* Closes after the pending frames are flushed. */
    void (*close)(pdk_conn *conn);
    /* Bytes queued and not yet written, framing included. */
    size_t (*queued_bytes)(const pdk_conn *conn);
    /* Delivers the frames a hold kept back, then reads again (NULL: the
     * transport cannot hold, and pdk_conn_hold refuses). */
    void (*resume)(pdk_conn *conn);
} pdk_conn_ops;

typedef struct pdk_listener_ops {
    int (*port)(const pdk_listener *listener);
    void (*close)(pdk_listener *listener);
} pdk_listener_ops;

struct pdk_listener {
    const pdk_listener_ops *ops;
    pdk_net_limits limits;
    pdk_net_budget own_budget; /* when limits.partial_budget is NULL */
    pdk_net_budget *budget;    /* limits.partial_budget, else &own_budget */
    pdk_net_callbacks cb;
    void *ud;
};

struct pdk_conn {
    const pdk_conn_ops *ops;
    pdk_listener *listener; /* outlives the conn: freed after every conn is */
    uint64_t id;
    void *data;
    char peer[64];
    /* The peer's address without its port ("": not known), and whether it
     * is loopback (pdk_conn_set_host). */
    char host[48];
    bool host_loopback;
    pdk_conn_state state;
    uint64_t frames_in;
    uint64_t frames_out;    /* counted by the transport once written */
    uint64_t bytes_in;
    uint64_t bytes_out;     /* counted by the transport once written */
    uint64_t state_dropped; /* counted by the transport */
    uint64_t errors[PDK_ERROR_COUNT];
    /* pdk_conn_hold: no frame is delivered and nothing more is read until
     * pdk_conn_resume; the transport keeps what it read already. */
    bool held;
    /* The inbound frame under way (pdk_conn_partial_*): when its first
     * bytes came (0: none under way), its declared size (0: not yet known),
     * its bytes received so far, and the buffer it holds in the budget. */
    uint64_t partial_since_ms;
    size_t partial_declared;
    size_t partial_received;
    size_t partial_held;
};

/* Fills in a listener's shared part; limits NULL means the defaults, and
 * they must have passed pdk_net_limits_check. */
void pdk_listener_init(pdk_listener *listener, const pdk_listener_ops *ops,
                       const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud);

/* Fills in a new connection's shared part: a fresh id, state open, peer
 * "unknown" until the transport knows better. */
void pdk_conn_init(pdk_conn *conn, const pdk_conn_ops *ops, pdk_listener *listener);

/* Notes the peer's address (no port) once it is known. */
void pdk_conn_set_host(pdk_conn *conn, const char *host);

/* Whether conn, whose host already has same counted connections on its
 * listener, is one too many (limits.max_connections_per_host; a loopback
 * or unknown host never is); then msg (what: "", "WebSocket ") says so
 * for its Error BUSY. */
bool pdk_conn_host_full(const pdk_conn *conn, int same, const char *what, char *msg,
                        size_t msg_len);

/* A transport refuses what a peer sent (an oversized or malformed length, a
 * busy server) with pdk_conn_fail, as the app does. */

/* Decodes one whole inbound frame and hands it to on_frame; a frame that is
 * not a Frame with a body fails the connection (PDK_ERR_PROTOCOL). Call only
 * on an open connection; on_frame may close it, or the listener. */
void pdk_conn_deliver(pdk_conn *conn, const uint8_t *frame, size_t len);

/* ---- partial inbound frames: one rule for every transport ---------------- */

/* A frame has begun or grown: starts its clock at now_ms unless it runs,
 * and records its declared size (0: not yet known) and the bytes of it
 * received, for the messages below. */
void pdk_conn_partial_note(pdk_conn *conn, uint64_t now_ms, size_t declared, size_t received);

/* Makes the buffer conn holds for its partial frame held_bytes, in the
 * listener's budget. false, holding what it held, when that would pass
 * limits.max_partial_bytes: refuse with pdk_conn_partial_refuse (outside a
 * libuv allocation callback). Shrinking always succeeds. */
bool pdk_conn_partial_hold(pdk_conn *conn, size_t held_bytes);

/* Error BUSY naming the budget, its limit, the frame and what it asked for,
 * then close. pdk_conn_partial_refusal only writes that message (a
 * WebSocket of an app handler is closed with it, not sent a Frame). */
void pdk_conn_partial_refuse(pdk_conn *conn, size_t want_bytes);
void pdk_conn_partial_refusal(const pdk_conn *conn, size_t want_bytes, char *msg, size_t msg_len);

/* The frame was whole, or the connection stops reading: its clock stops
 * and its buffer leaves the budget. Call before freeing the buffer. */
void pdk_conn_partial_end(pdk_conn *conn);

/* Whether conn's frame is past limits.frame_timeout_seconds at now_ms; if
 * so it gets Error TIMEOUT naming the frame's size and the bytes received,
 * and is closed. Returns true while a frame deadline is still pending, so
 * the transport's housekeeping timer keeps running. */
bool pdk_conn_partial_check(pdk_conn *conn, uint64_t now_ms);
/* Only whether conn's frame is past its deadline, with the message. */
bool pdk_conn_partial_late(const pdk_conn *conn, uint64_t now_ms, char *msg, size_t msg_len);

/* false, with err naming the field, when limits are out of range. */
bool pdk_net_limits_check(const pdk_net_limits *limits, char *err, size_t err_len);

/* Parses "host:port" (a numeric IPv4 host or "localhost", or "[v6]:port";
 * no DNS on the loop) into ss; false, with err naming what was wrong. */
bool pdk_net_parse_host_port(const char *s, struct sockaddr_storage *ss, char *err, size_t err_len);

/* One line on stderr, prefixed as the server's other net lines. */
__attribute__((format(printf, 1, 2))) void pdk_net_log(const char *fmt, ...);

/* snprintf into err when err is not NULL. */
__attribute__((format(printf, 3, 4))) void pdk_net_set_err(char *err, size_t err_len,
                                                           const char *fmt, ...);

#endif
