/* Contact between bodies (docs/adr/0027-contact-between-bodies.md,
 * docs/multiplayer.md "Contact between bodies"): the four-wheel vehicles'
 * chassis hulls (vehicle/hull.h, a box per definition) and kinematic
 * proxies, boxes that a caller moves each tick (a car another machine owns),
 * push each other. pdk_world_step resolves the contacts of the poses the
 * previous tick left before the models step (so each model's step and
 * channels see the velocities the contact left): a broad phase by sweep and
 * prune on x, a box-box narrow phase (separating axes, the manifold by
 * clipping the incident face against the reference face), and sequential
 * impulses with Coulomb friction and restitution, speculative so that a
 * fast car stops at the face it would cross within the tick. Each tick's
 * contacts are readable as events (bounded; counted when full). The world's
 * state hash covers the proxies only once a proxy has been added, so a world
 * without proxies hashes as it always did. */
#ifndef PDK_CONTACT_H
#define PDK_CONTACT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

typedef struct pdk_world pdk_world;

/* A proxy id, as a vehicle id (world.h): low 16 bits slot + 1, high 16
 * bits the slot's generation; zero is null. Proxy ids are their own space:
 * a proxy and a vehicle may have the same number. */
typedef uint32_t pdk_proxy_id;

/* A body's surface for contact: the friction coefficient and restitution a
 * pair combines (pdk_contact_material_combine). */
typedef struct pdk_contact_material {
    double friction;    /* Coulomb coefficient, 0..2 */
    double restitution; /* 0..1: the share of the approach speed given back */
} pdk_contact_material;

/* A car body's steel and plastic panels against another's: friction 0.5,
 * restitution 0.1 (a low-speed bumper returns little of the impact; see
 * docs/multiplayer.md for the sources). Every four-wheel vehicle has it. */
pdk_contact_material pdk_contact_material_car_body(void);

/* The pair's: friction the geometric mean sqrt(f1 f2) (Box2D's and
 * Bullet's rule: a frictionless body makes a frictionless pair), restitution
 * the larger (a bouncy ball bounces off a soft wall). */
pdk_contact_material pdk_contact_material_combine(pdk_contact_material a, pdk_contact_material b);

/* Bounds a proxy's definition and pose keep. */
#define PDK_PROXY_MIN_HALF_EXTENT_M 0.05
#define PDK_PROXY_MAX_HALF_EXTENT_M 50.0
#define PDK_PROXY_MAX_MASS_KG 1.0e6
#define PDK_PROXY_MAX_SPEED_MPS 150.0 /* as PDK_WORLD_MAX_SPAWN_SPEED_MPS */
#define PDK_PROXY_MAX_RATE_RADPS 20.0
#define PDK_PROXY_MAX_FRICTION 2.0

/* A proxy: a box centred on its origin (the pose's point) with the given
 * half extents along its own x (forward), y (left) and z (up), and a mass
 * for the contact response: mass_kg 0 is infinite (moved, never pushed: a
 * wall, or a car whose owner's simulation is the truth), else a body of
 * that mass with the box's inertia (solid, uniform: m (b^2 + c^2) / 3
 * about x for half extents b and c), which the contact pushes within the
 * tick and whose next pose the caller sets again. */
typedef struct pdk_proxy_def {
    double half_extent_m[3]; /* PDK_PROXY_MIN_HALF_EXTENT_M..PDK_PROXY_MAX_HALF_EXTENT_M */
    double mass_kg;          /* 0 (infinite) or 1..PDK_PROXY_MAX_MASS_KG */
    pdk_contact_material material;
} pdk_proxy_def;

/* Where a proxy is at the start of the coming tick and how it moves over
 * it: the step moves it on by its velocities (a proxy set once glides on;
 * zero velocities hold it). World frame, ISO 8855. */
typedef struct pdk_proxy_pose {
    double pos_m[3];       /* the box's centre; |x|, |y|, |z| <= PDK_WORLD_MAX_POSITION_M */
    double quat[4];        /* body to world, w x y z; within 1e-6 of unit length (normalised) */
    double vel_mps[3];     /* world frame, |v| <= PDK_PROXY_MAX_SPEED_MPS */
    double omega_radps[3]; /* world frame, |w| <= PDK_PROXY_MAX_RATE_RADPS */
} pdk_proxy_pose;

/* What the contact did to a proxy in the last tick: the sum of the
 * impulses the bodies it touched gave it (world frame, N s: what its
 * owner's simulation applies to its own car), their moment about its
 * centre (N m s), and how many contact points it had. */
typedef struct pdk_proxy_contact {
    double impulse_ns[3];
    double angular_impulse_nms[3];
    int32_t points;
} pdk_proxy_contact;

/* Adds a proxy at pose, between steps; ids are given out as vehicles' are (the lowest free slot,
 * its generation). A world holds at most max_vehicles proxies. Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_OUT_OF_RANGE (a field out of its
 * bounds; pdk_world_proxy_problem names it), PDK_ERR_CAPACITY (full). */
pdk_error pdk_world_proxy_add(pdk_world *world, const pdk_proxy_def *def,
                              const pdk_proxy_pose *pose, pdk_proxy_id *out_id);

/* Why pdk_world_proxy_add with these arguments fails: a static sentence
 * naming the field and its bound, or NULL when it would succeed. */
const char *pdk_world_proxy_problem(const pdk_world *world, const pdk_proxy_def *def,
                                    const pdk_proxy_pose *pose);

/* Sets a live proxy's pose for the coming tick, between steps. Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_STALE_ID (dead id),
 * PDK_ERR_OUT_OF_RANGE (pdk_world_proxy_pose_problem names the field). */
pdk_error pdk_world_proxy_set_pose(pdk_world *world, pdk_proxy_id id, const pdk_proxy_pose *pose);

/* Why pdk_world_proxy_set_pose with these arguments fails, or NULL. */
const char *pdk_world_proxy_pose_problem(const pdk_world *world, pdk_proxy_id id,
                                         const pdk_proxy_pose *pose);

/* Removes a live proxy (its slot's generation is bumped, so its id goes
 * stale). PDK_ERR_STALE_ID for a dead id, PDK_ERR_INVALID_ARGUMENT for NULL.
 * Nothing else removes a proxy: pdk_world_reset removes the vehicles and
 * leaves the proxies to their owners. */
pdk_error pdk_world_proxy_remove(pdk_world *world, pdk_proxy_id id);

/* Number of live proxies and the i-th one's id in id order (0 when out of
 * range). */
int pdk_world_proxy_count(const pdk_world *world);
pdk_proxy_id pdk_world_proxy_at(const pdk_world *world, int i);

/* A live proxy's definition, pose now and last tick's contact. Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL out), PDK_ERR_STALE_ID (dead id). Any of
 * the outputs may be NULL. */
pdk_error pdk_world_proxy_get(const pdk_world *world, pdk_proxy_id id, pdk_proxy_def *def,
                              pdk_proxy_pose *pose, pdk_proxy_contact *contact);

/* Restores a proxy into a world being restored (snapshot.h: after the
 * head, before pdk_world_restore_end; proxies in ascending id order after
 * the vehicles): at id's slot, with id's generation, its definition and
 * pose as pdk_world_proxy_get gave them. Errors as pdk_world_proxy_add's,
 * and PDK_ERR_OUT_OF_RANGE for an id whose slot is beyond capacity or
 * taken, PDK_ERR_INVALID_ARGUMENT outside a restore. */
pdk_error pdk_world_restore_proxy(pdk_world *world, pdk_proxy_id id, const pdk_proxy_def *def,
                                  const pdk_proxy_pose *pose);

/* The generation of each of the world's proxy slots (max_vehicles of
 * them; n >= max_vehicles, else PDK_ERR_CAPACITY): with each live proxy's
 * pdk_world_proxy_get, what a snapshot keeps of the proxies. */
pdk_error pdk_world_proxy_generations(const pdk_world *world, uint32_t *out, size_t n);

/* A restore's proxy slots' generations, after the head and before any
 * pdk_world_restore_proxy. Errors: PDK_ERR_INVALID_ARGUMENT (NULL, outside
 * a restore, after a proxy), PDK_ERR_OUT_OF_RANGE (n below max_vehicles,
 * a generation above 65535). */
pdk_error pdk_world_restore_proxy_generations(pdk_world *world, const uint32_t *generations,
                                              size_t n);

/* Why pdk_world_restore_proxy with these arguments fails, or NULL. */
const char *pdk_world_restore_proxy_problem(const pdk_world *world, pdk_proxy_id id,
                                            const pdk_proxy_def *def, const pdk_proxy_pose *pose);

/* One contact of the last tick between two bodies: a vehicle (kind 0) or a
 * proxy (kind 1) each, the contact manifold's deepest point, its unit
 * normal from body a to body b, the total normal and friction impulses the
 * tick's solve put through the manifold (N s, on b; a takes the opposite),
 * the fastest normal approach among its points before the solve (m/s,
 * positive closing) and how deep the bodies overlapped. */
enum { PDK_CONTACT_BODY_VEHICLE = 0, PDK_CONTACT_BODY_PROXY = 1 };
typedef struct pdk_contact_event {
    uint32_t a_kind, b_kind;
    uint32_t a_id, b_id; /* pdk_vehicle_id or pdk_proxy_id as the kind says */
    double point_m[3];
    double normal[3];
    double impulse_ns[3];     /* the whole impulse on b, world frame */
    double normal_impulse_ns; /* its part along the normal, >= 0 */
    double approach_mps;
    double depth_m; /* the deepest point's penetration at the tick's start, >= 0 */
    int32_t points; /* the manifold's points, 1..4 */
} pdk_contact_event;

/* The events of the last tick, in pair order (vehicles in id order, then
 * proxies in id order; by a, then b); at most pdk_world_contact_capacity
 * of them. *dropped (if not NULL) takes how many touching manifolds the
 * tick had beyond it (solved, but not reported). Valid until the next
 * step; *count is 0 for a NULL world. */
const pdk_contact_event *pdk_world_contact_events(const pdk_world *world, int *count, int *dropped);

/* The events buffer's size: max(64, max_vehicles). */
int pdk_world_contact_capacity(const pdk_world *world);

/* Pairs of bodies whose bounds overlapped in the last tick but found no
 * room in the pair buffer (8 per vehicle slot) or the manifold buffer (2
 * per vehicle slot, and 16): neither solved nor reported. 0 unless the
 * world is packed far past any car park. */
int pdk_world_contact_missed(const pdk_world *world);

#endif
