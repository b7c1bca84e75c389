/* Spreading recurring events over their period (spread.h). */
#include "spread.h"

#include <string.h>

void pdk_spread_init(pdk_spread *sp, uint64_t period)
{
    memset(sp, 0, sizeof(*sp));
    sp->period = period > 0 ? period : 1;
    sp->bins = sp->period < PDK_SPREAD_BINS ? (uint32_t)sp->period : PDK_SPREAD_BINS;
}

void pdk_spread_add(pdk_spread *sp, uint64_t offset)
{
    sp->count[offset % sp->period * sp->bins / sp->period]++;
    sp->placed++;
}

uint64_t pdk_spread_pick(const pdk_spread *sp)
{
    if (sp->placed == 0)
        return 0;
    const uint32_t n = sp->bins;
    uint32_t least = sp->count[0];
    for (uint32_t b = 1; b < n; b++)
        least = sp->count[b] < least ? sp->count[b] : least;
    uint32_t best_first = 0, best_len = 0;
    for (uint32_t first = 0; first < n; first++) {
        /* Only where a run begins: its bin least crowded, the one before not. */
        if (sp->count[first] != least || sp->count[(first + n - 1) % n] == least)
            continue;
        uint32_t len = 0;
        while (len < n && sp->count[(first + len) % n] == least)
            len++;
        if (len > best_len) {
            best_first = first;
            best_len = len;
        }
    }
    if (best_len == 0) /* every bin as crowded: the circle is one run */
        best_len = n;
    /* The run's middle, bins [first, first + len) as a stretch of the period. */
    uint64_t twice_middle_bins = 2u * (uint64_t)best_first + best_len;
    return twice_middle_bins * sp->period / (2u * n) % sp->period;
}
