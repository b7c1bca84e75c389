/* The ground (terrain.h): the plane or a heightfield, ramps and
 * raised-cosine bumps on it, surface materials and water patches, the
 * wheel's two queries, the ray and the cylinder sweep, and what a wheel's
 * query becomes at a vertical face. */
#include "ground/terrain.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ground/surface.h"
#include "math/trig.h"
#include "sim/world.h"

#define PI 3.14159265358979323846
#define TWO_PI 6.28318530717958647692

/* ------------------------------------------------------------------------ */
/* Validation */

/* Messages per piece index: static strings, one set per possible piece. */
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

#define RAMP_MSGS(i)                                                                               \
    {                                                                                              \
        "terrain.ramps[" #i "].x_m and y_m must be finite and within 1e7 m",                       \
            "terrain.ramps[" #i "].yaw_rad must be finite",                                        \
            "terrain.ramps[" #i "].length_m and width_m must be finite, above 0 and at most "      \
            "1e7 m",                                                                               \
            "terrain.ramps[" #i "].grade must be within -1..1",                                    \
            "terrain.ramps[" #i "].transition_m must be within 0..length_m / 2",                   \
            "terrain.ramps[" #i "].hold_m must be finite, at least 0 and at most 1e7 m"            \
    }

static const char *const ramp_msgs[PDK_TERRAIN_MAX_RAMPS][6] = {
    RAMP_MSGS(0), RAMP_MSGS(1), RAMP_MSGS(2), RAMP_MSGS(3),
    RAMP_MSGS(4), RAMP_MSGS(5), RAMP_MSGS(6), RAMP_MSGS(7),
};

#define PATCH_MSGS(i)                                                                              \
    {                                                                                              \
        "terrain.patches[" #i "].shape must be PDK_PATCH_RECT or PDK_PATCH_CIRCLE",                \
            "terrain.patches[" #i "].x_m and y_m must be finite and within 1e7 m",                 \
            "terrain.patches[" #i "].yaw_rad must be finite",                                      \
            "terrain.patches[" #i "].size_x_m and size_y_m (a rectangle's sides) must be finite, " \
            "above 0 and at most 1e7 m",                                                           \
            "terrain.patches[" #i "].size_x_m (a circle's radius) must be finite, above 0 and at " \
            "most 1e7 m",                                                                          \
            "terrain.patches[" #i "].water_depth_m must be within 0..10 m",                        \
            "terrain.patches[" #i "].surface_id must be a surface.h id, 0..PDK_SURFACE_COUNT - 1"  \
    }

static const char *const patch_msgs[PDK_TERRAIN_MAX_PATCHES][7] = {
    PATCH_MSGS(0),  PATCH_MSGS(1),  PATCH_MSGS(2),  PATCH_MSGS(3),
    PATCH_MSGS(4),  PATCH_MSGS(5),  PATCH_MSGS(6),  PATCH_MSGS(7),
    PATCH_MSGS(8),  PATCH_MSGS(9),  PATCH_MSGS(10), PATCH_MSGS(11),
    PATCH_MSGS(12), PATCH_MSGS(13), PATCH_MSGS(14), PATCH_MSGS(15),
};

static int finite_within(double v, double lo, double hi)
{
    return isfinite(v) && v >= lo && v <= hi;
}

static int position_ok(double x, double y)
{
    return finite_within(x, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M) &&
           finite_within(y, -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M);
}

static const char *field_problem(const pdk_heightfield *f)
{
    if (f->nx == 0 && f->ny == 0) {
        if (f->has_heights != 0 || f->has_materials != 0) {
            return "terrain.field.has_heights and has_materials need a grid (nx and ny at least "
                   "2)";
        }
        return NULL;
    }
    if (f->nx < 2 || f->ny < 2) {
        return "terrain.field.nx and ny must both be 0 (no grid) or both at least 2";
    }
    if ((int64_t)f->nx * (int64_t)f->ny > PDK_TERRAIN_MAX_CORNERS) {
        return "terrain.field.nx * ny must be at most 16384";
    }
    if ((f->has_heights != 0 && f->has_heights != 1) ||
        (f->has_materials != 0 && f->has_materials != 1)) {
        return "terrain.field.has_heights and has_materials must be 0 or 1";
    }
    if (!finite_within(f->cell_m, PDK_TERRAIN_MIN_CELL_M, PDK_TERRAIN_MAX_CELL_M)) {
        return "terrain.field.cell_m must be within 0.01..1e4 m";
    }
    double far_x = f->origin_x_m + (double)(f->nx - 1) * f->cell_m;
    double far_y = f->origin_y_m + (double)(f->ny - 1) * f->cell_m;
    if (!position_ok(f->origin_x_m, f->origin_y_m) || !position_ok(far_x, far_y)) {
        return "terrain.field.origin_x_m and origin_y_m must be finite and the whole grid within "
               "1e7 m";
    }
    int n = f->nx * f->ny;
    for (int i = 0; f->has_heights && i < n; i++) {
        double h = (double)f->height_m[i];
        if (!finite_within(h, -PDK_TERRAIN_MAX_HEIGHT_M, PDK_TERRAIN_MAX_HEIGHT_M)) {
            return "terrain.field.height_m must be finite and within -1e4..1e4 m at every corner";
        }
    }
    int cells = (f->nx - 1) * (f->ny - 1);
    for (int i = 0; f->has_materials && i < cells; i++) {
        if (f->material[i] >= PDK_SURFACE_COUNT) {
            return "terrain.field.material must be a surface.h id, 0..PDK_SURFACE_COUNT - 1, in "
                   "every cell";
        }
    }
    return NULL;
}

const char *pdk_terrain_problem(const pdk_terrain_def *t)
{
    if (t == NULL) {
        return "terrain is NULL";
    }
    if (t->base_surface_id < 0 || t->base_surface_id >= PDK_SURFACE_COUNT) {
        return "terrain.base_surface_id must be a surface.h id, 0..PDK_SURFACE_COUNT - 1";
    }
    if (t->contact_mode != PDK_CONTACT_RAY && t->contact_mode != PDK_CONTACT_CYLINDER) {
        return "terrain.contact_mode must be PDK_CONTACT_RAY or PDK_CONTACT_CYLINDER";
    }
    if (!finite_within(t->air_temp_c, PDK_TERRAIN_MIN_TEMP_C, PDK_TERRAIN_MAX_AIR_TEMP_C)) {
        return "terrain.air_temp_c must be within -60..60 C";
    }
    if (!finite_within(t->road_temp_c, PDK_TERRAIN_MIN_TEMP_C, PDK_TERRAIN_MAX_ROAD_TEMP_C)) {
        return "terrain.road_temp_c must be within -60..80 C";
    }
    if (t->n_bumps < 0 || t->n_bumps > PDK_TERRAIN_MAX_BUMPS) {
        return "terrain.n_bumps must be within 0..16";
    }
    if (t->n_ramps < 0 || t->n_ramps > PDK_TERRAIN_MAX_RAMPS) {
        return "terrain.n_ramps must be within 0..8";
    }
    if (t->n_patches < 0 || t->n_patches > PDK_TERRAIN_MAX_PATCHES) {
        return "terrain.n_patches must be within 0..16";
    }
    for (int i = 0; i < t->n_bumps; i++) {
        const pdk_bump *b = &t->bumps[i];
        if (!position_ok(b->x_m, b->y_m)) {
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
    for (int i = 0; i < t->n_ramps; i++) {
        const pdk_ramp *r = &t->ramps[i];
        if (!position_ok(r->x_m, r->y_m)) {
            return ramp_msgs[i][0];
        }
        if (!isfinite(r->yaw_rad)) {
            return ramp_msgs[i][1];
        }
        if (!finite_within(r->length_m, 0.0, PDK_WORLD_MAX_POSITION_M) || !(r->length_m > 0.0) ||
            !finite_within(r->width_m, 0.0, PDK_WORLD_MAX_POSITION_M) || !(r->width_m > 0.0)) {
            return ramp_msgs[i][2];
        }
        if (!finite_within(r->grade, -1.0, 1.0)) {
            return ramp_msgs[i][3];
        }
        if (!finite_within(r->transition_m, 0.0, 0.5 * r->length_m)) {
            return ramp_msgs[i][4];
        }
        if (!finite_within(r->hold_m, 0.0, PDK_WORLD_MAX_POSITION_M)) {
            return ramp_msgs[i][5];
        }
    }
    for (int i = 0; i < t->n_patches; i++) {
        const pdk_patch *p = &t->patches[i];
        if (p->shape != PDK_PATCH_RECT && p->shape != PDK_PATCH_CIRCLE) {
            return patch_msgs[i][0];
        }
        if (!position_ok(p->x_m, p->y_m)) {
            return patch_msgs[i][1];
        }
        if (!isfinite(p->yaw_rad)) {
            return patch_msgs[i][2];
        }
        int size_x_ok = finite_within(p->size_x_m, 0.0, PDK_WORLD_MAX_POSITION_M) &&
                        p->size_x_m > 0.0;
        int size_y_ok = finite_within(p->size_y_m, 0.0, PDK_WORLD_MAX_POSITION_M) &&
                        p->size_y_m > 0.0;
        if (p->shape == PDK_PATCH_RECT && !(size_x_ok && size_y_ok)) {
            return patch_msgs[i][3];
        }
        if (p->shape == PDK_PATCH_CIRCLE && !size_x_ok) {
            return patch_msgs[i][4];
        }
        if (!finite_within(p->water_depth_m, 0.0, PDK_TERRAIN_MAX_WATER_DEPTH_M)) {
            return patch_msgs[i][5];
        }
        if (p->water_depth_m == 0.0 &&
            (p->surface_id < 0 || p->surface_id >= PDK_SURFACE_COUNT)) {
            return patch_msgs[i][6];
        }
    }
    return field_problem(&t->field);
}

void pdk_terrain_def_flat(pdk_terrain_def *t)
{
    memset(t, 0, sizeof *t);
    t->base_surface_id = PDK_SURFACE_TARMAC;
    t->contact_mode = PDK_CONTACT_RAY;
    t->air_temp_c = 20.0;
    t->road_temp_c = 20.0;
}

static int field_has_heights(const pdk_terrain_def *t)
{
    return t->field.nx > 0 && t->field.has_heights;
}

int pdk_terrain_is_plane(const pdk_terrain_def *t)
{
    return t->n_bumps == 0 && t->n_ramps == 0 && !field_has_heights(t);
}

/* ------------------------------------------------------------------------ */
/* Pieces and their derived fields */

/* How much a bump's box is wider than the bump on each side, relative to
 * its half extent: far more than the rounding of the box and of the
 * point's projection (a few ulps), far less than matters for speed. */
#define BOX_SLACK 1.0e-9

static void prepare_bump(pdk_bump *b)
{
    double sy, cy;
    pdk_trig_sincos(b->yaw_rad, &sy, &cy);
    b->cos_yaw = cy;
    b->sin_yaw = sy;
    /* The rectangle's corners lie at +-L/2 along (c, s) and +-W/2 along
     * (-s, c): its box's half extents are |c| L/2 + |s| W/2 and |s| L/2 +
     * |c| W/2. */
    double hl = 0.5 * b->length_m;
    double hw = 0.5 * b->width_m;
    double ex = fabs(cy) * hl + fabs(sy) * hw;
    double ey = fabs(sy) * hl + fabs(cy) * hw;
    b->box_half_x_m = ex + BOX_SLACK * (hl + hw);
    b->box_half_y_m = ey + BOX_SLACK * (hl + hw);
}

static void prepare_ramp(pdk_ramp *r)
{
    pdk_trig_sincos(r->yaw_rad, &r->sin_yaw, &r->cos_yaw);
}

/* The terrain's pieces with their derived fields: the terrain's own arrays
 * when it is prepared, else prepared copies in a scratch on the caller's
 * stack (the grid needs nothing derived and is never copied). */
typedef struct pieces {
    const pdk_terrain_def *t;
    const pdk_bump *bumps;
    const pdk_ramp *ramps;
    const pdk_patch *patches;
} pieces;

typedef struct scratch {
    pdk_bump bumps[PDK_TERRAIN_MAX_BUMPS];
    pdk_ramp ramps[PDK_TERRAIN_MAX_RAMPS];
    pdk_patch patches[PDK_TERRAIN_MAX_PATCHES];
} scratch;

static double height_of(const pieces *p, double x, double y, double normal[3]);

/* A water patch's level: water_depth_m above the ground at its centre
 * (bumps and ramps of p prepared). */
static void prepare_patches(const pieces *p, pdk_patch *patches, int n)
{
    for (int i = 0; i < n; i++) {
        pdk_patch *pa = &patches[i];
        pdk_trig_sincos(pa->yaw_rad, &pa->sin_yaw, &pa->cos_yaw);
        pa->water_level_m = 0.0;
        if (pa->water_depth_m > 0.0) {
            double n3[3];
            pa->water_level_m = height_of(p, pa->x_m, pa->y_m, n3) + pa->water_depth_m;
        }
    }
}

static int clamp_count(int n, int max)
{
    return n < 0 ? 0 : n > max ? max : n;
}

void pdk_terrain_prepare(pdk_terrain_def *t)
{
    int nb = clamp_count(t->n_bumps, PDK_TERRAIN_MAX_BUMPS);
    int nr = clamp_count(t->n_ramps, PDK_TERRAIN_MAX_RAMPS);
    int np = clamp_count(t->n_patches, PDK_TERRAIN_MAX_PATCHES);
    for (int i = 0; i < nb; i++) {
        prepare_bump(&t->bumps[i]);
    }
    for (int i = 0; i < nr; i++) {
        prepare_ramp(&t->ramps[i]);
    }
    pieces p = {t, t->bumps, t->ramps, t->patches};
    prepare_patches(&p, t->patches, np);
    t->prepared = 1;
}

static void pieces_of(const pdk_terrain_def *t, scratch *sc, pieces *p)
{
    p->t = t;
    if (t->prepared) {
        p->bumps = t->bumps;
        p->ramps = t->ramps;
        p->patches = t->patches;
        return;
    }
    int nb = clamp_count(t->n_bumps, PDK_TERRAIN_MAX_BUMPS);
    int nr = clamp_count(t->n_ramps, PDK_TERRAIN_MAX_RAMPS);
    int np = clamp_count(t->n_patches, PDK_TERRAIN_MAX_PATCHES);
    for (int i = 0; i < nb; i++) {
        sc->bumps[i] = t->bumps[i];
        prepare_bump(&sc->bumps[i]);
    }
    for (int i = 0; i < nr; i++) {
        sc->ramps[i] = t->ramps[i];
        prepare_ramp(&sc->ramps[i]);
    }
    for (int i = 0; i < np; i++) {
        sc->patches[i] = t->patches[i];
    }
    p->bumps = sc->bumps;
    p->ramps = sc->ramps;
    p->patches = sc->patches;
    prepare_patches(p, sc->patches, np);
}

/* ------------------------------------------------------------------------ */
/* Heights */

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

/* One rise of a ramp (terrain.h): the height at s from the start line and
 * the slope there, for grade g, length l and transition tr, the corners
 * rounded over tr centred on them. In the first rounding, with a = s + tr/2,
 * the slope g (1 - cos(pi a / tr)) / 2 integrates to g (a - tr/pi sin(pi a
 * / tr)) / 2, which is g tr / 2 = g s at a = tr; in the second, with b = s -
 * l + tr/2, g (1 + cos(pi b / tr)) / 2 integrates to g (l - tr/2) + g (b +
 * tr/pi sin(pi b / tr)) / 2, which is g l at b = tr. */
static double rise(double s, double g, double l, double tr, double *slope)
{
    if (tr > 0.0) {
        double a = s + 0.5 * tr;
        if (a <= 0.0) {
            *slope = 0.0;
            return 0.0;
        }
        double sn, cs;
        if (a < tr) {
            pdk_trig_sincos(PI * a / tr, &sn, &cs);
            *slope = 0.5 * g * (1.0 - cs);
            return 0.5 * g * (a - tr / PI * sn);
        }
        double b = s - (l - 0.5 * tr);
        if (b <= 0.0) {
            *slope = g;
            return g * s;
        }
        if (b < tr) {
            pdk_trig_sincos(PI * b / tr, &sn, &cs);
            *slope = 0.5 * g * (1.0 + cs);
            return g * (l - 0.5 * tr) + 0.5 * g * (b + tr / PI * sn);
        }
        *slope = 0.0;
        return g * l;
    }
    if (s <= 0.0) {
        *slope = 0.0;
        return 0.0;
    }
    if (s < l) {
        *slope = g;
        return g * s;
    }
    *slope = 0.0;
    return g * l;
}

/* One ramp's height at (x, y) and its gradient; 0 outside its width and
 * before its first rounding (and after its descent, with a hold). The ramp
 * is prepared. */
static int ramp_at(const pdk_ramp *r, double x, double y, double *h, double *gx, double *gy)
{
    double dx = x - r->x_m;
    double dy = y - r->y_m;
    double w = -dx * r->sin_yaw + dy * r->cos_yaw;
    if (!(fabs(w) <= 0.5 * r->width_m)) {
        return 0;
    }
    double s = dx * r->cos_yaw + dy * r->sin_yaw;
    double half_tr = 0.5 * r->transition_m;
    if (!(s > -half_tr)) {
        return 0;
    }
    double back = r->length_m + r->hold_m; /* where the descent starts */
    if (r->hold_m > 0.0 && s >= back + r->length_m + half_tr) {
        return 0;
    }
    double slope;
    double z = rise(s, r->grade, r->length_m, r->transition_m, &slope);
    if (r->hold_m > 0.0 && s - back > -half_tr) {
        double slope2;
        z -= rise(s - back, r->grade, r->length_m, r->transition_m, &slope2);
        slope -= slope2;
    }
    *h = z;
    *gx = slope * r->cos_yaw;
    *gy = slope * r->sin_yaw;
    return 1;
}

/* The heightfield at (x, y): bilinear in the cell's corners, u and v held
 * at the grid's edge outside it (where the gradient across that edge is
 * 0). */
static double field_at(const pdk_heightfield *f, double x, double y, double *gx, double *gy)
{
    double umax = (double)(f->nx - 1), vmax = (double)(f->ny - 1);
    double u = (x - f->origin_x_m) / f->cell_m;
    double v = (y - f->origin_y_m) / f->cell_m;
    int in_u = 1, in_v = 1;
    if (!(u >= 0.0)) {
        u = 0.0;
        in_u = 0;
    } else if (u > umax) {
        u = umax;
        in_u = 0;
    }
    if (!(v >= 0.0)) {
        v = 0.0;
        in_v = 0;
    } else if (v > vmax) {
        v = vmax;
        in_v = 0;
    }
    int i = (int)u, j = (int)v;
    if (i > f->nx - 2) {
        i = f->nx - 2;
    }
    if (j > f->ny - 2) {
        j = f->ny - 2;
    }
    double fu = u - (double)i, fv = v - (double)j;
    const float *row0 = &f->height_m[j * f->nx + i];
    const float *row1 = row0 + f->nx;
    double h00 = (double)row0[0], h10 = (double)row0[1];
    double h01 = (double)row1[0], h11 = (double)row1[1];
    double h0 = h00 + fu * (h10 - h00);
    double h1 = h01 + fu * (h11 - h01);
    *gx = in_u ? ((h10 - h00) + fv * ((h11 - h01) - (h10 - h00))) / f->cell_m : 0.0;
    *gy = in_v ? (h1 - h0) / f->cell_m : 0.0;
    return h0 + fv * (h1 - h0);
}

/* The height and gradient of the ground: the highest bump (0 where none),
 * plus the heightfield and every ramp. With bumps only, the very
 * arithmetic of the bump-only terrain before ramps and grids existed. */
static double ground_at(const pieces *p, double x, double y, double *gx_out, double *gy_out)
{
    const pdk_terrain_def *t = p->t;
    double best = 0.0, gx = 0.0, gy = 0.0;
    int found = 0;
    for (int i = 0; i < t->n_bumps; i++) {
        double h, bx, by;
        if (bump_at(&p->bumps[i], x, y, &h, &bx, &by) && (!found || h > best)) {
            /* Highest wins; a dip only where no bump is higher than it
             * (the plane itself counts as 0 only where no bump covers). */
            best = h;
            gx = bx;
            gy = by;
            found = 1;
        }
    }
    if (field_has_heights(t)) {
        double fx, fy;
        best += field_at(&t->field, x, y, &fx, &fy);
        gx += fx;
        gy += fy;
    }
    for (int i = 0; i < t->n_ramps; i++) {
        double h, rx, ry;
        if (ramp_at(&p->ramps[i], x, y, &h, &rx, &ry)) {
            best += h;
            gx += rx;
            gy += ry;
        }
    }
    *gx_out = gx;
    *gy_out = gy;
    return best;
}

/* The surface z = h(x, y) has the upward normal (-hx, -hy, 1) / norm. */
static void normal_of(double gx, double gy, double normal[3])
{
    double inv = 1.0 / sqrt(gx * gx + gy * gy + 1.0);
    normal[0] = -gx * inv;
    normal[1] = -gy * inv;
    normal[2] = inv;
}

static double height_of(const pieces *p, double x, double y, double normal[3])
{
    double gx, gy;
    double h = ground_at(p, x, y, &gx, &gy);
    normal_of(gx, gy, normal);
    return h;
}

double pdk_terrain_height(const pdk_terrain_def *t, double x, double y, double normal[3])
{
    scratch sc;
    pieces p;
    pieces_of(t, &sc, &p);
    return height_of(&p, x, y, normal);
}

/* ------------------------------------------------------------------------ */
/* Surfaces and water */

static int in_patch(const pdk_patch *pa, double x, double y)
{
    double dx = x - pa->x_m;
    double dy = y - pa->y_m;
    if (pa->shape == PDK_PATCH_CIRCLE) {
        return dx * dx + dy * dy <= pa->size_x_m * pa->size_x_m;
    }
    double s = dx * pa->cos_yaw + dy * pa->sin_yaw;
    double w = -dx * pa->sin_yaw + dy * pa->cos_yaw;
    return fabs(s) <= 0.5 * pa->size_x_m && fabs(w) <= 0.5 * pa->size_y_m;
}

/* The surface at (x, y) and, when depth is not NULL, the water depth there
 * over the ground at ground_z (or at the ground's own height when ground_z
 * is NULL). Cells are half-open: [i, i + 1) cell widths from the origin. */
static int surface_of(const pieces *p, double x, double y, const double *ground_z, double *depth)
{
    const pdk_terrain_def *t = p->t;
    int id = t->base_surface_id;
    const pdk_heightfield *f = &t->field;
    if (f->nx > 0 && f->has_materials) {
        double u = (x - f->origin_x_m) / f->cell_m;
        double v = (y - f->origin_y_m) / f->cell_m;
        if (u >= 0.0 && u < (double)(f->nx - 1) && v >= 0.0 && v < (double)(f->ny - 1)) {
            int i = (int)u, j = (int)v;
            i = i > f->nx - 2 ? f->nx - 2 : i;
            j = j > f->ny - 2 ? f->ny - 2 : j;
            id = f->material[j * (f->nx - 1) + i];
        }
    }
    int wet = 0;
    double level = 0.0;
    for (int i = 0; i < t->n_patches; i++) {
        const pdk_patch *pa = &p->patches[i];
        if (!in_patch(pa, x, y)) {
            continue;
        }
        if (pa->water_depth_m > 0.0) {
            wet = 1;
            level = pa->water_level_m;
        } else {
            id = pa->surface_id;
        }
    }
    if (depth != NULL) {
        *depth = 0.0;
        if (wet) {
            double n3[3];
            double z = ground_z != NULL ? *ground_z : height_of(p, x, y, n3);
            *depth = level > z ? level - z : 0.0;
        }
    }
    return id;
}

int pdk_terrain_surface(const pdk_terrain_def *t, double x, double y, double *water_depth_m)
{
    if (t->n_patches == 0 && !(t->field.nx > 0 && t->field.has_materials)) {
        if (water_depth_m != NULL) {
            *water_depth_m = 0.0;
        }
        return t->base_surface_id;
    }
    scratch sc;
    pieces p;
    pieces_of(t, &sc, &p);
    return surface_of(&p, x, y, NULL, water_depth_m);
}

/* ------------------------------------------------------------------------ */
/* Rays */

/* A ray's root bracketed this closely (in its distance) with the ray still
 * more than PDK_TERRAIN_FACE_SIDE_M off the ground is a step of the ground:
 * the ray met a face's side. */
#define FACE_BRACKET_M 1.0e-6

/* Whether the segment from (x0, y0) to (x1, y1) may pass over a bump: its
 * box meets a bump's box. */
static int path_meets_a_bump(const pieces *p, double x0, double y0, double x1, double y1)
{
    double lo_x = x0 < x1 ? x0 : x1, hi_x = x0 < x1 ? x1 : x0;
    double lo_y = y0 < y1 ? y0 : y1, hi_y = y0 < y1 ? y1 : y0;
    for (int i = 0; i < p->t->n_bumps; i++) {
        const pdk_bump *b = &p->bumps[i];
        if (hi_x >= b->x_m - b->box_half_x_m && lo_x <= b->x_m + b->box_half_x_m &&
            hi_y >= b->y_m - b->box_half_y_m && lo_y <= b->y_m + b->box_half_y_m) {
            return 1;
        }
    }
    return 0;
}

/* A ray over bumps on the plane. */
static double ray_bumps(const pieces *p, const double o[3], const double d[3], double normal[3])
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
    if (!path_meets_a_bump(p, o[0], o[1], o[0] + s * d[0], o[1] + s * d[1])) {
        /* What height_of gives where no bump is: (-0, -0, 1). */
        normal[0] = -0.0;
        normal[1] = -0.0;
        normal[2] = 1.0;
        return s;
    }
    s = (height_of(p, o[0], o[1], normal) - o[2]) / d[2];
    for (int pass = 0; pass < 3; pass++) {
        double h = height_of(p, o[0] + s * d[0], o[1] + s * d[1], normal);
        double next = (h - o[2]) / d[2];
        if (next == s) {
            break;
        }
        s = next;
    }
    return s;
}

/* A ray over ramps and a heightfield (and bumps): safeguarded Newton on
 * f(s) = o_z + s d_z - h(o_xy + s d_xy), as terrain.h describes. f > 0 is
 * above the ground. */
static double ray_newton(const pieces *p, const double o[3], const double d[3], double normal[3],
                         int *side)
{
    const pdk_terrain_def *t = p->t;
    double max_xy = PDK_TERRAIN_RAY_MAX_STEP_M;
    if (field_has_heights(t) && 0.5 * t->field.cell_m < max_xy) {
        max_xy = 0.5 * t->field.cell_m;
    }
    double dxy = sqrt(d[0] * d[0] + d[1] * d[1]);
    double max_step = dxy > 0.0 ? max_xy / dxy : (double)INFINITY;
    double gx, gy;
    double s = (ground_at(p, o[0], o[1], &gx, &gy) - o[2]) / d[2];
    double above = 0.0, below = 0.0, f = 0.0;
    int have_above = 0, have_below = 0;
    for (int k = 0; k < PDK_TERRAIN_RAY_MAX_ITER; k++) {
        double h = ground_at(p, o[0] + s * d[0], o[1] + s * d[1], &gx, &gy);
        normal_of(gx, gy, normal);
        f = (o[2] + s * d[2]) - h;
        if (f == 0.0) {
            break;
        }
        if (f > 0.0) {
            above = s;
            have_above = 1;
        } else {
            below = s;
            have_below = 1;
        }
        /* Newton where the ray crosses the ground steeply enough (f' at
         * most half of d_z, which is negative); else the fixed-point step,
         * which moves as if the ground were level. */
        double fp = d[2] - (gx * d[0] + gy * d[1]);
        double step = fp <= 0.5 * d[2] ? -f / fp : -f / d[2];
        if (step > max_step) {
            step = max_step;
        } else if (step < -max_step) {
            step = -max_step;
        }
        double next = s + step;
        if (have_above && have_below) {
            double lo = above < below ? above : below;
            double hi = above < below ? below : above;
            if (!(next > lo && next < hi)) {
                next = 0.5 * (above + below);
            }
        }
        int done = fabs(next - s) <= PDK_TERRAIN_RAY_TOL_M;
        s = next;
        if (done) {
            break;
        }
    }
    /* Stopped at a step of the ground: the root bracketed within a hair,
     * and the ray still well off the ground there (a smooth root leaves it
     * within the slope times the tolerance). */
    *side = have_above && have_below && fabs(above - below) <= FACE_BRACKET_M &&
            fabs(f) > PDK_TERRAIN_FACE_SIDE_M;
    return s;
}

static double ray_of(const pieces *p, const double o[3], const double d[3], double normal[3],
                     int *side)
{
    const pdk_terrain_def *t = p->t;
    if (t->n_ramps == 0 && !field_has_heights(t)) {
        *side = 0;
        return ray_bumps(p, o, d, normal);
    }
    return ray_newton(p, o, d, normal, side);
}

/* The plane z = 0: o_z + s d_z = 0. */
static double ray_plane(const double o[3], const double d[3], double normal[3])
{
    normal[0] = 0.0;
    normal[1] = 0.0;
    normal[2] = 1.0;
    return -o[2] / d[2];
}

double pdk_terrain_raycast(const pdk_terrain_def *t, const double o[3], const double d[3],
                           double normal[3])
{
    if (pdk_terrain_is_plane(t)) {
        return ray_plane(o, d, normal);
    }
    scratch sc;
    pieces p;
    pieces_of(t, &sc, &p);
    int side;
    return ray_of(&p, o, d, normal, &side);
}

/* Fills hit from a ray's distance s from o along d and its normal. */
static void fill_hit(const pieces *p, const double o[3], const double d[3], double s,
                     const double normal[3], pdk_ground_hit *hit)
{
    hit->distance_m = s;
    for (int j = 0; j < 3; j++) {
        hit->normal[j] = normal[j];
        hit->point_m[j] = o[j] + s * d[j];
    }
    hit->surface_id =
        surface_of(p, hit->point_m[0], hit->point_m[1], &hit->point_m[2], &hit->water_depth_m);
    hit->face_side = 0;
}

void pdk_terrain_ray_hit(const pdk_terrain_def *t, const double o[3], const double d[3],
                         pdk_ground_hit *hit)
{
    scratch sc;
    pieces p;
    if (pdk_terrain_is_plane(t) && t->n_patches == 0) {
        /* The flat world: no pieces to prepare. */
        double n[3];
        double s = ray_plane(o, d, n);
        p = (pieces){t, t->bumps, t->ramps, t->patches};
        fill_hit(&p, o, d, s, n, hit);
        return;
    }
    pieces_of(t, &sc, &p);
    double n[3];
    int side = 0;
    double s = pdk_terrain_is_plane(t) ? ray_plane(o, d, n) : ray_of(&p, o, d, n, &side);
    fill_hit(&p, o, d, s, n, hit);
    hit->face_side = side;
}

/* ------------------------------------------------------------------------ */
/* The cylinder sweep */

/* Offsets along the circumference: sin of 0, +-30 and +-60 deg. */
static const double along_sin[PDK_SWEEP_ALONG] = {0.0, 0.5, -0.5, 0.86602540378443865,
                                                  -0.86602540378443865};
/* Offsets across the width, in half widths. */
static const double across[PDK_SWEEP_ACROSS] = {0.0, -1.0, 1.0};

void pdk_terrain_sweep(const pdk_terrain_def *t, const double o[3], const double dir[3],
                       const double axle[3], double radius_m, double width_m, pdk_ground_hit *hit)
{
    if (pdk_terrain_is_plane(t)) {
        pdk_terrain_ray_hit(t, o, dir, hit);
        return;
    }
    scratch sc;
    pieces p;
    pieces_of(t, &sc, &p);
    double n[3];
    int side;
    const double s_c = ray_of(&p, o, dir, n, &side);
    double best = s_c;
    double c[3] = {o[0] + s_c * dir[0], o[1] + s_c * dir[1], o[2] + s_c * dir[2]};
    double reach = radius_m + 0.5 * width_m;
    if (t->n_ramps == 0 && !field_has_heights(t) &&
        !path_meets_a_bump(&p, c[0] - reach, c[1] - reach, c[0] + reach, c[1] + reach)) {
        /* Bumps on the plane, none under the footprint: level ground. */
        fill_hit(&p, o, dir, best, n, hit);
        hit->face_side = side;
        return;
    }
    /* Forward in the wheel's plane, dir x axle made unit, and the axle, on
     * the ground. */
    double fw[3] = {dir[1] * axle[2] - dir[2] * axle[1], dir[2] * axle[0] - dir[0] * axle[2],
                    dir[0] * axle[1] - dir[1] * axle[0]};
    double fn = sqrt(fw[0] * fw[0] + fw[1] * fw[1] + fw[2] * fw[2]);
    double inv = fn > 0.0 ? 1.0 / fn : 0.0;
    double fx = fw[0] * inv, fy = fw[1] * inv;
    double half_w = 0.5 * width_m;
    /* The ground under the centre ray's hit, by the same function as the
     * samples', so that level ground gives every sample the same height. */
    double gx, gy;
    double h_c = ground_at(&p, c[0], c[1], &gx, &gy);
    double inv_down = 1.0 / -dir[2];
    int won = 0;
    double win[3] = {c[0], c[1], c[2]}, win_gx = 0.0, win_gy = 0.0;
    for (int a = 0; a < PDK_SWEEP_ALONG; a++) {
        double d = radius_m * along_sin[a];
        /* The circle's rise over its lowest point at d: R - sqrt(R^2 - d^2). */
        double lift = a == 0 ? 0.0 : radius_m - sqrt(radius_m * radius_m - d * d);
        for (int k = 0; k < PDK_SWEEP_ACROSS; k++) {
            if (a == 0 && k == 0) {
                continue;
            }
            double w = half_w * across[k];
            double x = c[0] + d * fx + w * axle[0], y = c[1] + d * fy + w * axle[1];
            double h = ground_at(&p, x, y, &gx, &gy);
            /* The centre must stand (h - h_c) - lift higher than where the
             * ray left it: that much sooner along dir. */
            double rise_m = (h - h_c) - lift;
            if (!(rise_m > 0.0)) {
                continue;
            }
            double s = s_c - rise_m * inv_down;
            /* A sample that would stop the wheel above the origin (the top
             * of its strut's reach) is the side of a face the shoulder
             * meets, not ground the wheel can stand on (pdk_terrain_face). */
            if (s < best && s >= 0.0) {
                best = s;
                won = 1;
                win[0] = x;
                win[1] = y;
                win[2] = h;
                win_gx = gx;
                win_gy = gy;
            }
        }
    }
    if (!won) {
        fill_hit(&p, o, dir, best, n, hit);
        hit->face_side = side;
        return;
    }
    hit->distance_m = best;
    normal_of(win_gx, win_gy, hit->normal);
    for (int j = 0; j < 3; j++) {
        hit->point_m[j] = win[j];
    }
    hit->surface_id = surface_of(&p, win[0], win[1], &win[2], &hit->water_depth_m);
    hit->face_side = 0;
}

/* ------------------------------------------------------------------------ */
/* Faces */

/* The nearest face found so far. */
typedef struct face_search {
    const pieces *p;
    double x, y, z; /* the point behind the face */
    double reach;
    int found;
    double depth, nx, ny, fx, fy, fz;
} face_search;

/* One line where a piece's height steps: w = edge along the horizontal unit
 * axis (ax, ay), w the point's coordinate along it. The point is behind a
 * face there when the ground just across the line, on the side away from
 * the point, is no higher than the point. A point on the line itself
 * belongs to the piece (its height holds up to and including the edge), so
 * its other side is outward, away from the piece's centre (the sign of
 * edge). */
static void face_line(face_search *f, double w, double edge, double ax, double ay)
{
    double gap = edge - w;
    double depth = fabs(gap);
    if (!(depth <= f->reach) || (f->found && !(depth < f->depth))) {
        return;
    }
    double side = gap > 0.0 ? 1.0 : gap < 0.0 ? -1.0 : (edge > 0.0 ? 1.0 : -1.0);
    double step = gap + side * PDK_TERRAIN_FACE_ACROSS_M;
    double fx = f->x + step * ax, fy = f->y + step * ay;
    double gx, gy;
    double fz = ground_at(f->p, fx, fy, &gx, &gy);
    if (!(fz <= f->z)) {
        return;
    }
    f->found = 1;
    f->depth = depth;
    f->nx = side * ax;
    f->ny = side * ay;
    f->fx = fx;
    f->fy = fy;
    f->fz = fz;
}

/* The nearest face behind which the point (x, y, z) lies within reach (its
 * ground above z, the ground across the face at or below z), into f. */
static int face_search_at(const pieces *p, double x, double y, double z, double reach,
                          face_search *f)
{
    const pdk_terrain_def *t = p->t;
    *f = (face_search){p, x, y, z, reach, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    /* A ramp's sides, w = +-width / 2 across it (its ends are continuous). */
    for (int i = 0; i < t->n_ramps; i++) {
        const pdk_ramp *r = &p->ramps[i];
        double dx = x - r->x_m, dy = y - r->y_m;
        double w = -dx * r->sin_yaw + dy * r->cos_yaw;
        for (int k = 0; k < 2; k++) {
            face_line(f, w, (k == 0 ? 0.5 : -0.5) * r->width_m, -r->sin_yaw, r->cos_yaw);
        }
    }
    /* A bump's sides, and its ends along its length: there its raised
     * cosine meets the plane continuously, but a lower bump under it (a
     * dip) steps. */
    for (int i = 0; i < t->n_bumps; i++) {
        const pdk_bump *b = &p->bumps[i];
        double dx = x - b->x_m, dy = y - b->y_m;
        double w = -dx * b->sin_yaw + dy * b->cos_yaw;
        double along = dx * b->cos_yaw + dy * b->sin_yaw;
        for (int k = 0; k < 2; k++) {
            double half = k == 0 ? 0.5 : -0.5;
            face_line(f, w, half * b->width_m, -b->sin_yaw, b->cos_yaw);
            face_line(f, along, half * b->length_m, b->cos_yaw, b->sin_yaw);
        }
    }
    return f->found;
}

/* hit becomes the ray from o along d against the plane tangent to the
 * ground at the foot of face f: n . (o + s d - foot) = 0. */
static void foot_hit(const pieces *p, const face_search *f, const double o[3], const double d[3],
                     pdk_ground_hit *hit)
{
    double n[3], gx, gy;
    double hz = ground_at(p, f->fx, f->fy, &gx, &gy);
    normal_of(gx, gy, n);
    double nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    /* A ray that does not point into the plane (nd >= 0: it runs along or
     * away from a slope steeper than itself) never meets it. */
    double s = nd < 0.0 ? (n[0] * (f->fx - o[0]) + n[1] * (f->fy - o[1]) + n[2] * (hz - o[2])) / nd
                        : (double)INFINITY;
    const double foot[3] = {f->fx, f->fy, hz};
    hit->distance_m = s;
    for (int j = 0; j < 3; j++) {
        hit->normal[j] = n[j];
        hit->point_m[j] = nd < 0.0 ? o[j] + s * d[j] : foot[j];
    }
    hit->surface_id = surface_of(p, f->fx, f->fy, &hz, &hit->water_depth_m);
}

int pdk_terrain_face(const pdk_terrain_def *t, const double o[3], const double dir[3],
                     double reach_m, pdk_face_hit *face, pdk_ground_hit *hit)
{
    if (t->n_ramps == 0 && t->n_bumps == 0) {
        return PDK_FACE_NONE;
    }
    scratch sc;
    pieces p;
    pieces_of(t, &sc, &p);
    face_search f;
    double gx, gy;
    if (hit->distance_m < 0.0) {
        /* The origin below the ground: behind a face, or pushed in from
         * above. */
        if (!(ground_at(&p, o[0], o[1], &gx, &gy) > o[2]) ||
            !face_search_at(&p, o[0], o[1], o[2], reach_m, &f)) {
            return PDK_FACE_NONE;
        }
        face->normal[0] = f.nx;
        face->normal[1] = f.ny;
        face->normal[2] = 0.0;
        face->depth_m = f.depth;
        face->foot_m[0] = f.fx;
        face->foot_m[1] = f.fy;
        face->foot_m[2] = f.fz;
        foot_hit(&p, &f, o, dir, hit);
        return PDK_FACE_BEHIND;
    }
    /* The ray stopped on a face's side: just past the hit along the ray
     * the ground stands above it, and the face's line lies between. */
    if (!hit->face_side) {
        return PDK_FACE_NONE;
    }
    const double *h = hit->point_m;
    const double past[3] = {h[0] + PDK_TERRAIN_FACE_PROBE_M * dir[0],
                            h[1] + PDK_TERRAIN_FACE_PROBE_M * dir[1],
                            h[2] + PDK_TERRAIN_FACE_PROBE_M * dir[2]};
    if (!(ground_at(&p, past[0], past[1], &gx, &gy) > past[2]) ||
        !face_search_at(&p, past[0], past[1], past[2], 2.0 * PDK_TERRAIN_FACE_PROBE_M, &f)) {
        return PDK_FACE_NONE;
    }
    foot_hit(&p, &f, o, dir, hit);
    return PDK_FACE_SIDE;
}
