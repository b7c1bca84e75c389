/* paddockd's connections as the requests see them: finding one by id,
 * sending it a frame, an Ok or an error, checking a request's text fields
 * and counting its subscriptions. Calls nothing else of the server. */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- connections ------------------------------------------------------- */

/* Connections are kept in id order (net gives ids out increasing and the
 * table only appends and removes in place), so a reply or a state frame
 * finds its connection by binary search: this runs for every subscription
 * every published tick. */
pdk_server_conn *pdk_server_conn_find(pdk_server *srv, uint64_t id)
{
    size_t lo = 0, hi = srv->n_conns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (srv->conns[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < srv->n_conns && srv->conns[lo]->id == id ? srv->conns[lo] : NULL;
}

void pdk_server_send_frame(pdk_buf *out, pdk_conn *conn, const Paddock__V1__Frame *frame)
{
    pdk_buf_reset(out);
    if (pdk_wire_frame_append(out, frame) != PDK_OK) {
        pdk_conn_fail(conn, frame->request_id, PDK_ERR_NO_MEMORY, "reply could not be encoded");
        return;
    }
    if (pdk_conn_send(conn, out->data, out->len) == PDK_ERR_FRAME_TOO_LARGE)
        pdk_conn_fail(conn, frame->request_id, PDK_ERR_FRAME_TOO_LARGE,
                      "the reply is larger than the frame limit");
}

void pdk_server_send_error(pdk_buf *out, pdk_conn *conn, uint64_t request_id, pdk_error code,
                           const char *message)
{
    pdk_buf_reset(out);
    if (pdk_wire_error_append(out, request_id, code, message) == PDK_OK &&
        pdk_conn_send(conn, out->data, out->len) == PDK_OK)
        pdk_conn_note_error(conn, code);
}

void pdk_server_error_to(pdk_server *srv, uint64_t conn_id, uint64_t request_id, pdk_error code,
                         const char *message)
{
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (c)
        pdk_server_send_error(&srv->out, c->conn, request_id, code, message);
}

void pdk_server_send_ok(pdk_buf *out, pdk_conn *conn, uint64_t request_id, uint64_t tick)
{
    Paddock__V1__Ok ok = PADDOCK__V1__OK__INIT;
    ok.tick = tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_OK;
    f.ok = &ok;
    pdk_server_send_frame(out, conn, &f);
}

void pdk_server_printable(char *out, size_t out_len, const char *in)
{
    size_t n = 0;
    for (const char *p = in ? in : ""; *p && n + 1 < out_len; p++)
        out[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    out[n] = '\0';
}

bool pdk_server_text_ok(pdk_buf *out, pdk_conn *conn, uint64_t rid, const char *field,
                        const char *text, size_t max)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    const char *why = NULL;
    if (len > max)
        why = "is too long";
    for (size_t i = 0; !why && i < len;) {
        unsigned char c = p[i];
        size_t n = c < 0x80           ? 1
                   : (c >> 5) == 0x6  ? 2
                   : (c >> 4) == 0xe  ? 3
                   : (c >> 3) == 0x1e ? 4
                                      : 0;
        if (n == 0 || i + n > len) {
            why = "is not valid UTF-8";
            break;
        }
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xc0) != 0x80)
                why = "is not valid UTF-8";
        if (n == 1 && (c < 0x20 || c == 0x7f))
            why = "holds a control character";
        i += n;
    }
    if (!why)
        return true;
    char msg[160];
    snprintf(msg, sizeof(msg), "%s %s (at most %zu bytes of UTF-8 text)", field, why, max);
    pdk_server_send_error(out, conn, rid, PDK_ERR_INVALID_ARGUMENT, msg);
    return false;
}

bool pdk_server_sub_room(pdk_buf *out, pdk_server_conn *c, uint64_t request_id)
{
    if (c->n_subs < PDK_SERVER_CONN_MAX_SUBS)
        return true;
    char msg[96];
    snprintf(msg, sizeof(msg), "this connection already holds %d subscriptions",
             PDK_SERVER_CONN_MAX_SUBS);
    pdk_server_send_error(out, c->conn, request_id, PDK_ERR_CAPACITY, msg);
    return false;
}

void pdk_server_refuse(pdk_buf *out, pdk_server_conn *c, uint64_t rid, pdk_error code,
                       const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pdk_server_send_error(out, c->conn, rid, code, msg);
}
