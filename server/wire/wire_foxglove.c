/* Foxglove's FrameTransform and SceneUpdate, and paddock.v1.TelemetrySample,
 * encoded from plain structs (wire_foxglove.h). Everything is built on the
 * stack or in one scratch allocation per scene, packed once, and freed. */
#include "wire_foxglove.h"

#include <math.h>
#include <stdlib.h>

#include "foxglove/FrameTransform.pb-c.h"
#include "foxglove/SceneUpdate.pb-c.h"
#include "sim/channels.h"

#define NS_PER_S 1000000000ull

void pdk_fox_pose_set_euler(pdk_fox_pose *pose, double roll_rad, double pitch_rad, double yaw_rad)
{
    /* q = qz(yaw) * qy(pitch) * qx(roll), the ZYX convention. */
    double cr = cos(roll_rad / 2), sr = sin(roll_rad / 2);
    double cp = cos(pitch_rad / 2), sp = sin(pitch_rad / 2);
    double cy = cos(yaw_rad / 2), sy = sin(yaw_rad / 2);
    pose->qw = cr * cp * cy + sr * sp * sy;
    pose->qx = sr * cp * cy - cr * sp * sy;
    pose->qy = cr * sp * cy + sr * cp * sy;
    pose->qz = cr * cp * sy - sr * sp * cy;
}

static void set_time(Google__Protobuf__Timestamp *ts, uint64_t time_ns)
{
    google__protobuf__timestamp__init(ts);
    ts->seconds = (int64_t)(time_ns / NS_PER_S);
    ts->nanos = (int32_t)(time_ns % NS_PER_S);
}

/* A pose's protobuf parts, living as long as the struct they sit in. */
typedef struct pose_parts {
    Foxglove__Pose pose;
    Foxglove__Vector3 position;
    Foxglove__Quaternion orientation;
} pose_parts;

static void set_pose(pose_parts *p, const pdk_fox_pose *src)
{
    foxglove__pose__init(&p->pose);
    foxglove__vector3__init(&p->position);
    foxglove__quaternion__init(&p->orientation);
    p->position.x = src->x_m;
    p->position.y = src->y_m;
    p->position.z = src->z_m;
    p->orientation.x = src->qx;
    p->orientation.y = src->qy;
    p->orientation.z = src->qz;
    p->orientation.w = src->qw;
    p->pose.position = &p->position;
    p->pose.orientation = &p->orientation;
}

pdk_error pdk_wire_fox_transform_append(uint64_t time_ns, const char *parent, const char *child,
                                        const pdk_fox_pose *pose, pdk_buf *out)
{
    if (!parent || !child || !pose || !out)
        return PDK_ERR_INVALID_ARGUMENT;
    Google__Protobuf__Timestamp ts;
    set_time(&ts, time_ns);
    Foxglove__Vector3 t = FOXGLOVE__VECTOR3__INIT;
    t.x = pose->x_m;
    t.y = pose->y_m;
    t.z = pose->z_m;
    Foxglove__Quaternion q = FOXGLOVE__QUATERNION__INIT;
    q.x = pose->qx;
    q.y = pose->qy;
    q.z = pose->qz;
    q.w = pose->qw;
    Foxglove__FrameTransform m = FOXGLOVE__FRAME_TRANSFORM__INIT;
    m.timestamp = &ts;
    m.parent_frame_id = (char *)parent;
    m.child_frame_id = (char *)child;
    m.translation = &t;
    m.rotation = &q;
    return pdk_wire_pack_append(out, &m.base);
}

/* One shape's protobuf parts (a cube or a cylinder uses its own member). */
typedef struct shape_parts {
    Foxglove__CubePrimitive cube;
    Foxglove__CylinderPrimitive cylinder;
    pose_parts pose;
    Foxglove__Vector3 size;
    Foxglove__Color color;
} shape_parts;

/* One entity's protobuf parts; its shapes' pointers live in one array. */
typedef struct entity_parts {
    Foxglove__SceneEntity entity;
    Google__Protobuf__Timestamp ts;
    Google__Protobuf__Duration lifetime;
} entity_parts;

pdk_error pdk_wire_fox_scene_append(uint64_t time_ns, const pdk_fox_entity *entities, size_t n,
                                    pdk_buf *out)
{
    if ((!entities && n > 0) || !out)
        return PDK_ERR_INVALID_ARGUMENT;
    size_t n_shapes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!entities[i].id || !entities[i].frame_id ||
            (!entities[i].shapes && entities[i].n_shapes > 0))
            return PDK_ERR_INVALID_ARGUMENT;
        n_shapes += entities[i].n_shapes;
    }
    entity_parts *ents = calloc(n ? n : 1, sizeof(*ents));
    Foxglove__SceneEntity **ent_ptrs = calloc(n ? n : 1, sizeof(*ent_ptrs));
    shape_parts *shapes = calloc(n_shapes ? n_shapes : 1, sizeof(*shapes));
    /* Cubes and cylinders of every entity, each entity's a run of it. */
    Foxglove__CubePrimitive **cubes = calloc(n_shapes ? n_shapes : 1, sizeof(*cubes));
    Foxglove__CylinderPrimitive **cyls = calloc(n_shapes ? n_shapes : 1, sizeof(*cyls));
    pdk_error err = PDK_ERR_NO_MEMORY;
    if (!ents || !ent_ptrs || !shapes || !cubes || !cyls)
        goto done;
    size_t s = 0, n_cubes = 0, n_cyls = 0;
    for (size_t i = 0; i < n; i++) {
        const pdk_fox_entity *src = &entities[i];
        entity_parts *e = &ents[i];
        foxglove__scene_entity__init(&e->entity);
        set_time(&e->ts, time_ns);
        google__protobuf__duration__init(&e->lifetime); /* zero: until replaced */
        e->entity.timestamp = &e->ts;
        e->entity.lifetime = &e->lifetime;
        e->entity.frame_id = (char *)src->frame_id;
        e->entity.id = (char *)src->id;
        e->entity.frame_locked = src->frame_locked;
        e->entity.cubes = &cubes[n_cubes];
        e->entity.cylinders = &cyls[n_cyls];
        for (size_t k = 0; k < src->n_shapes; k++, s++) {
            const pdk_fox_shape *sh = &src->shapes[k];
            shape_parts *p = &shapes[s];
            set_pose(&p->pose, &sh->pose);
            foxglove__vector3__init(&p->size);
            p->size.x = sh->size_x_m;
            p->size.y = sh->size_y_m;
            p->size.z = sh->size_z_m;
            foxglove__color__init(&p->color);
            p->color.r = sh->rgba[0];
            p->color.g = sh->rgba[1];
            p->color.b = sh->rgba[2];
            p->color.a = sh->rgba[3];
            if (sh->kind == PDK_FOX_CYLINDER) {
                foxglove__cylinder_primitive__init(&p->cylinder);
                p->cylinder.pose = &p->pose.pose;
                p->cylinder.size = &p->size;
                p->cylinder.bottom_scale = 1.0;
                p->cylinder.top_scale = 1.0;
                p->cylinder.color = &p->color;
                cyls[n_cyls++] = &p->cylinder;
                e->entity.n_cylinders++;
            } else {
                foxglove__cube_primitive__init(&p->cube);
                p->cube.pose = &p->pose.pose;
                p->cube.size = &p->size;
                p->cube.color = &p->color;
                cubes[n_cubes++] = &p->cube;
                e->entity.n_cubes++;
            }
        }
        ent_ptrs[i] = &e->entity;
    }
    Google__Protobuf__Timestamp del_ts;
    set_time(&del_ts, time_ns);
    Foxglove__SceneEntityDeletion del = FOXGLOVE__SCENE_ENTITY_DELETION__INIT;
    del.timestamp = &del_ts;
    del.type = FOXGLOVE__SCENE_ENTITY_DELETION__TYPE__ALL;
    Foxglove__SceneEntityDeletion *dels[1] = {&del};
    Foxglove__SceneUpdate m = FOXGLOVE__SCENE_UPDATE__INIT;
    m.n_deletions = 1;
    m.deletions = dels;
    m.n_entities = n;
    m.entities = ent_ptrs;
    err = pdk_wire_pack_append(out, &m.base);
done:
    free(ents);
    free(ent_ptrs);
    free(shapes);
    free(cubes);
    free(cyls);
    return err;
}

pdk_error pdk_wire_telemetry_sample_append(uint64_t session_id, uint32_t vehicle_id, uint64_t tick,
                                           double sim_time_s, const int *chans,
                                           const double *values, size_t n, pdk_buf *out)
{
    if (!out || ((!chans || !values) && n > 0) || n > PDK_CH_COUNT)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__TelemetryValue vals[PDK_CH_COUNT];
    Paddock__V1__TelemetryValue *ptrs[PDK_CH_COUNT];
    for (size_t i = 0; i < n; i++) {
        if (chans[i] < 0 || chans[i] >= PDK_CH_COUNT)
            return PDK_ERR_INVALID_ARGUMENT;
        const pdk_channel_info *ci = pdk_channel_get((size_t)chans[i]);
        paddock__v1__telemetry_value__init(&vals[i]);
        vals[i].name = (char *)ci->name;
        vals[i].unit = (char *)ci->unit;
        vals[i].value = values[i];
        ptrs[i] = &vals[i];
    }
    Paddock__V1__TelemetrySample m = PADDOCK__V1__TELEMETRY_SAMPLE__INIT;
    m.session_id = session_id;
    m.vehicle_id = vehicle_id;
    m.tick = tick;
    m.sim_time_s = sim_time_s;
    m.n_values = n;
    m.values = ptrs;
    return pdk_wire_pack_append(out, &m.base);
}
