/* A world's memory, on huge pages where it is large enough (world_mem.h). */

#include "world_mem.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

void *pdk_world_mem_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE_BYTES) {
        return aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    }
    size_t rounded = (bytes + HUGE_PAGE_BYTES - 1u) & ~(HUGE_PAGE_BYTES - 1u);
    void *mem = aligned_alloc(HUGE_PAGE_BYTES, rounded);
#ifdef MADV_HUGEPAGE
    if (mem != NULL) {
        (void)madvise(mem, rounded, MADV_HUGEPAGE); /* a hint: refused, 4 KB pages serve */
    }
#endif
    return mem;
}
