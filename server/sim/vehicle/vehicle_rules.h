/* The rules a vehicle definition must keep (vehicle_def.c): those every
 * model shares, and each model's own, which its table names (model.h
 * def_check). pdk_vehicle_def_check (model.c) runs the shared rules, then
 * the model's. Each returns PDK_OK, or the error with *why naming the
 * first field that breaks a rule (a static sentence, or one built in a
 * thread-local buffer as pdk_vehicle_def_problem says). Private to sim. */
#ifndef PDK_VEHICLE_RULES_H
#define PDK_VEHICLE_RULES_H

#include "sim/vehicle_def.h"

/* Chassis, axle tyres, steering, drive, brakes, resistances, the
 * powertrain's and the DBW kit's own rules. def is not NULL and its model
 * is one this build has. */
pdk_error pdk_vehicle_def_common_check(const pdk_vehicle_def *def, const char **why);

/* The four-wheel model's: inertias, suspension, wheels and tyres per axle,
 * the roll stability limits (vehicle_def.h). */
pdk_error pdk_fw_def_check(const pdk_vehicle_def *def, const char **why);

/* The single-track model's: it drives through the lumped powertrain only. */
pdk_error pdk_st_def_check(const pdk_vehicle_def *def, const char **why);

#endif
