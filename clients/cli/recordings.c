/* paddock recordings: the recorded sessions a server's database holds,
 * listed under filters a page at a time, and deleted one at a time
 * (docs/protocol.md "Browsing recordings"). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum {
    OPT_NAME = PDK_CLI_OPT_FIRST,
    OPT_WORLD,
    OPT_PRESET,
    OPT_SINCE,
    OPT_DAYS,
    OPT_INTERRUPTED,
    OPT_JSON,
};

/* The recordings a reply holds at most (paddock.options sizes the array). */
#define RECORDING_PAGE                                                                             \
    (sizeof(((paddock_v1_RecordingListReply *)0)->recordings) /                                    \
     sizeof(((paddock_v1_RecordingListReply *)0)->recordings[0]))

static const pdk_cli_opt RECORDINGS_OPTS[] = {
    PDK_CLI_COMMON_OPTS,
    {"name", OPT_NAME, 1},
    {"world", OPT_WORLD, 1},
    {"preset", OPT_PRESET, 1},
    {"since", OPT_SINCE, 1},
    {"days", OPT_DAYS, 1},
    {"interrupted", OPT_INTERRUPTED, 0},
    {"json", OPT_JSON, 0},
};

/* text as a JSON string's contents: quotes, backslashes and control
 * characters escaped. */
static void print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void print_json(const paddock_v1_RecordingInfo *r, int first)
{
    char started[40];
    pdk_cli_format_wall_ns(started, sizeof started, r->started_wall_ns);
    printf("%s\n  {\"id\": %llu, \"name\": ", first ? "" : ",", (unsigned long long)r->session_id);
    print_json_string(r->name);
    printf(", \"world\": ");
    print_json_string(r->world_preset);
    printf(", \"vehicles\": [");
    for (pb_size_t i = 0; i < r->vehicles_count; i++) {
        printf("%s{\"id\": %u, \"preset\": ", i ? ", " : "", (unsigned)r->vehicles[i].vehicle_id);
        print_json_string(r->vehicles[i].preset);
        printf("}");
    }
    printf("], \"started_utc\": \"%s\", \"started_wall_ns\": %llu, \"last_tick\": %llu, "
           "\"ticks\": %llu, \"duration_s\": %.6f, \"size_bytes\": %llu, \"interrupted\": %s, "
           "\"live\": %s, \"build\": ",
           started, (unsigned long long)r->started_wall_ns, (unsigned long long)r->last_tick,
           (unsigned long long)r->ticks, r->duration_s, (unsigned long long)r->size_bytes,
           r->interrupted ? "true" : "false", r->live ? "true" : "false");
    print_json_string(r->build_id);
    printf("}");
}

static int run_delete(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    uint64_t session = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        if (id != PDK_CLI_OPT_OPERAND)
            return pdk_cli_usage_error(cmd, "delete takes the recording's id alone");
        if (pdk_cli_take_session(v, &session, err, sizeof err) != 0)
            return pdk_cli_usage_error(cmd, err);
    }
    if (id < 0)
        return rc;
    if (session == 0)
        return pdk_cli_missing(cmd, "recording id");
    rc = pdk_cli_open(cli);
    if (rc != 0)
        return rc;
    paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_recording_delete_tag);
    f->body.recording_delete.session_id = session;
    rc = pdk_cli_call(cli, paddock_v1_Frame_ok_tag);
    pdk_client_close(cli->client);
    if (rc == 0)
        printf("deleted recording %llu\n", (unsigned long long)session);
    return rc;
}

static int run_recordings(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args)
{
    paddock_v1_RecordingList q;
    memset(&q, 0, sizeof q);
    int json = 0;
    char err[PDK_CLI_ERR_LEN];
    const char *v = NULL;
    int rc = 0;
    int id;
    while ((id = pdk_cli_next_arg(cli, cmd, args, &v, &rc)) > 0) {
        int bad = 0;
        if (id == PDK_CLI_OPT_OPERAND) {
            if (strcmp(v, "delete") == 0)
                return run_delete(cli, cmd, args);
            snprintf(err, sizeof err, "'%s' is not a recordings command (only delete ID)", v);
            bad = -1;
        } else if (id == OPT_NAME) {
            bad = pdk_cli_copy_text("name", v, q.name_contains, sizeof q.name_contains, err,
                                    sizeof err);
        } else if (id == OPT_WORLD) {
            bad = pdk_cli_copy_text("world", v, q.world_preset, sizeof q.world_preset, err,
                                    sizeof err);
        } else if (id == OPT_PRESET) {
            bad = pdk_cli_copy_text("preset", v, q.vehicle_preset, sizeof q.vehicle_preset, err,
                                    sizeof err);
        } else if (id == OPT_SINCE) {
            bad = pdk_cli_parse_iso8601("since", v, &q.started_after_wall_ns, err, sizeof err);
        } else if (id == OPT_DAYS) {
            uint64_t days = 0;
            bad = pdk_cli_parse_u64("days", v, 1, 36500, &days, err, sizeof err);
            if (bad == 0) {
                struct timespec now;
                clock_gettime(CLOCK_REALTIME, &now);
                q.started_after_wall_ns = ((uint64_t)now.tv_sec - days * 86400u) * 1000000000u;
            }
        } else if (id == OPT_INTERRUPTED) {
            q.interrupted_only = true;
        } else if (id == OPT_JSON) {
            json = 1;
        }
        if (bad != 0)
            return pdk_cli_usage_error(cmd, err);
    }
    if (id < 0)
        return rc;
    rc = pdk_cli_open(cli);
    if (rc != 0)
        return rc;
    pdk_cli_long_wait(cli);
    char row[PDK_CLI_ROW_LEN];
    uint32_t offset = 0;
    int shown = 0;
    for (;;) {
        paddock_v1_Frame *f = pdk_cli_request(cli, paddock_v1_Frame_recording_list_tag);
        f->body.recording_list = q;
        f->body.recording_list.offset = offset;
        f->body.recording_list.limit = (uint32_t)RECORDING_PAGE;
        rc = pdk_cli_call(cli, paddock_v1_Frame_recording_list_reply_tag);
        if (rc != 0) {
            pdk_client_close(cli->client);
            return rc;
        }
        const paddock_v1_RecordingListReply *r = &cli->frame->body.recording_list_reply;
        if (offset == 0 && !json) {
            pdk_cli_format_recordings_header(row, sizeof row);
            printf("%s\n", row);
        }
        if (offset == 0 && json)
            printf("[");
        for (pb_size_t i = 0; i < r->recordings_count; i++) {
            if (json) {
                print_json(&r->recordings[i], shown == 0);
            } else {
                pdk_cli_format_recording(row, sizeof row, &r->recordings[i]);
                printf("%s\n", row);
            }
            shown++;
        }
        offset += r->recordings_count;
        if (r->recordings_count == 0 || offset >= r->total)
            break;
    }
    pdk_client_close(cli->client);
    if (json)
        printf("%s]\n", shown ? "\n" : "");
    else if (shown == 0)
        fprintf(stderr, "no recordings\n");
    return PDK_CLI_EXIT_OK;
}

const pdk_cli_command pdk_cli_recordings_command = {
    "recordings",
    "[--name S] [--world W] [--preset P] [--since ISO8601 | --days N] [--interrupted] [--json]"
    " | delete ID",
    "List the recorded sessions in the server's database, or delete one.",
    "  --name S            names containing S\n"
    "  --world W           recorded in world preset W\n"
    "  --preset P          with a vehicle of preset P\n"
    "  --since ISO8601     started at or after this UTC time (2026-12-05 or 2026-12-05T03:00Z)\n"
    "  --days N            started in the last N days\n"
    "  --interrupted       only those a stopped server left interrupted\n"
    "  --json              a JSON array instead of the table\n"
    "  delete ID           delete a finished recording (not a live session's, nor one a\n"
    "                      replay plays); a viewer may not\n"
    "STATE is done, live (still recording) or interrupted. SIZE_B is the bytes its rows hold.\n",
    RECORDINGS_OPTS,
    PDK_CLI_N_OF(RECORDINGS_OPTS),
    run_recordings,
};
