/* The kits the presets start from and the bounds a kit must keep. Each
 * value's basis is in docs/dbw.md ("Parameters"); the presets' dbw.* keys
 * (server/params) hold the same bounds, and the same names. */
#include "sim/dbw_def.h"

#include <stddef.h>
#include <string.h>

pdk_dbw_def pdk_dbw_def_default(void)
{
    pdk_dbw_def d = {
        .steer_delay_s = 0.05,
        .steer_rate_degps = 360.0,
        .steer_accel_degps2 = 2000.0,
        .steer_rate_max_degps = 1016.0,
        .steer_accel_max_degps2 = 25400.0,
        .steer_override_deg = 10.0,
        .brake_tau_s = 0.06,
        .brake_rate_barps = 150.0,
        .brake_rate_max_barps = 400.0,
        .brake_decel_max_mps2 = 10.0,
        .brake_override_bar = 3.0,
        .throttle_tau_s = 0.1,
        .throttle_rate_pctps = 200.0,
        .throttle_override_pct = 5.0,
        .gear_shift_s = 0.5,
        .gear_max_speed_mps = 0.5,
        .gear_brake_hold_bar = 5.0,
        .lockout_speed_mps = 45.0,
        .lockout_accel_mps2 = 15.0,
        .lockout_reverse = 0,
        .reengage_delay_s = 0.5,
        .ulc_accel_default_mps2 = 1.5,
        .ulc_decel_default_mps2 = 3.0,
        .ulc_jerk_default_mps3 = 5.0,
        .ulc_kp_per_s = 1.5,
        .ulc_ki_per_s2 = 0.2,
        .ulc_accel_loop_per_s = 2.0,
        .ulc_accel_full_mps2 = 3.0,
        .comms_loss_decel_mps2 = 3.0,
        .comms_loss_hold_bar = 20.0,
        .comms_loss_hold_s = 300.0,
        .imu_accel_noise_mps2 = 0.05,
        .imu_gyro_noise_radps = 0.002,
        .gnss_noise_m = 0.5,
        .gnss_dropout = 0.02,
    };
    return d;
}

/* The Polaris model gives the UTV's gear rule (a change only below 0.3 m/s,
 * lasting 1 s, which the kit's gear actuator applies); the kit's command
 * ranges, ULC limits and actuator parameters of this vehicle are not
 * published. So: the steering servo's limits are the kit's command ranges
 * (cmd_rate 0-1016 deg/s, cmd_accel 0-25400 deg/s^2, in Dataspeed's
 * ds_dbw_msgs); the brake's full-scale deceleration and the ULC's
 * full-throttle acceleration are derived from the UTV's own model and its
 * inner loop tuned on it; the ULC's speed-loop gains are estimates for the
 * UTV; the rest are estimates, the passenger car's kit's values, each with its
 * range in presets/vehicles/polaris_ranger.json. */
pdk_dbw_def pdk_dbw_def_polaris(void)
{
    pdk_dbw_def d = pdk_dbw_def_default();
    /* 2 (G_f + G_r) P_max / (R m) = 2 (22 + 12) N m/bar x 80 bar / (0.3429 m x
     * 1233 kg): the Polaris model's brake gains, full scale, tyre radius and
     * mass with the driver, rounded. */
    d.brake_decel_max_mps2 = 12.87;
    d.gear_shift_s = 1.0;
    d.gear_max_speed_mps = 0.3;
    d.lockout_accel_mps2 = 12.0; /* above the 1 g its tyres give on tarmac */
    d.ulc_kp_per_s = 1.0;
    d.ulc_ki_per_s2 = 0.3;
    /* The CVT answers the pedal over seconds (its ratio follows the
     * engine's speed): a slower inner loop, tuned on a 10 % grade. */
    d.ulc_accel_loop_per_s = 0.3;
    /* 16.67 m/s over the 5.78 s this model takes from rest to 60 km/h at
     * full throttle in H (DRIVE) on flat tarmac, rounded. */
    d.ulc_accel_full_mps2 = 2.88;
    return d;
}

/* One field's bounds, inclusive, and the sentence that names its key. */
typedef struct dbw_bound {
    size_t offset;
    double min;
    double max;
    const char *why;
} dbw_bound;

#define BOUND(field, lo, hi, why)                                                                  \
    {                                                                                              \
        offsetof(pdk_dbw_def, field), (lo), (hi), (why)                                            \
    }

/* The longest steering delay: the kit's delay line holds PDK_DBW_DELAY_TICKS
 * (64) ticks, 0.53 s at 120 Hz, and an injected latency shares it. */
#define STEER_DELAY_MAX_S 0.25

/* docs/dbw.md gives the reason for each bound. Rates and time constants are
 * positive where a zero would stop the actuator; the kit's command fields
 * bound the defaults a command's 0 stands for (cmd_rate 0-1016 deg/s,
 * cmd_accel 0-25400 deg/s^2) and the ULC's (its config frame: accel 0.3-3.0,
 * decel 0.3-6.0, jerk 1.0-25 m/s^3, Dataspeed's ds_dbw_msgs). */
static const dbw_bound bounds[] = {
    BOUND(steer_delay_s, 0.0, STEER_DELAY_MAX_S,
          "dbw.steering.delay must be within 0..0.25 s: the kit's delay line holds 64 ticks at "
          "120 Hz, an injected latency included"),
    BOUND(steer_rate_degps, 1.0, 1016.0,
          "dbw.steering.rate must be within 1..1016 deg/s, the range of the kit's cmd_rate"),
    BOUND(steer_accel_degps2, 1.0, 25400.0,
          "dbw.steering.accel must be within 1..25400 deg/s^2, the range of the kit's cmd_accel"),
    BOUND(steer_rate_max_degps, 1.0, 1e4, "dbw.steering.rateMax must be within 1..10000 deg/s"),
    BOUND(steer_accel_max_degps2, 1.0, 1e6,
          "dbw.steering.accelMax must be within 1..1000000 deg/s^2"),
    BOUND(steer_override_deg, 0.1, 180.0, "dbw.steering.overrideDeg must be within 0.1..180 deg"),
    BOUND(brake_tau_s, 0.0, 2.0, "dbw.brake.tau must be within 0..2 s"),
    BOUND(brake_rate_barps, 1.0, 1e4, "dbw.brake.rate must be within 1..10000 bar/s"),
    BOUND(brake_rate_max_barps, 1.0, 1e4, "dbw.brake.rateMax must be within 1..10000 bar/s"),
    BOUND(brake_decel_max_mps2, 0.5, 50.0, "dbw.brake.decelMax must be within 0.5..50 m/s^2"),
    BOUND(brake_override_bar, 0.1, 100.0, "dbw.brake.overrideBar must be within 0.1..100 bar"),
    BOUND(throttle_tau_s, 0.0, 2.0, "dbw.throttle.tau must be within 0..2 s"),
    BOUND(throttle_rate_pctps, 1.0, 1e4, "dbw.throttle.rate must be within 1..10000 %/s"),
    BOUND(throttle_override_pct, 0.1, 100.0, "dbw.throttle.overridePct must be within 0.1..100 %"),
    BOUND(gear_shift_s, 0.0, 10.0, "dbw.gear.shiftTime must be within 0..10 s"),
    BOUND(gear_max_speed_mps, 0.0, 10.0, "dbw.gear.maxSpeed must be within 0..10 m/s"),
    BOUND(gear_brake_hold_bar, 0.0, 500.0, "dbw.gear.brakeHoldBar must be within 0..500 bar"),
    BOUND(lockout_speed_mps, 1.0, 150.0, "dbw.lockout.speed must be within 1..150 m/s"),
    BOUND(lockout_accel_mps2, 1.0, 100.0, "dbw.lockout.accel must be within 1..100 m/s^2"),
    BOUND(reengage_delay_s, 0.0, 10.0, "dbw.system.reengageDelay must be within 0..10 s"),
    BOUND(ulc_accel_default_mps2, 0.3, 3.0,
          "dbw.ulc.accel must be within 0.3..3 m/s^2, the range of the kit's ULC config"),
    BOUND(ulc_decel_default_mps2, 0.3, 6.0,
          "dbw.ulc.decel must be within 0.3..6 m/s^2, the range of the kit's ULC config"),
    BOUND(ulc_jerk_default_mps3, 1.0, 25.0,
          "dbw.ulc.jerk must be within 1..25 m/s^3, the range of the kit's ULC config"),
    BOUND(ulc_kp_per_s, 0.01, 20.0, "dbw.ulc.kp must be within 0.01..20 1/s"),
    BOUND(ulc_ki_per_s2, 0.0, 20.0, "dbw.ulc.ki must be within 0..20 1/s^2"),
    BOUND(ulc_accel_loop_per_s, 0.0, 20.0, "dbw.ulc.accelLoop must be within 0..20 1/s"),
    BOUND(ulc_accel_full_mps2, 0.1, 30.0, "dbw.ulc.accelFull must be within 0.1..30 m/s^2"),
    BOUND(comms_loss_decel_mps2, 0.5, 10.0,
          "dbw.commsLoss.decel must be within 0.5..10 m/s^2 (the kit's brake decelerates at most "
          "10 m/s^2 on command)"),
    BOUND(comms_loss_hold_bar, 0.0, 500.0, "dbw.commsLoss.holdBar must be within 0..500 bar"),
    BOUND(comms_loss_hold_s, 0.0, 86400.0, "dbw.commsLoss.holdTime must be within 0..86400 s"),
    BOUND(imu_accel_noise_mps2, 0.0, 10.0, "dbw.sensors.imuAccelNoise must be within 0..10 m/s^2"),
    BOUND(imu_gyro_noise_radps, 0.0, 1.0, "dbw.sensors.imuGyroNoise must be within 0..1 rad/s"),
    BOUND(gnss_noise_m, 0.0, 100.0, "dbw.sensors.gnssNoise must be within 0..100 m"),
    BOUND(gnss_dropout, 0.0, 1.0, "dbw.sensors.gnssDropout must be within 0..1"),
};

const char *pdk_dbw_def_problem(const pdk_dbw_def *def)
{
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        double v;
        memcpy(&v, (const char *)def + bounds[i].offset, sizeof v);
        /* Written so that NaN fails too. */
        if (!(v >= bounds[i].min && v <= bounds[i].max)) {
            return bounds[i].why;
        }
    }
    if (def->lockout_reverse != 0 && def->lockout_reverse != 1) {
        return "dbw.lockout.reverse must be 0 or 1";
    }
    /* A default is a limit a command may ask for: within the servo's own. */
    if (def->steer_rate_degps > def->steer_rate_max_degps) {
        return "dbw.steering.rate must be at most dbw.steering.rateMax, the servo's own limit";
    }
    if (def->steer_accel_degps2 > def->steer_accel_max_degps2) {
        return "dbw.steering.accel must be at most dbw.steering.accelMax, the servo's own limit";
    }
    if (def->brake_rate_barps > def->brake_rate_max_barps) {
        return "dbw.brake.rate must be at most dbw.brake.rateMax, the pump's own limit";
    }
    return NULL;
}
