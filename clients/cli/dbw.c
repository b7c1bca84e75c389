/* paddock dbw: talks to one vehicle's drive-by-wire kit as a DBW2 kit's
 * user does (docs/dbw.md), through the client's DBW link: enables and
 * disables it, sends a steering, brake, throttle, gear or ULC command once
 * or at 50 Hz for a while, presses its buttons, injects faults, sets its
 * system parameters, and prints its reports one line each. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dbw_rows.h"
#include "paddock_dbw.h"

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_VEHICLE,
    OPT_CRC,
    OPT_FOR,
    OPT_KINDS,
    OPT_DURATION,
    OPT_COUNT,
    OPT_SYNC_MODE,
    OPT_VALIDATE_CRC,
    OPT_COMMS_LOSS,
    OPT_RC,
};

static const pdk_cli_opt DBW_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
    {"vehicle", OPT_VEHICLE, 1},
    {"crc", OPT_CRC, 0},
    {"for", OPT_FOR, 1},
    {"kinds", OPT_KINDS, 1},
    {"duration", OPT_DURATION, 1},
    {"count", OPT_COUNT, 1},
    {"sync-mode", OPT_SYNC_MODE, 1},
    {"validate-crc", OPT_VALIDATE_CRC, 1},
    {"comms-loss", OPT_COMMS_LOSS, 1},
    {"rc", OPT_RC, 1},
};

typedef enum verb_id {
    V_ENABLE,
    V_DISABLE,
    V_SYSTEM,
    V_STEER,
    V_BRAKE,
    V_THROTTLE,
    V_ULC,
    V_GEAR,
    V_BUTTON,
    V_FAULT,
    V_REPORTS,
    V_COUNT,
} verb_id;

typedef struct verb {
    const char *name;
    const char *operands; /* what follows the verb, for messages */
    int n_operands;
    int streams;      /* a channel command that --for may repeat */
    const char *unit; /* of the value, for the printout */
} verb;

static const verb VERBS[V_COUNT] = {
    [V_ENABLE] = {"enable", "", 0, 0, ""},     [V_DISABLE] = {"disable", "", 0, 0, ""},
    [V_SYSTEM] = {"system", "", 0, 0, ""},     [V_STEER] = {"steer", "DEG", 1, 1, "deg"},
    [V_BRAKE] = {"brake", "BAR", 1, 1, "bar"}, [V_THROTTLE] = {"throttle", "PCT", 1, 1, "%"},
    [V_ULC] = {"ulc", "MPS", 1, 1, "m/s"},     [V_GEAR] = {"gear", "G", 1, 0, ""},
    [V_BUTTON] = {"button", "NAME", 1, 0, ""}, [V_FAULT] = {"fault", "KIND TARGET VALUE", 3, 0, ""},
    [V_REPORTS] = {"reports", "", 0, 0, ""},
};

/* The period of a repeated command: the rate Dataspeed's own examples send at
 * (ds_dbw_joystick_demo's 20 ms timer), well inside the kit's 100 ms
 * timeout. */
#define REPEAT_PERIOD_NS 20000000L
/* Values are bounded here only to keep nonsense off the wire; the server
 * checks each against the kit and names it. */
#define VALUE_LIMIT 1e6
/* The longest a wait for reports runs before it looks at Ctrl-C again. */
#define POLL_SLICE_MS 100

typedef struct dbw_opts {
    uint64_t session;
    uint64_t vehicle;
    int crc;
    int have_rc;
    uint64_t rc;  /* --rc: the first rolling counter */
    double for_s; /* 0: once */
    paddock_v1_DbwReportKind kinds[PDK_CLI_N_OF(((paddock_v1_DbwSubscribe *)0)->reports)];
    size_t n_kinds;
    double duration_s; /* 0: no limit */
    uint64_t count;    /* 0: no limit */
    pdk_dbw_system_opts sys;
    const char *sys_opt;     /* the first system option given */
    const char *reports_opt; /* the first reports-only option given */
    verb_id verb;
    const char *operand[3];
    double value;
    paddock_v1_Gear gear;
    uint32_t button;
    uint32_t fault_kind;
    uint32_t fault_target;
} dbw_opts;

static int find_verb(const char *name)
{
    for (int i = 0; i < V_COUNT; i++) {
        if (strcmp(VERBS[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* "steer DEG: ..." for an operand: the helpers name options ("--x: ..."),
 * so their prefix is replaced by the verb and the operand's name. */
static void relabel(char *err, size_t err_len, const char *label)
{
    const char *colon = strstr(err, ": ");
    char rest[PDK_CLI_ERR_LEN];
    snprintf(rest, sizeof rest, "%s", colon != NULL ? colon : err);
    snprintf(err, err_len, "%s%s", label, rest);
}

/* The verb's operands, once the whole command line is read. */
static int parse_operands(dbw_opts *o, int n, char *err, size_t err_len)
{
    const verb *v = &VERBS[o->verb];
    if (n != v->n_operands) {
        snprintf(err, err_len, "%s takes %d argument%s%s%s, got %d", v->name, v->n_operands,
                 v->n_operands == 1 ? "" : "s", v->n_operands > 0 ? ": " : "", v->operands, n);
        return -1;
    }
    char label[64];
    snprintf(label, sizeof label, "%s %s", v->name, v->operands);
    switch (o->verb) {
    case V_STEER:
    case V_BRAKE:
    case V_THROTTLE:
    case V_ULC:
        if (pdk_cli_parse_double("x", o->operand[0], -VALUE_LIMIT, VALUE_LIMIT, &o->value, err,
                                 err_len) != 0) {
            relabel(err, err_len, label);
            return -1;
        }
        return 0;
    case V_GEAR:
        if (pdk_cli_parse_gear("x", o->operand[0], &o->gear, err, err_len) != 0) {
            relabel(err, err_len, label);
            return -1;
        }
        return 0;
    case V_BUTTON:
        return pdk_cli_parse_dbw_button(label, o->operand[0], &o->button, err, err_len);
    case V_FAULT:
        if (pdk_cli_parse_fault_kind("fault KIND", o->operand[0], &o->fault_kind, err, err_len) !=
                0 ||
            pdk_cli_parse_fault_target("fault TARGET", o->fault_kind, o->operand[1],
                                       &o->fault_target, err, err_len) != 0) {
            return -1;
        }
        if (pdk_cli_parse_double("x", o->operand[2], -VALUE_LIMIT, VALUE_LIMIT, &o->value, err,
                                 err_len) != 0) {
            relabel(err, err_len, "fault VALUE");
            return -1;
        }
        return 0;
    default:
        return 0;
    }
}

static int parse_opts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args, dbw_opts *o,
                      int *exit_code)
{
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int have_verb = 0;
    int n_operands = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, exit_code)) > 0) {
        int bad = 0;
        int on = 0;
        uint32_t mode = 0;
        switch (id) {
        case PDK_CLI_OPT_OPERAND:
            if (!have_verb) {
                int verb_index = find_verb(v);
                if (verb_index < 0) {
                    snprintf(err, sizeof err,
                             "unknown verb '%s' (enable, disable, system, steer, brake, "
                             "throttle, ulc, gear, button, fault, reports)",
                             v);
                    bad = -1;
                    break;
                }
                o->verb = (verb_id)verb_index;
                have_verb = 1;
            } else if (n_operands < (int)PDK_CLI_N_OF(o->operand)) {
                o->operand[n_operands++] = v;
            } else {
                n_operands++;
            }
            break;
        case OPT_SESSION:
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &o->session, err, sizeof err);
            break;
        case OPT_VEHICLE:
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &o->vehicle, err, sizeof err);
            break;
        case OPT_CRC:
            o->crc = 1;
            break;
        case OPT_RC:
            bad = pdk_cli_parse_u64("rc", v, 0, 15, &o->rc, err, sizeof err);
            o->have_rc = 1;
            break;
        case OPT_FOR:
            bad = pdk_cli_parse_double("for", v, 1e-3, 1e6, &o->for_s, err, sizeof err);
            break;
        case OPT_KINDS:
            bad = pdk_cli_parse_dbw_kinds("--kinds", v, o->kinds, PDK_CLI_N_OF(o->kinds),
                                          &o->n_kinds, err, sizeof err);
            o->reports_opt = o->reports_opt != NULL ? o->reports_opt : "kinds";
            break;
        case OPT_DURATION:
            bad = pdk_cli_parse_double("duration", v, 1e-3, 1e9, &o->duration_s, err, sizeof err);
            o->reports_opt = o->reports_opt != NULL ? o->reports_opt : "duration";
            break;
        case OPT_COUNT:
            bad = pdk_cli_parse_u64("count", v, 1, UINT64_MAX, &o->count, err, sizeof err);
            o->reports_opt = o->reports_opt != NULL ? o->reports_opt : "count";
            break;
        case OPT_SYNC_MODE:
            bad = pdk_cli_parse_sync_mode("--sync-mode", v, &mode, err, sizeof err);
            o->sys.sync_mode = (int32_t)mode;
            o->sys_opt = o->sys_opt != NULL ? o->sys_opt : "sync-mode";
            break;
        case OPT_VALIDATE_CRC:
            bad = pdk_cli_parse_on_off("--validate-crc", v, &on, err, sizeof err);
            o->sys.validate_crc = on;
            o->sys_opt = o->sys_opt != NULL ? o->sys_opt : "validate-crc";
            break;
        case OPT_COMMS_LOSS:
            bad = pdk_cli_parse_on_off("--comms-loss", v, &on, err, sizeof err);
            o->sys.comms_loss_arm = on;
            o->sys_opt = o->sys_opt != NULL ? o->sys_opt : "comms-loss";
            break;
        default:
            break;
        }
        if (bad != 0) {
            *exit_code = pdk_cli_usage_error(cmd, err);
            return -1;
        }
    }
    if (id < 0) {
        return -1;
    }
    if (o->session == 0) {
        *exit_code = pdk_cli_missing(cmd, "session");
        return -1;
    }
    if (o->vehicle == 0) {
        *exit_code = pdk_cli_missing(cmd, "vehicle");
        return -1;
    }
    if (!have_verb) {
        *exit_code = pdk_cli_usage_error(cmd, "no verb given");
        return -1;
    }
    const verb *vb = &VERBS[o->verb];
    const char *misplaced = NULL;
    const char *belongs = NULL;
    if (o->for_s > 0.0 && !vb->streams) {
        misplaced = "for";
        belongs = "steer, brake, throttle and ulc";
    } else if (o->reports_opt != NULL && o->verb != V_REPORTS) {
        misplaced = o->reports_opt;
        belongs = "reports";
    } else if (o->sys_opt != NULL && o->verb != V_ENABLE && o->verb != V_DISABLE &&
               o->verb != V_SYSTEM) {
        misplaced = o->sys_opt;
        belongs = "enable, disable and system";
    }
    if (misplaced != NULL) {
        snprintf(err, sizeof err, "--%s does not apply to %s (only to %s)", misplaced, vb->name,
                 belongs);
        *exit_code = pdk_cli_usage_error(cmd, err);
        return -1;
    }
    if (o->verb == V_SYSTEM && o->sys_opt == NULL) {
        *exit_code = pdk_cli_usage_error(
            cmd, "system: give at least one of --sync-mode, --validate-crc, --comms-loss");
        return -1;
    }
    if (parse_operands(o, n_operands, err, sizeof err) != 0) {
        *exit_code = pdk_cli_usage_error(cmd, err);
        return -1;
    }
    return 0;
}

/* One message of the verb through the link. */
static pdk_client_status send_verb(pdk_dbw_link *link, const dbw_opts *o)
{
    pdk_dbw_system_opts sys = o->sys;
    switch (o->verb) {
    case V_ENABLE:
        sys.cmd = 1;
        return pdk_dbw_link_system(link, &sys);
    case V_DISABLE:
        sys.cmd = 2;
        return pdk_dbw_link_system(link, &sys);
    case V_SYSTEM:
        return pdk_dbw_link_system(link, &sys);
    case V_STEER:
        return pdk_dbw_link_steer_angle(link, o->value, 0.0, 0.0);
    case V_BRAKE:
        return pdk_dbw_link_brake_pressure(link, o->value, 0.0, 0.0);
    case V_THROTTLE:
        return pdk_dbw_link_throttle_percent(link, o->value, 0.0, 0.0);
    case V_ULC:
        return pdk_dbw_link_ulc_velocity(link, o->value, NULL);
    case V_GEAR:
        return pdk_dbw_link_gear(link, o->gear);
    case V_BUTTON:
        return pdk_dbw_link_button(link, o->button);
    case V_FAULT:
        return pdk_dbw_link_fault(link, o->fault_kind, o->fault_target, o->value);
    default:
        return PDK_CLIENT_EINVAL;
    }
}

/* Prints a failure of the link as the other commands print theirs: a
 * server error as "paddock: CODE: message". */
static int report_failure(const pdk_dbw_link *link, pdk_client_status st)
{
    const char *text = link->error;
    if (st == PDK_CLIENT_ESERVER) {
        char code[48];
        snprintf(code, sizeof code, "%s: ", pdk_client_error_code_name(link->server_code));
        const char *at = strstr(text, code);
        text = at != NULL ? at : text;
    }
    fprintf(stderr, "paddock: %s\n", text);
    return pdk_cli_exit_for(st);
}

/* "steer 12.5 deg", "fault stuck 1 0", "enable". */
static void describe(const dbw_opts *o, char *out, size_t out_len)
{
    const verb *v = &VERBS[o->verb];
    switch (o->verb) {
    case V_STEER:
    case V_BRAKE:
    case V_THROTTLE:
    case V_ULC:
        snprintf(out, out_len, "%s %g %s", v->name, o->value, v->unit);
        break;
    case V_GEAR:
        snprintf(out, out_len, "gear %c", pdk_cli_gear_letter(o->gear));
        break;
    case V_BUTTON:
        snprintf(out, out_len, "button %s", o->operand[0]);
        break;
    case V_FAULT:
        snprintf(out, out_len, "fault %s %s %g", o->operand[0], o->operand[1], o->value);
        break;
    default:
        snprintf(out, out_len, "%s", v->name);
        break;
    }
}

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

/* Sends the command every 20 ms for --for seconds or until Ctrl-C, without
 * waiting for each Ok, then waits for the replies still on their way. */
static int send_repeatedly(pdk_cli *cli, pdk_dbw_link *link, const dbw_opts *o)
{
    pdk_dbw_link_set_async(link, 1);
    const double end_s = pdk_cli_now_s() + o->for_s;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    uint64_t sent = 0;
    pdk_client_status st = PDK_CLIENT_OK;
    while (!pdk_cli_stop_requested && pdk_cli_now_s() < end_s) {
        st = send_verb(link, o);
        if (st == PDK_CLIENT_OK) {
            sent++;
            st = pdk_dbw_link_poll(link, 0);
        }
        if (st != PDK_CLIENT_OK) {
            return report_failure(link, st);
        }
        add_ns(&next, REPEAT_PERIOD_NS);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    const double drain_end_s = pdk_cli_now_s() + cli->timeout_ms * 1e-3;
    while (link->n_pending > 0 && pdk_cli_now_s() < drain_end_s) {
        st = pdk_dbw_link_poll(link, POLL_SLICE_MS);
        if (st != PDK_CLIENT_OK) {
            return report_failure(link, st);
        }
    }
    char what[128];
    describe(o, what, sizeof what);
    printf("%s sent %llu times to vehicle %llu in session %llu; the last applied at tick %llu\n",
           what, (unsigned long long)sent, (unsigned long long)o->vehicle,
           (unsigned long long)o->session, (unsigned long long)link->last_tick);
    if (link->n_pending > 0) {
        fprintf(stderr, "paddock: note: %u replies still missing after %d ms\n", link->n_pending,
                cli->timeout_ms);
    }
    return PDK_CLI_EXIT_OK;
}

typedef struct report_state {
    uint64_t printed;
    uint64_t limit; /* 0: none */
} report_state;

static void print_report(const paddock_v1_DbwReport *r, void *ud)
{
    report_state *s = ud;
    if (s->limit > 0 && s->printed >= s->limit) {
        return;
    }
    char row[PDK_CLI_DBW_ROW_LEN];
    pdk_cli_format_dbw_report(row, sizeof row, r);
    printf("%s\n", row);
    fflush(stdout);
    s->printed++;
}

static void print_event(const paddock_v1_ControlEvent *e, void *ud)
{
    (void)ud;
    fprintf(stderr, "control event at tick %llu: active source %d, pre-empted %d: %s\n",
            (unsigned long long)e->tick, (int)e->active_source, (int)e->preempted, e->reason);
}

/* Subscribes and prints reports until --count, --duration or Ctrl-C. */
static int stream_reports(pdk_dbw_link *link, const dbw_opts *o)
{
    report_state s = {0, o->count};
    pdk_dbw_link_on_report(link, print_report, &s);
    pdk_dbw_link_on_event(link, print_event, NULL);
    pdk_client_status st = pdk_dbw_link_subscribe(link, o->kinds, o->n_kinds);
    if (st != PDK_CLIENT_OK) {
        return report_failure(link, st);
    }
    fprintf(stderr, "reports of vehicle %llu in session %llu (subscription %u); Ctrl-C stops\n",
            (unsigned long long)o->vehicle, (unsigned long long)o->session,
            (unsigned)link->subscription_id);
    char header[PDK_CLI_DBW_ROW_LEN];
    pdk_cli_format_dbw_header(header, sizeof header);
    printf("%s\n", header);
    fflush(stdout);
    const double end_s = o->duration_s > 0.0 ? pdk_cli_now_s() + o->duration_s : 0.0;
    while (!pdk_cli_stop_requested && (o->count == 0 || s.printed < o->count)) {
        int slice_ms = POLL_SLICE_MS;
        if (end_s > 0.0) {
            double left_ms = (end_s - pdk_cli_now_s()) * 1e3;
            if (left_ms <= 0.0) {
                break;
            }
            slice_ms = left_ms < slice_ms ? (int)left_ms + 1 : slice_ms;
        }
        st = pdk_dbw_link_poll(link, slice_ms);
        if (st != PDK_CLIENT_OK) {
            return report_failure(link, st);
        }
    }
    st = pdk_dbw_link_unsubscribe(link);
    if (st != PDK_CLIENT_OK) {
        fprintf(stderr, "paddock: note: unsubscribe failed: %s\n", link->error);
    }
    return PDK_CLI_EXIT_OK;
}

static int run_dbw(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    dbw_opts o;
    memset(&o, 0, sizeof o);
    o.sys = pdk_dbw_system_opts_default();
    int rc = 0;
    if (parse_opts(cli, cmd, args, &o, &rc) != 0) {
        return rc;
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_dbw_link link;
    pdk_dbw_link_init(&link, cli->client, cli->frame, o.session, (uint32_t)o.vehicle);
    pdk_dbw_link_set_crc(&link, o.crc);
    /* The kit remembers each stream's last counter across connections and
     * flags a repeat (bad_rc), so a run does not start every stream at 0:
     * it starts at --rc, else at a value the clock picks. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint8_t first_rc = o.have_rc ? (uint8_t)o.rc : (uint8_t)((now.tv_nsec / 1000) & 15);
    for (int k = 0; k < PDK_DBW_STREAM_COUNT; k++) {
        pdk_dbw_link_set_rc(&link, (pdk_dbw_stream)k, first_rc);
    }
    if (o.verb == V_REPORTS) {
        rc = stream_reports(&link, &o);
    } else if (o.for_s > 0.0) {
        rc = send_repeatedly(cli, &link, &o);
    } else {
        pdk_client_status st = send_verb(&link, &o);
        if (st != PDK_CLIENT_OK) {
            rc = report_failure(&link, st);
        } else {
            char what[128];
            describe(&o, what, sizeof what);
            printf("%s sent to vehicle %llu in session %llu; applies at tick %llu\n", what,
                   (unsigned long long)o.vehicle, (unsigned long long)o.session,
                   (unsigned long long)link.last_tick);
        }
    }
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_dbw_command = {
    "dbw",
    "--session S --vehicle V [--crc] [--rc N] VERB [ARGS] [options]",
    "Talk to a vehicle's drive-by-wire kit: enable it, command it, inject faults, read reports.",
    "  --session S         the session\n"
    "  --vehicle V         the vehicle\n"
    "  --crc               attach the kit's CRC-8 to the command\n"
    "  --rc N              the first rolling counter, 0..15 (default: one the clock picks)\n"
    "Verbs:\n"
    "  enable, disable     the kit's SystemCmd enable / disable\n"
    "  system              a SystemCmd that only sets parameters (give one of the three below)\n"
    "    --sync-mode M       none, disengages, all_or_none or all_or_none_with_btn\n"
    "    --validate-crc on|off  whether the kit checks CRC and rolling counter\n"
    "    --comms-loss on|off    arm braking to a stop when commands stop\n"
    "    (these three also go with enable and disable)\n"
    "  steer DEG           a steering-wheel angle, deg, positive left\n"
    "  brake BAR           a brake line pressure, bar\n"
    "  throttle PCT        a throttle pedal, 0..100 %\n"
    "  ulc MPS             a ULC velocity target, m/s, default limits\n"
    "    --for S             repeat the command every 20 ms for S seconds (the kit times a\n"
    "                        channel out 100 ms after its last command); default once\n"
    "  gear G              P R N D or L\n"
    "  button NAME         enable, disable, external_brake or external_brake_release\n"
    "  fault KIND TARGET VALUE  inject a fault: KIND clear, stuck, saturated, latency, channel,\n"
    "                      report_drop, report_delay, report_missing, sensor_noise,\n"
    "                      sensor_bias, power_cycle, module_restart (or a number); TARGET a\n"
    "                      channel (steer, brake, throttle, gear), a report kind or a sensor\n"
    "                      axis, as KIND reads it (or a number); VALUE in the fault's unit\n"
    "  reports             print the kit's reports, one line each, until Ctrl-C\n"
    "    --kinds K,K         report kinds (steering, brake, throttle, gear, system, ulc,\n"
    "                        wheel_speeds, vehicle_velocity, imu, gnss, secondary, aw_status,\n"
    "                        or all: the default)\n"
    "    --duration S        stop after S seconds\n"
    "    --count N           stop after N reports\n"
    "Each run is its own connection: see docs/cli.md for what the server keeps between runs.\n",
    DBW_OPTS,
    PDK_CLI_N_OF(DBW_OPTS),
    run_dbw,
};
