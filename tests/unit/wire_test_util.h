/* Helpers the wire suites share (test_wire.c, test_wire_dbw.c): the one
 * whole Frame a buffer that wire wrote holds. Included once per suite, after
 * wire.h. */
#ifndef PDK_WIRE_TEST_UTIL_H
#define PDK_WIRE_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* The frame in buf, asserting it is exactly one whole Frame. */
static inline const uint8_t *frame_body(const pdk_buf *buf, size_t *len)
{
    ck_assert_int_eq(pdk_wire_frame_check(buf->data, buf->len), PDK_OK);
    *len = buf->len;
    return buf->data;
}

#endif
