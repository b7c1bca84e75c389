/* The DBW kit's part of the state hash (world.c): the kit's whole state
 * fed into the wide hash field by field; a live delay line by its digest,
 * a dead one (the channel follows the driver, and refills the line when it
 * engages) not at all. Always inlined, like hash.h, so that each of
 * world.c's hash builds compiles it for its processor (docs/adr/0015). */
#ifndef PDK_DBW_HASH_H
#define PDK_DBW_HASH_H

#include <stdint.h>

#include "dbw.h"
#include "hash.h"

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
        const uint64_t flags = (uint64_t)ch->have_cmd | (uint64_t)ch->enable_req << 8 |
                               (uint64_t)ch->rc << 16 | (uint64_t)ch->rc_valid << 24 |
                               (uint64_t)ch->enabled << 32 | (uint64_t)ch->timeout << 40 |
                               (uint64_t)ch->bad_crc << 48 | (uint64_t)ch->bad_rc << 56;
        const uint64_t override_flags =
            (uint64_t)ch->override_active | (uint64_t)ch->override_latched << 8 |
            (uint64_t)ch->override_other << 16 | (uint64_t)ch->ignore << 24 |
            (uint64_t)ch->fault << 32 | (uint64_t)ch->report_missing << 40 |
            (uint64_t)ch->limiting_value << 48 | (uint64_t)ch->limiting_rate << 56;
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
    const uint64_t ulc_flags = (uint64_t)dbw->ulc_have | (uint64_t)dbw->ulc_enable_req << 8 |
                               (uint64_t)dbw->ulc_enabled << 16 | (uint64_t)dbw->ulc_timeout << 24 |
                               (uint64_t)dbw->ulc_override_latched << 32 |
                               (uint64_t)dbw->ulc_preempted << 40 |
                               (uint64_t)dbw->ulc_bad_rc << 48 | (uint64_t)dbw->ulc_bad_crc << 56;
    const uint64_t ulc_gear_flags =
        (uint64_t)dbw->ulc_coast | (uint64_t)dbw->ulc_shift << 8 |
        (uint64_t)dbw->ulc_shift_park << 16 | (uint64_t)dbw->ulc_rc << 24 |
        (uint64_t)dbw->gear_bad_crc << 32 | (uint64_t)dbw->gear_report_missing << 40 |
        (uint64_t)dbw->gear_out_set << 48 | (uint64_t)dbw->gear_shifting << 56;
    pdk_hash4_take(h, (uint64_t)(uint32_t)dbw->turn_signal << 32 | (uint32_t)dbw->parking_brake,
                   (uint64_t)(uint32_t)dbw->drive_mode_cmd << 32 | (uint32_t)dbw->aw_mode,
                   ulc_flags, ulc_gear_flags);
    const uint64_t system_flags =
        (uint64_t)dbw->enabled | (uint64_t)dbw->validate_crc << 8 |
        (uint64_t)dbw->comms_loss_armed << 16 | (uint64_t)dbw->comms_loss_active << 24 |
        (uint64_t)dbw->lockout << 32 | (uint64_t)dbw->btn_enable << 40 |
        (uint64_t)dbw->btn_disable << 48 | (uint64_t)dbw->external_brake << 56;
    const uint64_t system_rc_flags =
        (uint64_t)dbw->sys_rc | (uint64_t)dbw->sys_bad_rc << 8 | (uint64_t)dbw->sys_bad_crc << 16 |
        (uint64_t)dbw->touched << 24 | (uint64_t)dbw->sys_rc_valid << 32 |
        (uint64_t)dbw->lockout_latched << 40 | (uint64_t)dbw->hold_depleted << 48;
    pdk_hash4_take(h, system_flags, system_rc_flags, 0u, 0u);
}

#endif
