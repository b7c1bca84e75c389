/* The four-wheel model's powertrain: four_wheel_powertrain.h. The laws are the
 * Polaris model's (docs/powertrain.md): engine, CVT and primary clutch, gear
 * lever, drive modes, driveline and fuel, each in its module (engine.c, cvt.c,
 * utv_gear.c, driveline.c); this file puts them in the model's order for one
 * substep. */
#include "vehicle/four_wheel_powertrain.h"

#include <math.h>
#include <string.h>

#include "math/vmath.h"
#include "powertrain/cvt.h"
#include "powertrain/engine.h"
#include "powertrain/utv_gear.h"
#include "sim/channels.h"

#define PI 3.14159265358979323846

/* fmax and fmin without libm's call (no NaN reaches them here). */
static inline double max_d(double a, double b)
{
    return a > b ? a : b;
}

static inline double min_d(double a, double b)
{
    return a < b ? a : b;
}

/* Active Descent Control locks the front clutches both ways while the pedal is
 * below this (docs/powertrain.md: 2 %). */
#define ADC_PEDAL 0.02

/* The overall ratio of a geared powertrain's forward gear g (1-based) in
 * position gear (D or L; L adds the low range), engine speed over the
 * carrier's. */
static double geared_ratio(const pdk_gearbox_def *gb, int g, int32_t gear)
{
    double range = gear == PDK_GEAR_LOW ? gb->low_range : 1.0;
    return gb->ratio[g - 1] * gb->final_drive * range;
}

/* The primary axle's wheels of a geared powertrain, or the UTV's rear. */
static int primary_axle(const pdk_powertrain_def *pt)
{
    return pt->kind == PDK_POWERTRAIN_GEARED ? pt->layout.driven_axle : 1;
}

void pdk_fw_powertrain_init(pdk_fw_state *state, const pdk_powertrain_def *pt, pdk_gear gear,
                            double speed_mps, double rear_radius_m)
{
    pdk_fw_powertrain *s = &state->pt;
    memset(s, 0, sizeof *s);
    if (pt->kind == PDK_POWERTRAIN_LUMPED) {
        return;
    }
    s->kind = (int32_t)pt->kind;
    s->requested = (int32_t)gear;
    s->fuel_l = pt->fuel_tank_l;
    s->drive_mode = (int32_t)pt->drive_mode;
    double rpm;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        /* The engine idling in first gear, or for a moving start in D or L
         * the lowest gear that turns it no faster than the light-load
         * upshift speed, the clutch gripping (in R the reverse gear). */
        const pdk_gearbox_def *gb = &pt->geared;
        const double wheel_radps = fabs(speed_mps) / rear_radius_m;
        int g = 1;
        double ratio = 0.0;
        if (gear == PDK_GEAR_DRIVE || gear == PDK_GEAR_LOW) {
            while (g < gb->n_gears &&
                   wheel_radps * geared_ratio(gb, g, (int32_t)gear) * (60.0 / (2.0 * PI)) >
                       gb->upshift_rpm_light) {
                g++;
            }
            ratio = geared_ratio(gb, g, (int32_t)gear);
        } else if (gear == PDK_GEAR_REVERSE) {
            ratio = gb->reverse_ratio * gb->final_drive;
        }
        s->gear_index = g;
        s->gear_target = g;
        rpm = max_d(pt->engine.idle_rpm, wheel_radps * ratio * (60.0 / (2.0 * PI)));
        s->carrier_radps = speed_mps / rear_radius_m;
    } else {
        /* The Polaris model (docs/powertrain.md): the lever in its position,
         * the belt at the low ratio and the engine at idle, or for a moving
         * start the belt gripping at the light-load shift speed; the request
         * the idle governor's; the tank full. */
        s->lever = pdk_utv_lever_in((pdk_utv_gear)gear);
        pdk_utv_ratios rt;
        pdk_utv_gear_ratios(&pt->gearbox, (pdk_utv_gear)gear, &rt);
        pdk_cvt_reset(&pt->cvt, pt->engine.idle_rpm, rt.direction != 0 ? speed_mps : 0.0,
                      rear_radius_m, rt.rear, &s->cvt_ratio, &rpm);
        s->carrier_radps = speed_mps / rear_radius_m;
    }
    s->engine_radps = rpm * (2.0 * PI / 60.0);
    s->request = pdk_engine_idle_request(&pt->engine, s->engine_radps);
    for (int j = 0; j < PDK_WHEELS; j++) {
        s->abs_scale[j] = 1.0;
    }
}

/* ABS (an option, powertrain.abs): a per-wheel wheel-slip controller that
 * holds the braking slip at the tyre's peak on whatever surface the wheel
 * is on, finding that peak from the wheel alone. It sees what a real one
 * sees: the wheel's rim speed, a reference speed (here the contact's
 * forward speed, which a real ABS estimates from the wheel speeds and the
 * car's deceleration), its own pressure and the wheel's inertia.
 *
 *  - The control cycle. Like an ABS ECU, it samples its sensors and decides
 *    at a fixed period, ABS_CYCLE_S (our choice, of the order of an ECU's
 *    loop of a few milliseconds: 1/240 s divides the 120 Hz tick, so the
 *    decisions fall at the same instants at every even substep count),
 *    whatever the simulation's substep; between decisions the modulator's
 *    pressure follows the rate last decided, continuously, and each
 *    substep's brake gets its mean pressure over the substep. A cycle's
 *    brake impulse is then the same however many substeps it spans, and
 *    the stop converges with the substep as the rest of the model does.
 *  - The slip regulator (the wheel-slip control of Kiencke and Nielsen,
 *    Automotive Control Systems, 2nd ed. 2005, ch. 9, in the integral form
 *    of a pressure modulator): the pressure's rate is ABS_GAIN_PER_S times
 *    the relative slip error (aim - slip) / aim, at most 1 (a free-rolling
 *    wheel builds the whole line pressure in 1 / ABS_GAIN_PER_S), less a
 *    lead on the slip's rate, ABS_LEAD_S, which stands for the Bosch
 *    controller's wheel-deceleration threshold (Robert Bosch GmbH, Safety,
 *    Comfort and Convenience Systems, 2006, "Antilock braking system": the
 *    pressure is held or let off as soon as the wheel decelerates too
 *    fast, before the slip threshold). The pressure never falls faster than
 *    exponentially with time constant ABS_DUMP_S (the outlet valve and the
 *    return pump).
 *  - The peak, sought from the wheel (extremum seeking: Ariyur and Krstic,
 *    Real-Time Optimization by Extremum-Seeking Control, 2003; applied to
 *    ABS by Drakunov et al., ABS control using optimum search via sliding
 *    modes, IEEE Trans. Control Systems Technology 3(1), 1995, and in the
 *    MathWorks example "Anti-Lock Braking Using Extremum Seeking
 *    Control"). The aim is the target slip with a sinusoidal dither of
 *    ABS_DITHER at ABS_DITHER_HZ. Each cycle the tyre's braking force is
 *    estimated from the wheel's balance over it, F R = T_brake + T_rolling
 *    + I a_rim / R, and the correlation of the force's and the slip's
 *    changes, filtered over ABS_FILTER_S, says on which side of the peak
 *    the wheel is: positive below it (more slip, more force), negative
 *    past it. The target slip grows or shrinks at up to ABS_SEEK_PER_S
 *    (relative, per second) by that correlation, weighted by how near the
 *    slip is to the target (a wheel far from it, locking or spinning back
 *    up, says nothing about the peak), and only while the controller has
 *    let some pressure off. So the target settles at the surface's own
 *    peak slip: about 1 % on ice, 5 to 10 % on a road tyre's dry peak, and
 *    the largest slip allowed (ABS_SLIP_MAX) on a loose soil whose thrust
 *    only grows with slip. Each cycle decides from values that move
 *    continuously with the wheel, so a small change in the wheel's motion
 *    makes a small change in the stop.
 *
 * Each wheel is a channel of its own, but for the axles locked together
 * (abs_step). Below ABS_MIN_MPS, or with the brakes off, the wheel has the
 * whole pressure and the controller starts over at ABS_SLIP_START, 7 %:
 * within the range of the peaks it will meet (our choice: a slick's dry
 * peak is near it, a road tyre's a little above, low friction's below,
 * and the search is shortest from the middle). */
#define ABS_MIN_MPS 2.0
#define ABS_CYCLE_S (1.0 / 240.0)
#define ABS_CYCLE_TOL 1e-6
#define ABS_SLIP_START 0.07
#define ABS_SLIP_MIN 0.005
#define ABS_SLIP_MAX 0.3
#define ABS_GAIN_PER_S 10.0
#define ABS_LEAD_S 0.02
#define ABS_DUMP_S 0.02
#define ABS_DITHER 0.1
#define ABS_DITHER_HZ 6.0
#define ABS_SEEK_PER_S 2.0
#define ABS_FILTER_S 0.05
/* The slip change below which the correlation fades (a wheel held at one
 * slip shows no slope), and the floor of the force's variance. */
#define ABS_SLIP_EPS 1e-4
#define ABS_TINY 1e-300

/* Starts wheel j's controller with its rim at rim_mps and its slip at slip. */
static void abs_start(pdk_fw_powertrain *s, int j, double rim_mps, double slip)
{
    s->abs_active[j] = 1;
    s->abs_peak_slip[j] = ABS_SLIP_START;
    s->abs_rate_per_s[j] = 0.0;
    s->abs_wheel_mps[j] = rim_mps;
    s->abs_since_s[j] = 0.0;
    s->abs_dose_s[j] = 0.0;
    s->abs_time_s[j] = 0.0;
    s->abs_fx_n[j] = 0.0;
    s->abs_slip[j] = slip;
    s->abs_cov_n[j] = 0.0;
    s->abs_var_fx_n2[j] = 0.0;
    s->abs_var_slip[j] = 0.0;
}

/* The tyre's braking force on wheel j over the control cycle that ends, its
 * rim now at rim_mps, from the wheel's balance: R F = T + I a_rim / R, the
 * brake torque brake_nm at the cycle's mean pressure share (dose_s over
 * since_s) and the rolling torque, less the inertia's share. */
static double abs_wheel_force_n(const pdk_fw_powertrain *s, int j, const pdk_dl_wheel *w,
                                double brake_nm, double rim_mps, double since_s, double dose_s)
{
    const double wheel_accel_mps2 = (rim_mps - s->abs_wheel_mps[j]) / since_s;
    const double torque_nm = brake_nm * (dose_s / since_s) + w->coulomb_nm;
    return (torque_nm + w->inertia_kgm2 * wheel_accel_mps2 / w->radius_m) / w->radius_m;
}

/* One control cycle's end for channel j (a wheel, or the four wheels of a
 * locked four-wheel drive, kept in wheel 0's place), its tyres' braking
 * force at fx_n and its slip at slip: the peak's search, and the
 * modulator's rate until the next cycle. */
static void abs_decide(pdk_fw_powertrain *s, int j, double fx_n, double slip)
{
    const double since_s = s->abs_since_s[j];
    double target = s->abs_peak_slip[j];
    if (s->abs_time_s[j] > 0.0) {
        /* The correlation of the changes of force and slip, filtered. */
        const double dfx_n = fx_n - s->abs_fx_n[j];
        const double dslip = slip - s->abs_slip[j];
        const double a = min_d(1.0, since_s / ABS_FILTER_S);
        s->abs_cov_n[j] += a * (dfx_n * dslip - s->abs_cov_n[j]);
        s->abs_var_fx_n2[j] += a * (dfx_n * dfx_n - s->abs_var_fx_n2[j]);
        s->abs_var_slip[j] += a * (dslip * dslip - s->abs_var_slip[j]);
        const double corr =
            s->abs_cov_n[j] / sqrt(s->abs_var_fx_n2[j] * s->abs_var_slip[j] +
                                   ABS_SLIP_EPS * ABS_SLIP_EPS * s->abs_var_fx_n2[j] + ABS_TINY);
        /* The target moves by it, weighted by how near the slip is to the
         * target, and only while the controller has let pressure off (at
         * the whole pressure the wheel says nothing of its peak). */
        const double off = (slip - target) / target;
        if (s->abs_scale[j] < 1.0) {
            target *= pdk_exp(ABS_SEEK_PER_S * pdk_exp(-off * off) * corr * since_s);
            target = min_d(ABS_SLIP_MAX, max_d(ABS_SLIP_MIN, target));
        }
    }
    s->abs_peak_slip[j] = target;
    s->abs_time_s[j] += since_s;
    /* The regulator: the rate by the relative error to the dithered aim,
     * less the lead on the slip's rate. */
    const double aim =
        target * (1.0 + ABS_DITHER * pdk_sin(2.0 * PI * ABS_DITHER_HZ * s->abs_time_s[j]));
    const double error = min_d(1.0, (aim - slip) / aim);
    const double slip_rate_per_s = (slip - s->abs_slip[j]) / since_s;
    s->abs_rate_per_s[j] = ABS_GAIN_PER_S * (error - ABS_LEAD_S * slip_rate_per_s / aim);
    s->abs_fx_n[j] = fx_n;
    s->abs_slip[j] = slip;
    s->abs_since_s[j] = 0.0;
    s->abs_dose_s[j] = 0.0;
}

/* The modulator over one substep of h_s for channel j: its pressure
 * follows the rate from where it stands, a build-up linear in time up to
 * the whole line pressure, a let-off exponential (its rate is relative).
 * Returns the mean share over the substep. */
static double abs_modulate(pdk_fw_powertrain *s, int j, double h_s)
{
    double scale = s->abs_scale[j];
    const double rate = max_d(s->abs_rate_per_s[j], -1.0 / ABS_DUMP_S);
    double mean = scale;
    if (rate < 0.0) {
        const double fall = pdk_exp(h_s * rate);
        mean = scale * (1.0 - fall) / (-h_s * rate);
        scale *= fall;
    } else if (rate > 0.0 && scale < 1.0) {
        const double rise_s = min_d(h_s, (1.0 - scale) / rate);
        mean = scale + (0.5 * rate * rise_s * rise_s + (1.0 - scale) * (h_s - rise_s)) / h_s;
        scale = min_d(1.0, scale + rate * h_s);
    }
    mean = min_d(1.0, max_d(0.0, mean));
    s->abs_scale[j] = min_d(1.0, max_d(0.0, scale));
    s->abs_since_s[j] += h_s;
    s->abs_dose_s[j] += h_s * mean;
    return mean;
}

/* The controller over one substep of h_s: each braked wheel's share of the
 * line pressure over it, its mean, in share. With the axles locked
 * together (a part-time four-wheel drive in 4H: both axles turn at one
 * speed through the transfer case, so no wheel's brake sets its own slip)
 * the four wheels are one channel, as a real ABS controls wheels it cannot
 * tell apart together (the select-low principle of the Bosch ABS's rear
 * axle, Robert Bosch GmbH, Safety, Comfort and Convenience Systems, 2006:
 * the slip of the wheel that slips most, the force of all four). */
static void abs_step(pdk_fw_powertrain *s, const pdk_dl_wheel wheels[PDK_WHEELS],
                     const double brake_nm[PDK_WHEELS], double h_s, bool locked_4wd,
                     double share[PDK_WHEELS])
{
    double rim_mps[PDK_WHEELS], slip[PDK_WHEELS];
    bool working[PDK_WHEELS];
    bool all = true;
    for (int j = 0; j < PDK_WHEELS; j++) {
        const pdk_dl_wheel *w = &wheels[j];
        working[j] = brake_nm[j] > 0.0 && fabs(w->vx_mps) > ABS_MIN_MPS;
        all = all && working[j];
        /* Speeds along the direction of travel: the reference v and the
         * wheel's rim, and the braking slip (v - rim) / v. */
        const double v_mps = fabs(w->vx_mps);
        rim_mps[j] = (w->vx_mps > 0.0 ? 1.0 : -1.0) * w->spin0_radps * w->radius_m;
        slip[j] = working[j] ? (v_mps - rim_mps[j]) / v_mps : 0.0;
        if (!working[j]) {
            s->abs_scale[j] = 1.0;
            s->abs_active[j] = 0;
            share[j] = 1.0;
        }
    }
    if (locked_4wd && all) {
        double worst = slip[0];
        for (int j = 1; j < PDK_WHEELS; j++) {
            worst = max_d(worst, slip[j]);
        }
        if (!s->abs_active[0]) {
            abs_start(s, 0, rim_mps[0], worst);
        } else if (s->abs_since_s[0] >= ABS_CYCLE_S * (1.0 - ABS_CYCLE_TOL)) {
            double fx_n = 0.0;
            for (int j = 0; j < PDK_WHEELS; j++) {
                fx_n += abs_wheel_force_n(s, j, &wheels[j], brake_nm[j], rim_mps[j],
                                          s->abs_since_s[0], s->abs_dose_s[0]);
            }
            abs_decide(s, 0, fx_n, worst);
        } else {
            /* between cycles the rims' samples stay */
            for (int j = 0; j < PDK_WHEELS; j++) {
                rim_mps[j] = s->abs_wheel_mps[j];
            }
        }
        /* The channel works in wheel 0's place; were the wheels to part
         * (one below ABS_MIN_MPS), the others start their own. */
        for (int j = 0; j < PDK_WHEELS; j++) {
            s->abs_wheel_mps[j] = rim_mps[j];
            s->abs_active[j] = j == 0;
        }
        const double mean = abs_modulate(s, 0, h_s);
        for (int j = 0; j < PDK_WHEELS; j++) {
            share[j] = mean;
            s->abs_scale[j] = s->abs_scale[0];
        }
        return;
    }
    for (int j = 0; j < PDK_WHEELS; j++) {
        if (!working[j]) {
            continue;
        }
        if (!s->abs_active[j]) {
            abs_start(s, j, rim_mps[j], slip[j]);
        } else if (s->abs_since_s[j] >= ABS_CYCLE_S * (1.0 - ABS_CYCLE_TOL)) {
            const double fx_n = abs_wheel_force_n(s, j, &wheels[j], brake_nm[j], rim_mps[j],
                                                  s->abs_since_s[j], s->abs_dose_s[j]);
            abs_decide(s, j, fx_n, slip[j]);
            s->abs_wheel_mps[j] = rim_mps[j];
        }
        share[j] = abs_modulate(s, j, h_s);
    }
}

/* The full-load power of gear g at the engine speed gear `from` turns at
 * rpm (the same road speed), W. */
static double full_power_in(const pdk_engine_def *e, const pdk_gearbox_def *gb, int g, int from,
                            double rpm)
{
    const double n = rpm * gb->ratio[g - 1] / gb->ratio[from - 1];
    return pdk_engine_full_load_nm(e, n) * n * (2.0 * PI / 60.0);
}

/* The scan's step for the full-load upshift speeds, rev/min, and the
 * bisection's steps inside the step where the sign changes. */
#define UPSHIFT_SCAN_RPM 5.0
#define UPSHIFT_BISECT 30

void pdk_fwpt_full_upshift_rpm(const pdk_powertrain_def *pt, double rpm_out[PDK_GEARS_MAX])
{
    const pdk_engine_def *e = &pt->engine;
    const pdk_gearbox_def *gb = &pt->geared;
    for (int g = 1; g <= PDK_GEARS_MAX; g++) {
        rpm_out[g - 1] = e->max_rpm;
        if (pt->kind != PDK_POWERTRAIN_GEARED || g >= gb->n_gears) {
            continue;
        }
        /* The lowest speed from the light-load upshift speed on at which
         * the next gear gives at least this one's full-load power: the
         * curve falls to 0 at the limiter, so there is one below it. */
        double lo = gb->upshift_rpm_light;
        if (full_power_in(e, gb, g + 1, g, lo) >= full_power_in(e, gb, g, g, lo)) {
            rpm_out[g - 1] = lo;
            continue;
        }
        for (double hi = lo + UPSHIFT_SCAN_RPM; lo < e->max_rpm; hi += UPSHIFT_SCAN_RPM) {
            hi = min_d(hi, e->max_rpm);
            if (full_power_in(e, gb, g + 1, g, hi) >= full_power_in(e, gb, g, g, hi)) {
                for (int k = 0; k < UPSHIFT_BISECT; k++) {
                    const double mid = 0.5 * (lo + hi);
                    if (full_power_in(e, gb, g + 1, g, mid) >= full_power_in(e, gb, g, g, mid)) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                rpm_out[g - 1] = hi;
                break;
            }
            lo = hi;
        }
    }
}

/* The shift program of an automatic gearbox (Naunheimer, Bertsche, Ryborz
 * and Novak, Automotive Transmissions, 2nd ed., Springer 2011, on shift
 * programs; Bosch, Automotive Handbook, on electronic transmission
 * control): each pair of neighbouring gears has an upshift line and a
 * downshift line in the plane of the accelerator pedal and the output
 * shaft's speed (the road's speed), never the engine's, which jumps at each
 * shift, runs ahead while the launch clutch slips and runs free while it is
 * open. Between the two lines lies a band of hysteresis, so the downshift
 * that would undo an upshift needs the car to slow by the band at the same
 * pedal; a shift that reverses the last waits a minimum time in gear; and
 * the kickdown (the downshift lines raised to the upshift lines less the
 * band, at full pedal) happens only once the pedal has been pushed to full,
 * and ends at the next upshift.
 *
 * Full pedal, from which the box shifts for the most power; the band, as a
 * share of the upshift line's output speed (a choice: the downshift after
 * an upshift at full pedal needs the car 10 % slower); the minimum time in
 * gear before a shift the other way (a choice, of the order of a shift and
 * its take-up several times over). */
#define FULL_PEDAL 0.95
#define SHIFT_BAND 0.10
#define MIN_IN_GEAR_S 1.0

/* The kickdown's states (pdk_fw_powertrain.kickdown). */
enum { KICKDOWN_OFF = 0, KICKDOWN_ARMED = 1, KICKDOWN_SPENT = 2 };

/* The upshift line of gear g at pedal (0..1): the engine's speed in gear g
 * at which the box goes up, rev/min. Part pedal: rising with the pedal from
 * the light-load to the full-load speed (the latter always for a
 * sequential box). Full pedal: where the next gear gives at least this
 * one's full-load power at the same road speed (full_upshift_rpm), as an
 * automatic's full-load program and a driver at the limit do. */
static double upshift_rpm(const pdk_gearbox_def *gb, const double full_upshift_rpm[PDK_GEARS_MAX],
                          int g, double pedal)
{
    if (pedal >= FULL_PEDAL) {
        return full_upshift_rpm[g - 1];
    }
    if (gb->shift == PDK_SHIFT_SEQUENTIAL) {
        return gb->upshift_rpm_full;
    }
    return gb->upshift_rpm_light + (gb->upshift_rpm_full - gb->upshift_rpm_light) * pedal;
}

/* Starts a shift to target (the clutch open for shift_time_s; at once for
 * none). */
static void begin_shift(pdk_fw_powertrain *s, const pdk_gearbox_def *gb, int target)
{
    s->gear_target = target;
    s->shift_left_s = gb->shift_time_s;
    if (!(s->shift_left_s > 0.0)) {
        s->gear_index = target;
    }
}

/* A geared powertrain's gear in D (and L), once a tick: a shift under way
 * ends when its time is up, and its take-up when the engine has come to the
 * new gear's speed; otherwise the shift program above, on the carrier's
 * speed (the output shaft's, through the final drive): up a gear above the
 * upshift line, down one below the downshift line. */
static void geared_tick(pdk_fw_powertrain *s, const pdk_fw_cmd *cmd, const pdk_gearbox_def *gb,
                        const double full_upshift_rpm[PDK_GEARS_MAX], double tick_s)
{
    if (s->gear_index < 1) {
        s->gear_index = 1;
        s->gear_target = 1;
    }
    const double pedal = min_d(1.0, max_d(0.0, cmd->throttle_pct / 100.0));
    if (pedal < FULL_PEDAL) {
        s->kickdown = KICKDOWN_OFF;
    } else if (s->kickdown == KICKDOWN_OFF) {
        s->kickdown = KICKDOWN_ARMED;
    }
    if (s->shift_left_s > 0.0) {
        s->shift_left_s -= tick_s;
        if (s->shift_left_s <= 0.0) {
            /* In gear: its clutch takes up over as long again (negative
             * time counts the take-up). */
            s->gear_index = s->gear_target;
            s->shift_left_s = -gb->shift_time_s;
        }
        return;
    }
    if (s->shift_left_s < 0.0) {
        /* The take-up ends when its time is up or the engine has come to
         * the new gear's speed (within 100 rev/min): no new shift before. */
        const double synced = fabs(s->carrier_radps) * geared_ratio(gb, s->gear_index, cmd->gear);
        s->shift_left_s = fabs(s->engine_radps - synced) < 100.0 * (2.0 * PI / 60.0)
                              ? 0.0
                              : min_d(0.0, s->shift_left_s + tick_s);
        return;
    }
    s->in_gear_s += tick_s;
    if (cmd->gear != PDK_GEAR_DRIVE && cmd->gear != PDK_GEAR_LOW) {
        s->gear_index = 1;
        s->gear_target = 1;
        return;
    }
    if (gb->shift == PDK_SHIFT_MANUAL) {
        /* The gear the command names (first in L), within the box; none
         * named yet (a vehicle spawned moving) keeps the gear it has. */
        int want = cmd->gear == PDK_GEAR_LOW ? 1
                   : cmd->gear_number > 0    ? cmd->gear_number
                                             : s->gear_index;
        want = want < 1 ? 1 : (want > gb->n_gears ? gb->n_gears : want);
        if (want != s->gear_index) {
            begin_shift(s, gb, want);
        }
        return;
    }
    /* The output's speed in rev/min of the engine in gear g: w R_g. */
    const double out_radps = fabs(s->carrier_radps);
    const int g = s->gear_index;
    const double rpm = out_radps * geared_ratio(gb, g, cmd->gear) * (60.0 / (2.0 * PI));
    int target = g;
    if (g < gb->n_gears && rpm > upshift_rpm(gb, full_upshift_rpm, g, pedal)) {
        target = g + 1;
    } else if (g > 1) {
        /* The downshift line, in the engine's speed in the gear below at
         * the same road speed: below downshift_rpm in this gear, or with the
         * kickdown armed anywhere below the gear below's upshift line; and
         * always the band below that line, which also keeps the engine
         * under its limiter after the downshift (no upshift line is above
         * it). */
        const double step = gb->ratio[g - 2] / gb->ratio[g - 1];
        const double up_below = upshift_rpm(gb, full_upshift_rpm, g - 1, pedal);
        double line = s->kickdown == KICKDOWN_ARMED ? up_below : gb->downshift_rpm * step;
        line = min_d(line, (1.0 - SHIFT_BAND) * up_below);
        if (rpm * step < line) {
            target = g - 1;
        }
    }
    /* A shift the other way from the last (the first has none) waits its
     * minimum time in gear. */
    const int dir = target > g ? 1 : (target < g ? -1 : 0);
    if (dir != 0 && (dir == s->last_shift || s->last_shift == 0 || s->in_gear_s >= MIN_IN_GEAR_S)) {
        if (dir > 0 && s->kickdown == KICKDOWN_ARMED) {
            s->kickdown = KICKDOWN_SPENT;
        }
        s->last_shift = dir;
        s->in_gear_s = 0.0;
        begin_shift(s, gb, target);
    }
}

void pdk_fwpt_tick(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_powertrain_def *pt,
                   const pdk_fw_consts *consts, double tick_s, double speed_mps)
{
    pdk_fw_powertrain *s = &state->pt;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        /* A car's selector takes the command's position at once. */
        s->requested = cmd->gear;
        geared_tick(s, cmd, &pt->geared, consts->full_upshift_rpm, tick_s);
        return;
    }
    if (cmd->gear != s->requested) {
        s->requested = cmd->gear;
        s->reject = (int32_t)pdk_utv_lever_request(&s->lever, &pt->gearbox, cmd->gear, speed_mps);
    }
    pdk_utv_lever_step(&s->lever, tick_s);
}

/* The driveline's layout for the switch's position (docs/powertrain.md): Turf
 * an open rear differential and no front drive, 2WD a locked rear, AWD a
 * locked rear and the front's overrunning clutches at ring ratio k, locked
 * both ways by Active Descent Control with the pedal shut. */
static pdk_dl_layout utv_layout(const pdk_powertrain_def *pt, int32_t mode, double k, double pedal)
{
    pdk_dl_layout l;
    memset(&l, 0, sizeof l);
    l.primary = 1;
    l.primary_diff.kind = mode == PDK_DRIVE_TURF ? PDK_DIFF_OPEN : PDK_DIFF_LOCKED;
    l.primary_diff.bias_ratio = 1.0;
    l.secondary_k = k > 0.0 ? k : 1.0;
    if (mode == PDK_DRIVE_AWD) {
        l.coupling = pt->cvt.adc && pedal < ADC_PEDAL ? PDK_COUPLING_BOTH : PDK_COUPLING_OVERRUN;
    }
    return l;
}

/* What the transmission gives a substep's driveline: the overall ratio R,
 * the clutch's capacities and efficiency, the layout, the inertia turning
 * with the carrier (shared by the primary wheels), and in park the pawl. */
typedef struct transmission {
    double ratio;
    double cap_fwd_nm, cap_rev_nm;
    double efficiency;
    pdk_dl_layout layout;
    double carrier_inertia_kgm2;
    double converter_stall_ratio, converter_coupling; /* a geared automatic's, else 0 */
    int parked;
} transmission;

/* The UTV's CVT and lever (docs/powertrain.md, "Gear
 * Lever"): the clutch's capacities at the free speed, the belt's ratio
 * toward the shift speed's; in a gear the secondary clutch and gearbox,
 * J_s i_r^2, turn with the carrier. */
static void utv_transmission(pdk_fw_powertrain *s, const pdk_powertrain_def *pt, double omega_free,
                             double rear_omega, double pedal, double cvt_lag, pdk_fwpt_out *out,
                             transmission *tr)
{
    const pdk_engine_def *eng = &pt->engine;
    pdk_utv_gear gear = pdk_utv_lever_gear(&s->lever);
    pdk_utv_ratios rt;
    pdk_utv_gear_ratios(&pt->gearbox, gear, &rt);
    const bool in_gear = rt.direction != 0;
    pdk_cvt_capacity cap;
    pdk_cvt_capacities(&pt->cvt, eng->idle_rpm, omega_free, in_gear, &cap);
    double peak = 0.0;
    for (int i = 0; i < eng->n_curve; i++) {
        peak = max_d(peak, eng->curve_nm[i]);
    }
    const double shift = pdk_cvt_shift_rpm(&pt->cvt, s->clutch_nm, peak);
    const double omega_s = fabs(rear_omega) * rt.rear;
    const double r_target =
        pdk_cvt_target_ratio(&pt->cvt, &cap, in_gear, s->clutch_nm, shift, omega_s);
    s->cvt_ratio = r_target + (s->cvt_ratio - r_target) * cvt_lag; /* pdk_cvt_lag_ratio */
    tr->ratio = (double)rt.direction * s->cvt_ratio * rt.rear;
    tr->cap_fwd_nm = cap.fwd_nm;
    tr->cap_rev_nm = cap.rev_nm;
    tr->efficiency = min_d(1.0, max_d(0.05, pt->cvt.belt_efficiency * pt->cvt.gear_efficiency));
    tr->layout = utv_layout(pt, s->drive_mode, rt.ring, pedal);
    tr->carrier_inertia_kgm2 = in_gear ? pt->cvt.secondary_inertia_kgm2 * rt.rear * rt.rear : 0.0;
    tr->converter_stall_ratio = 0.0;
    tr->converter_coupling = 0.0;
    tr->parked = gear == PDK_UTV_GEAR_PARK;
    if (tr->parked) {
        /* The pawl holds the rear carrier, and in AWD the front ring through
         * the front clutches locked both ways (docs/powertrain.md); the
         * chassis solve holds each wheel with the pawl's capacity as a Coulomb
         * torque (its share of 20 kN m is far above what a tyre passes). */
        const double share = 0.5 * pt->gearbox.park_hold_nm;
        out->pawl_nm[PDK_RL] = share;
        out->pawl_nm[PDK_RR] = share;
        if (s->drive_mode == PDK_DRIVE_AWD) {
            out->pawl_nm[PDK_FL] = share / rt.ring;
            out->pawl_nm[PDK_FR] = share / rt.ring;
        }
    }
}

/* A geared powertrain's gearbox: the gear's overall ratio (none while it
 * shifts, in P and in N), the launch clutch's capacities by the CVT's
 * centrifugal law, C_max clamp((w^2 - w_eng^2) / (w_full^2 - w_eng^2), 0,
 * 1), at the engine speed the substep ends at while it slips each way
 * (pdk_centrifugal_capacities, cvt.h), the layout of the definition; in P
 * the pawl on the driven wheels. */
static void geared_transmission(const pdk_fw_powertrain *s, const pdk_powertrain_def *pt,
                                const pdk_fw_cmd *cmd, double omega_free, double h_s,
                                pdk_fwpt_out *out, transmission *tr)
{
    const pdk_gearbox_def *gb = &pt->geared;
    const int32_t gear = cmd->gear;
    double ratio = 0.0;
    if (s->shift_left_s <= 0.0 && (gear == PDK_GEAR_DRIVE || gear == PDK_GEAR_LOW)) {
        ratio = geared_ratio(gb, s->gear_index, gear);
    } else if (gear == PDK_GEAR_REVERSE) {
        ratio = -gb->reverse_ratio * gb->final_drive;
    }
    const pdk_centrifugal_capacity law = pdk_centrifugal_capacities(
        gb->clutch_capacity_nm, gb->clutch_engage_rpm * (2.0 * PI / 60.0),
        gb->clutch_full_rpm * (2.0 * PI / 60.0), omega_free, h_s / pt->engine.inertia_kgm2);
    double cap_fwd = ratio != 0.0 ? law.fwd_nm : 0.0;
    double cap_rev = ratio != 0.0 ? law.rev_nm : 0.0;
    if (s->shift_left_s < 0.0) {
        /* The next gear's clutch takes up (for shift_time_s after the
         * shift): it carries what the pedal asks of the engine, a fifth
         * more, at least a quarter of its capacity, so that the engine's
         * speed comes down to the new gear's through its slip while the
         * car pulls as the driver asked, not in one jolt. */
        double peak_nm = 0.0;
        for (int i = 0; i < pt->engine.n_curve; i++) {
            peak_nm = max_d(peak_nm, pt->engine.curve_nm[i]);
        }
        const double pedal = min_d(1.0, max_d(0.0, cmd->throttle_pct / 100.0));
        const double most = max_d(0.25 * gb->clutch_capacity_nm, 1.2 * pedal * peak_nm);
        cap_fwd = min_d(cap_fwd, most);
        cap_rev = min_d(cap_rev, most);
    }
    tr->ratio = ratio;
    tr->cap_fwd_nm = cap_fwd;
    tr->cap_rev_nm = cap_rev;
    tr->efficiency = min_d(1.0, max_d(0.05, gb->efficiency));
    memset(&tr->layout, 0, sizeof tr->layout);
    tr->layout.primary = pt->layout.driven_axle;
    tr->layout.primary_diff = pt->layout.diff;
    tr->layout.coupling = pt->layout.coupling;
    tr->layout.secondary_diff = pt->layout.secondary_diff;
    tr->layout.secondary_k = pt->layout.secondary_ratio > 0.0 ? pt->layout.secondary_ratio : 1.0;
    tr->layout.centre_diff = pt->layout.centre_diff;
    tr->carrier_inertia_kgm2 = ratio != 0.0 ? pt->output_inertia_kgm2 : 0.0;
    tr->converter_stall_ratio = gb->converter_stall_ratio;
    tr->converter_coupling = gb->converter_coupling;
    tr->parked = gear == PDK_GEAR_PARK;
    if (tr->parked) {
        /* The pawl on the driven wheels (through the coupling on the
         * other axle's), and the parking brake on the rear wheels. */
        out->pawl_nm[PDK_RL] = gb->handbrake_nm;
        out->pawl_nm[PDK_RR] = gb->handbrake_nm;
        const int p = 2 * pt->layout.driven_axle;
        out->pawl_nm[p] += 0.5 * gb->park_hold_nm;
        out->pawl_nm[p + 1] += 0.5 * gb->park_hold_nm;
        if (pt->layout.coupling != PDK_COUPLING_NONE) {
            const int q = 2 - p;
            out->pawl_nm[q] += 0.5 * gb->park_hold_nm / tr->layout.secondary_k;
            out->pawl_nm[q + 1] += 0.5 * gb->park_hold_nm / tr->layout.secondary_k;
        }
    }
}

void pdk_fwpt_substep_begin(pdk_fw_state *state, const pdk_fw_cmd *cmd,
                            const pdk_powertrain_def *pt, const pdk_fw_consts *c,
                            const double brake_nm[PDK_WHEELS], double dvx_mps, pdk_fwpt_out *out,
                            pdk_fwpt_mid *mid)
{
    /* The driveline's wheels, made ready where its solve reads them. */
    pdk_dl_wheel *wheels = mid->wheels;
    pdk_fw_powertrain *s = &state->pt;
    const pdk_engine_def *eng = &pt->engine;
    const double h_s = c->h_s;
    memset(out, 0, sizeof *out);
    double share[PDK_WHEELS] = {s->abs_scale[0], s->abs_scale[1], s->abs_scale[2],
                                s->abs_scale[3]};
    if (pt->abs) {
        const bool locked_4wd =
            pt->kind == PDK_POWERTRAIN_GEARED && pt->layout.coupling == PDK_COUPLING_LOCKED;
        abs_step(s, wheels, brake_nm, h_s, locked_4wd, share);
    }
    /* Each wheel's Coulomb torque with its brakes, and its tyre's contact
     * speed at the substep's end. The chassis solve (backward Euler) gives
     * the tyre's force at the end's slip velocity, w1 R - V_x1, and the
     * driveline, solved before it (ADR 0010), linearises the same tyre:
     * held at the start's V_x0 while the car accelerates, its tyre pushed
     * back by k h dV/dt more than the chassis', the driveline left the
     * engine's inertia too little and handed the chassis too much shaft
     * torque, an error of the first order in the substep (the Polaris's
     * 0-60 km/h was 1.3 % quicker at 2 substeps than at 8). The body's
     * forward acceleration over the last substep extrapolates V_x1 with an
     * error of the second order, as a coupled simulation extrapolates its
     * coupling variables linearly rather than holding them (Kuebler and
     * Schiehlen, Two methods of simulator coupling, Mathematical and
     * Computer Modelling of Dynamical Systems 6(2), 2000). ABS reads the
     * start's slip. */
    for (int j = 0; j < PDK_WHEELS; j++) {
        out->brake_nm[j] = brake_nm[j] * share[j];
        wheels[j].coulomb_nm += out->brake_nm[j];
        wheels[j].vx_mps += dvx_mps;
    }
    const double pedal = cmd->throttle_pct / 100.0;
    const int p = 2 * primary_axle(pt);

    /* The engine (docs/powertrain.md): the request toward the larger of the
     * pedal's (governed on the driven wheels' speed) and the idle governor's,
     * the torque at the start's speed, the free speed. */
    const double drive_omega = 0.5 * (wheels[p].spin0_radps + wheels[p + 1].spin0_radps);
    const double v_drive = fabs(drive_omega) * wheels[p].radius_m;
    const bool empty = pt->fuel_tank_l > 0.0 && !(s->fuel_l > 0.0);
    /* A geared box cuts the engine's torque while it shifts (the torque
     * management every automatic and sequential box does) and while the
     * next gear's clutch takes up, so that the engine does not flare with
     * its clutch open and its speed comes down to the new gear's. */
    const bool shifting = pt->kind == PDK_POWERTRAIN_GEARED && s->shift_left_s != 0.0;
    const double target = pdk_engine_target_request_mapped(
        eng, shifting ? 0.0 : cmd->pedal_map, c->idle_feed, s->engine_radps, v_drive, empty);
    s->request = target + (s->request - target) * c->engine_lag; /* pdk_engine_lag_request */
    pdk_engine_torque et;
    pdk_engine_torque_at(eng, s->request, s->engine_radps, empty, &et);
    const double omega_start = s->engine_radps;
    const double omega_free = pdk_engine_free_speed(eng, omega_start, et.brake_nm, h_s);

    transmission tr;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        geared_transmission(s, pt, cmd, omega_free, h_s, out, &tr);
    } else {
        utv_transmission(s, pt, omega_free, drive_omega, pedal, c->cvt_lag, out, &tr);
    }
    const double ratio = tr.ratio;
    out->ratio = ratio;

    mid->et = et;
    mid->omega_start = omega_start;
    mid->carrier_start = s->carrier_radps;
    mid->solve = !tr.parked;
    if (tr.parked) {
        /* The engine runs free. */
        s->engine_radps = omega_free;
        s->clutch_nm = 0.0;
        s->carrier_radps = 0.0;
        return;
    }
    /* The driveline (docs/powertrain.md). What turns with the carrier (the
     * UTV's secondary clutch and gearbox, J_s i_r^2, or a gearbox's output) is
     * shared by the primary wheels: in the solve's balance, and taken off the
     * shaft torque the chassis' wheel (its own inertia) receives. */
    mid->j_sec = 0.5 * tr.carrier_inertia_kgm2;
    mid->wheels[p].inertia_kgm2 += mid->j_sec;
    mid->wheels[p + 1].inertia_kgm2 += mid->j_sec;
    mid->side = (pdk_dl_engine){
        .free_radps = omega_free,
        .inertia_kgm2 = eng->inertia_kgm2,
        .ratio = ratio,
        .efficiency = tr.efficiency,
        .cap_fwd_nm = tr.cap_fwd_nm,
        .cap_rev_nm = tr.cap_rev_nm,
        .converter_stall_ratio = tr.converter_stall_ratio,
        .converter_coupling = tr.converter_coupling,
    };
    mid->layout = tr.layout;
}

void pdk_fwpt_substep_end(pdk_fw_state *state, const pdk_powertrain_def *pt, const pdk_fw_consts *c,
                          const pdk_fwpt_mid *mid, pdk_fwpt_out *out)
{
    pdk_fw_powertrain *s = &state->pt;
    const pdk_engine_def *eng = &pt->engine;
    const double h_s = c->h_s;
    double *ledger = s->ledger_j;
    const double omega_start = mid->omega_start;
    const pdk_engine_torque et = mid->et;
    if (mid->solve) {
        const pdk_dl_result res = mid->res;
        const pdk_dl_wheel *w = mid->wheels;
        const int p = 2 * primary_axle(pt);
        const double j_sec = mid->j_sec;
        const double carrier_start = mid->carrier_start;
        const double ratio = mid->side.ratio;
        double to_wheels_j = 0.0;
        for (int j = 0; j < PDK_WHEELS; j++) {
            if ((res.driven >> j) & 1u) {
                const double w0 = w[j].spin0_radps, w1 = res.spin_radps[j];
                const int shared = j == p || j == p + 1;
                double own = shared ? j_sec * (w1 - w0) / h_s : 0.0;
                out->shaft_nm[j] = res.shaft_nm[j] - own;
                /* The carrier's inertia's share of the car's kinetic energy. */
                ledger[PDK_LEDGER_KINETIC] += shared ? 0.5 * j_sec * (w1 * w1 - w0 * w0) : 0.0;
                to_wheels_j += res.shaft_nm[j] * 0.5 * (w0 + w1) * h_s;
            }
        }
        /* The Polaris model (docs/powertrain.md): the clutch's slip, T_c (mean
         * omega_e
         * - R mean c) dt, and the belt's and gears' loss, (T_c R - D) mean
         * c dt. */
        const double mean_c = 0.5 * (carrier_start + res.carrier_radps);
        const double mean_e = 0.5 * (omega_start + res.engine_radps);
        /* With a torque converter the turbine turns R c with TR times the
         * pump's torque: its loss is T_c (omega_e - TR R c). */
        const double turbine_ratio = res.torque_ratio * ratio;
        ledger[PDK_LEDGER_CLUTCH] += res.clutch_nm * (mean_e - turbine_ratio * mean_c) * h_s;
        ledger[PDK_LEDGER_DRIVELINE] +=
            (res.clutch_nm * turbine_ratio - res.delivered_nm) * mean_c * h_s;
        /* The differentials' and couplings' friction: what the carrier
         * took, D mean c dt, less what the shafts gave the wheels (and the
         * carrier's inertia, booked above as kinetic), sum T_j mean w_j dt.
         * An open differential or a spool passes it all; a limited-slip
         * one's locking torque turns the difference between its sides'
         * speeds into heat (its preload does so with no torque through
         * it, as when the car slides sideways with its wheels turning
         * apart). */
        ledger[PDK_LEDGER_DRIVELINE] += res.delivered_nm * mean_c * h_s - to_wheels_j;
        s->engine_radps = res.engine_radps;
        s->clutch_nm = res.clutch_nm;
        s->carrier_radps = res.carrier_radps;
        out->clutch_slip_radps = res.engine_radps - ratio * res.carrier_radps;
        out->evaluations = res.evaluations;
    }

    /* Fuel (docs/powertrain.md): the Willans line at the substep's mean engine
     * speed, drawn from the tank (none drawn without one). */
    const double mean_omega = 0.5 * (omega_start + s->engine_radps);
    const double fuel_w = pdk_engine_fuel_power_w(eng, &et, mean_omega);
    const double litres_per_j = 1.0 / (pt->fuel_heating_value_jpkg * pt->fuel_density_kgpl);
    const double used = fuel_w * h_s * litres_per_j;
    /* The ledger's engine terms: the fuel, what the engine did not turn
     * into brake work, the accessories, and its spin energy. */
    const double brake_w = et.brake_nm * mean_omega;
    ledger[PDK_LEDGER_FUEL] += fuel_w * h_s;
    ledger[PDK_LEDGER_ENGINE_LOSS] += (fuel_w - brake_w) * h_s;
    ledger[PDK_LEDGER_PARASITIC] += eng->accessory_drag_nm * mean_omega * h_s;
    ledger[PDK_LEDGER_ENGINE_KINETIC] +=
        0.5 * eng->inertia_kgm2 * (s->engine_radps * s->engine_radps - omega_start * omega_start);
    s->fuel_used_l += used;
    if (pt->fuel_tank_l > 0.0) {
        s->fuel_l = max_d(0.0, s->fuel_l - used);
    }
    out->fuel_rate_lph = fuel_w * litres_per_j * 3600.0;
    out->engine_nm = et.brake_nm - eng->accessory_drag_nm;
}

void pdk_fwpt_channels(const pdk_fw_state *state, const pdk_powertrain_def *pt,
                       const pdk_fwpt_out *out, double *ch)
{
    const pdk_fw_powertrain *s = &state->pt;
    double placed = 0.0;
    for (int k = 0; k < PDK_LEDGER_COUNT; k++) {
        ch[PDK_CH_ENERGY_FUEL + k] = s->ledger_j[k];
        placed += k == PDK_LEDGER_FUEL ? 0.0 : s->ledger_j[k];
    }
    ch[PDK_CH_ENERGY_RESIDUAL] = s->ledger_j[PDK_LEDGER_FUEL] - placed;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        /* The selector is the command's; the gear engaged, 0 while a shift
         * is under way or out of D and L. */
        const int in_d = s->requested == PDK_GEAR_DRIVE || s->requested == PDK_GEAR_LOW;
        ch[PDK_CH_GEAR_NUMBER] = in_d && !(s->shift_left_s > 0.0) ? (double)s->gear_index : 0.0;
    } else {
        ch[PDK_CH_GEAR] = (double)pdk_utv_lever_gear(&s->lever);
    }
    ch[PDK_CH_ENGINE_RPM] = s->engine_radps * (60.0 / (2.0 * PI));
    ch[PDK_CH_ENGINE_TORQUE] = out->engine_nm;
    ch[PDK_CH_CVT_RATIO] = s->cvt_ratio;
    ch[PDK_CH_CLUTCH_TORQUE] = s->clutch_nm;
    ch[PDK_CH_CLUTCH_SLIP] = out->clutch_slip_radps;
    ch[PDK_CH_DRIVE_MODE] = (double)s->drive_mode;
    ch[PDK_CH_FUEL_RATE] = out->fuel_rate_lph;
    ch[PDK_CH_FUEL_USED] = s->fuel_used_l;
    ch[PDK_CH_FUEL_LEVEL] = s->fuel_l;
    ch[PDK_CH_GEAR_REJECT] = (double)s->reject;
}

_Static_assert(PDK_CH_ENERGY_POTENTIAL - PDK_CH_ENERGY_FUEL == PDK_LEDGER_POTENTIAL,
               "one energy channel per ledger term, in its order");
