/* tls: TLS for net's byte-stream transports, on OpenSSL with memory BIOs so
 * that libuv keeps doing every read and write. A pdk_tls holds the server's
 * certificate, key and optional client CA, loaded once at start; a
 * pdk_tls_session is one connection's state machine: the transport feeds it
 * what the socket read, reads the plaintext back, writes plaintext in and
 * takes the ciphertext out to hand to the socket. No socket is touched here. */
#ifndef PDK_TLS_H
#define PDK_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

typedef struct pdk_tls_config {
    const char *cert_file;      /* PEM certificate chain, the server's first */
    const char *key_file;       /* PEM private key matching cert_file */
    const char *client_ca_file; /* NULL: no client certificate is asked for */
    /* With client_ca_file: a client without a certificate fails the
     * handshake (otherwise one is verified only when sent). */
    bool require_client_cert;
} pdk_tls_config;

typedef struct pdk_tls pdk_tls;
typedef struct pdk_tls_session pdk_tls_session;

/* Loads the files. TLS 1.2 is the lowest version offered, 1.3 preferred.
 * Errors: PDK_ERR_INVALID_ARGUMENT with err naming the flag's file and
 * OpenSSL's reason (unreadable, not PEM, key not matching the certificate,
 * require without a CA); PDK_ERR_NO_MEMORY. Release with pdk_tls_destroy. */
pdk_error pdk_tls_create(const pdk_tls_config *cfg, pdk_tls **out, char *err, size_t err_len);
void pdk_tls_destroy(pdk_tls *tls); /* accepts NULL; sessions must be gone */

/* A server-side session; NULL when out of memory. Free with
 * pdk_tls_session_free (accepts NULL). */
pdk_tls_session *pdk_tls_session_new(pdk_tls *tls);
void pdk_tls_session_free(pdk_tls_session *s);

/* Hands the session len bytes read from the socket. false when out of
 * memory. */
bool pdk_tls_session_feed(pdk_tls_session *s, const uint8_t *data, size_t len);

/* What pdk_tls_session_read got. */
typedef enum pdk_tls_read {
    PDK_TLS_READ_DATA,   /* *got plaintext bytes in buf */
    PDK_TLS_READ_MORE,   /* nothing until more is fed (the handshake may have moved) */
    PDK_TLS_READ_CLOSED, /* the peer sent close_notify */
    PDK_TLS_READ_FAILED, /* handshake or record error; err says OpenSSL's reason */
} pdk_tls_read;

/* Advances the handshake and decrypts into buf (cap > 0). After any call,
 * ciphertext to send may be waiting (pdk_tls_session_take). */
pdk_tls_read pdk_tls_session_read(pdk_tls_session *s, uint8_t *buf, size_t cap, size_t *got,
                                  char *err, size_t err_len);

/* Whether the handshake has finished, so plaintext may be written. */
bool pdk_tls_session_ready(const pdk_tls_session *s);

/* Encrypts len plaintext bytes (only once ready). false when OpenSSL
 * refused (err says why). */
bool pdk_tls_session_write(pdk_tls_session *s, const uint8_t *data, size_t len, char *err,
                           size_t err_len);

/* Queues a close_notify alert (once ready; otherwise nothing). */
void pdk_tls_session_shutdown(pdk_tls_session *s);

/* Ciphertext waiting for the socket: its size, and a malloc'd copy that
 * the caller frees (*len 0 and NULL when none or out of memory). */
size_t pdk_tls_session_pending(const pdk_tls_session *s);
uint8_t *pdk_tls_session_take(pdk_tls_session *s, size_t *len);

/* The protocol version agreed ("TLSv1.3") and the client certificate's
 * subject ("CN=rig-1", or "none"), for the connection's log line. */
void pdk_tls_session_describe(const pdk_tls_session *s, char *out, size_t out_len);

#endif
