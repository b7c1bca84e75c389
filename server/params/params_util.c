/* The plumbing under the preset and script parsers: error messages, bounded
 * file reads, strict JSON loading with positions, reading a value at a
 * dotted path, number formatting and the edit distance behind "did you
 * mean". */
#define _POSIX_C_SOURCE 200809L

#include "params_internal.h"

#include "params.h"

#include <errno.h>
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

void pdk_params_format_number(double v, char buf[PDK_PARAMS_NUM_LEN])
{
    snprintf(buf, PDK_PARAMS_NUM_LEN, "%.15g", v);
    if (isfinite(v) && strtod(buf, NULL) != v) {
        snprintf(buf, PDK_PARAMS_NUM_LEN, "%.17g", v);
    }
}

size_t pdk_params_edit_distance(const char *a, const char *b, size_t limit)
{
    enum { MAX = 127 };
    size_t la = strlen(a);
    size_t lb = strlen(b);
    if (la > MAX || lb > MAX) {
        return limit + 1;
    }
    /* At least the difference in length: a suggestion's limit (a quarter
     * of the name, or two) rules out most names before the table. */
    if ((la > lb ? la - lb : lb - la) > limit) {
        return limit + 1;
    }
    /* Two rows of the classic dynamic programme. A row's smallest entry
     * never falls in the rows below it, so once it passes limit so does
     * the distance. */
    size_t prev[MAX + 1];
    size_t cur[MAX + 1];
    for (size_t j = 0; j <= lb; j++) {
        prev[j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u);
            size_t del = prev[j] + 1;
            size_t ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
            row_min = cur[j] < row_min ? cur[j] : row_min;
        }
        if (row_min > limit) {
            return limit + 1;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb] <= limit ? prev[lb] : limit + 1;
}
