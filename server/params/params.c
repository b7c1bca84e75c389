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
    KEY_MODEL = 3,  /* pdk_model field, one of model_names */
    KEY_TEXT = 4,   /* free text kept in the resolved JSON only (description) */
} key_type;

typedef struct param_key {
    const char *path; /* dotted JSON path, camelCase */
    const char *unit; /* the preset's unit, as shown to users */
    key_type type;
    double min; /* bounds in the preset's unit, inclusive */
    double max;
    size_t offset; /* of the field in the definition struct */
    double si_mul; /* SI value = preset value * si_mul / si_div */
    double si_div;
    const char *description;
} param_key;

typedef struct schema {
    const char *folder; /* under presets_dir */
    const param_key *keys;
    size_t n_keys;
    size_t def_size;
    void (*defaults)(void *def);
    /* Invariants between fields, with a message naming them; PDK_OK when
     * they hold. The model's own check runs after it as a backstop and says
     * why in its own words (sim's field names). */
    pdk_error (*cross_check)(const void *def, char *why, size_t why_len);
    pdk_error (*model_check)(const void *def, const char **why);
} schema;

/* Free text is bounded so a resolved parameter set stays small. */
#define TEXT_MAX_BYTES 1000

static const struct {
    const char *name;
    pdk_model model;
} model_names[] = {
    {"singleTrack", PDK_MODEL_SINGLE_TRACK},
};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define V_NUM(path, unit, lo, hi, member, mul, div, desc)                                          \
    {                                                                                              \
        path, unit, KEY_NUMBER, lo, hi, offsetof(pdk_vehicle_def, member), mul, div, desc          \
    }

/* Bounds are what a road, off-road or commercial vehicle can physically
 * have, wide enough for a kart and a 100 t truck; docs/presets.md explains
 * each. */
static const param_key vehicle_keys[] = {
    {"description", "text", KEY_TEXT, NAN, NAN, 0, 1, 1,
     "Free text: what the preset models and where its numbers come from."},
    {"simulation.model", "choice", KEY_MODEL, NAN, NAN, offsetof(pdk_vehicle_def, model), 1, 1,
     "Vehicle model: singleTrack (planar single-track model, seed 000)."},
    V_NUM("chassis.mass", "kg", 50, 100000, chassis.mass_kg, 1, 1,
          "Total mass with driver and fluids."),
    V_NUM("chassis.yawInertia", "kg*m^2", 1, 5e6, chassis.yaw_inertia_kgm2, 1, 1,
          "Yaw moment of inertia about the vertical axis through the centre of gravity."),
    V_NUM("chassis.wheelbase", "m", 0.5, 15, chassis.wheelbase_m, 1, 1, "Front axle to rear axle."),
    V_NUM("chassis.cgToFrontAxle", "m", 0.05, 15, chassis.cg_to_front_axle_m, 1, 1,
          "Centre of gravity to front axle, along x; less than the wheelbase."),
    V_NUM("chassis.cgHeight", "m", 0.05, 5, chassis.cg_height_m, 1, 1,
          "Centre-of-gravity height above the ground; sets longitudinal load transfer."),
    V_NUM("tyres.front.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_front.cornering_stiffness_n_per_rad, 1, 1,
          "Front axle (both tyres): lateral force per radian of slip angle at zero slip."),
    V_NUM("tyres.front.friction", "-", 0.1, 2.5, tyre_front.friction_coeff, 1, 1,
          "Front tyres' peak friction coefficient on a surface of friction 1."),
    V_NUM("tyres.rear.corneringStiffness", "N/rad", 1000, 5e6,
          tyre_rear.cornering_stiffness_n_per_rad, 1, 1,
          "Rear axle (both tyres): lateral force per radian of slip angle at zero slip."),
    V_NUM("tyres.rear.friction", "-", 0.1, 2.5, tyre_rear.friction_coeff, 1, 1,
          "Rear tyres' peak friction coefficient on a surface of friction 1."),
    V_NUM("steering.ratio", "-", 1, 40, steering.ratio, 1, 1,
          "Steering-wheel angle over road-wheel angle."),
    V_NUM("steering.lockDeg", "deg", 10, 1440, steering.lock_deg, 1, 1,
          "Steering-wheel angle at full lock, each side."),
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

static const param_key world_keys[] = {
    {"description", "text", KEY_TEXT, NAN, NAN, 0, 1, 1,
     "Free text: what the world models and where its numbers come from."},
    {"substeps", "-", KEY_INT, 1, 64, offsetof(pdk_world_def, substeps), 1, 1,
     "Physics substeps per 1/120 s tick."},
    {"maxVehicles", "-", KEY_INT, 1, 65535, offsetof(pdk_world_def, max_vehicles), 1, 1,
     "Vehicle capacity; a full world refuses spawn."},
    {"gravity", "m/s^2", KEY_NUMBER, 0.5, 30, offsetof(pdk_world_def, gravity_mps2), 1, 1,
     "Gravitational acceleration, acting along -z."},
    {"airDensity", "kg/m^3", KEY_NUMBER, 0, 2, offsetof(pdk_world_def, air_density_kgpm3), 1, 1,
     "Air density for aerodynamic drag; 0 is a vacuum."},
    {"surfaceFriction", "-", KEY_NUMBER, 0.05, 2, offsetof(pdk_world_def, surface_friction), 1, 1,
     "Multiplies every tyre's friction: 1 dry asphalt, about 0.7 wet asphalt."},
    {"seed", "-", KEY_U64, 0, (double)INT64_MAX, offsetof(pdk_world_def, seed), 1, 1,
     "Seed of the world's random number generator."},
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

#define MAX_ROAD_WHEEL_LOCK_DEG 80.0

static pdk_error vehicle_cross_check(const void *vdef, char *why, size_t why_len)
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
    return PDK_OK;
}

static const schema vehicle_schema = {
    .folder = "vehicles",
    .keys = vehicle_keys,
    .n_keys = N_ELEMS(vehicle_keys),
    .def_size = sizeof(pdk_vehicle_def),
    .defaults = vehicle_defaults,
    .cross_check = vehicle_cross_check,
    .model_check = vehicle_model_check,
};

static const schema world_schema = {
    .folder = "worlds",
    .keys = world_keys,
    .n_keys = N_ELEMS(world_keys),
    .def_size = sizeof(pdk_world_def),
    .defaults = world_defaults,
    .cross_check = NULL,
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

static pdk_error check_bounds(const param_key *key, double v, const char *where, const char *what,
                              char *err, size_t err_len)
{
    char vt[PDK_PARAMS_NUM_LEN];
    char bt[PDK_PARAMS_NUM_LEN];
    pdk_params_format_number(v, vt);
    if (!isfinite(v)) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len, "%s: %s: %s%s is not finite",
                               where, key->path, what, vt);
    }
    if (v < key->min) {
        pdk_params_format_number(key->min, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s%s is below the minimum %s (%s)", where, key->path, what,
                               vt, bt, key->unit);
    }
    if (v > key->max) {
        pdk_params_format_number(key->max, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s%s is above the maximum %s (%s)", where, key->path, what,
                               vt, bt, key->unit);
    }
    return PDK_OK;
}

static bool model_from_name(const char *name, pdk_model *out)
{
    for (size_t i = 0; i < N_ELEMS(model_names); i++) {
        if (strcmp(model_names[i].name, name) == 0) {
            *out = model_names[i].model;
            return true;
        }
    }
    return false;
}

static const char *model_name(pdk_model model)
{
    for (size_t i = 0; i < N_ELEMS(model_names); i++) {
        if (model_names[i].model == model) {
            return model_names[i].name;
        }
    }
    return NULL;
}

static pdk_error check_leaf(const param_key *key, const json_t *value, const char *where, char *err,
                            size_t err_len)
{
    switch (key->type) {
    case KEY_NUMBER:
        if (!json_is_number(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a number, got %s", where, key->path,
                                   pdk_params_json_type(value));
        }
        return check_bounds(key, json_number_value(value), where, "", err, err_len);
    case KEY_INT:
    case KEY_U64:
        if (!json_is_integer(value)) {
            if (json_is_real(value)) {
                char vt[PDK_PARAMS_NUM_LEN];
                pdk_params_format_number(json_real_value(value), vt);
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: expected an integer, got %s", where, key->path, vt);
            }
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected an integer, got %s", where, key->path,
                                   pdk_params_json_type(value));
        }
        /* Integer bounds are exact in a double for every key in the tables
         * (at most 2^63, where the comparison is still exact). */
        return check_bounds(key, (double)json_integer_value(value), where, "", err, err_len);
    case KEY_MODEL: {
        if (!json_is_string(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a string, got %s", where, key->path,
                                   pdk_params_json_type(value));
        }
        pdk_model model;
        if (!model_from_name(json_string_value(value), &model)) {
            char allowed[128] = "";
            size_t used = 0;
            for (size_t i = 0; i < N_ELEMS(model_names); i++) {
                int n = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"",
                                 i > 0 ? ", " : "", model_names[i].name);
                if (n < 0 || (size_t)n >= sizeof allowed - used) {
                    break;
                }
                used += (size_t)n;
            }
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: \"%.64s\" is not a vehicle model (allowed: %s)", where,
                                   key->path, json_string_value(value), allowed);
        }
        return PDK_OK;
    }
    case KEY_TEXT:
        if (!json_is_string(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a string, got %s", where, key->path,
                                   pdk_params_json_type(value));
        }
        if (json_string_length(value) > TEXT_MAX_BYTES) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: text is %zu bytes long, more than the %d allowed",
                                   where, key->path, json_string_length(value), TEXT_MAX_BYTES);
        }
        return PDK_OK;
    }
    return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "%s: %s: bad schema entry",
                           where, key->path);
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
        return check_leaf(&s->keys[leaf], value, where, err, err_len);
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
static pdk_error set_path(json_t *doc, const pdk_path *path, json_t *value)
{
    json_t *cur = doc;
    for (size_t i = 0; i + 1 < path->n_segs; i++) {
        json_t *next = json_object_get(cur, path->segs[i].name);
        if (next == NULL) {
            next = json_object();
            if (next == NULL || json_object_set_new(cur, path->segs[i].name, next) != 0) {
                return PDK_ERR_NO_MEMORY;
            }
        }
        cur = next;
    }
    const char *last = path->segs[path->n_segs - 1].name;
    json_t *existing = json_object_get(cur, last);
    if (existing != NULL && json_is_object(existing) && json_is_object(value)) {
        return json_object_update_recursive(existing, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
    }
    return json_object_set(cur, last, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
}

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
    /* Walk the schema along the path. No key of today's schemas is an
     * array, so an index always lands on a key or group that is not one. */
    char walked[PATH_BUF] = "";
    for (size_t i = 0; i < path.n_segs; i++) {
        const pdk_path_seg *seg = &path.segs[i];
        size_t leaf = 0;
        node_kind here = classify(s, walked, &leaf);
        char next[PATH_BUF];
        pdk_path_format(&path, i + 1, next, sizeof next);
        if (seg->kind == PDK_PATH_INDEX) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: %s is %s, not an array", where, next, walked,
                                   here == NODE_LEAF ? "a single value" : "an object");
        }
        if (here == NODE_LEAF) {
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s: unknown key (%s is a single value with no keys "
                                   "under it)",
                                   where, next, walked);
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
    pdk_error rc = check_node(s, walked, value, where, err, err_len);
    if (rc == PDK_OK) {
        rc = set_path(doc, &path, value);
        if (rc != PDK_OK) {
            pdk_params_fail(rc, err, err_len, "%s: out of memory", where);
        }
    }
    json_decref(value);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Resolve: JSON document -> definition struct and resolved JSON */

/* The value at a dotted path in a validated document, or NULL. */
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

/* The preset-unit value of a number key as the definition holds it. */
static double preset_value(const param_key *key, const void *def)
{
    double si;
    memcpy(&si, (const char *)def + key->offset, sizeof si);
    if (key->si_mul == 1 && key->si_div == 1) {
        return si;
    }
    return si * key->si_div / key->si_mul;
}

static double to_si(const param_key *key, double v)
{
    if (key->si_mul == 1 && key->si_div == 1) {
        return v;
    }
    return v * key->si_mul / key->si_div;
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
                rc = check_bounds(key, x, origin, "the built-in default ", err, err_len);
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
                rc = check_bounds(key, (double)x, origin, "the built-in default ", err, err_len);
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
        case KEY_MODEL: {
            pdk_model *field = field_ptr(def, key);
            if (v != NULL) {
                /* check_leaf accepted the name already. */
                bool known = model_from_name(json_string_value(v), field);
                PDK_ASSERT(known);
            }
            const char *name = model_name(*field);
            if (name == NULL) {
                rc = pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                     "%s: %s: the built-in default model %d has no name", origin,
                                     key->path, (int)*field);
                break;
            }
            out = json_string(name);
            break;
        }
        case KEY_TEXT:
            out = v != NULL ? json_copy(v) : json_string("");
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
        rc = s->cross_check(&def, why, sizeof why);
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

static bool valid_name(const char *name)
{
    if (name == NULL) {
        return false;
    }
    size_t n = 0;
    for (; name[n] != '\0'; n++) {
        char c = name[n];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        if (!ok || n >= 64) {
            return false;
        }
    }
    return n > 0;
}

static pdk_error load(const schema *s, const char *presets_dir, const char *name,
                      const char *overrides, void *out, char **resolved_json, char *err,
                      size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    if (!valid_name(name)) {
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
    int n = snprintf(path, sizeof path, "%s/%s/%s.json", presets_dir, s->folder, name);
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

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "description" of one preset file for a listing: the text, "" when it
 * has none, or a short note when the file cannot be used. */
static void list_one(const char *dir, const char *name, pdk_preset_fn fn, void *ud)
{
    char path[PATH_MAX];
    char note[PDK_PARAMS_ERR_LEN];
    int n = snprintf(path, sizeof path, "%s/%s.json", dir, name);
    if (n < 0 || (size_t)n >= sizeof path) {
        fn(name, "(invalid preset: path too long)", ud);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    char why[PDK_PARAMS_ERR_LEN - 32];
    if (pdk_params_read_file(path, PDK_PARAMS_PRESET_MAX_BYTES, PDK_ERR_NOT_FOUND, &text, &len, why,
                             sizeof why) != PDK_OK) {
        snprintf(note, sizeof note, "(invalid preset: %s)", why);
        fn(name, note, ud);
        return;
    }
    char origin[80];
    snprintf(origin, sizeof origin, "%s.json", name);
    json_t *doc = NULL;
    if (pdk_params_load_object(text, len, origin, &doc, why, sizeof why) != PDK_OK) {
        snprintf(note, sizeof note, "(invalid preset: %s)", why);
        fn(name, note, ud);
    } else {
        json_t *d = json_object_get(doc, "description");
        fn(name, json_is_string(d) ? json_string_value(d) : "", ud);
        json_decref(doc);
    }
    free(text);
}

pdk_error pdk_params_list(const char *presets_dir, pdk_preset_kind kind, pdk_preset_fn fn, void *ud)
{
    if (presets_dir == NULL || fn == NULL ||
        (kind != PDK_PRESET_VEHICLE && kind != PDK_PRESET_WORLD)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    const schema *s = schema_for(kind);
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s/%s", presets_dir, s->folder);
    if (n < 0 || (size_t)n >= sizeof dir) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        return PDK_ERR_NOT_FOUND;
    }
    char **names = NULL;
    size_t n_names = 0;
    pdk_error rc = PDK_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) {
            continue;
        }
        char stem[NAME_MAX + 1];
        memcpy(stem, e->d_name, len - 5);
        stem[len - 5] = '\0';
        /* A file that pdk_params_*_load could not name is not a preset. */
        if (!valid_name(stem)) {
            continue;
        }
        char path[PATH_MAX];
        struct stat st;
        n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        char **bigger = realloc(names, (n_names + 1) * sizeof *names);
        char *copy = malloc(strlen(stem) + 1);
        if (bigger != NULL) {
            names = bigger;
        }
        if (bigger == NULL || copy == NULL) {
            free(copy);
            rc = PDK_ERR_NO_MEMORY;
            break;
        }
        memcpy(copy, stem, strlen(stem) + 1);
        names[n_names++] = copy;
    }
    closedir(d);
    if (rc == PDK_OK && n_names > 0) {
        qsort(names, n_names, sizeof *names, compare_names);
        for (size_t i = 0; i < n_names; i++) {
            list_one(dir, names[i], fn, ud);
        }
    }
    for (size_t i = 0; i < n_names; i++) {
        free(names[i]);
    }
    free(names);
    return rc;
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
        char text[PDK_PARAMS_NUM_LEN + 8];
        switch (key->type) {
        case KEY_NUMBER:
            pdk_params_format_number(preset_value(key, &def), text);
            break;
        case KEY_INT:
            snprintf(text, sizeof text, "%d", *(const int *)field_ptr(&def, key));
            break;
        case KEY_U64:
            snprintf(text, sizeof text, "%llu",
                     (unsigned long long)*(const uint64_t *)field_ptr(&def, key));
            break;
        case KEY_MODEL: {
            const char *name = model_name(*(const pdk_model *)field_ptr(&def, key));
            snprintf(text, sizeof text, "%s", name != NULL ? name : "?");
            break;
        }
        case KEY_TEXT:
            text[0] = '\0';
            break;
        }
        fn(key->path, key->unit, key->min, key->max, text, key->description, ud);
    }
}
