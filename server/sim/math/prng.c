/* xoshiro256** and splitmix64, the world's deterministic random source. */
#include "math/prng.h"

uint64_t pdk_prng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void pdk_prng_seed(pdk_prng *prng, uint64_t seed)
{
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) {
        prng->s[i] = pdk_prng_splitmix64(&sm);
    }
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t pdk_prng_next(pdk_prng *prng)
{
    uint64_t *s = prng->s;
    uint64_t result = rotl(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double pdk_prng_unit(pdk_prng *prng)
{
    /* 2^-53: every double in [0, 1) on the 53-bit grid is equally likely. */
    return (double)(pdk_prng_next(prng) >> 11) * 0x1.0p-53;
}
