/* tls: the server's TLS context loaded from files and each connection's
 * OpenSSL session over a pair of memory BIOs (see tls.h). OpenSSL's error
 * queue is read and emptied here and nowhere else, so every message that
 * leaves this file carries OpenSSL's own reason. */
#define _POSIX_C_SOURCE 200809L

#include "tls.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

struct pdk_tls {
    SSL_CTX *ctx;
};

struct pdk_tls_session {
    SSL *ssl;
    BIO *rbio; /* what the socket read, for OpenSSL; owned by ssl */
    BIO *wbio; /* what OpenSSL wrote, for the socket; owned by ssl */
};

/* The reason of the oldest error on OpenSSL's queue ("no start line",
 * "certificate verify failed"), or fallback; the queue is emptied. */
static void take_reason(char *out, size_t out_len, const char *fallback)
{
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(out, out_len, "%s", fallback);
        return;
    }
    char full[256];
    ERR_error_string_n(code, full, sizeof full);
    /* "error:0A000086:SSL routines::certificate verify failed": the text
     * after the last colon is the part a person can act on. */
    const char *reason = strrchr(full, ':');
    snprintf(out, out_len, "%s", reason != NULL && reason[1] != '\0' ? reason + 1 : full);
    ERR_clear_error();
}

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t err_len,
                                                          const char *fmt, ...)
{
    if (err != NULL && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
}

pdk_error pdk_tls_create(const pdk_tls_config *cfg, pdk_tls **out, char *err, size_t err_len)
{
    char why[256];
    if (out != NULL) {
        *out = NULL;
    }
    if (cfg == NULL || out == NULL || cfg->cert_file == NULL || cfg->key_file == NULL) {
        set_err(err, err_len, "TLS needs both --tls-cert and --tls-key");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (cfg->require_client_cert && cfg->client_ca_file == NULL) {
        set_err(err, err_len,
                "--tls-require-client-cert needs --tls-client-ca FILE to verify them against");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    ERR_clear_error();
    pdk_tls *tls = calloc(1, sizeof *tls);
    if (tls == NULL) {
        set_err(err, err_len, "TLS: out of memory");
        return PDK_ERR_NO_MEMORY;
    }
    tls->ctx = SSL_CTX_new(TLS_server_method());
    if (tls->ctx == NULL) {
        take_reason(why, sizeof why, "out of memory");
        set_err(err, err_len, "TLS: cannot make a context: %s", why);
        free(tls);
        return PDK_ERR_NO_MEMORY;
    }
    /* TLS 1.2 is the floor (RFC 8996 retired 1.0 and 1.1); OpenSSL offers
     * 1.3 first whenever the client has it. */
    SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(tls->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    const char *flag = "--tls-cert";
    const char *file = cfg->cert_file;
    bool ok = SSL_CTX_use_certificate_chain_file(tls->ctx, cfg->cert_file) == 1;
    if (ok) {
        flag = "--tls-key";
        file = cfg->key_file;
        ok = SSL_CTX_use_PrivateKey_file(tls->ctx, cfg->key_file, SSL_FILETYPE_PEM) == 1;
    }
    if (ok) {
        ok = SSL_CTX_check_private_key(tls->ctx) == 1;
    }
    if (ok && cfg->client_ca_file != NULL) {
        flag = "--tls-client-ca";
        file = cfg->client_ca_file;
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(cfg->client_ca_file);
        ok = names != NULL &&
             SSL_CTX_load_verify_locations(tls->ctx, cfg->client_ca_file, NULL) == 1;
        if (ok) {
            SSL_CTX_set_client_CA_list(tls->ctx, names);
            SSL_CTX_set_verify(tls->ctx,
                               SSL_VERIFY_PEER |
                                   (cfg->require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
                               NULL);
        } else if (names != NULL) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
        }
    }
    if (!ok) {
        take_reason(why, sizeof why, "no certificate in the file");
        set_err(err, err_len, "%s %s: %s", flag, file, why);
        pdk_tls_destroy(tls);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *out = tls;
    return PDK_OK;
}

void pdk_tls_destroy(pdk_tls *tls)
{
    if (tls == NULL) {
        return;
    }
    SSL_CTX_free(tls->ctx);
    free(tls);
}

pdk_tls_session *pdk_tls_session_new(pdk_tls *tls)
{
    pdk_tls_session *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    s->ssl = SSL_new(tls->ctx);
    s->rbio = BIO_new(BIO_s_mem());
    s->wbio = BIO_new(BIO_s_mem());
    if (s->ssl == NULL || s->rbio == NULL || s->wbio == NULL) {
        BIO_free(s->rbio);
        BIO_free(s->wbio);
        SSL_free(s->ssl);
        free(s);
        ERR_clear_error();
        return NULL;
    }
    /* An empty read BIO means "wait for more", not end of file. */
    BIO_set_mem_eof_return(s->rbio, -1);
    SSL_set_bio(s->ssl, s->rbio, s->wbio);
    SSL_set_accept_state(s->ssl);
    return s;
}

void pdk_tls_session_free(pdk_tls_session *s)
{
    if (s == NULL) {
        return;
    }
    SSL_free(s->ssl); /* frees both BIOs */
    free(s);
}

bool pdk_tls_session_feed(pdk_tls_session *s, const uint8_t *data, size_t len)
{
    while (len > 0) {
        int chunk = len > (size_t)INT_MAX ? INT_MAX : (int)len;
        int n = BIO_write(s->rbio, data, chunk);
        if (n <= 0) {
            ERR_clear_error();
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

pdk_tls_read pdk_tls_session_read(pdk_tls_session *s, uint8_t *buf, size_t cap, size_t *got,
                                  char *err, size_t err_len)
{
    *got = 0;
    size_t n = 0;
    ERR_clear_error();
    int r = SSL_read_ex(s->ssl, buf, cap, &n);
    if (r == 1) {
        *got = n;
        return PDK_TLS_READ_DATA;
    }
    int e = SSL_get_error(s->ssl, r);
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return PDK_TLS_READ_MORE;
    case SSL_ERROR_ZERO_RETURN:
        return PDK_TLS_READ_CLOSED;
    default:
        break;
    }
    char why[256];
    take_reason(why, sizeof why, "the peer broke the TLS stream");
    long verify = SSL_get_verify_result(s->ssl);
    if (verify != X509_V_OK && strstr(why, "certificate") != NULL) {
        snprintf(err, err_len, "%s (%s)", why, X509_verify_cert_error_string(verify));
    } else {
        snprintf(err, err_len, "%s", why);
    }
    return PDK_TLS_READ_FAILED;
}

bool pdk_tls_session_ready(const pdk_tls_session *s)
{
    return SSL_is_init_finished(s->ssl) == 1;
}

bool pdk_tls_session_write(pdk_tls_session *s, const uint8_t *data, size_t len, char *err,
                           size_t err_len)
{
    size_t n = 0;
    ERR_clear_error();
    /* A memory BIO grows to take every record, so one call writes it all. */
    if (len == 0 || (SSL_write_ex(s->ssl, data, len, &n) == 1 && n == len)) {
        return true;
    }
    take_reason(err, err_len, "OpenSSL refused the write");
    return false;
}

void pdk_tls_session_shutdown(pdk_tls_session *s)
{
    if (pdk_tls_session_ready(s)) {
        (void)SSL_shutdown(s->ssl);
        ERR_clear_error();
    }
}

size_t pdk_tls_session_pending(const pdk_tls_session *s)
{
    return BIO_ctrl_pending(s->wbio);
}

uint8_t *pdk_tls_session_take(pdk_tls_session *s, size_t *len)
{
    *len = 0;
    size_t pending = BIO_ctrl_pending(s->wbio);
    if (pending == 0) {
        return NULL;
    }
    uint8_t *buf = malloc(pending);
    if (buf == NULL) {
        return NULL;
    }
    size_t n = 0;
    if (BIO_read_ex(s->wbio, buf, pending, &n) != 1) {
        ERR_clear_error();
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

void pdk_tls_session_describe(const pdk_tls_session *s, char *out, size_t out_len)
{
    char subject[160] = "none";
    X509 *peer = SSL_get1_peer_certificate(s->ssl);
    if (peer != NULL) {
        X509_NAME_oneline(X509_get_subject_name(peer), subject, (int)sizeof subject);
        X509_free(peer);
    }
    snprintf(out, out_len, "%s, %s, client certificate %s", SSL_get_version(s->ssl),
             SSL_get_cipher_name(s->ssl), subject);
}
