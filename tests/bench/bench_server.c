/* Server benchmark: the real paddockd on loopback hosting one real-time
 * session with N vehicles driving circles and M subscribers each reading
 * every state batch at 120 Hz on its own connection. Prints tick lateness
 * (p50, p99, max bucket), overruns and dropped deadlines as the server
 * measured them. It measures; it never fails on a time.
 *   bench_server [vehicles=100] [subscribers=10] [seconds=10] */
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_raw.h"
#include "harness.h"
#include "paddock_client.h"

typedef struct subscriber {
    pthread_t thread;
    uint64_t session;
    double seconds;
    uint64_t batches;
    uint64_t vehicles_seen;
    int ok;
} subscriber;

static int server_port;
static atomic_int ready;

/* One subscriber on its own raw connection (bench_raw.h): Hello,
 * Subscribe to every vehicle at 120 Hz, then count the state batches and
 * the vehicles in them until the time is up. */
static void *subscribe_loop(void *arg)
{
    subscriber *s = arg;
    int fd = pdk_test_raw_connect(server_port);
    if (fd < 0)
        return NULL;
    static _Thread_local paddock_v1_Frame f;
    memset(&f, 0, sizeof(f));
    f.which_body = paddock_v1_Frame_hello_tag;
    f.body.hello.protocol_version = 1;
    strcpy(f.body.hello.client_name, "bench-sub");
    f.body.hello.viewer = true;
    if (bench_raw_send(fd, &f) != 0)
        return NULL;
    memset(&f, 0, sizeof(f));
    f.request_id = 1;
    f.which_body = paddock_v1_Frame_subscribe_tag;
    f.body.subscribe.session_id = s->session;
    f.body.subscribe.rate_hz = 120;
    if (bench_raw_send(fd, &f) != 0)
        return NULL;
    size_t cap = 4u << 20, have = 0;
    uint8_t *buf = malloc(cap);
    uint64_t frames = 0;
    struct timespec t0 = {0}, t;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t0.tv_sec != 0 && (double)(t.tv_sec - t0.tv_sec) +
                                      (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >
                                  s->seconds)
            break;
        if (poll(&pfd, 1, 200) <= 0)
            continue;
        ssize_t r = read(fd, buf + have, cap - have);
        if (r <= 0)
            break;
        have += (size_t)r;
        size_t at = 0, len;
        while ((len = bench_raw_frame_len(buf + at, have - at)) > 0) {
            /* Frames 1 and 2: the Welcome and Subscribed; then the stream. */
            if (++frames == 2) {
                clock_gettime(CLOCK_MONOTONIC, &t0);
                atomic_fetch_add(&ready, 1);
            } else if (frames > 2) {
                uint64_t n = bench_raw_count(buf + at, len, 60, 5);
                s->batches += n > 0;
                s->vehicles_seen += n;
            }
            at += len;
        }
        memmove(buf, buf + at, have - at);
        have -= at;
    }
    s->ok = t0.tv_sec != 0;
    free(buf);
    close(fd);
    return NULL;
}

static paddock_v1_Frame req, rep;

int main(int argc, char **argv)
{
    int n_vehicles = argc > 1 ? atoi(argv[1]) : 100;
    int n_subs = argc > 2 ? atoi(argv[2]) : 10;
    double seconds = argc > 3 ? atof(argv[3]) : 10.0;
    pdk_test_server srv;
    char log[8192];
    if (pdk_test_server_start(&srv, NULL, NULL, log, sizeof(log)) != 0) {
        fprintf(stderr, "bench_server: paddockd did not start: %s\n", log);
        return 1;
    }
    server_port = srv.port;
    static pdk_client c;
    if (pdk_client_connect(&c, srv.addr, 5000, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_server: connect: %s\n", c.error);
        return 1;
    }
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "bench");
    char world_set[64];
    snprintf(world_set, sizeof(world_set), "maxVehicles=%d", n_vehicles > 256 ? n_vehicles : 256);
    strcpy(req.body.session_create.world_overrides, world_set);
    if (pdk_client_call(&c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_server: create: %s\n", c.error);
        return 1;
    }
    uint64_t sid = rep.body.session_created.session.session_id;
    for (int i = 0; i < n_vehicles; i++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
        req.body.vehicle_spawn.session_id = sid;
        strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
        req.body.vehicle_spawn.x_m = (i % 10) * 60.0;
        req.body.vehicle_spawn.y_m = (i / 10) * 60.0;
        req.body.vehicle_spawn.speed_mps = 10.0;
        req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
        if (pdk_client_call(&c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK) {
            fprintf(stderr, "bench_server: spawn: %s\n", c.error);
            return 1;
        }
        uint32_t vid = rep.body.vehicle_spawned.vehicle_id;
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_dbw_command_tag;
        req.body.dbw_command.session_id = sid;
        req.body.dbw_command.vehicle_id = vid;
        req.body.dbw_command.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
        req.body.dbw_command.throttle.throttle_pct = 15.0;
        req.body.dbw_command.which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
        req.body.dbw_command.steer.steer_wheel_deg = 45.0 + (i % 7) * 10.0;
        pdk_client_call(&c, &req, &rep, NULL, NULL);
    }
    subscriber *subs = calloc((size_t)n_subs, sizeof(*subs));
    for (int i = 0; i < n_subs; i++) {
        subs[i].session = sid;
        subs[i].seconds = seconds;
        pthread_create(&subs[i].thread, NULL, subscribe_loop, &subs[i]);
    }
    while (atomic_load(&ready) < n_subs)
        usleep(1000);
    /* Lateness is measured over the session's whole life; take a baseline
     * of what spawning cost so the steady state can be told apart. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    pdk_client_call(&c, &req, &rep, NULL, NULL);
    uint64_t tick_start = rep.body.session_list_reply.sessions[0].tick;
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
    uint64_t batches = 0, seen = 0;
    int ok = 0;
    for (int i = 0; i < n_subs; i++) {
        batches += subs[i].batches;
        seen += subs[i].vehicles_seen;
        ok += subs[i].ok;
    }
    printf("bench_server: %d vehicles, %d subscribers at 120 Hz, %.1f s\n", n_vehicles, ok,
           seconds);
    printf("  ticks: %" PRIu64 " during the measurement (%.1f Hz)\n", info->tick - tick_start,
           (double)(info->tick - tick_start) / seconds);
    printf("  tick lateness: p50 %.3f ms, p99 %.3f ms (10 us buckets, upper edges)\n",
           info->lateness_p50_ms, info->lateness_p99_ms);
    printf("  overruns (a whole tick late): %" PRIu64 ", dropped deadlines: %" PRIu64 "\n",
           info->overruns, info->skipped_ticks);
    printf("  state batches received: %" PRIu64 " (%.1f per subscriber per second), "
           "vehicle states: %" PRIu64 "\n",
           batches, (double)batches / (n_subs ? n_subs : 1) / seconds, seen);
    pdk_client_close(&c);
    pdk_test_server_stop(&srv, log, sizeof(log));
    getrusage(RUSAGE_CHILDREN, &ru1);
    double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) * 1e-6 +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) * 1e-6;
    printf("  paddockd CPU over its whole life: %.2f s (%.0f%% of one core over the measured %.0f "
           "s)\n",
           cpu, 100.0 * cpu / seconds, seconds);
    free(subs);
    return 0;
}
