/* Unit tests of the C client library (clients/c) against dead and broken
 * peers (raw sockets in a thread of this test), of the paddock CLI's pure
 * helpers (clients/cli/cli_util.c, dbw_rows.c), and of the DBW link
 * (clients/c/paddock_dbw.c): its CRC-8 against the server's own
 * (server/sim/dbw.c, linked through pdk_params), its rolling counters, and
 * one drive against the real paddockd on loopback. The rest of what needs a
 * real paddockd is in tests/integration. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pb_encode.h>

#include "cli_util.h"
#include "dbw.h"
#include "dbw_rows.h"
#include "paddock_client.h"
#include "paddock_dbw.h"

/* --- helpers ------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Large objects live here, not on the test's stack. */
static pdk_client client;
static paddock_v1_Frame frame_a;
static paddock_v1_Frame frame_b;

/* A listening socket on 127.0.0.1 with a kernel-chosen port. */
static int listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 4), 0);
    socklen_t len = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* A scripted peer: it accepts one connection, and for each entry of
 * replies it waits for one whole frame from the client and then writes the
 * entry's bytes (which may be empty, or not a frame at all). Afterwards it
 * closes at once (close_after) or holds the connection, reading and never
 * answering, until the client closes. It knows nothing of the protocol
 * beyond frame boundaries. */
enum { PEER_MAX_REPLIES = 4, PEER_BUF = 1 << 17 };

typedef struct peer {
    int lfd;
    int port;
    pthread_t thread;
    const uint8_t *replies[PEER_MAX_REPLIES];
    size_t reply_len[PEER_MAX_REPLIES];
    int n_replies;
    int close_after;
    int dribble; /* write replies a few bytes at a time */
    int frames_read;
} peer;

static uint8_t peer_in[PEER_BUF];

static int wait_readable(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    return poll(&p, 1, ms);
}

/* Reads until one whole delimited frame is in; keeps the rest. */
static int peer_read_frame(int fd, size_t *have)
{
    for (;;) {
        uint64_t len = 0;
        size_t i = 0;
        int complete = 0;
        while (i < *have && i < 10) {
            len |= (uint64_t)(peer_in[i] & 0x7f) << (7 * i);
            if ((peer_in[i++] & 0x80) == 0) {
                complete = 1;
                break;
            }
        }
        if (complete && *have >= i + len) {
            memmove(peer_in, peer_in + i + len, *have - i - len);
            *have -= i + len;
            return 0;
        }
        if (wait_readable(fd, 5000) <= 0) {
            return -1;
        }
        ssize_t n = recv(fd, peer_in + *have, sizeof peer_in - *have, 0);
        if (n <= 0) {
            return -1;
        }
        *have += (size_t)n;
    }
}

static void peer_write(int fd, const uint8_t *b, size_t n, int dribble)
{
    size_t step = dribble ? 3 : n;
    for (size_t off = 0; off < n; off += step) {
        size_t k = n - off < step ? n - off : step;
        if (send(fd, b + off, k, MSG_NOSIGNAL) < 0) {
            return;
        }
        if (dribble) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

static void *peer_main(void *arg)
{
    peer *p = arg;
    if (wait_readable(p->lfd, 5000) <= 0) {
        return NULL;
    }
    int fd = accept(p->lfd, NULL, NULL);
    if (fd < 0) {
        return NULL;
    }
    size_t have = 0;
    for (int i = 0; i < p->n_replies; i++) {
        if (peer_read_frame(fd, &have) != 0) {
            close(fd);
            return NULL;
        }
        p->frames_read++;
        peer_write(fd, p->replies[i], p->reply_len[i], p->dribble);
    }
    if (!p->close_after) {
        uint8_t sink[512];
        while (wait_readable(fd, 5000) > 0 && recv(fd, sink, sizeof sink, 0) > 0) {
        }
    }
    close(fd);
    return NULL;
}

static void peer_start(peer *p)
{
    p->lfd = listen_loopback(&p->port);
    ck_assert_int_eq(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static void peer_join(peer *p)
{
    pthread_join(p->thread, NULL);
    close(p->lfd);
}

static void peer_addr(const peer *p, char *out, size_t n)
{
    snprintf(out, n, "127.0.0.1:%d", p->port);
}

/* Encodes f in the delimited form the protocol uses. */
static size_t encode_frame(uint8_t *buf, size_t cap, const paddock_v1_Frame *f)
{
    pb_ostream_t os = pb_ostream_from_buffer(buf, cap);
    ck_assert_msg(pb_encode_delimited(&os, paddock_v1_Frame_fields, f), "%s", PB_GET_ERROR(&os));
    return os.bytes_written;
}

static size_t encode_welcome(uint8_t *buf, size_t cap, uint64_t id, uint32_t version)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.request_id = id;
    f.which_body = paddock_v1_Frame_welcome_tag;
    f.body.welcome.protocol_version = version;
    strcpy(f.body.welcome.server_version, "9.9.9");
    strcpy(f.body.welcome.build_id, "test");
    f.body.welcome.tick_rate_hz = 120;
    f.body.welcome.max_frame_bytes = 1u << 20;
    return encode_frame(buf, cap, &f);
}

static size_t encode_error(uint8_t *buf, size_t cap, uint64_t id, paddock_v1_ErrorCode code,
                           const char *msg)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.request_id = id;
    f.which_body = paddock_v1_Frame_error_tag;
    f.body.error.code = code;
    snprintf(f.body.error.message, sizeof f.body.error.message, "%s", msg);
    return encode_frame(buf, cap, &f);
}

/* Connects to a peer whose only script is `reply` after the Hello. */
static pdk_client_status connect_to_peer(peer *p, const uint8_t *reply, size_t len, int close_after,
                                         int timeout_ms)
{
    p->replies[0] = reply;
    p->reply_len[0] = len;
    p->n_replies = 1;
    p->close_after = close_after;
    peer_start(p);
    char addr[64];
    peer_addr(p, addr, sizeof addr);
    return pdk_client_connect(&client, addr, timeout_ms, NULL);
}

/* --- addresses ----------------------------------------------------------- */

START_TEST(server_address_precedence)
{
    unsetenv("PADDOCK_SERVER");
    ck_assert_str_eq(pdk_client_server_address(NULL), PDK_CLIENT_DEFAULT_SERVER);
    ck_assert_str_eq(pdk_client_server_address(""), PDK_CLIENT_DEFAULT_SERVER);
    ck_assert_str_eq(pdk_client_server_address("10.0.0.9:1"), "10.0.0.9:1");

    setenv("PADDOCK_SERVER", "[::1]:9000", 1);
    ck_assert_str_eq(pdk_client_server_address(NULL), "[::1]:9000");
    ck_assert_str_eq(pdk_client_server_address(""), "[::1]:9000");
    ck_assert_str_eq(pdk_client_server_address("h:2"), "h:2");

    setenv("PADDOCK_SERVER", "", 1);
    ck_assert_str_eq(pdk_client_server_address(NULL), PDK_CLIENT_DEFAULT_SERVER);
    unsetenv("PADDOCK_SERVER");
}
END_TEST

static const struct {
    const char *addr;
    const char *why;
} BAD_ADDRESSES[] = {
    {"localhost", "no port"},
    {"localhost:", "is not a number"},
    {":7420", "no host"},
    {"localhost:0", "outside 1..65535"},
    {"localhost:65536", "outside 1..65535"},
    {"localhost:123456", "is not a number"},
    {"localhost:74x0", "is not a number"},
    {"localhost:-1", "is not a number"},
    {"::1:7420", "needs brackets"},
    {"[::1", "without ']'"},
    {"[::1]7420", "expected ':PORT'"},
    {"[]:7420", "no host"},
    {"[::1]:", "is not a number"},
    {"no-such-host.invalid:7420", "cannot resolve"},
};

START_TEST(bad_address_is_eaddr)
{
    const char *addr = BAD_ADDRESSES[_i].addr;
    pdk_client_status st = pdk_client_connect(&client, addr, 1000, NULL);
    ck_assert_msg(st == PDK_CLIENT_EADDR, "%s: got %s (%s)", addr, pdk_client_status_name(st),
                  client.error);
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\"", addr);
    ck_assert_msg(strstr(client.error, quoted) != NULL, "%s: message does not name it: %s", addr,
                  client.error);
    ck_assert_msg(strstr(client.error, BAD_ADDRESSES[_i].why) != NULL, "%s: %s", addr,
                  client.error);
    ck_assert(!pdk_client_is_connected(&client));
    pdk_client_close(&client);
}
END_TEST

START_TEST(missing_address_is_eaddr)
{
    ck_assert_int_eq(pdk_client_connect(&client, NULL, 1000, NULL), PDK_CLIENT_EADDR);
    ck_assert_int_eq(pdk_client_connect(&client, "", 1000, NULL), PDK_CLIENT_EADDR);
    ck_assert_ptr_nonnull(strstr(client.error, "no server address"));
}
END_TEST

/* --- connection failures ------------------------------------------------- */

START_TEST(connect_refused_is_econnect)
{
    /* Bound but not listening: the port is ours, and nobody accepts on it. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));

    double t0 = now_ms();
    pdk_client_status st = pdk_client_connect(&client, addr, 2000, NULL);
    ck_assert_msg(st == PDK_CLIENT_ECONNECT, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "refused") != NULL, "%s", client.error);
    ck_assert_double_lt(now_ms() - t0, 1000.0);
    ck_assert(!pdk_client_is_connected(&client));
    close(fd);
}
END_TEST

START_TEST(connect_by_name_reports_resolved_peer)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    char addr[64];
    snprintf(addr, sizeof addr, "localhost:%d", ntohs(a.sin_port));
    ck_assert_int_eq(pdk_client_connect(&client, addr, 2000, NULL), PDK_CLIENT_ECONNECT);
    /* A name says less than the address it resolved to, which is added. */
    char port_text[16];
    snprintf(port_text, sizeof port_text, ":%d)", ntohs(a.sin_port));
    ck_assert_msg(strstr(client.error, port_text) != NULL, "%s", client.error);
    close(fd);
}
END_TEST

START_TEST(silent_peer_is_etimeout)
{
    peer p;
    memset(&p, 0, sizeof p);
    peer_start(&p); /* accepts, reads, never answers */
    char addr[64];
    peer_addr(&p, addr, sizeof addr);
    double t0 = now_ms();
    pdk_client_status st = pdk_client_connect(&client, addr, 300, NULL);
    double took = now_ms() - t0;
    ck_assert_msg(st == PDK_CLIENT_ETIMEOUT, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(took >= 290.0 && took < 2000.0, "took %.0f ms", took);
    ck_assert_msg(strstr(client.error, "Welcome") != NULL, "%s", client.error);
    ck_assert(!pdk_client_is_connected(&client));
    peer_join(&p);
}
END_TEST

START_TEST(garbage_is_eproto)
{
    static const char http[] = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                               "Content-Length: 11\r\nConnection: close\r\n\r\nBad Request";
    peer p;
    memset(&p, 0, sizeof p);
    pdk_client_status st = connect_to_peer(&p, (const uint8_t *)http, sizeof http - 1, 0, 2000);
    ck_assert_msg(st == PDK_CLIENT_EPROTO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "not a paddock.v1.Frame") != NULL, "%s", client.error);
    ck_assert(!pdk_client_is_connected(&client));
    peer_join(&p);
}
END_TEST

START_TEST(overlong_varint_is_eproto)
{
    static const uint8_t bad[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                    0x80, 0x80, 0x80, 0x80, 0x01};
    peer p;
    memset(&p, 0, sizeof p);
    double t0 = now_ms();
    pdk_client_status st = connect_to_peer(&p, bad, sizeof bad, 0, 3000);
    ck_assert_msg(st == PDK_CLIENT_EPROTO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "malformed frame length") != NULL, "%s", client.error);
    ck_assert_double_lt(now_ms() - t0, 1500.0);
    peer_join(&p);
}
END_TEST

START_TEST(frame_longer_than_rx_is_eproto)
{
    /* Only the prefix is sent: the client must refuse it without waiting
     * for bytes it could never hold. */
    uint8_t prefix[8];
    pb_ostream_t os = pb_ostream_from_buffer(prefix, sizeof prefix);
    ck_assert(pb_encode_varint(&os, PDK_CLIENT_RX_BYTES + 1u));
    peer p;
    memset(&p, 0, sizeof p);
    double t0 = now_ms();
    pdk_client_status st = connect_to_peer(&p, prefix, os.bytes_written, 0, 3000);
    ck_assert_msg(st == PDK_CLIENT_EPROTO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "receive buffer") != NULL, "%s", client.error);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%u", PDK_CLIENT_RX_BYTES + 1u);
    ck_assert_msg(strstr(client.error, size_text) != NULL, "%s", client.error);
    ck_assert_double_lt(now_ms() - t0, 1500.0);
    peer_join(&p);
}
END_TEST

START_TEST(peer_that_closes_is_eio)
{
    peer p;
    memset(&p, 0, sizeof p);
    pdk_client_status st = connect_to_peer(&p, NULL, 0, 1, 2000);
    ck_assert_msg(st == PDK_CLIENT_EIO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "closed") != NULL, "%s", client.error);
    ck_assert_int_eq(p.frames_read, 1); /* it did get our Hello */
    peer_join(&p);
}
END_TEST

START_TEST(error_reply_to_hello_is_eserver)
{
    uint8_t buf[1024];
    size_t n = encode_error(buf, sizeof buf, 1, paddock_v1_ErrorCode_VERSION,
                            "protocol version 1 is not served here");
    peer p;
    memset(&p, 0, sizeof p);
    pdk_client_status st = connect_to_peer(&p, buf, n, 0, 2000);
    ck_assert_msg(st == PDK_CLIENT_ESERVER, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_int_eq(client.server_code, paddock_v1_ErrorCode_VERSION);
    ck_assert_str_eq(client.error, "VERSION: protocol version 1 is not served here");
    ck_assert(!pdk_client_is_connected(&client));
    peer_join(&p);
}
END_TEST

START_TEST(welcome_of_another_version_is_eproto)
{
    uint8_t buf[256];
    size_t n = encode_welcome(buf, sizeof buf, 1, 2);
    peer p;
    memset(&p, 0, sizeof p);
    pdk_client_status st = connect_to_peer(&p, buf, n, 0, 2000);
    ck_assert_msg(st == PDK_CLIENT_EPROTO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "protocol version 2") != NULL, "%s", client.error);
    peer_join(&p);
}
END_TEST

START_TEST(reply_of_wrong_kind_to_hello_is_eproto)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.request_id = 1;
    f.which_body = paddock_v1_Frame_pong_tag;
    uint8_t buf[256];
    size_t n = encode_frame(buf, sizeof buf, &f);
    peer p;
    memset(&p, 0, sizeof p);
    pdk_client_status st = connect_to_peer(&p, buf, n, 0, 2000);
    ck_assert_int_eq(st, PDK_CLIENT_EPROTO);
    ck_assert_msg(strstr(client.error, "got pong") != NULL, "%s", client.error);
    peer_join(&p);
}
END_TEST

/* --- requests on a connection ------------------------------------------- */

static int pushes_seen;
static uint64_t pushed_tick;
static void count_push(const paddock_v1_Frame *f, void *ud)
{
    ck_assert_ptr_eq(ud, &pushes_seen);
    ck_assert_uint_eq(f->request_id, 0);
    if (f->which_body == paddock_v1_Frame_state_batch_tag) {
        pushed_tick = f->body.state_batch.tick;
    }
    pushes_seen++;
}

/* The peer plays back fixed bytes: a Welcome (dribbled a few bytes at a
 * time), then for the first request a pushed StateBatch, a reply to a
 * request id the client never used, and the reply to request 2; then an
 * Error for request 3; then nothing. The client must sort them by id. */
START_TEST(call_matches_ids_and_routes_pushes)
{
    static uint8_t welcome[256];
    static uint8_t first[8192];
    static uint8_t second[1024];
    size_t nw = encode_welcome(welcome, sizeof welcome, 1, 1);

    static paddock_v1_Frame f;
    size_t n1 = 0;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_state_batch_tag;
    f.body.state_batch.tick = 4242;
    f.body.state_batch.vehicles_count = 3;
    n1 += encode_frame(first + n1, sizeof first - n1, &f);
    memset(&f, 0, sizeof f);
    f.request_id = 77;
    f.which_body = paddock_v1_Frame_ok_tag;
    n1 += encode_frame(first + n1, sizeof first - n1, &f);
    memset(&f, 0, sizeof f);
    f.request_id = 2;
    f.which_body = paddock_v1_Frame_pong_tag;
    f.body.pong.client_time_ns = 123;
    f.body.pong.server_time_ns = 456;
    n1 += encode_frame(first + n1, sizeof first - n1, &f);
    size_t n2 = encode_error(second, sizeof second, 3, paddock_v1_ErrorCode_NOT_FOUND,
                             "session 9 does not exist");

    peer p;
    memset(&p, 0, sizeof p);
    p.replies[0] = welcome;
    p.reply_len[0] = nw;
    p.replies[1] = first;
    p.reply_len[1] = n1;
    p.replies[2] = second;
    p.reply_len[2] = n2;
    p.n_replies = 3;
    p.dribble = 1;
    peer_start(&p);
    char addr[64];
    peer_addr(&p, addr, sizeof addr);

    static paddock_v1_Welcome w;
    ck_assert_int_eq(pdk_client_connect_as(&client, addr, 2000, "unit-test", &w), PDK_CLIENT_OK);
    ck_assert(pdk_client_is_connected(&client));
    ck_assert_uint_eq(w.protocol_version, 1);
    ck_assert_str_eq(w.server_version, "9.9.9");
    ck_assert_uint_eq(w.tick_rate_hz, 120);

    /* One Frame serves as request and reply. */
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_ping_tag;
    frame_a.body.ping.client_time_ns = 123;
    pushes_seen = 0;
    pdk_client_status st = pdk_client_call(&client, &frame_a, &frame_a, count_push, &pushes_seen);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_uint_eq(frame_a.request_id, 2);
    ck_assert_int_eq(frame_a.which_body, paddock_v1_Frame_pong_tag);
    ck_assert_uint_eq(frame_a.body.pong.server_time_ns, 456);
    ck_assert_int_eq(pushes_seen, 1);
    ck_assert_uint_eq(pushed_tick, 4242);
    ck_assert_int_eq(pdk_client_expect(&client, &frame_a, paddock_v1_Frame_pong_tag),
                     PDK_CLIENT_OK);

    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_session_close_tag;
    frame_a.body.session_close.session_id = 9;
    st = pdk_client_call(&client, &frame_a, &frame_b, NULL, NULL);
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_int_eq(client.server_code, paddock_v1_ErrorCode_NOT_FOUND);
    ck_assert_str_eq(client.error, "NOT_FOUND: session 9 does not exist");
    ck_assert(pdk_client_is_connected(&client)); /* a refusal is not a broken stream */

    /* The peer now stays silent: a timeout, and the connection stays. */
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_session_list_tag;
    client.timeout_ms = 150;
    double t0 = now_ms();
    st = pdk_client_call(&client, &frame_a, &frame_b, NULL, NULL);
    double took = now_ms() - t0;
    ck_assert_int_eq(st, PDK_CLIENT_ETIMEOUT);
    ck_assert_msg(took >= 140.0 && took < 1500.0, "took %.0f ms", took);
    ck_assert_msg(strstr(client.error, "request 4 (session_list)") != NULL, "%s", client.error);
    ck_assert(pdk_client_is_connected(&client));

    ck_assert_int_eq(pdk_client_recv(&client, &frame_b, 0), PDK_CLIENT_ETIMEOUT);
    ck_assert_int_eq(pdk_client_recv(&client, &frame_b, 50), PDK_CLIENT_ETIMEOUT);
    ck_assert(pdk_client_is_connected(&client));

    pdk_client_close(&client);
    ck_assert(!pdk_client_is_connected(&client));
    pdk_client_close(&client); /* twice is fine */
    peer_join(&p);
    ck_assert_int_eq(p.frames_read, 3);
}
END_TEST

/* recv hands over pushed frames and Error frames alike; a peer that then
 * closes is EIO, and the client refuses further use cleanly. */
START_TEST(recv_then_peer_closes)
{
    static uint8_t bytes[2048];
    size_t n = encode_welcome(bytes, sizeof bytes, 1, 1);
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_state_batch_tag;
    f.body.state_batch.tick = 7;
    n += encode_frame(bytes + n, sizeof bytes - n, &f);
    n += encode_error(bytes + n, sizeof bytes - n, 0, paddock_v1_ErrorCode_CLOSED,
                      "session 1 closed");
    peer p;
    memset(&p, 0, sizeof p);
    ck_assert_int_eq(connect_to_peer(&p, bytes, n, 1, 2000), PDK_CLIENT_OK);

    ck_assert_int_eq(pdk_client_recv(&client, &frame_a, 1000), PDK_CLIENT_OK);
    ck_assert_int_eq(frame_a.which_body, paddock_v1_Frame_state_batch_tag);
    ck_assert_uint_eq(frame_a.body.state_batch.tick, 7);
    ck_assert_int_eq(pdk_client_recv(&client, &frame_a, 1000), PDK_CLIENT_OK);
    ck_assert_int_eq(frame_a.which_body, paddock_v1_Frame_error_tag);
    ck_assert_int_eq(frame_a.body.error.code, paddock_v1_ErrorCode_CLOSED);

    pdk_client_status st = pdk_client_recv(&client, &frame_a, 1000);
    ck_assert_msg(st == PDK_CLIENT_EIO, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert(!pdk_client_is_connected(&client));
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_session_list_tag;
    ck_assert_int_eq(pdk_client_call(&client, &frame_a, &frame_b, NULL, NULL), PDK_CLIENT_EIO);
    ck_assert_msg(strstr(client.error, "not connected") != NULL, "%s", client.error);
    ck_assert_int_eq(pdk_client_send(&client, &frame_a), PDK_CLIENT_EIO);
    pdk_client_close(&client);
    peer_join(&p);
}
END_TEST

START_TEST(request_too_large_is_eencode)
{
    uint8_t buf[256];
    size_t n = encode_welcome(buf, sizeof buf, 1, 1);
    peer p;
    memset(&p, 0, sizeof p);
    ck_assert_int_eq(connect_to_peer(&p, buf, n, 0, 2000), PDK_CLIENT_OK);

    /* A full StateBatch is about 27 KB; the send buffer holds 4 KiB. */
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_state_batch_tag;
    frame_a.body.state_batch.vehicles_count = 256;
    for (int i = 0; i < 256; i++) {
        frame_a.body.state_batch.vehicles[i].vehicle_id = (uint32_t)i + 1;
        paddock_v1_VehicleState *v = &frame_a.body.state_batch.vehicles[i];
        /* proto3 leaves zeros out; non-zero values make every field count. */
        v->x_m = v->y_m = v->z_m = v->yaw_rad = 1.5 + i;
        v->vx_mps = v->vy_mps = v->yaw_rate_radps = v->steer_angle_rad = 2.5 + i;
        v->speed_mps = v->ax_mps2 = v->ay_mps2 = 3.5 + i;
    }
    pdk_client_status st = pdk_client_send(&client, &frame_a);
    ck_assert_msg(st == PDK_CLIENT_EENCODE, "%s (%s)", pdk_client_status_name(st), client.error);
    ck_assert_msg(strstr(client.error, "state_batch") != NULL, "%s", client.error);
    ck_assert(pdk_client_is_connected(&client)); /* nothing was sent */
    ck_assert_int_eq(pdk_client_call(&client, &frame_a, &frame_b, NULL, NULL), PDK_CLIENT_EENCODE);
    pdk_client_close(&client);
    peer_join(&p);
}
END_TEST

START_TEST(invalid_arguments)
{
    ck_assert_int_eq(pdk_client_connect(NULL, "127.0.0.1:1", 100, NULL), PDK_CLIENT_EINVAL);
    char name[100];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    ck_assert_int_eq(pdk_client_connect_as(&client, "127.0.0.1:1", 100, name, NULL),
                     PDK_CLIENT_EINVAL);
    ck_assert_ptr_nonnull(strstr(client.error, "client name"));
    ck_assert_int_eq(pdk_client_call(NULL, &frame_a, &frame_b, NULL, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_call(&client, NULL, &frame_b, NULL, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_call(&client, &frame_a, NULL, NULL, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_recv(&client, NULL, 0), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_send(&client, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_expect(NULL, &frame_a, 1), PDK_CLIENT_EINVAL);
    pdk_client_close(NULL);
    ck_assert(!pdk_client_is_connected(NULL));
}
END_TEST

START_TEST(zeroed_client_is_not_connected)
{
    /* A zeroed struct has fd 0; the client must neither use nor close it. */
    static pdk_client z;
    memset(&z, 0, sizeof z);
    int stdin_open = fcntl(0, F_GETFD) != -1;
    ck_assert(!pdk_client_is_connected(&z));
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_ping_tag;
    ck_assert_int_eq(pdk_client_call(&z, &frame_a, &frame_b, NULL, NULL), PDK_CLIENT_EIO);
    ck_assert_int_eq(pdk_client_recv(&z, &frame_b, 10), PDK_CLIENT_EIO);
    pdk_client_close(&z);
    ck_assert_int_eq(fcntl(0, F_GETFD) != -1, stdin_open);
}
END_TEST

/* --- names --------------------------------------------------------------- */

START_TEST(status_names_cover_every_value)
{
    const char *seen[PDK_CLIENT_EINVAL + 1];
    for (int s = PDK_CLIENT_OK; s <= PDK_CLIENT_EINVAL; s++) {
        const char *name = pdk_client_status_name((pdk_client_status)s);
        ck_assert_ptr_nonnull(name);
        ck_assert_msg(name[0] != '\0' && strcmp(name, "unknown status") != 0, "status %d", s);
        for (int j = 0; j < s; j++) {
            ck_assert_msg(strcmp(seen[j], name) != 0, "statuses %d and %d share '%s'", j, s, name);
        }
        seen[s] = name;
    }
    ck_assert_str_eq(pdk_client_status_name(PDK_CLIENT_ETIMEOUT), "timeout");
    ck_assert_str_eq(pdk_client_status_name((pdk_client_status)(PDK_CLIENT_EINVAL + 1)),
                     "unknown status");
    ck_assert_str_eq(pdk_client_status_name((pdk_client_status)-1), "unknown status");
}
END_TEST

START_TEST(error_code_and_body_names)
{
    ck_assert_str_eq(pdk_client_error_code_name(paddock_v1_ErrorCode_OK), "OK");
    ck_assert_str_eq(pdk_client_error_code_name(paddock_v1_ErrorCode_NOT_FOUND), "NOT_FOUND");
    ck_assert_str_eq(pdk_client_error_code_name(paddock_v1_ErrorCode_NET), "NET");
    ck_assert_str_eq(pdk_client_error_code_name((paddock_v1_ErrorCode)999), "UNKNOWN_ERROR");
    /* Every code of the proto enum has its own name. */
    for (int a = _paddock_v1_ErrorCode_MIN; a <= _paddock_v1_ErrorCode_MAX; a++) {
        const char *na = pdk_client_error_code_name((paddock_v1_ErrorCode)a);
        ck_assert_str_ne(na, "UNKNOWN_ERROR");
        for (int b = _paddock_v1_ErrorCode_MIN; b < a; b++) {
            ck_assert_str_ne(na, pdk_client_error_code_name((paddock_v1_ErrorCode)b));
        }
    }
    ck_assert_str_eq(pdk_client_body_name(0), "empty");
    ck_assert_str_eq(pdk_client_body_name(paddock_v1_Frame_session_created_tag), "session_created");
    ck_assert_str_eq(pdk_client_body_name(paddock_v1_Frame_state_batch_tag), "state_batch");
    ck_assert_str_eq(pdk_client_body_name(paddock_v1_Frame_dbw_message_tag), "dbw_message");
    ck_assert_str_eq(pdk_client_body_name(paddock_v1_Frame_control_event_tag), "control_event");
    ck_assert_str_eq(pdk_client_body_name(9999), "unknown");

    memset(&frame_a, 0, sizeof frame_a);
    frame_a.request_id = 5;
    frame_a.which_body = paddock_v1_Frame_ok_tag;
    ck_assert_int_eq(pdk_client_expect(&client, &frame_a, paddock_v1_Frame_session_created_tag),
                     PDK_CLIENT_EPROTO);
    ck_assert_str_eq(client.error, "expected a session_created reply to request 5, got ok");
}
END_TEST

/* --- CLI helpers ----------------------------------------------------------- */

enum { T_HELP = 1, T_SESSION, T_X, T_LOOP };
static const pdk_cli_opt T_OPTS[] = {
    {"help", T_HELP, 0},
    {"session", T_SESSION, 1},
    {"x", T_X, 1},
    {"loop", T_LOOP, 0},
};

static int next_opt(pdk_cli_args *a, const char **v, char *err)
{
    return pdk_cli_args_next(a, v, err, 256);
}

START_TEST(cli_args_parse_long_options)
{
    char *argv[] = {"paddock", "--session", "3", "--x=-5", "--loop", "-h", "--x", "-2.5", "tail"};
    pdk_cli_args a = pdk_cli_args_begin(9, argv, 1, T_OPTS, 4);
    const char *v = NULL;
    char err[256] = "";
    ck_assert_int_eq(next_opt(&a, &v, err), T_SESSION);
    ck_assert_str_eq(v, "3");
    ck_assert_int_eq(next_opt(&a, &v, err), T_X);
    ck_assert_str_eq(v, "-5");
    ck_assert_int_eq(next_opt(&a, &v, err), T_LOOP);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(next_opt(&a, &v, err), T_HELP);
    ck_assert_int_eq(next_opt(&a, &v, err), T_X);
    ck_assert_str_eq(v, "-2.5"); /* a value may start with one dash */
    ck_assert_int_eq(next_opt(&a, &v, err), PDK_CLI_ARGS_END);
    ck_assert_int_eq(a.next, 8); /* at the operand */

    char *argv2[] = {"p", "--", "--loop"};
    a = pdk_cli_args_begin(3, argv2, 1, T_OPTS, 4);
    ck_assert_int_eq(next_opt(&a, &v, err), PDK_CLI_ARGS_END);
    ck_assert_int_eq(a.next, 2);
}
END_TEST

START_TEST(cli_args_errors_name_the_option)
{
    static const struct {
        int argc;
        char *argv[3];
        const char *needle;
    } cases[] = {
        {2, {"p", "--nope"}, "unknown option '--nope'"},
        {2, {"p", "--nope=3"}, "unknown option '--nope'"},
        {2, {"p", "--session"}, "option '--session' needs a value"},
        {3, {"p", "--session", "--loop"}, "option '--session' needs a value"},
        {2, {"p", "--loop=1"}, "option '--loop' takes no value"},
        {2, {"p", "-s"}, "unknown option '-s'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_cli_args a = pdk_cli_args_begin(cases[i].argc, (char **)cases[i].argv, 1, T_OPTS, 4);
        const char *v = NULL;
        char err[256] = "";
        ck_assert_int_eq(next_opt(&a, &v, err), PDK_CLI_ARGS_ERROR);
        ck_assert_msg(strstr(err, cases[i].needle) != NULL, "case %zu: %s", i, err);
    }
}
END_TEST

START_TEST(cli_parse_numbers)
{
    char err[256];
    uint64_t u = 0;
    ck_assert_int_eq(pdk_cli_parse_u64("session", "12", 1, 100, &u, err, sizeof err), 0);
    ck_assert_uint_eq(u, 12);
    ck_assert_int_eq(
        pdk_cli_parse_u64("session", "18446744073709551615", 1, UINT64_MAX, &u, err, sizeof err),
        0);
    ck_assert_uint_eq(u, UINT64_MAX);
    const char *bad_u[] = {"", "12a", "-1", " 1", "+1", "1.0", "0x10"};
    for (size_t i = 0; i < sizeof bad_u / sizeof bad_u[0]; i++) {
        ck_assert_int_eq(pdk_cli_parse_u64("session", bad_u[i], 1, 100, &u, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "--session") != NULL && strstr(err, "not a whole number"), "%s",
                      err);
    }
    ck_assert_int_eq(pdk_cli_parse_u64("session", "0", 1, 100, &u, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "outside 1..100") != NULL, "%s", err);
    ck_assert_int_eq(
        pdk_cli_parse_u64("vehicle", "99999999999999999999", 1, UINT32_MAX, &u, err, sizeof err),
        -1);

    double d = 0.0;
    ck_assert_int_eq(pdk_cli_parse_double("x", "-3.25", -10, 10, &d, err, sizeof err), 0);
    ck_assert_double_eq(d, -3.25);
    ck_assert_int_eq(pdk_cli_parse_double("x", "1e1", -10, 10, &d, err, sizeof err), 0);
    ck_assert_double_eq(d, 10.0);
    const char *bad_d[] = {"", "abc", "1.5x", "nan", "inf", "-inf", "1e999", " 1"};
    for (size_t i = 0; i < sizeof bad_d / sizeof bad_d[0]; i++) {
        ck_assert_msg(pdk_cli_parse_double("x", bad_d[i], -10, 10, &d, err, sizeof err) == -1,
                      "'%s' accepted", bad_d[i]);
        ck_assert_msg(strstr(err, "--x") != NULL, "%s", err);
    }
    ck_assert_int_eq(pdk_cli_parse_double("x", "10.5", -10, 10, &d, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "outside") != NULL, "%s", err);
}
END_TEST

START_TEST(cli_copy_text_respects_field_size)
{
    char err[256];
    char dst[8];
    ck_assert_int_eq(pdk_cli_copy_text("name", "1234567", dst, sizeof dst, err, sizeof err), 0);
    ck_assert_str_eq(dst, "1234567");
    ck_assert_int_eq(pdk_cli_copy_text("name", "12345678", dst, sizeof dst, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--name") != NULL && strstr(err, "7") != NULL, "%s", err);
}
END_TEST

START_TEST(cli_gear_letters)
{
    static const struct {
        const char *text;
        paddock_v1_Gear gear;
    } good[] = {
        {"P", paddock_v1_Gear_GEAR_PARK},    {"R", paddock_v1_Gear_GEAR_REVERSE},
        {"N", paddock_v1_Gear_GEAR_NEUTRAL}, {"D", paddock_v1_Gear_GEAR_DRIVE},
        {"L", paddock_v1_Gear_GEAR_LOW},     {"d", paddock_v1_Gear_GEAR_DRIVE},
        {"r", paddock_v1_Gear_GEAR_REVERSE},
    };
    char err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        paddock_v1_Gear g = paddock_v1_Gear_GEAR_NONE;
        ck_assert_int_eq(pdk_cli_parse_gear("gear", good[i].text, &g, err, sizeof err), 0);
        ck_assert_int_eq(g, good[i].gear);
        /* The letter printed is the upper-case letter parsed. */
        ck_assert_int_eq(pdk_cli_gear_letter(g), good[i].text[0] & ~0x20);
    }
    const char *bad[] = {"", "X", "DR", "drive", "1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        paddock_v1_Gear g = paddock_v1_Gear_GEAR_NONE;
        ck_assert_int_eq(pdk_cli_parse_gear("gear", bad[i], &g, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "--gear") != NULL && strstr(err, "P R N D L") != NULL, "%s", err);
        ck_assert_int_eq(g, paddock_v1_Gear_GEAR_NONE);
    }
    ck_assert_int_eq(pdk_cli_gear_letter(paddock_v1_Gear_GEAR_NONE), '-');
    ck_assert_int_eq(pdk_cli_gear_letter((paddock_v1_Gear)42), '?');
}
END_TEST

START_TEST(cli_wheel_lists)
{
    static const struct {
        const char *text;
        uint32_t mask;
        const char *shown;
    } good[] = {
        {"FL", 1u, "FL"},
        {"fr", 2u, "FR"},
        {"RL", 4u, "RL"},
        {"RR", 8u, "RR"},
        {"FL,RR", 9u, "FL,RR"},
        {"rr,fl", 9u, "FL,RR"},
        {"FL,FR,RL,RR", 15u, "all"},
        {"all", 15u, "all"},
    };
    char err[256];
    char shown[32];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint32_t mask = 0;
        ck_assert_msg(pdk_cli_parse_wheels("wheels", good[i].text, &mask, err, sizeof err) == 0,
                      "%s: %s", good[i].text, err);
        ck_assert_uint_eq(mask, good[i].mask);
        pdk_cli_format_wheels(mask, shown, sizeof shown);
        ck_assert_str_eq(shown, good[i].shown);
    }
    const char *bad[] = {"", "F", "FLR", "FL,", ",FL", "FL;RR", "front", "FL RR"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t mask = 77;
        ck_assert_int_eq(pdk_cli_parse_wheels("wheels", bad[i], &mask, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "--wheels") != NULL && strstr(err, "is not a wheel") != NULL,
                      "%s: %s", bad[i], err);
        ck_assert_uint_eq(mask, 77);
    }
    uint32_t mask = 0;
    ck_assert_int_eq(pdk_cli_parse_wheels("wheels", "FL,RL,fl", &mask, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "FL is listed twice") != NULL, "%s", err);
    pdk_cli_format_wheels(0, shown, sizeof shown);
    ck_assert_str_eq(shown, "-");
}
END_TEST

START_TEST(cli_tyre_conditions)
{
    static const struct {
        const char *text;
        paddock_v1_TyreCondition condition;
    } good[] = {
        {"intact", paddock_v1_TyreCondition_TYRE_CONDITION_INTACT},
        {"flat", paddock_v1_TyreCondition_TYRE_CONDITION_FLAT},
        {"rim", paddock_v1_TyreCondition_TYRE_CONDITION_RIM},
        {"detached", paddock_v1_TyreCondition_TYRE_CONDITION_DETACHED},
    };
    char err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        paddock_v1_TyreCondition c = (paddock_v1_TyreCondition)9;
        ck_assert_int_eq(
            pdk_cli_parse_tyre_condition("condition", good[i].text, &c, err, sizeof err), 0);
        ck_assert_int_eq(c, good[i].condition);
    }
    /* The numbers the server's pdk_tyre_condition takes (tyre_life.h). */
    ck_assert_int_eq(paddock_v1_TyreCondition_TYRE_CONDITION_FLAT, 1);
    ck_assert_int_eq(paddock_v1_TyreCondition_TYRE_CONDITION_DETACHED, 3);
    paddock_v1_TyreCondition c = paddock_v1_TyreCondition_TYRE_CONDITION_INTACT;
    ck_assert_int_eq(pdk_cli_parse_tyre_condition("condition", "punctured", &c, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "--condition") != NULL && strstr(err, "'punctured'") != NULL &&
                      strstr(err, "intact, flat, rim or detached") != NULL,
                  "%s", err);
}
END_TEST

START_TEST(cli_timing_modes)
{
    char err[256];
    paddock_v1_TimingMode m = paddock_v1_TimingMode_TIMING_MODE_UNSPECIFIED;
    ck_assert_int_eq(pdk_cli_parse_timing("timing", "fast", &m, err, sizeof err), 0);
    ck_assert_int_eq(m, paddock_v1_TimingMode_TIMING_MODE_FAST);
    ck_assert_int_eq(pdk_cli_parse_timing("timing", "realtime", &m, err, sizeof err), 0);
    ck_assert_int_eq(m, paddock_v1_TimingMode_TIMING_MODE_REALTIME);
    ck_assert_int_eq(pdk_cli_parse_timing("timing", "lockstep", &m, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'lockstep'") != NULL, "%s", err);
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_FAST), "fast");
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_REALTIME), "realtime");
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_UNSPECIFIED), "default");
    ck_assert_str_eq(pdk_cli_timing_name((paddock_v1_TimingMode)9), "unknown");
}
END_TEST

START_TEST(cli_wrap_degrees)
{
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(0.0), 0.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(190.0), -170.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(-190.0), 170.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(180.0), 180.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(-180.0), 180.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(359.0), -1.0, 1e-12);
    ck_assert_double_eq_tol(pdk_cli_wrap_deg(720.0 + 45.0), 45.0, 1e-12);
}
END_TEST

START_TEST(cli_state_rows_are_fixed_width)
{
    char hdr[PDK_CLI_ROW_LEN];
    char row1[PDK_CLI_ROW_LEN];
    char row2[PDK_CLI_ROW_LEN];
    pdk_cli_format_state_header(hdr, sizeof hdr);
    paddock_v1_VehicleState v;
    memset(&v, 0, sizeof v);
    v.vehicle_id = 3;
    v.x_m = 12.5;
    v.y_m = -4.25;
    v.z_m = 0.55;
    v.yaw_rad = M_PI / 2.0;
    v.roll_rad = M_PI / 90.0;
    v.pitch_rad = -M_PI / 180.0;
    v.speed_mps = 10.0;
    v.yaw_rate_radps = -M_PI / 18.0;
    v.steer_angle_rad = M_PI / 36.0;
    v.ax_mps2 = 1.5;
    v.ay_mps2 = -0.5;
    pdk_cli_format_state(row1, sizeof row1, 1200, 10.0, &v);
    memset(&v, 0, sizeof v);
    v.vehicle_id = 12345;
    pdk_cli_format_state(row2, sizeof row2, 7, 0.058333, &v);
    ck_assert_uint_eq(strlen(row1), strlen(hdr));
    ck_assert_uint_eq(strlen(row2), strlen(hdr));
    ck_assert_ptr_nonnull(strstr(hdr, "SPEED_KMH"));

    unsigned long long tick;
    double t, x, y, z, yaw, roll, pitch, kmh, rate, steer, ax, ay;
    unsigned id;
    ck_assert_int_eq(sscanf(row1, "%llu %lf %u %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &tick,
                            &t, &id, &x, &y, &z, &yaw, &roll, &pitch, &kmh, &rate, &steer, &ax,
                            &ay),
                     14);
    ck_assert_double_eq_tol(z, 0.55, 1e-9);
    ck_assert_double_eq_tol(roll, 2.0, 1e-9);
    ck_assert_double_eq_tol(pitch, -1.0, 1e-9);
    ck_assert_uint_eq(tick, 1200);
    ck_assert_uint_eq(id, 3);
    ck_assert_double_eq_tol(x, 12.5, 1e-9);
    ck_assert_double_eq_tol(y, -4.25, 1e-9);
    ck_assert_double_eq_tol(yaw, 90.0, 1e-9);
    ck_assert_double_eq_tol(kmh, 36.0, 1e-9);
    ck_assert_double_eq_tol(rate, -10.0, 1e-9);
    ck_assert_double_eq_tol(steer, 5.0, 1e-9);
    ck_assert_double_eq_tol(ax, 1.5, 1e-9);
    ck_assert_double_eq_tol(ay, -0.5, 1e-9);
}
END_TEST

START_TEST(cli_session_and_drive_rows_are_fixed_width)
{
    char hdr[PDK_CLI_ROW_LEN];
    char row[PDK_CLI_ROW_LEN];
    paddock_v1_SessionInfo s;
    memset(&s, 0, sizeof s);
    s.session_id = 42;
    strcpy(s.name, "e2e");
    strcpy(s.world_preset, "flat");
    s.timing = paddock_v1_TimingMode_TIMING_MODE_REALTIME;
    s.tick = 1200;
    s.sim_time_s = 10.0;
    s.vehicle_count = 2;
    s.subscriber_count = 1;
    s.lateness_p50_ms = 0.0125;
    s.lateness_p99_ms = 1.5;
    s.overruns = 3;
    pdk_cli_format_sessions_header(hdr, sizeof hdr);
    pdk_cli_format_session(row, sizeof row, &s);
    ck_assert_uint_eq(strlen(row), strlen(hdr));
    unsigned long long id, tick, over;
    char name[32], world[32], timing[32];
    double sim, p50, p99;
    unsigned veh, subs;
    ck_assert_int_eq(sscanf(row, "%llu %31s %31s %31s %llu %lf %u %u %lf %lf %llu", &id, name,
                            world, timing, &tick, &sim, &veh, &subs, &p50, &p99, &over),
                     11);
    ck_assert_uint_eq(id, 42);
    ck_assert_str_eq(name, "e2e");
    ck_assert_str_eq(timing, "realtime");
    ck_assert_uint_eq(veh, 2);
    ck_assert_double_eq_tol(p99, 1.5, 1e-9);
    ck_assert_uint_eq(over, 3);
    s.name[0] = '\0';
    pdk_cli_format_session(row, sizeof row, &s);
    ck_assert_uint_eq(strlen(row), strlen(hdr));
    ck_assert_ptr_nonnull(strstr(row, "  -  "));

    paddock_v1_DbwCommand c;
    memset(&c, 0, sizeof c);
    c.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
    c.throttle.throttle_pct = 40.0;
    c.gear = paddock_v1_Gear_GEAR_DRIVE;
    pdk_cli_format_drive_header(hdr, sizeof hdr);
    pdk_cli_format_drive(row, sizeof row, 1, "0.500", 1234, &c);
    ck_assert_uint_eq(strlen(row), strlen(hdr));
    char when[16], thr[16], brk[16], steer[16], gear[4];
    unsigned pass;
    ck_assert_int_eq(
        sscanf(row, "%u %15s %llu %15s %15s %15s %3s", &pass, when, &tick, thr, brk, steer, gear),
        7);
    ck_assert_str_eq(when, "0.500");
    ck_assert_uint_eq(tick, 1234);
    ck_assert_str_eq(thr, "40.0");
    ck_assert_str_eq(brk, "-");
    ck_assert_str_eq(steer, "-");
    ck_assert_str_eq(gear, "D");
}
END_TEST

START_TEST(cli_script_step_to_dbw_command)
{
    pdk_dbw_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.fields = PDK_DBW_BRAKE | PDK_DBW_GEAR;
    cmd.brake_bar = 25.0;
    cmd.throttle_pct = 99.0; /* not in fields: must not be sent */
    cmd.gear = PDK_GEAR_REVERSE;
    paddock_v1_DbwCommand out;
    pdk_cli_dbw_from_step(&out, 7, 3, &cmd);
    ck_assert_uint_eq(out.session_id, 7);
    ck_assert_uint_eq(out.vehicle_id, 3);
    ck_assert_uint_eq(out.which_throttle, 0);
    ck_assert_uint_eq(out.which_steer, 0);
    ck_assert_uint_eq(out.which_brake, paddock_v1_DbwCommand_brake_bar_tag);
    ck_assert_double_eq(out.brake.brake_bar, 25.0);
    ck_assert_int_eq(out.gear, paddock_v1_Gear_GEAR_REVERSE);

    cmd.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER;
    cmd.steer_wheel_deg = -90.0;
    pdk_cli_dbw_from_step(&out, 7, 3, &cmd);
    ck_assert_uint_eq(out.which_throttle, paddock_v1_DbwCommand_throttle_pct_tag);
    ck_assert_double_eq(out.throttle.throttle_pct, 99.0);
    ck_assert_uint_eq(out.which_steer, paddock_v1_DbwCommand_steer_wheel_deg_tag);
    ck_assert_double_eq(out.steer.steer_wheel_deg, -90.0);
    ck_assert_uint_eq(out.which_brake, 0);
    ck_assert_int_eq(out.gear, paddock_v1_Gear_GEAR_NONE); /* no change */
}
END_TEST

START_TEST(cli_initial_block)
{
    char keys[64];
    ck_assert_int_eq(pdk_cli_initial_places_vehicle(0, keys, sizeof keys), 0);
    ck_assert_int_eq(pdk_cli_initial_places_vehicle(PDK_SCRIPT_INIT_GEAR, keys, sizeof keys), 0);
    ck_assert_int_eq(pdk_cli_initial_places_vehicle(PDK_SCRIPT_INIT_SPEED | PDK_SCRIPT_INIT_X |
                                                        PDK_SCRIPT_INIT_GEAR,
                                                    keys, sizeof keys),
                     1);
    ck_assert_str_eq(keys, "speed_mps, x_m");
    ck_assert_int_eq(pdk_cli_initial_places_vehicle(PDK_SCRIPT_INIT_YAW, keys, sizeof keys), 1);
    ck_assert_str_eq(keys, "yaw_deg");

    pdk_script s;
    memset(&s, 0, sizeof s);
    s.initial_fields =
        PDK_SCRIPT_INIT_X | PDK_SCRIPT_INIT_YAW | PDK_SCRIPT_INIT_SPEED | PDK_SCRIPT_INIT_GEAR;
    s.initial_pose.x_m = 5.0;
    s.initial_pose.y_m = 99.0; /* not in the fields */
    s.initial_yaw_deg = -45.0; /* the degrees as written pass through unchanged */
    s.initial_pose.yaw_rad = pdk_script_deg_to_rad(-45.0);
    s.initial_speed_mps = 15.0;
    s.initial_gear = PDK_GEAR_DRIVE;
    paddock_v1_VehicleSpawn sp;
    memset(&sp, 0, sizeof sp);
    sp.y_m = -2.0;
    pdk_cli_spawn_from_initial(&sp, &s);
    ck_assert_double_eq(sp.x_m, 5.0);
    ck_assert_double_eq(sp.y_m, -2.0);
    ck_assert_double_eq(sp.yaw_deg, -45.0);
    ck_assert_double_eq(sp.speed_mps, 15.0);
    ck_assert_int_eq(sp.gear, paddock_v1_Gear_GEAR_DRIVE);
}
END_TEST

START_TEST(cli_exit_codes)
{
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_OK), PDK_CLI_EXIT_OK);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_ESERVER), PDK_CLI_EXIT_FAILED);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_ECONNECT), PDK_CLI_EXIT_CONNECT);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EADDR), PDK_CLI_EXIT_CONNECT);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EIO), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_ETIMEOUT), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EPROTO), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EENCODE), PDK_CLI_EXIT_FAILED);
    ck_assert_int_eq(PDK_CLI_EXIT_USAGE, 2);
}
END_TEST

/* --- the DBW link: CRC and rolling counters ------------------------------- */

/* A deterministic generator for the CRC comparison (PCG's LCG step). */
static uint32_t next_u32(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 32);
}

/* Any finite float, from tiny denormals to FLT_MAX, plus now and then an
 * exact small value, zero, minus zero or (where allowed) infinity. */
static float any_float(uint64_t *s, int inf_ok)
{
    uint32_t pick = next_u32(s) % 16u;
    if (pick == 0) {
        return 0.0f;
    }
    if (pick == 1) {
        return -0.0f;
    }
    if (pick == 2 && inf_ok) {
        return INFINITY;
    }
    if (pick < 6) {
        return (float)((int32_t)(next_u32(s) % 2001u) - 1000) * 0.125f;
    }
    uint32_t bits = next_u32(s);
    if ((bits & 0x7F800000u) == 0x7F800000u) {
        bits &= ~0x00800000u; /* not an infinity or NaN */
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static bool any_bool(uint64_t *s)
{
    return (next_u32(s) & 1u) != 0;
}

/* A random message of the proto oneof tag and the same message as the
 * server's pdk_dbw_msg, translated by dbw.h's definitions (floats widen to
 * double exactly; an absent system setting is -1). */
static void random_message(uint64_t *s, pb_size_t tag, paddock_v1_DbwMessage *pb, pdk_dbw_msg *sim)
{
    memset(pb, 0, sizeof *pb);
    memset(sim, 0, sizeof *sim);
    pb->which_msg = tag;
    sim->kind = (int32_t)(tag - paddock_v1_DbwMessage_steering_tag + 1);
    sim->crc = -1;
    uint32_t cmd_type = next_u32(s) % 4u == 0 ? next_u32(s) % 256u : next_u32(s) % 16u;
    uint32_t rc = next_u32(s) % 16u;
    switch (tag) {
    case paddock_v1_DbwMessage_steering_tag:
    case paddock_v1_DbwMessage_brake_tag:
    case paddock_v1_DbwMessage_throttle_tag: {
        float cmd = any_float(s, 0);
        float a = any_float(s, 1);
        float b = any_float(s, 1);
        bool en = any_bool(s), cl = any_bool(s), ig = any_bool(s);
        if (tag == paddock_v1_DbwMessage_steering_tag) {
            paddock_v1_SteeringCmd *m = &pb->msg.steering;
            m->cmd = cmd, m->cmd_rate = a, m->cmd_accel = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        } else if (tag == paddock_v1_DbwMessage_brake_tag) {
            paddock_v1_BrakeCmd *m = &pb->msg.brake;
            m->cmd = cmd, m->rate_inc = a, m->rate_dec = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        } else {
            paddock_v1_ThrottleCmd *m = &pb->msg.throttle;
            m->cmd = cmd, m->rate_inc = a, m->rate_dec = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        }
        pdk_dbw_chan_cmd *c = &sim->u.chan;
        c->cmd = (double)cmd, c->rate_a = (double)a, c->rate_b = (double)b;
        c->cmd_type = (int32_t)cmd_type;
        c->enable = en, c->clear = cl, c->ignore = ig, c->rc = (uint8_t)rc;
        break;
    }
    case paddock_v1_DbwMessage_ulc_tag: {
        paddock_v1_UlcCmd *m = &pb->msg.ulc;
        pdk_dbw_ulc_cmd *u = &sim->u.ulc;
        m->cmd = any_float(s, 0);
        m->limit_accel = any_float(s, 1);
        m->limit_decel = any_float(s, 1);
        m->limit_jerk_throttle = any_float(s, 1);
        m->limit_jerk_brake = any_float(s, 1);
        m->cmd_type = cmd_type;
        m->enable = any_bool(s), m->clear = any_bool(s), m->enable_shift = any_bool(s);
        m->enable_shift_park = any_bool(s), m->coast_decel = any_bool(s);
        m->rc = rc;
        u->cmd = (double)m->cmd, u->limit_accel = (double)m->limit_accel;
        u->limit_decel = (double)m->limit_decel;
        u->limit_jerk_throttle = (double)m->limit_jerk_throttle;
        u->limit_jerk_brake = (double)m->limit_jerk_brake;
        u->cmd_type = (int32_t)cmd_type;
        u->enable = m->enable, u->clear = m->clear, u->enable_shift = m->enable_shift;
        u->enable_shift_park = m->enable_shift_park, u->coast_decel = m->coast_decel;
        u->rc = (uint8_t)rc;
        break;
    }
    case paddock_v1_DbwMessage_gear_tag:
        pb->msg.gear.cmd = (paddock_v1_Gear)(next_u32(s) % 6u);
        sim->u.value = (int32_t)pb->msg.gear.cmd;
        break;
    case paddock_v1_DbwMessage_system_tag: {
        paddock_v1_SystemCmd *m = &pb->msg.system;
        pdk_dbw_system_cmd *c = &sim->u.system;
        m->cmd = next_u32(s) % 3u;
        c->cmd = (int32_t)m->cmd;
        c->sync_mode = c->validate_crc = c->comms_loss_arm = -1;
        if (any_bool(s)) {
            m->which_sync_mode_set = paddock_v1_SystemCmd_sync_mode_tag;
            m->sync_mode_set.sync_mode = next_u32(s) % 4u;
            c->sync_mode = (int32_t)m->sync_mode_set.sync_mode;
        }
        if (any_bool(s)) {
            m->which_validate_set = paddock_v1_SystemCmd_validate_cmd_crc_rc_tag;
            m->validate_set.validate_cmd_crc_rc = any_bool(s);
            c->validate_crc = m->validate_set.validate_cmd_crc_rc ? 1 : 0;
        }
        if (any_bool(s)) {
            m->which_comms_loss_set = paddock_v1_SystemCmd_comms_loss_arm_tag;
            m->comms_loss_set.comms_loss_arm = any_bool(s);
            c->comms_loss_arm = m->comms_loss_set.comms_loss_arm ? 1 : 0;
        }
        m->rc = rc;
        c->rc = (uint8_t)rc;
        break;
    }
    default:
        break; /* the kinds without a CRC: only which_msg matters */
    }
}

/* The client computes the CRC-8 on its own; it must agree with the server's
 * for every message kind that carries one, and every other kind has none. */
START_TEST(dbw_crc_matches_server)
{
    static const uint8_t check[] = "123456789";
    ck_assert_uint_eq(pdk_dbw_link_crc8_bytes(check, 9), 0x4B);
    ck_assert_uint_eq(pdk_crc8_j1850(check, 9), 0x4B);
    ck_assert_uint_eq(pdk_dbw_link_crc8_bytes(check, 0), 0x00); /* 0xFF ^ 0xFF */

    /* One message by hand, byte for byte as docs/dbw.md lists them. */
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_steering_tag;
    m.msg.steering.cmd = 12.5f;         /* 0x41480000 */
    m.msg.steering.cmd_rate = INFINITY; /* 0x7F800000 */
    m.msg.steering.cmd_type = 2;
    m.msg.steering.enable = true;
    m.msg.steering.ignore = true;
    m.msg.steering.rc = 3;
    const uint8_t bytes[] = {1,    0x00, 0x00, 0x48, 0x41, 0x00, 0x00, 0x80,
                             0x7F, 0,    0,    0,    0,    2,    5,    3};
    uint8_t crc = 0;
    ck_assert_int_eq(pdk_dbw_link_crc8(&m, &crc), 1);
    ck_assert_uint_eq(crc, pdk_dbw_link_crc8_bytes(bytes, sizeof bytes));

    uint64_t seed = 0x5EEDu;
    int compared = 0;
    for (int i = 0; i < 7000; i++) {
        pb_size_t tag = (pb_size_t)(paddock_v1_DbwMessage_steering_tag + (pb_size_t)(i % 14));
        static paddock_v1_DbwMessage pb;
        pdk_dbw_msg sim;
        random_message(&seed, tag, &pb, &sim);
        uint8_t ours = 0;
        int has = pdk_dbw_link_crc8(&pb, &ours);
        int carries =
            tag == paddock_v1_DbwMessage_steering_tag || tag == paddock_v1_DbwMessage_brake_tag ||
            tag == paddock_v1_DbwMessage_throttle_tag || tag == paddock_v1_DbwMessage_gear_tag ||
            tag == paddock_v1_DbwMessage_ulc_tag || tag == paddock_v1_DbwMessage_system_tag;
        ck_assert_msg(has == carries, "message %d (oneof tag %u): has a CRC %d", i, (unsigned)tag,
                      has);
        if (!has) {
            continue;
        }
        uint8_t theirs = pdk_dbw_crc8(&sim);
        ck_assert_msg(ours == theirs, "message %d (kind %d): client 0x%02X, server 0x%02X", i,
                      (int)sim.kind, ours, theirs);
        compared++;
    }
    ck_assert_int_eq(compared, 3000);
}
END_TEST

/* Each stream's counter advances by one per message, mod 16, and only its
 * own; messages without a counter leave them all alone. */
START_TEST(dbw_rolling_counters_per_stream)
{
    static pdk_dbw_link link;
    pdk_dbw_link_init(&link, NULL, NULL, 7, 3);
    static const pb_size_t tags[PDK_DBW_STREAM_COUNT] = {
        paddock_v1_DbwMessage_steering_tag, paddock_v1_DbwMessage_brake_tag,
        paddock_v1_DbwMessage_throttle_tag, paddock_v1_DbwMessage_ulc_tag,
        paddock_v1_DbwMessage_system_tag};
    static paddock_v1_DbwMessage m;
    unsigned sent[PDK_DBW_STREAM_COUNT] = {0};
    uint64_t seed = 99;
    for (int i = 0; i < 400; i++) {
        int stream = (int)(next_u32(&seed) % PDK_DBW_STREAM_COUNT);
        memset(&m, 0, sizeof m);
        m.which_msg = tags[stream];
        ck_assert_int_eq(pdk_dbw_link_stream_of(m.which_msg), stream);
        ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)stream), sent[stream] % 16u);
        pdk_dbw_link_stamp(&link, &m);
        uint32_t rc = stream == 0   ? m.msg.steering.rc
                      : stream == 1 ? m.msg.brake.rc
                      : stream == 2 ? m.msg.throttle.rc
                      : stream == 3 ? m.msg.ulc.rc
                                    : m.msg.system.rc;
        ck_assert_msg(rc == sent[stream] % 16u, "stream %d message %u carried rc %u", stream,
                      sent[stream], (unsigned)rc);
        sent[stream]++;
        for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
            ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)k), sent[k] % 16u);
        }
        /* A message without a counter in between changes none. */
        memset(&m, 0, sizeof m);
        m.which_msg = i % 2 ? paddock_v1_DbwMessage_gear_tag : paddock_v1_DbwMessage_fault_tag;
        ck_assert_int_eq(pdk_dbw_link_stream_of(m.which_msg), -1);
        pdk_dbw_link_stamp(&link, &m);
        for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
            ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)k), sent[k] % 16u);
        }
    }
    for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
        ck_assert_msg(sent[k] > 32, "stream %d wrapped only %u times", k, sent[k] / 16u);
    }

    /* A counter set by hand (to repeat one on purpose) is the next sent. */
    pdk_dbw_link_set_rc(&link, PDK_DBW_STREAM_STEER, 15);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_steering_tag;
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.steering.rc, 15);
    ck_assert_uint_eq(pdk_dbw_link_rc(&link, PDK_DBW_STREAM_STEER), 0);
    pdk_dbw_link_set_rc(&link, PDK_DBW_STREAM_STEER, 0x1F);
    ck_assert_uint_eq(pdk_dbw_link_rc(&link, PDK_DBW_STREAM_STEER), 15);

    /* The CRC goes on only when asked, and covers the stamped counter. */
    ck_assert_uint_eq(m.msg.steering.which_crc_set, 0);
    pdk_dbw_link_set_crc(&link, 1);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_ulc_tag;
    m.msg.ulc.cmd = 4.0f;
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.ulc.which_crc_set, paddock_v1_UlcCmd_crc_tag);
    uint8_t crc = 0;
    ck_assert_int_eq(pdk_dbw_link_crc8(&m, &crc), 1);
    ck_assert_uint_eq(m.msg.ulc.crc_set.crc, crc);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_turn_signal_tag;
    pdk_dbw_link_stamp(&link, &m); /* no CRC field to fill: nothing happens */
    ck_assert_uint_eq(m.msg.turn_signal.cmd, 0);
    pdk_dbw_link_set_crc(&link, 0);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_gear_tag;
    m.msg.gear.which_crc_set = paddock_v1_GearCmd_crc_tag; /* a stale CRC is removed */
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.gear.which_crc_set, 0);
}
END_TEST

START_TEST(dbw_bad_arguments_are_named)
{
    static pdk_dbw_link link;
    pdk_dbw_link_init(&link, NULL, NULL, 1, 1);
    ck_assert_int_eq(pdk_dbw_link_steer_angle(&link, NAN, 0.0, 0.0), PDK_CLIENT_EINVAL);
    ck_assert_str_eq(link.error, "steer: cmd is NaN; it must be a finite number");
    /* Infinite rates are the kit's "no limit"; a negative one is the server's to refuse. */
    ck_assert_int_eq(pdk_dbw_link_brake_pressure(&link, 10.0, -INFINITY, INFINITY),
                     PDK_CLIENT_EINVAL);
    ck_assert_str_eq(link.error, "brake: the link has no client (pdk_dbw_link_init)");
    ck_assert_int_eq(pdk_dbw_link_ulc_velocity(&link, INFINITY, NULL), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "ulc_velocity: cmd is infinite") != NULL, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_fault(&link, 1, 0, NAN), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "fault: value") != NULL, "%s", link.error);
    /* A link without a client says so rather than crash. */
    ck_assert_int_eq(pdk_dbw_link_enable(&link), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "system: the link has no client") != NULL, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_send(NULL, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_dbw_link_poll(NULL, 0), PDK_CLIENT_EINVAL);
}
END_TEST

/* --- the DBW link against a scripted peer --------------------------------- */

static size_t encode_ok(uint8_t *buf, size_t cap, uint64_t id, uint64_t tick)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.request_id = id;
    f.which_body = paddock_v1_Frame_ok_tag;
    f.body.ok.tick = tick;
    return encode_frame(buf, cap, &f);
}

static size_t encode_system_report(uint8_t *buf, size_t cap, uint32_t state, const char *reason)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_dbw_report_tag;
    f.body.dbw_report.subscription_id = 1;
    f.body.dbw_report.tick = 900;
    f.body.dbw_report.which_report = paddock_v1_DbwReport_system_tag;
    f.body.dbw_report.report.system.state = state;
    snprintf(f.body.dbw_report.report.system.reason_disengage_str,
             sizeof f.body.dbw_report.report.system.reason_disengage_str, "%s", reason);
    return encode_frame(buf, cap, &f);
}

static size_t encode_control_event(uint8_t *buf, size_t cap)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_control_event_tag;
    f.body.control_event.active_source = paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER;
    f.body.control_event.preempted = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    snprintf(f.body.control_event.reason, sizeof f.body.control_event.reason, "driver took over");
    return encode_frame(buf, cap, &f);
}

typedef struct link_seen {
    int reports;
    uint32_t last_state;
    int events;
    paddock_v1_ControlSource preempted;
} link_seen;

static void seen_report(const paddock_v1_DbwReport *r, void *ud)
{
    link_seen *s = ud;
    s->reports++;
    if (r->which_report == paddock_v1_DbwReport_system_tag) {
        s->last_state = r->report.system.state;
    }
}

static void seen_event(const paddock_v1_ControlEvent *e, void *ud)
{
    link_seen *s = ud;
    s->events++;
    s->preempted = e->preempted;
}

/* Synchronous: a send returns its own Ok (pushes before it go to the
 * callbacks) or the server's refusal, named. */
START_TEST(dbw_link_sync_replies_and_pushes)
{
    static uint8_t welcome[256], first[1024], second[1024];
    size_t nw = encode_welcome(welcome, sizeof welcome, 1, 1);
    size_t n1 = encode_system_report(first, sizeof first, 2, "");
    n1 += encode_control_event(first + n1, sizeof first - n1);
    n1 += encode_ok(first + n1, sizeof first - n1, 2, 4321);
    size_t n2 = encode_error(second, sizeof second, 3, paddock_v1_ErrorCode_OUT_OF_RANGE,
                             "fault kind 99 is not a fault (0 CLEAR .. 10 POWER_CYCLE)");
    peer p;
    memset(&p, 0, sizeof p);
    p.replies[0] = welcome, p.reply_len[0] = nw;
    p.replies[1] = first, p.reply_len[1] = n1;
    p.replies[2] = second, p.reply_len[2] = n2;
    p.n_replies = 3;
    peer_start(&p);
    char addr[64];
    peer_addr(&p, addr, sizeof addr);
    ck_assert_int_eq(pdk_client_connect(&client, addr, 2000, NULL), PDK_CLIENT_OK);

    static pdk_dbw_link link;
    link_seen seen = {0, 0, 0, 0};
    pdk_dbw_link_init(&link, &client, &frame_a, 5, 6);
    pdk_dbw_link_on_report(&link, seen_report, &seen);
    pdk_dbw_link_on_event(&link, seen_event, &seen);
    pdk_client_status st = pdk_dbw_link_steer_angle(&link, 15.0, 0.0, 0.0);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_uint_eq(link.last_tick, 4321);
    ck_assert_int_eq(seen.reports, 1);
    ck_assert_uint_eq(seen.last_state, 2);
    ck_assert_int_eq(seen.events, 1);
    ck_assert_int_eq(seen.preempted, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);

    st = pdk_dbw_link_fault(&link, 99, 0, 1.0);
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    ck_assert_str_eq(
        link.error,
        "fault: OUT_OF_RANGE: fault kind 99 is not a fault (0 CLEAR .. 10 POWER_CYCLE)");
    ck_assert_uint_eq(link.acked, 1);
    ck_assert_uint_eq(link.refused, 1);
    pdk_client_close(&client);
    peer_join(&p);
    ck_assert_int_eq(p.frames_read, 3);
}
END_TEST

/* Asynchronous: sends return at once; poll takes the replies, hands the
 * pushes over and returns a refusal once, naming the message and request. */
START_TEST(dbw_link_async_replies_come_from_poll)
{
    static uint8_t welcome[256], first[1024], second[1024];
    size_t nw = encode_welcome(welcome, sizeof welcome, 1, 1);
    size_t n1 = encode_system_report(first, sizeof first, 0, "SteerCmdTimeout");
    n1 += encode_error(first + n1, sizeof first - n1, 2, paddock_v1_ErrorCode_OUT_OF_RANGE,
                       "steering cmd_type 7 is not a steering command type");
    size_t n2 = encode_ok(second, sizeof second, 3, 777);
    peer p;
    memset(&p, 0, sizeof p);
    p.replies[0] = welcome, p.reply_len[0] = nw;
    p.replies[1] = first, p.reply_len[1] = n1;
    p.replies[2] = second, p.reply_len[2] = n2;
    p.n_replies = 3;
    peer_start(&p);
    char addr[64];
    peer_addr(&p, addr, sizeof addr);
    ck_assert_int_eq(pdk_client_connect(&client, addr, 2000, NULL), PDK_CLIENT_OK);

    static pdk_dbw_link link;
    link_seen seen = {0, 9, 0, 0};
    pdk_dbw_link_init(&link, &client, &frame_a, 5, 6);
    pdk_dbw_link_on_report(&link, seen_report, &seen);
    pdk_dbw_link_set_async(&link, 1);
    ck_assert_int_eq(pdk_dbw_link_steer(&link, 7, 1.0, 0.0, 0.0), PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_dbw_link_ulc_velocity(&link, 3.0, NULL), PDK_CLIENT_OK);
    ck_assert_uint_eq(link.n_pending, 2);

    double t0 = now_ms();
    pdk_client_status st = PDK_CLIENT_OK;
    while (link.n_pending > 0 && now_ms() - t0 < 3000.0 && st == PDK_CLIENT_OK) {
        st = pdk_dbw_link_poll(&link, 50);
    }
    if (st == PDK_CLIENT_OK) {
        st = pdk_dbw_link_poll(&link, 0);
    }
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_str_eq(link.error, "steering (request 2): OUT_OF_RANGE: steering cmd_type 7 is not "
                                 "a steering command type");
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    /* The rest arrives by the next poll; the refusal is not returned twice. */
    t0 = now_ms();
    while (link.n_pending > 0 && now_ms() - t0 < 3000.0) {
        ck_assert_int_eq(pdk_dbw_link_poll(&link, 50), PDK_CLIENT_OK);
    }
    ck_assert_int_eq(pdk_dbw_link_poll(&link, 0), PDK_CLIENT_OK);
    ck_assert_uint_eq(link.n_pending, 0);
    ck_assert_uint_eq(link.acked, 1);
    ck_assert_uint_eq(link.refused, 1);
    ck_assert_uint_eq(link.last_tick, 777);
    ck_assert_int_eq(seen.reports, 1);
    ck_assert_uint_eq(seen.last_state, 0);
    pdk_client_close(&client);
    peer_join(&p);
}
END_TEST

/* --- paddock dbw's names and report lines ---------------------------------- */

START_TEST(cli_dbw_names)
{
    char err[256] = "";
    paddock_v1_DbwReportKind kinds[12];
    size_t n = 99;
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "all", kinds, 12, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "system,Wheel-Speeds,steering", kinds, 12,
                                             &n, err, sizeof err),
                     0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(kinds[0], paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM);
    ck_assert_int_eq(kinds[1], paddock_v1_DbwReportKind_DBW_REPORT_WHEEL_SPEEDS);
    ck_assert_int_eq(kinds[2], paddock_v1_DbwReportKind_DBW_REPORT_STEERING);
    ck_assert_int_eq(
        pdk_cli_parse_dbw_kinds("--kinds", "ulc,bogus", kinds, 12, &n, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "--kinds: 'bogus' is not a report kind", 37) == 0, "%s", err);
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "ulc,ulc", kinds, 12, &n, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "--kinds: 'ulc' is listed twice");
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "imu,", kinds, 12, &n, err, sizeof err),
                     -1);
    for (int k = 0; k < 12; k++) {
        paddock_v1_DbwReportKind back;
        const char *name = pdk_dbw_link_report_kind_name((paddock_v1_DbwReportKind)k);
        ck_assert_int_eq(pdk_dbw_link_report_kind_parse(name, &back), 0);
        ck_assert_int_eq(back, k);
    }

    uint32_t v = 0;
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "report-drop", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_FAULT_REPORT_DROP);
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "99", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 99); /* sent as it is: the server names it */
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "wobble", &v, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "fault KIND: 'wobble' is not a fault kind", 40) == 0, "%s", err);
    for (uint32_t k = 0; k < PDK_DBW_FAULT_KIND_COUNT; k++) {
        uint32_t back = 99;
        ck_assert_int_eq(pdk_dbw_link_fault_parse(pdk_dbw_link_fault_name(k), &back), 0);
        ck_assert_uint_eq(back, k);
    }

    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_STUCK, "brake", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_REPORT_DELAY, "system", &v, err, sizeof err),
        0);
    ck_assert_uint_eq(v, paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_SENSOR_BIAS, "gyro_z", &v, err, sizeof err),
        0);
    ck_assert_uint_eq(v, 5);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_STUCK, "gyro_z", &v, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "T: 'gyro_z' is not a target of a stuck fault", 44) == 0, "%s", err);
    ck_assert_int_eq(pdk_cli_parse_fault_target("T", 42, "12", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 12);

    ck_assert_int_eq(pdk_cli_parse_dbw_button("B", "external-brake", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_BUTTON_EXTERNAL_BRAKE);
    ck_assert_int_eq(pdk_cli_parse_dbw_button("B", "horn", &v, err, sizeof err), -1);
    ck_assert_int_eq(pdk_cli_parse_sync_mode("--sync-mode", "all_or_none", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_SYNC_MODE_ALL_OR_NONE);
    ck_assert_int_eq(pdk_cli_parse_sync_mode("--sync-mode", "some", &v, err, sizeof err), -1);
    int on = -1;
    ck_assert_int_eq(pdk_cli_parse_on_off("--comms-loss", "off", &on, err, sizeof err), 0);
    ck_assert_int_eq(on, 0);
    ck_assert_int_eq(pdk_cli_parse_on_off("--comms-loss", "maybe", &on, err, sizeof err), -1);
    ck_assert_str_eq(err, "--comms-loss: 'maybe' is neither on nor off");
}
END_TEST

START_TEST(cli_dbw_report_lines)
{
    char header[PDK_CLI_DBW_ROW_LEN];
    char row[PDK_CLI_DBW_ROW_LEN];
    pdk_cli_format_dbw_header(header, sizeof header);
    const size_t fields_at = strlen(header) - strlen("FIELDS");
    ck_assert_str_eq(header + fields_at, "FIELDS");

    static paddock_v1_DbwReport r;
    memset(&r, 0, sizeof r);
    r.tick = 1234;
    r.sim_time_s = 10.283;
    r.vehicle_id = 2;
    r.which_report = paddock_v1_DbwReport_system_tag;
    r.report.system.state = 2;
    r.report.system.reason_disengage = 0x24;
    snprintf(r.report.system.reason_disengage_str, sizeof r.report.system.reason_disengage_str,
             "SteerCmdTimeout");
    r.report.system.enabled = true;
    r.report.system.ready = true;
    r.report.system.active_source = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    pdk_cli_format_dbw_report(row, sizeof row, &r);
    ck_assert_str_eq(row, "      1234     10.283     2 system           state=ACTIVE sync=none "
                          "disengage=SteerCmdTimeout(0x24) not_ready=-(0x00) source=autonomy "
                          "flags=ready,enabled");

    memset(&r, 0, sizeof r);
    r.which_report = paddock_v1_DbwReport_steering_tag;
    r.report.steering.steering_wheel_angle = -12.5f;
    r.report.steering.has_status = true;
    r.report.steering.status.timeout = true;
    pdk_cli_format_dbw_report(row, sizeof row, &r);
    ck_assert_uint_eq(strlen(row) > fields_at, 1);
    ck_assert_msg(strncmp(row + fields_at, "angle_deg=-12.50 ", 17) == 0, "%s", row);
    ck_assert_msg(strstr(row, " flags=timeout") != NULL, "%s", row);

    /* Every kind has a line, and a short buffer is cut, not overrun. */
    for (pb_size_t tag = paddock_v1_DbwReport_steering_tag;
         tag <= paddock_v1_DbwReport_aw_status_tag; tag++) {
        memset(&r, 0, sizeof r);
        r.which_report = tag;
        pdk_cli_format_dbw_report(row, sizeof row, &r);
        int kind = pdk_dbw_link_report_kind_of(&r);
        ck_assert_int_eq(kind, (int)(tag - paddock_v1_DbwReport_steering_tag));
        ck_assert_msg(strstr(row, pdk_dbw_link_report_kind_name((paddock_v1_DbwReportKind)kind)) !=
                          NULL,
                      "%s", row);
        ck_assert_msg(strstr(row, "(empty)") == NULL, "%s", row);
    }
    char small[20];
    pdk_cli_format_dbw_report(small, sizeof small, &r);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

/* --- the DBW link against the real paddockd -------------------------------- */

/* One paddockd for the "server" test case, started before its tests fork
 * (an unchecked fixture) on an ephemeral loopback port with its own
 * database, as tests/integration/harness.c does. */
static struct {
    pid_t pid;
    int port;
    char dir[64];
    char log_path[128];
    char db_path[128];
    char addr[64];
} srv;

static void read_text(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return;
    }
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void server_start(void)
{
    memset(&srv, 0, sizeof srv);
    snprintf(srv.dir, sizeof srv.dir, "/tmp/paddock-client-XXXXXX");
    if (mkdtemp(srv.dir) == NULL) {
        return;
    }
    snprintf(srv.log_path, sizeof srv.log_path, "%s/paddockd.log", srv.dir);
    snprintf(srv.db_path, sizeof srv.db_path, "%s/paddock.db", srv.dir);
    int out = open(srv.log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        return;
    }
    const char *argv[] = {PDK_BUILD_DIR "/bin/paddockd",
                          "serve",
                          "--listen",
                          "127.0.0.1:0",
                          "--db",
                          srv.db_path,
                          "--presets",
                          PDK_SOURCE_DIR "/presets",
                          "--migrations",
                          PDK_SOURCE_DIR "/migrations",
                          NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the server never outlives the test */
        if (getppid() != parent) {
            _exit(127);
        }
        dup2(out, 1);
        dup2(out, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out);
    if (pid < 0) {
        return;
    }
    srv.pid = pid;
    static char log[8192];
    for (int i = 0; i < 1000; i++) { /* 10 s */
        read_text(srv.log_path, log, sizeof log);
        const char *l = strstr(log, "listening on 127.0.0.1:");
        if (l != NULL && strchr(l, '\n') != NULL) {
            srv.port = atoi(l + strlen("listening on 127.0.0.1:"));
            snprintf(srv.addr, sizeof srv.addr, "127.0.0.1:%d", srv.port);
            return;
        }
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            srv.pid = 0;
            return;
        }
        usleep(10 * 1000);
    }
}

static void server_stop(void)
{
    if (srv.pid > 0) {
        kill(srv.pid, SIGTERM);
        int status = 0;
        for (int i = 0; i < 1000 && waitpid(srv.pid, &status, WNOHANG) != srv.pid; i++) {
            usleep(10 * 1000);
            if (i == 999) {
                kill(srv.pid, SIGKILL);
                waitpid(srv.pid, &status, 0);
            }
        }
        srv.pid = 0;
    }
    if (srv.dir[0] != '\0') {
        static const char *const files[] = {"paddockd.log", "paddock.db", "paddock.db-wal",
                                            "paddock.db-shm"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char path[160];
            snprintf(path, sizeof path, "%s/%s", srv.dir, files[i]);
            unlink(path);
        }
        rmdir(srv.dir);
    }
}

static void assert_server_up(void)
{
    static char log[8192];
    if (srv.port <= 0) {
        read_text(srv.log_path, log, sizeof log);
    }
    ck_assert_msg(srv.port > 0, "paddockd (%s) did not start; build it first. Its output: %s",
                  PDK_BUILD_DIR "/bin/paddockd", log);
}

/* A session (realtime) and a midsize_sedan in drive on it, through the plain client. */
static void create_session_and_vehicle(uint64_t *session, uint32_t *vehicle)
{
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(frame_a.body.session_create.name, sizeof frame_a.body.session_create.name,
             "test-client-dbw");
    ck_assert_int_eq(pdk_client_call(&client, &frame_a, &frame_a, NULL, NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(frame_a.which_body, paddock_v1_Frame_session_created_tag);
    *session = frame_a.body.session_created.session.session_id;
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    frame_a.body.vehicle_spawn.session_id = *session;
    snprintf(frame_a.body.vehicle_spawn.preset, sizeof frame_a.body.vehicle_spawn.preset,
             "midsize_sedan");
    frame_a.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    pdk_client_status st = pdk_client_call(&client, &frame_a, &frame_a, NULL, NULL);
    ck_assert_msg(st == PDK_CLIENT_OK, "spawn: %s", client.error);
    *vehicle = frame_a.body.vehicle_spawned.vehicle_id;
}

typedef struct drive_seen {
    int stopped;        /* set when the commands stop */
    int active;         /* a SystemReport said ACTIVE while commands flowed */
    int timeout_reason; /* a SystemReport named a *CmdTimeout after they stopped */
    int early_timeout;  /* one named a *CmdTimeout while they flowed */
    int bad_crc_rc;     /* any report flagged a bad CRC or rolling counter */
    uint32_t last_state;
    double max_speed_mps;
    char reason[40];
} drive_seen;

static void drive_report(const paddock_v1_DbwReport *r, void *ud)
{
    drive_seen *s = ud;
    if (r->which_report == paddock_v1_DbwReport_system_tag) {
        const paddock_v1_SystemReport *sys = &r->report.system;
        s->last_state = sys->state;
        s->active |= !s->stopped && sys->state == PDK_DBW_STATE_ACTIVE;
        int timeout = strstr(sys->reason_disengage_str, "CmdTimeout") != NULL;
        s->timeout_reason |= s->stopped && timeout;
        s->early_timeout |= !s->stopped && timeout;
        s->bad_crc_rc |= sys->bad_crc || sys->bad_rc;
        snprintf(s->reason, sizeof s->reason, "%s", sys->reason_disengage_str);
    } else if (r->which_report == paddock_v1_DbwReport_ulc_tag) {
        const paddock_v1_UlcReport *u = &r->report.ulc;
        s->bad_crc_rc |= u->bad_crc || u->bad_rc;
        if ((double)u->vel_meas > s->max_speed_mps) {
            s->max_speed_mps = (double)u->vel_meas;
        }
    } else if (r->which_report == paddock_v1_DbwReport_steering_tag) {
        s->bad_crc_rc |= r->report.steering.status.bad_crc || r->report.steering.status.bad_rc;
    }
}

/* The kit through the module: lease, subscribe, enable, then a second of
 * steering and ULC at 50 Hz with CRCs and changing counters (ACTIVE, no bad
 * CRC or counter), then silence (the kit times the commands out and says
 * why). An unknown fault kind is refused naming it, by the module and by
 * `paddock dbw`. */
START_TEST(dbw_real_server_drive_timeout_fault)
{
    assert_server_up();
    ck_assert_int_eq(pdk_client_connect_as(&client, srv.addr, 3000, "test-client-dbw", NULL),
                     PDK_CLIENT_OK);
    uint64_t session = 0;
    uint32_t vehicle = 0;
    create_session_and_vehicle(&session, &vehicle);

    static pdk_dbw_link link;
    drive_seen seen;
    memset(&seen, 0, sizeof seen);
    pdk_dbw_link_init(&link, &client, &frame_a, session, vehicle);
    pdk_dbw_link_set_crc(&link, 1);
    pdk_dbw_link_on_report(&link, drive_report, &seen);
    paddock_v1_ControlLeaseReply lease;
    pdk_client_status st =
        pdk_dbw_link_take_lease(&link, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY, &lease);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_int_eq(lease.source, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);
    static const paddock_v1_DbwReportKind kinds[] = {paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_ULC,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_STEERING};
    st = pdk_dbw_link_subscribe(&link, kinds, 3);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_uint_ne(link.subscription_id, 0);
    st = pdk_dbw_link_enable(&link);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);

    pdk_dbw_link_set_async(&link, 1);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int n = 0; n < 50; n++) {
        st = pdk_dbw_link_steer_angle(&link, 5.0 * sin(n * 0.1), 0.0, 0.0);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        st = pdk_dbw_link_ulc_velocity(&link, 3.0, NULL);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        st = pdk_dbw_link_poll(&link, 0);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        next.tv_nsec += 20000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    double t0 = now_ms();
    while (link.n_pending > 0 && now_ms() - t0 < 2000.0) {
        st = pdk_dbw_link_poll(&link, 20);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    }
    ck_assert_uint_eq(link.n_pending, 0);
    ck_assert_uint_eq(link.acked, 101); /* the enable, then 50 of each */
    ck_assert_uint_eq(link.refused, 0);
    ck_assert_msg(seen.active, "no SystemReport said ACTIVE; last state %u, reason '%s'",
                  (unsigned)seen.last_state, seen.reason);
    ck_assert_msg(!seen.early_timeout, "a command timed out while they flowed: '%s'", seen.reason);
    ck_assert_msg(!seen.bad_crc_rc, "a report flagged a bad CRC or rolling counter");
    ck_assert_msg(seen.max_speed_mps > 0.1, "the ULC did not move the car: %.3f m/s",
                  seen.max_speed_mps);

    seen.stopped = 1;
    t0 = now_ms();
    while (!seen.timeout_reason && now_ms() - t0 < 1500.0) {
        st = pdk_dbw_link_poll(&link, 50);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    }
    ck_assert_msg(seen.timeout_reason,
                  "no SystemReport named a command timeout; last state %u, "
                  "reason '%s'",
                  (unsigned)seen.last_state, seen.reason);
    ck_assert_uint_ne(seen.last_state, PDK_DBW_STATE_ACTIVE);

    pdk_dbw_link_set_async(&link, 0);
    st = pdk_dbw_link_fault(&link, 99, 0, 0.0);
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_INVALID_ARGUMENT);
    ck_assert_msg(strncmp(link.error, "fault: ", 7) == 0 &&
                      strstr(link.error, "fault kind") != NULL,
                  "%s", link.error);
    st = pdk_dbw_link_disable(&link);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_unsubscribe(&link), PDK_CLIENT_OK);
    st = pdk_dbw_link_release_lease(&link, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);

    /* The same through paddock dbw, now that the lease is free. */
    static char out[8192];
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s/bin/paddock --server %s dbw --session %llu --vehicle %u fault 99 steer 0 2>&1",
             PDK_BUILD_DIR, srv.addr, (unsigned long long)session, (unsigned)vehicle);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit %d: %s",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
    ck_assert_msg(strncmp(out, "paddock: INVALID_ARGUMENT: ", 27) == 0 &&
                      strstr(out, "fault kind") != NULL,
                  "%s", out);

    snprintf(cmd, sizeof cmd,
             "%s/bin/paddock --server %s dbw --session %llu --vehicle %u reports --kinds system "
             "--count 2 2>/dev/null",
             PDK_BUILD_DIR, srv.addr, (unsigned long long)session, (unsigned)vehicle);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", out);
    int lines = 0;
    for (const char *l = strstr(out, " system "); l != NULL; l = strstr(l + 1, " system ")) {
        lines++;
    }
    ck_assert_msg(strncmp(out, "      TICK", 10) == 0 && lines == 2, "%s", out);
    pdk_client_close(&client);
}
END_TEST

static Suite *client_suite(void)
{
    Suite *s = suite_create("client");
    TCase *addr = tcase_create("address");
    tcase_add_test(addr, server_address_precedence);
    tcase_add_loop_test(addr, bad_address_is_eaddr, 0,
                        (int)(sizeof BAD_ADDRESSES / sizeof BAD_ADDRESSES[0]));
    tcase_add_test(addr, missing_address_is_eaddr);
    suite_add_tcase(s, addr);

    TCase *peers = tcase_create("peers");
    tcase_set_timeout(peers, 20);
    tcase_add_test(peers, connect_refused_is_econnect);
    tcase_add_test(peers, connect_by_name_reports_resolved_peer);
    tcase_add_test(peers, silent_peer_is_etimeout);
    tcase_add_test(peers, garbage_is_eproto);
    tcase_add_test(peers, overlong_varint_is_eproto);
    tcase_add_test(peers, frame_longer_than_rx_is_eproto);
    tcase_add_test(peers, peer_that_closes_is_eio);
    tcase_add_test(peers, error_reply_to_hello_is_eserver);
    tcase_add_test(peers, welcome_of_another_version_is_eproto);
    tcase_add_test(peers, reply_of_wrong_kind_to_hello_is_eproto);
    tcase_add_test(peers, call_matches_ids_and_routes_pushes);
    tcase_add_test(peers, recv_then_peer_closes);
    tcase_add_test(peers, request_too_large_is_eencode);
    suite_add_tcase(s, peers);

    TCase *api = tcase_create("api");
    tcase_add_test(api, invalid_arguments);
    tcase_add_test(api, zeroed_client_is_not_connected);
    tcase_add_test(api, status_names_cover_every_value);
    tcase_add_test(api, error_code_and_body_names);
    suite_add_tcase(s, api);

    TCase *cli = tcase_create("cli");
    tcase_add_test(cli, cli_args_parse_long_options);
    tcase_add_test(cli, cli_args_errors_name_the_option);
    tcase_add_test(cli, cli_parse_numbers);
    tcase_add_test(cli, cli_copy_text_respects_field_size);
    tcase_add_test(cli, cli_gear_letters);
    tcase_add_test(cli, cli_wheel_lists);
    tcase_add_test(cli, cli_tyre_conditions);
    tcase_add_test(cli, cli_timing_modes);
    tcase_add_test(cli, cli_wrap_degrees);
    tcase_add_test(cli, cli_state_rows_are_fixed_width);
    tcase_add_test(cli, cli_session_and_drive_rows_are_fixed_width);
    tcase_add_test(cli, cli_script_step_to_dbw_command);
    tcase_add_test(cli, cli_initial_block);
    tcase_add_test(cli, cli_exit_codes);
    tcase_add_test(cli, cli_dbw_names);
    tcase_add_test(cli, cli_dbw_report_lines);
    suite_add_tcase(s, cli);

    TCase *dbw = tcase_create("dbw");
    tcase_set_timeout(dbw, 20);
    tcase_add_test(dbw, dbw_crc_matches_server);
    tcase_add_test(dbw, dbw_rolling_counters_per_stream);
    tcase_add_test(dbw, dbw_bad_arguments_are_named);
    tcase_add_test(dbw, dbw_link_sync_replies_and_pushes);
    tcase_add_test(dbw, dbw_link_async_replies_come_from_poll);
    suite_add_tcase(s, dbw);

    TCase *server = tcase_create("server");
    tcase_set_timeout(server, 30);
    tcase_add_unchecked_fixture(server, server_start, server_stop);
    tcase_add_test(server, dbw_real_server_drive_timeout_fault);
    suite_add_tcase(s, server);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(client_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
