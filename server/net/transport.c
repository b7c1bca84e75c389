/* transport: what every transport shares. The public pdk_conn_* and
 * pdk_listener_* calls check their arguments, the connection's state and the
 * frame's shape and size here, once, and dispatch to the transport's ops;
 * inbound frames are decoded here, and the limits and their defaults live
 * here, so two transports cannot drift apart on what they refuse. */
#define _POSIX_C_SOURCE 200809L

#include "transport_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <uv.h>

#define MAX_FRAME_LIMIT ((size_t)1 << 30) /* limits.max_frame_bytes at most 1 GiB */

static atomic_uint_fast64_t next_conn_id = 1;

void pdk_net_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "paddockd net: %s\n", line);
}

void pdk_net_set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* ---- limits ------------------------------------------------------------- */

pdk_net_limits pdk_net_limits_default(void)
{
    pdk_net_limits limits = {
        .max_frame_bytes = PDK_WIRE_MAX_FRAME_DEFAULT,
        .out_soft_bytes = (size_t)256 * 1024,
        .out_soft_seconds = 10.0,
        .out_hard_bytes = (size_t)8 * 1024 * 1024,
        .max_connections = 1024,
        .max_connections_per_host = 64,
        .close_linger_seconds = 2.0,
        .frame_timeout_seconds = 30.0,
        .max_partial_bytes = (size_t)64 * 1024 * 1024,
        .partial_budget = NULL,
    };
    return limits;
}

bool pdk_net_limits_check(const pdk_net_limits *l, char *err, size_t err_len)
{
    if (l->max_frame_bytes < 16 || l->max_frame_bytes > MAX_FRAME_LIMIT) {
        pdk_net_set_err(err, err_len, "limits.max_frame_bytes %zu is outside 16..%zu",
                        l->max_frame_bytes, MAX_FRAME_LIMIT);
        return false;
    }
    if (l->out_hard_bytes == 0 || l->out_soft_bytes > l->out_hard_bytes) {
        pdk_net_set_err(err, err_len,
                        "limits.out_soft_bytes %zu must not exceed limits.out_hard_bytes %zu (> 0)",
                        l->out_soft_bytes, l->out_hard_bytes);
        return false;
    }
    if (!isfinite(l->out_soft_seconds) || l->out_soft_seconds < 0 ||
        l->out_soft_seconds > 86400.0) {
        pdk_net_set_err(err, err_len, "limits.out_soft_seconds %g is outside 0..86400",
                        l->out_soft_seconds);
        return false;
    }
    if (!isfinite(l->close_linger_seconds) || l->close_linger_seconds < 0 ||
        l->close_linger_seconds > 3600.0) {
        pdk_net_set_err(err, err_len, "limits.close_linger_seconds %g is outside 0..3600",
                        l->close_linger_seconds);
        return false;
    }
    if (!isfinite(l->frame_timeout_seconds) || l->frame_timeout_seconds <= 0 ||
        l->frame_timeout_seconds > 86400.0) {
        pdk_net_set_err(err, err_len, "limits.frame_timeout_seconds %g is outside (0, 86400]",
                        l->frame_timeout_seconds);
        return false;
    }
    /* Below one frame's worth a single whole-frame read could not be held. */
    if (l->max_partial_bytes < l->max_frame_bytes) {
        pdk_net_set_err(err, err_len,
                        "limits.max_partial_bytes %zu is below limits.max_frame_bytes %zu",
                        l->max_partial_bytes, l->max_frame_bytes);
        return false;
    }
    if (l->max_connections < 1) {
        pdk_net_set_err(err, err_len, "limits.max_connections %d must be at least 1",
                        l->max_connections);
        return false;
    }
    if (l->max_connections_per_host < 0) {
        pdk_net_set_err(err, err_len, "limits.max_connections_per_host %d must not be negative",
                        l->max_connections_per_host);
        return false;
    }
    return true;
}

/* ---- addresses ---------------------------------------------------------- */

/* "host:port" with a numeric IPv4 host or "localhost", or "[v6]:port". */
bool pdk_net_parse_host_port(const char *s, struct sockaddr_storage *ss, char *err, size_t err_len)
{
    char host[INET6_ADDRSTRLEN + 16];
    const char *port_str;
    bool v6 = false;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (close == NULL) {
            pdk_net_set_err(err, err_len, "listen address \"%s\": missing ']' after the IPv6 host",
                            s);
            return false;
        }
        size_t hlen = (size_t)(close - s - 1);
        if (hlen == 0 || hlen >= sizeof host) {
            pdk_net_set_err(err, err_len, "listen address \"%s\": bad IPv6 host", s);
            return false;
        }
        memcpy(host, s + 1, hlen);
        host[hlen] = '\0';
        if (close[1] != ':') {
            pdk_net_set_err(err, err_len, "listen address \"%s\": expected \":port\" after ']'", s);
            return false;
        }
        port_str = close + 2;
        v6 = true;
    } else {
        const char *colon = strrchr(s, ':');
        if (colon == NULL) {
            pdk_net_set_err(err, err_len, "listen address \"%s\": expected host:port", s);
            return false;
        }
        size_t hlen = (size_t)(colon - s);
        if (memchr(s, ':', hlen) != NULL) {
            pdk_net_set_err(err, err_len,
                            "listen address \"%s\": an IPv6 host needs brackets, e.g. [::1]:7420",
                            s);
            return false;
        }
        if (hlen == 0 || hlen >= sizeof host) {
            pdk_net_set_err(err, err_len, "listen address \"%s\": missing or overlong host", s);
            return false;
        }
        memcpy(host, s, hlen);
        host[hlen] = '\0';
        port_str = colon + 1;
    }
    unsigned long port = 0;
    size_t digits = strlen(port_str);
    if (digits == 0 || digits > 5 || strspn(port_str, "0123456789") != digits ||
        (port = strtoul(port_str, NULL, 10)) > 65535) {
        pdk_net_set_err(err, err_len,
                        "listen address \"%s\": port \"%s\" is not a number in 0..65535", s,
                        port_str);
        return false;
    }
    memset(ss, 0, sizeof *ss);
    int r;
    if (v6) {
        r = uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)ss);
    } else {
        r = uv_ip4_addr(strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, (int)port,
                        (struct sockaddr_in *)ss);
    }
    if (r != 0) {
        pdk_net_set_err(
            err, err_len,
            "listen address \"%s\": \"%s\" is not a numeric %s address (no DNS lookups)", s, host,
            v6 ? "IPv6" : "IPv4");
        return false;
    }
    return true;
}

/* ---- listeners ---------------------------------------------------------- */

void pdk_listener_init(pdk_listener *listener, const pdk_listener_ops *ops,
                       const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud)
{
    listener->ops = ops;
    listener->limits = limits != NULL ? *limits : pdk_net_limits_default();
    listener->own_budget.held_bytes = 0;
    listener->budget = listener->limits.partial_budget != NULL ? listener->limits.partial_budget
                                                               : &listener->own_budget;
    listener->cb = *cb;
    listener->ud = ud;
}

int pdk_listener_port(const pdk_listener *listener)
{
    return listener != NULL ? listener->ops->port(listener) : 0;
}

void pdk_listener_close(pdk_listener *listener)
{
    if (listener != NULL) {
        listener->ops->close(listener);
    }
}

/* ---- connections -------------------------------------------------------- */

void pdk_conn_init(pdk_conn *conn, const pdk_conn_ops *ops, pdk_listener *listener)
{
    conn->ops = ops;
    conn->listener = listener;
    conn->id = atomic_fetch_add(&next_conn_id, 1);
    conn->state = PDK_CONN_OPEN;
    snprintf(conn->peer, sizeof conn->peer, "unknown");
    conn->host[0] = '\0';
    conn->host_loopback = false;
    conn->partial_since_ms = 0;
    conn->partial_declared = 0;
    conn->partial_received = 0;
    conn->partial_held = 0;
}

/* ---- peers --------------------------------------------------------------- */

bool pdk_net_host_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1) {
        return (ntohl(a4.s_addr) >> 24) == 127u;
    }
    if (inet_pton(AF_INET6, host, &a6) == 1) {
        return IN6_IS_ADDR_LOOPBACK(&a6);
    }
    return false;
}

void pdk_conn_set_host(pdk_conn *conn, const char *host)
{
    /* An IPv4 peer of a dual-stack socket ("::ffff:192.0.2.7") is named
     * as an IPv4 one is. */
    struct in_addr a4;
    if (strncmp(host, "::ffff:", 7) == 0 && inet_pton(AF_INET, host + 7, &a4) == 1) {
        host += 7;
    }
    snprintf(conn->host, sizeof conn->host, "%s", host);
    conn->host_loopback = pdk_net_host_is_loopback(conn->host);
}

bool pdk_conn_host_full(const pdk_conn *conn, int same, const char *what, char *msg, size_t msg_len)
{
    int limit = conn->listener->limits.max_connections_per_host;
    if (limit == 0 || conn->host_loopback || conn->host[0] == '\0' || same < limit) {
        return false;
    }
    snprintf(msg, msg_len,
             "server busy: %s already has %d %sconnections, the limit for one address "
             "(--max-conns-per-host)",
             conn->host, same, what);
    return true;
}

/* ---- partial inbound frames --------------------------------------------- */

void pdk_conn_partial_note(pdk_conn *conn, uint64_t now_ms, size_t declared, size_t received)
{
    if (conn->partial_since_ms == 0) {
        /* The loop's clock starts near 0; 0 means "no frame under way". */
        conn->partial_since_ms = now_ms > 0 ? now_ms : 1;
    }
    conn->partial_declared = declared;
    conn->partial_received = received;
}

bool pdk_conn_partial_hold(pdk_conn *conn, size_t held_bytes)
{
    pdk_net_budget *budget = conn->listener->budget;
    PDK_ASSERT(budget->held_bytes >= conn->partial_held);
    size_t others = budget->held_bytes - conn->partial_held;
    size_t max = conn->listener->limits.max_partial_bytes;
    /* Listeners sharing a budget may differ in their limit: others can be
     * above this one's. */
    if (held_bytes > conn->partial_held && (others > max || held_bytes > max - others)) {
        return false;
    }
    budget->held_bytes = others + held_bytes;
    conn->partial_held = held_bytes;
    return true;
}

/* "a frame of 1048575 bytes (65536 received)", or of a size still unknown. */
static void describe_partial(const pdk_conn *conn, char *out, size_t out_len)
{
    if (conn->partial_declared > 0) {
        snprintf(out, out_len, "a frame of %zu bytes (%zu received)", conn->partial_declared,
                 conn->partial_received);
    } else {
        snprintf(out, out_len, "a frame whose length is not yet known (%zu bytes received)",
                 conn->partial_received);
    }
}

void pdk_conn_partial_refusal(const pdk_conn *conn, size_t want_bytes, char *msg, size_t msg_len)
{
    char frame[128];
    describe_partial(conn, frame, sizeof frame);
    const pdk_listener *l = conn->listener;
    snprintf(msg, msg_len,
             "server busy: partial frames of all connections hold %zu bytes of the server's "
             "limit of %zu bytes for them (--max-partial-mb); %s would need %zu bytes held",
             l->budget->held_bytes - conn->partial_held, l->limits.max_partial_bytes, frame,
             want_bytes);
}

void pdk_conn_partial_refuse(pdk_conn *conn, size_t want_bytes)
{
    char msg[400];
    pdk_conn_partial_refusal(conn, want_bytes, msg, sizeof msg);
    pdk_conn_partial_end(conn);
    pdk_conn_fail(conn, 0, PDK_ERR_BUSY, msg);
}

void pdk_conn_partial_end(pdk_conn *conn)
{
    (void)pdk_conn_partial_hold(conn, 0);
    conn->partial_since_ms = 0;
    conn->partial_declared = 0;
    conn->partial_received = 0;
}

bool pdk_conn_partial_late(const pdk_conn *conn, uint64_t now_ms, char *msg, size_t msg_len)
{
    if (conn->state != PDK_CONN_OPEN || conn->partial_since_ms == 0) {
        return false;
    }
    double timeout_s = conn->listener->limits.frame_timeout_seconds;
    uint64_t deadline_ms = conn->partial_since_ms + (uint64_t)(timeout_s * 1000.0 + 0.5);
    if (now_ms < deadline_ms) {
        return false;
    }
    char frame[128];
    describe_partial(conn, frame, sizeof frame);
    snprintf(msg, msg_len, "%s was not whole %g s after its first bytes came (--frame-timeout)",
             frame, timeout_s);
    return true;
}

bool pdk_conn_partial_check(pdk_conn *conn, uint64_t now_ms)
{
    char msg[256];
    if (pdk_conn_partial_late(conn, now_ms, msg, sizeof msg)) {
        pdk_conn_partial_end(conn);
        pdk_conn_fail(conn, 0, PDK_ERR_TIMEOUT, msg);
        return false;
    }
    return conn->state == PDK_CONN_OPEN && conn->partial_since_ms != 0;
}

void pdk_conn_deliver(pdk_conn *conn, const uint8_t *frame, size_t len)
{
    PDK_ASSERT(conn->state == PDK_CONN_OPEN);
    conn->bytes_in += len;
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *decoded = pdk_wire_frame_decode(frame, len, &err);
    if (decoded == NULL) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "could not decode a frame of %zu bytes: not a paddock.v1.Frame with a body", len);
        pdk_conn_fail(conn, 0, PDK_ERR_PROTOCOL, msg);
        return;
    }
    conn->frames_in++;
    const pdk_listener *listener = conn->listener;
    if (listener->cb.on_frame != NULL) {
        listener->cb.on_frame(conn, decoded, listener->ud);
    }
    pdk_wire_frame_free(decoded);
}

bool pdk_conn_hold(pdk_conn *conn)
{
    if (conn == NULL || conn->state != PDK_CONN_OPEN || conn->ops->resume == NULL) {
        return false;
    }
    conn->held = true;
    return true;
}

void pdk_conn_resume(pdk_conn *conn)
{
    if (conn == NULL || !conn->held) {
        return;
    }
    conn->held = false;
    if (conn->state == PDK_CONN_OPEN) {
        conn->ops->resume(conn);
    }
}

bool pdk_conn_is_held(const pdk_conn *conn)
{
    return conn != NULL && conn->held;
}

/* What both sends refuse before the transport sees the frame. */
static pdk_error check_send(const pdk_conn *conn, const uint8_t *bytes, size_t len)
{
    if (conn == NULL || bytes == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (conn->state != PDK_CONN_OPEN) {
        return PDK_ERR_CLOSED;
    }
    if (pdk_wire_frame_check(bytes, len) != PDK_OK) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (len > conn->listener->limits.max_frame_bytes) {
        return PDK_ERR_FRAME_TOO_LARGE;
    }
    return PDK_OK;
}

pdk_error pdk_conn_send(pdk_conn *conn, const uint8_t *bytes, size_t len)
{
    pdk_error err = check_send(conn, bytes, len);
    return err != PDK_OK ? err : conn->ops->send(conn, bytes, len);
}

pdk_error pdk_conn_send_state(pdk_conn *conn, uint32_t key, const uint8_t *bytes, size_t len)
{
    pdk_error err = check_send(conn, bytes, len);
    return err != PDK_OK ? err : conn->ops->send_state(conn, key, bytes, len);
}

void pdk_conn_fail(pdk_conn *conn, uint64_t request_id, pdk_error code, const char *message)
{
    if (conn == NULL || conn->state != PDK_CONN_OPEN) {
        return;
    }
    pdk_net_log("closing %s (conn %" PRIu64 ") after error %s: %s", conn->peer, conn->id,
                pdk_error_name(code), message != NULL ? message : "");
    /* The Error frame goes out whatever the limits say: it is the last one. */
    pdk_conn_note_error(conn, code);
    pdk_buf frame = {0};
    if (pdk_wire_error_append(&frame, request_id, code, message) == PDK_OK) {
        conn->ops->send_last_and_close(conn, frame.data, frame.len);
    } else {
        conn->ops->send_last_and_close(conn, NULL, 0);
    }
    pdk_buf_free(&frame);
}

void pdk_conn_close(pdk_conn *conn)
{
    if (conn != NULL && conn->state == PDK_CONN_OPEN) {
        conn->ops->close(conn);
    }
}

void pdk_conn_set_data(pdk_conn *conn, void *data)
{
    if (conn != NULL) {
        conn->data = data;
    }
}

void *pdk_conn_data(const pdk_conn *conn)
{
    return conn != NULL ? conn->data : NULL;
}

uint64_t pdk_conn_id(const pdk_conn *conn)
{
    return conn != NULL ? conn->id : 0;
}

const char *pdk_conn_peer(const pdk_conn *conn)
{
    return conn != NULL ? conn->peer : "";
}

void pdk_conn_stats_get(const pdk_conn *conn, pdk_conn_stats *out)
{
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (conn == NULL) {
        return;
    }
    /* Asked first: a transport whose queue is its peer's (local.c) brings
     * its drop count up to date here. */
    out->queued_bytes = conn->ops->queued_bytes(conn);
    out->frames_in = conn->frames_in;
    out->frames_out = conn->frames_out;
    out->bytes_in = conn->bytes_in;
    out->bytes_out = conn->bytes_out;
    out->state_dropped = conn->state_dropped;
    memcpy(out->errors, conn->errors, sizeof out->errors);
}

void pdk_conn_note_error(pdk_conn *conn, pdk_error code)
{
    if (conn != NULL && (unsigned)code < PDK_ERROR_COUNT) {
        conn->errors[code]++;
    }
}
