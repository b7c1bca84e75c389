/* Stream benchmark: what one subscriber costs on the wire. The real
 * paddockd on loopback hosts one real-time session of N vehicles driving
 * circles; one raw TCP subscriber per stream kind reads for S seconds and
 * counts every byte the server pushed after the subscription's reply
 * (length prefixes included: what the network carries). Prints bytes per
 * second per subscriber, frames per second and bytes per vehicle-sample for
 * state alone, state with wheels, state with every field, and 20 telemetry
 * channels at 60 Hz. It measures; it never fails on a size or a time.
 *   bench_stream [vehicles=100] [seconds=10] */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_raw.h"
#include "harness.h"
#include "paddock_client.h"

/* Twenty channels an engineer plots while driving: the car's motion, the
 * driver's inputs and each wheel's slip and load. */
static const char *const telemetry_channels[20] = {
    "Speed",         "YawRate",       "AccelX",        "AccelY",        "SteerWheel",
    "Throttle",      "BrakePressure", "EngineRPM",     "Roll",          "Pitch",
    "SlipAngle_FL",  "SlipAngle_FR",  "SlipAngle_RL",  "SlipAngle_RR",  "SlipRatio_FL",
    "SlipRatio_FR",  "SlipRatio_RL",  "SlipRatio_RR",  "TyreLoad_FL",   "TyreLoad_RR",
};

typedef struct stream {
    const char *what;
    int telemetry;   /* 1: a TelemetrySubscribe, 0: a Subscribe */
    uint32_t rate_hz;
    uint32_t fields; /* Subscribe.fields */
    /* measured */
    uint64_t bytes;
    uint64_t frames;
    int ok;
    pthread_t thread;
} stream;

static int server_port;
static uint64_t session_id;
static double seconds;

static void count_frame(void *ud, const uint8_t *frame, size_t len)
{
    (void)frame;
    stream *st = ud;
    st->bytes += len;
    st->frames++;
}

static void *stream_loop(void *arg)
{
    stream *st = arg;
    static _Thread_local paddock_v1_Frame f;
    memset(&f, 0, sizeof(f));
    f.request_id = 1;
    if (st->telemetry) {
        f.which_body = paddock_v1_Frame_telemetry_subscribe_tag;
        paddock_v1_TelemetrySubscribe *t = &f.body.telemetry_subscribe;
        t->session_id = session_id;
        t->rate_hz = st->rate_hz;
        t->channels_count = 20;
        for (int i = 0; i < 20; i++)
            strcpy(t->channels[i], telemetry_channels[i]);
    } else {
        f.which_body = paddock_v1_Frame_subscribe_tag;
        f.body.subscribe.session_id = session_id;
        f.body.subscribe.rate_hz = st->rate_hz;
        f.body.subscribe.fields = st->fields;
    }
    st->ok = bench_raw_subscribe(server_port, "bench-stream", &f, seconds, NULL, count_frame, st);
    return NULL;
}

int main(int argc, char **argv)
{
    int n_vehicles = argc > 1 ? atoi(argv[1]) : 100;
    seconds = argc > 2 ? atof(argv[2]) : 10.0;
    pdk_test_server srv;
    char log[8192];
    if (pdk_test_server_start(&srv, NULL, NULL, log, sizeof(log)) != 0) {
        fprintf(stderr, "bench_stream: paddockd did not start: %s\n", log);
        return 1;
    }
    server_port = srv.port;
    static pdk_client c;
    if (pdk_client_connect(&c, srv.addr, 5000, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "bench_stream: connect: %s\n", c.error);
        return 1;
    }
    if (bench_driving_session(&c, "bench_stream", "bench-stream", NULL, n_vehicles, true, 0, true,
                              &session_id) != 0)
        return 1;

    const uint32_t all_fields = paddock_v1_StateField_STATE_FIELD_WHEELS |
                                paddock_v1_StateField_STATE_FIELD_INSTRUMENTS |
                                paddock_v1_StateField_STATE_FIELD_STEERING_FEEL;
    stream streams[] = {
        {.what = "state (pose and motion)", .rate_hz = 120},
        {.what = "state + wheels", .rate_hz = 120,
         .fields = paddock_v1_StateField_STATE_FIELD_WHEELS},
        {.what = "state + wheels, instruments, feel", .rate_hz = 120, .fields = all_fields},
        {.what = "state (pose and motion)", .rate_hz = 60},
        {.what = "telemetry, 20 channels", .telemetry = 1, .rate_hz = 60},
    };
    size_t n_streams = sizeof(streams) / sizeof(streams[0]);
    for (size_t i = 0; i < n_streams; i++)
        pthread_create(&streams[i].thread, NULL, stream_loop, &streams[i]);
    for (size_t i = 0; i < n_streams; i++)
        pthread_join(streams[i].thread, NULL);

    printf("bench_stream: %d vehicles, one subscriber per stream, %.1f s each, all at once\n",
           n_vehicles, seconds);
    printf("  %-36s %6s %12s %10s %10s\n", "stream", "rate", "bytes/s", "frames/s",
           "B/vehicle");
    for (size_t i = 0; i < n_streams; i++) {
        const stream *st = &streams[i];
        if (!st->ok) {
            printf("  %-36s %4u Hz  no stream (refused or never started)\n", st->what,
                   st->rate_hz);
            continue;
        }
        double bps = (double)st->bytes / seconds;
        double fps = (double)st->frames / seconds;
        double per_vehicle =
            st->frames ? (double)st->bytes / (double)st->frames / (double)n_vehicles : 0.0;
        printf("  %-36s %4u Hz %12.0f %10.1f %10.1f\n", st->what, st->rate_hz, bps, fps,
               per_vehicle);
    }
    pdk_client_close(&c);
    pdk_test_server_stop(&srv, log, sizeof(log));
    return 0;
}
