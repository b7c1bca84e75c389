/* Unit tests for the implicit driveline (server/sim/driveline.h;
 * docs/powertrain.md): the wheel's torque law and its slope in each regime,
 * the backward-Euler balance solved by hand for a locked and a slipping
 * clutch, the efficiency in each direction of the power flow, the open and the
 * limited slip differential's torque split, neutral, the UTV's overrunning
 * front axle, reverse, and a sweep of layouts whose results must satisfy their
 * own equations. Every expectation is derived from the physics, not read from
 * the code. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "powertrain/driveline.h"
#include "powertrain/driveline_lanes.h"

#define H_S 0.01
#define J_W 1.2       /* wheel inertia, kg m^2 */
#define R_T 0.3       /* tyre radius, m */
#define K_X 1000.0    /* the tyre's slope in slip velocity, N s/m */
#define B_NM 20.0     /* Coulomb torque, N m */
#define V_MPS 9.0     /* the contact's forward speed */
#define W0_RADPS 30.0 /* V_MPS / R_T: rolling without slip */

/* A wheel rolling at V_MPS with no force at zero slip velocity, never at
 * its force bound unless fx_max_n says so. */
static pdk_dl_wheel rolling(double fx_max_n)
{
    pdk_dl_wheel w = {
        .spin0_radps = W0_RADPS,
        .inertia_kgm2 = J_W,
        .radius_m = R_T,
        .fx_e_n = 0.0,
        .kx_nspm = K_X,
        .vx_mps = V_MPS,
        .fx_max_n = fx_max_n,
        .coulomb_nm = B_NM,
    };
    return w;
}

static pdk_dl_layout rear_drive(pdk_diff_kind kind)
{
    pdk_dl_layout l = {
        .primary = 1,
        .primary_diff = {.kind = kind, .bias_ratio = 1.0, .preload_nm = 0.0},
        .coupling = PDK_COUPLING_NONE,
        .secondary_diff = {.kind = PDK_DIFF_OPEN, .bias_ratio = 1.0, .preload_nm = 0.0},
        .secondary_k = 1.0,
    };
    return l;
}

static pdk_dl_engine engine_of(double free_radps, double ratio, double efficiency,
                               double cap_fwd_nm, double cap_rev_nm)
{
    pdk_dl_engine e = {
        .free_radps = free_radps,
        .inertia_kgm2 = 0.2,
        .ratio = ratio,
        .efficiency = efficiency,
        .cap_fwd_nm = cap_fwd_nm,
        .cap_rev_nm = cap_rev_nm,
    };
    return e;
}

/* |a - b| <= tol max(1, |b|). */
static void assert_rel(double a, double b, double tol)
{
    ck_assert_double_eq_tol(a, b, tol * fmax(1.0, fabs(b)));
}

/* T(w) = J (w - w0) / h + R clamp(F_e + k (w R - V), -F_max, F_max)
 * + B tanh(w / 0.1), written out per regime; the slope is each term's
 * derivative. */
START_TEST(wheel_torque_in_each_regime)
{
    const pdk_dl_wheel w = {
        .spin0_radps = 33.0,
        .inertia_kgm2 = 1.2,
        .radius_m = 0.3,
        .fx_e_n = 100.0,
        .kx_nspm = 2000.0,
        .vx_mps = 10.0,
        .fx_max_n = 3000.0,
        .coulomb_nm = 50.0,
    };
    double slope;
    /* Linear, far from 0 (tanh(340) is 1): F = 100 + 2000 (10.2 - 10) = 500 N. */
    double t = pdk_dl_wheel_torque(&w, H_S, 34.0, &slope);
    assert_rel(t, 1.2 * 1.0 / H_S + 0.3 * 500.0 + 50.0, 1e-12);
    assert_rel(slope, 1.2 / H_S + 0.3 * 0.3 * 2000.0, 1e-12);
    /* Clamped above: F_lin = 100 + 2000 (12 - 10) = 4100 > 3000. */
    t = pdk_dl_wheel_torque(&w, H_S, 40.0, &slope);
    assert_rel(t, 1.2 * 7.0 / H_S + 0.3 * 3000.0 + 50.0, 1e-12);
    assert_rel(slope, 1.2 / H_S, 1e-12);
    /* Clamped below: F_lin = 100 + 2000 (6 - 10) = -7900 < -3000. */
    t = pdk_dl_wheel_torque(&w, H_S, 20.0, &slope);
    assert_rel(t, 1.2 * -13.0 / H_S - 0.3 * 3000.0 + 50.0, 1e-12);
    assert_rel(slope, 1.2 / H_S, 1e-12);
    /* The tanh region (clamped below): tanh(0.5), slope B sech^2(0.5) / 0.1. */
    t = pdk_dl_wheel_torque(&w, H_S, 0.05, &slope);
    const double ch = cosh(0.5);
    assert_rel(t, 1.2 * (0.05 - 33.0) / H_S - 0.3 * 3000.0 + 50.0 * tanh(0.5), 1e-12);
    assert_rel(slope, 1.2 / H_S + 50.0 / (ch * ch) / 0.1, 1e-12);
    /* At rest: no Coulomb torque, its full slope B / 0.1. */
    t = pdk_dl_wheel_torque(&w, H_S, 0.0, &slope);
    assert_rel(t, 1.2 * -33.0 / H_S - 0.3 * 3000.0, 1e-12);
    assert_rel(slope, 1.2 / H_S + 50.0 / 0.1, 1e-12);
    /* Far below 0: the Coulomb torque is exactly -B, its slope 0. */
    t = pdk_dl_wheel_torque(&w, H_S, -1000.0, &slope);
    assert_rel(t, 1.2 * -1033.0 / H_S - 0.3 * 3000.0 - 50.0, 1e-12);
    ck_assert_double_eq(slope, 1.2 / H_S);
    /* A NULL slope is allowed. */
    ck_assert_double_eq(pdk_dl_wheel_torque(&w, H_S, 34.0, NULL),
                        pdk_dl_wheel_torque(&w, H_S, 34.0, &slope));
    /* Rising everywhere, and the slope is the derivative (a central
     * difference, away from the force bound's kinks where F_lin = +-3000 N,
     * w = (10 + (+-3000 - 100) / 2000) / 0.3). */
    const double kink_lo = (10.0 - 3100.0 / 2000.0) / 0.3, kink_hi = (10.0 + 2900.0 / 2000.0) / 0.3;
    double prev = -INFINITY;
    for (int i = -2000; i <= 2000; i++) {
        const double s = 0.025 * i;
        const double ts = pdk_dl_wheel_torque(&w, H_S, s, &slope);
        ck_assert(ts > prev);
        ck_assert(slope > 0.0);
        prev = ts;
        if (fabs(s - kink_lo) > 0.01 && fabs(s - kink_hi) > 0.01) {
            const double e = 1e-6;
            const double fd = (pdk_dl_wheel_torque(&w, H_S, s + e, NULL) -
                               pdk_dl_wheel_torque(&w, H_S, s - e, NULL)) /
                              (2.0 * e);
            ck_assert_double_eq_tol(slope, fd, 1e-4 * slope);
        }
    }
}
END_TEST

/* The locked balance by hand: with tanh at 1 and no force bound, each wheel
 * needs J (c - w0) / h + R k (c R - V) + B, and the holding clutch gives
 * D = R J_e (w_free - R c) / h (eta = 1), so
 *   c (2 J / h + 2 k R^2 + Rg^2 J_e / h)
 *     = Rg J_e w_free / h + 2 J w0 / h + 2 k R V - 2 B. */
START_TEST(locked_clutch_locked_axle_by_hand)
{
    const pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    const pdk_dl_engine e = engine_of(330.0, 10.0, 1.0, 1e4, 1e4);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    const double rg = 10.0, je = 0.2;
    const double c = (rg * je * 330.0 / H_S + 2.0 * J_W * W0_RADPS / H_S + 2.0 * K_X * R_T * V_MPS -
                      2.0 * B_NM) /
                     (2.0 * J_W / H_S + 2.0 * K_X * R_T * R_T + rg * rg * je / H_S);
    assert_rel(out.carrier_radps, c, 1e-9);
    ck_assert_double_eq(out.spin_radps[2], out.carrier_radps);
    ck_assert_double_eq(out.spin_radps[3], out.carrier_radps);
    assert_rel(out.engine_radps, rg * out.carrier_radps, 1e-12);
    ck_assert_int_eq(out.clutch_slips, 0);
    assert_rel(out.clutch_nm, je * (330.0 - rg * c) / H_S, 1e-9);
    ck_assert(out.clutch_nm > 0.0);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
    ck_assert_uint_eq(out.driven, 0xCu);
    ck_assert_double_eq(out.spin_radps[0], 0.0);
    ck_assert_double_eq(out.shaft_nm[1], 0.0);
    ck_assert_int_lt(out.evaluations, 20);
}
END_TEST

/* A clutch at its forward capacity C: T_c = C, D = Rg eta C, the engine
 * slows by h C / J_e, and the wheels share D:
 *   c (2 J / h + 2 k R^2) = Rg eta C + 2 J w0 / h + 2 k R V - 2 B. */
START_TEST(slipping_clutch_delivers_its_capacity)
{
    const pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    const pdk_dl_engine e = engine_of(400.0, 10.0, 0.9, 5.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_double_eq(out.clutch_nm, 5.0);
    ck_assert_int_eq(out.clutch_slips, 1);
    assert_rel(out.delivered_nm, 10.0 * 0.9 * 5.0, 1e-12);
    assert_rel(out.engine_radps, 400.0 - H_S * 5.0 / 0.2, 1e-12);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
    const double c =
        (10.0 * 0.9 * 5.0 + 2.0 * J_W * W0_RADPS / H_S + 2.0 * K_X * R_T * V_MPS - 2.0 * B_NM) /
        (2.0 * J_W / H_S + 2.0 * K_X * R_T * R_T);
    assert_rel(out.carrier_radps, c, 1e-9);
}
END_TEST

/* A torque converter (stall ratio 2, coupling 0.85) slipping at the pump's
 * torque C: the carrier gets R eta C TR with TR = 2 - SR / 0.85, SR =
 * R c / w_e, w_e = w_free - h C / J_e. With the wheels linear, c solves
 *   c (2 J / h + 2 k R^2 + R eta C R / (0.85 w_e))
 *     = 2 R eta C + 2 J w0 / h + 2 k R V - 2 B
 * (SR about 0.75 here, inside the converter's range); TR is reported. A
 * ratio of 1, or none, is the plain clutch of the test above. */
START_TEST(torque_converter_multiplies_by_hand)
{
    const pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    pdk_dl_engine e = engine_of(400.0, 10.0, 0.9, 5.0, 60.0);
    e.converter_stall_ratio = 2.0;
    e.converter_coupling = 0.85;
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    const double we = 400.0 - H_S * 5.0 / 0.2;
    const double rec = 10.0 * 0.9 * 5.0;
    const double c =
        (2.0 * rec + 2.0 * J_W * W0_RADPS / H_S + 2.0 * K_X * R_T * V_MPS - 2.0 * B_NM) /
        (2.0 * J_W / H_S + 2.0 * K_X * R_T * R_T + rec * 10.0 / (0.85 * we));
    const double sr = 10.0 * c / we;
    ck_assert_double_lt(sr, 0.85);
    assert_rel(out.carrier_radps, c, 1e-9);
    assert_rel(out.torque_ratio, 2.0 - sr / 0.85, 1e-9);
    assert_rel(out.delivered_nm, rec * (2.0 - sr / 0.85), 1e-9);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
    e.converter_stall_ratio = 1.0;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    assert_rel(out.delivered_nm, rec, 1e-12);
    ck_assert_double_eq(out.torque_ratio, 1.0);
}
END_TEST

/* A full-time AWD's open centre differential: each axle locked, the front
 * tyres on ice (a tenth of the rear's slope), the clutch slipping so the
 * carrier gets D = R eta C. Each side's torque is linear in its speed,
 * A(w) = a w + b with a = 2 (J / h + k R^2), b = 2 (B - J w0 / h - k R V),
 * and an open centre gives each side D / 2: the rear carrier at
 * (D / 2 - b_r) / a_r, the front at (D / 2 - b_f) / a_f, the output c their
 * mean. A locked centre turns both at c; an LSD of bias ratio 3 lets the
 * rear take three times the front's torque at most. */
START_TEST(centre_diff_splits_by_hand)
{
    pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    const double k_front = 0.1 * K_X;
    wheels[0].kx_nspm = k_front;
    wheels[1].kx_nspm = k_front;
    pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    layout.coupling = PDK_COUPLING_CENTRE;
    layout.secondary_diff.kind = PDK_DIFF_LOCKED;
    layout.centre_diff = (pdk_dl_diff){.kind = PDK_DIFF_OPEN, .bias_ratio = 1.0};
    const pdk_dl_engine e = engine_of(400.0, 10.0, 0.9, 20.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    const double d = 10.0 * 0.9 * 20.0;
    const double a_r = 2.0 * (J_W / H_S + K_X * R_T * R_T);
    const double b_r = 2.0 * (B_NM - J_W * W0_RADPS / H_S - K_X * R_T * V_MPS);
    const double a_f = 2.0 * (J_W / H_S + k_front * R_T * R_T);
    const double b_f = 2.0 * (B_NM - J_W * W0_RADPS / H_S - k_front * R_T * V_MPS);
    const double w_r = (0.5 * d - b_r) / a_r, w_f = (0.5 * d - b_f) / a_f;
    ck_assert_int_eq(out.clutch_slips, 1);
    ck_assert_uint_eq(out.driven, 0xFu);
    assert_rel(out.spin_radps[2], w_r, 1e-9);
    assert_rel(out.spin_radps[0], w_f, 1e-9);
    assert_rel(out.carrier_radps, 0.5 * (w_r + w_f), 1e-9);
    assert_rel(out.shaft_nm[0] + out.shaft_nm[1], 0.5 * d, 1e-9);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], 0.5 * d, 1e-9);
    ck_assert_double_gt(out.spin_radps[0], out.spin_radps[2]); /* the icy front runs ahead */

    layout.centre_diff.kind = PDK_DIFF_LOCKED;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_double_eq(out.spin_radps[0], out.spin_radps[2]);
    assert_rel(out.shaft_nm[0] + out.shaft_nm[1] + out.shaft_nm[2] + out.shaft_nm[3], d, 1e-9);

    layout.centre_diff = (pdk_dl_diff){.kind = PDK_DIFF_LSD, .bias_ratio = 3.0};
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    const double t_f = out.shaft_nm[0] + out.shaft_nm[1], t_r = out.shaft_nm[2] + out.shaft_nm[3];
    assert_rel(t_f + t_r, d, 1e-9);
    if (out.spin_radps[0] != out.spin_radps[2]) {
        assert_rel(t_r / t_f, 3.0, 1e-9);
    } else {
        ck_assert_double_le(t_r / t_f, 3.0 + 1e-9);
    }
}
END_TEST

/* The wheels drive the engine (w_free below Rg c): the carrier gets
 * Rg T_c / eta, with T_c < 0. Holding:
 *   c (2 J / h + 2 k R^2 + Rg^2 J_e / (eta h))
 *     = Rg J_e w_free / (eta h) + 2 J w0 / h + 2 k R V - 2 B;
 * at the reverse capacity C_rev: D = -Rg C_rev / eta. */
START_TEST(efficiency_in_each_direction)
{
    const pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    const double rg = 10.0, je = 0.2, eta = 0.8;
    pdk_dl_engine e = engine_of(250.0, rg, eta, 150.0, 1e4);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert(out.clutch_nm < 0.0);
    ck_assert_int_eq(out.clutch_slips, 0);
    assert_rel(out.delivered_nm, rg * out.clutch_nm / eta, 1e-12);
    const double c = (rg * je * 250.0 / (eta * H_S) + 2.0 * J_W * W0_RADPS / H_S +
                      2.0 * K_X * R_T * V_MPS - 2.0 * B_NM) /
                     (2.0 * J_W / H_S + 2.0 * K_X * R_T * R_T + rg * rg * je / (eta * H_S));
    assert_rel(out.carrier_radps, c, 1e-9);
    assert_rel(out.engine_radps, rg * out.carrier_radps, 1e-12);
    /* The engine brake at its capacity. */
    e.cap_rev_nm = 20.0;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_double_eq(out.clutch_nm, -20.0);
    ck_assert_int_eq(out.clutch_slips, 1);
    assert_rel(out.delivered_nm, -rg * 20.0 / eta, 1e-12);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
}
END_TEST

/* An open diff with the left wheel on ice (F_max 5 N): the torques are
 * equal, T = D / 2 each; the icy wheel, at its bound, spins to
 * w0 + h (T - R F_max - B) / J, the gripping one to
 * (T - B + J w0 / h + R k V) / (J / h + k R^2), and their mean is c. */
START_TEST(open_diff_splits_equally)
{
    const pdk_dl_wheel wheels[4] = {rolling(4000.0), rolling(4000.0), rolling(5.0),
                                    rolling(4000.0)};
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_OPEN);
    const pdk_dl_engine e = engine_of(340.0, 10.0, 0.9, 200.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    assert_rel(out.shaft_nm[2], out.shaft_nm[3], 1e-9);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
    ck_assert(out.delivered_nm > 100.0);
    ck_assert(out.spin_radps[2] > out.spin_radps[3]);
    assert_rel(0.5 * (out.spin_radps[2] + out.spin_radps[3]), out.carrier_radps, 1e-12);
    const double t = 0.5 * out.delivered_nm;
    assert_rel(out.spin_radps[2], W0_RADPS + H_S * (t - R_T * 5.0 - B_NM) / J_W, 1e-9);
    assert_rel(out.spin_radps[3],
               (t - B_NM + J_W * W0_RADPS / H_S + R_T * K_X * V_MPS) /
                   (J_W / H_S + K_X * R_T * R_T),
               1e-9);
}
END_TEST

/* A limited slip diff with TBR 3: on a split surface (the left on ice, the
 * right on a stiff tyre, light wheels so that the tyres' torques outweigh
 * the wheels' inertia over the substep) it slips at T_hi = 3 T_lo, the
 * larger torque on the slower wheel; with preload P,
 * T_hi - T_lo = (T_hi + T_lo) / 2 + P, pdk_dl_diff_hold_nm's (an open diff
 * holds nothing, a locked one anything). With grip on both sides and only a
 * cornering difference (contact speeds 8.8 and 9.2 m/s) it holds: both
 * wheels at c, the inner wheel (its contact slower, so its tyre is driven
 * harder at the same spin) taking more torque, less than 3 times as much;
 * an open diff in the same case lets the inner wheel turn slower. */
START_TEST(lsd_bias_ratio_and_hold)
{
    pdk_dl_wheel split[4] = {rolling(4000.0), rolling(4000.0), rolling(5.0), rolling(4000.0)};
    for (int j = 2; j < 4; j++) {
        split[j].inertia_kgm2 = 0.3;
        split[j].kx_nspm = 20000.0;
    }
    pdk_dl_layout layout = rear_drive(PDK_DIFF_LSD);
    layout.primary_diff.bias_ratio = 3.0;
    const pdk_dl_engine e = engine_of(340.0, 10.0, 0.9, 200.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, split, H_S, &out);
    ck_assert(out.spin_radps[2] > out.spin_radps[3]);
    assert_rel(out.shaft_nm[3], 3.0 * out.shaft_nm[2], 1e-9);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);
    assert_rel(0.5 * (out.spin_radps[2] + out.spin_radps[3]), out.carrier_radps, 1e-12);

    layout.primary_diff.preload_nm = 40.0;
    pdk_dl_solve(&layout, &e, split, H_S, &out);
    const double lo = out.shaft_nm[2], hi = out.shaft_nm[3];
    ck_assert(out.spin_radps[2] > out.spin_radps[3]);
    assert_rel(hi - lo, 0.5 * (hi + lo) + 40.0, 1e-9);
    /* The hold the solve slipped at is the one the definition states
     * (what the validation's references split a turning axle by). */
    assert_rel(hi - lo, pdk_dl_diff_hold_nm(&layout.primary_diff, hi + lo), 1e-9);
    assert_rel(pdk_dl_diff_hold_nm(&layout.primary_diff, -300.0), 0.5 * 300.0 + 40.0, 1e-15);
    const pdk_dl_diff open = {PDK_DIFF_OPEN, 3.0, 40.0}, spool = {PDK_DIFF_LOCKED, 1.0, 0.0};
    ck_assert_double_eq(pdk_dl_diff_hold_nm(&open, 300.0), 0.0);
    ck_assert(isinf(pdk_dl_diff_hold_nm(&spool, 300.0)));

    pdk_dl_wheel corner[4] = {rolling(4000.0), rolling(4000.0), rolling(4000.0), rolling(4000.0)};
    corner[2].vx_mps = 8.8;
    corner[3].vx_mps = 9.2;
    layout.primary_diff.preload_nm = 0.0;
    pdk_dl_solve(&layout, &e, corner, H_S, &out);
    ck_assert_double_eq(out.spin_radps[2], out.carrier_radps);
    ck_assert_double_eq(out.spin_radps[3], out.carrier_radps);
    ck_assert(out.shaft_nm[2] > out.shaft_nm[3] && out.shaft_nm[3] > 0.0);
    ck_assert(out.shaft_nm[2] < 3.0 * out.shaft_nm[3]);
    layout.primary_diff.kind = PDK_DIFF_OPEN;
    pdk_dl_solve(&layout, &e, corner, H_S, &out);
    ck_assert(out.spin_radps[2] < out.spin_radps[3]);
    assert_rel(out.shaft_nm[2], out.shaft_nm[3], 1e-9);
}
END_TEST

/* Neutral: nothing reaches the carrier. A locked axle holds its wheels
 * together, so T_L(c) + T_R(c) = 0:
 *   c (2 J / h + 2 k R^2) = 2 J w0 / h + k R (V_L + V_R) - 2 B,
 * and T_L = -T_R. Behind an open diff each wheel turns free, T_j = 0:
 *   w_j = (J w0 / h + k R V_j - B) / (J / h + k R^2).
 * No clutch capacity at all is the same as neutral. */
START_TEST(neutral_passes_no_torque)
{
    pdk_dl_wheel wheels[4] = {rolling(4000.0), rolling(4000.0), rolling(4000.0), rolling(4000.0)};
    wheels[2].vx_mps = 8.8;
    wheels[3].vx_mps = 9.2;
    pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    pdk_dl_engine e = engine_of(150.0, 0.0, 0.9, 150.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    const double scale = J_W / H_S * W0_RADPS;
    const double c = (2.0 * J_W * W0_RADPS / H_S + K_X * R_T * (8.8 + 9.2) - 2.0 * B_NM) /
                     (2.0 * J_W / H_S + 2.0 * K_X * R_T * R_T);
    assert_rel(out.carrier_radps, c, 1e-9);
    ck_assert_double_eq_tol(out.shaft_nm[2] + out.shaft_nm[3], 0.0, 1e-9 * scale);
    /* The wheel on the slower contact (8.8 m/s) turns faster than it
     * rolls, so the axle drives it forward and holds the other back. */
    ck_assert(out.shaft_nm[2] > 10.0);
    ck_assert_double_eq(out.clutch_nm, 0.0);
    ck_assert_double_eq(out.delivered_nm, 0.0);
    ck_assert_double_eq(out.engine_radps, 150.0);
    ck_assert_int_eq(out.clutch_slips, 1);

    layout.primary_diff.kind = PDK_DIFF_OPEN;
    for (int cap = 0; cap < 2; cap++) {
        if (cap == 1) { /* in gear with no capacity either way */
            e.ratio = 10.0;
            e.cap_fwd_nm = 0.0;
            e.cap_rev_nm = 0.0;
        }
        pdk_dl_solve(&layout, &e, wheels, H_S, &out);
        ck_assert_double_eq_tol(out.shaft_nm[2], 0.0, 1e-9 * scale);
        ck_assert_double_eq_tol(out.shaft_nm[3], 0.0, 1e-9 * scale);
        for (int j = 2; j < 4; j++) {
            const double w = (J_W * W0_RADPS / H_S + K_X * R_T * wheels[j].vx_mps - B_NM) /
                             (J_W / H_S + K_X * R_T * R_T);
            assert_rel(out.spin_radps[j], w, 1e-9);
        }
        ck_assert_double_eq(out.delivered_nm, 0.0);
    }
}
END_TEST

/* The UTV in AWD (docs/powertrain.md): a locked rear axle and an overrunning
 * clutch per front wheel, the front ring at K = 1 / 1.075 of the carrier.
 * Rolling without slip, the ring turns 7.5 % slower than the front wheels,
 * which would need a braking torque to follow it: not driven. With the rear on
 * ice and the engine at full capacity the rear spins up more than 7.5 %: the
 * ring outruns the front wheels, which turn at exactly K c and take positive
 * torque, and T_RL + T_RR + K (T_FL + T_FR) = D. Locked both ways, the fronts
 * are coupled even while overrun (a negative torque). */
START_TEST(overrunning_front_engages_on_rear_slip)
{
    const double k = 1.0 / 1.075;
    pdk_dl_wheel wheels[4] = {rolling(4000.0), rolling(4000.0), rolling(4000.0), rolling(4000.0)};
    pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    layout.coupling = PDK_COUPLING_OVERRUN;
    layout.secondary_k = k;
    pdk_dl_engine e = engine_of(305.0, 10.0, 0.9, 150.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_uint_eq(out.driven, 0xCu);
    ck_assert_double_eq(out.spin_radps[0], 0.0);
    ck_assert_double_eq(out.shaft_nm[1], 0.0);
    ck_assert(k * out.carrier_radps < W0_RADPS);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3], out.delivered_nm, 1e-9);

    wheels[2].fx_max_n = 5.0;
    wheels[3].fx_max_n = 5.0;
    e.free_radps = 700.0;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_uint_eq(out.driven, 0xFu);
    ck_assert(out.carrier_radps * R_T > 1.075 * V_MPS);
    ck_assert_double_eq(out.spin_radps[0], k * out.carrier_radps);
    ck_assert_double_eq(out.spin_radps[1], k * out.carrier_radps);
    ck_assert(out.shaft_nm[0] > 0.0 && out.shaft_nm[1] > 0.0);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3] + k * (out.shaft_nm[0] + out.shaft_nm[1]),
               out.delivered_nm, 1e-9);

    wheels[2].fx_max_n = 4000.0;
    wheels[3].fx_max_n = 4000.0;
    e.free_radps = 305.0;
    layout.coupling = PDK_COUPLING_BOTH;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_uint_eq(out.driven, 0xFu);
    ck_assert_double_eq(out.spin_radps[0], k * out.carrier_radps);
    ck_assert(out.shaft_nm[0] < 0.0 && out.shaft_nm[1] < 0.0);
    assert_rel(out.shaft_nm[2] + out.shaft_nm[3] + k * (out.shaft_nm[0] + out.shaft_nm[1]),
               out.delivered_nm, 1e-9);
}
END_TEST

/* Reverse from rest: Rg = -10, the engine revving drives the clutch at
 * its capacity C, D = Rg eta C < 0, and each rear wheel (tanh at -1)
 * needs J c / h + k R^2 c - B = D / 2, so c = (D / 2 + B) / (J / h + k R^2). */
START_TEST(reverse_turns_the_wheels_backward)
{
    pdk_dl_wheel wheels[4];
    for (int j = 0; j < 4; j++) {
        wheels[j] = rolling(4000.0);
        wheels[j].spin0_radps = 0.0;
        wheels[j].vx_mps = 0.0;
    }
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_LOCKED);
    const pdk_dl_engine e = engine_of(200.0, -10.0, 0.9, 150.0, 60.0);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert(out.carrier_radps < 0.0);
    ck_assert(out.shaft_nm[2] < 0.0 && out.shaft_nm[3] < 0.0);
    ck_assert_double_eq(out.clutch_nm, 150.0);
    assert_rel(out.delivered_nm, -10.0 * 0.9 * 150.0, 1e-12);
    assert_rel(out.carrier_radps,
               (0.5 * -10.0 * 0.9 * 150.0 + B_NM) / (J_W / H_S + K_X * R_T * R_T), 1e-9);
    ck_assert(out.engine_radps > 0.0);
}
END_TEST

/* D(T_c), as the Polaris model defines it. */
static double delivered_of(const pdk_dl_engine *e, double clutch_nm)
{
    return clutch_nm >= 0.0 ? e->ratio * e->efficiency * clutch_nm
                            : e->ratio * clutch_nm / e->efficiency;
}

/* Checks a result against the equations it must satisfy, from the
 * public wheel law alone. */
static void assert_solves_itself(const pdk_dl_layout *layout, const pdk_dl_engine *e,
                                 const pdk_dl_wheel wheels[4], const pdk_dl_result *out)
{
    const double c = out->carrier_radps;
    const double k = layout->secondary_k;
    const int p = 2 * layout->primary, s = 2 - p;
    /* The balance is linear in c piece by piece (away from the Coulomb
     * torques' 0.1 rad/s), so Newton on its true slope lands on the root
     * within a few evaluations; bisection alone would need about 50, and a
     * wrong slope (a diff's or a coupling's) about twice as many as here. */
    ck_assert_int_ge(out->evaluations, 1);
    ck_assert_int_lt(out->evaluations, 16);
    double need = 0.0, scale = 1.0 + fabs(out->delivered_nm);
    for (int j = 0; j < 4; j++) {
        const bool driven = (out->driven >> j) & 1u;
        const double kj = j == p || j == p + 1 ? 1.0 : k;
        if (!driven) {
            ck_assert_double_eq(out->spin_radps[j], 0.0);
            ck_assert_double_eq(out->shaft_nm[j], 0.0);
            continue;
        }
        const double t = pdk_dl_wheel_torque(&wheels[j], H_S, out->spin_radps[j], NULL);
        ck_assert_double_eq_tol(out->shaft_nm[j], t, 1e-12 * (1.0 + fabs(t)));
        need += kj * out->shaft_nm[j];
        scale += kj * wheels[j].inertia_kgm2 / H_S *
                 (fabs(out->spin_radps[j]) + fabs(wheels[j].spin0_radps));
    }
    /* The primary axle: both driven, about c, within its diff's law. */
    ck_assert_uint_eq((out->driven >> p) & 3u, 3u);
    assert_rel(0.5 * (out->spin_radps[p] + out->spin_radps[p + 1]), c, 1e-12);
    const double tl = out->shaft_nm[p], tr = out->shaft_nm[p + 1];
    const pdk_dl_diff *d = &layout->primary_diff;
    if (d->kind == PDK_DIFF_LOCKED) {
        ck_assert_double_eq(out->spin_radps[p], c);
    } else {
        const double kb =
            d->kind == PDK_DIFF_LSD ? (d->bias_ratio - 1.0) / (d->bias_ratio + 1.0) : 0.0;
        const double pre = d->kind == PDK_DIFF_LSD ? d->preload_nm : 0.0;
        const double allowed = kb * fabs(tl + tr) + pre;
        ck_assert(fabs(tl - tr) <= allowed + 1e-9 * scale);
        if (out->spin_radps[p] != out->spin_radps[p + 1]) {
            ck_assert_double_eq_tol(fabs(tl - tr), allowed, 1e-9 * scale);
            /* the faster wheel takes the smaller torque (an open diff's
             * are equal, to rounding) */
            if (allowed > 1e-9 * scale) {
                ck_assert((out->spin_radps[p] > out->spin_radps[p + 1]) == (tl < tr));
            }
        }
    }
    /* The secondary axle, by its coupling. */
    const uint32_t sec = (out->driven >> s) & 3u;
    switch (layout->coupling) {
    case PDK_COUPLING_NONE:
        ck_assert_uint_eq(sec, 0u);
        break;
    case PDK_COUPLING_LOCKED:
        ck_assert_uint_eq(sec, 3u);
        assert_rel(0.5 * (out->spin_radps[s] + out->spin_radps[s + 1]), k * c, 1e-12);
        break;
    case PDK_COUPLING_CENTRE: /* not in the sweep: centre_diff_splits_by_hand */
        ck_assert_uint_eq(sec, 3u);
        break;
    case PDK_COUPLING_OVERRUN:
    case PDK_COUPLING_BOTH:
        /* Each clutch locks while its wheel needs torque in the ring's
         * direction to turn at K c (both ways: always); a driven wheel
         * turns with the ring. */
        for (int j = s; j < s + 2; j++) {
            const double t = pdk_dl_wheel_torque(&wheels[j], H_S, k * c, NULL);
            const bool locks =
                layout->coupling == PDK_COUPLING_BOTH || (c > 0.0 ? t > 0.0 : t < 0.0);
            ck_assert_uint_eq((out->driven >> j) & 1u, locks ? 1u : 0u);
            if (locks) {
                ck_assert_double_eq(out->spin_radps[j], k * c);
            }
        }
        break;
    }
    /* The balance and the clutch. */
    ck_assert_double_eq_tol(need, out->delivered_nm, 1e-9 * scale);
    if (e->ratio == 0.0) {
        ck_assert_double_eq(out->clutch_nm, 0.0);
        ck_assert_double_eq(out->delivered_nm, 0.0);
        ck_assert_double_eq(out->engine_radps, fmax(0.0, e->free_radps));
        return;
    }
    const double hold = e->inertia_kgm2 * (e->free_radps - e->ratio * c) / H_S;
    ck_assert(out->clutch_nm >= -e->cap_rev_nm && out->clutch_nm <= e->cap_fwd_nm);
    assert_rel(out->delivered_nm, delivered_of(e, out->clutch_nm), 1e-12);
    assert_rel(out->engine_radps, fmax(0.0, e->free_radps - H_S * out->clutch_nm / e->inertia_kgm2),
               1e-12);
    if (out->clutch_slips) {
        ck_assert(out->clutch_nm == e->cap_fwd_nm || out->clutch_nm == -e->cap_rev_nm);
        ck_assert(hold >= e->cap_fwd_nm - 1e-9 * scale || hold <= -e->cap_rev_nm + 1e-9 * scale);
    } else {
        assert_rel(out->clutch_nm, hold, 1e-9);
        assert_rel(out->engine_radps, e->ratio * c, 1e-9);
    }
}

/* Newton on the balance's true slope: with every law on one linear piece
 * (wheels turning, tyres inside their bound, the clutch holding) a
 * cornering open diff's solve takes two evaluations of the balance: the
 * first estimate and one Newton step, which lands on the root to within
 * its tolerance, ends the search there and gives the result its outputs.
 * The balance is met to within that step. */
START_TEST(newton_lands_on_a_linear_piece)
{
    pdk_dl_wheel wheels[4] = {rolling(1e6), rolling(1e6), rolling(1e6), rolling(1e6)};
    wheels[2].vx_mps = 8.8;
    wheels[3].vx_mps = 9.2;
    const pdk_dl_layout layout = rear_drive(PDK_DIFF_OPEN);
    const pdk_dl_engine e = engine_of(330.0, 10.0, 0.9, 1e4, 1e4);
    pdk_dl_result out;
    pdk_dl_solve(&layout, &e, wheels, H_S, &out);
    ck_assert_int_eq(out.clutch_slips, 0);
    ck_assert(out.spin_radps[2] < out.spin_radps[3]); /* the inner wheel (slower contact) */
    ck_assert_int_eq(out.evaluations, 2);
    assert_rel(out.shaft_nm[2], out.shaft_nm[3], 1e-12);
    const double residual = out.shaft_nm[2] + out.shaft_nm[3] - out.delivered_nm;
    ck_assert_double_le(fabs(residual), 1e-9 * fabs(out.delivered_nm));
    assert_solves_itself(&layout, &e, wheels, &out);
}
END_TEST

/* A fixed sweep: both primary axles, the three diffs, the four couplings,
 * and five engine cases (driving at capacity, holding, neutral, reverse
 * gear while rolling forward, engine braking), on wheels whose grip,
 * contact speed and spin vary from case to case. */
START_TEST(results_solve_their_own_equations)
{
    const pdk_diff_kind kinds[3] = {PDK_DIFF_OPEN, PDK_DIFF_LOCKED, PDK_DIFF_LSD};
    const pdk_dl_coupling couplings[4] = {PDK_COUPLING_NONE, PDK_COUPLING_LOCKED,
                                          PDK_COUPLING_OVERRUN, PDK_COUPLING_BOTH};
    const pdk_dl_engine engines[5] = {
        engine_of(700.0, 10.0, 0.85, 150.0, 60.0), engine_of(310.0, 10.0, 0.85, 150.0, 60.0),
        engine_of(150.0, 0.0, 0.85, 150.0, 60.0),  engine_of(300.0, -12.0, 0.85, 150.0, 60.0),
        engine_of(200.0, 10.0, 0.85, 150.0, 60.0),
    };
    const double fx_max[4] = {4000.0, 250.0, 4000.0, 20.0};
    int count = 0;
    for (int primary = 0; primary < 2; primary++) {
        for (int di = 0; di < 3; di++) {
            for (int ci = 0; ci < 4; ci++) {
                for (int ei = 0; ei < 5; ei++) {
                    pdk_dl_wheel wheels[4];
                    for (int j = 0; j < 4; j++) {
                        const int v = count + 3 * j;
                        wheels[j] = rolling(fx_max[v % 4]);
                        wheels[j].vx_mps = V_MPS + 0.3 * (double)((v % 5) - 2);
                        wheels[j].spin0_radps = W0_RADPS + 0.7 * (double)((v % 3) - 1);
                        wheels[j].fx_e_n = 40.0 * (double)((v % 7) - 3);
                        wheels[j].inertia_kgm2 = J_W * (1.0 + 0.25 * (double)(v % 2));
                    }
                    pdk_dl_layout layout = rear_drive(kinds[di]);
                    layout.primary = primary;
                    layout.primary_diff.bias_ratio = 2.5;
                    layout.primary_diff.preload_nm = 30.0;
                    layout.coupling = couplings[ci];
                    layout.secondary_diff.kind = count % 2 ? PDK_DIFF_OPEN : PDK_DIFF_LSD;
                    layout.secondary_diff.bias_ratio = 2.0;
                    layout.secondary_k = ci == 1 ? 0.97 : 1.0 / 1.075;
                    pdk_dl_result out;
                    pdk_dl_solve(&layout, &engines[ei], wheels, H_S, &out);
                    assert_solves_itself(&layout, &engines[ei], wheels, &out);
                    count++;
                }
            }
        }
    }
    ck_assert_int_eq(count, 120);
}
END_TEST

/* A deterministic stream for random problems (xorshift64*). */
static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * UINT64_C(2685821657736338717);
    return lo + (hi - lo) * (double)(r >> 11) * 0x1p-53;
}

/* A spin from every regime of the wheel's torque law: -0 and 0, inside
 * the Coulomb smoothing (|w| < 2 rad/s), at its edge, and rolling either
 * way. */
static double any_spin(void)
{
    switch ((int)uniform(0.0, 6.0)) {
    case 0:
        return uniform(0.0, 1.0) < 0.5 ? -0.0 : 0.0;
    case 1:
        return uniform(-2.0, 2.0);
    case 2:
        return uniform(-2.0000001, 2.0000001) < 0.0 ? -2.000000001 : 2.000000002;
    default:
        return uniform(-150.0, 150.0);
    }
}

/* A random problem that pdk_dl_lanes_take takes: one driven axle, any
 * differential, any engine side (neutral, a clutch with no capacity, a
 * torque converter, reverse). */
static void any_problem(pdk_dl_layout *l, pdk_dl_engine *e, pdk_dl_wheel w[4], double *h_s)
{
    const pdk_diff_kind kinds[3] = {PDK_DIFF_OPEN, PDK_DIFF_LOCKED, PDK_DIFF_LSD};
    *l = rear_drive(kinds[(int)uniform(0.0, 3.0)]);
    l->primary = uniform(0.0, 1.0) < 0.5 ? 0 : 1;
    l->primary_diff.bias_ratio = uniform(1.0, 4.0);
    l->primary_diff.preload_nm = uniform(0.0, 1.0) < 0.5 ? 0.0 : uniform(0.0, 200.0);
    const double common = any_spin();
    for (int j = 0; j < 4; j++) {
        const bool same = uniform(0.0, 1.0) < 0.2; /* both wheels alike: no slip */
        w[j] = (pdk_dl_wheel){
            .spin0_radps = same ? common : any_spin(),
            .inertia_kgm2 = uniform(0.5, 3.0),
            .radius_m = uniform(0.25, 0.4),
            .fx_e_n = uniform(-3000.0, 3000.0),
            .kx_nspm = uniform(0.0, 1.0) < 0.1 ? 0.0 : uniform(100.0, 60000.0),
            .vx_mps = uniform(-40.0, 40.0),
            .fx_max_n = uniform(0.0, 1.0) < 0.1 ? 0.0 : uniform(10.0, 9000.0),
            .coulomb_nm = uniform(0.0, 1.0) < 0.2 ? 0.0 : uniform(0.0, 2500.0),
        };
    }
    const double ratios[4] = {0.0, uniform(1.0, 20.0), -uniform(1.0, 20.0), uniform(2.0, 4.0)};
    const double cap = uniform(0.0, 1.0) < 0.1 ? 0.0 : uniform(1.0, 800.0);
    *e = (pdk_dl_engine){
        .free_radps = uniform(0.0, 1.0) < 0.1 ? 0.0 : uniform(0.0, 700.0),
        .inertia_kgm2 = uniform(0.1, 0.4),
        .ratio = ratios[(int)uniform(0.0, 4.0)],
        .efficiency = uniform(0.05, 1.0),
        .cap_fwd_nm = cap,
        .cap_rev_nm = uniform(0.0, 1.0) < 0.5 ? cap : 0.4 * cap,
        .converter_stall_ratio = uniform(0.0, 1.0) < 0.5 ? 0.0 : uniform(1.0, 2.5),
        .converter_coupling = uniform(0.8, 0.95),
    };
    const double steps[3] = {1.0 / 240.0, 1.0 / 480.0, H_S};
    *h_s = steps[(int)uniform(0.0, 3.0)];
}

static void assert_same_bits(double a, double b, const char *what, int problem)
{
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "problem %d: %s %.17g in lanes, %.17g alone",
                  problem, what, a, b);
}

/* driveline_lanes.h against pdk_dl_solve: 4,000 random problems, one to
 * four a call, every output the same bits (the four-wheel step's golden
 * hashes check the builds of it that the step compiles). */
START_TEST(lanes_solve_as_the_scalar_solve)
{
    int problem = 0;
    while (problem < 4000) {
        const int n = 1 + problem % 4;
        pdk_dl_layout layouts[4];
        pdk_dl_engine engines[4];
        pdk_dl_wheel wheels[4][4];
        double h_s[4];
        pdk_dl_result lanes[4];
        const pdk_dl_layout *lp[4];
        const pdk_dl_engine *ep[4];
        const pdk_dl_wheel *wp[4];
        pdk_dl_result *out[4];
        for (int i = 0; i < n; i++) {
            any_problem(&layouts[i], &engines[i], wheels[i], &h_s[i]);
            ck_assert(pdk_dl_lanes_take(&layouts[i]));
            lp[i] = &layouts[i];
            ep[i] = &engines[i];
            wp[i] = wheels[i];
            out[i] = &lanes[i];
        }
        pdk_dl_solve4(lp, ep, wp, h_s, n, out);
        for (int i = 0; i < n; i++, problem++) {
            pdk_dl_result alone;
            pdk_dl_solve(&layouts[i], &engines[i], wheels[i], h_s[i], &alone);
            const pdk_dl_result *r = &lanes[i];
            assert_same_bits(r->carrier_radps, alone.carrier_radps, "carrier", problem);
            for (int j = 0; j < 4; j++) {
                assert_same_bits(r->spin_radps[j], alone.spin_radps[j], "spin", problem);
                assert_same_bits(r->shaft_nm[j], alone.shaft_nm[j], "shaft", problem);
            }
            assert_same_bits(r->clutch_nm, alone.clutch_nm, "clutch", problem);
            assert_same_bits(r->delivered_nm, alone.delivered_nm, "delivered", problem);
            assert_same_bits(r->torque_ratio, alone.torque_ratio, "torque ratio", problem);
            assert_same_bits(r->engine_radps, alone.engine_radps, "engine", problem);
            ck_assert_uint_eq(r->driven, alone.driven);
            ck_assert_int_eq(r->clutch_slips, alone.clutch_slips);
            ck_assert_int_eq(r->evaluations, alone.evaluations);
        }
    }
    /* Other layouts are the scalar solve's alone. */
    pdk_dl_layout coupled = rear_drive(PDK_DIFF_OPEN);
    coupled.coupling = PDK_COUPLING_LOCKED;
    ck_assert(!pdk_dl_lanes_take(&coupled));
}
END_TEST

static Suite *driveline_suite(void)
{
    Suite *s = suite_create("driveline");
    TCase *tc = tcase_create("driveline");
    tcase_add_test(tc, wheel_torque_in_each_regime);
    tcase_add_test(tc, locked_clutch_locked_axle_by_hand);
    tcase_add_test(tc, slipping_clutch_delivers_its_capacity);
    tcase_add_test(tc, torque_converter_multiplies_by_hand);
    tcase_add_test(tc, centre_diff_splits_by_hand);
    tcase_add_test(tc, efficiency_in_each_direction);
    tcase_add_test(tc, open_diff_splits_equally);
    tcase_add_test(tc, newton_lands_on_a_linear_piece);
    tcase_add_test(tc, lsd_bias_ratio_and_hold);
    tcase_add_test(tc, neutral_passes_no_torque);
    tcase_add_test(tc, overrunning_front_engages_on_rear_slip);
    tcase_add_test(tc, reverse_turns_the_wheels_backward);
    tcase_add_test(tc, results_solve_their_own_equations);
    tcase_add_test(tc, lanes_solve_as_the_scalar_solve);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(driveline_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
