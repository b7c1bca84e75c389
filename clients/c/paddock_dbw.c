/* libpaddock-client's DBW link: builds the kit's messages, stamps them with
 * their stream's rolling counter and the optional CRC-8, sends them, and
 * routes every frame that comes back (replies, DbwReport, ControlEvent,
 * pushed Errors). The CRC is computed here from docs/dbw.md's canonical
 * bytes, independently of the server's (server/sim/dbw.c), so the test that
 * compares the two checks the contract rather than one piece of code. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "paddock_dbw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* --- errors ------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static pdk_client_status
fail(pdk_dbw_link *link, pdk_client_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(link->error, sizeof link->error, fmt, ap);
    va_end(ap);
    return st;
}

/* A failure of the client underneath, prefixed with what the link was doing. */
static pdk_client_status fail_client(pdk_dbw_link *link, pdk_client_status st, const char *what)
{
    link->server_code = link->client->server_code;
    if (st == PDK_CLIENT_ESERVER) {
        return fail(link, st, "%s: %s", what, link->client->error);
    }
    return fail(link, st, "%s: %s: %s", what, pdk_client_status_name(st), link->client->error);
}

static void begin(pdk_dbw_link *link)
{
    link->error[0] = '\0';
    link->server_code = paddock_v1_ErrorCode_OK;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Milliseconds to deadline, at least 0 and rounded up. */
static int ms_left(int64_t deadline_ns)
{
    int64_t left = deadline_ns - now_ns();
    if (left <= 0) {
        return 0;
    }
    int64_t ms = (left + 999999) / 1000000;
    return ms > 2147483647 ? 2147483647 : (int)ms;
}

/* --- set-up ------------------------------------------------------------- */

void pdk_dbw_link_init(pdk_dbw_link *link, pdk_client *client, paddock_v1_Frame *frame,
                       uint64_t session_id, uint32_t vehicle_id)
{
    if (link == NULL) {
        return;
    }
    memset(link, 0, sizeof *link);
    link->client = client;
    link->frame = frame;
    link->session_id = session_id;
    link->vehicle_id = vehicle_id;
}

void pdk_dbw_link_set_crc(pdk_dbw_link *link, int on)
{
    link->attach_crc = on != 0;
}

void pdk_dbw_link_set_async(pdk_dbw_link *link, int on)
{
    link->async = on != 0;
}

void pdk_dbw_link_on_report(pdk_dbw_link *link, pdk_dbw_report_fn fn, void *ud)
{
    link->on_report = fn;
    link->report_ud = ud;
}

void pdk_dbw_link_on_event(pdk_dbw_link *link, pdk_dbw_event_fn fn, void *ud)
{
    link->on_event = fn;
    link->event_ud = ud;
}

void pdk_dbw_link_clear_override(pdk_dbw_link *link)
{
    for (int i = 0; i < PDK_DBW_STREAM_COUNT; i++) {
        link->clear_next[i] = i != PDK_DBW_STREAM_SYSTEM;
    }
}

void pdk_dbw_link_set_ignore(pdk_dbw_link *link, int on)
{
    link->ignore = on != 0;
}

uint8_t pdk_dbw_link_rc(const pdk_dbw_link *link, pdk_dbw_stream stream)
{
    if ((unsigned)stream >= PDK_DBW_STREAM_COUNT) {
        return 0;
    }
    return link->rc[stream];
}

void pdk_dbw_link_set_rc(pdk_dbw_link *link, pdk_dbw_stream stream, uint8_t value)
{
    if ((unsigned)stream < PDK_DBW_STREAM_COUNT) {
        link->rc[stream] = value & 15u;
    }
}

/* --- CRC-8 -------------------------------------------------------------- */

uint8_t pdk_dbw_link_crc8_bytes(const uint8_t *data, size_t n)
{
    /* SAE J1850, bit by bit: small, and fast enough for a few dozen bytes
     * at 50 Hz. */
    uint8_t crc = 0xFF;
    for (size_t i = 0; i < n; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++) {
            crc = (uint8_t)((crc & 0x80u) ? (uint8_t)(crc << 1) ^ 0x1Du : (uint8_t)(crc << 1));
        }
    }
    return (uint8_t)(crc ^ 0xFFu);
}

/* The canonical bytes, written in order; 32 bytes hold the longest (ULC:
 * kind, five floats, cmd_type, flags, rc = 24). */
typedef struct canon {
    uint8_t b[32];
    size_t n;
} canon;

static void put_u8(canon *c, uint32_t v)
{
    c->b[c->n++] = (uint8_t)(v & 0xFFu);
}

/* -1 ("keep") is 0xFF, as a signed byte. */
static void put_i8(canon *c, int32_t v)
{
    c->b[c->n++] = (uint8_t)((uint32_t)v & 0xFFu);
}

static void put_f32(canon *c, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    for (int i = 0; i < 4; i++) {
        c->b[c->n++] = (uint8_t)(u >> (8 * i));
    }
}

/* The kit's message kind numbers (server/sim/dbw.h pdk_dbw_msg_kind). */
static uint32_t kind_of(pb_size_t which_msg)
{
    switch (which_msg) {
    case paddock_v1_DbwMessage_steering_tag:
        return 1;
    case paddock_v1_DbwMessage_brake_tag:
        return 2;
    case paddock_v1_DbwMessage_throttle_tag:
        return 3;
    case paddock_v1_DbwMessage_gear_tag:
        return 4;
    case paddock_v1_DbwMessage_ulc_tag:
        return 5;
    case paddock_v1_DbwMessage_system_tag:
        return 9;
    default:
        return 0;
    }
}

/* A steering, brake or throttle command's bytes after the kind. */
static void put_chan(canon *c, float cmd, float rate_a, float rate_b, uint32_t cmd_type,
                     bool enable, bool clear, bool ignore, uint32_t rc)
{
    put_f32(c, cmd);
    put_f32(c, rate_a);
    put_f32(c, rate_b);
    put_u8(c, cmd_type);
    put_u8(c, (enable ? 1u : 0u) | (clear ? 2u : 0u) | (ignore ? 4u : 0u));
    put_u8(c, rc);
}

int pdk_dbw_link_crc8(const paddock_v1_DbwMessage *msg, uint8_t *crc)
{
    if (msg == NULL) {
        return 0;
    }
    canon c = {.n = 0};
    uint32_t kind = kind_of(msg->which_msg);
    if (kind == 0) {
        return 0;
    }
    put_u8(&c, kind);
    switch (msg->which_msg) {
    case paddock_v1_DbwMessage_steering_tag: {
        const paddock_v1_SteeringCmd *m = &msg->msg.steering;
        put_chan(&c, m->cmd, m->cmd_rate, m->cmd_accel, m->cmd_type, m->enable, m->clear, m->ignore,
                 m->rc);
        break;
    }
    case paddock_v1_DbwMessage_brake_tag: {
        const paddock_v1_BrakeCmd *m = &msg->msg.brake;
        put_chan(&c, m->cmd, m->rate_inc, m->rate_dec, m->cmd_type, m->enable, m->clear, m->ignore,
                 m->rc);
        break;
    }
    case paddock_v1_DbwMessage_throttle_tag: {
        const paddock_v1_ThrottleCmd *m = &msg->msg.throttle;
        put_chan(&c, m->cmd, m->rate_inc, m->rate_dec, m->cmd_type, m->enable, m->clear, m->ignore,
                 m->rc);
        break;
    }
    case paddock_v1_DbwMessage_gear_tag:
        put_u8(&c, (uint32_t)msg->msg.gear.cmd);
        break;
    case paddock_v1_DbwMessage_ulc_tag: {
        const paddock_v1_UlcCmd *m = &msg->msg.ulc;
        put_f32(&c, m->cmd);
        put_f32(&c, m->limit_accel);
        put_f32(&c, m->limit_decel);
        put_f32(&c, m->limit_jerk_throttle);
        put_f32(&c, m->limit_jerk_brake);
        put_u8(&c, m->cmd_type);
        put_u8(&c, (m->enable ? 1u : 0u) | (m->clear ? 2u : 0u) | (m->enable_shift ? 4u : 0u) |
                       (m->enable_shift_park ? 8u : 0u) | (m->coast_decel ? 16u : 0u));
        put_u8(&c, m->rc);
        break;
    }
    case paddock_v1_DbwMessage_system_tag: {
        const paddock_v1_SystemCmd *m = &msg->msg.system;
        put_i8(&c, (int32_t)m->cmd);
        put_i8(&c, m->which_sync_mode_set != 0 ? (int32_t)m->sync_mode_set.sync_mode : -1);
        put_i8(&c, m->which_validate_set != 0 ? (m->validate_set.validate_cmd_crc_rc ? 1 : 0) : -1);
        put_i8(&c, m->which_comms_loss_set != 0 ? (m->comms_loss_set.comms_loss_arm ? 1 : 0) : -1);
        put_u8(&c, m->rc);
        break;
    }
    default:
        return 0;
    }
    if (crc != NULL) {
        *crc = pdk_dbw_link_crc8_bytes(c.b, c.n);
    }
    return 1;
}

/* --- stamping ----------------------------------------------------------- */

int pdk_dbw_link_stream_of(pb_size_t which_msg)
{
    switch (which_msg) {
    case paddock_v1_DbwMessage_steering_tag:
        return PDK_DBW_STREAM_STEER;
    case paddock_v1_DbwMessage_brake_tag:
        return PDK_DBW_STREAM_BRAKE;
    case paddock_v1_DbwMessage_throttle_tag:
        return PDK_DBW_STREAM_THROTTLE;
    case paddock_v1_DbwMessage_ulc_tag:
        return PDK_DBW_STREAM_ULC;
    case paddock_v1_DbwMessage_system_tag:
        return PDK_DBW_STREAM_SYSTEM;
    default:
        return -1;
    }
}

/* The crc oneof of the messages that have one (its which field, its value
 * and the tag that marks it set); which is NULL for the others. */
typedef struct crc_slot {
    pb_size_t *which;
    uint32_t *value;
    pb_size_t tag;
} crc_slot;

static crc_slot crc_slot_of(paddock_v1_DbwMessage *msg)
{
    crc_slot s = {NULL, NULL, 0};
    switch (msg->which_msg) {
#define SLOT_(field, type)                                                                         \
    case paddock_v1_DbwMessage_##field##_tag:                                                      \
        s.which = &msg->msg.field.which_crc_set;                                                   \
        s.value = &msg->msg.field.crc_set.crc;                                                     \
        s.tag = paddock_v1_##type##_crc_tag;                                                       \
        break;
        SLOT_(steering, SteeringCmd)
        SLOT_(brake, BrakeCmd)
        SLOT_(throttle, ThrottleCmd)
        SLOT_(gear, GearCmd)
        SLOT_(ulc, UlcCmd)
        SLOT_(system, SystemCmd)
#undef SLOT_
    default:
        break;
    }
    return s;
}

static uint32_t *rc_field(paddock_v1_DbwMessage *msg)
{
    switch (msg->which_msg) {
    case paddock_v1_DbwMessage_steering_tag:
        return &msg->msg.steering.rc;
    case paddock_v1_DbwMessage_brake_tag:
        return &msg->msg.brake.rc;
    case paddock_v1_DbwMessage_throttle_tag:
        return &msg->msg.throttle.rc;
    case paddock_v1_DbwMessage_ulc_tag:
        return &msg->msg.ulc.rc;
    case paddock_v1_DbwMessage_system_tag:
        return &msg->msg.system.rc;
    default:
        return NULL;
    }
}

void pdk_dbw_link_stamp(pdk_dbw_link *link, paddock_v1_DbwMessage *msg)
{
    if (link == NULL || msg == NULL) {
        return;
    }
    int stream = pdk_dbw_link_stream_of(msg->which_msg);
    uint32_t *rc = rc_field(msg);
    if (stream >= 0 && rc != NULL) {
        *rc = link->rc[stream];
        link->rc[stream] = (uint8_t)((link->rc[stream] + 1u) & 15u);
    }
    crc_slot slot = crc_slot_of(msg);
    if (slot.which == NULL) {
        return;
    }
    /* The CRC covers the message without its crc field, so the field is
     * cleared first and set after. */
    *slot.which = 0;
    *slot.value = 0;
    uint8_t crc = 0;
    if (link->attach_crc && pdk_dbw_link_crc8(msg, &crc)) {
        *slot.which = slot.tag;
        *slot.value = crc;
    }
}

/* --- frames ------------------------------------------------------------- */

static const char *msg_name(pb_size_t which_msg)
{
    switch (which_msg) {
#define NAME_(x)                                                                                   \
    case paddock_v1_DbwMessage_##x##_tag:                                                          \
        return #x;
        NAME_(steering)
        NAME_(brake)
        NAME_(throttle)
        NAME_(gear)
        NAME_(ulc)
        NAME_(turn_signal)
        NAME_(misc)
        NAME_(drive_mode)
        NAME_(system)
        NAME_(button)
        NAME_(fault)
        NAME_(aw_control)
        NAME_(aw_gear)
        NAME_(aw_mode)
#undef NAME_
    default:
        return "kit message";
    }
}

/* Keeps the first deferred failure; later ones only count. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
defer(pdk_dbw_link *link, pdk_client_status st, paddock_v1_ErrorCode code, const char *fmt, ...)
{
    if (link->deferred != PDK_CLIENT_OK) {
        return;
    }
    link->deferred = st;
    link->deferred_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(link->deferred_error, sizeof link->deferred_error, fmt, ap);
    va_end(ap);
}

/* A reply to one of the asynchronous sends, or 0 when f answers none. */
static int take_pending(pdk_dbw_link *link, const paddock_v1_Frame *f)
{
    for (unsigned i = 0; i < link->n_pending; i++) {
        if (link->pending_id[i] != f->request_id) {
            continue;
        }
        const char *what = link->pending_what[i];
        memmove(&link->pending_id[i], &link->pending_id[i + 1],
                (link->n_pending - i - 1) * sizeof link->pending_id[0]);
        memmove(&link->pending_what[i], &link->pending_what[i + 1],
                (link->n_pending - i - 1) * sizeof link->pending_what[0]);
        link->n_pending--;
        if (f->which_body == paddock_v1_Frame_error_tag) {
            link->refused++;
            defer(link, PDK_CLIENT_ESERVER, f->body.error.code, "%s (request %llu): %s: %.*s", what,
                  (unsigned long long)f->request_id, pdk_client_error_code_name(f->body.error.code),
                  (int)sizeof f->body.error.message, f->body.error.message);
        } else if (f->which_body == paddock_v1_Frame_ok_tag) {
            link->acked++;
            link->last_tick = f->body.ok.tick;
        }
        return 1;
    }
    return 0;
}

/* Routes one received frame that is not the reply a call waits for. */
static void route(pdk_dbw_link *link, const paddock_v1_Frame *f)
{
    if (f->request_id != 0) {
        take_pending(link, f); /* else: the reply to a request that timed out */
        return;
    }
    switch (f->which_body) {
    case paddock_v1_Frame_dbw_report_tag:
        if (link->on_report != NULL) {
            link->on_report(&f->body.dbw_report, link->report_ud);
        }
        break;
    case paddock_v1_Frame_control_event_tag:
        if (link->on_event != NULL) {
            link->on_event(&f->body.control_event, link->event_ud);
        }
        break;
    case paddock_v1_Frame_error_tag:
        defer(link, PDK_CLIENT_ESERVER, f->body.error.code, "server: %s: %.*s",
              pdk_client_error_code_name(f->body.error.code), (int)sizeof f->body.error.message,
              f->body.error.message);
        break;
    default:
        break; /* state batches and the like belong to other code */
    }
}

static pdk_client_status check_ready(pdk_dbw_link *link, const char *what)
{
    if (link->client == NULL || link->frame == NULL) {
        return fail(link, PDK_CLIENT_EINVAL, "%s: the link has no %s (pdk_dbw_link_init)", what,
                    link->client == NULL ? "client" : "frame");
    }
    return PDK_CLIENT_OK;
}

/* Sends link->frame (its body set) and routes every frame until its reply
 * comes, which is left in link->frame. */
static pdk_client_status call(pdk_dbw_link *link, const char *what, pb_size_t reply_tag)
{
    int64_t deadline = now_ns() + (int64_t)link->client->timeout_ms * 1000000;
    link->frame->request_id = 0;
    pdk_client_status st = pdk_client_send(link->client, link->frame);
    if (st != PDK_CLIENT_OK) {
        return fail_client(link, st, what);
    }
    const uint64_t id = link->frame->request_id;
    for (;;) {
        st = pdk_client_recv(link->client, link->frame, ms_left(deadline));
        if (st == PDK_CLIENT_ETIMEOUT) {
            return fail(link, st, "%s: timeout: no reply to request %llu within %d ms", what,
                        (unsigned long long)id, link->client->timeout_ms);
        }
        if (st != PDK_CLIENT_OK) {
            return fail_client(link, st, what);
        }
        const paddock_v1_Frame *f = link->frame;
        if (f->request_id != id) {
            route(link, f);
            continue;
        }
        if (f->which_body == paddock_v1_Frame_error_tag) {
            link->server_code = f->body.error.code;
            return fail(link, PDK_CLIENT_ESERVER, "%s: %s: %.*s", what,
                        pdk_client_error_code_name(f->body.error.code),
                        (int)sizeof f->body.error.message, f->body.error.message);
        }
        if (f->which_body != reply_tag) {
            return fail(link, PDK_CLIENT_EPROTO, "%s: expected a %s reply to request %llu, got %s",
                        what, pdk_client_body_name(reply_tag), (unsigned long long)id,
                        pdk_client_body_name(f->which_body));
        }
        return PDK_CLIENT_OK;
    }
}

/* Waits until an asynchronous slot is free. */
static pdk_client_status wait_for_slot(pdk_dbw_link *link, const char *what)
{
    int64_t deadline = now_ns() + (int64_t)link->client->timeout_ms * 1000000;
    while (link->n_pending >= PDK_DBW_LINK_PENDING) {
        pdk_client_status st = pdk_client_recv(link->client, link->frame, ms_left(deadline));
        if (st == PDK_CLIENT_ETIMEOUT) {
            return fail(link, st,
                        "%s: timeout: %u kit messages still unanswered after %d ms (request "
                        "%llu the oldest)",
                        what, link->n_pending, link->client->timeout_ms,
                        (unsigned long long)link->pending_id[0]);
        }
        if (st != PDK_CLIENT_OK) {
            return fail_client(link, st, what);
        }
        route(link, link->frame);
    }
    return PDK_CLIENT_OK;
}

pdk_client_status pdk_dbw_link_send(pdk_dbw_link *link, paddock_v1_DbwMessage *msg)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (msg == NULL) {
        return fail(link, PDK_CLIENT_EINVAL, "pdk_dbw_link_send: msg is NULL");
    }
    const char *what = msg_name(msg->which_msg);
    pdk_client_status st = check_ready(link, what);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    if (link->async && link->n_pending >= PDK_DBW_LINK_PENDING) {
        st = wait_for_slot(link, what);
        if (st != PDK_CLIENT_OK) {
            return st;
        }
    }
    msg->session_id = link->session_id;
    msg->vehicle_id = link->vehicle_id;
    pdk_dbw_link_stamp(link, msg);

    paddock_v1_Frame *f = link->frame;
    memset(f, 0, sizeof *f);
    f->which_body = paddock_v1_Frame_dbw_message_tag;
    f->body.dbw_message = *msg;
    if (!link->async) {
        st = call(link, what, paddock_v1_Frame_ok_tag);
        if (st == PDK_CLIENT_OK) {
            link->acked++;
            link->last_tick = link->frame->body.ok.tick;
        } else if (st == PDK_CLIENT_ESERVER) {
            link->refused++;
        }
        return st;
    }
    st = pdk_client_send(link->client, f);
    if (st != PDK_CLIENT_OK) {
        return fail_client(link, st, what);
    }
    link->pending_id[link->n_pending] = f->request_id;
    link->pending_what[link->n_pending] = what;
    link->n_pending++;
    return PDK_CLIENT_OK;
}

pdk_client_status pdk_dbw_link_poll(pdk_dbw_link *link, int timeout_ms)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    pdk_client_status st = check_ready(link, "poll");
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    int64_t deadline = now_ns() + (int64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;
    for (;;) {
        st = pdk_client_recv(link->client, link->frame, ms_left(deadline));
        if (st == PDK_CLIENT_ETIMEOUT) {
            break;
        }
        if (st != PDK_CLIENT_OK) {
            return fail_client(link, st, "poll");
        }
        route(link, link->frame);
    }
    if (link->deferred != PDK_CLIENT_OK) {
        st = link->deferred;
        link->server_code = link->deferred_code;
        snprintf(link->error, sizeof link->error, "%s", link->deferred_error);
        link->deferred = PDK_CLIENT_OK;
        return st;
    }
    return PDK_CLIENT_OK;
}

/* --- building ----------------------------------------------------------- */

/* One check for every floating-point argument: the kit takes finite values
 * (rates and limits may be INFINITY: no limit). */
static int bad_number(pdk_dbw_link *link, const char *fn, const char *arg, double v, int inf_ok)
{
    if (isnan(v) || (!inf_ok && isinf(v))) {
        fail(link, PDK_CLIENT_EINVAL, "%s: %s is %s; it must be a finite number%s", fn, arg,
             isnan(v) ? "NaN" : "infinite", inf_ok ? " or INFINITY" : "");
        return 1;
    }
    return 0;
}

static uint8_t take_clear(pdk_dbw_link *link, pdk_dbw_stream s)
{
    uint8_t c = link->clear_next[s];
    link->clear_next[s] = 0;
    return c;
}

pdk_client_status pdk_dbw_link_steer(pdk_dbw_link *link, uint32_t cmd_type, double cmd,
                                     double rate_degps, double accel_degps2)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (bad_number(link, "steer", "cmd", cmd, 0) ||
        bad_number(link, "steer", "rate_degps", rate_degps, 1) ||
        bad_number(link, "steer", "accel_degps2", accel_degps2, 1)) {
        return PDK_CLIENT_EINVAL;
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_steering_tag;
    m.msg.steering.cmd = (float)cmd;
    m.msg.steering.cmd_rate = (float)rate_degps;
    m.msg.steering.cmd_accel = (float)accel_degps2;
    m.msg.steering.cmd_type = cmd_type;
    m.msg.steering.enable = true;
    m.msg.steering.clear = take_clear(link, PDK_DBW_STREAM_STEER);
    m.msg.steering.ignore = link->ignore;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_steer_angle(pdk_dbw_link *link, double wheel_deg, double rate_degps,
                                           double accel_degps2)
{
    return pdk_dbw_link_steer(link, PDK_DBW_STEER_ANGLE, wheel_deg, rate_degps, accel_degps2);
}

pdk_client_status pdk_dbw_link_steer_curvature(pdk_dbw_link *link, double curvature_per_m,
                                               double rate_degps, double accel_degps2)
{
    return pdk_dbw_link_steer(link, PDK_DBW_STEER_CURVATURE, curvature_per_m, rate_degps,
                              accel_degps2);
}

pdk_client_status pdk_dbw_link_steer_yaw_rate(pdk_dbw_link *link, double yaw_rate_radps,
                                              double rate_degps, double accel_degps2)
{
    return pdk_dbw_link_steer(link, PDK_DBW_STEER_YAW_RATE, yaw_rate_radps, rate_degps,
                              accel_degps2);
}

pdk_client_status pdk_dbw_link_steer_percent(pdk_dbw_link *link, double percent, double rate_degps,
                                             double accel_degps2)
{
    return pdk_dbw_link_steer(link, PDK_DBW_STEER_PERCENT, percent, rate_degps, accel_degps2);
}

/* Brake and throttle share a shape; which_msg says which body to fill. */
static pdk_client_status pedal(pdk_dbw_link *link, pb_size_t which, uint32_t cmd_type, double cmd,
                               double rate_inc, double rate_dec)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    const char *fn = which == paddock_v1_DbwMessage_brake_tag ? "brake" : "throttle";
    if (bad_number(link, fn, "cmd", cmd, 0) || bad_number(link, fn, "rate_inc", rate_inc, 1) ||
        bad_number(link, fn, "rate_dec", rate_dec, 1)) {
        return PDK_CLIENT_EINVAL;
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = which;
    if (which == paddock_v1_DbwMessage_brake_tag) {
        paddock_v1_BrakeCmd *b = &m.msg.brake;
        b->cmd = (float)cmd;
        b->rate_inc = (float)rate_inc;
        b->rate_dec = (float)rate_dec;
        b->cmd_type = cmd_type;
        b->enable = true;
        b->clear = take_clear(link, PDK_DBW_STREAM_BRAKE);
        b->ignore = link->ignore;
    } else {
        paddock_v1_ThrottleCmd *t = &m.msg.throttle;
        t->cmd = (float)cmd;
        t->rate_inc = (float)rate_inc;
        t->rate_dec = (float)rate_dec;
        t->cmd_type = cmd_type;
        t->enable = true;
        t->clear = take_clear(link, PDK_DBW_STREAM_THROTTLE);
        t->ignore = link->ignore;
    }
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_brake(pdk_dbw_link *link, uint32_t cmd_type, double cmd,
                                     double rate_inc, double rate_dec)
{
    return pedal(link, paddock_v1_DbwMessage_brake_tag, cmd_type, cmd, rate_inc, rate_dec);
}

pdk_client_status pdk_dbw_link_brake_pressure(pdk_dbw_link *link, double bar, double rate_inc,
                                              double rate_dec)
{
    return pdk_dbw_link_brake(link, PDK_DBW_BRAKE_PRESSURE, bar, rate_inc, rate_dec);
}

pdk_client_status pdk_dbw_link_brake_torque(pdk_dbw_link *link, double torque_nm, double rate_inc,
                                            double rate_dec)
{
    return pdk_dbw_link_brake(link, PDK_DBW_BRAKE_TORQUE, torque_nm, rate_inc, rate_dec);
}

pdk_client_status pdk_dbw_link_brake_decel(pdk_dbw_link *link, double decel_mps2,
                                           double jerk_inc_mps3, double jerk_dec_mps3)
{
    return pdk_dbw_link_brake(link, PDK_DBW_BRAKE_ACCEL, decel_mps2, jerk_inc_mps3, jerk_dec_mps3);
}

pdk_client_status pdk_dbw_link_brake_percent(pdk_dbw_link *link, double percent, double rate_inc,
                                             double rate_dec)
{
    return pdk_dbw_link_brake(link, PDK_DBW_BRAKE_PERCENT, percent, rate_inc, rate_dec);
}

pdk_client_status pdk_dbw_link_throttle_percent(pdk_dbw_link *link, double percent, double rate_inc,
                                                double rate_dec)
{
    return pedal(link, paddock_v1_DbwMessage_throttle_tag, PDK_DBW_THROTTLE_PERCENT, percent,
                 rate_inc, rate_dec);
}

pdk_client_status pdk_dbw_link_gear(pdk_dbw_link *link, paddock_v1_Gear gear)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_gear_tag;
    m.msg.gear.cmd = gear;
    return pdk_dbw_link_send(link, &m);
}

static pdk_client_status ulc(pdk_dbw_link *link, uint32_t cmd_type, double cmd,
                             const pdk_dbw_ulc_limits *limits)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    static const pdk_dbw_ulc_limits defaults = {0.0, 0.0, 0.0, 0.0, 0, 0, 0};
    const pdk_dbw_ulc_limits *l = limits != NULL ? limits : &defaults;
    const char *fn = cmd_type == PDK_DBW_ULC_VELOCITY ? "ulc_velocity" : "ulc_accel";
    if (bad_number(link, fn, "cmd", cmd, 0) ||
        bad_number(link, fn, "limits.accel_mps2", l->accel_mps2, 1) ||
        bad_number(link, fn, "limits.decel_mps2", l->decel_mps2, 1) ||
        bad_number(link, fn, "limits.jerk_throttle_mps3", l->jerk_throttle_mps3, 1) ||
        bad_number(link, fn, "limits.jerk_brake_mps3", l->jerk_brake_mps3, 1)) {
        return PDK_CLIENT_EINVAL;
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_ulc_tag;
    paddock_v1_UlcCmd *u = &m.msg.ulc;
    u->cmd = (float)cmd;
    u->limit_accel = (float)l->accel_mps2;
    u->limit_decel = (float)l->decel_mps2;
    u->limit_jerk_throttle = (float)l->jerk_throttle_mps3;
    u->limit_jerk_brake = (float)l->jerk_brake_mps3;
    u->cmd_type = cmd_type;
    u->enable = true;
    u->clear = take_clear(link, PDK_DBW_STREAM_ULC);
    u->enable_shift = l->enable_shift != 0;
    u->enable_shift_park = l->enable_shift_park != 0;
    u->coast_decel = l->coast_decel != 0;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_ulc_velocity(pdk_dbw_link *link, double velocity_mps,
                                            const pdk_dbw_ulc_limits *limits)
{
    return ulc(link, PDK_DBW_ULC_VELOCITY, velocity_mps, limits);
}

pdk_client_status pdk_dbw_link_ulc_accel(pdk_dbw_link *link, double accel_mps2,
                                         const pdk_dbw_ulc_limits *limits)
{
    return ulc(link, PDK_DBW_ULC_ACCEL, accel_mps2, limits);
}

pdk_client_status pdk_dbw_link_turn_signal(pdk_dbw_link *link, uint32_t signal)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_turn_signal_tag;
    m.msg.turn_signal.cmd = signal;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_parking_brake(pdk_dbw_link *link, int on)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_misc_tag;
    m.msg.misc.parking_brake = on ? paddock_v1_ParkingBrakeCmd_PARKING_BRAKE_CMD_ON
                                  : paddock_v1_ParkingBrakeCmd_PARKING_BRAKE_CMD_OFF;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_drive_mode(pdk_dbw_link *link, uint32_t mode)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_drive_mode_tag;
    m.msg.drive_mode.drive_mode = mode;
    return pdk_dbw_link_send(link, &m);
}

pdk_dbw_system_opts pdk_dbw_system_opts_default(void)
{
    pdk_dbw_system_opts o = {0, PDK_DBW_KEEP, PDK_DBW_KEEP, PDK_DBW_KEEP};
    return o;
}

pdk_client_status pdk_dbw_link_system(pdk_dbw_link *link, const pdk_dbw_system_opts *opts)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (opts == NULL) {
        return fail(link, PDK_CLIENT_EINVAL, "system: opts is NULL");
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_system_tag;
    paddock_v1_SystemCmd *s = &m.msg.system;
    s->cmd = opts->cmd;
    if (opts->sync_mode != PDK_DBW_KEEP) {
        s->which_sync_mode_set = paddock_v1_SystemCmd_sync_mode_tag;
        s->sync_mode_set.sync_mode = (uint32_t)opts->sync_mode;
    }
    if (opts->validate_crc != PDK_DBW_KEEP) {
        s->which_validate_set = paddock_v1_SystemCmd_validate_cmd_crc_rc_tag;
        s->validate_set.validate_cmd_crc_rc = opts->validate_crc != 0;
    }
    if (opts->comms_loss_arm != PDK_DBW_KEEP) {
        s->which_comms_loss_set = paddock_v1_SystemCmd_comms_loss_arm_tag;
        s->comms_loss_set.comms_loss_arm = opts->comms_loss_arm != 0;
    }
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_enable(pdk_dbw_link *link)
{
    pdk_dbw_system_opts o = pdk_dbw_system_opts_default();
    o.cmd = 1;
    return pdk_dbw_link_system(link, &o);
}

pdk_client_status pdk_dbw_link_disable(pdk_dbw_link *link)
{
    pdk_dbw_system_opts o = pdk_dbw_system_opts_default();
    o.cmd = 2;
    return pdk_dbw_link_system(link, &o);
}

pdk_client_status pdk_dbw_link_sync_mode(pdk_dbw_link *link, uint32_t mode)
{
    pdk_dbw_system_opts o = pdk_dbw_system_opts_default();
    o.sync_mode = (int32_t)mode;
    return pdk_dbw_link_system(link, &o);
}

pdk_client_status pdk_dbw_link_validate_crc(pdk_dbw_link *link, int on)
{
    pdk_dbw_system_opts o = pdk_dbw_system_opts_default();
    o.validate_crc = on != 0;
    return pdk_dbw_link_system(link, &o);
}

pdk_client_status pdk_dbw_link_arm_comms_loss(pdk_dbw_link *link, int on)
{
    pdk_dbw_system_opts o = pdk_dbw_system_opts_default();
    o.comms_loss_arm = on != 0;
    return pdk_dbw_link_system(link, &o);
}

pdk_client_status pdk_dbw_link_button(pdk_dbw_link *link, uint32_t button)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_button_tag;
    m.msg.button.button = button;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_fault(pdk_dbw_link *link, uint32_t kind, uint32_t target,
                                     double value)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (bad_number(link, "fault", "value", value, 0)) {
        return PDK_CLIENT_EINVAL;
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_fault_tag;
    m.msg.fault.kind = kind;
    m.msg.fault.target = target;
    m.msg.fault.value = value;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_aw_control(pdk_dbw_link *link, double tire_angle_rad,
                                          double tire_rate_radps, double velocity_mps,
                                          double accel_mps2, double jerk_mps3)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (bad_number(link, "aw_control", "tire_angle_rad", tire_angle_rad, 0) ||
        bad_number(link, "aw_control", "velocity_mps", velocity_mps, 0)) {
        return PDK_CLIENT_EINVAL;
    }
    /* NAN leaves a field undefined; an infinity is still refused. */
    if ((isinf(tire_rate_radps) &&
         bad_number(link, "aw_control", "tire_rate_radps", tire_rate_radps, 0)) ||
        (isinf(accel_mps2) && bad_number(link, "aw_control", "accel_mps2", accel_mps2, 0)) ||
        (isinf(jerk_mps3) && bad_number(link, "aw_control", "jerk_mps3", jerk_mps3, 0))) {
        return PDK_CLIENT_EINVAL;
    }
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_aw_control_tag;
    paddock_v1_AwControl *a = &m.msg.aw_control;
    a->steering_tire_angle = tire_angle_rad;
    a->velocity = velocity_mps;
    a->is_defined_steering_tire_rotation_rate = !isnan(tire_rate_radps);
    a->steering_tire_rotation_rate = isnan(tire_rate_radps) ? 0.0 : tire_rate_radps;
    a->is_defined_acceleration = !isnan(accel_mps2);
    a->acceleration = isnan(accel_mps2) ? 0.0 : accel_mps2;
    a->is_defined_jerk = !isnan(jerk_mps3);
    a->jerk = isnan(jerk_mps3) ? 0.0 : jerk_mps3;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_aw_gear(pdk_dbw_link *link, uint32_t command)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_aw_gear_tag;
    m.msg.aw_gear.command = command;
    return pdk_dbw_link_send(link, &m);
}

pdk_client_status pdk_dbw_link_aw_mode(pdk_dbw_link *link, uint32_t mode)
{
    paddock_v1_DbwMessage m = paddock_v1_DbwMessage_init_zero;
    m.which_msg = paddock_v1_DbwMessage_aw_mode_tag;
    m.msg.aw_mode.mode = mode;
    return pdk_dbw_link_send(link, &m);
}

/* --- lease and reports -------------------------------------------------- */

static pdk_client_status lease(pdk_dbw_link *link, paddock_v1_ControlSource source, bool release,
                               paddock_v1_ControlLeaseReply *reply)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    const char *what = release ? "release lease" : "take lease";
    pdk_client_status st = check_ready(link, what);
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    paddock_v1_Frame *f = link->frame;
    memset(f, 0, sizeof *f);
    f->which_body = paddock_v1_Frame_control_lease_tag;
    f->body.control_lease.session_id = link->session_id;
    f->body.control_lease.vehicle_id = link->vehicle_id;
    f->body.control_lease.source = source;
    f->body.control_lease.release = release;
    st = call(link, what, paddock_v1_Frame_control_lease_reply_tag);
    if (st == PDK_CLIENT_OK && reply != NULL) {
        *reply = link->frame->body.control_lease_reply;
    }
    return st;
}

pdk_client_status pdk_dbw_link_take_lease(pdk_dbw_link *link, paddock_v1_ControlSource source,
                                          paddock_v1_ControlLeaseReply *reply)
{
    return lease(link, source, false, reply);
}

pdk_client_status pdk_dbw_link_release_lease(pdk_dbw_link *link, paddock_v1_ControlSource source)
{
    return lease(link, source, true, NULL);
}

#define MAX_KINDS                                                                                  \
    (sizeof(((paddock_v1_DbwSubscribe *)0)->reports) / sizeof(paddock_v1_DbwReportKind))

pdk_client_status pdk_dbw_link_subscribe(pdk_dbw_link *link, const paddock_v1_DbwReportKind *kinds,
                                         size_t n)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    pdk_client_status st = check_ready(link, "subscribe");
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    if (n > MAX_KINDS || (n > 0 && kinds == NULL)) {
        return fail(link, PDK_CLIENT_EINVAL, "subscribe: %zu report kinds%s (at most %zu)", n,
                    kinds == NULL ? " and no list" : "", (size_t)MAX_KINDS);
    }
    if (link->subscription_id != 0) {
        st = pdk_dbw_link_unsubscribe(link);
        if (st != PDK_CLIENT_OK) {
            return st;
        }
    }
    paddock_v1_Frame *f = link->frame;
    memset(f, 0, sizeof *f);
    f->which_body = paddock_v1_Frame_dbw_subscribe_tag;
    f->body.dbw_subscribe.session_id = link->session_id;
    f->body.dbw_subscribe.vehicle_id = link->vehicle_id;
    for (size_t i = 0; i < n; i++) {
        f->body.dbw_subscribe.reports[i] = kinds[i];
    }
    f->body.dbw_subscribe.reports_count = (pb_size_t)n;
    st = call(link, "subscribe", paddock_v1_Frame_subscribed_tag);
    if (st == PDK_CLIENT_OK) {
        link->subscription_id = link->frame->body.subscribed.subscription_id;
    }
    return st;
}

pdk_client_status pdk_dbw_link_unsubscribe(pdk_dbw_link *link)
{
    if (link == NULL) {
        return PDK_CLIENT_EINVAL;
    }
    begin(link);
    if (link->subscription_id == 0) {
        return PDK_CLIENT_OK;
    }
    pdk_client_status st = check_ready(link, "unsubscribe");
    if (st != PDK_CLIENT_OK) {
        return st;
    }
    paddock_v1_Frame *f = link->frame;
    memset(f, 0, sizeof *f);
    f->which_body = paddock_v1_Frame_unsubscribe_tag;
    f->body.unsubscribe.subscription_id = link->subscription_id;
    st = call(link, "unsubscribe", paddock_v1_Frame_ok_tag);
    if (st == PDK_CLIENT_OK || st == PDK_CLIENT_ESERVER) {
        link->subscription_id = 0; /* refused: the server no longer has it */
    }
    return st;
}

/* --- names -------------------------------------------------------------- */

static const char *const REPORT_KIND_NAMES[] = {
    "steering",         "brake", "throttle", "gear",      "system",    "ulc", "wheel_speeds",
    "vehicle_velocity", "imu",   "gnss",     "secondary", "aw_status",
};
#define N_REPORT_KINDS (sizeof REPORT_KIND_NAMES / sizeof REPORT_KIND_NAMES[0])

const char *pdk_dbw_link_report_kind_name(paddock_v1_DbwReportKind kind)
{
    if ((unsigned)kind >= N_REPORT_KINDS) {
        return "unknown";
    }
    return REPORT_KIND_NAMES[kind];
}

int pdk_dbw_link_report_kind_parse(const char *name, paddock_v1_DbwReportKind *kind)
{
    if (name == NULL) {
        return -1;
    }
    for (size_t i = 0; i < N_REPORT_KINDS; i++) {
        if (strcmp(name, REPORT_KIND_NAMES[i]) == 0) {
            if (kind != NULL) {
                *kind = (paddock_v1_DbwReportKind)i;
            }
            return 0;
        }
    }
    return -1;
}

int pdk_dbw_link_report_kind_of(const paddock_v1_DbwReport *report)
{
    if (report == NULL) {
        return -1;
    }
    /* The oneof's field numbers are the kinds' numbers plus 10. */
    int k = (int)report->which_report - (int)paddock_v1_DbwReport_steering_tag;
    return k >= 0 && (size_t)k < N_REPORT_KINDS ? k : -1;
}

static const char *const FAULT_NAMES[PDK_DBW_FAULT_KIND_COUNT] = {
    "clear",        "stuck",       "saturated",    "latency",
    "channel",      "report_drop", "report_delay", "report_missing",
    "sensor_noise", "sensor_bias", "power_cycle",  "module_restart",
};

const char *pdk_dbw_link_fault_name(uint32_t kind)
{
    return kind < PDK_DBW_FAULT_KIND_COUNT ? FAULT_NAMES[kind] : "unknown";
}

int pdk_dbw_link_fault_parse(const char *name, uint32_t *kind)
{
    if (name == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < PDK_DBW_FAULT_KIND_COUNT; i++) {
        if (strcmp(name, FAULT_NAMES[i]) == 0) {
            if (kind != NULL) {
                *kind = i;
            }
            return 0;
        }
    }
    return -1;
}

const char *pdk_dbw_link_state_name(uint32_t state)
{
    switch (state) {
    case PDK_DBW_STATE_MANUAL:
        return "MANUAL";
    case PDK_DBW_STATE_READY:
        return "READY";
    case PDK_DBW_STATE_ACTIVE:
        return "ACTIVE";
    case PDK_DBW_STATE_FAULT:
        return "FAULT";
    default:
        return "UNKNOWN";
    }
}
