/* The optional parts of a state batch's VehicleState (Subscribe.fields,
 * docs/protocol.md "State"): each wheel, the driver's instruments and the
 * steering feel, read from the vehicle's channels and its definition. */
#include <math.h>
#include <stddef.h>

#include "wire.h"

/* A channel value as a small non-negative integer (the Surface and
 * Condition channels hold enum numbers as doubles); 0 for anything else. */
static uint32_t channel_index(double v)
{
    return v >= 0.0 && v < 4294967296.0 ? (uint32_t)v : 0u;
}

/* The wheel centre in the body frame (ISO 8855: x forward, y left, z up)
 * from the CG at the static ride: the axle's x (cg_to_front_axle_m ahead,
 * wheelbase_m - cg_to_front_axle_m behind), half the axle's track to
 * either side, and the unloaded radius above the ground where the CG is
 * cg_height_m above it, raised by the suspension's travel (positive in
 * bump). Kinematic curves' small x and y motions are left out. */
static void wheel_centre(const pdk_vehicle_def *def, int axle, double side, double travel_m,
                         Paddock__V1__WheelState *w)
{
    const pdk_chassis_def *c = &def->chassis;
    const pdk_axle_tyre_def *tyre = axle == 0 ? &def->tyre_front : &def->tyre_rear;
    w->center_x_m = axle == 0 ? c->cg_to_front_axle_m : c->cg_to_front_axle_m - c->wheelbase_m;
    w->center_y_m = side * 0.5 * pdk_vehicle_def_track_m(def, axle);
    w->center_z_m = tyre->law.radius_m - c->cg_height_m + travel_m;
}

/* Four wheels FL FR RL RR from the per-wheel channels. */
static size_t four_wheels(const pdk_vehicle_def *def, const double *ch, Paddock__V1__WheelState *ws)
{
    for (int i = 0; i < 4; i++) {
        Paddock__V1__WheelState *w = &ws[i];
        paddock__v1__wheel_state__init(w);
        w->spin_angle_rad = ch[PDK_CH_WHEEL_ANGLE_FL + i];
        w->spin_rate_radps = ch[PDK_CH_WHEEL_SPEED_FL + i];
        w->steer_rad = ch[PDK_CH_WHEEL_STEER_FL + i];
        wheel_centre(def, i >> 1, (i & 1) ? -1.0 : 1.0, ch[PDK_CH_SUSP_TRAVEL_FL + i], w);
        w->in_contact = ch[PDK_CH_TYRE_LOAD_FL + i] > 0.0;
        w->slip_ratio = ch[PDK_CH_SLIP_RATIO_FL + i];
        w->slip_angle_rad = ch[PDK_CH_SLIP_ANGLE_FL + i];
        w->surface = channel_index(ch[PDK_CH_SURFACE_FL + i]);
        w->condition = (Paddock__V1__TyreCondition)channel_index(ch[PDK_CH_CONDITION_FL + i]);
        w->camber_rad = ch[PDK_CH_CAMBER_FL + i];
        w->load_n = ch[PDK_CH_TYRE_LOAD_FL + i];
        w->travel_m = ch[PDK_CH_SUSP_TRAVEL_FL + i];
        w->surface_temp_c = ch[PDK_CH_SURFACE_TEMP_FL + i];
        w->wear = ch[PDK_CH_WEAR_FL + i];
    }
    return 4;
}

/* A single-track vehicle's two wheels, front and rear, on the centreline:
 * what the planar model has of them, the axle's steer, load and slip
 * angle. It has no wheel spin, suspension, camber or tyre life, so those
 * stay 0; it is always on the ground. */
static size_t two_wheels(const pdk_vehicle_def *def, const double *ch, Paddock__V1__WheelState *ws)
{
    for (int axle = 0; axle < 2; axle++) {
        Paddock__V1__WheelState *w = &ws[axle];
        paddock__v1__wheel_state__init(w);
        w->steer_rad = axle == 0 ? ch[PDK_CH_STEER_ANGLE] : 0.0;
        wheel_centre(def, axle, 0.0, 0.0, w);
        w->in_contact = 1;
        w->slip_angle_rad = ch[PDK_CH_SLIP_ANGLE_F + axle];
        w->load_n = ch[PDK_CH_TYRE_LOAD_F + axle];
    }
    return 2;
}

/* The Gear channel's number as the Gear enum (the same DBW2 numbers);
 * GEAR_NONE for a value outside it. */
static Paddock__V1__Gear gear_of(double v)
{
    uint32_t g = channel_index(v);
    return g <= (uint32_t)PADDOCK__V1__GEAR__GEAR_LOW ? (Paddock__V1__Gear)g
                                                      : PADDOCK__V1__GEAR__GEAR_NONE;
}

void pdk_wire_state_fields(const pdk_vehicle_def *def, const double *ch, uint32_t fields,
                           Paddock__V1__VehicleState *vs, pdk_wire_state_parts *parts)
{
    if ((fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_WHEELS) != 0u) {
        size_t n = def->model == PDK_MODEL_FOUR_WHEEL ? four_wheels(def, ch, parts->wheels)
                                                      : two_wheels(def, ch, parts->wheels);
        for (size_t i = 0; i < n; i++) {
            parts->wheel_ptrs[i] = &parts->wheels[i];
        }
        vs->n_wheels = n;
        vs->wheels = parts->wheel_ptrs;
    }
    if ((fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_INSTRUMENTS) != 0u) {
        Paddock__V1__Instruments *in = &parts->instruments;
        paddock__v1__instruments__init(in);
        in->engine_rpm = ch[PDK_CH_ENGINE_RPM];
        in->gear = gear_of(ch[PDK_CH_GEAR]);
        in->gear_number = channel_index(ch[PDK_CH_GEAR_NUMBER]);
        in->throttle_pct = ch[PDK_CH_THROTTLE];
        in->brake_bar = ch[PDK_CH_BRAKE];
        in->speed_mps = ch[PDK_CH_SPEED];
        in->steer_wheel_deg = ch[PDK_CH_STEER_WHEEL];
        in->fuel_level_l = ch[PDK_CH_FUEL_LEVEL];
        vs->instruments = in;
    }
    if ((fields & PADDOCK__V1__STATE_FIELD__STATE_FIELD_STEERING_FEEL) != 0u) {
        vs->steering_wheel_torque_nm = ch[PDK_CH_STEERING_WHEEL_TORQUE];
    }
}
