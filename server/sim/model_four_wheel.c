/* The four-wheel model's table (model.h): its vehicles' arrays in the
 * world, their spawn from a definition with tyre constants shared between
 * equal definitions, the commands and the DBW kit's hand-off, the batched
 * step, the pose, the hash and the snapshot record. The physics itself is
 * four_wheel.c's. */
#include <math.h>
#include <string.h>

#include "math/hash.h"
#include "tyre/tyre_life.h"
#include "vehicle/four_wheel.h"
#include "model.h"
#include "vehicle/vehicle_rules.h"
#include "world_internal.h"

/* The model's arrays in the world, in pdk_model_four_wheel.array_bytes
 * order:
 *   state, cmd  hot: each vehicle's state and held command
 *   consts    each vehicle's constants (its kinematic curves are read from
 *             defs); the step reads them from the slot whose definition
 *             the vehicle's fleet reads (slot_meta.def_at): equal
 *             definitions give equal constants (pdk_fw_params_init_like
 *             is pure), and a fleet of one preset then reads one copy a
 *             tick, as for tyres, instead of 1.6 kB a car
 *   tyres     pdk_tyre_consts4  hot: the tyre constants, one entry per
 *             distinct set, shared by the vehicles spawned from equal
 *             definitions (a fleet of one preset reads one copy a tick
 *             instead of one per car); a vehicle's entry is its
 *             slot_meta.shared
 *   tyre_refs uint32_t  how many live vehicles use each entry */
enum { FW_STATE, FW_CMD, FW_CONSTS, FW_TYRES, FW_TYRE_REFS };

static pdk_fw_state *fw_state_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, FW_STATE);
}

static pdk_fw_cmd *fw_cmd_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, FW_CMD);
}

static pdk_fw_consts *fw_consts_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, FW_CONSTS);
}

static pdk_tyre_consts4 *tyres_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, FW_TYRES);
}

static uint32_t *tyre_refs_of(const pdk_world *w)
{
    return pdk_world_model_array_(w, PDK_MODEL_FOUR_WHEEL, FW_TYRE_REFS);
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

static void spawn(pdk_world *world, uint32_t slot, const pdk_vehicle_def *def, const pdk_pose *pose,
                  double speed_mps, pdk_gear gear)
{
    const slot_meta *meta = meta_of(world);
    const pdk_world_def *wd = &world->def;
    /* The whole constants on the stack; the world keeps their hot part
     * (the curves stay in defs). A fleet of one preset: the vehicle placed
     * last (the highest live slot) from the same definition lends its
     * tyres' peak slips. */
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
    meta_of(world)[slot].shared = tyre_entry(world, &p.tyre);
    pdk_fw_state_init(&fw_state_of(world)[slot], &p, &wd->terrain, pose, speed_mps);
    pdk_fw_powertrain_init(&fw_state_of(world)[slot], &def->powertrain, gear, speed_mps,
                           p.c.radius_m[PDK_RL]);
    pdk_fw_cmd *cmd = &fw_cmd_of(world)[slot];
    pdk_fw_cmd_set(cmd, def, 0.0, 0.0, 0.0, gear);
    cmd->gear_number = 0; /* a manual box keeps its spawn gear */
    cmd->park_brake = 0;
}

static void spawn_like(pdk_world *world, uint32_t slot, uint32_t like)
{
    /* pdk_fw_params_init is pure: the same definition gives the same
     * constants, and the tyre set is shared. */
    slot_meta *meta = meta_of(world);
    fw_consts_of(world)[slot] = fw_consts_of(world)[like];
    meta[slot].shared = meta[like].shared;
    tyre_refs_of(world)[meta[slot].shared]++;
}

/* Upright at rest at pose, as a spawn in the held gear places the car
 * (pdk_fw_state_init, pdk_fw_powertrain_init), keeping the tyres' life and
 * the tick it next advances on, the engine's damage, the fuel and the
 * drive mode (world.h pdk_world_vehicle_reset). */
static void reset_vehicle(pdk_world *world, uint32_t slot, const pdk_pose *pose)
{
    const pdk_world_def *wd = &world->def;
    const pdk_vehicle_def *def = &defs_of(world)[slot];
    pdk_fw_state *s = &fw_state_of(world)[slot];
    const pdk_fw_state was = *s;
    pdk_fw_params p;
    pdk_fw_params_init_like(&p, def, world->substep_s, wd->gravity_mps2, wd->air_density_kgpm3,
                            wd->surface_friction, &fw_consts_of(world)[slot]);
    pdk_fw_state_init(s, &p, &wd->terrain, pose, 0.0);
    pdk_fw_powertrain_init(s, &def->powertrain, (pdk_gear)fw_cmd_of(world)[slot].gear, 0.0,
                           p.c.radius_m[PDK_RL]);
    for (int i = 0; i < PDK_WHEELS; i++) {
        s->life[i] = was.life[i];
        s->effect[i] = was.effect[i];
    }
    s->life_ticks = was.life_ticks - was.work_ticks; /* >= 1: record_problem */
    s->power_scale = was.power_scale;
    s->pt.fuel_l = was.pt.fuel_l;
    s->pt.fuel_used_l = was.pt.fuel_used_l;
    s->pt.drive_mode = was.pt.drive_mode;
}

static void remove_vehicle(pdk_world *world, uint32_t slot)
{
    tyre_refs_of(world)[meta_of(world)[slot].shared]--;
    memset(&fw_state_of(world)[slot], 0, sizeof(pdk_fw_state));
    memset(&fw_cmd_of(world)[slot], 0, sizeof(pdk_fw_cmd));
}

static void held(const pdk_world *world, uint32_t slot, pdk_dbw_cmd *out)
{
    const pdk_fw_cmd *c = &fw_cmd_of(world)[slot];
    out->throttle_pct = c->throttle_pct;
    out->brake_bar = c->brake_bar;
    out->steer_wheel_deg = c->steer_wheel_deg;
    out->gear = (pdk_gear)c->gear;
}

static void command(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c)
{
    pdk_fw_cmd *fc = &fw_cmd_of(world)[slot];
    pdk_fw_cmd_set(fc, &defs_of(world)[slot], c->throttle_pct, c->brake_bar, c->steer_wheel_deg,
                   c->gear);
    if (c->fields & PDK_DBW_GEAR_NUMBER) {
        fc->gear_number = c->gear_number;
    }
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
        fc->brake_n[PDK_RL] += 0.5 * def->brake.park_hold_force_n;
        fc->brake_n[PDK_RR] += 0.5 * def->brake.park_hold_force_n;
        return;
    }
    double nm = pt->kind == PDK_POWERTRAIN_GEARED ? pt->geared.handbrake_nm
                                                  : 0.5 * pt->gearbox.park_hold_nm;
    fc->brake_nm[PDK_RL] += nm;
    fc->brake_nm[PDK_RR] += nm;
}

static void actuate(pdk_world *world, uint32_t slot, const pdk_dbw_cmd *c, int32_t park)
{
    pdk_fw_cmd *fc = &fw_cmd_of(world)[slot];
    if (fc->throttle_pct == c->throttle_pct && fc->brake_bar == c->brake_bar &&
        fc->steer_wheel_deg == c->steer_wheel_deg && fc->gear == (int32_t)c->gear &&
        fc->park_brake == park) {
        return; /* held: its derived part is already these controls' */
    }
    const pdk_vehicle_def *def = &defs_of(world)[slot];
    int32_t number = fc->gear_number;
    pdk_fw_cmd_set(fc, def, c->throttle_pct, c->brake_bar, c->steer_wheel_deg, c->gear);
    fc->gear_number = number;
    fc->park_brake = park;
    if (park) {
        parking_brake_on(fc, def);
    }
}

static pdk_dbw_vehicle kit_reading(const pdk_world *world, uint32_t slot)
{
    const pdk_fw_state *fw = &fw_state_of(world)[slot];
    double vb[3];
    pdk_fw_body_velocity(fw, vb);
    pdk_dbw_vehicle v = {
        .speed_mps = vb[0], .ax_mps2 = fw->accel_mps2[0], .ay_mps2 = fw->accel_mps2[1]};
    return v;
}

static void kit_message(pdk_world *world, uint32_t slot, const pdk_dbw_msg *msg)
{
    if (msg->kind == PDK_DBW_MSG_DRIVE_MODE) {
        /* The switch is the vehicle's: the kit only moves it. */
        fw_state_of(world)[slot].pt.drive_mode = msg->u.value;
    }
}

static void tyre_input(pdk_world *world, uint32_t slot, const pdk_tyre_input *in)
{
    pdk_fw_tyre_action(&fw_state_of(world)[slot], &defs_of(world)[slot], in->wheel_mask, in->action,
                       in->value, world->def.terrain.air_temp_c);
}

static int tyre_sets(const pdk_world *world)
{
    const uint32_t *refs = tyre_refs_of(world);
    int n = 0;
    for (int32_t i = 0; i < world->capacity; i++) {
        n += refs[i] != 0u;
    }
    return n;
}

/* The wheels' angles for drawing (WheelAngle_*), after the step: each
 * adds its wheel speed over the tick (a rectangle rule on the tick's last
 * speed: a picture, not a measurement), wrapped to [0, 2 pi). Kept in the
 * world, not the state, every tick, so the hash does not see them and the
 * channels, written while telemetry is on, are what an always-on world
 * writes. A vehicle that faulted this tick starts again from 0 with its
 * zeroed channels. */
static void wheel_angles(pdk_world *world, const uint32_t *live, int32_t count)
{
    const pdk_fw_state *states = fw_state_of(world);
    const slot_meta *meta = meta_of(world);
    const double turn = 2.0 * 3.14159265358979323846;
    const double tick_s = world->def.dt_s;
    for (int32_t i = 0; i < count; i++) {
        uint32_t slot = live[i];
        if (meta[slot].model != PDK_MODEL_FOUR_WHEEL) {
            continue;
        }
        double *angle = wheel_angle_of(world, slot);
        const pdk_fw_state *s = &states[slot];
        for (int w = 0; w < PDK_WORLD_WHEEL_ANGLES; w++) {
            /* A tick turns a wheel less than a turn below 754 rad/s, so one
             * add or subtract wraps it; fmod only beyond. */
            double a = angle[w] + s->spin_radps[w] * tick_s;
            if (a >= turn) {
                a -= turn;
            } else if (a < 0.0) {
                a += turn;
            }
            if (!(a >= 0.0 && a < turn)) {
                a = fmod(a, turn);
                a = a < 0.0 ? a + turn : a;
            }
            angle[w] = s->faulted || !(a >= 0.0 && a < turn) ? 0.0 : a;
        }
        if (!world->telemetry_off && !s->faulted) {
            memcpy(&channels_of(world, slot)[PDK_CH_WHEEL_ANGLE_FL], angle,
                   sizeof(double) * PDK_WORLD_WHEEL_ANGLES);
        }
    }
}

/* PDK_FW_BATCH vehicles at a time (batching changes no result), each with
 * the definition it was spawned from (its curves, its tyres' life and soil
 * parameters) and its constants, both read from the copies its fleet
 * shares (step_def_of, slot_meta.def_at). Each batch's wheel angles follow
 * it, those of the vehicles it passed over included, while its states are
 * still in the cache: a car's angles read its own state alone. */
static int step(pdk_world *world, const uint32_t *live, int32_t count)
{
    pdk_fw_state *states = fw_state_of(world);
    const pdk_fw_cmd *cmds = fw_cmd_of(world);
    const pdk_fw_consts *consts = fw_consts_of(world);
    const pdk_tyre_consts4 *tyres = tyres_of(world);
    const slot_meta *meta = meta_of(world);
    const int substeps = world->def.substeps;
    const pdk_terrain_def *terrain = &world->def.terrain;
    pdk_fw_state *fs[PDK_FW_BATCH];
    const pdk_fw_cmd *fc[PDK_FW_BATCH];
    const pdk_fw_consts *fk[PDK_FW_BATCH];
    const pdk_tyre_consts4 *ft[PDK_FW_BATCH];
    const pdk_vehicle_def *fd[PDK_FW_BATCH];
    double *fch[PDK_FW_BATCH];
    int faults = 0;
    int n = 0;
    int32_t first = 0; /* live[first..] are the batch's and those passed over */
    for (int32_t i = 0; i < count; i++) {
        uint32_t slot = live[i];
        if (meta[slot].model != PDK_MODEL_FOUR_WHEEL || states[slot].faulted) {
            continue;
        }
        fs[n] = &states[slot];
        fc[n] = &cmds[slot];
        fk[n] = &consts[meta[slot].def_at];
        ft[n] = &tyres[meta[slot].shared];
        fd[n] = step_def_of(world, slot);
        fch[n] = world->telemetry_off ? NULL : channels_of(world, slot);
        if (++n == PDK_FW_BATCH) {
            faults += pdk_fw_step_batch(fs, fc, fk, ft, fd, fch, n, terrain, substeps);
            wheel_angles(world, live + first, i + 1 - first);
            first = i + 1;
            n = 0;
        }
    }
    if (n > 0) {
        faults += pdk_fw_step_batch(fs, fc, fk, ft, fd, fch, n, terrain, substeps);
    }
    wheel_angles(world, live + first, count - first);
    return faults;
}

static void pose(const pdk_world *world, uint32_t slot, pdk_vehicle_pose *out)
{
    const pdk_fw_state *fw = &fw_state_of(world)[slot];
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
    out->steer_angle_rad = fw_cmd_of(world)[slot].steer_rad;
    out->speed_mps = sqrt(fw->vel_mps[0] * fw->vel_mps[0] + fw->vel_mps[1] * fw->vel_mps[1]);
    out->ax_mps2 = fw->accel_mps2[0];
    out->ay_mps2 = fw->accel_mps2[1];
}

static uint32_t faulted(const pdk_world *world, uint32_t slot)
{
    return fw_state_of(world)[slot].faulted;
}

PDK_HASH_INLINE uint64_t u32w(uint32_t v)
{
    return (uint64_t)v;
}

PDK_HASH_INLINE uint64_t i32w(int32_t v)
{
    return (uint64_t)(uint32_t)v;
}

/* Which field sits in which lane is fixed here; the values are fed, never
 * struct bytes. */
PDK_HASH_INLINE void hash_vehicle(pdk_hash4 *h, const pdk_world *world, uint32_t slot)
{
    const pdk_fw_state *fw = &fw_state_of(world)[slot];
    const pdk_fw_cmd *c = &fw_cmd_of(world)[slot];
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
    pdk_hash4_take(h, u32w(fw->work_ticks), pdk_hash_bits(fw->power_scale), u32w(fw->faulted),
                   u32w(fw->life_ticks));
    const pdk_fw_powertrain *pt = &fw->pt;
    if (pt->kind != PDK_POWERTRAIN_LUMPED) {
        pdk_hash4_f64x4(h, pt->engine_radps, pt->request, pt->cvt_ratio, pt->clutch_nm);
        pdk_hash4_f64x4(h, pt->carrier_radps, pt->fuel_l, pt->fuel_used_l, pt->lever.shift_left_s);
        pdk_hash4_take(h, (uint64_t)pt->lever.engaged, (uint64_t)pt->lever.target,
                       i32w(pt->requested), i32w(pt->reject));
        pdk_hash4_take(h, i32w(pt->drive_mode), 0u, 0u, 0u);
        pdk_hash4_f64s(h, pt->ledger_j, PDK_LEDGER_COUNT);
        pdk_hash4_f64s(h, pt->abs_scale, PDK_WHEELS);
        /* The controller's memory matters only while it works (an idle
         * wheel starts over), so an idle ABS adds nothing to the hash. */
        if ((pt->abs_active[0] | pt->abs_active[1] | pt->abs_active[2] | pt->abs_active[3]) !=
            0) {
            pdk_hash4_take(h, i32w(pt->abs_active[0]), i32w(pt->abs_active[1]),
                           i32w(pt->abs_active[2]), i32w(pt->abs_active[3]));
            pdk_hash4_f64s(h, pt->abs_peak_slip, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_rate_per_s, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_since_s, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_dose_s, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_wheel_mps, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_time_s, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_fx_n, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_slip, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_cov_n, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_var_fx_n2, PDK_WHEELS);
            pdk_hash4_f64s(h, pt->abs_var_slip, PDK_WHEELS);
        }
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

PDK_MODEL_HASH_BUILDS(fw, hash_vehicle)

/* The body's box is the hull's (vehicle/hull.h): its corner 0 is the rear
 * right bottom one, corner 7 the front left roof one. */
static int contact_body(const pdk_world *world, uint32_t slot, pdk_cbody *out, double quat[4],
                        double inv_i_body[3])
{
    const pdk_fw_state *s = &fw_state_of(world)[slot];
    const pdk_fw_consts *p = &fw_consts_of(world)[slot];
    if (s->faulted != 0u) {
        return 0;
    }
    const double *lo = &p->hull_pts_m[0];
    const double *hi = &p->hull_pts_m[3 * 7];
    for (int j = 0; j < 3; j++) {
        out->half_m[j] = 0.5 * (hi[j] - lo[j]);
        out->box_m[j] = 0.5 * (hi[j] + lo[j]); /* body frame: world_contact.c moves it */
        out->cg_m[j] = s->pos_m[j];
        out->vel_mps[j] = s->vel_mps[j];
        out->omega_radps[j] = s->omega_radps[j]; /* body frame: likewise */
        inv_i_body[j] = 1.0 / p->inertia_kgm2[j];
    }
    for (int j = 0; j < 4; j++) {
        quat[j] = s->quat[j];
    }
    out->inv_mass_kg = 1.0 / p->mass_kg;
    return 1;
}

static void contact_prefetch(const pdk_world *world, uint32_t slot)
{
    const pdk_fw_state *s = &fw_state_of(world)[slot];
    const pdk_fw_consts *p = &fw_consts_of(world)[slot];
    PDK_PREFETCH(s->pos_m);
    PDK_PREFETCH(s->omega_radps);
    PDK_PREFETCH(&s->faulted);
    PDK_PREFETCH(&p->mass_kg);
    PDK_PREFETCH(&p->inertia_kgm2[2]);
    for (size_t at = 0; at < sizeof p->hull_pts_m; at += 64) {
        PDK_PREFETCH((const char *)p->hull_pts_m + at);
    }
    PDK_PREFETCH((const char *)p->hull_pts_m + sizeof p->hull_pts_m - 1);
}

static void contact_push(pdk_world *world, uint32_t slot, const double dvel[3],
                         const double domega_body[3], const double dpos[3])
{
    pdk_fw_state *s = &fw_state_of(world)[slot];
    for (int j = 0; j < 3; j++) {
        s->vel_mps[j] += dvel[j];
        s->omega_radps[j] += domega_body[j];
        s->pos_m[j] += dpos[j];
    }
}

static int record_spans(const pdk_world *world, uint32_t slot, pdk_record_span *out)
{
    _Static_assert(sizeof(pdk_fw_state) % 8u == 0u && offsetof(pdk_fw_record, cmd) % 8u == 0u &&
                       sizeof(pdk_fw_cmd) % 8u == 0u,
                   "the record's spans are whole words");
    out[0] = (pdk_record_span){offsetof(pdk_fw_record, state), sizeof(pdk_fw_state),
                               &fw_state_of(world)[slot]};
    out[1] = (pdk_record_span){offsetof(pdk_fw_record, cmd), sizeof(pdk_fw_cmd),
                               &fw_cmd_of(world)[slot]};
    return 2;
}

static const char *record_problem(const pdk_model_record *r, const pdk_vehicle_def *def)
{
    const pdk_fw_state *fw = &r->fw.state;
    if (!pdk_all_finite(fw->pos_m, 3) || !pdk_all_finite(fw->quat, 4) ||
        !pdk_all_finite(fw->vel_mps, 3) || !pdk_all_finite(fw->omega_radps, 3) ||
        !pdk_all_finite(fw->spin_radps, PDK_WHEELS)) {
        return "the record's four-wheel state holds a non-finite position, orientation, "
               "velocity or wheel spin";
    }
    if (fw->faulted > PDK_VEHICLE_FAULT_MAX) {
        return "the record's fault code is not 0..3 (pdk_vehicle_fault)";
    }
    if (fw->life_ticks < 1u || fw->life_ticks > PDK_FW_LIFE_TICKS ||
        fw->work_ticks >= fw->life_ticks) {
        return "the record's tyre-life ticks are not 0 <= work_ticks < life_ticks <= 8";
    }
    if (fw->pt.kind != (int32_t)def->powertrain.kind) {
        return "the record's powertrain kind differs from the definition's";
    }
    if (def->powertrain.kind == PDK_POWERTRAIN_GEARED) {
        int32_t n = def->powertrain.geared.n_gears;
        if (fw->pt.gear_index < 0 || fw->pt.gear_index > n || fw->pt.gear_target < 0 ||
            fw->pt.gear_target > n || r->fw.cmd.gear_number < 0 || r->fw.cmd.gear_number > n) {
            return "the record's gear index, target or number is beyond the definition's "
                   "gears";
        }
    }
    return NULL;
}

static void restore(pdk_world *world, uint32_t slot, const pdk_model_record *r)
{
    fw_state_of(world)[slot] = r->fw.state;
    fw_cmd_of(world)[slot] = r->fw.cmd;
}

#define MEMBER(h, type, member) PDK_LAYOUT_MEMBER(h, 0u, type, member)
#define STRUCT(h, type) PDK_LAYOUT_STRUCT(h, type)

static uint64_t record_members(uint64_t h, size_t at)
{
    h = PDK_LAYOUT_MEMBER(h, at, pdk_fw_record, state);
    return PDK_LAYOUT_MEMBER(h, at, pdk_fw_record, cmd);
}

static uint64_t record_layout(uint64_t h)
{
    h = STRUCT(h, pdk_fw_state);
    h = MEMBER(h, pdk_fw_state, pos_m);
    h = MEMBER(h, pdk_fw_state, quat);
    h = MEMBER(h, pdk_fw_state, vel_mps);
    h = MEMBER(h, pdk_fw_state, omega_radps);
    h = MEMBER(h, pdk_fw_state, prev_fx_n);
    h = MEMBER(h, pdk_fw_state, prev_fy_n);
    h = MEMBER(h, pdk_fw_state, accel_mps2);
    h = MEMBER(h, pdk_fw_state, spin_radps);
    h = MEMBER(h, pdk_fw_state, defl_x_m);
    h = MEMBER(h, pdk_fw_state, defl_y_m);
    h = MEMBER(h, pdk_fw_state, sinkage_m);
    h = MEMBER(h, pdk_fw_state, life);
    h = MEMBER(h, pdk_fw_state, effect);
    h = MEMBER(h, pdk_fw_state, work_power_w);
    h = MEMBER(h, pdk_fw_state, work_load_n);
    h = MEMBER(h, pdk_fw_state, work_speed_mps);
    h = MEMBER(h, pdk_fw_state, work_contact);
    h = MEMBER(h, pdk_fw_state, work_ticks);
    h = MEMBER(h, pdk_fw_state, life_ticks);
    h = MEMBER(h, pdk_fw_state, power_scale);
    h = MEMBER(h, pdk_fw_state, faulted);
    h = MEMBER(h, pdk_fw_state, pt);

    h = STRUCT(h, pdk_tyre_life);
    h = MEMBER(h, pdk_tyre_life, surface_temp_c);
    h = MEMBER(h, pdk_tyre_life, carcass_temp_c);
    h = MEMBER(h, pdk_tyre_life, gas_temp_c);
    h = MEMBER(h, pdk_tyre_life, air_share);
    h = MEMBER(h, pdk_tyre_life, leak_per_s);
    h = MEMBER(h, pdk_tyre_life, tread_m);
    h = MEMBER(h, pdk_tyre_life, flat_run_m);
    h = MEMBER(h, pdk_tyre_life, grip_scale);
    h = MEMBER(h, pdk_tyre_life, condition);
    h = STRUCT(h, pdk_tyre_effect);
    h = MEMBER(h, pdk_tyre_effect, grip);
    h = MEMBER(h, pdk_tyre_effect, radius_drop_m);
    h = MEMBER(h, pdk_tyre_effect, rolling_scale);
    h = MEMBER(h, pdk_tyre_effect, pressure_kpa);

    h = STRUCT(h, pdk_fw_powertrain);
    h = MEMBER(h, pdk_fw_powertrain, engine_radps);
    h = MEMBER(h, pdk_fw_powertrain, request);
    h = MEMBER(h, pdk_fw_powertrain, cvt_ratio);
    h = MEMBER(h, pdk_fw_powertrain, clutch_nm);
    h = MEMBER(h, pdk_fw_powertrain, carrier_radps);
    h = MEMBER(h, pdk_fw_powertrain, fuel_l);
    h = MEMBER(h, pdk_fw_powertrain, fuel_used_l);
    h = MEMBER(h, pdk_fw_powertrain, lever);
    h = MEMBER(h, pdk_fw_powertrain, requested);
    h = MEMBER(h, pdk_fw_powertrain, reject);
    h = MEMBER(h, pdk_fw_powertrain, drive_mode);
    h = MEMBER(h, pdk_fw_powertrain, kind);
    h = MEMBER(h, pdk_fw_powertrain, ledger_j);
    h = MEMBER(h, pdk_fw_powertrain, gear_index);
    h = MEMBER(h, pdk_fw_powertrain, gear_target);
    h = MEMBER(h, pdk_fw_powertrain, shift_left_s);
    h = MEMBER(h, pdk_fw_powertrain, last_shift);
    h = MEMBER(h, pdk_fw_powertrain, kickdown);
    h = MEMBER(h, pdk_fw_powertrain, in_gear_s);
    h = MEMBER(h, pdk_fw_powertrain, abs_scale);
    h = MEMBER(h, pdk_fw_powertrain, abs_active);
    h = MEMBER(h, pdk_fw_powertrain, abs_peak_slip);
    h = MEMBER(h, pdk_fw_powertrain, abs_rate_per_s);
    h = MEMBER(h, pdk_fw_powertrain, abs_since_s);
    h = MEMBER(h, pdk_fw_powertrain, abs_dose_s);
    h = MEMBER(h, pdk_fw_powertrain, abs_wheel_mps);
    h = MEMBER(h, pdk_fw_powertrain, abs_time_s);
    h = MEMBER(h, pdk_fw_powertrain, abs_fx_n);
    h = MEMBER(h, pdk_fw_powertrain, abs_slip);
    h = MEMBER(h, pdk_fw_powertrain, abs_cov_n);
    h = MEMBER(h, pdk_fw_powertrain, abs_var_fx_n2);
    h = MEMBER(h, pdk_fw_powertrain, abs_var_slip);
    h = STRUCT(h, pdk_utv_lever);
    h = MEMBER(h, pdk_utv_lever, engaged);
    h = MEMBER(h, pdk_utv_lever, target);
    h = MEMBER(h, pdk_utv_lever, shift_left_s);

    h = STRUCT(h, pdk_fw_cmd);
    h = MEMBER(h, pdk_fw_cmd, throttle_pct);
    h = MEMBER(h, pdk_fw_cmd, brake_bar);
    h = MEMBER(h, pdk_fw_cmd, steer_wheel_deg);
    h = MEMBER(h, pdk_fw_cmd, steer_rad);
    h = MEMBER(h, pdk_fw_cmd, wheel_steer_rad);
    h = MEMBER(h, pdk_fw_cmd, wheel_sin);
    h = MEMBER(h, pdk_fw_cmd, wheel_cos);
    h = MEMBER(h, pdk_fw_cmd, drive_gain);
    h = MEMBER(h, pdk_fw_cmd, governor_mps);
    h = MEMBER(h, pdk_fw_cmd, governor_fade_mps);
    h = MEMBER(h, pdk_fw_cmd, hold_n);
    h = MEMBER(h, pdk_fw_cmd, brake_nm);
    h = MEMBER(h, pdk_fw_cmd, brake_n);
    h = MEMBER(h, pdk_fw_cmd, pedal_map);
    h = MEMBER(h, pdk_fw_cmd, gear_number);
    h = MEMBER(h, pdk_fw_cmd, park_brake);
    h = MEMBER(h, pdk_fw_cmd, gear_code);
    return MEMBER(h, pdk_fw_cmd, gear);
}

#undef MEMBER
#undef STRUCT

const pdk_model_ops pdk_model_four_wheel = {
    .kind = PDK_MODEL_FOUR_WHEEL,
    .def_check = pdk_fw_def_check,
    .arrays = 5,
    .array_bytes = {sizeof(pdk_fw_state), sizeof(pdk_fw_cmd), sizeof(pdk_fw_consts),
                    sizeof(pdk_tyre_consts4), sizeof(uint32_t)},
    .spawn = spawn,
    .spawn_like = spawn_like,
    .reset = reset_vehicle,
    .remove = remove_vehicle,
    .held = held,
    .command = command,
    .actuate = actuate,
    .kit_reading = kit_reading,
    .kit_message = kit_message,
    .tyre_input = tyre_input,
    .tyre_refusal = NULL,
    .tyre_sets = tyre_sets,
    .step = step,
    .pose = pose,
    .faulted = faulted,
    .hash = PDK_MODEL_HASH_TABLE(fw),
    .contact_body = contact_body,
    .contact_prefetch = contact_prefetch,
    .contact_push = contact_push,
    .record_spans = record_spans,
    .record_problem = record_problem,
    .restore = restore,
    .record_members = record_members,
    .record_layout = record_layout,
};
