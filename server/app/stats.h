/* Tick-lateness statistics: a fixed histogram of how late each tick started
 * against its deadline, with percentiles, overruns and skipped deadlines.
 * Fixed memory, no allocation, O(1) to record. */
#ifndef PDK_STATS_H
#define PDK_STATS_H

#include <stdint.h>

/* 10 µs buckets up to 100 ms; later ticks land in the last bucket. */
#define PDK_LATENESS_BUCKET_NS 10000u
#define PDK_LATENESS_BUCKETS 10000u

typedef struct pdk_lateness {
    uint32_t buckets[PDK_LATENESS_BUCKETS];
    uint64_t count;
    uint64_t max_ns;
    uint64_t overruns;      /* ticks that started a whole period or more late */
    uint64_t skipped;       /* deadlines dropped by bounded catch-up */
} pdk_lateness;

void pdk_lateness_reset(pdk_lateness *l);

/* Records one tick that started late_ns after its deadline. */
void pdk_lateness_add(pdk_lateness *l, uint64_t late_ns, uint64_t period_ns);

/* The p-quantile (0 < p <= 1) in milliseconds, bucket upper edge; 0 when empty. */
double pdk_lateness_quantile_ms(const pdk_lateness *l, double p);

#endif
