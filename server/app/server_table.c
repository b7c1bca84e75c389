/* The session table's lookups: a session by id, its tick, and the error
 * reply that says why a request may not have it (it does not exist, a
 * worker owns it, it is a replay, it is paused at a limit); and queued
 * inputs applied at once on a session that will not tick soon. Calls
 * nothing of the server but sending. */
#include "server_table.h"

#include <inttypes.h>
#include <stdio.h>

pdk_server_slot *pdk_server_session_find(pdk_server_table *table, uint64_t id)
{
    for (size_t i = 0; i < table->n; i++)
        if (table->items[i].id == id)
            return &table->items[i];
    return NULL;
}

uint64_t pdk_server_slot_tick(const pdk_server_slot *slot)
{
    return slot->worker.busy ? slot->worker.view.tick
                             : pdk_world_tick(pdk_session_world(slot->session));
}

pdk_server_slot *pdk_server_need_session(pdk_server_table *table, pdk_buf *out, pdk_conn *conn,
                                         uint64_t rid, uint64_t id)
{
    pdk_server_slot *slot = pdk_server_session_find(table, id);
    char msg[160];
    if (!slot) {
        snprintf(msg, sizeof(msg), "session %" PRIu64 " does not exist", id);
        pdk_server_send_error(out, conn, rid, PDK_ERR_NOT_FOUND, msg);
        return NULL;
    }
    if (slot->worker.busy) {
        snprintf(msg, sizeof(msg),
                 "session %" PRIu64 " is a replay seeking a tick; ask again once the seek is "
                 "answered",
                 id);
        pdk_server_send_error(out, conn, rid, PDK_ERR_BUSY, msg);
        return NULL;
    }
    return slot;
}

bool pdk_server_refuse_replay(pdk_buf *out, pdk_conn *conn, uint64_t rid,
                              const pdk_server_slot *slot)
{
    if (!slot->replay.player)
        return false;
    char msg[160];
    snprintf(msg, sizeof(msg),
             "session %" PRIu64 " is a replay of session %" PRIu64
             " and takes no commands; fork it to drive",
             slot->id, slot->replay.of);
    pdk_server_send_error(out, conn, rid, PDK_ERR_UNSUPPORTED, msg);
    return true;
}

/* A session that takes inputs: it exists, is not a replay and is not paused
 * at the fast-tick limit (which would hold the input, and its reply, for
 * ever). A session paused otherwise takes them at once. */
pdk_server_slot *pdk_server_need_live_session(pdk_server_table *table, pdk_buf *out, pdk_conn *conn,
                                              uint64_t rid, uint64_t id)
{
    pdk_server_slot *slot = pdk_server_need_session(table, out, conn, rid, id);
    if (!slot || pdk_server_refuse_replay(out, conn, rid, slot))
        return NULL;
    if (slot->sched.pause == PDK_PAUSE_LIMIT) {
        char msg[256];
        snprintf(msg, sizeof(msg), "session %" PRIu64 " is paused and takes no inputs: %s", id,
                 slot->sched.pause_reason);
        pdk_server_send_error(out, conn, rid, PDK_ERR_CLOSED, msg);
        return NULL;
    }
    return slot;
}

void pdk_server_settle_inputs(pdk_server_slot *slot)
{
    if (slot->worker.busy || slot->replay.player || slot->sched.pause == PDK_PAUSE_LIMIT ||
        slot->steps.owed)
        return;
    if (slot->sched.pause != PDK_PAUSE_NONE || slot->sched.timing == PDK_TIMING_LOCKSTEP)
        pdk_session_apply_inputs(slot->session);
}
