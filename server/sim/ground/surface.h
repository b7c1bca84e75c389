/* Ground materials and deformable soil: the surface table and the tyre-on-soil
 * relations of terramechanics.
 *
 * A surface is one row of a fixed table, indexed by a stable id that the
 * terrain stores per cell and per analytic piece. Each row gives the peak
 * and sliding friction a road tyre gets on it, its rolling-resistance
 * coefficient, the curve's shape (how far the peak slip moves, how much
 * softer the slip stiffness is, whether the ground is loose) and, for
 * deformable ground, the Bekker and Janosi-Hanamoto soil values. Every
 * number carries its source in surface.c.
 *
 * The tyre laws are written for the reference surface, dry tarmac
 * (tyre.h): pdk_surface_ground turns a row into the scales a law takes.
 *
 * Soil (Bekker, Introduction to Terrain-Vehicle Systems, 1969; Wong, Theory of
 * Ground Vehicles, ch. 2): the tyre presses the soil with the
 * inflated-membrane pressure p_i + p_c over the area A = N / (p_i + p_c) while
 * that is below the pressure a rigid wheel of its size would put on the soil
 * (the critical pressure p_gcr); above it, it acts as a rigid wheel. The
 * static sinkage is Bekker's closed form for whichever mode applies, capped at
 * the sinkage limit (0.2 m); the compaction resistance follows from the same
 * closed forms, bulldozing adds the soil wedge in front of a deeply sunk tyre,
 * and the soil's thrust is Janosi-Hanamoto's integrated over the contact
 * length at the wheel's slip. Everything here is a pure function of its
 * arguments: the vehicle model keeps the sinkage as state and moves it toward
 * the static value at a limited rate (as fast as the tyre's own deflection
 * follows its load, four_wheel_ground.c, so that the tyre's spring in series
 * with the soil sets the stiffness), and the stiff soil never enters the
 * 120 Hz integration as a spring. */
#ifndef PDK_SURFACE_H
#define PDK_SURFACE_H

#include "sim/surface_def.h"

#include <stdint.h>

/* The scales a tyre law takes on surface id (tyre.h pdk_tyre_ground),
 * with the tyre's own grip scale multiplied in. */
struct pdk_tyre_ground;
void pdk_surface_ground(int id, double tyre_grip, struct pdk_tyre_ground *out);

/* Why a soil tyre cannot be used, naming the field ("tyre.soil.width_m
 * must be above 0 and at most 5 m"), or NULL. */
const char *pdk_soil_tyre_problem(const pdk_soil_tyre *tyre);

/* The static state of a tyre pressed on soil by load_n (>= 0; 0 gives all
 * zeros). */
typedef struct pdk_soil_contact {
    int rigid;               /* 1: the tyre acts as a rigid wheel (p_i + p_c >= p_gcr) */
    double ground_pressure_pa; /* p_g: p_i + p_c (flexible) or N / A (rigid) */
    double critical_pressure_pa; /* p_gcr */
    double sinkage_m;        /* z, capped at PDK_SOIL_SINKAGE_LIMIT_M */
    double contact_length_m; /* l along the wheel's path: the membrane ellipse's length
                              * 2 sqrt(2 R delta - delta^2) (flexible), the chord
                              * sqrt(D z) of the sunk front arc (rigid) */
    double contact_area_m2;  /* A: N / (p_i + p_c) (flexible), b l (rigid) */
    double compaction_n;     /* Rc = b (kc / b + kphi) z^(n+1) / (n+1) */
    double bulldozing_n;     /* Rb (0 while z / D <= 0.15: pdk_soil_bulldozing_n) */
    double rolling_coeff;    /* the carcass's hysteresis h delta_t / h_s, at most 0.45 */
    double traction_limit_n; /* (c A + N tan(phi)) (1 + 2 h_lug r_lug / b): the thrust
                              * the soil can take, approached at full slip */
    double tyre_deflection_m; /* delta_t: the membrane's N / (2 pi (p_i + p_c)
                               * sqrt(R b / 2)), times p_gcr / (p_i + p_c) in rigid mode */
} pdk_soil_contact;

#define PDK_SOIL_SINKAGE_LIMIT_M 0.2

void pdk_soil_static(const pdk_soil *soil, const pdk_soil_tyre *tyre, double load_n,
                     pdk_soil_contact *out);

/* Bekker's compaction resistance (Wong, Theory of Ground Vehicles, ch. 2) of a
 * wheel of width_m in a rut sinkage_m deep: the work of pressing the rut per
 * unit of its length, Rc = b (kc / b + kphi) z^(n+1) / (n+1); 0 at z <= 0. */
double pdk_soil_compaction_n(const pdk_soil *soil, double width_m, double sinkage_m);

/* Bekker's bulldozing resistance (Wong, Theory of Ground Vehicles, ch. 2) of a
 * wheel of width_m and diameter_m sunk sinkage_m into soil, phased in between
 * z / D = 0.15 and 0.25 (surface.c says why); 0 at z = 0. */
double pdk_soil_bulldozing_n(const pdk_soil *soil, double width_m, double diameter_m,
                             double sinkage_m);

/* Janosi-Hanamoto thrust (Janosi and Hanamoto, 1961; Wong, ch. 2) at slip s
 * (0..1, either sign: the result takes its sign) over the contact:
 * traction_limit (1 - K / (s l) (1 - exp(-s l / K))), with K the soil's plus
 * the tread's. */
double pdk_soil_thrust_n(const pdk_soil *soil, const pdk_soil_tyre *tyre,
                         const pdk_soil_contact *contact, double slip);

/* Water drag on a wheel in water depth_m deep moving at velocity v: the
 * quadratic drag of a body in water, F = -1/2 1000 Cd_w A_w |v| v, on the
 * wheel's wetted frontal area A_w = b min(2 R, depth), per component of v given (the caller passes the wheel's horizontal
 * velocity). PDK_WATER_DRAG_COEFF is Cd_w. */
#define PDK_WATER_DRAG_COEFF 1.0
void pdk_water_drag(double depth_m, double width_m, double radius_m, const double v_mps[2],
                    double out_n[2]);

#endif
