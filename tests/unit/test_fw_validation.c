/* Physics validation of the four-wheel model (docs/vehicle-model.md) against
 * analytic results, calling pdk_fw_* directly: static corner loads and ride
 * height; ride frequency and damping ratio of a drop; lateral load transfer by
 * moment balance, the roll-centre share and the roll gradient (Milliken and
 * Milliken, Race Car Vehicle Dynamics, ch. 17 and 18; Gillespie, Fundamentals
 * of Vehicle Dynamics, ch. 9 and 10); dive under braking and the
 * anti-dive/anti-lift links; squat and the anti-squat/anti-lift links under
 * drive, forward and in reverse; the single-track model as the limit of a
 * stiff, geometry-free car (Pacejka, Tire and Vehicle Dynamics, ch. 1);
 * substep convergence of a steady state and of a step-steer transient; the
 * energy ledger's balance while each preset slides sideways. The
 * wheels' geometry (Ackermann and toe, kinematic curves, jacking, kerbs, solid
 * axles) is test_fw_geometry.c's.
 *
 * The test car is fw_test_util.h's, built there field by field, so each
 * expectation is a function of numbers these files state. Every tolerance is
 * argued beside its assertion. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "vehicle/four_wheel.h"
#include "params.h"
#include "vehicle/single_track.h"
#include "ground/terrain.h"
#include "sim/vehicle_def.h"

#include "fw_test_util.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

/* ---- the CG's acceleration ----------------------------------------------- */

/* The world-frame acceleration of the CG over the last tick: its component
 * across the velocity (positive to the left, the centripetal acceleration of
 * a left turn) from the turn of the horizontal velocity vector, and along
 * it from the change of speed. Exact kinematics of the state, independent of
 * the AccelX/AccelY channels' convention. */
static double lateral_accel_world(const fw_run *r)
{
    const double *v0 = r->vel_before;
    const double *v1 = r->state.vel_mps;
    double s0 = hypot(v0[0], v0[1]);
    double s1 = hypot(v1[0], v1[1]);
    double turn = asin((v0[0] * v1[1] - v0[1] * v1[0]) / (s0 * s1));
    return 0.5 * (s0 + s1) * turn / r->tick_s;
}

static double longitudinal_accel_world(const fw_run *r)
{
    double s0 = hypot(r->vel_before[0], r->vel_before[1]);
    double s1 = hypot(r->state.vel_mps[0], r->state.vel_mps[1]);
    return (s1 - s0) / r->tick_s;
}

/* ---- 1. static loads, ride height, ride frequency ------------------------- */

/* At rest every corner carries its static share, m g b / 2L at the front and m
 * g a / 2L at the rear, left equal to right, the four summing to m g; the car
 * sits at cg_height_m with every travel zero whatever its spring rate (the
 * four-wheel model: the static compression is load / rate). Rounding only:
 * 1e-9. */
START_TEST(test_static_loads_and_ride_height)
{
    const double rates[] = {15000.0, 40000.0, 150000.0};
    for (int i = 0; i < 3; i++) {
        pdk_vehicle_def d = test_car();
        for (int axle = 0; axle < 2; axle++) {
            double mc = corner_mass_kg(&d, axle);
            susp(&d, axle)->spring_rate_npm = rates[i];
            susp(&d, axle)->bump_damping_nspm = 0.6 * sqrt(rates[i] * mc);
            susp(&d, axle)->rebound_damping_nspm = 0.6 * sqrt(rates[i] * mc);
        }
        fw_run r;
        run_init(&r, &d, 2, 0.0, PDK_GEAR_PARK);
        run_for(&r, 2.0);
        assert_channels_finite(&r);
        double m = d.chassis.mass_kg;
        double len = d.chassis.wheelbase_m;
        double a = d.chassis.cg_to_front_axle_m;
        double b = len - a;
        double h = d.chassis.cg_height_m;
        ck_assert_double_le(fabs(r.ch[PDK_CH_POS_Z] - h), 1e-9);
        ck_assert_double_le(fabs(r.state.pos_m[2] - h), 1e-9);
        for (int w = 0; w < PDK_WHEELS; w++) {
            ck_assert_double_le(fabs(r.ch[PDK_CH_SUSP_TRAVEL_FL + w]), 1e-9);
        }
        double fl = r.ch[PDK_CH_TYRE_LOAD_FL];
        double fr = r.ch[PDK_CH_TYRE_LOAD_FR];
        double rl = r.ch[PDK_CH_TYRE_LOAD_RL];
        double rr = r.ch[PDK_CH_TYRE_LOAD_RR];
        ck_assert_double_le(rel_err(fl + fr + rl + rr, m * G), 1e-9);
        ck_assert_double_le(rel_err(fl + fr, m * G * b / len), 1e-9);
        ck_assert_double_le(rel_err(rl + rr, m * G * a / len), 1e-9);
        ck_assert_double_le(rel_err(fl, fr), 1e-9);
        ck_assert_double_le(rel_err(rl, rr), 1e-9);
        ck_assert_double_le(rel_err(r.ch[PDK_CH_TYRE_LOAD_F], fl + fr), 1e-12);
        ck_assert_double_le(rel_err(r.ch[PDK_CH_TYRE_LOAD_R], rl + rr), 1e-12);
    }
}
END_TEST

typedef struct decay_fit {
    double f_hz; /* undamped natural frequency */
    double zeta; /* damping ratio */
    int half_cycles;
} decay_fit;

/* Natural frequency and damping ratio of a sampled free decay about zero:
 * the half period from the zero crossings (linear interpolation; a damped
 * oscillation crosses zero exactly every pi / omega_d), the logarithmic
 * decrement from successive extrema (parabolic interpolation of the largest
 * sample between two crossings; successive extrema are pi / omega_d apart
 * and shrink by exp(-zeta omega_n pi / omega_d)). Then
 * zeta = delta / sqrt(pi^2 + delta^2) for the half-cycle decrement delta and
 * omega_n = omega_d / sqrt(1 - zeta^2) (Thomson, Theory of Vibration, ch. 2). */
static decay_fit fit_decay(const double *z, int n, double dt)
{
    double cross[64];
    int nc = 0;
    for (int k = 1; k < n && nc < 64; k++) {
        if ((z[k - 1] > 0.0) != (z[k] > 0.0)) {
            cross[nc++] = dt * ((double)(k - 1) + z[k - 1] / (z[k - 1] - z[k]));
        }
    }
    ck_assert_int_ge(nc, 4);
    double amp[64];
    int na = 0;
    for (int j = 0; j + 1 < nc; j++) {
        int k0 = (int)ceil(cross[j] / dt);
        int k1 = (int)floor(cross[j + 1] / dt);
        int kmax = k0;
        for (int k = k0; k <= k1; k++) {
            if (fabs(z[k]) > fabs(z[kmax])) {
                kmax = k;
            }
        }
        ck_assert_int_gt(kmax, 0);
        ck_assert_int_lt(kmax, n - 1);
        double ym = z[kmax - 1];
        double y0 = z[kmax];
        double yp = z[kmax + 1];
        double peak = y0 - (yp - ym) * (yp - ym) / (8.0 * (yp - 2.0 * y0 + ym));
        if (fabs(peak) < 1e-6) {
            break;
        }
        amp[na++] = fabs(peak);
    }
    ck_assert_int_ge(na, 3);
    double half_period = (cross[na] - cross[0]) / (double)na;
    double delta = log(amp[0] / amp[na - 1]) / (double)(na - 1);
    decay_fit fit;
    fit.zeta = delta / sqrt(PI * PI + delta * delta);
    fit.f_hz = (PI / half_period) / sqrt(1.0 - fit.zeta * fit.zeta) / (2.0 * PI);
    fit.half_cycles = na;
    return fit;
}

/* Releases the car from dz_m of heave above where it rests (below it for
 * a negative dz_m) and fits the free decay of PosZ at substeps per tick.
 * With the corner rates and dampers proportional to the corner masses the
 * heave mode is uncoupled from pitch (k_f a = k_r b) and its frequency and
 * damping ratio are exactly the corner values: sum k = omega^2 m, sum c =
 * 2 zeta omega m. *max_pitch is the largest |Pitch| seen. */
static decay_fit heave_decay(const pdk_vehicle_def *d, double dz_m, int substeps, double *max_pitch)
{
    fw_run r;
    run_init(&r, d, substeps, 0.0, PDK_GEAR_NEUTRAL);
    /* The decay is fitted about where the car rests, found by letting it
     * settle first (its CG height, test_static_loads_and_ride_height; the
     * fit does not rely on that). */
    run_for(&r, 5.0);
    double h = r.state.pos_m[2];
    r.state.pos_m[2] += dz_m;
    enum { N = 3 * TICKS_PER_S };
    static double z[N + 1];
    z[0] = dz_m;
    *max_pitch = 0.0;
    for (int k = 1; k <= N; k++) {
        run_tick(&r);
        assert_channels_finite(&r);
        z[k] = r.ch[PDK_CH_POS_Z] - h;
        double pitch = fabs(r.ch[PDK_CH_PITCH]);
        *max_pitch = pitch > *max_pitch ? pitch : *max_pitch;
        ck_assert_double_le(fabs(r.ch[PDK_CH_ROLL]), 1e-12);
    }
    return fit_decay(z, N + 1, DT);
}

/* The test car at ride frequency f_hz and damping ratio zeta, with its
 * anti-roll bars (15 and 5 kN/m, not in proportion to the corner masses)
 * when bars is set, dropped from 3 cm. */
static decay_fit ride_drop(double f_hz, double zeta, int substeps, int bars, double *max_pitch)
{
    pdk_vehicle_def d = test_car();
    set_ride(&d, f_hz, zeta);
    d.susp_front.anti_roll_npm = bars ? 15000.0 : 0.0;
    d.susp_rear.anti_roll_npm = bars ? 5000.0 : 0.0;
    return heave_decay(&d, 0.03, substeps, max_pitch);
}

/* The drop settles with the ride frequency and damping ratio of the
 * definition within 5 % (the bound) at the world's default 2
 * substeps (h = 1/240 s), and at 8. The struts are integrated by the
 * trapezoidal rule (four_wheel.c), which adds no damping to a linear
 * oscillator and shortens its frequency by a factor
 * 2 atan(omega h / 2) / (omega h), 1 - (omega h)^2 / 12: 0.03 % for 2 Hz at
 * 240 Hz, 0.3 % for the kart's 6.8 Hz at 240 Hz (Hairer, Lubich and Wanner,
 * Geometric Numerical Integration, ch. VI). So both figures are asserted
 * against the definition itself; what remains is the fit's own error
 * (sampling at 120 Hz), well under 1 %. Heave does not pitch: below 1e-12
 * rad (rounding; a coupled pitch would be of order 0.03 m / L = 1e-2 rad). */
START_TEST(test_ride_frequency_and_damping)
{
    const double freqs[] = {1.5, 2.0};
    const double zetas[] = {0.3, 0.4};
    for (int i = 0; i < 2; i++) {
        double pitch_fine, pitch_dflt;
        decay_fit fine = ride_drop(freqs[i], zetas[i], 8, 0, &pitch_fine);
        decay_fit dflt = ride_drop(freqs[i], zetas[i], 2, 0, &pitch_dflt);
        printf("fw_validation ride %.1f Hz zeta %.2f: 2 substeps %.4f Hz zeta %.4f (%d half "
               "cycles); 8 substeps %.4f Hz zeta %.4f\n",
               freqs[i], zetas[i], dflt.f_hz, dflt.zeta, dflt.half_cycles, fine.f_hz, fine.zeta);
        ck_assert_double_le(rel_err(dflt.f_hz, freqs[i]), 0.05);
        ck_assert_double_le(rel_err(dflt.zeta, zetas[i]), 0.05);
        ck_assert_double_le(rel_err(fine.f_hz, freqs[i]), 0.05);
        ck_assert_double_le(rel_err(fine.zeta, zetas[i]), 0.05);
        ck_assert_double_le(pitch_fine, 1e-12);
        ck_assert_double_le(pitch_dflt, 1e-12);
    }
}
END_TEST

/* Every shipped four-wheel preset (presets/vehicles/\*.json with model
 * fourWheel), as loaded by params, at the default 2 substeps: each axle's
 * ride frequency f = sqrt(k / m_c) / 2 pi and its damping ratios in bump
 * and rebound, zeta = c / (2 sqrt(k m_c)) with m_c the corner's share of
 * the mass, are the data sheet's (docs/presets.md) within 5 %, measured
 * from the response. The car is the preset itself (mass, inertias,
 * geometry, bars, tyres, kinematic curves) with one change that makes a
 * single axle's numbers measurable: the other axle gets the same frequency
 * and damping ratio (its rate and damper scaled by the ratio of the corner
 * masses), which uncouples heave from pitch, so the heave decay is that
 * axle's. A damper that differs by direction gives a decay that is not an
 * exponential, so bump and rebound are measured one at a time, each as a
 * symmetric damper of that value, as the data sheet states each. The car
 * is pressed down (not lifted: a kart's corners carry only 5 mm of static
 * compression, and a lifted wheel leaves the ground) by half its smallest
 * bump travel, at most 3 cm. */
static int preset_is_four_wheel(const char *file, char *name, size_t name_len)
{
    size_t n = strlen(file);
    if (n < 6 || strcmp(file + n - 5, ".json") != 0 || n - 5 >= name_len) {
        return 0;
    }
    memcpy(name, file, n - 5);
    name[n - 5] = '\0';
    return 1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

START_TEST(test_presets_ride_frequency_and_damping)
{
    DIR *dir = opendir(PRESETS "/vehicles");
    ck_assert_msg(dir != NULL, "cannot open %s", PRESETS "/vehicles");
    char names[32][72];
    int n_names = 0;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        if (n_names < 32 && preset_is_four_wheel(e->d_name, names[n_names], sizeof names[0])) {
            n_names++;
        }
    }
    closedir(dir);
    qsort(names, (size_t)n_names, sizeof names[0], compare_names);
    int measured = 0;
    for (int i = 0; i < n_names; i++) {
        pdk_vehicle_def preset;
        char err[PDK_PARAMS_ERR_LEN];
        pdk_error rc =
            pdk_params_vehicle_load(PRESETS, names[i], NULL, &preset, NULL, err, sizeof err);
        ck_assert_msg(rc == PDK_OK, "%s: %s", names[i], err);
        if (preset.model != PDK_MODEL_FOUR_WHEEL) {
            continue;
        }
        measured++;
        double bump_m = fmin(preset.susp_front.travel_bump_m, preset.susp_rear.travel_bump_m);
        double press_m = -fmin(0.5 * bump_m, 0.03);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_suspension_def *s = susp(&preset, axle);
            double mc = corner_mass_kg(&preset, axle);
            double k = s->spring_rate_npm;
            double f_sheet = sqrt(k / mc) / (2.0 * PI);
            for (int dir_r = 0; dir_r < 2; dir_r++) {
                double c = dir_r ? s->rebound_damping_nspm : s->bump_damping_nspm;
                double zeta_sheet = c / (2.0 * sqrt(k * mc));
                pdk_vehicle_def d = preset;
                double scale = corner_mass_kg(&d, 1 - axle) / mc;
                for (int a = 0; a < 2; a++) {
                    susp(&d, a)->spring_rate_npm = a == axle ? k : k * scale;
                    susp(&d, a)->bump_damping_nspm = a == axle ? c : c * scale;
                    susp(&d, a)->rebound_damping_nspm = a == axle ? c : c * scale;
                }
                double pitch;
                decay_fit fit = heave_decay(&d, press_m, 2, &pitch);
                printf("fw_validation preset %-14s %s %-7s sheet %.3f Hz zeta %.3f, measured "
                       "%.3f Hz (%+.2f %%) zeta %.3f (%+.2f %%), %d half cycles\n",
                       names[i], axle == 0 ? "front" : "rear ", dir_r ? "rebound" : "bump", f_sheet,
                       zeta_sheet, fit.f_hz, 100.0 * (fit.f_hz / f_sheet - 1.0), fit.zeta,
                       100.0 * (fit.zeta / zeta_sheet - 1.0), fit.half_cycles);
                ck_assert_double_le(rel_err(fit.f_hz, f_sheet), 0.05);
                ck_assert_double_le(rel_err(fit.zeta, zeta_sheet), 0.05);
            }
        }
    }
    /* The shipped set has six four-wheel presets; at least that many. */
    ck_assert_int_ge(measured, 6);
}
END_TEST

/* The anti-roll bar only acts when the two sides move differently, which is
 * why it adds roll stiffness without adding ride stiffness. In a pure heave
 * drop both wheels of an axle travel together, so the bars must change neither
 * the ride frequency nor the damping ratio, nor pitch the body (their rates,
 * 15 and 5 kN/m, are not in proportion to the corner masses, so any heave
 * force they made would pitch it). At the default 2 substeps: frequency and
 * damping ratio equal to 0.5 % (the same fit on two signals that should be
 * identical), pitch below 1e-9 rad (rounding is 1e-17; a coupled pitch would
 * be of order 1e-2 rad). */
START_TEST(test_anti_roll_bar_adds_no_ride_rate)
{
    double pitch_none, pitch_bars;
    decay_fit none = ride_drop(1.5, 0.3, 2, 0, &pitch_none);
    decay_fit bars = ride_drop(1.5, 0.3, 2, 1, &pitch_bars);
    printf("fw_validation heave with bars: %.4f Hz zeta %.4f max pitch %.3e rad; without: %.4f "
           "Hz zeta %.4f max pitch %.3e rad\n",
           bars.f_hz, bars.zeta, pitch_bars, none.f_hz, none.zeta, pitch_none);
    ck_assert_double_le(rel_err(bars.f_hz, none.f_hz), 0.005);
    ck_assert_double_le(rel_err(bars.zeta, none.zeta), 0.005);
    ck_assert_double_le(pitch_bars, 1e-9);
}
END_TEST

/* ---- 2. steady cornering: load transfer and roll ------------------------- */

typedef struct corner_result {
    double ay_mps2; /* world, centripetal, positive left */
    double roll_rad;
    double pitch_rad;
    double z_m;         /* CG height */
    double transfer_nm; /* sum over axles of (Fz_R - Fz_L) / 2 * t_axle */
    double yaw_rate_radps;
    double speed_mps;
    double steer_rad;
    double load_n[PDK_WHEELS];
} corner_result;

static corner_result corner_measure(const fw_run *r)
{
    corner_result c;
    c.ay_mps2 = lateral_accel_world(r);
    c.roll_rad = r->ch[PDK_CH_ROLL];
    c.pitch_rad = r->ch[PDK_CH_PITCH];
    c.z_m = r->ch[PDK_CH_POS_Z];
    c.yaw_rate_radps = r->ch[PDK_CH_YAW_RATE];
    c.speed_mps = r->ch[PDK_CH_VEL_X];
    c.steer_rad = r->ch[PDK_CH_STEER_ANGLE];
    for (int w = 0; w < PDK_WHEELS; w++) {
        c.load_n[w] = r->ch[PDK_CH_TYRE_LOAD_FL + w];
    }
    c.transfer_nm = 0.5 * (c.load_n[PDK_FR] - c.load_n[PDK_FL]) * track_m(&r->def, 0) +
                    0.5 * (c.load_n[PDK_RR] - c.load_n[PDK_RL]) * track_m(&r->def, 1);
    return c;
}

/* A left turn at 20 m/s with 30 deg on the steering wheel: about 0.36 g. */
static corner_result steady_left_turn(const pdk_vehicle_def *d, int substeps, double seconds,
                                      fw_run *out)
{
    fw_run r;
    run_init(&r, d, substeps, 20.0, PDK_GEAR_DRIVE);
    drive_steady(&r, 20.0, 30.0, seconds);
    assert_channels_finite(&r);
    if (out != NULL) {
        *out = r;
    }
    return corner_measure(&r);
}

/* Roll stiffness of the model's suspension: a roll phi moves the two travels
 * of an axle apart by t tan(phi) (the rays run down the body axis to a level
 * ground), which changes the two strut forces by +-(k / 2 + arb) t tan(phi)
 * (spring k per corner, bar force arb (x_i - x_j) per wheel, as the four-wheel
 * model specifies); their normal components, times cos(phi), on the arm t / 2
 * each way give a moment (k / 2 + arb) t^2 sin(phi) per axle. */
static double roll_stiffness_nm_per_rad(const pdk_vehicle_def *d)
{
    double k = 0.0;
    for (int axle = 0; axle < 2; axle++) {
        const pdk_suspension_def *s = axle == 0 ? &d->susp_front : &d->susp_rear;
        double t = track_m(d, axle);
        k += (0.5 * s->spring_rate_npm + s->anti_roll_npm) * t * t;
    }
    return k;
}

/* The moment balance about the CG's longitudinal axis in a steady turn: the
 * contacts, where rays down the rolled body meet level ground, sit at
 * y_i / cos(phi) + Z tan(phi) across from the CG at height Z, so
 *   sum over axles of (Fz_R - Fz_L) / 2 * t = m Z (ay cos(phi) + g sin(phi))
 * exactly (ay world, centripetal). The familiar m ay h leaves out the second
 * term, the CG's shift over the contacts as the body rolls: g phi / ay is
 * the roll gradient in rad/g, 6-7 % for this car, so m ay h is printed, not
 * asserted. What the exact form leaves out: the gyroscopic moment
 * r^2 sin(phi) cos(phi) (Izz - Iyy), 1e-3 of it, and what is left of the
 * transient after 4 s (the roll mode decays at 4.5 /s, yaw at ~5 /s); 1 %.
 * The geometric part, GeometricTransfer = F_y,axle h_rc / t, is checked
 * against the body-frame lateral forces of the axle's tyres from the state
 * (the scheme's previous-substep forces: in a steady state the last two
 * substeps agree to far below the 0.5 % allowed). */
START_TEST(test_lateral_load_transfer)
{
    pdk_vehicle_def d = test_car();
    d.susp_front.track_width_m = 1.58;
    d.susp_rear.track_width_m = 1.52;
    d.susp_front.roll_center_height_m = 0.08;
    d.susp_rear.roll_center_height_m = 0.12;
    fw_run r;
    corner_result c = steady_left_turn(&d, 2, 4.0, &r);
    double m = d.chassis.mass_kg;
    double h = d.chassis.cg_height_m;
    double exact = m * c.z_m * (c.ay_mps2 * cos(c.roll_rad) + G * sin(c.roll_rad));
    double plain = m * c.ay_mps2 * h;
    printf("fw_validation load transfer at %.3f g, roll %.3f deg: sum (Fz_R - Fz_L)/2 t = %.1f "
           "N m; m Z (ay cos phi + g sin phi) = %.1f (%.3f %%); m ay h = %.1f (%.2f %%)\n",
           c.ay_mps2 / G, c.roll_rad / DEG, c.transfer_nm, exact,
           100.0 * (c.transfer_nm / exact - 1.0), plain, 100.0 * (c.transfer_nm / plain - 1.0));
    ck_assert_double_gt(c.ay_mps2, 0.3 * G);
    ck_assert_double_gt(c.roll_rad, 0.0); /* a left turn rolls the body right side down */
    ck_assert_double_le(rel_err(c.transfer_nm, exact), 0.01);
    /* The outer (right) wheels carry more. */
    ck_assert_double_gt(c.load_n[PDK_FR], c.load_n[PDK_FL]);
    ck_assert_double_gt(c.load_n[PDK_RR], c.load_n[PDK_RL]);

    for (int axle = 0; axle < 2; axle++) {
        int wl = axle == 0 ? PDK_FL : PDK_RL;
        double fy = r.state.prev_fy_n[wl] + r.state.prev_fy_n[wl + 1];
        double hrc =
            axle == 0 ? d.susp_front.roll_center_height_m : d.susp_rear.roll_center_height_m;
        double want = fy * hrc / track_m(&d, axle);
        double got = r.ch[axle == 0 ? PDK_CH_GEOMETRIC_TRANSFER_F : PDK_CH_GEOMETRIC_TRANSFER_R];
        printf("fw_validation geometric transfer axle %d: %.2f N, F_y h_rc / t = %.2f N\n", axle,
               got, want);
        ck_assert_double_gt(want, 50.0);
        ck_assert_double_le(rel_err(got, want), 0.005);
        /* The same force from the wheel-frame channels, turned into the body
         * by each wheel's steer angle. */
        double fy_ch = 0.0;
        for (int w = wl; w <= wl + 1; w++) {
            double dl = r.ch[PDK_CH_WHEEL_STEER_FL + w];
            fy_ch += r.ch[PDK_CH_FORCE_X_FL + w] * sin(dl) + r.ch[PDK_CH_FORCE_Y_FL + w] * cos(dl);
        }
        ck_assert_double_le(rel_err(fy_ch, fy), 0.005);
        /* Couple form: no jacking. */
        ck_assert_double_eq(r.ch[axle == 0 ? PDK_CH_JACKING_FORCE_F : PDK_CH_JACKING_FORCE_R], 0.0);
    }
}
END_TEST

/* The roll gradient. With the struts' kinematics (the CG moves Z tan(phi)
 * across the contacts, above) and the roll-centre links carrying
 * F_y,axle h_rc of the moment, the moment balance gives this model's exact
 * steady roll:
 *   K_phi sin(phi) + m ay cos(phi) h_rc = m Z (ay cos(phi) + g sin(phi))
 *   => tan(phi) = m ay (Z - h_rc) / (K_phi - m g Z),
 * equal roll-centre heights front and rear, the whole mass sprung (there is
 * no unsprung mass). The textbook gradient (Gillespie ch. 10; Milliken ch.
 * 18), m g h' / (K_phi - m g h') per g with h' = h - h_rc, lets the CG swing
 * about the roll axis, h' tan(phi), where this model's rays put the swing at
 * h tan(phi); the two differ by m g h_rc / K_phi, 1 % here. Asserted: the
 * model's own form within 2 % (the residuals of the transfer test above),
 * the textbook form within 10 % (the bound), and a higher roll
 * centre rolling the body less at the same lateral acceleration. */
START_TEST(test_roll_gradient)
{
    const double hrc[] = {0.0, 0.1};
    double grad[2];
    for (int i = 0; i < 2; i++) {
        pdk_vehicle_def d = test_car();
        d.susp_front.roll_center_height_m = hrc[i];
        d.susp_rear.roll_center_height_m = hrc[i];
        corner_result c = steady_left_turn(&d, 2, 4.0, NULL);
        double m = d.chassis.mass_kg;
        double h = d.chassis.cg_height_m;
        double k_phi = roll_stiffness_nm_per_rad(&d);
        double model = atan(m * c.ay_mps2 * (c.z_m - hrc[i]) / (k_phi - m * G * c.z_m));
        double hp = h - hrc[i];
        double textbook_per_g = m * G * hp / (k_phi - m * G * hp);
        grad[i] = c.roll_rad / (c.ay_mps2 / G);
        printf("fw_validation roll, h_rc %.2f m: %.3f deg at %.3f g, gradient %.3f deg/g; model "
               "form %.3f deg (%.2f %%), textbook %.3f deg/g (%.2f %%)\n",
               hrc[i], c.roll_rad / DEG, c.ay_mps2 / G, grad[i] / DEG, model / DEG,
               100.0 * (c.roll_rad / model - 1.0), textbook_per_g / DEG,
               100.0 * (grad[i] / textbook_per_g - 1.0));
        ck_assert_double_gt(c.roll_rad, 0.0);
        ck_assert_double_le(rel_err(c.roll_rad, model), 0.02);
        ck_assert_double_le(rel_err(grad[i], textbook_per_g), 0.10);
    }
    /* Raising the roll centre by 0.1 m takes (h_rc / (Z - 0)) of the moment
     * off the springs: 18 % less roll per g. */
    ck_assert_double_lt(grad[1], 0.9 * grad[0]);
}
END_TEST

/* ---- 3. braking: dive and the anti-dive / anti-lift links ---------------- */

typedef struct brake_result {
    double pitch_rad;
    double ax_mps2; /* world, along the velocity (negative braking) */
    double z_m;
    double load_front_n;   /* TyreLoad_F */
    double travel_front_m; /* SuspTravel_FL */
    double link_f_n, link_r_n;
    double fx_f_n, fx_r_n; /* body-frame tyre forces of the axle (state) */
    double fx_f_ch_n;      /* TyreForceX_F */
} brake_result;

/* 50 bar (7500 N, 0.51 g) from 25 m/s, measured after 2 s: the pitch mode
 * (about 1.6 Hz, zeta 0.3) has decayed to below 0.3 % of its initial step
 * and the car still runs at 15 m/s. */
static brake_result brake_run(double anti_f, double anti_r, double front_fraction)
{
    pdk_vehicle_def d = test_car();
    d.brake.front_fraction = front_fraction;
    d.susp_front.anti_brake = anti_f;
    d.susp_rear.anti_brake = anti_r;
    fw_run r;
    run_init(&r, &d, 2, 25.0, PDK_GEAR_DRIVE);
    run_command(&r, 0.0, 50.0, 0.0);
    run_for(&r, 2.0);
    assert_channels_finite(&r);
    brake_result b;
    b.pitch_rad = r.ch[PDK_CH_PITCH];
    b.ax_mps2 = longitudinal_accel_world(&r);
    b.z_m = r.ch[PDK_CH_POS_Z];
    b.load_front_n = r.ch[PDK_CH_TYRE_LOAD_F];
    b.travel_front_m = r.ch[PDK_CH_SUSP_TRAVEL_FL];
    b.link_f_n = r.ch[PDK_CH_PITCH_LINK_LOAD_F];
    b.link_r_n = r.ch[PDK_CH_PITCH_LINK_LOAD_R];
    b.fx_f_n = r.state.prev_fx_n[PDK_FL] + r.state.prev_fx_n[PDK_FR];
    b.fx_r_n = r.state.prev_fx_n[PDK_RL] + r.state.prev_fx_n[PDK_RR];
    b.fx_f_ch_n = r.ch[PDK_CH_FORCE_X_F];
    return b;
}

/* The dive this model must show, from its definitions. Braking at ax < 0 moves
 * T = m Z (-ax + g theta) / L onto the front axle (moment balance about the
 * CG, with the CG's forward shift Z tan(theta) over the contacts as the nose
 * dips). The links carry P_f = -anti_f Fx_f h / L (up) at the front and P_r =
 * +anti_r Fx_r h / L at the rear (docs/vehicle-model.md); the springs carry
 * the rest, T - P_f at the front and -T - P_r at the rear, shared by two
 * corners of rate k. The travels are x_f = (T - P_f) / 2 k_f, x_r = (-T - P_r)
 * / 2 k_r and the pitch theta = (x_f - x_r) / L, linear in theta through T. */
static double dive_prediction(const pdk_vehicle_def *d, const brake_result *b, double anti_f,
                              double anti_r)
{
    double m = d->chassis.mass_kg;
    double len = d->chassis.wheelbase_m;
    double h = d->chassis.cg_height_m;
    double cf = 1.0 / (2.0 * d->susp_front.spring_rate_npm);
    double cr = 1.0 / (2.0 * d->susp_rear.spring_rate_npm);
    double t0 = m * b->z_m * (-b->ax_mps2) / len;
    double pf = -anti_f * b->fx_f_n * h / len;
    double pr = anti_r * b->fx_r_n * h / len;
    double num = t0 * (cf + cr) - pf * cf + pr * cr;
    double den = len - m * b->z_m * G * (cf + cr) / len;
    return num / den;
}

/* Braking dives the nose (Pitch > 0); the link loads are exactly
 * -anti Fx h / L of the axle's force; anti-dive and anti-lift take pitch
 * away as predicted while the axle loads stay those the deceleration sets.
 * The prediction takes the deceleration the car has (the Coulomb-rate test
 * below checks it against the brakes). Tolerances: the prediction drops
 * terms of order theta^2 (3e-4) and uses the steady state 2 s in; 3 %. The
 * link loads: beside their assertion. The front axle load
 * m g b / L + m Z (-ax cos(theta) + g sin(theta)) / L: 0.5 % of the
 * transfer. Between anti settings the loads differ only by the pitch
 * term m g Z (sin(theta_1) - sin(theta_2)) / L, up to 3.5 % of the transfer
 * at this car's 1 deg of dive, so "the same" is asserted as within 5 % of
 * the transfer. */
START_TEST(test_braking_dive_and_anti)
{
    const struct {
        double anti_f, anti_r, front_fraction;
    } cases[] = {
        {0.0, 0.0, 0.65}, {0.5, 0.5, 0.65}, {1.0, 1.0, 0.65}, {-0.3, 0.0, 0.65}, /* pro-dive */
        {1.0, 0.0, 1.0}, /* all braking on the front, 100 % anti-dive */
    };
    pdk_vehicle_def d = test_car();
    double m = d.chassis.mass_kg;
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    double h = d.chassis.cg_height_m;
    brake_result base = brake_run(0.0, 0.0, 0.65);
    double transfer = m * h * (-base.ax_mps2) / len;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        brake_result b = brake_run(cases[i].anti_f, cases[i].anti_r, cases[i].front_fraction);
        double want = dive_prediction(&d, &b, cases[i].anti_f, cases[i].anti_r);
        double load_f = m * G * (len - a) / len +
                        m * b.z_m * (-b.ax_mps2 * cos(b.pitch_rad) + G * sin(b.pitch_rad)) / len;
        printf("fw_validation braking anti %.2f/%.2f front %.2f: ax %.3f, pitch %.4f deg "
               "(predicted %.4f, %.2f %%), TyreLoad_F %.1f N (balance %.1f), links %.1f / %.1f "
               "N, front travel %.5f m\n",
               cases[i].anti_f, cases[i].anti_r, cases[i].front_fraction, b.ax_mps2,
               b.pitch_rad / DEG, want / DEG, 100.0 * (b.pitch_rad / want - 1.0), b.load_front_n,
               load_f, b.link_f_n, b.link_r_n, b.travel_front_m);
        ck_assert_double_gt(b.pitch_rad, 0.0);
        ck_assert_double_le(rel_err(b.pitch_rad, want), 0.03);
        ck_assert_double_le(fabs(b.load_front_n - load_f), 0.005 * transfer);
        if (cases[i].front_fraction == 0.65) {
            ck_assert_double_le(fabs(b.load_front_n - base.load_front_n), 0.05 * transfer);
        }
        /* PitchLinkLoad = -anti_f Fx_front h / L, +anti_r Fx_rear h / L,
         * with the previous substep's body-frame force where the state
         * holds the last one: with the frozen Coulomb coefficient (the
         * Coulomb-rate test) the brake force B (1 - a h / u) drifts by
         * B (a h / u)^2 / (u / (a h)) per substep, 3e-6 of it at 15 m/s;
         * 1e-5 of the link load. */
        double lf = -cases[i].anti_f * b.fx_f_n * h / len;
        double lr = cases[i].anti_r * b.fx_r_n * h / len;
        ck_assert_double_le(fabs(b.link_f_n - lf), 1e-5 * fabs(lf) + 1e-12);
        ck_assert_double_le(fabs(b.link_r_n - lr), 1e-5 * fabs(lr) + 1e-12);
        /* Straight ahead the wheel-frame force is horizontal, along the
         * heading; the links take its body-x component, cos(theta) of it.
         * 1e-6 of it: the force's frame is the last substep's start
         * attitude, the Pitch channel the tick's end. */
        ck_assert_double_le(fabs(b.fx_f_ch_n * cos(b.pitch_rad) - b.fx_f_n), 1e-6 * fabs(b.fx_f_n));
        if (cases[i].anti_f > 0.0) {
            ck_assert_double_gt(b.link_f_n, 0.0); /* lifts the nose */
        }
        if (cases[i].anti_r > 0.0) {
            ck_assert_double_lt(b.link_r_n, 0.0); /* holds the tail down */
        }
        if (cases[i].anti_f > 0.0 || cases[i].anti_r > 0.0) {
            ck_assert_double_lt(b.pitch_rad, base.pitch_rad);
        } else if (cases[i].anti_f < 0.0) {
            ck_assert_double_gt(b.pitch_rad, base.pitch_rad);
        }
        /* The front springs carry the front axle's load less its links,
         * k_f x_f = (TyreLoad_F - P_f) / (2 cos(theta)) - m g b / 2L per
         * corner (no bar force: both sides alike), less the damper's force:
         * 2 s in, the pitch mode (decaying at ~3 /s) still moves the
         * corners at ~2e-4 m/s, 0.5 N through the 2.4 kN s/m damper,
         * 1.3e-5 m of travel. 3e-5 m, 0.15 % of the plain dive's 21 mm. */
        double s_f = (b.load_front_n - b.link_f_n) / (2.0 * cos(b.pitch_rad));
        double x_f = (s_f - 0.5 * m * G * (len - a) / len) / d.susp_front.spring_rate_npm;
        ck_assert_double_le(fabs(b.travel_front_m - x_f), 3e-5);
        if (cases[i].front_fraction == 1.0) {
            /* All braking on the front and anti-dive 1: the front link
             * carries m |ax| h / L, the whole transfer of the design CG
             * height, and the front springs only what that leaves: the
             * transfer's growth as the links lift the CG (by P_f / sum k,
             * 11 mm: m |ax| (Z - h) / L) and as the CG moves forward over
             * the contacts (m g Z theta / L), 2 % of the transfer each. The
             * front dives by under 5 % of its plain travel. */
            ck_assert_double_le(fabs(b.travel_front_m), 0.05 * fabs(base.travel_front_m));
        }
    }
}
END_TEST

/* The brakes are Coulomb torques on the wheels (ADR 0008): 50 bar at
 * 150 N/bar, 7500 N at the contacts, on 1500 kg, with no drag, rolling
 * resistance or drive, decelerates the car and its four wheels (1 kg m^2
 * each at 0.31 m) at 7500 / (m + sum I / R^2) = 4.865 m/s^2 (the wheels'
 * equivalent mass, 41.6 kg: Gillespie, Fundamentals of Vehicle Dynamics,
 * ch. 2) at any speed while they roll, as the single-track model does with
 * m alone. Checked at 15 and 3 m/s on level ground, straight: 1e-3 (the
 * tyres' slip is steady, so the wheels decelerate with the car; the pitch
 * links and load transfer move no horizontal force). */
static double equivalent_mass_kg(const pdk_vehicle_def *d)
{
    double front =
        d->tyre_front.spin_inertia_kgm2 / (d->tyre_front.law.radius_m * d->tyre_front.law.radius_m);
    double rear =
        d->tyre_rear.spin_inertia_kgm2 / (d->tyre_rear.law.radius_m * d->tyre_rear.law.radius_m);
    return d->chassis.mass_kg + 2.0 * (front + rear);
}

START_TEST(test_brakes_decelerate_at_coulomb_rate)
{
    pdk_vehicle_def d = test_car();
    fw_run r;
    run_init(&r, &d, 2, 25.0, PDK_GEAR_DRIVE);
    run_command(&r, 0.0, 50.0, 0.0);
    const double at[] = {15.0, 3.0};
    int k = 0;
    while (k < 2) {
        run_tick(&r);
        assert_channels_finite(&r);
        ck_assert_double_gt(r.ch[PDK_CH_SPEED], 1.0);
        if (r.ch[PDK_CH_SPEED] <= at[k]) {
            double ax = longitudinal_accel_world(&r);
            double want = 7500.0 / equivalent_mass_kg(&d);
            printf("fw_validation brakes at %.2f m/s: %.5f m/s^2 (Coulomb %.5f, %.3f %%)\n",
                   r.ch[PDK_CH_SPEED], -ax, want, 100.0 * (-ax / want - 1.0));
            ck_assert_double_le(rel_err(-ax, want), 1e-3);
            k++;
        }
    }
}
END_TEST

/* 60 % throttle (3600 N, 2.34 m/s^2 with the wheels' equivalent mass) for
 * 1.5 s from rest, in DRIVE or
 * REVERSE, on the test car with its drive on the rear (front_fraction 0) or
 * the front (1) axle and these anti-drive fractions. The governor and the
 * power limit are out of the way (3600 N at 3.6 m/s is 13 kW), and the
 * driven axle's tyres stay inside their friction circles even where the
 * acceleration unloads them (a driven rear axle in reverse keeps 5.8 kN),
 * so the acceleration is steady and the pitch mode (1.6 Hz, zeta 0.3,
 * decaying at 3 /s) is within 1 % of its step. */
static brake_result drive_run(double anti_f, double anti_r, double front_fraction, pdk_gear gear)
{
    pdk_vehicle_def d = test_car();
    d.drive.front_fraction = front_fraction;
    d.drive.max_reverse_speed_mps = 25.0;
    d.susp_front.anti_drive = anti_f;
    d.susp_rear.anti_drive = anti_r;
    fw_run r;
    run_init(&r, &d, 2, 0.0, gear);
    run_command(&r, 60.0, 0.0, 0.0);
    run_for(&r, 1.5);
    assert_channels_finite(&r);
    brake_result b;
    b.pitch_rad = r.ch[PDK_CH_PITCH];
    /* Signed along body x: negative when the car speeds up in reverse. */
    b.ax_mps2 = (r.state.vel_mps[0] - r.vel_before[0]) / r.tick_s;
    b.z_m = r.ch[PDK_CH_POS_Z];
    b.load_front_n = r.ch[PDK_CH_TYRE_LOAD_F];
    b.travel_front_m = r.ch[PDK_CH_SUSP_TRAVEL_FL];
    b.link_f_n = r.ch[PDK_CH_PITCH_LINK_LOAD_F];
    b.link_r_n = r.ch[PDK_CH_PITCH_LINK_LOAD_R];
    b.fx_f_n = r.state.prev_fx_n[PDK_FL] + r.state.prev_fx_n[PDK_FR];
    b.fx_r_n = r.state.prev_fx_n[PDK_RL] + r.state.prev_fx_n[PDK_RR];
    b.fx_f_ch_n = r.ch[PDK_CH_FORCE_X_F];
    return b;
}

/* Driving: squat and lift, anti-squat and anti-lift (antiDrive is for the
 * driving force: anti-squat on a driven rear axle, anti-lift on a driven front
 * one; Gillespie, Fundamentals of Vehicle Dynamics, ch. 9), forward and in
 * reverse. Speeding up forward at 2.34 m/s^2 (3600 N on the car and its four
 * wheels' equivalent mass, as in the brakes' test) moves load to the rear and
 * pitches the nose up (Pitch < 0); in reverse the same force backwards pitches
 * it down. The links carry anti Fx h / L of the driven axle's force, with the
 * sign of the force: forward, an anti-squat rear link pushes the tail up and
 * an anti-lift front link pulls the nose down; in reverse each pulls the other
 * way. The pitch is the dive model's (dive_prediction, which holds for any Fx:
 * T = m Z (-ax + g theta) / L onto the front) within 3 %, and always smaller
 * than without the links; the axle loads are the deceleration's (moment
 * balance) within 0.5 % of the transfer, with or without them: the tyres carry
 * the same loads either way. */
START_TEST(test_driving_squat_and_anti_drive)
{
    const struct {
        double anti_f, anti_r, front_fraction;
        pdk_gear gear;
    } cases[] = {
        {0.0, 0.6, 0.0, PDK_GEAR_DRIVE},   {0.6, 0.0, 1.0, PDK_GEAR_DRIVE},
        {0.0, 0.6, 0.0, PDK_GEAR_REVERSE}, {0.6, 0.0, 1.0, PDK_GEAR_REVERSE},
        {0.0, -0.4, 0.0, PDK_GEAR_DRIVE}, /* pro-squat */
    };
    pdk_vehicle_def d = test_car();
    double m = d.chassis.mass_kg;
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    double h = d.chassis.cg_height_m;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        brake_result plain = drive_run(0.0, 0.0, cases[i].front_fraction, cases[i].gear);
        brake_result b =
            drive_run(cases[i].anti_f, cases[i].anti_r, cases[i].front_fraction, cases[i].gear);
        double forward = cases[i].gear == PDK_GEAR_DRIVE ? 1.0 : -1.0;
        double want = dive_prediction(&d, &b, cases[i].anti_f, cases[i].anti_r);
        double transfer = m * h * fabs(b.ax_mps2) / len;
        double load_f = m * G * (len - a) / len +
                        m * b.z_m * (-b.ax_mps2 * cos(b.pitch_rad) + G * sin(b.pitch_rad)) / len;
        printf("fw_validation driving %s anti %.2f/%.2f front %.0f: ax %+.3f, pitch %+.4f deg "
               "(predicted %+.4f, without links %+.4f), TyreLoad_F %.1f N (balance %.1f, "
               "without links %.1f), links %+.1f / %+.1f N\n",
               forward > 0.0 ? "forward" : "reverse", cases[i].anti_f, cases[i].anti_r,
               cases[i].front_fraction, b.ax_mps2, b.pitch_rad / DEG, want / DEG,
               plain.pitch_rad / DEG, b.load_front_n, load_f, plain.load_front_n, b.link_f_n,
               b.link_r_n);
        ck_assert_double_le(rel_err(b.ax_mps2, forward * 3600.0 / equivalent_mass_kg(&d)), 1e-3);
        /* Nose up forward (load to the rear), down in reverse. */
        ck_assert_double_lt(forward * plain.pitch_rad, 0.0);
        ck_assert_double_lt(forward * b.pitch_rad, 0.0);
        ck_assert_double_le(rel_err(b.pitch_rad, want), 0.03);
        ck_assert_double_le(fabs(b.load_front_n - load_f), 0.005 * transfer);
        ck_assert_double_le(fabs(plain.load_front_n - b.load_front_n), 0.05 * transfer);
        double lf = -cases[i].anti_f * b.fx_f_n * h / len;
        double lr = cases[i].anti_r * b.fx_r_n * h / len;
        /* The links take the force at the last substep's start, the
         * state holds its end: they differ by the force's change over one
         * substep as the car speeds up (about 1e-6 of it). */
        ck_assert_double_le(fabs(b.link_f_n - lf), 2e-6 * fabs(lf) + 1e-9);
        ck_assert_double_le(fabs(b.link_r_n - lr), 2e-6 * fabs(lr) + 1e-9);
        if (cases[i].anti_r > 0.0) {
            /* Anti-squat: the tail pushed up forward, held down in reverse. */
            ck_assert_double_gt(forward * b.link_r_n, 0.0);
        }
        if (cases[i].anti_f > 0.0) {
            /* Anti-lift: the nose pulled down forward, held up in reverse. */
            ck_assert_double_lt(forward * b.link_f_n, 0.0);
        }
        if (cases[i].anti_f + cases[i].anti_r > 0.0) {
            ck_assert_double_lt(fabs(b.pitch_rad), fabs(plain.pitch_rad));
        } else {
            ck_assert_double_gt(fabs(b.pitch_rad), fabs(plain.pitch_rad));
        }
    }
}
END_TEST

/* ---- 4. the single-track model as the limit ------------------------------ */

/* Drives the single-track model of the same definition like drive_steady. */
static void st_steady(const pdk_vehicle_def *d, double target_mps, double steer_deg, double seconds,
                      double *yaw_rate, double *speed, double *steer_rad)
{
    pdk_st_params p;
    pdk_st_state s;
    pdk_st_cmd cmd;
    double ch[PDK_CH_COUNT];
    pdk_st_params_init(&p, d, DT / 2.0, G, RHO, 1.0);
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_st_state_init(&s, &pose, target_mps);
    memset(ch, 0, sizeof ch);
    double integral = 0.0;
    int ticks = (int)lround(seconds * TICKS_PER_S);
    for (int t = 0; t < ticks; t++) {
        double err = t == 0 ? 0.0 : target_mps - ch[PDK_CH_VEL_X];
        integral += err * DT;
        double throttle = 100.0 * (err + integral);
        throttle = throttle < 0.0 ? 0.0 : (throttle > 100.0 ? 100.0 : throttle);
        pdk_st_cmd_set(&cmd, d, throttle, 0.0, steer_deg, PDK_GEAR_DRIVE);
        pdk_st_step(&s, &cmd, &p, 2, ch);
    }
    *yaw_rate = ch[PDK_CH_YAW_RATE];
    *speed = ch[PDK_CH_VEL_X];
    *steer_rad = ch[PDK_CH_STEER_ANGLE];
}

/* With no toe, camber or camber thrust, parallel steer, roll centres on the
 * ground and a stiff suspension (3 Hz ride, stiff bars: 0.8 deg/g of roll),
 * the four-wheel car is the single-track car: the steady yaw rate
 * r = v delta / (L + K v^2), K = (m / L)(b / C_f - a / C_r) (Pacejka ch. 1;
 * Gillespie ch. 6). What separates them is second order: parallel steer on a
 * track (the inner and outer wheels' ideal angles differ by t L / R^2, 0.3
 * deg at 10 m/s here, and the more loaded outer tyre weighs its error
 * more), each wheel's own forward speed v -+ r t / 2, and the load-
 * proportional tyre stiffness under the drive's small longitudinal transfer.
 * Bound: 2 % on the yaw rate against the single-track model and against the
 * formula. The understeer gradient from the four-wheel car's yaw rates at 10
 * and 30 m/s, K = ((v delta / r)_30 - (v delta / r)_10) / (30^2 - 10^2),
 * takes a difference of two numbers each within a few tenths of a percent,
 * amplified by (L + K v^2) / (K (v2^2 - v1^2)), 2.5 at these speeds: 3 %. */
/* Downforce (resist.downforce_area_m2, resist.downforce_front): coasting at
 * 50 m/s with C_L A 3 m^2 and 40 % at the front, the tyres carry the weight
 * plus 1/2 rho C_L A v^2 (4.6 kN at the start's speed), the front axle 40 %
 * of that increment, within 1 % once the body has settled on its springs
 * (the speed falls by under 1 % meanwhile; the loads are compared with the
 * downforce at the tick's speed). Without it the loads are the weight. */
START_TEST(test_downforce_loads_the_axles)
{
    pdk_vehicle_def d = test_car();
    fw_run plain, winged;
    run_init(&plain, &d, 2, 50.0, PDK_GEAR_NEUTRAL);
    d.resist.downforce_area_m2 = 3.0;
    d.resist.downforce_front = 0.4;
    run_init(&winged, &d, 2, 50.0, PDK_GEAR_NEUTRAL);
    run_for(&plain, 1.5);
    run_for(&winged, 1.5);
    const double v = winged.ch[PDK_CH_VEL_X];
    const double lift = 0.5 * RHO * 3.0 * v * v;
    const double front = winged.ch[PDK_CH_TYRE_LOAD_F] - plain.ch[PDK_CH_TYRE_LOAD_F];
    const double rear = winged.ch[PDK_CH_TYRE_LOAD_R] - plain.ch[PDK_CH_TYRE_LOAD_R];
    printf("downforce at %.1f m/s: %.0f N (front %.0f, rear %.0f; expected %.0f, 40 %% front)\n", v,
           front + rear, front, rear, lift);
    ck_assert_double_eq_tol(front + rear, lift, 0.01 * lift);
    ck_assert_double_eq_tol(front / (front + rear), 0.4, 0.01);
    ck_assert_double_eq_tol(plain.ch[PDK_CH_TYRE_LOAD_F] + plain.ch[PDK_CH_TYRE_LOAD_R],
                            d.chassis.mass_kg * G, 0.01 * d.chassis.mass_kg * G);
}
END_TEST

/* The body's angular damping (chassis.angular_damping_per_s, the Polaris
 * model's 0.08 /s): a car spinning about its vertical axis in free fall, 10 m
 * up (no contact for 1.4 s), keeps (1 - c h)^n of its yaw rate after n
 * substeps, exactly: a principal axis, so no gyroscopic coupling. Without it
 * the rate stays to the bit. */
START_TEST(test_angular_damping)
{
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def d = test_car();
        d.chassis.angular_damping_per_s = k ? 0.08 : 0.0;
        fw_run r;
        run_init(&r, &d, 2, 0.0, PDK_GEAR_NEUTRAL);
        r.state.pos_m[2] += 10.0;
        r.state.omega_radps[2] = 1.0;
        run_for(&r, 1.0);
        const double want = k ? pow(1.0 - 0.08 * (DT / 2.0), 2.0 * TICKS_PER_S) : 1.0;
        ck_assert_double_gt(r.state.pos_m[2], 5.0); /* still in the air */
        ck_assert_double_eq_tol(r.state.omega_radps[2], want, 1e-12);
    }
}
END_TEST

START_TEST(test_single_track_cross_check)
{
    pdk_vehicle_def d = test_car();
    set_ride(&d, 3.0, 0.5);
    d.susp_front.anti_roll_npm = 60000.0;
    d.susp_rear.anti_roll_npm = 40000.0;
    double m = d.chassis.mass_kg;
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    double b = len - a;
    double k_us = m / len *
                  (b / d.tyre_front.cornering_stiffness_n_per_rad -
                   a / d.tyre_rear.cornering_stiffness_n_per_rad);
    const double speeds[] = {10.0, 20.0, 30.0};
    const double steers[] = {70.0, -25.0, 14.0};
    double path[3]; /* v delta / r */
    for (int i = 0; i < 3; i++) {
        fw_run r;
        run_init(&r, &d, 2, speeds[i], PDK_GEAR_DRIVE);
        drive_steady(&r, speeds[i], steers[i], 5.0);
        assert_channels_finite(&r);
        double v = r.ch[PDK_CH_VEL_X];
        double delta = r.ch[PDK_CH_STEER_ANGLE];
        double yaw = r.ch[PDK_CH_YAW_RATE];
        double st_r, st_v, st_delta;
        st_steady(&d, speeds[i], steers[i], 5.0, &st_r, &st_v, &st_delta);
        ck_assert_double_le(rel_err(delta, st_delta), 1e-12);
        double want = v * delta / (len + k_us * v * v);
        /* Compared as curvature gains r / (v delta), each at its own speed. */
        double gain_fw = yaw / (v * delta);
        double gain_st = st_r / (st_v * st_delta);
        printf("fw_validation single track %.0f m/s: r = %.5f rad/s (four-wheel), %.5f "
               "(single-track), %.5f (formula); gain ratio %.4f\n",
               speeds[i], yaw, st_r, want, gain_fw / gain_st);
        ck_assert_double_le(rel_err(gain_fw, gain_st), 0.02);
        ck_assert_double_le(rel_err(yaw, want), 0.02);
        path[i] = v * delta / yaw;
    }
    double k_meas = (path[2] - path[0]) / (speeds[2] * speeds[2] - speeds[0] * speeds[0]);
    printf("fw_validation understeer gradient: %.5e rad/(m/s^2) measured, %.5e formula (%.2f "
           "%%)\n",
           k_meas, k_us, 100.0 * (k_meas / k_us - 1.0));
    ck_assert_double_le(rel_err(k_meas, k_us), 0.03);
}
END_TEST

/* ---- 5. convergence ------------------------------------------------------- */

/* The steady left turn of the transfer test at 1, 2 and 4 substeps of the
 * 120 Hz tick, and at 60 Hz in one substep, against 8 substeps: yaw rate,
 * roll and the four corner loads within 1 % (the bound). A steady
 * state is a fixed point of the step, which depends on h only through the
 * lag of the link forces and the frame rotation's h r / 2, both far below
 * 1 %. The roll test uses roll centres, so the lag is exercised. */
START_TEST(test_substep_convergence)
{
    pdk_vehicle_def d = test_car();
    d.susp_front.roll_center_height_m = 0.08;
    d.susp_rear.roll_center_height_m = 0.12;
    d.susp_front.anti_drive = 0.2;
    d.susp_rear.anti_drive = 0.4;
    corner_result ref = steady_left_turn(&d, 8, 4.0, NULL);
    const struct {
        double tick_s;
        int substeps;
    } cases[] = {{DT, 1}, {DT, 2}, {DT, 4}, {1.0 / 60.0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fw_run r;
        run_init_at(&r, &d, NULL, cases[i].tick_s, cases[i].substeps, 0.0, 0.0, 20.0,
                    PDK_GEAR_DRIVE);
        drive_steady(&r, 20.0, 30.0, 4.0);
        assert_channels_finite(&r);
        corner_result c = corner_measure(&r);
        printf("fw_validation convergence %.0f Hz x %d: yaw rate %+.4f %%, roll %+.4f %%, loads "
               "%+.4f %+.4f %+.4f %+.4f %%\n",
               1.0 / cases[i].tick_s, cases[i].substeps,
               100.0 * (c.yaw_rate_radps / ref.yaw_rate_radps - 1.0),
               100.0 * (c.roll_rad / ref.roll_rad - 1.0),
               100.0 * (c.load_n[0] / ref.load_n[0] - 1.0),
               100.0 * (c.load_n[1] / ref.load_n[1] - 1.0),
               100.0 * (c.load_n[2] / ref.load_n[2] - 1.0),
               100.0 * (c.load_n[3] / ref.load_n[3] - 1.0));
        ck_assert_double_le(rel_err(c.yaw_rate_radps, ref.yaw_rate_radps), 0.01);
        ck_assert_double_le(rel_err(c.roll_rad, ref.roll_rad), 0.01);
        for (int w = 0; w < PDK_WHEELS; w++) {
            ck_assert_double_le(rel_err(c.load_n[w], ref.load_n[w]), 0.01);
        }
    }
}
END_TEST

/* The yaw rate, roll and lateral offset of the car of the transfer test
 * 0.25 s into a step of 60 deg on the steering wheel at 20 m/s (half-way
 * up its yaw response), at tick_s in substeps. */
static void step_steer(const pdk_vehicle_def *d, double tick_s, int substeps, double out[3])
{
    fw_run r;
    run_init_at(&r, d, NULL, tick_s, substeps, 0.0, 0.0, 20.0, PDK_GEAR_DRIVE);
    run_for(&r, 0.5);
    run_command(&r, 0.0, 0.0, 60.0);
    run_for(&r, 0.25);
    assert_channels_finite(&r);
    out[0] = r.ch[PDK_CH_YAW_RATE];
    out[1] = r.ch[PDK_CH_ROLL];
    out[2] = r.ch[PDK_CH_POS_Y];
}

/* A transient, unlike a steady state, depends on the step: the tyres' slip
 * dampers are backward Euler, first order, with an error in proportion to
 * h against the time constant of the lateral response (m u / sum C, 0.13 s
 * here), which the roll follows; the yaw rate converges faster. The
 * step-steer response of the transfer test's car against 8 substeps,
 * measured: the yaw rate within 0.1 % at every rate; roll and lateral offset
 * -0.4 and -0.5 % at 4 substeps (480 Hz), -1.2 and -1.5 % at the default 2,
 * -2.8 and -3.6 % at 120 Hz, -5.9 and -7.4 % at 60 Hz, halving with h as a
 * first-order error does. Asserted: 1 % at 480 Hz (the bound holds
 * from there), then twice the bound per halving of the rate. The steady
 * states above meet 1 % at every rate. */
START_TEST(test_transient_convergence)
{
    pdk_vehicle_def d = test_car();
    d.susp_front.roll_center_height_m = 0.08;
    d.susp_rear.roll_center_height_m = 0.12;
    double ref[3];
    step_steer(&d, DT, 8, ref);
    const struct {
        double tick_s;
        int substeps;
        double bound;
    } cases[] = {{DT, 4, 0.01}, {DT, 2, 0.02}, {DT, 1, 0.04}, {1.0 / 60.0, 1, 0.08}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got[3];
        step_steer(&d, cases[i].tick_s, cases[i].substeps, got);
        printf("fw_validation step steer %.0f Hz x %d: yaw rate %+.3f %%, roll %+.3f %%, lateral "
               "offset %+.3f %% against 8 substeps\n",
               1.0 / cases[i].tick_s, cases[i].substeps, 100.0 * (got[0] / ref[0] - 1.0),
               100.0 * (got[1] / ref[1] - 1.0), 100.0 * (got[2] / ref[2] - 1.0));
        for (int k = 0; k < 3; k++) {
            ck_assert_double_le(rel_err(got[k], ref[k]), cases[i].bound);
        }
    }
}
END_TEST

/* ---- 5. the ledger in a slide -------------------------------------------- */

/* Every four-wheel preset that has a driveline, in N at rest on flat
 * ground, given 8 m/s sideways (plain, and spinning at 1 rad/s of yaw) and
 * left 8 s, at 2 and at 8 substeps: a passive car gains no energy it does
 * not book, and books all it loses, so the ledger's residual stays within
 * 2e-4 of the work the tyres took. The kart's body springs back a little
 * at the end of a plain slide (the tyres' lateral deflection giving back
 * what it held, booked as negative slip work); that is no gain. Before the
 * differentials' friction was booked the sports car's preloaded LSD left
 * up to 237 J of a 45.6 kJ slide out of the ledger. The bound is 2e-4: the
 * Polaris, spinning, leaves 3.3 J of 32 kJ (1.0e-4), 3.2 J of it in the
 * first two ticks after the impulsive start, where the driveline books the
 * shafts' work at the spins its own solve found and the wheels take it at
 * the spins the chassis solve found (the split between the two solves,
 * ADR 0010); 2.8 J while the wheels took their tyres' end force. */
START_TEST(test_presets_slide_sideways_with_the_ledger_balanced)
{
    const char *names[] = {"compact_hatch", "midsize_sedan", "sports_car", "open_wheeler",
                           "kart",          "pickup4x4",     "polaris_ranger"};
    static const int substeps[2] = {2, 8};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pdk_vehicle_def d;
        char err[PDK_PARAMS_ERR_LEN];
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, names[i], NULL, &d, NULL, err,
                                              sizeof err) == PDK_OK,
                      "%s: %s", names[i], err);
        for (int spin = 0; spin < 2; spin++) {
            for (int k = 0; k < 2; k++) {
                static fw_run r;
                run_init(&r, &d, substeps[k], 0.0, PDK_GEAR_NEUTRAL);
                run_for(&r, 2.0);
                const double res0 = r.ch[PDK_CH_ENERGY_RESIDUAL];
                const double slip0 = r.ch[PDK_CH_ENERGY_TYRE_SLIP];
                r.state.vel_mps[1] = 8.0;
                r.state.omega_radps[2] = spin ? 1.0 : 0.0;
                double worst_j = 0.0;
                for (int t = 0; t < 8 * TICKS_PER_S; t++) {
                    run_tick(&r);
                    worst_j = fmax(worst_j, fabs(r.ch[PDK_CH_ENERGY_RESIDUAL] - res0));
                }
                assert_channels_finite(&r);
                const double slip_j = r.ch[PDK_CH_ENERGY_TYRE_SLIP] - slip0;
                printf("%-15s %s from 8 m/s sideways at %d substeps: tyres %.0f J, residual "
                       "at most %.4f J\n",
                       names[i], spin ? "spinning" : "sliding", substeps[k], slip_j, worst_j);
                ck_assert_double_gt(slip_j, 1000.0);
                ck_assert_double_lt(worst_j, 2e-4 * slip_j);
            }
        }
    }
}
END_TEST

static Suite *fw_validation_suite(void)
{
    Suite *s = suite_create("fw_validation");
    TCase *ride = tcase_create("static and ride");
    tcase_add_test(ride, test_static_loads_and_ride_height);
    tcase_add_test(ride, test_ride_frequency_and_damping);
    tcase_add_test(ride, test_presets_ride_frequency_and_damping);
    tcase_add_test(ride, test_anti_roll_bar_adds_no_ride_rate);
    suite_add_tcase(s, ride);

    TCase *lat = tcase_create("cornering");
    tcase_add_test(lat, test_lateral_load_transfer);
    tcase_add_test(lat, test_roll_gradient);
    tcase_add_test(lat, test_single_track_cross_check);
    tcase_add_test(lat, test_downforce_loads_the_axles);
    tcase_add_test(lat, test_angular_damping);
    suite_add_tcase(s, lat);

    TCase *lon = tcase_create("braking");
    tcase_add_test(lon, test_braking_dive_and_anti);
    tcase_add_test(lon, test_brakes_decelerate_at_coulomb_rate);
    tcase_add_test(lon, test_driving_squat_and_anti_drive);
    suite_add_tcase(s, lon);

    TCase *num = tcase_create("numerics");
    tcase_add_test(num, test_substep_convergence);
    tcase_add_test(num, test_transient_convergence);
    tcase_add_test(num, test_presets_slide_sideways_with_the_ledger_balanced);
    suite_add_tcase(s, num);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fw_validation_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
