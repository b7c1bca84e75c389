/* The kit's reports (dbw.h pdk_dbw_report_fill: every block the kit sends,
 * its sensors' noise from a counter-based generator, ADR 0011). Its state
 * hash is dbw_hash.h. */
#include <math.h>
#include <string.h>

#include "dbw/dbw_internal.h"
#include "math/hash.h"
#include "math/prng.h"
#include "math/trig.h"
#include "math/vmath.h"

#define PI 3.14159265358979323846

/* ---- reports -------------------------------------------------------------- */

static uint64_t noise_key(uint64_t seed, uint32_t vehicle, uint64_t tick, uint32_t axis)
{
    uint64_t s = seed ^ pdk_hash_fmix64(((uint64_t)vehicle << 32) ^ axis);
    s ^= pdk_hash_fmix64(tick + UINT64_C(0x9E3779B97F4A7C15));
    return pdk_prng_splitmix64(&s);
}

double pdk_dbw_noise_unit(uint64_t seed, uint32_t vehicle, uint64_t tick, uint32_t axis)
{
    return (double)(noise_key(seed, vehicle, tick, axis) >> 11) * 0x1.0p-53;
}

double pdk_dbw_noise_normal(uint64_t seed, uint32_t vehicle, uint64_t tick, uint32_t axis)
{
    /* Box-Muller on two independent uniforms (axis and axis + 2^31), with
     * the simulation's own log and cosine (vmath.h, trig.h), not libm's:
     * glibc picks a variant of log and cos by processor and changes them
     * between releases, and a report replayed on another machine must
     * carry the same bits. sqrt is IEEE's, correctly rounded everywhere. */
    double u1 = pdk_dbw_noise_unit(seed, vehicle, tick, axis);
    double u2 = pdk_dbw_noise_unit(seed, vehicle, tick, axis + 0x80000000u);
    double r = sqrt(-2.0 * pdk_log(1.0 - u1));
    double s, c;
    pdk_trig_sincos(2.0 * PI * u2, &s, &c);
    return r * c;
}

static void chan_report(const pdk_dbw_state *dbw, const pdk_vehicle_def *def,
                        const pdk_dbw_cmd *driver, int c, uint64_t tick, pdk_dbw_chan_report *r)
{
    const pdk_dbw_chan *ch = &dbw->ch[c];
    int self = (dbw->comms_loss_active || dbw->external_brake) && c != PDK_DBW_CH_STEER;
    r->cmd = ch->cmd;
    r->input = driver_value(driver, c);
    r->output = ch->enabled || self ? ch->out : r->input;
    r->limit_value = chan_max(def, c);
    r->limit_rate = ch->rate_a;
    r->cmd_type = ch->cmd_type;
    r->cmd_src = ch->cmd_src;
    r->ready = chan_blocker(dbw, c, tick) == 0;
    r->enabled = ch->enabled;
    r->override_active = ch->override_active;
    r->override_other = ch->override_other;
    r->override_latched = ch->override_latched;
    r->timeout = ch->timeout;
    r->fault = ch->fault;
    r->bad_crc = ch->bad_crc;
    r->bad_rc = ch->bad_rc;
    r->limiting_value = ch->limiting_value;
    r->limiting_rate = ch->limiting_rate;
    r->degraded = ch->fault_kind != 0 || ch->latency_ticks != 0;
}

static int kit_to_aw_gear(int g)
{
    switch (g) {
    case PDK_GEAR_PARK:
        return PDK_AW_GEAR_PARK;
    case PDK_GEAR_REVERSE:
        return PDK_AW_GEAR_REVERSE;
    case PDK_GEAR_NEUTRAL:
        return PDK_AW_GEAR_NEUTRAL;
    case PDK_GEAR_DRIVE:
        return PDK_AW_GEAR_DRIVE;
    case PDK_GEAR_LOW:
        return PDK_AW_GEAR_LOW;
    default:
        return PDK_AW_GEAR_NONE;
    }
}

void pdk_dbw_report_fill(const pdk_dbw_state *dbw, const pdk_dbw_def *d, const pdk_vehicle_def *def,
                         const pdk_dbw_truth *tr, const pdk_dbw_cmd *driver, uint64_t seed,
                         uint32_t vehicle, uint64_t tick, pdk_dbw_report *out)
{
    memset(out, 0, sizeof *out);
    out->tick = tick;
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        chan_report(dbw, def, driver, c, tick, &out->ch[c]);
    }
    out->steering_wheel_angle_deg = out->ch[PDK_DBW_CH_STEER].output;
    out->road_wheel_angle_deg = tr->road_wheel_angle_rad * 180.0 / PI;
    double nm_bar = brake_nm_per_bar(def);
    const pdk_dbw_chan *b = &dbw->ch[PDK_DBW_CH_BRAKE];
    out->brake_torque_cmd_nm = b->target * nm_bar;
    out->brake_torque_output_nm = tr->brake_torque_nm;
    out->brake_accel_cmd_mps2 = -b->target / def->brake.max_line_bar * d->brake_decel_max_mps2;
    out->brake_accel_output_mps2 =
        -out->ch[PDK_DBW_CH_BRAKE].output / def->brake.max_line_bar * d->brake_decel_max_mps2;
    out->brake_percent_output = 100.0 * out->ch[PDK_DBW_CH_BRAKE].output / def->brake.max_line_bar;
    out->comms_loss_armed = dbw->comms_loss_armed;
    out->external_button = dbw->external_brake;
    out->req_shift_park = dbw->hold_depleted;
    out->req_park_brake = dbw->hold_depleted;
    out->brake_available_s = fmax(dbw->comms_loss_hold_left_s, 0.0);

    out->gear = tr->gear;
    out->gear_cmd = dbw->gear_cmd;
    out->gear_driver = (int32_t)driver->gear;
    out->gear_reject = dbw->gear_reject != 0 ? dbw->gear_reject : tr->powertrain_reject;
    out->gear_number = tr->gear_number;
    out->gear_cmd_src = dbw->hold_depleted                   ? PDK_DBW_SRC_COMMS_LOSS
                        : dbw->ulc_enabled && dbw->ulc_shift ? PDK_DBW_SRC_ULC
                                                             : PDK_DBW_SRC_USER;
    out->gear_ready = !dbw->gear_fault && !dbw->gear_report_missing;
    out->gear_override = gear_override_active(dbw, tick);
    out->gear_fault = dbw->gear_fault;
    out->gear_bad_crc = dbw->gear_bad_crc;

    out->state = dbw->state;
    out->sync_mode = dbw->sync_mode;
    out->reason_disengage = dbw->reason_disengage;
    out->reason_not_ready = dbw->reason_not_ready;
    out->sys_enabled = dbw->state == PDK_DBW_ACTIVE;
    out->sys_ready = dbw->state == PDK_DBW_READY || dbw->state == PDK_DBW_ACTIVE;
    int ovr = gear_override_active(dbw, tick);
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        ovr |= dbw->ch[c].override_active || dbw->ch[c].override_latched;
    }
    out->sys_override = (uint8_t)ovr;
    out->sys_fault = dbw->state == PDK_DBW_FAULT;
    out->sys_lockout = dbw->lockout || dbw->lockout_latched;
    out->validate_crc = dbw->validate_crc;
    out->sys_bad_crc = dbw->sys_bad_crc;
    out->sys_bad_rc = dbw->sys_bad_rc;
    out->btn_enable = dbw->btn_enable;
    out->btn_disable = dbw->btn_disable;

    out->ulc_cmd_type = dbw->ulc_cmd_type;
    out->ulc_vel_ref = dbw->ulc_vel_ref;
    out->ulc_vel_meas = tr->speed_mps;
    out->ulc_accel_ref = dbw->ulc_accel_ref;
    out->ulc_accel_meas = dbw->accel_meas_mps2;
    out->ulc_ready = dbw->ulc_have && !dbw->ulc_timeout && !dbw->ulc_override_latched;
    out->ulc_enabled = dbw->ulc_enabled;
    out->ulc_override_active =
        override_active(dbw, PDK_DBW_CH_BRAKE) || override_active(dbw, PDK_DBW_CH_THROTTLE);
    out->ulc_override_latched = dbw->ulc_override_latched;
    out->ulc_preempted = dbw->ulc_preempted;
    out->ulc_timeout = dbw->ulc_timeout;
    out->ulc_coast = dbw->ulc_coast;
    out->ulc_bad_rc = dbw->ulc_bad_rc;
    out->ulc_bad_crc = dbw->ulc_bad_crc;

    double dir = tr->gear == PDK_GEAR_REVERSE ? -1.0 : 1.0;
    out->velocity_brake_mps = dir * fabs(tr->speed_mps);
    out->velocity_propulsion_mps = dir * fabs(tr->speed_mps);
    for (int w = 0; w < 4; w++) {
        out->wheel_speed_radps[w] = tr->wheel_speed_radps[w];
    }

    const double truth_imu[6] = {tr->ax_mps2,         tr->ay_mps2,          tr->az_mps2,
                                 tr->roll_rate_radps, tr->pitch_rate_radps, tr->yaw_rate_radps};
    for (int i = 0; i < 6; i++) {
        double sigma = (i < 3 ? d->imu_accel_noise_mps2 : d->imu_gyro_noise_radps) *
                       dbw->sensor_noise_scale[i];
        double n =
            sigma > 0.0 ? sigma * pdk_dbw_noise_normal(seed, vehicle, tick, (uint32_t)i) : 0.0;
        double v = truth_imu[i] + n + dbw->sensor_bias[i];
        if (i < 3) {
            out->accel_mps2[i] = v;
        } else {
            out->gyro_radps[i - 3] = v;
        }
    }
    double gs = d->gnss_noise_m * dbw->sensor_noise_scale[PDK_SENSOR_GNSS];
    out->gnss_valid = pdk_dbw_noise_unit(seed, vehicle, tick, 16u) >= d->gnss_dropout;
    out->gnss_x_m = tr->x_m + dbw->sensor_bias[PDK_SENSOR_GNSS] +
                    (gs > 0.0 ? gs * pdk_dbw_noise_normal(seed, vehicle, tick, 17u) : 0.0);
    out->gnss_y_m = tr->y_m + dbw->sensor_bias[PDK_SENSOR_GNSS] +
                    (gs > 0.0 ? gs * pdk_dbw_noise_normal(seed, vehicle, tick, 18u) : 0.0);

    out->turn_signal = dbw->turn_signal;
    out->parking_brake = tr->gear == PDK_GEAR_PARK || dbw->parking_brake == 1 ? 1 : 2;
    out->drive_mode =
        dbw->drive_mode_cmd > 0 ? dbw->drive_mode_cmd - 1 : (int32_t)def->powertrain.drive_mode;

    int steer_on = dbw->ch[PDK_DBW_CH_STEER].enabled;
    int long_on = dbw->ch[PDK_DBW_CH_BRAKE].enabled || dbw->ch[PDK_DBW_CH_THROTTLE].enabled;
    if (dbw->state == PDK_DBW_ACTIVE) {
        out->aw_mode = steer_on && long_on ? PDK_AW_MODE_AUTONOMOUS
                                           : (steer_on ? PDK_AW_MODE_AUTONOMOUS_STEER_ONLY
                                                       : PDK_AW_MODE_AUTONOMOUS_VELOCITY_ONLY);
    } else if (dbw->reason_disengage != PDK_DIS_NONE && dbw->state != PDK_DBW_READY) {
        out->aw_mode = PDK_AW_MODE_DISENGAGED;
    } else if (dbw->state == PDK_DBW_READY) {
        out->aw_mode = PDK_AW_MODE_MANUAL;
    } else {
        out->aw_mode = PDK_AW_MODE_NOT_READY;
    }
    out->aw_gear = kit_to_aw_gear(tr->gear);
    out->aw_longitudinal_mps = tr->vx_mps;
    out->aw_lateral_mps = tr->vy_mps;
    out->aw_heading_rate_radps = tr->yaw_rate_radps;
    out->aw_tire_angle_rad = tr->road_wheel_angle_rad;
}
