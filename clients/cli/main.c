/* paddock, the command-line client: global options, the command table, the
 * shared connection and reporting, and the short commands (info, sessions,
 * create, spawn, tyre, remove, close). drive.c, dbw.c and watch.c hold the
 * long-running ones. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PDK_VERSION
#define PDK_VERSION "unknown"
#endif
#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif

/* Static: the client holds 68 KiB of buffers and the Frame about 45 KiB;
 * neither belongs on the stack. */
static pdk_client g_client;
static paddock_v1_Frame g_frame;

volatile sig_atomic_t pdk_cli_stop_requested = 0;

static void on_stop_signal(int sig)
{
    (void)sig;
    pdk_cli_stop_requested = 1;
}

void pdk_cli_catch_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a sleep ends early on Ctrl-C */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

double pdk_cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- shared plumbing ---------------------------------------------------- */

static const char GLOBAL_SYNOPSIS[] = "paddock [--server HOST:PORT] [--timeout MS] [--api-key KEY]\n"
                                      "               [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]";

int pdk_cli_usage_error(const pdk_cli_command *cmd, const char *message)
{
    fprintf(stderr, "paddock %s: %s\n", cmd->name, message);
    fprintf(stderr, "usage: %s %s%s%s\n", GLOBAL_SYNOPSIS, cmd->name,
            cmd->synopsis[0] != '\0' ? " " : "", cmd->synopsis);
    fprintf(stderr, "Run 'paddock %s --help' for details.\n", cmd->name);
    return PDK_CLI_EXIT_USAGE;
}

int pdk_cli_missing(const pdk_cli_command *cmd, const char *option)
{
    char msg[128];
    snprintf(msg, sizeof msg, "missing required option --%s", option);
    return pdk_cli_usage_error(cmd, msg);
}

static const char COMMON_HELP[] =
    "Options every command takes:\n"
    "  --server HOST:PORT  paddockd to talk to (also [IPv6]:PORT); default $PADDOCK_SERVER,\n"
    "                      else " PDK_CLIENT_DEFAULT_SERVER "\n"
    "  --timeout MS        bound on connecting and on each reply (default 5000)\n"
    "  --api-key KEY       the key a paddockd started with --auth knows this client by;\n"
    "                      default $PADDOCK_API_KEY (docs/security.md)\n"
    "  --tls-ca FILE       connect over TLS, verifying paddockd's certificate against this\n"
    "                      CA; default $PADDOCK_TLS_CA (none: in clear)\n"
    "  --tls-cert FILE     with --tls-key, the client certificate a paddockd with\n"
    "  --tls-key FILE      --tls-client-ca asks for; default $PADDOCK_TLS_CERT, _KEY\n"
    "  -h, --help          this help\n";

static void print_command_help(const pdk_cli_command *cmd)
{
    printf("usage: %s %s%s%s\n\n%s\n\n%s\n%s", GLOBAL_SYNOPSIS, cmd->name,
           cmd->synopsis[0] != '\0' ? " " : "", cmd->synopsis, cmd->summary, cmd->details,
           COMMON_HELP);
    printf("\nExit codes: 0 ok, 1 the server refused (or a bad input file), 2 usage,\n"
           "3 cannot connect, 4 connection lost or timed out. See docs/cli.md.\n");
}

static int parse_timeout(const char *value, int *out, char *err, size_t err_len)
{
    uint64_t ms = 0;
    if (pdk_cli_parse_u64("timeout", value, 1, 3600000, &ms, err, err_len) != 0) {
        return -1;
    }
    *out = (int)ms;
    return 0;
}

/* A negative number ("-12.5") is an operand, not an option. */
static int is_negative_number(const char *arg)
{
    return arg[0] == '-' && ((arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.');
}

static int next_arg(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                    const char **value, int *exit_code, int operands)
{
    char err[PDK_CLI_ERR_LEN];
    for (;;) {
        if (operands && args->next < args->argc && is_negative_number(args->argv[args->next])) {
            *value = args->argv[args->next++];
            return PDK_CLI_OPT_OPERAND;
        }
        int id = pdk_cli_args_next(args, value, err, sizeof err);
        if (id == PDK_CLI_ARGS_ERROR) {
            *exit_code = pdk_cli_usage_error(cmd, err);
            return -1;
        }
        if (id == PDK_CLI_ARGS_END) {
            if (args->next < args->argc && operands) {
                *value = args->argv[args->next++];
                return PDK_CLI_OPT_OPERAND;
            }
            if (args->next < args->argc) {
                snprintf(err, sizeof err, "unexpected argument '%s'", args->argv[args->next]);
                *exit_code = pdk_cli_usage_error(cmd, err);
                return -1;
            }
            return 0;
        }
        switch (id) {
        case PDK_CLI_OPT_HELP:
            print_command_help(cmd);
            *exit_code = PDK_CLI_EXIT_OK;
            return -1;
        case PDK_CLI_OPT_SERVER:
            if ((*value)[0] == '\0') {
                *exit_code = pdk_cli_usage_error(cmd, "--server: empty address");
                return -1;
            }
            cli->server = *value;
            break;
        case PDK_CLI_OPT_TIMEOUT:
            if (parse_timeout(*value, &cli->timeout_ms, err, sizeof err) != 0) {
                *exit_code = pdk_cli_usage_error(cmd, err);
                return -1;
            }
            cli->timeout_set = 1;
            break;
        case PDK_CLI_OPT_API_KEY:
            cli->api_key = *value;
            break;
        case PDK_CLI_OPT_TLS_CA:
            cli->tls.ca_file = *value;
            break;
        case PDK_CLI_OPT_TLS_CERT:
            cli->tls.cert_file = *value;
            break;
        case PDK_CLI_OPT_TLS_KEY:
            cli->tls.key_file = *value;
            break;
        default:
            return id;
        }
    }
}

int pdk_cli_next_option(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                        const char **value, int *exit_code)
{
    return next_arg(cli, cmd, args, value, exit_code, 0);
}

int pdk_cli_next_arg(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                     const char **value, int *exit_code)
{
    return next_arg(cli, cmd, args, value, exit_code, 1);
}

void pdk_cli_long_wait(pdk_cli *cli)
{
    if (!cli->timeout_set) {
        cli->client->timeout_ms = PDK_CLI_LONG_TIMEOUT_MS;
    }
}

int pdk_cli_open(pdk_cli *cli)
{
    const char *addr = pdk_client_server_address(cli->server);
    pdk_client_hello hello = {"paddock-cli " PDK_VERSION, cli->api_key, false, NULL};
    if (cli->tls.ca_file != NULL || cli->tls.cert_file != NULL || cli->tls.key_file != NULL) {
        /* A certificate without --tls-ca is refused by the client, naming
         * the missing CA file. */
        hello.tls = &cli->tls;
    }
    pdk_client_status st =
        pdk_client_connect_hello(cli->client, addr, cli->timeout_ms, &hello, &cli->welcome);
    if (st != PDK_CLIENT_OK) {
        fprintf(stderr, "paddock: cannot connect to %s: %s\n", addr, cli->client->error);
        return PDK_CLI_EXIT_CONNECT;
    }
    return PDK_CLI_EXIT_OK;
}

paddock_v1_Frame *pdk_cli_request(pdk_cli *cli, pb_size_t body_tag)
{
    memset(cli->frame, 0, sizeof *cli->frame);
    cli->frame->which_body = body_tag;
    return cli->frame;
}

int pdk_cli_report(pdk_cli *cli, pdk_client_status st)
{
    if (st == PDK_CLIENT_ESERVER) {
        fprintf(stderr, "paddock: %s\n", cli->client->error);
    } else {
        fprintf(stderr, "paddock: %s: %s\n", pdk_client_status_name(st), cli->client->error);
    }
    return pdk_cli_exit_for(st);
}

int pdk_cli_call(pdk_cli *cli, pb_size_t reply_tag)
{
    pdk_client_status st = pdk_client_call(cli->client, cli->frame, cli->frame, NULL, NULL);
    if (st == PDK_CLIENT_OK) {
        st = pdk_client_expect(cli->client, cli->frame, reply_tag);
    }
    return st == PDK_CLIENT_OK ? PDK_CLI_EXIT_OK : pdk_cli_report(cli, st);
}

int pdk_cli_list_page(pdk_cli *cli, uint32_t offset, pdk_client_push_fn on_push, void *ud)
{
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_list_tag);
    f->body.session_list.offset = offset;
    f->body.session_list.limit = (uint32_t)PDK_CLI_SESSION_PAGE;
    pdk_client_status st = pdk_client_call(cli->client, f, f, on_push, ud);
    if (st == PDK_CLIENT_OK)
        st = pdk_client_expect(cli->client, f, paddock_v1_Frame_session_list_reply_tag);
    return st == PDK_CLIENT_OK ? PDK_CLI_EXIT_OK : pdk_cli_report(cli, st);
}

int pdk_cli_find_session(pdk_cli *cli, uint64_t id, paddock_v1_SessionInfo *out,
                         pdk_client_push_fn on_push, void *ud)
{
    uint32_t offset = 0;
    for (;;) {
        int rc = pdk_cli_list_page(cli, offset, on_push, ud);
        if (rc != 0)
            return rc;
        const paddock_v1_SessionListReply *r = &cli->frame->body.session_list_reply;
        for (pb_size_t i = 0; i < r->sessions_count; i++) {
            if (r->sessions[i].session_id == id) {
                if (out)
                    *out = r->sessions[i];
                return 0;
            }
        }
        offset += r->sessions_count;
        if (r->sessions_count == 0 || offset >= r->total)
            return PDK_CLI_SESSION_MISSING;
    }
}

/* A usage error for a bad option value (err already names the option). */
static int bad_value(const pdk_cli_command *cmd, const char *err)
{
    return pdk_cli_usage_error(cmd, err);
}

/* --- info --------------------------------------------------------------- */

enum { PING_COUNT = 5 };

static int run_info(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
    }
    if (id < 0) {
        return rc;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    /* Round trips and the server's clock: the sample with the shortest
     * round trip gives the offset (docs/protocol.md "Clocks"). */
    double min_ms = 0.0;
    double sum_ms = 0.0;
    int64_t offset_ns = 0;
    for (int i = 0; i < PING_COUNT; i++) {
        int64_t off = 0;
        uint64_t rtt_ns = 0;
        pdk_client_status st = pdk_client_clock_sample(cli->client, cli->frame, &off, &rtt_ns);
        if (st != PDK_CLIENT_OK) {
            rc = pdk_cli_report(cli, st);
            pdk_client_close(cli->client);
            return rc;
        }
        double ms = (double)rtt_ns * 1e-6;
        if (i == 0 || ms < min_ms) {
            min_ms = ms;
            offset_ns = off;
        }
        sum_ms += ms;
    }
    uint64_t server_wall_ns = cli->frame->body.pong.wall_time_ns;
    uint64_t server_mono_ns = cli->frame->body.pong.monotonic_ns;
    const paddock_v1_Welcome *w = &cli->welcome;
    printf("server:       %s\n", pdk_client_server_address(cli->server));
    printf("version:      %s\n", w->server_version[0] != '\0' ? w->server_version : "-");
    printf("build:        %s\n", w->build_id[0] != '\0' ? w->build_id : "-");
    printf("protocol:     %u\n", (unsigned)w->protocol_version);
    printf("tick rate:    %u Hz\n", (unsigned)w->tick_rate_hz);
    printf("max frame:    %u bytes\n", (unsigned)w->max_frame_bytes);
    printf("round trip:   min %.3f ms, avg %.3f ms over %d pings\n", min_ms, sum_ms / PING_COUNT,
           PING_COUNT);
    char when[64];
    pdk_cli_format_wall_ns(when, sizeof when, server_wall_ns);
    printf("server clock: %s (monotonic %.3f s)\n", when, (double)server_mono_ns * 1e-9);
    printf("clock offset: %+.3f ms +- %.3f ms (the server's wall clock minus this machine's)\n",
           (double)offset_ns * 1e-6, min_ms / 2);
    printf("client:       paddock-cli %s (%s)\n", PDK_VERSION, PDK_BUILD_ID);
    pdk_client_close(cli->client);
    return PDK_CLI_EXIT_OK;
}

/* --- sessions ----------------------------------------------------------- */

static int run_sessions(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
    }
    if (id < 0) {
        return rc;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    /* A page at a time: the reply array holds PDK_CLI_SESSION_PAGE sessions. */
    char row[PDK_CLI_ROW_LEN];
    uint32_t offset = 0;
    for (;;) {
        rc = pdk_cli_list_page(cli, offset, NULL, NULL);
        if (rc != 0) {
            pdk_client_close(cli->client);
            return rc;
        }
        const paddock_v1_SessionListReply *r = &cli->frame->body.session_list_reply;
        if (offset == 0) {
            pdk_cli_format_sessions_header(row, sizeof row);
            printf("%s\n", row);
            if (r->total == 0) {
                fprintf(stderr, "no sessions\n");
            }
        }
        for (pb_size_t i = 0; i < r->sessions_count; i++) {
            pdk_cli_format_session(row, sizeof row, &r->sessions[i]);
            printf("%s\n", row);
            if (r->sessions[i].paused) {
                fprintf(stderr, "session %llu is paused: %s\n",
                        (unsigned long long)r->sessions[i].session_id, r->sessions[i].pause_reason);
            }
        }
        offset += r->sessions_count;
        if (r->sessions_count == 0 || offset >= r->total) {
            break;
        }
    }
    pdk_client_close(cli->client);
    return PDK_CLI_EXIT_OK;
}

/* --- create ------------------------------------------------------------- */

enum {
    OPT_NAME = PDK_CLI_OPT_FIRST,
    OPT_WORLD,
    OPT_SET,
    OPT_TIMING,
    OPT_NO_RECORD,
    OPT_SESSION,
    OPT_PRESET,
    OPT_X,
    OPT_Y,
    OPT_YAW,
    OPT_SPEED,
    OPT_GEAR,
    OPT_VEHICLE,
    OPT_WHEELS,
    OPT_PUNCTURE,
    OPT_CONDITION,
    OPT_REPLACE,
    OPT_TEMPERATURE,
    OPT_GRIP,
    OPT_POWER,
    OPT_KEYFRAME_EVERY,
};

static const pdk_cli_opt CREATE_OPTS[] = {
    PDK_CLI_COMMON_OPTS, {"name", OPT_NAME, 1},     {"world", OPT_WORLD, 1},
    {"set", OPT_SET, 1}, {"timing", OPT_TIMING, 1}, {"no-record", OPT_NO_RECORD, 0},
    {"keyframe-every", OPT_KEYFRAME_EVERY, 1},
};

static int run_create(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_SessionCreate req;
    memset(&req, 0, sizeof req);
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_NAME:
            bad = pdk_cli_copy_text("name", v, req.name, sizeof req.name, err, sizeof err);
            break;
        case OPT_WORLD:
            bad = pdk_cli_copy_text("world", v, req.world_preset, sizeof req.world_preset, err,
                                    sizeof err);
            break;
        case OPT_SET:
            bad = pdk_cli_copy_text("set", v, req.world_overrides, sizeof req.world_overrides, err,
                                    sizeof err);
            break;
        case OPT_TIMING:
            bad = pdk_cli_parse_timing("timing", v, &req.timing, err, sizeof err);
            break;
        case OPT_NO_RECORD:
            req.no_record = true;
            break;
        case OPT_KEYFRAME_EVERY: {
            /* Its upper bound is the server's to say. */
            uint64_t n = 0;
            bad = pdk_cli_parse_u64("keyframe-every", v, 1, UINT32_MAX, &n, err, sizeof err);
            req.keyframe_every_ticks = (uint32_t)n;
            break;
        }
        default:
            break;
        }
        if (bad != 0) {
            return bad_value(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_create_tag);
    f->body.session_create = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_session_created_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    const paddock_v1_SessionCreated *created = &cli->frame->body.session_created;
    if (!created->has_session) {
        fprintf(stderr, "paddock: protocol error: the server's SessionCreated has no session\n");
        return PDK_CLI_EXIT_LOST;
    }
    const paddock_v1_SessionInfo *s = &created->session;
    printf("%llu\n", (unsigned long long)s->session_id);
    fprintf(stderr, "created session %llu%s%s%s: world %s, timing %s, %s, at tick %llu\n",
            (unsigned long long)s->session_id, s->name[0] != '\0' ? " \"" : "", s->name,
            s->name[0] != '\0' ? "\"" : "", s->world_preset[0] != '\0' ? s->world_preset : "-",
            pdk_cli_timing_name(s->timing), req.no_record ? "not recorded" : "recorded",
            (unsigned long long)s->tick);
    return PDK_CLI_EXIT_OK;
}

/* --- spawn -------------------------------------------------------------- */

static const pdk_cli_opt SPAWN_OPTS[] = {
    PDK_CLI_COMMON_OPTS,       {"session", OPT_SESSION, 1},
    {"preset", OPT_PRESET, 1}, {"set", OPT_SET, 1},
    {"x", OPT_X, 1},           {"y", OPT_Y, 1},
    {"yaw-deg", OPT_YAW, 1},   {"speed", OPT_SPEED, 1},
    {"gear", OPT_GEAR, 1},
};

/* Positions and speeds are bounded here only to keep nonsense off the wire;
 * the server checks them against the world. */
#define POS_LIMIT_M 1e7
#define SPEED_LIMIT_MPS 1e3

static int run_spawn(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_VehicleSpawn req;
    memset(&req, 0, sizeof req);
    int have_preset = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &req.session_id, err, sizeof err);
            break;
        case OPT_PRESET:
            bad = pdk_cli_copy_text("preset", v, req.preset, sizeof req.preset, err, sizeof err);
            have_preset = 1;
            break;
        case OPT_SET:
            bad = pdk_cli_copy_text("set", v, req.overrides, sizeof req.overrides, err, sizeof err);
            break;
        case OPT_X:
            bad =
                pdk_cli_parse_double("x", v, -POS_LIMIT_M, POS_LIMIT_M, &req.x_m, err, sizeof err);
            break;
        case OPT_Y:
            bad =
                pdk_cli_parse_double("y", v, -POS_LIMIT_M, POS_LIMIT_M, &req.y_m, err, sizeof err);
            break;
        case OPT_YAW:
            bad = pdk_cli_parse_double("yaw-deg", v, -360.0, 360.0, &req.yaw_deg, err, sizeof err);
            break;
        case OPT_SPEED:
            bad = pdk_cli_parse_double("speed", v, -SPEED_LIMIT_MPS, SPEED_LIMIT_MPS,
                                       &req.speed_mps, err, sizeof err);
            break;
        case OPT_GEAR:
            bad = pdk_cli_parse_gear("gear", v, &req.gear, err, sizeof err);
            break;
        default:
            break;
        }
        if (bad != 0) {
            return bad_value(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (req.session_id == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (!have_preset) {
        return pdk_cli_missing(cmd, "preset");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_vehicle_spawn_tag);
    f->body.vehicle_spawn = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_vehicle_spawned_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    const paddock_v1_VehicleSpawned *s = &cli->frame->body.vehicle_spawned;
    printf("%u\n", (unsigned)s->vehicle_id);
    fprintf(stderr, "spawned vehicle %u (%s) in session %llu at tick %llu\n",
            (unsigned)s->vehicle_id, req.preset, (unsigned long long)req.session_id,
            (unsigned long long)s->tick);
    return PDK_CLI_EXIT_OK;
}

/* --- close -------------------------------------------------------------- */

static const pdk_cli_opt CLOSE_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
};

static int run_close(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        if (id == OPT_SESSION &&
            pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &session, err, sizeof err) != 0) {
            return bad_value(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_close_tag);
    f->body.session_close.session_id = session;
    rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    printf("closed session %llu at tick %llu\n", (unsigned long long)session,
           (unsigned long long)cli->frame->body.ok.tick);
    return PDK_CLI_EXIT_OK;
}

/* --- remove ------------------------------------------------------------- */

static const pdk_cli_opt REMOVE_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
    {"vehicle", OPT_VEHICLE, 1},
};

static int run_remove(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    uint64_t vehicle = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        if (id == OPT_SESSION) {
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &session, err, sizeof err);
        } else if (id == OPT_VEHICLE) {
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &vehicle, err, sizeof err);
        }
        if (bad != 0) {
            return bad_value(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (vehicle == 0) {
        return pdk_cli_missing(cmd, "vehicle");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_vehicle_remove_tag);
    f->body.vehicle_remove.session_id = session;
    f->body.vehicle_remove.vehicle_id = (uint32_t)vehicle;
    rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    printf("removed vehicle %llu from session %llu at tick %llu\n", (unsigned long long)vehicle,
           (unsigned long long)session, (unsigned long long)cli->frame->body.ok.tick);
    return PDK_CLI_EXIT_OK;
}

/* --- reset -------------------------------------------------------------- */

static const pdk_cli_opt RESET_OPTS[] = {
    PDK_CLI_COMMON_OPTS, {"session", OPT_SESSION, 1}, {"vehicle", OPT_VEHICLE, 1},
    {"x", OPT_X, 1},     {"y", OPT_Y, 1},             {"yaw-deg", OPT_YAW, 1},
};

static int run_reset(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_VehicleReset req;
    memset(&req, 0, sizeof req);
    uint64_t session = 0;
    uint64_t vehicle = 0;
    int have_x = 0, have_y = 0, have_yaw = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &session, err, sizeof err);
            break;
        case OPT_VEHICLE:
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &vehicle, err, sizeof err);
            break;
        case OPT_X:
            bad =
                pdk_cli_parse_double("x", v, -POS_LIMIT_M, POS_LIMIT_M, &req.x_m, err, sizeof err);
            have_x = 1;
            break;
        case OPT_Y:
            bad =
                pdk_cli_parse_double("y", v, -POS_LIMIT_M, POS_LIMIT_M, &req.y_m, err, sizeof err);
            have_y = 1;
            break;
        case OPT_YAW:
            bad = pdk_cli_parse_double("yaw-deg", v, -360.0, 360.0, &req.yaw_deg, err, sizeof err);
            have_yaw = 1;
            break;
        default:
            break;
        }
        if (bad != 0) {
            return bad_value(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (vehicle == 0) {
        return pdk_cli_missing(cmd, "vehicle");
    }
    if (have_x != have_y || (have_yaw && !have_x)) {
        return pdk_cli_usage_error(cmd, "a place is --x and --y together (and --yaw-deg, "
                                        "default 0); give none to right it where it is");
    }
    req.at_pose = have_x != 0;
    req.session_id = session;
    req.vehicle_id = (uint32_t)vehicle;
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_vehicle_reset_tag);
    f->body.vehicle_reset = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    printf("reset vehicle %llu in session %llu at tick %llu\n", (unsigned long long)vehicle,
           (unsigned long long)session, (unsigned long long)cli->frame->body.ok.tick);
    return PDK_CLI_EXIT_OK;
}

/* --- tyre --------------------------------------------------------------- */

static const pdk_cli_opt TYRE_OPTS[] = {
    PDK_CLI_COMMON_OPTS,           {"session", OPT_SESSION, 1},
    {"vehicle", OPT_VEHICLE, 1},   {"wheels", OPT_WHEELS, 1},
    {"puncture", OPT_PUNCTURE, 1}, {"condition", OPT_CONDITION, 1},
    {"replace", OPT_REPLACE, 0},   {"temperature", OPT_TEMPERATURE, 1},
    {"grip", OPT_GRIP, 1},         {"power", OPT_POWER, 1},
};

/* Values are bounded here only to keep nonsense off the wire; the server
 * checks each against its action's range and names it. */
#define TYRE_VALUE_LIMIT 1e6

static int run_tyre(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_TyreCommand req;
    memset(&req, 0, sizeof req);
    uint64_t session = 0;
    uint64_t vehicle = 0;
    int have_wheels = 0;
    const char *action_opt = NULL;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        paddock_v1_TyreAction action = paddock_v1_TyreAction_TYRE_ACTION_UNSPECIFIED;
        const char *name = NULL;
        switch (id) {
        case OPT_SESSION:
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &session, err, sizeof err);
            break;
        case OPT_VEHICLE:
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &vehicle, err, sizeof err);
            break;
        case OPT_WHEELS:
            bad = pdk_cli_parse_wheels("wheels", v, &req.wheel_mask, err, sizeof err);
            have_wheels = 1;
            break;
        case OPT_CONDITION: {
            paddock_v1_TyreCondition condition = paddock_v1_TyreCondition_TYRE_CONDITION_INTACT;
            action = paddock_v1_TyreAction_TYRE_ACTION_SET_CONDITION;
            name = "condition";
            bad = pdk_cli_parse_tyre_condition(name, v, &condition, err, sizeof err);
            req.value = (double)condition;
            break;
        }
        case OPT_REPLACE:
            action = paddock_v1_TyreAction_TYRE_ACTION_REPLACE;
            name = "replace";
            break;
        case OPT_PUNCTURE:
        case OPT_TEMPERATURE:
        case OPT_GRIP:
        case OPT_POWER:
            /* The actions that take a number. */
            action = id == OPT_PUNCTURE      ? paddock_v1_TyreAction_TYRE_ACTION_PUNCTURE
                     : id == OPT_TEMPERATURE ? paddock_v1_TyreAction_TYRE_ACTION_SET_TEMPERATURE
                     : id == OPT_GRIP        ? paddock_v1_TyreAction_TYRE_ACTION_SET_GRIP_SCALE
                                             : paddock_v1_TyreAction_TYRE_ACTION_SET_POWER_SCALE;
            name = id == OPT_PUNCTURE      ? "puncture"
                   : id == OPT_TEMPERATURE ? "temperature"
                   : id == OPT_GRIP        ? "grip"
                                           : "power";
            bad = pdk_cli_parse_double(name, v, -TYRE_VALUE_LIMIT, TYRE_VALUE_LIMIT, &req.value,
                                       err, sizeof err);
            break;
        default:
            break;
        }
        if (bad != 0) {
            return bad_value(cmd, err);
        }
        if (name != NULL) {
            if (action_opt != NULL) {
                snprintf(err, sizeof err, "--%s and --%s exclude each other: one action at a time",
                         action_opt, name);
                return pdk_cli_usage_error(cmd, err);
            }
            action_opt = name;
            req.action = action;
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (vehicle == 0) {
        return pdk_cli_missing(cmd, "vehicle");
    }
    if (action_opt == NULL) {
        return pdk_cli_usage_error(
            cmd, "no action: give one of --puncture, --condition, --replace, --temperature, "
                 "--grip or --power");
    }
    int power = req.action == paddock_v1_TyreAction_TYRE_ACTION_SET_POWER_SCALE;
    if (power && have_wheels) {
        return pdk_cli_usage_error(cmd, "--wheels does not apply to --power: the engine power "
                                        "scale is the vehicle's");
    }
    if (!have_wheels) {
        req.wheel_mask = 15;
    }
    req.session_id = session;
    req.vehicle_id = (uint32_t)vehicle;
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_tyre_command_tag);
    f->body.tyre_command = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    char wheels[32];
    pdk_cli_format_wheels(req.wheel_mask, wheels, sizeof wheels);
    printf("%s applied to %s%s of vehicle %llu in session %llu at tick %llu\n", action_opt,
           power ? "the engine" : "wheels ", power ? "" : wheels, (unsigned long long)vehicle,
           (unsigned long long)session, (unsigned long long)cli->frame->body.ok.tick);
    return PDK_CLI_EXIT_OK;
}

/* --- the table ---------------------------------------------------------- */

static const pdk_cli_opt NO_OPTS[] = {PDK_CLI_COMMON_OPTS};

#define N_OF PDK_CLI_N_OF

static const pdk_cli_command INFO_COMMAND = {
    "info",
    "",
    "Show the server's version, build, protocol, tick rate, frame limit, ping and clock.",
    "Takes no options of its own.\n",
    NO_OPTS,
    N_OF(NO_OPTS),
    run_info};

static const pdk_cli_command SESSIONS_COMMAND = {
    "sessions",
    "",
    "List the sessions: one row each, under a header.",
    "Columns: ID NAME WORLD TIMING TICK SIM_TIME_S VEH SUBS LATE_P50_MS LATE_P99_MS OVERRUNS\n"
    "TICK_COST_MS ON (where its real-time ticks run: loop or thread) TICK_P99_MS (how long\n"
    "its ticks took, 99th percentile).\n",
    NO_OPTS,
    N_OF(NO_OPTS),
    run_sessions};

static const pdk_cli_command CREATE_COMMAND = {
    "create",
    "[--name N] [--world PRESET] [--set 'k=v;...'] [--timing realtime|fast|lockstep] "
    "[--no-record] [--keyframe-every TICKS]",
    "Create a session; print its id alone on stdout (S=$(paddock create)).",
    "  --name N            a label for people (at most 63 bytes)\n"
    "  --world PRESET      world preset (presets/worlds/PRESET.json); default flat\n"
    "  --set 'k=v;...'     overrides on the world preset, JSON paths\n"
    "  --timing MODE       realtime (the server's default), fast, or lockstep (ticks only\n"
    "                      when the holder of its step lease steps it: paddock stepper)\n"
    "  --no-record         do not record the session\n"
    "  --keyframe-every TICKS  ticks between the recording's keyframes (default 120,\n"
    "                      one a second; at most 72000): fewer make a smaller recording\n",
    CREATE_OPTS,
    N_OF(CREATE_OPTS),
    run_create};

static const pdk_cli_command SPAWN_COMMAND = {
    "spawn",
    "--session S --preset P [--set 'k=v;...'] [--x M] [--y M] [--yaw-deg D] [--speed MPS] "
    "[--gear P|R|N|D|L]",
    "Spawn a vehicle; print its id alone on stdout.",
    "  --session S         the session\n"
    "  --preset P          vehicle preset (presets/vehicles/P.json)\n"
    "  --set 'k=v;...'     overrides on the preset, JSON paths\n"
    "  --x M, --y M        position in the world, metres (default 0, 0)\n"
    "  --yaw-deg D         heading, degrees, positive to the left of +x (default 0)\n"
    "  --speed MPS         initial forward speed, m/s (default 0)\n"
    "  --gear G            P R N D or L (default: park)\n",
    SPAWN_OPTS,
    N_OF(SPAWN_OPTS),
    run_spawn};

static const pdk_cli_command CLOSE_COMMAND = {
    "close",    "--session S",    "Close a session.", "  --session S         the session\n",
    CLOSE_OPTS, N_OF(CLOSE_OPTS), run_close};

static const pdk_cli_command REMOVE_COMMAND = {
    "remove",
    "--session S --vehicle V",
    "Remove a vehicle from a session.",
    "  --session S         the session\n"
    "  --vehicle V         the vehicle\n",
    REMOVE_OPTS,
    N_OF(REMOVE_OPTS),
    run_remove};

static const pdk_cli_command TYRE_COMMAND = {
    "tyre",
    "--session S --vehicle V [--wheels FL,RR|all] (--puncture RATE | --condition C | --replace "
    "| --temperature DEG_C | --grip SCALE | --power SCALE)",
    "Damage, repair or warm a vehicle's tyres (a recorded input, like a drive command).",
    "  --session S         the session\n"
    "  --vehicle V         the vehicle (four-wheel model)\n"
    "  --wheels W          FL, FR, RL, RR, comma-separated, or all (the default)\n"
    "and exactly one action:\n"
    "  --puncture RATE     a leak: share of the air lost per second, 0..1; flat at a quarter\n"
    "  --condition C       intact, flat, rim or detached, at once\n"
    "  --replace           fresh tyres at the ambient temperature\n"
    "  --temperature DEG_C every layer of the tyre at this temperature (tyre warmers)\n"
    "  --grip SCALE        the wheels' damage grip scale, 0..2 (1 undamaged)\n"
    "  --power SCALE       the vehicle's engine power scale, 0..1 (no --wheels)\n",
    TYRE_OPTS,
    N_OF(TYRE_OPTS),
    run_tyre};

static const pdk_cli_command RESET_COMMAND = {
    "reset",
    "--session S --vehicle V [--x M --y M [--yaw-deg D]]",
    "Right a vehicle: upright at rest on the ground, its fault cleared (a recorded input).",
    "  --session S         the session\n"
    "  --vehicle V         the vehicle\n"
    "  --x M, --y M        where, metres (default: where it is, at its own heading)\n"
    "  --yaw-deg D         heading there, degrees, positive to the left of +x (default 0)\n",
    RESET_OPTS,
    N_OF(RESET_OPTS),
    run_reset};

/* In the order `paddock --help` lists them. */
static const pdk_cli_command *const COMMANDS[] = {
    &INFO_COMMAND,
    &SESSIONS_COMMAND,
    &CREATE_COMMAND,
    &SPAWN_COMMAND,
    &pdk_cli_drive_command,
    &TYRE_COMMAND,
    &RESET_COMMAND,
    &pdk_cli_dbw_command,
    &pdk_cli_watch_command,
    &pdk_cli_telemetry_command,
    &pdk_cli_contacts_command,
    &pdk_cli_control_command,
    &pdk_cli_stepper_command,
    &pdk_cli_stats_command,
    &pdk_cli_replay_command,
    &pdk_cli_verify_command,
    &pdk_cli_fork_command,
    &pdk_cli_export_command,
    &pdk_cli_import_command,
    &pdk_cli_csv_command,
    &pdk_cli_meta_command,
    &pdk_cli_recordings_command,
    &REMOVE_COMMAND,
    &CLOSE_COMMAND,
};

static void print_global_help(FILE *out)
{
    fprintf(out, "usage: %s COMMAND [options]\n\nCommands:\n", GLOBAL_SYNOPSIS);
    for (size_t i = 0; i < N_OF(COMMANDS); i++) {
        fprintf(out, "  %-9s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    }
    fprintf(out,
            "\n%s  --version           print the client's version\n"
            "\nRun 'paddock COMMAND --help' for a command's options; docs/cli.md has "
            "examples.\n",
            COMMON_HELP);
}

static const pdk_cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_OF(COMMANDS); i++) {
        if (strcmp(COMMANDS[i]->name, name) == 0) {
            return COMMANDS[i];
        }
    }
    return NULL;
}

enum { OPT_VERSION = PDK_CLI_OPT_FIRST };

static const pdk_cli_opt GLOBAL_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"version", OPT_VERSION, 0},
};

static int global_usage_error(const char *message)
{
    fprintf(stderr, "paddock: %s\n", message);
    fprintf(stderr, "usage: %s COMMAND [options]\nRun 'paddock --help' for the commands.\n",
            GLOBAL_SYNOPSIS);
    return PDK_CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    pdk_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.timeout_ms = PDK_CLI_DEFAULT_TIMEOUT_MS;
    cli.client = &g_client;
    cli.frame = &g_frame;

    char err[PDK_CLI_ERR_LEN];
    pdk_cli_args args = pdk_cli_args_begin(argc, argv, 1, GLOBAL_OPTS, N_OF(GLOBAL_OPTS));
    for (;;) {
        const char *v = NULL;
        int id = pdk_cli_args_next(&args, &v, err, sizeof err);
        if (id == PDK_CLI_ARGS_END) {
            break;
        }
        if (id == PDK_CLI_ARGS_ERROR) {
            return global_usage_error(err);
        }
        switch (id) {
        case PDK_CLI_OPT_HELP:
            print_global_help(stdout);
            return PDK_CLI_EXIT_OK;
        case OPT_VERSION:
            printf("paddock-cli %s (%s), protocol %u\n", PDK_VERSION, PDK_BUILD_ID,
                   PDK_CLIENT_PROTOCOL_VERSION);
            return PDK_CLI_EXIT_OK;
        case PDK_CLI_OPT_SERVER:
            if (v[0] == '\0') {
                return global_usage_error("--server: empty address");
            }
            cli.server = v;
            break;
        case PDK_CLI_OPT_TIMEOUT:
            if (parse_timeout(v, &cli.timeout_ms, err, sizeof err) != 0) {
                return global_usage_error(err);
            }
            cli.timeout_set = 1;
            break;
        case PDK_CLI_OPT_API_KEY:
            cli.api_key = v;
            break;
        case PDK_CLI_OPT_TLS_CA:
            cli.tls.ca_file = v;
            break;
        case PDK_CLI_OPT_TLS_CERT:
            cli.tls.cert_file = v;
            break;
        case PDK_CLI_OPT_TLS_KEY:
            cli.tls.key_file = v;
            break;
        default:
            break;
        }
    }
    if (args.next >= argc) {
        return global_usage_error("no command given");
    }
    const char *name = argv[args.next];
    if (strcmp(name, "help") == 0) {
        const pdk_cli_command *cmd =
            args.next + 1 < argc ? find_command(argv[args.next + 1]) : NULL;
        if (cmd != NULL) {
            print_command_help(cmd);
        } else {
            print_global_help(stdout);
        }
        return PDK_CLI_EXIT_OK;
    }
    const pdk_cli_command *cmd = find_command(name);
    if (cmd == NULL) {
        snprintf(err, sizeof err, "unknown command '%s'", name);
        return global_usage_error(err);
    }
    pdk_cli_args cargs = pdk_cli_args_begin(argc, argv, args.next + 1, cmd->opts, cmd->n_opts);
    return cmd->run(&cli, cmd, &cargs);
}
