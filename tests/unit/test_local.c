/* Unit tests for server/net's local transport (local.h): an app and a peer
 * in the same process, each recording what it is given. The frames are
 * real encoded Frames, so the transport's shared checks apply as on TCP. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "wire.h"

typedef struct app {
    int opened, closed;
    int frames;
    int last_body;
    uint64_t last_rid;
    pdk_conn *conn;
    bool echo; /* answer a Ping with a Pong, and a Pong with a state frame */
} app;

typedef struct peer {
    int frames, states, closes;
    int last_body;
    uint32_t last_key;
    pdk_error refuse; /* what on_frame answers */
} peer;

static void app_open(pdk_conn *conn, void *ud)
{
    app *a = ud;
    a->opened++;
    a->conn = conn;
}

static void send_body(pdk_conn *conn, Paddock__V1__Frame *f, bool state)
{
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&b, f), PDK_OK);
    if (state)
        ck_assert_int_eq(pdk_conn_send_state(conn, 7, b.data, b.len), PDK_OK);
    else
        ck_assert_int_eq(pdk_conn_send(conn, b.data, b.len), PDK_OK);
    pdk_buf_free(&b);
}

static void app_frame(pdk_conn *conn, const Paddock__V1__Frame *f, void *ud)
{
    app *a = ud;
    a->frames++;
    a->last_body = f->body_case;
    a->last_rid = f->request_id;
    if (!a->echo)
        return;
    Paddock__V1__Pong pong = PADDOCK__V1__PONG__INIT;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    r.pong = &pong;
    send_body(conn, &r, f->body_case == PADDOCK__V1__FRAME__BODY_PONG);
}

static void app_close(pdk_conn *conn, void *ud)
{
    app *a = ud;
    ck_assert_ptr_nonnull(conn);
    a->closed++;
}

static pdk_error peer_frame(void *ud, const uint8_t *frame, size_t len, bool state, uint32_t key)
{
    peer *p = ud;
    if (p->refuse != PDK_OK)
        return p->refuse;
    pdk_error err;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
    ck_assert_ptr_nonnull(f);
    p->last_body = f->body_case;
    pdk_wire_frame_free(f);
    p->frames++;
    if (state) {
        p->states++;
        p->last_key = key;
    }
    return PDK_OK;
}

static void peer_close(void *ud)
{
    peer *p = ud;
    p->closes++;
}

/* The peer's own queue: what it says is what the connection's stats say. */
static void peer_stats(void *ud, size_t *queued_bytes, uint64_t *state_dropped)
{
    (void)ud;
    *queued_bytes = 123;
    *state_dropped = 7;
}

static const pdk_local_peer peer_ops = {
    .on_frame = peer_frame, .on_close = peer_close, .stats = peer_stats};

static pdk_listener *listen_for(app *a)
{
    pdk_net_callbacks cb = {.on_open = app_open, .on_frame = app_frame, .on_close = app_close};
    pdk_listener *l = NULL;
    char err[128];
    ck_assert_int_eq(pdk_local_listen(NULL, &cb, a, &l, err, sizeof(err)), PDK_OK);
    return l;
}

static void write_ping(pdk_conn *conn, uint64_t rid, bool as_pong)
{
    Paddock__V1__Ping ping = PADDOCK__V1__PING__INIT;
    Paddock__V1__Pong pong = PADDOCK__V1__PONG__INIT;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = rid;
    if (as_pong) {
        f.body_case = PADDOCK__V1__FRAME__BODY_PONG;
        f.pong = &pong;
    } else {
        f.body_case = PADDOCK__V1__FRAME__BODY_PING;
        f.ping = &ping;
    }
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&b, &f), PDK_OK);
    pdk_local_write(conn, b.data, b.len);
    pdk_buf_free(&b);
}

START_TEST(frames_both_ways)
{
    app a = {.echo = true};
    peer p = {0};
    pdk_listener *l = listen_for(&a);
    pdk_conn *c = pdk_local_open(l, &peer_ops, &p, "test peer");
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(a.opened, 1);
    ck_assert_str_eq(pdk_conn_peer(c), "test peer");
    write_ping(c, 42, false);
    ck_assert_int_eq(a.frames, 1);
    ck_assert_int_eq(a.last_body, PADDOCK__V1__FRAME__BODY_PING);
    ck_assert_uint_eq(a.last_rid, 42);
    ck_assert_int_eq(p.frames, 1);
    ck_assert_int_eq(p.last_body, PADDOCK__V1__FRAME__BODY_PONG);
    ck_assert_int_eq(p.states, 0);
    /* A state frame reaches the peer with its key. */
    write_ping(c, 43, true);
    ck_assert_int_eq(p.states, 1);
    ck_assert_uint_eq(p.last_key, 7);
    pdk_conn_stats st;
    pdk_conn_stats_get(c, &st);
    ck_assert_uint_eq(st.frames_in, 2);
    ck_assert_uint_eq(st.frames_out, 2);
    ck_assert_uint_eq(st.queued_bytes, 123);
    ck_assert_uint_eq(st.state_dropped, 7);
    /* The peer goes: the app hears on_close, the listener closes empty. */
    pdk_local_hangup(c);
    ck_assert_int_eq(a.closed, 1);
    pdk_listener_close(l);
}
END_TEST

START_TEST(bad_frame_fails_the_connection)
{
    app a = {0};
    peer p = {0};
    pdk_listener *l = listen_for(&a);
    pdk_conn *c = pdk_local_open(l, &peer_ops, &p, NULL);
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff};
    pdk_local_write(c, junk, sizeof(junk));
    ck_assert_int_eq(a.frames, 0);
    /* The Error goes to the peer, then the close. */
    ck_assert_int_eq(p.frames, 1);
    ck_assert_int_eq(p.last_body, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_int_eq(p.closes, 1);
    /* Nothing more is delivered while it closes. */
    write_ping(c, 1, false);
    ck_assert_int_eq(a.frames, 0);
    pdk_local_hangup(c);
    ck_assert_int_eq(a.closed, 1);
    pdk_listener_close(l);
}
END_TEST

START_TEST(oversized_and_refused)
{
    app a = {0};
    peer p = {0};
    pdk_net_limits lim = pdk_net_limits_default();
    lim.max_frame_bytes = 64;
    pdk_net_callbacks cb = {.on_open = app_open, .on_frame = app_frame, .on_close = app_close};
    pdk_listener *l = NULL;
    char err[128];
    ck_assert_int_eq(pdk_local_listen(&lim, &cb, &a, &l, err, sizeof(err)), PDK_OK);
    pdk_conn *c = pdk_local_open(l, &peer_ops, &p, NULL);
    uint8_t big[100] = {0};
    pdk_local_write(c, big, sizeof(big));
    ck_assert_int_eq(a.frames, 0);
    ck_assert_int_eq(p.last_body, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_int_eq(p.closes, 1);
    pdk_local_hangup(c);

    /* A peer's refusal comes back as the send's error. */
    c = pdk_local_open(l, &peer_ops, &p, NULL);
    p.refuse = PDK_ERR_CLOSED;
    Paddock__V1__Pong pong = PADDOCK__V1__PONG__INIT;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.body_case = PADDOCK__V1__FRAME__BODY_PONG;
    r.pong = &pong;
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&b, &r), PDK_OK);
    ck_assert_int_eq(pdk_conn_send(c, b.data, b.len), PDK_ERR_CLOSED);
    pdk_buf_free(&b);
    pdk_local_hangup(c);
    pdk_listener_close(l);

    /* Bad limits are refused, naming the field. */
    lim.max_frame_bytes = 1;
    ck_assert_int_eq(pdk_local_listen(&lim, &cb, &a, &l, err, sizeof(err)),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err, "max_frame_bytes"));
}
END_TEST

START_TEST(listener_close_asks_every_peer)
{
    app a = {0};
    peer p1 = {0}, p2 = {0};
    pdk_listener *l = listen_for(&a);
    pdk_conn *c1 = pdk_local_open(l, &peer_ops, &p1, NULL);
    pdk_conn *c2 = pdk_local_open(l, &peer_ops, &p2, NULL);
    pdk_listener_close(l);
    ck_assert_int_eq(p1.closes, 1);
    ck_assert_int_eq(p2.closes, 1);
    /* A closing listener opens nothing. */
    ck_assert_ptr_null(pdk_local_open(l, &peer_ops, &p1, NULL));
    pdk_local_hangup(c1);
    pdk_local_hangup(c2); /* the last hang-up frees the listener (ASan checks) */
    ck_assert_int_eq(a.closed, 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("local");
    TCase *tc = tcase_create("local");
    tcase_add_test(tc, frames_both_ways);
    tcase_add_test(tc, bad_frame_fails_the_connection);
    tcase_add_test(tc, oversized_and_refused);
    tcase_add_test(tc, listener_close_asks_every_peer);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
