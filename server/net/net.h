/* net: the server's transports on libuv behind one interface. The app
 * includes this header: transport.h is the interface every transport offers
 * (connections that carry whole Frames, with bounded buffers), tcp.h makes a
 * TCP listener, http.h an HTTP and WebSocket one (with the app's own
 * WebSocket subprotocols). A peer can never crash the server or disturb another: an
 * oversized or malformed frame gets an Error frame, then the connection is
 * closed after the flush; a reader too slow for its state stream loses old
 * state frames, then the connection (Redis' output-buffer limits). */
#ifndef PDK_NET_H
#define PDK_NET_H

#include "http.h"
#include "tcp.h"
#include "transport.h"

#endif
