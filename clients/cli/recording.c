/* paddock replay, verify, fork, export, import, csv and meta: the
 * services of a recorded session (docs/protocol.md, "Recordings"). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_SPEED,
    OPT_PAUSED,
    OPT_WATCH,
    OPT_COUNT,
    OPT_RATE,
    OPT_DURATION,
    OPT_TO_TICK,
    OPT_TICK,
    OPT_NAME,
    OPT_TIMING,
    OPT_OUT,
    OPT_FROM,
    OPT_TO,
    OPT_CHANNELS,
    OPT_VEHICLE,
    OPT_EVERY,
    OPT_MCAP,
    OPT_ZSTD,
};

/* Options that only name the session: parses them, or returns the exit
 * code in *rc and -1. */
static int session_only(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                        uint64_t *session, int *rc)
{
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, rc)) > 0) {
        if ((id == OPT_SESSION || id == PDK_CLI_OPT_OPERAND) &&
            pdk_cli_take_session(v, session, err, sizeof err) != 0) {
            *rc = pdk_cli_usage_error(cmd, err);
            return -1;
        }
    }
    if (id < 0) {
        return -1;
    }
    if (*session == 0) {
        *rc = pdk_cli_missing(cmd, "session");
        return -1;
    }
    return 0;
}

/* --- replay ----------------------------------------------------------------- */

static const pdk_cli_opt REPLAY_OPTS[] = {
    PDK_CLI_COMMON_OPTS,       {"session", OPT_SESSION, 1},   {"speed", OPT_SPEED, 1},
    {"paused", OPT_PAUSED, 0}, {"watch", OPT_WATCH, 0},       {"count", OPT_COUNT, 1},
    {"rate", OPT_RATE, 1},     {"duration", OPT_DURATION, 1},
};

static int run_replay(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_ReplayOpen req;
    memset(&req, 0, sizeof req);
    int watch = 0;
    uint64_t count = 0;
    uint64_t rate = 10;
    double duration_s = 0.0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
        case PDK_CLI_OPT_OPERAND:
            bad = pdk_cli_take_session(v, &req.session_id, err, sizeof err);
            break;
        case OPT_SPEED:
            bad = pdk_cli_parse_double("speed", v, 0.01, 1000.0, &req.speed, err, sizeof err);
            break;
        case OPT_PAUSED:
            req.paused = true;
            break;
        case OPT_WATCH:
            watch = 1;
            break;
        case OPT_COUNT:
            bad = pdk_cli_parse_u64("count", v, 1, UINT64_MAX, &count, err, sizeof err);
            break;
        case OPT_RATE:
            bad = pdk_cli_parse_u64("rate", v, 1, 120, &rate, err, sizeof err);
            break;
        case OPT_DURATION:
            bad = pdk_cli_parse_double("duration", v, 1e-3, 1e9, &duration_s, err, sizeof err);
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
    if (req.session_id == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (!watch && (count != 0 || duration_s != 0.0)) {
        return pdk_cli_usage_error(cmd, "--count and --duration go with --watch");
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_replay_open_tag);
    f->body.replay_open = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_session_created_tag);
    if (rc != 0) {
        pdk_client_close(cli->client);
        return rc;
    }
    const paddock_v1_SessionInfo info = cli->frame->body.session_created.session;
    printf("%llu\n", (unsigned long long)info.session_id);
    fflush(stdout);
    fprintf(stderr,
            "replaying session %llu as session %llu from tick %llu at %g x real time%s; "
            "close it with paddock close --session %llu\n",
            (unsigned long long)req.session_id, (unsigned long long)info.session_id,
            (unsigned long long)info.tick, req.speed > 0.0 ? req.speed : 1.0,
            req.paused ? ", paused" : "", (unsigned long long)info.session_id);
    if (watch) {
        paddock_v1_Subscribe sub;
        memset(&sub, 0, sizeof sub);
        sub.session_id = info.session_id;
        sub.rate_hz = (uint32_t)rate;
        cli->client->timeout_ms = cli->timeout_ms;
        rc = pdk_cli_watch_session(cli, &sub, count, duration_s);
    }
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_replay_command = {
    "replay",
    "[--session] S [--speed X] [--paused] [--watch [--rate HZ] [--count N] [--duration S]]",
    "Play a recorded session as a new read-only session; print the replay's id.",
    "  S                   the recorded session (or --session S)\n"
    "  --speed X           times real time, 0.01..1000 (default 1)\n"
    "  --paused            open it paused at its first tick (paddock control ID resume|step N)\n"
    "  --watch             then show its state as `paddock watch` does\n"
    "  --rate HZ, --count N, --duration S   as for watch\n"
    "The replay takes no commands (fork it to drive); it pauses at the recording's last tick\n"
    "and stays until closed (paddock close --session ID).\n",
    REPLAY_OPTS,
    PDK_CLI_N_OF(REPLAY_OPTS),
    run_replay,
};

/* --- verify ------------------------------------------------------------------ */

static const pdk_cli_opt VERIFY_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
    {"to-tick", OPT_TO_TICK, 1},
};

static int run_verify(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_VerifyRequest req;
    memset(&req, 0, sizeof req);
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        if (id == OPT_SESSION || id == PDK_CLI_OPT_OPERAND) {
            bad = pdk_cli_take_session(v, &req.session_id, err, sizeof err);
        } else if (id == OPT_TO_TICK) {
            bad = pdk_cli_parse_u64("to-tick", v, 1, UINT64_MAX, &req.to_tick, err, sizeof err);
        }
        if (bad != 0) {
            return pdk_cli_usage_error(cmd, err);
        }
    }
    if (id < 0) {
        return rc;
    }
    if (req.session_id == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_verify_request_tag);
    f->body.verify_request = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_verify_reply_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    static char text[2048];
    pdk_cli_format_verify(text, sizeof text, &cli->frame->body.verify_reply);
    fputs(text, stdout);
    return cli->frame->body.verify_reply.match ? PDK_CLI_EXIT_OK : PDK_CLI_EXIT_FAILED;
}

const pdk_cli_command pdk_cli_verify_command = {
    "verify",
    "[--session] S [--to-tick T]",
    "Re-simulate a recorded session and compare every recorded state hash.",
    "  S                   the recorded session (or --session S)\n"
    "  --to-tick T         stop at tick T (default: its last recorded tick)\n"
    "Prints one 'key: value' line per result field (as paddockd verify does). Exit status 0\n"
    "when every hash matched, 1 on a mismatch (first_divergent names the tick, vehicle and\n"
    "field) or a refusal. Waits up to 600 s unless --timeout says otherwise.\n",
    VERIFY_OPTS,
    PDK_CLI_N_OF(VERIFY_OPTS),
    run_verify,
};

/* --- fork ------------------------------------------------------------------------ */

static const pdk_cli_opt FORK_OPTS[] = {
    PDK_CLI_COMMON_OPTS,   {"session", OPT_SESSION, 1}, {"tick", OPT_TICK, 1},
    {"name", OPT_NAME, 1}, {"timing", OPT_TIMING, 1},
};

static int run_fork(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_ForkRequest req;
    memset(&req, 0, sizeof req);
    int have_tick = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_SESSION:
        case PDK_CLI_OPT_OPERAND:
            bad = pdk_cli_take_session(v, &req.session_id, err, sizeof err);
            break;
        case OPT_TICK:
            bad = pdk_cli_parse_u64("tick", v, 0, UINT64_MAX, &req.tick, err, sizeof err);
            have_tick = 1;
            break;
        case OPT_NAME:
            bad = pdk_cli_copy_text("name", v, req.name, sizeof req.name, err, sizeof err);
            break;
        case OPT_TIMING:
            bad = pdk_cli_parse_timing("timing", v, &req.timing, err, sizeof err);
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
    if (req.session_id == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (!have_tick) {
        return pdk_cli_missing(cmd, "tick");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_fork_request_tag);
    f->body.fork_request = req;
    rc = pdk_cli_call(cli, paddock_v1_Frame_session_created_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    const paddock_v1_SessionInfo *s = &cli->frame->body.session_created.session;
    printf("%llu\n", (unsigned long long)s->session_id);
    fprintf(stderr, "forked session %llu at tick %llu as session %llu \"%s\" (%s, %u vehicles)\n",
            (unsigned long long)req.session_id, (unsigned long long)req.tick,
            (unsigned long long)s->session_id, s->name, pdk_cli_timing_name(s->timing),
            (unsigned)s->vehicle_count);
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_fork_command = {
    "fork",
    "[--session] S --tick T [--name N] [--timing realtime|fast|lockstep]",
    "Start a live, recorded session from a recording's state at a tick; print its id.",
    "  S                   the recorded session (or --session S)\n"
    "  --tick T            the tick to start from (within the recording)\n"
    "  --name N            the new session's name (default \"fork of S at T\")\n"
    "  --timing MODE       realtime (default), fast or lockstep\n",
    FORK_OPTS,
    PDK_CLI_N_OF(FORK_OPTS),
    run_fork,
};

/* --- export and csv: files in chunks ---------------------------------------- */

static int file_sink(const uint8_t *data, size_t len, void *ud)
{
    return fwrite(data, 1, len, ud) == len ? 0 : -1;
}

/* Sends the request in cli->frame and writes the chunks of its reply to out
 * ("-": stdout), through a temporary file beside it that is renamed once
 * complete, so a failure leaves no half file. */
static int download(pdk_cli *cli, const char *out, const char *what)
{
    int to_stdout = strcmp(out, "-") == 0;
    char tmp[4200];
    FILE *fp = stdout;
    if (!to_stdout) {
        snprintf(tmp, sizeof tmp, "%s.part", out);
        fp = fopen(tmp, "wb");
        if (fp == NULL) {
            fprintf(stderr, "paddock: cannot write %s: %s\n", tmp, strerror(errno));
            return PDK_CLI_EXIT_FAILED;
        }
    }
    uint64_t total = 0;
    double t0 = pdk_cli_now_s();
    pdk_client_status st =
        pdk_client_download(cli->client, cli->frame, file_sink, fp, NULL, NULL, &total);
    int closed = to_stdout ? fflush(fp) : fclose(fp);
    if (st == PDK_CLIENT_OK && closed != 0) {
        fprintf(stderr, "paddock: cannot write %s: %s\n", to_stdout ? "stdout" : tmp,
                strerror(errno));
        st = PDK_CLIENT_EINVAL;
        if (!to_stdout) {
            unlink(tmp);
        }
        return PDK_CLI_EXIT_FAILED;
    }
    if (st != PDK_CLIENT_OK) {
        if (!to_stdout) {
            unlink(tmp);
        }
        return pdk_cli_report(cli, st);
    }
    if (!to_stdout && rename(tmp, out) != 0) {
        fprintf(stderr, "paddock: cannot rename %s to %s: %s\n", tmp, out, strerror(errno));
        unlink(tmp);
        return PDK_CLI_EXIT_FAILED;
    }
    fprintf(stderr, "%s: %llu bytes to %s in %.3f s\n", what, (unsigned long long)total,
            to_stdout ? "stdout" : out, pdk_cli_now_s() - t0);
    return PDK_CLI_EXIT_OK;
}

static const pdk_cli_opt EXPORT_OPTS[] = {
    PDK_CLI_COMMON_OPTS,   {"session", OPT_SESSION, 1},   {"out", OPT_OUT, 1},
    {"mcap", OPT_MCAP, 0}, {"channels", OPT_CHANNELS, 1}, {"zstd", OPT_ZSTD, 0},
};

static int run_export(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    /* Static: its channel names are a few KiB. */
    static paddock_v1_McapExportRequest mcap;
    memset(&mcap, 0, sizeof mcap);
    uint64_t session = 0;
    const char *out = NULL;
    bool as_mcap = false, chose_channels = false, zstd = false;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        if ((id == OPT_SESSION || id == PDK_CLI_OPT_OPERAND) &&
            pdk_cli_take_session(v, &session, err, sizeof err) != 0) {
            return pdk_cli_usage_error(cmd, err);
        }
        if (id == OPT_OUT) {
            out = v;
        }
        if (id == OPT_MCAP) {
            as_mcap = true;
        }
        if (id == OPT_ZSTD) {
            zstd = true;
        }
        if (id == OPT_CHANNELS) {
            chose_channels = true;
            if (pdk_cli_parse_names("channels", v, &mcap.channels[0][0], sizeof mcap.channels[0],
                                    PDK_CLI_N_OF(mcap.channels), &mcap.channels_count, err,
                                    sizeof err) != 0) {
                return pdk_cli_usage_error(cmd, err);
            }
        }
    }
    if (id < 0) {
        return rc;
    }
    if ((chose_channels || zstd) && !as_mcap) {
        return pdk_cli_usage_error(
            cmd, chose_channels ? "--channels picks an MCAP file's telemetry: add --mcap"
                                : "--zstd compresses an MCAP file's chunks: add --mcap");
    }
    if (session == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    if (out == NULL) {
        return pdk_cli_missing(cmd, "out");
    }
    if (access(out, F_OK) == 0) {
        fprintf(stderr, "paddock: %s already exists; export writes a new file\n", out);
        return PDK_CLI_EXIT_FAILED;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    char what[64];
    if (as_mcap) {
        paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_mcap_export_request_tag);
        mcap.session_id = session;
        snprintf(mcap.compression, sizeof mcap.compression, "%s", zstd ? "zstd" : "");
        f->body.mcap_export_request = mcap;
        snprintf(what, sizeof what, "MCAP of session %llu", (unsigned long long)session);
    } else {
        paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_export_request_tag);
        f->body.export_request.session_id = session;
        snprintf(what, sizeof what, "exported session %llu", (unsigned long long)session);
    }
    rc = download(cli, out, what);
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_export_command = {
    "export",
    "[--session] S --out FILE.db | --mcap [--session] S [--channels A,B,...] [--zstd] --out "
    "FILE.mcap",
    "Write a recorded session as a standalone SQLite file, or re-simulated as MCAP.",
    "  S                   the session (or --session S); a running or interrupted one is\n"
    "                      written as far as it is committed\n"
    "  --out FILE          the new file (refused when it exists)\n"
    "  --mcap              write an indexed MCAP file instead (Foxglove, Lichtblick, any MCAP\n"
    "                      reader): per vehicle its state, telemetry and DBW reports at\n"
    "                      every tick, log time = sim time (docs/web.md \"MCAP export\")\n"
    "  --channels A,B      with --mcap: the telemetry channels (paddockd channels lists them;\n"
    "                      default: all)\n"
    "  --zstd              with --mcap: compress its chunks with zstd (Foxglove and\n"
    "                      Lichtblick read them)\n",
    EXPORT_OPTS,
    PDK_CLI_N_OF(EXPORT_OPTS),
    run_export,
};

static const pdk_cli_opt CSV_OPTS[] = {
    PDK_CLI_COMMON_OPTS,     {"session", OPT_SESSION, 1},   {"from", OPT_FROM, 1},
    {"to", OPT_TO, 1},       {"channels", OPT_CHANNELS, 1}, {"vehicle", OPT_VEHICLE, 1},
    {"every", OPT_EVERY, 1}, {"out", OPT_OUT, 1},
};

static int run_csv(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    static paddock_v1_CsvExportRequest req;
    memset(&req, 0, sizeof req);
    const char *out = "-";
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        uint64_t n = 0;
        switch (id) {
        case OPT_SESSION:
        case PDK_CLI_OPT_OPERAND:
            bad = pdk_cli_take_session(v, &req.session_id, err, sizeof err);
            break;
        case OPT_FROM:
            bad = pdk_cli_parse_u64("from", v, 0, UINT64_MAX, &req.from_tick, err, sizeof err);
            break;
        case OPT_TO:
            bad = pdk_cli_parse_u64("to", v, 1, UINT64_MAX, &req.to_tick, err, sizeof err);
            break;
        case OPT_CHANNELS:
            bad = pdk_cli_parse_names("channels", v, &req.channels[0][0], sizeof req.channels[0],
                                      PDK_CLI_N_OF(req.channels), &req.channels_count, err,
                                      sizeof err);
            break;
        case OPT_VEHICLE:
            if (req.vehicle_ids_count >= PDK_CLI_N_OF(req.vehicle_ids)) {
                snprintf(err, sizeof err, "--vehicle: at most %zu vehicles",
                         PDK_CLI_N_OF(req.vehicle_ids));
                bad = -1;
                break;
            }
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &n, err, sizeof err);
            req.vehicle_ids[req.vehicle_ids_count++] = (uint32_t)n;
            break;
        case OPT_EVERY:
            bad = pdk_cli_parse_u64("every", v, 1, 1000000, &n, err, sizeof err);
            req.every_ticks = (uint32_t)n;
            break;
        case OPT_OUT:
            out = v;
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
    if (req.session_id == 0) {
        return pdk_cli_missing(cmd, "session");
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_csv_export_request_tag);
    f->body.csv_export_request = req;
    char what[64];
    snprintf(what, sizeof what, "CSV of session %llu", (unsigned long long)req.session_id);
    rc = download(cli, out, what);
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_csv_command = {
    "csv",
    "[--session] S [--from T] [--to T] [--channels A,B,...] [--vehicle V ...] [--every N] "
    "[--out FILE.csv]",
    "Telemetry of a recorded session's ticks, re-simulated, as CSV.",
    "  S                   the recorded session (or --session S)\n"
    "  --from T, --to T    the ticks, inclusive (default: from its start to its last tick)\n"
    "  --channels A,B      channel names (paddockd channels lists them; default: all)\n"
    "  --vehicle V         only this vehicle; repeat for more (default: every vehicle)\n"
    "  --every N           one row per vehicle every N ticks (default 1)\n"
    "  --out FILE.csv      where to write (default '-': stdout)\n"
    "Columns: tick, time_s, vehicle, then the channels; a header row first.\n",
    CSV_OPTS,
    PDK_CLI_N_OF(CSV_OPTS),
    run_csv,
};

/* --- import ------------------------------------------------------------------------- */

static const pdk_cli_opt IMPORT_OPTS[] = {PDK_CLI_COMMON_OPTS};

static long file_source(uint8_t *buf, size_t cap, void *ud)
{
    size_t n = fread(buf, 1, cap, ud);
    return ferror((FILE *)ud) ? -1 : (long)n;
}

static int run_import(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    const char *path = NULL;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        if (id == PDK_CLI_OPT_OPERAND) {
            if (path != NULL) {
                snprintf(err, sizeof err, "unexpected argument '%s' (one file at a time)", v);
                return pdk_cli_usage_error(cmd, err);
            }
            path = v;
        }
    }
    if (id < 0) {
        return rc;
    }
    if (path == NULL) {
        return pdk_cli_usage_error(cmd, "no file given");
    }
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        fprintf(stderr, "paddock: cannot read %s: %s\n", path, strerror(errno));
        return PDK_CLI_EXIT_FAILED;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        fclose(fp);
        return rc;
    }
    pdk_cli_long_wait(cli);
    pdk_client_status st = pdk_client_upload(cli->client, cli->frame, file_source, fp, NULL, NULL);
    int read_failed = ferror(fp);
    fclose(fp);
    pdk_client_close(cli->client);
    if (st != PDK_CLIENT_OK) {
        if (read_failed) {
            fprintf(stderr, "paddock: cannot read %s\n", path);
            return PDK_CLI_EXIT_FAILED;
        }
        return pdk_cli_report(cli, st);
    }
    const paddock_v1_SessionImported *r = &cli->frame->body.session_imported;
    printf("%llu\n", (unsigned long long)r->session_id);
    fprintf(stderr, "imported %s as session %llu (originally session %llu, last tick %llu)\n", path,
            (unsigned long long)r->session_id, (unsigned long long)r->original_session_id,
            (unsigned long long)r->last_tick);
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_import_command = {
    "import",
    "FILE.db",
    "Upload a standalone session file (paddock export) as a new session; print its id.",
    "  FILE.db             the file; the session gets a new id here\n",
    IMPORT_OPTS,
    PDK_CLI_N_OF(IMPORT_OPTS),
    run_import,
};

/* --- meta --------------------------------------------------------------------------- */

static const pdk_cli_opt META_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
};

static int run_meta(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    int rc = 0;
    if (session_only(cli, cmd, args, &session, &rc) != 0) {
        return rc;
    }
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    pdk_cli_long_wait(cli);
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_session_meta_request_tag);
    f->body.session_meta_request.session_id = session;
    rc = pdk_cli_call(cli, paddock_v1_Frame_session_meta_tag);
    pdk_client_close(cli->client);
    if (rc != 0) {
        return rc;
    }
    const char *json = cli->frame->body.session_meta.json;
    size_t len = strlen(json);
    printf("%s%s", json, len > 0 && json[len - 1] == '\n' ? "" : "\n");
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_meta_command = {
    "meta",
    "[--session] S",
    "Print a recorded session's metadata as JSON.",
    "  S                   the recorded session (or --session S)\n"
    "The header (name, build, world, ticks, parent), the vehicles (preset, overrides, spawn and\n"
    "removal ticks), counts of inputs, hashes and keyframes, and whether it was interrupted.\n",
    META_OPTS,
    PDK_CLI_N_OF(META_OPTS),
    run_meta,
};
