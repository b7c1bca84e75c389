/* What a session's hooks say during a tick on a step thread (ADR 0031):
 * kept in a box, in order, for the loop to say to the connections once
 * the tick is back (server_hooks.c delivers it). Nothing here touches a
 * connection or the server: a step thread may call all of it. */
#include "server_internal.h"

#include <stdlib.h>
#include <string.h>

/* Set on a step thread for the length of one session's tick. */
static _Thread_local pdk_outbox *capturing;

void pdk_server_capture_begin(pdk_outbox *box, size_t max_frame_bytes)
{
    box->n = 0;
    pdk_buf_reset(&box->bytes);
    box->lost = false;
    box->max_frame_bytes = max_frame_bytes;
    capturing = box;
}

void pdk_server_capture_end(void)
{
    capturing = NULL;
}

pdk_outbox *pdk_server_outbox_capturing(void)
{
    return capturing;
}

void pdk_server_outbox_free(pdk_outbox *box)
{
    free(box->items);
    pdk_buf_free(&box->bytes);
    *box = (pdk_outbox){0};
}

pdk_captured *pdk_server_outbox_add(pdk_captured_kind kind)
{
    pdk_outbox *box = capturing;
    if (box->n == box->cap) {
        size_t cap = box->cap ? box->cap * 2 : 16;
        pdk_captured *p = realloc(box->items, cap * sizeof(*p));
        if (!p) {
            box->lost = true;
            return NULL;
        }
        box->items = p;
        box->cap = cap;
    }
    pdk_captured *it = &box->items[box->n++];
    memset(it, 0, sizeof(*it));
    it->kind = kind;
    return it;
}

bool pdk_server_outbox_keep(const void *bytes, size_t len, size_t *off)
{
    pdk_outbox *box = capturing;
    /* Eight-byte aligned: impulses are read back in place as doubles. */
    static const uint8_t pad[8];
    size_t gap = (8 - box->bytes.len % 8) % 8;
    if (gap && pdk_buf_append(&box->bytes, pad, gap) != PDK_OK) {
        box->lost = true;
        return false;
    }
    *off = box->bytes.len;
    if (len > 0 && pdk_buf_append(&box->bytes, bytes, len) != PDK_OK) {
        box->lost = true;
        return false;
    }
    return true;
}

bool pdk_server_outbox_text(const char *text, size_t *off)
{
    if (!text)
        text = "";
    return pdk_server_outbox_keep(text, strlen(text) + 1, off);
}

pdk_captured *pdk_server_outbox_frame(pdk_captured_kind kind, uint64_t conn_id, uint32_t sub_id,
                                      const uint8_t *head, size_t head_len, const uint8_t *body,
                                      size_t body_len)
{
    pdk_captured *it = pdk_server_outbox_add(kind);
    if (!it)
        return NULL;
    it->conn_id = conn_id;
    it->sub_id = sub_id;
    it->len = head_len + body_len;
    /* The body straight after the head, where the frame reads on. */
    if (!pdk_server_outbox_keep(head, head_len, &it->off) ||
        (body_len > 0 && pdk_buf_append(&capturing->bytes, body, body_len) != PDK_OK)) {
        capturing->lost = true;
        it->kind = PDK_CAPTURED_LOST;
    }
    return it;
}
