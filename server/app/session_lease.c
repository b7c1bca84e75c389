/* A session's control leases: per vehicle, each source's lease held by at
 * most one connection (or a drive script, for AI), the active source, and
 * who hears when a vehicle changes hands (session.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

const char *pdk_control_source_name(int source)
{
    switch (source) {
    case PDK_SOURCE_DRIVER:
        return "DRIVER";
    case PDK_SOURCE_AUTONOMY:
        return "AUTONOMY";
    case PDK_SOURCE_AI:
        return "AI";
    default:
        return "NONE";
    }
}

static bool source_ok(pdk_control_source src)
{
    return src == PDK_SOURCE_DRIVER || src == PDK_SOURCE_AUTONOMY || src == PDK_SOURCE_AI;
}

static lease *lease_find(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src)
{
    for (size_t i = 0; i < s->n_leases; i++)
        if (s->leases[i].vehicle == id && s->leases[i].source == src)
            return &s->leases[i];
    return NULL;
}

static bool script_drives(const pdk_session *s, pdk_vehicle_id id)
{
    for (size_t i = 0; i < s->n_scripts; i++)
        if (s->scripts[i].vehicle == id)
            return true;
    return false;
}

bool pdk_session_conn_lease_above_(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                   uint64_t except_conn)
{
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && l->source < src && l->conn_id != except_conn)
            return true;
    }
    return false;
}

pdk_control_source pdk_session_active_source(const pdk_session *s, pdk_vehicle_id id)
{
    pdk_control_source best = script_drives(s, id) ? PDK_SOURCE_AI : PDK_SOURCE_NONE;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && (best == PDK_SOURCE_NONE || l->source < best))
            best = l->source;
    }
    return best;
}

uint64_t pdk_session_lease_holder(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src)
{
    const lease *l = lease_find(s, id, src);
    return l ? l->conn_id : 0;
}

/* Tells every holder on id but except_conn (each connection once) that the
 * active source is now active; a holder below it hears which of its
 * sources was pre-empted when preempting. */
static void tell_holders(pdk_session *s, pdk_vehicle_id id, uint64_t except_conn,
                         pdk_control_source active, bool preempting, const char *reason)
{
    if (!s->hooks.on_control)
        return;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle != id || l->conn_id == except_conn)
            continue;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            if (s->leases[k].vehicle == id && s->leases[k].conn_id == l->conn_id)
                seen = true;
        if (seen)
            continue;
        /* The connection's highest source on the vehicle. */
        pdk_control_source mine = l->source;
        for (size_t k = i + 1; k < s->n_leases; k++)
            if (s->leases[k].vehicle == id && s->leases[k].conn_id == l->conn_id &&
                s->leases[k].source < mine)
                mine = s->leases[k].source;
        pdk_control_event ev = {
            .session_id = s->id,
            .vehicle = id,
            .active = active,
            .preempted = preempting && mine > active ? mine : PDK_SOURCE_NONE,
            .reason = reason,
            .tick = pdk_world_tick(s->world),
        };
        s->hooks.on_control(s->hooks.ud, l->conn_id, &ev);
    }
}

pdk_error pdk_session_lease_take(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                 uint64_t conn_id, const char *holder, char *why, size_t why_len)
{
    if (!source_ok(src)) {
        snprintf(why, why_len, "source %d is not a control source (1 DRIVER, 2 AUTONOMY, 3 AI)",
                 (int)src);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_world_dbw_state(s->world, id) == NULL) {
        snprintf(why, why_len, "vehicle %u is not in session %llu", id, (unsigned long long)s->id);
        return PDK_ERR_STALE_ID;
    }
    lease *l = lease_find(s, id, src);
    if (l && l->conn_id == conn_id)
        return PDK_OK;
    if (l) {
        snprintf(why, why_len, "the %s lease on vehicle %u is held by %s",
                 pdk_control_source_name(src), id, l->holder);
        return PDK_ERR_BUSY;
    }
    if (src == PDK_SOURCE_AI && script_drives(s, id)) {
        snprintf(why, why_len,
                 "the AI lease on vehicle %u is held by a drive script attached to session %llu",
                 id, (unsigned long long)s->id);
        return PDK_ERR_BUSY;
    }
    if (s->n_leases == s->cap_leases) {
        size_t cap = s->cap_leases ? s->cap_leases * 2 : 8;
        lease *p = realloc(s->leases, cap * sizeof(*p));
        if (!p) {
            snprintf(why, why_len, "out of memory");
            return PDK_ERR_NO_MEMORY;
        }
        s->leases = p;
        s->cap_leases = cap;
    }
    pdk_control_source before = pdk_session_active_source(s, id);
    l = &s->leases[s->n_leases++];
    l->vehicle = id;
    l->source = src;
    l->conn_id = conn_id;
    snprintf(l->holder, sizeof(l->holder), "%s", holder ? holder : "a client");
    if (before != PDK_SOURCE_NONE && src < before) {
        char reason[160];
        snprintf(reason, sizeof(reason), "%s took the %s lease on vehicle %u", l->holder,
                 pdk_control_source_name(src), id);
        tell_holders(s, id, conn_id, src, true, reason);
    }
    return PDK_OK;
}

/* Removes lease i; when that lowers the vehicle's active source, the
 * remaining holders but except_conn (a connection that is going away) hear
 * why. */
static void lease_remove(pdk_session *s, size_t i, const char *what, uint64_t except_conn)
{
    pdk_vehicle_id id = s->leases[i].vehicle;
    pdk_control_source before = pdk_session_active_source(s, id);
    char reason[192];
    snprintf(reason, sizeof(reason), "%s %s the %s lease on vehicle %u", s->leases[i].holder, what,
             pdk_control_source_name(s->leases[i].source), id);
    s->leases[i] = s->leases[--s->n_leases];
    pdk_control_source after = pdk_session_active_source(s, id);
    if (after != before)
        tell_holders(s, id, except_conn, after, false, reason);
}

pdk_error pdk_session_lease_release(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, char *why, size_t why_len)
{
    if (!source_ok(src)) {
        snprintf(why, why_len, "source %d is not a control source (1 DRIVER, 2 AUTONOMY, 3 AI)",
                 (int)src);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    lease *l = lease_find(s, id, src);
    if (!l || l->conn_id != conn_id) {
        snprintf(why, why_len, "this connection does not hold the %s lease on vehicle %u",
                 pdk_control_source_name(src), id);
        return PDK_ERR_NOT_FOUND;
    }
    lease_remove(s, (size_t)(l - s->leases), "released", conn_id);
    return PDK_OK;
}

void pdk_session_release_conn_leases_(pdk_session *s, uint64_t conn_id)
{
    for (size_t i = 0; i < s->n_leases;) {
        if (s->leases[i].conn_id == conn_id)
            lease_remove(s, i, "disconnected, releasing", conn_id);
        else
            i++;
    }
}

void pdk_session_drop_vehicle_leases_(pdk_session *s, pdk_vehicle_id id, const char *reason)
{
    tell_holders(s, id, 0, PDK_SOURCE_NONE, true, reason);
    for (size_t i = 0; i < s->n_leases;) {
        if (s->leases[i].vehicle == id)
            s->leases[i] = s->leases[--s->n_leases];
        else
            i++;
    }
}

pdk_error pdk_session_lease_command(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, const char *holder, char *why, size_t why_len)
{
    if (pdk_world_dbw_state(s->world, id) == NULL)
        return PDK_OK; /* refused with STALE_ID when it applies */
    /* Pre-empted first, so a refused command takes no lease. */
    const lease *above = NULL;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && l->source < src && l->conn_id != conn_id &&
            (above == NULL || l->source < above->source))
            above = l;
    }
    if (above) {
        snprintf(why, why_len,
                 "vehicle %u is driven by its %s lease, held by %s: %s commands are refused "
                 "until it is released",
                 id, pdk_control_source_name(above->source), above->holder,
                 pdk_control_source_name(src));
        return PDK_ERR_BUSY;
    }
    return pdk_session_lease_take(s, id, src, conn_id, holder, why, why_len);
}
