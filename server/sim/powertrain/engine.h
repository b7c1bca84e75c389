/* A combustion engine as a torque source (docs/powertrain.md and "Fuel and
 * Energy", the UTV's ProStar 999 cm3 twin; the same model serves every
 * preset with its own numbers):
 *
 *  - full-load torque T_wot(n), a linear interpolation of a torque curve,
 *    0 at and above the rev limiter's speed;
 *  - friction and pumping torques from mean effective pressures,
 *    T = p V_d / (4 pi) for a four-stroke (1 bar is 7.95 N m for 0.999 L):
 *    T_fr = max(0, f0 + f1 n_k + f2 n_k^2) V_d / (4 pi), n_k in 1000 rev/min,
 *    T_pu = p_pu V_d / (4 pi) with the throttle closed;
 *  - the torque request u (0..1): the larger of the pedal's p^max(0.1,
 *    gamma) times the top-speed governor's factor and the idle governor's
 *    request, 0 with an empty tank, through a first-order lag;
 *  - the brake torque T_e = f u (T_wot + T_fr) - T_fr - (1 - u) T_pu, f 1
 *    with fuel (u > 0, T_wot > 0, fuel in the tank), else 0: u = 1 is the
 *    full-load curve, u = 0 the motoring curve; above the rev limiter the
 *    fuel is cut;
 *  - the engine speed the step would end at with no clutch torque, and the
 *    fuel power of a Willans line.
 *
 * Pure functions of their arguments: no state here beyond the request the
 * caller keeps, no allocation, no clock. */
#ifndef PDK_ENGINE_H
#define PDK_ENGINE_H

#include "sim/engine_def.h"

#include <stdbool.h>

/* The ProStar 999 cm3 twin of the Polaris Ranger CREW XP 1000: its torque
 * curve, mean effective pressures and the rest of the Polaris model's engine.*
 * defaults. */
pdk_engine_def pdk_engine_def_prostar999(void);

/* NULL when the definition can run, else what is wrong with it, naming the
 * field ("engine.max_rpm must be above idle_rpm"). */
const char *pdk_engine_def_problem(const pdk_engine_def *def);

/* 1 bar of mean effective pressure as a torque, V_d / (4 pi), N m. */
double pdk_engine_nm_per_bar(const pdk_engine_def *def);

/* pdk_engine_full_load_nm, the full-load curve, is public (sim/engine_def.h):
 * the validation's analytic top speed reads it. */

/* Friction torque at speed rpm (>= 0) and pumping torque with the throttle
 * shut. */
double pdk_engine_friction_nm(const pdk_engine_def *def, double rpm);
double pdk_engine_pumping_nm(const pdk_engine_def *def);

/* The top-speed governor's factor on the pedal, clamp((v_max - v) / 0.5,
 * 0, 1) at the driven wheels' speed v (m/s, >= 0); 1 without a governor. */
double pdk_engine_governor(const pdk_engine_def *def, double speed_mps);

/* The idle governor's request at engine speed omega: the feed-forward that
 * balances friction, pumping and accessories at idle, plus idle_gain times
 * the relative speed error, within 0..1. */
double pdk_engine_idle_request(const pdk_engine_def *def, double omega_radps);

/* The request the engine works toward, u* = max(p^max(0.1, gamma) g_v,
 * u_idle), 0 with an empty tank. pedal 0..1. */
double pdk_engine_target_request(const pdk_engine_def *def, double pedal, double omega_radps,
                                 double speed_mps, bool tank_empty);

/* The request after dt_s: the exact first-order lag toward target,
 * target + (u - target) exp(-dt / max(1e-4, tau)). */
double pdk_engine_lag_request(const pdk_engine_def *def, double request, double target,
                              double dt_s);

/* The pieces of the ones above, for a caller that keeps what does not
 * change from step to step (the same bits): the pedal map p^max(0.1,
 * gamma) of a pedal 0..1; the idle governor's feed-forward (friction,
 * pumping and accessories at idle over the full-load torque there, with
 * them) and its request from it; the target from a mapped pedal and the
 * feed-forward; the lag's factor exp(-dt / max(1e-4, tau)). */
double pdk_engine_pedal_map(const pdk_engine_def *def, double pedal);
double pdk_engine_idle_feed(const pdk_engine_def *def);
double pdk_engine_idle_request_fed(const pdk_engine_def *def, double feed, double omega_radps);
double pdk_engine_target_request_mapped(const pdk_engine_def *def, double mapped, double idle_feed,
                                        double omega_radps, double speed_mps, bool tank_empty);
double pdk_engine_lag_factor(const pdk_engine_def *def, double dt_s);

/* What the engine gives at speed omega and request u. */
typedef struct pdk_engine_torque {
    double brake_nm;    /* T_e at the crank, accessories not taken off */
    double friction_nm; /* T_fr */
    double pumping_nm;  /* (1 - u) T_pu */
    double full_load_nm;
    bool fuelled; /* f */
} pdk_engine_torque;

void pdk_engine_torque_at(const pdk_engine_def *def, double request, double omega_radps,
                          bool tank_empty, pdk_engine_torque *out);

/* The engine speed at the end of a step of dt_s with no clutch torque,
 * max(0, omega + dt (T_e - T_acc) / J_e). */
double pdk_engine_free_speed(const pdk_engine_def *def, double omega_radps, double brake_nm,
                             double dt_s);

/* The fuel power of the Willans line at the step's mean engine speed:
 * max(0, P_b + P_fr + P_pu) / clamp(eta_i, 0.05, 0.7) when fuelled and the
 * mean speed is above 1 rad/s, else 0 (W). */
double pdk_engine_fuel_power_w(const pdk_engine_def *def, const pdk_engine_torque *t,
                               double mean_omega_radps);

#endif
