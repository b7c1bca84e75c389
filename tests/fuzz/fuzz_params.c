/* Fuzz target: a vehicle preset and an override string (split at the first
 * NUL byte of the input). Either is refused with a message, or the resolved
 * JSON parses back to the same definition. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    pdk_error e = pdk_params_vehicle_parse(text, "fuzz.json", overrides, &def, &json, err,
                                           sizeof(err));
    if (e != PDK_OK) {
        if (err[0] == '\0' || json != NULL)
            abort();
        free(text);
        return 0;
    }
    if (pdk_params_vehicle_parse(json, "resolved", NULL, &again, &json2, err, sizeof(err)) !=
            PDK_OK ||
        strcmp(json, json2) != 0 || memcmp(&def, &again, sizeof(def)) != 0)
        abort();
    free(json);
    free(json2);
    free(text);
    return 0;
}
