/* Unit tests of params/: vehicle and world presets, overrides, the resolved
 * JSON round trip, listing and describing. The powertrain kinds' keys are
 * test_params_kinds.c's; the shipped presets and the four-wheel keys are
 * test_presets.c's. */
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
#include "params_internal.h"
#include "params_schema.h"
#include "sim/utv_mass.h"

#include "params_test_util.h"

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

#define MAX_KEYS 512

/* How describe marks a key of some powertrain kinds only:
 * "(powertrain.kind "utv" or "geared" only) ". */
#define SCOPE_OPEN "(powertrain.kind "

typedef struct key_list {
    char paths[MAX_KEYS][64];
    char units[MAX_KEYS][16];
    double min[MAX_KEYS];
    double max[MAX_KEYS];
    char defaults[MAX_KEYS][40];
    char scope[MAX_KEYS][64]; /* the kinds' names of a key of some kinds only, else "" */
    size_t n;
} key_list;

/* Whether key i of l applies to powertrain kind (its name). */
static bool applies_to(const key_list *l, size_t i, const char *kind)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "\"%s\"", kind);
    return l->scope[i][0] == '\0' || strstr(l->scope[i], quoted) != NULL;
}

/* Whether key i of l applies to exactly the kinds of scope ("\"lumped\""). */
static bool scope_is(const key_list *l, size_t i, const char *scope)
{
    return strcmp(l->scope[i], scope) == 0;
}

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
    l->scope[l->n][0] = '\0';
    if (strncmp(description, SCOPE_OPEN, strlen(SCOPE_OPEN)) == 0) {
        const char *names = description + strlen(SCOPE_OPEN);
        const char *end = strstr(names, " only) ");
        ck_assert_ptr_nonnull(end);
        snprintf(l->scope[l->n], sizeof l->scope[0], "%.*s", (int)(end - names), names);
    }
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
    /* Every key of a lumped vehicle, the default's powertrain, and none of
     * a utv's or a geared car's; a car's payload (mass.*) only when given,
     * and it is not. */
    size_t lumped_keys = 0;
    for (size_t i = 0; i < keys.n; i++) {
        if (!applies_to(&keys, i, "lumped") || strncmp(keys.paths[i], "mass.", 5) == 0) {
            ck_assert_msg(json_at(doc, keys.paths[i]) == NULL, "resolved JSON has %s",
                          keys.paths[i]);
            continue;
        }
        lumped_keys++;
        ck_assert_msg(json_at(doc, keys.paths[i]) != NULL, "resolved JSON lacks %s", keys.paths[i]);
    }
    ck_assert_uint_eq(count_leaves(doc), lumped_keys);
    ck_assert_str_eq(json_string_value(json_at(doc, "powertrain.kind")), "lumped");
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
    assert_reparses(resolved, &def);
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
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "traffic_sedan", ov, &a, &ra, err, sizeof err) ==
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
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", NULL, &base, NULL, err, sizeof err),
        PDK_OK);
    pdk_vehicle_def same;
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", "  ; ", &same, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&base, &same);
    ck_assert_int_eq(
        pdk_params_vehicle_load(PRESETS, "traffic_sedan", "", &same, NULL, err, sizeof err),
        PDK_OK);
    assert_same_vehicle(&base, &same);

    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "traffic_sedan",
                                          " chassis.mass = 1600 ;chassis.mass=1700;"
                                          "simulation.model=fourWheel;"
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
    ck_assert_int_eq(def.model, PDK_MODEL_FOUR_WHEEL);

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

/* The distance behind "did you mean": exact up to its limit, limit + 1
 * beyond it, whether the lengths alone or the table shows it. */
START_TEST(edit_distance_is_exact_up_to_its_limit)
{
    ck_assert_uint_eq(pdk_params_edit_distance("chassis.mas", "chassis.mass", 2), 1);
    ck_assert_uint_eq(pdk_params_edit_distance("kitten", "sitting", 3), 3);
    ck_assert_uint_eq(pdk_params_edit_distance("kitten", "sitting", 2), 3);
    ck_assert_uint_eq(pdk_params_edit_distance("", "", 0), 0);
    ck_assert_uint_eq(pdk_params_edit_distance("abc", "", 3), 3);
    ck_assert_uint_eq(pdk_params_edit_distance("abc", "", 2), 3);
    /* Equal lengths, every letter different: the table's rows pass the
     * limit long before its end. */
    ck_assert_uint_eq(pdk_params_edit_distance("aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb", 4),
                      5);
    ck_assert_uint_eq(pdk_params_edit_distance("aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb", 20),
                      20);
    /* Over 127 characters: beyond any limit. */
    char longer[129];
    memset(longer, 'a', 128);
    longer[128] = '\0';
    ck_assert_uint_eq(pdk_params_edit_distance(longer, longer, 200), 201);
    ck_assert_uint_eq(pdk_params_edit_distance(longer + 1, longer + 2, 1), 1);
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

    m = vparse_expect("{}", "motor.idleRpm=800", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "motor: unknown key (known keys: description, simulation, chassis");

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

/* ---- tyres ----------------------------------------------------------------- */

/* The tyre keys of both axles land in sim's fields, the soil model's copies
 * and the Magic Formula coefficients follow from them, and the resolved
 * JSON holds every one and parses back to the same bits. */
START_TEST(tyre_keys_resolve_and_round_trip)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    char *resolved = NULL;
    const char *text =
        "{\"tyres\":{\"front\":{\"law\":\"magicFormula\",\"mfSet\":\"road205\",\"radius\":0.33,"
        "\"nominalLoad\":4500,\"width\":0.235,\"sectionHeight\":0.1,\"inflationKpa\":250,"
        "\"carcassKpa\":30,\"spinInertia\":1.25,\"relaxationLong\":0.12,\"relaxationLat\":0.4,"
        "\"loadSensitivity\":0.05,\"slideGrip\":0,\"rollingCoeff\":0.009,"
        "\"life\":{\"coldTempC\":15,\"optimalTempC\":85,\"windowC\":40,\"treadDepth\":0.007,"
        "\"wearRate\":2.5e-10,\"rimRadius\":0.24,\"hubRadius\":0.15,\"flatDrop\":0.06,"
        "\"airConductancePerSpeed\":3.5}},"
        "\"rear\":{\"law\":\"utv\",\"hardSlipStiffness\":12,\"slipStiffness\":20,\"trail\":0.02,"
        "\"combinedSlipLoss\":0.6,\"lugHeight\":0.012,\"lugAreaRatio\":0.35,\"treadK\":0.008,"
        "\"hysteresis\":0.12}}}";
    ck_assert_msg(pdk_params_vehicle_parse(text, "tyres", NULL, &def, &resolved, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    const pdk_axle_tyre_def *f = &def.tyre_front;
    ck_assert_int_eq(f->law.law, PDK_TYRE_MAGIC);
    ck_assert_int_eq(f->law.mf_set, PDK_MF_ROAD_205_60R15);
    ck_assert_mem_eq(&f->law.mf, pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15), sizeof f->law.mf);
    ck_assert_double_eq(f->law.radius_m, 0.33);
    ck_assert_double_eq(f->law.nominal_load_n, 4500);
    ck_assert_double_eq(f->law.relaxation_long_m, 0.12);
    ck_assert_double_eq(f->law.relaxation_lat_m, 0.4);
    ck_assert_double_eq(f->law.load_sensitivity, 0.05);
    ck_assert_double_eq(f->law.slide_grip, 0);
    ck_assert_double_eq(f->law.rolling_coeff, 0.009);
    ck_assert_double_eq(f->spin_inertia_kgm2, 1.25);
    ck_assert_double_eq(f->soil.width_m, 0.235);
    ck_assert_double_eq(f->soil.section_height_m, 0.1);
    /* One radius and one pressure, in SI where sim wants Pa. */
    ck_assert_double_eq(f->soil.radius_m, 0.33);
    ck_assert_double_eq(f->life.cold_pressure_kpa, 250);
    ck_assert_double_eq(f->soil.inflation_pa, 250000);
    ck_assert_double_eq(f->soil.carcass_pa, 30000);
    ck_assert_double_eq(f->life.cold_temp_c, 15);
    ck_assert_double_eq(f->life.optimal_temp_c, 85);
    ck_assert_double_eq(f->life.window_c, 40);
    ck_assert_double_eq(f->life.tread_depth_m, 0.007);
    ck_assert_double_eq(f->life.wear_m_per_j, 2.5e-10);
    ck_assert_double_eq(f->life.rim_radius_m, 0.24);
    ck_assert_double_eq(f->life.hub_radius_m, 0.15);
    ck_assert_double_eq(f->life.flat_drop_m, 0.06);
    ck_assert_double_eq(f->life.air_wpk_per_mps, 3.5);
    const pdk_axle_tyre_def *r = &def.tyre_rear;
    ck_assert_int_eq(r->law.law, PDK_TYRE_UTV);
    ck_assert_double_eq(r->law.hard_slip_stiffness, 12);
    ck_assert_double_eq(r->law.slip_stiffness_per_load, 20);
    ck_assert_double_eq(r->law.trail_m, 0.02);
    ck_assert_double_eq(r->law.combined_slip_loss, 0.6);
    ck_assert_double_eq(r->soil.lug_height_m, 0.012);
    ck_assert_double_eq(r->soil.lug_area_ratio, 0.35);
    ck_assert_double_eq(r->soil.tread_k_m, 0.008);
    ck_assert_double_eq(r->soil.hysteresis, 0.12);
    /* Keys left out are the vehicle default's. */
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    ck_assert_double_eq(r->law.radius_m, ref.tyre_rear.law.radius_m);
    ck_assert_double_eq(r->soil.radius_m, ref.tyre_rear.law.radius_m);
    ck_assert_double_eq(r->life.window_loss, ref.tyre_rear.life.window_loss);
    ck_assert_double_eq(r->spin_inertia_kgm2, ref.tyre_rear.spin_inertia_kgm2);

    json_error_t jerr;
    json_t *doc = json_loads(resolved, 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_string_value(json_at(doc, "tyres.front.law")), "magicFormula");
    ck_assert_str_eq(json_string_value(json_at(doc, "tyres.front.mfSet")), "road205");
    ck_assert_str_eq(json_string_value(json_at(doc, "tyres.rear.law")), "utv");
    ck_assert_double_eq(json_number_value(json_at(doc, "tyres.front.carcassKpa")), 30);
    ck_assert_double_eq(json_number_value(json_at(doc, "tyres.front.life.windowC")), 40);
    ck_assert_ptr_nonnull(json_at(doc, "tyres.rear.life.flatToRim"));
    json_decref(doc);
    assert_reparses(resolved, &def);
    free(resolved);
}
END_TEST

START_TEST(tyre_overrides_pick_law_and_coefficient_set)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    ck_assert_msg(pdk_params_vehicle_parse("{}", "empty",
                                           "tyres.rear.law=magicFormula;tyres.rear.mfSet=slick",
                                           &def, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(def.tyre_rear.law.law, PDK_TYRE_MAGIC);
    ck_assert_int_eq(def.tyre_rear.law.mf_set, PDK_MF_SLICK);
    ck_assert_mem_eq(&def.tyre_rear.law.mf, pdk_mf_set_coeffs(PDK_MF_SLICK),
                     sizeof def.tyre_rear.law.mf);
    /* The front keeps the default's law. */
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    ck_assert_int_eq(def.tyre_front.law.law, ref.tyre_front.law.law);
    /* A group as an object merges: the life keys not named stay. */
    ck_assert_msg(pdk_params_vehicle_parse("{}", "empty",
                                           "tyres.front.life={\"windowC\": 30}; "
                                           "tyres.front.inflationKpa=180",
                                           &def, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(def.tyre_front.life.window_c, 30);
    ck_assert_double_eq(def.tyre_front.life.optimal_temp_c, ref.tyre_front.life.optimal_temp_c);
    ck_assert_double_eq(def.tyre_front.soil.inflation_pa, 180000);
    /* Every shipped set by the name sim gives it (pdk_mf_set_name). */
    for (int set = PDK_MF_ROAD_205_60R15; set < PDK_MF_SET_COUNT; set++) {
        const char *name = pdk_mf_set_name((pdk_mf_set)set);
        ck_assert_ptr_nonnull(name);
        char ov[96];
        snprintf(ov, sizeof ov, "tyres.front.law=magicFormula; tyres.front.mfSet=%s", name);
        ck_assert_msg(pdk_params_vehicle_parse("{}", "empty", ov, &def, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s: %s", name, err);
        ck_assert_int_eq(def.tyre_front.law.mf_set, set);
        ck_assert_mem_eq(&def.tyre_front.law.mf, pdk_mf_set_coeffs((pdk_mf_set)set),
                         sizeof def.tyre_front.law.mf);
    }
}
END_TEST

/* Every way a tyre key can be wrong, each message naming the key. */
START_TEST(tyre_key_errors_name_key_and_bound)
{
    const char *m;
    m = vparse_expect("{}", "tyres.rear.law=pacejka", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'tyres.rear.law=pacejka': tyres.rear.law: \"pacejka\" is not a tyre "
                  "law (allowed: \"grip\", \"magicFormula\", \"utv\")");
    m = vparse_expect("{\"tyres\":{\"front\":{\"mfSet\":\"wet\"}}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "test.json: tyres.front.mfSet: \"wet\" is not a Magic Formula coefficient set "
                  "(allowed: \"road205\", \"sport\", \"slick\", \"kart\")");
    m = vparse_expect("{\"tyres\":{\"front\":{\"law\":2}}}", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front.law: expected a string, got number");
    m = vparse_expect("{}", "tyres.front.life.windowC=0", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.front.life.windowC: 0 is below the minimum 1 (degC)");
    m = vparse_expect("{}", "tyres.rear.inflationKpa=2000", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.rear.inflationKpa: 2000 is above the maximum 1500 (kPa)");
    m = vparse_expect("{}", "tyres.rear.radius=3", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.rear.radius: 3 is above the maximum 2 (m)");
    m = vparse_expect("{}", "tyres.front.spinInertia=0", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.front.spinInertia: 0 is below the minimum 0.001 (kg*m^2)");
    m = vparse_expect("{}", "tyres.front.life.wearRate=fast", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front.life.wearRate: expected a number, got string \"fast\"");
    m = vparse_expect("{\"tyres\":{\"front\":{\"life\":{\"colour\":1}}}}", NULL,
                      PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "tyres.front.life.colour: unknown key");
    m = vparse_expect("{}", "tyres.front.life.optimalTemp=80", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "did you mean tyres.front.life.optimalTempC?");
    m = vparse_expect("{}", "tyres.front.life=3", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front.life");

    /* The sizes in their physical order, on the four-wheel model. */
    m = vparse_expect("{}", "tyres.front.radius=0.3; tyres.front.sectionHeight=0.3",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "with its overrides: tyres.front.sectionHeight (0.3 m) must be less than "
                  "tyres.front.radius (0.3 m)");
    m = vparse_expect("{}",
                      "tyres.rear.radius=0.3; tyres.rear.life.rimRadius=0.2; "
                      "tyres.rear.life.hubRadius=0.1; tyres.rear.life.flatDrop=0.12",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.rear.radius - tyres.rear.life.flatDrop = 0.18 m must be above "
                  "tyres.rear.life.rimRadius (0.2 m)");
    m = vparse_expect("{}",
                      "tyres.rear.radius=0.3; tyres.rear.life.rimRadius=0.2; "
                      "tyres.rear.life.hubRadius=0.25; tyres.rear.life.flatDrop=0.05",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.rear.life.hubRadius (0.25 m) must be at most tyres.rear.life.rimRadius "
                  "(0.2 m)");
    m = vparse_expect("{}", "tyres.front.sectionHeight=0.05; tyres.front.lugHeight=0.05",
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "tyres.front.lugHeight (0.05 m) must be less than tyres.front.sectionHeight "
                  "(0.05 m)");
    /* The single-track model reads none of them. */
    vparse_expect("{\"simulation\":{\"model\":\"singleTrack\"}}",
                  "tyres.front.radius=0.3; tyres.front.sectionHeight=0.3", PDK_OK);
}
END_TEST

/* ---- the powertrain's kinds: a utv's and a geared car's keys ---------- */

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

    /* Errors name the preset as the client did and the presets there are,
     * never the server's folders. */
    m = vehicle_expect("nope", NULL, PDK_ERR_NOT_FOUND);
    ASSERT_HAS(m, "vehicle preset \"nope\" ");
    ck_assert_msg(strchr(m, '/') == NULL, "%s", m);

    write_file("vehicles/broken.json", "{\n  \"chassis\": {\"mass\": 1500,}\n}\n");
    m = vehicle_expect("broken", NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "vehicle preset \"broken\": line 2");
    ck_assert_msg(strstr(m, tmp_dir) == NULL, "%s", m);

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
    ASSERT_HAS(m, "vehicle preset \"nul\": contains a NUL byte");

    write_file("vehicles/array.json", "[1, 2]");
    m = vehicle_expect("array", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "vehicle preset \"array\": expected a JSON object at the top level, got array");

    write_file("vehicles/mas.json", "{\"chassis\": {\"mas\": 1500}}");
    m = vehicle_expect("mas", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "vehicle preset \"mas\": chassis.mas: unknown key (did you mean chassis.mass?)");

    write_file("vehicles/far.json", "{\"chassis\": {\"springRate\": 1}}");
    m = vehicle_expect("far", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "chassis.springRate: unknown key (known keys under chassis: mass, yawInertia, "
                  "rollInertia, pitchInertia, wheelbase, cgToFrontAxle, cgHeight, trackWidth, "
                  "angularDamping, bodyLength, bodyWidth, bodyHeight)");

    write_file("vehicles/snake.json", "{\"chassis\": {\"cg_height\": 0.5}}");
    m = vehicle_expect("snake", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "did you mean chassis.cgHeight?");

    write_file("vehicles/flatkey.json", "{\"chassis.mass\": 1500}");
    m = vehicle_expect("flatkey", NULL, PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "\"chassis.mass\": unknown key (keys are plain names");

    write_file("vehicles/type.json", "{\"steering\": {\"ratio\": \"16\"}}");
    m = vehicle_expect("type", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "vehicle preset \"type\": steering.ratio: expected a number, got string");

    write_file("vehicles/group.json", "{\"tyres\": {\"front\": [1]}}");
    m = vehicle_expect("group", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "tyres.front: expected an object, got array");

    write_file("vehicles/neg.json", "{\"chassis\": {\"mass\": -3}}");
    m = vehicle_expect("neg", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "vehicle preset \"neg\": chassis.mass: -3 is below the minimum 50 (kg)");

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
    ASSERT_HAS(m, "vehicle preset \"folder\": is a directory, not a file");
    ck_assert_msg(strchr(m, '/') == NULL, "%s", m);
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
    ASSERT_HAS(m, "vehicle preset \"huge\": larger than the 1048576-byte limit");

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
    ASSERT_HAS(err, "world preset \"moon\" does not exist: the server has no world presets");
    ck_assert_msg(strchr(err, '/') == NULL, "%s", err);
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

/* A preset that is not there is named as the client gave it, with the
 * presets there are, and no server folder shows. */
START_TEST(missing_preset_names_the_choices)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def w;
    ck_assert_int_eq(pdk_params_world_load(PRESETS, "nope", NULL, &w, NULL, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ASSERT_HAS(err, "world preset \"nope\" is not one of: ");
    ASSERT_HAS(err, "flat");
    ck_assert_msg(strchr(err, '/') == NULL, "%s", err);
    pdk_vehicle_def v;
    ck_assert_int_eq(pdk_params_vehicle_load(PRESETS, "nope", NULL, &v, NULL, err, sizeof err),
                     PDK_ERR_NOT_FOUND);
    ASSERT_HAS(err, "vehicle preset \"nope\" is not one of: ");
    ASSERT_HAS(err, ", kart, ");
    ck_assert_msg(strchr(err, '/') == NULL, "%s", err);
}
END_TEST

/* ---- provenance ----------------------------------------------------------- */

/* Parses a vehicle from text, expecting code; returns the message (or the
 * resolved JSON on success, which the caller frees). */
static char *parse_vehicle(const char *text, pdk_error code, char *err, size_t err_len)
{
    pdk_vehicle_def def;
    char *resolved = NULL;
    err[0] = '\0';
    pdk_error rc = pdk_params_vehicle_parse(text, "prov", NULL, &def, &resolved, err, err_len);
    ck_assert_msg(rc == code, "expected %s, got %s: %s (%s)", pdk_error_name(code),
                  pdk_error_name(rc), err, text);
    return resolved;
}

/* Any key may be a bare value or a provenance object {value, basis,
 * source, sd | range, note}: the model reads the value alone, so the
 * resolved parameters are those of the bare values, byte for byte; a
 * number, a choice, a text and a curve each take one, at any depth. */
START_TEST(provenance_objects_resolve_to_their_values)
{
    char err[PDK_PARAMS_ERR_LEN];
    const char *bare = "{\"description\":\"d\",\"chassis\":{\"mass\":1480},"
                       "\"steering\":{\"ratio\":15.2},"
                       "\"tyres\":{\"front\":{\"law\":\"magicFormula\"}},"
                       "\"suspension\":{\"front\":{\"kinematics\":{\"camberDeg\":"
                       "[[-0.05,-1.0],[0.05,1.0]]}}}}";
    const char *with =
        "{\"description\":{\"value\":\"d\",\"note\":\"a text may carry one too\"},"
        "\"chassis\":{\"mass\":{\"value\":1480,\"basis\":\"oem\",\"source\":\"owner's manual, "
        "curb weight\",\"sd\":15,\"note\":\"with fluids\"}},"
        "\"steering\":{\"ratio\":{\"value\":15.2,\"basis\":\"fitted\",\"range\":[14,16.5]}},"
        "\"tyres\":{\"front\":{\"law\":{\"value\":\"magicFormula\",\"basis\":\"estimate\"}}},"
        "\"suspension\":{\"front\":{\"kinematics\":{\"camberDeg\":{\"value\":"
        "[[-0.05,-1.0],[0.05,1.0]],\"basis\":\"derived\",\"source\":\"K&C sweep\"}}}}}";
    char *a = parse_vehicle(bare, PDK_OK, err, sizeof err);
    char *b = parse_vehicle(with, PDK_OK, err, sizeof err);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    /* every basis */
    const char *bases[] = {"oem", "dataspeed", "installed", "fitted", "derived", "estimate"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        char text[160];
        snprintf(text, sizeof text, "{\"chassis\":{\"mass\":{\"value\":1480,\"basis\":\"%s\"}}}",
                 bases[i]);
        free(parse_vehicle(text, PDK_OK, err, sizeof err));
    }
    /* a value on the edge of its range, and an sd of 0 */
    free(parse_vehicle("{\"chassis\":{\"mass\":{\"value\":1480,\"range\":[1480,1480]}}}", PDK_OK,
                       err, sizeof err));
    free(parse_vehicle("{\"chassis\":{\"mass\":{\"value\":1480,\"sd\":0}}}", PDK_OK, err,
                       sizeof err));
    /* the value is still checked as the key's */
    parse_vehicle("{\"chassis\":{\"mass\":{\"value\":-3,\"basis\":\"oem\"}}}", PDK_ERR_OUT_OF_RANGE,
                  err, sizeof err);
    ASSERT_HAS(err, "chassis.mass: -3 is below the minimum");
    parse_vehicle("{\"chassis\":{\"mass\":{\"value\":\"heavy\"}}}", PDK_ERR_WRONG_TYPE, err,
                  sizeof err);
    ASSERT_HAS(err, "chassis.mass: expected a number");
}
END_TEST

/* A list key (terrain.patches of the mixed_field world) in a provenance
 * object resolves as the bare list does, byte for byte. */
START_TEST(provenance_on_a_list_key)
{
    char err[PDK_PARAMS_ERR_LEN];
    char path[512];
    snprintf(path, sizeof path, "%s/worlds/mixed_field.json", PRESETS);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    ck_assert_ptr_nonnull(doc);
    char *bare = json_dumps(doc, 0);
    json_t *terrain = json_object_get(doc, "terrain");
    json_t *patches = json_object_get(terrain, "patches");
    ck_assert(json_is_array(patches));
    json_t *prov = json_pack("{sOss ss}", "value", patches, "basis", "estimate", "source",
                             "laid out for the tyres tests");
    ck_assert_int_eq(json_object_set_new(terrain, "patches", prov), 0);
    char *wrapped = json_dumps(doc, 0);
    pdk_world_def a, b;
    char *ra = NULL, *rb = NULL;
    ck_assert_msg(pdk_params_world_parse(bare, "bare", NULL, &a, &ra, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_msg(pdk_params_world_parse(wrapped, "wrapped", NULL, &b, &rb, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    ck_assert_str_eq(ra, rb);
    free(ra);
    free(rb);
    free(bare);
    free(wrapped);
    json_decref(doc);
}
END_TEST

/* Each way a provenance object can be wrong is an error naming the key
 * and what is wrong with it. */
START_TEST(provenance_errors_name_key_and_reason)
{
    char err[PDK_PARAMS_ERR_LEN];
    const struct {
        const char *text;
        pdk_error code;
        const char *part;
    } cases[] = {
        {"{\"chassis\":{\"mass\":{\"basis\":\"oem\"}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: an object here is a provenance object and needs its \"value\""},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"bsis\":\"oem\"}}}", PDK_ERR_UNKNOWN_KEY,
         "chassis.mass: unknown key \"bsis\" in a provenance object"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"basis\":\"guess\"}}}", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass: basis \"guess\" is not one of oem, dataspeed"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"basis\":3}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: provenance basis: expected a string, got number"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"source\":7}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: provenance source: expected a string, got number"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"note\":[\"x\"]}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: provenance note: expected a string, got array"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"sd\":-1}}}", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass: provenance sd must be a number at least 0"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"sd\":\"5\"}}}", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass: provenance sd must be a number at least 0"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"range\":[1500,1400]}}}", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass: provenance range must be [low, high] with low <= high"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"range\":[1400]}}}", PDK_ERR_OUT_OF_RANGE,
         "provenance range must be [low, high]"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"range\":\"1400-1500\"}}}", PDK_ERR_OUT_OF_RANGE,
         "provenance range must be [low, high]"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"range\":[1490,1500]}}}", PDK_ERR_OUT_OF_RANGE,
         "chassis.mass: value 1480 is outside its provenance range [1490, 1500]"},
        {"{\"chassis\":{\"mass\":{\"value\":1480,\"sd\":5,\"range\":[1400,1500]}}}",
         PDK_ERR_OUT_OF_RANGE, "chassis.mass: provenance gives sd or range, not both"},
        {"{\"tyres\":{\"front\":{\"law\":{\"value\":\"grip\",\"sd\":1}}}}", PDK_ERR_WRONG_TYPE,
         "tyres.front.law: provenance sd and range apply to a number only"},
        {"{\"chassis\":{\"mass\":{\"value\":\"1480\",\"range\":[1,2]}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: provenance sd and range apply to a number only"},
        {"{\"chassis\":{\"masss\":{\"value\":1480}}}", PDK_ERR_UNKNOWN_KEY, "chassis.masss"},
        /* an object with none of the six keys is not one: the key's type error */
        {"{\"chassis\":{\"mass\":{\"kg\":1480}}}", PDK_ERR_WRONG_TYPE,
         "chassis.mass: expected a number, got object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = parse_vehicle(cases[i].text, cases[i].code, err, sizeof err);
        ck_assert_ptr_null(r);
        ASSERT_HAS(err, cases[i].part);
        ASSERT_HAS(err, "prov: ");
    }
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

/* ---- finding a path in a schema ------------------------------------------ */

/* What path names, by a pass over every key: what pdk_schema_classify
 * answered before it searched the keys in path order. */
static pdk_schema_node classify_by_pass(const pdk_schema *s, const char *path, size_t *leaf)
{
    size_t len = strlen(path);
    if (len == 0) {
        return PDK_SCHEMA_GROUP;
    }
    for (size_t i = 0; i < s->n_keys; i++) {
        if (strcmp(s->keys[i].path, path) == 0) {
            *leaf = i;
            return PDK_SCHEMA_LEAF;
        }
    }
    for (size_t i = 0; i < s->n_keys; i++) {
        if (strncmp(s->keys[i].path, path, len) == 0 && s->keys[i].path[len] == '.') {
            return PDK_SCHEMA_GROUP;
        }
    }
    return PDK_SCHEMA_NONE;
}

static void assert_classified_as_by_pass(const pdk_schema *s, const char *path)
{
    size_t leaf = SIZE_MAX, want_leaf = SIZE_MAX;
    pdk_schema_node got = pdk_schema_classify(s, path, &leaf);
    pdk_schema_node want = classify_by_pass(s, path, &want_leaf);
    ck_assert_msg(got == want, "%s '%s': %d, by a pass %d", s->what, path, (int)got, (int)want);
    ck_assert_msg(leaf == want_leaf, "%s '%s': key %zu, by a pass %zu", s->what, path, leaf,
                  want_leaf);
    const pdk_param_key *k = pdk_schema_find_key(s, path);
    ck_assert_ptr_eq(k, want == PDK_SCHEMA_LEAF ? &s->keys[want_leaf] : NULL);
}

/* Every key, every group above it, and paths next to them (one character
 * more or less or changed, a '.' more) are named as a pass over the keys
 * names them, in both schemas. */
START_TEST(classify_finds_what_a_pass_finds)
{
    const pdk_schema *schemas[2] = {pdk_schema_for(PDK_PRESET_VEHICLE),
                                    pdk_schema_for(PDK_PRESET_WORLD)};
    static const char *const others[] = {
        "", ".", "a", "zzz", "chassis", "chassis.", "chassis.mass.", "tyres.front", "~"};
    for (size_t k = 0; k < 2; k++) {
        const pdk_schema *s = schemas[k];
        ck_assert_uint_gt(s->n_keys, 10);
        for (size_t o = 0; o < sizeof others / sizeof others[0]; o++) {
            assert_classified_as_by_pass(s, others[o]);
        }
        for (size_t i = 0; i < s->n_keys; i++) {
            const char *path = s->keys[i].path;
            size_t len = strlen(path);
            char p[256];
            ck_assert_uint_lt(len + 3, sizeof p);
            assert_classified_as_by_pass(s, path);
            for (size_t end = 1; end < len; end++) {
                memcpy(p, path, end);
                p[end] = '\0';
                assert_classified_as_by_pass(s, p);
            }
            snprintf(p, sizeof p, "%s.", path);
            assert_classified_as_by_pass(s, p);
            snprintf(p, sizeof p, "%sx", path);
            assert_classified_as_by_pass(s, p);
            snprintf(p, sizeof p, "%s", path);
            p[len - 1] = (char)(p[len - 1] + 1);
            assert_classified_as_by_pass(s, p);
            p[len - 1] = (char)(p[len - 1] - 2);
            assert_classified_as_by_pass(s, p);
        }
    }
}
END_TEST

/* ---- a prepared preset ---------------------------------------------------- */

/* pdk_params_vehicle_doc refuses what a load refuses before the overrides,
 * with its words; both calls refuse what they cannot use. */
START_TEST(a_prepared_preset_refuses_as_a_load_does)
{
    char err[PDK_PARAMS_ERR_LEN], err_load[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def def;
    pdk_params_doc *doc = (pdk_params_doc *)1;
    const char *const bad[] = {"no_such_car", "not valid!", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pdk_error want =
            pdk_params_vehicle_load(PRESETS, bad[i], NULL, &def, NULL, err_load, sizeof err_load);
        ck_assert_int_ne(want, PDK_OK);
        ck_assert_int_eq(pdk_params_vehicle_doc(PRESETS, bad[i], &doc, err, sizeof err), want);
        ck_assert_ptr_null(doc);
        ck_assert_str_eq(err, err_load);
    }
    ck_assert_int_eq(pdk_params_vehicle_doc(NULL, "midsize_sedan", &doc, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ASSERT_HAS(err, "no presets folder given");
    ck_assert_int_eq(pdk_params_vehicle_doc(PRESETS, "midsize_sedan", NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_params_vehicle_doc(PRESETS, "midsize_sedan", &doc, err, sizeof err),
                     PDK_OK);
    char *json = (char *)1;
    ck_assert_int_eq(pdk_params_vehicle_from_doc(NULL, "", &def, &json, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(json);
    ck_assert_int_eq(pdk_params_vehicle_from_doc(doc, "", NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ASSERT_HAS(err, "no prepared preset or no output definition given");
    ck_assert_int_eq(
        pdk_params_vehicle_from_doc(doc, "chassis.mass=1600", &def, NULL, err, sizeof err), PDK_OK);
    ck_assert_double_eq(def.chassis.mass_kg, 1600.0);
    pdk_params_doc_free(doc);
    pdk_params_doc_free(NULL);
}
END_TEST

/* ---- list and describe --------------------------------------------------- */

/* A name of pdk_params_names, which never has a description. */
static void collect_name(const char *name, const char *description, void *ud)
{
    ck_assert_ptr_null(description);
    listing *l = ud;
    ck_assert_uint_lt(l->n, 16);
    snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
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

    /* The names alone: the same, and no file read (no description). */
    listing names = {0};
    ck_assert_int_eq(pdk_params_names(tmp_dir, PDK_PRESET_VEHICLE, collect_name, &names), PDK_OK);
    ck_assert_uint_eq(names.n, 3);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_str_eq(names.names[i], l.names[i]);
    }
    ck_assert_int_eq(pdk_params_names(NULL, PDK_PRESET_VEHICLE, collect_name, &names),
                     PDK_ERR_INVALID_ARGUMENT);

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
    /* 2 + chassis 11 + contact 2 + 2 axles of tyres (3 + 22 + 27 life) + steering 7 + 2
     * axles of suspension 19 + drive 5 + brakes 4 + resistance 4, then
     * powertrain 2 + mass 34 (the utv's 28, a car's seats with their 3
     * fields, cargoMaxKg and cargoY) + the utv's suspension 7 +
     * corneringPerLoad 2 + engine 15 (the torque curve's 2 fields after it)
     * + fuel 3 + cvt 14 + gearbox 10 + the brake torques 4, then a geared
     * car's transmission 12 (the ratios' line after them) + clutch 3 +
     * handbrake 1 + driveline 9, then the drive-by-wire kit's 35, every
     * kind's. */
    ck_assert_uint_eq(v.n, 337);
    size_t n_utv = 0, n_geared = 0, n_lumped = 0, n_lumped_only = 0, n_utv_only = 0,
           n_geared_only = 0;
    for (size_t i = 0; i < v.n; i++) {
        n_utv += applies_to(&v, i, "utv");
        n_geared += applies_to(&v, i, "geared");
        n_lumped += applies_to(&v, i, "lumped");
        n_lumped_only += scope_is(&v, i, "\"lumped\"");
        n_utv_only += scope_is(&v, i, "\"utv\"");
        n_geared_only += scope_is(&v, i, "\"geared\"");
        ck_assert_msg(v.scope[i][0] == '\0' || scope_is(&v, i, "\"lumped\"") ||
                          scope_is(&v, i, "\"utv\"") || scope_is(&v, i, "\"geared\"") ||
                          scope_is(&v, i, "\"lumped\" or \"geared\"") ||
                          scope_is(&v, i, "\"utv\" or \"geared\""),
                      "%s: scope %s", v.paths[i], v.scope[i]);
    }
    /* A utv's own keys (mass 23, its suspension 7, corneringPerLoad 2,
     * the drive mode, cvt 14, gearbox 10); the lumped vehicle's drive 5 and
     * brake forces 3; a geared car's own 31 (the ratios' line, the
     * converter's two and the centre differential's three included);
     * the engine's 17, fuel 3 and brake torques 4 of both; the chassis 6
     * and per axle corneringStiffness, nominalLoad and 6 suspension keys
     * that a utv derives, and a car's payload keys 6 (mass.seats with its
     * fields, cargoMaxKg, cargoY). The payload keys a utv shares with a
     * car (mass.occupants, occupantKg, cargoKg, cargoX, cargoZ) are every
     * kind's. */
    ck_assert_uint_eq(n_utv_only, 57);
    ck_assert_uint_eq(n_lumped_only, 8);
    ck_assert_uint_eq(n_geared_only, 31);
    ck_assert_uint_eq(n_lumped, 337 - 57 - 31 - 24);
    ck_assert_uint_eq(n_utv, 337 - 8 - 31 - 28);
    ck_assert_uint_eq(n_geared, 337 - 57 - 8);
    ck_assert_str_eq(v.paths[0], "description");
    ck_assert_str_eq(v.units[0], "text");
    ck_assert(isnan(v.min[0]) && isnan(v.max[0]));
    pdk_vehicle_def ref = pdk_vehicle_def_default();
    int seen = 0;
    for (size_t i = 0; i < v.n; i++) {
        for (size_t j = 0; j < i; j++) {
            ck_assert_str_ne(v.paths[i], v.paths[j]);
        }
        if (!isnan(v.min[i]) && v.defaults[i][0] != '(') {
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
        if (strcmp(v.paths[i], "tyres.rear.law") == 0) {
            ck_assert_str_eq(v.units[i], "choice");
            ck_assert_str_eq(v.defaults[i], "grip");
            seen++;
        }
        if (strcmp(v.paths[i], "tyres.front.mfSet") == 0) {
            ck_assert_str_eq(v.defaults[i], pdk_mf_set_name(ref.tyre_front.law.mf_set));
            seen++;
        }
        if (strcmp(v.paths[i], "tyres.front.carcassKpa") == 0) {
            ck_assert_str_eq(v.units[i], "kPa");
            ck_assert_double_eq_tol(strtod(v.defaults[i], NULL) * 1000,
                                    ref.tyre_front.soil.carcass_pa, 1e-9);
            seen++;
        }
        if (strcmp(v.paths[i], "tyres.rear.life.optimalTempC") == 0) {
            ck_assert_str_eq(v.units[i], "degC");
            ck_assert_double_eq(strtod(v.defaults[i], NULL), ref.tyre_rear.life.optimal_temp_c);
            seen++;
        }
        if (strcmp(v.paths[i], "transmission.ratios") == 0) {
            ck_assert_str_eq(v.units[i], "list");
            ck_assert_str_eq(v.defaults[i], "(6 entries)");
            ck_assert_str_eq(v.paths[i + 1], "transmission.ratios[]");
            ck_assert_str_eq(v.units[i + 1], "-");
            ck_assert_double_eq(v.min[i + 1], 0.05);
            ck_assert_double_eq(v.max[i + 1], 50);
            ck_assert_str_eq(v.defaults[i + 1], "(required)");
            ck_assert_str_eq(v.scope[i + 1], "\"geared\"");
            seen++;
        }
        if (strcmp(v.paths[i], "brakes.abs") == 0) {
            ck_assert_str_eq(v.units[i], "bool");
            ck_assert_str_eq(v.defaults[i], "false");
            ck_assert_str_eq(v.scope[i], "\"utv\" or \"geared\"");
            seen++;
        }
        if (strcmp(v.paths[i], "transmission.shift") == 0) {
            ck_assert_str_eq(v.units[i], "choice");
            ck_assert_str_eq(v.defaults[i], "automatic");
            seen++;
        }
        if (strcmp(v.paths[i], "chassis.mass") == 0) {
            ck_assert_str_eq(v.scope[i], "\"lumped\" or \"geared\"");
        }
        if (strcmp(v.paths[i], "dbw.steering.rate") == 0) {
            ck_assert_str_eq(v.units[i], "deg/s");
            ck_assert_double_eq(v.min[i], 1);
            ck_assert_double_eq(v.max[i], 1016);
            ck_assert_double_eq(strtod(v.defaults[i], NULL), ref.dbw.steer_rate_degps);
            ck_assert_str_eq(v.scope[i], "");
            seen++;
        }
        if (strcmp(v.paths[i], "dbw.lockout.reverse") == 0) {
            ck_assert_str_eq(v.units[i], "bool");
            ck_assert_str_eq(v.defaults[i], "false");
            seen++;
        }
    }
    ck_assert_int_eq(seen, 16);

    key_list w = {0};
    pdk_params_describe(PDK_PRESET_WORLD, collect_key, &w);
    /* 8 keys, the 6 fields of a bump after terrain.bumps, the 4 terrain
     * keys, terrain.ramps and its 8 fields, terrain.patches and its 9, the 7
     * keys of terrain.field. */
    ck_assert_uint_eq(w.n, 44);
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
    int wseen = 0;
    for (size_t i = 0; i < w.n; i++) {
        if (!isnan(w.min[i]) && w.defaults[i][0] != '(' && strcmp(w.defaults[i], "[]") != 0) {
            double d = strtod(w.defaults[i], NULL);
            ck_assert_msg(d >= w.min[i] && d <= w.max[i], "default of %s (%s) outside [%g, %g]",
                          w.paths[i], w.defaults[i], w.min[i], w.max[i]);
        }
        if (strcmp(w.paths[i], "terrain.surface") == 0) {
            ck_assert_str_eq(w.units[i], "choice");
            ck_assert_str_eq(w.defaults[i], "tarmac");
            wseen++;
        }
        if (strcmp(w.paths[i], "terrain.ramps[].gradePct") == 0) {
            ck_assert_str_eq(w.units[i], "%");
            ck_assert_double_eq(w.max[i], 100);
            ck_assert_str_eq(w.defaults[i], "(required)");
            wseen++;
        }
        if (strcmp(w.paths[i], "terrain.ramps[].transition") == 0) {
            ck_assert_str_eq(w.defaults[i], "0");
            wseen++;
        }
        if (strcmp(w.paths[i], "terrain.patches[].shape") == 0) {
            ck_assert_str_eq(w.defaults[i], "rect");
            wseen++;
        }
        if (strcmp(w.paths[i], "terrain.field.heights") == 0) {
            ck_assert_str_eq(w.units[i], "[m]");
            ck_assert_double_eq(w.max[i], PDK_TERRAIN_MAX_HEIGHT_M);
            ck_assert_str_eq(w.defaults[i], "[]");
            wseen++;
        }
        if (strcmp(w.paths[i], "terrain.field.materials") == 0) {
            ck_assert_str_eq(w.units[i], "[surface]");
            ck_assert(isnan(w.min[i]));
            wseen++;
        }
        if (strcmp(w.paths[i], "substeps") == 0) {
            ck_assert_int_eq(atoi(w.defaults[i]), wref.substeps);
        }
        if (strcmp(w.paths[i], "gravity") == 0) {
            ck_assert_str_eq(w.units[i], "m/s^2");
            ck_assert_double_eq(strtod(w.defaults[i], NULL), wref.gravity_mps2);
        }
    }
    ck_assert_int_eq(wseen, 6);
    pdk_params_describe(PDK_PRESET_WORLD, NULL, NULL);
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
    tcase_add_test(tc, edit_distance_is_exact_up_to_its_limit);
    tcase_add_test(tc, override_errors_name_the_override);
    tcase_add_test(tc, override_values_and_keys_at_their_limits);
    tcase_add_test(tc, messages_are_printable_utf8);
    tcase_add_test(tc, cross_field_invariants_name_both_fields);
    tcase_add_test(tc, tyre_keys_resolve_and_round_trip);
    tcase_add_test(tc, tyre_overrides_pick_law_and_coefficient_set);
    tcase_add_test(tc, tyre_key_errors_name_key_and_bound);
    tcase_add_test(tc, file_errors_name_file_key_and_reason);
    tcase_add_test(tc, world_errors);
    tcase_add_test(tc, missing_preset_names_the_choices);
    tcase_add_test(tc, provenance_objects_resolve_to_their_values);
    tcase_add_test(tc, provenance_on_a_list_key);
    tcase_add_test(tc, provenance_errors_name_key_and_reason);
    tcase_add_test(tc, bad_arguments_and_small_buffers);
    tcase_add_test(tc, classify_finds_what_a_pass_finds);
    tcase_add_test(tc, a_prepared_preset_refuses_as_a_load_does);
    tcase_add_test(tc, list_sorts_names_and_reads_descriptions);
    tcase_add_test(tc, describe_walks_the_schema);
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
