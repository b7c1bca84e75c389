/* outq: the bounded outbound queue and its output policy, shared by every
 * transport so TCP and WebSocket connections cannot drift apart on what they
 * drop, replace or close for. */
#include "outq.h"

#include <stdlib.h>
#include <string.h>

void pdk_outq_init(pdk_outq *q, size_t head_room, bool length_prefix)
{
    memset(q, 0, sizeof *q);
    q->head_room = head_room;
    q->length_prefix = length_prefix;
}

void pdk_out_items_free(pdk_out_item *item)
{
    while (item != NULL) {
        pdk_out_item *next = item->next;
        free(item->data);
        free(item);
        item = next;
    }
}

void pdk_outq_free(pdk_outq *q)
{
    pdk_out_items_free(q->head);
    free(q->slots);
    q->head = q->tail = NULL;
    q->slots = NULL;
    q->n_slots = q->cap_slots = 0;
    q->bytes = 0;
}

size_t pdk_outq_wire_len(const pdk_outq *q, size_t len)
{
    if (!q->length_prefix) {
        return len;
    }
    uint8_t prefix[PDK_WIRE_VARINT_MAX];
    return pdk_wire_varint_put(len, prefix) + len;
}

/* Writes the message's wire form (prefix, then the message) at out. */
static void put_wire(const pdk_outq *q, uint8_t *out, const uint8_t *msg, size_t len)
{
    size_t plen = q->length_prefix ? pdk_wire_varint_put(len, out) : 0;
    memcpy(out + plen, msg, len);
}

static pdk_outq_slot *slot_find(pdk_outq *q, uint32_t key)
{
    for (size_t i = 0; i < q->n_slots; i++) {
        if (q->slots[i].key == key) {
            return &q->slots[i];
        }
    }
    return NULL;
}

static void slot_remove(pdk_outq *q, const pdk_out_item *item)
{
    for (size_t i = 0; i < q->n_slots; i++) {
        if (q->slots[i].item == item) {
            q->slots[i] = q->slots[--q->n_slots];
            return;
        }
    }
    PDK_ASSERT(!"state item without a slot");
}

static pdk_error append(pdk_outq *q, bool is_state, uint32_t key, bool text, const uint8_t *msg,
                        size_t len)
{
    size_t wire = pdk_outq_wire_len(q, len);
    if (is_state && q->n_slots == q->cap_slots) {
        size_t cap = q->cap_slots == 0 ? 4 : q->cap_slots * 2;
        pdk_outq_slot *slots = realloc(q->slots, cap * sizeof *slots);
        if (slots == NULL) {
            return PDK_ERR_NO_MEMORY;
        }
        q->slots = slots;
        q->cap_slots = cap;
    }
    pdk_out_item *item = calloc(1, sizeof *item);
    uint8_t *data = malloc(q->head_room + wire);
    if (item == NULL || data == NULL) {
        free(item);
        free(data);
        return PDK_ERR_NO_MEMORY;
    }
    put_wire(q, data + q->head_room, msg, len);
    item->data = data;
    item->len = wire;
    item->cap = wire;
    item->is_state = is_state;
    item->text = text;
    item->key = key;
    if (q->tail != NULL) {
        q->tail->next = item;
    } else {
        q->head = item;
    }
    q->tail = item;
    q->bytes += wire;
    if (is_state) {
        q->slots[q->n_slots++] = (pdk_outq_slot){key, item};
    }
    return PDK_OK;
}

pdk_error pdk_outq_push(pdk_outq *q, bool text, const uint8_t *msg, size_t len)
{
    return append(q, false, 0, text, msg, len);
}

pdk_outq_verdict pdk_outq_offer(pdk_outq *q, const pdk_net_limits *limits, size_t in_flight,
                                bool is_state, uint32_t key, bool text, const uint8_t *msg,
                                size_t len, size_t *would_be)
{
    size_t wire = pdk_outq_wire_len(q, len);
    size_t queued = q->bytes + in_flight;
    pdk_outq_slot *slot = is_state ? slot_find(q, key) : NULL;
    if (slot != NULL) {
        /* Latest wins: the older message has not left, so it never will. */
        pdk_out_item *item = slot->item;
        if (wire > item->len && queued + (wire - item->len) > limits->out_hard_bytes) {
            *would_be = queued + (wire - item->len);
            return PDK_OUTQ_OVER_HARD;
        }
        if (wire > item->cap) {
            uint8_t *data = realloc(item->data, q->head_room + wire);
            if (data == NULL) {
                return PDK_OUTQ_NO_MEMORY;
            }
            item->data = data;
            item->cap = wire;
        }
        put_wire(q, item->data + q->head_room, msg, len);
        q->bytes = q->bytes - item->len + wire;
        item->len = wire;
        item->text = text;
        return PDK_OUTQ_REPLACED;
    }
    if (is_state && queued > limits->out_soft_bytes) {
        return PDK_OUTQ_DROPPED;
    }
    if (queued + wire > limits->out_hard_bytes) {
        *would_be = queued + wire;
        return PDK_OUTQ_OVER_HARD;
    }
    return append(q, is_state, key, text, msg, len) == PDK_OK ? PDK_OUTQ_QUEUED
                                                              : PDK_OUTQ_NO_MEMORY;
}

pdk_out_item *pdk_outq_pop(pdk_outq *q)
{
    pdk_out_item *item = q->head;
    if (item == NULL) {
        return NULL;
    }
    q->head = item->next;
    if (q->head == NULL) {
        q->tail = NULL;
    }
    item->next = NULL;
    q->bytes -= item->len;
    if (item->is_state) {
        slot_remove(q, item);
    }
    return item;
}

pdk_outq_soft pdk_outq_check_soft(pdk_outq *q, const pdk_net_limits *limits, size_t queued,
                                  uint64_t now_ms)
{
    if (queued <= limits->out_soft_bytes) {
        q->over_soft = false;
        return PDK_OUTQ_SOFT_UNDER;
    }
    if (!q->over_soft) {
        q->over_soft = true;
        q->over_soft_since_ms = now_ms;
    }
    uint64_t grace_ms = (uint64_t)(limits->out_soft_seconds * 1000.0 + 0.5);
    return now_ms - q->over_soft_since_ms >= grace_ms ? PDK_OUTQ_SOFT_EXPIRED : PDK_OUTQ_SOFT_GRACE;
}
