/* The collision hull against the ground (internal to the four-wheel step,
 * four_wheel_step.h, which runs its phases): the hull's points (hull.h)
 * below the ground or behind a face, each held by a damper along the
 * normal and rubbing with Coulomb friction across it (PDK_FW_HULL_MU),
 * solved with the body in the linearly implicit velocity solve as the
 * struts' hard contacts are (suspension.h, four_wheel_solve.h); their work
 * in the energy ledger; the channels' figures. Reads the state's pose, the
 * substep's body velocity and solution and the terrain; writes sub's hull.
 * Static, for each build of the step. */
#ifndef PDK_HULL_CONTACT_H
#define PDK_HULL_CONTACT_H

#include <math.h>

#include "ground/terrain.h"
#include "math/vmath.h"
#include "sim/surface_def.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_substep.h"

/* The body-frame velocity of the body point r for the body velocity v and
 * rate w: v + w x r. */
static inline void hull_point_velocity(const double v[3], const double w[3], const double r[3],
                                       double out[3])
{
    out[0] = v[0] + (w[1] * r[2] - w[2] * r[1]);
    out[1] = v[1] + (w[2] * r[0] - w[0] * r[2]);
    out[2] = v[2] + (w[0] * r[1] - w[1] * r[0]);
}

/* Whether no point of the hull comes within PDK_FW_HULL_SKIN_M of the plane
 * z = 0, so that hull_find would find none there: every point lies in the
 * box between corners 0 and 7, whose lowest point is pos_z + (R c)_z -
 * sum_j |R_zj| h_j for its centre c and half extents h in the body frame
 * (R's last row: the body axes' heights). The bound must clear the skin by
 * more than the rounding of hull_find's own sums, some 1e-15 m: 1e-9 m.
 * A car on its wheels on flat ground takes this way every substep. */
static inline int hull_clear_of_plane(const fw_vehicle *restrict vh, const sub *restrict sv)
{
    const double *lo = &vh->p->hull_pts_m[0];
    const double *hi = &vh->p->hull_pts_m[3 * 7];
    const double *rz = sv->rm.m[2];
    double low_m = vh->st->pos_m[2];
    for (int j = 0; j < 3; j++) {
        low_m += rz[j] * (0.5 * (hi[j] + lo[j])) - fabs(rz[j]) * (0.5 * (hi[j] - lo[j]));
    }
    return low_m > PDK_FW_HULL_SKIN_M + 1e-9;
}

/* 1. of a substep for the hull: which of its points are below the ground
 * (the plane z = 0, or the terrain's height under the point), or above it
 * by less than PDK_FW_HULL_SKIN_M, with the depth along the normal out of
 * the ground (negative: the gap) and the friction of the surface there. A
 * point below the ground and behind a face within PDK_FW_FACE_REACH_M
 * (pdk_terrain_face) is pushed out the shorter way: through the face when
 * it is nearer the face than the ground's top. */
static __attribute__((noinline)) void hull_find(const fw_vehicle *restrict vh, sub *restrict sv,
                                                const pdk_terrain_def *terrain)
{
    const pdk_fw_state *st = vh->st;
    const pdk_fw_consts *p = vh->p;
    const mat3 *rm = &sv->rm;
    hull_contacts *hc = &sv->hull;
    static const double down[3] = {0.0, 0.0, -1.0};
    const double ref_slide = pdk_surface_get(PDK_SURFACE_TARMAC)->mu_slide;
    hc->n = 0;
    hc->on = 0u;
    hc->tried = 0u;
    double deepest = -INFINITY;
    for (int k = 0; k < PDK_HULL_POINTS; k++) {
        const double *r = &p->hull_pts_m[3 * k];
        double pw[3];
        rot_apply(rm, r, pw);
        for (int j = 0; j < 3; j++) {
            pw[j] += st->pos_m[j];
        }
        double n[3] = {0.0, 0.0, 1.0};
        double depth_m;
        if (sv->plane) {
            depth_m = -pw[2];
        } else {
            const double ground_m = pdk_terrain_height(terrain, pw[0], pw[1], n);
            depth_m = (ground_m - pw[2]) * n[2];
            if (depth_m > 0.0 && sv->faces) {
                pdk_ground_hit hit;
                pdk_face_hit face;
                pdk_terrain_ray_hit(terrain, pw, down, &hit);
                if (pdk_terrain_face(terrain, pw, down, PDK_FW_FACE_REACH_M, &face, &hit) ==
                        PDK_FACE_BEHIND &&
                    face.depth_m < depth_m) {
                    for (int j = 0; j < 3; j++) {
                        n[j] = face.normal[j];
                    }
                    depth_m = face.depth_m;
                }
            }
        }
        if (!(depth_m > -PDK_FW_HULL_SKIN_M)) {
            continue;
        }
        const int i = hc->n++;
        const pdk_surface *surf = pdk_surface_get(pdk_terrain_surface(terrain, pw[0], pw[1], NULL));
        hc->mu[i] = PDK_FW_HULL_MU * (surf != NULL ? surf->mu_slide : ref_slide) / ref_slide;
        rot_apply_t(rm, n, hc->nb[i]);
        for (int j = 0; j < 3; j++) {
            hc->r[i][j] = r[j];
        }
        hc->depth_m[i] = depth_m;
        hc->on |= 1u << i;
        if (depth_m > deepest) {
            deepest = depth_m;
            const double out[3] = {-hc->nb[i][0], -hc->nb[i][1], -hc->nb[i][2]};
            hc->face = (int)pdk_hull_face_toward(out);
        }
    }
    if (hc->n == 0) {
        hc->face = PDK_HULL_FACE_NONE;
    }
}

/* 4. for the hull's contacts: each one's explicit normal force, c v_out
 * with v_out = min(PDK_FW_HARD_OUT_MPS, depth / h) (suspension.h's
 * hard_start; a point above the ground, depth < 0, may close its gap in
 * the substep and no more: a speculative contact), and its start
 * velocities along and across the normal. The first pass solves without
 * friction; its normal forces set the friction's dampers for the next
 * (hull_check). */
static __attribute__((noinline)) void hull_start(const fw_vehicle *restrict vh, sub *restrict sv)
{
    const pdk_fw_consts *p = vh->p;
    hull_contacts *hc = &sv->hull;
    const double c = p->hard_nspm;
    hc->rubbing = 0;
    for (int i = 0; i < hc->n; i++) {
        const double *n = hc->nb[i];
        double vc[3];
        hull_point_velocity(sv->v, sv->w, hc->r[i], vc);
        const double vn = n[0] * vc[0] + n[1] * vc[1] + n[2] * vc[2];
        const double out = hc->depth_m[i] * p->inv_h;
        const double v_out = out < PDK_FW_HARD_OUT_MPS ? out : PDK_FW_HARD_OUT_MPS;
        hc->fe[i] = c * v_out;
        hc->vn0[i] = vn;
        hc->vn1[i] = vn;
        hc->f_n[i] = 0.0;
        hc->c_t[i] = 0.0;
        for (int j = 0; j < 3; j++) {
            hc->vt0[i][j] = vc[j] - vn * n[j];
            hc->vt1[i][j] = hc->vt0[i][j];
        }
    }
}

/* The friction's dampers from the normal forces the pass found:
 * mu F_n / max(|v_t0|, PDK_FW_HULL_SLIP_MPS) at the start's sliding speed
 * (PDK_FW_HULL_MU). */
static void hull_rub(hull_contacts *hc)
{
    for (int i = 0; i < hc->n; i++) {
        const double *vt = hc->vt0[i];
        const double speed = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
        const double f_n = hc->f_n[i] > 0.0 ? hc->f_n[i] : 0.0;
        hc->c_t[i] =
            hc->mu[i] * f_n / (speed > PDK_FW_HULL_SLIP_MPS ? speed : PDK_FW_HULL_SLIP_MPS);
    }
    hc->rubbing = 1;
}

/* The held contacts in the system: at the body point r, the damper D =
 * c_t I + (c - c_t) n n' on the point's velocity v + w x r = v - [r]x w
 * (c along the normal, the friction's c_t across it) and the explicit
 * force f_e n. Its force -D (v - [r]x w) + f_e n and moment r x that give
 * T += D, B += -D [r]x, W += [r]x' D [r]x, and (f_e n, f_e r x n) on the
 * right (build_system's form; add_hard's with c_t = 0). */
static __attribute__((noinline)) void add_hull(system6 *restrict sy, const pdk_fw_consts *p,
                                               const hull_contacts *hc)
{
    const double c = p->hard_nspm;
    for (int i = 0; i < hc->n; i++) {
        if (!((hc->on >> i) & 1u)) {
            continue;
        }
        const double *n = hc->nb[i], *r = hc->r[i];
        const double ct = hc->c_t[i], ka = c - ct, fe = hc->fe[i];
        double d[3][3];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                d[a][b] = ka * n[a] * n[b] + (a == b ? ct : 0.0);
            }
        }
        /* S = [r]x; DS = D S; B = -DS; W = S' D S = -S DS. */
        const double s[3][3] = {{0.0, -r[2], r[1]}, {r[2], 0.0, -r[0]}, {-r[1], r[0], 0.0}};
        double ds[3][3], w[3][3];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                ds[a][b] = d[a][0] * s[0][b] + d[a][1] * s[1][b] + d[a][2] * s[2][b];
            }
        }
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                w[a][b] = -(s[a][0] * ds[0][b] + s[a][1] * ds[1][b] + s[a][2] * ds[2][b]);
            }
        }
        const double g[3] = {r[1] * n[2] - r[2] * n[1], r[2] * n[0] - r[0] * n[2],
                             r[0] * n[1] - r[1] * n[0]};
        sy->g[0] += (v4){d[0][0], d[0][1], d[0][2], d[1][1]};
        sy->g[1] += (v4){d[1][2], d[2][2], w[0][0], w[0][1]};
        sy->g[2] += (v4){w[0][2], w[1][1], w[1][2], w[2][2]};
        sy->g[3] += (v4){-ds[0][0], -ds[0][1], -ds[0][2], fe * n[0]};
        sy->g[4] += (v4){-ds[1][0], -ds[1][1], -ds[1][2], fe * n[1]};
        sy->g[5] += (v4){-ds[2][0], -ds[2][1], -ds[2][2], fe * n[2]};
        sy->g[6] += (v4){fe * g[0], fe * g[1], fe * g[2], 0.0};
    }
}

/* After a pass: each held contact's end velocities and normal force; those
 * whose force would pull (the ground never pulls), not yet let go this
 * substep, are let go. After the first pass the friction takes its
 * dampers from the normal forces (hull_rub). Returns whether the system
 * changed: another pass is due. */
static __attribute__((noinline)) int hull_check(const fw_vehicle *restrict vh, sub *restrict sv)
{
    const double c = vh->p->hard_nspm;
    hull_contacts *hc = &sv->hull;
    uint32_t release = 0u;
    for (int i = 0; i < hc->n; i++) {
        if (!((hc->on >> i) & 1u)) {
            continue;
        }
        const double *n = hc->nb[i];
        double vc[3];
        hull_point_velocity(sv->sol, sv->sol + 3, hc->r[i], vc);
        const double vn = n[0] * vc[0] + n[1] * vc[1] + n[2] * vc[2];
        hc->vn1[i] = vn;
        for (int j = 0; j < 3; j++) {
            hc->vt1[i][j] = vc[j] - vn * n[j];
        }
        hc->f_n[i] = hc->fe[i] - c * vn;
        if (hc->f_n[i] < 0.0 && !((hc->tried >> i) & 1u)) {
            release |= 1u << i;
        }
    }
    hc->on &= ~release;
    hc->tried |= release;
    if (!hc->rubbing) {
        hull_rub(hc);
        return 1;
    }
    return release != 0u;
}

/* The held contacts' work over the substep, at the velocities the step
 * integrated with (chassis.h's energy_ledger): the normal force's, counted
 * with the struts' hard contacts, and the friction's, a loss counted with
 * the ground's other resistance (soil, water). */
static __attribute__((noinline)) void hull_ledger(const fw_vehicle *restrict vh, sub *restrict sv,
                                                  double *ledger)
{
    const double h = vh->p->h_s;
    hull_contacts *hc = &sv->hull;
    double normal_j = 0.0, friction_j = 0.0;
    for (int i = 0; i < hc->n; i++) {
        if (!((hc->on >> i) & 1u)) {
            continue;
        }
        normal_j += hc->f_n[i] * (0.5 * (hc->vn0[i] + hc->vn1[i])) * h;
        double ft_v = 0.0;
        for (int j = 0; j < 3; j++) {
            ft_v += -hc->c_t[i] * hc->vt1[i][j] * (0.5 * (hc->vt0[i][j] + hc->vt1[i][j]));
        }
        friction_j += ft_v * h;
    }
    ledger[PDK_LEDGER_SUSPENSION] -= normal_j;
    ledger[PDK_LEDGER_SOIL] -= friction_j;
}

/* The substep's total normal force, for the channels. */
static inline void hull_sum(sub *restrict sv)
{
    hull_contacts *hc = &sv->hull;
    double f = 0.0;
    for (int i = 0; i < hc->n; i++) {
        if ((hc->on >> i) & 1u) {
            f += hc->f_n[i];
        }
    }
    hc->force_n = f;
}

#endif
