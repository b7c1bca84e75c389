/* The world's pseudo-random number generator: xoshiro256** seeded through
 * splitmix64. Its four words are part of the world's state and its hash, so
 * a replay draws the same numbers at the same ticks. */
#ifndef PDK_PRNG_H
#define PDK_PRNG_H

#include <stdint.h>

typedef struct pdk_prng {
    uint64_t s[4];
} pdk_prng;

/* One step of splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): advances *state and returns
 * the next output. Used to expand a 64-bit seed into generator state. */
uint64_t pdk_prng_splitmix64(uint64_t *state);

/* Seeds the generator from any 64-bit value (zero included): the four words
 * are four splitmix64 outputs, which are never all zero. */
void pdk_prng_seed(pdk_prng *prng, uint64_t seed);

/* The next 64-bit output of xoshiro256** (Blackman and Vigna, "Scrambled
 * linear pseudorandom number generators", ACM TOMS 47(4), 2021). */
uint64_t pdk_prng_next(pdk_prng *prng);

/* A uniform double in [0, 1) from the top 53 bits of the next output. */
double pdk_prng_unit(pdk_prng *prng);

#endif
