/* Unit tests for server/net: a real libuv loop listening on 127.0.0.1 port 0,
 * driven with uv_run(UV_RUN_NOWAIT) alongside real non-blocking client
 * sockets in the same thread. The clients decode what they receive with
 * protobuf-c directly, so net is checked against the protocol, not itself. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net.h"

#define WAIT_MS 5000
#define MAX_FRAMES 64
#define MAX_CONNS 16

/* ---- the app under the net: records, echoes, and misbehaves on demand ---- */

typedef enum app_mode {
    MODE_ECHO,          /* Ping -> Pong with the same request_id and time */
    MODE_CLOSE_ON_FRAME, /* pdk_conn_close from inside on_frame */
    MODE_FAIL_ON_FRAME,  /* pdk_conn_fail from inside on_frame */
    MODE_NET_CLOSE_ON_FRAME, /* pdk_listener_close from inside on_frame */
} app_mode;

typedef struct rec_frame {
    uint64_t conn_id;
    uint64_t request_id;
    int body_case;
    uint8_t packed[2048];
    size_t packed_len;
} rec_frame;

typedef struct app {
    uv_loop_t loop;
    pdk_listener *net;
    app_mode mode;
    int opens;
    int closes;
    pdk_conn *conns[MAX_CONNS]; /* in open order */
    uint64_t conn_ids[MAX_CONNS];
    bool conn_gone[MAX_CONNS];
    int n_frames;
    rec_frame frames[MAX_FRAMES];
} app;

static int conn_index(app *a, const pdk_conn *conn)
{
    for (int i = 0; i < a->opens; i++) {
        if (a->conns[i] == conn && !a->conn_gone[i]) {
            return i;
        }
    }
    return -1;
}

static void on_open(pdk_conn *conn, void *ud)
{
    app *a = ud;
    ck_assert_int_lt(a->opens, MAX_CONNS);
    ck_assert_int_eq(conn_index(a, conn), -1);
    a->conns[a->opens] = conn;
    a->conn_ids[a->opens] = pdk_conn_id(conn);
    pdk_conn_set_data(conn, &a->conns[a->opens]);
    a->opens++;
}

static void send_pong(pdk_conn *conn, uint64_t request_id, uint64_t ns)
{
    Paddock__V1__Pong pong = PADDOCK__V1__PONG__INIT;
    pong.client_time_ns = ns;
    pong.server_time_ns = 1;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    f.pong = &pong;
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&buf, &f), PDK_OK);
    ck_assert_int_eq(pdk_conn_send(conn, buf.data, buf.len), PDK_OK);
    pdk_buf_free(&buf);
}

static void on_frame(pdk_conn *conn, const Paddock__V1__Frame *frame, void *ud)
{
    app *a = ud;
    int idx = conn_index(a, conn);
    ck_assert_int_ge(idx, 0);
    ck_assert_ptr_eq(pdk_conn_data(conn), &a->conns[idx]);
    ck_assert_int_lt(a->n_frames, MAX_FRAMES);
    rec_frame *r = &a->frames[a->n_frames++];
    r->conn_id = pdk_conn_id(conn);
    r->request_id = frame->request_id;
    r->body_case = (int)frame->body_case;
    r->packed_len = paddock__v1__frame__get_packed_size(frame);
    ck_assert_uint_le(r->packed_len, sizeof r->packed);
    paddock__v1__frame__pack(frame, r->packed);
    switch (a->mode) {
    case MODE_ECHO:
        if (frame->body_case == PADDOCK__V1__FRAME__BODY_PING) {
            send_pong(conn, frame->request_id, frame->ping->client_time_ns);
        }
        break;
    case MODE_CLOSE_ON_FRAME:
        pdk_conn_close(conn);
        ck_assert_int_eq(pdk_conn_send(conn, r->packed, 0), PDK_ERR_CLOSED);
        break;
    case MODE_FAIL_ON_FRAME:
        pdk_conn_fail(conn, frame->request_id, PDK_ERR_VERSION,
                      "protocol version 9 is not supported");
        break;
    case MODE_NET_CLOSE_ON_FRAME:
        pdk_listener_close(a->net);
        a->net = NULL;
        break;
    }
}

static void on_close(pdk_conn *conn, void *ud)
{
    app *a = ud;
    int idx = conn_index(a, conn);
    ck_assert_int_ge(idx, 0);
    ck_assert_uint_eq(pdk_conn_id(conn), a->conn_ids[idx]);
    a->conn_gone[idx] = true;
    a->closes++;
}

static const pdk_net_callbacks callbacks = {on_open, on_frame, on_close, NULL};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void nap(void)
{
    struct timespec ts = {0, 200 * 1000};
    nanosleep(&ts, NULL);
}

static void step(app *a)
{
    uv_run(&a->loop, UV_RUN_NOWAIT);
    nap();
}

#define PUMP_UNTIL(a, cond)                                                    \
    do {                                                                       \
        uint64_t deadline_ = now_ms() + WAIT_MS;                               \
        while (!(cond)) {                                                      \
            ck_assert_msg(now_ms() < deadline_, "timed out waiting for %s", #cond); \
            step(a);                                                           \
        }                                                                      \
    } while (0)

static void app_start(app *a, const pdk_net_limits *limits)
{
    memset(a, 0, sizeof *a);
    ck_assert_int_eq(uv_loop_init(&a->loop), 0);
    char err[256];
    ck_assert_int_eq(pdk_tcp_listen(&a->loop, "127.0.0.1:0", limits, &callbacks, a, &a->net,
                                    err, sizeof err),
                     PDK_OK);
    ck_assert_ptr_nonnull(a->net);
    ck_assert_int_gt(pdk_listener_port(a->net), 0);
}

/* Closes the listener and runs the loop to completion: every handle closed and
 * everything freed (ASan builds check the "freed"). */
static void app_finish(app *a)
{
    pdk_listener_close(a->net);
    a->net = NULL;
    ck_assert_int_eq(uv_run(&a->loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(uv_loop_close(&a->loop), 0);
    ck_assert_int_eq(a->closes, a->opens);
}

/* ---- clients -------------------------------------------------------------- */

typedef struct client {
    int fd;
    pdk_buf in;
    bool eof;
} client;

static client client_connect(int port, int rcvbuf_bytes)
{
    client c = {0};
    c.fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(c.fd, 0);
    if (rcvbuf_bytes > 0) {
        ck_assert_int_eq(
            setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_bytes, sizeof rcvbuf_bytes), 0);
    }
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* The kernel completes the handshake from the listen backlog. */
    ck_assert_int_eq(connect(c.fd, (struct sockaddr *)&sin, sizeof sin), 0);
    int flags = fcntl(c.fd, F_GETFL);
    ck_assert_int_eq(fcntl(c.fd, F_SETFL, flags | O_NONBLOCK), 0);
    return c;
}

static void client_close(client *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
    pdk_buf_free(&c->in);
}

static void client_send(app *a, client *c, const void *bytes, size_t len)
{
    const uint8_t *p = bytes;
    uint64_t deadline = now_ms() + WAIT_MS;
    while (len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        ck_assert_msg(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), "send: %s",
                      strerror(errno));
        ck_assert_msg(now_ms() < deadline, "timed out sending");
        step(a);
    }
}

/* Appends f as a TCP peer writes it (delimited: the varint length prefix,
 * then the whole frame), or without the prefix, as the app hands frames to
 * pdk_conn_send. */
static void append_frame(pdk_buf *out, const Paddock__V1__Frame *f, bool delimited)
{
    if (delimited) {
        uint8_t prefix[PDK_WIRE_VARINT_MAX];
        size_t plen = pdk_wire_varint_put(paddock__v1__frame__get_packed_size(f), prefix);
        ck_assert_int_eq(pdk_buf_append(out, prefix, plen), PDK_OK);
    }
    ck_assert_int_eq(pdk_wire_frame_append(out, f), PDK_OK);
}

static void client_send_frame(app *a, client *c, const Paddock__V1__Frame *f)
{
    pdk_buf buf = {0};
    append_frame(&buf, f, true);
    client_send(a, c, buf.data, buf.len);
    pdk_buf_free(&buf);
}

static void add_ping(pdk_buf *out, uint64_t request_id, uint64_t ns, bool delimited)
{
    Paddock__V1__Ping ping = PADDOCK__V1__PING__INIT;
    ping.client_time_ns = ns;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_PING;
    f.ping = &ping;
    append_frame(out, &f, delimited);
}

/* A Ping as a client sends it. */
static void build_ping(pdk_buf *out, uint64_t request_id, uint64_t ns)
{
    add_ping(out, request_id, ns, true);
}

/* Reads the next frame (pumping the loop meanwhile). NULL at EOF or reset. */
static Paddock__V1__Frame *client_read_frame(app *a, client *c)
{
    uint64_t deadline = now_ms() + WAIT_MS;
    for (;;) {
        uint64_t body = 0;
        int n = pdk_wire_varint_get(c->in.data, c->in.len, &body);
        ck_assert_int_ge(n, 0);
        if (n > 0 && c->in.len - (size_t)n >= body) {
            Paddock__V1__Frame *f =
                paddock__v1__frame__unpack(NULL, (size_t)body, c->in.data + n);
            ck_assert_msg(f != NULL, "the server sent a frame protobuf-c cannot decode");
            size_t used = (size_t)n + (size_t)body;
            memmove(c->in.data, c->in.data + used, c->in.len - used);
            c->in.len -= used;
            return f;
        }
        if (c->eof) {
            ck_assert_uint_eq(c->in.len, 0); /* no half frame before EOF */
            return NULL;
        }
        uint8_t tmp[65536];
        ssize_t got = recv(c->fd, tmp, sizeof tmp, 0);
        if (got > 0) {
            ck_assert_int_eq(pdk_buf_append(&c->in, tmp, (size_t)got), PDK_OK);
            continue;
        }
        if (got == 0 || (got < 0 && errno == ECONNRESET)) {
            c->eof = true;
            continue;
        }
        ck_assert_msg(errno == EAGAIN || errno == EWOULDBLOCK, "recv: %s", strerror(errno));
        ck_assert_msg(now_ms() < deadline, "timed out waiting for a frame");
        step(a);
    }
}

static void expect_error_then_eof(app *a, client *c, Paddock__V1__ErrorCode code,
                                  const char *needle1, const char *needle2)
{
    Paddock__V1__Frame *f = client_read_frame(a, c);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_int_eq(f->error->code, code);
    ck_assert_msg(strstr(f->error->message, needle1) != NULL, "\"%s\" lacks \"%s\"",
                  f->error->message, needle1);
    if (needle2 != NULL) {
        ck_assert_msg(strstr(f->error->message, needle2) != NULL, "\"%s\" lacks \"%s\"",
                      f->error->message, needle2);
    }
    paddock__v1__frame__free_unpacked(f, NULL);
    ck_assert_ptr_null(client_read_frame(a, c));
}

static void expect_pong(app *a, client *c, uint64_t request_id, uint64_t ns)
{
    Paddock__V1__Frame *f = client_read_frame(a, c);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_PONG);
    ck_assert_uint_eq(f->request_id, request_id);
    ck_assert_uint_eq(f->pong->client_time_ns, ns);
    paddock__v1__frame__free_unpacked(f, NULL);
}

static void ping_pong(app *a, client *c, uint64_t request_id)
{
    pdk_buf buf = {0};
    build_ping(&buf, request_id, request_id * 1000);
    client_send(a, c, buf.data, buf.len);
    pdk_buf_free(&buf);
    expect_pong(a, c, request_id, request_id * 1000);
}

/* ---- delivery ------------------------------------------------------------- */

START_TEST(good_frame_delivered_intact)
{
    app a;
    app_start(&a, NULL);
    client c = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);
    ck_assert_uint_gt(pdk_conn_id(a.conns[0]), 0);
    ck_assert_msg(strncmp(pdk_conn_peer(a.conns[0]), "127.0.0.1:", 10) == 0, "peer %s",
                  pdk_conn_peer(a.conns[0]));

    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    hello.protocol_version = PDK_PROTOCOL_VERSION;
    hello.client_name = "net-test \xc3\xa9";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 0xfeedbeefcafeull;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &hello;
    client_send_frame(&a, &c, &f);
    PUMP_UNTIL(&a, a.n_frames == 1);
    uint8_t want[256];
    size_t want_len = paddock__v1__frame__pack(&f, want);
    ck_assert_uint_eq(a.frames[0].packed_len, want_len);
    ck_assert_mem_eq(a.frames[0].packed, want, want_len);
    ck_assert_uint_eq(a.frames[0].conn_id, pdk_conn_id(a.conns[0]));

    pdk_buf ping = {0};
    build_ping(&ping, 2, 2000);
    ping_pong(&a, &c, 2);
    pdk_conn_stats st;
    pdk_conn_stats_get(a.conns[0], &st);
    ck_assert_uint_eq(st.frames_in, 2);
    /* Wire bytes: each frame with its one-byte length prefix. */
    ck_assert_uint_eq(st.bytes_in, 1 + want_len + ping.len);
    PUMP_UNTIL(&a, (pdk_conn_stats_get(a.conns[0], &st), st.frames_out == 1));
    ck_assert_uint_gt(st.bytes_out, 2);
    ck_assert_uint_eq(st.queued_bytes, 0);
    ck_assert_uint_eq(st.state_dropped, 0);
    pdk_buf_free(&ping);
    /* Error frames are counted by code: the app's, and pdk_conn_fail's. */
    pdk_conn_note_error(a.conns[0], PDK_ERR_NOT_FOUND);
    pdk_conn_note_error(a.conns[0], (pdk_error)PDK_ERROR_COUNT); /* not a code: ignored */
    pdk_conn_fail(a.conns[0], 0, PDK_ERR_BUSY, "test");
    pdk_conn_stats_get(a.conns[0], &st);
    ck_assert_uint_eq(st.errors[PDK_ERR_NOT_FOUND], 1);
    ck_assert_uint_eq(st.errors[PDK_ERR_BUSY], 1);
    ck_assert_uint_eq(st.errors[PDK_OK], 0);

    client_close(&c);
    PUMP_UNTIL(&a, a.closes == 1);
    app_finish(&a);
}
END_TEST

START_TEST(coalesced_and_split_frames_delivered)
{
    app a;
    app_start(&a, NULL);
    client c = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);

    pdk_buf two = {0};
    build_ping(&two, 1, 100);
    build_ping(&two, 2, 200);
    client_send(&a, &c, two.data, two.len);
    PUMP_UNTIL(&a, a.n_frames == 2);
    ck_assert_uint_eq(a.frames[0].request_id, 1);
    ck_assert_uint_eq(a.frames[1].request_id, 2);
    expect_pong(&a, &c, 1, 100);
    expect_pong(&a, &c, 2, 200);

    /* A frame long enough for a two-byte prefix, one byte per write. */
    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    char name[300];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    hello.client_name = name;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 3;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &hello;
    pdk_buf one = {0};
    append_frame(&one, &f, true);
    size_t hello_len = one.len;
    build_ping(&one, 4, 400);
    for (size_t i = 0; i < one.len; i++) {
        client_send(&a, &c, one.data + i, 1);
        step(&a);
        step(&a);
        /* Nothing is delivered before a frame's last byte. */
        ck_assert_int_eq(a.n_frames, i + 1 < hello_len ? 2 : i + 1 < one.len ? 3 : a.n_frames);
    }
    PUMP_UNTIL(&a, a.n_frames == 4);
    ck_assert_uint_eq(a.frames[2].request_id, 3);
    ck_assert_int_eq(a.frames[2].body_case, PADDOCK__V1__FRAME__BODY_HELLO);
    uint8_t want[512];
    size_t want_len = paddock__v1__frame__pack(&f, want);
    ck_assert_uint_eq(a.frames[2].packed_len, want_len);
    ck_assert_mem_eq(a.frames[2].packed, want, want_len);
    expect_pong(&a, &c, 4, 400);

    pdk_buf_free(&two);
    pdk_buf_free(&one);
    client_close(&c);
    app_finish(&a);
}
END_TEST

/* ---- inbound errors ----------------------------------------------------- */

static pdk_net_limits small_frames(void)
{
    pdk_net_limits l = pdk_net_limits_default();
    l.max_frame_bytes = 1024;
    l.close_linger_seconds = 20.0; /* so a refused peer lingers until it closes */
    return l;
}

/* A Hello whose packed Frame is exactly body_len bytes, delimited as a
 * client sends it or not, as the app hands it to net. */
static void hello_of_size(pdk_buf *out, size_t body_len, char *name, size_t name_cap,
                          bool delimited)
{
    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 8;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &hello;
    hello.client_name = name;
    for (size_t n = 0; n + 1 < name_cap; n++) {
        memset(name, 'x', n);
        name[n] = '\0';
        if (paddock__v1__frame__get_packed_size(&f) == body_len) {
            append_frame(out, &f, delimited);
            return;
        }
    }
    ck_abort_msg("no Hello of %zu bytes", body_len);
}

START_TEST(oversized_frame_refused_others_unaffected)
{
    app a;
    pdk_net_limits l = small_frames();
    app_start(&a, &l);
    client good = client_connect(pdk_listener_port(a.net), 0);
    client bad = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 2);

    /* Exactly the limit is accepted. */
    char name[1100];
    pdk_buf exact = {0};
    hello_of_size(&exact, 1024, name, sizeof name, true);
    client_send(&a, &good, exact.data, exact.len);
    PUMP_UNTIL(&a, a.n_frames == 1);
    ck_assert_uint_eq(a.frames[0].packed_len, 1024);

    /* One byte over: refused on the prefix alone, before any body arrives. */
    uint8_t prefix[PDK_WIRE_VARINT_MAX];
    size_t plen = pdk_wire_varint_put(1025, prefix);
    client_send(&a, &bad, prefix, plen);
    expect_error_then_eof(&a, &bad, PADDOCK__V1__ERROR_CODE__FRAME_TOO_LARGE, "1025", "1024");
    ck_assert_int_eq(a.n_frames, 1);

    /* The well-behaved client still gets replies. */
    ping_pong(&a, &good, 11);
    ck_assert_int_eq(a.closes, 0); /* the bad conn lingers for its peer's EOF */
    client_close(&bad);
    PUMP_UNTIL(&a, a.closes == 1);
    ck_assert_uint_eq(a.conn_ids[1], a.conn_ids[0] + 1);
    ck_assert(a.conn_gone[1] && !a.conn_gone[0]);
    ping_pong(&a, &good, 12);

    pdk_buf_free(&exact);
    client_close(&good);
    app_finish(&a);
}
END_TEST

/* Runs the loop for ms milliseconds. */
static void pump_for(app *a, uint64_t ms)
{
    uint64_t until = now_ms() + ms;
    while (now_ms() < until) {
        step(a);
    }
}

/* Partial frames: the buffers of all connections share max_partial_bytes,
 * and the one that would pass it is refused BUSY naming the limit and its
 * frame; each frame must be whole within frame_timeout_seconds (TIMEOUT
 * naming its size and the bytes received); frames sent in pieces, each
 * whole in time, are delivered however long they take together. */
START_TEST(partial_frames_share_a_budget_and_time_out)
{
    app a;
    pdk_net_limits l = small_frames();
    l.max_partial_bytes = 2048;
    l.frame_timeout_seconds = 0.5;
    app_start(&a, &l);
    client holders[3];
    for (int i = 0; i < 3; i++) {
        holders[i] = client_connect(pdk_listener_port(a.net), 0);
    }
    client good = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 4);

    /* 900 bytes of a declared 1000: each holds the frame's 1002 bytes. */
    uint8_t part[2 + 900];
    ck_assert_uint_eq(pdk_wire_varint_put(1000, part), 2);
    memset(part + 2, 0x08, 900);
    client_send(&a, &holders[0], part, sizeof part);
    pump_for(&a, 100);
    client_send(&a, &holders[1], part, sizeof part);
    pump_for(&a, 100);
    client_send(&a, &holders[2], part, sizeof part);
    expect_error_then_eof(&a, &holders[2], PADDOCK__V1__ERROR_CODE__BUSY,
                          "hold 2004 bytes of the server's limit of 2048 bytes",
                          "a frame of 1000 bytes (900 received) would need 1002 bytes held");

    /* A ping in two pieces 300 ms apart, twice: 1.2 s against 0.5 s. */
    pdk_buf ping = {0};
    for (uint64_t id = 1; id <= 2; id++) {
        pdk_buf_reset(&ping);
        build_ping(&ping, id, 7);
        client_send(&a, &good, ping.data, 3);
        pump_for(&a, 300);
        client_send(&a, &good, ping.data + 3, ping.len - 3);
        PUMP_UNTIL(&a, a.n_frames == (int)id);
        expect_pong(&a, &good, id, 7);
        pump_for(&a, 300);
    }
    pdk_buf_free(&ping);

    /* The holders were cut at their frame timeout meanwhile. */
    for (int i = 0; i < 2; i++) {
        expect_error_then_eof(&a, &holders[i], PADDOCK__V1__ERROR_CODE__TIMEOUT,
                              "a frame of 1000 bytes (900 received) was not whole 0.5 s",
                              "--frame-timeout");
    }
    ping_pong(&a, &good, 3);
    for (int i = 0; i < 3; i++) {
        client_close(&holders[i]);
    }
    client_close(&good);
    app_finish(&a);
}
END_TEST

/* A prefix claiming 4 GiB followed by body bytes: Error, EOF, nothing
 * buffered, and the peer's pending body does not keep it stuck. */
START_TEST(huge_declared_length_with_body)
{
    app a;
    pdk_net_limits l = small_frames();
    app_start(&a, &l);
    client bad = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_buf junk = {0};
    uint8_t prefix[PDK_WIRE_VARINT_MAX];
    size_t plen = pdk_wire_varint_put((uint64_t)4 << 30, prefix);
    ck_assert_int_eq(pdk_buf_append(&junk, prefix, plen), PDK_OK);
    uint8_t block[4096];
    memset(block, 0x42, sizeof block);
    for (int i = 0; i < 64; i++) {
        ck_assert_int_eq(pdk_buf_append(&junk, block, sizeof block), PDK_OK);
    }
    client_send(&a, &bad, junk.data, junk.len);
    expect_error_then_eof(&a, &bad, PADDOCK__V1__ERROR_CODE__FRAME_TOO_LARGE, "4294967296",
                          "1024");
    ck_assert_int_eq(a.n_frames, 0);
    client_close(&bad);
    PUMP_UNTIL(&a, a.closes == 1);
    pdk_buf_free(&junk);
    app_finish(&a);
}
END_TEST

typedef struct bad_input {
    const char *what;
    uint8_t bytes[16];
    size_t len;
    const char *needle1;
    const char *needle2;
} bad_input;

static const bad_input bad_inputs[] = {
    /* Length 4, then a tag with the invalid wire type 7. */
    {"garbage", {0x04, 0x0f, 0xff, 0xff, 0x01}, 5, "could not decode", "4 bytes"},
    /* Eleven continuation bytes: no varint is that long. */
    {"malformed varint",
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
     11,
     "length",
     "varint"},
    /* Length 0: a Frame without a body. */
    {"empty frame", {0x00}, 1, "could not decode", "0 bytes"},
    /* A Frame carrying only a request_id. */
    {"frame without body", {0x02, 0x08, 0x07}, 3, "could not decode", "2 bytes"},
};

START_TEST(bad_input_gets_protocol_error_then_eof)
{
    const bad_input *in = &bad_inputs[_i];
    app a;
    app_start(&a, NULL);
    client good = client_connect(pdk_listener_port(a.net), 0);
    client bad = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 2);
    /* A good frame first, then the bad bytes in the same write. */
    pdk_buf buf = {0};
    build_ping(&buf, 1, 10);
    ck_assert_int_eq(pdk_buf_append(&buf, in->bytes, in->len), PDK_OK);
    build_ping(&buf, 2, 20); /* never delivered: the stream is untrusted now */
    client_send(&a, &bad, buf.data, buf.len);
    expect_pong(&a, &bad, 1, 10);
    expect_error_then_eof(&a, &bad, PADDOCK__V1__ERROR_CODE__PROTOCOL, in->needle1, in->needle2);
    ck_assert_msg(a.n_frames == 1, "%s: %d frames delivered", in->what, a.n_frames);
    ping_pong(&a, &good, 3);
    pdk_buf_free(&buf);
    client_close(&bad);
    client_close(&good);
    app_finish(&a);
}
END_TEST

/* ---- re-entrancy -------------------------------------------------------- */

START_TEST(close_inside_on_frame_stops_delivery)
{
    app a;
    app_start(&a, NULL);
    a.mode = MODE_CLOSE_ON_FRAME;
    client c = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_buf buf = {0};
    for (uint64_t i = 1; i <= 3; i++) {
        build_ping(&buf, i, i);
    }
    client_send(&a, &c, buf.data, buf.len);
    ck_assert_ptr_null(client_read_frame(&a, &c)); /* EOF, no frames */
    ck_assert_int_eq(a.n_frames, 1);
    client_close(&c);
    PUMP_UNTIL(&a, a.closes == 1);
    pdk_buf_free(&buf);
    app_finish(&a);
}
END_TEST

START_TEST(fail_inside_on_frame_sends_error_then_eof)
{
    app a;
    app_start(&a, NULL);
    a.mode = MODE_FAIL_ON_FRAME;
    client c = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_buf buf = {0};
    build_ping(&buf, 41, 1);
    build_ping(&buf, 42, 2);
    client_send(&a, &c, buf.data, buf.len);
    Paddock__V1__Frame *f = client_read_frame(&a, &c);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->request_id, 41);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_int_eq(f->error->code, PADDOCK__V1__ERROR_CODE__VERSION);
    ck_assert_str_eq(f->error->message, "protocol version 9 is not supported");
    paddock__v1__frame__free_unpacked(f, NULL);
    ck_assert_ptr_null(client_read_frame(&a, &c));
    ck_assert_int_eq(a.n_frames, 1);
    pdk_buf_free(&buf);
    client_close(&c);
    app_finish(&a);
}
END_TEST

START_TEST(net_close_inside_on_frame)
{
    app a;
    app_start(&a, NULL);
    a.mode = MODE_NET_CLOSE_ON_FRAME;
    client c1 = client_connect(pdk_listener_port(a.net), 0);
    client c2 = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 2);
    pdk_buf buf = {0};
    build_ping(&buf, 1, 1);
    build_ping(&buf, 2, 2);
    client_send(&a, &c1, buf.data, buf.len);
    PUMP_UNTIL(&a, a.net == NULL);
    ck_assert_int_eq(uv_run(&a.loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(a.n_frames, 1);
    ck_assert_int_eq(a.closes, 2);
    ck_assert_ptr_null(client_read_frame(&a, &c2)); /* the loop has nothing left to run */
    ck_assert_int_eq(uv_loop_close(&a.loop), 0);
    pdk_buf_free(&buf);
    client_close(&c1);
    client_close(&c2);
}
END_TEST

START_TEST(net_close_calls_on_close_for_each)
{
    app a;
    app_start(&a, NULL);
    client cs[3];
    for (int i = 0; i < 3; i++) {
        cs[i] = client_connect(pdk_listener_port(a.net), 0);
    }
    PUMP_UNTIL(&a, a.opens == 3);
    /* One of them with a reply still queued. */
    send_pong(a.conns[1], 5, 5);
    pdk_listener_close(a.net);
    a.net = NULL;
    ck_assert_int_eq(a.closes, 0); /* from the loop, not from inside close */
    ck_assert_int_eq(uv_run(&a.loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(a.closes, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert(a.conn_gone[i]);
    }
    ck_assert_int_eq(uv_loop_close(&a.loop), 0);
    for (int i = 0; i < 3; i++) {
        client_close(&cs[i]);
    }
    pdk_listener_close(NULL);
}
END_TEST

/* ---- outbound ------------------------------------------------------------- */

/* A state frame (Frame.state_batch) of about 2 KB carrying tick. */
static void build_state(pdk_buf *out, uint64_t tick)
{
    Paddock__V1__VehicleState vs[16];
    Paddock__V1__VehicleState *ptrs[16];
    for (int i = 0; i < 16; i++) {
        paddock__v1__vehicle_state__init(&vs[i]);
        vs[i].vehicle_id = (uint32_t)i + 1;
        vs[i].x_m = (double)tick + i;
        vs[i].y_m = 1.0 + i;
        vs[i].z_m = 0.25;
        vs[i].yaw_rad = 0.5;
        vs[i].vx_mps = 3.0;
        vs[i].vy_mps = 0.125;
        vs[i].yaw_rate_radps = 0.0625;
        vs[i].steer_angle_rad = 0.03125;
        vs[i].speed_mps = 3.5;
        vs[i].ax_mps2 = -1.0;
        vs[i].ay_mps2 = 2.0;
        ptrs[i] = &vs[i];
    }
    Paddock__V1__StateBatch sb = PADDOCK__V1__STATE_BATCH__INIT;
    sb.subscription_id = 1;
    sb.session_id = 1;
    sb.tick = tick;
    sb.n_vehicles = 16;
    sb.vehicles = ptrs;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_STATE_BATCH;
    f.state_batch = &sb;
    ck_assert_int_eq(pdk_wire_frame_append(out, &f), PDK_OK);
}

START_TEST(latest_wins_bounds_queue_and_keeps_replies)
{
    app a;
    app_start(&a, NULL);
    client c = client_connect(pdk_listener_port(a.net), 4096);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_conn *conn = a.conns[0];

    pdk_buf frame = {0};
    uint64_t sent_states = 0;
    uint64_t sent_replies = 0;
    pdk_conn_stats st = {0};
    size_t max_queued = 0;
    while (st.state_dropped < 500) {
        ck_assert_msg(sent_states < 200000, "state frames were never conflated");
        pdk_buf_reset(&frame);
        build_state(&frame, ++sent_states);
        ck_assert_int_eq(pdk_conn_send_state(conn, 1, frame.data, frame.len), PDK_OK);
        if (sent_states % 50 == 0) {
            send_pong(conn, 0, ++sent_replies);
        }
        uv_run(&a.loop, UV_RUN_NOWAIT);
        pdk_conn_stats_get(conn, &st);
        max_queued = st.queued_bytes > max_queued ? st.queued_bytes : max_queued;
    }
    /* Bounded: what libuv holds plus one state frame plus the replies,
     * while the client has not read a byte of megabytes of state. */
    ck_assert_uint_gt(sent_states * frame.len, 4 * st.queued_bytes);
    ck_assert_uint_lt(max_queued, pdk_net_limits_default().out_soft_bytes);
    ck_assert_int_eq(a.closes, 0);

    /* Now it reads: replies in order, states increasing, the latest last. */
    uint64_t replies = 0;
    uint64_t states = 0;
    uint64_t last_tick = 0;
    while (replies < sent_replies || last_tick < sent_states) {
        Paddock__V1__Frame *f = client_read_frame(&a, &c);
        ck_assert_ptr_nonnull(f);
        if (f->body_case == PADDOCK__V1__FRAME__BODY_PONG) {
            ck_assert_uint_eq(f->pong->client_time_ns, ++replies);
        } else {
            ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_STATE_BATCH);
            ck_assert_uint_gt(f->state_batch->tick, last_tick);
            last_tick = f->state_batch->tick;
            ck_assert_double_eq(f->state_batch->vehicles[15]->x_m, (double)last_tick + 15);
            states++;
        }
        paddock__v1__frame__free_unpacked(f, NULL);
    }
    pdk_conn_stats_get(conn, &st);
    /* Every state frame was either delivered or counted as dropped. */
    ck_assert_uint_eq(states + st.state_dropped, sent_states);
    ck_assert_uint_eq(replies, sent_replies);
    PUMP_UNTIL(&a, (pdk_conn_stats_get(conn, &st), st.queued_bytes == 0));
    ck_assert_uint_eq(st.frames_out, states + replies);
    pdk_buf_free(&frame);
    client_close(&c);
    app_finish(&a);
}
END_TEST

/* A reply too big for the queue; the message pads it to about 4 KB. */
static void build_big_reply(pdk_buf *out, uint64_t request_id)
{
    char msg[4000];
    memset(msg, 'r', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    ck_assert_int_eq(pdk_wire_error_append(out, request_id, PDK_ERR_NOT_FOUND, msg), PDK_OK);
}

START_TEST(hard_limit_closes_connection)
{
    app a;
    pdk_net_limits l = pdk_net_limits_default();
    l.out_soft_bytes = 16 * 1024;
    l.out_hard_bytes = 64 * 1024;
    l.out_soft_seconds = 600.0;
    app_start(&a, &l);
    client slow = client_connect(pdk_listener_port(a.net), 4096);
    client other = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 2);
    pdk_conn *conn = a.conns[0];
    pdk_buf reply = {0};
    build_big_reply(&reply, 1);
    pdk_error err = PDK_OK;
    size_t last_queued = 0;
    int sent = 0;
    while (err == PDK_OK) {
        ck_assert_int_lt(sent, 100000);
        pdk_conn_stats st;
        pdk_conn_stats_get(conn, &st);
        last_queued = st.queued_bytes;
        err = pdk_conn_send(conn, reply.data, reply.len);
        sent++;
        uv_run(&a.loop, UV_RUN_NOWAIT);
    }
    ck_assert_int_eq(err, PDK_ERR_CLOSED);
    /* The queue counts what goes on the wire: the prefix too. */
    uint8_t prefix[PDK_WIRE_VARINT_MAX];
    size_t reply_wire_len = pdk_wire_varint_put(reply.len, prefix) + reply.len;
    ck_assert_uint_le(last_queued, l.out_hard_bytes);
    ck_assert_uint_gt(last_queued + reply_wire_len, l.out_hard_bytes);
    PUMP_UNTIL(&a, a.closes == 1);
    ck_assert(a.conn_gone[0]);
    ping_pong(&a, &other, 5); /* the neighbour is fine */
    pdk_buf_free(&reply);
    client_close(&slow);
    client_close(&other);
    app_finish(&a);
}
END_TEST

START_TEST(soft_limit_drops_state_then_closes_after_grace)
{
    app a;
    pdk_net_limits l = pdk_net_limits_default();
    l.out_soft_bytes = 8 * 1024;
    l.out_soft_seconds = 0.3;
    app_start(&a, &l);
    client slow = client_connect(pdk_listener_port(a.net), 4096);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_conn *conn = a.conns[0];
    pdk_buf reply = {0};
    build_big_reply(&reply, 1);
    pdk_conn_stats st = {0};
    int sent = 0;
    while (st.queued_bytes <= l.out_soft_bytes) {
        ck_assert_int_lt(sent++, 100000);
        ck_assert_int_eq(pdk_conn_send(conn, reply.data, reply.len), PDK_OK);
        uv_run(&a.loop, UV_RUN_NOWAIT);
        pdk_conn_stats_get(conn, &st);
    }
    uint64_t over_at = now_ms();
    /* Over soft: a state frame with no pending predecessor is dropped. */
    pdk_buf state = {0};
    build_state(&state, 1);
    size_t before = st.queued_bytes;
    ck_assert_int_eq(pdk_conn_send_state(conn, 7, state.data, state.len), PDK_OK);
    pdk_conn_stats_get(conn, &st);
    ck_assert_uint_eq(st.state_dropped, 1);
    ck_assert_uint_eq(st.queued_bytes, before);
    /* Replies still queue. */
    ck_assert_int_eq(pdk_conn_send(conn, reply.data, reply.len), PDK_OK);
    ck_assert_int_eq(a.closes, 0);
    PUMP_UNTIL(&a, a.closes == 1);
    uint64_t took = now_ms() - over_at;
    ck_assert_msg(took >= 250 && took < 2000, "closed %llu ms after going over soft",
                  (unsigned long long)took);
    pdk_buf_free(&reply);
    pdk_buf_free(&state);
    client_close(&slow);
    app_finish(&a);
}
END_TEST

START_TEST(send_refuses_bad_frames)
{
    app a;
    pdk_net_limits l = small_frames();
    app_start(&a, &l);
    client c = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 1);
    pdk_conn *conn = a.conns[0];
    char name[1100];
    pdk_buf big = {0};
    hello_of_size(&big, 1025, name, sizeof name, false);
    ck_assert_int_eq(pdk_conn_send(conn, big.data, big.len), PDK_ERR_FRAME_TOO_LARGE);
    ck_assert_int_eq(pdk_conn_send_state(conn, 1, big.data, big.len), PDK_ERR_FRAME_TOO_LARGE);
    pdk_buf ping = {0};
    add_ping(&ping, 1, 1, false);
    ck_assert_int_eq(pdk_conn_send(conn, ping.data, ping.len - 1), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_conn_send(conn, ping.data, 0), PDK_ERR_INVALID_ARGUMENT);
    add_ping(&ping, 2, 2, false); /* two frames in one send */
    ck_assert_int_eq(pdk_conn_send(conn, ping.data, ping.len), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_conn_send(NULL, ping.data, ping.len), PDK_ERR_INVALID_ARGUMENT);
    uint8_t empty = 0;
    ck_assert_int_eq(pdk_conn_send(conn, &empty, 1), PDK_ERR_INVALID_ARGUMENT);
    pdk_conn_stats st;
    pdk_conn_stats_get(conn, &st);
    ck_assert_uint_eq(st.queued_bytes, 0);
    /* After a close nothing more is taken. */
    pdk_conn_close(conn);
    ck_assert_int_eq(pdk_conn_send(conn, ping.data, ping.len / 2), PDK_ERR_CLOSED);
    ck_assert_int_eq(pdk_conn_send_state(conn, 1, ping.data, ping.len / 2), PDK_ERR_CLOSED);
    ck_assert_ptr_null(client_read_frame(&a, &c));
    pdk_buf_free(&big);
    pdk_buf_free(&ping);
    client_close(&c);
    app_finish(&a);
}
END_TEST

/* ---- accepting ---------------------------------------------------------- */

START_TEST(max_connections_refused_with_busy)
{
    app a;
    pdk_net_limits l = pdk_net_limits_default();
    l.max_connections = 2;
    app_start(&a, &l);
    client c1 = client_connect(pdk_listener_port(a.net), 0);
    client c2 = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 2);
    client c3 = client_connect(pdk_listener_port(a.net), 0);
    expect_error_then_eof(&a, &c3, PADDOCK__V1__ERROR_CODE__BUSY, "limit", "2 connections");
    ck_assert_int_eq(a.opens, 2);
    ping_pong(&a, &c1, 1);
    ping_pong(&a, &c2, 2);
    /* A slot freed is a slot available again. */
    client_close(&c1);
    PUMP_UNTIL(&a, a.closes == 1);
    client c4 = client_connect(pdk_listener_port(a.net), 0);
    PUMP_UNTIL(&a, a.opens == 3);
    ping_pong(&a, &c4, 4);
    client_close(&c2);
    client_close(&c3);
    client_close(&c4);
    app_finish(&a);
}
END_TEST

START_TEST(bad_listen_address_is_invalid_argument)
{
    static const char *bad[] = {
        "",           "7420",          "127.0.0.1",  "127.0.0.1:",     "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1:80x", ":7420",      "::1:7420",       "[::1]7420",
        "[::1:7420",  "[]:7420",       "999.1.1.1:1", "example.com:80", "[127.0.0.1]:80",
    };
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        pdk_listener *net = (pdk_listener *)&loop; /* must be overwritten with NULL */
        ck_assert_int_eq(pdk_tcp_listen(&loop, bad[i], NULL, &callbacks, NULL, &net, err,
                                        sizeof err),
                         PDK_ERR_INVALID_ARGUMENT);
        ck_assert_ptr_null(net);
        ck_assert_msg(strstr(err, "listen address") != NULL, "\"%s\": %s", bad[i], err);
    }
    pdk_listener *net = NULL;
    char err[256] = "";
    pdk_net_limits l = pdk_net_limits_default();
    l.max_connections = 0;
    ck_assert_int_eq(
        pdk_tcp_listen(&loop, "127.0.0.1:0", &l, &callbacks, NULL, &net, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "max_connections") != NULL, "%s", err);
    l = pdk_net_limits_default();
    l.max_connections_per_host = -1;
    ck_assert_int_eq(
        pdk_tcp_listen(&loop, "127.0.0.1:0", &l, &callbacks, NULL, &net, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "max_connections_per_host -1") != NULL, "%s", err);
    l = pdk_net_limits_default();
    l.out_soft_bytes = l.out_hard_bytes + 1;
    ck_assert_int_eq(
        pdk_tcp_listen(&loop, "127.0.0.1:0", &l, &callbacks, NULL, &net, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "out_soft_bytes") != NULL, "%s", err);
    l = pdk_net_limits_default();
    l.frame_timeout_seconds = 0;
    ck_assert_int_eq(
        pdk_tcp_listen(&loop, "127.0.0.1:0", &l, &callbacks, NULL, &net, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "frame_timeout_seconds 0 is outside") != NULL, "%s", err);
    l = pdk_net_limits_default();
    l.max_partial_bytes = l.max_frame_bytes - 1;
    ck_assert_int_eq(
        pdk_tcp_listen(&loop, "127.0.0.1:0", &l, &callbacks, NULL, &net, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "max_partial_bytes 1048575 is below") != NULL, "%s", err);
    ck_assert_int_eq(pdk_tcp_listen(&loop, NULL, NULL, &callbacks, NULL, &net, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(port_in_use_is_net_error)
{
    app a;
    app_start(&a, NULL);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", pdk_listener_port(a.net));
    pdk_listener *second = NULL;
    char err[256] = "";
    ck_assert_int_eq(
        pdk_tcp_listen(&a.loop, addr, NULL, &callbacks, &a, &second, err, sizeof err),
        PDK_ERR_NET);
    ck_assert_ptr_null(second);
    ck_assert_msg(strstr(err, "address already in use") != NULL && strstr(err, addr) != NULL,
                  "%s", err);
    /* The first listener still works. */
    client c = client_connect(pdk_listener_port(a.net), 0);
    ping_pong(&a, &c, 1);
    client_close(&c);
    app_finish(&a); /* also frees the failed listener */
}
END_TEST

START_TEST(ipv6_loopback_listens_when_available)
{
    int probe = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 sin6;
    memset(&sin6, 0, sizeof sin6);
    sin6.sin6_family = AF_INET6;
    sin6.sin6_addr = in6addr_loopback;
    bool have_v6 = probe >= 0 && bind(probe, (struct sockaddr *)&sin6, sizeof sin6) == 0;
    if (probe >= 0) {
        close(probe);
    }
    if (!have_v6) {
        fprintf(stderr, "test_net: no IPv6 loopback here; [::1] listen not exercised\n");
        return;
    }
    app a;
    memset(&a, 0, sizeof a);
    ck_assert_int_eq(uv_loop_init(&a.loop), 0);
    char err[256];
    ck_assert_int_eq(
        pdk_tcp_listen(&a.loop, "[::1]:0", NULL, &callbacks, &a, &a.net, err, sizeof err),
        PDK_OK);
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    sin6.sin6_port = htons((uint16_t)pdk_listener_port(a.net));
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin6, sizeof sin6), 0);
    ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
    client c = {.fd = fd};
    PUMP_UNTIL(&a, a.opens == 1);
    ck_assert_msg(strncmp(pdk_conn_peer(a.conns[0]), "[::1]:", 6) == 0, "peer %s",
                  pdk_conn_peer(a.conns[0]));
    ping_pong(&a, &c, 6);
    client_close(&c);
    app_finish(&a);
}
END_TEST

static Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("tcp");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, good_frame_delivered_intact);
    tcase_add_test(tc, coalesced_and_split_frames_delivered);
    tcase_add_test(tc, oversized_frame_refused_others_unaffected);
    tcase_add_test(tc, huge_declared_length_with_body);
    tcase_add_test(tc, partial_frames_share_a_budget_and_time_out);
    tcase_add_loop_test(tc, bad_input_gets_protocol_error_then_eof, 0,
                        (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
    tcase_add_test(tc, close_inside_on_frame_stops_delivery);
    tcase_add_test(tc, fail_inside_on_frame_sends_error_then_eof);
    tcase_add_test(tc, net_close_inside_on_frame);
    tcase_add_test(tc, net_close_calls_on_close_for_each);
    tcase_add_test(tc, latest_wins_bounds_queue_and_keeps_replies);
    tcase_add_test(tc, hard_limit_closes_connection);
    tcase_add_test(tc, soft_limit_drops_state_then_closes_after_grace);
    tcase_add_test(tc, send_refuses_bad_frames);
    tcase_add_test(tc, max_connections_refused_with_busy);
    tcase_add_test(tc, bad_listen_address_is_invalid_argument);
    tcase_add_test(tc, port_in_use_is_net_error);
    tcase_add_test(tc, ipv6_loopback_listens_when_available);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(net_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
