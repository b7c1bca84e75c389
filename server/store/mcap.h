/* An MCAP file writer (mcap.dev/spec, format version 0): the magic, a
 * Header, Schema and Channel records, Messages grouped into Chunks
 * (uncompressed, or zstd-compressed when asked) each followed by one MessageIndex per channel it holds, DataEnd
 * with the data section's CRC, then a summary section (Schema and Channel
 * copies, Statistics, a ChunkIndex per chunk), the SummaryOffset records
 * that point at each group of it, and the Footer with the summary's CRC.
 * CRCs are zlib's crc32, the one the spec names.
 *
 * The writer knows nothing of Paddock's messages: the caller gives schema
 * bytes and message bytes. Bytes go out through a write callback as each
 * chunk fills, so memory is bounded by one chunk plus the indexes (a
 * ChunkIndex per chunk, a counter per channel), whatever the file's
 * length. Not thread-safe; one writer per file. */
#ifndef PDK_MCAP_H
#define PDK_MCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

/* A chunk is closed once its records reach this many bytes (by default). */
#define PDK_MCAP_DEFAULT_CHUNK_BYTES (1024u * 1024u)

/* Where the file's bytes go, in order. Return PDK_OK to go on; any other
 * value stops the writer (every later call returns it) and is returned. */
typedef pdk_error (*pdk_mcap_write_fn)(void *ctx, const uint8_t *bytes, size_t len);

typedef struct pdk_mcap_options {
    const char *profile; /* the Header's profile: "" when none is registered */
    const char *library; /* the Header's library: who wrote the file */
    size_t chunk_bytes;  /* close a chunk once its records reach this; 0: the default */
    bool zstd;           /* compress each chunk's records with zstd (the spec's "zstd") */
} pdk_mcap_options;

typedef struct pdk_mcap_writer pdk_mcap_writer;

/* Starts a file: writes the magic and the Header. opt, write_fn and out
 * must not be NULL (PDK_ERR_INVALID_ARGUMENT); NULL strings in opt are
 * empty. Errors: PDK_ERR_NO_MEMORY, or write_fn's; *out is NULL then. */
pdk_error pdk_mcap_writer_open(const pdk_mcap_options *opt, pdk_mcap_write_fn write_fn, void *ctx,
                               pdk_mcap_writer **out);

/* Releases the writer; finished or not (an unfinished file has no summary
 * and no footer). Accepts NULL. */
void pdk_mcap_writer_free(pdk_mcap_writer *w);

/* Adds a Schema record (written at once, kept for the summary) and gives
 * its id (1, 2, ...). name and encoding are strings, data is len bytes (a
 * protobuf schema: a binary FileDescriptorSet). Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL name or encoding, NULL data with len > 0,
 * after finish), PDK_ERR_CAPACITY (65535 schemas), PDK_ERR_NO_MEMORY,
 * write_fn's. */
pdk_error pdk_mcap_add_schema(pdk_mcap_writer *w, const char *name, const char *encoding,
                              const uint8_t *data, size_t len, uint16_t *id);

/* Adds a Channel record on schema schema_id (0: no schema) with n_meta
 * metadata pairs (keys[i] = values[i]; the spec's map, written sorted by
 * key as given: pass them sorted) and gives its id (0, 1, ...). Errors:
 * PDK_ERR_NOT_FOUND (a schema_id that was never added),
 * PDK_ERR_INVALID_ARGUMENT (NULL topic or encoding, NULL keys or values
 * with n_meta > 0, after finish), PDK_ERR_CAPACITY (65535 channels),
 * PDK_ERR_NO_MEMORY, write_fn's. */
pdk_error pdk_mcap_add_channel(pdk_mcap_writer *w, uint16_t schema_id, const char *topic,
                               const char *message_encoding, const char *const *keys,
                               const char *const *values, size_t n_meta, uint16_t *id);

/* Adds one Message on channel_id to the open chunk (its sequence: the
 * channel's count so far), closing the chunk and writing it with its
 * message indexes once it holds chunk_bytes. Times are ns on the file's
 * clock. Errors: PDK_ERR_NOT_FOUND (a channel that was never added; the
 * file is unchanged and the writer goes on), PDK_ERR_INVALID_ARGUMENT
 * (NULL data with len > 0, after finish), PDK_ERR_NO_MEMORY, write_fn's. */
pdk_error pdk_mcap_write_message(pdk_mcap_writer *w, uint16_t channel_id, uint64_t log_time_ns,
                                 uint64_t publish_time_ns, const uint8_t *data, size_t len);

/* Ends the file: the open chunk, DataEnd, the summary, the summary
 * offsets, the Footer and the magic. Nothing may be added after.
 * Errors: PDK_ERR_INVALID_ARGUMENT (twice), PDK_ERR_NO_MEMORY, write_fn's. */
pdk_error pdk_mcap_finish(pdk_mcap_writer *w);

/* What was written so far: messages, chunks, bytes. */
typedef struct pdk_mcap_stats {
    uint64_t messages;
    uint32_t chunks;
    uint64_t bytes;
} pdk_mcap_stats;
void pdk_mcap_stats_get(const pdk_mcap_writer *w, pdk_mcap_stats *out);

/* The messages written on channel_id so far (0 for an unknown channel). */
uint64_t pdk_mcap_channel_messages(const pdk_mcap_writer *w, uint16_t channel_id);

#endif
