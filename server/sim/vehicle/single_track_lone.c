/* The single-track tick (single_track_step.h) compiled for a vehicle
 * stepped alone, a world of one or pdk_st_step: one vehicle in both lanes
 * of an SSE2 register instead of four lanes of which three are copies.
 * Its lanes agree, so a select is a branch that skips the operand it does
 * not take, as a scalar version of the formula would; each lane still
 * performs the operations a lane of the four-lane builds performs, so the
 * bits are theirs (tests/unit/test_single_track.c compares them on random
 * fleets). Compiled for AVX2 like single_track_avx.c (three-operand
 * instructions, blends for the selects inside trig.h's functions), and
 * taken by single_track.c's pdk_st_step_batch where the processor has it.
 * ADR 0021 records why this build is kept. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2")
#define ST_LONE 1

#include "vehicle/single_track_step.h"

int pdk_st_step_lone(pdk_st_state *st, const pdk_st_cmd *cmd, const pdk_st_params *p, double *ch,
                     int substeps)
{
    return st_step_groups(&st, &cmd, &p, &ch, 1, substeps);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pdk_st_lone_unused;
#endif
