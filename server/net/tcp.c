/* tcp: Paddock's TCP transport on libuv. It owns the listener, every
 * connection's life cycle (open, closing with flush and linger, closed), the
 * varint length prefix in both directions (the inbound splitter, and the
 * prefix written in front of each queued frame, by outq), when the bounded
 * outbound queue (outq.c, shared with the WebSocket transport) is handed to
 * libuv, and, on a TLS listener, passing the bytes through each
 * connection's TLS session (tls.c) on their way in and out. Arguments,
 * frame shape and decoding are transport.c's. */
#define _POSIX_C_SOURCE 200809L

#include "tcp.h"
#include "outq.h"
#include "tls.h"
#include "transport_impl.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_CHUNK_BYTES ((size_t)64 * 1024)
#define WRITE_BATCH 64     /* buffers per uv_write */
#define HOUSEKEEPING_MS 50 /* soft-limit and close deadlines */
#define LISTEN_BACKLOG 511 /* as Redis and nginx */
#define KEEPALIVE_S 60
/* A TLS ClientHello record starts with these two bytes (RFC 8446 5.1: the
 * handshake content type, then the legacy version's major number, 3). A
 * Paddock frame starts with its length and then the tag of Frame's field
 * 1, 0x08, so a 22-byte frame is told apart by the second byte. */
#define TLS_RECORD_HANDSHAKE 0x16
#define TLS_RECORD_VERSION_MAJOR 0x03

/* One uv_write of up to WRITE_BATCH items, or on TLS of the ciphertext of
 * count items (cipher, which may also carry handshake records); all are
 * freed with it. */
typedef struct write_req {
    uv_write_t req;
    pdk_out_item *items;
    uint64_t count;
    uint64_t bytes; /* their wire bytes (prefixes included, before TLS) */
    uint8_t *cipher;
} write_req;

typedef struct tcp_listener tcp_listener;

/* base.state: open, closing (flushing, then shutdown; input is read and
 * discarded), closed (uv_close called; freed in its callback). */
typedef struct tcp_conn {
    pdk_conn base; /* first: a pdk_conn * is a tcp_conn * */
    uv_tcp_t tcp;  /* tcp.data is the conn */
    uv_shutdown_t shutdown_req;
    tcp_listener *net; /* the listener that accepted it */
    struct tcp_conn *prev;
    struct tcp_conn *next;
    bool visible; /* on_open ran, so on_close will */
    bool counted; /* counts toward max_connections */
    bool reading;
    bool eof_seen;
    bool shutdown_requested;
    bool shutdown_done;
    uint64_t close_deadline_ms;
    pdk_buf in;   /* bytes read and not yet split into frames */
    size_t refused_want; /* on_alloc could not hold this much for a partial frame */
    pdk_outq out; /* not yet handed to libuv: may be replaced or dropped */
    int writes_in_flight;
    /* On a TLS listener: the session (NULL after a plaintext peer was
     * refused in clear), whether the first bytes were looked at, and
     * whether the session failed (nothing more is encrypted). */
    pdk_tls_session *tls;
    bool tls_checked;
    bool tls_failed;
} tcp_conn;

struct tcp_listener {
    pdk_listener base; /* first: a pdk_listener * is a tcp_listener * */
    uv_loop_t *loop;
    uv_tcp_t listener; /* data is the tcp_listener */
    uv_timer_t timer;  /* data is the tcp_listener; runs only while a deadline is pending */
    bool timer_running;
    int handles; /* handles not yet through their close callback */
    bool closing;
    int port;
    tcp_conn *conns;
    int n_counted;
    pdk_tls *tls; /* NULL: plain TCP; not owned, outlives the listener */
    uint8_t scratch[READ_CHUNK_BYTES]; /* where a closing conn's input is discarded */
};

static uint64_t seconds_to_ms(double s)
{
    return (uint64_t)(s * 1000.0 + 0.5);
}

/* ---- handles and freeing ------------------------------------------------ */

static void net_handle_gone(tcp_listener *net)
{
    PDK_ASSERT(net->handles > 0);
    net->handles--;
    if (net->closing && net->handles == 0) {
        free(net);
    }
}

static void on_net_handle_closed(uv_handle_t *handle)
{
    net_handle_gone(handle->data);
}

/* Drops the input buffer and its place in the partial-frame budget. */
static void in_release(tcp_conn *conn)
{
    pdk_conn_partial_end(&conn->base);
    pdk_buf_free(&conn->in);
}

static void on_conn_closed(uv_handle_t *handle)
{
    tcp_conn *conn = handle->data;
    tcp_listener *net = conn->net;
    PDK_ASSERT(conn->writes_in_flight == 0);
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
    if (conn->visible && net->base.cb.on_close != NULL) {
        net->base.cb.on_close(&conn->base, net->base.ud);
    }
    pdk_outq_free(&conn->out);
    in_release(conn);
    pdk_tls_session_free(conn->tls);
    free(conn);
    net_handle_gone(net);
}

/* Closes the handle now; unsent frames are dropped. */
static void conn_close_now(tcp_conn *conn)
{
    if (conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    conn->base.state = PDK_CONN_CLOSED;
    uv_close((uv_handle_t *)&conn->tcp, on_conn_closed);
}

__attribute__((format(printf, 2, 3))) static void conn_abort(tcp_conn *conn, const char *fmt, ...)
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
    conn_close_now(conn);
}

static void ensure_timer(tcp_listener *net);

/* ---- outbound ----------------------------------------------------------- */

static size_t conn_queued(const tcp_conn *conn)
{
    return conn->out.bytes + uv_stream_get_write_queue_size((const uv_stream_t *)&conn->tcp);
}

static void on_write(uv_write_t *req, int status);

/* Hands the ciphertext the TLS session has waiting to libuv, together with
 * the count items (bytes of them) it encrypts (items may be NULL:
 * handshake records, an alert, a close_notify). */
static void tls_send_pending(tcp_conn *conn, pdk_out_item *items, uint64_t count, uint64_t bytes)
{
    if (conn->base.state == PDK_CONN_CLOSED) {
        pdk_out_items_free(items);
        return;
    }
    size_t len = 0;
    uint8_t *cipher = pdk_tls_session_take(conn->tls, &len);
    if (cipher == NULL) {
        pdk_out_items_free(items);
        if (pdk_tls_session_pending(conn->tls) > 0) {
            conn_abort(conn, "out of memory queueing a TLS write");
        }
        return;
    }
    write_req *wr = calloc(1, sizeof *wr);
    if (wr == NULL) {
        free(cipher);
        pdk_out_items_free(items);
        conn_abort(conn, "out of memory queueing a write");
        return;
    }
    wr->items = items;
    wr->count = count;
    wr->bytes = bytes;
    wr->cipher = cipher;
    uv_buf_t buf = uv_buf_init((char *)cipher, (unsigned)len);
    int r = uv_write(&wr->req, (uv_stream_t *)&conn->tcp, &buf, 1, on_write);
    if (r < 0) {
        pdk_out_items_free(wr->items);
        free(wr->cipher);
        free(wr);
        conn_abort(conn, "write failed: %s", uv_strerror(r));
        return;
    }
    conn->writes_in_flight++;
}

/* flush on TLS: nothing is encrypted before the handshake has finished (a
 * refusal queued by then, such as BUSY, waits for it); then every pending
 * frame goes into one write, under the same rule as plain TCP. */
static void flush_tls(tcp_conn *conn)
{
    if (conn->tls_failed) {
        pdk_out_item *item;
        while ((item = pdk_outq_pop(&conn->out)) != NULL) {
            pdk_out_items_free(item);
        }
        return;
    }
    uv_stream_t *stream = (uv_stream_t *)&conn->tcp;
    if (conn->out.head == NULL || !pdk_tls_session_ready(conn->tls) ||
        (conn->base.state != PDK_CONN_CLOSING && uv_stream_get_write_queue_size(stream) != 0)) {
        return;
    }
    pdk_out_item *items = NULL;
    pdk_out_item **tail = &items;
    uint64_t count = 0;
    uint64_t bytes = 0;
    char why[256];
    while (conn->out.head != NULL) {
        pdk_out_item *item = pdk_outq_pop(&conn->out);
        *tail = item;
        tail = &item->next;
        count++;
        bytes += item->len;
        if (!pdk_tls_session_write(conn->tls, pdk_out_item_wire(&conn->out, item), item->len, why,
                                   sizeof why)) {
            pdk_out_items_free(items);
            conn->tls_failed = true;
            conn_abort(conn, "TLS write failed: %s", why);
            return;
        }
    }
    tls_send_pending(conn, items, count, bytes);
}

/* Hands pending frames to libuv. While open, only when libuv has written
 * everything it was given: what waits here can still be replaced (latest
 * wins), what libuv holds cannot. A closing conn hands over everything. */
static void flush(tcp_conn *conn)
{
    if (conn->tls != NULL) {
        if (conn->base.state != PDK_CONN_CLOSED) {
            flush_tls(conn);
        }
        return;
    }
    uv_stream_t *stream = (uv_stream_t *)&conn->tcp;
    while (conn->out.head != NULL && conn->base.state != PDK_CONN_CLOSED &&
           (conn->base.state == PDK_CONN_CLOSING || uv_stream_get_write_queue_size(stream) == 0)) {
        write_req *wr = calloc(1, sizeof *wr);
        if (wr == NULL) {
            conn_abort(conn, "out of memory queueing a write");
            return;
        }
        uv_buf_t bufs[WRITE_BATCH];
        unsigned n = 0;
        pdk_out_item **tail = &wr->items;
        while (conn->out.head != NULL && n < WRITE_BATCH) {
            pdk_out_item *item = pdk_outq_pop(&conn->out);
            bufs[n++] =
                uv_buf_init((char *)pdk_out_item_wire(&conn->out, item), (unsigned)item->len);
            wr->bytes += item->len;
            *tail = item;
            tail = &item->next;
        }
        wr->count = n;
        int r = uv_write(&wr->req, stream, bufs, n, on_write);
        if (r < 0) {
            pdk_out_items_free(wr->items);
            free(wr);
            conn_abort(conn, "write failed: %s", uv_strerror(r));
            return;
        }
        conn->writes_in_flight++;
    }
}

/* Redis' output-buffer rule: above the soft limit for out_soft_seconds
 * without a break closes the connection. */
static void check_soft(tcp_conn *conn)
{
    if (conn->base.state != PDK_CONN_OPEN) {
        return;
    }
    tcp_listener *net = conn->net;
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

static void on_shutdown(uv_shutdown_t *req, int status)
{
    tcp_conn *conn = req->handle->data;
    if (conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    if (status < 0) {
        conn_close_now(conn);
        return;
    }
    conn->shutdown_done = true;
    if (conn->eof_seen) {
        conn_close_now(conn);
    }
    /* Otherwise keep discarding input until the peer's EOF or the deadline,
     * so closing with unread input does not reset the connection before the
     * peer has read our last frames. */
}

static void request_shutdown(tcp_conn *conn)
{
    if (conn->base.state != PDK_CONN_CLOSING || conn->shutdown_requested ||
        conn->out.head != NULL) {
        return;
    }
    conn->shutdown_requested = true;
    if (conn->tls != NULL && !conn->tls_failed) {
        pdk_tls_session_shutdown(conn->tls);
        tls_send_pending(conn, NULL, 0, 0);
        if (conn->base.state == PDK_CONN_CLOSED) {
            return;
        }
    }
    int r = uv_shutdown(&conn->shutdown_req, (uv_stream_t *)&conn->tcp, on_shutdown);
    if (r < 0) {
        conn_close_now(conn);
    }
}

static void on_write(uv_write_t *req, int status)
{
    write_req *wr = (write_req *)req;
    tcp_conn *conn = req->handle->data;
    conn->writes_in_flight--;
    if (status == 0) {
        conn->base.frames_out += wr->count;
        conn->base.bytes_out += wr->bytes;
    }
    pdk_out_items_free(wr->items);
    free(wr->cipher);
    free(wr);
    if (conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    if (status < 0) {
        conn_abort(conn, "write failed: %s", uv_strerror(status));
        return;
    }
    flush(conn);
    if (conn->base.state == PDK_CONN_CLOSING) {
        request_shutdown(conn);
    } else {
        check_soft(conn);
    }
}

/* ---- inbound ------------------------------------------------------------ */

/* The bytes the frame under way in conn->in takes with its prefix, or 0
 * while its prefix is not whole. */
static size_t partial_total(const tcp_conn *conn)
{
    uint64_t frame_len = 0;
    int n = pdk_wire_varint_get(conn->in.data, conn->in.len, &frame_len);
    return n > 0 ? (size_t)n + (size_t)frame_len : 0;
}

/* The buffer for the next read. An empty one is a read chunk, gone again
 * when the read held only whole frames. A partial frame's buffer grows
 * geometrically but never past the frame's declared end, so a peer that
 * declares a large frame and sends a few bytes gets no more than it sent
 * plus a read chunk; the growth is held in the listener's partial-frame
 * budget first, and refused (on_read) when the budget would pass. */
static bool in_reserve(tcp_conn *conn)
{
    if (conn->in.len == conn->in.cap) {
        size_t want = conn->in.len + READ_CHUNK_BYTES;
        size_t cap = want;
        if (conn->in.len > 0) {
            size_t total = partial_total(conn);
            if (total > conn->in.len && total < want) {
                want = total;
            }
            cap = conn->in.cap * 2 > want ? conn->in.cap * 2 : want;
            if (total > conn->in.len && cap > total) {
                cap = total;
            }
            if (!pdk_conn_partial_hold(&conn->base, cap)) {
                conn->refused_want = cap;
                return false;
            }
        }
        uint8_t *data = realloc(conn->in.data, cap);
        if (data == NULL) {
            return false;
        }
        conn->in.data = data;
        conn->in.cap = cap;
    }
    return true;
}

/* On TLS every read lands in the listener's scratch buffer and goes
 * straight into the connection's session; the plaintext it gives back is
 * what in_reserve makes room for. */
static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    tcp_conn *conn = handle->data;
    if (conn->base.state != PDK_CONN_OPEN || conn->tls != NULL) {
        *buf = uv_buf_init((char *)conn->net->scratch, (unsigned)sizeof conn->net->scratch);
        return;
    }
    if (!in_reserve(conn)) {
        *buf = uv_buf_init(NULL, 0); /* on_read gets UV_ENOBUFS */
        return;
    }
    size_t room = conn->in.cap - conn->in.len;
    if (room > (size_t)INT32_MAX) {
        room = (size_t)INT32_MAX;
    }
    *buf = uv_buf_init((char *)conn->in.data + conn->in.len, (unsigned)room);
}

static void start_reading(tcp_conn *conn);
static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

static void conn_begin_close(tcp_conn *conn)
{
    if (conn->base.state != PDK_CONN_OPEN) {
        return;
    }
    tcp_listener *net = conn->net;
    conn->base.state = PDK_CONN_CLOSING;
    conn->close_deadline_ms =
        uv_now(net->loop) + seconds_to_ms(net->base.limits.close_linger_seconds);
    ensure_timer(net);
    if (!conn->eof_seen) {
        start_reading(conn);
    }
    flush(conn);
    request_shutdown(conn);
}

static void start_reading(tcp_conn *conn)
{
    if (conn->reading || conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    int r = uv_read_start((uv_stream_t *)&conn->tcp, on_alloc, on_read);
    if (r < 0) {
        conn_abort(conn, "cannot read: %s", uv_strerror(r));
        return;
    }
    conn->reading = true;
}

static void stop_reading(tcp_conn *conn)
{
    if (conn->reading) {
        uv_read_stop((uv_stream_t *)&conn->tcp);
        conn->reading = false;
    }
}

/* After a read left part of a frame in conn->in: its clock starts (anew
 * when the read ended another frame), a buffer much larger than the part
 * shrinks, and what stays is held in the budget or refused. */
static void hold_partial(tcp_conn *conn, bool new_frame)
{
    if (new_frame) {
        pdk_conn_partial_end(&conn->base);
    }
    size_t total = partial_total(conn);
    uint64_t frame_len = 0;
    int n = pdk_wire_varint_get(conn->in.data, conn->in.len, &frame_len);
    pdk_conn_partial_note(&conn->base, uv_now(conn->net->loop), n > 0 ? (size_t)frame_len : 0,
                          n > 0 ? conn->in.len - (size_t)n : conn->in.len);
    ensure_timer(conn->net);
    /* Half the buffer idle: keep what arrived, rounded up to a page. */
    if (conn->in.cap > 2 * conn->in.len + 4096) {
        size_t cap = (conn->in.len + 4095) & ~(size_t)4095;
        if (total > conn->in.len && cap > total) {
            cap = total;
        }
        uint8_t *data = realloc(conn->in.data, cap);
        if (data != NULL) {
            conn->in.data = data;
            conn->in.cap = cap;
        }
    }
    if (!pdk_conn_partial_hold(&conn->base, conn->in.cap)) {
        size_t want = conn->in.cap;
        conn->in.len = 0;
        pdk_conn_partial_refuse(&conn->base, want);
        in_release(conn);
    }
}

/* Splits conn->in into whole frames at their varint prefixes and delivers
 * them. The app may close this connection, or the whole listener, from
 * on_frame: the loop re-checks the state after every frame, and the conn's
 * memory lives until its close callback. The app may also hold it
 * (pdk_conn_hold): the rest stays in conn->in, unread input stays in the
 * kernel, until tcp_resume. */
static void process_input(tcp_conn *conn)
{
    tcp_listener *net = conn->net;
    size_t off = 0;
    char msg[160];
    while (conn->base.state == PDK_CONN_OPEN && !conn->base.held && off < conn->in.len) {
        const uint8_t *p = conn->in.data + off;
        size_t avail = conn->in.len - off;
        uint64_t frame_len = 0;
        int n = pdk_wire_varint_get(p, avail, &frame_len);
        if (n < 0) {
            pdk_conn_fail(&conn->base, 0, PDK_ERR_PROTOCOL,
                          "malformed frame length: the varint prefix runs past 10 bytes");
            break;
        }
        if (n == 0) {
            break;
        }
        if (frame_len > net->base.limits.max_frame_bytes) {
            /* Refused on the prefix alone: the body is never buffered. */
            snprintf(msg, sizeof msg, "frame of %" PRIu64 " bytes exceeds the limit of %zu bytes",
                     frame_len, net->base.limits.max_frame_bytes);
            pdk_conn_fail(&conn->base, 0, PDK_ERR_FRAME_TOO_LARGE, msg);
            break;
        }
        if (avail - (size_t)n < frame_len) {
            break;
        }
        off += (size_t)n + (size_t)frame_len;
        conn->base.bytes_in += (size_t)n; /* the prefix: deliver counts the frame */
        pdk_conn_deliver(&conn->base, p + n, (size_t)frame_len);
    }
    if (conn->base.state != PDK_CONN_OPEN) {
        conn->in.len = 0;
    } else if (off > 0) {
        memmove(conn->in.data, conn->in.data + off, conn->in.len - off);
        conn->in.len -= off;
    }
    if (conn->base.state == PDK_CONN_OPEN && conn->base.held) {
        /* What is kept back is at most one read past a frame (a chunk, or
         * a frame of max_frame_bytes), and the hold lasts about a tick: the
         * partial-frame clock and budget are left as they were. */
        stop_reading(conn);
        if (conn->in.len == 0) {
            in_release(conn);
        }
        return;
    }
    if (conn->in.len == 0) {
        /* An idle connection holds no read buffer (1024 of them would
         * otherwise pin 64-128 MiB). */
        in_release(conn);
        return;
    }
    hold_partial(conn, off > 0);
}

/* The peer has closed its sending side: the socket's EOF, or TLS's
 * close_notify (after which nothing more can be read either). Reading has
 * stopped. */
static void peer_eof(tcp_conn *conn)
{
    conn->eof_seen = true;
    if (conn->base.state == PDK_CONN_CLOSING) {
        if (conn->shutdown_done) {
            conn_close_now(conn);
        }
        return;
    }
    if (conn->base.state != PDK_CONN_OPEN) {
        return;
    }
    if (conn->in.len > 0) {
        pdk_net_log("%s (conn %" PRIu64 ") closed its side mid-frame, %zu bytes unread",
                    conn->base.peer, conn->base.id, conn->in.len);
        in_release(conn);
    } else if (conn->net->base.cb.on_eof != NULL &&
               conn->net->base.cb.on_eof(&conn->base, conn->net->base.ud)) {
        return; /* the app closes it once its replies are out */
    }
    conn_begin_close(conn);
}

/* A TLS connection's len bytes from the socket: the first of them must
 * open a TLS handshake (a peer speaking plain Paddock gets an Error frame
 * in clear saying so); then they go through the session, whose plaintext
 * is split into frames as plain TCP's bytes are. A closing connection
 * still completes its handshake, so that a refusal queued before it (BUSY)
 * reaches the peer, and discards the plaintext. */
static void tls_on_read(tcp_conn *conn, const uint8_t *data, size_t len)
{
    if (!conn->tls_checked) {
        conn->tls_checked = true;
        if (data[0] != TLS_RECORD_HANDSHAKE || (len >= 2 && data[1] != TLS_RECORD_VERSION_MAJOR)) {
            pdk_tls_session_free(conn->tls);
            conn->tls = NULL;
            pdk_conn_fail(&conn->base, 0, PDK_ERR_PROTOCOL,
                          "this port speaks TLS and the first bytes were not a TLS handshake: "
                          "connect with TLS (paddock --tls-ca FILE, docs/security.md)");
            return;
        }
    }
    if (conn->tls_failed) {
        return;
    }
    if (!pdk_tls_session_feed(conn->tls, data, len)) {
        conn_abort(conn, "out of memory buffering TLS input");
        return;
    }
    bool was_ready = pdk_tls_session_ready(conn->tls);
    char why[320];
    for (;;) {
        uint8_t *dst = conn->net->scratch;
        size_t cap = sizeof conn->net->scratch;
        if (conn->base.state == PDK_CONN_OPEN) {
            if (!in_reserve(conn)) {
                size_t want = conn->refused_want;
                conn->refused_want = 0;
                if (want > 0) {
                    pdk_conn_partial_refuse(&conn->base, want);
                    in_release(conn);
                } else {
                    conn_abort(conn, "out of memory reading a frame");
                }
                return;
            }
            dst = conn->in.data + conn->in.len;
            cap = conn->in.cap - conn->in.len;
        } else if (conn->base.state == PDK_CONN_CLOSED) {
            return;
        }
        size_t got = 0;
        pdk_tls_read r = pdk_tls_session_read(conn->tls, dst, cap, &got, why, sizeof why);
        if (r == PDK_TLS_READ_DATA) {
            if (conn->base.state == PDK_CONN_OPEN) {
                conn->in.len += got;
                process_input(conn);
            }
            continue;
        }
        if (r == PDK_TLS_READ_FAILED) {
            /* The alert OpenSSL wrote goes out before the close. */
            pdk_net_log("closing %s (conn %" PRIu64 "): TLS %s failed: %s", conn->base.peer,
                        conn->base.id, was_ready ? "stream" : "handshake", why);
            tls_send_pending(conn, NULL, 0, 0);
            conn->tls_failed = true;
            if (conn->base.state == PDK_CONN_OPEN) {
                in_release(conn);
                conn_begin_close(conn);
            } else {
                flush(conn);
                request_shutdown(conn);
            }
            return;
        }
        if (r == PDK_TLS_READ_CLOSED) {
            /* close_notify: answered with ours once what is queued is out,
             * as the peer may wait for it before it closes the socket. */
            tls_send_pending(conn, NULL, 0, 0);
            stop_reading(conn);
            peer_eof(conn);
            return;
        }
        break; /* more to come */
    }
    if (!was_ready && pdk_tls_session_ready(conn->tls)) {
        pdk_tls_session_describe(conn->tls, why, sizeof why);
        pdk_net_log("%s (conn %" PRIu64 "): TLS handshake done: %s", conn->base.peer,
                    conn->base.id, why);
    }
    tls_send_pending(conn, NULL, 0, 0);
    flush(conn);
    if (conn->base.state == PDK_CONN_CLOSING) {
        request_shutdown(conn);
    }
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    tcp_conn *conn = stream->data;
    if (nread == 0 || conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    if (nread > 0 && conn->tls != NULL) {
        tls_on_read(conn, (const uint8_t *)buf->base, (size_t)nread);
        return;
    }
    if (conn->base.state == PDK_CONN_CLOSING) {
        if (nread > 0) {
            return; /* discarded */
        }
        stop_reading(conn);
        if (nread == UV_EOF) {
            peer_eof(conn);
        } else {
            conn_close_now(conn);
        }
        return;
    }
    if (nread == UV_ENOBUFS && conn->refused_want > 0) {
        /* on_alloc found the partial-frame budget full. */
        size_t want = conn->refused_want;
        conn->refused_want = 0;
        pdk_conn_partial_refuse(&conn->base, want);
        in_release(conn);
        return;
    }
    if (nread < 0) {
        stop_reading(conn);
        if (nread == UV_EOF) {
            peer_eof(conn);
        } else {
            conn_abort(conn, "read failed: %s", uv_strerror((int)nread));
        }
        return;
    }
    conn->in.len += (size_t)nread;
    process_input(conn);
}

/* ---- housekeeping timer ------------------------------------------------- */

static void on_timer(uv_timer_t *timer)
{
    tcp_listener *net = timer->data;
    uint64_t now = uv_now(net->loop);
    bool pending = false;
    for (tcp_conn *conn = net->conns; conn != NULL; conn = conn->next) {
        if (conn->base.state == PDK_CONN_CLOSING) {
            if (now >= conn->close_deadline_ms) {
                pdk_net_log("closing %s (conn %" PRIu64 "): flush and close did not finish within "
                            "%.1f s",
                            conn->base.peer, conn->base.id, net->base.limits.close_linger_seconds);
                conn_close_now(conn);
            } else {
                pending = true;
            }
            continue;
        }
        if (conn->base.state == PDK_CONN_OPEN && conn->out.over_soft) {
            check_soft(conn);
            pending = pending || (conn->base.state == PDK_CONN_OPEN && conn->out.over_soft);
        }
        if (conn->base.state == PDK_CONN_OPEN && conn->base.partial_since_ms != 0) {
            if (pdk_conn_partial_check(&conn->base, now)) {
                pending = true;
            } else if (conn->base.state != PDK_CONN_OPEN) {
                in_release(conn);
                pending = true; /* its close deadline */
            }
        }
    }
    if (!pending) {
        uv_timer_stop(timer);
        net->timer_running = false;
    }
}

static void ensure_timer(tcp_listener *net)
{
    if (net->timer_running || net->closing) {
        return;
    }
    if (uv_timer_start(&net->timer, on_timer, HOUSEKEEPING_MS, HOUSEKEEPING_MS) == 0) {
        net->timer_running = true;
    }
}

/* ---- connection ops ----------------------------------------------------- */

/* Offers one frame to the queue under the shared output policy, then hands
 * what it can to libuv. */
static pdk_error tcp_offer(pdk_conn *base, bool is_state, uint32_t key, const uint8_t *frame,
                           size_t len)
{
    tcp_conn *conn = (tcp_conn *)base;
    size_t in_flight = uv_stream_get_write_queue_size((const uv_stream_t *)&conn->tcp);
    size_t would_be = 0;
    switch (pdk_outq_offer(&conn->out, &conn->net->base.limits, in_flight, is_state, key, false,
                           frame, len, &would_be)) {
    case PDK_OUTQ_QUEUED:
        flush(conn);
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

static pdk_error tcp_send(pdk_conn *base, const uint8_t *frame, size_t len)
{
    return tcp_offer(base, false, 0, frame, len);
}

static pdk_error tcp_send_state(pdk_conn *base, uint32_t key, const uint8_t *frame, size_t len)
{
    return tcp_offer(base, true, key, frame, len);
}

static void tcp_send_last_and_close(pdk_conn *base, const uint8_t *frame, size_t len)
{
    tcp_conn *conn = (tcp_conn *)base;
    if (frame != NULL) {
        (void)pdk_outq_push(&conn->out, false, frame, len);
    }
    conn_begin_close(conn);
}

static void tcp_close(pdk_conn *base)
{
    conn_begin_close((tcp_conn *)base);
}

static size_t tcp_queued_bytes(const pdk_conn *base)
{
    return conn_queued((const tcp_conn *)base);
}

/* The app's hold is over: the frames kept back first, then the socket. */
static void tcp_resume(pdk_conn *base)
{
    tcp_conn *conn = (tcp_conn *)base;
    if (conn->in.len > 0) {
        process_input(conn);
    }
    if (conn->base.state == PDK_CONN_OPEN && !conn->base.held) {
        start_reading(conn);
    }
}

static const pdk_conn_ops tcp_conn_ops = {
    .send = tcp_send,
    .send_state = tcp_send_state,
    .send_last_and_close = tcp_send_last_and_close,
    .close = tcp_close,
    .queued_bytes = tcp_queued_bytes,
    .resume = tcp_resume,
};

/* ---- accepting ---------------------------------------------------------- */

/* The peer as the log names it ("host:port", "[v6]:port") into out, and
 * its host alone into host (empty when the family is unknown). */
static void format_addr(const struct sockaddr_storage *ss, char *out, size_t out_len, char *host,
                        size_t host_len)
{
    host[0] = '\0';
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
        uv_ip4_name(sin, host, host_len);
        snprintf(out, out_len, "%s:%u", host, (unsigned)ntohs(sin->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
        uv_ip6_name(sin6, host, host_len);
        snprintf(out, out_len, "[%s]:%u", host, (unsigned)ntohs(sin6->sin6_port));
    } else {
        snprintf(out, out_len, "unknown");
    }
}

/* The connections from conn's host that hold a slot. */
static int same_host(const tcp_listener *net, const tcp_conn *conn)
{
    int n = 0;
    for (const tcp_conn *o = net->conns; o != NULL; o = o->next) {
        n += o != conn && o->counted && strcmp(o->base.host, conn->base.host) == 0;
    }
    return n;
}

static void on_connection(uv_stream_t *server, int status)
{
    tcp_listener *net = server->data;
    if (status < 0) {
        pdk_net_log("accept failed: %s", uv_strerror(status));
        return;
    }
    if (net->closing) {
        return;
    }
    tcp_conn *conn = calloc(1, sizeof *conn);
    if (conn == NULL) {
        pdk_net_log("accept failed: out of memory");
        return;
    }
    int r = uv_tcp_init(net->loop, &conn->tcp);
    if (r < 0) {
        pdk_net_log("accept failed: %s", uv_strerror(r));
        free(conn);
        return;
    }
    pdk_conn_init(&conn->base, &tcp_conn_ops, &net->base);
    pdk_outq_init(&conn->out, 0, true);
    conn->tcp.data = conn;
    conn->net = net;
    conn->next = net->conns;
    if (net->conns != NULL) {
        net->conns->prev = conn;
    }
    net->conns = conn;
    net->handles++;

    r = uv_accept(server, (uv_stream_t *)&conn->tcp);
    if (r < 0) {
        pdk_net_log("accept failed: %s", uv_strerror(r));
        conn_close_now(conn);
        return;
    }
    if (net->tls != NULL) {
        conn->tls = pdk_tls_session_new(net->tls);
        if (conn->tls == NULL) {
            pdk_net_log("accept failed: out of memory for a TLS session");
            conn_close_now(conn);
            return;
        }
    }
    uv_tcp_nodelay(&conn->tcp, 1);
    uv_tcp_keepalive(&conn->tcp, 1, KEEPALIVE_S);
    struct sockaddr_storage ss;
    int namelen = (int)sizeof ss;
    if (uv_tcp_getpeername(&conn->tcp, (struct sockaddr *)&ss, &namelen) == 0) {
        char host[INET6_ADDRSTRLEN];
        format_addr(&ss, conn->base.peer, sizeof conn->base.peer, host, sizeof host);
        pdk_conn_set_host(&conn->base, host);
    }

    char msg[192];
    if (net->n_counted >= net->base.limits.max_connections) {
        snprintf(msg, sizeof msg, "server busy: at its limit of %d connections",
                 net->base.limits.max_connections);
        pdk_conn_fail(&conn->base, 0, PDK_ERR_BUSY, msg);
        return;
    }
    if (pdk_conn_host_full(&conn->base, same_host(net, conn), "", msg, sizeof msg)) {
        pdk_conn_fail(&conn->base, 0, PDK_ERR_BUSY, msg);
        return;
    }
    conn->counted = true;
    net->n_counted++;
    start_reading(conn);
    if (conn->base.state == PDK_CONN_CLOSED) {
        return;
    }
    conn->visible = true;
    if (net->base.cb.on_open != NULL) {
        net->base.cb.on_open(&conn->base, net->base.ud);
    }
}

/* ---- listening ---------------------------------------------------------- */

/* A peer that closes while we write must not kill the process: libuv writes
 * with write(2), which raises SIGPIPE. Left alone if the app set a handler. */
static void ignore_sigpipe(void)
{
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_IGN;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGPIPE, &sa, NULL);
    }
}

static int tcp_port(const pdk_listener *base)
{
    return ((const tcp_listener *)base)->port;
}

static void tcp_listener_close(pdk_listener *base)
{
    tcp_listener *net = (tcp_listener *)base;
    if (net->closing) {
        return;
    }
    net->closing = true;
    uv_close((uv_handle_t *)&net->listener, on_net_handle_closed);
    uv_timer_stop(&net->timer);
    net->timer_running = false;
    uv_close((uv_handle_t *)&net->timer, on_net_handle_closed);
    for (tcp_conn *conn = net->conns; conn != NULL; conn = conn->next) {
        conn_close_now(conn);
    }
}

static const pdk_listener_ops tcp_listener_ops = {
    .port = tcp_port,
    .close = tcp_listener_close,
};

pdk_error pdk_tcp_listen(uv_loop_t *loop, const char *host_port, const pdk_net_limits *limits,
                         const pdk_net_callbacks *cb, void *ud, pdk_listener **out, char *err,
                         size_t err_len)
{
    return pdk_tcp_listen_tls(loop, host_port, limits, NULL, cb, ud, out, err, err_len);
}

pdk_error pdk_tcp_listen_tls(uv_loop_t *loop, const char *host_port, const pdk_net_limits *limits,
                             pdk_tls *tls, const pdk_net_callbacks *cb, void *ud,
                             pdk_listener **out, char *err, size_t err_len)
{
    pdk_net_set_err(err, err_len, "ok");
    if (out != NULL) {
        *out = NULL;
    }
    if (loop == NULL || host_port == NULL || cb == NULL || out == NULL) {
        pdk_net_set_err(err, err_len, "pdk_tcp_listen: loop, host_port, cb and out are required");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_net_limits lim = limits != NULL ? *limits : pdk_net_limits_default();
    if (!pdk_net_limits_check(&lim, err, err_len)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    struct sockaddr_storage addr;
    if (!pdk_net_parse_host_port(host_port, &addr, err, err_len)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    tcp_listener *net = calloc(1, sizeof *net);
    if (net == NULL) {
        pdk_net_set_err(err, err_len, "listen on %s: out of memory", host_port);
        return PDK_ERR_NO_MEMORY;
    }
    pdk_listener_init(&net->base, &tcp_listener_ops, &lim, cb, ud);
    net->loop = loop;
    net->tls = tls;
    int r = uv_tcp_init(loop, &net->listener);
    if (r < 0) {
        free(net);
        pdk_net_set_err(err, err_len, "listen on %s: %s", host_port, uv_strerror(r));
        return PDK_ERR_NET;
    }
    net->listener.data = net;
    net->handles++;
    r = uv_timer_init(loop, &net->timer);
    if (r == 0) {
        net->timer.data = net;
        net->handles++;
        r = uv_tcp_bind(&net->listener, (const struct sockaddr *)&addr, 0);
    }
    if (r == 0) {
        r = uv_listen((uv_stream_t *)&net->listener, LISTEN_BACKLOG, on_connection);
    }
    struct sockaddr_storage bound;
    int namelen = (int)sizeof bound;
    if (r == 0) {
        r = uv_tcp_getsockname(&net->listener, (struct sockaddr *)&bound, &namelen);
    }
    if (r != 0) {
        pdk_net_set_err(err, err_len, "listen on %s: %s", host_port, uv_strerror(r));
        /* The handles are freed, with net, by their close callbacks. */
        net->closing = true;
        if (net->handles == 2) {
            uv_close((uv_handle_t *)&net->timer, on_net_handle_closed);
        }
        uv_close((uv_handle_t *)&net->listener, on_net_handle_closed);
        return PDK_ERR_NET;
    }
    net->port = bound.ss_family == AF_INET6
                    ? ntohs(((const struct sockaddr_in6 *)&bound)->sin6_port)
                    : ntohs(((const struct sockaddr_in *)&bound)->sin_port);
    ignore_sigpipe();
    char name[96];
    char host[INET6_ADDRSTRLEN];
    format_addr(&bound, name, sizeof name, host, sizeof host);
    pdk_net_log("listening on %s%s (max frame %zu bytes, %d connections, %d from one address)",
                name, tls != NULL ? " with TLS" : "", lim.max_frame_bytes, lim.max_connections,
                lim.max_connections_per_host);
    *out = &net->base;
    return PDK_OK;
}
