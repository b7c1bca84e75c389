/* The world: its memory layout inside the caller's buffer, vehicle ids and
 * slots, commands, the tick loop and the state hash. The physics of one
 * vehicle lives in single_track.c and four_wheel.c; a slot's meta says which
 * model steps it, and each model keeps its own arrays. The header and the
 * array views are world_internal.h's, shared with world_snapshot.c. */
#include "sim/world.h"

#include <math.h>
#include <string.h>

#include "dbw/dbw_hash.h"
#include "ground/surface.h"
#include "ground/terrain.h"
#include "math/hash.h"
#include "math/prng.h"
#include "math/trig.h"
#include "tyre/tyre_life.h"
#include "vehicle/four_wheel.h"
#include "vehicle/single_track.h"
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
    size_t live, meta, st_state, st_cmd, st_params, fw_state, fw_cmd, fw_consts, tyres, tyre_refs,
        channels, defs, dbw, driver, total;
} layout;

static size_t round_up(size_t v)
{
    return (v + (WORLD_ALIGN - 1u)) & ~(size_t)(WORLD_ALIGN - 1u);
}

static layout layout_of(int max_vehicles)
{
    size_t n = (size_t)max_vehicles;
    layout l;
    size_t off = round_up(sizeof(pdk_world));
    l.live = off;
    off = round_up(off + n * sizeof(uint32_t));
    l.meta = off;
    off = round_up(off + n * sizeof(slot_meta));
    l.st_state = off;
    off = round_up(off + n * sizeof(pdk_st_state));
    l.st_cmd = off;
    off = round_up(off + n * sizeof(pdk_st_cmd));
    l.st_params = off;
    off = round_up(off + n * sizeof(pdk_st_params));
    l.fw_state = off;
    off = round_up(off + n * sizeof(pdk_fw_state));
    l.fw_cmd = off;
    off = round_up(off + n * sizeof(pdk_fw_cmd));
    l.fw_consts = off;
    off = round_up(off + n * sizeof(pdk_fw_consts));
    l.tyres = off;
    off = round_up(off + n * sizeof(pdk_tyre_consts4));
    l.tyre_refs = off;
    off = round_up(off + n * sizeof(uint32_t));
    l.channels = off;
    off = round_up(off + n * sizeof(double) * (size_t)PDK_CH_COUNT);
    l.defs = off;
    off = round_up(off + n * sizeof(pdk_vehicle_def));
    l.dbw = off;
    off = round_up(off + n * sizeof(pdk_dbw_state));
    l.driver = off;
    off = round_up(off + n * sizeof(pdk_dbw_cmd));
    l.total = off;
    return l;
}

/* The entry of tyres holding c, shared (its count of users raised) where
 * one holds the same constants, else a free one filled with them. There is
 * always a free one: the array has an entry per slot. The constants have no
 * padding (tyre_lanes.h: 32-bit words in a pair, then 64-bit arrays) and
 * pdk_tyre_consts4_init writes every field, so equal definitions give equal
 * bytes. */
static uint32_t tyre_entry(pdk_world *w, const pdk_tyre_consts4 *c)
{
    pdk_tyre_consts4 *t = tyres_of(w);
    uint32_t *refs = tyre_refs_of(w);
    int32_t free_at = -1;
    for (int32_t i = 0; i < w->capacity; i++) {
        if (refs[i] == 0u) {
            free_at = free_at < 0 ? i : free_at;
        } else if (memcmp(&t[i], c, sizeof *c) == 0) {
            refs[i]++;
            return (uint32_t)i;
        }
    }
    PDK_ASSERT(free_at >= 0);
    t[free_at] = *c;
    refs[free_at] = 1u;
    return (uint32_t)free_at;
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

pdk_error pdk_world_init(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out)
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
    memset(mem, 0, l.total);
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
    w->off_st_state = l.st_state;
    w->off_st_cmd = l.st_cmd;
    w->off_st_params = l.st_params;
    w->off_fw_state = l.fw_state;
    w->off_fw_cmd = l.fw_cmd;
    w->off_fw_consts = l.fw_consts;
    w->off_tyres = l.tyres;
    w->off_tyre_refs = l.tyre_refs;
    w->off_channels = l.channels;
    w->off_defs = l.defs;
    w->off_dbw = l.dbw;
    w->off_driver = l.driver;
    w->bytes = l.total;
    *out = w;
    return PDK_OK;
}

const pdk_world_def *pdk_world_def_get(const pdk_world *world)
{
    return world == NULL ? NULL : &world->def;
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

/* A single-track vehicle's per-wheel channels, from its axle channels: each
 * tyre carries half its axle's load and force at the axle's slip angle and
 * steers with the bicycle angle, and its strut carries its load. The planar
 * model has no travel, roll, pitch, toe, camber or links: those channels
 * stay 0, and it rides at its CG height. */
static void planar_wheel_channels(double *ch)
{
    static const int load[2] = {PDK_CH_TYRE_LOAD_F, PDK_CH_TYRE_LOAD_R};
    static const int slip[2] = {PDK_CH_SLIP_ANGLE_F, PDK_CH_SLIP_ANGLE_R};
    static const int fx[2] = {PDK_CH_FORCE_X_F, PDK_CH_FORCE_X_R};
    static const int fy[2] = {PDK_CH_FORCE_Y_F, PDK_CH_FORCE_Y_R};
    for (int w = 0; w < PDK_WHEELS; w++) {
        int axle = w / 2;
        ch[PDK_CH_TYRE_LOAD_FL + w] = 0.5 * ch[load[axle]];
        ch[PDK_CH_SLIP_ANGLE_FL + w] = ch[slip[axle]];
        ch[PDK_CH_FORCE_X_FL + w] = 0.5 * ch[fx[axle]];
        ch[PDK_CH_FORCE_Y_FL + w] = 0.5 * ch[fy[axle]];
        ch[PDK_CH_SUSP_FORCE_FL + w] = 0.5 * ch[load[axle]];
        ch[PDK_CH_WHEEL_STEER_FL + w] = axle == 0 ? ch[PDK_CH_STEER_ANGLE] : 0.0;
    }
}

/* Steps single-track vehicles together and derives their per-wheel channels. */
static int step_planar(pdk_st_state *const *st, const pdk_st_cmd *const *cm,
                       const pdk_st_params *const *pa, double *const *ch, int n, int substeps)
{
    int faults = pdk_st_step_batch(st, cm, pa, ch, n, substeps);
    for (int k = 0; k < n; k++) {
        planar_wheel_channels(ch[k]);
    }
    return faults;
}

static void enter_live(pdk_world *world, uint32_t slot, uint32_t model);

/* Sets a free slot up for def at pose (spawn's checks passed) and enters it
 * in the live list; first_free is the caller's. */
static void place(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, const pdk_pose *pose,
                  double speed_mps, pdk_gear gear)
{
    slot_meta *meta = meta_of(world);
    const pdk_world_def *wd = &world->def;
    defs_of(world)[slot] = *def;
    memset(channels_of(world, slot), 0, sizeof(double) * (size_t)PDK_CH_COUNT);
    if (def->model == PDK_MODEL_FOUR_WHEEL) {
        /* The whole constants on the stack; the world keeps their hot part
         * (the curves stay in defs). A fleet of one preset: the vehicle
         * placed last (the highest live slot) from the same definition
         * lends its tyres' peak slips. */
        const pdk_fw_consts *same = NULL;
        if (world->count > 0) {
            uint32_t prev = live_of(world)[world->count - 1];
            if (meta[prev].model == PDK_MODEL_FOUR_WHEEL &&
                memcmp(&defs_of(world)[prev], def, sizeof *def) == 0) {
                same = &fw_consts_of(world)[prev];
            }
        }
        pdk_fw_params p;
        pdk_fw_params_init_like(&p, def, world->substep_s, wd->gravity_mps2, wd->air_density_kgpm3,
                                wd->surface_friction, same);
        fw_consts_of(world)[slot] = p.c;
        meta[slot].tyre = tyre_entry(world, &p.tyre);
        pdk_fw_state_init(&fw_state_of(world)[slot], &p, &wd->terrain, pose, speed_mps);
        pdk_fw_powertrain_init(&fw_state_of(world)[slot], &def->powertrain, gear, speed_mps,
                               p.c.radius_m[PDK_RL]);
        pdk_fw_cmd_set(&fw_cmd_of(world)[slot], def, 0.0, 0.0, 0.0, gear);
        fw_cmd_of(world)[slot].gear_number = 0; /* a manual box keeps its spawn gear */
        fw_cmd_of(world)[slot].park_brake = 0;
    } else {
        /* The single-track model has no wheels to find the ground under:
         * it takes the base surface's peak friction relative to the
         * reference (surface.h), so that a wet world is wet for it too. */
        const pdk_surface *base = pdk_surface_get(wd->terrain.base_surface_id);
        const pdk_surface *ref = pdk_surface_get(PDK_SURFACE_TARMAC);
        double ground = base && ref ? base->mu_peak / ref->mu_peak : 1.0;
        pdk_st_params_init(&st_params_of(world)[slot], def, world->substep_s, wd->gravity_mps2,
                           wd->air_density_kgpm3, wd->surface_friction * ground);
        pdk_st_state_init(&st_state_of(world)[slot], pose, speed_mps);
        pdk_st_cmd_set(&st_cmd_of(world)[slot], def, 0.0, 0.0, 0.0, gear);
    }
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
    /* What follows from the definition alone is like's: the same
     * definition gives the same constants (pdk_fw_params_init and
     * pdk_st_params_init are pure), and the tyre set is shared. */
    defs_of(world)[slot] = defs_of(world)[like];
    if (meta[like].model == PDK_MODEL_FOUR_WHEEL) {
        fw_consts_of(world)[slot] = fw_consts_of(world)[like];
        meta[slot].tyre = meta[like].tyre;
        tyre_refs_of(world)[meta[slot].tyre]++;
    } else {
        st_params_of(world)[slot] = st_params_of(world)[like];
    }
    enter_live(world, slot, meta[like].model);
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
    if (is_four_wheel(world, slot)) {
        tyre_refs_of(world)[m->tyre]--;
        m->tyre = 0u;
    }
    m->alive = 0u;
    m->model = 0u;
    m->generation = (m->generation + 1u) & PDK_WORLD_SLOT_MASK;
    if (s >= world->generation_top) {
        world->generation_top = s + 1;
    }
    memset(&st_state_of(world)[slot], 0, sizeof(pdk_st_state));
    memset(&st_cmd_of(world)[slot], 0, sizeof(pdk_st_cmd));
    memset(&fw_state_of(world)[slot], 0, sizeof(pdk_fw_state));
    memset(&fw_cmd_of(world)[slot], 0, sizeof(pdk_fw_cmd));
    memset(&dbw_of(world)[slot], 0, sizeof(pdk_dbw_state));
    memset(&driver_of(world)[slot], 0, sizeof(pdk_dbw_cmd));
    memset(channels_of(world, slot), 0, sizeof(double) * (size_t)PDK_CH_COUNT);
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
    const pdk_vehicle_def *def = &defs_of(w)[s];
    if ((cmd->fields & PDK_DBW_THROTTLE) && !within(cmd->throttle_pct, 0.0, 100.0)) {
        *why = "throttle_pct must be within 0..100";
    } else if ((cmd->fields & PDK_DBW_BRAKE) &&
               !within(cmd->brake_bar, 0.0, def->brake.max_line_bar)) {
        *why = "brake_bar must be within 0..brake.max_line_bar of the vehicle";
    } else if ((cmd->fields & PDK_DBW_STEER) &&
               !within(cmd->steer_wheel_deg, -def->steering.lock_deg, def->steering.lock_deg)) {
        *why = "steer_wheel_deg must be within -steering.lock_deg..+steering.lock_deg";
    } else if ((cmd->fields & PDK_DBW_GEAR) && cmd->gear != PDK_GEAR_NONE &&
               (cmd->gear < PDK_GEAR_PARK || cmd->gear > PDK_GEAR_LOW)) {
        *why = "gear must be NONE (no change) or one of PARK, REVERSE, NEUTRAL, DRIVE, LOW";
    } else if ((cmd->fields & PDK_DBW_GEAR_NUMBER) &&
               (def->powertrain.kind != PDK_POWERTRAIN_GEARED ||
                def->powertrain.geared.shift != PDK_SHIFT_MANUAL)) {
        *why = "gear_number applies only to a vehicle with a manual gearbox "
               "(transmission.shift manual)";
    } else if ((cmd->fields & PDK_DBW_GEAR_NUMBER) &&
               (cmd->gear_number < 1 || cmd->gear_number > def->powertrain.geared.n_gears)) {
        *why = "gear_number must be within 1..the vehicle's forward gears (transmission.ratios)";
    }
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
    pdk_fw_cmd *held_fw = &fw_cmd_of(world)[s];
    pdk_st_cmd *held_st = &st_cmd_of(world)[s];
    int fw = is_four_wheel(world, (uint32_t)s);
    double throttle = fw ? held_fw->throttle_pct : held_st->throttle_pct;
    double brake = fw ? held_fw->brake_bar : held_st->brake_bar;
    double steer = fw ? held_fw->steer_wheel_deg : held_st->steer_wheel_deg;
    pdk_gear gear = (pdk_gear)(fw ? held_fw->gear : held_st->gear);
    if (cmd->fields & PDK_DBW_THROTTLE) {
        throttle = cmd->throttle_pct;
    }
    if (cmd->fields & PDK_DBW_BRAKE) {
        brake = cmd->brake_bar;
    }
    if (cmd->fields & PDK_DBW_STEER) {
        steer = cmd->steer_wheel_deg;
    }
    if ((cmd->fields & PDK_DBW_GEAR) && cmd->gear != PDK_GEAR_NONE) {
        gear = cmd->gear;
    }
    if (fw) {
        pdk_fw_cmd_set(held_fw, &defs_of(world)[s], throttle, brake, steer, gear);
        if (cmd->fields & PDK_DBW_GEAR_NUMBER) {
            held_fw->gear_number = cmd->gear_number;
        }
    } else {
        pdk_st_cmd_set(held_st, &defs_of(world)[s], throttle, brake, steer, gear);
    }
    /* The driver's controls, and what the kit makes of a driver acting. */
    pdk_dbw_cmd *driver = &driver_of(world)[s];
    pdk_dbw_cmd prev = *driver;
    driver->throttle_pct = throttle;
    driver->brake_bar = brake;
    driver->steer_wheel_deg = steer;
    driver->gear = gear;
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
    if (msg->kind == PDK_DBW_MSG_DRIVE_MODE && is_four_wheel(world, (uint32_t)s)) {
        /* The switch is the vehicle's: the kit only moves it. */
        fw_state_of(world)[s].pt.drive_mode = msg->u.value;
    }
    return PDK_OK;
}

const pdk_dbw_state *pdk_world_dbw_state(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = world == NULL ? -1 : slot_of(world, id);
    return s < 0 ? NULL : &dbw_of(world)[s];
}

/* What the kit reads of its vehicle: its state now (at spawn too, before
 * any step has written channels). */
static pdk_dbw_vehicle dbw_vehicle_of(const pdk_world *w, uint32_t slot)
{
    pdk_dbw_vehicle v;
    if (is_four_wheel(w, slot)) {
        const pdk_fw_state *fw = &fw_state_of(w)[slot];
        double vb[3];
        pdk_fw_body_velocity(fw, vb);
        v.speed_mps = vb[0];
        v.ax_mps2 = fw->accel_mps2[0];
        v.ay_mps2 = fw->accel_mps2[1];
    } else {
        const pdk_st_state *st = &st_state_of(w)[slot];
        v.speed_mps = st->vx_mps;
        v.ax_mps2 = st->ax_mps2;
        v.ay_mps2 = st->ay_mps2;
    }
    return v;
}

/* The parking brake a MiscCmd sets on: a Coulomb hold on the rear wheels
 * added to the service brakes' (a geared car's handbrake torque; where a
 * definition has no parking brake of its own, its park pawl's capacity
 * stands for it). It goes through ABS as an electric parking brake applied
 * at speed does. */
static void parking_brake_on(pdk_fw_cmd *fc, const pdk_vehicle_def *def)
{
    const pdk_powertrain_def *pt = &def->powertrain;
    if (pt->kind == PDK_POWERTRAIN_LUMPED) {
        fc->hold_n[PDK_RL] += 0.5 * def->brake.park_hold_force_n;
        fc->hold_n[PDK_RR] += 0.5 * def->brake.park_hold_force_n;
        return;
    }
    double nm = pt->kind == PDK_POWERTRAIN_GEARED ? pt->geared.handbrake_nm
                                                  : 0.5 * pt->gearbox.park_hold_nm;
    fc->brake_nm[PDK_RL] += nm;
    fc->brake_nm[PDK_RR] += nm;
}

/* Runs each spoken-to kit for the coming tick and sets the controls its
 * vehicle steps with. A kit never spoken to leaves the driver's. */
static void dbw_tick_all(pdk_world *world)
{
    const uint32_t *live = live_of(world);
    const pdk_vehicle_def *defs = defs_of(world);
    for (int32_t i = 0; i < world->count; i++) {
        uint32_t slot = live[i];
        pdk_dbw_state *dbw = &dbw_of(world)[slot];
        if (!dbw->touched || faulted_of(world, slot)) {
            continue;
        }
        const pdk_dbw_cmd *driver = &driver_of(world)[slot];
        pdk_dbw_vehicle veh = dbw_vehicle_of(world, slot);
        pdk_dbw_cmd c;
        pdk_dbw_tick(dbw, &defs[slot].dbw, &defs[slot], &veh, driver, world->tick, world->def.dt_s,
                     &c);
        if (is_four_wheel(world, slot)) {
            pdk_fw_cmd *fc = &fw_cmd_of(world)[slot];
            int32_t park = dbw->parking_brake == 1;
            if (fc->throttle_pct == c.throttle_pct && fc->brake_bar == c.brake_bar &&
                fc->steer_wheel_deg == c.steer_wheel_deg && fc->gear == (int32_t)c.gear &&
                fc->park_brake == park) {
                continue; /* held: its derived part is already these controls' */
            }
            int32_t number = fc->gear_number;
            pdk_fw_cmd_set(fc, &defs[slot], c.throttle_pct, c.brake_bar, c.steer_wheel_deg, c.gear);
            fc->gear_number = number;
            fc->park_brake = park;
            if (park) {
                parking_brake_on(fc, &defs[slot]);
            }
        } else {
            pdk_st_cmd_set(&st_cmd_of(world)[slot], &defs[slot], c.throttle_pct, c.brake_bar,
                           c.steer_wheel_deg, c.gear);
        }
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
    double g = world->def.gravity_mps2;
    double sr, cr, sp, cp;
    pdk_trig_sincos(ch[PDK_CH_ROLL], &sr, &cr);
    pdk_trig_sincos(ch[PDK_CH_PITCH], &sp, &cp);
    pdk_dbw_truth tr = {
        .speed_mps = ch[PDK_CH_SPEED],
        .vx_mps = ch[PDK_CH_VEL_X],
        .vy_mps = ch[PDK_CH_VEL_Y],
        /* Specific force in the body frame: the acceleration less gravity
         * ((0, 0, -g) in the world, pitch positive nose down, roll positive
         * right side down). */
        .ax_mps2 = ch[PDK_CH_ACCEL_X] - g * sp,
        .ay_mps2 = ch[PDK_CH_ACCEL_Y] + g * cp * sr,
        .az_mps2 = ch[PDK_CH_ACCEL_Z] + g * cp * cr,
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
    if (!is_four_wheel(w, (uint32_t)s)) {
        *why = "tyre inputs apply to four-wheel vehicles only (this one runs the single-track "
               "model)";
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
    const pdk_vehicle_def *def = &defs_of(world)[s];
    pdk_fw_tyre_action(&fw_state_of(world)[s], def, in->wheel_mask, in->action, in->value,
                       world->def.terrain.air_temp_c);
    return PDK_OK;
}

void pdk_world_step(pdk_world *world)
{
    if (world == NULL) {
        return;
    }
    dbw_tick_all(world);
    const uint32_t *live = live_of(world);
    pdk_st_state *st_states = st_state_of(world);
    const pdk_st_cmd *st_cmds = st_cmd_of(world);
    const pdk_st_params *st_params = st_params_of(world);
    pdk_fw_state *fw_states = fw_state_of(world);
    const pdk_fw_cmd *fw_cmds = fw_cmd_of(world);
    const pdk_fw_consts *fw_consts = fw_consts_of(world);
    const pdk_tyre_consts4 *tyres = tyres_of(world);
    const slot_meta *meta = meta_of(world);
    const pdk_vehicle_def *defs = defs_of(world);
    const int substeps = world->def.substeps;
    const pdk_terrain_def *terrain = &world->def.terrain;
    /* Vehicles do not interact, so the order changes no result. Single-track
     * vehicles go PDK_ST_BATCH at a time, four-wheel ones PDK_FW_BATCH at a
     * time (batching changes no result either), each with the definition it
     * was spawned from (its curves, its tyres' life and soil parameters).
     * Faulted vehicles stay where they are. */
    pdk_st_state *st[PDK_ST_BATCH];
    const pdk_st_cmd *cm[PDK_ST_BATCH];
    const pdk_st_params *pa[PDK_ST_BATCH];
    double *ch[PDK_ST_BATCH];
    pdk_fw_state *fs[PDK_FW_BATCH];
    const pdk_fw_cmd *fc[PDK_FW_BATCH];
    const pdk_fw_consts *fk[PDK_FW_BATCH];
    const pdk_tyre_consts4 *ft[PDK_FW_BATCH];
    const pdk_vehicle_def *fd[PDK_FW_BATCH];
    double *fch[PDK_FW_BATCH];
    int faults = 0;
    int n = 0;
    int nf = 0;
    for (int32_t i = 0; i < world->count; i++) {
        uint32_t slot = live[i];
        if (faulted_of(world, slot)) {
            continue;
        }
        if (is_four_wheel(world, slot)) {
            fs[nf] = &fw_states[slot];
            fc[nf] = &fw_cmds[slot];
            fk[nf] = &fw_consts[slot];
            ft[nf] = &tyres[meta[slot].tyre];
            fd[nf] = &defs[slot];
            fch[nf] = world->telemetry_off ? NULL : channels_of(world, slot);
            if (++nf == PDK_FW_BATCH) {
                faults += pdk_fw_step_batch(fs, fc, fk, ft, fd, fch, nf, terrain, substeps);
                nf = 0;
            }
            continue;
        }
        st[n] = &st_states[slot];
        cm[n] = &st_cmds[slot];
        pa[n] = &st_params[slot];
        ch[n] = channels_of(world, slot);
        if (++n == PDK_ST_BATCH) {
            faults += step_planar(st, cm, pa, ch, n, substeps);
            n = 0;
        }
    }
    if (nf > 0) {
        faults += pdk_fw_step_batch(fs, fc, fk, ft, fd, fch, nf, terrain, substeps);
    }
    if (n > 0) {
        faults += step_planar(st, cm, pa, ch, n, substeps);
    }
    world->faulted += faults;
    world->tick++;
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
    const uint32_t *refs = tyre_refs_of(world);
    int n = 0;
    for (int32_t i = 0; i < world->capacity; i++) {
        n += refs[i] != 0u;
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
    if (is_four_wheel(world, (uint32_t)s)) {
        const pdk_fw_state *fw = &fw_state_of(world)[s];
        double vb[3];
        pdk_fw_body_velocity(fw, vb);
        out->x_m = fw->pos_m[0];
        out->y_m = fw->pos_m[1];
        out->z_m = fw->pos_m[2];
        pdk_fw_euler(fw->quat, &out->yaw_rad, &out->pitch_rad, &out->roll_rad);
        out->vx_mps = vb[0];
        out->vy_mps = vb[1];
        out->vz_mps = fw->vel_mps[2];
        out->roll_rate_radps = fw->omega_radps[0];
        out->pitch_rate_radps = fw->omega_radps[1];
        out->yaw_rate_radps = fw->omega_radps[2];
        out->steer_angle_rad = fw_cmd_of(world)[s].steer_rad;
        out->speed_mps = sqrt(fw->vel_mps[0] * fw->vel_mps[0] + fw->vel_mps[1] * fw->vel_mps[1]);
        out->ax_mps2 = fw->accel_mps2[0];
        out->ay_mps2 = fw->accel_mps2[1];
    } else {
        const pdk_st_state *st = &st_state_of(world)[s];
        out->x_m = st->x_m;
        out->y_m = st->y_m;
        out->z_m = st_params_of(world)[s].cg_height_m;
        out->yaw_rad = st->yaw_rad;
        out->pitch_rad = 0.0;
        out->roll_rad = 0.0;
        out->vx_mps = st->vx_mps;
        out->vy_mps = st->vy_mps;
        out->vz_mps = 0.0;
        out->roll_rate_radps = 0.0;
        out->pitch_rate_radps = 0.0;
        out->yaw_rate_radps = st->yaw_rate_radps;
        out->steer_angle_rad = st_cmd_of(world)[s].steer_rad;
        out->speed_mps = sqrt(st->vx_mps * st->vx_mps + st->vy_mps * st->vy_mps);
        out->ax_mps2 = st->ax_mps2;
        out->ay_mps2 = st->ay_mps2;
    }
    out->faulted = pdk_world_vehicle_faulted(world, id);
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
 * vehicle's fields, four words at a time, so that a session can record it
 * every tick for a few per cent of the tick (docs/adr/0012). Which field
 * sits in which lane is fixed here; the values are fed, never struct bytes.
 * Everything down to pdk_world_hash_build is always inlined, so that each
 * build of the hash (baseline, AVX2, AVX-512; docs/adr/0014) compiles all
 * of it for its processor. */
PDK_HASH_INLINE uint64_t u32w(uint32_t v)
{
    return (uint64_t)v;
}

PDK_HASH_INLINE uint64_t i32w(int32_t v)
{
    return (uint64_t)(uint32_t)v;
}

PDK_HASH_INLINE void hash_single_track(pdk_hash4 *h, const pdk_st_state *st, const pdk_st_cmd *c)
{
    pdk_hash4_f64x4(h, st->x_m, st->y_m, st->yaw_rad, st->vx_mps);
    pdk_hash4_f64x4(h, st->vy_mps, st->yaw_rate_radps, st->ax_mps2, st->ay_mps2);
    /* The held command; its cached part is a function of these. */
    pdk_hash4_f64x4(h, c->throttle_pct, c->brake_bar, c->steer_wheel_deg, 0.0);
    pdk_hash4_take(h, u32w(st->faulted), i32w(c->gear), 0u, 0u);
}

PDK_HASH_INLINE void hash_four_wheel(pdk_hash4 *h, const pdk_fw_state *fw, const pdk_fw_cmd *c)
{
    pdk_hash4_f64s(h, fw->pos_m, 3);
    pdk_hash4_f64s(h, fw->quat, 4);
    pdk_hash4_f64s(h, fw->vel_mps, 3);
    pdk_hash4_f64s(h, fw->omega_radps, 3);
    pdk_hash4_f64s(h, fw->prev_fx_n, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->prev_fy_n, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->accel_mps2, 3);
    pdk_hash4_f64s(h, fw->spin_radps, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->defl_x_m, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->defl_y_m, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->sinkage_m, PDK_WHEELS);
    /* The tyres' lives, one field of the four wheels at a time. */
    const pdk_tyre_life *l = fw->life;
    const pdk_tyre_effect *e = fw->effect;
#define PDK_HASH_WHEELS_(arr, field)                                                               \
    pdk_hash4_f64x4(h, arr[0].field, arr[1].field, arr[2].field, arr[3].field)
    PDK_HASH_WHEELS_(l, surface_temp_c);
    PDK_HASH_WHEELS_(l, carcass_temp_c);
    PDK_HASH_WHEELS_(l, gas_temp_c);
    PDK_HASH_WHEELS_(l, air_share);
    PDK_HASH_WHEELS_(l, leak_per_s);
    PDK_HASH_WHEELS_(l, tread_m);
    PDK_HASH_WHEELS_(l, flat_run_m);
    PDK_HASH_WHEELS_(l, grip_scale);
    PDK_HASH_WHEELS_(e, grip);
    PDK_HASH_WHEELS_(e, radius_drop_m);
    PDK_HASH_WHEELS_(e, rolling_scale);
    PDK_HASH_WHEELS_(e, pressure_kpa);
#undef PDK_HASH_WHEELS_
    pdk_hash4_take(h, i32w(l[0].condition), i32w(l[1].condition), i32w(l[2].condition),
                   i32w(l[3].condition));
    pdk_hash4_f64s(h, fw->work_power_w, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->work_load_n, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->work_speed_mps, PDK_WHEELS);
    pdk_hash4_f64s(h, fw->work_contact, PDK_WHEELS);
    pdk_hash4_take(h, u32w(fw->work_ticks), pdk_hash_bits(fw->power_scale), u32w(fw->faulted), 0u);
    const pdk_fw_powertrain *pt = &fw->pt;
    if (pt->kind != PDK_POWERTRAIN_LUMPED) {
        pdk_hash4_f64x4(h, pt->engine_radps, pt->request, pt->cvt_ratio, pt->clutch_nm);
        pdk_hash4_f64x4(h, pt->carrier_radps, pt->fuel_l, pt->fuel_used_l, pt->lever.shift_left_s);
        pdk_hash4_take(h, (uint64_t)pt->lever.engaged, (uint64_t)pt->lever.target,
                       i32w(pt->requested), i32w(pt->reject));
        pdk_hash4_take(h, i32w(pt->drive_mode), 0u, 0u, 0u);
        pdk_hash4_f64s(h, pt->ledger_j, PDK_LEDGER_COUNT);
        pdk_hash4_f64s(h, pt->abs_scale, PDK_WHEELS);
        if (pt->kind == PDK_POWERTRAIN_GEARED) {
            pdk_hash4_take(h, i32w(pt->gear_index), i32w(pt->gear_target),
                           pdk_hash_bits(pt->shift_left_s), 0u);
        }
    }
    /* The held command; its cached part is a function of these and the
     * definition. gear_number is 0 but for a manual gearbox. */
    pdk_hash4_f64x4(h, c->throttle_pct, c->brake_bar, c->steer_wheel_deg, 0.0);
    pdk_hash4_take(h, i32w(c->gear_number), i32w(c->gear), 0u, 0u);
}

/* A live vehicle's part of the world's hash: its id, its model's state and
 * held command, and its DBW kit once spoken to. */
PDK_HASH_INLINE void hash_vehicle(pdk_hash4 *h, const pdk_world *w, uint32_t slot)
{
    pdk_hash4_take(h, make_id(slot, meta_of(w)[slot].generation), 0u, 0u, 0u);
    if (is_four_wheel(w, slot)) {
        hash_four_wheel(h, &fw_state_of(w)[slot], &fw_cmd_of(w)[slot]);
    } else {
        hash_single_track(h, &st_state_of(w)[slot], &st_cmd_of(w)[slot]);
    }
    const pdk_dbw_state *dbw = &dbw_of(w)[slot];
    if (dbw->touched) {
        /* A kit never spoken to is where spawn put it and changes
         * nothing; once spoken to it is state like any other. */
        const pdk_dbw_cmd *d = &driver_of(w)[slot];
        pdk_hash4_f64x4(h, d->throttle_pct, d->brake_bar, d->steer_wheel_deg, 0.0);
        pdk_hash4_take(h, i32w(d->gear), i32w(d->gear_number), 0u, 0u);
        pdk_dbw_hash(h, dbw);
    }
}

uint64_t pdk_world_vehicle_hash(const pdk_world *world, pdk_vehicle_id id)
{
    int32_t s = slot_of(world, id);
    if (s < 0) {
        return 0u;
    }
    pdk_hash4 h = pdk_hash4_init(PDK_HASH_INIT);
    hash_vehicle(&h, world, (uint32_t)s);
    return pdk_hash_finish(pdk_hash4_fold(PDK_HASH_INIT, &h));
}

PDK_HASH_INLINE uint64_t world_hash(const pdk_world *world)
{
    /* The tick, the vehicle count and the PRNG go into the wide hash with
     * the vehicles: a serial word costs a multiply chain (some twelve
     * cycles), which for a lone car was most of its hash. */
    const uint32_t *live = live_of(world);
    const slot_meta *meta = meta_of(world);
    pdk_hash4 wide = pdk_hash4_init(PDK_HASH_INIT);
    pdk_hash4_take(&wide, world->tick, (uint64_t)world->count, 0u, 0u);
    pdk_hash4_take(&wide, world->prng.s[0], world->prng.s[1], world->prng.s[2], world->prng.s[3]);
    for (int32_t i = 0; i < world->count; i++) {
        hash_vehicle(&wide, world, live[i]);
    }
    uint64_t h = pdk_hash4_fold(PDK_HASH_INIT, &wide);
    /* Free slots' generations decide the ids given out next, so they are
     * state too (a fresh slot's generation is zero and adds nothing). */
    for (int32_t s = 0; s < world->generation_top; s++) {
        if (!meta[s].alive && meta[s].generation != 0u) {
            h = pdk_hash_u64(h, ((uint64_t)(uint32_t)s << 32) | meta[s].generation);
        }
    }
    return pdk_hash_finish(h);
}

/* The builds of world_hash: the same integer operations in the same order,
 * so the same bits; the AVX-512 one takes a lane step as one rotate and one
 * add (vprolq, vpaddq) and a wheel array as one load. */
static uint64_t world_hash_baseline(const pdk_world *world)
{
    return world_hash(world);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_HASH_BUILDS 1
__attribute__((target("avx2"))) static uint64_t world_hash_avx2(const pdk_world *world)
{
    return world_hash(world);
}

__attribute__((target("avx2,avx512f,avx512vl"))) static uint64_t
world_hash_avx512(const pdk_world *world)
{
    return world_hash(world);
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
