/* libpaddock-client: the TCP connection (in clear, or through an OpenSSL
 * session on the same non-blocking socket), the varint-delimited Frame
 * stream in fixed buffers, request/reply matching and the Hello/Welcome
 * handshake. No malloc of its own: every byte lives in the caller's
 * pdk_client or on a small stack; OpenSSL allocates for a TLS connection. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "paddock_client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pb_decode.h>
#include <pb_encode.h>

#define DEFAULT_CLIENT_NAME "libpaddock-client"
/* A varint never needs more than 10 bytes for 64 bits. */
#define VARINT_MAX_BYTES 10u
/* Longest host part of an address we accept (a DNS name is at most 253). */
#define HOST_MAX 256u

/* --- time ---------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A deadline timeout_ms from now; -1 stands for "never". */
static int64_t deadline_after(int timeout_ms)
{
    if (timeout_ms < 0) {
        return -1;
    }
    return now_ns() + (int64_t)timeout_ms * 1000000;
}

/* Milliseconds left until deadline, rounded up so a poll never wakes early;
 * -1 (poll forever) for no deadline, 0 once it passed. */
static int remaining_ms(int64_t deadline)
{
    if (deadline < 0) {
        return -1;
    }
    int64_t left = deadline - now_ns();
    if (left <= 0) {
        return 0;
    }
    int64_t ms = (left + 999999) / 1000000;
    return ms > 2147483647 ? 2147483647 : (int)ms;
}

/* Waits for events on fd until deadline. Returns 1 when ready, 0 on
 * timeout, -1 with errno on failure. A signal does not end the wait early:
 * callers that must react to signals pass short timeouts. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events, .revents = 0};
        int n = poll(&p, 1, remaining_ms(deadline));
        if (n > 0) {
            return 1;
        }
        if (n == 0) {
            if (remaining_ms(deadline) == 0) {
                return 0;
            }
            continue;
        }
        if (errno != EINTR) {
            return -1;
        }
    }
}

/* --- errors -------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static pdk_client_status
fail(pdk_client *c, pdk_client_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    return st;
}

static void close_fd(pdk_client *c)
{
    if (c->tls != NULL) {
        SSL_free(c->tls);
        c->tls = NULL;
    }
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
    c->rx_len = 0;
}

/* EIO and EPROTO leave the byte stream in an unknown place, so they close
 * the connection: a later call fails cleanly instead of misreading. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static pdk_client_status
fail_fatal(pdk_client *c, pdk_client_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    close_fd(c);
    return st;
}

/* strerror, copied: the XSI and GNU strerror_r differ and the build may
 * select either, while the text of a known errno is a constant either way. */
static const char *errno_text(int err, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strerror(err));
    return buf;
}

static void begin(pdk_client *c)
{
    c->error[0] = '\0';
    c->server_code = paddock_v1_ErrorCode_OK;
}

/* --- names --------------------------------------------------------------- */

const char *pdk_client_status_name(pdk_client_status st)
{
    switch (st) {
    case PDK_CLIENT_OK:
        return "ok";
    case PDK_CLIENT_EADDR:
        return "bad address";
    case PDK_CLIENT_ECONNECT:
        return "cannot connect";
    case PDK_CLIENT_EIO:
        return "connection lost";
    case PDK_CLIENT_ETIMEOUT:
        return "timeout";
    case PDK_CLIENT_EPROTO:
        return "protocol error";
    case PDK_CLIENT_ESERVER:
        return "server error";
    case PDK_CLIENT_EENCODE:
        return "request too large";
    case PDK_CLIENT_EINVAL:
        return "invalid argument";
    case PDK_CLIENT_ETLS:
        return "TLS failed";
    }
    return "unknown status";
}

const char *pdk_client_error_code_name(paddock_v1_ErrorCode code)
{
    switch (code) {
#define NAME_(x)                                                                                   \
    case paddock_v1_ErrorCode_##x:                                                                 \
        return #x;
        NAME_(OK)
        NAME_(INVALID_ARGUMENT)
        NAME_(NOT_FOUND)
        NAME_(ALREADY_EXISTS)
        NAME_(CAPACITY)
        NAME_(STALE_ID)
        NAME_(PARSE)
        NAME_(UNKNOWN_KEY)
        NAME_(WRONG_TYPE)
        NAME_(OUT_OF_RANGE)
        NAME_(IO)
        NAME_(DB)
        NAME_(DB_TOO_NEW)
        NAME_(PROTOCOL)
        NAME_(FRAME_TOO_LARGE)
        NAME_(VERSION)
        NAME_(NO_MEMORY)
        NAME_(BUSY)
        NAME_(CLOSED)
        NAME_(UNSUPPORTED)
        NAME_(TIMEOUT)
        NAME_(NET)
        NAME_(UNAUTHENTICATED)
        NAME_(PERMISSION_DENIED)
#undef NAME_
    }
    return "UNKNOWN_ERROR";
}

const char *pdk_client_body_name(pb_size_t body_tag)
{
    switch (body_tag) {
    case 0:
        return "empty";
#define BODY_(x)                                                                                   \
    case paddock_v1_Frame_##x##_tag:                                                               \
        return #x;
        BODY_(hello)
        BODY_(welcome)
        BODY_(error)
        BODY_(ok)
        BODY_(ping)
        BODY_(pong)
        BODY_(session_create)
        BODY_(session_created)
        BODY_(session_list)
        BODY_(session_list_reply)
        BODY_(session_close)
        BODY_(vehicle_spawn)
        BODY_(vehicle_spawned)
        BODY_(vehicle_remove)
        BODY_(dbw_command)
        BODY_(tyre_command)
        BODY_(dbw_message)
        BODY_(control_lease)
        BODY_(control_lease_reply)
        BODY_(script_step_check)
        BODY_(subscribe)
        BODY_(subscribed)
        BODY_(unsubscribe)
        BODY_(dbw_subscribe)
        BODY_(state_batch)
        BODY_(dbw_report)
        BODY_(control_event)
        BODY_(session_control)
        BODY_(session_control_reply)
        BODY_(stats_subscribe)
        BODY_(session_stats)
        BODY_(replay_open)
        BODY_(verify_request)
        BODY_(verify_reply)
        BODY_(fork_request)
        BODY_(export_request)
        BODY_(csv_export_request)
        BODY_(export_chunk)
        BODY_(import_chunk)
        BODY_(session_imported)
        BODY_(session_meta_request)
        BODY_(session_meta)
        BODY_(recording_list)
        BODY_(recording_list_reply)
        BODY_(recording_delete)
        BODY_(contact_subscribe)
        BODY_(contact_events)
        BODY_(session_share)
        BODY_(session_share_reply)
        BODY_(session_join)
        BODY_(session_joined)
        BODY_(vehicle_spawn_batch)
        BODY_(vehicle_spawn_batch_reply)
        BODY_(dbw_command_batch)
        BODY_(server_draining)
#undef BODY_
    default:
        break;
    }
    return "unknown";
}

static int64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

pdk_client_status pdk_client_clock_sample(pdk_client *c, paddock_v1_Frame *scratch,
                                          int64_t *offset_ns, uint64_t *round_trip_ns)
{
    return pdk_client_clock_sample_push(c, scratch, NULL, NULL, offset_ns, round_trip_ns);
}

pdk_client_status pdk_client_clock_sample_push(pdk_client *c, paddock_v1_Frame *scratch,
                                               pdk_client_push_fn on_push, void *ud,
                                               int64_t *offset_ns, uint64_t *round_trip_ns)
{
    if (c == NULL || scratch == NULL || offset_ns == NULL || round_trip_ns == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    memset(scratch, 0, sizeof(*scratch));
    scratch->which_body = paddock_v1_Frame_ping_tag;
    int64_t t0 = wall_now_ns();
    scratch->body.ping.client_time_ns = (uint64_t)t0;
    pdk_client_status st = pdk_client_call(c, scratch, scratch, on_push, ud);
    int64_t t3 = wall_now_ns();
    if (st == PDK_CLIENT_OK) {
        st = pdk_client_expect(c, scratch, paddock_v1_Frame_pong_tag);
    }
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    /* The server stamps one time, so t1 = t2 = its wall clock. */
    int64_t t12 = (int64_t)scratch->body.pong.wall_time_ns;
    *offset_ns = ((t12 - t0) + (t12 - t3)) / 2;
    *round_trip_ns = t3 > t0 ? (uint64_t)(t3 - t0) : 0;
    return PDK_CLIENT_OK;
}

pdk_client_status pdk_client_expect(pdk_client *c, const paddock_v1_Frame *reply,
                                    pb_size_t body_tag)
{
    if (c == NULL || reply == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    if (reply->which_body == body_tag) {
        return PDK_CLIENT_OK;
    }
    return fail(c, PDK_CLIENT_EPROTO, "expected a %s reply to request %llu, got %s",
                pdk_client_body_name(body_tag), (unsigned long long)reply->request_id,
                pdk_client_body_name(reply->which_body));
}

/* --- address ------------------------------------------------------------- */

const char *pdk_client_server_address(const char *explicit_addr)
{
    if (explicit_addr != NULL && explicit_addr[0] != '\0') {
        return explicit_addr;
    }
    const char *env = getenv("PADDOCK_SERVER");
    if (env != NULL && env[0] != '\0') {
        return env;
    }
    return PDK_CLIENT_DEFAULT_SERVER;
}

/* Splits "host:port" or "[v6]:port" into host (NUL-terminated copy) and a
 * validated decimal port. */
static pdk_client_status split_address(pdk_client *c, const char *addr, char *host, char *port)
{
    const char *host_start = addr;
    size_t host_len;
    const char *rest;
    if (addr[0] == '[') {
        const char *close_br = strchr(addr, ']');
        if (close_br == NULL) {
            return fail(c, PDK_CLIENT_EADDR,
                        "bad server address \"%s\": '[' without ']' (expected [IPv6]:PORT)", addr);
        }
        host_start = addr + 1;
        host_len = (size_t)(close_br - host_start);
        rest = close_br + 1;
        if (*rest != ':') {
            return fail(c, PDK_CLIENT_EADDR,
                        "bad server address \"%s\": expected ':PORT' after ']'", addr);
        }
    } else {
        const char *colon = strrchr(addr, ':');
        if (colon == NULL) {
            return fail(c, PDK_CLIENT_EADDR,
                        "bad server address \"%s\": no port (expected HOST:PORT or [IPv6]:PORT)",
                        addr);
        }
        host_len = (size_t)(colon - addr);
        if (memchr(addr, ':', host_len) != NULL) {
            return fail(c, PDK_CLIENT_EADDR,
                        "bad server address \"%s\": an IPv6 address needs brackets, as "
                        "[ADDR]:PORT",
                        addr);
        }
        rest = colon;
    }
    if (host_len == 0) {
        return fail(c, PDK_CLIENT_EADDR, "bad server address \"%s\": no host before the port",
                    addr);
    }
    if (host_len >= HOST_MAX) {
        return fail(c, PDK_CLIENT_EADDR,
                    "bad server address \"%.64s...\": host longer than %u bytes", addr,
                    HOST_MAX - 1);
    }
    memcpy(host, host_start, host_len);
    host[host_len] = '\0';

    const char *p = rest + 1;
    size_t digits = strspn(p, "0123456789");
    if (digits == 0 || p[digits] != '\0' || digits > 5) {
        return fail(c, PDK_CLIENT_EADDR,
                    "bad server address \"%s\": port \"%s\" is not a number 1..65535", addr, p);
    }
    long v = strtol(p, NULL, 10);
    if (v < 1 || v > 65535) {
        return fail(c, PDK_CLIENT_EADDR, "bad server address \"%s\": port %ld is outside 1..65535",
                    addr, v);
    }
    snprintf(port, 6, "%ld", v);
    return PDK_CLIENT_OK;
}

/* "127.0.0.1:7420" or "[::1]:7420" for a resolved address. */
static void format_sockaddr(const struct sockaddr *sa, socklen_t len, char *out, size_t out_len)
{
    char h[NI_MAXHOST];
    char s[NI_MAXSERV];
    if (getnameinfo(sa, len, h, sizeof h, s, sizeof s, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, out_len, "?");
        return;
    }
    int n = sa->sa_family == AF_INET6 ? snprintf(out, out_len, "[%s]:%s", h, s)
                                       : snprintf(out, out_len, "%s:%s", h, s);
    if (n < 0 || (size_t)n >= out_len)
        snprintf(out, out_len, "?"); /* a numeric address never fills the caller's buffer */
}

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        return -1;
    }
    return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* One connect attempt with the deadline. Returns 0 and the socket, or an
 * errno (ETIMEDOUT when the deadline passed). */
static int connect_one(const struct addrinfo *ai, int64_t deadline, int *fd_out)
{
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) {
        return errno;
    }
    if (set_nonblocking(fd) < 0) {
        int e = errno;
        close(fd);
        return e;
    }
    int err = 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            err = errno;
        } else {
            int r = wait_fd(fd, POLLOUT, deadline);
            if (r == 0) {
                err = ETIMEDOUT;
            } else if (r < 0) {
                err = errno;
            } else {
                socklen_t len = sizeof err;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
                    err = errno;
                }
            }
        }
    }
    if (err != 0) {
        close(fd);
        return err;
    }
    /* Frames are small and latency matters more than packing: a DBW command
     * must not wait for Nagle's timer. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *fd_out = fd;
    return 0;
}

static pdk_client_status open_socket(pdk_client *c, const char *addr, int64_t deadline)
{
    char host[HOST_MAX];
    char port[6];
    pdk_client_status st = split_address(c, addr, host, port);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV;
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        char why[128];
        if (gai == EAI_SYSTEM) {
            errno_text(errno, why, sizeof why);
        } else {
            snprintf(why, sizeof why, "%s", gai_strerror(gai));
        }
        return fail(c, PDK_CLIENT_EADDR, "bad server address \"%s\": cannot resolve \"%s\": %s",
                    addr, host, why);
    }

    /* Every address the name resolves to is tried in turn ("localhost" may
     * give ::1 and 127.0.0.1); the last failure is the one reported. */
    int last_err = 0;
    char last_peer[NI_MAXHOST + 16] = "";
    for (const struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        int fd = -1;
        last_err = connect_one(ai, deadline, &fd);
        format_sockaddr(ai->ai_addr, ai->ai_addrlen, last_peer, sizeof last_peer);
        if (last_err == 0) {
            c->fd = fd;
            break;
        }
        if (last_err == ETIMEDOUT && remaining_ms(deadline) == 0) {
            break;
        }
    }
    freeaddrinfo(res);
    if (c->fd >= 0) {
        return PDK_CLIENT_OK;
    }

    /* Name the resolved peer only when it says more than the address did. */
    char peer_note[NI_MAXHOST + 32] = "";
    if (strcmp(last_peer, addr) != 0) {
        snprintf(peer_note, sizeof peer_note, " (%s)", last_peer);
    }
    if (last_err == ETIMEDOUT) {
        return fail(c, PDK_CLIENT_ETIMEOUT, "no connection within %d ms%s", c->timeout_ms,
                    peer_note);
    }
    char why[128];
    return fail(c, PDK_CLIENT_ECONNECT, "%s%s", errno_text(last_err, why, sizeof why), peer_note);
}

/* --- byte stream --------------------------------------------------------- */

static pdk_client_status require_connected(pdk_client *c)
{
    if (!pdk_client_is_connected(c)) {
        return fail(c, PDK_CLIENT_EIO,
                    "not connected (connect failed or the connection was "
                    "closed after an earlier error)");
    }
    return PDK_CLIENT_OK;
}

/* --- TLS ------------------------------------------------------------------ */

/* OpenSSL's reason for the oldest error on its queue, which is emptied. */
static const char *tls_reason(char *buf, size_t len, const char *fallback)
{
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(buf, len, "%s", fallback);
    } else {
        char full[256];
        ERR_error_string_n(code, full, sizeof full);
        const char *colon = strrchr(full, ':');
        snprintf(buf, len, "%s", colon != NULL && colon[1] != '\0' ? colon + 1 : full);
    }
    ERR_clear_error();
    return buf;
}

/* One non-blocking SSL call's result r (ret as OpenSSL gave it) as a
 * socket's: 1 done, 0 wait (*events set), -1 failed (the error queue and
 * errno say why), -2 the peer closed. */
static int tls_step(pdk_client *c, int r, short *events)
{
    if (r > 0) {
        return 1;
    }
    switch (SSL_get_error(c->tls, r)) {
    case SSL_ERROR_WANT_READ:
        *events = POLLIN;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        *events = POLLOUT;
        return 0;
    case SSL_ERROR_ZERO_RETURN:
        return -2;
    case SSL_ERROR_SYSCALL:
        return ERR_peek_error() == 0 && errno == 0 ? -2 : -1;
    default:
        return -1;
    }
}

/* The TLS failure c->tls just had, as c->error ("TLS: " and OpenSSL's
 * reason, with the certificate check's verdict when that failed). */
static pdk_client_status tls_fail(pdk_client *c, const char *during)
{
    char why[256];
    tls_reason(why, sizeof why, "the connection broke");
    long verify = c->tls != NULL ? SSL_get_verify_result(c->tls) : X509_V_OK;
    if (verify != X509_V_OK) {
        return fail_fatal(c, PDK_CLIENT_ETLS, "TLS %s failed: %s: %s", during, why,
                          X509_verify_cert_error_string(verify));
    }
    return fail_fatal(c, PDK_CLIENT_ETLS, "TLS %s failed: %s", during, why);
}

/* Starts TLS on the connected socket: the server's certificate must chain
 * to opts->ca_file and name host. */
static pdk_client_status tls_start(pdk_client *c, const pdk_client_tls *opts, const char *addr,
                                   int64_t deadline)
{
    char host[HOST_MAX];
    char port[6];
    pdk_client_status st = split_address(c, addr, host, port);
    if (st != PDK_CLIENT_OK) {
        close_fd(c);
        return st;
    }
    char why[256];
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        return fail_fatal(c, PDK_CLIENT_ETLS, "TLS: %s",
                          tls_reason(why, sizeof why, "out of memory"));
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    const char *what = "CA file";
    const char *file = opts->ca_file;
    int ok = opts->ca_file != NULL && opts->ca_file[0] != '\0' &&
             SSL_CTX_load_verify_locations(ctx, opts->ca_file, NULL) == 1;
    if (ok && opts->cert_file != NULL) {
        what = "client certificate";
        file = opts->cert_file;
        ok = SSL_CTX_use_certificate_chain_file(ctx, opts->cert_file) == 1;
        if (ok) {
            what = "client key";
            file = opts->key_file != NULL ? opts->key_file : "(none given)";
            ok = opts->key_file != NULL &&
                 SSL_CTX_use_PrivateKey_file(ctx, opts->key_file, SSL_FILETYPE_PEM) == 1 &&
                 SSL_CTX_check_private_key(ctx) == 1;
        }
    } else if (ok && opts->key_file != NULL) {
        what = "client certificate";
        file = "(none given)";
        ok = 0;
    }
    if (!ok) {
        SSL_CTX_free(ctx);
        return fail_fatal(c, PDK_CLIENT_ETLS, "TLS: %s %s: %s", what,
                          file != NULL ? file : "(none given)",
                          tls_reason(why, sizeof why, "a file is missing"));
    }
    SSL *ssl = SSL_new(ctx);
    SSL_CTX_free(ctx); /* ssl holds its own reference */
    if (ssl == NULL) {
        return fail_fatal(c, PDK_CLIENT_ETLS, "TLS: %s",
                          tls_reason(why, sizeof why, "out of memory"));
    }
    c->tls = ssl;
    unsigned char ip[16];
    int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    if (is_ip) {
        ok = X509_VERIFY_PARAM_set1_ip_asc(param, host);
    } else {
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        ok = SSL_set1_host(ssl, host) == 1 && SSL_set_tlsext_host_name(ssl, host) == 1;
    }
    if (!ok || SSL_set_fd(ssl, c->fd) != 1) {
        return tls_fail(c, "set-up");
    }
    for (;;) {
        short events = 0;
        errno = 0;
        int r = tls_step(c, SSL_connect(ssl), &events);
        if (r == 1) {
            return PDK_CLIENT_OK;
        }
        if (r == -2) {
            return fail_fatal(c, PDK_CLIENT_ETLS,
                              "TLS handshake failed: the server closed the connection (is it "
                              "running with --tls-cert?)");
        }
        if (r < 0) {
            return tls_fail(c, "handshake");
        }
        int w = wait_fd(c->fd, events, deadline);
        if (w == 0) {
            return fail_fatal(c, PDK_CLIENT_ETIMEOUT, "no TLS handshake within %d ms",
                              c->timeout_ms);
        }
        if (w < 0) {
            return fail_fatal(c, PDK_CLIENT_EIO, "TLS handshake: %s",
                              errno_text(errno, why, sizeof why));
        }
    }
}

/* send_all over TLS: a record that could not go out at once is retried
 * with the same bytes, as OpenSSL requires. */
static pdk_client_status tls_send_all(pdk_client *c, const uint8_t *buf, size_t len,
                                      int64_t deadline)
{
    size_t sent = 0;
    while (sent < len) {
        size_t n = 0;
        short events = 0;
        errno = 0;
        int r = tls_step(c, SSL_write_ex(c->tls, buf + sent, len - sent, &n), &events);
        if (r == 1) {
            sent += n;
            continue;
        }
        if (r == -2) {
            return fail_fatal(c, PDK_CLIENT_EIO, "the server closed the connection");
        }
        if (r < 0) {
            return tls_fail(c, "send");
        }
        int w = wait_fd(c->fd, events, deadline);
        if (w == 0) {
            return fail_fatal(c, PDK_CLIENT_ETIMEOUT,
                              "send stalled for %d ms after %zu of %zu bytes; connection closed",
                              c->timeout_ms, sent, len);
        }
        if (w < 0) {
            char why[128];
            return fail_fatal(c, PDK_CLIENT_EIO, "send failed: %s",
                              errno_text(errno, why, sizeof why));
        }
    }
    return PDK_CLIENT_OK;
}

static pdk_client_status send_all(pdk_client *c, const uint8_t *buf, size_t len, int64_t deadline)
{
    if (c->tls != NULL) {
        return tls_send_all(c, buf, len, deadline);
    }
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(c->fd, buf + sent, len - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(c->fd, POLLOUT, deadline);
            if (r > 0) {
                continue;
            }
            if (r == 0) {
                /* A half-sent frame would corrupt the stream for the next one. */
                if (sent > 0) {
                    return fail_fatal(c, PDK_CLIENT_ETIMEOUT,
                                      "send stalled for %d ms after %zu of %zu bytes; "
                                      "connection closed",
                                      c->timeout_ms, sent, len);
                }
                return fail(c, PDK_CLIENT_ETIMEOUT, "server not reading: send blocked for %d ms",
                            c->timeout_ms);
            }
        }
        char why[128];
        return fail_fatal(c, PDK_CLIENT_EIO, "send failed: %s", errno_text(errno, why, sizeof why));
    }
    return PDK_CLIENT_OK;
}

/* Looks for one whole frame at the front of rx. Returns OK with *ready set
 * (and the payload's offset and length) or unset when more bytes are needed;
 * EPROTO when the prefix is malformed or announces more than rx can hold. */
static pdk_client_status find_frame(pdk_client *c, int *ready, size_t *off, size_t *len)
{
    uint64_t value = 0;
    size_t i = 0;
    *ready = 0;
    for (;;) {
        if (i >= c->rx_len) {
            return PDK_CLIENT_OK; /* the prefix itself is incomplete */
        }
        uint8_t b = c->rx[i];
        if (i == VARINT_MAX_BYTES - 1 && b > 1) {
            break; /* more than 64 bits */
        }
        value |= (uint64_t)(b & 0x7fu) << (7u * i);
        i++;
        if ((b & 0x80u) == 0) {
            if (value > (uint64_t)(PDK_CLIENT_RX_BYTES - i)) {
                return fail_fatal(c, PDK_CLIENT_EPROTO,
                                  "the server sent a frame of %llu bytes, longer than this "
                                  "client's %u-byte receive buffer (PDK_CLIENT_RX_BYTES)",
                                  (unsigned long long)value, PDK_CLIENT_RX_BYTES);
            }
            if (c->rx_len - i < value) {
                return PDK_CLIENT_OK;
            }
            *ready = 1;
            *off = i;
            *len = (size_t)value;
            return PDK_CLIENT_OK;
        }
        if (i == VARINT_MAX_BYTES) {
            break;
        }
    }
    return fail_fatal(c, PDK_CLIENT_EPROTO,
                      "the server sent a malformed frame length (a varint longer than %u bytes); "
                      "is it a paddockd?",
                      VARINT_MAX_BYTES);
}

/* Drops the frame at the front of rx once it has been decoded. */
static void consume(pdk_client *c, size_t n)
{
    memmove(c->rx, c->rx + n, c->rx_len - n);
    c->rx_len -= n;
}

/* Waits until a whole frame is buffered. ETIMEOUT leaves what arrived in rx
 * (its message is the caller's to write); EIO and EPROTO close. */
static pdk_client_status next_frame(pdk_client *c, int64_t deadline, size_t *off, size_t *len)
{
    for (;;) {
        int ready = 0;
        pdk_client_status st = find_frame(c, &ready, off, len);
        if (st != PDK_CLIENT_OK || ready) {
            return st;
        }
        if (c->tls != NULL) {
            size_t got = 0;
            short events = 0;
            errno = 0;
            int r = tls_step(c, SSL_read_ex(c->tls, c->rx + c->rx_len, sizeof c->rx - c->rx_len,
                                            &got),
                             &events);
            if (r == 1) {
                c->rx_len += got;
                continue;
            }
            if (r == -2) {
                return fail_fatal(c, PDK_CLIENT_EIO, "the server closed the connection");
            }
            if (r < 0) {
                return tls_fail(c, "receive");
            }
            int w = wait_fd(c->fd, events, deadline);
            if (w > 0) {
                continue;
            }
            if (w == 0) {
                return PDK_CLIENT_ETIMEOUT;
            }
            char why[128];
            return fail_fatal(c, PDK_CLIENT_EIO, "receive failed: %s",
                              errno_text(errno, why, sizeof why));
        }
        ssize_t n = recv(c->fd, c->rx + c->rx_len, sizeof c->rx - c->rx_len, 0);
        if (n > 0) {
            c->rx_len += (size_t)n;
            continue;
        }
        if (n == 0) {
            return fail_fatal(c, PDK_CLIENT_EIO, "the server closed the connection");
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int r = wait_fd(c->fd, POLLIN, deadline);
            if (r > 0) {
                continue;
            }
            if (r == 0) {
                return PDK_CLIENT_ETIMEOUT;
            }
        }
        char why[128];
        return fail_fatal(c, PDK_CLIENT_EIO, "receive failed: %s",
                          errno_text(errno, why, sizeof why));
    }
}

static pdk_client_status decode_frame(pdk_client *c, size_t off, size_t len, paddock_v1_Frame *out)
{
    pb_istream_t is = pb_istream_from_buffer(c->rx + off, len);
    if (!pb_decode(&is, paddock_v1_Frame_fields, out)) {
        return fail_fatal(c, PDK_CLIENT_EPROTO,
                          "the server sent %zu bytes that are not a paddock.v1.Frame (%s); "
                          "is it a paddockd?",
                          len, PB_GET_ERROR(&is));
    }
    consume(c, off + len);
    return PDK_CLIENT_OK;
}

/* --- frames -------------------------------------------------------------- */

static void assign_request_id(pdk_client *c, paddock_v1_Frame *frame)
{
    if (c->next_request_id == 0) {
        c->next_request_id = 1; /* 0 marks pushed frames; never use it */
    }
    frame->request_id = c->next_request_id++;
}

/* A Subscribe asks for batches this client can decode
 * (PDK_CLIENT_STATE_BATCH_VEHICLES). */
static void fit_subscribe(paddock_v1_Frame *frame)
{
    if (frame->which_body != paddock_v1_Frame_subscribe_tag) {
        return;
    }
    uint32_t *max = &frame->body.subscribe.max_batch_vehicles;
    if (*max == 0u || *max > PDK_CLIENT_STATE_BATCH_VEHICLES) {
        *max = (uint32_t)PDK_CLIENT_STATE_BATCH_VEHICLES;
    }
}

static pdk_client_status encode_and_send(pdk_client *c, paddock_v1_Frame *frame,
                                         int64_t deadline)
{
    fit_subscribe(frame);
    pb_ostream_t os = pb_ostream_from_buffer(c->tx, sizeof c->tx);
    if (!pb_encode_delimited(&os, paddock_v1_Frame_fields, frame)) {
        return fail(
            c, PDK_CLIENT_EENCODE, "cannot encode the %s request in the %u-byte send buffer: %s",
            pdk_client_body_name(frame->which_body), PDK_CLIENT_TX_BYTES, PB_GET_ERROR(&os));
    }
    return send_all(c, c->tx, os.bytes_written, deadline);
}

static pdk_client_status server_error(pdk_client *c, const paddock_v1_Error *e)
{
    c->server_code = e->code;
    /* The message field is NUL-terminated by nanopb within its 512 bytes. */
    return fail(c, PDK_CLIENT_ESERVER, "%s: %.*s", pdk_client_error_code_name(e->code),
                (int)sizeof e->message, e->message);
}

pdk_client_status pdk_client_send(pdk_client *c, paddock_v1_Frame *frame)
{
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(c);
    if (frame == NULL) {
        return fail(c, PDK_CLIENT_EINVAL, "pdk_client_send: frame is NULL");
    }
    pdk_client_status st = require_connected(c);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    if (frame->request_id == 0) {
        assign_request_id(c, frame);
    }
    return encode_and_send(c, frame, deadline_after(c->timeout_ms));
}

pdk_client_status pdk_client_call(pdk_client *c, paddock_v1_Frame *req, paddock_v1_Frame *reply,
                                  pdk_client_push_fn on_push, void *ud)
{
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(c);
    if (req == NULL || reply == NULL) {
        return fail(c, PDK_CLIENT_EINVAL, "pdk_client_call: %s is NULL",
                    req == NULL ? "req" : "reply");
    }
    pdk_client_status st = require_connected(c);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    int64_t deadline = deadline_after(c->timeout_ms);
    assign_request_id(c, req);
    const uint64_t id = req->request_id;
    const pb_size_t req_body = req->which_body;
    st = encode_and_send(c, req, deadline);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    /* From here on req may be overwritten: it may be the same frame as reply. */
    for (;;) {
        size_t off = 0;
        size_t len = 0;
        st = next_frame(c, deadline, &off, &len);
        if (st == PDK_CLIENT_ETIMEOUT) {
            return fail(c, st, "no reply to request %llu (%s) within %d ms", (unsigned long long)id,
                        pdk_client_body_name(req_body), c->timeout_ms);
        }
        if (st != PDK_CLIENT_OK) {
            return st;
        }
        st = decode_frame(c, off, len, reply);
        if (st != PDK_CLIENT_OK) {
            return st;
        }
        if (reply->request_id == id) {
            if (reply->which_body == paddock_v1_Frame_error_tag) {
                return server_error(c, &reply->body.error);
            }
            return PDK_CLIENT_OK;
        }
        if (reply->request_id == 0 && on_push != NULL) {
            on_push(reply, ud);
        }
        /* Anything else answers a request that already timed out. */
    }
}

pdk_client_status pdk_client_recv(pdk_client *c, paddock_v1_Frame *out, int timeout_ms)
{
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(c);
    if (out == NULL) {
        return fail(c, PDK_CLIENT_EINVAL, "pdk_client_recv: out is NULL");
    }
    pdk_client_status st = require_connected(c);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    size_t off = 0;
    size_t len = 0;
    st = next_frame(c, deadline_after(timeout_ms), &off, &len);
    if (st == PDK_CLIENT_ETIMEOUT) {
        return fail(c, st, "no frame within %d ms", timeout_ms);
    }
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    return decode_frame(c, off, len, out);
}

/* --- handshake ----------------------------------------------------------- */

/* Frame{request_id, hello} written by hand so that the handshake needs no
 * 45 KiB Frame struct on the stack of a small device. */
static bool encode_hello_body(pb_ostream_t *os, uint64_t id, const paddock_v1_Hello *hello)
{
    return pb_encode_tag(os, PB_WT_VARINT, paddock_v1_Frame_request_id_tag) &&
           pb_encode_varint(os, id) &&
           pb_encode_tag(os, PB_WT_STRING, paddock_v1_Frame_hello_tag) &&
           pb_encode_submessage(os, paddock_v1_Hello_fields, hello);
}

static pdk_client_status send_hello(pdk_client *c, const char *name, const char *key, bool viewer,
                                    uint64_t id, int64_t deadline)
{
    paddock_v1_Hello hello;
    memset(&hello, 0, sizeof hello);
    hello.protocol_version = PDK_CLIENT_PROTOCOL_VERSION;
    memcpy(hello.client_name, name, strlen(name) + 1);
    memcpy(hello.api_key, key, strlen(key) + 1);
    hello.viewer = viewer;

    pb_ostream_t sizing = PB_OSTREAM_SIZING;
    pb_ostream_t os = pb_ostream_from_buffer(c->tx, sizeof c->tx);
    if (!encode_hello_body(&sizing, id, &hello) || !pb_encode_varint(&os, sizing.bytes_written) ||
        !encode_hello_body(&os, id, &hello)) {
        return fail(c, PDK_CLIENT_EENCODE, "cannot encode Hello: %s", PB_GET_ERROR(&os));
    }
    return send_all(c, c->tx, os.bytes_written, deadline);
}

/* Reads the top level of a Frame by hand: its request_id and, when the body
 * is a Welcome or an Error, that body. Other bodies are skipped and reported
 * by tag. */
typedef struct handshake_reply {
    uint64_t request_id;
    pb_size_t body;
    paddock_v1_Welcome welcome;
    paddock_v1_Error error;
} handshake_reply;

static bool decode_handshake(pb_istream_t *is, handshake_reply *r)
{
    for (;;) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof = false;
        if (!pb_decode_tag(is, &wt, &tag, &eof)) {
            return eof;
        }
        if (tag == paddock_v1_Frame_request_id_tag && wt == PB_WT_VARINT) {
            if (!pb_decode_varint(is, &r->request_id)) {
                return false;
            }
        } else if (tag == paddock_v1_Frame_welcome_tag && wt == PB_WT_STRING) {
            r->body = (pb_size_t)tag;
            if (!pb_decode_ex(is, paddock_v1_Welcome_fields, &r->welcome, PB_DECODE_DELIMITED)) {
                return false;
            }
        } else if (tag == paddock_v1_Frame_error_tag && wt == PB_WT_STRING) {
            r->body = (pb_size_t)tag;
            if (!pb_decode_ex(is, paddock_v1_Error_fields, &r->error, PB_DECODE_DELIMITED)) {
                return false;
            }
        } else {
            if (tag >= paddock_v1_Frame_hello_tag) {
                r->body = (pb_size_t)tag;
            }
            if (!pb_skip_field(is, wt)) {
                return false;
            }
        }
    }
}

static pdk_client_status await_welcome(pdk_client *c, uint64_t id, int64_t deadline,
                                       paddock_v1_Welcome *welcome)
{
    for (;;) {
        size_t off = 0;
        size_t len = 0;
        pdk_client_status st = next_frame(c, deadline, &off, &len);
        if (st == PDK_CLIENT_ETIMEOUT) {
            return fail_fatal(c, st, "no Welcome within %d ms (is it a paddockd?)", c->timeout_ms);
        }
        if (st != PDK_CLIENT_OK) {
            return st;
        }
        handshake_reply r;
        memset(&r, 0, sizeof r);
        pb_istream_t is = pb_istream_from_buffer(c->rx + off, len);
        if (!decode_handshake(&is, &r)) {
            return fail_fatal(c, PDK_CLIENT_EPROTO,
                              "the server sent %zu bytes that are not a paddock.v1.Frame (%s); "
                              "is it a paddockd?",
                              len, PB_GET_ERROR(&is));
        }
        consume(c, off + len);
        /* An Error with request_id 0 is the server refusing the connection
         * itself (at its connection limit, a client in clear at a TLS port);
         * anything else before the Welcome is skipped. */
        if (r.request_id != id && !(r.request_id == 0 && r.body == paddock_v1_Frame_error_tag)) {
            continue;
        }
        if (r.body == paddock_v1_Frame_error_tag) {
            st = server_error(c, &r.error);
            close_fd(c);
            return st;
        }
        if (r.body != paddock_v1_Frame_welcome_tag) {
            return fail_fatal(c, PDK_CLIENT_EPROTO, "expected a welcome reply to Hello, got %s",
                              pdk_client_body_name(r.body));
        }
        if (r.welcome.protocol_version != PDK_CLIENT_PROTOCOL_VERSION) {
            return fail_fatal(c, PDK_CLIENT_EPROTO,
                              "the server speaks protocol version %u, this client speaks %u",
                              (unsigned)r.welcome.protocol_version, PDK_CLIENT_PROTOCOL_VERSION);
        }
        if (welcome != NULL) {
            *welcome = r.welcome;
        }
        return PDK_CLIENT_OK;
    }
}

pdk_client_status pdk_client_connect_hello(pdk_client *c, const char *host_port, int timeout_ms,
                                           const pdk_client_hello *hello,
                                           paddock_v1_Welcome *welcome)
{
    static const pdk_client_hello defaults = {NULL, NULL, false, NULL};
    if (hello == NULL) {
        hello = &defaults;
    }
    const char *client_name = hello->client_name;
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    c->fd = -1;
    c->tls = NULL;
    c->next_request_id = 1;
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : PDK_CLIENT_DEFAULT_TIMEOUT_MS;
    c->rx_len = 0;
    begin(c);
    if (host_port == NULL || host_port[0] == '\0') {
        return fail(c, PDK_CLIENT_EADDR, "no server address given");
    }
    const char *name =
        client_name != NULL && client_name[0] != '\0' ? client_name : DEFAULT_CLIENT_NAME;
    if (strlen(name) >= sizeof(((paddock_v1_Hello *)0)->client_name)) {
        return fail(c, PDK_CLIENT_EINVAL, "client name \"%.32s...\" is longer than %zu bytes", name,
                    sizeof(((paddock_v1_Hello *)0)->client_name) - 1);
    }
    const char *key = hello->api_key;
    if (key == NULL) {
        key = getenv("PADDOCK_API_KEY");
    }
    if (key == NULL) {
        key = "";
    }
    if (strlen(key) >= sizeof(((paddock_v1_Hello *)0)->api_key)) {
        return fail(c, PDK_CLIENT_EINVAL, "the API key is longer than %zu bytes",
                    sizeof(((paddock_v1_Hello *)0)->api_key) - 1);
    }
    pdk_client_tls env_tls = {getenv("PADDOCK_TLS_CA"), getenv("PADDOCK_TLS_CERT"),
                              getenv("PADDOCK_TLS_KEY")};
    const pdk_client_tls *tls = hello->tls;
    if (tls == NULL && env_tls.ca_file != NULL && env_tls.ca_file[0] != '\0') {
        tls = &env_tls;
    }
    int64_t deadline = deadline_after(c->timeout_ms);
    pdk_client_status st = open_socket(c, host_port, deadline);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    if (tls != NULL) {
        st = tls_start(c, tls, host_port, deadline);
        if (st != PDK_CLIENT_OK) {
            return st;
        }
    }
    uint64_t id = c->next_request_id++;
    st = send_hello(c, name, key, hello->viewer, id, deadline);
    if (st != PDK_CLIENT_OK) {
        close_fd(c);
        return st;
    }
    return await_welcome(c, id, deadline, welcome);
}

pdk_client_status pdk_client_connect_as(pdk_client *c, const char *host_port, int timeout_ms,
                                        const char *client_name, paddock_v1_Welcome *welcome)
{
    pdk_client_hello hello = {client_name, NULL, false, NULL};
    return pdk_client_connect_hello(c, host_port, timeout_ms, &hello, welcome);
}

pdk_client_status pdk_client_connect(pdk_client *c, const char *host_port, int timeout_ms,
                                     paddock_v1_Welcome *welcome)
{
    return pdk_client_connect_as(c, host_port, timeout_ms, NULL, welcome);
}

void pdk_client_close(pdk_client *c)
{
    if (c == NULL) {
        return;
    }
    /* A zeroed struct has fd 0, which this client never owns unless
     * connect set it; connect always stores -1 first, so only a socket it
     * opened is closed. */
    if (c->tls != NULL && c->fd >= 0) {
        /* close_notify, best effort: the socket is non-blocking. */
        (void)SSL_shutdown(c->tls);
        ERR_clear_error();
    }
    if (c->tls != NULL) {
        SSL_free(c->tls);
        c->tls = NULL;
    }
    if (c->fd > 0 || (c->fd == 0 && c->next_request_id > 1)) {
        close(c->fd);
    }
    c->fd = -1;
    c->rx_len = 0;
}

int pdk_client_is_connected(const pdk_client *c)
{
    return c != NULL && c->fd >= 0 && c->next_request_id > 1;
}

/* --- files in chunks ------------------------------------------------------ */

pdk_client_status pdk_client_download(pdk_client *c, paddock_v1_Frame *frame,
                                      pdk_client_sink_fn sink, void *ud, pdk_client_push_fn on_push,
                                      void *push_ud, uint64_t *total_bytes)
{
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(c);
    if (frame == NULL || sink == NULL) {
        return fail(c, PDK_CLIENT_EINVAL, "pdk_client_download: %s is NULL",
                    frame == NULL ? "frame" : "sink");
    }
    pdk_client_status st = require_connected(c);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    assign_request_id(c, frame);
    const uint64_t id = frame->request_id;
    const pb_size_t req_body = frame->which_body;
    st = encode_and_send(c, frame, deadline_after(c->timeout_ms));
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    uint64_t offset = 0;
    for (;;) {
        /* Each chunk may take c->timeout_ms: a large export streams for as
         * long as it needs while it keeps coming. */
        size_t off = 0;
        size_t len = 0;
        st = next_frame(c, deadline_after(c->timeout_ms), &off, &len);
        if (st == PDK_CLIENT_ETIMEOUT) {
            return fail(c, st, "no chunk of request %llu (%s) within %d ms after byte %llu",
                        (unsigned long long)id, pdk_client_body_name(req_body), c->timeout_ms,
                        (unsigned long long)offset);
        }
        if (st == PDK_CLIENT_OK) {
            st = decode_frame(c, off, len, frame);
        }
        if (st != PDK_CLIENT_OK) {
            return st;
        }
        if (frame->request_id == 0) {
            if (on_push != NULL) {
                on_push(frame, push_ud);
            }
            continue;
        }
        if (frame->request_id != id) {
            continue; /* a reply to a request that already timed out */
        }
        if (frame->which_body == paddock_v1_Frame_error_tag) {
            return server_error(c, &frame->body.error);
        }
        if (frame->which_body != paddock_v1_Frame_export_chunk_tag) {
            return fail(c, PDK_CLIENT_EPROTO,
                        "expected an export_chunk reply to request %llu, got %s",
                        (unsigned long long)id, pdk_client_body_name(frame->which_body));
        }
        const paddock_v1_ExportChunk *ch = &frame->body.export_chunk;
        if (ch->offset != offset) {
            return fail_fatal(c, PDK_CLIENT_EPROTO,
                              "export chunk at offset %llu where %llu was next; connection closed",
                              (unsigned long long)ch->offset, (unsigned long long)offset);
        }
        if (ch->data.size > 0 && sink(ch->data.bytes, ch->data.size, ud) != 0) {
            return fail(c, PDK_CLIENT_EINVAL,
                        "the sink refused %u bytes at offset %llu (the rest is not read: close "
                        "the connection)",
                        (unsigned)ch->data.size, (unsigned long long)offset);
        }
        offset += ch->data.size;
        if (ch->last) {
            if (total_bytes != NULL) {
                *total_bytes = offset;
            }
            return PDK_CLIENT_OK;
        }
    }
}

pdk_client_status pdk_client_upload(pdk_client *c, paddock_v1_Frame *frame,
                                    pdk_client_source_fn source, void *ud,
                                    pdk_client_push_fn on_push, void *push_ud)
{
    if (c == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(c);
    if (frame == NULL || source == NULL) {
        return fail(c, PDK_CLIENT_EINVAL, "pdk_client_upload: %s is NULL",
                    frame == NULL ? "frame" : "source");
    }
    uint64_t offset = 0;
    for (;;) {
        memset(frame, 0, sizeof *frame);
        frame->which_body = paddock_v1_Frame_import_chunk_tag;
        paddock_v1_ImportChunk *ch = &frame->body.import_chunk;
        long n = source(ch->data.bytes, PDK_CLIENT_CHUNK_BYTES, ud);
        if (n < 0 || (size_t)n > PDK_CLIENT_CHUNK_BYTES) {
            return fail(c, PDK_CLIENT_EINVAL, "the source failed at byte %llu",
                        (unsigned long long)offset);
        }
        /* The end is an empty chunk with last set: the source need not know
         * its size. */
        ch->offset = offset;
        ch->data.size = (pb_size_t)n;
        ch->last = n == 0;
        pdk_client_status st = pdk_client_call(c, frame, frame, on_push, push_ud);
        if (st != PDK_CLIENT_OK) {
            return st;
        }
        pb_size_t want = n == 0 ? paddock_v1_Frame_session_imported_tag : paddock_v1_Frame_ok_tag;
        st = pdk_client_expect(c, frame, want);
        if (st != PDK_CLIENT_OK || n == 0) {
            return st;
        }
        offset += (uint64_t)n;
    }
}
