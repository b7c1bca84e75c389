/* Complete snapshots of a world, and restoring them (docs/adr/0012-snapshots-and-exact-replay.md).
 *
 * A snapshot is the world's head (tick, seed, PRNG, every slot's generation)
 * and, per live vehicle, its state record: everything that evolves, as the
 * model keeps it (the four-wheel or single-track state with every lag,
 * relaxation, filter and the previous substep's forces, wheel spins, tyre
 * life and temperatures, the powertrain, the held and the driver's commands,
 * the DBW kit with its actuators, watchdogs and delay lines, the wheels'
 * angles for drawing and the fault flag). The channels, outputs of the
 * step, are not in it (docs/adr/0040): a restored world's are zero but
 * for the wheel angles until its next step writes them. What follows
 * from the vehicle's definition alone (constants, tyre sets) is not in
 * it: a restore spawns each vehicle from its definition into its slot and
 * then lays its record over it.
 *
 * A state record is the sim's plain-data structs in this build's layout,
 * tagged by pdk_snapshot_layout(); a restore refuses a record of another
 * layout (PDK_ERR_VERSION), and the caller then re-simulates from the
 * recording's inputs instead. Pure: no I/O, no allocation. */
#ifndef PDK_SNAPSHOT_H
#define PDK_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "sim/world.h"

/* A fingerprint of the state record's layout: the size and offset of every
 * member of every struct in it (nested ones too), the record's version, the
 * byte order and the double format. Equal fingerprints mean the record's
 * structs have the same members at the same places in both builds. It
 * cannot see a member whose meaning, unit or enum numbering changed in
 * place, nor a new member in what was padding; those bump the record's
 * version (world_snapshot.c RECORD_VERSION), and the restore's hash check
 * catches what slips through. */
uint64_t pdk_snapshot_layout(void);

/* Bytes of one vehicle's state record (the same for every vehicle). A
 * record's first 8 bytes are the fingerprint of the build that wrote it. */
size_t pdk_snapshot_vehicle_bytes(void);

typedef struct pdk_world_snapshot_head {
    uint64_t tick;
    uint64_t seed;       /* the world's seed now (pdk_world_reseed changes it) */
    uint64_t prng[4];    /* the PRNG's state */
    int32_t capacity;    /* max_vehicles: generations has this many entries */
    int32_t count;       /* live vehicles */
} pdk_world_snapshot_head;

/* The head of world now, and the generation of each of its capacity slots
 * (n >= capacity; PDK_ERR_CAPACITY otherwise). */
void pdk_world_snapshot_head_get(const pdk_world *world, pdk_world_snapshot_head *out);
pdk_error pdk_world_snapshot_generations(const pdk_world *world, uint32_t *out, size_t n);

/* Writes live vehicle id's state record to out (len >= pdk_snapshot_vehicle_bytes()).
 * PDK_ERR_STALE_ID for a dead id, PDK_ERR_CAPACITY for a short out. */
pdk_error pdk_world_snapshot_vehicle(const pdk_world *world, pdk_vehicle_id id, void *out,
                                     size_t len);

/* The part of a state record that holds its byte at offset, named for a
 * person ("the DBW kit's state"), with the byte's offset within that part
 * in *part_offset; "past the record" beyond it. */
const char *pdk_snapshot_record_part(size_t offset, size_t *part_offset);

/* One stretch of a vehicle's state record: len bytes at offset in the
 * record, to be copied from data. */
typedef struct pdk_record_span {
    size_t offset, len;
    const void *data;
} pdk_record_span;

/* The most spans a record is made of. */
#define PDK_RECORD_SPANS 8

/* Live vehicle id's state record as spans, so that a caller may read it
 * where it lies instead of copying it (a keyframe's encode packs them):
 * the record is the spans' bytes at their offsets and zeros between, the
 * bytes pdk_world_snapshot_vehicle writes. The spans are in order of
 * offset, apart, and each offset and length is a multiple of 8; the first
 * points at head, which the call fills (the record's first 16 bytes) and
 * which must outlive the spans' use, as must the world unchanged. Returns
 * how many spans (1..PDK_RECORD_SPANS), 0 for a dead id. */
int pdk_world_snapshot_vehicle_spans(const pdk_world *world, pdk_vehicle_id id, uint64_t head[2],
                                     pdk_record_span spans[PDK_RECORD_SPANS]);

/* Restoring, into a staging world freshly laid out by pdk_world_init with
 * the same definition as the snapshot's world (no vehicle spawned yet):
 * first the head, then each vehicle in ascending id order, then end. The
 * head sets the tick, def.seed, the PRNG and every slot's generation; each
 * vehicle is spawned from def into its slot and its record laid over it.
 * On any error the staging world is unusable and must be discarded (every
 * later restore call on it fails); the caller's live world was never
 * touched. Errors: PDK_ERR_INVALID_ARGUMENT (NULL, a world that is not
 * fresh, a vehicle before the head or after end, vehicles out of order or
 * repeated, more vehicles than the head's count, at end fewer),
 * PDK_ERR_OUT_OF_RANGE (a head whose capacity differs from the world's, n
 * below it, a count beyond it, an all-zero PRNG, a generation above 65535,
 * an id whose slot is zero or beyond capacity or whose generation differs
 * from the head's), PDK_ERR_VERSION (len differs from
 * pdk_snapshot_vehicle_bytes(), or the record carries another layout
 * fingerprint: a record of another layout), pdk_vehicle_def_check's error
 * for a def that fails it, PDK_ERR_INVALID_ARGUMENT (a record whose model or
 * powertrain kind differs from def's, or that holds non-finite numbers
 * where the model cannot or indices beyond def's gears or the DBW delay
 * line). pdk_world_restore_problem names which. */
pdk_error pdk_world_restore_head(pdk_world *world, const pdk_world_snapshot_head *head,
                                 const uint32_t *generations, size_t n);
pdk_error pdk_world_restore_vehicle(pdk_world *world, pdk_vehicle_id id,
                                    const pdk_vehicle_def *def, const void *record, size_t len);
pdk_error pdk_world_restore_end(pdk_world *world);

/* Why the last restore call on world failed: a static sentence, or NULL. */
const char *pdk_world_restore_problem(const pdk_world *world);

#endif
