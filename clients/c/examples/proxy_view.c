/* paddock-proxy-view-example: draws a session's cars as another machine of
 * a multiplayer program would, through libpaddock-client's proxy view
 * (paddock_view.h, docs/multiplayer.md "The proxy view"). It subscribes to
 * the session's state at --rate Hz, taking each batch as it arrives, pings
 * the server once a second for the clock offset through the same
 * connection, and --draw times a second (absolute deadlines) prints each
 * car's smoothed pose: where the view draws it, how (interpolating,
 * extrapolating, holding), and the view's delay. At the end it prints the
 * view's figures: batches, latency, jitter, delay, snaps and teleports.
 *
 *   paddock-proxy-view-example [--server HOST:PORT] [--session S] [--rate HZ]
 *                              [--draw HZ] [--duration S]
 *
 * Without --session it creates a session and spawns a car that drives a
 * circle at about 10 m/s, so there is something to draw. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paddock_client.h"
#include "paddock_view.h"

#define MAX_CARS 64
#define DEG_PER_RAD 57.29577951308232
#define NAME "paddock-proxy-view-example"

/* Large: static storage, not the stack. */
static pdk_client client;
static paddock_v1_Frame frame;
static pdk_view view;
static pdk_view_track tracks[MAX_CARS];
static unsigned long batches, refused;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* The view's clock: the one pdk_client_clock_sample measures against. */
static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Every pushed frame goes through here: state batches into the view. */
static void on_push(const paddock_v1_Frame *f, void *ud)
{
    (void)ud;
    if (f->which_body == paddock_v1_Frame_state_batch_tag) {
        batches++;
        if (pdk_view_push_batch(&view, &f->body.state_batch, realtime_ns()) != PDK_VIEW_OK) {
            refused++;
            fprintf(stderr, NAME ": a sample was not taken: %s\n", view.error);
        }
    } else if (f->which_body == paddock_v1_Frame_error_tag) {
        fprintf(stderr, NAME ": the server says: %s\n", f->body.error.message);
        stop = 1;
    }
}

static int request(pb_size_t body, pb_size_t reply, const char *what)
{
    frame.which_body = body;
    pdk_client_status st = pdk_client_call(&client, &frame, &frame, on_push, NULL);
    if (st == PDK_CLIENT_OK) {
        st = pdk_client_expect(&client, &frame, reply);
    }
    if (st != PDK_CLIENT_OK) {
        fprintf(stderr, NAME ": %s: %s\n", what, client.error);
        return -1;
    }
    return 0;
}

static int clock_sample(void)
{
    int64_t offset_ns = 0;
    uint64_t rtt_ns = 0;
    if (pdk_client_clock_sample_push(&client, &frame, on_push, NULL, &offset_ns, &rtt_ns) !=
        PDK_CLIENT_OK) {
        fprintf(stderr, NAME ": ping: %s\n", client.error);
        return -1;
    }
    pdk_view_clock_sample(&view, offset_ns, rtt_ns > 0 ? rtt_ns : 1);
    return 0;
}

static const char *mode_name(pdk_view_mode m)
{
    switch (m) {
    case PDK_VIEW_WAITING:
        return "waiting";
    case PDK_VIEW_INTERPOLATING:
        return "interp";
    case PDK_VIEW_EXTRAPOLATING:
        return "extrap";
    case PDK_VIEW_HOLDING:
        return "hold";
    }
    return "?";
}

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static int usage(const char *why)
{
    fprintf(stderr,
            NAME ": %s\nusage: " NAME " [--server HOST:PORT] [--session S] [--rate HZ] "
                 "[--draw HZ] [--duration S]\n",
            why);
    return 2;
}

/* A session with one car driving a circle. */
static int demo_session(unsigned long long *session)
{
    memset(&frame, 0, sizeof frame);
    snprintf(frame.body.session_create.name, sizeof frame.body.session_create.name,
             "proxy-view-example");
    if (request(paddock_v1_Frame_session_create_tag, paddock_v1_Frame_session_created_tag,
                "create a session") != 0) {
        return -1;
    }
    *session = frame.body.session_created.session.session_id;
    memset(&frame, 0, sizeof frame);
    frame.body.vehicle_spawn.session_id = *session;
    snprintf(frame.body.vehicle_spawn.preset, sizeof frame.body.vehicle_spawn.preset,
             "midsize_sedan");
    frame.body.vehicle_spawn.speed_mps = 10.0;
    frame.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
    if (request(paddock_v1_Frame_vehicle_spawn_tag, paddock_v1_Frame_vehicle_spawned_tag,
                "spawn a car") != 0) {
        return -1;
    }
    uint32_t car = frame.body.vehicle_spawned.vehicle_id;
    memset(&frame, 0, sizeof frame);
    frame.body.dbw_command.session_id = *session;
    frame.body.dbw_command.vehicle_id = car;
    frame.body.dbw_command.which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
    frame.body.dbw_command.steer.steer_wheel_deg = 90.0;
    frame.body.dbw_command.which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
    frame.body.dbw_command.throttle.throttle_pct = 12.0;
    return request(paddock_v1_Frame_dbw_command_tag, paddock_v1_Frame_ok_tag, "drive the car");
}

int main(int argc, char **argv)
{
    const char *server = NULL;
    unsigned long long session = 0;
    long rate_hz = 30, draw_hz = 10;
    double duration_s = 10.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            return usage(strncmp(a, "--", 2) == 0 ? "an option lacks its value" : a);
        }
        i++;
        if (strcmp(a, "--server") == 0) {
            server = v;
        } else if (strcmp(a, "--session") == 0) {
            session = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--rate") == 0) {
            rate_hz = strtol(v, NULL, 10);
        } else if (strcmp(a, "--draw") == 0) {
            draw_hz = strtol(v, NULL, 10);
        } else if (strcmp(a, "--duration") == 0) {
            duration_s = atof(v);
        } else {
            return usage(a);
        }
    }
    if (rate_hz < 1 || rate_hz > 120 || 120 % rate_hz != 0) {
        return usage("--rate must divide 120 (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, "
                     "60 or 120)");
    }
    if (draw_hz < 1 || draw_hz > 240) {
        return usage("--draw must lie in 1..240 Hz");
    }
    if (!(duration_s > 0.0 && duration_s <= 86400.0)) {
        return usage("--duration must lie in (0, 86400] s");
    }
    if (pdk_view_init(&view, tracks, MAX_CARS, NULL) != PDK_VIEW_OK) {
        fprintf(stderr, NAME ": %s\n", view.error);
        return 1;
    }

    const char *addr = pdk_client_server_address(server);
    if (pdk_client_connect_as(&client, addr, 0, NAME, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, NAME ": cannot connect to %s: %s\n", addr, client.error);
        return 3;
    }
    if (session == 0 && demo_session(&session) != 0) {
        pdk_client_close(&client);
        return 1;
    }
    if (clock_sample() != 0) {
        pdk_client_close(&client);
        return 1;
    }
    memset(&frame, 0, sizeof frame);
    frame.body.subscribe.session_id = session;
    frame.body.subscribe.rate_hz = (uint32_t)rate_hz;
    if (request(paddock_v1_Frame_subscribe_tag, paddock_v1_Frame_subscribed_tag,
                "subscribe to the state") != 0) {
        pdk_client_close(&client);
        return 1;
    }
    printf("session %llu: state at %ld Hz, drawn at %ld Hz, clock offset %.3f ms (round trip "
           "%.3f ms)\n",
           session, rate_hz, draw_hz, (double)view.offset_ns / 1e6,
           (double)view.round_trip_ns / 1e6);

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    const long period_ns = 1000000000L / draw_hz;
    const long draws = (long)(duration_s * (double)draw_hz);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    int rc = 0;
    for (long n = 0; n < draws && !stop; n++) {
        /* Until the frame's deadline, take each batch as it comes: the view
         * measures latency and jitter from the arrival times, so a batch
         * left waiting in the socket would look late. */
        add_ns(&next, period_ns);
        for (;;) {
            struct timespec now_ts;
            clock_gettime(CLOCK_MONOTONIC, &now_ts);
            long left_ms = (long)(next.tv_sec - now_ts.tv_sec) * 1000L +
                           (next.tv_nsec - now_ts.tv_nsec) / 1000000L;
            if (left_ms <= 0) {
                break;
            }
            pdk_client_status st = pdk_client_recv(&client, &frame, (int)left_ms);
            if (st == PDK_CLIENT_ETIMEOUT) {
                break;
            }
            if (st != PDK_CLIENT_OK) {
                fprintf(stderr, NAME ": %s\n", client.error);
                rc = 1;
                stop = 1;
                break;
            }
            on_push(&frame, NULL);
        }
        if (n > 0 && n % draw_hz == 0 && clock_sample() != 0) {
            rc = 1;
            break;
        }
        int64_t now = realtime_ns();
        for (size_t i = 0; i < MAX_CARS; i++) {
            pdk_view_pose p;
            if (!tracks[i].used || pdk_view_draw(&view, tracks[i].vehicle_id, now, &p) != 0) {
                continue;
            }
            printf("t %7.2f s  car %u  x %9.3f m  y %9.3f m  z %6.3f m  yaw %7.2f deg  %-7s  "
                   "delay %6.1f ms\n",
                   (double)n / (double)draw_hz, p.vehicle_id, p.pos_m[0], p.pos_m[1], p.pos_m[2],
                   p.yaw_rad * DEG_PER_RAD, mode_name(p.mode), 1e3 * (view.delay_s));
        }
        fflush(stdout);
    }
    uint32_t snaps = 0, teleports = 0;
    for (size_t i = 0; i < MAX_CARS; i++) {
        snaps += tracks[i].snaps;
        teleports += tracks[i].teleports;
    }
    printf("batches %lu (%lu refused), latency %.1f ms, jitter %.1f ms, send interval %.1f ms, "
           "delay %.1f ms, snaps %u, teleports %u\n",
           batches, refused, 1e3 * view.latency_s, 1e3 * view.jitter_s, 1e3 * view.interval_s,
           1e3 * view.delay_s, snaps, teleports);
    pdk_client_close(&client);
    return rc;
}
