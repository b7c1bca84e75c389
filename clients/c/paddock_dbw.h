/* libpaddock-client's drive-by-wire module: a link from one client
 * connection to one vehicle's DBW kit, speaking the kit's messages
 * (DbwMessage), its control lease (ControlLease) and its reports
 * (DbwSubscribe, DbwReport, ControlEvent), as a Dataspeed DBW2 kit does
 * (docs/dbw.md). The link keeps the kit's 4-bit rolling counter per command
 * stream and can attach the kit's CRC-8. No malloc: a link is a small
 * struct that borrows the caller's client and Frame. Not thread-safe. */
#ifndef PDK_DBW_LINK_H
#define PDK_DBW_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "paddock_client.h"

/* The command streams with a rolling counter (as Dataspeed's ds_dbw_can checks
 * them). */
typedef enum pdk_dbw_stream {
    PDK_DBW_STREAM_STEER = 0,
    PDK_DBW_STREAM_BRAKE = 1,
    PDK_DBW_STREAM_THROTTLE = 2,
    PDK_DBW_STREAM_ULC = 3,
    PDK_DBW_STREAM_SYSTEM = 4,
    PDK_DBW_STREAM_COUNT = 5,
} pdk_dbw_stream;

/* The kit's numbers: the proto's enums (paddock.proto's DBW section) under
 * the names this library has always used. */
enum {
    /* SteeringCmd.cmd_type */
    PDK_DBW_STEER_ANGLE =
        paddock_v1_SteeringCmdType_STEERING_CMD_TYPE_ANGLE, /* steering-wheel deg */
    PDK_DBW_STEER_CURVATURE = paddock_v1_SteeringCmdType_STEERING_CMD_TYPE_CURVATURE, /* 1/m */
    PDK_DBW_STEER_YAW_RATE = paddock_v1_SteeringCmdType_STEERING_CMD_TYPE_YAW_RATE,   /* rad/s */
    PDK_DBW_STEER_PERCENT =
        paddock_v1_SteeringCmdType_STEERING_CMD_TYPE_PERCENT, /* % of lock, -100..100 */
    PDK_DBW_STEER_CALIBRATE = paddock_v1_SteeringCmdType_STEERING_CMD_TYPE_CALIBRATE,
    /* BrakeCmd.cmd_type */
    PDK_DBW_BRAKE_PRESSURE = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_PRESSURE, /* bar */
    PDK_DBW_BRAKE_TORQUE = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_TORQUE,     /* N*m */
    PDK_DBW_BRAKE_ACCEL = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_ACCEL, /* m/s^2 of deceleration */
    PDK_DBW_BRAKE_ACCEL_ACC = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_ACCEL_ACC,
    PDK_DBW_BRAKE_ACCEL_AEB = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_ACCEL_AEB,
    PDK_DBW_BRAKE_PEDAL_RAW = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_PEDAL_RAW,
    PDK_DBW_BRAKE_PERCENT = paddock_v1_BrakeCmdType_BRAKE_CMD_TYPE_PERCENT,
    /* ThrottleCmd.cmd_type */
    PDK_DBW_THROTTLE_PEDAL_RAW = paddock_v1_ThrottleCmdType_THROTTLE_CMD_TYPE_PEDAL_RAW,
    PDK_DBW_THROTTLE_PERCENT = paddock_v1_ThrottleCmdType_THROTTLE_CMD_TYPE_PERCENT,
    /* UlcCmd.cmd_type */
    PDK_DBW_ULC_VELOCITY = paddock_v1_UlcCmdType_ULC_CMD_TYPE_VELOCITY, /* m/s */
    PDK_DBW_ULC_ACCEL = paddock_v1_UlcCmdType_ULC_CMD_TYPE_ACCEL,       /* m/s^2 */
    /* SystemReport.state */
    PDK_DBW_STATE_MANUAL = paddock_v1_SystemState_SYSTEM_STATE_MANUAL,
    PDK_DBW_STATE_READY = paddock_v1_SystemState_SYSTEM_STATE_READY,
    PDK_DBW_STATE_ACTIVE = paddock_v1_SystemState_SYSTEM_STATE_ACTIVE,
    PDK_DBW_STATE_FAULT = paddock_v1_SystemState_SYSTEM_STATE_FAULT,
    /* SystemCmd.sync_mode */
    PDK_DBW_SYNC_MODE_NONE = paddock_v1_SyncMode_SYNC_MODE_NONE,
    PDK_DBW_SYNC_MODE_DISENGAGES = paddock_v1_SyncMode_SYNC_MODE_DISENGAGES,
    PDK_DBW_SYNC_MODE_ALL_OR_NONE = paddock_v1_SyncMode_SYNC_MODE_ALL_OR_NONE,
    PDK_DBW_SYNC_MODE_ALL_OR_NONE_WITH_BTN = paddock_v1_SyncMode_SYNC_MODE_ALL_OR_NONE_WITH_BTN,
    /* ButtonPress.button */
    PDK_DBW_BUTTON_ENABLE = paddock_v1_Button_BUTTON_ENABLE,
    PDK_DBW_BUTTON_DISABLE = paddock_v1_Button_BUTTON_DISABLE,
    PDK_DBW_BUTTON_EXTERNAL_BRAKE = paddock_v1_Button_BUTTON_EXTERNAL_BRAKE,
    PDK_DBW_BUTTON_EXTERNAL_BRAKE_RELEASE = paddock_v1_Button_BUTTON_EXTERNAL_BRAKE_RELEASE,
    /* TurnSignalCmd.cmd */
    PDK_DBW_TURN_NONE = paddock_v1_TurnSignal_TURN_SIGNAL_NONE,
    PDK_DBW_TURN_LEFT = paddock_v1_TurnSignal_TURN_SIGNAL_LEFT,
    PDK_DBW_TURN_RIGHT = paddock_v1_TurnSignal_TURN_SIGNAL_RIGHT,
    PDK_DBW_TURN_HAZARD = paddock_v1_TurnSignal_TURN_SIGNAL_HAZARD,
    /* MiscCmd.parking_brake */
    PDK_DBW_PARKING_BRAKE_ON = paddock_v1_ParkingBrakeCmd_PARKING_BRAKE_CMD_ON,
    PDK_DBW_PARKING_BRAKE_OFF = paddock_v1_ParkingBrakeCmd_PARKING_BRAKE_CMD_OFF,
    /* FaultInject.kind */
    PDK_DBW_FAULT_CLEAR = paddock_v1_FaultKind_FAULT_KIND_CLEAR,
    PDK_DBW_FAULT_STUCK = paddock_v1_FaultKind_FAULT_KIND_STUCK,
    PDK_DBW_FAULT_SATURATED = paddock_v1_FaultKind_FAULT_KIND_SATURATED,
    PDK_DBW_FAULT_LATENCY = paddock_v1_FaultKind_FAULT_KIND_LATENCY,
    PDK_DBW_FAULT_CHANNEL = paddock_v1_FaultKind_FAULT_KIND_CHANNEL,
    PDK_DBW_FAULT_REPORT_DROP = paddock_v1_FaultKind_FAULT_KIND_REPORT_DROP,
    PDK_DBW_FAULT_REPORT_DELAY = paddock_v1_FaultKind_FAULT_KIND_REPORT_DELAY,
    PDK_DBW_FAULT_REPORT_MISSING = paddock_v1_FaultKind_FAULT_KIND_REPORT_MISSING,
    PDK_DBW_FAULT_SENSOR_NOISE = paddock_v1_FaultKind_FAULT_KIND_SENSOR_NOISE,
    PDK_DBW_FAULT_SENSOR_BIAS = paddock_v1_FaultKind_FAULT_KIND_SENSOR_BIAS,
    PDK_DBW_FAULT_POWER_CYCLE =
        paddock_v1_FaultKind_FAULT_KIND_POWER_CYCLE, /* the whole kit restarts */
    PDK_DBW_FAULT_MODULE_RESTART =
        paddock_v1_FaultKind_FAULT_KIND_MODULE_RESTART, /* one actuator module restarts */
    PDK_DBW_FAULT_KIND_COUNT = _paddock_v1_FaultKind_ARRAYSIZE,
    /* AwGearCommand.command (Autoware's numbers) */
    PDK_DBW_AW_GEAR_NEUTRAL = paddock_v1_AwGear_AW_GEAR_NEUTRAL,
    PDK_DBW_AW_GEAR_DRIVE = paddock_v1_AwGear_AW_GEAR_DRIVE,
    PDK_DBW_AW_GEAR_REVERSE = paddock_v1_AwGear_AW_GEAR_REVERSE,
    PDK_DBW_AW_GEAR_PARK = paddock_v1_AwGear_AW_GEAR_PARK,
    PDK_DBW_AW_GEAR_LOW = paddock_v1_AwGear_AW_GEAR_LOW,
    /* AwControlModeCommand.mode */
    PDK_DBW_AW_MODE_AUTONOMOUS = paddock_v1_AwControlMode_AW_CONTROL_MODE_AUTONOMOUS,
    PDK_DBW_AW_MODE_STEER_ONLY = paddock_v1_AwControlMode_AW_CONTROL_MODE_AUTONOMOUS_STEER_ONLY,
    PDK_DBW_AW_MODE_VELOCITY_ONLY =
        paddock_v1_AwControlMode_AW_CONTROL_MODE_AUTONOMOUS_VELOCITY_ONLY,
    PDK_DBW_AW_MODE_MANUAL = paddock_v1_AwControlMode_AW_CONTROL_MODE_MANUAL,
};

/* A system setting the command leaves as it is (pdk_dbw_system_opts). */
#define PDK_DBW_KEEP (-1)

/* Replies an asynchronous link may have outstanding before a send waits. */
#define PDK_DBW_LINK_PENDING 32

/* What a pushed DbwReport or ControlEvent is handed to. The frame is the
 * link's: the pointer is valid only during the call, and the callback must
 * not call the link or its client. */
typedef void (*pdk_dbw_report_fn)(const paddock_v1_DbwReport *report, void *ud);
typedef void (*pdk_dbw_event_fn)(const paddock_v1_ControlEvent *event, void *ud);

/* All fields are the module's; read them, set them only through the
 * functions below. */
typedef struct pdk_dbw_link {
    pdk_client *client;      /* borrowed: connected, not owned */
    paddock_v1_Frame *frame; /* borrowed: every request and reply goes through it */
    uint64_t session_id;
    uint32_t vehicle_id;
    uint8_t rc[PDK_DBW_STREAM_COUNT];         /* the counter the stream's next command carries */
    uint8_t attach_crc;                       /* 1: CRC-bearing messages carry the CRC-8 */
    uint8_t async;                            /* 1: kit messages do not wait for their Ok */
    uint8_t clear_next[PDK_DBW_STREAM_COUNT]; /* one-shot `clear` per channel */
    uint8_t ignore;                           /* `ignore` on channel commands */
    pdk_dbw_report_fn on_report;
    void *report_ud;
    pdk_dbw_event_fn on_event;
    void *event_ud;
    uint32_t subscription_id; /* the DbwSubscribe in force, 0 none */
    uint64_t last_tick;       /* Ok.tick of the last kit message acknowledged */
    uint64_t acked;           /* kit messages the server acknowledged */
    uint64_t refused;         /* kit messages the server refused */
    /* asynchronous sends awaiting their reply, oldest first */
    uint64_t pending_id[PDK_DBW_LINK_PENDING];
    const char *pending_what[PDK_DBW_LINK_PENDING];
    unsigned n_pending;
    /* the first failure an asynchronous reply or a pushed Error brought,
     * returned by the next pdk_dbw_link_poll */
    pdk_client_status deferred;
    paddock_v1_ErrorCode deferred_code;
    char deferred_error[PDK_CLIENT_ERR_LEN];
    paddock_v1_ErrorCode server_code; /* with PDK_CLIENT_ESERVER */
    char error[PDK_CLIENT_ERR_LEN];   /* "ulc: OUT_OF_RANGE: ...": what failed and why */
} pdk_dbw_link;

/* Binds link to a connected client, the Frame it may use and a vehicle.
 * Every counter starts at 0, no CRC, synchronous, no callbacks. */
void pdk_dbw_link_init(pdk_dbw_link *link, pdk_client *client, paddock_v1_Frame *frame,
                       uint64_t session_id, uint32_t vehicle_id);

/* on: attach the CRC-8 to steering, brake, throttle, gear, ULC and system
 * messages from now on. The kit checks it (and the rolling counter) while
 * its validate_cmd_crc_rc parameter is on. */
void pdk_dbw_link_set_crc(pdk_dbw_link *link, int on);

/* on: kit messages are sent without waiting for their Ok; replies are taken
 * by pdk_dbw_link_poll (and by any later call), and a refusal comes back
 * from pdk_dbw_link_poll as ESERVER naming the message. At most
 * PDK_DBW_LINK_PENDING replies are outstanding: a send beyond that first
 * waits for the oldest. Off (the default): each send returns its reply. */
void pdk_dbw_link_set_async(pdk_dbw_link *link, int on);

/* Callbacks for pushed DbwReport and ControlEvent frames (NULL drops them). */
void pdk_dbw_link_on_report(pdk_dbw_link *link, pdk_dbw_report_fn fn, void *ud);
void pdk_dbw_link_on_event(pdk_dbw_link *link, pdk_dbw_event_fn fn, void *ud);

/* The flags channel commands carry: every command sent through the
 * functions below has enable set (the channel wants control). clear is sent
 * once on each of steering, brake, throttle and ULC's next command after
 * pdk_dbw_link_clear_override (it clears a latched driver override); ignore
 * (disregard driver overrides, for tests) stays as set. */
void pdk_dbw_link_clear_override(pdk_dbw_link *link);
void pdk_dbw_link_set_ignore(pdk_dbw_link *link, int on);

/* The counter the stream's next command will carry (0..15). */
uint8_t pdk_dbw_link_rc(const pdk_dbw_link *link, pdk_dbw_stream stream);
/* Sets it (value & 15): to repeat a counter on purpose, as a test of the
 * kit's bad_rc does. */
void pdk_dbw_link_set_rc(pdk_dbw_link *link, pdk_dbw_stream stream, uint8_t value);

/* The stream a DbwMessage body counts on (its which_msg); -1 for messages
 * without a rolling counter (gear, turn signal, misc, drive mode, buttons,
 * faults, Autoware). */
int pdk_dbw_link_stream_of(pb_size_t which_msg);

/* Gives msg its stream's rolling counter and advances that counter (mod 16),
 * then attaches the CRC-8 when the link has it on (and removes any CRC
 * otherwise). Done by every send; exposed for tools that build messages by
 * hand. */
void pdk_dbw_link_stamp(pdk_dbw_link *link, paddock_v1_DbwMessage *msg);

/* The CRC-8 (SAE J1850: polynomial 0x1D, initial 0xFF, final XOR 0xFF) of
 * msg's canonical bytes, computed here independently of the server (the
 * bytes are listed in docs/dbw.md and server/sim/dbw.h: the message kind,
 * then the fields as float32 little-endian or one byte each; rc included,
 * the crc field itself not). Returns 1 with *crc set for the messages that
 * carry one (steering, brake, throttle, gear, ULC, system), 0 otherwise. */
int pdk_dbw_link_crc8(const paddock_v1_DbwMessage *msg, uint8_t *crc);
/* The plain CRC-8 SAE J1850 of n bytes ("123456789" gives 0x4B). */
uint8_t pdk_dbw_link_crc8_bytes(const uint8_t *data, size_t n);

/* --- sending ------------------------------------------------------------
 * Every send fills in the link's session and vehicle, stamps the message
 * (pdk_dbw_link_stamp) and sends it in one DbwMessage frame. Synchronous: it
 * returns when the Ok came (link->last_tick is the tick it applies at), or
 * ESERVER when the server refused it (link->error: "steering: OUT_OF_RANGE:
 * <the server's reason>"), or a transport status. Asynchronous: it returns
 * once the frame is written. Values are checked only for being finite (EINVAL
 * naming the argument); the server checks the rest and names it. A rate or
 * limit of 0 means the vehicle's default, INFINITY none. Pushed frames that
 * arrive meanwhile go to the callbacks. */

/* Any kit message, as built by the caller (which_msg and the body set). */
pdk_client_status pdk_dbw_link_send(pdk_dbw_link *link, paddock_v1_DbwMessage *msg);

/* Steering: cmd in the type's unit, rate deg/s and accel deg/s^2 of the
 * steering wheel. */
pdk_client_status pdk_dbw_link_steer(pdk_dbw_link *link, uint32_t cmd_type, double cmd,
                                     double rate_degps, double accel_degps2);
pdk_client_status pdk_dbw_link_steer_angle(pdk_dbw_link *link, double wheel_deg, double rate_degps,
                                           double accel_degps2);
pdk_client_status pdk_dbw_link_steer_curvature(pdk_dbw_link *link, double curvature_per_m,
                                               double rate_degps, double accel_degps2);
pdk_client_status pdk_dbw_link_steer_yaw_rate(pdk_dbw_link *link, double yaw_rate_radps,
                                              double rate_degps, double accel_degps2);
pdk_client_status pdk_dbw_link_steer_percent(pdk_dbw_link *link, double percent, double rate_degps,
                                             double accel_degps2);

/* Brake: cmd in the type's unit, rate_inc / rate_dec in that unit per s. */
pdk_client_status pdk_dbw_link_brake(pdk_dbw_link *link, uint32_t cmd_type, double cmd,
                                     double rate_inc, double rate_dec);
pdk_client_status pdk_dbw_link_brake_pressure(pdk_dbw_link *link, double bar, double rate_inc,
                                              double rate_dec);
pdk_client_status pdk_dbw_link_brake_torque(pdk_dbw_link *link, double torque_nm, double rate_inc,
                                            double rate_dec);
pdk_client_status pdk_dbw_link_brake_decel(pdk_dbw_link *link, double decel_mps2,
                                           double jerk_inc_mps3, double jerk_dec_mps3);
pdk_client_status pdk_dbw_link_brake_percent(pdk_dbw_link *link, double percent, double rate_inc,
                                             double rate_dec);

/* Throttle: percent 0..100, rates %/s. */
pdk_client_status pdk_dbw_link_throttle_percent(pdk_dbw_link *link, double percent, double rate_inc,
                                                double rate_dec);

/* Gear: the kit's Gear (PARK 1, REVERSE 2, NEUTRAL 3, DRIVE 4, LOW 5). */
pdk_client_status pdk_dbw_link_gear(pdk_dbw_link *link, paddock_v1_Gear gear);

/* The ULC's limits and options; all zero is the vehicle's defaults. */
typedef struct pdk_dbw_ulc_limits {
    double accel_mps2;         /* how fast a velocity target may rise */
    double decel_mps2;         /* how fast it may fall */
    double jerk_throttle_mps3; /* how fast an accel target may rise */
    double jerk_brake_mps3;    /* how fast it may fall */
    uint8_t coast_decel;       /* slow down without the brakes */
    uint8_t enable_shift;      /* the ULC may change gear */
    uint8_t enable_shift_park; /* and shift to park when stopped */
} pdk_dbw_ulc_limits;

/* limits may be NULL (the vehicle's defaults). */
pdk_client_status pdk_dbw_link_ulc_velocity(pdk_dbw_link *link, double velocity_mps,
                                            const pdk_dbw_ulc_limits *limits);
pdk_client_status pdk_dbw_link_ulc_accel(pdk_dbw_link *link, double accel_mps2,
                                         const pdk_dbw_ulc_limits *limits);

/* Turn signal (PDK_DBW_TURN_*), parking brake (1 on, 0 off), drive mode
 * (the UTV's switch: TURF 0, 2WD 1, AWD 2). */
pdk_client_status pdk_dbw_link_turn_signal(pdk_dbw_link *link, uint32_t signal);
pdk_client_status pdk_dbw_link_parking_brake(pdk_dbw_link *link, int on);
pdk_client_status pdk_dbw_link_drive_mode(pdk_dbw_link *link, uint32_t mode);

/* A SystemCmd. cmd: 0 none, 1 enable, 2 disable; each setting
 * PDK_DBW_KEEP or its value (sync_mode PDK_DBW_SYNC_MODE_*, validate_crc and
 * comms_loss_arm 0 or 1). */
typedef struct pdk_dbw_system_opts {
    uint32_t cmd;
    int32_t sync_mode;
    int32_t validate_crc;
    int32_t comms_loss_arm;
} pdk_dbw_system_opts;

/* Every setting PDK_DBW_KEEP, cmd 0. */
pdk_dbw_system_opts pdk_dbw_system_opts_default(void);

pdk_client_status pdk_dbw_link_system(pdk_dbw_link *link, const pdk_dbw_system_opts *opts);
pdk_client_status pdk_dbw_link_enable(pdk_dbw_link *link);
pdk_client_status pdk_dbw_link_disable(pdk_dbw_link *link);
pdk_client_status pdk_dbw_link_sync_mode(pdk_dbw_link *link, uint32_t mode);
pdk_client_status pdk_dbw_link_validate_crc(pdk_dbw_link *link, int on);
pdk_client_status pdk_dbw_link_arm_comms_loss(pdk_dbw_link *link, int on);

/* A press of one of the kit's buttons (PDK_DBW_BUTTON_*). */
pdk_client_status pdk_dbw_link_button(pdk_dbw_link *link, uint32_t button);

/* Fault injection (PDK_DBW_FAULT_*; target and value as the proto's
 * FaultInject says). The kind is not checked here: the server names an
 * unknown one. */
pdk_client_status pdk_dbw_link_fault(pdk_dbw_link *link, uint32_t kind, uint32_t target,
                                     double value);

/* Autoware's Control: the tyre angle (rad, left positive) and target
 * velocity; rate, acceleration and jerk are sent as defined unless NAN. */
pdk_client_status pdk_dbw_link_aw_control(pdk_dbw_link *link, double tire_angle_rad,
                                          double tire_rate_radps, double velocity_mps,
                                          double accel_mps2, double jerk_mps3);
/* Autoware's GearCommand (PDK_DBW_AW_GEAR_*) and ControlModeCommand. */
pdk_client_status pdk_dbw_link_aw_gear(pdk_dbw_link *link, uint32_t command);
pdk_client_status pdk_dbw_link_aw_mode(pdk_dbw_link *link, uint32_t mode);

/* --- lease and reports --------------------------------------------------
 * These always wait for their reply. */

/* Takes the vehicle's control lease for source; *reply (may be NULL) gets
 * the server's answer. ESERVER naming the holder when another client holds
 * it. */
pdk_client_status pdk_dbw_link_take_lease(pdk_dbw_link *link, paddock_v1_ControlSource source,
                                          paddock_v1_ControlLeaseReply *reply);
pdk_client_status pdk_dbw_link_release_lease(pdk_dbw_link *link, paddock_v1_ControlSource source);

/* Subscribes to the vehicle's reports of the n kinds listed (n 0: every
 * kind), replacing the link's subscription if it has one; the reports then
 * go to the report callback. EINVAL when n exceeds the 12 kinds. */
pdk_client_status pdk_dbw_link_subscribe(pdk_dbw_link *link, const paddock_v1_DbwReportKind *kinds,
                                         size_t n);
/* Ends the link's subscription (OK when it has none). */
pdk_client_status pdk_dbw_link_unsubscribe(pdk_dbw_link *link);

/* Handles every frame that arrives within timeout_ms (0: only what has
 * arrived already): reports and events to the callbacks, replies to
 * asynchronous sends. Returns OK, the first refusal of an asynchronous send
 * or a pushed Error (ESERVER; link->error names the message, each is
 * returned once), or a transport status. */
pdk_client_status pdk_dbw_link_poll(pdk_dbw_link *link, int timeout_ms);

/* --- names --------------------------------------------------------------- */

/* The proto name of a report kind ("steering", "wheel_speeds"); "unknown"
 * for another value. */
const char *pdk_dbw_link_report_kind_name(paddock_v1_DbwReportKind kind);
/* The kind a name gives (as above); -1 for an unknown name. */
int pdk_dbw_link_report_kind_parse(const char *name, paddock_v1_DbwReportKind *kind);
/* The report kind a DbwReport carries, from its which_report; -1 for none. */
int pdk_dbw_link_report_kind_of(const paddock_v1_DbwReport *report);
/* A fault kind's name ("stuck", "report_drop"); "unknown" for another. */
const char *pdk_dbw_link_fault_name(uint32_t kind);
/* The kind a name gives; -1 for an unknown name. */
int pdk_dbw_link_fault_parse(const char *name, uint32_t *kind);
/* The kit's name for a system state ("ACTIVE"); "UNKNOWN" for another. */
const char *pdk_dbw_link_state_name(uint32_t state);

#endif
