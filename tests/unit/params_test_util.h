/* The params/ suites share this (test_params.c, test_presets.c): where the
 * shipped presets are, field-by-field comparison of definitions, a parse
 * that expects an error code, the message check and a preset listing.
 * Included once per suite, after its feature macros. */
#ifndef PDK_PARAMS_TEST_UTIL_H
#define PDK_PARAMS_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "params.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Every field of the definitions, for field-by-field comparisons (field by
 * field, so that padding never counts). */
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
    X(tyre_front.cornering_stiffness_n_per_rad)                                                    \
    X(tyre_front.friction_coeff)                                                                   \
    X(tyre_front.camber_stiffness_n_per_rad)                                                       \
    X(tyre_rear.cornering_stiffness_n_per_rad)                                                     \
    X(tyre_rear.friction_coeff)                                                                    \
    X(tyre_rear.camber_stiffness_n_per_rad)                                                        \
    X(steering.ratio)                                                                              \
    X(steering.lock_deg)                                                                           \
    X(steering.center_offset_deg)                                                                  \
    X(steering.ackermann)                                                                          \
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
    X(resist.drag_area_m2)

#define WORLD_FIELDS(X)                                                                            \
    X(dt_s)                                                                                        \
    X(substeps)                                                                                    \
    X(max_vehicles)                                                                                \
    X(gravity_mps2)                                                                                \
    X(air_density_kgpm3)                                                                           \
    X(surface_friction)                                                                            \
    X(seed)                                                                                        \
    X(terrain.n_bumps)                                                                             \
    X(terrain.bumps)

#define SAME_FIELD(f) ck_assert_msg(memcmp(&a->f, &b->f, sizeof a->f) == 0, "field %s differs", #f);

static void assert_same_vehicle(const pdk_vehicle_def *a, const pdk_vehicle_def *b)
{
    VEHICLE_FIELDS(SAME_FIELD)
}

static void assert_same_world(const pdk_world_def *a, const pdk_world_def *b)
{
    WORLD_FIELDS(SAME_FIELD)
}

/* Parses text as a vehicle with overrides, expecting code; returns the message. */
static const char *vparse_expect(const char *text, const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    err[0] = '\0';
    pdk_error rc =
        pdk_params_vehicle_parse(text, "test.json", overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "expected %s, got %s: %s", pdk_error_name(code), pdk_error_name(rc),
                  err);
    return err;
}

#define ASSERT_HAS(msg, part)                                                                      \
    ck_assert_msg(strstr((msg), (part)) != NULL, "'%s' lacks '%s'", msg, part)

typedef struct listing {
    char names[16][80];
    char descriptions[16][PDK_PARAMS_ERR_LEN];
    size_t n;
} listing;

static void collect_preset(const char *name, const char *description, void *ud)
{
    listing *l = ud;
    ck_assert_uint_lt(l->n, 16);
    snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
    snprintf(l->descriptions[l->n], sizeof l->descriptions[0], "%s", description);
    l->n++;
}

#endif
