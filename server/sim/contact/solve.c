/* The contact response (contact.h pdk_contact_solve): sequential impulses
 * as Erin Catto presents them ("Fast and Simple Physics using Sequential
 * Impulses", GDC 2006; "Iterative Dynamics with Temporal Coherence",
 * 2005): each point's normal impulse accumulated and clamped at zero, its
 * two friction impulses clamped to the Coulomb pyramid mu jn, passes over
 * every point until the velocities agree. A point still apart by a gap
 * lets the bodies close it within the tick and no more (a speculative
 * contact, as Box2D's and Bullet's: no tunnelling through a face however
 * fast the approach, since the step cannot carry a body past a gap its
 * velocity closes); bodies that meet within the tick faster than
 * PDK_CONTACT_BOUNCE_MPS then take e times the impulse that stopped them
 * (Poisson's restitution, which unlike Newton's never adds energy where
 * several points push at once: Stewart, "Rigid-body dynamics with
 * friction and impact", SIAM Review 42(1), 2000);
 * penetration beyond the slop is removed by moving the bodies apart along
 * the normal (a position correction that adds no velocity, so no energy:
 * Baumgarte's feedback would). */
#include <math.h>
#include <string.h>

#include "contact/contact.h"

static void mat_mul(const double m[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
    }
}

void pdk_cbody_prepare(pdk_cbody *b, const double inv_i_body[3], double dt_s)
{
    for (int j = 0; j < 3; j++) {
        b->inv_i_body[j] = inv_i_body[j];
    }
    /* The bounds: the box's world extent, widened on the side it moves
     * towards by its travel over the tick, all round by the margin and by
     * what its turning sweeps. */
    const double reach = sqrt(pdk_ct_dot(b->half_m, b->half_m));
    const double turn = sqrt(pdk_ct_dot(b->omega_radps, b->omega_radps)) * reach * dt_s;
    for (int i = 0; i < 3; i++) {
        const double e = fabs(b->rot[3 * i]) * b->half_m[0] +
                         fabs(b->rot[3 * i + 1]) * b->half_m[1] +
                         fabs(b->rot[3 * i + 2]) * b->half_m[2];
        const double travel = b->vel_mps[i] * dt_s;
        b->lo_m[i] = b->box_m[i] - e - PDK_CONTACT_MARGIN_M - turn + (travel < 0.0 ? travel : 0.0);
        b->hi_m[i] = b->box_m[i] + e + PDK_CONTACT_MARGIN_M + turn + (travel > 0.0 ? travel : 0.0);
        b->dpos_m[i] = 0.0;
        b->impulse_ns[i] = 0.0;
        b->angular_impulse_nms[i] = 0.0;
    }
    b->touched = 0;
    b->points = 0;
}

/* The velocity of the body's point at r from its CG. */
static void point_velocity(const pdk_cbody *b, const double r[3], double out[3])
{
    double w[3];
    pdk_ct_cross(b->omega_radps, r, w);
    for (int j = 0; j < 3; j++) {
        out[j] = b->vel_mps[j] + w[j];
    }
}

/* 1 / (the pair's effective mass along dir at the point). */
static double inv_effective_mass(const pdk_cbody *a, const pdk_cbody *b, const double ra[3],
                                 const double rb[3], const double dir[3])
{
    double k = a->inv_mass_kg + b->inv_mass_kg;
    double c[3], ic[3], t[3];
    pdk_ct_cross(ra, dir, c);
    mat_mul(a->inv_inertia, c, ic);
    pdk_ct_cross(ic, ra, t);
    k += pdk_ct_dot(dir, t);
    pdk_ct_cross(rb, dir, c);
    mat_mul(b->inv_inertia, c, ic);
    pdk_ct_cross(ic, rb, t);
    k += pdk_ct_dot(dir, t);
    return k;
}

/* Impulse p (on b; a takes -p) at the point. */
static void apply(pdk_cbody *a, pdk_cbody *b, const double ra[3], const double rb[3],
                  const double p[3])
{
    double c[3], dw[3];
    for (int j = 0; j < 3; j++) {
        a->vel_mps[j] -= a->inv_mass_kg * p[j];
        b->vel_mps[j] += b->inv_mass_kg * p[j];
    }
    pdk_ct_cross(ra, p, c);
    mat_mul(a->inv_inertia, c, dw);
    for (int j = 0; j < 3; j++) {
        a->omega_radps[j] -= dw[j];
    }
    pdk_ct_cross(rb, p, c);
    mat_mul(b->inv_inertia, c, dw);
    for (int j = 0; j < 3; j++) {
        b->omega_radps[j] += dw[j];
    }
    a->touched = 1;
    b->touched = 1;
}

/* Normal velocity of b relative to a at the point (negative: closing). */
static double normal_speed(const pdk_cbody *a, const pdk_cbody *b, const pdk_cpoint *p,
                           const double dir[3])
{
    double va[3], vb[3];
    point_velocity(a, p->ra_m, va);
    point_velocity(b, p->rb_m, vb);
    double v[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
    return pdk_ct_dot(v, dir);
}

/* Adds lambda along dir to the point's accumulated impulse acc, clamped to
 * [lo, hi], and applies the change; returns its size. */
static double push(pdk_cbody *a, pdk_cbody *b, const pdk_cpoint *p, const double dir[3],
                   double lambda, double *acc, double lo, double hi)
{
    double next = *acc + lambda;
    next = next < lo ? lo : (next > hi ? hi : next);
    const double delta = next - *acc;
    *acc = next;
    if (delta != 0.0) {
        double imp[3] = {delta * dir[0], delta * dir[1], delta * dir[2]};
        apply(a, b, p->ra_m, p->rb_m, imp);
    }
    return fabs(delta);
}

/* Two unit tangents to n, from the world axis least along it. */
static void tangents(const double n[3], double t0[3], double t1[3])
{
    double e[3] = {0.0, 0.0, 0.0};
    const double ax = fabs(n[0]), ay = fabs(n[1]), az = fabs(n[2]);
    e[(ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2)] = 1.0;
    pdk_ct_cross(n, e, t0);
    const double len = sqrt(pdk_ct_dot(t0, t0));
    for (int j = 0; j < 3; j++) {
        t0[j] /= len;
    }
    pdk_ct_cross(n, t0, t1);
}

/* 1 when the point's bodies meet within the tick (the gap closes) faster
 * than the bounce threshold and the pair has restitution. */
static int bounces(const pdk_manifold *m, const pdk_cpoint *p, double dt_s)
{
    return m->restitution > 0.0 && p->approach_mps > PDK_CONTACT_BOUNCE_MPS &&
           p->approach_mps * dt_s >= p->sep_m;
}

void pdk_contact_solve(pdk_cbody *bodies, pdk_manifold *ms, int n, double dt_s)
{
    /* Each body's velocities before the solve, to give back the change,
     * and its inverse inertia in the world, R diag(inv_i_body) R'. */
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < 2; s++) {
            pdk_cbody *b = &bodies[s == 0 ? ms[i].a : ms[i].b];
            memcpy(b->dvel_mps, b->vel_mps, sizeof b->dvel_mps);
            memcpy(b->domega_radps, b->omega_radps, sizeof b->domega_radps);
            const double *r = b->rot, *ib = b->inv_i_body;
            for (int row = 0; row < 3; row++) {
                for (int col = 0; col < 3; col++) {
                    b->inv_inertia[3 * row + col] = r[3 * row] * ib[0] * r[3 * col] +
                                                    r[3 * row + 1] * ib[1] * r[3 * col + 1] +
                                                    r[3 * row + 2] * ib[2] * r[3 * col + 2];
                }
            }
        }
    }
    for (int i = 0; i < n; i++) {
        pdk_manifold *m = &ms[i];
        const pdk_cbody *a = &bodies[m->a], *b = &bodies[m->b];
        tangents(m->normal, m->tangent[0], m->tangent[1]);
        for (int k = 0; k < m->n; k++) {
            pdk_cpoint *p = &m->p[k];
            for (int j = 0; j < 3; j++) {
                p->ra_m[j] = p->point_m[j] - a->cg_m[j];
                p->rb_m[j] = p->point_m[j] - b->cg_m[j];
            }
            p->normal_mass = 1.0 / inv_effective_mass(a, b, p->ra_m, p->rb_m, m->normal);
            for (int t = 0; t < 2; t++) {
                p->tangent_mass[t] =
                    1.0 / inv_effective_mass(a, b, p->ra_m, p->rb_m, m->tangent[t]);
                p->jt_ns[t] = 0.0;
            }
            p->jn_ns = 0.0;
            p->approach_mps = -normal_speed(a, b, p, m->normal);
            /* A gap may close within the tick, no faster; touching, the
             * normal speed must not close further (the position
             * correction removes what penetration there is). Bodies that
             * meet within the tick fast enough to bounce stop at once
             * instead, so that the bounce below is e times the whole
             * impact's impulse: the bounce comes up to a tick early, the
             * bodies parting up to one tick's travel apart. */
            p->target_mps = p->sep_m > 0.0 ? -p->sep_m / dt_s : 0.0;
            if (bounces(m, p, dt_s)) {
                p->target_mps = 0.0;
            }
        }
    }
    for (int it = 0; it < PDK_CONTACT_ITERATIONS; it++) {
        /* The largest change a pass made: once no impulse moves by more
         * than PDK_CONTACT_SETTLED_NS the velocities agree and the passes
         * stop (a car park at rest takes one or two). A decision on the
         * state alone, so every run takes the same passes. */
        double moved = 0.0;
        for (int i = 0; i < n; i++) {
            pdk_manifold *m = &ms[i];
            pdk_cbody *a = &bodies[m->a], *b = &bodies[m->b];
            for (int k = 0; k < m->n; k++) {
                pdk_cpoint *p = &m->p[k];
                /* Friction first (its bound is the last pass's normal
                 * impulse), then the normal, which has the last word. */
                const double limit = m->friction * p->jn_ns;
                for (int t = 0; t < 2; t++) {
                    const double vt = normal_speed(a, b, p, m->tangent[t]);
                    moved = fmax(moved, push(a, b, p, m->tangent[t], -p->tangent_mass[t] * vt,
                                             &p->jt_ns[t], -limit, limit));
                }
                const double vn = normal_speed(a, b, p, m->normal);
                moved = fmax(moved, push(a, b, p, m->normal, p->normal_mass * (p->target_mps - vn),
                                         &p->jn_ns, 0.0, INFINITY));
            }
        }
        if (moved <= PDK_CONTACT_SETTLED_NS) {
            break;
        }
    }
    /* Restitution after Poisson: a point that met within the tick faster
     * than the bounce threshold gives back e times the impulse J that
     * stopped it, friction's part with the normal's (so the impulse stays
     * in the friction cone). Why that never adds energy for e <= 1: with
     * K(s) the kinetic energy after s J, K(s) = K0 + s A + s^2 B / 2
     * (A = J.v0, B = J' M^-1 J >= 0), and the solved stop leaves J.v(1)
     * = A + B <= 0 (each pushing point's normal speed 0, friction opposing
     * its slip), so K(1 + e) <= K0 + (1 + e) (e - 1) B / 2 <= K0.
     * Newton's rule (parting at e times the approach at every point) can
     * add energy where several points push at once, and so can giving back
     * the normal part alone. */
    for (int i = 0; i < n; i++) {
        pdk_manifold *m = &ms[i];
        if (m->restitution <= 0.0) {
            continue;
        }
        pdk_cbody *a = &bodies[m->a], *b = &bodies[m->b];
        for (int k = 0; k < m->n; k++) {
            pdk_cpoint *p = &m->p[k];
            if (!bounces(m, p, dt_s) || p->jn_ns <= 0.0) {
                continue;
            }
            const double e = m->restitution;
            const double jt0 = p->jt_ns[0], jt1 = p->jt_ns[1];
            push(a, b, p, m->normal, e * p->jn_ns, &p->jn_ns, 0.0, INFINITY);
            push(a, b, p, m->tangent[0], e * jt0, &p->jt_ns[0], -INFINITY, INFINITY);
            push(a, b, p, m->tangent[1], e * jt1, &p->jt_ns[1], -INFINITY, INFINITY);
        }
    }
    /* The position correction at each manifold's deepest point, shared by
     * the bodies' inverse masses; and each body's sums. */
    for (int i = 0; i < n; i++) {
        pdk_manifold *m = &ms[i];
        pdk_cbody *a = &bodies[m->a], *b = &bodies[m->b];
        int deepest = 0;
        for (int k = 0; k < m->n; k++) {
            const pdk_cpoint *p = &m->p[k];
            if (p->sep_m < m->p[deepest].sep_m) {
                deepest = k;
            }
            double imp[3], c[3];
            for (int j = 0; j < 3; j++) {
                imp[j] = p->jn_ns * m->normal[j] + p->jt_ns[0] * m->tangent[0][j] +
                         p->jt_ns[1] * m->tangent[1][j];
                b->impulse_ns[j] += imp[j];
                a->impulse_ns[j] -= imp[j];
            }
            double rb[3], ra[3];
            for (int j = 0; j < 3; j++) {
                rb[j] = p->point_m[j] - b->box_m[j];
                ra[j] = p->point_m[j] - a->box_m[j];
            }
            pdk_ct_cross(rb, imp, c);
            for (int j = 0; j < 3; j++) {
                b->angular_impulse_nms[j] += c[j];
            }
            pdk_ct_cross(ra, imp, c);
            for (int j = 0; j < 3; j++) {
                a->angular_impulse_nms[j] -= c[j];
            }
        }
        a->points += m->n;
        b->points += m->n;
        const double depth = -m->p[deepest].sep_m - PDK_CONTACT_SLOP_M;
        const double total = a->inv_mass_kg + b->inv_mass_kg;
        if (depth > 0.0 && total > 0.0) {
            const double c = PDK_CONTACT_CORRECT_SHARE * depth / total;
            for (int j = 0; j < 3; j++) {
                a->dpos_m[j] -= c * a->inv_mass_kg * m->normal[j];
                b->dpos_m[j] += c * b->inv_mass_kg * m->normal[j];
            }
            a->touched = 1;
            b->touched = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < 2; s++) {
            pdk_cbody *b = &bodies[s == 0 ? ms[i].a : ms[i].b];
            if (b->touched == 1) {
                const double shift = sqrt(pdk_ct_dot(b->dpos_m, b->dpos_m));
                if (shift > PDK_CONTACT_MAX_CORRECT_M) {
                    const double keep = PDK_CONTACT_MAX_CORRECT_M / shift;
                    for (int j = 0; j < 3; j++) {
                        b->dpos_m[j] *= keep;
                    }
                }
                for (int j = 0; j < 3; j++) {
                    b->dvel_mps[j] = b->vel_mps[j] - b->dvel_mps[j];
                    b->domega_radps[j] = b->omega_radps[j] - b->domega_radps[j];
                }
                b->touched = 2; /* its change is worked out once */
            }
        }
    }
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < 2; s++) {
            pdk_cbody *b = &bodies[s == 0 ? ms[i].a : ms[i].b];
            if (b->touched == 2) {
                b->touched = 1;
            }
        }
    }
}
