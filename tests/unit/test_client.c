/* Unit tests of the C client library (clients/c/paddock_client.c) against
 * dead and broken peers (raw sockets in a thread of this test, from
 * client_test_util.h), and of the paddock CLI's pure helpers
 * (clients/cli/cli_util.c). The DBW link (clients/c/paddock_dbw.c) and
 * `paddock dbw` are test_dbw_link.c's; the rest of what needs a real
 * paddockd is in tests/integration. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pb_encode.h>

#include "cli_util.h"
#include "paddock_client.h"

#include "client_test_util.h"

/* Large objects live here, not on the test's stack. */
static pdk_client client;
static paddock_v1_Frame frame_a;
static paddock_v1_Frame frame_b;

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

    /* A full StateBatch (64 vehicles of four wheels, paddock.options) is
     * some 30 KiB; the send buffer holds 4 KiB. */
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_state_batch_tag;
    const int full = (int)(sizeof frame_a.body.state_batch.vehicles /
                           sizeof frame_a.body.state_batch.vehicles[0]);
    ck_assert_int_eq(full, 64);
    frame_a.body.state_batch.vehicles_count = (pb_size_t)full;
    for (int i = 0; i < full; i++) {
        frame_a.body.state_batch.vehicles[i].vehicle_id = (uint32_t)i + 1;
        paddock_v1_VehicleState *v = &frame_a.body.state_batch.vehicles[i];
        /* proto3 leaves zeros out; non-zero values make every field count. */
        v->x_m = v->y_m = v->z_m = v->yaw_rad = 1.5 + i;
        v->vx_mps = v->vy_mps = v->yaw_rate_radps = v->steer_angle_rad = 2.5 + i;
        v->speed_mps = v->ax_mps2 = v->ay_mps2 = 3.5 + i;
        /* Four wheels each (paddock.options: wheels max_count 4). */
        v->wheels_count = 4;
        for (int w = 0; w < 4; w++) {
            paddock_v1_WheelState *ws = &v->wheels[w];
            ws->spin_angle_rad = ws->spin_rate_radps = ws->steer_rad = 0.5 + w;
            ws->center_x_m = ws->center_y_m = ws->center_z_m = ws->load_n = 1.25 + w;
        }
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
    int64_t offset_ns = 0;
    uint64_t rtt_ns = 0;
    ck_assert_int_eq(pdk_client_clock_sample(NULL, &frame_a, &offset_ns, &rtt_ns),
                     PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_clock_sample(&client, NULL, &offset_ns, &rtt_ns),
                     PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_clock_sample(&client, &frame_a, NULL, &rtt_ns), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_clock_sample(&client, &frame_a, &offset_ns, NULL),
                     PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_client_clock_sample_push(&client, &frame_a, NULL, NULL, NULL, &rtt_ns),
                     PDK_CLIENT_EINVAL);
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
    const char *seen[PDK_CLIENT_ETLS + 1];
    for (int s = PDK_CLIENT_OK; s <= PDK_CLIENT_ETLS; s++) {
        const char *name = pdk_client_status_name((pdk_client_status)s);
        ck_assert_ptr_nonnull(name);
        ck_assert_msg(name[0] != '\0' && strcmp(name, "unknown status") != 0, "status %d", s);
        for (int j = 0; j < s; j++) {
            ck_assert_msg(strcmp(seen[j], name) != 0, "statuses %d and %d share '%s'", j, s, name);
        }
        seen[s] = name;
    }
    ck_assert_str_eq(pdk_client_status_name(PDK_CLIENT_ETIMEOUT), "timeout");
    ck_assert_str_eq(pdk_client_status_name((pdk_client_status)(PDK_CLIENT_ETLS + 1)),
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

/* "A,B,C" fills a request's fixed array of names; an empty or too long
 * name and one past the array's rows are refused naming the option. */
START_TEST(cli_parse_names_fills_and_refuses)
{
    char err[256];
    static paddock_v1_TelemetrySubscribe sub;
    memset(&sub, 0, sizeof sub);
    const size_t size = sizeof sub.channels[0], max = sizeof sub.channels / size;
    ck_assert_int_eq(pdk_cli_parse_names("channels", "Speed,YawRate", &sub.channels[0][0], size,
                                         max, &sub.channels_count, err, sizeof err),
                     0);
    ck_assert_uint_eq(sub.channels_count, 2);
    ck_assert_str_eq(sub.channels[0], "Speed");
    ck_assert_str_eq(sub.channels[1], "YawRate");
    const char *bad[] = {",", "Speed,,Roll", "Speed,"
                                             "0123456789012345678901234567890123456789"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sub.channels_count = 0;
        ck_assert_msg(pdk_cli_parse_names("channels", bad[i], &sub.channels[0][0], size, max,
                                          &sub.channels_count, err, sizeof err) == -1,
                      "'%s' accepted", bad[i]);
        ck_assert_msg(strstr(err, "--channels") && strstr(err, "empty or too long"), "%s", err);
    }
    sub.channels_count = (pb_size_t)max;
    ck_assert_int_eq(pdk_cli_parse_names("channels", "Roll", &sub.channels[0][0], size, max,
                                         &sub.channels_count, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "--channels: at most 64 channels") != NULL, "%s", err);
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
    ck_assert_int_eq(pdk_cli_parse_timing("timing", "lockstep", &m, err, sizeof err), 0);
    ck_assert_int_eq(m, paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP);
    ck_assert_int_eq(pdk_cli_parse_timing("timing", "slow", &m, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'slow'") != NULL && strstr(err, "lockstep") != NULL, "%s", err);
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP), "lockstep");
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_FAST), "fast");
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_REALTIME), "realtime");
    ck_assert_str_eq(pdk_cli_timing_name(paddock_v1_TimingMode_TIMING_MODE_UNSPECIFIED), "default");
    ck_assert_str_eq(pdk_cli_timing_name((paddock_v1_TimingMode)9), "unknown");
}
END_TEST

START_TEST(cli_take_session)
{
    char err[256];
    uint64_t s = 0;
    ck_assert_int_eq(pdk_cli_take_session("7", &s, err, sizeof err), 0);
    ck_assert_uint_eq(s, 7u);
    ck_assert_int_eq(pdk_cli_take_session("8", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "given twice (7, then '8')") != NULL, "%s", err);
    s = 0;
    ck_assert_int_eq(pdk_cli_take_session("0", &s, err, sizeof err), -1);
    ck_assert_int_eq(pdk_cli_take_session("x3", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "x3") != NULL, "%s", err);
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
    s.tick_cost_ms = 0.25;
    s.step_thread = true;
    s.tick_time_p99_ms = 7.5;
    pdk_cli_format_sessions_header(hdr, sizeof hdr);
    pdk_cli_format_session(row, sizeof row, &s);
    ck_assert_uint_eq(strlen(row), strlen(hdr));
    unsigned long long id, tick, over;
    char name[32], world[32], timing[32];
    double sim, p50, p99;
    unsigned veh, subs;
    double cost, tick_p99;
    char on[16];
    ck_assert_int_eq(sscanf(row, "%llu %31s %31s %31s %llu %lf %u %u %lf %lf %llu %lf %15s %lf",
                            &id, name, world, timing, &tick, &sim, &veh, &subs, &p50, &p99, &over,
                            &cost, on, &tick_p99),
                     14);
    ck_assert_uint_eq(id, 42);
    ck_assert_str_eq(name, "e2e");
    ck_assert_str_eq(timing, "realtime");
    ck_assert_uint_eq(veh, 2);
    ck_assert_double_eq_tol(p99, 1.5, 1e-9);
    ck_assert_uint_eq(over, 3);
    ck_assert_str_eq(on, "thread");
    ck_assert_double_eq_tol(tick_p99, 7.5, 1e-9);
    ck_assert_ptr_nonnull(strstr(hdr, "TICK_P99_MS"));
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

/* Recording rows: fixed width up to BUILD, the vehicles cut to their
 * column; ISO 8601 times both ways, and what is not one refused by name. */
START_TEST(cli_recording_rows_and_utc_times)
{
    char hdr[PDK_CLI_ROW_LEN];
    char row[PDK_CLI_ROW_LEN];
    static paddock_v1_RecordingInfo r;
    memset(&r, 0, sizeof r);
    r.session_id = 7;
    strcpy(r.name, "lap one");
    strcpy(r.world_preset, "flat");
    strcpy(r.build_id, "b1");
    r.vehicles_count = 3;
    strcpy(r.vehicles[0].preset, "midsize_sedan");
    strcpy(r.vehicles[1].preset, "pickup4x4");
    strcpy(r.vehicles[2].preset, "kart");
    r.started_wall_ns = UINT64_C(1796443200123456789); /* 2026-12-05T04:00:00.123Z */
    r.ticks = 1200;
    r.duration_s = 10.0;
    r.size_bytes = 8242;
    r.interrupted = true;
    pdk_cli_format_recordings_header(hdr, sizeof hdr);
    pdk_cli_format_recording(row, sizeof row, &r);
    ck_assert_uint_eq(strlen(row), strlen(hdr) - strlen("BUILD") + strlen("b1"));
    ck_assert_ptr_nonnull(strstr(row, "3: midsize_sedan,pick... "));
    ck_assert_ptr_nonnull(strstr(row, " 2026-12-05T04:00:00.123Z "));
    ck_assert_ptr_nonnull(strstr(row, " interrupted "));
    r.interrupted = false;
    r.live = true;
    pdk_cli_format_recording(row, sizeof row, &r);
    ck_assert_ptr_nonnull(strstr(row, " live "));

    char when[40];
    pdk_cli_format_wall_ns(when, sizeof when, 0);
    ck_assert_str_eq(when, "1970-01-01T00:00:00.000Z");
    pdk_cli_format_wall_ns(when, sizeof when, UINT64_C(951782400000000000));
    ck_assert_str_eq(when, "2000-02-29T00:00:00.000Z");
    uint64_t ns = 0;
    char err[256];
    ck_assert_int_eq(pdk_cli_parse_iso8601("since", "2000-02-29", &ns, err, sizeof err), 0);
    ck_assert_uint_eq(ns, UINT64_C(951782400000000000));
    ck_assert_int_eq(pdk_cli_parse_iso8601("since", "2026-12-05T04:00Z", &ns, err, sizeof err), 0);
    ck_assert_uint_eq(ns, UINT64_C(1796443200000000000));
    ck_assert_int_eq(pdk_cli_parse_iso8601("since", "2026-12-05T04:00:01", &ns, err, sizeof err),
                     0);
    ck_assert_uint_eq(ns, UINT64_C(1796443201000000000));
    const char *bad[] = {"yesterday",     "2026-13-01", "2026-12-05T25:00",
                         "2026-12-05T04", "1969-12-31", "2026-12-05Zx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(pdk_cli_parse_iso8601("since", bad[i], &ns, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "--since") != NULL && strstr(err, bad[i]) != NULL, "%s", err);
    }
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
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_ETLS), PDK_CLI_EXIT_CONNECT);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EADDR), PDK_CLI_EXIT_CONNECT);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EIO), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_ETIMEOUT), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EPROTO), PDK_CLI_EXIT_LOST);
    ck_assert_int_eq(pdk_cli_exit_for(PDK_CLIENT_EENCODE), PDK_CLI_EXIT_FAILED);
    ck_assert_int_eq(PDK_CLI_EXIT_USAGE, 2);
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
    tcase_add_test(cli, cli_parse_names_fills_and_refuses);
    tcase_add_test(cli, cli_gear_letters);
    tcase_add_test(cli, cli_wheel_lists);
    tcase_add_test(cli, cli_tyre_conditions);
    tcase_add_test(cli, cli_timing_modes);
    tcase_add_test(cli, cli_take_session);
    tcase_add_test(cli, cli_wrap_degrees);
    tcase_add_test(cli, cli_state_rows_are_fixed_width);
    tcase_add_test(cli, cli_session_and_drive_rows_are_fixed_width);
    tcase_add_test(cli, cli_recording_rows_and_utc_times);
    tcase_add_test(cli, cli_script_step_to_dbw_command);
    tcase_add_test(cli, cli_initial_block);
    tcase_add_test(cli, cli_exit_codes);
    suite_add_tcase(s, cli);

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
