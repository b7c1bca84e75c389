/* wire: Paddock's byte buffer, varints, whole-Frame encode, check and
 * decode through protobuf-c, and the conversions between protobuf-c's
 * generated messages and sim's structs (errors, gears, DBW and tyre commands,
 * poses, and the state batch encoded once per tick and shared by every
 * subscriber). */
#include "wire.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

/* Field numbers the hand-built state frame relies on
 * (proto/paddock/v1/paddock.proto). The round-trip tests decode what these
 * produce with protobuf-c, so a renumbering cannot go unnoticed. */
enum {
    SUBSCRIPTION_ID = 1,       /* StateBatch.subscription_id, DbwReport.subscription_id: uint32 */
    STATE_BATCH_VEHICLES = 5,  /* StateBatch.vehicles, repeated VehicleState */
    STATE_BATCH_WALL_TIME = 6, /* StateBatch.wall_time_ns: uint64 */
    STATE_BATCH_PART = 7,      /* StateBatch.part: uint32 */
    STATE_BATCH_PARTS = 8,     /* StateBatch.parts: uint32 */
};

/* Decoding an untrusted frame may allocate at most this many bytes: protobuf-c
 * would otherwise turn a 1 MiB frame of 2-byte empty submessages into ~100 MiB
 * of structs; a ProtobufCAllocator with a budget bounds it. */
#define DECODE_BUDGET_BASE ((size_t)64 * 1024)
#define DECODE_BUDGET_PER_BYTE ((size_t)16)

/* ---- pdk_buf ------------------------------------------------------------ */

pdk_error pdk_buf_reserve(pdk_buf *buf, size_t extra)
{
    if (buf == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    /* No object may be larger than PTRDIFF_MAX; asking for one is refused
     * here rather than handed to realloc. */
    if (extra > (size_t)PTRDIFF_MAX - buf->len) {
        return PDK_ERR_NO_MEMORY;
    }
    size_t need = buf->len + extra;
    if (need <= buf->cap) {
        return PDK_OK;
    }
    size_t cap = buf->cap < 64 ? 64 : buf->cap;
    while (cap < need) {
        cap = cap > (size_t)PTRDIFF_MAX / 2 ? need : cap * 2;
    }
    uint8_t *data = realloc(buf->data, cap);
    if (data == NULL) {
        return PDK_ERR_NO_MEMORY;
    }
    buf->data = data;
    buf->cap = cap;
    return PDK_OK;
}

pdk_error pdk_buf_append(pdk_buf *buf, const void *bytes, size_t n)
{
    if (buf == NULL || (bytes == NULL && n > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_error err = pdk_buf_reserve(buf, n);
    if (err != PDK_OK) {
        return err;
    }
    if (n > 0) {
        memcpy(buf->data + buf->len, bytes, n);
        buf->len += n;
    }
    return PDK_OK;
}

void pdk_buf_reset(pdk_buf *buf)
{
    if (buf != NULL) {
        buf->len = 0;
    }
}

void pdk_buf_free(pdk_buf *buf)
{
    if (buf == NULL) {
        return;
    }
    free(buf->data);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
}

/* ---- varints -------------------------------------------------------------- */

size_t pdk_wire_varint_put(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

int pdk_wire_varint_get(const uint8_t *in, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < PDK_WIRE_VARINT_MAX; i++) {
        if (i == n) {
            return 0; /* need more bytes */
        }
        uint8_t b = in[i];
        /* The tenth byte holds bit 63 only: anything above would overflow. */
        if (i == PDK_WIRE_VARINT_MAX - 1 && b > 1) {
            return -1;
        }
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            *out = v;
            return (int)i + 1;
        }
    }
    return -1;
}

/* ---- frames ------------------------------------------------------------- */

pdk_error pdk_wire_frame_append(pdk_buf *out, const Paddock__V1__Frame *frame)
{
    if (out == NULL || frame == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t len = paddock__v1__frame__get_packed_size(frame);
    pdk_error err = pdk_buf_reserve(out, len);
    if (err != PDK_OK) {
        return err;
    }
    size_t packed = paddock__v1__frame__pack(frame, out->data + out->len);
    PDK_ASSERT(packed == len);
    out->len += len;
    return PDK_OK;
}

/* Walks the top-level field headers only: a transport calls this on every
 * frame it is handed, so it must cost a few varint reads, never a decode. */
pdk_error pdk_wire_frame_check(const uint8_t *bytes, size_t len)
{
    if (bytes == NULL || len == 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t off = 0;
    int request_ids = 0;
    int bodies = 0;
    while (off < len) {
        uint64_t key = 0;
        int n = pdk_wire_varint_get(bytes + off, len - off, &key);
        if (n <= 0) {
            return PDK_ERR_INVALID_ARGUMENT;
        }
        off += (size_t)n;
        uint64_t field = key >> 3;
        uint64_t wire_type = key & 7u;
        uint64_t v = 0;
        if (field == 0) { /* no field has number 0 */
            return PDK_ERR_INVALID_ARGUMENT;
        }
        if (field == 1 && wire_type == PDK_WT_VARINT) { /* request_id */
            n = pdk_wire_varint_get(bytes + off, len - off, &v);
            if (n <= 0) {
                return PDK_ERR_INVALID_ARGUMENT;
            }
            off += (size_t)n;
            request_ids++;
        } else if (field != 1 && wire_type == PDK_WT_LEN) { /* one of the bodies */
            n = pdk_wire_varint_get(bytes + off, len - off, &v);
            if (n <= 0 || v > len - off - (size_t)n) {
                return PDK_ERR_INVALID_ARGUMENT;
            }
            off += (size_t)n + (size_t)v;
            bodies++;
        } else {
            return PDK_ERR_INVALID_ARGUMENT;
        }
    }
    /* Two frames run together would still parse as one (protobuf merges
     * concatenated messages), so a repeated field is refused. */
    return request_ids <= 1 && bodies == 1 ? PDK_OK : PDK_ERR_INVALID_ARGUMENT;
}

typedef struct decode_budget {
    size_t left;
} decode_budget;

/* Zeroed memory, so no field protobuf-c forgets to initialise can hold
 * garbage a later free would trust. */
static void *budget_alloc(void *data, size_t size)
{
    decode_budget *budget = data;
    if (size > budget->left) {
        return NULL;
    }
    budget->left -= size;
    return calloc(1, size > 0 ? size : 1);
}

static void budget_free(void *data, void *ptr)
{
    (void)data;
    free(ptr);
}

static size_t decode_budget_for(size_t len)
{
    if (len > (SIZE_MAX - DECODE_BUDGET_BASE) / DECODE_BUDGET_PER_BYTE) {
        return SIZE_MAX;
    }
    return DECODE_BUDGET_BASE + len * DECODE_BUDGET_PER_BYTE;
}

ProtobufCMessage *pdk_wire_unpack_bounded(const ProtobufCMessageDescriptor *desc,
                                          const uint8_t *body, size_t len)
{
    static const uint8_t empty[1] = {0};
    decode_budget budget = {decode_budget_for(len)};
    ProtobufCAllocator allocator = {
        .alloc = budget_alloc, .free = budget_free, .allocator_data = &budget};
    return protobuf_c_message_unpack(desc, &allocator, len, body != NULL ? body : empty);
}

/* Zeroed, as budget_alloc's; 16-byte aligned, as malloc's. */
static void *arena_alloc(void *data, size_t size)
{
    pdk_wire_arena *arena = data;
    size_t need = size > 0 ? (size + 15u) & ~(size_t)15u : 16u;
    if (need < size || need > sizeof(arena->bytes) - arena->used) {
        arena->overflowed = true;
        return NULL;
    }
    void *p = arena->bytes + arena->used;
    arena->used += need;
    memset(p, 0, size);
    return p;
}

static void arena_free(void *data, void *ptr)
{
    (void)data;
    (void)ptr; /* the arena goes as a whole */
}

ProtobufCMessage *pdk_wire_unpack_small(const ProtobufCMessageDescriptor *desc, const uint8_t *body,
                                        size_t len, pdk_wire_arena *arena, bool *heap)
{
    static const uint8_t empty[1] = {0};
    *heap = false;
    arena->used = 0;
    arena->overflowed = false;
    ProtobufCAllocator allocator = {
        .alloc = arena_alloc, .free = arena_free, .allocator_data = arena};
    ProtobufCMessage *msg =
        protobuf_c_message_unpack(desc, &allocator, len, body != NULL ? body : empty);
    if (msg == NULL && arena->overflowed) {
        msg = pdk_wire_unpack_bounded(desc, body, len);
        *heap = msg != NULL;
    }
    return msg;
}

pdk_error pdk_wire_body_read(const ProtobufCMessageDescriptor *desc, const uint8_t *body,
                             size_t len, pdk_error (*take)(const ProtobufCMessage *msg, void *ud),
                             void *ud)
{
    if (desc == NULL || take == NULL || (body == NULL && len > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_wire_arena arena;
    bool heap;
    ProtobufCMessage *msg = pdk_wire_unpack_small(desc, body, len, &arena, &heap);
    if (msg == NULL) {
        return PDK_ERR_PARSE;
    }
    pdk_error err = take(msg, ud);
    if (heap) {
        protobuf_c_message_free_unpacked(msg, NULL);
    }
    return err;
}

pdk_error pdk_wire_pack_append(pdk_buf *out, const ProtobufCMessage *msg)
{
    size_t len = protobuf_c_message_get_packed_size(msg);
    pdk_error err = pdk_buf_reserve(out, len);
    if (err != PDK_OK) {
        return err;
    }
    size_t packed = protobuf_c_message_pack(msg, out->data + out->len);
    PDK_ASSERT(packed == len);
    out->len += len;
    return PDK_OK;
}

const char *pdk_wire_frame_body_name(Paddock__V1__Frame__BodyCase bc)
{
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(&paddock__v1__frame__descriptor, (unsigned)bc);
    return fd ? fd->name : "unknown";
}

bool pdk_wire_frame_session_id(const Paddock__V1__Frame *f, uint64_t *session_id)
{
    const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(
        &paddock__v1__frame__descriptor, (unsigned)f->body_case);
    if (!fd || fd->type != PROTOBUF_C_TYPE_MESSAGE)
        return false;
    /* A oneof's message member is a pointer at the field's offset. */
    const ProtobufCMessage *body = *(const ProtobufCMessage *const *)((const char *)f + fd->offset);
    if (!body)
        return false;
    const ProtobufCFieldDescriptor *sid =
        protobuf_c_message_descriptor_get_field_by_name(body->descriptor, "session_id");
    if (!sid || sid->type != PROTOBUF_C_TYPE_UINT64 || sid->label == PROTOBUF_C_LABEL_REPEATED)
        return false;
    *session_id = *(const uint64_t *)((const char *)body + sid->offset);
    return true;
}

Paddock__V1__Frame *pdk_wire_frame_decode(const uint8_t *body, size_t len, pdk_error *err)
{
    pdk_error dummy;
    if (err == NULL) {
        err = &dummy;
    }
    if (body == NULL && len > 0) {
        *err = PDK_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    ProtobufCMessage *msg = pdk_wire_unpack_bounded(&paddock__v1__frame__descriptor, body, len);
    if (msg == NULL) {
        *err = PDK_ERR_PROTOCOL;
        return NULL;
    }
    Paddock__V1__Frame *frame = (Paddock__V1__Frame *)msg;
    if (frame->body_case == PADDOCK__V1__FRAME__BODY__NOT_SET) {
        protobuf_c_message_free_unpacked(msg, NULL);
        *err = PDK_ERR_PROTOCOL;
        return NULL;
    }
    *err = PDK_OK;
    return frame;
}

void pdk_wire_frame_free(Paddock__V1__Frame *frame)
{
    if (frame != NULL) {
        protobuf_c_message_free_unpacked(&frame->base, NULL);
    }
}

pdk_error pdk_wire_error_append(pdk_buf *out, uint64_t request_id, pdk_error code,
                                const char *message)
{
    Paddock__V1__Error error = PADDOCK__V1__ERROR__INIT;
    error.code = pdk_wire_error_code(code);
    /* protobuf-c packs the string as it is; it only reads it. */
    error.message = (char *)(message != NULL ? message : "");
    Paddock__V1__Frame frame = PADDOCK__V1__FRAME__INIT;
    frame.request_id = request_id;
    frame.body_case = PADDOCK__V1__FRAME__BODY_ERROR;
    frame.error = &error;
    return pdk_wire_frame_append(out, &frame);
}

/* ---- errors and gears --------------------------------------------------- */

/* ErrorCode mirrors pdk_error number for number (the test walks
 * PDK_ERROR_LIST against the enum's descriptor, names included). */
Paddock__V1__ErrorCode pdk_wire_error_code(pdk_error err)
{
    switch (err) {
#define WIRE_ERROR_CASE_(name, value, message)                                 \
    case name:                                                                 \
        return (Paddock__V1__ErrorCode)(value);
        PDK_ERROR_LIST(WIRE_ERROR_CASE_)
#undef WIRE_ERROR_CASE_
    }
    return PADDOCK__V1__ERROR_CODE__PROTOCOL;
}

pdk_error pdk_wire_error_from_pb(Paddock__V1__ErrorCode code)
{
    switch ((int)code) {
#define WIRE_ERROR_FROM_(name, value, message)                                 \
    case value:                                                                \
        return name;
        PDK_ERROR_LIST(WIRE_ERROR_FROM_)
#undef WIRE_ERROR_FROM_
    default:
        return PDK_ERR_PROTOCOL;
    }
}

pdk_error pdk_wire_gear_from_pb(Paddock__V1__Gear gear, pdk_gear *out)
{
    switch (gear) {
    case PADDOCK__V1__GEAR__GEAR_NONE:
        *out = PDK_GEAR_NONE;
        return PDK_OK;
    case PADDOCK__V1__GEAR__GEAR_PARK:
        *out = PDK_GEAR_PARK;
        return PDK_OK;
    case PADDOCK__V1__GEAR__GEAR_REVERSE:
        *out = PDK_GEAR_REVERSE;
        return PDK_OK;
    case PADDOCK__V1__GEAR__GEAR_NEUTRAL:
        *out = PDK_GEAR_NEUTRAL;
        return PDK_OK;
    case PADDOCK__V1__GEAR__GEAR_DRIVE:
        *out = PDK_GEAR_DRIVE;
        return PDK_OK;
    case PADDOCK__V1__GEAR__GEAR_LOW:
        *out = PDK_GEAR_LOW;
        return PDK_OK;
    default:
        return PDK_ERR_OUT_OF_RANGE;
    }
}

/* ---- DBW commands ------------------------------------------------------- */

void pdk_wire_dbw_from_pb(const Paddock__V1__DbwCommand *msg, pdk_dbw_cmd *out)
{
    memset(out, 0, sizeof *out);
    if (msg == NULL) {
        return;
    }
    if (msg->throttle_case == PADDOCK__V1__DBW_COMMAND__THROTTLE_THROTTLE_PCT) {
        out->fields |= PDK_DBW_THROTTLE;
        out->throttle_pct = msg->throttle_pct;
    }
    if (msg->brake_case == PADDOCK__V1__DBW_COMMAND__BRAKE_BRAKE_BAR) {
        out->fields |= PDK_DBW_BRAKE;
        out->brake_bar = msg->brake_bar;
    }
    if (msg->steer_case == PADDOCK__V1__DBW_COMMAND__STEER_STEER_WHEEL_DEG) {
        out->fields |= PDK_DBW_STEER;
        out->steer_wheel_deg = msg->steer_wheel_deg;
    }
    if (msg->gear != PADDOCK__V1__GEAR__GEAR_NONE) {
        /* An unknown value is passed through on purpose: pdk_world_command
         * refuses it with PDK_ERR_OUT_OF_RANGE and the client hears why. */
        out->fields |= PDK_DBW_GEAR;
        out->gear = (pdk_gear)msg->gear;
    }
    if (msg->gear_number_set_case == PADDOCK__V1__DBW_COMMAND__GEAR_NUMBER_SET_GEAR_NUMBER) {
        /* Out of range, it is refused by pdk_world_command with its reason. */
        out->fields |= PDK_DBW_GEAR_NUMBER;
        out->gear_number =
            msg->gear_number > (uint32_t)INT32_MAX ? INT32_MAX : (int32_t)msg->gear_number;
    }
}

/* DbwCommand's fields (proto/paddock/v1/paddock.proto), for the encoder
 * below; test_wire compares its bytes with protobuf-c's. */
enum {
    DBW_SESSION_ID = 1,      /* uint64 */
    DBW_VEHICLE_ID = 2,      /* uint32 */
    DBW_THROTTLE_PCT = 3,    /* oneof throttle, double */
    DBW_BRAKE_BAR = 4,       /* oneof brake, double */
    DBW_STEER_WHEEL_DEG = 5, /* oneof steer, double */
    DBW_GEAR = 6,            /* Gear, an int32 enum */
    DBW_GEAR_NUMBER = 7,     /* oneof gear_number_set, uint32 */
};

/* DbwCommand written out field by field: the bytes protobuf-c's pack writes,
 * which test_wire checks over random commands. A recorded session encodes
 * every driver's command it applies, and protobuf-c's walk of the message's
 * descriptor, cold again by the next command, cost far more than the few
 * stores this takes (ADR 0019). Fields in number order; proto3 leaves out the
 * zero scalars (session_id, vehicle_id, gear) and writes a oneof's member
 * whenever it is set. */
pdk_error pdk_wire_dbw_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                              pdk_buf *out)
{
    if (cmd == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    /* Each key is one byte; a uint64 or an enum's varint is at most ten
     * bytes, a uint32's five, a double eight. */
    enum { MAX_LEN = (1 + 10) + (1 + 5) + 3 * (1 + 8) + (1 + 10) + (1 + 5) };
    pdk_error err = pdk_buf_reserve(out, MAX_LEN);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *const start = out->data + out->len;
    uint8_t *p = start;
    if (session_id != 0) {
        p = pdk_wire_put_varint_field(p, DBW_SESSION_ID, session_id);
    }
    if (id != 0) {
        p = pdk_wire_put_varint_field(p, DBW_VEHICLE_ID, id);
    }
    if (cmd->fields & PDK_DBW_THROTTLE) {
        p = pdk_wire_put_double_field(p, DBW_THROTTLE_PCT, cmd->throttle_pct);
    }
    if (cmd->fields & PDK_DBW_BRAKE) {
        p = pdk_wire_put_double_field(p, DBW_BRAKE_BAR, cmd->brake_bar);
    }
    if (cmd->fields & PDK_DBW_STEER) {
        p = pdk_wire_put_double_field(p, DBW_STEER_WHEEL_DEG, cmd->steer_wheel_deg);
    }
    if ((cmd->fields & PDK_DBW_GEAR) && cmd->gear != PDK_GEAR_NONE) {
        /* An int32 on the wire as protobuf writes one: sign-extended to 64
         * bits, so a negative value takes ten bytes. */
        p = pdk_wire_put_varint_field(p, DBW_GEAR, (uint64_t)(int64_t)(int32_t)cmd->gear);
    }
    if ((cmd->fields & PDK_DBW_GEAR_NUMBER) && cmd->gear_number > 0) {
        p = pdk_wire_put_varint_field(p, DBW_GEAR_NUMBER, (uint32_t)cmd->gear_number);
    }
    out->len += (size_t)(p - start);
    return PDK_OK;
}

/* pdk_wire_body_read's take for a DbwCommand body. */
static pdk_error take_dbw(const ProtobufCMessage *msg, void *ud)
{
    pdk_wire_decoded_ *d = ud;
    const Paddock__V1__DbwCommand *cmd = (const Paddock__V1__DbwCommand *)msg;
    pdk_wire_dbw_from_pb(cmd, d->out);
    d->id = cmd->vehicle_id;
    return PDK_OK;
}

pdk_error pdk_wire_dbw_decode(const uint8_t *body, size_t len, pdk_dbw_cmd *out,
                              pdk_vehicle_id *id)
{
    if (out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_wire_decoded_ d = {out, 0};
    pdk_error err =
        pdk_wire_body_read(&paddock__v1__dbw_command__descriptor, body, len, take_dbw, &d);
    return pdk_wire_decoded_finish_(err, &d, id);
}

/* ---- tyre commands ------------------------------------------------------- */

/* TyreAction and pdk_tyre_action share their numbers; a renumbering on
 * either side fails here. */
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_PUNCTURE == (int)PDK_TYRE_PUNCTURE,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_SET_CONDITION ==
                   (int)PDK_TYRE_SET_CONDITION,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_REPLACE == (int)PDK_TYRE_REPLACE,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_SET_TEMPERATURE ==
                   (int)PDK_TYRE_SET_TEMPERATURE,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_SET_GRIP_SCALE ==
                   (int)PDK_TYRE_SET_GRIP_SCALE,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_ACTION__TYRE_ACTION_SET_POWER_SCALE ==
                   (int)PDK_TYRE_SET_POWER_SCALE,
               "TyreAction mirrors pdk_tyre_action");
_Static_assert((int)PADDOCK__V1__TYRE_CONDITION__TYRE_CONDITION_DETACHED == (int)PDK_TYRE_DETACHED,
               "TyreCondition mirrors pdk_tyre_condition");

#define TYRE_ACTIONS_TEXT                                                                          \
    "1 PUNCTURE, 2 SET_CONDITION, 3 REPLACE, 4 SET_TEMPERATURE, 5 SET_GRIP_SCALE, "                \
    "6 SET_POWER_SCALE"

/* Writes why (may be NULL) and returns code. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static pdk_error
tyre_refuse(pdk_error code, char *why, size_t why_len, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return code;
}

pdk_error pdk_wire_tyre_from_pb(const Paddock__V1__TyreCommand *msg, pdk_tyre_input *out, char *why,
                                size_t why_len)
{
    if (why != NULL && why_len > 0) {
        why[0] = '\0';
    }
    if (msg == NULL || out == NULL) {
        return tyre_refuse(PDK_ERR_INVALID_ARGUMENT, why, why_len, "no tyre command");
    }
    /* protobuf-c keeps an enum number it does not know as it came. */
    int action = (int)msg->action;
    if (action < PDK_TYRE_PUNCTURE || action > PDK_TYRE_SET_POWER_SCALE) {
        return tyre_refuse(PDK_ERR_INVALID_ARGUMENT, why, why_len,
                           "action %d is not a TyreAction (%s)", action, TYRE_ACTIONS_TEXT);
    }
    if (action != PDK_TYRE_SET_POWER_SCALE && (msg->wheel_mask == 0 || msg->wheel_mask > 15)) {
        return tyre_refuse(PDK_ERR_INVALID_ARGUMENT, why, why_len,
                           "wheel_mask %u must name at least one wheel and no other bits: 1..15, "
                           "bit 0 FL, 1 FR, 2 RL, 3 RR",
                           (unsigned)msg->wheel_mask);
    }
    if (!isfinite(msg->value)) {
        return tyre_refuse(PDK_ERR_OUT_OF_RANGE, why, why_len, "value must be a finite number");
    }
    out->wheel_mask = msg->wheel_mask;
    out->action = action;
    out->value = msg->value;
    return PDK_OK;
}

pdk_error pdk_wire_tyre_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_tyre_input *in,
                               pdk_buf *out)
{
    if (in == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    Paddock__V1__TyreCommand msg = PADDOCK__V1__TYRE_COMMAND__INIT;
    msg.session_id = session_id;
    msg.vehicle_id = id;
    msg.wheel_mask = in->wheel_mask;
    msg.action = (Paddock__V1__TyreAction)in->action;
    msg.value = in->value;
    return pdk_wire_pack_append(out, &msg.base);
}

/* pdk_wire_body_read's take for a TyreCommand body. */
static pdk_error take_tyre(const ProtobufCMessage *msg, void *ud)
{
    pdk_wire_decoded_ *d = ud;
    const Paddock__V1__TyreCommand *cmd = (const Paddock__V1__TyreCommand *)msg;
    d->id = cmd->vehicle_id;
    return pdk_wire_tyre_from_pb(cmd, d->out, NULL, 0);
}

pdk_error pdk_wire_tyre_decode(const uint8_t *body, size_t len, pdk_tyre_input *out,
                               pdk_vehicle_id *id)
{
    if (out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_wire_decoded_ d = {out, 0};
    pdk_error err =
        pdk_wire_body_read(&paddock__v1__tyre_command__descriptor, body, len, take_tyre, &d);
    return pdk_wire_decoded_finish_(err, &d, id);
}

/* ---- state -------------------------------------------------------------- */

void pdk_wire_state_from_pose(const pdk_vehicle_pose *pose, Paddock__V1__VehicleState *out)
{
    paddock__v1__vehicle_state__init(out);
    out->vehicle_id = pose->id;
    out->x_m = pose->x_m;
    out->y_m = pose->y_m;
    out->z_m = pose->z_m;
    out->yaw_rad = pose->yaw_rad;
    out->vx_mps = pose->vx_mps;
    out->vy_mps = pose->vy_mps;
    out->yaw_rate_radps = pose->yaw_rate_radps;
    out->steer_angle_rad = pose->steer_angle_rad;
    out->speed_mps = pose->speed_mps;
    out->ax_mps2 = pose->ax_mps2;
    out->ay_mps2 = pose->ay_mps2;
    out->faulted = pose->faulted != 0;
    out->fault_code = (uint32_t)pose->faulted;
    out->pitch_rad = pose->pitch_rad;
    out->roll_rad = pose->roll_rad;
    out->vz_mps = pose->vz_mps;
    out->roll_rate_radps = pose->roll_rate_radps;
    out->pitch_rate_radps = pose->pitch_rate_radps;
}

/* Appends one VehicleState of pose's vehicle, with the parts fields asks
 * for from the vehicle's channels and its teleport_count: as a
 * StateBatch's vehicles entry (its tag and length first) when in_batch,
 * else the message alone. */
/* VehicleState's fields (proto/paddock/v1/paddock.proto) that its hand
 * encoder below writes. */
enum {
    VS_VEHICLE_ID = 1,
    VS_X = 2, /* 2..12: x_m .. ay_mps2, doubles */
    VS_AY = 12,
    VS_FAULTED = 13,
    VS_PITCH = 14, /* 14..18: pitch_rad .. pitch_rate_radps, doubles */
    VS_PITCH_RATE = 18,
    VS_WHEELS = 19,
    VS_INSTRUMENTS = 20,
    VS_STEERING_TORQUE = 21,
    VS_FAULT_CODE = 22,
    VS_TELEPORT_COUNT = 200,
    /* Fields 1..18, 22 and 200 at their largest. */
    VS_FLAT_MAX = (1 + 5) + 16 * (1 + 8) + (1 + 1) + (2 + 5) + (2 + 5),
};

/* A double field as protobuf-c packs a proto3 double: left out when it
 * compares equal to 0 (so -0.0 too), else its key and eight bytes. */
static uint8_t *put_double(uint8_t *p, unsigned field, double v)
{
    return v != 0.0 ? pdk_wire_put_double_field(p, field, v) : p;
}

static uint8_t *put_uint(uint8_t *p, unsigned field, uint64_t v)
{
    return v != 0u ? pdk_wire_put_varint_field(p, field, v) : p;
}

/* Fields 1..18 of pose's VehicleState (the values pdk_wire_state_from_pose
 * gives them) into p; returns the end. Read from the pose itself, so that
 * a vehicle without parts never fills a protobuf-c message. */
static uint8_t *put_state_low(uint8_t *p, const pdk_vehicle_pose *pose)
{
    const double low[] = {pose->x_m,
                          pose->y_m,
                          pose->z_m,
                          pose->yaw_rad,
                          pose->vx_mps,
                          pose->vy_mps,
                          pose->yaw_rate_radps,
                          pose->steer_angle_rad,
                          pose->speed_mps,
                          pose->ax_mps2,
                          pose->ay_mps2};
    const double high[] = {pose->pitch_rad, pose->roll_rad, pose->vz_mps, pose->roll_rate_radps,
                           pose->pitch_rate_radps};
    p = put_uint(p, VS_VEHICLE_ID, pose->id);
    for (unsigned f = VS_X; f <= VS_AY; f++)
        p = put_double(p, f, low[f - VS_X]);
    p = put_uint(p, VS_FAULTED, pose->faulted != 0 ? 1u : 0u);
    for (unsigned f = VS_PITCH; f <= VS_PITCH_RATE; f++)
        p = put_double(p, f, high[f - VS_PITCH]);
    return p;
}

/* Fields 19..21 (the parts a subscription asks for): their bytes, and
 * packed into p (room for them) by protobuf-c, each after its key. */
static size_t state_parts_size(const Paddock__V1__VehicleState *vs)
{
    size_t n = 0;
    for (size_t i = 0; i < vs->n_wheels; i++) {
        size_t len = paddock__v1__wheel_state__get_packed_size(vs->wheels[i]);
        n += pdk_wire_varint_size(PDK_WIRE_TAG(VS_WHEELS, PDK_WT_LEN)) +
             pdk_wire_varint_size(len) + len;
    }
    if (vs->instruments != NULL) {
        size_t len = paddock__v1__instruments__get_packed_size(vs->instruments);
        n += pdk_wire_varint_size(PDK_WIRE_TAG(VS_INSTRUMENTS, PDK_WT_LEN)) +
             pdk_wire_varint_size(len) + len;
    }
    if (vs->steering_wheel_torque_nm != 0.0)
        n += pdk_wire_varint_size(PDK_WIRE_TAG(VS_STEERING_TORQUE, PDK_WT_I64)) + 8;
    return n;
}

static uint8_t *put_state_parts(uint8_t *p, const Paddock__V1__VehicleState *vs)
{
    for (size_t i = 0; i < vs->n_wheels; i++) {
        p = pdk_wire_put_key(p, VS_WHEELS, PDK_WT_LEN);
        p = pdk_wire_put_varint(p, paddock__v1__wheel_state__get_packed_size(vs->wheels[i]));
        p += paddock__v1__wheel_state__pack(vs->wheels[i], p);
    }
    if (vs->instruments != NULL) {
        p = pdk_wire_put_key(p, VS_INSTRUMENTS, PDK_WT_LEN);
        p = pdk_wire_put_varint(p, paddock__v1__instruments__get_packed_size(vs->instruments));
        p += paddock__v1__instruments__pack(vs->instruments, p);
    }
    return put_double(p, VS_STEERING_TORQUE, vs->steering_wheel_torque_nm);
}

/* Appends one VehicleState of pose's vehicle, with the parts fields asks
 * for from the vehicle's channels and its teleport_count: as a
 * StateBatch's vehicles entry (its tag and length first) when in_batch,
 * else the message alone. The bytes are protobuf-c's (test_wire packs the
 * same message with protobuf-c and compares), written by hand: the
 * vehicles are most of a large world's stream, and protobuf-c's generic
 * packer, which sizes a message and then packs it field by field through
 * its descriptor, was most of publishing a 10,000-car batch (issue 27). */
static pdk_error append_vehicle(pdk_buf *out, const pdk_world *world, const pdk_vehicle_pose *pose,
                                uint32_t fields, uint32_t teleport_count, bool in_batch)
{
    /* The parts (fields 19..21) go through a protobuf-c message. */
    Paddock__V1__VehicleState vs;
    pdk_wire_state_parts parts;
    size_t parts_len = 0u;
    if (fields != 0u) {
        pdk_wire_state_from_pose(pose, &vs);
        pdk_wire_state_fields(pdk_world_vehicle_def(world, pose->id),
                              pdk_world_channels(world, pose->id), fields, &vs, &parts);
        parts_len = state_parts_size(&vs);
    }
    uint8_t low[VS_FLAT_MAX], high[2 * (2 + 5)];
    size_t low_len = (size_t)(put_state_low(low, pose) - low);
    uint8_t *h = put_uint(high, VS_FAULT_CODE, (uint32_t)pose->faulted);
    size_t high_len = (size_t)(put_uint(h, VS_TELEPORT_COUNT, teleport_count) - high);
    size_t len = low_len + parts_len + high_len;
    uint8_t head[2 * PDK_WIRE_VARINT_MAX];
    size_t hlen = 0;
    if (in_batch) {
        hlen = pdk_wire_varint_put(PDK_WIRE_TAG(STATE_BATCH_VEHICLES, PDK_WT_LEN), head);
        hlen += pdk_wire_varint_put(len, head + hlen);
    }
    pdk_error err = pdk_buf_reserve(out, hlen + len);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = out->data + out->len;
    memcpy(p, head, hlen);
    memcpy(p + hlen, low, low_len);
    uint8_t *end = p + hlen + low_len;
    if (parts_len > 0u) {
        end = put_state_parts(end, &vs);
    }
    PDK_ASSERT((size_t)(end - (p + hlen + low_len)) == parts_len);
    memcpy(end, high, high_len);
    out->len += hlen + len;
    return PDK_OK;
}

pdk_error pdk_wire_vehicle_state_append(const pdk_world *world, pdk_vehicle_id id, uint32_t fields,
                                        pdk_buf *out)
{
    if (world == NULL || out == NULL || (fields & ~PDK_WIRE_STATE_FIELDS_KNOWN) != 0u) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_vehicle_pose pose;
    if (pdk_world_vehicle_pose(world, id, &pose) != PDK_OK) {
        return PDK_ERR_STALE_ID;
    }
    return append_vehicle(out, world, &pose, fields, 0u, false);
}

uint32_t pdk_wire_teleport_count(const pdk_wire_teleports *tp, pdk_vehicle_id id)
{
    if (tp == NULL) {
        return 0;
    }
    /* each is sorted by id: a binary search. */
    size_t lo = 0, hi = tp->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tp->each[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return tp->all + (lo < tp->n && tp->each[lo].id == id ? tp->each[lo].count : 0u);
}

pdk_error pdk_wire_state_common(const pdk_world *world, uint64_t session_id, uint64_t wall_time_ns,
                                uint32_t fields, const pdk_vehicle_id *ids, size_t n, pdk_buf *out)
{
    return pdk_wire_state_common_teleports(world, session_id, wall_time_ns, fields, ids, n, NULL,
                                           out);
}

/* The batch's vehicles first to first + count of the list (ids, or the
 * world's order when ids is NULL), written field by field: the header
 * fields through protobuf-c, then one vehicles entry per live vehicle, then
 * wall_time_ns, part and parts. These are exactly the bytes protobuf-c
 * would pack for the whole message, without building an array of
 * VehicleState structs every tick. */
static pdk_error state_body(const pdk_world *world, uint64_t session_id, uint64_t wall_time_ns,
                            uint32_t fields, const pdk_vehicle_id *ids, size_t first, size_t count,
                            const pdk_wire_teleports *tp, uint32_t part, uint32_t parts,
                            pdk_buf *out)
{
    size_t start = out->len;
    Paddock__V1__StateBatch head = PADDOCK__V1__STATE_BATCH__INIT;
    head.session_id = session_id;
    head.tick = pdk_world_tick(world);
    head.sim_time_s = pdk_world_time_s(world);
    size_t hlen = paddock__v1__state_batch__get_packed_size(&head);
    pdk_error err = pdk_buf_reserve(out, hlen);
    if (err != PDK_OK) {
        return err;
    }
    size_t packed = paddock__v1__state_batch__pack(&head, out->data + out->len);
    PDK_ASSERT(packed == hlen);
    out->len += hlen;

    for (size_t i = first; i < first + count; i++) {
        pdk_vehicle_id id = ids != NULL ? ids[i] : pdk_world_vehicle_at(world, (int)i);
        pdk_vehicle_pose pose;
        if (pdk_world_vehicle_pose(world, id, &pose) != PDK_OK) {
            continue; /* removed since the subscription named it */
        }
        err = append_vehicle(out, world, &pose, fields, pdk_wire_teleport_count(tp, id), true);
        if (err != PDK_OK) {
            out->len = start;
            return err;
        }
    }
    /* Fields 6, 7 and 8 after the vehicles (field order); proto3 omits
     * each when 0, so a batch in one part has neither part nor parts. */
    uint8_t tail[6 * PDK_WIRE_VARINT_MAX];
    size_t tlen = 0;
    if (wall_time_ns != 0u) {
        tlen += pdk_wire_varint_put(PDK_WIRE_TAG(STATE_BATCH_WALL_TIME, PDK_WT_VARINT), tail);
        tlen += pdk_wire_varint_put(wall_time_ns, tail + tlen);
    }
    if (parts > 1u) {
        if (part != 0u) {
            tlen += pdk_wire_varint_put(PDK_WIRE_TAG(STATE_BATCH_PART, PDK_WT_VARINT), tail + tlen);
            tlen += pdk_wire_varint_put(part, tail + tlen);
        }
        tlen += pdk_wire_varint_put(PDK_WIRE_TAG(STATE_BATCH_PARTS, PDK_WT_VARINT), tail + tlen);
        tlen += pdk_wire_varint_put(parts, tail + tlen);
    }
    err = pdk_buf_append(out, tail, tlen);
    if (err != PDK_OK) {
        out->len = start;
    }
    return err;
}

pdk_error pdk_wire_state_common_teleports(const pdk_world *world, uint64_t session_id,
                                          uint64_t wall_time_ns, uint32_t fields,
                                          const pdk_vehicle_id *ids, size_t n,
                                          const pdk_wire_teleports *tp, pdk_buf *out)
{
    if (world == NULL || out == NULL || (fields & ~PDK_WIRE_STATE_FIELDS_KNOWN) != 0u) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t count = ids != NULL ? n : (size_t)pdk_world_vehicle_count(world);
    return state_body(world, session_id, wall_time_ns, fields, ids, 0, count, tp, 0u, 1u, out);
}

pdk_error pdk_wire_state_split(const pdk_world *world, uint64_t session_id, uint64_t wall_time_ns,
                               uint32_t fields, const pdk_vehicle_id *ids, size_t n,
                               const pdk_wire_teleports *tp, uint32_t max_per_part, pdk_buf *out)
{
    if (world == NULL || out == NULL || (fields & ~PDK_WIRE_STATE_FIELDS_KNOWN) != 0u) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t count = ids != NULL ? n : (size_t)pdk_world_vehicle_count(world);
    size_t per = max_per_part == 0u || max_per_part >= count ? count : max_per_part;
    size_t parts = per == 0 ? 1 : (count + per - 1) / per;
    if (parts > UINT32_MAX) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    size_t start = out->len;
    for (size_t p = 0; p < parts; p++) {
        /* Room for the length ahead of the body, written once the body
         * is: a fixed width, so that the body is not moved (a part can be
         * megabytes). */
        size_t at = out->len;
        pdk_error err = pdk_buf_reserve(out, 4);
        if (err != PDK_OK) {
            out->len = start;
            return err;
        }
        out->len += 4;
        size_t first = p * per;
        err = state_body(world, session_id, wall_time_ns, fields, ids, first,
                         first + per > count ? count - first : per, tp, (uint32_t)p,
                         (uint32_t)parts, out);
        if (err != PDK_OK) {
            out->len = start;
            return err;
        }
        size_t body_len = out->len - (at + 4);
        if (body_len > UINT32_MAX) {
            out->len = start;
            return PDK_ERR_CAPACITY;
        }
        for (int b = 0; b < 4; b++) {
            out->data[at + (size_t)b] = (uint8_t)(body_len >> (8 * b));
        }
    }
    return PDK_OK;
}

pdk_error pdk_wire_state_part_next(const uint8_t *parts, size_t len, size_t *at,
                                   const uint8_t **body, size_t *body_len)
{
    if (parts == NULL || at == NULL || body == NULL || body_len == NULL || *at > len) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (*at == len) {
        return PDK_ERR_NOT_FOUND;
    }
    if (len - *at < 4) {
        return PDK_ERR_PROTOCOL;
    }
    const uint8_t *p = parts + *at;
    size_t n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    if (n > len - *at - 4) {
        return PDK_ERR_PROTOCOL;
    }
    *body = p + 4;
    *body_len = n;
    *at += 4 + n;
    return PDK_OK;
}

size_t pdk_wire_frame_with_sub_head(uint32_t frame_field, uint32_t subscription_id,
                                    size_t common_len, uint8_t head[PDK_WIRE_FRAME_HEAD_MAX])
{
    if (common_len > SIZE_MAX / 2) {
        return 0;
    }
    /* subscription_id is field 1 of the body, ahead of everything in common,
     * so the body stays in field order; proto3 omits it when zero. */
    uint8_t sub[1 + PDK_WIRE_VARINT_MAX];
    size_t sub_len = 0;
    if (subscription_id != 0) {
        sub_len = pdk_wire_varint_put(PDK_WIRE_TAG(SUBSCRIPTION_ID, PDK_WT_VARINT), sub);
        sub_len += pdk_wire_varint_put(subscription_id, sub + sub_len);
    }
    size_t hlen = pdk_wire_varint_put(PDK_WIRE_TAG(frame_field, PDK_WT_LEN), head);
    hlen += pdk_wire_varint_put((uint64_t)sub_len + common_len, head + hlen);
    memcpy(head + hlen, sub, sub_len);
    return hlen + sub_len;
}

pdk_error pdk_wire_frame_with_sub_append(pdk_buf *out, uint32_t frame_field,
                                         uint32_t subscription_id, const uint8_t *common,
                                         size_t common_len)
{
    if (out == NULL || (common == NULL && common_len > 0)) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    uint8_t head[PDK_WIRE_FRAME_HEAD_MAX];
    size_t hlen = pdk_wire_frame_with_sub_head(frame_field, subscription_id, common_len, head);
    if (hlen == 0) {
        return PDK_ERR_NO_MEMORY;
    }
    pdk_error err = pdk_buf_reserve(out, hlen + common_len);
    if (err != PDK_OK) {
        return err;
    }
    uint8_t *p = out->data + out->len;
    memcpy(p, head, hlen);
    if (common_len > 0) {
        memcpy(p + hlen, common, common_len);
    }
    out->len += hlen + common_len;
    return PDK_OK;
}

size_t pdk_wire_state_frame_head(uint32_t subscription_id, size_t common_len,
                                 uint8_t head[PDK_WIRE_FRAME_HEAD_MAX])
{
    return pdk_wire_frame_with_sub_head(PADDOCK__V1__FRAME__BODY_STATE_BATCH, subscription_id,
                                        common_len, head);
}
