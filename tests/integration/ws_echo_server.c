/* ws_echo_server: the real HTTP/WebSocket listener of server/net (http.c)
 * with a test subprotocol registered through pdk_ws_handler, for
 * tests/web/ws_handler.test.mjs. It echoes what it gets: a text message as
 * text, a binary one as binary; a text "keyed:K:BODY" is sent back with
 * pdk_ws_send_keyed under key K, and "close" closes with status 4000. Its
 * Paddock connections (pdk_conn) get nothing but the transport's own
 * refusals. Small limits (max message 1024 bytes, 2 connections) make the
 * refusals easy to reach. Prints "port N" once listening; SIGTERM stops it
 * and it exits 0 once the listener has released the loop. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "net.h"

static uv_signal_t sig_term;

static void on_open(pdk_ws *ws, void *ud)
{
    (void)ud;
    char hello[96];
    int n = snprintf(hello, sizeof hello, "open %s", pdk_ws_subprotocol(ws));
    pdk_ws_send_text(ws, hello, (size_t)n);
}

static void on_text(pdk_ws *ws, const char *text, size_t len, void *ud)
{
    (void)ud;
    if (len == 5 && memcmp(text, "close", 5) == 0) {
        pdk_ws_close(ws, 4000, "asked to close");
        return;
    }
    unsigned key = 0;
    int used = 0;
    if (len > 6 && memcmp(text, "keyed:", 6) == 0 && sscanf(text + 6, "%u:%n", &key, &used) == 1 &&
        used > 0) {
        size_t head = 6 + (size_t)used;
        pdk_ws_send_keyed(ws, key, true, (const uint8_t *)text + head, len - head);
        return;
    }
    pdk_ws_send_text(ws, text, len);
}

static void on_binary(pdk_ws *ws, const uint8_t *data, size_t len, void *ud)
{
    (void)ud;
    pdk_ws_send_binary(ws, data, len);
}

static void on_closed(void *ud)
{
    uv_close((uv_handle_t *)ud, NULL);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    (void)signum;
    pdk_listener_close(sig->data);
}

static void on_frame(pdk_conn *conn, const Paddock__V1__Frame *frame, void *ud)
{
    (void)conn;
    (void)frame;
    (void)ud;
}

int main(void)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pdk_ws_handler echo = {
        .subprotocols = {"echo.test.v1", "echo.test.v2"},
        .on_open = on_open,
        .on_text = on_text,
        .on_binary = on_binary,
    };
    pdk_http_config config = {
        .listen = "127.0.0.1:0",
        .handlers = &echo,
        .n_handlers = 1,
        .on_closed = on_closed,
        .on_closed_ud = &sig_term,
    };
    pdk_net_limits limits = pdk_net_limits_default();
    limits.max_frame_bytes = 1024;
    limits.max_connections = 2;
    pdk_net_callbacks cb = {.on_frame = on_frame};
    pdk_listener *http = NULL;
    char err[256];
    if (pdk_http_listen(&loop, &config, &limits, &cb, NULL, &http, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "ws_echo_server: %s\n", err);
        return 1;
    }
    uv_signal_init(&loop, &sig_term);
    sig_term.data = http;
    uv_signal_start(&sig_term, on_signal, SIGTERM);
    printf("port %d\n", pdk_listener_port(http));
    fflush(stdout);
    uv_run(&loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&loop) != 0) {
        fprintf(stderr, "ws_echo_server: the loop still had open handles\n");
        return 1;
    }
    return 0;
}
