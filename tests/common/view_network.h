/* The proxy view's measured error (issue 29): a true 120 Hz drive passed
 * through a simulated network into the proxy view, the drawn pose compared
 * with the true pose at the time the view drew (its draw time minus its
 * delay). Shared by tests/unit/test_view.c, which holds the view to the
 * issue's targets, and tests/bench/bench_view.c, which prints every case.
 *
 * The drives are closed-form, so the true pose is exact at any time, not
 * only at the 120 Hz ticks the view is sent:
 *  - turn: 30 m/s on a circle of radius v^2 / (0.5 g) = 183.5 m, the
 *    issue's case (yaw rate 0.163 rad/s, body rolled by the lateral
 *    acceleration);
 *  - mixed: a slalom whose speed swings between 18 and 38 m/s and whose
 *    lateral acceleration reaches 0.87 g, changing sign every few
 *    seconds.
 * The network: the subscription sends every 120/rate-th tick; each batch is
 * lost with probability loss, else arrives after delay_s plus a uniform
 * jitter in [-jitter_s, +jitter_s] (so batches may overtake each other);
 * the client's clock runs 3.7 s ahead of the server's and the client pings
 * once a second over the same kind of path. The PRNG is xorshift64*
 * (Vigna 2016) with a fixed seed: every run sees the same network.
 * Each stamp is late by a uniform 0-0.1 ms, as the server's ticks are.
 * The client draws at 60 Hz; the first two seconds (the view's warm-up) are
 * not counted. */
#ifndef PDK_VIEW_NETWORK_H
#define PDK_VIEW_NETWORK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paddock_view.h"
#include "view_drive.h"

#define VN_TICK_HZ 120
#define VN_DRAW_HZ 60
#define VN_G_MPS2 9.80665
#define VN_EPOCH_NS INT64_C(1700000000000000000) /* server clock at the drive's start */
#define VN_CLIENT_AHEAD_NS INT64_C(3700000000)   /* client clock minus server clock */
#define VN_WARMUP_S 2.0
/* StateBatch.wall_time_ns is when the server stepped the tick, late on its
 * schedule by up to about 0.1 ms (docs/perf/README.md, tick lateness p99):
 * the stamps carry that jitter, the true pose is the tick's. */
#define VN_STAMP_LATE_S 0.0001
#define VN_MAX_DRAWS 4096
#define VN_MAX_BATCHES 8192
/* A frame whose drawn step departs from the true step by more than this is
 * a visible jump (a car length at 30 m/s moves 0.5 m per 60 Hz frame). */
#define VN_JUMP_M 0.10

typedef enum vn_drive { VN_TURN = 0, VN_MIXED = 1 } vn_drive;

typedef struct vn_truth {
    double pos_m[3];
    double vel_mps[3];
    double yaw_rad, yaw_rate_radps, roll_rad;
    double vx_mps, vy_mps; /* body frame */
} vn_truth;

typedef struct vn_case {
    vn_drive drive;
    /* When not NULL, the drive is this recording of the simulator
     * (view_drive.h) and drive is not read. */
    const vd_recording *rec;
    int rate_hz;       /* the subscription's rate: divides 120 */
    double delay_s;    /* one-way mean */
    double jitter_s;   /* +- uniform */
    double loss;       /* probability a batch is lost */
    double duration_s;
    uint64_t seed;
} vn_case;

typedef struct vn_result {
    double pos_p95_m, pos_max_m;
    double heading_p95_deg, heading_max_deg;
    double delay_mean_s;    /* how far behind the server's clock the view drew, mean */
    double step_max_m;      /* largest departure of a drawn step from the true step */
    uint32_t jumps;         /* frames whose step departed by more than VN_JUMP_M */
    uint32_t snaps;         /* the view's own snap count */
    uint32_t extrapolated;  /* counted draws past the newest sample */
    uint32_t held;          /* counted draws past the extrapolation limit */
    uint32_t draws, batches, lost;
} vn_result;

static inline uint64_t vn_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static inline double vn_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(vn_next(s) >> 11) * 0x1p-53);
}

/* The true state at t_s seconds into the drive. */
static inline void vn_truth_at(vn_drive drive, double t_s, vn_truth *o)
{
    memset(o, 0, sizeof(*o));
    double ax, ay;
    if (drive == VN_TURN) {
        const double v = 30.0, a = 0.5 * VN_G_MPS2, r = v * v / a, w = v / r;
        o->pos_m[0] = r * sin(w * t_s);
        o->pos_m[1] = r * (1.0 - cos(w * t_s));
        o->vel_mps[0] = v * cos(w * t_s);
        o->vel_mps[1] = v * sin(w * t_s);
        ax = -a * sin(w * t_s);
        ay = a * cos(w * t_s);
    } else {
        /* x = 26 t + 40 sin(0.2 t), y = 30 sin(0.35 t) + 6 sin(0.9 t). */
        o->pos_m[0] = 26.0 * t_s + 40.0 * sin(0.2 * t_s);
        o->pos_m[1] = 30.0 * sin(0.35 * t_s) + 6.0 * sin(0.9 * t_s);
        o->vel_mps[0] = 26.0 + 8.0 * cos(0.2 * t_s);
        o->vel_mps[1] = 10.5 * cos(0.35 * t_s) + 5.4 * cos(0.9 * t_s);
        ax = -1.6 * sin(0.2 * t_s);
        ay = -3.675 * sin(0.35 * t_s) - 4.86 * sin(0.9 * t_s);
    }
    double vx = o->vel_mps[0], vy = o->vel_mps[1], v2 = vx * vx + vy * vy;
    o->yaw_rad = atan2(vy, vx);
    o->yaw_rate_radps = (vx * ay - vy * ax) / v2;
    o->vx_mps = sqrt(v2);
    o->vy_mps = 0.0;
    /* Lateral acceleration rolls the body outward: about 3 degrees at
     * 0.5 g (positive roll is right side down, as in a left turn). */
    o->roll_rad = 0.0107 * (o->yaw_rate_radps * sqrt(v2));
}

/* The VehicleState the server would send at tick k. */
static inline void vn_state_at(vn_drive drive, uint64_t tick, paddock_v1_VehicleState *vs)
{
    vn_truth tr;
    vn_truth_at(drive, (double)tick / VN_TICK_HZ, &tr);
    memset(vs, 0, sizeof(*vs));
    vs->vehicle_id = 1;
    vs->x_m = tr.pos_m[0];
    vs->y_m = tr.pos_m[1];
    vs->z_m = 0.0;
    vs->yaw_rad = tr.yaw_rad;
    vs->vx_mps = tr.vx_mps;
    vs->vy_mps = tr.vy_mps;
    vs->yaw_rate_radps = tr.yaw_rate_radps;
    vs->speed_mps = tr.vx_mps;
    vs->roll_rad = tr.roll_rad;
}

/* The VehicleState the server sends of a recorded tick: each field of the
 * pose as server/wire/wire.c (pdk_wire_state_from_pose) sets it. */
static inline void vn_state_of_pose(const pdk_vehicle_pose *p, paddock_v1_VehicleState *vs)
{
    memset(vs, 0, sizeof(*vs));
    vs->vehicle_id = 1;
    vs->x_m = p->x_m;
    vs->y_m = p->y_m;
    vs->z_m = p->z_m;
    vs->yaw_rad = p->yaw_rad;
    vs->vx_mps = p->vx_mps;
    vs->vy_mps = p->vy_mps;
    vs->yaw_rate_radps = p->yaw_rate_radps;
    vs->steer_angle_rad = p->steer_angle_rad;
    vs->speed_mps = p->speed_mps;
    vs->ax_mps2 = p->ax_mps2;
    vs->ay_mps2 = p->ay_mps2;
    vs->pitch_rad = p->pitch_rad;
    vs->roll_rad = p->roll_rad;
    vs->vz_mps = p->vz_mps;
    vs->roll_rate_radps = p->roll_rate_radps;
    vs->pitch_rate_radps = p->pitch_rate_radps;
}

/* The case's true state at t_s: the closed-form drive's, or the
 * recording's (position and heading between ticks by Hermite, the rest
 * from the nearer tick). */
static inline void vn_case_truth(const vn_case *c, double t_s, vn_truth *o)
{
    if (c->rec == NULL) {
        vn_truth_at(c->drive, t_s, o);
        return;
    }
    memset(o, 0, sizeof(*o));
    const vd_tick *near;
    vd_truth_at(c->rec, t_s, o->pos_m, &o->yaw_rad, &near);
    memcpy(o->vel_mps, near->vel_mps, sizeof(o->vel_mps));
    o->yaw_rate_radps = near->pose.yaw_rate_radps;
    o->roll_rad = near->pose.roll_rad;
    o->vx_mps = near->pose.vx_mps;
    o->vy_mps = near->pose.vy_mps;
}

/* The case's VehicleState at tick k. */
static inline void vn_case_state(const vn_case *c, uint64_t tick, paddock_v1_VehicleState *vs)
{
    if (c->rec == NULL) {
        vn_state_at(c->drive, tick, vs);
        return;
    }
    uint64_t k = tick < c->rec->n ? tick : c->rec->n - 1u;
    vn_state_of_pose(&c->rec->ticks[k].pose, vs);
}

/* The server clock at tick k on the schedule. */
static inline int64_t vn_stamp_ns(uint64_t k)
{
    return VN_EPOCH_NS + (int64_t)(k * UINT64_C(1000000000) / VN_TICK_HZ);
}

static inline int vn_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double vn_p95(double *xs, uint32_t n)
{
    if (n == 0) {
        return 0.0;
    }
    qsort(xs, n, sizeof(double), vn_cmp_double);
    uint32_t i = (uint32_t)ceil(0.95 * n) - 1u;
    return xs[i];
}

typedef struct vn_batch {
    uint64_t tick;
    int64_t late_ns; /* the server stepped the tick this late */
    int64_t arrive_client_ns;
} vn_batch;

static inline int vn_cmp_batch(const void *a, const void *b)
{
    const vn_batch *x = a, *y = b;
    if (x->arrive_client_ns != y->arrive_client_ns) {
        return x->arrive_client_ns < y->arrive_client_ns ? -1 : 1;
    }
    return (x->tick > y->tick) - (x->tick < y->tick);
}

/* Runs one case through a view with the given settings (NULL: defaults).
 * Returns 0, or -1 when the case does not fit the fixed arrays. */
static inline int vn_run(const vn_case *c, const pdk_view_settings *settings, vn_result *res)
{
    static vn_batch batches[VN_MAX_BATCHES];
    static double pos_err[VN_MAX_DRAWS], head_err[VN_MAX_DRAWS];
    memset(res, 0, sizeof(*res));
    uint64_t rng = c->seed != 0 ? c->seed : 1u;
    int every = VN_TICK_HZ / c->rate_hz;
    uint64_t ticks = (uint64_t)(c->duration_s * VN_TICK_HZ);
    if (c->rec != NULL && ticks >= c->rec->n) {
        return -1;
    }
    uint32_t nb = 0;
    for (uint64_t k = 0; k <= ticks; k += (uint64_t)every) {
        res->batches++;
        double drop = vn_uniform(&rng, 0.0, 1.0);
        double d_s = c->delay_s + vn_uniform(&rng, -c->jitter_s, c->jitter_s);
        if (drop < c->loss) {
            res->lost++;
            continue;
        }
        if (nb == VN_MAX_BATCHES) {
            return -1;
        }
        batches[nb].tick = k;
        batches[nb].late_ns = (int64_t)llround(vn_uniform(&rng, 0.0, VN_STAMP_LATE_S) * 1e9);
        int64_t stamp = vn_stamp_ns(k) + batches[nb].late_ns;
        batches[nb].arrive_client_ns = stamp + VN_CLIENT_AHEAD_NS + (int64_t)llround(d_s * 1e9);
        nb++;
    }
    qsort(batches, nb, sizeof(batches[0]), vn_cmp_batch);

    static pdk_view_track tracks[2];
    pdk_view v;
    if (pdk_view_init(&v, tracks, 2, settings) != PDK_VIEW_OK) {
        return -1;
    }
    uint32_t bi = 0, n = 0;
    int64_t start_client = VN_EPOCH_NS + VN_CLIENT_AHEAD_NS;
    uint64_t draws = (uint64_t)(c->duration_s * VN_DRAW_HZ);
    int next_ping_s = 0;
    double prev_drawn[3] = {0, 0, 0}, prev_true[3] = {0, 0, 0};
    int have_prev = 0;
    double delay_sum = 0.0;
    for (uint64_t f = 0; f < draws; f++) {
        int64_t now = start_client + (int64_t)(f * 1000000000u / VN_DRAW_HZ);
        /* A ping once a second: t0 and t3 on the client's clock, t1 = t2 on
         * the server's, each way its own delay. */
        while ((int64_t)next_ping_s * 1000000000 + start_client <= now) {
            int64_t t0 = start_client + (int64_t)next_ping_s * 1000000000;
            double up_s = c->delay_s + vn_uniform(&rng, -c->jitter_s, c->jitter_s);
            double down_s = c->delay_s + vn_uniform(&rng, -c->jitter_s, c->jitter_s);
            int64_t t12 = t0 - VN_CLIENT_AHEAD_NS + (int64_t)llround(up_s * 1e9);
            int64_t t3 = t0 + (int64_t)llround((up_s + down_s) * 1e9);
            pdk_view_clock_sample(&v, ((t12 - t0) + (t12 - t3)) / 2, (uint64_t)(t3 - t0));
            next_ping_s++;
        }
        while (bi < nb && batches[bi].arrive_client_ns <= now) {
            static paddock_v1_StateBatch b;
            memset(&b, 0, sizeof(b));
            b.tick = batches[bi].tick;
            b.sim_time_s = (double)b.tick / VN_TICK_HZ;
            b.wall_time_ns = (uint64_t)(vn_stamp_ns(b.tick) + batches[bi].late_ns);
            b.vehicles_count = 1;
            vn_case_state(c, b.tick, &b.vehicles[0]);
            (void)pdk_view_push_batch(&v, &b, batches[bi].arrive_client_ns);
            bi++;
        }
        pdk_view_pose pose;
        if (pdk_view_draw(&v, 1, now, &pose) != PDK_VIEW_OK) {
            continue;
        }
        vn_truth tr;
        double t_true_s = (double)(pose.drawn_server_ns - VN_EPOCH_NS) / 1e9;
        vn_case_truth(c, t_true_s, &tr);
        if ((double)f / VN_DRAW_HZ < VN_WARMUP_S) {
            continue;
        }
        if (n == VN_MAX_DRAWS) {
            return -1;
        }
        double dx = pose.pos_m[0] - tr.pos_m[0], dy = pose.pos_m[1] - tr.pos_m[1];
        double dz = pose.pos_m[2] - tr.pos_m[2];
        pos_err[n] = sqrt(dx * dx + dy * dy + dz * dz);
        double dh = remainder(pose.yaw_rad - tr.yaw_rad, 2.0 * M_PI);
        head_err[n] = fabs(dh) * 180.0 / M_PI;
        res->pos_max_m = fmax(res->pos_max_m, pos_err[n]);
        res->heading_max_deg = fmax(res->heading_max_deg, head_err[n]);
        if (have_prev) {
            double s2 = 0.0;
            for (int i = 0; i < 3; i++) {
                double step = (pose.pos_m[i] - prev_drawn[i]) - (tr.pos_m[i] - prev_true[i]);
                s2 += step * step;
            }
            double step_m = sqrt(s2);
            res->step_max_m = fmax(res->step_max_m, step_m);
            res->jumps += step_m > VN_JUMP_M;
        }
        memcpy(prev_drawn, pose.pos_m, sizeof(prev_drawn));
        memcpy(prev_true, tr.pos_m, sizeof(prev_true));
        have_prev = 1;
        res->extrapolated += pose.mode == PDK_VIEW_EXTRAPOLATING;
        res->held += pose.mode == PDK_VIEW_HOLDING;
        delay_sum += (double)((now - VN_CLIENT_AHEAD_NS) - pose.drawn_server_ns) / 1e9;
        n++;
    }
    res->draws = n;
    res->pos_p95_m = vn_p95(pos_err, n);
    res->heading_p95_deg = vn_p95(head_err, n);
    res->delay_mean_s = n > 0 ? delay_sum / n : 0.0;
    const pdk_view_track *t = pdk_view_track_of(&v, 1);
    res->snaps = t != NULL ? t->snaps : 0;
    return 0;
}

#endif
