/* Unit tests of params/ on the shipped presets and the four-wheel keys: every
 * shipped vehicle and world loads and holds the figures of its data sheet
 * (docs/presets.md), the geared presets their powertrains' (their performance
 * is test_data_sheets.c's), the Polaris preset is the Polaris model's
 * definition, a car's occupants and cargo move its chassis as their positions
 * say; the suspension kinds, the kinematic curves and their rules and the
 * four-wheel cross-field rules. The worlds are test_presets_worlds.c's; the
 * schema, overrides, file errors, listing and the round trip in general
 * test_params.c's. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "ground/surface.h"
#include "ground/terrain.h"
#include "powertrain/engine.h"
#include "tyre/tyre.h"
#include "sim/utv_def.h"

#include "params_test_util.h"

/* ---- shipped presets --------------------------------------------------------- */

START_TEST(every_shipped_preset_loads)
{
    char err[PDK_PARAMS_ERR_LEN];
    listing v = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, collect_preset, &v), PDK_OK);
    ck_assert_uint_ge(v.n, 2);
    for (size_t i = 0; i < v.n; i++) {
        pdk_vehicle_def def;
        ck_assert_msg(strlen(v.descriptions[i]) > 20 && v.descriptions[i][0] != '(',
                      "%s: description '%s'", v.names[i], v.descriptions[i]);
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, v.names[i], NULL, &def, NULL, err,
                                              sizeof err) == PDK_OK,
                      "%s", err);
        ck_assert_int_eq(pdk_vehicle_def_check(&def), PDK_OK);
    }
    listing w = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_WORLD, collect_preset, &w), PDK_OK);
    ck_assert_uint_ge(w.n, 2);
    for (size_t i = 0; i < w.n; i++) {
        pdk_world_def def;
        ck_assert_msg(strlen(w.descriptions[i]) > 20, "%s", w.names[i]);
        ck_assert_msg(
            pdk_params_world_load(PRESETS, w.names[i], NULL, &def, NULL, err, sizeof err) == PDK_OK,
            "%s", err);
        ck_assert_int_eq(pdk_world_def_check(&def), PDK_OK);
    }
}
END_TEST

/* The figures of a preset's data sheet (docs/presets.md), recomputed here
 * from the preset itself so that the sheet and the file cannot drift. */
typedef struct sheet {
    const char *name;
    double ride_hz[2];   /* sqrt(k / m_corner) / 2 pi, m_corner = m b / 2L, m a / 2L */
    double zeta_bump[2]; /* c / (2 sqrt(k m_corner)) */
    double zeta_rebound[2];
    double roll_deg_per_g; /* m g (h - h_rc) / (K_f + K_r - m g h), K = (k + 2 k_arb) t^2 / 2 */
    double transfer_n[2];  /* per g: W h_rc / t + K (phi / a_y) / t */
} sheet;

static double corner_mass_kg(const pdk_vehicle_def *d, int axle)
{
    double a = d->chassis.cg_to_front_axle_m;
    double len = d->chassis.wheelbase_m;
    return d->chassis.mass_kg * (axle == 0 ? len - a : a) / (2 * len);
}

static const pdk_suspension_def *axle_of(const pdk_vehicle_def *d, int axle)
{
    return axle == 0 ? &d->susp_front : &d->susp_rear;
}

/* An axle's roll stiffness: springs k t^2 / 2 and the bar, which pushes
 * each wheel with k_arb times the travel difference, k_arb t^2. */
static double axle_roll_stiffness_nm_per_rad(const pdk_vehicle_def *d, int axle)
{
    const pdk_suspension_def *s = axle_of(d, axle);
    double t = pdk_vehicle_def_track_m(d, axle);
    return (s->spring_rate_npm + 2 * s->anti_roll_npm) * t * t / 2;
}

/* The roll gradient of the data sheets in rad/g, tan(phi) / a_y as this
 * model rolls: about the ground, so the CG swings h tan(phi) across the
 * contacts, with the links taking m g h_rc of the moment, h_rc the roll
 * axis under the CG (docs/vehicle-model.md; test_fw_validation.c holds the
 * model to it). There is no unsprung mass. */
static double roll_gradient_rad_per_g(const pdk_vehicle_def *d)
{
    double k_roll = axle_roll_stiffness_nm_per_rad(d, 0) + axle_roll_stiffness_nm_per_rad(d, 1);
    double a = d->chassis.cg_to_front_axle_m;
    double rf = d->susp_front.roll_center_height_m;
    double rr = d->susp_rear.roll_center_height_m;
    double h = d->chassis.cg_height_m;
    double arm = h - (rf + (rr - rf) * a / d->chassis.wheelbase_m);
    double m = d->chassis.mass_kg;
    return m * 9.81 * arm / (k_roll - m * 9.81 * h);
}

START_TEST(shipped_presets_match_their_data_sheets)
{
    static const sheet sheets[] = {
        {"midsize_sedan", {1.350, 1.510}, {0.297, 0.300}, {0.495, 0.506}, 3.60, {3018, 2358}},
        {"compact_hatch", {1.291, 1.508}, {0.300, 0.301}, {0.503, 0.495}, 4.12, {2747, 1955}},
        {"sports_car", {1.900, 2.050}, {0.302, 0.297}, {0.503, 0.495}, 1.81, {2049, 2306}},
        {"open_wheeler", {3.014, 3.296}, {0.496, 0.503}, {0.699, 0.705}, 0.58, {481, 692}},
        {"kart", {6.842, 5.712}, {0.333, 0.293}, {0.333, 0.293}, 0.30, {176, 195}},
        {"pickup4x4", {1.256, 1.700}, {0.303, 0.297}, {0.496, 0.504}, 5.45, {5856, 6381}},
    };
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
        const sheet *sh = &sheets[i];
        pdk_vehicle_def d;
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, sh->name, NULL, &d, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s", err);
        ck_assert_int_eq(d.model, PDK_MODEL_FOUR_WHEEL);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_suspension_def *s = axle_of(&d, axle);
            double m = corner_mass_kg(&d, axle);
            double f = sqrt(s->spring_rate_npm / m) / (2 * M_PI);
            double crit = 2 * sqrt(s->spring_rate_npm * m);
            ck_assert_msg(fabs(f - sh->ride_hz[axle]) < 5e-4, "%s axle %d: %.4f Hz", sh->name, axle,
                          f);
            ck_assert_msg(fabs(s->bump_damping_nspm / crit - sh->zeta_bump[axle]) < 5e-4,
                          "%s axle %d: bump %.4f", sh->name, axle, s->bump_damping_nspm / crit);
            ck_assert_msg(fabs(s->rebound_damping_nspm / crit - sh->zeta_rebound[axle]) < 5e-4,
                          "%s axle %d: rebound %.4f", sh->name, axle,
                          s->rebound_damping_nspm / crit);
        }
        double grad = roll_gradient_rad_per_g(&d);
        ck_assert_msg(fabs(grad * 180 / M_PI - sh->roll_deg_per_g) < 5e-3, "%s: %.4f deg/g",
                      sh->name, grad * 180 / M_PI);
        double a = d.chassis.cg_to_front_axle_m;
        double len = d.chassis.wheelbase_m;
        for (int axle = 0; axle < 2; axle++) {
            double w = d.chassis.mass_kg * 9.81 * (axle == 0 ? len - a : a) / len;
            double t = pdk_vehicle_def_track_m(&d, axle);
            double transfer = w * axle_of(&d, axle)->roll_center_height_m / t +
                              axle_roll_stiffness_nm_per_rad(&d, axle) * grad / t;
            ck_assert_msg(fabs(transfer - sh->transfer_n[axle]) < 0.5, "%s axle %d: %.1f N",
                          sh->name, axle, transfer);
            /* Camber stiffness 0.92 W per radian, the sheets' rule, to the
             * rounding of the preset's round numbers. */
            const pdk_axle_tyre_def *ty = axle == 0 ? &d.tyre_front : &d.tyre_rear;
            ck_assert_msg(fabs(ty->camber_stiffness_n_per_rad / w - 0.92) < 0.015,
                          "%s axle %d: camber stiffness %.3f W", sh->name, axle,
                          ty->camber_stiffness_n_per_rad / w);
        }
    }

    /* REF-1 (the D-segment reference car of docs/drive-scripts.md), on the
     * four-wheel model: its wheel rate and track, and the road-car rules (roll
     * centres 0.05-0.13 m, front below rear; camber-gain and roll-centre
     * curves). */
    pdk_vehicle_def s;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "midsize_sedan", NULL, &s, NULL, err, sizeof err), PDK_OK);
    ck_assert_double_eq(s.chassis.mass_kg, 1500);
    ck_assert_double_eq(s.chassis.wheelbase_m, 2.70);
    ck_assert_double_eq(s.chassis.cg_to_front_axle_m, 1.20);
    ck_assert_double_eq(s.chassis.cg_height_m, 0.55);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&s, 0), 1.60);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&s, 1), 1.60);
    ck_assert_double_eq(s.susp_front.spring_rate_npm, 30000);
    ck_assert_double_eq(s.tyre_front.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(s.tyre_rear.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(s.resist.drag_area_m2, 0.65);
    ck_assert_double_eq(s.susp_front.static_camber_rad, -0.5 * M_PI / 180);
    ck_assert_double_eq(s.susp_rear.static_toe_rad, 0.15 * M_PI / 180);
    static const char *const road_cars[] = {"midsize_sedan", "compact_hatch", "sports_car"};
    for (size_t i = 0; i < 3; i++) {
        pdk_vehicle_def d;
        ck_assert_int_eq(
            pdk_params_vehicle_load(PRESETS, road_cars[i], NULL, &d, NULL, err, sizeof err),
            PDK_OK);
        double rf = d.susp_front.roll_center_height_m;
        double rr = d.susp_rear.roll_center_height_m;
        ck_assert_msg(rf >= 0.05 && rr <= 0.13 && rf < rr, "%s: %g %g", road_cars[i], rf, rr);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_suspension_def *sd = axle_of(&d, axle);
            ck_assert_int_eq(sd->kind, PDK_AXLE_INDEPENDENT);
            ck_assert_int_ge(sd->kinematics.camber_rad.n_points, 2);
            ck_assert_int_ge(sd->kinematics.roll_center_height_m.n_points, 2);
            /* Camber gain: more negative in bump, as a road car's links give. */
            ck_assert(pdk_curve_eval(&sd->kinematics.camber_rad, 0.05) < 0);
            /* Roll centre falls in bump. */
            ck_assert(pdk_curve_eval(&sd->kinematics.roll_center_height_m, 0.05) < 0);
        }
    }

    pdk_vehicle_def o;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "open_wheeler", NULL, &o, NULL, err, sizeof err), PDK_OK);
    ck_assert(o.susp_front.roll_center_height_m <= 0.05 &&
              o.susp_rear.roll_center_height_m <= 0.05);
    ck_assert_int_eq(o.susp_front.kinematics.roll_center_height_m.n_points, 3);
    ck_assert_int_eq(o.susp_front.kinematics.camber_rad.n_points, 0);

    /* The kart: a solid rear axle with the roll centre on the ground, and
     * that axle a spool for the driveline, as its description says. */
    pdk_vehicle_def k;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "kart", NULL, &k, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(k.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_int_eq(k.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_double_eq(k.susp_rear.roll_center_height_m, 0);
    ck_assert_double_eq(k.susp_front.roll_center_height_m, 0);
    ck_assert_int_eq(k.powertrain.layout.driven_axle, 1);
    ck_assert_int_eq(k.powertrain.layout.diff.kind, PDK_DIFF_LOCKED);
    listing v = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, collect_preset, &v), PDK_OK);
    bool kart_seen = false;
    for (size_t i = 0; i < v.n; i++) {
        if (strcmp(v.names[i], "kart") == 0) {
            ASSERT_HAS(v.descriptions[i], "spool");
            kart_seen = true;
        }
    }
    ck_assert(kart_seen);

    /* The pickup: independent front at 0.1 m, solid rear at 0.4 m, high CG. */
    pdk_vehicle_def p;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "pickup4x4", NULL, &p, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(p.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_int_eq(p.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_double_eq(p.susp_front.roll_center_height_m, 0.1);
    ck_assert_double_eq(p.susp_rear.roll_center_height_m, 0.4);
    ck_assert_double_eq(p.chassis.cg_height_m, 0.80);

    /* The single-track car for traffic keeps the old midsize_sedan numbers. */
    pdk_vehicle_def ts;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", NULL, &ts, NULL, err, sizeof err),
        PDK_OK);
    ck_assert_int_eq(ts.model, PDK_MODEL_SINGLE_TRACK);
    ck_assert_double_eq(ts.chassis.mass_kg, 1500);
    ck_assert_double_eq(ts.chassis.yaw_inertia_kgm2, 2500);
    ck_assert_double_eq(ts.tyre_front.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(ts.steering.lock_deg, 520);
    ck_assert_double_eq(ts.drive.front_fraction, 0.0);
    ck_assert_double_eq(ts.brake.front_fraction, 0.60);

    pdk_vehicle_def h;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "compact_hatch", NULL, &h, NULL, err, sizeof err), PDK_OK);
    ck_assert(h.chassis.mass_kg < s.chassis.mass_kg);
    ck_assert_int_eq(h.powertrain.layout.driven_axle, 0);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&h, 1), 1.52);

    pdk_world_def dry;
    pdk_world_def wet;
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "flat", NULL, &dry, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "flat_wet", NULL, &wet, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(dry.surface_friction, 1.0);
    ck_assert_double_eq(wet.surface_friction, 1.0);
    ck_assert_int_eq(dry.terrain.base_surface_id, PDK_SURFACE_TARMAC);
    ck_assert_int_eq(wet.terrain.base_surface_id, PDK_SURFACE_TARMAC_WET);
    ck_assert_int_eq(dry.substeps, pdk_world_def_default().substeps);
    ck_assert_int_eq(dry.terrain.n_bumps, 0);

    /* kerb_strip: a kerb under the left wheels of a car on the x axis, and a
     * hump across the road. */
    pdk_world_def kerb;
    ck_assert_int_eq(
        pdk_params_world_load(PRESETS, "kerb_strip", NULL, &kerb, NULL, err, sizeof err), PDK_OK);
    ck_assert_int_eq(kerb.terrain.n_bumps, 2);
    double n[3];
    double y_left = pdk_vehicle_def_track_m(&s, 0) / 2;
    double x_kerb = kerb.terrain.bumps[0].x_m;
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_kerb, y_left, n), 0.05, 1e-12);
    ck_assert_double_eq(pdk_terrain_height(&kerb.terrain, x_kerb, -y_left, n), 0);
    double x_hump = kerb.terrain.bumps[1].x_m;
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_hump, y_left, n), 0.075, 1e-12);
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_hump, -y_left, n), 0.075, 1e-12);
}
END_TEST

/* The tyres of the shipped four-wheel presets (docs/presets.md, each
 * sheet's tyre table): the law and set, the size as the fitment gives it
 * (R = rim / 2 + section height), the pressures, and the linear and peak
 * figures the sheet quotes at the static corner loads, recomputed here
 * through the law itself. */
typedef struct tyre_sheet {
    const char *name;
    pdk_tyre_law law;
    pdk_mf_set set;
    double radius_m[2];
    double width_m[2];
    double rim_radius_m[2];
    double inflation_kpa[2];
    double spin_inertia_kgm2[2];
    double ca_n_per_rad[2]; /* per tyre at the static corner load */
    double mu_x[2];         /* peak, pure slip, dry tarmac */
    double mu_y[2];
} tyre_sheet;

/* Peak |Fx| / Fz and |Fy| / Fz over slip at load fz_n, and the cornering
 * stiffness -dFy/dalpha at zero slip. */
static void tyre_figures(const pdk_tyre_law_def *law, double fz_n, double *ca, double *mu_x,
                         double *mu_y)
{
    pdk_tyre_ground ground = {1.0, 1.0, 1.0};
    pdk_tyre_out out;
    const double h = 1e-6;
    pdk_tyre_in in = {.fz_n = fz_n, .tan_alpha = h, .vx_mps = 20.0};
    pdk_tyre_eval(law, &ground, &in, 0, &out);
    double fy_plus = out.fy_n;
    in.tan_alpha = -h;
    pdk_tyre_eval(law, &ground, &in, 0, &out);
    *ca = (out.fy_n - fy_plus) / (2 * h);
    *mu_x = 0;
    *mu_y = 0;
    for (int i = 1; i <= 3000; i++) {
        pdk_tyre_in x = {.fz_n = fz_n, .kappa = i * 1e-4, .vx_mps = 20.0};
        pdk_tyre_eval(law, &ground, &x, 0, &out);
        *mu_x = fmax(*mu_x, out.fx_n / fz_n);
        pdk_tyre_in y = {.fz_n = fz_n, .tan_alpha = tan(i * 1e-4), .vx_mps = 20.0};
        pdk_tyre_eval(law, &ground, &y, 0, &out);
        *mu_y = fmax(*mu_y, -out.fy_n / fz_n);
    }
}

START_TEST(shipped_presets_fit_their_tyres)
{
    static const tyre_sheet sheets[] = {
        {"midsize_sedan",
         PDK_TYRE_MAGIC,
         PDK_MF_ROAD_205_60R15,
         {0.313, 0.313},
         {0.205, 0.205},
         {0.1905, 0.1905},
         {220, 220},
         {1.0, 1.0},
         {46616, 39979},
         {1.209, 1.217},
         {0.942, 0.967}},
        {"compact_hatch",
         PDK_TYRE_MAGIC,
         PDK_MF_ROAD_205_60R15,
         {0.313, 0.313},
         {0.205, 0.205},
         {0.1905, 0.1905},
         {220, 220},
         {1.0, 1.0},
         {43880, 31246},
         {1.213, 1.225},
         {0.953, 0.993}},
        {"sports_car",
         PDK_TYRE_MAGIC,
         PDK_MF_SPORT,
         {0.334, 0.348},
         {0.235, 0.265},
         {0.2286, 0.2286},
         {230, 250},
         {1.3, 1.6},
         {100076, 115442},
         {1.452, 1.444},
         {1.119, 1.106}},
        {"open_wheeler",
         PDK_TYRE_MAGIC,
         PDK_MF_SLICK,
         {0.275, 0.285},
         {0.18, 0.24},
         {0.1651, 0.1651},
         {130, 130},
         {0.4, 0.5},
         {36317, 51825},
         {1.824, 1.781},
         {1.874, 1.831}},
        {"kart",
         PDK_TYRE_MAGIC,
         PDK_MF_KART,
         {0.127, 0.139},
         {0.114, 0.18},
         {0.0635, 0.0635},
         {80, 80},
         {0.015, 0.1},
         {15208, 19843},
         {0.900, 0.900},
         {1.500, 1.500}},
        {"pickup4x4",
         PDK_TYRE_GRIP,
         PDK_MF_ROAD_205_60R15,
         {0.388, 0.388},
         {0.265, 0.265},
         {0.2159, 0.2159},
         {220, 220},
         {2.6, 2.6},
         {57500, 50000},
         {0.9, 0.9},
         {0.9, 0.9}},
    };
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
        const tyre_sheet *sh = &sheets[i];
        pdk_vehicle_def d;
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, sh->name, NULL, &d, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s", err);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_axle_tyre_def *t = axle == 0 ? &d.tyre_front : &d.tyre_rear;
            ck_assert_int_eq(t->law.law, sh->law);
            ck_assert_double_eq(t->law.radius_m, sh->radius_m[axle]);
            ck_assert_double_eq(t->soil.width_m, sh->width_m[axle]);
            ck_assert_double_eq(t->life.rim_radius_m, sh->rim_radius_m[axle]);
            ck_assert_double_eq(t->life.cold_pressure_kpa, sh->inflation_kpa[axle]);
            ck_assert_double_eq(t->soil.inflation_pa, 1000 * sh->inflation_kpa[axle]);
            ck_assert_double_eq(t->spin_inertia_kgm2, sh->spin_inertia_kgm2[axle]);
            /* The fitment's size: radius = rim + section, to the millimetre. */
            ck_assert_msg(fabs(t->life.rim_radius_m + t->soil.section_height_m - t->law.radius_m) <
                              1.5e-3,
                          "%s axle %d: rim %g + section %g != radius %g", sh->name, axle,
                          t->life.rim_radius_m, t->soil.section_height_m, t->law.radius_m);
            /* The carcass' flexing heat has the tyre's own rolling loss. */
            ck_assert_double_eq(t->life.hysteresis_coeff, t->law.rolling_coeff);
            double fz = d.chassis.mass_kg * 9.81 *
                        (axle == 0 ? d.chassis.wheelbase_m - d.chassis.cg_to_front_axle_m
                                   : d.chassis.cg_to_front_axle_m) /
                        (2 * d.chassis.wheelbase_m);
            pdk_tyre_law_def law = t->law;
            if (sh->law == PDK_TYRE_MAGIC) {
                ck_assert_int_eq(t->law.mf_set, sh->set);
                ck_assert_mem_eq(&t->law.mf, pdk_mf_set_coeffs(sh->set), sizeof t->law.mf);
                /* Load sensitivity, slide and combined slip are the set's
                 * own, but the kart's slide: its set's own curve turns
                 * negative before full sliding (its shape factors are above
                 * 2), and the definition check wants a share of its own. */
                ck_assert_double_eq(t->law.load_sensitivity, 0);
                ck_assert_double_eq(t->law.slide_grip, sh->set == PDK_MF_KART ? 0.6 : 0.0);
                ck_assert_double_eq(t->law.combined_slip_loss, 0);
            } else {
                /* The grip law's stiffness and friction from the axle keys,
                 * as the four-wheel model derives them at spawn. */
                law.cornering_per_load = t->cornering_stiffness_n_per_rad / (2 * fz);
                law.camber_per_load = 0;
                law.mu_x = t->friction_coeff;
                law.mu_y = t->friction_coeff;
            }
            double ca, mu_x, mu_y;
            tyre_figures(&law, fz, &ca, &mu_x, &mu_y);
            ck_assert_msg(fabs(ca / sh->ca_n_per_rad[axle] - 1) < 0.005,
                          "%s axle %d: C_alpha %.0f N/rad, sheet %.0f", sh->name, axle, ca,
                          sh->ca_n_per_rad[axle]);
            if (sh->law == PDK_TYRE_MAGIC) {
                ck_assert_msg(fabs(mu_x - sh->mu_x[axle]) < 0.002 &&
                                  fabs(mu_y - sh->mu_y[axle]) < 0.002,
                              "%s axle %d: mu %.3f / %.3f, sheet %.3f / %.3f", sh->name, axle, mu_x,
                              mu_y, sh->mu_x[axle], sh->mu_y[axle]);
            } else {
                /* The grip law's peak is the friction at its nominal load,
                 * less the load sensitivity away from it. */
                double mu =
                    t->friction_coeff * pow(fz / t->law.nominal_load_n, -t->law.load_sensitivity);
                ck_assert_msg(fabs(mu_y - mu) < 0.002, "%s axle %d: mu_y %.3f, want %.3f", sh->name,
                              axle, mu_y, mu);
            }
        }
    }
    /* The single-track car's tyres are untouched: the default's. */
    pdk_vehicle_def ts;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", NULL, &ts, NULL, err, sizeof err),
        PDK_OK);
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    ck_assert_int_eq(ts.tyre_front.law.law, ref.tyre_front.law.law);
    ck_assert_double_eq(ts.tyre_rear.law.radius_m, ref.tyre_rear.law.radius_m);
    ck_assert_mem_eq(&ts.tyre_front.life, &ref.tyre_front.life, sizeof ref.tyre_front.life);
}
END_TEST

/* ---- the geared powertrains ------------------------------------------------ */

/* A geared preset's powertrain as its data sheet (docs/presets.md) gives
 * it: the layout, the box, the engine's peak power and torque, the brakes
 * (the lumped preset's force per bar and balance, as torques at each wheel)
 * and the aerodynamics. */
typedef struct powertrain_sheet {
    const char *name;
    int driven_axle;
    pdk_diff_kind diff;
    pdk_dl_coupling coupling;
    pdk_shift_kind shift;
    int n_gears;
    double final_drive;
    double peak_kw, peak_rpm, peak_nm;
    double brake_n_per_bar, brake_front; /* at the contacts, all four wheels */
    int abs;
    double tank_l;
    double downforce_area_m2;
} powertrain_sheet;

/* The engine's peak power on its full-load curve, W, and where (1 rev/min
 * steps). */
static double peak_power_w(const pdk_engine_def *e, double *at_rpm)
{
    double best = 0;
    for (double rpm = e->idle_rpm; rpm < e->max_rpm; rpm += 1) {
        double p = pdk_engine_full_load_nm(e, rpm) * rpm * M_PI / 30;
        if (p > best) {
            best = p;
            *at_rpm = rpm;
        }
    }
    return best;
}

START_TEST(shipped_powertrains_match_their_data_sheets)
{
    static const powertrain_sheet sheets[] = {
        {"compact_hatch", 0, PDK_DIFF_OPEN, PDK_COUPLING_NONE, PDK_SHIFT_AUTOMATIC, 6, 3.683, 85.0,
         5600, 175, 125, 0.70, 1, 50, 0},
        {"midsize_sedan", 1, PDK_DIFF_OPEN, PDK_COUPLING_NONE, PDK_SHIFT_AUTOMATIC, 6, 3.38, 106.8,
         6000, 200, 150, 0.60, 1, 60, 0},
        {"sports_car", 1, PDK_DIFF_LSD, PDK_COUPLING_NONE, PDK_SHIFT_SEQUENTIAL, 6, 3.89, 218.4,
         6850, 340, 170, 0.62, 1, 64, 0},
        {"open_wheeler", 1, PDK_DIFF_LSD, PDK_COUPLING_NONE, PDK_SHIFT_SEQUENTIAL, 6, 3.44, 110.0,
         6000, 200, 100, 0.60, 0, 45, 1.1},
        {"kart", 1, PDK_DIFF_LOCKED, PDK_COUPLING_NONE, PDK_SHIFT_AUTOMATIC, 1, 7.27, 19.1, 13000,
         15, 40, 0.0, 0, 8, 0},
        {"pickup4x4", 1, PDK_DIFF_OPEN, PDK_COUPLING_LOCKED, PDK_SHIFT_AUTOMATIC, 6, 3.909, 135.3,
         3400, 450, 220, 0.70, 1, 80, 0},
    };
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
        const powertrain_sheet *sh = &sheets[i];
        pdk_vehicle_def d;
        char *resolved = NULL;
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, sh->name, NULL, &d, &resolved, err,
                                              sizeof err) == PDK_OK,
                      "%s", err);
        const pdk_powertrain_def *pt = &d.powertrain;
        ck_assert_int_eq(pt->kind, PDK_POWERTRAIN_GEARED);
        ck_assert_int_eq(pt->layout.driven_axle, sh->driven_axle);
        ck_assert_int_eq(pt->layout.diff.kind, sh->diff);
        ck_assert_int_eq(pt->layout.coupling, sh->coupling);
        ck_assert_int_eq(pt->geared.shift, sh->shift);
        ck_assert_int_eq(pt->geared.n_gears, sh->n_gears);
        ck_assert_double_eq(pt->geared.final_drive, sh->final_drive);
        ck_assert_int_eq(pt->abs, sh->abs);
        ck_assert_double_eq(pt->fuel_tank_l, sh->tank_l);
        ck_assert_double_eq(d.resist.downforce_area_m2, sh->downforce_area_m2);
        double rpm = 0;
        double kw = peak_power_w(&pt->engine, &rpm) * 1e-3;
        double nm = 0;
        for (int k = 0; k < pt->engine.n_curve; k++) {
            nm = fmax(nm, pt->engine.curve_nm[k]);
        }
        ck_assert_msg(fabs(kw - sh->peak_kw) < 0.05 && fabs(rpm - sh->peak_rpm) <= 50 &&
                          nm == sh->peak_nm,
                      "%s: %.2f kW at %.0f rev/min, %.0f N m", sh->name, kw, rpm, nm);
        /* The brakes brake as the lumped preset's did: G R per wheel back
         * to the force at the contacts, and its balance. */
        double front = 2 * pt->brake_front_nm_per_bar / d.tyre_front.law.radius_m;
        double rear = 2 * pt->brake_rear_nm_per_bar / d.tyre_rear.law.radius_m;
        ck_assert_msg(fabs(front + rear - sh->brake_n_per_bar) < 1e-9 * sh->brake_n_per_bar &&
                          fabs(front / (front + rear) - sh->brake_front) < 1e-12,
                      "%s: %.6f N/bar, %.6f front", sh->name, front + rear, front / (front + rear));
        /* The box cannot hunt (sim refuses one that could) and shifts
         * between idle and the limiter. */
        ck_assert_ptr_null(pdk_vehicle_def_problem(&d));
        ck_assert(pt->geared.upshift_rpm_full <= pt->engine.max_rpm);
        /* The resolved JSON has a geared car's keys and no lumped drive. */
        ck_assert_ptr_null(strstr(resolved, "\"drive\""));
        ck_assert_ptr_null(strstr(resolved, "forcePerBar"));
        ck_assert_ptr_null(strstr(resolved, "parkHoldForce"));
        ck_assert_ptr_null(strstr(resolved, "cvt"));
        ASSERT_HAS(resolved, "\"kind\":\"geared\"");
        ASSERT_HAS(resolved, "\"transmission\":{");
        ASSERT_HAS(resolved, "\"clutch\":{");
        ASSERT_HAS(resolved, "\"driveline\":{");
        assert_reparses(resolved, &d);
        free(resolved);
    }
    /* The kart has no front brakes and no reverse of its own (R turns the
     * spool at the final ratio); the pickup's low range is 4L. */
    pdk_vehicle_def k, p;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "kart", NULL, &k, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(k.powertrain.brake_front_nm_per_bar, 0);
    ck_assert_double_eq(k.powertrain.geared.reverse_ratio, 1);
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "pickup4x4", NULL, &p, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(p.powertrain.geared.low_range, 2.566);
    ck_assert_double_eq(p.powertrain.layout.secondary_ratio, 1);
    ck_assert_int_eq(p.powertrain.layout.secondary_diff.kind, PDK_DIFF_OPEN);
    /* The single-track car for traffic stays lumped. */
    pdk_vehicle_def ts;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", NULL, &ts, NULL, err, sizeof err),
        PDK_OK);
    ck_assert_int_eq(ts.powertrain.kind, PDK_POWERTRAIN_LUMPED);
}
END_TEST

/* ---- the Polaris: the Polaris model's UTV
 * ------------------------------------------ */

/* sim's Polaris (utv_def.h) with occupants and cargo in the bed. */
static pdk_vehicle_def polaris_with(int occupants, double cargo_kg)
{
    pdk_utv_mass_def mass = pdk_utv_mass_def_polaris();
    mass.occupants = occupants;
    mass.cargo_kg = cargo_kg;
    return pdk_vehicle_def_polaris(&mass, 9.81);
}

/* The preset resolves, field by field and bit for bit (every field of
 * tests/common/def_fields.h, the powertrain's included; padding is not
 * compared), to sim's pdk_vehicle_def_polaris with the Polaris model's mass.*
 * under 9.81 m/s^2, and its resolved JSON parses back to the same. The
 * resolved JSON holds the utv's keys and none of those it derives. */
START_TEST(polaris_preset_is_seed_003s_definition)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    char *resolved = NULL;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger", NULL, &d, &resolved, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    pdk_vehicle_def ref = polaris_with(1, 0.0);
    assert_same_vehicle(&d, &ref);
    ck_assert_int_eq(d.powertrain.kind, PDK_POWERTRAIN_UTV);
    ck_assert_int_eq(d.powertrain.drive_mode, PDK_DRIVE_AWD);
    ck_assert_int_eq(d.powertrain.engine.n_curve, 10);
    ck_assert_double_eq(d.powertrain.engine.curve_nm[5], 84.1);
    ck_assert(d.powertrain.cvt.ebs && !d.powertrain.cvt.adc);
    ck_assert_double_eq(d.powertrain.fuel_heating_value_jpkg, 43.4e6);

    pdk_vehicle_def again;
    char *again_json = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(resolved, "resolved", NULL, &again, &again_json, err,
                                           sizeof err) == PDK_OK,
                  "%s", err);
    assert_same_vehicle(&d, &again);
    ck_assert_str_eq(resolved, again_json);
    ASSERT_HAS(resolved, "\"powertrain\":{\"driveMode\":\"awd\",\"kind\":\"utv\"}");
    ASSERT_HAS(resolved, "\"occupants\":1,");
    ASSERT_HAS(resolved, "\"torqueCurve\":[{\"nm\":52.0,\"rpm\":1250.0},");
    ASSERT_HAS(resolved, "\"ebs\":true");
    ASSERT_HAS(resolved, "\"chassis\":{\"angularDamping\":0.080000000000000002,"
                         "\"bodyHeight\":0.0,\"bodyLength\":0.0,\"bodyWidth\":0.0,"
                         "\"trackWidth\":1.3100000000000001,\"wheelbase\":");
    ck_assert_ptr_null(strstr(resolved, "\"drive\""));
    ck_assert_ptr_null(strstr(resolved, "springRate"));
    ck_assert_ptr_null(strstr(resolved, "nominalLoad"));
    ck_assert_ptr_null(strstr(resolved, "forcePerBar"));
    free(resolved);
    free(again_json);
}
END_TEST

/* The data sheet's figures (docs/presets.md, vehicles/polaris_ranger), which
 * the Polaris model quotes for one occupant: 1233.0 kg, the centre of mass
 * 1.243 m forward and 0.655 m high, 43.3 % on the front axle, inertias 318,
 * 1374 and 1475 kg m^2, corner rates of about 17.9 and 24.7 kN/m. */
START_TEST(polaris_matches_its_data_sheet)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger", NULL, &d, NULL, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    const pdk_chassis_def *c = &d.chassis;
    ck_assert_double_eq_tol(c->mass_kg, 1233.0, 1e-9);
    ck_assert_double_eq_tol(c->wheelbase_m - c->cg_to_front_axle_m, 1.243, 5e-4);
    ck_assert_double_eq_tol(c->cg_height_m, 0.655, 5e-4);
    ck_assert_double_eq_tol((c->wheelbase_m - c->cg_to_front_axle_m) / c->wheelbase_m, 0.433, 5e-4);
    ck_assert_double_eq_tol(c->roll_inertia_kgm2, 318, 0.5);
    ck_assert_double_eq_tol(c->pitch_inertia_kgm2, 1374, 0.5);
    ck_assert_double_eq_tol(c->yaw_inertia_kgm2, 1475, 0.5);
    ck_assert_double_eq_tol(d.susp_front.spring_rate_npm, 17.9e3, 0.05e3);
    ck_assert_double_eq_tol(d.susp_rear.spring_rate_npm, 24.7e3, 0.05e3);
    /* 0.35 of critical on the corner's mass; from ride height 0.1494 m to
     * the stop (0.2794 - 0.1 - 0.03), 0.1 m of droop. */
    for (int axle = 0; axle < 2; axle++) {
        const pdk_suspension_def *s = axle_of(&d, axle);
        double crit = 2 * sqrt(s->spring_rate_npm * corner_mass_kg(&d, axle));
        ck_assert_double_eq_tol(s->bump_damping_nspm / crit, 0.35, 1e-9);
        ck_assert_double_eq_tol(s->travel_bump_m, 0.1494, 1e-12);
        ck_assert_double_eq(s->travel_droop_m, 0.1);
    }
    /* The sheet's ride frequencies, 1.30 and 1.34 Hz, and roll gradient,
     * 15.8 deg/g with the roll centres on the ground and no bar. */
    ck_assert_double_eq_tol(sqrt(d.susp_front.spring_rate_npm / corner_mass_kg(&d, 0)) / (2 * M_PI),
                            1.304, 5e-4);
    ck_assert_double_eq_tol(sqrt(d.susp_rear.spring_rate_npm / corner_mass_kg(&d, 1)) / (2 * M_PI),
                            1.338, 5e-4);
    ck_assert_double_eq_tol(roll_gradient_rad_per_g(&d) * 180 / M_PI, 15.85, 5e-3);
    /* C_alpha = 8 N per N of static load and radian, per tyre. */
    double w_front = c->mass_kg * 9.81 * (c->wheelbase_m - c->cg_to_front_axle_m) / c->wheelbase_m;
    ck_assert_double_eq_tol(d.tyre_front.cornering_stiffness_n_per_rad, 8 * w_front, 1e-6);
    ck_assert_double_eq_tol(d.tyre_front.law.nominal_load_n, w_front / 2, 1e-9);
}
END_TEST

/* The Polaris model's override, in its own spelling, on the preset: 4
 * occupants and 150 kg in the bed are 1638 kg, and everything that follows
 * from the mass is what sim's Polaris with that load has. */
START_TEST(polaris_takes_occupants_and_cargo)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    char *resolved = NULL;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger",
                                          "mass.cargo_kg=150;mass.occupants=4", &d, &resolved, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq_tol(d.chassis.mass_kg, 1638.0, 1e-9);
    pdk_vehicle_def ref = polaris_with(4, 150.0);
    assert_same_vehicle(&d, &ref);
    ASSERT_HAS(resolved, "\"cargoKg\":150.0");
    ASSERT_HAS(resolved, "\"occupants\":4");
    assert_reparses(resolved, &d);
    free(resolved);

    /* The camelCase keys are the same; the driver alone and an empty
     * vehicle move the centre of mass as the parts say. */
    pdk_vehicle_def camel;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "polaris_ranger",
                                             "mass.cargoKg=150;mass.occupants=4", &camel, NULL, err,
                                             sizeof err),
                     PDK_OK);
    assert_same_vehicle(&camel, &ref);
    pdk_vehicle_def empty;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "polaris_ranger", "mass.occupants=0", &empty,
                                             NULL, err, sizeof err),
                     PDK_OK);
    pdk_vehicle_def ref0 = polaris_with(0, 0.0);
    assert_same_vehicle(&empty, &ref0);
    ck_assert_double_eq_tol(empty.chassis.mass_kg, 1148.0, 1e-9);
}
END_TEST

/* ---- a car's payload: occupants and cargo on a lumped or geared preset ---- */

/* A point mass that a payload adds (negative: the driver taken away), where
 * the preset file places it: the Polaris model's body axes, from the ground
 * under the middle of the rear axle, x forward, y left, z up. */
typedef struct point_mass {
    double kg, x, y, z;
} point_mass;

/* The chassis given carrying the points, by hand: the first and second
 * moments of every part about the ground under the rear axle, the body's
 * own inertia included, and then the whole mass' second moment at the new
 * centre of mass taken off (Steiner); the centre of mass' lateral offset
 * is counted in the inertias and not kept. */
static pdk_chassis_def by_hand(const pdk_chassis_def *c, const point_mass *p, int n)
{
    const double x0 = c->wheelbase_m - c->cg_to_front_axle_m, z0 = c->cg_height_m;
    double m = c->mass_kg, mx = m * x0, my = 0, mz = m * z0;
    double roll = c->roll_inertia_kgm2 + m * z0 * z0;
    double pitch = c->pitch_inertia_kgm2 + m * (x0 * x0 + z0 * z0);
    double yaw = c->yaw_inertia_kgm2 + m * x0 * x0;
    for (int i = 0; i < n; i++) {
        m += p[i].kg;
        mx += p[i].kg * p[i].x;
        my += p[i].kg * p[i].y;
        mz += p[i].kg * p[i].z;
        roll += p[i].kg * (p[i].y * p[i].y + p[i].z * p[i].z);
        pitch += p[i].kg * (p[i].x * p[i].x + p[i].z * p[i].z);
        yaw += p[i].kg * (p[i].x * p[i].x + p[i].y * p[i].y);
    }
    const double x = mx / m, y = my / m, z = mz / m;
    pdk_chassis_def out = *c;
    out.mass_kg = m;
    out.cg_to_front_axle_m = c->wheelbase_m - x;
    out.cg_height_m = z;
    out.roll_inertia_kgm2 = roll - m * (y * y + z * z);
    out.pitch_inertia_kgm2 = pitch - m * (x * x + z * z);
    out.yaw_inertia_kgm2 = yaw - m * (x * x + y * y);
    return out;
}

static void assert_chassis_near(const pdk_chassis_def *got, const pdk_chassis_def *want,
                                const char *what)
{
    ck_assert_msg(fabs(got->mass_kg - want->mass_kg) < 1e-9, "%s: mass %.17g, want %.17g", what,
                  got->mass_kg, want->mass_kg);
    ck_assert_msg(fabs(got->cg_to_front_axle_m - want->cg_to_front_axle_m) < 1e-12 &&
                      fabs(got->cg_height_m - want->cg_height_m) < 1e-12,
                  "%s: a %.17g h %.17g, want %.17g %.17g", what, got->cg_to_front_axle_m,
                  got->cg_height_m, want->cg_to_front_axle_m, want->cg_height_m);
    ck_assert_msg(fabs(got->roll_inertia_kgm2 - want->roll_inertia_kgm2) < 1e-8 &&
                      fabs(got->pitch_inertia_kgm2 - want->pitch_inertia_kgm2) < 1e-8 &&
                      fabs(got->yaw_inertia_kgm2 - want->yaw_inertia_kgm2) < 1e-8,
                  "%s: inertias %.17g %.17g %.17g, want %.17g %.17g %.17g", what,
                  got->roll_inertia_kgm2, got->pitch_inertia_kgm2, got->yaw_inertia_kgm2,
                  want->roll_inertia_kgm2, want->pitch_inertia_kgm2, want->yaw_inertia_kgm2);
    ck_assert_double_eq(got->wheelbase_m, want->wheelbase_m);
    ck_assert_double_eq(got->track_width_m, want->track_width_m);
}

/* Issue 5's override, in the Polaris model's spelling, on the saloon and the
 * pickup (4 occupants, 150 kg in the boot or bed), and the driver taken out of
 * the kart, which has one seat and no load space: the chassis is the preset's
 * with the occupants beyond the driver and the cargo added at the positions
 * its file gives (docs/presets.md), or the driver taken away; nothing else
 * changes; the camelCase keys are the same; the resolved JSON keeps the
 * preset's chassis and the payload keys, and parses back to the same
 * definition. */
START_TEST(a_cars_occupants_and_cargo_move_its_chassis)
{
    static const struct {
        const char *name;
        const char *overrides;
        const char *camel;
        point_mass added[4];
        int n;
    } cases[] = {
        {"midsize_sedan",
         "mass.cargo_kg=150;mass.occupants=4",
         "mass.cargoKg=150;mass.occupants=4",
         {{85, 1.4, -0.37, 0.7},
          {85, 0.5, 0.38, 0.73},
          {85, 0.5, -0.38, 0.73},
          {150, -0.6, 0, 0.65}},
         4},
        {"pickup4x4",
         "mass.cargo_kg=150;mass.occupants=4",
         "mass.cargoKg=150;mass.occupants=4",
         {{85, 1.79, -0.38, 1.15},
          {85, 0.94, 0.4, 1.18},
          {85, 0.94, -0.4, 1.18},
          {150, -0.35, 0, 1.05}},
         4},
        {"kart", "mass.occupants=0", "mass.occupants=0", {{-85, 0.45, 0.05, 0.38}}, 1},
    };
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_vehicle_def base, d, camel;
        char *resolved = NULL;
        ck_assert_int_eq(
            pdk_params_vehicle_load(PRESETS, cases[i].name, NULL, &base, NULL, err, sizeof err),
            PDK_OK);
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, cases[i].name, cases[i].overrides, &d,
                                              &resolved, err, sizeof err) == PDK_OK,
                      "%s", err);
        const pdk_chassis_def want = by_hand(&base.chassis, cases[i].added, cases[i].n);
        assert_chassis_near(&d.chassis, &want, cases[i].name);
        /* Everything but the chassis is the preset's. */
        pdk_vehicle_def rest = d;
        rest.chassis = base.chassis;
        assert_same_vehicle(&rest, &base);

        ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, cases[i].name, cases[i].camel, &camel,
                                                 NULL, err, sizeof err),
                         PDK_OK);
        assert_same_vehicle(&camel, &d);
        char chassis_mass[64];
        snprintf(chassis_mass, sizeof chassis_mass, "\"mass\":%.1f", base.chassis.mass_kg);
        ASSERT_HAS(resolved, chassis_mass);
        ASSERT_HAS(resolved, cases[i].n == 4 ? "\"occupants\":4" : "\"occupants\":0");
        assert_reparses(resolved, &d);
        free(resolved);

        /* mass.occupants=0 takes the driver's 85 kg away. */
        pdk_vehicle_def empty;
        ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, cases[i].name, "mass.occupants=0", &empty,
                                                 NULL, err, sizeof err),
                         PDK_OK);
        ck_assert_double_eq_tol(empty.chassis.mass_kg, base.chassis.mass_kg - 85, 1e-9);
    }
}
END_TEST

/* The saloon's sheet (docs/presets.md, "A car's payload"): 4 occupants and
 * 150 kg in the boot are 1905 kg, the centre of mass 1.241 m ahead of the
 * rear axle (46.0 % on the front axle, from 55.6 %) and 0.581 m up,
 * inertias 582.8 / 2961.6 / 3240.2 kg m^2; the static axle loads follow,
 * 8589 N front and 10099 N rear at 9.81 m/s^2. */
START_TEST(the_saloons_payload_matches_its_sheet)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                             "mass.cargo_kg=150;mass.occupants=4", &d, NULL, err,
                                             sizeof err),
                     PDK_OK);
    const pdk_chassis_def *c = &d.chassis;
    const double b = c->wheelbase_m - c->cg_to_front_axle_m;
    ck_assert_double_eq_tol(c->mass_kg, 1905, 1e-9);
    ck_assert_double_eq_tol(b, 1.241, 5e-4);
    ck_assert_double_eq_tol(100 * b / c->wheelbase_m, 46.0, 0.05);
    ck_assert_double_eq_tol(c->cg_height_m, 0.581, 5e-4);
    ck_assert_double_eq_tol(c->roll_inertia_kgm2, 582.8, 0.05);
    ck_assert_double_eq_tol(c->pitch_inertia_kgm2, 2961.6, 0.05);
    ck_assert_double_eq_tol(c->yaw_inertia_kgm2, 3240.2, 0.05);
    ck_assert_double_eq_tol(c->mass_kg * 9.81 * b / c->wheelbase_m, 8589, 0.5);
    ck_assert_double_eq_tol(c->mass_kg * 9.81 * c->cg_to_front_axle_m / c->wheelbase_m, 10099, 0.5);
}
END_TEST

/* ---- the four-wheel keys: suspension, kinematic curves, terrain ------------ */

/* A four-wheel preset with an independent front and a solid rear, curves on
 * both, for the tests below. */
static const char *const SUSP_JSON =
    "{\"suspension\":{"
    "\"front\":{\"staticToeDeg\":0.1,\"staticCamberDeg\":-1,\"kinematics\":{"
    "\"toeDeg\":[[-0.08,0.3],[0,0],[0.08,-0.4]],"
    "\"camberDeg\":[[-0.1,1.5],[0.05,-0.75],[0.1,-1.7]],"
    "\"rollCenterHeight\":[[-0.08,0.06],[0,0],[0.08,-0.06]]}},"
    "\"rear\":{\"kind\":\"solid\",\"rollCenterHeight\":0.3,\"kinematics\":{"
    "\"rollCenterHeight\":[[-0.1,0.05],[0.1,-0.05]],"
    "\"antiBrake\":[[-0.05,-0.1],[0,0],[0.05,0.1]],"
    "\"antiDrive\":[[0,0],[0.1,0.2]]}}}}";

START_TEST(curves_convert_and_round_trip)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def a;
    char *ra = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(SUSP_JSON, "s.json", NULL, &a, &ra, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    ck_assert_int_eq(a.model, PDK_MODEL_FOUR_WHEEL);
    ck_assert_int_eq(a.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_int_eq(a.susp_rear.kind, PDK_AXLE_SOLID);
    /* Degrees in the preset, radians in the definition; metres as given. */
    const pdk_curve *toe = &a.susp_front.kinematics.toe_rad;
    ck_assert_int_eq(toe->n_points, 3);
    ck_assert_double_eq(toe->travel_m[0], -0.08);
    ck_assert_double_eq(toe->value[0], 0.3 * M_PI / 180);
    ck_assert_double_eq(toe->value[2], -0.4 * M_PI / 180);
    ck_assert_double_eq(a.susp_front.static_toe_rad, 0.1 * M_PI / 180);
    /* Zero at zero travel by interpolation, not only at a point: -0.75 at
     * 0.05 m on a line from 1.5 at -0.1 m, through 0.75 at -0.05 m. */
    const pdk_curve *camber = &a.susp_front.kinematics.camber_rad;
    ck_assert_int_eq(camber->n_points, 3);
    ck_assert_double_eq_tol(pdk_curve_eval(camber, 0.0), 0, 1e-15);
    ck_assert_double_eq_tol(pdk_curve_eval(camber, -0.05), 0.75 * M_PI / 180, 1e-15);
    ck_assert_double_eq(a.susp_rear.kinematics.roll_center_height_m.value[1], -0.05);
    ck_assert_int_eq(a.susp_rear.kinematics.anti_drive.n_points, 2);
    ck_assert_int_eq(a.susp_rear.kinematics.toe_rad.n_points, 0);

    /* Resolved: every curve as [[travel, value], ...] in the preset unit,
     * and the round trip is exact to the bit. */
    ASSERT_HAS(ra, "\"toeDeg\":[[-0.080000000000000002,0.29999999999999999],[0.0,0.0],"
                   "[0.080000000000000002,-0.40000000000000002]]");
    ASSERT_HAS(ra, "\"kind\":\"solid\"");
    pdk_vehicle_def b;
    char *rb = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(ra, "resolved", NULL, &b, &rb, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    assert_same_vehicle(&a, &b);
    ck_assert_str_eq(ra, rb);
    free(ra);
    free(rb);

    /* Many curves of awkward degrees round-trip bit for bit. */
    uint64_t s = 0x2545f4914f6cdd1du;
    for (int i = 0; i < 300; i++) {
        char o[400];
        double v[4];
        for (int j = 0; j < 4; j++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v[j] = ((double)(s >> 11) * 0x1p-53 - 0.5) * 3.0;
        }
        snprintf(o, sizeof o,
                 "suspension.front.kinematics.camberDeg=[[-0.1,%.17g],[0,0],[0.03,%.17g],"
                 "[0.1,%.17g]];suspension.front.staticCamberDeg=%.17g",
                 v[0], v[1], v[2], v[3]);
        ck_assert_msg(pdk_params_vehicle_parse("{}", "x", o, &a, &ra, err, sizeof err) == PDK_OK,
                      "%s", err);
        ck_assert_msg(pdk_params_vehicle_parse(ra, "x", NULL, &b, NULL, err, sizeof err) == PDK_OK,
                      "%s", err);
        assert_same_vehicle(&a, &b);
        free(ra);
    }

    /* No kinematics block, an empty one and empty curves are one definition. */
    pdk_vehicle_def none;
    pdk_vehicle_def empty;
    pdk_vehicle_def blanks;
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x", NULL, &none, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_params_vehicle_parse("{\"suspension\":{\"front\":{\"kinematics\":{}}}}",
                                              "x", "suspension.rear.kinematics={}", &empty, NULL,
                                              err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":[],"
                                 "\"rollCenterHeight\":[]}}}}",
                                 "x", NULL, &blanks, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&none, &empty);
    assert_same_vehicle(&none, &blanks);
    ck_assert_int_eq(none.susp_front.kinematics.roll_center_height_m.n_points, 0);
}
END_TEST

/* Wraps a front toe curve (or a rear one) in a preset. */
static const char *toe_preset(const char *curve)
{
    static char text[1024];
    snprintf(text, sizeof text, "{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":%s}}}}",
             curve);
    return text;
}

START_TEST(curve_rules_name_key_and_reason)
{
    const char *m;
    const char *key = "test.json: suspension.front.kinematics.toeDeg";
    m = vparse_expect(toe_preset("{\"a\":1}"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, key);
    ASSERT_HAS(m, "expected a list of [travel, value] points, got object");

    m = vparse_expect(toe_preset("[[0,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg: 1 point; a curve has 2 to 16 points ([] for none)");
    {
        char curve[600] = "[";
        for (int i = 0; i < 17; i++) {
            char p[40];
            snprintf(p, sizeof p, "%s[%g,0]", i ? "," : "", 0.01 * (i - 8));
            strcat(curve, p);
        }
        strcat(curve, "]");
        m = vparse_expect(toe_preset(curve), NULL, PDK_ERR_OUT_OF_RANGE);
        ASSERT_HAS(m, "toeDeg: 17 points; a curve has 2 to 16 points");
        /* Sixteen is the most. */
        char sixteen[600];
        snprintf(sixteen, sizeof sixteen, "%.*s]", (int)(strrchr(curve, '[') - curve - 1), curve);
        vparse_expect(toe_preset(sixteen), NULL, PDK_OK);
    }

    m = vparse_expect(toe_preset("[[-0.1,0.2],0,[0.1,-0.2]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1]: expected a [travel, value] pair, got number");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,0,0],[0.1,-0.2]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1]: expected a [travel, value] pair, got a list of 3");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,\"0\"]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1][1]: expected a number (deg), got string");
    m = vparse_expect(toe_preset("[[null,0.2],[0,0]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[0][0]: expected a number (travel, m), got null");

    m = vparse_expect(toe_preset("[[-1.5,0.2],[0,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[0]: travel -1.5 m is outside -1..1 m");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,0],[0,-0.2]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[2]: travel 0 m does not exceed the previous point's 0 m; travel must be "
                  "strictly increasing");
    m = vparse_expect(toe_preset("[[0.1,0.2],[-0.1,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[1]: travel -0.1 m does not exceed the previous point's 0.1 m");

    /* Zero at zero travel, interpolated between points or held beyond the
     * ends. */
    m = vparse_expect(toe_preset("[[-0.1,0.3],[0.1,-0.1]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg: the curve is 0.1 deg at travel 0; it must be 0 there, since it adds to "
                  "suspension.front.staticToeDeg");
    m = vparse_expect(toe_preset("[[0.02,0.1],[0.1,-0.1]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "the curve is 0.1 deg at travel 0");
    vparse_expect(toe_preset("[[0,0],[0.1,-0.1]]"), NULL, PDK_OK);
    vparse_expect(toe_preset("[[-0.3,0.3],[0.1,-0.1]]"), NULL, PDK_OK);
    /* To rounding: a tenth of a degree over 0.3 m, read through decimals. */
    vparse_expect(toe_preset("[[-0.1,0.1],[0.2,-0.2]]"), NULL, PDK_OK);

    /* The same rules in an override, named by the override. */
    m = vparse_expect("{}", "suspension.rear.kinematics.rollCenterHeight=[[0,0.1],[0.1,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kinematics.rollCenterHeight=[[0,0.1],[0.1,0]]': "
                  "suspension.rear.kinematics.rollCenterHeight: the curve is 0.1 m at travel 0");
}
END_TEST

START_TEST(curve_sums_and_solid_axles)
{
    const char *m;
    /* static + curve within the static key's bounds, point by point. */
    m = vparse_expect("{}",
                      "suspension.front.staticToeDeg=2;"
                      "suspension.front.kinematics.toeDeg=[[-0.1,-1],[0,0],[0.1,3.5]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.front.kinematics.toeDeg[2]: "
                  "suspension.front.staticToeDeg "
                  "(2 deg) + 3.5 = 5.5 deg is above the maximum 5 deg that "
                  "suspension.front.staticToeDeg allows");
    vparse_expect("{}",
                  "suspension.front.staticToeDeg=2;"
                  "suspension.front.kinematics.toeDeg=[[-0.1,-1],[0,0],[0.1,3]]",
                  PDK_OK);
    m = vparse_expect("{}",
                      "suspension.rear.staticCamberDeg=-8;"
                      "suspension.rear.kinematics.camberDeg=[[-0.1,1],[0,0],[0.1,-2.5]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.rear.kinematics.camberDeg[2]: suspension.rear.staticCamberDeg (-8 "
                  "deg) + -2.5 = -10.5 deg is below the minimum -10 deg");
    m = vparse_expect("{}",
                      "suspension.front.rollCenterHeight=0.05;"
                      "suspension.front.kinematics.rollCenterHeight=[[-0.2,-0.6],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.rollCenterHeight[0]: "
                  "suspension.front.rollCenterHeight (0.05 m) + -0.6 = -0.55 m is below the "
                  "minimum -0.5 m");
    m = vparse_expect("{}",
                      "suspension.rear.antiDrive=1.5;"
                      "suspension.rear.kinematics.antiDrive=[[0,0],[0.1,0.6]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "suspension.rear.kinematics.antiDrive[1]: suspension.rear.antiDrive (1.5 -) + 0.6 "
               "= 2.1 - is above the maximum 2");
    m = vparse_expect("{}",
                      "suspension.front.antiBrake=-1.9;"
                      "suspension.front.kinematics.antiBrake=[[-0.1,-0.2],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.antiBrake[0]");

    /* A solid axle: toe and camber curves refused, the other three taken. */
    m = vparse_expect(SUSP_JSON, "suspension.rear.kinematics.toeDeg=[[-0.1,0.1],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.kinematics.toeDeg: not allowed "
                  "on a solid axle "
                  "(suspension.rear.kind is \"solid\"): the beam sets the wheels' toe and camber");
    m = vparse_expect(SUSP_JSON, "suspension.front.kind=solid", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.toeDeg: not allowed on a solid axle");
    m = vparse_expect(SUSP_JSON,
                      "suspension.front.kind=solid;suspension.front.kinematics.toeDeg=[]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.camberDeg: not allowed on a solid axle");
    vparse_expect(SUSP_JSON,
                  "suspension.front.kind=solid;suspension.front.kinematics.toeDeg=[];"
                  "suspension.front.kinematics.camberDeg=[]",
                  PDK_OK);
    /* The rule holds on the single-track model too: the definition is the
     * same whichever model runs it. */
    vparse_expect(SUSP_JSON, "simulation.model=singleTrack", PDK_OK);
    m = vparse_expect(SUSP_JSON, "simulation.model=singleTrack;suspension.front.kind=solid",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "not allowed on a solid axle");

    /* kind is one of two names. */
    m = vparse_expect("{}", "suspension.rear.kind=beam", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kind=beam': suspension.rear.kind: \"beam\" is not an "
                  "axle kind (allowed: \"independent\", \"solid\")");
    m = vparse_expect("{\"suspension\":{\"rear\":{\"kind\":1}}}", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "test.json: suspension.rear.kind: expected a string, got number");
}
END_TEST

START_TEST(overrides_reach_curves_kinds_and_entries)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          "suspension.front.kinematics.toeDeg=[[-0.1,0.2],[0,0],"
                                          "[0.1,-0.2]];suspension.rear.kind=solid;"
                                          "suspension.rear.kinematics.camberDeg=[]",
                                          &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(d.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_int_eq(d.susp_front.kinematics.toe_rad.n_points, 3);
    ck_assert_double_eq(d.susp_front.kinematics.toe_rad.value[2], -0.2 * M_PI / 180);
    ck_assert_int_eq(d.susp_rear.kinematics.camber_rad.n_points, 0);
    /* The file's other curves stay. */
    ck_assert_int_eq(d.susp_front.kinematics.camber_rad.n_points, 3);

    /* Indices reach a point, or a coordinate of one; the next index appends. */
    const char *base = "{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":"
                       "[[-0.1,0.2],[0,0],[0.1,-0.2]]}}}}";
    ck_assert_msg(pdk_params_vehicle_parse(base, "b.json",
                                           "suspension.front.kinematics.toeDeg[2]=[0.05,-0.3];"
                                           "suspension.front.kinematics.toeDeg[0][1]=0.25;"
                                           "suspension.front.kinematics.toeDeg[3]=[0.2,-0.5]",
                                           &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    const pdk_curve *toe = &d.susp_front.kinematics.toe_rad;
    ck_assert_int_eq(toe->n_points, 4);
    ck_assert_double_eq(toe->value[0], 0.25 * M_PI / 180);
    ck_assert_double_eq(toe->travel_m[2], 0.05);
    ck_assert_double_eq(toe->travel_m[3], 0.2);
    /* An index into a curve the file leaves out starts from no points; each
     * override must leave a valid curve, so a new curve comes whole. */
    const char *m;
    m = vparse_expect("{}", "suspension.rear.kinematics.antiDrive[0]=[0,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kinematics.antiDrive[0]=[0,0]': "
                  "suspension.rear.kinematics.antiDrive: 1 point; a curve has 2 to 16 points");
    ck_assert_msg(pdk_params_vehicle_parse("{}", "e.json",
                                           "suspension.rear.kinematics.antiDrive=[[0,0],[0.1,0.3]];"
                                           "suspension.rear.kinematics.antiDrive[2]=[0.2,0.4]",
                                           &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(d.susp_rear.kinematics.anti_drive.n_points, 3);

    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[5]=[0.2,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.front.kinematics.toeDeg[5]=[0.2,0]': "
                  "suspension.front.kinematics.toeDeg[5]: index 5 is past the end of "
                  "suspension.front.kinematics.toeDeg, which has 3 entries ([3] appends one)");
    /* A changed point is checked with the whole curve. */
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1]=[0.2,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "suspension.front.kinematics.toeDeg[2]: travel 0.1 m does not exceed the previous "
               "point's 0.2 m");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1][0][0]=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m,
               "toeDeg[1][0][0]: suspension.front.kinematics.toeDeg[1][0] is number, not a list");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1].x=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1].x: suspension.front.kinematics.toeDeg[1] is array, not an object");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg.first=1", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "suspension.front.kinematics.toeDeg.first: unknown key "
                  "(suspension.front.kinematics.toeDeg is a list, indexed as [n], with no keys "
                  "under it)");
    m = vparse_expect("{}", "suspension.front.kinematic.toeDeg=[]", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "suspension.front.kinematic: unknown key (did you mean "
                  "suspension.front.kinematics?)");
    m = vparse_expect("{}", "suspension.front[0]=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "suspension.front[0]: suspension.front is an object, not an array");
}
END_TEST

START_TEST(four_wheel_cross_field_rules)
{
    const char *m;
    /* An axle's own track: 0 for the chassis', else a real track. */
    m = vparse_expect("{}", "suspension.rear.trackWidth=0.1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.trackWidth (0.1 m) must be 0 (use "
                  "chassis.trackWidth) "
                  "or at least 0.3 m");
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x",
                                              "chassis.trackWidth=1.5;suspension.rear.trackWidth="
                                              "1.55",
                                              &d, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&d, 0), 1.5);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&d, 1), 1.55);

    /* Roll centres at most 0.9 of the CG height, on the four-wheel model
     * (vehicle_def.h says why); the bound itself passes. */
    m = vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}", "suspension.rear.rollCenterHeight=0.46",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.rollCenterHeight (0.46 m) must be "
                  "at most 0.9 chassis.cgHeight (0.5 m) on the fourWheel model");
    vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}", "suspension.rear.rollCenterHeight=0.45",
                  PDK_OK);
    /* The damping floor and the roll-inertia floor are sim's rules; params
     * passes on its sentence. */
    m = vparse_expect("{}", "suspension.front.bumpDamping=100", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "susp_front.bump_damping_nspm and rebound_damping_nspm must each be at least 0.1 "
                  "of critical");
    m = vparse_expect("{}", "chassis.rollInertia=50", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.roll_inertia_kgm2 must be at least 0.1");
    vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}",
                  "suspension.rear.rollCenterHeight=0.5;simulation.model=singleTrack", PDK_OK);

    /* The steering centre within the lock. */
    m = vparse_expect("{\"steering\":{\"lockDeg\":100,\"ratio\":5}}",
                      "steering.centerOffsetDeg=-120", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.centerOffsetDeg (-120 deg) must be within the lock, steering.lockDeg "
                  "(100 deg), either way");
    vparse_expect("{\"steering\":{\"lockDeg\":100,\"ratio\":5}}", "steering.centerOffsetDeg=-100",
                  PDK_OK);

    /* Ideal Ackermann at full lock: 60 deg on a 2.7 m wheelbase and 1.6 m
     * track turns the inner wheel to 73.6 deg, 70 deg past 90. */
    vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":600}}", NULL, PDK_OK);
    m = vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":680}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.ackermann (0.5) is above 0 and the road-wheel lock steering.lockDeg / "
                  "steering.ratio = 68.0 deg turns the inner front wheel to 8");
    m = vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":750}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "turns the inner front wheel past 90 deg at full lock");
    vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":750,\"ackermann\":0}}", NULL, PDK_OK);

    /* The steering feel: trail and assist within their ranges, and an
     * assist with both its gain and its most torque or neither. */
    m = vparse_expect("{}", "steering.trail=-0.01", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.trail: -0.01 is below the minimum 0 (m)");
    m = vparse_expect("{}", "steering.trail=0.5", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.trail: 0.5 is above the maximum 0.3 (m)");
    m = vparse_expect("{}", "steering.assistGain=-1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.assistGain: -1 is below the minimum 0 (-)");
    m = vparse_expect("{}", "steering.assistGain=25", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.assistGain: 25 is above the maximum 20 (-)");
    m = vparse_expect("{}", "steering.assistMaxTorque=300", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.assistMaxTorque: 300 is above the maximum 200 (N*m)");
    m = vparse_expect("{}", "steering.assistGain=3", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.assistGain (3) and steering.assistMaxTorque (0 N*m) must be both "
                  "above 0 (a power assist) or both 0 (none)");
    m = vparse_expect("{}", "steering.assistMaxTorque=20", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.assistGain (0) and steering.assistMaxTorque (20 N*m)");
    vparse_expect("{}", "steering.trail=0.03;steering.assistGain=3;steering.assistMaxTorque=20",
                  PDK_OK);
}
END_TEST

static Suite *presets_suite(void)
{
    Suite *s = suite_create("presets");
    TCase *shipped = tcase_create("shipped presets");
    tcase_add_test(shipped, every_shipped_preset_loads);
    tcase_add_test(shipped, shipped_presets_match_their_data_sheets);
    tcase_add_test(shipped, shipped_presets_fit_their_tyres);
    tcase_add_test(shipped, shipped_powertrains_match_their_data_sheets);
    suite_add_tcase(s, shipped);

    TCase *utv = tcase_create("polaris");
    tcase_add_test(utv, polaris_preset_is_seed_003s_definition);
    tcase_add_test(utv, polaris_matches_its_data_sheet);
    tcase_add_test(utv, polaris_takes_occupants_and_cargo);
    suite_add_tcase(s, utv);

    TCase *payload = tcase_create("payload");
    tcase_add_test(payload, a_cars_occupants_and_cargo_move_its_chassis);
    tcase_add_test(payload, the_saloons_payload_matches_its_sheet);
    suite_add_tcase(s, payload);

    TCase *fw = tcase_create("four-wheel keys");
    tcase_add_test(fw, curves_convert_and_round_trip);
    tcase_add_test(fw, curve_rules_name_key_and_reason);
    tcase_add_test(fw, curve_sums_and_solid_axles);
    tcase_add_test(fw, overrides_reach_curves_kinds_and_entries);
    tcase_add_test(fw, four_wheel_cross_field_rules);
    suite_add_tcase(s, fw);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(presets_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
