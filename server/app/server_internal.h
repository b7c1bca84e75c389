/* What paddockd's server files share: the server's state, a connection's and
 * a session slot's, and the functions of each file, in the order they call
 * each other: a file calls only those above it. server_conn.c: connections
 * and sending; server_sched.c: the tick scheduler, owed steps and the step
 * lease; server_stats.c: the stats stream; server_hooks.c: the sessions'
 * hooks and the replies to queued inputs; server_sessions.c: the session
 * table; the requests by topic in server_requests.c (sessions, vehicles,
 * DBW, leases, subscriptions), server_control.c (SessionControl) and
 * server_recording.c (replays and the recording services that run off the
 * loop: verify, fork, export, import, CSV, metadata); server.c: the loop,
 * connections' frames dispatched, start and stop. Private to those files.
 * Everything here runs on the loop thread unless a comment says
 * otherwise. */
#ifndef PDK_SERVER_INTERNAL_H
#define PDK_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "net.h"
#include "replay.h"
#include "server.h"
#include "session.h"
#include "store.h"
#include "wire.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif
#define PDK_SERVER_VERSION "0.1.0"
#define PDK_SERVER_NS_PER_S 1000000000ull
#define PDK_SERVER_REASON_LEN 160      /* pause and timing reasons (nanopb: 159 bytes kept) */
#define PDK_SERVER_HOLDER_LEN 96       /* "connection 4 (wheel-rig)" */
#define PDK_SERVER_MAX_NAME_BYTES 64   /* session names, presets */
#define PDK_SERVER_MAX_TEXT_BYTES 4096 /* override strings */
#define PDK_SERVER_CONN_MAX_SUBS 32    /* state, DBW and stats subscriptions of one connection */
#define PDK_SERVER_STEP_MAX 1000000u   /* ticks one Step or run_to_tick may ask for */
#define PDK_SERVER_LEASE_DEFAULT_MS 2000u
#define PDK_SERVER_LEASE_MIN_MS 10u
#define PDK_SERVER_LEASE_MAX_MS 600000u
#define PDK_SERVER_CHUNK_BYTES 16384u /* ExportChunk and ImportChunk data */

/* Why a session does not tick on its own. */
typedef enum pdk_pause_kind {
    PDK_PAUSE_NONE = 0,
    PDK_PAUSE_USER,       /* SessionControl pause, or a step on a running session */
    PDK_PAUSE_LEASE,      /* its lockstep stepper lapsed or disconnected */
    PDK_PAUSE_LIMIT,      /* a fast session at --max-fast-ticks: takes no inputs */
    PDK_PAUSE_REPLAY_END, /* a replay at its recording's last tick */
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
} pdk_server_slot;

/* An ImportChunk upload in progress on one connection. */
typedef struct pdk_upload {
    int fd; /* -1: none */
    char dir[256];
    char path[300];
    uint64_t offset; /* bytes received */
} pdk_upload;

typedef struct pdk_server_conn {
    uint64_t id;
    pdk_conn *conn;
    bool greeted;
    bool viewer;                        /* Hello.viewer: watches, never commands */
    char holder[PDK_SERVER_HOLDER_LEN]; /* "connection 4 (wheel-rig)": how messages name it */
    uint32_t last_sub_id;               /* subscription ids are unique per connection */
    int n_subs;
    int pending; /* queued inputs whose reply is still to come */
    bool eof;    /* the peer half-closed: close once pending is 0 */
    pdk_upload upload;
} pdk_server_conn;

/* A stats subscription: SessionStats at rate_hz from the stats timer. */
typedef struct pdk_stats_sub {
    uint64_t conn_id;
    uint32_t sub_id;
    uint64_t session_id;
    uint64_t period_ns;
    uint64_t due_ns;
    uint64_t last_ns; /* when the last frame went out, for the real-time factor */
    double last_sim_s;
} pdk_stats_sub;

/* A file streamed back as ExportChunk frames (an export or a CSV), a chunk
 * at a time while the connection's queue is short. */
typedef struct pdk_stream {
    uint64_t conn_id;
    uint64_t request_id;
    int fd;
    char dir[256];
    char path[300];
    uint64_t offset;
    uint64_t size;
} pdk_stream;

/* A hook a session called on a worker thread (a replay's seek restoring a
 * keyframe ends the DBW subscriptions of vehicles it does not hold), kept
 * for the loop to deliver: only the loop touches connections. */
typedef struct pdk_deferred {
    bool control; /* a ControlEvent; else a subscription's end */
    uint64_t conn_id;
    uint32_t sub_id;
    pdk_error code;
    pdk_control_event event; /* reason points at why */
    char why[256];
} pdk_deferred;

/* A reset or reseed waiting for its tick: its reply names the session. */
typedef struct pdk_pending_control {
    uint64_t conn_id;
    uint64_t request_id;
    uint64_t session_id;
} pdk_pending_control;

/* The tick scheduler's own state (server_sched.c). */
typedef struct pdk_server_sched {
    int timer_fd;
    uv_poll_t timer_poll;
    uv_idle_t fast_idle;
    bool fast_idle_on;
    uv_timer_t writer_wait; /* re-checks a stalled writer while fast sessions wait */
    size_t fast_first;      /* the fast session that goes first next slice */
    uint64_t writer_stalls;
    bool writer_stalled;
    uint64_t writer_queued; /* at the last look */
    char writer_reason[PDK_SERVER_REASON_LEN];
    uv_timer_t lease_timer; /* the earliest step lease deadline */
} pdk_server_sched;

/* The stats subscriptions and the timer of the earliest one due
 * (server_stats.c). */
typedef struct pdk_server_stats {
    pdk_stats_sub *subs;
    size_t n, cap;
    uv_timer_t timer;
} pdk_server_stats;

/* Files streamed back (server_recording.c). */
typedef struct pdk_server_streams {
    pdk_stream *items;
    size_t n, cap;
    uv_timer_t timer;
    bool timer_on;
} pdk_server_streams;

/* Resets and reseeds waiting for their tick (server_control.c queues them,
 * server_hooks.c answers them). */
typedef struct pdk_server_controls {
    pdk_pending_control *items;
    size_t n, cap;
} pdk_server_controls;

/* What hooks called off the loop keep for it (server_hooks.c). */
typedef struct pdk_server_deferred {
    uv_thread_t loop_thread;
    uv_mutex_t lock;
    pdk_deferred *items;
    size_t n, cap;
} pdk_server_deferred;

typedef struct pdk_server {
    pdk_server_config cfg;
    uv_loop_t loop;
    pdk_listener *net;
    pdk_store *store;

    pdk_server_conn **conns;
    size_t n_conns, cap_conns;

    pdk_server_slot *sessions;
    size_t n_sessions, cap_sessions;
    size_t world_bytes;    /* sum over sessions and reservations */
    int reserved_sessions; /* replays and forks being made off the loop */

    pdk_server_sched sched;
    uv_signal_t sig_int, sig_term;
    uv_timer_t live_timer;
    bool live_on;
    bool stopping;

    pdk_server_stats stats;
    pdk_server_streams streams;
    pdk_server_controls controls;
    pdk_server_deferred deferred;

    uint64_t demo_session;
    pdk_buf out;
} pdk_server;

/* A request a client may send: the handler of one Frame body, and whether
 * it changes a session (a viewer may not send those). Each topic's file
 * has a table of them, ended by a NULL handler; server.c dispatches. */
typedef struct pdk_server_request {
    Paddock__V1__Frame__BodyCase body;
    void (*handle)(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f);
    bool changes;
} pdk_server_request;

/* ---- server_conn.c: connections and sending ------------------------------ */

pdk_server_conn *pdk_server_conn_find(pdk_server *srv, uint64_t id);
/* Encodes and queues a frame (an encoding failure closes the connection). */
void pdk_server_send_frame(pdk_server *srv, pdk_conn *conn, const Paddock__V1__Frame *frame);
void pdk_server_send_error(pdk_server *srv, pdk_conn *conn, uint64_t request_id, pdk_error code,
                           const char *message);
void pdk_server_send_ok(pdk_server *srv, pdk_conn *conn, uint64_t request_id, uint64_t tick);
/* The same, addressed by connection id (nothing when it is gone). */
void pdk_server_error_to(pdk_server *srv, uint64_t conn_id, uint64_t request_id, pdk_error code,
                         const char *message);
/* Checks a request's text field: at most max bytes of UTF-8 without control
 * characters. On failure replies INVALID_ARGUMENT naming the field. */
bool pdk_server_text_ok(pdk_server *srv, pdk_conn *conn, uint64_t rid, const char *field,
                        const char *text, size_t max);
/* Room for one more subscription on c (CAPACITY reply otherwise). */
bool pdk_server_sub_room(pdk_server *srv, pdk_server_conn *c, uint64_t request_id);
/* An error reply to c's request rid, its message printf-formatted. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void pdk_server_refuse(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_error code,
                       const char *fmt, ...);

/* ---- server_sched.c: the tick scheduler, owed steps, the step lease ------ */

pdk_server_slot *pdk_server_session_find(pdk_server *srv, uint64_t id);
/* The session's tick now (the view's while a worker owns it). */
uint64_t pdk_server_slot_tick(const pdk_server_slot *slot);
/* Starts the tick schedule afresh from now (no burst of catch-up ticks). */
void pdk_server_rebase(pdk_server_slot *slot);
/* One tick: a replay's next recorded tick, else the session's. False when
 * a replay is at its recording's end (the slot is paused then). */
bool pdk_server_tick_slot(pdk_server *srv, pdk_server_slot *slot);
/* The real-time timer (a timerfd the loop polls): fires at the earliest
 * deadline, which pdk_server_arm_timer sets. */
void pdk_server_on_timer(uv_poll_t *handle, int status, int events);
void pdk_server_arm_timer(pdk_server *srv);
/* Re-evaluates which schedulers must run after a slot changed. */
void pdk_server_reschedule(pdk_server *srv);
/* True while the SQLite writer is too far behind for sessions to tick. */
bool pdk_server_writer_lagging(pdk_server *srv);
void pdk_server_fill_info(pdk_server *srv, pdk_server_slot *slot, Paddock__V1__SessionInfo *info);
/* SessionControlReply: the session's tick and info now. */
void pdk_server_reply_control(pdk_server *srv, pdk_conn *conn, uint64_t rid, pdk_server_slot *slot);
/* The slot of session id, or an error reply (NOT_FOUND; BUSY while a worker
 * owns it) and NULL. */
pdk_server_slot *pdk_server_need_session(pdk_server *srv, pdk_conn *conn, uint64_t rid,
                                         uint64_t id);
/* A session that takes a command: it exists, is not a replay and is not
 * paused at a limit. Else an error reply and NULL. */
pdk_server_slot *pdk_server_need_live_session(pdk_server *srv, pdk_conn *conn, uint64_t rid,
                                              uint64_t id);
/* A replay takes no commands: true after replying so (UNSUPPORTED). */
bool pdk_server_refuse_replay(pdk_server *srv, pdk_conn *conn, uint64_t rid,
                              const pdk_server_slot *slot);
/* A session that will not tick by itself soon (paused, or lockstep with no
 * steps owed) applies queued inputs at once, so their replies come now. */
void pdk_server_settle_inputs(pdk_server *srv, pdk_server_slot *slot);
/* The step lease's deadline starts again from now (nothing when free). */
void pdk_server_lease_refresh(pdk_server *srv, pdk_server_slot *slot);
/* Owed steps reached their tick: the reply, and the lease's deadline
 * starts again. */
void pdk_server_steps_done(pdk_server *srv, pdk_server_slot *slot);
/* Drops owed steps, answering their request with code and why. */
void pdk_server_steps_abort(pdk_server *srv, pdk_server_slot *slot, pdk_error code,
                            const char *why);
/* Pauses slot (kind, reason); owed steps are answered with an error. */
void pdk_server_pause(pdk_server *srv, pdk_server_slot *slot, pdk_pause_kind kind,
                      const char *reason);
/* Re-arms the lease timer for the earliest step lease deadline. */
void pdk_server_arm_lease_timer(pdk_server *srv);
void pdk_server_on_lease_timer(uv_timer_t *t);
/* A connection closed: owed steps nobody waits for stop, and its step
 * leases lapse. */
void pdk_server_steps_forget_conn(pdk_server *srv, uint64_t conn_id);

/* ---- server_stats.c: the stats stream ------------------------------------ */

/* Ends a stats subscription of conn_id; false when it has none of that id. */
bool pdk_server_stats_unsubscribe(pdk_server *srv, uint64_t conn_id, uint32_t sub_id);
void pdk_server_on_stats_timer(uv_timer_t *t);
/* A connection closed: its stats subscriptions go. */
void pdk_server_stats_forget_conn(pdk_server *srv, uint64_t conn_id);
/* A session is closing: its stats subscribers hear so. */
void pdk_server_stats_forget_session(pdk_server *srv, const pdk_server_slot *slot);

/* ---- server_hooks.c: the sessions' hooks and the replies to queued inputs --- */

/* The session hooks every session of this server gets. Called on a worker
 * thread (sessions made or sought off the loop), they keep subscription
 * ends and control events for pdk_server_flush_deferred and drop state
 * frames (a worker's session publishes nothing). */
pdk_session_hooks pdk_server_hooks(pdk_server *srv);
/* Delivers what hooks kept on worker threads (after each job). */
void pdk_server_flush_deferred(pdk_server *srv);
/* A reset's or reseed's result: its SessionControlReply. True when res
 * answered one (the caller sends nothing else). */
bool pdk_server_control_result(pdk_server *srv, pdk_server_conn *c, pdk_reply_to to,
                               const pdk_input_result *res);
/* A connection closed: the resets and reseeds it waits for go. */
void pdk_server_controls_forget_conn(pdk_server *srv, uint64_t conn_id);

/* ---- server_sessions.c: the session table -------------------------------- */

/* A new session from a world preset, in the table. err names what failed. */
pdk_error pdk_server_session_open(pdk_server *srv, const char *name, const char *world_preset,
                                  const char *world_overrides, pdk_timing timing, bool record,
                                  char *err, size_t err_len, pdk_server_slot **out);
/* Room for one more session of world_bytes (CAPACITY with err otherwise). */
pdk_error pdk_server_session_room(pdk_server *srv, size_t world_bytes, char *err, size_t err_len);
/* Puts a session made elsewhere (a replay, a fork, off the loop) in the
 * table; world_bytes must have been reserved. NO_MEMORY leaves s with the
 * caller. */
pdk_error pdk_server_session_adopt(pdk_server *srv, pdk_session *s, pdk_timing timing,
                                   size_t world_bytes, pdk_server_slot **out);
/* Destroys a session (or hands a busy one to its worker) and drops the
 * slot: owed steps and stats subscriptions are told. */
void pdk_server_session_close(pdk_server *srv, pdk_server_slot *slot);

/* ---- the requests, by topic ---------------------------------------------- */

extern const pdk_server_request pdk_server_session_requests[];      /* server_requests.c */
extern const pdk_server_request pdk_server_vehicle_requests[];      /* server_vehicles.c */
extern const pdk_server_request pdk_server_subscription_requests[]; /* server_subscriptions.c */
extern const pdk_server_request pdk_server_control_requests[];      /* server_control.c */
extern const pdk_server_request pdk_server_stats_requests[];        /* server_stats.c */
extern const pdk_server_request pdk_server_recording_requests[];    /* server_recording.c */

/* ---- server_recording.c: replays and the recording services -------------- */

/* A replay's seek (SessionControl seek), off the loop. */
void pdk_server_replay_seek(pdk_server *srv, pdk_server_conn *c, uint64_t request_id,
                            pdk_server_slot *slot, uint64_t tick);
/* A replay's speed: 0.01..1000 (checked by the caller). */
void pdk_server_replay_speed(pdk_server_slot *slot, double speed);
/* A connection closed: its upload's temporary file goes, its streams stop. */
void pdk_server_recording_forget_conn(pdk_server *srv, pdk_server_conn *c);
/* Removes every temporary file still open (shutdown). */
void pdk_server_recording_stop(pdk_server *srv);
void pdk_server_on_stream_timer(uv_timer_t *t);

#endif
