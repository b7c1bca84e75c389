/* The single-track (bicycle) vehicle model: a planar rigid body on two axles
 * with linear tyres that saturate at the friction circle (and slide against
 * their contact velocity when the brakes lock them), a lumped drive, brakes,
 * rolling resistance and drag as Coulomb friction, and air drag. It owns one
 * vehicle's state, its held command and its per-vehicle constants, and steps
 * them by one tick; single_track_step.h states the scheme and why it never
 * adds energy of its own.
 * Sources: Pacejka, Tire and Vehicle Dynamics, ch. 1 (the single-track model
 * and its steady state) and ch. 3 (combined slip); Gillespie, Fundamentals
 * of Vehicle Dynamics, ch. 6 (cornering, understeer gradient) and ch. 3
 * (braking, load transfer).
 * Axes are ISO 8855: body x forward, y left, z up; positive yaw and steering
 * turn left. The world calls this module; nothing else should. */
#ifndef PDK_SINGLE_TRACK_H
#define PDK_SINGLE_TRACK_H

#include <stdint.h>

#include "sim/builds.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/vehicle_def.h"

/* Below this wheel-plane speed the lateral slip tan(alpha) = v_lat / |u| uses
 * this floor instead of |u|, so at standstill the tyre is a finite lateral
 * damper of C / floor (N s/m) instead of an infinitely stiff one. 0.5 m/s is
 * below walking pace, so the slip law is exact wherever cornering matters;
 * the floor plays the role of Chrono Pac02's |Vx| + 0.1 and TORCS' 1 m/s
 * "slow grip" (Project Chrono's ChPac02Tire; Speed Dreams' simuv4). It is a tyre force, not a
 * hidden drag: with no lateral slip it exerts nothing. The slip-angle
 * channels use the same floor, so a car at rest reports 0, not +-90 deg
 * from the direction of a vanishing velocity. */
#define PDK_ST_SLIP_SPEED_FLOOR_MPS 0.5

/* The reverse and LOW governors fade the drive force linearly from full this
 * much below the limit to zero at the limit, so the governed speed settles
 * at or just below the limit without a force step (a step would chatter at
 * 120 Hz). */
#define PDK_ST_GOVERNOR_BAND_MPS 0.5

/* A vehicle with an axle held by its brakes, pawl or rolling resistance and
 * slower than this (every velocity: m/s along x and y, rad/s of yaw) is at
 * rest: static friction holds the creep, and vx, vy and the yaw rate are set
 * to exactly zero. 1 mm/s is far below anything a driver or a sensor sees;
 * exact zeros keep a parked car exactly still and keep decaying values from
 * reaching subnormal numbers (slow, and flushed differently under FTZ/DAZ). */
#define PDK_ST_REST_SPEED_MPS 1.0e-3
#define PDK_ST_REST_YAW_RATE_RADPS 1.0e-3

/* Lateral velocity, yaw rate and accelerations whose magnitude falls below
 * this are stored as exactly zero at the end of a tick: a moving car's
 * decaying yaw and sideslip would otherwise reach subnormal numbers after a
 * minute of straight driving. No physical quantity is anywhere near it. */
#define PDK_ST_NEGLIGIBLE 1.0e-100

/* The dynamic state: everything that carries from one substep to the next.
 * Plain data, no pointers: a copy is a snapshot. */
typedef struct pdk_st_state {
    double x_m;            /* CG position, world */
    double y_m;
    double yaw_rad;        /* heading, (-pi, pi] */
    double vx_mps;         /* CG velocity, body frame */
    double vy_mps;
    double yaw_rate_radps;
    double ax_mps2;        /* last substep's CG acceleration, body frame: ax sets */
    double ay_mps2;        /* the next substep's load transfer, both are telemetry */
    uint32_t faulted;      /* 1 once a step produced a non-finite value: the
                            * vehicle was stopped where the tick began, its
                            * velocities zeroed, and it is no longer stepped */
} pdk_st_state;

/* The held drive-by-wire command and what follows from it. Throttle, brake,
 * steering-wheel angle and gear are the command; the rest is a pure function
 * of them and the vehicle's definition, cached because commands
 * change only at tick boundaries and the substep loop should not redo
 * trigonometry. */
typedef struct pdk_st_cmd {
    double throttle_pct;
    double brake_bar;
    double steer_wheel_deg;
    double steer_rad;          /* road-wheel angle, positive left */
    double sin_steer;
    double cos_steer;
    double drive_gain;         /* signed share of the available drive force */
    double governor_mps;       /* speed limit in the drive direction, 0 for none */
    double governor_fade_mps;  /* where the governor's fade starts: limit - band */
    double hold_front_n;       /* brake + parking pawl capacity per axle */
    double hold_rear_n;
    double gear_code;          /* gear as a double, for its channel */
    int32_t gear;              /* pdk_gear, PARK..LOW */
} pdk_st_cmd;

/* Per-vehicle constants the substep loop reads, resolved at spawn from the
 * definition, the world's gravity, air density, surface friction and the
 * substep length. What only a new command needs is read from the definition
 * itself, so this block stays small in the cache. */
typedef struct pdk_st_params {
    double h_s;                /* substep length */
    double inv_h;              /* 1 / h */
    double h_per_mass;         /* h / m */
    double h_per_inertia;      /* h / Iz */
    double hb_per_inertia;     /* h b / Iz */
    double a_m;                /* CG to front axle */
    double b_m;                /* CG to rear axle */
    double cg_height_m;
    double gravity_mps2;        /* what its accelerometer reads along z on flat ground */
    double static_load_front_n; /* m g b / L */
    double static_load_rear_n;  /* m g a / L */
    double transfer_n_per_mps2; /* m h_cg / L: load moved rearward per m/s^2 of ax */
    double cornering_front_n_per_rad;
    double cornering_rear_n_per_rad;
    double mu_front;           /* tyre friction times surface friction */
    double mu_rear;
    double rolling_coeff;
    double drag_n_per_mps2;    /* 0.5 rho CdA */
    double drive_force_n;
    double drive_power_w;
    double drive_front_fraction;
    double drive_rear_fraction;
} pdk_st_params;

/* Resolves def (already checked) for a world with these constants. */
void pdk_st_params_init(pdk_st_params *params, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction);

/* A vehicle at rest in its pose except for speed_mps along its heading. */
void pdk_st_state_init(pdk_st_state *state, const pdk_pose *pose, double speed_mps);

/* Holds a new command (values already range-checked against def) and
 * recomputes its cached part. gear is PARK..LOW. */
void pdk_st_cmd_set(pdk_st_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear);

/* Steps one vehicle by one tick of substeps substeps of params->h_s each and
 * writes every channel (PDK_CH_COUNT values) for the tick's end, or none
 * where channels is NULL (the same state: channels are outputs only).
 * With no drive (zero throttle) the kinetic energy
 * m (vx^2 + vy^2) / 2 + Iz r^2 / 2 never increases, for any parameters and
 * substep (single_track.c proves it), so the step needs no stability
 * condition. Should a value still come
 * out non-finite (a corrupted state), the vehicle is faulted instead: its
 * pose is held where the tick began, its velocities and accelerations are
 * zeroed, state->faulted is set and, with channels, PDK_CH_FAULTED reads 1.
 * A faulted state passed in again is stepped like any other (the world no
 * longer passes it). */
void pdk_st_step(pdk_st_state *state, const pdk_st_cmd *cmd, const pdk_st_params *params,
                 int substeps, double *channels);

/* Most vehicles pdk_st_step_batch takes at once: enough for four groups of
 * four vehicles, one per vector lane, whose substeps the processor
 * overlaps. */
#define PDK_ST_BATCH 16

/* Steps count (1..PDK_ST_BATCH) independent vehicles together, four at a
 * time in vectors, interleaving their substeps so the processor can overlap
 * them. Each vehicle's result, state and channels, is bit-identical to
 * pdk_st_step on it alone, on any processor; a vehicle whose channels
 * entry is NULL has none written. Returns how many of them faulted in this
 * tick (pdk_st_step). */
int pdk_st_step_batch(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                      const pdk_st_params *const *params, double *const *channels, int count,
                      int substeps);

/* pdk_st_step_batch by a chosen build of the tick (builds.h): BASELINE,
 * or AVX2 where the processor has it (AVX512 takes AVX2, the widest build
 * the tick has); BEST takes AVX2 too, or for a batch of one, where the
 * processor has AVX2, the lone vehicle's build (single_track_lone.c).
 * Every build gives the same bits. */
int pdk_st_step_batch_build(pdk_st_state *const *states, const pdk_st_cmd *const *cmds,
                            const pdk_st_params *const *params, double *const *channels,
                            int count, int substeps, pdk_fw_build build);

/* Wraps an angle into (-pi, pi]. Exact (IEEE remainder) for any finite x. */
double pdk_st_wrap_angle(double x);

#endif
