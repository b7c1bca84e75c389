/* Unit tests of params/ on world presets: the terrain's bumps, every
 * shipped world against its data sheet (docs/presets.md), the terrain keys
 * and their errors. The vehicle presets are test_presets.c's. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "ground/surface.h"
#include "ground/terrain.h"

#include "params_test_util.h"

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
    ASSERT_HAS(ra, "\"bumps\":[{\"height\":0.050000000000000003,\"length\":0.59999999999"
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

/* ---- worlds: terrain keys and the shipped worlds ---------------------------- */

static pdk_world_def *load_world(const char *name, const char *overrides)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def *w = malloc(sizeof *w);
    ck_assert_ptr_nonnull(w);
    ck_assert_msg(pdk_params_world_load(PRESETS, name, overrides, w, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    ck_assert_ptr_null(pdk_terrain_problem(&w->terrain));
    return w;
}

static double height_at(const pdk_world_def *w, double x, double y, double *slope_x)
{
    double n[3];
    double h = pdk_terrain_height(&w->terrain, x, y, n);
    if (slope_x != NULL) {
        *slope_x = -n[0] / n[2];
    }
    return h;
}

static int surface_at(const pdk_world_def *w, double x, double y, double *depth)
{
    return pdk_terrain_surface(&w->terrain, x, y, depth);
}

/* Every point a world's data sheet (docs/presets.md) names. */
START_TEST(shipped_worlds_match_their_data_sheets)
{
    double slope, depth;
    /* flat: dry tarmac at 20 C, any surface by override, plain or as the
     * short "surface". */
    pdk_world_def *w = load_world("flat", NULL);
    ck_assert(pdk_terrain_is_plane(&w->terrain));
    ck_assert_int_eq(w->terrain.base_surface_id, PDK_SURFACE_TARMAC);
    ck_assert_int_eq(w->terrain.contact_mode, PDK_CONTACT_RAY);
    ck_assert_double_eq(w->terrain.air_temp_c, 20);
    ck_assert_double_eq(w->terrain.road_temp_c, 20);
    free(w);
    w = load_world("flat", "surface=gravel");
    ck_assert_int_eq(surface_at(w, 100, -3, NULL), PDK_SURFACE_GRAVEL);
    pdk_world_def *same = load_world("flat", "terrain.surface=gravel");
    assert_same_world(w, same);
    free(same);
    free(w);

    /* flat_wet: the wet surface's own row. */
    w = load_world("flat_wet", NULL);
    ck_assert_int_eq(surface_at(w, 5, 5, NULL), PDK_SURFACE_TARMAC_WET);
    ck_assert_double_eq(pdk_surface_get(w->terrain.base_surface_id)->mu_peak, 0.7);
    ck_assert_double_eq(w->surface_friction, 1.0);
    free(w);

    /* skidpad: the 40 m circle about (0, 40) on tarmac all round, grass
     * beyond the 100 m pad. */
    w = load_world("skidpad", NULL);
    ck_assert(pdk_terrain_is_plane(&w->terrain));
    for (int k = 0; k < 36; k++) {
        double a = k * 10.0 * M_PI / 180;
        ck_assert_int_eq(surface_at(w, 40 * sin(a), 40 - 40 * cos(a), NULL), PDK_SURFACE_TARMAC);
        ck_assert_int_eq(
            surface_at(w, 49.9 * sin(a), 40 - 49.9 * cos(a), NULL) == PDK_SURFACE_TARMAC, 1);
    }
    ck_assert_int_eq(surface_at(w, 0, -10.5, NULL), PDK_SURFACE_GRASS);
    ck_assert_int_eq(surface_at(w, 50.5, 40, NULL), PDK_SURFACE_GRASS);
    ck_assert_int_eq(surface_at(w, 0, 90.5, NULL), PDK_SURFACE_GRASS);
    free(w);

    /* mixed_field: 25 m of each along +x, 10 m wide. */
    w = load_world("mixed_field", NULL);
    ck_assert(pdk_terrain_is_plane(&w->terrain));
    const int along[] = {PDK_SURFACE_TARMAC,    PDK_SURFACE_GRAVEL, PDK_SURFACE_GRASS,
                         PDK_SURFACE_SILT_LOAM, PDK_SURFACE_MUD,    PDK_SURFACE_TARMAC};
    for (int k = 0; k < 6; k++) {
        for (double y = -4.9; y <= 4.9; y += 4.9) {
            ck_assert_int_eq(surface_at(w, 25.0 * k + 0.1, y, NULL), along[k]);
            ck_assert_int_eq(surface_at(w, 25.0 * k + 24.9, y, NULL), along[k]);
        }
        ck_assert_int_eq(surface_at(w, 25.0 * k + 12.5, 5.1, NULL), PDK_SURFACE_TARMAC);
    }
    free(w);

    /* hill: 10, 20 and 30 % lanes at y = 0, 10, 20, 4.5 m up, a 20 m top. */
    w = load_world("hill", NULL);
    const double grade[] = {0.1, 0.2, 0.3};
    const double run[] = {45, 22.5, 15};
    const double round[] = {4, 3, 2};
    for (int k = 0; k < 3; k++) {
        double y = 10.0 * k + 2.9;
        double mid = 20 + run[k] / 2;
        ck_assert_double_eq_tol(height_at(w, mid, y, &slope), grade[k] * run[k] / 2, 1e-12);
        ck_assert_double_eq_tol(slope, grade[k], 1e-12);
        /* The constant grade runs from the first rounding's end to the
         * second's start. */
        ck_assert_double_eq_tol(height_at(w, 20 + round[k] / 2, y, &slope), grade[k] * round[k] / 2,
                                1e-12);
        ck_assert_double_eq_tol(slope, grade[k], 1e-12);
        ck_assert_double_eq_tol(height_at(w, 20 + run[k] + 10, y, &slope), 4.5, 1e-12);
        ck_assert_double_eq_tol(slope, 0, 1e-15);
        ck_assert_double_eq_tol(height_at(w, 20 + run[k] + 20 + run[k] / 2, y, &slope),
                                grade[k] * run[k] / 2, 1e-12);
        ck_assert_double_eq_tol(slope, -grade[k], 1e-12);
        ck_assert_double_eq(height_at(w, 20 + 2 * run[k] + 20 + round[k] / 2, y, NULL), 0);
        ck_assert_double_eq(height_at(w, 19 - round[k] / 2, y, NULL), 0);
        ck_assert_double_eq(height_at(w, mid, 10.0 * k + 5, NULL), 0); /* between lanes */
    }
    free(w);

    /* kerb_track: kerbs, humps and a pothole where the sheet puts them, met
     * by the cylinder. */
    w = load_world("kerb_track", NULL);
    ck_assert_int_eq(w->terrain.contact_mode, PDK_CONTACT_CYLINDER);
    ck_assert_double_eq_tol(height_at(w, 35, 3.0, NULL), 0.05, 1e-12);
    ck_assert_double_eq_tol(height_at(w, 20.1, -3.0, NULL), 0.05, 1e-12);
    ck_assert_int_eq(surface_at(w, 35, -3.0, NULL), PDK_SURFACE_CONCRETE);
    ck_assert_double_eq(height_at(w, 35, 2.4, NULL), 0);
    ck_assert_double_eq_tol(height_at(w, 60, -3.4, NULL), 0.075, 1e-12);
    ck_assert_double_eq_tol(height_at(w, 80, 1.0, NULL), 0.05, 1e-12);
    ck_assert_double_eq_tol(height_at(w, 100, 0.78, NULL), -0.08, 1e-12);
    ck_assert_double_eq(height_at(w, 100, -0.78, NULL), 0);
    ck_assert_double_eq_tol(height_at(w, 135, 1.02, NULL), 0.04, 1e-12);
    ck_assert_int_eq(surface_at(w, 149, -1.1, NULL), PDK_SURFACE_CONCRETE);
    /* The wheel at y = 0.8 m on the kerb strips: the ray through its
     * centre plane finds flat ground, the sweep (0.3 m radius, 0.2 m wide)
     * finds the strip under its shoulder at y = 0.9 m, 13.8 mm up. */
    double o[3] = {135, 0.8, 0.5};
    double down[3] = {0, 0, -1};
    double axle[3] = {0, 1, 0};
    pdk_ground_hit ray, sweep;
    pdk_terrain_ray_hit(&w->terrain, o, down, &ray);
    pdk_terrain_sweep(&w->terrain, o, down, axle, 0.3, 0.2, &sweep);
    ck_assert_double_eq(ray.distance_m, 0.5);
    ck_assert_int_eq(ray.surface_id, PDK_SURFACE_TARMAC);
    double shoulder = 0.04 * (1 - cos(2 * M_PI * ((0.9 - 1.02) / 0.4 + 0.5))) / 2;
    ck_assert_double_eq_tol(shoulder, 0.0138, 1e-4);
    ck_assert_double_eq_tol(sweep.distance_m, 0.5 - shoulder, 1e-12);
    ck_assert_int_eq(sweep.surface_id, PDK_SURFACE_CONCRETE);
    free(w);

    /* water_crossing: the dip 0.4 m deep, full of water to the track's
     * level. */
    w = load_world("water_crossing", NULL);
    const double xs[] = {10, 22, 29, 36, 45};
    const double hs[] = {0, -0.2, -0.4, -0.2, 0};
    for (int k = 0; k < 5; k++) {
        ck_assert_double_eq_tol(height_at(w, xs[k], 3.9, NULL), hs[k], 1e-12);
        surface_at(w, xs[k], 3.9, &depth);
        ck_assert_double_eq_tol(depth, -hs[k], 1e-12);
    }
    ck_assert_int_eq(surface_at(w, 29, 0, NULL), PDK_SURFACE_GRAVEL);
    ck_assert_int_eq(surface_at(w, 22, 0, NULL), PDK_SURFACE_DIRT);
    ck_assert_int_eq(surface_at(w, 29, 4.1, &depth), PDK_SURFACE_DIRT);
    ck_assert_double_eq(depth, 0);
    ck_assert_double_eq(height_at(w, 29, 4.1, NULL), 0);
    free(w);

    /* Every world resolves and parses back to the very bits. */
    listing l = {0};
    ck_assert_int_eq(pdk_params_list(PRESETS, PDK_PRESET_WORLD, collect_preset, &l), PDK_OK);
    ck_assert_uint_eq(l.n, 8);
    for (size_t i = 0; i < l.n; i++) {
        char err[PDK_PARAMS_ERR_LEN];
        char *json = NULL;
        pdk_world_def *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        ck_assert(a != NULL && b != NULL);
        ck_assert_int_eq(
            pdk_params_world_load(PRESETS, l.names[i], NULL, a, &json, err, sizeof err), PDK_OK);
        ck_assert_msg(pdk_params_world_parse(json, "resolved", NULL, b, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s: %s", l.names[i], err);
        assert_same_world(a, b);
        free(json);
        free(a);
        free(b);
    }
}
END_TEST

/* Parses a world with overrides, expecting code; returns the message. */
static const char *wparse_expect(const char *text, const char *overrides, pdk_error code)
{
    static char err[PDK_PARAMS_ERR_LEN];
    static pdk_world_def def;
    err[0] = '\0';
    pdk_error rc = pdk_params_world_parse(text, "w.json", overrides, &def, NULL, err, sizeof err);
    ck_assert_msg(rc == code, "expected %s, got %s: %s", pdk_error_name(code), pdk_error_name(rc),
                  err);
    return err;
}

/* The surface names are sim's; every terrain key converts, resolves and
 * round-trips; the grid takes names or codes. */
START_TEST(terrain_keys_resolve)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ck_assert(a != NULL && b != NULL);
    for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
        char text[128];
        snprintf(text, sizeof text, "{\"terrain\":{\"surface\":\"%s\"}}",
                 pdk_surface_get(id)->name);
        ck_assert_msg(pdk_params_world_parse(text, "w.json", NULL, a, NULL, err, sizeof err) ==
                          PDK_OK,
                      "%s", err);
        ck_assert_int_eq(a->terrain.base_surface_id, id);
    }
    const char *text =
        "{\"terrain\":{\"contact\":\"cylinder\",\"airTempC\":-5,\"roadTempC\":45,"
        "\"ramps\":[{\"x\":1,\"y\":2,\"yawDeg\":90,\"length\":10,\"width\":4,\"gradePct\":-12.5}],"
        "\"patches\":[{\"x\":3,\"y\":4,\"sizeX\":2,\"sizeY\":1,\"surface\":\"ice\"},"
        "{\"shape\":\"circle\",\"x\":5,\"y\":6,\"radius\":3,\"waterDepth\":0.35}],"
        "\"field\":{\"originX\":-10,\"originY\":-20,\"cell\":2.5,\"nx\":3,\"ny\":2,"
        "\"heights\":[0,0.1,0.2,0.3,0.4,0.123456789],\"materials\":[\"mud\",\"siltLoam\"]}}}";
    char *json = NULL;
    ck_assert_msg(pdk_params_world_parse(text, "w.json", NULL, a, &json, err, sizeof err) == PDK_OK,
                  "%s", err);
    const pdk_terrain_def *t = &a->terrain;
    ck_assert_int_eq(t->contact_mode, PDK_CONTACT_CYLINDER);
    ck_assert_double_eq(t->air_temp_c, -5);
    ck_assert_double_eq(t->road_temp_c, 45);
    ck_assert_int_eq(t->n_ramps, 1);
    ck_assert_double_eq(t->ramps[0].yaw_rad, 90 * M_PI / 180);
    ck_assert_double_eq(t->ramps[0].grade, -12.5 / 100);
    ck_assert_double_eq(t->ramps[0].transition_m, 0);
    ck_assert_double_eq(t->ramps[0].hold_m, 0);
    ck_assert_int_eq(t->n_patches, 2);
    ck_assert_int_eq(t->patches[0].shape, PDK_PATCH_RECT);
    ck_assert_int_eq(t->patches[0].surface_id, PDK_SURFACE_ICE);
    ck_assert_double_eq(t->patches[0].size_y_m, 1);
    ck_assert_int_eq(t->patches[1].shape, PDK_PATCH_CIRCLE);
    ck_assert_double_eq(t->patches[1].size_x_m, 3);
    ck_assert_double_eq(t->patches[1].water_depth_m, 0.35);
    ck_assert_int_eq(t->field.nx, 3);
    ck_assert_int_eq(t->field.has_heights, 1);
    ck_assert(t->field.height_m[5] == (float)0.123456789);
    ck_assert_int_eq(t->field.has_materials, 1);
    ck_assert_int_eq(t->field.material[1], PDK_SURFACE_SILT_LOAM);
    /* Resolved: optional fields written where they apply, the sizes and
     * surface only where they apply, materials as codes. */
    ASSERT_HAS(json, "{\"gradePct\":-12.5,\"hold\":0.0,\"length\":10.0,\"transition\":0.0,");
    ASSERT_HAS(json, "{\"shape\":\"rect\",\"sizeX\":2.0,\"sizeY\":1.0,\"surface\":\"ice\","
                     "\"waterDepth\":0.0,\"x\":3.0,\"y\":4.0,\"yawDeg\":0.0}");
    ASSERT_HAS(json, "{\"radius\":3.0,\"shape\":\"circle\",\"waterDepth\":0.34999999999999998,"
                     "\"x\":5.0,\"y\":6.0,\"yawDeg\":0.0}");
    ASSERT_HAS(json, "\"materials\":\"ML\"");
    ASSERT_HAS(json, "0.12345679104328156]"); /* the float it holds */
    ck_assert_int_eq(pdk_params_world_parse(json, "resolved", NULL, b, NULL, err, sizeof err),
                     PDK_OK);
    assert_same_world(a, b);
    free(json);

    /* Codes with spaces between rows; a row per (nx - 1) cells resolved. */
    ck_assert_msg(pdk_params_world_parse("{\"terrain\":{\"field\":{\"cell\":1,\"nx\":4,\"ny\":3,"
                                         "\"materials\":\"TWC GDR\"}}}",
                                         "w.json", NULL, a, &json, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(a->terrain.field.has_heights, 0);
    ASSERT_HAS(json, "\"heights\":[]");
    const uint8_t want[6] = {PDK_SURFACE_TARMAC, PDK_SURFACE_TARMAC_WET, PDK_SURFACE_CONCRETE,
                             PDK_SURFACE_GRAVEL, PDK_SURFACE_DIRT,       PDK_SURFACE_GRASS};
    ck_assert(memcmp(a->terrain.field.material, want, 6) == 0);
    ASSERT_HAS(json, "\"materials\":\"TWC GDR\"");
    free(json);
    ck_assert_int_eq(pdk_params_world_parse("{}", "w.json", NULL, a, &json, err, sizeof err),
                     PDK_OK);
    ASSERT_HAS(json, "\"materials\":[]");
    free(json);
    ck_assert_msg(pdk_params_world_parse("{}", "w.json",
                                         "terrain.field={\"cell\":1,\"nx\":2,"
                                         "\"ny\":2};terrain.field.materials=NMISL",
                                         a, NULL, err, sizeof err) == PDK_ERR_OUT_OF_RANGE,
                  "%s", err);
    ASSERT_HAS(err, "terrain.field.materials gives 5 cells; a grid of 2 * 2 corners has (nx - 1) "
                    "* (ny - 1) = 1 cells");

    /* Overrides reach entries, grid values and the short "surface". */
    ck_assert_msg(pdk_params_world_load(PRESETS, "water_crossing",
                                        "surface=sand;terrain.patches[0].surface=mud;"
                                        "terrain.ramps[0].gradePct=-15;terrain.contact=cylinder",
                                        a, NULL, err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_int_eq(a->terrain.base_surface_id, PDK_SURFACE_SAND);
    ck_assert_int_eq(a->terrain.patches[0].surface_id, PDK_SURFACE_MUD);
    ck_assert_double_eq(a->terrain.ramps[0].grade, -0.15);
    ck_assert_int_eq(a->terrain.contact_mode, PDK_CONTACT_CYLINDER);
    ck_assert_msg(pdk_params_world_parse("{\"terrain\":{\"field\":{\"cell\":1,\"nx\":2,\"ny\":2,"
                                         "\"heights\":[0,0,0,0]}}}",
                                         "w.json", "terrain.field.heights[3]=0.5", a, NULL, err,
                                         sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert(a->terrain.field.height_m[3] == 0.5f);
    free(a);
    free(b);
}
END_TEST

/* Each rule of the terrain keys names the key, the entry and the bound. */
START_TEST(terrain_key_errors_name_key_and_bound)
{
    const char *m;
    m = wparse_expect("{}", "surface=lava", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "override 'surface=lava': terrain.surface: \"lava\" is not a surface (allowed: "
                  "\"tarmac\", \"tarmacWet\", \"concrete\", \"gravel\", \"dirt\", \"grass\", "
                  "\"mud\", \"snow\", \"ice\", \"sand\", \"siltLoam\")");
    m = wparse_expect("{}", "terrain.surfce=gravel", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "terrain.surfce: unknown key (did you mean terrain.surface?)");
    m = wparse_expect("{}", "terrain.contact=sweep", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.contact: \"sweep\" is not a contact mode (allowed: \"ray\", "
                  "\"cylinder\")");
    m = wparse_expect("{}", "terrain.airTempC=70", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.airTempC: 70 is above the maximum 60 (degC)");

    const char *ramp = "{\"x\":1,\"y\":2,\"yawDeg\":0,\"length\":10,\"width\":4,\"gradePct\":10}";
    char text[1024];
    snprintf(text, sizeof text, "{\"terrain\":{\"ramps\":[%s,%s]}}", ramp, ramp);
    m = wparse_expect(text, "terrain.ramps[1].gradePct=150", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.ramps[1].gradePct: 150 is above the maximum 100 (%)");
    m = wparse_expect(text, "terrain.ramps[1].transition=6", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "w.json with its overrides: terrain.ramps[1].transition (6 m) must be at most "
                  "half of terrain.ramps[1].length (10 m)");
    m = wparse_expect("{\"terrain\":{\"ramps\":[{\"x\":1,\"y\":2,\"length\":1,\"width\":1}]}}",
                      NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "w.json: terrain.ramps[0].yawDeg: missing (every entry of terrain.ramps gives x, "
                  "y, yawDeg, length, width, gradePct)");
    m = wparse_expect(text, "terrain.ramps[0].slope=1", PDK_ERR_UNKNOWN_KEY);
    ASSERT_HAS(m, "terrain.ramps[0].slope: unknown key (known keys: x, y, yawDeg, length, width, "
                  "gradePct, transition, hold)");

    m = wparse_expect("{\"terrain\":{\"patches\":[{\"shape\":\"circle\",\"x\":0,\"y\":0,"
                      "\"sizeX\":2,\"surface\":\"mud\"}]}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "w.json: terrain.patches[0].sizeX: a circle takes radius, not sizeX and sizeY");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"shape\":\"circle\",\"x\":0,\"y\":0,"
                      "\"surface\":\"mud\"}]}}",
                      NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "terrain.patches[0].radius: missing (a circle gives radius)");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"x\":0,\"y\":0,\"radius\":1,"
                      "\"surface\":\"mud\"}]}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.patches[0].radius: a rectangle takes sizeX and sizeY, not radius");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"x\":0,\"y\":0,\"sizeX\":1,"
                      "\"surface\":\"mud\"}]}}",
                      NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "terrain.patches[0].sizeY: missing (a rectangle gives sizeX and sizeY)");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"x\":0,\"y\":0,\"sizeX\":1,\"sizeY\":1}]}}",
                      NULL, PDK_ERR_PARSE);
    ASSERT_HAS(m, "terrain.patches[0].surface: missing (a patch gives surface, or waterDepth above "
                  "0 for water)");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"x\":0,\"y\":0,\"sizeX\":1,\"sizeY\":1,"
                      "\"surface\":\"mud\",\"waterDepth\":0.3}]}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.patches[0].surface: a water patch (waterDepth above 0) keeps the "
                  "surface under it");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"shape\":\"oval\",\"x\":0,\"y\":0,"
                      "\"surface\":\"mud\"}]}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.patches[0].shape: \"oval\" is not a patch shape (allowed: \"rect\", "
                  "\"circle\")");
    m = wparse_expect("{\"terrain\":{\"patches\":[{\"x\":0,\"y\":0,\"sizeX\":1,\"sizeY\":1,"
                      "\"waterDepth\":11}]}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.patches[0].waterDepth: 11 is above the maximum 10 (m)");

    m = wparse_expect("{\"terrain\":{\"field\":{\"nx\":1,\"ny\":5,\"cell\":1}}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.nx (1) and terrain.field.ny (5) must both be 0 (no grid) or both "
                  "at least 2");
    m = wparse_expect("{\"terrain\":{\"field\":{\"nx\":200,\"ny\":100,\"cell\":1}}}", NULL,
                      PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.nx * terrain.field.ny = 200 * 100 = 20000 corners, more than the "
                  "16384 allowed");
    m = wparse_expect("{\"terrain\":{\"field\":{\"nx\":2,\"ny\":2}}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.cell (0 m) must be at least 0.01 m when there is a grid");
    m = wparse_expect(
        "{\"terrain\":{\"field\":{\"nx\":2,\"ny\":2,\"cell\":1,\"heights\":[1,2,3]}}}", NULL,
        PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.heights gives 3 values; a grid of terrain.field.nx * "
                  "terrain.field.ny = 2 * 2 corners needs 4");
    m = wparse_expect("{\"terrain\":{\"field\":{\"heights\":[1]}}}", NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.heights gives 1 values but there is no grid");
    m = wparse_expect("{\"terrain\":{\"field\":{\"nx\":2,\"ny\":2,\"cell\":1,"
                      "\"heights\":[1,2,\"3\",4]}}}",
                      NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "w.json: terrain.field.heights[2]: expected a number, got string");
    m = wparse_expect("{\"terrain\":{\"field\":{\"nx\":2,\"ny\":2,\"cell\":1,"
                      "\"heights\":[1,2,3,2e4]}}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.heights[3]: 20000 is above the maximum 10000 ([m])");
    m = wparse_expect("{\"terrain\":{\"field\":{\"heights\":{}}}}", NULL, PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "terrain.field.heights: expected a list of numbers, got object");
    m = wparse_expect("{}", "terrain.field.materials=TTx", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.materials: character 3, 'x' (byte 0x78), is not a surface code "
                  "(codes: T tarmac, W tarmacWet, C concrete, G gravel, D dirt, R grass, M mud, N "
                  "snow, I ice, S sand, L siltLoam; spaces are ignored)");
    m = wparse_expect("{}", "terrain.field.materials=[\"mud\",\"lava\"]", PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "terrain.field.materials[1]: \"lava\" is not a surface");
    m = wparse_expect("{}", "terrain.field.materials=3", PDK_ERR_WRONG_TYPE);
    ASSERT_HAS(m, "terrain.field.materials: expected a list of surface names or a string of codes");
    /* sim's own check stands behind them: the grid must lie in the world. */
    m = wparse_expect("{\"terrain\":{\"field\":{\"originX\":9999999,\"nx\":2,\"ny\":2,"
                      "\"cell\":10}}}",
                      NULL, PDK_ERR_OUT_OF_RANGE);
    ASSERT_HAS(m, "the world model refuses the combination: terrain.field.origin_x_m and "
                  "origin_y_m must be finite and the whole grid within 1e7 m");
}
END_TEST

static Suite *presets_worlds_suite(void)
{
    Suite *s = suite_create("presets_worlds");
    TCase *worlds = tcase_create("worlds");
    tcase_add_test(worlds, terrain_bumps);
    tcase_add_test(worlds, shipped_worlds_match_their_data_sheets);
    tcase_add_test(worlds, terrain_keys_resolve);
    tcase_add_test(worlds, terrain_key_errors_name_key_and_bound);
    suite_add_tcase(s, worlds);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(presets_worlds_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
