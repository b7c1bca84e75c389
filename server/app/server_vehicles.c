/* Requests that drive a live session's vehicles, each queued as an input
 * (input_kind.h) and answered once it applies: spawn and remove, DBW
 * commands, tyre commands, DBW kit messages; the control leases that
 * decide who may send them; and the check of a drive script's step against
 * a vehicle's limits, which changes nothing. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "preset_cache.h"
#include "script.h"
#include "server_request.h"

/* Answers an input's queueing (err, what pdk_session_queue_* returned):
 * refused with the reason when the queue did not take it, else its reply
 * is owed until its tick answers it, and a session that will not tick
 * soon applies it now. */
static void answer_queued(pdk_buf *out, pdk_server_conn *c, uint64_t request_id,
                          pdk_server_slot *slot, pdk_error err, const char *what)
{
    if (err == PDK_ERR_BUSY) {
        pdk_server_send_error(out, c->conn, request_id, err,
                              "too many inputs are waiting for the next tick");
        return;
    }
    if (err != PDK_OK) {
        char msg[128];
        snprintf(msg, sizeof(msg), "the %s could not be queued: %s", what, pdk_error_message(err));
        pdk_server_send_error(out, c->conn, request_id, err, msg);
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(slot);
}

/* Refuses c's request rid with e and why when e is an error. */
static bool refused(pdk_buf *out, pdk_server_conn *c, uint64_t rid, pdk_error e, const char *why)
{
    if (e == PDK_OK)
        return false;
    pdk_server_send_error(out, c->conn, rid, e, why);
    return true;
}

/* Queues in, the input of c's request rid, into slot's session through the
 * input table (input_kind.h); what names it if the queue refuses it. */
static void queue_input(pdk_buf *out, pdk_server_conn *c, uint64_t rid, pdk_server_slot *slot,
                        const pdk_input *in, const char *what)
{
    pdk_reply_to to = {.conn_id = c->id, .request_id = rid};
    answer_queued(out, c, rid, slot, pdk_session_queue_input(slot->session, in, to), what);
}

/* Checks spawn m and queues it into slot's session with reply to, setting
 * *queued to what the queue said; false after refusing c's request with
 * what was wrong. entry is -1 for a VehicleSpawn, else the spawn's index in
 * a VehicleSpawnBatch, which the refusal names ("spawns[3].preset"); a
 * batch's spawns are also checked against the world (their placement) so
 * that none is refused when it applies. */
static bool queue_spawn(const pdk_request *rq, pdk_server_slot *slot,
                        const Paddock__V1__VehicleSpawn *m, int entry, pdk_reply_to to,
                        pdk_error *queued)
{
    pdk_server_conn *c = rq->c;
    uint64_t rid = rq->f->request_id;
    char at[40] = "", field[64];
    if (entry >= 0)
        snprintf(at, sizeof(at), "spawns[%d]", entry);
    const char *dot = entry >= 0 ? "." : "";
    const char *colon = entry >= 0 ? ": " : "";
    snprintf(field, sizeof(field), "%s%spreset", at, dot);
    if (!pdk_server_text_ok(rq->out, c->conn, rid, field, m->preset, PDK_SERVER_MAX_NAME_BYTES))
        return false;
    snprintf(field, sizeof(field), "%s%soverrides", at, dot);
    if (!pdk_server_text_ok(rq->out, c->conn, rid, field, m->overrides, PDK_SERVER_MAX_TEXT_BYTES))
        return false;
    char msg[PDK_PARAMS_ERR_LEN + 64];
    pdk_gear gear = PDK_GEAR_PARK;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        snprintf(msg, sizeof(msg), "%s%sgear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)", at,
                 colon, (int)m->gear);
        pdk_server_send_error(rq->out, c->conn, rid, PDK_ERR_OUT_OF_RANGE, msg);
        return false;
    }
    if (!isfinite(m->x_m) || !isfinite(m->y_m) || !isfinite(m->yaw_deg) ||
        !isfinite(m->speed_mps)) {
        snprintf(msg, sizeof(msg), "%s%sx_m, y_m, yaw_deg and speed_mps must be finite numbers", at,
                 colon);
        pdk_server_send_error(rq->out, c->conn, rid, PDK_ERR_OUT_OF_RANGE, msg);
        return false;
    }
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *json = NULL;
    /* The cache: a flood of spawns of one preset reads and checks it once. */
    pdk_error e = pdk_preset_cache_vehicle(rq->presets, rq->cfg->presets_dir, m->preset,
                                           m->overrides, &def, &json, err, sizeof(err));
    if (e != PDK_OK) {
        snprintf(msg, sizeof(msg), "%s%s%s", at, colon, err);
        pdk_server_send_error(rq->out, c->conn, rid, e, msg);
        return false;
    }
    pdk_spawn_place place = {.x_m = m->x_m,
                             .y_m = m->y_m,
                             .yaw_deg = m->yaw_deg,
                             .speed_mps = m->speed_mps,
                             .gear = gear};
    if (entry >= 0) {
        pdk_pose pose = {m->x_m, m->y_m, pdk_script_deg_to_rad(m->yaw_deg)};
        const char *why = pdk_world_spawn_problem(pdk_session_world(slot->session), &def, &pose,
                                                  m->speed_mps, gear);
        if (why) {
            free(json);
            snprintf(msg, sizeof(msg), "%s: spawn refused: %s", at, why);
            pdk_server_send_error(rq->out, c->conn, rid, PDK_ERR_OUT_OF_RANGE, msg);
            return false;
        }
    }
    *queued =
        pdk_session_queue_spawn(slot->session, &def, m->preset, m->overrides, json, &place, to);
    free(json);
    return true;
}

static void pdk_server_handle_spawn(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__VehicleSpawn *m = f->vehicle_spawn;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    pdk_error e;
    if (queue_spawn(rq, slot, m, -1, to, &e))
        answer_queued(rq->out, c, f->request_id, slot, e, "spawn");
}

/* A batch's size: 1 to what the session's input queue still takes (at
 * most PDK_SESSION_MAX_PENDING); else a refusal naming it, and false. */
static bool batch_size_ok(const pdk_request *rq, pdk_server_slot *slot, size_t n, const char *what)
{
    uint64_t rid = rq->f->request_id;
    char msg[256];
    size_t room = pdk_session_queue_room(slot->session);
    if (n == 0) {
        snprintf(msg, sizeof(msg), "%s has no entries", what);
        pdk_server_send_error(rq->out, rq->c->conn, rid, PDK_ERR_INVALID_ARGUMENT, msg);
        return false;
    }
    if (n > room) {
        snprintf(msg, sizeof(msg),
                 "%s has %zu entries; session %" PRIu64 " queues %zu more inputs before its "
                 "next tick (at most %u)",
                 what, n, slot->id, room, PDK_SESSION_MAX_PENDING);
        pdk_server_send_error(rq->out, rq->c->conn, rid,
                              n > PDK_SESSION_MAX_PENDING ? PDK_ERR_OUT_OF_RANGE : PDK_ERR_BUSY,
                              msg);
        return false;
    }
    return true;
}

/* Opens the batch whose n entries are queued (answered by server_batch.c
 * once they apply); on failure takes them back and refuses it. */
static void batch_queued(const pdk_request *rq, pdk_server_slot *slot, int kind, size_t n)
{
    pdk_server_conn *c = rq->c;
    if (pdk_server_batch_open(c, rq->f->request_id, kind, (uint32_t)n) != PDK_OK) {
        pdk_session_unqueue(slot->session, n);
        pdk_server_send_error(rq->out, c->conn, rq->f->request_id, PDK_ERR_NO_MEMORY,
                              "out of memory");
        return;
    }
    c->pending += (int)n;
    pdk_server_settle_inputs(slot);
}

static void pdk_server_handle_spawn_batch(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__VehicleSpawnBatch *m = f->vehicle_spawn_batch;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || !batch_size_ok(rq, slot, m->n_spawns, "VehicleSpawnBatch"))
        return;
    const pdk_world *w = pdk_session_world(slot->session);
    size_t max = (size_t)pdk_world_def_get(w)->max_vehicles;
    size_t taken = (size_t)pdk_world_vehicle_count(w) + pdk_session_queued_spawns(slot->session);
    if (m->n_spawns > max - (taken < max ? taken : max)) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "VehicleSpawnBatch has %zu spawns; session %" PRIu64 " has room for %zu more "
                 "vehicles (%d of %zu, %zu spawns queued)",
                 m->n_spawns, slot->id, taken < max ? max - taken : 0, pdk_world_vehicle_count(w),
                 max, pdk_session_queued_spawns(slot->session));
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_CAPACITY, msg);
        return;
    }
    for (size_t i = 0; i < m->n_spawns; i++) {
        pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id, .batch = (uint32_t)i + 1};
        pdk_error e = PDK_OK;
        bool checked = queue_spawn(rq, slot, m->spawns[i], (int)i, to, &e);
        if (!checked || e != PDK_OK) {
            pdk_session_unqueue(slot->session, i);
            if (checked) {
                char msg[128];
                snprintf(msg, sizeof(msg), "spawns[%zu] could not be queued: %s", i,
                         pdk_error_message(e));
                pdk_server_send_error(rq->out, c->conn, f->request_id, e, msg);
            }
            return;
        }
    }
    batch_queued(rq, slot, PDK_INPUT_SPAWN, m->n_spawns);
}

static uint32_t spawn_batch_units(const Paddock__V1__Frame *f)
{
    return f->vehicle_spawn_batch->n_spawns > 0 ? (uint32_t)f->vehicle_spawn_batch->n_spawns : 1;
}

static void pdk_server_handle_remove(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__VehicleRemove *m = f->vehicle_remove;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_input in = {.kind = PDK_INPUT_REMOVE, .vehicle = m->vehicle_id};
    queue_input(rq->out, c, f->request_id, slot, &in, "removal");
}

static void pdk_server_handle_dbw(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__DbwCommand *m = f->dbw_command;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_gear gear;
    if (m->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->gear, &gear) != PDK_OK) {
        char msg[96];
        snprintf(msg, sizeof(msg), "gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 (int)m->gear);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    /* The driver's own controls: the DRIVER lease, taken when free, by a
     * key whose role drives through it. */
    if (!pdk_server_access_lease_ok(rq->out, c, f->request_id, m->vehicle_id, PDK_SOURCE_DRIVER))
        return;
    char why[256];
    pdk_error e = pdk_session_lease_command(slot->session, m->vehicle_id, PDK_SOURCE_DRIVER, c->id,
                                            c->holder, why, sizeof(why));
    if (refused(rq->out, c, f->request_id, e, why))
        return;
    pdk_input in = {.kind = PDK_INPUT_DBW, .vehicle = m->vehicle_id};
    pdk_wire_dbw_from_pb(m, &in.u.cmd);
    queue_input(rq->out, c, f->request_id, slot, &in, "DbwCommand");
}

/* A DbwCommandBatch: each command checked as a DbwCommand is (its gear,
 * the role's DRIVER lease), and its vehicle in the session now, before any
 * is queued; then each vehicle's lease taken or checked; then all queued,
 * to apply at one tick. A command refused names its entry; nothing is
 * queued then (leases taken for the entries before it stay, as separate
 * DbwCommands' would). */
static void pdk_server_handle_dbw_batch(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__DbwCommandBatch *m = f->dbw_command_batch;
    uint64_t rid = f->request_id;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, rid, m->session_id);
    if (!slot || !batch_size_ok(rq, slot, m->n_commands, "DbwCommandBatch"))
        return;
    char msg[384];
    for (size_t i = 0; i < m->n_commands; i++) {
        const Paddock__V1__DbwCommand *cmd = m->commands[i];
        pdk_gear gear;
        if (cmd->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
            pdk_wire_gear_from_pb(cmd->gear, &gear) != PDK_OK) {
            snprintf(msg, sizeof(msg),
                     "commands[%zu]: gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)", i,
                     (int)cmd->gear);
            pdk_server_send_error(rq->out, c->conn, rid, PDK_ERR_OUT_OF_RANGE, msg);
            return;
        }
        if (pdk_world_dbw_state(pdk_session_world(slot->session), cmd->vehicle_id) == NULL) {
            snprintf(msg, sizeof(msg), "commands[%zu]: vehicle %u is not in session %" PRIu64, i,
                     cmd->vehicle_id, slot->id);
            pdk_server_send_error(rq->out, c->conn, rid, PDK_ERR_STALE_ID, msg);
            return;
        }
        if (!pdk_server_access_lease_ok(rq->out, c, rid, cmd->vehicle_id, PDK_SOURCE_DRIVER))
            return;
    }
    for (size_t i = 0; i < m->n_commands; i++) {
        char why[256];
        pdk_error e =
            pdk_session_lease_command(slot->session, m->commands[i]->vehicle_id, PDK_SOURCE_DRIVER,
                                      c->id, c->holder, why, sizeof(why));
        if (e != PDK_OK) {
            snprintf(msg, sizeof(msg), "commands[%zu]: %s", i, why);
            pdk_server_send_error(rq->out, c->conn, rid, e, msg);
            return;
        }
    }
    for (size_t i = 0; i < m->n_commands; i++) {
        pdk_input in = {.kind = PDK_INPUT_DBW, .vehicle = m->commands[i]->vehicle_id};
        pdk_wire_dbw_from_pb(m->commands[i], &in.u.cmd);
        pdk_reply_to to = {.conn_id = c->id, .request_id = rid, .batch = (uint32_t)i + 1};
        pdk_error e = pdk_session_queue_input(slot->session, &in, to);
        if (e != PDK_OK) {
            pdk_session_unqueue(slot->session, i);
            snprintf(msg, sizeof(msg), "commands[%zu] could not be queued: %s", i,
                     pdk_error_message(e));
            pdk_server_send_error(rq->out, c->conn, rid, e, msg);
            return;
        }
    }
    batch_queued(rq, slot, PDK_INPUT_DBW, m->n_commands);
}

static uint32_t dbw_batch_units(const Paddock__V1__Frame *f)
{
    return f->dbw_command_batch->n_commands > 0 ? (uint32_t)f->dbw_command_batch->n_commands : 1;
}

/* A TyreCommand: what the message alone decides is checked here (wire);
 * the vehicle, the action's range and the model at the tick boundary
 * (session), exactly as a DbwCommand. */
static void pdk_server_handle_tyre(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__TyreCommand *m = f->tyre_command;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_input in = {.kind = PDK_INPUT_TYRE, .vehicle = m->vehicle_id};
    char why[192];
    if (refused(rq->out, c, f->request_id, pdk_wire_tyre_from_pb(m, &in.u.tyre, why, sizeof(why)),
                why))
        return;
    queue_input(rq->out, c, f->request_id, slot, &in, "TyreCommand");
}

/* A VehicleReset: the vehicle and the place are checked at the tick
 * boundary (session, sim). It drives nothing, so, as a kit's fault
 * injection, it needs no lease. */
static void pdk_server_handle_vehicle_reset(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__VehicleReset *m = f->vehicle_reset;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_input in = {.kind = PDK_INPUT_VEHICLE_RESET, .vehicle = m->vehicle_id};
    in.u.reset = (pdk_reset_place){
        .at_pose = m->at_pose ? 1 : 0, .x_m = m->x_m, .y_m = m->y_m, .yaw_deg = m->yaw_deg};
    queue_input(rq->out, c, f->request_id, slot, &in, "VehicleReset");
}

/* A DBW kit message: what the message alone decides is checked here
 * (wire), the lease gate next (AUTONOMY, or AI for a connection that holds
 * the vehicle's AI lease and not its AUTONOMY one; faults and buttons pass
 * without one), the rest at the tick boundary (session, sim). */
static void pdk_server_handle_dbw_message(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__DbwMessage *m = f->dbw_message;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_input in = {.kind = PDK_INPUT_DBW_KIT, .vehicle = m->vehicle_id};
    char why[256];
    if (refused(rq->out, c, f->request_id, pdk_wire_dbw_msg_from_pb(m, &in.u.kit, why, sizeof(why)),
                why))
        return;
    /* A fault injection is the test rig's, a button press the safety
     * operator's hand on the kit: neither drives, so neither needs a lease. */
    if (in.u.kit.kind != PDK_DBW_MSG_FAULT && in.u.kit.kind != PDK_DBW_MSG_BUTTON) {
        pdk_control_source src = PDK_SOURCE_AUTONOMY;
        if (pdk_session_lease_holder(slot->session, m->vehicle_id, PDK_SOURCE_AI) == c->id &&
            pdk_session_lease_holder(slot->session, m->vehicle_id, PDK_SOURCE_AUTONOMY) != c->id)
            src = PDK_SOURCE_AI;
        if (!pdk_server_access_lease_ok(rq->out, c, f->request_id, m->vehicle_id, src))
            return;
        pdk_error e = pdk_session_lease_command(slot->session, m->vehicle_id, src, c->id, c->holder,
                                                why, sizeof(why));
        if (refused(rq->out, c, f->request_id, e, why))
            return;
    }
    queue_input(rq->out, c, f->request_id, slot, &in, "DBW message");
}

/* ScriptStepCheck: whether the session's vehicle, or one of a preset as a
 * spawn would make it, takes a script's step (pdk_script_step_check, the
 * check `paddockd run` makes of its script). Ok or an Error naming the
 * step and the limit; nothing changes and nothing is recorded. */
static void pdk_server_handle_script_step_check(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ScriptStepCheck *m = f->script_step_check;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    char err[PDK_PARAMS_ERR_LEN];
    if (m->command == NULL) {
        snprintf(err, sizeof(err), "step %" PRIu32 " (t=%.3f s): no command to check", m->step,
                 m->t_s);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT, err);
        return;
    }
    pdk_gear gear;
    if (m->command->gear != PADDOCK__V1__GEAR__GEAR_NONE &&
        pdk_wire_gear_from_pb(m->command->gear, &gear) != PDK_OK) {
        snprintf(err, sizeof(err),
                 "step %" PRIu32
                 " (t=%.3f s): gear %d is not a DBW2 gear (1 P, 2 R, 3 N, 4 D, 5 L)",
                 m->step, m->t_s, (int)m->command->gear);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, err);
        return;
    }
    pdk_script_step step = {.t_s = m->t_s};
    pdk_wire_dbw_from_pb(m->command, &step.cmd);
    const pdk_world *w = pdk_session_world(slot->session);
    pdk_error e;
    if (m->vehicle_id != 0) {
        const pdk_vehicle_def *def = pdk_world_vehicle_def(w, m->vehicle_id);
        if (def == NULL) {
            snprintf(err, sizeof(err), "vehicle %" PRIu32 " is not in session %" PRIu64,
                     m->vehicle_id, m->session_id);
            pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_STALE_ID, err);
            return;
        }
        char name[32];
        snprintf(name, sizeof(name), "vehicle %" PRIu32, m->vehicle_id);
        e = pdk_script_step_check(&step, m->step, def, name, err, sizeof(err));
    } else {
        if (!pdk_server_text_ok(rq->out, c->conn, f->request_id, "preset", m->preset,
                                PDK_SERVER_MAX_NAME_BYTES) ||
            !pdk_server_text_ok(rq->out, c->conn, f->request_id, "overrides", m->overrides,
                                PDK_SERVER_MAX_TEXT_BYTES))
            return;
        pdk_vehicle_def def;
        e = pdk_preset_cache_vehicle(rq->presets, rq->cfg->presets_dir, m->preset, m->overrides,
                                     &def, NULL, err, sizeof(err));
        if (e == PDK_OK)
            e = pdk_script_step_check(&step, m->step, &def, m->preset, err, sizeof(err));
    }
    if (e != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, err);
        return;
    }
    pdk_server_send_ok(rq->out, c->conn, f->request_id, pdk_world_tick(w));
}

/* ControlLease: take or release one source's lease on one vehicle. */
static void pdk_server_handle_control_lease(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ControlLease *m = f->control_lease;
    pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot || pdk_server_refuse_replay(rq->out, c->conn, f->request_id, slot))
        return;
    pdk_control_source src = (pdk_control_source)m->source;
    /* Letting go is always allowed; taking, only the sources the role has. */
    if (!m->release && !pdk_server_access_lease_ok(rq->out, c, f->request_id, m->vehicle_id, src))
        return;
    char why[256];
    pdk_error e = m->release ? pdk_session_lease_release(slot->session, m->vehicle_id, src, c->id,
                                                         why, sizeof(why))
                             : pdk_session_lease_take(slot->session, m->vehicle_id, src, c->id,
                                                      c->holder, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, e, why);
        return;
    }
    Paddock__V1__ControlLeaseReply lr = PADDOCK__V1__CONTROL_LEASE_REPLY__INIT;
    lr.vehicle_id = m->vehicle_id;
    lr.source = m->release ? PADDOCK__V1__CONTROL_SOURCE__CONTROL_SOURCE_NONE
                           : (Paddock__V1__ControlSource)src;
    lr.active_source =
        (Paddock__V1__ControlSource)pdk_session_active_source(slot->session, m->vehicle_id);
    lr.tick = pdk_world_tick(pdk_session_world(slot->session));
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_CONTROL_LEASE_REPLY;
    r.control_lease_reply = &lr;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* This file's requests (server.c dispatches them): each takes the
 * request's context only. */
const pdk_server_request pdk_server_vehicle_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN,
     .handle = pdk_server_handle_spawn,
     .needs = PDK_NEEDS_CHANGE,
     .costly = true},
    {.body = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWN_BATCH,
     .handle = pdk_server_handle_spawn_batch,
     .needs = PDK_NEEDS_CHANGE,
     .costly = true,
     .units = spawn_batch_units},
    {.body = PADDOCK__V1__FRAME__BODY_DBW_COMMAND_BATCH,
     .handle = pdk_server_handle_dbw_batch,
     .needs = PDK_NEEDS_CHANGE,
     .input = true,
     .units = dbw_batch_units},
    {.body = PADDOCK__V1__FRAME__BODY_VEHICLE_REMOVE,
     .handle = pdk_server_handle_remove,
     .needs = PDK_NEEDS_CHANGE},
    {.body = PADDOCK__V1__FRAME__BODY_DBW_COMMAND,
     .handle = pdk_server_handle_dbw,
     .needs = PDK_NEEDS_CHANGE,
     .input = true},
    {.body = PADDOCK__V1__FRAME__BODY_TYRE_COMMAND,
     .handle = pdk_server_handle_tyre,
     .needs = PDK_NEEDS_CHANGE,
     .input = true},
    {.body = PADDOCK__V1__FRAME__BODY_VEHICLE_RESET,
     .handle = pdk_server_handle_vehicle_reset,
     .needs = PDK_NEEDS_CHANGE,
     .input = true},
    {.body = PADDOCK__V1__FRAME__BODY_DBW_MESSAGE,
     .handle = pdk_server_handle_dbw_message,
     .needs = PDK_NEEDS_CHANGE,
     .input = true},
    {.body = PADDOCK__V1__FRAME__BODY_CONTROL_LEASE,
     .handle = pdk_server_handle_control_lease,
     .needs = PDK_NEEDS_CHANGE},
    /* Costly: a check against a preset loads it (from the cache when it
     * can), as a spawn does. */
    {.body = PADDOCK__V1__FRAME__BODY_SCRIPT_STEP_CHECK,
     .handle = pdk_server_handle_script_step_check,
     .needs = PDK_NEEDS_READ,
     .costly = true},
    {0},
};
