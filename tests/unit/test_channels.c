/* Unit tests for the channel registry (server/sim/channels.h) and for the
 * values the models write into it: each of the single-track model's channels
 * agrees with the pose, the command, or the physics it reports (force and
 * moment balance, the tyre law, load sums); the four-wheel model's tyre
 * channels report its wheels and tyres. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "sim/world.h"

#define G 9.81
#define RHO 1.225

/* ---- registry ------------------------------------------------------------- */

START_TEST(test_every_channel_has_name_unit_description)
{
    for (size_t i = 0; i < PDK_CH_COUNT; i++) {
        const pdk_channel_info *info = pdk_channel_get(i);
        ck_assert_ptr_nonnull(info);
        ck_assert_uint_gt(strlen(info->name), 0);
        ck_assert_ptr_null(strchr(info->name, ' '));
        ck_assert_uint_gt(strlen(info->unit), 0);
        ck_assert_uint_gt(strlen(info->description), 0);
        /* Names are unique: find gives back this index. */
        ck_assert_int_eq(pdk_channel_find(info->name), (int)i);
    }
    ck_assert_ptr_null(pdk_channel_get(PDK_CH_COUNT));
    ck_assert_ptr_null(pdk_channel_get(SIZE_MAX));
}
END_TEST

START_TEST(test_find)
{
    ck_assert_int_eq(pdk_channel_find("Speed"), PDK_CH_SPEED);
    ck_assert_int_eq(pdk_channel_find("PosX"), PDK_CH_POS_X);
    ck_assert_int_eq(pdk_channel_find("RollingResistance"), PDK_CH_ROLLING);
    ck_assert_int_eq(pdk_channel_find("Faulted"), PDK_CH_FAULTED);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_FAULTED)->unit, "bool");
    ck_assert_str_eq(pdk_channel_get(PDK_CH_YAW_RATE)->unit, "rad/s");
    ck_assert_str_eq(pdk_channel_get(PDK_CH_BRAKE)->name, "BrakePressure");
    ck_assert_int_eq(pdk_channel_find("posx"), -1);
    ck_assert_int_eq(pdk_channel_find("Speed "), -1);
    ck_assert_int_eq(pdk_channel_find(""), -1);
    ck_assert_int_eq(pdk_channel_find("NoSuchChannel"), -1);
    ck_assert_int_eq(pdk_channel_find(NULL), -1);
}
END_TEST

/* The per-wheel channels of issue 4 exist by the names the issue gives,
 * four in a row FL FR RL RR (the four-wheel step stores each kind at once),
 * with their units; the per-wheel tyre forces are TyreFx_* and TyreFy_* at
 * their old indices; SteeringTorque is one channel in N m. */
START_TEST(test_tyre_channels_registered)
{
    static const struct {
        const char *name;
        int first;
        const char *unit;
    } kinds[] = {
        {"TyreLoad", PDK_CH_TYRE_LOAD_FL, "N"},
        {"SlipRatio", PDK_CH_SLIP_RATIO_FL, "1"},
        {"SlipAngle", PDK_CH_SLIP_ANGLE_FL, "rad"},
        {"TyreFx", PDK_CH_FORCE_X_FL, "N"},
        {"TyreFy", PDK_CH_FORCE_Y_FL, "N"},
        {"TyreMz", PDK_CH_TYRE_MZ_FL, "N m"},
        {"WheelSpeed", PDK_CH_WHEEL_SPEED_FL, "rad/s"},
        {"SurfaceTemp", PDK_CH_SURFACE_TEMP_FL, "degC"},
        {"CoreTemp", PDK_CH_CORE_TEMP_FL, "degC"},
        {"Pressure", PDK_CH_PRESSURE_FL, "kPa"},
        {"Wear", PDK_CH_WEAR_FL, "1"},
        {"Grip", PDK_CH_GRIP_FL, "1"},
        {"Sinkage", PDK_CH_SINKAGE_FL, "m"},
        {"Surface", PDK_CH_SURFACE_FL, "enum"},
        {"SlidePower", PDK_CH_SLIDE_POWER_FL, "W"},
        {"Condition", PDK_CH_CONDITION_FL, "enum"},
    };
    static const char *const wheel[4] = {"FL", "FR", "RL", "RR"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int i = 0; i < 4; i++) {
            char name[64];
            size_t n = strlen(kinds[k].name);
            memcpy(name, kinds[k].name, n);
            name[n] = '_';
            memcpy(name + n + 1, wheel[i], 3);
            ck_assert_msg(pdk_channel_find(name) == kinds[k].first + i, "%s", name);
            ck_assert_str_eq(pdk_channel_get((size_t)(kinds[k].first + i))->unit, kinds[k].unit);
        }
    }
    ck_assert_int_eq(pdk_channel_find("TyreForceX_FL"), -1);
    ck_assert_int_eq(pdk_channel_find("TyreForceX_F"), PDK_CH_FORCE_X_F);
    ck_assert_int_eq(pdk_channel_find("SteeringTorque"), PDK_CH_STEERING_TORQUE);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_STEERING_TORQUE)->unit, "N m");
    ck_assert_int_eq(PDK_CH_STEERING_TORQUE, PDK_CH_ENGINE_RPM - 1);
}
END_TEST

/* The powertrain's channels (issue 5) follow the tyres', in their order. */
START_TEST(test_powertrain_channels_registered)
{
    static const struct {
        const char *name;
        int id;
        const char *unit;
    } singles[] = {
        {"EngineRPM", PDK_CH_ENGINE_RPM, "rev/min"},
        {"EngineTorque", PDK_CH_ENGINE_TORQUE, "N m"},
        {"CvtRatio", PDK_CH_CVT_RATIO, "1"},
        {"ClutchTorque", PDK_CH_CLUTCH_TORQUE, "N m"},
        {"ClutchSlip", PDK_CH_CLUTCH_SLIP, "rad/s"},
        {"DriveMode", PDK_CH_DRIVE_MODE, "enum"},
        {"FuelRate", PDK_CH_FUEL_RATE, "L/h"},
        {"FuelUsed", PDK_CH_FUEL_USED, "L"},
        {"FuelLevel", PDK_CH_FUEL_LEVEL, "L"},
        {"GearReject", PDK_CH_GEAR_REJECT, "enum"},
        {"WheelTorque_FL", PDK_CH_WHEEL_TORQUE_FL, "N m"},
        {"WheelTorque_RR", PDK_CH_WHEEL_TORQUE_RR, "N m"},
        {"BrakeTorque_FL", PDK_CH_BRAKE_TORQUE_FL, "N m"},
        {"BrakeTorque_RR", PDK_CH_BRAKE_TORQUE_RR, "N m"},
    };
    for (size_t k = 0; k < sizeof singles / sizeof singles[0]; k++) {
        ck_assert_msg(pdk_channel_find(singles[k].name) == singles[k].id, "%s", singles[k].name);
        ck_assert_str_eq(pdk_channel_get((size_t)singles[k].id)->unit, singles[k].unit);
    }
    ck_assert_int_eq(PDK_CH_ENGINE_RPM, PDK_CH_STEERING_TORQUE + 1);
    /* The energy ledger's, one per term in its order, then the residual. */
    static const char *const ledger[] = {
        "EnergyFuel",    "EnergyEngineLoss", "EnergyParasitic", "EnergyEngineKinetic",
        "EnergyClutch",  "EnergyDriveline",  "EnergyBrake",     "EnergyTyreSlip",
        "EnergyRolling", "EnergyAero",       "EnergySoil",      "EnergySuspension",
        "EnergyKinetic", "EnergyPotential",  "EnergyResidual"};
    for (int k = 0; k < (int)(sizeof ledger / sizeof ledger[0]); k++) {
        ck_assert_msg(pdk_channel_find(ledger[k]) == PDK_CH_ENERGY_FUEL + k, "%s", ledger[k]);
        ck_assert_str_eq(pdk_channel_get((size_t)(PDK_CH_ENERGY_FUEL + k))->unit, "J");
    }
    ck_assert_int_eq(PDK_CH_ENERGY_FUEL, PDK_CH_BRAKE_TORQUE_RR + 1);
    ck_assert_int_eq(pdk_channel_find("GearNumber"), PDK_CH_GEAR_NUMBER);
    ck_assert_int_eq(PDK_CH_GEAR_NUMBER, PDK_CH_ENERGY_RESIDUAL + 1);
    /* Issue 26's, appended after it: the steering feel, then the wheels'
     * angles for drawing. */
    ck_assert_int_eq(pdk_channel_find("SteeringWheelTorque"), PDK_CH_STEERING_WHEEL_TORQUE);
    ck_assert_int_eq(PDK_CH_STEERING_WHEEL_TORQUE, PDK_CH_GEAR_NUMBER + 1);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_STEERING_WHEEL_TORQUE)->unit, "N m");
    ck_assert_int_eq(pdk_channel_find("WheelAngle_FL"), PDK_CH_STEERING_WHEEL_TORQUE + 1);
    ck_assert_int_eq(pdk_channel_find("WheelAngle_RR"), PDK_CH_WHEEL_ANGLE_RR);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_WHEEL_ANGLE_RR)->unit, "rad");
    /* Issue 25's, appended after those: the body's contact with the
     * ground, then why a vehicle is held. */
    static const struct {
        const char *name;
        int id;
        const char *unit;
    } body[] = {{"BodyContact", PDK_CH_BODY_CONTACT, "count"},
                {"BodyContactForce", PDK_CH_BODY_CONTACT_FORCE, "N"},
                {"BodyContactFace", PDK_CH_BODY_CONTACT_FACE, "enum"},
                {"FaultCode", PDK_CH_FAULT_CODE, "enum"}};
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(pdk_channel_find(body[k].name), body[k].id);
        ck_assert_int_eq(body[k].id, PDK_CH_WHEEL_ANGLE_RR + 1 + k);
        ck_assert_str_eq(pdk_channel_get((size_t)body[k].id)->unit, body[k].unit);
    }
    /* Issue 29's: contact between bodies (sim/contact.h). */
    ck_assert_int_eq(pdk_channel_find("ContactImpulse"), PDK_CH_FAULT_CODE + 1);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_CONTACT_IMPULSE)->unit, "N s");
    ck_assert_int_eq(pdk_channel_find("ContactCount"), PDK_CH_FAULT_CODE + 2);
    ck_assert_str_eq(pdk_channel_get(PDK_CH_CONTACT_COUNT)->unit, "count");
    ck_assert_int_eq(PDK_CH_CONTACT_COUNT, PDK_CH_COUNT - 1);
}
END_TEST

/* ---- values --------------------------------------------------------------- */

typedef struct fixture {
    pdk_world *world;
    pdk_vehicle_id id;
    pdk_vehicle_def def;
} fixture;

/* A car cornering steadily at 15 m/s with 60 deg on the wheel; the throttle
 * holds the speed. */
static fixture cornering(void)
{
    fixture f;
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 2;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &f.world), PDK_OK);
    f.def = pdk_vehicle_def_default();
    f.def.model = PDK_MODEL_SINGLE_TRACK;
    pdk_pose pose = {5.0, -5.0, 0.5};
    ck_assert_int_eq(pdk_world_spawn(f.world, &f.def, &pose, 15.0, PDK_GEAR_DRIVE, &f.id), PDK_OK);
    /* Freshly spawned: no tick yet, every channel is zero. */
    const double *ch = pdk_world_channels(f.world, f.id);
    for (int i = 0; i < PDK_CH_COUNT; i++) {
        ck_assert_double_eq(ch[i], 0.0);
    }
    double integral = 0.0;
    for (int t = 0; t < 6 * 120; t++) {
        pdk_vehicle_pose p;
        ck_assert_int_eq(pdk_world_vehicle_pose(f.world, f.id, &p), PDK_OK);
        double err = 15.0 - p.vx_mps;
        integral += err / 120.0;
        double throttle = 100.0 * (err + integral);
        throttle = throttle < 0.0 ? 0.0 : (throttle > 100.0 ? 100.0 : throttle);
        pdk_dbw_cmd c = {.fields = PDK_DBW_THROTTLE | PDK_DBW_STEER | PDK_DBW_BRAKE,
                         .throttle_pct = throttle,
                         .steer_wheel_deg = 60.0};
        ck_assert_int_eq(pdk_world_command(f.world, f.id, &c), PDK_OK);
        pdk_world_step(f.world);
    }
    return f;
}

START_TEST(test_state_channels_match_pose_and_command)
{
    fixture f = cornering();
    const double *ch = pdk_world_channels(f.world, f.id);
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(f.world, f.id, &p), PDK_OK);
    ck_assert_double_eq(ch[PDK_CH_POS_X], p.x_m);
    ck_assert_double_eq(ch[PDK_CH_POS_Y], p.y_m);
    ck_assert_double_eq(ch[PDK_CH_POS_Z], f.def.chassis.cg_height_m);
    ck_assert_double_eq(ch[PDK_CH_YAW], p.yaw_rad);
    ck_assert_double_eq(ch[PDK_CH_SPEED], p.speed_mps);
    ck_assert_double_le(fabs(ch[PDK_CH_SPEED] - hypot(p.vx_mps, p.vy_mps)), 1e-14);
    ck_assert_double_eq(ch[PDK_CH_VEL_X], p.vx_mps);
    ck_assert_double_eq(ch[PDK_CH_VEL_Y], p.vy_mps);
    ck_assert_double_eq(ch[PDK_CH_YAW_RATE], p.yaw_rate_radps);
    ck_assert_double_eq(ch[PDK_CH_ACCEL_X], p.ax_mps2);
    ck_assert_double_eq(ch[PDK_CH_ACCEL_Y], p.ay_mps2);
    ck_assert_double_eq(ch[PDK_CH_STEER_ANGLE], p.steer_angle_rad);
    ck_assert_double_le(fabs(ch[PDK_CH_STEER_ANGLE] - 60.0 / 15.0 * 3.14159265358979323846 / 180.0),
                        1e-15);
    ck_assert_double_eq(ch[PDK_CH_STEER_WHEEL], 60.0);
    ck_assert_double_gt(ch[PDK_CH_THROTTLE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_BRAKE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_GEAR], (double)PDK_GEAR_DRIVE);
    ck_assert_double_eq(ch[PDK_CH_FAULTED], 0.0);
    ck_assert_int_eq(pdk_world_vehicle_faulted(f.world, f.id), 0);
    free(f.world);
}
END_TEST

START_TEST(test_force_channels_balance)
{
    fixture f = cornering();
    const double *ch = pdk_world_channels(f.world, f.id);
    const pdk_vehicle_def *d = &f.def;
    double m = d->chassis.mass_kg;
    double len = d->chassis.wheelbase_m;
    double a = d->chassis.cg_to_front_axle_m;
    double b = len - a;
    double delta = ch[PDK_CH_STEER_ANGLE];
    double fxf = ch[PDK_CH_FORCE_X_F], fyf = ch[PDK_CH_FORCE_Y_F];
    double fxr = ch[PDK_CH_FORCE_X_R], fyr = ch[PDK_CH_FORCE_Y_R];
    double fzf = ch[PDK_CH_TYRE_LOAD_F], fzr = ch[PDK_CH_TYRE_LOAD_R];
    double v = ch[PDK_CH_VEL_X];

    /* Loads carry the weight, split by the CG position (steady: ax ~ 0). */
    ck_assert_double_le(fabs(fzf + fzr - m * G), 1e-9 * m * G);
    ck_assert_double_le(fabs(fzf - m * G * b / len), 2e-3 * m * G);

    /* Steady cornering: the body-frame forces (wheel-frame forces rotated by
     * delta at the front) balance m a, and the yaw moment vanishes. The
     * residue is one substep's change of the gyroscopic term, ~1e-6 m g. */
    double lat_f = fyf * cos(delta) + fxf * sin(delta);
    double lon = fxf * cos(delta) - fyf * sin(delta) + fxr + ch[PDK_CH_DRAG];
    ck_assert_double_le(fabs(m * ch[PDK_CH_ACCEL_Y] - (lat_f + fyr)), 1e-4 * m * G);
    ck_assert_double_le(fabs(m * ch[PDK_CH_ACCEL_X] - lon), 1e-4 * m * G);
    ck_assert_double_le(fabs(a * lat_f - b * fyr), 1e-4 * m * G * len);
    ck_assert_double_gt(m * ch[PDK_CH_ACCEL_Y], 0.1 * m * G);

    /* The linear tyre: Fy = -C tan(alpha), signs per ISO 8855 (a left turn
     * has both axles' contact velocities pointing right of the wheel, so
     * alpha < 0 and Fy > 0). 0.5 %: the slip angle is from the tick's end
     * velocities, the force from the last substep's implicit solve. */
    double af = ch[PDK_CH_SLIP_ANGLE_F], ar = ch[PDK_CH_SLIP_ANGLE_R];
    ck_assert_double_lt(af, 0.0);
    ck_assert_double_lt(ar, 0.0);
    ck_assert_double_le(fabs(fyf + d->tyre_front.cornering_stiffness_n_per_rad * tan(af)),
                        5e-3 * fabs(fyf));
    ck_assert_double_le(fabs(fyr + d->tyre_rear.cornering_stiffness_n_per_rad * tan(ar)),
                        5e-3 * fabs(fyr));

    /* Drag and rolling resistance oppose the forward motion. */
    double k = 0.5 * RHO * d->resist.drag_area_m2;
    ck_assert_double_le(fabs(ch[PDK_CH_DRAG] + k * v * v), 1e-3 * k * v * v);
    double rolling = d->resist.rolling_coeff * (fzf * cos(delta) + fzr);
    ck_assert_double_le(fabs(ch[PDK_CH_ROLLING] + rolling), 1e-9 * rolling);

    /* The planar model has no wheel spin, tyre life, soil or aligning
     * moment: those per-wheel channels stay 0. */
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(ch[PDK_CH_SLIP_RATIO_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_WHEEL_SPEED_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_TYRE_MZ_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_SURFACE_TEMP_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_SINKAGE_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_SLIDE_POWER_FL + i], 0.0);
    }
    ck_assert_double_eq(ch[PDK_CH_STEERING_TORQUE], 0.0);
    ck_assert_double_eq(ch[PDK_CH_STEERING_WHEEL_TORQUE], 0.0);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(ch[PDK_CH_WHEEL_ANGLE_FL + i], 0.0);
    }
    free(f.world);
}
END_TEST

/* The four-wheel car's tyre channels after 5 s at a steady 15 m/s on dry
 * tarmac: each wheel spins at about v / R (within its slip and the turn's
 * spread of the wheels' speeds, 5 %); the tyres are intact, hardly worn
 * (gentle cornering slides off about 1e-6 of the tread in 5 s: below
 * 1e-4), near their cold pressure (they warm by some degrees: 2 %), with
 * their grip within the window (above 0.9), on surface 0, not sunk; the
 * tyres slide a little (some watts), and the slip ratio is small and
 * positive on the driven front wheels, which carry the drive. */
START_TEST(test_four_wheel_tyre_channels)
{
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 1;
    size_t bytes = pdk_world_mem_size(&wd);
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    pdk_vehicle_def d = pdk_vehicle_def_default();
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_vehicle_id id;
    ck_assert_int_eq(pdk_world_spawn(w, &d, &pose, 15.0, PDK_GEAR_DRIVE, &id), PDK_OK);
    pdk_dbw_cmd c = {
        .fields = PDK_DBW_THROTTLE | PDK_DBW_STEER, .throttle_pct = 8.0, .steer_wheel_deg = 20.0};
    ck_assert_int_eq(pdk_world_command(w, id, &c), PDK_OK);
    for (int t = 0; t < 5 * 120; t++) {
        pdk_world_step(w);
    }
    const double *ch = pdk_world_channels(w, id);
    double v = ch[PDK_CH_SPEED];
    double r0 = d.tyre_front.law.radius_m;
    for (int i = 0; i < 4; i++) {
        ck_assert_double_le(fabs(ch[PDK_CH_WHEEL_SPEED_FL + i] * r0 / v - 1.0), 0.05);
        ck_assert_double_eq(ch[PDK_CH_CONDITION_FL + i], 0.0);
        ck_assert_double_le(fabs(ch[PDK_CH_WEAR_FL + i]), 1e-4);
        ck_assert_double_le(
            fabs(ch[PDK_CH_PRESSURE_FL + i] / d.tyre_front.life.cold_pressure_kpa - 1.0), 0.02);
        ck_assert_double_gt(ch[PDK_CH_GRIP_FL + i], 0.9);
        ck_assert_double_eq(ch[PDK_CH_SURFACE_FL + i], 0.0);
        ck_assert_double_eq(ch[PDK_CH_SINKAGE_FL + i], 0.0);
        ck_assert_double_gt(ch[PDK_CH_SLIDE_POWER_FL + i], 0.0);
        ck_assert_double_gt(ch[PDK_CH_SURFACE_TEMP_FL + i], 19.0);
        ck_assert_double_gt(ch[PDK_CH_CORE_TEMP_FL + i], 19.0);
    }
    ck_assert_double_gt(ch[PDK_CH_SLIP_RATIO_FL], 0.0);
    ck_assert_double_lt(ch[PDK_CH_SLIP_RATIO_FL], 0.02);
    /* The wheels' angles: within [0, 2 pi), and one more tick adds that
     * tick's wheel speed times 1/120 s, wrapped. */
    double before[4];
    for (int i = 0; i < 4; i++) {
        before[i] = ch[PDK_CH_WHEEL_ANGLE_FL + i];
        ck_assert_double_ge(before[i], 0.0);
        ck_assert_double_lt(before[i], 2.0 * M_PI);
    }
    pdk_world_step(w);
    ch = pdk_world_channels(w, id);
    for (int i = 0; i < 4; i++) {
        double want = fmod(before[i] + ch[PDK_CH_WHEEL_SPEED_FL + i] / 120.0, 2.0 * M_PI);
        ck_assert_double_le(fabs(ch[PDK_CH_WHEEL_ANGLE_FL + i] - want), 1e-12);
    }
    free(mem);
}
END_TEST

static Suite *channels_suite(void)
{
    Suite *s = suite_create("channels");
    TCase *reg = tcase_create("registry");
    tcase_add_test(reg, test_every_channel_has_name_unit_description);
    tcase_add_test(reg, test_find);
    tcase_add_test(reg, test_tyre_channels_registered);
    tcase_add_test(reg, test_powertrain_channels_registered);
    suite_add_tcase(s, reg);
    TCase *val = tcase_create("values");
    tcase_add_test(val, test_state_channels_match_pose_and_command);
    tcase_add_test(val, test_force_channels_balance);
    tcase_add_test(val, test_four_wheel_tyre_channels);
    suite_add_tcase(s, val);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(channels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
