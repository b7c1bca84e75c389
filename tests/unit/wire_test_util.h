/* Helpers the wire suites share (test_wire.c, test_wire_dbw.c,
 * test_wire_telemetry.c): the one whole Frame a buffer that wire wrote
 * holds, a subscriber's frame made of its head and a shared body.
 * Included once per suite, after wire.h. */
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

/* A subscriber's whole Frame appended to out as the server sends it: the
 * head that head_of writes (pdk_wire_state_frame_head or its telemetry
 * twin) for sub, then common's bytes. */
static inline void frame_of_head_append(pdk_buf *out,
                                        size_t (*head_of)(uint32_t, size_t,
                                                          uint8_t[PDK_WIRE_FRAME_HEAD_MAX]),
                                        uint32_t sub, const pdk_buf *common)
{
    uint8_t head[PDK_WIRE_FRAME_HEAD_MAX];
    size_t n = head_of(sub, common->len, head);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_le(n, PDK_WIRE_FRAME_HEAD_MAX);
    ck_assert_int_eq(pdk_buf_append(out, head, n), PDK_OK);
    ck_assert_int_eq(pdk_buf_append(out, common->data, common->len), PDK_OK);
}

#endif
