/* The single-track tick (single_track_step.h) compiled for AVX2, which
 * single_track.c's pdk_st_step_batch takes where the processor has it
 * (__builtin_cpu_supports), so the library still runs on any x86-64. The
 * pragma makes the compiler define __AVX__ and __AVX2__ for the rest of
 * this file, so that lanes.h gives its primitives the instructions that do
 * the same IEEE operations on four lanes at once; no fused multiply-add is
 * formed (-ffp-contract=off, FMA not enabled), so this build and the
 * baseline one give the same bits (tests/unit/test_single_track.c checks
 * it). ADR 0021 records why this second build is kept. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2")

#include "vehicle/single_track_step.h"

int pdk_st_groups_avx2(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                       const pdk_st_params *const *params, double *const *channels, int count,
                       int substeps)
{
    return st_step_groups(states, cmds, params, channels, count, substeps);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pdk_st_avx_unused;
#endif
