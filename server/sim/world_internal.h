/* The world's private layout, shared by the files that implement pdk_world
 * (world.c: ids, commands, the tick loop and the hash; world_snapshot.c:
 * snapshots and restores). Nothing outside server/sim includes it. */
#ifndef PDK_WORLD_INTERNAL_H
#define PDK_WORLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dbw/dbw.h"
#include "math/prng.h"
#include "sim/world.h"
#include "vehicle/four_wheel.h"
#include "vehicle/single_track.h"

/* An id's low 16 bits are its slot + 1; a generation wraps within them too. */
#define PDK_WORLD_SLOT_MASK 0xFFFFu

/* Per slot bookkeeping; part of the state (ids must replay identically). */
typedef struct slot_meta {
    uint32_t generation; /* 0..65535, bumped when the slot's vehicle is removed */
    uint32_t alive;
    uint32_t model; /* pdk_model of the live vehicle */
    uint32_t tyre;  /* a four-wheel vehicle's entry in the tyres array */
} slot_meta;

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
 *   meta      slot_meta       generation and liveness
 *   st_state, st_cmd, st_params   hot: a single-track vehicle's state, held
 *                                 command and constants
 *   fw_state, fw_cmd, fw_consts   hot: the same for a four-wheel vehicle (its
 *                                 kinematic curves are read from defs)
 * Each model has arrays of its own (a slot uses one set), so a fleet of
 * single-track cars is as dense in memory as if the four-wheel model, whose
 * constants are six times larger, did not exist.
 *   tyres     pdk_tyre_consts4  hot: the four-wheel vehicles' tyre constants,
 *             one entry per distinct set, shared by the vehicles spawned from
 *             equal definitions (4 KB each: a fleet of one preset reads one
 *             copy a tick instead of one per car)
 *   tyre_refs uint32_t        how many live vehicles use each entry
 *   channels  double[PDK_CH_COUNT]  the last telemetry written (every tick
 *             unless telemetry_off)
 *   defs      pdk_vehicle_def cold: what each vehicle was spawned from
 *   dbw       pdk_dbw_state   cold until a kit is spoken to: each vehicle's DBW kit
 *   driver    pdk_dbw_cmd     the driver's controls as last set (pdk_world_command)
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
    /* 1: the steps write no four-wheel channels (pdk_world_set_telemetry);
     * not state, not hashed. */
    int32_t telemetry_off;
    size_t off_live, off_meta, off_st_state, off_st_cmd, off_st_params, off_fw_state, off_fw_cmd,
        off_fw_consts, off_tyres, off_tyre_refs, off_channels, off_defs, off_dbw, off_driver, bytes;
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
PDK_WORLD_ARRAY_(pdk_st_state, st_state)
PDK_WORLD_ARRAY_(pdk_st_cmd, st_cmd)
PDK_WORLD_ARRAY_(pdk_st_params, st_params)
PDK_WORLD_ARRAY_(pdk_fw_state, fw_state)
PDK_WORLD_ARRAY_(pdk_fw_cmd, fw_cmd)
PDK_WORLD_ARRAY_(pdk_fw_consts, fw_consts)
PDK_WORLD_ARRAY_(pdk_tyre_consts4, tyres)
PDK_WORLD_ARRAY_(uint32_t, tyre_refs)
PDK_WORLD_ARRAY_(pdk_vehicle_def, defs)
PDK_WORLD_ARRAY_(pdk_dbw_state, dbw)
PDK_WORLD_ARRAY_(pdk_dbw_cmd, driver)
#undef PDK_WORLD_ARRAY_

static inline int is_four_wheel(const pdk_world *w, uint32_t slot)
{
    return meta_of(w)[slot].model == (uint32_t)PDK_MODEL_FOUR_WHEEL;
}

static inline uint32_t faulted_of(const pdk_world *w, uint32_t slot)
{
    return is_four_wheel(w, slot) ? fw_state_of(w)[slot].faulted : st_state_of(w)[slot].faulted;
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

#endif
