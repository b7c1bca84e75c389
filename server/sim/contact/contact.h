/* Contact between bodies, inside sim (sim/contact.h is the contract; ADR
 * 0027 the choices): the bodies one tick's contact phase gathers, the broad
 * phase that pairs them, the box-box narrow phase that finds each pair's
 * manifold, and the sequential-impulse solve. Plain data and pure functions
 * over caller-owned arrays: nothing here allocates or knows the world
 * (world_contact.c gathers and scatters). */
#ifndef PDK_CONTACT_INTERNAL_H
#define PDK_CONTACT_INTERNAL_H

#include <stdint.h>

#include "sim/contact.h"

/* 3-vectors as the contact code keeps them, double[3] in the world frame. */
static inline double pdk_ct_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void pdk_ct_cross(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* The solve's settings (ADR 0027 says why these values):
 * - ITERATIONS: velocity passes over every manifold, Catto's sequential
 *   impulses (GDC 2006, "Fast and Simple Physics using Sequential
 *   Impulses"): 16 bring a head-on's four points to 1e-8 of their
 *   impulse (8 left 1e-4, enough to gain energy at restitution 1); the
 *   passes stop early once none moves an impulse by more than SETTLED_NS
 *   (a micro-newton-second: 1e-9 m/s on a car), as a resting car park
 *   does after one or two.
 * - SLOP_M: penetration left alone, so that a resting contact keeps
 *   touching instead of being pushed apart and falling back (jitter).
 * - CORRECT_SHARE: the share of the penetration beyond the slop removed
 *   each tick by moving the bodies apart (no velocity: no energy added);
 *   MAX_CORRECT_M the most a body is moved so in a tick, whatever the
 *   number of bodies it overlaps (2.4 m/s at 120 Hz, as rigid-body engines
 *   bound their push-out, PhysX's maxDepenetrationVelocity): bodies spawned
 *   into each other come apart over some ticks instead of being thrown.
 * - BOUNCE_MPS: below this approach speed restitution is not applied, so
 *   a resting or slowly pressing pair does not hop.
 * - MARGIN_M: pairs within this gap are kept as speculative contacts even
 *   when still; the closing distance over the tick is added per pair. */
#define PDK_CONTACT_ITERATIONS 16
#define PDK_CONTACT_SETTLED_NS 1e-6
#define PDK_CONTACT_SLOP_M 0.005
#define PDK_CONTACT_CORRECT_SHARE 0.4
#define PDK_CONTACT_MAX_CORRECT_M 0.02
#define PDK_CONTACT_BOUNCE_MPS 1.0
#define PDK_CONTACT_MARGIN_M 0.02
#define PDK_CONTACT_MAX_POINTS 4

/* One body of a tick's contact phase. The box is centred at box_m with
 * axes the columns of rot (body to world, row-major) and half extents
 * half_m; the body's velocities are those of its centre of mass cg_m. */
typedef struct pdk_cbody {
    double box_m[3];
    double rot[9];
    double half_m[3];
    double cg_m[3];
    double vel_mps[3];
    double omega_radps[3];               /* world frame */
    double inv_mass_kg;                  /* 0: infinite (moved, never pushed) */
    double inv_i_body[3];                /* principal, body axes, 1 / (kg m^2) */
    double inv_inertia[9];               /* world frame: the solve works it out for its bodies */
    double lo_m[3], hi_m[3];             /* bounds, widened by the tick's travel and MARGIN_M */
    double dpos_m[3];                    /* the position correction, summed */
    double dvel_mps[3], domega_radps[3]; /* the solve's change, summed */
    pdk_contact_material material;
    uint32_t kind; /* PDK_CONTACT_BODY_VEHICLE or _PROXY */
    uint32_t slot;
    uint32_t id;
    int32_t touched;                              /* 1 once a manifold holds it */
    double impulse_ns[3], angular_impulse_nms[3]; /* summed on this body */
    int32_t points;
} pdk_cbody;

/* Keeps inv_i_body and fills the bounds (widened by the travel over dt_s
 * and PDK_CONTACT_MARGIN_M) from the rest: box_m, rot, half_m and the
 * velocities; clears what the solve sums. The world-frame inverse inertia
 * waits for the solve, which needs it only for the bodies that touch. */
void pdk_cbody_prepare(pdk_cbody *b, const double inv_i_body[3], double dt_s);

typedef struct pdk_cpoint {
    double ra_m[3], rb_m[3]; /* from each body's CG */
    double point_m[3];
    double sep_m; /* signed gap along the normal: negative is penetration */
    double normal_mass, tangent_mass[2];
    double jn_ns, jt_ns[2]; /* accumulated impulses */
    double target_mps;      /* the normal velocity the solve works towards */
    double approach_mps;    /* the normal closing speed before the solve */
} pdk_cpoint;

/* A pair's contact: normal from a to b, its tangents, the pair's material
 * and up to PDK_CONTACT_MAX_POINTS points. */
typedef struct pdk_manifold {
    uint32_t a, b; /* body indices, a < b */
    int32_t n;
    double normal[3], tangent[2][3];
    double friction, restitution;
    pdk_cpoint p[PDK_CONTACT_MAX_POINTS];
} pdk_manifold;

/* Per vehicle slot: the last tick's contact for the channels. */
typedef struct pdk_contact_sum {
    double impulse_ns; /* magnitude of the summed impulse */
    double count;      /* manifolds */
} pdk_contact_sum;

/* The broad phase: sweep and prune over bodies[0..n) along x or y,
 * whichever the bodies spread over more (broad.c). order (n long) is left
 * sorted by lo_m on that axis, ties by index, and *sorted_axis names it:
 * when *sorted_axis already does, from the order it holds (a permutation
 * of 0..n-1, the last call's for the same n: linear when little moved);
 * else (-1 for none) from the start. Writes the overlapping pairs as
 * (a << 32 | b), a < b, sorted, into pairs (at most cap; *missed takes how
 * many more overlapped) and returns how many. The pairs depend on the
 * bodies alone. */
int pdk_contact_broad(const pdk_cbody *bodies, int n, uint32_t *order, int *sorted_axis,
                      uint64_t *pairs, int cap, int *missed);

/* The narrow phase of two boxes: 1 and the manifold in *m (normal from a
 * to b, points with their gaps) when they are within margin_m of each
 * other, else 0. Separating axes (the 3 + 3 face normals and 9 edge
 * crosses); a face's manifold by clipping the other box's most opposed
 * face against the reference face's sides, reduced to four points; an
 * edge pair's by its closest points. */
int pdk_contact_box_box(const pdk_cbody *a, const pdk_cbody *b, double margin_m, pdk_manifold *m);

/* The solve over manifolds m[0..n) of bodies: prepares each point's
 * masses and target (speculative: a gap closes exactly within dt_s;
 * restitution above PDK_CONTACT_BOUNCE_MPS), runs PDK_CONTACT_ITERATIONS
 * passes of sequential impulses with Coulomb friction, then the position
 * correction. Each body's dvel, domega, dpos, impulses and touched hold
 * what changed. */
void pdk_contact_solve(pdk_cbody *bodies, pdk_manifold *m, int n, double dt_s);

#endif
