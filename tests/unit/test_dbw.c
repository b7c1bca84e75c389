/* The DBW kit (server/sim/dbw.c) on a world stepped in lockstep: every
 * disengage and not-ready reason, the watchdog and comms-loss braking, the
 * ULC, the steering servo, gear rejects, the override latch, fault
 * injection, the Autoware profile and every refusal. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dbw_scenarios.h"
#include "dbw/dbw.h"
#include "fw_test_util.h"
#include "params.h"
#include "sim/world.h"

typedef struct rig {
    void *mem;
    pdk_world *w;
    pdk_vehicle_id id;
    pdk_vehicle_def def;
} rig;

static void rig_open_on(rig *r, const char *preset, const char *overrides, double speed,
                        pdk_gear gear, const pdk_terrain_def *terrain)
{
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PDK_SOURCE_DIR "/presets", preset, overrides, &r->def,
                                          NULL, err, sizeof err) == PDK_OK,
                  "%s: %s", preset, err);
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    if (terrain != NULL) {
        wd.terrain = *terrain;
    }
    size_t n = (pdk_world_mem_size(&wd) + 63u) & ~(size_t)63u;
    r->mem = aligned_alloc(64, n);
    ck_assert_ptr_nonnull(r->mem);
    ck_assert_int_eq(pdk_world_init(r->mem, n, &wd, &r->w), PDK_OK);
    pdk_pose pose = {0.0, 0.0, 0.0};
    ck_assert_int_eq(pdk_world_spawn(r->w, &r->def, &pose, speed, gear, &r->id), PDK_OK);
}

static void rig_open(rig *r, const char *preset, const char *overrides, double speed, pdk_gear gear)
{
    rig_open_on(r, preset, overrides, speed, gear, NULL);
}

static void rig_close(rig *r)
{
    free(r->mem);
}

static void kit(rig *r, const pdk_dbw_msg *m)
{
    const char *why = pdk_world_dbw_problem(r->w, r->id, m);
    ck_assert_msg(why == NULL, "refused: %s", why);
    ck_assert_int_eq(pdk_world_dbw(r->w, r->id, m), PDK_OK);
}

static void driver(rig *r, const pdk_dbw_cmd *c)
{
    ck_assert_int_eq(pdk_world_command(r->w, r->id, c), PDK_OK);
}

static pdk_dbw_report report(const rig *r)
{
    pdk_dbw_report rep;
    ck_assert_int_eq(pdk_world_dbw_report(r->w, r->id, &rep), PDK_OK);
    return rep;
}

/* The scenario's inputs due at tick t (ticks since its start), as
 * tests/common/dbw_scenarios.h says to play them. */
static void scn_inputs_at(rig *r, const scn *s, uint32_t t)
{
    for (int i = 0; i < s->n_steps; i++) {
        const scn_step *st = &s->steps[i];
        if (t < st->at || (st->every == 0 && t != st->at) ||
            (st->every > 0 && (t > st->until || (t - st->at) % st->every != 0))) {
            continue;
        }
        if (st->what == SCN_DRIVER) {
            driver(r, &st->driver);
            continue;
        }
        pdk_dbw_msg m = st->msg;
        uint32_t k = st->every > 0 ? (t - st->at) / st->every : 0;
        if (m.kind == PDK_DBW_MSG_STEER || m.kind == PDK_DBW_MSG_BRAKE ||
            m.kind == PDK_DBW_MSG_THROTTLE) {
            m.u.chan.rc = (uint8_t)((m.u.chan.rc + k) & 15u);
        } else if (m.kind == PDK_DBW_MSG_ULC) {
            m.u.ulc.rc = (uint8_t)((m.u.ulc.rc + k) & 15u);
        } else if (m.kind == PDK_DBW_MSG_SYSTEM) {
            m.u.system.rc = (uint8_t)((m.u.system.rc + k) & 15u);
        }
        kit(r, &m);
    }
}

static void step_to(rig *r, const scn *s, uint32_t t_end)
{
    while (pdk_world_tick(r->w) < t_end) {
        scn_inputs_at(r, s, (uint32_t)pdk_world_tick(r->w));
        pdk_world_step(r->w);
    }
}

static const int all_disengage[] = {
    PDK_DIS_POWER_CYCLE,           PDK_DIS_LOCKOUT_VEHICLE_VELOCITY, PDK_DIS_LOCKOUT_VEHICLE_ACCEL,
    PDK_DIS_LOCKOUT_GEAR_REVERSE,  PDK_DIS_STEER_CMD_DISENGAGE,      PDK_DIS_STEER_CMD_INVALID_CRC,
    PDK_DIS_STEER_CMD_INVALID_RC,  PDK_DIS_STEER_CMD_TIMEOUT,        PDK_DIS_STEER_RPT_FAULT,
    PDK_DIS_STEER_RPT_OVERRIDE,    PDK_DIS_STEER_RPT_DISENGAGE,      PDK_DIS_BRAKE_CMD_DISENGAGE,
    PDK_DIS_BRAKE_CMD_INVALID_CRC, PDK_DIS_BRAKE_CMD_INVALID_RC,     PDK_DIS_BRAKE_CMD_TIMEOUT,
    PDK_DIS_BRAKE_RPT_FAULT,       PDK_DIS_BRAKE_RPT_OVERRIDE,       PDK_DIS_BRAKE_RPT_DISENGAGE,
    PDK_DIS_THRTL_CMD_DISENGAGE,   PDK_DIS_THRTL_CMD_INVALID_CRC,    PDK_DIS_THRTL_CMD_INVALID_RC,
    PDK_DIS_THRTL_CMD_TIMEOUT,     PDK_DIS_THRTL_RPT_FAULT,          PDK_DIS_THRTL_RPT_OVERRIDE,
    PDK_DIS_THRTL_RPT_DISENGAGE,   PDK_DIS_GEAR_RPT_FAULT,           PDK_DIS_GEAR_RPT_OVERRIDE,
    PDK_DIS_EXTERNAL_BRAKE,        PDK_DIS_SYSTEM_DISABLE_CMD,       PDK_DIS_SYSTEM_DISABLE_BTN,
};

static const int all_not_ready[] = {
    PDK_NR_MISSING_REPORT_STEER,
    PDK_NR_MISSING_REPORT_BRAKE,
    PDK_NR_MISSING_REPORT_THRTL,
    PDK_NR_MISSING_REPORT_GEAR,
    PDK_NR_FAULT_STEER,
    PDK_NR_FAULT_BRAKE,
    PDK_NR_FAULT_THRTL,
    PDK_NR_FAULT_GEAR,
    PDK_NR_BAD_CRC_RC_CMD_STEER,
    PDK_NR_BAD_CRC_RC_CMD_BRAKE,
    PDK_NR_BAD_CRC_RC_CMD_THRTL,
    PDK_NR_BAD_CRC_CMD_GEAR,
    PDK_NR_OVERRIDE_ACTIVE_STEER,
    PDK_NR_OVERRIDE_ACTIVE_BRAKE,
    PDK_NR_OVERRIDE_ACTIVE_THRTL,
    PDK_NR_OVERRIDE_ACTIVE_GEAR,
    PDK_NR_OVERRIDE_LATCHED_STEER,
    PDK_NR_OVERRIDE_LATCHED_BRAKE,
    PDK_NR_OVERRIDE_LATCHED_THRTL,
    PDK_NR_OVERRIDE_OTHER_STEER,
    PDK_NR_OVERRIDE_OTHER_BRAKE,
    PDK_NR_OVERRIDE_OTHER_THRTL,
    PDK_NR_OVERRIDE_OTHER_GEAR,
    PDK_NR_NOT_READY_STEER,
    PDK_NR_NOT_READY_BRAKE,
    PDK_NR_NOT_READY_THRTL,
    PDK_NR_MISSING_CMD_STEER,
    PDK_NR_MISSING_CMD_BRAKE,
    PDK_NR_MISSING_CMD_THRTL,
    PDK_NR_LOCKOUT_VEHICLE_VELOCITY,
    PDK_NR_LOCKOUT_VEHICLE_ACCEL,
    PDK_NR_LOCKOUT_GEAR_REVERSE,
    PDK_NR_NOT_ENABLE_CMD_STEER,
    PDK_NR_NOT_ENABLE_CMD_BRAKE,
    PDK_NR_NOT_ENABLE_CMD_THRTL,
    PDK_NR_SYSTEM_REENGAGE_DELAY,
    PDK_NR_SYSTEM_LOCKOUT,
    PDK_NR_SYSTEM_DISABLED,
};

START_TEST(crc8_and_names)
{
    const uint8_t check[] = "123456789";
    ck_assert_uint_eq(pdk_crc8_j1850(check, 9), 0x4B);
    /* The table's deliberately wrong CRCs are wrong for their bytes. */
    for (int i = 0; i < pdk_dbw_n_scenarios; i++) {
        for (int k = 0; k < pdk_dbw_scenarios[i].n_steps; k++) {
            const pdk_dbw_msg *m = &pdk_dbw_scenarios[i].steps[k].msg;
            if (pdk_dbw_scenarios[i].steps[k].what == SCN_KIT && m->crc >= 0) {
                ck_assert_uint_ne(pdk_dbw_crc8(m), (unsigned)m->crc);
            }
        }
    }
    /* A CRC covers every field: any change changes it. */
    pdk_dbw_msg a = {
        .kind = PDK_DBW_MSG_STEER,
        .crc = -1,
        .u.chan = {.cmd = 90.0, .cmd_type = PDK_STEER_CMD_ANGLE, .enable = 1, .rc = 3}};
    pdk_dbw_msg b = a;
    b.u.chan.rc = 4;
    ck_assert_uint_ne(pdk_dbw_crc8(&a), pdk_dbw_crc8(&b));
    b = a;
    b.u.chan.cmd = 90.5;
    ck_assert_uint_ne(pdk_dbw_crc8(&a), pdk_dbw_crc8(&b));
    ck_assert_str_eq(pdk_dbw_disengage_name(PDK_DIS_STEER_CMD_TIMEOUT), "SteerCmdTimeout");
    ck_assert_str_eq(pdk_dbw_not_ready_name(PDK_NR_MISSING_CMD_BRAKE), "MissingCmdBrake");
    ck_assert_str_eq(pdk_dbw_not_ready_name(0x77), "Unknown");
    ck_assert_str_eq(pdk_dbw_disengage_name(PDK_DIS_NONE), "");
}
END_TEST

/* Each scenario, stepped in lockstep: from its check tick on, for 24
 * ticks, the system report names the reason. The table covers every code. */
START_TEST(every_reason_in_lockstep)
{
    int dis_seen[sizeof all_disengage / sizeof all_disengage[0]] = {0};
    int nr_seen[sizeof all_not_ready / sizeof all_not_ready[0]] = {0};
    for (int i = 0; i < pdk_dbw_n_scenarios; i++) {
        const scn *s = &pdk_dbw_scenarios[i];
        rig r;
        rig_open(&r, s->preset, s->overrides, s->speed_mps, s->gear);
        step_to(&r, s, s->check_tick);
        pdk_dbw_report first = report(&r);
        printf("dbw scenario %-26s tick %3u state %u disengage %-24s not ready %s\n", s->name,
               (unsigned)first.tick, (unsigned)first.state,
               pdk_dbw_disengage_name(first.reason_disengage),
               pdk_dbw_not_ready_name(first.reason_not_ready));
        for (int k = 0; k < 24; k++) {
            pdk_dbw_report rep = report(&r);
            if (s->expect_disengage >= 0) {
                ck_assert_msg(rep.reason_disengage == s->expect_disengage,
                              "%s at tick %u: reason_disengage %s (0x%02X), want %s", s->name,
                              (unsigned)rep.tick, pdk_dbw_disengage_name(rep.reason_disengage),
                              (unsigned)rep.reason_disengage,
                              pdk_dbw_disengage_name(s->expect_disengage));
            }
            if (s->expect_not_ready >= 0) {
                ck_assert_msg(rep.reason_not_ready == s->expect_not_ready,
                              "%s at tick %u: reason_not_ready %s (0x%02X), want %s", s->name,
                              (unsigned)rep.tick, pdk_dbw_not_ready_name(rep.reason_not_ready),
                              (unsigned)rep.reason_not_ready,
                              pdk_dbw_not_ready_name(s->expect_not_ready));
            }
            step_to(&r, s, (uint32_t)pdk_world_tick(r.w) + 1u);
        }
        for (size_t k = 0; k < sizeof all_disengage / sizeof all_disengage[0]; k++) {
            dis_seen[k] |= all_disengage[k] == s->expect_disengage;
        }
        for (size_t k = 0; k < sizeof all_not_ready / sizeof all_not_ready[0]; k++) {
            nr_seen[k] |= all_not_ready[k] == s->expect_not_ready;
        }
        rig_close(&r);
    }
    for (size_t k = 0; k < sizeof all_disengage / sizeof all_disengage[0]; k++) {
        ck_assert_msg(dis_seen[k], "no scenario for %s", pdk_dbw_disengage_name(all_disengage[k]));
    }
    for (size_t k = 0; k < sizeof all_not_ready / sizeof all_not_ready[0]; k++) {
        ck_assert_msg(nr_seen[k], "no scenario for %s", pdk_dbw_not_ready_name(all_not_ready[k]));
    }
}
END_TEST

static pdk_dbw_msg chan_msg(int kind, int type, double cmd, int enable, unsigned rc)
{
    pdk_dbw_msg m = {.kind = kind, .crc = -1};
    m.u.chan.cmd = cmd;
    m.u.chan.cmd_type = type;
    m.u.chan.enable = (uint8_t)enable;
    m.u.chan.rc = (uint8_t)(rc & 15u);
    return m;
}

static pdk_dbw_msg sys_msg(int cmd, int comms_loss, unsigned rc)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_SYSTEM, .crc = -1};
    m.u.system.cmd = cmd;
    m.u.system.sync_mode = -1;
    m.u.system.validate_crc = -1;
    m.u.system.comms_loss_arm = comms_loss;
    m.u.system.rc = (uint8_t)(rc & 15u);
    return m;
}

static pdk_dbw_msg ulc_msg(int type, double cmd, double accel, double decel, double jerk,
                           unsigned rc)
{
    pdk_dbw_msg m = {.kind = PDK_DBW_MSG_ULC, .crc = -1};
    m.u.ulc.cmd = cmd;
    m.u.ulc.cmd_type = type;
    m.u.ulc.limit_accel = accel;
    m.u.ulc.limit_decel = decel;
    m.u.ulc.limit_jerk_throttle = jerk;
    m.u.ulc.limit_jerk_brake = jerk;
    m.u.ulc.enable = 1;
    m.u.ulc.rc = (uint8_t)(rc & 15u);
    return m;
}

/* The streams a test keeps alive: each channel every 2 ticks with its own
 * rolling counter, like a controller at 60 Hz. */
typedef struct streams {
    unsigned rc[3];
    unsigned ulc_rc;
    unsigned sys_rc;
} streams;

static void send_chan(rig *r, streams *s, int c, double cmd, int enable)
{
    static const int kinds[3] = {PDK_DBW_MSG_STEER, PDK_DBW_MSG_BRAKE, PDK_DBW_MSG_THROTTLE};
    static const int types[3] = {PDK_STEER_CMD_ANGLE, PDK_BRAKE_CMD_PRESSURE,
                                 PDK_THROTTLE_CMD_PERCENT};
    pdk_dbw_msg m = chan_msg(kinds[c], types[c], cmd, enable, s->rc[c]++);
    kit(r, &m);
}

static void send_sys(rig *r, streams *s, int cmd, int comms_loss)
{
    pdk_dbw_msg m = sys_msg(cmd, comms_loss, s->sys_rc++);
    kit(r, &m);
}

/* Ticks n times; every 2nd tick the given channels get their command. */
static void run_streams(rig *r, streams *s, int n, const double cmd[3], const int on[3])
{
    for (int i = 0; i < n; i++) {
        if (pdk_world_tick(r->w) % 2u == 0u) {
            for (int c = 0; c < 3; c++) {
                if (on[c]) {
                    send_chan(r, s, c, cmd[c], 1);
                }
            }
        }
        pdk_world_step(r->w);
    }
}

static double speed(const rig *r)
{
    return pdk_world_channels(r->w, r->id)[PDK_CH_SPEED];
}

/* Commands stop: 100 ms (12 ticks) of simulation time after the last one
 * the channel times out, not a tick sooner; armed, the kit then brakes to a
 * stop, holds the car, says COMMS_LOSS, and with its hold spent shifts to
 * park and refuses to leave it. */
START_TEST(timeout_and_comms_loss_brake_to_stop)
{
    rig r;
    rig_open(&r, "midsize_sedan", "dbw.commsLoss.holdTime=2", 12.0, PDK_GEAR_DRIVE);
    streams s = {0};
    const double cmd[3] = {0.0, 0.0, 20.0};
    const int on[3] = {1, 1, 1};
    run_streams(&r, &s, 4, cmd, on);
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, 1);
    run_streams(&r, &s, 56, cmd, on); /* the last commands at tick 58 */
    ck_assert_int_eq(report(&r).state, PDK_DBW_ACTIVE);
    ck_assert_int_eq(report(&r).comms_loss_armed, 1);
    uint64_t last = 58;
    while (pdk_world_tick(r.w) < last + 12u) {
        ck_assert_int_eq(pdk_world_dbw_state(r.w, r.id)->ch[PDK_DBW_CH_THROTTLE].timeout, 0);
        pdk_world_step(r.w);
    }
    pdk_world_step(r.w); /* the tick 100 ms after the last command */
    pdk_dbw_report rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].timeout, 1);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_STEER].timeout, 1);
    ck_assert_msg(rep.reason_disengage == PDK_DIS_STEER_CMD_TIMEOUT ||
                      rep.reason_disengage == PDK_DIS_BRAKE_CMD_TIMEOUT ||
                      rep.reason_disengage == PDK_DIS_THRTL_CMD_TIMEOUT,
                  "%s", pdk_dbw_disengage_name(rep.reason_disengage));
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_BRAKE].cmd_src, PDK_DBW_SRC_COMMS_LOSS);
    /* It brakes at the kit's 3 m/s^2: about 4 s from 12 m/s. */
    double t = 0.0;
    while (speed(&r) > 0.05 && t < 10.0) {
        pdk_world_step(r.w);
        t += 1.0 / 120.0;
    }
    printf("dbw comms loss: stopped from 12 m/s in %.2f s\n", t);
    ck_assert_msg(t > 3.0 && t < 6.0, "stopped in %g s", t);
    double x0 = pdk_world_channels(r.w, r.id)[PDK_CH_POS_X];
    for (int i = 0; i < 120; i++) {
        pdk_world_step(r.w);
    }
    double x1 = pdk_world_channels(r.w, r.id)[PDK_CH_POS_X];
    ck_assert_msg(fabs(x1 - x0) < 0.01, "held: moved %g m in 1 s", x1 - x0);
    rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_BRAKE].cmd_src, PDK_DBW_SRC_COMMS_LOSS);
    ck_assert_double_ge(rep.ch[PDK_DBW_CH_BRAKE].output, 20.0 - 1e-9);
    /* The hold is spent after 2 s: park, and a shift out is refused. */
    for (int i = 0; i < 180; i++) {
        pdk_world_step(r.w);
    }
    rep = report(&r);
    ck_assert_int_eq(rep.req_shift_park, 1);
    ck_assert_int_eq(rep.gear, PDK_GEAR_PARK);
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_GEAR, .crc = -1, .u.value = PDK_GEAR_DRIVE});
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_BRAKE_HOLD);
    rig_close(&r);
}
END_TEST

/* Without comms-loss braking the channel still times out and lets go: the
 * car rolls on. */
START_TEST(timeout_without_comms_loss_lets_go)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 12.0, PDK_GEAR_DRIVE);
    streams s = {0};
    const double cmd[3] = {0.0, 0.0, 20.0};
    const int on[3] = {1, 1, 1};
    run_streams(&r, &s, 4, cmd, on);
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    run_streams(&r, &s, 56, cmd, on);
    for (int i = 0; i < 240; i++) {
        pdk_world_step(r.w);
    }
    pdk_dbw_report rep = report(&r);
    ck_assert_int_eq(rep.state, PDK_DBW_MANUAL);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_BRAKE].cmd_src, PDK_DBW_SRC_USER);
    ck_assert_double_gt(speed(&r), 9.0);
    rig_close(&r);
}
END_TEST

/* The ULC on a speed step. Its reference rises no faster than limit_accel
 * and changes its acceleration no faster than the jerk limit, and its
 * acceleration command stays within the limits, exactly. The car follows:
 * within 0.6 m/s of the reference, at an average acceleration from 10 % to
 * 90 % of the step within 80..110 % of the limit, settling within 0.05 m/s
 * of the target. (Its peak acceleration over 0.1 s is printed: a clutch
 * biting at a launch or a CVT's lag puts short peaks above the limit that
 * no pedal controller removes; the kit's limits are on the command, as
 * Dataspeed's UlcCmd defines them.) */
static void ulc_step_case(const char *preset, double v0, double accel, double jerk)
{
    rig r;
    rig_open(&r, preset, NULL, v0, PDK_GEAR_DRIVE);
    streams s = {0};
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    const double v1 = 10.0;
    double prev_ref_a = 0.0, max_ref_a = 0.0, max_jerk = 0.0, max_err = 0.0, max_cmd = 0.0;
    double max_a10 = 0.0, t_peak = 0.0, t10 = -1.0, t90 = -1.0;
    double v_hist[13] = {0};
    for (int i = 0; i < 120 * 30; i++) {
        if (i % 2 == 0) {
            pdk_dbw_msg m = ulc_msg(PDK_ULC_CMD_VELOCITY, v1, accel, 3.0, jerk, s.ulc_rc++);
            kit(&r, &m);
        }
        pdk_world_step(r.w);
        pdk_dbw_report rep = report(&r);
        ck_assert_int_eq(rep.ulc_enabled, 1);
        double v = speed(&r), t = (i + 1) / 120.0;
        max_ref_a = fmax(max_ref_a, rep.ulc_accel_ref);
        max_jerk = fmax(max_jerk, fabs(rep.ulc_accel_ref - prev_ref_a) * 120.0);
        prev_ref_a = rep.ulc_accel_ref;
        max_cmd = fmax(max_cmd, pdk_world_dbw_state(r.w, r.id)->ulc_accel_cmd);
        max_err = fmax(max_err, fabs(rep.ulc_vel_ref - v));
        v_hist[i % 13] = v;
        double a10 = (v_hist[i % 13] - v_hist[(i + 1) % 13]) / 0.1;
        if (i >= 12 && a10 > max_a10) {
            max_a10 = a10;
            t_peak = t;
        }
        if (t10 < 0.0 && v >= v0 + 0.1 * (v1 - v0)) {
            t10 = t;
        }
        if (t90 < 0.0 && v >= v0 + 0.9 * (v1 - v0)) {
            t90 = t;
        }
    }
    double v_end = speed(&r);
    double a_mean = 0.8 * (v1 - v0) / (t90 - t10);
    printf("dbw ulc %s %g->%g m/s, accel %.1f jerk %.1f: reference accel %.3f jerk %.3f, accel "
           "command %.3f; car: %.3f m/s^2 from 10 to 90 %% (%.2f..%.2f s), peak %.3f over 0.1 s "
           "at %.2f s, tracking %.3f m/s, end %.4f m/s\n",
           preset, v0, v1, accel, jerk, max_ref_a, max_jerk, max_cmd, a_mean, t10, t90, max_a10,
           t_peak, max_err, v_end);
    ck_assert_double_le(max_ref_a, accel + 1e-9);
    ck_assert_double_le(max_jerk, jerk + 1e-6);
    ck_assert_double_le(max_cmd, accel + 1e-9);
    ck_assert_double_ge(a_mean, 0.8 * accel);
    ck_assert_double_le(a_mean, 1.1 * accel);
    ck_assert_double_le(max_err, 0.6);
    ck_assert_double_le(fabs(v_end - v1), 0.05);
    rig_close(&r);
}

START_TEST(ulc_speed_step_within_limits)
{
    ulc_step_case("midsize_sedan", 0.0, 1.5, 5.0);
    ulc_step_case("midsize_sedan", 0.0, 1.0, 2.0);
    ulc_step_case("polaris_ranger", 0.0, 1.0, 2.0);
    ulc_step_case("polaris_ranger", 3.0, 1.5, 5.0);
}
END_TEST

/* The ULC holds a speed up and down a 10 % grade: from 12 s to 20 s (the
 * car on the grade, the grade's transition 7 s behind it) the speed stays
 * within 0.05 m/s of the target on the sedan, within 0.1 m/s on the UTV,
 * whose CVT answers the pedal over seconds. */
START_TEST(ulc_holds_speed_on_grade)
{
    const char *cars[2] = {"midsize_sedan", "polaris_ranger"};
    const double tol[2] = {0.05, 0.1};
    const double grades[2] = {0.10, -0.10};
    for (int c = 0; c < 2; c++) {
        for (int g = 0; g < 2; g++) {
            pdk_terrain_def t = ramp_terrain(5.0, grades[g]);
            rig r;
            rig_open_on(&r, cars[c], getenv(c == 0 ? "GRADE_SET" : "GRADE_SET_UTV"), 5.0,
                        PDK_GEAR_DRIVE, &t);
            streams s = {0};
            send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
            double worst = 0.0;
            for (int i = 0; i < 120 * 20; i++) {
                if (i % 2 == 0) {
                    pdk_dbw_msg m = ulc_msg(PDK_ULC_CMD_VELOCITY, 5.0, 0.0, 0.0, 0.0, s.ulc_rc++);
                    kit(&r, &m);
                }
                pdk_world_step(r.w);
                if (getenv("GRADE_TRACE") && i % 30 == 0) {
                    pdk_dbw_report q = report(&r);
                    printf("g t %.2f v %.3f z %.2f thr %.1f brk %.1f ai %.3f ii %.3f\n", i / 120.0,
                           speed(&r), pdk_world_channels(r.w, r.id)[PDK_CH_POS_Z], q.ch[2].output,
                           q.ch[1].output, pdk_world_dbw_state(r.w, r.id)->ulc_accel_i,
                           pdk_world_dbw_state(r.w, r.id)->ulc_integral);
                }
                if (i >= 120 * 12) {
                    worst = fmax(worst, fabs(speed(&r) - 5.0));
                }
            }
            double z = pdk_world_channels(r.w, r.id)[PDK_CH_POS_Z];
            printf("dbw ulc %s 5 m/s on a %+.0f %% grade: worst error %.4f m/s over 12..20 s "
                   "(z %.1f m)\n",
                   cars[c], grades[g] * 100.0, worst, z);
            ck_assert_msg(fabs(z) > 4.0, "the car is on the grade (z %g m)", z);
            ck_assert_double_le(worst, tol[c]);
            rig_close(&r);
        }
    }
}
END_TEST

/* A steering step: the servo moves no faster than the commanded rate, no
 * overshoot, lands on the angle; the reported steering-wheel angle and the
 * road-wheel angle agree through the ratio and centre; a command beyond
 * the lock is clamped and says limiting_value. */
START_TEST(steering_step_rate_limited_and_through_ratio)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 10.0, PDK_GEAR_DRIVE);
    streams s = {0};
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    double prev = 0.0, max_rate = 0.0, peak = 0.0;
    int arrived = -1;
    for (int i = 0; i < 120; i++) {
        if (i % 2 == 0) {
            pdk_dbw_msg m = chan_msg(PDK_DBW_MSG_STEER, PDK_STEER_CMD_ANGLE, 90.0, 1, s.rc[0]++);
            m.u.chan.rate_a = 200.0;
            m.u.chan.rate_b = 1000.0;
            kit(&r, &m);
        }
        pdk_world_step(r.w);
        pdk_dbw_report rep = report(&r);
        double a = rep.steering_wheel_angle_deg;
        max_rate = fmax(max_rate, fabs(a - prev) * 120.0);
        peak = fmax(peak, a);
        prev = a;
        if (arrived < 0 && a == 90.0) {
            arrived = i;
        }
        double road = (a - r.def.steering.center_offset_deg) / r.def.steering.ratio;
        ck_assert_double_eq_tol(rep.road_wheel_angle_deg, road, 1e-9);
    }
    printf("dbw steering step 0->90 deg at 200 deg/s: peak rate %.2f deg/s, on it after %d ticks "
           "(%.3f s), peak %.4f deg\n",
           max_rate, arrived, arrived / 120.0, peak);
    ck_assert_double_le(max_rate, 200.0 + 1e-9);
    ck_assert_double_le(peak, 90.0);
    /* 0.45 s at the rate, 0.05 s of delay, the acceleration's ramps. */
    ck_assert_int_ge(arrived, 60);
    ck_assert_int_le(arrived, 90);
    pdk_dbw_msg far = chan_msg(PDK_DBW_MSG_STEER, PDK_STEER_CMD_ANGLE, 900.0, 1, s.rc[0]++);
    kit(&r, &far);
    for (int i = 0; i < 240; i++) {
        if (i % 2 == 0) {
            kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_STEER,
                                   .crc = -1,
                                   .u.chan = {.cmd = 900.0,
                                              .cmd_type = PDK_STEER_CMD_ANGLE,
                                              .enable = 1,
                                              .rc = (uint8_t)(s.rc[0]++ & 15u)}});
        }
        pdk_world_step(r.w);
    }
    pdk_dbw_report rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_STEER].limiting_value, 1);
    ck_assert_double_eq(rep.steering_wheel_angle_deg, r.def.steering.lock_deg);
    rig_close(&r);
}
END_TEST

/* Gear by wire: each refusal the kit has, then a shift that takes its
 * shift time. */
START_TEST(gear_rejects)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 0.0, PDK_GEAR_PARK);
    streams s = {0};
    double cmd[3] = {0.0, 0.0, 0.0};
    const int on[3] = {1, 1, 1};
    run_streams(&r, &s, 4, cmd, on);
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    run_streams(&r, &s, 20, cmd, on);
    pdk_dbw_msg g = {.kind = PDK_DBW_MSG_GEAR, .crc = -1, .u.value = PDK_GEAR_DRIVE};
    kit(&r, &g); /* out of park with no brake held */
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_VEHICLE);
    g.u.value = 6; /* MANUAL */
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_UNSUPPORTED);
    cmd[1] = 30.0;
    run_streams(&r, &s, 40, cmd, on);
    g.u.value = PDK_GEAR_DRIVE;
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_NONE);
    g.u.value = PDK_GEAR_NEUTRAL;
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_SHIFT_IN_PROGRESS);
    run_streams(&r, &s, 59, cmd, on);
    ck_assert_int_eq((int)pdk_world_channels(r.w, r.id)[PDK_CH_GEAR], PDK_GEAR_PARK);
    run_streams(&r, &s, 2, cmd, on);
    ck_assert_int_eq((int)pdk_world_channels(r.w, r.id)[PDK_CH_GEAR], PDK_GEAR_DRIVE);
    /* Moving: too fast to shift. */
    cmd[1] = 0.0;
    cmd[2] = 40.0;
    run_streams(&r, &s, 240, cmd, on);
    ck_assert_double_gt(speed(&r), 1.0);
    g.u.value = PDK_GEAR_REVERSE;
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_VEHICLE_SPEED);
    /* The driver's lever: an override, and a shift by wire is refused. */
    driver(&r, &(pdk_dbw_cmd){.fields = PDK_DBW_GEAR, .gear = PDK_GEAR_NEUTRAL});
    pdk_world_step(r.w);
    ck_assert_int_eq(report(&r).reason_disengage, PDK_DIS_GEAR_RPT_OVERRIDE);
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_OVERRIDE);
    /* A faulted gear module. */
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                           .crc = -1,
                           .u.fault = {.kind = PDK_FAULT_CHANNEL, .target = PDK_DBW_TARGET_GEAR}});
    kit(&r, &g);
    ck_assert_int_eq(report(&r).gear_reject, PDK_DBW_REJECT_FAULT);
    rig_close(&r);
}
END_TEST

/* The override latch: the driver's throttle disengages the throttle channel
 * and latches; commands with enable do not bring it back until one carries
 * clear; with ignore the driver's pedal is not an override. */
START_TEST(override_latch_clear_and_ignore)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 0.0, PDK_GEAR_PARK);
    streams s = {0};
    const double cmd[3] = {0.0, 0.0, 0.0};
    const int on[3] = {1, 1, 1};
    run_streams(&r, &s, 4, cmd, on);
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    run_streams(&r, &s, 20, cmd, on);
    ck_assert_int_eq(report(&r).ch[PDK_DBW_CH_THROTTLE].enabled, 1);
    driver(&r,
           &(pdk_dbw_cmd){.fields = PDK_DBW_THROTTLE, .throttle_pct = 30.0, .gear = PDK_GEAR_PARK});
    run_streams(&r, &s, 2, cmd, on);
    pdk_dbw_report rep = report(&r);
    ck_assert_int_eq(rep.reason_disengage, PDK_DIS_THRTL_RPT_OVERRIDE);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].override_active, 1);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].override_latched, 1);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].enabled, 0);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_STEER].enabled, 1);         /* sync mode NONE */
    ck_assert_double_eq(rep.ch[PDK_DBW_CH_THROTTLE].output, 30.0); /* the driver's pedal */
    driver(&r,
           &(pdk_dbw_cmd){.fields = PDK_DBW_THROTTLE, .throttle_pct = 0.0, .gear = PDK_GEAR_PARK});
    run_streams(&r, &s, 120, cmd, on);
    rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].override_active, 0);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].override_latched, 1);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].enabled, 0);
    pdk_dbw_msg clear = chan_msg(PDK_DBW_MSG_THROTTLE, PDK_THROTTLE_CMD_PERCENT, 0.0, 1, s.rc[2]++);
    clear.u.chan.clear = 1;
    clear.u.chan.ignore = 1;
    kit(&r, &clear);
    run_streams(&r, &s, 2, cmd, on);
    rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].override_latched, 0);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].enabled, 1);
    /* ignore: the pedal no longer overrides (the streams' commands carry
     * ignore 0 again, so send one with ignore set each time). */
    driver(&r,
           &(pdk_dbw_cmd){.fields = PDK_DBW_THROTTLE, .throttle_pct = 30.0, .gear = PDK_GEAR_PARK});
    for (int i = 0; i < 4; i++) {
        pdk_dbw_msg m = chan_msg(PDK_DBW_MSG_THROTTLE, PDK_THROTTLE_CMD_PERCENT, 0.0, 1, s.rc[2]++);
        m.u.chan.ignore = 1;
        kit(&r, &m);
        pdk_world_step(r.w);
    }
    rep = report(&r);
    ck_assert_int_eq(rep.ch[PDK_DBW_CH_THROTTLE].enabled, 1);
    ck_assert_double_lt(rep.ch[PDK_DBW_CH_THROTTLE].output, 1.0);
    rig_close(&r);
}
END_TEST

/* Fault injection changes what the car does and what a client sees, and
 * the same inputs give the same bits. */
static uint64_t faults_run(int latency, double out[3])
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 10.0, PDK_GEAR_DRIVE);
    streams s = {0};
    double cmd[3] = {0.0, 0.0, 0.0};
    const int on[3] = {1, 1, 1};
    run_streams(&r, &s, 4, cmd, on);
    send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
    if (latency) {
        kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                               .crc = -1,
                               .u.fault = {.kind = PDK_FAULT_LATENCY, .target = 0, .value = 0.2}});
    }
    cmd[0] = 45.0;
    int first = -1;
    for (int i = 0; i < 120; i++) {
        run_streams(&r, &s, 1, cmd, on);
        if (first < 0 && report(&r).steering_wheel_angle_deg > 0.0) {
            first = i;
        }
    }
    out[0] = first;
    /* Stuck: the servo stays at 45 deg though 0 is commanded. */
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                           .crc = -1,
                           .u.fault = {.kind = PDK_FAULT_STUCK, .target = 0}});
    cmd[0] = 0.0;
    run_streams(&r, &s, 60, cmd, on);
    out[1] = report(&r).steering_wheel_angle_deg;
    ck_assert_int_eq(report(&r).ch[PDK_DBW_CH_STEER].degraded, 1);
    /* Saturated brake: 200 bar asked of an actuator whose top is the
     * vehicle's line limit. */
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                           .crc = -1,
                           .u.fault = {.kind = PDK_FAULT_SATURATED, .target = 1, .value = 1000.0}});
    run_streams(&r, &s, 2, cmd, on);
    out[2] = report(&r).ch[PDK_DBW_CH_BRAKE].output;
    ck_assert_double_eq(out[2], r.def.brake.max_line_bar);
    /* Sensors: a gyro bias step, then the noise taken away. */
    double before = report(&r).gyro_radps[2] - pdk_world_channels(r.w, r.id)[PDK_CH_YAW_RATE];
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                           .crc = -1,
                           .u.fault = {.kind = PDK_FAULT_SENSOR_BIAS, .target = 5, .value = 0.1}});
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_FAULT,
                           .crc = -1,
                           .u.fault = {.kind = PDK_FAULT_SENSOR_NOISE, .target = 5, .value = 0.0}});
    double after = report(&r).gyro_radps[2] - pdk_world_channels(r.w, r.id)[PDK_CH_YAW_RATE];
    ck_assert_double_ne(before, 0.0);
    ck_assert_double_eq_tol(after, 0.1, 1e-12);
    uint64_t h = pdk_world_hash(r.w);
    rig_close(&r);
    return h;
}

START_TEST(fault_injection)
{
    double plain[3], late[3], again[3];
    uint64_t h_plain = faults_run(0, plain);
    uint64_t h_late = faults_run(1, late);
    uint64_t h_again = faults_run(1, again);
    printf("dbw faults: servo first moves after %g ticks, %g with 0.2 s added; stuck at %.3f deg; "
           "saturated brake %.1f bar\n",
           plain[0], late[0], late[1], late[2]);
    /* 0.2 s is 24 ticks more. */
    ck_assert_double_eq(late[0] - plain[0], 24.0);
    ck_assert_double_gt(late[1], 40.0);
    ck_assert_uint_ne(h_plain, h_late);
    ck_assert_uint_eq(h_late, h_again);
    ck_assert_double_eq(late[1], again[1]);
}
END_TEST

/* A controller that comes back: after a disable and its streams' timeout,
 * a new enable with the ULC engages again, and a stream quiet for 100 ms
 * may start its rolling counter anywhere (a new sender does not know the
 * old one's). */
START_TEST(reengage_after_disable_and_timeout)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 0.0, PDK_GEAR_DRIVE);
    for (int run = 0; run < 2; run++) {
        streams s = {0}; /* each run's counters start at 0 again */
        send_sys(&r, &s, PDK_DBW_SYS_ENABLE, -1);
        for (int i = 0; i < 120; i++) {
            if (i % 2 == 0) {
                pdk_dbw_msg m = ulc_msg(PDK_ULC_CMD_VELOCITY, 3.0, 0.0, 0.0, 0.0, s.ulc_rc++);
                kit(&r, &m);
                pdk_dbw_msg st =
                    chan_msg(PDK_DBW_MSG_STEER, PDK_STEER_CMD_ANGLE, 0.0, 1, s.rc[0]++);
                kit(&r, &st);
            }
            pdk_world_step(r.w);
        }
        pdk_dbw_report rep = report(&r);
        ck_assert_msg(rep.state == PDK_DBW_ACTIVE, "run %d: state %d, not ready %s", run, rep.state,
                      pdk_dbw_not_ready_name(rep.reason_not_ready));
        ck_assert_int_eq(rep.ulc_enabled, 1);
        ck_assert_int_eq(rep.ch[PDK_DBW_CH_STEER].bad_rc, 0);
        ck_assert_int_eq(rep.sys_bad_rc, 0);
        send_sys(&r, &s, PDK_DBW_SYS_DISABLE, -1);
        for (int i = 0; i < 120; i++) {
            pdk_world_step(r.w);
        }
        ck_assert_int_eq(report(&r).reason_disengage, PDK_DIS_SYSTEM_DISABLE_CMD);
    }
    rig_close(&r);
}
END_TEST

/* MiscCmd's parking brake: on, it holds the car in neutral on a 15 %
 * slope and the report says ON; off, the car rolls away. */
START_TEST(parking_brake_holds_on_a_slope)
{
    const char *cars[2] = {"midsize_sedan", "ref1_sedan"};
    for (int c = 0; c < 2; c++) {
        pdk_terrain_def t = ramp_terrain(-50.0, 0.15);
        rig r;
        rig_open_on(&r, cars[c], NULL, 0.0, PDK_GEAR_NEUTRAL, &t);
        kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_MISC, .crc = -1, .u.value = 1});
        for (int i = 0; i < 240; i++) {
            pdk_world_step(r.w);
        }
        double x0 = pdk_world_channels(r.w, r.id)[PDK_CH_POS_X];
        for (int i = 0; i < 240; i++) {
            pdk_world_step(r.w);
        }
        double held = pdk_world_channels(r.w, r.id)[PDK_CH_POS_X] - x0;
        ck_assert_int_eq(report(&r).parking_brake, 1);
        kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_MISC, .crc = -1, .u.value = 2});
        for (int i = 0; i < 240; i++) {
            pdk_world_step(r.w);
        }
        double rolled = pdk_world_channels(r.w, r.id)[PDK_CH_POS_X] - x0;
        printf("dbw parking brake %s on 15 %%: moved %.2e m in 2 s held, %.2f m 2 s after "
               "release\n",
               cars[c], held, rolled);
        ck_assert_double_lt(fabs(held), 1e-3);
        ck_assert_double_lt(rolled, -1.0);
        ck_assert_int_eq(report(&r).parking_brake, 2);
        rig_close(&r);
    }
}
END_TEST

/* The IMU reads the specific force, gravity's reaction counted once: a
 * car held on a 15 % slope by the parking brake (a four-wheel sedan) or at
 * rest on the flat (the single-track sedan) reads g turned into its body
 * frame, -g sin(pitch), g cos(pitch) sin(roll), g cos(pitch) cos(roll),
 * within the kit's noise averaged over a second. It read twice that while
 * the kit added gravity to channels that already held it. */
START_TEST(imu_reads_the_specific_force)
{
    const char *cars[2] = {"midsize_sedan", "traffic_sedan"};
    for (int c = 0; c < 2; c++) {
        pdk_terrain_def t = ramp_terrain(-50.0, 0.15);
        rig r;
        rig_open_on(&r, cars[c], NULL, 0.0, PDK_GEAR_NEUTRAL, c == 0 ? &t : NULL);
        kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_MISC, .crc = -1, .u.value = 1});
        for (int i = 0; i < 240; i++) {
            pdk_world_step(r.w);
        }
        double mean[3] = {0.0, 0.0, 0.0};
        const int n = 120;
        for (int i = 0; i < n; i++) {
            pdk_world_step(r.w);
            pdk_dbw_report rep = report(&r);
            for (int k = 0; k < 3; k++) {
                mean[k] += rep.accel_mps2[k] / n;
            }
        }
        const double *ch = pdk_world_channels(r.w, r.id);
        const double g = pdk_world_def_default().gravity_mps2;
        const double roll = ch[PDK_CH_ROLL], pitch = ch[PDK_CH_PITCH];
        const double want[3] = {-g * sin(pitch), g * cos(pitch) * sin(roll),
                                g * cos(pitch) * cos(roll)};
        printf("dbw imu %s at rest: %.4f %.4f %.4f m/s^2 (specific force %.4f %.4f %.4f)\n",
               cars[c], mean[0], mean[1], mean[2], want[0], want[1], want[2]);
        for (int k = 0; k < 3; k++) {
            ck_assert_double_eq_tol(mean[k], want[k], 0.02);
        }
        if (c == 0) {
            /* Nose up the slope: forward about g sin(atan 0.15), the body
             * pitched a third of a degree beyond the ground on its springs. */
            ck_assert_double_eq_tol(mean[0], g * sin(atan(0.15)), 0.1);
        }
        rig_close(&r);
    }
}
END_TEST

/* The UTV's drive-mode switch by wire and the turn signals: the switch
 * moves (the DriveMode channel and the secondary report say so), the turn
 * signal is reported as commanded. */
START_TEST(drive_mode_and_turn_signal)
{
    rig r;
    rig_open(&r, "polaris_ranger", NULL, 0.0, PDK_GEAR_PARK);
    ck_assert_int_eq(report(&r).drive_mode, PDK_DRIVE_AWD);
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_DRIVE_MODE, .crc = -1, .u.value = PDK_DRIVE_TURF});
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_TURN_SIGNAL, .crc = -1, .u.value = 3});
    pdk_world_step(r.w);
    ck_assert_double_eq(pdk_world_channels(r.w, r.id)[PDK_CH_DRIVE_MODE], PDK_DRIVE_TURF);
    ck_assert_int_eq(report(&r).drive_mode, PDK_DRIVE_TURF);
    ck_assert_int_eq(report(&r).turn_signal, 3);
    rig_close(&r);
}
END_TEST

/* GNSS loses about gnss_dropout of its fixes and the IMU's noise has the
 * kit's sigma; each sample depends on (seed, vehicle, tick, axis) only. */
START_TEST(sensor_noise_statistics)
{
    const double dropout = 0.02, sigma = 0.05;
    int lost = 0;
    double sum = 0.0, sum2 = 0.0;
    const int n = 20000;
    for (int t = 0; t < n; t++) {
        lost += pdk_dbw_noise_unit(1, 1, (uint64_t)t, 16u) < dropout;
        double x = sigma * pdk_dbw_noise_normal(1, 1, (uint64_t)t, 0u);
        sum += x;
        sum2 += x * x;
    }
    double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
    printf("dbw sensors: %d of %d fixes lost, accel noise mean %.5f sd %.5f\n", lost, n, mean, sd);
    ck_assert_int_ge(lost, 320);
    ck_assert_int_le(lost, 480);
    ck_assert_double_le(fabs(mean), 0.002);
    ck_assert_double_eq_tol(sd, sigma, 0.002);
    ck_assert_double_eq(pdk_dbw_noise_normal(7, 3, 99, 2), pdk_dbw_noise_normal(7, 3, 99, 2));
    ck_assert_double_ne(pdk_dbw_noise_normal(7, 3, 99, 2), pdk_dbw_noise_normal(7, 4, 99, 2));
}
END_TEST

/* The noise is the same bits on every machine: it takes no libm function
 * whose variant the processor or the glibc release chooses (log, cos), so
 * a replayed report repeats the original's. Pinned values, computed from
 * IEEE operations only, and agreement with libm's formula to within
 * rounding. */
START_TEST(sensor_noise_same_bits_everywhere)
{
    ck_assert_double_eq(pdk_dbw_noise_normal(7, 3, 99, 2), 0x1.643a04e0e6cc1p-2);
    ck_assert_double_eq(pdk_dbw_noise_normal(1, 1, 0, 0), -0x1.50c77012eec1cp-1);
    ck_assert_double_eq(pdk_dbw_noise_normal(12345, 40, 7200, 18), 0x1.dca5d5e93cf79p-3);
    double worst = 0.0;
    for (uint64_t t = 0; t < 100000; t++) {
        double u1 = pdk_dbw_noise_unit(1, 1, t, 0u);
        double u2 = pdk_dbw_noise_unit(1, 1, t, 0x80000000u);
        double libm = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * 3.14159265358979323846 * u2);
        worst = fmax(worst, fabs(pdk_dbw_noise_normal(1, 1, t, 0u) - libm));
    }
    ck_assert_double_le(worst, 1e-14);
}
END_TEST

/* The Autoware profile: a tyre angle through the ratio and centre, a
 * target speed through the ULC, its gear numbers, its control modes. */
START_TEST(autoware_profile)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 0.0, PDK_GEAR_DRIVE);
    kit(&r,
        &(pdk_dbw_msg){.kind = PDK_DBW_MSG_AW_MODE, .crc = -1, .u.value = PDK_AW_MODE_AUTONOMOUS});
    pdk_dbw_msg c = {.kind = PDK_DBW_MSG_AW_CONTROL, .crc = -1};
    c.u.aw.steering_tire_angle_rad = 0.02;
    c.u.aw.velocity_mps = 5.0;
    c.u.aw.acceleration_mps2 = 1.0;
    c.u.aw.accel_defined = 1;
    for (int i = 0; i < 120 * 12; i++) {
        if (i % 4 == 0) { /* 30 Hz, Autoware's control rate */
            kit(&r, &c);
        }
        pdk_world_step(r.w);
    }
    pdk_dbw_report rep = report(&r);
    double want = 0.02 * 180.0 / M_PI * r.def.steering.ratio + r.def.steering.center_offset_deg;
    printf("dbw autoware: wheel %.3f deg (want %.3f), tyre %.5f rad, speed %.3f m/s, mode %d\n",
           rep.steering_wheel_angle_deg, want, rep.aw_tire_angle_rad, speed(&r), rep.aw_mode);
    ck_assert_double_eq_tol(rep.steering_wheel_angle_deg, want, 1e-9);
    ck_assert_double_eq_tol(rep.aw_tire_angle_rad, 0.02, 1e-9);
    ck_assert_double_eq_tol(speed(&r), 5.0, 0.05);
    ck_assert_int_eq(rep.aw_mode, PDK_AW_MODE_AUTONOMOUS);
    ck_assert_int_eq(rep.aw_gear, PDK_AW_GEAR_DRIVE);
    kit(&r, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_AW_MODE, .crc = -1, .u.value = PDK_AW_MODE_MANUAL});
    pdk_world_step(r.w);
    ck_assert_int_eq(report(&r).aw_mode, PDK_AW_MODE_DISENGAGED);
    ck_assert_int_eq(report(&r).reason_disengage, PDK_DIS_SYSTEM_DISABLE_CMD);
    rig_close(&r);
    /* Gears: Autoware's numbers onto the kit's, at standstill with the
     * brake held. */
    static const int aw[5] = {PDK_AW_GEAR_PARK, PDK_AW_GEAR_REVERSE, PDK_AW_GEAR_NEUTRAL,
                              PDK_AW_GEAR_DRIVE, PDK_AW_GEAR_LOW};
    static const int kitg[5] = {PDK_GEAR_PARK, PDK_GEAR_REVERSE, PDK_GEAR_NEUTRAL, PDK_GEAR_DRIVE,
                                PDK_GEAR_LOW};
    for (int k = 0; k < 5; k++) {
        rig g;
        rig_open(&g, "midsize_sedan", NULL, 0.0, k == 0 ? PDK_GEAR_NEUTRAL : PDK_GEAR_PARK);
        streams s = {0};
        double cmd[3] = {0.0, 30.0, 0.0};
        const int on[3] = {1, 1, 1};
        run_streams(&g, &s, 4, cmd, on);
        send_sys(&g, &s, PDK_DBW_SYS_ENABLE, -1);
        run_streams(&g, &s, 40, cmd, on);
        kit(&g, &(pdk_dbw_msg){.kind = PDK_DBW_MSG_AW_GEAR, .crc = -1, .u.value = aw[k]});
        run_streams(&g, &s, 80, cmd, on);
        pdk_dbw_report rep2 = report(&g);
        ck_assert_int_eq(rep2.gear, kitg[k]);
        ck_assert_int_eq(rep2.aw_gear, aw[k]);
        rig_close(&g);
    }
}
END_TEST

/* Every refusal names what was wrong; none changes the kit. */
START_TEST(refusals_name_the_field)
{
    rig r;
    rig_open(&r, "midsize_sedan", NULL, 0.0, PDK_GEAR_PARK);
    typedef struct bad {
        pdk_dbw_msg m;
        pdk_error code;
        const char *says;
    } bad;
    const bad cases[] = {
        {{.kind = 99, .crc = -1}, PDK_ERR_INVALID_ARGUMENT, "message kind"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = 300},
         PDK_ERR_OUT_OF_RANGE,
         "crc must be within 0..255"},
        {{.kind = PDK_DBW_MSG_TURN_SIGNAL, .crc = 5}, PDK_ERR_INVALID_ARGUMENT, "carry a CRC"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = -1, .u.chan = {.cmd = NAN}},
         PDK_ERR_INVALID_ARGUMENT,
         "cmd must be a finite"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = -1, .u.chan = {.rate_a = -1.0}},
         PDK_ERR_INVALID_ARGUMENT,
         "cmd_rate and cmd_accel"},
        {{.kind = PDK_DBW_MSG_BRAKE, .crc = -1, .u.chan = {.rate_b = NAN}},
         PDK_ERR_INVALID_ARGUMENT,
         "rate_inc and rate_dec"},
        {{.kind = PDK_DBW_MSG_THROTTLE, .crc = -1, .u.chan = {.rc = 16}},
         PDK_ERR_OUT_OF_RANGE,
         "rolling counter"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = -1, .u.chan = {.cmd_type = PDK_STEER_CMD_TORQUE}},
         PDK_ERR_UNSUPPORTED,
         "TORQUE (1) is not supported"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = -1, .u.chan = {.cmd_type = PDK_STEER_CMD_CALIBRATE}},
         PDK_ERR_UNSUPPORTED,
         "CALIBRATE (15) is not supported"},
        {{.kind = PDK_DBW_MSG_STEER, .crc = -1, .u.chan = {.cmd_type = 7}},
         PDK_ERR_INVALID_ARGUMENT,
         "steering cmd_type must be"},
        {{.kind = PDK_DBW_MSG_BRAKE, .crc = -1, .u.chan = {.cmd_type = 3}},
         PDK_ERR_INVALID_ARGUMENT,
         "brake cmd_type must be"},
        {{.kind = PDK_DBW_MSG_THROTTLE, .crc = -1, .u.chan = {.cmd_type = 1}},
         PDK_ERR_INVALID_ARGUMENT,
         "throttle cmd_type must be"},
        {{.kind = PDK_DBW_MSG_GEAR, .crc = -1, .u.value = 16},
         PDK_ERR_INVALID_ARGUMENT,
         "gear must be a Gear value"},
        {{.kind = PDK_DBW_MSG_ULC, .crc = -1, .u.ulc = {.cmd = INFINITY}},
         PDK_ERR_INVALID_ARGUMENT,
         "ULC cmd must be"},
        {{.kind = PDK_DBW_MSG_ULC, .crc = -1, .u.ulc = {.limit_jerk_brake = -2.0}},
         PDK_ERR_INVALID_ARGUMENT,
         "ULC limits"},
        {{.kind = PDK_DBW_MSG_ULC, .crc = -1, .u.ulc = {.cmd_type = 3}},
         PDK_ERR_INVALID_ARGUMENT,
         "ULC cmd_type"},
        {{.kind = PDK_DBW_MSG_ULC, .crc = -1, .u.ulc = {.rc = 20}},
         PDK_ERR_OUT_OF_RANGE,
         "rolling counter"},
        {{.kind = PDK_DBW_MSG_TURN_SIGNAL, .crc = -1, .u.value = 4},
         PDK_ERR_INVALID_ARGUMENT,
         "turn signal must be"},
        {{.kind = PDK_DBW_MSG_MISC, .crc = -1, .u.value = 3},
         PDK_ERR_INVALID_ARGUMENT,
         "parking_brake must be"},
        {{.kind = PDK_DBW_MSG_DRIVE_MODE, .crc = -1, .u.value = 5},
         PDK_ERR_INVALID_ARGUMENT,
         "drive_mode must be"},
        {{.kind = PDK_DBW_MSG_DRIVE_MODE, .crc = -1, .u.value = 1},
         PDK_ERR_OUT_OF_RANGE,
         "UTV's Turf/2WD/AWD switch only"},
        {{.kind = PDK_DBW_MSG_SYSTEM, .crc = -1, .u.system = {.cmd = 3}},
         PDK_ERR_INVALID_ARGUMENT,
         "system cmd must be"},
        {{.kind = PDK_DBW_MSG_SYSTEM, .crc = -1, .u.system = {.sync_mode = 4}},
         PDK_ERR_INVALID_ARGUMENT,
         "sync_mode must be"},
        {{.kind = PDK_DBW_MSG_SYSTEM, .crc = -1, .u.system = {.validate_crc = 2}},
         PDK_ERR_INVALID_ARGUMENT,
         "are booleans"},
        {{.kind = PDK_DBW_MSG_SYSTEM, .crc = -1, .u.system = {.rc = 16}},
         PDK_ERR_OUT_OF_RANGE,
         "rolling counter"},
        {{.kind = PDK_DBW_MSG_BUTTON, .crc = -1, .u.value = 0},
         PDK_ERR_INVALID_ARGUMENT,
         "button must be"},
        {{.kind = PDK_DBW_MSG_FAULT, .crc = -1, .u.fault = {.kind = 12}},
         PDK_ERR_INVALID_ARGUMENT,
         "fault kind must be"},
        {{.kind = PDK_DBW_MSG_FAULT, .crc = -1, .u.fault = {.kind = 1, .value = NAN}},
         PDK_ERR_INVALID_ARGUMENT,
         "fault value must be a finite"},
        {{.kind = PDK_DBW_MSG_FAULT, .crc = -1, .u.fault = {.kind = PDK_FAULT_STUCK, .target = 3}},
         PDK_ERR_INVALID_ARGUMENT,
         "a channel with an actuator"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_LATENCY, .target = 5}},
         PDK_ERR_INVALID_ARGUMENT,
         "a channel with an actuator"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_LATENCY, .target = 0, .value = 0.5}},
         PDK_ERR_OUT_OF_RANGE,
         "added latency"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_MODULE_RESTART, .target = 3}},
         PDK_ERR_INVALID_ARGUMENT,
         "a channel with an actuator"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_CHANNEL, .target = 4}},
         PDK_ERR_INVALID_ARGUMENT,
         "gear 3"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_REPORT_DROP, .target = 12}},
         PDK_ERR_INVALID_ARGUMENT,
         "a report kind"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_REPORT_DROP, .target = 1, .value = 1.5}},
         PDK_ERR_OUT_OF_RANGE,
         "reports dropped"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_REPORT_DELAY, .target = 12}},
         PDK_ERR_INVALID_ARGUMENT,
         "a report kind"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_REPORT_DELAY, .target = 1, .value = 0.6}},
         PDK_ERR_OUT_OF_RANGE,
         "report delay"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_SENSOR_BIAS, .target = 7}},
         PDK_ERR_INVALID_ARGUMENT,
         "a sensor axis"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_SENSOR_NOISE, .target = 1, .value = -1.0}},
         PDK_ERR_OUT_OF_RANGE,
         "noise multiplier"},
        {{.kind = PDK_DBW_MSG_FAULT,
          .crc = -1,
          .u.fault = {.kind = PDK_FAULT_SENSOR_BIAS, .target = 1, .value = 2000.0}},
         PDK_ERR_OUT_OF_RANGE,
         "sensor bias"},
        {{.kind = PDK_DBW_MSG_AW_CONTROL, .crc = -1, .u.aw = {.velocity_mps = NAN}},
         PDK_ERR_INVALID_ARGUMENT,
         "Autoware control fields"},
        {{.kind = PDK_DBW_MSG_AW_GEAR, .crc = -1, .u.value = 25},
         PDK_ERR_INVALID_ARGUMENT,
         "Autoware gear must be"},
        {{.kind = PDK_DBW_MSG_AW_MODE, .crc = -1, .u.value = 5},
         PDK_ERR_INVALID_ARGUMENT,
         "Autoware control mode command"},
    };
    uint64_t h = pdk_world_hash(r.w);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = pdk_world_dbw_problem(r.w, r.id, &cases[i].m);
        ck_assert_msg(why != NULL && strstr(why, cases[i].says) != NULL, "case %zu: %s", i,
                      why ? why : "(accepted)");
        ck_assert_msg(pdk_world_dbw(r.w, r.id, &cases[i].m) == cases[i].code, "case %zu (%s): %s",
                      i, why, pdk_error_name(pdk_world_dbw(r.w, r.id, &cases[i].m)));
    }
    ck_assert_uint_eq(pdk_world_hash(r.w), h);
    pdk_dbw_msg ok = {.kind = PDK_DBW_MSG_TURN_SIGNAL, .crc = -1, .u.value = 1};
    ck_assert_int_eq(pdk_world_dbw(r.w, r.id + 7u, &ok), PDK_ERR_STALE_ID);
    ck_assert_ptr_nonnull(strstr(pdk_world_dbw_problem(r.w, r.id + 7u, &ok), "stale"));
    ck_assert_int_eq(pdk_world_dbw(r.w, r.id, NULL), PDK_ERR_INVALID_ARGUMENT);
    pdk_dbw_report rep;
    ck_assert_int_eq(pdk_world_dbw_report(r.w, r.id + 7u, &rep), PDK_ERR_STALE_ID);
    /* A kit spoken to is state: the hash moves. */
    kit(&r, &ok);
    ck_assert_uint_ne(pdk_world_hash(r.w), h);
    rig_close(&r);
}
END_TEST

static Suite *dbw_suite(void)
{
    Suite *s = suite_create("dbw");
    TCase *tc = tcase_create("dbw");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, crc8_and_names);
    tcase_add_test(tc, every_reason_in_lockstep);
    tcase_add_test(tc, timeout_and_comms_loss_brake_to_stop);
    tcase_add_test(tc, timeout_without_comms_loss_lets_go);
    tcase_add_test(tc, ulc_speed_step_within_limits);
    tcase_add_test(tc, ulc_holds_speed_on_grade);
    tcase_add_test(tc, steering_step_rate_limited_and_through_ratio);
    tcase_add_test(tc, gear_rejects);
    tcase_add_test(tc, override_latch_clear_and_ignore);
    tcase_add_test(tc, fault_injection);
    tcase_add_test(tc, parking_brake_holds_on_a_slope);
    tcase_add_test(tc, imu_reads_the_specific_force);
    tcase_add_test(tc, drive_mode_and_turn_signal);
    tcase_add_test(tc, reengage_after_disable_and_timeout);
    tcase_add_test(tc, sensor_noise_statistics);
    tcase_add_test(tc, sensor_noise_same_bits_everywhere);
    tcase_add_test(tc, autoware_profile);
    tcase_add_test(tc, refusals_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    SRunner *sr = srunner_create(dbw_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
