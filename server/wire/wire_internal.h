/* What wire's own files share and nobody else uses: the bounded unpack, the
 * packing of a message onto a buffer, the frame that prepends a
 * subscription id to a body encoded once, and the hand-written encoders'
 * field writers. */
#ifndef PDK_WIRE_INTERNAL_H
#define PDK_WIRE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/builds.h"
#include "sim/snapshot.h"
#include "wire.h"

/* ---- the hand-written encoders' pieces (state frames, DbwCommand,
 * WorldSnapshot): protobuf's wire types and a field's key, and writers
 * that put a key and its value at p and return the end. The caller has
 * reserved the room. Fields below 16 take a one-byte key. */
enum { PDK_WT_VARINT = 0, PDK_WT_I64 = 1, PDK_WT_LEN = 2 };

#define PDK_WIRE_TAG(field, wiretype) ((uint64_t)(((uint64_t)(field) << 3) | (uint64_t)(wiretype)))

/* The bytes v takes as a varint (1 to PDK_WIRE_VARINT_MAX). */
static inline size_t pdk_wire_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        n++;
    }
    return n;
}

/* A value below 128 (every key of a field below 16, a zero generation, a
 * small count) is its own byte, written here without the call. */
static inline uint8_t *pdk_wire_put_varint(uint8_t *p, uint64_t v)
{
    if (v < 0x80u) {
        *p = (uint8_t)v;
        return p + 1;
    }
    return p + pdk_wire_varint_put(v, p);
}

static inline uint8_t *pdk_wire_put_key(uint8_t *p, unsigned field, unsigned wire_type)
{
    return pdk_wire_put_varint(p, PDK_WIRE_TAG(field, wire_type));
}

/* Eight little-endian bytes. */
static inline uint8_t *pdk_wire_put_fixed64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        *p++ = (uint8_t)(v >> (8 * i));
    }
    return p;
}

static inline uint8_t *pdk_wire_put_varint_field(uint8_t *p, unsigned field, uint64_t v)
{
    return pdk_wire_put_varint(pdk_wire_put_key(p, field, PDK_WT_VARINT), v);
}

static inline uint8_t *pdk_wire_put_double_field(uint8_t *p, unsigned field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return pdk_wire_put_fixed64(pdk_wire_put_key(p, field, PDK_WT_I64), bits);
}

/* ---- a state record's zero words left out (snapshot_words.c;
 * snapshot.proto VehicleSnapshot.state_words): a bitmap of one bit a word,
 * set for a nonzero word (bit i % 8 of byte i / 8), then the nonzero words
 * in order. */
static inline size_t pdk_wire_bitmap_bytes(size_t words)
{
    return (words + 7u) / 8u;
}

/* The room a packed record of record_bytes (a multiple of 8) may take. */
static inline size_t pdk_wire_packed_max(size_t record_bytes)
{
    return pdk_wire_bitmap_bytes(record_bytes / 8u) + record_bytes;
}

/* Packs the record at rec into out, which holds pdk_wire_packed_max(
 * record_bytes) bytes: a build may write anywhere in them, past the bytes it
 * returns too. Returns the packed length. Runs build as
 * pdk_fw_build_resolve resolves it (BEST: the widest this processor has);
 * every build gives the same bytes. */
size_t pdk_wire_pack_words_build(const uint8_t *rec, size_t record_bytes, uint8_t *out,
                                 pdk_fw_build build);

/* pdk_wire_pack_words_build for the record of record_bytes that is the
 * spans' bytes at their offsets and zeros elsewhere (sim/snapshot.h
 * pdk_world_snapshot_vehicle_spans: in order, apart, offsets and lengths
 * multiples of 8, within the record): the same bytes, read where the
 * spans lie. */
size_t pdk_wire_pack_spans_build(const pdk_record_span *spans, size_t n_spans, size_t record_bytes,
                                 uint8_t *out, pdk_fw_build build);

/* Unpacks one message of type desc with the bounded allocator (at most 64 KiB
 * + 16 bytes per input byte). What it returns is plain malloc memory, freed
 * with protobuf_c_message_free_unpacked(msg, NULL); NULL when the bytes are
 * not one such message or need more memory than that. */
ProtobufCMessage *pdk_wire_unpack_bounded(const ProtobufCMessageDescriptor *desc,
                                          const uint8_t *body, size_t len);

/* A recorded command body decoded by pdk_wire_body_read into out (a
 * pdk_dbw_cmd, pdk_tyre_input or pdk_dbw_msg), with the vehicle it names. */
typedef struct pdk_wire_decoded_ {
    void *out;
    pdk_vehicle_id id;
} pdk_wire_decoded_;

/* The decode functions' answer for body_read's err: PDK_ERR_PROTOCOL for
 * bytes that are not the message, as they promise; *id set (when id is
 * given) only once the body has decoded. */
static inline pdk_error pdk_wire_decoded_finish_(pdk_error err, const pdk_wire_decoded_ *d,
                                                 pdk_vehicle_id *id)
{
    if (err == PDK_ERR_PARSE) {
        return PDK_ERR_PROTOCOL;
    }
    if (err == PDK_OK && id != NULL) {
        *id = d->id;
    }
    return err;
}

/* Room for a small message's decode: a DbwCommand or a DbwMessage takes
 * a few hundred bytes. */
#define PDK_WIRE_ARENA_BYTES 2048

/* A decode's memory on the caller's stack (pdk_wire_unpack_small). */
typedef struct pdk_wire_arena {
    _Alignas(16) unsigned char bytes[PDK_WIRE_ARENA_BYTES];
    size_t used;
    bool overflowed; /* a decode asked for more than the room left */
} pdk_wire_arena;

/* Unpacks one small message of type desc into arena (which it resets): the
 * same decode as pdk_wire_unpack_bounded, with no heap and nothing to free
 * (never protobuf_c_message_free_unpacked: the arena goes with its caller). A
 * message that needs more room than the arena has is unpacked by
 * pdk_wire_unpack_bounded instead and *heap set: that one is freed as its
 * comment says. NULL when the bytes are not one such message. The recorded
 * inputs a verify loads are tens of thousands of these; on the heap their
 * allocations and frees were a large part of the decode (ADR 0020). */
ProtobufCMessage *pdk_wire_unpack_small(const ProtobufCMessageDescriptor *desc, const uint8_t *body,
                                        size_t len, pdk_wire_arena *arena, bool *heap);

/* Appends a whole Frame (no length prefix) whose body (Frame field
 * frame_field) is common with subscription_id as its field 1 prepended: a
 * copy, never a re-encode.
 * The body's message must have subscription_id as field 1 (StateBatch,
 * DbwReport) and common must hold no field 1. */
pdk_error pdk_wire_frame_with_sub_append(pdk_buf *out, uint32_t frame_field,
                                         uint32_t subscription_id, const uint8_t *common,
                                         size_t common_len);
/* The bytes such a Frame holds ahead of common, into head; returns their
 * count, 0 when common_len is beyond any frame (no head is empty). */
size_t pdk_wire_frame_with_sub_head(uint32_t frame_field, uint32_t subscription_id,
                                    size_t common_len, uint8_t head[PDK_WIRE_FRAME_HEAD_MAX]);

#endif
