/* A hosted proxy's track (server/app/proxy_track.h): the pose the server
 * gives the kinematic body between, past and without its owner's samples,
 * against analytic motions, and the checks of a pose. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_track.h"

/* A body accelerating along a straight line at a (m/s^2) from x0 at v0,
 * its attitude turning about z at a constant rate r (rad/s): the pose at
 * t seconds. */
static pdk_proxy_pose motion(double t, double x0, double v0, double a, double r)
{
    pdk_proxy_pose p = {0};
    p.pos_m[0] = x0 + v0 * t + 0.5 * a * t * t;
    p.pos_m[1] = 2.0;
    p.pos_m[2] = 0.7;
    p.vel_mps[0] = v0 + a * t;
    double yaw = r * t;
    p.quat[0] = cos(0.5 * yaw);
    p.quat[3] = sin(0.5 * yaw);
    p.omega_radps[2] = r;
    return p;
}

static double yaw_of(const pdk_proxy_pose *p)
{
    return 2.0 * atan2(p->quat[3], p->quat[0]);
}

#define NS(s) ((uint64_t)llround((s)*1e9))

/* Samples every 50 ms of a body at constant acceleration: cubic Hermite
 * reproduces a quadratic exactly, so the pose between samples is the true
 * one (position and velocity), and slerp of a constant yaw rate is exact. */
START_TEST(interpolates_constant_acceleration_exactly)
{
    pdk_proxy_track t;
    double x0 = 10.0, v0 = 20.0, a = 3.0, r = 0.4;
    uint64_t owner0 = 5000000000ull; /* the owner's clock: any origin */
    pdk_proxy_pose p0 = motion(0.0, x0, v0, a, r);
    pdk_proxy_track_start(&t, owner0, &p0, 1.0); /* owner time 5 s is sim time 1 s */
    bool resumed;
    for (int k = 1; k <= 10; k++) {
        pdk_proxy_pose p = motion(0.05 * k, x0, v0, a, r);
        ck_assert(pdk_proxy_track_push(&t, owner0 + NS(0.05 * k), &p, 1.0 + 0.05 * k, &resumed));
    }
    for (double ts = 0.013; ts < 0.5; ts += 0.037) {
        pdk_proxy_pose got, want = motion(ts, x0, v0, a, r);
        ck_assert_int_eq(pdk_proxy_track_at(&t, 1.0 + ts, &got), PDK_PROXY_MODE_INTERPOLATED);
        ck_assert_double_eq_tol(got.pos_m[0], want.pos_m[0], 1e-9);
        ck_assert_double_eq_tol(got.pos_m[1], 2.0, 1e-12);
        ck_assert_double_eq_tol(got.vel_mps[0], want.vel_mps[0], 1e-8);
        ck_assert_double_eq_tol(yaw_of(&got), yaw_of(&want), 1e-12);
        ck_assert_double_eq_tol(got.omega_radps[2], r, 1e-12);
    }
}
END_TEST

/* Past the newest sample the pose moves on at that sample's velocities for
 * 250 ms, then stands still where the cap left it. */
START_TEST(extrapolates_at_most_250_ms_then_holds)
{
    pdk_proxy_track t;
    pdk_proxy_pose p0 = motion(0.0, 0.0, 30.0, 0.0, 0.5);
    pdk_proxy_track_start(&t, 0, &p0, 2.0);
    pdk_proxy_pose got;
    ck_assert_int_eq(pdk_proxy_track_at(&t, 2.2, &got), PDK_PROXY_MODE_EXTRAPOLATED);
    ck_assert_double_eq_tol(got.pos_m[0], 30.0 * 0.2, 1e-9);
    ck_assert_double_eq_tol(yaw_of(&got), 0.5 * 0.2, 1e-12);
    ck_assert_double_eq_tol(got.vel_mps[0], 30.0, 1e-12);
    ck_assert_int_eq(pdk_proxy_track_at(&t, 3.0, &got), PDK_PROXY_MODE_HELD);
    ck_assert_double_eq_tol(got.pos_m[0], 30.0 * PDK_PROXY_EXTRAPOLATE_MAX_S, 1e-9);
    ck_assert_double_eq_tol(yaw_of(&got), 0.5 * PDK_PROXY_EXTRAPOLATE_MAX_S, 1e-12);
    ck_assert_double_eq(got.vel_mps[0], 0.0);
    ck_assert_double_eq(got.omega_radps[2], 0.0);
    /* Before its first sample a proxy stands at that sample. */
    ck_assert_int_eq(pdk_proxy_track_at(&t, 1.0, &got), PDK_PROXY_MODE_HELD);
    ck_assert_double_eq(got.pos_m[0], 0.0);
}
END_TEST

/* A sample older than the newest (reordered) is dropped; the owner's clock
 * offset is fixed by the first sample, so a later sample lands at its own
 * time, not at its arrival. */
START_TEST(latest_wins_and_times_follow_the_owner_clock)
{
    pdk_proxy_track t;
    pdk_proxy_pose p0 = motion(0.0, 0.0, 10.0, 0.0, 0.0);
    pdk_proxy_track_start(&t, NS(100.0), &p0, 0.5);
    pdk_proxy_pose p2 = motion(0.2, 0.0, 10.0, 0.0, 0.0);
    bool resumed;
    /* Arrives late (at sim time 0.9 s), but belongs to 0.7 s. */
    ck_assert(pdk_proxy_track_push(&t, NS(100.2), &p2, 0.9, &resumed));
    ck_assert(!resumed);
    pdk_proxy_pose p1 = motion(0.1, 0.0, 10.0, 0.0, 0.0);
    ck_assert(!pdk_proxy_track_push(&t, NS(100.1), &p1, 0.95, &resumed));
    ck_assert(!pdk_proxy_track_push(&t, NS(100.2), &p1, 0.95, &resumed));
    ck_assert_int_eq(t.n, 2);
    ck_assert_double_eq_tol(t.heard_s, 0.9, 1e-15);
    pdk_proxy_pose got;
    ck_assert_int_eq(pdk_proxy_track_at(&t, 0.6, &got), PDK_PROXY_MODE_INTERPOLATED);
    ck_assert_double_eq_tol(got.pos_m[0], 1.0, 1e-9);
}
END_TEST

/* The track keeps the newest PDK_PROXY_SAMPLES samples. */
START_TEST(keeps_the_newest_samples)
{
    pdk_proxy_track t;
    pdk_proxy_pose p = motion(0.0, 0.0, 1.0, 0.0, 0.0);
    pdk_proxy_track_start(&t, 0, &p, 0.0);
    bool resumed;
    for (int k = 1; k < 3 * PDK_PROXY_SAMPLES; k++) {
        p = motion(0.01 * k, 0.0, 1.0, 0.0, 0.0);
        ck_assert(pdk_proxy_track_push(&t, NS(0.01 * k), &p, 0.01 * k, &resumed));
    }
    ck_assert_int_eq(t.n, PDK_PROXY_SAMPLES);
    for (int i = 1; i < t.n; i++)
        ck_assert(t.t_s[i] > t.t_s[i - 1]);
    ck_assert_double_eq_tol(t.t_s[t.n - 1], 0.01 * (3 * PDK_PROXY_SAMPLES - 1), 1e-9);
}
END_TEST

/* Silent past the freeze time: frozen once, where it was then, still; a
 * new sample resumes it; silent past the removal time: removed. */
START_TEST(freezes_resumes_and_is_removed_after_silence)
{
    pdk_proxy_track t;
    pdk_proxy_pose p0 = motion(0.0, 0.0, 10.0, 0.0, 0.0);
    pdk_proxy_track_start(&t, 0, &p0, 0.0);
    ck_assert_int_eq(pdk_proxy_track_silence(&t, PDK_PROXY_FREEZE_S), PDK_PROXY_HEARD);
    double t_freeze = PDK_PROXY_FREEZE_S + 1.0 / 120.0;
    ck_assert_int_eq(pdk_proxy_track_silence(&t, t_freeze), PDK_PROXY_FREEZE);
    ck_assert_int_eq(pdk_proxy_track_silence(&t, t_freeze + 0.1), PDK_PROXY_HEARD);
    pdk_proxy_pose got;
    ck_assert_int_eq(pdk_proxy_track_at(&t, 3.0, &got), PDK_PROXY_MODE_FROZEN);
    /* Held where the extrapolation's cap left it: 10 m/s for 250 ms. */
    ck_assert_double_eq_tol(got.pos_m[0], 2.5, 1e-9);
    ck_assert_double_eq(got.vel_mps[0], 0.0);
    bool resumed;
    pdk_proxy_pose p1 = motion(1.0, 0.0, 10.0, 0.0, 0.0);
    ck_assert(pdk_proxy_track_push(&t, NS(1.0), &p1, 1.0, &resumed));
    ck_assert(resumed);
    ck_assert_int_eq(pdk_proxy_track_at(&t, 1.0, &got), PDK_PROXY_MODE_EXTRAPOLATED);
    ck_assert_int_eq(pdk_proxy_track_silence(&t, 1.0 + PDK_PROXY_REMOVE_S), PDK_PROXY_FREEZE);
    ck_assert_int_eq(pdk_proxy_track_silence(&t, 1.01 + PDK_PROXY_REMOVE_S), PDK_PROXY_REMOVE);
}
END_TEST

/* Every pose check names its field. */
START_TEST(refuses_bad_poses_by_name)
{
    pdk_proxy_pose ok = motion(0.0, 0.0, 10.0, 0.0, 0.1);
    ck_assert_ptr_null(pdk_proxy_pose_problem(&ok));
    struct {
        double *field;
        double value;
        const char *names;
    } cases[] = {
        {&ok.pos_m[1], NAN, "position"},   {&ok.quat[2], INFINITY, "quaternion"},
        {&ok.vel_mps[2], NAN, "velocity"}, {&ok.omega_radps[0], -INFINITY, "angular velocity"},
        {&ok.pos_m[0], 2e7, "1e7 m"},      {&ok.quat[0], 0.5, "norm"},
        {&ok.vel_mps[0], 151.0, "speed"},  {&ok.omega_radps[2], 21.0, "angular rate"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double keep = *cases[i].field;
        *cases[i].field = cases[i].value;
        pdk_proxy_pose bad = ok;
        *cases[i].field = keep;
        const char *why = pdk_proxy_pose_problem(&bad);
        ck_assert_msg(why && strstr(why, cases[i].names), "case %zu: %s", i, why ? why : "NULL");
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("proxy_track");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, interpolates_constant_acceleration_exactly);
    tcase_add_test(tc, extrapolates_at_most_250_ms_then_holds);
    tcase_add_test(tc, latest_wins_and_times_follow_the_owner_clock);
    tcase_add_test(tc, keeps_the_newest_samples);
    tcase_add_test(tc, freezes_resumes_and_is_removed_after_silence);
    tcase_add_test(tc, refuses_bad_poses_by_name);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
