/* libpaddock-client: a small blocking client for the Paddock protocol, built
 * on nanopb with fixed buffers and no malloc, so the same code fits a
 * microcontroller's TCP stack or a desktop tool. One pdk_client is one TCP
 * connection, in clear or over TLS (OpenSSL, which allocates: only a
 * connection that asks for TLS uses it); it is not thread-safe. */
#ifndef PDK_CLIENT_H
#define PDK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "paddock/v1/paddock.pb.h"

#define PDK_CLIENT_DEFAULT_SERVER "127.0.0.1:7420"
#define PDK_CLIENT_RX_BYTES (64u * 1024u)
/* The send buffer holds one ImportChunk of 16 KiB with its framing. A
 * device that never uploads may build with a smaller one (4 KiB holds every
 * other request); its uploads then go in chunks that fit. */
#ifndef PDK_CLIENT_TX_BYTES
#define PDK_CLIENT_TX_BYTES (17u * 1024u)
#endif
/* The data of one ImportChunk pdk_client_upload sends. */
#define PDK_CLIENT_CHUNK_BYTES                                                                     \
    (PDK_CLIENT_TX_BYTES >= 16384u + 256u ? 16384u : PDK_CLIENT_TX_BYTES - 256u)
#define PDK_CLIENT_ERR_LEN 512
/* Used by pdk_client_connect when it is given a timeout of 0 or less. */
#define PDK_CLIENT_DEFAULT_TIMEOUT_MS 5000
/* The most vehicles a StateBatch this client decodes holds (the nanopb
 * array's size, paddock.options). A Subscribe it sends with
 * max_batch_vehicles 0 or above this is sent with this, so a tick of a
 * larger session arrives as several StateBatch frames (part 0 to parts - 1)
 * that each fit, rather than one this client cannot decode. */
#define PDK_CLIENT_STATE_BATCH_VEHICLES                                                            \
    (sizeof(((paddock_v1_StateBatch *)0)->vehicles) /                                               \
     sizeof(((paddock_v1_StateBatch *)0)->vehicles[0]))
/* The protocol version this client speaks (paddock.v1.ProtocolVersion). */
#define PDK_CLIENT_PROTOCOL_VERSION 1u

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
    PDK_CLIENT_EINVAL,   /* a NULL or otherwise unusable argument */
    PDK_CLIENT_ETLS,     /* TLS failed: a file, the handshake, or a TLS record */
} pdk_client_status;

/* All fields are the library's; read server_code and error after a failure.
 * The struct is large (the receive buffer is inside it): give it static
 * storage or a thread with a big stack, not a small stack frame. */
typedef struct pdk_client {
    int fd;
    void *tls; /* OpenSSL's SSL while a TLS connection is open; else NULL */
    uint64_t next_request_id;
    int timeout_ms;
    uint8_t rx[PDK_CLIENT_RX_BYTES];
    size_t rx_len;
    uint8_t tx[PDK_CLIENT_TX_BYTES];
    paddock_v1_ErrorCode server_code; /* with PDK_CLIENT_ESERVER */
    char error[PDK_CLIENT_ERR_LEN];   /* what went wrong, for a person */
} pdk_client;

/* The address to use: explicit (may be NULL), else $PADDOCK_SERVER, else
 * PDK_CLIENT_DEFAULT_SERVER. An empty string counts as absent. */
const char *pdk_client_server_address(const char *explicit_addr);

/* Connects to "host:port" or "[v6addr]:port" (host may be a name; the port
 * is a number 1..65535) and exchanges Hello/Welcome (*welcome may be NULL).
 * timeout_ms bounds the connect, the handshake and every later wait too;
 * 0 or less means PDK_CLIENT_DEFAULT_TIMEOUT_MS. Errors: EADDR (the address
 * does not parse or resolve; the message quotes it), ECONNECT (refused or
 * unreachable), ETIMEOUT (no connection or no Welcome in time), EIO (the
 * peer closed), EPROTO (the peer is not a paddockd speaking protocol 1),
 * ESERVER (the server refused the Hello). On any error the connection is
 * closed again; c->error gives the reason without repeating the address
 * (a name's resolved address is added). c is (re)initialised here, so a
 * pdk_client needs no set-up before this call; close a connected client
 * before connecting it again, or its socket leaks. */
pdk_client_status pdk_client_connect(pdk_client *c, const char *host_port, int timeout_ms,
                                     paddock_v1_Welcome *welcome);

/* pdk_client_connect with the client_name sent in Hello (NULL or "" sends
 * "libpaddock-client"; longer than 63 bytes is EINVAL). Both send
 * $PADDOCK_API_KEY as the api_key when it is set. */
pdk_client_status pdk_client_connect_as(pdk_client *c, const char *host_port, int timeout_ms,
                                        const char *client_name, paddock_v1_Welcome *welcome);

/* TLS for a connection (docs/security.md "TLS"). The server's certificate
 * is verified against ca_file and must name the host of the address (a DNS
 * name, or an IP address in its subjectAltName). cert_file and key_file
 * (PEM, both or neither) are the client certificate a server with
 * --tls-client-ca asks for. */
typedef struct pdk_client_tls {
    const char *ca_file;   /* required: the CA the server's certificate chains to */
    const char *cert_file; /* NULL: no client certificate */
    const char *key_file;
} pdk_client_tls;

/* What a connection says in its Hello, and how it is carried. */
typedef struct pdk_client_hello {
    const char *client_name; /* NULL or "": "libpaddock-client"; at most 63 bytes */
    const char *api_key;     /* NULL: $PADDOCK_API_KEY when set; "": none; at most 127 bytes */
    bool viewer;             /* watch only: the server refuses every command */
    /* NULL: TLS when $PADDOCK_TLS_CA is set (with $PADDOCK_TLS_CERT and
     * $PADDOCK_TLS_KEY for a client certificate), else in clear. */
    const pdk_client_tls *tls;
} pdk_client_hello;

/* pdk_client_connect with the Hello hello describes (NULL: all defaults).
 * A server with --auth refuses a missing or unknown key with ESERVER and
 * server_code UNAUTHENTICATED; welcome->identity and ->role say who the
 * server took the connection for (docs/security.md). Over TLS: ETLS when a
 * file does not load (the message names it), the handshake fails (the
 * server's certificate does not verify, the server is not speaking TLS) or
 * the server refuses the client's certificate (with TLS 1.3 that alert
 * comes while the Welcome is awaited); OpenSSL's reason is in c->error. A
 * client in clear at a TLS port gets ESERVER PROTOCOL saying so. */
pdk_client_status pdk_client_connect_hello(pdk_client *c, const char *host_port, int timeout_ms,
                                           const pdk_client_hello *hello,
                                           paddock_v1_Welcome *welcome);

/* Sends req (its body set; request_id is assigned here) and waits for the
 * reply with the same request_id, which lands in *reply. Pushed frames
 * (request_id 0) that arrive meanwhile go to on_push when it is not NULL and
 * are dropped otherwise. An Error reply returns PDK_CLIENT_ESERVER.
 * req and reply may be the same frame: the request is encoded before
 * anything is received, so one Frame (about 48 KiB, because a StateBatch
 * holds 64 vehicles with their wheels) serves a whole program; give it
 * static storage on a small device. Pushed frames are decoded into *reply before on_push sees
 * them; on_push must not call this client. A reply to an earlier request
 * that timed out is dropped. The wait is bounded by c->timeout_ms in total,
 * however many pushed frames arrive. On ESERVER, c->server_code holds the
 * code and c->error reads "<CODE_NAME>: <server message>". EIO and EPROTO
 * close the connection (the byte stream cannot be trusted after them);
 * ETIMEOUT (unless a send stalled half-way), ESERVER and EENCODE do not.
 * EINVAL for a NULL argument. */
typedef void (*pdk_client_push_fn)(const paddock_v1_Frame *frame, void *ud);
pdk_client_status pdk_client_call(pdk_client *c, paddock_v1_Frame *req, paddock_v1_Frame *reply,
                                  pdk_client_push_fn on_push, void *ud);

/* Receives the next frame of any kind, waiting at most timeout_ms
 * (PDK_CLIENT_ETIMEOUT when none came). timeout_ms < 0 waits without limit;
 * 0 only takes what already arrived. An Error frame is returned as a frame
 * (PDK_CLIENT_OK); the caller looks at which_body. A frame that is only
 * partly received stays buffered, so a timeout loses nothing. */
pdk_client_status pdk_client_recv(pdk_client *c, paddock_v1_Frame *out, int timeout_ms);

/* Sends a frame without waiting for anything. A frame whose request_id is
 * 0 gets the next request id (read it back from the frame to match the
 * reply that pdk_client_recv will hand over); a non-zero request_id is sent
 * as it is. Here and in pdk_client_call, a Subscribe's max_batch_vehicles
 * is fitted to PDK_CLIENT_STATE_BATCH_VEHICLES. */
pdk_client_status pdk_client_send(pdk_client *c, paddock_v1_Frame *frame);

/* Closes the connection; accepts a client that never connected, a zeroed
 * struct and NULL. Closing twice is harmless. */
void pdk_client_close(pdk_client *c);

/* A short name for a status ("timeout"). Never NULL; a value outside the
 * enum gives "unknown status". */
const char *pdk_client_status_name(pdk_client_status st);

/* One NTP-style sample of the server's wall clock (docs/protocol.md
 * "Clocks"): a Ping stamped with this machine's CLOCK_REALTIME (t0), the
 * Pong's one server time (wall_time_ns, so t1 = t2) and the time it came
 * back (t3). *offset_ns = ((t1 - t0) + (t2 - t3)) / 2 is the server's wall
 * clock minus this machine's, within +-*round_trip_ns / 2, and
 * *round_trip_ns = t3 - t0; of several samples the one with the shortest
 * round trip bounds it best. scratch is the frame the Ping and Pong go
 * through. Errors as pdk_client_call; EPROTO when the reply is no Pong;
 * EINVAL for a NULL argument. */
pdk_client_status pdk_client_clock_sample(pdk_client *c, paddock_v1_Frame *scratch,
                                          int64_t *offset_ns, uint64_t *round_trip_ns);

/* pdk_client_clock_sample on a connection that also carries subscriptions:
 * frames pushed while the Pong is awaited go to on_push (as with
 * pdk_client_call) instead of being dropped. A proxy view pings this way
 * (paddock_view.h). */
pdk_client_status pdk_client_clock_sample_push(pdk_client *c, paddock_v1_Frame *scratch,
                                               pdk_client_push_fn on_push, void *ud,
                                               int64_t *offset_ns, uint64_t *round_trip_ns);

/* Checks that reply carries the body tag expected (e.g.
 * paddock_v1_Frame_session_created_tag); EPROTO with a message naming both
 * bodies otherwise. */
pdk_client_status pdk_client_expect(pdk_client *c, const paddock_v1_Frame *reply,
                                    pb_size_t body_tag);

/* The proto name of a Frame body tag ("session_created"); "empty" for 0 and
 * "unknown" for a tag this client does not know. Never NULL. */
const char *pdk_client_body_name(pb_size_t body_tag);

/* The proto name of a server error code ("NOT_FOUND"); "UNKNOWN_ERROR" for a
 * code this client does not know. Never NULL. */
const char *pdk_client_error_code_name(paddock_v1_ErrorCode code);

/* Where pdk_client_download puts a file's bytes, in order: return 0 to go
 * on, anything else to stop. */
typedef int (*pdk_client_sink_fn)(const uint8_t *data, size_t len, void *ud);

/* Sends frame (an ExportRequest or a CsvExportRequest; its request_id is
 * assigned here) and hands the data of each ExportChunk of the reply to sink
 * in order, until the chunk marked last; *total_bytes (may be NULL) gets the
 * size. frame receives the chunks. Each chunk must come within
 * c->timeout_ms of the one before; pushed frames meanwhile go to on_push.
 * Errors: ESERVER (refused, or failed part-way: what came stays with the
 * sink), EPROTO (a chunk out of order, another reply), ETIMEOUT, EIO,
 * EINVAL (NULL, or the sink stopped: the rest of the reply is then still on
 * the way, so close the connection). */
pdk_client_status pdk_client_download(pdk_client *c, paddock_v1_Frame *frame,
                                      pdk_client_sink_fn sink, void *ud, pdk_client_push_fn on_push,
                                      void *push_ud, uint64_t *total_bytes);

/* Gives pdk_client_upload the next bytes: fills buf with at most cap and
 * returns how many, 0 at the end, or -1 when it cannot read. */
typedef long (*pdk_client_source_fn)(uint8_t *buf, size_t cap, void *ud);

/* Uploads a standalone session file (paddock export) from source as
 * ImportChunks of PDK_CLIENT_CHUNK_BYTES, each answered Ok, then an empty
 * chunk marked last; on success frame holds the SessionImported reply.
 * Errors as pdk_client_call, and EINVAL when the source fails (the server
 * drops the upload when the connection closes or the next upload starts
 * at offset 0). */
pdk_client_status pdk_client_upload(pdk_client *c, paddock_v1_Frame *frame,
                                    pdk_client_source_fn source, void *ud,
                                    pdk_client_push_fn on_push, void *push_ud);

/* True while the connection is open (connect succeeded and no EIO or EPROTO
 * closed it since). */
int pdk_client_is_connected(const pdk_client *c);

#endif
