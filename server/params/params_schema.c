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
          "Front axle (both tyres): lateral force per radian of slip angle at zero slip."),
    V_NUM("tyres.front.friction", "-", 0.1, 2.5, tyre_front.friction_coeff, 1, 1,
          "Front tyres' peak friction coefficient on a surface of friction 1."),
    V_NUM("tyres.front.camberStiffness", "N/rad", 0, 1e6, tyre_front.camber_stiffness_n_per_rad, 1,
          1, "Front axle (both tyres): camber thrust per radian of inclination at static load."),
    V_NUM("tyres.rear.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_rear.cornering_stiffness_n_per_rad, 1, 1,
          "Rear axle (both tyres): lateral force per radian of slip angle at zero slip."),
    V_NUM("tyres.rear.friction", "-", 0.1, 2.5, tyre_rear.friction_coeff, 1, 1,
          "Rear tyres' peak friction coefficient on a surface of friction 1."),
    V_NUM("tyres.rear.camberStiffness", "N/rad", 0, 1e6, tyre_rear.camber_stiffness_n_per_rad, 1, 1,
          "Rear axle (both tyres): camber thrust per radian of inclination at static load."),
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
          "Rolling-resistance coefficient: F = c * m * g."),
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

#define W_KEY(p, u, t, lo, hi, member, desc)                                                       \
    {                                                                                              \
        .path = (p), .unit = (u), .type = (t), .min = (lo), .max = (hi),                           \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1, .description = (desc) \
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
          "Multiplies every tyre's friction: 1 dry asphalt, about 0.7 wet asphalt."),
    W_KEY("seed", "-", PDK_KEY_U64, 0, (double)INT64_MAX, seed,
          "Seed of the world's random number generator."),
    {.path = "terrain.bumps",
     .unit = "list",
     .type = PDK_KEY_LIST,
     .min = NAN,
     .max = NAN,
     .offset = offsetof(pdk_world_def, terrain.bumps),
     .si_mul = 1,
     .si_div = 1,
     .description = "Raised-cosine bumps on the flat ground (speed humps, kerbs, dips), up to 16: "
                    "[{\"x\", \"y\", \"yawDeg\", \"length\", \"width\", \"height\"}, ...].",
     .list = &bump_list},
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
    .cross_check = vehicle_cross_check,
    .model_check = vehicle_model_check,
};

static const pdk_schema world_schema = {
    .kind = PDK_PRESET_WORLD,
    .what = "world",
    .keys = world_keys,
    .n_keys = N_ELEMS(world_keys),
    .def_size = sizeof(pdk_world_def),
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

/* A bump's height is at most half its length (terrain.h: slopes below 58
 * deg). */
static pdk_error world_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len)
{
    (void)resolved;
    const pdk_world_def *def = vdef;
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
