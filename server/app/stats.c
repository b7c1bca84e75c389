/* Tick-lateness histogram: recording and quantiles; the clock that times
 * a tick's parts, and the calling thread's CPU clock. */
#define _POSIX_C_SOURCE 200809L

#include "stats.h"

#include <string.h>
#include <time.h>

uint64_t pdk_tick_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t pdk_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pdk_lateness_reset(pdk_lateness *l)
{
    memset(l, 0, sizeof(*l));
}

/* 8333333 ns is 1/120 s, the tick period (NS_PER_S / PDK_TICK_HZ). */
const uint64_t pdk_lateness_bounds_ns[PDK_LATENESS_BOUNDS] = {
    100000u,  250000u,  500000u,   1000000u,  2000000u,
    4000000u, 8333333u, 16666666u, 50000000u, 100000000u,
};

void pdk_lateness_add(pdk_lateness *l, uint64_t late_ns, uint64_t period_ns)
{
    uint64_t b = late_ns / PDK_LATENESS_BUCKET_NS;
    if (b >= PDK_LATENESS_BUCKETS)
        b = PDK_LATENESS_BUCKETS - 1;
    l->buckets[b]++;
    l->count++;
    l->sum_ns += late_ns;
    if (late_ns > l->max_ns)
        l->max_ns = late_ns;
    if (late_ns > period_ns)
        l->overruns++;
    size_t c = 0;
    while (c < PDK_LATENESS_BOUNDS && late_ns > pdk_lateness_bounds_ns[c])
        c++;
    l->coarse[c]++;
}

double pdk_lateness_quantile_ms(const pdk_lateness *l, double p)
{
    if (l->count == 0)
        return 0.0;
    /* The smallest bucket whose cumulative count reaches p of all. */
    uint64_t want = (uint64_t)((double)l->count * p);
    if (want == 0)
        want = 1;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < PDK_LATENESS_BUCKETS; i++) {
        seen += l->buckets[i];
        if (seen >= want)
            return (double)(i + 1) * PDK_LATENESS_BUCKET_NS / 1e6;
    }
    return (double)PDK_LATENESS_BUCKETS * PDK_LATENESS_BUCKET_NS / 1e6;
}
