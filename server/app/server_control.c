/* Session control (pause, resume, step, run_to_tick, reset, reseed, timing,
 * a replay's seek and speed), lockstep's step lease with its deadline, and
 * the SessionStats stream. Pauses, timing and leases are not inputs: they
 * change when ticks happen, never what a tick computes (ADR 0012). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server_internal.h"

#define NS_PER_MS 1000000ull
#define STATS_DEFAULT_HZ 10u
#define STATS_MAX_HZ 60u

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
refuse(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_error code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pdk_server_send_error(srv, c->conn, rid, code, msg);
}

void pdk_server_reply_control(pdk_server *srv, pdk_conn *conn, uint64_t rid, pdk_server_slot *slot)
{
    Paddock__V1__SessionInfo info;
    pdk_server_fill_info(srv, slot, &info);
    Paddock__V1__SessionControlReply r = PADDOCK__V1__SESSION_CONTROL_REPLY__INIT;
    r.tick = info.tick;
    r.session = &info;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = rid;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CONTROL_REPLY;
    f.session_control_reply = &r;
    pdk_server_send_frame(srv, conn, &f);
}

/* ---- owed steps ------------------------------------------------------------ */

static void lease_refresh(pdk_server *srv, pdk_server_slot *slot)
{
    if (slot->lease.conn_id == 0)
        return;
    slot->lease.expires_ns = uv_hrtime() + (uint64_t)slot->lease.deadline_ms * NS_PER_MS;
    pdk_server_arm_lease_timer(srv);
}

void pdk_server_steps_done(pdk_server *srv, pdk_server_slot *slot)
{
    slot->stepping = false;
    lease_refresh(srv, slot);
    pdk_server_conn *c = pdk_server_conn_find(srv, slot->step_conn);
    if (c)
        pdk_server_reply_control(srv, c->conn, slot->step_request, slot);
    pdk_server_settle_inputs(srv, slot);
    pdk_server_reschedule(srv);
}

void pdk_server_steps_abort(pdk_server *srv, pdk_server_slot *slot, pdk_error code, const char *why)
{
    if (!slot->stepping)
        return;
    slot->stepping = false;
    uint64_t tick = pdk_server_slot_tick(slot);
    char msg[512];
    snprintf(msg, sizeof(msg),
             "%s; %" PRIu64 " of %" PRIu64 " owed steps were done (tick %" PRIu64 ")", why,
             tick - slot->step_from, slot->step_to - slot->step_from, tick);
    pdk_server_error_to(srv, slot->step_conn, slot->step_request, code, msg);
    pdk_server_reschedule(srv);
}

void pdk_server_pause(pdk_server *srv, pdk_server_slot *slot, pdk_pause_kind kind,
                      const char *reason)
{
    if (slot->stepping) {
        char why[256];
        snprintf(why, sizeof(why), "session %" PRIu64 " paused: %s", slot->id, reason);
        pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    }
    slot->pause = kind;
    snprintf(slot->pause_reason, sizeof(slot->pause_reason), "%s", reason);
    pdk_server_settle_inputs(srv, slot);
    pdk_server_reschedule(srv);
}

/* ---- the step lease ------------------------------------------------------ */

/* The holder lapsed (why: "lapsed after 2000 ms without a step") or left:
 * the session pauses, or falls back to real time, saying who, why and when;
 * owed steps are dropped and their request answered. */
static void lapse(pdk_server *srv, pdk_server_slot *slot, const char *why)
{
    char reason[PDK_SERVER_REASON_LEN];
    snprintf(reason, sizeof(reason), "step lease of %s %s at tick %" PRIu64, slot->lease.holder,
             why, pdk_server_slot_tick(slot));
    bool realtime = slot->lease.lapse_realtime;
    memset(&slot->lease, 0, sizeof(slot->lease));
    pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, reason);
    fprintf(stderr, "paddockd: session %" PRIu64 ": %s; %s\n", slot->id, reason,
            realtime ? "it runs in real time" : "paused");
    if (realtime) {
        slot->timing = PDK_TIMING_REALTIME;
        /* The reason, cut where it must, and what became of the session. */
        static const char tail[] = ": running in real time (LAPSE_REALTIME)";
        int keep = (int)(sizeof(slot->timing_reason) - sizeof(tail));
        snprintf(slot->timing_reason, sizeof(slot->timing_reason), "%.*s%s", keep, reason, tail);
        pdk_server_rebase(slot);
        pdk_server_reschedule(srv);
    } else {
        pdk_server_pause(srv, slot, PDK_PAUSE_LEASE, reason);
    }
    pdk_server_arm_lease_timer(srv);
}

void pdk_server_arm_lease_timer(pdk_server *srv)
{
    uint64_t next = 0;
    for (size_t i = 0; i < srv->n_sessions; i++) {
        const pdk_server_slot *slot = &srv->sessions[i];
        if (slot->lease.conn_id == 0 || slot->stepping)
            continue;
        if (next == 0 || slot->lease.expires_ns < next)
            next = slot->lease.expires_ns;
    }
    if (next == 0 || srv->stopping) {
        uv_timer_stop(&srv->lease_timer);
        return;
    }
    uint64_t now = uv_hrtime();
    uint64_t ms = next > now ? (next - now + NS_PER_MS - 1) / NS_PER_MS : 0;
    uv_update_time(&srv->loop);
    uv_timer_start(&srv->lease_timer, pdk_server_on_lease_timer, ms, 0);
}

void pdk_server_on_lease_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    uint64_t now = uv_hrtime();
    for (size_t i = 0; i < srv->n_sessions; i++) {
        pdk_server_slot *slot = &srv->sessions[i];
        if (slot->lease.conn_id == 0 || slot->stepping || slot->lease.expires_ns > now)
            continue;
        char why[96];
        snprintf(why, sizeof(why), "lapsed after %u ms without a step", slot->lease.deadline_ms);
        lapse(srv, slot, why);
    }
    pdk_server_arm_lease_timer(srv);
}

/* The requester must hold a lockstep session's step lease; else a reply
 * naming who does (BUSY) or that nobody does (NOT_FOUND). */
static bool holds_lease(pdk_server *srv, pdk_server_conn *c, uint64_t rid,
                        const pdk_server_slot *slot)
{
    if (slot->lease.conn_id == c->id)
        return true;
    if (slot->lease.conn_id != 0)
        refuse(srv, c, rid, PDK_ERR_BUSY, "the step lease of session %" PRIu64 " is held by %s",
               slot->id, slot->lease.holder);
    else
        refuse(srv, c, rid, PDK_ERR_NOT_FOUND,
               "%s does not hold the step lease of lockstep session %" PRIu64
               " (nobody does): take it first (take_step_lease)%s%s",
               c->holder, slot->id, slot->pause == PDK_PAUSE_LEASE ? "; " : "",
               slot->pause == PDK_PAUSE_LEASE ? slot->pause_reason : "");
    return false;
}

static void take_lease(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                       const Paddock__V1__StepLease *m)
{
    if (slot->timing != PDK_TIMING_LOCKSTEP) {
        refuse(srv, c, rid, PDK_ERR_INVALID_ARGUMENT,
               "session %" PRIu64 " is not lockstep: the step lease is lockstep's (set_timing "
               "TIMING_MODE_LOCKSTEP first)%s%s",
               slot->id, slot->timing_reason[0] ? "; " : "", slot->timing_reason);
        return;
    }
    uint32_t ms = m && m->deadline_ms ? m->deadline_ms : PDK_SERVER_LEASE_DEFAULT_MS;
    if (ms < PDK_SERVER_LEASE_MIN_MS || ms > PDK_SERVER_LEASE_MAX_MS) {
        refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
               "deadline_ms %u is outside %u..%u (0: the default, %u)", ms, PDK_SERVER_LEASE_MIN_MS,
               PDK_SERVER_LEASE_MAX_MS, PDK_SERVER_LEASE_DEFAULT_MS);
        return;
    }
    int policy = m ? (int)m->on_lapse : 0;
    if (policy != PADDOCK__V1__LAPSE_POLICY__LAPSE_PAUSE &&
        policy != PADDOCK__V1__LAPSE_POLICY__LAPSE_REALTIME) {
        refuse(srv, c, rid, PDK_ERR_INVALID_ARGUMENT,
               "on_lapse %d is not a LapsePolicy (0 LAPSE_PAUSE, 1 LAPSE_REALTIME)", policy);
        return;
    }
    if (slot->lease.conn_id != 0 && slot->lease.conn_id != c->id) {
        uint64_t now = uv_hrtime();
        double left = slot->stepping                 ? slot->lease.deadline_ms
                      : slot->lease.expires_ns > now ? (double)(slot->lease.expires_ns - now) / 1e6
                                                     : 0.0;
        refuse(srv, c, rid, PDK_ERR_BUSY,
               "the step lease of session %" PRIu64 " is held by %s (it lapses %.0f ms after "
               "its last step)",
               slot->id, slot->lease.holder, left);
        return;
    }
    slot->lease.conn_id = c->id;
    snprintf(slot->lease.holder, sizeof(slot->lease.holder), "%s", c->holder);
    slot->lease.deadline_ms = ms;
    slot->lease.lapse_realtime = policy == PADDOCK__V1__LAPSE_POLICY__LAPSE_REALTIME;
    lease_refresh(srv, slot);
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

/* ---- the actions ----------------------------------------------------------- */

/* Step and run_to_tick: ticks owed up to target, answered when done. A
 * running session pauses first (it stays paused after); a lockstep session
 * needs its step lease, and a lapsed lease's pause ends with the new
 * holder's first step. */
static void start_steps(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                        uint64_t target)
{
    uint64_t tick = pdk_server_slot_tick(slot);
    if (slot->stepping) {
        refuse(srv, c, rid, PDK_ERR_BUSY,
               "session %" PRIu64 " is still stepping to tick %" PRIu64 " for connection %" PRIu64,
               slot->id, slot->step_to, slot->step_conn);
        return;
    }
    if (slot->pause == PDK_PAUSE_LIMIT) {
        refuse(srv, c, rid, PDK_ERR_CLOSED, "session %" PRIu64 " takes no steps: %s", slot->id,
               slot->pause_reason);
        return;
    }
    if (slot->player && target > pdk_player_end_tick(slot->player)) {
        refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
               "session %" PRIu64 " replays session %" PRIu64 " up to tick %" PRIu64
               "; tick %" PRIu64 " is past it",
               slot->id, slot->replay_of, pdk_player_end_tick(slot->player), target);
        return;
    }
    if (!slot->player && slot->timing == PDK_TIMING_LOCKSTEP) {
        if (!holds_lease(srv, c, rid, slot))
            return;
        if (slot->pause == PDK_PAUSE_LEASE) {
            slot->pause = PDK_PAUSE_NONE;
            slot->pause_reason[0] = '\0';
        }
    } else if (slot->pause == PDK_PAUSE_NONE || slot->pause == PDK_PAUSE_REPLAY_END) {
        char reason[PDK_SERVER_REASON_LEN];
        snprintf(reason, sizeof(reason), "paused by %s at tick %" PRIu64 " to step", c->holder,
                 tick);
        pdk_server_pause(srv, slot, PDK_PAUSE_USER, reason);
    }
    slot->step_conn = c->id;
    slot->step_request = rid;
    slot->step_from = tick;
    slot->step_to = target;
    if (target == tick) {
        lease_refresh(srv, slot);
        pdk_server_reply_control(srv, c->conn, rid, slot);
        return;
    }
    slot->stepping = true;
    pdk_server_arm_lease_timer(srv);
    pdk_server_reschedule(srv);
}

static void do_pause(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot)
{
    if (slot->pause == PDK_PAUSE_NONE) {
        char reason[PDK_SERVER_REASON_LEN];
        snprintf(reason, sizeof(reason), "paused by %s at tick %" PRIu64, c->holder,
                 pdk_server_slot_tick(slot));
        pdk_server_pause(srv, slot, PDK_PAUSE_USER, reason);
    } else if (slot->stepping) {
        char why[256];
        snprintf(why, sizeof(why), "session %" PRIu64 " was paused by %s", slot->id, c->holder);
        pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    }
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

static void do_resume(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot)
{
    if (slot->stepping) {
        refuse(srv, c, rid, PDK_ERR_BUSY,
               "session %" PRIu64 " is stepping to tick %" PRIu64
               "; resume once the step is answered",
               slot->id, slot->step_to);
        return;
    }
    if (slot->pause == PDK_PAUSE_LIMIT) {
        refuse(srv, c, rid, PDK_ERR_CLOSED, "session %" PRIu64 " cannot resume: %s", slot->id,
               slot->pause_reason);
        return;
    }
    if (slot->pause == PDK_PAUSE_REPLAY_END) {
        refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
               "session %" PRIu64 " cannot resume: %s; seek back to play again", slot->id,
               slot->pause_reason);
        return;
    }
    if (slot->pause != PDK_PAUSE_NONE) {
        slot->pause = PDK_PAUSE_NONE;
        slot->pause_reason[0] = '\0';
        pdk_server_rebase(slot);
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
        refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
               "set_timing %d is not a TimingMode (1 REALTIME, 2 FAST, 3 LOCKSTEP)", mode);
        return;
    }
    if (slot->stepping) {
        refuse(srv, c, rid, PDK_ERR_BUSY,
               "session %" PRIu64 " is stepping to tick %" PRIu64
               "; change its timing once the step is answered",
               slot->id, slot->step_to);
        return;
    }
    if (t != PDK_TIMING_LOCKSTEP)
        memset(&slot->lease, 0, sizeof(slot->lease));
    slot->timing = t;
    slot->timing_reason[0] = '\0';
    pdk_server_rebase(slot);
    pdk_server_settle_inputs(srv, slot);
    pdk_server_arm_lease_timer(srv);
    pdk_server_reschedule(srv);
    pdk_server_reply_control(srv, c->conn, rid, slot);
}

/* Reset and reseed are inputs: queued, recorded, applied at a tick
 * boundary; their SessionControlReply comes once applied. */
static bool remember_control(pdk_server *srv, uint64_t conn_id, uint64_t rid, uint64_t session_id)
{
    if (srv->n_controls == srv->cap_controls) {
        size_t cap = srv->cap_controls ? srv->cap_controls * 2 : 8;
        pdk_pending_control *p = realloc(srv->controls, cap * sizeof(*p));
        if (!p)
            return false;
        srv->controls = p;
        srv->cap_controls = cap;
    }
    srv->controls[srv->n_controls++] =
        (pdk_pending_control){.conn_id = conn_id, .request_id = rid, .session_id = session_id};
    return true;
}

static void queue_control(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                          bool reset, uint64_t seed)
{
    if (slot->pause == PDK_PAUSE_LIMIT) {
        refuse(srv, c, rid, PDK_ERR_CLOSED, "session %" PRIu64 " is paused and takes no inputs: %s",
               slot->id, slot->pause_reason);
        return;
    }
    if (!remember_control(srv, c->id, rid, slot->id)) {
        refuse(srv, c, rid, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    pdk_reply_to to = {.conn_id = c->id, .request_id = rid};
    pdk_error e = reset ? pdk_session_queue_reset(slot->session, to)
                        : pdk_session_queue_reseed(slot->session, seed, to);
    if (e != PDK_OK) {
        srv->n_controls--;
        refuse(srv, c, rid, PDK_ERR_BUSY, "too many inputs are waiting for the next tick");
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(srv, slot);
}

bool pdk_server_control_result(pdk_server *srv, pdk_server_conn *c, pdk_reply_to to,
                               const pdk_input_result *res)
{
    if (res->kind != PDK_INPUT_RESET && res->kind != PDK_INPUT_RESEED)
        return false;
    size_t i = 0;
    while (i < srv->n_controls &&
           (srv->controls[i].conn_id != to.conn_id || srv->controls[i].request_id != to.request_id))
        i++;
    if (i == srv->n_controls)
        return false;
    uint64_t session_id = srv->controls[i].session_id;
    srv->controls[i] = srv->controls[--srv->n_controls];
    if (!c)
        return true;
    pdk_server_slot *slot = pdk_server_session_find(srv, session_id);
    if (slot && !slot->busy) {
        pdk_server_reply_control(srv, c->conn, to.request_id, slot);
        return true;
    }
    Paddock__V1__SessionControlReply r = PADDOCK__V1__SESSION_CONTROL_REPLY__INIT;
    r.tick = res->tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = to.request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CONTROL_REPLY;
    f.session_control_reply = &r;
    pdk_server_send_frame(srv, c->conn, &f);
    return true;
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
    if (!slot->player) {
        refuse(srv, c, rid, PDK_ERR_INVALID_ARGUMENT,
               "session %" PRIu64 " is not a replay: %s is a replay's (open one with ReplayOpen)",
               slot->id,
               m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_SEEK ? "seek" : "speed");
        return;
    }
    if (m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_SPEED) {
        if (!isfinite(m->speed) || m->speed < 0.01 || m->speed > 1000.0) {
            refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
                   "speed %g is outside 0.01..1000 (a multiple of real time)", m->speed);
            return;
        }
        pdk_server_replay_speed(slot, m->speed);
        pdk_server_reschedule(srv);
        pdk_server_reply_control(srv, c->conn, rid, slot);
        return;
    }
    if (slot->stepping) {
        refuse(srv, c, rid, PDK_ERR_BUSY,
               "session %" PRIu64 " is stepping to tick %" PRIu64
               "; seek once the step is answered",
               slot->id, slot->step_to);
        return;
    }
    pdk_recording_info ri;
    pdk_recording_info_get(slot->rec, &ri);
    if (m->seek < ri.start_tick || m->seek > ri.last_tick) {
        refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
               "tick %" PRIu64 " is outside the recording of session %" PRIu64 " (%" PRIu64
               "..%" PRIu64 ")",
               m->seek, slot->replay_of, ri.start_tick, ri.last_tick);
        return;
    }
    pdk_server_replay_seek(srv, c, rid, slot, m->seek);
}

void pdk_server_handle_control(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f)
{
    const Paddock__V1__SessionControl *m = f->session_control;
    uint64_t rid = f->request_id;
    pdk_server_slot *slot = pdk_server_need_session(srv, c->conn, rid, m->session_id);
    if (!slot)
        return;
    if (commands(m->action_case) && pdk_server_refuse_replay(srv, c->conn, rid, slot))
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
        if (m->step < 1 || m->step > PDK_SERVER_STEP_MAX) {
            refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE, "step %u is outside 1..%u ticks", m->step,
                   PDK_SERVER_STEP_MAX);
            break;
        }
        start_steps(srv, c, rid, slot, tick + m->step);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_RUN_TO_TICK:
        if (m->run_to_tick < tick || m->run_to_tick - tick > PDK_SERVER_STEP_MAX) {
            refuse(srv, c, rid, PDK_ERR_OUT_OF_RANGE,
                   "run_to_tick %" PRIu64 " must be from session %" PRIu64 "'s tick %" PRIu64
                   " to %u ticks after it",
                   m->run_to_tick, slot->id, tick, PDK_SERVER_STEP_MAX);
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
            refuse(srv, c, rid, PDK_ERR_NOT_FOUND,
                   "%s does not hold the step lease of session %" PRIu64 "%s%s", c->holder,
                   slot->id, slot->lease.conn_id ? ": " : "",
                   slot->lease.conn_id ? slot->lease.holder : "");
            break;
        }
        if (m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_RENEW_STEP_LEASE) {
            lease_refresh(srv, slot);
        } else {
            char why[256];
            snprintf(why, sizeof(why), "%s released the step lease of session %" PRIu64, c->holder,
                     slot->id);
            pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
            memset(&slot->lease, 0, sizeof(slot->lease));
            pdk_server_arm_lease_timer(srv);
            pdk_server_settle_inputs(srv, slot);
        }
        pdk_server_reply_control(srv, c->conn, rid, slot);
        break;
    case PADDOCK__V1__SESSION_CONTROL__ACTION_SEEK:
    case PADDOCK__V1__SESSION_CONTROL__ACTION_SPEED:
        replay_action(srv, c, rid, slot, m);
        break;
    default:
        refuse(srv, c, rid, PDK_ERR_INVALID_ARGUMENT,
               "the SessionControl carries no action: set one of pause, resume, step, "
               "run_to_tick, reset, reseed, set_timing, take_step_lease, release_step_lease, "
               "renew_step_lease, seek or speed");
        break;
    }
}

/* ---- the stats stream ------------------------------------------------------ */

static void arm_stats_timer(pdk_server *srv)
{
    if (srv->n_stats == 0 || srv->stopping) {
        uv_timer_stop(&srv->stats_timer);
        return;
    }
    uint64_t next = srv->stats[0].due_ns;
    for (size_t i = 1; i < srv->n_stats; i++)
        if (srv->stats[i].due_ns < next)
            next = srv->stats[i].due_ns;
    uint64_t now = uv_hrtime();
    uint64_t ms = next > now ? (next - now + NS_PER_MS - 1) / NS_PER_MS : 0;
    uv_update_time(&srv->loop);
    uv_timer_start(&srv->stats_timer, pdk_server_on_stats_timer, ms, 0);
}

static void send_stats(pdk_server *srv, pdk_server_conn *c, pdk_stats_sub *sub,
                       pdk_server_slot *slot, uint64_t now)
{
    Paddock__V1__SessionInfo info;
    pdk_server_fill_info(srv, slot, &info);
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
        st.step_lease_left_ms = slot->stepping ? (double)slot->lease.deadline_ms
                                : slot->lease.expires_ns > now
                                    ? (double)(slot->lease.expires_ns - now) / 1e6
                                    : 0.0;
    st.overruns = info.overruns;
    st.skipped_ticks = info.skipped_ticks;
    st.writer_queued = ws.queued;
    st.replay_of = slot->replay_of;
    if (slot->player) {
        st.speed = slot->speed;
        if (!slot->busy) {
            st.replay_end_tick = pdk_player_end_tick(slot->player);
            st.diverged_tick = pdk_player_diverged(slot->player);
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
    for (size_t i = 0; i < srv->n_stats; i++) {
        pdk_stats_sub *sub = &srv->stats[i];
        if (sub->due_ns > now)
            continue;
        pdk_server_conn *c = pdk_server_conn_find(srv, sub->conn_id);
        pdk_server_slot *slot = pdk_server_session_find(srv, sub->session_id);
        if (c && slot)
            send_stats(srv, c, sub, slot, now);
        sub->due_ns += sub->period_ns;
        if (sub->due_ns <= now)
            sub->due_ns = now + sub->period_ns;
    }
    arm_stats_timer(srv);
}

void pdk_server_handle_stats_subscribe(pdk_server *srv, pdk_server_conn *c,
                                       const Paddock__V1__Frame *f)
{
    const Paddock__V1__StatsSubscribe *m = f->stats_subscribe;
    pdk_server_slot *slot = pdk_server_session_find(srv, m->session_id);
    if (!slot) {
        refuse(srv, c, f->request_id, PDK_ERR_NOT_FOUND, "session %" PRIu64 " does not exist",
               m->session_id);
        return;
    }
    uint32_t hz = m->rate_hz ? m->rate_hz : STATS_DEFAULT_HZ;
    if (hz > STATS_MAX_HZ) {
        refuse(srv, c, f->request_id, PDK_ERR_OUT_OF_RANGE, "rate_hz %u is outside 1..%u (0: %u)",
               hz, STATS_MAX_HZ, STATS_DEFAULT_HZ);
        return;
    }
    if (!pdk_server_sub_room(srv, c, f->request_id))
        return;
    if (srv->n_stats == srv->cap_stats) {
        size_t cap = srv->cap_stats ? srv->cap_stats * 2 : 8;
        pdk_stats_sub *p = realloc(srv->stats, cap * sizeof(*p));
        if (!p) {
            refuse(srv, c, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
            return;
        }
        srv->stats = p;
        srv->cap_stats = cap;
    }
    uint64_t now = uv_hrtime();
    pdk_stats_sub *sub = &srv->stats[srv->n_stats++];
    sub->conn_id = c->id;
    sub->sub_id = ++c->last_sub_id;
    sub->session_id = slot->id;
    sub->period_ns = PDK_SERVER_NS_PER_S / hz;
    sub->due_ns = now + sub->period_ns;
    sub->last_ns = now;
    sub->last_sim_s =
        slot->busy ? slot->view.sim_time_s : pdk_world_time_s(pdk_session_world(slot->session));
    c->n_subs++;
    Paddock__V1__Subscribed sd = PADDOCK__V1__SUBSCRIBED__INIT;
    sd.subscription_id = sub->sub_id;
    sd.rate_hz = hz;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBED;
    r.subscribed = &sd;
    pdk_server_send_frame(srv, c->conn, &r);
    arm_stats_timer(srv);
}

bool pdk_server_stats_unsubscribe(pdk_server *srv, uint64_t conn_id, uint32_t sub_id)
{
    for (size_t i = 0; i < srv->n_stats; i++) {
        if (srv->stats[i].conn_id == conn_id && srv->stats[i].sub_id == sub_id) {
            srv->stats[i] = srv->stats[--srv->n_stats];
            arm_stats_timer(srv);
            return true;
        }
    }
    return false;
}

/* ---- connections and sessions going away ----------------------------------- */

void pdk_server_control_forget_conn(pdk_server *srv, uint64_t conn_id)
{
    for (size_t i = 0; i < srv->n_stats;) {
        if (srv->stats[i].conn_id == conn_id)
            srv->stats[i] = srv->stats[--srv->n_stats];
        else
            i++;
    }
    arm_stats_timer(srv);
    for (size_t i = 0; i < srv->n_controls;) {
        if (srv->controls[i].conn_id == conn_id)
            srv->controls[i] = srv->controls[--srv->n_controls];
        else
            i++;
    }
    for (size_t i = 0; i < srv->n_sessions; i++) {
        pdk_server_slot *slot = &srv->sessions[i];
        if (slot->stepping && slot->step_conn == conn_id && slot->lease.conn_id != conn_id) {
            /* Nobody waits for these steps any more. */
            slot->stepping = false;
            pdk_server_reschedule(srv);
        }
        if (slot->lease.conn_id == conn_id)
            lapse(srv, slot, "ended when it disconnected");
    }
}

void pdk_server_control_forget_session(pdk_server *srv, pdk_server_slot *slot)
{
    char why[160];
    snprintf(why, sizeof(why), "session %" PRIu64 " closed", slot->id);
    pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    for (size_t i = 0; i < srv->n_stats;) {
        pdk_stats_sub *sub = &srv->stats[i];
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
            pdk_server_send_error(srv, c->conn, 0, PDK_ERR_CLOSED, msg);
        }
        *sub = srv->stats[--srv->n_stats];
    }
    memset(&slot->lease, 0, sizeof(slot->lease));
    arm_stats_timer(srv);
    pdk_server_arm_lease_timer(srv);
}
