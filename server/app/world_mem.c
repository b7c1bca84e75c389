/* A world's memory, zeros, on huge pages where it is large enough
 * (world_mem.h). */
#define _DEFAULT_SOURCE

#include "world_mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

static size_t mapped_bytes(size_t bytes)
{
    return (bytes + HUGE_PAGE_BYTES - 1u) & ~(HUGE_PAGE_BYTES - 1u);
}

void *pdk_world_mem_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE_BYTES) {
        size_t rounded = (bytes + 63u) & ~(size_t)63u;
        void *mem = aligned_alloc(64, rounded);
        if (mem != NULL) {
            memset(mem, 0, rounded);
        }
        return mem;
    }
    if (bytes > SIZE_MAX - 2 * HUGE_PAGE_BYTES) {
        return NULL;
    }
    /* A mapping a huge page longer than needed, trimmed at both ends to
     * the 2 MB boundary inside it. */
    size_t rounded = mapped_bytes(bytes);
    size_t span = rounded + HUGE_PAGE_BYTES;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        return NULL;
    }
    uintptr_t at = ((uintptr_t)raw + HUGE_PAGE_BYTES - 1u) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1u);
    char *mem = (char *)at;
    size_t head = (size_t)(mem - raw);
    if (head > 0) {
        (void)munmap(raw, head);
    }
    if (span - head > rounded) {
        (void)munmap(mem + rounded, span - head - rounded);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(mem, rounded, MADV_HUGEPAGE); /* a hint: refused, 4 KB pages serve */
#endif
    return mem;
}

void pdk_world_mem_free(void *mem, size_t bytes)
{
    if (mem == NULL) {
        return;
    }
    if (bytes < HUGE_PAGE_BYTES) {
        free(mem);
        return;
    }
    (void)munmap(mem, mapped_bytes(bytes));
}
