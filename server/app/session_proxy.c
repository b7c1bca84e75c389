/* The proxies a session hosts for its connections (docs/multiplayer.md
 * "Hosting a proxy", ADR 0028): each owner's track, the pose each proxy
 * takes at a tick boundary (as an input the session queues and records),
 * the freeze and removal of a proxy whose owner went silent, and the
 * ProxyEvents and ProxyContacts its owner hears. A replay hosts nobody's
 * proxies: its recorded inputs move them. */
#include "session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hosted_proxy *pdk_session_hosted_(pdk_session *s, pdk_proxy_id id)
{
    for (size_t i = 0; i < s->n_hosted; i++)
        if (s->hosted[i].id == id)
            return &s->hosted[i];
    return NULL;
}

size_t pdk_session_conn_proxies_(const pdk_session *s, uint64_t conn_id)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_hosted; i++)
        n += s->hosted[i].conn_id == conn_id && !s->hosted[i].leaving;
    for (size_t i = 0; i < s->n_pending; i++)
        n += s->pending[i].in.kind == PDK_INPUT_PROXY_ADD &&
             (conn_id == 0 || s->pending[i].to.conn_id == conn_id);
    return n;
}

double pdk_session_sim_time_s_(const pdk_session *s)
{
    return (double)pdk_world_tick(s->world) / (double)PDK_TICK_HZ;
}

void pdk_session_proxy_event_(pdk_session *s, const hosted_proxy *h, pdk_proxy_event_kind kind,
                              const char *why)
{
    if (!s->hooks.on_proxy_event)
        return;
    pdk_proxy_event ev = {.session_id = s->id,
                          .proxy = h->id,
                          .kind = kind,
                          .reason = why,
                          .label = h->label,
                          .tick = pdk_world_tick(s->world)};
    s->hooks.on_proxy_event(s->hooks.ud, h->conn_id, &ev);
    /* Each subscribed connection once, the owner not again. */
    for (size_t i = 0; i < s->n_subs; i++) {
        uint64_t c = s->subs[i].conn_id;
        bool told = c == h->conn_id;
        for (size_t j = 0; j < i && !told; j++)
            told = s->subs[j].conn_id == c;
        if (!told)
            s->hooks.on_proxy_event(s->hooks.ud, c, &ev);
    }
}

size_t pdk_session_proxies_due_(pdk_session *s, pdk_input *out)
{
    uint64_t tick = pdk_world_tick(s->world);
    if (s->proxies_posed == tick + 1)
        return 0;
    s->proxies_posed = tick + 1;
    double t = pdk_session_sim_time_s_(s);
    size_t n = 0;
    for (size_t i = 0; i < s->n_hosted; i++) {
        hosted_proxy *h = &s->hosted[i];
        if (h->leaving)
            continue;
        pdk_proxy_silence silence = pdk_proxy_track_silence(&h->track, t);
        if (silence == PDK_PROXY_REMOVE) {
            out[n++] = (pdk_input){.kind = PDK_INPUT_PROXY_REMOVE,
                                   .proxy = h->id,
                                   .u.proxy_gone = PDK_PROXY_GONE_SILENT};
            h->leaving = true;
            continue;
        }
        if (silence == PDK_PROXY_FREEZE) {
            char why[128];
            snprintf(why, sizeof(why), "its owner sent no pose for %.1f s: it stands still",
                     PDK_PROXY_FREEZE_S);
            pdk_session_proxy_event_(s, h, PDK_PROXY_EVENT_FROZEN, why);
        }
        pdk_input in = {.kind = PDK_INPUT_PROXY_POSE, .proxy = h->id};
        pdk_proxy_track_at(&h->track, t, &in.u.proxy_pose);
        out[n++] = in;
    }
    return n;
}

void pdk_session_proxy_applied_(pdk_session *s, const pdk_pending_input *p)
{
    if (p->in.kind == PDK_INPUT_PROXY_ADD && p->to.conn_id != 0) {
        if (s->n_hosted == s->cap_hosted) {
            size_t cap = s->cap_hosted ? 2 * s->cap_hosted : 4;
            hosted_proxy *grown = realloc(s->hosted, cap * sizeof(*grown));
            if (!grown) {
                /* Not hosted: it stays where it entered, and nobody moves
                 * it; its owner's poses are refused as for a stranger's. */
                return;
            }
            s->hosted = grown;
            s->cap_hosted = cap;
        }
        hosted_proxy *h = &s->hosted[s->n_hosted++];
        memset(h, 0, sizeof(*h));
        h->id = p->in.proxy;
        h->conn_id = p->to.conn_id;
        snprintf(h->label, sizeof(h->label), "%s", p->in.u.proxy_add.label);
        pdk_proxy_track_start(&h->track, p->in.u.proxy_add.owner_ns, &p->in.u.proxy_add.pose,
                              pdk_session_sim_time_s_(s));
        return;
    }
    if (p->in.kind != PDK_INPUT_PROXY_REMOVE)
        return;
    hosted_proxy *h = pdk_session_hosted_(s, p->in.proxy);
    if (!h)
        return;
    char why[128];
    switch (p->in.u.proxy_gone) {
    case PDK_PROXY_GONE_SILENT:
        snprintf(why, sizeof(why), "its owner sent no pose for %.1f s", PDK_PROXY_REMOVE_S);
        break;
    case PDK_PROXY_GONE_CLOSED:
        snprintf(why, sizeof(why), "its owner's connection closed");
        break;
    default:
        snprintf(why, sizeof(why), "its owner removed it");
        break;
    }
    pdk_session_proxy_event_(s, h, PDK_PROXY_EVENT_REMOVED, why);
    *h = s->hosted[--s->n_hosted];
}

void pdk_session_proxy_stepped_(pdk_session *s)
{
    for (size_t i = 0; i < s->n_hosted; i++)
        s->hosted[i].poses_this_tick = 0;
    if (s->n_hosted == 0 || !s->hooks.on_proxy_contact)
        return;
    int count = 0;
    const pdk_contact_event *ev = pdk_world_contact_events(s->world, &count, NULL);
    for (size_t i = 0; i < s->n_hosted; i++) {
        const hosted_proxy *h = &s->hosted[i];
        pdk_proxy_impulse imp[PDK_SESSION_MAX_PROXY_IMPULSES];
        size_t n = 0;
        for (int k = 0; k < count && n < PDK_SESSION_MAX_PROXY_IMPULSES; k++) {
            const pdk_contact_event *e = &ev[k];
            bool is_a = e->a_kind == PDK_CONTACT_BODY_PROXY && e->a_id == h->id;
            bool is_b = e->b_kind == PDK_CONTACT_BODY_PROXY && e->b_id == h->id;
            if (!is_a && !is_b)
                continue;
            /* The event's impulse is on b and its normal points from a to
             * b, that is into b: for a, both turn round. */
            double sign = is_b ? 1.0 : -1.0;
            uint32_t other_kind = is_b ? e->a_kind : e->b_kind;
            uint32_t other_id = is_b ? e->a_id : e->b_id;
            pdk_proxy_impulse *o = &imp[n++];
            memset(o, 0, sizeof(*o));
            if (other_kind == PDK_CONTACT_BODY_VEHICLE)
                o->other_vehicle = other_id;
            else
                o->other_proxy = other_id;
            for (int j = 0; j < 3; j++) {
                o->point_m[j] = e->point_m[j];
                o->normal[j] = sign * e->normal[j];
                o->impulse_ns[j] = sign * e->impulse_ns[j];
            }
        }
        if (n > 0)
            s->hooks.on_proxy_contact(s->hooks.ud, h->conn_id, s->id, h->id,
                                      pdk_world_tick(s->world), imp, n);
    }
}
