/* The 64-bit state hash: a running value that takes one 64-bit word at a
 * time. Callers feed field values explicitly (never struct bytes, whose
 * padding is unspecified), so equal states always hash equal. */
#ifndef PDK_HASH_H
#define PDK_HASH_H

#include <stddef.h>
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

/* The wide hash for bulk state: eight independent lanes in two chains of four,
 * v and u. A step takes four words, one a lane, into chain v as add-rotate
 * (rotl(v, 23) + w) and then swaps the chains, so consecutive steps go to
 * alternate chains and a core runs them side by side instead of waiting on one
 * (a step's rotate and add are two cycles of latency; with two chains a step
 * costs one), far cheaper a word than pdk_hash_u64's serial multiply chain.
 * That is what lets a session hash its whole state every tick at about the
 * cost of reading it (docs/adr/0012, 0014). Each step is a bijection of the
 * lane for a given word and is not linear (the add's carries), so a change in
 * any word changes its lane, and a later word undoes it only by matching it
 * exactly; pdk_hash4_fold adds the chains lane by lane (u rotated by 32 bits,
 * a bijection in each) and feeds the four sums to the serial hash, whose
 * multiply chain mixes them. It detects divergence; it is not a cryptographic
 * hash. Words go to lanes in the order given: feeding the same values in
 * another grouping gives another hash.
 *
 * The chains are four-wide vectors (GCC vector extensions, as lanes.h), and
 * every function here is always inlined: a caller compiled for AVX-512
 * (world.c's hash builds, docs/adr/0014) takes a step as one rotate and one
 * add of a whole vector, and a four-word array as one load. The result is the
 * same bits on every processor: the operations are on integers. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi" /* vectors pass between inlined functions only */
#endif
typedef uint64_t pdk_u64x4 __attribute__((vector_size(4 * sizeof(uint64_t))));
#define PDK_HASH_INLINE static inline __attribute__((always_inline))

typedef struct pdk_hash4 {
    pdk_u64x4 v, u;
} pdk_hash4;

PDK_HASH_INLINE pdk_hash4 pdk_hash4_init(uint64_t seed)
{
    pdk_hash4 h = {{seed, seed ^ UINT64_C(0x9E3779B97F4A7C15), seed ^ UINT64_C(0xBF58476D1CE4E5B9),
                    seed ^ UINT64_C(0x94D049BB133111EB)},
                   {~seed, ~seed ^ UINT64_C(0x9E3779B97F4A7C15),
                    ~seed ^ UINT64_C(0xBF58476D1CE4E5B9), ~seed ^ UINT64_C(0x94D049BB133111EB)}};
    return h;
}

/* One word into each lane of chain v, rotl(v, 23) + w lane by lane; then
 * the chains swap, so the next step takes chain u. */
PDK_HASH_INLINE void pdk_hash4_step_(pdk_hash4 *h, pdk_u64x4 w)
{
    const pdk_u64x4 t = ((h->v << 23) | (h->v >> 41)) + w;
    h->v = h->u;
    h->u = t;
}

PDK_HASH_INLINE uint64_t pdk_hash_bits(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* A tail of n (1 to 3) words at p, padded with zero words. The vector is
 * put together from the words, not copied through memory: a wide load of
 * a partly written stack slot would wait for the narrow stores (a failed
 * store forward, some fifteen cycles). */
PDK_HASH_INLINE void pdk_hash4_tail_(pdk_hash4 *h, const unsigned char *p, size_t n)
{
    uint64_t w[3] = {0, 0, 0};
    memcpy(&w[0], p, sizeof w[0]);
    if (n > 1) {
        memcpy(&w[1], p + 8, sizeof w[1]);
    }
    if (n > 2) {
        memcpy(&w[2], p + 16, sizeof w[2]);
    }
    pdk_hash4_step_(h, (pdk_u64x4){w[0], w[1], w[2], 0});
}

/* One word into each lane. */
PDK_HASH_INLINE void pdk_hash4_take(pdk_hash4 *h, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    pdk_hash4_step_(h, (pdk_u64x4){a, b, c, d});
}

PDK_HASH_INLINE void pdk_hash4_f64x4(pdk_hash4 *h, double a, double b, double c, double d)
{
    pdk_hash4_take(h, pdk_hash_bits(a), pdk_hash_bits(b), pdk_hash_bits(c), pdk_hash_bits(d));
}

/* n doubles by their bit patterns, four at a time (one load each); a tail
 * of one to three is padded with zero words. */
PDK_HASH_INLINE void pdk_hash4_f64s(pdk_hash4 *h, const double *p, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        pdk_u64x4 w;
        memcpy(&w, p + i, sizeof w);
        pdk_hash4_step_(h, w);
    }
    if (i < n) {
        pdk_hash4_tail_(h, (const unsigned char *)(p + i), n - i);
    }
}

/* n words, four at a time; a tail is padded with zero words. */
PDK_HASH_INLINE void pdk_hash4_u64s(pdk_hash4 *h, const uint64_t *words, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        pdk_u64x4 w;
        memcpy(&w, words + i, sizeof w);
        pdk_hash4_step_(h, w);
    }
    if (i < n) {
        pdk_hash4_tail_(h, (const unsigned char *)(words + i), n - i);
    }
}

/* Folds the lanes into a running serial hash (pdk_hash_u64), so a wide
 * part can sit inside a serial one: the chains' sums lane by lane, u's
 * halves swapped, four words. */
PDK_HASH_INLINE uint64_t pdk_hash4_fold(uint64_t h, const pdk_hash4 *w)
{
    const pdk_u64x4 c = w->v + ((w->u << 32) | (w->u >> 32));
    for (int i = 0; i < 4; i++) {
        h = pdk_hash_u64(h, c[i]);
    }
    return h;
}

#endif
