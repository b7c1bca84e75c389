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

/* How much a bump's box is wider than the bump on each side, relative to
 * its half extent: far more than the rounding of the box and of the
 * point's projection (a few ulps), far less than matters for speed. */
#define BOX_SLACK 1.0e-9

void pdk_terrain_prepare(pdk_terrain_def *t)
{
    for (int i = 0; i < t->n_bumps; i++) {
        pdk_bump *b = &t->bumps[i];
        double sy, cy;
        pdk_trig_sincos(b->yaw_rad, &sy, &cy);
        b->cos_yaw = cy;
        b->sin_yaw = sy;
        /* The rectangle's corners lie at +-L/2 along (c, s) and +-W/2
         * along (-s, c): its box's half extents are |c| L/2 + |s| W/2 and
         * |s| L/2 + |c| W/2. */
        double hl = 0.5 * b->length_m;
        double hw = 0.5 * b->width_m;
        double ex = fabs(cy) * hl + fabs(sy) * hw;
        double ey = fabs(sy) * hl + fabs(cy) * hw;
        b->box_half_x_m = ex + BOX_SLACK * (hl + hw);
        b->box_half_y_m = ey + BOX_SLACK * (hl + hw);
    }
    t->prepared = 1;
}

/* Whether (x, y) lies in the bump's box. */
static inline int in_box(const pdk_bump *b, double x, double y)
{
    return fabs(x - b->x_m) <= b->box_half_x_m && fabs(y - b->y_m) <= b->box_half_y_m;
}

/* One bump's height at (x, y) and its gradient (dh/dx, dh/dy); returns 0 with
 * no gradient outside it. Along the length axis, u = s / length + 1/2 runs
 * 0..1 and h = H (1 - cos 2 pi u) / 2, so dh/ds = H pi sin(2 pi u) / length.
 * The bump is prepared. */
static int bump_at(const pdk_bump *b, double x, double y, double *h, double *gx, double *gy)
{
    if (!in_box(b, x, y)) {
        return 0;
    }
    double sy = b->sin_yaw, cy = b->cos_yaw;
    double dx = x - b->x_m;
    double dy = y - b->y_m;
    double s = dx * cy + dy * sy;  /* along the length axis */
    double w = -dx * sy + dy * cy; /* across it */
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

/* The height and normal of a prepared terrain. */
static double height_of(const pdk_terrain_def *t, double x, double y, double normal[3])
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

double pdk_terrain_height(const pdk_terrain_def *t, double x, double y, double normal[3])
{
    if (!t->prepared && t->n_bumps > 0) {
        pdk_terrain_def local = *t;
        pdk_terrain_prepare(&local);
        return height_of(&local, x, y, normal);
    }
    return height_of(t, x, y, normal);
}

/* Whether the segment from (x0, y0) to (x1, y1) may pass over a bump: its
 * box meets a bump's box. */
static int path_meets_a_bump(const pdk_terrain_def *t, double x0, double y0, double x1, double y1)
{
    double lo_x = x0 < x1 ? x0 : x1, hi_x = x0 < x1 ? x1 : x0;
    double lo_y = y0 < y1 ? y0 : y1, hi_y = y0 < y1 ? y1 : y0;
    for (int i = 0; i < t->n_bumps; i++) {
        const pdk_bump *b = &t->bumps[i];
        if (hi_x >= b->x_m - b->box_half_x_m && lo_x <= b->x_m + b->box_half_x_m &&
            hi_y >= b->y_m - b->box_half_y_m && lo_y <= b->y_m + b->box_half_y_m) {
            return 1;
        }
    }
    return 0;
}

static double raycast_of(const pdk_terrain_def *t, const double o[3], const double d[3],
                         double normal[3])
{
    /* Fixed point on s: the ray's point p(s) = o + s d lies on the ground
     * when p_z(s) = h(p_x(s), p_y(s)), i.e. s = (h(p(s)) - o_z) / d_z. The
     * map's slope is |grad h| |d_xy| / |d_z|, below 0.5 for slopes under 45
     * degrees and rays within 30 degrees of vertical, so three passes from
     * the height under the origin leave an error below 1/8 of the first
     * guess's, itself under the bump's height times that slope. Where the
     * ray's path from the origin down to the plane passes over no bump's
     * box, the height is 0 at the origin and at the plane's hit, so every
     * pass lands on the plane's answer: it is returned as it is. A pass
     * that leaves s where it was is the last one too: the passes after it
     * would evaluate the same point. */
    double s = (0.0 - o[2]) / d[2];
    if (!path_meets_a_bump(t, o[0], o[1], o[0] + s * d[0], o[1] + s * d[1])) {
        /* What height_of gives where no bump is: (-0, -0, 1). */
        normal[0] = -0.0;
        normal[1] = -0.0;
        normal[2] = 1.0;
        return s;
    }
    s = (height_of(t, o[0], o[1], normal) - o[2]) / d[2];
    for (int pass = 0; pass < 3; pass++) {
        double h = height_of(t, o[0] + s * d[0], o[1] + s * d[1], normal);
        double next = (h - o[2]) / d[2];
        if (next == s) {
            break;
        }
        s = next;
    }
    return s;
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
    if (!t->prepared) {
        pdk_terrain_def local = *t;
        pdk_terrain_prepare(&local);
        return raycast_of(&local, o, d, normal);
    }
    return raycast_of(t, o, d, normal);
}
