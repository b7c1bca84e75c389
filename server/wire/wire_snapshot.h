/* A world's complete snapshot as a protobuf WorldSnapshot
 * (proto/paddock/v1/snapshot.proto), and its restore into a staging world
 * (sim/snapshot.h). */
#ifndef PDK_WIRE_SNAPSHOT_H
#define PDK_WIRE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "wire.h"
#include "sim/world.h"

/* Replaces out's contents with world's snapshot: head, generations, each
 * live vehicle's state record with a readable pose, the state hash and
 * layout, and build_id (may be NULL). PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_snapshot_encode(const pdk_world *world, const char *build_id, pdk_buf *out);

/* The scratch an encode works in, kept by a caller that encodes again and
 * again (a recording session, a keyframe a second) so that an encode allocates
 * nothing once it is large enough (ADR 0019). Zero-initialise;
 * pdk_wire_snapshot_scratch_free frees. Opaque. */
typedef struct pdk_wire_snapshot_scratch {
    /* The slots' generations (uint32_t), one vehicle's state record and its
     * packed form (bytes); void so that one grow serves them all. */
    void *generations, *record, *packed;
    size_t cap_generations, cap_record, cap_packed;
} pdk_wire_snapshot_scratch;

/* pdk_wire_snapshot_encode, the same bytes, building in scratch's arrays
 * (grown as needed). state_hash is pdk_world_hash(world), which a caller
 * that has hashed the world this tick already (a recording session) hands
 * in rather than have the encode hash it again; the snapshot carries it,
 * and a restore checks the state it rebuilds against it.
 * PDK_ERR_INVALID_ARGUMENT when scratch is NULL. */
pdk_error pdk_wire_snapshot_encode_with(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                        uint64_t state_hash, const char *build_id, pdk_buf *out);

/* A keyframe's encode in slices, for a caller that encodes one on several
 * threads (the library has none; ADR 0033): pdk_wire_snapshot_vehicles
 * appends to out the entries of the n vehicles from the first-th of the
 * world's list (pdk_world_vehicle_at's order), each slice with a scratch of
 * its own; pdk_wire_snapshot_encode_parts replaces out's contents with the
 * snapshot whose vehicles are the n_parts buffers parts, in order. Slices
 * that cover the list once, in order, give pdk_wire_snapshot_encode's bytes.
 * The world must not change between the slices and the parts' encode.
 * PDK_ERR_INVALID_ARGUMENT (NULLs, a slice outside the list),
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_snapshot_vehicles(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                     int first, int n, pdk_buf *out);
pdk_error pdk_wire_snapshot_encode_parts(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                         uint64_t state_hash, const char *build_id,
                                         const pdk_buf *parts, size_t n_parts, pdk_buf *out);

/* Frees scratch's arrays and zeroes it (NULL: nothing). */
void pdk_wire_snapshot_scratch_free(pdk_wire_snapshot_scratch *scratch);

/* The definition a restore spawns vehicle id from (NULL: unknown, which
 * fails the restore with PDK_ERR_NOT_FOUND naming the vehicle). */
typedef const pdk_vehicle_def *(*pdk_snapshot_def_fn)(void *ctx, pdk_vehicle_id id);

/* Restores the snapshot in data into staging, a world freshly laid out by
 * pdk_world_init from the definition the snapshot's world ran with (its
 * seed is taken from the snapshot). On success *tick (may be NULL) is the
 * snapshot's tick, and the restored world's pdk_world_hash equals the hash
 * the snapshot carries (else PDK_ERR_VERSION: the record did not restore
 * what it described). Errors, err naming what was wrong: PDK_ERR_PARSE (not
 * a WorldSnapshot), PDK_ERR_VERSION (another state layout), PDK_ERR_NOT_FOUND
 * (a vehicle def_for does not know), and sim's restore errors. On error the
 * staging world must be discarded. */
pdk_error pdk_wire_snapshot_restore(const uint8_t *data, size_t len, pdk_world *staging,
                                    pdk_snapshot_def_fn def_for, void *ctx, uint64_t *tick,
                                    char *err, size_t err_len);

/* Reads the tick, hash and layout of a snapshot without restoring it. */
pdk_error pdk_wire_snapshot_peek(const uint8_t *data, size_t len, uint64_t *tick, uint64_t *hash,
                                 uint64_t *layout);

#endif
