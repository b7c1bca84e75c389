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

/* The slot a vehicle id names (its low 16 bits are the slot + 1, sim/world.h). */
static size_t id_slot(pdk_vehicle_id id)
{
    return (size_t)(id & 0xFFFFu);
}

/* id's entry in the lease index, or NULL when none of its leases is held. */
static const lease_slot *leases_of(const pdk_session *s, pdk_vehicle_id id)
{
    size_t k = id_slot(id);
    if (k >= s->n_lease_index || s->lease_index[k].vehicle != id)
        return NULL;
    return &s->lease_index[k];
}

static lease *lease_find(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src)
{
    const lease_slot *e = leases_of(s, id);
    if (!e || src < PDK_SOURCE_DRIVER || src > PDK_SOURCE_AI || e->at[src - 1] < 0)
        return NULL;
    return &s->leases[e->at[src - 1]];
}

/* Removes lease i, the last one taking its place. */
static void lease_drop(pdk_session *s, size_t i)
{
    const lease *l = &s->leases[i];
    s->lease_index[id_slot(l->vehicle)].at[l->source - 1] = -1;
    size_t last = --s->n_leases;
    if (i != last) {
        s->leases[i] = s->leases[last];
        const lease *m = &s->leases[i];
        s->lease_index[id_slot(m->vehicle)].at[m->source - 1] = (int32_t)i;
    }
}

/* The indices in leases of id's leases, in their order there; how many. */
static int leases_in_order(const pdk_session *s, pdk_vehicle_id id, size_t out[3])
{
    const lease_slot *e = leases_of(s, id);
    int n = 0;
    for (int k = 0; e && k < 3; k++) {
        if (e->at[k] < 0)
            continue;
        size_t at = (size_t)e->at[k];
        int j = n++;
        for (; j > 0 && out[j - 1] > at; j--)
            out[j] = out[j - 1];
        out[j] = at;
    }
    return n;
}

/* id's entry, made (with room for the world's every slot) when it has none;
 * NULL when out of memory. */
static lease_slot *leases_made(pdk_session *s, pdk_vehicle_id id)
{
    size_t k = id_slot(id);
    if (k >= s->n_lease_index) {
        size_t n = (size_t)pdk_world_def_get(s->world)->max_vehicles + 1u;
        n = n > k ? n : k + 1u;
        lease_slot *p = realloc(s->lease_index, n * sizeof(*p));
        if (!p)
            return NULL;
        for (size_t i = s->n_lease_index; i < n; i++)
            p[i] = (lease_slot){.vehicle = 0, .at = {-1, -1, -1}};
        s->lease_index = p;
        s->n_lease_index = n;
    }
    lease_slot *e = &s->lease_index[k];
    if (e->vehicle != id) {
        /* The slot holds id now: its earlier vehicle is gone, and went with
         * its leases (drop_vehicle_leases_). Should one be left, it is
         * stale and goes too, from the last (see drop_vehicle_leases_). */
        size_t at[3];
        int n = leases_in_order(s, e->vehicle, at);
        while (n > 0)
            lease_drop(s, at[--n]);
        *e = (lease_slot){.vehicle = id, .at = {-1, -1, -1}};
    }
    return e;
}

static bool script_drives(const pdk_session *s, pdk_vehicle_id id)
{
    for (size_t i = 0; i < s->n_scripts; i++)
        if (s->scripts[i].vehicle == id)
            return true;
    return false;
}

/* The highest lease on id above src held by a connection other than
 * except_conn, or NULL. */
static const lease *lease_above(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                uint64_t except_conn)
{
    const lease_slot *e = leases_of(s, id);
    for (int k = 0; e && k + 1 < (int)src && k < 3; k++)
        if (e->at[k] >= 0 && s->leases[e->at[k]].conn_id != except_conn)
            return &s->leases[e->at[k]];
    return NULL;
}

bool pdk_session_conn_lease_above_(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                   uint64_t except_conn)
{
    return lease_above(s, id, src, except_conn) != NULL;
}

pdk_control_source pdk_session_active_source(const pdk_session *s, pdk_vehicle_id id)
{
    /* Sources rank DRIVER (1) over AUTONOMY over AI: the lowest held wins. */
    const lease_slot *e = leases_of(s, id);
    for (int k = 0; e && k < 3; k++)
        if (e->at[k] >= 0)
            return (pdk_control_source)(k + 1);
    return script_drives(s, id) ? PDK_SOURCE_AI : PDK_SOURCE_NONE;
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
    size_t at[3];
    int n = leases_in_order(s, id, at);
    for (int i = 0; i < n; i++) {
        const lease *l = &s->leases[at[i]];
        if (l->conn_id == except_conn)
            continue;
        bool seen = false;
        for (int k = 0; k < i; k++)
            if (s->leases[at[k]].conn_id == l->conn_id)
                seen = true;
        if (seen)
            continue;
        /* The connection's highest source on the vehicle. */
        pdk_control_source mine = l->source;
        for (int k = i + 1; k < n; k++)
            if (s->leases[at[k]].conn_id == l->conn_id && s->leases[at[k]].source < mine)
                mine = s->leases[at[k]].source;
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
    lease_slot *e = leases_made(s, id);
    if (e && s->n_leases == s->cap_leases) {
        size_t cap = s->cap_leases ? s->cap_leases * 2 : 8;
        lease *p = realloc(s->leases, cap * sizeof(*p));
        e = p ? e : NULL;
        if (p) {
            s->leases = p;
            s->cap_leases = cap;
        }
    }
    if (!e) {
        snprintf(why, why_len, "out of memory");
        return PDK_ERR_NO_MEMORY;
    }
    pdk_control_source before = pdk_session_active_source(s, id);
    e->at[src - 1] = (int32_t)s->n_leases;
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
    lease_drop(s, i);
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
    size_t at[3];
    int n = leases_in_order(s, id, at);
    /* From the last: a drop moves only the array's last lease, which is
     * then none of these still to drop (they lie below it). */
    while (n > 0)
        lease_drop(s, at[--n]);
}

pdk_error pdk_session_lease_command(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, const char *holder, char *why, size_t why_len)
{
    if (pdk_world_dbw_state(s->world, id) == NULL)
        return PDK_OK; /* refused with STALE_ID when it applies */
    /* Pre-empted first, so a refused command takes no lease. */
    const lease *above = lease_above(s, id, src, conn_id);
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
