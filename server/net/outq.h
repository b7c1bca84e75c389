/* outq: the bounded outbound queue every transport of net keeps per
 * connection, private to net. It holds whole messages not yet handed to the
 * kernel or the WebSocket library, each already in its wire form (TCP's
 * varint prefix in front, or nothing), with room reserved before it when the
 * transport needs some (libwebsockets' LWS_PRE). It applies the one output
 * policy: a send that would pass out_hard_bytes closes the connection, a
 * state message replaces the one still queued under its key (latest wins) or
 * is dropped above out_soft_bytes, and a queue above out_soft_bytes for
 * out_soft_seconds without a break closes the connection (Redis' client
 * output buffer limits). The transport adds what it has handed on and not
 * yet written (in_flight) to what the queue holds. */
#ifndef PDK_OUTQ_H
#define PDK_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* One queued message. data holds head_room bytes, then len wire bytes. */
typedef struct pdk_out_item {
    struct pdk_out_item *next;
    uint8_t *data;
    size_t len; /* wire bytes, what the limits count */
    size_t cap; /* wire bytes allocated after head_room */
    bool is_state;
    bool text; /* a WebSocket text message (binary otherwise) */
    uint32_t key;
} pdk_out_item;

typedef struct pdk_outq_slot {
    uint32_t key;
    pdk_out_item *item;
} pdk_outq_slot;

typedef struct pdk_outq {
    size_t head_room;   /* bytes reserved before each message's wire bytes */
    bool length_prefix; /* a varint length in front of each message (TCP) */
    pdk_out_item *head;
    pdk_out_item *tail;
    size_t bytes; /* wire bytes queued */
    pdk_outq_slot *slots;
    size_t n_slots;
    size_t cap_slots;
    bool over_soft;
    uint64_t over_soft_since_ms;
} pdk_outq;

/* What pdk_outq_offer did with a message. */
typedef enum pdk_outq_verdict {
    PDK_OUTQ_QUEUED,    /* appended */
    PDK_OUTQ_REPLACED,  /* a state message took the place of the one under its key */
    PDK_OUTQ_DROPPED,   /* a state message dropped above the soft limit */
    PDK_OUTQ_OVER_HARD, /* refused: the queue would pass out_hard_bytes; close the conn */
    PDK_OUTQ_NO_MEMORY,
} pdk_outq_verdict;

/* An empty queue (zeroed, then the two framing choices). */
void pdk_outq_init(pdk_outq *q, size_t head_room, bool length_prefix);

/* Frees every queued message. */
void pdk_outq_free(pdk_outq *q);

/* The wire bytes a message of len bytes takes. */
size_t pdk_outq_wire_len(const pdk_outq *q, size_t len);

/* Applies the output policy to one message of len bytes (is_state: latest
 * wins under key). in_flight is what the transport holds beyond the queue.
 * On PDK_OUTQ_OVER_HARD *would_be is the size the queue would have reached,
 * for the message that closes the connection. */
pdk_outq_verdict pdk_outq_offer(pdk_outq *q, const pdk_net_limits *limits, size_t in_flight,
                                bool is_state, uint32_t key, bool text, const uint8_t *msg,
                                size_t len, size_t *would_be);

/* Appends a message whatever the limits say (a closing conn's last Error). */
pdk_error pdk_outq_push(pdk_outq *q, bool text, const uint8_t *msg, size_t len);

/* Detaches the first message (NULL when empty); the caller frees it with
 * pdk_out_items_free once written. It can no longer be replaced. */
pdk_out_item *pdk_outq_pop(pdk_outq *q);

/* Frees a list of items linked by next. Accepts NULL. */
void pdk_out_items_free(pdk_out_item *item);

/* Where an item's wire bytes start. */
static inline uint8_t *pdk_out_item_wire(const pdk_outq *q, const pdk_out_item *item)
{
    return item->data + q->head_room;
}

/* The soft limit over time, for a queue of queued bytes (in_flight
 * included) at now_ms: under it (the clock restarts), over it and still in
 * grace (call again later: the transport keeps a timer running), or over it
 * for out_soft_seconds, when the transport closes the conn. */
typedef enum pdk_outq_soft {
    PDK_OUTQ_SOFT_UNDER,
    PDK_OUTQ_SOFT_GRACE,
    PDK_OUTQ_SOFT_EXPIRED,
} pdk_outq_soft;
pdk_outq_soft pdk_outq_check_soft(pdk_outq *q, const pdk_net_limits *limits, size_t queued,
                                  uint64_t now_ms);

#endif
