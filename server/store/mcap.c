/* The MCAP writer (mcap.h): records laid out as mcap.dev/spec says, little
 * endian, each an opcode byte, a u64 content length and the content;
 * strings and byte arrays with a u32 length first, maps with a u32 length
 * in bytes first. */
#include "mcap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

enum {
    OP_HEADER = 0x01,
    OP_FOOTER = 0x02,
    OP_SCHEMA = 0x03,
    OP_CHANNEL = 0x04,
    OP_MESSAGE = 0x05,
    OP_CHUNK = 0x06,
    OP_MESSAGE_INDEX = 0x07,
    OP_CHUNK_INDEX = 0x08,
    OP_STATISTICS = 0x0B,
    OP_SUMMARY_OFFSET = 0x0E,
    OP_DATA_END = 0x0F,
};

static const uint8_t MAGIC[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};
#define RECORD_PREFIX_BYTES 9u /* opcode + u64 length */
/* zstd's default level: most of the gain on telemetry at a small cost. */
#define ZSTD_LEVEL 3

/* A growable byte string whose first failed growth sticks, so a record is
 * assembled with no check after each field and checked once. */
typedef struct bytes {
    uint8_t *data;
    size_t len, cap;
    bool no_memory;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
    if (b->no_memory || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            b->no_memory = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_le(bytes *b, uint64_t v, size_t n)
{
    uint8_t le[8];
    for (size_t i = 0; i < n; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    put(b, le, n);
}

static void put_u8(bytes *b, uint8_t v)
{
    put_le(b, v, 1);
}
static void put_u16(bytes *b, uint16_t v)
{
    put_le(b, v, 2);
}
static void put_u32(bytes *b, uint32_t v)
{
    put_le(b, v, 4);
}
static void put_u64(bytes *b, uint64_t v)
{
    put_le(b, v, 8);
}

static void put_str(bytes *b, const char *s)
{
    size_t n = strlen(s);
    put_u32(b, (uint32_t)n);
    put(b, s, n);
}

/* Writes v little endian over 8 bytes at b->data + at (already put). */
static void patch_u64(bytes *b, size_t at, uint64_t v)
{
    if (b->no_memory)
        return;
    for (size_t i = 0; i < 8; i++)
        b->data[at + i] = (uint8_t)(v >> (8 * i));
}

/* A record's opcode and a length to patch; returns where the record starts. */
static size_t record_begin(bytes *b, uint8_t op)
{
    size_t start = b->len;
    put_u8(b, op);
    put_u64(b, 0);
    return start;
}

static void record_end(bytes *b, size_t start)
{
    patch_u64(b, start + 1, (uint64_t)(b->len - start - RECORD_PREFIX_BYTES));
}

static void bytes_free(bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

typedef struct channel {
    uint64_t messages;    /* in the whole file */
    bytes index;          /* this chunk's (log time, offset) pairs, u64 each */
    uint64_t index_count; /* pairs in index */
} channel;

typedef struct group {
    uint8_t opcode;
    uint64_t start, length;
} group;

struct pdk_mcap_writer {
    pdk_mcap_write_fn write_fn;
    void *ctx;
    pdk_error failed; /* write_fn's refusal or an allocation that failed: sticky */
    bool finished;
    size_t chunk_bytes;
    bool zstd;
    bytes packed; /* a zstd chunk's compressed records */

    uint64_t offset;   /* bytes written so far */
    uLong data_crc;    /* over every byte written before DataEnd */
    bool in_summary;   /* from the summary's first byte to the footer's CRC */
    uLong summary_crc; /* over those */

    bytes schemas; /* every Schema record, copied into the summary */
    uint16_t n_schemas;
    bytes channel_records; /* every Channel record, likewise */
    channel *channels;
    size_t n_channels;

    bytes chunk; /* the open chunk's records */
    uint64_t chunk_start_ns, chunk_end_ns;
    uint64_t chunk_messages;
    bytes chunk_indexes; /* a ChunkIndex record per chunk written */
    uint32_t n_chunks;

    uint64_t messages, start_ns, end_ns;
    bytes scratch; /* a record being assembled */
};

/* zlib's crc32 over n bytes; it takes a uInt length, so in pieces it can hold. */
static uLong crc_update(uLong crc, const uint8_t *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        uInt piece = n - done > 0x40000000u ? 0x40000000u : (uInt)(n - done);
        crc = crc32(crc, p + done, piece);
        done += piece;
    }
    return crc;
}

/* Sends bytes to write_fn, keeping the offset and the running CRCs. */
static pdk_error emit(pdk_mcap_writer *w, const uint8_t *p, size_t n)
{
    if (w->failed != PDK_OK)
        return w->failed;
    if (n == 0)
        return PDK_OK;
    w->failed = w->write_fn(w->ctx, p, n);
    if (w->failed != PDK_OK)
        return w->failed;
    if (w->in_summary)
        w->summary_crc = crc_update(w->summary_crc, p, n);
    else
        w->data_crc = crc_update(w->data_crc, p, n);
    w->offset += n;
    return PDK_OK;
}

/* Emits b whole (an allocation failure in it fails the writer) and empties it. */
static pdk_error emit_bytes(pdk_mcap_writer *w, bytes *b)
{
    if (b->no_memory && w->failed == PDK_OK)
        w->failed = PDK_ERR_NO_MEMORY;
    pdk_error e = emit(w, b->data, b->len);
    b->len = 0;
    return e;
}

pdk_error pdk_mcap_writer_open(const pdk_mcap_options *opt, pdk_mcap_write_fn write_fn, void *ctx,
                               pdk_mcap_writer **out)
{
    if (!out)
        return PDK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!opt || !write_fn)
        return PDK_ERR_INVALID_ARGUMENT;
    pdk_mcap_writer *w = calloc(1, sizeof(*w));
    if (!w)
        return PDK_ERR_NO_MEMORY;
    w->write_fn = write_fn;
    w->ctx = ctx;
    w->chunk_bytes = opt->chunk_bytes ? opt->chunk_bytes : PDK_MCAP_DEFAULT_CHUNK_BYTES;
    w->zstd = opt->zstd;
    w->data_crc = crc32(0L, Z_NULL, 0);
    w->summary_crc = crc32(0L, Z_NULL, 0);
    put(&w->scratch, MAGIC, sizeof(MAGIC));
    size_t r = record_begin(&w->scratch, OP_HEADER);
    put_str(&w->scratch, opt->profile ? opt->profile : "");
    put_str(&w->scratch, opt->library ? opt->library : "");
    record_end(&w->scratch, r);
    pdk_error e = emit_bytes(w, &w->scratch);
    if (e != PDK_OK) {
        pdk_mcap_writer_free(w);
        return e;
    }
    *out = w;
    return PDK_OK;
}

void pdk_mcap_writer_free(pdk_mcap_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_channels; i++)
        bytes_free(&w->channels[i].index);
    free(w->channels);
    bytes_free(&w->schemas);
    bytes_free(&w->channel_records);
    bytes_free(&w->chunk);
    bytes_free(&w->packed);
    bytes_free(&w->chunk_indexes);
    bytes_free(&w->scratch);
    free(w);
}

/* Emits the record in scratch and keeps a copy of it in keep. */
static pdk_error emit_and_keep(pdk_mcap_writer *w, bytes *keep)
{
    put(keep, w->scratch.data, w->scratch.len);
    if (keep->no_memory && w->failed == PDK_OK)
        w->failed = PDK_ERR_NO_MEMORY;
    return emit_bytes(w, &w->scratch);
}

pdk_error pdk_mcap_add_schema(pdk_mcap_writer *w, const char *name, const char *encoding,
                              const uint8_t *data, size_t len, uint16_t *id)
{
    if (!w || !name || !encoding || (!data && len > 0) || !id || w->finished || len > UINT32_MAX)
        return PDK_ERR_INVALID_ARGUMENT;
    if (w->failed != PDK_OK)
        return w->failed;
    if (w->n_schemas == UINT16_MAX)
        return PDK_ERR_CAPACITY;
    uint16_t sid = (uint16_t)(w->n_schemas + 1);
    size_t r = record_begin(&w->scratch, OP_SCHEMA);
    put_u16(&w->scratch, sid);
    put_str(&w->scratch, name);
    put_str(&w->scratch, encoding);
    put_u32(&w->scratch, (uint32_t)len);
    put(&w->scratch, data, len);
    record_end(&w->scratch, r);
    pdk_error e = emit_and_keep(w, &w->schemas);
    if (e != PDK_OK)
        return e;
    w->n_schemas = sid;
    *id = sid;
    return PDK_OK;
}

pdk_error pdk_mcap_add_channel(pdk_mcap_writer *w, uint16_t schema_id, const char *topic,
                               const char *message_encoding, const char *const *keys,
                               const char *const *values, size_t n_meta, uint16_t *id)
{
    if (!w || !topic || !message_encoding || (n_meta > 0 && (!keys || !values)) || !id ||
        w->finished)
        return PDK_ERR_INVALID_ARGUMENT;
    if (w->failed != PDK_OK)
        return w->failed;
    if (schema_id > w->n_schemas)
        return PDK_ERR_NOT_FOUND;
    if (w->n_channels == UINT16_MAX)
        return PDK_ERR_CAPACITY;
    channel *grown = realloc(w->channels, (w->n_channels + 1) * sizeof(*grown));
    if (!grown)
        return PDK_ERR_NO_MEMORY;
    w->channels = grown;
    uint16_t cid = (uint16_t)w->n_channels;
    size_t r = record_begin(&w->scratch, OP_CHANNEL);
    put_u16(&w->scratch, cid);
    put_u16(&w->scratch, schema_id);
    put_str(&w->scratch, topic);
    put_str(&w->scratch, message_encoding);
    size_t map_bytes = 0;
    for (size_t i = 0; i < n_meta; i++)
        map_bytes += 8 + strlen(keys[i]) + strlen(values[i]);
    put_u32(&w->scratch, (uint32_t)map_bytes);
    for (size_t i = 0; i < n_meta; i++) {
        put_str(&w->scratch, keys[i]);
        put_str(&w->scratch, values[i]);
    }
    record_end(&w->scratch, r);
    pdk_error e = emit_and_keep(w, &w->channel_records);
    if (e != PDK_OK)
        return e;
    memset(&w->channels[cid], 0, sizeof(w->channels[cid]));
    w->n_channels++;
    *id = cid;
    return PDK_OK;
}

/* Writes the open chunk, then a MessageIndex per channel that has messages
 * in it (in channel order), and keeps its ChunkIndex for the summary. */
static pdk_error close_chunk(pdk_mcap_writer *w)
{
    if (w->chunk_messages == 0)
        return w->failed;
    if (w->chunk.no_memory && w->failed == PDK_OK)
        w->failed = PDK_ERR_NO_MEMORY;
    uint64_t chunk_start = w->offset;
    uint32_t crc = (uint32_t)crc_update(crc32(0L, Z_NULL, 0), w->chunk.data, w->chunk.len);
    /* The records as stored: as they are, or zstd's frame of them. */
    const uint8_t *stored = w->chunk.data;
    size_t stored_len = w->chunk.len;
    if (w->zstd && w->failed == PDK_OK) {
        size_t bound = ZSTD_compressBound(w->chunk.len);
        w->packed.len = 0;
        if (w->packed.cap < bound) {
            uint8_t *grown = realloc(w->packed.data, bound);
            if (!grown)
                w->failed = PDK_ERR_NO_MEMORY;
            else {
                w->packed.data = grown;
                w->packed.cap = bound;
            }
        }
        if (w->failed == PDK_OK) {
            size_t n =
                ZSTD_compress(w->packed.data, bound, w->chunk.data, w->chunk.len, ZSTD_LEVEL);
            /* Only allocation fails inside zstd with a bound-sized output. */
            if (ZSTD_isError(n))
                w->failed = PDK_ERR_NO_MEMORY;
            stored = w->packed.data;
            stored_len = ZSTD_isError(n) ? 0 : n;
        }
    }
    const char *compression = w->zstd ? "zstd" : "";
    /* The chunk's fields and its records' length, then the records. */
    size_t r = record_begin(&w->scratch, OP_CHUNK);
    put_u64(&w->scratch, w->chunk_start_ns);
    put_u64(&w->scratch, w->chunk_end_ns);
    put_u64(&w->scratch, w->chunk.len); /* uncompressed size */
    put_u32(&w->scratch, crc);          /* of the uncompressed records */
    put_str(&w->scratch, compression);
    put_u64(&w->scratch, stored_len);
    patch_u64(&w->scratch, r + 1,
              (uint64_t)(w->scratch.len - r - RECORD_PREFIX_BYTES) + stored_len);
    emit_bytes(w, &w->scratch);
    emit(w, stored, stored_len);
    uint64_t chunk_length = w->offset - chunk_start;

    uint64_t index_start = w->offset;
    bytes offsets = {0}; /* the ChunkIndex's map: channel id, MessageIndex offset */
    for (size_t c = 0; c < w->n_channels; c++) {
        channel *ch = &w->channels[c];
        if (ch->index_count == 0)
            continue;
        put_u16(&offsets, (uint16_t)c);
        put_u64(&offsets, w->offset);
        size_t m = record_begin(&w->scratch, OP_MESSAGE_INDEX);
        put_u16(&w->scratch, (uint16_t)c);
        put_u32(&w->scratch, (uint32_t)ch->index.len);
        put(&w->scratch, ch->index.data, ch->index.len);
        record_end(&w->scratch, m);
        if (ch->index.no_memory && w->failed == PDK_OK)
            w->failed = PDK_ERR_NO_MEMORY;
        emit_bytes(w, &w->scratch);
        ch->index.len = 0;
        ch->index_count = 0;
    }
    uint64_t index_length = w->offset - index_start;

    size_t ci = record_begin(&w->chunk_indexes, OP_CHUNK_INDEX);
    put_u64(&w->chunk_indexes, w->chunk_start_ns);
    put_u64(&w->chunk_indexes, w->chunk_end_ns);
    put_u64(&w->chunk_indexes, chunk_start);
    put_u64(&w->chunk_indexes, chunk_length);
    put_u32(&w->chunk_indexes, (uint32_t)offsets.len);
    put(&w->chunk_indexes, offsets.data, offsets.len);
    put_u64(&w->chunk_indexes, index_length);
    put_str(&w->chunk_indexes, compression);
    put_u64(&w->chunk_indexes, stored_len);
    put_u64(&w->chunk_indexes, w->chunk.len);
    record_end(&w->chunk_indexes, ci);
    if ((offsets.no_memory || w->chunk_indexes.no_memory) && w->failed == PDK_OK)
        w->failed = PDK_ERR_NO_MEMORY;
    bytes_free(&offsets);

    w->chunk.len = 0;
    w->chunk_messages = 0;
    w->n_chunks++;
    return w->failed;
}

pdk_error pdk_mcap_write_message(pdk_mcap_writer *w, uint16_t channel_id, uint64_t log_time_ns,
                                 uint64_t publish_time_ns, const uint8_t *data, size_t len)
{
    if (!w || (!data && len > 0) || w->finished)
        return PDK_ERR_INVALID_ARGUMENT;
    if (w->failed != PDK_OK)
        return w->failed;
    if (channel_id >= w->n_channels)
        return PDK_ERR_NOT_FOUND;
    channel *ch = &w->channels[channel_id];
    uint64_t at = w->chunk.len;
    size_t r = record_begin(&w->chunk, OP_MESSAGE);
    put_u16(&w->chunk, channel_id);
    put_u32(&w->chunk, (uint32_t)ch->messages); /* the sequence wraps past 2^32 */
    put_u64(&w->chunk, log_time_ns);
    put_u64(&w->chunk, publish_time_ns);
    put(&w->chunk, data, len);
    record_end(&w->chunk, r);
    put_u64(&ch->index, log_time_ns);
    put_u64(&ch->index, at);
    if (w->chunk.no_memory || ch->index.no_memory) {
        w->failed = PDK_ERR_NO_MEMORY;
        return w->failed;
    }
    ch->index_count++;
    ch->messages++;
    if (w->chunk_messages == 0 || log_time_ns < w->chunk_start_ns)
        w->chunk_start_ns = log_time_ns;
    if (w->chunk_messages == 0 || log_time_ns > w->chunk_end_ns)
        w->chunk_end_ns = log_time_ns;
    w->chunk_messages++;
    if (w->messages == 0 || log_time_ns < w->start_ns)
        w->start_ns = log_time_ns;
    if (w->messages == 0 || log_time_ns > w->end_ns)
        w->end_ns = log_time_ns;
    w->messages++;
    if (w->chunk.len >= w->chunk_bytes)
        return close_chunk(w);
    return PDK_OK;
}

/* Emits a group of summary records and notes where it went. */
static void summary_group(pdk_mcap_writer *w, uint8_t opcode, bytes *records, group *groups,
                          size_t *n_groups)
{
    if (records->len == 0)
        return;
    uint64_t start = w->offset;
    put(&w->scratch, records->data, records->len);
    if (records->no_memory)
        w->scratch.no_memory = true;
    emit_bytes(w, &w->scratch);
    groups[(*n_groups)++] = (group){.opcode = opcode, .start = start, .length = w->offset - start};
}

pdk_error pdk_mcap_finish(pdk_mcap_writer *w)
{
    if (!w || w->finished)
        return PDK_ERR_INVALID_ARGUMENT;
    w->finished = true;
    close_chunk(w);

    /* DataEnd carries the CRC of everything before it. */
    size_t r = record_begin(&w->scratch, OP_DATA_END);
    put_u32(&w->scratch, (uint32_t)w->data_crc);
    record_end(&w->scratch, r);
    emit_bytes(w, &w->scratch);

    uint64_t summary_start = w->offset;
    w->in_summary = true;
    group groups[4];
    size_t n_groups = 0;
    summary_group(w, OP_SCHEMA, &w->schemas, groups, &n_groups);
    summary_group(w, OP_CHANNEL, &w->channel_records, groups, &n_groups);
    bytes stats = {0};
    r = record_begin(&stats, OP_STATISTICS);
    put_u64(&stats, w->messages);
    put_u16(&stats, w->n_schemas);
    put_u32(&stats, (uint32_t)w->n_channels);
    put_u32(&stats, 0); /* attachments */
    put_u32(&stats, 0); /* metadata */
    put_u32(&stats, w->n_chunks);
    put_u64(&stats, w->messages ? w->start_ns : 0);
    put_u64(&stats, w->messages ? w->end_ns : 0);
    put_u32(&stats, (uint32_t)(w->n_channels * 10u));
    for (size_t c = 0; c < w->n_channels; c++) {
        put_u16(&stats, (uint16_t)c);
        put_u64(&stats, w->channels[c].messages);
    }
    record_end(&stats, r);
    summary_group(w, OP_STATISTICS, &stats, groups, &n_groups);
    bytes_free(&stats);
    summary_group(w, OP_CHUNK_INDEX, &w->chunk_indexes, groups, &n_groups);

    uint64_t summary_offset_start = w->offset;
    for (size_t g = 0; g < n_groups; g++) {
        r = record_begin(&w->scratch, OP_SUMMARY_OFFSET);
        put_u8(&w->scratch, groups[g].opcode);
        put_u64(&w->scratch, groups[g].start);
        put_u64(&w->scratch, groups[g].length);
        record_end(&w->scratch, r);
    }
    emit_bytes(w, &w->scratch);

    /* The footer's CRC covers the summary, its offsets and the footer's
     * fields before the CRC itself. */
    r = record_begin(&w->scratch, OP_FOOTER);
    put_u64(&w->scratch, summary_start);
    put_u64(&w->scratch, summary_offset_start);
    patch_u64(&w->scratch, r + 1, 8 + 8 + 4);
    emit_bytes(w, &w->scratch);
    w->in_summary = false;
    put_u32(&w->scratch, (uint32_t)w->summary_crc);
    put(&w->scratch, MAGIC, sizeof(MAGIC));
    emit_bytes(w, &w->scratch);
    return w->failed;
}

void pdk_mcap_stats_get(const pdk_mcap_writer *w, pdk_mcap_stats *out)
{
    *out = (pdk_mcap_stats){.messages = w->messages, .chunks = w->n_chunks, .bytes = w->offset};
}

uint64_t pdk_mcap_channel_messages(const pdk_mcap_writer *w, uint16_t channel_id)
{
    return channel_id < w->n_channels ? w->channels[channel_id].messages : 0;
}
