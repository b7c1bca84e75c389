/* Unit tests of the MCAP writer (server/store/mcap.c): the records and their
 * order as mcap.dev/spec lays them out, read back by a small parser of the
 * spec written here; the data section's, each chunk's and the summary's
 * CRCs against zlib's crc32 over the bytes they cover; chunks closing at
 * the size asked for, their message indexes pointing at their messages;
 * bytes streamed out as chunks close; zstd chunks that decompress to
 * the records their CRC covers; and the refusals: a message for a
 * channel never added, a channel on an unknown schema, a write that fails,
 * calls after the file is finished. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "mcap.h"

static const uint8_t MAGIC[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

/* ---- a sink for the writer's bytes ------------------------------------- */

typedef struct sink {
    uint8_t *data;
    size_t len, cap;
    size_t fail_after; /* refuse a write that would pass this many bytes; 0: never */
    size_t writes;
} sink;

static pdk_error sink_write(void *ctx, const uint8_t *bytes, size_t len)
{
    sink *s = ctx;
    if (s->fail_after && s->len + len > s->fail_after)
        return PDK_ERR_IO;
    if (s->len + len > s->cap) {
        s->cap = (s->len + len) * 2;
        s->data = realloc(s->data, s->cap);
        ck_assert_ptr_nonnull(s->data);
    }
    memcpy(s->data + s->len, bytes, len);
    s->len += len;
    s->writes++;
    return PDK_OK;
}

/* ---- reading it back ----------------------------------------------------- */

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

typedef struct record {
    uint8_t op;
    size_t at;        /* offset of its opcode in the file */
    const uint8_t *c; /* its content */
    uint64_t len;     /* content bytes */
} record;

/* The records from offset at on to the footer (inclusive), at most max. */
static size_t records(const uint8_t *f, size_t at, size_t end, record *out, size_t max)
{
    size_t n = 0;
    while (at + 9 <= end && n < max) {
        record r = {.op = f[at], .at = at, .c = f + at + 9, .len = le(f + at + 1, 8)};
        ck_assert_uint_le(at + 9 + r.len, end);
        out[n++] = r;
        at += 9 + (size_t)r.len;
        if (r.op == 0x02)
            break;
    }
    return n;
}

/* A string field at *p, advancing *p. */
static void str_at(const uint8_t **p, char *out, size_t cap)
{
    uint32_t n = (uint32_t)le(*p, 4);
    ck_assert_uint_lt(n, cap);
    memcpy(out, *p + 4, n);
    out[n] = '\0';
    *p += 4 + n;
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

static pdk_mcap_writer *open_into(sink *s, size_t chunk_bytes)
{
    pdk_mcap_options opt = {.profile = "", .library = "paddock test", .chunk_bytes = chunk_bytes};
    pdk_mcap_writer *w = NULL;
    ck_assert_int_eq(pdk_mcap_writer_open(&opt, sink_write, s, &w), PDK_OK);
    ck_assert_ptr_nonnull(w);
    return w;
}

/* ---- the tests --------------------------------------------------------- */

START_TEST(test_layout_and_crcs)
{
    sink s = {0};
    pdk_mcap_writer *w = open_into(&s, 0);
    const uint8_t fds[] = {0x0a, 0x03, 'a', 'b', 'c'};
    uint16_t schema = 0, ch_a = 99, ch_b = 99;
    ck_assert_int_eq(pdk_mcap_add_schema(w, "pkg.Msg", "protobuf", fds, sizeof fds, &schema),
                     PDK_OK);
    ck_assert_uint_eq(schema, 1);
    const char *keys[] = {"channels", "vehicle_id"};
    const char *values[] = {"Speed,Roll", "1"};
    ck_assert_int_eq(
        pdk_mcap_add_channel(w, schema, "/vehicle/1/a", "protobuf", keys, values, 2, &ch_a),
        PDK_OK);
    ck_assert_int_eq(
        pdk_mcap_add_channel(w, schema, "/vehicle/1/b", "protobuf", NULL, NULL, 0, &ch_b), PDK_OK);
    ck_assert_uint_eq(ch_a, 0);
    ck_assert_uint_eq(ch_b, 1);
    const uint8_t m1[] = {1, 2, 3};
    ck_assert_int_eq(pdk_mcap_write_message(w, ch_a, 1000, 1000, m1, sizeof m1), PDK_OK);
    ck_assert_int_eq(pdk_mcap_write_message(w, ch_b, 2000, 2001, m1, 2), PDK_OK);
    ck_assert_int_eq(pdk_mcap_write_message(w, ch_a, 3000, 3000, NULL, 0), PDK_OK);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_OK);
    pdk_mcap_stats st;
    pdk_mcap_stats_get(w, &st);
    ck_assert_uint_eq(st.messages, 3);
    ck_assert_uint_eq(st.chunks, 1);
    ck_assert_uint_eq(st.bytes, s.len);
    ck_assert_uint_eq(pdk_mcap_channel_messages(w, ch_a), 2);
    ck_assert_uint_eq(pdk_mcap_channel_messages(w, ch_b), 1);
    pdk_mcap_writer_free(w);

    const uint8_t *f = s.data;
    ck_assert_mem_eq(f, MAGIC, 8);
    ck_assert_mem_eq(f + s.len - 8, MAGIC, 8);
    record r[32];
    size_t n = records(f, 8, s.len - 8, r, 32);
    /* Header, Schema, 2 Channels, Chunk, 2 MessageIndexes, DataEnd, then the
     * summary: Schema, 2 Channels, Statistics, ChunkIndex, 4 SummaryOffsets,
     * Footer. */
    static const uint8_t order[] = {0x01, 0x03, 0x04, 0x04, 0x06, 0x07, 0x07, 0x0F, 0x03,
                                    0x04, 0x04, 0x0B, 0x08, 0x0E, 0x0E, 0x0E, 0x0E, 0x02};
    ck_assert_uint_eq(n, sizeof order);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i].op == order[i], "record %zu is opcode 0x%02x, not 0x%02x", i, r[i].op,
                      order[i]);
    ck_assert_uint_eq(r[n - 1].at + 9 + r[n - 1].len, s.len - 8);

    /* Header: empty profile, the library. */
    char text[64];
    const uint8_t *p = r[0].c;
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "");
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "paddock test");

    /* Schema: id 1, name, encoding, the bytes. */
    p = r[1].c;
    ck_assert_uint_eq(le(p, 2), 1);
    p += 2;
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "pkg.Msg");
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "protobuf");
    ck_assert_uint_eq(le(p, 4), sizeof fds);
    ck_assert_mem_eq(p + 4, fds, sizeof fds);

    /* Channel 0: its schema, topic, encoding and metadata map. */
    p = r[2].c;
    ck_assert_uint_eq(le(p, 2), 0);
    ck_assert_uint_eq(le(p + 2, 2), 1);
    p += 4;
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "/vehicle/1/a");
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "protobuf");
    ck_assert_uint_eq(le(p, 4), (4 + 8) + (4 + 10) + (4 + 10) + (4 + 1));
    p += 4;
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "channels");
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "Speed,Roll");

    /* Chunk: times, sizes, CRC of its records, no compression. */
    const record *chunk = &r[4];
    p = chunk->c;
    ck_assert_uint_eq(le(p, 8), 1000);
    ck_assert_uint_eq(le(p + 8, 8), 3000);
    uint64_t size = le(p + 16, 8);
    uint32_t crc = (uint32_t)le(p + 24, 4);
    p += 28;
    str_at(&p, text, sizeof text);
    ck_assert_str_eq(text, "");
    ck_assert_uint_eq(le(p, 8), size);
    const uint8_t *recs = p + 8;
    ck_assert_uint_eq(crc, crc_of(recs, (size_t)size));
    ck_assert_uint_eq(chunk->len, (uint64_t)(recs - chunk->c) + size);
    record in[8];
    size_t n_in = records(recs, 0, (size_t)size, in, 8);
    ck_assert_uint_eq(n_in, 3);
    /* The second message: channel 1, sequence 0, its times and data. */
    ck_assert_uint_eq(in[1].op, 0x05);
    ck_assert_uint_eq(le(in[1].c, 2), 1);
    ck_assert_uint_eq(le(in[1].c + 2, 4), 0);
    ck_assert_uint_eq(le(in[1].c + 6, 8), 2000);
    ck_assert_uint_eq(le(in[1].c + 14, 8), 2001);
    ck_assert_uint_eq(in[1].len, 22 + 2);
    ck_assert_mem_eq(in[1].c + 22, m1, 2);
    /* The third: channel 0's second, so sequence 1. */
    ck_assert_uint_eq(le(in[2].c + 2, 4), 1);

    /* MessageIndex of channel 0: two entries, each its message's offset in the chunk. */
    p = r[5].c;
    ck_assert_uint_eq(le(p, 2), 0);
    ck_assert_uint_eq(le(p + 2, 4), 32);
    ck_assert_uint_eq(le(p + 6, 8), 1000);
    ck_assert_uint_eq(le(p + 14, 8), in[0].at);
    ck_assert_uint_eq(le(p + 22, 8), 3000);
    ck_assert_uint_eq(le(p + 30, 8), in[2].at);

    /* DataEnd: the CRC of every byte before it. */
    ck_assert_uint_eq(r[7].len, 4);
    ck_assert_uint_eq(le(r[7].c, 4), crc_of(f, r[7].at));

    /* The summary's Schema and Channel records are copies of the data section's. */
    ck_assert_uint_eq(r[8].len, r[1].len);
    ck_assert_mem_eq(r[8].c, r[1].c, (size_t)r[1].len);
    ck_assert_mem_eq(r[9].c, r[2].c, (size_t)r[2].len);

    /* Statistics: counts, times, per channel counts. */
    p = r[11].c;
    ck_assert_uint_eq(le(p, 8), 3);
    ck_assert_uint_eq(le(p + 8, 2), 1);
    ck_assert_uint_eq(le(p + 10, 4), 2);
    ck_assert_uint_eq(le(p + 22, 4), 1);
    ck_assert_uint_eq(le(p + 26, 8), 1000);
    ck_assert_uint_eq(le(p + 34, 8), 3000);
    ck_assert_uint_eq(le(p + 42, 4), 20);
    ck_assert_uint_eq(le(p + 46, 2), 0);
    ck_assert_uint_eq(le(p + 48, 8), 2);
    ck_assert_uint_eq(le(p + 56, 2), 1);
    ck_assert_uint_eq(le(p + 58, 8), 1);

    /* ChunkIndex: where the chunk and its message indexes are. */
    p = r[12].c;
    ck_assert_uint_eq(le(p + 16, 8), chunk->at);
    ck_assert_uint_eq(le(p + 24, 8), 9 + chunk->len);
    ck_assert_uint_eq(le(p + 32, 4), 20);
    ck_assert_uint_eq(le(p + 36, 2), 0);
    ck_assert_uint_eq(le(p + 38, 8), r[5].at);
    ck_assert_uint_eq(le(p + 46, 2), 1);
    ck_assert_uint_eq(le(p + 48, 8), r[6].at);
    ck_assert_uint_eq(le(p + 56, 8), r[7].at - r[5].at);

    /* SummaryOffsets: each group's opcode, start and length. */
    static const uint8_t groups[] = {0x03, 0x04, 0x0B, 0x08};
    static const size_t first[] = {8, 9, 11, 12};
    static const size_t after[] = {9, 11, 12, 13};
    for (size_t g = 0; g < 4; g++) {
        p = r[13 + g].c;
        ck_assert_uint_eq(p[0], groups[g]);
        ck_assert_uint_eq(le(p + 1, 8), r[first[g]].at);
        ck_assert_uint_eq(le(p + 9, 8), r[after[g]].at - r[first[g]].at);
    }

    /* Footer: the summary's start (after DataEnd), its offsets' start, and
     * the CRC from the summary's start through the footer's offsets. */
    const record *footer = &r[n - 1];
    ck_assert_uint_eq(footer->len, 20);
    uint64_t summary_start = le(footer->c, 8);
    ck_assert_uint_eq(summary_start, r[8].at);
    ck_assert_uint_eq(le(footer->c + 8, 8), r[13].at);
    ck_assert_uint_eq(le(footer->c + 16, 4),
                      crc_of(f + summary_start, footer->at + 9 + 16 - (size_t)summary_start));
    free(s.data);
}
END_TEST

START_TEST(test_chunk_boundary_and_streaming)
{
    sink s = {0};
    /* Each message record is 9 + 22 + 60 bytes: two fill a chunk of 150. */
    pdk_mcap_writer *w = open_into(&s, 150);
    uint16_t ch = 0;
    ck_assert_int_eq(pdk_mcap_add_channel(w, 0, "/raw", "", NULL, NULL, 0, &ch), PDK_OK);
    uint8_t data[60];
    memset(data, 0xab, sizeof data);
    size_t before = s.len;
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 10, 10, data, sizeof data), PDK_OK);
    ck_assert_uint_eq(s.len, before); /* held in the open chunk */
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 20, 20, data, sizeof data), PDK_OK);
    ck_assert_uint_gt(s.len, before + 2 * 91); /* the chunk closed and went out */
    for (uint64_t t = 30; t <= 50; t += 10)
        ck_assert_int_eq(pdk_mcap_write_message(w, ch, t, t, data, sizeof data), PDK_OK);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_OK);
    pdk_mcap_stats st;
    pdk_mcap_stats_get(w, &st);
    ck_assert_uint_eq(st.chunks, 3); /* 2 + 2 + the last one's 1 */
    pdk_mcap_writer_free(w);

    record r[64];
    size_t n = records(s.data, 8, s.len - 8, r, 64);
    size_t chunks = 0, indexes = 0, chunk_indexes = 0;
    uint64_t expect_time = 10;
    for (size_t i = 0; i < n; i++) {
        if (r[i].op == 0x07) {
            /* Its chunk is the record before it (one channel): each entry
             * points at a message of its time in that chunk's records. */
            indexes++;
            ck_assert_uint_eq(r[i - 1].op, 0x06);
            const uint8_t *recs = r[i - 1].c + 28 + 4 + 8;
            uint32_t bytes = (uint32_t)le(r[i].c + 2, 4);
            for (uint32_t e = 0; e < bytes; e += 16) {
                uint64_t t = le(r[i].c + 6 + e, 8);
                uint64_t off = le(r[i].c + 14 + e, 8);
                ck_assert_uint_eq(t, expect_time);
                expect_time += 10;
                ck_assert_uint_eq(recs[off], 0x05);
                ck_assert_uint_eq(le(recs + off + 9 + 6, 8), t);
            }
        }
        if (r[i].op == 0x06) {
            chunks++;
            uint64_t size = le(r[i].c + 16, 8);
            ck_assert_uint_eq(le(r[i].c + 24, 4), crc_of(r[i].c + 28 + 4 + 8, (size_t)size));
        }
        if (r[i].op == 0x08) {
            chunk_indexes++;
            uint64_t at = le(r[i].c + 16, 8);
            ck_assert_uint_eq(s.data[at], 0x06);
        }
    }
    ck_assert_uint_eq(expect_time, 60);
    ck_assert_uint_eq(chunks, 3);
    ck_assert_uint_eq(indexes, 3);
    ck_assert_uint_eq(chunk_indexes, 3);
    free(s.data);
}
END_TEST

START_TEST(test_zstd_chunks)
{
    sink s = {0};
    pdk_mcap_options opt = {.library = "t", .chunk_bytes = 4096, .zstd = true};
    pdk_mcap_writer *w = NULL;
    ck_assert_int_eq(pdk_mcap_writer_open(&opt, sink_write, &s, &w), PDK_OK);
    uint16_t ch = 0;
    ck_assert_int_eq(pdk_mcap_add_channel(w, 0, "/z", "", NULL, NULL, 0, &ch), PDK_OK);
    /* Telemetry-like data: repetitive, so it compresses. */
    uint8_t data[200];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i % 8);
    for (uint64_t t = 1; t <= 100; t++)
        ck_assert_int_eq(pdk_mcap_write_message(w, ch, t, t, data, sizeof data), PDK_OK);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_OK);
    pdk_mcap_stats st;
    pdk_mcap_stats_get(w, &st);
    pdk_mcap_writer_free(w);
    ck_assert_uint_gt(st.chunks, 1);

    record r[128];
    size_t n = records(s.data, 8, s.len - 8, r, 128);
    size_t chunks = 0, messages = 0, chunk_indexes = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].op == 0x08) {
            /* compression "zstd", compressed size below the uncompressed one */
            const uint8_t *p = r[i].c + 32 + 4 + (size_t)le(r[i].c + 32, 4) + 8;
            char text[16];
            str_at(&p, text, sizeof text);
            ck_assert_str_eq(text, "zstd");
            ck_assert_uint_lt(le(p, 8), le(p + 8, 8));
            chunk_indexes++;
        }
        if (r[i].op != 0x06)
            continue;
        chunks++;
        const uint8_t *p = r[i].c;
        uint64_t size = le(p + 16, 8);
        uint32_t crc = (uint32_t)le(p + 24, 4);
        p += 28;
        char text[16];
        str_at(&p, text, sizeof text);
        ck_assert_str_eq(text, "zstd");
        uint64_t stored = le(p, 8);
        ck_assert_uint_lt(stored, size);
        uint8_t *plain = malloc((size_t)size);
        ck_assert_ptr_nonnull(plain);
        size_t got = ZSTD_decompress(plain, (size_t)size, p + 8, (size_t)stored);
        ck_assert(!ZSTD_isError(got));
        ck_assert_uint_eq(got, size);
        ck_assert_uint_eq(crc, crc_of(plain, got));
        record in[64];
        size_t n_in = records(plain, 0, got, in, 64);
        for (size_t k = 0; k < n_in; k++) {
            ck_assert_uint_eq(in[k].op, 0x05);
            ck_assert_mem_eq(in[k].c + 22, data, sizeof data);
        }
        messages += n_in;
        free(plain);
    }
    ck_assert_uint_eq(chunks, st.chunks);
    ck_assert_uint_eq(chunk_indexes, st.chunks);
    ck_assert_uint_eq(messages, 100);
    free(s.data);
}
END_TEST

START_TEST(test_unknown_channel_and_schema)
{
    sink s = {0};
    pdk_mcap_writer *w = open_into(&s, 0);
    uint16_t ch = 0, schema = 0;
    const uint8_t one = 1;
    /* No channel yet: channel 0 is unknown. */
    ck_assert_int_eq(pdk_mcap_write_message(w, 0, 1, 1, &one, 1), PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_mcap_add_channel(w, 1, "/x", "protobuf", NULL, NULL, 0, &ch),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_mcap_add_schema(w, "m", "protobuf", &one, 1, &schema), PDK_OK);
    ck_assert_int_eq(pdk_mcap_add_channel(w, schema, "/x", "protobuf", NULL, NULL, 0, &ch), PDK_OK);
    ck_assert_int_eq(pdk_mcap_write_message(w, (uint16_t)(ch + 1), 1, 1, &one, 1),
                     PDK_ERR_NOT_FOUND);
    /* The writer goes on: the refused messages are not in the file. */
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 5, 5, &one, 1), PDK_OK);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_OK);
    pdk_mcap_stats st;
    pdk_mcap_stats_get(w, &st);
    ck_assert_uint_eq(st.messages, 1);
    ck_assert_uint_eq(pdk_mcap_channel_messages(w, 7), 0);
    /* Finished: nothing more. */
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 6, 6, &one, 1), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_mcap_add_schema(w, "n", "protobuf", &one, 1, &schema),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_ERR_INVALID_ARGUMENT);
    pdk_mcap_writer_free(w);
    ck_assert_mem_eq(s.data + s.len - 8, MAGIC, 8);
    free(s.data);
}
END_TEST

START_TEST(test_write_failure)
{
    /* The header itself cannot be written: no writer. */
    sink tiny = {.fail_after = 4};
    pdk_mcap_options opt = {.library = "t"};
    pdk_mcap_writer *w = (pdk_mcap_writer *)&tiny;
    ck_assert_int_eq(pdk_mcap_writer_open(&opt, sink_write, &tiny, &w), PDK_ERR_IO);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(pdk_mcap_writer_open(NULL, sink_write, &tiny, &w), PDK_ERR_INVALID_ARGUMENT);

    /* A chunk that cannot go out: the message that closes it says so, and
     * every call after it, finish included. */
    sink s = {.fail_after = 200};
    w = open_into(&s, 64);
    uint16_t ch = 0;
    ck_assert_int_eq(pdk_mcap_add_channel(w, 0, "/x", "", NULL, NULL, 0, &ch), PDK_OK);
    uint8_t data[100] = {0};
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 1, 1, data, sizeof data), PDK_ERR_IO);
    ck_assert_int_eq(pdk_mcap_write_message(w, ch, 2, 2, data, sizeof data), PDK_ERR_IO);
    uint16_t other = 0;
    ck_assert_int_eq(pdk_mcap_add_channel(w, 0, "/y", "", NULL, NULL, 0, &other), PDK_ERR_IO);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_ERR_IO);
    pdk_mcap_writer_free(w);
    ck_assert_uint_le(s.len, 200);
    free(s.data);
    pdk_mcap_writer_free(NULL);
}
END_TEST

START_TEST(test_empty_file_is_whole)
{
    sink s = {0};
    pdk_mcap_writer *w = open_into(&s, 0);
    ck_assert_int_eq(pdk_mcap_finish(w), PDK_OK);
    pdk_mcap_writer_free(w);
    record r[16];
    size_t n = records(s.data, 8, s.len - 8, r, 16);
    /* Header, DataEnd, Statistics, its SummaryOffset, Footer. */
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(r[1].op, 0x0F);
    ck_assert_uint_eq(le(r[1].c, 4), crc_of(s.data, r[1].at));
    ck_assert_uint_eq(r[2].op, 0x0B);
    ck_assert_uint_eq(le(r[2].c, 8), 0);
    ck_assert_uint_eq(r[3].op, 0x0E);
    ck_assert_uint_eq(r[4].op, 0x02);
    ck_assert_uint_eq(le(r[4].c, 8), r[2].at);
    free(s.data);
}
END_TEST

static Suite *mcap_suite(void)
{
    Suite *s = suite_create("mcap");
    TCase *tc = tcase_create("writer");
    tcase_add_test(tc, test_layout_and_crcs);
    tcase_add_test(tc, test_chunk_boundary_and_streaming);
    tcase_add_test(tc, test_zstd_chunks);
    tcase_add_test(tc, test_unknown_channel_and_schema);
    tcase_add_test(tc, test_write_failure);
    tcase_add_test(tc, test_empty_file_is_whole);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mcap_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
