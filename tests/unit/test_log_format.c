/* paddockd's log lines as events (log_format.c): the component from the
 * line's prefix, the level from its stream and words, and the message
 * quoted so that any byte a line may hold gives a valid logfmt value and
 * valid JSON. The streams themselves are tested end to end with the real
 * paddockd (tests/integration/test_log_format.py). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "log_format.h"

static const char *line(pdk_log_format f, bool err, const char *text)
{
    static char out[1024];
    pdk_log_format_line(f, err, "2026-12-07T03:15:29.123Z", text, strlen(text), out, sizeof out);
    return out;
}

START_TEST(components_and_levels)
{
    ck_assert_str_eq(line(PDK_LOG_LOGFMT, false, "paddockd net: listening on 127.0.0.1:7420"),
                     "ts=2026-12-07T03:15:29.123Z level=info component=net "
                     "msg=\"listening on 127.0.0.1:7420\"");
    ck_assert_str_eq(line(PDK_LOG_LOGFMT, true, "paddock store: /d.db: the disk is full"),
                     "ts=2026-12-07T03:15:29.123Z level=warn component=store "
                     "msg=\"/d.db: the disk is full\"");
    ck_assert_str_eq(line(PDK_LOG_LOGFMT, true, "paddockd: Cannot listen on 1.2.3.4:1"),
                     "ts=2026-12-07T03:15:29.123Z level=error component=server "
                     "msg=\"Cannot listen on 1.2.3.4:1\"");
    ck_assert_str_eq(line(PDK_LOG_LOGFMT, false, "paddockd: agones: ready"),
                     "ts=2026-12-07T03:15:29.123Z level=info component=agones msg=\"ready\"");
    /* A line without a known prefix is the server's, whole. */
    ck_assert_str_eq(line(PDK_LOG_JSON, false, "paddockd 0.1.0 (build x) listening"),
                     "{\"ts\":\"2026-12-07T03:15:29.123Z\",\"level\":\"info\",\"component\":"
                     "\"server\",\"msg\":\"paddockd 0.1.0 (build x) listening\"}");
    ck_assert_str_eq(line(PDK_LOG_TEXT, true, "paddockd: as written"), "paddockd: as written");
}
END_TEST

START_TEST(messages_are_quoted_whatever_they_hold)
{
    /* Quotes, backslashes, a tab, a control byte, UTF-8 kept, a stray
     * byte of no UTF-8 sequence replaced. */
    ck_assert_str_eq(line(PDK_LOG_JSON, false, "paddockd: a \"b\" \\c\td\x01 \xc3\xa9 \xff"),
                     "{\"ts\":\"2026-12-07T03:15:29.123Z\",\"level\":\"info\",\"component\":"
                     "\"server\",\"msg\":\"a \\\"b\\\" \\\\c\\td\\u0001 \xc3\xa9 ?\"}");
    ck_assert_str_eq(line(PDK_LOG_LOGFMT, false, "paddockd: cut \xe2\x82"),
                     "ts=2026-12-07T03:15:29.123Z level=info component=server msg=\"cut ??\"");
    /* A buffer too small cuts the line, NUL-terminated. */
    char small[16];
    size_t n = pdk_log_format_line(PDK_LOG_LOGFMT, false, "t", "paddockd: long line", 19, small,
                                   sizeof small);
    ck_assert_uint_eq(n, sizeof small - 1);
    ck_assert_uint_eq(strlen(small), n);
}
END_TEST

START_TEST(format_names)
{
    pdk_log_format f;
    ck_assert(pdk_log_format_parse("logfmt", &f) && f == PDK_LOG_LOGFMT);
    ck_assert(pdk_log_format_parse("json", &f) && f == PDK_LOG_JSON);
    ck_assert(pdk_log_format_parse("text", &f) && f == PDK_LOG_TEXT);
    ck_assert(!pdk_log_format_parse("xml", &f));
    ck_assert(!pdk_log_format_parse("", &f));
}
END_TEST

static Suite *log_format_suite(void)
{
    Suite *s = suite_create("log_format");
    TCase *tc = tcase_create("lines");
    tcase_add_test(tc, components_and_levels);
    tcase_add_test(tc, messages_are_quoted_whatever_they_hold);
    tcase_add_test(tc, format_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(log_format_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
