/* The input table (input_kind.h): one entry per kind of input, each with
 * its recorded body's encode and decode (wire's), how it applies at a tick
 * boundary and the messages it refuses with, the store rows it leaves and what
 * it does to the world's vehicle slots. */
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

static pdk_error spawn_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    const pdk_spawn_place *pl = &in->u.place;
    pdk_wire_spawn w = {pl->x_m,  pl->y_m,    pl->yaw_deg,  pl->speed_mps,
                        pl->gear, in->preset, in->overrides};
    return pdk_wire_spawn_encode(session_id, &w, out);
}

static pdk_error spawn_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    pdk_wire_spawn w = {0};
    pdk_error e = pdk_wire_spawn_decode(body, len, &w);
    if (e != PDK_OK)
        return e;
    in->u.place = (pdk_spawn_place){
        .x_m = w.x_m, .y_m = w.y_m, .yaw_deg = w.yaw_deg, .speed_mps = w.speed_mps, .gear = w.gear};
    in->preset = w.preset;
    in->overrides = w.overrides;
    return PDK_OK;
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
    return pdk_wire_remove_encode(session_id, in->vehicle, out);
}

static pdk_error remove_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    return pdk_wire_remove_decode(body, len, &in->vehicle);
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

static pdk_error dbw_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    return pdk_wire_dbw_decode(body, len, &in->u.cmd, &in->vehicle);
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

static pdk_error tyre_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_tyre_encode(session_id, in->vehicle, &in->u.tyre, out);
}

static pdk_error tyre_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    return pdk_wire_tyre_decode(body, len, &in->u.tyre, &in->vehicle);
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

static pdk_error kit_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_dbw_msg_encode(session_id, in->vehicle, &in->u.kit, out);
}

static pdk_error kit_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    return pdk_wire_dbw_msg_decode(body, len, &in->u.kit, &in->vehicle);
}

/* What applies is what the recording will give back, so the run and its
 * replay feed the kit the same bits. */
static pdk_error kit_prepare(const pdk_input_ctx *ctx, pdk_pending_input *p)
{
    pdk_buf *buf = ctx->scratch;
    pdk_buf_reset(buf);
    pdk_error err = pdk_wire_dbw_msg_encode(ctx->session_id, p->in.vehicle, &p->in.u.kit, buf);
    pdk_dbw_msg recorded_form;
    if (err == PDK_OK)
        err = pdk_wire_dbw_msg_decode(buf->data, buf->len, &recorded_form, NULL);
    if (err != PDK_OK)
        return err;
    p->in.u.kit = recorded_form;
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

static pdk_error reset_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    (void)in;
    return pdk_wire_reset_encode(session_id, out);
}

static pdk_error reset_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    (void)in;
    return pdk_wire_reset_decode(body, len);
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

static pdk_error reseed_encode(uint64_t session_id, const pdk_input *in, pdk_buf *out)
{
    return pdk_wire_reseed_encode(session_id, in->u.seed, out);
}

static pdk_error reseed_decode(const uint8_t *body, size_t len, pdk_input *in)
{
    return pdk_wire_reseed_decode(body, len, &in->u.seed);
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

/* ---- the table ---------------------------------------------------------- */

/* Indexed by kind: a lookup costs no search (a recording's load looks up
 * every input). */
static const pdk_input_ops kinds[] = {
    [PDK_INPUT_SPAWN] = {.kind = PDK_INPUT_SPAWN,
                         .name = "VehicleSpawn",
                         .slots = PDK_INPUT_SLOTS_TAKE_ONE,
                         .encode = spawn_encode,
                         .decode = spawn_decode,
                         .apply = spawn_apply,
                         .record_rows = spawn_record_rows},
    [PDK_INPUT_REMOVE] = {.kind = PDK_INPUT_REMOVE,
                          .name = "VehicleRemove",
                          .slots = PDK_INPUT_SLOTS_FREE_ONE,
                          .encode = remove_encode,
                          .decode = remove_decode,
                          .apply = remove_apply,
                          .record_rows = remove_record_rows},
    [PDK_INPUT_DBW] = {.kind = PDK_INPUT_DBW,
                       .name = "DbwCommand",
                       .slots = PDK_INPUT_SLOTS_KEPT,
                       .encode = dbw_encode,
                       .decode = dbw_decode,
                       .apply = dbw_apply},
    [PDK_INPUT_TYRE] = {.kind = PDK_INPUT_TYRE,
                        .name = "TyreCommand",
                        .slots = PDK_INPUT_SLOTS_KEPT,
                        .encode = tyre_encode,
                        .decode = tyre_decode,
                        .apply = tyre_apply},
    [PDK_INPUT_DBW_KIT] = {.kind = PDK_INPUT_DBW_KIT,
                           .name = "DbwMessage",
                           .slots = PDK_INPUT_SLOTS_KEPT,
                           .encode = kit_encode,
                           .decode = kit_decode,
                           .prepare = kit_prepare,
                           .apply = kit_apply},
    [PDK_INPUT_RESET] = {.kind = PDK_INPUT_RESET,
                         .name = "SessionControl",
                         .slots = PDK_INPUT_SLOTS_FREE_ALL,
                         .encode = reset_encode,
                         .decode = reset_decode,
                         .apply = reset_apply,
                         .record_rows = reset_record_rows},
    [PDK_INPUT_RESEED] = {.kind = PDK_INPUT_RESEED,
                          .name = "SessionControl",
                          .slots = PDK_INPUT_SLOTS_KEPT,
                          .encode = reseed_encode,
                          .decode = reseed_decode,
                          .apply = reseed_apply},
};

const pdk_input_ops *pdk_input_ops_of(int kind)
{
    if (kind < 0 || (size_t)kind >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[kind].apply)
        return NULL;
    return &kinds[kind];
}
