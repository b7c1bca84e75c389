/* The default vehicle definition and the checks every definition passes
 * before a vehicle is spawned from it. */
#include "vehicle_def.h"

#include <math.h>
#include <stddef.h>

/* A mid-size front-wheel-drive road car. Mass, inertia and geometry are those
 * of a typical D-segment saloon (Gillespie, Fundamentals of Vehicle Dynamics,
 * ch. 6 uses the same class); the axle cornering stiffnesses make it mildly
 * understeering: K = (m/L)(b/C_f - a/C_r) = 2.45e-3 rad/(m/s^2), about 1.4
 * deg/g, characteristic speed sqrt(L/K) = 33 m/s. */
pdk_vehicle_def pdk_vehicle_def_default(void)
{
    pdk_vehicle_def def = {
        .model = PDK_MODEL_SINGLE_TRACK,
        .chassis =
            {
                .mass_kg = 1500.0,
                .yaw_inertia_kgm2 = 2500.0,
                .wheelbase_m = 2.7,
                .cg_to_front_axle_m = 1.2,
                .cg_height_m = 0.55,
            },
        .tyre_front = {.cornering_stiffness_n_per_rad = 110000.0, .friction_coeff = 1.0},
        .tyre_rear = {.cornering_stiffness_n_per_rad = 130000.0, .friction_coeff = 1.0},
        .steering = {.ratio = 15.0, .lock_deg = 540.0},
        .drive =
            {
                .max_force_n = 6000.0,
                .max_power_w = 110000.0,
                .front_fraction = 1.0,
                .max_reverse_speed_mps = 5.0,
                .max_low_speed_mps = 12.0,
            },
        .brake =
            {
                .force_per_bar_n = 150.0,
                .front_fraction = 0.65,
                .max_line_bar = 180.0,
                .park_hold_force_n = 8000.0,
            },
        .resist = {.rolling_coeff = 0.012, .drag_area_m2 = 0.65},
    };
    return def;
}

static int positive(double v)
{
    return isfinite(v) && v > 0.0;
}

static int non_negative(double v)
{
    return isfinite(v) && v >= 0.0;
}

static int fraction(double v)
{
    return isfinite(v) && v >= 0.0 && v <= 1.0;
}

/* The road-wheel angle must stay below this so the front axle always points
 * forward (cos > 0); real steering stops well before it. */
#define MAX_ROAD_WHEEL_DEG 80.0

/* One rule per line: the first that fails names the field. */
#define REQUIRE(cond, err, msg)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            *why = (msg);                                                                          \
            return (err);                                                                          \
        }                                                                                          \
    } while (0)

double pdk_vehicle_def_min_yaw_inertia_kgm2(const pdk_vehicle_def *def)
{
    const pdk_chassis_def *c = &def->chassis;
    double a = c->cg_to_front_axle_m;
    return PDK_MIN_YAW_INERTIA_RATIO * c->mass_kg * a * (c->wheelbase_m - a) * (1.0 - 1e-9);
}

static pdk_error check_def(const pdk_vehicle_def *def, const char **why)
{
    const pdk_error range = PDK_ERR_OUT_OF_RANGE;
    *why = NULL;
    REQUIRE(def != NULL, PDK_ERR_INVALID_ARGUMENT, "vehicle definition is NULL");
    REQUIRE(def->model == PDK_MODEL_SINGLE_TRACK, PDK_ERR_INVALID_ARGUMENT,
            "model must be PDK_MODEL_SINGLE_TRACK (1), the only model this build has");

    const pdk_chassis_def *c = &def->chassis;
    REQUIRE(positive(c->mass_kg), range, "chassis.mass_kg must be finite and above 0");
    REQUIRE(positive(c->yaw_inertia_kgm2), range,
            "chassis.yaw_inertia_kgm2 must be finite and above 0");
    REQUIRE(positive(c->wheelbase_m), range, "chassis.wheelbase_m must be finite and above 0");
    REQUIRE(positive(c->cg_to_front_axle_m) && c->cg_to_front_axle_m < c->wheelbase_m, range,
            "chassis.cg_to_front_axle_m must be above 0 and below chassis.wheelbase_m");
    REQUIRE(non_negative(c->cg_height_m), range, "chassis.cg_height_m must be finite and >= 0");
    REQUIRE(c->yaw_inertia_kgm2 >= pdk_vehicle_def_min_yaw_inertia_kgm2(def), range,
            "chassis.yaw_inertia_kgm2 must be at least 0.3 * mass_kg * a * b (a, b: CG to front "
            "and rear axle)");

    REQUIRE(positive(def->tyre_front.cornering_stiffness_n_per_rad), range,
            "tyre_front.cornering_stiffness_n_per_rad must be finite and above 0");
    REQUIRE(positive(def->tyre_front.friction_coeff), range,
            "tyre_front.friction_coeff must be finite and above 0");
    REQUIRE(positive(def->tyre_rear.cornering_stiffness_n_per_rad), range,
            "tyre_rear.cornering_stiffness_n_per_rad must be finite and above 0");
    REQUIRE(positive(def->tyre_rear.friction_coeff), range,
            "tyre_rear.friction_coeff must be finite and above 0");

    REQUIRE(positive(def->steering.ratio), range, "steering.ratio must be finite and above 0");
    REQUIRE(non_negative(def->steering.lock_deg), range,
            "steering.lock_deg must be finite and >= 0");
    REQUIRE(def->steering.lock_deg / def->steering.ratio < MAX_ROAD_WHEEL_DEG, range,
            "steering.lock_deg / steering.ratio (the largest road-wheel angle) must be below 80 deg");

    const pdk_drive_def *d = &def->drive;
    REQUIRE(non_negative(d->max_force_n), range, "drive.max_force_n must be finite and >= 0");
    REQUIRE(positive(d->max_power_w), range, "drive.max_power_w must be finite and above 0");
    REQUIRE(fraction(d->front_fraction), range, "drive.front_fraction must be within 0..1");
    REQUIRE(positive(d->max_reverse_speed_mps), range,
            "drive.max_reverse_speed_mps must be finite and above 0");
    REQUIRE(positive(d->max_low_speed_mps), range,
            "drive.max_low_speed_mps must be finite and above 0");

    const pdk_brake_def *b = &def->brake;
    REQUIRE(non_negative(b->force_per_bar_n), range, "brake.force_per_bar_n must be finite and >= 0");
    REQUIRE(fraction(b->front_fraction), range, "brake.front_fraction must be within 0..1");
    REQUIRE(positive(b->max_line_bar), range, "brake.max_line_bar must be finite and above 0");
    REQUIRE(non_negative(b->park_hold_force_n), range,
            "brake.park_hold_force_n must be finite and >= 0");

    REQUIRE(non_negative(def->resist.rolling_coeff), range,
            "resist.rolling_coeff must be finite and >= 0");
    REQUIRE(non_negative(def->resist.drag_area_m2), range,
            "resist.drag_area_m2 must be finite and >= 0");
    return PDK_OK;
}

pdk_error pdk_vehicle_def_check(const pdk_vehicle_def *def)
{
    const char *why;
    return check_def(def, &why);
}

const char *pdk_vehicle_def_problem(const pdk_vehicle_def *def)
{
    const char *why;
    (void)check_def(def, &why);
    return why;
}
