/* A drive-by-wire kit on a vehicle, as a Dataspeed DBW2 kit behaves
 * (Dataspeed's dbw_ros packages, ds_dbw_msgs and ds_dbw_can): steering, brake
 * and throttle channels with their commands, rate limits, watchdog, rolling
 * counter, CRC and driver-override latch; the gear channel with its rejects;
 * the universal longitudinal controller (ULC); the system's enable state, sync
 * mode, lockouts and comms-loss braking; the actuators' dynamics; fault
 * injection.
 *
 * The kit sits between two sets of controls: the driver's (the pedal,
 * wheel and lever a remote human drives with, pdk_dbw_cmd in input.h) and
 * the kit's commands (pdk_dbw_msg). A channel that is enabled drives its
 * actuator; otherwise the driver's control does. Driver input beyond a
 * threshold on an enabled channel is an override.
 *
 * Pure and deterministic: time is the tick count (1/120 s each), so every
 * timeout and delay replays exactly; nothing here allocates or does I/O.
 * Numeric enum values are the kit's, so a bridge to ds_dbw_msgs is a field
 * copy. */
#ifndef PDK_DBW_H
#define PDK_DBW_H

#include <stdint.h>

#include "sim/dbw_def.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/vehicle_def.h"

/* The kit's channels with a command stream and a watchdog. */
typedef enum pdk_dbw_channel {
    PDK_DBW_CH_STEER = 0,
    PDK_DBW_CH_BRAKE = 1,
    PDK_DBW_CH_THROTTLE = 2,
    PDK_DBW_CH_COUNT = 3,
} pdk_dbw_channel;

/* cmd_type values (Dataspeed ds_dbw_msgs). */
enum {
    PDK_DBW_CMD_NONE = 0,
    PDK_STEER_CMD_TORQUE = 1, /* unsupported: the model has no column torque */
    PDK_STEER_CMD_ANGLE = 2,
    PDK_STEER_CMD_CURVATURE = 3,
    PDK_STEER_CMD_YAW_RATE = 4,
    PDK_STEER_CMD_PERCENT = 14,
    PDK_STEER_CMD_CALIBRATE = 15,
    PDK_BRAKE_CMD_PRESSURE = 1,
    PDK_BRAKE_CMD_TORQUE = 2,
    PDK_BRAKE_CMD_ACCEL = 8,
    PDK_BRAKE_CMD_ACCEL_ACC = 9,
    PDK_BRAKE_CMD_ACCEL_AEB = 10,
    PDK_BRAKE_CMD_PEDAL_RAW = 13,
    PDK_BRAKE_CMD_PERCENT = 14,
    PDK_THROTTLE_CMD_PEDAL_RAW = 13,
    PDK_THROTTLE_CMD_PERCENT = 14,
    PDK_ULC_CMD_VELOCITY = 1,
    PDK_ULC_CMD_ACCEL = 2,
};

typedef enum pdk_dbw_system_state {
    PDK_DBW_MANUAL = 0,
    PDK_DBW_READY = 1,
    PDK_DBW_ACTIVE = 2,
    PDK_DBW_FAULT = 7,
} pdk_dbw_system_state;

typedef enum pdk_dbw_sync_mode {
    PDK_DBW_SYNC_NONE = 0,
    PDK_DBW_SYNC_DISENGAGES = 1,
    PDK_DBW_SYNC_ALL_OR_NONE = 2,
    PDK_DBW_SYNC_ALL_OR_NONE_WITH_BTN = 3,
} pdk_dbw_sync_mode;

typedef enum pdk_dbw_cmd_src {
    PDK_DBW_SRC_USER = 0,
    PDK_DBW_SRC_ULC = 1,
    PDK_DBW_SRC_REMOTE = 2,
    PDK_DBW_SRC_BUTTON = 3,
    PDK_DBW_SRC_COMMS_LOSS = 4,
    PDK_DBW_SRC_LOCKOUT = 5,
    PDK_DBW_SRC_CALIBRATION = 6,
} pdk_dbw_cmd_src;

typedef enum pdk_dbw_gear_reject {
    PDK_DBW_REJECT_NONE = 0,
    PDK_DBW_REJECT_FAULT = 1,
    PDK_DBW_REJECT_UNSUPPORTED = 2,
    PDK_DBW_REJECT_SHIFT_IN_PROGRESS = 3,
    PDK_DBW_REJECT_OVERRIDE = 4,
    PDK_DBW_REJECT_BRAKE_HOLD = 5,
    PDK_DBW_REJECT_VEHICLE_SPEED = 6,
    PDK_DBW_REJECT_VEHICLE = 7,
} pdk_dbw_gear_reject;

/* The kit's ReasonNotReady codes (DBW2: ds_dbw_can's dispatch.hpp). */
typedef enum pdk_dbw_not_ready {
    PDK_NR_NONE = 0x00,
    PDK_NR_MISSING_REPORT_STEER = 0x10,
    PDK_NR_MISSING_REPORT_BRAKE = 0x11,
    PDK_NR_MISSING_REPORT_THRTL = 0x12,
    PDK_NR_MISSING_REPORT_GEAR = 0x13,
    PDK_NR_FAULT_STEER = 0x18,
    PDK_NR_FAULT_BRAKE = 0x19,
    PDK_NR_FAULT_THRTL = 0x1A,
    PDK_NR_FAULT_GEAR = 0x1B,
    PDK_NR_BAD_CRC_RC_CMD_STEER = 0x1C,
    PDK_NR_BAD_CRC_RC_CMD_BRAKE = 0x1D,
    PDK_NR_BAD_CRC_RC_CMD_THRTL = 0x1E,
    PDK_NR_BAD_CRC_CMD_GEAR = 0x1F,
    PDK_NR_OVERRIDE_ACTIVE_STEER = 0x20,
    PDK_NR_OVERRIDE_ACTIVE_BRAKE = 0x21,
    PDK_NR_OVERRIDE_ACTIVE_THRTL = 0x22,
    PDK_NR_OVERRIDE_ACTIVE_GEAR = 0x23,
    PDK_NR_OVERRIDE_LATCHED_STEER = 0x24,
    PDK_NR_OVERRIDE_LATCHED_BRAKE = 0x25,
    PDK_NR_OVERRIDE_LATCHED_THRTL = 0x26,
    PDK_NR_OVERRIDE_OTHER_STEER = 0x28,
    PDK_NR_OVERRIDE_OTHER_BRAKE = 0x29,
    PDK_NR_OVERRIDE_OTHER_THRTL = 0x2A,
    PDK_NR_OVERRIDE_OTHER_GEAR = 0x2B,
    PDK_NR_NOT_READY_STEER = 0x30,
    PDK_NR_NOT_READY_BRAKE = 0x31,
    PDK_NR_NOT_READY_THRTL = 0x32,
    PDK_NR_MISSING_CMD_STEER = 0x38,
    PDK_NR_MISSING_CMD_BRAKE = 0x39,
    PDK_NR_MISSING_CMD_THRTL = 0x3A,
    PDK_NR_LOCKOUT_VEHICLE_VELOCITY = 0xA0,
    PDK_NR_LOCKOUT_VEHICLE_ACCEL = 0xA1,
    PDK_NR_LOCKOUT_GEAR_REVERSE = 0xA2,
    PDK_NR_NOT_ENABLE_CMD_STEER = 0xC0,
    PDK_NR_NOT_ENABLE_CMD_BRAKE = 0xC1,
    PDK_NR_NOT_ENABLE_CMD_THRTL = 0xC2,
    PDK_NR_SYSTEM_REENGAGE_DELAY = 0xF8,
    PDK_NR_SYSTEM_LOCKOUT = 0xFA,
    PDK_NR_SYSTEM_DISABLED = 0xFE,
    PDK_NR_UNKNOWN = 0xFF,
} pdk_dbw_not_ready;

/* The kit's ReasonDisengage codes; a channel's reason is the steering one
 * plus 0x20 per channel (brake 0x4x, throttle 0x6x). */
typedef enum pdk_dbw_disengage {
    PDK_DIS_NONE = 0x00,
    PDK_DIS_POWER_CYCLE = 0x01,
    PDK_DIS_LOCKOUT_VEHICLE_VELOCITY = 0x10,
    PDK_DIS_LOCKOUT_VEHICLE_ACCEL = 0x11,
    PDK_DIS_LOCKOUT_GEAR_REVERSE = 0x12,
    PDK_DIS_STEER_CMD_DISENGAGE = 0x21,
    PDK_DIS_STEER_CMD_INVALID_CRC = 0x22,
    PDK_DIS_STEER_CMD_INVALID_RC = 0x23,
    PDK_DIS_STEER_CMD_TIMEOUT = 0x24,
    PDK_DIS_STEER_RPT_FAULT = 0x25,
    PDK_DIS_STEER_RPT_OVERRIDE = 0x26,
    PDK_DIS_STEER_RPT_DISENGAGE = 0x27,
    PDK_DIS_BRAKE_CMD_DISENGAGE = 0x41,
    PDK_DIS_BRAKE_CMD_INVALID_CRC = 0x42,
    PDK_DIS_BRAKE_CMD_INVALID_RC = 0x43,
    PDK_DIS_BRAKE_CMD_TIMEOUT = 0x44,
    PDK_DIS_BRAKE_RPT_FAULT = 0x45,
    PDK_DIS_BRAKE_RPT_OVERRIDE = 0x46,
    PDK_DIS_BRAKE_RPT_DISENGAGE = 0x47,
    PDK_DIS_THRTL_CMD_DISENGAGE = 0x61,
    PDK_DIS_THRTL_CMD_INVALID_CRC = 0x62,
    PDK_DIS_THRTL_CMD_INVALID_RC = 0x63,
    PDK_DIS_THRTL_CMD_TIMEOUT = 0x64,
    PDK_DIS_THRTL_RPT_FAULT = 0x65,
    PDK_DIS_THRTL_RPT_OVERRIDE = 0x66,
    PDK_DIS_THRTL_RPT_DISENGAGE = 0x67,
    PDK_DIS_GEAR_RPT_FAULT = 0x85,
    PDK_DIS_GEAR_RPT_OVERRIDE = 0x86,
    PDK_DIS_EXTERNAL_BRAKE = 0xA0,
    PDK_DIS_SYSTEM_DISABLE_CMD = 0xC0,
    PDK_DIS_SYSTEM_DISABLE_BTN = 0xC1,
    PDK_DIS_UNKNOWN = 0xFF,
} pdk_dbw_disengage;

/* The kit's name for a reason ("SteerCmdTimeout", "MissingCmdBrake"), ""
 * for NONE, "Unknown" for a code it does not have. */
const char *pdk_dbw_disengage_name(int code);
const char *pdk_dbw_not_ready_name(int code);

/* What a pdk_dbw_msg carries. */
typedef enum pdk_dbw_msg_kind {
    PDK_DBW_MSG_STEER = 1,       /* SteeringCmd */
    PDK_DBW_MSG_BRAKE = 2,       /* BrakeCmd */
    PDK_DBW_MSG_THROTTLE = 3,    /* ThrottleCmd */
    PDK_DBW_MSG_GEAR = 4,        /* GearCmd */
    PDK_DBW_MSG_ULC = 5,         /* UlcCmd */
    PDK_DBW_MSG_TURN_SIGNAL = 6, /* TurnSignalCmd */
    PDK_DBW_MSG_MISC = 7,        /* MiscCmd: the parking brake */
    PDK_DBW_MSG_DRIVE_MODE = 8,  /* DriveModeCmd: the UTV's Turf/2WD/AWD switch */
    PDK_DBW_MSG_SYSTEM = 9,      /* enable / disable, sync mode, CRC check, comms-loss arm */
    PDK_DBW_MSG_BUTTON = 10,     /* the kit's physical buttons: enable, disable, external brake */
    PDK_DBW_MSG_FAULT = 11,      /* fault injection */
    PDK_DBW_MSG_AW_CONTROL = 12, /* Autoware Control: tyre angle, target v / a / jerk */
    PDK_DBW_MSG_AW_GEAR = 13,    /* Autoware GearCommand (its own gear numbers) */
    PDK_DBW_MSG_AW_MODE = 14,    /* Autoware ControlModeCommand */
} pdk_dbw_msg_kind;

/* A steering, brake or throttle command. rate_a / rate_b are cmd_rate and
 * cmd_accel for steering, rate_inc and rate_dec for brake and throttle; 0
 * means the vehicle's default, INFINITY no limit (the actuator's own limit
 * still holds). */
typedef struct pdk_dbw_chan_cmd {
    double cmd;
    double rate_a;
    double rate_b;
    int32_t cmd_type;
    uint8_t enable, clear, ignore;
    uint8_t rc; /* the rolling counter, 0..15; must change on every command */
} pdk_dbw_chan_cmd;

typedef struct pdk_dbw_ulc_cmd {
    double cmd;         /* m/s (VELOCITY) or m/s^2 (ACCEL) */
    double limit_accel; /* 0 default, INF none */
    double limit_decel;
    double limit_jerk_throttle;
    double limit_jerk_brake;
    int32_t cmd_type;
    uint8_t enable, clear, enable_shift, enable_shift_park, coast_decel;
    uint8_t rc;
} pdk_dbw_ulc_cmd;

enum { PDK_DBW_SYS_NONE = 0, PDK_DBW_SYS_ENABLE = 1, PDK_DBW_SYS_DISABLE = 2 };
enum {
    PDK_DBW_BTN_ENABLE = 1,
    PDK_DBW_BTN_DISABLE = 2,
    PDK_DBW_BTN_EXTERNAL_BRAKE = 3,
    PDK_DBW_BTN_EXTERNAL_BRAKE_RELEASE = 4
};

typedef struct pdk_dbw_system_cmd {
    int32_t cmd;            /* PDK_DBW_SYS_* */
    int32_t sync_mode;      /* pdk_dbw_sync_mode; -1 keeps it */
    int32_t validate_crc;   /* 1 check CRC and rolling counter, 0 not, -1 keep */
    int32_t comms_loss_arm; /* 1 arm comms-loss braking, 0 disarm, -1 keep */
    uint8_t rc;
} pdk_dbw_system_cmd;

/* Fault injection: what a HIL rig does to a kit. Recorded like any input. */
typedef enum pdk_dbw_fault_kind {
    PDK_FAULT_CLEAR = 0,           /* clears every injected fault (target ignored) */
    PDK_FAULT_STUCK = 1,           /* the actuator stays where it is */
    PDK_FAULT_SATURATED = 2,       /* the actuator goes to value (its units) and stays */
    PDK_FAULT_LATENCY = 3,         /* value s of delay added to the actuator */
    PDK_FAULT_CHANNEL = 4,         /* the channel's module reports a fault */
    PDK_FAULT_REPORT_DROP = 5,     /* value: share of the target report's frames lost, 0..1 */
    PDK_FAULT_REPORT_DELAY = 6,    /* value s: the target report's frames arrive late, 0..0.5 */
    PDK_FAULT_REPORT_MISSING = 7,  /* the channel's module stops reporting to the kit */
    PDK_FAULT_SENSOR_NOISE = 8,    /* value: the target sensor's noise times this */
    PDK_FAULT_SENSOR_BIAS = 9,     /* value: a bias step on the target sensor axis */
    PDK_FAULT_POWER_CYCLE = 10,    /* the whole kit restarts (target ignored) */
    PDK_FAULT_MODULE_RESTART = 11, /* one actuator module restarts: not ready for 0.5 s */
} pdk_dbw_fault_kind;

/* A fault's target: a channel (steer 0, brake 1, throttle 2, gear 3), a
 * report (pdk_dbw_report_kind) or a sensor axis (pdk_dbw_sensor). */
enum { PDK_DBW_TARGET_GEAR = 3 };

typedef enum pdk_dbw_report_kind {
    PDK_RPT_STEER = 0,
    PDK_RPT_BRAKE = 1,
    PDK_RPT_THROTTLE = 2,
    PDK_RPT_GEAR = 3,
    PDK_RPT_SYSTEM = 4,
    PDK_RPT_ULC = 5,
    PDK_RPT_WHEEL_SPEEDS = 6,
    PDK_RPT_VEHICLE_VELOCITY = 7,
    PDK_RPT_IMU = 8,
    PDK_RPT_GNSS = 9,
    PDK_RPT_SECONDARY = 10, /* the channels' secondary blocks, turn signal, misc, drive mode */
    PDK_RPT_AW_STATUS = 11, /* Autoware control mode, velocity, steering, gear */
    PDK_RPT_COUNT = 12,
} pdk_dbw_report_kind;

/* Each report's period in ticks at 120 Hz (ds_dbw_can's dispatch.hpp: every
 * one inside the kit's accepted window). */
extern const uint32_t pdk_dbw_report_period_ticks[PDK_RPT_COUNT];

typedef enum pdk_dbw_sensor {
    PDK_SENSOR_ACCEL_X = 0,
    PDK_SENSOR_ACCEL_Y = 1,
    PDK_SENSOR_ACCEL_Z = 2,
    PDK_SENSOR_GYRO_X = 3,
    PDK_SENSOR_GYRO_Y = 4,
    PDK_SENSOR_GYRO_Z = 5,
    PDK_SENSOR_GNSS = 6, /* both horizontal axes */
    PDK_SENSOR_COUNT = 7,
} pdk_dbw_sensor;

typedef struct pdk_dbw_fault_cmd {
    int32_t kind;   /* pdk_dbw_fault_kind */
    int32_t target; /* as above */
    double value;
} pdk_dbw_fault_cmd;

/* Autoware's gear numbers (autoware_vehicle_msgs GearCommand). */
enum {
    PDK_AW_GEAR_NONE = 0,
    PDK_AW_GEAR_NEUTRAL = 1,
    PDK_AW_GEAR_DRIVE = 2,
    PDK_AW_GEAR_REVERSE = 20,
    PDK_AW_GEAR_PARK = 22,
    PDK_AW_GEAR_LOW = 23
};
/* Autoware's control modes (ControlModeReport / ControlModeCommand). */
enum {
    PDK_AW_MODE_NO_COMMAND = 0,
    PDK_AW_MODE_AUTONOMOUS = 1,
    PDK_AW_MODE_AUTONOMOUS_STEER_ONLY = 2,
    PDK_AW_MODE_AUTONOMOUS_VELOCITY_ONLY = 3,
    PDK_AW_MODE_MANUAL = 4,
    PDK_AW_MODE_DISENGAGED = 5,
    PDK_AW_MODE_NOT_READY = 6
};

typedef struct pdk_dbw_aw_control {
    double steering_tire_angle_rad;  /* the virtual middle tyre, left positive */
    double steering_tire_rate_radps; /* 0: not defined */
    double velocity_mps;
    double acceleration_mps2; /* with accel_defined */
    double jerk_mps3;         /* with jerk_defined */
    uint8_t rate_defined, accel_defined, jerk_defined;
} pdk_dbw_aw_control;

/* One kit message, applied at a tick boundary like every input. */
typedef struct pdk_dbw_msg {
    int32_t kind; /* pdk_dbw_msg_kind */
    int32_t crc;  /* -1: none sent; else the CRC-8 the sender computed (pdk_dbw_crc8) */
    union {
        pdk_dbw_chan_cmd chan; /* STEER, BRAKE, THROTTLE */
        pdk_dbw_ulc_cmd ulc;
        pdk_dbw_system_cmd system;
        pdk_dbw_fault_cmd fault;
        pdk_dbw_aw_control aw;
        int32_t value; /* GEAR (pdk_gear), TURN_SIGNAL, MISC (parking brake
                        * NONE 0 ON 1 OFF 2), DRIVE_MODE (pdk_drive_mode),
                        * BUTTON, AW_GEAR, AW_MODE */
    } u;
} pdk_dbw_msg;

/* The CRC-8 (SAE J1850: polynomial 0x1D, initial 0xFF, final XOR 0xFF) of a
 * message's canonical bytes, as the kit computes one over a frame's id and
 * payload. The bytes are the kind (one byte), then:
 *   STEER, BRAKE, THROTTLE: cmd, rate_a, rate_b as IEEE float32
 *     little-endian (the kit's field width); cmd_type; flags (enable 1,
 *     clear 2, ignore 4); rc
 *   ULC: cmd, limit_accel, limit_decel, limit_jerk_throttle,
 *     limit_jerk_brake as float32 LE; cmd_type; flags (enable 1, clear 2,
 *     enable_shift 4, enable_shift_park 8, coast_decel 16); rc
 *   GEAR: the gear
 *   SYSTEM: cmd, sync_mode, validate_crc, comms_loss_arm (each as a signed
 *     byte, -1 is 0xFF), rc
 * one byte each where no width is given. Other kinds carry no CRC. The C
 * client computes the same (clients/c/paddock_dbw.c); docs/dbw.md says it
 * again for other clients. */
uint8_t pdk_dbw_crc8(const pdk_dbw_msg *msg);
/* The plain CRC-8 SAE J1850 of bytes (check value of "123456789": 0x4B). */
uint8_t pdk_crc8_j1850(const uint8_t *data, uint32_t n);

/* Why a message cannot be taken: a static sentence naming the field and
 * what it must be (unknown kind or cmd_type, a non-finite value, a rolling
 * counter above 15, a negative rate, an unsupported command type), or NULL.
 * Values beyond the actuator's range are not refused: the kit clamps them
 * and reports limiting_value. */
const char *pdk_dbw_msg_problem(const pdk_dbw_msg *msg, const pdk_vehicle_def *def);

/* The error a refusal of pdk_dbw_msg_problem stands for: PDK_ERR_UNSUPPORTED
 * for a command type the model cannot do, PDK_ERR_OUT_OF_RANGE for a value
 * beyond its bounds (or a key of another kind of vehicle),
 * PDK_ERR_INVALID_ARGUMENT for anything else; PDK_OK for NULL. */
pdk_error pdk_dbw_problem_error(const char *why);

/* Per channel state: the command as received, the watchdog and flags, the
 * actuator. Plain data; part of the world's state and hash. */
#define PDK_DBW_DELAY_TICKS 64 /* longest servo delay plus injected latency: 0.53 s */

typedef struct pdk_dbw_chan {
    double cmd;            /* as received (clamped copy in target) */
    double rate_a, rate_b; /* resolved limits (actuator units per s, per s^2) */
    double target;         /* the actuator's set point now, its units, clamped */
    double out;            /* the actuator's position: deg, bar or % */
    double out_rate;       /* steering: deg/s */
    double stuck_value;    /* with a stuck or saturated fault */
    /* Slot tick % PDK_DBW_DELAY_TICKS holds the set point of that tick while
     * the channel moves its actuator (line_live); a channel that follows
     * the driver leaves it, and its first tick engaged fills it with the
     * actuator's position. delay_digest is pdk_dbw_delay_digest of the
     * line, kept as slots are written: the state hash takes it instead of
     * the 64 slots (docs/adr/0014). */
    double delay_line[PDK_DBW_DELAY_TICKS];
    uint64_t delay_digest;
    uint64_t last_cmd_tick;  /* the tick its last valid command came */
    uint64_t override_until; /* steering: a driver's wheel input counts as acting until then */
    uint64_t boot_until;     /* after a power cycle the module is not ready until then */
    int32_t cmd_type;
    int32_t cmd_src;
    int32_t delay_ticks;   /* servo delay plus injected latency */
    int32_t fault_kind;    /* 0 none, PDK_FAULT_STUCK, PDK_FAULT_SATURATED */
    int32_t pending_dis;   /* a disengage an applied command caused (bad CRC, RC, enable) */
    int32_t latency_ticks; /* injected */
    uint8_t have_cmd, enable_req, rc, rc_valid;
    uint8_t enabled, timeout, bad_crc, bad_rc;
    uint8_t override_active, override_latched, override_other, ignore;
    uint8_t fault, report_missing, limiting_value, limiting_rate;
    uint8_t line_live; /* delay_line holds set points (the channel moved its actuator) */
} pdk_dbw_chan;

typedef struct pdk_dbw_state {
    pdk_dbw_chan ch[PDK_DBW_CH_COUNT];
    /* ULC */
    double ulc_cmd, ulc_limit_accel, ulc_limit_decel, ulc_jerk_throttle, ulc_jerk_brake;
    double ulc_vel_ref, ulc_accel_ref, ulc_accel_cmd, ulc_integral;
    double ulc_accel_filt; /* the car's acceleration through a 50 ms lag */
    double ulc_accel_i;    /* the acceleration loop's integral, m/s^2 */
    uint64_t ulc_last_tick;
    int32_t ulc_cmd_type;
    uint8_t ulc_have, ulc_enable_req, ulc_enabled, ulc_timeout;
    uint8_t ulc_override_latched, ulc_preempted, ulc_bad_rc, ulc_bad_crc;
    uint8_t ulc_coast, ulc_shift, ulc_shift_park, ulc_rc;
    /* gear */
    int32_t gear_cmd, gear_reject, gear_pending, gear_fault;
    int32_t gear_out;             /* the gear the kit holds the car in, with gear_out_set */
    uint64_t gear_done_tick;      /* the shift in progress completes at this tick */
    uint64_t gear_override_until; /* the driver moved the lever: acting until then */
    uint8_t gear_bad_crc, gear_report_missing, gear_out_set, gear_shifting;
    /* system */
    int32_t state; /* pdk_dbw_system_state */
    int32_t sync_mode;
    int32_t reason_disengage;
    int32_t reason_not_ready;
    uint64_t reengage_tick; /* no engagement before this tick */
    uint64_t sys_last_tick; /* the last SystemCmd: its counter is forgotten 100 ms on */
    uint8_t enabled, validate_crc, comms_loss_armed, comms_loss_active;
    uint8_t lockout, btn_enable, btn_disable, external_brake;
    uint8_t sys_rc, sys_bad_rc, sys_bad_crc;
    uint8_t touched; /* 0 never spoken to, 1 spoken to, 2 once it has ticked */
    uint8_t sys_rc_valid, lockout_latched, hold_depleted, pad_s;
    int32_t lockout_reason; /* the lockout condition now (PDK_NR_LOCKOUT_*), 0 none */
    double comms_loss_hold_left_s;
    /* body: turn signals, parking brake, drive mode */
    int32_t turn_signal, parking_brake, drive_mode_cmd, aw_mode;
    /* sensors: injected bias and noise scale per axis, dropped and delayed reports */
    double sensor_bias[PDK_SENSOR_COUNT];
    double sensor_noise_scale[PDK_SENSOR_COUNT];
    double report_drop[PDK_RPT_COUNT];
    uint32_t report_delay_ticks[PDK_RPT_COUNT];
    /* measurements the last tick left, for override detection and the ULC */
    double speed_prev_mps;
    double accel_meas_mps2;
} pdk_dbw_state;

/* Everything the kit reports about one vehicle at one tick; the server
 * encodes the blocks a report kind carries (proto DbwReport). Units as the
 * kit's: deg, bar, N*m, %, m/s, m/s^2, rad/s. */
typedef struct pdk_dbw_chan_report {
    double cmd;         /* echo */
    double input;       /* the driver's control: wheel deg, pedal bar or % */
    double output;      /* the actuator's position */
    double limit_value; /* secondary: the largest value the channel allows now */
    double limit_rate;  /* secondary: the rate limit in force */
    int32_t cmd_type;
    int32_t cmd_src; /* pdk_dbw_cmd_src */
    int32_t ready, enabled, override_active, override_other, override_latched;
    int32_t timeout, fault, bad_crc, bad_rc, limiting_value, limiting_rate, degraded;
} pdk_dbw_chan_report;

typedef struct pdk_dbw_report {
    uint64_t tick;
    pdk_dbw_chan_report ch[PDK_DBW_CH_COUNT];
    /* steering extras */
    double steering_wheel_angle_deg, road_wheel_angle_deg;
    /* brake extras (bar, N*m per wheel summed, m/s^2, %) */
    double brake_torque_cmd_nm, brake_torque_output_nm, brake_accel_cmd_mps2,
        brake_accel_output_mps2;
    double brake_percent_output;
    int32_t comms_loss_armed, external_button, req_shift_park, req_park_brake;
    double brake_available_s;
    /* gear */
    int32_t gear, gear_cmd, gear_driver, gear_reject, gear_number;
    int32_t gear_cmd_src; /* who holds the lever by wire: USER, ULC or COMMS_LOSS */
    int32_t gear_ready, gear_override, gear_fault, gear_bad_crc;
    /* system */
    int32_t state, sync_mode, reason_disengage, reason_not_ready;
    int32_t sys_enabled, sys_ready, sys_override, sys_fault, sys_lockout, validate_crc;
    int32_t sys_bad_crc, sys_bad_rc, btn_enable, btn_disable;
    /* ULC */
    int32_t ulc_cmd_type;
    double ulc_vel_ref, ulc_vel_meas, ulc_accel_ref, ulc_accel_meas;
    int32_t ulc_ready, ulc_enabled, ulc_override_active, ulc_override_latched, ulc_preempted;
    int32_t ulc_timeout;
    int32_t ulc_coast, ulc_bad_rc, ulc_bad_crc;
    /* vehicle velocity and wheels */
    double velocity_brake_mps, velocity_propulsion_mps;
    double wheel_speed_radps[4];
    /* IMU (body frame, specific force) and GNSS (world frame, metres) */
    double accel_mps2[3], gyro_radps[3];
    double gnss_x_m, gnss_y_m;
    int32_t gnss_valid;
    /* body */
    int32_t turn_signal, parking_brake, drive_mode;
    /* Autoware status */
    int32_t aw_mode; /* PDK_AW_MODE_* */
    int32_t aw_gear; /* PDK_AW_GEAR_* */
    double aw_longitudinal_mps, aw_lateral_mps, aw_heading_rate_radps, aw_tire_angle_rad;
} pdk_dbw_report;

/* A standard normal deviate and a uniform [0, 1) from (seed, vehicle, tick,
 * axis) alone (splitmix64 of their mix, Box-Muller). */
double pdk_dbw_noise_normal(uint64_t seed, uint32_t vehicle, uint64_t tick, uint32_t axis);
double pdk_dbw_noise_unit(uint64_t seed, uint32_t vehicle, uint64_t tick, uint32_t axis);

/* The kit's part of the state hash is dbw_hash.h pdk_dbw_hash. */

#endif
