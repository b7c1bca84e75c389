/* A vehicle's drive-by-wire kit: its actuators' dynamics, its default rate
 * limits, the override thresholds, lockouts, the ULC's gains and the
 * sensors' noise. Part of pdk_vehicle_def (preset keys dbw.*); SI inside,
 * except where a name carries the kit's unit. The values each preset carries
 * and their basis are in docs/dbw.md. */
#ifndef PDK_DBW_DEF_H
#define PDK_DBW_DEF_H

#include <stdint.h>

typedef struct pdk_dbw_def {
    /* Steering servo: a pure delay, then a rate- and acceleration-limited
     * move of the steering-wheel angle (deg at the steering wheel). */
    double steer_delay_s;        /* 0..0.25, quantised to ticks */
    double steer_rate_degps;     /* the default cmd_rate (0 in a command) */
    double steer_accel_degps2;   /* the default cmd_accel */
    double steer_rate_max_degps; /* the servo's own limit, also under INF */
    double steer_accel_max_degps2;
    double steer_override_deg; /* driver wheel input beyond this from the servo's angle */
    /* Brake: line pressure builds through a first-order lag, rate-limited. */
    double brake_tau_s;          /* pressure build-up time constant */
    double brake_rate_barps;     /* the default rate_inc and rate_dec */
    double brake_rate_max_barps; /* the pump's own limit, also under INF */
    double brake_decel_max_mps2; /* ACCEL commands: the deceleration at max_line_bar (100 %) */
    double brake_override_bar;   /* driver pedal beyond this */
    /* Throttle: the pedal signal follows through a first-order lag. */
    double throttle_tau_s;
    double throttle_rate_pctps;   /* the default rate_inc and rate_dec */
    double throttle_override_pct; /* driver pedal beyond this */
    /* Gear: a shift by wire takes this long; refused above the speed, and
     * out of park unless the brake holds at least brake_hold_bar. */
    double gear_shift_s;
    double gear_max_speed_mps;
    double gear_brake_hold_bar;
    /* Lockouts (the kit disengages above them) and the re-engage delay. */
    double lockout_speed_mps;
    double lockout_accel_mps2; /* |a| in the ground plane */
    int32_t lockout_reverse;   /* 1: no engagement in reverse */
    int32_t pad;
    double reengage_delay_s;
    /* ULC: a speed loop (P + I) whose acceleration command an inner loop
     * makes the car follow, around an acceleration feed-forward. */
    double ulc_accel_default_mps2; /* limit_accel 0 */
    double ulc_decel_default_mps2; /* limit_decel 0 */
    double ulc_jerk_default_mps3;  /* limit_jerk_throttle and _brake 0 */
    double ulc_kp_per_s;           /* acceleration per m/s of speed error */
    double ulc_ki_per_s2;
    double ulc_accel_loop_per_s; /* the inner loop: acceleration error integrated into the
                                  * pedal, (m/s^2 of pedal) per s per m/s^2 of error */
    double ulc_accel_full_mps2;  /* the acceleration full throttle gives at low speed */
    /* Comms loss: brake to a stop at this deceleration, then hold. */
    double comms_loss_decel_mps2;
    double comms_loss_hold_bar;
    double comms_loss_hold_s; /* brake hold capacity before it asks for park */
    /* Sensors: white noise (1 sigma) on each sample and GNSS dropout. */
    double imu_accel_noise_mps2;
    double imu_gyro_noise_radps;
    double gnss_noise_m;
    double gnss_dropout; /* share of fixes lost, 0..1 */
} pdk_dbw_def;

/* A passenger car's kit (docs/dbw.md gives each value and its basis). */
pdk_dbw_def pdk_dbw_def_default(void);

/* The Polaris Ranger's kit (the Polaris model's fitted actuators,
 * docs/dbw.md). */
pdk_dbw_def pdk_dbw_def_polaris(void);

/* NULL when def can run, else a static sentence naming the first field
 * out of its bounds (dbw.* key names, docs/dbw.md). */
const char *pdk_dbw_def_problem(const pdk_dbw_def *def);

#endif
