/* paddock telemetry: subscribes to channels of a session's vehicles and
 * prints the schema's header once, then one row per vehicle per
 * TelemetryBatch, as aligned columns or as CSV whose doubles read back to
 * the server's bits, until --ticks, --seconds, Ctrl-C or the session's end. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum {
    OPT_CHANNELS = PDK_CLI_OPT_FIRST,
    OPT_VEHICLES,
    OPT_RATE,
    OPT_TICKS,
    OPT_SECONDS,
    OPT_CSV,
};

static const pdk_cli_opt TELEMETRY_OPTS[] = {
    PDK_CLI_COMMON_OPTS,   {"channels", OPT_CHANNELS, 1}, {"vehicles", OPT_VEHICLES, 1},
    {"rate", OPT_RATE, 1}, {"ticks", OPT_TICKS, 1},       {"seconds", OPT_SECONDS, 1},
    {"csv", OPT_CSV, 0},
};

/* The longest a wait for a batch runs before it looks at Ctrl-C and
 * --seconds again. */
#define RECV_SLICE_MS 100

typedef struct telemetry_opts {
    paddock_v1_TelemetrySubscribe sub;
    uint64_t ticks; /* 0: no limit */
    double seconds; /* 0: no limit */
    int csv;
} telemetry_opts;

/* "1,2,3" into the request's vehicle ids. */
static int parse_vehicles(const char *text, paddock_v1_TelemetrySubscribe *sub, char *err,
                          size_t err_len)
{
    const size_t max = PDK_CLI_N_OF(sub->vehicle_ids);
    for (const char *p = text; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        char one[24];
        if (len == 0 || len >= sizeof one) {
            snprintf(err, err_len, "--vehicles: '%s' holds an empty or too long id", text);
            return -1;
        }
        if (sub->vehicle_ids_count >= max) {
            snprintf(err, err_len, "--vehicles: at most %zu vehicles", max);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = '\0';
        uint64_t id = 0;
        if (pdk_cli_parse_u64("vehicles", one, 1, UINT32_MAX, &id, err, err_len) != 0) {
            return -1;
        }
        sub->vehicle_ids[sub->vehicle_ids_count++] = (uint32_t)id;
        p += len + (p[len] == ',');
    }
    return 0;
}

static int parse_opts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                      telemetry_opts *o, int *exit_code)
{
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, exit_code)) > 0) {
        int bad = 0;
        uint64_t n = 0;
        switch (id) {
        case PDK_CLI_OPT_OPERAND:
            bad = pdk_cli_take_session(v, &o->sub.session_id, err, sizeof err);
            break;
        case OPT_CHANNELS:
            bad = pdk_cli_parse_names("channels", v, &o->sub.channels[0][0],
                                      sizeof o->sub.channels[0], PDK_CLI_N_OF(o->sub.channels),
                                      &o->sub.channels_count, err, sizeof err);
            break;
        case OPT_VEHICLES:
            bad = parse_vehicles(v, &o->sub, err, sizeof err);
            break;
        case OPT_RATE:
            /* Whether it divides 120 is the server's to say. */
            bad = pdk_cli_parse_u64("rate", v, 1, UINT32_MAX, &n, err, sizeof err);
            o->sub.rate_hz = (uint32_t)n;
            break;
        case OPT_TICKS:
            bad = pdk_cli_parse_u64("ticks", v, 1, UINT64_MAX, &o->ticks, err, sizeof err);
            break;
        case OPT_SECONDS:
            bad = pdk_cli_parse_double("seconds", v, 1e-3, 1e9, &o->seconds, err, sizeof err);
            break;
        case OPT_CSV:
            o->csv = 1;
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
    if (o->sub.session_id == 0) {
        *exit_code = pdk_cli_missing(cmd, "SESSION");
        return -1;
    }
    if (o->sub.channels_count == 0) {
        *exit_code = pdk_cli_missing(cmd, "channels");
        return -1;
    }
    if (o->ticks > 0 && o->seconds > 0.0) {
        *exit_code = pdk_cli_usage_error(cmd, "give --ticks or --seconds, not both");
        return -1;
    }
    return 0;
}

/* Column widths of the aligned table (not CSV). */
#define TICK_W 10
#define VALUE_W 14

static void print_header(const paddock_v1_TelemetrySchema *schema, int csv)
{
    if (csv) {
        printf("tick,sim_time_s,vehicle_id");
        for (pb_size_t c = 0; c < schema->channels_count; c++) {
            printf(",%s", schema->channels[c].name);
        }
    } else {
        printf("%*s %*s %10s", TICK_W, "TICK", VALUE_W, "SIM_TIME_S", "VEHICLE_ID");
        for (pb_size_t c = 0; c < schema->channels_count; c++) {
            printf(" %*s", VALUE_W, schema->channels[c].name);
        }
    }
    printf("\n");
}

/* One row per vehicle. CSV doubles are %.17g, which reads back to the same
 * bits (the server's CSV export prints them the same way); the table
 * shows six significant digits a person can read. */
static void print_batch(const paddock_v1_TelemetryBatch *b, int csv)
{
    for (pb_size_t r = 0; r < b->rows_count; r++) {
        const paddock_v1_TelemetryRow *row = &b->rows[r];
        if (csv) {
            printf("%llu,%.17g,%u", (unsigned long long)b->tick, b->sim_time_s,
                   (unsigned)row->vehicle_id);
            for (pb_size_t c = 0; c < row->values_count; c++) {
                printf(",%.17g", row->values[c]);
            }
        } else {
            printf("%*llu %*.3f %10u", TICK_W, (unsigned long long)b->tick, VALUE_W, b->sim_time_s,
                   (unsigned)row->vehicle_id);
            for (pb_size_t c = 0; c < row->values_count; c++) {
                printf(" %*.6g", VALUE_W, row->values[c]);
            }
        }
        printf("\n");
    }
    fflush(stdout);
}

/* Receives and prints batches until a limit, Ctrl-C or a pushed error (the
 * session closed, a batch too large). */
static int stream(pdk_cli *cli, const telemetry_opts *o, const paddock_v1_TelemetrySchema *schema)
{
    const uint64_t every = 120u / (schema->rate_hz > 0 ? schema->rate_hz : 120u);
    const double end_s = o->seconds > 0.0 ? pdk_cli_now_s() + o->seconds : 0.0;
    uint64_t first_tick = 0;
    int started = 0;
    for (;;) {
        if (pdk_cli_stop_requested) {
            return PDK_CLI_EXIT_OK;
        }
        int slice_ms = RECV_SLICE_MS;
        if (end_s > 0.0) {
            double left_ms = (end_s - pdk_cli_now_s()) * 1e3;
            if (left_ms <= 0.0) {
                return PDK_CLI_EXIT_OK;
            }
            slice_ms = left_ms < slice_ms ? (int)left_ms + 1 : slice_ms;
        }
        pdk_client_status st = pdk_client_recv(cli->client, cli->frame, slice_ms);
        if (st == PDK_CLIENT_ETIMEOUT) {
            continue;
        }
        if (st != PDK_CLIENT_OK) {
            return pdk_cli_report(cli, st);
        }
        const paddock_v1_Frame *f = cli->frame;
        if (f->request_id != 0) {
            continue;
        }
        if (f->which_body == paddock_v1_Frame_error_tag) {
            fprintf(stderr, "paddock: %s: %s\n", pdk_client_error_code_name(f->body.error.code),
                    f->body.error.message);
            return PDK_CLI_EXIT_FAILED;
        }
        if (f->which_body != paddock_v1_Frame_telemetry_batch_tag ||
            f->body.telemetry_batch.subscription_id != schema->subscription_id) {
            continue;
        }
        const paddock_v1_TelemetryBatch *b = &f->body.telemetry_batch;
        if (!started) {
            first_tick = b->tick;
            started = 1;
        }
        print_batch(b, o->csv);
        /* --ticks N covers ticks first .. first + N - 1: stop once the next
         * batch would fall beyond them. */
        if (o->ticks > 0 && b->tick + every >= first_tick + o->ticks) {
            return PDK_CLI_EXIT_OK;
        }
    }
}

static int run_telemetry(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    static telemetry_opts o;
    memset(&o, 0, sizeof o);
    int rc = 0;
    if (parse_opts(cli, cmd, args, &o, &rc) != 0) {
        return rc;
    }
    pdk_cli_catch_stop();
    rc = pdk_cli_open(cli);
    if (rc != 0) {
        return rc;
    }
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_telemetry_subscribe_tag);
    f->body.telemetry_subscribe = o.sub;
    rc = pdk_cli_call(cli, paddock_v1_Frame_telemetry_schema_tag);
    if (rc != 0) {
        pdk_client_close(cli->client);
        return rc;
    }
    static paddock_v1_TelemetrySchema schema;
    schema = cli->frame->body.telemetry_schema;
    fprintf(stderr, "telemetry of session %llu at %u Hz (subscription %u); Ctrl-C stops\n",
            (unsigned long long)o.sub.session_id, (unsigned)schema.rate_hz,
            (unsigned)schema.subscription_id);
    print_header(&schema, o.csv);
    rc = stream(cli, &o, &schema);
    if (rc == PDK_CLI_EXIT_OK && pdk_client_is_connected(cli->client)) {
        /* Closing would end the subscription too; unsubscribing says so. */
        f = pdk_cli_request(cli, paddock_v1_Frame_unsubscribe_tag);
        f->body.unsubscribe.subscription_id = schema.subscription_id;
        if (pdk_client_call(cli->client, f, f, NULL, NULL) != PDK_CLIENT_OK) {
            fprintf(stderr, "paddock: note: unsubscribe failed: %s\n", cli->client->error);
        }
    }
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_telemetry_command = {
    "telemetry",
    "SESSION --channels A,B,... [--vehicles V,W,...] [--rate HZ] [--ticks N | --seconds S] "
    "[--csv]",
    "Subscribe to telemetry channels and print a row per vehicle per batch.",
    "  SESSION             the session (a live one or a replay)\n"
    "  --channels A,B      channel names, at most 64 (paddockd channels lists them)\n"
    "  --vehicles V,W      only these vehicles, at most 64 (default: every vehicle)\n"
    "  --rate HZ           batches per second; the server takes divisors of 120 (default 120)\n"
    "  --ticks N           stop after the batches of N ticks from the first one\n"
    "  --seconds S         stop after S seconds of wall-clock time\n"
    "  --csv               CSV whose values read back to the server's bits (%.17g)\n"
    "Columns: tick, sim_time_s, vehicle_id, then the channels in the order given; a header\n"
    "row first. A batch holds at most 64 vehicles here. Ctrl-C stops.\n",
    TELEMETRY_OPTS,
    PDK_CLI_N_OF(TELEMETRY_OPTS),
    run_telemetry,
};
