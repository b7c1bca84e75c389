/* What params.h promises for presets: loading a vehicle or world preset
 * from its file or from text (the steps of resolve.c, provenance.c and
 * override.c, in order), listing a presets folder, and describing every
 * key of a schema. */
#define _POSIX_C_SOURCE 200809L

#include "params.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "params_internal.h"
#include "params_resolve.h"
#include "params_schema.h"

/* ------------------------------------------------------------------------ */
/* Preset names and folders */

/* The folder of a kind of preset under the presets folder. */
static const char *preset_folder(pdk_preset_kind kind)
{
    return kind == PDK_PRESET_WORLD ? "worlds" : "vehicles";
}

/* A preset name: 1 to 64 characters of [A-Za-z0-9_-]; NULL is not one. */
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

/* ------------------------------------------------------------------------ */
/* Loading and parsing */

/* The steps before the overrides, which depend on the text alone: parsed,
 * its provenance objects giving way to their values, every key checked.
 * *doc_out is the document on success (the caller's), else NULL. */
static pdk_error prepare(const pdk_schema *s, const char *json_text, const char *origin,
                         json_t **doc_out, char *err, size_t err_len)
{
    *doc_out = NULL;
    json_t *doc = NULL;
    pdk_error rc = pdk_params_load_object(json_text, strlen(json_text), origin, &doc, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = pdk_provenance_strip(s, "", doc, origin, err, err_len);
    if (rc == PDK_OK) {
        rc = pdk_resolve_check(s, "", doc, origin, err, err_len);
    }
    if (rc != PDK_OK) {
        json_decref(doc);
        return rc;
    }
    *doc_out = doc;
    return PDK_OK;
}

/* The rest, on a prepared document, which it releases: the overrides
 * apply, and the definition is built, completed and checked as a whole.
 * On error *out is untouched. */
static pdk_error finish(const pdk_schema *s, json_t *doc, const char *origin, const char *overrides,
                        void *out, char **resolved_json, char *err, size_t err_len)
{
    size_t n_overrides = 0;
    pdk_error rc = pdk_overrides_apply(s, doc, overrides, &n_overrides, err, err_len);
    /* A rule between keys may be broken by the file or by its overrides:
     * its message names both when there were overrides. */
    char whole[PDK_PARAMS_ERR_LEN / 2];
    snprintf(whole, sizeof whole, "%s%s", origin, n_overrides > 0 ? " with its overrides" : "");

    /* A local copy, so *out is untouched on error. */
    union {
        pdk_vehicle_work vehicle;
        pdk_world_def world;
    } def;
    PDK_ASSERT(s->def_size <= sizeof def && s->out_size <= s->def_size);
    /* Only the kind's own bytes: a world is 80 KB (its grid), a vehicle
     * much less. */
    memset(&def, 0, s->def_size);
    json_t *resolved = NULL;
    if (rc == PDK_OK) {
        rc = pdk_schema_check_variant(s, doc, &def, whole, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = pdk_resolve_build(s, doc, origin, &def, &resolved, err, err_len);
    }
    json_decref(doc);
    if (rc == PDK_OK && s->complete != NULL) {
        s->complete(&def);
    }
    if (rc == PDK_OK && s->cross_check != NULL) {
        char why[PDK_PARAMS_ERR_LEN / 2];
        rc = s->cross_check(&def, resolved, why, sizeof why);
        if (rc != PDK_OK) {
            pdk_params_fail(rc, err, err_len, "%s: %s", whole, why);
        }
    }
    if (rc == PDK_OK) {
        const char *why = NULL;
        rc = s->model_check(&def, &why);
        if (rc != PDK_OK) {
            pdk_params_fail(rc, err, err_len,
                            "%s: every key is in range but the %s model refuses the "
                            "combination: %s",
                            whole, s->what, why != NULL ? why : pdk_error_message(rc));
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
        memcpy(out, &def, s->out_size);
    }
    return rc;
}

/* Resolves a preset document: prepare, then finish. On error *out is
 * untouched. */
static pdk_error resolve(const pdk_schema *s, const char *json_text, const char *origin,
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
    pdk_error rc = prepare(s, json_text, origin, &doc, err, err_len);
    return rc != PDK_OK ? rc : finish(s, doc, origin, overrides, out, resolved_json, err, err_len);
}

/* The names of a kind's presets, for the error that names a missing one. */
typedef struct name_list {
    char *buf;
    size_t len, used;
    int count;
} name_list;

static void add_name(const char *name, const char *description, void *ud)
{
    (void)description;
    name_list *l = ud;
    int n = snprintf(l->buf + l->used, l->len - l->used, "%s%s", l->count > 0 ? ", " : "", name);
    if (n > 0) {
        l->used += (size_t)n < l->len - l->used ? (size_t)n : l->len - l->used - 1;
    }
    l->count++;
}

/* A missing preset: the error names what the client asked for and the
 * presets there are, never the server's folders. Their names only: a
 * refusal must not cost the loop a parse of every preset (a client can ask
 * for a missing one as often as for any other). */
static pdk_error missing_preset(const pdk_schema *s, const char *presets_dir, const char *label,
                                char *err, size_t err_len)
{
    char names[PDK_PARAMS_ERR_LEN];
    name_list l = {names, sizeof names, 0, 0};
    names[0] = '\0';
    if (pdk_params_names(presets_dir, s->kind, add_name, &l) != PDK_OK || l.count == 0) {
        return pdk_params_fail(PDK_ERR_NOT_FOUND, err, err_len,
                               "%s does not exist: the server has no %s presets", label,
                               s->kind == PDK_PRESET_WORLD ? "world" : "vehicle");
    }
    return pdk_params_fail(PDK_ERR_NOT_FOUND, err, err_len, "%s is not one of: %s", label, names);
}

/* Reads preset name of s's kind into *text (malloc'd, the caller's) and
 * names it in label for messages; a load's errors, the server's folders
 * never in them. name is valid and presets_dir given. */
static pdk_error read_preset(const pdk_schema *s, const char *presets_dir, const char *name,
                             char **text, char label[static 96], char *err, size_t err_len)
{
    *text = NULL;
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s/%s.json", presets_dir, preset_folder(s->kind), name);
    if (n < 0 || (size_t)n >= sizeof path) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset '%s': the presets folder path is too long", name);
    }
    /* Errors go to a client: they name the preset as the client did, and
     * the server's folders stay out of them. */
    snprintf(label, 96, "%s preset \"%s\"", s->kind == PDK_PRESET_WORLD ? "world" : "vehicle",
             name);
    size_t len = 0;
    char why[PDK_PARAMS_ERR_LEN];
    pdk_error rc = pdk_params_read_file(path, PDK_PARAMS_PRESET_MAX_BYTES, PDK_ERR_NOT_FOUND, text,
                                        &len, why, sizeof why);
    if (rc == PDK_ERR_NOT_FOUND) {
        return missing_preset(s, presets_dir, label, err, err_len);
    }
    if (rc != PDK_OK) {
        /* read_file's sentences start with the path; the label replaces it. */
        size_t n_path = strlen(path);
        const char *rest = strncmp(why, path, n_path) == 0 ? why + n_path : ": cannot be read";
        return pdk_params_fail(rc, err, err_len, "%s%s", label, rest);
    }
    if (strlen(*text) != len) {
        free(*text);
        *text = NULL;
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: contains a NUL byte", label);
    }
    return PDK_OK;
}

static pdk_error bad_name(const char *name, char *err, size_t err_len)
{
    return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                           "preset name '%.80s' is not valid: use 1 to 64 characters of "
                           "A-Z a-z 0-9 _ -",
                           name != NULL ? name : "(null)");
}

static pdk_error load(const pdk_schema *s, const char *presets_dir, const char *name,
                      const char *overrides, void *out, char **resolved_json, char *err,
                      size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    if (!valid_name(name)) {
        return bad_name(name, err, err_len);
    }
    if (presets_dir == NULL || out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset '%s': no presets folder or no output definition given",
                               name);
    }
    char *text = NULL;
    char label[96];
    pdk_error rc = read_preset(s, presets_dir, name, &text, label, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = resolve(s, text, label, overrides, out, resolved_json, err, err_len);
    free(text);
    return rc;
}

/* A preset prepared (params.h): its kind's schema, the document, its label. */
struct pdk_params_doc {
    const pdk_schema *s;
    json_t *doc;
    char label[96];
};

pdk_error pdk_params_vehicle_doc(const char *presets_dir, const char *name, pdk_params_doc **out,
                                 char *err, size_t err_len)
{
    if (out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "no output document given");
    }
    *out = NULL;
    if (!valid_name(name)) {
        return bad_name(name, err, err_len);
    }
    if (presets_dir == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "preset '%s': no presets folder given", name);
    }
    pdk_params_doc *d = calloc(1, sizeof *d);
    if (d == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "preset '%s': out of memory", name);
    }
    d->s = pdk_schema_for(PDK_PRESET_VEHICLE);
    char *text = NULL;
    pdk_error rc = read_preset(d->s, presets_dir, name, &text, d->label, err, err_len);
    if (rc == PDK_OK) {
        rc = prepare(d->s, text, d->label, &d->doc, err, err_len);
    }
    free(text);
    if (rc != PDK_OK) {
        free(d);
        return rc;
    }
    *out = d;
    return PDK_OK;
}

pdk_error pdk_params_vehicle_from_doc(const pdk_params_doc *doc, const char *overrides,
                                      pdk_vehicle_def *out, char **resolved_json, char *err,
                                      size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    if (doc == NULL || out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "no prepared preset or no output definition given");
    }
    /* The overrides change the document: each load works on a copy. */
    json_t *copy = json_deep_copy(doc->doc);
    if (copy == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", doc->label);
    }
    return finish(doc->s, copy, doc->label, overrides, out, resolved_json, err, err_len);
}

void pdk_params_doc_free(pdk_params_doc *doc)
{
    if (doc != NULL) {
        json_decref(doc->doc);
        free(doc);
    }
}

pdk_error pdk_params_vehicle_load(const char *presets_dir, const char *name, const char *overrides,
                                  pdk_vehicle_def *out, char **resolved_json, char *err,
                                  size_t err_len)
{
    return load(pdk_schema_for(PDK_PRESET_VEHICLE), presets_dir, name, overrides, out,
                resolved_json, err, err_len);
}

pdk_error pdk_params_vehicle_parse(const char *json_text, const char *origin, const char *overrides,
                                   pdk_vehicle_def *out, char **resolved_json, char *err,
                                   size_t err_len)
{
    return resolve(pdk_schema_for(PDK_PRESET_VEHICLE), json_text, origin, overrides, out,
                   resolved_json, err, err_len);
}

pdk_error pdk_params_world_load(const char *presets_dir, const char *name, const char *overrides,
                                pdk_world_def *out, char **resolved_json, char *err, size_t err_len)
{
    return load(pdk_schema_for(PDK_PRESET_WORLD), presets_dir, name, overrides, out, resolved_json,
                err, err_len);
}

pdk_error pdk_params_world_parse(const char *json_text, const char *origin, const char *overrides,
                                 pdk_world_def *out, char **resolved_json, char *err,
                                 size_t err_len)
{
    return resolve(pdk_schema_for(PDK_PRESET_WORLD), json_text, origin, overrides, out,
                   resolved_json, err, err_len);
}

/* ------------------------------------------------------------------------ */
/* Listing */

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

/* The listing: each preset's name in order, to fn with its description
 * (describe) or with NULL. */
static pdk_error list(const char *presets_dir, pdk_preset_kind kind, bool describe,
                      pdk_preset_fn fn, void *ud)
{
    if (presets_dir == NULL || fn == NULL ||
        (kind != PDK_PRESET_VEHICLE && kind != PDK_PRESET_WORLD)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s/%s", presets_dir, preset_folder(kind));
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
            if (describe) {
                list_one(dir, names[i], fn, ud);
            } else {
                fn(names[i], NULL, ud);
            }
        }
    }
    for (size_t i = 0; i < n_names; i++) {
        free(names[i]);
    }
    free(names);
    return rc;
}

pdk_error pdk_params_list(const char *presets_dir, pdk_preset_kind kind, pdk_preset_fn fn, void *ud)
{
    return list(presets_dir, kind, true, fn, ud);
}

pdk_error pdk_params_names(const char *presets_dir, pdk_preset_kind kind, pdk_preset_fn fn,
                           void *ud)
{
    return list(presets_dir, kind, false, fn, ud);
}

/* ------------------------------------------------------------------------ */
/* Describing */

void pdk_params_describe(pdk_preset_kind kind, pdk_param_key_fn fn, void *ud)
{
    if (fn == NULL) {
        return;
    }
    const pdk_schema *s = pdk_schema_for(kind);
    union {
        pdk_vehicle_work vehicle;
        pdk_world_def world;
    } def;
    s->defaults(&def);
    const pdk_param_key *vkey =
        s->variant_key != NULL ? pdk_schema_find_key(s, s->variant_key) : NULL;
    for (size_t i = 0; i < s->n_keys; i++) {
        const pdk_param_key *key = &s->keys[i];
        char text[256];
        pdk_resolve_default_text(key, &def, text, sizeof text);
        /* A key of some variants says so first, and so do its list's
         * fields: "(powertrain.kind "utv" only) ...". */
        char scope[128] = "";
        if (key->only_for != 0 && vkey != NULL) {
            char names[96];
            pdk_schema_variant_names(vkey->choices, key->only_for, names, sizeof names);
            snprintf(scope, sizeof scope, "(%s %s only) ", vkey->path, names);
        }
        char key_description[1024];
        snprintf(key_description, sizeof key_description, "%s%s", scope, key->description);
        if (key->type == PDK_KEY_CURVE) {
            char unit[32];
            snprintf(unit, sizeof unit, "[m, %s]", key->unit);
            fn(key->path, unit, key->min, key->max, text, key_description, ud);
            continue;
        }
        fn(key->path, key->unit, key->min, key->max, text, key_description, ud);
        /* A list's entries' fields follow it, as path[].field. */
        for (size_t f = 0; key->type == PDK_KEY_LIST && f < key->list->n_fields; f++) {
            const pdk_param_key *fk = &key->list->fields[f];
            char path[128];
            if (key->list->bare) {
                snprintf(path, sizeof path, "%s[]", key->path);
            } else {
                snprintf(path, sizeof path, "%s[].%s", key->path, fk->path);
            }
            const char *dflt = "(required)";
            if (fk->optional && fk->type == PDK_KEY_CHOICE) {
                dflt = pdk_choice_name(fk->choices, 0);
            } else if (fk->optional) {
                /* 0 where it applies; a field that 0 does not fit (a
                 * patch's sizes) is given whenever it applies. */
                dflt = fk->min <= 0 && fk->max >= 0 ? "0" : "(optional)";
            }
            char field_description[1024];
            snprintf(field_description, sizeof field_description, "%s%s", scope, fk->description);
            fn(path, fk->unit, fk->min, fk->max, dflt != NULL ? dflt : "?", field_description, ud);
        }
    }
}
