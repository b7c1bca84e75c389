/* The binary FileDescriptorSet of the Foxglove schemas Paddock sends
 * (foxglove.FrameTransform, foxglove.SceneUpdate and their imports), made at
 * build time from the .proto files generate_proto.mjs writes and linked in by
 * the pdk_proto_foxglove library: the schema of the Foxglove server's 3D
 * channels. */
#ifndef PDK_FOXGLOVE_DESCRIPTORS_H
#define PDK_FOXGLOVE_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>

extern const uint8_t pdk_foxglove_fds[];
extern const size_t pdk_foxglove_fds_len;

#endif
