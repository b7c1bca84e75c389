/* The Polaris Ranger CREW XP 1000 as a vehicle definition (the Polaris model):
 * the chassis from its parts (utv_mass.h) with its occupants and cargo, the
 * corners as the tyre's membrane in series with the wheel rate (utv_corner.h),
 * the 27 in tyres on the Polaris model's hard-surface law and on soil, the
 * steering of the fitted ratio and centre with ideal Ackermann, and its
 * powertrain (pdk_powertrain_def_polaris). What the four-wheel model reads
 * differently from the Polaris model's own chassis is said where it is set, in
 * utv_def.c.
 *
 * The step from the Polaris model's keys to the fields that follow from them
 * (pdk_utv_def_complete) is public, so that a preset of the UTV (params/)
 * derives them exactly as pdk_vehicle_def_polaris does. */
#ifndef PDK_UTV_DEF_H
#define PDK_UTV_DEF_H

#include "sim/utv_mass.h"
#include "sim/vehicle_def.h"

/* The Polaris model's suspension.* keys, in SI: a corner is the tyre's
 * membrane in series with the wheel rate, damped at damping_ratio of critical
 * on the corner's static mass; of the travel, droop_m lies below the static
 * position and the bump stop's bump_stop_length_m at its top end, a quadratic
 * stop of bump_stop_rate_npm2. */
typedef struct pdk_utv_suspension_def {
    double front_wheel_rate_npm;
    double rear_wheel_rate_npm;
    double damping_ratio;
    double travel_m;
    double droop_m;
    double bump_stop_length_m;
    double bump_stop_rate_npm2;
} pdk_utv_suspension_def;

/* The Polaris model's suspension.* defaults for the Polaris. */
pdk_utv_suspension_def pdk_utv_suspension_def_polaris(void);

/* Fills the fields of def that follow from a UTV's parts under gravity
 * gravity_mps2, from def's wheelbase, tracks and tyres (radius, width,
 * inflation and carcass pressure) and the keys given here:
 *  - the chassis' mass, inertias, cg_to_front_axle_m and cg_height_m from
 *    mass (pdk_utv_mass_of; the centre of mass on the centre line);
 *  - each axle's tyres: nominal_load_n their static load and
 *    cornering_stiffness_n_per_rad the axle's, cornering_per_load[axle]
 *    (front, rear; 1/rad) times twice that load;
 *  - each corner's spring_rate_npm, both damping rates, travel_droop_m,
 *    travel_bump_m and bump_stop_npm from susp;
 *  - brake.park_hold_force_n 0: the UTV's pawl is gearbox.park_hold_nm.
 * Nothing else is read or written. */
void pdk_utv_def_complete(pdk_vehicle_def *def, const pdk_utv_mass_def *mass,
                          const pdk_utv_suspension_def *susp, const double cornering_per_load[2],
                          double gravity_mps2);

/* The Polaris with mass (its parts, occupants and cargo) under gravity
 * gravity_mps2. */
pdk_vehicle_def pdk_vehicle_def_polaris(const pdk_utv_mass_def *mass, double gravity_mps2);

#endif
