/* paddock watch: subscribes to a session's state and prints one fixed-width
 * line per vehicle per tick until --count ticks, --duration seconds or
 * Ctrl-C, then unsubscribes. A tick of more vehicles than the C client's
 * StateBatch holds comes in parts (StateBatch.part of parts), each printed
 * as it arrives; the tick counts once its last part is in. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_VEHICLE,
    OPT_RATE,
    OPT_COUNT,
    OPT_DURATION,
    OPT_RADIUS,
    OPT_AT,
    OPT_AROUND,
};

static const pdk_cli_opt WATCH_OPTS[] = {
    PDK_CLI_COMMON_OPTS,   {"session", OPT_SESSION, 1}, {"vehicle", OPT_VEHICLE, 1},
    {"rate", OPT_RATE, 1}, {"count", OPT_COUNT, 1},     {"duration", OPT_DURATION, 1},
    {"radius", OPT_RADIUS, 1}, {"at", OPT_AT, 1},      {"around", OPT_AROUND, 1},
};

/* Ten lines a second per vehicle is what a person can follow. */
#define DEFAULT_RATE_HZ 10u
/* The longest a wait for a batch runs before it looks at Ctrl-C and the
 * duration again. */
#define RECV_SLICE_MS 100

typedef struct watch_opts {
    paddock_v1_Subscribe sub;
    uint64_t count;    /* 0: no limit */
    double duration_s; /* 0: no limit */
} watch_opts;

static int parse_opts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args, watch_opts *o,
                      int *exit_code)
{
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int id;
    while ((id = pdk_cli_next_option(cli, cmd, args, &v, exit_code)) > 0) {
        int bad = 0;
        uint64_t n = 0;
        switch (id) {
        case OPT_SESSION:
            bad =
                pdk_cli_parse_u64("session", v, 1, UINT64_MAX, &o->sub.session_id, err, sizeof err);
            break;
        case OPT_VEHICLE: {
            const size_t max = sizeof o->sub.vehicle_ids / sizeof o->sub.vehicle_ids[0];
            if (o->sub.vehicle_ids_count >= max) {
                snprintf(err, sizeof err, "--vehicle: at most %zu vehicles per watch", max);
                bad = -1;
                break;
            }
            bad = pdk_cli_parse_u64("vehicle", v, 1, UINT32_MAX, &n, err, sizeof err);
            o->sub.vehicle_ids[o->sub.vehicle_ids_count++] = (uint32_t)n;
            break;
        }
        case OPT_RATE:
            /* Whether it divides 120 is the server's to say. */
            bad = pdk_cli_parse_u64("rate", v, 1, UINT32_MAX, &n, err, sizeof err);
            o->sub.rate_hz = (uint32_t)n;
            break;
        case OPT_COUNT:
            bad = pdk_cli_parse_u64("count", v, 1, UINT64_MAX, &o->count, err, sizeof err);
            break;
        case OPT_DURATION:
            bad = pdk_cli_parse_double("duration", v, 1e-3, 1e9, &o->duration_s, err, sizeof err);
            break;
        case OPT_RADIUS:
            bad = pdk_cli_parse_double("radius", v, 1e-3, 1e9, &o->sub.aoi_radius_m, err,
                                       sizeof err);
            break;
        case OPT_AT: {
            /* X,Y in metres, world axes. */
            char *end = NULL;
            o->sub.aoi_x_m = strtod(v, &end);
            bad = end == v || *end != ',' || !isfinite(o->sub.aoi_x_m);
            if (!bad) {
                const char *y = end + 1;
                o->sub.aoi_y_m = strtod(y, &end);
                bad = end == y || *end != '\0' || !isfinite(o->sub.aoi_y_m);
            }
            if (bad) {
                snprintf(err, sizeof err, "--at: '%s' is not X,Y in metres (e.g. --at 12.5,-3)",
                         v);
            }
            break;
        }
        case OPT_AROUND:
            bad = pdk_cli_parse_u64("around", v, 1, UINT32_MAX, &n, err, sizeof err);
            o->sub.aoi_vehicle_id = (uint32_t)n;
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
    if (o->sub.aoi_radius_m == 0.0 &&
        (o->sub.aoi_vehicle_id != 0 || o->sub.aoi_x_m != 0.0 || o->sub.aoi_y_m != 0.0)) {
        *exit_code = pdk_cli_usage_error(cmd, "--at and --around go with --radius");
        return -1;
    }
    if (o->sub.session_id == 0) {
        *exit_code = pdk_cli_missing(cmd, "session");
        return -1;
    }
    return 0;
}

/* What the stream has seen; filled by on_frame both for frames received
 * directly and for frames pushed while a liveness check waits for its reply. */
typedef struct watch_state {
    uint32_t subscription_id;
    uint64_t batches;
    double last_batch_s;
    int ended; /* the server ended the subscription with an Error */
    paddock_v1_ErrorCode end_code;
    char end_message[sizeof(((paddock_v1_Error *)0)->message)];
} watch_state;

static void on_frame(const paddock_v1_Frame *f, void *ud)
{
    watch_state *ws = ud;
    if (f->request_id != 0) {
        return;
    }
    if (f->which_body == paddock_v1_Frame_error_tag) {
        ws->ended = 1;
        ws->end_code = f->body.error.code;
        snprintf(ws->end_message, sizeof ws->end_message, "%s", f->body.error.message);
        return;
    }
    if (f->which_body != paddock_v1_Frame_state_batch_tag ||
        f->body.state_batch.subscription_id != ws->subscription_id) {
        return;
    }
    const paddock_v1_StateBatch *b = &f->body.state_batch;
    char row[PDK_CLI_ROW_LEN];
    for (pb_size_t i = 0; i < b->vehicles_count; i++) {
        pdk_cli_format_state(row, sizeof row, b->tick, b->sim_time_s, &b->vehicles[i]);
        printf("%s\n", row);
    }
    fflush(stdout);
    if (b->part + 1u >= b->parts) {
        ws->batches++;
    }
    ws->last_batch_s = pdk_cli_now_s();
}

/* After a quiet spell, asks whether the session still exists: a session
 * closed by someone else ends its subscriptions, and without this check the
 * watch would wait for ever. Returns PDK_CLI_SESSION_MISSING when the
 * session is gone, 0 when it is there, or the exit code of a failed question. */
static int session_gone(pdk_cli *cli, uint64_t session_id, watch_state *ws)
{
    return pdk_cli_find_session(cli, session_id, NULL, on_frame, ws);
}

/* Receives and prints batches until a limit, Ctrl-C, or the end of the
 * session. */
static int stream(pdk_cli *cli, uint64_t session_id, uint64_t count, double duration_s,
                  const paddock_v1_Subscribed *sub)
{
    watch_state ws;
    memset(&ws, 0, sizeof ws);
    ws.subscription_id = sub->subscription_id;
    ws.last_batch_s = pdk_cli_now_s();
    const double period_s = 1.0 / (sub->rate_hz > 0 ? sub->rate_hz : 120u);
    const double timeout_s = cli->timeout_ms * 1e-3;
    const double quiet_s = 3.0 * period_s > timeout_s ? 3.0 * period_s : timeout_s;
    const double end_s = duration_s > 0.0 ? pdk_cli_now_s() + duration_s : 0.0;
    for (;;) {
        if (ws.ended) {
            fprintf(stderr, "paddock: %s: %s\n", pdk_client_error_code_name(ws.end_code),
                    ws.end_message);
            return PDK_CLI_EXIT_FAILED;
        }
        if (pdk_cli_stop_requested || (count > 0 && ws.batches >= count)) {
            return PDK_CLI_EXIT_OK;
        }
        double now_s = pdk_cli_now_s();
        int slice_ms = RECV_SLICE_MS;
        if (end_s > 0.0) {
            double left_ms = (end_s - now_s) * 1e3;
            if (left_ms <= 0.0) {
                return PDK_CLI_EXIT_OK;
            }
            slice_ms = left_ms < slice_ms ? (int)left_ms + 1 : slice_ms;
        }
        if (now_s - ws.last_batch_s > quiet_s) {
            int gone = session_gone(cli, session_id, &ws);
            if (gone == PDK_CLI_SESSION_MISSING) {
                fprintf(stderr, "paddock: session %llu no longer exists (closed)\n",
                        (unsigned long long)session_id);
                return PDK_CLI_EXIT_FAILED;
            }
            if (gone != 0) {
                return gone;
            }
            ws.last_batch_s = pdk_cli_now_s(); /* ask again after another quiet spell */
            continue;
        }
        pdk_client_status st = pdk_client_recv(cli->client, cli->frame, slice_ms);
        if (st == PDK_CLIENT_ETIMEOUT) {
            continue;
        }
        if (st != PDK_CLIENT_OK) {
            return pdk_cli_report(cli, st);
        }
        on_frame(cli->frame, &ws);
    }
}

static int run_watch(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    watch_opts o;
    memset(&o, 0, sizeof o);
    o.sub.rate_hz = DEFAULT_RATE_HZ;
    int rc = 0;
    if (parse_opts(cli, cmd, args, &o, &rc) != 0) {
        return rc;
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    rc = pdk_cli_watch_session(cli, &o.sub, o.count, o.duration_s);
    pdk_client_close(cli->client);
    return rc;
}

int pdk_cli_watch_session(pdk_cli *cli, const paddock_v1_Subscribe *subscribe, uint64_t count,
                          double duration_s)
{
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_subscribe_tag);
    f->body.subscribe = *subscribe;
    int rc = pdk_cli_call(cli, paddock_v1_Frame_subscribed_tag);
    if (rc != 0) {
        return rc;
    }
    const paddock_v1_Subscribed sub = cli->frame->body.subscribed;
    fprintf(stderr, "watching session %llu at %u Hz (subscription %u); Ctrl-C stops\n",
            (unsigned long long)subscribe->session_id, (unsigned)sub.rate_hz,
            (unsigned)sub.subscription_id);
    char header[PDK_CLI_ROW_LEN];
    pdk_cli_format_state_header(header, sizeof header);
    printf("%s\n", header);
    fflush(stdout);

    rc = stream(cli, subscribe->session_id, count, duration_s, &sub);
    if (rc == PDK_CLI_EXIT_OK && pdk_client_is_connected(cli->client)) {
        /* Closing would drop the subscription too; unsubscribing says so. A
         * failure here does not undo the batches already shown. */
        f = pdk_cli_request(cli, paddock_v1_Frame_unsubscribe_tag);
        f->body.unsubscribe.subscription_id = sub.subscription_id;
        pdk_client_status st = pdk_client_call(cli->client, f, f, NULL, NULL);
        if (st != PDK_CLIENT_OK) {
            fprintf(stderr, "paddock: note: unsubscribe failed: %s\n", cli->client->error);
        }
    }
    return rc;
}

const pdk_cli_command pdk_cli_watch_command = {
    "watch",
    "--session S [--vehicle V ...] [--rate HZ] [--count N] [--duration S]\n"
    "                [--radius M [--at X,Y | --around V]]",
    "Subscribe to state and print one line per vehicle per batch.",
    "  --session S         the session\n"
    "  --vehicle V         only this vehicle; repeat for more (default: every vehicle)\n"
    "  --rate HZ           batches per second; the server takes divisors of 120 (default 10)\n"
    "  --count N           stop after N ticks (a tick of over 64 vehicles comes in parts)\n"
    "  --radius M          only vehicles within M metres of --at X,Y (default 0,0) or of\n"
    "                      --around V, the vehicle's place at each tick\n"
    "  --duration S        stop after S seconds\n"
    "Columns: TICK TIME_S ID X_M Y_M YAW_DEG SPEED_KMH YAWRATE_DPS STEER_DEG AX_MPS2 AY_MPS2\n"
    "(STEER_DEG is the road-wheel angle; AX, AY in the body frame). Ctrl-C stops.\n",
    WATCH_OPTS,
    PDK_CLI_N_OF(WATCH_OPTS),
    run_watch,
};
