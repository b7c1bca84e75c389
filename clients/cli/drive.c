/* paddock drive: plays a drive script (server/params/script.h) against a
 * vehicle, sending each step's DBW command at its time on the monotonic
 * clock and printing the tick the server stamped; Ctrl-C holds the vehicle
 * (throttle 0 and a brake pressure) before leaving. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script.h"

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_VEHICLE,
    OPT_PRESET,
    OPT_SET,
    OPT_SCRIPT,
    OPT_LOOP,
    OPT_HOLD_BRAKE,
};

static const pdk_cli_opt DRIVE_OPTS[] = {
    PDK_CLI_COMMON_OPTS,         {"session", OPT_SESSION, 1},
    {"vehicle", OPT_VEHICLE, 1}, {"preset", OPT_PRESET, 1},
    {"set", OPT_SET, 1},         {"script", OPT_SCRIPT, 1},
    {"loop", OPT_LOOP, 0},       {"hold-brake-bar", OPT_HOLD_BRAKE, 1},
};

/* Line pressure sent with throttle 0 when Ctrl-C stops a drive: enough to
 * hold a car on a slope and within every preset's brake limit. */
#define DEFAULT_HOLD_BRAKE_BAR 30.0
/* Longest sleep between checks of the Ctrl-C flag. */
#define STOP_POLL_S 0.05

typedef struct drive_opts {
    uint64_t session_id;
    uint64_t vehicle_id;           /* 0 with --preset */
    paddock_v1_VehicleSpawn spawn; /* with --preset: preset and overrides */
    int have_preset;
    int have_set;
    const char *script_path;
    int loop;
    double hold_brake_bar;
} drive_opts;

static int parse_opts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args, drive_opts *o,
                      int *exit_code)
{
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, exit_code)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
            bad = pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &o->session_id, err, sizeof err);
            break;
        case OPT_VEHICLE:
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &o->vehicle_id, err, sizeof err);
            break;
        case OPT_PRESET:
            bad = pdk_cli_copy_text("preset", v, o->spawn.preset, sizeof o->spawn.preset, err,
                                    sizeof err);
            o->have_preset = 1;
            break;
        case OPT_SET:
            bad = pdk_cli_copy_text("set", v, o->spawn.overrides, sizeof o->spawn.overrides, err,
                                    sizeof err);
            o->have_set = 1;
            break;
        case OPT_SCRIPT:
            o->script_path = v;
            break;
        case OPT_LOOP:
            o->loop = 1;
            break;
        case OPT_HOLD_BRAKE:
            bad = pdk_cli_parse_double("hold-brake-bar", v, 0.0, 1000.0, &o->hold_brake_bar, err,
                                       sizeof err);
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
    const char *missing = o->session_id == 0 ? "session" : o->script_path == NULL ? "script" : NULL;
    if (missing != NULL) {
        *exit_code = pdk_cli_missing(cmd, missing);
        return -1;
    }
    const char *conflict = NULL;
    if (o->have_preset && o->vehicle_id != 0) {
        conflict = "--vehicle and --preset exclude each other: drive an existing vehicle or "
                   "spawn one";
    } else if (!o->have_preset && o->vehicle_id == 0) {
        conflict = "missing --vehicle V (an existing vehicle) or --preset P (spawn one)";
    } else if (o->have_set && !o->have_preset) {
        conflict = "--set needs --preset (it overrides the preset of the vehicle to spawn)";
    }
    if (conflict != NULL) {
        *exit_code = pdk_cli_usage_error(cmd, conflict);
        return -1;
    }
    return 0;
}

/* Sleeps until the monotonic time target_s; returns non-zero when Ctrl-C
 * came first. */
static int wait_until(double target_s)
{
    for (;;) {
        if (pdk_cli_stop_requested) {
            return 1;
        }
        double left = target_s - pdk_cli_now_s();
        if (left <= 0.0) {
            return 0;
        }
        double nap = left < STOP_POLL_S ? left : STOP_POLL_S;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(nap * 1e9)};
        nanosleep(&ts, NULL); /* EINTR: the loop looks at the flag */
    }
}

/* Steps that share a time are sent back to back, before any reply is
 * awaited, so the server applies them on the same tick, however many there
 * are (play() sizes the group for the longest run). */

typedef struct pending_cmd {
    paddock_v1_DbwCommand cmd;
    uint64_t request_id;
    uint64_t tick;
    int state; /* 0 waiting, 1 ok, -1 refused */
} pending_cmd;

/* Sends n commands (a group of one time) and collects their Ok replies by
 * request id, then prints one row per command in file order. A refused
 * command prints the server's error; the others still print. */
static int send_group(pdk_cli *cli, pending_cmd *group, size_t n, unsigned pass, const char *when)
{
    for (size_t i = 0; i < n; i++) {
        paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_dbw_command_tag);
        f->body.dbw_command = group[i].cmd;
        pdk_client_status st = pdk_client_send(cli->client, f);
        if (st != PDK_CLIENT_OK) {
            return pdk_cli_report(cli, st);
        }
        group[i].request_id = f->request_id;
        group[i].state = 0;
    }
    int rc = PDK_CLI_EXIT_OK;
    const double deadline_s = pdk_cli_now_s() + cli->timeout_ms * 1e-3;
    for (size_t answered = 0; answered < n;) {
        int left_ms = (int)((deadline_s - pdk_cli_now_s()) * 1e3) + 1;
        pdk_client_status st =
            left_ms > 0 ? pdk_client_recv(cli->client, cli->frame, left_ms) : PDK_CLIENT_ETIMEOUT;
        if (st == PDK_CLIENT_ETIMEOUT) {
            fprintf(stderr, "paddock: timeout: no reply to a DBW command within %d ms\n",
                    cli->timeout_ms);
            return PDK_CLI_EXIT_LOST;
        }
        if (st != PDK_CLIENT_OK) {
            return pdk_cli_report(cli, st);
        }
        const paddock_v1_Frame *f = cli->frame;
        pending_cmd *p = NULL;
        for (size_t i = 0; i < n && p == NULL; i++) {
            if (group[i].state == 0 && group[i].request_id == f->request_id) {
                p = &group[i];
            }
        }
        if (p == NULL) {
            continue; /* a pushed frame, or a reply to something else */
        }
        answered++;
        if (f->which_body == paddock_v1_Frame_ok_tag) {
            p->state = 1;
            p->tick = f->body.ok.tick;
        } else if (f->which_body == paddock_v1_Frame_error_tag) {
            p->state = -1;
            fprintf(stderr, "paddock: %s: %s\n", pdk_client_error_code_name(f->body.error.code),
                    f->body.error.message);
            rc = PDK_CLI_EXIT_FAILED;
        } else {
            p->state = -1;
            fprintf(stderr,
                    "paddock: protocol error: expected an ok reply to request %llu, got %s\n",
                    (unsigned long long)f->request_id, pdk_client_body_name(f->which_body));
            rc = PDK_CLI_EXIT_LOST;
        }
    }
    char row[PDK_CLI_ROW_LEN];
    for (size_t i = 0; i < n; i++) {
        if (group[i].state == 1) {
            pdk_cli_format_drive(row, sizeof row, pass, when, group[i].tick, &group[i].cmd);
            printf("%s\n", row);
        }
    }
    fflush(stdout);
    return rc;
}

/* One command outside the script's steps ("init", "hold"). */
static int send_one(pdk_cli *cli, uint64_t session, uint32_t vehicle, const pdk_dbw_cmd *cmd,
                    unsigned pass, const char *when)
{
    pending_cmd one;
    memset(&one, 0, sizeof one);
    pdk_cli_dbw_from_step(&one.cmd, session, vehicle, cmd);
    return send_group(cli, &one, 1, pass, when);
}

/* Throttle 0 and the hold pressure; steering and gear stay as they are. */
static int send_hold(pdk_cli *cli, uint64_t session, uint32_t vehicle, double brake_bar,
                     unsigned pass)
{
    pdk_dbw_cmd hold;
    memset(&hold, 0, sizeof hold);
    hold.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE;
    hold.throttle_pct = 0.0;
    hold.brake_bar = brake_bar;
    return send_one(cli, session, vehicle, &hold, pass, "hold");
}

static int spawn_vehicle(pdk_cli *cli, drive_opts *o, const pdk_script *script, uint32_t *id)
{
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_vehicle_spawn_tag);
    f->body.vehicle_spawn = o->spawn;
    f->body.vehicle_spawn.session_id = o->session_id;
    pdk_cli_spawn_from_initial(&f->body.vehicle_spawn, script);
    int rc = pdk_cli_call(cli, paddock_v1_Frame_vehicle_spawned_tag);
    if (rc != 0) {
        return rc;
    }
    *id = cli->frame->body.vehicle_spawned.vehicle_id;
    fprintf(stderr, "spawned vehicle %u (%s) in session %llu at tick %llu\n", (unsigned)*id,
            o->spawn.preset, (unsigned long long)o->session_id,
            (unsigned long long)cli->frame->body.vehicle_spawned.tick);
    return PDK_CLI_EXIT_OK;
}

/* Asks the server whether the vehicle (--vehicle's, or one of --preset
 * with --set as the spawn would make it) takes each step of the script
 * (ScriptStepCheck), before anything is spawned or sent: a step it would
 * refuse is an error naming the step and the vehicle's limit, and the
 * script does not start. */
static int check_steps(pdk_cli *cli, const drive_opts *o, const pdk_script *script)
{
    for (size_t i = 0; i < script->n_steps; i++) {
        paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_script_step_check_tag);
        paddock_v1_ScriptStepCheck *m = &f->body.script_step_check;
        m->session_id = o->session_id;
        m->vehicle_id = (uint32_t)o->vehicle_id;
        if (o->have_preset) {
            memcpy(m->preset, o->spawn.preset, sizeof m->preset);
            memcpy(m->overrides, o->spawn.overrides, sizeof m->overrides);
        }
        m->step = (uint32_t)i;
        m->t_s = script->steps[i].t_s;
        m->has_command = true;
        pdk_cli_dbw_from_step(&m->command, o->session_id, m->vehicle_id, &script->steps[i].cmd);
        int rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
        if (rc != 0) {
            fprintf(stderr, "paddock drive: %s: refused before it started; nothing was sent\n",
                    o->script_path);
            return rc;
        }
    }
    return PDK_CLI_EXIT_OK;
}

static int play_passes(pdk_cli *cli, const drive_opts *o, uint32_t vehicle,
                       const pdk_script *script, double pass_s, pending_cmd *group,
                       unsigned *pass_out, int *stopped);

/* Plays the steps (repeatedly with --loop). Returns an exit code; *stopped
 * tells whether Ctrl-C ended it. */
static int play(pdk_cli *cli, const drive_opts *o, uint32_t vehicle, const pdk_script *script,
                unsigned *pass_out, int *stopped)
{
    const double pass_s = script->n_steps > 0 ? script->steps[script->n_steps - 1].t_s : 0.0;
    size_t longest = 1;
    for (size_t i = 0, run = 0; i < script->n_steps; i++) {
        run = i > 0 && script->steps[i].t_s == script->steps[i - 1].t_s ? run + 1 : 1;
        longest = run > longest ? run : longest;
    }
    pending_cmd *group = calloc(longest, sizeof *group);
    if (group == NULL) {
        fprintf(stderr, "paddock: out of memory for %zu commands at one time\n", longest);
        return PDK_CLI_EXIT_FAILED;
    }
    int rc = play_passes(cli, o, vehicle, script, pass_s, group, pass_out, stopped);
    free(group);
    return rc;
}

static int play_passes(pdk_cli *cli, const drive_opts *o, uint32_t vehicle,
                       const pdk_script *script, double pass_s, pending_cmd *group,
                       unsigned *pass_out, int *stopped)
{
    const double start_s = pdk_cli_now_s();
    for (unsigned pass = 1;; pass++) {
        *pass_out = pass;
        /* Absolute times from one start, so passes do not drift. */
        const double pass_start_s = start_s + (double)(pass - 1) * pass_s;
        for (size_t i = 0; i < script->n_steps;) {
            const double t_s = script->steps[i].t_s;
            if (wait_until(pass_start_s + t_s)) {
                *stopped = 1;
                return PDK_CLI_EXIT_OK;
            }
            size_t n = 0;
            while (i < script->n_steps && script->steps[i].t_s == t_s) {
                memset(&group[n], 0, sizeof group[n]);
                pdk_cli_dbw_from_step(&group[n].cmd, o->session_id, vehicle, &script->steps[i].cmd);
                n++;
                i++;
            }
            char when[32];
            snprintf(when, sizeof when, "%.3f", t_s);
            int rc = send_group(cli, group, n, pass, when);
            if (rc != 0) {
                return rc;
            }
        }
        if (!o->loop) {
            return PDK_CLI_EXIT_OK;
        }
        if (pdk_cli_stop_requested) {
            *stopped = 1;
            return PDK_CLI_EXIT_OK;
        }
    }
}

static int drive(pdk_cli *cli, drive_opts *o, const pdk_script *script)
{
    int rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    rc = check_steps(cli, o, script);
    if (rc != 0) {
        return rc;
    }
    uint32_t vehicle = (uint32_t)o->vehicle_id;
    if (o->have_preset) {
        rc = spawn_vehicle(cli, o, script, &vehicle);
        if (rc != 0) {
            return rc;
        }
    }
    char header[PDK_CLI_ROW_LEN];
    pdk_cli_format_drive_header(header, sizeof header);
    printf("%s\n", header);
    fflush(stdout);

    /* An existing vehicle cannot be placed, but its gear can be commanded. */
    if (!o->have_preset && (script->initial_fields & PDK_SCRIPT_INIT_GEAR)) {
        pdk_dbw_cmd gear;
        memset(&gear, 0, sizeof gear);
        gear.fields = PDK_DBW_GEAR;
        gear.gear = script->initial_gear;
        rc = send_one(cli, o->session_id, vehicle, &gear, 0, "init");
        if (rc != 0) {
            return rc;
        }
    }

    unsigned pass = 0;
    int stopped = 0;
    rc = play(cli, o, vehicle, script, &pass, &stopped);
    if (stopped) {
        fprintf(stderr, "stopping: holding vehicle %u with throttle 0 and %.1f bar\n",
                (unsigned)vehicle, o->hold_brake_bar);
        rc = send_hold(cli, o->session_id, vehicle, o->hold_brake_bar, pass);
    } else if ((rc == PDK_CLI_EXIT_FAILED || rc == PDK_CLI_EXIT_LOST) &&
               pdk_client_is_connected(cli->client)) {
        /* A step was refused or its reply timed out: do not leave the
         * vehicle on the last throttle it accepted. Best effort; the first
         * failure is what the exit code reports. */
        if (send_hold(cli, o->session_id, vehicle, o->hold_brake_bar, pass) == 0) {
            fprintf(stderr, "held vehicle %u after the failed step\n", (unsigned)vehicle);
        }
    }
    return rc;
}

static int run_drive(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    drive_opts o;
    memset(&o, 0, sizeof o);
    o.hold_brake_bar = DEFAULT_HOLD_BRAKE_BAR;
    int rc = 0;
    if (parse_opts(cli, cmd, args, &o, &rc) != 0) {
        return rc;
    }

    pdk_script script;
    memset(&script, 0, sizeof script);
    char err[PDK_CLI_ERR_LEN];
    pdk_error e = pdk_script_load(o.script_path, &script, err, sizeof err);
    if (e != PDK_OK) {
        fprintf(stderr, "paddock: %s\n", err[0] != '\0' ? err : pdk_error_message(e));
        return PDK_CLI_EXIT_FAILED;
    }
    char keys[64];
    if (!o.have_preset &&
        pdk_cli_initial_places_vehicle(script.initial_fields, keys, sizeof keys)) {
        char msg[PDK_CLI_ERR_LEN];
        snprintf(msg, sizeof msg,
                 "%s: the initial block sets %s, which only a spawn can apply; use --preset P "
                 "instead of --vehicle to spawn a vehicle from the script",
                 o.script_path, keys);
        pdk_script_free(&script);
        return pdk_cli_usage_error(cmd, msg);
    }
    if (o.loop && (script.n_steps == 0 || script.steps[script.n_steps - 1].t_s <= 0.0)) {
        char msg[PDK_CLI_ERR_LEN];
        snprintf(msg, sizeof msg,
                 "%s: --loop needs a last step after t=0 (its t is the length of one pass)",
                 o.script_path);
        pdk_script_free(&script);
        return pdk_cli_usage_error(cmd, msg);
    }

    pdk_cli_catch_stop();
    rc = drive(cli, &o, &script);
    pdk_client_close(cli->client);
    pdk_script_free(&script);
    return rc;
}

const pdk_cli_command pdk_cli_drive_command = {
    "drive",
    "--session S (--vehicle V | --preset P [--set 'k=v;...']) --script FILE.json [--loop] "
    "[--hold-brake-bar BAR]",
    "Send a drive script's DBW commands at their times; one line per command.",
    "  --session S         the session\n"
    "  --vehicle V         drive an existing vehicle (the script's initial block may then\n"
    "                      set only the gear, which is sent as a command first)\n"
    "  --preset P          spawn a vehicle of preset P placed by the script's initial block\n"
    "                      (x_m, y_m, yaw_deg, speed_mps, gear) and drive it\n"
    "  --set 'k=v;...'     overrides on the preset (with --preset)\n"
    "  --script FILE       the drive script (docs/drive-scripts.md)\n"
    "  --loop              play the script again after its last step until Ctrl-C; one pass\n"
    "                      lasts until the last step's t\n"
    "  --hold-brake-bar B  brake pressure sent with throttle 0 on Ctrl-C (default 30)\n"
    "Columns: PASS T_S TICK THROTTLE_PCT BRAKE_BAR STEER_WHL_DEG GEAR ('-': unchanged);\n"
    "TICK is the tick at which the server applies the command.\n",
    DRIVE_OPTS,
    PDK_CLI_N_OF(DRIVE_OPTS),
    run_drive,
};
