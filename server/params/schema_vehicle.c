/* The vehicle's parameter schema (params_schema.h): every key of a vehicle
 * preset with its unit, bounds (docs/presets.md explains them), default and
 * meaning, as `paddockd presets describe vehicle` prints them; a utv's and
 * a geared car's own keys and what follows from them; the override
 * aliases. The rules between keys are schema_vehicle_rules.c's. */
#include "params_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "params_internal.h"

/* Degrees to radians as the presets convert them: rad = deg * PI / 180. */
#define PI 3.14159265358979323846

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Enum fields are written and read as an int. */
_Static_assert(sizeof(pdk_model) == sizeof(int), "pdk_model is stored as an int");
_Static_assert(sizeof(pdk_axle_kind) == sizeof(int), "pdk_axle_kind is stored as an int");

static const pdk_choice model_items[] = {
    {"fourWheel", PDK_MODEL_FOUR_WHEEL},
    {"singleTrack", PDK_MODEL_SINGLE_TRACK},
};
static const pdk_choice_set model_choices = {"vehicle model", model_items, N_ELEMS(model_items)};

static const pdk_choice axle_kind_items[] = {
    {"independent", PDK_AXLE_INDEPENDENT},
    {"solid", PDK_AXLE_SOLID},
};
static const pdk_choice_set axle_kind_choices = {"axle kind", axle_kind_items,
                                                 N_ELEMS(axle_kind_items)};

_Static_assert(sizeof(pdk_tyre_law) == sizeof(int), "pdk_tyre_law is stored as an int");
_Static_assert(sizeof(pdk_mf_set) == sizeof(int), "pdk_mf_set is stored as an int");

static const pdk_choice tyre_law_items[] = {
    {"grip", PDK_TYRE_GRIP},
    {"magicFormula", PDK_TYRE_MAGIC},
    {"utv", PDK_TYRE_UTV},
};
static const pdk_choice_set tyre_law_choices = {"tyre law", tyre_law_items,
                                                N_ELEMS(tyre_law_items)};

/* The names are sim's (pdk_mf_set_name); test_params checks they agree. */
static const pdk_choice mf_set_items[] = {
    {"road205", PDK_MF_ROAD_205_60R15},
    {"sport", PDK_MF_SPORT},
    {"slick", PDK_MF_SLICK},
    {"kart", PDK_MF_KART},
};
static const pdk_choice_set mf_set_choices = {"Magic Formula coefficient set", mf_set_items,
                                              N_ELEMS(mf_set_items)};

_Static_assert(sizeof(pdk_powertrain_kind) == sizeof(int),
               "pdk_powertrain_kind is stored as an int");
_Static_assert(sizeof(pdk_drive_mode) == sizeof(int), "pdk_drive_mode is stored as an int");
_Static_assert(PDK_POWERTRAIN_LUMPED == 0, "a zeroed powertrain is lumped");
/* Keys of sim's definition are offsets into it and into the work struct
 * alike. */
_Static_assert(offsetof(pdk_vehicle_work, def) == 0, "the definition opens the work struct");

static const pdk_choice powertrain_kind_items[] = {
    {"lumped", PDK_POWERTRAIN_LUMPED},
    {"utv", PDK_POWERTRAIN_UTV},
    {"geared", PDK_POWERTRAIN_GEARED},
};
static const pdk_choice_set powertrain_kind_choices = {"powertrain kind", powertrain_kind_items,
                                                       N_ELEMS(powertrain_kind_items)};

_Static_assert(sizeof(pdk_shift_kind) == sizeof(int), "pdk_shift_kind is stored as an int");
_Static_assert(sizeof(pdk_diff_kind) == sizeof(int), "pdk_diff_kind is stored as an int");
_Static_assert(sizeof(pdk_dl_coupling) == sizeof(int), "pdk_dl_coupling is stored as an int");

/* A geared car's box, driven axle, differentials and coupling. */
static const pdk_choice shift_items[] = {
    {"automatic", PDK_SHIFT_AUTOMATIC},
    {"sequential", PDK_SHIFT_SEQUENTIAL},
    {"manual", PDK_SHIFT_MANUAL},
};
static const pdk_choice_set shift_choices = {"shift kind", shift_items, N_ELEMS(shift_items)};

static const pdk_choice driven_axle_items[] = {
    {"front", 0},
    {"rear", 1},
};
static const pdk_choice_set driven_axle_choices = {"driven axle", driven_axle_items,
                                                   N_ELEMS(driven_axle_items)};

static const pdk_choice diff_items[] = {
    {"open", PDK_DIFF_OPEN},
    {"locked", PDK_DIFF_LOCKED},
    {"lsd", PDK_DIFF_LSD},
};
static const pdk_choice_set diff_choices = {"differential", diff_items, N_ELEMS(diff_items)};

/* The UTV's overrunning clutches (PDK_COUPLING_OVERRUN, BOTH) are its
 * drive modes', not a key's. */
static const pdk_choice coupling_items[] = {
    {"none", PDK_COUPLING_NONE},
    {"locked", PDK_COUPLING_LOCKED},
    {"centre", PDK_COUPLING_CENTRE},
};
static const pdk_choice_set coupling_choices = {"coupling", coupling_items,
                                                N_ELEMS(coupling_items)};

/* The positions of a UTV's AWD switch, its drive modes. */
static const pdk_choice drive_mode_items[] = {
    {"turf", PDK_DRIVE_TURF},
    {"2wd", PDK_DRIVE_2WD},
    {"awd", PDK_DRIVE_AWD},
};
static const pdk_choice_set drive_mode_choices = {"drive mode", drive_mode_items,
                                                  N_ELEMS(drive_mode_items)};

#define KEY_NUM(p, u, lo, hi, off, mul, div, desc)                                                 \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = (off), .si_mul = (mul), .si_div = (div), .description = (desc)                   \
    }

#define V_NUM(p, u, lo, hi, member, mul, div, desc)                                                \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_vehicle_def, member), mul, div, desc)

#define V_CHOICE(p, member, set, desc)                                                             \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_vehicle_def, member), .si_mul = 1, .si_div = 1,                     \
        .description = (desc), .choices = &(set)                                                   \
    }

#define V_CURVE(p, u, member, mul, div, static_key, desc)                                          \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_CURVE, .min = NAN, .max = NAN,                   \
        .offset = offsetof(pdk_vehicle_def, member), .si_mul = (mul), .si_div = (div),             \
        .description = (desc), .static_path = (static_key)                                         \
    }

/* Keys of some powertrain kinds only (pdk_param_key.only_for): a lumped
 * vehicle's drive and brake forces, which a utv and a geared car do
 * without; the chassis, corners and tyre loads a lumped or geared vehicle
 * gives and a utv derives; each with what the others have instead; a
 * utv's own; the engine, fuel and brake torques of a utv and a geared car;
 * a geared car's own. */
#define ONLY_LUMPED (1u << PDK_POWERTRAIN_LUMPED)
#define ONLY_UTV (1u << PDK_POWERTRAIN_UTV)
#define ONLY_GEARED (1u << PDK_POWERTRAIN_GEARED)
#define NOT_UTV (ONLY_LUMPED | ONLY_GEARED)
#define ENGINED (ONLY_UTV | ONLY_GEARED)
#define BY_MASS "a utv's chassis follows from its mass.* keys (the UTV model's parts, docs/powertrain.md)"
#define BY_CORNERS                                                                                 \
    "a utv's corners follow from suspension.frontWheelRate, rearWheelRate, dampingRatio, "         \
    "travel, droop, bumpStopLength and bumpStopRate"
#define BY_STATIC_LOAD "a utv's tyres take their static load from the mass.* keys"
#define BY_CORNERING_PER_LOAD "a utv's follows from tyres.*.corneringPerLoad and the static load"
#define BY_POWERTRAIN                                                                              \
    "a utv drives through its engine.*, cvt.* and gearbox.* keys, a geared car through its "       \
    "engine.*, clutch.*, transmission.* and driveline.* keys"
#define BY_BRAKE_GAINS                                                                             \
    "a utv's brakes and a geared car's are brakes.frontNmPerBar, rearNmPerBar and biasBar"
#define BY_PAWL "a utv's pawl is gearbox.parkHold, a geared car's transmission.parkHold"

/* A lumped vehicle's key (V_NUM's) that a utv and a geared car have not:
 * other says why. */
#define L_NUM(p, u, lo, hi, member, mul, div, other, desc)                                         \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_def, member), .si_mul = (mul), .si_div = (div),             \
        .description = (desc), .only_for = ONLY_LUMPED, .otherwise = (other)                       \
    }

/* A key a lumped or geared vehicle gives and a utv derives: other says
 * from what. */
#define N_NUM(p, u, lo, hi, member, mul, div, other, desc)                                         \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_def, member), .si_mul = (mul), .si_div = (div),             \
        .description = (desc), .only_for = NOT_UTV, .otherwise = (other)                           \
    }

/* One axle's suspension keys: AX is "front" or "rear", M the member. Bounds
 * are explained in docs/presets.md. */
#define SUSPENSION_KEYS(AX, M)                                                                     \
    V_CHOICE("suspension." AX ".kind", M.kind, axle_kind_choices,                                  \
             "independent: each wheel stands on the body and leans with it; solid: the wheels "    \
             "stand on a beam through the axle's two contacts and stay upright to the road."),     \
        V_NUM("suspension." AX ".trackWidth", "m", 0, 5, M.track_width_m, 1, 1,                    \
              "This axle's track, contact to contact; 0 uses chassis.trackWidth."),                \
        N_NUM("suspension." AX ".springRate", "N/m", 100, 1e7, M.spring_rate_npm, 1, 1,            \
              BY_CORNERS,                                                                          \
              "Spring rate per corner at the wheel; ride frequency sqrt(k / m_corner) / 2 pi."),   \
        N_NUM("suspension." AX ".bumpDamping", "N*s/m", 0, 1e6, M.bump_damping_nspm, 1, 1,         \
              BY_CORNERS, "Damper rate per corner while the strut compresses."),                   \
        N_NUM("suspension." AX ".reboundDamping", "N*s/m", 0, 1e6, M.rebound_damping_nspm, 1, 1,   \
              BY_CORNERS, "Damper rate per corner while the strut extends."),                      \
        V_NUM("suspension." AX ".antiRollStiffness", "N/m", 0, 1e7, M.anti_roll_npm, 1, 1,         \
              "Anti-roll bar: force on each wheel per metre of travel difference to the other "    \
              "wheel of the axle."),                                                               \
        N_NUM("suspension." AX ".travelBump", "m", 0.001, 1, M.travel_bump_m, 1, 1, BY_CORNERS,    \
              "Travel from the static ride position to the bump stop."),                           \
        N_NUM("suspension." AX ".travelDroop", "m", 0.001, 1, M.travel_droop_m, 1, 1, BY_CORNERS,  \
              "Travel from the static ride position to full extension."),                          \
        N_NUM("suspension." AX ".bumpStopStiffness", "N/m", 0, 1e8, M.bump_stop_npm, 1, 1,         \
              BY_CORNERS, "Bump-stop rate per corner beyond travelBump."),                         \
        V_NUM("suspension." AX ".rollCenterHeight", "m", -0.5, 2, M.roll_center_height_m, 1, 1,    \
              "Roll-centre height above the ground at ride height: the share h_rc / h_cg of the "  \
              "axle's lateral load transfer goes through the links (at most 0.9 "                  \
              "chassis.cgHeight on the fourWheel model)."),                                        \
        V_NUM("suspension." AX ".antiBrake", "-", -2, 2, M.anti_brake, 1, 1,                       \
              "Anti-dive (front) or anti-lift (rear) for this axle's braking force: tan(theta) L " \
              "/ h_cg; negative is pro-dive."),                                                    \
        V_NUM("suspension." AX ".antiDrive", "-", -2, 2, M.anti_drive, 1, 1,                       \
              "Anti-squat (driven rear) or anti-lift (driven front) for this axle's driving "      \
              "force: tan(theta) L / h_cg."),                                                      \
        V_NUM("suspension." AX ".staticCamberDeg", "deg", -10, 10, M.static_camber_rad, PI, 180,   \
              "Static camber as alignment sheets quote it: negative leans the top of the wheel "   \
              "toward the centreline."),                                                           \
        V_NUM("suspension." AX ".staticToeDeg", "deg", -5, 5, M.static_toe_rad, PI, 180,           \
              "Static toe of each wheel: positive is toe-in (the wheel points toward the "         \
              "centreline ahead), negative toe-out."),                                             \
        V_CURVE("suspension." AX ".kinematics.toeDeg", "deg", M.kinematics.toe_rad, PI, 180,       \
                "suspension." AX ".staticToeDeg",                                                  \
                "Bump steer: toe offset against wheel travel, [[travel m, deg], ...], adding to "  \
                "staticToeDeg; independent axles only."),                                          \
        V_CURVE("suspension." AX ".kinematics.camberDeg", "deg", M.kinematics.camber_rad, PI, 180, \
                "suspension." AX ".staticCamberDeg",                                               \
                "Camber gain: camber offset against wheel travel, [[travel m, deg], ...], adding " \
                "to staticCamberDeg; independent axles only."),                                    \
        V_CURVE("suspension." AX ".kinematics.rollCenterHeight", "m",                              \
                M.kinematics.roll_center_height_m, 1, 1, "suspension." AX ".rollCenterHeight",     \
                "Roll-centre migration against wheel travel, [[travel m, m], ...], adding to "     \
                "rollCenterHeight; switches the axle to per-wheel links (jacking)."),              \
        V_CURVE("suspension." AX ".kinematics.antiBrake", "-", M.kinematics.anti_brake, 1, 1,      \
                "suspension." AX ".antiBrake",                                                     \
                "antiBrake offset against wheel travel, [[travel m, -], ...]."),                   \
        V_CURVE("suspension." AX ".kinematics.antiDrive", "-", M.kinematics.anti_drive, 1, 1,      \
                "suspension." AX ".antiDrive",                                                     \
                "antiDrive offset against wheel travel, [[travel m, -], ...]."),

#define T_NUM(AX, key, u, lo, hi, member, mul, div, desc)                                          \
    V_NUM("tyres." AX "." key, u, lo, hi, member, mul, div, desc)

/* One axle's tyre keys beyond the single-track three (tyre.h, tyre_life.h,
 * surface.h): AX is "front" or "rear", M the member. The four-wheel model
 * reads them; docs/presets.md explains the bounds. */
#define TYRE_KEYS(AX, M)                                                                           \
    V_CHOICE("tyres." AX ".law", M.law.law, tyre_law_choices,                                      \
             "Force law (tyre.h): grip (linear stiffness up to the friction ellipse, its "         \
             "stiffnesses and friction from corneringStiffness, friction and camberStiffness), "   \
             "magicFormula (Pac2002 with the coefficient set mfSet) or utv (the UTV model's "           \
             "hard-surface law, mu N tanh(k s) and -C N alpha, C and mu from "                     \
             "corneringStiffness and friction)."),                                                 \
        V_CHOICE("tyres." AX ".mfSet", M.law.mf_set, mf_set_choices,                               \
                 "Magic Formula coefficient set, read by the magicFormula law: road205 (Pacejka "  \
                 "2006 Table A3.1, 205/60R15), sport, slick or kart (tyre_sets.c gives each "      \
                 "source)."),                                                                      \
        T_NUM(AX, "radius", "m", 0.05, 2, M.law.radius_m, 1, 1,                                    \
              "Unloaded radius R0: the slip reference, the wheel's height over the contact and "   \
              "the soil model's R."),                                                              \
        N_NUM("tyres." AX ".nominalLoad", "N", 10, 2e5, M.law.nominal_load_n, 1, 1,                \
              BY_STATIC_LOAD,                                                                      \
              "Nominal load Fz_nom of one tyre: load sensitivity and the relaxation lengths' "     \
              "load scaling refer to it."),                                                        \
        T_NUM(AX, "slipStiffness", "-", 1, 100, M.law.slip_stiffness_per_load, 1, 1,               \
              "Grip law: longitudinal slip stiffness per newton of load, Ck / Fz (N of Fx per "    \
              "unit slip per N)."),                                                                \
        T_NUM(AX, "trail", "m", 0, 0.5, M.law.trail_m, 1, 1,                                       \
              "Grip law: pneumatic trail at zero slip, falling to 0 at full sliding (brush "       \
              "model)."),                                                                          \
        T_NUM(AX, "hardSlipStiffness", "-", 0.1, 200, M.law.hard_slip_stiffness, 1, 1,             \
              "utv law: k_s in Fx = mu N tanh(k_s s) (the UTV model's hard-surface law)."),     \
        T_NUM(AX, "loadSensitivity", "-", 0, 0.5, M.law.load_sensitivity, 1, 1,                    \
              "Peak friction falls with load as (Fz / nominalLoad)^-loadSensitivity; 0 off. On "   \
              "the magicFormula law it applies on top of the set's own load terms."),              \
        T_NUM(AX, "slideGrip", "-", 0, 1, M.law.slide_grip, 1, 1,                                  \
              "Share of the peak left when the tyre slides fully, at least 0.1 (the grip "   \
              "and utv laws); 0 keeps the Magic Formula's own falling branch."),                 \
        T_NUM(AX, "combinedSlipLoss", "-", 0, 0.9, M.law.combined_slip_loss, 1, 1,                 \
              "Friction-circle loss: share of lateral grip lost between 10 % and 70 "   \
              "% of wheelspin or lock; 0 off (the Magic Formula has its own)."),                   \
        T_NUM(AX, "relaxationLong", "m", 0.005, 5, M.law.relaxation_long_m, 1, 1,                  \
              "Longitudinal relaxation length at nominal load (the magicFormula law uses its "     \
              "set's PTX terms when the set has them)."),                                          \
        T_NUM(AX, "relaxationLat", "m", 0.005, 5, M.law.relaxation_lat_m, 1, 1,                    \
              "Lateral relaxation length at nominal load: the rolling distance over which side "   \
              "force builds (the magicFormula law uses its set's PTY terms when it has them)."),   \
        T_NUM(AX, "rollingCoeff", "-", 0, 0.5, M.law.rolling_coeff, 1, 1,                          \
              "The tyre's own rolling-resistance coefficient on dry tarmac; the rolling torque "   \
              "is f Fz R with the surface's scale."),                                              \
        T_NUM(AX, "spinInertia", "kg*m^2", 0.001, 1e4, M.spin_inertia_kgm2, 1, 1,                  \
              "Spin inertia of one wheel about its axle: tyre, rim, hub and brake disc."),         \
        T_NUM(AX, "width", "m", 0.03, 2.5, M.soil.width_m, 1, 1,                                   \
              "Tyre section width b (soil contact, water drag)."),                                 \
        T_NUM(AX, "sectionHeight", "m", 0.01, 1.5, M.soil.section_height_m, 1, 1,                  \
              "Sidewall height h_s, rim to tread; the soil model's rolling loss uses deflection "  \
              "/ h_s."),                                                                           \
        T_NUM(AX, "inflationKpa", "kPa", 10, 1500, M.life.cold_pressure_kpa, 1, 1,                 \
              "Cold inflation pressure, gauge, set at life.coldTempC; the gas law takes it from "  \
              "there, and it is the soil model's p_i."),                                           \
        T_NUM(AX, "carcassKpa", "kPa", 0, 500, M.soil.carcass_pa, 1000, 1,                         \
              "Carcass stiffness pressure p_c: the ground pressure is p_i + p_c on soil."),        \
        T_NUM(AX, "lugHeight", "m", 0, 0.2, M.soil.lug_height_m, 1, 1,                             \
              "Lug height, added to the shearing depth on soil."),                                 \
        T_NUM(AX, "lugAreaRatio", "-", 0, 1, M.soil.lug_area_ratio, 1, 1,                          \
              "Share of the contact area the lugs fill."),                                         \
        T_NUM(AX, "treadK", "m", 0, 0.2, M.soil.tread_k_m, 1, 1,                                   \
              "The tread's shear compliance, added to the soil's Janosi modulus K."),              \
        T_NUM(AX, "hysteresis", "-", 0, 1, M.soil.hysteresis, 1, 1,                                \
              "Rolling loss per unit of relative deflection on soil: f = h delta / "    \
              "h_s."),                                                                             \
        T_NUM(AX, "life.coldTempC", "degC", -60, 60, M.life.cold_temp_c, 1, 1,                     \
              "Temperature at which inflationKpa is set."),                                        \
        T_NUM(AX, "life.optimalTempC", "degC", -20, 250, M.life.optimal_temp_c, 1, 1,              \
              "Tread temperature of best grip, the centre of the grip window (default 80)."),    \
        T_NUM(AX, "life.windowC", "degC", 1, 300, M.life.window_c, 1, 1,                           \
              "Half width of the grip window (default 55)."),                                    \
        T_NUM(AX, "life.windowLoss", "-", 0, 1, M.life.window_loss, 1, 1,                          \
              "Grip lost at the window's edge; a parabola between centre and edge."),              \
        T_NUM(AX, "life.minTempGrip", "-", 0, 1, M.life.min_temp_grip, 1, 1,                       \
              "The least grip the window gives however cold or hot the tread (cold tyres slide, "  \
              "cooked ones go greasy)."),                                                          \
        T_NUM(                                                                                     \
            AX, "life.bestPressureRatio", "-", 0.5, 10, M.life.best_pressure_ratio, 1, 1,          \
            "Gauge pressure of best grip over the cold setting; the default is the gas law's at "  \
            "optimalTempC."),                                                                      \
        T_NUM(AX, "life.pressureGripSlope", "-", 0, 10, M.life.pressure_grip_slope, 1, 1,          \
              "Grip lost per unit of relative deviation from the best pressure."),                 \
        T_NUM(AX, "life.surfaceHeatCapacity", "J/K", 1, 1e6, M.life.surface_heat_capacity_jpk, 1,  \
              1, "Heat capacity C_s of the tread surface layer."),                                 \
        T_NUM(AX, "life.carcassHeatCapacity", "J/K", 10, 1e7, M.life.carcass_heat_capacity_jpk, 1, \
              1, "Heat capacity C_c of the carcass."),                                             \
        T_NUM(AX, "life.gasHeatCapacity", "J/K", 0.1, 1e6, M.life.gas_heat_capacity_jpk, 1, 1,     \
              "Heat capacity C_g of the inflation gas (0.1 kg of air: about 70 J/K)."),            \
        T_NUM(AX, "life.slideHeatShare", "-", 0, 1, M.life.slide_heat_share, 1, 1,                 \
              "Share a_f of the sliding power |Fx Vsx| + |Fy Vsy| that heats the tread."),         \
        T_NUM(AX, "life.surfaceCarcassConductance", "W/K", 0, 1e6, M.life.surface_carcass_wpk, 1,  \
              1, "Conductance G_sc between tread surface and carcass."),                           \
        T_NUM(AX, "life.carcassGasConductance", "W/K", 0, 1e6, M.life.carcass_gas_wpk, 1, 1,       \
              "Conductance G_cg between carcass and gas."),                                        \
        T_NUM(AX, "life.roadConductance", "W/K", 0, 1e6, M.life.road_wpk, 1, 1,                    \
              "Conductance G_road from the tread into the road while in contact."),                \
        T_NUM(AX, "life.airConductance", "W/K", 0, 1e6, M.life.air_wpk, 1, 1,                      \
              "Convective conductance h A to the air at rest, surface and carcass each."),         \
        T_NUM(AX, "life.airConductancePerSpeed", "W/K/(m/s)^0.8", 0, 1e5, M.life.air_wpk_per_mps,  \
              1, 1, "Growth of airConductance with speed: h A = air + this * v^0.8."),             \
        T_NUM(AX, "life.hysteresisCoeff", "-", 0, 0.5, M.life.hysteresis_coeff, 1, 1,              \
              "f_rr in the carcass' flexing heat P = f_rr Fz |Vx|."),                              \
        T_NUM(AX, "life.heatScale", "-", 0, 100, M.life.heat_scale, 1, 1,                          \
              "Multiplies the heating; 0 turns it off (the tread still cools to the road "         \
              "and the air)."),                                                                    \
        T_NUM(AX, "life.treadDepth", "m", 0.0001, 0.1, M.life.tread_depth_m, 1, 1,                 \
              "Tread depth of a new tyre."),                                                       \
        T_NUM(AX, "life.wearRate", "m/J", 0, 1e-4, M.life.wear_m_per_j, 1, 1,                      \
              "k_w: tread depth lost per joule of sliding work (Archard), three times faster "     \
              "above 120 C."),                                                                     \
        T_NUM(AX, "life.wearScale", "-", 0, 1e4, M.life.wear_scale, 1, 1,                          \
              "Multiplies the wear; 0 turns wear off."),                                \
        T_NUM(AX, "life.wornGrip", "-", 0, 1, M.life.worn_grip, 1, 1,                              \
              "Grip at zero tread depth, as a share of a new tyre's."),                            \
        T_NUM(                                                                                     \
            AX, "life.leakRate", "1/s", 0, 1, M.life.leak_per_s, 1, 1,                             \
            "Leak rate, share of the air per second, of a puncture that does not give its own."),  \
        T_NUM(AX, "life.flatDrop", "m", 0, 1, M.life.flat_drop_m, 1, 1,                            \
              "How much lower the wheel centre sits on a flat tyre (on its sidewalls)."),          \
        T_NUM(AX, "life.rimRadius", "m", 0.02, 2, M.life.rim_radius_m, 1, 1,                       \
              "Radius of the bare rim once the tyre has shredded."),                               \
        T_NUM(AX, "life.hubRadius", "m", 0.01, 2, M.life.hub_radius_m, 1, 1,                       \
              "Height of the hub over the road when the wheel is off."),                           \
        T_NUM(AX, "life.flatToRim", "m", 0, 1e6, M.life.flat_to_rim_m, 1, 1,                       \
              "Distance run flat before the tyre shreds to the rim (default 1500)."),

/* What follows from an axle's tyre keys: the soil model's radius and
 * inflation pressure are the tyre's (one key each, so they cannot
 * disagree), and the Magic Formula coefficients are the named set's. */
static void complete_tyre(pdk_axle_tyre_def *t)
{
    t->soil.radius_m = t->law.radius_m;
    t->soil.inflation_pa = t->life.cold_pressure_kpa * 1000.0;
    const pdk_mf_coeffs *mf = pdk_mf_set_coeffs(t->law.mf_set);
    if (mf != NULL) {
        t->law.mf = *mf;
    }
}

/* Gravity for what follows from a UTV's static loads. A vehicle preset is
 * resolved apart from any world, so it uses the g of the UTV model's
 * conventions: the dampers do not depend on it (c = 2 zeta sqrt(k N0 / g),
 * N0 / g being the corner's mass), the tyres' nominal loads and cornering
 * stiffnesses are those under 9.81 m/s^2. */
#define UTV_GRAVITY_MPS2 9.81

/* A lumped or geared vehicle's chassis carries its payload (payload.h):
 * the keys it shares with a utv come from the utv's mass struct, where
 * they land. A payload the chassis cannot carry leaves it as given, and
 * the cross-check refuses it with the values (schema_vehicle_rules.c). */
static void complete_payload(pdk_vehicle_work *w)
{
    pdk_payload_def *p = &w->payload;
    p->occupant_kg = w->mass.occupant_kg;
    p->occupants = w->mass.occupants;
    p->cargo_kg = w->mass.cargo_kg;
    p->cargo_m[0] = w->mass.cargo_x_m;
    p->cargo_m[2] = w->mass.cargo_z_m;
    (void)pdk_payload_apply(&w->def.chassis, p);
}

/* What follows from the keys: the kit's reverse lockout from its staged
 * bool, each axle's tyre, a lumped or geared
 * vehicle's chassis with its payload, and by the powertrain's
 * kind nothing of a powertrain (lumped: zeroed, as sim's default), or the
 * engine's curve and ABS from their staged keys and then a geared car's
 * powertrain without the UTV's parts, or a UTV's without the geared
 * parts and its chassis, corners and tyre loads, derived from its staged
 * keys as pdk_vehicle_def_polaris derives them (pdk_utv_def_complete). */
static void vehicle_complete(void *vwork)
{
    pdk_vehicle_work *w = vwork;
    pdk_vehicle_def *def = &w->def;
    def->dbw.lockout_reverse = w->dbw_lockout_reverse ? 1 : 0;
    complete_tyre(&def->tyre_front);
    complete_tyre(&def->tyre_rear);
    pdk_powertrain_def *pt = &def->powertrain;
    w->chassis_given = def->chassis;
    if (pt->kind != PDK_POWERTRAIN_UTV) {
        complete_payload(w);
    }
    if (pt->kind == PDK_POWERTRAIN_LUMPED) {
        memset(pt, 0, sizeof *pt);
        return;
    }
    pdk_engine_def *e = &pt->engine;
    for (int i = 0; i < PDK_ENGINE_CURVE_MAX; i++) {
        e->curve_rpm[i] = i < e->n_curve ? w->torque_curve[i].rpm : 0.0;
        e->curve_nm[i] = i < e->n_curve ? w->torque_curve[i].nm : 0.0;
    }
    pt->abs = w->abs ? 1 : 0;
    if (pt->kind == PDK_POWERTRAIN_GEARED) {
        /* No CVT, lever or drive modes (zero, as sim's geared test car
         * has them), and the lumped drive's pawl is not a geared car's
         * (transmission.parkHold). */
        memset(&pt->cvt, 0, sizeof pt->cvt);
        memset(&pt->gearbox, 0, sizeof pt->gearbox);
        pt->drive_mode = PDK_DRIVE_TURF;
        def->brake.park_hold_force_n = 0.0;
        return;
    }
    memset(&pt->geared, 0, sizeof pt->geared);
    memset(&pt->layout, 0, sizeof pt->layout);
    pt->output_inertia_kgm2 = 0.0;
    pdk_utv_def_complete(def, &w->mass, &w->suspension, w->cornering_per_load, UTV_GRAVITY_MPS2);
}

/* A utv's own keys (only_for ONLY_UTV), landing in pdk_vehicle_work:
 * sim's definition (member def.*) or the keys staged beside it. */
#define U_NUM(p, u, lo, hi, member, mul, div, desc)                                                \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = (mul), .si_div = (div),            \
        .description = (desc), .only_for = ONLY_UTV                                                \
    }
#define U_BOOL(p, member, desc)                                                                    \
    {                                                                                              \
        .path = (p), .unit = "bool", .type = PDK_KEY_BOOL, .min = NAN, .max = NAN,                 \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .only_for = ONLY_UTV                                                \
    }
#define U_CHOICE(p, member, set, desc)                                                             \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .choices = &(set), .only_for = ONLY_UTV                             \
    }

/* The keys of an engine, its fuel and brake torques (a utv's and a geared
 * car's), and a geared car's own, as U_NUM's. */
#define E_NUM(p, u, lo, hi, member, mul, div, desc)                                                \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = (mul), .si_div = (div),            \
        .description = (desc), .only_for = ENGINED                                                 \
    }
#define G_NUM(p, u, lo, hi, member, desc)                                                          \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .only_for = ONLY_GEARED                                             \
    }
#define G_CHOICE(p, member, set, desc)                                                             \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .choices = &(set), .only_for = ONLY_GEARED                          \
    }

/* Where a part of the UTV may sit, sim's bounds (pdk_utv_mass_def_problem):
 * in the UTV's body axes, from the ground under the middle of the rear axle,
 * x forward, y left, z up (utv_mass.h). */
#define POSITION_X_M 10.0
#define POSITION_Y_M 5.0
#define POSITION_Z_LOW_M -1.0
#define POSITION_Z_HIGH_M 5.0

/* The keys of a payload that a utv and a lumped or geared vehicle share,
 * with the same meaning (mass.occupants, occupantKg, cargoKg, cargoX,
 * cargoZ), landing in the utv's mass struct, from which vehicle_complete
 * copies a car's (payload.h); a lumped or geared vehicle's own payload
 * keys, in pdk_vehicle_work.payload; a utv's seats, which a car gives as
 * mass.seats. A car's payload keys are in its resolved JSON only when
 * given, so a preset without them resolves as it did before they existed;
 * a utv's are always there, as all its keys. */
#define BY_UTV_SEATS "a utv's seats are mass.frontSeatX, rearSeatX, seatLateral and seatZ"
#define BY_UTV_CARGO "a utv's cargo is on the centre line"
#define BY_UTV_BED "the UTV model gives the utv's bed no limit"
#define BY_CAR_SEATS "a lumped or geared vehicle's seats are mass.seats"
#define P_NUM(p, u, lo, hi, member, desc)                                                          \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .resolved_when_given = NOT_UTV                                      \
    }
#define P_INT(p, lo, hi, member, desc)                                                             \
    {                                                                                              \
        .path = (p), .unit = "-", .type = PDK_KEY_INT, .min = (lo), .max = (hi),                   \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .resolved_when_given = NOT_UTV                                      \
    }
#define C_NUM(p, u, lo, hi, member, other, desc)                                                   \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .only_for = NOT_UTV, .otherwise = (other),                          \
        .resolved_when_given = NOT_UTV                                                             \
    }
#define US_NUM(p, u, lo, hi, member, desc)                                                         \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = offsetof(pdk_vehicle_work, member), .si_mul = 1, .si_div = 1,                    \
        .description = (desc), .only_for = ONLY_UTV, .otherwise = BY_CAR_SEATS                     \
    }

/* A seat of mass.seats: an occupant's centre of mass, in the UTV's body
 * axes (x forward of the rear axle, y left, z above the ground). */
static const pdk_param_key seat_fields[] = {
    KEY_NUM("x", "m", -POSITION_X_M, POSITION_X_M, 0, 1, 1,
            "The seated occupant's centre of mass, forward of the rear axle."),
    KEY_NUM("y", "m", -POSITION_Y_M, POSITION_Y_M, sizeof(double), 1, 1,
            "The seated occupant's centre of mass, to the left of the centre line."),
    KEY_NUM("z", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, 2 * sizeof(double), 1, 1,
            "The seated occupant's centre of mass, above the ground."),
};

/* The seats land in the payload's seat_m, their count in n_seats. */
static const pdk_list_spec seat_list = {
    .fields = seat_fields,
    .n_fields = N_ELEMS(seat_fields),
    .count_offset = offsetof(pdk_vehicle_work, payload.n_seats),
    .item_size = sizeof(double[3]),
    .max_items = PDK_PAYLOAD_SEATS_MAX,
};

/* A point of engine.torqueCurve. */
static const pdk_param_key torque_point_fields[] = {
    KEY_NUM("rpm", "rev/min", 0, 25000, offsetof(pdk_engine_point, rpm), 1, 1,
            "Engine speed of the point; the points' speeds rise."),
    KEY_NUM("nm", "N*m", 0, 1e5, offsetof(pdk_engine_point, nm), 1, 1,
            "Full-load torque at that speed."),
};

/* The torque curve's points land in pdk_vehicle_work.torque_curve, its
 * count in the engine's n_curve; the complete step copies the points into
 * the engine's speeds and torques. */
static const pdk_list_spec torque_curve_list = {
    .fields = torque_point_fields,
    .n_fields = N_ELEMS(torque_point_fields),
    .count_offset = offsetof(pdk_vehicle_work, def.powertrain.engine.n_curve),
    .item_size = sizeof(pdk_engine_point),
    .max_items = PDK_ENGINE_CURVE_MAX,
};

/* A geared car's forward gears: a list of numbers landing in the
 * gearbox's ratios, its count in n_gears. */
static const pdk_param_key gear_ratio_field[] = {
    KEY_NUM("ratio", "-", 0.05, 50, 0, 1, 1,
            "A forward gear's ratio, engine speed over the gearbox output's."),
};

static const pdk_list_spec gear_ratio_list = {
    .fields = gear_ratio_field,
    .n_fields = N_ELEMS(gear_ratio_field),
    .count_offset = offsetof(pdk_vehicle_work, def.powertrain.geared.n_gears),
    .item_size = sizeof(double),
    .max_items = PDK_GEARS_MAX,
    .bare = true,
};

/* A drive-by-wire kit's key (dbw_def.h), every powertrain kind's: in the
 * kit's own units (deg at the steering wheel, bar, %), which are sim's
 * fields' too, and with sim's bounds (pdk_dbw_def_problem, whose messages
 * name the same keys); docs/dbw.md gives each value's meaning and basis. */
#define D_NUM(p, u, lo, hi, member, desc) V_NUM("dbw." p, u, lo, hi, dbw.member, 1, 1, desc)

/* Bounds are what a road, off-road or commercial vehicle can physically
 * have, wide enough for a kart and a 100 t truck; docs/presets.md explains
 * each. */
static const pdk_param_key vehicle_keys[] = {
    {.path = "description",
     .unit = "text",
     .type = PDK_KEY_TEXT,
     .min = NAN,
     .max = NAN,
     .si_mul = 1,
     .si_div = 1,
     .description = "Free text: what the preset models and where its numbers come from."},
    V_CHOICE("simulation.model", model, model_choices,
             "Vehicle model: fourWheel (rigid chassis on four struts) or singleTrack (planar "
             "single-track model, for traffic and as the analytic cross-check)."),
    N_NUM("chassis.mass", "kg", 50, 100000, chassis.mass_kg, 1, 1, BY_MASS,
          "Total mass with driver and fluids."),
    N_NUM("chassis.yawInertia", "kg*m^2", 1, 5e6, chassis.yaw_inertia_kgm2, 1, 1, BY_MASS,
          "Yaw moment of inertia about the vertical axis through the centre of gravity."),
    N_NUM("chassis.rollInertia", "kg*m^2", 1, 2e6, chassis.roll_inertia_kgm2, 1, 1, BY_MASS,
          "Roll moment of inertia about the longitudinal axis through the centre of gravity."),
    N_NUM("chassis.pitchInertia", "kg*m^2", 1, 5e6, chassis.pitch_inertia_kgm2, 1, 1, BY_MASS,
          "Pitch moment of inertia about the lateral axis through the centre of gravity."),
    V_NUM("chassis.wheelbase", "m", 0.5, 15, chassis.wheelbase_m, 1, 1, "Front axle to rear axle."),
    N_NUM("chassis.cgToFrontAxle", "m", 0.05, 15, chassis.cg_to_front_axle_m, 1, 1, BY_MASS,
          "Centre of gravity to front axle, along x; less than the wheelbase."),
    N_NUM("chassis.cgHeight", "m", 0.05, 5, chassis.cg_height_m, 1, 1, BY_MASS,
          "Centre-of-gravity height above the ground at rest; the car sits there whatever its "
          "springs."),
    V_NUM("chassis.trackWidth", "m", PDK_SCHEMA_MIN_TRACK_M, 5, chassis.track_width_m, 1, 1,
          "Track, contact to contact, of both axles unless an axle sets its own."),
    V_NUM("chassis.angularDamping", "1/s", 0, 10, chassis.angular_damping_per_s, 1, 1,
          "The body's angular velocity loses this share per second (omega <- omega (1 - c dt) "
          "each substep): the Polaris model's chassis carries 0.08; 0 for none. "
          "fourWheel model only."),
    V_NUM("chassis.bodyLength", "m", 0, 30, chassis.body_length_m, 1, 1,
          "The body's overall length, bumper to bumper: its collision hull's (fourWheel model). "
          "0 derives it: the wheelbase plus twice each axle's tyre radius ahead of and behind "
          "the axles. At least the wheelbase."),
    V_NUM("chassis.bodyWidth", "m", 0, 6, chassis.body_width_m, 1, 1,
          "The body's overall width: its collision hull's (fourWheel model). 0 derives it: the "
          "wider track plus one tyre radius. At least the track."),
    V_NUM("chassis.bodyHeight", "m", 0, 10, chassis.body_height_m, 1, 1,
          "The body's height, ground to roof at rest: its collision hull's (fourWheel model). 0 "
          "derives it: 2.5 times the CG height. Above the CG height."),
    V_NUM("contact.friction", "-", 0, 2, contact.friction, 1, 1,
          "The body's Coulomb friction coefficient against another body (fourWheel model: "
          "contact between bodies); a pair takes the geometric mean of its two. 0.5, a car "
          "body's painted steel and plastic, unless a published figure says otherwise."),
    V_NUM("contact.restitution", "-", 0, 1, contact.restitution, 1, 1,
          "The share of the approach speed the body gives back in an impact with another body "
          "(fourWheel model); a pair takes the larger of its two. 0.1, a car's bumper at low "
          "speed, unless a published figure says otherwise."),
    N_NUM("tyres.front.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_front.cornering_stiffness_n_per_rad, 1, 1, BY_CORNERING_PER_LOAD,
          "Front axle (both tyres): lateral force per radian of slip angle at zero slip; read "
          "by the singleTrack model and the grip and utv laws (each tyre half of it at its "
          "static load, in proportion to its load)."),
    V_NUM("tyres.front.friction", "-", 0.1, 2.5, tyre_front.friction_coeff, 1, 1,
          "Front tyres' peak friction coefficient on dry tarmac, the reference surface; read "
          "by the singleTrack model and the grip and utv laws (the magicFormula law has its "
          "set's)."),
    V_NUM("tyres.front.camberStiffness", "N/rad", 0, 1e6, tyre_front.camber_stiffness_n_per_rad, 1,
          1,
          "Front axle (both tyres): camber thrust per radian of inclination at static load; "
          "read by the grip law."),
    N_NUM("tyres.rear.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_rear.cornering_stiffness_n_per_rad, 1, 1, BY_CORNERING_PER_LOAD,
          "Rear axle (both tyres): lateral force per radian of slip angle at zero slip; read "
          "by the singleTrack model and the grip and utv laws (each tyre half of it at its "
          "static load, in proportion to its load)."),
    V_NUM("tyres.rear.friction", "-", 0.1, 2.5, tyre_rear.friction_coeff, 1, 1,
          "Rear tyres' peak friction coefficient on dry tarmac, the reference surface; read "
          "by the singleTrack model and the grip and utv laws (the magicFormula law has its "
          "set's)."),
    V_NUM("tyres.rear.camberStiffness", "N/rad", 0, 1e6, tyre_rear.camber_stiffness_n_per_rad, 1, 1,
          "Rear axle (both tyres): camber thrust per radian of inclination at static load; read "
          "by the grip law."),
    TYRE_KEYS("front", tyre_front) TYRE_KEYS("rear", tyre_rear)
        V_NUM("steering.ratio", "-", 1, 40, steering.ratio, 1, 1,
              "Steering-wheel angle over road-wheel angle."),
    V_NUM("steering.lockDeg", "deg", 10, 1440, steering.lock_deg, 1, 1,
          "Steering-wheel angle at full lock, each side."),
    V_NUM("steering.centerOffsetDeg", "deg", -180, 180, steering.center_offset_deg, 1, 1,
          "Steering-wheel angle at which the road wheels point straight ahead (a misaligned "
          "wheel); within the lock."),
    V_NUM("steering.ackermann", "-", 0, 1, steering.ackermann, 1, 1,
          "Ackermann mix: 0 parallel steer, 1 ideal Ackermann (the inner wheel steers more)."),
    V_NUM("steering.trail", "m", 0, 0.3, steering.trail_m, 1, 1,
          "Mechanical trail from caster: how far behind the steering axis' meeting with the "
          "ground the contact centre is; the lateral force times it adds to the aligning moment "
          "the steering wheel feels. Four-wheel only; feel only, the motion does not read it."),
    V_NUM("steering.assistGain", "-", 0, 20, steering.assist_gain, 1, 1,
          "Power assist's boost: the assist's torque per unit of the driver's, up to "
          "steering.assistMaxTorque; 0 unassisted. Four-wheel only; feel only."),
    V_NUM("steering.assistMaxTorque", "N*m", 0, 200, steering.assist_max_nm, 1, 1,
          "The most torque the power assist adds, at the steering wheel; 0 exactly when "
          "steering.assistGain is 0. Four-wheel only; feel only."),
    SUSPENSION_KEYS("front", susp_front) SUSPENSION_KEYS("rear", susp_rear)
        L_NUM("drive.maxForce", "N", 0, 1e6, drive.max_force_n, 1, 1, BY_POWERTRAIN,
              "Drive force at the contact patches at full pedal and low speed."),
    L_NUM("drive.maxPowerKw", "kW", 0.1, 5000, drive.max_power_w, 1000, 1, BY_POWERTRAIN,
          "Power at the contact patches at full pedal; caps the force at speed."),
    L_NUM("drive.frontFraction", "-", 0, 1, drive.front_fraction, 1, 1, BY_POWERTRAIN,
          "Share of the drive force on the front axle: 0 rear-wheel, 1 front-wheel drive."),
    L_NUM("drive.maxReverseSpeedKmh", "km/h", 1, 100, drive.max_reverse_speed_mps, 1, 3.6,
          BY_POWERTRAIN, "Governed top speed in reverse (R)."),
    L_NUM("drive.maxLowSpeedKmh", "km/h", 1, 200, drive.max_low_speed_mps, 1, 3.6, BY_POWERTRAIN,
          "Governed top speed in the low gear (L)."),
    L_NUM("brakes.forcePerBar", "N/bar", 1, 1e5, brake.force_per_bar_n, 1, 1, BY_BRAKE_GAINS,
          "Total brake force at the contact patches per bar of line pressure."),
    L_NUM("brakes.frontFraction", "-", 0, 1, brake.front_fraction, 1, 1, BY_BRAKE_GAINS,
          "Brake balance: share of the brake force on the front axle."),
    V_NUM("brakes.maxLineBar", "bar", 1, 500, brake.max_line_bar, 1, 1,
          "Highest brake line pressure; a command above it is refused."),
    L_NUM("brakes.parkHoldForce", "N", 0, 1e6, brake.park_hold_force_n, 1, 1, BY_PAWL,
          "Force the parking pawl holds at the contact patches in P."),
    V_NUM("resistance.rollingCoeff", "-", 0, 0.5, resist.rolling_coeff, 1, 1,
          "Rolling-resistance coefficient of the singleTrack model: F = c * m * g (the "
          "fourWheel model rolls each tyre with tyres.*.rollingCoeff)."),
    V_NUM("resistance.dragArea", "m^2", 0, 50, resist.drag_area_m2, 1, 1,
          "Drag coefficient times frontal area, Cd * A."),
    V_NUM("resistance.downforceArea", "m^2", 0, 20, resist.downforce_area_m2, 1, 1,
          "Lift coefficient times frontal area, C_L * A, positive pressing down: downforce 1/2 "
          "rho C_L A v^2 at the body's forward speed (fourWheel model only); 0 for none."),
    V_NUM("resistance.downforceFront", "-", 0, 1, resist.downforce_front, 1, 1,
          "Share of the downforce at the front axle, the rest at the rear (the aerodynamic "
          "balance)."),
    {.path = "powertrain.kind",
     .unit = "choice",
     .type = PDK_KEY_CHOICE,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_def, powertrain.kind),
     .si_mul = 1,
     .si_div = 1,
     .description = "lumped: the drive.* force and the brakes.* force per bar; utv: the UTV model, "
                    "its chassis from its mass.* parts, its corners from suspension.*, "
                    "driven by engine.*, cvt.* and gearbox.* and braked by torques; geared: an "
                    "engine.*, a launch clutch.*, a transmission.* of fixed ratios and the "
                    "driveline.*'s differentials, braked by torques (utv and geared: fourWheel "
                    "model only).",
     .choices = &powertrain_kind_choices},
    U_CHOICE("powertrain.driveMode", def.powertrain.drive_mode, drive_mode_choices,
             "The AWD switch at spawn (the Polaris's drive modes): turf (open rear "
             "differential, front not driven), 2wd (locked rear) or awd (locked rear, the "
             "front's overrunning clutches engage when the rear slips)."),
    U_NUM("mass.dryKg", "kg", 10, 1e5, mass.dry_kg, 1, 1,
          "Dry mass of the vehicle: no fluids, occupants, equipment or cargo."),
    U_NUM("mass.dryCgForward", "m", -POSITION_X_M, POSITION_X_M, mass.dry_cg_m[0], 1, 1,
          "The dry vehicle's centre of mass, forward of the rear axle."),
    U_NUM("mass.dryCgLeft", "m", -POSITION_Y_M, POSITION_Y_M, mass.dry_cg_m[1], 1, 1,
          "The dry vehicle's centre of mass, to the left of the centre line."),
    U_NUM("mass.dryCgHeight", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.dry_cg_m[2], 1, 1,
          "The dry vehicle's centre of mass, above the ground."),
    U_NUM("mass.dryGyrationRoll", "m", 0, 10, mass.dry_gyration_m[0], 1, 1,
          "The dry vehicle's radius of gyration in roll: its own roll inertia is dryKg times "
          "its square."),
    U_NUM("mass.dryGyrationPitch", "m", 0, 10, mass.dry_gyration_m[1], 1, 1,
          "The dry vehicle's radius of gyration in pitch."),
    U_NUM("mass.dryGyrationYaw", "m", 0, 10, mass.dry_gyration_m[2], 1, 1,
          "The dry vehicle's radius of gyration in yaw."),
    U_NUM("mass.fluidsKg", "kg", 0, 1e4, mass.fluids_kg, 1, 1,
          "Fuel, oil and coolant, a point mass at fluidsX, fluidsY, fluidsZ."),
    U_NUM("mass.fluidsX", "m", -POSITION_X_M, POSITION_X_M, mass.fluids_m[0], 1, 1,
          "The fluids' position, forward of the rear axle."),
    U_NUM("mass.fluidsY", "m", -POSITION_Y_M, POSITION_Y_M, mass.fluids_m[1], 1, 1,
          "The fluids' position, to the left."),
    U_NUM("mass.fluidsZ", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.fluids_m[2], 1, 1,
          "The fluids' position, above the ground."),
    U_NUM("mass.roofEquipmentKg", "kg", 0, 1e4, mass.roof_kg, 1, 1,
          "Roof rack with its sensors, a point mass at roofX, roofY, roofZ."),
    U_NUM("mass.roofX", "m", -POSITION_X_M, POSITION_X_M, mass.roof_m[0], 1, 1,
          "The roof equipment's position, forward of the rear axle."),
    U_NUM("mass.roofY", "m", -POSITION_Y_M, POSITION_Y_M, mass.roof_m[1], 1, 1,
          "The roof equipment's position, to the left."),
    U_NUM("mass.roofZ", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.roof_m[2], 1, 1,
          "The roof equipment's position, above the ground."),
    U_NUM("mass.bayEquipmentKg", "kg", 0, 1e4, mass.bay_kg, 1, 1,
          "Computer and drive-by-wire modules in the electronics bay, a point mass at bayX, "
          "bayY, bayZ."),
    U_NUM("mass.bayX", "m", -POSITION_X_M, POSITION_X_M, mass.bay_m[0], 1, 1,
          "The electronics bay's position, forward of the rear axle."),
    U_NUM("mass.bayY", "m", -POSITION_Y_M, POSITION_Y_M, mass.bay_m[1], 1, 1,
          "The electronics bay's position, to the left."),
    U_NUM("mass.bayZ", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.bay_m[2], 1, 1,
          "The electronics bay's position, above the ground."),
    P_NUM("mass.occupantKg", "kg", 0, 300, mass.occupant_kg,
          "Mass of one occupant; on a lumped or geared vehicle also that of the driver its "
          "chassis.* keys include."),
    P_INT("mass.occupants", 0, PDK_PAYLOAD_SEATS_MAX, mass.occupants,
          "Occupants, the driver included: on a utv 0 to 6, seated in the UTV model's order (driver "
          "front left, front right, rear left, rear right, rear centre, front centre); on a "
          "lumped or geared vehicle 0 to the number of mass.seats, in their order, 1 being the "
          "driver its chassis already carries (0 takes the driver away)."),
    {.path = "mass.seats",
     .unit = "list",
     .type = PDK_KEY_LIST,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_work, payload.seat_m),
     .si_mul = 1,
     .si_div = 1,
     .description = "A lumped or geared vehicle's seats, the driver's first, 0 to 9: "
                    "[{\"x\", \"y\", \"z\"}, ...], each where an occupant's centre of mass "
                    "sits; without seats mass.occupants stays 1.",
     .list = &seat_list,
     .only_for = NOT_UTV,
     .otherwise = BY_UTV_SEATS,
     .resolved_when_given = NOT_UTV},
    US_NUM("mass.frontSeatX", "m", -POSITION_X_M, POSITION_X_M, mass.front_seat_x_m,
           "The front seats, forward of the rear axle."),
    US_NUM("mass.rearSeatX", "m", -POSITION_X_M, POSITION_X_M, mass.rear_seat_x_m,
           "The rear seats, forward of the rear axle."),
    US_NUM("mass.seatLateral", "m", 0, POSITION_Y_M, mass.seat_lateral_m,
           "Lateral offset of the outer seats from the centre line."),
    US_NUM("mass.seatZ", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.seat_z_m,
           "Height of an occupant's centre of mass above the ground."),
    P_NUM("mass.cargoKg", "kg", 0, 1e4, mass.cargo_kg,
          "Cargo, a point mass at cargoX, cargoY, cargoZ: in a utv's bed, on the centre line; in "
          "a lumped or geared vehicle's load space, at most cargoMaxKg."),
    C_NUM("mass.cargoMaxKg", "kg", 0, 1e4, payload.cargo_max_kg, BY_UTV_BED,
          "What a lumped or geared vehicle's load space (its boot or bed) takes; 0: it has "
          "none, and mass.cargoKg stays 0."),
    P_NUM("mass.cargoX", "m", -POSITION_X_M, POSITION_X_M, mass.cargo_x_m,
          "The cargo's position, forward of the rear axle (negative: behind it)."),
    C_NUM("mass.cargoY", "m", -POSITION_Y_M, POSITION_Y_M, payload.cargo_m[1], BY_UTV_CARGO,
          "The cargo's position, to the left of the centre line."),
    P_NUM("mass.cargoZ", "m", POSITION_Z_LOW_M, POSITION_Z_HIGH_M, mass.cargo_z_m,
          "The cargo's centre of mass above the ground."),
    U_NUM("suspension.frontWheelRate", "N/m", 100, 1e7, suspension.front_wheel_rate_npm, 1, 1,
          "Spring rate at a front wheel; the corner is it in series with the tyre's membrane, "
          "2 pi (p_i + p_c) sqrt(R b / 2)."),
    U_NUM("suspension.rearWheelRate", "N/m", 100, 1e7, suspension.rear_wheel_rate_npm, 1, 1,
          "Spring rate at a rear wheel, as frontWheelRate."),
    U_NUM("suspension.dampingRatio", "-", PDK_MIN_DAMPING_RATIO, 2, suspension.damping_ratio, 1, 1,
          "Damping ratio of every corner on its static mass, bump and rebound alike; at least "
          "0.1, the four-wheel model's floor."),
    U_NUM("suspension.travel", "m", 0.01, 2, suspension.travel_m, 1, 1,
          "Total wheel travel, droop and bump stop included."),
    U_NUM("suspension.droop", "m", 0.001, 1, suspension.droop_m, 1, 1,
          "Travel below the static position (full extension)."),
    U_NUM("suspension.bumpStopLength", "m", 0, 1, suspension.bump_stop_length_m, 1, 1,
          "Length of the bump stop at the top of the travel; travel - droop - bumpStopLength "
          "is the travel from ride height to the stop, at least 0.01 m."),
    U_NUM("suspension.bumpStopRate", "N/m^2", 0, 1e10, suspension.bump_stop_rate_npm2, 1, 1,
          "Quadratic rate k_b of the seed's stop, F = k_b x^2; the model's linear stop has the "
          "rate k_b bumpStopLength, the same force at the stop's end."),
    U_NUM("tyres.front.corneringPerLoad", "1/rad", 0.5, 50, cornering_per_load[0], 1, 1,
          "Cornering stiffness per newton of load, C_alpha / N: the front axle's "
          "corneringStiffness is twice this times the static corner load."),
    U_NUM("tyres.rear.corneringPerLoad", "1/rad", 0.5, 50, cornering_per_load[1], 1, 1,
          "Cornering stiffness per newton of load at the rear, as the front's."),
    E_NUM("engine.idleRpm", "rev/min", 100, 5000, def.powertrain.engine.idle_rpm, 1, 1,
          "The idle governor's speed."),
    E_NUM("engine.maxRpm", "rev/min", 500, 25000, def.powertrain.engine.max_rpm, 1, 1,
          "The rev limiter's speed: no fuel at or above it; above idleRpm."),
    {.path = "engine.torqueCurve",
     .unit = "list",
     .type = PDK_KEY_LIST,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_work, torque_curve),
     .si_mul = 1,
     .si_div = 1,
     .description = "Full-load torque against engine speed, 2 to 16 points of rising speed: "
                    "[{\"rpm\", \"nm\"}, ...]; linear between them, the end values held "
                    "beyond, 0 at and above maxRpm.",
     .list = &torque_curve_list,
     .only_for = ENGINED},
    E_NUM("engine.inertia", "kg*m^2", 1e-4, 100, def.powertrain.engine.inertia_kgm2, 1, 1,
          "Inertia of the crank, flywheel and primary clutch."),
    E_NUM("engine.accessoryDrag", "N*m", 0, 1000, def.powertrain.engine.accessory_drag_nm, 1, 1,
          "Drag torque of the alternator and pumps."),
    E_NUM("engine.displacementL", "L", 0.01, 30, def.powertrain.engine.displacement_l, 1, 1,
          "Swept volume V_d: 1 bar of mean effective pressure is V_d / (4 pi) of torque."),
    E_NUM("engine.indicatedEfficiency", "-", 0.05, 0.7, def.powertrain.engine.indicated_efficiency,
          1, 1,
          "Indicated efficiency of the Willans line: fuel power is the indicated power over "
          "it."),
    E_NUM("engine.fmepBar", "bar", -10, 10, def.powertrain.engine.fmep_bar, 1, 1,
          "Friction mean effective pressure, constant term f0 (Heywood 13.6)."),
    E_NUM("engine.fmepBarPerKrpm", "bar/krpm", -10, 10, def.powertrain.engine.fmep_bar_per_krpm, 1,
          1, "Friction mean effective pressure, term f1 linear in speed in 1000 rev/min."),
    E_NUM("engine.fmepBarPerKrpm2", "bar/krpm^2", -10, 10, def.powertrain.engine.fmep_bar_per_krpm2,
          1, 1, "Friction mean effective pressure, term f2 in the square of the speed."),
    E_NUM("engine.pumpingBar", "bar", 0, 10, def.powertrain.engine.pumping_bar, 1, 1,
          "Pumping mean effective pressure with the throttle shut."),
    E_NUM("engine.torqueLag", "s", 0, 10, def.powertrain.engine.torque_lag_s, 1, 1,
          "Time constant of the torque request's first-order lag."),
    E_NUM("engine.idleGain", "-", 0, 100, def.powertrain.engine.idle_gain, 1, 1,
          "Proportional gain of the idle governor on the relative speed error."),
    E_NUM("engine.pedalExponent", "-", 0, 10, def.powertrain.engine.pedal_exponent, 1, 1,
          "Exponent gamma of the pedal map: the request is pedal^max(0.1, gamma)."),
    E_NUM("engine.maxSpeed", "m/s", 0, 200, def.powertrain.engine.max_speed_mps, 1, 1,
          "Governed top speed at the rear wheels; 0: no governor."),
    E_NUM("fuel.lhvMjKg", "MJ/kg", 1, 200, def.powertrain.fuel_heating_value_jpkg, 1e6, 1,
          "Lower heating value of the fuel (petrol 43.4)."),
    E_NUM("fuel.densityKgL", "kg/L", 0.01, 2, def.powertrain.fuel_density_kgpl, 1, 1,
          "Density of the fuel."),
    E_NUM("fuel.tankL", "L", 0, 1e4, def.powertrain.fuel_tank_l, 1, 1,
          "Volume of the tank, full at spawn; 0: no tank (the fuel never runs out)."),
    U_NUM("cvt.lowRatio", "-", 0.1, 10, def.powertrain.cvt.low_ratio, 1, 1,
          "The lowest belt ratio (primary over secondary speed, the largest number); at least "
          "highRatio."),
    U_NUM("cvt.highRatio", "-", 0.1, 10, def.powertrain.cvt.high_ratio, 1, 1,
          "The overdrive belt ratio."),
    U_NUM("cvt.engageRpm", "rev/min", 0, 20000, def.powertrain.cvt.engage_rpm, 1, 1,
          "Engine speed at which the centrifugal clutch starts to grip."),
    U_NUM("cvt.fullEngageRpm", "rev/min", 0, 20000, def.powertrain.cvt.full_engage_rpm, 1, 1,
          "Engine speed at which the clutch has its full capacity; above engageRpm."),
    U_NUM("cvt.clutchCapacity", "N*m", 0, 1e5, def.powertrain.cvt.clutch_capacity_nm, 1, 1,
          "The clutch's full capacity C_max."),
    U_NUM("cvt.ebsCapacity", "N*m", 0, 1e5, def.powertrain.cvt.ebs_capacity_nm, 1, 1,
          "Capacity of the Engine Braking System the other way, falling to 0 at idle."),
    U_NUM("cvt.shiftRpmLight", "rev/min", 100, 20000, def.powertrain.cvt.shift_rpm_light, 1, 1,
          "Shift speed with no torque through the belt."),
    U_NUM("cvt.shiftRpmFull", "rev/min", 100, 20000, def.powertrain.cvt.shift_rpm_full, 1, 1,
          "Shift speed at the engine's peak torque; at least shiftRpmLight."),
    U_NUM("cvt.shiftTau", "s", 0, 10, def.powertrain.cvt.shift_tau_s, 1, 1,
          "Time constant of the belt ratio's first-order lag."),
    U_NUM("cvt.beltEfficiency", "-", 0.1, 1, def.powertrain.cvt.belt_efficiency, 1, 1,
          "Efficiency of the belt, either way the power flows."),
    U_NUM("cvt.gearEfficiency", "-", 0.1, 1, def.powertrain.cvt.gear_efficiency, 1, 1,
          "Efficiency of the gears."),
    U_NUM("cvt.secondaryInertia", "kg*m^2", 0, 100, def.powertrain.cvt.secondary_inertia_kgm2, 1, 1,
          "Inertia of the secondary clutch and gearbox, turning with the rear axle in gear."),
    U_BOOL("cvt.ebs", def.powertrain.cvt.ebs, "The Engine Braking System is on."),
    U_BOOL("cvt.adc", def.powertrain.cvt.adc,
           "Active Descent Control is on: the front axle locks both ways below 2 % pedal."),
    U_NUM("gearbox.rearLowRatio", "-", 1, 200, def.powertrain.gearbox.rear_low, 1, 1,
          "Reduction to the rear wheels in L."),
    U_NUM("gearbox.rearHighRatio", "-", 1, 200, def.powertrain.gearbox.rear_high, 1, 1,
          "Reduction to the rear wheels in H."),
    U_NUM("gearbox.rearReverseRatio", "-", 1, 200, def.powertrain.gearbox.rear_reverse, 1, 1,
          "Reduction to the rear wheels in R."),
    U_NUM("gearbox.frontLowRatio", "-", 0.1, 200, def.powertrain.gearbox.front_low, 1, 1,
          "Reduction to the front prop shaft in L."),
    U_NUM("gearbox.frontHighRatio", "-", 0.1, 200, def.powertrain.gearbox.front_high, 1, 1,
          "Reduction to the front prop shaft in H."),
    U_NUM("gearbox.frontReverseRatio", "-", 0.1, 200, def.powertrain.gearbox.front_reverse, 1, 1,
          "Reduction to the front prop shaft in R."),
    U_NUM("gearbox.frontDriveRatio", "-", 0.1, 20, def.powertrain.gearbox.front_drive, 1, 1,
          "Ratio of the front drive; the front ring turns at rear / (front x this) of the rear "
          "carrier's speed."),
    U_NUM("gearbox.parkHold", "N*m", 0, 1e6, def.powertrain.gearbox.park_hold_nm, 1, 1,
          "Most torque the park pawl holds at the rear carrier."),
    U_NUM("gearbox.shiftBelow", "m/s", 0, 10, def.powertrain.gearbox.shift_below_mps, 1, 1,
          "A gear change happens only below this speed."),
    U_NUM("gearbox.shiftTime", "s", 0, 10, def.powertrain.gearbox.shift_time_s, 1, 1,
          "A gear change lasts this long, in neutral."),
    E_NUM("brakes.frontNmPerBar", "N*m/bar", 0, 1e5, def.powertrain.brake_front_nm_per_bar, 1, 1,
          "Brake torque G_f at each front wheel per bar of output pressure, not changing with "
          "the load."),
    E_NUM("brakes.rearNmPerBar", "N*m/bar", 0, 1e5, def.powertrain.brake_rear_nm_per_bar, 1, 1,
          "Brake torque G_r at each rear wheel per bar of output pressure."),
    E_NUM("brakes.biasBar", "bar", -500, 500, def.powertrain.brake_bias_bar, 1, 1,
          "Pressure bias: the output pressure is clamp(line + biasBar, 0, maxLineBar); 0 for "
          "a calibrated vehicle."),
    {.path = "brakes.abs",
     .unit = "bool",
     .type = PDK_KEY_BOOL,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_work, abs),
     .si_mul = 1,
     .si_div = 1,
     .description = "The brakes have ABS: per wheel, the pressure let off while the braking "
                    "slip is above 15 % and built up again below 8 %, above 2 m/s "
                    "(docs/powertrain.md).",
     .only_for = ENGINED},
    G_CHOICE("transmission.shift", def.powertrain.geared.shift, shift_choices,
             "How the box picks its gear in D: automatic (up at a speed rising with the pedal "
             "from upshiftRpmLight to upshiftRpmFull, down below downshiftRpm) or sequential "
             "(the same, always at upshiftRpmFull), at full pedal either shifting for power; or "
             "manual (the gear a command's gear_number names)."),
    {.path = "transmission.ratios",
     .unit = "list",
     .type = PDK_KEY_LIST,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_work, def.powertrain.geared.ratio),
     .si_mul = 1,
     .si_div = 1,
     .description = "The forward gears' ratios, first to top, falling: a list of 1 to 8 numbers "
                    "([4.148, 2.37, ...]); one is a single-speed drive.",
     .list = &gear_ratio_list,
     .only_for = ONLY_GEARED},
    G_NUM("transmission.reverseRatio", "-", 0.05, 50, def.powertrain.geared.reverse_ratio,
          "The reverse gear's ratio, its magnitude."),
    G_NUM("transmission.finalDrive", "-", 0.1, 50, def.powertrain.geared.final_drive,
          "The final drive's ratio (a kart's sprockets), after every gear."),
    G_NUM("transmission.lowRange", "-", 1, 10, def.powertrain.geared.low_range,
          "A part-time 4WD's transfer case reduction, which L adds to every gear; 1 without "
          "one."),
    G_NUM("transmission.efficiency", "-", 0.05, 1, def.powertrain.geared.efficiency,
          "Efficiency of the gears and final drive, either way the power flows."),
    G_NUM("transmission.upshiftRpmLight", "rev/min", 100, 25000,
          def.powertrain.geared.upshift_rpm_light,
          "D's upshift speed with the pedal shut; above engine.idleRpm."),
    G_NUM("transmission.upshiftRpmFull", "rev/min", 100, 25000,
          def.powertrain.geared.upshift_rpm_full,
          "D's upshift speed at full pedal; from upshiftRpmLight to engine.maxRpm."),
    G_NUM("transmission.downshiftRpm", "rev/min", 100, 25000, def.powertrain.geared.downshift_rpm,
          "A gear down below this engine speed; below upshiftRpmLight times each gear's step, "
          "or the box would hunt."),
    G_NUM("transmission.shiftTime", "s", 0, 2, def.powertrain.geared.shift_time_s,
          "How long a shift takes, the clutch open."),
    G_NUM("transmission.outputInertia", "kg*m^2", 0, 100, def.powertrain.output_inertia_kgm2,
          "Inertia of the gearbox output and shafts, at the differential's carrier."),
    G_NUM("transmission.parkHold", "N*m", 0, 1e6, def.powertrain.geared.park_hold_nm,
          "Most torque P's pawl holds at the carrier, shared by the driven wheels."),
    G_NUM("clutch.capacity", "N*m", 0.1, 1e5, def.powertrain.geared.clutch_capacity_nm,
          "The launch clutch's (torque converter's, centrifugal or automated clutch's) full "
          "capacity, either way."),
    G_NUM("clutch.engageRpm", "rev/min", 100, 25000, def.powertrain.geared.clutch_engage_rpm,
          "Engine speed at which the clutch starts to grip, above engine.idleRpm; its capacity "
          "grows with the square of the speed."),
    G_NUM("clutch.fullRpm", "rev/min", 100, 25000, def.powertrain.geared.clutch_full_rpm,
          "Engine speed at which the clutch has its full capacity; above engageRpm."),
    G_NUM("clutch.converterStallRatio", "-", 0, 4, def.powertrain.geared.converter_stall_ratio,
          "A torque converter's torque ratio at stall (about 2): while it slips the turbine "
          "gives the pump's torque times a ratio falling to 1 at converterCoupling; 0 for a "
          "plain clutch."),
    G_NUM("clutch.converterCoupling", "-", 0, 1, def.powertrain.geared.converter_coupling,
          "The speed ratio (turbine over pump) at which the converter's torque ratio reaches "
          "1 (about 0.85); above 0 with a converter."),
    G_NUM("brakes.handbrake", "N*m", 0, 1e6, def.powertrain.geared.handbrake_nm,
          "The parking brake's torque at each rear wheel in P."),
    G_CHOICE("driveline.drivenAxle", def.powertrain.layout.driven_axle, driven_axle_choices,
             "The axle behind the gearbox: front or rear."),
    G_CHOICE("driveline.diff", def.powertrain.layout.diff.kind, diff_choices,
             "The driven axle's differential: open, locked (a spool) or lsd (limited slip, "
             "biasRatio and preload)."),
    G_NUM("driveline.biasRatio", "-", 1, 100, def.powertrain.layout.diff.bias_ratio,
          "A limited-slip differential's torque bias ratio, the slower wheel's torque over "
          "the faster's at the limit; read with lsd."),
    G_NUM("driveline.preload", "N*m", 0, 1e5, def.powertrain.layout.diff.preload_nm,
          "A limited-slip differential's preload, the torque difference it holds at no "
          "torque; read with lsd."),
    G_CHOICE("driveline.coupling", def.powertrain.layout.coupling, coupling_choices,
             "The other axle: none (not driven); locked to the driven axle's carrier at "
             "secondaryRatio through its own differential (a part-time 4WD in 4H; L is 4L); or "
             "centre, a full-time AWD's centre differential (centreDiff) between the two axles."),
    G_CHOICE("driveline.centreDiff", def.powertrain.layout.centre_diff.kind, diff_choices,
             "A full-time AWD's centre differential between the axles: open, locked or lsd; "
             "read with coupling centre."),
    G_NUM("driveline.centreBiasRatio", "-", 1, 100, def.powertrain.layout.centre_diff.bias_ratio,
          "The centre differential's torque bias ratio, the slower axle's torque over the "
          "faster's at the limit; read with centreDiff lsd."),
    G_NUM("driveline.centrePreload", "N*m", 0, 1e5, def.powertrain.layout.centre_diff.preload_nm,
          "The centre differential's preload; read with centreDiff lsd."),
    G_CHOICE("driveline.secondaryDiff", def.powertrain.layout.secondary_diff.kind, diff_choices,
             "The coupled axle's differential; read with coupling locked or centre."),
    G_NUM("driveline.secondaryBiasRatio", "-", 1, 100,
          def.powertrain.layout.secondary_diff.bias_ratio,
          "The coupled axle's limited-slip bias ratio; read with secondaryDiff lsd."),
    G_NUM("driveline.secondaryPreload", "N*m", 0, 1e5,
          def.powertrain.layout.secondary_diff.preload_nm,
          "The coupled axle's limited-slip preload; read with secondaryDiff lsd."),
    G_NUM("driveline.secondaryRatio", "-", 0.1, 10, def.powertrain.layout.secondary_ratio,
          "The coupled axle's carrier speed over the driven one's; 1 for equal axle ratios."),
    D_NUM("steering.delay", "s", 0, 0.25, steer_delay_s,
          "The steering servo's dead time before it moves toward a new set point, in whole "
          "ticks; at most 0.25 s, since the kit's delay line (64 ticks at 120 Hz) also holds an "
          "injected latency."),
    D_NUM("steering.rate", "deg/s", 1, 1016, steer_rate_degps,
          "The steering-wheel rate limit that a command's cmd_rate 0 stands for (the firmware "
          "default); within the kit's cmd_rate range, 0-1016 deg/s."),
    D_NUM("steering.accel", "deg/s^2", 1, 25400, steer_accel_degps2,
          "The steering-wheel acceleration limit that a command's cmd_accel 0 stands for; within "
          "the kit's cmd_accel range, 0-25400 deg/s^2."),
    D_NUM("steering.rateMax", "deg/s", 1, 1e4, steer_rate_max_degps,
          "The servo's own rate limit, which holds under any command, INFINITY included; at "
          "least dbw.steering.rate."),
    D_NUM("steering.accelMax", "deg/s^2", 1, 1e6, steer_accel_max_degps2,
          "The servo's own acceleration limit; at least dbw.steering.accel."),
    D_NUM("steering.overrideDeg", "deg", 0.1, 180, steer_override_deg,
          "Driver override: the driver's steering-wheel angle this far from the servo's latches "
          "an override on an enabled steering channel."),
    D_NUM("brake.tau", "s", 0, 2, brake_tau_s,
          "Time constant of the line pressure's first-order lag behind its rate-limited set "
          "point; 0 for none."),
    D_NUM("brake.rate", "bar/s", 1, 1e4, brake_rate_barps,
          "The pressure rate limit that a command's rate_inc or rate_dec 0 stands for (the "
          "firmware default)."),
    D_NUM("brake.rateMax", "bar/s", 1, 1e4, brake_rate_max_barps,
          "The brake pump's own pressure rate, under any command, INFINITY included; at least "
          "dbw.brake.rate."),
    D_NUM("brake.decelMax", "m/s^2", 0.5, 50, brake_decel_max_mps2,
          "The deceleration that brakes.maxLineBar gives: an ACCEL brake command (and a PERCENT "
          "one of deceleration) becomes line pressure in proportion, so it is the vehicle's "
          "brake force at full pressure over its mass."),
    D_NUM("brake.overrideBar", "bar", 0.1, 100, brake_override_bar,
          "Driver override: the driver's pedal above this line pressure latches an override on "
          "an enabled brake channel; below brakes.maxLineBar."),
    D_NUM("throttle.tau", "s", 0, 2, throttle_tau_s,
          "Time constant of the pedal signal's first-order lag behind its rate-limited set "
          "point; 0 for none."),
    D_NUM("throttle.rate", "%/s", 1, 1e4, throttle_rate_pctps,
          "The pedal rate limit that a command's rate_inc or rate_dec 0 stands for (the "
          "firmware default)."),
    D_NUM("throttle.overridePct", "%", 0.1, 100, throttle_override_pct,
          "Driver override: the driver's pedal beyond this latches an override on an enabled "
          "throttle channel."),
    D_NUM("gear.shiftTime", "s", 0, 10, gear_shift_s, "A gear change by wire takes this long."),
    D_NUM("gear.maxSpeed", "m/s", 0, 10, gear_max_speed_mps,
          "A gear command above this speed is refused (GearReject VEHICLE_SPEED)."),
    D_NUM("gear.brakeHoldBar", "bar", 0, 500, gear_brake_hold_bar,
          "A gear command out of park is refused (GearReject VEHICLE, \"try pressing the "
          "brakes\") unless the brake holds at least this line pressure; at most "
          "brakes.maxLineBar."),
    D_NUM("lockout.speed", "m/s", 1, 150, lockout_speed_mps,
          "The kit disengages above this speed, and does not engage there "
          "(LockoutVehicleVelocity)."),
    D_NUM("lockout.accel", "m/s^2", 1, 100, lockout_accel_mps2,
          "The kit disengages above this acceleration in the ground plane, and does not engage "
          "there (LockoutVehicleAccel)."),
    {.path = "dbw.lockout.reverse",
     .unit = "bool",
     .type = PDK_KEY_BOOL,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_vehicle_work, dbw_lockout_reverse),
     .si_mul = 1,
     .si_div = 1,
     .description = "The kit disengages in reverse, and does not engage there "
                    "(LockoutGearReverse)."},
    D_NUM("system.reengageDelay", "s", 0, 10, reengage_delay_s,
          "After it disengages the kit does not engage again for this long "
          "(SystemReengageDelay)."),
    D_NUM("ulc.accel", "m/s^2", 0.3, 3, ulc_accel_default_mps2,
          "The ULC's limit_accel (how fast a velocity command may rise) that 0 stands for; "
          "within the kit's config range, 0.3-3.0 m/s^2."),
    D_NUM("ulc.decel", "m/s^2", 0.3, 6, ulc_decel_default_mps2,
          "The ULC's limit_decel (how fast a velocity command may fall) that 0 stands for; "
          "within the kit's config range, 0.3-6.0 m/s^2."),
    D_NUM("ulc.jerk", "m/s^3", 1, 25, ulc_jerk_default_mps3,
          "The ULC's limit_jerk_throttle and limit_jerk_brake (how fast its acceleration may "
          "rise and fall) that 0 stands for; within the kit's config range, 1.0-25 m/s^3."),
    D_NUM("ulc.kp", "1/s", 0.01, 20, ulc_kp_per_s,
          "The ULC's speed loop: acceleration asked per m/s of speed error, on top of the "
          "acceleration feed-forward."),
    D_NUM("ulc.ki", "1/s^2", 0, 20, ulc_ki_per_s2,
          "The ULC's speed loop: acceleration asked per metre of integrated speed error; 0 for "
          "none."),
    D_NUM("ulc.accelLoop", "1/s", 0, 20, ulc_accel_loop_per_s,
          "The ULC's inner loop: how fast the integral of the acceleration error moves the "
          "pedal, in m/s^2 of pedal per second per m/s^2 of error; it takes out a pedal's dead "
          "band, a grade and the feed-forward's error. 0 for none."),
    D_NUM("ulc.accelFull", "m/s^2", 0.1, 30, ulc_accel_full_mps2,
          "The acceleration full throttle gives at low speed: the ULC's feed-forward turns an "
          "acceleration into pedal in proportion to it."),
    D_NUM("commsLoss.decel", "m/s^2", 0.5, 10, comms_loss_decel_mps2,
          "With comms-loss braking armed, losing the commands brakes the vehicle at this "
          "deceleration to a stop."),
    D_NUM("commsLoss.holdBar", "bar", 0, 500, comms_loss_hold_bar,
          "After a comms-loss stop the brake holds the vehicle at this line pressure; at most "
          "brakes.maxLineBar."),
    D_NUM("commsLoss.holdTime", "s", 0, 86400, comms_loss_hold_s,
          "How long the brake holds after a comms-loss stop (its hold capacity) before the kit "
          "asks for park and the parking brake."),
    D_NUM("sensors.imuAccelNoise", "m/s^2", 0, 10, imu_accel_noise_mps2,
          "White noise, one standard deviation, on each IMU acceleration sample; 0 for none."),
    D_NUM("sensors.imuGyroNoise", "rad/s", 0, 1, imu_gyro_noise_radps,
          "White noise, one standard deviation, on each gyro sample; 0 for none."),
    D_NUM("sensors.gnssNoise", "m", 0, 100, gnss_noise_m,
          "White noise, one standard deviation, on each GNSS fix, per horizontal axis; 0 for "
          "none."),
    D_NUM("sensors.gnssDropout", "-", 0, 1, gnss_dropout, "The share of GNSS fixes lost, 0..1."),
};

/* The snake_case names with unit suffixes that the UTV model's own
 * settings use, for overrides ("mass.cargo_kg=150;mass.occupants=4"). A
 * name that model keeps for both axles stands for both axles' keys. The
 * engine's curve is engine.torqueCurve[i].rpm and .nm: the model's
 * parallel arrays have no alias. */
static const pdk_alias vehicle_aliases[] = {
    {"geometry.wheelbase_m", "chassis.wheelbase"},
    {"geometry.track_front_m", "suspension.front.trackWidth"},
    {"geometry.track_rear_m", "suspension.rear.trackWidth"},
    {"mass.dry_kg", "mass.dryKg"},
    {"mass.fluids_kg", "mass.fluidsKg"},
    {"mass.roof_equipment_kg", "mass.roofEquipmentKg"},
    {"mass.bay_equipment_kg", "mass.bayEquipmentKg"},
    {"mass.occupant_kg", "mass.occupantKg"},
    {"mass.cargo_kg", "mass.cargoKg"},
    {"mass.dry_cg_forward_m", "mass.dryCgForward"},
    {"mass.dry_cg_left_m", "mass.dryCgLeft"},
    {"mass.dry_cg_height_m", "mass.dryCgHeight"},
    {"mass.dry_gyration_roll_m", "mass.dryGyrationRoll"},
    {"mass.dry_gyration_pitch_m", "mass.dryGyrationPitch"},
    {"mass.dry_gyration_yaw_m", "mass.dryGyrationYaw"},
    {"mass.fluids_x_m", "mass.fluidsX"},
    {"mass.fluids_y_m", "mass.fluidsY"},
    {"mass.fluids_z_m", "mass.fluidsZ"},
    {"mass.roof_x_m", "mass.roofX"},
    {"mass.roof_y_m", "mass.roofY"},
    {"mass.roof_z_m", "mass.roofZ"},
    {"mass.bay_x_m", "mass.bayX"},
    {"mass.bay_y_m", "mass.bayY"},
    {"mass.bay_z_m", "mass.bayZ"},
    {"mass.front_seat_x_m", "mass.frontSeatX"},
    {"mass.rear_seat_x_m", "mass.rearSeatX"},
    {"mass.seat_lateral_m", "mass.seatLateral"},
    {"mass.seat_z_m", "mass.seatZ"},
    {"mass.cargo_x_m", "mass.cargoX"},
    {"mass.cargo_z_m", "mass.cargoZ"},
    {"suspension.travel_m", "suspension.travel"},
    {"suspension.droop_m", "suspension.droop"},
    {"suspension.front_wheel_rate_n_m", "suspension.frontWheelRate"},
    {"suspension.rear_wheel_rate_n_m", "suspension.rearWheelRate"},
    {"suspension.damping_ratio", "suspension.dampingRatio"},
    {"suspension.bump_stop_length_m", "suspension.bumpStopLength"},
    {"suspension.bump_stop_rate_n_m2", "suspension.bumpStopRate"},
    {"tyres.radius_m", "tyres.front.radius"},
    {"tyres.radius_m", "tyres.rear.radius"},
    {"tyres.front_width_m", "tyres.front.width"},
    {"tyres.rear_width_m", "tyres.rear.width"},
    {"tyres.section_height_m", "tyres.front.sectionHeight"},
    {"tyres.section_height_m", "tyres.rear.sectionHeight"},
    {"tyres.front_inflation_kpa", "tyres.front.inflationKpa"},
    {"tyres.rear_inflation_kpa", "tyres.rear.inflationKpa"},
    {"tyres.carcass_kpa", "tyres.front.carcassKpa"},
    {"tyres.carcass_kpa", "tyres.rear.carcassKpa"},
    {"tyres.hysteresis", "tyres.front.hysteresis"},
    {"tyres.hysteresis", "tyres.rear.hysteresis"},
    {"tyres.lug_height_m", "tyres.front.lugHeight"},
    {"tyres.lug_height_m", "tyres.rear.lugHeight"},
    {"tyres.lug_area_ratio", "tyres.front.lugAreaRatio"},
    {"tyres.lug_area_ratio", "tyres.rear.lugAreaRatio"},
    {"tyres.tread_k_m", "tyres.front.treadK"},
    {"tyres.tread_k_m", "tyres.rear.treadK"},
    {"tyres.cornering_per_load", "tyres.front.corneringPerLoad"},
    {"tyres.cornering_per_load", "tyres.rear.corneringPerLoad"},
    {"tyres.relaxation_m", "tyres.front.relaxationLat"},
    {"tyres.relaxation_m", "tyres.rear.relaxationLat"},
    {"tyres.hard_slip_stiffness", "tyres.front.hardSlipStiffness"},
    {"tyres.hard_slip_stiffness", "tyres.rear.hardSlipStiffness"},
    {"tyres.wheel_inertia_kg_m2", "tyres.front.spinInertia"},
    {"tyres.wheel_inertia_kg_m2", "tyres.rear.spinInertia"},
    {"steering.center_deg", "steering.centerOffsetDeg"},
    {"dbw.steering.lock_deg", "steering.lockDeg"},
    {"engine.idle_rpm", "engine.idleRpm"},
    {"engine.max_rpm", "engine.maxRpm"},
    {"engine.inertia_kg_m2", "engine.inertia"},
    {"engine.accessory_drag_nm", "engine.accessoryDrag"},
    {"engine.displacement_l", "engine.displacementL"},
    {"engine.indicated_efficiency", "engine.indicatedEfficiency"},
    {"engine.fmep_bar", "engine.fmepBar"},
    {"engine.fmep_bar_per_krpm", "engine.fmepBarPerKrpm"},
    {"engine.fmep_bar_per_krpm2", "engine.fmepBarPerKrpm2"},
    {"engine.pumping_bar", "engine.pumpingBar"},
    {"engine.torque_lag_s", "engine.torqueLag"},
    {"engine.idle_gain", "engine.idleGain"},
    {"engine.pedal_exponent", "engine.pedalExponent"},
    {"engine.max_speed_mps", "engine.maxSpeed"},
    {"fuel.lhv_mj_kg", "fuel.lhvMjKg"},
    {"fuel.density_kg_l", "fuel.densityKgL"},
    {"fuel.tank_l", "fuel.tankL"},
    {"cvt.low_ratio", "cvt.lowRatio"},
    {"cvt.high_ratio", "cvt.highRatio"},
    {"cvt.engage_rpm", "cvt.engageRpm"},
    {"cvt.full_engage_rpm", "cvt.fullEngageRpm"},
    {"cvt.clutch_capacity_nm", "cvt.clutchCapacity"},
    {"cvt.ebs_capacity_nm", "cvt.ebsCapacity"},
    {"cvt.shift_rpm_light", "cvt.shiftRpmLight"},
    {"cvt.shift_rpm_full", "cvt.shiftRpmFull"},
    {"cvt.shift_tau_s", "cvt.shiftTau"},
    {"cvt.belt_efficiency", "cvt.beltEfficiency"},
    {"cvt.gear_efficiency", "cvt.gearEfficiency"},
    {"cvt.secondary_inertia_kg_m2", "cvt.secondaryInertia"},
    {"gearbox.rear_low_ratio", "gearbox.rearLowRatio"},
    {"gearbox.rear_high_ratio", "gearbox.rearHighRatio"},
    {"gearbox.rear_reverse_ratio", "gearbox.rearReverseRatio"},
    {"gearbox.front_low_ratio", "gearbox.frontLowRatio"},
    {"gearbox.front_high_ratio", "gearbox.frontHighRatio"},
    {"gearbox.front_reverse_ratio", "gearbox.frontReverseRatio"},
    {"gearbox.front_drive_ratio", "gearbox.frontDriveRatio"},
    {"gearbox.park_hold_nm", "gearbox.parkHold"},
    {"gearbox.shift_below_mps", "gearbox.shiftBelow"},
    {"gearbox.shift_time_s", "gearbox.shiftTime"},
    {"brakes.front_nm_per_bar", "brakes.frontNmPerBar"},
    {"brakes.rear_nm_per_bar", "brakes.rearNmPerBar"},
    {"brakes.bias_bar", "brakes.biasBar"},
    {"aero.drag_area_m2", "resistance.dragArea"},
    /* The kit's keys in the same spelling (a unit suffix, as
     * engine.torque_lag_s): the UTV model names only
     * dbw.steering.lock_deg, above; the others follow its pattern
     * (docs/dbw.md). dbw.lockout.reverse, dbw.ulc.kp and dbw.ulc.ki need
     * none. */
    {"dbw.steering.delay_s", "dbw.steering.delay"},
    {"dbw.steering.rate_deg_s", "dbw.steering.rate"},
    {"dbw.steering.accel_deg_s2", "dbw.steering.accel"},
    {"dbw.steering.rate_max_deg_s", "dbw.steering.rateMax"},
    {"dbw.steering.accel_max_deg_s2", "dbw.steering.accelMax"},
    {"dbw.steering.override_deg", "dbw.steering.overrideDeg"},
    {"dbw.brake.tau_s", "dbw.brake.tau"},
    {"dbw.brake.rate_bar_s", "dbw.brake.rate"},
    {"dbw.brake.rate_max_bar_s", "dbw.brake.rateMax"},
    {"dbw.brake.decel_max_mps2", "dbw.brake.decelMax"},
    {"dbw.brake.override_bar", "dbw.brake.overrideBar"},
    {"dbw.throttle.tau_s", "dbw.throttle.tau"},
    {"dbw.throttle.rate_pct_s", "dbw.throttle.rate"},
    {"dbw.throttle.override_pct", "dbw.throttle.overridePct"},
    {"dbw.gear.shift_time_s", "dbw.gear.shiftTime"},
    {"dbw.gear.max_speed_mps", "dbw.gear.maxSpeed"},
    {"dbw.gear.brake_hold_bar", "dbw.gear.brakeHoldBar"},
    {"dbw.lockout.speed_mps", "dbw.lockout.speed"},
    {"dbw.lockout.accel_mps2", "dbw.lockout.accel"},
    {"dbw.system.reengage_delay_s", "dbw.system.reengageDelay"},
    {"dbw.ulc.accel_mps2", "dbw.ulc.accel"},
    {"dbw.ulc.decel_mps2", "dbw.ulc.decel"},
    {"dbw.ulc.jerk_mps3", "dbw.ulc.jerk"},
    {"dbw.ulc.accel_loop", "dbw.ulc.accelLoop"},
    {"dbw.ulc.accel_full_mps2", "dbw.ulc.accelFull"},
    {"dbw.comms_loss.decel_mps2", "dbw.commsLoss.decel"},
    {"dbw.comms_loss.hold_bar", "dbw.commsLoss.holdBar"},
    {"dbw.comms_loss.hold_time_s", "dbw.commsLoss.holdTime"},
    {"dbw.sensors.imu_accel_noise_mps2", "dbw.sensors.imuAccelNoise"},
    {"dbw.sensors.imu_gyro_noise_rad_s", "dbw.sensors.imuGyroNoise"},
    {"dbw.sensors.gnss_noise_m", "dbw.sensors.gnssNoise"},
    {"dbw.sensors.gnss_dropout", "dbw.sensors.gnssDropout"},
};

/* A geared car's own keys left out: the six-speed automatic of
 * test_geared.c's car (the compact hatch's), driving the front wheels
 * through an open differential, with the launch clutch of the default
 * engine (the UTV's ProStar, idling at 1250 rev/min: its CVT's 150 N m
 * clutch, 1600 to 2600 rev/min) so that the defaults fit together. */
static void geared_defaults(pdk_powertrain_def *pt)
{
    static const double ratios[] = {4.148, 2.370, 1.556, 1.155, 0.859, 0.686};
    pdk_gearbox_def *g = &pt->geared;
    memset(g, 0, sizeof *g);
    g->shift = PDK_SHIFT_AUTOMATIC;
    g->n_gears = (int)N_ELEMS(ratios);
    memcpy(g->ratio, ratios, sizeof ratios);
    g->reverse_ratio = 3.394;
    g->final_drive = 3.683;
    g->low_range = 1.0;
    g->efficiency = 0.92;
    g->upshift_rpm_light = 2000.0;
    g->upshift_rpm_full = 6000.0;
    g->downshift_rpm = 1100.0;
    g->shift_time_s = 0.25;
    g->clutch_capacity_nm = 150.0;
    g->clutch_engage_rpm = 1600.0;
    g->clutch_full_rpm = 2600.0;
    g->park_hold_nm = 10000.0;
    g->handbrake_nm = 1200.0;
    pt->output_inertia_kgm2 = 0.1;
    pt->layout = (pdk_layout_def){
        .driven_axle = 0,
        .diff = {PDK_DIFF_OPEN, 1.0, 0.0},
        .coupling = PDK_COUPLING_NONE,
        .secondary_diff = {PDK_DIFF_OPEN, 1.0, 0.0},
        .secondary_ratio = 1.0,
        .centre_diff = {PDK_DIFF_OPEN, 1.0, 0.0},
    };
}

/* sim's default vehicle, lumped, with the passenger car's kit
 * (pdk_dbw_def_default, every kind's: a utv's preset gives its own); a
 * utv's own keys left out take the Polaris Ranger's values, a geared car's
 * engine and brake torques too and its gearbox geared_defaults' (the
 * powertrain is kept only when the preset makes it a utv's or a geared
 * car's, and only its own parts: vehicle_complete). */
static void vehicle_defaults(void *vwork)
{
    pdk_vehicle_work *w = vwork;
    w->def = pdk_vehicle_def_default();
    w->def.powertrain = pdk_powertrain_def_polaris();
    w->def.powertrain.kind = PDK_POWERTRAIN_LUMPED;
    geared_defaults(&w->def.powertrain);
    w->abs = w->def.powertrain.abs != 0;
    w->dbw_lockout_reverse = w->def.dbw.lockout_reverse != 0;
    w->mass = pdk_utv_mass_def_polaris();
    w->payload = pdk_payload_def_default();
    w->suspension = pdk_utv_suspension_def_polaris();
    /* The UTV model's tyres.cornering_per_load, 8 /rad. */
    w->cornering_per_load[0] = 8.0;
    w->cornering_per_load[1] = 8.0;
    const pdk_engine_def *e = &w->def.powertrain.engine;
    memset(w->torque_curve, 0, sizeof w->torque_curve);
    for (int i = 0; i < e->n_curve; i++) {
        w->torque_curve[i].rpm = e->curve_rpm[i];
        w->torque_curve[i].nm = e->curve_nm[i];
    }
}

static pdk_error vehicle_model_check(const void *vwork, const char **why)
{
    const pdk_vehicle_def *def = &((const pdk_vehicle_work *)vwork)->def;
    pdk_error rc = pdk_vehicle_def_check(def);
    *why = rc != PDK_OK ? pdk_vehicle_def_problem(def) : NULL;
    return rc;
}

const pdk_schema pdk_vehicle_schema = {
    .kind = PDK_PRESET_VEHICLE,
    .what = "vehicle",
    .keys = vehicle_keys,
    .n_keys = N_ELEMS(vehicle_keys),
    .def_size = sizeof(pdk_vehicle_work),
    .out_size = sizeof(pdk_vehicle_def),
    .variant_key = "powertrain.kind",
    .aliases = vehicle_aliases,
    .n_aliases = N_ELEMS(vehicle_aliases),
    .defaults = vehicle_defaults,
    .complete = vehicle_complete,
    .cross_check = pdk_vehicle_cross_check,
    .model_check = vehicle_model_check,
};
