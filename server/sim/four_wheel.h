/* The four-wheel vehicle model (seed 000): one rigid chassis with six degrees
 * of freedom on four massless struts, each a ray from the top of its travel
 * down the body's z axis against the terrain; Ackermann steering with toe,
 * camber, roll centres, anti-dive and anti-squat, kinematic curves against
 * travel, per-axle track and solid axles; a linear tyre that saturates on the
 * friction circle, the lumped drive, brakes, rolling resistance and drag of
 * the single-track model. It owns one vehicle's state, held command and
 * per-vehicle constants and steps them by one tick; four_wheel.c states the
 * scheme. Sources are cited where each formula lives.
 * Axes are ISO 8855: body x forward, y left, z up; world z up; positive
 * roll puts the right side down, positive pitch the nose down, positive yaw
 * and steering turn left. Wheels are PDK_FL, PDK_FR, PDK_RL, PDK_RR. The
 * world calls this module; nothing else should. */
#ifndef PDK_FOUR_WHEEL_H
#define PDK_FOUR_WHEEL_H

#include <stdint.h>

#include "error.h"
#include "input.h"
#include "terrain.h"
#include "vehicle_def.h"

/* The lateral slip tan(alpha) = v_lat / max(|u|, floor): as in the
 * single-track model (PDK_ST_SLIP_SPEED_FLOOR_MPS, same value and reason). */
#define PDK_FW_SLIP_SPEED_FLOOR_MPS 0.5

/* The governors' fade band, as PDK_ST_GOVERNOR_BAND_MPS. */
#define PDK_FW_GOVERNOR_BAND_MPS 0.5

/* Coulomb friction (brakes, parking pawl, rolling resistance, a locked
 * wheel's slide) is F = -B u / max(|u|, PDK_FW_STICK_SPEED_MPS) in the
 * end-of-substep contact speed u: exactly Coulomb's -B sign(u) while the
 * contact keeps moving faster than this (an explicit force whose sign the
 * solve checks at the end of the substep), and below it a stiff viscous
 * stick, B / max(|u_start|, stick), that can never reverse the wheel. A car
 * held by its brakes comes to exactly rest by the rest rule below where
 * nothing pushes it; against a push P (a slope) it creeps at P / B * 1 mm/s
 * for as long as the push lasts (the stick has no anchor; ADR 0007). */
#define PDK_FW_STICK_SPEED_MPS 1.0e-3

/* A vehicle held by brakes or pawl whose CG speed is below this, and whose
 * angular velocity is below PDK_FW_REST_RATE_RADPS, has its horizontal
 * velocity and yaw rate set to exactly zero at the end of the tick (the
 * suspension keeps moving until it settles). */
#define PDK_FW_REST_SPEED_MPS 1.0e-3
#define PDK_FW_REST_RATE_RADPS 1.0e-3

/* Velocity and acceleration components below this magnitude are stored as
 * exactly zero at the end of a tick (PDK_ST_NEGLIGIBLE). */
#define PDK_FW_NEGLIGIBLE 1.0e-100

/* The dynamic state: everything that carries from one substep to the next.
 * Plain data, no pointers: a copy is a snapshot. */
typedef struct pdk_fw_state {
    double pos_m[3];       /* CG, world */
    double quat[4];        /* orientation, body to world: w, x, y, z; unit */
    double vel_mps[3];     /* CG velocity, world frame */
    double omega_radps[3]; /* angular velocity, body frame (p, q, r) */
    /* The previous substep's tyre forces on the body, body x and y, per
     * wheel: the roll-centre couples, pitch links and jacking use them (the
     * lag keeps the load-force loop explicit, seed 000). Part of the state so
     * that a replay is exact. */
    double prev_fx_n[PDK_WHEELS];
    double prev_fy_n[PDK_WHEELS];
    double accel_mps2[3]; /* last substep's CG acceleration, body frame, without gravity */
    uint32_t faulted;     /* as pdk_st_state.faulted */
} pdk_fw_state;

/* The held command and what follows from it alone (cached per command). */
typedef struct pdk_fw_cmd {
    double throttle_pct;
    double brake_bar;
    double steer_wheel_deg;
    double steer_rad;                   /* bicycle road-wheel angle: SteerAngle */
    double wheel_steer_rad[PDK_WHEELS]; /* Ackermann + static toe, before toe curves */
    double wheel_sin[PDK_WHEELS];       /* sin and cos of wheel_steer_rad */
    double wheel_cos[PDK_WHEELS];
    double drive_gain;   /* signed share of the available drive force */
    double governor_mps; /* speed limit in the drive direction, 0 for none */
    double governor_fade_mps;
    double hold_n[PDK_WHEELS]; /* brake + parking pawl capacity per wheel */
    double gear_code;
    int32_t gear;
} pdk_fw_cmd;

/* The per-vehicle constants the step reads, resolved at spawn: per corner,
 * one entry per wheel (FL, FR, RL, RR) for the substep's four-wide
 * arithmetic (four_wheel.c), then the body's, then which wheels take a rarer
 * path (bit i for wheel i) and what only those paths read. Every vehicle's
 * every substep reads all but the last group, so it is kept small: the
 * kinematic curves are not in it (pdk_fw_step_batch takes them apart). */
typedef struct pdk_fw_consts {
    double x_m[PDK_WHEELS], y_m[PDK_WHEELS]; /* static contact point, body */
    double droop_m[PDK_WHEELS], bump_m[PDK_WHEELS];
    double static_load_n[PDK_WHEELS], spring_npm[PDK_WHEELS], bump_stop_npm[PDK_WHEELS];
    double bump_nspm[PDK_WHEELS], rebound_nspm[PDK_WHEELS];
    double arb_npm[PDK_WHEELS], arb_quarter_h[PDK_WHEELS];
    double static_toe_rad[PDK_WHEELS];
    double cornering_per_n[PDK_WHEELS], camber_per_n[PDK_WHEELS], mu[PDK_WHEELS];
    double drive_share[PDK_WHEELS];
    double rc_per_track[PDK_WHEELS];
    double pitch_arm[PDK_WHEELS], anti_brake[PDK_WHEELS], anti_drive[PDK_WHEELS];
    double sin_camber[PDK_WHEELS], cos_camber[PDK_WHEELS]; /* -side sin, cos of static camber */
    double h_s;                                            /* substep */
    double inv_h;                                          /* 1 / h */
    double mass_per_h;                                     /* m / h */
    double inertia_per_h[3];                               /* Ixx / h, Iyy / h, Izz / h */
    double mass_kg;
    double inertia_kgm2[3]; /* Ixx, Iyy, Izz */
    double gravity_mps2;
    double cg_height_m;
    double ride_ray_top_m; /* how far above the static contact a ray starts */
    double rolling_coeff;
    double drag_n_per_mps2; /* 0.5 rho CdA */
    double drive_force_n;
    double drive_power_w;
    uint32_t toe_curve, camber_curve, solid, rc_curve, anti_brake_curve, anti_drive_curve;
    int32_t per_wheel_any; /* 1 when an axle has a roll-centre curve */
    /* Read only where an axle has a curve or is solid. */
    int64_t per_wheel_links[PDK_WHEELS]; /* -1 where the axle has a roll-centre curve, else 0 */
    double rc_height_m[PDK_WHEELS], two_per_track[PDK_WHEELS];
    double static_camber_rad[2]; /* front, rear */
} pdk_fw_consts;

/* Per-axle constants resolved at spawn (the step reads their per-wheel
 * copies in pdk_fw_consts). */
typedef struct pdk_fw_axle {
    double track_m;
    double x_m;                  /* axle position along body x from the CG (a or -b) */
    double static_load_n;        /* per wheel */
    double static_compression_m; /* static_load / spring rate */
    double spring_npm, arb_npm, bump_stop_npm;
    double travel_bump_m, travel_droop_m;
    double static_camber_rad;
    int32_t solid;          /* 1 for a solid axle */
    pdk_kinematics_def kin; /* the curves, n_points 0 where absent */
} pdk_fw_axle;

/* A vehicle's constants whole: what the step reads, and per axle the same
 * with its kinematic curves (which pdk_fw_step reads from here). */
typedef struct pdk_fw_params {
    pdk_fw_consts c;
    pdk_fw_axle axle[2]; /* front, rear */
} pdk_fw_params;

/* Resolves def (already checked, model PDK_MODEL_FOUR_WHEEL) for a world with
 * these constants. */
void pdk_fw_params_init(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction);

/* A vehicle at rest on its springs at pose (CG at cg_height_m above the
 * ground under it, level), moving forward at speed_mps along its heading. */
void pdk_fw_state_init(pdk_fw_state *state, const pdk_fw_params *params,
                       const pdk_terrain_def *terrain, const pdk_pose *pose, double speed_mps);

/* Holds a new command (values already range-checked against def) and
 * recomputes its cached part. gear is PARK..LOW. */
void pdk_fw_cmd_set(pdk_fw_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear);

/* Steps one vehicle by one tick of substeps substeps of params->h_s each on
 * terrain, and writes every channel (PDK_CH_COUNT values) for the tick's
 * end. A step that produces a non-finite value faults the vehicle exactly as
 * pdk_st_step does (pose held where the tick began, velocities zeroed,
 * state->faulted set, PDK_CH_FAULTED 1). */
void pdk_fw_step(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_fw_params *params,
                 const pdk_terrain_def *terrain, int substeps, double *channels);

/* How many vehicles pdk_fw_step_batch steps side by side: while one waits
 * on a long chain of dependent operations (a substep has several: square
 * roots and divisions in the tyre frame, the tyres and the solve), the
 * processor works on the other's. */
#define PDK_FW_GROUP 2

/* Most vehicles pdk_fw_step_batch takes at once. */
#define PDK_FW_BATCH 16

/* Steps count (1..PDK_FW_BATCH) independent vehicles, PDK_FW_GROUP of them
 * side by side: vehicle i as pdk_fw_step would with a pdk_fw_params whose c
 * is *consts[i] and whose axles' curves are *kin_front[i] and *kin_rear[i]
 * (the step reads a curve only where consts says the axle has one), so that
 * a world keeps the small consts per vehicle and the curves once, in the
 * definitions it holds anyway. Each vehicle's result, state and channels,
 * is bit-identical to pdk_fw_step on it alone, on any processor. Returns
 * how many of them faulted in this tick. */
int pdk_fw_step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts,
                      const pdk_kinematics_def *const *kin_front,
                      const pdk_kinematics_def *const *kin_rear, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps);

/* pdk_fw_step and pdk_fw_step_batch as compiled for the processor's
 * baseline instruction set: the same results, bit for bit, as those take on
 * any processor (which may use AVX); for the tests that check so. */
void pdk_fw_step_portable(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_fw_params *params,
                          const pdk_terrain_def *terrain, int substeps, double *channels);
int pdk_fw_step_batch_portable(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                               const pdk_fw_consts *const *consts,
                               const pdk_kinematics_def *const *kin_front,
                               const pdk_kinematics_def *const *kin_rear, double *const *channels,
                               int count, const pdk_terrain_def *terrain, int substeps);

/* The CG velocity in the body frame (x forward, y left, z up). */
void pdk_fw_body_velocity(const pdk_fw_state *state, double out[3]);

/* Yaw, pitch and roll (ZYX Euler, rad) of the unit quaternion q. */
void pdk_fw_euler(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad);

#endif
