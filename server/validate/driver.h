/* A closed-loop driver for the ISO 3888-1 double lane change (reference.h's
 * course): a smooth reference path through the lanes, steered along by
 * preview (pure pursuit: R. C. Coulter, Implementation of the Pure Pursuit
 * Path Tracking Algorithm, CMU-RI-TR-92-01, 1992; J. M. Snider, Automatic
 * Steering Methods for Autonomous Automobile Path Tracking,
 * CMU-RI-TR-09-08, 2009, sec. 2.2) from the pose the car is predicted to
 * reach (C. C. MacAdam, Application of an Optimal Preview Control for
 * Simulation of Closed-Loop Automobile Driving, IEEE Trans. SMC 11(6),
 * 1981), with the car's own understeer added as feed-forward and a
 * yaw-rate feedback in the car's own steer per yaw rate, at the
 * steering-wheel rate a human manages, and the
 * speed held at a target by a PI on throttle and brake. It reads only the pose a
 * world reports (sim/world.h pdk_vehicle_pose) and writes a drive-by-wire
 * command: plain functions, deterministic, nothing allocated. */
#ifndef PDK_VALIDATE_DRIVER_H
#define PDK_VALIDATE_DRIVER_H

#include "reference.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/vehicle_def.h"
#include "sim/world.h"

/* How the driver drives. */
typedef struct pdk_dlc_driver_def {
    double target_speed_mps;     /* held through the course, > 0 */
    double predict_s;            /* it steers from where the car will be this far ahead,
                                  * >= 0 */
    double preview_time_s;       /* the look-ahead distance from there is speed times
                                  * this, > 0 ... */
    double preview_min_m;        /* ... but at least this, > 0 */
    double yaw_gain;             /* the share of the steer the car needs for the yaw
                                  * rate short of the arc's, >= 0 */
    double steer_rate_deg_per_s; /* the most the steering wheel turns in a second, > 0 */
    double margin_m;             /* how far inside each cone line the path keeps the
                                  * body's side, where the lanes leave room, >= 0 */
    double speed_kp_pct_per_mps; /* throttle percent (brake: brake_bar_per_pct of it)
                                  * per m/s below the target, > 0 */
    double speed_ki_pct_per_m;   /* and per metre of the speed error's integral, >= 0 */
    double brake_bar_per_pct;    /* a negative demand's line pressure per percent, > 0 */
} pdk_dlc_driver_def;

/* Steering from 0.35 s ahead with 0.2 s of preview, at least 4 m (found
 * over the shipped presets at 40 to 70 km/h: every one clean at 60
 * km/h), and the whole steer the car needs for the missing yaw rate (a
 * yaw_gain of 1: two or three times that rings, on the kart as on the
 * sports car); 800 deg/s
 * at the wheel (a quick human hand); a 0.2 m margin; 15 % per m/s and 5 %
 * per m of speed error; 0.5 bar per percent. */
pdk_dlc_driver_def pdk_dlc_driver_def_default(double target_speed_mps);

/* The reference path: y against x, built once from the course and the
 * car's width. In each coned lane it holds the car's side margin_m inside
 * the cone line toward the lane it comes from or goes to (so the lane
 * changes are as gentle as the lanes allow), or the lane's centre where
 * the lane leaves less room; between lanes a cosine blend, level where it
 * meets each lane; before and after the course straight ahead. */
#define PDK_DLC_PATH_KNOTS 8

typedef struct pdk_dlc_path {
    int n_knots;
    double x_m[PDK_DLC_PATH_KNOTS]; /* increasing */
    double y_m[PDK_DLC_PATH_KNOTS]; /* held between knots 2k and 2k+1, blended between
                                     * 2k+1 and 2k+2 */
} pdk_dlc_path;

/* The path's y and slope dy/dx at x_m. */
double pdk_dlc_path_y_m(const pdk_dlc_path *path, double x_m);
double pdk_dlc_path_slope(const pdk_dlc_path *path, double x_m);

/* The driver's state: what it was given and what it remembers between
 * ticks. Fill it with pdk_dlc_driver_init; step it with the pose of each
 * tick. */
typedef struct pdk_dlc_driver {
    pdk_dlc_driver_def def;
    pdk_dlc_path path;
    double wheelbase_m;
    double cg_to_rear_axle_m;
    double understeer_rad_per_mps2; /* reference.h's total, at a moderate a_y */
    double steering_ratio;
    double lock_deg;
    double centre_offset_deg;
    double max_line_bar;
    double steer_wheel_deg;  /* the last command */
    double speed_integral_m; /* the integral of (target - speed) dt, held within
                              * what saturates the throttle or the brake */
    int started;             /* 0 until the first step (no rate limit then) */
} pdk_dlc_driver;

/* Sets drv up for course with the vehicle def (its wheelbase, steering
 * ratio and lock, brake limit and understeer gradient, reference.h) in
 * world. Errors: PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_OUT_OF_RANGE (a
 * driver field not finite or out of its range: pdk_dlc_driver_problem
 * says which), or what pdk_ref_understeer_at returns for def. */
pdk_error pdk_dlc_driver_init(pdk_dlc_driver *drv, const pdk_dlc_driver_def *def,
                              const pdk_dlc_course *course, const pdk_vehicle_def *vehicle,
                              const pdk_ref_world *world);

/* Why pdk_dlc_driver_init with these arguments fails, naming the field
 * ("driver: preview_time_s must be above 0"), or NULL. */
const char *pdk_dlc_driver_problem(const pdk_dlc_driver_def *def, const pdk_dlc_course *course);

/* One tick: from the car's pose (x_m, y_m, yaw_rad, speed_mps, vx_mps) and
 * the tick's length dt_s (> 0), the command for the next tick in *out:
 * fields PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER, the steering
 * wheel within its lock and within steer_rate_deg_per_s dt_s of the last
 * command (the first step is not rate limited), throttle 0..100 % and
 * brake 0..max_line_bar, never both. The gear is left as it is (spawn the
 * car in D). */
void pdk_dlc_driver_step(pdk_dlc_driver *drv, const pdk_vehicle_pose *pose, double dt_s,
                         pdk_dbw_cmd *out);

#endif
