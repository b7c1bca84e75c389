/* The DBW kit's part of the state hash (world.c): the kit's whole state fed
 * into the wide hash field by field; a live delay line by its digest, a dead
 * one (the channel follows the driver, and refills the line when it engages)
 * not at all. Always inlined, like hash.h, so that each of world.c's hash
 * builds compiles it for its processor (docs/adr/0014). */
#ifndef PDK_DBW_HASH_H
#define PDK_DBW_HASH_H

#include <stdint.h>

#include "dbw/dbw.h"
#include "math/hash.h"

/* Eight byte-sized fields as one word, the first in the lowest byte (each
 * shifted as it is, so a field of more than eight bits overlaps the next
 * as the hash always took it). */
PDK_HASH_INLINE uint64_t pdk_dbw_bytes8(uint64_t b0, uint64_t b1, uint64_t b2, uint64_t b3,
                                        uint64_t b4, uint64_t b5, uint64_t b6, uint64_t b7)
{
    return b0 | b1 << 8 | b2 << 16 | b3 << 24 | b4 << 32 | b5 << 40 | b6 << 48 | b7 << 56;
}

/* Lane by lane, four words a take, in the order of the kit's fields; a
 * group's last take is padded with zero words. Values are put in lanes
 * directly rather than through a local array, which the wide load would
 * read back through a failed store forward (hash.h pdk_hash4_tail_). */
PDK_HASH_INLINE void pdk_dbw_hash(pdk_hash4 *h, const pdk_dbw_state *dbw)
{
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        const pdk_dbw_chan *ch = &dbw->ch[c];
        pdk_hash4_f64x4(h, ch->cmd, ch->rate_a, ch->rate_b, ch->target);
        pdk_hash4_f64x4(h, ch->out, ch->out_rate, ch->stuck_value, 0.0);
        /* The live line by its digest (its 64 slots are most of the kit's
         * state); a dead one is refilled before it is read again. */
        pdk_hash4_take(h, ch->line_live ? ch->delay_digest : 0u, (uint64_t)ch->line_live, 0u, 0u);
        const uint64_t flags = pdk_dbw_bytes8(ch->have_cmd, ch->enable_req, ch->rc, ch->rc_valid,
                                              ch->enabled, ch->timeout, ch->bad_crc, ch->bad_rc);
        const uint64_t override_flags = pdk_dbw_bytes8(
            ch->override_active, ch->override_latched, ch->override_other, ch->ignore, ch->fault,
            ch->report_missing, ch->limiting_value, ch->limiting_rate);
        pdk_hash4_take(h, ch->last_cmd_tick, ch->override_until, ch->boot_until,
                       (uint64_t)(uint32_t)ch->cmd_type);
        pdk_hash4_take(h, (uint64_t)(uint32_t)ch->cmd_src, (uint64_t)(uint32_t)ch->delay_ticks,
                       (uint64_t)(uint32_t)ch->fault_kind, (uint64_t)(uint32_t)ch->pending_dis);
        pdk_hash4_take(h, (uint64_t)(uint32_t)ch->latency_ticks, flags, override_flags, 0u);
    }
    pdk_hash4_f64x4(h, dbw->ulc_cmd, dbw->ulc_limit_accel, dbw->ulc_limit_decel,
                    dbw->ulc_jerk_throttle);
    pdk_hash4_f64x4(h, dbw->ulc_jerk_brake, dbw->ulc_vel_ref, dbw->ulc_accel_ref,
                    dbw->ulc_accel_cmd);
    pdk_hash4_f64x4(h, dbw->ulc_integral, dbw->comms_loss_hold_left_s, dbw->speed_prev_mps,
                    dbw->accel_meas_mps2);
    pdk_hash4_f64x4(h, dbw->ulc_accel_filt, dbw->ulc_accel_i, 0.0, 0.0);
    pdk_hash4_f64s(h, dbw->sensor_bias, PDK_SENSOR_COUNT);
    pdk_hash4_f64s(h, dbw->sensor_noise_scale, PDK_SENSOR_COUNT);
    pdk_hash4_f64s(h, dbw->report_drop, PDK_RPT_COUNT);
    const uint32_t *delay = dbw->report_delay_ticks;
    _Static_assert(PDK_RPT_COUNT == 12, "the report delays are three takes");
    for (int i = 0; i < PDK_RPT_COUNT; i += 4) {
        pdk_hash4_take(h, delay[i], delay[i + 1], delay[i + 2], delay[i + 3]);
    }
    pdk_hash4_take(h, dbw->ulc_last_tick, dbw->sys_last_tick, dbw->gear_done_tick,
                   dbw->gear_override_until);
    pdk_hash4_take(h, dbw->reengage_tick, (uint64_t)(uint32_t)dbw->ulc_cmd_type,
                   (uint64_t)(uint32_t)dbw->gear_cmd << 32 | (uint32_t)dbw->gear_reject,
                   (uint64_t)(uint32_t)dbw->gear_pending << 32 | (uint32_t)dbw->gear_fault);
    pdk_hash4_take(h, (uint64_t)(uint32_t)dbw->gear_out,
                   (uint64_t)(uint32_t)dbw->state << 32 | (uint32_t)dbw->sync_mode,
                   (uint64_t)(uint32_t)dbw->reason_disengage << 32 |
                       (uint32_t)dbw->reason_not_ready,
                   (uint64_t)(uint32_t)dbw->lockout_reason);
    const uint64_t ulc_flags = pdk_dbw_bytes8(
        dbw->ulc_have, dbw->ulc_enable_req, dbw->ulc_enabled, dbw->ulc_timeout,
        dbw->ulc_override_latched, dbw->ulc_preempted, dbw->ulc_bad_rc, dbw->ulc_bad_crc);
    const uint64_t ulc_gear_flags = pdk_dbw_bytes8(
        dbw->ulc_coast, dbw->ulc_shift, dbw->ulc_shift_park, dbw->ulc_rc, dbw->gear_bad_crc,
        dbw->gear_report_missing, dbw->gear_out_set, dbw->gear_shifting);
    pdk_hash4_take(h, (uint64_t)(uint32_t)dbw->turn_signal << 32 | (uint32_t)dbw->parking_brake,
                   (uint64_t)(uint32_t)dbw->drive_mode_cmd << 32 | (uint32_t)dbw->aw_mode,
                   ulc_flags, ulc_gear_flags);
    const uint64_t system_flags = pdk_dbw_bytes8(
        dbw->enabled, dbw->validate_crc, dbw->comms_loss_armed, dbw->comms_loss_active,
        dbw->lockout, dbw->btn_enable, dbw->btn_disable, dbw->external_brake);
    const uint64_t system_rc_flags =
        pdk_dbw_bytes8(dbw->sys_rc, dbw->sys_bad_rc, dbw->sys_bad_crc, dbw->touched,
                       dbw->sys_rc_valid, dbw->lockout_latched, dbw->hold_depleted, 0u);
    pdk_hash4_take(h, system_flags, system_rc_flags, 0u, 0u);
}

#endif
