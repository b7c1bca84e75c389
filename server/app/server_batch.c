/* Batch requests' replies. A VehicleSpawnBatch or DbwCommandBatch queues
 * each entry as an input of its own (recorded as its single request's
 * would be), with 1 + its index in pdk_reply_to.batch; the entries' results
 * are gathered here, per request on its connection, and answered once,
 * when the last has applied: the vehicles spawned or Ok, or an Error that
 * names the first entry refused and says what became of the rest. */
#include "server_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pdk_error pdk_server_batch_open(pdk_server_conn *c, uint64_t rid, int kind, uint32_t n)
{
    if (c->n_batches == c->cap_batches) {
        size_t cap = c->cap_batches ? c->cap_batches * 2 : 4;
        pdk_server_batch *p = realloc(c->batches, cap * sizeof(*p));
        if (!p)
            return PDK_ERR_NO_MEMORY;
        c->batches = p;
        c->cap_batches = cap;
    }
    pdk_server_batch b = {.request_id = rid, .kind = kind, .n = n};
    if (kind == PDK_INPUT_SPAWN && !(b.ids = calloc(n, sizeof(*b.ids))))
        return PDK_ERR_NO_MEMORY;
    c->batches[c->n_batches++] = b;
    return PDK_OK;
}

static void reply(pdk_buf *out, pdk_server_conn *c, const pdk_server_batch *b)
{
    if (b->failed > 0) {
        char msg[384];
        const char *entries = b->kind == PDK_INPUT_SPAWN ? "spawns" : "commands";
        if (b->failed == b->n)
            snprintf(msg, sizeof(msg),
                     "%s[%" PRIu32 "] was refused when it applied at tick %" PRIu64
                     ": %s; all %" PRIu32 " of the batch's entries were refused",
                     entries, b->first_failed, b->tick, b->why, b->n);
        else
            snprintf(msg, sizeof(msg),
                     "%s[%" PRIu32 "] was refused when it applied at tick %" PRIu64 ": %s; %" PRIu32
                     " of the batch's %" PRIu32 " entries were refused, the others applied",
                     entries, b->first_failed, b->tick, b->why, b->failed, b->n);
        pdk_server_send_error(out, c->conn, b->request_id, (pdk_error)b->err, msg);
        return;
    }
    if (b->kind != PDK_INPUT_SPAWN) {
        pdk_server_send_ok(out, c->conn, b->request_id, b->tick);
        return;
    }
    Paddock__V1__VehicleSpawnBatchReply r = PADDOCK__V1__VEHICLE_SPAWN_BATCH_REPLY__INIT;
    r.tick = b->tick;
    r.n_vehicle_ids = b->n;
    r.vehicle_ids = b->ids;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = b->request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH_REPLY;
    f.vehicle_spawn_batch_reply = &r;
    pdk_server_send_frame(out, c->conn, &f);
}

void pdk_server_batch_result(pdk_buf *out, pdk_server_conn *c, pdk_reply_to to,
                             const pdk_input_result *res)
{
    size_t i = 0;
    while (i < c->n_batches && c->batches[i].request_id != to.request_id)
        i++;
    /* Opened before its entries were queued. A request id used again by
     * a later batch finds the earlier one first, whose entries come first:
     * the batches are kept in the order they opened. */
    PDK_ASSERT(i < c->n_batches);
    pdk_server_batch *b = &c->batches[i];
    uint32_t entry = to.batch - 1;
    PDK_ASSERT(entry < b->n);
    b->tick = res->tick;
    if (res->err != PDK_OK && b->failed++ == 0) {
        b->first_failed = entry;
        b->err = res->err;
        snprintf(b->why, sizeof(b->why), "%s", res->message ? res->message : "");
    } else if (res->err == PDK_OK && b->ids) {
        b->ids[entry] = res->vehicle;
    }
    if (++b->done < b->n)
        return;
    reply(out, c, b);
    free(b->ids);
    memmove(&c->batches[i], &c->batches[i + 1], (c->n_batches - i - 1) * sizeof(*b));
    c->n_batches--;
}

void pdk_server_batch_free_all(pdk_server_conn *c)
{
    for (size_t i = 0; i < c->n_batches; i++)
        free(c->batches[i].ids);
    free(c->batches);
    c->batches = NULL;
    c->n_batches = c->cap_batches = 0;
}
