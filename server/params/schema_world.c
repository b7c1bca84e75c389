/* The world's parameter schema (params_schema.h): every key of a world
 * preset with its unit, bounds (docs/presets.md explains them), default and
 * meaning, as `paddockd presets describe world` prints them (terrain
 * bumps, ramps, patches and the grid of heights and materials), and the
 * rules between its keys. */
#include "params_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "params_internal.h"
#include "sim/surface_def.h"

/* Degrees to radians as the presets convert them: rad = deg * PI / 180. */
#define PI 3.14159265358979323846

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define KEY_NUM(p, u, lo, hi, off, mul, div, desc)                                                 \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = (off), .si_mul = (mul), .si_div = (div), .description = (desc)                   \
    }

#define BUMP_NUM(p, u, lo, hi, member, mul, div, desc)                                             \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_bump, member), mul, div, desc)

/* One terrain bump (terrain.h): a raised cosine along its length axis. */
static const pdk_param_key bump_fields[] = {
    BUMP_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
             "Bump centre, world x."),
    BUMP_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
             "Bump centre, world y."),
    BUMP_NUM("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
             "Direction of the length axis from world x, counter-clockwise: the way a wheel "
             "crosses the bump."),
    BUMP_NUM("length", "m", 0.05, 1000, length_m, 1, 1,
             "Along the length axis: the raised cosine's base, smooth where it meets the ground."),
    BUMP_NUM("width", "m", 0.05, 1000, width_m, 1, 1,
             "Across the length axis: full height over the width, vertical at its ends."),
    BUMP_NUM("height", "m", -2, 2, height_m, 1, 1,
             "Peak height, negative for a dip; |height| at most length / 2."),
};

static const pdk_list_spec bump_list = {
    .fields = bump_fields,
    .n_fields = N_ELEMS(bump_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_bumps),
    .item_size = sizeof(pdk_bump),
    .max_items = PDK_TERRAIN_MAX_BUMPS,
};

/* The terrain's ids and counts are int32_t, written as an int. */
_Static_assert(sizeof(int32_t) == sizeof(int), "terrain ids are stored as an int");

/* Surfaces by sim's names (pdk_surface_get(id)->name; test_params checks
 * that they agree), and their one-letter codes for a materials string:
 * SURFACE_CODES[id] is the code of surface id. */
static const pdk_choice surface_items[] = {
    {"tarmac", PDK_SURFACE_TARMAC},
    {"tarmacWet", PDK_SURFACE_TARMAC_WET},
    {"concrete", PDK_SURFACE_CONCRETE},
    {"gravel", PDK_SURFACE_GRAVEL},
    {"dirt", PDK_SURFACE_DIRT},
    {"grass", PDK_SURFACE_GRASS},
    {"mud", PDK_SURFACE_MUD},
    {"snow", PDK_SURFACE_SNOW},
    {"ice", PDK_SURFACE_ICE},
    {"sand", PDK_SURFACE_SAND},
    {"siltLoam", PDK_SURFACE_SILT_LOAM},
};
static const pdk_choice_set surface_choices = {"surface", surface_items, N_ELEMS(surface_items)};
#define SURFACE_CODES "TWCGDRMNISL"
_Static_assert(sizeof(SURFACE_CODES) - 1 == PDK_SURFACE_COUNT, "one code per surface");
_Static_assert(N_ELEMS(surface_items) == PDK_SURFACE_COUNT, "one name per surface");

static const pdk_choice contact_items[] = {
    {"ray", PDK_CONTACT_RAY},
    {"cylinder", PDK_CONTACT_CYLINDER},
};
static const pdk_choice_set contact_choices = {"contact mode", contact_items,
                                               N_ELEMS(contact_items)};

static const pdk_choice shape_items[] = {
    {"rect", PDK_PATCH_RECT},
    {"circle", PDK_PATCH_CIRCLE},
};
static const pdk_choice_set shape_choices = {"patch shape", shape_items, N_ELEMS(shape_items)};

/* A list field that may be left out (then 0). */
#define OPT_NUM(p, u, lo, hi, off, mul, div, desc)                                                 \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_NUMBER, .min = (lo), .max = (hi),                \
        .offset = (off), .si_mul = (mul), .si_div = (div), .description = (desc), .optional = true \
    }

#define RAMP_NUM(p, u, lo, hi, member, mul, div, desc)                                             \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_ramp, member), mul, div, desc)
#define RAMP_OPT(p, u, lo, hi, member, desc)                                                       \
    OPT_NUM(p, u, lo, hi, offsetof(pdk_ramp, member), 1, 1, desc)

/* Lengths of ramps and patches: a 100 km hill is a heightfield's job. */
#define MAX_PIECE_M 1e5

/* One ramp (terrain.h): a slope holding its top, rounded at both corners. */
static const pdk_param_key ramp_fields[] = {
    RAMP_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
             "A point of the start line (where the slope would begin without rounding), world x; "
             "the ramp's width is centred on it."),
    RAMP_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
             "The same point, world y."),
    RAMP_NUM("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
             "Direction of climb from world x, counter-clockwise; a bank points across the road."),
    RAMP_NUM("length", "m", 0.05, MAX_PIECE_M, length_m, 1, 1,
             "The sloped run; the top is gradePct / 100 * length above the start."),
    RAMP_NUM("width", "m", 0.05, MAX_PIECE_M, width_m, 1, 1,
             "Across the direction of climb, centred on (x, y); vertical edges at its sides."),
    RAMP_NUM("gradePct", "%", -100, 100, grade, 1, 100,
             "Grade in percent, rise over run (a 30 % grade climbs 0.3 m per metre, 16.7 deg); "
             "negative falls."),
    RAMP_OPT("transition", "m", 0, MAX_PIECE_M, transition_m,
             "Each corner of the slope is rounded over this distance centred on it (the grade "
             "fades in and out as a raised cosine); at most length / 2; 0 is a sharp corner."),
    RAMP_OPT("hold", "m", 0, MAX_PIECE_M, hold_m,
             "How long the top holds before the ground comes back down the same way; 0 holds "
             "for ever."),
};

static const pdk_list_spec ramp_list = {
    .fields = ramp_fields,
    .n_fields = N_ELEMS(ramp_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_ramps),
    .item_size = sizeof(pdk_ramp),
    .max_items = PDK_TERRAIN_MAX_RAMPS,
};

#define PATCH_NUM(p, u, lo, hi, member, mul, div, desc)                                            \
    KEY_NUM(p, u, lo, hi, offsetof(pdk_patch, member), mul, div, desc)
#define PATCH_OPT(p, u, lo, hi, member, mul, div, desc)                                            \
    OPT_NUM(p, u, lo, hi, offsetof(pdk_patch, member), mul, div, desc)
#define PATCH_CHOICE(p, member, set, desc)                                                         \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_patch, member), .si_mul = 1, .si_div = 1, .description = (desc),    \
        .choices = &(set), .optional = true                                                        \
    }

/* One patch (terrain.h): a rectangle or circle of a surface, or of water. */
static const pdk_param_key patch_fields[] = {
    PATCH_CHOICE("shape", shape, shape_choices,
                 "\"rect\" (sizeX by sizeY) or \"circle\" (radius)."),
    PATCH_NUM("x", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, x_m, 1, 1,
              "Centre, world x."),
    PATCH_NUM("y", "m", -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M, y_m, 1, 1,
              "Centre, world y."),
    PATCH_OPT("yawDeg", "deg", -360, 360, yaw_rad, PI, 180,
              "A rectangle's turn from world x, counter-clockwise (sizeX lies along it)."),
    PATCH_OPT("sizeX", "m", 0.01, MAX_PIECE_M, size_x_m, 1, 1,
              "A rectangle's side along yawDeg; rectangles only."),
    PATCH_OPT("sizeY", "m", 0.01, MAX_PIECE_M, size_y_m, 1, 1,
              "A rectangle's side across yawDeg; rectangles only."),
    PATCH_OPT("radius", "m", 0.01, MAX_PIECE_M, size_x_m, 1, 1, "A circle's radius; circles only."),
    PATCH_CHOICE("surface", surface_id, surface_choices,
                 "The surface over the patch (surface.h names); a surface patch gives it, a water "
                 "patch does not."),
    PATCH_OPT("waterDepth", "m", 0, PDK_TERRAIN_MAX_WATER_DEPTH_M, water_depth_m, 1, 1,
              "Above 0: a water patch, this deep over the ground at its centre, its top level "
              "(deeper over a dip, running out where the ground rises), the surface under it "
              "unchanged."),
};

static bool is_circle(const json_t *entry)
{
    const json_t *shape = json_object_get(entry, "shape");
    return shape != NULL && strcmp(json_string_value(shape), "circle") == 0;
}

static bool is_water(const json_t *entry)
{
    const json_t *depth = json_object_get(entry, "waterDepth");
    return depth != NULL && json_number_value(depth) > 0;
}

/* Which sizes a patch takes, and whether it gives a surface or water. */
static pdk_error patch_entry_check(const json_t *entry, const char *path, char *why, size_t why_len)
{
    bool circle = is_circle(entry);
    bool sx = json_object_get(entry, "sizeX") != NULL;
    bool sy = json_object_get(entry, "sizeY") != NULL;
    bool r = json_object_get(entry, "radius") != NULL;
    if (circle && (sx || sy)) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.%s: a circle takes radius, not sizeX and sizeY", path,
                               sx ? "sizeX" : "sizeY");
    }
    if (circle && !r) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.radius: missing (a circle gives radius)", path);
    }
    if (!circle && r) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.radius: a rectangle takes sizeX and sizeY, not radius (give "
                               "\"shape\": \"circle\" for a circle)",
                               path);
    }
    if (!circle && !(sx && sy)) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.%s: missing (a rectangle gives sizeX and sizeY)", path,
                               sx ? "sizeY" : "sizeX");
    }
    bool surface = json_object_get(entry, "surface") != NULL;
    if (is_water(entry) && surface) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s.surface: a water patch (waterDepth above 0) keeps the surface "
                               "under it; leave surface out, or put a surface patch before it",
                               path);
    }
    if (!is_water(entry) && !surface) {
        return pdk_params_fail(PDK_ERR_PARSE, why, why_len,
                               "%s.surface: missing (a patch gives surface, or waterDepth above 0 "
                               "for water)",
                               path);
    }
    return PDK_OK;
}

static bool patch_field_applies(const json_t *entry, const pdk_param_key *field)
{
    if (strcmp(field->path, "sizeX") == 0 || strcmp(field->path, "sizeY") == 0) {
        return !is_circle(entry);
    }
    if (strcmp(field->path, "radius") == 0) {
        return is_circle(entry);
    }
    if (strcmp(field->path, "surface") == 0) {
        return !is_water(entry);
    }
    return true;
}

static const pdk_list_spec patch_list = {
    .fields = patch_fields,
    .n_fields = N_ELEMS(patch_fields),
    .count_offset = offsetof(pdk_world_def, terrain.n_patches),
    .item_size = sizeof(pdk_patch),
    .max_items = PDK_TERRAIN_MAX_PATCHES,
    .check_entry = patch_entry_check,
    .applies = patch_field_applies,
};

static const pdk_grid_spec heights_grid = {
    .kind = PDK_GRID_HEIGHTS,
    .max_items = PDK_TERRAIN_MAX_CORNERS,
    .flag_offset = offsetof(pdk_world_def, terrain.field.has_heights),
    .nx_offset = offsetof(pdk_world_def, terrain.field.nx),
    .ny_offset = offsetof(pdk_world_def, terrain.field.ny),
};

static const pdk_grid_spec materials_grid = {
    .kind = PDK_GRID_MATERIALS,
    .max_items = PDK_TERRAIN_MAX_CORNERS,
    .flag_offset = offsetof(pdk_world_def, terrain.field.has_materials),
    .nx_offset = offsetof(pdk_world_def, terrain.field.nx),
    .ny_offset = offsetof(pdk_world_def, terrain.field.ny),
    .choices = &surface_choices,
    .codes = SURFACE_CODES,
};

static const pdk_alias world_aliases[] = {
    {"surface", "terrain.surface"},
};

#define W_KEY(p, u, t, lo, hi, member, desc)                                                       \
    {                                                                                              \
        .path = (p), .unit = (u), .type = (t), .min = (lo), .max = (hi),                           \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1, .description = (desc) \
    }
/* A world key with a list of entries, a choice, or a grid of values. */
#define W_LIST(p, member, desc, lst)                                                               \
    {                                                                                              \
        .path = (p), .unit = "list", .type = PDK_KEY_LIST, .min = NAN, .max = NAN,                 \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .list = (lst)                                                       \
    }
#define W_CHOICE(p, member, desc, ch)                                                              \
    {                                                                                              \
        .path = (p), .unit = "choice", .type = PDK_KEY_CHOICE, .min = NAN, .max = NAN,             \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .choices = (ch)                                                     \
    }
#define W_GRID(p, u, lo, hi, member, desc, gr)                                                     \
    {                                                                                              \
        .path = (p), .unit = (u), .type = PDK_KEY_GRID, .min = (lo), .max = (hi),                  \
        .offset = offsetof(pdk_world_def, member), .si_mul = 1, .si_div = 1,                       \
        .description = (desc), .grid = (gr)                                                        \
    }

static const pdk_param_key world_keys[] = {
    {.path = "description",
     .unit = "text",
     .type = PDK_KEY_TEXT,
     .min = NAN,
     .max = NAN,
     .si_mul = 1,
     .si_div = 1,
     .description = "Free text: what the world models and where its numbers come from."},
    W_KEY("substeps", "-", PDK_KEY_INT, 1, 64, substeps, "Physics substeps per 1/120 s tick."),
    W_KEY("maxVehicles", "-", PDK_KEY_INT, 1, 65535, max_vehicles,
          "Vehicle capacity; a full world refuses spawn."),
    W_KEY("gravity", "m/s^2", PDK_KEY_NUMBER, 0.5, 30, gravity_mps2,
          "Gravitational acceleration, acting along -z."),
    W_KEY("airDensity", "kg/m^3", PDK_KEY_NUMBER, 0, 2, air_density_kgpm3,
          "Air density for aerodynamic drag; 0 is a vacuum."),
    W_KEY("surfaceFriction", "-", PDK_KEY_NUMBER, 0.05, 2, surface_friction,
          "Multiplies every tyre's friction on every surface (a global grip scale); 1 "
          "normally: each surface carries its own friction (terrain.surface, "
          "terrain.patches)."),
    W_KEY("seed", "-", PDK_KEY_U64, 0, (double)INT64_MAX, seed,
          "Seed of the world's random number generator."),
    W_LIST("terrain.bumps", terrain.bumps,
           "Raised-cosine bumps on the flat ground (speed humps, kerbs, dips), up to 16: "
           "[{\"x\", \"y\", \"yawDeg\", \"length\", \"width\", \"height\"}, ...].",
           &bump_list),
    W_CHOICE("terrain.surface", terrain.base_surface_id,
             "The ground's surface where no patch or material grid says otherwise: tarmac, "
             "tarmacWet, concrete, gravel, dirt, grass, mud, snow, ice, sand, siltLoam "
             "(surface.h; an override may say surface=gravel).",
             &surface_choices),
    W_CHOICE("terrain.contact", terrain.contact_mode,
             "How wheels meet the ground: ray (one ray down each strut) or cylinder (a "
             "sweep of the tyre's footprint, which feels a kerb under a shoulder or just "
             "ahead; up to 15 rays a wheel).",
             &contact_choices),
    W_KEY("terrain.airTempC", "degC", PDK_KEY_NUMBER, PDK_TERRAIN_MIN_TEMP_C,
          PDK_TERRAIN_MAX_AIR_TEMP_C, terrain.air_temp_c,
          "Air temperature, for the tyres' cooling and cold pressure."),
    W_KEY("terrain.roadTempC", "degC", PDK_KEY_NUMBER, PDK_TERRAIN_MIN_TEMP_C,
          PDK_TERRAIN_MAX_ROAD_TEMP_C, terrain.road_temp_c,
          "Road surface temperature, which the tyres exchange heat with in contact."),
    W_LIST("terrain.ramps", terrain.ramps,
           "Slopes, up to 8, adding to each other and to the grid: [{\"x\", \"y\", "
           "\"yawDeg\", \"length\", \"width\", \"gradePct\", \"transition\", "
           "\"hold\"}, ...]; a bank is a ramp across the road.",
           &ramp_list),
    W_LIST("terrain.patches", terrain.patches,
           "Surface and water patches, up to 16, the last listed winning where they "
           "overlap: [{\"shape\", \"x\", \"y\", \"yawDeg\", \"sizeX\", \"sizeY\" | "
           "\"radius\", \"surface\" | \"waterDepth\"}, ...].",
           &patch_list),
    W_KEY("terrain.field.originX", "m", PDK_KEY_NUMBER, -PDK_WORLD_MAX_POSITION_M,
          PDK_WORLD_MAX_POSITION_M, terrain.field.origin_x_m,
          "World x of the grid's first corner; the grid runs along +x then +y."),
    W_KEY("terrain.field.originY", "m", PDK_KEY_NUMBER, -PDK_WORLD_MAX_POSITION_M,
          PDK_WORLD_MAX_POSITION_M, terrain.field.origin_y_m,
          "World y of the grid's first corner."),
    W_KEY("terrain.field.cell", "m", PDK_KEY_NUMBER, 0, PDK_TERRAIN_MAX_CELL_M,
          terrain.field.cell_m, "Side of a square cell; at least 0.01 m when there is a grid."),
    W_KEY("terrain.field.nx", "-", PDK_KEY_INT, 0, PDK_TERRAIN_MAX_CORNERS, terrain.field.nx,
          "Corners along x: 0 for no grid, else at least 2; nx * ny at most 16384 (128 x 128)."),
    W_KEY("terrain.field.ny", "-", PDK_KEY_INT, 0, PDK_TERRAIN_MAX_CORNERS, terrain.field.ny,
          "Corners along y: 0 for no grid, else at least 2."),
    W_GRID("terrain.field.heights", "[m]", -PDK_TERRAIN_MAX_HEIGHT_M, PDK_TERRAIN_MAX_HEIGHT_M,
           terrain.field.height_m,
           "Heights at the corners, nx * ny of them, row by row from the origin along +x "
           "(then +y); bilinear inside a cell, the edge held outside the grid; kept as "
           "floats; [] for a flat grid.",
           &heights_grid),
    W_GRID("terrain.field.materials", "[surface]", NAN, NAN, terrain.field.material,
           "Surfaces of the cells, (nx - 1) * (ny - 1) of them, row by row: a list of "
           "names, or a string of codes (T tarmac, W tarmacWet, C concrete, G gravel, D "
           "dirt, R grass, M mud, N snow, I ice, S sand, L siltLoam; spaces ignored); "
           "the base surface outside the grid; [] for none.",
           &materials_grid),
};

static void world_defaults(void *def)
{
    *(pdk_world_def *)def = pdk_world_def_default();
}

static pdk_error world_model_check(const void *def, const char **why)
{
    pdk_error rc = pdk_world_def_check(def);
    *why = rc != PDK_OK ? pdk_world_def_problem(def) : NULL;
    return rc;
}

static pdk_error world_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len);

const pdk_schema pdk_world_schema = {
    .kind = PDK_PRESET_WORLD,
    .what = "world",
    .keys = world_keys,
    .n_keys = N_ELEMS(world_keys),
    .def_size = sizeof(pdk_world_def),
    .out_size = sizeof(pdk_world_def),
    .aliases = world_aliases,
    .n_aliases = N_ELEMS(world_aliases),
    .defaults = world_defaults,
    .cross_check = world_cross_check,
    .model_check = world_model_check,
};

/* The number of cells a resolved materials string gives (its codes). */
static size_t codes_in(const json_t *text)
{
    size_t n = 0;
    for (const char *c = json_string_value(text); c != NULL && *c != '\0'; c++) {
        n += *c != ' ';
    }
    return n;
}

/* A grid's shape and the lengths of its lists (resolved: heights a list,
 * materials a string). */
static pdk_error check_field(const pdk_heightfield *f, json_t *resolved, char *why, size_t why_len)
{
    size_t n_heights = json_array_size(pdk_json_get_dotted(resolved, "terrain.field.heights"));
    size_t n_cells = codes_in(pdk_json_get_dotted(resolved, "terrain.field.materials"));
    if (f->nx == 0 && f->ny == 0) {
        if (n_heights > 0 || n_cells > 0) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.field.%s gives %zu values but there is no grid: set "
                                   "terrain.field.nx and ny (corners along x and y)",
                                   n_heights > 0 ? "heights" : "materials",
                                   n_heights > 0 ? n_heights : n_cells);
        }
        return PDK_OK;
    }
    if (f->nx < 2 || f->ny < 2) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.nx (%d) and terrain.field.ny (%d) must both be 0 "
                               "(no grid) or both at least 2",
                               f->nx, f->ny);
    }
    long corners = (long)f->nx * (long)f->ny;
    if (corners > PDK_TERRAIN_MAX_CORNERS) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.nx * terrain.field.ny = %d * %d = %ld corners, more "
                               "than the %d allowed (128 x 128)",
                               f->nx, f->ny, corners, PDK_TERRAIN_MAX_CORNERS);
    }
    if (!(f->cell_m >= PDK_TERRAIN_MIN_CELL_M)) {
        char c[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(f->cell_m, c);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.cell (%s m) must be at least %g m when there is a "
                               "grid",
                               c, PDK_TERRAIN_MIN_CELL_M);
    }
    if (n_heights != 0 && n_heights != (size_t)corners) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.heights gives %zu values; a grid of "
                               "terrain.field.nx * terrain.field.ny = %d * %d corners needs %ld "
                               "(row by row along +x), or [] for a flat grid",
                               n_heights, f->nx, f->ny, corners);
    }
    long cells = (long)(f->nx - 1) * (long)(f->ny - 1);
    if (n_cells != 0 && n_cells != (size_t)cells) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "terrain.field.materials gives %zu cells; a grid of %d * %d corners "
                               "has (nx - 1) * (ny - 1) = %ld cells (row by row along +x), or [] "
                               "for the base surface",
                               n_cells, f->nx, f->ny, cells);
    }
    return PDK_OK;
}

/* A bump's height is at most half its length (terrain.h: slopes below 58
 * deg); a ramp's rounding at most half its length; the grid's shape. */
static pdk_error world_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len)
{
    const pdk_world_def *def = vdef;
    for (int i = 0; i < def->terrain.n_ramps; i++) {
        const pdk_ramp *ramp = &def->terrain.ramps[i];
        if (!(ramp->transition_m <= 0.5 * ramp->length_m)) {
            char tr[PDK_PARAMS_NUM_LEN];
            char l[PDK_PARAMS_NUM_LEN];
            pdk_params_format_number(ramp->transition_m, tr);
            pdk_params_format_number(ramp->length_m, l);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.ramps[%d].transition (%s m) must be at most half of "
                                   "terrain.ramps[%d].length (%s m): the two roundings share the "
                                   "slope",
                                   i, tr, i, l);
        }
    }
    pdk_error rc = check_field(&def->terrain.field, resolved, why, why_len);
    if (rc != PDK_OK) {
        return rc;
    }
    for (int i = 0; i < def->terrain.n_bumps; i++) {
        const pdk_bump *bump = &def->terrain.bumps[i];
        if (!(fabs(bump->height_m) <= 0.5 * bump->length_m)) {
            char h[PDK_PARAMS_NUM_LEN];
            char l[PDK_PARAMS_NUM_LEN];
            pdk_params_format_number(bump->height_m, h);
            pdk_params_format_number(bump->length_m, l);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "terrain.bumps[%d].height (%s m) must be at most half of "
                                   "terrain.bumps[%d].length (%s m) either way: steeper than 58 "
                                   "deg is a wall, not a bump",
                                   i, h, i, l);
        }
    }
    return PDK_OK;
}
