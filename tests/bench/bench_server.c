/* Server benchmark: the real paddockd on loopback hosting one real-time
 * session with N vehicles driving circles and M subscribers each reading
 * every state batch at 120 Hz on its own connection. Prints tick lateness
 * (p50, p99, max bucket), overruns and dropped deadlines as the server
 * measured them, and what the session's recording costs per car-hour
 * (keyframes, state hashes, inputs; read from the database once the server
 * has stopped). The cars are spawned into the session while it is
 * paused, so the lateness is the steady state's. It measures; it never
 * fails on a time.
 *   bench_server [vehicles=100] [subscribers=10] [seconds=10] [step_threads]
 * step_threads is paddockd's --step-threads (default: its own, one per
 * core; 0: every tick on the loop). */
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
    f.body.subscribe.rate_hz = 120;
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

int main(int argc, char **argv)
{
    int n_vehicles = argc > 1 ? atoi(argv[1]) : 100;
    int n_subs = argc > 2 ? atoi(argv[2]) : 10;
    double seconds = argc > 3 ? atof(argv[3]) : 10.0;
    const char *step_threads = argc > 4 ? argv[4] : NULL;
    const char *preset = argc > 5 ? argv[5] : NULL;
    /* Every spawn read at once: the session is paused meanwhile. */
    const char *extra[] = {"--max-spawns-per-tick", "4096", "--max-inputs-per-tick", "4096",
                           step_threads ? "--step-threads" : NULL, step_threads, NULL};
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
    uint64_t sid;
    if (bench_driving_session(&c, "bench_server", "bench", preset, n_vehicles, false, &sid) != 0)
        return 1;
    subscriber *subs = calloc((size_t)n_subs, sizeof(*subs));
    for (int i = 0; i < n_subs; i++) {
        subs[i].session = sid;
        subs[i].seconds = seconds;
        pthread_create(&subs[i].thread, NULL, subscribe_loop, &subs[i]);
    }
    while (atomic_load(&ready) < n_subs)
        usleep(1000);
    /* Lateness is the session's whole life: a few empty ticks, then the
     * steady state (the cars were spawned while it was paused). The tick
     * count starts here. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    pdk_client_call(&c, &req, &rep, NULL, NULL);
    uint64_t tick_start = rep.body.session_list_reply.sessions[0].tick;
    paddock_v1_TickParts parts0 = rep.body.session_list_reply.sessions[0].tick_parts;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_CHILDREN, &ru0);
    for (int i = 0; i < n_subs; i++)
        pthread_join(subs[i].thread, NULL);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    if (pdk_client_call(&c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_server: list: %s\n", c.error);
        return 1;
    }
    const paddock_v1_SessionInfo *info = &rep.body.session_list_reply.sessions[0];
    uint64_t batches = 0, seen = 0, bytes = 0;
    int ok = 0;
    for (int i = 0; i < n_subs; i++) {
        batches += subs[i].batches;
        seen += subs[i].vehicles_seen;
        bytes += subs[i].bytes;
        ok += subs[i].ok;
    }
    printf("bench_server: %d vehicles, %d subscribers at 120 Hz, %.1f s, step threads %s\n",
           n_vehicles, ok, seconds, step_threads ? step_threads : "(paddockd's default)");
    printf("  ticks: %" PRIu64 " during the measurement (%.1f Hz)\n", info->tick - tick_start,
           (double)(info->tick - tick_start) / seconds);
    printf("  tick lateness: p50 %.3f ms, p99 %.3f ms (10 us buckets, upper edges)\n",
           info->lateness_p50_ms, info->lateness_p99_ms);
    printf("  overruns (a whole tick late): %" PRIu64 ", dropped deadlines: %" PRIu64 "\n",
           info->overruns, info->skipped_ticks);
    printf("  state batches received: %" PRIu64 " (%.1f per subscriber per second), "
           "vehicle states: %" PRIu64 ", %.2f MB/s to each subscriber\n",
           batches, (double)batches / (n_subs ? n_subs : 1) / seconds, seen,
           (double)bytes / (n_subs ? n_subs : 1) / seconds / 1e6);
    print_parts(&parts0, &info->tick_parts);
    pdk_client_close(&c);
    pdk_test_server_stop(&srv, log, sizeof(log));
    getrusage(RUSAGE_CHILDREN, &ru1);
    double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) * 1e-6 +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) * 1e-6;
    printf("  paddockd CPU over its whole life: %.2f s (%.0f%% of one core over the measured %.0f "
           "s; %.3f ms a tick over its %" PRIu64 " ticks)\n",
           cpu, 100.0 * cpu / seconds, seconds, info->tick ? cpu * 1e3 / (double)info->tick : 0.0,
           info->tick);
    print_recording(srv.db, sid, n_vehicles);
    free(subs);
    return 0;
}
