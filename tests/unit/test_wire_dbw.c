/* Unit tests for server/wire/wire_dbw.c, wire's half of the DBW kit:
 * DbwMessage to and from pdk_dbw_msg (round trips of every kind, exact
 * conversions, refusals that name the field) and the kit's reports encoded
 * as DbwReport frames, one per report kind. protobuf-c itself is the oracle
 * wherever wire writes bytes by hand. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "wire_test_util.h"

/* ---- DBW kit messages ---------------------------------------------------- */

/* One message of each kind, every value exact in float32 so the recorded
 * form (float fields) gives it back to the bit. */
static pdk_dbw_msg kit_msg(int kind)
{
    pdk_dbw_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    /* Only the kinds whose kit frame carries a CRC (dbw.h pdk_dbw_crc8). */
    bool has_crc = kind <= PDK_DBW_MSG_ULC || kind == PDK_DBW_MSG_SYSTEM;
    m.crc = has_crc && kind % 2 ? 0xA7 : -1;
    switch (kind) {
    case PDK_DBW_MSG_STEER:
    case PDK_DBW_MSG_BRAKE:
    case PDK_DBW_MSG_THROTTLE:
        m.u.chan = (pdk_dbw_chan_cmd){.cmd = -123.25 + kind,
                                      .rate_a = INFINITY,
                                      .rate_b = 0.5,
                                      .cmd_type = 14,
                                      .enable = 1,
                                      .clear = kind == PDK_DBW_MSG_BRAKE,
                                      .ignore = kind == PDK_DBW_MSG_THROTTLE,
                                      .rc = (uint8_t)(kind + 9)};
        break;
    case PDK_DBW_MSG_GEAR:
        m.u.value = PDK_GEAR_REVERSE;
        break;
    case PDK_DBW_MSG_ULC:
        m.u.ulc = (pdk_dbw_ulc_cmd){.cmd = 12.5,
                                    .limit_accel = 1.5,
                                    .limit_decel = INFINITY,
                                    .limit_jerk_throttle = 0.0,
                                    .limit_jerk_brake = 24.75,
                                    .cmd_type = PDK_ULC_CMD_VELOCITY,
                                    .enable = 1,
                                    .clear = 0,
                                    .enable_shift = 1,
                                    .enable_shift_park = 0,
                                    .coast_decel = 1,
                                    .rc = 15};
        break;
    case PDK_DBW_MSG_SYSTEM:
        m.u.system = (pdk_dbw_system_cmd){.cmd = PDK_DBW_SYS_ENABLE,
                                          .sync_mode = 2,
                                          .validate_crc = 0,
                                          .comms_loss_arm = 1,
                                          .rc = 3};
        break;
    case PDK_DBW_MSG_FAULT:
        m.u.fault = (pdk_dbw_fault_cmd){
            .kind = PDK_FAULT_REPORT_DROP, .target = PDK_RPT_GNSS, .value = 0.1};
        break;
    case PDK_DBW_MSG_AW_CONTROL:
        m.u.aw = (pdk_dbw_aw_control){.steering_tire_angle_rad = -0.1,
                                      .steering_tire_rate_radps = 0.3,
                                      .velocity_mps = 8.3,
                                      .acceleration_mps2 = -1.1,
                                      .jerk_mps3 = 0.7,
                                      .rate_defined = 1,
                                      .accel_defined = 0,
                                      .jerk_defined = 1};
        break;
    default: /* TURN_SIGNAL, MISC, DRIVE_MODE, BUTTON, AW_GEAR, AW_MODE */
        m.u.value = 20 + kind;
        break;
    }
    return m;
}

static void assert_kit_msg_eq(const pdk_dbw_msg *a, const pdk_dbw_msg *b)
{
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_int_eq(a->crc, b->crc);
    switch (a->kind) {
    case PDK_DBW_MSG_STEER:
    case PDK_DBW_MSG_BRAKE:
    case PDK_DBW_MSG_THROTTLE:
        ck_assert_double_eq(a->u.chan.cmd, b->u.chan.cmd);
        ck_assert_double_eq(a->u.chan.rate_a, b->u.chan.rate_a);
        ck_assert_double_eq(a->u.chan.rate_b, b->u.chan.rate_b);
        ck_assert_int_eq(a->u.chan.cmd_type, b->u.chan.cmd_type);
        ck_assert_uint_eq(a->u.chan.enable, b->u.chan.enable);
        ck_assert_uint_eq(a->u.chan.clear, b->u.chan.clear);
        ck_assert_uint_eq(a->u.chan.ignore, b->u.chan.ignore);
        ck_assert_uint_eq(a->u.chan.rc, b->u.chan.rc);
        break;
    case PDK_DBW_MSG_ULC:
        ck_assert_double_eq(a->u.ulc.cmd, b->u.ulc.cmd);
        ck_assert_double_eq(a->u.ulc.limit_accel, b->u.ulc.limit_accel);
        ck_assert_double_eq(a->u.ulc.limit_decel, b->u.ulc.limit_decel);
        ck_assert_double_eq(a->u.ulc.limit_jerk_throttle, b->u.ulc.limit_jerk_throttle);
        ck_assert_double_eq(a->u.ulc.limit_jerk_brake, b->u.ulc.limit_jerk_brake);
        ck_assert_int_eq(a->u.ulc.cmd_type, b->u.ulc.cmd_type);
        ck_assert_uint_eq(a->u.ulc.enable, b->u.ulc.enable);
        ck_assert_uint_eq(a->u.ulc.clear, b->u.ulc.clear);
        ck_assert_uint_eq(a->u.ulc.enable_shift, b->u.ulc.enable_shift);
        ck_assert_uint_eq(a->u.ulc.enable_shift_park, b->u.ulc.enable_shift_park);
        ck_assert_uint_eq(a->u.ulc.coast_decel, b->u.ulc.coast_decel);
        ck_assert_uint_eq(a->u.ulc.rc, b->u.ulc.rc);
        break;
    case PDK_DBW_MSG_SYSTEM:
        ck_assert_int_eq(a->u.system.cmd, b->u.system.cmd);
        ck_assert_int_eq(a->u.system.sync_mode, b->u.system.sync_mode);
        ck_assert_int_eq(a->u.system.validate_crc, b->u.system.validate_crc);
        ck_assert_int_eq(a->u.system.comms_loss_arm, b->u.system.comms_loss_arm);
        ck_assert_uint_eq(a->u.system.rc, b->u.system.rc);
        break;
    case PDK_DBW_MSG_FAULT:
        ck_assert_int_eq(a->u.fault.kind, b->u.fault.kind);
        ck_assert_int_eq(a->u.fault.target, b->u.fault.target);
        ck_assert_double_eq(a->u.fault.value, b->u.fault.value);
        break;
    case PDK_DBW_MSG_AW_CONTROL:
        ck_assert_double_eq(a->u.aw.steering_tire_angle_rad, b->u.aw.steering_tire_angle_rad);
        ck_assert_double_eq(a->u.aw.steering_tire_rate_radps, b->u.aw.steering_tire_rate_radps);
        ck_assert_double_eq(a->u.aw.velocity_mps, b->u.aw.velocity_mps);
        ck_assert_double_eq(a->u.aw.acceleration_mps2, b->u.aw.acceleration_mps2);
        ck_assert_double_eq(a->u.aw.jerk_mps3, b->u.aw.jerk_mps3);
        ck_assert_uint_eq(a->u.aw.rate_defined, b->u.aw.rate_defined);
        ck_assert_uint_eq(a->u.aw.accel_defined, b->u.aw.accel_defined);
        ck_assert_uint_eq(a->u.aw.jerk_defined, b->u.aw.jerk_defined);
        break;
    default:
        ck_assert_int_eq(a->u.value, b->u.value);
        break;
    }
}

/* Appends an unknown field (99, length-delimited) of n zero bytes to buf,
 * which protobuf-c keeps with the message it decodes. */
static void append_unknown(pdk_buf *buf, size_t n)
{
    uint8_t head[8] = {0x9a, 0x06}; /* (99 << 3) | 2 */
    size_t k = 2;
    for (size_t v = n; k < sizeof head; v >>= 7) {
        head[k++] = (uint8_t)((v & 0x7fu) | (v > 0x7fu ? 0x80u : 0u));
        if (v <= 0x7fu)
            break;
    }
    ck_assert_int_eq(pdk_buf_reserve(buf, k + n), PDK_OK);
    memcpy(buf->data + buf->len, head, k);
    memset(buf->data + buf->len + k, 0, n);
    buf->len += k + n;
}

/* Decodes take their memory from a small arena on the stack, and a
 * message that needs more (a large unknown field: protobuf-c keeps a copy)
 * from the heap instead: either way the same decode, of every kind, and of
 * a DbwCommand. */
START_TEST(dbw_decodes_past_the_arena)
{
    static const size_t extra[] = {0, 16, 1500, 3000, 20000};
    for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++) {
        for (int kind = PDK_DBW_MSG_STEER; kind <= PDK_DBW_MSG_AW_MODE; kind++) {
            pdk_dbw_msg in = kit_msg(kind);
            pdk_buf buf = {0};
            ck_assert_int_eq(pdk_wire_dbw_msg_encode(42, 7, &in, &buf), PDK_OK);
            append_unknown(&buf, extra[e]);
            pdk_dbw_msg out;
            memset(&out, 0x5a, sizeof out);
            pdk_vehicle_id id = 0;
            ck_assert_int_eq(pdk_wire_dbw_msg_decode(buf.data, buf.len, &out, &id), PDK_OK);
            ck_assert_uint_eq(id, 7);
            assert_kit_msg_eq(&in, &out);
            /* Cut inside the unknown field: not a message, in either path. */
            ck_assert_int_eq(pdk_wire_dbw_msg_decode(buf.data, buf.len - 1, &out, &id),
                             PDK_ERR_PROTOCOL);
            pdk_buf_free(&buf);
        }
        pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                           .throttle_pct = 37.5,
                           .steer_wheel_deg = -12.0};
        pdk_buf buf = {0};
        ck_assert_int_eq(pdk_wire_dbw_encode(3, 9, &cmd, &buf), PDK_OK);
        append_unknown(&buf, extra[e]);
        pdk_dbw_cmd back;
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_wire_dbw_decode(buf.data, buf.len, &back, &id), PDK_OK);
        ck_assert_uint_eq(id, 9);
        ck_assert_uint_eq(back.fields, cmd.fields);
        ck_assert_double_eq(back.throttle_pct, 37.5);
        ck_assert_double_eq(back.steer_wheel_deg, -12.0);
        ck_assert_int_eq(pdk_wire_dbw_decode(buf.data, buf.len - 1, &back, &id), PDK_ERR_PROTOCOL);
        pdk_buf_free(&buf);
    }
}
END_TEST

/* Every kind survives encode and decode to the bit, and protobuf-c reads
 * the fields where the proto puts them. */
START_TEST(dbw_msg_round_trip_every_kind)
{
    for (int kind = PDK_DBW_MSG_STEER; kind <= PDK_DBW_MSG_AW_MODE; kind++) {
        pdk_dbw_msg in = kit_msg(kind);
        pdk_buf buf = {0};
        ck_assert_int_eq(pdk_wire_dbw_msg_encode(42, 0x00020001u, &in, &buf), PDK_OK);
        Paddock__V1__DbwMessage *pb = paddock__v1__dbw_message__unpack(NULL, buf.len, buf.data);
        ck_assert_ptr_nonnull(pb);
        ck_assert_uint_eq(pb->session_id, 42);
        ck_assert_uint_eq(pb->vehicle_id, 0x00020001u);
        /* The oneof's cases run 10.. in pdk_dbw_msg_kind's order. */
        ck_assert_int_eq((int)pb->msg_case, kind + 9);
        if (kind == PDK_DBW_MSG_STEER) {
            ck_assert_float_eq(pb->steering->cmd, -122.25f);
            ck_assert_int_eq(pb->steering->crc_set_case, PADDOCK__V1__STEERING_CMD__CRC_SET_CRC);
            ck_assert_uint_eq(pb->steering->crc, 0xA7);
        }
        if (kind == PDK_DBW_MSG_BRAKE) {
            ck_assert_int_eq(pb->brake->crc_set_case, PADDOCK__V1__BRAKE_CMD__CRC_SET__NOT_SET);
        }
        if (kind == PDK_DBW_MSG_SYSTEM) {
            ck_assert_int_eq(pb->system->sync_mode_set_case,
                             PADDOCK__V1__SYSTEM_CMD__SYNC_MODE_SET_SYNC_MODE);
            ck_assert_uint_eq(pb->system->sync_mode, 2);
            ck_assert(!pb->system->validate_cmd_crc_rc);
            ck_assert(pb->system->comms_loss_arm);
        }
        if (kind == PDK_DBW_MSG_GEAR) {
            ck_assert_int_eq(pb->gear->cmd, PADDOCK__V1__GEAR__GEAR_REVERSE);
        }
        paddock__v1__dbw_message__free_unpacked(pb, NULL);

        pdk_dbw_msg out;
        memset(&out, 0x5a, sizeof out);
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_wire_dbw_msg_decode(buf.data, buf.len, &out, &id), PDK_OK);
        ck_assert_uint_eq(id, 0x00020001u);
        assert_kit_msg_eq(&in, &out);
        pdk_buf_free(&buf);
    }
    /* "Keep" (-1) in a SystemCmd is an absent oneof, and comes back -1. */
    pdk_dbw_msg keep = kit_msg(PDK_DBW_MSG_SYSTEM);
    keep.u.system.sync_mode = keep.u.system.validate_crc = keep.u.system.comms_loss_arm = -1;
    pdk_buf buf = {0};
    ck_assert_int_eq(pdk_wire_dbw_msg_encode(1, 1, &keep, &buf), PDK_OK);
    Paddock__V1__DbwMessage *pb = paddock__v1__dbw_message__unpack(NULL, buf.len, buf.data);
    ck_assert_int_eq(pb->system->sync_mode_set_case,
                     PADDOCK__V1__SYSTEM_CMD__SYNC_MODE_SET__NOT_SET);
    ck_assert_int_eq(pb->system->validate_set_case, PADDOCK__V1__SYSTEM_CMD__VALIDATE_SET__NOT_SET);
    ck_assert_int_eq(pb->system->comms_loss_set_case,
                     PADDOCK__V1__SYSTEM_CMD__COMMS_LOSS_SET__NOT_SET);
    paddock__v1__dbw_message__free_unpacked(pb, NULL);
    pdk_dbw_msg out;
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(buf.data, buf.len, &out, NULL), PDK_OK);
    assert_kit_msg_eq(&keep, &out);
    pdk_buf_free(&buf);
    /* A kind without a CRC on the kit writes none. */
    pdk_dbw_msg turn = kit_msg(PDK_DBW_MSG_TURN_SIGNAL);
    turn.crc = 5;
    ck_assert_int_eq(pdk_wire_dbw_msg_encode(1, 1, &turn, &buf), PDK_OK);
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(buf.data, buf.len, &out, NULL), PDK_OK);
    ck_assert_int_eq(out.crc, -1);
    ck_assert_int_eq(out.u.value, turn.u.value);
    pdk_buf_reset(&buf);
    /* An unknown kind has no recorded form. */
    pdk_dbw_msg bad = {.kind = 99};
    ck_assert_int_eq(pdk_wire_dbw_msg_encode(1, 1, &bad, &buf), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_dbw_msg_encode(1, 1, NULL, &buf), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(buf.len, 0);
    pdk_buf_free(&buf);
}
END_TEST

/* The kit's floats become doubles exactly; an absent crc is -1; values
 * beyond int32 or a rolling counter beyond a byte are clamped so that sim
 * still sees them out of range. */
START_TEST(dbw_msg_from_pb_converts_exactly)
{
    Paddock__V1__ThrottleCmd t = PADDOCK__V1__THROTTLE_CMD__INIT;
    t.cmd = 0.1f;
    t.rate_inc = 1e-7f;
    t.rate_dec = (float)INFINITY;
    t.cmd_type = 0xFFFFFFFFu;
    t.rc = 1000;
    t.enable = 1;
    Paddock__V1__DbwMessage m = PADDOCK__V1__DBW_MESSAGE__INIT;
    m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_THROTTLE;
    m.throttle = &t;
    pdk_dbw_msg out;
    char why[160];
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&m, &out, why, sizeof why), PDK_OK);
    ck_assert_str_eq(why, "");
    ck_assert_int_eq(out.kind, PDK_DBW_MSG_THROTTLE);
    ck_assert_int_eq(out.crc, -1);
    ck_assert(out.u.chan.cmd == (double)0.1f);
    ck_assert(out.u.chan.rate_a == (double)1e-7f);
    ck_assert(isinf(out.u.chan.rate_b));
    ck_assert_int_eq(out.u.chan.cmd_type, INT32_MAX);
    ck_assert_uint_eq(out.u.chan.rc, 255);
    ck_assert_uint_eq(out.u.chan.enable, 1);

    Paddock__V1__SystemCmd sys = PADDOCK__V1__SYSTEM_CMD__INIT;
    sys.cmd = 2;
    Paddock__V1__DbwMessage ms = PADDOCK__V1__DBW_MESSAGE__INIT;
    ms.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_SYSTEM;
    ms.system = &sys;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&ms, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.u.system.cmd, PDK_DBW_SYS_DISABLE);
    ck_assert_int_eq(out.u.system.sync_mode, -1);
    ck_assert_int_eq(out.u.system.validate_crc, -1);
    ck_assert_int_eq(out.u.system.comms_loss_arm, -1);
    sys.sync_mode_set_case = PADDOCK__V1__SYSTEM_CMD__SYNC_MODE_SET_SYNC_MODE;
    sys.sync_mode = 0;
    sys.validate_set_case = PADDOCK__V1__SYSTEM_CMD__VALIDATE_SET_VALIDATE_CMD_CRC_RC;
    sys.validate_cmd_crc_rc = 0;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&ms, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.u.system.sync_mode, 0);
    ck_assert_int_eq(out.u.system.validate_crc, 0);

    Paddock__V1__AwGearCommand g = PADDOCK__V1__AW_GEAR_COMMAND__INIT;
    g.command = PADDOCK__V1__AW_GEAR__AW_GEAR_PARK;
    Paddock__V1__DbwMessage mg = PADDOCK__V1__DBW_MESSAGE__INIT;
    mg.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_AW_GEAR;
    mg.aw_gear = &g;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&mg, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.kind, PDK_DBW_MSG_AW_GEAR);
    ck_assert_int_eq(out.u.value, PDK_AW_GEAR_PARK);
}
END_TEST

/* What the message alone decides is refused here, naming the field. */
START_TEST(dbw_msg_from_pb_names_what_is_wrong)
{
    pdk_dbw_msg out;
    char why[256];
    Paddock__V1__DbwMessage empty = PADDOCK__V1__DBW_MESSAGE__INIT;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&empty, &out, why, sizeof why),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(why, "carries no message") != NULL, "%s", why);
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(NULL, &out, why, sizeof why),
                     PDK_ERR_INVALID_ARGUMENT);

    Paddock__V1__SteeringCmd st = PADDOCK__V1__STEERING_CMD__INIT;
    st.crc_set_case = PADDOCK__V1__STEERING_CMD__CRC_SET_CRC;
    st.crc = 256;
    Paddock__V1__DbwMessage m = PADDOCK__V1__DBW_MESSAGE__INIT;
    m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_STEERING;
    m.steering = &st;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&m, &out, why, sizeof why), PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(why, "steering.crc 256") != NULL, "%s", why);
    st.crc = 255;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&m, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.crc, 255);

    Paddock__V1__GearCmd gc = PADDOCK__V1__GEAR_CMD__INIT;
    gc.cmd = (Paddock__V1__Gear)9;
    Paddock__V1__DbwMessage mg = PADDOCK__V1__DBW_MESSAGE__INIT;
    mg.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_GEAR;
    mg.gear = &gc;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&mg, &out, why, sizeof why), PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(why, "gear.cmd 9 is not a DBW2 gear") != NULL, "%s", why);
    gc.cmd = PADDOCK__V1__GEAR__GEAR_DRIVE;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&mg, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.u.value, PDK_GEAR_DRIVE);

    Paddock__V1__SystemCmd sys = PADDOCK__V1__SYSTEM_CMD__INIT;
    sys.crc_set_case = PADDOCK__V1__SYSTEM_CMD__CRC_SET_CRC;
    sys.crc = 0x1FF;
    Paddock__V1__DbwMessage ms = PADDOCK__V1__DBW_MESSAGE__INIT;
    ms.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_SYSTEM;
    ms.system = &sys;
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(&ms, &out, why, sizeof why), PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(why, "system.crc 511") != NULL, "%s", why);

    /* Garbage and a valid DbwMessage with nothing set, from the recording. */
    static const uint8_t garbage[] = {0x52, 0x40, 0x00}; /* field 10 as LEN, past the end */
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(garbage, sizeof garbage, &out, NULL),
                     PDK_ERR_PROTOCOL);
    static const uint8_t nothing[] = {0x08, 0x01}; /* session_id 1 */
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(nothing, sizeof nothing, &out, NULL),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_dbw_msg_decode(NULL, 3, &out, NULL), PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- DBW reports --------------------------------------------------------- */

static pdk_dbw_report sample_report(void)
{
    pdk_dbw_report r;
    memset(&r, 0, sizeof r);
    r.tick = 240;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        r.ch[c] = (pdk_dbw_chan_report){.cmd = 10.5 + c,
                                        .input = 2.25 + c,
                                        .output = 7.75 + c,
                                        .limit_value = 400.0 + c,
                                        .limit_rate = 250.0 + c,
                                        .cmd_type = 14,
                                        .cmd_src = PDK_DBW_SRC_COMMS_LOSS,
                                        .ready = 1,
                                        .enabled = c != 1,
                                        .timeout = c == 2,
                                        .bad_rc = c == 0,
                                        .override_latched = 1,
                                        .degraded = c == 1};
    }
    r.ch[PDK_DBW_CH_BRAKE].cmd_type = PDK_BRAKE_CMD_PRESSURE;
    r.steering_wheel_angle_deg = -45.5;
    r.road_wheel_angle_deg = -3.25;
    r.brake_torque_cmd_nm = 1500;
    r.brake_torque_output_nm = 1250;
    r.brake_accel_cmd_mps2 = -2.5;
    r.brake_accel_output_mps2 = -2.25;
    r.brake_percent_output = 33.5;
    r.comms_loss_armed = 1;
    r.req_park_brake = 1;
    r.brake_available_s = 12.5;
    r.gear = PDK_GEAR_DRIVE;
    r.gear_cmd = PDK_GEAR_REVERSE;
    r.gear_driver = PDK_GEAR_PARK;
    r.gear_reject = PDK_DBW_REJECT_VEHICLE_SPEED;
    r.gear_number = 3;
    r.gear_ready = 1;
    r.state = PDK_DBW_ACTIVE;
    r.sync_mode = PDK_DBW_SYNC_ALL_OR_NONE;
    r.reason_disengage = PDK_DIS_THRTL_CMD_TIMEOUT;
    r.reason_not_ready = PDK_NR_MISSING_CMD_BRAKE;
    r.sys_enabled = 1;
    r.validate_crc = 1;
    r.sys_bad_rc = 1;
    r.ulc_cmd_type = PDK_ULC_CMD_VELOCITY;
    r.ulc_vel_ref = 9.5;
    r.ulc_vel_meas = 9.25;
    r.ulc_preempted = 1;
    r.velocity_brake_mps = 9.5;
    r.velocity_propulsion_mps = 9.75;
    for (int w = 0; w < 4; w++)
        r.wheel_speed_radps[w] = 30.0 + w;
    r.accel_mps2[0] = 0.1;
    r.accel_mps2[2] = 9.81;
    r.gyro_radps[2] = 0.2;
    r.gnss_x_m = 1234.5;
    r.gnss_y_m = -6.5;
    r.gnss_valid = 1;
    r.turn_signal = 3;
    r.parking_brake = 2;
    r.drive_mode = 1;
    r.aw_mode = PDK_AW_MODE_AUTONOMOUS;
    r.aw_gear = PDK_AW_GEAR_DRIVE;
    r.aw_longitudinal_mps = 9.5;
    r.aw_heading_rate_radps = 0.2;
    r.aw_tire_angle_rad = -0.05;
    return r;
}

/* Encodes kind with subscription 7 and decodes the whole frame. */
static Paddock__V1__Frame *report_frame(const pdk_dbw_report *r, int kind)
{
    pdk_buf common = {0};
    ck_assert_int_eq(
        pdk_wire_dbw_report_common(9, 0x00010003u, 1.0 / 120.0, kind, r,
                                   PADDOCK__V1__CONTROL_SOURCE__CONTROL_SOURCE_AUTONOMY, &common),
        PDK_OK);
    pdk_buf out = {0};
    ck_assert_int_eq(pdk_wire_dbw_report_frame_append(&out, 7, common.data, common.len), PDK_OK);
    size_t len = 0;
    const uint8_t *body = frame_body(&out, &len);
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(body, len, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_DBW_REPORT);
    ck_assert_uint_eq(f->request_id, 0);
    const Paddock__V1__DbwReport *d = f->dbw_report;
    ck_assert_uint_eq(d->subscription_id, 7);
    ck_assert_uint_eq(d->session_id, 9);
    ck_assert_uint_eq(d->vehicle_id, 0x00010003u);
    ck_assert_uint_eq(d->tick, 240);
    ck_assert_double_eq_tol(d->sim_time_s, 2.0, 1e-12);
    ck_assert_int_eq((int)d->report_case, kind + 10);
    pdk_buf_free(&common);
    pdk_buf_free(&out);
    return f;
}

/* One DbwReport per kind, each carrying its block of the kit's report; the
 * subscription id is merged in front of a body encoded once. */
START_TEST(dbw_report_every_kind)
{
    pdk_dbw_report r = sample_report();
    Paddock__V1__Frame *f = report_frame(&r, PDK_RPT_STEER);
    const Paddock__V1__SteeringReport *st = f->dbw_report->steering;
    ck_assert_float_eq(st->steering_wheel_angle, -45.5f);
    ck_assert_float_eq(st->road_wheel_angle, -3.25f);
    ck_assert_float_eq(st->cmd, 10.5f);
    ck_assert_uint_eq(st->cmd_type, 14);
    ck_assert(st->status->ready && st->status->enabled && st->status->bad_rc);
    ck_assert(st->status->override_latched && !st->status->timeout);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_BRAKE);
    const Paddock__V1__BrakeReport *br = f->dbw_report->brake;
    ck_assert_uint_eq(br->cmd_type, PDK_BRAKE_CMD_PRESSURE);
    ck_assert_float_eq(br->pressure_cmd, 11.5f);
    ck_assert_float_eq(br->pressure_input, 3.25f);
    ck_assert_float_eq(br->pressure_output, 8.75f);
    ck_assert_float_eq(br->percent_cmd, 0.0f);
    ck_assert_float_eq(br->torque_cmd, 1500.0f);
    ck_assert_float_eq(br->torque_output, 1250.0f);
    ck_assert_float_eq(br->accel_cmd, -2.5f);
    ck_assert_float_eq(br->accel_output, -2.25f);
    ck_assert_float_eq(br->percent_output, 33.5f);
    ck_assert(!br->status->enabled);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_THROTTLE);
    const Paddock__V1__ThrottleReport *th = f->dbw_report->throttle;
    ck_assert_float_eq(th->percent_cmd, 12.5f);
    ck_assert_float_eq(th->percent_input, 4.25f);
    ck_assert_float_eq(th->percent_output, 9.75f);
    ck_assert(th->status->timeout);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_GEAR);
    const Paddock__V1__GearReport *g = f->dbw_report->gear;
    ck_assert_int_eq(g->gear, PADDOCK__V1__GEAR__GEAR_DRIVE);
    ck_assert_int_eq(g->cmd, PADDOCK__V1__GEAR__GEAR_REVERSE);
    ck_assert_int_eq(g->driver, PADDOCK__V1__GEAR__GEAR_PARK);
    ck_assert_int_eq(g->reject, PADDOCK__V1__GEAR_REJECT__GEAR_REJECT_VEHICLE_SPEED);
    ck_assert_uint_eq(g->gear_num, 3);
    ck_assert(g->ready);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_SYSTEM);
    const Paddock__V1__SystemReport *sy = f->dbw_report->system;
    ck_assert_uint_eq(sy->state, PDK_DBW_ACTIVE);
    ck_assert_uint_eq(sy->system_sync_mode, PDK_DBW_SYNC_ALL_OR_NONE);
    ck_assert_uint_eq(sy->reason_disengage, PDK_DIS_THRTL_CMD_TIMEOUT);
    ck_assert_uint_eq(sy->reason_not_ready, PDK_NR_MISSING_CMD_BRAKE);
    ck_assert_str_eq(sy->reason_disengage_str, pdk_dbw_disengage_name(PDK_DIS_THRTL_CMD_TIMEOUT));
    ck_assert_str_eq(sy->reason_not_ready_str, pdk_dbw_not_ready_name(PDK_NR_MISSING_CMD_BRAKE));
    ck_assert_msg(strstr(sy->reason_disengage_str, "Timeout") != NULL, "%s",
                  sy->reason_disengage_str);
    ck_assert(sy->enabled && sy->validate_cmd_crc_rc && sy->bad_rc && !sy->fault);
    ck_assert_int_eq(sy->active_source, PADDOCK__V1__CONTROL_SOURCE__CONTROL_SOURCE_AUTONOMY);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_ULC);
    const Paddock__V1__UlcReport *u = f->dbw_report->ulc;
    ck_assert_uint_eq(u->cmd_type, PDK_ULC_CMD_VELOCITY);
    ck_assert_float_eq(u->vel_ref, 9.5f);
    ck_assert_float_eq(u->vel_meas, 9.25f);
    ck_assert(u->preempted && !u->enabled);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_WHEEL_SPEEDS);
    const Paddock__V1__WheelSpeeds *w = f->dbw_report->wheel_speeds;
    ck_assert_float_eq(w->front_left, 30.0f);
    ck_assert_float_eq(w->front_right, 31.0f);
    ck_assert_float_eq(w->rear_left, 32.0f);
    ck_assert_float_eq(w->rear_right, 33.0f);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_VEHICLE_VELOCITY);
    ck_assert_float_eq(f->dbw_report->vehicle_velocity->vehicle_velocity_brake, 9.5f);
    ck_assert_float_eq(f->dbw_report->vehicle_velocity->vehicle_velocity_propulsion, 9.75f);
    ck_assert_uint_eq(f->dbw_report->vehicle_velocity->dir_src, 1);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_IMU);
    ck_assert_double_eq(f->dbw_report->imu->accel_x, 0.1);
    ck_assert_double_eq(f->dbw_report->imu->accel_z, 9.81);
    ck_assert_double_eq(f->dbw_report->imu->gyro_z, 0.2);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_GNSS);
    ck_assert(f->dbw_report->gnss->valid);
    ck_assert_double_eq(f->dbw_report->gnss->x_m, 1234.5);
    ck_assert_double_eq(f->dbw_report->gnss->y_m, -6.5);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_SECONDARY);
    const Paddock__V1__DbwSecondary *sec = f->dbw_report->secondary;
    ck_assert_float_eq(sec->steer_limit_value, 400.0f);
    ck_assert_float_eq(sec->steer_limit_rate, 250.0f);
    ck_assert_int_eq(sec->brake_cmd_src, PADDOCK__V1__CMD_SRC__CMD_SRC_COMMS_LOSS);
    ck_assert(sec->brake_degraded && !sec->steer_degraded);
    ck_assert(sec->brake_comms_loss_armed && sec->brake_req_park_brake);
    ck_assert_float_eq(sec->brake_available_duration, 12.5f);
    ck_assert_float_eq(sec->throttle_limit_value, 402.0f);
    ck_assert_uint_eq(sec->turn_signal, 3);
    ck_assert_uint_eq(sec->parking_brake, 2);
    ck_assert_uint_eq(sec->drive_mode, 1);
    pdk_wire_frame_free(f);

    f = report_frame(&r, PDK_RPT_AW_STATUS);
    const Paddock__V1__AwStatus *aw = f->dbw_report->aw_status;
    ck_assert_uint_eq(aw->control_mode, PDK_AW_MODE_AUTONOMOUS);
    ck_assert_uint_eq(aw->gear, PDK_AW_GEAR_DRIVE);
    ck_assert_double_eq(aw->longitudinal_velocity, 9.5);
    ck_assert_double_eq(aw->heading_rate, 0.2);
    ck_assert_double_eq(aw->steering_tire_angle, -0.05);
    pdk_wire_frame_free(f);

    pdk_buf out = {0};
    ck_assert_int_eq(pdk_wire_dbw_report_common(1, 1, 1.0 / 120, PDK_RPT_COUNT, &r, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_dbw_report_common(1, 1, 1.0 / 120, -1, &r, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_dbw_report_common(1, 1, 1.0 / 120, 0, NULL, 0, &out),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_dbw_report_frame_append(&out, 1, NULL, 4), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    pdk_buf_free(&out);
}
END_TEST

/* The kit's name ("SteerCmdTimeout") in the proto's form
 * ("STEER_CMD_TIMEOUT"). */
static void upper_snake(const char *camel, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = camel; *c != '\0' && n + 2 < len; c++) {
        if (*c >= 'A' && *c <= 'Z' && c != camel) {
            out[n++] = '_';
        }
        out[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    }
    out[n] = '\0';
}

/* ReasonDisengage and ReasonNotReady name every code sim has, with sim's
 * name, and no code sim lacks: checked over all the kit's one-byte codes. */
static void check_reasons(const ProtobufCEnumDescriptor *d, const char *prefix,
                          const char *(*sim_name)(int))
{
    for (int code = 0; code <= 255; code++) {
        const char *sim = sim_name(code);
        const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(d, code);
        bool sim_has = strcmp(sim, "Unknown") != 0 || code == 0xFF;
        ck_assert_msg((v != NULL) == sim_has, "%s code 0x%02X: proto %s, sim %s", d->name, code,
                      v != NULL ? v->name : "-", sim);
        if (v == NULL) {
            continue;
        }
        char snake[80];
        char want[96];
        upper_snake(code == 0 ? "None" : sim, snake, sizeof snake);
        snprintf(want, sizeof want, "%s%s", prefix, snake);
        ck_assert_msg(strcmp(v->name, want) == 0, "code 0x%02X: proto %s, wanted %s", code, v->name,
                      want);
    }
}

START_TEST(dbw_reason_enums_mirror_sim)
{
    check_reasons(&paddock__v1__reason_disengage__descriptor, "REASON_DISENGAGE_",
                  pdk_dbw_disengage_name);
    check_reasons(&paddock__v1__reason_not_ready__descriptor, "REASON_NOT_READY_",
                  pdk_dbw_not_ready_name);
}
END_TEST

/* A number no enum value names, in a field that is an enum now, still
 * reaches sim as that number and is refused by name as when the field was
 * uint32; so does a uint32 above INT32_MAX, which decodes as a negative
 * enum. The bytes are built by hand, as an older uint32 sender writes them. */
START_TEST(dbw_unknown_enum_numbers_reach_sim)
{
    /* DbwMessage{vehicle_id 1, steering (10){cmd_type (4) 99}} */
    const uint8_t small[] = {0x10, 0x01, 0x52, 0x02, 0x20, 99};
    /* DbwMessage{vehicle_id 1, system (18){sync_mode (2) 0xFFFFFFFF}}, the
     * value as a 5-byte uint32 varint */
    const uint8_t big[] = {0x10, 0x01, 0x92, 0x01, 0x06, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
    pdk_vehicle_def def = pdk_vehicle_def_default();
    char why[160];
    pdk_dbw_msg out;

    Paddock__V1__DbwMessage *m = paddock__v1__dbw_message__unpack(NULL, sizeof small, small);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq((int)m->steering->cmd_type, 99);
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(m, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.u.chan.cmd_type, 99);
    ck_assert_str_eq(pdk_dbw_msg_problem(&out, &def),
                     "steering cmd_type must be NONE 0, ANGLE 2, CURVATURE 3, YAW_RATE 4 or "
                     "PERCENT 14");
    paddock__v1__dbw_message__free_unpacked(m, NULL);

    m = paddock__v1__dbw_message__unpack(NULL, sizeof big, big);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(pdk_wire_dbw_msg_from_pb(m, &out, why, sizeof why), PDK_OK);
    ck_assert_int_eq(out.u.system.sync_mode, INT32_MAX);
    ck_assert_str_eq(pdk_dbw_msg_problem(&out, &def),
                     "sync_mode must be NONE 0, DISENGAGES 1, ALL_OR_NONE 2 or "
                     "ALL_OR_NONE_WITH_BTN 3");
    paddock__v1__dbw_message__free_unpacked(m, NULL);
}
END_TEST

static Suite *wire_dbw_suite(void)
{
    Suite *s = suite_create("wire_dbw");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, dbw_msg_round_trip_every_kind);
    tcase_add_test(tc, dbw_decodes_past_the_arena);
    tcase_add_test(tc, dbw_msg_from_pb_converts_exactly);
    tcase_add_test(tc, dbw_msg_from_pb_names_what_is_wrong);
    tcase_add_test(tc, dbw_reason_enums_mirror_sim);
    tcase_add_test(tc, dbw_unknown_enum_numbers_reach_sim);
    tcase_add_test(tc, dbw_report_every_kind);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_dbw_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
