/* The four-wheel model's powertrain: four_wheel_powertrain.h. The laws are the
 * Polaris model's (docs/powertrain.md): engine, CVT and primary clutch, gear
 * lever, drive modes, driveline and fuel, each in its module (engine.c, cvt.c,
 * utv_gear.c, driveline.c); this file puts them in the model's order for one
 * substep. */
#include "vehicle/four_wheel_powertrain.h"

#include <math.h>
#include <string.h>

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

/* ABS (an option, powertrain.abs): a per-wheel controller that holds the
 * braking slip near the tyre's peak on whatever surface the wheel is on,
 * with the control phases of the Bosch ABS (Robert Bosch GmbH, Safety,
 * Comfort and Convenience Systems, 2006, "Antilock braking system", the
 * control cycle: build-up, hold at the -a threshold, pressure reduction
 * past the slip threshold lambda1, hold while the wheel re-accelerates,
 * build-up in steps) and a slip threshold learned from the wheel, as
 * Burckhardt's slip controllers learn the surface's mu-slip curve
 * (Burckhardt, Fahrwerktechnik: Radschlupf-Regelsysteme, 1993). The
 * controller sees what a real one sees: the wheel's rim speed, a reference
 * speed (here the contact's forward speed, which a real ABS estimates from
 * the wheel speeds and the car's deceleration), its own pressure and the
 * wheel's inertia.
 *
 *  - apply: the pressure builds up, quickly (ABS_APPLY_FAST_S for the whole
 *    level) to ABS_FAST_SHARE of the level the tyre last took, then in slow
 *    steps (ABS_APPLY_SLOW_S), so that it creeps up to the surface's limit.
 *  - hold: the wheel falls behind the vehicle by more than -a (its rim
 *    decelerates faster than the reference by ABS_DECEL_MPS2, or its slip
 *    grows faster than ABS_SLIP_RATE_PER_S): the peak may be passed; the
 *    pressure is held. If the wheel catches up, apply again.
 *  - dump: past lambda1 (ABS_DUMP_SLIP_FACTOR times the learned peak slip)
 *    while falling behind, or not spinning back up fast enough to be at
 *    the peak slip within ABS_RECOVER_S, the pressure falls exponentially
 *    (ABS_DUMP_S; faster the nearer the wheel is to locked, down to
 *    ABS_DUMP_LOCKED of it) until the wheel recovers. Then recover.
 *  - recover: the pressure is held while the wheel spins back up; once its
 *    slip is below the learned peak slip, apply again.
 *
 * The learning: in the slow build-up and the hold, the tyre's braking force
 * is estimated from the wheel's own balance, F R = T_brake + T_rolling +
 * I a_rim / R, and the slip where it was largest is kept. At each dump the
 * learned peak slip moves ABS_LEARN of the way to that slip (or, if the
 * force was still rising where the slip stopped, to ABS_PROBE beyond it),
 * and the level the fast build-up returns to becomes the pressure that
 * balances the force the tyre gives as the dump begins. So the thresholds
 * settle near the surface's own peak slip: a few per cent on ice, more on
 * a road tyre's dry peak. Below ABS_MIN_MPS, or
 * with the brakes off, the wheel has the whole pressure and the controller
 * starts over at ABS_PEAK_SLIP_START. */
#define ABS_MIN_MPS 2.0
#define ABS_PEAK_SLIP_START 0.1
#define ABS_PEAK_SLIP_MIN 0.005
#define ABS_PEAK_SLIP_MAX 0.3
#define ABS_DUMP_SLIP_FACTOR 1.3
#define ABS_DUMP_SLIP_MIN 0.005
#define ABS_DECEL_MPS2 0.5
#define ABS_SLIP_RATE_PER_S 0.2
#define ABS_RECOVER_S 0.15
#define ABS_DUMP_S 0.04
#define ABS_FAST_SHARE 0.95
#define ABS_MIN_SHARE 0.02
#define ABS_APPLY_FAST_S 0.05
#define ABS_APPLY_SLOW_S 0.3
#define ABS_DUMP_LOCKED 0.2
#define ABS_PROBE 1.1
#define ABS_LEARN 0.7

enum { ABS_IDLE = 0, ABS_APPLY, ABS_HOLD, ABS_DUMP, ABS_RECOVER };

/* The end of a cycle (the pressure starts to fall) for wheel j at slip,
 * its pressure share at scale, its tyre's braking force estimated at
 * fx_n. The level the fast build-up returns to becomes the pressure that
 * balances that force. The slip at which the estimated force peaked in
 * this cycle's slow build-up and hold moves the learned peak slip
 * ABS_LEARN of the way to it; if the force was still rising where the
 * slip stopped, the peak lies beyond, ABS_PROBE further. A cycle with no
 * slow build-up (the driver's first step of pressure) teaches no slip. */
static void abs_learn(pdk_fw_powertrain *s, int j, double slip, double scale, double fx_n,
                      const pdk_dl_wheel *w, double brake_nm)
{
    s->abs_peak_scale[j] = min_d(scale, max_d(ABS_MIN_SHARE, fx_n * w->radius_m / brake_nm));
    if (s->abs_cycle_fx_n[j] > 0.0) {
        double found = s->abs_cycle_slip[j];
        if (!(found < slip / ABS_PROBE)) {
            found = slip * ABS_PROBE;
        }
        found = min_d(ABS_PEAK_SLIP_MAX, max_d(ABS_PEAK_SLIP_MIN, found));
        s->abs_peak_slip[j] += ABS_LEARN * (found - s->abs_peak_slip[j]);
    }
    s->abs_cycle_fx_n[j] = 0.0;
    s->abs_cycle_slip[j] = 0.0;
}

static void abs_step(pdk_fw_powertrain *s, const pdk_dl_wheel wheels[PDK_WHEELS],
                     const double brake_nm[PDK_WHEELS], double h_s)
{
    for (int j = 0; j < PDK_WHEELS; j++) {
        const pdk_dl_wheel *w = &wheels[j];
        if (!(brake_nm[j] > 0.0 && fabs(w->vx_mps) > ABS_MIN_MPS)) {
            s->abs_scale[j] = 1.0;
            s->abs_phase[j] = ABS_IDLE;
            continue;
        }
        /* Speeds along the direction of travel: the reference v and the
         * wheel's rim, and the braking slip (v - rim) / v. */
        const double v_mps = fabs(w->vx_mps);
        const double rim_mps = (w->vx_mps > 0.0 ? 1.0 : -1.0) * w->spin0_radps * w->radius_m;
        const double slip = (v_mps - rim_mps) / v_mps;
        double scale = s->abs_scale[j];
        if (s->abs_phase[j] == ABS_IDLE) {
            s->abs_phase[j] = ABS_APPLY;
            s->abs_peak_slip[j] = ABS_PEAK_SLIP_START;
            /* The driver's step of pressure counts as a fast build-up. */
            s->abs_peak_scale[j] = 2.0;
            s->abs_cycle_fx_n[j] = 0.0;
            s->abs_cycle_slip[j] = 0.0;
        } else {
            /* The wheel's rim acceleration, alone and relative to the
             * vehicle's, and the tyre's braking force that the wheel's
             * balance over the last substep implies: the brake and
             * rolling torques that acted, less the inertia's share,
             * R F = T + I a_rim / R. */
            const double wheel_accel_mps2 = (rim_mps - s->abs_wheel_mps[j]) / h_s;
            const double rel_accel_mps2 = wheel_accel_mps2 - (v_mps - s->abs_ref_mps[j]) / h_s;
            const double torque_nm = brake_nm[j] * scale + w->coulomb_nm;
            const double fx_n =
                (torque_nm + w->inertia_kgm2 * wheel_accel_mps2 / w->radius_m) / w->radius_m;
            const double p = s->abs_peak_scale[j];
            const bool fast = scale < ABS_FAST_SHARE * p;
            const bool probing =
                !fast && (s->abs_phase[j] == ABS_APPLY || s->abs_phase[j] == ABS_HOLD);
            if (probing && fx_n > s->abs_cycle_fx_n[j]) {
                s->abs_cycle_fx_n[j] = fx_n;
                s->abs_cycle_slip[j] = slip;
            }
            const double peak_slip = s->abs_peak_slip[j];
            const double dump_slip =
                max_d(ABS_DUMP_SLIP_FACTOR * peak_slip, peak_slip + ABS_DUMP_SLIP_MIN);
            /* -a: the wheel falls behind the vehicle. */
            const double decel_mps2 = max_d(ABS_DECEL_MPS2, ABS_SLIP_RATE_PER_S * v_mps);
            const bool falling_behind = rel_accel_mps2 < -decel_mps2;
            /* Past the dump threshold and not spinning back up fast enough
             * to be at the peak slip again within ABS_RECOVER_S. */
            const bool stuck =
                slip > dump_slip && rel_accel_mps2 < v_mps * (slip - peak_slip) / ABS_RECOVER_S;
            switch (s->abs_phase[j]) {
            case ABS_APPLY:
                if (slip > dump_slip && (falling_behind || stuck)) {
                    abs_learn(s, j, slip, scale, fx_n, w, brake_nm[j]);
                    s->abs_phase[j] = ABS_DUMP;
                } else if (falling_behind) {
                    s->abs_phase[j] = ABS_HOLD;
                } else {
                    scale += h_s * max_d(ABS_MIN_SHARE, max_d(p, scale)) /
                             (fast ? ABS_APPLY_FAST_S : ABS_APPLY_SLOW_S);
                }
                break;
            case ABS_HOLD:
                if (slip > dump_slip) {
                    abs_learn(s, j, slip, scale, fx_n, w, brake_nm[j]);
                    s->abs_phase[j] = ABS_DUMP;
                } else if (!falling_behind) {
                    s->abs_phase[j] = ABS_APPLY;
                }
                break;
            case ABS_DUMP:
                scale *= exp(-h_s / (ABS_DUMP_S * max_d(ABS_DUMP_LOCKED, 1.0 - slip)));
                if (!stuck && !falling_behind) {
                    s->abs_phase[j] = ABS_RECOVER;
                }
                break;
            default: /* ABS_RECOVER */
                if (stuck) {
                    s->abs_phase[j] = ABS_DUMP;
                } else if (slip < peak_slip) {
                    s->abs_phase[j] = ABS_APPLY;
                }
                break;
            }
        }
        s->abs_wheel_mps[j] = rim_mps;
        s->abs_ref_mps[j] = v_mps;
        s->abs_scale[j] = min_d(1.0, max_d(0.0, scale));
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
                            const pdk_dl_wheel wheels_in[PDK_WHEELS],
                            const double brake_nm[PDK_WHEELS], double dvx_mps, pdk_fwpt_out *out,
                            pdk_fwpt_mid *mid)
{
    pdk_fw_powertrain *s = &state->pt;
    const pdk_engine_def *eng = &pt->engine;
    const double h_s = c->h_s;
    memset(out, 0, sizeof *out);
    if (pt->abs) {
        abs_step(s, wheels_in, brake_nm, h_s);
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
    pdk_dl_wheel wheels[PDK_WHEELS];
    memcpy(wheels, wheels_in, sizeof wheels);
    for (int j = 0; j < PDK_WHEELS; j++) {
        out->brake_nm[j] = brake_nm[j] * s->abs_scale[j];
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
    memcpy(mid->wheels, wheels, sizeof mid->wheels);
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
