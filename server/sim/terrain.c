/* The ground: the plane z = 0 and raised-cosine bumps (terrain.h). */
#include "terrain.h"

#include <math.h>
#include <stddef.h>

#include "trig.h"
#include "world.h"

#define TWO_PI 6.28318530717958647692

/* Messages per bump index: static strings, one set per possible bump. */
#define BUMP_MSGS(i)                                                                               \
    {                                                                                              \
        "terrain.bumps[" #i "].x_m and y_m must be finite and within 1e7 m",                       \
            "terrain.bumps[" #i "].yaw_rad must be finite",                                        \
            "terrain.bumps[" #i "].length_m and width_m must be finite and above 0",               \
            "terrain.bumps[" #i "].height_m must be finite with |height| <= length / 2"            \
    }

static const char *const bump_msgs[PDK_TERRAIN_MAX_BUMPS][4] = {
    BUMP_MSGS(0),  BUMP_MSGS(1),  BUMP_MSGS(2),  BUMP_MSGS(3),  BUMP_MSGS(4),  BUMP_MSGS(5),
    BUMP_MSGS(6),  BUMP_MSGS(7),  BUMP_MSGS(8),  BUMP_MSGS(9),  BUMP_MSGS(10), BUMP_MSGS(11),
    BUMP_MSGS(12), BUMP_MSGS(13), BUMP_MSGS(14), BUMP_MSGS(15),
};

const char *pdk_terrain_problem(const pdk_terrain_def *t)
{
    if (t == NULL) {
        return "terrain is NULL";
    }
    if (t->n_bumps < 0 || t->n_bumps > PDK_TERRAIN_MAX_BUMPS) {
        return "terrain.n_bumps must be within 0..16";
    }
    for (int i = 0; i < t->n_bumps; i++) {
        const pdk_bump *b = &t->bumps[i];
        if (!isfinite(b->x_m) || !isfinite(b->y_m) || fabs(b->x_m) > PDK_WORLD_MAX_POSITION_M ||
            fabs(b->y_m) > PDK_WORLD_MAX_POSITION_M) {
            return bump_msgs[i][0];
        }
        if (!isfinite(b->yaw_rad)) {
            return bump_msgs[i][1];
        }
        if (!isfinite(b->length_m) || !(b->length_m > 0.0) || !isfinite(b->width_m) ||
            !(b->width_m > 0.0)) {
            return bump_msgs[i][2];
        }
        if (!isfinite(b->height_m) || fabs(b->height_m) > 0.5 * b->length_m) {
            return bump_msgs[i][3];
        }
    }
    return NULL;
}

/* One bump's height at (x, y) and its gradient (dh/dx, dh/dy); returns 0 with
 * no gradient outside it. Along the length axis, u = s / length + 1/2 runs
 * 0..1 and h = H (1 - cos 2 pi u) / 2, so dh/ds = H pi sin(2 pi u) / length. */
static int bump_at(const pdk_bump *b, double x, double y, double *h, double *gx, double *gy)
{
    double sy, cy;
    pdk_trig_sincos(b->yaw_rad, &sy, &cy);
    double dx = x - b->x_m;
    double dy = y - b->y_m;
    double s = dx * cy + dy * sy;   /* along the length axis */
    double w = -dx * sy + dy * cy;  /* across it */
    if (fabs(s) >= 0.5 * b->length_m || fabs(w) > 0.5 * b->width_m) {
        return 0;
    }
    double u = s / b->length_m + 0.5;
    double su, cu;
    pdk_trig_sincos(TWO_PI * u, &su, &cu);
    *h = b->height_m * 0.5 * (1.0 - cu);
    double dhds = b->height_m * (TWO_PI * 0.5) * su / b->length_m;
    *gx = dhds * cy;
    *gy = dhds * sy;
    return 1;
}

double pdk_terrain_height(const pdk_terrain_def *t, double x, double y, double normal[3])
{
    double best = 0.0, gx = 0.0, gy = 0.0;
    int found = 0;
    for (int i = 0; i < t->n_bumps; i++) {
        double h, bx, by;
        if (bump_at(&t->bumps[i], x, y, &h, &bx, &by) && (!found || h > best)) {
            /* Highest wins; a dip only where no bump is higher than it
             * (the plane itself counts as 0 only where no bump covers). */
            best = h;
            gx = bx;
            gy = by;
            found = 1;
        }
    }
    /* The surface z = h(x, y) has the upward normal (-hx, -hy, 1) / norm. */
    double inv = 1.0 / sqrt(gx * gx + gy * gy + 1.0);
    normal[0] = -gx * inv;
    normal[1] = -gy * inv;
    normal[2] = inv;
    return best;
}

double pdk_terrain_raycast(const pdk_terrain_def *t, const double o[3], const double d[3],
                           double normal[3])
{
    if (t->n_bumps == 0) {
        /* The plane z = 0: o_z + s d_z = 0. */
        normal[0] = 0.0;
        normal[1] = 0.0;
        normal[2] = 1.0;
        return -o[2] / d[2];
    }
    /* Fixed point on s: the ray's point p(s) = o + s d lies on the ground
     * when p_z(s) = h(p_x(s), p_y(s)), i.e. s = (h(p(s)) - o_z) / d_z. The
     * map's slope is |grad h| |d_xy| / |d_z|, below 0.5 for slopes under 45
     * degrees and rays within 30 degrees of vertical, so three passes from
     * the height under the origin leave an error below 1/8 of the first
     * guess's, itself under the bump's height times that slope. */
    double s = (pdk_terrain_height(t, o[0], o[1], normal) - o[2]) / d[2];
    for (int pass = 0; pass < 3; pass++) {
        double h = pdk_terrain_height(t, o[0] + s * d[0], o[1] + s * d[1], normal);
        s = (h - o[2]) / d[2];
    }
    return s;
}
