/* The tick scheduler: finding a session's slot, its deadlines (real time on
 * a timerfd, fast sessions and owed steps in idle slices, replays at their
 * speed), the writer's back-pressure, a lockstep session's step lease and
 * owed steps, pauses, and what requests ask of a slot (its info, whether
 * it takes commands). Calls only server_conn.c below it. */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "spread.h"

#define NS_PER_S PDK_SERVER_NS_PER_S
#define NS_PER_MS 1000000ull
#define FAST_SLICE_NS 2000000ull    /* a fast session yields every 2 ms */
#define WRITER_HIGH_WATER 200000u   /* queued records that pause ticking */
#define REPLAY_SLICE_NS 2000000ull  /* a replay's catch-up per wake-up */
#define REPLAY_BEHIND_NS 250000000u /* a replay further behind starts its schedule afresh */

static uint64_t deadline_ns(const pdk_server_slot *slot)
{
    /* Integer arithmetic keeps the real-time schedule exact over any run
     * length; a replay's period is 1/(120 * speed) s. */
    if (slot->replay.player)
        return slot->sched.start_ns + (uint64_t)((double)slot->sched.next_index * (double)NS_PER_S /
                                                 ((double)PDK_TICK_HZ * slot->replay.speed));
    return slot->sched.start_ns + slot->sched.next_index * NS_PER_S / PDK_TICK_HZ;
}

/* ---- sessions ---------------------------------------------------------- */

/* A real-time session's deadlines, unpaused: those spread_start_ns keeps
 * apart. */
static bool ticks_in_real_time(const pdk_server_slot *slot)
{
    return !slot->replay.player && slot->sched.timing == PDK_TIMING_REALTIME &&
           slot->sched.pause == PDK_PAUSE_NONE;
}

/* Where a real-time session's schedule starts: now when it is the only
 * one; else so that its deadlines fall in the middle of the widest stretch
 * of the 1/120 s period that the other real-time sessions' deadlines leave
 * free (spread.h). Ticks due at one instant wait for each other's cores,
 * the database writer and the loop's sending; spread over the period they
 * do not (ADR 0037). The first deadline is within a period of now. */
static uint64_t spread_start_ns(const pdk_server *srv, const pdk_server_slot *self, uint64_t now)
{
    const uint64_t period = NS_PER_S / PDK_TICK_HZ;
    pdk_spread sp;
    pdk_spread_init(&sp, period);
    for (size_t i = 0; i < srv->table.n; i++) {
        const pdk_server_slot *slot = &srv->table.items[i];
        if (slot == self || !ticks_in_real_time(slot))
            continue;
        int64_t ahead = (int64_t)(deadline_ns(slot) - now) % (int64_t)period;
        pdk_spread_add(&sp, (uint64_t)(ahead < 0 ? ahead + (int64_t)period : ahead));
    }
    if (sp.placed == 0)
        return now;
    /* next_index 1: the first deadline at now + the pick. */
    return now + pdk_spread_pick(&sp) - period;
}

void pdk_server_rebase(pdk_server *srv, pdk_server_slot *slot)
{
    uint64_t now = uv_hrtime();
    slot->sched.start_ns = ticks_in_real_time(slot) ? spread_start_ns(srv, slot, now) : now;
    slot->sched.next_index = 1;
}

void pdk_server_tick_session(pdk_server_slot *slot)
{
    uint64_t t0 = uv_hrtime();
    pdk_session_tick(slot->session);
    pdk_lateness_add(pdk_session_tick_time(slot->session), uv_hrtime() - t0,
                     NS_PER_S / PDK_TICK_HZ);
}

bool pdk_server_tick_slot(pdk_server *srv, pdk_server_slot *slot)
{
    if (!slot->replay.player) {
        pdk_server_tick_session(slot);
        return true;
    }
    if (pdk_player_step(slot->replay.player) == PDK_OK)
        return true;
    char reason[PDK_SERVER_REASON_LEN];
    pdk_recording_info ri;
    pdk_recording_info_get(slot->replay.rec, &ri);
    if (ri.gaps > 0)
        snprintf(reason, sizeof(reason),
                 "replay reached tick %" PRIu64 ": ticks %" PRIu64 "..%" PRIu64
                 " were lost when the disk was full",
                 pdk_player_end_tick(slot->replay.player), ri.gap_first_tick, ri.gap_last_tick);
    else
        snprintf(reason, sizeof(reason), "replay reached the recording's last tick %" PRIu64,
                 pdk_player_end_tick(slot->replay.player));
    pdk_server_pause(srv, slot, PDK_PAUSE_REPLAY_END, reason);
    return false;
}

/* True while the SQLite writer is too far behind for sessions to tick; the
 * start and end of each such stall are logged, and sessions report it as
 * their pause reason meanwhile. */
bool pdk_server_writer_lagging(pdk_server *srv)
{
    pdk_store_stats st;
    pdk_store_stats_get(srv->store, &st);
    srv->sched.writer_queued = st.queued;
    srv->sched.writer_cpu_ns = st.writer_cpu_ns;
    if ((st.disk_full != 0) != srv->sched.disk_full)
        pdk_server_disk_look(srv);
    bool lagging = st.queued > WRITER_HIGH_WATER;
    if (lagging && !srv->sched.writer_stalled) {
        srv->sched.writer_stalls++;
        fprintf(stderr,
                "paddockd: the database writer is %" PRIu64 " records behind; sessions pause "
                "until it catches up (stall %" PRIu64 ")\n",
                st.queued, srv->sched.writer_stalls);
    } else if (!lagging && srv->sched.writer_stalled) {
        fprintf(stderr, "paddockd: the database writer caught up; sessions resume\n");
    }
    if (lagging)
        snprintf(srv->sched.writer_reason, sizeof(srv->sched.writer_reason),
                 "the database writer is %" PRIu64
                 " records behind: sessions wait for it (nothing is dropped)",
                 st.queued);
    srv->sched.writer_stalled = lagging;
    return lagging;
}

/* The disk filled: every recorded session that runs pauses, so that no
 * more records pile up in memory than the inputs clients still send (they
 * are taken at once, as in any pause, and kept with the rest). Sessions
 * not recorded run on. */
static void disk_filled(pdk_server *srv, const char *why)
{
    /* The path and SQLite's word come last, cut where the reason's room
     * (what a nanopb client keeps) ends. */
    const char *head = pdk_store_read_only(srv->store)
                           ? "read-only, no recording until restarted: "
                           : "disk full, recording waits for space (nothing lost): ";
    int keep = (int)(sizeof(srv->sched.disk_reason) - strlen(head) - 1);
    snprintf(srv->sched.disk_reason, sizeof(srv->sched.disk_reason), "%s%.*s", head, keep, why);
    size_t paused = 0;
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        /* A session whose tick is out on a step thread pauses too: only
         * its slot changes, and it is not handed out again. A seek's
         * replay is not recorded. */
        bool seeking = slot->worker.busy && !slot->stepping.out;
        if (seeking || slot->replay.player || !pdk_session_recorded(slot->session))
            continue;
        if (slot->sched.pause == PDK_PAUSE_NONE) {
            pdk_server_pause(srv, slot, PDK_PAUSE_DISK, srv->sched.disk_reason);
            paused++;
        } else if (slot->steps.owed) {
            pdk_server_steps_abort(srv, slot, PDK_ERR_IO, srv->sched.disk_reason);
        }
    }
    if (!pdk_store_read_only(srv->store))
        fprintf(stderr,
                "paddockd: the disk is full (%s); %zu recorded sessions paused until space "
                "returns\n",
                why, paused);
}

static void space_returned(pdk_server *srv)
{
    size_t resumed = 0;
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        if (slot->sched.pause != PDK_PAUSE_DISK)
            continue;
        slot->sched.pause = PDK_PAUSE_NONE;
        slot->sched.pause_reason[0] = '\0';
        pdk_server_rebase(srv, slot);
        resumed++;
    }
    srv->sched.disk_reason[0] = '\0';
    fprintf(stderr,
            "paddockd: space returned and the kept records are written; %zu sessions "
            "resume\n",
            resumed);
    pdk_server_reschedule(srv);
}

void pdk_server_disk_look(pdk_server *srv)
{
    char why[PDK_STORE_ERR_LEN];
    bool full = pdk_store_disk_full(srv->store, why, sizeof(why)) != 0;
    if (full == srv->sched.disk_full)
        return;
    srv->sched.disk_full = full;
    if (full)
        disk_filled(srv, why);
    else
        space_returned(srv);
}

void pdk_server_on_disk_timer(uv_timer_t *t)
{
    pdk_server_disk_look(t->data);
}

bool pdk_server_refuse_disk_full(pdk_server *srv, pdk_server_conn *c, uint64_t rid,
                                 const pdk_server_slot *slot)
{
    if (!srv->sched.disk_full || slot->replay.player || !pdk_session_recorded(slot->session))
        return false;
    pdk_server_refuse(&srv->out, c, rid, PDK_ERR_IO, "session %" PRIu64 " is recorded and %s",
                      slot->id, srv->sched.disk_reason);
    return true;
}

/* ---- the schedulers ------------------------------------------------------ */

/* Real-time sessions and playing replays tick on the timerfd's deadlines. */
static bool runs_on_timer(const pdk_server_slot *slot)
{
    return !slot->worker.busy && !slot->steps.owed && slot->sched.pause == PDK_PAUSE_NONE &&
           (slot->replay.player != NULL || slot->sched.timing == PDK_TIMING_REALTIME);
}

/* Fast sessions and owed steps tick in the idle slices. */
static bool runs_fast(const pdk_server_slot *slot)
{
    if (slot->worker.busy)
        return false;
    if (slot->steps.owed)
        return true;
    return !slot->replay.player && slot->sched.timing == PDK_TIMING_FAST &&
           slot->sched.pause == PDK_PAUSE_NONE;
}

uint64_t pdk_server_next_deadline_ns(const pdk_server *srv)
{
    uint64_t next = 0;
    for (size_t i = 0; i < srv->table.n; i++) {
        if (!runs_on_timer(&srv->table.items[i]))
            continue;
        uint64_t d = deadline_ns(&srv->table.items[i]);
        if (next == 0 || d < next)
            next = d;
    }
    return next;
}

/* Arms the timerfd for the earliest deadline, or not before not_before_ns
 * when that is later (a pause while the writer catches up). The timer fires
 * tick_spin_ns before the deadline and pdk_server_on_timer waits out the rest on the
 * clock: waking a sleeping core (a VM's above all) can take hundreds of
 * microseconds, a short spin does not. */
static void arm_timer_after(pdk_server *srv, uint64_t not_before_ns)
{
    if (srv->sched.timer_fd < 0 || srv->stopping)
        return;
    uint64_t next = pdk_server_next_deadline_ns(srv);
    if (next > srv->cfg.tick_spin_ns)
        next -= srv->cfg.tick_spin_ns;
    if (next != 0 && next < not_before_ns)
        next = not_before_ns;
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    if (next != 0) {
        its.it_value.tv_sec = (time_t)(next / NS_PER_S);
        its.it_value.tv_nsec = (long)(next % NS_PER_S);
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
            its.it_value.tv_nsec = 1;
    }
    timerfd_settime(srv->sched.timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

void pdk_server_arm_timer(pdk_server *srv)
{
    arm_timer_after(srv, 0);
}

static bool realtime_due(const pdk_server_slot *slot, uint64_t now)
{
    return runs_on_timer(slot) && !slot->replay.player && deadline_ns(slot) <= now;
}

/* ---- ticks on step threads (ADR 0031) ------------------------------------ */

static void drop_missed(pdk_server_slot *slot);

/* A tick's CPU cost, smoothed over some eight ticks, decides where the next
 * one runs: on a step thread above the threshold, back on the loop below
 * half of it (so a session near the line does not change every tick). */
static void note_cost(pdk_server *srv, pdk_server_slot *slot, uint64_t cost_ns)
{
    pdk_slot_stepping *st = &slot->stepping;
    st->cost_ns = st->cost_ns == 0 ? cost_ns : st->cost_ns - st->cost_ns / 8 + cost_ns / 8;
    uint64_t limit = srv->cfg.step_threshold_ns;
    if (!srv->step_pool_on)
        st->threaded = false;
    else if (limit == 0 || st->cost_ns > limit)
        st->threaded = true;
    else if (st->cost_ns < limit / 2)
        st->threaded = false;
}

static void step_run(pdk_step_job *base)
{
    pdk_server_step *job = (pdk_server_step *)base;
    pdk_server_capture_begin(&job->out, job->max_frame_bytes);
    job->start_ns = uv_hrtime();
    /* Its CPU time: a light session preempted once must not look heavy
     * and go to a thread. */
    uint64_t cpu0 = pdk_thread_cpu_ns();
    pdk_session_tick(job->session);
    job->cost_ns = pdk_thread_cpu_ns() - cpu0;
    job->time_ns = uv_hrtime() - job->start_ns;
    const pdk_world *w = pdk_session_world(job->session);
    job->view = (pdk_slot_view){
        .tick = pdk_world_tick(w),
        .sim_time_s = pdk_world_time_s(w),
        .vehicle_count = (uint32_t)pdk_world_vehicle_count(w),
        .state_hash = pdk_session_tick_hash(job->session),
        .subscriber_count = (uint32_t)pdk_session_subscriber_count(job->session),
    };
    job->inputs_applied = pdk_session_inputs_applied(job->session);
    pdk_server_capture_end();
}

/* What listings show while the tick is out: the session as it is now. The
 * hash is the last tick's from its thread when nothing changed since. */
static pdk_slot_view view_now(pdk_server_slot *slot)
{
    const pdk_world *w = pdk_session_world(slot->session);
    pdk_server_step *job = slot->stepping.job;
    pdk_slot_view v = {
        .tick = pdk_world_tick(w),
        .sim_time_s = pdk_world_time_s(w),
        .vehicle_count = (uint32_t)pdk_world_vehicle_count(w),
        .subscriber_count = (uint32_t)pdk_session_subscriber_count(slot->session),
        .parts = *pdk_session_tick_parts(slot->session),
    };
    bool same = job->view.tick == v.tick &&
                job->inputs_applied == pdk_session_inputs_applied(slot->session) &&
                job->view.vehicle_count == v.vehicle_count;
    v.state_hash = same ? job->view.state_hash : pdk_session_hash(slot->session);
    return v;
}

/* Hands the slot's next tick to a step thread. False (out of memory for
 * its job): the caller ticks it on the loop. */
static bool start_step(pdk_server *srv, pdk_server_slot *slot)
{
    pdk_server_step *job = slot->stepping.job;
    if (!job) {
        job = calloc(1, sizeof(*job));
        if (!job)
            return false;
        job->view.tick = UINT64_MAX; /* no tick of its own yet */
        slot->stepping.job = job;
    }
    job->base.run = step_run;
    job->srv = srv;
    job->session = slot->session;
    job->session_id = slot->id;
    job->max_frame_bytes = srv->cfg.limits.max_frame_bytes;
    job->deadline_ns = deadline_ns(slot);
    slot->worker.view = view_now(slot);
    slot->worker.busy = true;
    slot->stepping.out = true;
    pdk_step_pool_push(&srv->step_pool, &job->base);
    return true;
}

bool pdk_server_step_back(pdk_server *srv, pdk_server_step *job)
{
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, job->session_id);
    if (!slot || slot->session != job->session)
        return false;
    slot->worker.busy = false;
    slot->stepping.out = false;
    for (size_t i = 0; i < slot->worker.n_forget; i++)
        pdk_session_forget_conn(slot->session, slot->worker.forget[i]);
    slot->worker.n_forget = 0;
    slot->sched.next_index++;
    /* Late by when the tick began, its wait for a thread included. */
    pdk_lateness_add(pdk_session_lateness(slot->session),
                     job->start_ns > job->deadline_ns ? job->start_ns - job->deadline_ns : 0,
                     NS_PER_S / PDK_TICK_HZ);
    pdk_lateness_add(pdk_session_tick_time(slot->session), job->time_ns, NS_PER_S / PDK_TICK_HZ);
    note_cost(srv, slot, job->cost_ns);
    return true;
}

void pdk_server_step_free(pdk_server_step *job)
{
    /* Closed while its tick was out (only a shutdown does that): the
     * session is the job's to destroy. */
    pdk_session_destroy(job->session);
    pdk_server_outbox_free(&job->out);
    free(job);
}

void pdk_server_step_next(pdk_server *srv, uint64_t session_id)
{
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, session_id);
    if (slot && !srv->stopping && !slot->stepping.out) {
        uint64_t now = uv_hrtime();
        if (slot->stepping.threaded && realtime_due(slot, now) &&
            ++slot->stepping.catchup < srv->cfg.max_catchup_ticks) {
            /* Behind: its next tick at once, on a thread again. */
            if (start_step(srv, slot))
                return;
        }
        slot->stepping.catchup = 0;
        if (runs_on_timer(slot) && !slot->replay.player)
            drop_missed(slot);
    }
    pdk_server_reschedule(srv);
}

/* The real-time sessions' due ticks, at most max_catchup_ticks each. They
 * take turns a tick at a time: a session behind (a heavy one, or one that
 * waited for a heavy one) catches up after every other due session has
 * had its tick, so one session's overrun delays another by one of its
 * ticks, not by its whole catch-up (issue 28, the spawn flood). Sessions
 * whose ticks cost more than a hand-off go to step threads first, then
 * the loop runs the light ones' ticks itself while those run. */
static void run_realtime_turns(pdk_server *srv)
{
    uint64_t period = NS_PER_S / PDK_TICK_HZ;
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        uint64_t now = uv_hrtime();
        if (!slot->stepping.threaded || !realtime_due(slot, now))
            continue;
        slot->stepping.catchup = 0;
        if (!start_step(srv, slot)) {
            slot->stepping.threaded = false; /* no memory for its job: on the loop */
            pdk_lateness_add(pdk_session_lateness(slot->session), now - deadline_ns(slot), period);
            pdk_server_tick_session(slot);
            slot->sched.next_index++;
        }
    }
    for (int pass = 0; pass < srv->cfg.max_catchup_ticks; pass++) {
        bool any = false;
        for (size_t i = 0; i < srv->table.n; i++) {
            pdk_server_slot *slot = &srv->table.items[i];
            uint64_t now = uv_hrtime();
            if (!realtime_due(slot, now))
                continue;
            pdk_lateness_add(pdk_session_lateness(slot->session), now - deadline_ns(slot), period);
            uint64_t cpu0 = pdk_thread_cpu_ns();
            pdk_server_tick_session(slot);
            note_cost(srv, slot, pdk_thread_cpu_ns() - cpu0);
            slot->sched.next_index++;
            any = true;
        }
        if (!any)
            return;
    }
}

/* A real-time session still behind after its catch-up: the deadlines
 * already past are dropped and counted. */
static void drop_missed(pdk_server_slot *slot)
{
    pdk_lateness *lat = pdk_session_lateness(slot->session);
    uint64_t now = uv_hrtime();
    if (deadline_ns(slot) <= now) {
        /* Bounded catch-up: drop the deadlines already past, so one slow
         * moment does not become a burst of ticks. Sim time now lags wall
         * time by the dropped ticks, which are reported. */
        uint64_t behind = (now - slot->sched.start_ns) * PDK_TICK_HZ / NS_PER_S + 1;
        lat->skipped += behind - slot->sched.next_index;
        slot->sched.next_index = behind; /* the first deadline after now */
    }
}

/* A playing replay's due ticks, for at most REPLAY_SLICE_NS: a replay drops
 * no tick, so one too fast for the CPU plays slower than asked (its stats
 * show the real-time factor), its schedule starting afresh once it is a
 * quarter of a second behind. */
static void run_replay(pdk_server *srv, pdk_server_slot *slot)
{
    uint64_t t0 = uv_hrtime();
    uint64_t now = t0;
    while (deadline_ns(slot) <= now && now - t0 < REPLAY_SLICE_NS) {
        if (!pdk_server_tick_slot(srv, slot))
            return;
        slot->sched.next_index++;
        now = uv_hrtime();
    }
    if (deadline_ns(slot) + REPLAY_BEHIND_NS < now)
        pdk_server_rebase(srv, slot);
}

void pdk_server_on_timer(uv_poll_t *handle, int status, int events)
{
    (void)status;
    (void)events;
    pdk_server *srv = handle->data;
    uint64_t expirations;
    if (read(srv->sched.timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        fprintf(stderr, "paddockd: timerfd read: %s\n", strerror(errno));
    if (pdk_server_writer_lagging(srv)) {
        /* The writer is behind: slow down rather than lose an input. Look
         * again in a millisecond; the deadlines missed meanwhile count as
         * late ticks or dropped deadlines. */
        arm_timer_after(srv, uv_hrtime() + 1000000u);
        return;
    }
    uint64_t due = pdk_server_next_deadline_ns(srv);
    uint64_t woke = uv_hrtime();
    if (due > woke && due - woke <= srv->cfg.tick_spin_ns) {
        while (uv_hrtime() < due) {
        }
    }
    run_realtime_turns(srv);
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        if (!runs_on_timer(slot))
            continue;
        if (slot->replay.player)
            run_replay(srv, slot);
        else
            drop_missed(slot);
    }
    pdk_server_arm_timer(srv);
}

static void update_fast_idle(pdk_server *srv);

static void on_writer_wait(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    update_fast_idle(srv);
}

/* One slot's share of a slice: owed steps up to their tick (answered when
 * done), or a fast session up to the fast-tick limit. */
static void run_fast(pdk_server *srv, pdk_server_slot *slot, uint64_t budget)
{
    uint64_t t0 = uv_hrtime();
    do {
        if (slot->steps.owed) {
            if (pdk_server_slot_tick(slot) >= slot->steps.to)
                break;
        } else if (pdk_world_tick(pdk_session_world(slot->session)) >= srv->cfg.max_fast_ticks) {
            char reason[PDK_SERVER_REASON_LEN];
            snprintf(reason, sizeof(reason),
                     "a fast session stops at the server's limit of %" PRIu64
                     " ticks (--max-fast-ticks)",
                     srv->cfg.max_fast_ticks);
            pdk_server_pause(srv, slot, PDK_PAUSE_LIMIT, reason);
            return;
        }
        if (!pdk_server_tick_slot(srv, slot))
            return;
    } while (uv_hrtime() - t0 < budget);
    if (slot->steps.owed && pdk_server_slot_tick(slot) >= slot->steps.to)
        pdk_server_steps_done(srv, slot);
}

/* Fast sessions and owed steps share each 2 ms slice equally, starting with
 * a different one every slice so none waits behind another. */
static void on_fast_idle(uv_idle_t *handle)
{
    pdk_server *srv = handle->data;
    if (pdk_server_writer_lagging(srv)) {
        /* Sleep, not spin, while the writer catches up: it needs the CPU. */
        uv_idle_stop(&srv->sched.fast_idle);
        srv->sched.fast_idle_on = false;
        uv_timer_start(&srv->sched.writer_wait, on_writer_wait, 1, 0);
        return;
    }
    size_t n_fast = 0;
    for (size_t i = 0; i < srv->table.n; i++)
        if (runs_fast(&srv->table.items[i]))
            n_fast++;
    if (n_fast > 0) {
        uint64_t budget = FAST_SLICE_NS / n_fast;
        size_t n = srv->table.n;
        size_t first = srv->sched.fast_first % n;
        srv->sched.fast_first = first + 1;
        for (size_t k = 0; k < n; k++) {
            pdk_server_slot *slot = &srv->table.items[(first + k) % n];
            if (runs_fast(slot))
                run_fast(srv, slot, budget);
        }
    }
    update_fast_idle(srv);
}

static void update_fast_idle(pdk_server *srv)
{
    bool any = false;
    for (size_t i = 0; i < srv->table.n; i++)
        if (runs_fast(&srv->table.items[i]))
            any = true;
    if (any && !srv->sched.fast_idle_on && !srv->stopping && !pdk_server_writer_lagging(srv)) {
        uv_idle_start(&srv->sched.fast_idle, on_fast_idle);
        srv->sched.fast_idle_on = true;
    } else if (!any && srv->sched.fast_idle_on) {
        uv_idle_stop(&srv->sched.fast_idle);
        srv->sched.fast_idle_on = false;
    } else if (any && !srv->sched.fast_idle_on && !srv->stopping) {
        uv_timer_start(&srv->sched.writer_wait, on_writer_wait, 1, 0); /* the writer lags */
    }
}

void pdk_server_reschedule(pdk_server *srv)
{
    update_fast_idle(srv);
    pdk_server_arm_timer(srv);
}

/* ---- what requests share ------------------------------------------------- */

static Paddock__V1__TimingMode timing_pb(pdk_timing t)
{
    switch (t) {
    case PDK_TIMING_FAST:
        return PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST;
    case PDK_TIMING_LOCKSTEP:
        return PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP;
    case PDK_TIMING_REALTIME:
        break;
    }
    return PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME;
}

void pdk_server_fill_info(const pdk_server_sched *sched, pdk_server_slot *slot,
                          Paddock__V1__SessionInfo *info, Paddock__V1__TickParts *tp)
{
    pdk_session *s = slot->session;
    pdk_lateness *lat = pdk_session_lateness(s);
    paddock__v1__session_info__init(info);
    info->session_id = slot->id;
    info->name = (char *)pdk_session_name(s);
    if (slot->worker.busy) {
        info->tick = slot->worker.view.tick;
        info->sim_time_s = slot->worker.view.sim_time_s;
        info->vehicle_count = slot->worker.view.vehicle_count;
        info->state_hash = slot->worker.view.state_hash;
        info->subscriber_count = slot->worker.view.subscriber_count;
    } else {
        const pdk_world *w = pdk_session_world(s);
        info->tick = pdk_world_tick(w);
        info->sim_time_s = pdk_world_time_s(w);
        info->vehicle_count = (uint32_t)pdk_world_vehicle_count(w);
        info->state_hash = pdk_session_hash(s);
        info->subscriber_count = (uint32_t)pdk_session_subscriber_count(s);
    }
    info->timing = timing_pb(slot->sched.timing);
    info->world_preset = (char *)pdk_session_world_preset(s);
    info->overruns = lat->overruns;
    info->lateness_p50_ms = pdk_lateness_quantile_ms(lat, 0.50);
    info->lateness_p99_ms = pdk_lateness_quantile_ms(lat, 0.99);
    info->skipped_ticks = lat->skipped;
    const pdk_lateness *tt = pdk_session_tick_time(s);
    info->tick_time_p50_ms = pdk_lateness_quantile_ms(tt, 0.50);
    info->tick_time_p99_ms = pdk_lateness_quantile_ms(tt, 0.99);
    info->tick_time_max_ms = (double)tt->max_ns / 1e6;
    info->long_ticks = tt->overruns;
    info->paused = slot->sched.pause != PDK_PAUSE_NONE || sched->writer_stalled;
    info->pause_reason = slot->sched.pause != PDK_PAUSE_NONE ? slot->sched.pause_reason
                         : sched->writer_stalled             ? (char *)sched->writer_reason
                                                             : (char *)"";
    info->timing_reason = slot->sched.timing_reason;
    info->replay_of = slot->replay.of;
    info->step_thread = slot->stepping.threaded;
    info->tick_cost_ms = (double)slot->stepping.cost_ns / 1e6;
    info->tick_phase_ms =
        ticks_in_real_time(slot)
            ? fmod((double)deadline_ns(slot), (double)NS_PER_S / PDK_TICK_HZ) / (double)NS_PER_MS
            : 0.0;
    const pdk_tick_parts *p =
        slot->worker.busy ? &slot->worker.view.parts : pdk_session_tick_parts(s);
    paddock__v1__tick_parts__init(tp);
    tp->ticks = p->ticks;
    tp->inputs_ns = p->inputs_ns;
    tp->step_ns = p->step_ns;
    tp->hash_ns = p->hash_ns;
    tp->keyframe_ns = p->keyframe_ns;
    tp->publish_ns = p->publish_ns;
    tp->delivery_ns = slot->stepping.delivery_ns;
    tp->writer_cpu_ns = sched->writer_cpu_ns;
    tp->writer_stalls = sched->writer_stalls;
    info->tick_parts = tp;
}

void pdk_server_reply_control(pdk_server *srv, pdk_conn *conn, uint64_t rid, pdk_server_slot *slot)
{
    Paddock__V1__SessionInfo info;
    Paddock__V1__TickParts parts;
    pdk_server_fill_info(&srv->sched, slot, &info, &parts);
    Paddock__V1__SessionControlReply r = PADDOCK__V1__SESSION_CONTROL_REPLY__INIT;
    r.tick = info.tick;
    r.session = &info;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = rid;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CONTROL_REPLY;
    f.session_control_reply = &r;
    pdk_server_send_frame(&srv->out, conn, &f);
}

/* ---- owed steps ------------------------------------------------------------ */

void pdk_server_lease_refresh(pdk_server *srv, pdk_server_slot *slot)
{
    if (slot->lease.conn_id == 0)
        return;
    slot->lease.expires_ns = uv_hrtime() + (uint64_t)slot->lease.deadline_ms * NS_PER_MS;
    pdk_server_arm_lease_timer(srv);
}

void pdk_server_steps_done(pdk_server *srv, pdk_server_slot *slot)
{
    slot->steps.owed = false;
    pdk_server_lease_refresh(srv, slot);
    pdk_server_conn *c = pdk_server_conn_find(srv, slot->steps.conn_id);
    if (c)
        pdk_server_reply_control(srv, c->conn, slot->steps.request_id, slot);
    pdk_server_settle_inputs(slot);
    pdk_server_reschedule(srv);
}

void pdk_server_steps_abort(pdk_server *srv, pdk_server_slot *slot, pdk_error code, const char *why)
{
    if (!slot->steps.owed)
        return;
    slot->steps.owed = false;
    uint64_t tick = pdk_server_slot_tick(slot);
    char msg[512];
    snprintf(msg, sizeof(msg),
             "%s; %" PRIu64 " of %" PRIu64 " owed steps were done (tick %" PRIu64 ")", why,
             tick - slot->steps.from, slot->steps.to - slot->steps.from, tick);
    pdk_server_error_to(srv, slot->steps.conn_id, slot->steps.request_id, code, msg);
    pdk_server_reschedule(srv);
}

void pdk_server_pause(pdk_server *srv, pdk_server_slot *slot, pdk_pause_kind kind,
                      const char *reason)
{
    if (slot->steps.owed) {
        char why[256];
        snprintf(why, sizeof(why), "session %" PRIu64 " paused: %s", slot->id, reason);
        pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    }
    slot->sched.pause = kind;
    snprintf(slot->sched.pause_reason, sizeof(slot->sched.pause_reason), "%s", reason);
    pdk_server_settle_inputs(slot);
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
        slot->sched.timing = PDK_TIMING_REALTIME;
        /* The reason, cut where it must, and what became of the session. */
        static const char tail[] = ": running in real time (LAPSE_REALTIME)";
        int keep = (int)(sizeof(slot->sched.timing_reason) - sizeof(tail));
        snprintf(slot->sched.timing_reason, sizeof(slot->sched.timing_reason), "%.*s%s", keep,
                 reason, tail);
        pdk_server_rebase(srv, slot);
        pdk_server_reschedule(srv);
    } else {
        pdk_server_pause(srv, slot, PDK_PAUSE_LEASE, reason);
    }
    pdk_server_arm_lease_timer(srv);
}

void pdk_server_arm_lease_timer(pdk_server *srv)
{
    uint64_t next = 0;
    for (size_t i = 0; i < srv->table.n; i++) {
        const pdk_server_slot *slot = &srv->table.items[i];
        if (slot->lease.conn_id == 0 || slot->steps.owed)
            continue;
        if (next == 0 || slot->lease.expires_ns < next)
            next = slot->lease.expires_ns;
    }
    if (next == 0 || srv->stopping) {
        uv_timer_stop(&srv->sched.lease_timer);
        return;
    }
    uint64_t now = uv_hrtime();
    uint64_t ms = next > now ? (next - now + NS_PER_MS - 1) / NS_PER_MS : 0;
    uv_update_time(&srv->loop);
    uv_timer_start(&srv->sched.lease_timer, pdk_server_on_lease_timer, ms, 0);
}

void pdk_server_on_lease_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    uint64_t now = uv_hrtime();
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        if (slot->lease.conn_id == 0 || slot->steps.owed || slot->lease.expires_ns > now)
            continue;
        char why[96];
        snprintf(why, sizeof(why), "lapsed after %u ms without a step", slot->lease.deadline_ms);
        lapse(srv, slot, why);
    }
    pdk_server_arm_lease_timer(srv);
}

/* A connection closed: owed steps nobody waits for stop, and its step
 * leases lapse. */
void pdk_server_steps_forget_conn(pdk_server *srv, uint64_t conn_id)
{
    for (size_t i = 0; i < srv->table.n; i++) {
        pdk_server_slot *slot = &srv->table.items[i];
        if (slot->steps.owed && slot->steps.conn_id == conn_id && slot->lease.conn_id != conn_id) {
            /* Nobody waits for these steps any more. */
            slot->steps.owed = false;
            pdk_server_reschedule(srv);
        }
        if (slot->lease.conn_id == conn_id)
            lapse(srv, slot, "ended when it disconnected");
    }
}
