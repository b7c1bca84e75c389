/* Recordings served: replays (a read-only live session fed by a player),
 * and verify, fork, export, import, CSV and MCAP export, metadata, and the listing
 * and deletion of recordings. What reads
 * SQLite or re-simulates runs on libuv's thread pool (uv_queue_work); the
 * loop only checks requests, adopts results and streams files back. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/channels.h"
#include "server_internal.h"
#include "server_request.h"
#include "world_mem.h"

#define STREAM_QUEUE_BYTES (128u * 1024u) /* a stream waits while its conn queues more */
#define IMPORT_MAX_BYTES (1ull << 30)     /* an uploaded session file: 1 GiB */
#define META_MAX_BYTES 16383u             /* SessionMeta.json for fixed-buffer clients */
#define CSV_MAX_CHANNELS 256u
#define CSV_MAX_IDS 256u

typedef enum job_kind {
    JOB_REPLAY_LOAD, /* the recording, then JOB_REPLAY_MAKE once there is room */
    JOB_REPLAY_MAKE,
    JOB_FORK_LOAD,
    JOB_FORK_MAKE,
    JOB_SEEK,
    JOB_VERIFY,
    JOB_EXPORT,
    JOB_CSV,
    JOB_MCAP,
    JOB_IMPORT,
    JOB_META,
    JOB_LIST,
    JOB_DELETE,
} job_kind;
#define JOB_KINDS (JOB_DELETE + 1)
_Static_assert(JOB_KINDS == PDK_SERVER_JOB_KINDS, "server_internal.h counts the job kinds");

/* One piece of work off the loop: what it was asked, what it found. The
 * worker touches only the job, the store (thread-safe) and, for a seek,
 * the session its slot lent it. */
typedef struct pdk_server_job {
    uv_work_t req;
    pdk_server *srv;
    struct pdk_server_job *next; /* the next waiting job (pdk_server_jobs) */
    bool counted;                /* counts in its connection's jobs (waiting or running) */
    atomic_bool cancel;          /* its client left or the server stops: the job stops */
    job_kind kind;
    uint64_t conn_id;
    uint64_t request_id;
    uint64_t session_id;
    pdk_error err;
    char msg[PDK_REPLAY_ERR_LEN];
    /* asked */
    uint64_t tick; /* seek, fork; verify's to_tick */
    double speed;
    bool paused;
    char name[PDK_SERVER_MAX_NAME_BYTES + 1];
    pdk_timing timing;
    uint64_t from_tick, to_tick;
    uint32_t every_ticks;
    bool zstd; /* an MCAP export's chunks */
    char **channels;
    size_t n_channels;
    uint32_t *ids;
    size_t n_ids;
    char dir[256];
    char path[300];
    /* found */
    pdk_recording *rec;
    pdk_session *session;
    pdk_player *player;
    size_t world_bytes;
    pdk_verify_result verify;
    char *json;
    uint64_t new_id, original_id, last_tick;
    uint64_t size;         /* an export's or CSV's file */
    uint64_t import_bytes; /* an import's upload, held in srv->import_bytes until freed */
    /* a listing: what it asked (strings owned), the page it found */
    pdk_store_list_filter filter;
    pdk_access_view *view; /* the filter's visible_ctx: what the asker sees */
    uint32_t offset, limit;
    Paddock__V1__RecordingInfo *infos;
    size_t n_infos, bytes;
    uint64_t total;
} job;

static void remove_temp(const char *dir, const char *path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    if (path[0])
        for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
            char p[320];
            snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
            unlink(p);
        }
    if (dir[0])
        rmdir(dir);
}

/* Replaces every what in msg (a string in a buffer of len bytes) with as,
 * cutting the end off where it no longer fits. */
static void replace_all(char *msg, size_t len, const char *what, const char *as)
{
    size_t n_what = strlen(what);
    if (n_what == 0)
        return;
    char out[PDK_REPLAY_ERR_LEN];
    size_t used = 0;
    const char *rest = msg;
    const char *hit;
    while ((hit = strstr(rest, what)) != NULL) {
        int n = snprintf(out + used, sizeof(out) - used, "%.*s%s", (int)(hit - rest), rest, as);
        used = n < 0 || (size_t)n >= sizeof(out) - used ? sizeof(out) - 1 : used + (size_t)n;
        rest = hit + n_what;
    }
    if (rest == msg)
        return;
    snprintf(out + used, sizeof(out) - used, "%s", rest);
    snprintf(msg, len, "%s", out);
}

/* An error about a job's or an upload's files goes to a client: the server's
 * own paths in it (the temporary file and folder, the database) become
 * words, and the operator gets the whole sentence on stderr. */
static void hide_paths(const pdk_server *srv, const char *dir, const char *path,
                       const char *file_word, char *msg, size_t len)
{
    char before[PDK_REPLAY_ERR_LEN];
    snprintf(before, sizeof(before), "%s", msg);
    if (path[0])
        replace_all(msg, len, path, file_word);
    if (dir[0])
        replace_all(msg, len, dir, "the server's temporary folder");
    if (srv->cfg.db_path && srv->cfg.db_path[0])
        replace_all(msg, len, srv->cfg.db_path, "the server's database");
    if (strcmp(before, msg) != 0)
        fprintf(stderr, "paddockd: %s\n", before);
}

/* A fresh temporary folder and a file name in it. */
static pdk_error make_temp(char *dir, size_t dir_len, char *path, size_t path_len, const char *file,
                           char *err, size_t err_len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dir_len, "%s/paddockd-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "paddockd: cannot make a temporary folder in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        snprintf(err, err_len, "the server cannot make a temporary folder: %s", strerror(errno));
        dir[0] = '\0';
        return PDK_ERR_IO;
    }
    snprintf(path, path_len, "%s/%s", dir, file);
    return PDK_OK;
}

static void job_free(job *j)
{
    pdk_player_free(j->player);
    pdk_session_destroy(j->session);
    pdk_recording_free(j->rec);
    for (size_t i = 0; i < j->n_channels; i++)
        free(j->channels[i]);
    free(j->channels);
    free(j->ids);
    free(j->json);
    free((char *)j->filter.name_contains);
    free((char *)j->filter.world_preset);
    free((char *)j->filter.vehicle_preset);
    pdk_server_access_view_free(j->view);
    for (size_t i = 0; i < j->n_infos; i++) {
        Paddock__V1__RecordingInfo *ri = &j->infos[i];
        free(ri->name);
        free(ri->world_preset);
        free(ri->build_id);
        for (size_t v = 0; v < ri->n_vehicles; v++)
            free(ri->vehicles[v]->preset);
        if (ri->n_vehicles)
            free(ri->vehicles[0]);
        free(ri->vehicles);
    }
    free(j->infos);
    remove_temp(j->dir, j->path);
    /* On the loop, like every job_free: the upload's file is gone now. */
    j->srv->import_bytes -= j->import_bytes;
    free(j);
}

static job *job_new(pdk_server *srv, job_kind kind, pdk_server_conn *c, uint64_t request_id,
                    uint64_t session_id)
{
    job *j = calloc(1, sizeof(*j));
    if (!j) {
        pdk_server_send_error(&srv->out, c->conn, request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    j->srv = srv;
    j->kind = kind;
    j->conn_id = c->id;
    j->request_id = request_id;
    j->session_id = session_id;
    j->req.data = j;
    return j;
}

static void job_work(uv_work_t *req);
static void job_done(uv_work_t *req, int status);

/* The request a job answers, as the protocol names it. */
static const char *job_request_name(job_kind kind)
{
    switch (kind) {
    case JOB_REPLAY_LOAD:
    case JOB_REPLAY_MAKE:
        return "ReplayOpen";
    case JOB_FORK_LOAD:
    case JOB_FORK_MAKE:
        return "ForkRequest";
    case JOB_SEEK:
        return "SessionControl";
    case JOB_VERIFY:
        return "VerifyRequest";
    case JOB_EXPORT:
        return "ExportRequest";
    case JOB_CSV:
        return "CsvExportRequest";
    case JOB_MCAP:
        return "McapExportRequest";
    case JOB_IMPORT:
        return "ImportChunk";
    case JOB_META:
        return "SessionMetaRequest";
    case JOB_LIST:
        return "RecordingList";
    case JOB_DELETE:
        return "RecordingDelete";
    }
    return "request";
}

/* Queues j on the pool. On failure the request is answered and j is
 * left to the caller. */
static bool job_queue(job *j)
{
    pdk_server *srv = j->srv;
    int rc = uv_queue_work(&srv->loop, &j->req, job_work, job_done);
    if (rc != 0) {
        pdk_server_error_to(srv, j->conn_id, j->request_id, PDK_ERR_NO_MEMORY, uv_strerror(rc));
        return false;
    }
    return true;
}

/* ---- the fair queue ------------------------------------------------------------ */

static bool conn_running(const pdk_server_jobs *q, uint64_t conn_id)
{
    for (size_t i = 0; i < q->n_running; i++)
        if (q->running[i]->conn_id == conn_id)
            return true;
    return false;
}

static void unlink_waiting(pdk_server_jobs *q, job *j, job *before)
{
    if (before)
        before->next = j->next;
    else
        q->first = j->next;
    if (q->last == j)
        q->last = before;
    j->next = NULL;
    q->n_waiting--;
}

/* Its connection no longer counts j (waiting or running). */
static void uncount(job *j)
{
    if (!j->counted)
        return;
    j->counted = false;
    pdk_server_conn *c = pdk_server_conn_find(j->srv, j->conn_id);
    if (c && c->jobs > 0)
        c->jobs--;
}

/* Starts waiting jobs while the pool has room: each time the oldest of
 * the first connection after the one served last that has none running,
 * wrapping round to the lowest id. */
static void jobs_pump(pdk_server *srv)
{
    pdk_server_jobs *q = &srv->jobs;
    while (!srv->stopping && q->n_running < PDK_SERVER_JOBS_RUNNING && q->first) {
        job *next = NULL, *next_before = NULL, *wrap = NULL, *wrap_before = NULL;
        for (job *j = q->first, *before = NULL; j; before = j, j = j->next) {
            if (conn_running(q, j->conn_id))
                continue;
            if (j->conn_id > q->last_conn_id && (!next || j->conn_id < next->conn_id)) {
                next = j;
                next_before = before;
            }
            if (!wrap || j->conn_id < wrap->conn_id) {
                wrap = j;
                wrap_before = before;
            }
        }
        if (!next) {
            next = wrap;
            next_before = wrap_before;
        }
        if (!next)
            return; /* every waiting job's connection has one running */
        unlink_waiting(q, next, next_before);
        q->last_conn_id = next->conn_id;
        q->running[q->n_running++] = next;
        if (!job_queue(next)) {
            q->n_running--;
            uncount(next);
            job_free(next);
        }
    }
}

/* A job of the fair queue came back from the pool: its place is free. */
static void jobs_finished(job *j)
{
    pdk_server_jobs *q = &j->srv->jobs;
    for (size_t i = 0; i < q->n_running; i++) {
        if (q->running[i] == j) {
            q->running[i] = q->running[--q->n_running];
            q->finished[j->kind]++;
            uncount(j);
            return;
        }
    }
}

size_t pdk_server_jobs_count(const pdk_server_jobs *q,
                             pdk_server_job_count out[PDK_SERVER_JOB_KINDS])
{
    size_t n = 0;
    size_t at[JOB_KINDS]; /* each kind's entry: kinds of one request share it */
    for (int k = 0; k < JOB_KINDS; k++) {
        const char *request = job_request_name((job_kind)k);
        size_t i = 0;
        while (i < n && strcmp(out[i].request, request) != 0)
            i++;
        if (i == n)
            out[n++] = (pdk_server_job_count){.request = request};
        at[k] = i;
        out[i].finished += q->finished[k];
    }
    for (const job *j = q->first; j; j = j->next)
        out[at[j->kind]].waiting++;
    for (size_t i = 0; i < q->n_running; i++)
        out[at[q->running[i]->kind]].running++;
    return n;
}

/* A request's job joins its connection's line, or is refused BUSY when the
 * connection already has --max-queued-jobs waiting or running. */
static void job_start(job *j)
{
    pdk_server *srv = j->srv;
    pdk_server_conn *c = pdk_server_conn_find(srv, j->conn_id);
    if (!c) {
        job_free(j);
        return;
    }
    if (c->jobs >= srv->cfg.max_queued_jobs) {
        snprintf(j->msg, sizeof(j->msg),
                 "%s has %" PRIu32 " recording jobs waiting or running, the most one connection "
                 "may have (--max-queued-jobs %" PRIu32 "); send the %s again once one is "
                 "answered",
                 c->holder, c->jobs, srv->cfg.max_queued_jobs, job_request_name(j->kind));
        pdk_server_error_to(srv, j->conn_id, j->request_id, PDK_ERR_BUSY, j->msg);
        job_free(j);
        return;
    }
    c->jobs++;
    j->counted = true;
    pdk_server_jobs *q = &srv->jobs;
    if (q->last)
        q->last->next = j;
    else
        q->first = j;
    q->last = j;
    q->n_waiting++;
    jobs_pump(srv);
}

/* Drops the waiting jobs of conn_id (every one when conn_id is 0), unanswered,
 * and tells the running ones to stop. */
static void jobs_drop(pdk_server *srv, uint64_t conn_id)
{
    pdk_server_jobs *q = &srv->jobs;
    size_t dropped = 0, stopped = 0;
    for (job *j = q->first, *before = NULL; j;) {
        job *after = j->next;
        if (conn_id == 0 || j->conn_id == conn_id) {
            unlink_waiting(q, j, before);
            uncount(j);
            job_free(j);
            dropped++;
        } else {
            before = j;
        }
        j = after;
    }
    for (size_t i = 0; i < q->n_running; i++) {
        job *j = q->running[i];
        if ((conn_id == 0 || j->conn_id == conn_id) && !atomic_load(&j->cancel)) {
            atomic_store(&j->cancel, true);
            stopped++;
        }
    }
    if (dropped + stopped == 0)
        return;
    if (conn_id == 0)
        printf("paddockd: stopping: %zu waiting recording jobs dropped, %zu running told to stop\n",
               dropped, stopped);
    else
        printf("paddockd: connection %" PRIu64 " left: %zu waiting recording jobs dropped, %zu "
               "running told to stop\n",
               conn_id, dropped, stopped);
    fflush(stdout);
}

static void fail_job(job *j, pdk_error err)
{
    const char *file_word = j->kind == JOB_IMPORT ? "the uploaded file"
                            : j->kind == JOB_CSV  ? "the CSV export"
                            : j->kind == JOB_MCAP ? "the MCAP export"
                                                  : "the export";
    hide_paths(j->srv, j->dir, j->path, file_word, j->msg, sizeof(j->msg));
    pdk_server_error_to(j->srv, j->conn_id, j->request_id, err, j->msg);
    job_free(j);
}

/* ---- on the pool ------------------------------------------------------------ */

/* Where a CSV or MCAP export writes: its job's temporary file, until the
 * job is told to stop (its client left, or the server stops); the export
 * then ends at its next write, about every 64 KiB of CSV or MCAP chunk,
 * rather than re-simulating the rest for nobody. */
typedef struct export_out {
    FILE *file;
    const atomic_bool *cancel;
} export_out;

static pdk_error export_write(export_out *o, const void *bytes, size_t len)
{
    if (atomic_load(o->cancel))
        return PDK_ERR_CLOSED;
    return fwrite(bytes, 1, len, o->file) == len ? PDK_OK : PDK_ERR_IO;
}

static pdk_error csv_write(void *ctx, const char *text, size_t len)
{
    return export_write(ctx, text, len);
}

static pdk_error mcap_write(void *ctx, const uint8_t *bytes, size_t len)
{
    return export_write(ctx, bytes, len);
}

/* After an export that export_write stopped: why, for the log. */
static void export_stopped(job *j)
{
    if (j->err == PDK_ERR_CLOSED)
        snprintf(j->msg, sizeof(j->msg),
                 "its client left, or the server is stopping, before it was written whole");
}

static void make_replay(job *j)
{
    pdk_server *srv = j->srv;
    pdk_recording_info ri;
    pdk_recording_info_get(j->rec, &ri);
    j->new_id = pdk_store_next_session_id(srv->store);
    char name[PDK_SERVER_MAX_NAME_BYTES];
    snprintf(name, sizeof(name), "replay of %s", ri.name ? ri.name : "");
    pdk_session_def def = {
        .name = name,
        .world_preset = ri.world_preset,
        .world_json = "",
        .world = *pdk_recording_world_def(j->rec),
        .timing = PDK_TIMING_REALTIME,
        .build_id = PDK_BUILD_ID,
        .store = NULL,
    };
    pdk_session_hooks hooks = pdk_server_hooks(srv);
    j->err = pdk_session_create(j->new_id, &def, &hooks, &j->session);
    if (j->err != PDK_OK) {
        snprintf(j->msg, sizeof(j->msg), "the replay's session could not be created: %s",
                 pdk_error_message(j->err));
        return;
    }
    j->err = pdk_player_create(j->rec, j->session, &j->player, j->msg, sizeof(j->msg));
}

static void make_fork(job *j)
{
    pdk_server *srv = j->srv;
    pdk_recording_info ri;
    pdk_recording_info_get(j->rec, &ri);
    j->new_id = pdk_store_next_session_id(srv->store);
    if (!j->name[0])
        snprintf(j->name, sizeof(j->name), "fork of %" PRIu64 " at %" PRIu64, j->session_id,
                 j->tick);
    pdk_session_def def = {
        .name = j->name,
        .world_preset = ri.world_preset,
        .world = *pdk_recording_world_def(j->rec),
        .timing = j->timing,
        .build_id = PDK_BUILD_ID,
        .store = srv->store,
    };
    pdk_session_hooks hooks = pdk_server_hooks(srv);
    j->err =
        pdk_fork(j->rec, j->tick, j->new_id, &def, &hooks, &j->session, j->msg, sizeof(j->msg));
    pdk_recording_free(j->rec);
    j->rec = NULL;
}

/* The finished file's size, for streaming it. */
static void open_result(job *j)
{
    struct stat st;
    if (stat(j->path, &st) != 0) {
        j->err = PDK_ERR_IO;
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
        return;
    }
    j->size = (uint64_t)st.st_size;
}

static void write_csv(job *j)
{
    pdk_server *srv = j->srv;
    j->err = pdk_recording_load_cancellable(srv->store, j->session_id, &j->cancel, &j->rec, j->msg,
                                            sizeof(j->msg));
    if (j->err != PDK_OK)
        return;
    j->err = make_temp(j->dir, sizeof(j->dir), j->path, sizeof(j->path), "export.csv", j->msg,
                       sizeof(j->msg));
    if (j->err != PDK_OK)
        return;
    FILE *out = fopen(j->path, "w");
    if (!out) {
        j->err = PDK_ERR_IO;
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
        return;
    }
    export_out o = {.file = out, .cancel = &j->cancel};
    j->err = pdk_csv_export(j->rec, j->from_tick, j->to_tick, j->every_ticks,
                            (const char *const *)j->channels, j->n_channels, j->ids, j->n_ids,
                            csv_write, &o, j->msg, sizeof(j->msg));
    export_stopped(j);
    if (fclose(out) != 0 && j->err == PDK_OK) {
        j->err = PDK_ERR_IO;
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
    }
    if (j->err == PDK_OK)
        open_result(j);
}

/* The recording re-simulated into a temporary MCAP file, streamed back
 * like the other exports. */
static void write_mcap(job *j)
{
    pdk_server *srv = j->srv;
    j->err = pdk_recording_load_cancellable(srv->store, j->session_id, &j->cancel, &j->rec, j->msg,
                                            sizeof(j->msg));
    if (j->err != PDK_OK)
        return;
    j->err = make_temp(j->dir, sizeof(j->dir), j->path, sizeof(j->path), "export.mcap", j->msg,
                       sizeof(j->msg));
    if (j->err != PDK_OK)
        return;
    FILE *out = fopen(j->path, "wb");
    if (!out) {
        j->err = PDK_ERR_IO;
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
        return;
    }
    pdk_mcap_export_stats st;
    export_out o = {.file = out, .cancel = &j->cancel};
    j->err = pdk_mcap_export(j->rec, (const char *const *)j->channels, j->n_channels, j->zstd,
                             mcap_write, &o, &st, j->msg, sizeof(j->msg));
    export_stopped(j);
    if (fclose(out) != 0 && j->err == PDK_OK) {
        j->err = PDK_ERR_IO;
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
    }
    if (j->err == PDK_OK)
        open_result(j);
}

/* One listed recording into the page, unless the page's frame would
 * outgrow the frame limit (then PDK_ERR_CAPACITY ends the listing). */
static pdk_error add_info(void *ctx, const pdk_store_recording *r)
{
    job *j = ctx;
    Paddock__V1__RecordingInfo ri = PADDOCK__V1__RECORDING_INFO__INIT;
    Paddock__V1__RecordedVehicle *vs = NULL;
    Paddock__V1__RecordedVehicle **vp = NULL;
    if (r->n_vehicles > 0) {
        vs = calloc(r->n_vehicles, sizeof(*vs));
        vp = calloc(r->n_vehicles, sizeof(*vp));
        if (!vs || !vp) {
            free(vs);
            free(vp);
            return PDK_ERR_NO_MEMORY;
        }
    }
    ri.session_id = r->session_id;
    ri.name = strdup(r->name);
    ri.world_preset = strdup(r->world_preset);
    ri.build_id = strdup(r->build_id);
    ri.started_wall_ns = r->created_unix_ms > 0 ? (uint64_t)r->created_unix_ms * 1000000u : 0;
    ri.last_tick = r->last_tick;
    ri.ticks = r->last_tick > r->start_tick ? r->last_tick - r->start_tick : 0;
    ri.duration_s = (double)ri.ticks * r->dt_s;
    ri.size_bytes = r->size_bytes;
    ri.interrupted = r->interrupted != 0;
    ri.live = !r->ended && !r->interrupted;
    ri.n_vehicles = r->n_vehicles;
    ri.vehicles = vp;
    bool ok = ri.name && ri.world_preset && ri.build_id;
    for (size_t v = 0; v < r->n_vehicles; v++) {
        paddock__v1__recorded_vehicle__init(&vs[v]);
        vs[v].vehicle_id = r->vehicles[v].vehicle_id;
        vs[v].preset = strdup(r->vehicles[v].preset);
        ok = ok && vs[v].preset;
        vp[v] = &vs[v];
    }
    /* Its bytes in the reply: the row, its tag and length (at most 6). */
    size_t bytes = paddock__v1__recording_info__get_packed_size(&ri) + 6;
    bool fits = j->bytes + bytes + 64 <= j->srv->cfg.limits.max_frame_bytes;
    Paddock__V1__RecordingInfo *grown = NULL;
    if (ok && fits) {
        grown = realloc(j->infos, (j->n_infos + 1) * sizeof(*grown));
        ok = grown != NULL;
    }
    if (!ok || !fits) {
        free(ri.name);
        free(ri.world_preset);
        free(ri.build_id);
        for (size_t v = 0; v < r->n_vehicles; v++)
            free(vs[v].preset);
        free(vs);
        free(vp);
        return ok ? PDK_ERR_CAPACITY : PDK_ERR_NO_MEMORY;
    }
    j->infos = grown;
    j->infos[j->n_infos++] = ri;
    j->bytes += bytes;
    return PDK_OK;
}

static void list_recordings(job *j)
{
    uint64_t total = 0;
    j->err = pdk_store_list_recordings(j->srv->store, &j->filter, j->offset, j->limit, &total,
                                       add_info, j, j->msg, sizeof(j->msg));
    /* A page cut at the frame limit is a whole page: the client asks on
     * from offset + its rows. */
    if (j->err == PDK_ERR_CAPACITY && j->n_infos > 0)
        j->err = PDK_OK;
    else if (j->err == PDK_ERR_CAPACITY)
        snprintf(j->msg, sizeof(j->msg),
                 "recording at offset %u does not fit one frame of %zu bytes", j->offset,
                 j->srv->cfg.limits.max_frame_bytes);
    j->total = total;
}

/* Whether a job reads a recording from the store. */
static bool reads_recording(job_kind kind)
{
    switch (kind) {
    case JOB_REPLAY_LOAD:
    case JOB_FORK_LOAD:
    case JOB_META:
    case JOB_VERIFY:
    case JOB_EXPORT:
    case JOB_CSV:
    case JOB_MCAP:
    case JOB_LIST:
        return true;
    case JOB_DELETE: /* flushes itself */
    case JOB_REPLAY_MAKE:
    case JOB_FORK_MAKE:
    case JOB_SEEK:
    case JOB_IMPORT:
        break;
    }
    return false;
}

/* A verify in the server re-simulates on every core but one. */
static unsigned verify_threads_max(void)
{
    unsigned n = uv_available_parallelism();
    return n > 1 ? n - 1 : 1;
}

static void job_work(uv_work_t *req)
{
    job *j = req->data;
    pdk_server *srv = j->srv;
    pdk_thread_yield_to_loop(); /* a verify waits for the ticks, not they for it */
    /* A request reads what was recorded before it came: the records still
     * queued for the writer (a session closed just before, whose end and
     * last hashes are not committed yet) are committed first, so that a
     * replay of it ends where the close said and not a few ticks before. */
    if (reads_recording(j->kind))
        (void)pdk_store_flush(srv->store);
    switch (j->kind) {
    case JOB_REPLAY_LOAD:
    case JOB_FORK_LOAD:
    case JOB_META:
        j->err = pdk_recording_load_cancellable(srv->store, j->session_id, &j->cancel, &j->rec,
                                                j->msg, sizeof(j->msg));
        if (j->err == PDK_OK && j->kind == JOB_META) {
            j->json = pdk_recording_meta_json(j->rec);
            if (!j->json) {
                j->err = PDK_ERR_NO_MEMORY;
                snprintf(j->msg, sizeof(j->msg), "out of memory");
            }
        }
        break;
    case JOB_REPLAY_MAKE:
        make_replay(j);
        break;
    case JOB_FORK_MAKE:
        make_fork(j);
        break;
    case JOB_SEEK:
        j->err = pdk_player_seek(j->player, j->tick, j->msg, sizeof(j->msg));
        break;
    case JOB_VERIFY:
        /* All cores but one: the loop and the step threads keep theirs
         * (on two cores a verify on both made other sessions' ticks late). */
        j->err = pdk_verify_cancellable(srv->store, j->session_id, j->tick, PDK_BUILD_ID,
                                        &j->cancel, verify_threads_max(), &j->verify, j->msg,
                                        sizeof(j->msg));
        break;
    case JOB_EXPORT:
        j->err = make_temp(j->dir, sizeof(j->dir), j->path, sizeof(j->path), "session.db", j->msg,
                           sizeof(j->msg));
        if (j->err == PDK_OK)
            j->err = pdk_store_export_session_cancellable(srv->store, j->session_id, j->path,
                                                          srv->cfg.migrations_dir, &j->cancel,
                                                          j->msg, sizeof(j->msg));
        if (j->err == PDK_OK)
            open_result(j);
        break;
    case JOB_CSV:
        write_csv(j);
        break;
    case JOB_MCAP:
        write_mcap(j);
        break;
    case JOB_LIST:
        list_recordings(j);
        break;
    case JOB_DELETE:
        j->err = pdk_store_delete_recording(srv->store, j->session_id, j->msg, sizeof(j->msg));
        break;

    case JOB_IMPORT: {
        j->err = pdk_store_import_session(srv->store, j->path, &j->new_id, &j->original_id, j->msg,
                                          sizeof(j->msg));
        /* The file goes now, so its path leaves the message now too. */
        if (j->err != PDK_OK)
            hide_paths(srv, j->dir, j->path, "the uploaded file", j->msg, sizeof(j->msg));
        remove_temp(j->dir, j->path);
        j->dir[0] = j->path[0] = '\0';
        pdk_store_session_info info;
        if (j->err == PDK_OK &&
            pdk_store_read_session(srv->store, j->new_id, &info, NULL, 0) == PDK_OK) {
            j->last_tick = info.last_tick;
            pdk_store_session_info_free(&info);
        }
        break;
    }
    }
}

/* ---- back on the loop --------------------------------------------------------- */

static void send_created(pdk_server *srv, pdk_conn *conn, uint64_t rid, pdk_server_slot *slot)
{
    Paddock__V1__SessionInfo info;
    Paddock__V1__TickParts parts;
    pdk_server_fill_info(&srv->sched, slot, &info, &parts);
    Paddock__V1__SessionCreated sc = PADDOCK__V1__SESSION_CREATED__INIT;
    sc.session = &info;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = rid;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CREATED;
    r.session_created = &sc;
    pdk_server_send_frame(&srv->out, conn, &r);
}

/* A recording loaded for a replay or a fork: room is reserved for its
 * world, then the session is made on the pool. */
static void loaded(job *j)
{
    pdk_server *srv = j->srv;
    pdk_recording_info ri;
    pdk_recording_info_get(j->rec, &ri);
    if (j->kind == JOB_FORK_LOAD && (j->tick < ri.start_tick || j->tick > ri.last_tick)) {
        snprintf(j->msg, sizeof(j->msg),
                 "tick %" PRIu64 " is outside the recording of session %" PRIu64 " (%" PRIu64
                 "..%" PRIu64 ")",
                 j->tick, j->session_id, ri.start_tick, ri.last_tick);
        fail_job(j, PDK_ERR_OUT_OF_RANGE);
        return;
    }
    j->world_bytes = pdk_world_mem_size(pdk_recording_world_def(j->rec));
    pdk_error e = pdk_server_session_room(srv, j->world_bytes, j->msg, sizeof(j->msg));
    if (e != PDK_OK) {
        fail_job(j, e);
        return;
    }
    srv->table.world_bytes += j->world_bytes;
    srv->table.reserved++;
    j->kind = j->kind == JOB_FORK_LOAD ? JOB_FORK_MAKE : JOB_REPLAY_MAKE;
    if (!job_queue(j)) {
        srv->table.world_bytes -= j->world_bytes;
        srv->table.reserved--;
        job_free(j);
    }
}

/* A replay's or fork's session is made: into the table. */
static void made(job *j)
{
    pdk_server *srv = j->srv;
    srv->table.reserved--;
    bool replay = j->kind == JOB_REPLAY_MAKE;
    pdk_server_slot *slot = NULL;
    pdk_error e = pdk_server_session_adopt(
        srv, j->session, replay ? PDK_TIMING_REALTIME : j->timing, j->world_bytes, &slot);
    if (e != PDK_OK) {
        srv->table.world_bytes -= j->world_bytes;
        snprintf(j->msg, sizeof(j->msg), "out of memory");
        fail_job(j, e);
        return;
    }
    j->session = NULL;
    if (replay) {
        slot->replay.rec = j->rec;
        slot->replay.player = j->player;
        slot->replay.of = j->session_id;
        slot->replay.speed = j->speed;
        j->rec = NULL;
        j->player = NULL;
        pdk_server_rebase(srv, slot);
        if (j->paused) {
            char reason[PDK_SERVER_REASON_LEN];
            snprintf(reason, sizeof(reason), "opened paused at tick %" PRIu64,
                     pdk_server_slot_tick(slot));
            pdk_server_pause(srv, slot, PDK_PAUSE_USER, reason);
        }
        pdk_server_reschedule(srv);
    }
    /* A replay or fork is its asker's, as a session it created would be;
     * one whose asker has gone is nobody's. */
    pdk_server_conn *c = pdk_server_conn_find(srv, j->conn_id);
    pdk_server_access_own(srv, slot, c ? c->who->name : "");
    if (c)
        send_created(srv, c->conn, j->request_id, slot);
    job_free(j);
}

/* A seek came back: the slot is the loop's again. */
static void sought(job *j)
{
    pdk_server *srv = j->srv;
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, j->session_id);
    if (!slot || slot->session != j->session) {
        /* Closed meanwhile: the session, player and recording are ours. */
        snprintf(j->msg, sizeof(j->msg), "session %" PRIu64 " closed during the seek",
                 j->session_id);
        fail_job(j, PDK_ERR_CLOSED);
        return;
    }
    j->session = NULL;
    j->player = NULL;
    j->rec = NULL;
    slot->worker.busy = false;
    for (size_t i = 0; i < slot->worker.n_forget; i++)
        pdk_session_forget_conn(slot->session, slot->worker.forget[i]);
    slot->worker.n_forget = 0;
    if (j->err != PDK_OK) {
        fail_job(j, j->err);
        pdk_server_reschedule(srv);
        return;
    }
    if (slot->sched.pause == PDK_PAUSE_REPLAY_END) {
        /* It had played to the end: it waits at the sought tick. */
        slot->sched.pause = PDK_PAUSE_USER;
        snprintf(slot->sched.pause_reason, sizeof(slot->sched.pause_reason),
                 "sought tick %" PRIu64 " after the replay's end: resume to play on", j->tick);
    }
    slot->timeline_epoch++;
    pdk_server_rebase(srv, slot);
    pdk_server_reschedule(srv);
    pdk_server_conn *c = pdk_server_conn_find(srv, j->conn_id);
    if (c)
        pdk_server_reply_control(srv, c->conn, j->request_id, slot);
    job_free(j);
}

static void send_verify(pdk_server *srv, pdk_conn *conn, job *j)
{
    pdk_verify_result *v = &j->verify;
    Paddock__V1__VerifyReply r = PADDOCK__V1__VERIFY_REPLY__INIT;
    r.session_id = j->session_id;
    r.match = v->match;
    r.hashes_checked = v->hashes_checked;
    r.last_tick = v->last_tick;
    r.first_divergent_tick = v->first_divergent_tick;
    r.vehicle_id = v->vehicle_id;
    r.field = v->field;
    r.recorded_build = v->recorded_build;
    r.this_build = (char *)PDK_BUILD_ID;
    r.same_build = v->same_build;
    r.seconds = v->seconds;
    r.interrupted = v->interrupted;
    r.first_tick = v->first_tick;
    r.first_hash = v->first_hash;
    r.last_hash = v->last_hash;
    r.missing_ticks = v->missing_ticks;
    r.hole_first_tick = v->hole_first_tick;
    r.hole_last_tick = v->hole_last_tick;
    /* A live session runs on past what was recorded when the verify began:
     * the reply says where it is, so "match" is read as what it covers. */
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, j->session_id);
    char message[sizeof(v->message)];
    snprintf(message, sizeof(message), "%s", v->message);
    if (slot && !slot->replay.player) {
        r.live = true;
        r.live_tick = pdk_server_slot_tick(slot);
        snprintf(message, sizeof(message),
                 "%.300s; the session is live at tick %" PRIu64 ": ticks after %" PRIu64
                 " were not checked",
                 v->message, r.live_tick, v->last_tick);
    }
    r.message = message;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = j->request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_VERIFY_REPLY;
    f.verify_reply = &r;
    pdk_server_send_frame(&srv->out, conn, &f);
}

static void add_stream(job *j)
{
    pdk_server *srv = j->srv;
    int fd = open(j->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(j->msg, sizeof(j->msg), "%s: %s", j->path, strerror(errno));
        fail_job(j, PDK_ERR_IO);
        return;
    }
    if (srv->streams.n == srv->streams.cap) {
        size_t cap = srv->streams.cap ? srv->streams.cap * 2 : 4;
        pdk_stream *p = realloc(srv->streams.items, cap * sizeof(*p));
        if (!p) {
            close(fd);
            snprintf(j->msg, sizeof(j->msg), "out of memory");
            fail_job(j, PDK_ERR_NO_MEMORY);
            return;
        }
        srv->streams.items = p;
        srv->streams.cap = cap;
    }
    pdk_stream *s = &srv->streams.items[srv->streams.n++];
    memset(s, 0, sizeof(*s));
    s->conn_id = j->conn_id;
    s->request_id = j->request_id;
    s->fd = fd;
    s->size = j->size;
    snprintf(s->dir, sizeof(s->dir), "%s", j->dir);
    snprintf(s->path, sizeof(s->path), "%s", j->path);
    j->dir[0] = j->path[0] = '\0'; /* the stream removes them */
    if (!srv->streams.timer_on) {
        uv_timer_start(&srv->streams.timer, pdk_server_on_stream_timer, 0, 1);
        srv->streams.timer_on = true;
    }
    job_free(j);
}

static void job_done(uv_work_t *req, int status)
{
    (void)status;
    job *j = req->data;
    pdk_server *srv = j->srv;
    pdk_server_flush_deferred(srv);
    jobs_finished(j);
    jobs_pump(srv);
    if (atomic_load(&j->cancel) && reads_recording(j->kind)) {
        /* Nobody waits for what it read: its client left, or the server
         * stops. (A delete or an import changed the store: it goes on to
         * be logged as usual.) */
        if (j->err == PDK_ERR_CLOSED) {
            printf("paddockd: a %s of connection %" PRIu64 " stopped: %s\n",
                   job_request_name(j->kind), j->conn_id, j->msg);
            fflush(stdout);
        }
        job_free(j);
        return;
    }
    if (j->kind == JOB_SEEK) {
        sought(j);
        return;
    }
    if (j->kind == JOB_REPLAY_MAKE || j->kind == JOB_FORK_MAKE) {
        if (j->err != PDK_OK || srv->stopping) {
            srv->table.reserved--;
            srv->table.world_bytes -= j->world_bytes;
            fail_job(j, j->err != PDK_OK ? j->err : PDK_ERR_CLOSED);
            return;
        }
        made(j);
        return;
    }
    if (srv->stopping) {
        job_free(j);
        return;
    }
    if (j->err != PDK_OK) {
        fail_job(j, j->err);
        return;
    }
    pdk_server_conn *c = pdk_server_conn_find(srv, j->conn_id);
    switch (j->kind) {
    case JOB_REPLAY_LOAD:
    case JOB_FORK_LOAD:
        loaded(j);
        return;
    case JOB_VERIFY:
        if (c)
            send_verify(srv, c->conn, j);
        break;
    case JOB_EXPORT:
    case JOB_CSV:
    case JOB_MCAP:
        if (c) {
            add_stream(j);
            return;
        }
        break;
    case JOB_IMPORT:
        if (c) {
            Paddock__V1__SessionImported si = PADDOCK__V1__SESSION_IMPORTED__INIT;
            si.session_id = j->new_id;
            si.original_session_id = j->original_id;
            si.last_tick = j->last_tick;
            Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
            f.request_id = j->request_id;
            f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_IMPORTED;
            f.session_imported = &si;
            pdk_server_send_frame(&srv->out, c->conn, &f);
        }
        printf("paddockd: imported an export of session %" PRIu64 " as session %" PRIu64 "\n",
               j->original_id, j->new_id);
        fflush(stdout);
        break;
    case JOB_META:
        if (c && strlen(j->json) > META_MAX_BYTES) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "the metadata of session %" PRIu64 " is %zu bytes; a SessionMeta carries "
                     "at most %u",
                     j->session_id, strlen(j->json), META_MAX_BYTES);
            pdk_server_send_error(&srv->out, c->conn, j->request_id, PDK_ERR_CAPACITY, msg);
        } else if (c) {
            Paddock__V1__SessionMeta sm = PADDOCK__V1__SESSION_META__INIT;
            sm.json = j->json;
            Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
            f.request_id = j->request_id;
            f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_META;
            f.session_meta = &sm;
            pdk_server_send_frame(&srv->out, c->conn, &f);
        }
        break;
    case JOB_LIST:
        if (c) {
            Paddock__V1__RecordingInfo **ptrs = calloc(j->n_infos ? j->n_infos : 1, sizeof(*ptrs));
            if (!ptrs) {
                pdk_server_send_error(&srv->out, c->conn, j->request_id, PDK_ERR_NO_MEMORY,
                                      "out of memory");
                break;
            }
            for (size_t i = 0; i < j->n_infos; i++)
                ptrs[i] = &j->infos[i];
            Paddock__V1__RecordingListReply lr = PADDOCK__V1__RECORDING_LIST_REPLY__INIT;
            lr.n_recordings = j->n_infos;
            lr.recordings = ptrs;
            lr.total = j->total > UINT32_MAX ? UINT32_MAX : (uint32_t)j->total;
            lr.offset = j->offset;
            Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
            f.request_id = j->request_id;
            f.body_case = PADDOCK__V1__FRAME__BODY_RECORDING_LIST_REPLY;
            f.recording_list_reply = &lr;
            pdk_server_send_frame(&srv->out, c->conn, &f);
            free(ptrs);
        }
        break;
    case JOB_DELETE:
        pdk_server_access_forget(srv, j->session_id);
        if (c)
            pdk_server_send_ok(&srv->out, c->conn, j->request_id, 0);
        printf("paddockd: deleted recording %" PRIu64 " at the request of connection %" PRIu64 "\n",
               j->session_id, j->conn_id);
        fflush(stdout);
        break;
    default:
        break;
    }
    job_free(j);
}

/* ---- requests ------------------------------------------------------------------ */

static void pdk_server_handle_replay_open(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ReplayOpen *m = f->replay_open;
    double speed = m->speed == 0.0 ? 1.0 : m->speed;
    if (!isfinite(speed) || speed < 0.01 || speed > 1000.0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "speed %g is outside 0.01..1000 (a multiple of real time)",
                 m->speed);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    job *j = job_new(srv, JOB_REPLAY_LOAD, c, f->request_id, m->session_id);
    if (!j)
        return;
    j->speed = speed;
    j->paused = m->paused;
    job_start(j);
}

void pdk_server_replay_seek(pdk_server *srv, pdk_server_conn *c, uint64_t request_id,
                            pdk_server_slot *slot, uint64_t tick)
{
    job *j = job_new(srv, JOB_SEEK, c, request_id, slot->id);
    if (!j)
        return;
    j->tick = tick;
    j->session = slot->session;
    j->player = slot->replay.player;
    j->rec = slot->replay.rec;
    const pdk_world *w = pdk_session_world(slot->session);
    slot->worker.view = (pdk_slot_view){
        .tick = pdk_world_tick(w),
        .sim_time_s = pdk_world_time_s(w),
        .vehicle_count = (uint32_t)pdk_world_vehicle_count(w),
        .state_hash = pdk_session_hash(slot->session),
        .subscriber_count = (uint32_t)pdk_session_subscriber_count(slot->session),
        .parts = *pdk_session_tick_parts(slot->session),
    };
    slot->worker.busy = true;
    if (!job_queue(j)) {
        slot->worker.busy = false;
        j->session = NULL;
        j->player = NULL;
        j->rec = NULL;
        job_free(j);
    }
    pdk_server_reschedule(srv);
}

void pdk_server_replay_speed(pdk_server *srv, pdk_server_slot *slot, double speed)
{
    slot->replay.speed = speed;
    pdk_server_rebase(srv, slot);
}

static void pdk_server_handle_verify(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    job *j = job_new(srv, JOB_VERIFY, c, f->request_id, f->verify_request->session_id);
    if (!j)
        return;
    j->tick = f->verify_request->to_tick;
    job_start(j);
}

static void pdk_server_handle_fork(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ForkRequest *m = f->fork_request;
    if (!pdk_server_text_ok(rq->out, c->conn, f->request_id, "name", m->name,
                            PDK_SERVER_MAX_NAME_BYTES - 1))
        return;
    pdk_timing timing;
    switch (m->timing) {
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_UNSPECIFIED:
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_REALTIME:
        timing = PDK_TIMING_REALTIME;
        break;
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_FAST:
        timing = PDK_TIMING_FAST;
        break;
    case PADDOCK__V1__TIMING_MODE__TIMING_MODE_LOCKSTEP:
        timing = PDK_TIMING_LOCKSTEP;
        break;
    default:
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                              "timing must be TIMING_MODE_REALTIME, TIMING_MODE_FAST or "
                              "TIMING_MODE_LOCKSTEP");
        return;
    }
    if (srv->sched.disk_full) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_IO,
                          "a fork is a recorded session and none can start: %s",
                          srv->sched.disk_reason);
        return;
    }
    job *j = job_new(srv, JOB_FORK_LOAD, c, f->request_id, m->session_id);
    if (!j)
        return;
    j->tick = m->tick;
    j->timing = timing;
    snprintf(j->name, sizeof(j->name), "%s", m->name);
    job_start(j);
}

static void pdk_server_handle_export(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    job *j = job_new(srv, JOB_EXPORT, c, f->request_id, f->export_request->session_id);
    if (j)
        job_start(j);
}

/* Whether the n names a CSV or MCAP export asks for are at most
 * CSV_MAX_CHANNELS telemetry channels; if not, the request is answered. */
static bool channels_ok(const pdk_request *rq, char *const *names, size_t n)
{
    char msg[160];
    if (n > CSV_MAX_CHANNELS) {
        snprintf(msg, sizeof(msg), "an export names at most %u channels", CSV_MAX_CHANNELS);
        pdk_server_send_error(rq->out, rq->c->conn, rq->f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (pdk_channel_find(names[i]) < 0) {
            snprintf(msg, sizeof(msg),
                     "channels[%zu] '%.40s' is not a telemetry channel (paddockd channels lists "
                     "them)",
                     i, names[i]);
            pdk_server_send_error(rq->out, rq->c->conn, rq->f->request_id, PDK_ERR_UNKNOWN_KEY,
                                  msg);
            return false;
        }
    }
    return true;
}

/* Copies n channel names into j; false (j answered and freed) when out of memory. */
static bool take_channels(job *j, char *const *names, size_t n)
{
    j->channels = calloc(n ? n : 1, sizeof(*j->channels));
    bool ok = j->channels != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        j->channels[i] = strdup(names[i]);
        ok = j->channels[i] != NULL;
        j->n_channels = i + 1;
    }
    if (!ok) {
        snprintf(j->msg, sizeof(j->msg), "out of memory");
        fail_job(j, PDK_ERR_NO_MEMORY);
    }
    return ok;
}

static void pdk_server_handle_csv(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__CsvExportRequest *m = f->csv_export_request;
    char msg[160];
    if (m->n_vehicle_ids > CSV_MAX_IDS) {
        snprintf(msg, sizeof(msg), "a CSV export names at most %u vehicles", CSV_MAX_IDS);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    if (!channels_ok(rq, m->channels, m->n_channels))
        return;
    if (m->to_tick != 0 && m->to_tick < m->from_tick) {
        snprintf(msg, sizeof(msg), "to_tick %" PRIu64 " is before from_tick %" PRIu64, m->to_tick,
                 m->from_tick);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    job *j = job_new(srv, JOB_CSV, c, f->request_id, m->session_id);
    if (!j)
        return;
    j->from_tick = m->from_tick;
    j->to_tick = m->to_tick;
    j->every_ticks = m->every_ticks ? m->every_ticks : 1;
    if (!take_channels(j, m->channels, m->n_channels))
        return;
    j->ids = calloc(m->n_vehicle_ids ? m->n_vehicle_ids : 1, sizeof(*j->ids));
    if (!j->ids) {
        snprintf(j->msg, sizeof(j->msg), "out of memory");
        fail_job(j, PDK_ERR_NO_MEMORY);
        return;
    }
    if (m->n_vehicle_ids)
        memcpy(j->ids, m->vehicle_ids, m->n_vehicle_ids * sizeof(*j->ids));
    j->n_ids = m->n_vehicle_ids;
    job_start(j);
}

static void pdk_server_handle_mcap(pdk_server *srv, const pdk_request *rq)
{
    const Paddock__V1__McapExportRequest *m = rq->f->mcap_export_request;
    if (!channels_ok(rq, m->channels, m->n_channels))
        return;
    bool zstd = strcmp(m->compression, "zstd") == 0;
    if (!zstd && m->compression[0] != '\0') {
        char msg[160];
        snprintf(msg, sizeof(msg), "compression '%.40s' is not one of: \"\" (none), zstd",
                 m->compression);
        pdk_server_send_error(rq->out, rq->c->conn, rq->f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    job *j = job_new(srv, JOB_MCAP, rq->c, rq->f->request_id, m->session_id);
    if (!j)
        return;
    j->zstd = zstd;
    if (take_channels(j, m->channels, m->n_channels))
        job_start(j);
}

static void pdk_server_handle_meta(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    job *j = job_new(srv, JOB_META, c, f->request_id, f->session_meta_request->session_id);
    if (j)
        job_start(j);
}

/* A filter's text, copied for the worker ("" when empty: no filter). */
static char *copy_filter(const char *text, bool *ok)
{
    char *t = strdup(text ? text : "");
    *ok = *ok && t != NULL;
    return t;
}

static void pdk_server_handle_recording_list(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__RecordingList *m = f->recording_list;
    job *j = job_new(srv, JOB_LIST, c, f->request_id, 0);
    if (!j)
        return;
    bool ok = true;
    j->filter.name_contains = copy_filter(m->name_contains, &ok);
    j->filter.world_preset = copy_filter(m->world_preset, &ok);
    j->filter.vehicle_preset = copy_filter(m->vehicle_preset, &ok);
    /* The file keeps start times in ms: a bound in ns rounds up to the next
     * whole ms, so "after t" never takes one started before t. */
    j->filter.started_after_unix_ms =
        (int64_t)(m->started_after_wall_ns / 1000000u + (m->started_after_wall_ns % 1000000u != 0));
    j->filter.started_before_unix_ms = (int64_t)(m->started_before_wall_ns / 1000000u +
                                                 (m->started_before_wall_ns % 1000000u != 0));
    j->filter.interrupted_only = m->interrupted_only;
    j->offset = m->offset;
    j->limit = m->limit;
    /* Only the recordings the asker reaches are listed and counted. */
    if (ok && !pdk_server_access_view_make(srv, c, &j->view))
        ok = false;
    if (j->view) {
        j->filter.visible = pdk_server_access_view_sees;
        j->filter.visible_ctx = j->view;
    }
    if (!ok) {
        snprintf(j->msg, sizeof(j->msg), "out of memory");
        fail_job(j, PDK_ERR_NO_MEMORY);
        return;
    }
    job_start(j);
}

/* A recording may go unless a replay plays it (looked up here, in the
 * table) or its session is still being recorded (the store refuses a
 * recording without an end; an unrecorded live session is not in it). */
static void pdk_server_handle_recording_delete(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    uint64_t id = f->recording_delete->session_id;
    char msg[160];
    for (size_t i = 0; i < srv->table.n; i++) {
        const pdk_server_slot *slot = &srv->table.items[i];
        if (slot->replay.player != NULL && slot->replay.of == id) {
            snprintf(msg, sizeof(msg),
                     "recording %" PRIu64 " is open in replay session %" PRIu64
                     "; close the replay first",
                     id, slot->id);
            pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_BUSY, msg);
            return;
        }
    }
    job *j = job_new(srv, JOB_DELETE, c, f->request_id, id);
    if (j)
        job_start(j);
}

/* The upload's file goes, and its bytes go back to the server's import
 * space. */
static void upload_drop(pdk_server *srv, pdk_upload *u)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    remove_temp(u->dir, u->path);
    u->dir[0] = u->path[0] = '\0';
    srv->import_bytes -= u->offset;
    u->offset = 0;
}

static void upload_refuse(pdk_server *srv, pdk_server_conn *c, uint64_t rid, pdk_error code,
                          const char *msg)
{
    char said[PDK_REPLAY_ERR_LEN];
    snprintf(said, sizeof(said), "%s", msg);
    hide_paths(srv, c->upload.dir, c->upload.path, "the uploaded file", said, sizeof(said));
    upload_drop(srv, &c->upload);
    pdk_server_send_error(&srv->out, c->conn, rid, code, said);
}

/* ImportChunk: the file is written to a temporary folder in order; the
 * last chunk hands it to the store on the pool. Every byte written is held
 * against --max-import-mb, all connections together, until the file is
 * removed: when the upload is dropped or its connection closes, or when the
 * import job is done with it. */
static void pdk_server_handle_import(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ImportChunk *m = f->import_chunk;
    pdk_upload *u = &c->upload;
    char msg[512];
    if (u->fd >= 0 && m->offset == 0 && u->offset != 0)
        upload_drop(srv, u); /* a new upload starts over */
    if (u->fd < 0) {
        if (m->offset != 0) {
            snprintf(msg, sizeof(msg),
                     "an upload starts at offset 0; this ImportChunk says %" PRIu64, m->offset);
            upload_refuse(srv, c, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
            return;
        }
        if (make_temp(u->dir, sizeof(u->dir), u->path, sizeof(u->path), "upload.db", msg,
                      sizeof(msg)) != PDK_OK) {
            upload_refuse(srv, c, f->request_id, PDK_ERR_IO, msg);
            return;
        }
        u->fd = open(u->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (u->fd < 0) {
            snprintf(msg, sizeof(msg), "%s: %s", u->path, strerror(errno));
            upload_refuse(srv, c, f->request_id, PDK_ERR_IO, msg);
            return;
        }
    } else if (m->offset != u->offset) {
        snprintf(msg, sizeof(msg),
                 "ImportChunk at offset %" PRIu64 " where %" PRIu64
                 " was next: the upload is dropped; start again at offset 0",
                 m->offset, u->offset);
        upload_refuse(srv, c, f->request_id, PDK_ERR_INVALID_ARGUMENT, msg);
        return;
    }
    if (m->data.len > PDK_SERVER_CHUNK_BYTES || u->offset + m->data.len > IMPORT_MAX_BYTES) {
        snprintf(msg, sizeof(msg),
                 "an ImportChunk carries at most %u bytes and an upload at most %llu; the upload "
                 "is dropped",
                 PDK_SERVER_CHUNK_BYTES, (unsigned long long)IMPORT_MAX_BYTES);
        upload_refuse(srv, c, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    if (srv->import_bytes + m->data.len > srv->cfg.max_import_bytes) {
        snprintf(msg, sizeof(msg),
                 "the server's space for uploads is full: imports in progress hold %.1f of "
                 "%.1f MiB (--max-import-mb) and this ImportChunk brings %zu bytes more; the "
                 "upload is dropped, send it again once others have finished",
                 (double)srv->import_bytes / (1024.0 * 1024.0),
                 (double)srv->cfg.max_import_bytes / (1024.0 * 1024.0), m->data.len);
        upload_refuse(srv, c, f->request_id, PDK_ERR_CAPACITY, msg);
        return;
    }
    for (size_t done = 0; done < m->data.len;) {
        ssize_t n = write(u->fd, m->data.data + done, m->data.len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(msg, sizeof(msg), "the upload could not be written: %s", strerror(errno));
            upload_refuse(srv, c, f->request_id, PDK_ERR_IO, msg);
            return;
        }
        done += (size_t)n;
    }
    u->offset += m->data.len;
    srv->import_bytes += m->data.len;
    if (!m->last) {
        pdk_server_send_ok(rq->out, c->conn, f->request_id, 0);
        return;
    }
    close(u->fd);
    u->fd = -1;
    job *j = job_new(srv, JOB_IMPORT, c, f->request_id, 0);
    if (!j) {
        upload_drop(srv, u);
        return;
    }
    snprintf(j->dir, sizeof(j->dir), "%s", u->dir);
    snprintf(j->path, sizeof(j->path), "%s", u->path);
    j->import_bytes = u->offset;
    u->dir[0] = u->path[0] = '\0';
    u->offset = 0;
    job_start(j);
}

/* ---- streams ------------------------------------------------------------------- */

static void stream_drop(pdk_server *srv, size_t i)
{
    pdk_stream *s = &srv->streams.items[i];
    if (s->fd >= 0)
        close(s->fd);
    remove_temp(s->dir, s->path);
    srv->streams.items[i] = srv->streams.items[--srv->streams.n];
    if (srv->streams.n == 0 && srv->streams.timer_on) {
        uv_timer_stop(&srv->streams.timer);
        srv->streams.timer_on = false;
    }
}

/* Sends chunks while the connection's queue is short. True when the
 * stream is finished (or failed). */
static bool stream_pump(pdk_server *srv, pdk_server_conn *c, pdk_stream *s)
{
    static uint8_t chunk[PDK_SERVER_CHUNK_BYTES];
    for (;;) {
        pdk_conn_stats cs;
        pdk_conn_stats_get(c->conn, &cs);
        if (cs.queued_bytes >= STREAM_QUEUE_BYTES)
            return false;
        size_t want =
            s->size - s->offset < sizeof(chunk) ? (size_t)(s->size - s->offset) : sizeof(chunk);
        ssize_t n = want ? pread(s->fd, chunk, want, (off_t)s->offset) : 0;
        if (n < 0 || (size_t)n != want) {
            char msg[160];
            snprintf(msg, sizeof(msg), "the export could not be read back: %s",
                     n < 0 ? strerror(errno) : "short read");
            pdk_server_send_error(&srv->out, c->conn, s->request_id, PDK_ERR_IO, msg);
            return true;
        }
        bool last = s->offset + (uint64_t)n >= s->size;
        Paddock__V1__ExportChunk ch = PADDOCK__V1__EXPORT_CHUNK__INIT;
        ch.offset = s->offset;
        ch.data.data = chunk;
        ch.data.len = (size_t)n;
        ch.last = last;
        ch.total_bytes = last ? s->size : 0;
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = s->request_id;
        f.body_case = PADDOCK__V1__FRAME__BODY_EXPORT_CHUNK;
        f.export_chunk = &ch;
        pdk_server_send_frame(&srv->out, c->conn, &f);
        s->offset += (uint64_t)n;
        if (last)
            return true;
    }
}

void pdk_server_on_stream_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    for (size_t i = 0; i < srv->streams.n;) {
        pdk_server_conn *c = pdk_server_conn_find(srv, srv->streams.items[i].conn_id);
        if (!c || stream_pump(srv, c, &srv->streams.items[i]))
            stream_drop(srv, i);
        else
            i++;
    }
}

void pdk_server_recording_forget_conn(pdk_server *srv, pdk_server_conn *c)
{
    jobs_drop(srv, c->id);
    upload_drop(srv, &c->upload);
    for (size_t i = 0; i < srv->streams.n;) {
        if (srv->streams.items[i].conn_id == c->id)
            stream_drop(srv, i);
        else
            i++;
    }
}

void pdk_server_recording_stop(pdk_server *srv)
{
    jobs_drop(srv, 0);
    while (srv->streams.n > 0)
        stream_drop(srv, srv->streams.n - 1);
}

/* This file's requests (server.c dispatches them). Each sees the whole
 * server: it runs as a job on the loop's worker pool against the store,
 * and a replay or fork it makes joins the session table and the
 * scheduler when it comes back. */
const pdk_server_request pdk_server_recording_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_REPLAY_OPEN,
     .handle_server = pdk_server_handle_replay_open,
     .needs = PDK_NEEDS_READ_CREATE},
    {.body = PADDOCK__V1__FRAME__BODY_FORK_REQUEST,
     .handle_server = pdk_server_handle_fork,
     .needs = PDK_NEEDS_READ_CREATE},
    {.body = PADDOCK__V1__FRAME__BODY_IMPORT_CHUNK,
     .handle_server = pdk_server_handle_import,
     .needs = PDK_NEEDS_CREATE},
    {.body = PADDOCK__V1__FRAME__BODY_VERIFY_REQUEST,
     .handle_server = pdk_server_handle_verify,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_EXPORT_REQUEST,
     .handle_server = pdk_server_handle_export,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_CSV_EXPORT_REQUEST,
     .handle_server = pdk_server_handle_csv,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_MCAP_EXPORT_REQUEST,
     .handle_server = pdk_server_handle_mcap,
     .needs = PDK_NEEDS_READ},
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_META_REQUEST,
     .handle_server = pdk_server_handle_meta,
     .needs = PDK_NEEDS_READ},
    /* Listing reads the store off the loop; a viewer may list. */
    {.body = PADDOCK__V1__FRAME__BODY_RECORDING_LIST,
     .handle_server = pdk_server_handle_recording_list,
     .needs = PDK_NEEDS_NOTHING},
    /* Deleting looks at the table's live sessions and replays, then
     * deletes off the loop; a viewer may not. */
    {.body = PADDOCK__V1__FRAME__BODY_RECORDING_DELETE,
     .handle_server = pdk_server_handle_recording_delete,
     .needs = PDK_NEEDS_CHANGE},
    {0},
};
