/* The world's ground: the plane z = 0 with raised-cosine bumps on it (speed
 * humps, kerbs, a pothole when the height is negative). Pure functions of the
 * terrain definition; the four-wheel model's struts cast their rays here.
 *
 * A bump is a strip centred at (x_m, y_m) whose length axis points along
 * yaw_rad. Across its length it rises as a raised cosine,
 *   h(u) = height_m (1 - cos(2 pi u)) / 2,  u in [0, 1] along length_m,
 * which is smooth where it meets the plane (zero height and slope), so a
 * wheel rolling along the length axis sees a continuous surface and normal.
 * Across its width it has full height over width_m and ends in a vertical
 * edge: cross it along its length, as a wheel crosses a kerb or a hump, not
 * along its width. Where bumps overlap the highest wins. */
#ifndef PDK_TERRAIN_H
#define PDK_TERRAIN_H

#include "error.h"

#define PDK_TERRAIN_MAX_BUMPS 16

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

typedef struct pdk_terrain_def {
    int n_bumps;  /* 0..PDK_TERRAIN_MAX_BUMPS */
    int prepared; /* set by pdk_terrain_prepare; a definition leaves it 0 */
    pdk_bump bumps[PDK_TERRAIN_MAX_BUMPS];
} pdk_terrain_def;

/* Fills every bump's derived fields (cos_yaw ... box_half_y_m) and sets
 * prepared, for a terrain that passes pdk_terrain_problem. Call it again
 * after changing a bump. The result is still plain data: a byte copy of a
 * prepared terrain is prepared. The world prepares its own copy of the
 * terrain when it is made (pdk_world_init). The functions below take a
 * prepared terrain or not, with the same results; an unprepared one costs
 * a preparation of a copy per call. */
void pdk_terrain_prepare(pdk_terrain_def *terrain);

/* Why the terrain is invalid ("terrain.bumps[2].length_m must be finite and
 * above 0"), as a static sentence, or NULL. Positions are bounded by
 * PDK_WORLD_MAX_POSITION_M. The slope bound |height| <= length / 2 keeps the
 * steepest slope, pi |height| / length, below 58 degrees. */
const char *pdk_terrain_problem(const pdk_terrain_def *terrain);

/* Ground height at (x, y) and the ground's upward unit normal there. */
double pdk_terrain_height(const pdk_terrain_def *terrain, double x_m, double y_m, double normal[3]);

/* Casts a ray from origin along the unit direction dir (dir[2] < 0, pointing
 * down) and returns the distance along it to the ground, with the ground's
 * normal at the hit. Exact on the plane; over a bump it refines the hit by
 * fixed-point iteration on the height under the ray (three passes, exact to
 * well under a millimetre for rays within 30 degrees of vertical). The
 * distance is negative when the origin is already below the ground. A ray
 * whose path down to the plane passes over no bump's box is answered as
 * the plane, without the iteration (the iteration would give the same). */
double pdk_terrain_raycast(const pdk_terrain_def *terrain, const double origin[3],
                           const double dir[3], double normal[3]);

#endif
