/* Unit tests for server/wire/wire_telemetry.c: the TelemetryBatch written by
 * hand from the world's channels. protobuf-c decodes what it writes, and
 * every value must be the bits pdk_world_channels holds. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "wire_test_util.h"

typedef struct test_world {
    void *mem;
    pdk_world *world;
} test_world;

static test_world world_make(void)
{
    test_world tw = {0};
    pdk_world_def def = pdk_world_def_default();
    size_t bytes = pdk_world_mem_size(&def);
    tw.mem = aligned_alloc(16, (bytes + 15) / 16 * 16);
    ck_assert_ptr_nonnull(tw.mem);
    ck_assert_int_eq(pdk_world_init(tw.mem, bytes, &def, &tw.world), PDK_OK);
    return tw;
}

static pdk_vehicle_id spawn_at(pdk_world *world, double x_m, double yaw_rad, double speed_mps)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_pose pose = {x_m, 0.0, yaw_rad};
    pdk_vehicle_id id = 0;
    ck_assert_int_eq(pdk_world_spawn(world, &def, &pose, speed_mps, PDK_GEAR_DRIVE, &id), PDK_OK);
    return id;
}

/* Every value of row is, bit for bit, vehicle id's channel chans[c]. */
static void assert_row_is_channels(const pdk_world *world, const Paddock__V1__TelemetryRow *row,
                                   pdk_vehicle_id id, const int *chans, size_t n_chans)
{
    ck_assert_uint_eq(row->vehicle_id, id);
    ck_assert_uint_eq(row->n_values, n_chans);
    const double *v = pdk_world_channels(world, id);
    ck_assert_ptr_nonnull(v);
    for (size_t c = 0; c < n_chans; c++)
        ck_assert_mem_eq(&row->values[c], &v[chans[c]], sizeof(double));
}

START_TEST(batch_holds_the_world_channels_bit_for_bit)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 5.0);
    pdk_vehicle_id b = spawn_at(tw.world, 30.0, 1.0, 0.0);
    pdk_vehicle_id c = spawn_at(tw.world, -40.0, -2.5, 12.0);
    pdk_dbw_cmd cmd = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_STEER, .throttle_pct = 40.0, .steer_wheel_deg = 90.0};
    ck_assert_int_eq(pdk_world_command(tw.world, a, &cmd), PDK_OK);
    for (int i = 0; i < 30; i++)
        pdk_world_step(tw.world);
    /* Every channel of the registry, in reverse, and a few in a chosen order. */
    int all[PDK_CH_COUNT];
    for (int k = 0; k < PDK_CH_COUNT; k++)
        all[k] = PDK_CH_COUNT - 1 - k;
    const int some[] = {PDK_CH_SPEED, PDK_CH_POS_X, PDK_CH_SUSP_FORCE_RR, PDK_CH_YAW_RATE};
    const struct {
        const int *chans;
        size_t n;
    } cases[] = {{all, PDK_CH_COUNT}, {some, 4}};
    for (size_t k = 0; k < 2; k++) {
        pdk_buf common = {0};
        ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 77, 1234567890123456789u, NULL, 0,
                                                   cases[k].chans, cases[k].n, &common),
                         PDK_OK);
        Paddock__V1__TelemetryBatch *tb =
            paddock__v1__telemetry_batch__unpack(NULL, common.len, common.data);
        ck_assert_ptr_nonnull(tb);
        ck_assert_uint_eq(tb->subscription_id, 0);
        ck_assert_uint_eq(tb->session_id, 77);
        ck_assert_uint_eq(tb->tick, 30);
        ck_assert_mem_eq(&tb->sim_time_s, &(double){pdk_world_time_s(tw.world)}, sizeof(double));
        ck_assert_uint_eq(tb->wall_time_ns, 1234567890123456789u);
        ck_assert_uint_eq(tb->n_rows, 3);
        pdk_vehicle_id order[3] = {a, b, c};
        for (size_t r = 0; r < 3; r++)
            assert_row_is_channels(tw.world, tb->rows[r], order[r], cases[k].chans, cases[k].n);
        /* protobuf-c writes the same message to the same bytes. */
        size_t len = paddock__v1__telemetry_batch__get_packed_size(tb);
        uint8_t *again = malloc(len);
        ck_assert_uint_eq(paddock__v1__telemetry_batch__pack(tb, again), len);
        ck_assert_uint_eq(len, common.len);
        ck_assert_mem_eq(again, common.data, len);
        free(again);
        paddock__v1__telemetry_batch__free_unpacked(tb, NULL);
        pdk_buf_free(&common);
    }
    free(tw.mem);
}
END_TEST

START_TEST(chosen_vehicles_keep_their_order_and_skip_the_dead)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 5.0);
    pdk_vehicle_id b = spawn_at(tw.world, 30.0, 1.0, 3.0);
    pdk_vehicle_id c = spawn_at(tw.world, -40.0, -2.5, 12.0);
    for (int i = 0; i < 5; i++)
        pdk_world_step(tw.world);
    ck_assert_int_eq(pdk_world_remove(tw.world, b), PDK_OK);
    const int chans[] = {PDK_CH_VEL_X, PDK_CH_ACCEL_Z};
    pdk_vehicle_id chosen[4] = {c, b, 0xdead0042u, a};
    pdk_buf common = {0};
    ck_assert_int_eq(pdk_buf_append(&common, "xy", 2), PDK_OK); /* appends after */
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 5, 0, chosen, 4, chans, 2, &common),
                     PDK_OK);
    ck_assert_mem_eq(common.data, "xy", 2);
    Paddock__V1__TelemetryBatch *tb =
        paddock__v1__telemetry_batch__unpack(NULL, common.len - 2, common.data + 2);
    ck_assert_ptr_nonnull(tb);
    ck_assert_uint_eq(tb->wall_time_ns, 0);
    ck_assert_uint_eq(tb->n_rows, 2);
    assert_row_is_channels(tw.world, tb->rows[0], c, chans, 2);
    assert_row_is_channels(tw.world, tb->rows[1], a, chans, 2);
    paddock__v1__telemetry_batch__free_unpacked(tb, NULL);
    pdk_buf_free(&common);
    free(tw.mem);
}
END_TEST

START_TEST(frame_merges_subscription_id)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 5.0);
    pdk_world_step(tw.world);
    const int chans[] = {PDK_CH_SPEED};
    pdk_buf common = {0};
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 9, 42, NULL, 0, chans, 1, &common),
                     PDK_OK);
    static const uint32_t subs[] = {1, 128, 0x7fffffffu, UINT32_MAX};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        pdk_buf out = {0};
        frame_of_head_append(&out, pdk_wire_telemetry_frame_head, subs[i], &common);
        size_t len = 0;
        const uint8_t *body = frame_body(&out, &len);
        pdk_error err = PDK_OK;
        Paddock__V1__Frame *got = pdk_wire_frame_decode(body, len, &err);
        ck_assert_ptr_nonnull(got);
        ck_assert_int_eq(got->body_case, PADDOCK__V1__FRAME__BODY_TELEMETRY_BATCH);
        ck_assert_uint_eq(got->request_id, 0);
        const Paddock__V1__TelemetryBatch *tb = got->telemetry_batch;
        ck_assert_uint_eq(tb->subscription_id, subs[i]);
        ck_assert_uint_eq(tb->session_id, 9);
        ck_assert_uint_eq(tb->tick, 1);
        ck_assert_uint_eq(tb->wall_time_ns, 42);
        ck_assert_uint_eq(tb->n_rows, 1);
        assert_row_is_channels(tw.world, tb->rows[0], a, chans, 1);
        pdk_wire_frame_free(got);
        pdk_buf_free(&out);
    }
    pdk_buf_free(&common);
    free(tw.mem);
}
END_TEST

START_TEST(refuses_no_channels_and_unknown_indexes)
{
    test_world tw = world_make();
    spawn_at(tw.world, 0.0, 0.0, 5.0);
    pdk_buf out = {0};
    const int bad_high[] = {PDK_CH_SPEED, PDK_CH_COUNT};
    const int bad_low[] = {-1};
    const int good[] = {PDK_CH_SPEED};
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 1, 0, NULL, 0, good, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 1, 0, NULL, 0, NULL, 1, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 1, 0, NULL, 0, bad_high, 2, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 1, 0, NULL, 0, bad_low, 1, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_telemetry_common(NULL, 1, 0, NULL, 0, good, 1, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_telemetry_common(tw.world, 1, 0, NULL, 0, good, 1, NULL),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    pdk_buf_free(&out);
    free(tw.mem);
}
END_TEST

static Suite *wire_telemetry_suite(void)
{
    Suite *s = suite_create("wire_telemetry");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, batch_holds_the_world_channels_bit_for_bit);
    tcase_add_test(tc, chosen_vehicles_keep_their_order_and_skip_the_dead);
    tcase_add_test(tc, frame_merges_subscription_id);
    tcase_add_test(tc, refuses_no_channels_and_unknown_indexes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_telemetry_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
