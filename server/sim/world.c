/* The world: its memory layout inside the caller's buffer, vehicle ids and
 * slots, commands, the tick's phases and the state hash. A slot's meta says
 * which model runs its vehicle; the world reaches the vehicle only through
 * that model's table (model.h), and each model keeps its own
 * arrays. The header and the array views are world_internal.h's, shared
 * with world_snapshot.c and the models. */
#include "sim/world.h"

#include <math.h>
#include <string.h>

#include "ground/terrain.h"
#include "math/hash.h"
#include "math/prng.h"
#include "tyre/tyre_life.h"
#include "model.h"
#include "world_internal.h"

#define WORLD_ALIGN 64u          /* arrays start on cache lines */
#define MAX_SUBSTEPS 64
/* The longest substep: the implicit solves stay well conditioned far beyond
 * it, and no vehicle model is meaningful at a coarser internal rate. */
#define MAX_SUBSTEP_S 0.02
#define MAX_VEHICLES 65535
#define ALL_FIELDS                                                                                 \
    (PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR | PDK_DBW_GEAR_NUMBER)

typedef struct layout {
    size_t live, meta, channels, defs, dbw, driver, wheel_angle, total;
    size_t proxy_live, proxies, cbodies, sap, pairs, manifolds, events, csum;
    int32_t cap_bodies, cap_pairs, cap_manifolds, cap_events;
    size_t model[PDK_MODEL_KIND_END][PDK_MODEL_MAX_ARRAYS];
} layout;

static size_t round_up(size_t v)
{
    return (v + (WORLD_ALIGN - 1u)) & ~(size_t)(WORLD_ALIGN - 1u);
}

static layout layout_of(int max_vehicles)
{
    size_t n = (size_t)max_vehicles;
    layout l;
    memset(&l, 0, sizeof l);
    size_t off = round_up(sizeof(pdk_world));
    l.live = off;
    off = round_up(off + n * sizeof(uint32_t));
    l.meta = off;
    off = round_up(off + n * sizeof(slot_meta));
    for (int m = 0; m < PDK_MODEL_COUNT; m++) {
        const pdk_model_ops *ops = pdk_models[m];
        for (int i = 0; i < ops->arrays; i++) {
            l.model[ops->kind][i] = off;
            off = round_up(off + n * ops->array_bytes[i]);
        }
    }
    l.channels = off;
    off = round_up(off + n * sizeof(double) * (size_t)PDK_CH_COUNT);
    l.defs = off;
    off = round_up(off + n * sizeof(pdk_vehicle_def));
    l.dbw = off;
    off = round_up(off + n * sizeof(pdk_dbw_state));
    l.driver = off;
    off = round_up(off + n * sizeof(pdk_dbw_cmd));
    l.wheel_angle = off;
    off = round_up(off + n * sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
    /* The proxies and the contact phase's scratch (world_internal.h): as
     * many proxy slots as vehicle slots; a body per vehicle and per proxy;
     * pairs, manifolds and events bounded per vehicle slot (a car in a
     * packed car park touches a handful, ADR 0027). */
    l.cap_bodies = 2 * max_vehicles;
    l.cap_pairs = 8 * max_vehicles;
    l.cap_manifolds = 2 * max_vehicles + 16;
    l.cap_events = max_vehicles > 64 ? max_vehicles : 64;
    l.proxy_live = off;
    off = round_up(off + n * sizeof(uint32_t));
    l.proxies = off;
    off = round_up(off + n * sizeof(proxy_slot));
    l.cbodies = off;
    off = round_up(off + (size_t)l.cap_bodies * sizeof(pdk_cbody));
    l.sap = off;
    off = round_up(off + (size_t)l.cap_bodies * sizeof(uint32_t));
    l.pairs = off;
    off = round_up(off + (size_t)l.cap_pairs * sizeof(uint64_t));
    l.manifolds = off;
    off = round_up(off + (size_t)l.cap_manifolds * sizeof(pdk_manifold));
    l.events = off;
    off = round_up(off + (size_t)l.cap_events * sizeof(pdk_contact_event));
    l.csum = off;
    off = round_up(off + n * sizeof(pdk_contact_sum));
    l.total = off;
    return l;
}

pdk_world_def pdk_world_def_default(void)
{
    pdk_world_def def = {
        .dt_s = 1.0 / 120.0,
        .substeps = 2,
        .max_vehicles = 256,
        .gravity_mps2 = 9.81,
        .air_density_kgpm3 = 1.225,
        .surface_friction = 1.0,
        .seed = 1u,
    };
    pdk_terrain_def_flat(&def.terrain);
    return def;
}

static int within(double v, double lo, double hi)
{
    return isfinite(v) && v >= lo && v <= hi;
}

static pdk_error check_world_def(const pdk_world_def *def, const char **why)
{
    *why = NULL;
    if (def == NULL) {
        *why = "world definition is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (!within(def->dt_s, 0.0, 1.0) || def->dt_s <= 0.0) {
        *why = "dt_s must be above 0 and at most 1 s";
    } else if (def->substeps < 1 || def->substeps > MAX_SUBSTEPS) {
        *why = "substeps must be within 1..64";
    } else if (def->dt_s / (double)def->substeps > MAX_SUBSTEP_S) {
        *why = "dt_s / substeps (the substep length) must be at most 0.02 s";
    } else if (def->max_vehicles < 1 || def->max_vehicles > MAX_VEHICLES) {
        *why = "max_vehicles must be within 1..65535";
    } else if (!within(def->gravity_mps2, 0.0, 100.0) || def->gravity_mps2 <= 0.0) {
        *why = "gravity_mps2 must be above 0 and at most 100";
    } else if (!within(def->air_density_kgpm3, 0.0, 100.0)) {
        *why = "air_density_kgpm3 must be within 0..100";
    } else if (!within(def->surface_friction, 0.0, 10.0)) {
        *why = "surface_friction must be within 0..10";
    } else {
        *why = pdk_terrain_problem(&def->terrain);
    }
    return *why == NULL ? PDK_OK : PDK_ERR_OUT_OF_RANGE;
}

pdk_error pdk_world_def_check(const pdk_world_def *def)
{
    const char *why;
    return check_world_def(def, &why);
}

const char *pdk_world_def_problem(const pdk_world_def *def)
{
    const char *why;
    (void)check_world_def(def, &why);
    return why;
}

size_t pdk_world_mem_size(const pdk_world_def *def)
{
    if (pdk_world_def_check(def) != PDK_OK) {
        return 0;
    }
    return layout_of(def->max_vehicles).total;
}

/* pdk_world_init and pdk_world_init_zeroed: zero says whether mem must be
 * cleared first. */
static pdk_error init(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out, bool zero)
{
    if (out == NULL || def == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    pdk_error err = pdk_world_def_check(def);
    if (err != PDK_OK) {
        return err;
    }
    if (mem == NULL || ((uintptr_t)mem % 16u) != 0u) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    layout l = layout_of(def->max_vehicles);
    if (bytes < l.total) {
        return PDK_ERR_CAPACITY;
    }
    if (zero) {
        memset(mem, 0, l.total);
    }
    pdk_world *w = mem;
    w->def = *def;
    /* The world's own copy of the terrain carries its derived fields, so
     * that the rays need no trigonometry per bump. */
    pdk_terrain_prepare(&w->def.terrain);
    w->substep_s = def->dt_s / (double)def->substeps;
    w->tick = 0;
    pdk_prng_seed(&w->prng, def->seed);
    w->count = 0;
    w->capacity = def->max_vehicles;
    w->first_free = 0;
    w->faulted = 0;
    w->generation_top = 0;
    w->off_live = l.live;
    w->off_meta = l.meta;
    memcpy(w->off_model, l.model, sizeof w->off_model);
    w->off_channels = l.channels;
    w->off_defs = l.defs;
    w->off_dbw = l.dbw;
    w->off_driver = l.driver;
    w->off_wheel_angle = l.wheel_angle;
    w->off_proxy_live = l.proxy_live;
    w->off_proxies = l.proxies;
    w->off_cbodies = l.cbodies;
    w->off_sap = l.sap;
    w->off_pairs = l.pairs;
    w->off_manifolds = l.manifolds;
    w->off_events = l.events;
    w->off_csum = l.csum;
    w->cap_bodies = l.cap_bodies;
    w->cap_pairs = l.cap_pairs;
    w->cap_manifolds = l.cap_manifolds;
    w->cap_events = l.cap_events;
    w->bytes = l.total;
    *out = w;
    return PDK_OK;
}

pdk_error pdk_world_init(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out)
{
    return init(mem, bytes, def, out, true);
}

pdk_error pdk_world_init_zeroed(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out)
{
    return init(mem, bytes, def, out, false);
}

const pdk_world_def *pdk_world_def_get(const pdk_world *world)
{
    return world == NULL ? NULL : &world->def;
}

pdk_error pdk_world_set_terrain(pdk_world *world, const pdk_terrain_def *terrain)
{
    if (world == NULL || terrain == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_terrain_problem(terrain) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    world->def.terrain = *terrain;
    pdk_terrain_prepare(&world->def.terrain);
    return PDK_OK;
}

uint64_t pdk_world_tick(const pdk_world *world)
{
    return world == NULL ? 0u : world->tick;
}

double pdk_world_time_s(const pdk_world *world)
{
    return world == NULL ? 0.0 : (double)world->tick * world->def.dt_s;
}

static pdk_error check_spawn(const pdk_world *w, const pdk_vehicle_def *def, const pdk_pose *pose,
                             double speed_mps, pdk_gear gear, const char **why)
{
    *why = NULL;
    if (w == NULL) {
        *why = "world is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pose == NULL) {
        *why = "pose is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_error err = pdk_vehicle_def_check(def);
    if (err != PDK_OK) {
        *why = pdk_vehicle_def_problem(def);
        return err;
    }
    if (gear < PDK_GEAR_PARK || gear > PDK_GEAR_LOW) {
        *why = "gear must be one of PARK, REVERSE, NEUTRAL, DRIVE, LOW (1..5)";
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (!within(pose->x_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M) ||
        !within(pose->y_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M)) {
        *why = "pose x_m and y_m must be finite and within -1e7..1e7 m";
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (!isfinite(pose->yaw_rad)) {
        *why = "pose yaw_rad must be finite";
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (!within(speed_mps, -PDK_WORLD_MAX_SPAWN_SPEED_MPS, PDK_WORLD_MAX_SPAWN_SPEED_MPS)) {
        *why = "speed_mps must be finite and within -150..150 m/s (540 km/h)";
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (w->count >= w->capacity) {
        *why = "world is full (max_vehicles vehicles alive)";
        return PDK_ERR_CAPACITY;
    }
    return PDK_OK;
}

const char *pdk_world_spawn_problem(const pdk_world *world, const pdk_vehicle_def *def,
                                    const pdk_pose *pose, double speed_mps, pdk_gear gear)
{
    const char *why;
    (void)check_spawn(world, def, pose, speed_mps, gear, &why);
    return why;
}

static void enter_live(pdk_world *world, uint32_t slot, uint32_t model);

/* Sets a free slot up for def at pose (spawn's checks passed) and enters it
 * in the live list; first_free is the caller's. */
static void place(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, const pdk_pose *pose,
                  double speed_mps, pdk_gear gear)
{
    defs_of(world)[slot] = *def;
    /* A fleet is spawned one preset after another: the vehicle placed
     * last (the highest live slot) is the one to share a definition with. */
    slot_meta *meta = meta_of(world);
    meta[slot].def_at = slot;
    if (world->count > 0) {
        uint32_t prev = live_of(world)[world->count - 1];
        if (memcmp(&defs_of(world)[prev], def, sizeof *def) == 0) {
            meta[slot].def_at = meta[prev].def_at;
        }
    }
    memset(channels_of(world, slot), 0, sizeof(double) * (size_t)PDK_CH_COUNT);
    memset(wheel_angle_of(world, slot), 0, sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
    pdk_model_ops_of((uint32_t)def->model)->spawn(world, slot, def, pose, speed_mps, gear);
    pdk_dbw_cmd *driver = &driver_of(world)[slot];
    memset(driver, 0, sizeof *driver);
    driver->gear = gear;
    pdk_dbw_init(&dbw_of(world)[slot], &def->dbw, driver);
    enter_live(world, slot, (uint32_t)def->model);
}

/* Marks slot alive with model and enters it in the live list. */
static void enter_live(pdk_world *world, uint32_t slot, uint32_t model)
{
    slot_meta *meta = meta_of(world);
    meta[slot].alive = 1u;
    meta[slot].model = model;
    world->model_count[model]++;

    /* Keep the live list sorted: insert slot after every smaller one. */
    uint32_t *live = live_of(world);
    int32_t at = world->count;
    while (at > 0 && live[at - 1] > slot) {
        at--;
    }
    memmove(&live[at + 1], &live[at], sizeof(uint32_t) * (size_t)(world->count - at));
    live[at] = slot;
    world->count++;
}

pdk_error pdk_world_spawn(pdk_world *world, const pdk_vehicle_def *def, const pdk_pose *pose,
                          double speed_mps, pdk_gear gear, pdk_vehicle_id *out_id)
{
    const char *why;
    if (out_id == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *out_id = 0;
    pdk_error err = check_spawn(world, def, pose, speed_mps, gear, &why);
    if (err != PDK_OK) {
        return err;
    }
    slot_meta *meta = meta_of(world);
    int32_t s = world->first_free;
    while (meta[s].alive) {
        s++;
    }
    PDK_ASSERT(s < world->capacity);
    world->first_free = s + 1;
    place(world, (uint32_t)s, def, pose, speed_mps, gear);
    *out_id = make_id((uint32_t)s, meta[s].generation);
    return PDK_OK;
}

void pdk_world_spawn_at_(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, pdk_gear gear)
{
    PDK_ASSERT(slot < (uint32_t)world->capacity && !meta_of(world)[slot].alive);
    if ((int32_t)slot == world->first_free) {
        world->first_free++;
    }
    const pdk_pose origin = {0.0, 0.0, 0.0};
    place(world, slot, def, &origin, 0.0, gear);
}

void pdk_world_spawn_like_(pdk_world *world, uint32_t slot, uint32_t like)
{
    slot_meta *meta = meta_of(world);
    PDK_ASSERT(slot < (uint32_t)world->capacity && !meta[slot].alive && meta[like].alive);
    if ((int32_t)slot == world->first_free) {
        world->first_free++;
    }
    /* What follows from the definition alone is like's. */
    defs_of(world)[slot] = defs_of(world)[like];
    meta[slot].def_at = meta[like].def_at;
    model_of(world, like)->spawn_like(world, slot, like);
    enter_live(world, slot, meta[like].model);
}

static pdk_error check_reset(const pdk_world *w, pdk_vehicle_id id, const pdk_pose *pose,
                             const char **why, int32_t *slot_out)
{
    *why = NULL;
    *slot_out = -1;
    if (w == NULL) {
        *why = "world is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(w, id);
    if (s < 0) {
        *why = "vehicle id is zero, stale (removed) or was never given out";
        return PDK_ERR_STALE_ID;
    }
    if (pose != NULL && (!within(pose->x_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M) ||
                         !within(pose->y_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M))) {
        *why = "pose x_m and y_m must be finite and within -1e7..1e7 m";
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (pose != NULL && !isfinite(pose->yaw_rad)) {
        *why = "pose yaw_rad must be finite";
        return PDK_ERR_OUT_OF_RANGE;
    }
    *slot_out = s;
    return PDK_OK;
}

const char *pdk_world_vehicle_reset_problem(const pdk_world *world, pdk_vehicle_id id,
                                            const pdk_pose *pose)
{
    const char *why;
    int32_t slot;
    (void)check_reset(world, id, pose, &why, &slot);
    return why;
}

pdk_error pdk_world_vehicle_reset(pdk_world *world, pdk_vehicle_id id, const pdk_pose *pose)
{
    const char *why;
    int32_t s;
    pdk_error err = check_reset(world, id, pose, &why, &s);
    if (err != PDK_OK) {
        return err;
    }
    const uint32_t slot = (uint32_t)s;
    const pdk_model_ops *model = model_of(world, slot);
    pdk_pose at;
    if (pose != NULL) {
        at = *pose;
    } else {
        /* Where it is: a faulted vehicle's pose is finite (the fault keeps
         * the tick's start, or 0 for what was not). */
        pdk_vehicle_pose now;
        model->pose(world, slot, &now);
        at = (pdk_pose){now.x_m, now.y_m, now.yaw_rad};
        if (!within(at.x_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M) ||
            !within(at.y_m, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M) ||
            !isfinite(at.yaw_rad)) {
            at = (pdk_pose){0.0, 0.0, 0.0};
        }
    }
    if (model->faulted(world, slot) != 0u) {
        world->faulted--;
    }
    model->reset(world, slot, &at);
    return PDK_OK;
}

/* Slot's vehicle goes: the others that read their definition from its
 * defs entry (which the next spawn there overwrites) read it from the last
 * of them instead, each an equal copy. The last, so that removing a fleet
 * in id order (pdk_world_reset) hands the copy on once, not at every
 * vehicle. */
static void share_def_elsewhere(pdk_world *world, uint32_t slot)
{
    slot_meta *meta = meta_of(world);
    if (meta[slot].def_at != slot) {
        return;
    }
    const uint32_t *live = live_of(world);
    uint32_t heir = slot;
    for (int32_t i = world->count - 1; i >= 0 && heir == slot; i--) {
        if (live[i] != slot && meta[live[i]].def_at == slot) {
            heir = live[i];
        }
    }
    if (heir == slot) {
        return;
    }
    for (int32_t i = 0; i < world->count; i++) {
        if (meta[live[i]].def_at == slot) {
            meta[live[i]].def_at = heir;
        }
    }
    meta[slot].def_at = slot;
}

pdk_error pdk_world_remove(pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    uint32_t slot = (uint32_t)s;
    slot_meta *m = &meta_of(world)[slot];
    if (faulted_of(world, slot)) {
        world->faulted--;
    }
    model_of(world, slot)->remove(world, slot);
    world->model_count[m->model]--;
    share_def_elsewhere(world, slot);
    m->shared = 0u;
    m->alive = 0u;
    m->model = 0u;
    m->generation = (m->generation + 1u) & PDK_WORLD_SLOT_MASK;
    if (s >= world->generation_top) {
        world->generation_top = s + 1;
    }
    memset(&dbw_of(world)[slot], 0, sizeof(pdk_dbw_state));
    memset(&driver_of(world)[slot], 0, sizeof(pdk_dbw_cmd));
    memset(channels_of(world, slot), 0, sizeof(double) * (size_t)PDK_CH_COUNT);
    memset(wheel_angle_of(world, slot), 0, sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
    if (s < world->first_free) {
        world->first_free = s;
    }

    uint32_t *live = live_of(world);
    int32_t at = 0;
    while (at < world->count && live[at] != slot) {
        at++;
    }
    PDK_ASSERT(at < world->count);
    memmove(&live[at], &live[at + 1], sizeof(uint32_t) * (size_t)(world->count - at - 1));
    world->count--;
    return PDK_OK;
}

pdk_error pdk_world_reseed(pdk_world *world, uint64_t seed)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    world->def.seed = seed;
    pdk_prng_seed(&world->prng, seed);
    return PDK_OK;
}

pdk_error pdk_world_reset(pdk_world *world)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    /* The lowest live slot each time: id order, and the list shrinks from
     * its front. */
    while (world->count > 0) {
        uint32_t slot = live_of(world)[0];
        pdk_error err = pdk_world_remove(world, make_id(slot, meta_of(world)[slot].generation));
        PDK_ASSERT(err == PDK_OK);
    }
    pdk_prng_seed(&world->prng, world->def.seed);
    return PDK_OK;
}

static pdk_error check_command(const pdk_world *w, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                               const char **why, int32_t *slot_out)
{
    *why = NULL;
    *slot_out = -1;
    if (w == NULL || cmd == NULL) {
        *why = w == NULL ? "world is NULL" : "command is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(w, id);
    if (s < 0) {
        *why = "vehicle id is zero, stale (removed) or was never given out";
        return PDK_ERR_STALE_ID;
    }
    if ((cmd->fields & ~(uint32_t)ALL_FIELDS) != 0u) {
        *why =
            "fields has bits other than PDK_DBW_THROTTLE, _BRAKE, _STEER, _GEAR and _GEAR_NUMBER";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *why = pdk_vehicle_def_command_problem(&defs_of(w)[s], cmd);
    if (*why != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    *slot_out = s;
    return PDK_OK;
}

const char *pdk_world_command_problem(const pdk_world *world, pdk_vehicle_id id,
                                      const pdk_dbw_cmd *cmd)
{
    const char *why;
    int32_t slot;
    (void)check_command(world, id, cmd, &why, &slot);
    return why;
}

pdk_error pdk_world_command(pdk_world *world, pdk_vehicle_id id, const pdk_dbw_cmd *cmd)
{
    const char *why;
    int32_t s;
    pdk_error err = check_command(world, id, cmd, &why, &s);
    if (err != PDK_OK) {
        return err;
    }
    const pdk_model_ops *model = model_of(world, (uint32_t)s);
    pdk_dbw_cmd c = {.fields = cmd->fields, .gear_number = cmd->gear_number};
    model->held(world, (uint32_t)s, &c);
    if (cmd->fields & PDK_DBW_THROTTLE) {
        c.throttle_pct = cmd->throttle_pct;
    }
    if (cmd->fields & PDK_DBW_BRAKE) {
        c.brake_bar = cmd->brake_bar;
    }
    if (cmd->fields & PDK_DBW_STEER) {
        c.steer_wheel_deg = cmd->steer_wheel_deg;
    }
    if ((cmd->fields & PDK_DBW_GEAR) && cmd->gear != PDK_GEAR_NONE) {
        c.gear = cmd->gear;
    }
    model->command(world, (uint32_t)s, &c);
    /* The driver's controls, and what the kit makes of a driver acting. */
    pdk_dbw_cmd *driver = &driver_of(world)[s];
    pdk_dbw_cmd prev = *driver;
    driver->throttle_pct = c.throttle_pct;
    driver->brake_bar = c.brake_bar;
    driver->steer_wheel_deg = c.steer_wheel_deg;
    driver->gear = c.gear;
    if (cmd->fields & PDK_DBW_GEAR_NUMBER) {
        driver->gear_number = cmd->gear_number;
    }
    pdk_dbw_driver_input(&dbw_of(world)[s], &defs_of(world)[s].dbw, &prev, cmd, world->tick);
    return PDK_OK;
}

const char *pdk_world_dbw_problem(const pdk_world *world, pdk_vehicle_id id, const pdk_dbw_msg *msg)
{
    if (world == NULL || msg == NULL) {
        return world == NULL ? "world is NULL" : "message is NULL";
    }
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return "vehicle id is zero, stale (removed) or was never given out";
    }
    return pdk_dbw_msg_problem(msg, &defs_of(world)[s]);
}

pdk_error pdk_world_dbw(pdk_world *world, pdk_vehicle_id id, const pdk_dbw_msg *msg)
{
    if (world == NULL || msg == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    const pdk_vehicle_def *def = &defs_of(world)[s];
    pdk_error err = pdk_dbw_problem_error(pdk_dbw_msg_problem(msg, def));
    if (err != PDK_OK) {
        return err;
    }
    pdk_dbw_apply(&dbw_of(world)[s], &def->dbw, def, msg, &driver_of(world)[s], world->tick);
    const pdk_model_ops *model = model_of(world, (uint32_t)s);
    if (model->kit_message != NULL) {
        model->kit_message(world, (uint32_t)s, msg);
    }
    return PDK_OK;
}

const pdk_dbw_state *pdk_world_dbw_state(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = world == NULL ? -1 : slot_of(world, id);
    return s < 0 ? NULL : &dbw_of(world)[s];
}

/* Runs each spoken-to kit for the coming tick and sets the controls its
 * vehicle steps with. A kit never spoken to leaves the driver's. */
static void dbw_tick_all(pdk_world *world)
{
    const uint32_t *live = live_of(world);
    for (int32_t i = 0; i < world->count; i++) {
        uint32_t slot = live[i];
        pdk_dbw_state *dbw = &dbw_of(world)[slot];
        if (!dbw->touched || faulted_of(world, slot)) {
            continue;
        }
        const pdk_dbw_cmd *driver = &driver_of(world)[slot];
        const pdk_model_ops *model = model_of(world, slot);
        pdk_dbw_vehicle veh = model->kit_reading(world, slot);
        pdk_dbw_cmd c;
        const pdk_vehicle_def *def = step_def_of(world, slot);
        pdk_dbw_tick(dbw, &def->dbw, def, &veh, driver, world->tick, world->def.dt_s, &c);
        model->actuate(world, slot, &c, dbw->parking_brake == 1);
    }
}

pdk_error pdk_world_dbw_report(const pdk_world *world, pdk_vehicle_id id, pdk_dbw_report *out)
{
    if (world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    uint32_t slot = (uint32_t)s;
    const double *ch = channels_of(world, slot);
    const pdk_vehicle_def *def = &defs_of(world)[slot];
    pdk_dbw_truth tr = {
        .speed_mps = ch[PDK_CH_SPEED],
        .vx_mps = ch[PDK_CH_VEL_X],
        .vy_mps = ch[PDK_CH_VEL_Y],
        /* The IMU's specific force in the body frame: the Accel channels
         * are what an accelerometer reads already, gravity's reaction
         * included (+g along z at rest). */
        .ax_mps2 = ch[PDK_CH_ACCEL_X],
        .ay_mps2 = ch[PDK_CH_ACCEL_Y],
        .az_mps2 = ch[PDK_CH_ACCEL_Z],
        .roll_rate_radps = ch[PDK_CH_ROLL_RATE],
        .pitch_rate_radps = ch[PDK_CH_PITCH_RATE],
        .yaw_rate_radps = ch[PDK_CH_YAW_RATE],
        .x_m = ch[PDK_CH_POS_X],
        .y_m = ch[PDK_CH_POS_Y],
        .road_wheel_angle_rad = ch[PDK_CH_STEER_ANGLE],
        .gear = (int32_t)ch[PDK_CH_GEAR],
        .gear_number = (int32_t)ch[PDK_CH_GEAR_NUMBER],
        .powertrain_reject = (int32_t)ch[PDK_CH_GEAR_REJECT],
    };
    double brake_nm = 0.0;
    for (int w = 0; w < 4; w++) {
        tr.wheel_speed_radps[w] = ch[PDK_CH_WHEEL_SPEED_FL + w];
        brake_nm += ch[PDK_CH_BRAKE_TORQUE_FL + w];
    }
    if (def->powertrain.kind == PDK_POWERTRAIN_LUMPED) {
        brake_nm = ch[PDK_CH_BRAKE] * def->brake.force_per_bar_n * def->tyre_rear.soil.radius_m;
    }
    tr.brake_torque_nm = brake_nm;
    pdk_dbw_report_fill(&dbw_of(world)[slot], &def->dbw, def, &tr, &driver_of(world)[slot],
                        world->def.seed, id, world->tick, out);
    return PDK_OK;
}

static pdk_error check_tyre_input(const pdk_world *w, pdk_vehicle_id id, const pdk_tyre_input *in,
                                  const char **why, int32_t *slot_out)
{
    *why = NULL;
    *slot_out = -1;
    if (w == NULL || in == NULL) {
        *why = w == NULL ? "world is NULL" : "tyre input is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = slot_of(w, id);
    if (s < 0) {
        *why = "vehicle id is zero, stale (removed) or was never given out";
        return PDK_ERR_STALE_ID;
    }
    const pdk_model_ops *model = model_of(w, (uint32_t)s);
    if (model->tyre_input == NULL) {
        *why = model->tyre_refusal;
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (in->action < PDK_TYRE_PUNCTURE || in->action > PDK_TYRE_SET_POWER_SCALE) {
        *why = "action must be a tyre action: 1 puncture, 2 set condition, 3 replace, 4 set "
               "temperature, 5 set grip scale, 6 set power scale";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (in->action != PDK_TYRE_SET_POWER_SCALE && (in->wheel_mask == 0u || in->wheel_mask > 15u)) {
        *why = "wheel_mask must be within 1..15 (bit i for wheel i: FL 1, FR 2, RL 4, RR 8)";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *why = pdk_tyre_action_problem(in->action, in->value);
    if (*why != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    *slot_out = s;
    return PDK_OK;
}

const char *pdk_world_tyre_input_problem(const pdk_world *world, pdk_vehicle_id id,
                                         const pdk_tyre_input *in)
{
    const char *why;
    int32_t slot;
    (void)check_tyre_input(world, id, in, &why, &slot);
    return why;
}

pdk_error pdk_world_tyre_input(pdk_world *world, pdk_vehicle_id id, const pdk_tyre_input *in)
{
    const char *why;
    int32_t s;
    pdk_error err = check_tyre_input(world, id, in, &why, &s);
    if (err != PDK_OK) {
        return err;
    }
    model_of(world, (uint32_t)s)->tyre_input(world, (uint32_t)s, in);
    return PDK_OK;
}

/* A tick in its phases, in this order: the DBW kits hand their controls to
 * the actuators; the contact phase (world_contact.c) reads every body's
 * pose and velocity as the last tick left them and changes the velocities
 * (and the positions of bodies that overlap) of those that touch, through
 * each model's contact_push; each model steps its own vehicles, in groups
 * as wide as its lanes, and writes their telemetry in the same pass
 * (model.h, step), so that the channels a step writes are those of the
 * state it leaves, the contact's change included; the contact channels;
 * the proxies move on; the tick ends. Running the contact before the
 * models is the architecture's "models, then contact" with the contact of
 * one tick's end applied at the next tick's start: the same sequence, with
 * the channels consistent. Only the contact carries a force from one body
 * to another, so the order of the models changes no result. */
void pdk_world_step_begin(pdk_world *world)
{
    if (world == NULL) {
        return;
    }
    dbw_tick_all(world);
    pdk_world_contact_phase_(world);
}

int pdk_world_step_slice(pdk_world *world, int first, int n)
{
    if (world == NULL || first < 0 || n <= 0 || first >= world->count || n > world->count - first) {
        return 0;
    }
    /* Each model steps the slice's vehicles of its kind: the list is read
     * only, and each vehicle's state, channels and wheel angles are its
     * own (the contact phase wrote what the bodies did to each other). */
    const uint32_t *live = live_of(world) + first;
    int faults = 0;
    for (int m = 0; m < PDK_MODEL_COUNT; m++) {
        const pdk_model_ops *model = pdk_models[m];
        if (world->model_count[model->kind] > 0) {
            faults += model->step(world, live, n);
        }
    }
    return faults;
}

void pdk_world_step_end(pdk_world *world, int faults)
{
    if (world == NULL) {
        return;
    }
    world->faulted += faults;
    if (!world->telemetry_off) {
        pdk_world_contact_channels_(world);
    }
    pdk_world_proxies_move_(world);
    world->tick++;
}

void pdk_world_step(pdk_world *world)
{
    if (world == NULL) {
        return;
    }
    pdk_world_step_begin(world);
    int faults = pdk_world_step_slice(world, 0, world->count);
    pdk_world_step_end(world, faults);
}

void pdk_world_set_telemetry(pdk_world *world, int on)
{
    if (world != NULL) {
        world->telemetry_off = !on;
    }
}

int pdk_world_tyre_sets(const pdk_world *world)
{
    if (world == NULL) {
        return 0;
    }
    int n = 0;
    for (int m = 0; m < PDK_MODEL_COUNT; m++) {
        if (pdk_models[m]->tyre_sets != NULL) {
            n += pdk_models[m]->tyre_sets(world);
        }
    }
    return n;
}

int pdk_world_vehicle_count(const pdk_world *world)
{
    return world == NULL ? 0 : (int)world->count;
}

pdk_vehicle_id pdk_world_vehicle_at(const pdk_world *world, int i)
{
    if (world == NULL || i < 0 || i >= world->count) {
        return 0;
    }
    uint32_t slot = live_of(world)[i];
    return make_id(slot, meta_of(world)[slot].generation);
}

pdk_error pdk_world_vehicle_pose(const pdk_world *world, pdk_vehicle_id id, pdk_vehicle_pose *out)
{
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    if (out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    out->id = id;
    model_of(world, (uint32_t)s)->pose(world, (uint32_t)s, out);
    out->faulted = (int)faulted_of(world, (uint32_t)s);
    return PDK_OK;
}

const double *pdk_world_channels(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    return s < 0 ? NULL : channels_of(world, (uint32_t)s);
}

int pdk_world_vehicle_faulted(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    return s >= 0 && faulted_of(world, (uint32_t)s) != 0u;
}

const pdk_vehicle_def *pdk_world_vehicle_def(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    return s < 0 ? NULL : &defs_of(world)[s];
}

/* The state hash runs the wide hash (hash.h pdk_hash4) over every live
 * vehicle's fields, four words at a time, so that a session can afford to
 * record it every tick (docs/adr/0012). Which field sits in which lane is
 * fixed by world_internal.h (a vehicle's id and DBW kit) and by each
 * model's hash (its state and held command); the values are fed, never
 * struct bytes. The world's part down to pdk_world_hash_build is always
 * inlined, and each model hashes a run of its vehicles in a build per
 * instruction set (PDK_MODEL_HASH_BUILDS), so that each build of the hash
 * (baseline, AVX2, AVX-512; docs/adr/0014) runs all of it for its
 * processor. */
uint64_t pdk_world_vehicle_hash(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return 0u;
    }
    pdk_hash4 h = pdk_hash4_init(PDK_HASH_INIT);
    const uint32_t slot = (uint32_t)s;
    model_of(world, slot)->hash[PDK_FW_BUILD_BASELINE](&h, world, &slot, 1);
    return pdk_hash_finish(pdk_hash4_fold(PDK_HASH_INIT, &h));
}

PDK_HASH_INLINE uint64_t world_hash(const pdk_world *world, pdk_fw_build build)
{
    /* The tick, the vehicle count and the PRNG go into the wide hash with
     * the vehicles: a serial word costs a chain of dependent multiplies,
     * which for a lone car would be most of its hash. */
    const uint32_t *live = live_of(world);
    const slot_meta *meta = meta_of(world);
    pdk_hash4 wide = pdk_hash4_init(PDK_HASH_INIT);
    pdk_hash4_take(&wide, world->tick, (uint64_t)world->count, 0u, 0u);
    pdk_hash4_take(&wide, world->prng.s[0], world->prng.s[1], world->prng.s[2], world->prng.s[3]);
    /* Each run of vehicles of one model in id order goes to that model's
     * hash in one call: a fleet of one model is one call, found without
     * reading every slot's model. */
    for (int32_t i = 0; i < world->count;) {
        const uint32_t kind = meta[live[i]].model;
        int32_t end = world->model_count[kind] == world->count ? world->count : i + 1;
        while (end < world->count && meta[live[end]].model == kind) {
            end++;
        }
        pdk_model_ops_of(kind)->hash[build](&wide, world, &live[i], end - i);
        i = end;
    }
    uint64_t h = pdk_hash4_fold(PDK_HASH_INIT, &wide);
    /* Free slots' generations decide the ids given out next, so they are
     * state too (a fresh slot's generation is zero and adds nothing). */
    for (int32_t s = 0; s < world->generation_top; s++) {
        if (!meta[s].alive && meta[s].generation != 0u) {
            h = pdk_hash_u64(h, ((uint64_t)(uint32_t)s << 32) | meta[s].generation);
        }
    }
    h = pdk_world_proxy_hash_(world, h);
    return pdk_hash_finish(h);
}

/* The builds of world_hash: the same integer operations in the same order,
 * so the same bits; the AVX-512 one takes a lane step as one rotate and one
 * add (vprolq, vpaddq) and a wheel array as one load. */
static uint64_t world_hash_baseline(const pdk_world *world)
{
    return world_hash(world, PDK_FW_BUILD_BASELINE);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_HASH_BUILDS 1
__attribute__((target("avx2"))) static uint64_t world_hash_avx2(const pdk_world *world)
{
    return world_hash(world, PDK_FW_BUILD_AVX2);
}

__attribute__((target("avx2,avx512f,avx512vl"))) static uint64_t
world_hash_avx512(const pdk_world *world)
{
    return world_hash(world, PDK_FW_BUILD_AVX512);
}
#else
#define HAVE_HASH_BUILDS 0
#endif

uint64_t pdk_world_hash_build(const pdk_world *world, pdk_fw_build build)
{
    if (world == NULL) {
        return 0u;
    }
#if HAVE_HASH_BUILDS
    switch (pdk_fw_build_resolve(build)) {
    case PDK_FW_BUILD_AVX512:
        return world_hash_avx512(world);
    case PDK_FW_BUILD_AVX2:
        return world_hash_avx2(world);
    default:
        break;
    }
#else
    (void)build;
#endif
    return world_hash_baseline(world);
}

uint64_t pdk_world_hash(const pdk_world *world)
{
    return pdk_world_hash_build(world, PDK_FW_BUILD_BEST);
}
