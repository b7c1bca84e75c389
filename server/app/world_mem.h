/* The memory a session's world lives in (sim/world.h: the caller's block). */
#ifndef PDK_WORLD_MEM_H
#define PDK_WORLD_MEM_H

#include <stddef.h>

/* A block of at least bytes for pdk_world_init, 64-byte aligned, or NULL.
 * A block of a huge page (2 MB) or more is aligned to 2 MB, rounded up to
 * whole huge pages (up to 2 MB more than bytes), and the kernel
 * is asked to back it with huge pages (madvise(MADV_HUGEPAGE); transparent
 * huge pages in their "madvise" mode, the usual default): every tick walks
 * the whole world, and on 4 KB pages a fleet of a thousand cars needs
 * thousands of TLB entries (ADR 0008). Where the kernel says no, the
 * block is an ordinary one. Freed with free(). */
void *pdk_world_mem_alloc(size_t bytes);

#endif
