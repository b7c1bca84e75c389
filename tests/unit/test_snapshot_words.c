/* A keyframe's vehicle records with their zero words left out
 * (server/wire/snapshot_words.c, snapshot.proto VehicleSnapshot.state_words):
 * every build of the packing (baseline, AVX2, AVX-512, as the processor has
 * them) gives the bytes of a plain reference written here and stays inside
 * the room it is given, from a whole record and from a record's spans (the
 * stretches of the world's memory it is made of, zeros between); and a
 * real record, composed by pdk_world_snapshot_vehicle into an aligned
 * buffer or an unaligned one, is the same either way and packs from its
 * spans to the reference's bytes. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/builds.h"
#include "params.h"
#include "sim/snapshot.h"
#include "wire_internal.h"
#include "sim/world.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

/* The packed record as snapshot.proto describes it: a bitmap with bit i % 8
 * of byte i / 8 set for a nonzero word i, then the nonzero words in order. */
static size_t pack_reference(const uint8_t *rec, size_t words, uint8_t *out)
{
    size_t map = pdk_wire_bitmap_bytes(words);
    memset(out, 0, map);
    size_t len = map;
    for (size_t i = 0; i < words; i++) {
        uint64_t v;
        memcpy(&v, rec + 8 * i, 8);
        if (v != 0) {
            out[i / 8] |= (uint8_t)(1u << (i % 8));
            memcpy(out + len, &v, 8);
            len += 8;
        }
    }
    return len;
}

/* Records of 0 to 90 words (every tail after groups of four and eight),
 * all zero, all nonzero, and at random densities, with words that are zero
 * but for one bit (the top one too: -0.0) and runs of nonzero words across
 * the groups' boundaries; 64 guard bytes past the room, which no build may
 * touch. */
START_TEST(every_build_gives_the_reference_bytes)
{
    const pdk_fw_build builds[] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2, PDK_FW_BUILD_AVX512,
                                   PDK_FW_BUILD_BEST};
    enum { MAX_WORDS = 90, GUARD = 64 };
    uint8_t rec[MAX_WORDS * 8];
    uint8_t want[MAX_WORDS * 8 + MAX_WORDS];
    uint8_t got[MAX_WORDS * 8 + MAX_WORDS + GUARD];
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    int checked = 0;
    for (size_t words = 0; words <= MAX_WORDS; words++) {
        for (int pattern = 0; pattern < 7; pattern++) {
            for (size_t i = 0; i < words; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                uint64_t v = x;
                switch (pattern) {
                case 0: /* all zero */
                    v = 0;
                    break;
                case 1: /* all nonzero */
                    v |= 1;
                    break;
                case 2: /* a quarter nonzero */
                    v = (x >> 8) % 4 == 0 ? v : 0;
                    break;
                case 3: /* a half */
                    v = (x >> 8) % 2 == 0 ? v : 0;
                    break;
                case 4: /* three quarters */
                    v = (x >> 8) % 4 != 0 ? v : 0;
                    break;
                case 5: /* one bit in each word */
                    v = (uint64_t)1 << (x % 64);
                    break;
                default: /* runs of -0.0 across the groups' boundaries */
                    v = i % 11 >= 3 && i % 11 < 9 ? UINT64_C(0x8000000000000000) : 0;
                    break;
                }
                memcpy(rec + 8 * i, &v, 8);
            }
            const size_t room = pdk_wire_packed_max(8 * words);
            const size_t want_len = pack_reference(rec, words, want);
            for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
                if (!pdk_fw_build_available(builds[b]))
                    continue;
                memset(got, 0xA5, sizeof got);
                size_t len = pdk_wire_pack_words_build(rec, 8 * words, got, builds[b]);
                ck_assert_msg(len == want_len && memcmp(got, want, len) == 0,
                              "build %d, %zu words, pattern %d: %zu bytes, want %zu",
                              (int)builds[b], words, pattern, len, want_len);
                for (size_t k = room; k < room + GUARD; k++)
                    ck_assert_msg(got[k] == 0xA5, "build %d wrote byte %zu of %zu room",
                                  (int)builds[b], k, room);
                checked++;
            }
        }
    }
    /* The baseline and BEST at least, on every record. */
    ck_assert_int_ge(checked, (MAX_WORDS + 1) * 7 * 2);
}
END_TEST

/* Records of 0 to 90 words cut into spans at random: one to six of them,
 * starting and ending anywhere in a group of eight, next to each other or
 * with gaps of zeros between (whole groups too); the words outside every
 * span hold garbage in the spans' source but are zeros in the record the
 * reference packs. Every build gives the reference's bytes and stays
 * inside the room. */
START_TEST(spans_give_the_reference_bytes)
{
    const pdk_fw_build builds[] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2, PDK_FW_BUILD_AVX512,
                                   PDK_FW_BUILD_BEST};
    enum { MAX_WORDS = 90, GUARD = 64, MAX_SPANS = 6 };
    uint8_t src[MAX_WORDS * 8], rec[MAX_WORDS * 8];
    uint8_t want[MAX_WORDS * 8 + MAX_WORDS];
    uint8_t got[MAX_WORDS * 8 + MAX_WORDS + GUARD];
    uint64_t x = UINT64_C(0x2545F4914F6CDD1D);
    int checked = 0, gaps = 0;
    for (size_t words = 0; words <= MAX_WORDS; words++) {
        for (int trial = 0; trial < 20; trial++) {
            pdk_record_span spans[MAX_SPANS];
            size_t n = 0, at = 0;
            memset(rec, 0, sizeof rec);
            for (size_t i = 0; i < words; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                uint64_t v = (x >> 8) % 3 == 0 ? 0 : x; /* a third zero */
                memcpy(src + 8 * i, &v, 8);
            }
            while (n < MAX_SPANS && at < words) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                size_t gap = (x >> 4) % 3 == 0 ? 0 : (x >> 12) % 12;
                size_t len = 1 + (x >> 20) % 20;
                if (at + gap >= words)
                    break;
                at += gap;
                gaps += gap >= 8;
                len = len < words - at ? len : words - at;
                /* Each span reads its words from src where the record has
                 * them: the source and the record agree inside the spans. */
                spans[n++] = (pdk_record_span){8 * at, 8 * len, src + 8 * at};
                memcpy(rec + 8 * at, src + 8 * at, 8 * len);
                at += len;
            }
            const size_t room = pdk_wire_packed_max(8 * words);
            const size_t want_len = pack_reference(rec, words, want);
            for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
                if (!pdk_fw_build_available(builds[b]))
                    continue;
                memset(got, 0xA5, sizeof got);
                size_t len = pdk_wire_pack_spans_build(spans, n, 8 * words, got, builds[b]);
                ck_assert_msg(len == want_len && memcmp(got, want, len) == 0,
                              "build %d, %zu words, %zu spans, trial %d: %zu bytes, want %zu",
                              (int)builds[b], words, n, trial, len, want_len);
                for (size_t k = room; k < room + GUARD; k++)
                    ck_assert_msg(got[k] == 0xA5, "build %d wrote byte %zu of %zu room",
                                  (int)builds[b], k, room);
                checked++;
            }
        }
    }
    ck_assert_int_ge(checked, (MAX_WORDS + 1) * 20 * 2);
    ck_assert_int_gt(gaps, 100); /* whole groups no span reaches, often */
}
END_TEST

/* A utility vehicle's record after a second of driving, and a
 * single-track car's: composed in place (an aligned buffer) and through
 * an unaligned one it is the same record, it packs to the reference's
 * bytes, to well under half its size, and its spans (in order, apart,
 * whole words, inside the record) pack to the same bytes. */
START_TEST(a_real_record_composes_and_packs_the_same_anywhere)
{
    const char *const presets[] = {"polaris_ranger", "traffic_sedan"};
    const char *const preset = presets[_i];
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    size_t n = (pdk_world_mem_size(&wd) + 63u) & ~(size_t)63u;
    void *mem = aligned_alloc(64, n);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, n, &wd, &w), PDK_OK);
    pdk_vehicle_def def;
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, preset, NULL, &def, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s: %s", preset, err);
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_vehicle_id id = 0;
    ck_assert_int_eq(pdk_world_spawn(w, &def, &pose, 8.0, PDK_GEAR_DRIVE, &id), PDK_OK);
    pdk_dbw_cmd drive = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER,
                         .throttle_pct = 30.0,
                         .steer_wheel_deg = 45.0};
    ck_assert_int_eq(pdk_world_command(w, id, &drive), PDK_OK);
    for (int t = 0; t < 120; t++)
        pdk_world_step(w);

    const size_t bytes = pdk_snapshot_vehicle_bytes();
    uint8_t *aligned = malloc(bytes), *odd = malloc(bytes + 1);
    uint8_t *packed = malloc(pdk_wire_packed_max(bytes)), *ref = malloc(pdk_wire_packed_max(bytes));
    ck_assert(aligned && odd && packed && ref);
    memset(aligned, 0x5A, bytes);
    memset(odd, 0xC3, bytes + 1);
    ck_assert_int_eq(pdk_world_snapshot_vehicle(w, id, aligned, bytes), PDK_OK);
    ck_assert_int_eq(pdk_world_snapshot_vehicle(w, id, odd + 1, bytes), PDK_OK);
    ck_assert_mem_eq(aligned, odd + 1, bytes);
    size_t len = pdk_wire_pack_words_build(aligned, bytes, packed, PDK_FW_BUILD_BEST);
    ck_assert_uint_eq(len, pack_reference(aligned, bytes / 8, ref));
    ck_assert_mem_eq(packed, ref, len);
    ck_assert_uint_lt(len, bytes / 2); /* most of a record is zeros */

    uint64_t head[2];
    pdk_record_span spans[PDK_RECORD_SPANS];
    const int n_spans = pdk_world_snapshot_vehicle_spans(w, id, head, spans);
    ck_assert_int_ge(n_spans, 1);
    ck_assert_int_le(n_spans, PDK_RECORD_SPANS);
    size_t end = 0;
    for (int i = 0; i < n_spans; i++) {
        ck_assert_uint_ge(spans[i].offset, end);
        ck_assert_uint_eq(spans[i].offset % 8, 0);
        ck_assert_uint_eq(spans[i].len % 8, 0);
        end = spans[i].offset + spans[i].len;
    }
    ck_assert_uint_le(end, bytes);
    const pdk_fw_build builds[] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2, PDK_FW_BUILD_AVX512};
    for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
        if (!pdk_fw_build_available(builds[b]))
            continue;
        memset(packed, 0x5A, pdk_wire_packed_max(bytes));
        ck_assert_uint_eq(
            pdk_wire_pack_spans_build(spans, (size_t)n_spans, bytes, packed, builds[b]), len);
        ck_assert_mem_eq(packed, ref, len);
    }
    /* A dead id has none. */
    ck_assert_int_eq(pdk_world_snapshot_vehicle_spans(w, id + 1u, head, spans), 0);
    ck_assert_int_eq(pdk_world_snapshot_vehicle_spans(NULL, id, head, spans), 0);
    free(aligned);
    free(odd);
    free(packed);
    free(ref);
    free(mem);
}
END_TEST

static Suite *snapshot_words_suite(void)
{
    Suite *s = suite_create("snapshot_words");
    TCase *tc = tcase_create("packing");
    tcase_add_test(tc, every_build_gives_the_reference_bytes);
    tcase_add_test(tc, spans_give_the_reference_bytes);
    tcase_add_loop_test(tc, a_real_record_composes_and_packs_the_same_anywhere, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(snapshot_words_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
