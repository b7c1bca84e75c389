/* Unit tests for server/wire/wire.c: the byte buffer, varints, Frame
 * encode/decode and its guards, error and gear mapping, DbwCommand and
 * TyreCommand conversions, and the state batch built once per tick and merged
 * per subscriber. The DBW kit's messages and reports (wire_dbw.c) are
 * test_wire_dbw.c's. protobuf-c itself is the oracle wherever wire writes
 * bytes by hand. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "wire_test_util.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct test_world {
    void *mem;
    pdk_world *world;
} test_world;

static test_world world_make(void)
{
    test_world tw = {0};
    pdk_world_def def = pdk_world_def_default();
    size_t bytes = pdk_world_mem_size(&def);
    ck_assert_uint_gt(bytes, 0);
    tw.mem = aligned_alloc(16, (bytes + 15) / 16 * 16);
    ck_assert_ptr_nonnull(tw.mem);
    ck_assert_int_eq(pdk_world_init(tw.mem, bytes, &def, &tw.world), PDK_OK);
    return tw;
}

static pdk_vehicle_id spawn_at(pdk_world *world, double x_m, double y_m, double yaw_rad,
                               double speed_mps)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_pose pose = {x_m, y_m, yaw_rad};
    pdk_vehicle_id id = 0;
    ck_assert_int_eq(pdk_world_spawn(world, &def, &pose, speed_mps, PDK_GEAR_DRIVE, &id), PDK_OK);
    ck_assert_uint_ne(id, 0);
    return id;
}

static void assert_state_matches_pose(const Paddock__V1__VehicleState *vs,
                                      const pdk_vehicle_pose *pose)
{
    ck_assert_uint_eq(vs->vehicle_id, pose->id);
    ck_assert_double_eq(vs->x_m, pose->x_m);
    ck_assert_double_eq(vs->y_m, pose->y_m);
    ck_assert_double_eq(vs->z_m, pose->z_m);
    ck_assert_double_eq(vs->yaw_rad, pose->yaw_rad);
    ck_assert_double_eq(vs->vx_mps, pose->vx_mps);
    ck_assert_double_eq(vs->vy_mps, pose->vy_mps);
    ck_assert_double_eq(vs->yaw_rate_radps, pose->yaw_rate_radps);
    ck_assert_double_eq(vs->steer_angle_rad, pose->steer_angle_rad);
    ck_assert_double_eq(vs->speed_mps, pose->speed_mps);
    ck_assert_double_eq(vs->ax_mps2, pose->ax_mps2);
    ck_assert_double_eq(vs->ay_mps2, pose->ay_mps2);
}

/* ---- pdk_buf -------------------------------------------------------------- */

START_TEST(buf_append_reset_free)
{
    pdk_buf buf = {0};
    char chunk[1000];
    for (size_t i = 0; i < sizeof chunk; i++) {
        chunk[i] = (char)i;
    }
    for (int i = 0; i < 100; i++) {
        ck_assert_int_eq(pdk_buf_append(&buf, chunk, sizeof chunk), PDK_OK);
    }
    ck_assert_uint_eq(buf.len, 100 * sizeof chunk);
    ck_assert_uint_ge(buf.cap, buf.len);
    ck_assert_mem_eq(buf.data + 57 * sizeof chunk, chunk, sizeof chunk);
    size_t cap = buf.cap;
    pdk_buf_reset(&buf);
    ck_assert_uint_eq(buf.len, 0);
    ck_assert_uint_eq(buf.cap, cap);
    ck_assert_int_eq(pdk_buf_append(&buf, NULL, 0), PDK_OK);
    ck_assert_int_eq(pdk_buf_append(&buf, NULL, 3), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_buf_append(NULL, chunk, 3), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_buf_reserve(NULL, 3), PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&buf);
    ck_assert_ptr_null(buf.data);
    ck_assert_uint_eq(buf.cap, 0);
    pdk_buf_free(&buf); /* a zeroed buffer is fine */
    pdk_buf_free(NULL);
}
END_TEST

START_TEST(buf_reserve_overflow_is_no_memory)
{
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_buf_append(&buf, "abc", 3), PDK_OK);
    ck_assert_int_eq(pdk_buf_reserve(&buf, SIZE_MAX), PDK_ERR_NO_MEMORY);
    ck_assert_int_eq(pdk_buf_reserve(&buf, SIZE_MAX - 3), PDK_ERR_NO_MEMORY);
    /* Unchanged by the failures. */
    ck_assert_uint_eq(buf.len, 3);
    ck_assert_mem_eq(buf.data, "abc", 3);
    pdk_buf_free(&buf);
}
END_TEST

/* ---- varints -------------------------------------------------------------- */

typedef struct varint_case {
    uint64_t value;
    size_t len;
    uint8_t bytes[PDK_WIRE_VARINT_MAX];
} varint_case;

static const varint_case varint_cases[] = {
    {0, 1, {0x00}},
    {1, 1, {0x01}},
    {127, 1, {0x7f}},
    {128, 2, {0x80, 0x01}},
    {300, 2, {0xac, 0x02}},
    {16383, 2, {0xff, 0x7f}},
    {16384, 3, {0x80, 0x80, 0x01}},
    {UINT32_MAX, 5, {0xff, 0xff, 0xff, 0xff, 0x0f}},
    {(uint64_t)1 << 63, 10, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {UINT64_MAX, 10, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
};

START_TEST(varint_known_encodings)
{
    const varint_case *c = &varint_cases[_i];
    uint8_t out[PDK_WIRE_VARINT_MAX + 4];
    memset(out, 0xee, sizeof out);
    ck_assert_uint_eq(pdk_wire_varint_put(c->value, out), c->len);
    ck_assert_mem_eq(out, c->bytes, c->len);
    ck_assert_uint_eq(out[c->len], 0xee); /* nothing written past it */

    uint64_t v = 12345;
    ck_assert_int_eq(pdk_wire_varint_get(c->bytes, c->len, &v), (int)c->len);
    ck_assert_uint_eq(v, c->value);
    /* Trailing bytes are left alone. */
    uint8_t more[PDK_WIRE_VARINT_MAX + 2];
    memcpy(more, c->bytes, c->len);
    more[c->len] = 0x05;
    ck_assert_int_eq(pdk_wire_varint_get(more, c->len + 1, &v), (int)c->len);
    ck_assert_uint_eq(v, c->value);
    /* Every strict prefix asks for more bytes. */
    for (size_t n = 0; n < c->len; n++) {
        ck_assert_int_eq(pdk_wire_varint_get(c->bytes, n, &v), 0);
    }
}
END_TEST

/* protobuf-c is the reference encoder: a Ping is tag 0x08 then the varint. */
START_TEST(varint_matches_protobuf_c)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t v = x >> (i % 64);
        Paddock__V1__Ping ping = PADDOCK__V1__PING__INIT;
        ping.client_time_ns = v;
        uint8_t packed[16];
        size_t plen = paddock__v1__ping__pack(&ping, packed);
        uint8_t mine[PDK_WIRE_VARINT_MAX];
        size_t n = pdk_wire_varint_put(v, mine);
        if (v == 0) {
            ck_assert_uint_eq(plen, 0); /* proto3 omits zero */
            continue;
        }
        ck_assert_uint_eq(plen, n + 1);
        ck_assert_mem_eq(packed + 1, mine, n);
    }
}
END_TEST

START_TEST(varint_overlong_is_malformed)
{
    uint64_t v = 0;
    uint8_t cont[11];
    memset(cont, 0x80, sizeof cont);
    ck_assert_int_eq(pdk_wire_varint_get(cont, 11, &v), -1);
    ck_assert_int_eq(pdk_wire_varint_get(cont, 10, &v), -1);
    ck_assert_int_eq(pdk_wire_varint_get(cont, 9, &v), 0);
    /* Ten bytes whose last carries more than bit 63 overflow 64 bits. */
    uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    ck_assert_int_eq(pdk_wire_varint_get(big, 10, &v), -1);
    /* Non-minimal but in range is what protobuf accepts: 0 in two bytes. */
    uint8_t padded[2] = {0x80, 0x00};
    ck_assert_int_eq(pdk_wire_varint_get(padded, 2, &v), 2);
    ck_assert_uint_eq(v, 0);
}
END_TEST

/* ---- frames ------------------------------------------------------------- */

START_TEST(frame_round_trip)
{
    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    hello.protocol_version = PDK_PROTOCOL_VERSION;
    hello.client_name = "wire-test";
    Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
    frame.request_id = 0x123456789ull;
    frame.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    frame.hello = &hello;

    Paddock__V1__Ping ping = PADDOCK__V1__PING__INIT;
    ping.client_time_ns = 99;
    Paddock__V1__Frame second = PADDOCK__V1__FRAME__INIT;
    second.request_id = 2;
    second.body_case = PADDOCK__V1__FRAME__BODY_PING;
    second.ping = &ping;

    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&buf, &frame), PDK_OK);
    size_t first_len = buf.len;
    ck_assert_int_eq(pdk_wire_frame_append(&buf, &second), PDK_OK);

    /* Whole frames, no prefix: each is exactly its packed bytes. */
    ck_assert_uint_eq(first_len, paddock__v1__frame__get_packed_size(&frame));
    ck_assert_uint_eq(buf.len - first_len, paddock__v1__frame__get_packed_size(&second));
    ck_assert_int_eq(pdk_wire_frame_check(buf.data, first_len), PDK_OK);

    pdk_error err = PDK_ERR_IO;
    Paddock__V1__Frame *got = pdk_wire_frame_decode(buf.data, first_len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(err, PDK_OK);
    ck_assert_uint_eq(got->request_id, 0x123456789ull);
    ck_assert_int_eq(got->body_case, PADDOCK__V1__FRAME__BODY_HELLO);
    ck_assert_uint_eq(got->hello->protocol_version, PDK_PROTOCOL_VERSION);
    ck_assert_str_eq(got->hello->client_name, "wire-test");
    pdk_wire_frame_free(got);

    const uint8_t *p = buf.data + first_len;
    ck_assert_int_eq(pdk_wire_frame_check(p, buf.len - first_len), PDK_OK);
    got = pdk_wire_frame_decode(p, buf.len - first_len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(got->body_case, PADDOCK__V1__FRAME__BODY_PING);
    ck_assert_uint_eq(got->ping->client_time_ns, 99);
    pdk_wire_frame_free(got);
    pdk_wire_frame_free(NULL);
    pdk_buf_free(&buf);

    ck_assert_int_eq(pdk_wire_frame_append(NULL, &frame), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_append(&buf, NULL), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(frame_check_refuses_all_but_one_whole_frame)
{
    Paddock__V1__Ping ping = PADDOCK__V1__PING__INIT;
    ping.client_time_ns = 5;
    Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
    frame.request_id = 300;
    frame.body_case = PADDOCK__V1__FRAME__BODY_PING;
    frame.ping = &ping;
    uint8_t buf[64];
    size_t one = paddock__v1__frame__pack(&frame, buf);
    ck_assert_int_eq(pdk_wire_frame_check(buf, one), PDK_OK);
    /* Cut anywhere: a field header or a body runs past the end. */
    for (size_t cut = 1; cut < one; cut++) {
        ck_assert_int_eq(pdk_wire_frame_check(buf, one - cut), PDK_ERR_INVALID_ARGUMENT);
    }
    /* Two frames run together parse as one message, but are two frames. */
    ck_assert_uint_eq(paddock__v1__frame__pack(&frame, buf + one), one);
    ck_assert_int_eq(pdk_wire_frame_check(buf, 2 * one), PDK_ERR_INVALID_ARGUMENT);
    /* A request_id alone has no body; field 0 and a wrong wire type are
     * not a Frame. */
    static const uint8_t id_only[] = {0x08, 0x07};
    static const uint8_t field_zero[] = {0x00};
    static const uint8_t id_as_bytes[] = {0x0a, 0x00, 0x72, 0x00};
    static const uint8_t body_as_varint[] = {0x70, 0x01};
    ck_assert_int_eq(pdk_wire_frame_check(id_only, sizeof id_only), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_check(field_zero, sizeof field_zero),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_check(id_as_bytes, sizeof id_as_bytes),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_check(body_as_varint, sizeof body_as_varint),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_check(buf, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_frame_check(NULL, 4), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(frame_decode_refuses_non_frames)
{
    pdk_error err = PDK_OK;
    /* Garbage: an invalid wire type. */
    static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x07, 0x13, 0x37};
    ck_assert_ptr_null(pdk_wire_frame_decode(garbage, sizeof garbage, &err));
    ck_assert_int_eq(err, PDK_ERR_PROTOCOL);
    /* Empty: decodes as a Frame with no body. */
    err = PDK_OK;
    ck_assert_ptr_null(pdk_wire_frame_decode(garbage, 0, &err));
    ck_assert_int_eq(err, PDK_ERR_PROTOCOL);
    /* Only a request_id: still no body. */
    static const uint8_t id_only[] = {0x08, 0x05};
    err = PDK_OK;
    ck_assert_ptr_null(pdk_wire_frame_decode(id_only, sizeof id_only, &err));
    ck_assert_int_eq(err, PDK_ERR_PROTOCOL);
    /* A frame whose body field claims more bytes than there are. */
    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    hello.client_name = "truncated";
    Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
    frame.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    frame.hello = &hello;
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_frame_append(&buf, &frame), PDK_OK);
    size_t len = 0;
    const uint8_t *body = frame_body(&buf, &len);
    for (size_t cut = 1; cut < len; cut++) {
        err = PDK_OK;
        ck_assert_ptr_null(pdk_wire_frame_decode(body, len - cut, &err));
        ck_assert_int_eq(err, PDK_ERR_PROTOCOL);
    }
    pdk_buf_free(&buf);
    /* NULL with a length. */
    ck_assert_ptr_null(pdk_wire_frame_decode(NULL, 4, &err));
    ck_assert_int_eq(err, PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* 2-byte empty VehicleStates would cost ~70x their size in structs; the
 * bounded allocator refuses the frame, while a real batch of the same byte
 * size decodes. */
START_TEST(frame_decode_budget_refuses_amplification)
{
    enum { N = 60000 };
    pdk_buf buf = {0};
    /* Frame.state_batch (field 60, LEN) holding N times "vehicles: {}". */
    uint8_t head[3 + PDK_WIRE_VARINT_MAX];
    size_t hlen = pdk_wire_varint_put((60u << 3) | 2u, head);
    hlen += pdk_wire_varint_put(2u * N, head + hlen);
    ck_assert_int_eq(pdk_buf_append(&buf, head, hlen), PDK_OK);
    for (int i = 0; i < N; i++) {
        static const uint8_t empty_vehicle[2] = {(5u << 3) | 2u, 0x00};
        ck_assert_int_eq(pdk_buf_append(&buf, empty_vehicle, 2), PDK_OK);
    }
    pdk_error err = PDK_OK;
    ck_assert_ptr_null(pdk_wire_frame_decode(buf.data, buf.len, &err));
    ck_assert_int_eq(err, PDK_ERR_PROTOCOL);

    /* The same count with real values fits the budget. */
    pdk_buf_reset(&buf);
    Paddock__V1__VehicleState *states = calloc(N / 10, sizeof *states);
    Paddock__V1__VehicleState **ptrs = calloc(N / 10, sizeof *ptrs);
    ck_assert_ptr_nonnull(states);
    ck_assert_ptr_nonnull(ptrs);
    for (int i = 0; i < N / 10; i++) {
        paddock__v1__vehicle_state__init(&states[i]);
        states[i].vehicle_id = (uint32_t)i + 1;
        states[i].x_m = 1.5 * i;
        states[i].y_m = -2.0;
        states[i].z_m = 0.3;
        states[i].yaw_rad = 0.1;
        states[i].speed_mps = 12.0;
        ptrs[i] = &states[i];
    }
    Paddock__V1__StateBatch batch = PADDOCK__V1__STATE_BATCH__INIT;
    batch.n_vehicles = N / 10;
    batch.vehicles = ptrs;
    Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
    frame.body_case = PADDOCK__V1__FRAME__BODY_STATE_BATCH;
    frame.state_batch = &batch;
    ck_assert_int_eq(pdk_wire_frame_append(&buf, &frame), PDK_OK);
    size_t len = 0;
    const uint8_t *body = frame_body(&buf, &len);
    Paddock__V1__Frame *got = pdk_wire_frame_decode(body, len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got->state_batch->n_vehicles, N / 10);
    ck_assert_double_eq(got->state_batch->vehicles[N / 10 - 1]->x_m, 1.5 * (N / 10 - 1));
    pdk_wire_frame_free(got);
    free(states);
    free(ptrs);
    pdk_buf_free(&buf);
}
END_TEST

/* Random mutations of valid frames never crash the decoder (ASan/UBSan
 * builds make this a memory-safety check), and what it accepts has a body. */
START_TEST(frame_decode_survives_mutations)
{
    pdk_buf seeds[3] = {{0}, {0}, {0}};
    Paddock__V1__DbwCommand dbw = PADDOCK__V1__DBW_COMMAND__INIT;
    dbw.session_id = 3;
    dbw.vehicle_id = 0x10001;
    dbw.throttle_case = PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT;
    dbw.throttle_pct = 40.0;
    dbw.gear = PADDOCK__V1__GEAR__GEAR_DRIVE;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 9;
    f.body_case = PADDOCK__V1__FRAME__BODY_DBW_COMMAND;
    f.dbw_command = &dbw;
    ck_assert_int_eq(pdk_wire_frame_append(&seeds[0], &f), PDK_OK);
    ck_assert_int_eq(pdk_wire_error_append(&seeds[1], 4, PDK_ERR_STALE_ID, "vehicle 7 is gone"),
                     PDK_OK);
    Paddock__V1__VehicleSpawn spawn = PADDOCK__V1__VEHICLE_SPAWN__INIT;
    spawn.session_id = 1;
    spawn.preset = "kart";
    spawn.overrides = "mass_kg=90";
    spawn.x_m = 3.0;
    f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN;
    f.vehicle_spawn = &spawn;
    ck_assert_int_eq(pdk_wire_frame_append(&seeds[2], &f), PDK_OK);

    uint64_t x = 88172645463325252ull;
    uint8_t work[256];
    int accepted = 0;
    for (int iter = 0; iter < 30000; iter++) {
        const pdk_buf *seed = &seeds[iter % 3];
        size_t len = 0;
        const uint8_t *body = frame_body(seed, &len);
        ck_assert_uint_le(len, sizeof work);
        memcpy(work, body, len);
        int flips = 1 + iter % 4;
        for (int k = 0; k < flips; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            work[x % len] = (uint8_t)(x >> 32);
        }
        size_t cut = (iter % 5 == 0) ? (size_t)(x >> 40) % (len + 1) : len;
        pdk_error err = PDK_OK;
        Paddock__V1__Frame *got = pdk_wire_frame_decode(work, cut, &err);
        if (got != NULL) {
            ck_assert_int_eq(err, PDK_OK);
            ck_assert_int_ne(got->body_case, PADDOCK__V1__FRAME__BODY__NOT_SET);
            accepted++;
            pdk_wire_frame_free(got);
        } else {
            ck_assert_int_eq(err, PDK_ERR_PROTOCOL);
        }
    }
    ck_assert_int_gt(accepted, 0);
    for (int i = 0; i < 3; i++) {
        pdk_buf_free(&seeds[i]);
    }
}
END_TEST

/* protobuf-c's unpacker recurses without a depth limit, so the schema must not
 * let a message contain itself. */
static int walk_depth(const ProtobufCMessageDescriptor *desc,
                      const ProtobufCMessageDescriptor **stack, int depth)
{
    for (int i = 0; i < depth; i++) {
        ck_assert_msg(stack[i] != desc, "%s contains itself", desc->name);
    }
    ck_assert_int_lt(depth, 32);
    stack[depth] = desc;
    int deepest = depth + 1;
    for (unsigned f = 0; f < desc->n_fields; f++) {
        if (desc->fields[f].type == PROTOBUF_C_TYPE_MESSAGE) {
            int d = walk_depth(desc->fields[f].descriptor, stack, depth + 1);
            deepest = d > deepest ? d : deepest;
        }
    }
    return deepest;
}

START_TEST(schema_is_not_recursive)
{
    const ProtobufCMessageDescriptor *stack[32];
    int depth = walk_depth(&paddock__v1__frame__descriptor, stack, 0);
    ck_assert_int_ge(depth, 3); /* Frame > StateBatch > VehicleState */
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

START_TEST(error_frame_round_trip)
{
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_error_append(&buf, 77, PDK_ERR_NOT_FOUND, "session 12 not found"),
                     PDK_OK);
    size_t len = 0;
    const uint8_t *body = frame_body(&buf, &len);
    pdk_error err = PDK_ERR_IO;
    Paddock__V1__Frame *got = pdk_wire_frame_decode(body, len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got->request_id, 77);
    ck_assert_int_eq(got->body_case, PADDOCK__V1__FRAME__BODY_ERROR);
    ck_assert_int_eq(got->error->code, PADDOCK__V1__ERROR_CODE__NOT_FOUND);
    ck_assert_str_eq(got->error->message, "session 12 not found");
    pdk_wire_frame_free(got);

    pdk_buf_reset(&buf);
    ck_assert_int_eq(pdk_wire_error_append(&buf, 0, PDK_ERR_BUSY, NULL), PDK_OK);
    body = frame_body(&buf, &len);
    got = pdk_wire_frame_decode(body, len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got->request_id, 0);
    ck_assert_int_eq(got->error->code, PADDOCK__V1__ERROR_CODE__BUSY);
    ck_assert_str_eq(got->error->message, "");
    pdk_wire_frame_free(got);
    pdk_buf_free(&buf);
}
END_TEST

/* Every pdk_error has the ErrorCode of the same number and the same name
 * (PDK_ERR_X <-> X, PDK_OK <-> OK), and the enums have the same size. */
START_TEST(error_codes_mirror_pdk_error)
{
    const ProtobufCEnumDescriptor *ed = &paddock__v1__error_code__descriptor;
    unsigned count = 0;
#define CHECK_ERROR_(err_name, value, message)                                     \
    do {                                                                       \
        const char *pdk = #err_name;                                               \
        const char *want = strncmp(pdk, "PDK_ERR_", 8) == 0 ? pdk + 8 : pdk + 4; \
        const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(ed, value); \
        ck_assert_msg(ev != NULL, "ErrorCode has no value %d for %s", value, pdk); \
        ck_assert_str_eq(ev->name, want);                                      \
        ck_assert_int_eq((int)pdk_wire_error_code(err_name), value);               \
        ck_assert_int_eq(pdk_wire_error_from_pb((Paddock__V1__ErrorCode)(value)), err_name); \
        count++;                                                               \
    } while (0);
    PDK_ERROR_LIST(CHECK_ERROR_)
#undef CHECK_ERROR_
    ck_assert_uint_eq(count, ed->n_values);
    ck_assert_int_eq(pdk_wire_error_code((pdk_error)999), PADDOCK__V1__ERROR_CODE__PROTOCOL);
    ck_assert_int_eq(pdk_wire_error_code((pdk_error)-1), PADDOCK__V1__ERROR_CODE__PROTOCOL);
    ck_assert_int_eq(pdk_wire_error_from_pb((Paddock__V1__ErrorCode)999), PDK_ERR_PROTOCOL);
    ck_assert_int_eq(pdk_wire_error_from_pb((Paddock__V1__ErrorCode)-3), PDK_ERR_PROTOCOL);
}
END_TEST

/* ---- gears -------------------------------------------------------------- */

START_TEST(gear_mapping_follows_dbw2_numbers)
{
    static const struct {
        const char *pb_name;
        pdk_gear gear;
    } table[] = {
        {"GEAR_NONE", PDK_GEAR_NONE},       {"GEAR_PARK", PDK_GEAR_PARK},
        {"GEAR_REVERSE", PDK_GEAR_REVERSE}, {"GEAR_NEUTRAL", PDK_GEAR_NEUTRAL},
        {"GEAR_DRIVE", PDK_GEAR_DRIVE},     {"GEAR_LOW", PDK_GEAR_LOW},
    };
    const ProtobufCEnumDescriptor *ed = &paddock__v1__gear__descriptor;
    ck_assert_uint_eq(ed->n_values, sizeof table / sizeof table[0]);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value_by_name(ed, table[i].pb_name);
        ck_assert_ptr_nonnull(ev);
        ck_assert_int_eq(ev->value, (int)table[i].gear);
        pdk_gear out = (pdk_gear)77;
        ck_assert_int_eq(pdk_wire_gear_from_pb((Paddock__V1__Gear)ev->value, &out), PDK_OK);
        ck_assert_int_eq(out, table[i].gear);
    }
    static const int unknown[] = {6, 7, 100, -1, INT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        pdk_gear out = PDK_GEAR_PARK;
        ck_assert_int_eq(pdk_wire_gear_from_pb((Paddock__V1__Gear)unknown[i], &out),
                         PDK_ERR_OUT_OF_RANGE);
        ck_assert_int_eq(out, PDK_GEAR_PARK); /* untouched */
    }
}
END_TEST

/* ---- DBW ---------------------------------------------------------------- */

START_TEST(dbw_from_pb_sets_only_present_fields)
{
    Paddock__V1__DbwCommand msg = PADDOCK__V1__DBW_COMMAND__INIT;
    pdk_dbw_cmd cmd;
    memset(&cmd, 0xab, sizeof cmd);
    pdk_wire_dbw_from_pb(&msg, &cmd);
    ck_assert_uint_eq(cmd.fields, 0);

    msg.brake_case = PADDOCK__V1__DBW_COMMAND__BRAKE_BRAKE_BAR;
    msg.brake_bar = 0.0; /* present and zero is not absent */
    msg.gear = PADDOCK__V1__GEAR__GEAR_REVERSE;
    pdk_wire_dbw_from_pb(&msg, &cmd);
    ck_assert_uint_eq(cmd.fields, PDK_DBW_BRAKE | PDK_DBW_GEAR);
    ck_assert_double_eq(cmd.brake_bar, 0.0);
    ck_assert_int_eq(cmd.gear, PDK_GEAR_REVERSE);

    /* An unknown gear is passed on for sim to refuse by name. */
    msg.gear = (Paddock__V1__Gear)9;
    pdk_wire_dbw_from_pb(&msg, &cmd);
    ck_assert_uint_eq(cmd.fields & PDK_DBW_GEAR, PDK_DBW_GEAR);
    ck_assert_int_eq((int)cmd.gear, 9);

    /* A manual gearbox's gear number; one beyond int32 is passed on clamped
     * for sim to refuse by name. */
    msg.gear = PADDOCK__V1__GEAR__GEAR_NONE;
    msg.gear_number_set_case = PADDOCK__V1__DBW_COMMAND__GEAR_NUMBER_SET_GEAR_NUMBER;
    msg.gear_number = 4;
    pdk_wire_dbw_from_pb(&msg, &cmd);
    ck_assert_uint_eq(cmd.fields, PDK_DBW_BRAKE | PDK_DBW_GEAR_NUMBER);
    ck_assert_int_eq(cmd.gear_number, 4);
    msg.gear_number = 0xFFFFFFFFu;
    pdk_wire_dbw_from_pb(&msg, &cmd);
    ck_assert_int_eq(cmd.gear_number, INT32_MAX);

    pdk_wire_dbw_from_pb(NULL, &cmd);
    ck_assert_uint_eq(cmd.fields, 0);
}
END_TEST

START_TEST(dbw_round_trip_every_field_subset)
{
    const uint32_t all =
        PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR | PDK_DBW_GEAR_NUMBER;
    for (uint32_t fields = 0; fields <= all; fields++) {
        pdk_dbw_cmd in = {0};
        in.fields = fields;
        in.throttle_pct = (fields & 1) ? 0.0 : 55.5; /* zero must survive as present */
        in.brake_bar = 12.25;
        in.steer_wheel_deg = -270.0;
        in.gear = PDK_GEAR_LOW;
        in.gear_number = 3;
        pdk_buf buf = {0};
        ck_assert_int_eq(pdk_wire_dbw_encode(42, 0x00030002u, &in, &buf), PDK_OK);

        /* protobuf-c sees exactly the present fields. */
        Paddock__V1__DbwCommand *msg = paddock__v1__dbw_command__unpack(NULL, buf.len, buf.data);
        ck_assert_ptr_nonnull(msg);
        ck_assert_uint_eq(msg->session_id, 42);
        ck_assert_uint_eq(msg->vehicle_id, 0x00030002u);
        ck_assert_int_eq(msg->throttle_case != PADDOCK__V1__DBW_COMMAND__THROTTLE__NOT_SET,
                         (fields & PDK_DBW_THROTTLE) != 0);
        ck_assert_int_eq(msg->brake_case != PADDOCK__V1__DBW_COMMAND__BRAKE__NOT_SET,
                         (fields & PDK_DBW_BRAKE) != 0);
        ck_assert_int_eq(msg->steer_case != PADDOCK__V1__DBW_COMMAND__STEER__NOT_SET,
                         (fields & PDK_DBW_STEER) != 0);
        ck_assert_int_eq(msg->gear, (fields & PDK_DBW_GEAR) ? PADDOCK__V1__GEAR__GEAR_LOW
                                                            : PADDOCK__V1__GEAR__GEAR_NONE);
        ck_assert_int_eq(msg->gear_number_set_case !=
                             PADDOCK__V1__DBW_COMMAND__GEAR_NUMBER_SET__NOT_SET,
                         (fields & PDK_DBW_GEAR_NUMBER) != 0);
        paddock__v1__dbw_command__free_unpacked(msg, NULL);

        pdk_dbw_cmd out;
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_wire_dbw_decode(buf.data, buf.len, &out, &id), PDK_OK);
        ck_assert_uint_eq(id, 0x00030002u);
        ck_assert_uint_eq(out.fields, fields);
        if (fields & PDK_DBW_THROTTLE) {
            ck_assert_double_eq(out.throttle_pct, in.throttle_pct);
        }
        if (fields & PDK_DBW_BRAKE) {
            ck_assert_double_eq(out.brake_bar, 12.25);
        }
        if (fields & PDK_DBW_STEER) {
            ck_assert_double_eq(out.steer_wheel_deg, -270.0);
        }
        if (fields & PDK_DBW_GEAR) {
            ck_assert_int_eq(out.gear, PDK_GEAR_LOW);
        }
        if (fields & PDK_DBW_GEAR_NUMBER) {
            ck_assert_int_eq(out.gear_number, 3);
        }
        pdk_buf_free(&buf);
    }
    /* GEAR bit with PDK_GEAR_NONE means no gear on the wire. */
    pdk_dbw_cmd none = {.fields = PDK_DBW_GEAR, .gear = PDK_GEAR_NONE};
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_dbw_encode(1, 1, &none, &buf), PDK_OK);
    pdk_dbw_cmd out;
    ck_assert_int_eq(pdk_wire_dbw_decode(buf.data, buf.len, &out, NULL), PDK_OK);
    ck_assert_uint_eq(out.fields, 0);
    pdk_buf_free(&buf);
    ck_assert_int_eq(pdk_wire_dbw_encode(1, 1, NULL, &buf), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* The hand-written DbwCommand encoder writes protobuf-c's bytes: every
 * field subset with random values (zeros, negative zero, infinities, the
 * largest ids, NaN, a negative gear, which protobuf sign-extends), against
 * protobuf-c packing the same message. A field added to DbwCommand must
 * be added to the encoder too: the count below stops the test until it is. */
static uint64_t dbw_rng = 0x9E3779B97F4A7C15u;

static uint64_t dbw_next(void)
{
    dbw_rng ^= dbw_rng << 13;
    dbw_rng ^= dbw_rng >> 7;
    dbw_rng ^= dbw_rng << 17;
    return dbw_rng;
}

static double dbw_value(void)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 1e-310, 1e300};
    uint64_t r = dbw_next();
    if (r % 4 == 0) {
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    }
    return ((double)(r >> 11) * 0x1.0p-53 - 0.5) * 1000.0;
}

START_TEST(dbw_encode_equals_protobuf_c_pack)
{
    ck_assert_uint_eq(paddock__v1__dbw_command__descriptor.n_fields, 7);
    const uint32_t all =
        PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR | PDK_DBW_GEAR_NUMBER;
    static const uint64_t sessions[] = {0, 1, 127, 128, 0xFFFFFFFFu, UINT64_MAX};
    static const pdk_vehicle_id ids[] = {0, 1, 0x7F, 0x80, 0x00030002u, 0xFFFFFFFFu};
    static const int gears[] = {PDK_GEAR_NONE,
                                PDK_GEAR_PARK,
                                PDK_GEAR_REVERSE,
                                PDK_GEAR_NEUTRAL,
                                PDK_GEAR_DRIVE,
                                PDK_GEAR_LOW,
                                -1};
    static const int32_t numbers[] = {0, 1, 6, 127, 128, INT32_MAX, -3};
    pdk_buf mine = {0};
    for (int n = 0; n < 20000; n++) {
        pdk_dbw_cmd cmd = {0};
        cmd.fields = (uint32_t)n & all;
        cmd.throttle_pct = dbw_value();
        cmd.brake_bar = dbw_value();
        cmd.steer_wheel_deg = dbw_value();
        cmd.gear = (pdk_gear)gears[dbw_next() % 7];
        cmd.gear_number = numbers[dbw_next() % 7];
        const uint64_t session = sessions[dbw_next() % 6];
        const pdk_vehicle_id id = ids[dbw_next() % 6];

        Paddock__V1__DbwCommand msg = PADDOCK__V1__DBW_COMMAND__INIT;
        msg.session_id = session;
        msg.vehicle_id = id;
        if (cmd.fields & PDK_DBW_THROTTLE) {
            msg.throttle_case = PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT;
            msg.throttle_pct = cmd.throttle_pct;
        }
        if (cmd.fields & PDK_DBW_BRAKE) {
            msg.brake_case = PADDOCK__V1__DBW_COMMAND__BRAKE_BRAKE_BAR;
            msg.brake_bar = cmd.brake_bar;
        }
        if (cmd.fields & PDK_DBW_STEER) {
            msg.steer_case = PADDOCK__V1__DBW_COMMAND__STEER_STEER_WHEEL_DEG;
            msg.steer_wheel_deg = cmd.steer_wheel_deg;
        }
        if ((cmd.fields & PDK_DBW_GEAR) && cmd.gear != PDK_GEAR_NONE) {
            msg.gear = (Paddock__V1__Gear)cmd.gear;
        }
        if ((cmd.fields & PDK_DBW_GEAR_NUMBER) && cmd.gear_number > 0) {
            msg.gear_number_set_case = PADDOCK__V1__DBW_COMMAND__GEAR_NUMBER_SET_GEAR_NUMBER;
            msg.gear_number = (uint32_t)cmd.gear_number;
        }
        uint8_t theirs[128];
        const size_t len = paddock__v1__dbw_command__get_packed_size(&msg);
        ck_assert_uint_le(len, sizeof theirs);
        ck_assert_uint_eq(paddock__v1__dbw_command__pack(&msg, theirs), len);

        pdk_buf_reset(&mine);
        ck_assert_int_eq(pdk_wire_dbw_encode(session, id, &cmd, &mine), PDK_OK);
        ck_assert_uint_eq(mine.len, len);
        ck_assert_msg(memcmp(mine.data, theirs, len) == 0, "command %d: the bytes differ", n);
    }
    /* Appended after what the buffer holds. */
    pdk_dbw_cmd one = {.fields = PDK_DBW_STEER, .steer_wheel_deg = 90.0};
    const size_t before = mine.len;
    ck_assert_int_eq(pdk_wire_dbw_encode(5, 6, &one, &mine), PDK_OK);
    pdk_dbw_cmd back;
    pdk_vehicle_id back_id = 0;
    ck_assert_int_eq(pdk_wire_dbw_decode(mine.data + before, mine.len - before, &back, &back_id),
                     PDK_OK);
    ck_assert_uint_eq(back_id, 6);
    ck_assert_uint_eq(back.fields, PDK_DBW_STEER);
    ck_assert_double_eq(back.steer_wheel_deg, 90.0);
    pdk_buf_free(&mine);
}
END_TEST

START_TEST(dbw_decode_refuses_garbage)
{
    static const uint8_t garbage[] = {0x1a, 0x40, 0x00};  /* field 3 as LEN, past the end */
    pdk_dbw_cmd out;
    ck_assert_int_eq(pdk_wire_dbw_decode(garbage, sizeof garbage, &out, NULL), PDK_ERR_PROTOCOL);
    static const uint8_t short_double[] = {0x19, 0x00, 0x00}; /* throttle: 2 of 8 bytes */
    ck_assert_int_eq(pdk_wire_dbw_decode(short_double, sizeof short_double, &out, NULL),
                     PDK_ERR_PROTOCOL);
    ck_assert_int_eq(pdk_wire_dbw_decode(NULL, 3, &out, NULL), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- tyre commands ------------------------------------------------------ */

START_TEST(tyre_round_trip_every_action)
{
    for (int action = PDK_TYRE_PUNCTURE; action <= PDK_TYRE_SET_POWER_SCALE; action++) {
        pdk_tyre_input in = {.wheel_mask = 9u, .action = action, .value = 0.375 * action};
        pdk_buf buf = {0};
        ck_assert_int_eq(pdk_wire_tyre_encode(42, 0x00030002u, &in, &buf), PDK_OK);

        /* protobuf-c reads the same numbers: TyreAction mirrors pdk_tyre_action. */
        Paddock__V1__TyreCommand *msg = paddock__v1__tyre_command__unpack(NULL, buf.len, buf.data);
        ck_assert_ptr_nonnull(msg);
        ck_assert_uint_eq(msg->session_id, 42);
        ck_assert_uint_eq(msg->vehicle_id, 0x00030002u);
        ck_assert_uint_eq(msg->wheel_mask, 9u);
        ck_assert_int_eq((int)msg->action, action);
        ck_assert_double_eq(msg->value, 0.375 * action);
        paddock__v1__tyre_command__free_unpacked(msg, NULL);

        pdk_tyre_input out;
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_wire_tyre_decode(buf.data, buf.len, &out, &id), PDK_OK);
        ck_assert_uint_eq(id, 0x00030002u);
        ck_assert_uint_eq(out.wheel_mask, 9u);
        ck_assert_int_eq(out.action, action);
        ck_assert_double_eq(out.value, 0.375 * action);
        pdk_buf_free(&buf);
    }
    /* The enum's names as the protocol documents them. */
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
        &paddock__v1__tyre_action__descriptor, PDK_TYRE_SET_GRIP_SCALE);
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v->name, "TYRE_ACTION_SET_GRIP_SCALE");
    v = protobuf_c_enum_descriptor_get_value(&paddock__v1__tyre_condition__descriptor,
                                             PDK_TYRE_RIM);
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v->name, "TYRE_CONDITION_RIM");
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_tyre_encode(1, 1, NULL, &buf), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* Each refusal names its field; nothing the message alone cannot decide
 * is refused here. */
START_TEST(tyre_from_pb_names_what_is_wrong)
{
    Paddock__V1__TyreCommand msg = PADDOCK__V1__TYRE_COMMAND__INIT;
    pdk_tyre_input in;
    char why[192];

    msg.wheel_mask = 1;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "action 0 is not a TyreAction") != NULL, "%s", why);
    ck_assert_msg(strstr(why, "1 PUNCTURE") != NULL && strstr(why, "6 SET_POWER_SCALE") != NULL,
                  "%s", why);
    msg.action = (Paddock__V1__TyreAction)7;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "action 7") != NULL, "%s", why);

    msg.action = PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_PUNCTURE;
    msg.value = 0.5;
    msg.wheel_mask = 0;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "wheel_mask 0") != NULL && strstr(why, "1..15") != NULL, "%s", why);
    msg.wheel_mask = 16;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "wheel_mask 16") != NULL, "%s", why);

    msg.wheel_mask = 15;
    msg.value = NAN;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(why, "value must be a finite number") != NULL, "%s", why);
    msg.value = -INFINITY;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_ERR_OUT_OF_RANGE);

    /* A value out of its action's range is sim's to refuse: it passes. */
    msg.value = -3.0;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_OK);
    ck_assert_str_eq(why, "");
    ck_assert_int_eq(in.action, PDK_TYRE_PUNCTURE);
    ck_assert_uint_eq(in.wheel_mask, 15);
    ck_assert_double_eq(in.value, -3.0);

    /* The power scale is the vehicle's: its mask does not matter. */
    msg.action = PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_SET_POWER_SCALE;
    msg.wheel_mask = 0;
    msg.value = 0.5;
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, &in, why, sizeof why), PDK_OK);
    ck_assert_int_eq(in.action, PDK_TYRE_SET_POWER_SCALE);

    ck_assert_int_eq(pdk_wire_tyre_from_pb(NULL, &in, why, sizeof why), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_tyre_from_pb(&msg, NULL, NULL, 0), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(tyre_decode_refuses_garbage_and_invalid_commands)
{
    static const uint8_t garbage[] = {0x2a, 0x40, 0x00}; /* field 5 as LEN, past the end */
    pdk_tyre_input out;
    ck_assert_int_eq(pdk_wire_tyre_decode(garbage, sizeof garbage, &out, NULL), PDK_ERR_PROTOCOL);
    /* A well-formed message with no action is decoded, then refused. */
    static const uint8_t no_action[] = {0x18, 0x01}; /* wheel_mask 1 */
    ck_assert_int_eq(pdk_wire_tyre_decode(no_action, sizeof no_action, &out, NULL),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_tyre_decode(NULL, 3, &out, NULL), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- state -------------------------------------------------------------- */

START_TEST(state_from_pose_copies_every_field)
{
    pdk_vehicle_pose pose = {
        .id = 0x00020001u, .x_m = 1.0, .y_m = -2.0, .z_m = 0.5, .yaw_rad = 0.75,
        .vx_mps = 10.0, .vy_mps = -0.25, .yaw_rate_radps = 0.125, .steer_angle_rad = 0.0625,
        .speed_mps = 10.5, .ax_mps2 = 1.5, .ay_mps2 = -3.5,
    };
    Paddock__V1__VehicleState vs;
    memset(&vs, 0xcd, sizeof vs);
    pdk_wire_state_from_pose(&pose, &vs);
    ck_assert_ptr_eq(vs.base.descriptor, &paddock__v1__vehicle_state__descriptor);
    assert_state_matches_pose(&vs, &pose);
}
END_TEST

/* A wall clock for the batches that carry one: 2026-12-05, in ns. */
#define WALL_NS UINT64_C(1796428800123456789)

/* Builds with protobuf-c the StateBatch wire should have encoded (the
 * pose alone for every vehicle; wall_time_ns as given). */
static pdk_buf reference_batch_at(const pdk_world *world, uint64_t session_id, uint32_t sub,
                                  const pdk_vehicle_id *ids, size_t n, bool as_frame,
                                  uint64_t wall_time_ns)
{
    Paddock__V1__VehicleState states[8];
    Paddock__V1__VehicleState *ptrs[8];
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        pdk_vehicle_pose pose;
        if (pdk_world_vehicle_pose(world, ids[i], &pose) == PDK_OK) {
            ck_assert_uint_lt(count, 8);
            pdk_wire_state_from_pose(&pose, &states[count]);
            ptrs[count] = &states[count];
            count++;
        }
    }
    Paddock__V1__StateBatch batch = PADDOCK__V1__STATE_BATCH__INIT;
    batch.subscription_id = sub;
    batch.session_id = session_id;
    batch.tick = pdk_world_tick(world);
    batch.sim_time_s = pdk_world_time_s(world);
    batch.n_vehicles = count;
    batch.vehicles = ptrs;
    batch.wall_time_ns = wall_time_ns;
    pdk_buf buf = {0};
    if (as_frame) {
        Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
        frame.body_case = PADDOCK__V1__FRAME__BODY_STATE_BATCH;
        frame.state_batch = &batch;
        ck_assert_int_eq(pdk_wire_frame_append(&buf, &frame), PDK_OK);
    } else {
        ck_assert_int_eq(pdk_buf_reserve(&buf, paddock__v1__state_batch__get_packed_size(&batch)),
                         PDK_OK);
        buf.len = paddock__v1__state_batch__pack(&batch, buf.data);
    }
    return buf;
}

static pdk_buf reference_batch(const pdk_world *world, uint64_t session_id, uint32_t sub,
                               const pdk_vehicle_id *ids, size_t n, bool as_frame)
{
    return reference_batch_at(world, session_id, sub, ids, n, as_frame, 0);
}

START_TEST(state_common_equals_protobuf_c_pack)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 0.0, 5.0);
    pdk_vehicle_id b = spawn_at(tw.world, 20.0, 3.5, 1.0, 0.0);
    pdk_vehicle_id c = spawn_at(tw.world, -40.0, -7.25, -2.5, 12.0);
    for (int i = 0; i < 12; i++) {
        pdk_world_step(tw.world);
    }
    ck_assert_uint_eq(pdk_world_tick(tw.world), 12);

    pdk_buf common = {0};
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 77, 0, 0, NULL, 0, &common), PDK_OK);
    pdk_vehicle_id all[3] = {a, b, c};
    pdk_buf want = reference_batch(tw.world, 77, 0, all, 3, false);
    ck_assert_uint_eq(common.len, want.len);
    ck_assert_mem_eq(common.data, want.data, want.len);

    Paddock__V1__StateBatch *batch =
        paddock__v1__state_batch__unpack(NULL, common.len, common.data);
    ck_assert_ptr_nonnull(batch);
    ck_assert_uint_eq(batch->subscription_id, 0);
    ck_assert_uint_eq(batch->session_id, 77);
    ck_assert_uint_eq(batch->tick, 12);
    ck_assert_double_eq(batch->sim_time_s, pdk_world_time_s(tw.world));
    ck_assert_uint_eq(batch->n_vehicles, 3);
    for (int i = 0; i < 3; i++) {
        pdk_vehicle_pose pose;
        ck_assert_uint_eq(batch->vehicles[i]->vehicle_id, pdk_world_vehicle_at(tw.world, i));
        ck_assert_int_eq(pdk_world_vehicle_pose(tw.world, batch->vehicles[i]->vehicle_id, &pose),
                         PDK_OK);
        assert_state_matches_pose(batch->vehicles[i], &pose);
    }
    paddock__v1__state_batch__free_unpacked(batch, NULL);
    pdk_buf_free(&want);

    /* A chosen list keeps its order and skips the dead and the unknown. */
    ck_assert_int_eq(pdk_world_remove(tw.world, b), PDK_OK);
    pdk_vehicle_id chosen[4] = {c, b, 0xdead0042u, a};
    pdk_buf_reset(&common);
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 5, 0, 0, chosen, 4, &common), PDK_OK);
    want = reference_batch(tw.world, 5, 0, chosen, 4, false);
    ck_assert_uint_eq(common.len, want.len);
    ck_assert_mem_eq(common.data, want.data, want.len);
    batch = paddock__v1__state_batch__unpack(NULL, common.len, common.data);
    ck_assert_ptr_nonnull(batch);
    ck_assert_uint_eq(batch->n_vehicles, 2);
    ck_assert_uint_eq(batch->vehicles[0]->vehicle_id, c);
    ck_assert_uint_eq(batch->vehicles[1]->vehicle_id, a);
    paddock__v1__state_batch__free_unpacked(batch, NULL);
    pdk_buf_free(&want);

    /* Appends: what was in the buffer stays. */
    pdk_buf_reset(&common);
    ck_assert_int_eq(pdk_buf_append(&common, "xy", 2), PDK_OK);
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 5, 0, 0, chosen, 4, &common), PDK_OK);
    ck_assert_mem_eq(common.data, "xy", 2);

    ck_assert_int_eq(pdk_wire_state_common(NULL, 5, 0, 0, NULL, 0, &common),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&common);
    free(tw.mem);
}
END_TEST

/* A tick split for max_batch_vehicles: parts of at most the limit, in the
 * list's order, each a StateBatch protobuf-c packs to the same bytes, with
 * part and parts; one part is pdk_wire_state_common's bytes exactly. */
START_TEST(state_split_parts_are_protobuf_c_batches)
{
    test_world tw = world_make();
    pdk_vehicle_id ids[5];
    for (int i = 0; i < 5; i++) {
        ids[i] = spawn_at(tw.world, 10.0 * i, 0.0, 0.0, (double)i);
    }
    pdk_world_step(tw.world);
    const uint64_t wall_ns = 1234567890123ull;

    pdk_buf parts = {0};
    ck_assert_int_eq(pdk_wire_state_split(tw.world, 9, wall_ns, 0, NULL, 0, NULL, 2, &parts),
                     PDK_OK);
    const uint8_t *body;
    size_t body_len, at = 0, seen = 0;
    for (uint32_t p = 0; p < 3; p++) {
        ck_assert_int_eq(pdk_wire_state_part_next(parts.data, parts.len, &at, &body, &body_len),
                         PDK_OK);
        Paddock__V1__StateBatch *b = paddock__v1__state_batch__unpack(NULL, body_len, body);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(b->part, p);
        ck_assert_uint_eq(b->parts, 3);
        ck_assert_uint_eq(b->session_id, 9);
        ck_assert_uint_eq(b->tick, 1);
        ck_assert_uint_eq(b->wall_time_ns, wall_ns);
        ck_assert_uint_eq(b->n_vehicles, p < 2 ? 2 : 1);
        for (size_t v = 0; v < b->n_vehicles; v++) {
            ck_assert_uint_eq(b->vehicles[v]->vehicle_id, ids[seen++]);
        }
        uint8_t again[4096];
        ck_assert_uint_le(paddock__v1__state_batch__get_packed_size(b), sizeof again);
        ck_assert_uint_eq(paddock__v1__state_batch__pack(b, again), body_len);
        ck_assert_mem_eq(again, body, body_len);
        paddock__v1__state_batch__free_unpacked(b, NULL);
    }
    ck_assert_uint_eq(seen, 5);
    ck_assert_int_eq(pdk_wire_state_part_next(parts.data, parts.len, &at, &body, &body_len),
                     PDK_ERR_NOT_FOUND);
    /* A list cut short is not read past its end. */
    at = 0;
    ck_assert_int_eq(pdk_wire_state_part_next(parts.data, 3, &at, &body, &body_len),
                     PDK_ERR_PROTOCOL);

    /* No limit, or one the tick fits: one part, the unsplit bytes. */
    pdk_buf whole = {0};
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 9, wall_ns, 0, NULL, 0, &whole), PDK_OK);
    for (uint32_t limit = 0; limit <= 5; limit += 5) {
        pdk_buf_reset(&parts);
        ck_assert_int_eq(
            pdk_wire_state_split(tw.world, 9, wall_ns, 0, NULL, 0, NULL, limit, &parts), PDK_OK);
        at = 0;
        ck_assert_int_eq(pdk_wire_state_part_next(parts.data, parts.len, &at, &body, &body_len),
                         PDK_OK);
        ck_assert_uint_eq(body_len, whole.len);
        ck_assert_mem_eq(body, whole.data, whole.len);
        ck_assert_uint_eq(at, parts.len);
    }
    /* A chosen list is split by its entries, the dead left out of theirs. */
    ck_assert_int_eq(pdk_world_remove(tw.world, ids[1]), PDK_OK);
    pdk_vehicle_id chosen[3] = {ids[4], ids[1], ids[0]};
    pdk_buf_reset(&parts);
    ck_assert_int_eq(pdk_wire_state_split(tw.world, 9, 0, 0, chosen, 3, NULL, 2, &parts), PDK_OK);
    at = 0;
    size_t counts[2];
    for (int p = 0; p < 2; p++) {
        ck_assert_int_eq(pdk_wire_state_part_next(parts.data, parts.len, &at, &body, &body_len),
                         PDK_OK);
        Paddock__V1__StateBatch *b = paddock__v1__state_batch__unpack(NULL, body_len, body);
        ck_assert_ptr_nonnull(b);
        counts[p] = b->n_vehicles;
        ck_assert_uint_eq(b->vehicles[0]->vehicle_id, p == 0 ? ids[4] : ids[0]);
        paddock__v1__state_batch__free_unpacked(b, NULL);
    }
    ck_assert_uint_eq(counts[0], 1);
    ck_assert_uint_eq(counts[1], 1);
    ck_assert_int_eq(pdk_wire_state_split(NULL, 9, 0, 0, NULL, 0, NULL, 2, &parts),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_buf_free(&parts);
    pdk_buf_free(&whole);
    free(tw.mem);
}
END_TEST

/* teleport_count: every vehicle's share plus its own entry's, looked up in
 * the sorted list; without counts the bytes are pdk_wire_state_common's. */
START_TEST(state_common_carries_teleport_counts)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 0.0, 5.0);
    pdk_vehicle_id b = spawn_at(tw.world, 20.0, 3.5, 1.0, 0.0);
    pdk_vehicle_id c = spawn_at(tw.world, -40.0, -7.25, -2.5, 12.0);
    pdk_world_step(tw.world);
    const pdk_wire_teleport each[2] = {{.id = a < c ? a : c, .count = a < c ? 3 : 7},
                                       {.id = a < c ? c : a, .count = a < c ? 7 : 3}};
    const pdk_wire_teleports tp = {.all = 2, .each = each, .n = 2};
    ck_assert_uint_eq(pdk_wire_teleport_count(&tp, a), 5);
    ck_assert_uint_eq(pdk_wire_teleport_count(&tp, b), 2);
    ck_assert_uint_eq(pdk_wire_teleport_count(&tp, c), 9);
    ck_assert_uint_eq(pdk_wire_teleport_count(NULL, c), 0);

    pdk_buf common = {0};
    ck_assert_int_eq(
        pdk_wire_state_common_teleports(tw.world, 3, 0, 0, NULL, 0, &tp, &common), PDK_OK);
    Paddock__V1__StateBatch *batch =
        paddock__v1__state_batch__unpack(NULL, common.len, common.data);
    ck_assert_ptr_nonnull(batch);
    ck_assert_uint_eq(batch->n_vehicles, 3);
    for (size_t i = 0; i < 3; i++) {
        const Paddock__V1__VehicleState *vs = batch->vehicles[i];
        ck_assert_uint_eq(vs->teleport_count, pdk_wire_teleport_count(&tp, vs->vehicle_id));
    }
    paddock__v1__state_batch__free_unpacked(batch, NULL);

    pdk_buf plain = {0};
    pdk_buf_reset(&common);
    ck_assert_int_eq(
        pdk_wire_state_common_teleports(tw.world, 3, 0, 0, NULL, 0, NULL, &common), PDK_OK);
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 3, 0, 0, NULL, 0, &plain), PDK_OK);
    ck_assert_uint_eq(common.len, plain.len);
    ck_assert_mem_eq(common.data, plain.data, plain.len);
    pdk_buf_free(&plain);
    pdk_buf_free(&common);
    free(tw.mem);
}
END_TEST

/* Each wheel's fields are its channels' values, bit for bit. */
static void assert_four_wheels(const Paddock__V1__VehicleState *vs, const pdk_vehicle_def *def,
                               const double *ch)
{
    ck_assert_uint_eq(vs->n_wheels, 4);
    const double a = def->chassis.cg_to_front_axle_m;
    for (int i = 0; i < 4; i++) {
        const Paddock__V1__WheelState *w = vs->wheels[i];
        const int axle = i >> 1;
        const pdk_axle_tyre_def *tyre = axle == 0 ? &def->tyre_front : &def->tyre_rear;
        ck_assert(w->spin_angle_rad == ch[PDK_CH_WHEEL_ANGLE_FL + i]);
        ck_assert(w->spin_rate_radps == ch[PDK_CH_WHEEL_SPEED_FL + i]);
        ck_assert(w->steer_rad == ch[PDK_CH_WHEEL_STEER_FL + i]);
        ck_assert(w->in_contact == (ch[PDK_CH_TYRE_LOAD_FL + i] > 0.0));
        ck_assert(w->slip_ratio == ch[PDK_CH_SLIP_RATIO_FL + i]);
        ck_assert(w->slip_angle_rad == ch[PDK_CH_SLIP_ANGLE_FL + i]);
        ck_assert(w->surface == (uint32_t)ch[PDK_CH_SURFACE_FL + i]);
        ck_assert(w->condition == (Paddock__V1__TyreCondition)ch[PDK_CH_CONDITION_FL + i]);
        ck_assert(w->camber_rad == ch[PDK_CH_CAMBER_FL + i]);
        ck_assert(w->load_n == ch[PDK_CH_TYRE_LOAD_FL + i]);
        ck_assert(w->travel_m == ch[PDK_CH_SUSP_TRAVEL_FL + i]);
        ck_assert(w->surface_temp_c == ch[PDK_CH_SURFACE_TEMP_FL + i]);
        ck_assert(w->wear == ch[PDK_CH_WEAR_FL + i]);
        /* The centre: the axle's x from the CG, half the track to the
         * wheel's side, the radius above the ground less the CG height,
         * raised by the travel. */
        double x = axle == 0 ? a : a - def->chassis.wheelbase_m;
        double y = ((i & 1) ? -0.5 : 0.5) * pdk_vehicle_def_track_m(def, axle);
        double z = tyre->law.radius_m - def->chassis.cg_height_m + ch[PDK_CH_SUSP_TRAVEL_FL + i];
        ck_assert(w->center_x_m == x);
        ck_assert(w->center_y_m == y);
        ck_assert(w->center_z_m == z);
    }
    /* A rolling car: the wheels spin and carry load; left is +y. */
    ck_assert_double_gt(vs->wheels[0]->spin_rate_radps, 1.0);
    ck_assert(vs->wheels[0]->in_contact);
    ck_assert_double_gt(vs->wheels[0]->center_y_m, 0.0);
    ck_assert_double_lt(vs->wheels[3]->center_x_m, 0.0);
}

static void assert_instruments(const Paddock__V1__Instruments *in, const double *ch)
{
    ck_assert_ptr_nonnull(in);
    ck_assert(in->engine_rpm == ch[PDK_CH_ENGINE_RPM]);
    ck_assert_int_eq(in->gear, (int)ch[PDK_CH_GEAR]);
    ck_assert_uint_eq(in->gear_number, (uint32_t)ch[PDK_CH_GEAR_NUMBER]);
    ck_assert(in->throttle_pct == ch[PDK_CH_THROTTLE]);
    ck_assert(in->brake_bar == ch[PDK_CH_BRAKE]);
    ck_assert(in->speed_mps == ch[PDK_CH_SPEED]);
    ck_assert(in->steer_wheel_deg == ch[PDK_CH_STEER_WHEEL]);
    ck_assert(in->fuel_level_l == ch[PDK_CH_FUEL_LEVEL]);
}

/* Every mask on a four-wheel car and a single-track one, driven and
 * steered: each part the mask asks for and none other, each field its
 * channel's value; the pose alone (mask 0) is the bytes of before. */
START_TEST(state_common_fields_are_the_channels)
{
    test_world tw = world_make();
    pdk_vehicle_id car = spawn_at(tw.world, 0.0, 0.0, 0.0, 12.0);
    pdk_vehicle_def st = pdk_vehicle_def_default();
    st.model = PDK_MODEL_SINGLE_TRACK;
    pdk_pose pose = {30.0, 4.0, 0.0};
    pdk_vehicle_id single = 0;
    ck_assert_int_eq(pdk_world_spawn(tw.world, &st, &pose, 12.0, PDK_GEAR_DRIVE, &single), PDK_OK);
    pdk_dbw_cmd c = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_STEER, .throttle_pct = 12.0, .steer_wheel_deg = 45.0};
    ck_assert_int_eq(pdk_world_command(tw.world, car, &c), PDK_OK);
    ck_assert_int_eq(pdk_world_command(tw.world, single, &c), PDK_OK);
    for (int i = 0; i < 240; i++) {
        pdk_world_step(tw.world);
    }
    const pdk_vehicle_def *car_def = pdk_world_vehicle_def(tw.world, car);
    const pdk_vehicle_def *st_def = pdk_world_vehicle_def(tw.world, single);
    const double *car_ch = pdk_world_channels(tw.world, car);
    const double *st_ch = pdk_world_channels(tw.world, single);
    ck_assert_double_lt(car_ch[PDK_CH_STEERING_WHEEL_TORQUE], 0.0);

    for (uint32_t fields = 0; fields <= PDK_WIRE_STATE_FIELDS_KNOWN; fields++) {
        pdk_buf common = {0};
        ck_assert_int_eq(pdk_wire_state_common(tw.world, 3, WALL_NS, fields, NULL, 0, &common),
                         PDK_OK);
        Paddock__V1__StateBatch *b =
            paddock__v1__state_batch__unpack(NULL, common.len, common.data);
        ck_assert_ptr_nonnull(b);
        /* The hand encoder's bytes are protobuf-c's, the parts included. */
        size_t repacked_len = paddock__v1__state_batch__get_packed_size(b);
        ck_assert_uint_eq(repacked_len, common.len);
        uint8_t *repacked = malloc(repacked_len);
        ck_assert_ptr_nonnull(repacked);
        paddock__v1__state_batch__pack(b, repacked);
        ck_assert_mem_eq(repacked, common.data, common.len);
        free(repacked);
        ck_assert_uint_eq(b->wall_time_ns, WALL_NS);
        ck_assert_uint_eq(b->n_vehicles, 2);
        const Paddock__V1__VehicleState *vc = b->vehicles[0], *vs = b->vehicles[1];
        ck_assert_uint_eq(vc->vehicle_id, car);
        pdk_vehicle_pose p;
        ck_assert_int_eq(pdk_world_vehicle_pose(tw.world, car, &p), PDK_OK);
        assert_state_matches_pose(vc, &p);
        if (fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_WHEELS) {
            assert_four_wheels(vc, car_def, car_ch);
            /* The single-track car's two wheels, front and rear. */
            ck_assert_uint_eq(vs->n_wheels, 2);
            for (int axle = 0; axle < 2; axle++) {
                const Paddock__V1__WheelState *w = vs->wheels[axle];
                ck_assert(w->steer_rad == (axle == 0 ? st_ch[PDK_CH_STEER_ANGLE] : 0.0));
                ck_assert(w->slip_angle_rad == st_ch[PDK_CH_SLIP_ANGLE_F + axle]);
                ck_assert(w->load_n == st_ch[PDK_CH_TYRE_LOAD_F + axle]);
                ck_assert(w->in_contact);
                ck_assert(w->center_y_m == 0.0);
                ck_assert(w->spin_rate_radps == 0.0);
            }
            ck_assert(vs->wheels[0]->center_x_m == st_def->chassis.cg_to_front_axle_m);
            ck_assert(vs->wheels[0]->steer_rad != 0.0);
        } else {
            ck_assert_uint_eq(vc->n_wheels, 0);
            ck_assert_uint_eq(vs->n_wheels, 0);
        }
        if (fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_INSTRUMENTS) {
            assert_instruments(vc->instruments, car_ch);
            assert_instruments(vs->instruments, st_ch);
            ck_assert_int_eq(vc->instruments->gear, PADDOCK__V1__GEAR__GEAR_DRIVE);
            ck_assert_double_gt(vc->instruments->speed_mps, 5.0);
            ck_assert_double_gt(vc->instruments->throttle_pct, 0.0);
        } else {
            ck_assert_ptr_null(vc->instruments);
            ck_assert_ptr_null(vs->instruments);
        }
        if (fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_STEERING_FEEL) {
            ck_assert(vc->steering_wheel_torque_nm == car_ch[PDK_CH_STEERING_WHEEL_TORQUE]);
        } else {
            ck_assert(vc->steering_wheel_torque_nm == 0.0);
        }
        paddock__v1__state_batch__free_unpacked(b, NULL);
        if (fields == 0) {
            /* The pose alone is the batch of before, bytes and all. */
            pdk_vehicle_id both[2] = {car, single};
            pdk_buf want = reference_batch_at(tw.world, 3, 0, both, 2, false, WALL_NS);
            ck_assert_uint_eq(common.len, want.len);
            ck_assert_mem_eq(common.data, want.data, want.len);
            pdk_buf_free(&want);
        }
        pdk_buf_free(&common);
    }

    /* A bit StateField does not have is refused, and nothing appended. */
    pdk_buf out = {0};
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 3, 0, 8, NULL, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 3, 0, 1u << 31, NULL, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    pdk_buf_free(&out);
    free(tw.mem);
}
END_TEST

/* One vehicle's VehicleState alone is, byte for byte, the batch's entry
 * for it (what MCAP export writes per vehicle); a dead id and an unknown
 * StateField bit are refused with nothing appended. */
START_TEST(vehicle_state_alone_is_the_batch_entry)
{
    test_world tw = world_make();
    pdk_vehicle_id a = spawn_at(tw.world, 0.0, 0.0, 0.0, 8.0);
    pdk_vehicle_id b = spawn_at(tw.world, 20.0, 5.0, 0.3, 4.0);
    for (int i = 0; i < 60; i++) {
        pdk_world_step(tw.world);
    }
    pdk_buf batch = {0};
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 9, 0, PDK_WIRE_STATE_FIELDS_KNOWN, NULL, 0,
                                           &batch),
                     PDK_OK);
    Paddock__V1__StateBatch *sb = paddock__v1__state_batch__unpack(NULL, batch.len, batch.data);
    ck_assert_ptr_nonnull(sb);
    ck_assert_uint_eq(sb->n_vehicles, 2);
    pdk_vehicle_id ids[2] = {a, b};
    for (size_t i = 0; i < 2; i++) {
        pdk_buf one = {0};
        ck_assert_int_eq(
            pdk_wire_vehicle_state_append(tw.world, ids[i], PDK_WIRE_STATE_FIELDS_KNOWN, &one),
            PDK_OK);
        size_t want_len = paddock__v1__vehicle_state__get_packed_size(sb->vehicles[i]);
        uint8_t *want = malloc(want_len);
        ck_assert_ptr_nonnull(want);
        paddock__v1__vehicle_state__pack(sb->vehicles[i], want);
        ck_assert_uint_eq(one.len, want_len);
        ck_assert_mem_eq(one.data, want, want_len);
        Paddock__V1__VehicleState *vs =
            paddock__v1__vehicle_state__unpack(NULL, one.len, one.data);
        ck_assert_ptr_nonnull(vs);
        ck_assert_uint_eq(vs->vehicle_id, ids[i]);
        ck_assert_uint_eq(vs->n_wheels, 4);
        ck_assert_ptr_nonnull(vs->instruments);
        paddock__v1__vehicle_state__free_unpacked(vs, NULL);
        free(want);
        pdk_buf_free(&one);
    }
    paddock__v1__state_batch__free_unpacked(sb, NULL);
    pdk_buf_free(&batch);

    pdk_buf out = {0};
    ck_assert_int_eq(pdk_world_remove(tw.world, b), PDK_OK);
    ck_assert_int_eq(pdk_wire_vehicle_state_append(tw.world, b, 0, &out), PDK_ERR_STALE_ID);
    ck_assert_int_eq(pdk_wire_vehicle_state_append(tw.world, a, 8, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_vehicle_state_append(NULL, a, 0, &out), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    pdk_buf_free(&out);
    free(tw.mem);
}
END_TEST

START_TEST(state_frame_merges_subscription_id)
{
    test_world tw = world_make();
    pdk_vehicle_id ids[2];
    ids[0] = spawn_at(tw.world, 1.0, 2.0, 0.5, 3.0);
    ids[1] = spawn_at(tw.world, -8.0, 4.0, -0.5, 9.0);
    pdk_world_step(tw.world);
    pdk_buf common = {0};
    ck_assert_int_eq(pdk_wire_state_common(tw.world, 1234, WALL_NS, 0, NULL, 0, &common), PDK_OK);

    static const uint32_t subs[] = {1, 127, 128, 300, 0x7fffffffu, UINT32_MAX, 0};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        pdk_buf out = {0};
        ck_assert_int_eq(pdk_buf_append(&out, "\x01\x02", 2), PDK_OK); /* appends after */
        frame_of_head_append(&out, pdk_wire_state_frame_head, subs[i], &common);
        ck_assert_mem_eq(out.data, "\x01\x02", 2);
        pdk_buf frame_bytes = {0};
        ck_assert_int_eq(pdk_buf_append(&frame_bytes, out.data + 2, out.len - 2), PDK_OK);

        /* Byte for byte what protobuf-c packs for the whole Frame. */
        pdk_buf want = reference_batch_at(tw.world, 1234, subs[i], ids, 2, true, WALL_NS);
        ck_assert_uint_eq(frame_bytes.len, want.len);
        ck_assert_mem_eq(frame_bytes.data, want.data, want.len);

        size_t len = 0;
        const uint8_t *body = frame_body(&frame_bytes, &len);
        pdk_error err = PDK_ERR_IO;
        Paddock__V1__Frame *got = pdk_wire_frame_decode(body, len, &err);
        ck_assert_ptr_nonnull(got);
        ck_assert_int_eq(got->body_case, PADDOCK__V1__FRAME__BODY_STATE_BATCH);
        ck_assert_uint_eq(got->request_id, 0);
        const Paddock__V1__StateBatch *sb = got->state_batch;
        ck_assert_uint_eq(sb->subscription_id, subs[i]);
        ck_assert_uint_eq(sb->session_id, 1234);
        ck_assert_uint_eq(sb->tick, 1);
        ck_assert_uint_eq(sb->wall_time_ns, WALL_NS);
        ck_assert_uint_eq(sb->n_vehicles, 2);
        for (int v = 0; v < 2; v++) {
            pdk_vehicle_pose pose;
            ck_assert_int_eq(pdk_world_vehicle_pose(tw.world, ids[v], &pose), PDK_OK);
            assert_state_matches_pose(sb->vehicles[v], &pose);
        }
        pdk_wire_frame_free(got);
        pdk_buf_free(&want);
        pdk_buf_free(&frame_bytes);
        pdk_buf_free(&out);
    }

    /* An empty world still makes a valid batch. */
    test_world empty = world_make();
    pdk_buf_reset(&common);
    ck_assert_int_eq(pdk_wire_state_common(empty.world, 9, 0, 0, NULL, 0, &common), PDK_OK);
    pdk_buf out = {0};
    frame_of_head_append(&out, pdk_wire_state_frame_head, 3, &common);
    size_t len = 0;
    const uint8_t *body = frame_body(&out, &len);
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *got = pdk_wire_frame_decode(body, len, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got->state_batch->subscription_id, 3);
    ck_assert_uint_eq(got->state_batch->session_id, 9);
    ck_assert_uint_eq(got->state_batch->n_vehicles, 0);
    pdk_wire_frame_free(got);
    /* No frame holds a body of more than half the address space. */
    uint8_t head[PDK_WIRE_FRAME_HEAD_MAX];
    ck_assert_uint_eq(pdk_wire_state_frame_head(3, SIZE_MAX / 2 + 1, head), 0);
    ck_assert_uint_gt(pdk_wire_state_frame_head(3, SIZE_MAX / 2, head), 0);
    pdk_buf_free(&out);
    pdk_buf_free(&common);
    free(empty.mem);
    free(tw.mem);
}
END_TEST

/* pdk_wire_body_read: a body decodes as its message and take's answer
 * comes back; bytes that are not the message are PDK_ERR_PARSE, and a
 * missing descriptor, take or body INVALID_ARGUMENT, take never called. */
static pdk_error take_remove_id(const ProtobufCMessage *msg, void *ud)
{
    *(uint32_t *)ud = ((const Paddock__V1__VehicleRemove *)msg)->vehicle_id;
    return PDK_ERR_STALE_ID;
}

START_TEST(body_read_hands_the_message_and_refuses_bad_bodies)
{
    pdk_buf b = {0};
    Paddock__V1__VehicleRemove m = PADDOCK__V1__VEHICLE_REMOVE__INIT;
    m.vehicle_id = 0x30002u;
    ck_assert_int_eq(pdk_wire_pack_append(&b, &m.base), PDK_OK);
    const ProtobufCMessageDescriptor *desc = &paddock__v1__vehicle_remove__descriptor;
    uint32_t id = 0;
    ck_assert_int_eq(pdk_wire_body_read(desc, b.data, b.len, take_remove_id, &id),
                     PDK_ERR_STALE_ID);
    ck_assert_uint_eq(id, 0x30002u);

    static const uint8_t torn[] = {0x0a, 0x05, 'a'};
    id = 0;
    ck_assert_int_eq(pdk_wire_body_read(desc, torn, sizeof torn, take_remove_id, &id),
                     PDK_ERR_PARSE);
    ck_assert_int_eq(pdk_wire_body_read(NULL, b.data, b.len, take_remove_id, &id),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_body_read(desc, b.data, b.len, NULL, &id), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_body_read(desc, NULL, 3, take_remove_id, &id),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(id, 0);
    pdk_buf_free(&b);
}
END_TEST

static Suite *wire_suite(void)
{
    Suite *s = suite_create("wire");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, buf_append_reset_free);
    tcase_add_test(tc, vehicle_state_alone_is_the_batch_entry);
    tcase_add_test(tc, buf_reserve_overflow_is_no_memory);
    tcase_add_loop_test(tc, varint_known_encodings, 0,
                        (int)(sizeof varint_cases / sizeof varint_cases[0]));
    tcase_add_test(tc, varint_matches_protobuf_c);
    tcase_add_test(tc, varint_overlong_is_malformed);
    tcase_add_test(tc, frame_round_trip);
    tcase_add_test(tc, frame_check_refuses_all_but_one_whole_frame);
    tcase_add_test(tc, frame_decode_refuses_non_frames);
    tcase_add_test(tc, frame_decode_budget_refuses_amplification);
    tcase_add_test(tc, frame_decode_survives_mutations);
    tcase_add_test(tc, schema_is_not_recursive);
    tcase_add_test(tc, error_frame_round_trip);
    tcase_add_test(tc, error_codes_mirror_pdk_error);
    tcase_add_test(tc, gear_mapping_follows_dbw2_numbers);
    tcase_add_test(tc, dbw_from_pb_sets_only_present_fields);
    tcase_add_test(tc, dbw_round_trip_every_field_subset);
    tcase_add_test(tc, dbw_encode_equals_protobuf_c_pack);
    tcase_add_test(tc, dbw_decode_refuses_garbage);
    tcase_add_test(tc, tyre_round_trip_every_action);
    tcase_add_test(tc, tyre_from_pb_names_what_is_wrong);
    tcase_add_test(tc, tyre_decode_refuses_garbage_and_invalid_commands);
    tcase_add_test(tc, state_from_pose_copies_every_field);
    tcase_add_test(tc, state_common_equals_protobuf_c_pack);
    tcase_add_test(tc, state_split_parts_are_protobuf_c_batches);
    tcase_add_test(tc, state_common_carries_teleport_counts);
    tcase_add_test(tc, state_common_fields_are_the_channels);
    tcase_add_test(tc, state_frame_merges_subscription_id);
    tcase_add_test(tc, body_read_hands_the_message_and_refuses_bad_bodies);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
