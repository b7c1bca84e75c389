/* Provenance objects in presets (docs/presets.md "Provenance"): a key's
 * value may be written as {value, basis, source, sd | range, note}, saying
 * where the number comes from and how sure it is. This file checks such an
 * object against its key and replaces it by its value before the document
 * is checked and built: the model reads the value only, the rest stays in
 * the preset file for its readers. */
#include "params_resolve.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "params_internal.h"
#include "params_schema.h"

/* The bases a parameter's value may have (docs/presets.md "Provenance"):
 * from the maker, from the drive-by-wire kit's maker, measured on the
 * installed vehicle, fitted to measurements, derived from other values,
 * estimated. */
static const char *const provenance_bases[] = {"oem",    "dataspeed", "installed",
                                               "fitted", "derived",   "estimate"};

/* The members of a provenance object. */
static const char *const provenance_keys[] = {"value", "basis", "source", "sd", "range", "note"};

static bool is_provenance_key(const char *name)
{
    for (size_t i = 0; i < sizeof provenance_keys / sizeof provenance_keys[0]; i++) {
        if (strcmp(name, provenance_keys[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* Checks the provenance object p found at key (path): value required, basis
 * one of provenance_bases, source and note strings, sd (>= 0) or range
 * ([low, high] holding the value), not both, only on a number. On success
 * *value_out is its value (borrowed). Errors name where and path. */
static pdk_error check_provenance(const pdk_param_key *key, const char *path, const json_t *p,
                                  const char *where, const json_t **value_out, char *err,
                                  size_t err_len)
{
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)p, name, v)
    {
        if (!is_provenance_key(name)) {
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s: unknown key \"%.64s\" in a provenance object (it "
                                   "holds value, basis, source, sd or range, note)",
                                   where, path, name);
        }
    }
    const json_t *value = json_object_get(p, "value");
    if (value == NULL) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: an object here is a provenance object and needs its "
                               "\"value\" ({\"value\": ..., \"basis\": ..., \"source\": ...})",
                               where, path);
    }
    const json_t *basis = json_object_get(p, "basis");
    if (basis != NULL) {
        if (!json_is_string(basis)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: provenance basis: expected a string, got %s", where,
                                   path, pdk_params_json_type(basis));
        }
        bool known = false;
        for (size_t i = 0; i < sizeof provenance_bases / sizeof provenance_bases[0]; i++) {
            known = known || strcmp(json_string_value(basis), provenance_bases[i]) == 0;
        }
        if (!known) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: basis \"%.40s\" is not one of oem, dataspeed, "
                                   "installed, fitted, derived, estimate",
                                   where, path, json_string_value(basis));
        }
    }
    const char *const texts[2] = {"source", "note"};
    for (int i = 0; i < 2; i++) {
        const json_t *t = json_object_get(p, texts[i]);
        if (t != NULL && !json_is_string(t)) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: provenance %s: expected a string, got %s", where, path,
                                   texts[i], pdk_params_json_type(t));
        }
    }
    const json_t *sd = json_object_get(p, "sd");
    const json_t *range = json_object_get(p, "range");
    if (sd == NULL && range == NULL) {
        *value_out = value;
        return PDK_OK;
    }
    bool numeric =
        key->type == PDK_KEY_NUMBER || key->type == PDK_KEY_INT || key->type == PDK_KEY_U64;
    if (!numeric || !json_is_number(value)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: provenance sd and range apply to a number only", where,
                               path);
    }
    if (sd != NULL && range != NULL) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: provenance gives sd or range, not both", where, path);
    }
    double x = json_number_value(value);
    if (sd != NULL &&
        !(json_is_number(sd) && json_number_value(sd) >= 0.0 && isfinite(json_number_value(sd)))) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: provenance sd must be a number at least 0", where, path);
    }
    if (range != NULL) {
        const json_t *lo = json_array_get(range, 0);
        const json_t *hi = json_array_get(range, 1);
        if (!json_is_array(range) || json_array_size(range) != 2 || !json_is_number(lo) ||
            !json_is_number(hi) || !(json_number_value(lo) <= json_number_value(hi))) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: provenance range must be [low, high] with low <= high",
                                   where, path);
        }
        if (!(x >= json_number_value(lo) && x <= json_number_value(hi))) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                   "%s: %s: value %.17g is outside its provenance range [%.17g, "
                                   "%.17g]",
                                   where, path, x, json_number_value(lo), json_number_value(hi));
        }
    }
    *value_out = value;
    return PDK_OK;
}

/* Whether an object found at a key is meant as a provenance object: it has
 * one of the six members. No key takes an object as its value; an object
 * there with none of them is left for pdk_resolve_check to refuse as the
 * wrong type. */
static bool is_provenance(const json_t *obj)
{
    for (size_t i = 0; i < sizeof provenance_keys / sizeof provenance_keys[0]; i++) {
        if (json_object_get(obj, provenance_keys[i]) != NULL) {
            return true;
        }
    }
    return false;
}

pdk_error pdk_provenance_strip(const pdk_schema *s, const char *path, json_t *group,
                               const char *where, char *err, size_t err_len)
{
    const char *name;
    json_t *child;
    void *tmp;
    json_object_foreach_safe(group, tmp, name, child)
    {
        char child_path[PDK_SCHEMA_PATH_LEN];
        int n = snprintf(child_path, sizeof child_path, "%s%s%s", path, path[0] ? "." : "", name);
        if (n < 0 || (size_t)n >= sizeof child_path || !json_is_object(child)) {
            continue;
        }
        size_t leaf = 0;
        pdk_schema_node kind = pdk_schema_classify(s, child_path, &leaf);
        if (kind == PDK_SCHEMA_GROUP) {
            pdk_error rc = pdk_provenance_strip(s, child_path, child, where, err, err_len);
            if (rc != PDK_OK) {
                return rc;
            }
        } else if (kind == PDK_SCHEMA_LEAF && is_provenance(child)) {
            const json_t *value = NULL;
            pdk_error rc =
                check_provenance(&s->keys[leaf], child_path, child, where, &value, err, err_len);
            if (rc != PDK_OK) {
                return rc;
            }
            if (json_object_set_new(group, name, json_deep_copy(value)) != 0) {
                return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", where);
            }
        }
    }
    return PDK_OK;
}
