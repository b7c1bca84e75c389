/* Vehicle and world presets: the parameter schema (one table per kind: JSON
 * path, unit, bounds, where the value lands in sim's definition struct and
 * how it converts to SI), and the resolve step that turns preset JSON plus
 * overrides into a validated definition and its canonical resolved JSON. */
#define _POSIX_C_SOURCE 200809L

#include "params.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "params_internal.h"

/* ------------------------------------------------------------------------ */
/* The schema */

typedef enum key_type {
    KEY_NUMBER = 0, /* double field; preset value * si_mul / si_div is SI */
    KEY_INT = 1,    /* int field, a JSON integer */
    KEY_U64 = 2,    /* uint64_t field, a JSON integer >= 0 */
    KEY_CHOICE = 3, /* enum field, one name of a choice_set */
    KEY_TEXT = 4,   /* free text kept in the resolved JSON only (description) */
    KEY_CURVE = 5,  /* pdk_curve field: [[travel m, value], ...], values converted */
    KEY_LIST = 6,   /* a counted array of structs: a list of objects of number fields */
} key_type;

/* A named value of an enum field (the field is an int-sized enum). */
typedef struct choice {
    const char *name;
    int value;
} choice;

typedef struct choice_set {
    const char *what; /* "vehicle model", for messages */
    const choice *items;
    size_t n;
} choice_set;

typedef struct param_key param_key;

/* Where a KEY_LIST lands: an int count at count_offset and max_items structs
 * of item_size bytes at the key's offset, each filled from fields (number
 * keys with offsets inside the struct; every field is required). */
typedef struct list_spec {
    const param_key *fields;
    size_t n_fields;
    size_t count_offset;
    size_t item_size;
    size_t max_items;
} list_spec;

struct param_key {
    const char *path; /* dotted JSON path, camelCase */
    const char *unit; /* the preset's unit, as shown to users; a curve's value unit */
    key_type type;
    double min; /* bounds in the preset's unit, inclusive */
    double max;
    size_t offset; /* of the field in the definition struct */
    double si_mul; /* SI value = preset value * si_mul / si_div */
    double si_div;
    const char *description;
    const choice_set *choices; /* KEY_CHOICE */
    const char *static_path;   /* KEY_CURVE: the key its values add to, whose bounds hold */
    const list_spec *list;     /* KEY_LIST */
};

typedef struct schema {
    pdk_preset_kind kind; /* its folder under presets_dir: pdk_params_folder(kind) */
    const param_key *keys;
    size_t n_keys;
    size_t def_size;
    void (*defaults)(void *def);
    /* Invariants between fields, with a message naming them; PDK_OK when
     * they hold. resolved is the resolved JSON beside def, in preset units.
     * The model's own check runs after it as a backstop and says why in its
     * own words (sim's field names). */
    pdk_error (*cross_check)(const void *def, json_t *resolved, char *why, size_t why_len);
    pdk_error (*model_check)(const void *def, const char **why);
} schema;

/* Free text is bounded so a resolved parameter set stays small. */
#define TEXT_MAX_BYTES 1000

/* A kinematic curve's travel is within this of the static ride position: a
 * metre covers any road vehicle's wheel travel with room to spare. */
#define CURVE_TRAVEL_MAX_M 1.0

/* Degrees to radians as the presets convert them: rad = deg * PI / 180. */
#define PI 3.14159265358979323846

/* Zero at zero travel, to rounding: the relative tolerance sim's
 * pdk_curve_problem allows (vehicle_def.c), applied to the same SI curve. */
#define CURVE_ZERO_TOLERANCE 1e-12

/* The least track a preset may give, chassis or axle: a narrow kart. */
#define MIN_TRACK_M 0.3

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Enum fields are written and read as an int. */
_Static_assert(sizeof(pdk_model) == sizeof(int), "pdk_model is stored as an int");
_Static_assert(sizeof(pdk_axle_kind) == sizeof(int), "pdk_axle_kind is stored as an int");

static const choice model_items[] = {
    {"fourWheel", PDK_MODEL_FOUR_WHEEL},
    {"singleTrack", PDK_MODEL_SINGLE_TRACK},
};
static const choice_set model_choices = {"vehicle model", model_items, N_ELEMS(model_items)};

static const choice axle_kind_items[] = {
    {"independent", PDK_AXLE_INDEPENDENT},
    {"solid", PDK_AXLE_SOLID},
};
static const choice_set axle_kind_choices = {"axle kind", axle_kind_items,
                                             N_ELEMS(axle_kind_items)};

#define KEY_NUM(p, u, lo, hi, off, mul, div, desc)                                                 \
    {                                                                                              \
        .path = (p), .unit = (u), .type = KEY_NUMBER, .min = (lo), .max = (hi), .offset = (off),   \
        .si_mul = (mul), .si_div = (div), .description = (desc)                                    \
    }

#define V_NUM(p, u, lo, hi, member, mul, div, desc)                                                \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_vehicle_def, member), mul, div, desc)

#define V_CHOICE(p, member, set, desc)                                                             \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = KEY_CHOICE, .min = NAN, .max = NAN,                 \
        .offset = offsetof(pdk_vehicle_def, member), .si_mul = 1, .si_div = 1,                     \
        .description = (desc), .choices = &(set)                                                   \
    }

#define V_CURVE(p, u, member, mul, div, static_key, desc)                                          \
    {                                                                                              \
        .path = (p), .unit = (u), .type = KEY_CURVE, .min = NAN, .max = NAN,                       \
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
              "axle's lateral load transfer goes through the links (must be below "                \
              "chassis.cgHeight)."),                                                               \
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
static const param_key vehicle_keys[] = {
    {.path = "description",
     .unit = "text",
     .type = KEY_TEXT,
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
static const param_key bump_fields[] = {
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

static const list_spec bump_list = {
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

static const param_key world_keys[] = {
    {.path = "description",
     .unit = "text",
     .type = KEY_TEXT,
     .min = NAN,
     .max = NAN,
     .si_mul = 1,
     .si_div = 1,
     .description = "Free text: what the world models and where its numbers come from."},
    W_KEY("substeps", "-", KEY_INT, 1, 64, substeps, "Physics substeps per 1/120 s tick."),
    W_KEY("maxVehicles", "-", KEY_INT, 1, 65535, max_vehicles,
          "Vehicle capacity; a full world refuses spawn."),
    W_KEY("gravity", "m/s^2", KEY_NUMBER, 0.5, 30, gravity_mps2,
          "Gravitational acceleration, acting along -z."),
    W_KEY("airDensity", "kg/m^3", KEY_NUMBER, 0, 2, air_density_kgpm3,
          "Air density for aerodynamic drag; 0 is a vacuum."),
    W_KEY("surfaceFriction", "-", KEY_NUMBER, 0.05, 2, surface_friction,
          "Multiplies every tyre's friction: 1 dry asphalt, about 0.7 wet asphalt."),
    W_KEY("seed", "-", KEY_U64, 0, (double)INT64_MAX, seed,
          "Seed of the world's random number generator."),
    {.path = "terrain.bumps",
     .unit = "list",
     .type = KEY_LIST,
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

static const schema vehicle_schema = {
    .kind = PDK_PRESET_VEHICLE,
    .keys = vehicle_keys,
    .n_keys = N_ELEMS(vehicle_keys),
    .def_size = sizeof(pdk_vehicle_def),
    .defaults = vehicle_defaults,
    .cross_check = vehicle_cross_check,
    .model_check = vehicle_model_check,
};

static const schema world_schema = {
    .kind = PDK_PRESET_WORLD,
    .keys = world_keys,
    .n_keys = N_ELEMS(world_keys),
    .def_size = sizeof(pdk_world_def),
    .defaults = world_defaults,
    .cross_check = world_cross_check,
    .model_check = world_model_check,
};

static const schema *schema_for(pdk_preset_kind kind)
{
    return kind == PDK_PRESET_WORLD ? &world_schema : &vehicle_schema;
}

static void *field_ptr(void *def, const param_key *key)
{
    return (char *)def + key->offset;
}

static const param_key *find_key(const schema *s, const char *path)
{
    for (size_t i = 0; i < s->n_keys; i++) {
        if (strcmp(s->keys[i].path, path) == 0) {
            return &s->keys[i];
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Schema lookups */

typedef enum node_kind {
    NODE_NONE = 0,
    NODE_LEAF = 1,
    NODE_GROUP = 2,
} node_kind;

/* What path names in the schema: a key (its index in *leaf), a group of keys
 * (an object in the JSON; "" is the top), or nothing. */
static node_kind classify(const schema *s, const char *path, size_t *leaf)
{
    size_t len = strlen(path);
    if (len == 0) {
        return NODE_GROUP;
    }
    for (size_t i = 0; i < s->n_keys; i++) {
        if (strcmp(s->keys[i].path, path) == 0) {
            if (leaf != NULL) {
                *leaf = i;
            }
            return NODE_LEAF;
        }
    }
    for (size_t i = 0; i < s->n_keys; i++) {
        if (strncmp(s->keys[i].path, path, len) == 0 && s->keys[i].path[len] == '.') {
            return NODE_GROUP;
        }
    }
    return NODE_NONE;
}

/* The schema path (key or group) closest to path, or "" when none is close. */
static void suggest(const schema *s, const char *path, char *out, size_t out_len)
{
    size_t best = SIZE_MAX;
    out[0] = '\0';
    for (size_t i = 0; i < s->n_keys; i++) {
        /* Every prefix ending before a '.' is a group; the whole is a key. */
        const char *p = s->keys[i].path;
        for (size_t end = 1;; end++) {
            if (p[end] != '.' && p[end] != '\0') {
                continue;
            }
            char cand[128];
            if (end >= sizeof cand) {
                break;
            }
            memcpy(cand, p, end);
            cand[end] = '\0';
            size_t d = pdk_params_edit_distance(path, cand);
            size_t limit = end / 4 > 2 ? end / 4 : 2;
            if (d <= limit && d < best) {
                best = d;
                snprintf(out, out_len, "%s", cand);
            }
            if (p[end] == '\0') {
                break;
            }
        }
    }
}

/* Lists the names directly under group ("" for the top), comma separated. */
static void children(const schema *s, const char *group, char *out, size_t out_len)
{
    size_t glen = strlen(group);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->n_keys; i++) {
        const char *p = s->keys[i].path;
        if (glen > 0 && (strncmp(p, group, glen) != 0 || p[glen] != '.')) {
            continue;
        }
        const char *name = glen > 0 ? p + glen + 1 : p;
        size_t nlen = strcspn(name, ".");
        /* Skip names already listed (siblings share group prefixes). */
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const char *q = s->keys[j].path;
            if (glen > 0 && (strncmp(q, group, glen) != 0 || q[glen] != '.')) {
                continue;
            }
            const char *qn = glen > 0 ? q + glen + 1 : q;
            seen = strcspn(qn, ".") == nlen && strncmp(qn, name, nlen) == 0;
        }
        if (seen) {
            continue;
        }
        int n =
            snprintf(out + used, out_len - used, "%s%.*s", used > 0 ? ", " : "", (int)nlen, name);
        if (n < 0 || (size_t)n >= out_len - used) {
            return;
        }
        used += (size_t)n;
    }
}

static pdk_error unknown_key(const schema *s, const char *where, const char *path,
                             const char *parent, char *err, size_t err_len)
{
    char hint[128];
    suggest(s, path, hint, sizeof hint);
    if (hint[0] != '\0') {
        return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                               "%s: %s: unknown key (did you mean %s?)", where, path, hint);
    }
    char known[400];
    children(s, parent, known, sizeof known);
    return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                           "%s: %s: unknown key (known %s%s: %s)", where, path,
                           parent[0] != '\0' ? "keys under " : "keys", parent, known);
}

/* ------------------------------------------------------------------------ */
/* Validation of JSON values against the schema */

/* path is the key as the message shows it: key->path, or an element of a
 * list ("terrain.bumps[2].height"). */
static pdk_error check_bounds(const param_key *key, const char *path, double v, const char *where,
                              const char *what, char *err, size_t err_len)
{
    char vt[PDK_PARAMS_NUM_LEN];
    char bt[PDK_PARAMS_NUM_LEN];
    pdk_params_format_number(v, vt);
    if (!isfinite(v)) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len, "%s: %s: %s%s is not finite",
                               where, path, what, vt);
    }
    if (v < key->min) {
        pdk_params_format_number(key->min, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s%s is below the minimum %s (%s)", where, path, what, vt,
                               bt, key->unit);
    }
    if (v > key->max) {
        pdk_params_format_number(key->max, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s%s is above the maximum %s (%s)", where, path, what, vt,
                               bt, key->unit);
    }
    return PDK_OK;
}

static bool choice_from_name(const choice_set *set, const char *name, int *out)
{
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->items[i].name, name) == 0) {
            *out = set->items[i].value;
            return true;
        }
    }
    return false;
}

static const char *choice_name(const choice_set *set, int value)
{
    for (size_t i = 0; i < set->n; i++) {
        if (set->items[i].value == value) {
            return set->items[i].name;
        }
    }
    return NULL;
}

static pdk_error check_choice(const param_key *key, const json_t *value, const char *where,
                              char *err, size_t err_len)
{
    if (!json_is_string(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a string, got %s", where, key->path,
                               pdk_params_json_type(value));
    }
    int v;
    if (choice_from_name(key->choices, json_string_value(value), &v)) {
        return PDK_OK;
    }
    char allowed[128] = "";
    size_t used = 0;
    for (size_t i = 0; i < key->choices->n; i++) {
        int n = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"", i > 0 ? ", " : "",
                         key->choices->items[i].name);
        if (n < 0 || (size_t)n >= sizeof allowed - used) {
            break;
        }
        used += (size_t)n;
    }
    return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                           "%s: %s: \"%.64s\" is not a%s %s (allowed: %s)", where, key->path,
                           json_string_value(value), key->choices->what[0] == 'a' ? "n" : "",
                           key->choices->what, allowed);
}

/* Fills curve from a JSON curve whose shape check_curve accepted, values
 * times mul / div (the key's conversion to SI, or 1 / 1 for preset units).
 * Unused points stay zero, so equal curves are equal bytes. */
static void curve_fill(const json_t *value, double mul, double div, pdk_curve *curve)
{
    memset(curve, 0, sizeof *curve);
    size_t n = json_array_size(value);
    PDK_ASSERT(n <= PDK_CURVE_MAX_POINTS);
    curve->n_points = (int)n;
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(value, i);
        double v = json_number_value(json_array_get(p, 1));
        curve->travel_m[i] = json_number_value(json_array_get(p, 0));
        curve->value[i] = mul == 1 && div == 1 ? v : v * mul / div;
    }
}

/* A kinematic curve: [] for none, or 2 to PDK_CURVE_MAX_POINTS [travel,
 * value] pairs of numbers, travel within +-CURVE_TRAVEL_MAX_M and strictly
 * increasing, and 0 at travel 0 (interpolated) to the rounding sim allows.
 * Whether static + value stays in bounds is vehicle_cross_check's. */
static pdk_error check_curve(const param_key *key, const json_t *value, const char *where,
                             char *err, size_t err_len)
{
    const char *path = key->path;
    if (!json_is_array(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a list of [travel, value] points, got %s", where,
                               path, pdk_params_json_type(value));
    }
    size_t n = json_array_size(value);
    if (n == 0) {
        return PDK_OK;
    }
    if (n < 2 || n > PDK_CURVE_MAX_POINTS) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %zu point%s; a curve has 2 to %d points ([] for none)",
                               where, path, n, n == 1 ? "" : "s", PDK_CURVE_MAX_POINTS);
    }
    double prev = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *p = json_array_get(value, i);
        if (!json_is_array(p) || json_array_size(p) != 2) {
            char got[48];
            if (json_is_array(p)) {
                snprintf(got, sizeof got, "a list of %zu", json_array_size(p));
            } else {
                snprintf(got, sizeof got, "%s", pdk_params_json_type(p));
            }
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s[%zu]: expected a [travel, value] pair, got %s", where,
                                   path, i, got);
        }
        for (size_t j = 0; j < 2; j++) {
            const json_t *x = json_array_get(p, j);
            if (!json_is_number(x)) {
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s[%zu][%zu]: expected a number (%s), got %s", where,
                                       path, i, j, j == 0 ? "travel, m" : key->unit,
                                       pdk_params_json_type(x));
            }
        }
        double t = json_number_value(json_array_get(p, 0));
        char tt[PDK_PARAMS_NUM_LEN];
        char pt[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(t, tt);
        if (!(fabs(t) <= CURVE_TRAVEL_MAX_M)) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s[%zu]: travel %s m is outside -%g..%g m", where, path, i,
                                   tt, CURVE_TRAVEL_MAX_M, CURVE_TRAVEL_MAX_M);
        }
        if (i > 0 && !(t > prev)) {
            pdk_params_format_number(prev, pt);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s[%zu]: travel %s m does not exceed the previous point's "
                                   "%s m; travel must be strictly increasing",
                                   where, path, i, tt, pt);
        }
        prev = t;
    }
    /* The same test, on the same SI values, as sim's pdk_curve_problem. */
    pdk_curve si;
    curve_fill(value, key->si_mul, key->si_div, &si);
    double scale = 0;
    for (int i = 0; i < si.n_points; i++) {
        scale = fmax(scale, fabs(si.value[i]));
    }
    if (fabs(pdk_curve_eval(&si, 0.0)) > CURVE_ZERO_TOLERANCE * scale) {
        pdk_curve preset;
        curve_fill(value, 1, 1, &preset);
        return pdk_params_fail(
            PDK_ERR_OUT_OF_RANGE, err, err_len,
            "%s: %s: the curve is %.6g %s at travel 0; it must be 0 there, since "
            "it adds to %s, which holds the ride-height value (subtract the "
            "value at ride height from every point)",
            where, path, pdk_curve_eval(&preset, 0.0), key->unit, key->static_path);
    }
    return PDK_OK;
}

static pdk_error check_leaf(const param_key *key, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len);

/* A list of objects, each with every field of the list's spec. */
static pdk_error check_list(const param_key *key, const json_t *value, const char *where, char *err,
                            size_t err_len)
{
    const list_spec *spec = key->list;
    if (!json_is_array(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a list of objects, got %s", where, key->path,
                               pdk_params_json_type(value));
    }
    if (json_array_size(value) > spec->max_items) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %zu entries, more than the %zu allowed", where, key->path,
                               json_array_size(value), spec->max_items);
    }
    char fields[160] = "";
    size_t used = 0;
    for (size_t f = 0; f < spec->n_fields; f++) {
        int n = snprintf(fields + used, sizeof fields - used, "%s%s", f > 0 ? ", " : "",
                         spec->fields[f].path);
        if (n < 0 || (size_t)n >= sizeof fields - used) {
            break;
        }
        used += (size_t)n;
    }
    size_t i;
    json_t *item;
    json_array_foreach(value, i, item)
    {
        char ipath[128];
        snprintf(ipath, sizeof ipath, "%s[%zu]", key->path, i);
        if (!json_is_object(item)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected an object, got %s", where, ipath,
                                   pdk_params_json_type(item));
        }
        const char *name;
        json_t *field;
        json_object_foreach(item, name, field)
        {
            size_t f = 0;
            while (f < spec->n_fields && strcmp(spec->fields[f].path, name) != 0) {
                f++;
            }
            if (f == spec->n_fields) {
                return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                       "%s: %s.%.64s: unknown key (known keys: %s)", where, ipath,
                                       name, fields);
            }
        }
        for (size_t f = 0; f < spec->n_fields; f++) {
            char fpath[160];
            snprintf(fpath, sizeof fpath, "%s.%s", ipath, spec->fields[f].path);
            json_t *fv = json_object_get(item, spec->fields[f].path);
            if (fv == NULL) {
                return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                                       "%s: %s: missing (every entry of %s gives %s)", where, fpath,
                                       key->path, fields);
            }
            pdk_error rc = check_leaf(&spec->fields[f], fpath, fv, where, err, err_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
    }
    return PDK_OK;
}

static pdk_error check_leaf(const param_key *key, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len)
{
    switch (key->type) {
    case KEY_NUMBER:
        if (!json_is_number(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a number, got %s", where, path,
                                   pdk_params_json_type(value));
        }
        return check_bounds(key, path, json_number_value(value), where, "", err, err_len);
    case KEY_INT:
    case KEY_U64:
        if (!json_is_integer(value)) {
            if (json_is_real(value)) {
                char vt[PDK_PARAMS_NUM_LEN];
                pdk_params_format_number(json_real_value(value), vt);
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: expected an integer, got %s", where, path, vt);
            }
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected an integer, got %s", where, path,
                                   pdk_params_json_type(value));
        }
        /* Integer bounds are exact in a double for every key in the tables
         * (at most 2^63, where the comparison is still exact). */
        return check_bounds(key, path, (double)json_integer_value(value), where, "", err, err_len);
    case KEY_CHOICE:
        return check_choice(key, value, where, err, err_len);
    case KEY_TEXT:
        if (!json_is_string(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a string, got %s", where, path,
                                   pdk_params_json_type(value));
        }
        if (json_string_length(value) > TEXT_MAX_BYTES) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: text is %zu bytes long, more than the %d allowed",
                                   where, path, json_string_length(value), TEXT_MAX_BYTES);
        }
        return PDK_OK;
    case KEY_CURVE:
        return check_curve(key, value, where, err, err_len);
    case KEY_LIST:
        return check_list(key, value, where, err, err_len);
    }
    return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "%s: %s: bad schema entry",
                           where, path);
}

/* Longest dotted path a preset may contain: every schema path is shorter. */
#define PATH_BUF 160

/* Validates value found at path (a schema key or group) and everything
 * under it. where prefixes messages: the file, or the override. */
static pdk_error check_node(const schema *s, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len)
{
    size_t leaf = 0;
    switch (classify(s, path, &leaf)) {
    case NODE_LEAF:
        return check_leaf(&s->keys[leaf], s->keys[leaf].path, value, where, err, err_len);
    case NODE_NONE:
        return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len, "%s: %s: unknown key", where,
                               path);
    case NODE_GROUP:
        break;
    }
    if (!json_is_object(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected an object, got %s", where, path,
                               pdk_params_json_type(value));
    }
    const char *name;
    const json_t *child;
    json_object_foreach((json_t *)value, name, child)
    {
        char child_path[PATH_BUF];
        size_t nlen = strlen(name);
        bool plain = nlen > 0 && strcspn(name, ".[]") == nlen;
        int n = snprintf(child_path, sizeof child_path, "%s%s%s", path, path[0] ? "." : "", name);
        if (!plain || n < 0 || (size_t)n >= sizeof child_path) {
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s%s\"%.64s\": unknown key (keys are plain names; nest "
                                   "objects for groups)",
                                   where, path, path[0] ? "." : "", name);
        }
        if (classify(s, child_path, NULL) == NODE_NONE) {
            return unknown_key(s, where, child_path, path, err, err_len);
        }
        pdk_error rc = check_node(s, child_path, child, where, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return PDK_OK;
}

/* ------------------------------------------------------------------------ */
/* Overrides */

/* Sets value (a reference is taken) at the dotted path in doc, creating
 * groups on the way; an object merges into an existing object. */
static pdk_error set_path(json_t *doc, const pdk_path *path, size_t n_segs, json_t *value)
{
    json_t *cur = doc;
    for (size_t i = 0; i + 1 < n_segs; i++) {
        json_t *next = json_object_get(cur, path->segs[i].name);
        if (next == NULL) {
            next = json_object();
            if (next == NULL || json_object_set_new(cur, path->segs[i].name, next) != 0) {
                return PDK_ERR_NO_MEMORY;
            }
        }
        cur = next;
    }
    return pdk_json_set_member(cur, path->segs[n_segs - 1].name, value);
}

static json_t *get_path(json_t *doc, const char *dotted);

static pdk_error apply_override(const schema *s, json_t *doc, const pdk_override *item, char *err,
                                size_t err_len)
{
    char where[PDK_PARAMS_ERR_LEN / 2];
    snprintf(where, sizeof where, "override '%.200s'", item->text);

    char why[160];
    pdk_path path;
    if (pdk_path_parse(item->key, strlen(item->key), &path, why, sizeof why) != PDK_OK) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: %s", where, why);
    }
    /* Walk the schema along the path's names down to a key or group; what
     * follows a list or curve key (indices, and names inside a list's
     * entries) addresses its value. */
    char walked[PATH_BUF] = "";
    size_t leaf = 0;
    size_t at = 0;
    for (; at < path.n_segs; at++) {
        const pdk_path_seg *seg = &path.segs[at];
        node_kind here = classify(s, walked, &leaf);
        char next[PATH_BUF];
        pdk_path_format(&path, at + 1, next, sizeof next);
        if (here == NODE_LEAF) {
            key_type type = s->keys[leaf].type;
            bool listy = type == KEY_CURVE || type == KEY_LIST;
            if (listy && seg->kind == PDK_PATH_INDEX) {
                break;
            }
            if (seg->kind == PDK_PATH_INDEX) {
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: %s is a single value, not an array", where, next,
                                       walked);
            }
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s: unknown key (%s is %s with no keys under it)", where,
                                   next, walked,
                                   listy ? "a list, indexed as [n]," : "a single value");
        }
        if (seg->kind == PDK_PATH_INDEX) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: %s is an object, not an array", where, next, walked);
        }
        if (classify(s, next, NULL) == NODE_NONE) {
            char parent[PATH_BUF];
            snprintf(parent, sizeof parent, "%s", walked);
            return unknown_key(s, where, next, parent, err, err_len);
        }
        snprintf(walked, sizeof walked, "%s", next);
    }

    json_t *value = NULL;
    if (pdk_override_value(item->value, &value, why, sizeof why) != PDK_OK) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: %s", where, why);
    }
    pdk_error rc = PDK_OK;
    if (at < path.n_segs) {
        /* Inside a list or curve: change a copy of its whole value, check
         * the whole, then put it in place of the old one. */
        const char *key_path = s->keys[leaf].path;
        json_t *old = get_path(doc, key_path);
        json_t *whole = old != NULL ? json_deep_copy(old) : json_array();
        rc = whole == NULL ? PDK_ERR_NO_MEMORY
                           : pdk_json_set_at(whole, &path, at, value, where, err, err_len);
        json_decref(value);
        value = whole;
        if (rc == PDK_OK) {
            rc = check_node(s, key_path, value, where, err, err_len);
        }
    } else {
        rc = check_node(s, walked, value, where, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = set_path(doc, &path, at, value);
    }
    if (rc == PDK_ERR_NO_MEMORY) {
        pdk_params_fail(rc, err, err_len, "%s: out of memory", where);
    }
    json_decref(value);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Resolve: JSON document -> definition struct and resolved JSON */

/* The value at a dotted path of names in doc, or NULL. */
static json_t *get_path(json_t *doc, const char *dotted)
{
    json_t *cur = doc;
    const char *p = dotted;
    while (cur != NULL) {
        size_t n = strcspn(p, ".");
        char name[PDK_PATH_NAME_MAX + 1];
        if (n > PDK_PATH_NAME_MAX) {
            return NULL;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        cur = json_object_get(cur, name);
        if (p[n] == '\0') {
            return cur;
        }
        p += n + 1;
    }
    return NULL;
}

/* Puts value (the reference is stolen) at a dotted path, creating groups. */
static bool put_path(json_t *root, const char *dotted, json_t *value)
{
    if (value == NULL) {
        return false;
    }
    json_t *cur = root;
    const char *p = dotted;
    for (;;) {
        size_t n = strcspn(p, ".");
        char name[PDK_PATH_NAME_MAX + 1];
        PDK_ASSERT(n <= PDK_PATH_NAME_MAX);
        memcpy(name, p, n);
        name[n] = '\0';
        if (p[n] == '\0') {
            return json_object_set_new(cur, name, value) == 0;
        }
        json_t *next = json_object_get(cur, name);
        if (next == NULL) {
            next = json_object();
            if (next == NULL || json_object_set_new(cur, name, next) != 0) {
                json_decref(value);
                return false;
            }
        }
        cur = next;
        p += n + 1;
    }
}

/* SI -> preset unit, for a default (exactly v when there is no conversion). */
static double from_si(const param_key *key, double si)
{
    if (key->si_mul == 1 && key->si_div == 1) {
        return si;
    }
    return si * key->si_div / key->si_mul;
}

/* The preset-unit value of a number key as the definition holds it. */
static double preset_value(const param_key *key, const void *def)
{
    double si;
    memcpy(&si, (const char *)def + key->offset, sizeof si);
    return from_si(key, si);
}

static double to_si(const param_key *key, double v)
{
    if (key->si_mul == 1 && key->si_div == 1) {
        return v;
    }
    return v * key->si_mul / key->si_div;
}

static int enum_get(const void *def, const param_key *key)
{
    int v;
    memcpy(&v, (const char *)def + key->offset, sizeof v);
    return v;
}

/* A curve as preset JSON: [[travel, value], ...] in the key's unit. */
static json_t *curve_json(const param_key *key, const pdk_curve *curve)
{
    json_t *out = json_array();
    for (int i = 0; out != NULL && i < curve->n_points; i++) {
        json_t *p = json_pack("[ff]", curve->travel_m[i], from_si(key, curve->value[i]));
        if (p == NULL || json_array_append_new(out, p) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    return out;
}

/* A validated JSON curve with every number as a real, as the resolved JSON
 * holds it. */
static json_t *curve_copy(const json_t *v)
{
    json_t *out = json_array();
    size_t i;
    const json_t *p;
    json_array_foreach(v, i, p)
    {
        json_t *q = json_pack("[ff]", json_number_value(json_array_get(p, 0)),
                              json_number_value(json_array_get(p, 1)));
        if (out == NULL || q == NULL || json_array_append_new(out, q) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* Fills a list key's count and structs from v (validated), or keeps the
 * default's, and returns the resolved list with every field. */
static json_t *build_list(const param_key *key, const json_t *v, void *def)
{
    const list_spec *spec = key->list;
    char *items = field_ptr(def, key);
    int count;
    memcpy(&count, (char *)def + spec->count_offset, sizeof count);
    if (v != NULL) {
        count = (int)json_array_size(v);
        memset(items, 0, spec->max_items * spec->item_size);
        memcpy((char *)def + spec->count_offset, &count, sizeof count);
    }
    PDK_ASSERT(count >= 0 && (size_t)count <= spec->max_items);
    json_t *out = json_array();
    for (int i = 0; out != NULL && i < count; i++) {
        char *item = items + (size_t)i * spec->item_size;
        json_t *obj = json_object();
        if (obj == NULL || json_array_append_new(out, obj) != 0) {
            json_decref(out);
            return NULL;
        }
        for (size_t f = 0; f < spec->n_fields; f++) {
            const param_key *fk = &spec->fields[f];
            /* A default is re-expressed through the preset unit, as number
             * keys' are. */
            double x =
                v != NULL
                    ? json_number_value(json_object_get(json_array_get(v, (size_t)i), fk->path))
                    : preset_value(fk, item);
            double si = to_si(fk, x);
            memcpy(item + fk->offset, &si, sizeof si);
            if (json_object_set_new(obj, fk->path, json_real(x)) != 0) {
                json_decref(out);
                return NULL;
            }
        }
    }
    return out;
}

/* Fills def from the validated document, key by key, starting from the
 * model's defaults, and builds the resolved JSON beside it. A unit-converted
 * key's value is stored as convert(preset value), and the resolved JSON
 * holds the preset value itself, so parsing the resolved JSON again yields
 * the very same bits; a default is first expressed in the preset unit. */
static pdk_error build(const schema *s, json_t *doc, const char *origin, void *def,
                       json_t **resolved_out, char *err, size_t err_len)
{
    s->defaults(def);
    json_t *resolved = json_object();
    if (resolved == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
    }
    pdk_error rc = PDK_OK;
    for (size_t i = 0; i < s->n_keys && rc == PDK_OK; i++) {
        const param_key *key = &s->keys[i];
        json_t *v = get_path(doc, key->path);
        json_t *out = NULL;
        switch (key->type) {
        case KEY_NUMBER: {
            double x = v != NULL ? json_number_value(v) : preset_value(key, def);
            if (v == NULL) {
                rc = check_bounds(key, key->path, x, origin, "the built-in default ", err, err_len);
            }
            double si = to_si(key, x);
            memcpy(field_ptr(def, key), &si, sizeof si);
            out = json_real(x);
            break;
        }
        case KEY_INT: {
            int *field = field_ptr(def, key);
            json_int_t x = v != NULL ? json_integer_value(v) : (json_int_t)*field;
            if (v == NULL) {
                rc = check_bounds(key, key->path, (double)x, origin, "the built-in default ", err,
                                  err_len);
            }
            if (rc == PDK_OK) {
                *field = (int)x;
            }
            out = json_integer(x);
            break;
        }
        case KEY_U64: {
            uint64_t *field = field_ptr(def, key);
            if (v != NULL) {
                *field = (uint64_t)json_integer_value(v);
            } else if (*field > (uint64_t)INT64_MAX) {
                rc = pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                     "%s: %s: the built-in default is above the maximum %lld",
                                     origin, key->path, (long long)INT64_MAX);
            }
            out = json_integer((json_int_t)*field);
            break;
        }
        case KEY_CHOICE: {
            int x = enum_get(def, key);
            if (v != NULL) {
                /* check_leaf accepted the name already. */
                bool known = choice_from_name(key->choices, json_string_value(v), &x);
                PDK_ASSERT(known);
                memcpy(field_ptr(def, key), &x, sizeof x);
            }
            const char *name = choice_name(key->choices, x);
            if (name == NULL) {
                rc = pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                     "%s: %s: the built-in default %s %d has no name", origin,
                                     key->path, key->choices->what, x);
                break;
            }
            out = json_string(name);
            break;
        }
        case KEY_TEXT:
            out = v != NULL ? json_copy(v) : json_string("");
            break;
        case KEY_CURVE: {
            /* The resolved curve holds the preset's values; a default is
             * first re-expressed through the preset unit, as number keys'
             * are. */
            pdk_curve *curve = field_ptr(def, key);
            out = v != NULL ? curve_copy(v) : curve_json(key, curve);
            if (out != NULL) {
                curve_fill(out, key->si_mul, key->si_div, curve);
            }
            break;
        }
        case KEY_LIST:
            out = build_list(key, v, def);
            break;
        }
        if (rc == PDK_OK && !put_path(resolved, key->path, out)) {
            rc = pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
        } else if (rc != PDK_OK) {
            json_decref(out);
        }
    }
    if (rc != PDK_OK) {
        json_decref(resolved);
        return rc;
    }
    *resolved_out = resolved;
    return PDK_OK;
}

/* ------------------------------------------------------------------------ */
/* Cross-field rules */

#define MAX_ROAD_WHEEL_LOCK_DEG 80.0

/* Every point of a curve, added to its static key, within the static key's
 * bounds; in preset units, from the resolved JSON. */
static pdk_error check_curve_sums(const schema *s, const param_key *key, json_t *resolved,
                                  char *why, size_t why_len)
{
    const param_key *stat = find_key(s, key->static_path);
    PDK_ASSERT(stat != NULL);
    double base = json_number_value(get_path(resolved, stat->path));
    const json_t *curve = get_path(resolved, key->path);
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
        const param_key *key = &vehicle_keys[i];
        char prefix[32];
        snprintf(prefix, sizeof prefix, "suspension.%s.", name);
        if (key->type == KEY_CURVE && strncmp(key->path, prefix, strlen(prefix)) == 0) {
            pdk_error rc = check_curve_sums(&vehicle_schema, key, resolved, why, why_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
    }
    /* Matches sim's check on the four-wheel model: the geometric share
     * h_rc / h_cg of the transfer stays below all of it. */
    if (def->model == PDK_MODEL_FOUR_WHEEL &&
        !(sd->roll_center_height_m < def->chassis.cg_height_m)) {
        pdk_params_format_number(sd->roll_center_height_m, a);
        pdk_params_format_number(def->chassis.cg_height_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.%s.rollCenterHeight (%s m) must be below "
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

static pdk_error resolve(const schema *s, const char *json_text, const char *origin,
                         const char *overrides, void *out, char **resolved_json, char *err,
                         size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    if (origin == NULL) {
        origin = "(text)";
    }
    if (json_text == NULL || out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "%s: no JSON text or no output definition given", origin);
    }
    json_t *doc = NULL;
    pdk_error rc = pdk_params_load_object(json_text, strlen(json_text), origin, &doc, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = check_node(s, "", doc, origin, err, err_len);

    pdk_override *items = NULL;
    size_t n_items = 0;
    if (rc == PDK_OK) {
        rc = pdk_overrides_split(overrides, &items, &n_items, err, err_len);
    }
    for (size_t i = 0; i < n_items && rc == PDK_OK; i++) {
        rc = apply_override(s, doc, &items[i], err, err_len);
    }
    pdk_overrides_free(items, n_items);

    /* A local copy, so *out is untouched on error. */
    union {
        pdk_vehicle_def vehicle;
        pdk_world_def world;
    } def;
    PDK_ASSERT(s->def_size <= sizeof def);
    memset(&def, 0, sizeof def);
    json_t *resolved = NULL;
    if (rc == PDK_OK) {
        rc = build(s, doc, origin, &def, &resolved, err, err_len);
    }
    json_decref(doc);
    if (rc == PDK_OK && s->cross_check != NULL) {
        char why[PDK_PARAMS_ERR_LEN / 2];
        rc = s->cross_check(&def, resolved, why, sizeof why);
        if (rc != PDK_OK) {
            pdk_params_fail(rc, err, err_len, "%s: %s", origin, why);
        }
    }
    if (rc == PDK_OK) {
        const char *why = NULL;
        rc = s->model_check(&def, &why);
        if (rc != PDK_OK) {
            pdk_params_fail(rc, err, err_len,
                            "%s: every key is in range but the %s model refuses the "
                            "combination: %s",
                            origin, s == &vehicle_schema ? "vehicle" : "world",
                            why != NULL ? why : pdk_error_message(rc));
        }
    }
    if (rc == PDK_OK && resolved_json != NULL) {
        *resolved_json =
            json_dumps(resolved, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (*resolved_json == NULL) {
            rc = pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
        }
    }
    json_decref(resolved);
    if (rc == PDK_OK) {
        memcpy(out, &def, s->def_size);
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Files */

static pdk_error load(const schema *s, const char *presets_dir, const char *name,
                      const char *overrides, void *out, char **resolved_json, char *err,
                      size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    if (!pdk_params_valid_name(name)) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset name '%.80s' is not valid: use 1 to 64 characters of "
                               "A-Z a-z 0-9 _ -",
                               name != NULL ? name : "(null)");
    }
    if (presets_dir == NULL || out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset '%s': no presets folder or no output definition given",
                               name);
    }
    char path[PATH_MAX];
    int n =
        snprintf(path, sizeof path, "%s/%s/%s.json", presets_dir, pdk_params_folder(s->kind), name);
    if (n < 0 || (size_t)n >= sizeof path) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset '%s': the presets folder path is too long", name);
    }
    char *text = NULL;
    size_t len = 0;
    pdk_error rc = pdk_params_read_file(path, PDK_PARAMS_PRESET_MAX_BYTES, PDK_ERR_NOT_FOUND, &text,
                                        &len, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    if (strlen(text) != len) {
        free(text);
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: contains a NUL byte", path);
    }
    rc = resolve(s, text, path, overrides, out, resolved_json, err, err_len);
    free(text);
    return rc;
}

pdk_error pdk_params_vehicle_load(const char *presets_dir, const char *name, const char *overrides,
                                  pdk_vehicle_def *out, char **resolved_json, char *err,
                                  size_t err_len)
{
    return load(&vehicle_schema, presets_dir, name, overrides, out, resolved_json, err, err_len);
}

pdk_error pdk_params_vehicle_parse(const char *json_text, const char *origin, const char *overrides,
                                   pdk_vehicle_def *out, char **resolved_json, char *err,
                                   size_t err_len)
{
    return resolve(&vehicle_schema, json_text, origin, overrides, out, resolved_json, err, err_len);
}

pdk_error pdk_params_world_load(const char *presets_dir, const char *name, const char *overrides,
                                pdk_world_def *out, char **resolved_json, char *err, size_t err_len)
{
    return load(&world_schema, presets_dir, name, overrides, out, resolved_json, err, err_len);
}

pdk_error pdk_params_world_parse(const char *json_text, const char *origin, const char *overrides,
                                 pdk_world_def *out, char **resolved_json, char *err,
                                 size_t err_len)
{
    return resolve(&world_schema, json_text, origin, overrides, out, resolved_json, err, err_len);
}

/* ------------------------------------------------------------------------ */
/* Listing and describing */

/* A key's default as describe shows it: a number in the key's unit, a
 * name, a curve as JSON, "[]" for an empty list. */
static void default_text(const param_key *key, const void *def, char *text, size_t len)
{
    text[0] = '\0';
    switch (key->type) {
    case KEY_NUMBER: {
        char num[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(preset_value(key, def), num);
        snprintf(text, len, "%s", num);
        break;
    }
    case KEY_INT:
        snprintf(text, len, "%d", *(const int *)((const char *)def + key->offset));
        break;
    case KEY_U64:
        snprintf(text, len, "%llu",
                 (unsigned long long)*(const uint64_t *)((const char *)def + key->offset));
        break;
    case KEY_CHOICE: {
        const char *name = choice_name(key->choices, enum_get(def, key));
        snprintf(text, len, "%s", name != NULL ? name : "?");
        break;
    }
    case KEY_TEXT:
        break;
    case KEY_CURVE: {
        json_t *curve = curve_json(key, (const pdk_curve *)((const char *)def + key->offset));
        char *dump =
            curve != NULL ? json_dumps(curve, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        snprintf(text, len, "%s", dump != NULL ? dump : "?");
        free(dump);
        json_decref(curve);
        break;
    }
    case KEY_LIST: {
        int count;
        memcpy(&count, (const char *)def + key->list->count_offset, sizeof count);
        snprintf(text, len, count == 0 ? "[]" : "(%d entries)", count);
        break;
    }
    }
}

void pdk_params_describe(pdk_preset_kind kind, pdk_param_key_fn fn, void *ud)
{
    if (fn == NULL) {
        return;
    }
    const schema *s = schema_for(kind);
    union {
        pdk_vehicle_def vehicle;
        pdk_world_def world;
    } def;
    s->defaults(&def);
    for (size_t i = 0; i < s->n_keys; i++) {
        const param_key *key = &s->keys[i];
        char text[256];
        default_text(key, &def, text, sizeof text);
        if (key->type == KEY_CURVE) {
            char unit[32];
            snprintf(unit, sizeof unit, "[m, %s]", key->unit);
            fn(key->path, unit, key->min, key->max, text, key->description, ud);
            continue;
        }
        fn(key->path, key->unit, key->min, key->max, text, key->description, ud);
        /* A list's entries' fields follow it, as path[].field. */
        for (size_t f = 0; key->type == KEY_LIST && f < key->list->n_fields; f++) {
            const param_key *fk = &key->list->fields[f];
            char path[128];
            snprintf(path, sizeof path, "%s[].%s", key->path, fk->path);
            fn(path, fk->unit, fk->min, fk->max, "(required)", fk->description, ud);
        }
    }
}
