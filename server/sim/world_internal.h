/* The world's private layout, shared by the files that implement pdk_world
 * (world.c: ids, commands, the tick loop and the hash; world_snapshot.c:
 * snapshots and restores) and by the models' tables (model.h),
 * which keep their vehicles in arrays of their own inside it. Nothing
 * outside server/sim includes it. */
#ifndef PDK_WORLD_INTERNAL_H
#define PDK_WORLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dbw/dbw.h"
#include "dbw/dbw_hash.h"
#include "math/hash.h"
#include "math/prng.h"
#include "sim/contact.h"
#include "sim/world.h"
#include "contact/contact.h"
#include "model.h"

/* An id's low 16 bits are its slot + 1; a generation wraps within them too. */
#define PDK_WORLD_SLOT_MASK 0xFFFFu

/* A hint to the caches to fetch the line holding p (model.h
 * contact_prefetch); nothing where the compiler has no such hint. */
#if defined(__GNUC__)
#define PDK_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define PDK_PREFETCH(p) ((void)(p))
#endif

/* Per slot bookkeeping; part of the state (ids must replay identically),
 * except def_at. */
typedef struct slot_meta {
    uint32_t generation; /* 0..65535, bumped when the slot's vehicle is removed */
    uint32_t alive;
    uint32_t model;  /* pdk_model of the live vehicle */
    uint32_t shared; /* the model's entry of constants shared between vehicles, if any */
    /* The live slot whose defs entry the tick reads for this vehicle's
     * definition (step_def_of), and whose constants it reads where its
     * model keeps constants per slot (model_four_wheel.c): its own, or
     * another vehicle's byte for byte equal one, so that a fleet of one
     * preset reads one copy a tick instead of one per car. Which copy
     * changes no result; not hashed, not in a snapshot. */
    uint32_t def_at;
} slot_meta;

/* A proxy's slot (contact.h): generation and liveness as a vehicle's slot
 * (state), its definition and pose (state), and what the last tick's
 * contact gave it (an output, neither hashed nor in a snapshot). */
typedef struct proxy_slot {
    uint32_t generation;
    uint32_t alive;
    pdk_proxy_def def;
    pdk_proxy_pose pose;
    pdk_proxy_contact contact;
} proxy_slot;

/* Where a restore into this world stands (world_snapshot.c). */
enum {
    PDK_RESTORE_NONE = 0, /* no restore begun: the world may take a head */
    PDK_RESTORE_VEHICLES, /* the head is in: vehicles follow in id order */
    PDK_RESTORE_DONE,     /* ended: the world runs */
    PDK_RESTORE_FAILED    /* a call failed: the world must be discarded */
};

/* The header at the start of the caller's memory. Arrays follow it at fixed
 * offsets, each max_vehicles long and indexed by slot:
 *   live      uint32_t        live slots in ascending order (count of them)
 *   meta      slot_meta       generation, liveness and model
 *   then each model's arrays (model.h array_bytes), models in
 *             pdk_models order: hot per-vehicle state, held command and
 *             constants. A slot uses its model's set only, so a fleet of
 *             one model is as dense in memory as if the others did not
 *             exist.
 *   channels  double[PDK_CH_COUNT]  the last telemetry written (every tick
 *             unless telemetry_off)
 *   defs      pdk_vehicle_def cold: what each vehicle was spawned from
 *   dbw       pdk_dbw_state   cold until a kit is spoken to: each vehicle's DBW kit
 *   driver    pdk_dbw_cmd     the driver's controls as last set (pdk_world_command)
 *   wheel_angle double[PDK_WORLD_WHEEL_ANGLES]  each wheel's angle for drawing
 *             (WheelAngle_*): kept every step, telemetry or not, so that the
 *             channels stay what an always-on world writes; not state, not
 *             hashed, seeded from a restored record's channels
 *   proxy_live uint32_t      live proxy slots in ascending order (proxy_count)
 *   proxies   proxy_slot      each proxy slot's generation, definition, pose
 *             (state) and last tick's contact (output), max_vehicles long
 *   then the contact phase's scratch, rebuilt every tick and no state
 *   (contact/contact.h): bodies (2 max_vehicles), the sweep's order (as
 *   many), pairs (8 max_vehicles), manifolds (2 max_vehicles + 16), events
 *   (max(64, max_vehicles)) and per vehicle slot its contact sums for the
 *   channels.
 * Offsets rather than pointers keep the block position independent (the
 * restore's problem sentence is the one pointer, to static storage, and it
 * is no part of the state). */
struct pdk_world {
    pdk_world_def def;
    double substep_s;
    uint64_t tick;
    pdk_prng prng;
    int32_t count;
    int32_t capacity;
    int32_t first_free; /* no slot below this one is free */
    int32_t faulted;    /* live vehicles whose state has faulted */
    /* No slot at or above this one has a generation other than 0: the
     * state hash reads free slots' generations below it only, so that a
     * world of 256 slots holding one car does not scan 255 every tick. */
    int32_t generation_top;
    /* A restore's progress (world_snapshot.c): its phase, the live count
     * the head promised, the lowest slot the next vehicle may take, and why
     * the last restore call failed. None of it is state or hashed. */
    int32_t restore_phase;
    int32_t restore_count;
    int32_t restore_next_slot;
    const char *restore_problem;
    /* 1: the steps write no channels where a model can leave them out
     * (pdk_world_set_telemetry); not state, not hashed. */
    int32_t telemetry_off;
    /* Live vehicles of each model kind, so that the step passes over a
     * model with none; follows from meta, not hashed. */
    int32_t model_count[PDK_MODEL_KIND_END];
    /* The proxies (contact.h): live count, the lowest slot that may be
     * free, and the generation top as for vehicles (state: ids must
     * replay identically). */
    int32_t proxy_count;
    int32_t proxy_first_free;
    int32_t proxy_generation_top;
    /* The contact phase's capacities and the last tick's counts (outputs,
     * not state, not hashed). */
    int32_t cap_bodies, cap_pairs, cap_manifolds, cap_events;
    int32_t n_events, n_events_dropped, n_pairs_missed;
    int32_t sap_count; /* the bodies the sweep's order was last sorted for */
    int32_t sap_axis;  /* and the axis it was sorted along (pdk_contact_broad) */
    size_t off_proxy_live, off_proxies, off_cbodies, off_sap, off_pairs, off_manifolds,
        off_events, off_csum;
    size_t off_live, off_meta, off_channels, off_defs, off_dbw, off_driver, off_wheel_angle, bytes;
    size_t off_model[PDK_MODEL_KIND_END][PDK_MODEL_MAX_ARRAYS]; /* by kind, then array */
};

/* Array views. The world's const-ness is the caller's promise; internally the
 * arrays are reached from the header's address. */
static inline unsigned char *pdk_world_base_(const pdk_world *w)
{
    return (unsigned char *)(uintptr_t)w;
}

#define PDK_WORLD_ARRAY_(type, name)                                                               \
    static inline type *name##_of(const pdk_world *w)                                              \
    {                                                                                              \
        return (type *)(void *)(pdk_world_base_(w) + w->off_##name);                               \
    }
PDK_WORLD_ARRAY_(uint32_t, live)
PDK_WORLD_ARRAY_(slot_meta, meta)
PDK_WORLD_ARRAY_(pdk_vehicle_def, defs)
PDK_WORLD_ARRAY_(pdk_dbw_state, dbw)
PDK_WORLD_ARRAY_(pdk_dbw_cmd, driver)
PDK_WORLD_ARRAY_(uint32_t, proxy_live)
PDK_WORLD_ARRAY_(proxy_slot, proxies)
PDK_WORLD_ARRAY_(pdk_cbody, cbodies)
PDK_WORLD_ARRAY_(uint32_t, sap)
PDK_WORLD_ARRAY_(uint64_t, pairs)
PDK_WORLD_ARRAY_(pdk_manifold, manifolds)
PDK_WORLD_ARRAY_(pdk_contact_event, events)
PDK_WORLD_ARRAY_(pdk_contact_sum, csum)
#undef PDK_WORLD_ARRAY_

/* Array i of model kind's arrays (pdk_model_ops.array_bytes); the model
 * casts it to its element type. */
static inline void *pdk_world_model_array_(const pdk_world *w, uint32_t kind, int i)
{
    return pdk_world_base_(w) + w->off_model[kind][i];
}

/* The definition a live slot's vehicle steps with (slot_meta.def_at):
 * equal to its own defs entry, byte for byte. */
static inline const pdk_vehicle_def *step_def_of(const pdk_world *w, uint32_t slot)
{
    return &defs_of(w)[meta_of(w)[slot].def_at];
}

/* The table of the model that runs a live slot. */
static inline const pdk_model_ops *model_of(const pdk_world *w, uint32_t slot)
{
    return pdk_model_ops_of(meta_of(w)[slot].model);
}

static inline uint32_t faulted_of(const pdk_world *w, uint32_t slot)
{
    return model_of(w, slot)->faulted(w, slot);
}

/* A slot's wheel angles for drawing, FL FR RL RR, rad in [0, 2 pi). */
#define PDK_WORLD_WHEEL_ANGLES 4
static inline double *wheel_angle_of(const pdk_world *w, uint32_t slot)
{
    double *all = (double *)(void *)(pdk_world_base_(w) + w->off_wheel_angle);
    return all + (size_t)slot * PDK_WORLD_WHEEL_ANGLES;
}

/* A slot's PDK_CH_COUNT channel values. */
static inline double *channels_of(const pdk_world *w, uint32_t slot)
{
    double *all = (double *)(void *)(pdk_world_base_(w) + w->off_channels);
    return all + (size_t)slot * (size_t)PDK_CH_COUNT;
}

static inline pdk_vehicle_id make_id(uint32_t slot, uint32_t generation)
{
    return (generation << 16) | (slot + 1u);
}

/* The slot of a live vehicle, or -1 for zero, stale or out-of-range ids. */
static inline int32_t slot_of(const pdk_world *w, pdk_vehicle_id id)
{
    if (w == NULL) {
        return -1;
    }
    uint32_t low = id & PDK_WORLD_SLOT_MASK;
    if (low == 0u || low > (uint32_t)w->capacity) {
        return -1;
    }
    uint32_t slot = low - 1u;
    const slot_meta *m = &meta_of(w)[slot];
    if (!m->alive || m->generation != (id >> 16)) {
        return -1;
    }
    return (int32_t)slot;
}

/* A live vehicle's part of the state hash is its id (pdk_world_hash_id_),
 * then its model's state and held command (the model's hash), then its DBW
 * kit once spoken to (pdk_world_hash_kit_). Always inlined, so that each
 * build of a model's hash compiles them for its processor. */
PDK_HASH_INLINE void pdk_world_hash_id_(pdk_hash4 *h, const pdk_world *w, uint32_t slot)
{
    pdk_hash4_take(h, make_id(slot, meta_of(w)[slot].generation), 0u, 0u, 0u);
}

PDK_HASH_INLINE void pdk_world_hash_kit_(pdk_hash4 *h, const pdk_world *w, uint32_t slot)
{
    const pdk_dbw_state *dbw = &dbw_of(w)[slot];
    if (dbw->touched) {
        /* A kit never spoken to is where spawn put it and changes
         * nothing; once spoken to it is state like any other. */
        const pdk_dbw_cmd *d = &driver_of(w)[slot];
        pdk_hash4_f64x4(h, d->throttle_pct, d->brake_bar, d->steer_wheel_deg, 0.0);
        pdk_hash4_take(h, (uint64_t)(uint32_t)d->gear, (uint64_t)(uint32_t)d->gear_number, 0u,
                       0u);
        pdk_dbw_hash(h, dbw);
    }
}

/* Spawns def into the free slot, with the slot's generation as it stands:
 * the restore's way in (world_snapshot.c), which then lays the vehicle's
 * state record over what this sets up. Everything that follows from def
 * alone is set as pdk_world_spawn sets it (constants, the shared tyre set,
 * the definition's copy), the live list stays sorted and first_free and
 * count stay right. def has passed pdk_vehicle_def_check and the slot is
 * free; the pose is the origin at rest, in gear. */
void pdk_world_spawn_at_(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def,
                         pdk_gear gear);

/* A restore's spawn of a vehicle whose definition is byte for byte live
 * slot like's: slot takes like's definition, constants and tyre set
 * without working them out again (a restore of a fleet of one preset
 * spends most of its time there), enters the live list, and holds no
 * evolving state: the caller lays the vehicle's record over it at once. */
void pdk_world_spawn_like_(pdk_world *world, uint32_t slot, uint32_t like);

/* world_contact.c's parts of the world's operations: the proxies' part of
 * the state hash folded into h; the proxies moved on by their velocities
 * over the tick (after the models' step); the contact phase (before the
 * models' step); the contact channels (after it). */
uint64_t pdk_world_proxy_hash_(const pdk_world *world, uint64_t h);
void pdk_world_proxies_move_(pdk_world *world);
void pdk_world_contact_phase_(pdk_world *world);
void pdk_world_contact_channels_(pdk_world *world);

#endif
