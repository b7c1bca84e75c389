/* What wire's own files share and nobody else uses: the bounded unpack, the
 * packing of a message onto a buffer and the frame that prepends a
 * subscription id to a body encoded once. */
#ifndef PDK_WIRE_INTERNAL_H
#define PDK_WIRE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Unpacks one message of type desc with the bounded allocator (at most 64 KiB
 * + 16 bytes per input byte). What it returns is plain malloc memory, freed
 * with protobuf_c_message_free_unpacked(msg, NULL); NULL when the bytes are
 * not one such message or need more memory than that. */
ProtobufCMessage *pdk_wire_unpack_bounded(const ProtobufCMessageDescriptor *desc,
                                          const uint8_t *body, size_t len);

/* Appends msg's encoding (no length prefix) to out. */
pdk_error pdk_wire_pack_append(pdk_buf *out, const ProtobufCMessage *msg);

/* Appends a delimited Frame whose body (Frame field frame_field) is common
 * with subscription_id as its field 1 prepended: a copy, never a re-encode.
 * The body's message must have subscription_id as field 1 (StateBatch,
 * DbwReport) and common must hold no field 1. */
pdk_error pdk_wire_frame_with_sub_append(pdk_buf *out, uint32_t frame_field,
                                         uint32_t subscription_id, const uint8_t *common,
                                         size_t common_len);

#endif
