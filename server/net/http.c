/* http: the HTTP and WebSocket listener on the server's libuv loop, through
 * libwebsockets with that loop as a foreign loop. It owns the routing of
 * HTTP requests (static files under the web root, the app's pages, 404,
 * 405), the WebSocket connections' life cycle (Paddock's pdk_conns and the
 * app handlers' pdk_ws alike), joining fragments into whole messages, and when
 * queued messages are handed to libwebsockets. The queue and its limits are
 * outq.c's, shared with TCP; RFC 6455 itself is libwebsockets'. */

#include "http.h"
#include "outq.h"
#include "transport_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define HOUSEKEEPING_MS 50         /* the soft limit's clock */
#define RX_CHUNK_BYTES 65536       /* what libwebsockets hands over per callback */
#define REQUEST_BYTES_DEFAULT 8192 /* request line and headers */
#define REQUEST_BYTES_MAX 65535    /* libwebsockets counts them in 16 bits */
#define RESPONSE_BODY_MAX 2048     /* an error's body */
#define PROTOCOLS_MAX (2 + PDK_WS_MAX_HANDLERS * PDK_WS_MAX_SUBPROTOCOLS + 1)

typedef struct http_listener http_listener;

/* One WebSocket connection, Paddock's (handler NULL) or a handler's. Its
 * memory lives until libwebsockets reports the connection closed, whatever
 * base.state says. */
typedef struct ws_conn {
    pdk_conn base; /* first: a pdk_conn * (and a pdk_ws *) is a ws_conn * */
    struct lws *wsi;
    http_listener *net;
    const pdk_ws_handler *handler;
    char subprotocol[64];
    struct ws_conn *prev;
    struct ws_conn *next;
    bool visible; /* on_open ran, so on_close will */
    bool counted; /* counts toward max_connections */
    pdk_buf in;   /* the fragments of the message being received */
    bool in_text;
    pdk_outq out;
    size_t in_flight; /* the last message, while libwebsockets still holds part of it */
    /* Whole messages that arrived while the app held the connection
     * (pdk_conn_hold), each a 4-byte length in host order and its bytes,
     * delivered by ws_resume. Receive flow control stops libwebsockets'
     * reads at the hold, so this is at most the rest of one read. */
    pdk_buf kept;
    int close_status;
    char close_reason[124];
    bool close_sent; /* the close frame is out: the peer's is awaited */
} ws_conn;

/* libwebsockets' per-connection data, for every protocol. */
typedef struct session {
    ws_conn *conn;
    /* An HTTP response waiting for HTTP_WRITEABLE. */
    char *body;
    size_t body_len;
} session;

struct http_listener {
    pdk_listener base; /* first: a pdk_listener * is an http_listener * */
    uv_loop_t *loop;
    struct lws_context *ctx;
    struct lws_protocols protocols[PROTOCOLS_MAX];
    pdk_ws_handler handlers[PDK_WS_MAX_HANDLERS];
    size_t n_handlers;
    char web_root[PATH_MAX]; /* resolved; empty: no static files */
    pdk_http_page pages[PDK_HTTP_MAX_PAGES];
    size_t n_pages;
    void *pages_ud;
    pdk_buf page;     /* a page being filled */
    uv_timer_t timer; /* data is the listener; runs while a conn is over its soft limit */
    bool timer_running;
    void *lws_data[8]; /* data pointers of libwebsockets' handles (see handle_census) */
    size_t n_lws_data;
    bool lws_alive;
    struct handle_census *census; /* only during pdk_http_listen */
    uv_idle_t gone_check; /* data is the listener; watches ctx after close (an idle: the loop must
                             not block) */
    int handles;          /* ours not yet through their close callback */
    void (*on_closed)(void *ud);
    void *closed_ud;
    ws_conn *conns;
    int n_counted;
    int port;
    bool closing;
};

static void on_lws_log(int level, const char *line)
{
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
        len--;
    }
    pdk_net_log("libwebsockets%s: %.*s", level == LLL_ERR ? " error" : "", (int)len, line);
}

/* ---- connections -------------------------------------------------------- */

static void ensure_timer(http_listener *net);

static size_t conn_queued(const ws_conn *conn)
{
    return conn->out.bytes + conn->in_flight;
}

/* Drops the connection now: queued messages are lost. The memory goes when
 * libwebsockets reports it closed. */
__attribute__((format(printf, 2, 3))) static void conn_abort(ws_conn *conn, const char *fmt, ...)
{
    if (conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    char why[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    pdk_net_log("closing %s (conn %" PRIu64 "): %s", conn->base.peer, conn->base.id, why);
    conn->base.state = PDK_CONN_CLOSED;
    pdk_outq_free(&conn->out);
    lws_set_timeout(conn->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Closes once the queue is flushed, with the WebSocket close status given,
 * bounded by close_linger_seconds. */
static void conn_begin_close(ws_conn *conn, int status, const char *reason)
{
    if (conn->base.state != PDK_CONN_OPEN) {
        return;
    }
    conn->base.state = PDK_CONN_CLOSING;
    conn->close_status = status;
    /* A close frame carries at most 123 bytes of reason. */
    snprintf(conn->close_reason, sizeof conn->close_reason, "%.123s", reason != NULL ? reason : "");
    double linger = conn->net->base.limits.close_linger_seconds;
    /* libwebsockets counts whole seconds; a linger of 0 closes at once. */
    int secs = linger <= 0 ? LWS_TO_KILL_ASYNC : (int)(linger + 0.999);
    lws_set_timeout(conn->wsi, PENDING_TIMEOUT_USER_OK, secs);
    lws_callback_on_writable(conn->wsi);
}

static void check_soft(ws_conn *conn)
{
    if (conn->base.state != PDK_CONN_OPEN) {
        return;
    }
    http_listener *net = conn->net;
    size_t queued = conn_queued(conn);
    switch (pdk_outq_check_soft(&conn->out, &net->base.limits, queued, uv_now(net->loop))) {
    case PDK_OUTQ_SOFT_UNDER:
        break;
    case PDK_OUTQ_SOFT_GRACE:
        ensure_timer(net);
        break;
    case PDK_OUTQ_SOFT_EXPIRED:
        conn_abort(conn,
                   "slow consumer: %zu bytes queued, above the soft limit of %zu bytes for "
                   "%.1f s",
                   queued, net->base.limits.out_soft_bytes, net->base.limits.out_soft_seconds);
        break;
    }
}

/* Offers one message to the queue under the shared output policy. */
static pdk_error conn_offer(ws_conn *conn, bool is_state, uint32_t key, bool text,
                            const uint8_t *msg, size_t len)
{
    size_t would_be = 0;
    switch (pdk_outq_offer(&conn->out, &conn->net->base.limits, conn->in_flight, is_state, key,
                           text, msg, len, &would_be)) {
    case PDK_OUTQ_QUEUED:
        lws_callback_on_writable(conn->wsi);
        break;
    case PDK_OUTQ_REPLACED:
    case PDK_OUTQ_DROPPED:
        conn->base.state_dropped++;
        break;
    case PDK_OUTQ_OVER_HARD:
        conn_abort(conn, "output buffer would reach %zu bytes, above the hard limit of %zu bytes",
                   would_be, conn->net->base.limits.out_hard_bytes);
        return PDK_ERR_CLOSED;
    case PDK_OUTQ_NO_MEMORY:
        return PDK_ERR_NO_MEMORY;
    }
    check_soft(conn);
    return conn->base.state == PDK_CONN_OPEN ? PDK_OK : PDK_ERR_CLOSED;
}

/* Writes the next queued message; on a closing conn with nothing left,
 * returns -1 so libwebsockets sends the close frame. */
static int conn_writeable(ws_conn *conn)
{
    conn->in_flight = 0;
    if (conn->base.state == PDK_CONN_CLOSED) {
        return -1;
    }
    pdk_out_item *item = pdk_outq_pop(&conn->out);
    if (item == NULL && conn->base.state == PDK_CONN_CLOSING) {
        /* Everything is out: now the close frame. Returning -1 from here
         * would drop the socket without one (libwebsockets takes a failed
         * writeable callback for a dead socket), so the close goes through
         * lws_close_free_wsi, which with a reason set sends the frame and
         * waits for the peer's, reading on meanwhile (RFC 6455, 7.1.1).
         * Once only: a second kill while it waits would close the socket
         * with the peer's data unread, which resets the connection, and a
         * peer still sending (a refused oversized message) could lose the
         * Error frame ahead of the close. */
        if (conn->close_sent) {
            return 0;
        }
        conn->close_sent = true;
        lws_close_reason(conn->wsi, (enum lws_close_status)conn->close_status,
                         (unsigned char *)conn->close_reason, strlen(conn->close_reason));
        lws_set_timeout(conn->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
        return 0;
    }
    if (item != NULL) {
        int r = lws_write(conn->wsi, pdk_out_item_wire(&conn->out, item), item->len,
                          item->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY);
        size_t len = item->len;
        pdk_out_items_free(item);
        if (r < 0) {
            conn_abort(conn, "write failed");
            return -1;
        }
        conn->base.frames_out++;
        conn->base.bytes_out += len;
        if (lws_partial_buffered(conn->wsi)) {
            conn->in_flight = len;
        }
    }
    if (conn->out.head != NULL || conn->base.state == PDK_CONN_CLOSING) {
        lws_callback_on_writable(conn->wsi);
    }
    if (conn->base.state == PDK_CONN_OPEN) {
        check_soft(conn);
    }
    return 0;
}

/* ---- Paddock's transport ops -------------------------------------------- */

static pdk_error ws_send(pdk_conn *base, const uint8_t *frame, size_t len)
{
    return conn_offer((ws_conn *)base, false, 0, false, frame, len);
}

static pdk_error ws_send_state(pdk_conn *base, uint32_t key, const uint8_t *frame, size_t len)
{
    return conn_offer((ws_conn *)base, true, key, false, frame, len);
}

static void ws_send_last_and_close(pdk_conn *base, const uint8_t *frame, size_t len)
{
    ws_conn *conn = (ws_conn *)base;
    if (frame != NULL) {
        (void)pdk_outq_push(&conn->out, false, frame, len);
    }
    conn_begin_close(conn, LWS_CLOSE_STATUS_POLICY_VIOLATION, "closed after an Error frame");
}

static void ws_close(pdk_conn *base)
{
    conn_begin_close((ws_conn *)base, LWS_CLOSE_STATUS_NORMAL, "");
}

static size_t ws_queued_bytes(const pdk_conn *base)
{
    return conn_queued((const ws_conn *)base);
}

/* The app's hold is over: the messages kept back first, in order, then
 * libwebsockets reads again (unless one of them held it again). */
static void ws_resume(pdk_conn *base)
{
    ws_conn *conn = (ws_conn *)base;
    size_t off = 0;
    while (conn->base.state == PDK_CONN_OPEN && !conn->base.held && off < conn->kept.len) {
        uint32_t n;
        memcpy(&n, conn->kept.data + off, sizeof n);
        off += sizeof n;
        pdk_conn_deliver(&conn->base, conn->kept.data + off, n);
        off += n;
    }
    if (off > 0) {
        memmove(conn->kept.data, conn->kept.data + off, conn->kept.len - off);
        conn->kept.len -= off;
    }
    if (conn->kept.len == 0) {
        pdk_buf_free(&conn->kept);
    }
    if (conn->base.state == PDK_CONN_OPEN) {
        lws_rx_flow_control(conn->wsi, conn->base.held ? 0 : 1);
    }
}

static const pdk_conn_ops ws_conn_ops = {
    .send = ws_send,
    .send_state = ws_send_state,
    .send_last_and_close = ws_send_last_and_close,
    .close = ws_close,
    .queued_bytes = ws_queued_bytes,
    .resume = ws_resume,
};

/* ---- the message-level API ---------------------------------------------- */

static pdk_error ws_check_send(const pdk_ws *ws, const void *data, size_t len)
{
    const ws_conn *conn = (const ws_conn *)ws;
    if (conn == NULL || (data == NULL && len > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (conn->base.state != PDK_CONN_OPEN) {
        return PDK_ERR_CLOSED;
    }
    if (len > conn->net->base.limits.max_frame_bytes) {
        return PDK_ERR_FRAME_TOO_LARGE;
    }
    return PDK_OK;
}

pdk_error pdk_ws_send_text(pdk_ws *ws, const char *text, size_t len)
{
    pdk_error err = ws_check_send(ws, text, len);
    return err != PDK_OK ? err
                         : conn_offer((ws_conn *)ws, false, 0, true, (const uint8_t *)text, len);
}

pdk_error pdk_ws_send_binary(pdk_ws *ws, const uint8_t *data, size_t len)
{
    pdk_error err = ws_check_send(ws, data, len);
    return err != PDK_OK ? err : conn_offer((ws_conn *)ws, false, 0, false, data, len);
}

pdk_error pdk_ws_send_keyed(pdk_ws *ws, uint32_t key, bool text, const uint8_t *data, size_t len)
{
    pdk_error err = ws_check_send(ws, data, len);
    return err != PDK_OK ? err : conn_offer((ws_conn *)ws, true, key, text, data, len);
}

void pdk_ws_close(pdk_ws *ws, int status, const char *reason)
{
    if (ws != NULL) {
        conn_begin_close((ws_conn *)ws, status, reason);
    }
}

const char *pdk_ws_subprotocol(const pdk_ws *ws)
{
    return ws != NULL ? ((const ws_conn *)ws)->subprotocol : "";
}

void pdk_ws_set_data(pdk_ws *ws, void *data)
{
    pdk_conn_set_data((pdk_conn *)ws, data);
}

void *pdk_ws_data(const pdk_ws *ws)
{
    return pdk_conn_data((const pdk_conn *)ws);
}

uint64_t pdk_ws_id(const pdk_ws *ws)
{
    return pdk_conn_id((const pdk_conn *)ws);
}

const char *pdk_ws_peer(const pdk_ws *ws)
{
    return pdk_conn_peer((const pdk_conn *)ws);
}

void pdk_ws_stats_get(const pdk_ws *ws, pdk_conn_stats *out)
{
    pdk_conn_stats_get((const pdk_conn *)ws, out);
}

/* ---- WebSocket life cycle ----------------------------------------------- */

static ws_conn *conn_open(http_listener *net, struct lws *wsi, const pdk_ws_handler *handler)
{
    ws_conn *conn = calloc(1, sizeof *conn);
    if (conn == NULL) {
        return NULL;
    }
    pdk_conn_init(&conn->base, &ws_conn_ops, &net->base);
    pdk_outq_init(&conn->out, LWS_PRE, false);
    conn->wsi = wsi;
    conn->net = net;
    conn->handler = handler;
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    snprintf(conn->subprotocol, sizeof conn->subprotocol, "%s", proto->name);
    char peer[48];
    if (lws_get_peer_simple(wsi, peer, sizeof peer) != NULL) {
        /* libwebsockets gives the address alone; the log's conn id tells
         * two tabs of one browser apart. */
        snprintf(conn->base.peer, sizeof conn->base.peer, "%.47s (ws)", peer);
        pdk_conn_set_host(&conn->base, peer);
    }
    conn->next = net->conns;
    if (net->conns != NULL) {
        net->conns->prev = conn;
    }
    net->conns = conn;
    return conn;
}

/* Drops the message being joined and its place in the partial-frame
 * budget. */
static void in_release(ws_conn *conn)
{
    pdk_conn_partial_end(&conn->base);
    pdk_buf_free(&conn->in);
}

static void conn_gone(ws_conn *conn)
{
    http_listener *net = conn->net;
    if (conn->prev != NULL) {
        conn->prev->next = conn->next;
    } else {
        net->conns = conn->next;
    }
    if (conn->next != NULL) {
        conn->next->prev = conn->prev;
    }
    if (conn->counted) {
        net->n_counted--;
    }
    conn->base.state = PDK_CONN_CLOSED;
    if (conn->visible) {
        if (conn->handler != NULL) {
            if (conn->handler->on_close != NULL) {
                conn->handler->on_close((pdk_ws *)conn, conn->handler->ud);
            }
        } else if (net->base.cb.on_close != NULL) {
            net->base.cb.on_close(&conn->base, net->base.ud);
        }
    }
    pdk_outq_free(&conn->out);
    in_release(conn);
    pdk_buf_free(&conn->kept);
    free(conn);
}

/* A whole message arrived. */
static void conn_message(ws_conn *conn, bool text, const uint8_t *data, size_t len)
{
    if (conn->handler != NULL) {
        conn->base.frames_in++;
        conn->base.bytes_in += len;
        if (text && conn->handler->on_text != NULL) {
            conn->handler->on_text((pdk_ws *)conn, (const char *)data, len, conn->handler->ud);
        } else if (!text && conn->handler->on_binary != NULL) {
            conn->handler->on_binary((pdk_ws *)conn, data, len, conn->handler->ud);
        }
        return;
    }
    if (text) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "a text message of %zu bytes on the %s WebSocket: Paddock frames travel as "
                 "binary messages, one Frame each",
                 len, PDK_WS_PADDOCK_SUBPROTOCOL);
        pdk_conn_fail(&conn->base, 0, PDK_ERR_PROTOCOL, msg);
        return;
    }
    if (conn->base.held) {
        uint32_t n = (uint32_t)len;
        if (pdk_buf_append(&conn->kept, &n, sizeof n) != PDK_OK ||
            pdk_buf_append(&conn->kept, data, len) != PDK_OK) {
            conn_abort(conn, "out of memory keeping back a message of %zu bytes", len);
        }
        return;
    }
    pdk_conn_deliver(&conn->base, data, len);
    /* The app held the connection: libwebsockets reads no more of it
     * until ws_resume lets it. */
    if (conn->base.held && conn->base.state == PDK_CONN_OPEN) {
        lws_rx_flow_control(conn->wsi, 0);
    }
}

/* Refuses what a peer sent: an Error frame then close on Paddock's
 * protocol, a close with status on a handler's. */
static void conn_refuse(ws_conn *conn, pdk_error code, int status, const char *msg)
{
    if (conn->handler == NULL) {
        pdk_conn_fail(&conn->base, 0, code, msg);
    } else {
        pdk_net_log("closing %s (conn %" PRIu64 "): %s", conn->base.peer, conn->base.id, msg);
        conn_begin_close(conn, status, msg);
    }
}

/* One piece of a message: joined with the others, refused as soon as the
 * message is known to pass max_frame_bytes, before the rest is buffered.
 * The joining buffer grows geometrically within what is known of the
 * message, each step held in the listener's partial-frame budget first;
 * its clock (frame_timeout_seconds) runs from the first piece. */
static void conn_receive(ws_conn *conn, struct lws *wsi, const uint8_t *data, size_t len)
{
    if (conn->base.state != PDK_CONN_OPEN) {
        return; /* discarded while closing */
    }
    size_t limit = conn->net->base.limits.max_frame_bytes;
    bool first = lws_is_first_fragment(wsi) && conn->in.len == 0;
    bool last = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
    if (first) {
        conn->in_text = !lws_frame_is_binary(wsi);
    }
    size_t known = conn->in.len + len + lws_remaining_packet_payload(wsi);
    if (known > limit) {
        char msg[160];
        snprintf(msg, sizeof msg, "message of %s%zu bytes exceeds the limit of %zu bytes",
                 last ? "" : "at least ", known, limit);
        in_release(conn);
        conn_refuse(conn, PDK_ERR_FRAME_TOO_LARGE, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, msg);
        return;
    }
    if (first && last) {
        conn_message(conn, conn->in_text, data, len);
        return;
    }
    size_t need = conn->in.len + len;
    if (need > conn->in.cap) {
        size_t cap = conn->in.cap * 2 > need ? conn->in.cap * 2 : need;
        if (cap > limit) {
            cap = limit;
        }
        if (lws_is_final_fragment(wsi) && cap > known) {
            cap = known;
        }
        if (!pdk_conn_partial_hold(&conn->base, cap)) {
            char msg[400];
            pdk_conn_partial_refusal(&conn->base, cap, msg, sizeof msg);
            in_release(conn);
            conn_refuse(conn, PDK_ERR_BUSY, 1013 /* try again later */, msg);
            return;
        }
        uint8_t *grown = realloc(conn->in.data, cap);
        if (grown == NULL) {
            conn_abort(conn, "out of memory joining a message of %zu bytes", known);
            return;
        }
        conn->in.data = grown;
        conn->in.cap = cap;
    }
    memcpy(conn->in.data + conn->in.len, data, len);
    conn->in.len += len;
    if (last) {
        conn_message(conn, conn->in_text, conn->in.data, conn->in.len);
        in_release(conn);
        return;
    }
    /* A message's size is declared only once its last fragment begins. */
    pdk_conn_partial_note(&conn->base, uv_now(conn->net->loop),
                          lws_is_final_fragment(wsi) ? known : 0, conn->in.len);
    ensure_timer(conn->net);
}

/* The WebSocket connections from conn's host that hold a slot. */
static int same_host(const http_listener *net, const ws_conn *conn)
{
    int n = 0;
    for (const ws_conn *o = net->conns; o != NULL; o = o->next) {
        n += o != conn && o->counted && strcmp(o->base.host, conn->base.host) == 0;
    }
    return n;
}

static int on_established(http_listener *net, struct lws *wsi, session *pss,
                          const pdk_ws_handler *handler)
{
    ws_conn *conn = conn_open(net, wsi, handler);
    if (conn == NULL) {
        pdk_net_log("WebSocket accept failed: out of memory");
        return -1;
    }
    pss->conn = conn;
    char msg[192];
    bool full = net->n_counted >= net->base.limits.max_connections;
    if (full) {
        snprintf(msg, sizeof msg, "server busy: at its limit of %d WebSocket connections",
                 net->base.limits.max_connections);
    } else {
        full = pdk_conn_host_full(&conn->base, same_host(net, conn), "WebSocket ", msg, sizeof msg);
    }
    if (full) {
        if (handler == NULL) {
            pdk_conn_fail(&conn->base, 0, PDK_ERR_BUSY, msg);
        } else {
            pdk_net_log("refusing %s (conn %" PRIu64 "): %s", conn->base.peer, conn->base.id, msg);
            conn_begin_close(conn, 1013 /* try again later */, msg);
        }
        return 0;
    }
    conn->counted = true;
    net->n_counted++;
    conn->visible = true;
    if (handler != NULL) {
        if (handler->on_open != NULL) {
            handler->on_open((pdk_ws *)conn, handler->ud);
        }
    } else if (net->base.cb.on_open != NULL) {
        net->base.cb.on_open(&conn->base, net->base.ud);
    }
    return 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    http_listener *net = ctx != NULL ? lws_context_user(ctx) : NULL;
    session *pss = user;
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    const pdk_ws_handler *handler = proto != NULL ? proto->user : NULL;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if (handler == NULL) {
            /* Paddock's protocol lives at one path only. */
            char uri[128] = "";
            if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 ||
                strcmp(uri, PDK_WS_PADDOCK_PATH) != 0) {
                pdk_net_log("refusing a %s WebSocket at \"%s\": it is served at %s",
                            PDK_WS_PADDOCK_SUBPROTOCOL, uri, PDK_WS_PADDOCK_PATH);
                return 1;
            }
        }
        return 0;
    case LWS_CALLBACK_ESTABLISHED:
        return net == NULL || net->closing ? -1 : on_established(net, wsi, pss, handler);
    case LWS_CALLBACK_RECEIVE:
        if (pss->conn != NULL) {
            conn_receive(pss->conn, wsi, in, len);
        }
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return pss->conn != NULL ? conn_writeable(pss->conn) : -1;
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY:
        if (pss != NULL && pss->conn != NULL) {
            ws_conn *conn = pss->conn;
            pss->conn = NULL;
            conn_gone(conn);
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- HTTP --------------------------------------------------------------- */

static const char *mime_type(const char *path)
{
    static const struct {
        const char *ext;
        const char *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".proto", "text/plain; charset=utf-8"},
        {".wasm", "application/wasm"},
    };
    const char *dot = strrchr(path, '.');
    if (dot != NULL && strchr(dot, '/') == NULL) {
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
            if (strcmp(dot, types[i].ext) == 0) {
                return types[i].type;
            }
        }
    }
    return "application/octet-stream";
}

/* Sends status, headers and a generated body (HEAD: no body). Returns what
 * the HTTP callback returns. */
static int respond(struct lws *wsi, session *pss, unsigned status, const char *type,
                   const char *body, size_t len, const char *allow, bool head)
{
    unsigned char buf[LWS_PRE + 1024];
    unsigned char *start = buf + LWS_PRE;
    unsigned char *p = start;
    unsigned char *end = buf + sizeof buf - 1;
    if (lws_add_http_common_headers(wsi, status, type, len, &p, end) != 0 ||
        (allow != NULL && lws_add_http_header_by_name(
                              wsi, (const unsigned char *)"allow:", (const unsigned char *)allow,
                              (int)strlen(allow), &p, end) != 0) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) != 0 ||
        lws_finalize_write_http_header(wsi, start, &p, end) != 0) {
        return -1;
    }
    if (head || len == 0) {
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    pss->body = malloc(LWS_PRE + len);
    if (pss->body == NULL) {
        return -1;
    }
    memcpy(pss->body + LWS_PRE, body, len);
    pss->body_len = len;
    lws_callback_on_writable(wsi);
    return 0;
}

__attribute__((format(printf, 4, 5))) static int
respond_error(struct lws *wsi, session *pss, unsigned status, const char *fmt, ...)
{
    char body[RESPONSE_BODY_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body - 1, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof body - 1 ? (size_t)n : sizeof body - 2;
    body[len] = '\n';
    body[len + 1] = '\0';
    return respond(wsi, pss, status, "text/plain; charset=utf-8", body, strlen(body),
                   status == 405 ? "GET, HEAD" : NULL, false);
}

/* Serves uri from the web root: a file, or a directory's index.html, and
 * nothing outside the root. libwebsockets has already decoded the URI and
 * folded its "." and ".." segments (encoded or not) and repeated slashes;
 * what still leads outside, through a symlink, is refused on the resolved
 * path. */
static int serve_static(http_listener *net, struct lws *wsi, session *pss, const char *uri)
{
    if (net->web_root[0] == '\0') {
        return respond_error(wsi, pss, 404, "no file at %s: this server has no web root", uri);
    }
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s%s", net->web_root, uri);
    if (n < 0 || (size_t)n >= sizeof path - sizeof "/index.html") {
        return respond_error(wsi, pss, 414, "the path \"%.200s...\" is too long", uri);
    }
    char real[PATH_MAX];
    struct stat st;
    if (realpath(path, real) == NULL || stat(real, &st) != 0) {
        return respond_error(wsi, pss, 404, "no file at %s", uri);
    }
    size_t root_len = strlen(net->web_root);
    if (strncmp(real, net->web_root, root_len) != 0 ||
        (real[root_len] != '/' && real[root_len] != '\0')) {
        return respond_error(wsi, pss, 403, "the path %s leads outside the web root", uri);
    }
    if (S_ISDIR(st.st_mode)) {
        size_t rlen = strlen(real);
        if (rlen + sizeof "/index.html" > sizeof real) {
            return respond_error(wsi, pss, 404, "no file at %s", uri);
        }
        memcpy(real + rlen, "/index.html", sizeof "/index.html");
        if (stat(real, &st) != 0) {
            return respond_error(wsi, pss, 404, "no file at %s (a directory without index.html)",
                                 uri);
        }
    }
    if (!S_ISREG(st.st_mode)) {
        return respond_error(wsi, pss, 404, "no file at %s", uri);
    }
    int r = lws_serve_http_file(wsi, real, mime_type(real), NULL, 0);
    if (r < 0) {
        return -1;
    }
    return r > 0 && lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int on_http(http_listener *net, struct lws *wsi, session *pss, const char *uri)
{
    bool get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
    bool head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
    if (!get && !head) {
        return respond_error(wsi, pss, 405, "%s takes GET or HEAD only", uri);
    }
    for (size_t i = 0; i < net->n_pages; i++) {
        const pdk_http_page *page = &net->pages[i];
        if (strcmp(uri, page->path) != 0) {
            continue;
        }
        pdk_buf_reset(&net->page);
        int status = page->fill(&net->page, net->pages_ud);
        if (status != 200 && status != 503) {
            return respond_error(wsi, pss, 500, "%s could not be made", uri);
        }
        return respond(wsi, pss, (unsigned)status, page->content_type,
                       net->page.data != NULL ? (const char *)net->page.data : "", net->page.len,
                       NULL, head);
    }
    if (strcmp(uri, PDK_WS_PADDOCK_PATH) == 0) {
        return respond_error(
            wsi, pss, 426, "%s takes a WebSocket with the subprotocol %s (Sec-WebSocket-Protocol)",
            uri, PDK_WS_PADDOCK_SUBPROTOCOL);
    }
    return serve_static(net, wsi, pss, uri);
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                         size_t len)
{
    if (reason == LWS_CALLBACK_OPENSSL_PERFORM_CLIENT_CERT_VERIFICATION) {
        /* OpenSSL's verdict on a client certificate comes here (protocol
         * 0) as len, and what this returns replaces it: libwebsockets'
         * default of 0 would let any certificate through, even one from
         * another CA. A chain that did not verify fails the handshake. */
        if (len != 0) {
            return 0;
        }
        X509_STORE_CTX *x509_ctx = user;
        pdk_net_log("refusing a TLS client certificate: %s",
                    X509_verify_cert_error_string(X509_STORE_CTX_get_error(x509_ctx)));
        return 1;
    }
    struct lws_context *ctx = lws_get_context(wsi);
    http_listener *net = ctx != NULL ? lws_context_user(ctx) : NULL;
    session *pss = user;
    (void)len;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        if (net == NULL || net->closing) {
            return -1;
        }
        return on_http(net, wsi, pss, in != NULL ? (const char *)in : "/");
    case LWS_CALLBACK_HTTP_BODY:
        return 0; /* a body the request should not have had: read and ignored */
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (pss == NULL || pss->body == NULL) {
            return 0;
        }
        if (lws_write(wsi, (unsigned char *)pss->body + LWS_PRE, pss->body_len,
                      LWS_WRITE_HTTP_FINAL) < 0) {
            return -1;
        }
        free(pss->body);
        pss->body = NULL;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_ESTABLISHED: {
        /* A WebSocket that offered no subprotocol lands here. */
        static const char why[] = "no subprotocol: offer " PDK_WS_PADDOCK_SUBPROTOCOL
                                  " (at " PDK_WS_PADDOCK_PATH ") or one the server registered";
        pdk_net_log("refusing a WebSocket: %s", why);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_PROTOCOL_ERR, (unsigned char *)why, sizeof why - 1);
        return -1;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_WSI_DESTROY:
        if (pss != NULL) {
            free(pss->body);
            pss->body = NULL;
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- housekeeping timer ------------------------------------------------- */

static void on_timer(uv_timer_t *timer)
{
    http_listener *net = timer->data;
    bool pending = false;
    uint64_t now = uv_now(net->loop);
    for (ws_conn *conn = net->conns; conn != NULL; conn = conn->next) {
        if (conn->base.state == PDK_CONN_OPEN && conn->out.over_soft) {
            check_soft(conn);
            pending = pending || (conn->base.state == PDK_CONN_OPEN && conn->out.over_soft);
        }
        char msg[256];
        if (pdk_conn_partial_late(&conn->base, now, msg, sizeof msg)) {
            in_release(conn);
            conn_refuse(conn, PDK_ERR_TIMEOUT, LWS_CLOSE_STATUS_POLICY_VIOLATION, msg);
        } else if (conn->base.state == PDK_CONN_OPEN && conn->base.partial_since_ms != 0) {
            pending = true;
        }
    }
    if (!pending) {
        uv_timer_stop(timer);
        net->timer_running = false;
    }
}

static void ensure_timer(http_listener *net)
{
    if (net->timer_running || net->closing) {
        return;
    }
    if (uv_timer_start(&net->timer, on_timer, HOUSEKEEPING_MS, HOUSEKEEPING_MS) == 0) {
        net->timer_running = true;
    }
}

static void on_handle_closed(uv_handle_t *handle)
{
    http_listener *net = handle->data;
    if (--net->handles == 0) {
        if (net->on_closed != NULL) {
            net->on_closed(net->closed_ud);
        }
        pdk_buf_free(&net->page);
        free(net);
    }
}

/* With a foreign loop, lws_context_destroy closes the connections and
 * starts closing libwebsockets' own handles, some of them only from the
 * others' close callbacks; a second call, once none is left on the loop,
 * frees the context. Only then are the loop's other handles safe to close
 * wholesale, and the event library safe to unload. */
/* Which handles on the loop are libwebsockets' own: their data pointers,
 * taken from the handles its context added (its per-thread idle and
 * timers all point at its per-thread state). */
typedef struct handle_census {
    uv_handle_t *before[64];
    size_t n_before;
    bool overflow;
} handle_census;

static void census_before(uv_handle_t *h, void *arg)
{
    handle_census *c = arg;
    if (c->n_before < sizeof c->before / sizeof c->before[0]) {
        c->before[c->n_before++] = h;
    } else {
        c->overflow = true;
    }
}

static void census_after(uv_handle_t *h, void *arg)
{
    http_listener *net = arg;
    for (size_t i = 0; i < net->census->n_before; i++) {
        if (net->census->before[i] == h) {
            return;
        }
    }
    for (size_t i = 0; i < net->n_lws_data; i++) {
        if (net->lws_data[i] == h->data) {
            return;
        }
    }
    if (net->n_lws_data < sizeof net->lws_data / sizeof net->lws_data[0]) {
        net->lws_data[net->n_lws_data++] = h->data;
    }
}

static void census_alive(uv_handle_t *h, void *arg)
{
    http_listener *net = arg;
    for (size_t i = 0; i < net->n_lws_data; i++) {
        if (net->lws_data[i] == h->data && h != (uv_handle_t *)&net->timer &&
            h != (uv_handle_t *)&net->gone_check) {
            net->lws_alive = true;
        }
    }
}

static void on_gone_check(uv_idle_t *check)
{
    http_listener *net = check->data;
    net->lws_alive = false;
    uv_walk(net->loop, census_alive, net);
    if (net->lws_alive) {
        return;
    }
    /* Its handles are gone: the second call frees the context (and unloads
     * the event library, whose code their close callbacks ran). */
    lws_context_destroy(net->ctx);
    net->ctx = NULL;
    uv_idle_stop(check);
    uv_close((uv_handle_t *)&net->timer, on_handle_closed);
    uv_close((uv_handle_t *)&net->gone_check, on_handle_closed);
}

/* ---- listening ---------------------------------------------------------- */

static int http_port(const pdk_listener *base)
{
    return ((const http_listener *)base)->port;
}

/* libwebsockets closes every connection (on_close runs for each, from inside
 * this call) and then its own handles on the loop; once they are gone the
 * listener closes its own, calls on_closed and is freed. */
static void http_listener_close(pdk_listener *base)
{
    http_listener *net = (http_listener *)base;
    if (net->closing) {
        return;
    }
    net->closing = true;
    uv_timer_stop(&net->timer);
    net->timer_running = false;
    for (ws_conn *conn = net->conns; conn != NULL; conn = conn->next) {
        conn->base.state = PDK_CONN_CLOSED;
    }
    lws_context_destroy(net->ctx);
    uv_idle_start(&net->gone_check, on_gone_check);
}

/* Binds addr once with the options libwebsockets uses, so that an address
 * in use or not of this host is refused here, with the reason: a context
 * whose listener failed to bind cannot be released cleanly on a foreign
 * loop (libwebsockets unloads its event library while its handles still
 * close). */
static bool check_bind(const struct sockaddr_storage *addr, const char *listen, char *err,
                       size_t err_len)
{
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        pdk_net_set_err(err, err_len, "listen on %s: socket: %s", listen, strerror(errno));
        return false;
    }
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = addr->ss_family == AF_INET6 ? (socklen_t)sizeof(struct sockaddr_in6)
                                                : (socklen_t)sizeof(struct sockaddr_in);
    int r = bind(fd, (const struct sockaddr *)addr, len);
    int bind_errno = errno;
    close(fd);
    if (r != 0) {
        pdk_net_set_err(err, err_len, "listen on %s: %s", listen, strerror(bind_errno));
        return false;
    }
    return true;
}

static const pdk_listener_ops http_listener_ops = {
    .port = http_port,
    .close = http_listener_close,
};

/* Fills net->protocols: HTTP first (it also takes a WebSocket that offered
 * no subprotocol, to refuse it by name), Paddock's, then every handler's
 * names; false with err when a handler is malformed. */
static bool build_protocols(http_listener *net, char *err, size_t err_len)
{
    size_t n = 0;
    net->protocols[n++] = (struct lws_protocols){
        .name = "http", .callback = http_callback, .per_session_data_size = sizeof(session)};
    net->protocols[n++] = (struct lws_protocols){.name = PDK_WS_PADDOCK_SUBPROTOCOL,
                                                 .callback = ws_callback,
                                                 .per_session_data_size = sizeof(session),
                                                 .rx_buffer_size = RX_CHUNK_BYTES};
    for (size_t h = 0; h < net->n_handlers; h++) {
        const pdk_ws_handler *handler = &net->handlers[h];
        size_t names = 0;
        for (size_t i = 0; i < PDK_WS_MAX_SUBPROTOCOLS && handler->subprotocols[i] != NULL; i++) {
            const char *name = handler->subprotocols[i];
            for (size_t k = 1; k < n; k++) {
                if (strcmp(net->protocols[k].name, name) == 0) {
                    pdk_net_set_err(err, err_len,
                                    "WebSocket subprotocol \"%s\" is registered twice", name);
                    return false;
                }
            }
            if (name[0] == '\0' || strlen(name) >= sizeof(((ws_conn *)0)->subprotocol)) {
                pdk_net_set_err(err, err_len,
                                "WebSocket handler %zu: subprotocol %zu is empty or longer than "
                                "63 bytes",
                                h, i);
                return false;
            }
            net->protocols[n++] = (struct lws_protocols){.name = name,
                                                         .callback = ws_callback,
                                                         .per_session_data_size = sizeof(session),
                                                         .rx_buffer_size = RX_CHUNK_BYTES,
                                                         .user = (void *)handler};
            names++;
        }
        if (names == 0) {
            pdk_net_set_err(err, err_len, "WebSocket handler %zu names no subprotocol", h);
            return false;
        }
    }
    net->protocols[n] = (struct lws_protocols){0};
    return true;
}

pdk_error pdk_http_listen(uv_loop_t *loop, const pdk_http_config *config,
                          const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud,
                          pdk_listener **out, char *err, size_t err_len)
{
    pdk_net_set_err(err, err_len, "ok");
    if (out != NULL) {
        *out = NULL;
    }
    if (loop == NULL || config == NULL || config->listen == NULL || cb == NULL || out == NULL) {
        pdk_net_set_err(err, err_len,
                        "pdk_http_listen: loop, config, config->listen, cb and out are required");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_net_limits lim = limits != NULL ? *limits : pdk_net_limits_default();
    if (!pdk_net_limits_check(&lim, err, err_len)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (config->n_handlers > PDK_WS_MAX_HANDLERS ||
        (config->n_handlers > 0 && config->handlers == NULL)) {
        pdk_net_set_err(err, err_len, "pdk_http_listen: %zu WebSocket handlers, at most %d",
                        config->n_handlers, PDK_WS_MAX_HANDLERS);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (config->n_pages > PDK_HTTP_MAX_PAGES || (config->n_pages > 0 && config->pages == NULL)) {
        pdk_net_set_err(err, err_len, "pdk_http_listen: %zu pages, at most %d", config->n_pages,
                        PDK_HTTP_MAX_PAGES);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t request_bytes =
        config->max_request_bytes != 0 ? config->max_request_bytes : REQUEST_BYTES_DEFAULT;
    if (request_bytes < 256 || request_bytes > REQUEST_BYTES_MAX) {
        pdk_net_set_err(err, err_len, "max request size %zu bytes is outside 256..%d",
                        request_bytes, REQUEST_BYTES_MAX);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    struct sockaddr_storage addr;
    if (!pdk_net_parse_host_port(config->listen, &addr, err, err_len)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    char iface[INET6_ADDRSTRLEN] = "";
    int port;
    if (addr.ss_family == AF_INET6) {
        uv_ip6_name((const struct sockaddr_in6 *)&addr, iface, sizeof iface);
        port = ntohs(((const struct sockaddr_in6 *)&addr)->sin6_port);
    } else {
        uv_ip4_name((const struct sockaddr_in *)&addr, iface, sizeof iface);
        port = ntohs(((const struct sockaddr_in *)&addr)->sin_port);
    }
    if (!check_bind(&addr, config->listen, err, err_len)) {
        return PDK_ERR_NET;
    }
    http_listener *net = calloc(1, sizeof *net);
    if (net == NULL) {
        pdk_net_set_err(err, err_len, "listen on %s: out of memory", config->listen);
        return PDK_ERR_NO_MEMORY;
    }
    if (config->web_root != NULL && realpath(config->web_root, net->web_root) == NULL) {
        pdk_net_set_err(err, err_len, "web root \"%s\": %s", config->web_root, strerror(errno));
        free(net);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_listener_init(&net->base, &http_listener_ops, &lim, cb, ud);
    net->loop = loop;
    for (size_t i = 0; i < config->n_pages; i++) {
        net->pages[i] = config->pages[i];
    }
    net->n_pages = config->n_pages;
    net->pages_ud = config->pages_ud;
    net->n_handlers = config->n_handlers;
    for (size_t i = 0; i < config->n_handlers; i++) {
        net->handlers[i] = config->handlers[i];
    }
    if (!build_protocols(net, err, err_len)) {
        free(net);
        return PDK_ERR_INVALID_ARGUMENT;
    }

    lws_set_log_level(LLL_ERR | LLL_WARN, on_lws_log);
    void *foreign_loops[1] = {loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.foreign_loops = foreign_loops;
    info.iface = iface;
    info.port = port;
    info.protocols = net->protocols;
    info.user = net;
    info.server_string = "paddockd";
    info.max_http_header_data = (unsigned short)request_bytes;
    info.timeout_secs = 10;
    if (config->tls_cert_file != NULL) {
        /* libwebsockets' own OpenSSL, on the same files as the TCP
         * listener, with its floor: TLS 1.2 at least (RFC 8996), no
         * renegotiation or compression. */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = config->tls_cert_file;
        info.ssl_private_key_filepath = config->tls_key_file;
        info.ssl_options_set =
            SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION;
        /* libwebsockets asks for a client certificate only when one is
         * required: without --tls-require-client-cert none is asked for. */
        if (config->tls_client_ca_file != NULL && config->tls_require_client_cert) {
            info.ssl_ca_filepath = config->tls_client_ca_file;
            info.options |= LWS_SERVER_OPTION_REQUIRE_VALID_OPENSSL_CLIENT_CERT;
        }
    }
    handle_census census = {0};
    uv_walk(loop, census_before, &census);
    net->ctx = lws_create_context(&info);
    if (net->ctx == NULL) {
        pdk_net_set_err(err, err_len,
                        "listen on %s: libwebsockets could not start (its error is logged above: "
                        "the address may be in use, or its libuv event library "
                        "libwebsockets-evlib_uv missing)",
                        config->listen);
        free(net);
        return PDK_ERR_NET;
    }
    if (!census.overflow) {
        net->census = &census;
        uv_walk(loop, census_after, net);
        net->census = NULL;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(net->ctx, "default");
    if (vh == NULL) {
        /* It could bind a moment ago (check_bind): another process took
         * the address since. The context is left as it is (see
         * check_bind); the app stops. */
        pdk_net_set_err(err, err_len,
                        "listen on %s: libwebsockets could not bind it (taken since it was "
                        "checked)",
                        config->listen);
        return PDK_ERR_NET;
    }
    net->port = lws_get_vhost_listen_port(vh);
    uv_timer_init(loop, &net->timer);
    net->timer.data = net;
    uv_idle_init(loop, &net->gone_check);
    net->gone_check.data = net;
    net->handles = 2;
    net->on_closed = config->on_closed;
    net->closed_ud = config->on_closed_ud;
    pdk_net_log("%s on %s:%d (web root %s, max message %zu bytes, %d WebSocket "
                "connections, %d from one address)",
                config->tls_cert_file != NULL ? "HTTPS and WSS" : "HTTP and WebSocket", iface,
                net->port, net->web_root[0] != '\0' ? net->web_root : "none", lim.max_frame_bytes,
                lim.max_connections, lim.max_connections_per_host);
    *out = &net->base;
    return PDK_OK;
}
