/* The four-wheel model at the terrain's vertical faces (terrain.h
 * pdk_terrain_face; docs/vehicle-model.md, "Faces and the end of the
 * travel"), through the public world API as a user drives it:
 *  1. the query: behind a face, a tilted ray on a face's side, a landing,
 *     a dip, the sweep's samples;
 *  2. the bug it fixes: a ref1_sedan drifting off the hill preset's 10 %
 *     lane into the gap met the 20 % lane's 3 m side face, and its strut
 *     took the face's top as metres of travel: 104 m/s within a tick, 1.8
 *     km/s four ticks later;
 *  3. cars driven square and at 45 degrees into that face, at 2 to 20 m/s;
 *  4. a car driven off a plateau's side edge, and up to its side, 0.1 to
 *     4.5 m high, at 1 to 12 m/s;
 *  5. every four-wheel vehicle preset on hill, kerb_track, kerb_strip and
 *     mixed_field, driven as the bug report's driver did;
 *  6. the same bits from every build of the step at the faces.
 * Energy is the check: the body's and the wheels' kinetic energy plus m g z
 * never rise above the start's by more than the drive put in, plus what
 * the struts held at the start (a strut gives back its spring's energy)
 * and, where a wheel crosses a step below its strut's reach, what a strut
 * holds at the top of its ray (terrain.h: a climbable step is taken at
 * once). A car on its side or roof lies on its hull (vehicle/hull.h;
 * test_fw_hull has that case): such a run is checked for energy to its end
 * and for its place only until it overturns. A car that meets a face with
 * its body first (a bumper ahead of its front wheels) has met the face. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "vehicle/four_wheel.h"
#include "params.h"
#include "ground/terrain.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"

#define PRESETS PDK_SOURCE_DIR "/presets"
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---- 1. the query --------------------------------------------------------- */

/* A plateau: a ramp at 45 degrees (grade 1, no rounding) rising height_m
 * along +x from x = 0, holding for 40 m, 8 m wide about y = 0: its top spans
 * x = height .. height + 40, y = -4 .. 4, with vertical side faces at y =
 * +-4. */
static pdk_terrain_def plateau(double height_m)
{
    pdk_terrain_def t;
    pdk_terrain_def_flat(&t);
    t.n_ramps = 1;
    t.ramps[0] = (pdk_ramp){.x_m = 0.0,
                            .y_m = 0.0,
                            .yaw_rad = 0.0,
                            .length_m = height_m,
                            .width_m = 8.0,
                            .grade = 1.0,
                            .transition_m = 0.0,
                            .hold_m = 40.0};
    ck_assert_ptr_null(pdk_terrain_problem(&t));
    pdk_terrain_prepare(&t);
    return t;
}

static pdk_ground_hit ray(const pdk_terrain_def *t, const double o[3], const double d[3])
{
    pdk_ground_hit hit;
    pdk_terrain_ray_hit(t, o, d, &hit);
    return hit;
}

START_TEST(test_face_query)
{
    const pdk_terrain_def t = plateau(2.0);
    const double down[3] = {0.0, 0.0, -1.0};
    pdk_face_hit face;

    /* 0.1 m behind the side face at y = 4, 0.3 m above the floor: the ray
     * starts inside the plateau. Behind the face: its normal +y, depth 0.1,
     * and the wheel stands on the floor at its foot (distance 0.3 down). */
    const double behind[3] = {20.0, 3.9, 0.3};
    pdk_ground_hit hit = ray(&t, behind, down);
    ck_assert_double_lt(hit.distance_m, 0.0);
    ck_assert_int_eq(pdk_terrain_face(&t, behind, down, 0.5, &face, &hit), PDK_FACE_BEHIND);
    ck_assert_double_eq_tol(face.normal[0], 0.0, 1e-12);
    ck_assert_double_eq_tol(face.normal[1], 1.0, 1e-12);
    ck_assert_double_eq(face.normal[2], 0.0);
    ck_assert_double_eq_tol(face.depth_m, 0.1, 1e-9);
    ck_assert_double_eq_tol(face.foot_m[1], 4.0 + PDK_TERRAIN_FACE_ACROSS_M, 1e-9);
    ck_assert_double_eq(face.foot_m[2], 0.0);
    ck_assert_double_eq_tol(hit.distance_m, 0.3, 1e-12);
    ck_assert_double_eq_tol(hit.normal[2], 1.0, 1e-12);
    /* Beyond the reach it is not behind a face. */
    hit = ray(&t, behind, down);
    ck_assert_int_eq(pdk_terrain_face(&t, behind, down, 0.05, &face, &hit), PDK_FACE_NONE);
    ck_assert_double_lt(hit.distance_m, 0.0);

    /* On the top, and on the floor beside it: nothing changes. */
    const double top[3] = {20.0, 0.0, 2.3};
    hit = ray(&t, top, down);
    pdk_ground_hit same = hit;
    ck_assert_int_eq(pdk_terrain_face(&t, top, down, 0.5, &face, &hit), PDK_FACE_NONE);
    ck_assert_mem_eq(&hit, &same, sizeof hit);
    const double floor_o[3] = {20.0, 5.0, 0.3};
    hit = ray(&t, floor_o, down);
    ck_assert_int_eq(pdk_terrain_face(&t, floor_o, down, 0.5, &face, &hit), PDK_FACE_NONE);
    ck_assert_double_eq_tol(hit.distance_m, 0.3, 1e-12);

    /* A ray tilted 20 degrees toward the face from 0.1 m in front of it, 0.3
     * m up, meets its side 2.5 cm up (the terrain's ray stops at the
     * edge); the wheel stands on the floor's plane: distance 0.3 / cos 20. */
    const double tilt[3] = {0.0, -sin(20.0 * DEG), -cos(20.0 * DEG)};
    const double front[3] = {20.0, 4.1, 0.3};
    hit = ray(&t, front, tilt);
    ck_assert_double_lt(hit.distance_m, 0.3 / cos(20.0 * DEG) - 0.01);
    ck_assert_int_eq(pdk_terrain_face(&t, front, tilt, 0.5, &face, &hit), PDK_FACE_SIDE);
    ck_assert_double_eq_tol(hit.distance_m, 0.3 / cos(20.0 * DEG), 1e-9);
    ck_assert_double_eq_tol(hit.point_m[2], 0.0, 1e-9);

    /* Pushed 5 cm into level ground from above (a hard landing), far from
     * any face: not behind one. So is a point under the plateau's top more
     * than the reach from its sides. */
    const double landed[3] = {80.0, 0.0, -0.05};
    hit = ray(&t, landed, down);
    ck_assert_int_eq(pdk_terrain_face(&t, landed, down, 0.5, &face, &hit), PDK_FACE_NONE);
    ck_assert_double_eq_tol(hit.distance_m, -0.05, 1e-12);
    const double deep[3] = {20.0, 0.0, 1.9};
    hit = ray(&t, deep, down);
    ck_assert_int_eq(pdk_terrain_face(&t, deep, down, 0.5, &face, &hit), PDK_FACE_NONE);

    /* A dip: 0.2 m deep, 1 m wide across y, long along x. A point just
     * beside it, 5 cm below the plane, is behind the dip's side: its normal
     * points into the dip, its foot is the dip's floor. */
    pdk_terrain_def d;
    pdk_terrain_def_flat(&d);
    d.n_bumps = 1;
    d.bumps[0] = (pdk_bump){
        .x_m = 0.0, .y_m = 0.0, .yaw_rad = 0.0, .length_m = 10.0, .width_m = 1.0, .height_m = -0.2};
    pdk_terrain_prepare(&d);
    const double beside[3] = {0.0, 0.55, -0.05};
    hit = ray(&d, beside, down);
    ck_assert_int_eq(pdk_terrain_face(&d, beside, down, 0.5, &face, &hit), PDK_FACE_BEHIND);
    ck_assert_double_eq_tol(face.normal[1], -1.0, 1e-12);
    ck_assert_double_eq_tol(face.depth_m, 0.05, 1e-9);
    ck_assert_double_eq_tol(face.foot_m[2], -0.2, 1e-9);
    ck_assert_double_eq_tol(hit.distance_m, 0.15, 1e-9);

    /* The sweep never stops a wheel above its origin: a shoulder over the
     * plateau's top 2 m up is a face's side, and the centre's ray wins. */
    const double axle[3] = {0.0, 1.0, 0.0};
    const double sweep_o[3] = {20.0, 4.05, 0.3};
    pdk_ground_hit sw;
    pdk_terrain_sweep(&t, sweep_o, down, axle, 0.3, 0.2, &sw);
    ck_assert_double_eq_tol(sw.distance_m, 0.3, 1e-12);
}
END_TEST

/* ---- a vehicle in a world of its own ------------------------------------- */

typedef struct car {
    char name[65];
    void *mem;
    pdk_world *w;
    pdk_vehicle_id id;
    pdk_vehicle_def def;
    pdk_world_def wd;
    pdk_fw_params params;    /* the model's constants: the rays' geometry */
    pdk_terrain_def terrain; /* prepared, for pdk_terrain_face */
    const double *ch;
    int powertrain;
    double energy0_j, work_j, slack_j;
    double excess_j;                         /* the most E - E0 - work */
    double max_speed_mps, upright_speed_mps; /* the latter until it overturns */
    int ticks, overturned_at, face_ticks, body_ticks;
} car;

/* The energy a strut holds at travel x: spring from its static compression,
 * bump stop beyond bump travel. */
static double strut_j(const pdk_fw_axle *ax, double x)
{
    double s = ax->static_compression_m + x;
    double stop = x > ax->travel_bump_m ? x - ax->travel_bump_m : 0.0;
    return 0.5 * ax->spring_npm * s * s + 0.5 * ax->bump_stop_npm * stop * stop;
}

/* What a strut can give back without work done on it: its spring's energy
 * at rest; with steps (climb 1) also what a step below its ray's top can
 * give it at once: its energy at the top less at rest, and the bar's. */
static double slack_of(const pdk_fw_params *p, int climb)
{
    double top = p->c.ride_ray_top_m, sum = 0.0;
    for (int k = 0; k < 2; k++) {
        const pdk_fw_axle *ax = &p->axle[k];
        sum += 2.0 * strut_j(ax, 0.0);
        if (climb) {
            sum += 2.0 * (strut_j(ax, top) - strut_j(ax, 0.0) + 0.5 * ax->arb_npm * top * top);
        }
    }
    /* The tyres' deflections and the first tick's drive (the energy is
     * read at the ticks' ends, the drive's work at their ends' power). */
    return sum + 500.0;
}

static void car_open(car *c, const pdk_world_def *wd, const char *preset,
                     const pdk_vehicle_def *def, double x_m, double y_m, double yaw_rad,
                     double speed_mps, pdk_gear gear, int climb)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", preset != NULL ? preset : "the test car");
    c->wd = *wd;
    c->wd.max_vehicles = 1;
    char err[PDK_PARAMS_ERR_LEN];
    if (preset != NULL) {
        pdk_error rc =
            pdk_params_vehicle_load(PRESETS, preset, NULL, &c->def, NULL, err, sizeof err);
        ck_assert_msg(rc == PDK_OK, "%s: %s", preset, err);
    } else {
        c->def = *def;
    }
    const char *why = pdk_world_def_problem(&c->wd);
    ck_assert_msg(why == NULL, "world rejected: %s", why);
    size_t bytes = (pdk_world_mem_size(&c->wd) + 63u) / 64u * 64u;
    c->mem = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(c->mem);
    ck_assert_int_eq(pdk_world_init(c->mem, bytes, &c->wd, &c->w), PDK_OK);
    pdk_pose pose = {x_m, y_m, yaw_rad};
    why = pdk_world_spawn_problem(c->w, &c->def, &pose, speed_mps, gear);
    ck_assert_msg(why == NULL, "spawn refused: %s", why);
    ck_assert_int_eq(pdk_world_spawn(c->w, &c->def, &pose, speed_mps, gear, &c->id), PDK_OK);
    pdk_fw_params_init(&c->params, &c->def, c->wd.dt_s / c->wd.substeps, c->wd.gravity_mps2,
                       c->wd.air_density_kgpm3, c->wd.surface_friction);
    c->terrain = c->wd.terrain;
    pdk_terrain_prepare(&c->terrain);
    c->powertrain = c->def.powertrain.kind != PDK_POWERTRAIN_LUMPED;
    c->slack_j = slack_of(&c->params, climb);
    c->overturned_at = -1;
    c->excess_j = -INFINITY;
}

static void car_close(car *c)
{
    free(c->mem);
    c->mem = NULL;
}

/* The command, the steering wheel held within its lock. */
static void car_cmd(car *c, double throttle_pct, double steer_deg, pdk_gear gear)
{
    const double lock = c->def.steering.lock_deg;
    steer_deg = steer_deg > lock ? lock : (steer_deg < -lock ? -lock : steer_deg);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR,
                       .throttle_pct = throttle_pct,
                       .brake_bar = 0.0,
                       .steer_wheel_deg = steer_deg,
                       .gear = gear};
    ck_assert_int_eq(pdk_world_command(c->w, c->id, &cmd), PDK_OK);
}

/* The body's and the wheels' kinetic energy and m g z (the channels' world
 * speed; the pose's body rates). */
static double energy_j(const car *c, const pdk_vehicle_pose *p)
{
    const pdk_chassis_def *ch = &c->def.chassis;
    const double *v = c->ch;
    double v2 = v[PDK_CH_SPEED] * v[PDK_CH_SPEED] + v[PDK_CH_VEL_Z] * v[PDK_CH_VEL_Z];
    double e = 0.5 * ch->mass_kg * v2 + ch->mass_kg * c->wd.gravity_mps2 * p->z_m;
    e += 0.5 * (ch->roll_inertia_kgm2 * p->roll_rate_radps * p->roll_rate_radps +
                ch->pitch_inertia_kgm2 * p->pitch_rate_radps * p->pitch_rate_radps +
                ch->yaw_inertia_kgm2 * p->yaw_rate_radps * p->yaw_rate_radps);
    for (int i = 0; i < PDK_WHEELS; i++) {
        double in = (i < 2 ? c->def.tyre_front : c->def.tyre_rear).spin_inertia_kgm2;
        double w = v[PDK_CH_WHEEL_SPEED_FL + i];
        e += 0.5 * in * w * w;
    }
    return e;
}

/* The drive's work on the wheels since spawn: a powertrain's from its
 * ledger (what the fuel gave less what the engine, accessories, clutch and
 * driveline kept), the lumped drive's its torque times the wheels' spin
 * where positive, summed over the ticks. */
static void add_work(car *c)
{
    const double *v = c->ch;
    if (c->powertrain) {
        c->work_j = v[PDK_CH_ENERGY_FUEL] - v[PDK_CH_ENERGY_ENGINE_LOSS] -
                    v[PDK_CH_ENERGY_PARASITIC] - v[PDK_CH_ENERGY_ENGINE_KINETIC] -
                    v[PDK_CH_ENERGY_CLUTCH] - v[PDK_CH_ENERGY_DRIVELINE];
        return;
    }
    for (int i = 0; i < PDK_WHEELS; i++) {
        double p = v[PDK_CH_WHEEL_TORQUE_FL + i] * v[PDK_CH_WHEEL_SPEED_FL + i];
        c->work_j += (p > 0.0 ? p : 0.0) * c->wd.dt_s;
    }
}

/* The wheels' rays' origins (ride_ray_top_m above their static contact
 * points) from the pose, and the rays' direction (down body z). */
static void ray_origins(const car *c, const pdk_vehicle_pose *p, double o[PDK_WHEELS][3],
                        double dir[3])
{
    double sy = sin(p->yaw_rad), cy = cos(p->yaw_rad);
    double sp = sin(p->pitch_rad), cp = cos(p->pitch_rad);
    double sr = sin(p->roll_rad), cr = cos(p->roll_rad);
    /* R = Rz(yaw) Ry(pitch) Rx(roll). */
    const double r[3][3] = {{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                            {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                            {-sp, cp * sr, cp * cr}};
    const pdk_fw_consts *k = &c->params.c;
    for (int j = 0; j < 3; j++) {
        dir[j] = -r[j][2];
    }
    for (int i = 0; i < PDK_WHEELS; i++) {
        const double b[3] = {k->x_m[i], k->y_m[i], k->ride_ray_top_m - k->cg_height_m};
        const double cg[3] = {p->x_m, p->y_m, p->z_m};
        for (int j = 0; j < 3; j++) {
            o[i][j] = cg[j] + (r[j][0] * b[0] + r[j][1] * b[1] + r[j][2] * b[2]);
        }
    }
}

/* The largest y of the wheels' rays' origins. */
static double wheels_max_y(const car *c, const pdk_vehicle_pose *p)
{
    double o[PDK_WHEELS][3], dir[3];
    ray_origins(c, p, o, dir);
    double y = -INFINITY;
    for (int i = 0; i < PDK_WHEELS; i++) {
        y = fmax(y, o[i][1]);
    }
    return y;
}

/* Whether a wheel's ray starts behind a face. */
static int behind_a_face(const car *c, const pdk_vehicle_pose *p)
{
    double o[PDK_WHEELS][3], dir[3];
    ray_origins(c, p, o, dir);
    for (int i = 0; i < PDK_WHEELS; i++) {
        pdk_face_hit face;
        pdk_ground_hit hit = {.distance_m = -1.0};
        if (pdk_terrain_face(&c->terrain, o[i], dir, PDK_FW_FACE_REACH_M, &face, &hit) ==
            PDK_FACE_BEHIND) {
            return 1;
        }
    }
    return 0;
}

/* One tick: the energy against the drive's work, the speed, whether a wheel
 * is behind a face and whether the car has overturned. */
static pdk_vehicle_pose car_step(car *c)
{
    pdk_world_step(c->w);
    c->ch = pdk_world_channels(c->w, c->id);
    ck_assert_ptr_nonnull(c->ch);
    ck_assert_msg(c->ch[PDK_CH_FAULTED] == 0.0, "%s faulted at tick %d", c->name, c->ticks);
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(c->w, c->id, &p), PDK_OK);
    add_work(c);
    double e = energy_j(c, &p);
    if (c->ticks == 0) {
        c->energy0_j = e + c->work_j; /* the first tick's drive counted from here */
    }
    double excess = e - c->energy0_j - c->work_j;
    c->excess_j = excess > c->excess_j ? excess : c->excess_j;
    double speed =
        sqrt(c->ch[PDK_CH_SPEED] * c->ch[PDK_CH_SPEED] + c->ch[PDK_CH_VEL_Z] * c->ch[PDK_CH_VEL_Z]);
    c->max_speed_mps = speed > c->max_speed_mps ? speed : c->max_speed_mps;
    if (c->overturned_at < 0 && (fabs(p.roll_rad) > 0.5 * PI || fabs(p.pitch_rad) > 0.5 * PI)) {
        c->overturned_at = c->ticks;
    }
    if (c->overturned_at < 0) {
        c->upright_speed_mps = speed > c->upright_speed_mps ? speed : c->upright_speed_mps;
    }
    c->face_ticks += behind_a_face(c, &p);
    c->body_ticks += c->ch[PDK_CH_BODY_CONTACT] > 0.0;
    c->ticks++;
    return p;
}

/* The energy never rose by more than the drive's work and the slack. */
static void assert_energy(const car *c, const char *what)
{
    ck_assert_msg(c->excess_j <= c->slack_j,
                  "%s: energy rose %.0f J above the start's and the drive's work (%.0f J), "
                  "allowed %.0f J; top speed %.1f m/s",
                  what, c->excess_j, c->work_j, c->slack_j, c->max_speed_mps);
}

/* ---- 2. the bug ------------------------------------------------------------- */

/* The report's driver: from (5, 0) heading +x at 8 m/s in D at a fifth of
 * the pedal, the steering wheel swinging 60 degrees at 0.3 Hz about a
 * centre that drifts left 10 degrees a second (to at most 400). */
static double drift_steer_deg(int tick, double dt_s)
{
    double t = tick * dt_s;
    double s = 60.0 * sin(2.0 * PI * 0.3 * t) + 10.0 * t;
    return s < 400.0 ? s : 400.0;
}

static pdk_world_def world_preset(const char *name)
{
    pdk_world_def wd;
    char err[PDK_PARAMS_ERR_LEN];
    pdk_error rc = pdk_params_world_load(PRESETS, name, NULL, &wd, NULL, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "%s: %s", name, err);
    return wd;
}

/* Before the fix the car dropped into the gap between the 10 % and 20 %
 * lanes and at tick 398 its front-left wheel crossed the 20 % lane's side
 * face, 2.95 m tall there: 104 m/s that tick, 1.8 km/s by tick 402.
 * Now the face holds the wheel: it scrapes along, and the car never goes
 * faster than its drive and the hill can take it (14 m/s). */
START_TEST(test_report_ref1_sedan_on_hill)
{
    pdk_world_def wd = world_preset("hill");
    car c;
    car_open(&c, &wd, "ref1_sedan", NULL, 5.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE, 0);
    double z_max = 0.0;
    int first_face = -1;
    for (int t = 0; t < (int)lround(20.0 / wd.dt_s); t++) {
        car_cmd(&c, 20.0, drift_steer_deg(t, wd.dt_s), PDK_GEAR_DRIVE);
        pdk_vehicle_pose p = car_step(&c);
        z_max = fmax(z_max, p.z_m);
        if (first_face < 0 && c.face_ticks > 0) {
            first_face = t;
        }
    }
    printf("fw_terrain_edges: report's drive, ref1_sedan on hill: a wheel behind a face from tick "
           "%d for %d ticks, top speed %.2f m/s, highest CG %.2f m, energy above the drive's "
           "%.0f J (allowed %.0f)\n",
           first_face, c.face_ticks, c.max_speed_mps, z_max, c.excess_j, c.slack_j);
    ck_assert_int_gt(c.face_ticks, 0);
    ck_assert_int_eq(c.overturned_at, -1);
    ck_assert_double_lt(c.max_speed_mps, 20.0);
    ck_assert_double_lt(z_max, 1.0);
    assert_energy(&c, "ref1_sedan on hill");
    car_close(&c);
}
END_TEST

/* ---- 3. into the 20 % lane's side ---------------------------------------- */

/* Every four-wheel preset, coasting in neutral from the gap's middle (x =
 * 35 m, y = 5 m, where the 20 % lane's face at y = 7 m is 2.95 m tall; the
 * 10 % lane across the gap taken away) into
 * the face, square (heading +y) and at 45 degrees, at 2, 5, 10 and 20 m/s.
 * Nothing drives it, so its energy may only fall (slack aside) and its
 * speed never rises; it meets the face (with a wheel, or its body's front
 * first); while upright no wheel's ray gets further behind the face than
 * the reach. (A kart that meets it square at 20 m/s vaults: its
 * wheels stop at the face below its CG, and the CG rises some 1 m on what
 * it was carrying, as the energy shows.) */
typedef struct preset_list {
    char names[32][65];
    int n;
} preset_list;

static void add_preset(const char *name, const char *description, void *ud)
{
    (void)description;
    preset_list *l = ud;
    pdk_vehicle_def d;
    char err[PDK_PARAMS_ERR_LEN];
    if (l->n < 32 &&
        pdk_params_vehicle_load(PRESETS, name, NULL, &d, NULL, err, sizeof err) == PDK_OK &&
        d.model == PDK_MODEL_FOUR_WHEEL) {
        snprintf(l->names[l->n++], sizeof l->names[0], "%s", name);
    }
}

static preset_list four_wheel_presets(void)
{
    preset_list l;
    memset(&l, 0, sizeof l);
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, add_preset, &l), PDK_OK);
    ck_assert_int_ge(l.n, 8);
    return l;
}

START_TEST(test_into_a_face)
{
    pdk_world_def wd = world_preset("hill");
    /* Without the 10 % lane (y = 0), whose side at y = 3 m is 1.5 m tall
     * at x = 35 m: the gap is 4 m wide, shorter than the longer presets'
     * bodies (vehicle/hull.h), which would start inside that lane. */
    int kept = 0;
    for (int k = 0; k < wd.terrain.n_ramps; k++) {
        if (wd.terrain.ramps[k].y_m != 0.0) {
            wd.terrain.ramps[kept++] = wd.terrain.ramps[k];
        }
    }
    ck_assert_int_eq(kept, wd.terrain.n_ramps - 1);
    wd.terrain.n_ramps = kept;
    preset_list l = four_wheel_presets();
    const double speeds[] = {2.0, 5.0, 10.0, 20.0};
    const double headings[] = {90.0, 45.0};
    for (int v = 0; v < l.n; v++) {
        double worst = -INFINITY, deepest = 0.0, z_rise = -INFINITY;
        int overturned = 0;
        for (int h = 0; h < 2; h++) {
            for (int s = 0; s < 4; s++) {
                car c;
                car_open(&c, &wd, l.names[v], NULL, 35.0, 5.0, headings[h] * DEG, speeds[s],
                         PDK_GEAR_NEUTRAL, 0);
                double z0 = 0.0;
                for (int t = 0; t < (int)lround(3.0 / wd.dt_s); t++) {
                    car_cmd(&c, 0.0, 0.0, PDK_GEAR_NEUTRAL);
                    pdk_vehicle_pose p = car_step(&c);
                    z0 = t == 0 ? p.z_m : z0;
                    if (c.overturned_at < 0) {
                        deepest = fmax(deepest, wheels_max_y(&c, &p) - 7.0);
                        z_rise = fmax(z_rise, p.z_m - z0);
                    }
                }
                char what[160];
                snprintf(what, sizeof what, "%s into the face at %.0f deg, %.0f m/s", l.names[v],
                         headings[h], speeds[s]);
                assert_energy(&c, what);
                ck_assert_msg(c.upright_speed_mps <= speeds[s] + 0.5, "%s: top speed %.2f m/s",
                              what, c.upright_speed_mps);
                ck_assert_msg(s < 2 || c.face_ticks > 0 || c.body_ticks > 0,
                              "%s: never met the face", what);
                worst = fmax(worst, c.excess_j - c.slack_j);
                overturned += c.overturned_at >= 0;
                car_close(&c);
            }
        }
        printf("fw_terrain_edges: %-15s into the 20 %% lane's face: energy at most %.0f J from its "
               "bound, wheels at most %.2f m behind the face, CG up at most %.2f m, overturned in "
               "%d of 8\n",
               l.names[v], worst, deepest, z_rise, overturned);
        ck_assert_double_le(deepest, PDK_FW_FACE_REACH_M);
    }
}
END_TEST

/* ---- 4. off a plateau's side, and up to a step ---------------------------- */

/* The test car: the default car without drag, in neutral. */
static pdk_vehicle_def coasting_car(void)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    d.resist.drag_area_m2 = 0.0;
    return d;
}

static pdk_world_def plateau_world(double height_m)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.terrain = plateau(height_m);
    wd.terrain.prepared = 0;
    return wd;
}

/* Driven straight off a plateau's side edge (heading +y from its middle),
 * 0.1, 0.3, 1 and 4.5 m high, at 1, 3, 6 and 12 m/s: it falls the step's
 * height and lands; its energy never rises (it coasts), nor its speed
 * above what the fall gives, and it never rises above where it started.
 * Then up to the step from the floor (heading +y from y = -9): a 0.1 m
 * step is below the strut's reach and climbed (a strut takes it at once:
 * the slack has the struts' energy at their top), the others are faces it
 * stops at. */
START_TEST(test_off_and_up_a_step)
{
    const double heights[] = {0.1, 0.3, 1.0, 4.5};
    const double speeds[] = {1.0, 3.0, 6.0, 12.0};
    pdk_vehicle_def d = coasting_car();
    for (int k = 0; k < 4; k++) {
        pdk_world_def wd = plateau_world(heights[k]);
        const double x = heights[k] + 20.0;
        for (int s = 0; s < 4; s++) {
            for (int up = 0; up < 2; up++) {
                car c;
                car_open(&c, &wd, NULL, &d, x, up ? -9.0 : 0.0, 90.0 * DEG, speeds[s],
                         PDK_GEAR_NEUTRAL, 1);
                double z0 = 0.0, z_max = -INFINITY, y_max = -INFINITY;
                for (int t = 0; t < (int)lround(4.0 / wd.dt_s); t++) {
                    car_cmd(&c, 0.0, 0.0, PDK_GEAR_NEUTRAL);
                    pdk_vehicle_pose p = car_step(&c);
                    z0 = t == 0 ? p.z_m : z0;
                    if (c.overturned_at < 0) {
                        z_max = fmax(z_max, p.z_m);
                        y_max = fmax(y_max, wheels_max_y(&c, &p));
                    }
                }
                char what[128];
                snprintf(what, sizeof what, "%s a %.1f m step at %.0f m/s", up ? "up" : "off",
                         heights[k], speeds[s]);
                printf("fw_terrain_edges: %-30s: top speed %5.2f m/s, energy %6.0f J from its "
                       "bound, CG up %.3f m, %s\n",
                       what, c.upright_speed_mps, c.excess_j - c.slack_j, z_max - z0,
                       c.overturned_at >= 0 ? "overturned" : "upright");
                assert_energy(&c, what);
                if (!up) {
                    /* It falls at most the height: sqrt(v^2 + 2 g h). */
                    ck_assert_double_le(c.upright_speed_mps,
                                        sqrt(speeds[s] * speeds[s] + 2.0 * 9.81 * heights[k]) +
                                            0.5);
                    ck_assert_double_le(z_max - z0, 0.05);
                } else {
                    ck_assert_double_le(c.max_speed_mps, speeds[s] + 0.5);
                    if (heights[k] > c.params.c.ride_ray_top_m) {
                        /* Held at the face, on the floor: its front
                         * wheels' rays no further in than the reach. */
                        ck_assert_double_le(y_max, -4.0 + PDK_FW_FACE_REACH_M);
                        ck_assert_double_le(z_max - z0, 0.3);
                    }
                }
                car_close(&c);
            }
        }
    }
}
END_TEST

/* ---- 5. every preset, the report's driver --------------------------------- */

static void drift_on(const char *world)
{
    pdk_world_def wd = world_preset(world);
    preset_list l = four_wheel_presets();
    for (int v = 0; v < l.n; v++) {
        car c;
        car_open(&c, &wd, l.names[v], NULL, 5.0, 0.0, 0.0, 8.0, PDK_GEAR_DRIVE, 1);
        double far = 0.0, z_lo = INFINITY, z_hi = -INFINITY;
        for (int t = 0; t < (int)lround(30.0 / wd.dt_s); t++) {
            car_cmd(&c, 20.0, drift_steer_deg(t, wd.dt_s), PDK_GEAR_DRIVE);
            pdk_vehicle_pose p = car_step(&c);
            if (c.overturned_at < 0) {
                far = fmax(far, hypot(p.x_m - 5.0, p.y_m));
                z_lo = fmin(z_lo, p.z_m);
                z_hi = fmax(z_hi, p.z_m);
            }
        }
        char what[128];
        snprintf(what, sizeof what, "%s on %s", l.names[v], world);
        printf("fw_terrain_edges: %-28s: top speed %5.2f m/s, energy %6.0f J from its bound "
               "(drive %.0f J), a wheel behind a face %4d ticks, %s; CG within %.0f m, z %.2f .. "
               "%.2f m\n",
               what, c.max_speed_mps, c.excess_j - c.slack_j, c.work_j, c.face_ticks,
               c.overturned_at >= 0 ? "overturned (on its hull)" : "upright", far, z_lo,
               z_hi);
        assert_energy(&c, what);
        /* In the world: no further than 30 s at the hill's and the drive's
         * top speed, never below the floor nor above the hills' tops
         * (4.5 m) by more than a car. */
        ck_assert_double_lt(far, 30.0 * 25.0);
        ck_assert_double_gt(z_lo, -0.5);
        ck_assert_double_lt(z_hi, 6.0);
        car_close(&c);
    }
}

START_TEST(test_drift_hill)
{
    drift_on("hill");
}
END_TEST

START_TEST(test_drift_kerbs_and_field)
{
    drift_on("kerb_track");
    drift_on("kerb_strip");
    drift_on("mixed_field");
}
END_TEST

/* ---- 6. the same bits in every build --------------------------------------- */

/* One vehicle stepped by one build of the step (four_wheel.h pdk_fw_build),
 * outside a world. */
typedef struct solo {
    pdk_fw_params params;
    pdk_fw_state state;
    pdk_fw_cmd cmd;
    double ch[PDK_CH_COUNT];
} solo;

/* The faces' paths (a ray behind a face or on its side, the hard contacts
 * in the solve, their release) run scalar code in each build of the step:
 * the report's drive on hill, and a car driven square into the 20 % lane's
 * face and off the plateau's edge, give the same bits in the baseline, AVX2
 * and AVX-512 builds where the processor has them. */
START_TEST(test_faces_same_bits_every_build)
{
    const pdk_fw_build builds[3] = {PDK_FW_BUILD_BASELINE, PDK_FW_BUILD_AVX2, PDK_FW_BUILD_AVX512};
    pdk_world_def wd = world_preset("hill");
    pdk_terrain_prepare(&wd.terrain);
    pdk_vehicle_def d;
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "ref1_sedan", NULL, &d, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    const struct {
        double x, y, yaw_deg, speed, throttle;
        int drift;
    } runs[3] = {{5.0, 0.0, 0.0, 8.0, 20.0, 1},
                 {35.0, 5.0, 90.0, 10.0, 0.0, 0},
                 {50.0, 10.0, 90.0, 6.0, 0.0, 0}};
    int available = 0, faced = 0;
    for (int r = 0; r < 3; r++) {
        static solo run[3];
        for (int b = 0; b < 3; b++) {
            solo *o = &run[b];
            memset(o, 0, sizeof *o); /* padding too: states compare with memcmp */
            pdk_fw_params_init(&o->params, &d, wd.dt_s / wd.substeps, wd.gravity_mps2,
                               wd.air_density_kgpm3, wd.surface_friction);
            pdk_pose pose = {runs[r].x, runs[r].y, runs[r].yaw_deg * DEG};
            pdk_fw_state_init(&o->state, &o->params, &wd.terrain, &pose, runs[r].speed);
        }
        for (int t = 0; t < (int)lround(6.0 / wd.dt_s); t++) {
            double steer = runs[r].drift ? drift_steer_deg(t, wd.dt_s) : 0.0;
            steer = steer < d.steering.lock_deg ? steer : d.steering.lock_deg;
            pdk_gear gear = runs[r].drift ? PDK_GEAR_DRIVE : PDK_GEAR_NEUTRAL;
            for (int b = 0; b < 3; b++) {
                solo *o = &run[b];
                pdk_fw_cmd_set(&o->cmd, &d, runs[r].throttle, 0.0, steer, gear);
                pdk_fw_step_build(&o->state, &o->cmd, &o->params, &wd.terrain, wd.substeps, o->ch,
                                  builds[b]);
            }
            for (int b = 1; b < 3; b++) {
                if (!pdk_fw_build_available(builds[b])) {
                    continue;
                }
                available |= 1 << b;
                ck_assert_msg(memcmp(&run[0].state, &run[b].state, sizeof run[0].state) == 0,
                              "run %d, build %d: states differ at tick %d", r, (int)builds[b], t);
                ck_assert_msg(memcmp(run[0].ch, run[b].ch, sizeof run[0].ch) == 0,
                              "run %d, build %d: channels differ at tick %d", r, (int)builds[b], t);
            }
            /* Held by the face: the car coasting square into it at 10 m/s
             * is all but stopped within half a second (its tyres, rolling
             * straight, would take minutes). */
            faced |= fabs(run[0].state.vel_mps[1]) < 0.5 && r == 1 && t < 60;
        }
    }
    printf("fw_terrain_edges: faces, same bits: baseline against%s%s%s\n",
           available & 2 ? " AVX2" : "", available & 4 ? " AVX-512" : "",
           available == 0 ? " nothing (the processor has only the baseline build)" : "");
    ck_assert_int_eq(faced, 1);
}
END_TEST

static Suite *fw_terrain_edges_suite(void)
{
    Suite *s = suite_create("fw_terrain_edges");
    TCase *query = tcase_create("query");
    tcase_add_test(query, test_face_query);
    suite_add_tcase(s, query);
    TCase *faces = tcase_create("faces");
    tcase_set_timeout(faces, 100);
    tcase_add_test(faces, test_report_ref1_sedan_on_hill);
    tcase_add_test(faces, test_into_a_face);
    tcase_add_test(faces, test_off_and_up_a_step);
    tcase_add_test(faces, test_drift_hill);
    tcase_add_test(faces, test_drift_kerbs_and_field);
    tcase_add_test(faces, test_faces_same_bits_every_build);
    suite_add_tcase(s, faces);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fw_terrain_edges_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
