/* Presets: vehicle and world definitions as JSON files, resolved into sim's
 * definition structs. Every field has a unit and bounds; an unknown key, a
 * wrong type or an out-of-bounds value is an error whose message names the
 * file, the key path and the reason, e.g.
 *   "presets/vehicles/sedan.json: chassis.mass: -3 is below the minimum 50 (kg)"
 * Overrides "key=value;key=value" with JSON paths apply on top and are
 * validated the same way; indices (a.b[3]) reach into list keys: kinematic
 * curves, terrain.bumps, ramps and patches, terrain.field.heights, the
 * engine.torqueCurve of a utv or a geared car and a geared car's
 * transmission.ratios. A world's overrides also take "surface" for
 * "terrain.surface", a vehicle's the snake_case names that the UTV
 * model's own settings give a utv's keys ("mass.cargo_kg" for
 * "mass.cargoKg"). A vehicle's powertrain.kind decides
 * which keys it has: a utv's own (mass.*, engine.*, cvt.*, ...) from which
 * its chassis, corners and tyre loads follow, a geared car's engine.*,
 * transmission.*, clutch.* and driveline.*, or a lumped vehicle's drive.*
 * and brake forces; a key of another kind is refused, naming it. */
#ifndef PDK_PARAMS_H
#define PDK_PARAMS_H

#include <stddef.h>

#include "sim/error.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"

/* Error messages are written into a caller's buffer of this size or more. */
#define PDK_PARAMS_ERR_LEN 512

typedef enum pdk_preset_kind {
    PDK_PRESET_VEHICLE = 0, /* <dir>/vehicles/<name>.json */
    PDK_PRESET_WORLD = 1,   /* <dir>/worlds/<name>.json */
} pdk_preset_kind;

/* Resolves a vehicle preset: reads <presets_dir>/vehicles/<name>.json,
 * applies overrides (may be NULL or ""), validates every field and the
 * cross-field invariants, and fills *out. When resolved_json is not NULL it
 * receives the fully resolved parameters as canonical JSON (every key of the
 * vehicle's powertrain kind, a lumped or geared vehicle's mass.* payload keys
 * only when given; sorted keys, compact, 17-digit reals; malloc'd, the caller
 * frees) — what a session records. Values are in the schema's units, which are SI except where the
 * key's name says otherwise (lockDeg, staticCamberDeg, kinematics.toeDeg,
 * maxPowerKw, maxReverseSpeedKmh); parsing the resolved JSON again gives a
 * bit-identical *out, kinematic curves included.
 * name must match [A-Za-z0-9_-]{1,64}. Errors: PDK_ERR_INVALID_ARGUMENT (bad
 * name), PDK_ERR_NOT_FOUND (no such preset), PDK_ERR_PARSE (not JSON, bad
 * override syntax, a list entry missing a field), PDK_ERR_UNKNOWN_KEY,
 * PDK_ERR_WRONG_TYPE, PDK_ERR_OUT_OF_RANGE (also an unknown choice name, a
 * curve breaking its rules, a cross-field invariant), PDK_ERR_IO
 * (unreadable or over 1 MiB), PDK_ERR_NO_MEMORY; err (PDK_PARAMS_ERR_LEN
 * bytes) says which; a key of the other powertrain kind is
 * PDK_ERR_OUT_OF_RANGE. On error *out is unchanged and *resolved_json NULL.
 * docs/presets.md lists every key with its unit and bounds. */
pdk_error pdk_params_vehicle_load(const char *presets_dir, const char *name, const char *overrides,
                                  pdk_vehicle_def *out, char **resolved_json, char *err,
                                  size_t err_len);

/* A vehicle preset read, parsed and checked as far as a load goes before
 * its overrides (they are the only part of a load that differs from one
 * spawn to the next), to load with any overrides many times: the preset
 * cache keeps one a preset file. pdk_params_vehicle_from_doc gives what
 * pdk_params_vehicle_load gives for the same preset and overrides, errors
 * and their messages included; so does pdk_params_vehicle_doc for an error
 * of the file itself. The document is not changed by a load (each works on
 * a copy). Opaque; freed with pdk_params_doc_free (NULL is fine). */
typedef struct pdk_params_doc pdk_params_doc;
pdk_error pdk_params_vehicle_doc(const char *presets_dir, const char *name, pdk_params_doc **out,
                                 char *err, size_t err_len);
pdk_error pdk_params_vehicle_from_doc(const pdk_params_doc *doc, const char *overrides,
                                      pdk_vehicle_def *out, char **resolved_json, char *err,
                                      size_t err_len);
void pdk_params_doc_free(pdk_params_doc *doc);

/* The same from JSON text already in memory (a recorded session's resolved
 * parameters, a test); origin names it in error messages. */
pdk_error pdk_params_vehicle_parse(const char *json_text, const char *origin, const char *overrides,
                                   pdk_vehicle_def *out, char **resolved_json, char *err,
                                   size_t err_len);

/* World presets: <presets_dir>/worlds/<name>.json, as above. */
pdk_error pdk_params_world_load(const char *presets_dir, const char *name, const char *overrides,
                                pdk_world_def *out, char **resolved_json, char *err,
                                size_t err_len);
pdk_error pdk_params_world_parse(const char *json_text, const char *origin, const char *overrides,
                                 pdk_world_def *out, char **resolved_json, char *err,
                                 size_t err_len);

/* Calls fn once per preset of kind, in name order, with its name and its
 * "description" (may be ""). A file that cannot be read or is not a JSON
 * object is listed with a description "(invalid preset: reason)"; files
 * whose names are not valid preset names are skipped. Returns
 * PDK_ERR_NOT_FOUND when the folder is missing, PDK_ERR_INVALID_ARGUMENT for
 * a NULL folder or fn, PDK_ERR_NO_MEMORY. */
typedef void (*pdk_preset_fn)(const char *name, const char *description, void *ud);
pdk_error pdk_params_list(const char *presets_dir, pdk_preset_kind kind, pdk_preset_fn fn, void *ud);

/* The same names in the same order, each with description NULL, without
 * reading the files (what a refusal of a missing preset lists). */
pdk_error pdk_params_names(const char *presets_dir, pdk_preset_kind kind, pdk_preset_fn fn,
                           void *ud);

/* Calls fn once per parameter key of kind, in schema order: JSON path, unit,
 * bounds, default as text and description (for `paddockd presets
 * describe`). Bounds are inclusive and in the key's unit; they are NAN for
 * keys that are not numbers (units "text", "choice", "list" and
 * "[surface]" (terrain.field.materials), and kinematic curves, whose unit is
 * "[m, <value unit>]" and default "[]" for none); terrain.field.heights,
 * unit "[m]", gives each value's bounds. A list key is followed by one call
 * per field of its entries, path "<key>[].<field>", default "(required)",
 * or for a field that may be left out the value it then takes ("0", or a
 * choice's name) or "(optional)" where the entry's other fields decide
 * whether it is needed; a list of numbers (a geared car's
 * transmission.ratios) by one call, path "<key>[]", with each number's
 * unit and bounds. */
typedef void (*pdk_param_key_fn)(const char *path, const char *unit, double min, double max,
                                 const char *default_text, const char *description, void *ud);
void pdk_params_describe(pdk_preset_kind kind, pdk_param_key_fn fn, void *ud);

#endif
