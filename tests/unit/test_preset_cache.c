/* Unit tests of the preset cache (params/preset_cache.h): a hit is exactly
 * what the loader makes, an edited preset is loaded again, overrides are
 * part of the key, and the loader's errors come through unchanged. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "params.h"
#include "preset_cache.h"

#include "params_test_util.h"

static char tmp_dir[64];
static char veh_dir[96];
static char sedan_path[160];

/* A presets folder with one vehicle, "car", a copy of midsize_sedan. */
static void make_presets(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/pdk-cache-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
    snprintf(veh_dir, sizeof veh_dir, "%s/vehicles", tmp_dir);
    ck_assert_int_eq(mkdir(veh_dir, 0700), 0);
    snprintf(sedan_path, sizeof sedan_path, "%s/car.json", veh_dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s/vehicles/midsize_sedan.json' '%s'", PRESETS, sedan_path);
    ck_assert_int_eq(system(cmd), 0);
}

static void remove_presets(void)
{
    unlink(sedan_path);
    rmdir(veh_dir);
    rmdir(tmp_dir);
}

static pdk_vehicle_def fresh, cached;

START_TEST(a_hit_is_what_the_loader_makes)
{
    make_presets();
    pdk_preset_cache *c = pdk_preset_cache_new(4);
    ck_assert_ptr_nonnull(c);
    char err[PDK_PARAMS_ERR_LEN];
    char *json_fresh = NULL, *json_first = NULL, *json_hit = NULL;
    const char *ovr = "chassis.mass=1600";
    ck_assert_int_eq(
        pdk_params_vehicle_load(tmp_dir, "car", ovr, &fresh, &json_fresh, err, sizeof err), PDK_OK);
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", ovr, &cached, &json_first, err, sizeof err),
        PDK_OK);
    memset(&cached, 0xA5, sizeof cached);
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", ovr, &cached, &json_hit, err, sizeof err),
        PDK_OK);
    pdk_preset_cache_stats st = pdk_preset_cache_stats_get(c);
    ck_assert_uint_eq(st.loads, 1);
    ck_assert_uint_eq(st.hits, 1);
    assert_same_vehicle(&fresh, &cached);
    ck_assert_double_eq(cached.chassis.mass_kg, 1600.0);
    ck_assert_str_eq(json_hit, json_fresh);
    ck_assert_str_eq(json_first, json_fresh);
    ck_assert_ptr_ne(json_hit, json_first); /* the caller's own copy */

    /* Other overrides are another entry, loaded on their own. */
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err), PDK_OK);
    ck_assert_double_ne(cached.chassis.mass_kg, 1600.0);
    ck_assert_uint_eq(pdk_preset_cache_stats_get(c).loads, 2);
    free(json_fresh);
    free(json_first);
    free(json_hit);
    pdk_preset_cache_free(c);
    remove_presets();
}
END_TEST

/* Rewritten with another mass (and a later modification time): the next
 * use loads the new file. */
START_TEST(an_edited_preset_is_loaded_again)
{
    make_presets();
    pdk_preset_cache *c = pdk_preset_cache_new(4);
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err), PDK_OK);
    double mass_before = cached.chassis.mass_kg;
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "sed -i 's/\"mass\": 1500,/\"mass\": 1234.5,/' '%s' && touch -d '+2 seconds' "
             "'%s'",
             sedan_path, sedan_path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err), PDK_OK);
    ck_assert_double_ne(mass_before, 1234.5);
    ck_assert_double_eq(cached.chassis.mass_kg, 1234.5);
    ck_assert_uint_eq(pdk_preset_cache_stats_get(c).loads, 2);
    ck_assert_uint_eq(pdk_preset_cache_stats_get(c).hits, 0);
    ck_assert_uint_eq(pdk_preset_cache_stats_get(c).prepared, 2); /* the edit prepared again */

    /* Broken now: the loader's error, naming the preset, and nothing kept. */
    snprintf(cmd, sizeof cmd, "echo '{' > '%s'", sedan_path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err),
        PDK_ERR_PARSE);
    ck_assert_msg(strstr(err, "vehicle preset \"car\"") != NULL, "%s", err);
    pdk_preset_cache_free(c);
    remove_presets();
}
END_TEST

/* What the loader refuses, the cache refuses with its words. */
START_TEST(the_loaders_errors_come_through)
{
    make_presets();
    pdk_preset_cache *c = pdk_preset_cache_new(1);
    char err[PDK_PARAMS_ERR_LEN], err_load[PDK_PARAMS_ERR_LEN];
    const char *names[] = {"nope", "../vehicles/car", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pdk_error want =
            pdk_params_vehicle_load(tmp_dir, names[i], "", &fresh, NULL, err_load, sizeof err_load);
        ck_assert_int_ne(want, PDK_OK);
        ck_assert_int_eq(
            pdk_preset_cache_vehicle(c, tmp_dir, names[i], "", &cached, NULL, err, sizeof err),
            want);
        ck_assert_str_eq(err, err_load);
    }
    char *json = (char *)1;
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "noSuchKey=1", &cached, &json, err, sizeof err),
        PDK_ERR_UNKNOWN_KEY);
    ck_assert_ptr_null(json);
    ck_assert_msg(strstr(err, "noSuchKey") != NULL, "%s", err);
    /* One entry: the second preset-and-overrides pair replaces the first. */
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err), PDK_OK);
    ck_assert_int_eq(pdk_preset_cache_vehicle(c, tmp_dir, "car", "chassis.mass=1400", &cached, NULL,
                                              err, sizeof err),
                     PDK_OK);
    ck_assert_int_eq(
        pdk_preset_cache_vehicle(c, tmp_dir, "car", "", &cached, NULL, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(pdk_preset_cache_stats_get(c).hits, 0);
    pdk_preset_cache_free(c);
    remove_presets();
}
END_TEST

typedef struct names {
    char name[16][65];
    int n;
} names;

static void add_name(const char *name, const char *description, void *ud)
{
    (void)description;
    names *l = ud;
    ck_assert_int_lt(l->n, 16);
    snprintf(l->name[l->n++], sizeof l->name[0], "%s", name);
}

/* Overrides the cache has not seen load from the file prepared once
 * (pdk_params_vehicle_doc): for every shipped vehicle preset and overrides
 * that apply, that are out of range, unknown, malformed or of the wrong
 * type, one after another on one cache, the result, the resolved JSON and
 * the error are the loader's own, and the prepared file is left as it was
 * (a later load without overrides is the plain one). */
START_TEST(new_overrides_load_from_the_prepared_file_as_the_loader_does)
{
    names l = {0};
    ck_assert_int_eq(pdk_params_names(PRESETS, PDK_PRESET_VEHICLE, add_name, &l), PDK_OK);
    ck_assert_int_ge(l.n, 5);
    const char *const overrides[] = {"chassis.mass=1600",
                                     "chassis.mass=-5",
                                     "noSuchKey=1",
                                     "chassis.mass",
                                     "chassis.mass=\"heavy\"",
                                     "",
                                     "chassis.mass=1601;chassis.cgHeight=0.6"};
    for (int p = 0; p < l.n; p++) {
        pdk_preset_cache *c = pdk_preset_cache_new(2);
        for (size_t o = 0; o < sizeof overrides / sizeof overrides[0]; o++) {
            char err[PDK_PARAMS_ERR_LEN] = "", err_load[PDK_PARAMS_ERR_LEN] = "";
            char *json = NULL, *json_load = NULL;
            pdk_error want = pdk_params_vehicle_load(PRESETS, l.name[p], overrides[o], &fresh,
                                                     &json_load, err_load, sizeof err_load);
            pdk_error got = pdk_preset_cache_vehicle(c, PRESETS, l.name[p], overrides[o], &cached,
                                                     &json, err, sizeof err);
            ck_assert_msg(got == want, "%s '%s': %d, the loader %d (%s)", l.name[p], overrides[o],
                          (int)got, (int)want, err);
            if (want == PDK_OK) {
                assert_same_vehicle(&fresh, &cached);
                ck_assert_str_eq(json, json_load);
            } else {
                ck_assert_str_eq(err, err_load);
                ck_assert_ptr_null(json);
            }
            free(json);
            free(json_load);
        }
        /* Each a load of its own, all from the file prepared once. */
        ck_assert_uint_eq(pdk_preset_cache_stats_get(c).loads,
                          sizeof overrides / sizeof overrides[0]);
        ck_assert_uint_eq(pdk_preset_cache_stats_get(c).prepared, 1);
        pdk_preset_cache_free(c);
    }
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("preset_cache");
    TCase *tc = tcase_create("preset_cache");
    tcase_add_test(tc, a_hit_is_what_the_loader_makes);
    tcase_add_test(tc, an_edited_preset_is_loaded_again);
    tcase_add_test(tc, the_loaders_errors_come_through);
    tcase_add_test(tc, new_overrides_load_from_the_prepared_file_as_the_loader_does);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cache_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
