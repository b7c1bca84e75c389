/* One vehicle on a world of its own, for a maneuver: the preset and world
 * loaded through params as paddockd loads them, the world at the job's
 * substep count, commands and ticks. */
#ifndef PDK_VALIDATE_VRUN_H
#define PDK_VALIDATE_VRUN_H

#include "job.h"
#include "sim/world.h"

typedef struct pdk_vrun {
    void *mem;
    pdk_world *world;
    pdk_vehicle_id id;
    const double *ch;      /* the vehicle's channels after the last tick */
    pdk_vehicle_pose pose; /* its pose after the last tick */
    pdk_vehicle_def def;
    pdk_dbw_cmd cmd; /* the command held */
} pdk_vrun;

/* The job's preset with overrides (NULL for none); 0, or -1 with the job's
 * error set naming the preset and what was wrong. */
int pdk_vrun_vehicle(pdk_job *job, const char *overrides, pdk_vehicle_def *out);

/* A world preset with overrides, at the job's substep count; 0 or -1 as
 * above. */
int pdk_vrun_world(pdk_job *job, const char *name, const char *overrides, pdk_world_def *out);

/* A world of wdef holding one vehicle of vdef at (x_m, y_m, yaw_rad),
 * moving at speed_mps in gear, its tyres at their optimal temperature (as
 * on tyre warmers, as a data sheet's runs start). 0, or -1 with the job's
 * error set. */
int pdk_vrun_start(pdk_job *job, pdk_vrun *run, const pdk_world_def *wdef,
                   const pdk_vehicle_def *vdef, double x_m, double y_m, double yaw_rad,
                   double speed_mps, pdk_gear gear);

/* Puts every tyre at its optimal temperature, all three layers and its gas
 * (the tyre warmers' input, PDK_TYRE_SET_TEMPERATURE): pdk_vrun_start does
 * it once; a maneuver that measures the tyres at their optimum throughout
 * does it before every tick. */
void pdk_vrun_warm_tyres(pdk_vrun *run);

/* Holds throttle, brake (clamped to the vehicle's line pressure) and
 * steering-wheel angle from straight ahead: the definition's
 * steering.center_offset_deg (a misaligned wheel, as the Polaris's) is
 * added, and the sum clamped to the lock. */
void pdk_vrun_drive(pdk_vrun *run, double throttle_pct, double brake_bar, double steer_wheel_deg);

/* Shifts to gear. */
void pdk_vrun_gear(pdk_vrun *run, pdk_gear gear);

/* One tick; then the channels and pose are the new ones. */
void pdk_vrun_tick(pdk_vrun *run);

/* Sim time, s. */
double pdk_vrun_time_s(const pdk_vrun *run);

/* Frees the world. */
void pdk_vrun_end(pdk_vrun *run);

#endif
