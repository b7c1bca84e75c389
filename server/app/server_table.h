/* The session table (server_table.c): each session's slot, its
 * concerns apart, and the lookups the requests make (a session by id, or
 * the error reply that says why a request may not have it). */
#ifndef PDK_SERVER_TABLE_H
#define PDK_SERVER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "server_conn.h"
#include "session.h"

#define PDK_SERVER_REASON_LEN 160 /* pause and timing reasons (nanopb: 159 bytes kept) */

/* Why a session does not tick on its own. */
typedef enum pdk_pause_kind {
    PDK_PAUSE_NONE = 0,
    PDK_PAUSE_USER,       /* SessionControl pause, or a step on a running session */
    PDK_PAUSE_LEASE,      /* its lockstep stepper lapsed or disconnected */
    PDK_PAUSE_LIMIT,      /* a fast session at --max-fast-ticks: takes no inputs */
    PDK_PAUSE_REPLAY_END, /* a replay at its recording's last tick */
    PDK_PAUSE_DISK,       /* recorded, and the disk is full: resumes when space returns */
} pdk_pause_kind;

/* A lockstep session's step lease: who may step it, until when. */
typedef struct pdk_step_lease {
    uint64_t conn_id; /* 0: free */
    char holder[PDK_SERVER_HOLDER_LEN];
    uint32_t deadline_ms;
    uint64_t expires_ns; /* lapses once the clock passes it while no steps are owed */
    bool lapse_realtime; /* LAPSE_REALTIME: fall back to real time instead of pausing */
} pdk_step_lease;

/* What a session looked like when a worker took it (a replay's seek), so
 * listings and stats can show it without touching it. */
typedef struct pdk_slot_view {
    uint64_t tick;
    double sim_time_s;
    uint32_t vehicle_count;
    uint64_t state_hash;
    uint32_t subscriber_count;
    pdk_tick_parts parts;
} pdk_slot_view;

/* When a session ticks: its timing, the real-time schedule and why it
 * does not tick on its own. */
typedef struct pdk_slot_schedule {
    pdk_timing timing;   /* how it ticks now (SessionControl set_timing changes it) */
    uint64_t start_ns;   /* wall-clock origin of the tick schedule */
    uint64_t next_index; /* the next deadline is start + next_index periods */
    pdk_pause_kind pause;
    char pause_reason[PDK_SERVER_REASON_LEN];
    char timing_reason[PDK_SERVER_REASON_LEN];
} pdk_slot_schedule;

/* Owed steps (Step, run_to_tick): ticked in the fast slices up to to, then
 * answered. */
typedef struct pdk_owed_steps {
    bool owed;
    uint64_t to;
    uint64_t from;
    uint64_t conn_id;
    uint64_t request_id;
} pdk_owed_steps;

/* A replay: the recording it plays, its player and speed. */
typedef struct pdk_slot_replay {
    pdk_recording *rec;
    pdk_player *player; /* NULL: a live session */
    uint64_t of;        /* the recorded session's id */
    double speed;
} pdk_slot_replay;

/* A worker owns the session (a seek): nothing on the loop touches it;
 * connections that close meanwhile are forgotten when it comes back. */
typedef struct pdk_slot_worker {
    bool busy;
    pdk_slot_view view;
    uint64_t *forget;
    size_t n_forget, cap_forget;
} pdk_slot_worker;

/* Where a real-time session's ticks run: on the loop while they cost less
 * than a hand-off to a step thread (cfg.step_threshold_ns), on a step
 * thread once they cost more (ADR 0031). While a tick is out, worker.busy
 * is set too, so the loop reads only the view. */
typedef struct pdk_slot_stepping {
    struct pdk_server_step *job; /* kept from tick to tick; NULL until the first */
    bool out;                    /* a tick is on a step thread now */
    bool threaded;               /* its ticks go to step threads */
    uint64_t cost_ns;            /* its tick's CPU time, smoothed */
    uint64_t delivery_ns;        /* the loop's time saying what its threaded ticks said, summed */
    int catchup;                 /* ticks run since its last deadline was met */
} pdk_slot_stepping;

/* One session in the server's table, its concerns apart. */
typedef struct pdk_server_slot {
    pdk_session *session;
    uint64_t id;
    size_t world_bytes; /* the world's memory, counted against max_world_bytes */
    pdk_slot_schedule sched;
    pdk_step_lease lease;
    pdk_owed_steps steps;
    pdk_slot_replay replay;
    pdk_slot_worker worker;
    pdk_slot_stepping stepping;
    /* Bumped whenever the session's timeline jumps rather than runs on (a
     * reset, a replay's seek), so that viewers whose clock follows sim time
     * (the Foxglove server) know to start their clock afresh. */
    uint32_t timeline_epoch;
} pdk_server_slot;

/* The session table: the sessions in creation order (server_sessions.c
 * opens and closes them)
 * and the room they take. */
typedef struct pdk_server_table {
    pdk_server_slot *items;
    size_t n, cap;
    size_t world_bytes; /* sum over sessions and reservations */
    int reserved;       /* replays and forks being made off the loop */
} pdk_server_table;

pdk_server_slot *pdk_server_session_find(pdk_server_table *table, uint64_t id);
/* The session's tick now (the view's while a worker owns it). */
uint64_t pdk_server_slot_tick(const pdk_server_slot *slot);
/* The slot of session id, or an error reply (NOT_FOUND; BUSY while a worker
 * owns it) and NULL. */
pdk_server_slot *pdk_server_need_session(pdk_server_table *table, pdk_buf *out, pdk_conn *conn,
                                         uint64_t rid, uint64_t id);
/* A session that takes a command: it exists, is not a replay and is not
 * paused at a limit. Else an error reply and NULL. */
pdk_server_slot *pdk_server_need_live_session(pdk_server_table *table, pdk_buf *out, pdk_conn *conn,
                                              uint64_t rid, uint64_t id);
/* A replay takes no commands: true after replying so (UNSUPPORTED). */
bool pdk_server_refuse_replay(pdk_buf *out, pdk_conn *conn, uint64_t rid,
                              const pdk_server_slot *slot);
/* A session that will not tick by itself soon (paused, or lockstep with no
 * steps owed) applies queued inputs at once, so their replies come now. */
void pdk_server_settle_inputs(pdk_server_slot *slot);

#endif
