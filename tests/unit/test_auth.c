/* auth.c: the --auth file's digests and lookups, the role an identity has
 * on a session (owner, patterns, admin and operator, join-token grants)
 * and the loopback test of a listen address. The file's errors against the
 * real paddockd are in tests/integration/test_auth_integration.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"

/* The digest is SHA-256's (FIPS 180-4's "abc" example). */
START_TEST(sha256_is_sha256)
{
    uint8_t d[32];
    pdk_auth_sha256("abc", 3, d);
    static const uint8_t want[32] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                     0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                     0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                     0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
    ck_assert_mem_eq(d, want, 32);
}
END_TEST

/* A key is found by its digest only: the right key, not a prefix, not
 * empty, not one longer than the limit. */
START_TEST(keys_are_found_by_digest)
{
    char path[] = "/tmp/pdk-auth-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    uint8_t d[32];
    pdk_auth_sha256("secret-1", 8, d);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    char text[256];
    int n =
        snprintf(text, sizeof(text),
                 "{\"keys\": [{\"name\": \"a\", \"role\": \"driver\", \"sha256\": \"%s\"}]}", hex);
    ck_assert_int_eq(write(fd, text, (size_t)n), n);
    close(fd);
    pdk_auth *a = NULL;
    char err[256];
    ck_assert_int_eq(pdk_auth_load(path, &a, err, sizeof(err)), PDK_OK);
    unlink(path);
    const pdk_identity *id = pdk_auth_find(a, "secret-1");
    ck_assert_ptr_nonnull(id);
    ck_assert_str_eq(id->name, "a");
    ck_assert_int_eq(id->role, PDK_ROLE_DRIVER);
    ck_assert_ptr_null(pdk_auth_find(a, "secret-"));
    ck_assert_ptr_null(pdk_auth_find(a, "secret-12"));
    ck_assert_ptr_null(pdk_auth_find(a, ""));
    char *huge = malloc(PDK_AUTH_MAX_KEY_BYTES + 2);
    memset(huge, 'x', PDK_AUTH_MAX_KEY_BYTES + 1);
    huge[PDK_AUTH_MAX_KEY_BYTES + 1] = '\0';
    ck_assert_ptr_null(pdk_auth_find(a, huge));
    free(huge);
    ck_assert_ptr_null(pdk_auth_find(NULL, "secret-1"));
    pdk_auth_free(a);
}
END_TEST

static pdk_identity who(const char *name, pdk_role role, const char *pattern)
{
    pdk_identity id;
    memset(&id, 0, sizeof(id));
    snprintf(id.name, sizeof(id.name), "%s", name);
    id.role = role;
    if (pattern) {
        snprintf(id.patterns[0], sizeof(id.patterns[0]), "%s", pattern);
        id.n_patterns = 1;
    }
    return id;
}

START_TEST(roles_on_sessions)
{
    pdk_identity alice = who("alice", PDK_ROLE_DRIVER, NULL);
    pdk_identity ops = who("ops", PDK_ROLE_OPERATOR, NULL);
    pdk_identity boss_hil = who("boss", PDK_ROLE_ADMIN, "hil-*");
    pdk_identity eve = who("eve", PDK_ROLE_VIEWER, NULL);
    /* Owners have their role; strangers none; unknown owners none. */
    ck_assert_int_eq(pdk_auth_role_on(&alice, "run", "alice", PDK_ROLE_NONE), PDK_ROLE_DRIVER);
    ck_assert_int_eq(pdk_auth_role_on(&alice, "run", "bob", PDK_ROLE_NONE), PDK_ROLE_NONE);
    ck_assert_int_eq(pdk_auth_role_on(&alice, "", "", PDK_ROLE_NONE), PDK_ROLE_NONE);
    /* Operators and admins without patterns reach everything, known or not. */
    ck_assert_int_eq(pdk_auth_role_on(&ops, "run", "bob", PDK_ROLE_NONE), PDK_ROLE_OPERATOR);
    ck_assert_int_eq(pdk_auth_role_on(&ops, "", "", PDK_ROLE_NONE), PDK_ROLE_OPERATOR);
    /* Patterns limit even an admin. */
    ck_assert_int_eq(pdk_auth_role_on(&boss_hil, "hil-3", "bob", PDK_ROLE_NONE), PDK_ROLE_ADMIN);
    ck_assert_int_eq(pdk_auth_role_on(&boss_hil, "run", "bob", PDK_ROLE_NONE), PDK_ROLE_NONE);
    /* A grant gives its role, never above the key's own. */
    ck_assert_int_eq(pdk_auth_role_on(&alice, "run", "bob", PDK_ROLE_VIEWER), PDK_ROLE_VIEWER);
    ck_assert_int_eq(pdk_auth_role_on(&alice, "run", "bob", PDK_ROLE_ADMIN), PDK_ROLE_DRIVER);
    ck_assert_int_eq(pdk_auth_role_on(&eve, "run", "bob", PDK_ROLE_DRIVER), PDK_ROLE_VIEWER);
    ck_assert(!pdk_auth_role_changes(PDK_ROLE_VIEWER));
    ck_assert(!pdk_auth_role_changes(PDK_ROLE_NONE));
    ck_assert(pdk_auth_role_changes(PDK_ROLE_AUTONOMY));
    ck_assert_str_eq(pdk_auth_role_name(PDK_ROLE_AUTONOMY), "autonomy");
    ck_assert_str_eq(pdk_auth_role_name(PDK_ROLE_NONE), "none");
    ck_assert_str_eq(pdk_auth_local()->name, "local");
    ck_assert_int_eq(pdk_auth_local()->role, PDK_ROLE_ADMIN);
}
END_TEST

START_TEST(loopback_addresses)
{
    ck_assert(pdk_auth_loopback("127.0.0.1:7420"));
    ck_assert(pdk_auth_loopback("127.4.5.6:0"));
    ck_assert(pdk_auth_loopback("[::1]:7420"));
    ck_assert(pdk_auth_loopback("localhost:7420"));
    ck_assert(!pdk_auth_loopback("0.0.0.0:7420"));
    ck_assert(!pdk_auth_loopback("[::]:7420"));
    ck_assert(!pdk_auth_loopback("192.168.1.2:7420"));
    ck_assert(!pdk_auth_loopback("example.com:7420"));
    ck_assert(!pdk_auth_loopback("128.0.0.1:7420"));
}
END_TEST

static Suite *auth_suite(void)
{
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("auth");
    tcase_add_test(tc, sha256_is_sha256);
    tcase_add_test(tc, keys_are_found_by_digest);
    tcase_add_test(tc, roles_on_sessions);
    tcase_add_test(tc, loopback_addresses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(auth_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
