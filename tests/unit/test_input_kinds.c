/* Unit tests of app's input table (input_kind.h): every kind has an entry,
 * the numbers recordings store stay, each kind's recorded body decodes to
 * what was encoded, and unknown numbers have no entry. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input_kind.h"

/* Recordings on disk store these numbers: they never change. */
_Static_assert(PDK_INPUT_SPAWN == 1, "kind number");
_Static_assert(PDK_INPUT_REMOVE == 2, "kind number");
_Static_assert(PDK_INPUT_DBW == 3, "kind number");
_Static_assert(PDK_INPUT_TYRE == 4, "kind number");
_Static_assert(PDK_INPUT_DBW_KIT == 5, "kind number");
_Static_assert(PDK_INPUT_RESET == 6, "kind number");
_Static_assert(PDK_INPUT_RESEED == 7, "kind number");
_Static_assert(PDK_INPUT_VEHICLE_RESET == 8, "kind number");
_Static_assert(PDK_INPUT_PROXY_ADD == 9, "kind number");
_Static_assert(PDK_INPUT_PROXY_POSE == 10, "kind number");
_Static_assert(PDK_INPUT_PROXY_REMOVE == 11, "kind number");

static const struct {
    int kind;
    const char *name;
    pdk_input_slots slots;
} expected[] = {
    {PDK_INPUT_SPAWN, "VehicleSpawn", PDK_INPUT_SLOTS_TAKE_ONE},
    {PDK_INPUT_REMOVE, "VehicleRemove", PDK_INPUT_SLOTS_FREE_ONE},
    {PDK_INPUT_DBW, "DbwCommand", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_TYRE, "TyreCommand", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_DBW_KIT, "DbwMessage", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_RESET, "SessionControl", PDK_INPUT_SLOTS_FREE_ALL},
    {PDK_INPUT_RESEED, "SessionControl", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_VEHICLE_RESET, "VehicleReset", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_PROXY_ADD, "ProxyRegister", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_PROXY_POSE, "ProxyPose", PDK_INPUT_SLOTS_KEPT},
    {PDK_INPUT_PROXY_REMOVE, "ProxyRemove", PDK_INPUT_SLOTS_KEPT},
};

START_TEST(every_kind_has_an_entry)
{
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const pdk_input_ops *ops = pdk_input_ops_of(expected[i].kind);
        ck_assert_ptr_nonnull(ops);
        ck_assert_int_eq(ops->kind, expected[i].kind);
        ck_assert_ptr_nonnull(ops->body);
        ck_assert_str_eq(ops->body->short_name, expected[i].name);
        ck_assert_int_eq(ops->slots, expected[i].slots);
        ck_assert(ops->encode != NULL);
        ck_assert(ops->read != NULL);
        ck_assert(ops->apply != NULL);
    }
    ck_assert_ptr_null(pdk_input_ops_of(0));
    ck_assert_ptr_null(pdk_input_ops_of(-1));
    ck_assert_ptr_null(pdk_input_ops_of(12));
    ck_assert_ptr_null(pdk_input_ops_of(1000));
}
END_TEST

/* Encodes in, decodes it into out (kind set), and checks that out encodes
 * to the same bytes. */
static void round_trip(const pdk_input *in, pdk_input *out)
{
    const pdk_input_ops *ops = pdk_input_ops_of(in->kind);
    ck_assert_ptr_nonnull(ops);
    pdk_buf a = {0}, b = {0};
    ck_assert_int_eq(ops->encode(42, in, &a), PDK_OK);
    memset(out, 0, sizeof(*out));
    out->kind = in->kind;
    ck_assert_int_eq(pdk_input_decode(ops, a.data, a.len, out), PDK_OK);
    ck_assert_int_eq(ops->encode(42, out, &b), PDK_OK);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(memcmp(a.data, b.data, a.len) == 0);
    pdk_buf_free(&a);
    pdk_buf_free(&b);
}

START_TEST(recorded_bodies_decode_to_what_was_encoded)
{
    pdk_input out;
    char preset[] = "ref1_sedan", overrides[] = "{\"mass_kg\":1500}";
    pdk_input spawn = {.kind = PDK_INPUT_SPAWN,
                       .u.place = {.x_m = 1.5,
                                   .y_m = -2.0,
                                   .yaw_deg = 90.0,
                                   .speed_mps = 3.0,
                                   .gear = PDK_GEAR_DRIVE},
                       .preset = preset,
                       .overrides = overrides};
    round_trip(&spawn, &out);
    ck_assert(memcmp(&out.u.place, &spawn.u.place, sizeof(out.u.place)) == 0);
    ck_assert_str_eq(out.preset, preset);
    ck_assert_str_eq(out.overrides, overrides);
    free(out.preset);
    free(out.overrides);

    pdk_input remove = {.kind = PDK_INPUT_REMOVE, .vehicle = 0x10002u};
    round_trip(&remove, &out);
    ck_assert_uint_eq(out.vehicle, remove.vehicle);

    pdk_input dbw = {.kind = PDK_INPUT_DBW, .vehicle = 3};
    dbw.u.cmd.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER;
    dbw.u.cmd.throttle_pct = 30.0;
    dbw.u.cmd.steer_wheel_deg = -45.0;
    round_trip(&dbw, &out);
    ck_assert_uint_eq(out.vehicle, 3);
    ck_assert_uint_eq(out.u.cmd.fields, dbw.u.cmd.fields);
    ck_assert(out.u.cmd.throttle_pct == 30.0 && out.u.cmd.steer_wheel_deg == -45.0);

    pdk_input tyre = {.kind = PDK_INPUT_TYRE, .vehicle = 4};
    tyre.u.tyre.action = PDK_TYRE_PUNCTURE;
    tyre.u.tyre.wheel_mask = 5;
    tyre.u.tyre.value = 0.5;
    round_trip(&tyre, &out);
    ck_assert_uint_eq(out.vehicle, 4);
    ck_assert_int_eq(out.u.tyre.action, PDK_TYRE_PUNCTURE);
    ck_assert_uint_eq(out.u.tyre.wheel_mask, 5);

    pdk_input kit = {.kind = PDK_INPUT_DBW_KIT, .vehicle = 5};
    kit.u.kit.kind = PDK_DBW_MSG_GEAR;
    kit.u.kit.crc = -1;
    kit.u.kit.u.value = PDK_GEAR_DRIVE;
    round_trip(&kit, &out);
    ck_assert_uint_eq(out.vehicle, 5);
    ck_assert_int_eq(out.u.kit.kind, PDK_DBW_MSG_GEAR);
    ck_assert_int_eq(out.u.kit.u.value, PDK_GEAR_DRIVE);

    pdk_input reset = {.kind = PDK_INPUT_RESET};
    round_trip(&reset, &out);

    pdk_input reseed = {.kind = PDK_INPUT_RESEED, .u.seed = 0x123456789abcdefull};
    round_trip(&reseed, &out);
    ck_assert_uint_eq(out.u.seed, reseed.u.seed);

    pdk_input right = {.kind = PDK_INPUT_VEHICLE_RESET,
                       .vehicle = 6,
                       .u.reset = {.at_pose = 1, .x_m = -3.25, .y_m = 8.0, .yaw_deg = 135.0}};
    round_trip(&right, &out);
    ck_assert_uint_eq(out.vehicle, 6);
    ck_assert_int_eq(out.u.reset.at_pose, 1);
    ck_assert(out.u.reset.x_m == -3.25 && out.u.reset.y_m == 8.0 && out.u.reset.yaw_deg == 135.0);
    pdk_input here = {.kind = PDK_INPUT_VEHICLE_RESET, .vehicle = 7};
    round_trip(&here, &out);
    ck_assert_int_eq(out.u.reset.at_pose, 0);

    /* A proxy's entry, poses and removal come back bit for bit: a replay
     * moves it exactly as the run did. */
    const pdk_proxy_pose pose = {.pos_m = {-8.0, 0.1 + 0.2, 0.75},
                                 .quat = {0.9998, 0.0, 0.0, 0.0199986667},
                                 .vel_mps = {2.0 / 3.0, -1e-300, 0.0},
                                 .omega_radps = {0.0, 0.0, -0.04}};
    pdk_input add = {.kind = PDK_INPUT_PROXY_ADD};
    add.u.proxy_add.def.half_extent_m[0] = 2.4;
    add.u.proxy_add.def.half_extent_m[1] = 0.95;
    add.u.proxy_add.def.half_extent_m[2] = 0.7;
    add.u.proxy_add.def.mass_kg = 1500.5;
    add.u.proxy_add.def.material = pdk_contact_material_car_body();
    add.u.proxy_add.pose = pose;
    add.u.proxy_add.owner_ns = 7000000000123ull;
    strcpy(add.u.proxy_add.label, "remote-car");
    round_trip(&add, &out);
    ck_assert(memcmp(&out.u.proxy_add.def, &add.u.proxy_add.def, sizeof(add.u.proxy_add.def)) ==
              0);
    ck_assert(memcmp(&out.u.proxy_add.pose, &pose, sizeof(pose)) == 0);
    ck_assert_uint_eq(out.u.proxy_add.owner_ns, add.u.proxy_add.owner_ns);
    ck_assert_str_eq(out.u.proxy_add.label, "remote-car");
    add.u.proxy_add.def.mass_kg = 0.0; /* infinite */
    round_trip(&add, &out);
    ck_assert(out.u.proxy_add.def.mass_kg == 0.0);

    pdk_input move = {.kind = PDK_INPUT_PROXY_POSE, .proxy = 0x10003u, .u.proxy_pose = pose};
    round_trip(&move, &out);
    ck_assert_uint_eq(out.proxy, 0x10003u);
    ck_assert(memcmp(&out.u.proxy_pose, &pose, sizeof(pose)) == 0);

    pdk_input gone = {.kind = PDK_INPUT_PROXY_REMOVE, .proxy = 9};
    round_trip(&gone, &out);
    ck_assert_uint_eq(out.proxy, 9);
}
END_TEST

/* A SessionControl body that is a reset is not a reseed, and the other way
 * round: a recording whose kind and body disagree does not load. */
START_TEST(a_control_body_must_match_its_kind)
{
    pdk_buf b = {0};
    pdk_input reset = {.kind = PDK_INPUT_RESET}, out = {.kind = PDK_INPUT_RESEED};
    ck_assert_int_eq(pdk_input_ops_of(PDK_INPUT_RESET)->encode(1, &reset, &b), PDK_OK);
    ck_assert_int_eq(pdk_input_decode(pdk_input_ops_of(PDK_INPUT_RESEED), b.data, b.len, &out),
                     PDK_ERR_PARSE);
    pdk_buf_reset(&b);
    pdk_input reseed = {.kind = PDK_INPUT_RESEED, .u.seed = 7};
    ck_assert_int_eq(pdk_input_ops_of(PDK_INPUT_RESEED)->encode(1, &reseed, &b), PDK_OK);
    out.kind = PDK_INPUT_RESET;
    ck_assert_int_eq(pdk_input_decode(pdk_input_ops_of(PDK_INPUT_RESET), b.data, b.len, &out),
                     PDK_ERR_PARSE);
    pdk_buf_free(&b);
}
END_TEST

/* Bytes that are not the kind's message (a field header whose length runs
 * past the end) are refused by name, for every kind, and a tyre body that
 * parses but names no wheel is refused by the tyre's own check. */
START_TEST(a_body_that_is_not_its_message_is_refused)
{
    static const uint8_t torn[] = {0x0a, 0x05, 'a'}; /* field 1, 5 bytes long, 1 there */
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        pdk_input out = {.kind = expected[i].kind};
        ck_assert_int_eq(
            pdk_input_decode(pdk_input_ops_of(expected[i].kind), torn, sizeof(torn), &out),
            PDK_ERR_PARSE);
        free(out.preset);
        free(out.overrides);
        out = (pdk_input){.kind = expected[i].kind};
        ck_assert_int_eq(pdk_input_decode(pdk_input_ops_of(expected[i].kind), NULL, 2, &out),
                         PDK_ERR_INVALID_ARGUMENT);
    }
    pdk_buf b = {0};
    pdk_input tyre = {.kind = PDK_INPUT_TYRE, .vehicle = 4};
    tyre.u.tyre.action = PDK_TYRE_PUNCTURE;
    tyre.u.tyre.wheel_mask = 0;
    tyre.u.tyre.value = 0.5;
    ck_assert_int_eq(pdk_input_ops_of(PDK_INPUT_TYRE)->encode(1, &tyre, &b), PDK_OK);
    pdk_input out = {.kind = PDK_INPUT_TYRE};
    ck_assert_int_ne(pdk_input_decode(pdk_input_ops_of(PDK_INPUT_TYRE), b.data, b.len, &out),
                     PDK_OK);
    pdk_buf_free(&b);
}
END_TEST

static Suite *input_kinds_suite(void)
{
    Suite *s = suite_create("input_kinds");
    TCase *tc = tcase_create("input_kinds");
    tcase_add_test(tc, every_kind_has_an_entry);
    tcase_add_test(tc, recorded_bodies_decode_to_what_was_encoded);
    tcase_add_test(tc, a_control_body_must_match_its_kind);
    tcase_add_test(tc, a_body_that_is_not_its_message_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(input_kinds_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
