/* paddock contacts: subscribes to a session's contact events
 * (ContactSubscribe) and prints one fixed-width line per contact until
 * --count contacts, --duration seconds, Ctrl-C or the session's end, then
 * unsubscribes. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

enum {
    OPT_SESSION = PDK_CLI_OPT_FIRST,
    OPT_COUNT,
    OPT_DURATION,
};

static const pdk_cli_opt CONTACTS_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"session", OPT_SESSION, 1},
    {"count", OPT_COUNT, 1},
    {"duration", OPT_DURATION, 1},
};

/* The longest a wait for a frame runs before it looks at Ctrl-C and the
 * duration again. */
#define RECV_SLICE_MS 100

typedef struct contacts_opts {
    uint64_t session_id;
    uint64_t count;    /* 0: no limit */
    double duration_s; /* 0: no limit */
} contacts_opts;

static int parse_opts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                      contacts_opts *o, int *exit_code)
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
        case OPT_COUNT:
            bad = pdk_cli_parse_u64("count", v, 1, UINT64_MAX, &o->count, err, sizeof err);
            break;
        case OPT_DURATION:
            bad = pdk_cli_parse_double("duration", v, 1e-3, 1e9, &o->duration_s, err, sizeof err);
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
    if (o->session_id == 0) {
        *exit_code = pdk_cli_missing(cmd, "session");
        return -1;
    }
    return 0;
}

typedef struct contacts_state {
    uint32_t subscription_id;
    uint64_t printed;
    uint64_t limit; /* 0: none */
    int ended;      /* the server ended the subscription with an Error */
    paddock_v1_ErrorCode end_code;
    char end_message[sizeof(((paddock_v1_Error *)0)->message)];
} contacts_state;

/* A body as "v3" (vehicle 3) or "p2" (proxy 2). */
static void body_name(char *out, size_t len, uint32_t vehicle, uint32_t proxy)
{
    if (proxy != 0) {
        snprintf(out, len, "p%u", (unsigned)proxy);
    } else {
        snprintf(out, len, "v%u", (unsigned)vehicle);
    }
}

static void print_frame(contacts_state *cs, const paddock_v1_ContactEvents *m)
{
    if (m->first == 0 && (m->dropped != 0 || m->missed != 0)) {
        printf("# tick %llu: %u contacts dropped (beyond the world's event buffer), %u missed\n",
               (unsigned long long)m->tick, (unsigned)m->dropped, (unsigned)m->missed);
    }
    for (pb_size_t i = 0; i < m->events_count; i++) {
        if (cs->limit > 0 && cs->printed >= cs->limit) {
            break;
        }
        const paddock_v1_ContactEvent *e = &m->events[i];
        char a[16], b[16];
        body_name(a, sizeof a, e->a_vehicle_id, e->a_proxy_id);
        body_name(b, sizeof b, e->b_vehicle_id, e->b_proxy_id);
        printf("%8llu %9.3f %6s %6s %9.3f %9.3f %7.3f %7.4f %7.4f %7.4f %10.2f %10.2f %10.2f "
               "%10.2f %8.3f %7.4f %3u\n",
               (unsigned long long)m->tick, m->sim_time_s, a, b, e->x_m, e->y_m, e->z_m, e->nx,
               e->ny, e->nz, e->normal_impulse_ns, e->ix_ns, e->iy_ns, e->iz_ns, e->approach_mps,
               e->depth_m, (unsigned)e->points);
        cs->printed++;
    }
    fflush(stdout);
}

static void on_frame(const paddock_v1_Frame *f, void *ud)
{
    contacts_state *cs = ud;
    if (f->request_id != 0) {
        return;
    }
    if (f->which_body == paddock_v1_Frame_error_tag) {
        cs->ended = 1;
        cs->end_code = f->body.error.code;
        snprintf(cs->end_message, sizeof cs->end_message, "%s", f->body.error.message);
        return;
    }
    if (f->which_body == paddock_v1_Frame_contact_events_tag &&
        f->body.contact_events.subscription_id == cs->subscription_id) {
        print_frame(cs, &f->body.contact_events);
    }
}

/* Receives and prints contacts until a limit, Ctrl-C, or the end of the
 * session (which ends the subscription with an Error). */
static int stream(pdk_cli *cli, contacts_state *cs, double duration_s)
{
    const double end_s = duration_s > 0.0 ? pdk_cli_now_s() + duration_s : 0.0;
    for (;;) {
        if (cs->ended) {
            fprintf(stderr, "paddock: %s: %s\n", pdk_client_error_code_name(cs->end_code),
                    cs->end_message);
            return PDK_CLI_EXIT_FAILED;
        }
        if (pdk_cli_stop_requested || (cs->limit > 0 && cs->printed >= cs->limit)) {
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
        on_frame(cli->frame, cs);
    }
}

static int run_contacts(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    contacts_opts o;
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
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_contact_subscribe_tag);
    f->body.contact_subscribe.session_id = o.session_id;
    rc = pdk_cli_call(cli, paddock_v1_Frame_subscribed_tag);
    if (rc != 0) {
        pdk_client_close(cli->client);
        return rc;
    }
    contacts_state cs;
    memset(&cs, 0, sizeof cs);
    cs.subscription_id = cli->frame->body.subscribed.subscription_id;
    cs.limit = o.count;
    fprintf(stderr, "contacts of session %llu (subscription %u); Ctrl-C stops\n",
            (unsigned long long)o.session_id, (unsigned)cs.subscription_id);
    printf("%8s %9s %6s %6s %9s %9s %7s %7s %7s %7s %10s %10s %10s %10s %8s %7s %3s\n", "TICK",
           "TIME_S", "A", "B", "X_M", "Y_M", "Z_M", "NX", "NY", "NZ", "IN_NS", "IX_NS", "IY_NS",
           "IZ_NS", "APPR_MPS", "DEPTH_M", "PTS");
    fflush(stdout);
    rc = stream(cli, &cs, o.duration_s);
    if (rc == PDK_CLI_EXIT_OK && pdk_client_is_connected(cli->client)) {
        f = pdk_cli_request(cli, paddock_v1_Frame_unsubscribe_tag);
        f->body.unsubscribe.subscription_id = cs.subscription_id;
        if (pdk_client_call(cli->client, f, f, NULL, NULL) != PDK_CLIENT_OK) {
            fprintf(stderr, "paddock: note: unsubscribe failed: %s\n", cli->client->error);
        }
    }
    pdk_client_close(cli->client);
    return rc;
}

const pdk_cli_command pdk_cli_contacts_command = {
    "contacts",
    "--session S [--count N] [--duration S]",
    "Subscribe to contact events and print one line per contact between bodies.",
    "  --session S         the session\n"
    "  --count N           stop after N contacts\n"
    "  --duration S        stop after S seconds\n"
    "Columns: TICK TIME_S A B (bodies: vN a vehicle, pN a proxy) X_M Y_M Z_M (the point)\n"
    "NX NY NZ (normal from A to B) IN_NS (normal impulse) IX_NS IY_NS IZ_NS (the impulse\n"
    "on B; A takes the opposite) APPR_MPS (closing speed) DEPTH_M PTS (manifold points).\n"
    "A '#' line counts a tick's contacts beyond the world's event buffer. Ctrl-C stops.\n",
    CONTACTS_OPTS,
    PDK_CLI_N_OF(CONTACTS_OPTS),
    run_contacts,
};
