/* http: paddockd's HTTP and WebSocket listener, on the server's own libuv
 * loop through libwebsockets (its libuv event library, with the server's
 * loop as a foreign loop: one loop, one thread). One listener serves:
 *
 *   - static files from a web root (the dashboard), GET and HEAD only, never
 *     a path outside the root;
 *   - the app's generated pages (pdk_http_page: /healthz, /metrics,
 *     /livez, /readyz), GET and HEAD;
 *   - Paddock's own protocol over WebSocket at PDK_WS_PADDOCK_PATH with the
 *     subprotocol PDK_WS_PADDOCK_SUBPROTOCOL: one Frame per binary message,
 *     no length prefix. These connections are pdk_conns, delivered through
 *     the pdk_net_callbacks given to pdk_http_listen exactly as TCP's are;
 *   - the app's other WebSocket subprotocols (Foxglove's), registered as
 *     pdk_ws_handler: whole text and binary messages in, and out through the
 *     same bounded, accounted queue as Paddock's frames.
 *
 * Every WebSocket connection of the listener, whatever its subprotocol,
 * obeys the listener's pdk_net_limits: max_frame_bytes bounds one message in
 * either direction, out_soft_bytes/out_soft_seconds/out_hard_bytes bound
 * what is queued for it, max_connections counts all of them together. */
#ifndef PDK_HTTP_H
#define PDK_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sim/error.h"
#include "transport.h"

#define PDK_WS_PADDOCK_PATH "/v1/ws"
#define PDK_WS_PADDOCK_SUBPROTOCOL "paddock.v1"
#define PDK_WS_MAX_SUBPROTOCOLS 4 /* names one handler accepts */
#define PDK_WS_MAX_HANDLERS 4

/* One WebSocket connection of a registered subprotocol. */
typedef struct pdk_ws pdk_ws;

/* An app-level WebSocket subprotocol. The handshake picks the first
 * subprotocol the client offered that some handler names, and echoes it as
 * the client spelled it. Messages arrive whole (fragments are joined; one
 * above max_frame_bytes closes the connection with status 1009). Callbacks
 * run on the loop thread; the message is valid only during the call. */
typedef struct pdk_ws_handler {
    const char *subprotocols[PDK_WS_MAX_SUBPROTOCOLS]; /* NULL-terminated if fewer */
    /* The handshake completed; pdk_ws_subprotocol names the one agreed. */
    void (*on_open)(pdk_ws *ws, void *ud);
    void (*on_text)(pdk_ws *ws, const char *text, size_t len, void *ud);
    void (*on_binary)(pdk_ws *ws, const uint8_t *data, size_t len, void *ud);
    /* The connection is gone; ws is invalid after this returns. */
    void (*on_close)(pdk_ws *ws, void *ud);
    void *ud;
} pdk_ws_handler;

/* A page the app generates, for GET and HEAD of path: fill appends the
 * body to out (empty when called) and returns the HTTP status, 200, or 503
 * with a body saying why; anything else, or a failed append, is answered
 * 500. Runs on the loop thread, once per request. */
typedef struct pdk_http_page {
    const char *path;         /* "/metrics" */
    const char *content_type; /* "text/plain; version=0.0.4; charset=utf-8" */
    int (*fill)(pdk_buf *out, void *ud);
} pdk_http_page;
#define PDK_HTTP_MAX_PAGES 8

typedef struct pdk_http_config {
    const char *listen;       /* "127.0.0.1:8080"; port 0 picks one */
    const char *web_root;     /* static files; NULL: every static path is 404 */
    size_t max_request_bytes; /* request line and headers; 0: 8 KiB */
    const pdk_http_page *pages; /* copied, with their strings' pointers */
    size_t n_pages;             /* at most PDK_HTTP_MAX_PAGES */
    void *pages_ud;
    const pdk_ws_handler *handlers; /* copied; may be NULL with n_handlers 0 */
    size_t n_handlers;              /* at most PDK_WS_MAX_HANDLERS */
    /* After pdk_listener_close, libwebsockets releases its handles on the
     * loop over a few iterations; this runs (from a close callback) once
     * they and the listener's own are gone. Until then the app must not
     * close the loop's other handles wholesale (uv_walk): libwebsockets
     * would close one of its own twice. NULL: nobody is told. */
    void (*on_closed)(void *ud);
    void *on_closed_ud;
    /* HTTPS and WSS with the TCP listener's --tls-* files (PEM paths; NULL
     * cert: plain HTTP). The app has already loaded them with
     * pdk_tls_create, so a bad file was named before this runs. */
    const char *tls_cert_file;
    const char *tls_key_file;
    const char *tls_client_ca_file; /* verify client certificates; NULL: none */
    bool tls_require_client_cert;   /* with a CA: no certificate, no handshake */
} pdk_http_config;

/* Listens for HTTP and WebSocket on config->listen (numeric host, or
 * "localhost"). Paddock WebSocket connections go to cb/ud as pdk_conns of
 * the returned listener; pdk_listener_port and pdk_listener_close work on it
 * as on a TCP listener (closing it closes every WebSocket connection of any
 * subprotocol, and on_close runs for each from inside the call; see
 * config->on_closed for when the loop is clear of it). Errors:
 * PDK_ERR_INVALID_ARGUMENT (address, limits, web root, handlers; err says
 * which), PDK_ERR_NET (bind failed, or libwebsockets' libuv event library
 * could not be loaded). The address is bound once to check it before
 * libwebsockets binds it for good. */
pdk_error pdk_http_listen(uv_loop_t *loop, const pdk_http_config *config,
                          const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud,
                          pdk_listener **out, char *err, size_t err_len);

/* ---- sending on a handler's connection ---------------------------------- */

/* Queue one whole message; the bytes are copied. PDK_ERR_CLOSED when the
 * connection is closing or this send would pass out_hard_bytes (it is then
 * closed); PDK_ERR_FRAME_TOO_LARGE above max_frame_bytes. */
pdk_error pdk_ws_send_text(pdk_ws *ws, const char *text, size_t len);
pdk_error pdk_ws_send_binary(pdk_ws *ws, const uint8_t *data, size_t len);

/* Latest wins, as pdk_conn_send_state: a message still queued under key is
 * replaced; above out_soft_bytes the message is dropped and counted. */
pdk_error pdk_ws_send_keyed(pdk_ws *ws, uint32_t key, bool text, const uint8_t *data, size_t len);

/* Closes after the queued messages are flushed, with WebSocket status code
 * (1000 normal, 1003 unsupported data, 1008 policy, 1011 server error) and a
 * short reason (at most 123 bytes are sent). */
void pdk_ws_close(pdk_ws *ws, int status, const char *reason);

const char *pdk_ws_subprotocol(const pdk_ws *ws);
void pdk_ws_set_data(pdk_ws *ws, void *data);
void *pdk_ws_data(const pdk_ws *ws);
uint64_t pdk_ws_id(const pdk_ws *ws);      /* unique among all connections, from 1 */
const char *pdk_ws_peer(const pdk_ws *ws); /* "127.0.0.1:53422" */
void pdk_ws_stats_get(const pdk_ws *ws, pdk_conn_stats *out);

#endif
