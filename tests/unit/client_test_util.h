/* The client suites share this (test_client.c, test_dbw_link.c): a
 * monotonic clock in milliseconds, a loopback listener, a scripted peer
 * that plays back fixed bytes one reply per frame it reads (a fake server
 * in a thread of the test), and encoders of the Frames it sends. Every
 * function is static; a suite uses what it needs. Included once per suite,
 * after its feature macros. */
#ifndef PDK_CLIENT_TEST_UTIL_H
#define PDK_CLIENT_TEST_UTIL_H

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pb_encode.h>

#include "paddock_client.h"

/* --- helpers ------------------------------------------------------------- */

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A listening socket on 127.0.0.1 with a kernel-chosen port. */
static inline int listen_loopback(int *port)
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

static inline int wait_readable(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    return poll(&p, 1, ms);
}

/* Reads until one whole delimited frame is in; keeps the rest. */
static inline int peer_read_frame(int fd, size_t *have)
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

static inline void peer_write(int fd, const uint8_t *b, size_t n, int dribble)
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

static inline void *peer_main(void *arg)
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

static inline void peer_start(peer *p)
{
    p->lfd = listen_loopback(&p->port);
    ck_assert_int_eq(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static inline void peer_join(peer *p)
{
    pthread_join(p->thread, NULL);
    close(p->lfd);
}

static inline void peer_addr(const peer *p, char *out, size_t n)
{
    snprintf(out, n, "127.0.0.1:%d", p->port);
}

/* Encodes f in the delimited form the protocol uses. */
static inline size_t encode_frame(uint8_t *buf, size_t cap, const paddock_v1_Frame *f)
{
    pb_ostream_t os = pb_ostream_from_buffer(buf, cap);
    ck_assert_msg(pb_encode_delimited(&os, paddock_v1_Frame_fields, f), "%s", PB_GET_ERROR(&os));
    return os.bytes_written;
}

static inline size_t encode_welcome(uint8_t *buf, size_t cap, uint64_t id, uint32_t version)
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

static inline size_t encode_error(uint8_t *buf, size_t cap, uint64_t id, paddock_v1_ErrorCode code,
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

#endif
