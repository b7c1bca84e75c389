/* The world's side of contact between bodies (sim/contact.h): the
 * kinematic proxies (ids, checks, poses, their part of the state hash and
 * of a snapshot), and the tick's contact phase, which gathers every
 * vehicle's and proxy's body, runs the broad phase, the narrow phase and
 * the solve (contact/), hands each body its change and keeps the events.
 * The world's layout is world.c's; world_internal.h holds the arrays. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "math/hash.h"
#include "sim/contact.h"
#include "vehicle/four_wheel_substep.h"
#include "model.h"
#include "world_internal.h"

/* ---- materials ----------------------------------------------------------- */

pdk_contact_material pdk_contact_material_car_body(void)
{
    pdk_contact_material m = {.friction = 0.5, .restitution = 0.1};
    return m;
}

pdk_contact_material pdk_contact_material_combine(pdk_contact_material a, pdk_contact_material b)
{
    pdk_contact_material m;
    m.friction = sqrt(a.friction * b.friction);
    m.restitution = a.restitution > b.restitution ? a.restitution : b.restitution;
    return m;
}

/* ---- proxies ------------------------------------------------------------- */

static int finite_within(double v, double lo, double hi)
{
    return isfinite(v) && v >= lo && v <= hi;
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static const char *def_problem(const pdk_proxy_def *def)
{
    if (def == NULL) {
        return "the proxy definition is NULL";
    }
    for (int j = 0; j < 3; j++) {
        if (!finite_within(def->half_extent_m[j], PDK_PROXY_MIN_HALF_EXTENT_M,
                           PDK_PROXY_MAX_HALF_EXTENT_M)) {
            return "half_extent_m must each be within 0.05..50 m";
        }
    }
    if (!(def->mass_kg == 0.0 || finite_within(def->mass_kg, 1.0, PDK_PROXY_MAX_MASS_KG))) {
        return "mass_kg must be 0 (infinite) or within 1..1e6 kg";
    }
    if (!finite_within(def->material.friction, 0.0, PDK_PROXY_MAX_FRICTION)) {
        return "material.friction must be within 0..2";
    }
    if (!finite_within(def->material.restitution, 0.0, 1.0)) {
        return "material.restitution must be within 0..1";
    }
    return NULL;
}

static const char *pose_problem(const pdk_proxy_pose *pose)
{
    if (pose == NULL) {
        return "the proxy pose is NULL";
    }
    for (int j = 0; j < 3; j++) {
        if (!finite_within(pose->pos_m[j], -PDK_WORLD_MAX_POSITION_M, PDK_WORLD_MAX_POSITION_M)) {
            return "pos_m must be finite, each within +-1e7 m";
        }
    }
    double q2 = 0.0;
    for (int j = 0; j < 4; j++) {
        if (!isfinite(pose->quat[j])) {
            return "quat must be finite";
        }
        q2 += pose->quat[j] * pose->quat[j];
    }
    if (!(fabs(sqrt(q2) - 1.0) <= 1e-6)) {
        return "quat must be of unit length (within 1e-6)";
    }
    if (!(isfinite(norm3(pose->vel_mps)) && norm3(pose->vel_mps) <= PDK_PROXY_MAX_SPEED_MPS)) {
        return "vel_mps must be finite, at most 150 m/s";
    }
    if (!(isfinite(norm3(pose->omega_radps)) &&
          norm3(pose->omega_radps) <= PDK_PROXY_MAX_RATE_RADPS)) {
        return "omega_radps must be finite, at most 20 rad/s";
    }
    return NULL;
}

/* The pose as kept: the quaternion normalised, so that the hull's axes are
 * orthonormal to the last bit the rotation gives. */
static pdk_proxy_pose pose_kept(const pdk_proxy_pose *pose)
{
    pdk_proxy_pose p = *pose;
    double n = sqrt(p.quat[0] * p.quat[0] + p.quat[1] * p.quat[1] + p.quat[2] * p.quat[2] +
                    p.quat[3] * p.quat[3]);
    for (int j = 0; j < 4; j++) {
        p.quat[j] /= n;
    }
    return p;
}

static int32_t proxy_slot_of(const pdk_world *w, pdk_proxy_id id)
{
    if (w == NULL) {
        return -1;
    }
    uint32_t low = id & PDK_WORLD_SLOT_MASK;
    if (low == 0u || low > (uint32_t)w->capacity) {
        return -1;
    }
    const proxy_slot *p = &proxies_of(w)[low - 1u];
    if (!p->alive || p->generation != (id >> 16)) {
        return -1;
    }
    return (int32_t)(low - 1u);
}

const char *pdk_world_proxy_problem(const pdk_world *world, const pdk_proxy_def *def,
                                    const pdk_proxy_pose *pose)
{
    if (world == NULL) {
        return "the world is NULL";
    }
    const char *why = def_problem(def);
    if (why == NULL) {
        why = pose_problem(pose);
    }
    if (why == NULL && world->proxy_count >= world->capacity) {
        why = "the world holds as many proxies as it can (max_vehicles)";
    }
    return why;
}

/* Enters slot (free, of generation as it stands) into the live list. */
static void proxy_enter(pdk_world *w, uint32_t slot, const pdk_proxy_def *def,
                        const pdk_proxy_pose *pose)
{
    proxy_slot *p = &proxies_of(w)[slot];
    p->alive = 1u;
    p->def = *def;
    p->pose = pose_kept(pose);
    memset(&p->contact, 0, sizeof p->contact);
    uint32_t *live = proxy_live_of(w);
    int32_t at = w->proxy_count;
    while (at > 0 && live[at - 1] > slot) {
        live[at] = live[at - 1];
        at--;
    }
    live[at] = slot;
    w->proxy_count++;
    while (w->proxy_first_free < w->capacity && proxies_of(w)[w->proxy_first_free].alive) {
        w->proxy_first_free++;
    }
}

pdk_error pdk_world_proxy_add(pdk_world *world, const pdk_proxy_def *def,
                              const pdk_proxy_pose *pose, pdk_proxy_id *out_id)
{
    if (world == NULL || def == NULL || pose == NULL || out_id == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *out_id = 0u;
    if (def_problem(def) != NULL || pose_problem(pose) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    if (world->proxy_count >= world->capacity) {
        return PDK_ERR_CAPACITY;
    }
    uint32_t slot = (uint32_t)world->proxy_first_free;
    proxy_enter(world, slot, def, pose);
    *out_id = make_id(slot, proxies_of(world)[slot].generation);
    return PDK_OK;
}

const char *pdk_world_proxy_pose_problem(const pdk_world *world, pdk_proxy_id id,
                                         const pdk_proxy_pose *pose)
{
    if (world == NULL) {
        return "the world is NULL";
    }
    if (proxy_slot_of(world, id) < 0) {
        return "the proxy id is not a live proxy's (never given, or removed)";
    }
    return pose_problem(pose);
}

pdk_error pdk_world_proxy_set_pose(pdk_world *world, pdk_proxy_id id, const pdk_proxy_pose *pose)
{
    if (world == NULL || pose == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = proxy_slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    if (pose_problem(pose) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    proxies_of(world)[s].pose = pose_kept(pose);
    return PDK_OK;
}

pdk_error pdk_world_proxy_remove(pdk_world *world, pdk_proxy_id id)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = proxy_slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    proxy_slot *p = &proxies_of(world)[s];
    uint32_t generation = (p->generation + 1u) & PDK_WORLD_SLOT_MASK;
    memset(p, 0, sizeof *p);
    p->generation = generation;
    if (s >= world->proxy_generation_top) {
        world->proxy_generation_top = s + 1;
    }
    if (s < world->proxy_first_free) {
        world->proxy_first_free = s;
    }
    uint32_t *live = proxy_live_of(world);
    int32_t at = 0;
    while (at < world->proxy_count && live[at] != (uint32_t)s) {
        at++;
    }
    PDK_ASSERT(at < world->proxy_count);
    memmove(&live[at], &live[at + 1], sizeof(uint32_t) * (size_t)(world->proxy_count - at - 1));
    world->proxy_count--;
    return PDK_OK;
}

int pdk_world_proxy_count(const pdk_world *world)
{
    return world == NULL ? 0 : world->proxy_count;
}

pdk_proxy_id pdk_world_proxy_at(const pdk_world *world, int i)
{
    if (world == NULL || i < 0 || i >= world->proxy_count) {
        return 0u;
    }
    uint32_t slot = proxy_live_of(world)[i];
    return make_id(slot, proxies_of(world)[slot].generation);
}

pdk_error pdk_world_proxy_get(const pdk_world *world, pdk_proxy_id id, pdk_proxy_def *def,
                              pdk_proxy_pose *pose, pdk_proxy_contact *contact)
{
    if (world == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    int32_t s = proxy_slot_of(world, id);
    if (s < 0) {
        return PDK_ERR_STALE_ID;
    }
    const proxy_slot *p = &proxies_of(world)[s];
    if (def != NULL) {
        *def = p->def;
    }
    if (pose != NULL) {
        *pose = p->pose;
    }
    if (contact != NULL) {
        *contact = p->contact;
    }
    return PDK_OK;
}

pdk_error pdk_world_proxy_generations(const pdk_world *world, uint32_t *out, size_t n)
{
    if (world == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (n < (size_t)world->capacity) {
        return PDK_ERR_CAPACITY;
    }
    for (int32_t s = 0; s < world->capacity; s++) {
        out[s] = proxies_of(world)[s].generation;
    }
    return PDK_OK;
}

const char *pdk_world_restore_proxy_problem(const pdk_world *world, pdk_proxy_id id,
                                            const pdk_proxy_def *def, const pdk_proxy_pose *pose)
{
    if (world == NULL) {
        return "the world is NULL";
    }
    if (world->restore_phase != PDK_RESTORE_VEHICLES) {
        return "a proxy is restored only between pdk_world_restore_head and "
               "pdk_world_restore_end";
    }
    uint32_t low = id & PDK_WORLD_SLOT_MASK;
    if (low == 0u || low > (uint32_t)world->capacity) {
        return "the proxy id's slot is zero or beyond the world's capacity";
    }
    if (proxies_of(world)[low - 1u].alive) {
        return "the proxy id's slot already holds a restored proxy";
    }
    const char *why = def_problem(def);
    return why != NULL ? why : pose_problem(pose);
}

pdk_error pdk_world_restore_proxy(pdk_world *world, pdk_proxy_id id, const pdk_proxy_def *def,
                                  const pdk_proxy_pose *pose)
{
    if (world == NULL || def == NULL || pose == NULL ||
        world->restore_phase != PDK_RESTORE_VEHICLES) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_world_restore_proxy_problem(world, id, def, pose) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    uint32_t slot = (id & PDK_WORLD_SLOT_MASK) - 1u;
    proxy_slot *p = &proxies_of(world)[slot];
    p->generation = id >> 16;
    if ((int32_t)slot >= world->proxy_generation_top && p->generation != 0u) {
        world->proxy_generation_top = (int32_t)slot + 1;
    }
    proxy_enter(world, slot, def, pose);
    /* As kept: a snapshot's pose is already normalised, and normalising
     * it again could move its last bits. */
    proxies_of(world)[slot].pose = *pose;
    world->proxy_first_free = 0;
    while (world->proxy_first_free < world->capacity &&
           proxies_of(world)[world->proxy_first_free].alive) {
        world->proxy_first_free++;
    }
    return PDK_OK;
}

pdk_error pdk_world_restore_proxy_generations(pdk_world *world, const uint32_t *generations,
                                              size_t n)
{
    if (world == NULL || generations == NULL || world->restore_phase != PDK_RESTORE_VEHICLES ||
        world->proxy_count != 0) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (n < (size_t)world->capacity) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    for (int32_t s = 0; s < world->capacity; s++) {
        if (generations[s] > PDK_WORLD_SLOT_MASK) {
            return PDK_ERR_OUT_OF_RANGE;
        }
    }
    for (int32_t s = 0; s < world->capacity; s++) {
        proxies_of(world)[s].generation = generations[s];
        if (generations[s] != 0u) {
            world->proxy_generation_top = s + 1;
        }
    }
    return PDK_OK;
}

/* The proxies' part of the state hash, after the vehicles' and the free
 * slots' generations: nothing while no proxy was ever added (so every
 * world without proxies keeps its hash), else the live proxies in id
 * order (id, definition, pose) and the free proxy slots' generations. */
uint64_t pdk_world_proxy_hash_(const pdk_world *world, uint64_t h)
{
    if (world->proxy_count == 0 && world->proxy_generation_top == 0) {
        return h;
    }
    h = pdk_hash_u64(h, UINT64_C(0x50524f5859) ^ (uint64_t)(uint32_t)world->proxy_count);
    const uint32_t *live = proxy_live_of(world);
    for (int32_t i = 0; i < world->proxy_count; i++) {
        const proxy_slot *p = &proxies_of(world)[live[i]];
        h = pdk_hash_u64(h, make_id(live[i], p->generation));
        for (int j = 0; j < 3; j++) {
            h = pdk_hash_f64(h, p->def.half_extent_m[j]);
        }
        h = pdk_hash_f64(h, p->def.mass_kg);
        h = pdk_hash_f64(h, p->def.material.friction);
        h = pdk_hash_f64(h, p->def.material.restitution);
        for (int j = 0; j < 3; j++) {
            h = pdk_hash_f64(h, p->pose.pos_m[j]);
            h = pdk_hash_f64(h, p->pose.vel_mps[j]);
            h = pdk_hash_f64(h, p->pose.omega_radps[j]);
        }
        for (int j = 0; j < 4; j++) {
            h = pdk_hash_f64(h, p->pose.quat[j]);
        }
    }
    for (int32_t s = 0; s < world->proxy_generation_top; s++) {
        const proxy_slot *p = &proxies_of(world)[s];
        if (!p->alive && p->generation != 0u) {
            h = pdk_hash_u64(h, ((uint64_t)(uint32_t)s << 32) | p->generation);
        }
    }
    return h;
}

/* Moves every proxy on by its velocities over the tick: the position by
 * v dt, the orientation by the rotation w dt (the quaternion's first-order
 * update q + dt/2 (0, w) q, normalised). A proxy whose rate is zero keeps
 * its orientation bit for bit. */
void pdk_world_proxies_move_(pdk_world *world)
{
    const double dt = world->def.dt_s;
    const uint32_t *live = proxy_live_of(world);
    for (int32_t i = 0; i < world->proxy_count; i++) {
        pdk_proxy_pose *p = &proxies_of(world)[live[i]].pose;
        for (int j = 0; j < 3; j++) {
            p->pos_m[j] += p->vel_mps[j] * dt;
        }
        const double *w = p->omega_radps;
        if (w[0] == 0.0 && w[1] == 0.0 && w[2] == 0.0) {
            continue;
        }
        double *q = p->quat;
        const double h = 0.5 * dt;
        double n0 = q[0] + h * (-w[0] * q[1] - w[1] * q[2] - w[2] * q[3]);
        double n1 = q[1] + h * (w[0] * q[0] + w[1] * q[3] - w[2] * q[2]);
        double n2 = q[2] + h * (w[1] * q[0] + w[2] * q[1] - w[0] * q[3]);
        double n3 = q[3] + h * (w[2] * q[0] + w[0] * q[2] - w[1] * q[1]);
        double n = sqrt(n0 * n0 + n1 * n1 + n2 * n2 + n3 * n3);
        q[0] = n0 / n;
        q[1] = n1 / n;
        q[2] = n2 / n;
        q[3] = n3 / n;
    }
}

/* ---- the contact phase ---------------------------------------------------- */

static void rot_rows(const double quat[4], double rot[9])
{
    mat3 rm;
    rotation_of(quat, &rm);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            rot[3 * i + j] = rm.m[i][j];
        }
    }
}

/* R v and R' v for a row-major rot. */
static void rot_mul(const double rot[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = rot[3 * i] * v[0] + rot[3 * i + 1] * v[1] + rot[3 * i + 2] * v[2];
    }
}

static void rot_mul_t(const double rot[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = rot[i] * v[0] + rot[3 + i] * v[1] + rot[6 + i] * v[2];
    }
}

/* 1 when a vehicle's body is all numbers: a state that went infinite or
 * NaN faults in the model's step (the vehicle is held), and until then
 * must not spread to the bodies it would touch. */
static int body_finite(const pdk_cbody *b, const double quat[4])
{
    double sum = quat[0] + quat[1] + quat[2] + quat[3];
    for (int j = 0; j < 3; j++) {
        sum += b->box_m[j] + b->cg_m[j] + b->vel_mps[j] + b->omega_radps[j];
    }
    return isfinite(sum) && isfinite(b->inv_mass_kg);
}

/* Every body that can touch: the four-wheel vehicles in id order, then
 * the proxies in id order. Returns how many. */
static int gather(pdk_world *world)
{
    pdk_cbody *bodies = cbodies_of(world);
    const double dt = world->def.dt_s;
    int n = 0;
    const uint32_t *live = live_of(world);
    enum { AHEAD = 4 }; /* vehicles: a few memory latencies' worth of work */
    for (int32_t i = 0; i < world->count; i++) {
        if (i + AHEAD < world->count) {
            const pdk_model_ops *next = model_of(world, live[i + AHEAD]);
            if (next->contact_prefetch != NULL) {
                next->contact_prefetch(world, live[i + AHEAD]);
            }
        }
        const uint32_t slot = live[i];
        const pdk_model_ops *ops = model_of(world, slot);
        if (ops->contact_body == NULL) {
            continue;
        }
        pdk_cbody *b = &bodies[n];
        double quat[4], inv_i[3];
        if (!ops->contact_body(world, slot, b, quat, inv_i) || !body_finite(b, quat)) {
            continue; /* a vehicle the step is about to fault: it touches nothing */
        }
        rot_rows(quat, b->rot);
        double off[3], w_body[3];
        rot_mul(b->rot, b->box_m, off);
        for (int j = 0; j < 3; j++) {
            b->box_m[j] = b->cg_m[j] + off[j];
            w_body[j] = b->omega_radps[j];
        }
        rot_mul(b->rot, w_body, b->omega_radps);
        b->material = step_def_of(world, slot)->contact;
        b->kind = PDK_CONTACT_BODY_VEHICLE;
        b->slot = slot;
        b->id = make_id(slot, meta_of(world)[slot].generation);
        pdk_cbody_prepare(b, inv_i, dt);
        n++;
    }
    const uint32_t *plive = proxy_live_of(world);
    for (int32_t i = 0; i < world->proxy_count; i++) {
        const uint32_t slot = plive[i];
        const proxy_slot *p = &proxies_of(world)[slot];
        pdk_cbody *b = &bodies[n];
        for (int j = 0; j < 3; j++) {
            b->box_m[j] = p->pose.pos_m[j];
            b->cg_m[j] = p->pose.pos_m[j];
            b->half_m[j] = p->def.half_extent_m[j];
            b->vel_mps[j] = p->pose.vel_mps[j];
            b->omega_radps[j] = p->pose.omega_radps[j];
        }
        rot_rows(p->pose.quat, b->rot);
        double inv_i[3] = {0.0, 0.0, 0.0};
        b->inv_mass_kg = 0.0;
        if (p->def.mass_kg > 0.0) {
            /* A solid uniform box: I_x = m (b^2 + c^2) / 3 for half
             * extents b, c across x, and so on. */
            const double *e = p->def.half_extent_m;
            b->inv_mass_kg = 1.0 / p->def.mass_kg;
            inv_i[0] = 3.0 / (p->def.mass_kg * (e[1] * e[1] + e[2] * e[2]));
            inv_i[1] = 3.0 / (p->def.mass_kg * (e[0] * e[0] + e[2] * e[2]));
            inv_i[2] = 3.0 / (p->def.mass_kg * (e[0] * e[0] + e[1] * e[1]));
        }
        b->material = p->def.material;
        b->kind = PDK_CONTACT_BODY_PROXY;
        b->slot = slot;
        b->id = make_id(slot, p->generation);
        pdk_cbody_prepare(b, inv_i, dt);
        n++;
    }
    return n;
}

/* The manifold's event: its deepest point, its normal, the impulse the
 * solve put through it on b, the fastest approach among its points. */
static void event_of(const pdk_cbody *bodies, const pdk_manifold *m, pdk_contact_event *e)
{
    memset(e, 0, sizeof *e);
    const pdk_cbody *a = &bodies[m->a], *b = &bodies[m->b];
    e->a_kind = a->kind;
    e->b_kind = b->kind;
    e->a_id = a->id;
    e->b_id = b->id;
    int deepest = 0;
    for (int k = 0; k < m->n; k++) {
        const pdk_cpoint *p = &m->p[k];
        if (p->sep_m < m->p[deepest].sep_m) {
            deepest = k;
        }
        e->normal_impulse_ns += p->jn_ns;
        for (int j = 0; j < 3; j++) {
            e->impulse_ns[j] += p->jn_ns * m->normal[j] + p->jt_ns[0] * m->tangent[0][j] +
                                p->jt_ns[1] * m->tangent[1][j];
        }
        if (p->approach_mps > e->approach_mps) {
            e->approach_mps = p->approach_mps;
        }
    }
    for (int j = 0; j < 3; j++) {
        e->point_m[j] = m->p[deepest].point_m[j];
        e->normal[j] = m->normal[j];
    }
    e->depth_m = m->p[deepest].sep_m < 0.0 ? -m->p[deepest].sep_m : 0.0;
    e->points = m->n;
}

/* A manifold touches when a point is in contact or the solve pushed
 * through it (a speculative one that only slowed an approach counts: the
 * bodies met within the tick). */
static int manifold_touches(const pdk_manifold *m)
{
    for (int k = 0; k < m->n; k++) {
        if (m->p[k].sep_m <= 0.0 || m->p[k].jn_ns > 0.0) {
            return 1;
        }
    }
    return 0;
}

/* How far apart a pair's boxes may be and still meet within the tick: the
 * margin, their relative travel, and what their turning sweeps (a box's
 * half diagonal times its rate). */
static double pair_margin(const pdk_cbody *a, const pdk_cbody *b, double dt_s)
{
    const double dv[3] = {b->vel_mps[0] - a->vel_mps[0], b->vel_mps[1] - a->vel_mps[1],
                          b->vel_mps[2] - a->vel_mps[2]};
    return PDK_CONTACT_MARGIN_M + dt_s * (norm3(dv) + norm3(a->omega_radps) * norm3(a->half_m) +
                                          norm3(b->omega_radps) * norm3(b->half_m));
}

void pdk_world_contact_phase_(pdk_world *world)
{
    world->n_events = 0;
    world->n_events_dropped = 0;
    world->n_pairs_missed = 0;
    pdk_contact_sum *sums = csum_of(world);
    const uint32_t *live = live_of(world);
    for (int32_t i = 0; i < world->count; i++) {
        sums[live[i]].impulse_ns = 0.0;
        sums[live[i]].count = 0.0;
    }
    const uint32_t *plive = proxy_live_of(world);
    for (int32_t i = 0; i < world->proxy_count; i++) {
        memset(&proxies_of(world)[plive[i]].contact, 0, sizeof(pdk_proxy_contact));
    }
    if (world->count + world->proxy_count < 2) {
        return;
    }
    pdk_cbody *bodies = cbodies_of(world);
    const int n = gather(world);
    if (n < 2) {
        return;
    }
    uint64_t *pairs = pairs_of(world);
    int missed = 0;
    int axis = world->sap_count == n ? world->sap_axis : -1;
    const int np =
        pdk_contact_broad(bodies, n, sap_of(world), &axis, pairs, world->cap_pairs, &missed);
    world->sap_count = n;
    world->sap_axis = axis;
    pdk_manifold *ms = manifolds_of(world);
    int nm = 0;
    for (int i = 0; i < np; i++) {
        const uint32_t a = (uint32_t)(pairs[i] >> 32), b = (uint32_t)pairs[i];
        if (bodies[a].inv_mass_kg == 0.0 && bodies[b].inv_mass_kg == 0.0) {
            continue; /* two bodies neither of which the contact moves */
        }
        if (nm == world->cap_manifolds) {
            missed++;
            continue;
        }
        pdk_manifold *m = &ms[nm];
        if (pdk_contact_box_box(&bodies[a], &bodies[b],
                                pair_margin(&bodies[a], &bodies[b], world->def.dt_s), m)) {
            m->a = a;
            m->b = b;
            pdk_contact_material mat =
                pdk_contact_material_combine(bodies[a].material, bodies[b].material);
            m->friction = mat.friction;
            m->restitution = mat.restitution;
            nm++;
        }
    }
    world->n_pairs_missed = missed;
    if (nm == 0) {
        return;
    }
    pdk_contact_solve(bodies, ms, nm, world->def.dt_s);

    /* Each touched body takes its change: a vehicle through its model, a
     * proxy of finite mass into its pose (its owner sets the next). */
    for (int i = 0; i < n; i++) {
        pdk_cbody *b = &bodies[i];
        if (!b->touched) {
            continue;
        }
        if (b->kind == PDK_CONTACT_BODY_VEHICLE) {
            double dw_body[3];
            rot_mul_t(b->rot, b->domega_radps, dw_body);
            model_of(world, b->slot)->contact_push(world, b->slot, b->dvel_mps, dw_body, b->dpos_m);
            pdk_contact_sum *s = &sums[b->slot];
            s->impulse_ns = norm3(b->impulse_ns);
        } else {
            proxy_slot *p = &proxies_of(world)[b->slot];
            if (b->inv_mass_kg > 0.0) {
                for (int j = 0; j < 3; j++) {
                    p->pose.vel_mps[j] += b->dvel_mps[j];
                    p->pose.omega_radps[j] += b->domega_radps[j];
                    p->pose.pos_m[j] += b->dpos_m[j];
                }
            }
            for (int j = 0; j < 3; j++) {
                p->contact.impulse_ns[j] = b->impulse_ns[j];
                p->contact.angular_impulse_nms[j] = b->angular_impulse_nms[j];
            }
            p->contact.points = b->points;
        }
    }
    pdk_contact_event *events = events_of(world);
    for (int i = 0; i < nm; i++) {
        const pdk_manifold *m = &ms[i];
        if (!manifold_touches(m)) {
            continue;
        }
        for (int k = 0; k < 2; k++) {
            const pdk_cbody *b = &bodies[k == 0 ? m->a : m->b];
            if (b->kind == PDK_CONTACT_BODY_VEHICLE) {
                sums[b->slot].count += 1.0;
            }
        }
        if (world->n_events < world->cap_events) {
            event_of(bodies, m, &events[world->n_events++]);
        } else {
            world->n_events_dropped++;
        }
    }
}

/* The contact channels of every live vehicle, after the models wrote the
 * rest of theirs. */
void pdk_world_contact_channels_(pdk_world *world)
{
    const pdk_contact_sum *sums = csum_of(world);
    const uint32_t *live = live_of(world);
    for (int32_t i = 0; i < world->count; i++) {
        double *ch = channels_of(world, live[i]);
        ch[PDK_CH_CONTACT_IMPULSE] = sums[live[i]].impulse_ns;
        ch[PDK_CH_CONTACT_COUNT] = sums[live[i]].count;
    }
}

const pdk_contact_event *pdk_world_contact_events(const pdk_world *world, int *count, int *dropped)
{
    if (count != NULL) {
        *count = world == NULL ? 0 : world->n_events;
    }
    if (dropped != NULL) {
        *dropped = world == NULL ? 0 : world->n_events_dropped;
    }
    return world == NULL ? NULL : events_of(world);
}

int pdk_world_contact_capacity(const pdk_world *world)
{
    return world == NULL ? 0 : world->cap_events;
}

int pdk_world_contact_missed(const pdk_world *world)
{
    return world == NULL ? 0 : world->n_pairs_missed;
}
