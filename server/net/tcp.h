/* tcp: the TCP transport. On the wire a connection carries a stream of
 * varint length-delimited Frames (protobuf's standard delimited form); the
 * prefix is written and parsed here and nowhere else. An oversized length is
 * refused on the prefix alone, before any body is buffered. */
#ifndef PDK_TCP_H
#define PDK_TCP_H

#include <stddef.h>

#include <uv.h>

#include "sim/error.h"
#include "tls.h"
#include "transport.h"

/* Listens on host_port ("127.0.0.1:7420", "[::1]:0"; port 0 picks a free
 * one). Errors: PDK_ERR_INVALID_ARGUMENT (unparsable address, limits out of
 * range; err says which), PDK_ERR_NET (bind/listen failed; err has libuv's
 * message). limits NULL means the defaults. Hosts are numeric (or
 * "localhost"): no DNS on the loop. Sets SIGPIPE to ignored unless the
 * process installed a handler. After a failure the loop must still run once
 * for libuv to release the half-made listener. Release with
 * pdk_listener_close. */
pdk_error pdk_tcp_listen(uv_loop_t *loop, const char *host_port, const pdk_net_limits *limits,
                         const pdk_net_callbacks *cb, void *ud, pdk_listener **out, char *err,
                         size_t err_len);

/* pdk_tcp_listen with every connection carried over TLS (tls NULL: plain,
 * as pdk_tcp_listen). tls is not taken: it must outlive the listener, that
 * is until the loop has run after pdk_listener_close. A peer whose first
 * bytes are not a TLS handshake gets Error PROTOCOL in clear saying that
 * the port speaks TLS; a failed handshake is logged with OpenSSL's reason
 * and closed after its alert. Frames are held to the same limits as on
 * plain TCP; a handshake that never finishes never says Hello, so the
 * app's Hello timeout ends it. */
pdk_error pdk_tcp_listen_tls(uv_loop_t *loop, const char *host_port, const pdk_net_limits *limits,
                             pdk_tls *tls, const pdk_net_callbacks *cb, void *ud,
                             pdk_listener **out, char *err, size_t err_len);

#endif
