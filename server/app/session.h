/* A session: one world, its queued inputs, its subscriptions (state,
 * telemetry and DBW reports), its vehicles' control leases and its
 * recording. Every change to the world is an input stamped (tick, seq) and
 * applied at a tick boundary, in order, then recorded; nothing else changes
 * a world. The session knows nothing of sockets or clocks: the server (or
 * the offline runner) calls pdk_session_tick when a tick is due and
 * receives replies, state and report frames and control events through the
 * hooks below. */
#ifndef PDK_SESSION_H
#define PDK_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input_kind.h"
#include "sim/error.h"
#include "script.h"
#include "stats.h"
#include "store.h"
#include "wire_snapshot.h"
#include "sim/world.h"

#define PDK_TICK_HZ 120u
#define PDK_SESSION_MAX_PENDING 4096    /* queued inputs before BUSY */
#define PDK_SESSION_MAX_SUBS 256
#define PDK_SESSION_MAX_SCRIPTS 64
#define PDK_SESSION_HASH_EVERY 1        /* ticks between recorded state hashes: every tick */
/* Ticks of hashes recorded as one store record while no input comes (an
 * input, a keyframe or the end records the held ones first; a full batch
 * waits for the next tick's hash): a hash costs a tick no record of its
 * own. A kill loses held hashes of ticks without inputs (at most this
 * many), never an input: the inputs of tick T are queued after the hashes
 * of every tick before T (ADR 0012). */
#define PDK_SESSION_HASH_BATCH 12
#define PDK_SESSION_KEYFRAME_EVERY 120  /* default ticks between keyframe snapshots: 1 s */
#define PDK_SESSION_KEYFRAME_EVERY_MAX 72000u /* the most a session may ask for: 10 min */
#define PDK_SESSION_MAX_DBW_SUBS 256    /* DBW report subscriptions */
/* The longest a report may be delayed (FaultInject REPORT_DELAY): 0.5 s. A
 * subscribed vehicle keeps this many past reports, and one more. */
#define PDK_SESSION_REPORT_DELAY_MAX_TICKS 60u
#define PDK_SESSION_ERR_LEN 512 /* the err buffers below: this many bytes or more */
/* Hosted proxies (docs/multiplayer.md "Hosting a proxy"): at most this
 * many in a session, this many of one connection in a session, and this
 * many poses of one proxy taken between two ticks (480 Hz; more is refused
 * with BUSY: an owner sends at its own frame rate, at most a few hundred
 * Hz). */
#define PDK_SESSION_MAX_PROXIES 64
#define PDK_SESSION_MAX_CONN_PROXIES 8
#define PDK_SESSION_MAX_PROXY_POSES_PER_TICK 4
#define PDK_SESSION_MAX_PROXY_IMPULSES 16 /* a ProxyContact's impulses (the rest dropped) */

/* Who drives a vehicle: ControlSource's numbers (proto). A lower number is
 * a higher priority; each source's lease is held by at most one client. */
typedef enum pdk_control_source {
    PDK_SOURCE_NONE = 0,
    PDK_SOURCE_DRIVER = 1,   /* a remote human's controls (DbwCommand) */
    PDK_SOURCE_AUTONOMY = 2, /* an autonomy stack or DBW controller (DbwMessage) */
    PDK_SOURCE_AI = 3,       /* scripts and AI traffic */
} pdk_control_source;

/* "DRIVER", "AUTONOMY", "AI", "NONE" (anything else). */
const char *pdk_control_source_name(int source);

/* A vehicle's active source changed (pdk_session_lease_*). */
typedef struct pdk_control_event {
    uint64_t session_id;
    pdk_vehicle_id vehicle;
    pdk_control_source active;    /* the highest source holding a lease now */
    pdk_control_source preempted; /* the receiver's source when it lost control, else NONE */
    const char *reason;           /* who did what */
    uint64_t tick;
} pdk_control_event;

/* What happened to a hosted proxy (ProxyEventKind's numbers). */
typedef enum pdk_proxy_event_kind {
    PDK_PROXY_EVENT_FROZEN = 1,
    PDK_PROXY_EVENT_RESUMED = 2,
    PDK_PROXY_EVENT_REMOVED = 3,
} pdk_proxy_event_kind;

typedef struct pdk_proxy_event {
    uint64_t session_id;
    pdk_proxy_id proxy;
    pdk_proxy_event_kind kind;
    const char *reason;
    const char *label;
    uint64_t tick;
} pdk_proxy_event;

/* One impulse a hosted proxy received in a tick (ProxyImpulse): the other
 * body (a vehicle or a proxy id, the other 0), the contact point, the
 * normal pointing into the proxy, the impulse on the proxy (N s, world). */
typedef struct pdk_proxy_impulse {
    pdk_vehicle_id other_vehicle;
    pdk_proxy_id other_proxy;
    double point_m[3];
    double normal[3];
    double impulse_ns[3];
} pdk_proxy_impulse;

typedef enum pdk_timing {
    PDK_TIMING_REALTIME = 1,
    PDK_TIMING_FAST = 2,
    PDK_TIMING_LOCKSTEP = 3, /* ticks only when its stepper steps it (server_sched.c) */
} pdk_timing;

/* What became of a queued input, told once it was applied or refused. */
typedef struct pdk_input_result {
    pdk_input_kind kind;
    pdk_error err;
    const char *message;   /* with err: names what was wrong */
    uint64_t tick;         /* the tick it took effect */
    pdk_vehicle_id vehicle;
    pdk_proxy_id proxy;    /* a PROXY_ADD's, once applied */
    const pdk_proxy_entry *proxy_entry; /* a PROXY_ADD's: what the world took */
} pdk_input_result;

/* A state subscription's area of interest: the vehicles whose CG is within
 * radius_m of (x_m, y_m), or of vehicle's CG when it is not 0, measured in
 * the ground plane (x, y; ISO 8855 world axes). */
typedef struct pdk_session_aoi {
    double radius_m;
    double x_m, y_m;
    pdk_vehicle_id vehicle;
} pdk_session_aoi;

/* Slices a keyframe's encode may be shared in (pdk_session_hooks). */
#define PDK_SESSION_KEYFRAME_SLICES 64

/* What a recorded session's keyframe encode keeps from one keyframe to the
 * next, so that an encode allocates nothing once its arrays are large
 * enough: the whole encode's scratch, and each slice's scratch and entries
 * when its encode is shared (pdk_wire_snapshot_vehicles). */
typedef struct pdk_keyframe_scratch {
    pdk_wire_snapshot_scratch whole;
    pdk_wire_snapshot_scratch slice[PDK_SESSION_KEYFRAME_SLICES];
    pdk_buf parts[PDK_SESSION_KEYFRAME_SLICES];
} pdk_keyframe_scratch;

/* A state or telemetry subscription's frame, one whole Frame in two
 * pieces sent back to back: head (the Frame's tag and length, the
 * subscription's id) then body (the batch, shared by every subscription
 * that wants it), so that no batch is copied whole to make each frame. */
typedef struct pdk_session_frame {
    const uint8_t *head;
    size_t head_len;
    const uint8_t *body;
    size_t body_len;
} pdk_session_frame;

typedef struct pdk_session_hooks {
    /* An input was applied or refused (only for inputs with a conn_id). */
    void (*on_result)(void *ud, pdk_reply_to to, const pdk_input_result *res);
    /* A state or telemetry subscription's frame (one whole Frame with a
     * StateBatch or a TelemetryBatch, in two pieces) is ready. Returning
     * PDK_ERR_FRAME_TOO_LARGE ends the subscription (on_sub_end tells why);
     * other errors are the transport's business. part is the frame's
     * StateBatch.part (0 for a whole tick and for telemetry): each part of
     * a subscription is its own latest-wins stream. */
    pdk_error (*on_state)(void *ud, uint64_t conn_id, uint32_t sub_id, uint32_t part,
                          const pdk_session_frame *frame);
    /* A subscription ended without being asked to: its session is being
     * destroyed, its batches outgrew the frame limit, or (a DBW report
     * subscription) its vehicle was removed. why names it. */
    void (*on_sub_end)(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code,
                       const char *why);
    /* A DBW report subscription's frame of one report kind (one whole
     * Frame with a DbwReport) is ready. Errors as on_state. */
    pdk_error (*on_dbw_report)(void *ud, uint64_t conn_id, uint32_t sub_id, int kind,
                               const uint8_t *frame, size_t len);
    /* A lease holder's vehicle changed hands (pdk_control_event). */
    void (*on_control)(void *ud, uint64_t conn_id, const pdk_control_event *ev);
    /* A hosted proxy froze, resumed or left (told to its owner and to each
     * connection with a state subscription in the session). */
    void (*on_proxy_event)(void *ud, uint64_t conn_id, const pdk_proxy_event *ev);
    /* A hosted proxy touched something in tick's step: its owner hears the
     * n impulses it received. */
    void (*on_proxy_contact)(void *ud, uint64_t conn_id, uint64_t session_id, pdk_proxy_id proxy,
                             uint64_t tick, const pdk_proxy_impulse *impulses, size_t n);
    /* A contact subscription's frame (one whole Frame with a ContactEvents)
     * is ready: it must reach the subscriber (never replaced by a later
     * one). */
    void (*on_contacts)(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                        size_t len);
    /* Steps the world one tick, as pdk_world_step does, bit for bit (the
     * server shares a large world's step with idle threads); NULL:
     * pdk_world_step. */
    void (*step_world)(void *ud, pdk_world *world);
    /* Encodes a recorded session's keyframe into out, the bytes of
     * pdk_wire_snapshot_encode_with (the server shares a large world's
     * encode with idle threads), in the session's kept scratch; hash is
     * the world's state hash, taken this tick; NULL:
     * pdk_wire_snapshot_encode_with in scratch->whole. */
    pdk_error (*encode_keyframe)(void *ud, pdk_keyframe_scratch *scratch, const pdk_world *world,
                                 uint64_t hash, const char *build_id, pdk_buf *out);
    void *ud;
} pdk_session_hooks;

typedef struct pdk_session_def {
    const char *name;
    const char *world_preset;
    const char *world_json;    /* resolved world parameters (recorded) */
    pdk_world_def world;
    pdk_timing timing;
    const char *build_id;
    pdk_store *store;          /* NULL: not recorded */
    uint32_t keyframe_every_ticks; /* 0: PDK_SESSION_KEYFRAME_EVERY */
    /* The keyframes after the start's fall this many ticks into each
     * interval (taken modulo the interval): sessions side by side keep
     * their keyframe ticks apart (the server's choice, ADR 0037). */
    uint32_t keyframe_offset_ticks;
    uint64_t parent_session_id;    /* a fork: the recording it started from (recorded) */
    uint64_t parent_tick;
} pdk_session_def;

typedef struct pdk_session pdk_session;

/* Creates a session with id (from pdk_store_next_session_id) and, when
 * def->store is set, records it: its row (start tick 0, def's parent and
 * keyframe interval), then, as it runs, every applied input, the state hash
 * of every tick from tick 0 on and a keyframe snapshot at its start tick and
 * at every tick keyframe_offset_ticks past a multiple of
 * keyframe_every_ticks after it. Errors: PDK_ERR_OUT_OF_RANGE
 * (bad world def), PDK_ERR_NO_MEMORY, the store's refusal of the row. */
pdk_error pdk_session_create(uint64_t id, const pdk_session_def *def,
                             const pdk_session_hooks *hooks, pdk_session **out);

/* A vehicle a session holds from its first tick (a fork's): how it came
 * into the world in the recording it came from. The call copies nothing
 * it keeps: def is read during the call, the strings are recorded. */
typedef struct pdk_session_vehicle {
    pdk_vehicle_id id;
    uint64_t spawn_tick;        /* its spawn in the recording it came from */
    const pdk_vehicle_def *def; /* its definition: the restore spawns it from this */
    const char *preset;
    const char *overrides;
    const char *params_json; /* its resolved parameters, recorded again */
} pdk_session_vehicle;

/* Creates a session whose world starts as snapshot (a WorldSnapshot of a
 * world with def->world's definition, wire_snapshot.h), its start tick the
 * snapshot's; each of the snapshot's vehicles is spawned from its entry in
 * vehicles (entries of other ids are ignored). Recorded when def->store is
 * set as pdk_session_create records, with a row for each of its vehicles
 * (their original spawn ticks, presets, overrides and parameters), the
 * state hash and a keyframe at the start tick, so that its recording
 * replays on its own. Errors, err naming what was wrong:
 * PDK_ERR_INVALID_ARGUMENT (no snapshot), pdk_session_restore's, and
 * pdk_session_create's. */
pdk_error pdk_session_create_from_snapshot(uint64_t id, const pdk_session_def *def,
                                           const pdk_session_hooks *hooks, const uint8_t *snapshot,
                                           size_t len, const pdk_session_vehicle *vehicles,
                                           size_t n_vehicles, pdk_session **out, char *err,
                                           size_t err_len);

/* Records the end (final tick and hash) and frees everything; accepts NULL.
 * Pending inputs are answered with PDK_ERR_CLOSED. */
void pdk_session_destroy(pdk_session *s);

uint64_t pdk_session_id(const pdk_session *s);
const char *pdk_session_name(const pdk_session *s);
pdk_timing pdk_session_timing(const pdk_session *s);
const pdk_world *pdk_session_world(const pdk_session *s);
pdk_lateness *pdk_session_lateness(pdk_session *s);
/* How long its ticks took on the thread that ran them, start to end on the
 * monotonic clock, its "overruns" the ticks longer than the period: kept
 * by the server on its loop, as the lateness is (SessionInfo.tick_time_*). */
pdk_lateness *pdk_session_tick_time(pdk_session *s);
const char *pdk_session_world_preset(const pdk_session *s);
/* The tick its recording starts at: 0, or a session made from a snapshot's. */
uint64_t pdk_session_start_tick(const pdk_session *s);
/* True when the session records itself (it was made with a store). */
bool pdk_session_recorded(const pdk_session *s);
/* Ticks from tick to the recording's next keyframe after it (1 to the
 * keyframe interval); 0 for a session not recorded. Reads only what is set
 * when the session is made, so the loop may ask while a step thread has
 * the session's tick (with the tick the loop last saw). */
uint32_t pdk_session_keyframe_ahead(const pdk_session *s, uint64_t tick);

/* Queues in (copied; its strings too) to apply at the next tick boundary,
 * through its kind's entry in the input table (input_kind.h). A spawn has
 * its own queue (pdk_session_queue_spawn): it carries a definition.
 * PDK_ERR_BUSY when too many inputs wait; PDK_ERR_INVALID_ARGUMENT for a
 * kind this build does not know or a spawn; the kind's own refusals (its
 * entry's prepare) otherwise, nothing queued then. */
pdk_error pdk_session_queue_input(pdk_session *s, const pdk_input *in, pdk_reply_to to);

/* The same for an input as a recording gives it back (a replay's): queued
 * as it is, without its kind's prepare, unless the session records itself
 * (then as pdk_session_queue_input, whose prepare gives a recorded form
 * back unchanged). */
pdk_error pdk_session_queue_recorded(pdk_session *s, const pdk_input *in, pdk_reply_to to);

/* How many more inputs the queue takes before PDK_ERR_BUSY; the spawns
 * in it; and pdk_session_unqueue takes back the last n queued (a batch
 * request refused part way, nothing of it applied or told). */
size_t pdk_session_queue_room(const pdk_session *s);
size_t pdk_session_queued_spawns(const pdk_session *s);
void pdk_session_unqueue(pdk_session *s, size_t n);

/* Queues a spawn of a resolved vehicle. preset, overrides and params_json
 * are copied (params_json is what the recording keeps). PDK_ERR_BUSY when
 * too many inputs wait. */
pdk_error pdk_session_queue_spawn(pdk_session *s, const pdk_vehicle_def *def, const char *preset,
                                  const char *overrides, const char *params_json,
                                  const pdk_spawn_place *place, pdk_reply_to to);

/* ---- Hosted proxies (docs/multiplayer.md "Hosting a proxy") ------------
 *
 * A connection registers a proxy, streams its poses and removes it; the
 * session turns the poses into one PROXY_POSE input per proxy per tick
 * (proxy_track.h says how), freezes a proxy whose owner is silent past
 * PDK_PROXY_FREEZE_S and removes it past PDK_PROXY_REMOVE_S, each with a
 * ProxyEvent. Each call's errors come with why (PDK_SESSION_ERR_LEN)
 * naming what was wrong. */

/* Queues entry (checked by the world when it applies) as a PROXY_ADD for
 * to.conn_id, which hosts it once it applies (its reply carries the proxy
 * id). PDK_ERR_CAPACITY past PDK_SESSION_MAX_PROXIES in the session or
 * PDK_SESSION_MAX_CONN_PROXIES of the connection; PDK_ERR_BUSY when the
 * queue is full. */
pdk_error pdk_session_proxy_register(pdk_session *s, const pdk_proxy_entry *entry,
                                     pdk_reply_to to, char *why, size_t why_len);

/* A pose sample of proxy id from conn_id, stamped owner_ns on the owner's
 * clock. Unacknowledged; an older sample than the newest is dropped
 * silently. Errors: PDK_ERR_STALE_ID (the session hosts no proxy id),
 * PDK_ERR_BUSY (another connection owns it, or more than
 * PDK_SESSION_MAX_PROXY_POSES_PER_TICK samples since the last tick),
 * PDK_ERR_OUT_OF_RANGE (pdk_proxy_pose_problem). */
pdk_error pdk_session_proxy_pose(pdk_session *s, uint64_t conn_id, pdk_proxy_id id,
                                 uint64_t owner_ns, const pdk_proxy_pose *pose, char *why,
                                 size_t why_len);

/* Queues the removal of conn_id's proxy id (a PROXY_REMOVE answered to
 * to). Errors as pdk_session_proxy_pose's ownership ones. */
pdk_error pdk_session_proxy_remove(pdk_session *s, pdk_proxy_id id, pdk_reply_to to, char *why,
                                   size_t why_len);

/* Drives vehicle id from a script, starting at the next tick: each step
 * becomes a DBW input at tick start + round(t * 120). With loop the script
 * starts over loop_gap_s after its last step. The script is copied. */
pdk_error pdk_session_attach_script(pdk_session *s, pdk_vehicle_id id, const pdk_script *script,
                                    bool loop, double loop_gap_s);

/* Adds subscription sub_id (unique per connection; the caller gives ids out)
 * for conn_id: every rate_hz (a divisor of 120) the state of the listed
 * vehicles (all when n_ids == 0; duplicates are dropped), each with the
 * parts the StateField bits in fields ask for (pdk_wire_state_fields), is
 * sent through on_state, its wall_time_ns pdk_session_tick_wall_ns, in
 * StateBatch frames of at most max_batch vehicles each (0: one a tick;
 * pdk_wire_state_split). A batch is encoded once per tick for each
 * distinct fields, vehicle list, max_batch and area and shared. With aoi
 * (NULL or radius_m 0: none), a batch holds only the listed vehicles inside
 * the area at that tick (pdk_session_aoi); the subscription ends with
 * PDK_ERR_STALE_ID, told through on_sub_end, at the first tick its centre
 * vehicle is gone.
 * PDK_ERR_INVALID_ARGUMENT for a rate that does not divide 120
 * or a bit of fields outside PDK_WIRE_STATE_FIELDS_KNOWN,
 * PDK_ERR_OUT_OF_RANGE for more ids than the world holds vehicles,
 * PDK_ERR_CAPACITY when the session has PDK_SESSION_MAX_SUBS; for an
 * area, PDK_ERR_INVALID_ARGUMENT unless radius_m is finite and positive
 * and x_m, y_m finite, PDK_ERR_STALE_ID when vehicle is not 0 and not a
 * live vehicle. */
pdk_error pdk_session_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id, uint32_t rate_hz,
                                uint32_t fields, const uint32_t *ids, size_t n_ids,
                                uint32_t max_batch, const pdk_session_aoi *aoi);
/* Adds telemetry subscription sub_id (from the same per-connection ids)
 * for conn_id: every rate_hz, as pdk_session_subscribe, a TelemetryBatch of
 * the listed vehicles (all when n_ids == 0, those spawned later too;
 * duplicates dropped) holding the n_chans channels at registry indexes
 * chans (copied), in that order, from pdk_world_channels after the step,
 * the batch's wall_time_ns pdk_session_tick_wall_ns; sent through on_state
 * and ended as state subscriptions are. Errors as pdk_session_subscribe,
 * and PDK_ERR_UNKNOWN_KEY for no channels or an index that is not a
 * channel's (the caller names channels by name and checks them first). */
pdk_error pdk_session_telemetry_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id,
                                          uint32_t rate_hz, const uint32_t *ids, size_t n_ids,
                                          const int *chans, size_t n_chans);
/* Adds contact subscription sub_id (from the same per-connection ids) for
 * conn_id: after each tick whose step had contacts between bodies (or
 * dropped or missed some), the world's contact events
 * (pdk_world_contact_events) in ContactEvents frames of at most
 * PDK_WIRE_CONTACT_EVENTS_PER_FRAME events each, sent through on_contacts
 * while the session publishes (a replay's play does, its seek does not);
 * ended as state subscriptions are. PDK_ERR_CAPACITY when the session has
 * PDK_SESSION_MAX_SUBS. */
pdk_error pdk_session_contact_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id);
/* Adds DBW report subscription sub_id (from the same per-connection ids as
 * state subscriptions) for conn_id on vehicle: after each tick's step, each
 * kind in kinds (bit k for pdk_dbw_report_kind k) that is due (tick %
 * pdk_dbw_report_period_ticks[k] == 0) is sent through on_dbw_report, the
 * report built once per tick per vehicle and shared. The kit's injected
 * report faults apply: a frame is dropped when pdk_dbw_noise_unit(seed,
 * vehicle, tick, 1000 + k) < report_drop[k] (so a replay drops the same
 * ones), and a delayed kind sends the report of tick - report_delay_ticks[k]
 * (at most PDK_SESSION_REPORT_DELAY_MAX_TICKS; nothing while the vehicle has
 * no report that old since its first subscription). Ends (on_sub_end,
 * STALE_ID) when the vehicle is removed. Errors: PDK_ERR_STALE_ID (vehicle
 * not in the session), PDK_ERR_INVALID_ARGUMENT (kinds 0 or with a bit
 * beyond PDK_RPT_COUNT), PDK_ERR_CAPACITY (PDK_SESSION_MAX_DBW_SUBS). */
pdk_error pdk_session_dbw_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id,
                                    pdk_vehicle_id vehicle, uint32_t kinds);

/* Ends a state, telemetry or DBW report subscription. PDK_ERR_NOT_FOUND when conn_id
 * has no such subscription here. */
pdk_error pdk_session_unsubscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id);
/* Drops every subscription and pending reply of a connection that closed,
 * releases its leases (the remaining holders hear of it, on_control) and
 * queues the removal of its proxies. */
void pdk_session_forget_conn(pdk_session *s, uint64_t conn_id);
/* State, telemetry and DBW report subscriptions together. */
int pdk_session_subscriber_count(const pdk_session *s);

/* ---- Control leases ---------------------------------------------------
 *
 * Per vehicle, each source's lease is held by at most one connection; a
 * drive script attached to the session holds its vehicle's AI lease. The
 * active source is the highest one held. Leases are not inputs: they decide
 * which inputs a client may queue, and a refused input changes nothing, so a
 * replay needs no leases. holder names a connection for the messages others
 * read ("connection 4 (wheel-rig)"; copied, at most 95 bytes kept). */

/* Takes src's lease on id for conn_id (again: nothing changes). When that
 * raises the active source, every holder of a lower source on the vehicle
 * hears on_control (preempted: its source). Errors, each with why naming it:
 * PDK_ERR_INVALID_ARGUMENT (src not DRIVER, AUTONOMY or AI),
 * PDK_ERR_STALE_ID (id not in the session), PDK_ERR_BUSY (another holder:
 * why names it). */
pdk_error pdk_session_lease_take(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                 uint64_t conn_id, const char *holder, char *why, size_t why_len);

/* Releases it; when that lowers the active source, the remaining holders
 * hear on_control. PDK_ERR_NOT_FOUND (why says so) when conn_id does not
 * hold it; PDK_ERR_INVALID_ARGUMENT for src as above. */
pdk_error pdk_session_lease_release(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, char *why, size_t why_len);

/* The gate every command of source src from conn_id passes before it is
 * queued: conn_id must hold src's lease, or take it when it is free
 * (pdk_session_lease_take), and no other connection may hold a higher
 * source's lease on the vehicle. PDK_ERR_BUSY otherwise, why naming the
 * holder or the active source. A vehicle not in the session passes: the
 * queued input is refused with STALE_ID when it applies. */
pdk_error pdk_session_lease_command(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, const char *holder, char *why,
                                    size_t why_len);

/* The highest source holding a lease on id (NONE without one). */
pdk_control_source pdk_session_active_source(const pdk_session *s, pdk_vehicle_id id);

/* The connection holding src's lease on id; 0 when free or held by a
 * script. */
uint64_t pdk_session_lease_holder(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src);

/* Applies every queued input and due script step at the current tick
 * boundary without stepping (pdk_session_tick does this first). The offline
 * runner uses it to spawn at tick 0 before a script's first step. */
void pdk_session_apply_inputs(pdk_session *s);

/* One tick: applies every queued input (stamped with the current tick, in
 * arrival order) and every due script step (a script's steps are skipped,
 * not queued, while a connection holds its vehicle's DRIVER or AUTONOMY
 * lease), steps the world, records the state hash (and a keyframe when
 * one is due), and publishes due state and DBW report subscriptions unless
 * publishing is off. */
void pdk_session_tick(pdk_session *s);

/* Where the session's ticks went since it was created (stats.h). Its
 * ticking thread's: read it where the tick is not running. */
const pdk_tick_parts *pdk_session_tick_parts(const pdk_session *s);

/* Publishing on (the default) or off. Off, ticks send no state or DBW
 * report frames, but each subscribed vehicle's report ring still fills, so
 * that delayed report kinds send the same frames once it is on again (a
 * replay's seek fast-forwards with it off). */
void pdk_session_set_publishing(pdk_session *s, bool on);
bool pdk_session_publishing(const pdk_session *s);

/* The wall clock (UTC, ns since the Unix epoch) when the last tick's step
 * ended, what StateBatch and TelemetryBatch call wall_time_ns; 0 before the
 * first tick. Not state: a replay's ticks carry the replay's time. */
uint64_t pdk_session_tick_wall_ns(const pdk_session *s);

/* Which ticks the world writes its vehicles' channels (telemetry) on:
 * every tick (the default), or only a tick after which the session itself
 * reads them: a keyframe it records, a due state batch with fields or
 * telemetry batch it publishes, a DBW report ring it fills. Channels are
 * outputs only: the state and its hashes are the same bits either way
 * (test_snapshot's telemetry_off_changes_no_state), and a tick that writes
 * them writes what a world that always did would. As read, a caller's
 * pdk_world_channels between ticks may hold an earlier tick's, so it is for
 * a session whose other readers are the session's own: the server's
 * (writing them is a good part of a four-wheel step: docs/perf), and
 * verify's workers, which compare hashes and turn every tick on to
 * diagnose a divergence from the channels. */
typedef enum pdk_session_channels {
    PDK_CHANNELS_EVERY_TICK = 0,
    PDK_CHANNELS_AS_READ,
} pdk_session_channels;
void pdk_session_set_channels(pdk_session *s, pdk_session_channels when);

/* Replaces the world of a session that is not recorded with snapshot's (a
 * WorldSnapshot, wire_snapshot.h), each vehicle spawned from def_for's
 * definition: a staging world is laid out from the session's world
 * definition, the snapshot restored into it, and swapped in only when all of
 * that succeeded (the old world is freed then; on error nothing changed).
 * snapshot NULL restores a fresh world at tick 0.
 *
 * What the session keeps: inputs already queued (they apply at the restored
 * world's next tick boundary), state and DBW report subscriptions, and the
 * leases of vehicles the restored world holds. Leases and DBW report
 * subscriptions of vehicles it does not hold end (holders and subscribers
 * told why, STALE_ID); drive scripts are detached. Report rings start over
 * with the restored tick's report, so after a restore at tick K the frames
 * of every report kind that is not delayed are those the original run sent
 * from K + 1 on (their drops follow the restored seed); a kind delayed by d
 * ticks sends from tick K + d on (the original may have sent some between,
 * from reports older than K that a restore cannot rebuild), the same frames
 * as the original from then on. A seek that restores a keyframe and
 * fast-forwards d ticks or more with publishing off is exact for every
 * kind.
 *
 * Errors, err (PDK_SESSION_ERR_LEN) naming what was wrong:
 * PDK_ERR_INVALID_ARGUMENT (a recorded session: its recording would not
 * replay), PDK_ERR_NO_MEMORY, and pdk_wire_snapshot_restore's
 * (PDK_ERR_PARSE, PDK_ERR_VERSION, PDK_ERR_NOT_FOUND, sim's). */
pdk_error pdk_session_restore(pdk_session *s, const uint8_t *snapshot, size_t len,
                              pdk_snapshot_def_fn def_for, void *ctx, char *err, size_t err_len);

/* The state hash of the world now (computed on each call). */
uint64_t pdk_session_hash(const pdk_session *s);

/* The state hash right after pdk_session_tick, before anything else
 * changes the world: the one the tick's recording took when it took one
 * (a recorded session hashes every tick), else computed now. Saves a step
 * thread a second pass over every vehicle's state. */
uint64_t pdk_session_tick_hash(const pdk_session *s);

/* VehicleState.teleport_count of vehicle id: how often it moved without
 * travelling (its resets, and every seek of the session's replay), so a
 * client's proxy view jumps instead of sliding (docs/protocol.md
 * "State"). Kept beside the world, not in it: hashes and snapshots do not
 * see it. */
uint32_t pdk_session_teleport_count(const pdk_session *s, pdk_vehicle_id id);

/* Counts a move of every vehicle at once (a replay's seek). */
void pdk_session_count_teleport_all(pdk_session *s);

/* Number of inputs applied so far (the next seq). */
uint64_t pdk_session_inputs_applied(const pdk_session *s);

#endif
