/* Server benchmark: the real paddockd on loopback hosting real-time
 * sessions of N vehicles driving circles, each with M subscribers reading
 * every state batch at a rate on connections of their own. Prints per
 * session the tick rate held, tick lateness (p50, p99), overruns and
 * dropped deadlines as the server measured them, how long the ticks took
 * on their thread (p50, p99, the ticks longer than the period), bytes a
 * second to each subscriber, where the ticks went part by part
 * (SessionInfo.tick_parts),
 * paddockd's CPU, what the recording costs per car-hour (keyframes, state
 * hashes, inputs; read from the database once the server has stopped) and
 * the recorded state hash at a tick every run of that length reaches, so
 * that runs alone and side by side compare. The cars are spawned and
 * commanded in batches while the sessions are paused, so the lateness is
 * the steady state's and each run's sessions tick the same states. It
 * measures; it never fails on a time.
 *   bench_server [vehicles=100] [subscribers=10] [seconds=10] [step_threads|-]
 *                [preset|-] [rate_hz=120] [sessions=1] [keyframe_every=0]
 *   bench_server sweep [seconds=10] [step_threads]
 * step_threads is paddockd's --step-threads (-: its default, one per core;
 * 0: every tick on the loop); preset the cars' (-: midsize_sedan);
 * keyframe_every the recording's ticks between keyframes (0: paddockd's
 * default, one a second). The
 * sweep runs issue 27's sizes: 100 sedans with 10 subscribers at 120 Hz;
 * 1,000 and 3,000 sedans and 10,000 single-track traffic_sedans with one
 * subscriber at 60 Hz. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zstd.h>

#include "bench_raw.h"
#include "harness.h"
#include "paddock_client.h"

typedef struct subscriber {
    pthread_t thread;
    uint64_t session;
    double seconds;
    uint64_t batches;
    uint64_t vehicles_seen;
    uint64_t bytes;
    uint32_t rate_hz;
    int ok;
} subscriber;

static int server_port;
static atomic_int ready;

static void subscriber_ready(void *ud)
{
    (void)ud;
    atomic_fetch_add(&ready, 1);
}

/* Counts the state batches and the vehicles in them. */
static void count_batch(void *ud, const uint8_t *frame, size_t len)
{
    subscriber *s = ud;
    uint64_t n = bench_raw_count(frame, len, 60, 5);
    s->batches += n > 0;
    s->vehicles_seen += n;
    s->bytes += len;
}

/* One subscriber on its own raw connection (bench_raw.h), subscribed to
 * every vehicle at 120 Hz. */
static void *subscribe_loop(void *arg)
{
    subscriber *s = arg;
    static _Thread_local paddock_v1_Frame f;
    memset(&f, 0, sizeof(f));
    f.request_id = 1;
    f.which_body = paddock_v1_Frame_subscribe_tag;
    f.body.subscribe.session_id = s->session;
    f.body.subscribe.rate_hz = s->rate_hz;
    s->ok = bench_raw_subscribe(server_port, "bench-sub", &f, s->seconds, subscriber_ready,
                                count_batch, s);
    return NULL;
}

static paddock_v1_Frame req, rep;

/* One number the query gives about session sid (?1) of the database. */
static double db_number(sqlite3 *db, uint64_t sid, const char *sql)
{
    sqlite3_stmt *st = NULL;
    double v = 0.0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* The bytes of session sid's last keyframe (all its cars) as stored, and
 * unpacked (what its zstd frame says it holds). */
static void last_keyframe(sqlite3 *db, uint64_t sid, double *stored, double *unpacked)
{
    *stored = *unpacked = 0.0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT blob, encoding FROM snapshots WHERE session_id = ?1 "
                           "ORDER BY tick DESC LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
        if (sqlite3_step(st) == SQLITE_ROW) {
            size_t len = (size_t)sqlite3_column_bytes(st, 0);
            unsigned long long n =
                sqlite3_column_int(st, 1) == 1
                    ? ZSTD_getFrameContentSize(sqlite3_column_blob(st, 0), len)
                    : len;
            *stored = (double)len;
            *unpacked =
                n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN ? 0.0 : (double)n;
        }
    }
    sqlite3_finalize(st);
}

/* What session sid's recording costs per car-hour in the steady state
 * (every car spawned), read from the database after the server stopped:
 * its last keyframe at the session's keyframe rate, a state hash (8
 * bytes) a tick, and the inputs at their rate over the session's life. */
static void print_recording(const char *path, uint64_t sid, int n_vehicles)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_server: cannot open %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return;
    }
    double ticks = db_number(db, sid, "SELECT final_tick - start_tick FROM sessions "
                                      "WHERE session_id = ?1");
    double every = db_number(db, sid, "SELECT keyframe_every_ticks FROM sessions "
                                      "WHERE session_id = ?1");
    double inputs = db_number(db, sid, "SELECT TOTAL(length(payload)) FROM inputs "
                                       "WHERE session_id = ?1");
    double kf = 0.0, kf_unpacked = 0.0;
    last_keyframe(db, sid, &kf, &kf_unpacked);
    sqlite3_close(db);
    if (ticks <= 0.0 || every <= 0.0 || n_vehicles <= 0)
        return;
    const double ticks_per_hour = 120.0 * 3600.0;
    double per_car = 1e-6 / n_vehicles;
    double keyframes_h = kf * ticks_per_hour / every * per_car;
    double unpacked_h = kf_unpacked * ticks_per_hour / every * per_car;
    double hashes_h = 8.0 * ticks_per_hour * per_car;
    double inputs_h = inputs * ticks_per_hour / ticks * per_car;
    printf("  recording, per car-hour with every car spawned: %.2f MB (keyframes %.2f, %.2f "
           "unpacked, one every %.0f ticks, the last %.1f KB; state hashes %.3f; inputs %.3f)\n",
           keyframes_h + hashes_h + inputs_h, keyframes_h, unpacked_h, every, kf / 1e3, hashes_h,
           inputs_h);
}

/* Where the measured ticks went, part by part (SessionInfo.tick_parts
 * read at the start and the end): ms a tick. */
static void print_parts(const paddock_v1_TickParts *a, const paddock_v1_TickParts *b)
{
    double n = (double)(b->ticks - a->ticks);
    if (n <= 0.0)
        return;
#define PART_MS(f) ((double)(b->f - a->f) / n / 1e6)
    double sum = PART_MS(inputs_ns) + PART_MS(step_ns) + PART_MS(hash_ns) + PART_MS(keyframe_ns) +
                 PART_MS(publish_ns);
    printf("  the tick, ms on its thread (mean of %.0f): %.3f = inputs %.3f + step %.3f + hash "
           "%.3f + keyframe encode %.3f + batches encoded and handed on %.3f\n",
           n, sum, PART_MS(inputs_ns), PART_MS(step_ns), PART_MS(hash_ns), PART_MS(keyframe_ns),
           PART_MS(publish_ns));
    printf("  and off it, ms a tick: the loop sending a step thread's frames on %.3f; the "
           "database writer's CPU %.3f (it waited for the writer %" PRIu64 " times)\n",
           PART_MS(delivery_ns), PART_MS(writer_cpu_ns), b->writer_stalls - a->writer_stalls);
#undef PART_MS
}

/* One run: a fresh paddockd hosting `sessions` real-time sessions of
 * `vehicles` cars of preset each, every session with `subs` subscribers
 * at rate_hz, measured for `seconds`. */
typedef struct bench_case {
    int vehicles, subs, sessions;
    double seconds;
    const char *step_threads; /* paddockd's --step-threads; NULL: its default */
    const char *preset;       /* NULL: midsize_sedan */
    uint32_t rate_hz;
    uint32_t keyframe_every; /* ticks between the recording's keyframes; 0: paddockd's default */
} bench_case;

/* Session sid's row of a SessionList reply on c into *out; false when the
 * call failed or the session is not listed. */
static bool session_row(pdk_client *c, uint64_t sid, paddock_v1_SessionInfo *out)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    if (pdk_client_call(c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_server: list: %s\n", c->error);
        return false;
    }
    for (pb_size_t i = 0; i < rep.body.session_list_reply.sessions_count; i++)
        if (rep.body.session_list_reply.sessions[i].session_id == sid) {
            *out = rep.body.session_list_reply.sessions[i];
            return true;
        }
    return false;
}

/* The recorded state hash of session sid at tick, read after the server
 * stopped: runs of the same fleet alone and side by side compare. */
static void print_hash(const char *path, uint64_t sid, uint64_t tick)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT hash FROM state_hashes WHERE session_id = ?1 AND tick = ?2",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)sid);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)tick);
        if (sqlite3_step(st) == SQLITE_ROW)
            printf("  recorded state hash at tick %" PRIu64 ": %016" PRIx64 "\n", tick,
                   (uint64_t)sqlite3_column_int64(st, 0));
        else
            printf("  recorded state hash at tick %" PRIu64 ": none (the session stopped "
                   "before it)\n",
                   tick);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static int run_case(const bench_case *bc)
{
    char threads[16];
    /* Every spawn read at once: the sessions are paused meanwhile. */
    const char *extra[] = {"--max-spawns-per-tick", "4096", "--max-inputs-per-tick", "4096",
                           bc->step_threads ? "--step-threads" : NULL, bc->step_threads, NULL};
    pdk_test_server srv;
    char log[8192];
    if (pdk_test_server_start(&srv, NULL, extra, log, sizeof(log)) != 0) {
        fprintf(stderr, "bench_server: paddockd did not start: %s\n", log);
        return 1;
    }
    server_port = srv.port;
    static pdk_client c;
    if (pdk_client_connect(&c, srv.addr, 5000, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_server: connect: %s\n", c.error);
        return 1;
    }
    int n_sessions = bc->sessions, n_subs = bc->subs;
    uint64_t *sids = calloc((size_t)n_sessions, sizeof(*sids));
    subscriber *subs = calloc((size_t)(n_subs * n_sessions) + 1, sizeof(*subs));
    paddock_v1_SessionInfo *before = calloc((size_t)n_sessions, sizeof(*before));
    if (!sids || !subs || !before)
        return 1;
    for (int k = 0; k < n_sessions; k++) {
        char name[32];
        snprintf(name, sizeof(name), "bench-%d", k + 1);
        if (bench_driving_session(&c, "bench_server", name, bc->preset, bc->vehicles, false,
                                  bc->keyframe_every, false, &sids[k]) != 0)
            return 1;
    }
    /* Every session ready, all go real-time at once. */
    for (int k = 0; k < n_sessions; k++)
        if (bench_session_realtime(&c, "bench_server", sids[k]) != 0)
            return 1;
    atomic_store(&ready, 0);
    for (int i = 0; i < n_subs * n_sessions; i++) {
        subs[i].session = sids[i / (n_subs ? n_subs : 1)];
        subs[i].seconds = bc->seconds;
        subs[i].rate_hz = bc->rate_hz;
        pthread_create(&subs[i].thread, NULL, subscribe_loop, &subs[i]);
    }
    while (atomic_load(&ready) < n_subs * n_sessions)
        usleep(1000);
    /* Lateness is the session's whole life: a few empty ticks, then the
     * steady state (the cars were spawned while it was paused). The tick
     * count and the parts start here. */
    for (int k = 0; k < n_sessions; k++)
        if (!session_row(&c, sids[k], &before[k]))
            return 1;
    double t0 = bench_raw_now_s();
    if (n_subs == 0)
        usleep((useconds_t)(bc->seconds * 1e6));
    for (int i = 0; i < n_subs * n_sessions; i++)
        pthread_join(subs[i].thread, NULL);
    double measured = bench_raw_now_s() - t0;
    snprintf(threads, sizeof(threads), "%s", bc->step_threads ? bc->step_threads : "default");
    printf("bench_server: %d session%s of %d %s, %d subscriber%s each at %u Hz, %.1f s, step "
           "threads %s\n",
           n_sessions, n_sessions == 1 ? "" : "s", bc->vehicles,
           bc->preset ? bc->preset : "midsize_sedan", n_subs, n_subs == 1 ? "" : "s", bc->rate_hz,
           bc->seconds, threads);
    uint64_t last_tick = UINT64_MAX;
    for (int k = 0; k < n_sessions; k++) {
        paddock_v1_SessionInfo info;
        if (!session_row(&c, sids[k], &info))
            return 1;
        uint64_t batches = 0, seen = 0, bytes = 0;
        for (int i = k * n_subs; i < (k + 1) * n_subs; i++) {
            batches += subs[i].batches;
            seen += subs[i].vehicles_seen;
            bytes += subs[i].bytes;
        }
        uint64_t ticks = info.tick - before[k].tick;
        if (n_sessions > 1)
            printf(" session %" PRIu64 ":\n", sids[k]);
        printf("  ticks: %" PRIu64 " during the measurement (%.1f Hz)\n", ticks,
               (double)ticks / measured);
        printf("  tick lateness: p50 %.3f ms, p99 %.3f ms (10 us buckets, upper edges)\n",
               info.lateness_p50_ms, info.lateness_p99_ms);
        printf("  overruns (a whole tick late): %" PRIu64 ", dropped deadlines: %" PRIu64 "\n",
               info.overruns, info.skipped_ticks);
        printf("  tick time on its thread, start to end: p50 %.3f ms, p99 %.3f ms, longest %.3f ms "
               "(since the session began); %" PRIu64 " ticks longer than 1/120 s during the "
               "measurement\n",
               info.tick_time_p50_ms, info.tick_time_p99_ms, info.tick_time_max_ms,
               info.long_ticks - before[k].long_ticks);
        printf("  state batches received: %" PRIu64 " (%.1f per subscriber per second), "
               "vehicle states: %" PRIu64 ", %.2f MB/s to each subscriber\n",
               batches, (double)batches / (n_subs ? n_subs : 1) / measured, seen,
               (double)bytes / (n_subs ? n_subs : 1) / measured / 1e6);
        print_parts(&before[k].tick_parts, &info.tick_parts);
        last_tick = info.tick < last_tick ? info.tick : last_tick;
    }
    pdk_client_close(&c);
    struct rusage ru;
    pdk_test_server_stop(&srv, log, sizeof(log));
    getrusage(RUSAGE_CHILDREN, &ru);
    static double cpu_before;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_usec * 1e-6;
    printf("  paddockd CPU over its whole life: %.2f s (%.0f%% of one core over the measured "
           "%.0f s)\n",
           cpu - cpu_before, 100.0 * (cpu - cpu_before) / measured, measured);
    cpu_before = cpu;
    /* A tick every run of this length reaches, whatever else ran beside. */
    uint64_t at = (uint64_t)(bc->seconds * 60.0) / 120 * 120;
    for (int k = 0; k < n_sessions; k++) {
        if (n_sessions > 1)
            printf(" session %" PRIu64 ":\n", sids[k]);
        print_recording(srv.db, sids[k], bc->vehicles);
        print_hash(srv.db, sids[k], at < last_tick ? at : last_tick);
    }
    free(sids);
    free(subs);
    free(before);
    return 0;
}

/* The sweep: issue 27's four sizes, one paddockd each. */
static int sweep(double seconds, const char *step_threads)
{
    const bench_case cases[] = {
        {.vehicles = 100, .subs = 10, .sessions = 1, .rate_hz = 120},
        {.vehicles = 1000, .subs = 1, .sessions = 1, .rate_hz = 60},
        {.vehicles = 3000, .subs = 1, .sessions = 1, .rate_hz = 60},
        {.vehicles = 10000, .subs = 1, .sessions = 1, .rate_hz = 60, .preset = "traffic_sedan"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bench_case bc = cases[i];
        bc.seconds = seconds;
        bc.step_threads = step_threads;
        rc |= run_case(&bc);
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sweep") == 0)
        return sweep(argc > 2 ? atof(argv[2]) : 10.0, argc > 3 ? argv[3] : NULL);
    bench_case bc = {
        .vehicles = argc > 1 ? atoi(argv[1]) : 100,
        .subs = argc > 2 ? atoi(argv[2]) : 10,
        .seconds = argc > 3 ? atof(argv[3]) : 10.0,
        .step_threads = argc > 4 && strcmp(argv[4], "-") != 0 ? argv[4] : NULL,
        .preset = argc > 5 && strcmp(argv[5], "-") != 0 ? argv[5] : NULL,
        .rate_hz = argc > 6 ? (uint32_t)atoi(argv[6]) : 120,
        .sessions = argc > 7 ? atoi(argv[7]) : 1,
        .keyframe_every = argc > 8 ? (uint32_t)atoi(argv[8]) : 0,
    };
    if (bc.vehicles < 1 || bc.subs < 0 || bc.seconds <= 0.0 || bc.rate_hz < 1 ||
        bc.rate_hz > 120 || bc.sessions < 1) {
        fprintf(stderr, "usage: bench_server [vehicles>=1] [subscribers>=0] [seconds>0] "
                        "[step_threads|-] [preset|-] [rate_hz 1..120] [sessions>=1] "
                        "[keyframe_every]\n"
                        "       bench_server sweep [seconds] [step_threads]\n");
        return 2;
    }
    return run_case(&bc);
}
