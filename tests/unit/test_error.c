/* Unit tests for server/sim/error.h: every value's name and message, the
 * unknown value, value stability, and the always-on assert. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

typedef struct expected {
    pdk_error err;
    int value;
    const char *name;
    const char *message;
} expected;

/* Generated from the same list, so this checks the switch-based mapping in
 * error.c against the list, and the literal checks below pin a few values. */
static const expected all[] = {
#define EXPECTED_(name, value, message) {name, value, #name, message},
    PDK_ERROR_LIST(EXPECTED_)
#undef EXPECTED_
};
#define N_ALL (sizeof all / sizeof all[0])

START_TEST(test_every_value_has_its_name_and_message)
{
    for (size_t i = 0; i < N_ALL; i++) {
        ck_assert_int_eq((int)all[i].err, all[i].value);
        ck_assert_str_eq(pdk_error_name(all[i].err), all[i].name);
        ck_assert_str_eq(pdk_error_message(all[i].err), all[i].message);
        ck_assert_uint_gt(strlen(pdk_error_message(all[i].err)), 0);
        ck_assert_int_eq(strncmp(pdk_error_name(all[i].err), "PDK_", 4), 0);
        /* Names and messages are unique. */
        for (size_t j = 0; j < i; j++) {
            ck_assert_str_ne(pdk_error_name(all[j].err), pdk_error_name(all[i].err));
            ck_assert_str_ne(pdk_error_message(all[j].err), pdk_error_message(all[i].err));
            ck_assert_int_ne(all[j].value, all[i].value);
        }
    }
}
END_TEST

/* Values travel on the wire: these must never change. */
START_TEST(test_values_are_stable)
{
    ck_assert_int_eq(PDK_OK, 0);
    ck_assert_int_eq(PDK_ERR_INVALID_ARGUMENT, 1);
    ck_assert_int_eq(PDK_ERR_CAPACITY, 4);
    ck_assert_int_eq(PDK_ERR_STALE_ID, 5);
    ck_assert_int_eq(PDK_ERR_OUT_OF_RANGE, 9);
    ck_assert_int_eq(PDK_ERR_NET, 21);
    ck_assert_int_eq(PDK_ERR_UNAUTHENTICATED, 22);
    ck_assert_int_eq(PDK_ERR_PERMISSION_DENIED, 23);
    ck_assert_str_eq(pdk_error_name(PDK_ERR_STALE_ID), "PDK_ERR_STALE_ID");
    ck_assert_str_eq(pdk_error_message(PDK_OK), "ok");
}
END_TEST

START_TEST(test_unknown_value)
{
    int max = 0;
    for (size_t i = 0; i < N_ALL; i++) {
        max = all[i].value > max ? all[i].value : max;
    }
    const int unknown[] = {max + 1, 999, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        pdk_error e = (pdk_error)unknown[i];
        ck_assert_str_eq(pdk_error_name(e), "PDK_ERR_UNKNOWN");
        ck_assert_str_eq(pdk_error_message(e), "unknown error");
    }
}
END_TEST

START_TEST(test_assert_true_is_an_expression)
{
    int evaluated = 0;
    int x = (PDK_ASSERT(1 + 1 == 2), evaluated = 1, 7);
    ck_assert_int_eq(x, 7);
    ck_assert_int_eq(evaluated, 1);
}
END_TEST

START_TEST(test_assert_false_aborts)
{
    volatile int zero = 0;
    PDK_ASSERT(zero == 1);
}
END_TEST

static Suite *error_suite(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("error");
    tcase_add_test(tc, test_every_value_has_its_name_and_message);
    tcase_add_test(tc, test_values_are_stable);
    tcase_add_test(tc, test_unknown_value);
    tcase_add_test(tc, test_assert_true_is_an_expression);
    /* An abort can only be observed from a forked child. */
    const char *fork_mode = getenv("CK_FORK");
    if (fork_mode == NULL || strcmp(fork_mode, "no") != 0) {
        tcase_add_test_raise_signal(tc, test_assert_false_aborts, SIGABRT);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(error_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
