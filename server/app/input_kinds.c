/* The input table (input_kind.h): one entry per kind of input, each with
 * its recorded body's message and how it is written and read, how it
 * applies at a tick boundary and the messages it refuses with, the store
 * rows it leaves and what it does to the world's vehicle slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_kind.h"
#include "script.h"

/* The message of an input whose vehicle is not in the session. */
static void not_in_session(const pdk_input_ctx *ctx, pdk_vehicle_id id, char *msg, size_t msg_len)
{
    snprintf(msg, msg_len, "vehicle %u is not in session %llu", id,
             (unsigned long long)ctx->session_id);
}

/* ---- SPAWN -------------------------------------------------------------- */

/* A VehicleSpawn: the preset, its overrides and the place, heading in
 * degrees as given. */
static pdk_error spawn_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    const pdk_spawn_place *pl = &in->u.place;
    Paddock__V1__VehicleSpawn m = PADDOCK__V1__VEHICLE_SPAWN__INIT;
    m.session_id = session_id;
    m.preset = (char *)(in->preset ? in->preset : "");
    m.overrides = (char *)(in->overrides ? in->overrides : "");
    m.x_m = pl->x_m;
    m.y_m = pl->y_m;
    m.yaw_deg = pl->yaw_deg;
    m.speed_mps = pl->speed_mps;
    m.gear = (Paddock__V1__Gear)pl->gear;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error spawn_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__VehicleSpawn *m = (const Paddock__V1__VehicleSpawn *)msg;
    in->u.place = (pdk_spawn_place){.x_m = m->x_m,
                                    .y_m = m->y_m,
                                    .yaw_deg = m->yaw_deg,
                                    .speed_mps = m->speed_mps,
                                    .gear = (pdk_gear)m->gear};
    in->preset = strdup(m->preset ? m->preset : "");
    in->overrides = strdup(m->overrides ? m->overrides : "");
    return in->preset && in->overrides ? PDK_OK : PDK_ERR_NO_MEMORY;
}

static pdk_error spawn_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                             size_t msg_len)
{
    const pdk_spawn_place *pl = &p->in.u.place;
    pdk_pose pose = {pl->x_m, pl->y_m, pdk_script_deg_to_rad(pl->yaw_deg)};
    pdk_error err =
        pdk_world_spawn(ctx->world, p->def, &pose, pl->speed_mps, pl->gear, &p->in.vehicle);
    if (err == PDK_ERR_CAPACITY) {
        snprintf(msg, msg_len, "session %llu is full (%d vehicles)",
                 (unsigned long long)ctx->session_id, pdk_world_def_get(ctx->world)->max_vehicles);
    } else if (err != PDK_OK) {
        const char *why =
            pdk_world_spawn_problem(ctx->world, p->def, &pose, pl->speed_mps, pl->gear);
        snprintf(msg, msg_len, "spawn refused: %s", why ? why : pdk_error_message(err));
    }
    return err;
}

static void spawn_record_rows(const pdk_input_ctx *ctx, const pdk_pending_input *p, uint64_t tick)
{
    ctx->recorded(ctx->ud,
                  pdk_store_record_vehicle(ctx->store, ctx->session_id, p->in.vehicle, tick,
                                           p->in.preset, p->in.overrides, p->params_json),
                  "a vehicle");
}

/* ---- REMOVE ------------------------------------------------------------- */

static pdk_error remove_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    Paddock__V1__VehicleRemove m = PADDOCK__V1__VEHICLE_REMOVE__INIT;
    m.session_id = session_id;
    m.vehicle_id = in->vehicle;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error remove_read(const ProtobufCMessage *msg, pdk_input *in)
{
    in->vehicle = ((const Paddock__V1__VehicleRemove *)msg)->vehicle_id;
    return PDK_OK;
}

static pdk_error remove_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                              size_t msg_len)
{
    pdk_error err = pdk_world_remove(ctx->world, p->in.vehicle);
    if (err != PDK_OK) {
        not_in_session(ctx, p->in.vehicle, msg, msg_len);
        return err;
    }
    char reason[96];
    snprintf(reason, sizeof(reason), "vehicle %u was removed from session %llu", p->in.vehicle,
             (unsigned long long)ctx->session_id);
    ctx->vehicle_gone(ctx->ud, p->in.vehicle, reason, false);
    return PDK_OK;
}

static void remove_record_rows(const pdk_input_ctx *ctx, const pdk_pending_input *p, uint64_t tick)
{
    ctx->recorded(
        ctx->ud, pdk_store_record_vehicle_removed(ctx->store, ctx->session_id, p->in.vehicle, tick),
        "a removal");
}

/* ---- DBW: a remote driver's DbwCommand ------------------------------------- */

static pdk_error dbw_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_dbw_encode(session_id, in->vehicle, &in->u.cmd, out);
}

static pdk_error dbw_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__DbwCommand *m = (const Paddock__V1__DbwCommand *)msg;
    pdk_wire_dbw_from_pb(m, &in->u.cmd);
    in->vehicle = m->vehicle_id;
    return PDK_OK;
}

static pdk_error dbw_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                           size_t msg_len)
{
    pdk_error err = pdk_world_command(ctx->world, p->in.vehicle, &p->in.u.cmd);
    if (err == PDK_ERR_STALE_ID) {
        not_in_session(ctx, p->in.vehicle, msg, msg_len);
    } else if (err != PDK_OK) {
        /* sim names the field and its bound; the vehicle's own limits are
         * added so the client knows the numbers. */
        const pdk_vehicle_def *vd = pdk_world_vehicle_def(ctx->world, p->in.vehicle);
        const char *why = pdk_world_command_problem(ctx->world, p->in.vehicle, &p->in.u.cmd);
        snprintf(msg, msg_len,
                 "command refused: %s (this vehicle: brake_bar 0..%g, steer_wheel_deg "
                 "within +-%g)",
                 why ? why : pdk_error_message(err), vd ? vd->brake.max_line_bar : 0.0,
                 vd ? vd->steering.lock_deg : 0.0);
    }
    return err;
}

/* ---- TYRE --------------------------------------------------------------- */

/* A tyre input (sim/world.h pdk_tyre_input), refused with what was wrong: a
 * vehicle not in the session, a single-track vehicle, the mask, the action,
 * the value's range. */

static pdk_error tyre_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_tyre_encode(session_id, in->vehicle, &in->u.tyre, out);
}

static pdk_error tyre_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__TyreCommand *m = (const Paddock__V1__TyreCommand *)msg;
    in->vehicle = m->vehicle_id;
    return pdk_wire_tyre_from_pb(m, &in->u.tyre, NULL, 0);
}

static pdk_error tyre_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                            size_t msg_len)
{
    pdk_error err = pdk_world_tyre_input(ctx->world, p->in.vehicle, &p->in.u.tyre);
    if (err == PDK_ERR_STALE_ID) {
        not_in_session(ctx, p->in.vehicle, msg, msg_len);
    } else if (err != PDK_OK) {
        /* sim names the field and its bound. */
        const char *why = pdk_world_tyre_input_problem(ctx->world, p->in.vehicle, &p->in.u.tyre);
        snprintf(msg, msg_len, "tyre command refused: %s", why ? why : pdk_error_message(err));
    }
    return err;
}

/* ---- DBW_KIT: a DBW kit message ---------------------------------------- */

/* A kit message (sim/dbw.h) applies as its recording gives it back (the
 * kit's float fields as float32), so a replay feeds the world the same
 * bits; one with no recorded form (an unknown kind, a crc above 255) is
 * refused before it is queued. */

static pdk_error kit_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_dbw_msg_encode(session_id, in->vehicle, &in->u.kit, out);
}

static pdk_error kit_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__DbwMessage *m = (const Paddock__V1__DbwMessage *)msg;
    in->vehicle = m->vehicle_id;
    return pdk_wire_dbw_msg_from_pb(m, &in->u.kit, NULL, 0);
}

/* What applies is what the recording will give back, so the run and its
 * replay feed the kit the same bits. */
static pdk_error kit_prepare(const pdk_input_ctx *ctx, pdk_pending_input *p)
{
    pdk_buf *buf = ctx->scratch;
    pdk_buf_reset(buf);
    pdk_error err = pdk_wire_dbw_msg_encode(ctx->session_id, p->in.vehicle, &p->in.u.kit, buf);
    pdk_input recorded_form = {.kind = PDK_INPUT_DBW_KIT};
    if (err == PDK_OK)
        err = pdk_input_decode(pdk_input_ops_of(PDK_INPUT_DBW_KIT), buf->data, buf->len,
                               &recorded_form);
    if (err != PDK_OK)
        return err;
    p->in.u.kit = recorded_form.u.kit;
    /* The recorded form's bytes, kept so that recording it costs no second
     * encode. */
    if (ctx->store && buf->len <= sizeof(p->payload)) {
        memcpy(p->payload, buf->data, buf->len);
        p->payload_len = (uint8_t)buf->len;
    }
    return PDK_OK;
}

static pdk_error kit_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                           size_t msg_len)
{
    pdk_error err = pdk_world_dbw(ctx->world, p->in.vehicle, &p->in.u.kit);
    if (err == PDK_ERR_STALE_ID) {
        not_in_session(ctx, p->in.vehicle, msg, msg_len);
    } else if (err != PDK_OK) {
        /* sim names the field and its bound. */
        const char *why = pdk_world_dbw_problem(ctx->world, p->in.vehicle, &p->in.u.kit);
        snprintf(msg, msg_len, "DBW message refused: %s", why ? why : pdk_error_message(err));
    }
    return err;
}

/* ---- RESET: every vehicle goes ------------------------------------------ */

/* pdk_world_reset: their ids go stale, the PRNG is reseeded from the
 * world's seed, the tick keeps counting. Recorded with a removal for each
 * vehicle. */

/* A reset and a reseed are recorded as the SessionControl that asked for
 * them, with that action set. */
static pdk_error reset_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    (void)in;
    Paddock__V1__SessionControl m = PADDOCK__V1__SESSION_CONTROL__INIT;
    m.session_id = session_id;
    m.action_case = PADDOCK__V1__SESSION_CONTROL__ACTION_RESET;
    m.reset = 1;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error reset_read(const ProtobufCMessage *msg, pdk_input *in)
{
    (void)in;
    const Paddock__V1__SessionControl *m = (const Paddock__V1__SessionControl *)msg;
    return m->action_case == PADDOCK__V1__SESSION_CONTROL__ACTION_RESET ? PDK_OK : PDK_ERR_PARSE;
}

/* Their leases and DBW report subscriptions end, each holder and
 * subscriber told why; the ids are kept for the recording's removals. */
static pdk_error reset_world(const pdk_input_ctx *ctx, pdk_pending_input *p)
{
    int n = pdk_world_vehicle_count(ctx->world);
    pdk_vehicle_id *ids = n > 0 ? malloc((size_t)n * sizeof(*ids)) : NULL;
    if (n > 0 && !ids)
        return PDK_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++)
        ids[i] = pdk_world_vehicle_at(ctx->world, i);
    pdk_error err = pdk_world_reset(ctx->world);
    if (err != PDK_OK) {
        free(ids);
        return err;
    }
    char what[96];
    snprintf(what, sizeof(what), "session %llu was reset", (unsigned long long)ctx->session_id);
    for (int i = 0; i < n; i++)
        ctx->vehicle_gone(ctx->ud, ids[i], what, true);
    p->removed = ids;
    p->n_removed = n;
    return PDK_OK;
}

static pdk_error reset_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                             size_t msg_len)
{
    pdk_error err = reset_world(ctx, p);
    if (err != PDK_OK)
        snprintf(msg, msg_len, "reset of session %llu failed: %s",
                 (unsigned long long)ctx->session_id, pdk_error_message(err));
    return err;
}

static void reset_record_rows(const pdk_input_ctx *ctx, const pdk_pending_input *p, uint64_t tick)
{
    for (int i = 0; i < p->n_removed; i++)
        ctx->recorded(
            ctx->ud,
            pdk_store_record_vehicle_removed(ctx->store, ctx->session_id, p->removed[i], tick),
            "a removal");
}

/* ---- RESEED ------------------------------------------------------------- */

/* The world's seed becomes the input's: the PRNG and the DBW kits' sensor
 * noise and report drops follow it. */

static pdk_error reseed_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    Paddock__V1__SessionControl m = PADDOCK__V1__SESSION_CONTROL__INIT;
    m.session_id = session_id;
    m.action_case = PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED;
    m.reseed = in->u.seed;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error reseed_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__SessionControl *m = (const Paddock__V1__SessionControl *)msg;
    if (m->action_case != PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED)
        return PDK_ERR_PARSE;
    in->u.seed = m->reseed;
    return PDK_OK;
}

static pdk_error reseed_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                              size_t msg_len)
{
    pdk_error err = pdk_world_reseed(ctx->world, p->in.u.seed);
    if (err != PDK_OK)
        snprintf(msg, msg_len, "reseed of session %llu failed: %s",
                 (unsigned long long)ctx->session_id, pdk_error_message(err));
    return err;
}

/* ---- VEHICLE_RESET: one vehicle righted --------------------------------- */

/* pdk_world_vehicle_reset, at the recorded place (degrees, converted as a
 * spawn's heading is) or where the vehicle is. */

static pdk_error vehicle_reset_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    const pdk_reset_place *pl = &in->u.reset;
    Paddock__V1__VehicleReset m = PADDOCK__V1__VEHICLE_RESET__INIT;
    m.session_id = session_id;
    m.vehicle_id = in->vehicle;
    m.at_pose = pl->at_pose != 0;
    m.x_m = pl->x_m;
    m.y_m = pl->y_m;
    m.yaw_deg = pl->yaw_deg;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error vehicle_reset_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__VehicleReset *m = (const Paddock__V1__VehicleReset *)msg;
    in->vehicle = m->vehicle_id;
    in->u.reset = (pdk_reset_place){
        .at_pose = m->at_pose ? 1 : 0, .x_m = m->x_m, .y_m = m->y_m, .yaw_deg = m->yaw_deg};
    return PDK_OK;
}

static pdk_error vehicle_reset_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                                     size_t msg_len)
{
    const pdk_reset_place *pl = &p->in.u.reset;
    const pdk_pose pose = {pl->x_m, pl->y_m, pdk_script_deg_to_rad(pl->yaw_deg)};
    const pdk_pose *at = pl->at_pose ? &pose : NULL;
    pdk_error err = pdk_world_vehicle_reset(ctx->world, p->in.vehicle, at);
    if (err == PDK_ERR_STALE_ID) {
        not_in_session(ctx, p->in.vehicle, msg, msg_len);
    } else if (err != PDK_OK) {
        const char *why = pdk_world_vehicle_reset_problem(ctx->world, p->in.vehicle, at);
        snprintf(msg, msg_len, "reset of vehicle %u refused: %s", p->in.vehicle,
                 why ? why : pdk_error_message(err));
    }
    return err;
}

/* ---- PROXY_ADD, PROXY_POSE, PROXY_REMOVE: hosted proxies ---------------- */

/* A hosted proxy (docs/multiplayer.md "Hosting a proxy"): its entry is
 * recorded as a ProxyRegister whose hull is the resolved half extents (a
 * preset that changes later does not change a replay), its mass (0 with
 * infinite_mass), contact material, label and initial pose; each tick's
 * pose as the ProxyPose the world took; its removal as a ProxyRemove. A
 * ProxyRegister without a material (recorded before proxies had their own)
 * has the car body's (sim/contact.h). */

static void not_a_proxy(const pdk_input_ctx *ctx, pdk_proxy_id id, char *msg, size_t msg_len)
{
    snprintf(msg, msg_len, "proxy %u is not in session %llu", id,
             (unsigned long long)ctx->session_id);
}

static pdk_error proxy_add_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    const pdk_proxy_entry *e = &in->u.proxy_add;
    Paddock__V1__ProxyPose initial = PADDOCK__V1__PROXY_POSE__INIT;
    pdk_wire_proxy_pose_to_pb(&e->pose, &initial);
    initial.owner_time_ns = e->owner_ns;
    Paddock__V1__ProxyRegister m = PADDOCK__V1__PROXY_REGISTER__INIT;
    m.session_id = session_id;
    m.preset = "";
    m.half_length_m = e->def.half_extent_m[0];
    m.half_width_m = e->def.half_extent_m[1];
    m.half_height_m = e->def.half_extent_m[2];
    m.mass_kg = e->def.mass_kg;
    m.infinite_mass = e->def.mass_kg == 0.0;
    Paddock__V1__ContactMaterial mat = PADDOCK__V1__CONTACT_MATERIAL__INIT;
    mat.friction = e->def.material.friction;
    mat.restitution = e->def.material.restitution;
    m.material = &mat;
    m.label = (char *)e->label;
    m.initial = &initial;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error proxy_add_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__ProxyRegister *m = (const Paddock__V1__ProxyRegister *)msg;
    pdk_proxy_entry *e = &in->u.proxy_add;
    memset(e, 0, sizeof(*e));
    e->def.half_extent_m[0] = m->half_length_m;
    e->def.half_extent_m[1] = m->half_width_m;
    e->def.half_extent_m[2] = m->half_height_m;
    e->def.mass_kg = m->infinite_mass ? 0.0 : m->mass_kg;
    e->def.material = pdk_contact_material_car_body();
    if (m->material) {
        e->def.material.friction = m->material->friction;
        e->def.material.restitution = m->material->restitution;
    }
    if (m->initial) {
        pdk_wire_proxy_pose_from_pb(m->initial, &e->pose);
        e->owner_ns = m->initial->owner_time_ns;
    }
    snprintf(e->label, sizeof(e->label), "%s", m->label ? m->label : "");
    return m->initial ? PDK_OK : PDK_ERR_PARSE;
}

static pdk_error proxy_add_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                                 size_t msg_len)
{
    const pdk_proxy_entry *e = &p->in.u.proxy_add;
    pdk_error err = pdk_world_proxy_add(ctx->world, &e->def, &e->pose, &p->in.proxy);
    if (err == PDK_ERR_CAPACITY) {
        snprintf(msg, msg_len, "session %llu is full (%d proxies)",
                 (unsigned long long)ctx->session_id, pdk_world_def_get(ctx->world)->max_vehicles);
    } else if (err != PDK_OK) {
        const char *why = pdk_world_proxy_problem(ctx->world, &e->def, &e->pose);
        snprintf(msg, msg_len, "proxy refused: %s", why ? why : pdk_error_message(err));
    }
    return err;
}

static pdk_error proxy_pose_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    Paddock__V1__ProxyPose m = PADDOCK__V1__PROXY_POSE__INIT;
    pdk_wire_proxy_pose_to_pb(&in->u.proxy_pose, &m);
    m.session_id = session_id;
    m.proxy_id = in->proxy;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error proxy_pose_read(const ProtobufCMessage *msg, pdk_input *in)
{
    const Paddock__V1__ProxyPose *m = (const Paddock__V1__ProxyPose *)msg;
    in->proxy = m->proxy_id;
    pdk_wire_proxy_pose_from_pb(m, &in->u.proxy_pose);
    return PDK_OK;
}

static pdk_error proxy_pose_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                                  size_t msg_len)
{
    pdk_error err = pdk_world_proxy_set_pose(ctx->world, p->in.proxy, &p->in.u.proxy_pose);
    if (err == PDK_ERR_STALE_ID) {
        not_a_proxy(ctx, p->in.proxy, msg, msg_len);
    } else if (err != PDK_OK) {
        const char *why =
            pdk_world_proxy_pose_problem(ctx->world, p->in.proxy, &p->in.u.proxy_pose);
        snprintf(msg, msg_len, "proxy pose refused: %s", why ? why : pdk_error_message(err));
    }
    return err;
}

static pdk_error proxy_remove_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    Paddock__V1__ProxyRemove m = PADDOCK__V1__PROXY_REMOVE__INIT;
    m.session_id = session_id;
    m.proxy_id = in->proxy;
    return pdk_wire_pack_append(out, &m.base);
}

static pdk_error proxy_remove_read(const ProtobufCMessage *msg, pdk_input *in)
{
    in->proxy = ((const Paddock__V1__ProxyRemove *)msg)->proxy_id;
    return PDK_OK;
}

static pdk_error proxy_remove_apply(const pdk_input_ctx *ctx, pdk_pending_input *p, char *msg,
                                    size_t msg_len)
{
    pdk_error err = pdk_world_proxy_remove(ctx->world, p->in.proxy);
    if (err != PDK_OK)
        not_a_proxy(ctx, p->in.proxy, msg, msg_len);
    return err;
}

/* ---- the table ---------------------------------------------------------- */

/* Indexed by kind: a lookup costs no search (a recording's load looks up
 * every input). */
static const pdk_input_ops kinds[] = {
    [PDK_INPUT_SPAWN] = {.kind = PDK_INPUT_SPAWN,
                         .body = &paddock__v1__vehicle_spawn__descriptor,
                         .slots = PDK_INPUT_SLOTS_TAKE_ONE,
                         .encode = spawn_encode,
                         .read = spawn_read,
                         .apply = spawn_apply,
                         .record_rows = spawn_record_rows},
    [PDK_INPUT_REMOVE] = {.kind = PDK_INPUT_REMOVE,
                          .body = &paddock__v1__vehicle_remove__descriptor,
                          .slots = PDK_INPUT_SLOTS_FREE_ONE,
                          .encode = remove_encode,
                          .read = remove_read,
                          .apply = remove_apply,
                          .record_rows = remove_record_rows},
    [PDK_INPUT_DBW] = {.kind = PDK_INPUT_DBW,
                       .body = &paddock__v1__dbw_command__descriptor,
                       .slots = PDK_INPUT_SLOTS_KEPT,
                       .encode = dbw_encode,
                       .read = dbw_read,
                       .apply = dbw_apply},
    [PDK_INPUT_TYRE] = {.kind = PDK_INPUT_TYRE,
                        .body = &paddock__v1__tyre_command__descriptor,
                        .slots = PDK_INPUT_SLOTS_KEPT,
                        .encode = tyre_encode,
                        .read = tyre_read,
                        .apply = tyre_apply},
    [PDK_INPUT_DBW_KIT] = {.kind = PDK_INPUT_DBW_KIT,
                           .body = &paddock__v1__dbw_message__descriptor,
                           .slots = PDK_INPUT_SLOTS_KEPT,
                           .encode = kit_encode,
                           .read = kit_read,
                           .prepare = kit_prepare,
                           .apply = kit_apply},
    [PDK_INPUT_RESET] = {.kind = PDK_INPUT_RESET,
                         .body = &paddock__v1__session_control__descriptor,
                         .slots = PDK_INPUT_SLOTS_FREE_ALL,
                         .encode = reset_encode,
                         .read = reset_read,
                         .apply = reset_apply,
                         .record_rows = reset_record_rows},
    [PDK_INPUT_VEHICLE_RESET] = {.kind = PDK_INPUT_VEHICLE_RESET,
                                 .body = &paddock__v1__vehicle_reset__descriptor,
                                 .slots = PDK_INPUT_SLOTS_KEPT,
                                 .encode = vehicle_reset_encode,
                                 .read = vehicle_reset_read,
                                 .apply = vehicle_reset_apply},
    [PDK_INPUT_RESEED] = {.kind = PDK_INPUT_RESEED,
                          .body = &paddock__v1__session_control__descriptor,
                          .slots = PDK_INPUT_SLOTS_KEPT,
                          .encode = reseed_encode,
                          .read = reseed_read,
                          .apply = reseed_apply},
    [PDK_INPUT_PROXY_ADD] = {.kind = PDK_INPUT_PROXY_ADD,
                             .body = &paddock__v1__proxy_register__descriptor,
                             .slots = PDK_INPUT_SLOTS_KEPT,
                             .encode = proxy_add_encode,
                             .read = proxy_add_read,
                             .apply = proxy_add_apply},
    [PDK_INPUT_PROXY_POSE] = {.kind = PDK_INPUT_PROXY_POSE,
                              .body = &paddock__v1__proxy_pose__descriptor,
                              .slots = PDK_INPUT_SLOTS_KEPT,
                              .encode = proxy_pose_encode,
                              .read = proxy_pose_read,
                              .apply = proxy_pose_apply},
    [PDK_INPUT_PROXY_REMOVE] = {.kind = PDK_INPUT_PROXY_REMOVE,
                                .body = &paddock__v1__proxy_remove__descriptor,
                                .slots = PDK_INPUT_SLOTS_KEPT,
                                .encode = proxy_remove_encode,
                                .read = proxy_remove_read,
                                .apply = proxy_remove_apply},
};

const pdk_input_ops *pdk_input_ops_of(int kind)
{
    if (kind < 0 || (size_t)kind >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[kind].apply)
        return NULL;
    return &kinds[kind];
}

/* pdk_wire_body_read's take: the entry reads the decoded message. */
typedef struct read_into {
    const pdk_input_ops *ops;
    pdk_input *in;
} read_into;

static pdk_error take_body(const ProtobufCMessage *msg, void *ud)
{
    const read_into *r = ud;
    return r->ops->read(msg, r->in);
}

pdk_error pdk_input_decode(const pdk_input_ops *ops, const uint8_t *body, size_t len, pdk_input *in)
{
    read_into r = {ops, in};
    return pdk_wire_body_read(ops->body, body, len, take_body, &r);
}
