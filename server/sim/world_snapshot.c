/* Snapshots of a world and their restore (snapshot.h): the head, each live
 * vehicle's state record, the record's layout fingerprint, and the restore
 * that spawns each vehicle from its definition into its own slot before
 * laying its record over it. */
#include "sim/snapshot.h"

#include <math.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "math/hash.h"
#include "world_internal.h"

/* Bump whenever what a record means changes without its layout changing
 * (a member's unit, an enum's numbering, a state the model now keeps
 * elsewhere): the layout fingerprint cannot see those. */
#define RECORD_VERSION 2u /* 2: the faulted flag holds a fault code */

/* One vehicle's state record: everything of a slot that evolves, in this
 * build's plain-data structs. The model's part (model.h,
 * pdk_model_record) is its state and held command, the faulted flag among
 * them. Of the channels, the step's outputs, only the wheel angles are
 * written (they go on from tick to tick); the rest stay zero (ADR 0040:
 * the keyframe's tick need not write them, and a keyframe packs their
 * zero words away). Keyframes written before that hold every channel, in
 * the same layout. Written zeroed first, so equal states give equal bytes
 * wherever the world's copies have equal padding. */
typedef struct vehicle_record {
    uint64_t layout; /* pdk_snapshot_layout() of the build that wrote it */
    uint32_t model;  /* pdk_model */
    uint32_t pad;
    pdk_model_record m;
    pdk_dbw_state dbw;
    pdk_dbw_cmd driver; /* the driver's controls, under the kit */
    double channels[PDK_CH_COUNT];
} vehicle_record;

/* ---- the layout fingerprint ---------------------------------------------- */

/* Folds a member's offset and size in, and a struct's size. */
#define MEMBER(h, type, member) PDK_LAYOUT_MEMBER(h, 0u, type, member)
#define STRUCT(h, type) PDK_LAYOUT_STRUCT(h, type)

static uint64_t layout_dbw_chan(uint64_t h)
{
    h = STRUCT(h, pdk_dbw_chan);
    h = MEMBER(h, pdk_dbw_chan, cmd);
    h = MEMBER(h, pdk_dbw_chan, rate_a);
    h = MEMBER(h, pdk_dbw_chan, rate_b);
    h = MEMBER(h, pdk_dbw_chan, target);
    h = MEMBER(h, pdk_dbw_chan, out);
    h = MEMBER(h, pdk_dbw_chan, out_rate);
    h = MEMBER(h, pdk_dbw_chan, stuck_value);
    h = MEMBER(h, pdk_dbw_chan, delay_line);
    h = MEMBER(h, pdk_dbw_chan, delay_digest);
    h = MEMBER(h, pdk_dbw_chan, last_cmd_tick);
    h = MEMBER(h, pdk_dbw_chan, override_until);
    h = MEMBER(h, pdk_dbw_chan, boot_until);
    h = MEMBER(h, pdk_dbw_chan, cmd_type);
    h = MEMBER(h, pdk_dbw_chan, cmd_src);
    h = MEMBER(h, pdk_dbw_chan, delay_ticks);
    h = MEMBER(h, pdk_dbw_chan, fault_kind);
    h = MEMBER(h, pdk_dbw_chan, pending_dis);
    h = MEMBER(h, pdk_dbw_chan, latency_ticks);
    h = MEMBER(h, pdk_dbw_chan, have_cmd);
    h = MEMBER(h, pdk_dbw_chan, enable_req);
    h = MEMBER(h, pdk_dbw_chan, rc);
    h = MEMBER(h, pdk_dbw_chan, rc_valid);
    h = MEMBER(h, pdk_dbw_chan, enabled);
    h = MEMBER(h, pdk_dbw_chan, timeout);
    h = MEMBER(h, pdk_dbw_chan, bad_crc);
    h = MEMBER(h, pdk_dbw_chan, bad_rc);
    h = MEMBER(h, pdk_dbw_chan, override_active);
    h = MEMBER(h, pdk_dbw_chan, override_latched);
    h = MEMBER(h, pdk_dbw_chan, override_other);
    h = MEMBER(h, pdk_dbw_chan, ignore);
    h = MEMBER(h, pdk_dbw_chan, fault);
    h = MEMBER(h, pdk_dbw_chan, report_missing);
    h = MEMBER(h, pdk_dbw_chan, limiting_value);
    h = MEMBER(h, pdk_dbw_chan, limiting_rate);
    return MEMBER(h, pdk_dbw_chan, line_live);
}

static uint64_t layout_dbw(uint64_t h)
{
    h = layout_dbw_chan(h);
    h = STRUCT(h, pdk_dbw_state);
    h = MEMBER(h, pdk_dbw_state, ch);
    h = MEMBER(h, pdk_dbw_state, ulc_cmd);
    h = MEMBER(h, pdk_dbw_state, ulc_limit_accel);
    h = MEMBER(h, pdk_dbw_state, ulc_limit_decel);
    h = MEMBER(h, pdk_dbw_state, ulc_jerk_throttle);
    h = MEMBER(h, pdk_dbw_state, ulc_jerk_brake);
    h = MEMBER(h, pdk_dbw_state, ulc_vel_ref);
    h = MEMBER(h, pdk_dbw_state, ulc_accel_ref);
    h = MEMBER(h, pdk_dbw_state, ulc_accel_cmd);
    h = MEMBER(h, pdk_dbw_state, ulc_integral);
    h = MEMBER(h, pdk_dbw_state, ulc_accel_filt);
    h = MEMBER(h, pdk_dbw_state, ulc_accel_i);
    h = MEMBER(h, pdk_dbw_state, ulc_last_tick);
    h = MEMBER(h, pdk_dbw_state, ulc_cmd_type);
    h = MEMBER(h, pdk_dbw_state, ulc_have);
    h = MEMBER(h, pdk_dbw_state, ulc_enable_req);
    h = MEMBER(h, pdk_dbw_state, ulc_enabled);
    h = MEMBER(h, pdk_dbw_state, ulc_timeout);
    h = MEMBER(h, pdk_dbw_state, ulc_override_latched);
    h = MEMBER(h, pdk_dbw_state, ulc_preempted);
    h = MEMBER(h, pdk_dbw_state, ulc_bad_rc);
    h = MEMBER(h, pdk_dbw_state, ulc_bad_crc);
    h = MEMBER(h, pdk_dbw_state, ulc_coast);
    h = MEMBER(h, pdk_dbw_state, ulc_shift);
    h = MEMBER(h, pdk_dbw_state, ulc_shift_park);
    h = MEMBER(h, pdk_dbw_state, ulc_rc);
    h = MEMBER(h, pdk_dbw_state, gear_cmd);
    h = MEMBER(h, pdk_dbw_state, gear_reject);
    h = MEMBER(h, pdk_dbw_state, gear_pending);
    h = MEMBER(h, pdk_dbw_state, gear_fault);
    h = MEMBER(h, pdk_dbw_state, gear_out);
    h = MEMBER(h, pdk_dbw_state, gear_done_tick);
    h = MEMBER(h, pdk_dbw_state, gear_override_until);
    h = MEMBER(h, pdk_dbw_state, gear_bad_crc);
    h = MEMBER(h, pdk_dbw_state, gear_report_missing);
    h = MEMBER(h, pdk_dbw_state, gear_out_set);
    h = MEMBER(h, pdk_dbw_state, gear_shifting);
    h = MEMBER(h, pdk_dbw_state, state);
    h = MEMBER(h, pdk_dbw_state, sync_mode);
    h = MEMBER(h, pdk_dbw_state, reason_disengage);
    h = MEMBER(h, pdk_dbw_state, reason_not_ready);
    h = MEMBER(h, pdk_dbw_state, reengage_tick);
    h = MEMBER(h, pdk_dbw_state, sys_last_tick);
    h = MEMBER(h, pdk_dbw_state, enabled);
    h = MEMBER(h, pdk_dbw_state, validate_crc);
    h = MEMBER(h, pdk_dbw_state, comms_loss_armed);
    h = MEMBER(h, pdk_dbw_state, comms_loss_active);
    h = MEMBER(h, pdk_dbw_state, lockout);
    h = MEMBER(h, pdk_dbw_state, btn_enable);
    h = MEMBER(h, pdk_dbw_state, btn_disable);
    h = MEMBER(h, pdk_dbw_state, external_brake);
    h = MEMBER(h, pdk_dbw_state, sys_rc);
    h = MEMBER(h, pdk_dbw_state, sys_bad_rc);
    h = MEMBER(h, pdk_dbw_state, sys_bad_crc);
    h = MEMBER(h, pdk_dbw_state, touched);
    h = MEMBER(h, pdk_dbw_state, sys_rc_valid);
    h = MEMBER(h, pdk_dbw_state, lockout_latched);
    h = MEMBER(h, pdk_dbw_state, hold_depleted);
    h = MEMBER(h, pdk_dbw_state, pad_s);
    h = MEMBER(h, pdk_dbw_state, lockout_reason);
    h = MEMBER(h, pdk_dbw_state, comms_loss_hold_left_s);
    h = MEMBER(h, pdk_dbw_state, turn_signal);
    h = MEMBER(h, pdk_dbw_state, parking_brake);
    h = MEMBER(h, pdk_dbw_state, drive_mode_cmd);
    h = MEMBER(h, pdk_dbw_state, aw_mode);
    h = MEMBER(h, pdk_dbw_state, sensor_bias);
    h = MEMBER(h, pdk_dbw_state, sensor_noise_scale);
    h = MEMBER(h, pdk_dbw_state, report_drop);
    h = MEMBER(h, pdk_dbw_state, report_delay_ticks);
    h = MEMBER(h, pdk_dbw_state, speed_prev_mps);
    h = MEMBER(h, pdk_dbw_state, accel_meas_mps2);

    h = STRUCT(h, pdk_dbw_cmd);
    h = MEMBER(h, pdk_dbw_cmd, fields);
    h = MEMBER(h, pdk_dbw_cmd, throttle_pct);
    h = MEMBER(h, pdk_dbw_cmd, brake_bar);
    h = MEMBER(h, pdk_dbw_cmd, steer_wheel_deg);
    h = MEMBER(h, pdk_dbw_cmd, gear);
    return MEMBER(h, pdk_dbw_cmd, gear_number);
}

/* What it catches: a member added, removed, resized, moved or renamed in
 * any struct the record holds (listed below member by member, nested
 * structs too), a change of an array's length (PDK_WHEELS, PDK_CH_COUNT,
 * the delay line), another byte order or another double format. What it
 * cannot see: a member added where padding was, which moves and resizes
 * nothing, unless it is listed here; a member whose meaning, unit or enum
 * numbering changes in place; and a change in the physics that reads the
 * state. The first two need RECORD_VERSION bumped (and the member listed);
 * the last is what replay's per-tick hashes are for. */
static uint64_t layout_compute(void)
{
    uint64_t h = PDK_HASH_INIT;
    h = pdk_hash_u64(h, RECORD_VERSION);
    /* The byte order and the double format, as the record's bytes hold
     * them. */
    const uint32_t order = 0x01020304u;
    unsigned char order_bytes[sizeof order];
    memcpy(order_bytes, &order, sizeof order);
    h = pdk_hash_u64(h, (uint64_t)order_bytes[0]);
    h = pdk_hash_f64(h, 1.0 / 3.0);
    h = STRUCT(h, vehicle_record);
    h = MEMBER(h, vehicle_record, layout);
    h = MEMBER(h, vehicle_record, model);
    h = MEMBER(h, vehicle_record, m);
    for (int m = 0; m < PDK_MODEL_COUNT; m++) {
        h = pdk_models[m]->record_members(h, offsetof(vehicle_record, m));
    }
    h = MEMBER(h, vehicle_record, dbw);
    h = MEMBER(h, vehicle_record, driver);
    h = MEMBER(h, vehicle_record, channels);
    for (int m = 0; m < PDK_MODEL_COUNT; m++) {
        h = pdk_models[m]->record_layout(h);
    }
    h = layout_dbw(h);
    return pdk_hash_finish(h);
}

/* Every record written and read asks for it, so it is worked out once: a
 * constant of the build, cached with relaxed atomics (any thread that
 * races the first call computes the same value; 0 means not yet). */
uint64_t pdk_snapshot_layout(void)
{
    static _Atomic uint64_t cached;
    uint64_t v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v == 0u) {
        v = layout_compute();
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

#undef MEMBER
#undef STRUCT

size_t pdk_snapshot_vehicle_bytes(void)
{
    return sizeof(vehicle_record);
}

/* ---- taking a snapshot ---------------------------------------------------- */

void pdk_world_snapshot_head_get(const pdk_world *world, pdk_world_snapshot_head *out)
{
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (world == NULL) {
        return;
    }
    out->tick = world->tick;
    out->seed = world->def.seed;
    for (int i = 0; i < 4; i++) {
        out->prng[i] = world->prng.s[i];
    }
    out->capacity = world->capacity;
    out->count = world->count;
}

pdk_error pdk_world_snapshot_generations(const pdk_world *world, uint32_t *out, size_t n)
{
    if (world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (n < (size_t)world->capacity) {
        return PDK_ERR_CAPACITY;
    }
    const slot_meta *meta = meta_of(world);
    for (int32_t s = 0; s < world->capacity; s++) {
        out[s] = meta[s].generation;
    }
    return PDK_OK;
}

pdk_error pdk_world_snapshot_vehicle(const pdk_world *world, pdk_vehicle_id id, void *out,
                                     size_t len)
{
    if (world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    if (len < sizeof(vehicle_record)) {
        return PDK_ERR_CAPACITY;
    }
    uint64_t head[2];
    pdk_record_span spans[PDK_RECORD_SPANS];
    int n = pdk_world_snapshot_vehicle_spans(world, id, head, spans);
    memset(out, 0, sizeof(vehicle_record));
    for (int i = 0; i < n; i++) {
        memcpy((uint8_t *)out + spans[i].offset, spans[i].data, spans[i].len);
    }
    return PDK_OK;
}

/* The record's parts after the model's, each whole words. */
_Static_assert(offsetof(vehicle_record, m) == 16u && sizeof(pdk_model_record) % 8u == 0u &&
                   offsetof(vehicle_record, dbw) % 8u == 0u && sizeof(pdk_dbw_state) % 8u == 0u &&
                   offsetof(vehicle_record, driver) % 8u == 0u && sizeof(pdk_dbw_cmd) % 8u == 0u &&
                   offsetof(vehicle_record, channels) % 8u == 0u &&
                   sizeof(vehicle_record) % 8u == 0u,
               "a record's spans are whole words");
_Static_assert(PDK_MODEL_RECORD_SPANS + 4 <= PDK_RECORD_SPANS, "room for a record's spans");

int pdk_world_snapshot_vehicle_spans(const pdk_world *world, pdk_vehicle_id id, uint64_t head[2],
                                     pdk_record_span spans[PDK_RECORD_SPANS])
{
    int32_t s = world != NULL && head != NULL && spans != NULL ? slot_of(world, id) : -1;
    if (s < 0) {
        return 0;
    }
    const uint32_t slot = (uint32_t)s;
    /* The head: layout, model, zero padding. */
    vehicle_record h;
    memset(&h, 0, offsetof(vehicle_record, m));
    h.layout = pdk_snapshot_layout();
    h.model = meta_of(world)[slot].model;
    memcpy(head, &h, offsetof(vehicle_record, m));
    int n = 0;
    spans[n++] = (pdk_record_span){0u, offsetof(vehicle_record, m), head};
    const int m = model_of(world, slot)->record_spans(world, slot, &spans[n]);
    for (int i = n; i < n + m; i++) {
        spans[i].offset += offsetof(vehicle_record, m);
    }
    n += m;
    spans[n++] = (pdk_record_span){offsetof(vehicle_record, dbw), sizeof(pdk_dbw_state),
                                   &dbw_of(world)[slot]};
    spans[n++] = (pdk_record_span){offsetof(vehicle_record, driver), sizeof(pdk_dbw_cmd),
                                   &driver_of(world)[slot]};
    _Static_assert(PDK_CH_WHEEL_ANGLE_RR == PDK_CH_WHEEL_ANGLE_FL + PDK_WORLD_WHEEL_ANGLES - 1,
                   "the wheel angles' channels lie side by side");
    spans[n++] = (pdk_record_span){
        offsetof(vehicle_record, channels) + sizeof(double) * PDK_CH_WHEEL_ANGLE_FL,
        sizeof(double) * PDK_WORLD_WHEEL_ANGLES, wheel_angle_of(world, slot)};
    return n;
}

const char *pdk_snapshot_record_part(size_t offset, size_t *part_offset)
{
    static const struct {
        size_t at;
        const char *name;
    } parts[] = {
        {0u, "the record's head (layout, model)"},
        {offsetof(vehicle_record, m), "the vehicle model's state and held command"},
        {offsetof(vehicle_record, dbw), "the DBW kit's state"},
        {offsetof(vehicle_record, driver), "the driver's controls under the kit"},
        {offsetof(vehicle_record, channels), "the channels (the wheel angles)"},
        {sizeof(vehicle_record), "past the record"},
    };
    size_t i = sizeof(parts) / sizeof(parts[0]) - 1;
    while (i > 0 && offset < parts[i].at) {
        i--;
    }
    if (part_offset != NULL) {
        *part_offset = offset - parts[i].at;
    }
    return parts[i].name;
}

/* ---- restoring ------------------------------------------------------------ */

/* Records the failure: the world is unusable from here on. */
static pdk_error fail(pdk_world *w, pdk_error err, const char *why)
{
    if (w != NULL) {
        w->restore_phase = PDK_RESTORE_FAILED;
        w->restore_problem = why;
    }
    return err;
}

const char *pdk_world_restore_problem(const pdk_world *world)
{
    return world == NULL ? NULL : world->restore_problem;
}

pdk_error pdk_world_restore_head(pdk_world *world, const pdk_world_snapshot_head *head,
                                 const uint32_t *generations, size_t n)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (head == NULL || generations == NULL) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT, "snapshot head or generations is NULL");
    }
    /* Fresh: as pdk_world_init left it, every slot's generation still 0. */
    int fresh = world->restore_phase == PDK_RESTORE_NONE && world->count == 0 && world->tick == 0;
    const slot_meta *meta = meta_of(world);
    for (int32_t s = 0; fresh && s < world->capacity; s++) {
        fresh = meta[s].generation == 0u;
    }
    if (!fresh) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "the staging world is not fresh (it has stepped, spawned or been restored "
                    "into): restore into a world just laid out by pdk_world_init");
    }
    if (head->capacity != world->capacity) {
        return fail(world, PDK_ERR_OUT_OF_RANGE,
                    "the snapshot's capacity (max_vehicles) differs from the staging world's");
    }
    if (n < (size_t)head->capacity) {
        return fail(world, PDK_ERR_OUT_OF_RANGE,
                    "fewer generations than the snapshot's capacity (one per slot)");
    }
    if (head->count < 0 || head->count > head->capacity) {
        return fail(world, PDK_ERR_OUT_OF_RANGE,
                    "the snapshot's vehicle count is not within 0..capacity");
    }
    if ((head->prng[0] | head->prng[1] | head->prng[2] | head->prng[3]) == 0u) {
        /* xoshiro256** never reaches the all-zero state and stays in it. */
        return fail(world, PDK_ERR_OUT_OF_RANGE, "the snapshot's PRNG state is all zero");
    }
    for (int32_t s = 0; s < head->capacity; s++) {
        if (generations[s] > PDK_WORLD_SLOT_MASK) {
            return fail(world, PDK_ERR_OUT_OF_RANGE,
                        "a slot's generation is above 65535 (it must fit an id's high 16 bits)");
        }
    }
    slot_meta *m = meta_of(world);
    for (int32_t s = 0; s < head->capacity; s++) {
        m[s].generation = generations[s];
        if (generations[s] != 0u) {
            world->generation_top = s + 1;
        }
    }
    world->tick = head->tick;
    world->def.seed = head->seed;
    for (int i = 0; i < 4; i++) {
        world->prng.s[i] = head->prng[i];
    }
    world->restore_phase = PDK_RESTORE_VEHICLES;
    world->restore_count = head->count;
    world->restore_next_slot = 0;
    world->restore_problem = NULL;
    return PDK_OK;
}

/* Why record r cannot be laid over a vehicle spawned from def, or NULL. A
 * record's state is checked where a bad value would make the step read
 * out of bounds or start from a non-finite state; the rest is the hash's to
 * vouch for (the wire restore compares it). */
static const char *record_problem(const vehicle_record *r, const pdk_vehicle_def *def)
{
    if (r->model != (uint32_t)def->model) {
        return "the record's model differs from the definition's (four-wheel against "
               "single-track)";
    }
    for (int c = 0; c < PDK_DBW_CH_COUNT; c++) {
        const pdk_dbw_chan *ch = &r->dbw.ch[c];
        if (ch->delay_ticks < 0 || ch->delay_ticks >= PDK_DBW_DELAY_TICKS) {
            return "the record's DBW delay_ticks is not within 0..63";
        }
        /* The state hash takes a live line by its digest, so the restore's
         * hash check cannot see a slot that disagrees with it: this does. */
        if (ch->line_live > 1u || (ch->line_live && ch->delay_digest != pdk_dbw_delay_digest(ch))) {
            return "the record's DBW delay line does not match its digest";
        }
    }
    return pdk_model_ops_of((uint32_t)def->model)->record_problem(&r->m, def);
}

pdk_error pdk_world_restore_vehicle(pdk_world *world, pdk_vehicle_id id, const pdk_vehicle_def *def,
                                    const void *record, size_t len)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (world->restore_phase != PDK_RESTORE_VEHICLES) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "a vehicle restored before pdk_world_restore_head, after "
                    "pdk_world_restore_end or after a failed call");
    }
    if (def == NULL || record == NULL) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT, "the definition or the record is NULL");
    }
    uint32_t low = id & PDK_WORLD_SLOT_MASK;
    if (low == 0u || low > (uint32_t)world->capacity) {
        return fail(world, PDK_ERR_OUT_OF_RANGE,
                    "the vehicle id's slot is zero or beyond the world's capacity");
    }
    uint32_t slot = low - 1u;
    if ((int32_t)slot < world->restore_next_slot) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "vehicles out of order: each must come after the last in ascending id "
                    "(slot) order, once");
    }
    if (meta_of(world)[slot].generation != (id >> 16)) {
        return fail(world, PDK_ERR_OUT_OF_RANGE,
                    "the vehicle id's generation differs from its slot's in the snapshot head");
    }
    if (world->count >= world->restore_count) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "more vehicles than the snapshot head's count");
    }
    if (len != sizeof(vehicle_record)) {
        return fail(world, PDK_ERR_VERSION,
                    "the state record's length differs from this build's: a record of another "
                    "layout");
    }
    vehicle_record r;
    memcpy(&r, record, sizeof r);
    if (r.layout != pdk_snapshot_layout()) {
        return fail(world, PDK_ERR_VERSION,
                    "the state record carries another layout fingerprint than this build's");
    }
    /* A fleet of one preset: the vehicle restored before holds the same
     * definition, already checked, and its constants. */
    int32_t like = -1;
    if (world->count > 0) {
        uint32_t prev = live_of(world)[world->count - 1];
        if (memcmp(&defs_of(world)[prev], def, sizeof *def) == 0) {
            like = (int32_t)prev;
        }
    }
    if (like < 0) {
        pdk_error err = pdk_vehicle_def_check(def);
        if (err != PDK_OK) {
            return fail(world, err, pdk_vehicle_def_problem(def));
        }
    }
    const char *why = record_problem(&r, def);
    if (why != NULL) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT, why);
    }

    /* Everything that follows from def alone comes from the spawn (or the
     * like vehicle's); what evolves comes from the record. */
    if (like >= 0) {
        pdk_world_spawn_like_(world, slot, (uint32_t)like);
    } else {
        pdk_world_spawn_at_(world, slot, def, PDK_GEAR_PARK);
    }
    const pdk_model_ops *model = model_of(world, slot);
    model->restore(world, slot, &r.m);
    dbw_of(world)[slot] = r.dbw;
    driver_of(world)[slot] = r.driver;
    /* The wheels' angles go on from the record's channels (they are no
     * state of their own); the other channels are zero until a step
     * writes them, whatever an older keyframe holds (ADR 0040). */
    double *channels = channels_of(world, slot);
    memset(channels, 0, sizeof(double) * PDK_CH_COUNT);
    memcpy(&channels[PDK_CH_WHEEL_ANGLE_FL], &r.channels[PDK_CH_WHEEL_ANGLE_FL],
           sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
    memcpy(wheel_angle_of(world, slot), &r.channels[PDK_CH_WHEEL_ANGLE_FL],
           sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
    world->faulted += model->faulted(world, slot) != 0u;
    world->restore_next_slot = (int32_t)slot + 1;
    return PDK_OK;
}

pdk_error pdk_world_restore_end(pdk_world *world)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (world->restore_phase != PDK_RESTORE_VEHICLES) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "pdk_world_restore_end without a restored head, twice or after a failed "
                    "call");
    }
    if (world->count != world->restore_count) {
        return fail(world, PDK_ERR_INVALID_ARGUMENT,
                    "fewer vehicles restored than the snapshot head's count");
    }
    world->restore_phase = PDK_RESTORE_DONE;
    world->restore_problem = NULL;
    return PDK_OK;
}
