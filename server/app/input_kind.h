/* The kinds of input that change a session's world, and the one table that
 * says, for each kind, everything the session and the replay need of it:
 * the message of the proto its recorded body is, how the body is written
 * and read (through wire's pdk_wire_pack_append and pdk_wire_body_read,
 * which know any message), how it is prepared and applied at a tick
 * boundary, what the recording keeps of it and what it does to the world's
 * vehicle slots (what a replay predicts). A new kind is its message in the
 * proto, its number and payload here and its entry in input_kinds.c (the
 * table), and the request handler that queues it (pdk_session_queue_input);
 * the session's tick, the recording, the replay and wire need no change.
 * The entries see their session only through pdk_input_ctx. */
#ifndef PDK_INPUT_KIND_H
#define PDK_INPUT_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/contact.h"
#include "store.h"
#include "wire.h"

/* The numbers recordings store with each input: never renumber one. */
typedef enum pdk_input_kind {
    PDK_INPUT_SPAWN = 1,
    PDK_INPUT_REMOVE = 2,
    PDK_INPUT_DBW = 3,
    PDK_INPUT_TYRE = 4,    /* recorded as a TyreCommand body */
    PDK_INPUT_DBW_KIT = 5, /* a DBW kit message (sim/dbw.h), recorded as a DbwMessage body */
    PDK_INPUT_RESET = 6,   /* every vehicle removed, PRNG reseeded (a SessionControl body) */
    PDK_INPUT_RESEED = 7,  /* the world's seed changed (a SessionControl body) */
    PDK_INPUT_VEHICLE_RESET = 8, /* one vehicle righted (a VehicleReset body) */
    PDK_INPUT_PROXY_ADD = 9,     /* a hosted proxy enters (a ProxyRegister body, its hull resolved) */
    PDK_INPUT_PROXY_POSE = 10,   /* the pose a proxy takes for the coming tick (a ProxyPose body) */
    PDK_INPUT_PROXY_REMOVE = 11, /* a proxy leaves (a ProxyRemove body) */
} pdk_input_kind;

/* A hosted proxy as it enters the world (docs/multiplayer.md "Hosting a
 * proxy"): its box, mass (0: infinite) and material, where it starts, the
 * owner's clock at that pose (which ties the owner's timestamps to sim
 * time) and the label events name it by. */
typedef struct pdk_proxy_entry {
    pdk_proxy_def def;
    pdk_proxy_pose pose;
    uint64_t owner_ns;
    char label[64];
    /* With a preset: the box's centre from the car's CG, body frame
     * (pdk_vehicle_def_hull_box), told to the owner in ProxyRegistered;
     * not recorded (a replay tells nobody). */
    double centre_m[3];
} pdk_proxy_entry;

/* Why a proxy leaves: its ProxyEvent's reason (not recorded: a replay
 * hosts nobody's proxies and tells nobody). */
typedef enum pdk_proxy_gone {
    PDK_PROXY_GONE_OWNER = 0, /* its owner's ProxyRemove */
    PDK_PROXY_GONE_SILENT,    /* its owner was silent past PDK_PROXY_REMOVE_S */
    PDK_PROXY_GONE_CLOSED,    /* its owner's connection closed */
} pdk_proxy_gone;

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

/* Where a vehicle reset puts it (sim/world.h pdk_world_vehicle_reset):
 * at_pose 0, where it is; else at x, y and the heading in degrees (as a
 * spawn's, converted once by the session and recorded in degrees). */
typedef struct pdk_reset_place {
    int32_t at_pose;
    double x_m;
    double y_m;
    double yaw_deg;
} pdk_reset_place;

/* One input as a request, a script or a recording gives it. */
typedef struct pdk_input {
    pdk_input_kind kind;
    pdk_vehicle_id vehicle; /* REMOVE, DBW, TYRE, DBW_KIT, VEHICLE_RESET; SPAWN once applied */
    pdk_proxy_id proxy;     /* PROXY_POSE, PROXY_REMOVE; PROXY_ADD once applied */
    union {
        pdk_dbw_cmd cmd;       /* DBW */
        pdk_tyre_input tyre;   /* TYRE */
        pdk_dbw_msg kit;       /* DBW_KIT */
        pdk_spawn_place place; /* SPAWN */
        pdk_reset_place reset; /* VEHICLE_RESET */
        uint64_t seed;         /* RESEED */
        pdk_proxy_entry proxy_add;   /* PROXY_ADD */
        pdk_proxy_pose proxy_pose;   /* PROXY_POSE */
        pdk_proxy_gone proxy_gone;   /* PROXY_REMOVE */
    } u;
    char *preset; /* SPAWN: as its body names them (malloc'd by whoever holds it) */
    char *overrides;
} pdk_input;

/* Where the answer to a queued input goes: a connection and its request. */
typedef struct pdk_reply_to {
    uint64_t conn_id; /* 0: nobody waits (scripts, the offline runner, a replay) */
    uint64_t request_id;
    uint32_t batch; /* 1 + the input's entry in a batch request (server_batch.c); 0: none */
} pdk_reply_to;

/* An input waiting for its tick boundary. */
typedef struct pdk_pending_input {
    pdk_input in; /* a spawn's preset and overrides are owned here */
    pdk_reply_to to;
    uint8_t payload[96]; /* its recorded body, when prepare kept it */
    uint8_t payload_len; /* 0: encoded when it is recorded */
    /* spawn only (the definition is large: a queued command carries none) */
    pdk_vehicle_def *def;
    char *params_json;
    /* reset only: the vehicles it removed, for the recording */
    pdk_vehicle_id *removed;
    int n_removed;
} pdk_pending_input;

/* What a kind's entry may touch of the session it applies to. */
typedef struct pdk_input_ctx {
    uint64_t session_id;
    pdk_world *world;
    pdk_store *store; /* NULL: the session is not recorded */
    pdk_buf *scratch; /* a buffer prepare may use */
    /* Vehicle id left the world: its leases end, their holders told why;
     * with end_subs its DBW report subscriptions end too (STALE_ID). */
    void (*vehicle_gone)(void *ud, pdk_vehicle_id id, const char *why, bool end_subs);
    /* The store refused a record (what names it). */
    void (*recorded)(void *ud, pdk_error err, const char *what);
    void *ud;
} pdk_input_ctx;

/* What an input does to the world's vehicle slots, for a replay that
 * predicts the ids its spawns get. */
typedef enum pdk_input_slots {
    PDK_INPUT_SLOTS_KEPT = 0,
    PDK_INPUT_SLOTS_TAKE_ONE, /* a spawn: the lowest free slot */
    PDK_INPUT_SLOTS_FREE_ONE, /* the input's vehicle's, when it is alive */
    PDK_INPUT_SLOTS_FREE_ALL,
} pdk_input_slots;

/* One kind's entry in the input table. */
typedef struct pdk_input_ops {
    pdk_input_kind kind;
    /* The recorded body's message; its short_name names it in load errors. */
    const ProtobufCMessageDescriptor *body;
    pdk_input_slots slots;
    /* The recorded body: the entry fills its message from in and appends it
     * to out (pdk_wire_pack_append). */
    pdk_error (*encode)(uint64_t session_id, const pdk_input *in, pdk_buf *out);
    /* And back: msg, a decoded message of type body, into in (kind already
     * set); PDK_ERR_PARSE when msg is not this kind's (another action of a
     * shared message). Touches nothing but in and the heap (several threads
     * decode a recording at once); strings it sets are the caller's to free,
     * also after an error. */
    pdk_error (*read)(const ProtobufCMessage *msg, pdk_input *in);
    /* Optional: turns a queued input into what will apply, before it is
     * queued (a kit message: its recorded form). An error refuses it. A
     * replay's input skips it unless the session records itself
     * (pdk_session_queue_recorded). */
    pdk_error (*prepare)(const pdk_input_ctx *ctx, pdk_pending_input *p);
    /* Applies it at the current tick boundary; on an error msg (msg_len
     * bytes) names what was wrong. */
    pdk_error (*apply)(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg, size_t msg_len);
    /* Optional, for a recorded session: the store's rows an applied input
     * leaves besides its own record (a vehicle's row, removals), written
     * after it. */
    void (*record_rows)(const pdk_input_ctx *ctx, const pdk_pending_input *p, uint64_t tick);
} pdk_input_ops;

/* The entry of kind; NULL for a number this build does not know. */
const pdk_input_ops *pdk_input_ops_of(int kind);

/* A recorded body of ops's kind into in (kind already set): wire decodes
 * its message, the entry reads it. PDK_ERR_PARSE when the bytes are not
 * one; else what the entry's read says. */
pdk_error pdk_input_decode(const pdk_input_ops *ops, const uint8_t *body, size_t len,
                           pdk_input *in);

#endif
