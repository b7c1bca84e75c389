/* The stats stream: SessionStats frames at each subscription's rate from
 * one timer, and the subscriptions' ends when their connection or session
 * goes. */
#include "server_internal.h"
#include "server_request.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ull
#define STATS_DEFAULT_HZ 10u
#define STATS_MAX_HZ 60u

/* ---- the stats stream ------------------------------------------------------ */

static void arm_stats_timer(pdk_server_stats *st)
{
    if (st->n == 0 || *st->stopping) {
        uv_timer_stop(&st->timer);
        return;
    }
    uint64_t next = st->subs[0].due_ns;
    for (size_t i = 1; i < st->n; i++)
        if (st->subs[i].due_ns < next)
            next = st->subs[i].due_ns;
    uint64_t now = uv_hrtime();
    uint64_t ms = next > now ? (next - now + NS_PER_MS - 1) / NS_PER_MS : 0;
    uv_update_time(st->timer.loop);
    uv_timer_start(&st->timer, pdk_server_on_stats_timer, ms, 0);
}

static void send_stats(pdk_server *srv, pdk_server_conn *c, pdk_stats_sub *sub,
                       pdk_server_slot *slot, uint64_t now)
{
    Paddock__V1__SessionInfo info;
    Paddock__V1__TickParts parts;
    pdk_server_fill_info(&srv->sched, slot, &info, &parts);
    pdk_store_stats ws;
    pdk_store_stats_get(srv->store, &ws);
    Paddock__V1__SessionStats st = PADDOCK__V1__SESSION_STATS__INIT;
    st.subscription_id = sub->sub_id;
    st.session_id = slot->id;
    st.tick = info.tick;
    st.sim_time_s = info.sim_time_s;
    if (now > sub->last_ns)
        st.real_time_factor =
            (info.sim_time_s - sub->last_sim_s) / ((double)(now - sub->last_ns) / 1e9);
    sub->last_ns = now;
    sub->last_sim_s = info.sim_time_s;
    st.paused = info.paused;
    st.pause_reason = info.pause_reason;
    st.timing = info.timing;
    st.timing_reason = info.timing_reason;
    st.step_lease_conn = slot->lease.conn_id;
    st.step_lease_holder = slot->lease.conn_id ? slot->lease.holder : (char *)"";
    if (slot->lease.conn_id)
        st.step_lease_left_ms = slot->steps.owed ? (double)slot->lease.deadline_ms
                                : slot->lease.expires_ns > now
                                    ? (double)(slot->lease.expires_ns - now) / 1e6
                                    : 0.0;
    st.overruns = info.overruns;
    st.skipped_ticks = info.skipped_ticks;
    st.writer_queued = ws.queued;
    st.replay_of = slot->replay.of;
    if (slot->replay.player) {
        st.speed = slot->replay.speed;
        if (!slot->worker.busy) {
            st.replay_end_tick = pdk_player_end_tick(slot->replay.player);
            st.diverged_tick = pdk_player_diverged(slot->replay.player);
        }
    }
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_STATS;
    f.session_stats = &st;
    pdk_buf_reset(&srv->out);
    if (pdk_wire_frame_append(&srv->out, &f) == PDK_OK)
        /* Latest wins: a reader too slow for its stats loses old ones. The
         * key is the subscription's id, unique on the connection. */
        pdk_conn_send_state(c->conn, sub->sub_id, srv->out.data, srv->out.len);
}

void pdk_server_on_stats_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    uint64_t now = uv_hrtime();
    for (size_t i = 0; i < srv->stats.n; i++) {
        pdk_stats_sub *sub = &srv->stats.subs[i];
        if (sub->due_ns > now)
            continue;
        pdk_server_conn *c = pdk_server_conn_find(srv, sub->conn_id);
        pdk_server_slot *slot = pdk_server_session_find(&srv->table, sub->session_id);
        if (c && slot)
            send_stats(srv, c, sub, slot, now);
        sub->due_ns += sub->period_ns;
        if (sub->due_ns <= now)
            sub->due_ns = now + sub->period_ns;
    }
    arm_stats_timer(&srv->stats);
}

static void pdk_server_handle_stats_subscribe(const pdk_request *rq)
{
    pdk_server_stats *st = rq->stats;
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__StatsSubscribe *m = f->stats_subscribe;
    pdk_server_slot *slot = pdk_server_session_find(rq->table, m->session_id);
    if (!slot) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_NOT_FOUND,
                          "session %" PRIu64 " does not exist", m->session_id);
        return;
    }
    uint32_t hz = m->rate_hz ? m->rate_hz : STATS_DEFAULT_HZ;
    if (hz > STATS_MAX_HZ) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_OUT_OF_RANGE,
                          "rate_hz %u is outside 1..%u (0: %u)", hz, STATS_MAX_HZ,
                          STATS_DEFAULT_HZ);
        return;
    }
    if (!pdk_server_sub_room(rq->out, c, f->request_id))
        return;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 8;
        pdk_stats_sub *p = realloc(st->subs, cap * sizeof(*p));
        if (!p) {
            pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
            return;
        }
        st->subs = p;
        st->cap = cap;
    }
    uint64_t now = uv_hrtime();
    pdk_stats_sub *sub = &st->subs[st->n++];
    sub->conn_id = c->id;
    sub->sub_id = ++c->last_sub_id;
    sub->session_id = slot->id;
    sub->period_ns = PDK_SERVER_NS_PER_S / hz;
    sub->due_ns = now + sub->period_ns;
    sub->last_ns = now;
    sub->last_sim_s = slot->worker.busy ? slot->worker.view.sim_time_s
                                        : pdk_world_time_s(pdk_session_world(slot->session));
    c->n_subs++;
    Paddock__V1__Subscribed sd = PADDOCK__V1__SUBSCRIBED__INIT;
    sd.subscription_id = sub->sub_id;
    sd.rate_hz = hz;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBED;
    r.subscribed = &sd;
    pdk_server_send_frame(rq->out, c->conn, &r);
    arm_stats_timer(st);
}

bool pdk_server_stats_unsubscribe(pdk_server_stats *st, uint64_t conn_id, uint32_t sub_id)
{
    for (size_t i = 0; i < st->n; i++) {
        if (st->subs[i].conn_id == conn_id && st->subs[i].sub_id == sub_id) {
            st->subs[i] = st->subs[--st->n];
            arm_stats_timer(st);
            return true;
        }
    }
    return false;
}

void pdk_server_stats_forget_conn(pdk_server *srv, uint64_t conn_id)
{
    for (size_t i = 0; i < srv->stats.n;) {
        if (srv->stats.subs[i].conn_id == conn_id)
            srv->stats.subs[i] = srv->stats.subs[--srv->stats.n];
        else
            i++;
    }
    arm_stats_timer(&srv->stats);
}

void pdk_server_stats_forget_session(pdk_server *srv, const pdk_server_slot *slot)
{
    for (size_t i = 0; i < srv->stats.n;) {
        pdk_stats_sub *sub = &srv->stats.subs[i];
        if (sub->session_id != slot->id) {
            i++;
            continue;
        }
        pdk_server_conn *c = pdk_server_conn_find(srv, sub->conn_id);
        if (c) {
            char msg[160];
            snprintf(msg, sizeof(msg), "subscription %u ended: session %" PRIu64 " closed",
                     sub->sub_id, slot->id);
            c->n_subs--;
            pdk_server_send_error(&srv->out, c->conn, 0, PDK_ERR_CLOSED, msg);
        }
        *sub = srv->stats.subs[--srv->stats.n];
    }
    arm_stats_timer(&srv->stats);
}

/* This file's requests (server.c dispatches them). */
const pdk_server_request pdk_server_stats_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_STATS_SUBSCRIBE,
     .handle = pdk_server_handle_stats_subscribe,
     .needs = PDK_NEEDS_READ},
    {0},
};
