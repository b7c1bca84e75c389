/* The UTV's gear lever (utv_gear.h; docs/powertrain.md). */
#include "powertrain/utv_gear.h"

#include <math.h>
#include <stddef.h>

/* The Polaris model's gearbox.* table and the shift rule of its gear lever. */
pdk_utv_gearbox_def pdk_utv_gearbox_def_polaris(void)
{
    pdk_utv_gearbox_def d = {
        .rear_low = 28.84,
        .rear_high = 13.01,
        .rear_reverse = 27.39,
        .front_low = 9.65,
        .front_high = 4.35,
        .front_reverse = 9.16,
        .front_drive = 3.23,
        .park_hold_nm = 20000.0,
        .shift_below_mps = 0.3,
        .shift_time_s = 1.0,
    };
    return d;
}

static int in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

const char *pdk_utv_gearbox_def_problem(const pdk_utv_gearbox_def *d)
{
    if (d == NULL) {
        return "gearbox is NULL";
    }
    if (!in_range(d->rear_low, 1.0, 200.0) || !in_range(d->rear_high, 1.0, 200.0) ||
        !in_range(d->rear_reverse, 1.0, 200.0)) {
        return "gearbox.rear_low_ratio, rear_high_ratio, rear_reverse_ratio must be within "
               "1..200";
    }
    if (!in_range(d->front_low, 0.1, 200.0) || !in_range(d->front_high, 0.1, 200.0) ||
        !in_range(d->front_reverse, 0.1, 200.0)) {
        return "gearbox.front_low_ratio, front_high_ratio, front_reverse_ratio must be within "
               "0.1..200";
    }
    if (!in_range(d->front_drive, 0.1, 20.0)) {
        return "gearbox.front_drive_ratio must be within 0.1..20";
    }
    if (!in_range(d->park_hold_nm, 0.0, 1e6)) {
        return "gearbox.park_hold_nm must be within 0..1e6 N m";
    }
    if (!in_range(d->shift_below_mps, 0.0, 10.0)) {
        return "gearbox.shift_below_mps must be within 0..10 m/s";
    }
    if (!in_range(d->shift_time_s, 0.0, 10.0)) {
        return "gearbox.shift_time_s must be within 0..10 s";
    }
    return NULL;
}

void pdk_utv_gear_ratios(const pdk_utv_gearbox_def *d, pdk_utv_gear gear, pdk_utv_ratios *out)
{
    const double low_ring = d->rear_low / (d->front_low * d->front_drive);
    switch (gear) {
    case PDK_UTV_GEAR_REVERSE:
        *out = (pdk_utv_ratios){-1, d->rear_reverse, d->front_reverse * d->front_drive,
                                d->rear_reverse / (d->front_reverse * d->front_drive)};
        return;
    case PDK_UTV_GEAR_HIGH:
        *out = (pdk_utv_ratios){1, d->rear_high, d->front_high * d->front_drive,
                                d->rear_high / (d->front_high * d->front_drive)};
        return;
    case PDK_UTV_GEAR_LOW:
        *out = (pdk_utv_ratios){1, d->rear_low, d->front_low * d->front_drive, low_ring};
        return;
    default: /* park, neutral */
        *out = (pdk_utv_ratios){0, 0.0, 0.0, low_ring};
        return;
    }
}

pdk_utv_lever pdk_utv_lever_in(pdk_utv_gear gear)
{
    pdk_utv_lever l = {gear, gear, 0.0};
    return l;
}

pdk_gear_reject pdk_utv_lever_request(pdk_utv_lever *l, const pdk_utv_gearbox_def *d, int gear,
                                      double speed_mps)
{
    if (gear == PDK_UTV_GEAR_NONE) {
        return PDK_GEAR_REJECT_NONE;
    }
    if (gear < PDK_UTV_GEAR_PARK || gear > PDK_UTV_GEAR_LOW) {
        return PDK_GEAR_REJECT_UNSUPPORTED;
    }
    if (l->shift_left_s > 0.0) {
        return gear == (int)l->target ? PDK_GEAR_REJECT_NONE : PDK_GEAR_REJECT_SHIFT_IN_PROGRESS;
    }
    if (gear == (int)l->engaged) {
        return PDK_GEAR_REJECT_NONE;
    }
    if (!(fabs(speed_mps) < d->shift_below_mps)) {
        return PDK_GEAR_REJECT_VEHICLE_SPEED;
    }
    l->target = (pdk_utv_gear)gear;
    if (d->shift_time_s > 0.0) {
        l->shift_left_s = d->shift_time_s;
    } else {
        l->engaged = l->target;
    }
    return PDK_GEAR_REJECT_NONE;
}

void pdk_utv_lever_step(pdk_utv_lever *l, double dt_s)
{
    if (!(l->shift_left_s > 0.0)) {
        return;
    }
    /* within a nanosecond of the end counts as done: a second of 120 steps
     * of 1/120 s lands there exactly or one rounding short */
    l->shift_left_s -= dt_s;
    if (l->shift_left_s <= 1e-9) {
        l->shift_left_s = 0.0;
        l->engaged = l->target;
    }
}

pdk_utv_gear pdk_utv_lever_gear(const pdk_utv_lever *l)
{
    return l->shift_left_s > 0.0 ? PDK_UTV_GEAR_NEUTRAL : l->engaged;
}
