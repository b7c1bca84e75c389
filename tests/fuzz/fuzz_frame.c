/* Fuzz target: any bytes as a Frame body. Decoding must either refuse them
 * with PDK_ERR_PROTOCOL or give a Frame that encodes again; nothing may
 * crash or leak. protobuf-c keeps unknown fields (even field number 0) and
 * writes them back, so a re-encoded frame need not decode again; the server
 * never echoes a client's frame, so only the absence of crashes matters for
 * it. Frames without unknown fields must round-trip exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(data, size, &err);
    if (!f) {
        if (err != PDK_ERR_PROTOCOL)
            abort();
        return 0;
    }
    pdk_buf once = {0};
    if (pdk_wire_frame_append(&once, f) != PDK_OK)
        abort();
    if (once.len != paddock__v1__frame__get_packed_size(f))
        abort();
    Paddock__V1__Frame *g = pdk_wire_frame_decode(once.data, once.len, &err);
    if (g && f->base.n_unknown_fields == 0) {
        /* Same meaning, same bytes. */
        pdk_buf twice = {0};
        if (pdk_wire_frame_append(&twice, g) != PDK_OK || twice.len != once.len ||
            memcmp(twice.data, once.data, once.len) != 0)
            abort();
        pdk_buf_free(&twice);
    }
    pdk_buf_free(&once);
    pdk_wire_frame_free(f);
    pdk_wire_frame_free(g);
    return 0;
}
