/* A session: its world, the queue of inputs waiting for the next tick
 * boundary, scripted drivers, state and DBW report subscriptions, the
 * vehicles' control leases and the recording of all of it. */
#include "session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paddock/v1/paddock.pb-c.h"
#include "wire.h"
#include "world_mem.h"

typedef struct pending_input {
    pdk_input_kind kind;
    pdk_reply_to to;
    pdk_vehicle_id vehicle;
    pdk_dbw_cmd cmd;
    pdk_tyre_input tyre;
    pdk_dbw_msg kit;
    /* spawn only */
    pdk_vehicle_def def;
    pdk_spawn_place place;
    char *preset;
    char *overrides;
    char *params_json;
} pending_input;

typedef struct subscription {
    uint32_t id;
    uint64_t conn_id;
    uint32_t divisor; /* publish when tick % divisor == 0 */
    uint32_t *ids;    /* NULL: every vehicle */
    size_t n_ids;
    size_t too_large; /* set by publish: the batch that did not fit */
} subscription;

/* A DBW report subscription: one vehicle, a set of report kinds. */
typedef struct dbw_sub {
    uint32_t id;
    uint64_t conn_id;
    pdk_vehicle_id vehicle;
    uint32_t kinds; /* bit k: pdk_dbw_report_kind k */
    bool too_large; /* set by publish: a frame did not fit */
} dbw_sub;

/* The last REPORT_RING reports of a vehicle with DBW subscriptions, by tick
 * (slot tick % REPORT_RING), so a delayed kind can send an older one. Not
 * sim state: it only holds what the world reported. */
#define REPORT_RING (PDK_SESSION_REPORT_DELAY_MAX_TICKS + 1u)
typedef struct report_ring {
    pdk_vehicle_id vehicle;
    uint64_t filled[REPORT_RING]; /* the slot's tick + 1; 0: empty */
    pdk_dbw_report r[REPORT_RING];
} report_ring;

/* One source's lease on one vehicle. */
typedef struct lease {
    pdk_vehicle_id vehicle;
    pdk_control_source source;
    uint64_t conn_id;
    char holder[96];
} lease;

typedef struct script_driver {
    pdk_vehicle_id vehicle;
    pdk_script_step *steps;
    size_t n_steps;
    size_t next;
    uint64_t start_tick;
    bool loop;
    uint64_t gap_ticks;
} script_driver;

struct pdk_session {
    uint64_t id;
    char *name;
    char *world_preset;
    pdk_timing timing;
    pdk_store *store;
    pdk_session_hooks hooks;

    void *world_mem;
    pdk_world *world;
    uint64_t seq;

    pending_input *pending;
    size_t n_pending;
    size_t cap_pending;

    subscription subs[PDK_SESSION_MAX_SUBS];
    size_t n_subs;

    script_driver scripts[PDK_SESSION_MAX_SCRIPTS];
    size_t n_scripts;

    dbw_sub dbw_subs[PDK_SESSION_MAX_DBW_SUBS];
    size_t n_dbw_subs;
    report_ring *rings[PDK_SESSION_MAX_DBW_SUBS]; /* one per subscribed vehicle */
    size_t n_rings;

    lease *leases; /* at most one per (vehicle, source) of a live vehicle */
    size_t n_leases;
    size_t cap_leases;

    pdk_buf common;  /* the tick's shared state batch body */
    pdk_buf frame;   /* one subscriber's frame */
    pdk_buf payload; /* an input's recorded form */
    pdk_lateness lateness;
    uint64_t record_failures; /* record_* calls the store refused */
};

static int64_t unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

/* The store refuses a record only when it is closing or out of memory; the
 * session goes on, and the first refusal is logged so the gap in the
 * recording is known. */
static void recorded(pdk_session *s, pdk_error err, const char *what)
{
    if (err == PDK_OK)
        return;
    if (s->record_failures++ == 0)
        fprintf(stderr, "paddockd: session %llu: the recording lost %s: %s\n",
                (unsigned long long)s->id, what, pdk_error_message(err));
}

pdk_error pdk_session_create(uint64_t id, const pdk_session_def *def,
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
    s->name = dup_or_empty(def->name);
    s->world_preset = dup_or_empty(def->world_preset);
    if (!s->world_mem || !s->name || !s->world_preset) {
        pdk_session_destroy(s);
        return PDK_ERR_NO_MEMORY;
    }
    err = pdk_world_init(s->world_mem, bytes, &def->world, &s->world);
    if (err != PDK_OK) {
        pdk_session_destroy(s);
        return err;
    }
    s->id = id;
    s->timing = def->timing;
    s->store = def->store;
    if (hooks)
        s->hooks = *hooks;
    pdk_lateness_reset(&s->lateness);

    if (s->store) {
        pdk_store_session rec = {
            .session_id = id,
            .name = s->name,
            .timing = def->timing == PDK_TIMING_FAST ? "fast" : "realtime",
            .world_preset = s->world_preset,
            .world_json = def->world_json ? def->world_json : "{}",
            .build_id = def->build_id ? def->build_id : "unknown",
            .dt_s = def->world.dt_s,
            .substeps = def->world.substeps,
            .created_unix_ms = unix_ms(),
        };
        err = pdk_store_record_session(s->store, &rec);
        if (err != PDK_OK) {
            pdk_session_destroy(s);
            return err;
        }
        recorded(s, pdk_store_record_hash(s->store, id, 0, pdk_world_hash(s->world)),
                 "a state hash");
    }
    *out = s;
    return PDK_OK;
}

static void pending_free(pending_input *p)
{
    free(p->preset);
    free(p->overrides);
    free(p->params_json);
    p->preset = p->overrides = p->params_json = NULL;
}

static void tell(pdk_session *s, const pending_input *p, pdk_error err, const char *message)
{
    if (p->to.conn_id == 0 || !s->hooks.on_result)
        return;
    pdk_input_result res = {
        .kind = p->kind,
        .err = err,
        .message = message,
        .tick = pdk_world_tick(s->world),
        .vehicle = p->vehicle,
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
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->hooks.on_sub_end) {
            char why[96];
            snprintf(why, sizeof(why), "subscription %u ended: session %llu was closed",
                     s->subs[i].id, (unsigned long long)s->id);
            s->hooks.on_sub_end(s->hooks.ud, s->subs[i].conn_id, s->subs[i].id, PDK_ERR_CLOSED,
                                why);
        }
        free(s->subs[i].ids);
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
    for (size_t i = 0; i < s->n_scripts; i++)
        free(s->scripts[i].steps);
    if (s->store && s->world)
        recorded(s,
                 pdk_store_record_session_end(s->store, s->id, pdk_world_tick(s->world),
                                              pdk_world_hash(s->world), unix_ms()),
                 "the session's end");
    pdk_buf_free(&s->common);
    pdk_buf_free(&s->frame);
    pdk_buf_free(&s->payload);
    free(s->world_mem);
    free(s->name);
    free(s->world_preset);
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

const char *pdk_session_world_preset(const pdk_session *s)
{
    return s->world_preset;
}

uint64_t pdk_session_hash(const pdk_session *s)
{
    return pdk_world_hash(s->world);
}

uint64_t pdk_session_inputs_applied(const pdk_session *s)
{
    return s->seq;
}

static pending_input *push_pending(pdk_session *s)
{
    if (s->n_pending >= PDK_SESSION_MAX_PENDING)
        return NULL;
    if (s->n_pending == s->cap_pending) {
        size_t cap = s->cap_pending ? s->cap_pending * 2 : 16;
        pending_input *p = realloc(s->pending, cap * sizeof(*p));
        if (!p)
            return NULL;
        s->pending = p;
        s->cap_pending = cap;
    }
    pending_input *p = &s->pending[s->n_pending++];
    memset(p, 0, sizeof(*p));
    return p;
}

pdk_error pdk_session_queue_spawn(pdk_session *s, const pdk_vehicle_def *def, const char *preset,
                                  const char *overrides, const char *params_json,
                                  const pdk_spawn_place *place, pdk_reply_to to)
{
    pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->kind = PDK_INPUT_SPAWN;
    p->to = to;
    p->def = *def;
    p->place = *place;
    p->preset = dup_or_empty(preset);
    p->overrides = dup_or_empty(overrides);
    p->params_json = dup_or_empty(params_json);
    if (!p->preset || !p->overrides || !p->params_json) {
        pending_free(p);
        s->n_pending--;
        return PDK_ERR_NO_MEMORY;
    }
    return PDK_OK;
}

pdk_error pdk_session_queue_remove(pdk_session *s, pdk_vehicle_id id, pdk_reply_to to)
{
    pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->kind = PDK_INPUT_REMOVE;
    p->to = to;
    p->vehicle = id;
    return PDK_OK;
}

pdk_error pdk_session_queue_dbw(pdk_session *s, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                                pdk_reply_to to)
{
    pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->kind = PDK_INPUT_DBW;
    p->to = to;
    p->vehicle = id;
    p->cmd = *cmd;
    return PDK_OK;
}

pdk_error pdk_session_queue_tyre(pdk_session *s, pdk_vehicle_id id, const pdk_tyre_input *in,
                                 pdk_reply_to to)
{
    pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->kind = PDK_INPUT_TYRE;
    p->to = to;
    p->vehicle = id;
    p->tyre = *in;
    return PDK_OK;
}

pdk_error pdk_session_queue_dbw_kit(pdk_session *s, pdk_vehicle_id id, const pdk_dbw_msg *msg,
                                    pdk_reply_to to)
{
    /* What applies is what the recording will give back, so the run and
     * its replay feed the kit the same bits. */
    pdk_buf_reset(&s->payload);
    pdk_error err = pdk_wire_dbw_msg_encode(s->id, id, msg, &s->payload);
    pdk_dbw_msg recorded_form;
    if (err == PDK_OK)
        err = pdk_wire_dbw_msg_decode(s->payload.data, s->payload.len, &recorded_form, NULL);
    if (err != PDK_OK)
        return err;
    pending_input *p = push_pending(s);
    if (!p)
        return PDK_ERR_BUSY;
    p->kind = PDK_INPUT_DBW_KIT;
    p->to = to;
    p->vehicle = id;
    p->kit = recorded_form;
    return PDK_OK;
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

static bool conn_lease_above(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                             uint64_t except_conn);

/* Turns every script step due at this tick into a queued input. A script
 * drives as source AI: while a connection holds its vehicle's DRIVER or
 * AUTONOMY lease its due steps pass unapplied. */
static void run_scripts(pdk_session *s)
{
    uint64_t tick = pdk_world_tick(s->world);
    for (size_t i = 0; i < s->n_scripts;) {
        script_driver *d = &s->scripts[i];
        bool gone = pdk_world_vehicle_pose(s->world, d->vehicle, &(pdk_vehicle_pose){0}) != PDK_OK;
        bool preempted = !gone && conn_lease_above(s, d->vehicle, PDK_SOURCE_AI, 0);
        while (!gone && d->next < d->n_steps && step_tick(d, d->next) <= tick) {
            pdk_reply_to none = {0, 0};
            if (!preempted &&
                pdk_session_queue_dbw(s, d->vehicle, &d->steps[d->next].cmd, none) != PDK_OK)
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

static void record_payload(pdk_session *s, uint64_t tick, pdk_input_kind kind)
{
    recorded(s,
             pdk_store_record_input(s->store, s->id, tick, (uint32_t)s->seq, (int)kind,
                                    s->payload.data, s->payload.len),
             "an input");
}

static void encode_spawn(pdk_session *s, const pending_input *p)
{
    Paddock__V1__VehicleSpawn msg = PADDOCK__V1__VEHICLE_SPAWN__INIT;
    msg.session_id = s->id;
    msg.preset = p->preset;
    msg.overrides = p->overrides;
    msg.x_m = p->place.x_m;
    msg.y_m = p->place.y_m;
    msg.yaw_deg = p->place.yaw_deg;
    msg.speed_mps = p->place.speed_mps;
    msg.gear = (Paddock__V1__Gear)p->place.gear;
    pdk_buf_reset(&s->payload);
    size_t n = paddock__v1__vehicle_spawn__get_packed_size(&msg);
    if (pdk_buf_reserve(&s->payload, n) == PDK_OK) {
        paddock__v1__vehicle_spawn__pack(&msg, s->payload.data);
        s->payload.len = n;
    }
}

static void encode_remove(pdk_session *s, pdk_vehicle_id id)
{
    Paddock__V1__VehicleRemove msg = PADDOCK__V1__VEHICLE_REMOVE__INIT;
    msg.session_id = s->id;
    msg.vehicle_id = id;
    pdk_buf_reset(&s->payload);
    size_t n = paddock__v1__vehicle_remove__get_packed_size(&msg);
    if (pdk_buf_reserve(&s->payload, n) == PDK_OK) {
        paddock__v1__vehicle_remove__pack(&msg, s->payload.data);
        s->payload.len = n;
    }
}

static void drop_vehicle_leases(pdk_session *s, pdk_vehicle_id id);

/* Applies one input at the current tick boundary; on success it is stamped
 * with the next seq and recorded. */
static void apply_input(pdk_session *s, pending_input *p)
{
    uint64_t tick = pdk_world_tick(s->world);
    pdk_error err = PDK_OK;
    char msg[256] = "";
    switch (p->kind) {
    case PDK_INPUT_SPAWN: {
        pdk_pose pose = {p->place.x_m, p->place.y_m, pdk_script_deg_to_rad(p->place.yaw_deg)};
        err = pdk_world_spawn(s->world, &p->def, &pose, p->place.speed_mps, p->place.gear,
                              &p->vehicle);
        if (err == PDK_ERR_CAPACITY) {
            snprintf(msg, sizeof(msg), "session %llu is full (%d vehicles)",
                     (unsigned long long)s->id, pdk_world_def_get(s->world)->max_vehicles);
        } else if (err != PDK_OK) {
            const char *why = pdk_world_spawn_problem(s->world, &p->def, &pose, p->place.speed_mps,
                                                      p->place.gear);
            snprintf(msg, sizeof(msg), "spawn refused: %s", why ? why : pdk_error_message(err));
        }
        if (err == PDK_OK && s->store) {
            encode_spawn(s, p);
            record_payload(s, tick, p->kind);
            recorded(s,
                     pdk_store_record_vehicle(s->store, s->id, p->vehicle, tick, p->preset,
                                              p->overrides, p->params_json),
                     "a vehicle");
        }
        break;
    }
    case PDK_INPUT_REMOVE:
        err = pdk_world_remove(s->world, p->vehicle);
        if (err != PDK_OK)
            snprintf(msg, sizeof(msg), "vehicle %u is not in session %llu", p->vehicle,
                     (unsigned long long)s->id);
        if (err == PDK_OK)
            drop_vehicle_leases(s, p->vehicle);
        if (err == PDK_OK && s->store) {
            encode_remove(s, p->vehicle);
            record_payload(s, tick, p->kind);
            recorded(s, pdk_store_record_vehicle_removed(s->store, s->id, p->vehicle, tick),
                     "a removal");
        }
        break;
    case PDK_INPUT_DBW:
        err = pdk_world_command(s->world, p->vehicle, &p->cmd);
        if (err == PDK_ERR_STALE_ID) {
            snprintf(msg, sizeof(msg), "vehicle %u is not in session %llu", p->vehicle,
                     (unsigned long long)s->id);
        } else if (err != PDK_OK) {
            /* sim names the field and its bound; the vehicle's own limits
             * are added so the client knows the numbers. */
            const pdk_vehicle_def *vd = pdk_world_vehicle_def(s->world, p->vehicle);
            const char *why = pdk_world_command_problem(s->world, p->vehicle, &p->cmd);
            snprintf(msg, sizeof(msg),
                     "command refused: %s (this vehicle: brake_bar 0..%g, steer_wheel_deg "
                     "within +-%g)",
                     why ? why : pdk_error_message(err), vd ? vd->brake.max_line_bar : 0.0,
                     vd ? vd->steering.lock_deg : 0.0);
        }
        if (err == PDK_OK && s->store) {
            pdk_buf_reset(&s->payload);
            if (pdk_wire_dbw_encode(s->id, p->vehicle, &p->cmd, &s->payload) == PDK_OK)
                record_payload(s, tick, p->kind);
        }
        break;
    case PDK_INPUT_TYRE:
        err = pdk_world_tyre_input(s->world, p->vehicle, &p->tyre);
        if (err == PDK_ERR_STALE_ID) {
            snprintf(msg, sizeof(msg), "vehicle %u is not in session %llu", p->vehicle,
                     (unsigned long long)s->id);
        } else if (err != PDK_OK) {
            /* sim names the field and its bound. */
            const char *why = pdk_world_tyre_input_problem(s->world, p->vehicle, &p->tyre);
            snprintf(msg, sizeof(msg), "tyre command refused: %s",
                     why ? why : pdk_error_message(err));
        }
        if (err == PDK_OK && s->store) {
            pdk_buf_reset(&s->payload);
            if (pdk_wire_tyre_encode(s->id, p->vehicle, &p->tyre, &s->payload) == PDK_OK)
                record_payload(s, tick, p->kind);
        }
        break;
    case PDK_INPUT_DBW_KIT:
        err = pdk_world_dbw(s->world, p->vehicle, &p->kit);
        if (err == PDK_ERR_STALE_ID) {
            snprintf(msg, sizeof(msg), "vehicle %u is not in session %llu", p->vehicle,
                     (unsigned long long)s->id);
        } else if (err != PDK_OK) {
            /* sim names the field and its bound. */
            const char *why = pdk_world_dbw_problem(s->world, p->vehicle, &p->kit);
            snprintf(msg, sizeof(msg), "DBW message refused: %s",
                     why ? why : pdk_error_message(err));
        }
        if (err == PDK_OK && s->store) {
            pdk_buf_reset(&s->payload);
            if (pdk_wire_dbw_msg_encode(s->id, p->vehicle, &p->kit, &s->payload) == PDK_OK)
                record_payload(s, tick, p->kind);
        }
        break;
    }
    if (err == PDK_OK)
        s->seq++;
    tell(s, p, err, err == PDK_OK ? "" : msg);
}

static bool sub_due(const subscription *sub, uint64_t tick)
{
    return tick % sub->divisor == 0;
}

static void publish(pdk_session *s)
{
    if (s->n_subs == 0 || !s->hooks.on_state)
        return;
    uint64_t tick = pdk_world_tick(s->world);
    bool common_ready = false;
    for (size_t i = 0; i < s->n_subs; i++) {
        subscription *sub = &s->subs[i];
        if (!sub_due(sub, tick))
            continue;
        const uint8_t *body;
        size_t body_len;
        if (sub->ids == NULL) {
            /* Encoded once per tick and shared by every unfiltered subscriber. */
            if (!common_ready) {
                pdk_buf_reset(&s->common);
                if (pdk_wire_state_common(s->world, s->id, NULL, 0, &s->common) != PDK_OK)
                    continue;
                common_ready = true;
            }
            body = s->common.data;
            body_len = s->common.len;
        } else {
            pdk_buf_reset(&s->payload);
            if (pdk_wire_state_common(s->world, s->id, sub->ids, sub->n_ids, &s->payload) != PDK_OK)
                continue;
            body = s->payload.data;
            body_len = s->payload.len;
        }
        pdk_buf_reset(&s->frame);
        if (pdk_wire_state_frame_append(&s->frame, sub->id, body, body_len) != PDK_OK)
            continue;
        if (s->hooks.on_state(s->hooks.ud, sub->conn_id, sub->id, s->frame.data, s->frame.len) ==
            PDK_ERR_FRAME_TOO_LARGE)
            sub->too_large = s->frame.len;
    }
    /* Subscriptions whose batch no longer fits a frame end, and say so,
     * rather than go silent. */
    for (size_t i = 0; i < s->n_subs;) {
        subscription *sub = &s->subs[i];
        if (sub->too_large == 0) {
            i++;
            continue;
        }
        if (s->hooks.on_sub_end) {
            char why[192];
            snprintf(why, sizeof(why),
                     "subscription %u ended: a state batch of %zu bytes is larger than the frame "
                     "limit; subscribe to fewer vehicles (vehicle_ids)",
                     sub->id, sub->too_large);
            s->hooks.on_sub_end(s->hooks.ud, sub->conn_id, sub->id, PDK_ERR_FRAME_TOO_LARGE, why);
        }
        free(sub->ids);
        s->subs[i] = s->subs[--s->n_subs];
    }
}

void pdk_session_apply_inputs(pdk_session *s)
{
    run_scripts(s);
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
}

static void publish_dbw(pdk_session *s);

void pdk_session_tick(pdk_session *s)
{
    pdk_session_apply_inputs(s);
    pdk_world_step(s->world);
    uint64_t tick = pdk_world_tick(s->world);
    if (s->store && tick % PDK_SESSION_HASH_EVERY == 0)
        recorded(s, pdk_store_record_hash(s->store, s->id, tick, pdk_world_hash(s->world)),
                 "a state hash");
    publish(s);
    publish_dbw(s);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

pdk_error pdk_session_subscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id, uint32_t rate_hz,
                                const uint32_t *ids, size_t n_ids)
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
    s->n_subs++;
    return PDK_OK;
}

static void dbw_sub_remove(pdk_session *s, size_t i);

pdk_error pdk_session_unsubscribe(pdk_session *s, uint64_t conn_id, uint32_t sub_id)
{
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->subs[i].id == sub_id && s->subs[i].conn_id == conn_id) {
            free(s->subs[i].ids);
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

static void release_conn_leases(pdk_session *s, uint64_t conn_id);

void pdk_session_forget_conn(pdk_session *s, uint64_t conn_id)
{
    size_t w = 0;
    for (size_t i = 0; i < s->n_subs; i++) {
        if (s->subs[i].conn_id == conn_id)
            free(s->subs[i].ids);
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
    for (size_t i = 0; i < s->n_pending; i++)
        if (s->pending[i].to.conn_id == conn_id)
            s->pending[i].to.conn_id = 0; /* still applied; nobody to tell */
    release_conn_leases(s, conn_id);
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
static void end_vehicle_subs(pdk_session *s, pdk_vehicle_id v, pdk_error code, const char *what)
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
 * from the ring). */
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
            end_vehicle_subs(s, ring->vehicle, PDK_ERR_STALE_ID, what);
            continue; /* its ring went with its last subscription */
        }
        ring->filled[slot] = tick + 1;
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

/* ---- control leases -------------------------------------------------------- */

const char *pdk_control_source_name(int source)
{
    switch (source) {
    case PDK_SOURCE_DRIVER:
        return "DRIVER";
    case PDK_SOURCE_AUTONOMY:
        return "AUTONOMY";
    case PDK_SOURCE_AI:
        return "AI";
    default:
        return "NONE";
    }
}

static bool source_ok(pdk_control_source src)
{
    return src == PDK_SOURCE_DRIVER || src == PDK_SOURCE_AUTONOMY || src == PDK_SOURCE_AI;
}

static lease *lease_find(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src)
{
    for (size_t i = 0; i < s->n_leases; i++)
        if (s->leases[i].vehicle == id && s->leases[i].source == src)
            return &s->leases[i];
    return NULL;
}

static bool script_drives(const pdk_session *s, pdk_vehicle_id id)
{
    for (size_t i = 0; i < s->n_scripts; i++)
        if (s->scripts[i].vehicle == id)
            return true;
    return false;
}

/* True when a connection other than except_conn holds a source above src
 * on id. */
static bool conn_lease_above(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                             uint64_t except_conn)
{
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && l->source < src && l->conn_id != except_conn)
            return true;
    }
    return false;
}

pdk_control_source pdk_session_active_source(const pdk_session *s, pdk_vehicle_id id)
{
    pdk_control_source best = script_drives(s, id) ? PDK_SOURCE_AI : PDK_SOURCE_NONE;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && (best == PDK_SOURCE_NONE || l->source < best))
            best = l->source;
    }
    return best;
}

uint64_t pdk_session_lease_holder(const pdk_session *s, pdk_vehicle_id id, pdk_control_source src)
{
    const lease *l = lease_find(s, id, src);
    return l ? l->conn_id : 0;
}

/* Tells every holder on id but except_conn (each connection once) that the
 * active source is now active; a holder below it hears which of its
 * sources was pre-empted when preempting. */
static void tell_holders(pdk_session *s, pdk_vehicle_id id, uint64_t except_conn,
                         pdk_control_source active, bool preempting, const char *reason)
{
    if (!s->hooks.on_control)
        return;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle != id || l->conn_id == except_conn)
            continue;
        bool seen = false;
        for (size_t k = 0; k < i; k++)
            if (s->leases[k].vehicle == id && s->leases[k].conn_id == l->conn_id)
                seen = true;
        if (seen)
            continue;
        /* The connection's highest source on the vehicle. */
        pdk_control_source mine = l->source;
        for (size_t k = i + 1; k < s->n_leases; k++)
            if (s->leases[k].vehicle == id && s->leases[k].conn_id == l->conn_id &&
                s->leases[k].source < mine)
                mine = s->leases[k].source;
        pdk_control_event ev = {
            .session_id = s->id,
            .vehicle = id,
            .active = active,
            .preempted = preempting && mine > active ? mine : PDK_SOURCE_NONE,
            .reason = reason,
            .tick = pdk_world_tick(s->world),
        };
        s->hooks.on_control(s->hooks.ud, l->conn_id, &ev);
    }
}

pdk_error pdk_session_lease_take(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                 uint64_t conn_id, const char *holder, char *why, size_t why_len)
{
    if (!source_ok(src)) {
        snprintf(why, why_len, "source %d is not a control source (1 DRIVER, 2 AUTONOMY, 3 AI)",
                 (int)src);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_world_dbw_state(s->world, id) == NULL) {
        snprintf(why, why_len, "vehicle %u is not in session %llu", id, (unsigned long long)s->id);
        return PDK_ERR_STALE_ID;
    }
    lease *l = lease_find(s, id, src);
    if (l && l->conn_id == conn_id)
        return PDK_OK;
    if (l) {
        snprintf(why, why_len, "the %s lease on vehicle %u is held by %s",
                 pdk_control_source_name(src), id, l->holder);
        return PDK_ERR_BUSY;
    }
    if (src == PDK_SOURCE_AI && script_drives(s, id)) {
        snprintf(why, why_len,
                 "the AI lease on vehicle %u is held by a drive script attached to session %llu",
                 id, (unsigned long long)s->id);
        return PDK_ERR_BUSY;
    }
    if (s->n_leases == s->cap_leases) {
        size_t cap = s->cap_leases ? s->cap_leases * 2 : 8;
        lease *p = realloc(s->leases, cap * sizeof(*p));
        if (!p) {
            snprintf(why, why_len, "out of memory");
            return PDK_ERR_NO_MEMORY;
        }
        s->leases = p;
        s->cap_leases = cap;
    }
    pdk_control_source before = pdk_session_active_source(s, id);
    l = &s->leases[s->n_leases++];
    l->vehicle = id;
    l->source = src;
    l->conn_id = conn_id;
    snprintf(l->holder, sizeof(l->holder), "%s", holder ? holder : "a client");
    if (before != PDK_SOURCE_NONE && src < before) {
        char reason[160];
        snprintf(reason, sizeof(reason), "%s took the %s lease on vehicle %u", l->holder,
                 pdk_control_source_name(src), id);
        tell_holders(s, id, conn_id, src, true, reason);
    }
    return PDK_OK;
}

/* Removes lease i; when that lowers the vehicle's active source, the
 * remaining holders but except_conn (a connection that is going away) hear
 * why. */
static void lease_remove(pdk_session *s, size_t i, const char *what, uint64_t except_conn)
{
    pdk_vehicle_id id = s->leases[i].vehicle;
    pdk_control_source before = pdk_session_active_source(s, id);
    char reason[192];
    snprintf(reason, sizeof(reason), "%s %s the %s lease on vehicle %u", s->leases[i].holder, what,
             pdk_control_source_name(s->leases[i].source), id);
    s->leases[i] = s->leases[--s->n_leases];
    pdk_control_source after = pdk_session_active_source(s, id);
    if (after != before)
        tell_holders(s, id, except_conn, after, false, reason);
}

pdk_error pdk_session_lease_release(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, char *why, size_t why_len)
{
    if (!source_ok(src)) {
        snprintf(why, why_len, "source %d is not a control source (1 DRIVER, 2 AUTONOMY, 3 AI)",
                 (int)src);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    lease *l = lease_find(s, id, src);
    if (!l || l->conn_id != conn_id) {
        snprintf(why, why_len, "this connection does not hold the %s lease on vehicle %u",
                 pdk_control_source_name(src), id);
        return PDK_ERR_NOT_FOUND;
    }
    lease_remove(s, (size_t)(l - s->leases), "released", conn_id);
    return PDK_OK;
}

static void release_conn_leases(pdk_session *s, uint64_t conn_id)
{
    for (size_t i = 0; i < s->n_leases;) {
        if (s->leases[i].conn_id == conn_id)
            lease_remove(s, i, "disconnected, releasing", conn_id);
        else
            i++;
    }
}

/* A removed vehicle's leases go with it; their holders hear so. */
static void drop_vehicle_leases(pdk_session *s, pdk_vehicle_id id)
{
    char reason[96];
    snprintf(reason, sizeof(reason), "vehicle %u was removed from session %llu", id,
             (unsigned long long)s->id);
    tell_holders(s, id, 0, PDK_SOURCE_NONE, true, reason);
    for (size_t i = 0; i < s->n_leases;) {
        if (s->leases[i].vehicle == id)
            s->leases[i] = s->leases[--s->n_leases];
        else
            i++;
    }
}

pdk_error pdk_session_lease_command(pdk_session *s, pdk_vehicle_id id, pdk_control_source src,
                                    uint64_t conn_id, const char *holder, char *why, size_t why_len)
{
    if (pdk_world_dbw_state(s->world, id) == NULL)
        return PDK_OK; /* refused with STALE_ID when it applies */
    /* Pre-empted first, so a refused command takes no lease. */
    const lease *above = NULL;
    for (size_t i = 0; i < s->n_leases; i++) {
        const lease *l = &s->leases[i];
        if (l->vehicle == id && l->source < src && l->conn_id != conn_id &&
            (above == NULL || l->source < above->source))
            above = l;
    }
    if (above) {
        snprintf(why, why_len,
                 "vehicle %u is driven by its %s lease, held by %s: %s commands are refused "
                 "until it is released",
                 id, pdk_control_source_name(above->source), above->holder,
                 pdk_control_source_name(src));
        return PDK_ERR_BUSY;
    }
    return pdk_session_lease_take(s, id, src, conn_id, holder, why, why_len);
}
