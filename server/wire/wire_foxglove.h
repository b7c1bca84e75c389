/* wire_foxglove: what the Foxglove WebSocket server (server/app/foxglove.c)
 * sends, encoded here because only wire knows protobuf-c: Foxglove's
 * foxglove.FrameTransform and foxglove.SceneUpdate (their .proto files are
 * generated from @foxglove/schemas at build time, proto/CMakeLists.txt) from
 * plain structs, and one vehicle's telemetry as a paddock.v1.TelemetrySample.
 * Frames and poses are ISO 8855 (x forward, y left, z up), which is what
 * Foxglove's 3D panel assumes too. */
#ifndef PDK_WIRE_FOXGLOVE_H
#define PDK_WIRE_FOXGLOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "wire.h"

/* A position (m) and an orientation (unit quaternion) in a parent frame. */
typedef struct pdk_fox_pose {
    double x_m, y_m, z_m;
    double qx, qy, qz, qw;
} pdk_fox_pose;

/* The quaternion of ZYX Euler angles (yaw about z, then pitch about the new
 * y, then roll about the new x; ISO 8855 signs: pitch positive nose down,
 * roll positive right side down), into pose's q fields. */
void pdk_fox_pose_set_euler(pdk_fox_pose *pose, double roll_rad, double pitch_rad, double yaw_rad);

/* A foxglove.FrameTransform: child's pose in parent at time_ns, appended to
 * out. PDK_ERR_INVALID_ARGUMENT for NULL, PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_fox_transform_append(uint64_t time_ns, const char *parent, const char *child,
                                        const pdk_fox_pose *pose, pdk_buf *out);

typedef enum pdk_fox_shape_kind {
    PDK_FOX_CUBE = 0,
    PDK_FOX_CYLINDER = 1, /* its axis along its own z */
} pdk_fox_shape_kind;

/* One primitive of an entity, in the entity's frame. */
typedef struct pdk_fox_shape {
    pdk_fox_shape_kind kind;
    pdk_fox_pose pose; /* its centre */
    double size_x_m, size_y_m, size_z_m;
    float rgba[4]; /* 0..1 */
} pdk_fox_shape;

/* One foxglove.SceneEntity: shapes drawn in frame_id; frame_locked makes
 * them follow that frame as its transforms move (a car's body and wheels). */
typedef struct pdk_fox_entity {
    const char *id;
    const char *frame_id;
    bool frame_locked;
    const pdk_fox_shape *shapes;
    size_t n_shapes;
} pdk_fox_entity;

/* A foxglove.SceneUpdate that first deletes every entity the panel holds
 * from this channel (a deletion of type ALL) and then adds the n entities:
 * each update is the whole scene, so a removed vehicle disappears with no
 * bookkeeping. Appended to out. PDK_ERR_INVALID_ARGUMENT for NULL,
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_fox_scene_append(uint64_t time_ns, const pdk_fox_entity *entities, size_t n,
                                    pdk_buf *out);

/* A paddock.v1.TelemetrySample of one vehicle at tick: the n values, each
 * named and given its unit from the channel registry index chans[i].
 * Appended to out. PDK_ERR_INVALID_ARGUMENT for NULL or an index that is not
 * a channel's, PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_telemetry_sample_append(uint64_t session_id, uint32_t vehicle_id, uint64_t tick,
                                           double sim_time_s, const int *chans,
                                           const double *values, size_t n, pdk_buf *out);

#endif
