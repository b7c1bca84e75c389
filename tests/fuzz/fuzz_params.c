/* Fuzz target: a vehicle preset and an override string (split at the first
 * NUL byte of the input). Either is refused with a message that is valid
 * UTF-8, or the resolved JSON parses back to the same definition, field by
 * field (the structs have padding, which memcmp would compare). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

#include "../common/def_fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lists name leaf fields, so padding in a sub-struct never counts. */
#define SAME_FIELD(f) same = same && memcmp(&a->f, &b->f, sizeof a->f) == 0;

static bool same_vehicle(const pdk_vehicle_def *a, const pdk_vehicle_def *b)
{
    bool same = true;
    VEHICLE_FIELDS(SAME_FIELD)
    return same;
}

/* Valid UTF-8 (RFC 3629) without ASCII control characters. */
static bool printable_utf8(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s != '\0') {
        unsigned char c = *s;
        size_t n = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
            return false;
        }
        unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
        unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
        if (n > 1 && (s[1] < lo || s[1] > hi)) {
            return false;
        }
        for (size_t i = 2; i < n; i++) {
            if (s[i] < 0x80 || s[i] > 0xbf) {
                return false;
            }
        }
        s += n;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 2);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    text[size + 1] = '\0';
    const char *overrides = text + strlen(text) + 1;
    if (overrides > text + size)
        overrides = "";
    pdk_vehicle_def def, again;
    char *json = NULL, *json2 = NULL;
    char err[PDK_PARAMS_ERR_LEN];
    err[0] = '\0';
    pdk_error e =
        pdk_params_vehicle_parse(text, "fuzz.json", overrides, &def, &json, err, sizeof(err));
    if (e != PDK_OK) {
        if (err[0] == '\0' || json != NULL || !printable_utf8(err))
            abort();
        free(text);
        return 0;
    }
    if (pdk_params_vehicle_parse(json, "resolved", NULL, &again, &json2, err, sizeof(err)) !=
            PDK_OK ||
        strcmp(json, json2) != 0 || !same_vehicle(&def, &again))
        abort();
    free(json);
    free(json2);
    free(text);
    return 0;
}
