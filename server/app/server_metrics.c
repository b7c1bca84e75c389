/* What paddockd tells an operator over HTTP (--http): /healthz, a JSON
 * summary for a person; /livez and /readyz for an orchestrator's probes;
 * /metrics in Prometheus' text exposition format (version 0.0.4) for a
 * scraper (docs/deploy.md "Metrics and health"). Every page is made when
 * asked, on the loop thread, from the counters the server keeps anyway:
 * nothing here runs between scrapes. */
#include "server_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NS_PER_S_F 1e9

/* ---- writing the page ---------------------------------------------------- */

/* A page under way: the buffer, and whether every append fitted. */
typedef struct page {
    pdk_buf *out;
    bool failed;
} page;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(page *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line || pdk_buf_append(p->out, line, (size_t)n) != PDK_OK)
        p->failed = true;
}

/* A metric's HELP and TYPE lines. */
static void family(page *p, const char *name, const char *type, const char *help)
{
    put(p, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A metric of one series without labels, a whole number. */
static void scalar(page *p, const char *name, const char *type, const char *help, uint64_t v)
{
    family(p, name, type, help);
    put(p, "%s %" PRIu64 "\n", name, v);
}

/* A label value as the format wants it: backslash, double quote and line
 * feed escaped. Longer values are cut (a session name is at most 64 bytes). */
static const char *label_value(char *out, size_t cap, const char *in)
{
    size_t n = 0;
    for (; *in != '\0' && n + 3 < cap; in++) {
        if (*in == '\\' || *in == '"') {
            out[n++] = '\\';
            out[n++] = *in;
        } else if (*in == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else {
            out[n++] = *in;
        }
    }
    out[n] = '\0';
    return out;
}

/* A histogram's bucket bounds, in seconds as its le labels say them. */
#define BOUNDS_MAX 16
typedef struct bounds {
    size_t n;
    char le[BOUNDS_MAX][24];
} bounds;

static bounds bounds_of(const uint64_t *bounds_ns, size_t n)
{
    bounds b = {.n = n < BOUNDS_MAX ? n : BOUNDS_MAX};
    for (size_t i = 0; i < b.n; i++)
        snprintf(b.le[i], sizeof b.le[i], "%.9g", (double)bounds_ns[i] / NS_PER_S_F);
    return b;
}

/* One histogram's lines: buckets[i] counts the observations at most the
 * bound i and above the bound before it, buckets[b->n] those above every
 * bound; the format wants them cumulative. labels is "" or 'a="b",' (with
 * the comma). */
static void histogram(page *p, const char *name, const char *labels, const bounds *b,
                      const uint64_t *buckets, uint64_t sum_ns)
{
    uint64_t seen = 0;
    size_t n_bounds = b->n;
    for (size_t i = 0; i < n_bounds; i++) {
        seen += buckets[i];
        put(p, "%s_bucket{%sle=\"%s\"} %" PRIu64 "\n", name, labels, b->le[i], seen);
    }
    seen += buckets[n_bounds];
    put(p, "%s_bucket{%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, seen);
    /* _sum and _count take the labels without le's trailing comma, and
     * no braces when there are none (the format allows {}, but a
     * label-free series reads better without). */
    if (labels[0] != '\0') {
        size_t len = strlen(labels);
        put(p, "%s_sum{%.*s} %.9f\n", name, (int)(len - 1), labels, (double)sum_ns / NS_PER_S_F);
        put(p, "%s_count{%.*s} %" PRIu64 "\n", name, (int)(len - 1), labels, seen);
    } else {
        put(p, "%s_sum %.9f\n", name, (double)sum_ns / NS_PER_S_F);
        put(p, "%s_count %" PRIu64 "\n", name, seen);
    }
}

/* ---- the figures --------------------------------------------------------- */

/* Every connection's counters, the closed ones' included. */
static void conn_totals(const pdk_server *srv, pdk_conn_stats *sum, size_t *queued_max)
{
    *sum = srv->closed_conns;
    *queued_max = 0;
    for (size_t i = 0; i < srv->n_conns; i++) {
        pdk_conn_stats cs;
        pdk_conn_stats_get(srv->conns[i]->conn, &cs);
        pdk_server_conn_stats_add(sum, &cs);
        if (cs.queued_bytes > *queued_max)
            *queued_max = cs.queued_bytes;
    }
}

void pdk_server_conn_stats_add(pdk_conn_stats *sum, const pdk_conn_stats *one)
{
    sum->frames_in += one->frames_in;
    sum->frames_out += one->frames_out;
    sum->bytes_in += one->bytes_in;
    sum->bytes_out += one->bytes_out;
    sum->state_dropped += one->state_dropped;
    for (size_t i = 0; i < PDK_ERROR_COUNT; i++)
        sum->errors[i] += one->errors[i];
}

/* What a connection is for the connections-by-role gauge: its key's role,
 * "viewer" when its Hello said so, "none" before its Hello. */
static const char *conn_role(const pdk_server_conn *c)
{
    if (!c->greeted || !c->who)
        return "none";
    return c->viewer ? "viewer" : pdk_auth_role_name(c->who->role);
}

/* The database's bytes on disk, its WAL's included (0 when it cannot be
 * read). */
static uint64_t store_file_bytes(const char *db_path)
{
    uint64_t total = 0;
    struct stat st;
    if (db_path && stat(db_path, &st) == 0)
        total += (uint64_t)st.st_size;
    char wal[4096];
    if (db_path && (size_t)snprintf(wal, sizeof wal, "%s-wal", db_path) < sizeof wal &&
        stat(wal, &st) == 0)
        total += (uint64_t)st.st_size;
    return total;
}

static void server_metrics(page *p, const pdk_server *srv)
{
    put(p, "# HELP paddock_build_info The running paddockd: version and build.\n"
           "# TYPE paddock_build_info gauge\n"
           "paddock_build_info{version=\"%s\",build=\"%s\"} 1\n",
        PDK_SERVER_VERSION, PDK_BUILD_ID);
    family(p, "paddock_uptime_seconds", "gauge", "Seconds since paddockd started serving.");
    put(p, "paddock_uptime_seconds %.3f\n",
        (double)(uv_now(&srv->loop) - srv->started_ms) / 1000.0);
    scalar(p, "paddock_ready", "gauge",
           "1 while /readyz answers 200: not stopping and the disk not full.",
           pdk_server_ready(srv, NULL, 0) ? 1 : 0);
    scalar(p, "paddock_sessions", "gauge", "Sessions open now.", srv->table.n);
    scalar(p, "paddock_sessions_max", "gauge", "Sessions allowed at once (--max-sessions).",
           srv->cfg.max_sessions);
    scalar(p, "paddock_world_bytes", "gauge",
           "Memory of all sessions' worlds, as --max-world-mb counts it.", srv->table.world_bytes);
    scalar(p, "paddock_world_bytes_max", "gauge", "The --max-world-mb limit in bytes.",
           srv->cfg.max_world_bytes);

    static const char *const roles[] = {"admin", "operator", "driver", "autonomy", "viewer",
                                        "none"};
    size_t by_role[sizeof roles / sizeof roles[0]] = {0};
    for (size_t i = 0; i < srv->n_conns; i++) {
        const char *role = conn_role(srv->conns[i]);
        for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
            if (strcmp(role, roles[r]) == 0)
                by_role[r]++;
    }
    family(p, "paddock_connections", "gauge",
           "Connections open now (TCP, WebSocket and Foxglove) by role; none: no Hello yet.");
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
        put(p, "paddock_connections{role=\"%s\"} %zu\n", roles[r], by_role[r]);

    pdk_conn_stats sum;
    size_t queued_max;
    conn_totals(srv, &sum, &queued_max);
    scalar(p, "paddock_received_bytes_total", "counter",
           "Bytes of the messages received from clients (TCP's length prefixes included, "
           "TLS and WebSocket framing not).",
           sum.bytes_in);
    scalar(p, "paddock_sent_bytes_total", "counter",
           "Bytes of the messages written to clients, counted as received bytes are.",
           sum.bytes_out);
    scalar(p, "paddock_received_frames_total", "counter", "Messages received from clients.",
           sum.frames_in);
    scalar(p, "paddock_sent_frames_total", "counter", "Messages written to clients.",
           sum.frames_out);
    scalar(p, "paddock_state_frames_dropped_total", "counter",
           "State and stats frames replaced or dropped for slow readers (latest wins).",
           sum.state_dropped);
    family(p, "paddock_refused_total", "counter",
           "Error frames sent to clients, by code (paddock.v1.ErrorCode).");
    for (int code = 1; code < PDK_ERROR_COUNT; code++) {
        /* "PDK_ERR_NOT_FOUND" is NOT_FOUND on the wire. */
        const char *name = pdk_error_name((pdk_error)code);
        put(p, "paddock_refused_total{code=\"%s\"} %" PRIu64 "\n",
            strncmp(name, "PDK_ERR_", 8) == 0 ? name + 8 : name, sum.errors[code]);
    }
    scalar(p, "paddock_output_queue_bytes_max", "gauge",
           "The largest output queue of a connection now, bytes.", queued_max);
    scalar(p, "paddock_partial_frame_bytes", "gauge",
           "Buffer held for frames still arriving, all connections (--max-partial-mb).",
           srv->partial.held_bytes);
}

static void store_metrics(page *p, const pdk_server *srv)
{
    pdk_store_stats ws;
    pdk_store_stats_get(srv->store, &ws);
    scalar(p, "paddock_store_queued_records", "gauge",
           "Records waiting for the store's writer, the batch it is writing included.", ws.queued);
    scalar(p, "paddock_store_written_records_total", "counter", "Records committed.", ws.written);
    scalar(p, "paddock_store_failed_records_total", "counter",
           "Records SQLite refused (each logged).", ws.failed);
    scalar(p, "paddock_store_lost_records_total", "counter",
           "Records given up when the store closed on a full disk.", ws.lost);
    scalar(p, "paddock_store_disk_full", "gauge",
           "1 while the disk holding the database is full (records kept in memory).",
           ws.disk_full ? 1 : 0);
    scalar(p, "paddock_store_read_only", "gauge",
           "1 when the database was opened read-only (started on a full disk).",
           pdk_store_read_only(srv->store) ? 1 : 0);
    family(p, "paddock_store_commit_seconds", "histogram",
           "How long the writer took to write and commit a batch, BEGIN to COMMIT.");
    bounds commit = bounds_of(pdk_store_commit_bounds_ns, PDK_STORE_COMMIT_BOUNDS);
    histogram(p, "paddock_store_commit_seconds", "", &commit, ws.commit_buckets, ws.commit_ns);
    family(p, "paddock_store_writer_cpu_seconds_total", "counter",
           "CPU time of the store's writer thread.");
    put(p, "paddock_store_writer_cpu_seconds_total %.6f\n",
        (double)ws.writer_cpu_ns / NS_PER_S_F);
    scalar(p, "paddock_store_file_bytes", "gauge",
           "The recordings database on disk, its write-ahead log included.",
           store_file_bytes(srv->cfg.db_path));

    pdk_server_job_count jobs[PDK_SERVER_JOB_KINDS];
    size_t n = pdk_server_jobs_count(&srv->jobs, jobs);
    family(p, "paddock_recording_jobs", "gauge",
           "Recording jobs (verify, export, replay and fork loads, ...) by request and state.");
    for (size_t i = 0; i < n; i++) {
        put(p, "paddock_recording_jobs{request=\"%s\",state=\"waiting\"} %" PRIu32 "\n",
            jobs[i].request, jobs[i].waiting);
        put(p, "paddock_recording_jobs{request=\"%s\",state=\"running\"} %" PRIu32 "\n",
            jobs[i].request, jobs[i].running);
    }
    family(p, "paddock_recording_jobs_finished_total", "counter",
           "Recording jobs that ran and came back (answered, failed or cancelled), by request.");
    for (size_t i = 0; i < n; i++)
        put(p, "paddock_recording_jobs_finished_total{request=\"%s\"} %" PRIu64 "\n",
            jobs[i].request, jobs[i].finished);
}

/* One session's figures, read once per scrape. */
typedef struct session_row {
    uint64_t id;
    char name[2 * PDK_SERVER_MAX_NAME_BYTES + 4]; /* escaped */
    uint64_t value[7];                            /* as families[] below, the cost aside */
    double tick_cost_s;
    const pdk_lateness *lateness;
    const pdk_lateness *tick_time;
} session_row;

static const struct {
    const char *name, *type, *help;
} families[] = {
    {"paddock_session_tick", "gauge", "The session's tick."},
    {"paddock_session_vehicles", "gauge", "Vehicles in the session."},
    {"paddock_session_subscribers", "gauge", "State subscriptions to the session."},
    {"paddock_session_paused", "gauge",
     "1 while the session is paused (by a client, a limit or the store's writer)."},
    {"paddock_session_step_thread", "gauge", "1 while its ticks run on a step thread."},
    {"paddock_session_overruns_total", "counter",
     "Real-time ticks that started more than a whole period (1/120 s) late."},
    {"paddock_session_skipped_deadlines_total", "counter",
     "Real-time deadlines dropped by bounded catch-up (sim time fell behind by them)."},
};

static void session_read(pdk_server *srv, pdk_server_slot *slot, session_row *row)
{
    Paddock__V1__SessionInfo info;
    Paddock__V1__TickParts parts;
    pdk_server_fill_info(&srv->sched, slot, &info, &parts);
    row->id = slot->id;
    label_value(row->name, sizeof row->name, info.name);
    const uint64_t value[7] = {
        info.tick,     info.vehicle_count,        info.subscriber_count, info.paused,
        info.step_thread, info.overruns, info.skipped_ticks,
    };
    memcpy(row->value, value, sizeof value);
    row->tick_cost_s = info.tick_cost_ms / 1e3;
    row->lateness = pdk_session_lateness(slot->session);
    row->tick_time = pdk_session_tick_time(slot->session);
}

/* One session's series of a histogram family kept as a pdk_lateness, in
 * its coarse buckets, labelled with the session's id and name. */
static void session_histogram(page *p, const char *name, const bounds *b, const session_row *row,
                              const pdk_lateness *l)
{
    char labels[sizeof row->name + 64];
    snprintf(labels, sizeof labels, "session=\"%" PRIu64 "\",name=\"%s\",", row->id, row->name);
    histogram(p, name, labels, b, l->coarse, l->sum_ns);
}

/* Each session's figures, labelled with its id and name. A family's lines
 * must stand together, so each family loops over the sessions. */
static void session_metrics(page *p, pdk_server *srv)
{
    size_t n = srv->table.n;
    session_row *rows = n ? malloc(n * sizeof *rows) : NULL;
    if (n && !rows) {
        p->failed = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        session_read(srv, &srv->table.items[i], &rows[i]);
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        family(p, families[f].name, families[f].type, families[f].help);
        for (size_t i = 0; i < n; i++)
            put(p, "%s{session=\"%" PRIu64 "\",name=\"%s\"} %" PRIu64 "\n", families[f].name,
                rows[i].id, rows[i].name, rows[i].value[f]);
    }
    family(p, "paddock_session_tick_cost_seconds", "gauge",
           "CPU time of one of its ticks, smoothed over some eight ticks.");
    for (size_t i = 0; i < n; i++)
        put(p, "paddock_session_tick_cost_seconds{session=\"%" PRIu64 "\",name=\"%s\"} %.9f\n",
            rows[i].id, rows[i].name, rows[i].tick_cost_s);
    const bounds late = bounds_of(pdk_lateness_bounds_ns, PDK_LATENESS_BOUNDS);
    family(p, "paddock_session_lateness_seconds", "histogram",
           "How late each real-time tick started against its deadline (the period is "
           "0.008333333 s).");
    for (size_t i = 0; i < n; i++)
        session_histogram(p, "paddock_session_lateness_seconds", &late, &rows[i], rows[i].lateness);
    family(p, "paddock_session_tick_seconds", "histogram",
           "How long each of its ticks took on the thread that ran it, start to end (a tick "
           "longer than the period, 0.008333333 s, makes the next one late).");
    for (size_t i = 0; i < n; i++)
        session_histogram(p, "paddock_session_tick_seconds", &late, &rows[i], rows[i].tick_time);
    free(rows);
}

/* ---- the pages ----------------------------------------------------------- */

bool pdk_server_ready(const pdk_server *srv, char *why, size_t why_len)
{
    const char *not = NULL;
    if (srv->stopping)
        not = "stopping";
    else if (srv->draining)
        not = "draining (SIGTERM): no new sessions";
    else if (pdk_store_read_only(srv->store))
        not = "the database is read-only (the disk was full at start)";
    else if (pdk_store_disk_full(srv->store, NULL, 0))
        not = "the disk holding the database is full";
    if (not && why)
        snprintf(why, why_len, "%s", not);
    return not == NULL;
}

static int metrics_page(pdk_buf *out, void *ud)
{
    pdk_server *srv = ud;
    page p = {.out = out};
    server_metrics(&p, srv);
    store_metrics(&p, srv);
    session_metrics(&p, srv);
    return p.failed ? -1 : 200;
}

/* Alive: the loop answered. */
static int livez_page(pdk_buf *out, void *ud)
{
    (void)ud;
    return pdk_buf_append(out, "ok\n", 3) == PDK_OK ? 200 : -1;
}

/* Ready for new sessions; 503 naming why not. */
static int readyz_page(pdk_buf *out, void *ud)
{
    const pdk_server *srv = ud;
    char why[160];
    bool ready = pdk_server_ready(srv, why, sizeof why);
    page p = {.out = out};
    put(&p, ready ? "ready\n" : "not ready: %s\n", why);
    return p.failed ? -1 : ready ? 200 : 503;
}

/* /healthz: who answers, for how long, with how much, the output queues of
 * all connections (TCP and WebSocket): the largest one now and the state
 * frames dropped or replaced so far by latest-wins, and the buffer partial
 * inbound frames hold now (--max-partial-mb bounds it). */
static int health_page(pdk_buf *out, void *ud)
{
    const pdk_server *srv = ud;
    pdk_store_stats ws;
    pdk_store_stats_get(srv->store, &ws);
    pdk_conn_stats sum;
    size_t queued_max;
    conn_totals(srv, &sum, &queued_max);
    page p = {.out = out};
    put(&p,
        "{\"status\":\"ok\",\"version\":\"%s\",\"build\":\"%s\","
        "\"uptime_s\":%.3f,\"sessions\":%zu,\"connections\":%zu,"
        "\"queued_bytes_max\":%zu,\"state_dropped\":%" PRIu64
        ",\"partial_frame_bytes\":%zu,\"writer_queued\":%" PRIu64 ",\"disk_full\":%s}",
        PDK_SERVER_VERSION, PDK_BUILD_ID, (double)(uv_now(&srv->loop) - srv->started_ms) / 1000.0,
        srv->table.n, srv->n_conns, queued_max, sum.state_dropped, srv->partial.held_bytes,
        ws.queued, ws.disk_full ? "true" : "false");
    return p.failed ? -1 : 200;
}

const pdk_http_page pdk_server_pages[PDK_SERVER_PAGES] = {
    {"/healthz", "application/json", health_page},
    {"/livez", "text/plain; charset=utf-8", livez_page},
    {"/readyz", "text/plain; charset=utf-8", readyz_page},
    {"/metrics", "text/plain; version=0.0.4; charset=utf-8", metrics_page},
};
