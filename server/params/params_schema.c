/* The parameter schema (params_schema.h): the vehicle and world key tables,
 * with the bounds docs/presets.md explains, and the rules between keys. */
#include "params_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "params_internal.h"
#include "surface.h"

/* Degrees to radians as the presets convert them: rad = deg * PI / 180. */
#define PI 3.14159265358979323846

/* The least track a preset may give, chassis or axle: a narrow kart. */
#define MIN_TRACK_M 0.3

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

/* One axle's suspension keys: AX is "front" or "rear", M the member. Bounds
 * are explained in docs/presets.md. */
#define SUSPENSION_KEYS(AX, M)                                                                     \
    V_CHOICE("suspension." AX ".kind", M.kind, axle_kind_choices,                                  \
             "independent: each wheel stands on the body and leans with it; solid: the wheels "    \
             "stand on a beam through the axle's two contacts and stay upright to the road."),     \
        V_NUM("suspension." AX ".trackWidth", "m", 0, 5, M.track_width_m, 1, 1,                    \
              "This axle's track, contact to contact; 0 uses chassis.trackWidth."),                \
        V_NUM("suspension." AX ".springRate", "N/m", 100, 1e7, M.spring_rate_npm, 1, 1,            \
              "Spring rate per corner at the wheel; ride frequency sqrt(k / m_corner) / 2 pi."),   \
        V_NUM("suspension." AX ".bumpDamping", "N*s/m", 0, 1e6, M.bump_damping_nspm, 1, 1,         \
              "Damper rate per corner while the strut compresses."),                               \
        V_NUM("suspension." AX ".reboundDamping", "N*s/m", 0, 1e6, M.rebound_damping_nspm, 1, 1,   \
              "Damper rate per corner while the strut extends."),                                  \
        V_NUM("suspension." AX ".antiRollStiffness", "N/m", 0, 1e7, M.anti_roll_npm, 1, 1,         \
              "Anti-roll bar: force on each wheel per metre of travel difference to the other "    \
              "wheel of the axle."),                                                               \
        V_NUM("suspension." AX ".travelBump", "m", 0.001, 1, M.travel_bump_m, 1, 1,                \
              "Travel from the static ride position to the bump stop."),                           \
        V_NUM("suspension." AX ".travelDroop", "m", 0.001, 1, M.travel_droop_m, 1, 1,              \
              "Travel from the static ride position to full extension."),                          \
        V_NUM("suspension." AX ".bumpStopStiffness", "N/m", 0, 1e8, M.bump_stop_npm, 1, 1,         \
              "Bump-stop rate per corner beyond travelBump."),                                     \
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
             "magicFormula (Pac2002 with the coefficient set mfSet) or utv (seed 003's "           \
             "hard-surface law, mu N tanh(k s) and -C N alpha, C and mu from "                     \
             "corneringStiffness and friction)."),                                                 \
        V_CHOICE("tyres." AX ".mfSet", M.law.mf_set, mf_set_choices,                               \
                 "Magic Formula coefficient set, read by the magicFormula law: road205 (Pacejka "  \
                 "2006 Table A3.1, 205/60R15), sport, slick or kart (tyre_sets.c gives each "      \
                 "source)."),                                                                      \
        T_NUM(AX, "radius", "m", 0.05, 2, M.law.radius_m, 1, 1,                                    \
              "Unloaded radius R0: the slip reference, the wheel's height over the contact and "   \
              "the soil model's R."),                                                              \
        T_NUM(AX, "nominalLoad", "N", 10, 2e5, M.law.nominal_load_n, 1, 1,                         \
              "Nominal load Fz_nom of one tyre: load sensitivity and the relaxation lengths' "     \
              "load scaling refer to it."),                                                        \
        T_NUM(AX, "slipStiffness", "-", 1, 100, M.law.slip_stiffness_per_load, 1, 1,               \
              "Grip law: longitudinal slip stiffness per newton of load, Ck / Fz (N of Fx per "    \
              "unit slip per N)."),                                                                \
        T_NUM(AX, "trail", "m", 0, 0.5, M.law.trail_m, 1, 1,                                       \
              "Grip law: pneumatic trail at zero slip, falling to 0 at full sliding (brush "       \
              "model)."),                                                                          \
        T_NUM(AX, "hardSlipStiffness", "-", 0.1, 200, M.law.hard_slip_stiffness, 1, 1,             \
              "utv law: k_s in Fx = mu N tanh(k_s s) (seed 003, tyres.hard_slip_stiffness)."),     \
        T_NUM(AX, "loadSensitivity", "-", 0, 0.5, M.law.load_sensitivity, 1, 1,                    \
              "Peak friction falls with load as (Fz / nominalLoad)^-loadSensitivity; 0 off. On "   \
              "the magicFormula law it applies on top of the set's own load terms."),              \
        T_NUM(AX, "slideGrip", "-", 0, 1, M.law.slide_grip, 1, 1,                                  \
              "Share of the peak left when the tyre slides fully (seed 004); 0 keeps the Magic "   \
              "Formula's own falling branch."),                                                    \
        T_NUM(AX, "combinedSlipLoss", "-", 0, 1, M.law.combined_slip_loss, 1, 1,                   \
              "Seed 004's friction-circle loss: share of lateral grip lost between 10 % and 70 "   \
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
              "Rolling loss per unit of relative deflection on soil (seed 003): f = h delta / "    \
              "h_s."),                                                                             \
        T_NUM(AX, "life.coldTempC", "degC", -60, 60, M.life.cold_temp_c, 1, 1,                     \
              "Temperature at which inflationKpa is set."),                                        \
        T_NUM(AX, "life.optimalTempC", "degC", -20, 250, M.life.optimal_temp_c, 1, 1,              \
              "Tread temperature of best grip, the centre of the grip window (seed 004: 80)."),    \
        T_NUM(AX, "life.windowC", "degC", 1, 300, M.life.window_c, 1, 1,                           \
              "Half width of the grip window (seed 004: 55)."),                                    \
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
              "Multiplies the heating; 0 turns tyre temperature off (seed 004)."),                 \
        T_NUM(AX, "life.treadDepth", "m", 0.0001, 0.1, M.life.tread_depth_m, 1, 1,                 \
              "Tread depth of a new tyre."),                                                       \
        T_NUM(AX, "life.wearRate", "m/J", 0, 1e-4, M.life.wear_m_per_j, 1, 1,                      \
              "k_w: tread depth lost per joule of sliding work (Archard), three times faster "     \
              "above 120 C."),                                                                     \
        T_NUM(AX, "life.wearScale", "-", 0, 1e4, M.life.wear_scale, 1, 1,                          \
              "Multiplies the wear; 0 turns wear off (seed 004)."),                                \
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
              "Distance run flat before the tyre shreds to the rim (seed 004: 1500)."),

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

static void vehicle_complete(void *vdef)
{
    pdk_vehicle_def *def = vdef;
    complete_tyre(&def->tyre_front);
    complete_tyre(&def->tyre_rear);
}

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
             "single-track model, for traffic and as the analytic cross-check); seed 000."),
    V_NUM("chassis.mass", "kg", 50, 100000, chassis.mass_kg, 1, 1,
          "Total mass with driver and fluids."),
    V_NUM("chassis.yawInertia", "kg*m^2", 1, 5e6, chassis.yaw_inertia_kgm2, 1, 1,
          "Yaw moment of inertia about the vertical axis through the centre of gravity."),
    V_NUM("chassis.rollInertia", "kg*m^2", 1, 2e6, chassis.roll_inertia_kgm2, 1, 1,
          "Roll moment of inertia about the longitudinal axis through the centre of gravity."),
    V_NUM("chassis.pitchInertia", "kg*m^2", 1, 5e6, chassis.pitch_inertia_kgm2, 1, 1,
          "Pitch moment of inertia about the lateral axis through the centre of gravity."),
    V_NUM("chassis.wheelbase", "m", 0.5, 15, chassis.wheelbase_m, 1, 1, "Front axle to rear axle."),
    V_NUM("chassis.cgToFrontAxle", "m", 0.05, 15, chassis.cg_to_front_axle_m, 1, 1,
          "Centre of gravity to front axle, along x; less than the wheelbase."),
    V_NUM("chassis.cgHeight", "m", 0.05, 5, chassis.cg_height_m, 1, 1,
          "Centre-of-gravity height above the ground at rest; the car sits there whatever its "
          "springs."),
    V_NUM("chassis.trackWidth", "m", MIN_TRACK_M, 5, chassis.track_width_m, 1, 1,
          "Track, contact to contact, of both axles unless an axle sets its own."),
    V_NUM("tyres.front.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_front.cornering_stiffness_n_per_rad, 1, 1,
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
    V_NUM("tyres.rear.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_rear.cornering_stiffness_n_per_rad, 1, 1,
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
    SUSPENSION_KEYS("front", susp_front) SUSPENSION_KEYS("rear", susp_rear)
        V_NUM("drive.maxForce", "N", 0, 1e6, drive.max_force_n, 1, 1,
              "Drive force at the contact patches at full pedal and low speed."),
    V_NUM("drive.maxPowerKw", "kW", 0.1, 5000, drive.max_power_w, 1000, 1,
          "Power at the contact patches at full pedal; caps the force at speed."),
    V_NUM("drive.frontFraction", "-", 0, 1, drive.front_fraction, 1, 1,
          "Share of the drive force on the front axle: 0 rear-wheel, 1 front-wheel drive."),
    V_NUM("drive.maxReverseSpeedKmh", "km/h", 1, 100, drive.max_reverse_speed_mps, 1, 3.6,
          "Governed top speed in reverse (R)."),
    V_NUM("drive.maxLowSpeedKmh", "km/h", 1, 200, drive.max_low_speed_mps, 1, 3.6,
          "Governed top speed in the low gear (L)."),
    V_NUM("brakes.forcePerBar", "N/bar", 1, 1e5, brake.force_per_bar_n, 1, 1,
          "Total brake force at the contact patches per bar of line pressure."),
    V_NUM("brakes.frontFraction", "-", 0, 1, brake.front_fraction, 1, 1,
          "Brake balance: share of the brake force on the front axle."),
    V_NUM("brakes.maxLineBar", "bar", 1, 500, brake.max_line_bar, 1, 1,
          "Highest brake line pressure; a command above it is refused."),
    V_NUM("brakes.parkHoldForce", "N", 0, 1e6, brake.park_hold_force_n, 1, 1,
          "Force the parking pawl holds at the contact patches in P."),
    V_NUM("resistance.rollingCoeff", "-", 0, 0.5, resist.rolling_coeff, 1, 1,
          "Rolling-resistance coefficient of the singleTrack model: F = c * m * g (the "
          "fourWheel model rolls each tyre with tyres.*.rollingCoeff)."),
    V_NUM("resistance.dragArea", "m^2", 0, 50, resist.drag_area_m2, 1, 1,
          "Drag coefficient times frontal area, Cd * A."),
};

#define BUMP_NUM(p, u, lo, hi, member, mul, div, desc)                                             \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_bump, member), mul, div, desc)

/* One terrain bump (terrain.h): a raised cosine along its length axis. */
static const pdk_param_key bump_fields[] = {
    BUMP_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
             "Bump centre, world x."),
    BUMP_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
             "Bump centre, world y."),
    BUMP_NUM("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
             "Direction of the length axis from world x, counter-clockwise: the way a wheel "
             "crosses the bump."),
    BUMP_NUM("length", "m", 0.05, 1000, length_m, 1, 1,
             "Along the length axis: the raised cosine's base, smooth where it meets the ground."),
    BUMP_NUM("width", "m", 0.05, 1000, width_m, 1, 1,
             "Across the length axis: full height over the width, vertical at its ends."),
    BUMP_NUM("height", "m", -2, 2, height_m, 1, 1,
             "Peak height, negative for a dip; |height| at most length / 2."),
};

static const pdk_list_spec bump_list = {
    .fields = bump_fields,
    .n_fields = N_ELEMS(bump_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_bumps),
    .item_size = sizeof(pdk_bump),
    .max_items = PDK_TERRAIN_MAX_BUMPS,
};

/* The terrain's ids and counts are int32_t, written as an int. */
_Static_assert(sizeof(int32_t) == sizeof(int), "terrain ids are stored as an int");

/* Surfaces by sim's names (pdk_surface_get(id)->name; test_params checks
 * that they agree), and their one-letter codes for a materials string:
 * SURFACE_CODES[id] is the code of surface id. */
static const pdk_choice surface_items[] = {
    {"tarmac", PDK_SURFACE_TARMAC},
    {"tarmacWet", PDK_SURFACE_TARMAC_WET},
    {"concrete", PDK_SURFACE_CONCRETE},
    {"gravel", PDK_SURFACE_GRAVEL},
    {"dirt", PDK_SURFACE_DIRT},
    {"grass", PDK_SURFACE_GRASS},
    {"mud", PDK_SURFACE_MUD},
    {"snow", PDK_SURFACE_SNOW},
    {"ice", PDK_SURFACE_ICE},
    {"sand", PDK_SURFACE_SAND},
    {"siltLoam", PDK_SURFACE_SILT_LOAM},
};
static const pdk_choice_set surface_choices = {"surface", surface_items, N_ELEMS(surface_items)};
#define SURFACE_CODES "TWCGDRMNISL"
_Static_assert(sizeof(SURFACE_CODES) - 1 == PDK_SURFACE_COUNT, "one code per surface");
_Static_assert(N_ELEMS(surface_items) == PDK_SURFACE_COUNT, "one name per surface");

static const pdk_choice contact_items[] = {
    {"ray", PDK_CONTACT_RAY},
    {"cylinder", PDK_CONTACT_CYLINDER},
};
static const pdk_choice_set contact_choices = {"contact mode", contact_items,
                                               N_ELEMS(contact_items)};

static const pdk_choice shape_items[] = {
    {"rect", PDK_PATCH_RECT},
    {"circle", PDK_PATCH_CIRCLE},
};
static const pdk_choice_set shape_choices = {"patch shape", shape_items, N_ELEMS(shape_items)};

/* A list field that may be left out (then 0). */
#define OPT_NUM(p, u, lo, hi, off, mul, div, desc)                                                 \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = (off), .si_mul = (mul), .si_div = (div), .description = (desc), .optional = true \
    }

#define RAMP_NUM(p, u, lo, hi, member, mul, div, desc)                                             \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_ramp, member), mul, div, desc)
#define RAMP_OPT(p, u, lo, hi, member, desc)                                                       \
    OPT_NUM(p, u, lo, hi, offsetof(pdk_ramp, member), 1, 1, desc)

/* Lengths of ramps and patches: a 100 km hill is a heightfield's job. */
#define MAX_PIECE_M 1e5

/* One ramp (terrain.h): a slope holding its top, rounded at both corners. */
static const pdk_param_key ramp_fields[] = {
    RAMP_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
             "A point of the start line (where the slope would begin without rounding), world x; "
             "the ramp's width is centred on it."),
    RAMP_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
             "The same point, world y."),
    RAMP_NUM("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
             "Direction of climb from world x, counter-clockwise; a bank points across the road."),
    RAMP_NUM("length", "m", 0.05, MAX_PIECE_M, length_m, 1, 1,
             "The sloped run; the top is gradePct / 100 * length above the start."),
    RAMP_NUM("width", "m", 0.05, MAX_PIECE_M, width_m, 1, 1,
             "Across the direction of climb, centred on (x, y); vertical edges at its sides."),
    RAMP_NUM("gradePct", "%", -100, 100, grade, 1, 100,
             "Grade in percent, rise over run (a 30 % grade climbs 0.3 m per metre, 16.7 deg); "
             "negative falls."),
    RAMP_OPT("transition", "m", 0, MAX_PIECE_M, transition_m,
             "Each corner of the slope is rounded over this distance centred on it (the grade "
             "fades in and out as a raised cosine); at most length / 2; 0 is a sharp corner."),
    RAMP_OPT("hold", "m", 0, MAX_PIECE_M, hold_m,
             "How long the top holds before the ground comes back down the same way; 0 holds "
             "for ever."),
};

static const pdk_list_spec ramp_list = {
    .fields = ramp_fields,
    .n_fields = N_ELEMS(ramp_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_ramps),
    .item_size = sizeof(pdk_ramp),
    .max_items = PDK_TERRAIN_MAX_RAMPS,
};

#define PATCH_NUM(p, u, lo, hi, member, mul, div, desc)                                            \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_patch, member), mul, div, desc)
#define PATCH_OPT(p, u, lo, hi, member, mul, div, desc)                                            \
    OPT_NUM(p, u, lo, hi, offsetof(pdk_patch, member), mul, div, desc)
#define PATCH_CHOICE(p, member, set, desc)                                                         \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_patch, member), .si_mul = 1, .si_div = 1, .description = (desc),    \
        .choices = &(set), .optional = true                                                        \
    }

/* One patch (terrain.h): a rectangle or circle of a surface, or of water. */
static const pdk_param_key patch_fields[] = {
    PATCH_CHOICE("shape", shape, shape_choices,
                 "\"rect\" (sizeX by sizeY) or \"circle\" (radius)."),
    PATCH_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
              "Centre, world x."),
    PATCH_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
              "Centre, world y."),
    PATCH_OPT("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
              "A rectangle's turn from world x, counter-clockwise (sizeX lies along it)."),
    PATCH_OPT("sizeX", "m", 0.01, MAX_PIECE_M, size_x_m, 1, 1,
              "A rectangle's side along yawDeg; rectangles only."),
    PATCH_OPT("sizeY", "m", 0.01, MAX_PIECE_M, size_y_m, 1, 1,
              "A rectangle's side across yawDeg; rectangles only."),
    PATCH_OPT("radius", "m", 0.01, MAX_PIECE_M, size_x_m, 1, 1, "A circle's radius; circles only."),
    PATCH_CHOICE("surface", surface_id, surface_choices,
                 "The surface over the patch (surface.h names); a surface patch gives it, a water "
                 "patch does not."),
    PATCH_OPT("waterDepth", "m", 0, PDK_TERRAIN_MAX_WATER_DEPTH_M, water_depth_m, 1, 1,
              "Above 0: a water patch, this deep over the ground at its centre, its top level "
              "(deeper over a dip, running out where the ground rises), the surface under it "
              "unchanged."),
};

static bool is_circle(const json_t *entry)
{
    const json_t *shape = json_object_get(entry, "shape");
    return shape != NULL && strcmp(json_string_value(shape), "circle") == 0;
}

static bool is_water(const json_t *entry)
{
    const json_t *depth = json_object_get(entry, "waterDepth");
    return depth != NULL && json_number_value(depth) > 0;
}

/* Which sizes a patch takes, and whether it gives a surface or water. */
static pdk_error patch_entry_check(const json_t *entry, const char *path, char *why, size_t why_len)
{
    bool circle = is_circle(entry);
    bool sx = json_object_get(entry, "sizeX") != NULL;
    bool sy = json_object_get(entry, "sizeY") != NULL;
    bool r = json_object_get(entry, "radius") != NULL;
    if (circle && (sx || sy)) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.%s: a circle takes radius, not sizeX and sizeY", path,
                               sx ? "sizeX" : "sizeY");
    }
    if (circle && !r) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.radius: missing (a circle gives radius)", path);
    }
    if (!circle && r) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.radius: a rectangle takes sizeX and sizeY, not radius (give "
                               "\"shape\": \"circle\" for a circle)",
                               path);
    }
    if (!circle && !(sx && sy)) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.%s: missing (a rectangle gives sizeX and sizeY)", path,
                               sx ? "sizeY" : "sizeX");
    }
    bool surface = json_object_get(entry, "surface") != NULL;
    if (is_water(entry) && surface) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.surface: a water patch (waterDepth above 0) keeps the surface "
                               "under it; leave surface out, or put a surface patch before it",
                               path);
    }
    if (!is_water(entry) && !surface) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.surface: missing (a patch gives surface, or waterDepth above 0 "
                               "for water)",
                               path);
    }
    return PDK_OK;
}

static bool patch_field_applies(const json_t *entry, const pdk_param_key *field)
{
    if (strcmp(field->path, "sizeX") == 0 || strcmp(field->path, "sizeY") == 0) {
        return !is_circle(entry);
    }
    if (strcmp(field->path, "radius") == 0) {
        return is_circle(entry);
    }
    if (strcmp(field->path, "surface") == 0) {
        return !is_water(entry);
    }
    return true;
}

static const pdk_list_spec patch_list = {
    .fields = patch_fields,
    .n_fields = N_ELEMS(patch_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_patches),
    .item_size = sizeof(pdk_patch),
    .max_items = PDK_TERRAIN_MAX_PATCHES,
    .check_entry = patch_entry_check,
    .applies = patch_field_applies,
};

static const pdk_grid_spec heights_grid = {
    .kind = PDK_GRID_HEIGHTS,
    .max_items = PDK_TERRAIN_MAX_CORNERS,
    .flag_offset = offsetof(pdk_world_def, terrain.field.has_heights),
    .nx_offset = offsetof(pdk_world_def, terrain.field.nx),
    .ny_offset = offsetof(pdk_world_def, terrain.field.ny),
};

static const pdk_grid_spec materials_grid = {
    .kind = PDK_GRID_MATERIALS,
    .max_items = PDK_TERRAIN_MAX_CORNERS,
    .flag_offset = offsetof(pdk_world_def, terrain.field.has_materials),
    .nx_offset = offsetof(pdk_world_def, terrain.field.nx),
    .ny_offset = offsetof(pdk_world_def, terrain.field.ny),
    .choices = &surface_choices,
    .codes = SURFACE_CODES,
};

static const pdk_alias world_aliases[] = {
    {"surface", "terrain.surface"},
};

#define W_KEY(p, u, t, lo, hi, member, desc)                                                       \
    {                                                                                              \
        .path = (p), .unit = (u), .type = (t), .min = (lo), .max = (hi),                           \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1, .description = (desc) \
    }
/* A world key with a list of entries, a choice, or a grid of values. */
#define W_LIST(p, member, desc, lst)                                                               \
    {                                                                                              \
        .path = (p), .unit = "list", .type = PDK_KEY_LIST, .min = NAN, .max = NAN,                 \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .list = (lst)                                                       \
    }
#define W_CHOICE(p, member, desc, ch)                                                              \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .choices = (ch)                                                     \
    }
#define W_GRID(p, u, lo, hi, member, desc, gr)                                                     \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_GRID, .min = (lo), .max = (hi),                  \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .grid = (gr)                                                        \
    }

static const pdk_param_key world_keys[] = {
    {.path = "description",
     .unit = "text",
     .type = PDK_KEY_TEXT,
     .min = NAN,
     .max = NAN,
     .si_mul = 1,
     .si_div = 1,
     .description = "Free text: what the world models and where its numbers come from."},
    W_KEY("substeps", "-", PDK_KEY_INT, 1, 64, substeps, "Physics substeps per 1/120 s tick."),
    W_KEY("maxVehicles", "-", PDK_KEY_INT, 1, 65535, max_vehicles,
          "Vehicle capacity; a full world refuses spawn."),
    W_KEY("gravity", "m/s^2", PDK_KEY_NUMBER, 0.5, 30, gravity_mps2,
          "Gravitational acceleration, acting along -z."),
    W_KEY("airDensity", "kg/m^3", PDK_KEY_NUMBER, 0, 2, air_density_kgpm3,
          "Air density for aerodynamic drag; 0 is a vacuum."),
    W_KEY("surfaceFriction", "-", PDK_KEY_NUMBER, 0.05, 2, surface_friction,
          "Multiplies every tyre's friction on every surface (a global grip scale); 1 "
          "normally: each surface carries its own friction (terrain.surface, "
          "terrain.patches)."),
    W_KEY("seed", "-", PDK_KEY_U64, 0, (double)INT64_MAX, seed,
          "Seed of the world's random number generator."),
    W_LIST("terrain.bumps", terrain.bumps,
           "Raised-cosine bumps on the flat ground (speed humps, kerbs, dips), up to 16: "
           "[{\"x\", \"y\", \"yawDeg\", \"length\", \"width\", \"height\"}, ...].",
           &bump_list),
    W_CHOICE("terrain.surface", terrain.base_surface_id,
             "The ground's surface where no patch or material grid says otherwise: tarmac, "
             "tarmacWet, concrete, gravel, dirt, grass, mud, snow, ice, sand, siltLoam "
             "(surface.h; an override may say surface=gravel).",
             &surface_choices),
    W_CHOICE("terrain.contact", terrain.contact_mode,
             "How wheels meet the ground: ray (one ray down each strut) or cylinder (a "
             "sweep of the tyre's footprint, which feels a kerb under a shoulder or just "
             "ahead; up to 15 rays a wheel).",
             &contact_choices),
    W_KEY("terrain.airTempC", "degC", PDK_KEY_NUMBER, PDK_TERRAIN_MIN_TEMP_C,
          PDK_TERRAIN_MAX_AIR_TEMP_C, terrain.air_temp_c,
          "Air temperature, for the tyres' cooling and cold pressure."),
    W_KEY("terrain.roadTempC", "degC", PDK_KEY_NUMBER, PDK_TERRAIN_MIN_TEMP_C,
          PDK_TERRAIN_MAX_ROAD_TEMP_C, terrain.road_temp_c,
          "Road surface temperature, which the tyres exchange heat with in contact."),
    W_LIST("terrain.ramps", terrain.ramps,
           "Slopes, up to 8, adding to each other and to the grid: [{\"x\", \"y\", "
           "\"yawDeg\", \"length\", \"width\", \"gradePct\", \"transition\", "
           "\"hold\"}, ...]; a bank is a ramp across the road.",
           &ramp_list),
    W_LIST("terrain.patches", terrain.patches,
           "Surface and water patches, up to 16, the last listed winning where they "
           "overlap: [{\"shape\", \"x\", \"y\", \"yawDeg\", \"sizeX\", \"sizeY\" | "
           "\"radius\", \"surface\" | \"waterDepth\"}, ...].",
           &patch_list),
    W_KEY("terrain.field.originX", "m", PDK_KEY_NUMBER, -PDK_WORLD_MAX_POSITION_M,
          PDK_WORLD_MAX_POSITION_M, terrain.field.origin_x_m,
          "World x of the grid's first corner; the grid runs along +x then +y."),
    W_KEY("terrain.field.originY", "m", PDK_KEY_NUMBER, -PDK_WORLD_MAX_POSITION_M,
          PDK_WORLD_MAX_POSITION_M, terrain.field.origin_y_m,
          "World y of the grid's first corner."),
    W_KEY("terrain.field.cell", "m", PDK_KEY_NUMBER, 0, PDK_TERRAIN_MAX_CELL_M,
          terrain.field.cell_m, "Side of a square cell; at least 0.01 m when there is a grid."),
    W_KEY("terrain.field.nx", "-", PDK_KEY_INT, 0, PDK_TERRAIN_MAX_CORNERS, terrain.field.nx,
          "Corners along x: 0 for no grid, else at least 2; nx * ny at most 16384 (128 x 128)."),
    W_KEY("terrain.field.ny", "-", PDK_KEY_INT, 0, PDK_TERRAIN_MAX_CORNERS, terrain.field.ny,
          "Corners along y: 0 for no grid, else at least 2."),
    W_GRID("terrain.field.heights", "[m]", -PDK_TERRAIN_MAX_HEIGHT_M, PDK_TERRAIN_MAX_HEIGHT_M,
           terrain.field.height_m,
           "Heights at the corners, nx * ny of them, row by row from the origin along +x "
           "(then +y); bilinear inside a cell, the edge held outside the grid; kept as "
           "floats; [] for a flat grid.",
           &heights_grid),
    W_GRID("terrain.field.materials", "[surface]", NAN, NAN, terrain.field.material,
           "Surfaces of the cells, (nx - 1) * (ny - 1) of them, row by row: a list of "
           "names, or a string of codes (T tarmac, W tarmacWet, C concrete, G gravel, D "
           "dirt, R grass, M mud, N snow, I ice, S sand, L siltLoam; spaces ignored); "
           "the base surface outside the grid; [] for none.",
           &materials_grid),
};

static void vehicle_defaults(void *def)
{
    *(pdk_vehicle_def *)def = pdk_vehicle_def_default();
}

static void world_defaults(void *def)
{
    *(pdk_world_def *)def = pdk_world_def_default();
}

static pdk_error vehicle_model_check(const void *def, const char **why)
{
    pdk_error rc = pdk_vehicle_def_check(def);
    *why = rc != PDK_OK ? pdk_vehicle_def_problem(def) : NULL;
    return rc;
}

static pdk_error world_model_check(const void *def, const char **why)
{
    pdk_error rc = pdk_world_def_check(def);
    *why = rc != PDK_OK ? pdk_world_def_problem(def) : NULL;
    return rc;
}

static pdk_error vehicle_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len);
static pdk_error world_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len);

static const pdk_schema vehicle_schema = {
    .kind = PDK_PRESET_VEHICLE,
    .what = "vehicle",
    .keys = vehicle_keys,
    .n_keys = N_ELEMS(vehicle_keys),
    .def_size = sizeof(pdk_vehicle_def),
    .defaults = vehicle_defaults,
    .complete = vehicle_complete,
    .cross_check = vehicle_cross_check,
    .model_check = vehicle_model_check,
};

static const pdk_schema world_schema = {
    .kind = PDK_PRESET_WORLD,
    .what = "world",
    .keys = world_keys,
    .n_keys = N_ELEMS(world_keys),
    .def_size = sizeof(pdk_world_def),
    .aliases = world_aliases,
    .n_aliases = N_ELEMS(world_aliases),
    .defaults = world_defaults,
    .cross_check = world_cross_check,
    .model_check = world_model_check,
};

const pdk_schema *pdk_schema_for(pdk_preset_kind kind)
{
    return kind == PDK_PRESET_WORLD ? &world_schema : &vehicle_schema;
}

const pdk_param_key *pdk_schema_find_key(const pdk_schema *schema, const char *path)
{
    for (size_t i = 0; i < schema->n_keys; i++) {
        if (strcmp(schema->keys[i].path, path) == 0) {
            return &schema->keys[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Cross-field rules */

#define MAX_ROAD_WHEEL_LOCK_DEG 80.0

/* Every point of a curve, added to its static key, within the static key's
 * bounds; in preset units, from the resolved JSON. */
static pdk_error check_curve_sums(const pdk_schema *s, const pdk_param_key *key, json_t *resolved,
                                  char *why, size_t why_len)
{
    const pdk_param_key *stat = pdk_schema_find_key(s, key->static_path);
    PDK_ASSERT(stat != NULL);
    double base = json_number_value(pdk_json_get_dotted(resolved, stat->path));
    const json_t *curve = pdk_json_get_dotted(resolved, key->path);
    size_t i;
    const json_t *p;
    json_array_foreach(curve, i, p)
    {
        double v = json_number_value(json_array_get(p, 1));
        double sum = base + v;
        if (sum >= stat->min && sum <= stat->max) {
            continue;
        }
        char bt[PDK_PARAMS_NUM_LEN];
        char vt[PDK_PARAMS_NUM_LEN];
        char lt[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(base, bt);
        pdk_params_format_number(v, vt);
        pdk_params_format_number(sum < stat->min ? stat->min : stat->max, lt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s[%zu]: %s (%s %s) + %s = %.6g %s is %s the %s %s %s that %s "
                               "allows",
                               key->path, i, stat->path, bt, stat->unit, vt, sum, stat->unit,
                               sum < stat->min ? "below" : "above",
                               sum < stat->min ? "minimum" : "maximum", lt, stat->unit, stat->path);
    }
    return PDK_OK;
}

/* An axle's tyre sizes in their physical order (four-wheel model): the
 * lugs within the section, the section inside the radius, and an intact
 * tyre above a flat one, a flat one above its rim and the rim no lower than
 * the hub (tyre_life.h's conditions). */
static pdk_error check_tyre(const pdk_axle_tyre_def *t, const char *name, char *why, size_t why_len)
{
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    double radius = t->law.radius_m;
    const pdk_tyre_life_def *life = &t->life;
    if (!(t->soil.section_height_m < radius)) {
        pdk_params_format_number(t->soil.section_height_m, a);
        pdk_params_format_number(radius, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.sectionHeight (%s m) must be less than tyres.%s.radius "
                               "(%s m)",
                               name, a, name, b);
    }
    if (!(t->soil.lug_height_m < t->soil.section_height_m)) {
        pdk_params_format_number(t->soil.lug_height_m, a);
        pdk_params_format_number(t->soil.section_height_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.lugHeight (%s m) must be less than tyres.%s.sectionHeight "
                               "(%s m)",
                               name, a, name, b);
    }
    if (!(radius - life->flat_drop_m > life->rim_radius_m)) {
        pdk_params_format_number(life->flat_drop_m, a);
        pdk_params_format_number(life->rim_radius_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.radius - tyres.%s.life.flatDrop = %.6g m must be above "
                               "tyres.%s.life.rimRadius (%s m): a flat tyre still stands on its "
                               "sidewalls, above the rim (flatDrop %s m)",
                               name, name, radius - life->flat_drop_m, name, b, a);
    }
    if (!(life->hub_radius_m <= life->rim_radius_m)) {
        pdk_params_format_number(life->hub_radius_m, a);
        pdk_params_format_number(life->rim_radius_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.life.hubRadius (%s m) must be at most "
                               "tyres.%s.life.rimRadius (%s m)",
                               name, a, name, b);
    }
    return PDK_OK;
}

/* The rules of one axle that its keys' bounds cannot state. */
static pdk_error check_axle(const pdk_vehicle_def *def, int axle, json_t *resolved, char *why,
                            size_t why_len)
{
    const pdk_suspension_def *sd = axle == 0 ? &def->susp_front : &def->susp_rear;
    const char *name = axle == 0 ? "front" : "rear";
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (sd->track_width_m != 0 && sd->track_width_m < MIN_TRACK_M) {
        pdk_params_format_number(sd->track_width_m, a);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.%s.trackWidth (%s m) must be 0 (use chassis.trackWidth) "
                               "or at least %g m",
                               name, a, MIN_TRACK_M);
    }
    if (sd->kind == PDK_AXLE_SOLID) {
        const char *curve = sd->kinematics.toe_rad.n_points > 0      ? "toeDeg"
                            : sd->kinematics.camber_rad.n_points > 0 ? "camberDeg"
                                                                     : NULL;
        if (curve != NULL) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "suspension.%s.kinematics.%s: not allowed on a solid axle "
                                   "(suspension.%s.kind is \"solid\"): the beam sets the wheels' "
                                   "toe and camber; remove the curve or make the axle "
                                   "independent",
                                   name, curve, name);
        }
    }
    for (size_t i = 0; i < vehicle_schema.n_keys; i++) {
        const pdk_param_key *key = &vehicle_keys[i];
        char prefix[32];
        snprintf(prefix, sizeof prefix, "suspension.%s.", name);
        if (key->type == PDK_KEY_CURVE && strncmp(key->path, prefix, strlen(prefix)) == 0) {
            pdk_error rc = check_curve_sums(&vehicle_schema, key, resolved, why, why_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
    }
    /* Matches sim's check on the four-wheel model: the geometric share
     * h_rc / h_cg of the transfer stays at most PDK_MAX_ROLL_CENTER_RATIO
     * (vehicle_def.h says why). */
    if (def->model == PDK_MODEL_FOUR_WHEEL &&
        !(sd->roll_center_height_m <= PDK_MAX_ROLL_CENTER_RATIO * def->chassis.cg_height_m)) {
        pdk_params_format_number(sd->roll_center_height_m, a);
        pdk_params_format_number(def->chassis.cg_height_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.%s.rollCenterHeight (%s m) must be at most 0.9 "
                               "chassis.cgHeight (%s m) on the fourWheel model",
                               name, a, b);
    }
    return PDK_OK;
}

static pdk_error vehicle_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len)
{
    const pdk_vehicle_def *def = vdef;
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (!(def->chassis.cg_to_front_axle_m < def->chassis.wheelbase_m)) {
        pdk_params_format_number(def->chassis.cg_to_front_axle_m, a);
        pdk_params_format_number(def->chassis.wheelbase_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "chassis.cgToFrontAxle (%s m) must be less than chassis.wheelbase "
                               "(%s m): the centre of gravity lies between the axles",
                               a, b);
    }
    /* The single-track model needs the front axle to point forward; real
     * steering stops far short of this (about 35 deg on a car, 50 on a
     * kart). Matches sim's own check (vehicle_def.c). */
    double road_wheel_lock_deg = def->steering.lock_deg / def->steering.ratio;
    if (!(road_wheel_lock_deg < MAX_ROAD_WHEEL_LOCK_DEG)) {
        pdk_params_format_number(def->steering.lock_deg, a);
        pdk_params_format_number(def->steering.ratio, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.lockDeg / steering.ratio = %s / %s gives a road-wheel "
                               "lock of %.1f deg; it must be below %.0f deg",
                               a, b, road_wheel_lock_deg, MAX_ROAD_WHEEL_LOCK_DEG);
    }
    /* Yaw inertia at least PDK_MIN_YAW_INERTIA_RATIO m a b (vehicle_def.h:
     * the dynamic index Iz / (m a b) is 0.8-1.1 for real cars, Milliken ch. 5,
     * and a uniform bar between the axles has 1/3). Matches sim's own check. */
    double least_iz = pdk_vehicle_def_min_yaw_inertia_kgm2(def);
    if (!(def->chassis.yaw_inertia_kgm2 >= least_iz)) {
        pdk_params_format_number(def->chassis.yaw_inertia_kgm2, a);
        pdk_params_format_number(def->chassis.mass_kg, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "chassis.yawInertia (%s kg*m^2) must be at least %.1f * "
                               "chassis.mass (%s kg) * a * b = %.6g kg*m^2, a = cgToFrontAxle and "
                               "b = wheelbase - cgToFrontAxle: real vehicles have 0.8-1.1 m*a*b",
                               a, PDK_MIN_YAW_INERTIA_RATIO, b, least_iz);
    }
    for (int axle = 0; axle < 2; axle++) {
        pdk_error rc = check_axle(def, axle, resolved, why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        return PDK_OK;
    }
    for (int axle = 0; axle < 2; axle++) {
        pdk_error rc = check_tyre(axle == 0 ? &def->tyre_front : &def->tyre_rear,
                                  axle == 0 ? "front" : "rear", why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    /* The four-wheel model's steering, as sim checks it (vehicle_def.c). */
    const pdk_steering_def *st = &def->steering;
    if (!(fabs(st->center_offset_deg) <= st->lock_deg)) {
        pdk_params_format_number(st->center_offset_deg, a);
        pdk_params_format_number(st->lock_deg, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.centerOffsetDeg (%s deg) must be within the lock, "
                               "steering.lockDeg (%s deg), either way",
                               a, b);
    }
    /* Ideal Ackermann steers the inner wheel to atan(L tan d / (L - t/2
     * tan d)) for a bicycle angle d; at full lock it must stay below 80 deg
     * and the denominator positive. */
    double lock_rad = road_wheel_lock_deg * (PI / 180.0);
    double len = def->chassis.wheelbase_m;
    double t = pdk_vehicle_def_track_m(def, 0);
    double den = len - 0.5 * t * tan(lock_rad);
    double inner_deg = den > 0 ? atan(len * tan(lock_rad) / den) * (180.0 / PI) : 180.0;
    if (st->ackermann > 0 && !(den > 0 && inner_deg < MAX_ROAD_WHEEL_LOCK_DEG)) {
        char inner[48];
        if (den > 0) {
            snprintf(inner, sizeof inner, "to %.1f deg", inner_deg);
        } else {
            snprintf(inner, sizeof inner, "past 90 deg");
        }
        pdk_params_format_number(st->ackermann, a);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.ackermann (%s) is above 0 and the road-wheel lock "
                               "steering.lockDeg / steering.ratio = %.1f deg turns the inner "
                               "front wheel %s at full lock with ideal Ackermann (this "
                               "chassis.wheelbase and front track); it must stay below %.0f deg: "
                               "reduce the lock or set steering.ackermann to 0",
                               a, road_wheel_lock_deg, inner, MAX_ROAD_WHEEL_LOCK_DEG);
    }
    return PDK_OK;
}

/* The number of cells a resolved materials string gives (its codes). */
static size_t codes_in(const json_t *text)
{
    size_t n = 0;
    for (const char *c = json_string_value(text); c != NULL && *c != '\0'; c++) {
        n += *c != ' ';
    }
    return n;
}

/* A grid's shape and the lengths of its lists (resolved: heights a list,
 * materials a string). */
static pdk_error check_field(const pdk_heightfield *f, json_t *resolved, char *why, size_t why_len)
{
    size_t n_heights = json_array_size(pdk_json_get_dotted(resolved, "terrain.field.heights"));
    size_t n_cells = codes_in(pdk_json_get_dotted(resolved, "terrain.field.materials"));
    if (f->nx == 0 && f->ny == 0) {
        if (n_heights > 0 || n_cells > 0) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.field.%s gives %zu values but there is no grid: set "
                                   "terrain.field.nx and ny (corners along x and y)",
                                   n_heights > 0 ? "heights" : "materials",
                                   n_heights > 0 ? n_heights : n_cells);
        }
        return PDK_OK;
    }
    if (f->nx < 2 || f->ny < 2) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.nx (%d) and terrain.field.ny (%d) must both be 0 "
                               "(no grid) or both at least 2",
                               f->nx, f->ny);
    }
    long corners = (long)f->nx * (long)f->ny;
    if (corners > PDK_TERRAIN_MAX_CORNERS) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.nx * terrain.field.ny = %d * %d = %ld corners, more "
                               "than the %d allowed (128 x 128)",
                               f->nx, f->ny, corners, PDK_TERRAIN_MAX_CORNERS);
    }
    if (!(f->cell_m >= PDK_TERRAIN_MIN_CELL_M)) {
        char c[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(f->cell_m, c);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.cell (%s m) must be at least %g m when there is a "
                               "grid",
                               c, PDK_TERRAIN_MIN_CELL_M);
    }
    if (n_heights != 0 && n_heights != (size_t)corners) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.heights gives %zu values; a grid of "
                               "terrain.field.nx * terrain.field.ny = %d * %d corners needs %ld "
                               "(row by row along +x), or [] for a flat grid",
                               n_heights, f->nx, f->ny, corners);
    }
    long cells = (long)(f->nx - 1) * (long)(f->ny - 1);
    if (n_cells != 0 && n_cells != (size_t)cells) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.materials gives %zu cells; a grid of %d * %d corners "
                               "has (nx - 1) * (ny - 1) = %ld cells (row by row along +x), or [] "
                               "for the base surface",
                               n_cells, f->nx, f->ny, cells);
    }
    return PDK_OK;
}

/* A bump's height is at most half its length (terrain.h: slopes below 58
 * deg); a ramp's rounding at most half its length; the grid's shape. */
static pdk_error world_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len)
{
    const pdk_world_def *def = vdef;
    for (int i = 0; i < def->terrain.n_ramps; i++) {
        const pdk_ramp *ramp = &def->terrain.ramps[i];
        if (!(ramp->transition_m <= 0.5 * ramp->length_m)) {
            char tr[PDK_PARAMS_NUM_LEN];
            char l[PDK_PARAMS_NUM_LEN];
            pdk_params_format_number(ramp->transition_m, tr);
            pdk_params_format_number(ramp->length_m, l);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.ramps[%d].transition (%s m) must be at most half of "
                                   "terrain.ramps[%d].length (%s m): the two roundings share the "
                                   "slope",
                                   i, tr, i, l);
        }
    }
    pdk_error rc = check_field(&def->terrain.field, resolved, why, why_len);
    if (rc != PDK_OK) {
        return rc;
    }
    for (int i = 0; i < def->terrain.n_bumps; i++) {
        const pdk_bump *bump = &def->terrain.bumps[i];
        if (!(fabs(bump->height_m) <= 0.5 * bump->length_m)) {
            char h[PDK_PARAMS_NUM_LEN];
            char l[PDK_PARAMS_NUM_LEN];
            pdk_params_format_number(bump->height_m, h);
            pdk_params_format_number(bump->length_m, l);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.bumps[%d].height (%s m) must be at most half of "
                                   "terrain.bumps[%d].length (%s m) either way: steeper than 58 "
                                   "deg is a wall, not a bump",
                                   i, h, i, l);
        }
    }
    return PDK_OK;
}
