/* What the Foxglove server draws in the 3D panel for one session
 * (foxglove_scene.c): frame names and the scene of terrain and vehicles. */
#ifndef PDK_FOXGLOVE_SCENE_H
#define PDK_FOXGLOVE_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "sim/world.h"
#include "wire.h"

#define PDK_FOX_FRAME_LEN 64

/* Frame names: "s<session>/world", "s<session>/v<vehicle>/body" and
 * "s<session>/v<vehicle>/wheel_<FL|FR|RL|RR>" (wheel_F and wheel_R on a
 * single-track vehicle, whose state carries two wheels). */
void pdk_fox_world_frame(uint64_t session_id, char *out, size_t out_len);
void pdk_fox_body_frame(uint64_t session_id, uint32_t vehicle, char *out, size_t out_len);
/* wheel is the index in VehicleState.wheels, n_wheels their count. */
void pdk_fox_wheel_frame(uint64_t session_id, uint32_t vehicle, size_t wheel, size_t n_wheels,
                         char *out, size_t out_len);

/* The session's whole scene as a foxglove.SceneUpdate appended to out: the
 * terrain's bumps and ramps as boxes in the world frame, each vehicle's
 * body as a box locked to its body frame (the preset's body dimensions)
 * and each wheel as a cylinder locked to its wheel frame (the tyre's radius
 * and width). PDK_ERR_NO_MEMORY. */
pdk_error pdk_fox_scene_append(const pdk_world *world, uint64_t session_id, uint64_t time_ns,
                               pdk_buf *out);

#endif
