/* A vehicle's state record with its zero 8-byte words left out (snapshot.proto
 * VehicleSnapshot.state_words): a keyframe packs every live vehicle's record
 * this way, about 640 words each, two thirds of them zero. Three builds give
 * the same bytes (builds.h): the baseline walks the words one by one; AVX2 and
 * AVX-512 take four words at once, find the nonzero ones by one compare and
 * move them to the front of the vector (a table permute for AVX2, a compress
 * for AVX-512), then store the whole vector and step past the nonzero words
 * only. Packing is most of a keyframe's encode, which is why it has builds
 * (docs/adr/0019); it reads a record where it lies, as the spans of the
 * world's memory it is made of (sim/snapshot.h), so that a keyframe never
 * copies a record before packing it. */
#include "wire_internal.h"

#include <string.h>

#include "sim/builds.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_PACK_BUILDS 1
#else
#define HAVE_PACK_BUILDS 0
#endif

/* One word at p to w, its bit ORed into the bitmap out at word i. Without
 * a branch on the word (whether a word is zero follows the state): the
 * word is written, and the write position moves past it only if nonzero;
 * out has room for every word. */
static inline uint8_t *pack_one(const uint8_t *p, size_t i, uint8_t *out, uint8_t *w)
{
    uint64_t v;
    memcpy(&v, p, 8u);
    memcpy(w, &v, 8u);
    const unsigned nonzero = v != 0u;
    out[i / 8u] |= (uint8_t)(nonzero << (i % 8u));
    return w + 8u * nonzero;
}

/* Four words at rec to w, the nonzero ones first; returns their mask: the
 * baseline build's, word by word. */
static inline unsigned four_scalar(const uint8_t *rec, uint8_t *w)
{
    unsigned mask = 0u;
    for (unsigned j = 0; j < 4u; j++) {
        uint64_t v;
        memcpy(&v, rec + 8u * j, 8u);
        memcpy(w, &v, 8u);
        const unsigned nonzero = v != 0u;
        mask |= nonzero << j;
        w += 8u * nonzero;
    }
    return mask;
}

/* The spans' words (each span's words at their places in the record) into
 * the zeroed bitmap out and the words after it from w: the words before a
 * group of eight and after the last one by one, each group inside a span
 * four at a time by four (a build's function, which stores the four with
 * the nonzero ones first and returns their mask). A group's bitmap byte
 * is written whole, a word's bit ORed in; groups no span reaches stay
 * zero. Always inlined, four with it, so that each build compiles the
 * whole loop for its instruction set. */
__attribute__((always_inline)) static inline uint8_t *
pack_spans_by_fours(const pdk_record_span *spans, size_t n_spans, uint8_t *out, uint8_t *w,
                    unsigned (*four)(const uint8_t *, uint8_t *))
{
    for (size_t k = 0; k < n_spans; k++) {
        const uint8_t *p = spans[k].data;
        size_t i = spans[k].offset / 8u;
        const size_t end = i + spans[k].len / 8u;
        for (; i < end && i % 8u != 0u; i++, p += 8u) {
            w = pack_one(p, i, out, w);
        }
        for (; i + 8u <= end; i += 8u, p += 64u) {
            const unsigned lo = four(p, w);
            w += 8 * __builtin_popcount(lo);
            const unsigned hi = four(p + 32u, w);
            w += 8 * __builtin_popcount(hi);
            out[i / 8u] = (uint8_t)(lo | hi << 4);
        }
        for (; i < end; i++, p += 8u) {
            w = pack_one(p, i, out, w);
        }
    }
    return w;
}

static uint8_t *pack_scalar(const pdk_record_span *spans, size_t n_spans, uint8_t *out, uint8_t *w)
{
    return pack_spans_by_fours(spans, n_spans, out, w, four_scalar);
}

#if HAVE_PACK_BUILDS
/* For each mask of nonzero words among four, the 32-bit lanes that move
 * those words to the front, in order (word k is lanes 2k and 2k + 1); the
 * lanes after them are don't-care. */
static const int32_t front_lanes[16][8] __attribute__((aligned(32))) = {
    {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0}, {2, 3, 0, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 0, 0, 0, 0}, {4, 5, 0, 0, 0, 0, 0, 0}, {0, 1, 4, 5, 0, 0, 0, 0},
    {2, 3, 4, 5, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 0, 0}, {6, 7, 0, 0, 0, 0, 0, 0},
    {0, 1, 6, 7, 0, 0, 0, 0}, {2, 3, 6, 7, 0, 0, 0, 0}, {0, 1, 2, 3, 6, 7, 0, 0},
    {4, 5, 6, 7, 0, 0, 0, 0}, {0, 1, 4, 5, 6, 7, 0, 0}, {2, 3, 4, 5, 6, 7, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7},
};

/* Four words at rec to w, the nonzero ones first; returns their mask. The
 * store is a whole vector: 32 bytes at w, which out has room for while a
 * group of eight words remains (pdk_wire_pack_spans_build). */
__attribute__((target("avx2"), always_inline)) static inline unsigned four_avx2(const uint8_t *rec,
                                                                                uint8_t *w)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)rec);
    const __m256i zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
    const unsigned mask = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(zero)) & 0xFu;
    const __m256i lanes = _mm256_load_si256((const __m256i *)(const void *)front_lanes[mask]);
    _mm256_storeu_si256((__m256i *)(void *)w, _mm256_permutevar8x32_epi32(v, lanes));
    return mask;
}

__attribute__((target("avx2,popcnt"))) static uint8_t *
pack_avx2(const pdk_record_span *spans, size_t n_spans, uint8_t *out, uint8_t *w)
{
    return pack_spans_by_fours(spans, n_spans, out, w, four_avx2);
}

__attribute__((target("avx2,avx512f,avx512vl"), always_inline)) static inline unsigned
four_avx512(const uint8_t *rec, uint8_t *w)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)rec);
    const __mmask8 mask = _mm256_test_epi64_mask(v, v);
    _mm256_storeu_si256((__m256i *)(void *)w, _mm256_maskz_compress_epi64(mask, v));
    return (unsigned)mask;
}

__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static uint8_t *
pack_avx512(const pdk_record_span *spans, size_t n_spans, uint8_t *out, uint8_t *w)
{
    return pack_spans_by_fours(spans, n_spans, out, w, four_avx512);
}
#endif

size_t pdk_wire_pack_spans_build(const pdk_record_span *spans, size_t n_spans, size_t record_bytes,
                                 uint8_t *out, pdk_fw_build build)
{
    const size_t map = pdk_wire_bitmap_bytes(record_bytes / 8u);
    memset(out, 0, map);
    uint8_t *const w = out + map;
    uint8_t *end = NULL;
#if HAVE_PACK_BUILDS
    switch (pdk_fw_build_resolve(build)) {
    case PDK_FW_BUILD_AVX512:
        end = pack_avx512(spans, n_spans, out, w);
        break;
    case PDK_FW_BUILD_AVX2:
        end = pack_avx2(spans, n_spans, out, w);
        break;
    default:
        end = pack_scalar(spans, n_spans, out, w);
        break;
    }
#else
    (void)build;
    end = pack_scalar(spans, n_spans, out, w);
#endif
    return (size_t)(end - out);
}

size_t pdk_wire_pack_words_build(const uint8_t *rec, size_t record_bytes, uint8_t *out,
                                 pdk_fw_build build)
{
    const pdk_record_span whole = {0u, record_bytes - record_bytes % 8u, rec};
    return pdk_wire_pack_spans_build(&whole, 1u, record_bytes, out, build);
}
