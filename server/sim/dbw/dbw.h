/* The DBW kit's stepping, inside sim: a fresh kit, applying a message,
 * the driver's input, one tick, the report from the vehicle's truth, and
 * the delay lines' digest. The kit's messages, state and reports, what
 * the world's callers see, are sim/dbw.h. */
#ifndef PDK_SIM_PRIV_DBW_H
#define PDK_SIM_PRIV_DBW_H

#include <stdint.h>

#include "sim/dbw.h"

/* A fresh kit: MANUAL, SystemDisabled, every channel with no command, the
 * actuators where the driver's controls put them (driver), sync mode NONE,
 * CRC check on, comms-loss braking off. touched is 0 until the first kit
 * message: a kit never spoken to changes nothing (and is not hashed). */
void pdk_dbw_init(pdk_dbw_state *dbw, const pdk_dbw_def *def, const pdk_dbw_cmd *driver);

/* What the kit reads from the vehicle each tick (the last tick's end). */
typedef struct pdk_dbw_vehicle {
    double speed_mps; /* signed, forward */
    double ax_mps2, ay_mps2; /* body frame */
} pdk_dbw_vehicle;

/* Applies one kit message at tick (after pdk_dbw_msg_problem passed). */
void pdk_dbw_apply(pdk_dbw_state *dbw, const pdk_dbw_def *dbw_def, const pdk_vehicle_def *def,
                   const pdk_dbw_msg *msg, const pdk_dbw_cmd *driver, uint64_t tick);

/* The driver's controls changed at tick (a remote human's pedal, wheel or
 * lever): override detection against enabled channels. prev is what the
 * driver held before. */
void pdk_dbw_driver_input(pdk_dbw_state *dbw, const pdk_dbw_def *dbw_def, const pdk_dbw_cmd *prev,
                          const pdk_dbw_cmd *now, uint64_t tick);

/* One tick of the kit before the vehicle steps: watchdogs, lockouts, the
 * system state, the ULC, comms-loss braking, the actuators. Writes the
 * controls the vehicle steps with into *out (throttle, brake, steering,
 * gear, gear_number from driver): the driver's where no channel is enabled. */
void pdk_dbw_tick(pdk_dbw_state *dbw, const pdk_dbw_def *dbw_def, const pdk_vehicle_def *def,
                  const pdk_dbw_vehicle *veh, const pdk_dbw_cmd *driver, uint64_t tick, double dt_s,
                  pdk_dbw_cmd *out);

/* The noise-free measurements a report is built from (the world fills it
 * from the vehicle's last step). */
typedef struct pdk_dbw_truth {
    double speed_mps, vx_mps, vy_mps;
    double ax_mps2, ay_mps2, az_mps2; /* specific force, body frame */
    double roll_rate_radps, pitch_rate_radps, yaw_rate_radps;
    double x_m, y_m;
    double wheel_speed_radps[4];
    double road_wheel_angle_rad;
    double brake_torque_nm; /* summed over the wheels */
    int32_t gear, gear_number, powertrain_reject;
} pdk_dbw_truth;

/* Fills *out for tick. Sensor noise and GNSS dropout come from a
 * counter-based generator keyed by (seed, vehicle, tick, axis): a sample
 * depends on nothing else, so it replays exactly whoever listens (ADR 0011). */
void pdk_dbw_report_fill(const pdk_dbw_state *dbw, const pdk_dbw_def *dbw_def,
                         const pdk_vehicle_def *def, const pdk_dbw_truth *truth,
                         const pdk_dbw_cmd *driver, uint64_t seed, uint32_t vehicle, uint64_t tick,
                         pdk_dbw_report *out);

/* The digest of ch's delay line: the sum, modulo 2^64, over its slots i of
 * MurmurHash3's finaliser of the slot's bits mixed with i (hash.h), so that
 * writing one slot updates it by two terms. Any change of one slot changes
 * it (the finaliser is a bijection); two slots changed at once leave it
 * unchanged only by an exact cancellation of their terms. */
uint64_t pdk_dbw_delay_digest(const pdk_dbw_chan *ch);

/* Slot i's term of that sum. */
uint64_t pdk_dbw_delay_term(int i, double value);

#endif
