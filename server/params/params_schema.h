/* The parameter schema of vehicle and world presets: one table of keys per
 * kind (JSON path, unit, bounds, default, meaning, where the value lands in
 * sim's definition struct and how it converts to SI) and the rules between
 * keys that per-key bounds cannot state. schema_vehicle.c holds the
 * vehicle's table (its rules schema_vehicle_rules.c), schema_world.c the
 * world's, schema.c the lookups both share; resolve.c walks them to check
 * and build, params.c to describe. Not a public contract: only the .c files
 * of params/ include it. */
#ifndef PDK_PARAMS_SCHEMA_H
#define PDK_PARAMS_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/error.h"
#include "params.h"
#include "sim/payload.h"
#include "sim/utv_def.h"

/* Free text is bounded so a resolved parameter set stays small. */
#define PDK_SCHEMA_TEXT_MAX_BYTES 1000

/* Longest dotted path a preset may contain: every schema path is shorter. */
#define PDK_SCHEMA_PATH_LEN 160

/* A kinematic curve's travel is within this of the static ride position: a
 * metre covers any road vehicle's wheel travel with room to spare. */
#define PDK_SCHEMA_CURVE_TRAVEL_MAX_M 1.0

/* Zero at zero travel, to rounding: the relative tolerance sim's
 * pdk_curve_problem allows (vehicle_def.c), applied to the same SI curve. */
#define PDK_SCHEMA_CURVE_ZERO_TOLERANCE 1e-12

typedef enum pdk_key_type {
    PDK_KEY_NUMBER = 0, /* double field; preset value * si_mul / si_div is SI */
    PDK_KEY_INT = 1,    /* int field, a JSON integer */
    PDK_KEY_U64 = 2,    /* uint64_t field, a JSON integer >= 0 */
    PDK_KEY_CHOICE = 3, /* enum field (int-sized), one name of a pdk_choice_set */
    PDK_KEY_TEXT = 4,   /* free text kept in the resolved JSON only (description) */
    PDK_KEY_CURVE = 5,  /* pdk_curve field: [[travel m, value], ...], values converted */
    PDK_KEY_LIST = 6,   /* a counted array of structs: a list of objects of number and
                         * choice fields */
    PDK_KEY_GRID = 7,   /* a terrain grid's values (pdk_grid_spec): heights or materials */
    PDK_KEY_BOOL = 8,   /* bool field, JSON true or false */
} pdk_key_type;

/* A named value of an enum field. */
typedef struct pdk_choice {
    const char *name;
    int value;
} pdk_choice;

typedef struct pdk_choice_set {
    const char *what; /* "vehicle model", for messages */
    const pdk_choice *items;
    size_t n;
} pdk_choice_set;

typedef struct pdk_param_key pdk_param_key;

/* Where a PDK_KEY_LIST lands: an int count at count_offset and max_items
 * structs of item_size bytes at the key's offset, each filled from fields
 * (number and choice keys with offsets inside the struct). A field is
 * required unless it is optional; an optional field left out is 0 (a
 * choice: the one valued 0). */
typedef struct pdk_list_spec {
    const pdk_param_key *fields;
    size_t n_fields;
    size_t count_offset;
    size_t item_size;
    size_t max_items;
    /* Rules between the fields of one entry (entry, its JSON object, has
     * passed the field checks; path is "terrain.patches[2]"): PDK_OK, or the
     * error with its message in why (why_len bytes). NULL: none. */
    pdk_error (*check_entry)(const json_t *entry, const char *path, char *why, size_t why_len);
    /* Whether an optional field that entry leaves out applies to it (is
     * filled with its default and written in the resolved JSON); NULL:
     * every one does. A field that does not apply stays 0 and is not
     * written. A list with this hook must be empty in the defaults. */
    bool (*applies)(const json_t *entry, const pdk_param_key *field);
    /* Each entry is the value of the list's one field itself, not an
     * object holding it: a list of numbers ([4.148, 2.37, ...]) landing in
     * an array of doubles (item_size sizeof(double), the field at offset
     * 0). Messages and describe name an entry "path[i]". */
    bool bare;
} pdk_list_spec;

/* What a PDK_KEY_GRID holds: heights, a float per corner at the key's
 * offset (a JSON list of numbers, each within the key's bounds), or
 * materials, a uint8_t surface id per cell (a JSON list of names of
 * choices, or a string of codes, one per cell, codes[i] standing for the
 * choice valued i, spaces ignored; resolved as that string). The int32_t
 * at flag_offset is set to 1 when the list is not empty. */
typedef enum pdk_grid_kind {
    PDK_GRID_HEIGHTS = 0,
    PDK_GRID_MATERIALS = 1,
} pdk_grid_kind;

typedef struct pdk_grid_spec {
    pdk_grid_kind kind;
    size_t max_items;
    size_t flag_offset;
    size_t nx_offset; /* int32_t corner counts, for the resolved string's rows */
    size_t ny_offset;
    const pdk_choice_set *choices; /* PDK_GRID_MATERIALS */
    const char *codes;             /* PDK_GRID_MATERIALS: one letter per choice value */
} pdk_grid_spec;

/* An override key that stands for another ("surface" for
 * "terrain.surface"): the whole key, matched exactly. Several aliases may
 * share a from: the value then goes to each of their keys in turn (a utv's
 * tyres.radius_m is both axles' radius). */
typedef struct pdk_alias {
    const char *from;
    const char *to;
} pdk_alias;

struct pdk_param_key {
    const char *path; /* dotted JSON path, camelCase */
    const char *unit; /* the preset's unit, as shown to users; a curve's value unit */
    pdk_key_type type;
    double min; /* bounds in the preset's unit, inclusive; NAN when not a number */
    double max;
    size_t offset; /* of the field in the definition struct */
    double si_mul; /* SI value = preset value * si_mul / si_div */
    double si_div;
    const char *description;
    const pdk_choice_set *choices; /* PDK_KEY_CHOICE */
    const char *static_path;       /* PDK_KEY_CURVE: the key its values add to, whose bounds hold */
    const pdk_list_spec *list;     /* PDK_KEY_LIST */
    bool optional;                 /* a field of a list: may be left out */
    const pdk_grid_spec *grid;     /* PDK_KEY_GRID */
    /* The values of the schema's variant key (pdk_schema.variant_key) the
     * key applies to, one bit each (1u << value); 0: every variant. A key
     * that does not apply may not be given, keeps the defaults' value and
     * is left out of the resolved JSON. */
    unsigned only_for;
    /* With only_for: what a preset of another variant has instead, for the
     * message that refuses the key there ("a utv's chassis.mass follows
     * from its mass.* keys"); NULL for none. */
    const char *otherwise;
    /* The variants (one bit each, as only_for) in which the key is written
     * in the resolved JSON only when the document (the preset or an
     * override) gives it: left out, its default applies again when the
     * resolved JSON is parsed, so the round trip holds and a preset that
     * does not use the key resolves as it did before the key existed (a
     * car's payload, mass.*). 0: written whenever it applies. */
    unsigned resolved_when_given;
};

typedef struct pdk_schema {
    pdk_preset_kind kind; /* its folder under presets_dir: pdk_params_folder(kind) */
    const char *what;     /* "vehicle" or "world", for messages */
    const pdk_param_key *keys;
    size_t n_keys;
    size_t def_size; /* of the working definition the keys land in */
    size_t out_size; /* of its first part, sim's definition: what a load gives back */
    /* A choice key whose value decides which keys apply (pdk_param_key's
     * only_for), or NULL when every key always applies. */
    const char *variant_key;
    const pdk_alias *aliases; /* override keys that stand for schema paths */
    size_t n_aliases;
    void (*defaults)(void *def);
    /* Fills the fields that follow from keys rather than being keys
     * themselves (a vehicle's Magic Formula coefficients from its set, the
     * soil model's copies of the tyre radius and pressure), after the keys
     * are in and before the checks; NULL when there are none. */
    void (*complete)(void *def);
    /* Invariants between fields, with a message naming the keys (why,
     * why_len bytes); PDK_OK when they hold. resolved is the resolved JSON
     * beside def, in preset units. */
    pdk_error (*cross_check)(const void *def, json_t *resolved, char *why, size_t why_len);
    /* The model's own check, run after cross_check as a backstop: PDK_OK, or
     * its error with *why its sentence (sim's field names). */
    pdk_error (*model_check)(const void *def, const char **why);
} pdk_schema;

/* A point of an engine's full-load curve, as engine.torqueCurve lists
 * them; sim keeps the speeds and torques apart (pdk_engine_def). */
typedef struct pdk_engine_point {
    double rpm;
    double nm;
} pdk_engine_point;

/* What the vehicle schema's keys land in: sim's definition first (the part
 * a load gives back), then the keys of a UTV from which fields of the
 * definition follow (utv_def.h), held here until the schema's complete
 * step derives them, a lumped or geared vehicle's payload (payload.h: its
 * seats, cargoY and cargoMaxKg; the mass.* keys it shares with a utv land
 * in mass and are copied), the chassis as its keys give it before the
 * payload, the engine's curve as points, and brakes.abs and
 * dbw.lockout.reverse as bools (sim's fields are int32_t). */
typedef struct pdk_vehicle_work {
    pdk_vehicle_def def;
    pdk_utv_mass_def mass;
    pdk_payload_def payload;
    pdk_chassis_def chassis_given;
    pdk_utv_suspension_def suspension;
    double cornering_per_load[2]; /* 1/rad: front, rear */
    pdk_engine_point torque_curve[PDK_ENGINE_CURVE_MAX];
    bool abs;
    bool dbw_lockout_reverse;
} pdk_vehicle_work;

/* The vehicle's schema (schema_vehicle.c) and the world's (schema_world.c);
 * pdk_schema_for picks one by kind. */
extern const pdk_schema pdk_vehicle_schema;
extern const pdk_schema pdk_world_schema;

/* The least track a vehicle preset may give, chassis or axle: a narrow
 * kart. */
#define PDK_SCHEMA_MIN_TRACK_M 0.3

/* The vehicle schema's cross_check (schema_vehicle_rules.c): vdef is its
 * working definition (pdk_vehicle_work), after the complete step. */
pdk_error pdk_vehicle_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len);

/* The schema of a kind of preset (the vehicle schema for any value that is
 * not PDK_PRESET_WORLD). */
const pdk_schema *pdk_schema_for(pdk_preset_kind kind);

/* The key with exactly this dotted path, or NULL. */
const pdk_param_key *pdk_schema_find_key(const pdk_schema *schema, const char *path);

/* What a dotted path names in a schema: a key, a group of keys (an object
 * in the JSON; "" is the top), or nothing. */
typedef enum pdk_schema_node {
    PDK_SCHEMA_NONE = 0,
    PDK_SCHEMA_LEAF = 1,
    PDK_SCHEMA_GROUP = 2,
} pdk_schema_node;

/* What path names in schema; for a key, *leaf (when not NULL) is its index
 * in schema->keys. */
pdk_schema_node pdk_schema_classify(const pdk_schema *schema, const char *path, size_t *leaf);

/* PDK_ERR_UNKNOWN_KEY for path, found under the group parent ("" for the
 * top), with a message starting with where: the known key or group closest
 * to path ("did you mean ...?"; with aliases, an override's, the aliases'
 * names too), or else the names known under parent. */
pdk_error pdk_schema_unknown_key(const pdk_schema *schema, const char *where, const char *path,
                                 const char *parent, bool aliases, char *err, size_t err_len);

/* The value of the choice called name (true, *out set), or false. */
bool pdk_choice_value(const pdk_choice_set *set, const char *name, int *out);

/* The name of the choice valued value, or NULL. */
const char *pdk_choice_name(const pdk_choice_set *set, int value);

/* The variant of a document (pdk_schema.variant_key): the value its
 * variant key gives (a name the key's check accepted), or the one def, the
 * schema's defaults, holds when doc leaves it out; 0 when the schema has
 * no variant key. */
int pdk_schema_variant(const pdk_schema *schema, json_t *doc, const void *def);

/* Whether key applies to variant (pdk_param_key.only_for). */
bool pdk_schema_applies(const pdk_param_key *key, int variant);

/* Whether key is written in variant's resolved JSON only when given
 * (pdk_param_key.resolved_when_given). */
bool pdk_schema_resolved_when_given(const pdk_param_key *key, int variant);

/* The names of the variants in mask, quoted, for messages: "\"utv\"" or
 * "\"lumped\" or \"utv\"" (out, len bytes). */
void pdk_schema_variant_names(const pdk_choice_set *set, unsigned mask, char *out, size_t len);

/* PDK_OK when every key doc gives applies to its variant, else
 * PDK_ERR_OUT_OF_RANGE with a message naming where, the key, the variant
 * and what the other variant has instead. def is scratch space of the
 * schema's def_size for its defaults. */
pdk_error pdk_schema_check_variant(const pdk_schema *schema, json_t *doc, void *def,
                                   const char *where, char *err, size_t err_len);

#endif
