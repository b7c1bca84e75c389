/* A session: its world, the queue of inputs waiting for the next tick
 * boundary, scripted drivers, state, telemetry and DBW report subscriptions, the
 * vehicles' control leases and the recording of all of it. */
#include "session_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire.h"
#include "world_mem.h"

char *pdk_session_dup_(const char *s)
{
    return strdup(s ? s : "");
}

pdk_error pdk_session_create_bare_(uint64_t id, const pdk_session_def *def,
                                   const pdk_session_hooks *hooks, pdk_session **out)
{
    *out = NULL;
    pdk_error err = pdk_world_def_check(&def->world);
    if (err != PDK_OK)
        return err;
    pdk_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PDK_ERR_NO_MEMORY;
    size_t bytes = pdk_world_mem_size(&def->world);
    s->world_mem = pdk_world_mem_alloc(bytes);
    s->world_mem_bytes = bytes;
    s->name = pdk_session_dup_(def->name);
    s->world_preset = pdk_session_dup_(def->world_preset);
    s->build_id = pdk_session_dup_(def->build_id ? def->build_id : "unknown");
    if (!s->world_mem || !s->name || !s->world_preset || !s->build_id) {
        pdk_session_destroy(s);
        return PDK_ERR_NO_MEMORY;
    }
    s->world_def = def->world;
    err = pdk_world_init_zeroed(s->world_mem, bytes, &s->world_def, &s->world);
    if (err != PDK_OK) {
        pdk_session_destroy(s);
        return err;
    }
    s->id = id;
    s->timing = def->timing;
    s->publishing = true;
    s->channels = PDK_CHANNELS_EVERY_TICK;
    s->keyframe_every =
        def->keyframe_every_ticks ? def->keyframe_every_ticks : PDK_SESSION_KEYFRAME_EVERY;
    s->keyframe_offset = def->keyframe_offset_ticks % s->keyframe_every;
    if (hooks)
        s->hooks = *hooks;
    pdk_lateness_reset(&s->lateness);
    pdk_lateness_reset(&s->tick_time);
    *out = s;
    return PDK_OK;
}

pdk_error pdk_session_create(uint64_t id, const pdk_session_def *def,
                             const pdk_session_hooks *hooks, pdk_session **out)
{
    pdk_session *s;
    pdk_error err = pdk_session_create_bare_(id, def, hooks, &s);
    if (err != PDK_OK)
        return err;
    if (def->store) {
        s->store = def->store;
        err = pdk_session_record_start_(s, def, NULL, 0);
        if (err != PDK_OK) {
            s->store = NULL; /* nothing of it was recorded: no end either */
            pdk_session_destroy(s);
            return err;
        }
    }
    *out = s;
    return PDK_OK;
}

static void pending_free(pdk_pending_input *p)
{
    free(p->def);
    free(p->in.preset);
    free(p->in.overrides);
    free(p->params_json);
    free(p->removed);
    p->def = NULL;
    p->in.preset = p->in.overrides = p->params_json = NULL;
    p->removed = NULL;
}

static void sub_free(subscription *sub)
{
    free(sub->ids);
    free(sub->chans);
    sub->ids = NULL;
    sub->chans = NULL;
}

static void tell(pdk_session *s, const pdk_pending_input *p, pdk_error err, const char *message)
{
    if (p->to.conn_id == 0 || !s->hooks.on_result)
        return;
    pdk_input_result res = {
        .kind = p->in.kind,
        .err = err,
        .message = message,
        .tick = pdk_world_tick(s->world),
        .vehicle = p->in.vehicle,
        .proxy = p->in.proxy,
        .proxy_entry = p->in.kind == PDK_INPUT_PROXY_ADD ? &p->in.u.proxy_add : NULL,
    };
    s->hooks.on_result(s->hooks.ud, p->to, &res);
}

void pdk_session_destroy(pdk_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_pending; i++) {
        tell(s, &s->pending[i], PDK_ERR_CLOSED, "the session was closed before the input applied");
        pending_free(&s->pending[i]);
    }
    free(s->pending);
    free(s->hosted);
    free(s->teleport_each);
    free(s->aoi_ids);
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->hooks.on_sub_end) {
            char why[96];
            snprintf(why, sizeof(why), "subscription %u ended: session %llu was closed",
                     s->subs[i].id, (unsigned long long)s->id);
            s->hooks.on_sub_end(s->hooks.ud, s->subs[i].conn_id, s->subs[i].id, PDK_ERR_CLOSED,
                                why);
        }
        sub_free(&s->subs[i]);
    }
    for (size_t i = 0; i < s->n_dbw_subs; i++) {
        if (s->hooks.on_sub_end) {
            char why[96];
            snprintf(why, sizeof(why), "subscription %u ended: session %llu was closed",
                     s->dbw_subs[i].id, (unsigned long long)s->id);
            s->hooks.on_sub_end(s->hooks.ud, s->dbw_subs[i].conn_id, s->dbw_subs[i].id,
                                PDK_ERR_CLOSED, why);
        }
    }
    for (size_t i = 0; i < s->n_rings; i++)
        free(s->rings[i]);
    free(s->leases);
    free(s->lease_index);
    for (size_t i = 0; i < s->n_scripts; i++)
        free(s->scripts[i].steps);
    if (s->store && s->world)
        pdk_session_record_end_(s);
    pdk_buf_free(&s->common);
    pdk_buf_free(&s->frame);
    pdk_buf_free(&s->payload);
    pdk_buf_free(&s->inputs);
    pdk_buf_free(&s->snapshot);
    if (s->keyframe_scratch) {
        pdk_wire_snapshot_scratch_free(&s->keyframe_scratch->whole);
        for (int i = 0; i < PDK_SESSION_KEYFRAME_SLICES; i++) {
            pdk_wire_snapshot_scratch_free(&s->keyframe_scratch->slice[i]);
            pdk_buf_free(&s->keyframe_scratch->parts[i]);
        }
        free(s->keyframe_scratch);
    }
    pdk_world_mem_free(s->world_mem, s->world_mem_bytes);
    free(s->name);
    free(s->world_preset);
    free(s->build_id);
    free(s);
}

uint64_t pdk_session_id(const pdk_session *s)
{
    return s->id;
}

const char *pdk_session_name(const pdk_session *s)
{
    return s->name;
}

pdk_timing pdk_session_timing(const pdk_session *s)
{
    return s->timing;
}

const pdk_world *pdk_session_world(const pdk_session *s)
{
    return s->world;
}

pdk_lateness *pdk_session_lateness(pdk_session *s)
{
    return &s->lateness;
}

pdk_lateness *pdk_session_tick_time(pdk_session *s)
{
    return &s->tick_time;
}

const char *pdk_session_world_preset(const pdk_session *s)
{
    return s->world_preset;
}

uint64_t pdk_session_hash(const pdk_session *s)
{
    return pdk_world_hash(s->world);
}

uint64_t pdk_session_tick_hash(const pdk_session *s)
{
    return s->tick_hashed ? s->tick_hash : pdk_world_hash(s->world);
}

uint64_t pdk_session_inputs_applied(const pdk_session *s)
{
    return s->seq;
}

static pdk_pending_input *push_pending(pdk_session *s)
{
    if (s->n_pending >= PDK_SESSION_MAX_PENDING)
        return NULL;
    if (s->n_pending == s->cap_pending) {
        size_t cap = s->cap_pending ? s->cap_pending * 2 : 16;
        pdk_pending_input *p = realloc(s->pending, cap * sizeof(*p));
        if (!p)
            return NULL;
        s->pending = p;
        s->cap_pending = cap;
    }
    pdk_pending_input *p = &s->pending[s->n_pending++];
    memset(p, 0, sizeof(*p));
    return p;
}

size_t pdk_session_queue_room(const pdk_session *s)
{
    return PDK_SESSION_MAX_PENDING - s->n_pending;
}

size_t pdk_session_queued_spawns(const pdk_session *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_pending; i++)
        n += s->pending[i].in.kind == PDK_INPUT_SPAWN;
    return n;
}

void pdk_session_unqueue(pdk_session *s, size_t n)
{
    PDK_ASSERT(n <= s->n_pending);
    for (size_t i = s->n_pending - n; i < s->n_pending; i++)
        pending_free(&s->pending[i]);
    s->n_pending -= n;
}

pdk_error pdk_session_queue_spawn(pdk_session *s, const pdk_vehicle_def *def, const char *preset,
                                  const char *overrides, const char *params_json,
                                  const pdk_spawn_place *place, pdk_reply_to to)
{
    pdk_pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->in.kind = PDK_INPUT_SPAWN;
    p->to = to;
    p->def = malloc(sizeof(*p->def));
    if (p->def)
        *p->def = *def;
    p->in.u.place = *place;
    p->in.preset = pdk_session_dup_(preset);
    p->in.overrides = pdk_session_dup_(overrides);
    p->params_json = pdk_session_dup_(params_json);
    if (!p->def || !p->in.preset || !p->in.overrides || !p->params_json) {
        pending_free(p);
        s->n_pending--;
        return PDK_ERR_NO_MEMORY;
    }
    return PDK_OK;
}

static void vehicle_gone(void *ud, pdk_vehicle_id id, const char *why, bool end_subs)
{
    pdk_session *s = ud;
    pdk_session_drop_vehicle_leases_(s, id, why);
    if (end_subs)
        pdk_session_end_vehicle_subs_(s, id, PDK_ERR_STALE_ID, why);
}

static void recorded(void *ud, pdk_error err, const char *what)
{
    pdk_session_recorded_(ud, err, what);
}

/* What the input table's entries see of s. */
static pdk_input_ctx input_ctx(pdk_session *s)
{
    return (pdk_input_ctx){.session_id = s->id,
                           .world = s->world,
                           .store = s->store,
                           .scratch = &s->payload,
                           .vehicle_gone = vehicle_gone,
                           .recorded = recorded,
                           .ud = s};
}

/* Queues in through its kind's entry, with its prepare unless raw. */
static pdk_error queue_input(pdk_session *s, const pdk_input *in, pdk_reply_to to, bool raw)
{
    const pdk_input_ops *ops = pdk_input_ops_of(in->kind);
    if (!ops || ops->slots == PDK_INPUT_SLOTS_TAKE_ONE)
        return PDK_ERR_INVALID_ARGUMENT;
    pdk_pending_input staged = {.in = *in, .to = to};
    staged.in.preset = staged.in.overrides = NULL;
    if (!raw && ops->prepare) {
        pdk_input_ctx ctx = input_ctx(s);
        pdk_error err = ops->prepare(&ctx, &staged);
        if (err != PDK_OK)
            return err;
    }
    pdk_pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    *p = staged;
    return PDK_OK;
}

pdk_error pdk_session_queue_input(pdk_session *s, const pdk_input *in, pdk_reply_to to)
{
    return queue_input(s, in, to, false);
}

pdk_error pdk_session_queue_recorded(pdk_session *s, const pdk_input *in, pdk_reply_to to)
{
    /* A session that records needs the bytes of what applies for its own
     * recording: its prepare keeps them. */
    return queue_input(s, in, to, s->store == NULL);
}

pdk_error pdk_session_attach_script(pdk_session *s, pdk_vehicle_id id, const pdk_script *script,
                                    bool loop, double loop_gap_s)
{
    if (s->n_scripts >= PDK_SESSION_MAX_SCRIPTS)
        return PDK_ERR_CAPACITY;
    if (script->n_steps == 0)
        return PDK_ERR_INVALID_ARGUMENT;
    script_driver *d = &s->scripts[s->n_scripts];
    d->steps = malloc(script->n_steps * sizeof(*d->steps));
    if (!d->steps)
        return PDK_ERR_NO_MEMORY;
    memcpy(d->steps, script->steps, script->n_steps * sizeof(*d->steps));
    d->n_steps = script->n_steps;
    d->vehicle = id;
    d->next = 0;
    d->start_tick = pdk_world_tick(s->world);
    d->loop = loop;
    d->gap_ticks = (uint64_t)llround(fmax(loop_gap_s, 0.0) * PDK_TICK_HZ);
    s->n_scripts++;
    return PDK_OK;
}

static uint64_t step_tick(const script_driver *d, size_t i)
{
    return d->start_tick + (uint64_t)llround(d->steps[i].t_s * PDK_TICK_HZ);
}

/* Turns every script step due at this tick into a queued input. A script
 * drives as source AI: while a connection holds its vehicle's DRIVER or
 * AUTONOMY lease its due steps pass unapplied. */
static void run_scripts(pdk_session *s)
{
    uint64_t tick = pdk_world_tick(s->world);
    for (size_t i = 0; i < s->n_scripts;) {
        script_driver *d = &s->scripts[i];
        bool gone = pdk_world_vehicle_pose(s->world, d->vehicle, &(pdk_vehicle_pose){0}) != PDK_OK;
        bool preempted = !gone && pdk_session_conn_lease_above_(s, d->vehicle, PDK_SOURCE_AI, 0);
        while (!gone && d->next < d->n_steps && step_tick(d, d->next) <= tick) {
            pdk_input in = {
                .kind = PDK_INPUT_DBW, .vehicle = d->vehicle, .u.cmd = d->steps[d->next].cmd};
            if (!preempted && pdk_session_queue_input(s, &in, (pdk_reply_to){0}) != PDK_OK)
                break; /* the queue is full: the step waits for the next tick */
            d->next++;
        }
        if (!gone && d->next == d->n_steps && d->loop) {
            uint64_t last = step_tick(d, d->n_steps - 1);
            if (tick >= last + d->gap_ticks) {
                d->start_tick = tick;
                d->next = 0;
                continue; /* the first steps may be due at once */
            }
        }
        if (gone || (d->next == d->n_steps && !d->loop)) {
            free(d->steps);
            s->scripts[i] = s->scripts[--s->n_scripts];
            continue;
        }
        i++;
    }
}

/* Applies one input at the current tick boundary through its kind's entry;
 * on success it is stamped with the next seq and recorded. */
/* Counts a reset of vehicle id in its teleport_count. */
static void count_teleport(pdk_session *s, pdk_vehicle_id id)
{
    size_t at = 0;
    while (at < s->teleports.n && s->teleport_each[at].id < id)
        at++;
    if (at < s->teleports.n && s->teleport_each[at].id == id) {
        s->teleport_each[at].count++;
        return;
    }
    if (s->teleports.n == s->cap_teleports) {
        size_t cap = s->cap_teleports ? 2 * s->cap_teleports : 8;
        pdk_wire_teleport *grown = realloc(s->teleport_each, cap * sizeof(*grown));
        if (!grown) {
            /* Without room the vehicle's own count stays; the whole
             * session's moves instead, so clients still jump. */
            s->teleports.all++;
            return;
        }
        s->teleport_each = grown;
        s->cap_teleports = cap;
    }
    memmove(&s->teleport_each[at + 1], &s->teleport_each[at],
            (s->teleports.n - at) * sizeof(*s->teleport_each));
    s->teleport_each[at] = (pdk_wire_teleport){.id = id, .count = 1};
    s->teleports.n++;
    s->teleports.each = s->teleport_each;
}

void pdk_session_count_teleport_all(pdk_session *s)
{
    s->teleports.all++;
}

uint32_t pdk_session_teleport_count(const pdk_session *s, pdk_vehicle_id id)
{
    return pdk_wire_teleport_count(&s->teleports, id);
}

static void apply_input(pdk_session *s, pdk_pending_input *p)
{
    uint64_t tick = pdk_world_tick(s->world);
    const pdk_input_ops *ops = pdk_input_ops_of(p->in.kind);
    PDK_ASSERT(ops); /* only known kinds are queued */
    char msg[256] = "";
    pdk_input_ctx ctx = input_ctx(s);
    pdk_error err = ops->apply(&ctx, p, msg, sizeof(msg));
    if (err == PDK_OK && s->store)
        pdk_session_record_input_(s, &ctx, ops, p, tick);
    if (err == PDK_OK) {
        s->seq++;
        pdk_session_proxy_applied_(s, p);
    }
    if (err == PDK_OK && p->in.kind == PDK_INPUT_VEHICLE_RESET)
        count_teleport(s, p->in.vehicle);
    tell(s, p, err, err == PDK_OK ? "" : msg);
}

static bool sub_due(const subscription *sub, uint64_t tick)
{
    return tick % sub->divisor == 0;
}

/* Whether state subscriptions a and b get the same batch: the same fields
 * and the same vehicle list (sorted and without duplicates, so equal lists
 * are equal arrays). */
static bool same_batch(const subscription *a, const subscription *b)
{
    if (a->fields != b->fields || a->max_batch != b->max_batch || a->n_ids != b->n_ids ||
        (a->ids == NULL) != (b->ids == NULL) || a->aoi.radius_m != b->aoi.radius_m ||
        a->aoi.x_m != b->aoi.x_m || a->aoi.y_m != b->aoi.y_m || a->aoi.vehicle != b->aoi.vehicle)
        return false;
    return a->ids == NULL || memcmp(a->ids, b->ids, a->n_ids * sizeof(*a->ids)) == 0;
}

/* The vehicles of sub's list (or the world's) inside its area of interest
 * this tick, into s->aoi_ids, in the list's order; false when the area's
 * centre vehicle is gone. */
static bool aoi_filter(pdk_session *s, const subscription *sub, size_t *n)
{
    double cx = sub->aoi.x_m, cy = sub->aoi.y_m;
    pdk_vehicle_pose pose;
    if (sub->aoi.vehicle != 0) {
        if (pdk_world_vehicle_pose(s->world, sub->aoi.vehicle, &pose) != PDK_OK)
            return false;
        cx = pose.x_m;
        cy = pose.y_m;
    }
    double r2 = sub->aoi.radius_m * sub->aoi.radius_m;
    size_t count = sub->ids != NULL ? sub->n_ids : (size_t)pdk_world_vehicle_count(s->world);
    *n = 0;
    for (size_t i = 0; i < count; i++) {
        pdk_vehicle_id id = sub->ids != NULL ? sub->ids[i] : pdk_world_vehicle_at(s->world, (int)i);
        if (pdk_world_vehicle_pose(s->world, id, &pose) != PDK_OK)
            continue;
        double dx = pose.x_m - cx, dy = pose.y_m - cy;
        if (dx * dx + dy * dy <= r2)
            s->aoi_ids[(*n)++] = id;
    }
    return true;
}

/* Encodes sub's telemetry batch for this tick into s->payload. */
static pdk_error telemetry_body(pdk_session *s, const subscription *sub)
{
    pdk_buf_reset(&s->payload);
    return pdk_wire_telemetry_common(s->world, s->id, s->tick_wall_ns, sub->ids, sub->n_ids,
                                     sub->chans, sub->n_chans, &s->payload);
}

/* Sends the last tick's contact events to one contact subscription, in
 * frames of at most PDK_WIRE_CONTACT_EVENTS_PER_FRAME events; nothing on a
 * tick without contacts. */
static void publish_contacts(pdk_session *s, const subscription *sub)
{
    int count = 0, dropped = 0;
    pdk_world_contact_events(s->world, &count, &dropped);
    if (!s->hooks.on_contacts ||
        (count == 0 && dropped == 0 && pdk_world_contact_missed(s->world) == 0))
        return;
    size_t total = (size_t)count, first = 0;
    do {
        size_t n = total - first;
        if (n > PDK_WIRE_CONTACT_EVENTS_PER_FRAME)
            n = PDK_WIRE_CONTACT_EVENTS_PER_FRAME;
        pdk_buf_reset(&s->frame);
        if (pdk_wire_contact_frame_append(&s->frame, sub->id, s->id, s->world, first, n) != PDK_OK)
            return;
        s->hooks.on_contacts(s->hooks.ud, sub->conn_id, sub->id, s->frame.data, s->frame.len);
        first += n;
    } while (first < total);
}

/* Sends one frame of sub's (its body of body_len bytes, part part of the
 * tick's); false when it was too large for the connection, which ends sub
 * after this tick. */
static bool send_body(pdk_session *s, subscription *sub, uint32_t part, const uint8_t *body,
                      size_t body_len)
{
    uint8_t head[PDK_WIRE_FRAME_HEAD_MAX];
    pdk_session_frame frame = {
        .head = head,
        .head_len = sub->chans != NULL ? pdk_wire_telemetry_frame_head(sub->id, body_len, head)
                                       : pdk_wire_state_frame_head(sub->id, body_len, head),
        .body = body,
        .body_len = body_len,
    };
    if (frame.head_len == 0)
        return true;
    if (s->hooks.on_state(s->hooks.ud, sub->conn_id, sub->id, part, &frame) ==
        PDK_ERR_FRAME_TOO_LARGE) {
        sub->too_large = frame.head_len + body_len;
        return false;
    }
    return true;
}

static void publish(pdk_session *s)
{
    if (s->n_subs == 0 || !s->hooks.on_state)
        return;
    uint64_t tick = pdk_world_tick(s->world);
    uint64_t wall_ns = pdk_session_tick_wall_ns(s);
    /* Each distinct (fields, vehicle list, parts) is encoded once this
     * tick into s->common, its parts one after another
     * (pdk_wire_state_split), and shared by every subscription that wants
     * it. */
    pdk_buf_reset(&s->common);
    for (size_t i = 0; i < s->n_subs; i++)
        s->subs[i].batch_ready = false;
    for (size_t i = 0; i < s->n_subs; i++) {
        subscription *sub = &s->subs[i];
        if (sub->contacts) {
            publish_contacts(s, sub);
            continue;
        }
        if (!sub_due(sub, tick))
            continue;
        if (sub->chans != NULL) {
            /* Each telemetry subscription has its own channels: its own body. */
            if (telemetry_body(s, sub) == PDK_OK)
                send_body(s, sub, 0, s->payload.data, s->payload.len);
            continue;
        }
        for (size_t j = 0; j < i && !sub->batch_ready; j++) {
            const subscription *other = &s->subs[j];
            if (other->batch_ready && same_batch(other, sub)) {
                sub->batch_off = other->batch_off;
                sub->batch_len = other->batch_len;
                sub->batch_ready = true;
            }
        }
        if (!sub->batch_ready) {
            const pdk_vehicle_id *ids = sub->ids;
            size_t n_ids = sub->n_ids;
            if (sub->aoi.radius_m > 0.0) {
                if (!aoi_filter(s, sub, &n_ids)) {
                    sub->centre_gone = true;
                    continue;
                }
                ids = s->aoi_ids;
            }
            size_t off = s->common.len;
            if (pdk_wire_state_split(s->world, s->id, wall_ns, sub->fields, ids, n_ids,
                                     &s->teleports, sub->max_batch, &s->common) != PDK_OK)
                continue;
            sub->batch_off = off;
            sub->batch_len = s->common.len - off;
            sub->batch_ready = true;
        }
        const uint8_t *body;
        size_t body_len, at = 0;
        for (uint32_t part = 0;
             pdk_wire_state_part_next(s->common.data + sub->batch_off, sub->batch_len, &at, &body,
                                      &body_len) == PDK_OK &&
             send_body(s, sub, part, body, body_len);
             part++) {
        }
    }
    /* Subscriptions whose batch no longer fits a frame, or whose area's
     * centre vehicle is gone, end, and say so, rather than go silent. */
    for (size_t i = 0; i < s->n_subs;) {
        subscription *sub = &s->subs[i];
        if (sub->too_large == 0 && !sub->centre_gone) {
            i++;
            continue;
        }
        if (s->hooks.on_sub_end && sub->centre_gone) {
            char why[192];
            snprintf(why, sizeof(why),
                     "subscription %u ended: vehicle %u, the centre of its area of interest, is "
                     "no longer in session %llu",
                     sub->id, sub->aoi.vehicle, (unsigned long long)s->id);
            s->hooks.on_sub_end(s->hooks.ud, sub->conn_id, sub->id, PDK_ERR_STALE_ID, why);
        } else if (s->hooks.on_sub_end) {
            char why[256];
            if (sub->chans != NULL)
                snprintf(why, sizeof(why),
                         "subscription %u ended: a telemetry batch of %zu bytes is larger than "
                         "the frame limit; subscribe to fewer vehicles (vehicle_ids) or channels",
                         sub->id, sub->too_large);
            else
                snprintf(why, sizeof(why),
                         "subscription %u ended: a state batch of %zu bytes is larger than the "
                         "frame limit; subscribe to fewer vehicles (vehicle_ids) or split "
                         "batches (max_batch_vehicles)",
                         sub->id, sub->too_large);
            s->hooks.on_sub_end(s->hooks.ud, sub->conn_id, sub->id, PDK_ERR_FRAME_TOO_LARGE, why);
        }
        sub_free(sub);
        s->subs[i] = s->subs[--s->n_subs];
    }
}

/* Queues each hosted proxy's pose for this tick (and the removal of one
 * whose owner is silent past the timeout) ahead of the inputs that apply
 * now, before any that arrive later. */
static void host_proxies(pdk_session *s)
{
    if (s->n_hosted == 0)
        return;
    pdk_input due[PDK_SESSION_MAX_PROXIES];
    size_t n = pdk_session_proxies_due_(s, due);
    for (size_t i = 0; i < n; i++)
        if (queue_input(s, &due[i], (pdk_reply_to){0}, false) != PDK_OK &&
            due[i].kind == PDK_INPUT_PROXY_REMOVE) {
            hosted_proxy *h = pdk_session_hosted_(s, due[i].proxy);
            if (h)
                h->leaving = false; /* the queue is full: tried again next tick */
        }
}

void pdk_session_apply_inputs(pdk_session *s)
{
    run_scripts(s);
    host_proxies(s);
    /* Inputs queued while an input is being told (a hook that queues more)
     * wait for the next tick: only those present now belong to this one. */
    size_t n = s->n_pending;
    for (size_t i = 0; i < n; i++) {
        apply_input(s, &s->pending[i]);
        pending_free(&s->pending[i]);
    }
    if (n > 0) {
        memmove(s->pending, s->pending + n, (s->n_pending - n) * sizeof(*s->pending));
        s->n_pending -= n;
    }
    if (s->store)
        pdk_session_flush_inputs_(s);
}

static void publish_dbw(pdk_session *s);

static uint64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether anything the session serves reads the channels of the step to
 * tick (pdk_session_set_channels): a due state batch with fields or
 * telemetry batch, a DBW report ring (filled every tick, as a delayed
 * report kind may send any of the last ones). A keyframe does not: it
 * holds no channels (ADR 0040). Subscriptions added
 * between ticks are in s->subs before the step that publishes to them. */
static bool channels_read(const pdk_session *s, uint64_t tick)
{
    if (s->channels == PDK_CHANNELS_EVERY_TICK || s->n_rings > 0)
        return true;
    if (!s->publishing || !s->hooks.on_state)
        return false;
    for (size_t i = 0; i < s->n_subs; i++) {
        const subscription *sub = &s->subs[i];
        if (!sub->contacts && (sub->chans != NULL || sub->fields != 0u) && sub_due(sub, tick))
            return true;
    }
    return false;
}

void pdk_session_tick(pdk_session *s)
{
    pdk_tick_parts *parts = &s->parts;
    uint64_t t0 = pdk_tick_clock_ns();
    s->tick_hashed = false;
    pdk_session_apply_inputs(s);
    pdk_world_set_telemetry(s->world, channels_read(s, pdk_world_tick(s->world) + 1));
    uint64_t t1 = pdk_tick_clock_ns();
    if (s->hooks.step_world)
        s->hooks.step_world(s->hooks.ud, s->world);
    else
        pdk_world_step(s->world);
    uint64_t t2 = pdk_tick_clock_ns();
    s->tick_wall_ns = wall_now_ns();
    pdk_session_proxy_stepped_(s);
    if (s->store)
        pdk_session_record_tick_(s); /* times its own parts */
    uint64_t t3 = pdk_tick_clock_ns();
    if (s->publishing)
        publish(s);
    publish_dbw(s);
    parts->ticks++;
    parts->inputs_ns += t1 - t0;
    parts->step_ns += t2 - t1;
    parts->publish_ns += pdk_tick_clock_ns() - t3;
}

const pdk_tick_parts *pdk_session_tick_parts(const pdk_session *s)
{
    return &s->parts;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The part of a state or telemetry subscription they share: checks the
 * rate and the ids, and fills the next slot (not yet counted in n_subs). */
static pdk_error sub_add(pdk_session *s, uint64_t conn_id, uint32_t sub_id, uint32_t rate_hz,
                         const uint32_t *ids, size_t n_ids, subscription **out)
{
    if (rate_hz == 0)
        rate_hz = PDK_TICK_HZ;
    if (rate_hz > PDK_TICK_HZ || PDK_TICK_HZ % rate_hz != 0)
        return PDK_ERR_INVALID_ARGUMENT;
    /* Every id costs a lookup each published tick; more than the world can
     * hold is a mistake or an attack. */
    if (n_ids > (size_t)pdk_world_def_get(s->world)->max_vehicles)
        return PDK_ERR_OUT_OF_RANGE;
    if (s->n_subs >= PDK_SESSION_MAX_SUBS)
        return PDK_ERR_CAPACITY;
    subscription *sub = &s->subs[s->n_subs];
    memset(sub, 0, sizeof(*sub));
    if (n_ids > 0) {
        sub->ids = malloc(n_ids * sizeof(*sub->ids));
        if (!sub->ids)
            return PDK_ERR_NO_MEMORY;
        memcpy(sub->ids, ids, n_ids * sizeof(*ids));
        /* Sorted and without duplicates: the batch lists vehicles in id
         * order, each once. */
        qsort(sub->ids, n_ids, sizeof(*sub->ids), cmp_u32);
        size_t w = 0;
        for (size_t i = 0; i < n_ids; i++)
            if (w == 0 || sub->ids[w - 1] != sub->ids[i])
                sub->ids[w++] = sub->ids[i];
        sub->n_ids = w;
    }
    sub->id = sub_id;
    sub->conn_id = conn_id;
    sub->divisor = PDK_TICK_HZ / rate_hz;
    *out = sub;
    return PDK_OK;
}

pdk_error pdk_session_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id, uint32_t rate_hz,
                                uint32_t fields, const uint32_t *ids, size_t n_ids,
                                uint32_t max_batch, const pdk_session_aoi *aoi)
{
    if ((fields & ~PDK_WIRE_STATE_FIELDS_KNOWN) != 0u)
        return PDK_ERR_INVALID_ARGUMENT;
    pdk_session_aoi area = {0};
    if (aoi != NULL && aoi->radius_m != 0.0) {
        if (!isfinite(aoi->radius_m) || aoi->radius_m < 0.0 || !isfinite(aoi->x_m) ||
            !isfinite(aoi->y_m))
            return PDK_ERR_INVALID_ARGUMENT;
        pdk_vehicle_pose pose;
        if (aoi->vehicle != 0 && pdk_world_vehicle_pose(s->world, aoi->vehicle, &pose) != PDK_OK)
            return PDK_ERR_STALE_ID;
        if (!s->aoi_ids) {
            s->aoi_ids = malloc((size_t)pdk_world_def_get(s->world)->max_vehicles *
                                sizeof(*s->aoi_ids));
            if (!s->aoi_ids)
                return PDK_ERR_NO_MEMORY;
        }
        area = *aoi;
    }
    subscription *sub;
    pdk_error err = sub_add(s, conn_id, sub_id, rate_hz, ids, n_ids, &sub);
    if (err != PDK_OK)
        return err;
    sub->fields = fields;
    sub->max_batch = max_batch;
    sub->aoi = area;
    s->n_subs++;
    return PDK_OK;
}

pdk_error pdk_session_contact_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id)
{
    subscription *sub;
    pdk_error err = sub_add(s, conn_id, sub_id, PDK_TICK_HZ, NULL, 0, &sub);
    if (err != PDK_OK)
        return err;
    sub->contacts = true;
    s->n_subs++;
    return PDK_OK;
}

pdk_error pdk_session_telemetry_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id,
                                          uint32_t rate_hz, const uint32_t *ids, size_t n_ids,
                                          const int *chans, size_t n_chans)
{
    if (n_chans == 0 || chans == NULL)
        return PDK_ERR_UNKNOWN_KEY;
    for (size_t c = 0; c < n_chans; c++)
        if (chans[c] < 0 || chans[c] >= PDK_CH_COUNT)
            return PDK_ERR_UNKNOWN_KEY;
    subscription *sub;
    pdk_error err = sub_add(s, conn_id, sub_id, rate_hz, ids, n_ids, &sub);
    if (err != PDK_OK)
        return err;
    sub->chans = malloc(n_chans * sizeof(*sub->chans));
    if (!sub->chans) {
        sub_free(sub);
        return PDK_ERR_NO_MEMORY;
    }
    memcpy(sub->chans, chans, n_chans * sizeof(*chans));
    sub->n_chans = n_chans;
    s->n_subs++;
    return PDK_OK;
}

static void dbw_sub_remove(pdk_session *s, size_t i);

pdk_error pdk_session_unsubscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id)
{
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->subs[i].id == sub_id && s->subs[i].conn_id == conn_id) {
            sub_free(&s->subs[i]);
            memmove(&s->subs[i], &s->subs[i + 1], (s->n_subs - i - 1) * sizeof(s->subs[0]));
            s->n_subs--;
            return PDK_OK;
        }
    }
    for (size_t i = 0; i < s->n_dbw_subs; i++) {
        if (s->dbw_subs[i].id == sub_id && s->dbw_subs[i].conn_id == conn_id) {
            dbw_sub_remove(s, i);
            return PDK_OK;
        }
    }
    return PDK_ERR_NOT_FOUND;
}

void pdk_session_forget_conn(pdk_session *s, uint64_t conn_id)
{
    size_t w = 0;
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->subs[i].conn_id == conn_id)
            sub_free(&s->subs[i]);
        else
            s->subs[w++] = s->subs[i];
    }
    s->n_subs = w;
    for (size_t i = 0; i < s->n_dbw_subs;) {
        if (s->dbw_subs[i].conn_id == conn_id)
            dbw_sub_remove(s, i);
        else
            i++;
    }
    size_t kept = 0;
    for (size_t i = 0; i < s->n_pending; i++) {
        pdk_pending_input *p = &s->pending[i];
        if (p->to.conn_id == conn_id && p->in.kind == PDK_INPUT_PROXY_ADD) {
            pending_free(p); /* a proxy nobody would move: never enters */
            continue;
        }
        if (p->to.conn_id == conn_id)
            p->to.conn_id = 0; /* still applied; nobody to tell */
        s->pending[kept++] = *p;
    }
    s->n_pending = kept;
    for (size_t i = 0; i < s->n_hosted; i++) {
        hosted_proxy *h = &s->hosted[i];
        if (h->conn_id != conn_id || h->leaving)
            continue;
        pdk_input in = {.kind = PDK_INPUT_PROXY_REMOVE,
                        .proxy = h->id,
                        .u.proxy_gone = PDK_PROXY_GONE_CLOSED};
        /* A full queue leaves it to the silence's removal. */
        h->leaving = queue_input(s, &in, (pdk_reply_to){0}, false) == PDK_OK;
    }
    pdk_session_release_conn_leases_(s, conn_id);
}

pdk_error pdk_session_proxy_register(pdk_session *s, const pdk_proxy_entry *entry,
                                     pdk_reply_to to, char *why, size_t why_len)
{
    if (s->n_hosted + pdk_session_conn_proxies_(s, 0) >= PDK_SESSION_MAX_PROXIES) {
        snprintf(why, why_len, "session %llu hosts its limit of %d proxies",
                 (unsigned long long)s->id, PDK_SESSION_MAX_PROXIES);
        return PDK_ERR_CAPACITY;
    }
    if (pdk_session_conn_proxies_(s, to.conn_id) >= PDK_SESSION_MAX_CONN_PROXIES) {
        snprintf(why, why_len, "this connection has its limit of %d proxies in session %llu",
                 PDK_SESSION_MAX_CONN_PROXIES, (unsigned long long)s->id);
        return PDK_ERR_CAPACITY;
    }
    pdk_input in = {.kind = PDK_INPUT_PROXY_ADD, .u.proxy_add = *entry};
    pdk_error err = queue_input(s, &in, to, false);
    if (err != PDK_OK)
        snprintf(why, why_len, "the proxy could not be queued: %s", pdk_error_message(err));
    return err;
}

/* The hosted proxy id if conn_id owns it; NULL with the error in *err and
 * why otherwise. */
static hosted_proxy *owned(pdk_session *s, uint64_t conn_id, pdk_proxy_id id, pdk_error *err,
                           char *why, size_t why_len)
{
    hosted_proxy *h = pdk_session_hosted_(s, id);
    if (!h || h->leaving) {
        snprintf(why, why_len, "proxy %u is not in session %llu", id, (unsigned long long)s->id);
        *err = PDK_ERR_STALE_ID;
        return NULL;
    }
    if (h->conn_id != conn_id) {
        snprintf(why, why_len, "proxy %u of session %llu belongs to another connection", id,
                 (unsigned long long)s->id);
        *err = PDK_ERR_BUSY;
        return NULL;
    }
    return h;
}

pdk_error pdk_session_proxy_pose(pdk_session *s, uint64_t conn_id, pdk_proxy_id id,
                                 uint64_t owner_ns, const pdk_proxy_pose *pose, char *why,
                                 size_t why_len)
{
    pdk_error err = PDK_OK;
    hosted_proxy *h = owned(s, conn_id, id, &err, why, why_len);
    if (!h)
        return err;
    const char *problem = pdk_proxy_pose_problem(pose);
    if (problem) {
        snprintf(why, why_len, "pose of proxy %u refused: %s", id, problem);
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (h->poses_this_tick >= PDK_SESSION_MAX_PROXY_POSES_PER_TICK) {
        snprintf(why, why_len,
                 "pose of proxy %u refused: more than %d poses between two ticks (at most %d Hz)",
                 id, PDK_SESSION_MAX_PROXY_POSES_PER_TICK,
                 PDK_SESSION_MAX_PROXY_POSES_PER_TICK * (int)PDK_TICK_HZ);
        return PDK_ERR_BUSY;
    }
    h->poses_this_tick++;
    bool resumed = false;
    pdk_proxy_track_push(&h->track, owner_ns, pose, pdk_session_sim_time_s_(s), &resumed);
    if (resumed)
        pdk_session_proxy_event_(s, h, PDK_PROXY_EVENT_RESUMED, "its owner sends poses again");
    return PDK_OK;
}

pdk_error pdk_session_proxy_remove(pdk_session *s, pdk_proxy_id id, pdk_reply_to to, char *why,
                                   size_t why_len)
{
    pdk_error err = PDK_OK;
    hosted_proxy *h = owned(s, to.conn_id, id, &err, why, why_len);
    if (!h)
        return err;
    pdk_input in = {
        .kind = PDK_INPUT_PROXY_REMOVE, .proxy = id, .u.proxy_gone = PDK_PROXY_GONE_OWNER};
    err = queue_input(s, &in, to, false);
    if (err != PDK_OK) {
        snprintf(why, why_len, "the removal could not be queued: %s", pdk_error_message(err));
        return err;
    }
    h->leaving = true;
    return PDK_OK;
}


int pdk_session_subscriber_count(const pdk_session *s)
{
    return (int)(s->n_subs + s->n_dbw_subs);
}

/* ---- DBW report subscriptions -------------------------------------------- */

static report_ring *ring_find(const pdk_session *s, pdk_vehicle_id id, size_t *at)
{
    for (size_t i = 0; i < s->n_rings; i++) {
        if (s->rings[i]->vehicle == id) {
            if (at)
                *at = i;
            return s->rings[i];
        }
    }
    return NULL;
}

/* Removes subscription i (order kept: subscribers of a kind are served in
 * subscription order) and the vehicle's ring when no other wants it. */
static void dbw_sub_remove(pdk_session *s, size_t i)
{
    pdk_vehicle_id v = s->dbw_subs[i].vehicle;
    memmove(&s->dbw_subs[i], &s->dbw_subs[i + 1], (s->n_dbw_subs - i - 1) * sizeof(s->dbw_subs[0]));
    s->n_dbw_subs--;
    for (size_t k = 0; k < s->n_dbw_subs; k++)
        if (s->dbw_subs[k].vehicle == v)
            return;
    size_t at;
    if (ring_find(s, v, &at)) {
        free(s->rings[at]);
        s->rings[at] = s->rings[--s->n_rings];
    }
}

pdk_error pdk_session_dbw_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id,
                                    pdk_vehicle_id vehicle, uint32_t kinds)
{
    if (kinds == 0 || (kinds >> PDK_RPT_COUNT) != 0)
        return PDK_ERR_INVALID_ARGUMENT;
    if (pdk_world_dbw_state(s->world, vehicle) == NULL)
        return PDK_ERR_STALE_ID;
    if (s->n_dbw_subs >= PDK_SESSION_MAX_DBW_SUBS)
        return PDK_ERR_CAPACITY;
    if (!ring_find(s, vehicle, NULL)) {
        /* At most one ring per subscription, so the array cannot overflow. */
        report_ring *ring = calloc(1, sizeof(*ring));
        if (!ring)
            return PDK_ERR_NO_MEMORY;
        ring->vehicle = vehicle;
        s->rings[s->n_rings++] = ring;
    }
    s->dbw_subs[s->n_dbw_subs++] =
        (dbw_sub){.id = sub_id, .conn_id = conn_id, .vehicle = vehicle, .kinds = kinds};
    return PDK_OK;
}

/* Ends every subscription on vehicle v, telling each subscriber why. */
void pdk_session_end_vehicle_subs_(pdk_session *s, pdk_vehicle_id v, pdk_error code,
                                   const char *what)
{
    for (size_t i = 0; i < s->n_dbw_subs;) {
        dbw_sub *sub = &s->dbw_subs[i];
        if (sub->vehicle != v) {
            i++;
            continue;
        }
        if (s->hooks.on_sub_end) {
            char why[192];
            snprintf(why, sizeof(why), "subscription %u ended: %s", sub->id, what);
            s->hooks.on_sub_end(s->hooks.ud, sub->conn_id, sub->id, code, why);
        }
        dbw_sub_remove(s, i);
    }
}

/* Sends one kind's report of one vehicle to its subscribers: encoded once,
 * each subscriber's id prepended. */
static void send_dbw_kind(pdk_session *s, const report_ring *ring, int kind,
                          const pdk_dbw_report *r)
{
    bool encoded = false;
    for (size_t i = 0; i < s->n_dbw_subs; i++) {
        dbw_sub *sub = &s->dbw_subs[i];
        if (sub->vehicle != ring->vehicle || !(sub->kinds & (1u << kind)))
            continue;
        if (!encoded) {
            pdk_buf_reset(&s->common);
            if (pdk_wire_dbw_report_common(
                    s->id, ring->vehicle, pdk_world_def_get(s->world)->dt_s, kind, r,
                    (int)pdk_session_active_source(s, ring->vehicle), &s->common) != PDK_OK)
                return;
            encoded = true;
        }
        pdk_buf_reset(&s->frame);
        if (pdk_wire_dbw_report_frame_append(&s->frame, sub->id, s->common.data, s->common.len) !=
            PDK_OK)
            continue;
        if (s->hooks.on_dbw_report(s->hooks.ud, sub->conn_id, sub->id, kind, s->frame.data,
                                   s->frame.len) == PDK_ERR_FRAME_TOO_LARGE)
            sub->too_large = true;
    }
}

/* After the step: each subscribed vehicle's report for this tick goes into
 * its ring; each due kind is sent unless the kit's injected faults drop it
 * (deterministically, from the world's seed) or delay it (an older report
 * from the ring). With publishing off the rings fill and nothing is sent. */
static void publish_dbw(pdk_session *s)
{
    if (s->n_dbw_subs == 0 || !s->hooks.on_dbw_report)
        return;
    uint64_t tick = pdk_world_tick(s->world);
    uint64_t seed = pdk_world_def_get(s->world)->seed;
    for (size_t i = 0; i < s->n_rings;) {
        report_ring *ring = s->rings[i];
        size_t slot = (size_t)(tick % REPORT_RING);
        const pdk_dbw_state *kit = pdk_world_dbw_state(s->world, ring->vehicle);
        if (!kit || pdk_world_dbw_report(s->world, ring->vehicle, &ring->r[slot]) != PDK_OK) {
            char what[96];
            snprintf(what, sizeof(what), "vehicle %u was removed from session %llu", ring->vehicle,
                     (unsigned long long)s->id);
            pdk_session_end_vehicle_subs_(s, ring->vehicle, PDK_ERR_STALE_ID, what);
            continue; /* its ring went with its last subscription */
        }
        ring->filled[slot] = tick + 1;
        if (!s->publishing) {
            i++;
            continue; /* the ring still fills, so delayed kinds are whole once it is on again */
        }
        uint32_t wanted = 0;
        for (size_t k = 0; k < s->n_dbw_subs; k++)
            if (s->dbw_subs[k].vehicle == ring->vehicle)
                wanted |= s->dbw_subs[k].kinds;
        for (int kind = 0; kind < PDK_RPT_COUNT; kind++) {
            if (!(wanted & (1u << kind)) || tick % pdk_dbw_report_period_ticks[kind] != 0)
                continue;
            if (pdk_dbw_noise_unit(seed, ring->vehicle, tick, 1000u + (uint32_t)kind) <
                kit->report_drop[kind])
                continue;
            uint64_t delay = kit->report_delay_ticks[kind];
            if (delay > PDK_SESSION_REPORT_DELAY_MAX_TICKS)
                delay = PDK_SESSION_REPORT_DELAY_MAX_TICKS;
            if (delay > tick)
                continue;
            size_t from = (size_t)((tick - delay) % REPORT_RING);
            if (ring->filled[from] != tick - delay + 1)
                continue; /* nothing that old since the first subscription */
            send_dbw_kind(s, ring, kind, &ring->r[from]);
        }
        i++;
    }
    /* Subscriptions whose frames do not fit end and say so. */
    for (size_t i = 0; i < s->n_dbw_subs;) {
        dbw_sub *sub = &s->dbw_subs[i];
        if (!sub->too_large) {
            i++;
            continue;
        }
        if (s->hooks.on_sub_end) {
            char why[128];
            snprintf(why, sizeof(why),
                     "subscription %u ended: a DBW report is larger than the frame limit", sub->id);
            s->hooks.on_sub_end(s->hooks.ud, sub->conn_id, sub->id, PDK_ERR_FRAME_TOO_LARGE, why);
        }
        dbw_sub_remove(s, i);
    }
}

void pdk_session_rings_restart_(pdk_session *s)
{
    for (size_t i = 0; i < s->n_rings;) {
        report_ring *ring = s->rings[i];
        if (pdk_world_dbw_state(s->world, ring->vehicle) == NULL) {
            char what[128];
            snprintf(what, sizeof(what), "vehicle %u is not in session %llu's restored world",
                     ring->vehicle, (unsigned long long)s->id);
            pdk_session_end_vehicle_subs_(s, ring->vehicle, PDK_ERR_STALE_ID, what);
            continue; /* its ring went with its last subscription */
        }
        memset(ring->filled, 0, sizeof(ring->filled));
        uint64_t tick = pdk_world_tick(s->world);
        size_t slot = (size_t)(tick % REPORT_RING);
        if (pdk_world_dbw_report(s->world, ring->vehicle, &ring->r[slot]) == PDK_OK)
            ring->filled[slot] = tick + 1;
        i++;
    }
}

void pdk_session_set_publishing(pdk_session *s, bool on)
{
    s->publishing = on;
}

bool pdk_session_publishing(const pdk_session *s)
{
    return s->publishing;
}

uint64_t pdk_session_tick_wall_ns(const pdk_session *s)
{
    return s->tick_wall_ns;
}

void pdk_session_set_channels(pdk_session *s, pdk_session_channels when)
{
    s->channels = when;
}
