/* The hooks every session of the server gets: input results become
 * replies (a reset's or reseed's a SessionControlReply), state and DBW
 * report frames go to their connections, control events and subscription
 * ends are told; on a worker thread they are kept for the loop. */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void send_input_reply(pdk_server *srv, pdk_server_conn *c, pdk_reply_to to,
                             const pdk_input_result *res)
{
    if (pdk_server_control_result(srv, c, to, res))
        return;
    if (res->kind == PDK_INPUT_SPAWN) {
        Paddock__V1__VehicleSpawned sp = PADDOCK__V1__VEHICLE_SPAWNED__INIT;
        sp.vehicle_id = res->vehicle;
        sp.tick = res->tick;
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = to.request_id;
        f.body_case = PADDOCK__V1__FRAME__BODY_VEHICLE_SPAWNED;
        f.vehicle_spawned = &sp;
        pdk_server_send_frame(&srv->out, c->conn, &f);
    } else if (res->kind == PDK_INPUT_PROXY_ADD) {
        Paddock__V1__ProxyRegistered pr = PADDOCK__V1__PROXY_REGISTERED__INIT;
        pr.proxy_id = res->proxy;
        pr.tick = res->tick;
        Paddock__V1__ContactMaterial mat = PADDOCK__V1__CONTACT_MATERIAL__INIT;
        if (res->proxy_entry) {
            const pdk_proxy_entry *e = res->proxy_entry;
            pr.half_length_m = e->def.half_extent_m[0];
            pr.half_width_m = e->def.half_extent_m[1];
            pr.half_height_m = e->def.half_extent_m[2];
            pr.mass_kg = e->def.mass_kg;
            pr.centre_x_m = e->centre_m[0];
            pr.centre_y_m = e->centre_m[1];
            pr.centre_z_m = e->centre_m[2];
            mat.friction = e->def.material.friction;
            mat.restitution = e->def.material.restitution;
            pr.material = &mat;
        }
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = to.request_id;
        f.body_case = PADDOCK__V1__FRAME__BODY_PROXY_REGISTERED;
        f.proxy_registered = &pr;
        pdk_server_send_frame(&srv->out, c->conn, &f);
    } else {
        pdk_server_send_ok(&srv->out, c->conn, to.request_id, res->tick);
    }
}

/* True on the loop's thread; hooks called elsewhere (a worker's seek) keep
 * what they have for the loop. */
static bool on_loop(const pdk_server *srv)
{
    uv_thread_t self = uv_thread_self();
    return uv_thread_equal(&self, &srv->deferred.loop_thread) != 0;
}

static void defer(pdk_server *srv, const pdk_deferred *d)
{
    uv_mutex_lock(&srv->deferred.lock);
    if (srv->deferred.n == srv->deferred.cap) {
        size_t cap = srv->deferred.cap ? srv->deferred.cap * 2 : 8;
        pdk_deferred *p = realloc(srv->deferred.items, cap * sizeof(*p));
        if (p) {
            srv->deferred.items = p;
            srv->deferred.cap = cap;
        }
    }
    if (srv->deferred.n < srv->deferred.cap)
        srv->deferred.items[srv->deferred.n++] = *d;
    uv_mutex_unlock(&srv->deferred.lock);
}

static void on_input_result(void *ud, pdk_reply_to to, const pdk_input_result *res)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_captured *it = pdk_server_outbox_add(PDK_CAPTURED_RESULT);
        if (it) {
            it->to = to;
            it->res = *res;
            it->res.message = NULL;
            it->has_text = res->err != PDK_OK && pdk_server_outbox_text(res->message, &it->off);
            if (res->proxy_entry) {
                it->entry = *res->proxy_entry;
                it->res.proxy_entry = NULL;
                it->has_entry = true;
            }
        }
        return;
    }
    /* Inputs with a reply are queued by requests, on the loop, into
     * sessions the loop ticks (or a step thread, whose hooks keep them). */
    PDK_ASSERT(on_loop(srv));
    pdk_server_conn *c = pdk_server_conn_find(srv, to.conn_id);
    if (!c)
        return;
    c->pending--;
    if (to.batch != 0) {
        pdk_server_batch_result(&srv->out, c, to, res);
    } else if (res->err != PDK_OK) {
        pdk_server_control_result(srv, NULL, to, res); /* forgets a failed reset's entry */
        pdk_server_send_error(&srv->out, c->conn, to.request_id, res->err, res->message);
    } else {
        send_input_reply(srv, c, to, res);
    }
    if (c->eof && c->pending == 0)
        pdk_conn_close(c->conn);
}

/* Each part of a tick's state (StateBatch.part) is its own latest-wins
 * stream, so that a later part never replaces an earlier one of the same
 * tick still waiting to be written. A whole tick's, and part 0's, key is
 * the subscription id (below 2^30 in practice); a later part's sets bit 30
 * and holds the part in the low 16 bits. Two parts of one connection share
 * a key only after 2^14 subscriptions on it, and then merely share a
 * latest-wins slot. */
static uint32_t state_key(uint32_t sub_id, uint32_t part)
{
    return part == 0 ? sub_id : 0x40000000u | ((sub_id & 0x3FFFu) << 16) | (part & 0xFFFFu);
}

/* A state or telemetry frame, whole, to conn_id's subscription on the loop. */
static pdk_error send_state(pdk_server *srv, uint64_t conn_id, uint32_t sub_id, uint32_t part,
                            const uint8_t *frame, size_t len)
{
    if (!on_loop(srv))
        return PDK_OK;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    return c ? pdk_conn_send_state(c->conn, state_key(sub_id, part), frame, len) : PDK_OK;
}

static pdk_error on_state(void *ud, uint64_t conn_id, uint32_t sub_id, uint32_t part,
                          const pdk_session_frame *frame)
{
    pdk_server *srv = ud;
    size_t len = frame->head_len + frame->body_len;
    if (pdk_server_outbox_capturing()) {
        /* Every listener shares the frame limit, so the answer that ends
         * an outgrown subscription is known here. */
        if (len > pdk_server_outbox_capturing()->max_frame_bytes)
            return PDK_ERR_FRAME_TOO_LARGE;
        pdk_captured *it = pdk_server_outbox_frame(PDK_CAPTURED_STATE, conn_id, sub_id, frame->head,
                                                   frame->head_len, frame->body, frame->body_len);
        if (it)
            it->part = part;
        return PDK_OK;
    }
    if (!on_loop(srv))
        return PDK_OK;
    /* A tick on the loop: the pieces joined once, as the transports take
     * a frame whole. */
    pdk_buf *join = &srv->frame_join;
    pdk_buf_reset(join);
    if (pdk_buf_append(join, frame->head, frame->head_len) != PDK_OK ||
        pdk_buf_append(join, frame->body, frame->body_len) != PDK_OK)
        return PDK_ERR_NO_MEMORY;
    return send_state(srv, conn_id, sub_id, part, join->data, join->len);
}

/* Each report kind of a DBW subscription is its own latest-wins stream, so
 * a fast steering report never replaces a pending system report. Report
 * streams set the top bit (state streams, state_key, never do). Two live
 * streams of one connection share a key only after 2^27 subscriptions on
 * it, and then merely share a latest-wins slot. */
static uint32_t report_key(uint32_t sub_id, int kind)
{
    return 0x80000000u | ((sub_id & 0x07FFFFFFu) << 4) | (uint32_t)kind;
}

static pdk_error on_dbw_report(void *ud, uint64_t conn_id, uint32_t sub_id, int kind,
                               const uint8_t *frame, size_t len)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        if (len > pdk_server_outbox_capturing()->max_frame_bytes)
            return PDK_ERR_FRAME_TOO_LARGE;
        pdk_captured *it =
            pdk_server_outbox_frame(PDK_CAPTURED_DBW, conn_id, sub_id, frame, len, NULL, 0);
        if (it)
            it->report = kind;
        return PDK_OK;
    }
    if (!on_loop(srv))
        return PDK_OK;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    return c ? pdk_conn_send_state(c->conn, report_key(sub_id, kind), frame, len) : PDK_OK;
}

/* A lease holder hears that its vehicle changed hands. */
static void on_control(void *ud, uint64_t conn_id, const pdk_control_event *ev)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_captured *it = pdk_server_outbox_add(PDK_CAPTURED_CONTROL);
        if (it) {
            it->conn_id = conn_id;
            it->control = *ev;
            it->control.reason = NULL;
            it->has_text = pdk_server_outbox_text(ev->reason, &it->off);
        }
        return;
    }
    if (!on_loop(srv)) {
        pdk_deferred d = {.control = true, .conn_id = conn_id, .event = *ev};
        snprintf(d.why, sizeof(d.why), "%s", ev->reason ? ev->reason : "");
        defer(srv, &d);
        return;
    }
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (!c)
        return;
    /* Clients with fixed buffers (nanopb, ControlEvent.reason max_size 160)
     * take at most 159 bytes; the reason's names are printable ASCII. */
    char reason[160];
    snprintf(reason, sizeof(reason), "%s", ev->reason ? ev->reason : "");
    Paddock__V1__ControlEvent e = PADDOCK__V1__CONTROL_EVENT__INIT;
    e.session_id = ev->session_id;
    e.vehicle_id = ev->vehicle;
    e.active_source = (Paddock__V1__ControlSource)ev->active;
    e.preempted = (Paddock__V1__ControlSource)ev->preempted;
    e.reason = reason;
    e.tick = ev->tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_CONTROL_EVENT;
    f.control_event = &e;
    pdk_server_send_frame(&srv->out, c->conn, &f);
}

/* A hosted proxy's owner, or a subscriber of its session, hears that it
 * froze, resumed or left. Only the loop's ticks host proxies (a replay's
 * seek hosts none). */
static void on_proxy_event(void *ud, uint64_t conn_id, const pdk_proxy_event *ev)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_captured *it = pdk_server_outbox_add(PDK_CAPTURED_PROXY_EVENT);
        if (it) {
            it->conn_id = conn_id;
            it->proxy_event = *ev;
            it->proxy_event.reason = it->proxy_event.label = NULL;
            it->has_text = pdk_server_outbox_text(ev->reason, &it->off) &&
                           pdk_server_outbox_text(ev->label, &it->off2);
        }
        return;
    }
    if (!on_loop(srv))
        return;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (!c)
        return;
    /* Fixed-buffer clients take at most 159 bytes of reason, 63 of label. */
    char reason[160], label[64];
    snprintf(reason, sizeof(reason), "%s", ev->reason ? ev->reason : "");
    snprintf(label, sizeof(label), "%s", ev->label ? ev->label : "");
    Paddock__V1__ProxyEvent e = PADDOCK__V1__PROXY_EVENT__INIT;
    e.session_id = ev->session_id;
    e.proxy_id = ev->proxy;
    e.kind = (Paddock__V1__ProxyEventKind)ev->kind;
    e.reason = reason;
    e.label = label;
    e.tick = ev->tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_PROXY_EVENT;
    f.proxy_event = &e;
    pdk_server_send_frame(&srv->out, c->conn, &f);
}

/* A hosted proxy's owner hears the impulses it received in a tick. */
static void on_proxy_contact(void *ud, uint64_t conn_id, uint64_t session_id, pdk_proxy_id proxy,
                             uint64_t tick, const pdk_proxy_impulse *impulses, size_t n)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_captured *it = pdk_server_outbox_add(PDK_CAPTURED_PROXY_CONTACT);
        if (it) {
            it->conn_id = conn_id;
            it->session_id = session_id;
            it->proxy = proxy;
            it->tick = tick;
            it->len = n;
            if (!pdk_server_outbox_keep(impulses, n * sizeof(*impulses), &it->off))
                it->kind = PDK_CAPTURED_LOST;
        }
        return;
    }
    if (!on_loop(srv))
        return;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (!c)
        return;
    Paddock__V1__ProxyImpulse items[PDK_SESSION_MAX_PROXY_IMPULSES];
    Paddock__V1__ProxyImpulse *ptrs[PDK_SESSION_MAX_PROXY_IMPULSES];
    if (n > PDK_SESSION_MAX_PROXY_IMPULSES)
        n = PDK_SESSION_MAX_PROXY_IMPULSES;
    for (size_t i = 0; i < n; i++) {
        const pdk_proxy_impulse *in = &impulses[i];
        Paddock__V1__ProxyImpulse *o = &items[i];
        paddock__v1__proxy_impulse__init(o);
        o->other_vehicle_id = in->other_vehicle;
        o->other_proxy_id = in->other_proxy;
        o->x_m = in->point_m[0];
        o->y_m = in->point_m[1];
        o->z_m = in->point_m[2];
        o->nx = in->normal[0];
        o->ny = in->normal[1];
        o->nz = in->normal[2];
        o->ix_ns = in->impulse_ns[0];
        o->iy_ns = in->impulse_ns[1];
        o->iz_ns = in->impulse_ns[2];
        ptrs[i] = o;
    }
    Paddock__V1__ProxyContact pc = PADDOCK__V1__PROXY_CONTACT__INIT;
    pc.session_id = session_id;
    pc.proxy_id = proxy;
    pc.tick = tick;
    pc.sim_time_s = (double)tick / (double)PDK_TICK_HZ;
    pc.n_impulses = n;
    pc.impulses = ptrs;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_PROXY_CONTACT;
    f.proxy_contact = &pc;
    pdk_server_send_frame(&srv->out, c->conn, &f);
}

/* A contact subscriber's events go on the ordinary queue, not a
 * latest-wins slot: a later tick's events must not replace these. A
 * subscriber that cannot keep up meets the queue's hard limit, which closes
 * its connection, rather than lose events silently. */
static void on_contacts(void *ud, uint64_t conn_id, uint32_t sub_id, const uint8_t *frame,
                        size_t len)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_server_outbox_frame(PDK_CAPTURED_CONTACTS, conn_id, sub_id, frame, len, NULL, 0);
        return;
    }
    if (!on_loop(srv))
        return;
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (c)
        pdk_conn_send(c->conn, frame, len);
}

/* A subscriber whose subscription ends (its session closed, its batches
 * outgrew the frame limit) is told so with a pushed Error rather than left
 * waiting for state that will never come. */
static void on_sub_end(void *ud, uint64_t conn_id, uint32_t sub_id, pdk_error code, const char *why)
{
    pdk_server *srv = ud;
    if (pdk_server_outbox_capturing()) {
        pdk_captured *it = pdk_server_outbox_add(PDK_CAPTURED_SUB_END);
        if (it) {
            it->conn_id = conn_id;
            it->sub_id = sub_id;
            it->code = code;
            it->has_text = pdk_server_outbox_text(why, &it->off);
        }
        return;
    }
    if (!on_loop(srv)) {
        pdk_deferred d = {.conn_id = conn_id, .sub_id = sub_id, .code = code};
        snprintf(d.why, sizeof(d.why), "%s", why ? why : "");
        defer(srv, &d);
        return;
    }
    pdk_server_conn *c = pdk_server_conn_find(srv, conn_id);
    if (!c)
        return;
    c->n_subs--;
    pdk_server_send_error(&srv->out, c->conn, 0, code, why);
}

void pdk_server_flush_deferred(pdk_server *srv)
{
    uv_mutex_lock(&srv->deferred.lock);
    size_t n = srv->deferred.n;
    pdk_deferred *list = srv->deferred.items;
    srv->deferred.items = NULL;
    srv->deferred.n = srv->deferred.cap = 0;
    uv_mutex_unlock(&srv->deferred.lock);
    for (size_t i = 0; i < n; i++) {
        pdk_deferred *d = &list[i];
        if (d->control) {
            d->event.reason = d->why;
            on_control(srv, d->conn_id, &d->event);
        } else {
            on_sub_end(srv, d->conn_id, d->sub_id, d->code, d->why);
        }
    }
    free(list);
}

void pdk_server_outbox_deliver(pdk_server *srv, pdk_outbox *box)
{
    if (box->lost)
        fprintf(stderr, "paddockd: out of memory keeping a tick's replies and frames on a step "
                        "thread: some were not sent\n");
    const uint8_t *bytes = box->bytes.data;
    for (size_t i = 0; i < box->n; i++) {
        pdk_captured *it = &box->items[i];
        /* A text that could not be kept reads empty; a frame or impulses
         * that could not be kept are not sent (the line above says so). */
        const char *text = it->has_text ? (const char *)bytes + it->off : "";
        switch (it->kind) {
        case PDK_CAPTURED_RESULT:
            if (it->res.err != PDK_OK)
                it->res.message = it->has_text ? text : pdk_error_message(it->res.err);
            if (it->has_entry)
                it->res.proxy_entry = &it->entry;
            on_input_result(srv, it->to, &it->res);
            break;
        case PDK_CAPTURED_STATE:
            send_state(srv, it->conn_id, it->sub_id, it->part, bytes + it->off, it->len);
            break;
        case PDK_CAPTURED_DBW:
            on_dbw_report(srv, it->conn_id, it->sub_id, it->report, bytes + it->off, it->len);
            break;
        case PDK_CAPTURED_CONTROL:
            it->control.reason = text;
            on_control(srv, it->conn_id, &it->control);
            break;
        case PDK_CAPTURED_PROXY_EVENT:
            it->proxy_event.reason = text;
            it->proxy_event.label = it->has_text ? (const char *)bytes + it->off2 : "";
            on_proxy_event(srv, it->conn_id, &it->proxy_event);
            break;
        case PDK_CAPTURED_PROXY_CONTACT:
            on_proxy_contact(srv, it->conn_id, it->session_id, it->proxy, it->tick,
                             (const pdk_proxy_impulse *)(const void *)(bytes + it->off), it->len);
            break;
        case PDK_CAPTURED_CONTACTS:
            on_contacts(srv, it->conn_id, it->sub_id, bytes + it->off, it->len);
            break;
        case PDK_CAPTURED_SUB_END:
            on_sub_end(srv, it->conn_id, it->sub_id, it->code, text);
            break;
        case PDK_CAPTURED_LOST:
            break;
        }
    }
    box->n = 0;
    pdk_buf_reset(&box->bytes);
}

/* A large world's step shared with the idle step threads (ADR 0033). */
#define SHARE_MAX_SLICES PDK_SESSION_KEYFRAME_SLICES

typedef struct world_share {
    pdk_step_share base;
    pdk_world *world;
    int count;
    int faults[SHARE_MAX_SLICES];
} world_share;

/* The slices a world of count vehicles is shared in on pool (0: not
 * shared): about --step-split vehicles each and at least four a thread (of
 * 64 vehicles or more), so that a thread that joins late or runs slower
 * leaves the others little to wait for. */
static int share_slices(const pdk_server *srv, const pdk_step_pool *pool, int count)
{
    uint32_t split = srv->cfg.step_split_vehicles;
    if (pool == NULL || pool->n_threads < 2 || split == 0 || count / 2 < (int)split)
        return 0;
    int n = count / (int)split;
    int even = count / 64 < 4 * (int)pool->n_threads ? count / 64 : 4 * (int)pool->n_threads;
    n = n > even ? n : even;
    return n < SHARE_MAX_SLICES ? n : SHARE_MAX_SLICES;
}

/* Where slice i of n of a list of count starts: equal shares, slice n
 * starting at count. */
static int slice_start(int count, int i, int n)
{
    return (int)((int64_t)count * i / n);
}

/* Slice i of n, an equal share of the world's list. */
static void world_slice(pdk_step_share *sh, int i)
{
    world_share *ws = (world_share *)sh;
    int first = slice_start(ws->count, i, sh->n_chunks);
    ws->faults[i] =
        pdk_world_step_slice(ws->world, first, slice_start(ws->count, i + 1, sh->n_chunks) - first);
}

/* On a step thread, a world of at least twice --step-split vehicles steps
 * in slices of at most about that many, which the pool's idle threads take
 * with this one (pdk_step_pool_share); the slices give pdk_world_step's bits
 * (pdk_world_step_slice), so the hashes are those of one thread. On the
 * loop, with one step thread, or for a smaller world: pdk_world_step. */
static void step_world(void *ud, pdk_world *world)
{
    pdk_step_pool *pool = pdk_step_pool_current();
    int count = pdk_world_vehicle_count(world);
    int n = share_slices(ud, pool, count);
    if (n == 0) {
        pdk_world_step(world);
        return;
    }
    world_share ws = {
        .base = {.chunk = world_slice, .n_chunks = n}, .world = world, .count = count};
    pdk_world_step_begin(world);
    pdk_step_pool_share(pool, &ws.base);
    int faults = 0;
    for (int i = 0; i < ws.base.n_chunks; i++)
        faults += ws.faults[i];
    pdk_world_step_end(world, faults);
}

/* A large world's keyframe encoded in slices the same way: each slice's
 * vehicle entries into a buffer of its own, with a scratch of its own (the
 * session's, kept from keyframe to keyframe), then the snapshot around them
 * (pdk_wire_snapshot_encode_parts), the bytes of one thread's encode. */
typedef struct keyframe_share {
    pdk_step_share base;
    const pdk_world *world;
    int count;
    pdk_keyframe_scratch *kept;
    pdk_error err[PDK_SESSION_KEYFRAME_SLICES];
} keyframe_share;

static void keyframe_slice(pdk_step_share *sh, int i)
{
    keyframe_share *ks = (keyframe_share *)sh;
    int first = slice_start(ks->count, i, sh->n_chunks);
    int end = slice_start(ks->count, i + 1, sh->n_chunks);
    pdk_buf_reset(&ks->kept->parts[i]);
    ks->err[i] = pdk_wire_snapshot_vehicles(&ks->kept->slice[i], ks->world, first, end - first,
                                            &ks->kept->parts[i]);
}

static pdk_error encode_keyframe(void *ud, pdk_keyframe_scratch *kept, const pdk_world *world,
                                 uint64_t hash, const char *build_id, pdk_buf *out)
{
    pdk_step_pool *pool = pdk_step_pool_current();
    int count = pdk_world_vehicle_count(world);
    int n = share_slices(ud, pool, count);
    if (n == 0)
        return pdk_wire_snapshot_encode_with(&kept->whole, world, hash, build_id, out);
    keyframe_share ks = {.base = {.chunk = keyframe_slice, .n_chunks = n},
                         .world = world,
                         .count = count,
                         .kept = kept};
    pdk_step_pool_share(pool, &ks.base);
    for (int i = 0; i < n; i++)
        if (ks.err[i] != PDK_OK)
            return ks.err[i];
    return pdk_wire_snapshot_encode_parts(&kept->whole, world, hash, build_id, kept->parts,
                                          (size_t)n, out);
}

pdk_session_hooks pdk_server_hooks(pdk_server *srv)
{
    pdk_session_hooks hooks = {.on_result = on_input_result,
                               .on_state = on_state,
                               .on_sub_end = on_sub_end,
                               .on_dbw_report = on_dbw_report,
                               .on_control = on_control,
                               .on_proxy_event = on_proxy_event,
                               .on_proxy_contact = on_proxy_contact,
                               .on_contacts = on_contacts,
                               .step_world = step_world,
                               .encode_keyframe = encode_keyframe,
                               .ud = srv};
    return hooks;
}

bool pdk_server_control_result(pdk_server *srv, pdk_server_conn *c, pdk_reply_to to,
                               const pdk_input_result *res)
{
    if (res->kind != PDK_INPUT_RESET && res->kind != PDK_INPUT_RESEED)
        return false;
    size_t i = 0;
    while (i < srv->controls.n && (srv->controls.items[i].conn_id != to.conn_id ||
                                   srv->controls.items[i].request_id != to.request_id))
        i++;
    if (i == srv->controls.n)
        return false;
    uint64_t session_id = srv->controls.items[i].session_id;
    srv->controls.items[i] = srv->controls.items[--srv->controls.n];
    pdk_server_slot *slot = pdk_server_session_find(&srv->table, session_id);
    if (slot && res->kind == PDK_INPUT_RESET && res->err == PDK_OK)
        slot->timeline_epoch++;
    if (!c)
        return true;
    if (slot && !slot->worker.busy) {
        pdk_server_reply_control(srv, c->conn, to.request_id, slot);
        return true;
    }
    Paddock__V1__SessionControlReply r = PADDOCK__V1__SESSION_CONTROL_REPLY__INIT;
    r.tick = res->tick;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = to.request_id;
    f.body_case = PADDOCK__V1__FRAME__BODY_SESSION_CONTROL_REPLY;
    f.session_control_reply = &r;
    pdk_server_send_frame(&srv->out, c->conn, &f);
    return true;
}

void pdk_server_controls_forget_conn(pdk_server *srv, uint64_t conn_id)
{
    for (size_t i = 0; i < srv->controls.n;) {
        if (srv->controls.items[i].conn_id == conn_id)
            srv->controls.items[i] = srv->controls.items[--srv->controls.n];
        else
            i++;
    }
}
