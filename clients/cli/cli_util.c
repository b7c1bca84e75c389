/* The pure helpers of the paddock CLI: option and value parsing, output
 * rows, and drive-script to protocol translation (see cli_util.h). */
#include "cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pdk_cli_exit_for(pdk_client_status st)
{
    switch (st) {
    case PDK_CLIENT_OK:
        return PDK_CLI_EXIT_OK;
    case PDK_CLIENT_EIO:
    case PDK_CLIENT_ETIMEOUT:
    case PDK_CLIENT_EPROTO:
        return PDK_CLI_EXIT_LOST;
    case PDK_CLIENT_EADDR:
    case PDK_CLIENT_ECONNECT:
    case PDK_CLIENT_ETLS:
        return PDK_CLI_EXIT_CONNECT;
    case PDK_CLIENT_ESERVER:
    case PDK_CLIENT_EENCODE:
    case PDK_CLIENT_EINVAL:
        break;
    }
    return PDK_CLI_EXIT_FAILED;
}

/* --- options ------------------------------------------------------------ */

pdk_cli_args pdk_cli_args_begin(int argc, char **argv, int first, const pdk_cli_opt *opts,
                                size_t n_opts)
{
    pdk_cli_args a = {.argc = argc, .argv = argv, .next = first, .opts = opts, .n_opts = n_opts};
    return a;
}

static const pdk_cli_opt *find_opt(const pdk_cli_args *a, const char *name, size_t name_len)
{
    for (size_t i = 0; i < a->n_opts; i++) {
        if (strlen(a->opts[i].name) == name_len && memcmp(a->opts[i].name, name, name_len) == 0) {
            return &a->opts[i];
        }
    }
    return NULL;
}

int pdk_cli_args_next(pdk_cli_args *a, const char **value, char *err, size_t err_len)
{
    *value = NULL;
    if (a->next >= a->argc) {
        return PDK_CLI_ARGS_END;
    }
    const char *arg = a->argv[a->next];
    if (strcmp(arg, "--") == 0) {
        a->next++;
        return PDK_CLI_ARGS_END;
    }
    if (strcmp(arg, "-h") == 0) {
        const pdk_cli_opt *help = find_opt(a, "help", 4);
        if (help != NULL) {
            a->next++;
            return help->id;
        }
    }
    if (arg[0] != '-' || arg[1] == '\0') {
        return PDK_CLI_ARGS_END; /* an operand, or "-" */
    }
    if (arg[1] != '-') {
        snprintf(err, err_len, "unknown option '%s' (options are long, as --name)", arg);
        return PDK_CLI_ARGS_ERROR;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t name_len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    const pdk_cli_opt *opt = find_opt(a, name, name_len);
    if (opt == NULL) {
        snprintf(err, err_len, "unknown option '--%.*s'", (int)name_len, name);
        return PDK_CLI_ARGS_ERROR;
    }
    a->next++;
    if (!opt->takes_value) {
        if (eq != NULL) {
            snprintf(err, err_len, "option '--%s' takes no value", opt->name);
            return PDK_CLI_ARGS_ERROR;
        }
        return opt->id;
    }
    if (eq != NULL) {
        *value = eq + 1;
        return opt->id;
    }
    if (a->next >= a->argc || strncmp(a->argv[a->next], "--", 2) == 0) {
        snprintf(err, err_len, "option '--%s' needs a value", opt->name);
        return PDK_CLI_ARGS_ERROR;
    }
    *value = a->argv[a->next++];
    return opt->id;
}

/* --- values ------------------------------------------------------------- */

int pdk_cli_parse_names(const char *opt, const char *text, char *names, size_t size, size_t max,
                        pb_size_t *count, char *err, size_t err_len)
{
    for (const char *p = text; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 0 || len >= size) {
            snprintf(err, err_len, "--%s: '%s' holds an empty or too long name", opt, text);
            return -1;
        }
        if (*count >= max) {
            snprintf(err, err_len, "--%s: at most %zu %s", opt, max, opt);
            return -1;
        }
        char *name = names + (size_t)*count * size;
        memcpy(name, p, len);
        name[len] = '\0';
        (*count)++;
        p += len + (p[len] == ',');
    }
    return 0;
}

int pdk_cli_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                      char *err, size_t err_len)
{
    size_t digits = strspn(text, "0123456789");
    if (digits == 0 || text[digits] != '\0') {
        snprintf(err, err_len, "--%s: '%s' is not a whole number", opt, text);
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v < min || v > max) {
        snprintf(err, err_len, "--%s: %s is outside %llu..%llu", opt, text, (unsigned long long)min,
                 (unsigned long long)max);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int pdk_cli_parse_double(const char *opt, const char *text, double min, double max, double *out,
                         char *err, size_t err_len)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (text[0] == '\0' || isspace((unsigned char)text[0]) || end == text || *end != '\0') {
        snprintf(err, err_len, "--%s: '%s' is not a number", opt, text);
        return -1;
    }
    if (!isfinite(v) || errno == ERANGE) {
        snprintf(err, err_len, "--%s: '%s' is not a finite number", opt, text);
        return -1;
    }
    if (v < min || v > max) {
        snprintf(err, err_len, "--%s: %s is outside %g..%g", opt, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int pdk_cli_copy_text(const char *opt, const char *text, char *dst, size_t dst_size, char *err,
                      size_t err_len)
{
    size_t n = strlen(text);
    if (n >= dst_size) {
        snprintf(err, err_len, "--%s: %zu bytes is longer than the %zu the protocol allows", opt, n,
                 dst_size - 1);
        return -1;
    }
    memcpy(dst, text, n + 1);
    return 0;
}

static const struct {
    char letter;
    paddock_v1_Gear gear;
} GEARS[] = {
    {'P', paddock_v1_Gear_GEAR_PARK},    {'R', paddock_v1_Gear_GEAR_REVERSE},
    {'N', paddock_v1_Gear_GEAR_NEUTRAL}, {'D', paddock_v1_Gear_GEAR_DRIVE},
    {'L', paddock_v1_Gear_GEAR_LOW},
};

int pdk_cli_parse_gear(const char *opt, const char *text, paddock_v1_Gear *out, char *err,
                       size_t err_len)
{
    if (text[0] != '\0' && text[1] == '\0') {
        char up = text[0] >= 'a' && text[0] <= 'z' ? (char)(text[0] - 'a' + 'A') : text[0];
        for (size_t i = 0; i < sizeof GEARS / sizeof GEARS[0]; i++) {
            if (GEARS[i].letter == up) {
                *out = GEARS[i].gear;
                return 0;
            }
        }
    }
    snprintf(err, err_len, "--%s: '%s' is not a gear (one of P R N D L)", opt, text);
    return -1;
}

char pdk_cli_gear_letter(paddock_v1_Gear gear)
{
    if (gear == paddock_v1_Gear_GEAR_NONE) {
        return '-';
    }
    for (size_t i = 0; i < sizeof GEARS / sizeof GEARS[0]; i++) {
        if (GEARS[i].gear == gear) {
            return GEARS[i].letter;
        }
    }
    return '?';
}

static const char *const WHEEL_NAMES[4] = {"FL", "FR", "RL", "RR"};

int pdk_cli_parse_wheels(const char *opt, const char *text, uint32_t *mask, char *err,
                         size_t err_len)
{
    if (strcmp(text, "all") == 0 || strcmp(text, "ALL") == 0) {
        *mask = 15;
        return 0;
    }
    uint32_t m = 0;
    const char *p = text;
    for (;;) {
        size_t n = strcspn(p, ",");
        int wheel = -1;
        for (int i = 0; i < 4 && n == 2; i++) {
            if (toupper((unsigned char)p[0]) == WHEEL_NAMES[i][0] &&
                toupper((unsigned char)p[1]) == WHEEL_NAMES[i][1]) {
                wheel = i;
            }
        }
        if (wheel < 0) {
            snprintf(err, err_len,
                     "--%s: '%.*s' is not a wheel (FL, FR, RL or RR, comma-separated, or all)", opt,
                     (int)(n < 32 ? n : 32), p);
            return -1;
        }
        if (m & (1u << wheel)) {
            snprintf(err, err_len, "--%s: %s is listed twice", opt, WHEEL_NAMES[wheel]);
            return -1;
        }
        m |= 1u << wheel;
        if (p[n] == '\0') {
            break;
        }
        p += n + 1;
    }
    *mask = m;
    return 0;
}

void pdk_cli_format_wheels(uint32_t mask, char *out, size_t out_len)
{
    if (out_len == 0) {
        return;
    }
    out[0] = '\0';
    if ((mask & 15u) == 0) {
        snprintf(out, out_len, "-");
        return;
    }
    if ((mask & 15u) == 15u) {
        snprintf(out, out_len, "all");
        return;
    }
    size_t used = 0;
    for (int i = 0; i < 4; i++) {
        if ((mask & (1u << i)) == 0) {
            continue;
        }
        int n = snprintf(out + used, out_len - used, "%s%s", used > 0 ? "," : "", WHEEL_NAMES[i]);
        if (n < 0 || (size_t)n >= out_len - used) {
            return;
        }
        used += (size_t)n;
    }
}

int pdk_cli_parse_tyre_condition(const char *opt, const char *text, paddock_v1_TyreCondition *out,
                                 char *err, size_t err_len)
{
    static const struct {
        const char *name;
        paddock_v1_TyreCondition condition;
    } CONDITIONS[] = {
        {"intact", paddock_v1_TyreCondition_TYRE_CONDITION_INTACT},
        {"flat", paddock_v1_TyreCondition_TYRE_CONDITION_FLAT},
        {"rim", paddock_v1_TyreCondition_TYRE_CONDITION_RIM},
        {"detached", paddock_v1_TyreCondition_TYRE_CONDITION_DETACHED},
    };
    for (size_t i = 0; i < sizeof CONDITIONS / sizeof CONDITIONS[0]; i++) {
        if (strcmp(text, CONDITIONS[i].name) == 0) {
            *out = CONDITIONS[i].condition;
            return 0;
        }
    }
    snprintf(err, err_len, "--%s: '%s' is not a tyre condition (intact, flat, rim or detached)",
             opt, text);
    return -1;
}

int pdk_cli_parse_timing(const char *opt, const char *text, paddock_v1_TimingMode *out, char *err,
                         size_t err_len)
{
    if (strcmp(text, "realtime") == 0) {
        *out = paddock_v1_TimingMode_TIMING_MODE_REALTIME;
        return 0;
    }
    if (strcmp(text, "fast") == 0) {
        *out = paddock_v1_TimingMode_TIMING_MODE_FAST;
        return 0;
    }
    if (strcmp(text, "lockstep") == 0) {
        *out = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
        return 0;
    }
    snprintf(err, err_len, "--%s: '%s' is not a timing mode (realtime, fast or lockstep)", opt,
             text);
    return -1;
}

const char *pdk_cli_timing_name(paddock_v1_TimingMode mode)
{
    switch (mode) {
    case paddock_v1_TimingMode_TIMING_MODE_UNSPECIFIED:
        return "default";
    case paddock_v1_TimingMode_TIMING_MODE_REALTIME:
        return "realtime";
    case paddock_v1_TimingMode_TIMING_MODE_FAST:
        return "fast";
    case paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP:
        return "lockstep";
    }
    return "unknown";
}

double pdk_cli_wrap_deg(double deg)
{
    double w = fmod(deg, 360.0);
    if (w > 180.0) {
        w -= 360.0;
    } else if (w <= -180.0) {
        w += 360.0;
    }
    return w;
}

/* --- output rows -------------------------------------------------------- */

static const double RAD_TO_DEG = 57.29577951308232;

/* Column layouts: the header and the row formats share widths. */
#define SESSION_HDR                                                                                \
    "%6s  %-16s  %-12s  %-8s  %10s  %10s  %4s  %4s  %11s  %11s  %8s  %12s  %-6s  %11s"
#define SESSION_ROW                                                                                \
    "%6llu  %-16s  %-12s  %-8s  %10llu  %10.3f  %4u  %4u  %11.3f  %11.3f  %8llu  %12.3f  %-6s  "   \
    "%11.3f"

void pdk_cli_format_sessions_header(char *out, size_t out_len)
{
    snprintf(out, out_len, SESSION_HDR, "ID", "NAME", "WORLD", "TIMING", "TICK", "SIM_TIME_S",
             "VEH", "SUBS", "LATE_P50_MS", "LATE_P99_MS", "OVERRUNS", "TICK_COST_MS", "ON",
             "TICK_P99_MS");
}

void pdk_cli_format_session(char *out, size_t out_len, const paddock_v1_SessionInfo *s)
{
    snprintf(out, out_len, SESSION_ROW, (unsigned long long)s->session_id,
             s->name[0] != '\0' ? s->name : "-", s->world_preset[0] != '\0' ? s->world_preset : "-",
             s->paused ? "paused" : pdk_cli_timing_name(s->timing), (unsigned long long)s->tick,
             s->sim_time_s, (unsigned)s->vehicle_count, (unsigned)s->subscriber_count,
             s->lateness_p50_ms, s->lateness_p99_ms, (unsigned long long)s->overruns,
             s->tick_cost_ms, s->step_thread ? "thread" : "loop", s->tick_time_p99_ms);
}

#define RECORDING_HDR "%6s  %-16s  %-10s  %-24s  %-24s  %9s  %10s  %10s  %-11s  %s"
#define RECORDING_ROW "%6llu  %-16s  %-10s  %-24s  %-24s  %9llu  %10.3f  %10llu  %-11s  %s"

void pdk_cli_format_recordings_header(char *out, size_t out_len)
{
    snprintf(out, out_len, RECORDING_HDR, "ID", "NAME", "WORLD", "VEHICLES", "STARTED_UTC", "TICKS",
             "DURATION_S", "SIZE_B", "STATE", "BUILD");
}

void pdk_cli_format_recording(char *out, size_t out_len, const paddock_v1_RecordingInfo *r)
{
    /* "2: kart,utv", cut with "..." where it would outgrow its column. */
    char vehicles[25];
    int n = snprintf(vehicles, sizeof vehicles, "%u:", (unsigned)r->vehicles_count);
    for (pb_size_t i = 0; i < r->vehicles_count && n >= 0 && (size_t)n < sizeof vehicles; i++) {
        n += snprintf(vehicles + n, sizeof vehicles - (size_t)n, "%s%s", i ? "," : " ",
                      r->vehicles[i].preset);
    }
    if (n >= (int)sizeof vehicles) {
        memcpy(vehicles + sizeof vehicles - 4, "...", 4);
    }
    char started[40];
    pdk_cli_format_wall_ns(started, sizeof started, r->started_wall_ns);
    const char *state = r->live ? "live" : r->interrupted ? "interrupted" : "done";
    snprintf(out, out_len, RECORDING_ROW, (unsigned long long)r->session_id,
             r->name[0] != '\0' ? r->name : "-", r->world_preset[0] != '\0' ? r->world_preset : "-",
             vehicles, started, (unsigned long long)r->ticks, r->duration_s,
             (unsigned long long)r->size_bytes, state, r->build_id[0] != '\0' ? r->build_id : "-");
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil, "chrono-Compatible Low-Level Date Algorithms"). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3u : 9u)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void pdk_cli_format_wall_ns(char *out, size_t out_len, uint64_t wall_ns)
{
    int64_t s = (int64_t)(wall_ns / 1000000000u);
    unsigned ms = (unsigned)(wall_ns % 1000000000u / 1000000u);
    int64_t z = s / 86400 + 719468;
    int64_t sod = s % 86400;
    /* civil_from_days, the inverse of days_from_civil. */
    const int64_t era = z / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    const int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
    snprintf(out, out_len, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ", (long long)y, m, d,
             (unsigned)(sod / 3600), (unsigned)(sod / 60 % 60), (unsigned)(sod % 60), ms);
}

int pdk_cli_parse_iso8601(const char *opt, const char *text, uint64_t *wall_ns, char *err,
                          size_t err_len)
{
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    int n = 0;
    int fields = sscanf(text, "%4u-%2u-%2u%n", &y, &mo, &d, &n);
    const char *p = text + (fields == 3 ? n : 0);
    if (fields == 3 && (*p == 'T' || *p == ' ')) {
        int m = 0;
        if (sscanf(p + 1, "%2u:%2u%n", &h, &mi, &m) == 2) {
            p += 1 + m;
            if (*p == ':' && sscanf(p + 1, "%2u%n", &sec, &m) == 1)
                p += 1 + m;
        } else {
            fields = 0;
        }
    }
    if (fields == 3 && *p == 'Z')
        p++;
    if (fields != 3 || *p != '\0' || y < 1970 || y > 2261 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
        h > 23 || mi > 59 || sec > 59) {
        snprintf(err, err_len,
                 "--%s: '%s' is not a UTC date or time YYYY-MM-DD[THH:MM[:SS]][Z], 1970 to 2261",
                 opt, text);
        return -1;
    }
    int64_t days = days_from_civil(y, mo, d);
    *wall_ns = ((uint64_t)days * 86400u + h * 3600u + mi * 60u + sec) * 1000000000u;
    return 0;
}

#define STATE_HDR "%10s %10s %5s %10s %10s %7s %8s %8s %9s %9s %11s %9s %8s %8s"
#define STATE_ROW                                                                                  \
    "%10llu %10.3f %5u %10.3f %10.3f %7.3f %8.2f %8.2f %9.2f %9.2f %11.2f %9.2f %8.3f %8.3f"

void pdk_cli_format_state_header(char *out, size_t out_len)
{
    snprintf(out, out_len, STATE_HDR, "TICK", "TIME_S", "ID", "X_M", "Y_M", "Z_M", "YAW_DEG",
             "ROLL_DEG", "PITCH_DEG", "SPEED_KMH", "YAWRATE_DPS", "STEER_DEG", "AX_MPS2", "AY_MPS2");
}

void pdk_cli_format_state(char *out, size_t out_len, uint64_t tick, double sim_time_s,
                          const paddock_v1_VehicleState *v)
{
    snprintf(out, out_len, STATE_ROW, (unsigned long long)tick, sim_time_s, (unsigned)v->vehicle_id,
             v->x_m, v->y_m, v->z_m, pdk_cli_wrap_deg(v->yaw_rad * RAD_TO_DEG),
             v->roll_rad * RAD_TO_DEG, v->pitch_rad * RAD_TO_DEG, v->speed_mps * 3.6,
             v->yaw_rate_radps * RAD_TO_DEG, v->steer_angle_rad * RAD_TO_DEG, v->ax_mps2,
             v->ay_mps2);
}

#define DRIVE_HDR "%4s %9s %10s %12s %9s %13s %4s"

void pdk_cli_format_drive_header(char *out, size_t out_len)
{
    snprintf(out, out_len, DRIVE_HDR, "PASS", "T_S", "TICK", "THROTTLE_PCT", "BRAKE_BAR",
             "STEER_WHL_DEG", "GEAR");
}

void pdk_cli_format_drive(char *out, size_t out_len, unsigned pass, const char *when, uint64_t tick,
                          const paddock_v1_DbwCommand *cmd)
{
    char throttle[32] = "-";
    char brake[32] = "-";
    char steer[32] = "-";
    char gear[2] = {pdk_cli_gear_letter(cmd->gear), '\0'};
    char pass_text[16];
    char tick_text[24];
    if (cmd->which_throttle == paddock_v1_DbwCommand_throttle_pct_tag) {
        snprintf(throttle, sizeof throttle, "%.1f", cmd->throttle.throttle_pct);
    }
    if (cmd->which_brake == paddock_v1_DbwCommand_brake_bar_tag) {
        snprintf(brake, sizeof brake, "%.1f", cmd->brake.brake_bar);
    }
    if (cmd->which_steer == paddock_v1_DbwCommand_steer_wheel_deg_tag) {
        snprintf(steer, sizeof steer, "%.1f", cmd->steer.steer_wheel_deg);
    }
    snprintf(pass_text, sizeof pass_text, "%u", pass);
    snprintf(tick_text, sizeof tick_text, "%llu", (unsigned long long)tick);
    snprintf(out, out_len, DRIVE_HDR, pass_text, when, tick_text, throttle, brake, steer, gear);
}

#define STATS_HDR "%10s %10s %7s %-8s %6s %9s %8s %8s %8s  %s"
#define STATS_ROW "%10llu %10.3f %7.3f %-8s %6s %9s %8llu %8llu %8llu  %s"

void pdk_cli_format_stats_header(char *out, size_t out_len)
{
    snprintf(out, out_len, STATS_HDR, "TICK", "SIM_TIME_S", "RTF", "STATE", "LEASE", "LEFT_MS",
             "OVERRUNS", "SKIPPED", "WRITER_Q", "REASON");
}

void pdk_cli_format_stats(char *out, size_t out_len, const paddock_v1_SessionStats *s)
{
    char lease[24] = "-";
    char left[24] = "-";
    if (s->step_lease_conn != 0) {
        snprintf(lease, sizeof lease, "%llu", (unsigned long long)s->step_lease_conn);
        snprintf(left, sizeof left, "%.0f", s->step_lease_left_ms);
    }
    const char *reason = s->pause_reason[0] != '\0'    ? s->pause_reason
                         : s->timing_reason[0] != '\0' ? s->timing_reason
                                                       : "-";
    snprintf(out, out_len, STATS_ROW, (unsigned long long)s->tick, s->sim_time_s,
             s->real_time_factor, s->paused ? "paused" : pdk_cli_timing_name(s->timing), lease,
             left, (unsigned long long)s->overruns, (unsigned long long)s->skipped_ticks,
             (unsigned long long)s->writer_queued, reason);
}

void pdk_cli_format_verify(char *out, size_t out_len, const paddock_v1_VerifyReply *v)
{
    char divergent[24] = "-";
    char vehicle[16] = "-";
    if (!v->match && v->first_divergent_tick != 0) {
        snprintf(divergent, sizeof divergent, "%llu", (unsigned long long)v->first_divergent_tick);
    }
    if (v->vehicle_id != 0) {
        snprintf(vehicle, sizeof vehicle, "%u", (unsigned)v->vehicle_id);
    }
    /* What the match covers: the recorded range, a hole, a live session's
     * tick beyond it. */
    char hole[96] = "-";
    char live[24] = "-";
    if (v->missing_ticks != 0) {
        snprintf(hole, sizeof hole, "%llu..%llu (%llu ticks without a hash, not checked)",
                 (unsigned long long)v->hole_first_tick, (unsigned long long)v->hole_last_tick,
                 (unsigned long long)v->missing_ticks);
    }
    if (v->live) {
        snprintf(live, sizeof live, "%llu", (unsigned long long)v->live_tick);
    }
    snprintf(out, out_len,
             "session:          %llu\n"
             "match:            %s\n"
             "hashes_checked:   %llu\n"
             "last_tick:        %llu\n"
             "recorded:         %llu..%llu (hashes %016llx..%016llx)\n"
             "hole:             %s\n"
             "live_tick:        %s\n"
             "first_divergent:  %s\n"
             "vehicle:          %s\n"
             "field:            %s\n"
             "recorded_build:   %s\n"
             "this_build:       %s\n"
             "same_build:       %s\n"
             "interrupted:      %s\n"
             "seconds:          %.3f\n"
             "message:          %s\n",
             (unsigned long long)v->session_id, v->match ? "yes" : "no",
             (unsigned long long)v->hashes_checked, (unsigned long long)v->last_tick,
             (unsigned long long)v->first_tick, (unsigned long long)v->last_tick,
             (unsigned long long)v->first_hash, (unsigned long long)v->last_hash, hole, live,
             divergent, vehicle, v->field[0] != '\0' ? v->field : "-",
             v->recorded_build[0] != '\0' ? v->recorded_build : "-",
             v->this_build[0] != '\0' ? v->this_build : "-", v->same_build ? "yes" : "no",
             v->interrupted ? "yes" : "no", v->seconds, v->message[0] != '\0' ? v->message : "-");
}

/* --- drive scripts ------------------------------------------------------ */

void pdk_cli_dbw_from_step(paddock_v1_DbwCommand *out, uint64_t session_id, uint32_t vehicle_id,
                           const pdk_dbw_cmd *cmd)
{
    memset(out, 0, sizeof *out);
    out->session_id = session_id;
    out->vehicle_id = vehicle_id;
    if (cmd->fields & PDK_DBW_THROTTLE) {
        out->which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
        out->throttle.throttle_pct = cmd->throttle_pct;
    }
    if (cmd->fields & PDK_DBW_BRAKE) {
        out->which_brake = paddock_v1_DbwCommand_brake_bar_tag;
        out->brake.brake_bar = cmd->brake_bar;
    }
    if (cmd->fields & PDK_DBW_STEER) {
        out->which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
        out->steer.steer_wheel_deg = cmd->steer_wheel_deg;
    }
    /* pdk_gear and paddock.v1.Gear share their numbers (both are the DBW2
     * kit's Gear enum); GEAR_NONE means "no change" on the wire. */
    out->gear =
        (cmd->fields & PDK_DBW_GEAR) ? (paddock_v1_Gear)cmd->gear : paddock_v1_Gear_GEAR_NONE;
}

int pdk_cli_initial_places_vehicle(unsigned initial_fields, char *keys, size_t keys_len)
{
    static const struct {
        unsigned bit;
        const char *key;
    } PLACING[] = {
        {PDK_SCRIPT_INIT_SPEED, "speed_mps"},
        {PDK_SCRIPT_INIT_X, "x_m"},
        {PDK_SCRIPT_INIT_Y, "y_m"},
        {PDK_SCRIPT_INIT_YAW, "yaw_deg"},
    };
    size_t used = 0;
    int n = 0;
    if (keys_len > 0) {
        keys[0] = '\0';
    }
    for (size_t i = 0; i < sizeof PLACING / sizeof PLACING[0]; i++) {
        if ((initial_fields & PLACING[i].bit) == 0) {
            continue;
        }
        if (used < keys_len) {
            int w =
                snprintf(keys + used, keys_len - used, "%s%s", n > 0 ? ", " : "", PLACING[i].key);
            used += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    return n > 0;
}

void pdk_cli_spawn_from_initial(paddock_v1_VehicleSpawn *spawn, const pdk_script *script)
{
    unsigned f = script->initial_fields;
    if (f & PDK_SCRIPT_INIT_X) {
        spawn->x_m = script->initial_pose.x_m;
    }
    if (f & PDK_SCRIPT_INIT_Y) {
        spawn->y_m = script->initial_pose.y_m;
    }
    if (f & PDK_SCRIPT_INIT_YAW) {
        spawn->yaw_deg = script->initial_yaw_deg;
    }
    if (f & PDK_SCRIPT_INIT_SPEED) {
        spawn->speed_mps = script->initial_speed_mps;
    }
    if (f & PDK_SCRIPT_INIT_GEAR) {
        spawn->gear = (paddock_v1_Gear)script->initial_gear;
    }
}

int pdk_cli_take_session(const char *value, uint64_t *session, char *err, size_t err_len)
{
    if (*session != 0) {
        snprintf(err, err_len, "the session is given twice (%llu, then '%s')",
                 (unsigned long long)*session, value);
        return -1;
    }
    return pdk_cli_parse_u64("session", value, 1, UINT64_MAX, session, err, err_len);
}
