/* The Polaris Ranger CREW XP 1000 as a vehicle definition (seed 003): the
 * chassis from its parts (utv_mass.h) with its occupants and cargo, the
 * corners as the tyre's membrane in series with the wheel rate
 * (utv_corner.h), the 27 in tyres on seed 003's hard-surface law and on
 * soil, the steering of the fitted ratio and centre with ideal Ackermann,
 * and its powertrain (pdk_powertrain_def_polaris). What the four-wheel
 * model reads differently from the seed's own chassis is said where it is
 * set, in utv_def.c. */
#ifndef PDK_UTV_DEF_H
#define PDK_UTV_DEF_H

#include "utv_mass.h"
#include "vehicle_def.h"

/* The Polaris with mass (its parts, occupants and cargo) under gravity
 * gravity_mps2. */
pdk_vehicle_def pdk_vehicle_def_polaris(const pdk_utv_mass_def *mass, double gravity_mps2);

#endif
