/* Resolving a preset document against its schema (params_schema.h): the
 * check of every value (type, bounds, choice names, curves, lists, grids)
 * with messages naming the key, and the build of the definition struct and
 * its canonical resolved JSON from a checked document. params.c runs these
 * steps with provenance.c's and override.c's in between. */
#define _POSIX_C_SOURCE 200809L

#include "params_resolve.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params_internal.h"
#include "params_schema.h"

static void *field_ptr(void *def, const pdk_param_key *key)
{
    return (char *)def + key->offset;
}

/* ------------------------------------------------------------------------ */
/* Validation of JSON values against the schema */

/* path is the key as the message shows it: key->path, or an element of a
 * list ("terrain.bumps[2].height"). */
static pdk_error check_bounds(const pdk_param_key *key, const char *path, double v,
                              const char *where, const char *what, char *err, size_t err_len)
{
    if (isfinite(v) && v >= key->min && v <= key->max) {
        return PDK_OK; /* the common case: no number formatted for a message */
    }
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

/* path is the key as the message shows it (an element of a list's:
 * "terrain.patches[1].shape"). */
static pdk_error check_choice_in(const pdk_choice_set *set, const char *path, const json_t *value,
                                 const char *where, char *err, size_t err_len)
{
    if (!json_is_string(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a string, got %s", where, path,
                               pdk_params_json_type(value));
    }
    int v;
    if (pdk_choice_value(set, json_string_value(value), &v)) {
        return PDK_OK;
    }
    char allowed[160] = "";
    size_t used = 0;
    for (size_t i = 0; i < set->n; i++) {
        int n = snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"", i > 0 ? ", " : "",
                         set->items[i].name);
        if (n < 0 || (size_t)n >= sizeof allowed - used) {
            break;
        }
        used += (size_t)n;
    }
    return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                           "%s: %s: \"%.64s\" is not a%s %s (allowed: %s)", where, path,
                           json_string_value(value), strchr("aeiou", set->what[0]) ? "n" : "",
                           set->what, allowed);
}

static pdk_error check_choice(const pdk_param_key *key, const char *path, const json_t *value,
                              const char *where, char *err, size_t err_len)
{
    return check_choice_in(key->choices, path, value, where, err, err_len);
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
 * value] pairs of numbers, travel within +-PDK_SCHEMA_CURVE_TRAVEL_MAX_M and strictly
 * increasing, and 0 at travel 0 (interpolated) to the rounding sim allows.
 * Whether static + value stays in bounds is vehicle_cross_check's. */
static pdk_error check_curve(const pdk_param_key *key, const json_t *value, const char *where,
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
        if (!(fabs(t) <= PDK_SCHEMA_CURVE_TRAVEL_MAX_M)) {
            return pdk_params_fail(
                PDK_ERR_OUT_OF_RANGE, err, err_len, "%s: %s[%zu]: travel %s m is outside -%g..%g m",
                where, path, i, tt, PDK_SCHEMA_CURVE_TRAVEL_MAX_M, PDK_SCHEMA_CURVE_TRAVEL_MAX_M);
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
    if (fabs(pdk_curve_eval(&si, 0.0)) > PDK_SCHEMA_CURVE_ZERO_TOLERANCE * scale) {
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

static pdk_error check_leaf(const pdk_param_key *key, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len);

/* Writes the names of a list's fields, comma separated: all of them, or
 * the required ones only. */
static void field_names(const pdk_list_spec *spec, bool required_only, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t f = 0; f < spec->n_fields; f++) {
        if (required_only && spec->fields[f].optional) {
            continue;
        }
        int n =
            snprintf(out + used, len - used, "%s%s", used > 0 ? ", " : "", spec->fields[f].path);
        if (n < 0 || (size_t)n >= len - used) {
            break;
        }
        used += (size_t)n;
    }
}

/* A list of objects, each with every required field of the list's spec
 * and any of its optional ones, and its entry rule. */
static pdk_error check_list(const pdk_param_key *key, const json_t *value, const char *where,
                            char *err, size_t err_len)
{
    const pdk_list_spec *spec = key->list;
    if (!json_is_array(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a list of %s, got %s", where, key->path,
                               spec->bare ? "numbers" : "objects", pdk_params_json_type(value));
    }
    if (json_array_size(value) > spec->max_items) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %zu entries, more than the %zu allowed", where, key->path,
                               json_array_size(value), spec->max_items);
    }
    size_t i;
    json_t *item;
    if (spec->bare) {
        json_array_foreach(value, i, item)
        {
            char ipath[128];
            snprintf(ipath, sizeof ipath, "%s[%zu]", key->path, i);
            pdk_error rc = check_leaf(&spec->fields[0], ipath, item, where, err, err_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
        return PDK_OK;
    }
    char fields[160];
    char required[160];
    field_names(spec, false, fields, sizeof fields);
    field_names(spec, true, required, sizeof required);
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
            if (fv == NULL && spec->fields[f].optional) {
                continue;
            }
            if (fv == NULL) {
                return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                                       "%s: %s: missing (every entry of %s gives %s)", where, fpath,
                                       key->path, required);
            }
            pdk_error rc = check_leaf(&spec->fields[f], fpath, fv, where, err, err_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
        if (spec->check_entry != NULL) {
            char why[PDK_PARAMS_ERR_LEN / 2];
            pdk_error rc = spec->check_entry(item, ipath, why, sizeof why);
            if (rc != PDK_OK) {
                return pdk_params_fail(rc, err, err_len, "%s: %s", where, why);
            }
        }
    }
    return PDK_OK;
}

/* A terrain grid's values (pdk_grid_spec): heights, a list of numbers
 * within the key's bounds; materials, a list of choice names or a string of
 * codes. At most max_items either way. */
static pdk_error check_grid(const pdk_param_key *key, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len)
{
    const pdk_grid_spec *g = key->grid;
    if (g->kind == PDK_GRID_MATERIALS && json_is_string(value)) {
        const char *text = json_string_value(value);
        size_t count = 0;
        for (size_t i = 0; text[i] != '\0'; i++) {
            if (text[i] == ' ') {
                continue;
            }
            if (strchr(g->codes, text[i]) == NULL) {
                char codes[256] = "";
                size_t used = 0;
                for (size_t c = 0; c < g->choices->n; c++) {
                    int n =
                        snprintf(codes + used, sizeof codes - used, "%s%c %s", c > 0 ? ", " : "",
                                 g->codes[g->choices->items[c].value], g->choices->items[c].name);
                    if (n < 0 || (size_t)n >= sizeof codes - used) {
                        break;
                    }
                    used += (size_t)n;
                }
                unsigned char u = (unsigned char)text[i];
                return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                       "%s: %s: character %zu, %s%c%s (byte 0x%02X), is not a %s "
                                       "code (codes: %s; spaces are ignored)",
                                       where, path, i + 1, u >= 0x20 && u < 0x7f ? "'" : "",
                                       u >= 0x20 && u < 0x7f ? text[i] : '?',
                                       u >= 0x20 && u < 0x7f ? "'" : "", u, g->choices->what,
                                       codes);
            }
            count++;
        }
        if (count > g->max_items) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: %zu cells, more than the %zu allowed", where, path,
                                   count, g->max_items);
        }
        return PDK_OK;
    }
    if (!json_is_array(value)) {
        return pdk_params_fail(
            PDK_ERR_WRONG_TYPE, err, err_len, "%s: %s: expected %s, got %s", where, path,
            g->kind == PDK_GRID_HEIGHTS ? "a list of numbers"
                                        : "a list of surface names or a string of codes",
            pdk_params_json_type(value));
    }
    if (json_array_size(value) > g->max_items) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %zu values, more than the %zu allowed", where, path,
                               json_array_size(value), g->max_items);
    }
    size_t i;
    const json_t *v;
    json_array_foreach(value, i, v)
    {
        char ipath[160];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        pdk_error rc;
        if (g->kind == PDK_GRID_MATERIALS) {
            rc = check_choice_in(g->choices, ipath, v, where, err, err_len);
        } else if (!json_is_number(v)) {
            rc = pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                 "%s: %s: expected a number, got %s", where, ipath,
                                 pdk_params_json_type(v));
        } else {
            rc = check_bounds(key, ipath, json_number_value(v), where, "", err, err_len);
        }
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return PDK_OK;
}

/* What a value of the wrong type is, for "expected a number, got ...": its
 * JSON type, with the text of a string (an override's bare word: "nan") and
 * a real number written as one (2.0, which an integer key refuses). */
static void describe_value(const json_t *value, char *out, size_t len)
{
    if (json_is_string(value)) {
        snprintf(out, len, "string \"%.40s\"", json_string_value(value));
    } else if (json_is_real(value)) {
        char vt[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(json_real_value(value), vt);
        snprintf(out, len, "%s%s", vt, strpbrk(vt, ".en") != NULL ? "" : ".0");
    } else {
        snprintf(out, len, "%s", pdk_params_json_type(value));
    }
}

static pdk_error check_leaf(const pdk_param_key *key, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len)
{
    char got[64];
    switch (key->type) {
    case PDK_KEY_NUMBER:
        if (!json_is_number(value)) {
            describe_value(value, got, sizeof got);
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a number, got %s", where, path, got);
        }
        return check_bounds(key, path, json_number_value(value), where, "", err, err_len);
    case PDK_KEY_INT:
    case PDK_KEY_U64:
        if (!json_is_integer(value)) {
            describe_value(value, got, sizeof got);
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected an integer, got %s", where, path, got);
        }
        /* Integer bounds are exact in a double for every key in the tables
         * (at most 2^63, where the comparison is still exact). */
        return check_bounds(key, path, (double)json_integer_value(value), where, "", err, err_len);
    case PDK_KEY_CHOICE:
        return check_choice(key, path, value, where, err, err_len);
    case PDK_KEY_BOOL:
        if (!json_is_boolean(value)) {
            describe_value(value, got, sizeof got);
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected true or false, got %s", where, path, got);
        }
        return PDK_OK;
    case PDK_KEY_TEXT:
        if (!json_is_string(value)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: expected a string, got %s", where, path,
                                   pdk_params_json_type(value));
        }
        if (json_string_length(value) > PDK_SCHEMA_TEXT_MAX_BYTES) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: text is %zu bytes long, more than the %d allowed",
                                   where, path, json_string_length(value),
                                   PDK_SCHEMA_TEXT_MAX_BYTES);
        }
        return PDK_OK;
    case PDK_KEY_CURVE:
        return check_curve(key, value, where, err, err_len);
    case PDK_KEY_LIST:
        return check_list(key, value, where, err, err_len);
    case PDK_KEY_GRID:
        return check_grid(key, path, value, where, err, err_len);
    }
    return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "%s: %s: bad schema entry",
                           where, path);
}

pdk_error pdk_resolve_check(const pdk_schema *s, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len)
{
    size_t leaf = 0;
    switch (pdk_schema_classify(s, path, &leaf)) {
    case PDK_SCHEMA_LEAF:
        return check_leaf(&s->keys[leaf], s->keys[leaf].path, value, where, err, err_len);
    case PDK_SCHEMA_NONE:
        return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len, "%s: %s: unknown key", where,
                               path);
    case PDK_SCHEMA_GROUP:
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
        char child_path[PDK_SCHEMA_PATH_LEN];
        size_t nlen = strlen(name);
        bool plain = nlen > 0 && strcspn(name, ".[]") == nlen;
        int n = snprintf(child_path, sizeof child_path, "%s%s%s", path, path[0] ? "." : "", name);
        if (!plain || n < 0 || (size_t)n >= sizeof child_path) {
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s%s\"%.64s\": unknown key (keys are plain names; nest "
                                   "objects for groups)",
                                   where, path, path[0] ? "." : "", name);
        }
        if (pdk_schema_classify(s, child_path, NULL) == PDK_SCHEMA_NONE) {
            return pdk_schema_unknown_key(s, where, child_path, path, false, err, err_len);
        }
        pdk_error rc = pdk_resolve_check(s, child_path, child, where, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return PDK_OK;
}

/* ------------------------------------------------------------------------ */
/* Building: a checked document -> definition struct and resolved JSON */

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
static double from_si(const pdk_param_key *key, double si)
{
    if (key->si_mul == 1 && key->si_div == 1) {
        return si;
    }
    return si * key->si_div / key->si_mul;
}

/* The preset-unit value of a number key as the definition holds it. */
static double preset_value(const pdk_param_key *key, const void *def)
{
    double si;
    memcpy(&si, (const char *)def + key->offset, sizeof si);
    return from_si(key, si);
}

static double to_si(const pdk_param_key *key, double v)
{
    if (key->si_mul == 1 && key->si_div == 1) {
        return v;
    }
    return v * key->si_mul / key->si_div;
}

static int enum_get(const void *def, const pdk_param_key *key)
{
    int v;
    memcpy(&v, (const char *)def + key->offset, sizeof v);
    return v;
}

/* A curve as preset JSON: [[travel, value], ...] in the key's unit. */
static json_t *curve_json(const pdk_param_key *key, const pdk_curve *curve)
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
 * default's, and returns the resolved list with every field that applies
 * (pdk_list_spec: an optional field left out is 0 where it applies). */
static json_t *build_list(const pdk_param_key *key, const json_t *v, void *def)
{
    const pdk_list_spec *spec = key->list;
    char *items = field_ptr(def, key);
    int count;
    memcpy(&count, (char *)def + spec->count_offset, sizeof count);
    if (v != NULL) {
        count = (int)json_array_size(v);
        memset(items, 0, spec->max_items * spec->item_size);
        memcpy((char *)def + spec->count_offset, &count, sizeof count);
    }
    PDK_ASSERT(count >= 0 && (size_t)count <= spec->max_items);
    PDK_ASSERT(v != NULL || count == 0 || spec->applies == NULL);
    json_t *out = json_array();
    for (int i = 0; out != NULL && spec->bare && i < count; i++) {
        /* A list of numbers: each entry is its one field's value. */
        const pdk_param_key *fk = &spec->fields[0];
        char *item = items + (size_t)i * spec->item_size;
        double x =
            v != NULL ? json_number_value(json_array_get(v, (size_t)i)) : preset_value(fk, item);
        double si = to_si(fk, x);
        memcpy(item + fk->offset, &si, sizeof si);
        if (json_array_append_new(out, json_real(x)) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    for (int i = 0; out != NULL && !spec->bare && i < count; i++) {
        char *item = items + (size_t)i * spec->item_size;
        const json_t *entry = v != NULL ? json_array_get(v, (size_t)i) : NULL;
        json_t *obj = json_object();
        if (obj == NULL || json_array_append_new(out, obj) != 0) {
            json_decref(out);
            return NULL;
        }
        for (size_t f = 0; f < spec->n_fields; f++) {
            const pdk_param_key *fk = &spec->fields[f];
            const json_t *fv = entry != NULL ? json_object_get(entry, fk->path) : NULL;
            if (entry != NULL && fv == NULL) {
                PDK_ASSERT(fk->optional);
                if (spec->applies != NULL && !spec->applies(entry, fk)) {
                    continue;
                }
            }
            json_t *jv;
            if (fk->type == PDK_KEY_CHOICE) {
                int x = entry != NULL ? 0 : enum_get(item, fk);
                if (fv != NULL) {
                    bool known = pdk_choice_value(fk->choices, json_string_value(fv), &x);
                    PDK_ASSERT(known);
                }
                memcpy(item + fk->offset, &x, sizeof x);
                const char *name = pdk_choice_name(fk->choices, x);
                PDK_ASSERT(name != NULL);
                jv = json_string(name);
            } else {
                /* A default is re-expressed through the preset unit, as
                 * number keys' are. */
                double x = fv != NULL      ? json_number_value(fv)
                           : entry != NULL ? 0.0
                                           : preset_value(fk, item);
                double si = to_si(fk, x);
                memcpy(item + fk->offset, &si, sizeof si);
                jv = json_real(x);
            }
            if (json_object_set_new(obj, fk->path, jv) != 0) {
                json_decref(out);
                return NULL;
            }
        }
    }
    return out;
}

static int32_t int32_at(const void *def, size_t offset)
{
    int32_t v;
    memcpy(&v, (const char *)def + offset, sizeof v);
    return v;
}

/* Fills a grid key's values and flag from v (validated), or keeps the
 * default's, and returns the resolved value: the heights as a list of
 * numbers (each the float the definition holds), the materials as a string
 * of codes with a space after each row of nx - 1 cells ([] when there are
 * none). */
static json_t *build_grid(const pdk_param_key *key, const json_t *v, void *def)
{
    const pdk_grid_spec *g = key->grid;
    char *base = field_ptr(def, key);
    int32_t nx = int32_at(def, g->nx_offset), ny = int32_at(def, g->ny_offset);
    size_t count = 0;
    if (v != NULL) {
        memset(base, 0,
               g->max_items * (g->kind == PDK_GRID_HEIGHTS ? sizeof(float) : sizeof(uint8_t)));
        if (g->kind == PDK_GRID_HEIGHTS) {
            float *h = (float *)(void *)base;
            size_t i;
            const json_t *x;
            json_array_foreach(v, i, x)
            {
                h[i] = (float)json_number_value(x);
            }
            count = json_array_size(v);
        } else if (json_is_string(v)) {
            for (const char *c = json_string_value(v); *c != '\0'; c++) {
                if (*c != ' ') {
                    base[count++] = (char)(strchr(g->codes, *c) - g->codes);
                }
            }
        } else {
            size_t i;
            const json_t *x;
            json_array_foreach(v, i, x)
            {
                int id = 0;
                bool known = pdk_choice_value(g->choices, json_string_value(x), &id);
                PDK_ASSERT(known);
                base[i] = (char)id;
            }
            count = json_array_size(v);
        }
        int32_t flag = count > 0;
        memcpy((char *)def + g->flag_offset, &flag, sizeof flag);
    } else if (int32_at(def, g->flag_offset) != 0 && nx >= 2 && ny >= 2) {
        count = g->kind == PDK_GRID_HEIGHTS ? (size_t)nx * (size_t)ny
                                            : (size_t)(nx - 1) * (size_t)(ny - 1);
    }
    PDK_ASSERT(count <= g->max_items);
    if (g->kind == PDK_GRID_HEIGHTS) {
        const float *h = (const float *)(const void *)base;
        json_t *out = json_array();
        for (size_t i = 0; out != NULL && i < count; i++) {
            if (json_array_append_new(out, json_real((double)h[i])) != 0) {
                json_decref(out);
                out = NULL;
            }
        }
        return out;
    }
    if (count == 0) {
        return json_array(); /* none, as an empty list of heights */
    }
    size_t row =
        nx >= 2 && ny >= 2 && count == (size_t)(nx - 1) * (size_t)(ny - 1) ? (size_t)(nx - 1) : 0;
    char *text = malloc(2 * count + 1);
    if (text == NULL) {
        return NULL;
    }
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (row > 0 && i > 0 && i % row == 0) {
            text[used++] = ' ';
        }
        text[used++] = g->codes[(unsigned char)base[i]];
    }
    text[used] = '\0';
    json_t *out = json_string(text);
    free(text);
    return out;
}

/* A unit-converted key's value is stored as convert(preset value), and the
 * resolved JSON holds the preset value itself, so parsing the resolved JSON
 * again yields the very same bits; a default is first expressed in the
 * preset unit. */
pdk_error pdk_resolve_build(const pdk_schema *s, json_t *doc, const char *origin, void *def,
                            json_t **resolved_out, char *err, size_t err_len)
{
    s->defaults(def);
    json_t *resolved = json_object();
    if (resolved == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
    }
    pdk_error rc = PDK_OK;
    int variant = pdk_schema_variant(s, doc, def);
    for (size_t i = 0; i < s->n_keys && rc == PDK_OK; i++) {
        const pdk_param_key *key = &s->keys[i];
        if (!pdk_schema_applies(key, variant)) {
            continue; /* pdk_schema_check_variant refused it when given */
        }
        json_t *v = pdk_json_get_dotted(doc, key->path);
        if (v == NULL && pdk_schema_resolved_when_given(key, variant)) {
            continue; /* its default, which the resolved JSON leaves to the defaults too */
        }
        json_t *out = NULL;
        switch (key->type) {
        case PDK_KEY_NUMBER: {
            double x = v != NULL ? json_number_value(v) : preset_value(key, def);
            if (v == NULL) {
                rc = check_bounds(key, key->path, x, origin, "the built-in default ", err, err_len);
            }
            double si = to_si(key, x);
            memcpy(field_ptr(def, key), &si, sizeof si);
            out = json_real(x);
            break;
        }
        case PDK_KEY_INT: {
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
        case PDK_KEY_U64: {
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
        case PDK_KEY_CHOICE: {
            int x = enum_get(def, key);
            if (v != NULL) {
                /* check_leaf accepted the name already. */
                bool known = pdk_choice_value(key->choices, json_string_value(v), &x);
                PDK_ASSERT(known);
                memcpy(field_ptr(def, key), &x, sizeof x);
            }
            const char *name = pdk_choice_name(key->choices, x);
            if (name == NULL) {
                rc = pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                     "%s: %s: the built-in default %s %d has no name", origin,
                                     key->path, key->choices->what, x);
                break;
            }
            out = json_string(name);
            break;
        }
        case PDK_KEY_BOOL: {
            bool *field = field_ptr(def, key);
            if (v != NULL) {
                *field = json_is_true(v);
            }
            out = json_boolean(*field);
            break;
        }
        case PDK_KEY_TEXT:
            out = v != NULL ? json_copy(v) : json_string("");
            break;
        case PDK_KEY_CURVE: {
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
        case PDK_KEY_LIST:
            out = build_list(key, v, def);
            break;
        case PDK_KEY_GRID:
            out = build_grid(key, v, def);
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
/* Defaults as the resolved JSON and describe show them */

json_t *pdk_resolve_default_json(const pdk_schema *s, const pdk_param_key *key)
{
    void *def = calloc(1, s->def_size);
    if (def == NULL) {
        return NULL;
    }
    s->defaults(def);
    json_t *out = key->type == PDK_KEY_LIST    ? build_list(key, NULL, def)
                  : key->type == PDK_KEY_CURVE ? curve_json(key, field_ptr(def, key))
                                               : build_grid(key, NULL, def);
    free(def);
    return out;
}

void pdk_resolve_default_text(const pdk_param_key *key, const void *def, char *text, size_t len)
{
    text[0] = '\0';
    switch (key->type) {
    case PDK_KEY_NUMBER: {
        char num[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(preset_value(key, def), num);
        snprintf(text, len, "%s", num);
        break;
    }
    case PDK_KEY_INT:
        snprintf(text, len, "%d", *(const int *)((const char *)def + key->offset));
        break;
    case PDK_KEY_U64:
        snprintf(text, len, "%llu",
                 (unsigned long long)*(const uint64_t *)((const char *)def + key->offset));
        break;
    case PDK_KEY_CHOICE: {
        const char *name = pdk_choice_name(key->choices, enum_get(def, key));
        snprintf(text, len, "%s", name != NULL ? name : "?");
        break;
    }
    case PDK_KEY_BOOL:
        snprintf(text, len, "%s",
                 *(const bool *)((const char *)def + key->offset) ? "true" : "false");
        break;
    case PDK_KEY_TEXT:
        break;
    case PDK_KEY_CURVE: {
        json_t *curve = curve_json(key, (const pdk_curve *)((const char *)def + key->offset));
        char *dump =
            curve != NULL ? json_dumps(curve, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        snprintf(text, len, "%s", dump != NULL ? dump : "?");
        free(dump);
        json_decref(curve);
        break;
    }
    case PDK_KEY_LIST: {
        int count;
        memcpy(&count, (const char *)def + key->list->count_offset, sizeof count);
        snprintf(text, len, count == 0 ? "[]" : "(%d entries)", count);
        break;
    }
    case PDK_KEY_GRID:
        snprintf(text, len, "%s", int32_at(def, key->grid->flag_offset) != 0 ? "(a grid)" : "[]");
        break;
    }
}
