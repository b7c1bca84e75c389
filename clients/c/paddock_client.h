/* libpaddock-client: a small blocking client for the Paddock protocol, built
 * on nanopb with fixed buffers and no malloc, so the same code fits a
 * microcontroller's TCP stack or a desktop tool. One pdk_client is one TCP
 * connection; it is not thread-safe. */
#ifndef PDK_CLIENT_H
#define PDK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "paddock/v1/paddock.pb.h"

#define PDK_CLIENT_DEFAULT_SERVER "127.0.0.1:7420"
#define PDK_CLIENT_RX_BYTES (64u * 1024u)
#define PDK_CLIENT_TX_BYTES (4u * 1024u)
#define PDK_CLIENT_ERR_LEN 512

/* Client-side results. Server errors arrive as PDK_CLIENT_ESERVER with the
 * server's code and message kept in the client. */
typedef enum pdk_client_status {
    PDK_CLIENT_OK = 0,
    PDK_CLIENT_EADDR,    /* the server address does not parse or resolve */
    PDK_CLIENT_ECONNECT, /* connect failed */
    PDK_CLIENT_EIO,      /* send or receive failed, or the server closed */
    PDK_CLIENT_ETIMEOUT, /* no reply in time */
    PDK_CLIENT_EPROTO,   /* the server sent bytes that are not a Frame */
    PDK_CLIENT_ESERVER,  /* the server replied with an Error frame */
    PDK_CLIENT_EENCODE,  /* the request did not fit the fixed buffer */
} pdk_client_status;

typedef struct pdk_client {
    int fd;
    uint64_t next_request_id;
    int timeout_ms;
    uint8_t rx[PDK_CLIENT_RX_BYTES];
    size_t rx_len;
    uint8_t tx[PDK_CLIENT_TX_BYTES];
    paddock_v1_ErrorCode server_code; /* with PDK_CLIENT_ESERVER */
    char error[PDK_CLIENT_ERR_LEN];   /* what went wrong, for a person */
} pdk_client;

/* The address to use: explicit (may be NULL), else $PADDOCK_SERVER, else
 * PDK_CLIENT_DEFAULT_SERVER. */
const char *pdk_client_server_address(const char *explicit_addr);

/* Connects to "host:port" and exchanges Hello/Welcome (*welcome may be NULL).
 * timeout_ms bounds every later wait too. */
pdk_client_status pdk_client_connect(pdk_client *c, const char *host_port, int timeout_ms,
                                     paddock_v1_Welcome *welcome);

/* Sends req (its body set; request_id is assigned here) and waits for the
 * reply with the same request_id, which lands in *reply. Pushed frames
 * (request_id 0) that arrive meanwhile go to on_push when it is not NULL and
 * are dropped otherwise. An Error reply returns PDK_CLIENT_ESERVER. */
typedef void (*pdk_client_push_fn)(const paddock_v1_Frame *frame, void *ud);
pdk_client_status pdk_client_call(pdk_client *c, paddock_v1_Frame *req, paddock_v1_Frame *reply,
                                  pdk_client_push_fn on_push, void *ud);

/* Receives the next frame of any kind, waiting at most timeout_ms
 * (PDK_CLIENT_ETIMEOUT when none came). */
pdk_client_status pdk_client_recv(pdk_client *c, paddock_v1_Frame *out, int timeout_ms);

/* Sends a frame without waiting for anything. */
pdk_client_status pdk_client_send(pdk_client *c, paddock_v1_Frame *frame);

/* Closes the connection; accepts a client that never connected. */
void pdk_client_close(pdk_client *c);

/* A short name for a status ("timeout"). */
const char *pdk_client_status_name(pdk_client_status st);

#endif
