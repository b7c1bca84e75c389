/* The plumbing shared by the preset and drive-script parsers inside
 * params/ (params_util.c): error messages, bounded file reads, JSON loading
 * with line and column, reading a value at a dotted path, number
 * formatting and the edit distance behind "did you mean". Not a public
 * contract: only the .c files of params/ include it. */
#ifndef PDK_PARAMS_INTERNAL_H
#define PDK_PARAMS_INTERNAL_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/error.h"
#include "params.h"

/* Largest preset or script file read, in bytes. A preset is a few
 * kilobytes and an hour-long script at 120 steps a second is about 20 MB. */
#define PDK_PARAMS_PRESET_MAX_BYTES ((size_t)1 << 20)
#define PDK_PARAMS_SCRIPT_MAX_BYTES ((size_t)64 << 20)

/* Writes a formatted message into err (err_len bytes, always terminated,
 * truncated when too long) and returns code. err may be NULL or err_len 0.
 * The message is always valid UTF-8 without control characters: a byte that
 * breaks that (a quoted key's, or one split by truncation) becomes '?'. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
pdk_error
pdk_params_fail(pdk_error code, char *err, size_t err_len, const char *fmt, ...);

/* Reads a whole file into a malloc'd, NUL-terminated buffer (*out, *out_len
 * bytes without the NUL). A missing file returns missing_code; any other
 * failure, or a file larger than max_bytes, returns PDK_ERR_IO. Messages
 * start with the path. */
pdk_error pdk_params_read_file(const char *path, size_t max_bytes, pdk_error missing_code,
                               char **out, size_t *out_len, char *err, size_t err_len);

/* Parses JSON text strictly (no duplicate keys, one value, no trailing
 * garbage) and requires an object at the top. PDK_ERR_PARSE with
 * "origin: line L, column C: reason", or PDK_ERR_WRONG_TYPE when the top is
 * not an object. The caller owns *out (json_decref). */
pdk_error pdk_params_load_object(const char *text, size_t len, const char *origin, json_t **out,
                                 char *err, size_t err_len);

/* "number", "string", "object", ... for a JSON value, as error messages
 * say it: "expected a number, got string". */
const char *pdk_params_json_type(const json_t *value);

/* Formats v with the fewest digits (15 or 17) that read back as exactly v. */
#define PDK_PARAMS_NUM_LEN 32
void pdk_params_format_number(double v, char buf[PDK_PARAMS_NUM_LEN]);

/* Levenshtein distance between a and b where it is at most limit, else
 * limit + 1 (also when either is longer than 127 characters): a suggestion
 * wants only the close names, and a far one costs no table (an unknown key
 * is measured against every name of the schema). limit below SIZE_MAX. */
size_t pdk_params_edit_distance(const char *a, const char *b, size_t limit);

/* The longest name between dots in a key's path. */
#define PDK_PATH_NAME_MAX 64

/* The value at a dotted path of plain names ("tyres.front.friction") inside
 * the object doc, or NULL when any step is missing or not an object. */
json_t *pdk_json_get_dotted(json_t *doc, const char *dotted);

#endif
