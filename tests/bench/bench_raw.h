/* What the server benchmarks share: a session of cars driving circles, and
 * subscribers that read their stream as raw bytes. The C client decodes a
 * StateBatch of at most 64 vehicles (nanopb's fixed sizes,
 * proto/paddock/v1/paddock.options), and a benchmark measures sessions
 * larger than that, so its subscribers send nanopb-encoded requests and
 * walk the frames that come back without decoding them. */
#ifndef PDK_BENCH_RAW_H
#define PDK_BENCH_RAW_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pb_encode.h>

#include "harness.h"
#include "paddock_client.h"

/* Writes frame, varint-delimited as the TCP transport frames it. */
static inline int bench_raw_send(int fd, const paddock_v1_Frame *frame)
{
    static _Thread_local uint8_t buf[8192];
    pb_ostream_t os = pb_ostream_from_buffer(buf, sizeof(buf));
    if (!pb_encode_delimited(&os, paddock_v1_Frame_fields, frame))
        return -1;
    return write(fd, buf, os.bytes_written) == (ssize_t)os.bytes_written ? 0 : -1;
}

/* Reads the varint at *p (within end); 0 when it runs past end. */
static inline int bench_raw_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* The bytes of the frame at p, its length prefix included; 0 while the n
 * bytes there do not hold it whole. */
static inline size_t bench_raw_frame_len(const uint8_t *p, size_t n)
{
    const uint8_t *q = p;
    uint64_t len;
    if (!bench_raw_varint(&q, p + n, &len) || len > n - (size_t)(q - p))
        return 0;
    return (size_t)(q - p) + (size_t)len;
}

/* How many times field `inner` occurs in the length-delimited field
 * `outer` of the whole frame at p (prefix included): the vehicles of a
 * StateBatch (60, 5), the rows of a TelemetryBatch (92, 5). 0 for a frame
 * of another body. */
static inline uint64_t bench_raw_count(const uint8_t *p, size_t len, uint32_t outer,
                                       uint32_t inner)
{
    const uint8_t *end = p + len;
    uint64_t v, n = 0;
    if (!bench_raw_varint(&p, end, &v))
        return 0;
    int depth_outer = 1;
    while (p < end) {
        uint64_t tag;
        if (!bench_raw_varint(&p, end, &tag))
            return n;
        uint32_t field = (uint32_t)(tag >> 3), wire = (uint32_t)(tag & 7);
        if (wire == 0) {
            if (!bench_raw_varint(&p, end, &v))
                return n;
        } else if (wire == 1) {
            p += 8;
        } else if (wire == 5) {
            p += 4;
        } else if (wire == 2) {
            if (!bench_raw_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return n;
            if (depth_outer && field == outer) {
                end = p + v; /* walk into the body */
                depth_outer = 0;
                continue;
            }
            if (!depth_outer && field == inner)
                n++;
            p += v;
        } else {
            return n;
        }
    }
    return n;
}

/* Sends a SessionControl of session sid on c (its action set by the
 * caller in *req) and waits for its reply; -1 after printing what failed. */
static inline int bench_control(pdk_client *c, const char *who, paddock_v1_Frame *req,
                                paddock_v1_Frame *rep)
{
    if (pdk_client_call(c, req, rep, NULL, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "%s: session control: %s\n", who, c->error);
        return -1;
    }
    return 0;
}

/* Reads n replies on c, each of body want, in the order asked; a spawn
 * batch's vehicles go to ids, one after another. -1 after printing the
 * first that is not. */
static inline int bench_replies(pdk_client *c, const char *who, unsigned n, pb_size_t want,
                                paddock_v1_Frame *rep, uint32_t *ids)
{
    size_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        if (pdk_client_recv(c, rep, 60000) != PDK_CLIENT_OK || rep->which_body != want) {
            fprintf(stderr, "%s: reply %u of %u: %s\n", who, i, n,
                    rep->which_body == paddock_v1_Frame_error_tag ? rep->body.error.message
                                                                  : c->error);
            return -1;
        }
        if (ids && want == paddock_v1_Frame_vehicle_spawn_batch_reply_tag) {
            const paddock_v1_VehicleSpawnBatchReply *r = &rep->body.vehicle_spawn_batch_reply;
            memcpy(ids + at, r->vehicle_ids, r->vehicle_ids_count * sizeof(*ids));
            at += r->vehicle_ids_count;
        }
    }
    return 0;
}

/* The C client's fixed arrays: spawns and commands a batch frame holds. */
#define BENCH_SPAWNS_PER_BATCH 32
#define BENCH_COMMANDS_PER_BATCH 64

static inline double bench_raw_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Creates a real-time session (named name; recorded unless no_record,
 * with a keyframe every keyframe_every ticks, 0: the server's default) on
 * c and spawns n cars of preset (NULL: midsize_sedan) 60 m apart, each on
 * full circles at 15 % throttle with its own steering angle, heading and
 * starting speed: VehicleSpawnBatch and DbwCommandBatch frames, pipelined.
 * The session is made in lockstep, where nothing ticks it, so they apply
 * as they arrive, all at tick 0, and it goes real-time once every car
 * drives (bench_session_realtime; here when start, else the caller's to
 * do, as bench_server does once every session is ready, so that no
 * session's setup lands on another's real-time ticks): the server's
 * lateness is then the steady state's, and every session of the same
 * fleet ticks the same states, alone or beside others.
 * A server started with a large --max-spawns-per-tick reads the spawns at
 * once. 0 with the session's id in *sid; -1 after printing what failed,
 * prefixed with who. */
static inline int bench_session_realtime(pdk_client *c, const char *who, uint64_t sid);

static inline int bench_driving_session(pdk_client *c, const char *who, const char *name,
                                        const char *preset, int n, bool no_record,
                                        uint32_t keyframe_every, bool start, uint64_t *sid)
{
    static paddock_v1_Frame req, rep;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    snprintf(req.body.session_create.world_overrides,
             sizeof(req.body.session_create.world_overrides), "maxVehicles=%d",
             n > 256 ? n : 256);
    req.body.session_create.no_record = no_record;
    req.body.session_create.keyframe_every_ticks = keyframe_every;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    if (pdk_client_call(c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "%s: create: %s\n", who, c->error);
        return -1;
    }
    *sid = rep.body.session_created.session.session_id;
    uint32_t *ids = calloc((size_t)n, sizeof(*ids));
    if (!ids)
        return -1;
    unsigned frames = 0;
    const double spawn_s = bench_raw_now_s();
    for (int first = 0; first < n; first += BENCH_SPAWNS_PER_BATCH, frames++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_vehicle_spawn_batch_tag;
        paddock_v1_VehicleSpawnBatch *b = &req.body.vehicle_spawn_batch;
        b->session_id = *sid;
        for (int i = first; i < n && i < first + BENCH_SPAWNS_PER_BATCH; i++) {
            paddock_v1_VehicleSpawn *sp = &b->spawns[b->spawns_count++];
            snprintf(sp->preset, sizeof(sp->preset), "%s", preset ? preset : "midsize_sedan");
            sp->x_m = (i % 10) * 60.0;
            sp->y_m = (i / 10) * 60.0;
            /* Each car its own heading and speed, so that no two states
             * are alike, as when cars join a running session one by one. */
            sp->yaw_deg = (double)((i * 37) % 360);
            sp->speed_mps = 6.0 + (double)(i % 9);
            sp->gear = paddock_v1_Gear_GEAR_DRIVE;
        }
        if (pdk_client_send(c, &req) != PDK_CLIENT_OK) {
            fprintf(stderr, "%s: spawn: %s\n", who, c->error);
            free(ids);
            return -1;
        }
    }
    if (bench_replies(c, who, frames, paddock_v1_Frame_vehicle_spawn_batch_reply_tag, &rep, ids) !=
        0) {
        free(ids);
        return -1;
    }
    const double command_s = bench_raw_now_s();
    frames = 0;
    for (int first = 0; first < n; first += BENCH_COMMANDS_PER_BATCH, frames++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_dbw_command_batch_tag;
        paddock_v1_DbwCommandBatch *b = &req.body.dbw_command_batch;
        b->session_id = *sid;
        for (int i = first; i < n && i < first + BENCH_COMMANDS_PER_BATCH; i++) {
            paddock_v1_DbwCommand *cmd = &b->commands[b->commands_count++];
            cmd->vehicle_id = ids[i];
            cmd->which_throttle = paddock_v1_DbwCommand_throttle_pct_tag;
            cmd->throttle.throttle_pct = 15.0;
            cmd->which_steer = paddock_v1_DbwCommand_steer_wheel_deg_tag;
            cmd->steer.steer_wheel_deg = 45.0 + (i % 7) * 10.0;
        }
        if (pdk_client_send(c, &req) != PDK_CLIENT_OK) {
            fprintf(stderr, "%s: command: %s\n", who, c->error);
            free(ids);
            return -1;
        }
    }
    free(ids);
    if (bench_replies(c, who, frames, paddock_v1_Frame_ok_tag, &rep, NULL) != 0)
        return -1;
    /* Each command takes its car's DRIVER lease: the second figure grew
     * with the square of n while leases were found by a search of all. */
    const double done_s = bench_raw_now_s();
    printf("  %s: %d cars spawned in %.2f s, then commanded (DbwCommandBatch of %d) in %.2f s\n",
           name, n, command_s - spawn_s, BENCH_COMMANDS_PER_BATCH, done_s - command_s);
    return start ? bench_session_realtime(c, who, *sid) : 0;
}

/* Session sid set ticking in real time. 0, or -1 after printing what
 * failed, prefixed with who. */
static inline int bench_session_realtime(pdk_client *c, const char *who, uint64_t sid)
{
    static paddock_v1_Frame req, rep;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_set_timing_tag;
    req.body.session_control.action.set_timing = paddock_v1_TimingMode_TIMING_MODE_REALTIME;
    return bench_control(c, who, &req, &rep);
}

/* One subscriber on its own raw connection to the server on port: Hello
 * (a viewer named name), then request (a subscription, request_id set);
 * the first two frames back are the Welcome and the subscription's reply,
 * and from then on, for seconds, on_start(ud) once and on_frame(ud, frame,
 * len) for each whole frame pushed (its length prefix included). Returns 1
 * when the stream started, else 0. */
static inline int bench_raw_subscribe(int port, const char *name, const paddock_v1_Frame *request,
                                      double seconds, void (*on_start)(void *ud),
                                      void (*on_frame)(void *ud, const uint8_t *frame, size_t len),
                                      void *ud)
{
    int fd = pdk_test_raw_connect(port);
    if (fd < 0)
        return 0;
    static _Thread_local paddock_v1_Frame hello;
    memset(&hello, 0, sizeof(hello));
    hello.which_body = paddock_v1_Frame_hello_tag;
    hello.body.hello.protocol_version = 1;
    snprintf(hello.body.hello.client_name, sizeof(hello.body.hello.client_name), "%s", name);
    hello.body.hello.viewer = true;
    if (bench_raw_send(fd, &hello) != 0 || bench_raw_send(fd, request) != 0) {
        close(fd);
        return 0;
    }
    size_t cap = 4u << 20, have = 0;
    uint8_t *buf = malloc(cap);
    uint64_t seen = 0;
    double t0 = 0.0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (buf != NULL && (t0 == 0.0 || bench_raw_now_s() - t0 <= seconds)) {
        if (poll(&pfd, 1, 200) <= 0)
            continue;
        ssize_t r = read(fd, buf + have, cap - have);
        if (r <= 0)
            break;
        have += (size_t)r;
        size_t at = 0, len;
        while ((len = bench_raw_frame_len(buf + at, have - at)) > 0) {
            if (++seen == 2) {
                t0 = bench_raw_now_s();
                if (on_start)
                    on_start(ud);
            } else if (seen > 2) {
                on_frame(ud, buf + at, len);
            }
            at += len;
        }
        memmove(buf, buf + at, have - at);
        have -= at;
    }
    free(buf);
    close(fd);
    return t0 > 0.0;
}

#endif
