/* Fuzz target: any bytes as a drive script. The parser either accepts them
 * or names what was wrong; it never crashes, leaks or leaves a half-filled
 * script behind. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pdk_script s;
    char err[512];
    err[0] = '\0';
    pdk_error e = pdk_script_parse(text, "fuzz.json", &s, err, sizeof(err));
    if (e == PDK_OK) {
        for (size_t i = 1; i < s.n_steps; i++)
            if (!(s.steps[i].t_s >= s.steps[i - 1].t_s))
                abort();
        pdk_script_free(&s);
    } else if (err[0] == '\0' || s.steps != NULL || s.n_steps != 0) {
        abort();
    }
    free(text);
    return 0;
}
