/* Helpers shared by the preset and drive-script parsers inside params/:
 * error messages, bounded file reads, JSON loading with line and column,
 * number formatting, preset names and folders, dotted paths with indices
 * (a.b[3]), the "key=value;key=value" override syntax and setting a value
 * inside a JSON list by such a path. Not a public contract: only the .c
 * files of params/ include it. */
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

/* A preset name: 1 to 64 characters of [A-Za-z0-9_-]; NULL is not one. */
bool pdk_params_valid_name(const char *name);

/* The folder of a kind of preset under the presets folder: "vehicles" or
 * "worlds". */
const char *pdk_params_folder(pdk_preset_kind kind);

/* Levenshtein distance between a and b; SIZE_MAX when either is longer than
 * 127 characters. */
size_t pdk_params_edit_distance(const char *a, const char *b);

/* A parsed dotted path: names and indices, e.g. tyres.front.friction or
 * a.b[3].c. */
#define PDK_PATH_MAX_SEGMENTS 16
#define PDK_PATH_NAME_MAX 64
#define PDK_PATH_INDEX_MAX 1000000u
typedef enum pdk_path_seg_kind {
    PDK_PATH_NAME = 0,
    PDK_PATH_INDEX = 1,
} pdk_path_seg_kind;

typedef struct pdk_path_seg {
    pdk_path_seg_kind kind;
    char name[PDK_PATH_NAME_MAX + 1]; /* PDK_PATH_NAME */
    size_t index;                     /* PDK_PATH_INDEX */
} pdk_path_seg;

typedef struct pdk_path {
    pdk_path_seg segs[PDK_PATH_MAX_SEGMENTS];
    size_t n_segs;
} pdk_path;

/* Parses text (len bytes) as a path: names of [A-Za-z0-9_-] separated by
 * '.', each optionally followed by indices "[n]". PDK_ERR_PARSE with the
 * reason in why (why_len bytes) otherwise. */
pdk_error pdk_path_parse(const char *text, size_t len, pdk_path *out, char *why, size_t why_len);

/* Writes the first n_segs segments back as text ("a.b[3]"). */
void pdk_path_format(const pdk_path *path, size_t n_segs, char *buf, size_t len);

/* One "key=value" part of an override string, trimmed. */
typedef struct pdk_override {
    char *text;  /* the whole part, for messages */
    char *key;   /* the path text */
    char *value; /* the value text, possibly empty */
} pdk_override;

/* Splits "key=value;key=value" into parts. Whitespace around parts, keys and
 * values is trimmed and empty parts are skipped; a ';' inside a double-quoted
 * JSON string does not split. NULL or blank gives zero parts. Errors:
 * PDK_ERR_PARSE (a part without '=', an empty key), PDK_ERR_NO_MEMORY.
 * Free *out with pdk_overrides_free. */
pdk_error pdk_overrides_split(const char *overrides, pdk_override **out, size_t *n_out, char *err,
                              size_t err_len);
void pdk_overrides_free(pdk_override *items, size_t n);

/* An override's value as JSON: a number, string, true/false, null, object or
 * array written as JSON; anything else that is not JSON is taken as a bare
 * string (simulation.model=singleTrack). Text that starts like JSON ('{',
 * '[', '"') but does not parse, or is made of a number's characters but is
 * not a JSON number (1e999, .5), is PDK_ERR_PARSE. */
pdk_error pdk_override_value(const char *text, json_t **out, char *why, size_t why_len);

/* The value at a dotted path of plain names ("tyres.front.friction") inside
 * the object doc, or NULL when any step is missing or not an object. */
json_t *pdk_json_get_dotted(json_t *doc, const char *dotted);

/* Sets value (a reference is taken) as member name of the object obj; an
 * object merges into an existing object. PDK_ERR_NO_MEMORY on failure. */
pdk_error pdk_json_set_member(json_t *obj, const char *name, json_t *value);

/* Applies path's segments from first on inside root (a list's or curve's
 * whole value) and sets value (a reference is taken) there. An index
 * addresses an element of a list, or appends one when it equals the length
 * (creating a list or object to go on into); a name addresses a member of an
 * object; an object merges into an object. Errors, with where and the path
 * so far in the message: PDK_ERR_WRONG_TYPE (an index into a non-list, a
 * name into a non-object), PDK_ERR_OUT_OF_RANGE (an index past the end),
 * PDK_ERR_NO_MEMORY. root may be changed in part on error. */
pdk_error pdk_json_set_at(json_t *root, const pdk_path *path, size_t first, json_t *value,
                          const char *where, char *err, size_t err_len);

/* Provenance (provenance.c): whether an object found at a key is meant as
 * a provenance object {value, basis, source, sd | range, note} (it has one
 * of the six members), and its check against key: value required, basis
 * one of oem, dataspeed, installed, fitted, derived, estimate, source and
 * note strings, sd (>= 0) or range ([low, high] holding the value), not
 * both, only on a number. On success *value_out is its value (borrowed).
 * Errors name where and path. */
struct pdk_param_key;
bool pdk_params_is_provenance(const json_t *obj);
pdk_error pdk_params_check_provenance(const struct pdk_param_key *key, const char *path,
                                      const json_t *provenance, const char *where,
                                      const json_t **value_out, char *err, size_t err_len);

#endif
