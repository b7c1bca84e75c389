/* paddock control, stepper and stats: one SessionControl action, a
 * lockstep stepper holding a session's step lease, and the SessionStats
 * stream. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_TICKS,
    OPT_CHUNK,
    OPT_DEADLINE,
    OPT_ON_LAPSE,
    OPT_COUNT,
    OPT_RATE,
};

/* Prints the reply's tick alone on stdout and what the session is doing on
 * stderr. */
static void print_control(const char *what, const paddock_v1_SessionControlReply *r)
{
    printf("%llu\n", (unsigned long long)r->tick);
    const paddock_v1_SessionInfo *s = &r->session;
    fprintf(stderr, "session %llu: %s; at tick %llu, %s%s%s%s%s\n",
            (unsigned long long)s->session_id, what, (unsigned long long)r->tick,
            s->paused ? "paused" : pdk_cli_timing_name(s->timing), s->paused ? ": " : "",
            s->paused ? s->pause_reason : "", s->timing_reason[0] != '\0' ? "; " : "",
            s->timing_reason);
}

/* --- control -------------------------------------------------------------- */

static const pdk_cli_opt CONTROL_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
};

/* Fills the action of req from its word and value. */
static int parse_action(const char *action, const char *value, paddock_v1_SessionControl *req,
                        char *err, size_t err_len)
{
    static const char *const NO_VALUE[] = {"pause", "resume", "reset"};
    for (size_t i = 0; i < PDK_CLI_N_OF(NO_VALUE); i++) {
        if (strcmp(action, NO_VALUE[i]) == 0 && value != NULL) {
            snprintf(err, err_len, "%s takes no value ('%s' is one too many)", action, value);
            return -1;
        }
    }
    if (strcmp(action, "pause") == 0) {
        req->which_action = paddock_v1_SessionControl_pause_tag;
        req->action.pause = true;
        return 0;
    }
    if (strcmp(action, "resume") == 0) {
        req->which_action = paddock_v1_SessionControl_resume_tag;
        req->action.resume = true;
        return 0;
    }
    if (strcmp(action, "reset") == 0) {
        req->which_action = paddock_v1_SessionControl_reset_tag;
        req->action.reset = true;
        return 0;
    }
    static const char *const WITH_VALUE[] = {"step", "run-to", "reseed", "timing", "seek", "speed"};
    size_t k = 0;
    while (k < PDK_CLI_N_OF(WITH_VALUE) && strcmp(action, WITH_VALUE[k]) != 0) {
        k++;
    }
    if (k == PDK_CLI_N_OF(WITH_VALUE)) {
        snprintf(err, err_len,
                 "unknown action '%s' (pause, resume, step N, run-to TICK, reset, reseed SEED, "
                 "timing MODE, seek TICK, speed X)",
                 action);
        return -1;
    }
    if (value == NULL) {
        snprintf(err, err_len, "%s needs a value", action);
        return -1;
    }
    uint64_t n = 0;
    switch (k) {
    case 0:
        req->which_action = paddock_v1_SessionControl_step_tag;
        if (pdk_cli_parse_u64("step", value, 1, 1000000, &n, err, err_len) != 0) {
            return -1;
        }
        req->action.step = (uint32_t)n;
        return 0;
    case 1:
        req->which_action = paddock_v1_SessionControl_run_to_tick_tag;
        return pdk_cli_parse_u64("run-to", value, 0, UINT64_MAX, &req->action.run_to_tick, err,
                                 err_len);
    case 2:
        req->which_action = paddock_v1_SessionControl_reseed_tag;
        return pdk_cli_parse_u64("reseed", value, 0, UINT64_MAX, &req->action.reseed, err, err_len);
    case 3:
        req->which_action = paddock_v1_SessionControl_set_timing_tag;
        return pdk_cli_parse_timing("timing", value, &req->action.set_timing, err, err_len);
    case 4:
        req->which_action = paddock_v1_SessionControl_seek_tag;
        return pdk_cli_parse_u64("seek", value, 0, UINT64_MAX, &req->action.seek, err, err_len);
    default:
        req->which_action = paddock_v1_SessionControl_speed_tag;
        return pdk_cli_parse_double("speed", value, 0.01, 1000.0, &req->action.speed, err, err_len);
    }
}

static int run_control(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    const char *words[3] = {NULL, NULL, NULL};
    size_t n_words = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        if (id == OPT_SESSION) {
            if (pdk_cli_take_session(v, &session, err, sizeof err) != 0) {
                return pdk_cli_usage_error(cmd, err);
            }
        } else if (id == PDK_CLI_OPT_OPERAND) {
            if (n_words == PDK_CLI_N_OF(words)) {
                snprintf(err, sizeof err, "unexpected argument '%s'", v);
                return pdk_cli_usage_error(cmd, err);
            }
            words[n_words++] = v;
        }
    }
    if (id < 0) {
        return rc;
    }
    size_t w = 0;
    if (session == 0 && n_words > 0) {
        if (pdk_cli_take_session(words[w++], &session, err, sizeof err) != 0) {
            return pdk_cli_usage_error(cmd, err);
        }
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (w >= n_words) {
        return pdk_cli_usage_error(cmd, "no action given");
    }
    const char *action = words[w];
    const char *value = w + 1 < n_words ? words[w + 1] : NULL;
    if (w + 2 < n_words) {
        snprintf(err, sizeof err, "unexpected argument '%s'", words[w + 2]);
        return pdk_cli_usage_error(cmd, err);
    }
    paddock_v1_SessionControl req;
    memset(&req, 0, sizeof req);
    req.session_id = session;
    if (parse_action(action, value, &req, err, sizeof err) != 0) {
        return pdk_cli_usage_error(cmd, err);
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    /* Steps and seeks are answered once done. */
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_control_tag);
    f->body.session_control = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_session_control_reply_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    char what[96];
    snprintf(what, sizeof what, "%s%s%s done", action, value ? " " : "", value ? value : "");
    print_control(what, &cli->frame->body.session_control_reply);
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_control_command = {
    "control",
    "[--session] S (pause | resume | step N | run-to TICK | reset | reseed SEED | timing MODE | "
    "seek TICK | speed X)",
    "Pause, resume, step, reset, reseed or retime a session; seek or pace a replay.",
    "  S                   the session (or --session S)\n"
    "  pause               stop ticking (inputs still apply, at once)\n"
    "  resume              tick again, the schedule starting from now\n"
    "  step N              advance N ticks (at most the server's --max-fast-ticks, 432000 by\n"
    "                      default) as fast as the CPU allows, then stay paused; a lockstep\n"
    "                      session takes steps from its stepper only\n"
    "  run-to TICK         advance to TICK, then stay paused\n"
    "  reset               remove every vehicle and reseed from the world's seed (recorded)\n"
    "  reseed SEED         the world's seed from the next tick on (recorded)\n"
    "  timing MODE         realtime, fast or lockstep\n"
    "  seek TICK           a replay: jump to TICK\n"
    "  speed X             a replay: play at X times real time (0.01..1000)\n"
    "Prints the session's tick after the action alone on stdout. Steps and seeks wait for\n"
    "their reply up to 600 s unless --timeout says otherwise.\n",
    CONTROL_OPTS,
    PDK_CLI_N_OF(CONTROL_OPTS),
    run_control,
};

/* --- stepper -------------------------------------------------------------- */

static const pdk_cli_opt STEPPER_OPTS[] = {
    PDK_CLI_COMMON_OPTS,     {"session", OPT_SESSION, 1},      {"ticks", OPT_TICKS, 1},
    {"chunk", OPT_CHUNK, 1}, {"deadline-ms", OPT_DEADLINE, 1}, {"on-lapse", OPT_ON_LAPSE, 1},
};

static int control_call(pdk_cli *cli, const paddock_v1_SessionControl *req)
{
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_control_tag);
    f->body.session_control = *req;
    return pdk_cli_call(cli, paddock_v1_Frame_session_control_reply_tag);
}

static int run_stepper(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    uint64_t ticks = 0;
    uint64_t chunk = 1;
    uint64_t deadline_ms = 0;
    paddock_v1_LapsePolicy on_lapse = paddock_v1_LapsePolicy_LAPSE_PAUSE;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
        case PDK_CLI_OPT_OPERAND:
            bad = pdk_cli_take_session(v, &session, err, sizeof err);
            break;
        case OPT_TICKS:
            bad = pdk_cli_parse_u64("ticks", v, 1, UINT64_MAX / 2, &ticks, err, sizeof err);
            break;
        case OPT_CHUNK:
            bad = pdk_cli_parse_u64("chunk", v, 1, 1000000, &chunk, err, sizeof err);
            break;
        case OPT_DEADLINE:
            bad = pdk_cli_parse_u64("deadline-ms", v, 10, 600000, &deadline_ms, err, sizeof err);
            break;
        case OPT_ON_LAPSE:
            if (strcmp(v, "pause") == 0) {
                on_lapse = paddock_v1_LapsePolicy_LAPSE_PAUSE;
            } else if (strcmp(v, "realtime") == 0) {
                on_lapse = paddock_v1_LapsePolicy_LAPSE_REALTIME;
            } else {
                snprintf(err, sizeof err, "--on-lapse: '%s' is neither pause nor realtime", v);
                bad = -1;
            }
            break;
        default:
            break;
        }
        if (bad != 0) {
            return pdk_cli_usage_error(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (ticks == 0) {
        return pdk_cli_missing(cmd, "ticks");
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_SessionControl req;
    memset(&req, 0, sizeof req);
    req.session_id = session;
    req.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.action.take_step_lease.deadline_ms = (uint32_t)deadline_ms;
    req.action.take_step_lease.on_lapse = on_lapse;
    rc = control_call(cli, &req);
    if (rc != 0) {
        pdk_client_close(cli->client);
        return rc;
    }
    uint64_t start = cli->frame->body.session_control_reply.tick;
    fprintf(stderr,
            "session %llu: holding its step lease at tick %llu; stepping %llu ticks, %llu "
            "at a time\n",
            (unsigned long long)session, (unsigned long long)start, (unsigned long long)ticks,
            (unsigned long long)chunk);
    double t0 = pdk_cli_now_s();
    uint64_t done = 0;
    uint64_t tick = start;
    while (done < ticks && !pdk_cli_stop_requested) {
        uint64_t n = ticks - done < chunk ? ticks - done : chunk;
        memset(&req, 0, sizeof req);
        req.session_id = session;
        req.which_action = paddock_v1_SessionControl_step_tag;
        req.action.step = (uint32_t)n;
        rc = control_call(cli, &req);
        if (rc != 0) {
            pdk_client_close(cli->client);
            return rc;
        }
        tick = cli->frame->body.session_control_reply.tick;
        done += n;
    }
    memset(&req, 0, sizeof req);
    req.session_id = session;
    req.which_action = paddock_v1_SessionControl_release_step_lease_tag;
    req.action.release_step_lease = true;
    rc = control_call(cli, &req);
    pdk_client_close(cli->client);
    double s = pdk_cli_now_s() - t0;
    printf("%llu\n", (unsigned long long)tick);
    fprintf(stderr, "session %llu: stepped %llu ticks to tick %llu in %.3f s (%.0f ticks/s)%s\n",
            (unsigned long long)session, (unsigned long long)done, (unsigned long long)tick, s,
            s > 0.0 ? (double)done / s : 0.0,
            pdk_cli_stop_requested ? "; stopped by a signal" : "");
    return rc;
}

const pdk_cli_command pdk_cli_stepper_command = {
    "stepper",
    "--session S --ticks N [--chunk K] [--deadline-ms MS] [--on-lapse pause|realtime]",
    "Hold a lockstep session's step lease and step it N ticks, K at a time.",
    "  --session S         the session (lockstep timing: paddock create --timing lockstep, or\n"
    "                      paddock control S timing lockstep)\n"
    "  --ticks N           ticks to step in all\n"
    "  --chunk K           ticks per Step request (default 1, at most 1000000 and the\n"
    "                      server's --max-fast-ticks)\n"
    "  --deadline-ms MS    the lease lapses MS after a step without another (10..600000;\n"
    "                      default the server's, 2000)\n"
    "  --on-lapse P        when the lease lapses or this stepper dies: pause (default) or\n"
    "                      realtime (the session falls back to real time)\n"
    "Releases the lease at the end; prints the last tick alone on stdout. Ctrl-C stops after\n"
    "the step in flight.\n",
    STEPPER_OPTS,
    PDK_CLI_N_OF(STEPPER_OPTS),
    run_stepper,
};

/* --- stats ------------------------------------------------------------------ */

static const pdk_cli_opt STATS_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
    {"count", OPT_COUNT, 1},
    {"rate", OPT_RATE, 1},
};

/* The longest a wait for a stats frame runs before it looks at Ctrl-C. */
#define RECV_SLICE_MS 100

static int run_stats(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    uint64_t count = 0;
    uint64_t rate = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        if (id == OPT_SESSION || id == PDK_CLI_OPT_OPERAND) {
            bad = pdk_cli_take_session(v, &session, err, sizeof err);
        } else if (id == OPT_COUNT) {
            bad = pdk_cli_parse_u64("count", v, 1, UINT64_MAX, &count, err, sizeof err);
        } else if (id == OPT_RATE) {
            bad = pdk_cli_parse_u64("rate", v, 1, 60, &rate, err, sizeof err);
        }
        if (bad != 0) {
            return pdk_cli_usage_error(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_stats_subscribe_tag);
    f->body.stats_subscribe.session_id = session;
    f->body.stats_subscribe.rate_hz = (uint32_t)rate;
    rc = pdk_cli_call(cli, paddock_v1_Frame_subscribed_tag);
    if (rc != 0) {
        pdk_client_close(cli->client);
        return rc;
    }
    uint32_t sub = cli->frame->body.subscribed.subscription_id;
    double period_s = 1.0 / cli->frame->body.subscribed.rate_hz;
    char row[PDK_CLI_ROW_LEN + 256];
    pdk_cli_format_stats_header(row, sizeof row);
    printf("%s\n", row);
    fflush(stdout);
    uint64_t seen = 0;
    double last_s = pdk_cli_now_s();
    while (!pdk_cli_stop_requested && (count == 0 || seen < count)) {
        pdk_client_status st = pdk_client_recv(cli->client, cli->frame, RECV_SLICE_MS);
        if (st == PDK_CLIENT_ETIMEOUT) {
            if (pdk_cli_now_s() - last_s > 3.0 * period_s + cli->timeout_ms * 1e-3) {
                fprintf(stderr, "paddock: timeout: no stats for %d ms\n", cli->timeout_ms);
                pdk_client_close(cli->client);
                return PDK_CLI_EXIT_LOST;
            }
            continue;
        }
        if (st != PDK_CLIENT_OK) {
            pdk_client_close(cli->client);
            return pdk_cli_report(cli, st);
        }
        const paddock_v1_Frame *in = cli->frame;
        if (in->request_id == 0 && in->which_body == paddock_v1_Frame_error_tag) {
            fprintf(stderr, "paddock: %s: %s\n", pdk_client_error_code_name(in->body.error.code),
                    in->body.error.message);
            pdk_client_close(cli->client);
            return PDK_CLI_EXIT_FAILED;
        }
        if (in->which_body != paddock_v1_Frame_session_stats_tag ||
            in->body.session_stats.subscription_id != sub) {
            continue;
        }
        pdk_cli_format_stats(row, sizeof row, &in->body.session_stats);
        printf("%s\n", row);
        fflush(stdout);
        seen++;
        last_s = pdk_cli_now_s();
    }
    pdk_client_close(cli->client);
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_stats_command = {
    "stats",
    "--session S [--count N] [--rate HZ]",
    "Print a session's statistics as they stream: tick, pace, pause reason, step lease.",
    "  --session S         the session (or S alone)\n"
    "  --count N           stop after N rows (default: Ctrl-C)\n"
    "  --rate HZ           rows per second, 1..60 (default the server's, 10)\n"
    "Columns: TICK SIM_TIME_S RTF (sim time over wall time since the row before) STATE\n"
    "(paused, or the timing) LEASE (the stepper's connection) LEFT_MS (before its lease lapses)\n"
    "OVERRUNS SKIPPED WRITER_Q (records the database writer has yet to commit) REASON (why it\n"
    "is paused, or why it runs in its timing; the rest of the line).\n",
    STATS_OPTS,
    PDK_CLI_N_OF(STATS_OPTS),
    run_stats,
};
