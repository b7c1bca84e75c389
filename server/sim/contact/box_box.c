/* The narrow phase of two oriented boxes (contact.h pdk_contact_box_box),
 * after the separating axis test as Gottschalk, Lin and Manocha's OBBTree
 * (SIGGRAPH 1996) states it and the clipping of the incident face that
 * Dirk Gregorius describes ("Robust Contact Creation for Physics
 * Simulations", GDC 2015): the axis of least penetration (or largest gap)
 * among the 15 candidates, a face axis preferred to an edge one unless the
 * edge's is clearly larger; for a face, the other box's face most opposed
 * to it clipped against the reference face's four sides, its points within
 * the margin kept, reduced to four; for two edges, their closest points. */
#include <math.h>

#include "contact/contact.h"

/* An edge axis must beat the best face axis by this much to be taken:
 * near-parallel edges give a poor normal, and a face's manifold is the
 * stable one for boxes resting on each other. */
#define EDGE_PREFERENCE_M 0.005
#define FACE_PREFERENCE_M 0.001

/* Column i of a row-major rotation: the box's axis i in the world. */
static void axis(const pdk_cbody *b, int i, double out[3])
{
    out[0] = b->rot[i];
    out[1] = b->rot[3 + i];
    out[2] = b->rot[6 + i];
}

/* The box's extent along unit l: sum of |axis . l| half extents. */
static double extent(double ax[3][3], const double half[3], const double l[3])
{
    return half[0] * fabs(pdk_ct_dot(ax[0], l)) + half[1] * fabs(pdk_ct_dot(ax[1], l)) +
           half[2] * fabs(pdk_ct_dot(ax[2], l));
}

/* Sutherland-Hodgman: keeps the part of polygon in[0..n) where
 * pdk_ct_dot(p, nrm) <= off; returns the new count (at most n + 1). */
static int clip(double in[][3], int n, const double nrm[3], double off, double out[][3])
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *p = in[i], *q = in[(i + 1) % n];
        double dp = pdk_ct_dot(p, nrm) - off, dq = pdk_ct_dot(q, nrm) - off;
        if (dp <= 0.0) {
            for (int j = 0; j < 3; j++) {
                out[m][j] = p[j];
            }
            m++;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) {
            double t = dp / (dp - dq);
            for (int j = 0; j < 3; j++) {
                out[m][j] = p[j] + t * (q[j] - p[j]);
            }
            m++;
        }
    }
    return m;
}

/* The manifold when ref's face along its axis fi (outward normal nrm,
 * pointing at inc) is the reference: returns the points kept. sep is
 * measured along nrm from the reference face; out's points are midway
 * between the faces. */
static int face_contact(const pdk_cbody *ref, double rax[3][3], int fi, const double nrm[3],
                        const pdk_cbody *inc, double iax[3][3], double margin_m, double pts[8][3],
                        double seps[8])
{
    double centre[3];
    for (int j = 0; j < 3; j++) {
        centre[j] = ref->box_m[j] + nrm[j] * ref->half_m[fi];
    }
    /* The incident face: inc's axis most along nrm, taken facing ref. */
    int ii = 0;
    double best = -1.0;
    for (int k = 0; k < 3; k++) {
        double d = fabs(pdk_ct_dot(iax[k], nrm));
        if (d > best) {
            best = d;
            ii = k;
        }
    }
    const double s = pdk_ct_dot(iax[ii], nrm) > 0.0 ? -1.0 : 1.0;
    const int u = (ii + 1) % 3, v = (ii + 2) % 3;
    double poly[8][3], tmp[8][3];
    static const double su[4] = {1.0, -1.0, -1.0, 1.0};
    static const double sv[4] = {1.0, 1.0, -1.0, -1.0};
    for (int c = 0; c < 4; c++) {
        for (int j = 0; j < 3; j++) {
            poly[c][j] = inc->box_m[j] + s * inc->half_m[ii] * iax[ii][j] +
                         su[c] * inc->half_m[u] * iax[u][j] + sv[c] * inc->half_m[v] * iax[v][j];
        }
    }
    int n = 4;
    /* The reference face's four sides. */
    for (int side = 0; side < 4 && n > 0; side++) {
        const int k = (fi + 1 + side / 2) % 3;
        const double sign = (side % 2 == 0) ? 1.0 : -1.0;
        double sn[3];
        for (int j = 0; j < 3; j++) {
            sn[j] = sign * rax[k][j];
        }
        const double off = pdk_ct_dot(sn, ref->box_m) + ref->half_m[k];
        if (side % 2 == 0) {
            n = clip(poly, n, sn, off, tmp);
        } else {
            n = clip(tmp, n, sn, off, poly);
        }
    }
    /* After four clips (an even number) the polygon is back in poly. */
    int kept = 0;
    for (int c = 0; c < n; c++) {
        double d[3];
        for (int j = 0; j < 3; j++) {
            d[j] = poly[c][j] - centre[j];
        }
        const double sep = pdk_ct_dot(d, nrm);
        if (sep <= margin_m) {
            for (int j = 0; j < 3; j++) {
                pts[kept][j] = poly[c][j] - 0.5 * sep * nrm[j];
            }
            seps[kept] = sep;
            kept++;
        }
    }
    return kept;
}

/* Keeps at most four of n points: the deepest, the one furthest from it,
 * and the two furthest to either side of the line through those (the
 * largest quadrilateral of the four, near enough), in that order. */
static int reduce(double pts[8][3], double seps[8], int n, const double nrm[3], int keep[4])
{
    if (n <= 4) {
        for (int i = 0; i < n; i++) {
            keep[i] = i;
        }
        return n;
    }
    int i0 = 0;
    for (int i = 1; i < n; i++) {
        if (seps[i] < seps[i0]) {
            i0 = i;
        }
    }
    int i1 = -1;
    double far = -1.0;
    for (int i = 0; i < n; i++) {
        double d[3] = {pts[i][0] - pts[i0][0], pts[i][1] - pts[i0][1], pts[i][2] - pts[i0][2]};
        double dd = pdk_ct_dot(d, d);
        if (i != i0 && dd > far) {
            far = dd;
            i1 = i;
        }
    }
    int i2 = -1, i3 = -1;
    double hi = 0.0, lo = 0.0;
    double e[3] = {pts[i1][0] - pts[i0][0], pts[i1][1] - pts[i0][1], pts[i1][2] - pts[i0][2]};
    for (int i = 0; i < n; i++) {
        if (i == i0 || i == i1) {
            continue;
        }
        double d[3] = {pts[i][0] - pts[i0][0], pts[i][1] - pts[i0][1], pts[i][2] - pts[i0][2]};
        double c[3];
        pdk_ct_cross(e, d, c);
        double area = pdk_ct_dot(c, nrm);
        if (area > hi) {
            hi = area;
            i2 = i;
        }
        if (area < lo) {
            lo = area;
            i3 = i;
        }
    }
    int m = 0;
    keep[m++] = i0;
    keep[m++] = i1;
    if (i2 >= 0) {
        keep[m++] = i2;
    }
    if (i3 >= 0) {
        keep[m++] = i3;
    }
    return m;
}

int pdk_contact_box_box(const pdk_cbody *a, const pdk_cbody *b, double margin_m, pdk_manifold *m)
{
    double aa[3][3], ba[3][3];
    for (int i = 0; i < 3; i++) {
        axis(a, i, aa[i]);
        axis(b, i, ba[i]);
    }
    double d[3];
    for (int j = 0; j < 3; j++) {
        d[j] = b->box_m[j] - a->box_m[j];
    }
    /* The faces of a, then of b: separation along each axis. */
    double best_a = -INFINITY, best_b = -INFINITY, best_e = -INFINITY;
    int ia = 0, ib = 0, ea = 0, eb = 0;
    double edge_axis[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 3; i++) {
        double s = fabs(pdk_ct_dot(d, aa[i])) - a->half_m[i] - extent(ba, b->half_m, aa[i]);
        if (s > best_a) {
            best_a = s;
            ia = i;
        }
    }
    if (best_a > margin_m) {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        double s = fabs(pdk_ct_dot(d, ba[i])) - b->half_m[i] - extent(aa, a->half_m, ba[i]);
        if (s > best_b) {
            best_b = s;
            ib = i;
        }
    }
    if (best_b > margin_m) {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            double l[3];
            pdk_ct_cross(aa[i], ba[k], l);
            double len = sqrt(pdk_ct_dot(l, l));
            if (len < 1e-6) {
                continue; /* parallel edges: the faces' axes cover them */
            }
            for (int j = 0; j < 3; j++) {
                l[j] /= len;
            }
            double s = fabs(pdk_ct_dot(d, l)) - extent(aa, a->half_m, l) - extent(ba, b->half_m, l);
            if (s > margin_m) {
                return 0;
            }
            if (s > best_e) {
                best_e = s;
                ea = i;
                eb = k;
                for (int j = 0; j < 3; j++) {
                    edge_axis[j] = l[j];
                }
            }
        }
    }
    const double best_face = best_b > best_a + FACE_PREFERENCE_M ? best_b : best_a;
    double pts[8][3], seps[8];
    int n;
    double nrm[3];
    if (best_e > best_face + EDGE_PREFERENCE_M) {
        /* Two edges: n from a to b; each box's edge along its axis nearest
         * the other; one point midway between their closest points. */
        const double sg = pdk_ct_dot(d, edge_axis) < 0.0 ? -1.0 : 1.0;
        double pa[3], pb[3];
        for (int j = 0; j < 3; j++) {
            nrm[j] = sg * edge_axis[j];
            pa[j] = a->box_m[j];
            pb[j] = b->box_m[j];
        }
        for (int k = 0; k < 3; k++) {
            if (k != ea) {
                const double sa = pdk_ct_dot(aa[k], nrm) > 0.0 ? 1.0 : -1.0;
                for (int j = 0; j < 3; j++) {
                    pa[j] += sa * a->half_m[k] * aa[k][j];
                }
            }
            if (k != eb) {
                const double sb = pdk_ct_dot(ba[k], nrm) > 0.0 ? -1.0 : 1.0;
                for (int j = 0; j < 3; j++) {
                    pb[j] += sb * b->half_m[k] * ba[k][j];
                }
            }
        }
        /* Closest points of the lines pa + s da and pb + t db, clamped to
         * the edges. */
        const double *da = aa[ea], *db = ba[eb];
        double r[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        const double bb = pdk_ct_dot(da, db), c = pdk_ct_dot(da, r), f = pdk_ct_dot(db, r);
        const double den = 1.0 - bb * bb; /* > 0: the edges are not parallel */
        double s = (bb * f - c) / den;
        double t = (f - bb * c) / den;
        s = fmin(fmax(s, -a->half_m[ea]), a->half_m[ea]);
        t = fmin(fmax(t, -b->half_m[eb]), b->half_m[eb]);
        for (int j = 0; j < 3; j++) {
            pts[0][j] = 0.5 * ((pa[j] + s * da[j]) + (pb[j] + t * db[j]));
        }
        seps[0] = best_e;
        n = 1;
    } else if (best_face == best_a) {
        const double sg = pdk_ct_dot(d, aa[ia]) < 0.0 ? -1.0 : 1.0;
        for (int j = 0; j < 3; j++) {
            nrm[j] = sg * aa[ia][j];
        }
        n = face_contact(a, aa, ia, nrm, b, ba, margin_m, pts, seps);
    } else {
        /* b's face is the reference: its normal points at a, the
         * manifold's normal (a to b) is its opposite. */
        const double sg = pdk_ct_dot(d, ba[ib]) > 0.0 ? -1.0 : 1.0;
        double rn[3];
        for (int j = 0; j < 3; j++) {
            rn[j] = sg * ba[ib][j];
            nrm[j] = -rn[j];
        }
        n = face_contact(b, ba, ib, rn, a, aa, margin_m, pts, seps);
    }
    if (n == 0) {
        return 0;
    }
    int keep[4];
    const int kept = reduce(pts, seps, n, nrm, keep);
    m->n = kept;
    for (int j = 0; j < 3; j++) {
        m->normal[j] = nrm[j];
    }
    for (int k = 0; k < kept; k++) {
        pdk_cpoint *p = &m->p[k];
        for (int j = 0; j < 3; j++) {
            p->point_m[j] = pts[keep[k]][j];
        }
        p->sep_m = seps[keep[k]];
    }
    return 1;
}
