/* The world's ground (issue 4: "a world is a heightfield with a surface
 * material per cell plus analytic pieces"). Pure functions of the terrain
 * definition; the four-wheel model's wheels find the ground here.
 *
 * The height at (x, y) is the sum of
 *  - the base plane z = 0, or the heightfield where one is given: heights
 *    at the corners of a regular grid of cells, bilinear inside a cell, the
 *    edge cell's height held outside the grid;
 *  - the ramps (a slope that rises at a grade along a direction and holds
 *    its top; a bank is a ramp across the road), each with rounded (raised
 *    cosine) transitions so that the surface and its normal are continuous;
 *  - the raised-cosine bumps below (kerbs, humps, dips), where the highest
 *    bump wins.
 * The surface material at (x, y) (surface.h ids) is the grid cell's where
 * there is a material grid, else the base surface; a patch (rectangle or
 * circle, listed after the grid) overrides it, the last listed winning. A
 * water patch fills its area with level water (pdk_patch), whose depth over
 * the ground the queries report (wheels in it feel water drag, the Polaris
 * model); it does not change the ground or its surface.
 *
 * A bump is a strip centred at (x_m, y_m) whose length axis points along
 * yaw_rad. Across its length it rises as a raised cosine,
 *   h(u) = height_m (1 - cos(2 pi u)) / 2,  u in [0, 1] along length_m,
 * which is smooth where it meets the plane (zero height and slope), so a
 * wheel rolling along the length axis sees a continuous surface and normal.
 * Across its width it has full height over width_m and ends in a vertical
 * edge: cross it along its length, as a wheel crosses a kerb or a hump; a
 * wheel that crosses the edge meets a face (pdk_terrain_face).
 *
 * A wheel meets the ground by a ray (pdk_terrain_raycast), or, where the world
 * asks for it, by a cylinder sweep (pdk_terrain_sweep) that samples the tyre's
 * footprint across its width and along its circumference, so that a kerb
 * beside the ray (under the tyre's shoulder) is not missed (a lone ray can
 * miss a kerb beside the tyre). */
#ifndef PDK_TERRAIN_H
#define PDK_TERRAIN_H

#include <stdint.h>

#include "sim/error.h"
#include "sim/terrain_def.h"

/* What a wheel's query finds: the distance along the query's direction,
 * the upward unit normal, the contact point (world), the surface id there
 * and the water depth over it, and whether the ray stopped on a vertical
 * face's side rather than on the ground: with ramps or heightfield
 * heights, where the ray's root is bracketed within 1e-6 m at a step of the
 * ground, the ray still more than PDK_TERRAIN_FACE_SIDE_M off it (the
 * fixed-point ray over bumps alone does not tell, nor does a sweep whose
 * sample stops the wheel). */
typedef struct pdk_ground_hit {
    double distance_m;
    double normal[3];
    double point_m[3];
    int32_t surface_id;
    int32_t face_side; /* 1: the ray stopped on a vertical face's side (pdk_terrain_face) */
    double water_depth_m;
} pdk_ground_hit;

/* Whether the ground is the plane z = 0 everywhere (no bump, no ramp, no
 * heightfield heights; patches and materials may still vary the surface):
 * then a ray's distance is exactly -origin_z / dir_z and its normal e_z, and
 * a sweep is the ray. A wheel model may take that path without calling in. */
int pdk_terrain_is_plane(const pdk_terrain_def *terrain);

/* Fills the derived fields of every bump (cos_yaw ... box_half_y_m), ramp
 * (cos_yaw, sin_yaw) and patch (cos_yaw, sin_yaw, water_level_m) and sets
 * prepared, for a terrain that passes pdk_terrain_problem. Call it again
 * after changing a piece. The result is still plain data: a byte copy of a
 * prepared terrain is prepared. The world prepares its own copy of the
 * terrain when it is made (pdk_world_init). The functions below take a
 * prepared terrain or not, with the same results to the bit; an unprepared
 * one costs a preparation of its pieces (not of the grid) per call. */
void pdk_terrain_prepare(pdk_terrain_def *terrain);

/* Ground height at (x, y) and the ground's upward unit normal there. On a
 * vertical edge (a bump's or ramp's side, where it ends across its width)
 * the height is the higher side's up to and including the edge. */
double pdk_terrain_height(const pdk_terrain_def *terrain, double x_m, double y_m, double normal[3]);

/* The surface id at (x, y) (the last patch covering it, else the grid
 * cell's material, else the base surface) and, when water_depth_m is not
 * NULL, the depth of water there (the last water patch covering it; 0
 * where none does). */
int pdk_terrain_surface(const pdk_terrain_def *terrain, double x_m, double y_m,
                        double *water_depth_m);

/* Casts a ray from origin along the unit direction dir (dir[2] < 0, pointing
 * down) and returns the distance along it to the ground, with the ground's
 * normal at the hit. The distance is negative when the origin is already
 * below the ground.
 *  - On the plane (pdk_terrain_is_plane) it is exact: -origin_z / dir_z.
 *  - With bumps only, it refines the hit by fixed-point iteration on the
 *    height under the ray (three passes, exact to well under a millimetre
 *    for rays within 30 degrees of vertical). A ray whose path down to the
 *    plane passes over no bump's box is answered as the plane, without the
 *    iteration (the iteration would give the same).
 *  - With ramps or heightfield heights, it solves f(s) = o_z + s d_z -
 *    h(o_xy + s d_xy) = 0 by Newton's method from the height under the
 *    origin, with f' = d_z - grad h . d_xy; a step moves the ray's foot at
 *    most PDK_TERRAIN_RAY_MAX_STEP_M sideways (half a cell on a finer grid),
 *    falls back to the fixed-point step where the ground is steeper than
 *    the ray, and once the root is bracketed (f of both signs seen) a step
 *    that leaves the bracket is a bisection. It stops when a step is below
 *    PDK_TERRAIN_RAY_TOL_M, so the hit is within about that of the ground
 *    where the ground is smooth (a vertical ray, or a plane or ramp stretch,
 *    converges in one or two steps), and at the edge itself where the ray
 *    meets a vertical edge (pdk_ground_hit.face_side tells which the ray
 *    hit found); after PDK_TERRAIN_RAY_MAX_ITER steps it returns
 *    where it is (a ray grazing a slope steeper than itself). */
#define PDK_TERRAIN_RAY_MAX_STEP_M 0.25
#define PDK_TERRAIN_RAY_TOL_M 1.0e-9
#define PDK_TERRAIN_RAY_MAX_ITER 48
double pdk_terrain_raycast(const pdk_terrain_def *terrain, const double origin[3],
                           const double dir[3], double normal[3]);

/* pdk_terrain_raycast with what it hit: hit->distance_m is its return
 * value, hit->point_m origin + distance dir, and the surface and water
 * depth are those at the hit point (the depth measured from the point's
 * height). */
void pdk_terrain_ray_hit(const pdk_terrain_def *terrain, const double origin[3],
                         const double dir[3], pdk_ground_hit *hit);

/* The cylinder sweep of a wheel (a ray can miss a kerb beside the tyre; a
 * swept shape samples a larger footprint). The wheel's centre moves from
 * origin along the unit direction dir (down the strut; origin may be any point
 * of that line, the strut's top as well as the centre, and the distance is
 * measured from it, as a ray's); the wheel is a cylinder of radius_m and
 * width_m whose axis is the unit vector axle (perpendicular to dir).
 *
 * The ray from origin finds the wheel's lowest point on the ground, c. The
 * footprint around it is sampled at PDK_SWEEP_ACROSS offsets across the
 * width (the centre plane and both shoulders, +-width_m / 2 along axle)
 * times PDK_SWEEP_ALONG offsets d along the circumference (the lowest point,
 * and d = +-radius_m sin 30 deg, +-radius_m sin 60 deg forward and back
 * along dir x axle), each taken on the ground (its horizontal part). The
 * tyre is a stack of vertical circle sections (its camber is not
 * modelled: the carcass conforms to the road across its width): to clear
 * the ground at a sample the centre must stand sqrt(R^2 - d^2) above the
 * ground there, that is (h_k - h_c) - (R - sqrt(R^2 - d^2)) higher than
 * where the ray put it, h_k and h_c the ground's heights at the sample and
 * at c. A sample that needs it higher stops the wheel that much sooner
 * along dir, (that) / -dir[2]; hit is the sample that stops it first (the
 * ray's own hit when none does): its distance, which is the distance the
 * centre moves until the cylinder touches plus radius_m / -dir[2], its
 * ground point (the sample's position and h_k), normal, surface and water
 * depth. The ray wins ties, so on level ground (any terrain, wherever the
 * ground under the footprint is level) the sweep is the ray to the bit; on
 * the plane, and with bumps only where no bump lies under the footprint,
 * it is the ray without sampling. A kerb under the tyre's shoulder, or one
 * just ahead of the contact higher than the circle's rise there (R (1 -
 * cos 30 deg) = 0.134 R at R/2 ahead), shortens the distance where the ray
 * through the centre plane misses it. A sample that would stop the centre
 * before it leaves origin (a negative distance) is not taken: the ground
 * there stands above the top of the wheel's reach, the side of a face
 * (pdk_terrain_face) that the shoulder meets and cannot stand on; with the
 * ray's own distance negative no sample is taken. The samples sit around
 * the ray's hit rather than moving with the wheel down a tilted strut: for a strut
 * tilted by theta the footprint is off by the sample's rise times tan
 * theta (under 1 mm for a 5 cm kerb at 1 degree). Costs one ray and up to
 * 15 height evaluations. */
#define PDK_SWEEP_ACROSS 3
#define PDK_SWEEP_ALONG 5
void pdk_terrain_sweep(const pdk_terrain_def *terrain, const double origin[3],
                       const double dir[3], const double axle[3], double radius_m,
                       double width_m, pdk_ground_hit *hit);

/* A vertical face: where a bump or a ramp ends across its width (or a
 * bump along its length, where it stands on a lower one), the ground steps
 * from one height to another at a line. A point below the ground within
 * reach of such a line, across which the ground is no higher than the
 * point, is behind that face: it came there through the face's side, not
 * from above. */
typedef struct pdk_face_hit {
    double normal[3]; /* horizontal unit vector out of the face, toward its lower side */
    double depth_m;   /* the point's horizontal distance behind the face's line */
    double foot_m[3]; /* the ground just across the line: x, y and its height */
} pdk_face_hit;

/* What pdk_terrain_face found. Values are stable. */
typedef enum pdk_face_kind {
    PDK_FACE_NONE = 0,   /* hit stands */
    PDK_FACE_SIDE = 1,   /* the query met a face's side below its top */
    PDK_FACE_BEHIND = 2, /* the query's origin is behind a face */
} pdk_face_kind;

/* How far past a hit along the ray pdk_terrain_face looks for a face's
 * side, and by how much the ground must stand off a ray that stopped at a
 * step of it for that to be a face's side (pdk_ground_hit.face_side): well
 * above a ray's tolerance, well below a step a wheel feels. */
#define PDK_TERRAIN_FACE_PROBE_M 1.0e-6
#define PDK_TERRAIN_FACE_SIDE_M 1.0e-4
/* How far across a face's line its foot is taken: well above the rounding
 * of a position within the world's bounds (1e7 m: 2e-9 m). */
#define PDK_TERRAIN_FACE_ACROSS_M 1.0e-6

/* What a wheel's query (*hit, from pdk_terrain_ray_hit or pdk_terrain_sweep
 * from origin along the unit direction dir, dir[2] < 0) becomes at a face:
 * the ground a wheel stands on is ground it meets from above, on its own
 * side of every face.
 *  - PDK_FACE_BEHIND: hit's distance is negative and origin lies behind a
 *    face within reach_m (horizontally) of it, the nearest such face: the
 *    ground under origin is higher than origin, and at the foot,
 *    PDK_TERRAIN_FACE_ACROSS_M across the face's line on its other side, it
 *    is at or below origin. *face is that face and origin's depth behind
 *    it.
 *  - PDK_FACE_SIDE: hit->face_side, the ray met a face's side below its
 *    top, as a ray tilted toward a face meets it before its origin reaches
 *    it: just past the hit (PDK_TERRAIN_FACE_PROBE_M along dir) the ground
 *    stands above the ray, and a face's line lies within twice that of the
 *    point there with the ground across it below. *face is not written.
 * In both, *hit becomes what the ray from origin along dir meets on the
 * face's lower side: the plane tangent to the ground at the foot, with the
 * foot's normal, surface and water depth (hit->point_m is on that plane,
 * an infinite distance where dir does not point into it). The four-wheel
 * model's wheel that runs into a face taller than its strut's reach stands
 * on the foot and is held by the face (docs/vehicle-model.md, "Faces and
 * the end of the travel").
 * PDK_FACE_NONE leaves *face and *hit untouched: where origin is on or
 * above the ground and the hit is not on a face's side, where no face lies
 * within reach_m, or where the ground across every face within reach is
 * higher than origin (a wheel pushed into level ground from above, as on a
 * hard landing, is not behind a face). Costs nothing on a terrain without
 * ramps or bumps or where hit is on the ground from above (the four-wheel
 * model calls it only for a negative distance or face_side); else one
 * height evaluation and one per side line within reach (two per ramp,
 * four per bump). The heightfield has no faces: it is continuous. */
int pdk_terrain_face(const pdk_terrain_def *terrain, const double origin[3], const double dir[3],
                     double reach_m, pdk_face_hit *face, pdk_ground_hit *hit);

#endif
