/* Session control requests: pause, resume, step, run_to_tick, reset,
 * reseed, timing, taking a lockstep session's step lease, a replay's seek
 * and speed. The lease's deadline and owed steps are the scheduler's
 * (server_sched.c). Pauses, timing and leases are not inputs: they change
 * when ticks happen, never what a tick computes (ADR 0012). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_internal.h"
#include "server_request.h"

/* The requester must hold a lockstep session's step lease; else a reply
 * naming who does (BUSY) or that nobody does (NOT_FOUND). */
static bool holds_lease(pdk_server *srv, pdk_server_conn *c, uint64_t rid,
                        const pdk_server_slot *slot)
{
    if (slot->lease.conn_id == c->id)
        return true;
    if (slot->lease.conn_id != 0)
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "the step lease of session %" PRIu64 " is held by %s", slot->id,
                          slot->lease.holder);
    else
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_NOT_FOUND,
                          "%s does not hold the step lease of lockstep session %" PRIu64
                          " (nobody does): take it first (take_step_lease)%s%s",
                          c->holder, slot->id, slot->sched.pause == PDK_PAUSE_LEASE ? "; " : "",
                          slot->sched.pause == PDK_PAUSE_LEASE ? slot->sched.pause_reason : "");
    return false;
}

static void take_lease(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                       const Paddock__V1__StepLease *m)
{
    if (slot->sched.timing != PDK_TIMING_LOCKSTEP) {
        pdk_server_refuse(
            &srv->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
            "session %" PRIu64 " is not lockstep: the step lease is lockstep's (set_timing "
            "TIMING_MODE_LOCKSTEP first)%s%s",
            slot->id, slot->sched.timing_reason[0] ? "; " : "", slot->sched.timing_reason);
        return;
    }
    uint32_t ms = m && m->deadline_ms ? m->deadline_ms : PDK_SERVER_LEASE_DEFAULT_MS;
    if (ms < PDK_SERVER_LEASE_MIN_MS || ms > PDK_SERVER_LEASE_MAX_MS) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "deadline_ms %u is outside %u..%u (0: the default, %u)", ms,
                          PDK_SERVER_LEASE_MIN_MS, PDK_SERVER_LEASE_MAX_MS,
                          PDK_SERVER_LEASE_DEFAULT_MS);
        return;
    }
    int policy = m ? (int)m->on_lapse : 0;
    if (policy != PADDOCK__V1__LAPSE_POLICY__LAPSE_PAUSE &&
        policy != PADDOCK__V1__LAPSE_POLICY__LAPSE_REALTIME) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
                          "on_lapse %d is not a LapsePolicy (0 LAPSE_PAUSE, 1 LAPSE_REALTIME)",
                          policy);
        return;
    }
    if (slot->lease.conn_id != 0 && slot->lease.conn_id != c->id) {
        uint64_t now = uv_hrtime();
        double left = slot->steps.owed               ? slot->lease.deadline_ms
                      : slot->lease.expires_ns > now ? (double)(slot->lease.expires_ns - now) / 1e6
                                                     : 0.0;
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "the step lease of session %" PRIu64
                          " is held by %s (it lapses %.0f ms after "
                          "its last step)",
                          slot->id, slot->lease.holder, left);
        return;
    }
    slot->lease.conn_id = c->id;
    snprintf(slot->lease.holder, sizeof(slot->lease.holder), "%s", c->holder);
    slot->lease.deadline_ms = ms;
    slot->lease.lapse_realtime = policy == PADDOCK__V1__LAPSE_POLICY__LAPSE_REALTIME;
    pdk_server_lease_refresh(srv, slot);
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

/* ---- the actions ----------------------------------------------------------- */

/* The most ticks one Step or run_to_tick may ask for. Owed steps tick as
 * fast as a fast session does, recording as they go, so they are bounded
 * as fast sessions are: by --max-fast-ticks, and never past
 * PDK_SERVER_STEP_MAX. */
static uint64_t steps_max(const pdk_server *srv)
{
    return srv->cfg.max_fast_ticks < PDK_SERVER_STEP_MAX ? srv->cfg.max_fast_ticks
                                                         : PDK_SERVER_STEP_MAX;
}

/* Which of the two bounds steps_max is, for the refusal. */
static const char *steps_max_why(const pdk_server *srv)
{
    return srv->cfg.max_fast_ticks < PDK_SERVER_STEP_MAX
               ? "the server's --max-fast-ticks: steps tick as fast as a fast session"
               : "the most one request may ask";
}

/* Step and run_to_tick: ticks owed up to target, answered when done. A
 * running session pauses first (it stays paused after); a lockstep session
 * needs its step lease, and a lapsed lease's pause ends with the new
 * holder's first step. */
static void start_steps(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                        uint64_t target)
{
    uint64_t tick = pdk_server_slot_tick(slot);
    if (slot->steps.owed) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "session %" PRIu64 " is still stepping to tick %" PRIu64
                          " for connection %" PRIu64,
                          slot->id, slot->steps.to, slot->steps.conn_id);
        return;
    }
    if (slot->sched.pause == PDK_PAUSE_LIMIT) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_CLOSED,
                          "session %" PRIu64 " takes no steps: %s", slot->id,
                          slot->sched.pause_reason);
        return;
    }
    if (pdk_server_refuse_disk_full(srv, c, rid, slot))
        return;
    if (slot->replay.player && target > pdk_player_end_tick(slot->replay.player)) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "session %" PRIu64 " replays session %" PRIu64 " up to tick %" PRIu64
                          "; tick %" PRIu64 " is past it",
                          slot->id, slot->replay.of, pdk_player_end_tick(slot->replay.player),
                          target);
        return;
    }
    if (!slot->replay.player && slot->sched.timing == PDK_TIMING_LOCKSTEP) {
        if (!holds_lease(srv, c, rid, slot))
            return;
        if (slot->sched.pause == PDK_PAUSE_LEASE) {
            slot->sched.pause = PDK_PAUSE_NONE;
            slot->sched.pause_reason[0] = '\0';
        }
    } else if (slot->sched.pause == PDK_PAUSE_NONE || slot->sched.pause == PDK_PAUSE_REPLAY_END) {
        char reason[PDK_SERVER_REASON_LEN];
        snprintf(reason, sizeof(reason), "paused by %s at tick %" PRIu64 " to step", c->holder,
                 tick);
        pdk_server_pause(srv, slot, PDK_PAUSE_USER, reason);
    }
    slot->steps.conn_id = c->id;
    slot->steps.request_id = rid;
    slot->steps.from = tick;
    slot->steps.to = target;
    if (target == tick) {
        pdk_server_lease_refresh(srv, slot);
        pdk_server_reply_control(srv, c->conn, rid, slot);
        return;
    }
    slot->steps.owed = true;
    pdk_server_arm_lease_timer(srv);
    pdk_server_reschedule(srv);
}

static void do_pause(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot)
{
    if (slot->sched.pause == PDK_PAUSE_NONE) {
        char reason[PDK_SERVER_REASON_LEN];
        snprintf(reason, sizeof(reason), "paused by %s at tick %" PRIu64, c->holder,
                 pdk_server_slot_tick(slot));
        pdk_server_pause(srv, slot, PDK_PAUSE_USER, reason);
    } else if (slot->steps.owed) {
        char why[256];
        snprintf(why, sizeof(why), "session %" PRIu64 " was paused by %s", slot->id, c->holder);
        pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    }
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

static void do_resume(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot)
{
    if (slot->steps.owed) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "session %" PRIu64 " is stepping to tick %" PRIu64
                          "; resume once the step is answered",
                          slot->id, slot->steps.to);
        return;
    }
    if (slot->sched.pause == PDK_PAUSE_LIMIT) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_CLOSED,
                          "session %" PRIu64 " cannot resume: %s", slot->id,
                          slot->sched.pause_reason);
        return;
    }
    if (slot->sched.pause == PDK_PAUSE_REPLAY_END) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "session %" PRIu64 " cannot resume: %s; seek back to play again",
                          slot->id, slot->sched.pause_reason);
        return;
    }
    if (pdk_server_refuse_disk_full(srv, c, rid, slot))
        return;
    if (slot->sched.pause != PDK_PAUSE_NONE) {
        slot->sched.pause = PDK_PAUSE_NONE;
        slot->sched.pause_reason[0] = '\0';
        pdk_server_rebase(srv, slot);
        pdk_server_reschedule(srv);
    }
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

static bool timing_from_pb(int mode, pdk_timing *out)
{
    switch (mode) {
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_UNSPECIFIED:
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME:
        *out = PDK_TIMING_REALTIME;
        return true;
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST:
        *out = PDK_TIMING_FAST;
        return true;
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP:
        *out = PDK_TIMING_LOCKSTEP;
        return true;
    default:
        return false;
    }
}

/* A new timing starts its schedule from now, so a switch never bursts
 * catch-up ticks; leaving lockstep frees the step lease. */
static void set_timing(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                       int mode)
{
    pdk_timing t;
    if (!timing_from_pb(mode, &t)) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "set_timing %d is not a TimingMode (1 REALTIME, 2 FAST, 3 LOCKSTEP)",
                          mode);
        return;
    }
    if (slot->steps.owed) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "session %" PRIu64 " is stepping to tick %" PRIu64
                          "; change its timing once the step is answered",
                          slot->id, slot->steps.to);
        return;
    }
    if (t != PDK_TIMING_LOCKSTEP)
        memset(&slot->lease, 0, sizeof(slot->lease));
    slot->sched.timing = t;
    slot->sched.timing_reason[0] = '\0';
    pdk_server_rebase(srv, slot);
    pdk_server_settle_inputs(slot);
    pdk_server_arm_lease_timer(srv);
    pdk_server_reschedule(srv);
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

/* Reset and reseed are inputs: queued, recorded, applied at a tick
 * boundary; their SessionControlReply comes once applied. */
static bool remember_control(pdk_server *srv, uint64_t conn_id, uint64_t rid, uint64_t session_id)
{
    if (srv->controls.n == srv->controls.cap) {
        size_t cap = srv->controls.cap ? srv->controls.cap * 2 : 8;
        pdk_pending_control *p = realloc(srv->controls.items, cap * sizeof(*p));
        if (!p)
            return false;
        srv->controls.items = p;
        srv->controls.cap = cap;
    }
    srv->controls.items[srv->controls.n++] =
        (pdk_pending_control){.conn_id = conn_id, .request_id = rid, .session_id = session_id};
    return true;
}

static void queue_control(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                          bool reset, uint64_t seed)
{
    if (slot->sched.pause == PDK_PAUSE_LIMIT) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_CLOSED,
                          "session %" PRIu64 " is paused and takes no inputs: %s", slot->id,
                          slot->sched.pause_reason);
        return;
    }
    if (!remember_control(srv, c->id, rid, slot->id)) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = rid};
    pdk_input in = {.kind = reset ? PDK_INPUT_RESET : PDK_INPUT_RESEED, .u.seed = seed};
    pdk_error e = pdk_session_queue_input(slot->session, &in, to);
    if (e != PDK_OK) {
        srv->controls.n--;
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "too many inputs are waiting for the next tick");
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(slot);
}

/* The actions that command a session (a replay refuses them). */
static bool commands(Paddock__V1__SessionControl__ActionCase a)
{
    return a == PADDOCK__V1__SESSION_CONTROL__ACTION_RESET ||
           a == PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED ||
           a == PADDOCK__V1__SESSION_CONTROL__ACTION_SET_TIMING ||
           a == PADDOCK__V1__SESSION_CONTROL__ACTION_TAKE_STEP_LEASE ||
           a == PADDOCK__V1__SESSION_CONTROL__ACTION_RELEASE_STEP_LEASE ||
           a == PADDOCK__V1__SESSION_CONTROL__ACTION_RENEW_STEP_LEASE;
}

static void replay_action(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                          const Paddock__V1__SessionControl *m)
{
    if (!slot->replay.player) {
        pdk_server_refuse(
            &srv->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
            "session %" PRIu64 " is not a replay: %s is a replay's (open one with ReplayOpen)",
            slot->id,
            m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_SEEK ? "seek" : "speed");
        return;
    }
    if (m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_SPEED) {
        if (!isfinite(m->speed) || m->speed < 0.01 || m->speed > 1000.0) {
            pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                              "speed %g is outside 0.01..1000 (a multiple of real time)", m->speed);
            return;
        }
        pdk_server_replay_speed(srv, slot, m->speed);
        pdk_server_reschedule(srv);
        pdk_server_reply_control(srv, c->conn, rid, slot);
        return;
    }
    if (slot->steps.owed) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_BUSY,
                          "session %" PRIu64 " is stepping to tick %" PRIu64
                          "; seek once the step is answered",
                          slot->id, slot->steps.to);
        return;
    }
    pdk_recording_info ri;
    pdk_recording_info_get(slot->replay.rec, &ri);
    if (m->seek < ri.start_tick || m->seek > ri.last_tick) {
        pdk_server_refuse(&srv->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                          "tick %" PRIu64 " is outside the recording of session %" PRIu64
                          " (%" PRIu64 "..%" PRIu64 ")",
                          m->seek, slot->replay.of, ri.start_tick, ri.last_tick);
        return;
    }
    pdk_server_replay_seek(srv, c, rid, slot, m->seek);
}

static void pdk_server_handle_control(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__SessionControl *m = f->session_control;
    uint64_t rid = f->request_id;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, rid, m->session_id);
    if (!slot)
        return;
    if (commands(m->action_case) && pdk_server_refuse_replay(rq->out, c->conn, rid, slot))
        return;
    uint64_t tick = pdk_server_slot_tick(slot);
    switch (m->action_case) {
    case PADDOCK__V1__SESSION_CONTROL__ACTION_PAUSE:
        do_pause(srv, c, rid, slot);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RESUME:
        do_resume(srv, c, rid, slot);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_STEP:
        if (m->step < 1 || m->step > steps_max(srv)) {
            pdk_server_refuse(rq->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                              "step %u is outside 1..%" PRIu64 " ticks (%s)", m->step,
                              steps_max(srv), steps_max_why(srv));
            break;
        }
        start_steps(srv, c, rid, slot, tick + m->step);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RUN_TO_TICK:
        if (m->run_to_tick < tick || m->run_to_tick - tick > steps_max(srv)) {
            pdk_server_refuse(rq->out, c, rid, PDK_ERR_OUT_OF_RANGE,
                              "run_to_tick %" PRIu64 " must be from session %" PRIu64
                              "'s tick %" PRIu64 " to %" PRIu64 " ticks after it (%s)",
                              m->run_to_tick, slot->id, tick, steps_max(srv), steps_max_why(srv));
            break;
        }
        start_steps(srv, c, rid, slot, m->run_to_tick);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RESET:
        queue_control(srv, c, rid, slot, true, 0);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED:
        queue_control(srv, c, rid, slot, false, m->reseed);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_SET_TIMING:
        set_timing(srv, c, rid, slot, (int)m->set_timing);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_TAKE_STEP_LEASE:
        take_lease(srv, c, rid, slot, m->take_step_lease);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RELEASE_STEP_LEASE:
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RENEW_STEP_LEASE:
        if (slot->lease.conn_id != c->id) {
            pdk_server_refuse(rq->out, c, rid, PDK_ERR_NOT_FOUND,
                              "%s does not hold the step lease of session %" PRIu64 "%s%s",
                              c->holder, slot->id, slot->lease.conn_id ? ": " : "",
                              slot->lease.conn_id ? slot->lease.holder : "");
            break;
        }
        if (m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_RENEW_STEP_LEASE) {
            pdk_server_lease_refresh(srv, slot);
        } else {
            char why[256];
            snprintf(why, sizeof(why), "%s released the step lease of session %" PRIu64, c->holder,
                     slot->id);
            pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
            memset(&slot->lease, 0, sizeof(slot->lease));
            pdk_server_arm_lease_timer(srv);
            pdk_server_settle_inputs(slot);
        }
        pdk_server_reply_control(srv, c->conn, rid, slot);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_SEEK:
    case PADDOCK__V1__SESSION_CONTROL__ACTION_SPEED:
        replay_action(srv, c, rid, slot, m);
        break;
    default:
        pdk_server_refuse(
            rq->out, c, rid, PDK_ERR_INVALID_ARGUMENT,
            "the SessionControl carries no action: set one of pause, resume, step, "
            "run_to_tick, reset, reseed, set_timing, take_step_lease, release_step_lease, "
            "renew_step_lease, seek or speed");
        break;
    }
}

/* This file's requests (server.c dispatches them). SessionControl sees
 * the whole server: pausing, stepping, timing and seeking re-arm the
 * scheduler's timers and leases on the loop, and a seek hands the session
 * to a worker. */
const pdk_server_request pdk_server_control_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_CONTROL,
     .handle_server = pdk_server_handle_control,
     .needs = PDK_NEEDS_CHANGE},
    {0},
};
