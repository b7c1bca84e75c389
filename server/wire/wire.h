/* wire: the only code that knows both protobuf-c's generated types and sim's
 * structs. Whole Frames (the length framing is the transport's), varints,
 * conversions, the state batch encoded once per tick and shared by every
 * subscriber, telemetry batches (wire_telemetry.c), the DBW kit's messages
 * and reports (wire_dbw.c), and any message as a recorded input's body. */
#ifndef PDK_WIRE_H
#define PDK_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paddock/v1/paddock.pb-c.h"

#include "sim/contact.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/world.h"

#define PDK_PROTOCOL_VERSION 1u
#define PDK_WIRE_MAX_FRAME_DEFAULT (1u << 20) /* 1 MiB */
#define PDK_WIRE_VARINT_MAX 10
/* A Frame's bytes ahead of a body shared by subscriptions: its tag and
 * length, the subscription_id's tag and value (pdk_wire_state_frame_head). */
#define PDK_WIRE_FRAME_HEAD_MAX (3 * PDK_WIRE_VARINT_MAX + 1)

/* A growable byte buffer (malloc). Zero-initialise, then use. */
typedef struct pdk_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} pdk_buf;

pdk_error pdk_buf_reserve(pdk_buf *buf, size_t extra);
pdk_error pdk_buf_append(pdk_buf *buf, const void *bytes, size_t n);
void pdk_buf_reset(pdk_buf *buf); /* len = 0, keeps the memory */
void pdk_buf_free(pdk_buf *buf);  /* accepts a zeroed buffer */

/* Writes v as a base-128 varint into out (>= PDK_WIRE_VARINT_MAX bytes);
 * returns the bytes written. */
size_t pdk_wire_varint_put(uint64_t v, uint8_t *out);

/* Reads a varint from the n bytes at in. Returns the bytes consumed, 0 when
 * more bytes are needed, or -1 when it is malformed (over 10 bytes). */
int pdk_wire_varint_get(const uint8_t *in, size_t n, uint64_t *out);

/* Appends frame to out as one whole encoded Frame, without a length prefix:
 * delimiting frames is the transport's job (server/net). */
pdk_error pdk_wire_frame_append(pdk_buf *out, const Paddock__V1__Frame *frame);

/* Checks that the len bytes at bytes are one whole encoded Frame with a body,
 * as a transport is handed it: the top-level fields parse and span exactly
 * len bytes, request_id appears at most once and exactly one body is present
 * (so two frames run together are refused). Reads field headers only, never
 * decodes a body. PDK_OK or PDK_ERR_INVALID_ARGUMENT. */
pdk_error pdk_wire_frame_check(const uint8_t *bytes, size_t len);

/* Decodes one Frame body (no prefix). NULL and PDK_ERR_PROTOCOL in *err when
 * the bytes are not a Frame or carry no body. Free with pdk_wire_frame_free.
 * Decoding allocates at most 64 KiB + 16 bytes per input byte; a frame that
 * would need more (a flood of empty submessages) is PDK_ERR_PROTOCOL too. */
Paddock__V1__Frame *pdk_wire_frame_decode(const uint8_t *body, size_t len, pdk_error *err);
void pdk_wire_frame_free(Paddock__V1__Frame *frame);

/* The proto name of a Frame body ("vehicle_spawn"), "unknown" for a case
 * the proto does not have: how errors name a request. */
const char *pdk_wire_frame_body_name(Paddock__V1__Frame__BodyCase bc);
/* The session_id field of f's body, read by name from its descriptor so
 * that every request naming a session is covered without a list to keep
 * (the access check in server.c). False when the body has none. */
bool pdk_wire_frame_session_id(const Paddock__V1__Frame *f, uint64_t *session_id);

/* Appends an Error reply frame (request_id echoed). */
pdk_error pdk_wire_error_append(pdk_buf *out, uint64_t request_id, pdk_error code,
                                const char *message);

/* pdk_error <-> ErrorCode (same numbers; unknown codes map to PDK_ERR_PROTOCOL). */
Paddock__V1__ErrorCode pdk_wire_error_code(pdk_error err);
pdk_error pdk_wire_error_from_pb(Paddock__V1__ErrorCode code);

/* Gear: the enums share the DBW2 numbers. PDK_ERR_OUT_OF_RANGE for an
 * unknown value. */
pdk_error pdk_wire_gear_from_pb(Paddock__V1__Gear gear, pdk_gear *out);

/* A ProxyPose's pose into sim's (docs/multiplayer.md "Hosting a proxy"),
 * and back (the pose fields only: session, proxy and owner time are the
 * caller's). Checks are the caller's (proxy_track.h, sim/contact.h). */
void pdk_wire_proxy_pose_from_pb(const Paddock__V1__ProxyPose *msg, pdk_proxy_pose *out);
void pdk_wire_proxy_pose_to_pb(const pdk_proxy_pose *pose, Paddock__V1__ProxyPose *msg);

/* A DbwCommand's setpoints into a pdk_dbw_cmd (fields bits set for the
 * present ones). Range checks are sim's (pdk_world_command). */
void pdk_wire_dbw_from_pb(const Paddock__V1__DbwCommand *msg, pdk_dbw_cmd *out);

/* And back, for recording inputs: encodes cmd as a DbwCommand message body,
 * appended to out. Decode: PDK_ERR_PROTOCOL when the bytes are not one. */
pdk_error pdk_wire_dbw_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                              pdk_buf *out);
pdk_error pdk_wire_dbw_decode(const uint8_t *body, size_t len, pdk_dbw_cmd *out,
                              pdk_vehicle_id *id);

/* A TyreCommand into a pdk_tyre_input. Checks what the message alone
 * decides: action one of TyreAction's non-zero values (the numbers of
 * pdk_tyre_action), wheel_mask 1..15 (unless the action is
 * SET_POWER_SCALE, which ignores it) and value finite. Otherwise
 * PDK_ERR_INVALID_ARGUMENT (action, wheel_mask) or PDK_ERR_OUT_OF_RANGE
 * (value) with why (why_len bytes) naming the field; *out is then
 * unspecified. Range checks that depend on the action's value and the
 * vehicle are sim's (pdk_world_tyre_input). */
pdk_error pdk_wire_tyre_from_pb(const Paddock__V1__TyreCommand *msg, pdk_tyre_input *out, char *why,
                                size_t why_len);

/* And back, for recording inputs: in as a TyreCommand message body,
 * appended to out. Decode: PDK_ERR_PROTOCOL when the bytes are not one,
 * else what pdk_wire_tyre_from_pb says of it. */
pdk_error pdk_wire_tyre_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_tyre_input *in,
                               pdk_buf *out);
pdk_error pdk_wire_tyre_decode(const uint8_t *body, size_t len, pdk_tyre_input *out,
                               pdk_vehicle_id *id);

void pdk_wire_state_from_pose(const pdk_vehicle_pose *pose, Paddock__V1__VehicleState *out);

/* The StateField bits Subscribe.fields may hold (paddock.proto StateField):
 * wheels, instruments, steering feel. */
#define PDK_WIRE_STATE_FIELDS_KNOWN                                                                \
    ((uint32_t)PADDOCK__V1__STATE_FIELD__STATE_FIELD_WHEELS |                                      \
     (uint32_t)PADDOCK__V1__STATE_FIELD__STATE_FIELD_INSTRUMENTS |                                 \
     (uint32_t)PADDOCK__V1__STATE_FIELD__STATE_FIELD_STEERING_FEEL)

/* Where a VehicleState's optional parts live while it is packed: vs points
 * into it, so it must outlive the packing. */
typedef struct pdk_wire_state_parts {
    Paddock__V1__WheelState wheels[4];
    Paddock__V1__WheelState *wheel_ptrs[4];
    Paddock__V1__Instruments instruments;
} pdk_wire_state_parts;

/* Sets the parts of vs that the StateField bits in fields ask for (others,
 * unknown bits among them, are left alone) from the vehicle's channels ch
 * (PDK_CH_COUNT values, pdk_world_channels) and its definition def:
 * WHEELS the wheels (FL FR RL RR; front and rear on a single-track
 * vehicle), INSTRUMENTS the instruments, STEERING_FEEL
 * steering_wheel_torque_nm. Each value is its channel's, bit for bit;
 * docs/protocol.md "State" says which. (wire_state_fields.c) */
void pdk_wire_state_fields(const pdk_vehicle_def *def, const double *ch, uint32_t fields,
                           Paddock__V1__VehicleState *vs, pdk_wire_state_parts *parts);

/* The shared part of a tick's state batch: a StateBatch body with session,
 * tick, time, the vehicles (every live one when ids is NULL, else those of
 * the n ids that are alive), each with the parts fields asks for
 * (pdk_wire_state_fields; 0 the pose and motion alone), and wall_time_ns,
 * without subscription_id. Appended to out. PDK_ERR_INVALID_ARGUMENT for
 * a NULL world or out, or a bit of fields outside
 * PDK_WIRE_STATE_FIELDS_KNOWN. */
pdk_error pdk_wire_state_common(const pdk_world *world, uint64_t session_id, uint64_t wall_time_ns,
                                uint32_t fields, const pdk_vehicle_id *ids, size_t n, pdk_buf *out);

/* How often vehicles moved without travelling, for VehicleState's
 * teleport_count: all for every vehicle (a replay's seeks), plus each
 * vehicle's own entry (its resets) when it has one; each is sorted by id. */
typedef struct pdk_wire_teleport {
    pdk_vehicle_id id;
    uint32_t count;
} pdk_wire_teleport;

typedef struct pdk_wire_teleports {
    uint32_t all;
    const pdk_wire_teleport *each;
    size_t n;
} pdk_wire_teleports;

/* Vehicle id's teleport_count: all plus its own entry's; 0 for NULL tp. */
uint32_t pdk_wire_teleport_count(const pdk_wire_teleports *tp, pdk_vehicle_id id);

/* pdk_wire_state_common with each VehicleState's teleport_count from tp
 * (NULL: 0 for all, which proto3 leaves out, so the bytes are those of
 * pdk_wire_state_common). */
pdk_error pdk_wire_state_common_teleports(const pdk_world *world, uint64_t session_id,
                                          uint64_t wall_time_ns, uint32_t fields,
                                          const pdk_vehicle_id *ids, size_t n,
                                          const pdk_wire_teleports *tp, pdk_buf *out);

/* A tick's state in parts of at most max_per_part vehicles of the list
 * (0: one part, however many), for Subscribe.max_batch_vehicles: appended
 * to out, part after part, each as its body's length (four bytes, little
 * endian: written once the body is, without moving it) and the body, which is pdk_wire_state_common_teleports's over that part's
 * vehicles with StateBatch.part and .parts when there is more than one
 * part (one part's bytes are pdk_wire_state_common_teleports's). Vehicles
 * of ids removed since are left out of their part, so a part may hold
 * fewer. Errors as pdk_wire_state_common; out is as before on error. */
pdk_error pdk_wire_state_split(const pdk_world *world, uint64_t session_id, uint64_t wall_time_ns,
                               uint32_t fields, const pdk_vehicle_id *ids, size_t n,
                               const pdk_wire_teleports *tp, uint32_t max_per_part, pdk_buf *out);

/* The next part of pdk_wire_state_split's len bytes at parts, from *at,
 * which it moves past the part: PDK_OK with its body, PDK_ERR_NOT_FOUND
 * after the last, PDK_ERR_PROTOCOL when the bytes are not such a list. */
pdk_error pdk_wire_state_part_next(const uint8_t *parts, size_t len, size_t *at,
                                   const uint8_t **body, size_t *body_len);

/* One vehicle's VehicleState on its own (not inside a StateBatch), with the
 * parts fields asks for, appended to out: the message a log of one
 * vehicle's state carries (MCAP export), without teleport_count (a session's,
 * not the world's). PDK_ERR_STALE_ID when id is not a
 * live vehicle of world; PDK_ERR_INVALID_ARGUMENT as pdk_wire_state_common. */
pdk_error pdk_wire_vehicle_state_append(const pdk_world *world, pdk_vehicle_id id, uint32_t fields,
                                        pdk_buf *out);

/* One subscriber's whole Frame is head then the common body: head holds
 * the Frame's tag and length (Frame.state_batch) and the batch's
 * subscription_id (protobuf merges concatenated fields), so a batch shared
 * by many subscriptions is never re-encoded nor copied to make each frame.
 * Writes head, returns its length; 0 when common_len is beyond any frame. */
size_t pdk_wire_state_frame_head(uint32_t subscription_id, size_t common_len,
                                 uint8_t head[PDK_WIRE_FRAME_HEAD_MAX]);

/* ---- telemetry (wire_telemetry.c) ----------------------------------------
 *
 * A TelemetryBatch body without subscription_id: session, the world's tick
 * and sim time, one row per vehicle (every live one in the world's order
 * when ids is NULL, else those of the n ids that are alive, in ids' order)
 * holding the vehicle's channel values (pdk_world_channels) at the n_chans
 * registry indexes chans, in that order, bit for bit, then wall_time_ns.
 * Appended to out; on an error out is as it was. PDK_ERR_INVALID_ARGUMENT
 * for a NULL world, out or chans, no channels, or an index that is not a
 * channel's; PDK_ERR_NO_MEMORY. */
pdk_error pdk_wire_telemetry_common(const pdk_world *world, uint64_t session_id,
                                    uint64_t wall_time_ns, const pdk_vehicle_id *ids, size_t n,
                                    const int *chans, size_t n_chans, pdk_buf *out);

/* One subscriber's whole Frame is head then the common body, wrapped in
 * Frame.telemetry_batch, as pdk_wire_state_frame_head's. */
size_t pdk_wire_telemetry_frame_head(uint32_t subscription_id, size_t common_len,
                                     uint8_t head[PDK_WIRE_FRAME_HEAD_MAX]);

/* ---- the DBW kit (sim/dbw.h; wire_dbw.c) ---------------------------------
 *
 * DbwMessage <-> pdk_dbw_msg. The kit's float fields become doubles exactly;
 * an absent crc is -1; SystemCmd's absent sync_mode, validate_cmd_crc_rc and
 * comms_loss_arm are -1 ("keep"). A uint32 field beyond int32 (cmd_type, a
 * kind, a target, a value) is passed on as INT32_MAX and a rolling counter
 * beyond 255 as 255, for sim to refuse by name (pdk_dbw_msg_problem). What
 * the message alone decides is checked here, with why (why_len bytes)
 * naming the field: INVALID_ARGUMENT when no message is set, OUT_OF_RANGE
 * for a crc above 255 (a CRC-8) or a GearCmd gear that is not a DBW2 gear.
 * *out is unspecified after an error. */
pdk_error pdk_wire_dbw_msg_from_pb(const Paddock__V1__DbwMessage *msg, pdk_dbw_msg *out, char *why,
                                   size_t why_len);

/* And back, for recording inputs: msg as a DbwMessage body appended to out
 * (a crc only for the kinds whose message has one, dbw.h pdk_dbw_crc8).
 * The kit's float fields are written as float32, the kit's width, so a
 * message that came from the wire round-trips to the bit (a double that no
 * float represents does not: the session applies a kit message in its recorded
 * form). PDK_ERR_INVALID_ARGUMENT for NULL or an unknown kind. Decode:
 * PDK_ERR_PROTOCOL when the bytes are not a DbwMessage, else what
 * pdk_wire_dbw_msg_from_pb says of it. */
pdk_error pdk_wire_dbw_msg_encode(uint64_t session_id, pdk_vehicle_id id, const pdk_dbw_msg *msg,
                                  pdk_buf *out);
pdk_error pdk_wire_dbw_msg_decode(const uint8_t *body, size_t len, pdk_dbw_msg *out,
                                  pdk_vehicle_id *id);

/* The body of one DbwReport of kind (pdk_dbw_report_kind) from r, without
 * subscription_id: session, vehicle, r->tick, sim time r->tick * dt_s and the
 * kind's block, appended to out. The system report's reason strings are
 * sim's names (pdk_dbw_disengage_name, pdk_dbw_not_ready_name) and its
 * active_source is the given ControlSource number (the session's leases,
 * not the kit's). PDK_ERR_INVALID_ARGUMENT for NULL or an unknown kind. */
pdk_error pdk_wire_dbw_report_common(uint64_t session_id, pdk_vehicle_id id, double dt_s, int kind,
                                     const pdk_dbw_report *r, int active_source, pdk_buf *out);

/* One subscriber's whole Frame: the common body with its subscription_id
 * prepended, wrapped in Frame.dbw_report (a copy, as the state batch). */
pdk_error pdk_wire_dbw_report_frame_append(pdk_buf *out, uint32_t subscription_id,
                                           const uint8_t *common, size_t common_len);

/* ---- any message, as a recorded input's body ----------------------------
 *
 * A recorded input's body is one message of the proto (the session's input
 * table, server/app/input_kinds.c, says which, fills it and reads it), so a
 * new kind of input needs nothing of wire but these two. */

/* Appends msg's encoding (no length prefix) to out. */
pdk_error pdk_wire_pack_append(pdk_buf *out, const ProtobufCMessage *msg);

/* Decodes body as one message of type desc, within the memory bound of
 * pdk_wire_frame_decode (a small one on the stack, no heap), hands it to
 * take and returns take's answer; PDK_ERR_PARSE when the bytes are not one
 * such message, PDK_ERR_INVALID_ARGUMENT for a NULL body of non-zero len.
 * take must not keep msg or anything it points to. Safe from several
 * threads at once (a recording's load decodes on every core). */
pdk_error pdk_wire_body_read(const ProtobufCMessageDescriptor *desc, const uint8_t *body,
                             size_t len, pdk_error (*take)(const ProtobufCMessage *msg, void *ud),
                             void *ud);

/* ---- contact events (sim/contact.h; wire_contact.c) ----------------------
 *
 * One whole Frame with a ContactEvents: the world's last tick's events
 * (pdk_world_contact_events) first .. first + n of them (n at most
 * PDK_WIRE_CONTACT_EVENTS_PER_FRAME, the nanopb clients' max_count), with
 * their total, the tick's dropped and missed counts, its tick and sim time.
 * Appended to out. PDK_ERR_INVALID_ARGUMENT for a NULL out or world, n
 * above the frame's bound or a range beyond the tick's events;
 * PDK_ERR_NO_MEMORY. */
#define PDK_WIRE_CONTACT_EVENTS_PER_FRAME 64
pdk_error pdk_wire_contact_frame_append(pdk_buf *out, uint32_t subscription_id,
                                        uint64_t session_id, const pdk_world *world, size_t first,
                                        size_t n);

#endif
