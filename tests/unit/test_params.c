/* Unit tests of params/: vehicle and world presets, overrides, the resolved
 * JSON round trip, listing and describing, and every shipped preset. */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- a temporary presets folder ---------------------------------------- */

static char tmp_dir[64];

static void make_tmp(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/pdk-params-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/vehicles", tmp_dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof sub, "%s/worlds", tmp_dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tmp(void)
{
    nftw(tmp_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, rel);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

/* Loads tmp_dir/vehicles/<name>.json, expecting code; returns the message. */
static const char *vehicle_expect(const char *name, const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *resolved = (char *)"untouched";
    err[0] = '\0';
    pdk_error rc =
        pdk_params_vehicle_load(tmp_dir, name, overrides, &def, &resolved, err, sizeof err);
    ck_assert_msg(rc == code, "expected %s, got %s: %s", pdk_error_name(code), pdk_error_name(rc),
                  err);
    if (rc != PDK_OK) {
        ck_assert_ptr_null(resolved);
        ck_assert_msg(err[0] != '\0', "no message for %s", pdk_error_name(rc));
    }
    free(rc == PDK_OK ? resolved : NULL);
    return err;
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

/* ---- defaults, resolved JSON and the round trip ------------------------- */

/* Number of leaves in a JSON object tree. */
static size_t count_leaves(const json_t *obj)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        n += json_is_object(v) ? count_leaves(v) : 1;
    }
    return n;
}

#define MAX_KEYS 128

typedef struct key_list {
    char paths[MAX_KEYS][64];
    char units[MAX_KEYS][16];
    double min[MAX_KEYS];
    double max[MAX_KEYS];
    char defaults[MAX_KEYS][40];
    size_t n;
} key_list;

static void collect_key(const char *path, const char *unit, double min, double max,
                        const char *default_text, const char *description, void *ud)
{
    key_list *l = ud;
    ck_assert_uint_lt(l->n, MAX_KEYS);
    ck_assert_ptr_nonnull(description);
    ck_assert_msg(strlen(description) > 10, "%s has no real description", path);
    snprintf(l->paths[l->n], sizeof l->paths[0], "%s", path);
    snprintf(l->units[l->n], sizeof l->units[0], "%s", unit);
    snprintf(l->defaults[l->n], sizeof l->defaults[0], "%s", default_text);
    l->min[l->n] = min;
    l->max[l->n] = max;
    l->n++;
}

/* The value at a dotted path of a JSON object tree. */
static json_t *json_at(json_t *root, const char *dotted)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    json_t *cur = root;
    for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok != NULL && cur != NULL;
         tok = strtok_r(NULL, ".", &save)) {
        cur = json_object_get(cur, tok);
    }
    return cur;
}

START_TEST(empty_vehicle_is_the_default_and_resolves_every_key)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *resolved = NULL;
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{}", "empty", NULL, &def, &resolved, err, sizeof err), PDK_OK);
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    /* Unconverted fields are the default's bits; km/h and kW ones may be
     * re-expressed through the preset unit, so within an ulp or two. */
    ck_assert_int_eq(def.model, ref.model);
    ck_assert(def.chassis.mass_kg == ref.chassis.mass_kg);
    ck_assert(def.chassis.wheelbase_m == ref.chassis.wheelbase_m);
    ck_assert(def.steering.lock_deg == ref.steering.lock_deg);
    ck_assert(def.brake.max_line_bar == ref.brake.max_line_bar);
    ck_assert_double_eq_tol(def.drive.max_power_w, ref.drive.max_power_w,
                            1e-12 * ref.drive.max_power_w);
    ck_assert_double_eq_tol(def.drive.max_reverse_speed_mps, ref.drive.max_reverse_speed_mps,
                            1e-12 * ref.drive.max_reverse_speed_mps);

    key_list keys = {0};
    pdk_params_describe(PDK_PRESET_VEHICLE, collect_key, &keys);
    json_error_t jerr;
    json_t *doc = json_loads(resolved, 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(count_leaves(doc), keys.n);
    for (size_t i = 0; i < keys.n; i++) {
        ck_assert_msg(json_at(doc, keys.paths[i]) != NULL, "resolved JSON lacks %s", keys.paths[i]);
    }
    /* A preset that leaves the model out gets the four-wheel model. */
    ck_assert_int_eq(def.model, PDK_MODEL_FOUR_WHEEL);
    ck_assert_str_eq(json_string_value(json_at(doc, "simulation.model")), "fourWheel");
    ck_assert_str_eq(json_string_value(json_at(doc, "suspension.rear.kind")), "independent");
    ck_assert(json_is_array(json_at(doc, "suspension.front.kinematics.toeDeg")));
    ck_assert_uint_eq(json_array_size(json_at(doc, "suspension.front.kinematics.toeDeg")), 0);
    ck_assert_str_eq(json_string_value(json_at(doc, "description")), "");
    ck_assert_double_eq(json_number_value(json_at(doc, "drive.maxPowerKw")) * 1000,
                        def.drive.max_power_w);
    json_decref(doc);

    /* Defaults round-trip too, converted keys included. */
    pdk_vehicle_def again;
    ck_assert_int_eq(
        pdk_params_vehicle_parse(resolved, "resolved", NULL, &again, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&def, &again);
    free(resolved);

    pdk_world_def w;
    pdk_world_def w2;
    ck_assert_int_eq(pdk_params_world_parse("{}", "empty", NULL, &w, &resolved, err, sizeof err),
                     PDK_OK);
    pdk_world_def wref = pdk_world_def_default();
    assert_same_world(&w, &wref);
    ck_assert_int_eq(pdk_params_world_parse(resolved, "resolved", NULL, &w2, NULL, err, sizeof err),
                     PDK_OK);
    assert_same_world(&w, &w2);
    free(resolved);
}
END_TEST

START_TEST(resolved_json_is_canonical_and_round_trips_bit_exactly)
{
    char err[PDK_PARAMS_ERR_LEN];
    /* Values whose conversion to SI is inexact in binary, in every
     * converted key, plus a long mantissa. */
    const char *ov = "chassis.mass=1234.5678901234567; drive.maxPowerKw=123.456789;"
                     "drive.maxReverseSpeedKmh=17.3; drive.maxLowSpeedKmh=33.333333333333336;"
                     "resistance.dragArea=0.1;description=\"round; trip\"";
    pdk_vehicle_def a;
    char *ra = NULL;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan", ov, &a, &ra, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    ck_assert_double_eq(a.chassis.mass_kg, 1234.5678901234567);
    ck_assert_double_eq(a.drive.max_reverse_speed_mps, 17.3 / 3.6);
    pdk_vehicle_def b;
    char *rb = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(ra, "resolved", NULL, &b, &rb, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    assert_same_vehicle(&a, &b);
    ck_assert_str_eq(ra, rb);
    /* Canonical: compact, sorted keys at every level. */
    ck_assert_ptr_null(strchr(ra, '\n'));
    ck_assert_ptr_null(strstr(ra, ": "));
    ck_assert_msg(strncmp(ra, "{\"brakes\":{", 11) == 0, "%s", ra);
    ASSERT_HAS(ra, "\"description\":\"round; trip\"");
    free(ra);
    free(rb);

    /* Many values of a converted key: parse(resolve(x)) is x to the bit. */
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 2000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double kmh = 1.0 + (double)(s >> 11) * 0x1p-53 * 99.0;
        double kw = (double)(s >> 11) * 0x1p-53 * 5000.0;
        char o[160];
        snprintf(o, sizeof o, "drive.maxReverseSpeedKmh=%.17g;drive.maxPowerKw=%.17g", kmh, kw);
        ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x", o, &a, &ra, err, sizeof err), PDK_OK);
        ck_assert_int_eq(pdk_params_vehicle_parse(ra, "x", NULL, &b, NULL, err, sizeof err),
                         PDK_OK);
        assert_same_vehicle(&a, &b);
        free(ra);
    }
}
END_TEST

START_TEST(world_round_trip_and_fixed_dt)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def a;
    pdk_world_def b;
    char *ra = NULL;
    ck_assert_msg(pdk_params_world_load(PRESETS, "flat", "seed=9007199254740993;substeps=8", &a,
                                        &ra, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_uint_eq(a.seed, 9007199254740993u);
    ck_assert_int_eq(a.substeps, 8);
    ck_assert(a.dt_s == 1.0 / 120.0);
    ck_assert_int_eq(pdk_params_world_parse(ra, "resolved", NULL, &b, NULL, err, sizeof err),
                     PDK_OK);
    assert_same_world(&a, &b);
    ASSERT_HAS(ra, "\"seed\":9007199254740993");
    ASSERT_HAS(ra, "\"substeps\":8");
    ck_assert_ptr_null(strstr(ra, "dt"));
    free(ra);
}
END_TEST

/* ---- overrides ----------------------------------------------------------- */

START_TEST(overrides_take_precedence_in_order)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def base;
    pdk_vehicle_def def;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "midsize_sedan", NULL, &base, NULL, err, sizeof err),
        PDK_OK);
    pdk_vehicle_def same;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "midsize_sedan", "  ; ", &same, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&base, &same);
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "midsize_sedan", "", &same, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&base, &same);

    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          " chassis.mass = 1600 ;chassis.mass=1700;"
                                          "simulation.model=singleTrack;"
                                          "tyres.front={\"friction\":0.9};steering.ratio=14",
                                          &def, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(def.chassis.mass_kg, 1700);
    ck_assert_double_eq(def.tyre_front.friction_coeff, 0.9);
    /* An object override merges: the file's stiffness stays. */
    ck_assert_double_eq(def.tyre_front.cornering_stiffness_n_per_rad,
                        base.tyre_front.cornering_stiffness_n_per_rad);
    ck_assert_double_eq(def.steering.ratio, 14);
    ck_assert_double_eq(def.chassis.wheelbase_m, base.chassis.wheelbase_m);
    ck_assert_int_eq(def.model, PDK_MODEL_SINGLE_TRACK);

    /* Overrides fill keys the file leaves out, converted like file values. */
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{\"chassis\":{\"mass\":900}}", "t",
                                 "drive.maxPowerKw=50;simulation.model=\"singleTrack\"", &def, NULL,
                                 err, sizeof err),
        PDK_OK);
    ck_assert_double_eq(def.chassis.mass_kg, 900);
    ck_assert_double_eq(def.drive.max_power_w, 50000);
}
END_TEST

START_TEST(override_errors_name_the_override)
{
    const char *m;
    m = vparse_expect("{}", "chassis.mass=abc", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "override 'chassis.mass=abc'");
    ASSERT_HAS(m, "chassis.mass: expected a number, got string");

    m = vparse_expect("{}", "chassis.mass=10", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'chassis.mass=10': chassis.mass: 10 is below the minimum 50 (kg)");

    m = vparse_expect("{}", "steering.ratio=1;chassis.mas=1500", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "override 'chassis.mas=1500': chassis.mas: unknown key (did you mean "
                  "chassis.mass?)");

    m = vparse_expect("{}", "engine.idleRpm=800", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "engine: unknown key (known keys: description, simulation, chassis");

    m = vparse_expect("{}", "chassis.mass.x=1", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "chassis.mass.x: unknown key");

    m = vparse_expect("{}", "chassis.mass[3]=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "override 'chassis.mass[3]=1': chassis.mass[3]: chassis.mass is a single value, "
                  "not an array");
    m = vparse_expect("{}", "tyres[0].friction=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres[0]: tyres is an object, not an array");

    m = vparse_expect("{}", "chassis.mass 1500", PDK_ERR_PARSE);
    ASSERT_HAS(m, "override 'chassis.mass 1500': expected key=value");
    m = vparse_expect("{}", "chassis.mass=1500; =3", PDK_ERR_PARSE);
    ASSERT_HAS(m, "override '=3': empty key");
    m = vparse_expect("{}", "chassis.mass[x]=5", PDK_ERR_PARSE);
    ASSERT_HAS(m, "override 'chassis.mass[x]=5': bad index");
    m = vparse_expect("{}", "chassis.mass[2=5", PDK_ERR_PARSE);
    ASSERT_HAS(m, "bad index");
    m = vparse_expect("{}", "chassis..mass=5", PDK_ERR_PARSE);
    ASSERT_HAS(m, "override 'chassis..mass=5': empty name");
    m = vparse_expect("{}", "chassis.=5", PDK_ERR_PARSE);
    ASSERT_HAS(m, "ends with '.'");
    m = vparse_expect("{}", "tyres.front={\"friction\":", PDK_ERR_PARSE);
    ASSERT_HAS(m, "value is not valid JSON");

    m = vparse_expect("{}", "simulation.model=bicycle", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "simulation.model: \"bicycle\" is not a vehicle model (allowed: "
                  "\"fourWheel\", \"singleTrack\")");
    m = vparse_expect("{}", "tyres.front={\"friction\":\"high\"}", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front.friction: expected a number, got string");
    m = vparse_expect("{}", "tyres.front={\"grip\":1}", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "tyres.front.grip: unknown key");
    m = vparse_expect("{}", "chassis=5", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "chassis: expected an object, got number");
    m = vparse_expect("{}", "description=true", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "description: expected a string, got boolean");

    /* A valid file value is still refused when the override is bad, and the
     * file's value does not hide an override's error. */
    m = vparse_expect("{\"chassis\":{\"mass\":1500}}", "chassis.mass=-1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "-1 is below the minimum 50 (kg)");
}
END_TEST

/* What an override's value or key cannot be, and how the message says it. */
START_TEST(override_values_and_keys_at_their_limits)
{
    const char *m;
    /* A wrong-typed word is quoted, so "nan" reads as what it is. */
    m = vparse_expect("{}", "chassis.mass=nan", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "override 'chassis.mass=nan': chassis.mass: expected a number, got string "
                  "\"nan\"");
    /* Text that is a number's characters but no JSON number is refused with
     * the reason, not taken as a word. */
    m = vparse_expect("{}", "chassis.mass=1e999", PDK_ERR_PARSE);
    ASSERT_HAS(m, "override 'chassis.mass=1e999': value '1e999' is not a valid JSON number: real "
                  "number overflow");
    m = vparse_expect("{}", "chassis.mass=.5", PDK_ERR_PARSE);
    ASSERT_HAS(m, "value '.5' is not a valid JSON number");
    /* A word with a digit in it is still a word. */
    vparse_expect("{}", "description=2 doors", PDK_OK);
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def w;
    ck_assert_int_eq(pdk_params_world_parse("{}", "w.json", "seed=18446744073709551615", &w, NULL,
                                            err, sizeof err),
                     PDK_ERR_PARSE);
    ASSERT_HAS(err, "value '18446744073709551615' is not a valid JSON number: too big integer");
    /* Integer keys: a real is shown as one, other types by name. */
    ck_assert_int_eq(
        pdk_params_world_parse("{}", "w.json", "substeps=2.0", &w, NULL, err, sizeof err),
        PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "override 'substeps=2.0': substeps: expected an integer, got 2.0");
    ck_assert_int_eq(
        pdk_params_world_parse("{}", "w.json", "maxVehicles=true", &w, NULL, err, sizeof err),
        PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "maxVehicles: expected an integer, got boolean");
    /* A bare value that is not UTF-8. */
    m = vparse_expect("{}", "description=\xff\xfe", PDK_ERR_PARSE);
    ASSERT_HAS(m, "value is not valid UTF-8 text");

    /* Keys: a name of at most 64 characters, at most 16 parts, indices up
     * to a million, ASCII names. */
    char key[200];
    memset(key, 'a', 65);
    snprintf(key + 65, sizeof key - 65, "=1");
    m = vparse_expect("{}", key, PDK_ERR_PARSE);
    ASSERT_HAS(m, "a name in the key is longer than 64 characters");
    m = vparse_expect("{}", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q=1", PDK_ERR_PARSE);
    ASSERT_HAS(m, "key has more than 16 parts");
    m = vparse_expect("{}",
                      "suspension.front.kinematics.toeDeg[1][1][1][1][1][1][1][1][1][1][1][1]"
                      "[1]=1",
                      PDK_ERR_PARSE);
    ASSERT_HAS(m, "key has more than 16 parts");
    m = vparse_expect("{}", "suspension.front.kinematics.toeDeg[1000001]=[0,0]", PDK_ERR_PARSE);
    ASSERT_HAS(m, "index at character 35 is larger than 1000000");
    m = vparse_expect("{}", "suspension.front.kinematics.toeDeg[1000000]=[0,0]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "index 1000000 is past the end of suspension.front.kinematics.toeDeg, which has 0 "
               "entries");
    m = vparse_expect("{}", "suspension.front.kinematics.toeDeg[-1]=[0,0]", PDK_ERR_PARSE);
    ASSERT_HAS(m, "bad index at character 35");
    m = vparse_expect("{}", "chassis.mass]=1", PDK_ERR_PARSE);
    ASSERT_HAS(m, "unexpected ']' at character 13 of the key");
    m = vparse_expect("{}", "chassis.m\xc3\xa4ss=1", PDK_ERR_PARSE);
    ASSERT_HAS(m, "unexpected byte 0xC3 at character 10 of the key (names are ASCII letters");
}
END_TEST

/* Every byte of a message is printable UTF-8, whatever the input held: a
 * control character in a key, and a character cut in two by a %.64s. */
static bool printable_utf8(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    for (; *s != '\0'; s++) {
        if (*s < 0x20 || *s == 0x7f) {
            return false;
        }
        if (*s >= 0x80) {
            size_t n = (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 : 4;
            for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) {
                    return false;
                }
            }
            s += n - 1;
        }
    }
    return true;
}

START_TEST(messages_are_printable_utf8)
{
    const char *m;
    m = vparse_expect("{\"chassis\":{\"m\\u00e4\\u0001ss\":1}}", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "test.json: chassis.m\xc3\xa4?ss: unknown key");
    ck_assert_msg(printable_utf8(m), "%s", m);
    /* 63 ASCII letters and an a-umlaut: the quote stops after its first
     * byte, which becomes '?'. */
    char ov[160];
    memset(ov, 0, sizeof ov);
    strcpy(ov, "suspension.rear.kind=");
    memset(ov + strlen(ov), 'x', 63);
    strcat(ov, "\xc3\xa4");
    m = vparse_expect("{}", ov, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "xxx?\" is not an axle kind");
    ck_assert_msg(printable_utf8(m), "%s", m);
    /* A file that is not UTF-8: jansson quotes the bad bytes. */
    m = vparse_expect("{\"chassis\":{\"mass\":\"\xff\xfe\"}}", NULL, PDK_ERR_PARSE);
    ck_assert_msg(printable_utf8(m), "%s", m);
    /* A message cut by a small buffer mid-character. */
    char err[40];
    pdk_vehicle_def def;
    ck_assert_int_eq(pdk_params_vehicle_parse("{\"chassis\":{\"mass\":1}}",
                                              "\xc3\xa4\xc3\xa4\xc3\xa4.json", NULL, &def, NULL,
                                              err, 6),
                     PDK_ERR_OUT_OF_RANGE);
    ck_assert_str_eq(err, "\xc3\xa4\xc3\xa4?");
}
END_TEST

START_TEST(cross_field_invariants_name_both_fields)
{
    const char *m;
    m = vparse_expect("{\"chassis\":{\"wheelbase\":2.7,\"cgToFrontAxle\":2.7}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: chassis.cgToFrontAxle (2.7 m) must be less than chassis.wheelbase "
                  "(2.7 m)");
    /* Each value alone is fine; the override makes the pair invalid. */
    m = vparse_expect("{\"chassis\":{\"wheelbase\":2.7,\"cgToFrontAxle\":1.2}}",
                      "chassis.wheelbase=1.0", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.cgToFrontAxle (1.2 m) must be less than chassis.wheelbase (1 m)");
    m = vparse_expect("{\"steering\":{\"ratio\":10}}", "steering.lockDeg=900",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: steering.lockDeg / steering.ratio = 900 / 10 "
                  "gives a road-wheel lock "
                  "of 90.0 deg; it must be below 80 deg");
    /* 79 deg is a lock the single-track model takes; the four-wheel model's
     * inner wheel would pass 80 deg with Ackermann (below). */
    vparse_expect("{\"steering\":{\"ratio\":10}}",
                  "steering.lockDeg=790;simulation.model=singleTrack", PDK_OK);
    /* Yaw inertia against 0.3 m a b: a 38 t vehicle with 20.4 kg m^2 (a
     * unit slip) is refused; the same pair scaled to a car passes. The
     * default geometry has a = 1.2 m, b = 1.5 m. */
    m = vparse_expect("{\"chassis\":{\"mass\":37820,\"yawInertia\":20.4}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: chassis.yawInertia (20.4 kg*m^2) must be at least 0.3 * chassis.mass "
                  "(37820 kg) * a * b = 20422.8 kg*m^2");
    ASSERT_HAS(m, "a = cgToFrontAxle and b = wheelbase - cgToFrontAxle");
    m = vparse_expect("{\"chassis\":{\"mass\":1000,\"yawInertia\":600}}", "chassis.yawInertia=500",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.yawInertia (500 kg*m^2) must be at least 0.3 * chassis.mass (1000 kg)");
    vparse_expect("{\"chassis\":{\"mass\":1000,\"yawInertia\":600}}", NULL, PDK_OK);
    /* Moving the CG changes a b: 650 is enough at a = 1.2 m (0.3 m a b =
     * 648), not with the CG midway (656). */
    vparse_expect("{\"chassis\":{\"mass\":1200,\"yawInertia\":650}}", NULL, PDK_OK);
    m = vparse_expect("{\"chassis\":{\"mass\":1200,\"yawInertia\":650}}",
                      "chassis.cgToFrontAxle=1.35", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.yawInertia (650 kg*m^2)");
}
END_TEST

/* ---- file errors ----------------------------------------------------------- */

START_TEST(file_errors_name_file_key_and_reason)
{
    make_tmp();
    char path[256];
    const char *m;

    /* Names: no traversal, no spaces, 1 to 64 characters. */
    m = vehicle_expect("../worlds/flat", NULL, PDK_ERR_INVALID_ARGUMENT);
    ASSERT_HAS(m, "preset name '../worlds/flat' is not valid");
    vehicle_expect("", NULL, PDK_ERR_INVALID_ARGUMENT);
    vehicle_expect("a b", NULL, PDK_ERR_INVALID_ARGUMENT);
    vehicle_expect(NULL, NULL, PDK_ERR_INVALID_ARGUMENT);
    char long_name[70];
    memset(long_name, 'a', 65);
    long_name[65] = '\0';
    vehicle_expect(long_name, NULL, PDK_ERR_INVALID_ARGUMENT);
    long_name[64] = '\0';
    vehicle_expect(long_name, NULL, PDK_ERR_NOT_FOUND);

    m = vehicle_expect("nope", NULL, PDK_ERR_NOT_FOUND);
    snprintf(path, sizeof path, "%s/vehicles/nope.json", tmp_dir);
    ASSERT_HAS(m, path);

    write_file("vehicles/broken.json", "{\n  \"chassis\": {\"mass\": 1500,}\n}\n");
    m = vehicle_expect("broken", NULL, PDK_ERR_PARSE);
    snprintf(path, sizeof path, "%s/vehicles/broken.json: line 2", tmp_dir);
    ASSERT_HAS(m, path);

    write_file("vehicles/dup.json", "{\"chassis\":{\"mass\":1500,\"mass\":1600}}");
    m = vehicle_expect("dup", NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "duplicate");

    write_file("vehicles/nul.json", "{}");
    {
        snprintf(path, sizeof path, "%s/vehicles/nul.json", tmp_dir);
        FILE *f = fopen(path, "ab");
        ck_assert_ptr_nonnull(f);
        fputc(0, f);
        fclose(f);
    }
    m = vehicle_expect("nul", NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "NUL");

    write_file("vehicles/array.json", "[1, 2]");
    m = vehicle_expect("array", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "array.json: expected a JSON object at the top level, got array");

    write_file("vehicles/mas.json", "{\"chassis\": {\"mas\": 1500}}");
    m = vehicle_expect("mas", NULL, PDK_ERR_UNKNOWN_KEY);
    snprintf(path, sizeof path,
             "%s/vehicles/mas.json: chassis.mas: unknown key (did you mean chassis.mass?)",
             tmp_dir);
    ASSERT_HAS(m, path);

    write_file("vehicles/far.json", "{\"chassis\": {\"springRate\": 1}}");
    m = vehicle_expect("far", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "chassis.springRate: unknown key (known keys under chassis: mass, yawInertia, "
                  "rollInertia, pitchInertia, wheelbase, cgToFrontAxle, cgHeight, trackWidth)");

    write_file("vehicles/snake.json", "{\"chassis\": {\"cg_height\": 0.5}}");
    m = vehicle_expect("snake", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "did you mean chassis.cgHeight?");

    write_file("vehicles/flatkey.json", "{\"chassis.mass\": 1500}");
    m = vehicle_expect("flatkey", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "\"chassis.mass\": unknown key (keys are plain names");

    write_file("vehicles/type.json", "{\"steering\": {\"ratio\": \"16\"}}");
    m = vehicle_expect("type", NULL, PDK_ERR_WRONG_TYPE);
    snprintf(path, sizeof path,
             "%s/vehicles/type.json: steering.ratio: expected a number, got string", tmp_dir);
    ASSERT_HAS(m, path);

    write_file("vehicles/group.json", "{\"tyres\": {\"front\": [1]}}");
    m = vehicle_expect("group", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front: expected an object, got array");

    write_file("vehicles/neg.json", "{\"chassis\": {\"mass\": -3}}");
    m = vehicle_expect("neg", NULL, PDK_ERR_OUT_OF_RANGE);
    snprintf(path, sizeof path,
             "%s/vehicles/neg.json: chassis.mass: -3 is below the minimum 50 (kg)", tmp_dir);
    ASSERT_HAS(m, path);

    write_file("vehicles/big.json", "{\"drive\": {\"maxPowerKw\": 5000.5}}");
    m = vehicle_expect("big", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "drive.maxPowerKw: 5000.5 is above the maximum 5000 (kW)");

    write_file("vehicles/model.json", "{\"simulation\": {\"model\": 1}}");
    m = vehicle_expect("model", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "simulation.model: expected a string, got number");

    {
        char text[1200];
        memset(text, 'x', sizeof text);
        memcpy(text, "{\"description\":\"", 16);
        snprintf(text + 1100, sizeof text - 1100, "\"}");
        write_file("vehicles/essay.json", text);
    }
    m = vehicle_expect("essay", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "description: text is 1084 bytes long, more than the 1000 allowed");

    /* A directory where the file should be, and a file over the size cap. */
    snprintf(path, sizeof path, "%s/vehicles/folder.json", tmp_dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    m = vehicle_expect("folder", NULL, PDK_ERR_IO);
    ASSERT_HAS(m, path);
    {
        snprintf(path, sizeof path, "%s/vehicles/huge.json", tmp_dir);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fputc('{', f);
        for (int i = 0; i < (1 << 20); i++) {
            fputc(' ', f);
        }
        fputc('}', f);
        fclose(f);
    }
    m = vehicle_expect("huge", NULL, PDK_ERR_IO);
    ASSERT_HAS(m, "huge.json: larger than the 1048576-byte limit");

    /* A good file, then its override errors still name the override. */
    write_file("vehicles/good.json", "{\"description\":\"ok\",\"chassis\":{\"mass\":1200}}");
    vehicle_expect("good", NULL, PDK_OK);
    m = vehicle_expect("good", "chassis.mass=abc", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "override 'chassis.mass=abc'");

    remove_tmp();
}
END_TEST

START_TEST(world_errors)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def def;
    ck_assert_int_eq(
        pdk_params_world_parse("{\"substeps\": 4.5}", "w.json", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "w.json: substeps: expected an integer, got 4.5");
    ck_assert_int_eq(
        pdk_params_world_parse("{\"substeps\": 0}", "w.json", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "w.json: substeps: 0 is below the minimum 1 (-)");
    ck_assert_int_eq(pdk_params_world_parse("{\"maxVehicles\": 65536}", "w.json", NULL, &def, NULL,
                                            err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "maxVehicles: 65536 is above the maximum 65535");
    ck_assert_int_eq(
        pdk_params_world_parse("{\"seed\": -1}", "w.json", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "seed: -1 is below the minimum 0");
    ck_assert_int_eq(pdk_params_world_parse("{\"gravity\": \"9.81\"}", "w.json", NULL, &def, NULL,
                                            err, sizeof err),
                     PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "gravity: expected a number, got string");
    ck_assert_int_eq(
        pdk_params_world_parse("{\"gravty\": 9.81}", "w.json", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(err, "w.json: gravty: unknown key (did you mean gravity?)");
    ck_assert_int_eq(
        pdk_params_world_parse("{}", "w.json", "surfaceFriction=0", &def, NULL, err, sizeof err),
        PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "override 'surfaceFriction=0': surfaceFriction: 0 is below the minimum 0.05");

    make_tmp();
    ck_assert_int_eq(pdk_params_world_load(tmp_dir, "moon", NULL, &def, NULL, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ASSERT_HAS(err, "/worlds/moon.json");
    ck_assert_int_eq(pdk_params_world_load(tmp_dir, "a/b", NULL, &def, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    write_file("worlds/moon.json", "{\"gravity\": 1.62, \"airDensity\": 0}");
    ck_assert_int_eq(pdk_params_world_load(tmp_dir, "moon", NULL, &def, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(def.gravity_mps2, 1.62);
    ck_assert_double_eq(def.air_density_kgpm3, 0);
    remove_tmp();
}
END_TEST

START_TEST(bad_arguments_and_small_buffers)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_vehicle_def before = def;
    ck_assert_int_eq(pdk_params_vehicle_parse(NULL, "x", NULL, &def, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x", NULL, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(
        pdk_params_vehicle_load(NULL, "midsize_sedan", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    /* Errors leave *out alone; a tiny or missing buffer is never overrun. */
    char tiny[8];
    memset(tiny, 'z', sizeof tiny);
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{\"chassis\":{\"mass\":1}}", "x", NULL, &def, NULL, tiny, 6),
        PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(tiny[5], '\0');
    ck_assert_int_eq(tiny[6], 'z');
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{\"chassis\":{\"mass\":1}}", NULL, NULL, &def, NULL, NULL, 0),
        PDK_ERR_OUT_OF_RANGE);
    assert_same_vehicle(&def, &before);
    ck_assert_int_eq(pdk_params_vehicle_parse("{\"chassis\":{\"mass\":1}}", NULL, NULL, &def, NULL,
                                              err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "(text): chassis.mass");
    /* A presets folder whose path cannot be a path. */
    static char far[5000];
    memset(far, 'd', sizeof far - 1);
    ck_assert_int_eq(
        pdk_params_vehicle_load(far, "midsize_sedan", NULL, &def, NULL, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ASSERT_HAS(err, "preset 'midsize_sedan': the presets folder path is too long");
    assert_same_vehicle(&def, &before);
}
END_TEST

/* ---- list and describe --------------------------------------------------- */

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

START_TEST(list_sorts_names_and_reads_descriptions)
{
    make_tmp();
    write_file("vehicles/b_car.json", "{\"description\": \"B car\"}");
    write_file("vehicles/a-car.json", "{\"chassis\": {\"mass\": 1000}}");
    write_file("vehicles/c_car.json", "{\"description\": ");
    write_file("vehicles/not a preset.json", "{}");
    write_file("vehicles/.hidden.json", "{}");
    write_file("vehicles/readme.txt", "not a preset");
    char path[256];
    snprintf(path, sizeof path, "%s/vehicles/d_dir.json", tmp_dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);

    listing l = {0};
    ck_assert_int_eq(pdk_params_list(tmp_dir, PDK_PRESET_VEHICLE, collect_preset, &l), PDK_OK);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_str_eq(l.names[0], "a-car");
    ck_assert_str_eq(l.descriptions[0], "");
    ck_assert_str_eq(l.names[1], "b_car");
    ck_assert_str_eq(l.descriptions[1], "B car");
    ck_assert_str_eq(l.names[2], "c_car");
    ck_assert_msg(strncmp(l.descriptions[2], "(invalid preset: c_car.json: line 1", 35) == 0, "%s",
                  l.descriptions[2]);

    listing w = {0};
    ck_assert_int_eq(pdk_params_list(tmp_dir, PDK_PRESET_WORLD, collect_preset, &w), PDK_OK);
    ck_assert_uint_eq(w.n, 0);
    remove_tmp();

    ck_assert_int_eq(pdk_params_list(tmp_dir, PDK_PRESET_VEHICLE, collect_preset, &l),
                     PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_params_list(NULL, PDK_PRESET_VEHICLE, collect_preset, &l),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, NULL, &l),
                     PDK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(describe_walks_the_schema)
{
    key_list v = {0};
    pdk_params_describe(PDK_PRESET_VEHICLE, collect_key, &v);
    /* 2 + chassis 8 + tyres 6 + steering 4 + 2 axles of 19 + drive 5 +
     * brakes 4 + resistance 2. */
    ck_assert_uint_eq(v.n, 69);
    ck_assert_str_eq(v.paths[0], "description");
    ck_assert_str_eq(v.units[0], "text");
    ck_assert(isnan(v.min[0]) && isnan(v.max[0]));
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    int seen = 0;
    for (size_t i = 0; i < v.n; i++) {
        for (size_t j = 0; j < i; j++) {
            ck_assert_str_ne(v.paths[i], v.paths[j]);
        }
        if (!isnan(v.min[i])) {
            double d = strtod(v.defaults[i], NULL);
            ck_assert_msg(d >= v.min[i] && d <= v.max[i], "default of %s (%s) outside [%g, %g]",
                          v.paths[i], v.defaults[i], v.min[i], v.max[i]);
        }
        if (strcmp(v.paths[i], "chassis.mass") == 0) {
            ck_assert_str_eq(v.units[i], "kg");
            ck_assert_double_eq(v.min[i], 50);
            ck_assert_double_eq(v.max[i], 100000);
            ck_assert_double_eq(strtod(v.defaults[i], NULL), ref.chassis.mass_kg);
            seen++;
        }
        if (strcmp(v.paths[i], "drive.maxPowerKw") == 0) {
            ck_assert_str_eq(v.units[i], "kW");
            ck_assert_double_eq_tol(strtod(v.defaults[i], NULL) * 1000, ref.drive.max_power_w,
                                    1e-9);
            seen++;
        }
        if (strcmp(v.paths[i], "simulation.model") == 0) {
            ck_assert_str_eq(v.units[i], "choice");
            ck_assert_str_eq(v.defaults[i], "fourWheel");
            seen++;
        }
        if (strcmp(v.paths[i], "suspension.rear.kind") == 0) {
            ck_assert_str_eq(v.units[i], "choice");
            ck_assert_str_eq(v.defaults[i], "independent");
            ck_assert(isnan(v.min[i]));
            seen++;
        }
        if (strcmp(v.paths[i], "suspension.front.staticCamberDeg") == 0) {
            ck_assert_str_eq(v.units[i], "deg");
            ck_assert_double_eq_tol(strtod(v.defaults[i], NULL) * M_PI / 180,
                                    ref.susp_front.static_camber_rad, 1e-15);
            seen++;
        }
        if (strcmp(v.paths[i], "suspension.front.kinematics.toeDeg") == 0) {
            ck_assert_str_eq(v.units[i], "[m, deg]");
            ck_assert_str_eq(v.defaults[i], "[]");
            ck_assert(isnan(v.min[i]) && isnan(v.max[i]));
            seen++;
        }
        if (strcmp(v.paths[i], "suspension.rear.kinematics.rollCenterHeight") == 0) {
            ck_assert_str_eq(v.units[i], "[m, m]");
            seen++;
        }
    }
    ck_assert_int_eq(seen, 7);

    key_list w = {0};
    pdk_params_describe(PDK_PRESET_WORLD, collect_key, &w);
    /* 8 keys, and the 6 fields of a bump after terrain.bumps. */
    ck_assert_uint_eq(w.n, 14);
    ck_assert_str_eq(w.paths[7], "terrain.bumps");
    ck_assert_str_eq(w.units[7], "list");
    ck_assert_str_eq(w.defaults[7], "[]");
    ck_assert_str_eq(w.paths[8], "terrain.bumps[].x");
    ck_assert_double_eq(w.max[8], PDK_WORLD_MAX_POSITION_M);
    ck_assert_str_eq(w.paths[10], "terrain.bumps[].yawDeg");
    ck_assert_str_eq(w.units[10], "deg");
    ck_assert_str_eq(w.paths[13], "terrain.bumps[].height");
    ck_assert_double_eq(w.min[13], -2);
    ck_assert_str_eq(w.defaults[13], "(required)");
    pdk_world_def wref = pdk_world_def_default();
    for (size_t i = 0; i < w.n; i++) {
        if (strcmp(w.paths[i], "substeps") == 0) {
            ck_assert_int_eq(atoi(w.defaults[i]), wref.substeps);
        }
        if (strcmp(w.paths[i], "gravity") == 0) {
            ck_assert_str_eq(w.units[i], "m/s^2");
            ck_assert_double_eq(strtod(w.defaults[i], NULL), wref.gravity_mps2);
        }
    }
    pdk_params_describe(PDK_PRESET_WORLD, NULL, NULL);
}
END_TEST

/* ---- shipped presets --------------------------------------------------------- */

START_TEST(every_shipped_preset_loads)
{
    char err[PDK_PARAMS_ERR_LEN];
    listing v = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, collect_preset, &v), PDK_OK);
    ck_assert_uint_ge(v.n, 2);
    for (size_t i = 0; i < v.n; i++) {
        pdk_vehicle_def def;
        ck_assert_msg(strlen(v.descriptions[i]) > 20 && v.descriptions[i][0] != '(',
                      "%s: description '%s'", v.names[i], v.descriptions[i]);
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, v.names[i], NULL, &def, NULL, err,
                                              sizeof err) == PDK_OK,
                      "%s", err);
        ck_assert_int_eq(pdk_vehicle_def_check(&def), PDK_OK);
    }
    listing w = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_WORLD, collect_preset, &w), PDK_OK);
    ck_assert_uint_ge(w.n, 2);
    for (size_t i = 0; i < w.n; i++) {
        pdk_world_def def;
        ck_assert_msg(strlen(w.descriptions[i]) > 20, "%s", w.names[i]);
        ck_assert_msg(
            pdk_params_world_load(PRESETS, w.names[i], NULL, &def, NULL, err, sizeof err) == PDK_OK,
            "%s", err);
        ck_assert_int_eq(pdk_world_def_check(&def), PDK_OK);
    }
}
END_TEST

/* The figures of a preset's data sheet (docs/presets.md), recomputed here
 * from the preset itself so that the sheet and the file cannot drift. */
typedef struct sheet {
    const char *name;
    double ride_hz[2];   /* sqrt(k / m_corner) / 2 pi, m_corner = m b / 2L, m a / 2L */
    double zeta_bump[2]; /* c / (2 sqrt(k m_corner)) */
    double zeta_rebound[2];
    double roll_deg_per_g; /* m g (h - h_rc) / (K_f + K_r - m g h), K = (k + 2 k_arb) t^2 / 2 */
    double transfer_n[2];  /* per g: W h_rc / t + K (phi / a_y) / t */
} sheet;

static double corner_mass_kg(const pdk_vehicle_def *d, int axle)
{
    double a = d->chassis.cg_to_front_axle_m;
    double len = d->chassis.wheelbase_m;
    return d->chassis.mass_kg * (axle == 0 ? len - a : a) / (2 * len);
}

static const pdk_suspension_def *axle_of(const pdk_vehicle_def *d, int axle)
{
    return axle == 0 ? &d->susp_front : &d->susp_rear;
}

/* An axle's roll stiffness: springs k t^2 / 2 and the bar, which pushes
 * each wheel with k_arb times the travel difference, k_arb t^2. */
static double axle_roll_stiffness_nm_per_rad(const pdk_vehicle_def *d, int axle)
{
    const pdk_suspension_def *s = axle_of(d, axle);
    double t = pdk_vehicle_def_track_m(d, axle);
    return (s->spring_rate_npm + 2 * s->anti_roll_npm) * t * t / 2;
}

/* The roll gradient of the data sheets in rad/g, tan(phi) / a_y as this
 * model rolls: about the ground, so the CG swings h tan(phi) across the
 * contacts, with the links taking m g h_rc of the moment, h_rc the roll
 * axis under the CG (docs/vehicle-model.md; test_fw_validation.c holds the
 * model to it). There is no unsprung mass. */
static double roll_gradient_rad_per_g(const pdk_vehicle_def *d)
{
    double k_roll = axle_roll_stiffness_nm_per_rad(d, 0) + axle_roll_stiffness_nm_per_rad(d, 1);
    double a = d->chassis.cg_to_front_axle_m;
    double rf = d->susp_front.roll_center_height_m;
    double rr = d->susp_rear.roll_center_height_m;
    double h = d->chassis.cg_height_m;
    double arm = h - (rf + (rr - rf) * a / d->chassis.wheelbase_m);
    double m = d->chassis.mass_kg;
    return m * 9.81 * arm / (k_roll - m * 9.81 * h);
}

START_TEST(shipped_presets_match_their_data_sheets)
{
    static const sheet sheets[] = {
        {"midsize_sedan", {1.350, 1.510}, {0.297, 0.300}, {0.495, 0.506}, 3.60, {3018, 2358}},
        {"compact_hatch", {1.291, 1.508}, {0.300, 0.301}, {0.503, 0.495}, 4.12, {2747, 1955}},
        {"sports_car", {1.900, 2.050}, {0.302, 0.297}, {0.503, 0.495}, 1.81, {2049, 2306}},
        {"open_wheeler", {3.014, 3.296}, {0.496, 0.503}, {0.699, 0.705}, 0.58, {481, 692}},
        {"kart", {6.842, 5.712}, {0.333, 0.293}, {0.333, 0.293}, 0.30, {176, 195}},
        {"pickup4x4", {1.256, 1.700}, {0.303, 0.297}, {0.496, 0.504}, 5.45, {5856, 6381}},
    };
    char err[PDK_PARAMS_ERR_LEN];
    for (size_t i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
        const sheet *sh = &sheets[i];
        pdk_vehicle_def d;
        ck_assert_msg(pdk_params_vehicle_load(PRESETS, sh->name, NULL, &d, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s", err);
        ck_assert_int_eq(d.model, PDK_MODEL_FOUR_WHEEL);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_suspension_def *s = axle_of(&d, axle);
            double m = corner_mass_kg(&d, axle);
            double f = sqrt(s->spring_rate_npm / m) / (2 * M_PI);
            double crit = 2 * sqrt(s->spring_rate_npm * m);
            ck_assert_msg(fabs(f - sh->ride_hz[axle]) < 5e-4, "%s axle %d: %.4f Hz", sh->name, axle,
                          f);
            ck_assert_msg(fabs(s->bump_damping_nspm / crit - sh->zeta_bump[axle]) < 5e-4,
                          "%s axle %d: bump %.4f", sh->name, axle, s->bump_damping_nspm / crit);
            ck_assert_msg(fabs(s->rebound_damping_nspm / crit - sh->zeta_rebound[axle]) < 5e-4,
                          "%s axle %d: rebound %.4f", sh->name, axle,
                          s->rebound_damping_nspm / crit);
        }
        double grad = roll_gradient_rad_per_g(&d);
        ck_assert_msg(fabs(grad * 180 / M_PI - sh->roll_deg_per_g) < 5e-3, "%s: %.4f deg/g",
                      sh->name, grad * 180 / M_PI);
        double a = d.chassis.cg_to_front_axle_m;
        double len = d.chassis.wheelbase_m;
        for (int axle = 0; axle < 2; axle++) {
            double w = d.chassis.mass_kg * 9.81 * (axle == 0 ? len - a : a) / len;
            double t = pdk_vehicle_def_track_m(&d, axle);
            double transfer = w * axle_of(&d, axle)->roll_center_height_m / t +
                              axle_roll_stiffness_nm_per_rad(&d, axle) * grad / t;
            ck_assert_msg(fabs(transfer - sh->transfer_n[axle]) < 0.5, "%s axle %d: %.1f N",
                          sh->name, axle, transfer);
            /* Camber stiffness 0.92 W per radian, the sheets' rule, to the
             * rounding of the preset's round numbers. */
            const pdk_axle_tyre_def *ty = axle == 0 ? &d.tyre_front : &d.tyre_rear;
            ck_assert_msg(fabs(ty->camber_stiffness_n_per_rad / w - 0.92) < 0.015,
                          "%s axle %d: camber stiffness %.3f W", sh->name, axle,
                          ty->camber_stiffness_n_per_rad / w);
        }
    }

    /* REF-1, reference/vehicle-models.md section 7.0, on the four-wheel
     * model: its wheel rate and track, and the road-car rules (roll centres
     * 0.05-0.13 m, front below rear; camber-gain and roll-centre curves). */
    pdk_vehicle_def s;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "midsize_sedan", NULL, &s, NULL, err, sizeof err), PDK_OK);
    ck_assert_double_eq(s.chassis.mass_kg, 1500);
    ck_assert_double_eq(s.chassis.wheelbase_m, 2.70);
    ck_assert_double_eq(s.chassis.cg_to_front_axle_m, 1.20);
    ck_assert_double_eq(s.chassis.cg_height_m, 0.55);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&s, 0), 1.60);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&s, 1), 1.60);
    ck_assert_double_eq(s.susp_front.spring_rate_npm, 30000);
    ck_assert_double_eq(s.tyre_front.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(s.tyre_rear.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(s.resist.drag_area_m2, 0.65);
    ck_assert_double_eq(s.susp_front.static_camber_rad, -0.5 * M_PI / 180);
    ck_assert_double_eq(s.susp_rear.static_toe_rad, 0.15 * M_PI / 180);
    static const char *const road_cars[] = {"midsize_sedan", "compact_hatch", "sports_car"};
    for (size_t i = 0; i < 3; i++) {
        pdk_vehicle_def d;
        ck_assert_int_eq(
            pdk_params_vehicle_load(PRESETS, road_cars[i], NULL, &d, NULL, err, sizeof err),
            PDK_OK);
        double rf = d.susp_front.roll_center_height_m;
        double rr = d.susp_rear.roll_center_height_m;
        ck_assert_msg(rf >= 0.05 && rr <= 0.13 && rf < rr, "%s: %g %g", road_cars[i], rf, rr);
        for (int axle = 0; axle < 2; axle++) {
            const pdk_suspension_def *sd = axle_of(&d, axle);
            ck_assert_int_eq(sd->kind, PDK_AXLE_INDEPENDENT);
            ck_assert_int_ge(sd->kinematics.camber_rad.n_points, 2);
            ck_assert_int_ge(sd->kinematics.roll_center_height_m.n_points, 2);
            /* Camber gain: more negative in bump, as a road car's links give. */
            ck_assert(pdk_curve_eval(&sd->kinematics.camber_rad, 0.05) < 0);
            /* Roll centre falls in bump. */
            ck_assert(pdk_curve_eval(&sd->kinematics.roll_center_height_m, 0.05) < 0);
        }
    }

    pdk_vehicle_def o;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "open_wheeler", NULL, &o, NULL, err, sizeof err), PDK_OK);
    ck_assert(o.susp_front.roll_center_height_m <= 0.05 &&
              o.susp_rear.roll_center_height_m <= 0.05);
    ck_assert_int_eq(o.susp_front.kinematics.roll_center_height_m.n_points, 3);
    ck_assert_int_eq(o.susp_front.kinematics.camber_rad.n_points, 0);

    /* The kart: a solid rear axle with the roll centre on the ground; its
     * description tells the driveline that the rear axle is a spool. */
    pdk_vehicle_def k;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "kart", NULL, &k, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(k.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_int_eq(k.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_double_eq(k.susp_rear.roll_center_height_m, 0);
    ck_assert_double_eq(k.susp_front.roll_center_height_m, 0);
    ck_assert_double_eq(k.drive.front_fraction, 0);
    listing v = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_VEHICLE, collect_preset, &v), PDK_OK);
    bool kart_seen = false;
    for (size_t i = 0; i < v.n; i++) {
        if (strcmp(v.names[i], "kart") == 0) {
            ASSERT_HAS(v.descriptions[i], "spool");
            kart_seen = true;
        }
    }
    ck_assert(kart_seen);

    /* The pickup: independent front at 0.1 m, solid rear at 0.4 m, high CG. */
    pdk_vehicle_def p;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "pickup4x4", NULL, &p, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(p.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_int_eq(p.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_double_eq(p.susp_front.roll_center_height_m, 0.1);
    ck_assert_double_eq(p.susp_rear.roll_center_height_m, 0.4);
    ck_assert_double_eq(p.chassis.cg_height_m, 0.80);

    /* The single-track car for traffic keeps the old midsize_sedan numbers. */
    pdk_vehicle_def ts;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", NULL, &ts, NULL, err, sizeof err),
        PDK_OK);
    ck_assert_int_eq(ts.model, PDK_MODEL_SINGLE_TRACK);
    ck_assert_double_eq(ts.chassis.mass_kg, 1500);
    ck_assert_double_eq(ts.chassis.yaw_inertia_kgm2, 2500);
    ck_assert_double_eq(ts.tyre_front.cornering_stiffness_n_per_rad, 120000);
    ck_assert_double_eq(ts.steering.lock_deg, 520);
    ck_assert_double_eq(ts.drive.front_fraction, 0.0);
    ck_assert_double_eq(ts.brake.front_fraction, 0.60);

    pdk_vehicle_def h;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "compact_hatch", NULL, &h, NULL, err, sizeof err), PDK_OK);
    ck_assert(h.chassis.mass_kg < s.chassis.mass_kg);
    ck_assert_double_eq(h.drive.front_fraction, 1.0);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&h, 1), 1.52);

    pdk_world_def dry;
    pdk_world_def wet;
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "flat", NULL, &dry, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "flat_wet", NULL, &wet, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(dry.surface_friction, 1.0);
    ck_assert_double_eq(wet.surface_friction, 0.7);
    ck_assert_int_eq(dry.substeps, pdk_world_def_default().substeps);
    ck_assert_int_eq(dry.terrain.n_bumps, 0);

    /* kerb_strip: a kerb under the left wheels of a car on the x axis, and a
     * hump across the road. */
    pdk_world_def kerb;
    ck_assert_int_eq(
        pdk_params_world_load(PRESETS, "kerb_strip", NULL, &kerb, NULL, err, sizeof err), PDK_OK);
    ck_assert_int_eq(kerb.terrain.n_bumps, 2);
    double n[3];
    double y_left = pdk_vehicle_def_track_m(&s, 0) / 2;
    double x_kerb = kerb.terrain.bumps[0].x_m;
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_kerb, y_left, n), 0.05, 1e-12);
    ck_assert_double_eq(pdk_terrain_height(&kerb.terrain, x_kerb, -y_left, n), 0);
    double x_hump = kerb.terrain.bumps[1].x_m;
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_hump, y_left, n), 0.075, 1e-12);
    ck_assert_double_eq_tol(pdk_terrain_height(&kerb.terrain, x_hump, -y_left, n), 0.075, 1e-12);
}
END_TEST

/* ---- the four-wheel keys: suspension, kinematic curves, terrain ------------ */

/* A four-wheel preset with an independent front and a solid rear, curves on
 * both, for the tests below. */
static const char *const SUSP_JSON =
    "{\"suspension\":{"
    "\"front\":{\"staticToeDeg\":0.1,\"staticCamberDeg\":-1,\"kinematics\":{"
    "\"toeDeg\":[[-0.08,0.3],[0,0],[0.08,-0.4]],"
    "\"camberDeg\":[[-0.1,1.5],[0.05,-0.75],[0.1,-1.7]],"
    "\"rollCenterHeight\":[[-0.08,0.06],[0,0],[0.08,-0.06]]}},"
    "\"rear\":{\"kind\":\"solid\",\"rollCenterHeight\":0.3,\"kinematics\":{"
    "\"rollCenterHeight\":[[-0.1,0.05],[0.1,-0.05]],"
    "\"antiBrake\":[[-0.05,-0.1],[0,0],[0.05,0.1]],"
    "\"antiDrive\":[[0,0],[0.1,0.2]]}}}}";

START_TEST(curves_convert_and_round_trip)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def a;
    char *ra = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(SUSP_JSON, "s.json", NULL, &a, &ra, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    ck_assert_int_eq(a.model, PDK_MODEL_FOUR_WHEEL);
    ck_assert_int_eq(a.susp_front.kind, PDK_AXLE_INDEPENDENT);
    ck_assert_int_eq(a.susp_rear.kind, PDK_AXLE_SOLID);
    /* Degrees in the preset, radians in the definition; metres as given. */
    const pdk_curve *toe = &a.susp_front.kinematics.toe_rad;
    ck_assert_int_eq(toe->n_points, 3);
    ck_assert_double_eq(toe->travel_m[0], -0.08);
    ck_assert_double_eq(toe->value[0], 0.3 * M_PI / 180);
    ck_assert_double_eq(toe->value[2], -0.4 * M_PI / 180);
    ck_assert_double_eq(a.susp_front.static_toe_rad, 0.1 * M_PI / 180);
    /* Zero at zero travel by interpolation, not only at a point: -0.75 at
     * 0.05 m on a line from 1.5 at -0.1 m, through 0.75 at -0.05 m. */
    const pdk_curve *camber = &a.susp_front.kinematics.camber_rad;
    ck_assert_int_eq(camber->n_points, 3);
    ck_assert_double_eq_tol(pdk_curve_eval(camber, 0.0), 0, 1e-15);
    ck_assert_double_eq_tol(pdk_curve_eval(camber, -0.05), 0.75 * M_PI / 180, 1e-15);
    ck_assert_double_eq(a.susp_rear.kinematics.roll_center_height_m.value[1], -0.05);
    ck_assert_int_eq(a.susp_rear.kinematics.anti_drive.n_points, 2);
    ck_assert_int_eq(a.susp_rear.kinematics.toe_rad.n_points, 0);

    /* Resolved: every curve as [[travel, value], ...] in the preset unit,
     * and the round trip is exact to the bit. */
    ASSERT_HAS(ra, "\"toeDeg\":[[-0.080000000000000002,0.29999999999999999],[0.0,0.0],"
                   "[0.080000000000000002,-0.40000000000000002]]");
    ASSERT_HAS(ra, "\"kind\":\"solid\"");
    pdk_vehicle_def b;
    char *rb = NULL;
    ck_assert_msg(pdk_params_vehicle_parse(ra, "resolved", NULL, &b, &rb, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    assert_same_vehicle(&a, &b);
    ck_assert_str_eq(ra, rb);
    free(ra);
    free(rb);

    /* Many curves of awkward degrees round-trip bit for bit. */
    uint64_t s = 0x2545f4914f6cdd1du;
    for (int i = 0; i < 300; i++) {
        char o[400];
        double v[4];
        for (int j = 0; j < 4; j++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v[j] = ((double)(s >> 11) * 0x1p-53 - 0.5) * 3.0;
        }
        snprintf(o, sizeof o,
                 "suspension.front.kinematics.camberDeg=[[-0.1,%.17g],[0,0],[0.03,%.17g],"
                 "[0.1,%.17g]];suspension.front.staticCamberDeg=%.17g",
                 v[0], v[1], v[2], v[3]);
        ck_assert_msg(pdk_params_vehicle_parse("{}", "x", o, &a, &ra, err, sizeof err) == PDK_OK,
                      "%s", err);
        ck_assert_msg(pdk_params_vehicle_parse(ra, "x", NULL, &b, NULL, err, sizeof err) == PDK_OK,
                      "%s", err);
        assert_same_vehicle(&a, &b);
        free(ra);
    }

    /* No kinematics block, an empty one and empty curves are one definition. */
    pdk_vehicle_def none;
    pdk_vehicle_def empty;
    pdk_vehicle_def blanks;
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x", NULL, &none, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_params_vehicle_parse("{\"suspension\":{\"front\":{\"kinematics\":{}}}}",
                                              "x", "suspension.rear.kinematics={}", &empty, NULL,
                                              err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(
        pdk_params_vehicle_parse("{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":[],"
                                 "\"rollCenterHeight\":[]}}}}",
                                 "x", NULL, &blanks, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&none, &empty);
    assert_same_vehicle(&none, &blanks);
    ck_assert_int_eq(none.susp_front.kinematics.roll_center_height_m.n_points, 0);
}
END_TEST

/* Wraps a front toe curve (or a rear one) in a preset. */
static const char *toe_preset(const char *curve)
{
    static char text[1024];
    snprintf(text, sizeof text, "{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":%s}}}}",
             curve);
    return text;
}

START_TEST(curve_rules_name_key_and_reason)
{
    const char *m;
    const char *key = "test.json: suspension.front.kinematics.toeDeg";
    m = vparse_expect(toe_preset("{\"a\":1}"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, key);
    ASSERT_HAS(m, "expected a list of [travel, value] points, got object");

    m = vparse_expect(toe_preset("[[0,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg: 1 point; a curve has 2 to 16 points ([] for none)");
    {
        char curve[600] = "[";
        for (int i = 0; i < 17; i++) {
            char p[40];
            snprintf(p, sizeof p, "%s[%g,0]", i ? "," : "", 0.01 * (i - 8));
            strcat(curve, p);
        }
        strcat(curve, "]");
        m = vparse_expect(toe_preset(curve), NULL, PDK_ERR_OUT_OF_RANGE);
        ASSERT_HAS(m, "toeDeg: 17 points; a curve has 2 to 16 points");
        /* Sixteen is the most. */
        char sixteen[600];
        snprintf(sixteen, sizeof sixteen, "%.*s]", (int)(strrchr(curve, '[') - curve - 1), curve);
        vparse_expect(toe_preset(sixteen), NULL, PDK_OK);
    }

    m = vparse_expect(toe_preset("[[-0.1,0.2],0,[0.1,-0.2]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1]: expected a [travel, value] pair, got number");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,0,0],[0.1,-0.2]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1]: expected a [travel, value] pair, got a list of 3");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,\"0\"]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1][1]: expected a number (deg), got string");
    m = vparse_expect(toe_preset("[[null,0.2],[0,0]]"), NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[0][0]: expected a number (travel, m), got null");

    m = vparse_expect(toe_preset("[[-1.5,0.2],[0,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[0]: travel -1.5 m is outside -1..1 m");
    m = vparse_expect(toe_preset("[[-0.1,0.2],[0,0],[0,-0.2]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[2]: travel 0 m does not exceed the previous point's 0 m; travel must be "
                  "strictly increasing");
    m = vparse_expect(toe_preset("[[0.1,0.2],[-0.1,0]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg[1]: travel -0.1 m does not exceed the previous point's 0.1 m");

    /* Zero at zero travel, interpolated between points or held beyond the
     * ends. */
    m = vparse_expect(toe_preset("[[-0.1,0.3],[0.1,-0.1]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "toeDeg: the curve is 0.1 deg at travel 0; it must be 0 there, since it adds to "
                  "suspension.front.staticToeDeg");
    m = vparse_expect(toe_preset("[[0.02,0.1],[0.1,-0.1]]"), NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "the curve is 0.1 deg at travel 0");
    vparse_expect(toe_preset("[[0,0],[0.1,-0.1]]"), NULL, PDK_OK);
    vparse_expect(toe_preset("[[-0.3,0.3],[0.1,-0.1]]"), NULL, PDK_OK);
    /* To rounding: a tenth of a degree over 0.3 m, read through decimals. */
    vparse_expect(toe_preset("[[-0.1,0.1],[0.2,-0.2]]"), NULL, PDK_OK);

    /* The same rules in an override, named by the override. */
    m = vparse_expect("{}", "suspension.rear.kinematics.rollCenterHeight=[[0,0.1],[0.1,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kinematics.rollCenterHeight=[[0,0.1],[0.1,0]]': "
                  "suspension.rear.kinematics.rollCenterHeight: the curve is 0.1 m at travel 0");
}
END_TEST

START_TEST(curve_sums_and_solid_axles)
{
    const char *m;
    /* static + curve within the static key's bounds, point by point. */
    m = vparse_expect("{}",
                      "suspension.front.staticToeDeg=2;"
                      "suspension.front.kinematics.toeDeg=[[-0.1,-1],[0,0],[0.1,3.5]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.front.kinematics.toeDeg[2]: "
                  "suspension.front.staticToeDeg "
                  "(2 deg) + 3.5 = 5.5 deg is above the maximum 5 deg that "
                  "suspension.front.staticToeDeg allows");
    vparse_expect("{}",
                  "suspension.front.staticToeDeg=2;"
                  "suspension.front.kinematics.toeDeg=[[-0.1,-1],[0,0],[0.1,3]]",
                  PDK_OK);
    m = vparse_expect("{}",
                      "suspension.rear.staticCamberDeg=-8;"
                      "suspension.rear.kinematics.camberDeg=[[-0.1,1],[0,0],[0.1,-2.5]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.rear.kinematics.camberDeg[2]: suspension.rear.staticCamberDeg (-8 "
                  "deg) + -2.5 = -10.5 deg is below the minimum -10 deg");
    m = vparse_expect("{}",
                      "suspension.front.rollCenterHeight=0.05;"
                      "suspension.front.kinematics.rollCenterHeight=[[-0.2,-0.6],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.rollCenterHeight[0]: "
                  "suspension.front.rollCenterHeight (0.05 m) + -0.6 = -0.55 m is below the "
                  "minimum -0.5 m");
    m = vparse_expect("{}",
                      "suspension.rear.antiDrive=1.5;"
                      "suspension.rear.kinematics.antiDrive=[[0,0],[0.1,0.6]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "suspension.rear.kinematics.antiDrive[1]: suspension.rear.antiDrive (1.5 -) + 0.6 "
               "= 2.1 - is above the maximum 2");
    m = vparse_expect("{}",
                      "suspension.front.antiBrake=-1.9;"
                      "suspension.front.kinematics.antiBrake=[[-0.1,-0.2],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.antiBrake[0]");

    /* A solid axle: toe and camber curves refused, the other three taken. */
    m = vparse_expect(SUSP_JSON, "suspension.rear.kinematics.toeDeg=[[-0.1,0.1],[0,0]]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.kinematics.toeDeg: not allowed "
                  "on a solid axle "
                  "(suspension.rear.kind is \"solid\"): the beam sets the wheels' toe and camber");
    m = vparse_expect(SUSP_JSON, "suspension.front.kind=solid", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.toeDeg: not allowed on a solid axle");
    m = vparse_expect(SUSP_JSON,
                      "suspension.front.kind=solid;suspension.front.kinematics.toeDeg=[]",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "suspension.front.kinematics.camberDeg: not allowed on a solid axle");
    vparse_expect(SUSP_JSON,
                  "suspension.front.kind=solid;suspension.front.kinematics.toeDeg=[];"
                  "suspension.front.kinematics.camberDeg=[]",
                  PDK_OK);
    /* The rule holds on the single-track model too: the definition is the
     * same whichever model runs it. */
    vparse_expect(SUSP_JSON, "simulation.model=singleTrack", PDK_OK);
    m = vparse_expect(SUSP_JSON, "simulation.model=singleTrack;suspension.front.kind=solid",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "not allowed on a solid axle");

    /* kind is one of two names. */
    m = vparse_expect("{}", "suspension.rear.kind=beam", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kind=beam': suspension.rear.kind: \"beam\" is not an "
                  "axle kind (allowed: \"independent\", \"solid\")");
    m = vparse_expect("{\"suspension\":{\"rear\":{\"kind\":1}}}", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "test.json: suspension.rear.kind: expected a string, got number");
}
END_TEST

START_TEST(overrides_reach_curves_kinds_and_entries)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          "suspension.front.kinematics.toeDeg=[[-0.1,0.2],[0,0],"
                                          "[0.1,-0.2]];suspension.rear.kind=solid;"
                                          "suspension.rear.kinematics.camberDeg=[]",
                                          &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(d.susp_rear.kind, PDK_AXLE_SOLID);
    ck_assert_int_eq(d.susp_front.kinematics.toe_rad.n_points, 3);
    ck_assert_double_eq(d.susp_front.kinematics.toe_rad.value[2], -0.2 * M_PI / 180);
    ck_assert_int_eq(d.susp_rear.kinematics.camber_rad.n_points, 0);
    /* The file's other curves stay. */
    ck_assert_int_eq(d.susp_front.kinematics.camber_rad.n_points, 3);

    /* Indices reach a point, or a coordinate of one; the next index appends. */
    const char *base = "{\"suspension\":{\"front\":{\"kinematics\":{\"toeDeg\":"
                       "[[-0.1,0.2],[0,0],[0.1,-0.2]]}}}}";
    ck_assert_msg(pdk_params_vehicle_parse(base, "b.json",
                                           "suspension.front.kinematics.toeDeg[2]=[0.05,-0.3];"
                                           "suspension.front.kinematics.toeDeg[0][1]=0.25;"
                                           "suspension.front.kinematics.toeDeg[3]=[0.2,-0.5]",
                                           &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    const pdk_curve *toe = &d.susp_front.kinematics.toe_rad;
    ck_assert_int_eq(toe->n_points, 4);
    ck_assert_double_eq(toe->value[0], 0.25 * M_PI / 180);
    ck_assert_double_eq(toe->travel_m[2], 0.05);
    ck_assert_double_eq(toe->travel_m[3], 0.2);
    /* An index into a curve the file leaves out starts from no points; each
     * override must leave a valid curve, so a new curve comes whole. */
    const char *m;
    m = vparse_expect("{}", "suspension.rear.kinematics.antiDrive[0]=[0,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.rear.kinematics.antiDrive[0]=[0,0]': "
                  "suspension.rear.kinematics.antiDrive: 1 point; a curve has 2 to 16 points");
    ck_assert_msg(pdk_params_vehicle_parse("{}", "e.json",
                                           "suspension.rear.kinematics.antiDrive=[[0,0],[0.1,0.3]];"
                                           "suspension.rear.kinematics.antiDrive[2]=[0.2,0.4]",
                                           &d, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(d.susp_rear.kinematics.anti_drive.n_points, 3);

    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[5]=[0.2,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'suspension.front.kinematics.toeDeg[5]=[0.2,0]': "
                  "suspension.front.kinematics.toeDeg[5]: index 5 is past the end of "
                  "suspension.front.kinematics.toeDeg, which has 3 entries ([3] appends one)");
    /* A changed point is checked with the whole curve. */
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1]=[0.2,0]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m,
               "suspension.front.kinematics.toeDeg[2]: travel 0.1 m does not exceed the previous "
               "point's 0.2 m");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1][0][0]=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m,
               "toeDeg[1][0][0]: suspension.front.kinematics.toeDeg[1][0] is number, not a list");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg[1].x=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "toeDeg[1].x: suspension.front.kinematics.toeDeg[1] is array, not an object");
    m = vparse_expect(base, "suspension.front.kinematics.toeDeg.first=1", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "suspension.front.kinematics.toeDeg.first: unknown key "
                  "(suspension.front.kinematics.toeDeg is a list, indexed as [n], with no keys "
                  "under it)");
    m = vparse_expect("{}", "suspension.front.kinematic.toeDeg=[]", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "suspension.front.kinematic: unknown key (did you mean "
                  "suspension.front.kinematics?)");
    m = vparse_expect("{}", "suspension.front[0]=1", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "suspension.front[0]: suspension.front is an object, not an array");
}
END_TEST

START_TEST(four_wheel_cross_field_rules)
{
    const char *m;
    /* An axle's own track: 0 for the chassis', else a real track. */
    m = vparse_expect("{}", "suspension.rear.trackWidth=0.1", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.trackWidth (0.1 m) must be 0 (use "
                  "chassis.trackWidth) "
                  "or at least 0.3 m");
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_int_eq(pdk_params_vehicle_parse("{}", "x",
                                              "chassis.trackWidth=1.5;suspension.rear.trackWidth="
                                              "1.55",
                                              &d, NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&d, 0), 1.5);
    ck_assert_double_eq(pdk_vehicle_def_track_m(&d, 1), 1.55);

    /* Roll centres at most 0.9 of the CG height, on the four-wheel model
     * (vehicle_def.h says why); the bound itself passes. */
    m = vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}", "suspension.rear.rollCenterHeight=0.46",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json with its overrides: suspension.rear.rollCenterHeight (0.46 m) must be "
                  "at most 0.9 chassis.cgHeight (0.5 m) on the fourWheel model");
    vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}", "suspension.rear.rollCenterHeight=0.45",
                  PDK_OK);
    /* The damping floor and the roll-inertia floor are sim's rules; params
     * passes on its sentence. */
    m = vparse_expect("{}", "suspension.front.bumpDamping=100", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "susp_front.bump_damping_nspm and rebound_damping_nspm must each be at least 0.1 "
                  "of critical");
    m = vparse_expect("{}", "chassis.rollInertia=50", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "chassis.roll_inertia_kgm2 must be at least 0.1");
    vparse_expect("{\"chassis\":{\"cgHeight\":0.5}}",
                  "suspension.rear.rollCenterHeight=0.5;simulation.model=singleTrack", PDK_OK);

    /* The steering centre within the lock. */
    m = vparse_expect("{\"steering\":{\"lockDeg\":100,\"ratio\":5}}",
                      "steering.centerOffsetDeg=-120", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.centerOffsetDeg (-120 deg) must be within the lock, steering.lockDeg "
                  "(100 deg), either way");
    vparse_expect("{\"steering\":{\"lockDeg\":100,\"ratio\":5}}", "steering.centerOffsetDeg=-100",
                  PDK_OK);

    /* Ideal Ackermann at full lock: 60 deg on a 2.7 m wheelbase and 1.6 m
     * track turns the inner wheel to 73.6 deg, 70 deg past 90. */
    vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":600}}", NULL, PDK_OK);
    m = vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":680}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "steering.ackermann (0.5) is above 0 and the road-wheel lock steering.lockDeg / "
                  "steering.ratio = 68.0 deg turns the inner front wheel to 8");
    m = vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":750}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "turns the inner front wheel past 90 deg at full lock");
    vparse_expect("{\"steering\":{\"ratio\":10,\"lockDeg\":750,\"ackermann\":0}}", NULL, PDK_OK);
}
END_TEST

START_TEST(terrain_bumps)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def a;
    pdk_world_def b;
    char *ra = NULL;
    ck_assert_msg(pdk_params_world_load(PRESETS, "kerb_strip", "terrain.bumps[1].yawDeg=33.3", &a,
                                        &ra, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(a.terrain.n_bumps, 2);
    ck_assert_double_eq(a.terrain.bumps[0].height_m, 0.05);
    ck_assert_double_eq(a.terrain.bumps[1].yaw_rad, 33.3 * M_PI / 180);
    ck_assert_double_eq(a.terrain.bumps[1].length_m, 3.7);
    ASSERT_HAS(ra,
               "\"terrain\":{\"bumps\":[{\"height\":0.050000000000000003,\"length\":0.59999999999"
               "999998,\"width\":0.59999999999999998,\"x\":15.0,\"y\":0.78000000000000003,"
               "\"yawDeg\":0.0},");
    ck_assert_int_eq(pdk_params_world_parse(ra, "resolved", NULL, &b, NULL, err, sizeof err),
                     PDK_OK);
    assert_same_world(&a, &b);
    free(ra);

    /* Append an entry, change a field, replace an entry by merging. */
    ck_assert_msg(
        pdk_params_world_load(PRESETS, "kerb_strip",
                              "terrain.bumps[2]={\"x\":80,\"y\":0,\"yawDeg\":90,\"length\":1,"
                              "\"width\":3,\"height\":-0.1};terrain.bumps[0].height=0.1;"
                              "terrain.bumps[1]={\"width\":8}",
                              &a, NULL, err, sizeof err) == PDK_OK,
        "%s", err);
    ck_assert_int_eq(a.terrain.n_bumps, 3);
    ck_assert_double_eq(a.terrain.bumps[0].height_m, 0.1);
    ck_assert_double_eq(a.terrain.bumps[1].width_m, 8);
    ck_assert_double_eq(a.terrain.bumps[1].height_m, 0.075);
    ck_assert_double_eq(a.terrain.bumps[2].yaw_rad, 90 * M_PI / 180);
    ck_assert_double_eq(a.terrain.bumps[2].height_m, -0.1);
    ck_assert_int_eq(
        pdk_params_world_load(PRESETS, "kerb_strip", "terrain.bumps=[]", &a, NULL, err, sizeof err),
        PDK_OK);
    ck_assert_int_eq(a.terrain.n_bumps, 0);

    /* Errors name the file or override, the entry and the field. */
    const char *bump = "{\"x\":1,\"y\":2,\"yawDeg\":0,\"length\":1,\"width\":1,\"height\":0.1}";
    char text[2048];
    pdk_world_def w;
    ck_assert_int_eq(pdk_params_world_parse("{\"terrain\":{\"bumps\":{}}}", "w.json", NULL, &w,
                                            NULL, err, sizeof err),
                     PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "w.json: terrain.bumps: expected a list of objects, got object");
    ck_assert_int_eq(pdk_params_world_parse("{\"terrain\":{\"bumps\":[3]}}", "w.json", NULL, &w,
                                            NULL, err, sizeof err),
                     PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "w.json: terrain.bumps[0]: expected an object, got number");
    snprintf(text, sizeof text, "{\"terrain\":{\"bumps\":[%s,{\"x\":1,\"hight\":1}]}}", bump);
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", NULL, &w, NULL, err, sizeof err),
                     PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(err,
               "w.json: terrain.bumps[1].hight: unknown key (known keys: x, y, yawDeg, length, "
               "width, height)");
    snprintf(text, sizeof text, "{\"terrain\":{\"bumps\":[{\"x\":1,\"y\":2,\"length\":1}]}}");
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", NULL, &w, NULL, err, sizeof err),
                     PDK_ERR_PARSE);
    ASSERT_HAS(err, "w.json: terrain.bumps[0].yawDeg: missing (every entry of terrain.bumps gives "
                    "x, y, yawDeg, length, width, height)");
    ck_assert_int_eq(
        pdk_params_world_parse("{}", "w.json", "terrain.bumps[0].x=5", &w, NULL, err, sizeof err),
        PDK_ERR_PARSE);
    ASSERT_HAS(err, "override 'terrain.bumps[0].x=5': terrain.bumps[0].y: missing");
    snprintf(text, sizeof text, "{\"terrain\":{\"bumps\":[%s]}}", bump);
    ck_assert_int_eq(
        pdk_params_world_parse(text, "w.json", "terrain.bumps[0].x=2e7", &w, NULL, err, sizeof err),
        PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "override 'terrain.bumps[0].x=2e7': terrain.bumps[0].x: 20000000 is above the "
                    "maximum 10000000 (m)");
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", "terrain.bumps[0].length=\"long\"", &w,
                                            NULL, err, sizeof err),
                     PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "terrain.bumps[0].length: expected a number, got string");
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", "terrain.bumps[0].height=0.6", &w, NULL,
                                            err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "w.json with its overrides: terrain.bumps[0].height (0.6 m) must be at "
                    "most half of "
                    "terrain.bumps[0].length (1 m) either way");
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", "terrain.bumps[0].height=-0.5", &w,
                                            NULL, err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", "terrain.bumps[2].height=0.1", &w, NULL,
                                            err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "terrain.bumps[2]: index 2 is past the end of terrain.bumps, which has 1 "
                    "entries ([1] appends one)");
    ck_assert_int_eq(
        pdk_params_world_parse(text, "w.json", "terrain.bumps.x=1", &w, NULL, err, sizeof err),
        PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(err, "terrain.bumps.x: unknown key (terrain.bumps is a list, indexed as [n]");
    /* At most 16 bumps. */
    size_t used = (size_t)snprintf(text, sizeof text, "{\"terrain\":{\"bumps\":[");
    for (int i = 0; i < 17; i++) {
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? "," : "", bump);
    }
    snprintf(text + used, sizeof text - used, "]}}");
    ck_assert_int_eq(pdk_params_world_parse(text, "w.json", NULL, &w, NULL, err, sizeof err),
                     PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(err, "w.json: terrain.bumps: 17 entries, more than the 16 allowed");
    snprintf(text, sizeof text, "{\"terrain\":{\"bumps\":[%s]}}", bump);
    ck_assert_int_eq(
        pdk_params_world_parse(text, "w.json", "terrain.bumps[1]=null", &w, NULL, err, sizeof err),
        PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(err, "override 'terrain.bumps[1]=null': terrain.bumps[1]: expected an object, got "
                    "null");
}
END_TEST

static Suite *params_suite(void)
{
    Suite *s = suite_create("params");
    TCase *tc = tcase_create("presets");
    tcase_add_test(tc, empty_vehicle_is_the_default_and_resolves_every_key);
    tcase_add_test(tc, resolved_json_is_canonical_and_round_trips_bit_exactly);
    tcase_add_test(tc, world_round_trip_and_fixed_dt);
    tcase_add_test(tc, overrides_take_precedence_in_order);
    tcase_add_test(tc, override_errors_name_the_override);
    tcase_add_test(tc, override_values_and_keys_at_their_limits);
    tcase_add_test(tc, messages_are_printable_utf8);
    tcase_add_test(tc, cross_field_invariants_name_both_fields);
    tcase_add_test(tc, file_errors_name_file_key_and_reason);
    tcase_add_test(tc, world_errors);
    tcase_add_test(tc, bad_arguments_and_small_buffers);
    tcase_add_test(tc, list_sorts_names_and_reads_descriptions);
    tcase_add_test(tc, describe_walks_the_schema);
    tcase_add_test(tc, every_shipped_preset_loads);
    tcase_add_test(tc, shipped_presets_match_their_data_sheets);
    tcase_add_test(tc, curves_convert_and_round_trip);
    tcase_add_test(tc, curve_rules_name_key_and_reason);
    tcase_add_test(tc, curve_sums_and_solid_axles);
    tcase_add_test(tc, overrides_reach_curves_kinds_and_entries);
    tcase_add_test(tc, four_wheel_cross_field_rules);
    tcase_add_test(tc, terrain_bumps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(params_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
