/* Unit tests of the C client's DBW link (clients/c/paddock_dbw.c): its
 * CRC-8 against the server's own pdk_dbw_crc8 (server/sim/dbw.c, linked
 * through pdk_params), its rolling counters, its argument checks, the link
 * against a scripted peer (client_test_util.h) synchronous and
 * asynchronous, the names and report lines of `paddock dbw`
 * (clients/cli/dbw_rows.c), and one drive against the real paddockd on
 * loopback, through the module and through `paddock dbw`. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pb_encode.h>

#include "sim/dbw.h"
#include "dbw_rows.h"
#include "paddock_client.h"
#include "paddock_dbw.h"

#include "client_test_util.h"

/* Large objects live here, not on the test's stack. */
static pdk_client client;
static paddock_v1_Frame frame_a;

/* --- the DBW link: CRC and rolling counters ------------------------------- */

/* A deterministic generator for the CRC comparison (PCG's LCG step). */
static uint32_t next_u32(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 32);
}

/* Any finite float, from tiny denormals to FLT_MAX, plus now and then an
 * exact small value, zero, minus zero or (where allowed) infinity. */
static float any_float(uint64_t *s, int inf_ok)
{
    uint32_t pick = next_u32(s) % 16u;
    if (pick == 0) {
        return 0.0f;
    }
    if (pick == 1) {
        return -0.0f;
    }
    if (pick == 2 && inf_ok) {
        return INFINITY;
    }
    if (pick < 6) {
        return (float)((int32_t)(next_u32(s) % 2001u) - 1000) * 0.125f;
    }
    uint32_t bits = next_u32(s);
    if ((bits & 0x7F800000u) == 0x7F800000u) {
        bits &= ~0x00800000u; /* not an infinity or NaN */
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static bool any_bool(uint64_t *s)
{
    return (next_u32(s) & 1u) != 0;
}

/* A random message of the proto oneof tag and the same message as the
 * server's pdk_dbw_msg, translated by dbw.h's definitions (floats widen to
 * double exactly; an absent system setting is -1). */
static void random_message(uint64_t *s, pb_size_t tag, paddock_v1_DbwMessage *pb, pdk_dbw_msg *sim)
{
    memset(pb, 0, sizeof *pb);
    memset(sim, 0, sizeof *sim);
    pb->which_msg = tag;
    sim->kind = (int32_t)(tag - paddock_v1_DbwMessage_steering_tag + 1);
    sim->crc = -1;
    uint32_t cmd_type = next_u32(s) % 4u == 0 ? next_u32(s) % 256u : next_u32(s) % 16u;
    uint32_t rc = next_u32(s) % 16u;
    switch (tag) {
    case paddock_v1_DbwMessage_steering_tag:
    case paddock_v1_DbwMessage_brake_tag:
    case paddock_v1_DbwMessage_throttle_tag: {
        float cmd = any_float(s, 0);
        float a = any_float(s, 1);
        float b = any_float(s, 1);
        bool en = any_bool(s), cl = any_bool(s), ig = any_bool(s);
        if (tag == paddock_v1_DbwMessage_steering_tag) {
            paddock_v1_SteeringCmd *m = &pb->msg.steering;
            m->cmd = cmd, m->cmd_rate = a, m->cmd_accel = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        } else if (tag == paddock_v1_DbwMessage_brake_tag) {
            paddock_v1_BrakeCmd *m = &pb->msg.brake;
            m->cmd = cmd, m->rate_inc = a, m->rate_dec = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        } else {
            paddock_v1_ThrottleCmd *m = &pb->msg.throttle;
            m->cmd = cmd, m->rate_inc = a, m->rate_dec = b, m->cmd_type = cmd_type;
            m->enable = en, m->clear = cl, m->ignore = ig, m->rc = rc;
        }
        pdk_dbw_chan_cmd *c = &sim->u.chan;
        c->cmd = (double)cmd, c->rate_a = (double)a, c->rate_b = (double)b;
        c->cmd_type = (int32_t)cmd_type;
        c->enable = en, c->clear = cl, c->ignore = ig, c->rc = (uint8_t)rc;
        break;
    }
    case paddock_v1_DbwMessage_ulc_tag: {
        paddock_v1_UlcCmd *m = &pb->msg.ulc;
        pdk_dbw_ulc_cmd *u = &sim->u.ulc;
        m->cmd = any_float(s, 0);
        m->limit_accel = any_float(s, 1);
        m->limit_decel = any_float(s, 1);
        m->limit_jerk_throttle = any_float(s, 1);
        m->limit_jerk_brake = any_float(s, 1);
        m->cmd_type = cmd_type;
        m->enable = any_bool(s), m->clear = any_bool(s), m->enable_shift = any_bool(s);
        m->enable_shift_park = any_bool(s), m->coast_decel = any_bool(s);
        m->rc = rc;
        u->cmd = (double)m->cmd, u->limit_accel = (double)m->limit_accel;
        u->limit_decel = (double)m->limit_decel;
        u->limit_jerk_throttle = (double)m->limit_jerk_throttle;
        u->limit_jerk_brake = (double)m->limit_jerk_brake;
        u->cmd_type = (int32_t)cmd_type;
        u->enable = m->enable, u->clear = m->clear, u->enable_shift = m->enable_shift;
        u->enable_shift_park = m->enable_shift_park, u->coast_decel = m->coast_decel;
        u->rc = (uint8_t)rc;
        break;
    }
    case paddock_v1_DbwMessage_gear_tag:
        pb->msg.gear.cmd = (paddock_v1_Gear)(next_u32(s) % 6u);
        sim->u.value = (int32_t)pb->msg.gear.cmd;
        break;
    case paddock_v1_DbwMessage_system_tag: {
        paddock_v1_SystemCmd *m = &pb->msg.system;
        pdk_dbw_system_cmd *c = &sim->u.system;
        m->cmd = next_u32(s) % 3u;
        c->cmd = (int32_t)m->cmd;
        c->sync_mode = c->validate_crc = c->comms_loss_arm = -1;
        if (any_bool(s)) {
            m->which_sync_mode_set = paddock_v1_SystemCmd_sync_mode_tag;
            m->sync_mode_set.sync_mode = next_u32(s) % 4u;
            c->sync_mode = (int32_t)m->sync_mode_set.sync_mode;
        }
        if (any_bool(s)) {
            m->which_validate_set = paddock_v1_SystemCmd_validate_cmd_crc_rc_tag;
            m->validate_set.validate_cmd_crc_rc = any_bool(s);
            c->validate_crc = m->validate_set.validate_cmd_crc_rc ? 1 : 0;
        }
        if (any_bool(s)) {
            m->which_comms_loss_set = paddock_v1_SystemCmd_comms_loss_arm_tag;
            m->comms_loss_set.comms_loss_arm = any_bool(s);
            c->comms_loss_arm = m->comms_loss_set.comms_loss_arm ? 1 : 0;
        }
        m->rc = rc;
        c->rc = (uint8_t)rc;
        break;
    }
    default:
        break; /* the kinds without a CRC: only which_msg matters */
    }
}

/* The client computes the CRC-8 on its own; it must agree with the server's
 * for every message kind that carries one, and every other kind has none. */
START_TEST(dbw_crc_matches_server)
{
    static const uint8_t check[] = "123456789";
    ck_assert_uint_eq(pdk_dbw_link_crc8_bytes(check, 9), 0x4B);
    ck_assert_uint_eq(pdk_crc8_j1850(check, 9), 0x4B);
    ck_assert_uint_eq(pdk_dbw_link_crc8_bytes(check, 0), 0x00); /* 0xFF ^ 0xFF */

    /* One message by hand, byte for byte as docs/dbw.md lists them. */
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_steering_tag;
    m.msg.steering.cmd = 12.5f;         /* 0x41480000 */
    m.msg.steering.cmd_rate = INFINITY; /* 0x7F800000 */
    m.msg.steering.cmd_type = 2;
    m.msg.steering.enable = true;
    m.msg.steering.ignore = true;
    m.msg.steering.rc = 3;
    const uint8_t bytes[] = {1,    0x00, 0x00, 0x48, 0x41, 0x00, 0x00, 0x80,
                             0x7F, 0,    0,    0,    0,    2,    5,    3};
    uint8_t crc = 0;
    ck_assert_int_eq(pdk_dbw_link_crc8(&m, &crc), 1);
    ck_assert_uint_eq(crc, pdk_dbw_link_crc8_bytes(bytes, sizeof bytes));

    uint64_t seed = 0x5EEDu;
    int compared = 0;
    for (int i = 0; i < 7000; i++) {
        pb_size_t tag = (pb_size_t)(paddock_v1_DbwMessage_steering_tag + (pb_size_t)(i % 14));
        static paddock_v1_DbwMessage pb;
        pdk_dbw_msg sim;
        random_message(&seed, tag, &pb, &sim);
        uint8_t ours = 0;
        int has = pdk_dbw_link_crc8(&pb, &ours);
        int carries =
            tag == paddock_v1_DbwMessage_steering_tag || tag == paddock_v1_DbwMessage_brake_tag ||
            tag == paddock_v1_DbwMessage_throttle_tag || tag == paddock_v1_DbwMessage_gear_tag ||
            tag == paddock_v1_DbwMessage_ulc_tag || tag == paddock_v1_DbwMessage_system_tag;
        ck_assert_msg(has == carries, "message %d (oneof tag %u): has a CRC %d", i, (unsigned)tag,
                      has);
        if (!has) {
            continue;
        }
        uint8_t theirs = pdk_dbw_crc8(&sim);
        ck_assert_msg(ours == theirs, "message %d (kind %d): client 0x%02X, server 0x%02X", i,
                      (int)sim.kind, ours, theirs);
        compared++;
    }
    ck_assert_int_eq(compared, 3000);
}
END_TEST

/* Each stream's counter advances by one per message, mod 16, and only its
 * own; messages without a counter leave them all alone. */
START_TEST(dbw_rolling_counters_per_stream)
{
    static pdk_dbw_link link;
    pdk_dbw_link_init(&link, NULL, NULL, 7, 3);
    static const pb_size_t tags[PDK_DBW_STREAM_COUNT] = {
        paddock_v1_DbwMessage_steering_tag, paddock_v1_DbwMessage_brake_tag,
        paddock_v1_DbwMessage_throttle_tag, paddock_v1_DbwMessage_ulc_tag,
        paddock_v1_DbwMessage_system_tag};
    static paddock_v1_DbwMessage m;
    unsigned sent[PDK_DBW_STREAM_COUNT] = {0};
    uint64_t seed = 99;
    for (int i = 0; i < 400; i++) {
        int stream = (int)(next_u32(&seed) % PDK_DBW_STREAM_COUNT);
        memset(&m, 0, sizeof m);
        m.which_msg = tags[stream];
        ck_assert_int_eq(pdk_dbw_link_stream_of(m.which_msg), stream);
        ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)stream), sent[stream] % 16u);
        pdk_dbw_link_stamp(&link, &m);
        uint32_t rc = stream == 0   ? m.msg.steering.rc
                      : stream == 1 ? m.msg.brake.rc
                      : stream == 2 ? m.msg.throttle.rc
                      : stream == 3 ? m.msg.ulc.rc
                                    : m.msg.system.rc;
        ck_assert_msg(rc == sent[stream] % 16u, "stream %d message %u carried rc %u", stream,
                      sent[stream], (unsigned)rc);
        sent[stream]++;
        for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
            ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)k), sent[k] % 16u);
        }
        /* A message without a counter in between changes none. */
        memset(&m, 0, sizeof m);
        m.which_msg = i % 2 ? paddock_v1_DbwMessage_gear_tag : paddock_v1_DbwMessage_fault_tag;
        ck_assert_int_eq(pdk_dbw_link_stream_of(m.which_msg), -1);
        pdk_dbw_link_stamp(&link, &m);
        for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
            ck_assert_uint_eq(pdk_dbw_link_rc(&link, (pdk_dbw_stream)k), sent[k] % 16u);
        }
    }
    for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
        ck_assert_msg(sent[k] > 32, "stream %d wrapped only %u times", k, sent[k] / 16u);
    }

    /* A counter set by hand (to repeat one on purpose) is the next sent. */
    pdk_dbw_link_set_rc(&link, PDK_DBW_STREAM_STEER, 15);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_steering_tag;
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.steering.rc, 15);
    ck_assert_uint_eq(pdk_dbw_link_rc(&link, PDK_DBW_STREAM_STEER), 0);
    pdk_dbw_link_set_rc(&link, PDK_DBW_STREAM_STEER, 0x1F);
    ck_assert_uint_eq(pdk_dbw_link_rc(&link, PDK_DBW_STREAM_STEER), 15);

    /* The CRC goes on only when asked, and covers the stamped counter. */
    ck_assert_uint_eq(m.msg.steering.which_crc_set, 0);
    pdk_dbw_link_set_crc(&link, 1);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_ulc_tag;
    m.msg.ulc.cmd = 4.0f;
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.ulc.which_crc_set, paddock_v1_UlcCmd_crc_tag);
    uint8_t crc = 0;
    ck_assert_int_eq(pdk_dbw_link_crc8(&m, &crc), 1);
    ck_assert_uint_eq(m.msg.ulc.crc_set.crc, crc);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_turn_signal_tag;
    pdk_dbw_link_stamp(&link, &m); /* no CRC field to fill: nothing happens */
    ck_assert_uint_eq(m.msg.turn_signal.cmd, 0);
    pdk_dbw_link_set_crc(&link, 0);
    memset(&m, 0, sizeof m);
    m.which_msg = paddock_v1_DbwMessage_gear_tag;
    m.msg.gear.which_crc_set = paddock_v1_GearCmd_crc_tag; /* a stale CRC is removed */
    pdk_dbw_link_stamp(&link, &m);
    ck_assert_uint_eq(m.msg.gear.which_crc_set, 0);
}
END_TEST

START_TEST(dbw_bad_arguments_are_named)
{
    static pdk_dbw_link link;
    pdk_dbw_link_init(&link, NULL, NULL, 1, 1);
    ck_assert_int_eq(pdk_dbw_link_steer_angle(&link, NAN, 0.0, 0.0), PDK_CLIENT_EINVAL);
    ck_assert_str_eq(link.error, "steer: cmd is NaN; it must be a finite number");
    /* Infinite rates are the kit's "no limit"; a negative one is the server's to refuse. */
    ck_assert_int_eq(pdk_dbw_link_brake_pressure(&link, 10.0, -INFINITY, INFINITY),
                     PDK_CLIENT_EINVAL);
    ck_assert_str_eq(link.error, "brake: the link has no client (pdk_dbw_link_init)");
    ck_assert_int_eq(pdk_dbw_link_ulc_velocity(&link, INFINITY, NULL), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "ulc_velocity: cmd is infinite") != NULL, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_fault(&link, 1, 0, NAN), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "fault: value") != NULL, "%s", link.error);
    /* A link without a client says so rather than crash. */
    ck_assert_int_eq(pdk_dbw_link_enable(&link), PDK_CLIENT_EINVAL);
    ck_assert_msg(strstr(link.error, "system: the link has no client") != NULL, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_send(NULL, NULL), PDK_CLIENT_EINVAL);
    ck_assert_int_eq(pdk_dbw_link_poll(NULL, 0), PDK_CLIENT_EINVAL);
}
END_TEST

/* --- the DBW link against a scripted peer --------------------------------- */

static size_t encode_ok(uint8_t *buf, size_t cap, uint64_t id, uint64_t tick)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.request_id = id;
    f.which_body = paddock_v1_Frame_ok_tag;
    f.body.ok.tick = tick;
    return encode_frame(buf, cap, &f);
}

static size_t encode_system_report(uint8_t *buf, size_t cap, uint32_t state, const char *reason)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_dbw_report_tag;
    f.body.dbw_report.subscription_id = 1;
    f.body.dbw_report.tick = 900;
    f.body.dbw_report.which_report = paddock_v1_DbwReport_system_tag;
    f.body.dbw_report.report.system.state = state;
    snprintf(f.body.dbw_report.report.system.reason_disengage_str,
             sizeof f.body.dbw_report.report.system.reason_disengage_str, "%s", reason);
    return encode_frame(buf, cap, &f);
}

static size_t encode_control_event(uint8_t *buf, size_t cap)
{
    static paddock_v1_Frame f;
    memset(&f, 0, sizeof f);
    f.which_body = paddock_v1_Frame_control_event_tag;
    f.body.control_event.active_source = paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER;
    f.body.control_event.preempted = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    snprintf(f.body.control_event.reason, sizeof f.body.control_event.reason, "driver took over");
    return encode_frame(buf, cap, &f);
}

typedef struct link_seen {
    int reports;
    uint32_t last_state;
    int events;
    paddock_v1_ControlSource preempted;
} link_seen;

static void seen_report(const paddock_v1_DbwReport *r, void *ud)
{
    link_seen *s = ud;
    s->reports++;
    if (r->which_report == paddock_v1_DbwReport_system_tag) {
        s->last_state = r->report.system.state;
    }
}

static void seen_event(const paddock_v1_ControlEvent *e, void *ud)
{
    link_seen *s = ud;
    s->events++;
    s->preempted = e->preempted;
}

/* Synchronous: a send returns its own Ok (pushes before it go to the
 * callbacks) or the server's refusal, named. */
START_TEST(dbw_link_sync_replies_and_pushes)
{
    static uint8_t welcome[256], first[1024], second[1024];
    size_t nw = encode_welcome(welcome, sizeof welcome, 1, 1);
    size_t n1 = encode_system_report(first, sizeof first, 2, "");
    n1 += encode_control_event(first + n1, sizeof first - n1);
    n1 += encode_ok(first + n1, sizeof first - n1, 2, 4321);
    size_t n2 = encode_error(second, sizeof second, 3, paddock_v1_ErrorCode_OUT_OF_RANGE,
                             "fault kind 99 is not a fault (0 CLEAR .. 10 POWER_CYCLE)");
    peer p;
    memset(&p, 0, sizeof p);
    p.replies[0] = welcome, p.reply_len[0] = nw;
    p.replies[1] = first, p.reply_len[1] = n1;
    p.replies[2] = second, p.reply_len[2] = n2;
    p.n_replies = 3;
    peer_start(&p);
    char addr[64];
    peer_addr(&p, addr, sizeof addr);
    ck_assert_int_eq(pdk_client_connect(&client, addr, 2000, NULL), PDK_CLIENT_OK);

    static pdk_dbw_link link;
    link_seen seen = {0, 0, 0, 0};
    pdk_dbw_link_init(&link, &client, &frame_a, 5, 6);
    pdk_dbw_link_on_report(&link, seen_report, &seen);
    pdk_dbw_link_on_event(&link, seen_event, &seen);
    pdk_client_status st = pdk_dbw_link_steer_angle(&link, 15.0, 0.0, 0.0);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_uint_eq(link.last_tick, 4321);
    ck_assert_int_eq(seen.reports, 1);
    ck_assert_uint_eq(seen.last_state, 2);
    ck_assert_int_eq(seen.events, 1);
    ck_assert_int_eq(seen.preempted, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);

    st = pdk_dbw_link_fault(&link, 99, 0, 1.0);
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    ck_assert_str_eq(
        link.error,
        "fault: OUT_OF_RANGE: fault kind 99 is not a fault (0 CLEAR .. 10 POWER_CYCLE)");
    ck_assert_uint_eq(link.acked, 1);
    ck_assert_uint_eq(link.refused, 1);
    pdk_client_close(&client);
    peer_join(&p);
    ck_assert_int_eq(p.frames_read, 3);
}
END_TEST

/* Asynchronous: sends return at once; poll takes the replies, hands the
 * pushes over and returns a refusal once, naming the message and request. */
START_TEST(dbw_link_async_replies_come_from_poll)
{
    static uint8_t welcome[256], first[1024], second[1024];
    size_t nw = encode_welcome(welcome, sizeof welcome, 1, 1);
    size_t n1 = encode_system_report(first, sizeof first, 0, "SteerCmdTimeout");
    n1 += encode_error(first + n1, sizeof first - n1, 2, paddock_v1_ErrorCode_OUT_OF_RANGE,
                       "steering cmd_type 7 is not a steering command type");
    size_t n2 = encode_ok(second, sizeof second, 3, 777);
    peer p;
    memset(&p, 0, sizeof p);
    p.replies[0] = welcome, p.reply_len[0] = nw;
    p.replies[1] = first, p.reply_len[1] = n1;
    p.replies[2] = second, p.reply_len[2] = n2;
    p.n_replies = 3;
    peer_start(&p);
    char addr[64];
    peer_addr(&p, addr, sizeof addr);
    ck_assert_int_eq(pdk_client_connect(&client, addr, 2000, NULL), PDK_CLIENT_OK);

    static pdk_dbw_link link;
    link_seen seen = {0, 9, 0, 0};
    pdk_dbw_link_init(&link, &client, &frame_a, 5, 6);
    pdk_dbw_link_on_report(&link, seen_report, &seen);
    pdk_dbw_link_set_async(&link, 1);
    ck_assert_int_eq(pdk_dbw_link_steer(&link, 7, 1.0, 0.0, 0.0), PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_dbw_link_ulc_velocity(&link, 3.0, NULL), PDK_CLIENT_OK);
    ck_assert_uint_eq(link.n_pending, 2);

    double t0 = now_ms();
    pdk_client_status st = PDK_CLIENT_OK;
    while (link.n_pending > 0 && now_ms() - t0 < 3000.0 && st == PDK_CLIENT_OK) {
        st = pdk_dbw_link_poll(&link, 50);
    }
    if (st == PDK_CLIENT_OK) {
        st = pdk_dbw_link_poll(&link, 0);
    }
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_str_eq(link.error, "steering (request 2): OUT_OF_RANGE: steering cmd_type 7 is not "
                                 "a steering command type");
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_OUT_OF_RANGE);
    /* The rest arrives by the next poll; the refusal is not returned twice. */
    t0 = now_ms();
    while (link.n_pending > 0 && now_ms() - t0 < 3000.0) {
        ck_assert_int_eq(pdk_dbw_link_poll(&link, 50), PDK_CLIENT_OK);
    }
    ck_assert_int_eq(pdk_dbw_link_poll(&link, 0), PDK_CLIENT_OK);
    ck_assert_uint_eq(link.n_pending, 0);
    ck_assert_uint_eq(link.acked, 1);
    ck_assert_uint_eq(link.refused, 1);
    ck_assert_uint_eq(link.last_tick, 777);
    ck_assert_int_eq(seen.reports, 1);
    ck_assert_uint_eq(seen.last_state, 0);
    pdk_client_close(&client);
    peer_join(&p);
}
END_TEST

/* --- paddock dbw's names and report lines ---------------------------------- */

START_TEST(cli_dbw_names)
{
    char err[256] = "";
    paddock_v1_DbwReportKind kinds[12];
    size_t n = 99;
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "all", kinds, 12, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "system,Wheel-Speeds,steering", kinds, 12,
                                             &n, err, sizeof err),
                     0);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(kinds[0], paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM);
    ck_assert_int_eq(kinds[1], paddock_v1_DbwReportKind_DBW_REPORT_WHEEL_SPEEDS);
    ck_assert_int_eq(kinds[2], paddock_v1_DbwReportKind_DBW_REPORT_STEERING);
    ck_assert_int_eq(
        pdk_cli_parse_dbw_kinds("--kinds", "ulc,bogus", kinds, 12, &n, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "--kinds: 'bogus' is not a report kind", 37) == 0, "%s", err);
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "ulc,ulc", kinds, 12, &n, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "--kinds: 'ulc' is listed twice");
    ck_assert_int_eq(pdk_cli_parse_dbw_kinds("--kinds", "imu,", kinds, 12, &n, err, sizeof err),
                     -1);
    for (int k = 0; k < 12; k++) {
        paddock_v1_DbwReportKind back;
        const char *name = pdk_dbw_link_report_kind_name((paddock_v1_DbwReportKind)k);
        ck_assert_int_eq(pdk_dbw_link_report_kind_parse(name, &back), 0);
        ck_assert_int_eq(back, k);
    }

    uint32_t v = 0;
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "report-drop", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_FAULT_REPORT_DROP);
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "99", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 99); /* sent as it is: the server names it */
    ck_assert_int_eq(pdk_cli_parse_fault_kind("fault KIND", "wobble", &v, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "fault KIND: 'wobble' is not a fault kind", 40) == 0, "%s", err);
    for (uint32_t k = 0; k < PDK_DBW_FAULT_KIND_COUNT; k++) {
        uint32_t back = 99;
        ck_assert_int_eq(pdk_dbw_link_fault_parse(pdk_dbw_link_fault_name(k), &back), 0);
        ck_assert_uint_eq(back, k);
    }

    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_STUCK, "brake", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_REPORT_DELAY, "system", &v, err, sizeof err),
        0);
    ck_assert_uint_eq(v, paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_SENSOR_BIAS, "gyro_z", &v, err, sizeof err),
        0);
    ck_assert_uint_eq(v, 5);
    ck_assert_int_eq(
        pdk_cli_parse_fault_target("T", PDK_DBW_FAULT_STUCK, "gyro_z", &v, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "T: 'gyro_z' is not a target of a stuck fault", 44) == 0, "%s", err);
    ck_assert_int_eq(pdk_cli_parse_fault_target("T", 42, "12", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, 12);

    ck_assert_int_eq(pdk_cli_parse_dbw_button("B", "external-brake", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_BUTTON_EXTERNAL_BRAKE);
    ck_assert_int_eq(pdk_cli_parse_dbw_button("B", "horn", &v, err, sizeof err), -1);
    ck_assert_int_eq(pdk_cli_parse_sync_mode("--sync-mode", "all_or_none", &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, PDK_DBW_SYNC_MODE_ALL_OR_NONE);
    ck_assert_int_eq(pdk_cli_parse_sync_mode("--sync-mode", "some", &v, err, sizeof err), -1);
    int on = -1;
    ck_assert_int_eq(pdk_cli_parse_on_off("--comms-loss", "off", &on, err, sizeof err), 0);
    ck_assert_int_eq(on, 0);
    ck_assert_int_eq(pdk_cli_parse_on_off("--comms-loss", "maybe", &on, err, sizeof err), -1);
    ck_assert_str_eq(err, "--comms-loss: 'maybe' is neither on nor off");
}
END_TEST

START_TEST(cli_dbw_report_lines)
{
    char header[PDK_CLI_DBW_ROW_LEN];
    char row[PDK_CLI_DBW_ROW_LEN];
    pdk_cli_format_dbw_header(header, sizeof header);
    const size_t fields_at = strlen(header) - strlen("FIELDS");
    ck_assert_str_eq(header + fields_at, "FIELDS");

    static paddock_v1_DbwReport r;
    memset(&r, 0, sizeof r);
    r.tick = 1234;
    r.sim_time_s = 10.283;
    r.vehicle_id = 2;
    r.which_report = paddock_v1_DbwReport_system_tag;
    r.report.system.state = 2;
    r.report.system.reason_disengage = 0x24;
    snprintf(r.report.system.reason_disengage_str, sizeof r.report.system.reason_disengage_str,
             "SteerCmdTimeout");
    r.report.system.enabled = true;
    r.report.system.ready = true;
    r.report.system.active_source = paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY;
    pdk_cli_format_dbw_report(row, sizeof row, &r);
    ck_assert_str_eq(row, "      1234     10.283     2 system           state=ACTIVE sync=none "
                          "disengage=SteerCmdTimeout(0x24) not_ready=-(0x00) source=autonomy "
                          "flags=ready,enabled");

    memset(&r, 0, sizeof r);
    r.which_report = paddock_v1_DbwReport_steering_tag;
    r.report.steering.steering_wheel_angle = -12.5f;
    r.report.steering.has_status = true;
    r.report.steering.status.timeout = true;
    pdk_cli_format_dbw_report(row, sizeof row, &r);
    ck_assert_uint_eq(strlen(row) > fields_at, 1);
    ck_assert_msg(strncmp(row + fields_at, "angle_deg=-12.50 ", 17) == 0, "%s", row);
    ck_assert_msg(strstr(row, " flags=timeout") != NULL, "%s", row);

    /* Every kind has a line, and a short buffer is cut, not overrun. */
    for (pb_size_t tag = paddock_v1_DbwReport_steering_tag;
         tag <= paddock_v1_DbwReport_aw_status_tag; tag++) {
        memset(&r, 0, sizeof r);
        r.which_report = tag;
        pdk_cli_format_dbw_report(row, sizeof row, &r);
        int kind = pdk_dbw_link_report_kind_of(&r);
        ck_assert_int_eq(kind, (int)(tag - paddock_v1_DbwReport_steering_tag));
        ck_assert_msg(strstr(row, pdk_dbw_link_report_kind_name((paddock_v1_DbwReportKind)kind)) !=
                          NULL,
                      "%s", row);
        ck_assert_msg(strstr(row, "(empty)") == NULL, "%s", row);
    }
    char small[20];
    pdk_cli_format_dbw_report(small, sizeof small, &r);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

/* --- the DBW link against the real paddockd -------------------------------- */

/* One paddockd for the "server" test case, started before its tests fork
 * (an unchecked fixture) on an ephemeral loopback port with its own
 * database, as tests/integration/harness.c does. */
static struct {
    pid_t pid;
    int port;
    char dir[64];
    char log_path[128];
    char db_path[128];
    char addr[64];
} srv;

static void read_text(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return;
    }
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void server_start(void)
{
    memset(&srv, 0, sizeof srv);
    snprintf(srv.dir, sizeof srv.dir, "/tmp/paddock-client-XXXXXX");
    if (mkdtemp(srv.dir) == NULL) {
        return;
    }
    snprintf(srv.log_path, sizeof srv.log_path, "%s/paddockd.log", srv.dir);
    snprintf(srv.db_path, sizeof srv.db_path, "%s/paddock.db", srv.dir);
    int out = open(srv.log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        return;
    }
    const char *argv[] = {PDK_BUILD_DIR "/bin/paddockd",
                          "serve",
                          "--listen",
                          "127.0.0.1:0",
                          "--db",
                          srv.db_path,
                          "--presets",
                          PDK_SOURCE_DIR "/presets",
                          "--migrations",
                          PDK_SOURCE_DIR "/migrations",
                          NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the server never outlives the test */
        if (getppid() != parent) {
            _exit(127);
        }
        dup2(out, 1);
        dup2(out, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out);
    if (pid < 0) {
        return;
    }
    srv.pid = pid;
    static char log[8192];
    for (int i = 0; i < 1000; i++) { /* 10 s */
        read_text(srv.log_path, log, sizeof log);
        const char *l = strstr(log, "listening on 127.0.0.1:");
        if (l != NULL && strchr(l, '\n') != NULL) {
            srv.port = atoi(l + strlen("listening on 127.0.0.1:"));
            snprintf(srv.addr, sizeof srv.addr, "127.0.0.1:%d", srv.port);
            return;
        }
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            srv.pid = 0;
            return;
        }
        usleep(10 * 1000);
    }
}

static void server_stop(void)
{
    if (srv.pid > 0) {
        kill(srv.pid, SIGTERM);
        int status = 0;
        for (int i = 0; i < 1000 && waitpid(srv.pid, &status, WNOHANG) != srv.pid; i++) {
            usleep(10 * 1000);
            if (i == 999) {
                kill(srv.pid, SIGKILL);
                waitpid(srv.pid, &status, 0);
            }
        }
        srv.pid = 0;
    }
    if (srv.dir[0] != '\0') {
        static const char *const files[] = {"paddockd.log", "paddock.db", "paddock.db-wal",
                                            "paddock.db-shm"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char path[160];
            snprintf(path, sizeof path, "%s/%s", srv.dir, files[i]);
            unlink(path);
        }
        rmdir(srv.dir);
    }
}

static void assert_server_up(void)
{
    static char log[8192];
    if (srv.port <= 0) {
        read_text(srv.log_path, log, sizeof log);
    }
    ck_assert_msg(srv.port > 0, "paddockd (%s) did not start; build it first. Its output: %s",
                  PDK_BUILD_DIR "/bin/paddockd", log);
}

/* A session (realtime) and a midsize_sedan in drive on it, through the plain client. */
static void create_session_and_vehicle(uint64_t *session, uint32_t *vehicle)
{
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(frame_a.body.session_create.name, sizeof frame_a.body.session_create.name,
             "test-client-dbw");
    ck_assert_int_eq(pdk_client_call(&client, &frame_a, &frame_a, NULL, NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(frame_a.which_body, paddock_v1_Frame_session_created_tag);
    *session = frame_a.body.session_created.session.session_id;
    memset(&frame_a, 0, sizeof frame_a);
    frame_a.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    frame_a.body.vehicle_spawn.session_id = *session;
    snprintf(frame_a.body.vehicle_spawn.preset, sizeof frame_a.body.vehicle_spawn.preset,
             "midsize_sedan");
    frame_a.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    pdk_client_status st = pdk_client_call(&client, &frame_a, &frame_a, NULL, NULL);
    ck_assert_msg(st == PDK_CLIENT_OK, "spawn: %s", client.error);
    *vehicle = frame_a.body.vehicle_spawned.vehicle_id;
}

typedef struct drive_seen {
    int stopped;        /* set when the commands stop */
    int active;         /* a SystemReport said ACTIVE while commands flowed */
    int timeout_reason; /* a SystemReport named a *CmdTimeout after they stopped */
    int early_timeout;  /* one named a *CmdTimeout while they flowed */
    int bad_crc_rc;     /* any report flagged a bad CRC or rolling counter */
    uint32_t last_state;
    double max_speed_mps;
    char reason[40];
} drive_seen;

static void drive_report(const paddock_v1_DbwReport *r, void *ud)
{
    drive_seen *s = ud;
    if (r->which_report == paddock_v1_DbwReport_system_tag) {
        const paddock_v1_SystemReport *sys = &r->report.system;
        s->last_state = sys->state;
        s->active |= !s->stopped && sys->state == paddock_v1_SystemState_SYSTEM_STATE_ACTIVE;
        int timeout = strstr(sys->reason_disengage_str, "CmdTimeout") != NULL;
        s->timeout_reason |= s->stopped && timeout;
        s->early_timeout |= !s->stopped && timeout;
        s->bad_crc_rc |= sys->bad_crc || sys->bad_rc;
        snprintf(s->reason, sizeof s->reason, "%s", sys->reason_disengage_str);
    } else if (r->which_report == paddock_v1_DbwReport_ulc_tag) {
        const paddock_v1_UlcReport *u = &r->report.ulc;
        s->bad_crc_rc |= u->bad_crc || u->bad_rc;
        if ((double)u->vel_meas > s->max_speed_mps) {
            s->max_speed_mps = (double)u->vel_meas;
        }
    } else if (r->which_report == paddock_v1_DbwReport_steering_tag) {
        s->bad_crc_rc |= r->report.steering.status.bad_crc || r->report.steering.status.bad_rc;
    }
}

/* The kit through the module: lease, subscribe, enable, then a second of
 * steering and ULC at 50 Hz with CRCs and changing counters (ACTIVE, no bad
 * CRC or counter), then silence (the kit times the commands out and says
 * why). An unknown fault kind is refused naming it, by the module and by
 * `paddock dbw`. */
START_TEST(dbw_real_server_drive_timeout_fault)
{
    assert_server_up();
    ck_assert_int_eq(pdk_client_connect_as(&client, srv.addr, 3000, "test-client-dbw", NULL),
                     PDK_CLIENT_OK);
    uint64_t session = 0;
    uint32_t vehicle = 0;
    create_session_and_vehicle(&session, &vehicle);

    static pdk_dbw_link link;
    drive_seen seen;
    memset(&seen, 0, sizeof seen);
    pdk_dbw_link_init(&link, &client, &frame_a, session, vehicle);
    pdk_dbw_link_set_crc(&link, 1);
    pdk_dbw_link_on_report(&link, drive_report, &seen);
    paddock_v1_ControlLeaseReply lease;
    pdk_client_status st =
        pdk_dbw_link_take_lease(&link, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY, &lease);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_int_eq(lease.source, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);
    static const paddock_v1_DbwReportKind kinds[] = {paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_ULC,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_STEERING};
    st = pdk_dbw_link_subscribe(&link, kinds, 3);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_uint_ne(link.subscription_id, 0);
    st = pdk_dbw_link_enable(&link);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);

    pdk_dbw_link_set_async(&link, 1);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int n = 0; n < 50; n++) {
        st = pdk_dbw_link_steer_angle(&link, 5.0 * sin(n * 0.1), 0.0, 0.0);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        st = pdk_dbw_link_ulc_velocity(&link, 3.0, NULL);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        st = pdk_dbw_link_poll(&link, 0);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
        next.tv_nsec += 20000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    double t0 = now_ms();
    while (link.n_pending > 0 && now_ms() - t0 < 2000.0) {
        st = pdk_dbw_link_poll(&link, 20);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    }
    ck_assert_uint_eq(link.n_pending, 0);
    ck_assert_uint_eq(link.acked, 101); /* the enable, then 50 of each */
    ck_assert_uint_eq(link.refused, 0);
    ck_assert_msg(seen.active, "no SystemReport said ACTIVE; last state %u, reason '%s'",
                  (unsigned)seen.last_state, seen.reason);
    ck_assert_msg(!seen.early_timeout, "a command timed out while they flowed: '%s'", seen.reason);
    ck_assert_msg(!seen.bad_crc_rc, "a report flagged a bad CRC or rolling counter");
    ck_assert_msg(seen.max_speed_mps > 0.1, "the ULC did not move the car: %.3f m/s",
                  seen.max_speed_mps);

    seen.stopped = 1;
    t0 = now_ms();
    while (!seen.timeout_reason && now_ms() - t0 < 1500.0) {
        st = pdk_dbw_link_poll(&link, 50);
        ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    }
    ck_assert_msg(seen.timeout_reason,
                  "no SystemReport named a command timeout; last state %u, "
                  "reason '%s'",
                  (unsigned)seen.last_state, seen.reason);
    ck_assert_uint_ne(seen.last_state, PDK_DBW_STATE_ACTIVE);

    pdk_dbw_link_set_async(&link, 0);
    st = pdk_dbw_link_fault(&link, 99, 0, 0.0);
    ck_assert_int_eq(st, PDK_CLIENT_ESERVER);
    ck_assert_int_eq(link.server_code, paddock_v1_ErrorCode_INVALID_ARGUMENT);
    ck_assert_msg(strncmp(link.error, "fault: ", 7) == 0 &&
                      strstr(link.error, "fault kind") != NULL,
                  "%s", link.error);
    st = pdk_dbw_link_disable(&link);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);
    ck_assert_int_eq(pdk_dbw_link_unsubscribe(&link), PDK_CLIENT_OK);
    st = pdk_dbw_link_release_lease(&link, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY);
    ck_assert_msg(st == PDK_CLIENT_OK, "%s", link.error);

    /* The same through paddock dbw, now that the lease is free. */
    static char out[8192];
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s/bin/paddock --server %s dbw --session %llu --vehicle %u fault 99 steer 0 2>&1",
             PDK_BUILD_DIR, srv.addr, (unsigned long long)session, (unsigned)vehicle);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit %d: %s",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
    ck_assert_msg(strncmp(out, "paddock: INVALID_ARGUMENT: ", 27) == 0 &&
                      strstr(out, "fault kind") != NULL,
                  "%s", out);

    snprintf(cmd, sizeof cmd,
             "%s/bin/paddock --server %s dbw --session %llu --vehicle %u reports --kinds system "
             "--count 2 2>/dev/null",
             PDK_BUILD_DIR, srv.addr, (unsigned long long)session, (unsigned)vehicle);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", out);
    int lines = 0;
    for (const char *l = strstr(out, " system "); l != NULL; l = strstr(l + 1, " system ")) {
        lines++;
    }
    ck_assert_msg(strncmp(out, "      TICK", 10) == 0 && lines == 2, "%s", out);
    pdk_client_close(&client);
}
END_TEST

static Suite *dbw_link_suite(void)
{
    Suite *s = suite_create("dbw_link");
    TCase *dbw = tcase_create("dbw");
    tcase_set_timeout(dbw, 20);
    tcase_add_test(dbw, dbw_crc_matches_server);
    tcase_add_test(dbw, dbw_rolling_counters_per_stream);
    tcase_add_test(dbw, dbw_bad_arguments_are_named);
    tcase_add_test(dbw, dbw_link_sync_replies_and_pushes);
    tcase_add_test(dbw, dbw_link_async_replies_come_from_poll);
    suite_add_tcase(s, dbw);

    TCase *cli = tcase_create("cli");
    tcase_add_test(cli, cli_dbw_names);
    tcase_add_test(cli, cli_dbw_report_lines);
    suite_add_tcase(s, cli);

    TCase *server = tcase_create("server");
    tcase_set_timeout(server, 30);
    tcase_add_unchecked_fixture(server, server_start, server_stop);
    tcase_add_test(server, dbw_real_server_drive_timeout_fault);
    suite_add_tcase(s, server);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dbw_link_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
