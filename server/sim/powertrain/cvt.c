/* The CVT and its clutches (cvt.h; docs/powertrain.md). */
#include "powertrain/cvt.h"

#include <math.h>
#include <stddef.h>

#include "math/vmath.h" /* pdk_exp */

#define PI 3.14159265358979323846
#define RADPS_PER_RPM (2.0 * PI / 60.0)

/* The Polaris model's table of cvt.* parameters. */
pdk_cvt_def pdk_cvt_def_polaris(void)
{
    pdk_cvt_def d = {
        .low_ratio = 3.2,
        .high_ratio = 0.72,
        .engage_rpm = 1600.0,
        .full_engage_rpm = 2600.0,
        .clutch_capacity_nm = 150.0,
        .ebs_capacity_nm = 60.0,
        .shift_rpm_light = 3000.0,
        .shift_rpm_full = 6800.0,
        .shift_tau_s = 0.3,
        .belt_efficiency = 0.88,
        .gear_efficiency = 0.95,
        .secondary_inertia_kgm2 = 0.04,
        .ebs = true,
        .adc = false,
    };
    return d;
}

static bool in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

const char *pdk_cvt_def_problem(const pdk_cvt_def *d)
{
    if (d == NULL) {
        return "cvt is NULL";
    }
    if (!in_range(d->high_ratio, 0.1, 10.0)) {
        return "cvt.high_ratio must be within 0.1..10";
    }
    if (!in_range(d->low_ratio, 0.1, 10.0) || !(d->low_ratio >= d->high_ratio)) {
        return "cvt.low_ratio must be within 0.1..10 and at least high_ratio";
    }
    if (!in_range(d->engage_rpm, 0.0, 20000.0)) {
        return "cvt.engage_rpm must be within 0..20000 rev/min";
    }
    if (!in_range(d->full_engage_rpm, 0.0, 20000.0) || !(d->full_engage_rpm > d->engage_rpm)) {
        return "cvt.full_engage_rpm must be within 0..20000 rev/min and above engage_rpm";
    }
    if (!in_range(d->clutch_capacity_nm, 0.0, 1e5)) {
        return "cvt.clutch_capacity_nm must be within 0..1e5 N m";
    }
    if (!in_range(d->ebs_capacity_nm, 0.0, 1e5)) {
        return "cvt.ebs_capacity_nm must be within 0..1e5 N m";
    }
    if (!in_range(d->shift_rpm_light, 100.0, 20000.0)) {
        return "cvt.shift_rpm_light must be within 100..20000 rev/min";
    }
    if (!in_range(d->shift_rpm_full, 100.0, 20000.0) ||
        !(d->shift_rpm_full >= d->shift_rpm_light)) {
        return "cvt.shift_rpm_full must be within 100..20000 rev/min and at least "
               "shift_rpm_light";
    }
    if (!in_range(d->shift_tau_s, 0.0, 10.0)) {
        return "cvt.shift_tau_s must be within 0..10 s";
    }
    if (!in_range(d->belt_efficiency, 0.1, 1.0)) {
        return "cvt.belt_efficiency must be within 0.1..1";
    }
    if (!in_range(d->gear_efficiency, 0.1, 1.0)) {
        return "cvt.gear_efficiency must be within 0.1..1";
    }
    if (!in_range(d->secondary_inertia_kgm2, 0.0, 100.0)) {
        return "cvt.secondary_inertia_kg_m2 must be within 0..100 kg m^2";
    }
    return NULL;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

void pdk_cvt_capacities(const pdk_cvt_def *d, double idle_rpm, double free_omega_radps,
                        bool in_gear, pdk_cvt_capacity *out)
{
    const double w = free_omega_radps;
    const double w_eng = d->engage_rpm * RADPS_PER_RPM;
    const double w_full = d->full_engage_rpm * RADPS_PER_RPM;
    const double w_idle = idle_rpm * RADPS_PER_RPM;
    const double c = d->clutch_capacity_nm *
                     clamp((w * w - w_eng * w_eng) / (w_full * w_full - w_eng * w_eng), 0.0, 1.0);
    double span = w_eng - w_idle;
    span = span > 1.0 ? span : 1.0;
    const double ebs = d->ebs ? d->ebs_capacity_nm * clamp((w - w_idle) / span, 0.0, 1.0) : 0.0;
    out->centrifugal_nm = c;
    out->ebs_nm = ebs;
    out->fwd_nm = in_gear ? c : 0.0;
    out->rev_nm = in_gear ? (c > ebs ? c : ebs) : 0.0;
}

pdk_centrifugal_capacity pdk_centrifugal_capacities(double capacity_nm, double engage_radps,
                                                    double full_radps, double free_radps,
                                                    double h_per_inertia)
{
    const double span = full_radps * full_radps - engage_radps * engage_radps;
    const double k = h_per_inertia * capacity_nm; /* rad/s at full capacity */
    const double a = k / span;
    const double we2 = engage_radps * engage_radps;
    pdk_centrifugal_capacity out = {0.0, 0.0};
    /* Driving: w + a (w^2 - w_eng^2) = w_free on the span, a single root
     * (the left side rises with w); its positive root in the form that
     * keeps its digits for small a. */
    double share;
    if (!(free_radps > engage_radps)) {
        share = 0.0;
    } else if (free_radps - k >= full_radps) {
        share = 1.0;
    } else {
        const double b = free_radps + a * we2;
        const double w = 2.0 * b / (1.0 + sqrt(1.0 + 4.0 * a * b));
        share = clamp((w * w - we2) / span, 0.0, 1.0);
    }
    out.fwd_nm = capacity_nm * share;
    /* Driven: the lowest root of w - a (w^2 - w_eng^2) = w_free at or
     * above w_free: w_free itself below the span (no capacity there), the
     * quadratic's smaller root on it, and beyond it full capacity. */
    if (!(free_radps > engage_radps)) {
        share = 0.0;
    } else if (free_radps >= full_radps) {
        share = 1.0;
    } else {
        const double c = free_radps - a * we2;
        const double disc = 1.0 - 4.0 * a * c;
        share = 1.0;
        if (disc >= 0.0) {
            const double w = 2.0 * c / (1.0 + sqrt(disc));
            if (w >= free_radps && w <= full_radps) {
                share = clamp((w * w - we2) / span, 0.0, 1.0);
            }
        }
    }
    out.rev_nm = capacity_nm * share;
    return out;
}

double pdk_cvt_shift_rpm(const pdk_cvt_def *d, double clutch_torque_nm, double peak_torque_nm)
{
    const double t = clutch_torque_nm > 0.0 ? clutch_torque_nm : 0.0;
    const double sigma = peak_torque_nm > 0.0 ? clamp(t / peak_torque_nm, 0.0, 1.0) : 0.0;
    const double lo = d->shift_rpm_light, hi = d->shift_rpm_full;
    return sqrt(lo * lo + (hi * hi - lo * lo) * sigma);
}

double pdk_cvt_target_ratio(const pdk_cvt_def *d, const pdk_cvt_capacity *cap, bool in_gear,
                            double clutch_torque_nm, double shift_rpm, double secondary_omega_radps)
{
    const bool grips =
        in_gear && (cap->centrifugal_nm > 0.0 || (cap->ebs_nm > 0.0 && clutch_torque_nm < 0.0));
    if (!grips || !(secondary_omega_radps > 1e-6)) {
        return d->low_ratio;
    }
    return clamp(shift_rpm * RADPS_PER_RPM / secondary_omega_radps, d->high_ratio, d->low_ratio);
}

double pdk_cvt_lag_factor(const pdk_cvt_def *d, double dt_s)
{
    const double tau = d->shift_tau_s > 1e-4 ? d->shift_tau_s : 1e-4;
    return pdk_exp(-dt_s / tau);
}

double pdk_cvt_lag_ratio(const pdk_cvt_def *d, double ratio, double target, double dt_s)
{
    return target + (ratio - target) * pdk_cvt_lag_factor(d, dt_s);
}

void pdk_cvt_reset(const pdk_cvt_def *d, double idle_rpm, double speed_mps, double radius_m,
                   double rear_ratio, double *ratio_out, double *engine_rpm_out)
{
    const double w_s = fabs(speed_mps) / radius_m * rear_ratio;
    if (!(w_s > 1e-6)) {
        *ratio_out = d->low_ratio;
        *engine_rpm_out = idle_rpm;
        return;
    }
    const double r = clamp(d->shift_rpm_light * RADPS_PER_RPM / w_s, d->high_ratio, d->low_ratio);
    const double n = r * w_s / RADPS_PER_RPM;
    *ratio_out = r;
    *engine_rpm_out = n > idle_rpm ? n : idle_rpm;
}
