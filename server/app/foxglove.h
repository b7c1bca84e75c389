/* The Foxglove WebSocket protocol server (foxglove/ws-protocol docs/spec.md)
 * on paddockd's HTTP listener, subprotocols foxglove.websocket.v1 and
 * foxglove.sdk.v1. Each Foxglove client is also one of the server's own
 * connections, through the local transport (local.h): its subscriptions
 * are the server's state, telemetry and DBW report subscriptions, its
 * published DBW commands are the server's DbwCommand and DbwMessage
 * requests, so the limits, latest-wins queues, leases and roles are the
 * same code as over TCP. This module translates: JSON requests into Frames,
 * and the Frames the server sends into Foxglove messages. Channels (per
 * session and vehicle) are advertised as sessions and vehicles come and go;
 * docs/web.md lists them and ADR 0024 says why they are laid out so. */
#ifndef PDK_FOXGLOVE_H
#define PDK_FOXGLOVE_H

#include <stddef.h>

#include <uv.h>

#include "http.h"
#include "server_table.h"
#include "sim/error.h"
#include "transport.h"

#define PDK_FOXGLOVE_SUBPROTOCOL "foxglove.websocket.v1"
#define PDK_FOXGLOVE_SDK_SUBPROTOCOL "foxglove.sdk.v1"

typedef struct pdk_foxglove pdk_foxglove;

/* Makes the Foxglove server: its clients become connections of a local
 * listener whose frames go to cb and ud (the server's own callbacks), under
 * limits; it reads the session table (kept by the caller, on the loop) to
 * know the channels. NULL with err on failure (out of memory, limits). */
pdk_foxglove *pdk_foxglove_create(uv_loop_t *loop, pdk_server_table *table,
                                  const pdk_net_limits *limits, const pdk_net_callbacks *cb,
                                  void *ud, char *err, size_t err_len);

/* The handler to register with pdk_http_listen. */
pdk_ws_handler pdk_foxglove_handler(pdk_foxglove *fox);

/* Stops: the channel timer closes, the local listener closes and every
 * client is asked to close (the HTTP listener's close finishes them). */
void pdk_foxglove_close(pdk_foxglove *fox);

/* Frees it once the loop has stopped; a client still there is hung up
 * first (the server's on_close runs for it). Accepts NULL. */
void pdk_foxglove_free(pdk_foxglove *fox);

#endif
