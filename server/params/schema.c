/* What the vehicle and world schemas share (params_schema.h): finding a
 * key, a group or a choice by name, the "unknown key" message with its
 * suggestion, and the variants of a schema (the keys of one powertrain
 * kind). The keys themselves are schema_vehicle.c's and schema_world.c's. */
#include "params_schema.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params_internal.h"

const pdk_schema *pdk_schema_for(pdk_preset_kind kind)
{
    return kind == PDK_PRESET_WORLD ? &pdk_world_schema : &pdk_vehicle_schema;
}

/* ---- finding a path: each schema's keys in path order -------------------
 *
 * A preset's load names a key or a group for each of its hundreds of JSON
 * nodes; a pass over every key for each took a third of the load. Each
 * schema's keys are sorted by path once (their indices, ties in schema
 * order, so that the first of equal paths is found as a pass finds it),
 * and a path is found by binary search. Where the order could not be
 * made (no memory), the pass serves. */

typedef struct key_order {
    const pdk_schema *schema;
    size_t *index; /* keys' indices by path */
} key_order;

static key_order orders[2];
static pthread_once_t orders_once = PTHREAD_ONCE_INIT;
static const pdk_schema *sorting; /* the schema being sorted (under orders_once) */

static int compare_keys(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(sorting->keys[i].path, sorting->keys[j].path);
    return c != 0 ? c : (i > j) - (i < j);
}

static void make_orders(void)
{
    const pdk_schema *schemas[2] = {&pdk_vehicle_schema, &pdk_world_schema};
    for (size_t k = 0; k < 2; k++) {
        const pdk_schema *s = schemas[k];
        size_t *index = malloc((s->n_keys > 0 ? s->n_keys : 1) * sizeof *index);
        if (index == NULL) {
            continue;
        }
        for (size_t i = 0; i < s->n_keys; i++) {
            index[i] = i;
        }
        sorting = s;
        qsort(index, s->n_keys, sizeof *index, compare_keys);
        orders[k] = (key_order){s, index};
    }
    sorting = NULL;
}

/* Schema's keys' indices in path order, or NULL. */
static const size_t *order_of(const pdk_schema *schema)
{
    pthread_once(&orders_once, make_orders);
    for (size_t k = 0; k < 2; k++) {
        if (orders[k].schema == schema) {
            return orders[k].index;
        }
    }
    return NULL;
}

/* The first position in order whose key's path is not below path + "."
 * when group, else not below path. */
static size_t lower_bound(const pdk_schema *s, const size_t *order, const char *path, size_t len,
                          bool group)
{
    size_t lo = 0, hi = s->n_keys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *key = s->keys[order[mid]].path;
        int c = group ? strncmp(key, path, len) : strcmp(key, path);
        if (group && c == 0) {
            c = (unsigned char)key[len] - (unsigned char)'.';
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The index of the first key whose path is path, or SIZE_MAX. */
static size_t find_leaf(const pdk_schema *s, const char *path)
{
    const size_t *order = order_of(s);
    if (order == NULL) {
        for (size_t i = 0; i < s->n_keys; i++) {
            if (strcmp(s->keys[i].path, path) == 0) {
                return i;
            }
        }
        return SIZE_MAX;
    }
    size_t at = lower_bound(s, order, path, strlen(path), false);
    return at < s->n_keys && strcmp(s->keys[order[at]].path, path) == 0 ? order[at] : SIZE_MAX;
}

/* Whether some key's path starts with path and a '.'. */
static bool is_group(const pdk_schema *s, const char *path, size_t len)
{
    const size_t *order = order_of(s);
    if (order == NULL) {
        for (size_t i = 0; i < s->n_keys; i++) {
            if (strncmp(s->keys[i].path, path, len) == 0 && s->keys[i].path[len] == '.') {
                return true;
            }
        }
        return false;
    }
    size_t at = lower_bound(s, order, path, len, true);
    if (at >= s->n_keys) {
        return false;
    }
    const char *key = s->keys[order[at]].path;
    return strncmp(key, path, len) == 0 && key[len] == '.';
}

const pdk_param_key *pdk_schema_find_key(const pdk_schema *schema, const char *path)
{
    size_t i = find_leaf(schema, path);
    return i != SIZE_MAX ? &schema->keys[i] : NULL;
}

bool pdk_choice_value(const pdk_choice_set *set, const char *name, int *out)
{
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->items[i].name, name) == 0) {
            *out = set->items[i].value;
            return true;
        }
    }
    return false;
}

const char *pdk_choice_name(const pdk_choice_set *set, int value)
{
    for (size_t i = 0; i < set->n; i++) {
        if (set->items[i].value == value) {
            return set->items[i].name;
        }
    }
    return NULL;
}

pdk_schema_node pdk_schema_classify(const pdk_schema *s, const char *path, size_t *leaf)
{
    size_t len = strlen(path);
    if (len == 0) {
        return PDK_SCHEMA_GROUP;
    }
    size_t i = find_leaf(s, path);
    if (i != SIZE_MAX) {
        if (leaf != NULL) {
            *leaf = i;
        }
        return PDK_SCHEMA_LEAF;
    }
    return is_group(s, path, len) ? PDK_SCHEMA_GROUP : PDK_SCHEMA_NONE;
}

/* The schema path (key or group) closest to path, or "" when none is close;
 * with aliases, an override's, the aliases' names too. */
static void suggest(const pdk_schema *s, const char *path, bool aliases, char *out, size_t out_len)
{
    size_t best = SIZE_MAX;
    out[0] = '\0';
    for (size_t i = 0; aliases && i < s->n_aliases; i++) {
        const char *from = s->aliases[i].from;
        size_t limit = strlen(from) / 4 > 2 ? strlen(from) / 4 : 2;
        size_t d = pdk_params_edit_distance(path, from, limit);
        if (d <= limit && d < best) {
            best = d;
            snprintf(out, out_len, "%s", from);
        }
    }
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
            size_t limit = end / 4 > 2 ? end / 4 : 2;
            size_t d = pdk_params_edit_distance(path, cand, limit);
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
static void children(const pdk_schema *s, const char *group, char *out, size_t out_len)
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

pdk_error pdk_schema_unknown_key(const pdk_schema *s, const char *where, const char *path,
                                 const char *parent, bool aliases, char *err, size_t err_len)
{
    char hint[128];
    suggest(s, path, aliases, hint, sizeof hint);
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
/* Variants: the keys of one powertrain kind */

int pdk_schema_variant(const pdk_schema *s, json_t *doc, const void *def)
{
    if (s->variant_key == NULL) {
        return 0;
    }
    const pdk_param_key *key = pdk_schema_find_key(s, s->variant_key);
    PDK_ASSERT(key != NULL && key->type == PDK_KEY_CHOICE);
    const json_t *v = pdk_json_get_dotted(doc, key->path);
    int x;
    memcpy(&x, (const char *)def + key->offset, sizeof x);
    if (v != NULL) {
        bool known = pdk_choice_value(key->choices, json_string_value(v), &x);
        PDK_ASSERT(known);
    }
    return x;
}

bool pdk_schema_applies(const pdk_param_key *key, int variant)
{
    return key->only_for == 0 || (variant >= 0 && variant < 32 && (key->only_for >> variant) & 1u);
}

bool pdk_schema_resolved_when_given(const pdk_param_key *key, int variant)
{
    return variant >= 0 && variant < 32 && (key->resolved_when_given >> variant) & 1u;
}

void pdk_schema_variant_names(const pdk_choice_set *set, unsigned mask, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < set->n; i++) {
        int v = set->items[i].value;
        if (v < 0 || v >= 32 || ((mask >> v) & 1u) == 0) {
            continue;
        }
        int n = snprintf(out + used, len - used, "%s\"%s\"", used > 0 ? " or " : "",
                         set->items[i].name);
        if (n < 0 || (size_t)n >= len - used) {
            return;
        }
        used += (size_t)n;
    }
}

pdk_error pdk_schema_check_variant(const pdk_schema *s, json_t *doc, void *def, const char *where,
                                   char *err, size_t err_len)
{
    if (s->variant_key == NULL) {
        return PDK_OK;
    }
    s->defaults(def);
    int variant = pdk_schema_variant(s, doc, def);
    const pdk_param_key *vkey = pdk_schema_find_key(s, s->variant_key);
    for (size_t i = 0; i < s->n_keys; i++) {
        const pdk_param_key *key = &s->keys[i];
        if (pdk_schema_applies(key, variant) || pdk_json_get_dotted(doc, key->path) == NULL) {
            continue;
        }
        char names[96];
        pdk_schema_variant_names(vkey->choices, key->only_for, names, sizeof names);
        const char *here = pdk_choice_name(vkey->choices, variant);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: applies only when %s is %s, and here it is \"%s\"%s%s; "
                               "remove the key or change %s",
                               where, key->path, vkey->path, names, here != NULL ? here : "?",
                               key->otherwise != NULL ? ": " : "",
                               key->otherwise != NULL ? key->otherwise : "", vkey->path);
    }
    return PDK_OK;
}
