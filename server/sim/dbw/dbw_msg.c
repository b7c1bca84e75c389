/* The kit's vocabulary (dbw.h): report periods, the names of its reason
 * codes, the CRC-8 and what a message must be to be taken. */
#include <math.h>
#include <string.h>

#include "dbw/dbw.h"

#define MAX_LATENCY_S 0.4
#define MAX_REPORT_DELAY_S 0.5

/* 120 Hz: steering, wheel speeds and IMU every tick; brake, throttle, ULC
 * and vehicle velocity at 60 Hz; gear, system and GNSS at 10 Hz; the
 * secondary blocks at 5 Hz; Autoware's status at 10 Hz. */
const uint32_t pdk_dbw_report_period_ticks[PDK_RPT_COUNT] = {
    [PDK_RPT_STEER] = 1,        [PDK_RPT_BRAKE] = 2,
    [PDK_RPT_THROTTLE] = 2,     [PDK_RPT_GEAR] = 12,
    [PDK_RPT_SYSTEM] = 12,      [PDK_RPT_ULC] = 2,
    [PDK_RPT_WHEEL_SPEEDS] = 1, [PDK_RPT_VEHICLE_VELOCITY] = 2,
    [PDK_RPT_IMU] = 1,          [PDK_RPT_GNSS] = 12,
    [PDK_RPT_SECONDARY] = 24,   [PDK_RPT_AW_STATUS] = 12,
};

/* ---- names ------------------------------------------------------------ */

typedef struct code_name {
    int code;
    const char *name;
} code_name;

static const code_name disengage_names[] = {
    {PDK_DIS_NONE, ""},
    {PDK_DIS_POWER_CYCLE, "PowerCycle"},
    {PDK_DIS_LOCKOUT_VEHICLE_VELOCITY, "LockoutVehicleVelocity"},
    {PDK_DIS_LOCKOUT_VEHICLE_ACCEL, "LockoutVehicleAccel"},
    {PDK_DIS_LOCKOUT_GEAR_REVERSE, "LockoutGearReverse"},
    {PDK_DIS_STEER_CMD_DISENGAGE, "SteerCmdDisengage"},
    {PDK_DIS_STEER_CMD_INVALID_CRC, "SteerCmdInvalidCrc"},
    {PDK_DIS_STEER_CMD_INVALID_RC, "SteerCmdInvalidRc"},
    {PDK_DIS_STEER_CMD_TIMEOUT, "SteerCmdTimeout"},
    {PDK_DIS_STEER_RPT_FAULT, "SteerRptFault"},
    {PDK_DIS_STEER_RPT_OVERRIDE, "SteerRptOverride"},
    {PDK_DIS_STEER_RPT_DISENGAGE, "SteerRptDisengage"},
    {PDK_DIS_BRAKE_CMD_DISENGAGE, "BrakeCmdDisengage"},
    {PDK_DIS_BRAKE_CMD_INVALID_CRC, "BrakeCmdInvalidCrc"},
    {PDK_DIS_BRAKE_CMD_INVALID_RC, "BrakeCmdInvalidRc"},
    {PDK_DIS_BRAKE_CMD_TIMEOUT, "BrakeCmdTimeout"},
    {PDK_DIS_BRAKE_RPT_FAULT, "BrakeRptFault"},
    {PDK_DIS_BRAKE_RPT_OVERRIDE, "BrakeRptOverride"},
    {PDK_DIS_BRAKE_RPT_DISENGAGE, "BrakeRptDisengage"},
    {PDK_DIS_THRTL_CMD_DISENGAGE, "ThrtlCmdDisengage"},
    {PDK_DIS_THRTL_CMD_INVALID_CRC, "ThrtlCmdInvalidCrc"},
    {PDK_DIS_THRTL_CMD_INVALID_RC, "ThrtlCmdInvalidRc"},
    {PDK_DIS_THRTL_CMD_TIMEOUT, "ThrtlCmdTimeout"},
    {PDK_DIS_THRTL_RPT_FAULT, "ThrtlRptFault"},
    {PDK_DIS_THRTL_RPT_OVERRIDE, "ThrtlRptOverride"},
    {PDK_DIS_THRTL_RPT_DISENGAGE, "ThrtlRptDisengage"},
    {PDK_DIS_GEAR_RPT_FAULT, "GearRptFault"},
    {PDK_DIS_GEAR_RPT_OVERRIDE, "GearRptOverride"},
    {PDK_DIS_EXTERNAL_BRAKE, "ExternalBrake"},
    {PDK_DIS_SYSTEM_DISABLE_CMD, "SystemDisableCmd"},
    {PDK_DIS_SYSTEM_DISABLE_BTN, "SystemDisableBtn"},
};

static const code_name not_ready_names[] = {
    {PDK_NR_NONE, ""},
    {PDK_NR_MISSING_REPORT_STEER, "MissingReportSteer"},
    {PDK_NR_MISSING_REPORT_BRAKE, "MissingReportBrake"},
    {PDK_NR_MISSING_REPORT_THRTL, "MissingReportThrtl"},
    {PDK_NR_MISSING_REPORT_GEAR, "MissingReportGear"},
    {PDK_NR_FAULT_STEER, "FaultSteer"},
    {PDK_NR_FAULT_BRAKE, "FaultBrake"},
    {PDK_NR_FAULT_THRTL, "FaultThrtl"},
    {PDK_NR_FAULT_GEAR, "FaultGear"},
    {PDK_NR_BAD_CRC_RC_CMD_STEER, "BadCrcRcCmdSteer"},
    {PDK_NR_BAD_CRC_RC_CMD_BRAKE, "BadCrcRcCmdBrake"},
    {PDK_NR_BAD_CRC_RC_CMD_THRTL, "BadCrcRcCmdThrtl"},
    {PDK_NR_BAD_CRC_CMD_GEAR, "BadCrcCmdGear"},
    {PDK_NR_OVERRIDE_ACTIVE_STEER, "OverrideActiveSteer"},
    {PDK_NR_OVERRIDE_ACTIVE_BRAKE, "OverrideActiveBrake"},
    {PDK_NR_OVERRIDE_ACTIVE_THRTL, "OverrideActiveThrtl"},
    {PDK_NR_OVERRIDE_ACTIVE_GEAR, "OverrideActiveGear"},
    {PDK_NR_OVERRIDE_LATCHED_STEER, "OverrideLatchedSteer"},
    {PDK_NR_OVERRIDE_LATCHED_BRAKE, "OverrideLatchedBrake"},
    {PDK_NR_OVERRIDE_LATCHED_THRTL, "OverrideLatchedThrtl"},
    {PDK_NR_OVERRIDE_OTHER_STEER, "OverrideOtherSteer"},
    {PDK_NR_OVERRIDE_OTHER_BRAKE, "OverrideOtherBrake"},
    {PDK_NR_OVERRIDE_OTHER_THRTL, "OverrideOtherThrtl"},
    {PDK_NR_OVERRIDE_OTHER_GEAR, "OverrideOtherGear"},
    {PDK_NR_NOT_READY_STEER, "NotReadySteer"},
    {PDK_NR_NOT_READY_BRAKE, "NotReadyBrake"},
    {PDK_NR_NOT_READY_THRTL, "NotReadyThrtl"},
    {PDK_NR_MISSING_CMD_STEER, "MissingCmdSteer"},
    {PDK_NR_MISSING_CMD_BRAKE, "MissingCmdBrake"},
    {PDK_NR_MISSING_CMD_THRTL, "MissingCmdThrtl"},
    {PDK_NR_LOCKOUT_VEHICLE_VELOCITY, "LockoutVehicleVelocity"},
    {PDK_NR_LOCKOUT_VEHICLE_ACCEL, "LockoutVehicleAccel"},
    {PDK_NR_LOCKOUT_GEAR_REVERSE, "LockoutGearReverse"},
    {PDK_NR_NOT_ENABLE_CMD_STEER, "NotEnableCmdSteer"},
    {PDK_NR_NOT_ENABLE_CMD_BRAKE, "NotEnableCmdBrake"},
    {PDK_NR_NOT_ENABLE_CMD_THRTL, "NotEnableCmdThrtl"},
    {PDK_NR_SYSTEM_REENGAGE_DELAY, "SystemReengageDelay"},
    {PDK_NR_SYSTEM_LOCKOUT, "SystemLockout"},
    {PDK_NR_SYSTEM_DISABLED, "SystemDisabled"},
};

static const char *name_of(const code_name *t, size_t n, int code)
{
    for (size_t i = 0; i < n; i++) {
        if (t[i].code == code) {
            return t[i].name;
        }
    }
    return "Unknown";
}

const char *pdk_dbw_disengage_name(int code)
{
    return name_of(disengage_names, sizeof disengage_names / sizeof disengage_names[0], code);
}

const char *pdk_dbw_not_ready_name(int code)
{
    return name_of(not_ready_names, sizeof not_ready_names / sizeof not_ready_names[0], code);
}

/* ---- CRC ---------------------------------------------------------------- */

uint8_t pdk_crc8_j1850(const uint8_t *data, uint32_t n)
{
    uint8_t crc = 0xFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++) {
            crc = (uint8_t)((crc & 0x80u) ? ((unsigned)(crc << 1) ^ 0x1Du) : (unsigned)(crc << 1));
        }
    }
    return (uint8_t)(crc ^ 0xFFu);
}

typedef struct crc_bytes {
    uint8_t b[40];
    uint32_t n;
} crc_bytes;

static void put_u8(crc_bytes *c, unsigned v)
{
    c->b[c->n++] = (uint8_t)v;
}

static void put_f32(crc_bytes *c, double v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    for (int i = 0; i < 4; i++) {
        put_u8(c, (bits >> (8 * i)) & 0xFFu);
    }
}

uint8_t pdk_dbw_crc8(const pdk_dbw_msg *msg)
{
    crc_bytes c = {.n = 0};
    put_u8(&c, (unsigned)msg->kind);
    switch (msg->kind) {
    case PDK_DBW_MSG_STEER:
    case PDK_DBW_MSG_BRAKE:
    case PDK_DBW_MSG_THROTTLE: {
        const pdk_dbw_chan_cmd *k = &msg->u.chan;
        put_f32(&c, k->cmd);
        put_f32(&c, k->rate_a);
        put_f32(&c, k->rate_b);
        put_u8(&c, (unsigned)k->cmd_type);
        put_u8(&c, (k->enable ? 1u : 0u) | (k->clear ? 2u : 0u) | (k->ignore ? 4u : 0u));
        put_u8(&c, k->rc);
        break;
    }
    case PDK_DBW_MSG_ULC: {
        const pdk_dbw_ulc_cmd *u = &msg->u.ulc;
        put_f32(&c, u->cmd);
        put_f32(&c, u->limit_accel);
        put_f32(&c, u->limit_decel);
        put_f32(&c, u->limit_jerk_throttle);
        put_f32(&c, u->limit_jerk_brake);
        put_u8(&c, (unsigned)u->cmd_type);
        put_u8(&c, (u->enable ? 1u : 0u) | (u->clear ? 2u : 0u) | (u->enable_shift ? 4u : 0u) |
                       (u->enable_shift_park ? 8u : 0u) | (u->coast_decel ? 16u : 0u));
        put_u8(&c, u->rc);
        break;
    }
    case PDK_DBW_MSG_GEAR:
        put_u8(&c, (unsigned)msg->u.value);
        break;
    case PDK_DBW_MSG_SYSTEM:
        put_u8(&c, (unsigned)msg->u.system.cmd & 0xFFu);
        put_u8(&c, (unsigned)msg->u.system.sync_mode & 0xFFu);
        put_u8(&c, (unsigned)msg->u.system.validate_crc & 0xFFu);
        put_u8(&c, (unsigned)msg->u.system.comms_loss_arm & 0xFFu);
        put_u8(&c, msg->u.system.rc);
        break;
    default:
        break;
    }
    return pdk_crc8_j1850(c.b, c.n);
}

/* ---- validation --------------------------------------------------------- */

static int is_num(double v)
{
    return isfinite(v);
}

/* A rate limit: 0 (default), positive, or +INFINITY (none). */
static int rate_ok(double v)
{
    return !isnan(v) && v >= 0.0;
}

static int has_crc(int32_t kind)
{
    return kind == PDK_DBW_MSG_STEER || kind == PDK_DBW_MSG_BRAKE || kind == PDK_DBW_MSG_THROTTLE ||
           kind == PDK_DBW_MSG_ULC || kind == PDK_DBW_MSG_GEAR || kind == PDK_DBW_MSG_SYSTEM;
}

static const char *chan_problem(const pdk_dbw_msg *msg)
{
    const pdk_dbw_chan_cmd *k = &msg->u.chan;
    if (!is_num(k->cmd)) {
        return "cmd must be a finite number";
    }
    if (!rate_ok(k->rate_a) || !rate_ok(k->rate_b)) {
        return msg->kind == PDK_DBW_MSG_STEER
                   ? "cmd_rate and cmd_accel must be 0 (the vehicle's default), positive or "
                     "infinity (no limit)"
                   : "rate_inc and rate_dec must be 0 (the vehicle's default), positive or "
                     "infinity (no limit)";
    }
    if (k->rc > 15u) {
        return "rc (the rolling counter) must be within 0..15";
    }
    int t = k->cmd_type;
    switch (msg->kind) {
    case PDK_DBW_MSG_STEER:
        if (t == PDK_STEER_CMD_TORQUE) {
            return "steering cmd_type TORQUE (1) is not supported: the model has no column "
                   "torque; use ANGLE 2, CURVATURE 3, YAW_RATE 4 or PERCENT 14";
        }
        if (t == PDK_STEER_CMD_CALIBRATE) {
            return "steering cmd_type CALIBRATE (15) is not supported: the simulated "
                   "steering-angle sensor has no offset to calibrate";
        }
        if (t != PDK_DBW_CMD_NONE && t != PDK_STEER_CMD_ANGLE && t != PDK_STEER_CMD_CURVATURE &&
            t != PDK_STEER_CMD_YAW_RATE && t != PDK_STEER_CMD_PERCENT) {
            return "steering cmd_type must be NONE 0, ANGLE 2, CURVATURE 3, YAW_RATE 4 or "
                   "PERCENT 14";
        }
        break;
    case PDK_DBW_MSG_BRAKE:
        if (t != PDK_DBW_CMD_NONE && t != PDK_BRAKE_CMD_PRESSURE && t != PDK_BRAKE_CMD_TORQUE &&
            t != PDK_BRAKE_CMD_ACCEL && t != PDK_BRAKE_CMD_ACCEL_ACC &&
            t != PDK_BRAKE_CMD_ACCEL_AEB && t != PDK_BRAKE_CMD_PEDAL_RAW &&
            t != PDK_BRAKE_CMD_PERCENT) {
            return "brake cmd_type must be NONE 0, PRESSURE 1, TORQUE 2, ACCEL 8, ACCEL_ACC 9, "
                   "ACCEL_AEB 10, PEDAL_RAW 13 or PERCENT 14";
        }
        break;
    default:
        if (t != PDK_DBW_CMD_NONE && t != PDK_THROTTLE_CMD_PEDAL_RAW &&
            t != PDK_THROTTLE_CMD_PERCENT) {
            return "throttle cmd_type must be NONE 0, PEDAL_RAW 13 or PERCENT 14";
        }
        break;
    }
    return NULL;
}

static const char *fault_problem(const pdk_dbw_fault_cmd *f)
{
    if (!is_num(f->value)) {
        return "fault value must be a finite number";
    }
    switch (f->kind) {
    case PDK_FAULT_CLEAR:
    case PDK_FAULT_POWER_CYCLE:
        return NULL;
    case PDK_FAULT_STUCK:
    case PDK_FAULT_SATURATED:
        return f->target < 0 || f->target > 2
                   ? "fault target must be a channel with an actuator: steer 0, brake 1, "
                     "throttle 2"
                   : NULL;
    case PDK_FAULT_LATENCY:
        if (f->target < 0 || f->target > 2) {
            return "fault target must be a channel with an actuator: steer 0, brake 1, throttle 2";
        }
        return f->value < 0.0 || f->value > MAX_LATENCY_S
                   ? "added latency (fault value) must be within 0..0.4 s"
                   : NULL;
    case PDK_FAULT_MODULE_RESTART:
        return f->target < 0 || f->target > 2
                   ? "fault target must be a channel with an actuator: steer 0, brake 1, "
                     "throttle 2"
                   : NULL;
    case PDK_FAULT_CHANNEL:
    case PDK_FAULT_REPORT_MISSING:
        return f->target < 0 || f->target > PDK_DBW_TARGET_GEAR
                   ? "fault target must be a channel: steer 0, brake 1, throttle 2, gear 3"
                   : NULL;
    case PDK_FAULT_REPORT_DROP:
        if (f->target < 0 || f->target >= PDK_RPT_COUNT) {
            return "fault target must be a report kind, 0..11 (DbwReportKind)";
        }
        return f->value < 0.0 || f->value > 1.0 ? "the share of reports dropped (fault value) "
                                                  "must be within 0..1"
                                                : NULL;
    case PDK_FAULT_REPORT_DELAY:
        if (f->target < 0 || f->target >= PDK_RPT_COUNT) {
            return "fault target must be a report kind, 0..11 (DbwReportKind)";
        }
        return f->value < 0.0 || f->value > MAX_REPORT_DELAY_S
                   ? "report delay (fault value) must be within 0..0.5 s"
                   : NULL;
    case PDK_FAULT_SENSOR_NOISE:
    case PDK_FAULT_SENSOR_BIAS:
        if (f->target < 0 || f->target >= PDK_SENSOR_COUNT) {
            return "fault target must be a sensor axis: accel x, y, z 0..2, gyro x, y, z 3..5, "
                   "GNSS 6";
        }
        if (f->kind == PDK_FAULT_SENSOR_NOISE && (f->value < 0.0 || f->value > 1000.0)) {
            return "sensor noise multiplier (fault value) must be within 0..1000";
        }
        return fabs(f->value) > 1000.0 ? "sensor bias (fault value) must be within -1000..1000"
                                       : NULL;
    default:
        return "fault kind must be CLEAR 0, STUCK 1, SATURATED 2, LATENCY 3, CHANNEL 4, "
               "REPORT_DROP 5, REPORT_DELAY 6, REPORT_MISSING 7, SENSOR_NOISE 8, SENSOR_BIAS 9, "
               "POWER_CYCLE 10 or MODULE_RESTART 11";
    }
}

const char *pdk_dbw_msg_problem(const pdk_dbw_msg *msg, const pdk_vehicle_def *def)
{
    if (msg == NULL || def == NULL) {
        return "message is NULL";
    }
    if (msg->crc < -1 || msg->crc > 255) {
        return "crc must be within 0..255 (one byte)";
    }
    if (msg->crc >= 0 && !has_crc(msg->kind)) {
        return "only steering, brake, throttle, gear, ULC and system commands carry a CRC";
    }
    switch (msg->kind) {
    case PDK_DBW_MSG_STEER:
    case PDK_DBW_MSG_BRAKE:
    case PDK_DBW_MSG_THROTTLE:
        return chan_problem(msg);
    case PDK_DBW_MSG_GEAR:
        return msg->u.value < 0 || msg->u.value > 15
                   ? "gear must be a Gear value: NONE 0, PARK 1, REVERSE 2, NEUTRAL 3, DRIVE 4, "
                     "LOW 5, MANUAL 6, SPORT 7 or CALIBRATE 15"
                   : NULL;
    case PDK_DBW_MSG_ULC: {
        const pdk_dbw_ulc_cmd *u = &msg->u.ulc;
        if (!is_num(u->cmd)) {
            return "ULC cmd must be a finite number";
        }
        if (!rate_ok(u->limit_accel) || !rate_ok(u->limit_decel) ||
            !rate_ok(u->limit_jerk_throttle) || !rate_ok(u->limit_jerk_brake)) {
            return "ULC limits must be 0 (the vehicle's default), positive or infinity (none)";
        }
        if (u->cmd_type != PDK_DBW_CMD_NONE && u->cmd_type != PDK_ULC_CMD_VELOCITY &&
            u->cmd_type != PDK_ULC_CMD_ACCEL) {
            return "ULC cmd_type must be NONE 0, VELOCITY 1 or ACCEL 2";
        }
        return u->rc > 15u ? "rc (the rolling counter) must be within 0..15" : NULL;
    }
    case PDK_DBW_MSG_TURN_SIGNAL:
        return msg->u.value < 0 || msg->u.value > 3
                   ? "turn signal must be NONE 0, LEFT 1, RIGHT 2 or HAZARD 3"
                   : NULL;
    case PDK_DBW_MSG_MISC:
        return msg->u.value < 0 || msg->u.value > 2 ? "parking_brake must be NONE 0, ON 1 or OFF 2"
                                                    : NULL;
    case PDK_DBW_MSG_DRIVE_MODE:
        if (msg->u.value < PDK_DRIVE_TURF || msg->u.value > PDK_DRIVE_AWD) {
            return "drive_mode must be TURF 0, 2WD 1 or AWD 2";
        }
        return def->powertrain.kind != PDK_POWERTRAIN_UTV
                   ? "drive_mode applies to a vehicle with the UTV's Turf/2WD/AWD switch only"
                   : NULL;
    case PDK_DBW_MSG_SYSTEM: {
        const pdk_dbw_system_cmd *y = &msg->u.system;
        if (y->cmd < PDK_DBW_SYS_NONE || y->cmd > PDK_DBW_SYS_DISABLE) {
            return "system cmd must be NONE 0, ENABLE 1 or DISABLE 2";
        }
        if (y->sync_mode < -1 || y->sync_mode > PDK_DBW_SYNC_ALL_OR_NONE_WITH_BTN) {
            return "sync_mode must be NONE 0, DISENGAGES 1, ALL_OR_NONE 2 or "
                   "ALL_OR_NONE_WITH_BTN 3";
        }
        if (y->validate_crc < -1 || y->validate_crc > 1 || y->comms_loss_arm < -1 ||
            y->comms_loss_arm > 1) {
            return "validate_cmd_crc_rc and comms_loss_arm are booleans";
        }
        return y->rc > 15u ? "rc (the rolling counter) must be within 0..15" : NULL;
    }
    case PDK_DBW_MSG_BUTTON:
        return msg->u.value < PDK_DBW_BTN_ENABLE ||
                       msg->u.value > PDK_DBW_BTN_EXTERNAL_BRAKE_RELEASE
                   ? "button must be ENABLE 1, DISABLE 2, EXTERNAL_BRAKE 3 or "
                     "EXTERNAL_BRAKE_RELEASE 4"
                   : NULL;
    case PDK_DBW_MSG_FAULT:
        return fault_problem(&msg->u.fault);
    case PDK_DBW_MSG_AW_CONTROL: {
        const pdk_dbw_aw_control *a = &msg->u.aw;
        if (!is_num(a->steering_tire_angle_rad) || !is_num(a->steering_tire_rate_radps) ||
            !is_num(a->velocity_mps) || !is_num(a->acceleration_mps2) || !is_num(a->jerk_mps3)) {
            return "Autoware control fields must be finite numbers";
        }
        return NULL;
    }
    case PDK_DBW_MSG_AW_GEAR: {
        int g = msg->u.value;
        return g < 0 || g > 24
                   ? "Autoware gear must be NONE 0, NEUTRAL 1, DRIVE 2..19, REVERSE 20..21, "
                     "PARK 22 or LOW 23..24"
                   : NULL;
    }
    case PDK_DBW_MSG_AW_MODE:
        return msg->u.value < PDK_AW_MODE_NO_COMMAND || msg->u.value > PDK_AW_MODE_MANUAL
                   ? "Autoware control mode command must be NO_COMMAND 0, AUTONOMOUS 1, "
                     "AUTONOMOUS_STEER_ONLY 2, AUTONOMOUS_VELOCITY_ONLY 3 or MANUAL 4"
                   : NULL;
    default:
        return "message kind must be 1..14 (steering, brake, throttle, gear, ULC, turn signal, "
               "misc, drive mode, system, button, fault, Autoware control, gear, mode)";
    }
}

/* The refusals above are worded to say their kind: "is not supported", a
 * bound the value must be "within", a key that "applies to" another kind of
 * vehicle. */
pdk_error pdk_dbw_problem_error(const char *why)
{
    if (why == NULL) {
        return PDK_OK;
    }
    if (strstr(why, "not supported") != NULL) {
        return PDK_ERR_UNSUPPORTED;
    }
    return strstr(why, "within") != NULL || strstr(why, "applies to") != NULL
               ? PDK_ERR_OUT_OF_RANGE
               : PDK_ERR_INVALID_ARGUMENT;
}
