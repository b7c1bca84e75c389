/* wire_snapshot: a world's snapshot as a protobuf WorldSnapshot
 * (proto/paddock/v1/snapshot.proto) through protobuf-c, and its restore into
 * a staging world through sim's restore calls (sim/snapshot.h), every
 * refusal named. */
#include "wire_snapshot.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paddock/v1/snapshot.pb-c.h"

#include "sim/snapshot.h"
#include "wire_internal.h"

#define PRNG_WORDS 4

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
say(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* The record back from its packed form into rec (record_bytes), or a
 * sentence naming what is wrong with the packed bytes. */
static const char *unpack_words(const uint8_t *packed, size_t len, uint8_t *rec,
                                size_t record_bytes)
{
    size_t words = record_bytes / 8u;
    size_t map = pdk_wire_bitmap_bytes(words);
    if (len < map) {
        return "its packed state is shorter than the bitmap of its words";
    }
    const uint8_t *w = packed + map;
    const uint8_t *end = packed + len;
    for (size_t i = 0; i < words; i++) {
        uint64_t v = 0u;
        if (packed[i / 8u] & (1u << (i % 8u))) {
            if (end - w < 8) {
                return "its packed state holds fewer words than its bitmap marks";
            }
            memcpy(&v, w, 8u);
            w += 8u;
        }
        memcpy(rec + 8u * i, &v, 8u);
    }
    if (w != end) {
        return "its packed state holds more words than its bitmap marks";
    }
    if (words % 8u != 0u && (packed[map - 1u] >> (words % 8u)) != 0u) {
        return "its packed state's bitmap marks words beyond the record";
    }
    return NULL;
}

/* Grows *arr to hold at least n bytes (the arrays of
 * pdk_wire_snapshot_scratch keep their size between snapshots). */
static bool grow(void **arr, size_t *cap, size_t n)
{
    if (n <= *cap) {
        return true;
    }
    void *p = realloc(*arr, n);
    if (p == NULL) {
        return false;
    }
    *arr = p;
    *cap = n;
    return true;
}

void pdk_wire_snapshot_scratch_free(pdk_wire_snapshot_scratch *scratch)
{
    if (scratch == NULL) {
        return;
    }
    free(scratch->generations);
    free(scratch->record);
    free(scratch->packed);
    *scratch = (pdk_wire_snapshot_scratch){0};
}

/* ---- the WorldSnapshot, field by field ------------------------------------ */

/* snapshot.proto's field numbers. The encoder
 * writes the bytes protobuf-c's pack writes for the same message: fields
 * in number order, proto3's zero scalars left out (doubles equal to 0.0,
 * -0.0 included, as protobuf-c does), repeated scalars packed. test_snapshot
 * checks that packing the decoded message again gives the same bytes. */
enum {
    WS_TICK = 1,
    WS_SEED = 2,
    WS_PRNG = 3,
    WS_CAPACITY = 4,
    WS_GENERATIONS = 5,
    WS_VEHICLES = 6,
    WS_STATE_HASH = 7,
    WS_STATE_LAYOUT = 8,
    WS_BUILD_ID = 9,
    WS_RECORD_BYTES = 10,
    WS_PROXY_GENERATIONS = 11,
    WS_PROXIES = 12,
    PS_PROXY_ID = 1,
    PS_VALUES = 2,
    VS_VEHICLE_ID = 1,
    VS_MODEL = 2,
    VS_X = 3,
    VS_Y = 4,
    VS_Z = 5,
    VS_YAW = 6,
    VS_SPEED = 7,
    VS_FAULTED = 8,
    VS_STATE = 9,
    VS_STATE_WORDS = 10,
};

/* At most this many bytes: a key (fields below 16), a varint, a double. */
enum { KEY_MAX = 1, VARINT_MAX = 10, I64_FIELD = 1 + 8 };

/* A ProxySnapshot's numbers (snapshot.proto says their order). */
enum { PROXY_VALUES = 19 };

/* The proto3 scalars, left out when zero (wire_internal.h writes them). */
static uint8_t *put_varint_field(uint8_t *p, unsigned field, uint64_t v)
{
    return v != 0u ? pdk_wire_put_varint_field(p, field, v) : p;
}

static uint8_t *put_fixed64_field(uint8_t *p, unsigned field, uint64_t v)
{
    return v != 0u ? pdk_wire_put_fixed64(pdk_wire_put_key(p, field, PDK_WT_I64), v) : p;
}

static uint8_t *put_double_field(uint8_t *p, unsigned field, double v)
{
    return v != 0.0 ? pdk_wire_put_double_field(p, field, v) : p;
}

static uint8_t *put_bytes_field(uint8_t *p, unsigned field, const void *data, size_t len)
{
    if (len == 0) {
        return p;
    }
    p = pdk_wire_put_varint(pdk_wire_put_key(p, field, PDK_WT_LEN), len);
    memcpy(p, data, len);
    return p + len;
}

static size_t varint_field_size(uint64_t v)
{
    return v != 0u ? KEY_MAX + pdk_wire_varint_size(v) : 0u;
}

static size_t double_field_size(double v)
{
    return v != 0.0 ? I64_FIELD : 0u;
}

static size_t bytes_field_size(size_t len)
{
    return len != 0u ? KEY_MAX + pdk_wire_varint_size(len) + len : 0u;
}

/* A VehicleSnapshot's fields at p (its key and length written by the
 * caller); body is its state, packed or whole, of body_len bytes. */
static uint8_t *put_vehicle(uint8_t *p, pdk_vehicle_id id, uint32_t model,
                            const pdk_vehicle_pose *pose, bool words, const uint8_t *body,
                            size_t body_len)
{
    p = put_varint_field(p, VS_VEHICLE_ID, id);
    p = put_varint_field(p, VS_MODEL, model);
    p = put_double_field(p, VS_X, pose->x_m);
    p = put_double_field(p, VS_Y, pose->y_m);
    p = put_double_field(p, VS_Z, pose->z_m);
    p = put_double_field(p, VS_YAW, pose->yaw_rad);
    p = put_double_field(p, VS_SPEED, pose->speed_mps);
    p = put_varint_field(p, VS_FAULTED, pose->faulted != 0);
    return put_bytes_field(p, words ? VS_STATE_WORDS : VS_STATE, body, body_len);
}

static size_t vehicle_size(pdk_vehicle_id id, uint32_t model, const pdk_vehicle_pose *pose,
                           size_t body_len)
{
    return varint_field_size(id) + varint_field_size(model) + double_field_size(pose->x_m) +
           double_field_size(pose->y_m) + double_field_size(pose->z_m) +
           double_field_size(pose->yaw_rad) + double_field_size(pose->speed_mps) +
           varint_field_size(pose->faulted != 0) + bytes_field_size(body_len);
}

/* A proxy's numbers in ProxySnapshot's order, and back. */
static void proxy_values(const pdk_proxy_def *def, const pdk_proxy_pose *pose,
                         double v[PROXY_VALUES])
{
    memcpy(&v[0], def->half_extent_m, 3 * sizeof(double));
    v[3] = def->mass_kg;
    v[4] = def->material.friction;
    v[5] = def->material.restitution;
    memcpy(&v[6], pose->pos_m, 3 * sizeof(double));
    memcpy(&v[9], pose->quat, 4 * sizeof(double));
    memcpy(&v[13], pose->vel_mps, 3 * sizeof(double));
    memcpy(&v[16], pose->omega_radps, 3 * sizeof(double));
}

static void proxy_from_values(const double v[PROXY_VALUES], pdk_proxy_def *def,
                              pdk_proxy_pose *pose)
{
    memcpy(def->half_extent_m, &v[0], 3 * sizeof(double));
    def->mass_kg = v[3];
    def->material.friction = v[4];
    def->material.restitution = v[5];
    memcpy(pose->pos_m, &v[6], 3 * sizeof(double));
    memcpy(pose->quat, &v[9], 4 * sizeof(double));
    memcpy(pose->vel_mps, &v[13], 3 * sizeof(double));
    memcpy(pose->omega_radps, &v[16], 3 * sizeof(double));
}

/* The proxies' fields at p (room reserved by the caller): nothing in a
 * world that never held a proxy (all generations 0, none alive), so its
 * snapshot is the bytes it always was. generations has capacity entries
 * of room. */
static uint8_t *put_proxies(uint8_t *p, const pdk_world *world, uint32_t *generations,
                            size_t capacity)
{
    pdk_error err = pdk_world_proxy_generations(world, generations, capacity);
    PDK_ASSERT(err == PDK_OK);
    const int count = pdk_world_proxy_count(world);
    size_t len = 0;
    bool any = count > 0;
    for (size_t i = 0; i < capacity; i++) {
        len += pdk_wire_varint_size(generations[i]);
        any = any || generations[i] != 0u;
    }
    if (!any) {
        return p;
    }
    p = pdk_wire_put_varint(pdk_wire_put_key(p, WS_PROXY_GENERATIONS, PDK_WT_LEN), len);
    for (size_t i = 0; i < capacity; i++) {
        p = pdk_wire_put_varint(p, generations[i]);
    }
    for (int i = 0; i < count; i++) {
        pdk_proxy_id id = pdk_world_proxy_at(world, i);
        pdk_proxy_def def;
        pdk_proxy_pose pose;
        err = pdk_world_proxy_get(world, id, &def, &pose, NULL);
        PDK_ASSERT(err == PDK_OK);
        double v[PROXY_VALUES];
        proxy_values(&def, &pose, v);
        const size_t values_len = 8u * PROXY_VALUES;
        const size_t body =
            varint_field_size(id) + KEY_MAX + pdk_wire_varint_size(values_len) + values_len;
        p = pdk_wire_put_varint(pdk_wire_put_key(p, WS_PROXIES, PDK_WT_LEN), body);
        p = put_varint_field(p, PS_PROXY_ID, id);
        p = pdk_wire_put_varint(pdk_wire_put_key(p, PS_VALUES, PDK_WT_LEN), values_len);
        for (int k = 0; k < PROXY_VALUES; k++) {
            uint64_t bits;
            memcpy(&bits, &v[k], sizeof(bits));
            p = pdk_wire_put_fixed64(p, bits);
        }
    }
    return p;
}

pdk_error pdk_wire_snapshot_encode(const pdk_world *world, const char *build_id, pdk_buf *out)
{
    pdk_wire_snapshot_scratch scratch = {0};
    pdk_error err =
        pdk_wire_snapshot_encode_with(&scratch, world, pdk_world_hash(world), build_id, out);
    pdk_wire_snapshot_scratch_free(&scratch);
    return err;
}

/* What an encode of world needs to know once: its head, the record's
 * size and form, the build id, and each part's bytes at their largest. */
typedef struct encode_plan {
    pdk_world_snapshot_head head;
    size_t capacity, count, record_bytes;
    bool words; /* else kept whole: no build has such a record */
    const char *build;
    size_t build_len;
    size_t vehicle_max; /* one vehicle's entry, its key and length included */
    size_t head_max, tail_max;
} encode_plan;

/* Plans world's encode and grows scratch for it (PDK_ERR_NO_MEMORY). */
static pdk_error plan(pdk_wire_snapshot_scratch *sc, const pdk_world *world, const char *build_id,
                      encode_plan *pl)
{
    pdk_world_snapshot_head_get(world, &pl->head);
    pl->capacity = (size_t)pl->head.capacity;
    pl->count = (size_t)pl->head.count;
    pl->record_bytes = pdk_snapshot_vehicle_bytes();
    pl->words = pl->record_bytes % 8u == 0u;
    pl->build = build_id != NULL ? build_id : "";
    pl->build_len = strlen(pl->build);
    /* One vehicle's record and its packed form at a time (they stay in the
     * cache), the generations; then the message straight into out, whose
     * room is reserved once: every field at its largest. */
    pl->vehicle_max = KEY_MAX + VARINT_MAX + 2 * (KEY_MAX + VARINT_MAX) + 5 * I64_FIELD + KEY_MAX +
                      1 + KEY_MAX + VARINT_MAX + pdk_wire_packed_max(pl->record_bytes);
    pl->head_max = 2 * (KEY_MAX + VARINT_MAX) + KEY_MAX + VARINT_MAX + 8 * PRNG_WORDS + KEY_MAX +
                   VARINT_MAX + KEY_MAX + VARINT_MAX + 5 * pl->capacity;
    /* The hash, the layout, the build id, the record's size; then the
     * proxies: their slots' generations and each live one. */
    const size_t n_proxies = (size_t)pdk_world_proxy_count(world);
    pl->tail_max =
        2 * I64_FIELD + KEY_MAX + VARINT_MAX + pl->build_len + KEY_MAX + VARINT_MAX + KEY_MAX +
        VARINT_MAX + 5 * pl->capacity +
        n_proxies * (3 * (KEY_MAX + VARINT_MAX) + KEY_MAX + VARINT_MAX + 8u * PROXY_VALUES);
    if (pl->count > (SIZE_MAX - pl->head_max - pl->tail_max) / pl->vehicle_max ||
        !grow(&sc->generations, &sc->cap_generations, (pl->capacity + 1u) * sizeof(uint32_t)) ||
        !grow(&sc->record, &sc->cap_record, pl->record_bytes) ||
        !grow(&sc->packed, &sc->cap_packed, pdk_wire_packed_max(pl->record_bytes))) {
        return PDK_ERR_NO_MEMORY;
    }
    return PDK_OK;
}

/* The snapshot's fields before its vehicles: tick, seed, PRNG, capacity,
 * the slots' generations. */
static uint8_t *put_head(uint8_t *p, const pdk_world *world, const encode_plan *pl,
                         uint32_t *generations)
{
    pdk_error err = pdk_world_snapshot_generations(world, generations, pl->capacity);
    PDK_ASSERT(err == PDK_OK);
    p = put_varint_field(p, WS_TICK, pl->head.tick);
    p = put_varint_field(p, WS_SEED, pl->head.seed);
    p = pdk_wire_put_varint(pdk_wire_put_key(p, WS_PRNG, PDK_WT_LEN), 8u * PRNG_WORDS);
    for (int i = 0; i < PRNG_WORDS; i++) {
        p = pdk_wire_put_fixed64(p, pl->head.prng[i]);
    }
    p = put_varint_field(p, WS_CAPACITY, (uint32_t)pl->head.capacity);
    if (pl->capacity > 0) {
        size_t len = 0;
        for (size_t i = 0; i < pl->capacity; i++) {
            len += pdk_wire_varint_size(generations[i]);
        }
        p = pdk_wire_put_varint(pdk_wire_put_key(p, WS_GENERATIONS, PDK_WT_LEN), len);
        for (size_t i = 0; i < pl->capacity; i++) {
            p = pdk_wire_put_varint(p, generations[i]);
        }
    }
    return p;
}

/* The entries of the vehicles first..first+n-1 of world's list. */
static uint8_t *put_vehicles(uint8_t *p, const pdk_world *world, const encode_plan *pl,
                             pdk_wire_snapshot_scratch *sc, size_t first, size_t n)
{
    uint8_t *const rec = sc->record;
    uint8_t *const packed = sc->packed;
    /* The packing's build, resolved once for every vehicle. */
    const pdk_fw_build pack_build = pdk_fw_build_resolve(PDK_FW_BUILD_BEST);
    for (size_t i = first; i < first + n; i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(world, (int)i);
        const uint8_t *body = pl->words ? packed : rec;
        size_t body_len = pl->record_bytes;
        if (pl->words) {
            /* Packed where the record lies in the world, never copied. */
            uint64_t head[2];
            pdk_record_span spans[PDK_RECORD_SPANS];
            const int n_spans = pdk_world_snapshot_vehicle_spans(world, id, head, spans);
            PDK_ASSERT(n_spans > 0);
            body_len = pdk_wire_pack_spans_build(spans, (size_t)n_spans, pl->record_bytes, packed,
                                                 pack_build);
        } else {
            pdk_error err = pdk_world_snapshot_vehicle(world, id, rec, pl->record_bytes);
            PDK_ASSERT(err == PDK_OK);
        }
        pdk_vehicle_pose pose;
        pdk_error err = pdk_world_vehicle_pose(world, id, &pose);
        PDK_ASSERT(err == PDK_OK);
        const uint32_t model = (uint32_t)pdk_world_vehicle_def(world, id)->model;
        p = pdk_wire_put_varint(pdk_wire_put_key(p, WS_VEHICLES, PDK_WT_LEN),
                                vehicle_size(id, model, &pose, body_len));
        p = put_vehicle(p, id, model, &pose, pl->words, body, body_len);
    }
    return p;
}

/* The snapshot's fields after its vehicles; state_hash is the world's. */
static uint8_t *put_tail(uint8_t *p, const pdk_world *world, uint64_t state_hash,
                         const encode_plan *pl, uint32_t *generations)
{
    p = put_fixed64_field(p, WS_STATE_HASH, state_hash);
    p = put_fixed64_field(p, WS_STATE_LAYOUT, pdk_snapshot_layout());
    p = put_bytes_field(p, WS_BUILD_ID, pl->build, pl->build_len);
    p = put_varint_field(p, WS_RECORD_BYTES, (uint32_t)pl->record_bytes);
    return put_proxies(p, world, generations, pl->capacity);
}

pdk_error pdk_wire_snapshot_encode_with(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                        uint64_t state_hash, const char *build_id, pdk_buf *out)
{
    if (scratch == NULL || world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    encode_plan pl;
    pdk_error err = plan(scratch, world, build_id, &pl);
    if (err != PDK_OK) {
        return err;
    }
    pdk_buf_reset(out);
    err = pdk_buf_reserve(out, pl.head_max + pl.count * pl.vehicle_max + pl.tail_max);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = put_head(out->data, world, &pl, scratch->generations);
    p = put_vehicles(p, world, &pl, scratch, 0, pl.count);
    p = put_tail(p, world, state_hash, &pl, scratch->generations);
    out->len = (size_t)(p - out->data);
    return PDK_OK;
}

pdk_error pdk_wire_snapshot_vehicles(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                     int first, int n, pdk_buf *out)
{
    if (scratch == NULL || world == NULL || out == NULL || first < 0 || n < 0 ||
        first > pdk_world_vehicle_count(world) - n) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    encode_plan pl;
    pdk_error err = plan(scratch, world, NULL, &pl);
    if (err == PDK_OK) {
        err = pdk_buf_reserve(out, (size_t)n * pl.vehicle_max);
    }
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = put_vehicles(out->data + out->len, world, &pl, scratch, (size_t)first, (size_t)n);
    out->len = (size_t)(p - out->data);
    return PDK_OK;
}

pdk_error pdk_wire_snapshot_encode_parts(pdk_wire_snapshot_scratch *scratch, const pdk_world *world,
                                         uint64_t state_hash, const char *build_id,
                                         const pdk_buf *parts, size_t n_parts, pdk_buf *out)
{
    if (scratch == NULL || world == NULL || out == NULL || (parts == NULL && n_parts > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    encode_plan pl;
    pdk_error err = plan(scratch, world, build_id, &pl);
    if (err != PDK_OK) {
        return err;
    }
    size_t vehicles = 0;
    for (size_t i = 0; i < n_parts; i++) {
        vehicles += parts[i].len;
    }
    pdk_buf_reset(out);
    err = pdk_buf_reserve(out, pl.head_max + vehicles + pl.tail_max);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = put_head(out->data, world, &pl, scratch->generations);
    for (size_t i = 0; i < n_parts; i++) {
        if (parts[i].len > 0) {
            memcpy(p, parts[i].data, parts[i].len);
            p += parts[i].len;
        }
    }
    p = put_tail(p, world, state_hash, &pl, scratch->generations);
    out->len = (size_t)(p - out->data);
    return PDK_OK;
}

/* The snapshot in data, or NULL with err said. */
static Paddock__V1__WorldSnapshot *unpack(const uint8_t *data, size_t len, char *err,
                                          size_t err_len)
{
    if (data == NULL || len == 0) {
        /* Zero bytes would parse as a WorldSnapshot of defaults. */
        say(err, err_len, "snapshot: no bytes (not a WorldSnapshot message)");
        return NULL;
    }
    Paddock__V1__WorldSnapshot *msg = (Paddock__V1__WorldSnapshot *)pdk_wire_unpack_bounded(
        &paddock__v1__world_snapshot__descriptor, data, len);
    if (msg == NULL) {
        say(err, err_len, "snapshot: the %zu bytes are not a WorldSnapshot message", len);
    }
    return msg;
}

static void free_msg(Paddock__V1__WorldSnapshot *msg)
{
    protobuf_c_message_free_unpacked(&msg->base, NULL);
}

pdk_error pdk_wire_snapshot_peek(const uint8_t *data, size_t len, uint64_t *tick, uint64_t *hash,
                                 uint64_t *layout)
{
    Paddock__V1__WorldSnapshot *msg = unpack(data, len, NULL, 0);
    if (msg == NULL) {
        return PDK_ERR_PARSE;
    }
    if (tick != NULL) {
        *tick = msg->tick;
    }
    if (hash != NULL) {
        *hash = msg->state_hash;
    }
    if (layout != NULL) {
        *layout = msg->state_layout;
    }
    free_msg(msg);
    return PDK_OK;
}

/* What the message must hold before sim sees it. */
static pdk_error check_message(const Paddock__V1__WorldSnapshot *msg, char *err, size_t err_len)
{
    const size_t record_bytes = pdk_snapshot_vehicle_bytes();
    if (msg->state_layout != pdk_snapshot_layout() || msg->record_bytes != record_bytes) {
        say(err, err_len,
            "snapshot: state_layout %016llx with %u-byte records (build '%s') is not this "
            "build's %016llx with %zu-byte records; re-simulate from the inputs instead",
            (unsigned long long)msg->state_layout, (unsigned)msg->record_bytes,
            msg->build_id != NULL ? msg->build_id : "", (unsigned long long)pdk_snapshot_layout(),
            record_bytes);
        return PDK_ERR_VERSION;
    }
    if (msg->n_prng != PRNG_WORDS) {
        say(err, err_len, "snapshot: prng has %zu words, not 4", msg->n_prng);
        return PDK_ERR_PARSE;
    }
    if (msg->capacity > 65535u || msg->n_generations != msg->capacity) {
        say(err, err_len,
            "snapshot: capacity %u with %zu generations (one per slot, capacity at most 65535)",
            (unsigned)msg->capacity, msg->n_generations);
        return PDK_ERR_PARSE;
    }
    if (msg->n_vehicles > msg->capacity) {
        say(err, err_len, "snapshot: %zu vehicles in a world of capacity %u", msg->n_vehicles,
            (unsigned)msg->capacity);
        return PDK_ERR_PARSE;
    }
    if (msg->n_proxy_generations != 0 && msg->n_proxy_generations != msg->capacity) {
        say(err, err_len, "snapshot: %zu proxy generations in a world of capacity %u",
            msg->n_proxy_generations, (unsigned)msg->capacity);
        return PDK_ERR_PARSE;
    }
    for (size_t i = 0; i < msg->n_proxies; i++) {
        if (msg->proxies[i]->n_values != PROXY_VALUES || msg->n_proxy_generations == 0) {
            say(err, err_len, "snapshot: proxy %u has %zu numbers, not %d, or no generations",
                (unsigned)msg->proxies[i]->proxy_id, msg->proxies[i]->n_values, PROXY_VALUES);
            return PDK_ERR_PARSE;
        }
    }
    for (size_t i = 0; i < msg->n_vehicles; i++) {
        const Paddock__V1__VehicleSnapshot *v = msg->vehicles[i];
        if (v->state_words.len > 0 && record_bytes % 8u == 0u) {
            continue; /* unpacked, and checked, as it is restored */
        }
        if (v->state.len != record_bytes) {
            say(err, err_len,
                "snapshot: vehicle %u's state is %zu bytes, not this build's %zu: a record of "
                "another layout",
                (unsigned)v->vehicle_id, v->state.len, record_bytes);
            return PDK_ERR_VERSION;
        }
    }
    return PDK_OK;
}

static pdk_error restore_into(const Paddock__V1__WorldSnapshot *msg, pdk_world *staging,
                              pdk_snapshot_def_fn def_for, void *ctx, uint8_t *rec, char *err,
                              size_t err_len)
{
    pdk_world_snapshot_head head = {
        .tick = msg->tick,
        .seed = msg->seed,
        .capacity = (int32_t)msg->capacity,
        .count = (int32_t)msg->n_vehicles,
    };
    memcpy(head.prng, msg->prng, sizeof head.prng);
    pdk_error e = pdk_world_restore_head(staging, &head, msg->generations, msg->n_generations);
    if (e != PDK_OK) {
        const char *why = pdk_world_restore_problem(staging);
        say(err, err_len, "snapshot head: %s", why != NULL ? why : pdk_error_message(e));
        return e;
    }
    for (size_t i = 0; i < msg->n_vehicles; i++) {
        const Paddock__V1__VehicleSnapshot *v = msg->vehicles[i];
        pdk_vehicle_id id = v->vehicle_id;
        const pdk_vehicle_def *def = def_for(ctx, id);
        if (def == NULL) {
            say(err, err_len,
                "snapshot: no definition for vehicle %u (slot %u, generation %u) to restore it "
                "from",
                (unsigned)id, (unsigned)(id & 0xFFFFu) - 1u, (unsigned)(id >> 16));
            return PDK_ERR_NOT_FOUND;
        }
        const uint8_t *state = v->state.data;
        size_t state_len = v->state.len;
        if (v->state_words.len > 0) {
            const size_t record_bytes = pdk_snapshot_vehicle_bytes();
            const char *bad =
                unpack_words(v->state_words.data, v->state_words.len, rec, record_bytes);
            if (bad != NULL) {
                say(err, err_len, "snapshot: vehicle %u: %s", (unsigned)id, bad);
                return PDK_ERR_PARSE;
            }
            state = rec;
            state_len = record_bytes;
        }
        e = pdk_world_restore_vehicle(staging, id, def, state, state_len);
        if (e != PDK_OK) {
            const char *why = pdk_world_restore_problem(staging);
            say(err, err_len, "snapshot: vehicle %u (slot %u, generation %u): %s", (unsigned)id,
                (unsigned)(id & 0xFFFFu) - 1u, (unsigned)(id >> 16),
                why != NULL ? why : pdk_error_message(e));
            return e;
        }
    }
    if (msg->n_proxy_generations > 0) {
        e = pdk_world_restore_proxy_generations(staging, msg->proxy_generations,
                                                msg->n_proxy_generations);
        if (e != PDK_OK) {
            say(err, err_len, "snapshot: proxy generations: %s", pdk_error_message(e));
            return e;
        }
    }
    for (size_t i = 0; i < msg->n_proxies; i++) {
        const Paddock__V1__ProxySnapshot *ps = msg->proxies[i];
        pdk_proxy_def def;
        pdk_proxy_pose pose;
        proxy_from_values(ps->values, &def, &pose);
        e = pdk_world_restore_proxy(staging, ps->proxy_id, &def, &pose);
        if (e != PDK_OK) {
            const char *why = pdk_world_restore_proxy_problem(staging, ps->proxy_id, &def, &pose);
            say(err, err_len, "snapshot: proxy %u: %s", (unsigned)ps->proxy_id,
                why != NULL ? why : pdk_error_message(e));
            return e;
        }
    }
    e = pdk_world_restore_end(staging);
    if (e != PDK_OK) {
        const char *why = pdk_world_restore_problem(staging);
        say(err, err_len, "snapshot: %s", why != NULL ? why : pdk_error_message(e));
        return e;
    }
    uint64_t restored = pdk_world_hash(staging);
    if (restored != msg->state_hash) {
        say(err, err_len,
            "snapshot: the restored world's state hash %016llx at tick %llu is not the "
            "snapshot's %016llx: the records did not restore the state they describe",
            (unsigned long long)restored, (unsigned long long)msg->tick,
            (unsigned long long)msg->state_hash);
        return PDK_ERR_VERSION;
    }
    return PDK_OK;
}

pdk_error pdk_wire_snapshot_restore(const uint8_t *data, size_t len, pdk_world *staging,
                                    pdk_snapshot_def_fn def_for, void *ctx, uint64_t *tick,
                                    char *err, size_t err_len)
{
    say(err, err_len, "%s", "");
    if (staging == NULL || def_for == NULL) {
        say(err, err_len, "snapshot: %s is NULL", staging == NULL ? "staging world" : "def_for");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    Paddock__V1__WorldSnapshot *msg = unpack(data, len, err, err_len);
    if (msg == NULL) {
        return PDK_ERR_PARSE;
    }
    pdk_error e = check_message(msg, err, err_len);
    uint8_t *rec = NULL;
    if (e == PDK_OK) {
        rec = malloc(pdk_snapshot_vehicle_bytes());
        if (rec == NULL) {
            say(err, err_len, "snapshot: out of memory");
            e = PDK_ERR_NO_MEMORY;
        }
    }
    if (e == PDK_OK) {
        e = restore_into(msg, staging, def_for, ctx, rec, err, err_len);
    }
    free(rec);
    if (e == PDK_OK && tick != NULL) {
        *tick = msg->tick;
    }
    free_msg(msg);
    return e;
}
