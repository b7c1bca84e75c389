/* The four-wheel step's scalar per-wheel helpers (four_wheel_ground.c),
 * internal to four_wheel.c: the surface a wheel stands on, the tyre on
 * deformable soil and in water, and the tyres' life once a tick. They run
 * per wheel, outside the step's four-wide vector code: rarely (soil, water,
 * a surface patch) or once a tick (life). Each is an ordinary function
 * compiled once, so both builds of the step (baseline and AVX) call the same
 * code and get the same bits. */
#ifndef PDK_FOUR_WHEEL_GROUND_H
#define PDK_FOUR_WHEEL_GROUND_H

#include <stdint.h>

#include "ground/surface.h"
#include "tyre/tyre_life.h"

/* What a wheel takes from the surface it stands on: the tyre law's scales
 * (tyre.h pdk_tyre_ground, without the tyre's own grip), the surface's
 * rolling-resistance coefficient for a car tyre and whether the soil model
 * applies. An id outside the table reads as the reference surface. */
typedef struct pdk_fw_ground {
    double grip, stiffness, slide;
    double rolling_coeff;
    int deformable;
} pdk_fw_ground;

void pdk_fw_ground_of(int surface_id, pdk_fw_ground *out);

/* A tyre on deformable soil (surface.h; Wong, Theory of Ground Vehicles, ch.
 * 2; the Polaris model, docs/powertrain.md), as the step uses it for one
 * wheel. */
typedef struct pdk_fw_soil_in {
    const pdk_soil *soil;      /* the surface's */
    const pdk_soil_tyre *tyre; /* the axle's: width, section height, carcass, lugs, tread */
    double radius_m;           /* unloaded radius R0 (the law's) */
    double pressure_pa;        /* the tyre's gauge pressure now */
    double load_n;             /* > 0 */
    double kappa;              /* the longitudinal slip the law sees */
    double vx_mps;             /* the contact's speed along the wheel heading */
    double corner_mass_kg;     /* static load / g */
    double substep_s;
    double sinkage_m;          /* the wheel's sinkage now (its state): the rut it rolls in */
} pdk_fw_soil_in;

typedef struct pdk_fw_soil_out {
    double fx_n;             /* Janosi-Hanamoto thrust at kappa */
    double dfx_dkappa_n;     /* its slope, >= 0 */
    double traction_limit_n; /* the most the soil can take: the tyre's peak on it */
    double resistance_n;     /* motion resistance along the heading (the Polaris model's clamp) */
    double rolling_coeff;    /* the Polaris model's h delta_t / h_s */
} pdk_fw_soil_out;

void pdk_fw_soil(const pdk_fw_soil_in *in, pdk_fw_soil_out *out);

/* Where a wheel's sinkage goes in a substep of substep_s that ends with the
 * tyre (the axle's, at radius_m and pressure_pa) pressing the soil with
 * load_n (> 0): *target_m, Bekker's static sinkage at that load, and
 * *step_m, the most it may move there, the tyre's deflection at the load
 * times the wheel-hop rate 2 pi 10 rad/s times the substep. The end's load
 * is the one the chassis solve gives with the sinkage as it is; the start's
 * would let the wheel sink on a load it has already shed. */
void pdk_fw_sinkage_at(const pdk_soil *soil, const pdk_soil_tyre *tyre, double radius_m,
                       double pressure_pa, double load_n, double substep_s, double *target_m,
                       double *step_m);

/* The most a wheel's sinkage may move in a substep of substep_s where the
 * soil model does not set it (hard ground, in the air): as on soil, the
 * tyre's membrane deflection, here at static_load_n, times the wheel-hop
 * rate times the substep. */
double pdk_fw_sinkage_step_m(const pdk_soil_tyre *tyre, double radius_m, double static_load_n,
                             double substep_s);

/* The share of its way to its target (Bekker's static value on soil, 0 off
 * it) a wheel's sinkage moves in a substep of substep_s: it relaxes toward
 * the target at the wheel-hop rate, 1 - exp(-omega h). */
double pdk_fw_sinkage_share(double substep_s);

/* The tyres' life at the start of a tick (tyre_life.h
 * pdk_tyre_life_effect) for the four wheels: lives[i] with the axle's
 * definition defs[i >> 1] on a tyre of radius r0_m[i]. */
void pdk_fw_life_effects(const pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[2],
                         const double r0_m[4], pdk_tyre_effect out[4]);

/* Advances the four tyres' lives by dt_s with what the tick did to them
 * (tyre_life.h pdk_tyre_life_step): the means over its substeps. */
void pdk_fw_life_steps(pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[2],
                       const double slide_power_w[4], const double load_n[4],
                       const double roll_speed_mps[4], const double contact[4], double air_c,
                       double road_c, double dt_s);

#endif
