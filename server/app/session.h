/* A session: one world, its queued inputs, its subscriptions and its
 * recording. Every change to the world is an input stamped (tick, seq) and
 * applied at a tick boundary, in order, then recorded; nothing else changes a
 * world. The session knows nothing of sockets or clocks: the server (or the
 * offline runner) calls pdk_session_tick when a tick is due and receives
 * replies and state frames through the hooks below. */
#ifndef PDK_SESSION_H
#define PDK_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "script.h"
#include "stats.h"
#include "store.h"
#include "world.h"

#define PDK_TICK_HZ 120u
#define PDK_SESSION_MAX_PENDING 4096    /* queued inputs before BUSY */
#define PDK_SESSION_MAX_SUBS 256
#define PDK_SESSION_MAX_SCRIPTS 64
#define PDK_SESSION_HASH_EVERY 12       /* ticks between recorded state hashes */

typedef enum pdk_input_kind {
    PDK_INPUT_SPAWN = 1,
    PDK_INPUT_REMOVE = 2,
    PDK_INPUT_DBW = 3,
    PDK_INPUT_TYRE = 4, /* recorded as a TyreCommand body */
} pdk_input_kind;

typedef enum pdk_timing {
    PDK_TIMING_REALTIME = 1,
    PDK_TIMING_FAST = 2,
} pdk_timing;

/* Where the answer to a queued input goes: a connection and its request. */
typedef struct pdk_reply_to {
    uint64_t conn_id;      /* 0: nobody waits (scripts, the offline runner) */
    uint64_t request_id;
} pdk_reply_to;

/* What became of a queued input, told once it was applied or refused. */
typedef struct pdk_input_result {
    pdk_input_kind kind;
    pdk_error err;
    const char *message;   /* with err: names what was wrong */
    uint64_t tick;         /* the tick it took effect */
    pdk_vehicle_id vehicle;
} pdk_input_result;

typedef struct pdk_session_hooks {
    /* An input was applied or refused (only for inputs with a conn_id). */
    void (*on_result)(void *ud, pdk_reply_to to, const pdk_input_result *res);
    /* A subscription's state frame (a complete delimited Frame) is ready.
     * Returning PDK_ERR_FRAME_TOO_LARGE ends the subscription (on_sub_end
     * tells why); other errors are the transport's business. */
    pdk_error (*on_state)(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                          size_t len);
    /* A subscription ended without being asked to: its session is being
     * destroyed, or its batches outgrew the frame limit. why names it. */
    void (*on_sub_end)(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code,
                       const char *why);
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
} pdk_session_def;

typedef struct pdk_session pdk_session;

/* Creates a session with id (from pdk_store_next_session_id) and records it.
 * Errors: PDK_ERR_OUT_OF_RANGE (bad world def), PDK_ERR_NO_MEMORY. */
pdk_error pdk_session_create(uint64_t id, const pdk_session_def *def,
                             const pdk_session_hooks *hooks, pdk_session **out);

/* Records the end (final tick and hash) and frees everything; accepts NULL.
 * Pending inputs are answered with PDK_ERR_CLOSED. */
void pdk_session_destroy(pdk_session *s);

uint64_t pdk_session_id(const pdk_session *s);
const char *pdk_session_name(const pdk_session *s);
pdk_timing pdk_session_timing(const pdk_session *s);
const pdk_world *pdk_session_world(const pdk_session *s);
pdk_lateness *pdk_session_lateness(pdk_session *s);
const char *pdk_session_world_preset(const pdk_session *s);

/* Where and how a vehicle enters the world. The heading is in degrees, as
 * every request and script gives it; the session converts it once, with
 * pdk_script_deg_to_rad, and records the degrees, so a replay lands on the
 * same bits. */
typedef struct pdk_spawn_place {
    double x_m;
    double y_m;
    double yaw_deg;
    double speed_mps;
    pdk_gear gear;
} pdk_spawn_place;

/* Queues a spawn of a resolved vehicle. preset, overrides and params_json
 * are copied (params_json is what the recording keeps). PDK_ERR_BUSY when
 * too many inputs wait. */
pdk_error pdk_session_queue_spawn(pdk_session *s, const pdk_vehicle_def *def, const char *preset,
                                  const char *overrides, const char *params_json,
                                  const pdk_spawn_place *place, pdk_reply_to to);
pdk_error pdk_session_queue_remove(pdk_session *s, pdk_vehicle_id id, pdk_reply_to to);
pdk_error pdk_session_queue_dbw(pdk_session *s, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                                pdk_reply_to to);
/* Queues a tyre input (world.h pdk_tyre_input): applied at the next tick
 * boundary through pdk_world_tyre_input, recorded when it applies, refused
 * with a message naming what was wrong (a vehicle not in the session, a
 * single-track vehicle, the mask, the action, the value's range). */
pdk_error pdk_session_queue_tyre(pdk_session *s, pdk_vehicle_id id, const pdk_tyre_input *in,
                                 pdk_reply_to to);

/* Drives vehicle id from a script, starting at the next tick: each step
 * becomes a DBW input at tick start + round(t * 120). With loop the script
 * starts over loop_gap_s after its last step. The script is copied. */
pdk_error pdk_session_attach_script(pdk_session *s, pdk_vehicle_id id, const pdk_script *script,
                                    bool loop, double loop_gap_s);

/* Adds subscription sub_id (unique per connection; the caller gives ids out)
 * for conn_id: every rate_hz (a divisor of 120) the state of the listed
 * vehicles (all when n_ids == 0; duplicates are dropped) is sent through
 * on_state. PDK_ERR_INVALID_ARGUMENT for a rate that does not divide 120,
 * PDK_ERR_OUT_OF_RANGE for more ids than the world holds vehicles,
 * PDK_ERR_CAPACITY when the session has PDK_SESSION_MAX_SUBS. */
pdk_error pdk_session_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id,
                                uint32_t rate_hz, const uint32_t *ids, size_t n_ids);
/* PDK_ERR_NOT_FOUND when conn_id has no such subscription here. */
pdk_error pdk_session_unsubscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id);
/* Drops every subscription and pending reply of a connection that closed. */
void pdk_session_forget_conn(pdk_session *s, uint64_t conn_id);
int pdk_session_subscriber_count(const pdk_session *s);

/* Applies every queued input and due script step at the current tick
 * boundary without stepping (pdk_session_tick does this first). The offline
 * runner uses it to spawn at tick 0 before a script's first step. */
void pdk_session_apply_inputs(pdk_session *s);

/* One tick: applies every queued input (stamped with the current tick, in
 * arrival order) and every due script step, steps the world, records the
 * state hash when due, and publishes due subscriptions. */
void pdk_session_tick(pdk_session *s);

/* The state hash of the world now (computed on each call). */
uint64_t pdk_session_hash(const pdk_session *s);

/* Number of inputs applied so far (the next seq). */
uint64_t pdk_session_inputs_applied(const pdk_session *s);

#endif
