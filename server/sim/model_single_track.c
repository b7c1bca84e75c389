/* The single-track model's table (model.h): its vehicles' arrays in the
 * world, their spawn from a definition, the commands and the DBW kit's
 * hand-off, the batched step and the per-wheel channels derived from its
 * axles, the pose, the hash and the snapshot record. The physics itself is
 * single_track.c's. */
#include <math.h>
#include <string.h>

#include "ground/surface.h"
#include "math/hash.h"
#include "model.h"
#include "vehicle/vehicle_rules.h"
#include "vehicle/single_track.h"
#include "world_internal.h"

/* The model's arrays in the world, in pdk_model_single_track.array_bytes
 * order: each vehicle's state, held command and constants. */
enum { ST_STATE, ST_CMD, ST_PARAMS };

static pdk_st_state *st_state_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_SINGLE_TRACK, ST_STATE);
}

static pdk_st_cmd *st_cmd_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_SINGLE_TRACK, ST_CMD);
}

static pdk_st_params *st_params_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_SINGLE_TRACK, ST_PARAMS);
}

static void spawn(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, const pdk_pose *pose,
                  double speed_mps, pdk_gear gear)
{
    /* The model has no wheels to find the ground under: it takes the base
     * surface's peak friction relative to the reference (surface.h), so
     * that a wet world is wet for it too. */
    const pdk_world_def *wd = &world->def;
    const pdk_surface *base = pdk_surface_get(wd->terrain.base_surface_id);
    const pdk_surface *ref = pdk_surface_get(PDK_SURFACE_TARMAC);
    double ground = base && ref ? base->mu_peak / ref->mu_peak : 1.0;
    pdk_st_params_init(&st_params_of(world)[slot], def, world->substep_s, wd->gravity_mps2,
                       wd->air_density_kgpm3, wd->surface_friction * ground);
    pdk_st_state_init(&st_state_of(world)[slot], pose, speed_mps);
    pdk_st_cmd_set(&st_cmd_of(world)[slot], def, 0.0, 0.0, 0.0, gear);
}

static void spawn_like(pdk_world *world, uint32_t slot, uint32_t like)
{
    /* pdk_st_params_init is pure: the same definition gives the same
     * constants. */
    st_params_of(world)[slot] = st_params_of(world)[like];
}

/* The planar model stands at pose at rest, its fault cleared: all its
 * state is the pose and motion. */
static void reset_vehicle(pdk_world *world, uint32_t slot, const pdk_pose *pose)
{
    pdk_st_state_init(&st_state_of(world)[slot], pose, 0.0);
}

static void remove_vehicle(pdk_world *world, uint32_t slot)
{
    memset(&st_state_of(world)[slot], 0, sizeof(pdk_st_state));
    memset(&st_cmd_of(world)[slot], 0, sizeof(pdk_st_cmd));
}

static void held(const pdk_world *world, uint32_t slot, pdk_dbw_cmd *out)
{
    const pdk_st_cmd *c = &st_cmd_of(world)[slot];
    out->throttle_pct = c->throttle_pct;
    out->brake_bar = c->brake_bar;
    out->steer_wheel_deg = c->steer_wheel_deg;
    out->gear = (pdk_gear)c->gear;
}

/* The model has neither a manual gearbox (gear_number) nor a parking
 * brake of the kit's: it takes the four controls alone. */
static void command(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c)
{
    pdk_st_cmd_set(&st_cmd_of(world)[slot], &defs_of(world)[slot], c->throttle_pct, c->brake_bar,
                   c->steer_wheel_deg, c->gear);
}

static void actuate(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c, int32_t park)
{
    (void)park;
    command(world, slot, c);
}

static pdk_dbw_vehicle kit_reading(const pdk_world *world, uint32_t slot)
{
    const pdk_st_state *st = &st_state_of(world)[slot];
    pdk_dbw_vehicle v = {.speed_mps = st->vx_mps, .ax_mps2 = st->ax_mps2, .ay_mps2 = st->ay_mps2};
    return v;
}

/* The per-wheel channels, from the axle channels the step wrote: each tyre
 * carries half its axle's load and force at the axle's slip angle and
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

/* Steps a batch and derives its per-wheel channels while they are hot. */
static int step_batch(pdk_st_state *const *st, const pdk_st_cmd *const *cm,
                      const pdk_st_params *const *pa, double *const *ch, int n, int substeps)
{
    int faults = pdk_st_step_batch(st, cm, pa, ch, n, substeps);
    for (int k = 0; k < n; k++) {
        if (ch[k] != NULL) {
            planar_wheel_channels(ch[k]);
        }
    }
    return faults;
}

/* PDK_ST_BATCH vehicles at a time (batching changes no result). The step
 * writes the channels while the world's telemetry is on, else none (at
 * 10,000 cars they were more than half of a server session's step on the
 * ticks that read none of them, docs/adr/0035); the per-wheel ones are
 * derived in the same pass, while the batch's channels are still in
 * cache. */
static int step(pdk_world *world, const uint32_t *live, int32_t count)
{
    pdk_st_state *states = st_state_of(world);
    const pdk_st_cmd *cmds = st_cmd_of(world);
    const pdk_st_params *params = st_params_of(world);
    const slot_meta *meta = meta_of(world);
    const int substeps = world->def.substeps;
    pdk_st_state *st[PDK_ST_BATCH];
    const pdk_st_cmd *cm[PDK_ST_BATCH];
    const pdk_st_params *pa[PDK_ST_BATCH];
    double *ch[PDK_ST_BATCH];
    int faults = 0;
    int n = 0;
    for (int32_t i = 0; i < count; i++) {
        uint32_t slot = live[i];
        if (meta[slot].model != PDK_MODEL_SINGLE_TRACK || states[slot].faulted) {
            continue;
        }
        st[n] = &states[slot];
        cm[n] = &cmds[slot];
        pa[n] = &params[slot];
        ch[n] = world->telemetry_off ? NULL : channels_of(world, slot);
        if (++n == PDK_ST_BATCH) {
            faults += step_batch(st, cm, pa, ch, n, substeps);
            n = 0;
        }
    }
    if (n > 0) {
        faults += step_batch(st, cm, pa, ch, n, substeps);
    }
    return faults;
}

static void pose(const pdk_world *world, uint32_t slot, pdk_vehicle_pose *out)
{
    const pdk_st_state *st = &st_state_of(world)[slot];
    out->x_m = st->x_m;
    out->y_m = st->y_m;
    out->z_m = st_params_of(world)[slot].cg_height_m;
    out->yaw_rad = st->yaw_rad;
    out->pitch_rad = 0.0;
    out->roll_rad = 0.0;
    out->vx_mps = st->vx_mps;
    out->vy_mps = st->vy_mps;
    out->vz_mps = 0.0;
    out->roll_rate_radps = 0.0;
    out->pitch_rate_radps = 0.0;
    out->yaw_rate_radps = st->yaw_rate_radps;
    out->steer_angle_rad = st_cmd_of(world)[slot].steer_rad;
    out->speed_mps = sqrt(st->vx_mps * st->vx_mps + st->vy_mps * st->vy_mps);
    out->ax_mps2 = st->ax_mps2;
    out->ay_mps2 = st->ay_mps2;
}

static uint32_t faulted(const pdk_world *world, uint32_t slot)
{
    return st_state_of(world)[slot].faulted;
}

PDK_HASH_INLINE void hash_vehicle(pdk_hash4 *h, const pdk_world *world, uint32_t slot)
{
    const pdk_st_state *st = &st_state_of(world)[slot];
    const pdk_st_cmd *c = &st_cmd_of(world)[slot];
    pdk_hash4_f64x4(h, st->x_m, st->y_m, st->yaw_rad, st->vx_mps);
    pdk_hash4_f64x4(h, st->vy_mps, st->yaw_rate_radps, st->ax_mps2, st->ay_mps2);
    /* The held command; its cached part is a function of these. */
    pdk_hash4_f64x4(h, c->throttle_pct, c->brake_bar, c->steer_wheel_deg, 0.0);
    pdk_hash4_take(h, (uint64_t)st->faulted, (uint64_t)(uint32_t)c->gear, 0u, 0u);
}

PDK_MODEL_HASH_BUILDS(st, hash_vehicle)

static int record_spans(const pdk_world *world, uint32_t slot, pdk_record_span *out)
{
    _Static_assert(sizeof(pdk_st_state) % 8u == 0u && offsetof(pdk_st_record, cmd) % 8u == 0u &&
                       sizeof(pdk_st_cmd) % 8u == 0u,
                   "the record's spans are whole words");
    out[0] = (pdk_record_span){offsetof(pdk_st_record, state), sizeof(pdk_st_state),
                               &st_state_of(world)[slot]};
    out[1] = (pdk_record_span){offsetof(pdk_st_record, cmd), sizeof(pdk_st_cmd),
                               &st_cmd_of(world)[slot]};
    return 2;
}

static const char *record_problem(const pdk_model_record *r, const pdk_vehicle_def *def)
{
    (void)def;
    const pdk_st_state *st = &r->st.state;
    double v[8] = {st->x_m,     st->y_m,    st->yaw_rad, st->vx_mps, st->vy_mps, st->yaw_rate_radps,
                   st->ax_mps2, st->ay_mps2};
    if (!pdk_all_finite(v, 8)) {
        return "the record's single-track state holds a non-finite number";
    }
    return st->faulted > 1u ? "the record's faulted flag is not 0 or 1" : NULL;
}

static void restore(pdk_world *world, uint32_t slot, const pdk_model_record *r)
{
    st_state_of(world)[slot] = r->st.state;
    st_cmd_of(world)[slot] = r->st.cmd;
}

#define MEMBER(h, type, member) PDK_LAYOUT_MEMBER(h, 0u, type, member)
#define STRUCT(h, type) PDK_LAYOUT_STRUCT(h, type)

static uint64_t record_members(uint64_t h, size_t at)
{
    h = PDK_LAYOUT_MEMBER(h, at, pdk_st_record, state);
    return PDK_LAYOUT_MEMBER(h, at, pdk_st_record, cmd);
}

static uint64_t record_layout(uint64_t h)
{
    h = STRUCT(h, pdk_st_state);
    h = MEMBER(h, pdk_st_state, x_m);
    h = MEMBER(h, pdk_st_state, y_m);
    h = MEMBER(h, pdk_st_state, yaw_rad);
    h = MEMBER(h, pdk_st_state, vx_mps);
    h = MEMBER(h, pdk_st_state, vy_mps);
    h = MEMBER(h, pdk_st_state, yaw_rate_radps);
    h = MEMBER(h, pdk_st_state, ax_mps2);
    h = MEMBER(h, pdk_st_state, ay_mps2);
    h = MEMBER(h, pdk_st_state, faulted);

    h = STRUCT(h, pdk_st_cmd);
    h = MEMBER(h, pdk_st_cmd, throttle_pct);
    h = MEMBER(h, pdk_st_cmd, brake_bar);
    h = MEMBER(h, pdk_st_cmd, steer_wheel_deg);
    h = MEMBER(h, pdk_st_cmd, steer_rad);
    h = MEMBER(h, pdk_st_cmd, sin_steer);
    h = MEMBER(h, pdk_st_cmd, cos_steer);
    h = MEMBER(h, pdk_st_cmd, drive_gain);
    h = MEMBER(h, pdk_st_cmd, governor_mps);
    h = MEMBER(h, pdk_st_cmd, governor_fade_mps);
    h = MEMBER(h, pdk_st_cmd, hold_front_n);
    h = MEMBER(h, pdk_st_cmd, hold_rear_n);
    h = MEMBER(h, pdk_st_cmd, gear_code);
    return MEMBER(h, pdk_st_cmd, gear);
}

#undef MEMBER
#undef STRUCT

const pdk_model_ops pdk_model_single_track = {
    .kind = PDK_MODEL_SINGLE_TRACK,
    .def_check = pdk_st_def_check,
    .arrays = 3,
    .array_bytes = {sizeof(pdk_st_state), sizeof(pdk_st_cmd), sizeof(pdk_st_params)},
    .spawn = spawn,
    .spawn_like = spawn_like,
    .reset = reset_vehicle,
    .remove = remove_vehicle,
    .held = held,
    .command = command,
    .actuate = actuate,
    .kit_reading = kit_reading,
    .kit_message = NULL,
    .tyre_input = NULL,
    .tyre_refusal = "tyre inputs apply to four-wheel vehicles only (this one runs the "
                    "single-track model)",
    .tyre_sets = NULL,
    .step = step,
    .pose = pose,
    .faulted = faulted,
    .hash = PDK_MODEL_HASH_TABLE(st),
    .record_spans = record_spans,
    .record_problem = record_problem,
    .restore = restore,
    .record_members = record_members,
    .record_layout = record_layout,
};
