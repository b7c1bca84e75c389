/* The four-wheel model's body on the ground (vehicle/hull.h,
 * vehicle/hull_contact.h; docs/vehicle-model.md, "The body on the ground"),
 * its faults and its reset:
 *  1. the hull's geometry: its box from a preset, its points, its support
 *     function, its faces;
 *  2. a car dropped upside down onto flat ground comes to rest on its roof,
 *     the CG the roof's height above the ground, the energy ledger's
 *     residual within 0.1 % of what it placed;
 *  3. a car sliding on its roof stops in v^2 / (2 mu g) with the body's
 *     friction mu (PDK_FW_HULL_MU);
 *  4. a car sliding sideways off a plateau's edge lands and slides to rest,
 *     never below the ground;
 *  5. the issue's drive (the Polaris and the midsize sedan on the hill
 *     world: accelerate, a +-60 degree weave, coast, brake) never takes the
 *     body below the ground;
 *  6. an impossible state (a huge speed, a body under the ground, a NaN)
 *     faults the vehicle with its code, holds it, and a reset clears it;
 *     the reset rights a car on its roof and refuses what it must. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ground/terrain.h"
#include "model.h"
#include "params.h"
#include "sim/channels.h"
#include "sim/snapshot.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"
#include "vehicle/four_wheel.h"
#include "vehicle/hull.h"

#define PRESETS PDK_SOURCE_DIR "/presets"
#define PI 3.14159265358979323846
#define TICK_S (1.0 / 120.0)
#define SUBSTEPS 2

static pdk_vehicle_def preset(const char *name)
{
    pdk_vehicle_def d;
    char err[PDK_PARAMS_ERR_LEN];
    pdk_error rc = pdk_params_vehicle_load(PRESETS, name, NULL, &d, NULL, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "%s: %s", name, err);
    return d;
}

/* ---- 1. the hull ----------------------------------------------------------- */

START_TEST(test_hull_geometry)
{
    const pdk_vehicle_def d = preset("midsize_sedan");
    const double top = 0.2;
    const pdk_hull h = pdk_hull_from_def(&d, top);
    const pdk_chassis_def *c = &d.chassis;
    const double b = c->wheelbase_m - c->cg_to_front_axle_m;
    ck_assert_double_eq_tol(h.front_m, c->cg_to_front_axle_m + 2.0 * d.tyre_front.law.radius_m,
                            1e-12);
    ck_assert_double_eq_tol(h.rear_m, -b - 2.0 * d.tyre_rear.law.radius_m, 1e-12);
    ck_assert_double_eq_tol(h.bottom_m, d.tyre_front.law.radius_m - c->cg_height_m, 1e-12);
    ck_assert_double_eq_tol(pdk_hull_from_def(&d, 1.0).bottom_m, 1.0 - c->cg_height_m, 1e-12);
    ck_assert_double_eq_tol(h.roof_m, 1.5 * c->cg_height_m, 1e-12);
    ck_assert_double_gt(2.0 * h.half_width_m, c->track_width_m);

    /* The points: corners by their bits, then the x-edges' midpoints. */
    double pts[3 * PDK_HULL_POINTS];
    pdk_hull_points(&h, pts);
    ck_assert_double_eq(pts[3 * 7 + 0], h.front_m);
    ck_assert_double_eq(pts[3 * 7 + 1], h.half_width_m);
    ck_assert_double_eq(pts[3 * 7 + 2], h.roof_m);
    ck_assert_double_eq(pts[3 * 0 + 0], h.rear_m);
    ck_assert_double_eq(pts[3 * 0 + 1], -h.half_width_m);
    ck_assert_double_eq(pts[3 * 0 + 2], h.bottom_m);
    ck_assert_double_eq_tol(pts[3 * 11 + 0], 0.5 * (h.front_m + h.rear_m), 1e-12);
    for (int k = 0; k < PDK_HULL_POINTS; k++) {
        const double *p = &pts[3 * k];
        ck_assert_double_le(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]),
                            pdk_hull_reach_m(&h) + 1e-12);
    }

    /* Upright at (1, 2, 3): the lowest point is on the bottom, the most
     * forward at the front. Turned half a turn about x (on its roof): the
     * lowest is on the roof, and the left side is on the right. */
    const double pos[3] = {1.0, 2.0, 3.0};
    const double up[4] = {1.0, 0.0, 0.0, 0.0};
    const double roof[4] = {0.0, 1.0, 0.0, 0.0};
    const double down[3] = {0.0, 0.0, -1.0}, fwd[3] = {2.0, 0.0, 0.0};
    double at[3];
    ck_assert_double_eq_tol(pdk_hull_support(&h, pos, up, down, at), -(3.0 + h.bottom_m), 1e-12);
    ck_assert_double_eq_tol(at[2], 3.0 + h.bottom_m, 1e-12);
    ck_assert_double_eq_tol(pdk_hull_support(&h, pos, up, fwd, at), 2.0 * (1.0 + h.front_m), 1e-12);
    ck_assert_double_eq_tol(pdk_hull_support(&h, pos, roof, down, at), -(3.0 - h.roof_m), 1e-12);
    double world[3 * PDK_HULL_POINTS];
    pdk_hull_points_world(&h, pos, roof, world);
    ck_assert_double_eq_tol(world[3 * 7 + 1], 2.0 - h.half_width_m, 1e-12);
    ck_assert_double_eq_tol(world[3 * 7 + 2], 3.0 - h.roof_m, 1e-12);

    /* The faces toward a direction. */
    const double dirs[6][3] = {{0, 0, -1}, {0, 0, 1}, {0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {-1, 0, 0}};
    for (int k = 0; k < 6; k++) {
        ck_assert_int_eq(pdk_hull_face_toward(dirs[k]), PDK_HULL_FACE_BOTTOM + k);
    }
}
END_TEST

/* The body's dimensions from the preset keys chassis.bodyLength, bodyWidth
 * and bodyHeight: the box takes them (the length's difference shared by
 * both overhangs), and a definition with one out of its bounds is refused
 * naming it. */
START_TEST(test_hull_dimensions_given)
{
    pdk_vehicle_def d;
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          "chassis.bodyLength=4.8;chassis.bodyWidth=1.84;"
                                          "chassis.bodyHeight=1.45",
                                          &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.chassis.body_length_m, 4.8);
    const pdk_hull h = pdk_hull_from_def(&d, 0.1);
    ck_assert_double_eq_tol(h.front_m - h.rear_m, 4.8, 1e-12);
    ck_assert_double_eq_tol(2.0 * h.half_width_m, 1.84, 1e-12);
    ck_assert_double_eq_tol(h.roof_m + d.chassis.cg_height_m, 1.45, 1e-12);
    pdk_vehicle_def plain = preset("midsize_sedan");
    const pdk_hull p = pdk_hull_from_def(&plain, 0.1);
    const double more = 0.5 * (4.8 - (p.front_m - p.rear_m));
    ck_assert_double_eq_tol(h.front_m, p.front_m + more, 1e-12);
    ck_assert_double_eq_tol(h.rear_m, p.rear_m - more, 1e-12);

    static const struct {
        double length, width, height;
        const char *names;
    } bad[] = {{2.0, 0.0, 0.0, "chassis.body_length_m"},
               {31.0, 0.0, 0.0, "chassis.body_length_m"},
               {0.0, 1.0, 0.0, "chassis.body_width_m"},
               {0.0, 0.0, 0.5, "chassis.body_height_m"},
               {0.0, 0.0, NAN, "chassis.body_height_m"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        pdk_vehicle_def b = plain;
        b.chassis.body_length_m = bad[k].length;
        b.chassis.body_width_m = bad[k].width;
        b.chassis.body_height_m = bad[k].height;
        ck_assert_int_eq(pdk_vehicle_def_check(&b), PDK_ERR_OUT_OF_RANGE);
        const char *why = pdk_vehicle_def_problem(&b);
        ck_assert_msg(why != NULL && strstr(why, bad[k].names) != NULL, "%s", why);
    }
    ck_assert_int_ne(pdk_params_vehicle_load(PRESETS, "midsize_sedan", "chassis.bodyWidth=7", &d,
                                             NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_msg(strstr(err, "chassis.bodyWidth") != NULL, "%s", err);
}
END_TEST

/* ---- one vehicle stepped on its own ---------------------------------------- */

typedef struct lone {
    pdk_vehicle_def def;
    pdk_fw_params p;
    pdk_fw_state s;
    pdk_fw_cmd cmd;
    pdk_terrain_def terrain;
    pdk_hull hull;
    double ch[PDK_CH_COUNT];
} lone;

/* def at (x, y, yaw) on terrain at rest in gear, the state then turned by
 * quat about the CG and set at height z (CG, world) moving at vel. */
static void lone_init(lone *l, const char *name, const pdk_terrain_def *terrain, double x, double y,
                      const double quat[4], double z, const double vel[3], pdk_gear gear)
{
    memset(l, 0, sizeof *l);
    l->def = preset(name);
    l->terrain = *terrain;
    pdk_terrain_prepare(&l->terrain);
    pdk_fw_params_init(&l->p, &l->def, TICK_S / SUBSTEPS, 9.81, 1.225, 1.0);
    const pdk_pose pose = {x, y, 0.0};
    pdk_fw_state_init(&l->s, &l->p, &l->terrain, &pose, 0.0);
    pdk_fw_powertrain_init(&l->s, &l->def.powertrain, gear, 0.0, l->p.c.radius_m[PDK_RL]);
    pdk_fw_cmd_set(&l->cmd, &l->def, 0.0, 0.0, 0.0, gear);
    for (int j = 0; j < 4; j++) {
        l->s.quat[j] = quat[j];
    }
    l->s.pos_m[2] = z;
    for (int j = 0; j < 3; j++) {
        l->s.vel_mps[j] = vel[j];
        l->s.accel_mps2[j] = 0.0;
    }
    l->hull = pdk_hull_from_def(&l->def, l->p.c.ride_ray_top_m);
}

static void lone_step(lone *l)
{
    pdk_fw_step(&l->s, &l->cmd, &l->p, &l->terrain, SUBSTEPS, l->ch);
}

/* How far the body's deepest point is in the ground (negative: all of it
 * above): below the ground under it, or, behind a face within
 * PDK_FW_FACE_REACH_M, the shorter of that and its horizontal distance
 * behind the face (a point beside a ramp's side is not metres deep for
 * being under the ramp's top). */
static double lone_depth_m(const lone *l)
{
    static const double down[3] = {0.0, 0.0, -1.0};
    double pts[3 * PDK_HULL_POINTS];
    pdk_hull_points_world(&l->hull, l->s.pos_m, l->s.quat, pts);
    double depth = -INFINITY;
    for (int k = 0; k < PDK_HULL_POINTS; k++) {
        double *pt = &pts[3 * k], n[3];
        double d = pdk_terrain_height(&l->terrain, pt[0], pt[1], n) - pt[2];
        if (d > 0.0) {
            pdk_ground_hit hit;
            pdk_face_hit face;
            pdk_terrain_ray_hit(&l->terrain, pt, down, &hit);
            if (pdk_terrain_face(&l->terrain, pt, down, PDK_FW_FACE_REACH_M, &face, &hit) ==
                PDK_FACE_BEHIND) {
                d = fmin(d * n[2], face.depth_m);
            }
        }
        depth = fmax(depth, d);
    }
    return depth;
}

static double speed_of(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* What the ledger placed: the sum of its terms' magnitudes. */
static double ledger_scale(const double *ch)
{
    double sum = 0.0;
    for (int k = 0; k < PDK_LEDGER_COUNT; k++) {
        sum += fabs(ch[PDK_CH_ENERGY_FUEL + k]);
    }
    return sum;
}

/* ---- 2. dropped on its roof -------------------------------------------------- */

/* Upside down (half a turn about x), the roof 0.5 m above flat asphalt,
 * in neutral: it falls, lands on its roof and lies there. After 10 s the
 * CG is the roof's height above the ground (within the contact's
 * penetration), the body at rest, the roof face reported with the whole
 * weight on it, and the ledger places everything within 0.1 % (the fall's
 * m g h goes into the contact and the engine's idling fuel into its heat). */
START_TEST(test_dropped_on_its_roof)
{
    const char *names[] = {"midsize_sedan", "polaris_ranger"};
    pdk_terrain_def flat;
    pdk_terrain_def_flat(&flat);
    const double roof[4] = {0.0, 1.0, 0.0, 0.0};
    const double still[3] = {0.0, 0.0, 0.0};
    for (int v = 0; v < 2; v++) {
        lone l;
        lone_init(&l, names[v], &flat, 0.0, 0.0, roof, 0.0, still, PDK_GEAR_NEUTRAL);
        l.s.pos_m[2] = l.hull.roof_m + 0.5;
        double deepest = -INFINITY;
        for (int t = 0; t < 10 * 120; t++) {
            lone_step(&l);
            ck_assert_uint_eq(l.s.faulted, 0u);
            deepest = fmax(deepest, lone_depth_m(&l));
        }
        const double weight_n = l.p.c.mass_kg * 9.81;
        const double residual = l.ch[PDK_CH_ENERGY_RESIDUAL];
        const double scale = ledger_scale(l.ch);
        printf("fw_hull: %s dropped 0.5 m on its roof: CG %.4f m (roof %.4f m), speed %.2e m/s, "
               "deepest %.4f m, contact %.0f points %.0f N (weight %.0f N) face %.0f, ledger "
               "residual %.2f J of %.0f J (%.4f %%)\n",
               names[v], l.s.pos_m[2], l.hull.roof_m, speed_of(l.s.vel_mps), deepest,
               l.ch[PDK_CH_BODY_CONTACT], l.ch[PDK_CH_BODY_CONTACT_FORCE], weight_n,
               l.ch[PDK_CH_BODY_CONTACT_FACE], residual, scale, 100.0 * residual / scale);
        ck_assert_double_eq_tol(l.s.pos_m[2], l.hull.roof_m, 0.01);
        ck_assert_double_lt(speed_of(l.s.vel_mps), 1e-3);
        ck_assert_double_lt(deepest, 0.02);
        ck_assert_double_ge(l.ch[PDK_CH_BODY_CONTACT], 4.0);
        ck_assert_double_eq(l.ch[PDK_CH_BODY_CONTACT_FACE], (double)PDK_HULL_FACE_ROOF);
        ck_assert_double_eq_tol(l.ch[PDK_CH_BODY_CONTACT_FORCE], weight_n, 0.01 * weight_n);
        ck_assert_double_gt(l.ch[PDK_CH_ENERGY_FUEL], 0.0);
        ck_assert_double_lt(fabs(residual), 1e-3 * scale);
    }
}
END_TEST

/* ---- 3. sliding on its roof ---------------------------------------------------- */

/* Lying on its roof on flat asphalt and sliding at 10 m/s: the roof's
 * friction stops it in v^2 / (2 mu g), mu = PDK_FW_HULL_MU, within 5 %
 * (the air's drag shortens it a little), and the friction's work is in the
 * ledger's soil term. */
START_TEST(test_slides_to_rest_on_its_roof)
{
    pdk_terrain_def flat;
    pdk_terrain_def_flat(&flat);
    const double roof[4] = {0.0, 1.0, 0.0, 0.0};
    const double v0 = 10.0;
    const double vel[3] = {v0, 0.0, 0.0};
    lone l;
    lone_init(&l, "midsize_sedan", &flat, 0.0, 0.0, roof, 0.0, vel, PDK_GEAR_NEUTRAL);
    l.s.pos_m[2] = l.hull.roof_m;
    int t = 0;
    for (; t < 20 * 120 && speed_of(l.s.vel_mps) > 1e-3; t++) {
        lone_step(&l);
        ck_assert_uint_eq(l.s.faulted, 0u);
    }
    const double expect_m = v0 * v0 / (2.0 * PDK_FW_HULL_MU * 9.81);
    const double ke_j = 0.5 * l.p.c.mass_kg * v0 * v0;
    printf("fw_hull: midsize_sedan sliding on its roof from %.0f m/s: stopped after %.3f m in "
           "%.2f s (v^2/(2 mu g) %.3f m); friction's work %.0f J of %.0f J\n",
           v0, l.s.pos_m[0], t * TICK_S, expect_m, l.ch[PDK_CH_ENERGY_SOIL], ke_j);
    ck_assert_double_lt(speed_of(l.s.vel_mps), 1e-3);
    ck_assert_double_le(l.s.pos_m[0], expect_m * 1.01);
    ck_assert_double_ge(l.s.pos_m[0], expect_m * 0.95);
    ck_assert_double_eq_tol(l.ch[PDK_CH_ENERGY_SOIL], ke_j, 0.05 * ke_j);
}
END_TEST

/* ---- 4. sideways off a plateau's edge ----------------------------------------- */

/* A plateau 1.5 m high (a ramp at 45 degrees, 8 m wide about y = 0, its
 * top 40 m long), with vertical side faces at y = +-4. */
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
    return t;
}

/* The body's energy: translation, rotation and height. */
static double body_energy_j(const lone *l)
{
    const double m = l->p.c.mass_kg;
    double e = 0.5 * m *
               (l->s.vel_mps[0] * l->s.vel_mps[0] + l->s.vel_mps[1] * l->s.vel_mps[1] +
                l->s.vel_mps[2] * l->s.vel_mps[2]);
    for (int k = 0; k < 3; k++) {
        e += 0.5 * l->p.c.inertia_kgm2[k] * l->s.omega_radps[k] * l->s.omega_radps[k];
    }
    return e + m * 9.81 * l->s.pos_m[2];
}

/* Each preset sliding sideways (heading +x, moving +y at 8 m/s) off the
 * plateau's side: it falls 1.5 m, lands (on its wheels, side or roof) and
 * slides to rest on the floor; no point of its body is ever more than the
 * contact's penetration below the ground, and from the body's first
 * contact on its energy never rises (by 1 % of it at most: the struts
 * give back what they held). */
START_TEST(test_sideways_off_an_edge)
{
    const char *names[] = {"midsize_sedan", "polaris_ranger", "sports_car", "kart"};
    const pdk_terrain_def t = plateau(1.5);
    const double level[4] = {1.0, 0.0, 0.0, 0.0};
    const double vel[3] = {0.0, 8.0, 0.0};
    for (int v = 0; v < 4; v++) {
        lone l;
        lone_init(&l, names[v], &t, 20.0, 0.0, level, 0.0, vel, PDK_GEAR_NEUTRAL);
        l.s.pos_m[2] = 1.5 + l.def.chassis.cg_height_m;
        double deepest = -INFINITY, roll_max = 0.0;
        double e0 = NAN, e_max = -INFINITY;
        for (int tick = 0; tick < 15 * 120; tick++) {
            lone_step(&l);
            ck_assert_uint_eq(l.s.faulted, 0u);
            deepest = fmax(deepest, lone_depth_m(&l));
            roll_max = fmax(roll_max, fabs(l.ch[PDK_CH_ROLL]));
            const double e = body_energy_j(&l);
            if (isnan(e0) && l.ch[PDK_CH_BODY_CONTACT] > 0.0) {
                e0 = e;
            }
            if (!isnan(e0)) {
                e_max = fmax(e_max, e);
            }
        }
        printf("fw_hull: %-15s sideways off a 1.5 m edge at 8 m/s: rests at y %.2f z %.3f, "
               "speed %.1e m/s, roll up to %.0f deg, deepest %.4f m, body contact %.0f face "
               "%.0f, energy above the first contact's %.0f J\n",
               names[v], l.s.pos_m[1], l.s.pos_m[2], speed_of(l.s.vel_mps), roll_max * 180.0 / PI,
               deepest, l.ch[PDK_CH_BODY_CONTACT], l.ch[PDK_CH_BODY_CONTACT_FACE], e_max - e0);
        ck_assert_double_gt(l.s.pos_m[1], 4.0);
        ck_assert_double_lt(l.s.pos_m[2], 1.5);
        ck_assert_double_lt(speed_of(l.s.vel_mps), 0.05);
        ck_assert_double_lt(deepest, 0.05);
        ck_assert_double_lt(e_max - e0, 0.01 * e0 + 1.0);
    }
}
END_TEST

/* ---- 5. the issue's drive --------------------------------------------------- */

/* The issue's mixed drive, a period of 40 s: 10 s accelerating at 60 %,
 * 10 s at 30 % with the steering wheel weaving +-60 degrees at 0.5 Hz, 10 s
 * coasting, 10 s braking at 30 bar; from (5, 0) heading +x on hill. Over
 * 120 s no point of the body gets below the ground by more than the
 * contact's penetration, and the vehicle never faults. Before the hull the
 * Polaris left a ramp's edge on its side and fell through the ground. */
START_TEST(test_issue_drive_on_hill)
{
    const char *names[] = {"polaris_ranger", "midsize_sedan"};
    pdk_world_def wd;
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "hill", NULL, &wd, NULL, err, sizeof err),
                     PDK_OK);
    const double level[4] = {1.0, 0.0, 0.0, 0.0};
    const double vel[3] = {0.0, 0.0, 0.0};
    for (int v = 0; v < 2; v++) {
        lone l;
        lone_init(&l, names[v], &wd.terrain, 5.0, 0.0, level, 0.0, vel, PDK_GEAR_DRIVE);
        l.s.pos_m[2] =
            pdk_terrain_height(&l.terrain, 5.0, 0.0, (double[3]){0}) + l.def.chassis.cg_height_m;
        double deepest = -INFINITY, z_lo = INFINITY, speed_max = 0.0;
        int contact_ticks = 0;
        for (int tick = 0; tick < 120 * 120; tick++) {
            const double s = tick * TICK_S, ph = fmod(s, 40.0);
            const double throttle = ph < 10.0 ? 60.0 : (ph < 20.0 ? 30.0 : 0.0);
            const double brake = ph >= 30.0 ? 30.0 : 0.0;
            const double steer = ph >= 10.0 && ph < 20.0 ? 60.0 * sin(2.0 * PI * 0.5 * s) : 0.0;
            pdk_fw_cmd_set(&l.cmd, &l.def, throttle, brake, steer, PDK_GEAR_DRIVE);
            lone_step(&l);
            ck_assert_msg(l.s.faulted == 0u, "%s faulted (%u) at %.2f s", names[v], l.s.faulted, s);
            deepest = fmax(deepest, lone_depth_m(&l));
            z_lo = fmin(z_lo, l.s.pos_m[2]);
            speed_max = fmax(speed_max, l.ch[PDK_CH_SPEED]);
            contact_ticks += l.ch[PDK_CH_BODY_CONTACT] > 0.0;
        }
        printf("fw_hull: the issue's drive, %s on hill for 120 s: lowest CG %.3f m, deepest body "
               "point %.4f m, top speed %.1f m/s, body on the ground %d ticks, ends at (%.1f, "
               "%.1f, %.2f) roll %.0f deg\n",
               names[v], z_lo, deepest, speed_max, contact_ticks, l.s.pos_m[0], l.s.pos_m[1],
               l.s.pos_m[2], l.ch[PDK_CH_ROLL] * 180.0 / PI);
        ck_assert_double_lt(deepest, 0.05);
        ck_assert_double_gt(z_lo, 0.0);
        ck_assert_double_lt(speed_max, 40.0);
    }
}
END_TEST

/* ---- 6. faults and the reset ------------------------------------------------- */

/* An impossible state stepped on its own: the fault's code, the vehicle
 * held where the tick began at rest, the channels saying so. */
START_TEST(test_impossible_states_fault)
{
    pdk_terrain_def flat;
    pdk_terrain_def_flat(&flat);
    const double level[4] = {1.0, 0.0, 0.0, 0.0};
    const double still[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; k++) {
        lone l;
        lone_init(&l, "midsize_sedan", &flat, 0.0, 0.0, level, 0.0, still, PDK_GEAR_NEUTRAL);
        l.s.pos_m[2] = l.def.chassis.cg_height_m;
        uint32_t code;
        if (k == 0) {
            l.s.vel_mps[0] = 400.0;
            code = PDK_VEHICLE_FAULT_OVER_SPEED;
        } else if (k == 1) {
            l.s.pos_m[2] = -(l.p.c.hull_reach_m + PDK_FW_FAULT_DEPTH_M) - 1.0;
            code = PDK_VEHICLE_FAULT_BELOW_GROUND;
        } else {
            l.s.omega_radps[1] = NAN;
            code = PDK_VEHICLE_FAULT_NON_FINITE;
        }
        const double x0 = l.s.pos_m[0], z0 = l.s.pos_m[2];
        lone_step(&l);
        ck_assert_uint_eq(l.s.faulted, code);
        ck_assert_double_eq(l.ch[PDK_CH_FAULTED], 1.0);
        ck_assert_double_eq(l.ch[PDK_CH_FAULT_CODE], (double)code);
        ck_assert_double_eq(l.s.pos_m[0], x0);
        ck_assert_double_eq(l.s.pos_m[2], z0);
        ck_assert_double_eq(speed_of(l.s.vel_mps), 0.0);
    }
    /* The bounds themselves: just under them is no fault. */
    lone l;
    lone_init(&l, "midsize_sedan", &flat, 0.0, 0.0, level, 0.0, still, PDK_GEAR_NEUTRAL);
    l.s.pos_m[2] = -l.p.c.hull_reach_m; /* deep, but the contact pushes it out */
    lone_step(&l);
    ck_assert_uint_eq(l.s.faulted, 0u);
}
END_TEST

/* A world of one vehicle. */
typedef struct one {
    void *mem;
    pdk_world *w;
    pdk_world_def wd;
    pdk_vehicle_id id;
    pdk_vehicle_def def;
    const char *name;
} one;

static void one_open(one *o, const pdk_world_def *wd, const char *name)
{
    memset(o, 0, sizeof *o);
    o->wd = *wd;
    o->wd.max_vehicles = 2;
    o->def = preset(name);
    o->name = name;
    size_t bytes = (pdk_world_mem_size(&o->wd) + 63u) / 64u * 64u;
    o->mem = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(o->mem);
    ck_assert_int_eq(pdk_world_init(o->mem, bytes, &o->wd, &o->w), PDK_OK);
}

static void one_close(one *o)
{
    free(o->mem);
    o->mem = NULL;
}

/* The record's model part: after the layout (8 bytes), the model (4) and
 * padding (4) (world_snapshot.c's vehicle_record). */
#define RECORD_MODEL_AT 16u

/* o's vehicle as a record edited by edit, restored into a fresh world
 * that replaces o's. */
static void one_edit(one *o, void (*edit)(pdk_fw_state *s, const pdk_vehicle_def *d))
{
    const size_t len = pdk_snapshot_vehicle_bytes();
    uint8_t *rec = malloc(len);
    ck_assert_ptr_nonnull(rec);
    ck_assert_int_eq(pdk_world_snapshot_vehicle(o->w, o->id, rec, len), PDK_OK);
    pdk_fw_record fw;
    memcpy(&fw, rec + RECORD_MODEL_AT, sizeof fw);
    pdk_vehicle_pose pose;
    ck_assert_int_eq(pdk_world_vehicle_pose(o->w, o->id, &pose), PDK_OK);
    ck_assert_double_eq(fw.state.pos_m[0], pose.x_m); /* the record's part is where we think */
    edit(&fw.state, &o->def);
    memcpy(rec + RECORD_MODEL_AT, &fw, sizeof fw);
    pdk_world_snapshot_head head;
    pdk_world_snapshot_head_get(o->w, &head);
    uint32_t gens[2];
    ck_assert_int_eq(pdk_world_snapshot_generations(o->w, gens, 2), PDK_OK);
    one fresh;
    one_open(&fresh, &o->wd, o->name);
    ck_assert_int_eq(pdk_world_restore_head(fresh.w, &head, gens, 2), PDK_OK);
    pdk_error rc = pdk_world_restore_vehicle(fresh.w, o->id, &o->def, rec, len);
    ck_assert_msg(rc == PDK_OK, "restore: %s", pdk_world_restore_problem(fresh.w));
    ck_assert_int_eq(pdk_world_restore_end(fresh.w), PDK_OK);
    fresh.id = o->id;
    free(rec);
    one_close(o);
    *o = fresh;
}

static void to_huge_speed(pdk_fw_state *s, const pdk_vehicle_def *d)
{
    (void)d;
    s->vel_mps[0] = 1000.0;
}

/* Upside down, its roof on the ground. */
static void to_its_roof(pdk_fw_state *s, const pdk_vehicle_def *d)
{
    s->quat[0] = 0.0;
    s->quat[1] = 1.0;
    s->quat[2] = 0.0;
    s->quat[3] = 0.0;
    s->pos_m[2] = 1.5 * d->chassis.cg_height_m;
    for (int j = 0; j < 3; j++) {
        s->vel_mps[j] = 0.0;
        s->accel_mps2[j] = 0.0;
    }
}

/* A snapshot edited to 1000 m/s faults at the next step (code 2), the
 * vehicle held there through commands and steps; a reset at its place
 * clears it, and it stands on its wheels and drives on. */
START_TEST(test_fault_held_until_reset)
{
    pdk_world_def wd = pdk_world_def_default();
    one o;
    one_open(&o, &wd, "midsize_sedan");
    const pdk_pose pose = {3.0, -2.0, 0.5};
    ck_assert_int_eq(pdk_world_spawn(o.w, &o.def, &pose, 0.0, PDK_GEAR_DRIVE, &o.id), PDK_OK);
    pdk_world_step(o.w);
    one_edit(&o, to_huge_speed);
    pdk_world_step(o.w);
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &p), PDK_OK);
    ck_assert_int_eq(p.faulted, PDK_VEHICLE_FAULT_OVER_SPEED);
    ck_assert_int_eq(pdk_world_vehicle_faulted(o.w, o.id), 1);
    const double *ch = pdk_world_channels(o.w, o.id);
    ck_assert_double_eq(ch[PDK_CH_FAULT_CODE], (double)PDK_VEHICLE_FAULT_OVER_SPEED);
    const pdk_dbw_cmd go = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_GEAR, .throttle_pct = 80.0, .gear = PDK_GEAR_DRIVE};
    ck_assert_int_eq(pdk_world_command(o.w, o.id, &go), PDK_OK);
    for (int t = 0; t < 60; t++) {
        pdk_world_step(o.w);
    }
    pdk_vehicle_pose held;
    ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &held), PDK_OK);
    ck_assert_double_eq(held.x_m, p.x_m);
    ck_assert_double_eq(held.speed_mps, 0.0);
    ck_assert_int_eq(held.faulted, PDK_VEHICLE_FAULT_OVER_SPEED);

    ck_assert_int_eq(pdk_world_vehicle_reset(o.w, o.id, NULL), PDK_OK);
    ck_assert_int_eq(pdk_world_vehicle_faulted(o.w, o.id), 0);
    ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &p), PDK_OK);
    ck_assert_int_eq(p.faulted, 0);
    ck_assert_double_eq_tol(p.x_m, held.x_m, 1e-12);
    ck_assert_double_eq_tol(p.yaw_rad, held.yaw_rad, 1e-12);
    ck_assert_double_eq_tol(p.z_m, o.def.chassis.cg_height_m, 1e-12);
    for (int t = 0; t < 240; t++) {
        pdk_world_step(o.w);
    }
    ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &p), PDK_OK);
    ck_assert_int_eq(p.faulted, 0);
    ck_assert_double_gt(p.speed_mps, 2.0); /* it drives off at 80 % */
    one_close(&o);
}
END_TEST

/* A car on its roof, righted by the reset at a given pose and at its own:
 * upright, at rest, the CG its height above the ground, and it stays so. */
START_TEST(test_reset_rights_a_rolled_car)
{
    pdk_world_def wd = pdk_world_def_default();
    for (int given = 0; given < 2; given++) {
        one o;
        one_open(&o, &wd, "polaris_ranger");
        const pdk_pose pose = {10.0, 5.0, 1.0};
        ck_assert_int_eq(pdk_world_spawn(o.w, &o.def, &pose, 0.0, PDK_GEAR_NEUTRAL, &o.id), PDK_OK);
        pdk_world_step(o.w);
        one_edit(&o, to_its_roof);
        for (int t = 0; t < 240; t++) {
            pdk_world_step(o.w);
        }
        pdk_vehicle_pose p;
        ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &p), PDK_OK);
        ck_assert_double_gt(fabs(p.roll_rad), 0.9 * PI);
        ck_assert_double_eq(pdk_world_channels(o.w, o.id)[PDK_CH_BODY_CONTACT_FACE],
                            (double)PDK_HULL_FACE_ROOF);
        const pdk_pose there = {-4.0, 7.0, -2.0};
        ck_assert_int_eq(pdk_world_vehicle_reset(o.w, o.id, given ? &there : NULL), PDK_OK);
        for (int t = 0; t < 240; t++) {
            pdk_world_step(o.w);
        }
        pdk_vehicle_pose r;
        ck_assert_int_eq(pdk_world_vehicle_pose(o.w, o.id, &r), PDK_OK);
        printf("fw_hull: polaris_ranger on its roof (roll %.1f deg) reset %s: at (%.2f, %.2f, "
               "%.3f) yaw %.3f roll %.2f deg speed %.1e m/s\n",
               p.roll_rad * 180.0 / PI, given ? "to a pose" : "where it lay", r.x_m, r.y_m, r.z_m,
               r.yaw_rad, r.roll_rad * 180.0 / PI, r.speed_mps);
        ck_assert_double_lt(fabs(r.roll_rad), 0.01);
        ck_assert_double_lt(fabs(r.pitch_rad), 0.02);
        ck_assert_double_lt(r.speed_mps, 0.05);
        ck_assert_double_eq_tol(r.x_m, given ? there.x_m : p.x_m, 0.05);
        ck_assert_double_eq_tol(r.y_m, given ? there.y_m : p.y_m, 0.05);
        ck_assert_double_eq_tol(r.z_m, o.def.chassis.cg_height_m, 0.05);
        ck_assert_double_eq_tol(r.yaw_rad, given ? there.yaw_rad : p.yaw_rad, 0.01);
        ck_assert_double_eq(pdk_world_channels(o.w, o.id)[PDK_CH_BODY_CONTACT], 0.0);
        one_close(&o);
    }
}
END_TEST

/* The reset's refusals, each named. */
START_TEST(test_reset_refusals)
{
    pdk_world_def wd = pdk_world_def_default();
    one o;
    one_open(&o, &wd, "midsize_sedan");
    const pdk_pose pose = {0.0, 0.0, 0.0};
    ck_assert_int_eq(pdk_world_spawn(o.w, &o.def, &pose, 0.0, PDK_GEAR_DRIVE, &o.id), PDK_OK);
    ck_assert_int_eq(pdk_world_vehicle_reset(NULL, o.id, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(pdk_world_vehicle_reset_problem(NULL, o.id, NULL), "world is NULL");
    ck_assert_int_eq(pdk_world_vehicle_reset(o.w, o.id + 1u, NULL), PDK_ERR_STALE_ID);
    ck_assert_ptr_nonnull(strstr(pdk_world_vehicle_reset_problem(o.w, o.id + 1u, NULL), "stale"));
    const pdk_pose far = {2e7, 0.0, 0.0}, nan_yaw = {0.0, 0.0, NAN};
    ck_assert_int_eq(pdk_world_vehicle_reset(o.w, o.id, &far), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(pdk_world_vehicle_reset_problem(o.w, o.id, &far), "x_m"));
    ck_assert_int_eq(pdk_world_vehicle_reset(o.w, o.id, &nan_yaw), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(pdk_world_vehicle_reset_problem(o.w, o.id, &nan_yaw), "yaw"));
    ck_assert_ptr_null(pdk_world_vehicle_reset_problem(o.w, o.id, &pose));
    one_close(&o);
}
END_TEST

static Suite *fw_hull_suite(void)
{
    Suite *s = suite_create("fw_hull");
    TCase *geometry = tcase_create("geometry");
    tcase_add_test(geometry, test_hull_geometry);
    tcase_add_test(geometry, test_hull_dimensions_given);
    suite_add_tcase(s, geometry);
    TCase *ground = tcase_create("ground");
    tcase_set_timeout(ground, 100);
    tcase_add_test(ground, test_dropped_on_its_roof);
    tcase_add_test(ground, test_slides_to_rest_on_its_roof);
    tcase_add_test(ground, test_sideways_off_an_edge);
    tcase_add_test(ground, test_issue_drive_on_hill);
    suite_add_tcase(s, ground);
    TCase *fault = tcase_create("fault");
    tcase_add_test(fault, test_impossible_states_fault);
    tcase_add_test(fault, test_fault_held_until_reset);
    tcase_add_test(fault, test_reset_rights_a_rolled_car);
    tcase_add_test(fault, test_reset_refusals);
    suite_add_tcase(s, fault);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fw_hull_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
