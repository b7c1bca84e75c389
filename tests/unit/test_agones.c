/* The Agones agent's reading of a watched GameServer (agones.c): the
 * state and the two labels paddockd acts on, in the shapes the SDK's REST
 * gateway sends, and the lines it must refuse without acting. The agent's
 * HTTP side is tested end to end against a stand-in sidecar
 * (tests/integration/test_agones.py). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "agones.h"

static bool parse(const char *line, bool *allocated, char *session, char *world)
{
    char err[160];
    return pdk_agones_parse_gameserver(line, allocated, session, world, err, sizeof err);
}

START_TEST(a_watched_allocation_with_its_labels)
{
    bool allocated;
    char session[PDK_AGONES_NAME_LEN + 1], world[PDK_AGONES_NAME_LEN + 1];
    ck_assert(parse("{\"result\":{\"object_meta\":{\"name\":\"gs-1\",\"labels\":{"
                    "\"paddock.dev/session\":\"match-7\",\"paddock.dev/world\":\"flat\"}},"
                    "\"status\":{\"state\":\"Allocated\"}}}",
                    &allocated, session, world));
    ck_assert(allocated);
    ck_assert_str_eq(session, "match-7");
    ck_assert_str_eq(world, "flat");
    /* GET /gameserver's shape (no "result"), camelCase, not yet allocated,
     * no labels. */
    ck_assert(parse("{\"objectMeta\":{\"name\":\"gs-1\"},\"status\":{\"state\":\"Ready\"}}",
                    &allocated, session, world));
    ck_assert(!allocated);
    ck_assert_str_eq(session, "");
    ck_assert_str_eq(world, "");
}
END_TEST

START_TEST(lines_that_are_not_a_gameserver_are_refused)
{
    bool allocated = true;
    char session[PDK_AGONES_NAME_LEN + 1], world[PDK_AGONES_NAME_LEN + 1], err[160];
    ck_assert(
        !pdk_agones_parse_gameserver("{\"result\": ", &allocated, session, world, err, sizeof err));
    ck_assert_msg(strstr(err, "not JSON"), "%s", err);
    ck_assert(!allocated);
    ck_assert(!pdk_agones_parse_gameserver("{\"error\":{\"code\":14}}", &allocated, session, world,
                                           err, sizeof err));
    ck_assert_msg(strstr(err, "not a GameServer"), "%s", err);
    char line[512];
    char longname[PDK_AGONES_NAME_LEN + 2];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(line, sizeof line,
             "{\"object_meta\":{\"labels\":{\"paddock.dev/session\":\"%s\"}},"
             "\"status\":{\"state\":\"Allocated\"}}",
             longname);
    ck_assert(!pdk_agones_parse_gameserver(line, &allocated, session, world, err, sizeof err));
    ck_assert_msg(strstr(err, "longer than 64 bytes"), "%s", err);
}
END_TEST

static Suite *agones_suite(void)
{
    Suite *s = suite_create("agones");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, a_watched_allocation_with_its_labels);
    tcase_add_test(tc, lines_that_are_not_a_gameserver_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(agones_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
