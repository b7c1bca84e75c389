/* The suspension of the four-wheel model (internal to the four-wheel step,
 * four_wheel_step.h, which runs its phases; four_wheel.c's steps 1 to 3 and
 * the struts' kinks of step 6). Each corner's strut is a ray, or a
 * cylinder sweep, from the top of its travel down the body's z axis against
 * the terrain: its hit gives the wheel's travel, contact point and normal,
 * the surface and the water. On the contact plane the wheel's heading gives
 * the tyre frame, and its camber comes from the static camber and its curve
 * against travel, or on a solid axle from the beam through both contacts.
 * The struts' forces are the spring, the bump stop, the bump and rebound
 * dampers and the axle's anti-roll bar, taken by the trapezoidal rule; a
 * strut that crosses a kink of its force within the substep (into its bump
 * stop, or touching down) takes that part at the end travel. The link loads
 * of the roll centres (Milliken and Milliken, Race Car Vehicle Dynamics, ch.
 * 17 and 18) and of the anti-dive, anti-squat and anti-lift geometry (ibid.
 * ch. 17 and 18; Gillespie, Fundamentals of Vehicle Dynamics, ch. 7) load
 * the tyre without moving the spring. At the end of the travel, and where a
 * wheel runs into a face's side, a hard contact holds the wheel or the body
 * (PDK_FW_HARD_DAMPING; docs/vehicle-model.md, "Faces and the end of the
 * travel").
 *
 * Reads the state's pose, velocities, sinkage and the previous substep's
 * contact forces, the command's wheel angles (a sweep's axle), the
 * constants' corners and kinematic curves, the tick's tyre radii (sub) and
 * the terrain. Writes the wheels' (wheels) contact, travel, contact point
 * and normal, tyre frame, contact velocities, camber, surface and water,
 * strut and link loads, which are loaded and their hard contacts; and the
 * struts' start values that the passes' kinks read (sub). Static and
 * inlined, so that each build of the step compiles it for its own
 * instruction set. */
#ifndef PDK_SUSPENSION_H
#define PDK_SUSPENSION_H

#include <math.h>
#include <stdint.h>

#include "ground/terrain.h"
#include "math/trig.h"
#include "math/vmath.h"
#include "vehicle/curve.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_lanes.h"
#include "vehicle/four_wheel_substep.h"

/* A strut whose axis makes less than this cosine with the contact normal
 * (more than 84 degrees: the car is on its side or upside down) has no
 * contact: its ray would graze the ground. */
#define MIN_COS 0.1

/* The camber inputs of wheel i on a solid axle: the sine and cosine of
 * the wheel's inclination to the body (sg, cgam, from its camber curve or
 * its static camber) turned, with both wheels down, to the beam's. */
static void camber_beam(const wheels *q, const pdk_fw_consts *p, int i, double *sg_out,
                        double *cgam_out)
{
    double sg = *sg_out, cgam = *cgam_out;
    int l = i & ~1, r = i | 1;
    if (((p->solid >> i) & 1u) && q->contact[l] != 0 && q->contact[r] != 0) {
        double by = q->ry[l] - q->ry[r];
        double bz = q->rz[l] - q->rz[r];
        double inv_b = 1.0 / sqrt(by * by + bz * bz);
        double sp = bz * inv_b;
        double cp = by * inv_b;
        double s2 = sp * cgam + cp * sg;
        cgam = cp * cgam - sp * sg;
        sg = s2;
    }
    *sg_out = sg;
    *cgam_out = cgam;
}

/* Wheel i's hard contact (PDK_FW_HARD_DAMPING): held at the body point
 * (x_i, y_i, rz_m) along the unit normal n_world (world frame, pointing out
 * of the ground or face) by depth_m. */
static void hard_set(wheels *restrict q, const mat3 *rm, int i, const double n_world[3],
                     double depth_m, double rz_m)
{
    double nb[3];
    rot_apply_t(rm, n_world, nb);
    q->hard[i] = -1;
    q->hnx[i] = nb[0];
    q->hny[i] = nb[1];
    q->hnz[i] = nb[2];
    q->hard_d[i] = depth_m;
    q->hard_rz[i] = rz_m;
}

/* The wheels (past) whose struts the plane z = 0 has pushed past their top,
 * by depth_m (vertically): the plane holds them (hard_set) along e_z at the
 * rays' origins, rz_m in the body. */
static __attribute__((noinline)) void plane_under(wheels *restrict q, const mat3 *rm, m4 past,
                                                  v4 depth_m, double rz_m)
{
    static const double up[3] = {0.0, 0.0, 1.0};
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (past[i]) {
            hard_set(q, rm, i, up, depth_m[i], rz_m);
        }
    }
}

/* Wheel i's ray (or sweep) hit where it may lie beyond the strut's reach
 * (docs/vehicle-model.md, "Faces and the end of the travel"), lower_m the
 * wheel's radius drop and sinkage (the travel is top - distance - lower):
 * on a terrain with faces the wheel stands on the ground on its own side of
 * a face (pdk_terrain_face). A ray tilted into a face's side meets the
 * ground at the face's foot instead; a wheel whose ray starts behind a face
 * ran into the face's side, which its strut cannot climb: it stands on the
 * ground at the face's foot and the face holds it with a hard contact
 * along the face's normal, at the wheel's centre (where a tyre meets a
 * vertical face, with its tread rolling into it or its side sliding into
 * it). Where the travel would pass the ray's top otherwise (its distance
 * below -lower_m), the strut takes nothing, and the ground holds the body
 * at the ray's origin with a hard contact along its normal (the suspension
 * bottomed, or a car that fell through on its roof turned upright below
 * the ground). Returns whether the strut may take hit. Not inlined: only
 * for rays that start below the ground or stop on a face's side. */
static __attribute__((noinline)) int
ground_beyond(const fw_vehicle *restrict vh, const sub *restrict sv, const pdk_terrain_def *terrain,
              wheels *restrict q, const mat3 *rm, int i, const double origin[3],
              const double dir[3], double lower_m, pdk_ground_hit *hit)
{
    const pdk_fw_consts *p = vh->p;
    const int faces = sv->faces;
    pdk_face_hit face;
    int kind = faces ? pdk_terrain_face(terrain, origin, dir, PDK_FW_FACE_REACH_M, &face, hit)
                     : PDK_FACE_NONE;
    const double past = -hit->distance_m - lower_m; /* beyond the top, along the ray */
    if (kind == PDK_FACE_BEHIND) {
        hard_set(q, rm, i, face.normal, face.depth_m, sv->radius[i] - p->cg_height_m);
    } else if (past > 0.0) {
        /* The depth along the normal: the distance along the ray times its
         * cosine with the normal. */
        const double *n = hit->normal;
        hard_set(q, rm, i, n, past * -(n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]),
                 p->ride_ray_top_m - p->cg_height_m);
    }
    return !(past > 0.0);
}

/* 1. of a substep: each corner's ray (or sweep) and what it meets, the
 * wheel's travel, contact point and normal, surface and water; the struts
 * past their top held by hard contacts. */
VEC void wheel_rays(PHASE_ARGS, const pdk_terrain_def *restrict terrain)
{
    const pdk_fw_state *restrict st = vh->st;
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const double top = p->ride_ray_top_m;
    const double cg = p->cg_height_m;
    const v4 zero = splat(0.0);
    const mat3 rm = sv->rm;
    const double zb[3] = {rm.m[0][2], rm.m[1][2], rm.m[2][2]};
    const int upright = zb[2] > MIN_COS;
    const double inv_zb = upright ? 1.0 / zb[2] : 0.0;

    /* 1. Geometry: each corner's ray. The static contact point in the world
     * first, then the ray's origin above it, so that on flat ground at rest
     * the origin is exactly ride_ray_top_m above z = 0 and the travel is
     * exactly 0. The wheel centre sits lower by the tyre's radius drop and
     * its sinkage, which the hit's distance takes. */
    const v4 bx = load4(cr->x_m), by = load4(cr->y_m);
    const v4 droop = load4(cr->droop_m);
    const v4 lower = sv->drop + load4(st->sinkage_m);
    v4 x = -droop;
    v4 nbx = zero, nby = zero, nbz = splat(1.0), inv_cos = splat(1.0);
    m4 contact = (m4){0, 0, 0, 0};
    for (int i = 0; i < PDK_WHEELS; i++) {
        q->surf[i] = terrain->base_surface_id;
        q->water_m[i] = 0.0;
    }
    q->hard = (m4){0, 0, 0, 0};
    if (upright && sv->plane) {
        /* The ray against the plane z = 0: the distance o_z / (z_b)_z and
         * the normal e_z, R' e_z in the body. */
        v4 base_z = splat(rm.m[2][0]) * bx + splat(rm.m[2][1]) * by + splat(rm.m[2][2] * -cg);
        v4 origin_z = (splat(st->pos_m[2]) + base_z) + splat(top * zb[2]);
        v4 dist = origin_z * splat(inv_zb);
        v4 xf = (splat(top) - dist) - lower;
        contact = ge4(xf, -droop);
        const m4 past = gt4(xf, splat(top));
        if (any4(past)) {
            /* Past the struts' top (their rays start below the plane, less
             * the wheels' drop and sinkage). */
            contact &= ~past;
            plane_under(q, &rm, past, (xf - splat(top)) * splat(zb[2]), top - cg);
        }
        nbx = splat(rm.m[2][0]);
        nby = splat(rm.m[2][1]);
        nbz = splat(rm.m[2][2]);
        inv_cos = splat(inv_zb);
        x = xf;
        if (!sv->uniform) {
            /* Surface patches or a material grid on the plane: the surface
             * and water where each ray meets it. */
            for (int i = 0; i < PDK_WHEELS; i++) {
                const double b[3] = {bx[i], by[i], -cg};
                double base[3];
                rot_apply(&rm, b, base);
                const double up = top - dist[i];
                q->surf[i] =
                    pdk_terrain_surface(terrain, (st->pos_m[0] + base[0]) + up * zb[0],
                                        (st->pos_m[1] + base[1]) + up * zb[1], &q->water_m[i]);
            }
        }
    } else if (upright) {
        const double dir[3] = {-zb[0], -zb[1], -zb[2]};
        for (int i = 0; i < PDK_WHEELS; i++) {
            const double b[3] = {bx[i], by[i], -cg};
            double base[3], origin[3], nb[3];
            rot_apply(&rm, b, base);
            for (int j = 0; j < 3; j++) {
                origin[j] = (st->pos_m[j] + base[j]) + top * zb[j];
            }
            pdk_ground_hit hit;
            if (sv->cylinder) {
                /* The spin axis of the wheel as steered by the command. */
                const double ab[3] = {-cmd->wheel_sin[i], cmd->wheel_cos[i], 0.0};
                double axle[3];
                rot_apply(&rm, ab, axle);
                pdk_terrain_sweep(terrain, origin, dir, axle, sv->radius[i],
                                  vh->soil[i >> 1]->width_m, &hit);
            } else {
                pdk_terrain_ray_hit(terrain, origin, dir, &hit);
            }
            const int reach =
                (hit.face_side || hit.distance_m < 0.0)
                    ? ground_beyond(vh, sv, terrain, q, &rm, i, origin, dir, lower[i], &hit)
                    : 1;
            q->surf[i] = hit.surface_id;
            q->water_m[i] = hit.water_depth_m;
            double xi = (top - hit.distance_m) - lower[i];
            rot_apply_t(&rm, hit.normal, nb);
            if (!reach || !(xi >= -droop[i]) || !(nb[2] > MIN_COS)) {
                continue; /* in the air (or the strut lies along the ground or past its top) */
            }
            contact[i] = -1;
            x[i] = xi;
            nbx[i] = nb[0];
            nby[i] = nb[1];
            nbz[i] = nb[2];
            inv_cos[i] = 1.0 / nb[2];
        }
    }
    q->contact = contact;
    q->travel = sel(contact, x, -droop);
    q->rx = bx;
    q->ry = by;
    q->rz = splat(-cg) + q->travel;
    q->nx = keep(contact, nbx);
    q->ny = keep(contact, nby);
    q->nz = sel(contact, nbz, splat(1.0));
    q->inv_cos = sel(contact, inv_cos, splat(1.0));
}

/* 2. of a substep, continued: the tyre frame, the contacts' velocities at
 * the start and the camber. */
VEC void frame(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const double *v = sv->v, *w = sv->w;
    const m4 contact = q->contact;
    const v4 sd = q->sin_d, cd = q->cos_d;
    const v4 zero = splat(0.0);
    const int last = sv->last;

    /* The heading (cos d, sin d, 0) projected on the contact plane gives
     * the tyre frame. */
    const v4 n0 = q->nx, n1 = q->ny, n2 = q->nz;
    v4 fdn = cd * n0 + sd * n1;
    v4 ex0 = cd - fdn * n0, ex1 = sd - fdn * n1, ex2 = -(fdn * n2);
    v4 len2 = ex0 * ex0 + ex1 * ex1 + ex2 * ex2;
    v4 inv = splat(1.0) / sqrt4(len2);
    ex0 *= inv;
    ex1 *= inv;
    ex2 *= inv;
    q->exx = ex0;
    q->exy = ex1;
    q->exz = ex2;
    q->eyx = n1 * ex2 - n2 * ex1;
    q->eyy = n2 * ex0 - n0 * ex2;
    q->eyz = n0 * ex1 - n1 * ex0;

    /* The contact's velocity and the strut's compression rate. */
    const v4 r0 = q->rx, r1 = q->ry, r2 = q->rz;
    v4 vc0 = splat(v[0]) + (splat(w[1]) * r2 - splat(w[2]) * r1);
    v4 vc1 = splat(v[1]) + (splat(w[2]) * r0 - splat(w[0]) * r2);
    v4 vc2 = splat(v[2]) + (splat(w[0]) * r1 - splat(w[1]) * r0);
    q->xdot = -(n0 * vc0 + n1 * vc1 + n2 * vc2) * q->inv_cos;
    q->u0 = ex0 * vc0 + ex1 * vc1 + ex2 * vc2;
    q->vlat0 = q->eyx * vc0 + q->eyy * vc1 + q->eyz * vc2;

    /* Camber: the spin axis (-sin d, cos d, 0) tilted about body x by the
     * wheel's inclination to the body, gamma = -side * camber (alignment
     * camber, negative top-in), or on a solid axle with both wheels down by
     * the beam's roll psi relative to the body on top; Camber = asin(axis .
     * n). Only the tyre laws that read camber and the telemetry need it. */
    m4 need = last ? (m4){-1, -1, -1, -1} : contact & load_mask(cr->camber_law);
    if (any4(need)) {
        v4 sg = load4(cr->sin_camber);
        v4 cgam = load4(cr->cos_camber);
        const uint32_t want = bits4(need);
        const uint32_t curved = cr->camber_curve & want;
        if (curved != 0u) {
            /* A camber curve's wheels: the inclination -side * (static +
             * curve(travel)), its sine and cosine on four lanes (sincos4,
             * pdk_trig_sincos's bits). */
            v4 arg = zero;
            for (int i = 0; i < PDK_WHEELS; i++) {
                if ((curved >> i) & 1u) {
                    const double side = (i & 1) ? -1.0 : 1.0;
                    const double cam = p->static_camber_rad[i >> 1] +
                                       pdk_curve_at(&kin[i >> 1]->camber_rad, q->travel[i]);
                    arg[i] = -side * cam;
                }
            }
            v4 s4, c4;
            sincos4(arg, &s4, &c4);
            const m4 on = {(curved & 1u) ? -1 : 0, (curved & 2u) ? -1 : 0, (curved & 4u) ? -1 : 0,
                           (curved & 8u) ? -1 : 0};
            sg = sel(on, s4, sg);
            cgam = sel(on, c4, cgam);
        }
        const uint32_t beam = cr->solid & want;
        for (int i = 0; beam != 0u && i < PDK_WHEELS; i++) {
            if ((beam >> i) & 1u) {
                double sg_i = sg[i], cg_i = cgam[i];
                camber_beam(q, p, i, &sg_i, &cg_i);
                sg[i] = sg_i;
                cgam[i] = cg_i;
            }
        }
        v4 arg = -(sd * n0) + cd * (cgam * n1 + sg * n2);
        q->camber = keep(need, asin4(keep(need, arg)));
    } else {
        q->camber = zero;
    }
}

/* The body-frame point where wheel i's hard contact holds it (hard_set). */
static inline void hard_point(const wheels *q, int i, double r[3])
{
    r[0] = q->rx[i];
    r[1] = q->ry[i];
    r[2] = q->hard_rz[i];
}

/* The velocity along n of the body point r, for the body velocity v and
 * rate w: n . (v + w x r) = n . v + (r x n) . w. */
static inline double point_speed(const double n[3], const double r[3], const double v[3],
                                 const double w[3])
{
    const double g[3] = {r[1] * n[2] - r[2] * n[1], r[2] * n[0] - r[0] * n[2],
                         r[0] * n[1] - r[1] * n[0]};
    return (n[0] * v[0] + n[1] * v[1] + n[2] * v[2]) + (g[0] * w[0] + g[1] * w[1] + g[2] * w[2]);
}

/* 3. for the wheels held by a hard contact (PDK_FW_HARD_DAMPING): its force
 * along the normal n out of the ground or face, a damper c on the point's
 * end velocity along n, vn1, toward the speed it may leave at, v_out =
 * min(PDK_FW_HARD_OUT_MPS, depth / h): F = c (v_out - vn1), explicit part
 * c v_out. The point's start velocity along n, for the energy ledger. */
static __attribute__((noinline)) void hard_start(const fw_vehicle *restrict vh, sub *restrict sv,
                                                 wheels *restrict q)
{
    const pdk_fw_consts *p = vh->p;
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (!q->hard[i]) {
            continue;
        }
        const double n[3] = {q->hnx[i], q->hny[i], q->hnz[i]};
        double r[3];
        hard_point(q, i, r);
        const double out = q->hard_d[i] * p->inv_h;
        const double v_out = out < PDK_FW_HARD_OUT_MPS ? out : PDK_FW_HARD_OUT_MPS;
        q->hard_vn0[i] = point_speed(n, r, sv->v, sv->w);
        q->hard_fe[i] = p->hard_nspm * v_out;
        q->hard_f[i] = 0.0;
        q->hard_vn1[i] = q->hard_vn0[i];
    }
}

/* The hard contacts' dampers and forces in the system (build_system's form
 * for one damper c along J = [n; r x n] with the explicit force f_e along
 * n): T += c n n', B += c n g', W += c g g' with g = r x n, and (f_e n, f_e
 * g) on the right. */
static __attribute__((noinline)) void add_hard(system6 *restrict sy, const pdk_fw_consts *p,
                                               const wheels *restrict q)
{
    const double c = p->hard_nspm;
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (!q->hard[i]) {
            continue;
        }
        const double n[3] = {q->hnx[i], q->hny[i], q->hnz[i]};
        double r[3];
        hard_point(q, i, r);
        const double g[3] = {r[1] * n[2] - r[2] * n[1], r[2] * n[0] - r[0] * n[2],
                             r[0] * n[1] - r[1] * n[0]};
        const double fe = q->hard_fe[i];
        sy->g[0] += (v4){c * n[0] * n[0], c * n[0] * n[1], c * n[0] * n[2], c * n[1] * n[1]};
        sy->g[1] += (v4){c * n[1] * n[2], c * n[2] * n[2], c * g[0] * g[0], c * g[0] * g[1]};
        sy->g[2] += (v4){c * g[0] * g[2], c * g[1] * g[1], c * g[1] * g[2], c * g[2] * g[2]};
        sy->g[3] += (v4){c * n[0] * g[0], c * n[0] * g[1], c * n[0] * g[2], fe * n[0]};
        sy->g[4] += (v4){c * n[1] * g[0], c * n[1] * g[1], c * n[1] * g[2], fe * n[1]};
        sy->g[5] += (v4){c * n[2] * g[0], c * n[2] * g[1], c * n[2] * g[2], fe * n[2]};
        sy->g[6] += (v4){fe * g[0], fe * g[1], fe * g[2], 0.0};
    }
}

/* After a pass: each hard contact's end velocity and force; those that
 * would pull (the ground never pulls), not yet let go this substep, are let
 * go. Returns them. */
static __attribute__((noinline)) m4 hard_check(const fw_vehicle *restrict vh, sub *restrict sv,
                                               wheels *restrict q)
{
    const pdk_fw_consts *p = vh->p;
    m4 release = (m4){0, 0, 0, 0};
    for (int i = 0; i < PDK_WHEELS; i++) {
        if (!q->hard[i]) {
            continue;
        }
        const double n[3] = {q->hnx[i], q->hny[i], q->hnz[i]};
        double r[3];
        hard_point(q, i, r);
        const double vn1 = point_speed(n, r, sv->sol, sv->sol + 3);
        q->hard_vn1[i] = vn1;
        q->hard_f[i] = q->hard_fe[i] - p->hard_nspm * vn1;
        if (q->hard_f[i] < 0.0 && !sv->tried_hard[i]) {
            release[i] = -1;
        }
    }
    return release;
}

/* 3. of a substep: the struts, the links and which wheels are loaded; the
 * struts' values at the start, for the kinks (strut_kinks). */
VEC void strut_forces(PHASE_ARGS)
{
    const pdk_fw_state *restrict st = vh->st;
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_consts *cr = p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const double h = p->h_s;
    const m4 contact = q->contact;
    const v4 n2 = q->nz;
    const v4 side = (v4){1.0, -1.0, 1.0, -1.0}; /* +1 left, -1 right */
    const v4 zero = splat(0.0);

    /* 3. Struts: S_exp = k (s0 + x) + arb (x - x_other) + bump stop, written
     * with the static load plus k x, exactly the static load at the ride
     * position; damper bump or rebound by the sign of xdot. */
    const v4 xt = q->travel;
    const v4 xdot = q->xdot;
    const v4 spring = load4(cr->spring_npm);
    v4 s_exp = load4(cr->static_load_n) + spring * xt + load4(cr->arb_npm) * (xt - other4(xt));
    const v4 bump = load4(cr->bump_m);
    const m4 in_stop = gt4(xt, bump);
    const v4 k_bs = load4(cr->bump_stop_npm);
    s_exp = sel(in_stop, s_exp + k_bs * (xt - bump), s_exp);
    const v4 k_tot = sel(in_stop, spring + k_bs, spring);
    const v4 c = sel(gt4(xdot, zero), load4(cr->bump_nspm), load4(cr->rebound_nspm));
    const v4 s0 = s_exp + c * xdot;

    /* Lateral links: the roll-centre couple, or per wheel with a
     * roll-centre curve (jacking where the two do not cancel). */
    const v4 fy_prev = load4(st->prev_fy_n);
    v4 link_rc = -side * (fy_prev + other4(fy_prev)) * load4(cr->rc_per_track);
    const m4 per_wheel = load_mask(cr->per_wheel_links);
    if (cr->per_wheel_any) {
        v4 hrc = load4(cr->rc_height_m);
        for (int i = 0; cr->rc_curve != 0u && i < PDK_WHEELS; i++) {
            if ((cr->rc_curve >> i) & 1u) {
                hrc[i] += pdk_curve_at(&kin[i >> 1]->roll_center_height_m, xt[i]);
            }
        }
        link_rc = sel(per_wheel, -side * fy_prev * hrc * load4(cr->two_per_track), link_rc);
    }
    /* Pitch links (Milliken and Milliken, ch. 18; Gillespie, ch. 7): the
     * anti-dive percentage applies to the share of the contact's force whose
     * torque the brake reacts through the upright (the caliper), the
     * anti-squat to the rest, whose torque the driveline reacts (the hub
     * for independent suspension, the axle housing for a solid axle: a
     * drive or engine-braking torque, the park pawl). The brakes take the
     * force up to their capacity B / R and the driveline what is beyond:
     * F_b = clamp(F_x, -B/R, B/R), linear in F_x and continuous through
     * zero speed, where a rolling direction would flip the choice on the
     * contact's speed noise. Static plus curve. */
    const v4 fx_prev = load4(st->prev_fx_n);
    const v4 fb_max =
        vh->pt != NULL ? load4(vh->cmd->brake_nm) * sv->inv_radius : load4(vh->cmd->brake_n);
    const v4 fx_brake = sel(gt4(fx_prev, fb_max), fb_max, max4(fx_prev, -fb_max));
    v4 anti_b = load4(cr->anti_brake);
    v4 anti_d = load4(cr->anti_drive);
    if ((cr->anti_brake_curve | cr->anti_drive_curve) != 0u) {
        for (int i = 0; i < PDK_WHEELS; i++) {
            const pdk_kinematics_def *ki = kin[i >> 1];
            if ((cr->anti_brake_curve >> i) & 1u) {
                anti_b[i] += pdk_curve_at(&ki->anti_brake, xt[i]);
            }
            if ((cr->anti_drive_curve >> i) & 1u) {
                anti_d[i] += pdk_curve_at(&ki->anti_drive, xt[i]);
            }
        }
    }
    const v4 link_pitch =
        (anti_b * fx_brake + anti_d * (fx_prev - fx_brake)) * load4(cr->pitch_arm);
    const v4 link = link_rc + link_pitch;
    const v4 fz0 = n2 * s0 + link;
    /* The ground never pulls: a strut or tyre load that would be negative
     * leaves the wheel unloaded. */
    const m4 loaded = contact & gt4(s0, zero) & gt4(fz0, zero);

    /* The trapezoidal rule: the force at the mean of the start and end
     * travel and rate, S = s_exp + c_n (xdot0 + xdot1) with c_n = c / 2 +
     * h k / 4; the bar's rate part likewise (its explicit half here, its
     * implicit half in build_system). */
    const v4 c_n = splat(0.5) * c + splat(0.25 * h) * k_tot;
    const v4 xdot_c = keep(contact, xdot);
    const v4 s_mid = s_exp + c_n * xdot + load4(cr->arb_quarter_h) * (xdot - other4(xdot_c));
    q->loaded = loaded;
    q->link_rc = link_rc; /* kept for the wheels loaded at the end (step 5) */
    q->link_pitch = link_pitch;
    q->s_exp = keep(loaded, s_mid);
    q->fn = keep(loaded, n2 * s_mid + link);
    q->c_n = keep(loaded, c_n);
    q->fz0 = fz0;
    q->soil &= loaded;
    sv->xt = xt;
    sv->xdot = xdot;
    sv->spring = spring;
    sv->bump = bump;
    sv->k_bs = k_bs;
    sv->c = c;
    sv->s_exp = s_exp;
    sv->link = link;
    sv->xdot_c = xdot_c;
    sv->in_stop = in_stop;
}

/* The struts' kinks after a pass (check_pass; lift the wheels lifting
 * off, vn_all the contacts' end velocities along their normals). The end
 * travel is x1 = x0 + h (xdot0 + xdot1) / 2 (the position advances by the
 * mean velocity). A loaded strut that enters its bump stop takes the
 * stop's force k_bs (x1 - bump) at that end travel; a wheel in contact but
 * unloaded whose strut would push at the end (the force it would then
 * take, spring and stop at x1, bar and damper as on every wheel, and its
 * normal load positive) is loaded with its spring and stop at x1. Why at
 * the end travel: docs/vehicle-model.md, "The step's energy balance".
 * Returns the wheels that entered their stop in enter_out and those
 * loaded in engage_out, their struts' values changed for the next pass. */
VEC void strut_kinks(const fw_vehicle *restrict vh, const sub *restrict sv, wheels *restrict q,
                     v4 vn_all, m4 lift, m4 *enter_out, m4 *engage_out)
{
    const pdk_fw_consts *cr = vh->p;
    const m4 contact = q->contact;
    const v4 n2 = q->nz;
    const v4 xt = sv->xt, xdot = sv->xdot, spring = sv->spring, bump = sv->bump, k_bs = sv->k_bs;
    const v4 c = sv->c, s_exp = sv->s_exp, link = sv->link, xdot_c = sv->xdot_c;
    const m4 in_stop = sv->in_stop;
    const v4 zero = splat(0.0);
    const v4 arb_qh = load4(cr->arb_quarter_h);
    const v4 half_h = splat(0.5 * cr->h_s);
    const m4 tried = sv->tried;
    const m4 entered = sv->entered;
    m4 enter = (m4){0, 0, 0, 0};
    m4 engage = (m4){0, 0, 0, 0};
    const m4 cand_enter = q->loaded & ~lift & ~in_stop & ~entered;
    const m4 cand_engage = contact & ~q->loaded & ~tried;
    if (any4(cand_enter | cand_engage)) {
        const v4 xdot1 = -(vn_all * q->inv_cos);
        const v4 x1 = xt + half_h * (xdot + xdot1);
        const m4 past = gt4(x1, bump);
        enter = cand_enter & past;
        if (any4(enter)) {
            const v4 add = k_bs * (xt - bump) + half_h * k_bs * xdot;
            q->s_exp = sel(enter, q->s_exp + add, q->s_exp);
            q->fn = sel(enter, q->fn + n2 * add, q->fn);
            q->c_n = sel(enter, q->c_n + half_h * k_bs, q->c_n);
        }
        if (any4(cand_engage)) {
            /* The stop as it stands at x1: in it or not. */
            const v4 k_e = sel(past, spring + k_bs, spring);
            const v4 stop_e = keep(past & ~in_stop, k_bs * (xt - bump)) -
                              keep(in_stop & ~past, k_bs * (xt - bump));
            const v4 c_n_e = splat(0.5) * c + half_h * k_e;
            const v4 s_mid_e = s_exp + stop_e + c_n_e * xdot + arb_qh * (xdot - other4(xdot_c));
            const v4 s1 = s_mid_e + c_n_e * xdot1 + arb_qh * (xdot1 - other4(keep(contact, xdot1)));
            const v4 fz1 = n2 * s1 + link;
            engage = cand_engage & gt4(s1, zero) & gt4(fz1, zero);
            if (any4(engage)) {
                q->s_exp = sel(engage, s_mid_e, q->s_exp);
                q->fn = sel(engage, n2 * s_mid_e + link, q->fn);
                q->c_n = sel(engage, c_n_e, q->c_n);
                q->fz0 = sel(engage, fz1, q->fz0); /* the tyre works with the end load */
            }
        }
    }
    *enter_out = enter;
    *engage_out = engage;
}

#endif
