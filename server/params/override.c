/* Override syntax: "key=value;key=value" split into parts, dotted paths with
 * array indices (a.b[3]) parsed into segments, values read as JSON with bare
 * words taken as strings, and a path's tail applied inside a JSON value. What
 * a path or value means is params.c's business; this file only reads the
 * text and moves JSON. */
#include "params_internal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

pdk_error pdk_path_parse(const char *text, size_t len, pdk_path *out, char *why, size_t why_len)
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
        if (out->n_segs == PDK_PATH_MAX_SEGMENTS) {
            return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "key has more than %d parts",
                                   PDK_PATH_MAX_SEGMENTS);
        }
        pdk_path_seg *seg = &out->segs[out->n_segs++];
        seg->kind = PDK_PATH_NAME;
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
                if (index > PDK_PATH_INDEX_MAX) {
                    return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                           "index at character %zu is larger than %u", open + 1,
                                           PDK_PATH_INDEX_MAX);
                }
            }
            if (digits == 0 || i >= len || text[i] != ']') {
                return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                                       "bad index at character %zu (write [n] with n a "
                                       "non-negative integer)",
                                       open + 1);
            }
            i++;
            if (out->n_segs == PDK_PATH_MAX_SEGMENTS) {
                return pdk_params_fail(PDK_ERR_PARSE, why, why_len, "key has more than %d parts",
                                       PDK_PATH_MAX_SEGMENTS);
            }
            pdk_path_seg *iseg = &out->segs[out->n_segs++];
            iseg->kind = PDK_PATH_INDEX;
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

void pdk_path_format(const pdk_path *path, size_t n_segs, char *buf, size_t len)
{
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n_segs && i < path->n_segs; i++) {
        const pdk_path_seg *seg = &path->segs[i];
        int n;
        if (seg->kind == PDK_PATH_INDEX) {
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

void pdk_overrides_free(pdk_override *items, size_t n)
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
static pdk_error add_part(const char *part, size_t len, pdk_override **items, size_t *n, char *err,
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
    pdk_override *bigger = realloc(*items, (*n + 1) * sizeof **items);
    if (bigger == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "overrides: out of memory");
    }
    *items = bigger;
    pdk_override *item = &bigger[*n];
    item->text = dup_n(part, len);
    item->key = dup_n(key, key_len);
    item->value = dup_n(value, value_len);
    (*n)++;
    if (item->text == NULL || item->key == NULL || item->value == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "overrides: out of memory");
    }
    return PDK_OK;
}

pdk_error pdk_overrides_split(const char *overrides, pdk_override **out, size_t *n_out, char *err,
                              size_t err_len)
{
    *out = NULL;
    *n_out = 0;
    if (overrides == NULL) {
        return PDK_OK;
    }
    pdk_override *items = NULL;
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
                pdk_overrides_free(items, n);
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

pdk_error pdk_override_value(const char *text, json_t **out, char *why, size_t why_len)
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

json_t *pdk_json_get_dotted(json_t *doc, const char *dotted)
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

pdk_error pdk_json_set_member(json_t *obj, const char *name, json_t *value)
{
    json_t *existing = json_object_get(obj, name);
    if (existing != NULL && json_is_object(existing) && json_is_object(value)) {
        return json_object_update_recursive(existing, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
    }
    return json_object_set(obj, name, value) == 0 ? PDK_OK : PDK_ERR_NO_MEMORY;
}

/* Longest path text a message shows. */
#define SET_PATH_LEN 200

/* Walks root along the path's tail, creating what an append needs. */
pdk_error pdk_json_set_at(json_t *root, const pdk_path *path, size_t first, json_t *value,
                          const char *where, char *err, size_t err_len)
{
    json_t *cur = root;
    for (size_t i = first; i < path->n_segs; i++) {
        const pdk_path_seg *seg = &path->segs[i];
        bool last = i + 1 == path->n_segs;
        char here[SET_PATH_LEN];
        char next[SET_PATH_LEN];
        pdk_path_format(path, i, here, sizeof here);
        pdk_path_format(path, i + 1, next, sizeof next);
        json_t *child = NULL;
        if (seg->kind == PDK_PATH_INDEX) {
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
                child = path->segs[i + 1].kind == PDK_PATH_INDEX ? json_array() : json_object();
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
                return pdk_json_set_member(cur, seg->name, value);
            }
            child = json_object_get(cur, seg->name);
            if (child == NULL) {
                child = path->segs[i + 1].kind == PDK_PATH_INDEX ? json_array() : json_object();
                if (child == NULL || json_object_set_new(cur, seg->name, child) != 0) {
                    return PDK_ERR_NO_MEMORY;
                }
            }
        }
        cur = child;
    }
    return PDK_OK;
}
