/* The vehicle model interface: one table of operations per model kind
 * (pdk_model), through which the world spawns, commands, steps, reads,
 * hashes, snapshots and removes its vehicles, and definitions are checked,
 * without knowing which model runs them. The four-wheel model's table is model_four_wheel.c's, the
 * single-track model's model_single_track.c's; model.c lists them. A third
 * model is one more table, listed there, and its record's place in
 * pdk_model_record below. Private to sim. */
#ifndef PDK_MODEL_H
#define PDK_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "contact/contact.h"
#include "dbw/dbw.h"
#include "math/hash.h"
#include "sim/builds.h"
#include "sim/snapshot.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"
#include "vehicle/four_wheel.h"
#include "vehicle/single_track.h"

/* The most per-slot arrays one model keeps in the world's memory. */
#define PDK_MODEL_MAX_ARRAYS 5

/* One past the highest pdk_model value: the tables are indexed by kind. */
#define PDK_MODEL_KIND_END 3

/* A model's part of a vehicle's snapshot record: its state and held
 * command (with the command's cached part, which the step reads). The
 * union has room for any model's; a snapshot's bytes are this build's
 * plain-data structs. */
typedef struct pdk_fw_record {
    pdk_fw_state state;
    pdk_fw_cmd cmd;
} pdk_fw_record;

typedef struct pdk_st_record {
    pdk_st_state state;
    pdk_st_cmd cmd;
} pdk_st_record;

typedef union pdk_model_record {
    pdk_fw_record fw;
    pdk_st_record st;
} pdk_model_record;

/* The most spans a model's record part is made of (pdk_model_ops). */
#define PDK_MODEL_RECORD_SPANS 2

/* The state hash's words for count live vehicles of one model, slots in
 * id order, each as world_internal.h has it (id, the model's state and
 * held command, DBW kit), by build (builds.h): every build feeds the same
 * words. */
typedef void (*pdk_model_hash_fn)(pdk_hash4 *h, const pdk_world *world, const uint32_t *slots,
                                  int32_t count);

/* One model kind's operations. slot is always a live vehicle's of this
 * kind unless said otherwise; the world has already checked every input
 * from outside sim (ids, ranges, the definition). No member allocates. */
typedef struct pdk_model_ops {
    pdk_model kind;
    /* The element size of each array the model keeps per slot in the
     * world's memory (pdk_world_model_array_), in the order laid out. */
    int arrays;
    size_t array_bytes[PDK_MODEL_MAX_ARRAYS];

    /* The rules a definition of this kind keeps beyond those every model
     * shares (vehicle/vehicle_rules.h): PDK_OK, or the error with *why
     * naming the first field that breaks one. */
    pdk_error (*def_check)(const pdk_vehicle_def *def, const char **why);
    /* Sets the free slot up from def (checked) at pose, moving forward at
     * speed_mps, in gear: constants, state, held command. */
    void (*spawn)(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, const pdk_pose *pose,
                  double speed_mps, pdk_gear gear);
    /* Sets the free slot up with live slot like's constants (their
     * definitions are byte for byte equal), leaving the state to the
     * restore that follows. */
    void (*spawn_like)(pdk_world *world, uint32_t slot, uint32_t like);
    /* Stands the live slot's vehicle upright at rest at pose (checked),
     * its fault cleared (world.h pdk_world_vehicle_reset says what keeps). */
    void (*reset)(pdk_world *world, uint32_t slot, const pdk_pose *pose);
    /* Clears what the slot's vehicle held: its state, command and its
     * share of any constants kept in common. */
    void (*remove)(pdk_world *world, uint32_t slot);

    /* The driver's controls the vehicle holds (throttle, brake, steering,
     * gear; fields and gear_number are left alone). */
    void (*held)(const pdk_world *world, uint32_t slot, pdk_dbw_cmd *out);
    /* Holds the driver's controls c (every value in range), and
     * c->gear_number where c->fields has PDK_DBW_GEAR_NUMBER. */
    void (*command)(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c);
    /* The DBW kit's hand-off to the actuators for the coming tick: the
     * controls c and, where park is 1, the parking brake held on. */
    void (*actuate)(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c, int32_t park);
    /* What the kit reads of the vehicle: its state now (at spawn too,
     * before any step has written channels). */
    pdk_dbw_vehicle (*kit_reading)(const pdk_world *world, uint32_t slot);
    /* The vehicle's part of a kit message already applied to the kit
     * (the four-wheel model's drive-mode switch); NULL where none. */
    void (*kit_message)(pdk_world *world, uint32_t slot, const pdk_dbw_msg *msg);
    /* A tyre input, checked (world.h pdk_world_tyre_input); NULL for a
     * model whose tyres have no life, and then tyre_refusal says why. */
    void (*tyre_input)(pdk_world *world, uint32_t slot, const pdk_tyre_input *in);
    const char *tyre_refusal;
    /* Distinct sets of constants the model's vehicles share
     * (pdk_world_tyre_sets); NULL where it shares none. */
    int (*tyre_sets)(const pdk_world *world);

    /* Steps every live vehicle of this kind in live[0..count) (id order)
     * that is not faulted by one tick, in groups as wide as the model's
     * lanes take, and writes their channels (the telemetry) in the same
     * pass: some come only from inside the substeps, and the rest are
     * cheapest while the group is in cache. A model may leave them out
     * while the world's telemetry is off. Returns how many faulted. */
    int (*step)(pdk_world *world, const uint32_t *live, int32_t count);

    /* The readable pose (every field but id and faulted). */
    void (*pose)(const pdk_world *world, uint32_t slot, pdk_vehicle_pose *out);
    /* The vehicle's fault code (sim/channels.h pdk_vehicle_fault), 0 when
     * its state has not faulted. */
    uint32_t (*faulted)(const pdk_world *world, uint32_t slot);
    /* A run of the model's vehicles into the state hash, indexed by the
     * resolved build (never PDK_FW_BUILD_BEST). */
    pdk_model_hash_fn hash[PDK_FW_BUILD_AVX512 + 1];

    /* The vehicle's rigid body for the contact phase (contact/contact.h,
     * world_contact.c): 1 with *out's half_m, cg_m (world), box_m (the
     * box's centre from the CG, body frame), vel_mps (world frame),
     * omega_radps (body frame), inv_mass_kg, and the orientation quat and
     * the principal inverse inertia (body axes), or 0 when it takes no
     * part now (a faulted vehicle). NULL for a model without a hull (the
     * single-track model: its cars pass through everything). */
    int (*contact_body)(const pdk_world *world, uint32_t slot, pdk_cbody *out, double quat[4],
                        double inv_i_body[3]);
    /* Asks the caches for the bytes contact_body will read of slot, a few
     * vehicles ahead of it: the contact phase is the tick's first look at
     * each vehicle, and in a fleet larger than the caches each look waited
     * for memory. A hint: it changes nothing. NULL where contact_body is. */
    void (*contact_prefetch)(const pdk_world *world, uint32_t slot);
    /* Adds the contact's change to the body: dvel to the CG's velocity
     * (world frame), domega_body to the angular velocity (body frame), dpos
     * to the position. */
    void (*contact_push)(pdk_world *world, uint32_t slot, const double dvel[3],
                         const double domega_body[3], const double dpos[3]);

    /* The vehicle's record part as spans of the world's memory, offsets
     * within pdk_model_record, in order, each offset and length a multiple
     * of 8 (the rest of the part is zero); returns how many (at most
     * PDK_MODEL_RECORD_SPANS). */
    int (*record_spans)(const pdk_world *world, uint32_t slot, pdk_record_span *out);
    /* Why r cannot be laid over a vehicle spawned from def (its kind), or
     * NULL. */
    const char *(*record_problem)(const pdk_model_record *r, const pdk_vehicle_def *def);
    /* Lays r (which passed record_problem) over the freshly spawned slot. */
    void (*restore)(pdk_world *world, uint32_t slot, const pdk_model_record *r);
    /* Folds the offsets and sizes of the model's members of the record
     * into h: record_members those of its part of the union, at at bytes
     * into the record; record_layout those of every struct it holds. */
    uint64_t (*record_members)(uint64_t h, size_t at);
    uint64_t (*record_layout)(uint64_t h);
} pdk_model_ops;

extern const pdk_model_ops pdk_model_four_wheel;
extern const pdk_model_ops pdk_model_single_track;

/* Every model, in the order the world lays out their arrays, steps them
 * and folds them into the snapshot layout's fingerprint (the last makes
 * the order part of every record: changing it changes the fingerprint). */
#define PDK_MODEL_COUNT 2
extern const pdk_model_ops *const pdk_models[PDK_MODEL_COUNT];

/* The tables by kind (NULL where no model has the value). */
extern const pdk_model_ops *const pdk_model_by_kind[PDK_MODEL_KIND_END];

/* The table of kind (a valid pdk_model). */
static inline const pdk_model_ops *pdk_model_ops_of(uint32_t kind)
{
    return pdk_model_by_kind[kind];
}

/* 1 when v[0..n) are all finite: a record's check (record_problem). */
static inline int pdk_all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return 0;
        }
    }
    return 1;
}

/* Fold a member's offset (at bytes further on) and size into h, and a
 * struct's size: the snapshot layout's fingerprint (world_snapshot.c). */
#define PDK_LAYOUT_MEMBER(h, at, type, member)                                                     \
    (pdk_hash_u64(pdk_hash_u64((h), (uint64_t)((at) + offsetof(type, member))),                    \
                  (uint64_t)sizeof(((type *)0)->member)))
#define PDK_LAYOUT_STRUCT(h, type) pdk_hash_u64((h), (uint64_t)sizeof(type))

/* The builds of a model's hash from one always-inlined function fn(h, w,
 * slot) that feeds the model's words for one vehicle, as world.c's hash
 * has them: for each build the whole run is compiled for its processor,
 * the hash's chains held in registers across it. PDK_MODEL_HASH_TABLE(name)
 * is the pdk_model_hash_fn array's initializer. */
#define PDK_MODEL_HASH_RUN_(name, fn)                                                              \
    static void name(pdk_hash4 *h, const pdk_world *w, const uint32_t *slots, int32_t count)       \
    {                                                                                              \
        pdk_hash4 run = *h;                                                                        \
        for (int32_t i = 0; i < count; i++) {                                                      \
            pdk_world_hash_id_(&run, w, slots[i]);                                                 \
            fn(&run, w, slots[i]);                                                                 \
            pdk_world_hash_kit_(&run, w, slots[i]);                                                \
        }                                                                                          \
        *h = run;                                                                                  \
    }
#if defined(__x86_64__) && defined(__GNUC__)
#define PDK_MODEL_HASH_BUILDS(name, fn)                                                            \
    PDK_MODEL_HASH_RUN_(name##_hash_baseline, fn)                                                  \
    __attribute__((target("avx2"))) PDK_MODEL_HASH_RUN_(name##_hash_avx2, fn)                      \
        __attribute__((target("avx2,avx512f,avx512vl")))                                           \
        PDK_MODEL_HASH_RUN_(name##_hash_avx512, fn)
#define PDK_MODEL_HASH_TABLE(name)                                                                 \
    {                                                                                              \
        name##_hash_baseline, name##_hash_baseline, name##_hash_avx2, name##_hash_avx512           \
    }
#else
#define PDK_MODEL_HASH_BUILDS(name, fn) PDK_MODEL_HASH_RUN_(name##_hash_baseline, fn)
#define PDK_MODEL_HASH_TABLE(name)                                                                 \
    {                                                                                              \
        name##_hash_baseline, name##_hash_baseline, name##_hash_baseline, name##_hash_baseline     \
    }
#endif

#endif
