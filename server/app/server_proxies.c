/* Requests that host a client's proxies in a live session
 * (docs/multiplayer.md "Hosting a proxy"): ProxyRegister, answered with
 * ProxyRegistered once the proxy is in the world; ProxyPose, a stream
 * answered only when refused; ProxyRemove, answered with Ok. Each changes
 * the session, so a viewer may send none of them, as it may not spawn a
 * vehicle. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "preset_cache.h"
#include "proxy_track.h"
#include "server_request.h"

static void pdk_server_handle_proxy_register(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ProxyRegister *m = f->proxy_register;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    if (!pdk_server_text_ok(rq->out, c->conn, f->request_id, "label", m->label,
                            PDK_SERVER_MAX_NAME_BYTES))
        return;
    if (!pdk_server_text_ok(rq->out, c->conn, f->request_id, "preset", m->preset,
                            PDK_SERVER_MAX_NAME_BYTES))
        return;
    if (!m->initial) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT,
                              "ProxyRegister needs its initial pose (initial)");
        return;
    }
    pdk_proxy_entry e = {0};
    e.def.half_extent_m[0] = m->half_length_m;
    e.def.half_extent_m[1] = m->half_width_m;
    e.def.half_extent_m[2] = m->half_height_m;
    e.def.mass_kg = m->mass_kg;
    e.def.material = pdk_contact_material_car_body();
    if (m->preset && m->preset[0]) {
        if (m->half_length_m != 0.0 || m->half_width_m != 0.0 || m->half_height_m != 0.0) {
            pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_INVALID_ARGUMENT,
                                  "a proxy's box comes from its preset or from half_length_m, "
                                  "half_width_m and half_height_m, not both");
            return;
        }
        /* The preset loaded as VehicleSpawn loads it: its chassis hull,
         * its mass where mass_kg is 0, its contact material. */
        char err[PDK_PARAMS_ERR_LEN];
        pdk_vehicle_def vdef;
        pdk_error pe = pdk_preset_cache_vehicle(rq->presets, rq->cfg->presets_dir, m->preset,
                                                NULL, &vdef, NULL, err, sizeof(err));
        if (pe == PDK_OK &&
            pdk_vehicle_def_hull_box(&vdef, e.def.half_extent_m, e.centre_m) != PDK_OK) {
            pe = PDK_ERR_INVALID_ARGUMENT;
            snprintf(err, sizeof(err),
                     "vehicle preset \"%s\" has no chassis hull (the singleTrack model): give "
                     "the half extents",
                     m->preset);
        }
        if (pe != PDK_OK) {
            pdk_server_send_error(rq->out, c->conn, f->request_id, pe, err);
            return;
        }
        if (e.def.mass_kg == 0.0)
            e.def.mass_kg = vdef.chassis.mass_kg;
        e.def.material = vdef.contact;
    }
    if (!m->infinite_mass && !(e.def.mass_kg > 0.0)) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE,
                              "mass_kg must be above 0, or infinite_mass set");
        return;
    }
    if (m->infinite_mass)
        e.def.mass_kg = 0.0;
    if (m->material) {
        e.def.material.friction = m->material->friction;
        e.def.material.restitution = m->material->restitution;
    }
    pdk_wire_proxy_pose_from_pb(m->initial, &e.pose);
    e.owner_ns = m->initial->owner_time_ns;
    pdk_server_printable(e.label, sizeof(e.label), m->label);
    /* The pose as every sample is checked; the hull and the mass by the
     * world when it applies (its message names the field). */
    const char *problem = pdk_proxy_pose_problem(&e.pose);
    if (problem) {
        char msg[160];
        snprintf(msg, sizeof(msg), "initial pose refused: %s", problem);
        pdk_server_send_error(rq->out, c->conn, f->request_id, PDK_ERR_OUT_OF_RANGE, msg);
        return;
    }
    /* The world takes a unit quaternion: the owner's is normalised here,
     * so the recorded entry is what applied. */
    pdk_proxy_pose_normalise(&e.pose);
    char why[PDK_SESSION_ERR_LEN];
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    pdk_error err = pdk_session_proxy_register(slot->session, &e, to, why, sizeof(why));
    if (err != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, err, why);
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(slot);
}

static void pdk_server_handle_proxy_pose(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ProxyPose *m = f->proxy_pose;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_proxy_pose pose;
    pdk_wire_proxy_pose_from_pb(m, &pose);
    char why[PDK_SESSION_ERR_LEN];
    pdk_error err = pdk_session_proxy_pose(slot->session, c->id, m->proxy_id, m->owner_time_ns,
                                           &pose, why, sizeof(why));
    if (err != PDK_OK)
        pdk_server_send_error(rq->out, c->conn, f->request_id, err, why);
}

static void pdk_server_handle_proxy_remove(const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__ProxyRemove *m = f->proxy_remove;
    pdk_server_slot *slot =
        pdk_server_need_live_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    char why[PDK_SESSION_ERR_LEN];
    pdk_reply_to to = {.conn_id = c->id, .request_id = f->request_id};
    pdk_error err = pdk_session_proxy_remove(slot->session, m->proxy_id, to, why, sizeof(why));
    if (err != PDK_OK) {
        pdk_server_send_error(rq->out, c->conn, f->request_id, err, why);
        return;
    }
    c->pending++;
    pdk_server_settle_inputs(slot);
}

/* This file's requests (server.c dispatches them); each takes the
 * request's context only. */
const pdk_server_request pdk_server_proxy_requests[] = {
    /* Costly: it may load and check a vehicle preset, as a spawn does. */
    {.body = PADDOCK__V1__FRAME__BODY_PROXY_REGISTER,
     .handle = pdk_server_handle_proxy_register,
     .needs = PDK_NEEDS_CHANGE,
     .costly = true},
    {.body = PADDOCK__V1__FRAME__BODY_PROXY_POSE,
     .handle = pdk_server_handle_proxy_pose,
     .needs = PDK_NEEDS_CHANGE},
    {.body = PADDOCK__V1__FRAME__BODY_PROXY_REMOVE,
     .handle = pdk_server_handle_proxy_remove,
     .needs = PDK_NEEDS_CHANGE},
    {0},
};
