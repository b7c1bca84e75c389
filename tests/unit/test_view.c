/* Tests of the proxy view (clients/c/paddock_view.h): the interpolation is
 * exact where its model is (a cubic path, a constant yaw rate), the
 * extrapolation follows a circle and stops at its cap, corrections ease out
 * and large ones snap, a teleport jumps, the delay follows the measured
 * interval and jitter, the clock filter keeps the shortest round trip, each
 * error path names what was wrong, and, through the simulated network of
 * tests/common/view_network.h, the targets: at 30 Hz with 50 +- 20 ms
 * and 2 % loss, position p95 under 5 cm, heading p95 under 0.5 degrees, no
 * snap, in a 0.5 g turn at 30 m/s; at 5 % loss under 15 cm. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "paddock_view.h"
#include "view_network.h"

#define NS INT64_C(1000000000)
#define T0 INT64_C(1700000000000000000)

static pdk_view_track tracks[4];

/* A sample of vehicle id at t_s on the drive, stamped T0 + t_s. */
static pdk_view_sample drive_sample(vn_drive drive, uint32_t id, double t_s)
{
    vn_truth tr;
    vn_truth_at(drive, t_s, &tr);
    paddock_v1_VehicleState vs;
    memset(&vs, 0, sizeof(vs));
    vs.vehicle_id = id;
    vs.x_m = tr.pos_m[0];
    vs.y_m = tr.pos_m[1];
    vs.yaw_rad = tr.yaw_rad;
    vs.vx_mps = tr.vx_mps;
    vs.vy_mps = tr.vy_mps;
    vs.yaw_rate_radps = tr.yaw_rate_radps;
    vs.roll_rad = tr.roll_rad;
    pdk_view_sample s;
    pdk_view_sample_from_state(&vs, T0 + (int64_t)llround(t_s * 1e9), t_s, &s);
    return s;
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

START_TEST(test_settings_checked)
{
    pdk_view_settings s;
    char why[160];
    pdk_view_settings_default(&s);
    ck_assert_int_eq(pdk_view_settings_check(&s, why, sizeof(why)), PDK_VIEW_OK);
    ck_assert_double_eq(s.extrapolate_max_s, 0.25);

    s.snap_distance_m = NAN;
    ck_assert_int_eq(pdk_view_settings_check(&s, why, sizeof(why)), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "snap_distance_m"));

    pdk_view_settings_default(&s);
    s.delay_slew = -0.1;
    ck_assert_int_eq(pdk_view_settings_check(&s, why, sizeof(why)), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "delay_slew is -0.1"));

    pdk_view_settings_default(&s);
    s.delay_floor_s = 0.5;
    s.delay_max_s = 0.2;
    ck_assert_int_eq(pdk_view_settings_check(&s, why, sizeof(why)), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "delay_max_s (0.2 s) is below delay_floor_s (0.5 s)"));
    ck_assert_int_eq(pdk_view_settings_check(NULL, why, sizeof(why)), PDK_VIEW_EINVAL);

    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, &s), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "settings: delay_max_s"));
    ck_assert_int_eq(pdk_view_init(&v, NULL, 4, NULL), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "at least one track"));
    ck_assert_int_eq(pdk_view_init(&v, tracks, 0, NULL), PDK_VIEW_EINVAL);
    ck_assert_int_eq(pdk_view_init(NULL, tracks, 4, NULL), PDK_VIEW_EINVAL);
}
END_TEST

START_TEST(test_euler_quat)
{
    const double cases[][3] = {{0.3, 0.05, -0.04}, {-2.9, -0.2, 0.3}, {3.1, 0.0, 0.0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double q[4], y, p, r;
        pdk_view_quat_from_euler(cases[i][0], cases[i][1], cases[i][2], q);
        ck_assert_double_eq_tol(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0,
                                1e-14);
        pdk_view_euler_from_quat(q, &y, &p, &r);
        ck_assert_double_eq_tol(y, cases[i][0], 1e-12);
        ck_assert_double_eq_tol(p, cases[i][1], 1e-12);
        ck_assert_double_eq_tol(r, cases[i][2], 1e-12);
    }
    /* ISO 8855: positive pitch puts the nose (body x) down, positive roll
     * the right side (body -y) down. Rotating v by q: v' = q v q*. */
    double q[4];
    pdk_view_quat_from_euler(0.0, 0.1, 0.0, q);
    /* z of the rotated body x axis: 2 (x z - w y). */
    ck_assert_double_eq_tol(2.0 * (q[1] * q[3] - q[0] * q[2]), -sin(0.1), 1e-15);
    pdk_view_quat_from_euler(0.0, 0.0, 0.1, q);
    /* z of the rotated body -y axis: -2 (y z + w x). */
    ck_assert_double_eq_tol(-2.0 * (q[2] * q[3] + q[0] * q[1]), -sin(0.1), 1e-15);
}
END_TEST

/* Cubic Hermite reproduces any cubic path exactly from its positions and
 * velocities, whatever the spacing of the samples. */
START_TEST(test_hermite_exact_on_cubic)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    const double c[3][4] = {{1.0, 20.0, -3.0, 0.7}, {-4.0, 2.0, 1.5, -0.4}, {0.3, 0.0, 0.1, 0.02}};
    const double times[] = {0.0, 0.033, 0.1, 0.117, 0.2, 0.3};
    for (size_t k = 0; k < 6; k++) {
        double t = times[k];
        pdk_view_sample s;
        memset(&s, 0, sizeof(s));
        s.vehicle_id = 7;
        s.server_ns = T0 + (int64_t)llround(t * 1e9);
        s.sim_time_s = t;
        for (int i = 0; i < 3; i++) {
            s.pos_m[i] = c[i][0] + c[i][1] * t + c[i][2] * t * t + c[i][3] * t * t * t;
            s.vel_mps[i] = c[i][1] + 2.0 * c[i][2] * t + 3.0 * c[i][3] * t * t;
        }
        ck_assert_int_eq(pdk_view_push(&v, &s, s.server_ns), PDK_VIEW_OK);
    }
    const pdk_view_track *tr = pdk_view_track_of(&v, 7);
    ck_assert_ptr_nonnull(tr);
    double worst = 0.0;
    for (int j = 1; j < 300; j++) {
        double t = j * 0.001;
        double pos[3], q[4], want[3];
        ck_assert_int_eq(
            pdk_view_track_eval(tr, &v.set, T0 + (int64_t)llround(t * 1e9), pos, q),
            PDK_VIEW_INTERPOLATING);
        for (int i = 0; i < 3; i++) {
            want[i] = c[i][0] + c[i][1] * t + c[i][2] * t * t + c[i][3] * t * t * t;
        }
        worst = fmax(worst, dist3(pos, want));
    }
    ck_assert_double_le(worst, 1e-9);
}
END_TEST

/* Slerp turns at a constant rate: at a constant yaw rate the heading
 * between samples is exact, also across the +-pi seam. */
START_TEST(test_slerp_constant_yaw_rate)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    const double w = 0.9, yaw0 = 2.9;
    for (int k = 0; k < 10; k++) {
        double t = k / 30.0;
        pdk_view_sample s;
        memset(&s, 0, sizeof(s));
        s.vehicle_id = 3;
        s.server_ns = T0 + (int64_t)llround(t * 1e9);
        s.sim_time_s = t;
        s.yaw_rad = remainder(yaw0 + w * t, 2.0 * M_PI);
        ck_assert_int_eq(pdk_view_push(&v, &s, s.server_ns), PDK_VIEW_OK);
    }
    const pdk_view_track *tr = pdk_view_track_of(&v, 3);
    for (int j = 1; j < 290; j++) {
        double t = j * 0.001;
        double pos[3], q[4], y, p, r;
        pdk_view_track_eval(tr, &v.set, T0 + (int64_t)llround(t * 1e9), pos, q);
        pdk_view_euler_from_quat(q, &y, &p, &r);
        ck_assert_double_le(fabs(remainder(y - (yaw0 + w * t), 2.0 * M_PI)), 1e-9);
    }
}
END_TEST

/* Past the newest sample the view follows the circle the velocity and yaw
 * rate describe (second order: the error is v w^2 e^3 / 6, 0.1 mm at
 * 100 ms in the 0.5 g turn), then holds at extrapolate_max_s. */
START_TEST(test_extrapolation_circle_then_hold)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    for (int k = 0; k <= 30; k++) {
        pdk_view_sample s = drive_sample(VN_TURN, 1, k / 30.0);
        ck_assert_int_eq(pdk_view_push(&v, &s, s.server_ns), PDK_VIEW_OK);
    }
    const pdk_view_track *tr = pdk_view_track_of(&v, 1);
    double pos[3], q[4], y, p, r, held[3];
    vn_truth truth;
    ck_assert_int_eq(pdk_view_track_eval(tr, &v.set, T0 + NS + NS / 10, pos, q),
                     PDK_VIEW_EXTRAPOLATING);
    vn_truth_at(VN_TURN, 1.1, &truth);
    ck_assert_double_le(dist3(pos, truth.pos_m), 2e-4);
    pdk_view_euler_from_quat(q, &y, &p, &r);
    ck_assert_double_le(fabs(y - truth.yaw_rad), 1e-9);

    ck_assert_int_eq(pdk_view_track_eval(tr, &v.set, T0 + NS + NS / 4, held, q),
                     PDK_VIEW_EXTRAPOLATING);
    ck_assert_int_eq(pdk_view_track_eval(tr, &v.set, T0 + 3 * NS, pos, q), PDK_VIEW_HOLDING);
    ck_assert_double_eq(dist3(pos, held), 0.0);
    /* Before the oldest sample kept (PDK_VIEW_SAMPLES of them): held at it. */
    ck_assert_int_eq(tr->n, PDK_VIEW_SAMPLES);
    ck_assert_int_eq(pdk_view_track_eval(tr, &v.set, T0 - NS, pos, q), PDK_VIEW_WAITING);
    ck_assert_double_eq(pos[0], tr->s[0].pos_m[0]);
}
END_TEST

/* Feeds the turn at 30 Hz, each batch 50 ms late, up to t_end_s. */
static void feed_turn(pdk_view *v, double t_end_s)
{
    for (int k = 0; k / 30.0 <= t_end_s + 1e-9; k++) {
        pdk_view_sample s = drive_sample(VN_TURN, 1, k / 30.0);
        ck_assert_int_eq(pdk_view_arrival(v, s.server_ns, s.server_ns + NS / 20), PDK_VIEW_OK);
        ck_assert_int_eq(pdk_view_push(v, &s, s.server_ns + NS / 20), PDK_VIEW_OK);
    }
}

/* A sample that disagrees with what was drawn moves nothing at once: the
 * difference eases out with time constant blend_time_s. One farther than
 * snap_distance_m jumps and is counted. */
START_TEST(test_correction_eases_and_snaps)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    feed_turn(&v, 1.0);
    /* Drawn 1.3 s after the last arrival: past the newest sample. */
    int64_t now = T0 + NS + NS / 20 + NS * 3 / 10;
    pdk_view_pose a, b;
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &a), PDK_VIEW_OK);
    ck_assert_int_eq(a.mode, PDK_VIEW_EXTRAPOLATING);

    pdk_view_sample s = drive_sample(VN_TURN, 1, 31 / 30.0);
    s.pos_m[1] += 0.5;
    ck_assert_int_eq(pdk_view_push(&v, &s, now), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &b), PDK_VIEW_OK);
    ck_assert_double_le(dist3(a.pos_m, b.pos_m), 1e-9); /* nothing moved */

    /* Half a second on (five time constants) the correction is e^-5 of what
     * it was; the raw pose is what the samples say. */
    const pdk_view_track *tr = pdk_view_track_of(&v, 1);
    double raw_b[3], raw[3], q[4];
    pdk_view_track_eval(tr, &v.set, b.drawn_server_ns, raw_b, q);
    double err0 = dist3(b.pos_m, raw_b);
    ck_assert_double_gt(err0, 0.1);
    ck_assert_int_eq(pdk_view_draw(&v, 1, now + NS / 2, &b), PDK_VIEW_OK);
    pdk_view_track_eval(tr, &v.set, b.drawn_server_ns, raw, q);
    ck_assert_double_le(fabs(dist3(b.pos_m, raw) - err0 * exp(-5.0)), 1e-9);
    ck_assert_uint_eq(tr->snaps, 0);

    /* 10 m off: a snap, drawn where the samples say at once. */
    s = drive_sample(VN_TURN, 1, 32 / 30.0);
    s.pos_m[0] += 10.0;
    ck_assert_int_eq(pdk_view_push(&v, &s, now + NS / 2), PDK_VIEW_OK);
    ck_assert_uint_eq(tr->snaps, 1);
    ck_assert_int_eq(pdk_view_draw(&v, 1, now + NS / 2, &b), PDK_VIEW_OK);
    pdk_view_track_eval(tr, &v.set, b.drawn_server_ns, raw, q);
    ck_assert_double_eq(dist3(b.pos_m, raw), 0.0);
}
END_TEST

/* A changed teleport_count empties the buffer: the vehicle is drawn at the
 * new place at once, which is not a snap; a late sample from before the
 * jump is refused. */
START_TEST(test_teleport_jumps)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    feed_turn(&v, 1.0);
    int64_t now = T0 + NS + NS / 20;
    pdk_view_pose pose;
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &pose), PDK_VIEW_OK);
    ck_assert_int_eq(pose.mode, PDK_VIEW_INTERPOLATING);

    pdk_view_sample s = drive_sample(VN_TURN, 1, 31 / 30.0);
    s.pos_m[0] = 500.0;
    s.pos_m[1] = -200.0;
    s.teleport_count = 1;
    ck_assert_int_eq(pdk_view_push(&v, &s, now), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &pose), PDK_VIEW_OK);
    ck_assert_int_eq(pose.mode, PDK_VIEW_WAITING);
    ck_assert_double_eq(pose.pos_m[0], 500.0);
    ck_assert_double_eq(pose.pos_m[1], -200.0);
    const pdk_view_track *tr = pdk_view_track_of(&v, 1);
    ck_assert_uint_eq(tr->teleports, 1);
    ck_assert_uint_eq(tr->snaps, 0);
    ck_assert_int_eq(tr->n, 1);

    pdk_view_sample late = drive_sample(VN_TURN, 1, 32 / 30.0);
    ck_assert_int_eq(pdk_view_push(&v, &late, now), PDK_VIEW_ESTALE);
    ck_assert_ptr_nonnull(strstr(v.error, "teleport_count 0, older than the 1 drawn"));
}
END_TEST

START_TEST(test_error_paths)
{
    pdk_view_settings set;
    pdk_view_settings_default(&set);
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 1, &set), PDK_VIEW_OK);
    pdk_view_sample s = drive_sample(VN_TURN, 1, 0.5);
    ck_assert_int_eq(pdk_view_push(&v, &s, s.server_ns), PDK_VIEW_OK);
    /* The same stamp again, then an older one. */
    ck_assert_int_eq(pdk_view_push(&v, &s, s.server_ns), PDK_VIEW_ESTALE);
    ck_assert_ptr_nonnull(strstr(v.error, "older than every sample kept or repeats one"));
    pdk_view_sample old = drive_sample(VN_TURN, 1, 0.4);
    ck_assert_int_eq(pdk_view_push(&v, &old, s.server_ns), PDK_VIEW_ESTALE);
    /* A second vehicle while the only track is live; free once the first has
     * been silent for forget_after_s. */
    pdk_view_sample other = drive_sample(VN_TURN, 2, 0.5);
    ck_assert_int_eq(pdk_view_push(&v, &other, s.server_ns), PDK_VIEW_EFULL);
    ck_assert_ptr_nonnull(strstr(v.error, "no track free for vehicle 2"));
    ck_assert_int_eq(pdk_view_push(&v, &other, s.server_ns + 3 * NS), PDK_VIEW_OK);
    ck_assert_ptr_null(pdk_view_track_of(&v, 1));
    /* Non-finite numbers are named. */
    pdk_view_sample bad = drive_sample(VN_TURN, 2, 0.6);
    bad.pos_m[1] = NAN;
    ck_assert_int_eq(pdk_view_push(&v, &bad, s.server_ns), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "vehicle 2's sample has a non-finite pos_m[y]"));
    bad = drive_sample(VN_TURN, 2, 0.6);
    bad.yaw_rate_radps = INFINITY;
    ck_assert_int_eq(pdk_view_push(&v, &bad, s.server_ns), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "non-finite yaw_rate_radps"));
    ck_assert_int_eq(pdk_view_push(&v, NULL, 0), PDK_VIEW_EINVAL);
    /* Unknown vehicles. */
    pdk_view_pose pose;
    ck_assert_int_eq(pdk_view_draw(&v, 9, s.server_ns, &pose), PDK_VIEW_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(v.error, "no sample of vehicle 9"));
    ck_assert_int_eq(pdk_view_forget(&v, 9), PDK_VIEW_ENOTFOUND);
    ck_assert_int_eq(pdk_view_forget(&v, 2), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_draw(&v, 2, s.server_ns, &pose), PDK_VIEW_ENOTFOUND);
    /* A batch without a stamp, a clock sample without a round trip. */
    ck_assert_int_eq(pdk_view_arrival(&v, 0, s.server_ns), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "no wall_time_ns stamp"));
    ck_assert_int_eq(pdk_view_clock_sample(&v, 5, 0), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "round trip of 0 ns"));
    /* A batch with one bad vehicle still delivers the others and names the
     * bad one. */
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    static paddock_v1_StateBatch b;
    memset(&b, 0, sizeof(b));
    b.wall_time_ns = (uint64_t)T0;
    b.vehicles_count = 2;
    b.vehicles[0].vehicle_id = 4;
    b.vehicles[0].x_m = NAN;
    b.vehicles[1].vehicle_id = 5;
    b.vehicles[1].x_m = 1.0;
    ck_assert_int_eq(pdk_view_push_batch(&v, &b, T0), PDK_VIEW_EINVAL);
    ck_assert_ptr_nonnull(strstr(v.error, "vehicle 4's sample has a non-finite pos_m[x]"));
    ck_assert_ptr_nonnull(pdk_view_track_of(&v, 5));
    ck_assert_int_eq(pdk_view_push_batch(&v, NULL, T0), PDK_VIEW_EINVAL);
    /* A tick in parts (StateBatch.part) is one arrival: its first part's. */
    uint32_t arrivals = v.arrivals;
    b.vehicles[0].x_m = 2.0;
    b.wall_time_ns = (uint64_t)T0 + 8333333u;
    b.parts = 2;
    b.vehicles_count = 1;
    for (uint32_t part = 0; part < 2; part++) {
        b.part = part;
        b.vehicles[0].vehicle_id = 6 + part;
        ck_assert_msg(pdk_view_push_batch(&v, &b, T0 + 9000000) == PDK_VIEW_OK, "%s", v.error);
    }
    ck_assert_uint_eq(v.arrivals, arrivals + 1);
    ck_assert_ptr_nonnull(pdk_view_track_of(&v, 7));
    ck_assert_str_eq(pdk_view_status_name(PDK_VIEW_ESTALE), "stale sample");
}
END_TEST

/* The delay: latency plus three send intervals and twice the jitter, at
 * least the floor above the latency, moved at delay_slew at most. */
START_TEST(test_delay_follows_interval_and_jitter)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    /* 30 Hz, 50 ms late exactly: no jitter. */
    int64_t stamp = T0;
    for (int k = 0; k < 60; k++, stamp += NS / 30) {
        ck_assert_int_eq(pdk_view_arrival(&v, stamp, stamp + NS / 20), PDK_VIEW_OK);
    }
    ck_assert_double_eq_tol(v.interval_s, 1.0 / 30.0, 1e-9);
    ck_assert_double_eq_tol(v.latency_s, 0.05, 1e-9);
    ck_assert_double_eq_tol(v.jitter_s, 0.0, 1e-9);
    ck_assert_double_eq_tol(v.delay_target_s, 0.05 + 0.1, 1e-8);
    ck_assert_double_eq_tol(v.delay_s, 0.15, 1e-8);

    /* The same with +-20 ms uniform jitter: the mean |change| of the transit
     * is 40/3 ms for two independent uniform draws. */
    uint64_t rng = 42;
    double delay_before = v.delay_s;
    int64_t last_arrival = stamp;
    for (int k = 0; k < 3000; k++, stamp += NS / 30) {
        double j = vn_uniform(&rng, -0.02, 0.02);
        last_arrival = stamp + NS / 20 + (int64_t)llround(j * 1e9);
        ck_assert_int_eq(pdk_view_arrival(&v, stamp, last_arrival), PDK_VIEW_OK);
        if (k == 29) {
            /* One second on, the delay moved at most delay_slew. */
            ck_assert_double_le(fabs(v.delay_s - delay_before), 0.02 * 1.1);
        }
    }
    ck_assert_double_eq_tol(v.jitter_s, 0.04 / 3.0, 0.003);
    ck_assert_double_eq_tol(v.latency_s, 0.05, 0.005);
    ck_assert_double_eq_tol(v.delay_target_s, v.latency_s + 0.1 + 2.0 * v.jitter_s, 1e-9);

    /* 120 Hz without jitter: three intervals are 25 ms, under the 50 ms
     * floor. */
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    stamp = T0;
    for (int k = 0; k < 40; k++, stamp += NS / 120) {
        ck_assert_int_eq(pdk_view_arrival(&v, stamp, stamp + NS / 50), PDK_VIEW_OK);
    }
    ck_assert_double_eq_tol(v.delay_target_s, 0.02 + 0.05, 1e-9);
}
END_TEST

/* The clock filter keeps the offset of the shortest round trip; changing
 * the offset leaves the drawn time where it was. */
START_TEST(test_clock_offset)
{
    pdk_view v;
    ck_assert_int_eq(pdk_view_init(&v, tracks, 4, NULL), PDK_VIEW_OK);
    feed_turn(&v, 1.0);
    pdk_view_pose before, after;
    int64_t now = T0 + NS;
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &before), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_clock_sample(&v, 5000000, 90000000), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_clock_sample(&v, 1000000, 60000000), PDK_VIEW_OK);
    ck_assert_int_eq(pdk_view_clock_sample(&v, 9000000, 140000000), PDK_VIEW_OK);
    ck_assert_int_eq(v.offset_ns, 1000000);
    ck_assert_uint_eq(v.round_trip_ns, 60000000);
    ck_assert_double_eq_tol(v.latency_s, 0.05 + 0.001, 1e-9);
    ck_assert_int_eq(pdk_view_draw(&v, 1, now, &after), PDK_VIEW_OK);
    ck_assert_int_eq(after.drawn_server_ns, before.drawn_server_ns);
    /* Eight newer samples push the best one out. */
    for (int i = 0; i < PDK_VIEW_CLOCKS; i++) {
        ck_assert_int_eq(pdk_view_clock_sample(&v, 2000000 + i, 80000000 + (uint64_t)i),
                         PDK_VIEW_OK);
    }
    ck_assert_int_eq(v.offset_ns, 2000000);
}
END_TEST

/* The targets through the simulated network. */
START_TEST(test_proxy_error_targets)
{
    vn_case c = {.drive = VN_TURN, .rate_hz = 30, .delay_s = 0.05, .jitter_s = 0.02,
                 .loss = 0.02, .duration_s = 30.0, .seed = 29};
    vn_result r;
    ck_assert_int_eq(vn_run(&c, NULL, &r), 0);
    fprintf(stderr, "turn 30 Hz 2%%: p95 %.6f m, heading p95 %.4f deg, lost %u/%u, snaps %u\n",
            r.pos_p95_m, r.heading_p95_deg, r.lost, r.batches, r.snaps);
    ck_assert_uint_gt(r.lost, 0);
    ck_assert_uint_gt(r.draws, 1500);
    ck_assert_double_lt(r.pos_p95_m, 0.05);
    ck_assert_double_lt(r.heading_p95_deg, 0.5);
    ck_assert_uint_eq(r.snaps, 0);
    ck_assert_uint_eq(r.jumps, 0);

    c.loss = 0.05;
    ck_assert_int_eq(vn_run(&c, NULL, &r), 0);
    fprintf(stderr, "turn 30 Hz 5%%: p95 %.4f m, heading p95 %.4f deg, lost %u/%u, snaps %u\n",
            r.pos_p95_m, r.heading_p95_deg, r.lost, r.batches, r.snaps);
    ck_assert_double_lt(r.pos_p95_m, 0.15);
    ck_assert_uint_eq(r.snaps, 0);

    /* The measure can fail: a view with no buffer (it draws at the mean
     * latency) is past the newest sample most of the time, and one that
     * then holds instead of extrapolating misses the targets by far. */
    pdk_view_settings bare;
    pdk_view_settings_default(&bare);
    bare.send_intervals = 0.0;
    bare.jitter_scale = 0.0;
    bare.delay_floor_s = 0.0;
    bare.extrapolate_max_s = 0.0;
    c.loss = 0.02;
    ck_assert_int_eq(vn_run(&c, &bare, &r), 0);
    fprintf(stderr, "turn 30 Hz 2%%, no buffer, no extrapolation: p95 %.4f m, held %u of %u\n",
            r.pos_p95_m, r.held, r.draws);
    ck_assert_uint_gt(r.held, r.draws / 4);
    ck_assert_double_gt(r.pos_p95_m, 0.05);
}
END_TEST

/* Two recordings of the simulator (view_drive.h), 30 s each. */
static vd_recording rec_turn, rec_mixed;

/* The recorded drives are what they claim, and the reference between
 * their ticks is far finer than the errors measured against it. */
START_TEST(test_recorded_drives)
{
    ck_assert_int_eq(vd_record(VD_TURN, 30.0, &rec_turn), 0);
    ck_assert_uint_eq(rec_turn.n, 30u * VD_TICK_HZ + 1u);
    double v_min = 1e9, v_max = 0.0, a_min = 1e9, a_max = 0.0;
    for (uint32_t k = 0; k < rec_turn.n; k++) {
        const pdk_vehicle_pose *p = &rec_turn.ticks[k].pose;
        v_min = fmin(v_min, p->speed_mps);
        v_max = fmax(v_max, p->speed_mps);
        double a = p->speed_mps * p->yaw_rate_radps; /* centripetal */
        a_min = fmin(a_min, a);
        a_max = fmax(a_max, a);
    }
    double ref_turn = vd_reference_error_m(&rec_turn);
    fprintf(stderr, "recorded turn: %.3f..%.3f m/s, %.4f..%.4f g, reference %.2e m\n", v_min, v_max,
            a_min / VD_G_MPS2, a_max / VD_G_MPS2, ref_turn);
    ck_assert_double_lt(fabs(v_min - 30.0), 0.3);
    ck_assert_double_lt(fabs(v_max - 30.0), 0.3);
    ck_assert_double_lt(fabs(a_min / VD_G_MPS2 - 0.5), 0.01);
    ck_assert_double_lt(fabs(a_max / VD_G_MPS2 - 0.5), 0.01);
    ck_assert_double_lt(ref_turn, 1e-4);

    ck_assert_int_eq(vd_record(VD_MIXED, 30.0, &rec_mixed), 0);
    double ax_min = 0.0, ax_max = 0.0, ay_min = 0.0, ay_max = 0.0;
    v_min = 1e9;
    v_max = 0.0;
    for (uint32_t k = 0; k < rec_mixed.n; k++) {
        const pdk_vehicle_pose *p = &rec_mixed.ticks[k].pose;
        v_min = fmin(v_min, p->speed_mps);
        v_max = fmax(v_max, p->speed_mps);
        ax_min = fmin(ax_min, p->ax_mps2);
        ax_max = fmax(ax_max, p->ax_mps2);
        ay_min = fmin(ay_min, p->speed_mps * p->yaw_rate_radps);
        ay_max = fmax(ay_max, p->speed_mps * p->yaw_rate_radps);
    }
    double ref_mixed = vd_reference_error_m(&rec_mixed);
    fprintf(stderr,
            "recorded mixed: %.2f..%.2f m/s, ax %.3f..%.3f g, ay %.3f..%.3f g, reference %.2e m\n",
            v_min, v_max, ax_min / VD_G_MPS2, ax_max / VD_G_MPS2, ay_min / VD_G_MPS2,
            ay_max / VD_G_MPS2, ref_mixed);
    /* Throttle and brake: it reaches both speeds, accelerating and braking
     * at a quarter of a g or more; the weave turns both ways at 0.3 g. */
    ck_assert_double_lt(v_min, 21.0);
    ck_assert_double_gt(v_max, 34.0);
    ck_assert_double_gt(ax_max, 0.25 * VD_G_MPS2);
    ck_assert_double_lt(ax_min, -0.25 * VD_G_MPS2);
    ck_assert_double_gt(ay_max, 0.3 * VD_G_MPS2);
    ck_assert_double_lt(ay_min, -0.3 * VD_G_MPS2);
    ck_assert_double_lt(ref_mixed, 1e-4);

    /* The simulator is deterministic: a second recording is the same, bit
     * for bit. */
    static vd_recording again;
    ck_assert_int_eq(vd_record(VD_TURN, 30.0, &again), 0);
    ck_assert_int_eq(memcmp(&again, &rec_turn, sizeof(again)), 0);

    /* A drive longer than a recording holds is refused. */
    ck_assert_int_eq(vd_record(VD_TURN, 61.0, &again), -1);
}
END_TEST

/* The targets on the simulator's recorded drives. */
START_TEST(test_recorded_error_targets)
{
    ck_assert_int_eq(vd_record(VD_TURN, 30.0, &rec_turn), 0);
    ck_assert_int_eq(vd_record(VD_MIXED, 30.0, &rec_mixed), 0);
    const vd_recording *recs[2] = {&rec_turn, &rec_mixed};
    const char *names[2] = {"turn", "mixed"};
    for (int d = 0; d < 2; d++) {
        vn_case c = {.rec = recs[d],
                     .rate_hz = 30,
                     .delay_s = 0.05,
                     .jitter_s = 0.02,
                     .loss = 0.02,
                     .duration_s = 30.0,
                     .seed = 29};
        vn_result r;
        ck_assert_int_eq(vn_run(&c, NULL, &r), 0);
        fprintf(stderr,
                "recorded %s 30 Hz 2%%: p95 %.4f m, heading p95 %.4f deg, lost %u/%u, "
                "snaps %u, jumps %u\n",
                names[d], r.pos_p95_m, r.heading_p95_deg, r.lost, r.batches, r.snaps, r.jumps);
        ck_assert_uint_gt(r.lost, 0);
        ck_assert_uint_gt(r.draws, 1500);
        ck_assert_double_lt(r.pos_p95_m, 0.05);
        ck_assert_double_lt(r.heading_p95_deg, 0.5);
        ck_assert_uint_eq(r.snaps, 0);
        ck_assert_uint_eq(r.jumps, 0);

        c.loss = 0.05;
        ck_assert_int_eq(vn_run(&c, NULL, &r), 0);
        fprintf(stderr, "recorded %s 30 Hz 5%%: p95 %.4f m, heading p95 %.4f deg, snaps %u\n",
                names[d], r.pos_p95_m, r.heading_p95_deg, r.snaps);
        ck_assert_double_lt(r.pos_p95_m, 0.15);
        ck_assert_uint_eq(r.snaps, 0);
    }

    /* The measure can fail on the recording too: a view without buffer or
     * extrapolation misses the targets by far. */
    pdk_view_settings bare;
    pdk_view_settings_default(&bare);
    bare.send_intervals = 0.0;
    bare.jitter_scale = 0.0;
    bare.delay_floor_s = 0.0;
    bare.extrapolate_max_s = 0.0;
    vn_case c = {.rec = &rec_turn,
                 .rate_hz = 30,
                 .delay_s = 0.05,
                 .jitter_s = 0.02,
                 .loss = 0.02,
                 .duration_s = 30.0,
                 .seed = 29};
    vn_result r;
    ck_assert_int_eq(vn_run(&c, &bare, &r), 0);
    ck_assert_double_gt(r.pos_p95_m, 0.05);

    /* A case longer than its recording is refused, not read past the end. */
    c.duration_s = 31.0;
    ck_assert_int_eq(vn_run(&c, NULL, &r), -1);
}
END_TEST

static Suite *view_suite(void)
{
    Suite *s = suite_create("view");
    TCase *tc = tcase_create("view");
    tcase_add_test(tc, test_settings_checked);
    tcase_add_test(tc, test_euler_quat);
    tcase_add_test(tc, test_hermite_exact_on_cubic);
    tcase_add_test(tc, test_slerp_constant_yaw_rate);
    tcase_add_test(tc, test_extrapolation_circle_then_hold);
    tcase_add_test(tc, test_correction_eases_and_snaps);
    tcase_add_test(tc, test_teleport_jumps);
    tcase_add_test(tc, test_error_paths);
    tcase_add_test(tc, test_delay_follows_interval_and_jitter);
    tcase_add_test(tc, test_clock_offset);
    tcase_add_test(tc, test_proxy_error_targets);
    tcase_add_test(tc, test_recorded_drives);
    tcase_add_test(tc, test_recorded_error_targets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(view_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
