/* The 64-bit state hash: a running value that takes one 64-bit word at a
 * time. Callers feed field values explicitly (never struct bytes, whose
 * padding is unspecified), so equal states always hash equal. */
#ifndef PDK_HASH_H
#define PDK_HASH_H

#include <stdint.h>
#include <string.h>

/* The starting value (the first 64 bits of pi's fraction). */
#define PDK_HASH_INIT UINT64_C(0x243F6A8885A308D3)

/* MurmurHash3's 64-bit finaliser (Austin Appleby, MurmurHash3, public
 * domain): a bijection in which every input bit flips each output bit with
 * probability close to 1/2. */
static inline uint64_t pdk_hash_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xFF51AFD7ED558CCD);
    x ^= x >> 33;
    x *= UINT64_C(0xC4CEB9FE1A85EC53);
    x ^= x >> 33;
    return x;
}

/* Takes one word. The running value is mixed before the word enters, so the
 * order of words matters and every earlier word reaches every later bit. */
static inline uint64_t pdk_hash_u64(uint64_t h, uint64_t word)
{
    return pdk_hash_fmix64(h + UINT64_C(0x9E3779B97F4A7C15)) ^ word;
}

/* Takes a double by its IEEE bit pattern (so -0.0 and 0.0 differ, as they
 * can in the state). */
static inline uint64_t pdk_hash_f64(uint64_t h, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return pdk_hash_u64(h, bits);
}

/* The final value, mixed once more so the last word is spread too. */
static inline uint64_t pdk_hash_finish(uint64_t h)
{
    return pdk_hash_fmix64(h ^ UINT64_C(0x13198A2E03707344));
}

#endif
