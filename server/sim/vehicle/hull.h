/* A vehicle's collision hull: the box its body fills, in the body frame
 * (ISO 8855: x forward, y left, z up, origin at the CG), and the points on
 * it that the four-wheel model holds out of the ground (chassis.h). The
 * box comes from the definition's dimensions (pdk_hull_from_def says how);
 * its points in the world and its support function are the queries that
 * contact between bodies reuses. Plain data and pure functions. */
#ifndef PDK_HULL_H
#define PDK_HULL_H

#include "sim/vehicle_def.h"

/* The points the ground may touch: the box's eight corners, then the
 * midpoints of its four edges along x (a car lying on its side or roof
 * across a ramp's edge rests on those). */
#define PDK_HULL_POINTS 12

/* The box's faces, as the BodyContactFace channel numbers them (0: none). */
typedef enum pdk_hull_face {
    PDK_HULL_FACE_NONE = 0,
    PDK_HULL_FACE_BOTTOM = 1,
    PDK_HULL_FACE_ROOF = 2,
    PDK_HULL_FACE_LEFT = 3,
    PDK_HULL_FACE_RIGHT = 4,
    PDK_HULL_FACE_FRONT = 5,
    PDK_HULL_FACE_REAR = 6,
} pdk_hull_face;

/* The box, body frame, m: x from rear_m to front_m, y within +-half_width_m,
 * z from bottom_m to roof_m. */
typedef struct pdk_hull {
    double rear_m, front_m;
    double half_width_m;
    double bottom_m, roof_m;
} pdk_hull;

/* The hull of def, whose struts' rays start ray_top_m above the static
 * contact points (pdk_fw_consts.ride_ray_top_m). Its length, width and
 * roof height are the chassis' body_length_m, body_width_m and
 * body_height_m (the length's difference from the derived one shared by
 * both overhangs); where those are 0 (no shipped preset gives them) they
 * are derived from the dimensions every definition has:
 *  - length: each axle's overhang beyond its wheels' centres is twice that
 *    axle's tyre radius (a bumper ahead of the front tyre, a boot behind
 *    the rear one);
 *  - width: the wider axle's track plus one tyre radius (the tyres' outer
 *    shoulders and the body over them);
 *  - roof: 2.5 times the CG height above the ground at rest (the project's
 *    estimate: a car's CG sits at about 40 % of its roof's height).
 * The bottom is at the wheels' centres (the smaller tyre radius above the
 * ground at rest), or at the rays' tops where those are higher: a car's
 * sills and floor lie between the ground and its axles, and the struts'
 * hard contacts at the rays' tops already hold the body when the
 * suspension bottoms, so the hull meets the ground where the wheels cannot
 * hold the car (on its side or roof, its ends over a crest) and not when
 * its tyres sink into soil or go flat. */
pdk_hull pdk_hull_from_def(const pdk_vehicle_def *def, double ray_top_m);

/* The hull's points (PDK_HULL_POINTS) in the body frame, point k at
 * out[3k..3k+2]: corners k = 0..7 with bit 0 front, bit 1 left, bit 2 roof,
 * then the x-edges' midpoints (8 + (bit 0 left, bit 1 roof)). */
void pdk_hull_points(const pdk_hull *hull, double out[3 * PDK_HULL_POINTS]);

/* The hull's points in the world for a body at pos_m (CG) with unit
 * orientation quat (w, x, y, z, body to world). */
void pdk_hull_points_world(const pdk_hull *hull, const double pos_m[3], const double quat[4],
                           double out[3 * PDK_HULL_POINTS]);

/* The support function: the hull's point furthest along the world
 * direction dir (need not be unit) for the body at pos_m, quat, into
 * point_m; returns its distance along dir times |dir|. */
double pdk_hull_support(const pdk_hull *hull, const double pos_m[3], const double quat[4],
                        const double dir[3], double point_m[3]);

/* The face whose outward normal points most along the body-frame
 * direction d (the face that meets a ground whose normal is -d). */
pdk_hull_face pdk_hull_face_toward(const double d[3]);

/* The radius of the sphere about the CG that holds the hull: no point of
 * the body is further from the CG. */
double pdk_hull_reach_m(const pdk_hull *hull);

#endif
