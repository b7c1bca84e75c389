/* The four-wheel step (four_wheel_step.h) compiled for AVX-512 (F, VL, DQ,
 * BW), which four_wheel.c takes before the AVX2 build where the processor
 * and the operating system have it. Its vectors stay 256 bits wide
 * (prefer-vector-width=256; the step's lanes are four doubles): what it
 * gains is the instruction set's 32 vector registers in place of 16. A Magic
 * Formula evaluation keeps some forty four-lane values alive at once, which
 * the AVX2 build spills to the stack and reloads; here most stay in
 * registers, and the step is about 10 % faster (ADR 0008).
 *
 * The same bits as the other builds (tests/unit/test_four_wheel.c checks
 * it), with one care: AVX-512F brings fused multiply-add, and GCC 12's
 * vectorizer turns an alternating add and subtract of products into a fused
 * multiply-add-subtract whatever -ffp-contract says. The step's vectors
 * are written out by hand (lanes.h), so this file is compiled without the
 * vectorizers (server/sim/CMakeLists.txt), and no fused operation is left
 * (the test would see one). It is also tuned for the AVX-512 processors
 * (-mtune=skylake-avx512, there), which only orders and chooses
 * instructions differently: some 6 % off a lone car's step. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,avx512f,avx512vl,avx512dq,avx512bw,prefer-vector-width=256")

#include "vehicle/four_wheel_step.h"

void pdk_fw_group_avx512(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                         const terrain_kind *tk, int substeps)
{
    step_group_n(vs, n, terrain, tk, substeps);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pdk_fw_avx512_unused;
#endif
