/* What the server benchmarks share to read a stream as raw bytes: the
 * C client decodes a StateBatch of at most 64 vehicles (nanopb's fixed
 * sizes, proto/paddock/v1/paddock.options), and a benchmark measures
 * sessions larger than that, so its subscribers send nanopb-encoded
 * requests and walk the frames that come back without decoding them. */
#ifndef PDK_BENCH_RAW_H
#define PDK_BENCH_RAW_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <pb_encode.h>

#include "paddock_client.h"

/* Writes frame, varint-delimited as the TCP transport frames it. */
static inline int bench_raw_send(int fd, const paddock_v1_Frame *frame)
{
    static _Thread_local uint8_t buf[8192];
    pb_ostream_t os = pb_ostream_from_buffer(buf, sizeof(buf));
    if (!pb_encode_delimited(&os, paddock_v1_Frame_fields, frame))
        return -1;
    return write(fd, buf, os.bytes_written) == (ssize_t)os.bytes_written ? 0 : -1;
}

/* Reads the varint at *p (within end); 0 when it runs past end. */
static inline int bench_raw_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* The bytes of the frame at p, its length prefix included; 0 while the n
 * bytes there do not hold it whole. */
static inline size_t bench_raw_frame_len(const uint8_t *p, size_t n)
{
    const uint8_t *q = p;
    uint64_t len;
    if (!bench_raw_varint(&q, p + n, &len) || len > n - (size_t)(q - p))
        return 0;
    return (size_t)(q - p) + (size_t)len;
}

/* How many times field `inner` occurs in the length-delimited field
 * `outer` of the whole frame at p (prefix included): the vehicles of a
 * StateBatch (60, 5), the rows of a TelemetryBatch (92, 5). 0 for a frame
 * of another body. */
static inline uint64_t bench_raw_count(const uint8_t *p, size_t len, uint32_t outer,
                                       uint32_t inner)
{
    const uint8_t *end = p + len;
    uint64_t v, n = 0;
    if (!bench_raw_varint(&p, end, &v))
        return 0;
    int depth_outer = 1;
    while (p < end) {
        uint64_t tag;
        if (!bench_raw_varint(&p, end, &tag))
            return n;
        uint32_t field = (uint32_t)(tag >> 3), wire = (uint32_t)(tag & 7);
        if (wire == 0) {
            if (!bench_raw_varint(&p, end, &v))
                return n;
        } else if (wire == 1) {
            p += 8;
        } else if (wire == 5) {
            p += 4;
        } else if (wire == 2) {
            if (!bench_raw_varint(&p, end, &v) || v > (uint64_t)(end - p))
                return n;
            if (depth_outer && field == outer) {
                end = p + v; /* walk into the body */
                depth_outer = 0;
                continue;
            }
            if (!depth_outer && field == inner)
                n++;
            p += v;
        } else {
            return n;
        }
    }
    return n;
}

#endif
