/* The instruction-set builds of the simulation's hot code: the baseline
 * instruction set (on x86-64 SSE2, or whatever the platform has), AVX2 and
 * AVX-512 (x86-64, where the processor and the operating system have them),
 * and BEST, the widest one available. The four-wheel step (four_wheel.h,
 * ADR 0007, 0009) and the state hash (world.h, ADR 0014) have them; every
 * build gives the same results, bit for bit. */
#ifndef PDK_BUILDS_H
#define PDK_BUILDS_H

typedef enum pdk_fw_build {
    PDK_FW_BUILD_BEST,
    PDK_FW_BUILD_BASELINE,
    PDK_FW_BUILD_AVX2,
    PDK_FW_BUILD_AVX512
} pdk_fw_build;

/* 1 where this processor can run build, else 0. */
int pdk_fw_build_available(pdk_fw_build build);

/* The build that runs for build: BEST the widest available, one the
 * processor lacks the baseline. */
pdk_fw_build pdk_fw_build_resolve(pdk_fw_build build);

#endif
