/* Frames that wait for a session on a step thread (ADR 0031). A request
 * naming a session whose tick is out on a thread, or any frame of a
 * connection that already has one waiting, is kept packed and handled
 * when a session comes back, so handlers only ever see sessions that are
 * the loop's and each connection's requests are handled in order. A kept
 * frame holds its connection's reading (TCP and WebSocket hold; on a
 * transport that could not, at most PARK_MAX_PER_CONN frames would wait
 * before the connection is closed BUSY). */
#include "server_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define PARK_MAX_PER_CONN 1024u

/* True while session_id's tick is on a step thread (0: a frame that waits
 * only for its connection's earlier ones). */
static bool session_out(pdk_server *srv, uint64_t session_id)
{
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, session_id);
    return slot && slot->stepping.out;
}

/* Appends (conn, session, packed frame) to the kept list. */
static bool keep(pdk_server *srv, uint64_t conn_id, uint64_t session_id, uint8_t *frame,
                 size_t len)
{
    pdk_server_parked *p = &srv->parked;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        pdk_parked *items = realloc(p->items, cap * sizeof(*items));
        if (!items)
            return false;
        p->items = items;
        p->cap = cap;
    }
    p->items[p->n++] = (pdk_parked){
        .conn_id = conn_id, .session_id = session_id, .frame = frame, .len = len};
    return true;
}

void pdk_server_park(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f,
                     uint64_t session_id)
{
    if (c->n_parked >= PARK_MAX_PER_CONN) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "%u requests are already waiting for sessions' ticks on this connection; "
                 "wait for their replies",
                 c->n_parked);
        pdk_conn_fail(c->conn, f->request_id, PDK_ERR_BUSY, msg);
        return;
    }
    size_t len = protobuf_c_message_get_packed_size(&f->base);
    uint8_t *frame = malloc(len ? len : 1);
    if (frame)
        protobuf_c_message_pack(&f->base, frame);
    if (!frame || !keep(srv, c->id, session_id, frame, len)) {
        free(frame);
        pdk_server_send_error(&srv->out, c->conn, f->request_id, PDK_ERR_NO_MEMORY,
                              "out of memory keeping a request until its session's tick is done");
        return;
    }
    c->n_parked++;
    if (!pdk_conn_is_held(c->conn) && pdk_conn_hold(c->conn))
        c->park_held = true;
}

bool pdk_server_park_if_busy(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    uint64_t sid = 0;
    bool named = pdk_wire_frame_session_id(f, &sid);
    if (c->n_parked == 0 && !(named && sid != 0 && session_out(srv, sid)))
        return false;
    pdk_server_park(srv, c, f, named && session_out(srv, sid) ? sid : 0);
    return true;
}

bool pdk_server_park_begin(pdk_server *srv, pdk_server_parked *pass)
{
    if (srv->parked.n == 0)
        return false;
    /* The list is taken whole and built again: a frame that must wait
     * still (or waits again in its handler) goes back in its place. */
    *pass = srv->parked;
    pass->next = 0;
    srv->parked = (pdk_server_parked){0};
    for (size_t i = 0; i < pass->n; i++) {
        pdk_server_conn *c = pdk_server_conn_find(srv, pass->items[i].conn_id);
        if (c)
            c->n_parked = 0;
    }
    return true;
}

Paddock__V1__Frame *pdk_server_park_next(pdk_server *srv, pdk_server_parked *pass,
                                         pdk_server_conn **conn)
{
    while (pass->next < pass->n) {
        pdk_parked *p = &pass->items[pass->next++];
        pdk_server_conn *c = pdk_server_conn_find(srv, p->conn_id);
        if (!c) {
            free(p->frame);
            continue;
        }
        if (c->n_parked > 0 || session_out(srv, p->session_id)) {
            if (keep(srv, p->conn_id, p->session_id, p->frame, p->len)) {
                c->n_parked++;
                continue;
            }
            pdk_server_send_error(&srv->out, c->conn, 0, PDK_ERR_NO_MEMORY,
                                  "out of memory keeping a request until its session's tick is "
                                  "done; it was dropped");
            free(p->frame);
            continue;
        }
        pdk_error err = PDK_OK;
        Paddock__V1__Frame *f = pdk_wire_frame_decode(p->frame, p->len, &err);
        free(p->frame);
        if (f) {
            *conn = c;
            return f;
        }
    }
    return NULL;
}

void pdk_server_park_end(pdk_server *srv, pdk_server_parked *pass)
{
    free(pass->items);
    /* Connections with nothing left waiting read again. Closing ones are
     * skipped by the transport; conns is not shrunk under this loop. */
    for (size_t i = 0; i < srv->n_conns; i++) {
        pdk_server_conn *c = srv->conns[i];
        if (c->park_held && c->n_parked == 0) {
            c->park_held = false;
            /* A frame handled in this pass may have spent its budget: that
             * hold lasts to the next tick. */
            if (!c->budget_held)
                pdk_conn_resume(c->conn);
        }
    }
}

void pdk_server_park_free(pdk_server *srv)
{
    for (size_t i = 0; i < srv->parked.n; i++)
        free(srv->parked.items[i].frame);
    free(srv->parked.items);
    srv->parked = (pdk_server_parked){0};
}
