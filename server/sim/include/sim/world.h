/* A world: many vehicles stepped together at a fixed dt with substeps,
 * deterministically. The caller owns the world's memory; sim never allocates.
 * Views returned here are valid until the next call that changes the world. */
#ifndef PDK_WORLD_H
#define PDK_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "sim/builds.h"
#include "sim/channels.h"
#include "sim/contact.h"
#include "sim/dbw.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/terrain_def.h"
#include "sim/vehicle_def.h"

/* A vehicle id: low 16 bits slot + 1, high 16 bits the slot's generation.
 * Zero is null; an id whose vehicle was removed is stale and refused. */
typedef uint32_t pdk_vehicle_id;

typedef struct pdk_world_def {
    double dt_s;                /* tick length; 1/120 s in Paddock */
    int substeps;               /* physics substeps per tick, 1..64; dt_s / substeps <= 0.02 s */
    int max_vehicles;           /* capacity, 1..65535; a full world refuses spawn */
    double gravity_mps2;        /* magnitude, acting along -z */
    double air_density_kgpm3;
    double surface_friction;    /* multiplies every tyre's peak friction on every surface (the
                                 * single-track model, which has no wheels on the
                                 * terrain, takes the base surface's friction as well) */
    uint64_t seed;              /* seeds the world's PRNG */
    pdk_terrain_def terrain;    /* the ground the four-wheel model's struts stand on */
} pdk_world_def;

typedef struct pdk_world pdk_world;

/* 120 Hz, 2 substeps, 256 vehicles, 9.81 m/s^2, 1.225 kg/m^3, friction 1, seed 1,
 * flat ground (pdk_terrain_def_flat: tarmac, air and road at 20 C, ray
 * contact).
 * What two substeps (h = 1/240 s) give against eight: the single-track
 * model's steady states to 1e-4, its transients and stopping distances to
 * 1 % (tests/unit/test_single_track.c); the four-wheel model's launch
 * times within 0.5 %, but its step-steer yaw-rate peak only within 0.6 %,
 * short of the converged peak by the first-order damping of the chassis'
 * linearly implicit Euler solve (tests/unit/test_convergence.c, which
 * prints the figures). Four substeps would halve that at twice the cost. */
pdk_world_def pdk_world_def_default(void);

/* PDK_OK when every field is in range, else PDK_ERR_OUT_OF_RANGE
 * (PDK_ERR_INVALID_ARGUMENT for NULL). */
pdk_error pdk_world_def_check(const pdk_world_def *def);

/* Why def fails pdk_world_def_check: a static sentence naming the first field
 * that fails and its bound, or NULL when def passes. */
const char *pdk_world_def_problem(const pdk_world_def *def);

/* Bytes a world of this definition needs (0 when the definition is invalid). */
size_t pdk_world_mem_size(const pdk_world_def *def);

/* Lays a world out in mem (bytes >= pdk_world_mem_size(def), aligned to 16)
 * and returns it in *out. The memory stays the caller's; there is no destroy:
 * free mem when done. Errors: PDK_ERR_OUT_OF_RANGE (def), PDK_ERR_CAPACITY
 * (mem too small), PDK_ERR_INVALID_ARGUMENT (NULL or misaligned).
 * The world starts at mem (*out == mem) and holds no pointers, only offsets:
 * a byte copy of its pdk_world_mem_size(def) bytes to another 16-aligned
 * address is an identical, independent world, so a copy is a snapshot. */
pdk_error pdk_world_init(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out);

/* pdk_world_init for memory that already holds zeros in its first
 * pdk_world_mem_size(def) bytes (a fresh anonymous mapping, calloc's): the
 * same world, but only the header is written, so that a large world's pages
 * stay untouched until its vehicles use them. */
pdk_error pdk_world_init_zeroed(void *mem, size_t bytes, const pdk_world_def *def, pdk_world **out);

/* The world's definition as it runs: a copy of the one given to
 * pdk_world_init, with its terrain prepared (pdk_terrain_prepare). */
const pdk_world_def *pdk_world_def_get(const pdk_world *world);

/* Replaces the ground of a running world between two ticks, as a test rig
 * moves its ground: the validation's tilt table turns it step by step
 * (server/validate). The ground is part of the world's definition, not of
 * its state: the server never calls this, a recording keeps no trace of
 * it, and a world whose ground was replaced does not replay from its
 * definition. The contacts take the ground as standing still, so a ground
 * that moves during a tick reads to the struts and tyres as the car moving
 * the other way (a damper takes the ground's speed for its own): a rig
 * moves it slowly and reads the car once it is at rest. Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_OUT_OF_RANGE (a terrain that
 * pdk_world_def_check refuses; pdk_world_def_problem of a definition
 * holding it names why), and the world keeps its ground. */
pdk_error pdk_world_set_terrain(pdk_world *world, const pdk_terrain_def *terrain);

/* Ticks stepped so far; sim time is tick * dt_s. */
uint64_t pdk_world_tick(const pdk_world *world);
double pdk_world_time_s(const pdk_world *world);

/* Spawn bounds: |speed_mps| at most 150 m/s (540 km/h, above any road
 * vehicle), |x_m| and |y_m| at most 1e7 m (a world 20,000 km across, where a
 * double still resolves 2 nm). */
#define PDK_WORLD_MAX_SPAWN_SPEED_MPS 150.0
#define PDK_WORLD_MAX_POSITION_M 1.0e7

/* Spawns a vehicle at pose, moving forward at speed_mps, in gear. Call only
 * between steps. Errors: PDK_ERR_CAPACITY (full), PDK_ERR_OUT_OF_RANGE /
 * PDK_ERR_INVALID_ARGUMENT (def fails pdk_vehicle_def_check, bad gear,
 * non-finite or out-of-bounds pose or speed). There is no substep
 * condition: the single-track step never adds energy of its own
 * (single_track.h), and the four-wheel step's dampers and springs cannot
 * either at any substep; what it keeps explicit (the lagged links, drive,
 * camber thrust) is bounded by pdk_vehicle_def_check's rules (vehicle_def.h,
 * ADR 0007). Ids are given out deterministically: the lowest
 * free slot, with that slot's generation (bumped by every remove). */
pdk_error pdk_world_spawn(pdk_world *world, const pdk_vehicle_def *def, const pdk_pose *pose,
                          double speed_mps, pdk_gear gear, pdk_vehicle_id *out_id);

/* Why pdk_world_spawn with these arguments fails: a static sentence naming
 * the argument or field and its bound, or NULL when it would succeed. */
const char *pdk_world_spawn_problem(const pdk_world *world, const pdk_vehicle_def *def,
                                    const pdk_pose *pose, double speed_mps, pdk_gear gear);

/* Rights a live vehicle: it stands upright at rest on the ground at pose
 * (x, y and heading; the CG at its height above the ground there, on a
 * slope on the ground's plane, as a spawn places it), or, with pose NULL,
 * at its own x, y and heading; its velocities, wheels' spins and tyres'
 * deflections are zero and its fault (pdk_vehicle_fault) is cleared. What
 * it carries keeps: the held command and gear, the tyres' life, the fuel
 * left; the energy ledger starts again (the reset is no force's work).
 * Call only between steps; a recording that applies it at the same tick
 * replays it exactly. Errors: PDK_ERR_INVALID_ARGUMENT (world NULL),
 * PDK_ERR_STALE_ID (dead id), PDK_ERR_OUT_OF_RANGE (pose not finite or out
 * of the spawn bounds). */
pdk_error pdk_world_vehicle_reset(pdk_world *world, pdk_vehicle_id id, const pdk_pose *pose);

/* Why pdk_world_vehicle_reset with these arguments fails: a static
 * sentence naming the argument and its bound, or NULL when it would
 * succeed. */
const char *pdk_world_vehicle_reset_problem(const pdk_world *world, pdk_vehicle_id id,
                                            const pdk_pose *pose);

/* Removes a vehicle. PDK_ERR_STALE_ID when id is not alive. */
pdk_error pdk_world_remove(pdk_world *world, pdk_vehicle_id id);

/* Sets the world's seed (def.seed: the DBW kits' sensor noise reads it) and
 * reseeds the PRNG from it, between steps. Nothing else changes: the tick
 * keeps counting. PDK_ERR_INVALID_ARGUMENT for NULL. */
pdk_error pdk_world_reseed(pdk_world *world, uint64_t seed);

/* Removes every vehicle, in id order, each as pdk_world_remove does (so
 * every used slot's generation is bumped and old ids go stale), and reseeds
 * the PRNG from def.seed, between steps. The tick keeps counting.
 * PDK_ERR_INVALID_ARGUMENT for NULL. */
pdk_error pdk_world_reset(pdk_world *world);

/* Applies a DBW command to a vehicle; it holds until changed. Out-of-range
 * values are refused (PDK_ERR_OUT_OF_RANGE) and change nothing; throttle is
 * 0..100 %, brake 0..max_line_bar, steering within lock, gear PARK..LOW or
 * NONE for no change. PDK_ERR_STALE_ID for a dead id;
 * PDK_ERR_INVALID_ARGUMENT for a NULL cmd or unknown bits in fields. */
pdk_error pdk_world_command(pdk_world *world, pdk_vehicle_id id, const pdk_dbw_cmd *cmd);

/* Why pdk_world_command with these arguments fails: a static sentence naming
 * the field and its bound (e.g. "brake_bar must be within
 * 0..brake.max_line_bar"), or NULL when it would succeed. */
const char *pdk_world_command_problem(const pdk_world *world, pdk_vehicle_id id,
                                      const pdk_dbw_cmd *cmd);

/* Applies a DBW kit message (dbw.h) at once, between steps: the kit's
 * commands, enable and disable, fault injection, the Autoware profile.
 * Errors: PDK_ERR_STALE_ID (dead id), PDK_ERR_INVALID_ARGUMENT (NULL, an
 * unknown kind or command type, a value that is not a number),
 * PDK_ERR_UNSUPPORTED (a command type the model cannot do),
 * PDK_ERR_OUT_OF_RANGE (a rolling counter above 15, a negative rate, a
 * fault value out of its range). A kit command's value beyond the
 * actuator's range is not an error: the kit clamps it and reports
 * limiting_value. A message with a bad CRC or a repeated rolling counter is
 * not an error either: the kit takes it as the kit does (bad_crc, bad_rc). */
pdk_error pdk_world_dbw(pdk_world *world, pdk_vehicle_id id, const pdk_dbw_msg *msg);

/* Why pdk_world_dbw with these arguments fails: a static sentence naming the
 * field and its bound, or NULL when it would succeed. */
const char *pdk_world_dbw_problem(const pdk_world *world, pdk_vehicle_id id,
                                  const pdk_dbw_msg *msg);

/* The kit's state of a live vehicle (NULL for a dead id). */
const pdk_dbw_state *pdk_world_dbw_state(const pdk_world *world, pdk_vehicle_id id);

/* Every report the kit makes about a live vehicle at the current tick
 * (dbw.h pdk_dbw_report), noise included. Reading it changes nothing:
 * PDK_ERR_STALE_ID for a dead id, PDK_ERR_INVALID_ARGUMENT for NULL. */
pdk_error pdk_world_dbw_report(const pdk_world *world, pdk_vehicle_id id, pdk_dbw_report *out);

/* A tyre input (tyre_life.h pdk_tyre_action): an action with its value on
 * the wheels of wheel_mask (bit i for wheel i, FL FR RL RR), or, for
 * PDK_TYRE_SET_POWER_SCALE, on the vehicle (the mask is ignored). Applied
 * at once, between steps, so a recording that applies it at the same tick
 * replays it exactly. Four-wheel vehicles only. */
typedef struct pdk_tyre_input {
    uint32_t wheel_mask; /* 1..15 (any value for PDK_TYRE_SET_POWER_SCALE) */
    int32_t action;      /* pdk_tyre_action */
    double value;
} pdk_tyre_input;

/* Applies a tyre input. Errors: PDK_ERR_STALE_ID (dead id),
 * PDK_ERR_INVALID_ARGUMENT (NULL, a single-track vehicle, a wheel action
 * with mask 0 or above 15, unknown action), PDK_ERR_OUT_OF_RANGE (value
 * out of its range). */
pdk_error pdk_world_tyre_input(pdk_world *world, pdk_vehicle_id id, const pdk_tyre_input *in);

/* Why pdk_world_tyre_input with these arguments fails: a static sentence
 * naming the field and its bound, or NULL when it would succeed. */
const char *pdk_world_tyre_input_problem(const pdk_world *world, pdk_vehicle_id id,
                                         const pdk_tyre_input *in);

/* Advances every vehicle by one tick (dt_s, in substeps): the DBW kits set
 * their vehicles' controls; the contact phase (sim/contact.h) resolves the
 * contacts between the bodies that touch as the last tick left them
 * (four-wheel vehicles' hulls and kinematic proxies), changing their
 * velocities by the contact's impulses and moving apart those that
 * overlap; each vehicle model steps its own vehicles in id order (slot
 * order, the id's low 16 bits, as pdk_world_vehicle_at lists them) and
 * writes their channels; the contact channels are written and the proxies
 * move on by their velocities. Bodies interact only by touching: a vehicle
 * whose hull touches no other body's (within the contact's margin and the
 * tick's travel) steps bit for bit as it would alone, whatever the others
 * and the order. Single-track vehicles have no hull and touch nothing. A
 * faulted vehicle (pdk_world_vehicle_faulted) is not stepped and touches
 * nothing. */
void pdk_world_step(pdk_world *world);

/* The tick of pdk_world_step in three parts, so that a caller with threads
 * of its own may step a large world's vehicles on several at once (the
 * library has none): pdk_world_step_begin runs the DBW kits and the contact
 * phase; pdk_world_step_slice steps the n vehicles from the first-th of the
 * world's list (pdk_world_vehicle_at's order) and returns how many of them
 * faulted; pdk_world_step_end, given the slices' faults summed, writes the
 * contact channels, moves the proxies and ends the tick. Since a vehicle's
 * step reads and writes its own state only once the contact phase has run,
 * slices that cover the list once give pdk_world_step's bits whatever their
 * sizes, their order, and the threads that run them at the same time
 * (tests/unit/test_world.c). Nothing else may touch the world between
 * begin and end; a slice outside the list steps nothing and returns 0. */
void pdk_world_step_begin(pdk_world *world);
int pdk_world_step_slice(pdk_world *world, int first, int n);
void pdk_world_step_end(pdk_world *world, int faults);

/* Whether the steps write the vehicles' channels, the contact channels
 * among them (on, 1, from pdk_world_init). Off, they write none
 * (pdk_world_channels keeps the last values written, stale), and the state
 * is the same bits: channels are outputs only (no step reads them, the
 * state hash leaves them out). For runs that need only the state, as a
 * verify does, and for a server's ticks that read none (docs/adr/0035). A
 * vehicle that faults meanwhile keeps stale channels for good (a faulted
 * vehicle is not stepped again; pdk_world_vehicle_faulted and its pose say
 * so). The switch is no part of the state: a snapshot neither keeps nor
 * restores it. */
void pdk_world_set_telemetry(pdk_world *world, int on);

/* Number of live vehicles, and the i-th live vehicle's id in id order
 * (0 when i is out of range). */
int pdk_world_vehicle_count(const pdk_world *world);
pdk_vehicle_id pdk_world_vehicle_at(const pdk_world *world, int i);

/* Number of distinct sets of tyre constants (4 KB each) the world's
 * four-wheel vehicles use: vehicles spawned from equal definitions share
 * one, so that a fleet of one preset reads one copy a tick. */
int pdk_world_tyre_sets(const pdk_world *world);

/* The state a subscriber sees. */
typedef struct pdk_vehicle_pose {
    pdk_vehicle_id id;
    double x_m, y_m, z_m;          /* CG, world */
    double yaw_rad;                /* ZYX Euler angles of the body */
    double pitch_rad;              /* positive nose down (0 on the single-track model) */
    double roll_rad;               /* positive right side down (0 on the single-track model) */
    double vx_mps, vy_mps;         /* body frame */
    double vz_mps;                 /* world frame, up */
    double roll_rate_radps, pitch_rate_radps, yaw_rate_radps; /* body frame */
    double steer_angle_rad;        /* road-wheel angle */
    double speed_mps;
    double ax_mps2, ay_mps2;       /* body frame */
    int faulted;                   /* 0, or why it is held (pdk_vehicle_fault) */
} pdk_vehicle_pose;

/* Fills *out for a live vehicle; PDK_ERR_STALE_ID otherwise
 * (PDK_ERR_INVALID_ARGUMENT when out is NULL). */
pdk_error pdk_world_vehicle_pose(const pdk_world *world, pdk_vehicle_id id, pdk_vehicle_pose *out);

/* The vehicle's channel values from the last step that wrote them (every
 * step unless telemetry is off, pdk_world_set_telemetry; PDK_CH_COUNT
 * doubles, indexed by pdk_channel), or NULL for a dead id. Valid until the
 * next step. */
const double *pdk_world_channels(const pdk_world *world, pdk_vehicle_id id);

/* 1 when the live vehicle id is faulted, else 0 (also for a dead id). A
 * vehicle faults when a step leaves an impossible state (pdk_vehicle_fault:
 * a non-finite value, a speed above the model's bound, the body under the
 * ground), which no valid input should cause: it is stopped where that
 * tick began, with zero velocities, is no longer stepped, and its channels
 * report it (PDK_CH_FAULTED, PDK_CH_FAULT_CODE; its pose's faulted holds
 * the code). Commands are still accepted; a reset
 * (pdk_world_vehicle_reset) or a removal clears it. The code is part of
 * the state and of the hash. */
int pdk_world_vehicle_faulted(const pdk_world *world, pdk_vehicle_id id);

/* The definition a live vehicle was spawned with, or NULL. */
const pdk_vehicle_def *pdk_world_vehicle_def(const pdk_world *world, pdk_vehicle_id id);

/* A 64-bit hash of the whole simulated state: tick, PRNG and every vehicle's
 * state (fault flag included) and held command in id order, and the generations of free slots
 * (they decide the next ids). Field values are hashed, never struct bytes.
 * Equal hashes after equal inputs is the determinism promise; it is
 * recorded and compared on replay. */
uint64_t pdk_world_hash(const pdk_world *world);

/* pdk_world_hash by a chosen build (builds.h pdk_fw_build; BEST is the
 * widest the processor has, one it lacks runs the baseline), for the tests
 * and benchmarks: every build gives the same bits. */
uint64_t pdk_world_hash_build(const pdk_world *world, pdk_fw_build build);

/* The part of pdk_world_hash one live vehicle contributes (its id, state,
 * held command and spoken-to DBW kit), finished as a hash of its own: two
 * worlds whose hashes differ can name the vehicles that differ. 0 for a
 * dead id. */
uint64_t pdk_world_vehicle_hash(const pdk_world *world, pdk_vehicle_id id);

#endif
