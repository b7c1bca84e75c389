/* Spreading recurring events over their period: given where in a period
 * the events already placed fall, where a new one is furthest from them.
 * The server keeps sessions' keyframe ticks apart with it (ADR 0037), so
 * that the heaviest ticks of sessions side by side do not coincide. Fixed
 * memory, no allocation. */
#ifndef PDK_SPREAD_H
#define PDK_SPREAD_H

#include <stddef.h>
#include <stdint.h>

/* The period is cut into at most this many equal bins. */
#define PDK_SPREAD_BINS 64u

typedef struct pdk_spread {
    uint64_t period;
    uint32_t bins; /* PDK_SPREAD_BINS, or period when shorter */
    uint32_t count[PDK_SPREAD_BINS];
    size_t placed;
} pdk_spread;

/* An empty spread over period (> 0). */
void pdk_spread_init(pdk_spread *sp, uint64_t period);

/* One event already placed at offset (taken modulo the period). */
void pdk_spread_add(pdk_spread *sp, uint64_t offset);

/* Where a new event goes, in [0, period): 0 when none is placed; else the
 * middle of the longest run of the least crowded bins around the circle
 * (the first such run when several are as long). */
uint64_t pdk_spread_pick(const pdk_spread *sp);

#endif
