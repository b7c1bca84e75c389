/* Unit tests of params/ on the powertrain kinds' keys: which keys apply to a
 * lumped, a utv and a geared vehicle and what refuses the others, each kind's
 * bounds and rules between keys, a car's payload keys, and the Polaris model's
 * key names as overrides; and the drive-by-wire kit's keys (dbw.*, every
 * kind's): their bounds, held by params and by sim alike, the rules between
 * them and the brakes, the shipped kits with their basis, and overrides in
 * either spelling. The schema in general is test_params.c's. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dbw_def.h"
#include "params.h"
#include "sim/utv_def.h"
#include "sim/utv_mass.h"

#include "params_test_util.h"

/* Loads the Polaris preset with overrides, expecting code; returns the
 * message. */
static const char *polaris_expect(const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    err[0] = '\0';
    pdk_error rc =
        pdk_params_vehicle_load(PRESETS, "polaris_ranger", overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "%s: expected %s, got %s: %s", overrides, pdk_error_name(code),
                  pdk_error_name(rc), err);
    return err;
}

/* The powertrains of two definitions, field by field. */
static void assert_same_powertrain(const pdk_vehicle_def *a, const pdk_vehicle_def *b)
{
    POWERTRAIN_FIELDS(SAME_FIELD, powertrain)
}

/* Loads the compact hatch preset (geared) with overrides, expecting code;
 * returns the message. */
static const char *hatch_expect(const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    err[0] = '\0';
    pdk_error rc =
        pdk_params_vehicle_load(PRESETS, "compact_hatch", overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "%s: expected %s, got %s: %s", overrides, pdk_error_name(code),
                  pdk_error_name(rc), err);
    return err;
}

/* A key of some powertrain kinds is refused on the others, naming the key, the
 * kinds it has and, for a key a utv derives or a lumped vehicle's drive, what
 * the vehicle has instead; the kind may come from an override. A lumped
 * vehicle's powertrain stays zero, and a utv's keys left out are the Polaris
 * model's. */
START_TEST(a_kinds_keys_apply_to_that_kind_only)
{
    const char *m;
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "traffic_sedan", "engine.idleRpm=900", &def,
                                             NULL, err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "vehicle preset \"traffic_sedan\" with its overrides: "
                    "engine.idleRpm: applies only when "
                    "powertrain.kind is \"utv\" or \"geared\", and here it is \"lumped\"; remove "
                    "the key or change powertrain.kind");
    m = vparse_expect("{\"cvt\":{\"ebs\":false}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: cvt.ebs: applies only when powertrain.kind is \"utv\", and here");
    m = vparse_expect("{}", "mass.frontSeatX=1.5", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.frontSeatX: applies only when powertrain.kind is \"utv\", and here it "
                  "is \"lumped\": a lumped or geared vehicle's seats are mass.seats");
    m = vparse_expect("{\"transmission\":{\"finalDrive\":3}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: transmission.finalDrive: applies only when powertrain.kind is "
                  "\"geared\", and here it is \"lumped\"");
    m = vparse_expect("{}", "brakes.abs=true", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "brakes.abs: applies only when powertrain.kind is \"utv\" or \"geared\"");

    m = vparse_expect("{\"powertrain\":{\"kind\":\"utv\"},\"chassis\":{\"mass\":1500}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "test.json: chassis.mass: applies only when powertrain.kind is \"lumped\" or "
               "\"geared\", and here it is \"utv\": a utv's chassis follows from its mass.* keys "
               "(the UTV model's parts, docs/powertrain.md)");
    m = polaris_expect("drive.maxForce=5000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "drive.maxForce: applies only when powertrain.kind is \"lumped\", and here it "
                  "is \"utv\"");
    ASSERT_HAS(m, "a utv drives through its engine.*, cvt.* and gearbox.* keys");
    m = polaris_expect("suspension.front.springRate=20000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "a utv's corners follow from suspension.frontWheelRate");
    m = polaris_expect("clutch.capacity=300", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "clutch.capacity: applies only when powertrain.kind is \"geared\", and here it "
                  "is \"utv\"");
    m = polaris_expect("driveline.diff=lsd", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "driveline.diff: applies only when powertrain.kind is \"geared\"");
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "traffic_sedan", "powertrain.kind=utv", &def,
                                             NULL, err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "with its overrides: chassis.mass: applies only when powertrain.kind is "
                    "\"lumped\" or \"geared\"");
    m = polaris_expect("simulation.model=singleTrack", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "powertrain.kind \"utv\" needs simulation.model \"fourWheel\"");

    /* A geared car: its own keys, the engine's, and the chassis and
     * corners a lumped vehicle gives; not a utv's, nor the lumped drive
     * and brake forces. */
    m = hatch_expect("drive.maxForce=5000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "drive.maxForce: applies only when powertrain.kind is \"lumped\", and here it "
                  "is \"geared\"");
    ASSERT_HAS(m, "a geared car through its engine.*, clutch.*, transmission.* and driveline.* "
                  "keys");
    m = hatch_expect("brakes.forcePerBar=100", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "a utv's brakes and a geared car's are brakes.frontNmPerBar, rearNmPerBar and "
                  "biasBar");
    m = hatch_expect("brakes.parkHoldForce=100", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "a geared car's transmission.parkHold");
    m = hatch_expect("cvt.ebs=false", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "cvt.ebs: applies only when powertrain.kind is \"utv\", and here it is "
                  "\"geared\"");
    m = hatch_expect("gearbox.rearLowRatio=20", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "gearbox.rearLowRatio: applies only when powertrain.kind is \"utv\"");
    m = hatch_expect("mass.dryKg=1000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.dryKg: applies only when powertrain.kind is \"utv\"");
    m = hatch_expect("powertrain.kind=lumped", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "applies only when powertrain.kind is \"utv\" or \"geared\", and here it is "
                  "\"lumped\"");
    hatch_expect("chassis.mass=1300;suspension.front.springRate=26000", PDK_OK);
    m = hatch_expect("simulation.model=singleTrack", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "powertrain.kind \"geared\" needs simulation.model \"fourWheel\"");

    /* A lumped vehicle: sim's default powertrain, all zero. */
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "l", NULL, &def, NULL, err, sizeof err),
                     PDK_OK);
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    assert_same_powertrain(&def, &ref);
    /* A utv that gives no keys of its own is the Polaris Ranger. */
    ck_assert_msg(pdk_params_vehicle_parse("{\"powertrain\":{\"kind\":\"utv\"}}", "u", NULL, &def,
                                           NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ref.powertrain = pdk_powertrain_def_polaris();
    assert_same_powertrain(&def, &ref);
    ck_assert_double_eq(def.chassis.mass_kg, 1233.0);
    /* An index reaches into the default curve when the preset gives none. */
    ck_assert_msg(pdk_params_vehicle_parse("{\"powertrain\":{\"kind\":\"utv\"}}", "u",
                                           "engine.torqueCurve[9].nm=10", &def, NULL, err,
                                           sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(def.powertrain.engine.n_curve, 10);
    ck_assert_double_eq(def.powertrain.engine.curve_nm[9], 10);
    ck_assert_double_eq(def.powertrain.engine.curve_nm[8], 74);
    /* brakes.abs reaches a utv's brakes too. */
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger", "brakes.abs=true", &def, NULL,
                                          err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(def.powertrain.abs, 1);
}
END_TEST

/* A geared car that gives no keys of its own runs: the Polaris model's engine
 * (the default engine), the six-speed automatic of test_geared.c's car with
 * the launch clutch of that engine's CVT, front drive through an open
 * differential; no CVT, lever or lumped pawl; and its resolved JSON parses
 * back to it. */
START_TEST(a_geared_car_without_keys_of_its_own)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *resolved = NULL;
    ck_assert_msg(pdk_params_vehicle_parse("{\"powertrain\":{\"kind\":\"geared\"}}", "g", NULL,
                                           &def, &resolved, err, sizeof err) == PDK_OK,
                  "%s", err);
    const pdk_powertrain_def *pt = &def.powertrain;
    const pdk_powertrain_def polaris = pdk_powertrain_def_polaris();
    ck_assert_int_eq(pt->kind, PDK_POWERTRAIN_GEARED);
    ck_assert_mem_eq(pt->engine.curve_nm, polaris.engine.curve_nm, sizeof pt->engine.curve_nm);
    ck_assert_double_eq(pt->engine.idle_rpm, polaris.engine.idle_rpm);
    ck_assert_double_eq(pt->brake_front_nm_per_bar, polaris.brake_front_nm_per_bar);
    ck_assert_int_eq(pt->geared.shift, PDK_SHIFT_AUTOMATIC);
    ck_assert_int_eq(pt->geared.n_gears, 6);
    ck_assert_double_eq(pt->geared.ratio[0], 4.148);
    ck_assert_double_eq(pt->geared.ratio[5], 0.686);
    ck_assert_double_eq(pt->geared.ratio[6], 0);
    ck_assert_double_eq(pt->geared.final_drive, 3.683);
    ck_assert_double_eq(pt->geared.clutch_capacity_nm, polaris.cvt.clutch_capacity_nm);
    ck_assert_double_eq(pt->geared.clutch_engage_rpm, polaris.cvt.engage_rpm);
    ck_assert_double_eq(pt->geared.clutch_full_rpm, polaris.cvt.full_engage_rpm);
    ck_assert_int_eq(pt->layout.driven_axle, 0);
    ck_assert_int_eq(pt->layout.diff.kind, PDK_DIFF_OPEN);
    ck_assert_int_eq(pt->layout.coupling, PDK_COUPLING_NONE);
    ck_assert_int_eq(pt->abs, 0);
    ck_assert_double_eq(pt->cvt.low_ratio, 0);
    ck_assert_double_eq(pt->gearbox.rear_low, 0);
    ck_assert_double_eq(def.brake.park_hold_force_n, 0);
    ck_assert_ptr_null(pdk_vehicle_def_problem(&def));
    ASSERT_HAS(resolved, "\"ratios\":[4.1479999999999997,2.3700000000000001,");
    ASSERT_HAS(resolved, "\"abs\":false");
    ck_assert_ptr_null(strstr(resolved, "\"cvt\""));
    ck_assert_ptr_null(strstr(resolved, "dryKg"));
    assert_reparses(resolved, &def);
    free(resolved);
}
END_TEST

/* A geared car's keys have their bounds and rules, in the preset's unit,
 * and a message naming the key; transmission.ratios is a list of numbers,
 * given whole or reached into by index. */
START_TEST(a_geared_cars_keys_are_bounded)
{
    static const struct {
        const char *overrides;
        pdk_error code;
        const char *says;
    } cases[] = {
        {"transmission.ratios=[]", PDK_ERR_OUT_OF_RANGE,
         "transmission.ratios has no gears; it needs 1 to 8"},
        {"transmission.ratios=[4,3,2,1.5,1.2,1,0.9,0.8,0.7]", PDK_ERR_OUT_OF_RANGE,
         "transmission.ratios: 9 entries, more than the 8 allowed"},
        {"transmission.ratios=[4,\"x\"]", PDK_ERR_WRONG_TYPE,
         "transmission.ratios[1]: expected a number, got string \"x\""},
        {"transmission.ratios=4", PDK_ERR_WRONG_TYPE,
         "transmission.ratios: expected a list of numbers, got number"},
        {"transmission.ratios[0]=0.01", PDK_ERR_OUT_OF_RANGE,
         "transmission.ratios[0]: 0.01 is below the minimum 0.05 (-)"},
        {"transmission.ratios[1]=5", PDK_ERR_OUT_OF_RANGE,
         "transmission.ratios[1] (5) must be less than transmission.ratios[0] (4.148): the ratios "
         "fall from first to top"},
        {"transmission.ratios[7]=0.5", PDK_ERR_OUT_OF_RANGE,
         "index 7 is past the end of transmission.ratios"},
        {"transmission.ratios[1].ratio=2", PDK_ERR_WRONG_TYPE, "transmission.ratios[1]"},
        {"transmission.downshiftRpm=1200", PDK_ERR_OUT_OF_RANGE,
         "transmission.downshiftRpm (1200 rev/min) must be below transmission.upshiftRpmLight "
         "times the step from gear 1 to 2, 1142.72 rev/min"},
        {"transmission.upshiftRpmLight=700", PDK_ERR_OUT_OF_RANGE,
         "engine.idleRpm (750 rev/min) must be less than transmission.upshiftRpmLight (700 "
         "rev/min)"},
        {"transmission.upshiftRpmLight=6100", PDK_ERR_OUT_OF_RANGE,
         "transmission.upshiftRpmLight (6100 rev/min) must be at most transmission.upshiftRpmFull "
         "(6000 rev/min)"},
        {"transmission.upshiftRpmFull=7000", PDK_ERR_OUT_OF_RANGE,
         "transmission.upshiftRpmFull (7000 rev/min) must be at most engine.maxRpm (6500 rev/min)"},
        {"clutch.engageRpm=700", PDK_ERR_OUT_OF_RANGE,
         "engine.idleRpm (750 rev/min) must be less than clutch.engageRpm (700 rev/min)"},
        {"clutch.fullRpm=800", PDK_ERR_OUT_OF_RANGE,
         "clutch.engageRpm (900 rev/min) must be less than clutch.fullRpm (800 rev/min)"},
        {"clutch.capacity=0", PDK_ERR_OUT_OF_RANGE,
         "clutch.capacity: 0 is below the minimum 0.1 (N*m)"},
        {"transmission.efficiency=1.2", PDK_ERR_OUT_OF_RANGE,
         "transmission.efficiency: 1.2 is above the maximum 1 (-)"},
        {"transmission.shiftTime=3", PDK_ERR_OUT_OF_RANGE,
         "transmission.shiftTime: 3 is above the maximum 2 (s)"},
        {"transmission.lowRange=0.5", PDK_ERR_OUT_OF_RANGE,
         "transmission.lowRange: 0.5 is below the minimum 1 (-)"},
        {"transmission.finalDrive=0", PDK_ERR_OUT_OF_RANGE,
         "transmission.finalDrive: 0 is below the minimum 0.1 (-)"},
        {"transmission.parkHold=-1", PDK_ERR_OUT_OF_RANGE,
         "transmission.parkHold: -1 is below the minimum 0 (N*m)"},
        {"transmission.shift=paddles", PDK_ERR_OUT_OF_RANGE,
         "transmission.shift: \"paddles\" is not a shift kind (allowed: \"automatic\", "
         "\"sequential\", \"manual\")"},
        {"driveline.drivenAxle=both", PDK_ERR_OUT_OF_RANGE,
         "driveline.drivenAxle: \"both\" is not a driven axle (allowed: \"front\", \"rear\")"},
        {"driveline.diff=torsen", PDK_ERR_OUT_OF_RANGE,
         "driveline.diff: \"torsen\" is not a differential (allowed: \"open\", \"locked\", "
         "\"lsd\")"},
        {"driveline.coupling=overrun", PDK_ERR_OUT_OF_RANGE,
         "driveline.coupling: \"overrun\" is not a coupling (allowed: \"none\", \"locked\", "
         "\"centre\")"},
        {"driveline.coupling=centre;driveline.centreDiff=lsd;driveline.centreBiasRatio=0.5",
         PDK_ERR_OUT_OF_RANGE, "driveline.centreBiasRatio: 0.5 is below the minimum 1 (-)"},
        {"driveline.biasRatio=0.5", PDK_ERR_OUT_OF_RANGE,
         "driveline.biasRatio: 0.5 is below the minimum 1 (-)"},
        {"clutch.converterStallRatio=5", PDK_ERR_OUT_OF_RANGE,
         "clutch.converterStallRatio: 5 is above the maximum 4 (-)"},
        {"clutch.converterStallRatio=0.5", PDK_ERR_OUT_OF_RANGE,
         "clutch.converterStallRatio must be 0 (a plain clutch) or within 1..4"},
        {"clutch.converterStallRatio=2;clutch.converterCoupling=0", PDK_ERR_OUT_OF_RANGE,
         "clutch.converterCoupling must be within 0..1 (above 0) with a converter"},
        {"chassis.angularDamping=11", PDK_ERR_OUT_OF_RANGE,
         "chassis.angularDamping: 11 is above the maximum 10 (1/s)"},
        {"driveline.secondaryRatio=0", PDK_ERR_OUT_OF_RANGE,
         "driveline.secondaryRatio: 0 is below the minimum 0.1 (-)"},
        {"brakes.abs=1", PDK_ERR_WRONG_TYPE, "brakes.abs: expected true or false, got number"},
        {"brakes.handbrake=-1", PDK_ERR_OUT_OF_RANGE,
         "brakes.handbrake: -1 is below the minimum 0 (N*m)"},
        {"resistance.downforceFront=1.5", PDK_ERR_OUT_OF_RANGE,
         "resistance.downforceFront: 1.5 is above the maximum 1 (-)"},
        {"resistance.downforceArea=-1", PDK_ERR_OUT_OF_RANGE,
         "resistance.downforceArea: -1 is below the minimum 0 (m^2)"},
        {"powertrain.kind=electric", PDK_ERR_OUT_OF_RANGE,
         "powertrain.kind: \"electric\" is not a powertrain kind (allowed: \"lumped\", \"utv\", "
         "\"geared\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = hatch_expect(cases[i].overrides, cases[i].code);
        ASSERT_HAS(m, cases[i].says);
    }
    /* The bounds hold to the edge, and the list takes an index one past
     * its end (a seventh gear) and a whole new list (a single speed). */
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(
        pdk_params_vehicle_load(PRESETS, "compact_hatch",
                                "transmission.ratios[6]=0.6;transmission.shiftTime=0;"
                                "transmission.shift=sequential;driveline.diff=lsd;"
                                "driveline.biasRatio=2.5;driveline.preload=40;"
                                "driveline.coupling=locked;driveline.secondaryDiff=locked;"
                                "transmission.lowRange=2.5;brakes.abs=false;"
                                "resistance.downforceArea=2;resistance.downforceFront=1",
                                &d, NULL, err, sizeof err) == PDK_OK,
        "%s", err);
    const pdk_powertrain_def *pt = &d.powertrain;
    ck_assert_int_eq(pt->geared.n_gears, 7);
    ck_assert_double_eq(pt->geared.ratio[6], 0.6);
    ck_assert_int_eq(pt->geared.shift, PDK_SHIFT_SEQUENTIAL);
    ck_assert_int_eq(pt->layout.diff.kind, PDK_DIFF_LSD);
    ck_assert_double_eq(pt->layout.diff.bias_ratio, 2.5);
    ck_assert_double_eq(pt->layout.diff.preload_nm, 40);
    ck_assert_int_eq(pt->layout.coupling, PDK_COUPLING_LOCKED);
    ck_assert_int_eq(pt->layout.secondary_diff.kind, PDK_DIFF_LOCKED);
    ck_assert_double_eq(pt->geared.low_range, 2.5);
    ck_assert_int_eq(pt->abs, 0);
    ck_assert_double_eq(d.resist.downforce_area_m2, 2);
    ck_assert_double_eq(d.resist.downforce_front, 1);
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "compact_hatch", "transmission.ratios=[3.5]", &d,
                                          NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(d.powertrain.geared.n_gears, 1);
    ck_assert_double_eq(d.powertrain.geared.ratio[0], 3.5);
    ck_assert_double_eq(d.powertrain.geared.ratio[1], 0);
    /* The list in a provenance object, as the shipped presets give it. */
    ck_assert_msg(
        pdk_params_vehicle_parse("{\"powertrain\":{\"kind\":\"geared\"},\"transmission\":"
                                 "{\"ratios\":{\"value\":[3,2,1.6],\"basis\":\"estimate\","
                                 "\"note\":\"three speeds\"}}}",
                                 "g", NULL, &d, NULL, err, sizeof err) == PDK_OK,
        "%s", err);
    ck_assert_int_eq(d.powertrain.geared.n_gears, 3);
    const char *m = vparse_expect("{\"powertrain\":{\"kind\":\"geared\"},\"transmission\":"
                                  "{\"ratios\":{\"value\":[3,2,1],\"range\":[1,3]}}}",
                                  NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "transmission.ratios: provenance sd and range apply to a number only");
}
END_TEST

/* Each family of a utv's keys has its bounds and rules, in the preset's
 * unit, and a message naming the key. */
START_TEST(a_utvs_keys_are_bounded)
{
    static const struct {
        const char *overrides;
        pdk_error code;
        const char *says;
    } cases[] = {
        {"mass.dryKg=5", PDK_ERR_OUT_OF_RANGE, "mass.dryKg: 5 is below the minimum 10 (kg)"},
        {"mass.occupants=7", PDK_ERR_OUT_OF_RANGE,
         "mass.occupants (7) must be at most 6 on a utv, the seats of the Polaris Ranger CREW's cab"},
        {"mass.occupants=10", PDK_ERR_OUT_OF_RANGE, "mass.occupants: 10 is above the maximum 9"},
        {"mass.occupants=2.5", PDK_ERR_WRONG_TYPE, "mass.occupants: expected an integer, got 2.5"},
        {"mass.seatZ=6", PDK_ERR_OUT_OF_RANGE, "mass.seatZ: 6 is above the maximum 5 (m)"},
        {"mass.dryCgForward=4", PDK_ERR_OUT_OF_RANGE,
         "the mass.* parts put the centre of mass 3.6"},
        {"mass.dryKg=99000;mass.cargoKg=9000", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass follows from this utv's keys as 108170 kg, above the maximum 100000 kg "
         "that it allows: a utv's chassis follows from its mass.* keys"},
        {"suspension.dampingRatio=0.05", PDK_ERR_OUT_OF_RANGE,
         "suspension.dampingRatio: 0.05 is below the minimum 0.1 (-)"},
        {"suspension.droop=0.25", PDK_ERR_OUT_OF_RANGE,
         "suspension.travel (0.2794 m) - suspension.droop - suspension.bumpStopLength = -0.0006 "
         "m"},
        {"tyres.rear.corneringPerLoad=60", PDK_ERR_OUT_OF_RANGE,
         "tyres.rear.corneringPerLoad: 60 is above the maximum 50 (1/rad)"},
        {"engine.maxRpm=30000", PDK_ERR_OUT_OF_RANGE,
         "engine.maxRpm: 30000 is above the maximum 25000 (rev/min)"},
        {"engine.idleRpm=4000;engine.maxRpm=3000", PDK_ERR_OUT_OF_RANGE,
         "engine.idleRpm (4000 rev/min) must be less than engine.maxRpm (3000 rev/min)"},
        {"engine.torqueCurve=[{\"rpm\":1000,\"nm\":50}]", PDK_ERR_OUT_OF_RANGE,
         "engine.torqueCurve has 1 point; it needs 2 to 16"},
        {"engine.torqueCurve[2].rpm=1500", PDK_ERR_OUT_OF_RANGE,
         "engine.torqueCurve[2].rpm (1500 rev/min) must be above engine.torqueCurve[1].rpm (2000 "
         "rev/min)"},
        {"engine.torqueCurve[0].nm=-1", PDK_ERR_OUT_OF_RANGE,
         "engine.torqueCurve[0].nm: -1 is below the minimum 0 (N*m)"},
        {"engine.torqueCurve[10]={\"rpm\":9000}", PDK_ERR_PARSE,
         "engine.torqueCurve[10].nm: missing (every entry of engine.torqueCurve gives rpm, nm)"},
        {"engine.displacementL=0", PDK_ERR_OUT_OF_RANGE,
         "engine.displacementL: 0 is below the minimum 0.01 (L)"},
        {"fuel.densityKgL=0", PDK_ERR_OUT_OF_RANGE, "fuel.densityKgL: 0 is below the minimum 0.01"},
        {"fuel.lhvMjKg=500", PDK_ERR_OUT_OF_RANGE, "fuel.lhvMjKg: 500 is above the maximum 200"},
        {"cvt.beltEfficiency=1.2", PDK_ERR_OUT_OF_RANGE,
         "cvt.beltEfficiency: 1.2 is above the maximum 1 (-)"},
        {"cvt.engageRpm=3000", PDK_ERR_OUT_OF_RANGE,
         "cvt.engageRpm (3000 rev/min) must be less than cvt.fullEngageRpm (2600 rev/min)"},
        {"cvt.highRatio=4", PDK_ERR_OUT_OF_RANGE,
         "cvt.highRatio (4) must be at most cvt.lowRatio (3.2)"},
        {"cvt.ebs=1", PDK_ERR_WRONG_TYPE, "cvt.ebs: expected true or false, got number"},
        {"cvt.adc=yes", PDK_ERR_WRONG_TYPE, "cvt.adc: expected true or false, got string \"yes\""},
        {"gearbox.rearLowRatio=0.5", PDK_ERR_OUT_OF_RANGE,
         "gearbox.rearLowRatio: 0.5 is below the minimum 1 (-)"},
        {"gearbox.parkHold=-1", PDK_ERR_OUT_OF_RANGE,
         "gearbox.parkHold: -1 is below the minimum 0"},
        {"brakes.frontNmPerBar=-1", PDK_ERR_OUT_OF_RANGE,
         "brakes.frontNmPerBar: -1 is below the minimum 0 (N*m/bar)"},
        {"brakes.biasBar=600", PDK_ERR_OUT_OF_RANGE,
         "brakes.biasBar: 600 is above the maximum 500 (bar)"},
        {"powertrain.driveMode=4wd", PDK_ERR_OUT_OF_RANGE,
         "powertrain.driveMode: \"4wd\" is not a drive mode (allowed: \"turf\", \"2wd\", "
         "\"awd\")"},
        {"powertrain.kind=electric", PDK_ERR_OUT_OF_RANGE,
         "powertrain.kind: \"electric\" is not a powertrain kind (allowed: \"lumped\", "
         "\"utv\", \"geared\")"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = polaris_expect(cases[i].overrides, cases[i].code);
        ASSERT_HAS(m, cases[i].says);
    }
    /* The bounds hold to the edge: these pass. */
    polaris_expect("powertrain.driveMode=turf;cvt.ebs=false;cvt.adc=true;mass.occupants=6;"
                   "suspension.dampingRatio=0.1;engine.maxSpeed=0;fuel.tankL=0",
                   PDK_OK);
}
END_TEST

/* Loads the shipped preset name with overrides, expecting code; returns
 * the message. */
static const char *shipped_expect(const char *name, const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    err[0] = '\0';
    pdk_error rc = pdk_params_vehicle_load(PRESETS, name, overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "%s %s: expected %s, got %s: %s", name, overrides,
                  pdk_error_name(code), pdk_error_name(rc), err);
    return err;
}

/* A preset with two seats and a boot of 100 kg, for the payload's rules. */
#define TWO_SEATS                                                                                  \
    "\"mass\":{\"seats\":[{\"x\":1.5,\"y\":0.35,\"z\":0.7},{\"x\":1.5,\"y\":-0.35,\"z\":0.7}],"    \
    "\"cargoMaxKg\":100,\"cargoX\":-0.5,\"cargoY\":0,\"cargoZ\":0.6}"

/* A car's payload (issue 5): the occupants within the seats the preset
 * gives, each error naming the key and the count; no cargo without a load
 * space and none above what it takes, nor below 0; without seats only the
 * driver the chassis carries; a driver taken from a chassis lighter than
 * that, or a payload that moves the chassis outside its keys' bounds or
 * its centre of mass off the wheelbase, is refused with the values. A
 * car's own payload keys are not a utv's, its seats not the utv's keys; an
 * unknown one is named. The payload's keys are in the resolved JSON only
 * when given. */
START_TEST(a_cars_payload_is_checked)
{
    const char *m = shipped_expect("sports_car", "mass.occupants=3", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "vehicle preset \"sports_car\" with its overrides: "
                  "mass.occupants (3) must be within 0..2, "
                  "the 2 seats that mass.seats gives");
    m = shipped_expect("open_wheeler", "mass.occupants=2", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.occupants (2) must be within 0..1, the 1 seat that mass.seats gives");
    m = shipped_expect("kart", "mass.cargo_kg=10", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.cargoKg (10 kg) must be 0: this vehicle has no load space "
                  "(mass.cargoMaxKg is 0)");
    m = shipped_expect("midsize_sedan", "mass.cargoKg=300", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.cargoKg (300 kg) must be at most mass.cargoMaxKg (210 kg), what the load "
                  "space takes");
    m = shipped_expect("pickup4x4", "mass.cargo_kg=-5", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'mass.cargo_kg=-5': mass.cargoKg: -5 is below the minimum 0 (kg)");
    m = shipped_expect("compact_hatch", "mass.occupants=-1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.occupants: -1 is below the minimum 0 (-)");
    m = shipped_expect("compact_hatch", "mass.occupants=2.0", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "mass.occupants: expected an integer, got 2.0");
    m = shipped_expect("midsize_sedan", "mass.cargo_kgg=150", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "mass.cargo_kgg: unknown key (did you mean mass.cargo_kg?)");
    m = shipped_expect("midsize_sedan", "mass.seats[0].w=1", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "mass.seats[0].w: unknown key (known keys: x, y, z)");
    m = shipped_expect("midsize_sedan", "mass.seats[4].z=6", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.seats[4].z: 6 is above the maximum 5 (m)");
    m = shipped_expect("midsize_sedan", "mass.seats[5]={\"x\":0.5}", PDK_ERR_PARSE);
    ASSERT_HAS(m, "mass.seats[5].y: missing (every entry of mass.seats gives x, y, z)");
    shipped_expect("midsize_sedan", "mass.seats[5]={\"x\":0.2,\"y\":0,\"z\":0.8};mass.occupants=6",
                   PDK_OK);

    /* Without seats: the driver only. */
    m = vparse_expect("{}", "mass.occupants=2", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: mass.occupants (2) must be 1 on a vehicle "
                  "without mass.seats");
    m = vparse_expect("{}", "mass.occupants=0", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.occupants (0) must be 1 on a vehicle without mass.seats");
    m = vparse_expect("{}", "mass.cargo_kg=150", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.cargoKg (150 kg) must be 0: this vehicle has no load space");
    vparse_expect("{}", "mass.occupants=1;mass.occupantKg=120;mass.cargoKg=0", PDK_OK);

    /* A chassis that cannot carry it. */
    m = vparse_expect("{\"chassis\":{\"mass\":60}," TWO_SEATS "}", "mass.occupants=0",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.occupants 0 takes the driver's mass.occupantKg (85 kg) from chassis.mass "
                  "(60 kg), which leaves -25 kg");
    m = vparse_expect("{\"chassis\":{\"mass\":100}," TWO_SEATS "}", "mass.occupants=0",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.mass follows from the chassis.* keys with the mass.* payload as 15 kg, "
                  "below the minimum 50 kg that it allows");
    m = vparse_expect("{" TWO_SEATS "}", "mass.cargoMaxKg=9000;mass.cargoKg=9000;mass.cargoX=-9",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "the mass.* payload puts the centre of mass -7.");
    ASSERT_HAS(m, "it must lie between the axles, within chassis.wheelbase (2.7 m)");

    /* A car's keys and a utv's. */
    m = polaris_expect("mass.seats=[]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "mass.seats: applies only when powertrain.kind is \"lumped\" or \"geared\", "
                  "and here it is \"utv\": a utv's seats are mass.frontSeatX, rearSeatX, "
                  "seatLateral and seatZ");
    m = polaris_expect("mass.cargoY=0.1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "a utv's cargo is on the centre line");
    m = polaris_expect("mass.cargoMaxKg=100", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "the UTV model gives the utv's bed no limit");
    m = hatch_expect("mass.seatZ=0.7", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "a lumped or geared vehicle's seats are mass.seats");

    /* Given, the keys are in the resolved JSON; left out, not. */
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    char *resolved = NULL;
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{}", "t", "mass.occupantKg=90", &d, &resolved, err, sizeof err),
        PDK_OK);
    ASSERT_HAS(resolved, "\"mass\":{\"occupantKg\":90.0}");
    free(resolved);
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{" TWO_SEATS "}", "t", NULL, &d, &resolved, err, sizeof err),
        PDK_OK);
    ASSERT_HAS(resolved, "\"mass\":{\"cargoMaxKg\":100.0,\"cargoX\":-0.5,\"cargoY\":0.0,"
                         "\"cargoZ\":0.59999999999999998,\"seats\":[{\"x\":1.5,");
    ck_assert_ptr_null(strstr(resolved, "occupants"));
    free(resolved);
}
END_TEST

/* Overrides take the Polaris model's snake_case names; a name both axles share
 * sets both. An alias is no key of a preset file, and a misspelt one is an
 * unknown key with the nearest name. */
START_TEST(overrides_take_seed_003s_names)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger",
                                          "engine.idle_rpm=900;cvt.low_ratio=3;"
                                          "brakes.front_nm_per_bar=25;tyres.radius_m=0.35;"
                                          "steering.center_deg=10;geometry.track_front_m=1.3;"
                                          "fuel.lhv_mj_kg=44;mass.dry_cg_height_m=0.6",
                                          &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.powertrain.engine.idle_rpm, 900);
    ck_assert_double_eq(d.powertrain.cvt.low_ratio, 3);
    ck_assert_double_eq(d.powertrain.brake_front_nm_per_bar, 25);
    ck_assert_double_eq(d.tyre_front.law.radius_m, 0.35);
    ck_assert_double_eq(d.tyre_rear.law.radius_m, 0.35);
    ck_assert_double_eq(d.tyre_rear.soil.radius_m, 0.35);
    ck_assert_double_eq(d.steering.center_offset_deg, 10);
    ck_assert_double_eq(d.susp_front.track_width_m, 1.3);
    ck_assert_double_eq(d.powertrain.fuel_heating_value_jpkg, 44e6);
    pdk_utv_mass_def mass = pdk_utv_mass_def_polaris();
    mass.dry_cg_m[2] = 0.6;
    pdk_utv_mass m;
    pdk_utv_mass_of(&mass, 2.8702, 1.3, 1.31, 9.81, &m);
    ck_assert_double_eq(d.chassis.cg_height_m, m.cg_m[2]);

    const char *msg = polaris_expect("engine.idle_rpm=50", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(msg, "override 'engine.idle_rpm=50': engine.idleRpm: 50 is below the minimum 100 "
                    "(rev/min)");
    msg = polaris_expect("tyres.radius_m=9", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(msg, "tyres.front.radius: 9 is above the maximum 2 (m)");
    msg = polaris_expect("engine.idle_rmp=900", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(msg, "override 'engine.idle_rmp=900': engine.idle_rmp: unknown key (did you mean "
                    "engine.idle_rpm?)");
    msg = vparse_expect("{\"powertrain\":{\"kind\":\"utv\"},\"engine\":{\"idle_rpm\":900}}", NULL,
                        PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(msg, "test.json: engine.idle_rpm: unknown key (did you mean engine.idleRpm?)");
}
END_TEST

/* ---- the drive-by-wire kit ---------------------------------------------- */

/* Each number key of the kit and the field it lands in (dbw_def.h). */
typedef struct kit_field {
    const char *key;
    size_t offset;
} kit_field;

#define KIT_FIELD(key, field)                                                                      \
    {                                                                                              \
        "dbw." key, offsetof(pdk_dbw_def, field)                                                   \
    }

static const kit_field kit_fields[] = {
    KIT_FIELD("steering.delay", steer_delay_s),
    KIT_FIELD("steering.rate", steer_rate_degps),
    KIT_FIELD("steering.accel", steer_accel_degps2),
    KIT_FIELD("steering.rateMax", steer_rate_max_degps),
    KIT_FIELD("steering.accelMax", steer_accel_max_degps2),
    KIT_FIELD("steering.overrideDeg", steer_override_deg),
    KIT_FIELD("brake.tau", brake_tau_s),
    KIT_FIELD("brake.rate", brake_rate_barps),
    KIT_FIELD("brake.rateMax", brake_rate_max_barps),
    KIT_FIELD("brake.decelMax", brake_decel_max_mps2),
    KIT_FIELD("brake.overrideBar", brake_override_bar),
    KIT_FIELD("throttle.tau", throttle_tau_s),
    KIT_FIELD("throttle.rate", throttle_rate_pctps),
    KIT_FIELD("throttle.overridePct", throttle_override_pct),
    KIT_FIELD("gear.shiftTime", gear_shift_s),
    KIT_FIELD("gear.maxSpeed", gear_max_speed_mps),
    KIT_FIELD("gear.brakeHoldBar", gear_brake_hold_bar),
    KIT_FIELD("lockout.speed", lockout_speed_mps),
    KIT_FIELD("lockout.accel", lockout_accel_mps2),
    KIT_FIELD("system.reengageDelay", reengage_delay_s),
    KIT_FIELD("ulc.accel", ulc_accel_default_mps2),
    KIT_FIELD("ulc.decel", ulc_decel_default_mps2),
    KIT_FIELD("ulc.jerk", ulc_jerk_default_mps3),
    KIT_FIELD("ulc.kp", ulc_kp_per_s),
    KIT_FIELD("ulc.ki", ulc_ki_per_s2),
    KIT_FIELD("ulc.accelLoop", ulc_accel_loop_per_s),
    KIT_FIELD("ulc.accelFull", ulc_accel_full_mps2),
    KIT_FIELD("commsLoss.decel", comms_loss_decel_mps2),
    KIT_FIELD("commsLoss.holdBar", comms_loss_hold_bar),
    KIT_FIELD("commsLoss.holdTime", comms_loss_hold_s),
    KIT_FIELD("sensors.imuAccelNoise", imu_accel_noise_mps2),
    KIT_FIELD("sensors.imuGyroNoise", imu_gyro_noise_radps),
    KIT_FIELD("sensors.gnssNoise", gnss_noise_m),
    KIT_FIELD("sensors.gnssDropout", gnss_dropout),
};

#define N_KIT_FIELDS (sizeof kit_fields / sizeof kit_fields[0])

/* Each default rate limit and the actuator's own that bounds it. */
static const char *const kit_pairs[][2] = {
    {"dbw.steering.rate", "dbw.steering.rateMax"},
    {"dbw.steering.accel", "dbw.steering.accelMax"},
    {"dbw.brake.rate", "dbw.brake.rateMax"},
};

/* The kit's keys as describe gives them. */
typedef struct kit_key {
    char path[64];
    char unit[16];
    double min;
    double max;
    char default_text[40];
} kit_key;

typedef struct kit_keys {
    kit_key k[64];
    size_t n;
} kit_keys;

static void collect_kit_key(const char *path, const char *unit, double min, double max,
                            const char *default_text, const char *description, void *ud)
{
    kit_keys *l = ud;
    (void)description;
    if (strncmp(path, "dbw.", 4) != 0) {
        return;
    }
    ck_assert_uint_lt(l->n, sizeof l->k / sizeof l->k[0]);
    kit_key *k = &l->k[l->n++];
    snprintf(k->path, sizeof k->path, "%s", path);
    snprintf(k->unit, sizeof k->unit, "%s", unit);
    k->min = min;
    k->max = max;
    snprintf(k->default_text, sizeof k->default_text, "%s", default_text);
}

static double kit_get(const pdk_dbw_def *k, size_t offset)
{
    double v;
    memcpy(&v, (const char *)k + offset, sizeof v);
    return v;
}

static void kit_set(pdk_dbw_def *k, size_t offset, double v)
{
    memcpy((char *)k + offset, &v, sizeof v);
}

/* The field a number key of the kit lands in; fails for any other key. */
static const kit_field *kit_field_of(const char *key)
{
    for (size_t i = 0; i < N_KIT_FIELDS; i++) {
        if (strcmp(kit_fields[i].key, key) == 0) {
            return &kit_fields[i];
        }
    }
    ck_abort_msg("%s is not in kit_fields", key);
    return NULL;
}

/* Overrides that set key to v and keep the rules between keys: its pair's
 * other end along where it would cross, and the brakes' full scale at its
 * top so every pressure the kit holds fits under it. */
static void kit_overrides(const char *key, double v, char *out, size_t len)
{
    const pdk_dbw_def d = pdk_dbw_def_default();
    int n = snprintf(out, len, "brakes.maxLineBar=500;%s=%.17g", key, v);
    for (size_t i = 0; i < sizeof kit_pairs / sizeof kit_pairs[0]; i++) {
        if (strcmp(key, kit_pairs[i][0]) == 0 &&
            v > kit_get(&d, kit_field_of(kit_pairs[i][1])->offset)) {
            n += snprintf(out + n, len - (size_t)n, ";%s=%.17g", kit_pairs[i][1], v);
        }
        if (strcmp(key, kit_pairs[i][1]) == 0 &&
            v < kit_get(&d, kit_field_of(kit_pairs[i][0])->offset)) {
            n += snprintf(out + n, len - (size_t)n, ";%s=%.17g", kit_pairs[i][0], v);
        }
    }
    ck_assert_int_lt(n, (int)len);
}

/* Every key of the kit: its bounds are taken at either end, into the field
 * its name says, and refused just beyond with the key and the bound
 * named; the schema's bounds are sim's (the same resolve runs
 * pdk_dbw_def_problem), and every key is every kind's, with the passenger
 * car's kit as its default. */
START_TEST(the_kits_keys_are_bounded_and_named)
{
    kit_keys keys = {0};
    pdk_params_describe(PDK_PRESET_VEHICLE, collect_kit_key, &keys);
    ck_assert_uint_eq(keys.n, N_KIT_FIELDS + 1);
    const pdk_dbw_def dflt = pdk_dbw_def_default();
    char err[PDK_PARAMS_ERR_LEN];
    char over[256];
    char want[512];
    size_t numbers = 0;
    for (size_t i = 0; i < keys.n; i++) {
        const kit_key *k = &keys.k[i];
        if (strcmp(k->unit, "bool") == 0) {
            ck_assert_str_eq(k->path, "dbw.lockout.reverse");
            ck_assert_str_eq(k->default_text, "false");
            continue;
        }
        numbers++;
        const kit_field *f = kit_field_of(k->path);
        ck_assert_double_eq(strtod(k->default_text, NULL), kit_get(&dflt, f->offset));
        for (int end = 0; end < 2; end++) {
            const double at = end == 0 ? k->min : k->max;
            pdk_vehicle_def d;
            kit_overrides(k->path, at, over, sizeof over);
            ck_assert_msg(pdk_params_vehicle_parse("{}", "test.json", over, &d, NULL, err,
                                                   sizeof err) == PDK_OK,
                          "%s: %s", over, err);
            ck_assert_double_eq(kit_get(&d.dbw, f->offset), at);
            const double beyond =
                end == 0 ? at - fmax(1e-6, fabs(at) * 1e-6) : at + fmax(1e-6, fabs(at) * 1e-6);
            snprintf(over, sizeof over, "%s=%.17g", k->path, beyond);
            const char *m = vparse_expect("{}", over, PDK_ERR_OUT_OF_RANGE);
            /* Bounds are written with 15 digits, the value beyond with
             * as many as it needs. */
            snprintf(want, sizeof want, "override '%s': %s: ", over, k->path);
            ASSERT_HAS(m, want);
            snprintf(want, sizeof want, " is %s the %s %.15g (%s)", end == 0 ? "below" : "above",
                     end == 0 ? "minimum" : "maximum", at, k->unit);
            ASSERT_HAS(m, want);
        }
    }
    ck_assert_uint_eq(numbers, N_KIT_FIELDS);

    /* Of a lumped, a utv and a geared vehicle alike. */
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "traffic_sedan", "dbw.ulc.kp=2", &d, NULL, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.dbw.ulc_kp_per_s, 2);
    polaris_expect("dbw.ulc.kp=2", PDK_OK);
    hatch_expect("dbw.ulc.kp=2", PDK_OK);

    /* Type, name and provenance, as any key's. */
    const char *m = vparse_expect("{}", "dbw.steering.rate=fast", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "override 'dbw.steering.rate=fast': dbw.steering.rate: expected a number, got "
                  "string \"fast\"");
    m = vparse_expect("{}", "dbw.lockout.reverse=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "dbw.lockout.reverse: expected true or false, got number");
    m = vparse_expect("{}", "dbw.steering.rat=500", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "dbw.steering.rat: unknown key (did you mean dbw.steering.rate?)");
    m = vparse_expect("{\"dbw\":{\"ulc\":{\"jerk\":{\"value\":30,\"basis\":\"dataspeed\"}}}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: dbw.ulc.jerk: 30 is above the maximum 25 (m/s^3)");
    m = vparse_expect("{\"dbw\":{\"ulc\":{\"jerk\":{\"value\":5,\"basis\":\"kit\"}}}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: dbw.ulc.jerk: basis \"kit\" is not one of oem, dataspeed");
    m = vparse_expect("{\"dbw\":{\"steering\":{\"delay\":0.3}}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: dbw.steering.delay: 0.3 is above the maximum 0.25 (s)");
}
END_TEST

/* sim's own check (pdk_dbw_def_problem, run by pdk_vehicle_def_check)
 * refuses each field just beyond the bounds the schema gives, and a NaN,
 * with a sentence that starts with the field's key; a default rate above
 * the actuator's own, and a reverse lockout that is neither 0 nor 1. The
 * kits sim ships pass. */
START_TEST(sims_kit_check_names_each_key)
{
    kit_keys keys = {0};
    pdk_params_describe(PDK_PRESET_VEHICLE, collect_kit_key, &keys);
    const pdk_dbw_def dflt = pdk_dbw_def_default();
    const pdk_dbw_def polaris = pdk_dbw_def_polaris();
    ck_assert_ptr_null(pdk_dbw_def_problem(&dflt));
    ck_assert_ptr_null(pdk_dbw_def_problem(&polaris));
    char start[80];
    for (size_t i = 0; i < keys.n; i++) {
        const kit_key *k = &keys.k[i];
        if (strcmp(k->unit, "bool") == 0) {
            continue;
        }
        const kit_field *f = kit_field_of(k->path);
        snprintf(start, sizeof start, "%s must be", k->path);
        const double bad[] = {k->min - fmax(1e-6, fabs(k->min) * 1e-6),
                              k->max + fmax(1e-6, fabs(k->max) * 1e-6), NAN, INFINITY};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            pdk_dbw_def kit = dflt;
            kit_set(&kit, f->offset, bad[b]);
            const char *why = pdk_dbw_def_problem(&kit);
            ck_assert_msg(why != NULL && strncmp(why, start, strlen(start)) == 0, "%s = %g: %s",
                          k->path, bad[b], why != NULL ? why : "(accepted)");
        }
    }
    pdk_dbw_def kit = dflt;
    kit.lockout_reverse = 2;
    ck_assert_str_eq(pdk_dbw_def_problem(&kit), "dbw.lockout.reverse must be 0 or 1");
    for (size_t i = 0; i < sizeof kit_pairs / sizeof kit_pairs[0]; i++) {
        kit = dflt;
        const size_t lo = kit_field_of(kit_pairs[i][0])->offset;
        const size_t hi = kit_field_of(kit_pairs[i][1])->offset;
        kit_set(&kit, hi, kit_get(&kit, lo) - 1.0);
        snprintf(start, sizeof start, "%s must be at most %s", kit_pairs[i][0], kit_pairs[i][1]);
        ASSERT_HAS(pdk_dbw_def_problem(&kit), start);
    }
    /* Wired into the vehicle's check. */
    pdk_vehicle_def v = pdk_vehicle_def_default();
    v.dbw.gnss_dropout = 1.5;
    ck_assert_int_eq(pdk_vehicle_def_check(&v), PDK_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(pdk_vehicle_def_problem(&v), "dbw.sensors.gnssDropout must be within 0..1");
}
END_TEST

/* The rules between keys, with the values: a default rate limit within the
 * actuator's own, and the pressures the kit reads or holds within the
 * brakes' full scale (the Polaris' 80 bar), an override below it. */
START_TEST(the_kits_rules_name_both_keys)
{
    const char *m =
        hatch_expect("dbw.steering.rate=500;dbw.steering.rateMax=400", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "vehicle preset \"compact_hatch\" with its overrides: "
                  "dbw.steering.rate (500 deg/s) must be "
                  "at most dbw.steering.rateMax (400 deg/s)");
    m = hatch_expect("dbw.steering.accelMax=1000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "dbw.steering.accel (2000 deg/s^2) must be at most dbw.steering.accelMax (1000 "
                  "deg/s^2)");
    m = hatch_expect("dbw.brake.rate=500", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "dbw.brake.rate (500 bar/s) must be at most dbw.brake.rateMax (400 bar/s)");
    m = polaris_expect("dbw.brake.overrideBar=80", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "vehicle preset \"polaris_ranger\" with its overrides: "
                  "dbw.brake.overrideBar (80 bar) must be "
                  "less than brakes.maxLineBar (80 bar)");
    m = polaris_expect("dbw.gear.brakeHoldBar=90", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "dbw.gear.brakeHoldBar (90 bar) must be at most brakes.maxLineBar (80 bar)");
    m = polaris_expect("dbw.commsLoss.holdBar=81", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "dbw.commsLoss.holdBar (81 bar) must be at most brakes.maxLineBar (80 bar)");
    /* The full scale moved under a kit that held within it. */
    m = polaris_expect("brakes.maxLineBar=15", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "dbw.commsLoss.holdBar (20 bar) must be at most brakes.maxLineBar (15 bar)");
    polaris_expect("dbw.steering.rate=1016;dbw.commsLoss.holdBar=80;dbw.gear.brakeHoldBar=80",
                   PDK_OK);
}
END_TEST

/* The Polaris preset resolves to sim's pdk_dbw_def_polaris() field by field
 * and gives every key of the kit as a provenance object with its basis: the
 * Polaris model's gear rule, the kit's command ranges as dataspeed, values
 * derived from the UTV's own numbers, estimates with a range. */
START_TEST(the_utvs_kit_is_seed_003s)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger", NULL, &d, NULL, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    pdk_vehicle_def ref = d;
    ref.dbw = pdk_dbw_def_polaris();
    const pdk_vehicle_def *a = &d;
    const pdk_vehicle_def *b = &ref;
    DBW_FIELDS(SAME_FIELD, dbw)
    ck_assert_double_eq(d.dbw.gear_max_speed_mps, d.powertrain.gearbox.shift_below_mps);
    ck_assert_double_eq(d.dbw.gear_shift_s, d.powertrain.gearbox.shift_time_s);
    ck_assert_double_eq(d.dbw.steer_rate_max_degps, 1016);
    ck_assert_double_eq(d.dbw.steer_accel_max_degps2, 25400);

    json_error_t jerr;
    json_t *file = json_load_file(PRESETS "/vehicles/polaris_ranger.json", 0, &jerr);
    ck_assert_msg(file != NULL, "%s", jerr.text);
    kit_keys keys = {0};
    pdk_params_describe(PDK_PRESET_VEHICLE, collect_kit_key, &keys);
    /* The keys whose basis is not estimate; an estimate has a range. */
    char others[512] = "";
    for (size_t i = 0; i < keys.n; i++) {
        json_t *at = file;
        char path[64];
        snprintf(path, sizeof path, "%s", keys.k[i].path);
        char *save = NULL;
        for (char *tok = strtok_r(path, ".", &save); tok != NULL && at != NULL;
             tok = strtok_r(NULL, ".", &save)) {
            at = json_object_get(at, tok);
        }
        ck_assert_msg(json_is_object(at), "polaris_ranger.json lacks %s", keys.k[i].path);
        const char *basis = json_string_value(json_object_get(at, "basis"));
        ck_assert_msg(basis != NULL && json_object_get(at, "source") != NULL,
                      "%s has no basis or source", keys.k[i].path);
        if (strcmp(basis, "estimate") != 0) {
            size_t used = strlen(others);
            snprintf(others + used, sizeof others - used, " %s %s;", keys.k[i].path, basis);
        } else if (strcmp(keys.k[i].unit, "bool") != 0) {
            ck_assert_msg(json_is_array(json_object_get(at, "range")),
                          "the estimate %s has no range", keys.k[i].path);
        }
    }
    json_decref(file);
    ck_assert_str_eq(others, " dbw.steering.rateMax dataspeed; dbw.steering.accelMax dataspeed;"
                             " dbw.brake.decelMax derived; dbw.ulc.accelLoop derived;"
                             " dbw.ulc.accelFull derived;");
}
END_TEST

/* Each shipped preset's kit is the passenger car's but for the keys its
 * file gives, and its full-scale deceleration is its own brakes' force at
 * brakes.maxLineBar over its mass (to the file's rounding). */
START_TEST(the_shipped_kits_fit_their_vehicles)
{
    static const char *const names[] = {"compact_hatch", "midsize_sedan", "sports_car",
                                        "open_wheeler",  "kart",          "pickup4x4",
                                        "traffic_sedan", "ref1_sedan",    "polaris_ranger"};
    const pdk_dbw_def dflt = pdk_dbw_def_default();
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        pdk_vehicle_def d;
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, names[n], NULL, &d, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s", err);
        char path[256];
        snprintf(path, sizeof path, PRESETS "/vehicles/%s.json", names[n]);
        json_error_t jerr;
        json_t *file = json_load_file(path, 0, &jerr);
        ck_assert_msg(file != NULL, "%s", jerr.text);
        for (size_t i = 0; i < N_KIT_FIELDS; i++) {
            json_t *at = file;
            char key[64];
            snprintf(key, sizeof key, "%s", kit_fields[i].key);
            char *save = NULL;
            for (char *tok = strtok_r(key, ".", &save); tok != NULL && at != NULL;
                 tok = strtok_r(NULL, ".", &save)) {
                at = json_object_get(at, tok);
            }
            const double got = kit_get(&d.dbw, kit_fields[i].offset);
            if (at == NULL) {
                ck_assert_msg(got == kit_get(&dflt, kit_fields[i].offset),
                              "%s: %s is not the default", names[n], kit_fields[i].key);
            } else {
                ck_assert_double_eq(got, json_number_value(json_object_get(at, "value")));
            }
        }
        json_decref(file);
        double force_n;
        if (d.powertrain.kind == PDK_POWERTRAIN_LUMPED) {
            force_n = d.brake.force_per_bar_n * d.brake.max_line_bar;
        } else {
            force_n = 2.0 * d.brake.max_line_bar *
                      (d.powertrain.brake_front_nm_per_bar / d.tyre_front.law.radius_m +
                       d.powertrain.brake_rear_nm_per_bar / d.tyre_rear.law.radius_m);
        }
        ck_assert_msg(fabs(d.dbw.brake_decel_max_mps2 - force_n / d.chassis.mass_kg) < 0.005,
                      "%s: dbw.brake.decelMax %g, its brakes give %g", names[n],
                      d.dbw.brake_decel_max_mps2, force_n / d.chassis.mass_kg);
    }
}
END_TEST

/* An override of a kit's key reaches the definition and its resolved JSON,
 * which parses back to the same definition; the Polaris model's spelling sets
 * the same keys as the camelCase one, and its errors name the key. */
START_TEST(overrides_reach_the_kit_in_either_spelling)
{
    char err[PDK_PARAMS_ERR_LEN];
    char *resolved = NULL;
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          "dbw.steering.rate=500;dbw.lockout.reverse=true", &d,
                                          &resolved, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.dbw.steer_rate_degps, 500);
    ck_assert_int_eq(d.dbw.lockout_reverse, 1);
    ASSERT_HAS(resolved, "\"rate\":500");
    ASSERT_HAS(resolved, "\"reverse\":true");
    ASSERT_HAS(resolved, "\"decelMax\":15");
    assert_reparses(resolved, &d);
    free(resolved);

    pdk_vehicle_def camel;
    pdk_vehicle_def snake;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger",
                                          "dbw.steering.rate=500;dbw.commsLoss.holdBar=30;"
                                          "dbw.ulc.accelFull=3;steering.lockDeg=400",
                                          &camel, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "polaris_ranger",
                                          "dbw.steering.rate_deg_s=500;dbw.comms_loss.hold_bar=30;"
                                          "dbw.ulc.accel_full_mps2=3;dbw.steering.lock_deg=400",
                                          &snake, &resolved, err, sizeof err) == PDK_OK,
                  "%s", err);
    assert_same_vehicle(&camel, &snake);
    ck_assert_double_eq(snake.dbw.steer_rate_degps, 500);
    ck_assert_double_eq(snake.dbw.comms_loss_hold_bar, 30);
    ck_assert_double_eq(snake.steering.lock_deg, 400);
    assert_reparses(resolved, &snake);
    free(resolved);

    const char *m = polaris_expect("dbw.ulc.jerk_mps3=30", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'dbw.ulc.jerk_mps3=30': dbw.ulc.jerk: 30 is above the maximum 25 "
                  "(m/s^3)");
    m = polaris_expect("dbw.ulc.jerk_mps=5", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "dbw.ulc.jerk_mps: unknown key (did you mean dbw.ulc.jerk_mps3?)");
    m = vparse_expect("{\"dbw\":{\"steering\":{\"rate_deg_s\":500}}}", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "test.json: dbw.steering.rate_deg_s: unknown key");
}
END_TEST

/* ---- file errors ----------------------------------------------------------- */

static Suite *params_kinds_suite(void)
{
    Suite *s = suite_create("params_kinds");
    TCase *tc = tcase_create("kinds");
    tcase_add_test(tc, a_kinds_keys_apply_to_that_kind_only);
    tcase_add_test(tc, a_utvs_keys_are_bounded);
    tcase_add_test(tc, a_geared_car_without_keys_of_its_own);
    tcase_add_test(tc, a_geared_cars_keys_are_bounded);
    tcase_add_test(tc, a_cars_payload_is_checked);
    tcase_add_test(tc, overrides_take_seed_003s_names);
    suite_add_tcase(s, tc);
    TCase *kit = tcase_create("dbw");
    tcase_add_test(kit, the_kits_keys_are_bounded_and_named);
    tcase_add_test(kit, sims_kit_check_names_each_key);
    tcase_add_test(kit, the_kits_rules_name_both_keys);
    tcase_add_test(kit, the_utvs_kit_is_seed_003s);
    tcase_add_test(kit, the_shipped_kits_fit_their_vehicles);
    tcase_add_test(kit, overrides_reach_the_kit_in_either_spelling);
    suite_add_tcase(s, kit);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(params_kinds_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
