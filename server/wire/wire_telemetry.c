/* wire: the TelemetryBatch of a telemetry subscription, written by hand from
 * the world's channel arrays (ADR 0019's reasoning for the recording's
 * encoders holds here too): one row per vehicle, its values one packed run
 * of doubles, without a protobuf-c struct per row every tick. */
#include <stdbool.h>
#include <string.h>

#include "wire.h"
#include "wire_internal.h"

/* Field numbers the hand-built batch relies on (proto/paddock/v1/
 * paddock.proto). test_wire_telemetry.c decodes what these produce with
 * protobuf-c, so a renumbering cannot go unnoticed. */
enum {
    BATCH_SESSION_ID = 2,   /* TelemetryBatch.session_id: uint64 */
    BATCH_TICK = 3,         /* uint64 */
    BATCH_SIM_TIME_S = 4,   /* double */
    BATCH_ROWS = 5,         /* repeated TelemetryRow */
    BATCH_WALL_TIME_NS = 6, /* uint64 */
    ROW_VEHICLE_ID = 1,     /* TelemetryRow.vehicle_id: uint32 */
    ROW_VALUES = 2,         /* repeated double, packed */
};

/* One row's bytes after its own key and length: the vehicle id and the
 * packed values (proto3 omits an empty packed field; chans is never empty
 * here, so it is always written). */
static size_t row_body_len(pdk_vehicle_id id, size_t n_chans)
{
    size_t values = 8u * n_chans;
    return (id != 0 ? 1u + pdk_wire_varint_size(id) : 0u) + 1u + pdk_wire_varint_size(values) +
           values;
}

pdk_error pdk_wire_telemetry_common(const pdk_world *world, uint64_t session_id,
                                    uint64_t wall_time_ns, const pdk_vehicle_id *ids, size_t n,
                                    const int *chans, size_t n_chans, pdk_buf *out)
{
    if (world == NULL || out == NULL || chans == NULL || n_chans == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    for (size_t c = 0; c < n_chans; c++) {
        if (chans[c] < 0 || chans[c] >= PDK_CH_COUNT) {
            return PDK_ERR_INVALID_ARGUMENT;
        }
    }
    size_t start = out->len;
    uint64_t tick = pdk_world_tick(world);
    double time_s = pdk_world_time_s(world);
    /* The header's fields, each at most a key and ten bytes. */
    pdk_error err = pdk_buf_reserve(out, 3u * (1u + PDK_WIRE_VARINT_MAX) + 9u);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = out->data + out->len;
    if (session_id != 0) {
        p = pdk_wire_put_varint_field(p, BATCH_SESSION_ID, session_id);
    }
    if (tick != 0) {
        p = pdk_wire_put_varint_field(p, BATCH_TICK, tick);
    }
    /* Zero is left out as proto3 leaves out a default; sim time is never
     * negative, so -0.0 never has to be told from it. */
    uint64_t time_bits;
    memcpy(&time_bits, &time_s, sizeof time_bits);
    if (time_bits != 0) {
        p = pdk_wire_put_double_field(p, BATCH_SIM_TIME_S, time_s);
    }
    out->len = (size_t)(p - out->data);

    size_t count = ids != NULL ? n : (size_t)pdk_world_vehicle_count(world);
    for (size_t i = 0; i < count; i++) {
        pdk_vehicle_id id = ids != NULL ? ids[i] : pdk_world_vehicle_at(world, (int)i);
        const double *v = pdk_world_channels(world, id);
        if (v == NULL) {
            continue; /* removed since the subscription named it */
        }
        size_t body = row_body_len(id, n_chans);
        err = pdk_buf_reserve(out, 1u + PDK_WIRE_VARINT_MAX + body);
        if (err != PDK_OK) {
            out->len = start;
            return err;
        }
        p = out->data + out->len;
        p = pdk_wire_put_key(p, BATCH_ROWS, PDK_WT_LEN);
        p = pdk_wire_put_varint(p, body);
        if (id != 0) {
            p = pdk_wire_put_varint_field(p, ROW_VEHICLE_ID, id);
        }
        p = pdk_wire_put_key(p, ROW_VALUES, PDK_WT_LEN);
        p = pdk_wire_put_varint(p, 8u * n_chans);
        for (size_t c = 0; c < n_chans; c++) {
            uint64_t bits;
            memcpy(&bits, &v[chans[c]], sizeof bits);
            p = pdk_wire_put_fixed64(p, bits);
        }
        out->len = (size_t)(p - out->data);
    }
    if (wall_time_ns != 0) {
        err = pdk_buf_reserve(out, 1u + PDK_WIRE_VARINT_MAX);
        if (err != PDK_OK) {
            out->len = start;
            return err;
        }
        p = pdk_wire_put_varint_field(out->data + out->len, BATCH_WALL_TIME_NS, wall_time_ns);
        out->len = (size_t)(p - out->data);
    }
    return PDK_OK;
}

size_t pdk_wire_telemetry_frame_head(uint32_t subscription_id, size_t common_len,
                                     uint8_t head[PDK_WIRE_FRAME_HEAD_MAX])
{
    return pdk_wire_frame_with_sub_head(PADDOCK__V1__FRAME__BODY_TELEMETRY_BATCH, subscription_id,
                                        common_len, head);
}
