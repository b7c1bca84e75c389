/* The four-wheel step's linear system (internal to the chassis, chassis.h):
 * the 6x6 linearly implicit velocity solve of a substep, built from the
 * wheels' dampers and explicit forces and solved by block Gaussian
 * elimination (four_wheel.c states the scheme; ADR 0007 why it needs no
 * pivoting). Static and inlined, for the AVX2 and AVX-512 builds of the
 * step. */
#ifndef PDK_FOUR_WHEEL_SOLVE_H
#define PDK_FOUR_WHEEL_SOLVE_H

#include "vehicle/four_wheel_substep.h"

/* The system: M/h, the air drag as a damper on body x; M q0 / h plus
 * gravity and the explicit half of the gyroscopic torque, (L0 / 2) x w0
 * with half_l = L0 / 2; then the loaded wheels' dampers, explicit forces
 * and aligning moments and the bars, all four wheels at once, each entry
 * summed over the wheels by sum4x4.
 * A wheel's three dampers (n, e_x, e_y with c_n, c_x, c_y, at lever r)
 * exert -D v_c with v_c = v + w x r = v - [r]x w and D = c_n nn' + c_x e_x
 * e_x' + c_y e_y e_y'; as n, e_x, e_y are orthonormal, D = c_y I + (c_n -
 * c_y) nn' + (c_x - c_y) e_x e_x'. With P = D [r]x ([r]x v = r x v):
 *   T += D,  B += -P,  W += -[r]x P  (= [r]x' D [r]x, symmetric).
 * An axle's anti-roll bar is implicit in the travel difference: the bar's
 * force is arb (x_l - x_r) at the mean travels, whose part in the end rates is
 * h arb / 4 (xdot_l - xdot_r); with xdot = -(n . v_c) / cos the increment on
 * the left contact's normal force is -(h arb / 4) (g_l - g_r) . q, g = [n; r x
 * n] (+ on the right), exactly when both normals make the same angle with the
 * body (flat ground) and to first order otherwise. The term (h arb / 4) j j',
 * j = g_l - g_r, is symmetric and positive semi-definite, and it is zero in
 * heave: the bar adds no ride rate (docs/vehicle-model.md), not even a
 * numerical one. A wheel not loaded drops out of j (its strut is not pushed by
 * the bar). The bar's terms ride in the left wheels' lanes. */
VEC void build_system(system6 *restrict sy, const wheels *restrict q,
                      const pdk_fw_consts *restrict p, const double v[3], const double w[3],
                      const double grav[3], double c_drag, const double half_l[3])
{
    const m4 on = q->loaded;
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    const v4 n0 = keep(on, q->nx), n1 = keep(on, q->ny), n2 = keep(on, q->nz);
    const v4 e0 = q->exx, e1 = q->exy, e2 = q->exz;
    const v4 cy = keep(on, q->c_y);
    const v4 ka = keep(on, q->c_n) - cy;
    const v4 kb = keep(on, q->c_x) - cy;
    v4 an0 = ka * n0, an1 = ka * n1, an2 = ka * n2;
    v4 be0 = kb * e0, be1 = kb * e1, be2 = kb * e2;
    v4 d00 = cy + (an0 * n0 + be0 * e0);
    v4 d01 = an0 * n1 + be0 * e1;
    v4 d02 = an0 * n2 + be0 * e2;
    v4 d11 = cy + (an1 * n1 + be1 * e1);
    v4 d12 = an1 * n2 + be1 * e2;
    v4 d22 = cy + (an2 * n2 + be2 * e2);
    v4 p00 = d01 * r2 - d02 * r1, p01 = d02 * r0 - d00 * r2, p02 = d00 * r1 - d01 * r0;
    v4 p10 = d11 * r2 - d12 * r1, p11 = d12 * r0 - d01 * r2, p12 = d01 * r1 - d11 * r0;
    v4 p20 = d12 * r2 - d22 * r1, p21 = d22 * r0 - d02 * r2, p22 = d02 * r1 - d12 * r0;

    /* The bars: g = [n; r x n] of each loaded wheel, j = g_l - g_r in the
     * left lanes, c = h arb / 4 there and 0 in the right lanes. */
    v4 g3 = r1 * n2 - r2 * n1;
    v4 g4 = r2 * n0 - r0 * n2;
    v4 g5 = r0 * n1 - r1 * n0;
    v4 j0 = n0 - other4(n0), j1 = n1 - other4(n1), j2 = n2 - other4(n2);
    v4 j3 = g3 - other4(g3), j4 = g4 - other4(g4), j5 = g5 - other4(g5);
    const v4 cb = (v4){p->arb_quarter_h[0], 0.0, p->arb_quarter_h[2], 0.0};
    v4 c0 = cb * j0, c1 = cb * j1, c2 = cb * j2;
    v4 c3 = cb * j3, c4 = cb * j4, c5 = cb * j5;

    /* The explicit forces, their moments and the tyres' aligning moments
     * about the contact normals. */
    const v4 fn = keep(on, q->fn), fx = keep(on, q->fx), fy = keep(on, q->fy);
    v4 f0 = fn * n0 + fx * e0 + fy * q->eyx;
    v4 f1 = fn * n1 + fx * e1 + fy * q->eyy;
    v4 f2 = fn * n2 + fx * e2 + fy * q->eyz;

    /* -[r]x P: the rows of -[r]x are (0, rz, -ry), (-rz, 0, rx), (ry, -rx, 0). */
    const double mh = p->mass_per_h;
    const double *ih = p->inertia_per_h;
    sy->g[0] = sum4x4(d00 + c0 * j0, d01 + c0 * j1, d02 + c0 * j2, d11 + c1 * j1);
    sy->g[1] = sum4x4(d12 + c1 * j2, d22 + c2 * j2, (r2 * p10 - r1 * p20) + c3 * j3,
                      (r2 * p11 - r1 * p21) + c3 * j4);
    sy->g[2] = sum4x4((r2 * p12 - r1 * p22) + c3 * j5, (r0 * p21 - r2 * p01) + c4 * j4,
                      (r0 * p22 - r2 * p02) + c4 * j5, (r1 * p02 - r0 * p12) + c5 * j5);
    sy->g[3] = sum4x4(c0 * j3 - p00, c0 * j4 - p01, c0 * j5 - p02, f0);
    sy->g[4] = sum4x4(c1 * j3 - p10, c1 * j4 - p11, c1 * j5 - p12, f1);
    sy->g[5] = sum4x4(c2 * j3 - p20, c2 * j4 - p21, c2 * j5 - p22, f2);
#if MZ_ON_CHASSIS
    const v4 mz = keep(on, q->mz);
    sy->g[6] = sum4x4((r1 * f2 - r2 * f1) + mz * n0, (r2 * f0 - r0 * f2) + mz * n1,
                      (r0 * f1 - r1 * f0) + mz * n2, splat(0.0));
#else
    sy->g[6] = sum4x4(r1 * f2 - r2 * f1, r2 * f0 - r0 * f2, r0 * f1 - r1 * f0, splat(0.0));
#endif
    sy->g[0] += (v4){mh + c_drag, 0.0, 0.0, mh};
    sy->g[1] += (v4){0.0, mh, ih[0], 0.0};
    sy->g[2] += (v4){0.0, ih[1], 0.0, ih[2]};
    sy->g[3] += (v4){0.0, 0.0, 0.0, mh * v[0] + p->mass_kg * grav[0]};
    sy->g[4] += (v4){0.0, 0.0, 0.0, mh * v[1] + p->mass_kg * grav[1]};
    sy->g[5] += (v4){0.0, 0.0, 0.0, mh * v[2] + p->mass_kg * grav[2]};
    sy->g[6] += (v4){ih[0] * w[0] + (half_l[1] * w[2] - half_l[2] * w[1]),
                     ih[1] * w[1] + (half_l[2] * w[0] - half_l[0] * w[2]),
                     ih[2] * w[2] + (half_l[0] * w[1] - half_l[1] * w[0]), 0.0};
}

/* Solves the system for q = (v, w) by Gaussian elimination without
 * pivoting, in 3x3 blocks: T's block first (T is symmetric positive
 * definite: m/h I plus dampers), which leaves the Schur complement S = W +
 * G - B' T^-1 B for w; then v = T^-1 (rhs_v - B w). The symmetric part of
 * S is positive definite and its skew part is G (the file's comment), so
 * both 3x3 solves, by the adjugate, divide by a positive determinant. The
 * 3-vectors ride in the first three lanes of four. */
VEC void solve_system(const system6 *restrict sy, const double gyro[3], double q[6])
{
    const v4 g0 = sy->g[0], g1 = sy->g[1], g2 = sy->g[2];
    const double T00 = g0[0], T01 = g0[1], T02 = g0[2], T11 = g0[3], T12 = g1[0], T22 = g1[1];
    const double W00 = g1[2], W01 = g1[3], W02 = g2[0], W11 = g2[1], W12 = g2[2], W22 = g2[3];
    const v4 b0 = sy->g[3], b1 = sy->g[4], b2 = sy->g[5];
    /* T^-1 = adj(T) / det(T), symmetric: its rows are its columns. */
    double i0 = T11 * T22 - T12 * T12;
    double i1 = T02 * T12 - T01 * T22;
    double i2 = T01 * T12 - T02 * T11;
    double i3 = T00 * T22 - T02 * T02;
    double i4 = T01 * T02 - T00 * T12;
    double i5 = T00 * T11 - T01 * T01;
    v4 inv_det = splat(1.0 / (T00 * i0 + T01 * i1 + T02 * i2));
    const v4 t0 = (v4){i0, i1, i2, 0.0} * inv_det;
    const v4 t1 = (v4){i1, i3, i4, 0.0} * inv_det;
    const v4 t2 = (v4){i2, i4, i5, 0.0} * inv_det;
    /* X = T^-1 B by rows, y = T^-1 r_v. */
    const v4 x0 = splat(t0[0]) * b0 + splat(t0[1]) * b1 + splat(t0[2]) * b2;
    const v4 x1 = splat(t1[0]) * b0 + splat(t1[1]) * b1 + splat(t1[2]) * b2;
    const v4 x2 = splat(t2[0]) * b0 + splat(t2[1]) * b1 + splat(t2[2]) * b2;
    const v4 y = t0 * splat(b0[3]) + t1 * splat(b1[3]) + t2 * splat(b2[3]);
    /* S = W - B' X plus G = -[L0]x by rows, (B' X)_ij = sum_k B_ki X_kj;
     * z = r_w - B' y. */
    const v4 s0 = (v4){W00, W01 + gyro[2], W02 - gyro[1], 0.0} -
                  (splat(b0[0]) * x0 + splat(b1[0]) * x1 + splat(b2[0]) * x2);
    const v4 s1 = (v4){W01 - gyro[2], W11, W12 + gyro[0], 0.0} -
                  (splat(b0[1]) * x0 + splat(b1[1]) * x1 + splat(b2[1]) * x2);
    const v4 s2 = (v4){W02 + gyro[1], W12 - gyro[0], W22, 0.0} -
                  (splat(b0[2]) * x0 + splat(b1[2]) * x1 + splat(b2[2]) * x2);
    const v4 z = sy->g[6] - (b0 * splat(y[0]) + b1 * splat(y[1]) + b2 * splat(y[2]));
    /* w = adj(S) z / det(S). */
    double c00 = s1[1] * s2[2] - s1[2] * s2[1];
    double c01 = s0[2] * s2[1] - s0[1] * s2[2];
    double c02 = s0[1] * s1[2] - s0[2] * s1[1];
    double c10 = s1[2] * s2[0] - s1[0] * s2[2];
    double c11 = s0[0] * s2[2] - s0[2] * s2[0];
    double c12 = s0[2] * s1[0] - s0[0] * s1[2];
    double c20 = s1[0] * s2[1] - s1[1] * s2[0];
    double c21 = s0[1] * s2[0] - s0[0] * s2[1];
    double c22 = s0[0] * s1[1] - s0[1] * s1[0];
    double inv_s = 1.0 / (s0[0] * c00 + s0[1] * c10 + s0[2] * c20);
    double *wq = &q[3];
    wq[0] = (c00 * z[0] + c01 * z[1] + c02 * z[2]) * inv_s;
    wq[1] = (c10 * z[0] + c11 * z[1] + c12 * z[2]) * inv_s;
    wq[2] = (c20 * z[0] + c21 * z[1] + c22 * z[2]) * inv_s;
    /* v = y - X w, X w = T^-1 (B w). */
    double u0 = b0[0] * wq[0] + b0[1] * wq[1] + b0[2] * wq[2];
    double u1 = b1[0] * wq[0] + b1[1] * wq[1] + b1[2] * wq[2];
    double u2 = b2[0] * wq[0] + b2[1] * wq[1] + b2[2] * wq[2];
    v4 vq = y - (t0 * splat(u0) + t1 * splat(u1) + t2 * splat(u2));
    q[0] = vq[0];
    q[1] = vq[1];
    q[2] = vq[2];
}

#endif
