/* The drive-by-wire kit (dbw.h): messages, watchdogs, engagement, the ULC,
 * comms-loss braking and the actuators (its vocabulary is in dbw_msg.c, its
 * reports in dbw_report.c). The behaviour follows the Dataspeed DBW2 kit as
 * its ds_dbw_msgs and ds_dbw_can packages define it; where the kit's
 * documents leave a choice, docs/dbw.md "Behaviour" states the one made. */
#include "dbw/dbw.h"
#include "dbw/dbw_internal.h"

#include <math.h>
#include <string.h>

#include "math/hash.h"
#include "math/trig.h"
#include "math/vmath.h"

#define TIMEOUT_TICKS 12u       /* 100 ms at 120 Hz (ds_dbw_can) */
#define OVERRIDE_HOLD_TICKS 60u /* a driver's wheel input counts as acting for 0.5 s */
#define BOOT_TICKS 60u          /* a module restarts in 0.5 s after a power cycle */
#define ULC_VEL_MIN_MPS (-7.0)  /* UlcCmd's decoded clamps (ds_dbw_msgs) */
#define ULC_VEL_MAX_MPS 45.0
#define ULC_ACCEL_MIN_MPS2 (-6.0)
#define ULC_ACCEL_MAX_MPS2 3.0
#define STOPPED_MPS 0.05
/* The ULC's inner loop sees the car's acceleration through a 50 ms lag. */
#define ULC_ACCEL_FILTER_S 0.05
#define ULC_ACCEL_P 2.0
#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------ */

static uint32_t ticks_of(double s)
{
    double t = floor(s * 120.0 + 0.5);
    return t < 0.0 ? 0u : (uint32_t)t;
}

uint64_t pdk_dbw_delay_term(int i, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return pdk_hash_fmix64(bits ^ (UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(i + 1)));
}

uint64_t pdk_dbw_delay_digest(const pdk_dbw_chan *ch)
{
    uint64_t sum = 0u;
    for (int i = 0; i < PDK_DBW_DELAY_TICKS; i++) {
        sum += pdk_dbw_delay_term(i, ch->delay_line[i]);
    }
    return sum;
}

/* The line as it is when the channel starts to move its actuator: every
 * slot at v, the actuator's position, so that the delayed set point starts
 * where the car is. */
static void fill_delay(pdk_dbw_chan *ch, double v)
{
    for (int i = 0; i < PDK_DBW_DELAY_TICKS; i++) {
        ch->delay_line[i] = v;
    }
    ch->delay_digest = pdk_dbw_delay_digest(ch);
    ch->line_live = 1;
}

static int base_delay_ticks(const pdk_dbw_def *d, int c)
{
    return c == PDK_DBW_CH_STEER ? (int)ticks_of(d->steer_delay_s) : 0;
}

static void reset_runtime(pdk_dbw_state *dbw, const pdk_dbw_def *def, const pdk_dbw_cmd *driver)
{
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        pdk_dbw_chan *ch = &dbw->ch[c];
        int fault_kind = ch->fault_kind, latency = ch->latency_ticks;
        double stuck = ch->stuck_value;
        uint8_t fault = ch->fault, missing = ch->report_missing;
        memset(ch, 0, sizeof *ch);
        ch->fault_kind = fault_kind;
        ch->latency_ticks = latency;
        ch->stuck_value = stuck;
        ch->fault = fault;
        ch->report_missing = missing;
        ch->out = driver_value(driver, c);
        ch->target = ch->out;
        ch->delay_ticks = base_delay_ticks(def, c) + latency;
        /* The line is dead (line_live 0, from the memset): the channel's
         * first tick engaged fills it with out. */
    }
    dbw->ulc_cmd = dbw->ulc_vel_ref = dbw->ulc_accel_ref = dbw->ulc_accel_cmd = 0.0;
    dbw->ulc_integral = 0.0;
    dbw->ulc_accel_filt = dbw->ulc_accel_i = 0.0;
    dbw->ulc_cmd_type = 0;
    dbw->ulc_have = dbw->ulc_enable_req = dbw->ulc_enabled = dbw->ulc_timeout = 0;
    dbw->ulc_override_latched = dbw->ulc_preempted = dbw->ulc_bad_rc = dbw->ulc_bad_crc = 0;
    dbw->ulc_coast = dbw->ulc_shift = dbw->ulc_shift_park = dbw->ulc_rc = 0;
    dbw->gear_cmd = PDK_GEAR_NONE;
    dbw->gear_reject = PDK_DBW_REJECT_NONE;
    dbw->gear_pending = PDK_GEAR_NONE;
    dbw->gear_out_set = dbw->gear_shifting = dbw->gear_bad_crc = 0;
    dbw->state = PDK_DBW_MANUAL;
    dbw->enabled = 0;
    dbw->comms_loss_active = 0;
    dbw->external_brake = 0;
    dbw->lockout_latched = 0;
    dbw->hold_depleted = 0;
    dbw->comms_loss_hold_left_s = def->comms_loss_hold_s;
    dbw->reason_disengage = PDK_DIS_NONE;
    dbw->reason_not_ready = PDK_NR_SYSTEM_DISABLED;
    dbw->sys_rc_valid = 0;
    dbw->sys_bad_rc = dbw->sys_bad_crc = 0;
}

void pdk_dbw_init(pdk_dbw_state *dbw, const pdk_dbw_def *def, const pdk_dbw_cmd *driver)
{
    memset(dbw, 0, sizeof *dbw);
    for (int i = 0; i < PDK_SENSOR_COUNT; i++) {
        dbw->sensor_noise_scale[i] = 1.0;
    }
    dbw->validate_crc = 1;
    dbw->sync_mode = PDK_DBW_SYNC_NONE;
    reset_runtime(dbw, def, driver);
}

/* ---- engagement ----------------------------------------------------------- */

static int chan_dis_code(int c, int steer_code)
{
    return steer_code + 0x20 * c;
}

static void disengage_ulc(pdk_dbw_state *dbw)
{
    dbw->ulc_enabled = 0;
    dbw->ulc_integral = 0.0;
    dbw->ulc_accel_i = 0.0;
}

/* Ends the engagement: a channel's (sync mode NONE) or the whole system's. */
static void disengage(pdk_dbw_state *dbw, const pdk_dbw_def *def, int channel, int reason,
                      uint64_t tick, int system_wide)
{
    int was_active = dbw->enabled;
    if (channel >= 0) {
        was_active = dbw->ch[channel].enabled;
        dbw->ch[channel].enabled = 0;
    }
    if (system_wide || dbw->sync_mode != PDK_DBW_SYNC_NONE || channel < 0) {
        for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
            was_active |= dbw->ch[c].enabled;
            dbw->ch[c].enabled = 0;
        }
        disengage_ulc(dbw);
        dbw->enabled = 0;
    } else if (channel != PDK_DBW_CH_STEER && dbw->ulc_enabled) {
        disengage_ulc(dbw);
    }
    if (!was_active) {
        return;
    }
    dbw->reason_disengage = reason;
    dbw->reengage_tick = tick + ticks_of(def->reengage_delay_s);
}

static int relevant(const pdk_dbw_state *dbw, int c)
{
    if (dbw->sync_mode >= PDK_DBW_SYNC_ALL_OR_NONE) {
        return 1;
    }
    const pdk_dbw_chan *ch = &dbw->ch[c];
    return ch->have_cmd || ch->bad_crc || ch->bad_rc || ch->enabled;
}

/* The kit's ReasonNotReady now: the first class any relevant channel is
 * blocked by, in the kit's code order, then the system's own reasons. */
static int not_ready_reason(const pdk_dbw_state *dbw, uint64_t tick)
{
    static const int classes[] = {PDK_NR_MISSING_REPORT_STEER,   PDK_NR_FAULT_STEER,
                                  PDK_NR_BAD_CRC_RC_CMD_STEER,   PDK_NR_OVERRIDE_ACTIVE_STEER,
                                  PDK_NR_OVERRIDE_LATCHED_STEER, PDK_NR_OVERRIDE_OTHER_STEER,
                                  PDK_NR_NOT_READY_STEER,        PDK_NR_MISSING_CMD_STEER};
    int block[PDK_DBW_CH_COUNT];
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        block[c] = relevant(dbw, c) ? chan_blocker(dbw, c, tick) : 0;
    }
    int other = 0;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        other |= override_active(dbw, c);
    }
    for (size_t k = 0; k < sizeof classes / sizeof classes[0]; k++) {
        for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
            if (block[c] == classes[k] + c) {
                return block[c];
            }
        }
        /* The gear's reasons sit after the channels' in each class. */
        if (classes[k] == PDK_NR_MISSING_REPORT_STEER && dbw->gear_report_missing) {
            return PDK_NR_MISSING_REPORT_GEAR;
        }
        if (classes[k] == PDK_NR_FAULT_STEER && dbw->gear_fault) {
            return PDK_NR_FAULT_GEAR;
        }
        if (classes[k] == PDK_NR_BAD_CRC_RC_CMD_STEER && dbw->gear_bad_crc) {
            return PDK_NR_BAD_CRC_CMD_GEAR;
        }
        if (classes[k] == PDK_NR_OVERRIDE_ACTIVE_STEER && gear_override_active(dbw, tick)) {
            return PDK_NR_OVERRIDE_ACTIVE_GEAR;
        }
        if (classes[k] == PDK_NR_OVERRIDE_OTHER_STEER && other) {
            return PDK_NR_OVERRIDE_OTHER_GEAR;
        }
    }
    if (dbw->lockout_reason != 0) {
        return dbw->lockout_reason;
    }
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        if (block[c] == PDK_NR_NOT_ENABLE_CMD_STEER + c) {
            return block[c];
        }
    }
    if (tick < dbw->reengage_tick) {
        return PDK_NR_SYSTEM_REENGAGE_DELAY;
    }
    if (dbw->lockout_latched) {
        return PDK_NR_SYSTEM_LOCKOUT;
    }
    if (!dbw->enabled) {
        return PDK_NR_SYSTEM_DISABLED;
    }
    return PDK_NR_NONE;
}

/* An enable (SystemCmd or the button). In the ALL_OR_NONE modes it takes
 * only when every channel can engage; otherwise when nothing at system level
 * blocks it, and the channels engage as they can. */
static void try_enable(pdk_dbw_state *dbw, uint64_t tick)
{
    int reason = not_ready_reason(dbw, tick);
    if (dbw->sync_mode >= PDK_DBW_SYNC_ALL_OR_NONE) {
        if (reason == PDK_NR_NONE || reason == PDK_NR_SYSTEM_DISABLED) {
            dbw->enabled = 1;
        }
        return;
    }
    int gear_fault = dbw->gear_fault || dbw->gear_report_missing;
    if (dbw->lockout_reason == 0 && !dbw->lockout_latched && tick >= dbw->reengage_tick &&
        !gear_fault) {
        dbw->enabled = 1;
    }
}

/* ---- messages ------------------------------------------------------------- */

/* The limits a channel command asks for, in the actuator's units per second
 * (and per second squared for steering): 0 the vehicle's default, infinity the
 * actuator's own limit, otherwise the value floored as the kit floors a
 * non-default rate (ds_dbw_msgs) and capped by the actuator. */
static void resolve_rates(pdk_dbw_chan *ch, const pdk_dbw_def *d, const pdk_vehicle_def *def, int c,
                          const pdk_dbw_chan_cmd *k)
{
    if (c == PDK_DBW_CH_STEER) {
        ch->rate_a = k->rate_a == 0.0 ? d->steer_rate_degps
                                      : fmin(fmax(k->rate_a, 100.0), d->steer_rate_max_degps);
        ch->rate_b = k->rate_b == 0.0 ? d->steer_accel_degps2
                                      : fmin(fmax(k->rate_b, 300.0), d->steer_accel_max_degps2);
        return;
    }
    double per_unit = 1.0; /* actuator units per command unit */
    double floor_rate = 100.0;
    double deflt = d->throttle_rate_pctps;
    double max = INFINITY;
    if (c == PDK_DBW_CH_BRAKE) {
        deflt = d->brake_rate_barps;
        max = d->brake_rate_max_barps;
        switch (k->cmd_type) {
        case PDK_BRAKE_CMD_TORQUE:
            per_unit = 1.0 / brake_nm_per_bar(def);
            floor_rate = 2000.0;
            break;
        case PDK_BRAKE_CMD_ACCEL:
        case PDK_BRAKE_CMD_ACCEL_ACC:
        case PDK_BRAKE_CMD_ACCEL_AEB:
            per_unit = def->brake.max_line_bar / d->brake_decel_max_mps2;
            floor_rate = 5.0;
            break;
        case PDK_BRAKE_CMD_PEDAL_RAW:
        case PDK_BRAKE_CMD_PERCENT:
            per_unit = def->brake.max_line_bar / 100.0;
            floor_rate = 50.0;
            break;
        default:
            floor_rate = 20.0;
            break;
        }
    }
    double a = k->rate_a == 0.0 ? deflt : fmin(fmax(k->rate_a, floor_rate) * per_unit, max);
    double b = k->rate_b == 0.0 ? deflt : fmin(fmax(k->rate_b, floor_rate) * per_unit, max);
    ch->rate_a = a;
    ch->rate_b = b;
}

/* A command's set point in the actuator's units (deg, bar, %), unclamped. */
static double chan_setpoint(const pdk_dbw_state *dbw, const pdk_dbw_def *d,
                            const pdk_vehicle_def *def, int c, int cmd_type, double cmd)
{
    (void)dbw;
    if (c == PDK_DBW_CH_STEER) {
        double L = def->chassis.wheelbase_m;
        switch (cmd_type) {
        case PDK_STEER_CMD_PERCENT:
            return cmd / 100.0 * def->steering.lock_deg;
        case PDK_STEER_CMD_CURVATURE:
            return pdk_trig_atan2(clamp(cmd, -0.2, 0.2) * L, 1.0) * 180.0 / PI *
                       def->steering.ratio +
                   def->steering.center_offset_deg;
        case PDK_STEER_CMD_YAW_RATE: {
            double v = fmax(fabs(dbw->speed_prev_mps), 1.0) * (dbw->speed_prev_mps < 0 ? -1 : 1);
            double k = clamp(clamp(cmd, -8.5, 8.5) / v, -0.2, 0.2);
            return pdk_trig_atan2(k * L, 1.0) * 180.0 / PI * def->steering.ratio +
                   def->steering.center_offset_deg;
        }
        default:
            return cmd;
        }
    }
    if (c == PDK_DBW_CH_BRAKE) {
        switch (cmd_type) {
        case PDK_BRAKE_CMD_TORQUE:
            return cmd / brake_nm_per_bar(def);
        case PDK_BRAKE_CMD_ACCEL:
        case PDK_BRAKE_CMD_ACCEL_ACC:
        case PDK_BRAKE_CMD_ACCEL_AEB:
            /* a deceleration, positive or as the kit's negative acceleration */
            return fabs(cmd) / d->brake_decel_max_mps2 * def->brake.max_line_bar;
        case PDK_BRAKE_CMD_PEDAL_RAW:
        case PDK_BRAKE_CMD_PERCENT:
            return cmd / 100.0 * def->brake.max_line_bar;
        default:
            return cmd;
        }
    }
    return cmd;
}

static void apply_chan(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def, int c,
                       const pdk_dbw_msg *msg, uint64_t tick)
{
    pdk_dbw_chan *ch = &dbw->ch[c];
    const pdk_dbw_chan_cmd *k = &msg->u.chan;
    ch->bad_crc = dbw->validate_crc && msg->crc >= 0 && (uint8_t)msg->crc != pdk_dbw_crc8(msg);
    ch->bad_rc = dbw->validate_crc && ch->rc_valid && k->rc == ch->rc;
    ch->rc = k->rc;
    ch->rc_valid = 1;
    if (ch->bad_crc || ch->bad_rc) {
        if (ch->enabled) {
            ch->pending_dis = chan_dis_code(c, ch->bad_crc ? PDK_DIS_STEER_CMD_INVALID_CRC
                                                           : PDK_DIS_STEER_CMD_INVALID_RC);
        }
        return;
    }
    if (k->clear) {
        ch->override_latched = 0;
        if (c != PDK_DBW_CH_STEER) {
            dbw->ulc_override_latched = 0;
        }
    }
    ch->ignore = k->ignore;
    if (c != PDK_DBW_CH_STEER && dbw->ulc_enabled && k->enable) {
        dbw->ulc_preempted = 1; /* the user took the pedals back from the ULC */
        disengage_ulc(dbw);
    }
    ch->have_cmd = 1;
    ch->timeout = 0;
    ch->last_cmd_tick = tick;
    ch->cmd = k->cmd;
    ch->cmd_type = k->cmd_type;
    ch->cmd_src = PDK_DBW_SRC_USER;
    resolve_rates(ch, d, def, c, k);
    if (!k->enable && ch->enabled) {
        ch->pending_dis = chan_dis_code(c, PDK_DIS_STEER_CMD_DISENGAGE);
    }
    ch->enable_req = k->enable;
    double sp = k->cmd_type == PDK_DBW_CMD_NONE
                    ? driver_value(&(pdk_dbw_cmd){0}, c)
                    : chan_setpoint(dbw, d, def, c, k->cmd_type, k->cmd);
    double lo = chan_min(def, c), hi = chan_max(def, c);
    ch->limiting_value = sp < lo || sp > hi;
    ch->target = clamp(sp, lo, hi);
}

static void apply_ulc(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_dbw_msg *msg,
                      uint64_t tick)
{
    const pdk_dbw_ulc_cmd *u = &msg->u.ulc;
    dbw->ulc_bad_crc = dbw->validate_crc && msg->crc >= 0 && (uint8_t)msg->crc != pdk_dbw_crc8(msg);
    dbw->ulc_bad_rc = dbw->validate_crc && dbw->ulc_have && u->rc == dbw->ulc_rc;
    dbw->ulc_rc = u->rc;
    if (dbw->ulc_bad_crc || dbw->ulc_bad_rc) {
        disengage_ulc(dbw);
        return;
    }
    if (u->clear) {
        dbw->ulc_override_latched = 0;
        dbw->ch[PDK_DBW_CH_BRAKE].override_latched = 0;
        dbw->ch[PDK_DBW_CH_THROTTLE].override_latched = 0;
    }
    if (dbw->ulc_enabled && u->cmd_type != dbw->ulc_cmd_type) {
        /* A new kind of command: the reference starts again from the car. */
        dbw->ulc_vel_ref = dbw->speed_prev_mps;
        dbw->ulc_accel_ref = 0.0;
    }
    dbw->ulc_have = 1;
    dbw->ulc_timeout = 0;
    dbw->ulc_last_tick = tick;
    dbw->ulc_cmd = u->cmd;
    dbw->ulc_cmd_type = u->cmd_type;
    dbw->ulc_enable_req = u->enable && u->cmd_type != PDK_DBW_CMD_NONE;
    dbw->ulc_coast = u->coast_decel;
    dbw->ulc_shift = u->enable_shift;
    dbw->ulc_shift_park = u->enable_shift_park;
    dbw->ulc_limit_accel =
        u->limit_accel == 0.0 ? d->ulc_accel_default_mps2 : clamp(u->limit_accel, 0.3, 3.0);
    dbw->ulc_limit_decel =
        u->limit_decel == 0.0 ? d->ulc_decel_default_mps2 : clamp(u->limit_decel, 0.3, 6.0);
    dbw->ulc_jerk_throttle = u->limit_jerk_throttle == 0.0
                                 ? d->ulc_jerk_default_mps3
                                 : clamp(u->limit_jerk_throttle, 1.0, 25.0);
    dbw->ulc_jerk_brake = u->limit_jerk_brake == 0.0 ? d->ulc_jerk_default_mps3
                                                     : clamp(u->limit_jerk_brake, 1.0, 25.0);
    if (!dbw->ulc_enable_req) {
        disengage_ulc(dbw);
    }
}

/* Speed or brake conditions that refuse a shift by wire, in the kit's
 * GearReject order. */
static int gear_reject(const pdk_dbw_state *dbw, const pdk_dbw_def *d, int gear, int current,
                       double brake_bar, uint64_t tick)
{
    if (dbw->gear_fault) {
        return PDK_DBW_REJECT_FAULT;
    }
    if (gear < PDK_GEAR_PARK || gear > PDK_GEAR_LOW) {
        return PDK_DBW_REJECT_UNSUPPORTED;
    }
    if (dbw->gear_shifting) {
        return PDK_DBW_REJECT_SHIFT_IN_PROGRESS;
    }
    if (gear_override_active(dbw, tick)) {
        return PDK_DBW_REJECT_OVERRIDE;
    }
    if (dbw->hold_depleted && gear != PDK_GEAR_PARK) {
        return PDK_DBW_REJECT_BRAKE_HOLD;
    }
    if (fabs(dbw->speed_prev_mps) > d->gear_max_speed_mps) {
        return PDK_DBW_REJECT_VEHICLE_SPEED;
    }
    if ((gear == PDK_GEAR_PARK || current == PDK_GEAR_PARK) && gear != current &&
        brake_bar < d->gear_brake_hold_bar) {
        return PDK_DBW_REJECT_VEHICLE; /* "try pressing the brakes" */
    }
    return PDK_DBW_REJECT_NONE;
}

static int current_gear(const pdk_dbw_state *dbw, const pdk_dbw_cmd *driver)
{
    return dbw->gear_out_set ? dbw->gear_out : (int)driver->gear;
}

/* The line pressure the car has now: the kit's where it brakes, else the
 * driver's. */
static double brake_now(const pdk_dbw_state *dbw, const pdk_dbw_cmd *driver)
{
    const pdk_dbw_chan *b = &dbw->ch[PDK_DBW_CH_BRAKE];
    int kit = b->enabled || dbw->comms_loss_active || dbw->external_brake;
    return kit ? b->out : driver->brake_bar;
}

static void apply_gear(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_dbw_msg *msg,
                       const pdk_dbw_cmd *driver, uint64_t tick)
{
    dbw->gear_bad_crc =
        dbw->validate_crc && msg->crc >= 0 && (uint8_t)msg->crc != pdk_dbw_crc8(msg);
    if (dbw->gear_bad_crc) {
        return;
    }
    int gear = msg->u.value;
    if (gear == PDK_GEAR_NONE) {
        return;
    }
    dbw->gear_cmd = gear;
    int current = current_gear(dbw, driver);
    int reject = gear_reject(dbw, d, gear, current, brake_now(dbw, driver), tick);
    /* As the kit's node does in sync mode NONE, a gear request goes out only
     * while the system is enabled (ds_dbw_msgs GearCmd); the refusals that
     * stand whatever the system's state are still told. */
    if (!dbw->enabled) {
        if (reject == PDK_DBW_REJECT_FAULT || reject == PDK_DBW_REJECT_OVERRIDE ||
            reject == PDK_DBW_REJECT_BRAKE_HOLD) {
            dbw->gear_reject = reject;
        }
        return;
    }
    dbw->gear_reject = reject;
    if (reject != PDK_DBW_REJECT_NONE || gear == current) {
        return;
    }
    dbw->gear_pending = gear;
    dbw->gear_shifting = 1;
    dbw->gear_done_tick = tick + ticks_of(d->gear_shift_s);
}

static void apply_fault(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_dbw_fault_cmd *f,
                        const pdk_dbw_cmd *driver, uint64_t tick)
{
    int t = f->target;
    switch (f->kind) {
    case PDK_FAULT_CLEAR:
        for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
            pdk_dbw_chan *ch = &dbw->ch[c];
            ch->fault_kind = 0;
            ch->latency_ticks = 0;
            ch->delay_ticks = base_delay_ticks(d, c);
            ch->fault = 0;
            ch->report_missing = 0;
        }
        dbw->gear_fault = 0;
        dbw->gear_report_missing = 0;
        for (int i = 0; i < PDK_SENSOR_COUNT; i++) {
            dbw->sensor_bias[i] = 0.0;
            dbw->sensor_noise_scale[i] = 1.0;
        }
        for (int i = 0; i < PDK_RPT_COUNT; i++) {
            dbw->report_drop[i] = 0.0;
            dbw->report_delay_ticks[i] = 0u;
        }
        break;
    case PDK_FAULT_STUCK:
        dbw->ch[t].fault_kind = PDK_FAULT_STUCK;
        dbw->ch[t].stuck_value = dbw->ch[t].out;
        break;
    case PDK_FAULT_SATURATED:
        dbw->ch[t].fault_kind = PDK_FAULT_SATURATED;
        dbw->ch[t].stuck_value = f->value; /* clamped to the actuator's range when used */
        break;
    case PDK_FAULT_LATENCY:
        dbw->ch[t].latency_ticks = (int32_t)ticks_of(f->value);
        dbw->ch[t].delay_ticks = base_delay_ticks(d, t) + dbw->ch[t].latency_ticks;
        if (dbw->ch[t].delay_ticks > PDK_DBW_DELAY_TICKS - 1) {
            dbw->ch[t].delay_ticks = PDK_DBW_DELAY_TICKS - 1;
        }
        break;
    case PDK_FAULT_CHANNEL:
        if (t == PDK_DBW_TARGET_GEAR) {
            dbw->gear_fault = 1;
        } else {
            dbw->ch[t].fault = 1;
        }
        break;
    case PDK_FAULT_REPORT_MISSING:
        if (t == PDK_DBW_TARGET_GEAR) {
            dbw->gear_report_missing = 1;
        } else {
            dbw->ch[t].report_missing = 1;
        }
        break;
    case PDK_FAULT_REPORT_DROP:
        dbw->report_drop[t] = f->value;
        break;
    case PDK_FAULT_REPORT_DELAY:
        dbw->report_delay_ticks[t] = ticks_of(f->value);
        break;
    case PDK_FAULT_SENSOR_NOISE:
        dbw->sensor_noise_scale[t] = f->value;
        break;
    case PDK_FAULT_SENSOR_BIAS:
        dbw->sensor_bias[t] = f->value;
        break;
    case PDK_FAULT_POWER_CYCLE:
        reset_runtime(dbw, d, driver);
        dbw->reason_disengage = PDK_DIS_POWER_CYCLE;
        dbw->reengage_tick = tick + ticks_of(d->reengage_delay_s);
        break;
    case PDK_FAULT_MODULE_RESTART: {
        /* The module forgets its command and boots; the kit sees its
         * report say it disengaged. */
        pdk_dbw_chan *ch = &dbw->ch[t];
        if (ch->enabled) {
            ch->pending_dis = chan_dis_code(t, PDK_DIS_STEER_RPT_DISENGAGE);
        }
        ch->have_cmd = 0;
        ch->enable_req = 0;
        ch->rc_valid = 0;
        ch->boot_until = tick + BOOT_TICKS;
        break;
    }
    default:
        break;
    }
}

/* Autoware's gear numbers onto the kit's. */
static int aw_gear_to_kit(int g)
{
    if (g == PDK_AW_GEAR_NEUTRAL) {
        return PDK_GEAR_NEUTRAL;
    }
    if (g >= PDK_AW_GEAR_DRIVE && g <= 19) {
        return PDK_GEAR_DRIVE;
    }
    if (g == PDK_AW_GEAR_REVERSE || g == 21) {
        return PDK_GEAR_REVERSE;
    }
    if (g == PDK_AW_GEAR_PARK) {
        return PDK_GEAR_PARK;
    }
    if (g == PDK_AW_GEAR_LOW || g == 24) {
        return PDK_GEAR_LOW;
    }
    return PDK_GEAR_NONE;
}

/* Autoware's Control as the kit's steering and ULC commands, with the
 * adapter's own rolling counters. */
static void apply_aw_control(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def,
                             const pdk_dbw_aw_control *a, uint64_t tick)
{
    int steer_on =
        dbw->aw_mode == PDK_AW_MODE_AUTONOMOUS || dbw->aw_mode == PDK_AW_MODE_AUTONOMOUS_STEER_ONLY;
    int long_on = dbw->aw_mode == PDK_AW_MODE_AUTONOMOUS ||
                  dbw->aw_mode == PDK_AW_MODE_AUTONOMOUS_VELOCITY_ONLY;
    pdk_dbw_msg s = {.kind = PDK_DBW_MSG_STEER, .crc = -1};
    s.u.chan.cmd = a->steering_tire_angle_rad * 180.0 / PI * def->steering.ratio +
                   def->steering.center_offset_deg;
    s.u.chan.rate_a = a->rate_defined
                          ? fabs(a->steering_tire_rate_radps) * 180.0 / PI * def->steering.ratio
                          : 0.0;
    s.u.chan.cmd_type = PDK_STEER_CMD_ANGLE;
    s.u.chan.enable = (uint8_t)steer_on;
    s.u.chan.rc = (uint8_t)((dbw->ch[PDK_DBW_CH_STEER].rc + 1u) & 15u);
    apply_chan(dbw, d, def, PDK_DBW_CH_STEER, &s, tick);
    pdk_dbw_msg u = {.kind = PDK_DBW_MSG_ULC, .crc = -1};
    u.u.ulc.cmd = a->velocity_mps;
    u.u.ulc.cmd_type = PDK_ULC_CMD_VELOCITY;
    if (a->accel_defined && a->acceleration_mps2 != 0.0) {
        u.u.ulc.limit_accel = fabs(a->acceleration_mps2);
        u.u.ulc.limit_decel = fabs(a->acceleration_mps2);
    }
    if (a->jerk_defined && a->jerk_mps3 != 0.0) {
        u.u.ulc.limit_jerk_throttle = fabs(a->jerk_mps3);
        u.u.ulc.limit_jerk_brake = fabs(a->jerk_mps3);
    }
    u.u.ulc.enable = (uint8_t)long_on;
    u.u.ulc.rc = (uint8_t)((dbw->ulc_rc + 1u) & 15u);
    apply_ulc(dbw, d, &u, tick);
}

void pdk_dbw_apply(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def,
                   const pdk_dbw_msg *msg, const pdk_dbw_cmd *driver, uint64_t tick)
{
    dbw->touched = 1;
    switch (msg->kind) {
    case PDK_DBW_MSG_STEER:
        apply_chan(dbw, d, def, PDK_DBW_CH_STEER, msg, tick);
        break;
    case PDK_DBW_MSG_BRAKE:
        apply_chan(dbw, d, def, PDK_DBW_CH_BRAKE, msg, tick);
        break;
    case PDK_DBW_MSG_THROTTLE:
        apply_chan(dbw, d, def, PDK_DBW_CH_THROTTLE, msg, tick);
        break;
    case PDK_DBW_MSG_GEAR:
        apply_gear(dbw, d, msg, driver, tick);
        break;
    case PDK_DBW_MSG_ULC:
        apply_ulc(dbw, d, msg, tick);
        break;
    case PDK_DBW_MSG_TURN_SIGNAL:
        dbw->turn_signal = msg->u.value;
        break;
    case PDK_DBW_MSG_MISC:
        if (msg->u.value != 0) {
            dbw->parking_brake = msg->u.value;
        }
        break;
    case PDK_DBW_MSG_DRIVE_MODE:
        dbw->drive_mode_cmd = msg->u.value + 1; /* 0: none asked */
        break;
    case PDK_DBW_MSG_SYSTEM: {
        const pdk_dbw_system_cmd *y = &msg->u.system;
        dbw->sys_bad_crc =
            dbw->validate_crc && msg->crc >= 0 && (uint8_t)msg->crc != pdk_dbw_crc8(msg);
        /* The counter is checked against the stream's last one; a stream
         * quiet for 100 ms starts afresh. */
        int fresh = !dbw->sys_rc_valid || tick >= dbw->sys_last_tick + TIMEOUT_TICKS;
        dbw->sys_bad_rc = dbw->validate_crc && !fresh && y->rc == dbw->sys_rc;
        dbw->sys_rc = y->rc;
        dbw->sys_rc_valid = 1;
        dbw->sys_last_tick = tick;
        if (dbw->sys_bad_crc || dbw->sys_bad_rc) {
            break;
        }
        if (y->sync_mode >= 0) {
            dbw->sync_mode = y->sync_mode;
        }
        if (y->validate_crc >= 0) {
            dbw->validate_crc = (uint8_t)y->validate_crc;
        }
        if (y->comms_loss_arm >= 0) {
            dbw->comms_loss_armed = (uint8_t)y->comms_loss_arm;
        }
        if (y->cmd == PDK_DBW_SYS_DISABLE) {
            disengage(dbw, d, -1, PDK_DIS_SYSTEM_DISABLE_CMD, tick, 1);
            dbw->comms_loss_active = 0;
            dbw->lockout_latched = 0; /* a disable acknowledges a lockout */
            dbw->hold_depleted = 0;
        } else if (y->cmd == PDK_DBW_SYS_ENABLE &&
                   dbw->sync_mode != PDK_DBW_SYNC_ALL_OR_NONE_WITH_BTN) {
            dbw->comms_loss_active = 0;
            dbw->hold_depleted = 0;
            dbw->comms_loss_hold_left_s = d->comms_loss_hold_s;
            try_enable(dbw, tick);
        }
        break;
    }
    case PDK_DBW_MSG_BUTTON:
        switch (msg->u.value) {
        case PDK_DBW_BTN_ENABLE:
            dbw->btn_enable = 1;
            try_enable(dbw, tick);
            break;
        case PDK_DBW_BTN_DISABLE:
            dbw->btn_disable = 1;
            disengage(dbw, d, -1, PDK_DIS_SYSTEM_DISABLE_BTN, tick, 1);
            break;
        case PDK_DBW_BTN_EXTERNAL_BRAKE:
            dbw->external_brake = 1;
            disengage(dbw, d, -1, PDK_DIS_EXTERNAL_BRAKE, tick, 1);
            break;
        default:
            dbw->external_brake = 0;
            break;
        }
        break;
    case PDK_DBW_MSG_FAULT:
        apply_fault(dbw, d, &msg->u.fault, driver, tick);
        break;
    case PDK_DBW_MSG_AW_CONTROL:
        apply_aw_control(dbw, d, def, &msg->u.aw, tick);
        break;
    case PDK_DBW_MSG_AW_GEAR: {
        pdk_dbw_msg g = {.kind = PDK_DBW_MSG_GEAR, .crc = -1};
        g.u.value = aw_gear_to_kit(msg->u.value);
        apply_gear(dbw, d, &g, driver, tick);
        break;
    }
    case PDK_DBW_MSG_AW_MODE:
        if (msg->u.value == PDK_AW_MODE_MANUAL) {
            dbw->aw_mode = PDK_AW_MODE_MANUAL;
            disengage(dbw, d, -1, PDK_DIS_SYSTEM_DISABLE_CMD, tick, 1);
        } else if (msg->u.value != PDK_AW_MODE_NO_COMMAND) {
            dbw->aw_mode = msg->u.value;
            try_enable(dbw, tick);
        }
        break;
    default:
        break;
    }
}

void pdk_dbw_driver_input(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_dbw_cmd *prev,
                          const pdk_dbw_cmd *now, uint64_t tick)
{
    if (!dbw->touched) {
        return;
    }
    const pdk_dbw_chan *st = &dbw->ch[PDK_DBW_CH_STEER];
    if ((now->fields & PDK_DBW_STEER) &&
        fabs(now->steer_wheel_deg - (st->enabled ? st->out : prev->steer_wheel_deg)) >
            d->steer_override_deg) {
        dbw->ch[PDK_DBW_CH_STEER].override_until = tick + OVERRIDE_HOLD_TICKS;
    }
    if ((now->fields & PDK_DBW_GEAR) && now->gear != PDK_GEAR_NONE &&
        now->gear != (pdk_gear)current_gear(dbw, prev)) {
        dbw->gear_override_until = tick + ticks_of(d->gear_shift_s) + 1u;
        dbw->gear_out_set = 0; /* the lever is the driver's again */
        dbw->gear_shifting = 0;
    }
}

/* ---- the tick -------------------------------------------------------------- */

/* Moves a first-order actuator (brake line, throttle signal) one tick toward
 * target: the exact exponential of its lag, then its rate limits. */
static double lag_step(double out, double target, double tau_s, double rate_up, double rate_down,
                       double dt, uint8_t *limiting)
{
    double alpha = tau_s > 0.0 ? 1.0 - pdk_exp(-dt / tau_s) : 1.0;
    double step = (target - out) * alpha;
    double lim = step > 0.0 ? rate_up * dt : rate_down * dt;
    *limiting = fabs(step) > lim;
    return out + clamp(step, -lim, lim);
}

/* The steering servo: toward target at most rate_degps, changing its rate by
 * at most accel_degps2, slowing in time to stop on it. */
static void servo_step(pdk_dbw_chan *ch, double target, double dt)
{
    double e = target - ch->out;
    double rate = ch->rate_a;
    double dv_max = ch->rate_b * dt; /* the most the rate changes in a tick */
    /* The fastest rate from which ticks of decreasing rate (by dv_max each)
     * stop within |e|: n dv_max with dt dv_max n (n + 1) / 2 <= |e|. */
    double n = (sqrt(1.0 + 8.0 * fabs(e) / (dv_max * dt)) - 1.0) / 2.0;
    double want = sgn(e) * fmin(fmin(fabs(e) / dt, rate), n * dv_max);
    ch->limiting_rate = fabs(e) / dt > rate;
    double dv = clamp(want - ch->out_rate, -dv_max, dv_max);
    ch->out_rate = clamp(ch->out_rate + dv, -rate, rate);
    double next = ch->out + ch->out_rate * dt;
    if ((target - next) * e <= 0.0 && fabs(ch->out_rate) <= dv_max * (1.0 + 1e-9)) {
        next = target; /* arrived, and slow enough to stop there */
        ch->out_rate = 0.0;
    }
    ch->out = next;
}

/* The ULC: a reference shaped by the accel, decel and jerk limits; an
 * outer P + I speed loop on it whose acceleration command stays within the
 * limits; an inner loop that makes the car's acceleration follow that
 * command, so that a pedal's dead band (a CVT's engagement, a converter's
 * stall), a grade or a wrong guess of the car's acceleration at full
 * throttle are taken out within about half a second. The pedal or brake
 * then follows from the vehicle's full-throttle acceleration, its brakes'
 * deceleration at full pressure and its rolling and aerodynamic drag. Sets
 * the throttle and brake channels' targets. */
static void ulc_step(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def, double v,
                     double dt)
{
    double a_prev = dbw->ulc_accel_ref;
    double a_want;
    if (dbw->ulc_cmd_type == PDK_ULC_CMD_VELOCITY) {
        double target = clamp(dbw->ulc_cmd, 0.0, ULC_VEL_MAX_MPS);
        double e = target - dbw->ulc_vel_ref;
        double jerk = e >= 0.0 ? dbw->ulc_jerk_throttle : dbw->ulc_jerk_brake;
        double lim = e >= 0.0 ? dbw->ulc_limit_accel : dbw->ulc_limit_decel;
        /* The largest acceleration from which the jerk limit still brings
         * it to zero as the reference meets the target: |a| <= sqrt(2 j |e|). */
        a_want = sgn(e) * fmin(lim, sqrt(2.0 * jerk * fabs(e)));
        double da = clamp(a_want - a_prev, -jerk * dt, jerk * dt);
        double a = a_prev + da;
        double next = dbw->ulc_vel_ref + a * dt;
        if ((target - next) * e <= 0.0) {
            /* On the target: the reference stays there and its
             * acceleration winds down at the jerk limit. */
            next = target;
            a = a_prev - clamp(a_prev, -jerk * dt, jerk * dt);
        }
        dbw->ulc_vel_ref = next;
        dbw->ulc_accel_ref = a;
    } else {
        a_want = clamp(dbw->ulc_cmd, ULC_ACCEL_MIN_MPS2, ULC_ACCEL_MAX_MPS2);
        double jerk = a_want >= a_prev ? dbw->ulc_jerk_throttle : dbw->ulc_jerk_brake;
        dbw->ulc_accel_ref = a_prev + clamp(a_want - a_prev, -jerk * dt, jerk * dt);
        dbw->ulc_vel_ref = v;
    }
    double err = dbw->ulc_vel_ref - v;
    double lo = -dbw->ulc_limit_decel, hi = dbw->ulc_limit_accel;
    if (dbw->ulc_cmd_type == PDK_ULC_CMD_ACCEL) {
        lo = fmin(lo, dbw->ulc_accel_ref);
        hi = fmax(hi, dbw->ulc_accel_ref);
    }
    double a_raw = dbw->ulc_accel_ref + d->ulc_kp_per_s * err + dbw->ulc_integral;
    double a_cmd = clamp(a_raw, lo, hi);
    dbw->ulc_accel_filt +=
        (dbw->accel_meas_mps2 - dbw->ulc_accel_filt) * (1.0 - pdk_exp(-dt / ULC_ACCEL_FILTER_S));
    /* Drag the pedal must overcome: rolling resistance and air at 1.225
     * kg/m^3; the inner loop takes the rest, a grade included. */
    double m = def->chassis.mass_kg;
    double a_drag = 9.81 * def->resist.rolling_coeff * (fabs(v) > 0.1 ? 1.0 : 0.0) +
                    0.5 * 1.225 * def->resist.drag_area_m2 * v * v / m;
    /* The inner loop's proportional part: the car's acceleration beyond
     * (or short of) the command takes pedal off (or adds it) at once. */
    double need = a_cmd + dbw->ulc_accel_i + ULC_ACCEL_P * (a_cmd - dbw->ulc_accel_filt) + a_drag;
    double thr = 0.0, brk = 0.0;
    int stop_hold = dbw->ulc_cmd_type == PDK_ULC_CMD_VELOCITY && dbw->ulc_cmd <= 0.0 &&
                    fabs(v) < 0.1 && dbw->ulc_vel_ref <= 0.0;
    if (stop_hold) {
        brk = d->comms_loss_hold_bar;
    } else if (need >= 0.0) {
        thr = 100.0 * need / d->ulc_accel_full_mps2;
    } else if (!dbw->ulc_coast) {
        brk = -need / d->brake_decel_max_mps2 * def->brake.max_line_bar;
    }
    double thr_c = clamp(thr, 0.0, 100.0), brk_c = clamp(brk, 0.0, def->brake.max_line_bar);
    /* The integrals move unless the output is pinned against its limit the
     * same way (anti-windup), or the car is held at a stop. */
    double a_err = a_cmd - dbw->ulc_accel_filt;
    int sat_up = thr > 100.0;
    int sat_down = brk > def->brake.max_line_bar || (dbw->ulc_coast && need < 0.0);
    if (!stop_hold && !(sat_up && a_err > 0.0) && !(sat_down && a_err < 0.0)) {
        dbw->ulc_accel_i =
            clamp(dbw->ulc_accel_i + d->ulc_accel_loop_per_s * a_err * dt, -5.0, 5.0);
    }
    int pinned_up = sat_up || a_raw > hi;
    int pinned_down = sat_down || a_raw < lo;
    if (!stop_hold && !(pinned_up && err > 0.0) && !(pinned_down && err < 0.0)) {
        dbw->ulc_integral = clamp(dbw->ulc_integral + d->ulc_ki_per_s2 * err * dt, -3.0, 3.0);
    }
    dbw->ulc_accel_cmd = a_cmd;
    pdk_dbw_chan *t = &dbw->ch[PDK_DBW_CH_THROTTLE];
    pdk_dbw_chan *b = &dbw->ch[PDK_DBW_CH_BRAKE];
    t->target = thr_c;
    t->cmd = thr_c;
    t->cmd_type = PDK_THROTTLE_CMD_PERCENT;
    b->target = brk_c;
    b->cmd = brk_c;
    b->cmd_type = PDK_BRAKE_CMD_PRESSURE;
    for (int c = PDK_DBW_CH_BRAKE; c <= PDK_DBW_CH_THROTTLE; c++) {
        pdk_dbw_chan *ch = &dbw->ch[c];
        ch->cmd_src = PDK_DBW_SRC_ULC;
        ch->have_cmd = 1;
        ch->enable_req = 1;
        ch->last_cmd_tick = dbw->ulc_last_tick;
        ch->timeout = 0; /* the ULC's own watchdog stands for it */
        ch->rate_a = c == PDK_DBW_CH_BRAKE ? d->brake_rate_barps : d->throttle_rate_pctps;
        ch->rate_b = ch->rate_a;
        ch->limiting_value = 0;
    }
}

/* Comms loss and the external brake: the kit brakes on its own at
 * comms_loss_decel to a stop, then holds; with the hold spent it asks for
 * park and shifts there itself. */
static void self_brake(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def,
                       double v, double dt)
{
    pdk_dbw_chan *b = &dbw->ch[PDK_DBW_CH_BRAKE];
    pdk_dbw_chan *t = &dbw->ch[PDK_DBW_CH_THROTTLE];
    double bar = d->comms_loss_decel_mps2 / d->brake_decel_max_mps2 * def->brake.max_line_bar;
    if (fabs(v) < STOPPED_MPS) {
        bar = fmax(bar, d->comms_loss_hold_bar);
        dbw->comms_loss_hold_left_s -= dt;
        if (dbw->comms_loss_hold_left_s <= 0.0 && !dbw->hold_depleted) {
            dbw->hold_depleted = 1;
            dbw->gear_out = PDK_GEAR_PARK;
            dbw->gear_out_set = 1;
        }
    }
    b->target = clamp(bar, 0.0, def->brake.max_line_bar);
    b->cmd_src = dbw->external_brake ? PDK_DBW_SRC_BUTTON : PDK_DBW_SRC_COMMS_LOSS;
    b->rate_a = b->rate_b = d->brake_rate_barps;
    t->target = 0.0;
    t->cmd_src = b->cmd_src;
    t->rate_a = t->rate_b = d->throttle_rate_pctps;
}

void pdk_dbw_tick(pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def,
                  const pdk_dbw_vehicle *veh, const pdk_dbw_cmd *driver, uint64_t tick, double dt_s,
                  pdk_dbw_cmd *out)
{
    *out = *driver;
    if (!dbw->touched) {
        return;
    }
    double v = veh->speed_mps;
    if (dbw->touched == 1) {
        /* The kit's first tick: it has no earlier speed to difference. */
        dbw->speed_prev_mps = v;
        dbw->touched = 2;
    }
    dbw->accel_meas_mps2 = (v - dbw->speed_prev_mps) / dt_s;
    dbw->speed_prev_mps = v;

    /* Watchdogs (100 ms of simulation time). */
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        pdk_dbw_chan *ch = &dbw->ch[c];
        if (ch->have_cmd && !ch->timeout && tick >= ch->last_cmd_tick + TIMEOUT_TICKS) {
            ch->timeout = 1;
            ch->rc_valid = 0; /* a stream that starts again may start anywhere */
        }
    }
    if (dbw->ulc_have && !dbw->ulc_timeout && tick >= dbw->ulc_last_tick + TIMEOUT_TICKS) {
        dbw->ulc_timeout = 1;
        dbw->ulc_rc = 0xFFu; /* no counter matches: a new stream may start anywhere */
    }

    /* The driver acting now. */
    dbw->ch[PDK_DBW_CH_STEER].override_active = tick < dbw->ch[PDK_DBW_CH_STEER].override_until;
    dbw->ch[PDK_DBW_CH_BRAKE].override_active = driver->brake_bar > d->brake_override_bar;
    dbw->ch[PDK_DBW_CH_THROTTLE].override_active = driver->throttle_pct > d->throttle_override_pct;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        int other = 0;
        for (int o = 0; o < PDK_DBW_CH_COUNT; o++) {
            other |= o != c && override_active(dbw, o);
        }
        dbw->ch[c].override_other =
            (uint8_t)(other && !override_active(dbw, c) && relevant(dbw, c));
    }

    /* Lockouts: the condition now, and the latch it leaves. */
    double a_plane = sqrt(veh->ax_mps2 * veh->ax_mps2 + veh->ay_mps2 * veh->ay_mps2);
    int lockout = 0;
    if (fabs(v) > d->lockout_speed_mps) {
        lockout = PDK_NR_LOCKOUT_VEHICLE_VELOCITY;
    } else if (a_plane > d->lockout_accel_mps2) {
        lockout = PDK_NR_LOCKOUT_VEHICLE_ACCEL;
    } else if (d->lockout_reverse && current_gear(dbw, driver) == PDK_GEAR_REVERSE) {
        lockout = PDK_NR_LOCKOUT_GEAR_REVERSE;
    }
    dbw->lockout_reason = lockout;
    dbw->lockout = (uint8_t)(lockout != 0);

    /* The ULC's timeout and the user's pedal commands end it. */
    int was_active = dbw->state == PDK_DBW_ACTIVE;
    if (dbw->ulc_enabled && dbw->ulc_timeout) {
        disengage_ulc(dbw);
    }

    /* Disengagements, in the kit's order of causes. */
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        pdk_dbw_chan *ch = &dbw->ch[c];
        int reason = 0;
        if (ch->pending_dis) {
            reason = ch->pending_dis;
        } else if (!ch->enabled) {
            reason = 0;
        } else if (ch->report_missing) {
            reason = chan_dis_code(c, PDK_DIS_STEER_RPT_DISENGAGE);
        } else if (ch->fault) {
            reason = chan_dis_code(c, PDK_DIS_STEER_RPT_FAULT);
        } else if (override_active(dbw, c)) {
            reason = chan_dis_code(c, PDK_DIS_STEER_RPT_OVERRIDE);
            ch->override_latched = 1;
            if (c != PDK_DBW_CH_STEER && dbw->ulc_enabled) {
                dbw->ulc_override_latched = 1;
            }
        } else if (ch->timeout) {
            reason = chan_dis_code(c, PDK_DIS_STEER_CMD_TIMEOUT);
        }
        ch->pending_dis = 0;
        if (reason != 0) {
            int fault = reason == chan_dis_code(c, PDK_DIS_STEER_RPT_FAULT);
            disengage(dbw, d, c, reason, tick, fault);
            if (reason == chan_dis_code(c, PDK_DIS_STEER_CMD_TIMEOUT) && dbw->comms_loss_armed &&
                was_active) {
                dbw->comms_loss_active = 1;
                dbw->comms_loss_hold_left_s = d->comms_loss_hold_s;
            }
        }
    }
    if (dbw->enabled && dbw->gear_fault) {
        disengage(dbw, d, -1, PDK_DIS_GEAR_RPT_FAULT, tick, 1);
    } else if (dbw->enabled && gear_override_active(dbw, tick)) {
        disengage(dbw, d, -1, PDK_DIS_GEAR_RPT_OVERRIDE, tick, 1);
    } else if (dbw->enabled && lockout != 0) {
        disengage(dbw, d, -1,
                  PDK_DIS_LOCKOUT_VEHICLE_VELOCITY + (lockout - PDK_NR_LOCKOUT_VEHICLE_VELOCITY),
                  tick, 1);
        dbw->lockout_latched = 1;
    }

    /* Engagement: channels join an enabled system as they can. */
    if (dbw->enabled) {
        int can[PDK_DBW_CH_COUNT];
        int all = 1;
        for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
            can[c] = dbw->ch[c].enabled ||
                     (chan_blocker(dbw, c, tick) == 0 && tick >= dbw->reengage_tick);
            all &= can[c];
        }
        for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
            if (can[c] && (dbw->sync_mode < PDK_DBW_SYNC_ALL_OR_NONE || all)) {
                dbw->ch[c].enabled = 1;
            }
        }
        if (!dbw->ulc_enabled && dbw->ulc_enable_req && !dbw->ulc_timeout &&
            !dbw->ulc_override_latched && dbw->ch[PDK_DBW_CH_BRAKE].enabled == 0 &&
            dbw->ch[PDK_DBW_CH_THROTTLE].enabled == 0) {
            /* The ULC takes the pedals when the user's commands are not
             * holding them: it feeds both channels from now on. */
            dbw->ulc_enabled = 1;
            dbw->ulc_preempted = 0;
            dbw->ulc_integral = 0.0;
            dbw->ulc_accel_i = 0.0;
            /* The reference starts from the car as it is. */
            dbw->ulc_vel_ref = v;
            dbw->ulc_accel_ref = 0.0;
            dbw->ulc_accel_filt = 0.0;
        }
    }
    if (dbw->ulc_enabled) {
        ulc_step(dbw, d, def, v, dt_s);
        if (dbw->enabled) {
            for (int c = PDK_DBW_CH_BRAKE; c <= PDK_DBW_CH_THROTTLE; c++) {
                if (chan_blocker(dbw, c, tick) == 0) {
                    dbw->ch[c].enabled = 1;
                }
            }
        }
    }

    dbw->reason_not_ready = not_ready_reason(dbw, tick);
    int any = 0, every = 1;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        any |= dbw->ch[c].enabled;
        every &= dbw->ch[c].enabled;
    }
    int fault = dbw->gear_fault;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        fault |= dbw->ch[c].fault;
    }
    if (fault) {
        dbw->state = PDK_DBW_FAULT;
    } else if (dbw->enabled && (dbw->sync_mode >= PDK_DBW_SYNC_ALL_OR_NONE ? every : any)) {
        dbw->state = PDK_DBW_ACTIVE;
        dbw->reason_not_ready = PDK_NR_NONE;
    } else if (dbw->reason_not_ready == PDK_NR_SYSTEM_DISABLED ||
               dbw->reason_not_ready == PDK_NR_NONE) {
        dbw->state = PDK_DBW_READY;
    } else {
        dbw->state = PDK_DBW_MANUAL;
    }

    /* Gear: a shift by wire completes after its time. */
    if (dbw->gear_shifting && tick >= dbw->gear_done_tick) {
        dbw->gear_shifting = 0;
        dbw->gear_out = dbw->gear_pending;
        dbw->gear_out_set = 1;
    }
    if (dbw->ulc_enabled && dbw->ulc_shift && dbw->enabled && !dbw->gear_shifting &&
        dbw->ulc_cmd_type == PDK_ULC_CMD_VELOCITY && dbw->ulc_cmd > 0.0) {
        int cur = current_gear(dbw, driver);
        if (cur == PDK_GEAR_PARK || cur == PDK_GEAR_NEUTRAL) {
            pdk_dbw_msg g = {.kind = PDK_DBW_MSG_GEAR, .crc = -1};
            g.u.value = PDK_GEAR_DRIVE;
            /* The ULC holds the brake while it shifts (its target is 0 m/s
             * until the shift is done). */
            dbw->ch[PDK_DBW_CH_BRAKE].target =
                fmax(dbw->ch[PDK_DBW_CH_BRAKE].target,
                     fmin(d->gear_brake_hold_bar + 1.0, def->brake.max_line_bar));
            dbw->ch[PDK_DBW_CH_THROTTLE].target = 0.0;
            apply_gear(dbw, d, &g, driver, tick);
        }
    }

    int self = dbw->comms_loss_active || dbw->external_brake;
    if (self) {
        self_brake(dbw, d, def, v, dt_s);
    }

    /* The actuators: an engaged channel (or the kit braking on its own)
     * moves its actuator; otherwise the actuator follows the driver's
     * control, so that an engagement starts where the car is. */
    double control[PDK_DBW_CH_COUNT];
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        pdk_dbw_chan *ch = &dbw->ch[c];
        int kit = ch->enabled || (self && c != PDK_DBW_CH_STEER);
        double drv = driver_value(driver, c);
        if (!kit) {
            ch->out = drv;
            ch->out_rate = 0.0;
            ch->limiting_rate = 0;
            ch->line_live = 0; /* refilled with out when it engages */
            control[c] = drv;
            continue;
        }
        /* The delay line: slot tick % N holds the set point of that tick;
         * on the first tick engaged every slot holds out (where the
         * actuator is: the driver's control of the tick before, or what a
         * reset put there). */
        if (!ch->line_live) {
            fill_delay(ch, ch->out);
        }
        const int slot = (int)(tick % PDK_DBW_DELAY_TICKS);
        ch->delay_digest +=
            pdk_dbw_delay_term(slot, ch->target) - pdk_dbw_delay_term(slot, ch->delay_line[slot]);
        ch->delay_line[slot] = ch->target;
        double delayed = ch->delay_line[(tick + PDK_DBW_DELAY_TICKS - (uint64_t)ch->delay_ticks) %
                                        PDK_DBW_DELAY_TICKS];
        if (c == PDK_DBW_CH_STEER) {
            servo_step(ch, delayed, dt_s);
        } else {
            double tau = c == PDK_DBW_CH_BRAKE ? d->brake_tau_s : d->throttle_tau_s;
            double up = ch->rate_a, down = ch->rate_b;
            if (c == PDK_DBW_CH_BRAKE) {
                up = fmin(up, d->brake_rate_max_barps);
                down = fmin(down, d->brake_rate_max_barps);
            }
            ch->out = lag_step(ch->out, delayed, tau, up, down, dt_s, &ch->limiting_rate);
        }
        if (ch->fault_kind == PDK_FAULT_STUCK) {
            ch->out = ch->stuck_value;
            ch->out_rate = 0.0;
        } else if (ch->fault_kind == PDK_FAULT_SATURATED) {
            ch->out = clamp(ch->stuck_value, chan_min(def, c), chan_max(def, c));
            ch->out_rate = 0.0;
        }
        control[c] = ch->out;
    }
    out->steer_wheel_deg =
        clamp(control[PDK_DBW_CH_STEER], -def->steering.lock_deg, def->steering.lock_deg);
    out->brake_bar = clamp(control[PDK_DBW_CH_BRAKE], 0.0, def->brake.max_line_bar);
    out->throttle_pct = clamp(control[PDK_DBW_CH_THROTTLE], 0.0, 100.0);
    if (dbw->gear_out_set) {
        out->gear = (pdk_gear)dbw->gear_out;
    }
}
