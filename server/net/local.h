/* local: a transport whose peer is code in the same process, such as a
 * bridge that speaks another protocol to its own clients (the Foxglove
 * server, server/app/foxglove.c). To the app a local connection is a
 * pdk_conn like a TCP one: it opens, its frames are delivered through the
 * listener's pdk_net_callbacks, and what the app sends it goes through the
 * same checks (frame shape, max_frame_bytes). Instead of a socket, the frames
 * the app sends are handed to the peer's callbacks, whole, and the peer
 * writes frames with pdk_local_write. The peer owns whatever it queues for
 * its own clients, and with it the bounds (stats reports them). */
#ifndef PDK_LOCAL_H
#define PDK_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* The peer's side of one local connection. Called on the loop thread. */
typedef struct pdk_local_peer {
    /* A frame the app sent, whole (as pdk_wire_frame_append built it);
     * state is true for pdk_conn_send_state's, with its key. The bytes are
     * valid only during the call. Errors as pdk_conn_send's. */
    pdk_error (*on_frame)(void *peer, const uint8_t *frame, size_t len, bool state, uint32_t key);
    /* The app closed the connection (pdk_conn_close, pdk_conn_fail after
     * its last frame went through on_frame): the peer ends its side and
     * calls pdk_local_hangup once it has. */
    void (*on_close)(void *peer);
    /* What the peer holds for its client and the latest-wins messages it
     * has replaced or dropped so far, for pdk_conn_stats_get (NULL: 0). */
    void (*stats)(void *peer, size_t *queued_bytes, uint64_t *state_dropped);
} pdk_local_peer;

/* A listener for local connections whose frames go to cb with ud, under
 * limits (NULL: the defaults; max_connections is not enforced here: the
 * peer's own listener counts its clients). Closing it (pdk_listener_close)
 * asks every open connection's peer to close; it is freed once the last
 * has hung up. PDK_ERR_INVALID_ARGUMENT (err says which limit),
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_local_listen(const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud,
                           pdk_listener **out, char *err, size_t err_len);

/* Opens a connection of listener for peer (copied) with peer_ud, named
 * peer_name in logs ("127.0.0.1:53422 foxglove"); the app's on_open runs
 * before this returns. NULL when out of memory or the listener is closing. */
pdk_conn *pdk_local_open(pdk_listener *listener, const pdk_local_peer *peer, void *peer_ud,
                         const char *peer_name);

/* Delivers one whole encoded Frame from the peer to the app (on_frame), as
 * a socket's frame would be; a frame that does not decode fails the
 * connection as on any transport. Nothing happens once the connection is
 * closing. */
void pdk_local_write(pdk_conn *conn, const uint8_t *frame, size_t len);

/* The peer is gone (its client disconnected, or it finished closing after
 * on_close): the app's on_close runs, then conn is freed. */
void pdk_local_hangup(pdk_conn *conn);

#endif
