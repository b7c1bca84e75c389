/* Unit tests for the tyre laws (server/sim/tyre.h, tyre_lanes.h): each
 * law's peak where its parameters put it, sign symmetry, saturation at the
 * friction limit and combined slip; the Magic Formula sets against their
 * published figures; the common parameters (load sensitivity, slide grip,
 * combined-slip loss, the ground's scales); relaxation lengths; the slopes
 * against finite differences on the rising branch; the scalar function as
 * the vector code's lane, lanes independent of each other, the AVX build
 * the same bits; and every problem message. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tyre/tyre.h"
#include "tyre/tyre_lanes.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

static const pdk_tyre_ground REF = {1.0, 1.0, 1.0};

static pdk_tyre_out eval(const pdk_tyre_law_def *d, double fz, double kappa, double alpha_rad,
                         double gamma_rad)
{
    pdk_tyre_in in = {fz, kappa, tan(alpha_rad), gamma_rad, 20.0};
    pdk_tyre_out o;
    pdk_tyre_eval(d, &REF, &in, 1, &o);
    return o;
}

static pdk_tyre_out eval_t(const pdk_tyre_law_def *d, const pdk_tyre_ground *g, double fz,
                           double kappa, double tan_alpha)
{
    pdk_tyre_in in = {fz, kappa, tan_alpha, 0.0, 20.0};
    pdk_tyre_out o;
    pdk_tyre_eval(d, g, &in, 1, &o);
    return o;
}

static pdk_tyre_law_def mf_def(pdk_mf_set set)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    d.law = PDK_TYRE_MAGIC;
    d.mf_set = set;
    d.mf = *pdk_mf_set_coeffs(set);
    d.slide_grip = 0.0;
    d.nominal_load_n = d.mf.fnomin_n * d.mf.lfzo;
    d.radius_m = d.mf.unloaded_radius_m;
    return d;
}

static pdk_tyre_law_def utv_def(void)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    d.law = PDK_TYRE_UTV;
    d.radius_m = 0.3429;
    d.mu_x = 0.8;
    d.hard_slip_stiffness = 12.0; /* the Polaris model tyres.hard_slip_stiffness */
    d.cornering_per_load = 8.0;   /* the Polaris model tyres.cornering_per_load */
    d.slide_grip = 1.0;           /* the Polaris model's law: no falling branch */
    d.trail_m = 0.0;              /* the Polaris model's law: no aligning torque */
    d.relaxation_lat_m = 0.3;
    return d;
}

static int rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* The largest Fx over kappa in [0, 1] and where it is: a scan in steps of
 * 0.002, then steps of 1e-5 around the best. */
static double peak_fx(const pdk_tyre_law_def *d, double fz, double *at)
{
    double best = -1e300;
    *at = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        double lo = pass == 0 ? 0.0 : fmax(0.0, *at - 0.002);
        double step = pass == 0 ? 0.002 : 1e-5;
        int n = pass == 0 ? 500 : 400;
        for (int k = 0; k <= n; k++) {
            double kappa = lo + k * step;
            double fx = eval(d, fz, kappa, 0.0, 0.0).fx_n;
            if (fx > best) {
                best = fx;
                *at = kappa;
            }
        }
    }
    return best;
}

/* The largest -Fy over alpha in [0, 40] degrees and where it is (steps of
 * 0.1 degree, then 0.001 around the best); sign -1 sweeps negative alpha
 * for the largest +Fy. */
static double peak_fy(const pdk_tyre_law_def *d, double fz, double sign, double *at_deg)
{
    double best = -1e300;
    *at_deg = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        double lo = pass == 0 ? 0.0 : fmax(0.0, *at_deg - 0.1);
        double step = pass == 0 ? 0.1 : 0.001;
        int n = pass == 0 ? 400 : 200;
        for (int k = 0; k <= n; k++) {
            double a = lo + k * step;
            double f = -sign * eval(d, fz, 0.0, sign * a * DEG, 0.0).fy_n;
            if (f > best) {
                best = f;
                *at_deg = a;
            }
        }
    }
    return best;
}

/* ---------------- the grip law ---------------- */

START_TEST(test_grip_linear_then_peak_at_mu_fz_over_stiffness)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default(); /* mu 1, Ck/Fz 18, Ca/Fz 12 */
    double fz = 4000.0;
    /* linear below the peak, with the slopes reported */
    pdk_tyre_out o = eval(&d, fz, 0.02, 0.0, 0.0);
    ck_assert(rel_close(o.fx_n, 18.0 * fz * 0.02, 1e-14));
    ck_assert(rel_close(o.dfx_dkappa_n, 18.0 * fz, 1e-14));
    o = eval_t(&d, &REF, fz, 0.0, 0.04);
    ck_assert(rel_close(o.fy_n, -12.0 * fz * 0.04, 1e-14));
    ck_assert(rel_close(o.dfy_dalpha_n, 12.0 * fz, 1e-14));
    ck_assert(rel_close(o.peak_n, fz, 1e-14));
    /* the peak at kappa = mu Fz / Ck = 1/18, tan(alpha) = 1/12 */
    double at;
    double px = peak_fx(&d, fz, &at);
    ck_assert(rel_close(px, fz, 1e-3));
    ck_assert_double_le(fabs(at - 1.0 / 18.0), 2e-5);
    o = eval(&d, fz, 1.0 / 18.0, 0.0, 0.0);
    ck_assert(rel_close(o.fx_n, fz, 1e-12));
    o = eval_t(&d, &REF, fz, 0.0, 1.0 / 12.0);
    ck_assert(rel_close(o.fy_n, -fz, 1e-12));
    /* an ellipse: mu_x 1.2, mu_y 1.0 moves the longitudinal peak to 1.2/18 */
    d.mu_x = 1.2;
    px = peak_fx(&d, fz, &at);
    ck_assert(rel_close(px, 1.2 * fz, 1e-3));
    ck_assert_double_le(fabs(at - 1.2 / 18.0), 2e-5);
}
END_TEST

START_TEST(test_grip_falling_branch_seed_004)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default(); /* slide_grip 0.75 */
    double fz = 3000.0;
    /* full sliding: |kappa| = 1, alpha = 90 degrees: slide_grip of the peak */
    ck_assert(rel_close(eval(&d, fz, 1.0, 0.0, 0.0).fx_n, 0.75 * fz, 1e-12));
    ck_assert(rel_close(eval_t(&d, &REF, fz, 0.0, 1e12).fy_n, -0.75 * fz, 1e-9));
    /* beyond full sliding it stays there (a spinning wheel, kappa 3) */
    ck_assert(rel_close(eval(&d, fz, 3.0, 0.0, 0.0).fx_n, 0.75 * fz, 1e-12));
    /* a tyre peaking at 3 degrees is halfway to slideGrip at 20 */
    d.cornering_per_load = 1.0 / tan(3.0 * DEG);
    double fy20 = -eval(&d, fz, 0.0, 20.0 * DEG, 0.0).fy_n / fz;
    ck_assert_double_le(fabs(fy20 - (0.75 + 0.5 * 0.25)), 0.003);
    /* and the fall is monotonic */
    double prev = 2.0;
    for (int a = 3; a <= 90; a++) {
        double f = -eval(&d, fz, 0.0, (a == 90 ? 89.999 : (double)a) * DEG, 0.0).fy_n / fz;
        ck_assert_double_le(f, prev + 1e-12);
        prev = f;
    }
}
END_TEST

START_TEST(test_grip_symmetry_saturation_combined)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    d.mu_x = 1.1;
    double fz = 3500.0;
    for (int i = 0; i < 40; i++) {
        double kappa = -0.3 + 0.6 * i / 39.0;
        for (int j = 0; j < 40; j++) {
            double a = (-20.0 + 40.0 * j / 39.0) * DEG;
            pdk_tyre_out p = eval(&d, fz, kappa, a, 0.0);
            pdk_tyre_out m = eval(&d, fz, -kappa, -a, 0.0);
            /* odd in the slips (exactly: the law is sign-symmetric) */
            ck_assert_double_eq(p.fx_n, -m.fx_n);
            ck_assert_double_eq(p.fy_n, -m.fy_n);
            ck_assert_double_eq(p.mz_nm, -m.mz_nm);
            /* inside the friction ellipse */
            double ex = p.fx_n / (1.1 * fz), ey = p.fy_n / (1.0 * fz);
            ck_assert_double_le(ex * ex + ey * ey, 1.0 + 1e-12);
        }
    }
    /* braking at a slip angle costs lateral force */
    double fy0 = eval(&d, fz, 0.0, 3.0 * DEG, 0.0).fy_n;
    double fyb = eval(&d, fz, -0.1, 3.0 * DEG, 0.0).fy_n;
    ck_assert_double_lt(fy0, 0.0);
    ck_assert_double_lt(fabs(fyb), 0.8 * fabs(fy0));
    /* camber thrust Fy = -c gamma Fz in the linear range: a positive ISO
     * inclination leans the top toward -y, and the thrust follows it */
    d.camber_per_load = 1.0;
    pdk_tyre_out o = eval(&d, fz, 0.0, 0.0, 0.02);
    ck_assert(rel_close(o.fy_n, -1.0 * 0.02 * fz, 1e-12));
}
END_TEST

START_TEST(test_grip_aligning_moment)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default(); /* trail 0.03 m */
    double fz = 4000.0;
    /* at small slip Mz = trail * (-Fy), positive for alpha > 0 */
    pdk_tyre_out o = eval_t(&d, &REF, fz, 0.0, 1e-6);
    ck_assert(rel_close(o.mz_nm / -o.fy_n, 0.03, 1e-4));
    ck_assert_double_gt(o.mz_nm, 0.0);
    /* the trail falls linearly to 0 at the peak: Mz peaks at half of it */
    double t_half = 0.5 / 12.0;
    o = eval_t(&d, &REF, fz, 0.0, t_half);
    ck_assert(rel_close(o.mz_nm, 0.03 * 0.5 * 12.0 * fz * t_half, 1e-12));
    ck_assert_double_eq(eval_t(&d, &REF, fz, 0.0, 1.0 / 12.0).mz_nm, 0.0);
    ck_assert_double_eq(eval(&d, fz, 0.0, 20.0 * DEG, 0.0).mz_nm, 0.0);
    /* rolling backward, the trail is ahead of the contact centre: Mz turns */
    pdk_tyre_in back = {fz, 0.0, 0.02, 0.0, -5.0};
    pdk_tyre_out ob;
    pdk_tyre_eval(&d, &REF, &back, 1, &ob);
    o = eval_t(&d, &REF, fz, 0.0, 0.02);
    ck_assert_double_eq(ob.fy_n, o.fy_n);
    ck_assert_double_eq(ob.mz_nm, -o.mz_nm);
    pdk_tyre_law_def m = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_tyre_eval(&m, &REF, &back, 1, &ob);
    ck_assert_double_lt(ob.mz_nm, 0.0);
    ck_assert_double_gt(eval_t(&m, &REF, fz, 0.0, 0.02).mz_nm, 0.0);
    /* want_mz 0 gives 0 */
    pdk_tyre_in in = {fz, 0.0, 0.03, 0.0, 20.0};
    pdk_tyre_eval(&d, &REF, &in, 0, &o);
    ck_assert_double_eq(o.mz_nm, 0.0);
    /* no load, no force */
    o = eval(&d, 0.0, 0.1, 0.1, 0.0);
    ck_assert(o.fx_n == 0.0 && o.fy_n == 0.0 && o.mz_nm == 0.0 && o.peak_n == 0.0);
    o = eval(&d, -50.0, 0.1, 0.1, 0.0);
    ck_assert(o.fx_n == 0.0 && o.fy_n == 0.0 && o.dfx_dkappa_n == 0.0);
}
END_TEST

/* ---------------- the UTV law (the Polaris model) ---------------- */

START_TEST(test_utv_tanh_and_friction_circle)
{
    pdk_tyre_law_def d = utv_def(); /* mu 0.8, k_s 12, C_alpha / N 8 */
    double fz = 3000.0;
    for (int i = 0; i <= 20; i++) {
        double kappa = 0.01 * i;
        pdk_tyre_out o = eval(&d, fz, kappa, 0.0, 0.0);
        ck_assert(rel_close(o.fx_n, 0.8 * fz * tanh(12.0 * kappa), 1e-13));
        double th = tanh(12.0 * kappa);
        ck_assert(rel_close(o.dfx_dkappa_n, 0.8 * fz * 12.0 * (1.0 - th * th), 1e-12));
        ck_assert(o.fy_n == 0.0 && o.mz_nm == 0.0);
    }
    /* the tanh never passes mu N, and is odd */
    ck_assert_double_le(eval(&d, fz, 1.0, 0.0, 0.0).fx_n, 0.8 * fz);
    ck_assert_double_eq(eval(&d, fz, -0.07, 0.0, 0.0).fx_n, -eval(&d, fz, 0.07, 0.0, 0.0).fx_n);
    /* Fy = -C_alpha N tan(alpha) up to the circle */
    pdk_tyre_out o = eval_t(&d, &REF, fz, 0.0, 0.05);
    ck_assert(rel_close(o.fy_n, -8.0 * fz * 0.05, 1e-13));
    ck_assert(rel_close(o.dfy_dalpha_n, 8.0 * fz, 1e-13));
    /* past it the vector is scaled onto the circle mu N, keeping its
     * direction */
    for (int i = 0; i < 30; i++) {
        double kappa = -0.2 + 0.4 * i / 29.0;
        double t = 0.05 + 0.3 * i / 29.0;
        o = eval_t(&d, &REF, fz, kappa, t);
        double fx_d = 0.8 * fz * tanh(12.0 * kappa), fy_d = -8.0 * fz * t;
        double mag = hypot(fx_d, fy_d);
        double s = mag > 0.8 * fz ? 0.8 * fz / mag : 1.0;
        ck_assert(rel_close(o.fx_n, fx_d * s, 1e-12));
        ck_assert(rel_close(o.fy_n, fy_d * s, 1e-12));
        ck_assert_double_le(hypot(o.fx_n, o.fy_n), 0.8 * fz * (1.0 + 1e-12));
    }
    /* braking costs lateral force (the circle) */
    ck_assert_double_lt(fabs(eval(&d, fz, -0.1, 5.0 * DEG, 0.0).fy_n),
                        0.9 * fabs(eval(&d, fz, 0.0, 5.0 * DEG, 0.0).fy_n));
}
END_TEST

START_TEST(test_utv_common_parameters_and_trail)
{
    pdk_tyre_law_def d = utv_def();
    double fz = 3000.0;
    /* slide_grip 0.8: full sliding keeps 0.8 of mu N; the rising part is the
     * Polaris model's law untouched */
    d.slide_grip = 0.8;
    ck_assert(rel_close(eval(&d, fz, 1.0, 0.0, 0.0).fx_n, 0.8 * 0.8 * fz * tanh(12.0), 1e-12));
    ck_assert(rel_close(eval(&d, fz, 0.05, 0.0, 0.0).fx_n, 0.8 * fz * tanh(0.6), 1e-13));
    ck_assert(rel_close(eval_t(&d, &REF, fz, 0.0, 1e12).fy_n, -0.8 * 0.8 * fz, 1e-9));
    /* a trail (Paddock's addition) gives an aligning moment -t Fy */
    d.trail_m = 0.04;
    pdk_tyre_out o = eval_t(&d, &REF, fz, 0.0, 1e-5);
    ck_assert(rel_close(o.mz_nm, -0.04 * o.fy_n, 1e-4));
    /* load sensitivity lowers mu at twice the nominal load */
    d.load_sensitivity = 0.15;
    d.nominal_load_n = 1500.0;
    o = eval(&d, 3000.0, 0.0, 0.0, 0.0);
    ck_assert(rel_close(o.peak_n, 0.8 * pow(2.0, -0.15) * 3000.0, 1e-12));
}
END_TEST

/* ---------------- the Magic Formula ---------------- */

/* Pacejka 2006 Table A3.1's 205/60R15 against the values derived from it by
 * hand (peak friction, stiffness per load at nominal load). */
START_TEST(test_mf_road205_published_values)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    const double fz[4] = {2000.0, 4000.0, 6000.0, 8000.0};
    const double ca[4] = {26600.0, 46000.0, 56300.0, 59700.0};
    const double ck[4] = {19.1, 21.5, 24.2, 27.3};
    const double mux[4] = {1.23, 1.21, 1.19, 1.17};
    const double muy[4] = {1.06, 0.99, 0.92, 0.85};
    for (int i = 0; i < 4; i++) {
        pdk_tyre_out o = eval(&d, fz[i], 0.0, 0.0, 0.0);
        ck_assert_msg(rel_close(o.dfy_dalpha_n, ca[i], 0.01), "Ca %g at %g", o.dfy_dalpha_n, fz[i]);
        ck_assert_msg(rel_close(o.dfx_dkappa_n / fz[i], ck[i], 0.01), "Ck/Fz at %g", fz[i]);
        double at;
        double px = peak_fx(&d, fz[i], &at) / fz[i];
        ck_assert_msg(rel_close(px, mux[i], 0.01), "mu_x %g at %g", px, fz[i]);
        /* mu_y is D / Fz: the mean of the two sides' peaks, which SVy
         * shifts apart */
        double a1, a2;
        double py = (peak_fy(&d, fz[i], 1.0, &a1) + peak_fy(&d, fz[i], -1.0, &a2)) / (2.0 * fz[i]);
        ck_assert_msg(rel_close(py, muy[i], 0.015), "mu_y %g at %g", py, fz[i]);
    }
    /* zero-slip pneumatic trail ~ QDZ1 R0 = 31 mm at the nominal load */
    pdk_tyre_out p = eval_t(&d, &REF, 4000.0, 0.0, 1e-4);
    pdk_tyre_out m = eval_t(&d, &REF, 4000.0, 0.0, -1e-4);
    double trail = -(p.mz_nm - m.mz_nm) / (p.fy_n - m.fy_n);
    ck_assert_msg(rel_close(trail, 0.1 * 0.313, 0.02), "trail %g", trail);
    /* aligning: Mz > 0 for alpha > 0, a peak of some tens of N m near 4
     * degrees */
    ck_assert_double_gt(eval(&d, 4000.0, 0.0, 4.0 * DEG, 0.0).mz_nm, 30.0);
}
END_TEST

/* Peak where the analytic Magic Formula puts it: with E = 0 and no
 * shifts, sin(C atan(B x)) peaks at B x = tan(pi / (2 C)) with the value
 * D. The slick set (Perantoni and Limebeer 2014) is such a set. */
START_TEST(test_mf_slick_analytic_peak_and_published_mu)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_SLICK);
    const double fz[2] = {2000.0, 6000.0};
    const double mux[2] = {1.75, 1.40}, muy[2] = {1.80, 1.45};
    const double kp[2] = {0.0826, 0.0751}, ap[2] = {6.76, 6.01};
    for (int i = 0; i < 2; i++) {
        double dfz = (fz[i] - 4000.0) / 4000.0;
        double kx = fz[i] * (41.086 - 5.2450 * dfz);
        double dx = (1.575 - 0.35 * dfz) * fz[i];
        double bx = kx / (1.9 * dx);
        double kappa_peak = tan(PI / 3.8) / bx;
        double at;
        double px = peak_fx(&d, fz[i], &at);
        ck_assert(rel_close(px, dx, 1e-6));
        ck_assert_double_le(fabs(at - kappa_peak), 2e-5);
        ck_assert(rel_close(eval(&d, fz[i], kappa_peak, 0.0, 0.0).fx_n, dx, 1e-12));
        ck_assert(rel_close(px / fz[i], mux[i], 1e-6));
        ck_assert_double_le(fabs(kappa_peak - kp[i]), 0.0005);
        double a_at;
        double py = peak_fy(&d, fz[i], 1.0, &a_at);
        ck_assert(rel_close(py / fz[i], muy[i], 1e-6));
        ck_assert_double_le(fabs(a_at - ap[i]), 0.01);
    }
    /* no shifts: odd in both slips, to the last bits of the vector sin */
    for (int i = 1; i < 30; i++) {
        double k = 0.02 * i, a = 0.5 * i * DEG;
        pdk_tyre_out p = eval(&d, 4000.0, k, a, 0.0);
        pdk_tyre_out m = eval(&d, 4000.0, -k, -a, 0.0);
        ck_assert(rel_close(p.fx_n, -m.fx_n, 1e-14));
        ck_assert(rel_close(p.fy_n, -m.fy_n, 1e-14));
    }
}
END_TEST

START_TEST(test_mf_other_sets_published_figures)
{
    /* sport (Roborace DevBot): mu_x 1.5 * 0.97, mu_y 1.2 * 0.97, Ca/Fz 31 at
     * Fz0 3 kN (the set's README, tyre_sets.c) */
    pdk_tyre_law_def d = mf_def(PDK_MF_SPORT);
    double at, a1, a2;
    ck_assert(rel_close(peak_fx(&d, 3000.0, &at) / 3000.0, 1.455, 0.002));
    double py = (peak_fy(&d, 3000.0, 1.0, &a1) + peak_fy(&d, 3000.0, -1.0, &a2)) / 6000.0;
    ck_assert_msg(rel_close(py, 1.164, 0.005), "sport mu_y %g", py);
    ck_assert(rel_close(eval(&d, 3000.0, 0.0, 0.0, 0.0).dfy_dalpha_n / 3000.0, 31.0, 0.01));
    /* kart (Lot and Dal Bianco 2016): mu_y 1.5, mu_x 0.9, Ca/Fz 34 at
     * 896 N and 25 at 1344 N */
    d = mf_def(PDK_MF_KART);
    ck_assert(rel_close(peak_fy(&d, 896.0, 1.0, &a1) / 896.0, 1.5, 1e-6));
    ck_assert(rel_close(peak_fx(&d, 896.0, &at) / 896.0, 0.9, 1e-6));
    ck_assert(rel_close(eval(&d, 896.0, 0.0, 0.0, 0.0).dfy_dalpha_n / 896.0, 33.8, 0.005));
    ck_assert(rel_close(eval(&d, 1344.0, 0.0, 0.0, 0.0).dfy_dalpha_n / 1344.0, 25.0, 0.005));
    /* every shipped set has a name, a source and passes the checks (the
     * kart's with a slide_grip of its own: test_def_problems_frictionless) */
    for (int s = 1; s < PDK_MF_SET_COUNT; s++) {
        ck_assert_ptr_nonnull(pdk_mf_set_name((pdk_mf_set)s));
        ck_assert_ptr_nonnull(pdk_mf_set_source((pdk_mf_set)s));
        ck_assert_ptr_null(pdk_mf_problem(pdk_mf_set_coeffs((pdk_mf_set)s)));
        d = mf_def((pdk_mf_set)s);
        if (s == PDK_MF_KART) {
            d.slide_grip = 0.6;
        }
        ck_assert_ptr_null(pdk_tyre_law_def_problem(&d));
    }
    ck_assert_ptr_null(pdk_mf_set_coeffs((pdk_mf_set)0));
    ck_assert_ptr_null(pdk_mf_set_name(PDK_MF_SET_COUNT));
    ck_assert_str_eq(pdk_mf_set_name(PDK_MF_KART), "kart");
}
END_TEST

/* The road set with every shift zeroed is odd in the slips; with them, the
 * curve is odd about the shifted origin. */
START_TEST(test_mf_symmetry_up_to_shifts)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_mf_coeffs *m = &d.mf;
    m->phx1 = m->phx2 = m->phy1 = m->phy2 = m->pvy1 = m->pvy2 = m->pey3 = 0.0;
    m->rhx1 = m->rhy1 = m->rby3 = m->rvy1 = m->rvy2 = m->rvy3 = 0.0;
    m->qhz1 = m->qhz2 = m->qez4 = m->qdz6 = m->qdz7 = m->ssz1 = m->ssz2 = 0.0;
    for (int i = 1; i < 25; i++) {
        double k = 0.015 * i, a = 0.6 * i * DEG;
        pdk_tyre_out p = eval(&d, 4000.0, k, a, 0.0);
        pdk_tyre_out n = eval(&d, 4000.0, -k, -a, 0.0);
        ck_assert(rel_close(p.fx_n, -n.fx_n, 1e-13));
        ck_assert(rel_close(p.fy_n, -n.fy_n, 1e-13));
        ck_assert(rel_close(p.mz_nm, -n.mz_nm, 1e-12));
    }
    /* the published set: Fx at zero slip is Kx PHX1 (the shift), Fy at
     * zero slip angle about SVy + Ky SHy */
    d = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_tyre_out o = eval(&d, 4000.0, 0.0, 0.0, 0.0);
    ck_assert(rel_close(o.fx_n, 21.51 * 4000.0 * -0.002, 0.01));
    ck_assert(rel_close(o.fy_n, 0.045 * 4000.0 + -45985.0 * 0.003, 0.03));
}
END_TEST

START_TEST(test_mf_saturation_and_combined)
{
    for (int s = 1; s < PDK_MF_SET_COUNT; s++) {
        pdk_tyre_law_def d = mf_def((pdk_mf_set)s);
        double fz = d.nominal_load_n;
        pdk_tyre_out ref = eval(&d, fz, 0.0, 0.0, 0.0);
        double lim = 1.0 + 0.06; /* the vertical shifts on top of D */
        for (int i = 0; i < 25; i++) {
            for (int j = 0; j < 25; j++) {
                double k = -1.0 + 2.0 * i / 24.0, a = (-60.0 + 120.0 * j / 24.0) * DEG;
                pdk_tyre_out o = eval(&d, fz, k, a, 0.0);
                ck_assert_double_le(fabs(o.fx_n), lim * ref.peak_n);
                ck_assert_double_le(fabs(o.fy_n), lim * ref.peak_n);
                ck_assert(isfinite(o.mz_nm));
            }
        }
        /* braking and driving at 4 degrees cost lateral force; a slip
         * angle costs longitudinal force */
        double fy0 = eval(&d, fz, 0.0, 4.0 * DEG, 0.0).fy_n;
        ck_assert_double_lt(fabs(eval(&d, fz, -0.1, 4.0 * DEG, 0.0).fy_n), 0.9 * fabs(fy0));
        ck_assert_double_lt(fabs(eval(&d, fz, 0.1, 4.0 * DEG, 0.0).fy_n), 0.9 * fabs(fy0));
        double fx0 = eval(&d, fz, 0.08, 0.0, 0.0).fx_n;
        ck_assert_double_lt(eval(&d, fz, 0.08, 6.0 * DEG, 0.0).fx_n, 0.95 * fx0);
    }
}
END_TEST

/* The analytic slopes against central differences on the rising branch:
 * dFx/dkappa at zero slip angle, -dFy/dtan(alpha) at zero kappa (where the
 * weighting functions do not move). */
START_TEST(test_slopes_match_finite_differences)
{
    const double h = 1e-7;
    for (int s = 1; s < PDK_MF_SET_COUNT; s++) {
        pdk_tyre_law_def d = mf_def((pdk_mf_set)s);
        double fz = d.nominal_load_n * 1.2;
        const double ks[3] = {0.0, 0.01, 0.03};
        for (int i = 0; i < 3; i++) {
            pdk_tyre_out o = eval_t(&d, &REF, fz, ks[i], 0.0);
            double fd = (eval_t(&d, &REF, fz, ks[i] + h, 0.0).fx_n -
                         eval_t(&d, &REF, fz, ks[i] - h, 0.0).fx_n) /
                        (2.0 * h);
            ck_assert_msg(rel_close(o.dfx_dkappa_n, fd, 1e-5), "set %d kappa %g: %g vs %g", s,
                          ks[i], o.dfx_dkappa_n, fd);
        }
        const double ts[3] = {0.0, 0.02, 0.04};
        for (int i = 0; i < 3; i++) {
            pdk_tyre_out o = eval_t(&d, &REF, fz, 0.0, ts[i]);
            double fd = -(eval_t(&d, &REF, fz, 0.0, ts[i] + h).fy_n -
                          eval_t(&d, &REF, fz, 0.0, ts[i] - h).fy_n) /
                        (2.0 * h);
            ck_assert_msg(rel_close(o.dfy_dalpha_n, fd, 1e-5), "set %d tan %g: %g vs %g", s, ts[i],
                          o.dfy_dalpha_n, fd);
        }
        /* never negative: 0 on the falling branch */
        ck_assert_double_eq(eval(&d, fz, 0.6, 0.0, 0.0).dfx_dkappa_n, 0.0);
    }
    /* the grip and UTV laws inside the ellipse, combined slip included */
    pdk_tyre_law_def g = pdk_tyre_law_def_default();
    pdk_tyre_law_def u = utv_def();
    const pdk_tyre_law_def *laws[2] = {&g, &u};
    for (int l = 0; l < 2; l++) {
        double k = 0.015, t = 0.03;
        pdk_tyre_out o = eval_t(laws[l], &REF, 3000.0, k, t);
        double fdx = (eval_t(laws[l], &REF, 3000.0, k + h, t).fx_n -
                      eval_t(laws[l], &REF, 3000.0, k - h, t).fx_n) /
                     (2.0 * h);
        double fdy = -(eval_t(laws[l], &REF, 3000.0, k, t + h).fy_n -
                       eval_t(laws[l], &REF, 3000.0, k, t - h).fy_n) /
                     (2.0 * h);
        ck_assert(rel_close(o.dfx_dkappa_n, fdx, 1e-6));
        ck_assert(rel_close(o.dfy_dalpha_n, fdy, 1e-6));
    }
    /* on the UTV's friction circle (no falling branch): the slope along
     * the circle */
    double k = 0.05, t = 0.09;
    pdk_tyre_out o = eval_t(&u, &REF, 3000.0, k, t);
    double fdx =
        (eval_t(&u, &REF, 3000.0, k + h, t).fx_n - eval_t(&u, &REF, 3000.0, k - h, t).fx_n) /
        (2.0 * h);
    ck_assert(rel_close(o.dfx_dkappa_n, fdx, 1e-5));
}
END_TEST

START_TEST(test_mf_camber_and_pressure)
{
    /* MF6.1 camber (road205): Fy(alpha 0) moves by about Kyg0 gamma* =
     * PKY6 Fz sin(gamma) */
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    double g = 1.0 * DEG;
    double dfy = eval(&d, 4000.0, 0.0, 0.0, g).fy_n - eval(&d, 4000.0, 0.0, 0.0, 0.0).fy_n;
    ck_assert_msg(rel_close(dfy, -0.92 * 4000.0 * sin(g), 0.05), "camber %g", dfy);
    /* MF5.2 camber (sport): Fy ~ Ky (SHy + PHY3 gamma*) + SVy + SVyg, with
     * Ky (1 - PKY3 |gamma*|) */
    d = mf_def(PDK_MF_SPORT);
    double ky = -eval(&d, 3000.0, 0.0, 0.0, 0.0).dfy_dalpha_n;
    double kyg = ky * (1.0 + 0.6 * sin(g));
    dfy = eval(&d, 3000.0, 0.0, 0.0, g).fy_n - eval(&d, 3000.0, 0.0, 0.0, 0.0).fy_n;
    double expect = kyg * (0.003 + 0.004 * sin(g)) - ky * 0.003 + 3000.0 * (-0.97 * 0.97) * sin(g);
    ck_assert_msg(rel_close(dfy, expect, 0.02), "camber 5.2 %g vs %g", dfy, expect);
    /* pressure: a set with NOMPRES and PPY3 scales mu_y by (1 + PPY3 dpi),
     * PPY1 Ky by (1 + PPY1 dpi) */
    d = mf_def(PDK_MF_SLICK);
    d.mf.nominal_pressure_pa = 2.0e5;
    d.mf.ppy3 = -0.5;
    d.mf.ppy1 = 0.3;
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&d));
    /* at alpha -> 90 degrees Fy is Dy sin(C pi / 2): it scales with mu_y */
    pdk_tyre_in in = {4000.0, 0.0, 1e12, 0.0, 20.0};
    pdk_tyre_out o0, o1, oz, ohi;
    pdk_tyre_eval(&d, &REF, &in, 0, &o0);
    pdk_tyre_eval_at_pressure(&d, &REF, &in, 2.2e5, 0, &o1);
    pdk_tyre_eval_at_pressure(&d, &REF, &in, 0.0, 0, &oz);
    pdk_tyre_eval_at_pressure(&d, &REF, &in, 9.0e5, 0, &ohi);
    ck_assert(rel_close(o1.fy_n, o0.fy_n * 0.95, 1e-12));
    ck_assert_double_eq(oz.fy_n, o0.fy_n);                 /* 0: nominal */
    ck_assert(rel_close(ohi.fy_n, o0.fy_n * 0.75, 1e-12)); /* dpi held at 0.5 */
    in.tan_alpha = 0.0;
    pdk_tyre_eval(&d, &REF, &in, 0, &o0);
    pdk_tyre_eval_at_pressure(&d, &REF, &in, 2.2e5, 0, &o1);
    ck_assert(rel_close(o1.dfy_dalpha_n, o0.dfy_dalpha_n * 1.03, 1e-12));
}
END_TEST

/* ---------------- the common parameters ---------------- */

START_TEST(test_load_sensitivity)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    d.load_sensitivity = 0.15;
    /* twice the load gives 2^-0.15 = 0.90 of the friction */
    ck_assert(rel_close(eval(&d, 8000.0, 0.0, 0.0, 0.0).peak_n, 8000.0 * pow(2.0, -0.15), 1e-12));
    ck_assert(rel_close(eval(&d, 4000.0, 0.0, 0.0, 0.0).peak_n, 4000.0, 1e-15));
    ck_assert(
        rel_close(eval(&d, 8000.0, 1.0, 0.0, 0.0).fx_n, 0.75 * 8000.0 * pow(2.0, -0.15), 1e-12));
    /* the Magic Formula: on top of its own PDX2 */
    pdk_tyre_law_def m = mf_def(PDK_MF_ROAD_205_60R15);
    double p0 = eval(&m, 8000.0, 0.0, 0.0, 0.0).peak_n;
    m.load_sensitivity = 0.1;
    ck_assert(rel_close(eval(&m, 8000.0, 0.0, 0.0, 0.0).peak_n, p0 * pow(2.0, -0.1), 1e-12));
    ck_assert(rel_close(eval(&m, 4000.0, 0.0, 0.0, 0.0).peak_n,
                        eval(&m, 4000.0, 0.0, 0.0, 0.0).peak_n, 0.0));
}
END_TEST

START_TEST(test_mf_slide_grip)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    double fz = 4000.0;
    pdk_tyre_out own = eval(&d, fz, 1.0, 0.0, 0.0);
    pdk_tyre_out rise0 = eval(&d, fz, 0.05, 0.0, 0.0);
    d.slide_grip = 0.6;
    /* full sliding: 0.6 of the peak (Fx = Gxa Fx0 with Gxa = 1 at alpha 0,
     * SVx 0 for this set) */
    pdk_tyre_out o = eval(&d, fz, 1.0, 0.0, 0.0);
    ck_assert(rel_close(o.fx_n, 0.6 * o.peak_n, 1e-12));
    ck_assert(fabs(own.fx_n - o.fx_n) > 100.0);
    /* the rising branch keeps the set's shape, to the bit */
    ck_assert_double_eq(eval(&d, fz, 0.05, 0.0, 0.0).fx_n, rise0.fx_n);
    /* beyond full sliding it holds */
    ck_assert(rel_close(eval(&d, fz, 2.0, 0.0, 0.0).fx_n, 0.6 * o.peak_n, 1e-12));
    /* lateral: alpha -> 90 degrees gives 0.6 Dy + SVy */
    pdk_tyre_out y = eval_t(&d, &REF, fz, 0.0, 1e9);
    double svy = fz * (0.045 - 0.024 * 0.0);
    ck_assert(rel_close(y.fy_n, -0.6 * y.peak_n * (0.99 / 1.21) + svy, 1e-6));
    /* slide_grip 0 with a loose ground's slide scale: the set's own share
     * times the scale */
    d.slide_grip = 0.0;
    pdk_tyre_ground loose = {1.0, 1.0, 1.2};
    double own_share = own.fx_n / own.peak_n;
    o = eval_t(&d, &loose, fz, 1.0, 0.0);
    ck_assert(rel_close(o.fx_n / o.peak_n, fmin(1.0, 1.2 * own_share), 1e-9));
}
END_TEST

START_TEST(test_combined_slip_loss)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    double fz = 4000.0, a = 3.0 * DEG;
    pdk_tyre_law_def l = d;
    l.combined_slip_loss = 0.6;
    const double ks[5] = {0.05, 0.1, 0.4, 0.7, 1.0};
    const double share[5] = {1.0, 1.0, 0.7, 0.4, 0.4};
    for (int i = 0; i < 5; i++) {
        double f0 = eval(&d, fz, -ks[i], a, 0.0).fy_n;
        double f1 = eval(&l, fz, -ks[i], a, 0.0).fy_n;
        ck_assert_msg(rel_close(f1, share[i] * f0, 1e-12), "kappa %g", ks[i]);
        /* Fx untouched */
        ck_assert_double_eq(eval(&d, fz, -ks[i], a, 0.0).fx_n, eval(&l, fz, -ks[i], a, 0.0).fx_n);
    }
    /* on the Magic Formula, on top of its own weighting */
    pdk_tyre_law_def m = mf_def(PDK_MF_ROAD_205_60R15);
    double f0 = eval(&m, fz, 0.7, a, 0.0).fy_n;
    m.combined_slip_loss = 0.5;
    ck_assert(rel_close(eval(&m, fz, 0.7, a, 0.0).fy_n, 0.5 * f0, 1e-12));
}
END_TEST

START_TEST(test_ground_scales)
{
    const pdk_tyre_ground half_grip = {0.5, 1.0, 1.0};
    const pdk_tyre_ground soft = {1.0, 0.5, 1.0};
    const pdk_tyre_ground loose = {1.0, 1.0, 1.3};
    /* grip law: grip halves the peak and keeps the stiffness */
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    pdk_tyre_out o = eval_t(&d, &half_grip, 4000.0, 0.01, 0.0);
    ck_assert(rel_close(o.dfx_dkappa_n, 18.0 * 4000.0, 1e-14));
    ck_assert(rel_close(o.peak_n, 2000.0, 1e-14));
    ck_assert(rel_close(eval_t(&d, &half_grip, 4000.0, 1.0, 0.0).fx_n, 0.75 * 2000.0, 1e-12));
    o = eval_t(&d, &soft, 4000.0, 0.01, 0.0);
    ck_assert(rel_close(o.dfx_dkappa_n, 9.0 * 4000.0, 1e-14));
    ck_assert(rel_close(o.peak_n, 4000.0, 1e-14));
    /* slide: the sliding share 0.75 * 1.3, capped at 1 */
    ck_assert(rel_close(eval_t(&d, &loose, 4000.0, 1.0, 0.0).fx_n, 0.975 * 4000.0, 1e-12));
    pdk_tyre_ground looser = {1.0, 1.0, 2.0};
    ck_assert(rel_close(eval_t(&d, &looser, 4000.0, 1.0, 0.0).fx_n, 4000.0, 1e-12));
    /* Magic Formula: grip multiplies mu (lambda_mu) and keeps Ky = BCD;
     * stiffness multiplies Kx, Ky (lambda_K) and keeps the peak */
    pdk_tyre_law_def m = mf_def(PDK_MF_SLICK);
    pdk_tyre_out r = eval_t(&m, &REF, 4000.0, 0.0, 0.0);
    o = eval_t(&m, &half_grip, 4000.0, 0.0, 0.0);
    ck_assert(rel_close(o.dfy_dalpha_n, r.dfy_dalpha_n, 1e-12));
    ck_assert(rel_close(o.dfx_dkappa_n, r.dfx_dkappa_n, 1e-12));
    ck_assert(rel_close(o.peak_n, 0.5 * r.peak_n, 1e-12));
    o = eval_t(&m, &soft, 4000.0, 0.0, 0.0);
    ck_assert(rel_close(o.dfy_dalpha_n, 0.5 * r.dfy_dalpha_n, 1e-12));
    ck_assert(rel_close(o.peak_n, r.peak_n, 1e-12));
}
END_TEST

/* ---------------- relaxation ---------------- */

START_TEST(test_relaxation_lengths)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default(); /* 0.15 / 0.45 m at 4000 N */
    double sk, sa;
    pdk_tyre_relaxation(&d, 4000.0, &sk, &sa);
    ck_assert(rel_close(sk, 0.15, 1e-15) && rel_close(sa, 0.45, 1e-15));
    /* the Pac2002 lateral form sin(2 atan(Fz / (2 Fz_nom))), normalised */
    pdk_tyre_relaxation(&d, 8000.0, &sk, &sa);
    ck_assert(rel_close(sa, 0.45 * 1.0 / 0.8, 1e-14));
    ck_assert(rel_close(sk, 0.15 * 1.0 / 0.8, 1e-14));
    pdk_tyre_relaxation(&d, 2000.0, &sk, &sa);
    ck_assert(rel_close(sa, 0.45 * (0.5 / (1.0 + 0.0625)) / 0.8, 1e-14));
    /* floored at a tenth */
    pdk_tyre_relaxation(&d, 0.0, &sk, &sa);
    ck_assert(rel_close(sk, 0.015, 1e-14) && rel_close(sa, 0.045, 1e-14));
    /* a set with PTX, PTY (sport): PTX1 R0 and PTY1 sin(2 atan(1/PTY2)) R0
     * at Fz0 */
    pdk_tyre_law_def m = mf_def(PDK_MF_SPORT);
    pdk_tyre_relaxation(&m, 3000.0, &sk, &sa);
    ck_assert(rel_close(sk, 0.75 * 0.3, 1e-14));
    ck_assert(rel_close(sa, 3.8 * sin(2.0 * atan(1.0 / 4.7)) * 0.3, 1e-12));
    pdk_tyre_relaxation(&m, 6000.0, &sk, &sa);
    ck_assert(rel_close(sk, 6000.0 * (0.75 + 0.007) * exp(-0.013) * 0.3 / 3000.0, 1e-12));
    /* a set without them (road205) takes the def's lengths */
    m = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_tyre_relaxation(&m, 4000.0, &sk, &sa);
    ck_assert(rel_close(sk, 0.15, 1e-15) && rel_close(sa, 0.45, 1e-15));
}
END_TEST

/* ---------------- lanes ---------------- */

static void fill_inputs(pdk_tyre_in4 *in, pdk_tyre_ground4 *g, int variant)
{
    const double fz[4] = {3500.0, 4200.0, 2800.0, 0.0};
    const double k[4] = {0.03, -0.12, 0.6, 0.01};
    const double t[4] = {0.05, -0.01, 0.2, 0.02};
    const double gam[4] = {0.0, 0.02, -0.03, 0.0};
    for (int i = 0; i < 4; i++) {
        double v = variant ? 1.0 + 0.37 * i : 1.0;
        in->fz_n[i] = fz[i] * (variant ? 1.3 : 1.0);
        in->kappa[i] = k[i] * v;
        in->tan_alpha[i] = t[i] * v;
        in->gamma_rad[i] = variant ? 0.05 : gam[i];
        in->vx_mps[i] = variant ? -3.0 : 20.0;
        g->grip[i] = variant ? 0.6 : 1.0;
        g->stiffness[i] = variant ? 0.7 : 1.0;
        g->slide[i] = variant ? 1.25 : 1.0;
    }
}

static int same_out_lane(const pdk_tyre_out4 *a, const pdk_tyre_out4 *b, int i)
{
    return a->fx_n[i] == b->fx_n[i] && a->fy_n[i] == b->fy_n[i] && a->mz_nm[i] == b->mz_nm[i] &&
           a->dfx_dkappa_n[i] == b->dfx_dkappa_n[i] && a->dfy_dalpha_n[i] == b->dfy_dalpha_n[i] &&
           a->peak_n[i] == b->peak_n[i];
}

/* The scalar function is the vector code's lane: the same bits, whichever
 * law is on the other axle. */
START_TEST(test_scalar_is_the_lane)
{
    pdk_tyre_law_def defs[4] = {pdk_tyre_law_def_default(), mf_def(PDK_MF_ROAD_205_60R15),
                                utv_def(), mf_def(PDK_MF_SPORT)};
    defs[0].load_sensitivity = 0.1;
    defs[3].slide_grip = 0.7;
    defs[3].combined_slip_loss = 0.3;
    for (int f = 0; f < 4; f++) {
        for (int r = 0; r < 4; r++) {
            pdk_tyre_consts4 c;
            pdk_tyre_consts4_init(&c, &defs[f], &defs[r]);
            for (int variant = 0; variant < 2; variant++) {
                pdk_tyre_in4 in;
                pdk_tyre_ground4 g;
                fill_inputs(&in, &g, variant);
                for (int want = 0; want < 2; want++) {
                    pdk_tyre_out4 o;
                    pdk_tyre_eval4(&c, &in, &g, want, &o);
                    for (int i = 0; i < 4; i++) {
                        const pdk_tyre_law_def *d = i < 2 ? &defs[f] : &defs[r];
                        /* A right wheel's Magic Formula set is the mirror image. */
                        int mirror = (i & 1) && d->law == PDK_TYRE_MAGIC;
                        double m = mirror ? -1.0 : 1.0;
                        pdk_tyre_in si = {in.fz_n[i], in.kappa[i], m * in.tan_alpha[i],
                                          m * in.gamma_rad[i], in.vx_mps[i]};
                        pdk_tyre_ground sg = {g.grip[i], g.stiffness[i], g.slide[i]};
                        pdk_tyre_out so;
                        pdk_tyre_eval(d, &sg, &si, want, &so);
                        so.fy_n *= m;
                        so.mz_nm *= m;
                        ck_assert_msg(
                            so.fx_n == o.fx_n[i] && so.fy_n == o.fy_n[i] &&
                                so.mz_nm == o.mz_nm[i] && so.dfx_dkappa_n == o.dfx_dkappa_n[i] &&
                                so.dfy_dalpha_n == o.dfy_dalpha_n[i] && so.peak_n == o.peak_n[i],
                            "front %d rear %d lane %d variant %d", f, r, i, variant);
                    }
                }
            }
            v4 sk, sa;
            pdk_tyre_relaxation4(&c, (v4){1000.0, 4000.0, 3000.0, 9000.0}, &sk, &sa);
            double ssk, ssa;
            pdk_tyre_relaxation(&defs[r], 9000.0, &ssk, &ssa);
            ck_assert(ssk == sk[3] && ssa == sa[3]);
            pdk_tyre_relaxation(&defs[f], 1000.0, &ssk, &ssa);
            ck_assert(ssk == sk[0] && ssa == sa[0]);
        }
    }
}
END_TEST

/* On the right of the car a Magic Formula set is mirrored, so that a
 * left and a right tyre at mirrored slip and camber give mirrored forces:
 * the set's lateral offsets (conicity, ply steer) cancel across an axle
 * and a symmetric car with all four wheels locked slides straight. */
START_TEST(test_right_side_is_mirrored)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_tyre_consts4 c;
    pdk_tyre_consts4_init(&c, &d, &d);
    pdk_tyre_ground4 g = {splat(1.0), splat(1.0), splat(1.0)};
    for (int k = 0; k < 3; k++) {
        const double kappa = k == 0 ? -1.0 : (k == 1 ? 0.0 : 0.05);
        /* left at (alpha, gamma), right at (-alpha, -gamma) */
        pdk_tyre_in4 in = {splat(4000.0), splat(kappa), (v4){0.02, -0.02, 0.0, 0.0},
                           (v4){0.01, -0.01, 0.0, 0.0}, splat(20.0)};
        pdk_tyre_out4 o;
        pdk_tyre_eval4(&c, &in, &g, 1, &o);
        ck_assert(o.fx_n[0] == o.fx_n[1]);
        ck_assert(o.fy_n[0] == -o.fy_n[1]);
        ck_assert(o.mz_nm[0] == -o.mz_nm[1]);
        ck_assert(o.fy_n[2] == -o.fy_n[3]); /* straight: the offsets cancel */
        ck_assert(o.mz_nm[2] == -o.mz_nm[3]);
        /* and the set does have an offset to cancel */
        ck_assert_double_gt(fabs(o.fy_n[2]), 1.0);
    }
    /* Grip and UTV laws are odd already: nothing is mirrored. */
    pdk_tyre_law_def gd = pdk_tyre_law_def_default();
    pdk_tyre_consts4_init(&c, &gd, &gd);
    ck_assert(c.mirror[1] == 0 && c.mirror[3] == 0);
}
END_TEST

/* Camber thrust acts toward the side the wheel's top leans to (Pacejka,
 * Tire and Vehicle Dynamics, 3rd ed., sections 1.3 and 4.3; Milliken and
 * Milliken, Race Car Vehicle Dynamics, ch. 2), for every law and on both
 * sides of the car. A wheel whose top leans toward +y has the ISO
 * inclination gamma = -0.02 rad on the left (lane 0) and on the right
 * (lane 1) alike; lanes 2 and 3 hold the same tyres upright. At zero slip
 * the lean must push each tyre toward +y: Fy(gamma) - Fy(0) > 0 (the
 * Magic Formula's conicity and ply steer are in both and cancel). The grip
 * and UTV laws give exactly c |gamma| Fz on both sides; the Magic Formula
 * sets with camber terms (road205, sport) give their own thrust, nearly
 * the same on both sides (the right wheel's mirror image keeps the
 * direction). The slick and kart sets have no camber terms (tyre_sets.c). */
START_TEST(test_camber_thrust_toward_the_lean)
{
    const double fz = 4000.0, lean = -0.02;
    pdk_tyre_law_def laws[4];
    laws[0] = pdk_tyre_law_def_default();
    laws[0].camber_per_load = 1.0;
    laws[1] = utv_def();
    laws[1].camber_per_load = 1.0;
    laws[2] = mf_def(PDK_MF_ROAD_205_60R15);
    laws[3] = mf_def(PDK_MF_SPORT);
    pdk_tyre_ground4 g = {splat(1.0), splat(1.0), splat(1.0)};
    for (int k = 0; k < 4; k++) {
        pdk_tyre_consts4 c;
        pdk_tyre_consts4_init(&c, &laws[k], &laws[k]);
        pdk_tyre_in4 in = {splat(fz), splat(0.0), splat(0.0), (v4){lean, lean, 0.0, 0.0},
                           splat(20.0)};
        pdk_tyre_out4 o;
        pdk_tyre_eval4(&c, &in, &g, 0, &o);
        const double left = o.fy_n[0] - o.fy_n[2];
        const double right = o.fy_n[1] - o.fy_n[3];
        printf("tyre camber law %d: top toward +y by 0.02 rad: left %+.1f N, right %+.1f N\n", k,
               left, right);
        ck_assert_double_gt(left, 0.0);
        ck_assert_double_gt(right, 0.0);
        if (k < 2) {
            ck_assert(rel_close(left, 1.0 * 0.02 * fz, 1e-12));
            ck_assert(rel_close(right, 1.0 * 0.02 * fz, 1e-12));
        } else {
            /* a road tyre's camber thrust is a few per cent of its load per
             * rad: more than 10 N at 0.02 rad and 4 kN */
            ck_assert_double_gt(left, 10.0);
            /* The right wheel leaning toward +y is the left one's mirror
             * leaning toward -y (exactly: test_right_side_is_mirrored). A
             * set's thrust is odd in gamma only up to its offsets (the
             * sport set's SHy of 0.003 moves it along Ky's curve) and its
             * terms in |gamma|: the two sides agree within 0.2 % for
             * road205 and 8 % for sport (10 %). */
            ck_assert_msg(rel_close(left, right, 0.10), "left %g right %g", left, right);
        }
    }
}
END_TEST

/* A lane's result does not depend on the other lanes' inputs (camber, a
 * loose ground or no load next door change nothing in lane i). */
START_TEST(test_lanes_are_independent)
{
    pdk_tyre_law_def defs[3] = {mf_def(PDK_MF_ROAD_205_60R15), pdk_tyre_law_def_default(),
                                utv_def()};
    for (int f = 0; f < 3; f++) {
        pdk_tyre_consts4 c;
        pdk_tyre_consts4_init(&c, &defs[f], &defs[(f + 1) % 3]);
        pdk_tyre_in4 a, b;
        pdk_tyre_ground4 ga, gb;
        fill_inputs(&a, &ga, 0);
        fill_inputs(&b, &gb, 1);
        pdk_tyre_out4 oa;
        pdk_tyre_eval4(&c, &a, &ga, 1, &oa);
        for (int i = 0; i < 4; i++) {
            /* lane i from a, the others from b */
            pdk_tyre_in4 m = b;
            pdk_tyre_ground4 gm = gb;
            m.fz_n[i] = a.fz_n[i];
            m.kappa[i] = a.kappa[i];
            m.tan_alpha[i] = a.tan_alpha[i];
            m.gamma_rad[i] = a.gamma_rad[i];
            m.vx_mps[i] = a.vx_mps[i];
            gm.grip[i] = ga.grip[i];
            gm.stiffness[i] = ga.stiffness[i];
            gm.slide[i] = ga.slide[i];
            pdk_tyre_out4 om;
            pdk_tyre_eval4(&c, &m, &gm, 1, &om);
            ck_assert_msg(same_out_lane(&oa, &om, i), "front law %d lane %d", f, i);
        }
    }
}
END_TEST

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void eval4_avx(const pdk_tyre_consts4 *c,
                                                     const pdk_tyre_in4 *in,
                                                     const pdk_tyre_ground4 *g, int want,
                                                     pdk_tyre_out4 *out)
{
    pdk_tyre_eval4(c, in, g, want, out);
}
#endif

/* The AVX build gives the baseline build's bits. */
START_TEST(test_avx_build_same_bits)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (!__builtin_cpu_supports("avx")) {
        return;
    }
    pdk_tyre_law_def defs[4] = {mf_def(PDK_MF_ROAD_205_60R15), pdk_tyre_law_def_default(),
                                utv_def(), mf_def(PDK_MF_KART)};
    defs[3].slide_grip = 0.8;
    for (int f = 0; f < 4; f++) {
        pdk_tyre_consts4 c;
        pdk_tyre_consts4_init(&c, &defs[f], &defs[3 - f]);
        for (int variant = 0; variant < 2; variant++) {
            pdk_tyre_in4 in;
            pdk_tyre_ground4 g;
            fill_inputs(&in, &g, variant);
            pdk_tyre_out4 a, b;
            pdk_tyre_eval4(&c, &in, &g, 1, &a);
            eval4_avx(&c, &in, &g, 1, &b);
            for (int i = 0; i < 4; i++) {
                ck_assert(same_out_lane(&a, &b, i));
            }
        }
    }
#endif
}
END_TEST

/* ---------------- problems ---------------- */

typedef struct problem_case {
    const char *field; /* expected in the message */
    void (*spoil)(pdk_tyre_law_def *d);
} problem_case;

static void spoil_law(pdk_tyre_law_def *d)
{
    d->law = (pdk_tyre_law)9;
}
static void spoil_radius(pdk_tyre_law_def *d)
{
    d->radius_m = 0.0;
}
static void spoil_nominal(pdk_tyre_law_def *d)
{
    d->nominal_load_n = NAN;
}
static void spoil_ls(pdk_tyre_law_def *d)
{
    d->load_sensitivity = 0.6;
}
static void spoil_slide(pdk_tyre_law_def *d)
{
    d->slide_grip = 1.5;
}
static void spoil_loss(pdk_tyre_law_def *d)
{
    d->combined_slip_loss = -0.1;
}
static void spoil_rl(pdk_tyre_law_def *d)
{
    d->relaxation_long_m = 0.0;
}
static void spoil_ra(pdk_tyre_law_def *d)
{
    d->relaxation_lat_m = 20.0;
}
static void spoil_rr(pdk_tyre_law_def *d)
{
    d->rolling_coeff = -0.01;
}
static void spoil_mux(pdk_tyre_law_def *d)
{
    d->mu_x = 0.0;
}
static void spoil_muy(pdk_tyre_law_def *d)
{
    d->mu_y = 9.0;
}
static void spoil_ca(pdk_tyre_law_def *d)
{
    d->cornering_per_load = 0.0;
}
static void spoil_ck(pdk_tyre_law_def *d)
{
    d->slip_stiffness_per_load = INFINITY;
}
static void spoil_camber(pdk_tyre_law_def *d)
{
    d->camber_per_load = 100.0;
}
static void spoil_trail(pdk_tyre_law_def *d)
{
    d->trail_m = -0.01;
}
static void spoil_ks(pdk_tyre_law_def *d)
{
    d->law = PDK_TYRE_UTV;
    d->hard_slip_stiffness = 0.0;
}

START_TEST(test_def_problems)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&d));
    pdk_tyre_law_def u = utv_def();
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&u));
    ck_assert_str_eq(pdk_tyre_law_def_problem(NULL), "tyre: no definition");
    const problem_case cases[] = {
        {"tyre.law", spoil_law},
        {"tyre.radius_m", spoil_radius},
        {"tyre.nominal_load_n", spoil_nominal},
        {"tyre.load_sensitivity", spoil_ls},
        {"tyre.slide_grip", spoil_slide},
        {"tyre.combined_slip_loss", spoil_loss},
        {"tyre.relaxation_long_m", spoil_rl},
        {"tyre.relaxation_lat_m", spoil_ra},
        {"tyre.rolling_coeff", spoil_rr},
        {"tyre.mu_x", spoil_mux},
        {"tyre.mu_y", spoil_muy},
        {"tyre.cornering_per_load", spoil_ca},
        {"tyre.slip_stiffness_per_load", spoil_ck},
        {"tyre.camber_per_load", spoil_camber},
        {"tyre.trail_m", spoil_trail},
        {"tyre.hard_slip_stiffness", spoil_ks},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_tyre_law_def e = pdk_tyre_law_def_default();
        cases[i].spoil(&e);
        const char *p = pdk_tyre_law_def_problem(&e);
        ck_assert_msg(p != NULL && strstr(p, cases[i].field) != NULL, "%s: %s", cases[i].field,
                      p ? p : "(null)");
    }
    /* the Magic Formula: the set name, then the coefficients */
    pdk_tyre_law_def m = mf_def(PDK_MF_ROAD_205_60R15);
    m.mf_set = (pdk_mf_set)7;
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&m),
                      "tyre.mf_set must be road205, sport, slick or kart");
    m = mf_def(PDK_MF_ROAD_205_60R15);
    m.mf.fnomin_n = 0.0;
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&m), "tyre.mf.fnomin_n must be above 0");
}
END_TEST

/* The parameters that would leave a law frictionless or pushing the wrong
 * way, each refused with its key and its bound: slide_grip 0 on the grip
 * and utv laws (a locked wheel had no friction: a car slid on at 19.7 m/s
 * for ever), a slide_grip below 0.1 on any law, slide_grip 0 on a Magic
 * Formula set whose own curve turns negative (the kart's shape factors,
 * 2.3), and a combined-slip loss of 1 (no side force past 70 % slip). The
 * boundary values pass. */
START_TEST(test_def_problems_frictionless)
{
    pdk_tyre_law_def d = pdk_tyre_law_def_default();
    d.slide_grip = 0.0;
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&d),
                      "tyre.slide_grip must be within 0.1..1 for the grip and utv laws (below, a "
                      "sliding tyre has next to no friction; 0 means the set's own falling branch "
                      "only on magic)");
    d.slide_grip = 0.1;
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&d));
    pdk_tyre_law_def u = utv_def();
    u.slide_grip = 0.05;
    ck_assert_ptr_nonnull(strstr(pdk_tyre_law_def_problem(&u), "tyre.slide_grip"));
    pdk_tyre_law_def m = mf_def(PDK_MF_ROAD_205_60R15);
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&m));
    m.slide_grip = 0.05;
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&m),
                      "tyre.slide_grip must be 0 (the set's own falling branch) or within 0.1..1 "
                      "on the magic law");
    pdk_tyre_law_def k = mf_def(PDK_MF_KART);
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&k),
                      "tyre.slide_grip must be within 0.1..1 for a set whose pcx1 or pcy1 is above "
                      "2 (its own curve turns negative before full sliding)");
    /* the kart's own curve at full sliding sideways is negative indeed */
    pdk_tyre_out o = eval_t(&k, &REF, 900.0, 0.0, 1e9);
    ck_assert_double_gt(o.fy_n, 0.0);
    k.slide_grip = 0.6;
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&k));
    d = pdk_tyre_law_def_default();
    d.combined_slip_loss = 1.0;
    ck_assert_pstr_eq(pdk_tyre_law_def_problem(&d),
                      "tyre.combined_slip_loss must be within 0..0.9 (1 leaves a locked wheel no "
                      "side force)");
    d.combined_slip_loss = 0.9;
    ck_assert_ptr_null(pdk_tyre_law_def_problem(&d));
}
END_TEST

START_TEST(test_mf_problems)
{
    ck_assert_str_eq(pdk_mf_problem(NULL), "tyre.mf: no coefficients");
    struct {
        const char *field;
        size_t offset;
        double value;
    } cases[] = {
        {"not finite", offsetof(pdk_mf_coeffs, qez3), NAN},
        {"tyre.mf.fnomin_n", offsetof(pdk_mf_coeffs, fnomin_n), -1.0},
        {"tyre.mf.lfzo", offsetof(pdk_mf_coeffs, lfzo), 0.0},
        {"tyre.mf.unloaded_radius_m", offsetof(pdk_mf_coeffs, unloaded_radius_m), 0.0},
        {"tyre.mf.nominal_pressure_pa", offsetof(pdk_mf_coeffs, nominal_pressure_pa), -1.0},
        {"tyre.mf.pcx1", offsetof(pdk_mf_coeffs, pcx1), 0.0},
        {"tyre.mf.pcx1 and pcy1", offsetof(pdk_mf_coeffs, pcy1), -1.0},
        {"tyre.mf.pdx1", offsetof(pdk_mf_coeffs, pdx1), 0.0},
        {"tyre.mf.pkx1", offsetof(pdk_mf_coeffs, pkx1), 0.0},
        {"tyre.mf.pdy1 and pky1", offsetof(pdk_mf_coeffs, pdy1), 0.99},
        {"tyre.mf.pdy1 and pky1", offsetof(pdk_mf_coeffs, pky1), 14.95},
        {"tyre.mf.pky2", offsetof(pdk_mf_coeffs, pky2), 0.0},
        {"tyre.mf.rbx1", offsetof(pdk_mf_coeffs, rbx1), 0.0},
        {"tyre.mf.rbx1", offsetof(pdk_mf_coeffs, rcy1), 0.0},
        {"tyre.mf.pty2", offsetof(pdk_mf_coeffs, pty2), 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_mf_coeffs m = *pdk_mf_set_coeffs(PDK_MF_SPORT);
        memcpy((char *)&m + cases[i].offset, &cases[i].value, sizeof(double));
        const char *p = pdk_mf_problem(&m);
        ck_assert_msg(p != NULL && strstr(p, cases[i].field) != NULL, "%s: %s", cases[i].field,
                      p ? p : "(null)");
    }
}
END_TEST

/* Fx as a function of wheel spin (pdk_tyre_fx_at_spin), what issue 5's
 * implicit driveline calls: with a step long against sigma / |vx| it is
 * the steady law at the practical slip (omega R - vx) / |vx|; its slope is
 * the law's through the deflection's exact update (central differences on
 * the rising branch); at rest the deflection is a spring, u1 = u0 + h
 * omega R; a bounded slip has no slope. */
START_TEST(test_fx_at_spin)
{
    pdk_tyre_law_def d = mf_def(PDK_MF_ROAD_205_60R15);
    pdk_tyre_ground g = {1.0, 1.0, 1.0};
    const double r = d.radius_m;
    /* steady: 100 s at 20 m/s is thousands of relaxation lengths */
    pdk_tyre_spin_in in = {.fz_n = 4000.0, .vx_mps = 20.0, .h_s = 100.0};
    for (int k = -3; k <= 3; k++) {
        const double kappa = 0.03 * k;
        const double omega = 20.0 * (1.0 + kappa) / r;
        double u1;
        double fx = pdk_tyre_fx_at_spin(&d, &g, &in, omega, NULL, &u1);
        pdk_tyre_out want = eval(&d, 4000.0, kappa, 0.0, 0.0);
        ck_assert_msg(fabs(fx - want.fx_n) <= 1e-9 * 4000.0 + 1e-9 * fabs(want.fx_n),
                      "kappa %g: %.12g against %.12g", kappa, fx, want.fx_n);
    }
    /* the slope over one 1/240 s substep, rising branch, from a deflection */
    in.h_s = 1.0 / 240.0;
    in.defl_x_m = 0.002;
    for (int k = 0; k < 4; k++) {
        const double omega = 20.0 / r + 0.5 * k;
        const double dw = 1e-4;
        double slope;
        (void)pdk_tyre_fx_at_spin(&d, &g, &in, omega, &slope, NULL);
        double fp = pdk_tyre_fx_at_spin(&d, &g, &in, omega + dw, NULL, NULL);
        double fm = pdk_tyre_fx_at_spin(&d, &g, &in, omega - dw, NULL, NULL);
        double fd = (fp - fm) / (2.0 * dw);
        ck_assert_double_gt(slope, 0.0);
        ck_assert_msg(fabs(slope - fd) <= 1e-5 * fabs(fd), "omega %g: %g against %g", omega,
                      slope, fd);
    }
    /* at rest: u1 = u0 + h omega R exactly as the spring says */
    in.vx_mps = 0.0;
    in.defl_x_m = 0.001;
    double u1;
    double fx = pdk_tyre_fx_at_spin(&d, &g, &in, 0.5, NULL, &u1);
    ck_assert_double_eq_tol(u1, 0.001 + in.h_s * 0.5 * r, 1e-15);
    double sk, sa;
    pdk_tyre_relaxation(&d, 4000.0, &sk, &sa);
    pdk_tyre_out want = eval(&d, 4000.0, u1 / sk, 0.0, 0.0);
    ck_assert_double_eq(fx, want.fx_n);
    /* a spin far past the bound: kappa held at the bound, no slope */
    double slope;
    in.vx_mps = 1.0;
    in.h_s = 100.0;
    (void)pdk_tyre_fx_at_spin(&d, &g, &in, 50.0 / r, &slope, &u1);
    ck_assert_double_eq(slope, 0.0);
    ck_assert_double_eq_tol(u1 / sk, PDK_TYRE_SPIN_KAPPA_MAX, 1e-12);
}
END_TEST

static Suite *tyre_suite(void)
{
    Suite *s = suite_create("tyre");
    TCase *laws = tcase_create("laws");
    tcase_add_test(laws, test_grip_linear_then_peak_at_mu_fz_over_stiffness);
    tcase_add_test(laws, test_grip_falling_branch_seed_004);
    tcase_add_test(laws, test_grip_symmetry_saturation_combined);
    tcase_add_test(laws, test_grip_aligning_moment);
    tcase_add_test(laws, test_utv_tanh_and_friction_circle);
    tcase_add_test(laws, test_utv_common_parameters_and_trail);
    tcase_add_test(laws, test_mf_road205_published_values);
    tcase_add_test(laws, test_mf_slick_analytic_peak_and_published_mu);
    tcase_add_test(laws, test_mf_other_sets_published_figures);
    tcase_add_test(laws, test_mf_symmetry_up_to_shifts);
    tcase_add_test(laws, test_mf_saturation_and_combined);
    tcase_add_test(laws, test_slopes_match_finite_differences);
    tcase_add_test(laws, test_mf_camber_and_pressure);
    tcase_add_test(laws, test_fx_at_spin);
    suite_add_tcase(s, laws);
    TCase *common = tcase_create("common");
    tcase_add_test(common, test_load_sensitivity);
    tcase_add_test(common, test_mf_slide_grip);
    tcase_add_test(common, test_combined_slip_loss);
    tcase_add_test(common, test_ground_scales);
    tcase_add_test(common, test_relaxation_lengths);
    suite_add_tcase(s, common);
    TCase *lanes = tcase_create("lanes");
    tcase_add_test(lanes, test_scalar_is_the_lane);
    tcase_add_test(lanes, test_right_side_is_mirrored);
    tcase_add_test(lanes, test_camber_thrust_toward_the_lean);
    tcase_add_test(lanes, test_lanes_are_independent);
    tcase_add_test(lanes, test_avx_build_same_bits);
    suite_add_tcase(s, lanes);
    TCase *problems = tcase_create("problems");
    tcase_add_test(problems, test_def_problems);
    tcase_add_test(problems, test_def_problems_frictionless);
    tcase_add_test(problems, test_mf_problems);
    suite_add_tcase(s, problems);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tyre_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
