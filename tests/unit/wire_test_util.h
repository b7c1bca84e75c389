/* Helpers the wire suites share (test_wire.c, test_wire_dbw.c): splitting
 * one delimited Frame off a buffer that wire wrote. Included once per suite,
 * after wire.h. */
#ifndef PDK_WIRE_TEST_UTIL_H
#define PDK_WIRE_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Splits one delimited frame off buf, asserting it spans the whole buffer. */
static inline const uint8_t *frame_body(const pdk_buf *buf, size_t *len)
{
    uint64_t body = 0;
    int n = pdk_wire_varint_get(buf->data, buf->len, &body);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq((uint64_t)n + body, buf->len);
    *len = (size_t)body;
    return buf->data + n;
}

#endif
