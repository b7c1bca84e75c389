/* The four-wheel step (four_wheel_step.h) compiled for AVX2, which
 * four_wheel.c's pdk_fw_step and pdk_fw_step_batch take where the processor
 * has it (__builtin_cpu_supports), so the library still runs on any x86-64.
 * The pragma below makes the compiler define __AVX__ and __AVX2__ for the
 * rest of this file, so that lanes.h and vmath.h give their primitives the
 * AVX instructions that do the same IEEE operations on all four lanes at
 * once (one sqrt, a blend for a select, a gather for a table lookup). The
 * vector operations are the same IEEE operations in both builds (no fused
 * multiply-add: -ffp-contract=off forbids forming them, and FMA is not
 * enabled), so the two give the same bits (tests/unit/test_four_wheel.c
 * checks it). four_wheel_avx512.c is the same step for AVX-512. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2")

#include "vehicle/four_wheel_step.h"

void pdk_fw_group_avx2(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                       const terrain_kind *tk, int substeps)
{
    step_group_n(vs, n, terrain, tk, substeps);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pdk_fw_avx_unused;
#endif
