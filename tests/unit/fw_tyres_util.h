/* The rig and the test cars the four-wheel tyre and ground validation
 * suites share (test_fw_tyres.c, test_fw_ground.c): one vehicle in a world
 * of its own, driven through the public world API, and cars built in C
 * with the tyre law, life and soil set as each test needs. Every function
 * is static; a suite uses what it needs. */
#ifndef PDK_FW_TYRES_UTIL_H
#define PDK_FW_TYRES_UTIL_H


#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "params.h"
#include "ground/surface.h"
#include "ground/terrain.h"
#include "tyre/tyre.h"
#include "tyre/tyre_life.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

#define G 9.81
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define KELVIN 273.15
#define P_ATM_KPA 101.325

static const char *const WHEEL_NAME[PDK_WHEELS] = {"FL", "FR", "RL", "RR"};

/* Channel kind's wheel w: a kind's four channels are FL FR RL RR in a row
 * (channels.h). */
#define WCH(kind, w) (PDK_CH_##kind##_FL + (w))

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* ---- one vehicle in a world of its own ------------------------------------ */

typedef struct rig {
    void *mem;
    pdk_world *w;
    pdk_vehicle_id id;
    const double *ch; /* the last tick's channels */
    double dt_s;
    pdk_gear gear;
    double throttle_pct, brake_bar, steer_deg;
} rig;

static pdk_world_def world_flat(int surface_id)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 1;
    pdk_terrain_def_flat(&wd.terrain);
    wd.terrain.base_surface_id = surface_id;
    return wd;
}

static void rig_open(rig *r, const pdk_world_def *wd, const pdk_vehicle_def *vd, double x_m,
                     double y_m, double yaw_rad, double speed_mps, pdk_gear gear)
{
    memset(r, 0, sizeof *r);
    const char *why = pdk_world_def_problem(wd);
    ck_assert_msg(why == NULL, "world rejected: %s", why);
    size_t bytes = pdk_world_mem_size(wd);
    size_t rounded = (bytes + 63u) / 64u * 64u;
    r->mem = aligned_alloc(64, rounded);
    ck_assert_ptr_nonnull(r->mem);
    ck_assert_int_eq(pdk_world_init(r->mem, rounded, wd, &r->w), PDK_OK);
    why = pdk_vehicle_def_problem(vd);
    ck_assert_msg(why == NULL, "vehicle rejected: %s", why);
    pdk_pose pose = {x_m, y_m, yaw_rad};
    why = pdk_world_spawn_problem(r->w, vd, &pose, speed_mps, gear);
    ck_assert_msg(why == NULL, "spawn refused: %s", why);
    ck_assert_int_eq(pdk_world_spawn(r->w, vd, &pose, speed_mps, gear, &r->id), PDK_OK);
    r->dt_s = wd->dt_s;
    r->gear = gear;
    r->ch = pdk_world_channels(r->w, r->id);
}

static void rig_close(rig *r)
{
    free(r->mem);
    r->mem = NULL;
}

static void rig_cmd(rig *r, double throttle_pct, double brake_bar, double steer_deg, pdk_gear gear)
{
    pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER | PDK_DBW_GEAR,
                     .throttle_pct = throttle_pct,
                     .brake_bar = brake_bar,
                     .steer_wheel_deg = steer_deg,
                     .gear = gear};
    const char *why = pdk_world_command_problem(r->w, r->id, &c);
    ck_assert_msg(why == NULL, "command refused: %s", why);
    ck_assert_int_eq(pdk_world_command(r->w, r->id, &c), PDK_OK);
    r->throttle_pct = throttle_pct;
    r->brake_bar = brake_bar;
    r->steer_deg = steer_deg;
    r->gear = gear;
}

static void rig_step(rig *r)
{
    pdk_world_step(r->w);
    r->ch = pdk_world_channels(r->w, r->id);
    ck_assert_ptr_nonnull(r->ch);
    ck_assert_msg(r->ch[PDK_CH_FAULTED] == 0.0, "vehicle faulted at t = %.4f s",
                  pdk_world_time_s(r->w));
}

static int ticks_of(const rig *r, double seconds)
{
    return (int)lround(seconds / r->dt_s);
}

static void rig_run(rig *r, double seconds)
{
    for (int t = ticks_of(r, seconds); t > 0; t--) {
        rig_step(r);
    }
}

static pdk_vehicle_pose rig_pose(const rig *r)
{
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(r->w, r->id, &p), PDK_OK);
    return p;
}

static void rig_tyre(rig *r, uint32_t mask, int action, double value)
{
    pdk_tyre_input in = {.wheel_mask = mask, .action = action, .value = value};
    const char *why = pdk_world_tyre_input_problem(r->w, r->id, &in);
    ck_assert_msg(why == NULL, "tyre input refused: %s", why);
    ck_assert_int_eq(pdk_world_tyre_input(r->w, r->id, &in), PDK_OK);
}

/* Holds target_mps along body x with a PI loop on the throttle, as a
 * driver would, for seconds. */
static void rig_hold_speed(rig *r, double target_mps, double seconds)
{
    double integral = 0.0;
    for (int t = ticks_of(r, seconds); t > 0; t--) {
        double err = target_mps - r->ch[PDK_CH_VEL_X];
        integral += err * r->dt_s;
        double u = 60.0 * err + 40.0 * integral;
        double throttle = u > 100.0 ? 100.0 : (u > 0.0 ? u : 0.0);
        rig_cmd(r, throttle, 0.0, r->steer_deg, PDK_GEAR_DRIVE);
        rig_step(r);
    }
}

/* How far the CG is from (x0, y0, z0). */
static double moved_m(const rig *r, double x0, double y0, double z0)
{
    return sqrt(pow(r->ch[PDK_CH_POS_X] - x0, 2) + pow(r->ch[PDK_CH_POS_Y] - y0, 2) +
                pow(r->ch[PDK_CH_POS_Z] - z0, 2));
}

static double rel_err(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* ---- the test cars ----------------------------------------------------------- */

static pdk_tyre_law_def *law_of(pdk_vehicle_def *d, int axle)
{
    return axle == 0 ? &d->tyre_front.law : &d->tyre_rear.law;
}

static pdk_axle_tyre_def *tyre_of(pdk_vehicle_def *d, int axle)
{
    return axle == 0 ? &d->tyre_front : &d->tyre_rear;
}

/* pdk_vehicle_def_default (a 1500 kg mid-size saloon) without what would
 * blur a comparison with a closed form: no drag, no static camber or toe
 * (camber thrust and toe scrub), and the simple lumped rolling coefficient
 * off (the tyres carry their own). */
static pdk_vehicle_def base_car(void)
{
    pdk_vehicle_def d = pdk_vehicle_def_default();
    d.resist.drag_area_m2 = 0.0;
    d.resist.rolling_coeff = 0.0;
    d.susp_front.static_camber_rad = 0.0;
    d.susp_rear.static_camber_rad = 0.0;
    d.susp_front.static_toe_rad = 0.0;
    d.susp_rear.static_toe_rad = 0.0;
    d.tyre_front.camber_stiffness_n_per_rad = 0.0;
    d.tyre_rear.camber_stiffness_n_per_rad = 0.0;
    return d;
}

/* Tyre life that leaves the grip exactly 1: a flat temperature window, no
 * pressure term, no heating and no wear, so that a force compares with the
 * law's on a fresh tyre (tyre_life.h: grip is the product of these). */
static void life_neutral(pdk_vehicle_def *d)
{
    for (int axle = 0; axle < 2; axle++) {
        pdk_tyre_life_def *l = &tyre_of(d, axle)->life;
        l->window_loss = 0.0;
        l->pressure_grip_slope = 0.0;
        l->heat_scale = 0.0;
        l->wear_scale = 0.0;
    }
}

/* Both axles on the law: the grip law with the def's friction and no load
 * sensitivity; the Magic Formula with the 205/60R15 road set (its own load
 * dependence and falling branch, slide_grip 0); the UTV law with the Polaris
 * model's hard-surface values (tanh slope 12, C_alpha / N 8). */
static void set_law(pdk_vehicle_def *d, pdk_tyre_law law)
{
    for (int axle = 0; axle < 2; axle++) {
        pdk_tyre_law_def *l = law_of(d, axle);
        l->law = law;
        l->load_sensitivity = 0.0;
        l->combined_slip_loss = 0.0;
        if (law == PDK_TYRE_MAGIC) {
            l->mf_set = PDK_MF_ROAD_205_60R15;
            const pdk_mf_coeffs *mf = pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
            ck_assert_ptr_nonnull(mf);
            l->mf = *mf;
            l->slide_grip = 0.0;
        } else if (law == PDK_TYRE_UTV) {
            /* Spawn derives C_alpha / N from the axle's stiffness at its
             * static load (four_wheel.h pdk_fw_law_of): 8 /rad there. */
            double len = d->chassis.wheelbase_m;
            double a = d->chassis.cg_to_front_axle_m;
            double fz = 0.5 * d->chassis.mass_kg * G * (axle == 0 ? len - a : a) / len;
            l->hard_slip_stiffness = 12.0;
            tyre_of(d, axle)->cornering_stiffness_n_per_rad = 8.0 * 2.0 * fz;
        }
    }
}

/* The law as the vehicle runs it on axle: for the grip and UTV laws, spawn
 * derives the friction from friction_coeff and the cornering stiffness per
 * load from the axle's stiffness at its static load (and the grip law's
 * camber thrust likewise; vehicle_def.h); the test does the same to
 * evaluate the law itself. */
static pdk_tyre_law_def law_as_run(const pdk_vehicle_def *d, int axle)
{
    const pdk_axle_tyre_def *t = axle == 0 ? &d->tyre_front : &d->tyre_rear;
    pdk_tyre_law_def l = t->law;
    if (l.law == PDK_TYRE_GRIP || l.law == PDK_TYRE_UTV) {
        double len = d->chassis.wheelbase_m;
        double a = d->chassis.cg_to_front_axle_m;
        double fz = 0.5 * d->chassis.mass_kg * G * (axle == 0 ? len - a : a) / len;
        l.mu_x = t->friction_coeff;
        l.mu_y = t->friction_coeff;
        l.cornering_per_load = 0.5 * t->cornering_stiffness_n_per_rad / fz;
        if (l.law == PDK_TYRE_GRIP) {
            l.camber_per_load = 0.5 * t->camber_stiffness_n_per_rad / fz;
        }
    }
    return l;
}

/* The law's longitudinal force at load fz_n and slip kappa, straight, on
 * surface, on a fresh tyre. */
static double law_fx(const pdk_tyre_law_def *l, int surface, double fz_n, double kappa)
{
    pdk_tyre_ground g;
    pdk_surface_ground(surface, 1.0, &g);
    pdk_tyre_in in = {
        .fz_n = fz_n, .kappa = kappa, .tan_alpha = 0.0, .gamma_rad = 0.0, .vx_mps = 10.0};
    pdk_tyre_out out;
    pdk_tyre_eval(l, &g, &in, 0, &out);
    return out.fx_n;
}

/* Total spin inertia over radius squared of the four wheels: the mass the
 * wheels add to the car's when they roll with it (kg). */
static double spin_mass_kg(const pdk_vehicle_def *d)
{
    double rf = d->tyre_front.law.radius_m;
    double rr = d->tyre_rear.law.radius_m;
    return 2.0 * d->tyre_front.spin_inertia_kgm2 / (rf * rf) +
           2.0 * d->tyre_rear.spin_inertia_kgm2 / (rr * rr);
}

/* The tyre on soil as the vehicle presents it to the soil model: its
 * soil size, at the law's radius, inflated to the tyre life's pressure (a
 * cold tyre here: its cold pressure). */
static pdk_soil_tyre soil_tyre_of(const pdk_vehicle_def *d, int axle)
{
    const pdk_axle_tyre_def *t = axle == 0 ? &d->tyre_front : &d->tyre_rear;
    pdk_soil_tyre st = t->soil;
    st.radius_m = t->law.radius_m;
    st.inflation_pa = 1000.0 * t->life.cold_pressure_kpa;
    return st;
}

#endif
