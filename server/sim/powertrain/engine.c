/* The engine as a torque source (engine.h; docs/powertrain.md, "Fuel and
 * Energy"). */
#include "powertrain/engine.h"

#include <math.h>
#include <stddef.h>

#include "math/vmath.h" /* pdk_exp, pdk_pow: deterministic, the same on every build */

#define PI 3.14159265358979323846
#define RPM_PER_RADPS (60.0 / (2.0 * PI))

/* The Polaris model's engine.* defaults for the ProStar 999 cm3 twin (its
 * table
 * "Engine and Fuel" and the section "Engine"). */
pdk_engine_def pdk_engine_def_prostar999(void)
{
    pdk_engine_def d = {
        .idle_rpm = 1250.0,
        .max_rpm = 8000.0,
        .n_curve = 10,
        .curve_rpm = {1250.0, 2000.0, 3000.0, 4000.0, 5000.0, 5750.0, 6500.0, 7000.0, 7500.0,
                      8000.0},
        .curve_nm = {52.0, 62.0, 70.0, 76.0, 81.0, 84.1, 84.0, 83.4, 74.0, 0.0},
        .inertia_kgm2 = 0.1,
        .accessory_drag_nm = 1.5,
        .displacement_l = 0.999,
        .indicated_efficiency = 0.34,
        .fmep_bar = 0.8,
        .fmep_bar_per_krpm = 0.12,
        .fmep_bar_per_krpm2 = 0.03,
        .pumping_bar = 0.8,
        .torque_lag_s = 0.1,
        .idle_gain = 1.0,
        .pedal_exponent = 0.85,
        .max_speed_mps = 27.7,
    };
    return d;
}

static bool in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

const char *pdk_engine_def_problem(const pdk_engine_def *d)
{
    if (d == NULL) {
        return "engine is NULL";
    }
    if (!in_range(d->idle_rpm, 100.0, 5000.0)) {
        return "engine.idle_rpm must be within 100..5000 rev/min";
    }
    if (!in_range(d->max_rpm, 500.0, 25000.0) || !(d->max_rpm > d->idle_rpm)) {
        return "engine.max_rpm must be within 500..25000 rev/min and above idle_rpm";
    }
    if (d->n_curve < 2 || d->n_curve > PDK_ENGINE_CURVE_MAX) {
        return "engine.torque_curve must have 2..16 points";
    }
    for (int i = 0; i < d->n_curve; i++) {
        if (!in_range(d->curve_rpm[i], 0.0, 25000.0) ||
            (i > 0 && !(d->curve_rpm[i] > d->curve_rpm[i - 1]))) {
            return "engine.torque_curve_rpm must rise, within 0..25000 rev/min";
        }
        if (!in_range(d->curve_nm[i], 0.0, 1e5)) {
            return "engine.torque_curve_nm must be within 0..1e5 N m";
        }
    }
    if (!in_range(d->inertia_kgm2, 1e-4, 100.0)) {
        return "engine.inertia_kg_m2 must be within 1e-4..100 kg m^2";
    }
    if (!in_range(d->accessory_drag_nm, 0.0, 1e3)) {
        return "engine.accessory_drag_nm must be within 0..1000 N m";
    }
    if (!in_range(d->displacement_l, 0.01, 30.0)) {
        return "engine.displacement_l must be within 0.01..30 L";
    }
    if (!in_range(d->indicated_efficiency, 0.05, 0.7)) {
        return "engine.indicated_efficiency must be within 0.05..0.7";
    }
    if (!in_range(d->fmep_bar, -10.0, 10.0) || !in_range(d->fmep_bar_per_krpm, -10.0, 10.0) ||
        !in_range(d->fmep_bar_per_krpm2, -10.0, 10.0)) {
        return "engine.fmep_bar, fmep_bar_per_krpm and fmep_bar_per_krpm2 must be within -10..10";
    }
    if (!in_range(d->pumping_bar, 0.0, 10.0)) {
        return "engine.pumping_bar must be within 0..10 bar";
    }
    if (!in_range(d->torque_lag_s, 0.0, 10.0)) {
        return "engine.torque_lag_s must be within 0..10 s";
    }
    if (!in_range(d->idle_gain, 0.0, 100.0)) {
        return "engine.idle_gain must be within 0..100";
    }
    if (!in_range(d->pedal_exponent, 0.0, 10.0)) {
        return "engine.pedal_exponent must be within 0..10";
    }
    if (!in_range(d->max_speed_mps, 0.0, 200.0)) {
        return "engine.max_speed_mps must be within 0..200 m/s (0: no governor)";
    }
    return NULL;
}

double pdk_engine_nm_per_bar(const pdk_engine_def *d)
{
    return 1e5 * (d->displacement_l * 1e-3) / (4.0 * PI);
}

double pdk_engine_full_load_nm(const pdk_engine_def *d, double rpm)
{
    if (!(rpm < d->max_rpm)) {
        return 0.0;
    }
    const int n = d->n_curve;
    if (rpm <= d->curve_rpm[0]) {
        return d->curve_nm[0];
    }
    if (rpm >= d->curve_rpm[n - 1]) {
        return d->curve_nm[n - 1];
    }
    int i = 1;
    while (rpm > d->curve_rpm[i]) {
        i++;
    }
    const double x0 = d->curve_rpm[i - 1], x1 = d->curve_rpm[i];
    const double t = (rpm - x0) / (x1 - x0);
    return d->curve_nm[i - 1] + t * (d->curve_nm[i] - d->curve_nm[i - 1]);
}

double pdk_engine_friction_nm(const pdk_engine_def *d, double rpm)
{
    const double nk = rpm * 1e-3;
    const double fmep = d->fmep_bar + d->fmep_bar_per_krpm * nk + d->fmep_bar_per_krpm2 * nk * nk;
    return (fmep > 0.0 ? fmep : 0.0) * pdk_engine_nm_per_bar(d);
}

double pdk_engine_pumping_nm(const pdk_engine_def *d)
{
    return d->pumping_bar * pdk_engine_nm_per_bar(d);
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

double pdk_engine_governor(const pdk_engine_def *d, double speed_mps)
{
    if (!(d->max_speed_mps > 0.0)) {
        return 1.0;
    }
    return clamp01((d->max_speed_mps - speed_mps) / 0.5);
}

double pdk_engine_idle_feed(const pdk_engine_def *d)
{
    const double idle_rpm = d->idle_rpm;
    const double fr = pdk_engine_friction_nm(d, idle_rpm);
    const double pu = pdk_engine_pumping_nm(d);
    const double wot = pdk_engine_full_load_nm(d, idle_rpm);
    double den = wot + fr + pu;
    den = den > 1.0 ? den : 1.0;
    return (fr + pu + d->accessory_drag_nm) / den;
}

double pdk_engine_idle_request_fed(const pdk_engine_def *d, double feed, double omega_radps)
{
    const double omega_idle = d->idle_rpm / RPM_PER_RADPS;
    return clamp01(feed + d->idle_gain * (omega_idle - omega_radps) / omega_idle);
}

double pdk_engine_idle_request(const pdk_engine_def *d, double omega_radps)
{
    return pdk_engine_idle_request_fed(d, pdk_engine_idle_feed(d), omega_radps);
}

double pdk_engine_pedal_map(const pdk_engine_def *d, double pedal)
{
    const double gamma = d->pedal_exponent > 0.1 ? d->pedal_exponent : 0.1;
    const double p = clamp01(pedal);
    return p > 0.0 ? pdk_pow(p, gamma) : 0.0;
}

double pdk_engine_target_request_mapped(const pdk_engine_def *d, double mapped, double idle_feed,
                                        double omega_radps, double speed_mps, bool tank_empty)
{
    if (tank_empty) {
        return 0.0;
    }
    const double driver = mapped * pdk_engine_governor(d, speed_mps);
    const double idle = pdk_engine_idle_request_fed(d, idle_feed, omega_radps);
    return driver > idle ? driver : idle;
}

double pdk_engine_target_request(const pdk_engine_def *d, double pedal, double omega_radps,
                                 double speed_mps, bool tank_empty)
{
    return pdk_engine_target_request_mapped(d, pdk_engine_pedal_map(d, pedal),
                                            pdk_engine_idle_feed(d), omega_radps, speed_mps,
                                            tank_empty);
}

double pdk_engine_lag_factor(const pdk_engine_def *d, double dt_s)
{
    const double tau = d->torque_lag_s > 1e-4 ? d->torque_lag_s : 1e-4;
    return pdk_exp(-dt_s / tau);
}

double pdk_engine_lag_request(const pdk_engine_def *d, double request, double target, double dt_s)
{
    return target + (request - target) * pdk_engine_lag_factor(d, dt_s);
}

void pdk_engine_torque_at(const pdk_engine_def *d, double request, double omega_radps,
                          bool tank_empty, pdk_engine_torque *out)
{
    const double rpm = omega_radps * RPM_PER_RADPS;
    const double u = clamp01(request);
    const double wot = pdk_engine_full_load_nm(d, rpm);
    const double fr = pdk_engine_friction_nm(d, rpm);
    const double pu = (1.0 - u) * pdk_engine_pumping_nm(d);
    const bool fuelled = u > 0.0 && wot > 0.0 && !tank_empty;
    out->full_load_nm = wot;
    out->friction_nm = fr;
    out->pumping_nm = pu;
    out->fuelled = fuelled;
    out->brake_nm = (fuelled ? u * (wot + fr) : 0.0) - fr - pu;
}

double pdk_engine_free_speed(const pdk_engine_def *d, double omega_radps, double brake_nm,
                             double dt_s)
{
    const double w = omega_radps + dt_s * (brake_nm - d->accessory_drag_nm) / d->inertia_kgm2;
    return w > 0.0 ? w : 0.0;
}

double pdk_engine_fuel_power_w(const pdk_engine_def *d, const pdk_engine_torque *t,
                               double mean_omega_radps)
{
    if (!t->fuelled || !(mean_omega_radps > 1.0)) {
        return 0.0;
    }
    const double p = (t->brake_nm + t->friction_nm + t->pumping_nm) * mean_omega_radps;
    double eta = d->indicated_efficiency;
    eta = eta < 0.05 ? 0.05 : (eta > 0.7 ? 0.7 : eta);
    return (p > 0.0 ? p : 0.0) / eta;
}
