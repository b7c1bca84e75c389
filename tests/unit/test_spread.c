/* Unit tests for spreading recurring events over their period
 * (server/app/spread.h): the first goes at 0, the next in the middle of
 * the widest stretch the others leave, eight placed one by one end an
 * eighth apart, a period shorter than the bins is cut tick by tick, and
 * offsets count modulo the period. ADR 0037. */
#include <check.h>
#include <stdint.h>

#include "spread.h"

/* The closest two of n offsets come around a period. */
static uint64_t closest(const uint64_t *at, int n, uint64_t period)
{
    uint64_t least = period;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            uint64_t d = at[i] > at[j] ? at[i] - at[j] : at[j] - at[i];
            d = d < period - d ? d : period - d;
            least = d < least ? d : least;
        }
    }
    return least;
}

START_TEST(the_first_goes_at_zero_the_second_opposite)
{
    pdk_spread sp;
    pdk_spread_init(&sp, 120);
    ck_assert_uint_eq(pdk_spread_pick(&sp), 0);
    pdk_spread_add(&sp, 0);
    uint64_t second = pdk_spread_pick(&sp);
    ck_assert_msg(second >= 58 && second <= 62, "second at %llu of 120",
                  (unsigned long long)second);
    /* Modulo the period: 240 is 0 again, and 0 is where the one is. */
    pdk_spread_init(&sp, 120);
    pdk_spread_add(&sp, 240);
    ck_assert_uint_eq(pdk_spread_pick(&sp), second);
}
END_TEST

START_TEST(eight_placed_one_by_one_end_an_eighth_apart)
{
    const uint64_t periods[] = {120, 600, 8333333};
    for (int p = 0; p < 3; p++) {
        const uint64_t period = periods[p];
        pdk_spread sp;
        pdk_spread_init(&sp, period);
        uint64_t at[8];
        for (int i = 0; i < 8; i++) {
            at[i] = pdk_spread_pick(&sp);
            ck_assert_msg(at[i] < period, "%llu outside %llu", (unsigned long long)at[i],
                          (unsigned long long)period);
            pdk_spread_add(&sp, at[i]);
        }
        /* Each at most a bin from its ideal place. */
        uint64_t bin = (period + PDK_SPREAD_BINS - 1) / PDK_SPREAD_BINS;
        uint64_t d = closest(at, 8, period);
        ck_assert_msg(d + 2 * bin >= period / 8, "period %llu: two only %llu apart",
                      (unsigned long long)period, (unsigned long long)d);
    }
}
END_TEST

START_TEST(a_short_period_is_cut_tick_by_tick)
{
    pdk_spread sp;
    pdk_spread_init(&sp, 5);
    pdk_spread_add(&sp, 0);
    pdk_spread_add(&sp, 1);
    ck_assert_uint_eq(pdk_spread_pick(&sp), 3); /* 2, 3, 4 free */
    pdk_spread_add(&sp, 3);
    uint64_t next = pdk_spread_pick(&sp);
    ck_assert_msg(next == 2 || next == 4, "next at %llu", (unsigned long long)next);
    /* Every tick taken once: the least crowded are all of them. */
    pdk_spread_init(&sp, 4);
    for (uint64_t t = 0; t < 4; t++)
        pdk_spread_add(&sp, t);
    ck_assert_uint_lt(pdk_spread_pick(&sp), 4);
    /* A period of one. */
    pdk_spread_init(&sp, 1);
    pdk_spread_add(&sp, 7);
    ck_assert_uint_eq(pdk_spread_pick(&sp), 0);
}
END_TEST

START_TEST(crowded_bins_take_the_least_crowded)
{
    pdk_spread sp;
    pdk_spread_init(&sp, 64);
    /* Two in every bin but 10..13, which hold one. */
    for (uint64_t t = 0; t < 64; t++) {
        pdk_spread_add(&sp, t);
        if (t < 10 || t > 13)
            pdk_spread_add(&sp, t);
    }
    uint64_t at = pdk_spread_pick(&sp);
    ck_assert_msg(at >= 11 && at <= 12, "at %llu", (unsigned long long)at);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spread");
    TCase *tc = tcase_create("spread");
    tcase_add_test(tc, the_first_goes_at_zero_the_second_opposite);
    tcase_add_test(tc, eight_placed_one_by_one_end_an_eighth_apart);
    tcase_add_test(tc, a_short_period_is_cut_tick_by_tick);
    tcase_add_test(tc, crowded_bins_take_the_least_crowded);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
