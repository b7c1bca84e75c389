/* The local transport (local.h): pdk_conn_ops that hand the app's frames to
 * an in-process peer, and a listener that only counts its connections. */
#include "local.h"

#include <stdio.h>
#include <stdlib.h>

#include "transport_impl.h"

typedef struct local_conn local_conn;

typedef struct local_listener {
    pdk_listener base;
    local_conn *conns; /* open and closing connections, a doubly linked list */
    bool closing;
} local_listener;

struct local_conn {
    pdk_conn base;
    pdk_local_peer peer;
    void *peer_ud;
    local_conn *prev, *next;
};

static pdk_error local_send(pdk_conn *conn, const uint8_t *frame, size_t len)
{
    local_conn *c = (local_conn *)conn;
    pdk_error err = c->peer.on_frame(c->peer_ud, frame, len, false, 0);
    if (err == PDK_OK) {
        conn->frames_out++;
        conn->bytes_out += len;
    }
    return err;
}

static pdk_error local_send_state(pdk_conn *conn, uint32_t key, const uint8_t *frame, size_t len)
{
    local_conn *c = (local_conn *)conn;
    pdk_error err = c->peer.on_frame(c->peer_ud, frame, len, true, key);
    if (err == PDK_OK) {
        conn->frames_out++;
        conn->bytes_out += len;
    }
    return err;
}

static void local_close(pdk_conn *conn)
{
    local_conn *c = (local_conn *)conn;
    conn->state = PDK_CONN_CLOSING;
    c->peer.on_close(c->peer_ud);
}

static void local_send_last_and_close(pdk_conn *conn, const uint8_t *frame, size_t len)
{
    local_conn *c = (local_conn *)conn;
    if (frame != NULL && c->peer.on_frame(c->peer_ud, frame, len, false, 0) == PDK_OK) {
        conn->frames_out++;
        conn->bytes_out += len;
    }
    local_close(conn);
}

/* The peer's queue is the connection's: its drop count is brought up to
 * date here, which pdk_conn_stats_get asks before it reads the count. */
static size_t local_queued_bytes(const pdk_conn *conn)
{
    local_conn *c = (local_conn *)conn;
    size_t queued = 0;
    uint64_t dropped = 0;
    if (c->peer.stats != NULL) {
        c->peer.stats(c->peer_ud, &queued, &dropped);
        c->base.state_dropped = dropped;
    }
    return queued;
}

static const pdk_conn_ops local_conn_ops = {
    .send = local_send,
    .send_state = local_send_state,
    .send_last_and_close = local_send_last_and_close,
    .close = local_close,
    .queued_bytes = local_queued_bytes,
};

static int local_port(const pdk_listener *listener)
{
    (void)listener;
    return 0;
}

static void local_listener_close(pdk_listener *listener)
{
    local_listener *l = (local_listener *)listener;
    if (l->closing)
        return;
    l->closing = true;
    if (l->conns == NULL) {
        free(l);
        return;
    }
    /* Each peer hangs up in its own time; the last hang-up frees l. A peer
     * may hang up from inside on_close, so walk with the next pointer kept. */
    for (local_conn *c = l->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (c->base.state == PDK_CONN_OPEN)
            local_close(&c->base);
    }
}

static const pdk_listener_ops local_listener_ops = {
    .port = local_port,
    .close = local_listener_close,
};

pdk_error pdk_local_listen(const pdk_net_limits *limits, const pdk_net_callbacks *cb, void *ud,
                           pdk_listener **out, char *err, size_t err_len)
{
    if (cb == NULL || out == NULL) {
        pdk_net_set_err(err, err_len, "local listener: callbacks and out are required");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (limits != NULL && !pdk_net_limits_check(limits, err, err_len))
        return PDK_ERR_INVALID_ARGUMENT;
    local_listener *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        pdk_net_set_err(err, err_len, "local listener: out of memory");
        return PDK_ERR_NO_MEMORY;
    }
    pdk_listener_init(&l->base, &local_listener_ops, limits, cb, ud);
    *out = &l->base;
    return PDK_OK;
}

pdk_conn *pdk_local_open(pdk_listener *listener, const pdk_local_peer *peer, void *peer_ud,
                         const char *peer_name)
{
    local_listener *l = (local_listener *)listener;
    if (l == NULL || l->closing || peer == NULL || peer->on_frame == NULL || peer->on_close == NULL)
        return NULL;
    local_conn *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    pdk_conn_init(&c->base, &local_conn_ops, listener);
    c->peer = *peer;
    c->peer_ud = peer_ud;
    snprintf(c->base.peer, sizeof(c->base.peer), "%s", peer_name ? peer_name : "local");
    c->next = l->conns;
    if (l->conns)
        l->conns->prev = c;
    l->conns = c;
    if (listener->cb.on_open != NULL)
        listener->cb.on_open(&c->base, listener->ud);
    return &c->base;
}

void pdk_local_write(pdk_conn *conn, const uint8_t *frame, size_t len)
{
    if (conn == NULL || conn->state != PDK_CONN_OPEN)
        return;
    if (len > conn->listener->limits.max_frame_bytes) {
        pdk_conn_fail(conn, 0, PDK_ERR_FRAME_TOO_LARGE, "the frame is over max_frame_bytes");
        return;
    }
    pdk_conn_deliver(conn, frame, len);
}

void pdk_local_hangup(pdk_conn *conn)
{
    if (conn == NULL)
        return;
    local_conn *c = (local_conn *)conn;
    local_listener *l = (local_listener *)conn->listener;
    conn->state = PDK_CONN_CLOSED;
    if (l->base.cb.on_close != NULL)
        l->base.cb.on_close(conn, l->base.ud);
    if (c->prev)
        c->prev->next = c->next;
    else
        l->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c);
    if (l->closing && l->conns == NULL)
        free(l);
}
