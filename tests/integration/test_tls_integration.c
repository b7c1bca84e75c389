/* Issue 28's TLS against the real paddockd on loopback, with certificates
 * made at test time by the openssl command: a CA, a server certificate for
 * 127.0.0.1 and localhost, a client certificate from the CA and one from
 * another CA. A TLS client says Hello and drives a session (the C client and
 * the CLI); a client in clear at the TLS port is told so and the server goes
 * on; client certificates behave as --tls-client-ca and
 * --tls-require-client-cert say; bad files stop the start naming the file;
 * frame limits and timeouts hold inside TLS; a handshake that never ends is
 * cut; with --auth a network listen without TLS warns. */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "harness.h"
#include "paddock_client.h"

static char certs[256]; /* made once, before the suite runs */
static char log_text[1 << 16];
static char out[1 << 14];
static paddock_v1_Frame req, rep;
static pdk_client client;
static pdk_test_server srv;
static bool srv_up;

static char path_buf[8][320];
static const char *cert(int slot, const char *name)
{
    snprintf(path_buf[slot], sizeof(path_buf[slot]), "%s/%s", certs, name);
    return path_buf[slot];
}

/* The CA, the server's certificate (subjectAltName 127.0.0.1 and
 * localhost), a client certificate from the CA (CN rig-1), another CA and
 * a client certificate from it (CN rogue). */
static void make_certs(void)
{
    pdk_test_tmpdir(certs, sizeof(certs));
    int rc = pdk_test_sh(
        out, sizeof(out),
        "set -e; cd '%s'; "
        "key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out $1 "
        "2>/dev/null; }; "
        "key ca.key; openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj "
        "/CN=paddock-test-ca; "
        "key other-ca.key; openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 "
        "  -subj /CN=other-test-ca; "
        "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > "
        "srv.ext; "
        "printf 'extendedKeyUsage=clientAuth\\n' > cli.ext; "
        "key server.key; openssl req -new -key server.key -out server.csr -subj /CN=paddockd-test; "
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "  -extfile srv.ext -out server.pem 2>/dev/null; "
        "key rig.key; openssl req -new -key rig.key -out rig.csr -subj /CN=rig-1; "
        "openssl x509 -req -in rig.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "  -extfile cli.ext -out rig.pem 2>/dev/null; "
        "key rogue.key; openssl req -new -key rogue.key -out rogue.csr -subj /CN=rogue; "
        "openssl x509 -req -in rogue.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial "
        "  -days 2 -extfile cli.ext -out rogue.pem 2>/dev/null; "
        "printf 'not a certificate\\n' > garbage.pem",
        certs);
    if (rc != 0) {
        fprintf(stderr, "making certificates failed (%d): %s\n", rc, out);
        exit(EXIT_FAILURE);
    }
}

/* paddockd with TLS and the extra flags (NULL-terminated, at most 6). */
static void start_tls(const char *const *more)
{
    const char *extra[16] = {"--tls-cert",          cert(0, "server.pem"), "--tls-key",
                             cert(1, "server.key"), "--hello-timeout",     "1"};
    int n = 6;
    for (int i = 0; more != NULL && more[i] != NULL; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    srv_up = true;
}

static void teardown(void)
{
    pdk_client_close(&client);
    if (srv_up) {
        srv_up = false;
        int rc = pdk_test_server_stop(&srv, log_text, sizeof(log_text));
        ck_assert_msg(rc == 0, "paddockd exited %d: %s", rc, log_text);
    }
}

static pdk_client_status connect_tls(const char *addr, const char *ca, const char *crt,
                                     const char *key)
{
    pdk_client_tls tls = {ca, crt, key};
    pdk_client_hello hello = {"tls-test", NULL, false, &tls};
    return pdk_client_connect_hello(&client, addr, 5000, &hello, NULL);
}

static void expect_ok(pdk_client_status st, const char *what)
{
    ck_assert_msg(st == PDK_CLIENT_OK, "%s: %s: %s", what, pdk_client_status_name(st),
                  client.error);
}

static void expect_tls_refused(pdk_client_status st, const char *what, const char *frag)
{
    ck_assert_msg(st == PDK_CLIENT_ETLS, "%s: %s, not ETLS: %s", what, pdk_client_status_name(st),
                  client.error);
    ck_assert_msg(strstr(client.error, frag) != NULL, "%s: '%s' lacks '%s'", what, client.error,
                  frag);
}

/* The server's log holds frag within a second. */
static void expect_log(const char *frag)
{
    for (int i = 0; i < 100; i++) {
        pdk_test_read_log(&srv, log_text, sizeof(log_text));
        if (strstr(log_text, frag) != NULL)
            return;
        usleep(10 * 1000);
    }
    ck_abort_msg("the server's log lacks '%s': %s", frag, log_text);
}

static uint64_t create_and_spawn(void)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "over-tls");
    expect_ok(pdk_client_call(&client, &req, &rep, NULL, NULL), "create");
    uint64_t sid = rep.body.session_created.session.session_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    snprintf(req.body.vehicle_spawn.preset, sizeof(req.body.vehicle_spawn.preset), "ref1_sedan");
    expect_ok(pdk_client_call(&client, &req, &rep, NULL, NULL), "spawn");
    ck_assert_uint_ne(rep.body.vehicle_spawned.vehicle_id, 0);
    return sid;
}

/* ---- a raw TLS stream, for bytes the client would never send ------------ */

typedef struct raw_tls {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
} raw_tls;

static void raw_tls_open(raw_tls *r)
{
    r->fd = pdk_test_raw_connect(srv.port);
    ck_assert_int_ge(r->fd, 0);
    r->ctx = SSL_CTX_new(TLS_client_method());
    ck_assert_int_eq(SSL_CTX_load_verify_locations(r->ctx, cert(2, "ca.pem"), NULL), 1);
    SSL_CTX_set_verify(r->ctx, SSL_VERIFY_PEER, NULL);
    r->ssl = SSL_new(r->ctx);
    SSL_set_fd(r->ssl, r->fd);
    ck_assert_msg(SSL_connect(r->ssl) == 1, "raw TLS handshake failed");
}

/* Everything the server sends until it closes (or 5 s). */
static size_t raw_tls_read_all(raw_tls *r, uint8_t *buf, size_t cap)
{
    size_t len = 0;
    for (;;) {
        size_t n = 0;
        if (len == cap || SSL_read_ex(r->ssl, buf + len, cap - len, &n) != 1)
            break;
        len += n;
    }
    ERR_clear_error();
    return len;
}

static void raw_tls_close(raw_tls *r)
{
    SSL_free(r->ssl);
    SSL_CTX_free(r->ctx);
    close(r->fd);
}

static bool has(const uint8_t *buf, size_t len, const char *text)
{
    return memmem(buf, len, text, strlen(text)) != NULL;
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(tls_client_drives_a_session)
{
    start_tls(NULL);
    expect_log("with TLS");
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, NULL), "connect over TLS");
    create_and_spawn();
    expect_log("TLS handshake done: TLSv1.3");
    expect_log("client certificate none");
    /* The name in the certificate is checked too: localhost is in it. */
    pdk_client_close(&client);
    char local[64];
    snprintf(local, sizeof(local), "localhost:%d", srv.port);
    expect_ok(connect_tls(local, cert(2, "ca.pem"), NULL, NULL), "connect to localhost");
    pdk_client_close(&client);
    /* The CLI over TLS sees the session; without --tls-ca it is told why not. */
    int rc = pdk_test_sh(out, sizeof(out), "%s --server %s --tls-ca %s sessions", PDK_PADDOCK,
                         srv.addr, cert(2, "ca.pem"));
    ck_assert_msg(rc == 0 && strstr(out, "over-tls"), "paddock --tls-ca sessions (%d): %s", rc,
                  out);
    rc = pdk_test_sh(out, sizeof(out), "%s --server %s sessions", PDK_PADDOCK, srv.addr);
    ck_assert_msg(rc != 0 && strstr(out, "this port speaks TLS"), "paddock in clear (%d): %s", rc,
                  out);
    rc = pdk_test_sh(out, sizeof(out), "PADDOCK_TLS_CA=%s %s --server %s sessions",
                     cert(2, "ca.pem"), PDK_PADDOCK, srv.addr);
    ck_assert_msg(rc == 0 && strstr(out, "over-tls"), "$PADDOCK_TLS_CA (%d): %s", rc, out);
}
END_TEST

START_TEST(plaintext_client_is_told_and_server_goes_on)
{
    start_tls(NULL);
    pdk_client_status st = pdk_client_connect(&client, srv.addr, 5000, NULL);
    ck_assert_msg(st == PDK_CLIENT_ESERVER, "in clear: %s: %s", pdk_client_status_name(st),
                  client.error);
    ck_assert_int_eq(client.server_code, paddock_v1_ErrorCode_PROTOCOL);
    ck_assert_msg(strstr(client.error, "this port speaks TLS"), "%s", client.error);
    pdk_client_close(&client);
    /* A frame of 22 bytes opens with 0x16, as a TLS record does; the next
     * byte (Frame's first tag, 0x08) tells them apart. */
    int fd = pdk_test_raw_connect(srv.port);
    ck_assert_int_ge(fd, 0);
    uint8_t frame22[23] = {0x16, 0x08, 0x01};
    ck_assert_int_eq(write(fd, frame22, sizeof(frame22)), (ssize_t)sizeof(frame22));
    uint8_t buf[512];
    ssize_t n = pdk_test_read_all(fd, buf, sizeof(buf), 5000);
    close(fd);
    ck_assert_msg(n > 0 && has(buf, (size_t)n, "this port speaks TLS"),
                  "a 22-byte frame in clear was not told (%zd bytes)", n);
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, NULL), "TLS after a clear client");
    create_and_spawn();
}
END_TEST

START_TEST(server_certificate_is_verified)
{
    start_tls(NULL);
    expect_tls_refused(connect_tls(srv.addr, cert(2, "other-ca.pem"), NULL, NULL),
                       "a CA that did not sign the server", "certificate verify failed");
    pdk_client_close(&client);
    /* A TLS client at a port in clear. */
    pdk_test_server plain;
    ck_assert(pdk_test_server_start(&plain, NULL, NULL, log_text, sizeof(log_text)) == 0);
    pdk_client_status st = connect_tls(plain.addr, cert(2, "ca.pem"), NULL, NULL);
    pdk_client_close(&client);
    ck_assert_int_eq(pdk_test_server_stop(&plain, log_text, sizeof(log_text)), 0);
    expect_tls_refused(st, "TLS to a port in clear", "TLS handshake failed");
    /* Client-side files: a missing CA, a key without its certificate. */
    expect_tls_refused(connect_tls(srv.addr, cert(3, "missing.pem"), NULL, NULL), "missing CA",
                       "CA file");
    ck_assert_msg(strstr(client.error, "missing.pem"), "%s", client.error);
    expect_tls_refused(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, cert(4, "rig.key")),
                       "key without certificate", "client certificate");
    expect_tls_refused(
        connect_tls(srv.addr, cert(2, "ca.pem"), cert(3, "rig.pem"), cert(4, "rogue.key")),
        "a key that is not the certificate's", "client key");
}
END_TEST

START_TEST(required_client_certificate)
{
    const char *more[] = {"--tls-client-ca", cert(5, "ca.pem"), "--tls-require-client-cert", NULL};
    start_tls(more);
    expect_tls_refused(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, NULL), "no client cert",
                       "certificate required");
    expect_log("peer did not return a certificate");
    pdk_client_close(&client);
    expect_tls_refused(
        connect_tls(srv.addr, cert(2, "ca.pem"), cert(3, "rogue.pem"), cert(4, "rogue.key")),
        "a client cert from another CA", "unknown ca");
    expect_log("certificate verify failed");
    pdk_client_close(&client);
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), cert(3, "rig.pem"), cert(4, "rig.key")),
              "the CA's client cert");
    create_and_spawn();
    expect_log("client certificate /CN=rig-1");
    /* The CLI with its certificate. */
    int rc = pdk_test_sh(
        out, sizeof(out), "%s --server %s --tls-ca %s --tls-cert %s --tls-key %s sessions",
        PDK_PADDOCK, srv.addr, cert(2, "ca.pem"), cert(3, "rig.pem"), cert(4, "rig.key"));
    ck_assert_msg(rc == 0 && strstr(out, "over-tls"), "paddock with a cert (%d): %s", rc, out);
}
END_TEST

START_TEST(optional_client_certificate)
{
    const char *more[] = {"--tls-client-ca", cert(5, "ca.pem"), NULL};
    start_tls(more);
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, NULL), "no client cert");
    create_and_spawn();
    pdk_client_close(&client);
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), cert(3, "rig.pem"), cert(4, "rig.key")),
              "the CA's client cert");
    create_and_spawn();
    pdk_client_close(&client);
    /* One that is sent is verified, required or not. */
    expect_tls_refused(
        connect_tls(srv.addr, cert(2, "ca.pem"), cert(3, "rogue.pem"), cert(4, "rogue.key")),
        "a client cert from another CA", "unknown ca");
}
END_TEST

/* paddockd with args exits non-zero at start, its output holding each
 * NULL-terminated fragment. */
static void expect_refused_start(const char *const *args, const char *frag1, const char *frag2)
{
    pdk_test_server s;
    int rc = pdk_test_server_start(&s, NULL, args, log_text, sizeof(log_text));
    if (rc == 0)
        pdk_test_server_stop(&s, NULL, 0);
    ck_assert_msg(rc != 0, "paddockd started with %s %s", args[0], args[1]);
    ck_assert_msg(strstr(log_text, frag1) && (frag2 == NULL || strstr(log_text, frag2)),
                  "'%s' lacks '%s' / '%s'", log_text, frag1, frag2 ? frag2 : "");
}

START_TEST(bad_files_refuse_to_start)
{
    const char *srv_pem = cert(0, "server.pem"), *srv_key = cert(1, "server.key");
    const char *missing = cert(2, "no-such.pem"), *garbage = cert(3, "garbage.pem");
    const char *rig_key = cert(4, "rig.key");
    const char *a1[] = {"--tls-cert", missing, "--tls-key", srv_key, NULL};
    expect_refused_start(a1, "--tls-cert ", "no-such.pem: No such file");
    const char *a2[] = {"--tls-cert", garbage, "--tls-key", srv_key, NULL};
    expect_refused_start(a2, "--tls-cert ", "garbage.pem: no start line");
    const char *a3[] = {"--tls-cert", srv_pem, "--tls-key", rig_key, NULL};
    expect_refused_start(a3, "--tls-key ", "rig.key: key values mismatch");
    const char *a4[] = {"--tls-cert",      srv_pem, "--tls-key", srv_key,
                        "--tls-client-ca", garbage, NULL};
    expect_refused_start(a4, "--tls-client-ca ", "garbage.pem");
    const char *a5[] = {"--tls-cert", srv_pem, NULL};
    expect_refused_start(a5, "TLS needs both --tls-cert and --tls-key", NULL);
    const char *a6[] = {"--tls-cert", srv_pem, "--tls-key", srv_key, "--tls-require-client-cert",
                        NULL};
    expect_refused_start(a6, "--tls-require-client-cert needs --tls-client-ca", NULL);
}
END_TEST

START_TEST(limits_hold_inside_tls)
{
    const char *more[] = {"--max-frame", "4096", "--frame-timeout", "0.5", NULL};
    start_tls(more);
    static uint8_t buf[1 << 16];
    raw_tls r;
    /* An oversized length is refused on its prefix. */
    raw_tls_open(&r);
    const uint8_t big[] = {0x80, 0x80, 0x04}; /* 65536 */
    ck_assert_int_eq(SSL_write(r.ssl, big, sizeof(big)), (int)sizeof(big));
    size_t n = raw_tls_read_all(&r, buf, sizeof(buf));
    raw_tls_close(&r);
    ck_assert_msg(has(buf, n, "frame of 65536 bytes exceeds the limit of 4096 bytes"),
                  "no FRAME_TOO_LARGE over TLS (%zu bytes)", n);
    /* A frame that stops half-way is timed out. */
    raw_tls_open(&r);
    const uint8_t part[] = {100, 0x0a, 0x02};
    ck_assert_int_eq(SSL_write(r.ssl, part, sizeof(part)), (int)sizeof(part));
    n = raw_tls_read_all(&r, buf, sizeof(buf));
    raw_tls_close(&r);
    ck_assert_msg(has(buf, n, "after its first bytes came (--frame-timeout)"),
                  "no frame TIMEOUT over TLS (%zu bytes)", n);
    /* The server still serves. */
    expect_ok(connect_tls(srv.addr, cert(2, "ca.pem"), NULL, NULL), "after the limits");
}
END_TEST

START_TEST(unfinished_handshake_is_cut)
{
    start_tls(NULL);
    int fd = pdk_test_raw_connect(srv.port);
    ck_assert_int_ge(fd, 0);
    /* The first bytes of a ClientHello record, and nothing more. */
    const uint8_t hello[] = {0x16, 0x03, 0x01, 0x01};
    ck_assert_int_eq(write(fd, hello, sizeof(hello)), (ssize_t)sizeof(hello));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint8_t buf[256];
    ssize_t n = pdk_test_read_all(fd, buf, sizeof(buf), 8000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    /* --hello-timeout 1, then at most the 2 s close linger. */
    ck_assert_msg(n >= 0 && s < 6.0, "not cut: read %zd after %.1f s", n, s);
    expect_log("no Hello within 1 s");
}
END_TEST

START_TEST(auth_on_a_network_without_tls_warns)
{
    char dir[256];
    pdk_test_tmpdir(dir, sizeof(dir));
    int rc = pdk_test_sh(out, sizeof(out),
                         "cd %s && printf '{\"keys\": [{\"name\": \"a\", \"role\": \"admin\", "
                         "\"sha256\": \"%%064d\"}]}' 0 > keys.json && "
                         "timeout -s TERM 2 %s serve --listen 0.0.0.0:0 --auth keys.json --db p.db "
                         "--presets %s/presets --migrations %s/migrations",
                         dir, PDK_PADDOCKD, PDK_SOURCE_DIR, PDK_SOURCE_DIR);
    (void)rc;
    ck_assert_msg(strstr(out, "API keys travel in clear"), "no warning: %s", out);
    rc = pdk_test_sh(out, sizeof(out),
                     "cd %s && timeout -s TERM 2 %s serve --listen 0.0.0.0:0 --auth keys.json "
                     "--db p.db --presets %s/presets --migrations %s/migrations --tls-cert %s "
                     "--tls-key %s",
                     dir, PDK_PADDOCKD, PDK_SOURCE_DIR, PDK_SOURCE_DIR, cert(0, "server.pem"),
                     cert(1, "server.key"));
    ck_assert_msg(!strstr(out, "travel in clear") && strstr(out, "with TLS"), "with TLS: %s", out);
}
END_TEST

static Suite *tls_suite(void)
{
    Suite *s = suite_create("tls");
    TCase *tc = tcase_create("tls");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, tls_client_drives_a_session);
    tcase_add_test(tc, plaintext_client_is_told_and_server_goes_on);
    tcase_add_test(tc, server_certificate_is_verified);
    tcase_add_test(tc, required_client_certificate);
    tcase_add_test(tc, optional_client_certificate);
    tcase_add_test(tc, bad_files_refuse_to_start);
    tcase_add_test(tc, limits_hold_inside_tls);
    tcase_add_test(tc, unfinished_handshake_is_cut);
    tcase_add_test(tc, auth_on_a_network_without_tls_warns);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    make_certs();
    SRunner *sr = srunner_create(tls_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    pdk_test_sh(out, sizeof(out), "rm -rf '%s'", certs);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
