/* The collision hull (hull.h): the box from a definition, its points and
 * its support function. */
#include "vehicle/hull.h"

#include <math.h>

static double max2(double a, double b)
{
    return a > b ? a : b;
}

pdk_hull pdk_hull_from_def(const pdk_vehicle_def *def, double ray_top_m)
{
    const pdk_chassis_def *c = &def->chassis;
    const double r_front = def->tyre_front.law.radius_m;
    const double r_rear = def->tyre_rear.law.radius_m;
    const double track_m = max2(pdk_vehicle_def_track_m(def, 0), pdk_vehicle_def_track_m(def, 1));
    pdk_hull h;
    h.front_m = c->cg_to_front_axle_m + 2.0 * r_front;
    h.rear_m = -(c->wheelbase_m - c->cg_to_front_axle_m) - 2.0 * r_rear;
    if (c->body_length_m > 0.0) {
        /* The given length, the difference shared by the two overhangs. */
        const double more = 0.5 * (c->body_length_m - (h.front_m - h.rear_m));
        h.front_m += more;
        h.rear_m -= more;
    }
    h.half_width_m =
        0.5 * (c->body_width_m > 0.0 ? c->body_width_m : track_m + max2(r_front, r_rear));
    h.bottom_m = max2(ray_top_m, fmin(r_front, r_rear)) - c->cg_height_m;
    h.roof_m = (c->body_height_m > 0.0 ? c->body_height_m : 2.5 * c->cg_height_m) - c->cg_height_m;
    return h;
}

void pdk_hull_points(const pdk_hull *hull, double out[3 * PDK_HULL_POINTS])
{
    for (int k = 0; k < 8; k++) {
        out[3 * k + 0] = (k & 1) ? hull->front_m : hull->rear_m;
        out[3 * k + 1] = (k & 2) ? hull->half_width_m : -hull->half_width_m;
        out[3 * k + 2] = (k & 4) ? hull->roof_m : hull->bottom_m;
    }
    for (int k = 0; k < 4; k++) {
        double *o = &out[3 * (8 + k)];
        o[0] = 0.5 * (hull->front_m + hull->rear_m);
        o[1] = (k & 1) ? hull->half_width_m : -hull->half_width_m;
        o[2] = (k & 2) ? hull->roof_m : hull->bottom_m;
    }
}

/* R r for the unit quaternion q (w, x, y, z). */
static void rotate(const double q[4], const double r[3], double out[3])
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    out[0] = (1.0 - 2.0 * (y * y + z * z)) * r[0] + 2.0 * (x * y - w * z) * r[1] +
             2.0 * (x * z + w * y) * r[2];
    out[1] = 2.0 * (x * y + w * z) * r[0] + (1.0 - 2.0 * (x * x + z * z)) * r[1] +
             2.0 * (y * z - w * x) * r[2];
    out[2] = 2.0 * (x * z - w * y) * r[0] + 2.0 * (y * z + w * x) * r[1] +
             (1.0 - 2.0 * (x * x + y * y)) * r[2];
}

void pdk_hull_points_world(const pdk_hull *hull, const double pos_m[3], const double quat[4],
                           double out[3 * PDK_HULL_POINTS])
{
    double body[3 * PDK_HULL_POINTS];
    pdk_hull_points(hull, body);
    for (int k = 0; k < PDK_HULL_POINTS; k++) {
        double w[3];
        rotate(quat, &body[3 * k], w);
        for (int j = 0; j < 3; j++) {
            out[3 * k + j] = pos_m[j] + w[j];
        }
    }
}

double pdk_hull_support(const pdk_hull *hull, const double pos_m[3], const double quat[4],
                        const double dir[3], double point_m[3])
{
    /* A box's support point is a corner: the furthest of the eight. */
    double pts[3 * PDK_HULL_POINTS];
    pdk_hull_points_world(hull, pos_m, quat, pts);
    int best = 0;
    double best_d = -INFINITY;
    for (int k = 0; k < 8; k++) {
        const double d = dir[0] * pts[3 * k] + dir[1] * pts[3 * k + 1] + dir[2] * pts[3 * k + 2];
        if (d > best_d) {
            best_d = d;
            best = k;
        }
    }
    for (int j = 0; j < 3; j++) {
        point_m[j] = pts[3 * best + j];
    }
    return best_d;
}

pdk_hull_face pdk_hull_face_toward(const double d[3])
{
    const double ax = fabs(d[0]), ay = fabs(d[1]), az = fabs(d[2]);
    if (az >= ax && az >= ay) {
        return d[2] < 0.0 ? PDK_HULL_FACE_BOTTOM : PDK_HULL_FACE_ROOF;
    }
    if (ay >= ax) {
        return d[1] > 0.0 ? PDK_HULL_FACE_LEFT : PDK_HULL_FACE_RIGHT;
    }
    return d[0] > 0.0 ? PDK_HULL_FACE_FRONT : PDK_HULL_FACE_REAR;
}

double pdk_hull_reach_m(const pdk_hull *hull)
{
    const double x = max2(hull->front_m, -hull->rear_m);
    const double z = max2(hull->roof_m, -hull->bottom_m);
    return sqrt(x * x + hull->half_width_m * hull->half_width_m + z * z);
}
