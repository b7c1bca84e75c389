/* Tick statistics: a fixed histogram of how late each tick started
 * against its deadline, with percentiles, overruns and skipped deadlines;
 * and where the ticks' time went, part by part. Fixed memory, no
 * allocation, O(1) to record. */
#ifndef PDK_STATS_H
#define PDK_STATS_H

#include <stdint.h>

/* 10 µs buckets up to 100 ms; later ticks land in the last bucket. */
#define PDK_LATENESS_BUCKET_NS 10000u
#define PDK_LATENESS_BUCKETS 10000u

/* Coarser buckets for /metrics, each at most its bound (ns) and more than
 * the one before; one bound is the 120 Hz period, so the ticks above it
 * are the overruns. */
#define PDK_LATENESS_BOUNDS 10
extern const uint64_t pdk_lateness_bounds_ns[PDK_LATENESS_BOUNDS];

typedef struct pdk_lateness {
    uint32_t buckets[PDK_LATENESS_BUCKETS];
    uint64_t count;
    uint64_t max_ns;
    uint64_t sum_ns;
    uint64_t overruns; /* ticks that started more than a whole period late */
    uint64_t skipped;  /* deadlines dropped by bounded catch-up */
    /* by pdk_lateness_bounds_ns; the last, later than every bound */
    uint64_t coarse[PDK_LATENESS_BOUNDS + 1];
} pdk_lateness;

void pdk_lateness_reset(pdk_lateness *l);

/* Records one tick that started late_ns after its deadline. */
void pdk_lateness_add(pdk_lateness *l, uint64_t late_ns, uint64_t period_ns);

/* The p-quantile (0 < p <= 1) in milliseconds, bucket upper edge; 0 when empty. */
double pdk_lateness_quantile_ms(const pdk_lateness *l, double p);

/* Where a session's ticks went since it began: each part of its tick
 * timed on the monotonic clock and summed, on whichever thread ran the
 * tick (SessionInfo.tick_parts; bench_server prints the mean a tick). */
typedef struct pdk_tick_parts {
    uint64_t ticks;
    uint64_t inputs_ns;   /* scripts' steps, hosted proxies' poses, queued inputs applied and recorded */
    uint64_t step_ns;     /* the world's step */
    uint64_t hash_ns;     /* state hashes, for the recording */
    uint64_t keyframe_ns; /* keyframes encoded (their writer packs and writes them) */
    uint64_t publish_ns;  /* state, telemetry, contact and DBW report frames encoded and handed on */
} pdk_tick_parts;

/* The monotonic clock in ns. */
uint64_t pdk_tick_clock_ns(void);

/* The calling thread's CPU time in ns (0 where it cannot be read): what
 * work cost its thread, which neither a preemption nor a stopped process
 * inflates. */
uint64_t pdk_thread_cpu_ns(void);

#endif
