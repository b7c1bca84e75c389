/* How a keyframe is stored (snapshots.encoding, ADR 0032): packed with
 * zstd by the writer thread as it inserts it, unpacked by the one read
 * that hands keyframes out (pdk_store_read_snapshot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "store_internal.h"

#define PDK_STORE_KEYFRAME_LEVEL 3 /* zstd's compression level */

/* A keyframe's blob as a zstd frame (RFC 8878) in s->zbuf, on the writer
 * thread: its length, or 0 when it is kept as it is (empty, no smaller, or
 * no memory for the frame: the raw blob is always a good keyframe). Level 3
 * (ADR 0039): a fleet's keyframe repeats each car's record with small
 * differences, which level 3's match finder takes and level 1's mostly
 * misses (a keyframe of 3,000 sedans 24 % smaller, 100 sedans 9 %), at
 * some 250 MB/s against 400. */
size_t pdk_store_keyframe_pack(pdk_store *s, const unsigned char *blob, size_t len)
{
    if (len == 0) {
        return 0;
    }
    size_t bound = ZSTD_compressBound(len);
    if (bound > s->zbuf_cap) {
        unsigned char *grown = realloc(s->zbuf, bound);
        if (!grown) {
            return 0;
        }
        s->zbuf = grown;
        s->zbuf_cap = bound;
    }
    if (!s->zctx && !(s->zctx = ZSTD_createCCtx())) {
        return 0;
    }
    size_t n =
        ZSTD_compressCCtx(s->zctx, s->zbuf, s->zbuf_cap, blob, len, PDK_STORE_KEYFRAME_LEVEL);
    return ZSTD_isError(n) || n >= len ? 0 : n;
}

/* A keyframe's blob of len bytes at p as stored with encoding
 * (snapshots.encoding) into *out (malloc'd, one byte more so that an empty
 * keyframe still gets a pointer to free) and *out_len. A zstd frame is
 * unpacked whole; one that is damaged, or says it holds more than
 * PDK_STORE_KEYFRAME_MAX_BYTES, is PDK_ERR_DB naming the keyframe. */
void pdk_store_keyframe_free(pdk_store *s)
{
    ZSTD_freeCCtx(s->zctx);
    free(s->zbuf);
    s->zctx = NULL;
    s->zbuf = NULL;
    s->zbuf_cap = 0;
}

pdk_error pdk_store_keyframe_unpack(const pdk_store *store, uint64_t session_id, uint64_t tick,
                                    int encoding, const void *p, size_t len, void **out,
                                    size_t *out_len, char *err, size_t err_len)
{
    size_t size = len;
    if (encoding == PDK_STORE_KEYFRAME_ZSTD) {
        unsigned long long said = ZSTD_getFrameContentSize(p, len);
        if (said == ZSTD_CONTENTSIZE_ERROR || said == ZSTD_CONTENTSIZE_UNKNOWN ||
            said > PDK_STORE_KEYFRAME_MAX_BYTES) {
            pdk_store_errf(err, err_len,
                           "%s: the keyframe of session %llu at tick %llu is not a zstd frame "
                           "of at most %zu bytes",
                           store->path, (unsigned long long)session_id, (unsigned long long)tick,
                           PDK_STORE_KEYFRAME_MAX_BYTES);
            return PDK_ERR_DB;
        }
        size = (size_t)said;
    } else if (encoding != PDK_STORE_KEYFRAME_RAW) {
        pdk_store_errf(err, err_len,
                       "%s: the keyframe of session %llu at tick %llu has encoding %d, which "
                       "this build does not know (0 raw, 1 zstd)",
                       store->path, (unsigned long long)session_id, (unsigned long long)tick,
                       encoding);
        return PDK_ERR_DB;
    }
    unsigned char *copy = malloc(size + 1);
    if (!copy) {
        pdk_store_errf(err, err_len, "%s: out of memory reading a %zu-byte keyframe",
                       store->path, size);
        return PDK_ERR_NO_MEMORY;
    }
    if (encoding == PDK_STORE_KEYFRAME_ZSTD) {
        size_t n = ZSTD_decompress(copy, size, p, len);
        if (ZSTD_isError(n) || n != size) {
            pdk_store_errf(err, err_len,
                           "%s: the keyframe of session %llu at tick %llu does not unpack: %s",
                           store->path, (unsigned long long)session_id, (unsigned long long)tick,
                           ZSTD_isError(n) ? ZSTD_getErrorName(n) : "shorter than it says");
            free(copy);
            return PDK_ERR_DB;
        }
    } else if (len) {
        memcpy(copy, p, len);
    }
    *out = copy;
    *out_len = size;
    return PDK_OK;
}
