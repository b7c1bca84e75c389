/* The params/ suites share this (test_params.c, test_presets.c): where the
 * shipped presets are, field-by-field comparison of definitions, a parse
 * that expects an error code, the message check and a preset listing.
 * Included once per suite, after its feature macros. */
#ifndef PDK_PARAMS_TEST_UTIL_H
#define PDK_PARAMS_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "params.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "../common/def_fields.h"

#define SAME_FIELD(f) ck_assert_msg(memcmp(&a->f, &b->f, sizeof a->f) == 0, "field %s differs", #f);

static inline void assert_same_vehicle(const pdk_vehicle_def *a, const pdk_vehicle_def *b)
{
    VEHICLE_FIELDS(SAME_FIELD)
}

static inline void assert_same_world(const pdk_world_def *a, const pdk_world_def *b)
{
    WORLD_FIELDS(SAME_FIELD)
}

/* Parses text as a vehicle with overrides, expecting code; returns the message. */
static inline const char *vparse_expect(const char *text, const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    err[0] = '\0';
    pdk_error rc =
        pdk_params_vehicle_parse(text, "test.json", overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "expected %s, got %s: %s", pdk_error_name(code), pdk_error_name(rc),
                  err);
    return err;
}

/* The resolved JSON parses back to exactly def (the round trip every
 * resolution promises). */
static inline void assert_reparses(const char *resolved, const pdk_vehicle_def *def)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def again;
    ck_assert_msg(pdk_params_vehicle_parse(resolved, "resolved", NULL, &again, NULL, err,
                                           sizeof err) == PDK_OK,
                  "%s", err);
    assert_same_vehicle(def, &again);
}

#define ASSERT_HAS(msg, part)                                                                      \
    ck_assert_msg(strstr((msg), (part)) != NULL, "'%s' lacks '%s'", msg, part)

typedef struct listing {
    char names[16][80];
    char descriptions[16][PDK_PARAMS_ERR_LEN];
    size_t n;
} listing;

static inline void collect_preset(const char *name, const char *description, void *ud)
{
    listing *l = ud;
    ck_assert_uint_lt(l->n, 16);
    snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
    snprintf(l->descriptions[l->n], sizeof l->descriptions[0], "%s", description);
    l->n++;
}

#endif
