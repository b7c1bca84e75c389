/* The steps of resolving a preset document, in the order params.c runs
 * them: provenance objects give way to their values (provenance.c), every
 * value is checked against the schema (resolve.c), the overrides apply
 * (override.c), and the definition and its resolved JSON are built
 * (resolve.c). Not a public contract: only the .c files of params/ include
 * it. */
#ifndef PDK_PARAMS_RESOLVE_H
#define PDK_PARAMS_RESOLVE_H

#include <jansson.h>
#include <stddef.h>

#include "sim/error.h"
#include "params_schema.h"

/* Replaces each provenance object ({value, basis, source, sd | range,
 * note}) at a key of the group at path ("" for the top) in the document
 * group by its value, after checking it against the key; the rest of the
 * object is for the preset's readers. Objects at paths the schema does not
 * know are left for pdk_resolve_check to name. Errors name where and the
 * key: PDK_ERR_UNKNOWN_KEY, PDK_ERR_WRONG_TYPE, PDK_ERR_OUT_OF_RANGE,
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_provenance_strip(const pdk_schema *s, const char *path, json_t *group,
                               const char *where, char *err, size_t err_len);

/* Checks value, found at path (a key or group of s, "" for the whole
 * document), and everything under it: known keys, types, bounds, choice
 * names, curves, lists and grids. where prefixes messages: the file, or the
 * override. */
pdk_error pdk_resolve_check(const pdk_schema *s, const char *path, const json_t *value,
                            const char *where, char *err, size_t err_len);

/* Applies overrides ("key=value;key=value", NULL or "" for none) to doc, a
 * checked document, each checked as the document was; *n_parts is how many
 * key=value parts the text held. Errors: PDK_ERR_PARSE (syntax, a value
 * that is not JSON), PDK_ERR_UNKNOWN_KEY, PDK_ERR_WRONG_TYPE,
 * PDK_ERR_OUT_OF_RANGE, PDK_ERR_NO_MEMORY, with the override quoted in the
 * message. doc may be changed in part on error. */
pdk_error pdk_overrides_apply(const pdk_schema *s, json_t *doc, const char *overrides,
                              size_t *n_parts, char *err, size_t err_len);

/* Fills def (s->def_size bytes) from the checked document, key by key,
 * starting from the schema's defaults, and builds the resolved JSON beside
 * it (*resolved_out, the caller's to json_decref). A default outside its
 * key's bounds is PDK_ERR_OUT_OF_RANGE; out of memory PDK_ERR_NO_MEMORY;
 * messages start with origin. */
pdk_error pdk_resolve_build(const pdk_schema *s, json_t *doc, const char *origin, void *def,
                            json_t **resolved_out, char *err, size_t err_len);

/* A list, curve or grid key's value as the defaults hold it, in resolved
 * JSON: what an index in an override reaches into when the preset leaves
 * the key out (a utv's engine.torqueCurve). NULL when out of memory. */
json_t *pdk_resolve_default_json(const pdk_schema *s, const pdk_param_key *key);

/* A key's value in def as describe shows it (text, len bytes): a number in
 * the key's unit, a name, a curve as JSON, "[]" for an empty list. */
void pdk_resolve_default_text(const pdk_param_key *key, const void *def, char *text, size_t len);

#endif
