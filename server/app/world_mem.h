/* The memory a session's world lives in (sim/world.h: the caller's block). */
#ifndef PDK_WORLD_MEM_H
#define PDK_WORLD_MEM_H

#include <stddef.h>

/* A block of at least bytes holding zeros, for pdk_world_init_zeroed,
 * 64-byte aligned, or NULL. A block of a huge page (2 MB) or more is a
 * fresh anonymous mapping aligned to 2 MB and rounded up to whole huge
 * pages: its pages are the kernel's zero pages until written, so a session
 * of maxVehicles 10,000 costs what its spawned cars use, and its creation
 * no more than a small one's (a whole world written at once took the loop
 * 130 ms at 10,000 and 3 s at 65,535, 1.4 GB). The kernel is asked to back it
 * with huge pages (madvise(MADV_HUGEPAGE); transparent huge pages in their
 * "madvise" mode, the usual default): every tick walks the whole world,
 * and on 4 KB pages a fleet of a thousand cars needs thousands of TLB
 * entries (ADR 0008). Where the kernel says no, 4 KB pages serve. Freed
 * with pdk_world_mem_free and the same bytes. */
void *pdk_world_mem_alloc(size_t bytes);

/* Frees a block of pdk_world_mem_alloc(bytes); NULL does nothing. */
void pdk_world_mem_free(void *mem, size_t bytes);

#endif
