/* The binary FileDescriptorSet of paddock.proto (protoc --include_imports
 * --descriptor_set_out), made at build time and linked in by the
 * pdk_proto_descriptors library. Self-describing formats embed it as the
 * schema of paddock.v1 messages: an MCAP file's Schema records and the
 * Foxglove WebSocket protocol's protobuf channels. */
#ifndef PDK_PROTO_DESCRIPTORS_H
#define PDK_PROTO_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>

extern const uint8_t pdk_paddock_fds[];
extern const size_t pdk_paddock_fds_len;

#endif
