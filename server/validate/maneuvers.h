/* The standard maneuvers, each run in-process on the real sim (pdk_world,
 * the preset and world loaded through params as paddockd loads them) at
 * the job's substep count, each adding its rows and traces to the job. A
 * maneuver that does not apply to the preset's model kind adds its rows as
 * not applicable, saying why. */
#ifndef PDK_VALIDATE_MANEUVERS_H
#define PDK_VALIDATE_MANEUVERS_H

#include "job.h"

/* ISO 4138 steady-state circle: understeer gradient against the analytic. */
void pdk_maneuver_circle(pdk_job *job);

/* ISO 7401 step steer at 80 km/h to 4 m/s^2: yaw-rate times and overshoot. */
void pdk_maneuver_step_steer(pdk_job *job);

/* Straight-line stops from 100 km/h on each surface, locked and with ABS. */
void pdk_maneuver_braking(pdk_job *job);

/* Full throttle from rest: 0-100 km/h and the top speed. */
void pdk_maneuver_launch(pdk_job *job);

/* The tilt table's rollover angle of a stiff-suspension variant. */
void pdk_maneuver_tilt_table(pdk_job *job);

/* Parked and braked on the hill world's 30 % slope, nose up and down. */
void pdk_maneuver_creep(pdk_job *job);

/* The energy ledger's residual over a mixed drive. */
void pdk_maneuver_energy_ledger(pdk_job *job);

/* ISO 3888-1 double lane change: the highest speed passed. */
void pdk_maneuver_lane_change(pdk_job *job);

#endif
