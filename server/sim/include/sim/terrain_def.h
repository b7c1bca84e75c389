/* A world's ground as a definition names it: bumps, ramps, surface
 * patches, the heightfield, the contact mode and the bounds they are held
 * to. Queries against the ground are sim's (ground/terrain.h). */
#ifndef PDK_SIM_TERRAIN_DEF_H
#define PDK_SIM_TERRAIN_DEF_H

#include <stdint.h>

#define PDK_TERRAIN_MAX_BUMPS 16
#define PDK_TERRAIN_MAX_RAMPS 8
#define PDK_TERRAIN_MAX_PATCHES 16

/* Grid capacity: nx * ny corners at most (a 128 x 128 grid). It makes a
 * terrain about 82 KB: keep one off small stacks. */
#define PDK_TERRAIN_MAX_CORNERS 16384

typedef struct pdk_bump {
    double x_m, y_m; /* centre, world */
    double yaw_rad;  /* direction of the length axis, from world x */
    double length_m; /* along the length axis, > 0 */
    double width_m;  /* across it, > 0 */
    double height_m; /* peak; negative for a dip, |height| <= length / 2 */
    /* Derived by pdk_terrain_prepare from the fields above; a definition
     * leaves them zero. The length axis's direction cosines, and the half
     * extents of the bump's box along world x and y (centred on x_m, y_m),
     * a little larger than the bump so that rounding never puts a point of
     * the bump outside it. */
    double cos_yaw, sin_yaw;
    double box_half_x_m, box_half_y_m;
} pdk_bump;

/* A ramp: from its start line through (x_m, y_m), perpendicular to yaw_rad,
 * the ground rises at grade (rise over run, negative to fall) for length_m
 * along yaw_rad and then holds its top, grade * length_m above where it
 * started; over width_m (centred on the line x_m, y_m along yaw_rad) it
 * applies, and outside that width it does not (a vertical edge, as a
 * bump's: a face, pdk_terrain_face). Both corners of the slope are rounded
 * over transition_m centred on them (the grade fades in and out as a raised
 * cosine in slope), so the normal never jumps and the profile is the sharp
 * one outside the two rounded stretches: with s along yaw_rad from the
 * start line, G the grade, L the length and T the transition, the slope is
 *   G (1 - cos(pi (s + T/2) / T)) / 2   for -T/2 <= s <= T/2,
 *   G                                   for  T/2 <= s <= L - T/2,
 *   G (1 + cos(pi (s - L + T/2) / T)) / 2 for L - T/2 <= s <= L + T/2,
 * zero before and after, and the height its integral from 0 (G L on top).
 * T = 0 is a sharp slope whose normal jumps at the corners. With hold_m
 * H > 0 the top ends H after the slope and the ground comes back down the
 * same way: h(s) = up(s) - up(s - L - H), back to 0 at s = 2 L + H. A bank
 * is a ramp whose yaw points across the road. Ramps add to each other and
 * to the heightfield. */
typedef struct pdk_ramp {
    double x_m, y_m, yaw_rad;
    double length_m;     /* > 0, the sloped run */
    double width_m;      /* > 0 */
    double grade;        /* |grade| <= 1 (45 degrees) */
    double transition_m; /* 0 .. length_m / 2 */
    double hold_m;       /* how far the top holds before the ground returns (a
                          * ramp down at the same grade and transition): 0 for
                          * a ramp that holds forever */
    /* Derived by pdk_terrain_prepare; a definition leaves them zero. */
    double cos_yaw, sin_yaw;
} pdk_ramp;

typedef enum pdk_patch_shape {
    PDK_PATCH_RECT = 0,   /* centred at x, y, size_x by size_y, rotated by yaw */
    PDK_PATCH_CIRCLE = 1, /* centred at x, y, radius size_x */
} pdk_patch_shape;

/* A surface patch, or a water patch when water_depth_m > 0. A water
 * patch does not change the ground or its surface (the surface under it is
 * the one the patches before it and the grid give); it fills its area with
 * water whose top is level, water_depth_m above the ground at the patch's
 * centre, so that over a dip the water is deepest at the bottom and runs
 * out on the approaches: the depth at a point is that level less the
 * ground's height there, 0 where the ground is higher. */
typedef struct pdk_patch {
    int32_t shape;
    int32_t surface_id;   /* surface.h id; ignored by a water patch */
    double x_m, y_m, yaw_rad;
    double size_x_m, size_y_m; /* a rectangle's sides along and across yaw; a
                                * circle's radius is size_x_m (size_y_m unused) */
    double water_depth_m; /* 0: a surface patch */
    /* Derived by pdk_terrain_prepare; a definition leaves them zero. The
     * water's level (world z) is that of a water patch only. */
    double cos_yaw, sin_yaw;
    double water_level_m;
} pdk_patch;

/* A regular grid of corners, row-major from (origin_x_m, origin_y_m) along
 * +x then +y: corner (i, j) is at (origin_x_m + i cell_m, origin_y_m + j
 * cell_m) and is height_m[j nx + i]; cell (i, j), between corners i..i+1
 * and j..j+1, is material[j (nx - 1) + i]. Inside a cell the height is
 * bilinear in the four corners' (exact for a plane); outside the grid it
 * is the nearest edge point's (the edge held flat outward). The materials
 * cover the grid's area only: outside it the base surface applies. nx, ny
 * 0: no grid. */
typedef struct pdk_heightfield {
    int32_t nx, ny; /* corners: both 0, or both >= 2 with nx * ny <= PDK_TERRAIN_MAX_CORNERS */
    int32_t has_heights;  /* 0: flat at 0 with only the materials */
    int32_t has_materials; /* 0: the base surface everywhere */
    double origin_x_m, origin_y_m;
    double cell_m;        /* > 0 */
    float height_m[PDK_TERRAIN_MAX_CORNERS];
    uint8_t material[PDK_TERRAIN_MAX_CORNERS];
} pdk_heightfield;

/* Bounds that pdk_terrain_problem holds the definition to. */
#define PDK_TERRAIN_MAX_HEIGHT_M 1.0e4     /* |heightfield height| (Everest is 8.8 km) */
#define PDK_TERRAIN_MIN_CELL_M 0.01
#define PDK_TERRAIN_MAX_CELL_M 1.0e4
#define PDK_TERRAIN_MAX_WATER_DEPTH_M 10.0
#define PDK_TERRAIN_MIN_TEMP_C (-60.0)
#define PDK_TERRAIN_MAX_AIR_TEMP_C 60.0    /* the hottest air measured is 57 C */
#define PDK_TERRAIN_MAX_ROAD_TEMP_C 80.0   /* dark asphalt in full sun reaches about 70 C */

/* How wheels meet the ground. Values are stable. */
typedef enum pdk_contact_mode {
    PDK_CONTACT_RAY = 0,
    PDK_CONTACT_CYLINDER = 1,
} pdk_contact_mode;

typedef struct pdk_terrain_def {
    int32_t base_surface_id; /* surface.h id of the ground where nothing else says */
    int32_t contact_mode;    /* pdk_contact_mode */
    double air_temp_c;       /* for tyre temperatures */
    double road_temp_c;
    int n_bumps;  /* 0..PDK_TERRAIN_MAX_BUMPS */
    int n_ramps;  /* 0..PDK_TERRAIN_MAX_RAMPS */
    int n_patches; /* 0..PDK_TERRAIN_MAX_PATCHES */
    int prepared; /* set by pdk_terrain_prepare; a definition leaves it 0 */
    pdk_bump bumps[PDK_TERRAIN_MAX_BUMPS];
    pdk_ramp ramps[PDK_TERRAIN_MAX_RAMPS];
    pdk_patch patches[PDK_TERRAIN_MAX_PATCHES];
    pdk_heightfield field;
} pdk_terrain_def;

/* A flat terrain of the base surface tarmac, air and road at 20 C, ray
 * contact, nothing else (every other field zero). */
void pdk_terrain_def_flat(pdk_terrain_def *terrain);

/* Why the terrain is invalid ("terrain.bumps[2].length_m must be finite and
 * above 0", "terrain.ramps[1].grade must be within -1..1"), as a static
 * sentence naming the field and its bound, or NULL. Positions are bounded
 * by PDK_WORLD_MAX_POSITION_M, the rest by the constants above and the
 * comments of the fields. The slope bound |height| <= length / 2 keeps a
 * bump's steepest slope, pi |height| / length, below 58 degrees; |grade|
 * <= 1 keeps a ramp's at 45 degrees or less. A heightfield's slopes are not
 * bounded. */
const char *pdk_terrain_problem(const pdk_terrain_def *terrain);

#endif
