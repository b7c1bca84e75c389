/* Overrides: the "key=value;key=value" language a client or a command line
 * writes on top of a preset, and applying it to the preset's JSON document.
 * A key is a dotted path with indices (a.b[3]) that the schema (or one of
 * its aliases) must know down to a key or group; what follows a list,
 * curve or grid key addresses inside its value. A value is JSON, or a bare
 * word taken as a string. Each override is checked as the preset file is,
 * with messages that quote the override. */
#include "params_resolve.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params_internal.h"
#include "params_schema.h"

/* A parsed key: names and indices, e.g. tyres.front.friction or
 * a.b[3].c. */
#define KEY_MAX_SEGMENTS 16
#define KEY_INDEX_MAX 1000000u
typedef enum seg_kind {
    SEG_NAME = 0,
    SEG_INDEX = 1,
} seg_kind;

typedef struct override_seg {
    seg_kind kind;
    char name[PDK_PATH_NAME_MAX + 1]; /* SEG_NAME */
    size_t index;                     /* SEG_INDEX */
} override_seg;

typedef struct override_path {
    override_seg segs[KEY_MAX_SEGMENTS];
    size_t n_segs;
} override_path;

/* One "key=value" part of an override string, trimmed. */
typedef struct override_part {
    char *text;  /* the whole part, for messages */
    char *key;   /* the path text */
    char *value; /* the value text, possibly empty */
} override_part;

/* ------------------------------------------------------------------------ */
/* Reading the text: keys, parts and values */

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* A key's character as a message shows it: 'c' when printable ASCII, else
 * its byte value (a byte of a UTF-8 sequence is not a whole character). */
static void show_char(char c, char out[16])
{
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f) {
        snprintf(out, 16, "'%c'", c);
    } else {
        snprintf(out, 16, "byte 0x%02X", u);
    }
}

/* Parses text (len bytes) as a key: names of [A-Za-z0-9_-] separated by
 * '.', each optionally followed by indices "[n]". PDK_ERR_PARSE with the
 * reason in why (why_len bytes) otherwise. */
static pdk_error path_parse(const char *text, size_t len, override_path *out, char *why,
                            size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (len == 0) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "empty key");
    }
    size_t i = 0;
    while (i < len) {
        /* A name. */
        size_t start = i;
        while (i < len && is_name_char(text[i])) {
            i++;
        }
        size_t name_len = i - start;
        if (name_len == 0) {
            if (text[i] == '.') {
                return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                       "empty name at character %zu of the key", i + 1);
            }
            char shown[16];
            show_char(text[i], shown);
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                   "unexpected %s at character %zu of the key (names are ASCII "
                                   "letters, digits, '_' and '-', joined by '.')",
                                   shown, i + 1);
        }
        if (name_len > PDK_PATH_NAME_MAX) {
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                   "a name in the key is longer than %d characters",
                                   PDK_PATH_NAME_MAX);
        }
        if (out->n_segs == KEY_MAX_SEGMENTS) {
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "key has more than %d parts",
                                   KEY_MAX_SEGMENTS);
        }
        override_seg *seg = &out->segs[out->n_segs++];
        seg->kind = SEG_NAME;
        memcpy(seg->name, text + start, name_len);
        seg->name[name_len] = '\0';

        /* Any number of indices. */
        while (i < len && text[i] == '[') {
            size_t open = i;
            i++;
            size_t digits = 0;
            size_t index = 0;
            while (i < len && text[i] >= '0' && text[i] <= '9') {
                index = index * 10 + (size_t)(text[i] - '0');
                digits++;
                i++;
                if (index > KEY_INDEX_MAX) {
                    return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                           "index at character %zu is larger than %u", open + 1,
                                           KEY_INDEX_MAX);
                }
            }
            if (digits == 0 || i >= len || text[i] != ']') {
                return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                       "bad index at character %zu (write [n] with n a "
                                       "non-negative integer)",
                                       open + 1);
            }
            i++;
            if (out->n_segs == KEY_MAX_SEGMENTS) {
                return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "key has more than %d parts",
                                       KEY_MAX_SEGMENTS);
            }
            override_seg *iseg = &out->segs[out->n_segs++];
            iseg->kind = SEG_INDEX;
            iseg->index = index;
        }
        if (i == len) {
            break;
        }
        if (text[i] != '.') {
            char shown[16];
            show_char(text[i], shown);
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                   "unexpected %s at character %zu of the key (names are ASCII "
                                   "letters, digits, '_' and '-', joined by '.')",
                                   shown, i + 1);
        }
        i++;
        if (i == len) {
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "key ends with '.'");
        }
    }
    return PDK_OK;
}

/* Writes the first n_segs segments back as text ("a.b[3]"). */
static void path_format(const override_path *path, size_t n_segs, char *buf, size_t len)
{
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n_segs && i < path->n_segs; i++) {
        const override_seg *seg = &path->segs[i];
        int n;
        if (seg->kind == SEG_INDEX) {
            n = snprintf(buf + used, len - used, "[%zu]", seg->index);
        } else {
            n = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : ".", seg->name);
        }
        if (n < 0 || (size_t)n >= len - used) {
            return;
        }
        used += (size_t)n;
    }
}

/* Trims ASCII whitespace from both ends of [*start, *start + *len). */
static void trim(const char **start, size_t *len)
{
    while (*len > 0 && isspace((unsigned char)(*start)[0])) {
        (*start)++;
        (*len)--;
    }
    while (*len > 0 && isspace((unsigned char)(*start)[*len - 1])) {
        (*len)--;
    }
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void overrides_free(override_part *items, size_t n)
{
    if (items == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        free(items[i].text);
        free(items[i].key);
        free(items[i].value);
    }
    free(items);
}

/* Adds one trimmed, non-empty part to the list. */
static pdk_error add_part(const char *part, size_t len, override_part **items, size_t *n, char *err,
                          size_t err_len)
{
    const char *eq = memchr(part, '=', len);
    if (eq == NULL) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "override '%.*s': expected key=value",
                               (int)len, part);
    }
    const char *key = part;
    size_t key_len = (size_t)(eq - part);
    const char *value = eq + 1;
    size_t value_len = len - key_len - 1;
    trim(&key, &key_len);
    trim(&value, &value_len);
    if (key_len == 0) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "override '%.*s': empty key", (int)len,
                               part);
    }
    override_part *bigger = realloc(*items, (*n + 1) * sizeof **items);
    if (bigger == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "overrides: out of memory");
    }
    *items = bigger;
    override_part *item = &bigger[*n];
    item->text = dup_n(part, len);
    item->key = dup_n(key, key_len);
    item->value = dup_n(value, value_len);
    (*n)++;
    if (item->text == NULL || item->key == NULL || item->value == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "overrides: out of memory");
    }
    return PDK_OK;
}

/* Splits "key=value;key=value" into parts. Whitespace around parts, keys and
 * values is trimmed and empty parts are skipped; a ';' inside a double-quoted
 * JSON string does not split. NULL or blank gives zero parts. Errors:
 * PDK_ERR_PARSE (a part without '=', an empty key), PDK_ERR_NO_MEMORY.
 * Free *out with overrides_free. */
static pdk_error overrides_split(const char *overrides, override_part **out, size_t *n_out,
                                 char *err, size_t err_len)
{
    *out = NULL;
    *n_out = 0;
    if (overrides == NULL) {
        return PDK_OK;
    }
    override_part *items = NULL;
    size_t n = 0;
    const char *part = overrides;
    bool in_string = false;
    for (const char *p = overrides;; p++) {
        char c = *p;
        if (in_string && c == '\\' && p[1] != '\0') {
            p++;
            continue;
        }
        if (c == '"') {
            in_string = !in_string;
            continue;
        }
        if (c != '\0' && (c != ';' || in_string)) {
            continue;
        }
        const char *start = part;
        size_t len = (size_t)(p - part);
        trim(&start, &len);
        if (len > 0) {
            pdk_error rc = add_part(start, len, &items, &n, err, err_len);
            if (rc != PDK_OK) {
                overrides_free(items, n);
                return rc;
            }
        }
        if (c == '\0') {
            break;
        }
        part = p + 1;
    }
    *out = items;
    *n_out = n;
    return PDK_OK;
}

/* An override's value as JSON: a number, string, true/false, null, object or
 * array written as JSON; anything else that is not JSON is taken as a bare
 * string (simulation.model=singleTrack). Text that starts like JSON ('{',
 * '[', '"') but does not parse, or is made of a number's characters but is
 * not a JSON number (1e999, .5), is PDK_ERR_PARSE. */
static pdk_error override_value(const char *text, json_t **out, char *why, size_t why_len)
{
    *out = NULL;
    json_error_t jerr;
    json_t *value = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (value != NULL) {
        *out = value;
        return PDK_OK;
    }
    if (text[0] == '{' || text[0] == '[' || text[0] == '"') {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "value is not valid JSON: %s",
                               jerr.text);
    }
    /* Text made of a number's characters is meant as one: 1e999, a 20-digit
     * integer, .5 or +5 are refused with the reason rather than taken as a
     * word. */
    if (strpbrk(text, "0123456789") != NULL && strspn(text, "0123456789+-.eE") == strlen(text)) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "value '%.40s' is not a valid JSON number: %s", text, jerr.text);
    }
    value = json_string(text);
    if (value == NULL) {
        /* json_string refuses text that is not UTF-8. */
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "value is not valid UTF-8 text");
    }
    *out = value;
    return PDK_OK;
}

/* ------------------------------------------------------------------------ */
/* Applying overrides to a document */

/* Sets value (a reference is taken) as member name of the object obj; an
 * object merges into an existing object. PDK_ERR_NO_MEMORY on failure. */
static pdk_error set_member(json_t *obj, const char *name, json_t *value)
{
    json_t *existing = json_object_get(obj, name);
    if (existing != NULL && json_is_object(existing) && json_is_object(value)) {
        return json_object_update_recursive(existing, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
    }
    return json_object_set(obj, name, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
}

/* Longest path text a message shows. */
#define SET_PATH_LEN 200

/* Applies path's segments from first on inside root (a list's or curve's
 * whole value) and sets value (a reference is taken) there. An index
 * addresses an element of a list, or appends one when it equals the length
 * (creating a list or object to go on into); a name addresses a member of an
 * object; an object merges into an object. Errors, with where and the path
 * so far in the message: PDK_ERR_WRONG_TYPE (an index into a non-list, a
 * name into a non-object), PDK_ERR_OUT_OF_RANGE (an index past the end),
 * PDK_ERR_NO_MEMORY. root may be changed in part on error. */
static pdk_error set_at(json_t *root, const override_path *path, size_t first, json_t *value,
                        const char *where, char *err, size_t err_len)
{
    json_t *cur = root;
    for (size_t i = first; i < path->n_segs; i++) {
        const override_seg *seg = &path->segs[i];
        bool last = i + 1 == path->n_segs;
        char here[SET_PATH_LEN];
        char next[SET_PATH_LEN];
        path_format(path, i, here, sizeof here);
        path_format(path, i + 1, next, sizeof next);
        json_t *child = NULL;
        if (seg->kind == SEG_INDEX) {
            if (!json_is_array(cur)) {
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: %s is %s, not a list", where, next, here,
                                       pdk_params_json_type(cur));
            }
            size_t len = json_array_size(cur);
            if (seg->index > len) {
                return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                                       "%s: %s: index %zu is past the end of %s, which has %zu "
                                       "entries ([%zu] appends one)",
                                       where, next, seg->index, here, len, len);
            }
            if (last) {
                json_t *old = json_array_get(cur, seg->index);
                int r;
                if (old != NULL && json_is_object(old) && json_is_object(value)) {
                    r = json_object_update_recursive(old, value);
                } else if (old != NULL) {
                    r = json_array_set(cur, seg->index, value);
                } else {
                    r = json_array_append(cur, value);
                }
                return r == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
            }
            child = json_array_get(cur, seg->index);
            if (child == NULL) {
                child = path->segs[i + 1].kind == SEG_INDEX ? json_array() : json_object();
                if (child == NULL || json_array_append_new(cur, child) != 0) {
                    return PDK_ERR_NO_MEMORY;
                }
            }
        } else {
            if (!json_is_object(cur)) {
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: %s is %s, not an object", where, next, here,
                                       pdk_params_json_type(cur));
            }
            if (last) {
                return set_member(cur, seg->name, value);
            }
            child = json_object_get(cur, seg->name);
            if (child == NULL) {
                child = path->segs[i + 1].kind == SEG_INDEX ? json_array() : json_object();
                if (child == NULL || json_object_set_new(cur, seg->name, child) != 0) {
                    return PDK_ERR_NO_MEMORY;
                }
            }
        }
        cur = child;
    }
    return PDK_OK;
}

/* Sets value (a reference is taken) at the dotted path in doc, creating
 * groups on the way; an object merges into an existing object. */
static pdk_error set_path(json_t *doc, const override_path *path, size_t n_segs, json_t *value)
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
    return set_member(cur, path->segs[n_segs - 1].name, value);
}

/* Sets the override's value at key_text (the override's key, or a key an
 * alias of it stands for). */
static pdk_error apply_override_at(const pdk_schema *s, json_t *doc, const override_part *item,
                                   const char *key_text, const char *where, char *err,
                                   size_t err_len)
{
    char why[160];
    override_path path;
    if (path_parse(key_text, strlen(key_text), &path, why, sizeof why) != PDK_OK) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: %s", where, why);
    }
    /* Walk the schema along the path's names down to a key or group; what
     * follows a list or curve key (indices, and names inside a list's
     * entries) addresses its value. */
    char walked[PDK_SCHEMA_PATH_LEN] = "";
    size_t leaf = 0;
    size_t at = 0;
    for (; at < path.n_segs; at++) {
        const override_seg *seg = &path.segs[at];
        pdk_schema_node here = pdk_schema_classify(s, walked, &leaf);
        char next[PDK_SCHEMA_PATH_LEN];
        path_format(&path, at + 1, next, sizeof next);
        if (here == PDK_SCHEMA_LEAF) {
            pdk_key_type type = s->keys[leaf].type;
            bool listy = type == PDK_KEY_CURVE || type == PDK_KEY_LIST || type == PDK_KEY_GRID;
            if (listy && seg->kind == SEG_INDEX) {
                break;
            }
            if (seg->kind == SEG_INDEX) {
                return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: %s: %s is a single value, not an array", where, next,
                                       walked);
            }
            return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                                   "%s: %s: unknown key (%s is %s with no keys under it)", where,
                                   next, walked,
                                   listy ? "a list, indexed as [n]," : "a single value");
        }
        if (seg->kind == SEG_INDEX) {
            return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                   "%s: %s: %s is an object, not an array", where, next, walked);
        }
        if (pdk_schema_classify(s, next, NULL) == PDK_SCHEMA_NONE) {
            char parent[PDK_SCHEMA_PATH_LEN];
            snprintf(parent, sizeof parent, "%s", walked);
            return pdk_schema_unknown_key(s, where, next, parent, true, err, err_len);
        }
        snprintf(walked, sizeof walked, "%s", next);
    }

    json_t *value = NULL;
    if (override_value(item->value, &value, why, sizeof why) != PDK_OK) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: %s", where, why);
    }
    pdk_error rc = PDK_OK;
    if (at < path.n_segs) {
        /* Inside a list or curve: change a copy of its whole value, check
         * the whole, then put it in place of the old one. */
        const char *key_path = s->keys[leaf].path;
        json_t *old = pdk_json_get_dotted(doc, key_path);
        json_t *whole =
            old != NULL ? json_deep_copy(old) : pdk_resolve_default_json(s, &s->keys[leaf]);
        rc = whole == NULL ? PDK_ERR_NO_MEMORY
                           : set_at(whole, &path, at, value, where, err, err_len);
        json_decref(value);
        value = whole;
        if (rc == PDK_OK) {
            rc = pdk_resolve_check(s, key_path, value, where, err, err_len);
        }
    } else {
        rc = pdk_resolve_check(s, walked, value, where, err, err_len);
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

static pdk_error apply_override(const pdk_schema *s, json_t *doc, const override_part *item,
                                char *err, size_t err_len)
{
    char where[PDK_PARAMS_ERR_LEN / 2];
    snprintf(where, sizeof where, "override '%.200s'", item->text);
    bool aliased = false;
    for (size_t i = 0; i < s->n_aliases; i++) {
        if (strcmp(item->key, s->aliases[i].from) != 0) {
            continue;
        }
        aliased = true;
        pdk_error rc = apply_override_at(s, doc, item, s->aliases[i].to, where, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return aliased ? PDK_OK : apply_override_at(s, doc, item, item->key, where, err, err_len);
}

pdk_error pdk_overrides_apply(const pdk_schema *s, json_t *doc, const char *overrides,
                              size_t *n_parts, char *err, size_t err_len)
{
    override_part *items = NULL;
    size_t n_items = 0;
    pdk_error rc = overrides_split(overrides, &items, &n_items, err, err_len);
    for (size_t i = 0; i < n_items && rc == PDK_OK; i++) {
        rc = apply_override(s, doc, &items[i], err, err_len);
    }
    overrides_free(items, n_items);
    *n_parts = n_items;
    return rc;
}
