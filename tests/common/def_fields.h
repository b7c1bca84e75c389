/* Every field of sim's vehicle and world definitions, as X-macro lists, for
 * comparisons field by field (so that padding never counts). Shared by the
 * unit tests (tests/unit/params_test_util.h) and the fuzz target
 * (tests/fuzz/fuzz_params.c); a field added to vehicle_def.h or world.h goes
 * here. */
#ifndef PDK_TEST_DEF_FIELDS_H
#define PDK_TEST_DEF_FIELDS_H

#define CURVE_FIELDS(X, c) X(c.n_points) X(c.travel_m) X(c.value)

#define SUSPENSION_FIELDS(X, s)                                                                    \
    X(s.kind)                                                                                      \
    X(s.track_width_m)                                                                             \
    X(s.spring_rate_npm)                                                                           \
    X(s.bump_damping_nspm)                                                                         \
    X(s.rebound_damping_nspm)                                                                      \
    X(s.anti_roll_npm)                                                                             \
    X(s.travel_bump_m)                                                                             \
    X(s.travel_droop_m)                                                                            \
    X(s.bump_stop_npm)                                                                             \
    X(s.roll_center_height_m)                                                                      \
    X(s.anti_brake)                                                                                \
    X(s.anti_drive)                                                                                \
    X(s.static_camber_rad)                                                                         \
    X(s.static_toe_rad)                                                                            \
    CURVE_FIELDS(X, s.kinematics.toe_rad)                                                          \
    CURVE_FIELDS(X, s.kinematics.camber_rad)                                                       \
    CURVE_FIELDS(X, s.kinematics.roll_center_height_m)                                             \
    CURVE_FIELDS(X, s.kinematics.anti_brake)                                                       \
    CURVE_FIELDS(X, s.kinematics.anti_drive)

/* A tyre's law has an enum beside its doubles (padding), so it is listed
 * field by field; its life and soil parts are all doubles. */
#define TYRE_FIELDS(X, t)                                                                          \
    X(t.cornering_stiffness_n_per_rad)                                                             \
    X(t.friction_coeff)                                                                            \
    X(t.camber_stiffness_n_per_rad)                                                                \
    X(t.law.law)                                                                                   \
    X(t.law.radius_m)                                                                              \
    X(t.law.nominal_load_n)                                                                        \
    X(t.law.cornering_per_load)                                                                    \
    X(t.law.slip_stiffness_per_load)                                                               \
    X(t.law.mu_x)                                                                                  \
    X(t.law.mu_y)                                                                                  \
    X(t.law.camber_per_load)                                                                       \
    X(t.law.trail_m)                                                                               \
    X(t.law.hard_slip_stiffness)                                                                   \
    X(t.law.mf_set)                                                                                \
    X(t.law.mf)                                                                                    \
    X(t.law.load_sensitivity)                                                                      \
    X(t.law.slide_grip)                                                                            \
    X(t.law.combined_slip_loss)                                                                    \
    X(t.law.relaxation_long_m)                                                                     \
    X(t.law.relaxation_lat_m)                                                                      \
    X(t.law.rolling_coeff)                                                                         \
    X(t.life)                                                                                      \
    X(t.soil)                                                                                      \
    X(t.spin_inertia_kgm2)

/* A differential has an enum beside its doubles (padding). */
#define DIFF_FIELDS(X, d) X(d.kind) X(d.bias_ratio) X(d.preload_nm)

/* The powertrain's engine has an int and its CVT bools beside their
 * doubles (padding), so it is listed field by field too. */
#define POWERTRAIN_FIELDS(X, p)                                                                    \
    X(p.kind)                                                                                      \
    X(p.engine.idle_rpm)                                                                           \
    X(p.engine.max_rpm)                                                                            \
    X(p.engine.n_curve)                                                                            \
    X(p.engine.curve_rpm)                                                                          \
    X(p.engine.curve_nm)                                                                           \
    X(p.engine.inertia_kgm2)                                                                       \
    X(p.engine.accessory_drag_nm)                                                                  \
    X(p.engine.displacement_l)                                                                     \
    X(p.engine.indicated_efficiency)                                                               \
    X(p.engine.fmep_bar)                                                                           \
    X(p.engine.fmep_bar_per_krpm)                                                                  \
    X(p.engine.fmep_bar_per_krpm2)                                                                 \
    X(p.engine.pumping_bar)                                                                        \
    X(p.engine.torque_lag_s)                                                                       \
    X(p.engine.idle_gain)                                                                          \
    X(p.engine.pedal_exponent)                                                                     \
    X(p.engine.max_speed_mps)                                                                      \
    X(p.cvt.low_ratio)                                                                             \
    X(p.cvt.high_ratio)                                                                            \
    X(p.cvt.engage_rpm)                                                                            \
    X(p.cvt.full_engage_rpm)                                                                       \
    X(p.cvt.clutch_capacity_nm)                                                                    \
    X(p.cvt.ebs_capacity_nm)                                                                       \
    X(p.cvt.shift_rpm_light)                                                                       \
    X(p.cvt.shift_rpm_full)                                                                        \
    X(p.cvt.shift_tau_s)                                                                           \
    X(p.cvt.belt_efficiency)                                                                       \
    X(p.cvt.gear_efficiency)                                                                       \
    X(p.cvt.secondary_inertia_kgm2)                                                                \
    X(p.cvt.ebs)                                                                                   \
    X(p.cvt.adc)                                                                                   \
    X(p.gearbox)                                                                                   \
    X(p.drive_mode)                                                                                \
    X(p.geared.shift)                                                                              \
    X(p.geared.n_gears)                                                                            \
    X(p.geared.ratio)                                                                              \
    X(p.geared.reverse_ratio)                                                                      \
    X(p.geared.final_drive)                                                                        \
    X(p.geared.low_range)                                                                          \
    X(p.geared.efficiency)                                                                         \
    X(p.geared.upshift_rpm_light)                                                                  \
    X(p.geared.upshift_rpm_full)                                                                   \
    X(p.geared.downshift_rpm)                                                                      \
    X(p.geared.shift_time_s)                                                                       \
    X(p.geared.clutch_capacity_nm)                                                                 \
    X(p.geared.clutch_engage_rpm)                                                                  \
    X(p.geared.clutch_full_rpm)                                                                    \
    X(p.geared.park_hold_nm)                                                                       \
    X(p.geared.handbrake_nm)                                                                       \
    X(p.geared.converter_stall_ratio)                                                              \
    X(p.geared.converter_coupling)                                                                 \
    X(p.layout.driven_axle)                                                                        \
    DIFF_FIELDS(X, p.layout.diff)                                                                  \
    X(p.layout.coupling)                                                                           \
    DIFF_FIELDS(X, p.layout.secondary_diff)                                                        \
    X(p.layout.secondary_ratio)                                                                    \
    DIFF_FIELDS(X, p.layout.centre_diff)                                                           \
    X(p.output_inertia_kgm2)                                                                       \
    X(p.brake_front_nm_per_bar)                                                                    \
    X(p.brake_rear_nm_per_bar)                                                                     \
    X(p.brake_bias_bar)                                                                            \
    X(p.abs)                                                                                       \
    X(p.fuel_tank_l)                                                                               \
    X(p.fuel_heating_value_jpkg)                                                                   \
    X(p.fuel_density_kgpl)

/* The drive-by-wire kit: its int beside the doubles, and the pad, which
 * holds no value, left out. */
#define DBW_FIELDS(X, k)                                                                           \
    X(k.steer_delay_s)                                                                             \
    X(k.steer_rate_degps)                                                                          \
    X(k.steer_accel_degps2)                                                                        \
    X(k.steer_rate_max_degps)                                                                      \
    X(k.steer_accel_max_degps2)                                                                    \
    X(k.steer_override_deg)                                                                        \
    X(k.brake_tau_s)                                                                               \
    X(k.brake_rate_barps)                                                                          \
    X(k.brake_rate_max_barps)                                                                      \
    X(k.brake_decel_max_mps2)                                                                      \
    X(k.brake_override_bar)                                                                        \
    X(k.throttle_tau_s)                                                                            \
    X(k.throttle_rate_pctps)                                                                       \
    X(k.throttle_override_pct)                                                                     \
    X(k.gear_shift_s)                                                                              \
    X(k.gear_max_speed_mps)                                                                        \
    X(k.gear_brake_hold_bar)                                                                       \
    X(k.lockout_speed_mps)                                                                         \
    X(k.lockout_accel_mps2)                                                                        \
    X(k.lockout_reverse)                                                                           \
    X(k.reengage_delay_s)                                                                          \
    X(k.ulc_accel_default_mps2)                                                                    \
    X(k.ulc_decel_default_mps2)                                                                    \
    X(k.ulc_jerk_default_mps3)                                                                     \
    X(k.ulc_kp_per_s)                                                                              \
    X(k.ulc_ki_per_s2)                                                                             \
    X(k.ulc_accel_loop_per_s)                                                                      \
    X(k.ulc_accel_full_mps2)                                                                       \
    X(k.comms_loss_decel_mps2)                                                                     \
    X(k.comms_loss_hold_bar)                                                                       \
    X(k.comms_loss_hold_s)                                                                         \
    X(k.imu_accel_noise_mps2)                                                                      \
    X(k.imu_gyro_noise_radps)                                                                      \
    X(k.gnss_noise_m)                                                                              \
    X(k.gnss_dropout)

#define VEHICLE_FIELDS(X)                                                                          \
    X(model)                                                                                       \
    X(chassis.mass_kg)                                                                             \
    X(chassis.yaw_inertia_kgm2)                                                                    \
    X(chassis.roll_inertia_kgm2)                                                                   \
    X(chassis.pitch_inertia_kgm2)                                                                  \
    X(chassis.wheelbase_m)                                                                         \
    X(chassis.cg_to_front_axle_m)                                                                  \
    X(chassis.cg_height_m)                                                                         \
    X(chassis.track_width_m)                                                                       \
    X(chassis.angular_damping_per_s)                                                               \
    TYRE_FIELDS(X, tyre_front)                                                                     \
    TYRE_FIELDS(X, tyre_rear)                                                                      \
    X(steering.ratio)                                                                              \
    X(steering.lock_deg)                                                                           \
    X(steering.center_offset_deg)                                                                  \
    X(steering.ackermann)                                                                          \
    X(steering.trail_m)                                                                            \
    X(steering.assist_gain)                                                                        \
    X(steering.assist_max_nm)                                                                      \
    SUSPENSION_FIELDS(X, susp_front)                                                               \
    SUSPENSION_FIELDS(X, susp_rear)                                                                \
    X(drive.max_force_n)                                                                           \
    X(drive.max_power_w)                                                                           \
    X(drive.front_fraction)                                                                        \
    X(drive.max_reverse_speed_mps)                                                                 \
    X(drive.max_low_speed_mps)                                                                     \
    X(brake.force_per_bar_n)                                                                       \
    X(brake.front_fraction)                                                                        \
    X(brake.max_line_bar)                                                                          \
    X(brake.park_hold_force_n)                                                                     \
    X(resist.rolling_coeff)                                                                        \
    X(resist.drag_area_m2)                                                                         \
    X(resist.downforce_area_m2)                                                                    \
    X(resist.downforce_front)                                                                      \
    POWERTRAIN_FIELDS(X, powertrain)                                                               \
    DBW_FIELDS(X, dbw)

#define WORLD_FIELDS(X)                                                                            \
    X(dt_s)                                                                                        \
    X(substeps)                                                                                    \
    X(max_vehicles)                                                                                \
    X(gravity_mps2)                                                                                \
    X(air_density_kgpm3)                                                                           \
    X(surface_friction)                                                                            \
    X(seed)                                                                                        \
    X(terrain.base_surface_id)                                                                     \
    X(terrain.contact_mode)                                                                        \
    X(terrain.air_temp_c)                                                                          \
    X(terrain.road_temp_c)                                                                         \
    X(terrain.n_bumps)                                                                             \
    X(terrain.bumps)                                                                               \
    X(terrain.n_ramps)                                                                             \
    X(terrain.ramps)                                                                               \
    X(terrain.n_patches)                                                                           \
    X(terrain.patches)                                                                             \
    X(terrain.field)

#endif
