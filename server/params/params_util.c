/* The plumbing under the preset and script parsers: error messages, bounded
 * file reads, strict JSON loading with positions, number formatting, the
 * edit distance behind "did you mean", preset names and the listing of a
 * presets folder. */
#define _POSIX_C_SOURCE 200809L

#include "params_internal.h"

#include "params.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The length of the valid UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) starting at s, or 0 when there is none. */
static size_t utf8_sequence_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        return 1;
    }
    size_t n;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) {
            return 0; /* also stops at the terminating NUL */
        }
    }
    return n;
}

/* Messages quote what they were given (keys, names, override text), cut it
 * to a length (%.64s) and may be cut again by the buffer, and they travel
 * as protobuf strings, which must be UTF-8, and into logs: every byte that
 * does not begin a whole, valid UTF-8 sequence, and every ASCII control
 * character, becomes '?'. */
static void make_printable(char *text)
{
    unsigned char *s = (unsigned char *)text;
    for (size_t i = 0; s[i] != '\0';) {
        size_t n = utf8_sequence_len(s + i);
        if (n == 0 || (n == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
            s[i] = '?';
            n = 1;
        }
        i += n;
    }
}

pdk_error pdk_params_fail(pdk_error code, char *err, size_t err_len, const char *fmt, ...)
{
    if (err != NULL && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            err[0] = '\0';
        }
        make_printable(err);
    }
    return code;
}

pdk_error pdk_params_read_file(const char *path, size_t max_bytes, pdk_error missing_code,
                               char **out, size_t *out_len, char *err, size_t err_len)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
            return pdk_params_fail(missing_code, err, err_len, "%s: no such file (%s)", path,
                                   strerror(e));
        }
        return pdk_params_fail(PDK_ERR_IO, err, err_len, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int e = errno;
        fclose(f);
        return pdk_params_fail(PDK_ERR_IO, err, err_len, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        fclose(f);
        return pdk_params_fail(PDK_ERR_IO, err, err_len, "%s: is a directory, not a file", path);
    }
    /* Read in chunks rather than trusting st_size: pipes and /proc files
     * report 0, and a file may grow while it is read. */
    size_t cap = 4096;
    size_t len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", path);
    }
    for (;;) {
        if (len > max_bytes) {
            free(buf);
            fclose(f);
            return pdk_params_fail(PDK_ERR_IO, err, err_len,
                                   "%s: larger than the %zu-byte limit for this kind of file", path,
                                   max_bytes);
        }
        if (len + 1 >= cap) {
            /* Room for max_bytes + 1 bytes and the NUL, so an oversized
             * file is seen as such. */
            size_t next = cap * 2 < max_bytes + 2 ? cap * 2 : max_bytes + 2;
            char *bigger = realloc(buf, next);
            if (bigger == NULL) {
                free(buf);
                fclose(f);
                return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", path);
            }
            buf = bigger;
            cap = next;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return pdk_params_fail(PDK_ERR_IO, err, err_len, "%s: read failed: %s", path, strerror(e));
    }
    fclose(f);
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return PDK_OK;
}

pdk_error pdk_params_load_object(const char *text, size_t len, const char *origin, json_t **out,
                                 char *err, size_t err_len)
{
    *out = NULL;
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL) {
        if (json_error_code(&jerr) == json_error_out_of_memory) {
            return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
        }
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: line %d, column %d: %s", origin,
                               jerr.line, jerr.column, jerr.text);
    }
    if (!json_is_object(doc)) {
        pdk_error rc = pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                                       "%s: expected a JSON object at the top level, got %s",
                                       origin, pdk_params_json_type(doc));
        json_decref(doc);
        return rc;
    }
    *out = doc;
    return PDK_OK;
}

const char *pdk_params_json_type(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

void pdk_params_format_number(double v, char buf[PDK_PARAMS_NUM_LEN])
{
    snprintf(buf, PDK_PARAMS_NUM_LEN, "%.15g", v);
    if (isfinite(v) && strtod(buf, NULL) != v) {
        snprintf(buf, PDK_PARAMS_NUM_LEN, "%.17g", v);
    }
}

size_t pdk_params_edit_distance(const char *a, const char *b)
{
    enum { MAX = 127 };
    size_t la = strlen(a);
    size_t lb = strlen(b);
    if (la > MAX || lb > MAX) {
        return SIZE_MAX;
    }
    /* Two rows of the classic dynamic programme. */
    size_t prev[MAX + 1];
    size_t cur[MAX + 1];
    for (size_t j = 0; j <= lb; j++) {
        prev[j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u);
            size_t del = prev[j] + 1;
            size_t ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* ------------------------------------------------------------------------ */
/* Preset files and their listing */

const char *pdk_params_folder(pdk_preset_kind kind)
{
    return kind == PDK_PRESET_WORLD ? "worlds" : "vehicles";
}

bool pdk_params_valid_name(const char *name)
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
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s/%s", presets_dir, pdk_params_folder(kind));
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
        if (!pdk_params_valid_name(stem)) {
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
