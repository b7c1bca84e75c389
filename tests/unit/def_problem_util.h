/* The definition checks of the sim's parts share this (test_engine.c,
 * test_cvt.c, test_utv_mass.c, test_utv_gear.c): each case spoils one field
 * of a valid definition, and the check must refuse it with a message that
 * names the field. */
#ifndef PDK_DEF_PROBLEM_UTIL_H
#define PDK_DEF_PROBLEM_UTIL_H

#include <check.h>
#include <stddef.h>
#include <string.h>

/* For k in 0..n: a copy of the size bytes at good, spoiled by spoil(copy,
 * k), makes problem(copy) return a message containing fields[k]; and
 * problem(NULL) is a message too. */
static void assert_problems_name_fields(const void *good, size_t size,
                                        void (*spoil)(void *def, int k),
                                        const char *(*problem)(const void *def),
                                        const char *const *fields, int n)
{
    unsigned char copy[4096];
    ck_assert_uint_le(size, sizeof copy);
    ck_assert_ptr_null(problem(good));
    ck_assert_ptr_nonnull(problem(NULL));
    for (int k = 0; k < n; k++) {
        memcpy(copy, good, size);
        spoil(copy, k);
        const char *why = problem(copy);
        ck_assert_msg(why != NULL, "case %d accepted", k);
        ck_assert_msg(strstr(why, fields[k]) != NULL, "case %d: '%s' lacks '%s'", k, why,
                      fields[k]);
    }
}

#endif
