/* The names `paddock dbw` reads and the report lines it writes (see
 * dbw_rows.h). The kit's numbers and report kinds come from the client's
 * DBW module (clients/c/paddock_dbw.h). */
#include "dbw_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "paddock_dbw.h"

/* A name as the user may write it: either case, '-' for '_'. */
static void normalise(const char *text, char *out, size_t out_len)
{
    size_t i = 0;
    for (; text[i] != '\0' && i + 1 < out_len; i++) {
        char ch = text[i];
        out[i] = ch == '-' ? '_' : (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    out[i] = '\0';
}

static int is_number(const char *text)
{
    return text[0] != '\0' && strspn(text, "0123456789") == strlen(text);
}

/* A whole number 0..UINT32_MAX (text is digits only). */
static int parse_u32(const char *arg, const char *text, uint32_t *out, char *err, size_t err_len)
{
    unsigned long long v = strlen(text) <= 10 ? strtoull(text, NULL, 10) : UINT64_MAX;
    if (v > UINT32_MAX) {
        snprintf(err, err_len, "%s: %s is above %lu", arg, text, (unsigned long)UINT32_MAX);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* Looks name up in a table of n names; -1 when absent. */
static int lookup(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (names[i] != NULL && strcmp(name, names[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

int pdk_cli_parse_dbw_kinds(const char *arg, const char *text, paddock_v1_DbwReportKind *kinds,
                            size_t cap, size_t *n, char *err, size_t err_len)
{
    *n = 0;
    if (strcmp(text, "all") == 0) {
        return 0;
    }
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char raw[64];
        char name[64];
        snprintf(raw, sizeof raw, "%.*s", (int)(len < sizeof raw ? len : sizeof raw - 1), p);
        normalise(raw, name, sizeof name);
        paddock_v1_DbwReportKind k;
        if (len == 0 || pdk_dbw_link_report_kind_parse(name, &k) != 0) {
            snprintf(err, err_len,
                     "%s: '%s' is not a report kind (steering, brake, throttle, gear, system, "
                     "ulc, wheel_speeds, vehicle_velocity, imu, gnss, secondary, aw_status, or "
                     "all)",
                     arg, raw);
            return -1;
        }
        for (size_t i = 0; i < *n; i++) {
            if (kinds[i] == k) {
                snprintf(err, err_len, "%s: '%s' is listed twice", arg, name);
                return -1;
            }
        }
        if (*n >= cap) {
            snprintf(err, err_len, "%s: more than %zu report kinds", arg, cap);
            return -1;
        }
        kinds[(*n)++] = k;
        if (comma == NULL) {
            return 0;
        }
        p = comma + 1;
    }
}

int pdk_cli_parse_fault_kind(const char *arg, const char *text, uint32_t *kind, char *err,
                             size_t err_len)
{
    if (is_number(text)) {
        return parse_u32(arg, text, kind, err, err_len);
    }
    char name[64];
    normalise(text, name, sizeof name);
    if (pdk_dbw_link_fault_parse(name, kind) != 0) {
        snprintf(err, err_len,
                 "%s: '%s' is not a fault kind (clear, stuck, saturated, latency, channel, "
                 "report_drop, report_delay, report_missing, sensor_noise, sensor_bias, "
                 "power_cycle, module_restart, or a number)",
                 arg, text);
        return -1;
    }
    return 0;
}

static const char *const CHANNEL_NAMES[] = {"steer", "brake", "throttle", "gear"};
static const char *const SENSOR_NAMES[] = {"accel_x", "accel_y", "accel_z", "gyro_x",
                                           "gyro_y",  "gyro_z",  "gnss"};

int pdk_cli_parse_fault_target(const char *arg, uint32_t kind, const char *text, uint32_t *target,
                               char *err, size_t err_len)
{
    if (is_number(text)) {
        return parse_u32(arg, text, target, err, err_len);
    }
    char name[64];
    normalise(text, name, sizeof name);
    int found = -1;
    const char *expected = NULL;
    switch (kind) {
    case PDK_DBW_FAULT_REPORT_DROP:
    case PDK_DBW_FAULT_REPORT_DELAY:
    case PDK_DBW_FAULT_REPORT_MISSING: {
        paddock_v1_DbwReportKind k;
        if (pdk_dbw_link_report_kind_parse(name, &k) == 0) {
            found = (int)k;
        }
        expected = "a report kind (steering, brake, ..., aw_status) or a number";
        break;
    }
    case PDK_DBW_FAULT_SENSOR_NOISE:
    case PDK_DBW_FAULT_SENSOR_BIAS:
        found = lookup(name, SENSOR_NAMES, N_OF(SENSOR_NAMES));
        expected = "a sensor axis (accel_x, accel_y, accel_z, gyro_x, gyro_y, gyro_z, gnss) or a "
                   "number";
        break;
    default:
        found = lookup(strcmp(name, "steering") == 0 ? "steer" : name, CHANNEL_NAMES,
                       N_OF(CHANNEL_NAMES));
        expected = "a channel (steer, brake, throttle, gear) or a number";
        break;
    }
    if (found < 0) {
        snprintf(err, err_len, "%s: '%s' is not a target of a %s fault: give %s", arg, text,
                 pdk_dbw_link_fault_name(kind), expected);
        return -1;
    }
    *target = (uint32_t)found;
    return 0;
}

static const char *const BUTTON_NAMES[] = {NULL, "enable", "disable", "external_brake",
                                           "external_brake_release"};

int pdk_cli_parse_dbw_button(const char *arg, const char *text, uint32_t *button, char *err,
                             size_t err_len)
{
    char name[64];
    normalise(text, name, sizeof name);
    int b = lookup(name, BUTTON_NAMES, N_OF(BUTTON_NAMES));
    if (b < 0) {
        snprintf(err, err_len,
                 "%s: '%s' is not a button (enable, disable, external_brake, "
                 "external_brake_release)",
                 arg, text);
        return -1;
    }
    *button = (uint32_t)b;
    return 0;
}

static const char *const SYNC_NAMES[] = {"none", "disengages", "all_or_none",
                                         "all_or_none_with_btn"};

int pdk_cli_parse_sync_mode(const char *arg, const char *text, uint32_t *mode, char *err,
                            size_t err_len)
{
    char name[64];
    normalise(text, name, sizeof name);
    int m = lookup(name, SYNC_NAMES, N_OF(SYNC_NAMES));
    if (m < 0) {
        snprintf(err, err_len,
                 "%s: '%s' is not a sync mode (none, disengages, all_or_none, "
                 "all_or_none_with_btn)",
                 arg, text);
        return -1;
    }
    *mode = (uint32_t)m;
    return 0;
}

int pdk_cli_parse_on_off(const char *arg, const char *text, int *on, char *err, size_t err_len)
{
    if (strcmp(text, "on") == 0 || strcmp(text, "1") == 0) {
        *on = 1;
        return 0;
    }
    if (strcmp(text, "off") == 0 || strcmp(text, "0") == 0) {
        *on = 0;
        return 0;
    }
    snprintf(err, err_len, "%s: '%s' is neither on nor off", arg, text);
    return -1;
}

/* --- report lines ------------------------------------------------------- */

#define DBW_HDR "%10s %10s %5s %-16s %s"
#define DBW_ROW "%10llu %10.3f %5u %-16s "

void pdk_cli_format_dbw_header(char *out, size_t out_len)
{
    snprintf(out, out_len, DBW_HDR, "TICK", "TIME_S", "ID", "KIND", "FIELDS");
}

/* Appends to a line, never past its end. */
typedef struct line {
    char *buf;
    size_t cap;
    size_t len;
} line;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add(line *l, const char *fmt, ...)
{
    if (l->len + 1 >= l->cap) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
    va_end(ap);
    if (n > 0) {
        l->len += (size_t)n < l->cap - l->len ? (size_t)n : l->cap - l->len - 1;
    }
}

/* " flags=a,b" for the set ones of n named booleans, " flags=-" for none. */
static void add_flags(line *l, const char *const *names, const bool *values, size_t n)
{
    int any = 0;
    add(l, " flags=");
    for (size_t i = 0; i < n; i++) {
        if (values[i]) {
            add(l, "%s%s", any ? "," : "", names[i]);
            any = 1;
        }
    }
    if (!any) {
        add(l, "-");
    }
}

static void add_status(line *l, const paddock_v1_DbwChannelStatus *s)
{
    static const char *const names[] = {"ready",          "enabled",          "override_active",
                                        "override_other", "override_latched", "timeout",
                                        "fault",          "bad_crc",          "bad_rc",
                                        "limiting_value", "limiting_rate",    "external_control"};
    const bool v[] = {s->ready,          s->enabled,          s->override_active,
                      s->override_other, s->override_latched, s->timeout,
                      s->fault,          s->bad_crc,          s->bad_rc,
                      s->limiting_value, s->limiting_rate,    s->external_control};
    add_flags(l, names, v, N_OF(names));
}

static const char *source_name(paddock_v1_ControlSource s)
{
    switch (s) {
    case paddock_v1_ControlSource_CONTROL_SOURCE_NONE:
        return "none";
    case paddock_v1_ControlSource_CONTROL_SOURCE_DRIVER:
        return "driver";
    case paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY:
        return "autonomy";
    case paddock_v1_ControlSource_CONTROL_SOURCE_AI:
        return "ai";
    }
    return "unknown";
}

static void add_system(line *l, const paddock_v1_SystemReport *s)
{
    add(l, "state=%s sync=%s disengage=%s(0x%02X) not_ready=%s(0x%02X) source=%s",
        pdk_dbw_link_state_name(s->state),
        s->system_sync_mode < N_OF(SYNC_NAMES) ? SYNC_NAMES[s->system_sync_mode] : "unknown",
        s->reason_disengage_str[0] != '\0' ? s->reason_disengage_str : "-",
        (unsigned)s->reason_disengage,
        s->reason_not_ready_str[0] != '\0' ? s->reason_not_ready_str : "-",
        (unsigned)s->reason_not_ready, source_name(s->active_source));
    static const char *const names[] = {"ready",      "enabled",     "override", "fault",
                                        "lockout",    "bad_crc",     "bad_rc",   "inhibit",
                                        "btn_enable", "btn_disable", "crc_check"};
    const bool v[] = {s->ready,
                      s->enabled,
                      s->override,
                      s->fault,
                      s->lockout,
                      s->bad_crc,
                      s->bad_rc,
                      s->inhibit,
                      s->btn_enable,
                      s->btn_disable,
                      s->validate_cmd_crc_rc};
    add_flags(l, names, v, N_OF(names));
}

static void add_ulc(line *l, const paddock_v1_UlcReport *u)
{
    add(l, "type=%u vel_ref=%.3f vel_meas=%.3f accel_ref=%.3f accel_meas=%.3f",
        (unsigned)u->cmd_type, (double)u->vel_ref, (double)u->vel_meas, (double)u->accel_ref,
        (double)u->accel_meas);
    static const char *const names[] = {
        "ready",   "enabled", "override_active", "override_latched", "preempted",
        "timeout", "bad_crc", "bad_rc",          "coast_decel"};
    const bool v[] = {u->ready,   u->enabled, u->override_active, u->override_latched, u->preempted,
                      u->timeout, u->bad_crc, u->bad_rc,          u->coast_decel};
    add_flags(l, names, v, N_OF(names));
}

static void add_gear(line *l, const paddock_v1_GearReport *g)
{
    static const char *const rejects[] = {
        "none",     "fault",      "unsupported",   "shift_in_progress",
        "override", "brake_hold", "vehicle_speed", "vehicle"};
    add(l, "gear=%c cmd=%c driver=%c reject=%s gear_num=%u", pdk_cli_gear_letter(g->gear),
        pdk_cli_gear_letter(g->cmd), pdk_cli_gear_letter(g->driver),
        (unsigned)g->reject < N_OF(rejects) ? rejects[g->reject] : "unknown",
        (unsigned)g->gear_num);
    static const char *const names[] = {"ready", "override_active", "fault", "bad_crc"};
    const bool v[] = {g->ready, g->override_active, g->fault, g->bad_crc};
    add_flags(l, names, v, N_OF(names));
}

static void add_secondary(line *l, const paddock_v1_DbwSecondary *s)
{
    add(l,
        "steer_limit_deg=%.1f steer_limit_rate_dps=%.1f brake_limit_bar=%.1f "
        "throttle_limit_pct=%.1f brake_available_s=%.2f src=%d/%d/%d/%d turn=%u "
        "parking_brake=%u drive_mode=%u",
        (double)s->steer_limit_value, (double)s->steer_limit_rate, (double)s->brake_limit_value,
        (double)s->throttle_limit_value, (double)s->brake_available_duration, (int)s->steer_cmd_src,
        (int)s->brake_cmd_src, (int)s->throttle_cmd_src, (int)s->gear_cmd_src,
        (unsigned)s->turn_signal, (unsigned)s->parking_brake, (unsigned)s->drive_mode);
    static const char *const names[] = {"steer_degraded",   "brake_degraded",  "throttle_degraded",
                                        "comms_loss_armed", "external_button", "req_shift_park",
                                        "req_park_brake"};
    const bool v[] = {s->steer_degraded,         s->brake_degraded,        s->throttle_degraded,
                      s->brake_comms_loss_armed, s->brake_external_button, s->brake_req_shift_park,
                      s->brake_req_park_brake};
    add_flags(l, names, v, N_OF(names));
}

void pdk_cli_format_dbw_report(char *out, size_t out_len, const paddock_v1_DbwReport *r)
{
    line l = {out, out_len, 0};
    if (out_len == 0) {
        return;
    }
    out[0] = '\0';
    int kind = pdk_dbw_link_report_kind_of(r);
    add(&l, DBW_ROW, (unsigned long long)r->tick, r->sim_time_s, (unsigned)r->vehicle_id,
        kind >= 0 ? pdk_dbw_link_report_kind_name((paddock_v1_DbwReportKind)kind) : "-");
    switch (r->which_report) {
    case paddock_v1_DbwReport_steering_tag: {
        const paddock_v1_SteeringReport *s = &r->report.steering;
        add(&l, "angle_deg=%.2f cmd=%.2f type=%u road_deg=%.3f", (double)s->steering_wheel_angle,
            (double)s->cmd, (unsigned)s->cmd_type, (double)s->road_wheel_angle);
        add_status(&l, &s->status);
        break;
    }
    case paddock_v1_DbwReport_brake_tag: {
        const paddock_v1_BrakeReport *b = &r->report.brake;
        add(&l,
            "type=%u bar_in=%.2f bar_cmd=%.2f bar_out=%.2f torque_out_nm=%.0f accel_cmd=%.3f "
            "accel_out=%.3f pct_out=%.1f",
            (unsigned)b->cmd_type, (double)b->pressure_input, (double)b->pressure_cmd,
            (double)b->pressure_output, (double)b->torque_output, (double)b->accel_cmd,
            (double)b->accel_output, (double)b->percent_output);
        add_status(&l, &b->status);
        break;
    }
    case paddock_v1_DbwReport_throttle_tag: {
        const paddock_v1_ThrottleReport *t = &r->report.throttle;
        add(&l, "type=%u pct_in=%.1f pct_cmd=%.1f pct_out=%.1f", (unsigned)t->cmd_type,
            (double)t->percent_input, (double)t->percent_cmd, (double)t->percent_output);
        add_status(&l, &t->status);
        break;
    }
    case paddock_v1_DbwReport_gear_tag:
        add_gear(&l, &r->report.gear);
        break;
    case paddock_v1_DbwReport_system_tag:
        add_system(&l, &r->report.system);
        break;
    case paddock_v1_DbwReport_ulc_tag:
        add_ulc(&l, &r->report.ulc);
        break;
    case paddock_v1_DbwReport_wheel_speeds_tag: {
        const paddock_v1_WheelSpeeds *w = &r->report.wheel_speeds;
        add(&l, "fl_radps=%.2f fr_radps=%.2f rl_radps=%.2f rr_radps=%.2f", (double)w->front_left,
            (double)w->front_right, (double)w->rear_left, (double)w->rear_right);
        break;
    }
    case paddock_v1_DbwReport_vehicle_velocity_tag: {
        const paddock_v1_VehicleVelocity *v = &r->report.vehicle_velocity;
        add(&l, "brake_mps=%.3f propulsion_mps=%.3f dir_src=%u", (double)v->vehicle_velocity_brake,
            (double)v->vehicle_velocity_propulsion, (unsigned)v->dir_src);
        break;
    }
    case paddock_v1_DbwReport_imu_tag: {
        const paddock_v1_ImuData *i = &r->report.imu;
        add(&l, "ax=%.3f ay=%.3f az=%.3f gx=%.4f gy=%.4f gz=%.4f", i->accel_x, i->accel_y,
            i->accel_z, i->gyro_x, i->gyro_y, i->gyro_z);
        break;
    }
    case paddock_v1_DbwReport_gnss_tag: {
        const paddock_v1_GnssFix *g = &r->report.gnss;
        add(&l, "valid=%d x_m=%.3f y_m=%.3f", g->valid ? 1 : 0, g->x_m, g->y_m);
        break;
    }
    case paddock_v1_DbwReport_secondary_tag:
        add_secondary(&l, &r->report.secondary);
        break;
    case paddock_v1_DbwReport_aw_status_tag: {
        const paddock_v1_AwStatus *a = &r->report.aw_status;
        add(&l, "mode=%u vx_mps=%.3f vy_mps=%.3f heading_rate=%.4f tire_angle_rad=%.4f gear=%u",
            (unsigned)a->control_mode, a->longitudinal_velocity, a->lateral_velocity,
            a->heading_rate, a->steering_tire_angle, (unsigned)a->gear);
        break;
    }
    default:
        add(&l, "(empty)");
        break;
    }
}
