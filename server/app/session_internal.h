/* What the session's files share and nobody else sees: the session struct
 * and its parts, and the helpers one file of the session calls in another
 * (session.c: inputs, ticks and subscriptions; session_lease.c: control
 * leases; session_record.c: the recording and keyframes; session_restore.c:
 * restores and sessions made from a snapshot). Calls go one way: restore
 * -> session -> record and lease, each of those calling nothing above it. */
#ifndef PDK_SESSION_INTERNAL_H
#define PDK_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy_track.h"
#include "session.h"
#include "wire.h"

/* A state subscription (StateBatch), or a telemetry one (TelemetryBatch)
 * when chans is set: both publish at the same ticks through on_state. A
 * contact one (contacts set) publishes each tick with contacts through
 * on_contacts. */
typedef struct subscription {
    uint32_t id;
    uint64_t conn_id;
    uint32_t divisor; /* publish when tick % divisor == 0 */
    uint32_t *ids;    /* NULL: every vehicle */
    size_t n_ids;
    uint32_t fields;  /* StateField bits: the VehicleState parts it gets */
    uint32_t max_batch; /* vehicles per StateBatch at most; 0: a tick in one */
    pdk_session_aoi aoi; /* radius_m 0: no area of interest */
    bool centre_gone;    /* set by publish: aoi.vehicle is no longer alive */
    int *chans; /* telemetry: registry indexes in the schema's order; NULL: state */
    size_t n_chans;
    bool contacts; /* a contact event subscription (ContactEvents), neither state nor telemetry */
    size_t too_large; /* set by publish: the batch that did not fit */
    /* Set by publish for the tick it publishes: where in the session's
     * common buffer this subscription's batch parts are
     * (pdk_wire_state_split), which a later subscription with the same
     * fields, vehicle list and max_batch shares. */
    bool batch_ready;
    size_t batch_off, batch_len;
} subscription;

/* A DBW report subscription: one vehicle, a set of report kinds. */
typedef struct dbw_sub {
    uint32_t id;
    uint64_t conn_id;
    pdk_vehicle_id vehicle;
    uint32_t kinds; /* bit k: pdk_dbw_report_kind k */
    bool too_large; /* set by publish: a frame did not fit */
} dbw_sub;

/* The last REPORT_RING reports of a vehicle with DBW subscriptions, by tick
 * (slot tick % REPORT_RING), so a delayed kind can send an older one. Not
 * sim state: it only holds what the world reported. */
#define REPORT_RING (PDK_SESSION_REPORT_DELAY_MAX_TICKS + 1u)
typedef struct report_ring {
    pdk_vehicle_id vehicle;
    uint64_t filled[REPORT_RING]; /* the slot's tick + 1; 0: empty */
    pdk_dbw_report r[REPORT_RING];
} report_ring;

/* One source's lease on one vehicle. */
typedef struct lease {
    pdk_vehicle_id vehicle;
    pdk_control_source source;
    uint64_t conn_id;
    char holder[96];
} lease;

/* A vehicle's leases, found by the slot its id names (the id's low 16
 * bits, sim/world.h) rather than by a search of every lease: a command
 * checks its vehicle's leases, and a batch of 10,000 commands with 10,000
 * leases held was a hundred million comparisons. at[source - 1] is the
 * index of that source's lease in the session's leases, or -1; an entry
 * whose vehicle is not the id asked for (a slot's earlier vehicle) holds
 * none of its. */
typedef struct lease_slot {
    pdk_vehicle_id vehicle;
    int32_t at[3];
} lease_slot;

typedef struct script_driver {
    pdk_vehicle_id vehicle;
    pdk_script_step *steps;
    size_t n_steps;
    size_t next;
    uint64_t start_tick;
    bool loop;
    uint64_t gap_ticks;
} script_driver;

/* A proxy this session hosts for a connection (its owner): the owner's
 * track and this tick's count of its poses. Not world state: what the
 * world takes of it is each tick's PROXY_POSE input. */
typedef struct hosted_proxy {
    pdk_proxy_id id;
    uint64_t conn_id;
    char label[64];
    uint32_t poses_this_tick; /* samples taken since the last tick */
    bool leaving;             /* its removal is queued */
    pdk_proxy_track track;
} hosted_proxy;

struct pdk_session {
    uint64_t id;
    char *name;
    char *world_preset;
    char *build_id;
    pdk_timing timing;
    pdk_store *store;
    pdk_session_hooks hooks;

    pdk_world_def world_def; /* as given: a restore lays a fresh world out from it */
    void *world_mem;         /* pdk_world_mem_alloc(world_mem_bytes) */
    size_t world_mem_bytes;
    pdk_world *world;
    uint64_t seq;
    bool publishing; /* false: ticks send no state or report frames */
    pdk_session_channels channels; /* the ticks the world writes its channels on */
    uint64_t tick_wall_ns; /* UTC (ns) when the last tick's step ended; 0 before one */
    /* The hash the last tick's recording took (tick_hashed: it took one),
     * for pdk_session_tick_hash. */
    uint64_t tick_hash;
    bool tick_hashed;
    /* VehicleState.teleport_count (docs/protocol.md "State"): seeks for
     * every vehicle, resets per vehicle (sorted by id). Not part of the
     * world: no hash or snapshot holds it. */
    pdk_wire_teleports teleports;
    pdk_wire_teleport *teleport_each;
    size_t cap_teleports;

    pdk_pending_input *pending;
    size_t n_pending;
    size_t cap_pending;

    subscription subs[PDK_SESSION_MAX_SUBS];
    size_t n_subs;
    /* The vehicles inside an area of interest this tick (publish); room
     * for every vehicle of the world once a subscription has an area. */
    pdk_vehicle_id *aoi_ids;

    script_driver scripts[PDK_SESSION_MAX_SCRIPTS];
    size_t n_scripts;

    dbw_sub dbw_subs[PDK_SESSION_MAX_DBW_SUBS];
    size_t n_dbw_subs;
    report_ring *rings[PDK_SESSION_MAX_DBW_SUBS]; /* one per subscribed vehicle */
    size_t n_rings;

    hosted_proxy *hosted; /* the proxies hosted for connections (session_proxy.c) */
    size_t n_hosted;
    size_t cap_hosted;
    uint64_t proxies_posed; /* 1 + the tick whose proxy poses are queued; 0: none yet */

    lease *leases; /* at most one per (vehicle, source) of a live vehicle */
    size_t n_leases;
    size_t cap_leases;
    /* Where each vehicle's leases are in leases, by its slot (session_lease.c):
     * made at the first lease, as many as the world has slots, plus one. */
    lease_slot *lease_index;
    size_t n_lease_index;

    pdk_buf common;  /* the tick's shared state batch body */
    pdk_buf frame;   /* one subscriber's frame */
    pdk_buf payload; /* an input's recorded form */
    pdk_buf inputs;  /* this tick's recorded inputs, packed for one store record */
    uint64_t inputs_tick;
    pdk_lateness lateness;
    pdk_lateness tick_time; /* how long its ticks took (the server's; stats.h) */
    pdk_tick_parts parts;

    /* The recording (session_record.c); all unused when store is NULL. */
    uint64_t start_tick;      /* the recording's first tick */
    uint32_t keyframe_every;  /* ticks between keyframes */
    uint32_t keyframe_offset; /* their ticks into each interval (< keyframe_every) */
    uint64_t next_keyframe;   /* the next tick a keyframe is due (session_record.c) */
    pdk_buf snapshot;         /* the keyframe being encoded */
    pdk_keyframe_scratch *keyframe_scratch; /* its encode's arrays, kept; NULL before one */
    size_t keyframe_vehicle_bytes;          /* the last keyframe's bytes a vehicle; 0 before one */
    int keyframe_planned; /* vehicles a warm spare was asked for (session_record.c) */
    /* State hashes not yet handed to the store: consecutive ticks from
     * hashes_from, recorded in the record of the session's next inputs
     * (pdk_session_flush_inputs_), or as one record of their own before
     * its next other record or when PDK_SESSION_HASH_BATCH are held
     * (session_record.c). */
    uint64_t hashes[PDK_SESSION_HASH_BATCH];
    uint64_t hashes_from;
    size_t n_hashes;
    uint64_t record_failures; /* record_* calls the store refused */
};

/* ---- session.c ---------------------------------------------------------- */

/* strdup of s, or of "" for NULL; NULL when out of memory. */
char *pdk_session_dup_(const char *s);

/* A session with its fresh world at tick 0, hooks and settings from def,
 * nothing recorded (store stays NULL). Errors as pdk_session_create. */
pdk_error pdk_session_create_bare_(uint64_t id, const pdk_session_def *def,
                                   const pdk_session_hooks *hooks, pdk_session **out);

/* After a restore: each report ring starts over, holding only the restored
 * tick's report; the subscriptions of vehicles the world no longer holds
 * end (STALE_ID). */
void pdk_session_rings_restart_(pdk_session *s);

/* Ends every DBW report subscription on vehicle v, telling each subscriber
 * why ("subscription N ended: " what). */
void pdk_session_end_vehicle_subs_(pdk_session *s, pdk_vehicle_id v, pdk_error code,
                                   const char *what);

/* ---- session_lease.c ---------------------------------------------------- */

/* True when a connection other than except_conn holds a source above src
 * on id. */
bool pdk_session_conn_lease_above_(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                   uint64_t except_conn);
/* Releases every lease conn_id holds; the remaining holders hear of it. */
void pdk_session_release_conn_leases_(pdk_session *s, uint64_t conn_id);
/* A removed vehicle's leases go with it; their holders hear reason. */
void pdk_session_drop_vehicle_leases_(pdk_session *s, pdk_vehicle_id id, const char *reason);

/* ---- session_proxy.c --------------------------------------------------- */

/* The session's sim time at its current tick boundary (tick / 120). */
double pdk_session_sim_time_s_(const pdk_session *s);
/* The hosted proxy of id; NULL when the session hosts none by that id. */
hosted_proxy *pdk_session_hosted_(pdk_session *s, pdk_proxy_id id);
/* Hosted proxies of conn_id, and PROXY_ADD inputs of conn_id still queued
 * (conn_id 0: the queued ones of every connection). */
size_t pdk_session_conn_proxies_(const pdk_session *s, uint64_t conn_id);
/* At a tick boundary, before its inputs apply, once per tick (a boundary
 * whose inputs apply more than once, a lockstep session nobody steps,
 * writes nothing the second time): each hosted proxy's silence (a freeze
 * is told now; a removal is written into out) and the pose it takes for
 * the coming tick (a PROXY_POSE input into out). out has room for
 * n_hosted inputs; returns how many it wrote. */
size_t pdk_session_proxies_due_(pdk_session *s, pdk_input *out);
/* After input p applied: a PROXY_ADD with a connection to answer is hosted
 * for it; a PROXY_REMOVE ends its hosting, its owner and the session's
 * state subscribers told why (ProxyEvent REMOVED). A reset removes
 * vehicles only (sim/world.h): proxies stay hosted. */
void pdk_session_proxy_applied_(pdk_session *s, const pdk_pending_input *p);
/* After a step: each hosted proxy's contacts of that tick go to its owner,
 * and its count of poses starts again. */
void pdk_session_proxy_stepped_(pdk_session *s);
/* Tells a proxy's owner and the state subscribers (each connection once)
 * kind, with why. */
void pdk_session_proxy_event_(pdk_session *s, const hosted_proxy *h, pdk_proxy_event_kind kind,
                              const char *why);

/* ---- session_record.c --------------------------------------------------- */

/* Records an applied input: its body (kept by its kind's prepare, else
 * encoded now) in this tick's packed inputs, then the store rows its kind
 * leaves besides it, after the tick's inputs so far, so that a row never
 * lands before its input. */
void pdk_session_record_input_(pdk_session *s, const pdk_input_ctx *ctx, const pdk_input_ops *ops,
                               const pdk_pending_input *p, uint64_t tick);

/* The entry of vehicles (n of them) with id; NULL without one. */
const pdk_session_vehicle *pdk_session_vehicle_origin_(const pdk_session_vehicle *vehicles,
                                                       size_t n, pdk_vehicle_id id);

/* Notes a refused record (the first one is logged). */
void pdk_session_recorded_(pdk_session *s, pdk_error err, const char *what);

/* Hands the held state hashes to the store as one record. Every other
 * record of the session is queued after this call, so that a committed
 * input of tick T follows the hashes of every tick before T. */
void pdk_session_flush_hashes_(pdk_session *s);

/* Hands this tick's packed inputs to the store as one record
 * (pdk_store_record_inputs): at the end of the tick's inputs, and before a
 * vehicle's row, so that a row never lands before its input. */
void pdk_session_flush_inputs_(pdk_session *s);

/* Records the session's row (its start tick is the world's tick now), then
 * each of vehicles' rows, then the state hash and a keyframe at the start
 * tick. PDK_ERR_* of pdk_store_record_session. */
pdk_error pdk_session_record_start_(pdk_session *s, const pdk_session_def *def,
                                    const pdk_session_vehicle *vehicles, size_t n_vehicles);

/* After a step: the state hash, and a keyframe when one is due. */
void pdk_session_record_tick_(pdk_session *s);

/* The session's end (final tick and hash). */
void pdk_session_record_end_(pdk_session *s);

#endif
