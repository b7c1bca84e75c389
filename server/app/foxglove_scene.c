/* The Foxglove 3D panel's picture of a session: frame names, and the
 * terrain and vehicles as boxes and cylinders (foxglove_scene.h). Shapes are
 * drawn from the world's and vehicles' definitions; their motion comes from
 * the FrameTransforms the server sends with each state. */
#include "foxglove_scene.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire_foxglove.h"

/* Shapes per vehicle: a body and up to four wheels; per ramp: up, top, down. */
#define SHAPES_PER_RAMP 3
#define TOP_LENGTH_FOREVER_M 20.0 /* how much of a ramp's endless top is drawn */
#define SURFACE_THICKNESS_M 0.05  /* a ramp is drawn as a plate this thick */

void pdk_fox_world_frame(uint64_t session_id, char *out, size_t out_len)
{
    snprintf(out, out_len, "s%" PRIu64 "/world", session_id);
}

void pdk_fox_body_frame(uint64_t session_id, uint32_t vehicle, char *out, size_t out_len)
{
    snprintf(out, out_len, "s%" PRIu64 "/v%" PRIu32 "/body", session_id, vehicle);
}

void pdk_fox_wheel_frame(uint64_t session_id, uint32_t vehicle, size_t wheel, size_t n_wheels,
                         char *out, size_t out_len)
{
    static const char *const four[] = {"FL", "FR", "RL", "RR"};
    static const char *const two[] = {"F", "R"};
    const char *name = n_wheels == 2 && wheel < 2 ? two[wheel] : wheel < 4 ? four[wheel] : "X";
    snprintf(out, out_len, "s%" PRIu64 "/v%" PRIu32 "/wheel_%s", session_id, vehicle, name);
}

static pdk_fox_shape box(double x_m, double y_m, double z_m, double pitch_rad, double yaw_rad,
                         double lx_m, double ly_m, double lz_m, float r, float g, float b)
{
    pdk_fox_shape s = {.kind = PDK_FOX_CUBE,
                       .pose = {.x_m = x_m, .y_m = y_m, .z_m = z_m},
                       .size_x_m = lx_m,
                       .size_y_m = ly_m,
                       .size_z_m = lz_m,
                       .rgba = {r, g, b, 1.0f}};
    pdk_fox_pose_set_euler(&s.pose, 0.0, pitch_rad, yaw_rad);
    return s;
}

/* A ramp (terrain_def.h) as plates: the slope up, its top, and the slope
 * down when the top holds for hold_m. The rounded transitions are drawn
 * sharp. Returns the shapes written. */
static size_t ramp_shapes(const pdk_ramp *rp, pdk_fox_shape *out)
{
    double c = cos(rp->yaw_rad), s = sin(rp->yaw_rad);
    double rise_m = rp->grade * rp->length_m;
    double slope_len_m = hypot(rp->length_m, rise_m);
    /* A rise is nose up, and ISO 8855's pitch is positive nose down. */
    double pitch_rad = -atan(rp->grade);
    size_t n = 0;
    double along_m = rp->length_m / 2;
    out[n++] = box(rp->x_m + c * along_m, rp->y_m + s * along_m, rise_m / 2, pitch_rad, rp->yaw_rad,
                   slope_len_m, rp->width_m, SURFACE_THICKNESS_M, 0.55f, 0.45f, 0.3f);
    double top_m = rp->hold_m > 0 ? rp->hold_m : TOP_LENGTH_FOREVER_M;
    along_m = rp->length_m + top_m / 2;
    out[n++] = box(rp->x_m + c * along_m, rp->y_m + s * along_m, rise_m, 0.0, rp->yaw_rad, top_m,
                   rp->width_m, SURFACE_THICKNESS_M, 0.55f, 0.45f, 0.3f);
    if (rp->hold_m > 0) {
        along_m = rp->length_m + rp->hold_m + rp->length_m / 2;
        out[n++] =
            box(rp->x_m + c * along_m, rp->y_m + s * along_m, rise_m / 2, -pitch_rad, rp->yaw_rad,
                slope_len_m, rp->width_m, SURFACE_THICKNESS_M, 0.55f, 0.45f, 0.3f);
    }
    return n;
}

/* The body's box: the preset's body dimensions, or, where it leaves them
 * 0, the wheelbase plus a tyre's diameter, the track plus a tyre's width
 * and twice the CG height. It sits on the ground at rest: its bottom is
 * cg_height_m below the body frame's origin (the CG). */
static pdk_fox_shape body_shape(const pdk_vehicle_def *def, double radius_m, double width_m)
{
    const pdk_chassis_def *ch = &def->chassis;
    double lx = ch->body_length_m > 0 ? ch->body_length_m : ch->wheelbase_m + 2 * radius_m;
    double ly = ch->body_width_m > 0 ? ch->body_width_m : ch->track_width_m + width_m;
    double lz = ch->body_height_m > 0 ? ch->body_height_m : 2 * ch->cg_height_m;
    /* Centred between the axles, which sit a and wheelbase - a from the CG. */
    double x = ch->wheelbase_m / 2 - ch->cg_to_front_axle_m;
    return box(x, 0.0, lz / 2 - ch->cg_height_m, 0.0, 0.0, lx, ly, lz, 0.2f, 0.4f, 0.8f);
}

/* A wheel as a cylinder about its axle (the wheel frame's y; a Foxglove
 * cylinder's axis is its own z, hence the quarter turn about x). */
static pdk_fox_shape wheel_shape(double radius_m, double width_m)
{
    pdk_fox_shape s = {.kind = PDK_FOX_CYLINDER,
                       .size_x_m = 2 * radius_m,
                       .size_y_m = 2 * radius_m,
                       .size_z_m = width_m,
                       .rgba = {0.1f, 0.1f, 0.1f, 1.0f}};
    pdk_fox_pose_set_euler(&s.pose, M_PI / 2, 0.0, 0.0);
    return s;
}

/* A tyre's radius and width: its soil size, else its force law's radius
 * and a fifth of it as width; a kart-sized default when neither is set. */
static void tyre_size(const pdk_axle_tyre_def *t, double *radius_m, double *width_m)
{
    *radius_m = t->soil.radius_m > 0  ? t->soil.radius_m
                : t->law.radius_m > 0 ? t->law.radius_m
                                      : 0.3;
    *width_m = t->soil.width_m > 0 ? t->soil.width_m : 0.2;
}

typedef struct vehicle_names {
    char id[PDK_FOX_FRAME_LEN];
    char body[PDK_FOX_FRAME_LEN];
    char wheel_ids[4][PDK_FOX_FRAME_LEN + 8];
    char wheels[4][PDK_FOX_FRAME_LEN];
} vehicle_names;

pdk_error pdk_fox_scene_append(const pdk_world *world, uint64_t session_id, uint64_t time_ns,
                               pdk_buf *out)
{
    const pdk_terrain_def *terrain = &pdk_world_def_get(world)->terrain;
    int n_vehicles = pdk_world_vehicle_count(world);
    size_t n_terrain = (size_t)terrain->n_bumps + (size_t)terrain->n_ramps * SHAPES_PER_RAMP;
    size_t max_entities = 1 + (size_t)n_vehicles * 5;
    pdk_fox_shape *shapes = calloc(n_terrain + (size_t)n_vehicles * 5 + 1, sizeof(*shapes));
    pdk_fox_entity *ents = calloc(max_entities, sizeof(*ents));
    vehicle_names *names = calloc((size_t)n_vehicles + 1, sizeof(*names));
    pdk_error err = PDK_ERR_NO_MEMORY;
    if (!shapes || !ents || !names)
        goto done;
    char world_frame[PDK_FOX_FRAME_LEN];
    pdk_fox_world_frame(session_id, world_frame, sizeof(world_frame));
    size_t ns = 0, ne = 0;
    for (int i = 0; i < terrain->n_bumps; i++) {
        const pdk_bump *b = &terrain->bumps[i];
        /* A dip is drawn as the hollow's box below the ground, darker. */
        float shade = b->height_m >= 0 ? 0.6f : 0.35f;
        shapes[ns++] = box(b->x_m, b->y_m, b->height_m / 2, 0.0, b->yaw_rad, b->length_m,
                           b->width_m, fabs(b->height_m), shade, shade, shade);
    }
    for (int i = 0; i < terrain->n_ramps; i++)
        ns += ramp_shapes(&terrain->ramps[i], &shapes[ns]);
    ents[ne++] = (pdk_fox_entity){.id = "terrain",
                                  .frame_id = world_frame,
                                  .frame_locked = false,
                                  .shapes = shapes,
                                  .n_shapes = ns};
    for (int v = 0; v < n_vehicles; v++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(world, v);
        const pdk_vehicle_def *def = pdk_world_vehicle_def(world, id);
        if (!def)
            continue;
        vehicle_names *nm = &names[v];
        double rf, wf, rr, wr;
        tyre_size(&def->tyre_front, &rf, &wf);
        tyre_size(&def->tyre_rear, &rr, &wr);
        pdk_fox_body_frame(session_id, id, nm->body, sizeof(nm->body));
        snprintf(nm->id, sizeof(nm->id), "v%" PRIu32 "/body", id);
        shapes[ns] = body_shape(def, rf, wf);
        ents[ne++] = (pdk_fox_entity){.id = nm->id,
                                      .frame_id = nm->body,
                                      .frame_locked = true,
                                      .shapes = &shapes[ns],
                                      .n_shapes = 1};
        ns++;
        size_t n_wheels = def->model == PDK_MODEL_SINGLE_TRACK ? 2 : 4;
        for (size_t w = 0; w < n_wheels; w++) {
            bool front = n_wheels == 2 ? w == 0 : w < 2;
            pdk_fox_wheel_frame(session_id, id, w, n_wheels, nm->wheels[w], sizeof(nm->wheels[w]));
            snprintf(nm->wheel_ids[w], sizeof(nm->wheel_ids[w]), "v%" PRIu32 "/wheel%zu", id, w);
            shapes[ns] = wheel_shape(front ? rf : rr, front ? wf : wr);
            ents[ne++] = (pdk_fox_entity){.id = nm->wheel_ids[w],
                                          .frame_id = nm->wheels[w],
                                          .frame_locked = true,
                                          .shapes = &shapes[ns],
                                          .n_shapes = 1};
            ns++;
        }
    }
    err = pdk_wire_fox_scene_append(time_ns, ents, ne, out);
done:
    free(shapes);
    free(ents);
    free(names);
    return err;
}
