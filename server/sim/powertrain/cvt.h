/* The UTV's continuously variable transmission and its clutches
 * (docs/powertrain.md): a quasi-static shift law with a first-order lag, no
 * sheave forces and no belt slip (the driveline's slip is the primary
 * clutch's).
 *
 *  - The primary clutch is centrifugal: its capacity grows with the square
 *    of the engine's free speed from engage_rpm to full_engage_rpm,
 *    C = C_max clamp((w^2 - w_eng^2) / (w_full^2 - w_eng^2), 0, 1).
 *  - The Engine Braking System couples the belt the other way, with a
 *    capacity falling to 0 at idle, C_ebs = C_ebs,max clamp((w - w_idle) /
 *    max(1, w_eng - w_idle), 0, 1), 0 when it is off.
 *  - The clutch holds C_fwd = C driving and C_rev = max(C, C_ebs) braking;
 *    both 0 in park and neutral.
 *  - The belt's ratio r moves toward the ratio that holds the engine at the
 *    shift speed n_s = sqrt(n_light^2 + (n_full^2 - n_light^2) sigma),
 *    sigma = clamp(max(0, T_c) / T_peak, 0, 1) with the last step's clutch
 *    torque T_c: r* = clamp((2 pi n_s / 60) / w_s, r_high, r_low) while the
 *    belt grips (in gear, and C > 0, or C_ebs > 0 with T_c < 0) and the
 *    secondary turns, r_low otherwise; r follows r* through the exact
 *    first-order lag of shift_tau_s.
 *
 * Pure functions; the caller keeps r and T_c. */
#ifndef PDK_CVT_H
#define PDK_CVT_H

#include "sim/cvt_def.h"

#include <stdbool.h>

/* The Polaris model's cvt.* defaults for the Polaris Ranger CREW XP 1000. */
pdk_cvt_def pdk_cvt_def_polaris(void);

/* NULL when the definition can run, else what is wrong, naming the field
 * ("cvt.full_engage_rpm must be above engage_rpm"). */
const char *pdk_cvt_def_problem(const pdk_cvt_def *def);

/* The clutch's capacities at the engine's free speed (rad/s) for an engine
 * idling at idle_rpm; in_gear 0 (park, neutral) gives none. */
typedef struct pdk_cvt_capacity {
    double centrifugal_nm; /* C */
    double ebs_nm;         /* C_ebs */
    double fwd_nm;         /* C_fwd: the most the clutch passes while the engine drives */
    double rev_nm;         /* C_rev: the most it passes while the wheels drive the engine */
} pdk_cvt_capacity;

void pdk_cvt_capacities(const pdk_cvt_def *def, double idle_rpm, double free_omega_radps,
                        bool in_gear, pdk_cvt_capacity *out);

/* The centrifugal law's capacities taken at the end of a substep, as the
 * driveline's backward Euler takes its other torques: at the engine speed
 * w the substep ends at while the clutch slips at the capacity it has
 * there. Driving, w = w_free - (h / J_e) C(w); driven by the wheels, the
 * lowest w >= w_free with w = w_free + (h / J_e) C(w); C(w) = C_max
 * clamp((w^2 - w_eng^2) / (w_full^2 - w_eng^2), 0, 1), so each is a
 * quadratic on the engaging span, solved in closed form. At a steady slip
 * the engine then turns where the capacity equals its torque whatever the
 * substep; taken at the free speed it turned (h / J_e) T_e slower, an error
 * of the first order in h. h_per_inertia is h / J_e (s / kg m^2, > 0);
 * speeds in rad/s, w_full > w_eng. */
typedef struct pdk_centrifugal_capacity {
    double fwd_nm; /* C at the driving slip's end speed */
    double rev_nm; /* C at the driven slip's end speed */
} pdk_centrifugal_capacity;

pdk_centrifugal_capacity pdk_centrifugal_capacities(double capacity_nm, double engage_radps,
                                                    double full_radps, double free_radps,
                                                    double h_per_inertia);

/* The shift speed (rev/min) for the last step's clutch torque and the
 * engine's peak full-load torque. */
double pdk_cvt_shift_rpm(const pdk_cvt_def *def, double clutch_torque_nm, double peak_torque_nm);

/* The ratio the belt moves toward at secondary speed w_s (rad/s, >= 0). */
double pdk_cvt_target_ratio(const pdk_cvt_def *def, const pdk_cvt_capacity *cap, bool in_gear,
                            double clutch_torque_nm, double shift_rpm,
                            double secondary_omega_radps);

/* The ratio after dt_s: target + (r - target) exp(-dt / max(1e-4, tau)). */
double pdk_cvt_lag_ratio(const pdk_cvt_def *def, double ratio, double target, double dt_s);

/* Its factor exp(-dt / max(1e-4, tau)), for a caller that keeps it. */
double pdk_cvt_lag_factor(const pdk_cvt_def *def, double dt_s);

/* The belt ratio and engine speed of a reset (docs/powertrain.md): at rest the
 * low ratio and idle; a moving start at speed v0 (m/s, either sign) on wheels
 * of radius R_t through the rear reduction i_r has the belt gripping at the
 * light-load shift speed, r = clamp((2 pi n_light / 60) / w_s, r_high, r_low)
 * with w_s = |v0| / R_t i_r, and the engine at max(n_idle, r w_s) (rev/min).
 * In park and neutral (i_r 0) the low ratio and idle. */
void pdk_cvt_reset(const pdk_cvt_def *def, double idle_rpm, double speed_mps, double radius_m,
                   double rear_ratio, double *ratio_out, double *engine_rpm_out);

#endif
