/* The whole server (pdk_server) and the functions of the files that need
 * it, in the order they call each other: a file calls only those above
 * it. A connection's state and sending are server_conn.h's, a session's
 * slot and the table's lookups server_table.h's, what a request handler
 * is given server_request.h's; this header is for the loop's own jobs:
 * server_sched.c (the tick scheduler, owed steps, the step lease),
 * server_stats.c (the stats stream), server_hooks.c (the sessions' hooks
 * and the replies to queued inputs), server_retention.c (the retention
 * options), server_sessions.c (sessions opened and closed),
 * server_recording.c (replays and the recording services
 * that run off the loop), and the request handlers that must see the
 * whole server (each topic's table says which and why); server.c: the
 * loop, connections' frames dispatched, start and stop. Private to those
 * files. Everything here runs on the loop thread unless a comment says
 * otherwise. */
#ifndef PDK_SERVER_INTERNAL_H
#define PDK_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "agones.h"
#include "auth.h"
#include "net.h"
#include "replay.h"
#include "server.h"
#include "server_stats.h"
#include "server_table.h"
#include "session.h"
#include "step_pool.h"
#include "store.h"
#include "wire.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif
#define PDK_SERVER_VERSION "0.1.0"
#define PDK_SERVER_NS_PER_S 1000000000ull
#define PDK_SERVER_STEP_MAX 1000000u /* ticks one Step or run_to_tick may ask for */
#define PDK_SERVER_LEASE_DEFAULT_MS 2000u
/* (preset, overrides) pairs the spawn cache keeps: a fleet uses a few presets. */
#define PDK_SERVER_PRESET_CACHE_ENTRIES 32u
/* The loop thread's CPU time one unit of the costly budget
 * (--max-spawns-per-tick) stands for: a costly request that took longer
 * spends a unit for each.
 * At the default of 4 a tick, a connection's costly requests take about
 * 1 ms of each 8.33 ms tick on average; a spawn from the preset cache takes
 * a small part of a unit. */
#define PDK_SERVER_COSTLY_UNIT_NS 250000u
#define PDK_SERVER_LEASE_MIN_MS 10u
#define PDK_SERVER_LEASE_MAX_MS 600000u
#define PDK_SERVER_CHUNK_BYTES 16384u /* ExportChunk and ImportChunk data */

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
    uint64_t writer_cpu_ns; /* the writer thread's CPU time at the last look */
    char writer_reason[PDK_SERVER_REASON_LEN];
    uv_timer_t lease_timer; /* the earliest step lease deadline */
    /* The disk is full (pdk_store_disk_full): recorded sessions are paused
     * with PDK_PAUSE_DISK and disk_reason. disk_timer looks at the store
     * every PDK_SERVER_DISK_LOOK_MS, since no session ticks meanwhile. */
    bool disk_full;
    char disk_reason[PDK_SERVER_REASON_LEN];
    uv_timer_t disk_timer;
} pdk_server_sched;

/* Files streamed back (server_recording.c). */
typedef struct pdk_server_streams {
    pdk_stream *items;
    size_t n, cap;
    uv_timer_t timer;
    bool timer_on;
} pdk_server_streams;

/* At most this many recording jobs of the fair queue run on libuv's pool
 * at once (its default is four threads): one thread stays for seeks and
 * for making replays and forks, which a client waits on in a live
 * session, so reads queued by others never hold them up. */
#define PDK_SERVER_JOBS_RUNNING 3u

/* Recording jobs (server_recording.c) waiting for the pool and running on
 * it. Each connection has at most max_queued_jobs of them and at most one
 * running; the next to run is the oldest of the connection after the one
 * served last (round robin by connection id), so a client with hundreds
 * queued delays another's next job by at most one job per connection. */
#define PDK_SERVER_JOB_KINDS 13 /* server_recording.c's kinds of job */

typedef struct pdk_server_jobs {
    struct pdk_server_job *first, *last; /* waiting, in arrival order */
    size_t n_waiting;
    struct pdk_server_job *running[PDK_SERVER_JOBS_RUNNING];
    size_t n_running;
    uint64_t last_conn_id;                   /* whose job started last */
    uint64_t finished[PDK_SERVER_JOB_KINDS]; /* by kind, since start (/metrics) */
} pdk_server_jobs;

/* The fair queue's jobs of one request (a VerifyRequest's, say): waiting
 * and running now, and finished (answered, refused or cancelled) since
 * start. */
typedef struct pdk_server_job_count {
    const char *request; /* "VerifyRequest" */
    uint32_t waiting, running;
    uint64_t finished;
} pdk_server_job_count;

/* Fills out with one count per request a job may come from, in a fixed
 * order, and returns how many (at most PDK_SERVER_JOB_KINDS). */
size_t pdk_server_jobs_count(const pdk_server_jobs *q,
                             pdk_server_job_count out[PDK_SERVER_JOB_KINDS]);

/* What a session's hooks said during a tick on a step thread
 * (server_hooks.c keeps it), said again on the loop in the same order. */
typedef enum pdk_captured_kind {
    PDK_CAPTURED_RESULT,
    PDK_CAPTURED_STATE,
    PDK_CAPTURED_DBW,
    PDK_CAPTURED_CONTROL,
    PDK_CAPTURED_PROXY_EVENT,
    PDK_CAPTURED_PROXY_CONTACT,
    PDK_CAPTURED_CONTACTS,
    PDK_CAPTURED_SUB_END,
    PDK_CAPTURED_LOST, /* its frame could not be kept (out of memory): not sent */
} pdk_captured_kind;

typedef struct pdk_captured {
    pdk_captured_kind kind;
    uint64_t conn_id;
    uint32_t sub_id;
    int report;   /* DBW: the report kind */
    uint32_t part; /* STATE: the tick's part (StateBatch.part) */
    pdk_error code; /* SUB_END */
    pdk_reply_to to;
    pdk_input_result res; /* RESULT: its message and proxy entry kept apart */
    bool has_text; /* its text (message, reason, label) was kept */
    bool has_entry;
    pdk_proxy_entry entry;
    pdk_control_event control;
    pdk_proxy_event proxy_event;
    uint64_t session_id, tick;
    pdk_proxy_id proxy;
    size_t off, off2; /* in the box's bytes: the frame, impulses, texts */
    size_t len;       /* a frame's bytes; PROXY_CONTACT: the impulses */
} pdk_captured;

typedef struct pdk_outbox {
    pdk_captured *items;
    size_t n, cap;
    pdk_buf bytes;
    bool lost; /* out of memory while keeping: the loop logs it */
    size_t max_frame_bytes; /* a longer frame is refused at once, as a send would */
} pdk_outbox;

/* A session's tick on a step thread (server_sched.c): the job, what it
 * said, and what the session looked like after it. Kept with the slot
 * from one tick to the next; a session closed while its tick is out is
 * destroyed when the job comes back. */
typedef struct pdk_server_step {
    pdk_step_job base; /* first: the pool hands this back */
    struct pdk_server *srv;
    pdk_session *session;
    uint64_t session_id;
    size_t max_frame_bytes;
    pdk_outbox out;
    uint64_t deadline_ns; /* the tick's deadline, */
    uint64_t start_ns;    /* when its thread began it: its lateness */
    uint64_t time_ns;     /* how long it took there, start to end */
    uint64_t cost_ns;     /* the tick's CPU time on its thread */
    pdk_slot_view view; /* after the tick */
    uint64_t inputs_applied; /* after the tick: with view.tick, says the view is current */
} pdk_server_step;

/* Frames that wait for a session on a step thread (server_park.c), in
 * arrival order; a connection with one waiting has all its later frames
 * wait behind it, so its replies keep their order. */
typedef struct pdk_parked {
    uint64_t conn_id;
    uint64_t session_id; /* the session it waits for; 0: only its connection's earlier frames */
    uint8_t *frame;      /* the packed Frame */
    size_t len;
} pdk_parked;

typedef struct pdk_server_parked {
    pdk_parked *items;
    size_t n, cap;
    size_t next; /* a pass's next item (pdk_server_park_next) */
} pdk_server_parked;

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

/* Who made each session, and its name, so that access to it (and to its
 * recording once it closed) can be decided; the join tokens handed out.
 * With --auth both are recorded for recorded sessions and read again at
 * start (migration 0005, server_access.c). */
typedef struct pdk_session_owner {
    uint64_t session_id;
    char owner[PDK_AUTH_NAME_LEN]; /* "": nobody (the demo); admins and operators only */
    char name[PDK_SERVER_MAX_NAME_BYTES + 1];
} pdk_session_owner;

typedef struct pdk_join_token {
    uint8_t token_sha256[32]; /* the token itself is only ever in its reply */
    uint64_t session_id;
    pdk_role role;
} pdk_join_token;

typedef struct pdk_server_access {
    pdk_auth *auth; /* NULL without --auth */
    pdk_session_owner *owners;
    size_t n_owners, cap_owners;
    pdk_join_token *tokens;
    size_t n_tokens, cap_tokens;
} pdk_server_access;

typedef struct pdk_server {
    pdk_server_config cfg;
    uv_loop_t loop;
    pdk_listener *net;
    pdk_tls *tls; /* the TCP listener's TLS; NULL: plain TCP */
    pdk_listener *http; /* NULL unless --http */
    struct pdk_foxglove *fox; /* the Foxglove server on http; NULL unless --http */
    pdk_listener *local; /* in-process connections (pdk_server_local_listener); NULL: none */
    uint64_t started_ms; /* uv_now at start, for /healthz's uptime */
    pdk_store *store;
    struct pdk_preset_cache *presets; /* spawns' vehicle presets, loaded once per file version */

    pdk_server_conn **conns;
    size_t n_conns, cap_conns;
    pdk_conn_stats closed_conns; /* the closed ones' counters, summed (/metrics) */
    uv_timer_t hello_timer; /* the earliest Hello deadline of a connection yet to say it */
    bool hello_timer_on;
    uv_timer_t hold_timer; /* the next tick's start: held connections read again */
    bool hold_timer_on;
    /* Costly requests kept until a real-time tick has run (server.c,
     * costly_waits): a timer in case that tick never comes (its session
     * paused or closed), and, while the requests kept are handled after
     * a tick's turn, whether the one it lets through whatever the next
     * deadline is still to come. */
    uv_timer_t costly_timer;
    bool costly_timer_on;
    bool costly_free;
    uint64_t hold_until_tick; /* when it is due: uv_hrtime in 1/120 s */
    pdk_net_budget partial; /* partial inbound frames of the TCP and HTTP listeners */

    pdk_server_table table;

    pdk_server_sched sched;
    uv_signal_t sig_int, sig_term;
    uv_timer_t live_timer;
    bool live_on;
    bool stopping;
    /* A SIGTERM's drain (cfg.drain_seconds) is under way: no new sessions;
     * the timer stops the server at its end, or as soon as no session is
     * left. */
    struct {
        struct pdk_agones *agent; /* NULL without --agones */
        uv_timer_t health_timer;  /* beats for /health; watches the allocated session */
        uint64_t session_id;      /* the allocated session while it runs, else 0 */
        bool ended;               /* it ended: exported, then shutdown */
    } agones;
    bool draining;
    uv_timer_t drain_timer;
    uv_work_t pool_warm;     /* starts libuv's pool before --rt-priority (server.c) */
    uint64_t drain_until_ms; /* uv_now when the drain's time is up */

    pdk_server_stats stats;
    pdk_server_streams streams;
    pdk_server_jobs jobs;
    pdk_server_controls controls;
    pdk_server_deferred deferred;

    pdk_server_access access;

    /* The retention rule runs once at a time on the pool; a recorded
     * session that closes meanwhile asks for one more run after it
     * (server_retention.c), so a burst of closes costs two runs, not one
     * per close. */
    bool retain_running;
    bool retain_again;

    /* Real-time ticks of sessions that cost more than a hand-off, on
     * threads of their own (cfg.step_threads; none: all on the loop). */
    pdk_step_pool step_pool;
    bool step_pool_on;
    pdk_server_parked parked;

    uint64_t demo_session;
    /* Bytes in ImportChunk temporary files, uploads and imports together,
     * held against cfg.max_import_bytes until the file is removed. */
    uint64_t import_bytes;
    pdk_buf out;
    /* A state frame's two pieces joined, for a tick on the loop (on_state). */
    pdk_buf frame_join;
} pdk_server;

/* ---- server_access.c: identities, owners, join tokens -------------------- */

struct pdk_server_request;

/* slot's session belongs to owner from now on ("" for nobody's); out of
 * memory leaves it nobody's. With --auth, the owner of a recorded session
 * is recorded too, so that it still owns the recording after a restart. */
void pdk_server_access_own(pdk_server *srv, const pdk_server_slot *slot, const char *owner);
/* Forgets session_id's owner, its join tokens and every connection's grant
 * on it: its session closed with no recording, or its recording was
 * deleted, so nothing of it is left to reach (and the tokens' and grants'
 * caps count only what is). */
void pdk_server_access_forget(pdk_server *srv, uint64_t session_id);
/* With --auth, the owners and join tokens recorded by earlier runs, read at
 * start before anyone connects. -1 (the reason on stderr) when the database
 * could not be read. */
int pdk_server_access_load(pdk_server *srv);
/* True when c's identity may send f as r->needs says; else an error reply
 * (PERMISSION_DENIED naming the identity, its role and the session; a
 * Hello.viewer's refusal as before, PROTOCOL) and false. */
bool pdk_server_access_check(pdk_server *srv, pdk_server_conn *c,
                             const struct pdk_server_request *r, const Paddock__V1__Frame *f);
void pdk_server_access_free(pdk_server_access *access);
/* Whether c has any role on session_id: what the listings show it
 * (SessionList here, RecordingList through a view). */
bool pdk_server_access_sees(const pdk_server *srv, const pdk_server_conn *c, uint64_t session_id);

/* What decides which sessions one connection sees, copied for a listing
 * that runs off the loop (the owners and grants may change meanwhile). */
typedef struct pdk_access_view pdk_access_view;
/* *out stays NULL when c sees every session (no --auth; an admin or
 * operator key without session patterns). false: out of memory. */
bool pdk_server_access_view_make(const pdk_server *srv, const pdk_server_conn *c,
                                 pdk_access_view **out);
/* pdk_store_list_filter.visible over a view (ctx). Any thread. */
bool pdk_server_access_view_sees(void *ctx, uint64_t session_id, const char *name);
void pdk_server_access_view_free(pdk_access_view *view);

/* ---- server_conn.c: connections by id ----------------------------------- */

pdk_server_conn *pdk_server_conn_find(pdk_server *srv, uint64_t id);
/* The same, addressed by connection id (nothing when it is gone). */
void pdk_server_error_to(pdk_server *srv, uint64_t conn_id, uint64_t request_id, pdk_error code,
                         const char *message);

/* ---- server_sched.c: the tick scheduler, owed steps, the step lease ------ */

/* Starts the tick schedule afresh from now (no burst of catch-up ticks); a
 * real-time session's first deadline within a period, where the other
 * real-time sessions' deadlines leave the most room. */
void pdk_server_rebase(pdk_server *srv, pdk_server_slot *slot);
/* One tick: a replay's next recorded tick, else the session's. False when
 * a replay is at its recording's end (the slot is paused then). */
bool pdk_server_tick_slot(pdk_server *srv, pdk_server_slot *slot);
/* The session's tick on the loop, its time on the loop recorded
 * (pdk_session_tick_time). */
void pdk_server_tick_session(pdk_server_slot *slot);
/* The real-time timer (a timerfd the loop polls): fires at the earliest
 * deadline, which pdk_server_arm_timer sets. */
void pdk_server_on_timer(uv_poll_t *handle, int status, int events);
void pdk_server_arm_timer(pdk_server *srv);
/* The earliest deadline (uv_hrtime ns) of the sessions the timer ticks,
 * or 0 when there is none. */
uint64_t pdk_server_next_deadline_ns(const pdk_server *srv);
/* Re-evaluates which schedulers must run after a slot changed. */
void pdk_server_reschedule(pdk_server *srv);
/* True while the SQLite writer is too far behind for sessions to tick. */
bool pdk_server_writer_lagging(pdk_server *srv);
/* How often the disk's state is looked at while no session ticks. */
#define PDK_SERVER_DISK_LOOK_MS 200u
/* Looks at the store's disk state and pauses (the disk filled) or resumes
 * (space returned, the kept records written) the recorded sessions. */
void pdk_server_disk_look(pdk_server *srv);
void pdk_server_on_disk_timer(uv_timer_t *t);
/* True after replying so (PDK_ERR_IO, naming the disk) when the disk is
 * full and slot is recorded: it may not run on until space returns. */
bool pdk_server_refuse_disk_full(pdk_server *srv, pdk_server_conn *c, uint64_t rid,
                                 const pdk_server_slot *slot);
/* info about slot's session now; its tick_parts points at parts. */
void pdk_server_fill_info(const pdk_server_sched *sched, pdk_server_slot *slot,
                          Paddock__V1__SessionInfo *info, Paddock__V1__TickParts *parts);
/* SessionControlReply: the session's tick and info now. */
void pdk_server_reply_control(pdk_server *srv, pdk_conn *conn, uint64_t rid, pdk_server_slot *slot);
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

/* A session's tick came back from its step thread: the slot is the
 * loop's again. False when the session was closed meanwhile (then
 * pdk_server_step_free destroys it once its outbox was delivered). */
bool pdk_server_step_back(pdk_server *srv, pdk_server_step *job);

/* ---- server_agones.c: paddockd as an Agones game server ------------------ */

/* Starts the SDK agent and its health timer (once listening); -1 after
 * saying why on stderr. */
int pdk_server_agones_start(pdk_server *srv);
/* Stops the agent thread (at the server's stop). */
void pdk_server_agones_stop(pdk_server *srv);

/* ---- server_metrics.c: what an operator reads over HTTP ------------------ */

/* /healthz, /livez, /readyz and /metrics, for pdk_http_config.pages with
 * the server as pages_ud. */
#define PDK_SERVER_PAGES 4
extern const pdk_http_page pdk_server_pages[PDK_SERVER_PAGES];
/* Whether the server takes new sessions (/readyz): not while stopping, nor
 * while the disk is full or the database read-only; why says which. */
bool pdk_server_ready(const pdk_server *srv, char *why, size_t why_len);
/* Adds one connection's counters to sum (the queue's bytes aside). */
void pdk_server_conn_stats_add(pdk_conn_stats *sum, const pdk_conn_stats *one);
void pdk_server_step_free(pdk_server_step *job);
/* After a tick came back and the requests that waited for it ran: the
 * session's next tick at once if it is behind (on a thread again), else
 * its missed deadlines dropped; the timers re-armed. */
void pdk_server_step_next(pdk_server *srv, uint64_t session_id);

/* ---- server_outbox.c: what hooks say on a step thread -------------------- */

/* From here to pdk_server_capture_end, on this thread, every session
 * hook keeps what it says in box (frames longer than max_frame_bytes are
 * refused at once, as a send would). */
void pdk_server_capture_begin(pdk_outbox *box, size_t max_frame_bytes);
void pdk_server_capture_end(void);
/* The box this thread keeps in now; NULL on the loop and elsewhere. */
pdk_outbox *pdk_server_outbox_capturing(void);
/* A new zeroed item of the capturing box; NULL when out of memory (the
 * box says so and the loop logs it: a lost reply is not silent). */
pdk_captured *pdk_server_outbox_add(pdk_captured_kind kind);
/* Keeps bytes (or a NUL-ended text) in the capturing box; *off is where,
 * since the box's memory may move as it grows. False: out of memory. */
bool pdk_server_outbox_keep(const void *bytes, size_t len, size_t *off);
bool pdk_server_outbox_text(const char *text, size_t *off);
/* A new item of the capturing box holding a copy of a frame for conn_id's
 * subscription sub_id, given as head then body (body_len 0: the frame is
 * head alone), kept as one (marked lost when the copy could not be kept). */
pdk_captured *pdk_server_outbox_frame(pdk_captured_kind kind, uint64_t conn_id, uint32_t sub_id,
                                      const uint8_t *head, size_t head_len, const uint8_t *body,
                                      size_t body_len);
void pdk_server_outbox_free(pdk_outbox *box);

/* ---- server_hooks.c: what a tick on a step thread said ------------------- */

/* Says, on the loop, what box kept, in order, and empties it. */
void pdk_server_outbox_deliver(pdk_server *srv, pdk_outbox *box);

/* ---- server_park.c: frames waiting for a session on a step thread -------- */

/* True when f must wait: c has frames waiting already, or f names a
 * session on a step thread. It is then kept (and c's reading held). */
bool pdk_server_park_if_busy(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f);
/* Keeps f until session_id comes back from its thread and c's earlier
 * frames were handled (0: only those). */
void pdk_server_park(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f,
                     uint64_t session_id);
/* A session came back: a pass over the kept frames. False: none kept. */
bool pdk_server_park_begin(pdk_server *srv, pdk_server_parked *pass);
/* The pass's next frame that may be handled now, decoded (free it with
 * pdk_wire_frame_free), and its connection in *conn; those that must wait
 * still go back in place. NULL at the pass's end. */
Paddock__V1__Frame *pdk_server_park_next(pdk_server *srv, pdk_server_parked *pass,
                                         pdk_server_conn **conn);
/* Ends the pass: connections with nothing left waiting read again. */
void pdk_server_park_end(pdk_server *srv, pdk_server_parked *pass);
void pdk_server_park_free(pdk_server *srv);

/* ---- server_stats.c: the stats stream ------------------------------------ */

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

/* ---- server_retention.c: the retention options --------------------------- */

/* Applies the retention options (--retain-bytes, --retain-days) off the
 * loop, keeping every session in the table and every recording a replay
 * plays; each deletion is logged with its id and why. Does nothing when
 * neither option is set. */
void pdk_server_retain(pdk_server *srv);

/* ---- server_sessions.c: the session table -------------------------------- */

/* A new session from a world preset, in the table, recorded with a
 * keyframe every keyframe_every_ticks (0: PDK_SESSION_KEYFRAME_EVERY) when
 * record. err names what failed. */
pdk_error pdk_server_session_open(pdk_server *srv, const char *name, const char *world_preset,
                                  const char *world_overrides, pdk_timing timing, bool record,
                                  uint32_t keyframe_every_ticks, char *err, size_t err_len,
                                  pdk_server_slot **out);
/* Room for one more session of world_bytes (CAPACITY with err otherwise;
 * CLOSED while the server drains). */
pdk_error pdk_server_session_room(pdk_server *srv, size_t world_bytes, char *err, size_t err_len);
/* Puts a session made elsewhere (a replay, a fork, off the loop) in the
 * table; world_bytes must have been reserved. NO_MEMORY leaves s with the
 * caller. */
pdk_error pdk_server_session_adopt(pdk_server *srv, pdk_session *s, pdk_timing timing,
                                   size_t world_bytes, pdk_server_slot **out);
/* Destroys a session (or hands a busy one to its worker) and drops the
 * slot: owed steps and stats subscriptions are told. */
void pdk_server_session_close(pdk_server *srv, pdk_server_slot *slot);

/* ---- server_recording.c: replays and the recording services -------------- */

/* A replay's seek (SessionControl seek), off the loop. */
void pdk_server_replay_seek(pdk_server *srv, pdk_server_conn *c, uint64_t request_id,
                            pdk_server_slot *slot, uint64_t tick);
/* A replay's speed: 0.01..1000 (checked by the caller). */
void pdk_server_replay_speed(pdk_server *srv, pdk_server_slot *slot, double speed);
/* A connection closed: its upload's temporary file goes, its streams stop,
 * its waiting jobs go unanswered and its running one is told to stop (a
 * verify stops at its next tick). */
void pdk_server_recording_forget_conn(pdk_server *srv, pdk_server_conn *c);
/* Shutdown: removes every temporary file still open, drops every waiting
 * job and tells the running ones to stop. */
void pdk_server_recording_stop(pdk_server *srv);
void pdk_server_on_stream_timer(uv_timer_t *t);

#endif
