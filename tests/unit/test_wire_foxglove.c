/* Unit tests for wire_foxglove.h: what the Foxglove server sends, decoded
 * back with the generated Foxglove and Paddock types. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "foxglove/FrameTransform.pb-c.h"
#include "foxglove/SceneUpdate.pb-c.h"
#include "sim/channels.h"
#include "wire_foxglove.h"

/* Rotates v by the pose's quaternion (v' = q v q*). */
static void rotate(const pdk_fox_pose *p, const double v[3], double out[3])
{
    double w = p->qw, x = p->qx, y = p->qy, z = p->qz;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++)
        out[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
}

START_TEST(euler_follows_iso_8855)
{
    const double fwd[3] = {1, 0, 0}, left[3] = {0, 1, 0};
    double out[3];
    pdk_fox_pose p = {0};
    /* Yaw 90 degrees: forward turns to the left (+y). */
    pdk_fox_pose_set_euler(&p, 0, 0, M_PI / 2);
    rotate(&p, fwd, out);
    ck_assert_double_eq_tol(out[1], 1.0, 1e-12);
    /* Pitch positive is nose down: forward tips to -z. */
    pdk_fox_pose_set_euler(&p, 0, 0.3, 0);
    rotate(&p, fwd, out);
    ck_assert_double_eq_tol(out[2], -sin(0.3), 1e-12);
    /* Roll positive is right side down: left lifts to +z. */
    pdk_fox_pose_set_euler(&p, 0.2, 0, 0);
    rotate(&p, left, out);
    ck_assert_double_eq_tol(out[2], sin(0.2), 1e-12);
    /* Any attitude is a unit quaternion. */
    pdk_fox_pose_set_euler(&p, 0.4, -0.7, 2.5);
    ck_assert_double_eq_tol(p.qw * p.qw + p.qx * p.qx + p.qy * p.qy + p.qz * p.qz, 1.0, 1e-12);
}
END_TEST

START_TEST(transform_round_trip)
{
    pdk_buf b = {0};
    pdk_fox_pose p = {.x_m = 1.5, .y_m = -2, .z_m = 0.5};
    pdk_fox_pose_set_euler(&p, 0, 0, 1.0);
    ck_assert_int_eq(pdk_wire_fox_transform_append(2500000000ull, "s1/world", "s1/v1/body", &p, &b),
                     PDK_OK);
    Foxglove__FrameTransform *m = foxglove__frame_transform__unpack(NULL, b.len, b.data);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->parent_frame_id, "s1/world");
    ck_assert_str_eq(m->child_frame_id, "s1/v1/body");
    ck_assert_int_eq(m->timestamp->seconds, 2);
    ck_assert_int_eq(m->timestamp->nanos, 500000000);
    ck_assert_double_eq(m->translation->y, -2);
    ck_assert_double_eq(m->rotation->z, p.qz);
    foxglove__frame_transform__free_unpacked(m, NULL);
    ck_assert_int_eq(pdk_wire_fox_transform_append(0, NULL, "x", &p, &b), PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&b);
}
END_TEST

START_TEST(scene_replaces_everything)
{
    pdk_fox_shape shapes[3] = {
        {.kind = PDK_FOX_CUBE, .size_x_m = 4.5, .size_y_m = 1.8, .size_z_m = 1.4},
        {.kind = PDK_FOX_CYLINDER, .size_x_m = 0.6, .size_y_m = 0.6, .size_z_m = 0.2},
        {.kind = PDK_FOX_CUBE, .size_x_m = 1, .size_y_m = 1, .size_z_m = 0.1},
    };
    pdk_fox_entity ents[2] = {
        {.id = "car",
         .frame_id = "s1/v1/body",
         .frame_locked = true,
         .shapes = shapes,
         .n_shapes = 2},
        {.id = "terrain", .frame_id = "s1/world", .shapes = &shapes[2], .n_shapes = 1},
    };
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_fox_scene_append(1000, ents, 2, &b), PDK_OK);
    Foxglove__SceneUpdate *m = foxglove__scene_update__unpack(NULL, b.len, b.data);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->n_deletions, 1);
    ck_assert_int_eq(m->deletions[0]->type, FOXGLOVE__SCENE_ENTITY_DELETION__TYPE__ALL);
    ck_assert_uint_eq(m->n_entities, 2);
    ck_assert_uint_eq(m->entities[0]->n_cubes, 1);
    ck_assert_uint_eq(m->entities[0]->n_cylinders, 1);
    ck_assert(m->entities[0]->frame_locked);
    ck_assert_double_eq(m->entities[0]->cubes[0]->size->x, 4.5);
    ck_assert_double_eq(m->entities[0]->cylinders[0]->size->z, 0.2);
    ck_assert_str_eq(m->entities[1]->frame_id, "s1/world");
    ck_assert_uint_eq(m->entities[1]->n_cubes, 1);
    foxglove__scene_update__free_unpacked(m, NULL);
    pdk_fox_entity nameless = {.frame_id = "x"};
    ck_assert_int_eq(pdk_wire_fox_scene_append(0, &nameless, 1, &b), PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&b);
}
END_TEST

START_TEST(telemetry_sample_names_its_values)
{
    int chans[2] = {PDK_CH_SPEED, PDK_CH_ENGINE_RPM};
    double values[2] = {12.5, 2400};
    pdk_buf b = {0};
    ck_assert_int_eq(pdk_wire_telemetry_sample_append(3, 65537, 240, 2.0, chans, values, 2, &b),
                     PDK_OK);
    Paddock__V1__TelemetrySample *m = paddock__v1__telemetry_sample__unpack(NULL, b.len, b.data);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->vehicle_id, 65537);
    ck_assert_uint_eq(m->tick, 240);
    ck_assert_uint_eq(m->n_values, 2);
    ck_assert_str_eq(m->values[0]->name, "Speed");
    ck_assert_str_eq(m->values[0]->unit, "m/s");
    ck_assert_str_eq(m->values[1]->name, "EngineRPM");
    ck_assert_double_eq(m->values[1]->value, 2400);
    paddock__v1__telemetry_sample__free_unpacked(m, NULL);
    int bad[1] = {PDK_CH_COUNT};
    ck_assert_int_eq(pdk_wire_telemetry_sample_append(3, 1, 0, 0, bad, values, 1, &b),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wire_foxglove");
    TCase *tc = tcase_create("wire_foxglove");
    tcase_add_test(tc, euler_follows_iso_8855);
    tcase_add_test(tc, transform_round_trip);
    tcase_add_test(tc, scene_replaces_everything);
    tcase_add_test(tc, telemetry_sample_names_its_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
