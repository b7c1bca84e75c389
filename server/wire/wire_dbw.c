/* wire's half of the DBW kit: DbwMessage to and from sim's pdk_dbw_msg (the
 * kit's commands as they arrive and as they are recorded), and the kit's
 * reports (pdk_dbw_report) as DbwReport bodies, one per report kind, encoded
 * once per tick and shared by every subscriber. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"
#include "wire_internal.h"

/* The proto enums that mirror sim's number for number; a renumbering on
 * either side fails here. */
_Static_assert((int)PADDOCK__V1__DBW_REPORT_KIND__DBW_REPORT_STEERING == (int)PDK_RPT_STEER,
               "DbwReportKind mirrors pdk_dbw_report_kind");
_Static_assert((int)PADDOCK__V1__DBW_REPORT_KIND__DBW_REPORT_SYSTEM == (int)PDK_RPT_SYSTEM,
               "DbwReportKind mirrors pdk_dbw_report_kind");
_Static_assert((int)PADDOCK__V1__DBW_REPORT_KIND__DBW_REPORT_SECONDARY == (int)PDK_RPT_SECONDARY,
               "DbwReportKind mirrors pdk_dbw_report_kind");
_Static_assert((int)PADDOCK__V1__DBW_REPORT_KIND__DBW_REPORT_AW_STATUS == (int)PDK_RPT_AW_STATUS,
               "DbwReportKind mirrors pdk_dbw_report_kind");
_Static_assert((int)PDK_RPT_COUNT == 12, "one DbwReport block per report kind");
_Static_assert((int)PADDOCK__V1__CMD_SRC__CMD_SRC_COMMS_LOSS == (int)PDK_DBW_SRC_COMMS_LOSS,
               "CmdSrc mirrors pdk_dbw_cmd_src");
_Static_assert((int)PADDOCK__V1__CMD_SRC__CMD_SRC_CALIBRATION == (int)PDK_DBW_SRC_CALIBRATION,
               "CmdSrc mirrors pdk_dbw_cmd_src");
_Static_assert((int)PADDOCK__V1__GEAR_REJECT__GEAR_REJECT_VEHICLE == (int)PDK_DBW_REJECT_VEHICLE,
               "GearReject mirrors pdk_dbw_gear_reject");
/* The kit's coded fields: each proto enum carries sim's numbers. The two
 * reason codes are checked value by value in tests/unit/test_wire_dbw.c. */
#define PDK_MIRRORS(pb_enum, pb_value, sim_value, what)                                            \
    _Static_assert((int)PADDOCK__V1__##pb_enum##__##pb_value == (int)(sim_value), what)
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_TORQUE, PDK_STEER_CMD_TORQUE, "SteeringCmdType");
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_ANGLE, PDK_STEER_CMD_ANGLE, "SteeringCmdType");
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_CURVATURE, PDK_STEER_CMD_CURVATURE,
            "SteeringCmdType");
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_YAW_RATE, PDK_STEER_CMD_YAW_RATE,
            "SteeringCmdType");
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_PERCENT, PDK_STEER_CMD_PERCENT, "SteeringCmdType");
PDK_MIRRORS(STEERING_CMD_TYPE, STEERING_CMD_TYPE_CALIBRATE, PDK_STEER_CMD_CALIBRATE,
            "SteeringCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_PRESSURE, PDK_BRAKE_CMD_PRESSURE, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_TORQUE, PDK_BRAKE_CMD_TORQUE, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_ACCEL, PDK_BRAKE_CMD_ACCEL, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_ACCEL_ACC, PDK_BRAKE_CMD_ACCEL_ACC, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_ACCEL_AEB, PDK_BRAKE_CMD_ACCEL_AEB, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_PEDAL_RAW, PDK_BRAKE_CMD_PEDAL_RAW, "BrakeCmdType");
PDK_MIRRORS(BRAKE_CMD_TYPE, BRAKE_CMD_TYPE_PERCENT, PDK_BRAKE_CMD_PERCENT, "BrakeCmdType");
PDK_MIRRORS(THROTTLE_CMD_TYPE, THROTTLE_CMD_TYPE_PEDAL_RAW, PDK_THROTTLE_CMD_PEDAL_RAW,
            "ThrottleCmdType");
PDK_MIRRORS(THROTTLE_CMD_TYPE, THROTTLE_CMD_TYPE_PERCENT, PDK_THROTTLE_CMD_PERCENT,
            "ThrottleCmdType");
PDK_MIRRORS(ULC_CMD_TYPE, ULC_CMD_TYPE_VELOCITY, PDK_ULC_CMD_VELOCITY, "UlcCmdType");
PDK_MIRRORS(ULC_CMD_TYPE, ULC_CMD_TYPE_ACCEL, PDK_ULC_CMD_ACCEL, "UlcCmdType");
PDK_MIRRORS(DRIVE_MODE, DRIVE_MODE_TURF, PDK_DRIVE_TURF, "DriveMode");
PDK_MIRRORS(DRIVE_MODE, DRIVE_MODE_2WD, PDK_DRIVE_2WD, "DriveMode");
PDK_MIRRORS(DRIVE_MODE, DRIVE_MODE_AWD, PDK_DRIVE_AWD, "DriveMode");
PDK_MIRRORS(SYSTEM_CMD_TYPE, SYSTEM_CMD_TYPE_ENABLE, PDK_DBW_SYS_ENABLE, "SystemCmdType");
PDK_MIRRORS(SYSTEM_CMD_TYPE, SYSTEM_CMD_TYPE_DISABLE, PDK_DBW_SYS_DISABLE, "SystemCmdType");
PDK_MIRRORS(SYNC_MODE, SYNC_MODE_DISENGAGES, PDK_DBW_SYNC_DISENGAGES, "SyncMode");
PDK_MIRRORS(SYNC_MODE, SYNC_MODE_ALL_OR_NONE, PDK_DBW_SYNC_ALL_OR_NONE, "SyncMode");
PDK_MIRRORS(SYNC_MODE, SYNC_MODE_ALL_OR_NONE_WITH_BTN, PDK_DBW_SYNC_ALL_OR_NONE_WITH_BTN,
            "SyncMode");
PDK_MIRRORS(BUTTON, BUTTON_ENABLE, PDK_DBW_BTN_ENABLE, "Button");
PDK_MIRRORS(BUTTON, BUTTON_DISABLE, PDK_DBW_BTN_DISABLE, "Button");
PDK_MIRRORS(BUTTON, BUTTON_EXTERNAL_BRAKE, PDK_DBW_BTN_EXTERNAL_BRAKE, "Button");
PDK_MIRRORS(BUTTON, BUTTON_EXTERNAL_BRAKE_RELEASE, PDK_DBW_BTN_EXTERNAL_BRAKE_RELEASE, "Button");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_CLEAR, PDK_FAULT_CLEAR, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_STUCK, PDK_FAULT_STUCK, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_SATURATED, PDK_FAULT_SATURATED, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_LATENCY, PDK_FAULT_LATENCY, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_CHANNEL, PDK_FAULT_CHANNEL, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_REPORT_DROP, PDK_FAULT_REPORT_DROP, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_REPORT_DELAY, PDK_FAULT_REPORT_DELAY, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_REPORT_MISSING, PDK_FAULT_REPORT_MISSING, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_SENSOR_NOISE, PDK_FAULT_SENSOR_NOISE, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_SENSOR_BIAS, PDK_FAULT_SENSOR_BIAS, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_POWER_CYCLE, PDK_FAULT_POWER_CYCLE, "FaultKind");
PDK_MIRRORS(FAULT_KIND, FAULT_KIND_MODULE_RESTART, PDK_FAULT_MODULE_RESTART, "FaultKind");
PDK_MIRRORS(DBW_CHANNEL, DBW_CHANNEL_STEER, PDK_DBW_CH_STEER, "DbwChannel");
PDK_MIRRORS(DBW_CHANNEL, DBW_CHANNEL_BRAKE, PDK_DBW_CH_BRAKE, "DbwChannel");
PDK_MIRRORS(DBW_CHANNEL, DBW_CHANNEL_THROTTLE, PDK_DBW_CH_THROTTLE, "DbwChannel");
PDK_MIRRORS(DBW_CHANNEL, DBW_CHANNEL_GEAR, PDK_DBW_TARGET_GEAR, "DbwChannel");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_ACCEL_X, PDK_SENSOR_ACCEL_X, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_ACCEL_Y, PDK_SENSOR_ACCEL_Y, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_ACCEL_Z, PDK_SENSOR_ACCEL_Z, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_GYRO_X, PDK_SENSOR_GYRO_X, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_GYRO_Y, PDK_SENSOR_GYRO_Y, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_GYRO_Z, PDK_SENSOR_GYRO_Z, "SensorAxis");
PDK_MIRRORS(SENSOR_AXIS, SENSOR_AXIS_GNSS, PDK_SENSOR_GNSS, "SensorAxis");
PDK_MIRRORS(AW_GEAR, AW_GEAR_NONE, PDK_AW_GEAR_NONE, "AwGear");
PDK_MIRRORS(AW_GEAR, AW_GEAR_NEUTRAL, PDK_AW_GEAR_NEUTRAL, "AwGear");
PDK_MIRRORS(AW_GEAR, AW_GEAR_DRIVE, PDK_AW_GEAR_DRIVE, "AwGear");
PDK_MIRRORS(AW_GEAR, AW_GEAR_REVERSE, PDK_AW_GEAR_REVERSE, "AwGear");
PDK_MIRRORS(AW_GEAR, AW_GEAR_PARK, PDK_AW_GEAR_PARK, "AwGear");
PDK_MIRRORS(AW_GEAR, AW_GEAR_LOW, PDK_AW_GEAR_LOW, "AwGear");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_NO_COMMAND, PDK_AW_MODE_NO_COMMAND, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_AUTONOMOUS, PDK_AW_MODE_AUTONOMOUS, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_AUTONOMOUS_STEER_ONLY,
            PDK_AW_MODE_AUTONOMOUS_STEER_ONLY, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_AUTONOMOUS_VELOCITY_ONLY,
            PDK_AW_MODE_AUTONOMOUS_VELOCITY_ONLY, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_MANUAL, PDK_AW_MODE_MANUAL, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_DISENGAGED, PDK_AW_MODE_DISENGAGED, "AwControlMode");
PDK_MIRRORS(AW_CONTROL_MODE, AW_CONTROL_MODE_NOT_READY, PDK_AW_MODE_NOT_READY, "AwControlMode");
PDK_MIRRORS(SYSTEM_STATE, SYSTEM_STATE_MANUAL, PDK_DBW_MANUAL, "SystemState");
PDK_MIRRORS(SYSTEM_STATE, SYSTEM_STATE_READY, PDK_DBW_READY, "SystemState");
PDK_MIRRORS(SYSTEM_STATE, SYSTEM_STATE_ACTIVE, PDK_DBW_ACTIVE, "SystemState");
PDK_MIRRORS(SYSTEM_STATE, SYSTEM_STATE_FAULT, PDK_DBW_FAULT, "SystemState");
#undef PDK_MIRRORS

/* ---- messages ----------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static pdk_error
refuse(pdk_error code, char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* A uint32 beyond int32 is passed on as INT32_MAX: still out of every
 * range, so sim refuses it by name rather than see a wrapped negative. */
static int32_t to_i32(uint32_t v)
{
    return v > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* An enum field holds whatever number came (proto3 enums are open). A
 * negative one is what a uint32 above INT32_MAX decodes to as an enum, so it
 * too goes on as INT32_MAX: sim refuses it by name, and it can never pose
 * as sim's "keep" (-1). */
static int32_t from_enum(int v)
{
    return v < 0 ? INT32_MAX : (int32_t)v;
}

static uint8_t to_rc(uint32_t v)
{
    return v > 255u ? 255u : (uint8_t)v;
}

/* Takes a crc oneof: -1 when absent, refused above one byte. */
static pdk_error take_crc(bool present, uint32_t crc, const char *field, int32_t *out, char *why,
                          size_t why_len)
{
    if (!present) {
        *out = -1;
        return PDK_OK;
    }
    if (crc > 255u) {
        return refuse(PDK_ERR_OUT_OF_RANGE, why, why_len,
                      "%s.crc %" PRIu32
                      " is above 255: the kit's CRC is one byte (CRC-8 SAE J1850)",
                      field, crc);
    }
    *out = (int32_t)crc;
    return PDK_OK;
}

static void chan_from(pdk_dbw_chan_cmd *c, float cmd, float rate_a, float rate_b, int cmd_type,
                      protobuf_c_boolean enable, protobuf_c_boolean clear,
                      protobuf_c_boolean ignore, uint32_t rc)
{
    c->cmd = (double)cmd;
    c->rate_a = (double)rate_a;
    c->rate_b = (double)rate_b;
    c->cmd_type = from_enum(cmd_type);
    c->enable = enable ? 1u : 0u;
    c->clear = clear ? 1u : 0u;
    c->ignore = ignore ? 1u : 0u;
    c->rc = to_rc(rc);
}

pdk_error pdk_wire_dbw_msg_from_pb(const Paddock__V1__DbwMessage *msg, pdk_dbw_msg *out, char *why,
                                   size_t why_len)
{
    if (why != NULL && why_len > 0) {
        why[0] = '\0';
    }
    if (msg == NULL || out == NULL) {
        return refuse(PDK_ERR_INVALID_ARGUMENT, why, why_len, "no DBW message");
    }
    memset(out, 0, sizeof *out);
    out->crc = -1;
    switch (msg->msg_case) {
    case PADDOCK__V1__DBW_MESSAGE__MSG_STEERING: {
        const Paddock__V1__SteeringCmd *m = msg->steering;
        out->kind = PDK_DBW_MSG_STEER;
        chan_from(&out->u.chan, m->cmd, m->cmd_rate, m->cmd_accel, m->cmd_type, m->enable, m->clear,
                  m->ignore, m->rc);
        return take_crc(m->crc_set_case == PADDOCK__V1__STEERING_CMD__CRC_SET_CRC, m->crc,
                        "steering", &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_BRAKE: {
        const Paddock__V1__BrakeCmd *m = msg->brake;
        out->kind = PDK_DBW_MSG_BRAKE;
        chan_from(&out->u.chan, m->cmd, m->rate_inc, m->rate_dec, m->cmd_type, m->enable, m->clear,
                  m->ignore, m->rc);
        return take_crc(m->crc_set_case == PADDOCK__V1__BRAKE_CMD__CRC_SET_CRC, m->crc, "brake",
                        &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_THROTTLE: {
        const Paddock__V1__ThrottleCmd *m = msg->throttle;
        out->kind = PDK_DBW_MSG_THROTTLE;
        chan_from(&out->u.chan, m->cmd, m->rate_inc, m->rate_dec, m->cmd_type, m->enable, m->clear,
                  m->ignore, m->rc);
        return take_crc(m->crc_set_case == PADDOCK__V1__THROTTLE_CMD__CRC_SET_CRC, m->crc,
                        "throttle", &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_GEAR: {
        const Paddock__V1__GearCmd *m = msg->gear;
        out->kind = PDK_DBW_MSG_GEAR;
        pdk_gear gear = PDK_GEAR_NONE;
        if (pdk_wire_gear_from_pb(m->cmd, &gear) != PDK_OK) {
            return refuse(PDK_ERR_OUT_OF_RANGE, why, why_len,
                          "gear.cmd %d is not a DBW2 gear (0 NONE, 1 P, 2 R, 3 N, 4 D, 5 L)",
                          (int)m->cmd);
        }
        out->u.value = (int32_t)gear;
        return take_crc(m->crc_set_case == PADDOCK__V1__GEAR_CMD__CRC_SET_CRC, m->crc, "gear",
                        &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_ULC: {
        const Paddock__V1__UlcCmd *m = msg->ulc;
        pdk_dbw_ulc_cmd *u = &out->u.ulc;
        out->kind = PDK_DBW_MSG_ULC;
        u->cmd = (double)m->cmd;
        u->limit_accel = (double)m->limit_accel;
        u->limit_decel = (double)m->limit_decel;
        u->limit_jerk_throttle = (double)m->limit_jerk_throttle;
        u->limit_jerk_brake = (double)m->limit_jerk_brake;
        u->cmd_type = from_enum(m->cmd_type);
        u->enable = m->enable ? 1u : 0u;
        u->clear = m->clear ? 1u : 0u;
        u->enable_shift = m->enable_shift ? 1u : 0u;
        u->enable_shift_park = m->enable_shift_park ? 1u : 0u;
        u->coast_decel = m->coast_decel ? 1u : 0u;
        u->rc = to_rc(m->rc);
        return take_crc(m->crc_set_case == PADDOCK__V1__ULC_CMD__CRC_SET_CRC, m->crc, "ulc",
                        &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_TURN_SIGNAL:
        out->kind = PDK_DBW_MSG_TURN_SIGNAL;
        out->u.value = from_enum(msg->turn_signal->cmd);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_MISC:
        out->kind = PDK_DBW_MSG_MISC;
        out->u.value = from_enum(msg->misc->parking_brake);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_DRIVE_MODE:
        out->kind = PDK_DBW_MSG_DRIVE_MODE;
        out->u.value = from_enum(msg->drive_mode->drive_mode);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_SYSTEM: {
        const Paddock__V1__SystemCmd *m = msg->system;
        pdk_dbw_system_cmd *c = &out->u.system;
        out->kind = PDK_DBW_MSG_SYSTEM;
        c->cmd = from_enum(m->cmd);
        c->sync_mode = m->sync_mode_set_case == PADDOCK__V1__SYSTEM_CMD__SYNC_MODE_SET_SYNC_MODE
                           ? from_enum(m->sync_mode)
                           : -1;
        c->validate_crc =
            m->validate_set_case == PADDOCK__V1__SYSTEM_CMD__VALIDATE_SET_VALIDATE_CMD_CRC_RC
                ? (m->validate_cmd_crc_rc ? 1 : 0)
                : -1;
        c->comms_loss_arm =
            m->comms_loss_set_case == PADDOCK__V1__SYSTEM_CMD__COMMS_LOSS_SET_COMMS_LOSS_ARM
                ? (m->comms_loss_arm ? 1 : 0)
                : -1;
        c->rc = to_rc(m->rc);
        return take_crc(m->crc_set_case == PADDOCK__V1__SYSTEM_CMD__CRC_SET_CRC, m->crc, "system",
                        &out->crc, why, why_len);
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_BUTTON:
        out->kind = PDK_DBW_MSG_BUTTON;
        out->u.value = from_enum(msg->button->button);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_FAULT:
        out->kind = PDK_DBW_MSG_FAULT;
        out->u.fault.kind = from_enum(msg->fault->kind);
        out->u.fault.target = to_i32(msg->fault->target);
        out->u.fault.value = msg->fault->value;
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_AW_CONTROL: {
        const Paddock__V1__AwControl *m = msg->aw_control;
        pdk_dbw_aw_control *a = &out->u.aw;
        out->kind = PDK_DBW_MSG_AW_CONTROL;
        a->steering_tire_angle_rad = m->steering_tire_angle;
        a->steering_tire_rate_radps = m->steering_tire_rotation_rate;
        a->velocity_mps = m->velocity;
        a->acceleration_mps2 = m->acceleration;
        a->jerk_mps3 = m->jerk;
        a->rate_defined = m->is_defined_steering_tire_rotation_rate ? 1u : 0u;
        a->accel_defined = m->is_defined_acceleration ? 1u : 0u;
        a->jerk_defined = m->is_defined_jerk ? 1u : 0u;
        return PDK_OK;
    }
    case PADDOCK__V1__DBW_MESSAGE__MSG_AW_GEAR:
        out->kind = PDK_DBW_MSG_AW_GEAR;
        out->u.value = from_enum(msg->aw_gear->command);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG_AW_MODE:
        out->kind = PDK_DBW_MSG_AW_MODE;
        out->u.value = from_enum(msg->aw_mode->mode);
        return PDK_OK;
    case PADDOCK__V1__DBW_MESSAGE__MSG__NOT_SET:
    default:
        break;
    }
    return refuse(PDK_ERR_INVALID_ARGUMENT, why, why_len,
                  "the DbwMessage carries no message: set one of steering, brake, throttle, "
                  "gear, ulc, turn_signal, misc, drive_mode, system, button, fault, aw_control, "
                  "aw_gear, aw_mode");
}

/* Negative values (a "keep" -1 aside, which the callers leave out) are not
 * in any accepted message; they are written as their uint32 bits. */
static uint32_t to_u32(int32_t v)
{
    return (uint32_t)v;
}

pdk_error pdk_wire_dbw_msg_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_dbw_msg *msg,
                                  pdk_buf *out)
{
    if (msg == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    Paddock__V1__DbwMessage m = PADDOCK__V1__DBW_MESSAGE__INIT;
    m.session_id = session_id;
    m.vehicle_id = id;
    Paddock__V1__SteeringCmd steer = PADDOCK__V1__STEERING_CMD__INIT;
    Paddock__V1__BrakeCmd brake = PADDOCK__V1__BRAKE_CMD__INIT;
    Paddock__V1__ThrottleCmd throttle = PADDOCK__V1__THROTTLE_CMD__INIT;
    Paddock__V1__GearCmd gear = PADDOCK__V1__GEAR_CMD__INIT;
    Paddock__V1__UlcCmd ulc = PADDOCK__V1__ULC_CMD__INIT;
    Paddock__V1__TurnSignalCmd turn = PADDOCK__V1__TURN_SIGNAL_CMD__INIT;
    Paddock__V1__MiscCmd misc = PADDOCK__V1__MISC_CMD__INIT;
    Paddock__V1__DriveModeCmd mode = PADDOCK__V1__DRIVE_MODE_CMD__INIT;
    Paddock__V1__SystemCmd sys = PADDOCK__V1__SYSTEM_CMD__INIT;
    Paddock__V1__ButtonPress button = PADDOCK__V1__BUTTON_PRESS__INIT;
    Paddock__V1__FaultInject fault = PADDOCK__V1__FAULT_INJECT__INIT;
    Paddock__V1__AwControl aw = PADDOCK__V1__AW_CONTROL__INIT;
    Paddock__V1__AwGearCommand aw_gear = PADDOCK__V1__AW_GEAR_COMMAND__INIT;
    Paddock__V1__AwControlModeCommand aw_mode = PADDOCK__V1__AW_CONTROL_MODE_COMMAND__INIT;
    bool crc = msg->crc >= 0;
    uint32_t crc_value = crc ? (uint32_t)msg->crc : 0u;
    const pdk_dbw_chan_cmd *c = &msg->u.chan;
    switch (msg->kind) {
    case PDK_DBW_MSG_STEER:
        steer.cmd = (float)c->cmd;
        steer.cmd_rate = (float)c->rate_a;
        steer.cmd_accel = (float)c->rate_b;
        steer.cmd_type = (Paddock__V1__SteeringCmdType)c->cmd_type;
        steer.enable = c->enable != 0;
        steer.clear = c->clear != 0;
        steer.ignore = c->ignore != 0;
        steer.rc = c->rc;
        if (crc) {
            steer.crc_set_case = PADDOCK__V1__STEERING_CMD__CRC_SET_CRC;
            steer.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_STEERING;
        m.steering = &steer;
        break;
    case PDK_DBW_MSG_BRAKE:
        brake.cmd = (float)c->cmd;
        brake.rate_inc = (float)c->rate_a;
        brake.rate_dec = (float)c->rate_b;
        brake.cmd_type = (Paddock__V1__BrakeCmdType)c->cmd_type;
        brake.enable = c->enable != 0;
        brake.clear = c->clear != 0;
        brake.ignore = c->ignore != 0;
        brake.rc = c->rc;
        if (crc) {
            brake.crc_set_case = PADDOCK__V1__BRAKE_CMD__CRC_SET_CRC;
            brake.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_BRAKE;
        m.brake = &brake;
        break;
    case PDK_DBW_MSG_THROTTLE:
        throttle.cmd = (float)c->cmd;
        throttle.rate_inc = (float)c->rate_a;
        throttle.rate_dec = (float)c->rate_b;
        throttle.cmd_type = (Paddock__V1__ThrottleCmdType)c->cmd_type;
        throttle.enable = c->enable != 0;
        throttle.clear = c->clear != 0;
        throttle.ignore = c->ignore != 0;
        throttle.rc = c->rc;
        if (crc) {
            throttle.crc_set_case = PADDOCK__V1__THROTTLE_CMD__CRC_SET_CRC;
            throttle.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_THROTTLE;
        m.throttle = &throttle;
        break;
    case PDK_DBW_MSG_GEAR:
        gear.cmd = (Paddock__V1__Gear)msg->u.value;
        if (crc) {
            gear.crc_set_case = PADDOCK__V1__GEAR_CMD__CRC_SET_CRC;
            gear.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_GEAR;
        m.gear = &gear;
        break;
    case PDK_DBW_MSG_ULC: {
        const pdk_dbw_ulc_cmd *u = &msg->u.ulc;
        ulc.cmd = (float)u->cmd;
        ulc.limit_accel = (float)u->limit_accel;
        ulc.limit_decel = (float)u->limit_decel;
        ulc.limit_jerk_throttle = (float)u->limit_jerk_throttle;
        ulc.limit_jerk_brake = (float)u->limit_jerk_brake;
        ulc.cmd_type = (Paddock__V1__UlcCmdType)u->cmd_type;
        ulc.enable = u->enable != 0;
        ulc.clear = u->clear != 0;
        ulc.enable_shift = u->enable_shift != 0;
        ulc.enable_shift_park = u->enable_shift_park != 0;
        ulc.coast_decel = u->coast_decel != 0;
        ulc.rc = u->rc;
        if (crc) {
            ulc.crc_set_case = PADDOCK__V1__ULC_CMD__CRC_SET_CRC;
            ulc.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_ULC;
        m.ulc = &ulc;
        break;
    }
    case PDK_DBW_MSG_TURN_SIGNAL:
        turn.cmd = (Paddock__V1__TurnSignal)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_TURN_SIGNAL;
        m.turn_signal = &turn;
        break;
    case PDK_DBW_MSG_MISC:
        misc.parking_brake = (Paddock__V1__ParkingBrakeCmd)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_MISC;
        m.misc = &misc;
        break;
    case PDK_DBW_MSG_DRIVE_MODE:
        mode.drive_mode = (Paddock__V1__DriveMode)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_DRIVE_MODE;
        m.drive_mode = &mode;
        break;
    case PDK_DBW_MSG_SYSTEM: {
        const pdk_dbw_system_cmd *s = &msg->u.system;
        sys.cmd = (Paddock__V1__SystemCmdType)s->cmd;
        if (s->sync_mode >= 0) {
            sys.sync_mode_set_case = PADDOCK__V1__SYSTEM_CMD__SYNC_MODE_SET_SYNC_MODE;
            sys.sync_mode = (Paddock__V1__SyncMode)s->sync_mode;
        }
        if (s->validate_crc >= 0) {
            sys.validate_set_case = PADDOCK__V1__SYSTEM_CMD__VALIDATE_SET_VALIDATE_CMD_CRC_RC;
            sys.validate_cmd_crc_rc = s->validate_crc != 0;
        }
        if (s->comms_loss_arm >= 0) {
            sys.comms_loss_set_case = PADDOCK__V1__SYSTEM_CMD__COMMS_LOSS_SET_COMMS_LOSS_ARM;
            sys.comms_loss_arm = s->comms_loss_arm != 0;
        }
        sys.rc = s->rc;
        if (crc) {
            sys.crc_set_case = PADDOCK__V1__SYSTEM_CMD__CRC_SET_CRC;
            sys.crc = crc_value;
        }
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_SYSTEM;
        m.system = &sys;
        break;
    }
    case PDK_DBW_MSG_BUTTON:
        button.button = (Paddock__V1__Button)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_BUTTON;
        m.button = &button;
        break;
    case PDK_DBW_MSG_FAULT:
        fault.kind = (Paddock__V1__FaultKind)msg->u.fault.kind;
        fault.target = to_u32(msg->u.fault.target);
        fault.value = msg->u.fault.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_FAULT;
        m.fault = &fault;
        break;
    case PDK_DBW_MSG_AW_CONTROL: {
        const pdk_dbw_aw_control *a = &msg->u.aw;
        aw.steering_tire_angle = a->steering_tire_angle_rad;
        aw.steering_tire_rotation_rate = a->steering_tire_rate_radps;
        aw.is_defined_steering_tire_rotation_rate = a->rate_defined != 0;
        aw.velocity = a->velocity_mps;
        aw.acceleration = a->acceleration_mps2;
        aw.is_defined_acceleration = a->accel_defined != 0;
        aw.jerk = a->jerk_mps3;
        aw.is_defined_jerk = a->jerk_defined != 0;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_AW_CONTROL;
        m.aw_control = &aw;
        break;
    }
    case PDK_DBW_MSG_AW_GEAR:
        aw_gear.command = (Paddock__V1__AwGear)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_AW_GEAR;
        m.aw_gear = &aw_gear;
        break;
    case PDK_DBW_MSG_AW_MODE:
        aw_mode.mode = (Paddock__V1__AwControlMode)msg->u.value;
        m.msg_case = PADDOCK__V1__DBW_MESSAGE__MSG_AW_MODE;
        m.aw_mode = &aw_mode;
        break;
    default:
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return pdk_wire_pack_append(out, &m.base);
}

/* pdk_wire_body_read's take for a DbwMessage body. */
static pdk_error take_dbw_msg(const ProtobufCMessage *msg, void *ud)
{
    pdk_wire_decoded_ *d = ud;
    const Paddock__V1__DbwMessage *m = (const Paddock__V1__DbwMessage *)msg;
    d->id = m->vehicle_id;
    return pdk_wire_dbw_msg_from_pb(m, d->out, NULL, 0);
}

pdk_error pdk_wire_dbw_msg_decode(const uint8_t *body, size_t len, pdk_dbw_msg *out,
                                  pdk_vehicle_id *id)
{
    if (out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_wire_decoded_ d = {out, 0};
    pdk_error err =
        pdk_wire_body_read(&paddock__v1__dbw_message__descriptor, body, len, take_dbw_msg, &d);
    return pdk_wire_decoded_finish_(err, &d, id);
}

/* ---- reports ------------------------------------------------------------ */

static void status_from(const pdk_dbw_chan_report *c, Paddock__V1__DbwChannelStatus *s)
{
    paddock__v1__dbw_channel_status__init(s);
    s->ready = c->ready != 0;
    s->enabled = c->enabled != 0;
    s->override_active = c->override_active != 0;
    s->override_other = c->override_other != 0;
    s->override_latched = c->override_latched != 0;
    s->timeout = c->timeout != 0;
    s->fault = c->fault != 0;
    s->bad_crc = c->bad_crc != 0;
    s->bad_rc = c->bad_rc != 0;
    s->limiting_value = c->limiting_value != 0;
    s->limiting_rate = c->limiting_rate != 0;
}

pdk_error pdk_wire_dbw_report_common(uint64_t session_id, pdk_vehicle_id id, double dt_s, int kind,
                                     const pdk_dbw_report *r, int active_source, pdk_buf *out)
{
    if (r == NULL || out == NULL || kind < 0 || kind >= PDK_RPT_COUNT) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    Paddock__V1__DbwReport rep = PADDOCK__V1__DBW_REPORT__INIT;
    rep.session_id = session_id;
    rep.vehicle_id = id;
    rep.tick = r->tick;
    rep.sim_time_s = (double)r->tick * dt_s;
    Paddock__V1__DbwChannelStatus status;
    Paddock__V1__SteeringReport steer = PADDOCK__V1__STEERING_REPORT__INIT;
    Paddock__V1__BrakeReport brake = PADDOCK__V1__BRAKE_REPORT__INIT;
    Paddock__V1__ThrottleReport throttle = PADDOCK__V1__THROTTLE_REPORT__INIT;
    Paddock__V1__GearReport gear = PADDOCK__V1__GEAR_REPORT__INIT;
    Paddock__V1__SystemReport sys = PADDOCK__V1__SYSTEM_REPORT__INIT;
    Paddock__V1__UlcReport ulc = PADDOCK__V1__ULC_REPORT__INIT;
    Paddock__V1__WheelSpeeds wheels = PADDOCK__V1__WHEEL_SPEEDS__INIT;
    Paddock__V1__VehicleVelocity vel = PADDOCK__V1__VEHICLE_VELOCITY__INIT;
    Paddock__V1__ImuData imu = PADDOCK__V1__IMU_DATA__INIT;
    Paddock__V1__GnssFix gnss = PADDOCK__V1__GNSS_FIX__INIT;
    Paddock__V1__DbwSecondary sec = PADDOCK__V1__DBW_SECONDARY__INIT;
    Paddock__V1__AwStatus aw = PADDOCK__V1__AW_STATUS__INIT;
    const pdk_dbw_chan_report *ch = r->ch;
    switch (kind) {
    case PDK_RPT_STEER:
        status_from(&ch[PDK_DBW_CH_STEER], &status);
        steer.steering_wheel_angle = (float)r->steering_wheel_angle_deg;
        steer.cmd = (float)ch[PDK_DBW_CH_STEER].cmd;
        steer.cmd_type = (Paddock__V1__SteeringCmdType)ch[PDK_DBW_CH_STEER].cmd_type;
        steer.status = &status;
        steer.road_wheel_angle = (float)r->road_wheel_angle_deg;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_STEERING;
        rep.steering = &steer;
        break;
    case PDK_RPT_BRAKE: {
        const pdk_dbw_chan_report *b = &ch[PDK_DBW_CH_BRAKE];
        status_from(b, &status);
        brake.cmd_type = (Paddock__V1__BrakeCmdType)b->cmd_type;
        brake.pressure_input = (float)b->input;
        brake.pressure_output = (float)b->output;
        /* The command echo goes to the block of its own unit. */
        if (b->cmd_type == PDK_BRAKE_CMD_PRESSURE)
            brake.pressure_cmd = (float)b->cmd;
        if (b->cmd_type == PDK_BRAKE_CMD_PERCENT || b->cmd_type == PDK_BRAKE_CMD_PEDAL_RAW)
            brake.percent_cmd = (float)b->cmd;
        brake.torque_cmd = (float)r->brake_torque_cmd_nm;
        brake.torque_output = (float)r->brake_torque_output_nm;
        brake.accel_cmd = (float)r->brake_accel_cmd_mps2;
        brake.accel_output = (float)r->brake_accel_output_mps2;
        brake.percent_output = (float)r->brake_percent_output;
        brake.status = &status;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_BRAKE;
        rep.brake = &brake;
        break;
    }
    case PDK_RPT_THROTTLE: {
        const pdk_dbw_chan_report *t = &ch[PDK_DBW_CH_THROTTLE];
        status_from(t, &status);
        throttle.cmd_type = (Paddock__V1__ThrottleCmdType)t->cmd_type;
        throttle.percent_input = (float)t->input;
        throttle.percent_cmd = (float)t->cmd;
        throttle.percent_output = (float)t->output;
        throttle.status = &status;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_THROTTLE;
        rep.throttle = &throttle;
        break;
    }
    case PDK_RPT_GEAR:
        gear.gear = (Paddock__V1__Gear)r->gear;
        gear.cmd = (Paddock__V1__Gear)r->gear_cmd;
        gear.driver = (Paddock__V1__Gear)r->gear_driver;
        gear.reject = (Paddock__V1__GearReject)r->gear_reject;
        gear.ready = r->gear_ready != 0;
        gear.override_active = r->gear_override != 0;
        gear.fault = r->gear_fault != 0;
        gear.bad_crc = r->gear_bad_crc != 0;
        gear.gear_num = to_u32(r->gear_number);
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_GEAR;
        rep.gear = &gear;
        break;
    case PDK_RPT_SYSTEM:
        sys.state = (Paddock__V1__SystemState)r->state;
        sys.system_sync_mode = (Paddock__V1__SyncMode)r->sync_mode;
        sys.reason_disengage = (Paddock__V1__ReasonDisengage)r->reason_disengage;
        sys.reason_not_ready = (Paddock__V1__ReasonNotReady)r->reason_not_ready;
        /* sim's names are static strings; protobuf-c only reads them. */
        sys.reason_disengage_str = (char *)pdk_dbw_disengage_name(r->reason_disengage);
        sys.reason_not_ready_str = (char *)pdk_dbw_not_ready_name(r->reason_not_ready);
        sys.validate_cmd_crc_rc = r->validate_crc != 0;
        sys.btn_enable = r->btn_enable != 0;
        sys.btn_disable = r->btn_disable != 0;
        sys.lockout = r->sys_lockout != 0;
        sys.override = r->sys_override != 0;
        sys.ready = r->sys_ready != 0;
        sys.enabled = r->sys_enabled != 0;
        sys.fault = r->sys_fault != 0;
        sys.bad_crc = r->sys_bad_crc != 0;
        sys.bad_rc = r->sys_bad_rc != 0;
        sys.active_source = (Paddock__V1__ControlSource)active_source;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_SYSTEM;
        rep.system = &sys;
        break;
    case PDK_RPT_ULC:
        ulc.cmd_type = (Paddock__V1__UlcCmdType)r->ulc_cmd_type;
        ulc.vel_ref = (float)r->ulc_vel_ref;
        ulc.vel_meas = (float)r->ulc_vel_meas;
        ulc.accel_ref = (float)r->ulc_accel_ref;
        ulc.accel_meas = (float)r->ulc_accel_meas;
        ulc.coast_decel = r->ulc_coast != 0;
        ulc.ready = r->ulc_ready != 0;
        ulc.enabled = r->ulc_enabled != 0;
        ulc.override_active = r->ulc_override_active != 0;
        ulc.override_latched = r->ulc_override_latched != 0;
        ulc.preempted = r->ulc_preempted != 0;
        ulc.timeout = r->ulc_timeout != 0;
        ulc.bad_crc = r->ulc_bad_crc != 0;
        ulc.bad_rc = r->ulc_bad_rc != 0;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_ULC;
        rep.ulc = &ulc;
        break;
    case PDK_RPT_WHEEL_SPEEDS:
        wheels.front_left = (float)r->wheel_speed_radps[0];
        wheels.front_right = (float)r->wheel_speed_radps[1];
        wheels.rear_left = (float)r->wheel_speed_radps[2];
        wheels.rear_right = (float)r->wheel_speed_radps[3];
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_WHEEL_SPEEDS;
        rep.wheel_speeds = &wheels;
        break;
    case PDK_RPT_VEHICLE_VELOCITY:
        vel.vehicle_velocity_brake = (float)r->velocity_brake_mps;
        vel.vehicle_velocity_propulsion = (float)r->velocity_propulsion_mps;
        vel.dir_src = PADDOCK__V1__DIR_SRC__DIR_SRC_PRNDL; /* the lever gives the sign */
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_VEHICLE_VELOCITY;
        rep.vehicle_velocity = &vel;
        break;
    case PDK_RPT_IMU:
        imu.accel_x = r->accel_mps2[0];
        imu.accel_y = r->accel_mps2[1];
        imu.accel_z = r->accel_mps2[2];
        imu.gyro_x = r->gyro_radps[0];
        imu.gyro_y = r->gyro_radps[1];
        imu.gyro_z = r->gyro_radps[2];
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_IMU;
        rep.imu = &imu;
        break;
    case PDK_RPT_GNSS:
        gnss.valid = r->gnss_valid != 0;
        gnss.x_m = r->gnss_x_m;
        gnss.y_m = r->gnss_y_m;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_GNSS;
        rep.gnss = &gnss;
        break;
    case PDK_RPT_SECONDARY:
        sec.steer_degraded = ch[PDK_DBW_CH_STEER].degraded != 0;
        sec.steer_limit_value = (float)ch[PDK_DBW_CH_STEER].limit_value;
        sec.steer_limit_rate = (float)ch[PDK_DBW_CH_STEER].limit_rate;
        sec.steer_cmd_src = (Paddock__V1__CmdSrc)ch[PDK_DBW_CH_STEER].cmd_src;
        sec.brake_degraded = ch[PDK_DBW_CH_BRAKE].degraded != 0;
        sec.brake_limit_value = (float)ch[PDK_DBW_CH_BRAKE].limit_value;
        sec.brake_cmd_src = (Paddock__V1__CmdSrc)ch[PDK_DBW_CH_BRAKE].cmd_src;
        sec.brake_comms_loss_armed = r->comms_loss_armed != 0;
        sec.brake_external_button = r->external_button != 0;
        sec.brake_req_shift_park = r->req_shift_park != 0;
        sec.brake_req_park_brake = r->req_park_brake != 0;
        sec.brake_available_duration = (float)r->brake_available_s;
        sec.throttle_degraded = ch[PDK_DBW_CH_THROTTLE].degraded != 0;
        sec.throttle_limit_value = (float)ch[PDK_DBW_CH_THROTTLE].limit_value;
        sec.throttle_cmd_src = (Paddock__V1__CmdSrc)ch[PDK_DBW_CH_THROTTLE].cmd_src;
        sec.turn_signal = (Paddock__V1__TurnSignal)r->turn_signal;
        sec.parking_brake = (Paddock__V1__ParkingBrakeStatus)r->parking_brake;
        sec.drive_mode = (Paddock__V1__DriveMode)r->drive_mode;
        sec.gear_cmd_src = (Paddock__V1__CmdSrc)r->gear_cmd_src;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_SECONDARY;
        rep.secondary = &sec;
        break;
    case PDK_RPT_AW_STATUS:
        aw.control_mode = (Paddock__V1__AwControlMode)r->aw_mode;
        aw.longitudinal_velocity = r->aw_longitudinal_mps;
        aw.lateral_velocity = r->aw_lateral_mps;
        aw.heading_rate = r->aw_heading_rate_radps;
        aw.steering_tire_angle = r->aw_tire_angle_rad;
        aw.gear = (Paddock__V1__AwGear)r->aw_gear;
        rep.report_case = PADDOCK__V1__DBW_REPORT__REPORT_AW_STATUS;
        rep.aw_status = &aw;
        break;
    default:
        return PDK_ERR_INVALID_ARGUMENT;
    }
    return pdk_wire_pack_append(out, &rep.base);
}

pdk_error pdk_wire_dbw_report_frame_append(pdk_buf *out, uint32_t subscription_id,
                                           const uint8_t *common, size_t common_len)
{
    return pdk_wire_frame_with_sub_append(out, PADDOCK__V1__FRAME__BODY_DBW_REPORT, subscription_id,
                                          common, common_len);
}
