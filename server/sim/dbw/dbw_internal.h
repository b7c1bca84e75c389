/* What dbw.c (the kit's behaviour) and dbw_report.c (its reports and
 * hash) share and nobody else uses. */
#ifndef PDK_DBW_INTERNAL_H
#define PDK_DBW_INTERNAL_H

#include <stdint.h>

#include "dbw/dbw.h"

static inline double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline double sgn(double v)
{
    return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0);
}

/* The brake torque, summed over the wheels, of one bar of line pressure. */
static inline double brake_nm_per_bar(const pdk_vehicle_def *def)
{
    if (def->powertrain.kind != PDK_POWERTRAIN_LUMPED) {
        return 2.0 *
               (def->powertrain.brake_front_nm_per_bar + def->powertrain.brake_rear_nm_per_bar);
    }
    return def->brake.force_per_bar_n * def->tyre_rear.soil.radius_m;
}

static inline double chan_max(const pdk_vehicle_def *def, int c)
{
    return c == PDK_DBW_CH_STEER ? def->steering.lock_deg
                                 : (c == PDK_DBW_CH_BRAKE ? def->brake.max_line_bar : 100.0);
}

static inline double chan_min(const pdk_vehicle_def *def, int c)
{
    return c == PDK_DBW_CH_STEER ? -def->steering.lock_deg : 0.0;
}

/* The driver's control in the channel's actuator units. */
static inline double driver_value(const pdk_dbw_cmd *driver, int c)
{
    return c == PDK_DBW_CH_STEER
               ? driver->steer_wheel_deg
               : (c == PDK_DBW_CH_BRAKE ? driver->brake_bar : driver->throttle_pct);
}

static inline int override_active(const pdk_dbw_state *dbw, int c)
{
    return dbw->ch[c].override_active && !dbw->ch[c].ignore;
}

static inline int gear_override_active(const pdk_dbw_state *dbw, uint64_t tick)
{
    return tick < dbw->gear_override_until;
}

/* Why channel c cannot engage now, as the kit's code, or 0. */
static inline int chan_blocker(const pdk_dbw_state *dbw, int c, uint64_t tick)
{
    const pdk_dbw_chan *ch = &dbw->ch[c];
    if (ch->report_missing) {
        return PDK_NR_MISSING_REPORT_STEER + c;
    }
    if (ch->fault) {
        return PDK_NR_FAULT_STEER + c;
    }
    if (ch->bad_crc || ch->bad_rc) {
        return PDK_NR_BAD_CRC_RC_CMD_STEER + c;
    }
    if (override_active(dbw, c)) {
        return PDK_NR_OVERRIDE_ACTIVE_STEER + c;
    }
    if (ch->override_latched) {
        return PDK_NR_OVERRIDE_LATCHED_STEER + c;
    }
    if (ch->override_other) {
        return PDK_NR_OVERRIDE_OTHER_STEER + c;
    }
    if (tick < ch->boot_until) {
        return PDK_NR_NOT_READY_STEER + c;
    }
    if (!ch->have_cmd || ch->timeout) {
        return PDK_NR_MISSING_CMD_STEER + c;
    }
    if (!ch->enable_req) {
        return PDK_NR_NOT_ENABLE_CMD_STEER + c;
    }
    return 0;
}

#endif
