/* Contact between bodies (server/sim/include/sim/contact.h, ADR 0027): the
 * box-box narrow phase against shapes whose answer is known, the solve's
 * conservation of momentum and its energy, and cars and proxies in a world:
 * head-on and side impacts at 50 km/h, a 250 km/h car into a stopped car
 * and into a proxy wall, a car parked against another on the hill world's
 * 30 % lane, an infinite-mass proxy pushing a free-rolling car, events and
 * channels, determinism and snapshots, and every error path of the proxy
 * API. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "math/prng.h"
#include "params.h"
#include "vehicle/four_wheel.h"
#include "world_internal.h"
#include "sim/channels.h"
#include "sim/contact.h"
#include "sim/snapshot.h"
#include "sim/world.h"

#define PRESETS PDK_SOURCE_DIR "/presets"
#define PI 3.14159265358979323846
#define TICKS_PER_S 120
#define KMH (1.0 / 3.6)

/* ---- helpers ------------------------------------------------------------- */

typedef struct rig {
    pdk_world_def wd;
    pdk_vehicle_def def;
    pdk_world *w;
} rig;

/* The world preset with room for max_vehicles, and the preset car. */
static void rig_open_on(rig *r, const char *world, const char *preset, int max_vehicles,
                        double friction)
{
    memset(r, 0, sizeof *r);
    char err[PDK_PARAMS_ERR_LEN];
    ck_assert_msg(pdk_params_world_load(PRESETS, world, NULL, &r->wd, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s: %s", world, err);
    r->wd.max_vehicles = max_vehicles;
    if (friction >= 0.0) {
        r->wd.surface_friction = friction;
    }
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, preset, NULL, &r->def, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s: %s", preset, err);
    size_t bytes = (pdk_world_mem_size(&r->wd) + 63u) / 64u * 64u;
    void *mem = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(pdk_world_init(mem, bytes, &r->wd, &r->w), PDK_OK);
}

static void rig_open(rig *r, const char *world, const char *preset, int max_vehicles)
{
    rig_open_on(r, world, preset, max_vehicles, -1.0);
}

/* Ice: the tyres' grip (an outside force on the two cars, which holds a
 * car struck from the side and spins up a pushed car's wheels) nearly
 * gone, so that the cars' momentum measures the contact alone. */
#define ICE 0.02

static void rig_close(rig *r)
{
    free(r->w); /* the world starts at its memory */
}

/* A car at x, y, yaw, at speed, in neutral with no brake: it rolls free. */
static pdk_vehicle_id rolling(rig *r, double x, double y, double yaw, double speed)
{
    pdk_pose pose = {x, y, yaw};
    pdk_vehicle_id id = 0;
    ck_assert_int_eq(pdk_world_spawn(r->w, &r->def, &pose, speed, PDK_GEAR_NEUTRAL, &id), PDK_OK);
    pdk_dbw_cmd cmd = {
        .fields = PDK_DBW_BRAKE | PDK_DBW_GEAR, .brake_bar = 0.0, .gear = PDK_GEAR_NEUTRAL};
    ck_assert_int_eq(pdk_world_command(r->w, id, &cmd), PDK_OK);
    return id;
}

/* A car's world velocity (x, y) and kinetic energy, translation and
 * rotation, read from its four-wheel state (the CG's velocity is kept in
 * the world frame, the rates in the body's principal axes). */
static void car_motion(const rig *r, pdk_vehicle_id id, double v[2], double *ke_j)
{
    const uint32_t slot = (id & 0xFFFFu) - 1u;
    const pdk_fw_state *st =
        &((const pdk_fw_state *)pdk_world_model_array_(r->w, PDK_MODEL_FOUR_WHEEL, 0))[slot];
    const pdk_chassis_def *c = &r->def.chassis;
    v[0] = st->vel_mps[0];
    v[1] = st->vel_mps[1];
    const double *w = st->omega_radps;
    *ke_j = 0.5 * c->mass_kg *
                (st->vel_mps[0] * st->vel_mps[0] + st->vel_mps[1] * st->vel_mps[1] +
                 st->vel_mps[2] * st->vel_mps[2]) +
            0.5 * (c->roll_inertia_kgm2 * w[0] * w[0] + c->pitch_inertia_kgm2 * w[1] * w[1] +
                   c->yaw_inertia_kgm2 * w[2] * w[2]);
}

/* The car's hull (vehicle/hull.h) along x from its CG: rear (negative)
 * and front, from its four-wheel constants (corners 0 and 7). */
static double hull_x(const rig *r, pdk_vehicle_id id, int front)
{
    const uint32_t slot = (id & 0xFFFFu) - 1u;
    const pdk_fw_consts *c =
        &((const pdk_fw_consts *)pdk_world_model_array_(r->w, PDK_MODEL_FOUR_WHEEL, 2))[slot];
    return c->hull_pts_m[front ? 3 * 7 : 0];
}

static pdk_proxy_def proxy_def(double hx, double hy, double hz, double mass_kg)
{
    pdk_proxy_def d = {.half_extent_m = {hx, hy, hz},
                       .mass_kg = mass_kg,
                       .material = pdk_contact_material_car_body()};
    return d;
}

static pdk_proxy_pose proxy_pose(double x, double y, double z, double vx)
{
    pdk_proxy_pose p = {.pos_m = {x, y, z}, .quat = {1.0, 0.0, 0.0, 0.0}, .vel_mps = {vx, 0, 0}};
    return p;
}

static double car_x(const rig *r, pdk_vehicle_id id)
{
    pdk_vehicle_pose p;
    ck_assert_int_eq(pdk_world_vehicle_pose(r->w, id, &p), PDK_OK);
    return p.x_m;
}

/* ---- the narrow phase ---------------------------------------------------- */

static pdk_cbody box_at(double x, double y, double z, double yaw, double hx, double hy, double hz)
{
    pdk_cbody b;
    memset(&b, 0, sizeof b);
    const double c = cos(yaw), s = sin(yaw);
    const double rot[9] = {c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0};
    memcpy(b.rot, rot, sizeof rot);
    b.box_m[0] = b.cg_m[0] = x;
    b.box_m[1] = b.cg_m[1] = y;
    b.box_m[2] = b.cg_m[2] = z;
    b.half_m[0] = hx;
    b.half_m[1] = hy;
    b.half_m[2] = hz;
    b.inv_mass_kg = 1.0 / 1500.0;
    const double inv_i[3] = {1.0 / 500.0, 1.0 / 2500.0, 1.0 / 2700.0};
    pdk_cbody_prepare(&b, inv_i, 1.0 / 120.0);
    return b;
}

/* Two equal boxes side by side along x, overlapping by 0.1 m, one offset
 * 0.5 m in y: a face contact, normal +x, four points at depth 0.1 m whose
 * y span is the overlap of the faces (-0.5..0.5 clipped to -0.5..1.0 less
 * 0.5: from -0.5 to 0.5 +- 1 m). */
START_TEST(test_box_box_face_overlap)
{
    pdk_cbody a = box_at(0.0, 0.0, 0.5, 0.0, 2.0, 1.0, 0.5);
    pdk_cbody b = box_at(3.9, 0.5, 0.5, 0.0, 2.0, 1.0, 0.5);
    pdk_manifold m;
    ck_assert_int_eq(pdk_contact_box_box(&a, &b, PDK_CONTACT_MARGIN_M, &m), 1);
    ck_assert_int_eq(m.n, 4);
    ck_assert_double_eq_tol(m.normal[0], 1.0, 1e-12);
    double ylo = INFINITY, yhi = -INFINITY;
    for (int k = 0; k < m.n; k++) {
        ck_assert_double_eq_tol(m.p[k].sep_m, -0.1, 1e-12);
        ck_assert_double_eq_tol(m.p[k].point_m[0], 1.95, 1e-12); /* midway between the faces */
        ylo = fmin(ylo, m.p[k].point_m[1]);
        yhi = fmax(yhi, m.p[k].point_m[1]);
    }
    ck_assert_double_eq_tol(ylo, -0.5, 1e-12);
    ck_assert_double_eq_tol(yhi, 1.0, 1e-12);
    /* The same boxes 0.1 m apart are beyond the margin: no contact; within
     * it a speculative contact of gap 0.01 m. */
    b = box_at(4.1, 0.5, 0.5, 0.0, 2.0, 1.0, 0.5);
    ck_assert_int_eq(pdk_contact_box_box(&a, &b, PDK_CONTACT_MARGIN_M, &m), 0);
    b = box_at(4.01, 0.5, 0.5, 0.0, 2.0, 1.0, 0.5);
    ck_assert_int_eq(pdk_contact_box_box(&a, &b, PDK_CONTACT_MARGIN_M, &m), 1);
    ck_assert_double_eq_tol(m.p[0].sep_m, 0.01, 1e-12);
}
END_TEST

/* A box turned 45 degrees about z pushes its vertical edge 0.05 m into
 * the other's face: the face is the reference (normal -x from b to a, so
 * +x... a is the turned one here), and the points lie on the edge. */
START_TEST(test_box_box_corner_into_face)
{
    const double h = 1.0;
    const double reach = h * sqrt(2.0);
    pdk_cbody a = box_at(0.0, 0.0, 0.5, PI / 4.0, h, h, 0.5);
    pdk_cbody b = box_at(reach + 2.0 - 0.05, 0.0, 0.5, 0.0, 2.0, 2.0, 0.5);
    pdk_manifold m;
    ck_assert_int_eq(pdk_contact_box_box(&a, &b, PDK_CONTACT_MARGIN_M, &m), 1);
    ck_assert_double_eq_tol(m.normal[0], 1.0, 1e-9);
    ck_assert_int_ge(m.n, 1);
    for (int k = 0; k < m.n; k++) {
        ck_assert_double_eq_tol(m.p[k].sep_m, -0.05, 1e-9);
        ck_assert_double_eq_tol(m.p[k].point_m[1], 0.0, 1e-9);
    }
}
END_TEST

/* ---- the solve ------------------------------------------------------------ */

/* Bounds for the broad phase: body i a box of 4.5 x 1.8 x 1.5 m about a
 * pseudo-random point of a strip long along one axis (along, 0 x or 1 y),
 * so that some overlap. */
static void strip_bodies(pdk_cbody *b, int n, int along, double jitter_m, uint64_t seed)
{
    pdk_prng prng;
    pdk_prng_seed(&prng, seed);
    for (int i = 0; i < n; i++) {
        const double u = pdk_prng_unit(&prng);
        const double v = pdk_prng_unit(&prng);
        double c[3] = {0.0, 0.0, 0.75};
        c[along] = 3000.0 * u + jitter_m;
        c[1 - along] = 25.0 * v - jitter_m;
        const double half[3] = {2.25, 0.9, 0.75};
        memset(&b[i], 0, sizeof b[i]);
        for (int k = 0; k < 3; k++) {
            b[i].lo_m[k] = c[k] - half[k];
            b[i].hi_m[k] = c[k] + half[k];
        }
    }
}

/* Every overlapping pair, the long way, sorted as the broad phase's. */
static int brute_pairs(const pdk_cbody *b, int n, uint64_t *out)
{
    int np = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            int apart = 0;
            for (int k = 0; k < 3; k++) {
                apart |= b[j].lo_m[k] > b[i].hi_m[k] || b[i].lo_m[k] > b[j].hi_m[k];
            }
            if (!apart) {
                out[np++] = ((uint64_t)i << 32) | (uint64_t)j;
            }
        }
    }
    return np; /* i then j ascending: already sorted */
}

/* The broad phase sweeps along the axis the bodies spread over more (a
 * strip along y: y), and finds exactly the pairs that overlap, from no
 * order, from the last tick's order after the bodies moved, and when the
 * strip turns to lie along x (the axis changes under a stale order). */
START_TEST(test_broad_phase_sweeps_the_long_axis)
{
    enum { N = 400, CAP = 8 * N };
    static pdk_cbody bodies[N];
    static uint32_t order[N];
    static uint64_t pairs[CAP], want[N * N / 2];
    int axis = -1, missed = -1;
    const struct {
        int along;
        double jitter_m;
    } steps[] = {{1, 0.0}, {1, 0.4}, {1, 0.8}, {0, 0.8}, {0, 0.0}};
    for (size_t t = 0; t < sizeof steps / sizeof steps[0]; t++) {
        strip_bodies(bodies, N, steps[t].along, steps[t].jitter_m, 99u);
        const int np = pdk_contact_broad(bodies, N, order, &axis, pairs, CAP, &missed);
        const int nw = brute_pairs(bodies, N, want);
        ck_assert_int_eq(axis, steps[t].along);
        ck_assert_int_eq(missed, 0);
        ck_assert_int_gt(nw, 10);
        ck_assert_int_eq(np, nw);
        ck_assert_mem_eq(pairs, want, sizeof(uint64_t) * (size_t)nw);
    }
}
END_TEST

/* Two 1500 kg boxes meet head-on, each at 50 km/h, touching: the solve
 * keeps the momentum (to rounding) and leaves them parting at e times 100
 * km/h (to 0.1 %) for restitution 0.1, 0.9 and 1; none gains energy (e = 1
 * keeps it to the solve's tolerance). Off-centre by 0.4 m, so that the
 * impact spins them and friction acts, the same but the parting speed. */
START_TEST(test_solve_head_on_conserves)
{
    for (int off = 0; off < 2; off++) {
        for (int e = 0; e < 3; e++) {
            static const double restitution[3] = {0.1, 0.9, 1.0};
            pdk_cbody bodies[2];
            bodies[0] = box_at(0.0, 0.0, 0.5, 0.0, 2.3, 0.9, 0.7);
            bodies[1] = box_at(4.6, off ? 0.4 : 0.0, 0.5, 0.0, 2.3, 0.9, 0.7);
            bodies[0].vel_mps[0] = 50.0 * KMH;
            bodies[1].vel_mps[0] = -50.0 * KMH;
            const double inv_i[3] = {1.0 / 500.0, 1.0 / 2500.0, 1.0 / 2700.0};
            pdk_cbody_prepare(&bodies[0], inv_i, 1.0 / 120.0);
            pdk_cbody_prepare(&bodies[1], inv_i, 1.0 / 120.0);
            pdk_manifold m;
            ck_assert_int_eq(pdk_contact_box_box(&bodies[0], &bodies[1], 0.5, &m), 1);
            m.a = 0;
            m.b = 1;
            m.friction = 0.5;
            m.restitution = restitution[e];
            double ke0 = 0.0;
            for (int i = 0; i < 2; i++) {
                ke0 += 0.5 * 1500.0 * bodies[i].vel_mps[0] * bodies[i].vel_mps[0];
            }
            pdk_contact_solve(bodies, &m, 1, 1.0 / 120.0);
            double p[3] = {0, 0, 0}, ke1 = 0.0;
            for (int i = 0; i < 2; i++) {
                const pdk_cbody *b = &bodies[i];
                for (int j = 0; j < 3; j++) {
                    p[j] += 1500.0 * b->vel_mps[j];
                    ke1 += 0.5 * 1500.0 * b->vel_mps[j] * b->vel_mps[j];
                }
                const double iw[3] = {500.0, 2500.0, 2700.0};
                for (int j = 0; j < 3; j++) {
                    ke1 += 0.5 * iw[j] * b->omega_radps[j] * b->omega_radps[j];
                }
            }
            const double p0 = 1500.0 * 50.0 * KMH;
            for (int j = 0; j < 3; j++) {
                ck_assert_double_le(fabs(p[j]), 1e-9 * p0);
            }
            /* e < 1 loses energy; e = 1 keeps it to the solve's
             * tolerance (the stop solved to some 1e-6 of its impulse). */
            if (e == 2) {
                ck_assert_double_le(ke1, ke0 * (1.0 + 1e-5));
                ck_assert_double_ge(ke1, ke0 * (1.0 - 1e-3));
            } else {
                ck_assert_double_lt(ke1, ke0);
            }
            if (!off) {
                const double parting = bodies[1].vel_mps[0] - bodies[0].vel_mps[0];
                const double want = restitution[e] * 100.0 * KMH;
                ck_assert_double_eq_tol(parting, want, 1e-3 * want);
            }
        }
    }
}
END_TEST

/* ---- cars in a world --------------------------------------------------------- */

/* Momentum and energy over an impact in the world: the two cars' total
 * momentum the tick before they touch and once the impact's impulse has
 * passed agrees within 0.1 % of one car's, and their kinetic energy does not
 * grow. Head-on, both come at 50 km/h on tarmac, rolling free in neutral
 * (the tyres' rolling resistance and the air are the outside forces, a
 * few N s over those ticks). side: b is turned 90 degrees and stands
 * still, a hits its side at 50 km/h, on ice (on tarmac b's tyres hold it
 * sideways with up to its weight, 15 kN, 125 N s a tick: 0.6 % a tick). */
static void impact(int side)
{
    rig r;
    rig_open_on(&r, "flat", "midsize_sedan", 4, side ? ICE : -1.0);
    const double gap = 1.0;
    const double len = r.def.chassis.wheelbase_m; /* shorter than the body */
    pdk_vehicle_id a, b;
    if (side) {
        a = rolling(&r, 0.0, 0.0, 0.0, 50.0 * KMH);
        b = rolling(&r, len + 3.0, 0.0, PI / 2.0, 0.0);
    } else {
        a = rolling(&r, 0.0, 0.0, 0.0, 50.0 * KMH);
        b = rolling(&r, 2.0 * len + gap + 1.5, 0.0, PI, 50.0 * KMH);
    }
    double va[2], vb[2], ke_a, ke_b;
    double before[2] = {0, 0}, ke_before = 0.0, peak = 0.0;
    int first = -1;
    const double m = r.def.chassis.mass_kg;
    for (int k = 0; k < 3 * TICKS_PER_S; k++) {
        car_motion(&r, a, va, &ke_a);
        car_motion(&r, b, vb, &ke_b);
        pdk_world_step(r.w);
        int n = 0;
        const pdk_contact_event *ev = pdk_world_contact_events(r.w, &n, NULL);
        const double j = n > 0 ? hypot(ev[0].impulse_ns[0], ev[0].impulse_ns[1]) : 0.0;
        if (n > 0 && first < 0) {
            first = k;
            before[0] = m * (va[0] + vb[0]);
            before[1] = m * (va[1] + vb[1]);
            ke_before = ke_a + ke_b;
            peak = j;
        }
        peak = fmax(peak, j);
        /* The impact is over once a tick's impulse is below 1 % of its
         * peak: what follows is the two cars pressing on at about the same
         * speed, with the ground's forces on both. */
        if (first >= 0 && j < 0.01 * peak) {
            break;
        }
    }
    ck_assert_msg(first >= 0, "the cars never touched");
    car_motion(&r, a, va, &ke_a);
    car_motion(&r, b, vb, &ke_b);
    const double after[2] = {m * (va[0] + vb[0]), m * (va[1] + vb[1])};
    const double scale = m * 50.0 * KMH;
    const double dp = hypot(after[0] - before[0], after[1] - before[1]);
    ck_assert_msg(dp <= 1e-3 * scale, "%s: momentum changed by %.3f N s of %.0f (%.4f %%)",
                  side ? "side" : "head-on", dp, scale, 100.0 * dp / scale);
    ck_assert_msg(ke_a + ke_b <= ke_before, "%s: kinetic energy grew from %.1f J to %.1f J",
                  side ? "side" : "head-on", ke_before, ke_a + ke_b);
    /* They really met: a is slowed by most of its speed. */
    ck_assert_double_lt(va[0], 0.5 * 50.0 * KMH);
    rig_close(&r);
}

START_TEST(test_head_on_50_kmh_conserves_momentum)
{
    impact(0);
}
END_TEST

START_TEST(test_side_impact_50_kmh_conserves_momentum)
{
    impact(1);
}
END_TEST

/* A car at 250 km/h at a stopped car 30 m ahead, and at a wall (an
 * infinite-mass proxy 0.5 m thick): the bodies never overlap by more than
 * 5 cm, however far the car travels in a tick (0.58 m), and its front
 * never passes the wall's face or the other car's rear by more than that. */
START_TEST(test_250_kmh_does_not_tunnel)
{
    for (int wall = 0; wall < 2; wall++) {
        rig r;
        rig_open(&r, "flat", "midsize_sedan", 4);
        pdk_vehicle_id a = rolling(&r, 0.0, 0.0, 0.0, 250.0 * KMH);
        const double target_x = 30.0;
        pdk_vehicle_id b = 0;
        pdk_proxy_id wall_id = 0;
        if (wall) {
            pdk_proxy_def d = proxy_def(0.25, 5.0, 1.5, 0.0);
            pdk_proxy_pose p = proxy_pose(target_x, 0.0, 1.0, 0.0);
            ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &wall_id), PDK_OK);
        } else {
            b = rolling(&r, target_x, 0.0, 0.0, 0.0);
        }
        double deepest = 0.0, worst = -INFINITY;
        int met = 0;
        for (int k = 0; k < 2 * TICKS_PER_S; k++) {
            pdk_world_step(r.w);
            ck_assert_int_eq(pdk_world_vehicle_faulted(r.w, a), 0);
            int n = 0;
            const pdk_contact_event *ev = pdk_world_contact_events(r.w, &n, NULL);
            for (int i = 0; i < n; i++) {
                deepest = fmax(deepest, ev[i].depth_m);
                met = 1;
            }
            /* a's front stays behind the wall's face or the other's rear
             * (b is struck square and stays nearly square). */
            const double face = wall ? target_x - 0.25 : car_x(&r, b) + hull_x(&r, b, 0);
            worst = fmax(worst, car_x(&r, a) + hull_x(&r, a, 1) - face);
        }
        ck_assert_int_eq(met, 1);
        ck_assert_msg(deepest < 0.05, "%s: the bodies overlapped by %.3f m", wall ? "wall" : "car",
                      deepest);
        ck_assert_msg(worst < 0.05, "%s: a's front passed the face by %.3f m",
                      wall ? "wall" : "car", worst);
        rig_close(&r);
    }
}
END_TEST

/* A car parked in P with its brake on, nose down on the hill world's 30 %
 * lane, and a car above it that rolls into it in neutral and is then
 * braked, resting against it: once settled, over 60 s both move less than
 * 1 mm (they stand still to the micrometre: no jitter, no creep), and they
 * still touch. */
START_TEST(test_parked_against_car_on_30_pct_stays)
{
    rig r;
    rig_open(&r, "hill", "midsize_sedan", 4);
    const pdk_pose lo = {25.5, 20.0, PI};
    pdk_vehicle_id ids[2];
    ck_assert_int_eq(pdk_world_spawn(r.w, &r.def, &lo, 0.0, PDK_GEAR_PARK, &ids[0]), PDK_OK);
    /* The upper car 4.8 m further up: its front bumper a few cm from the
     * lower's rear (the hull is about 4.7 m long), so it rolls into it
     * while the brake comes on. */
    const pdk_pose hi = {25.5 + 4.85, 20.0, PI};
    ck_assert_int_eq(pdk_world_spawn(r.w, &r.def, &hi, 0.0, PDK_GEAR_NEUTRAL, &ids[1]), PDK_OK);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_BRAKE, .brake_bar = 40.0};
    ck_assert_int_eq(pdk_world_command(r.w, ids[0], &cmd), PDK_OK);
    for (int k = 0; k < 5 * TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    ck_assert_int_eq(pdk_world_command(r.w, ids[1], &cmd), PDK_OK);
    /* The pair settles in some 10 s (the struts and the tyres' bristles
     * taking up the upper car's weight along the slope through the lower
     * car: about 1 mm), then stands. */
    for (int k = 0; k < 15 * TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    ck_assert_double_gt(pdk_world_channels(r.w, ids[1])[PDK_CH_CONTACT_COUNT], 0.0);
    double p0[2][3];
    for (int i = 0; i < 2; i++) {
        memcpy(p0[i], &pdk_world_channels(r.w, ids[i])[PDK_CH_POS_X], sizeof p0[i]);
    }
    for (int k = 0; k < 60 * TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    for (int i = 0; i < 2; i++) {
        const double *p1 = &pdk_world_channels(r.w, ids[i])[PDK_CH_POS_X];
        const double moved =
            sqrt((p1[0] - p0[i][0]) * (p1[0] - p0[i][0]) + (p1[1] - p0[i][1]) * (p1[1] - p0[i][1]) +
                 (p1[2] - p0[i][2]) * (p1[2] - p0[i][2]));
        ck_assert_msg(moved < 1e-3, "car %d moved %.3f mm in 60 s", i, moved * 1e3);
    }
    ck_assert_double_gt(pdk_world_channels(r.w, ids[1])[PDK_CH_CONTACT_COUNT], 0.0);
    rig_close(&r);
}
END_TEST

/* An infinite-mass proxy at 2 m/s meets a free-rolling car at rest, on
 * ice (on tarmac the wheels' spin-up takes some 3 % of the impulse back
 * through the tyres within the tick): the car takes the impulse the proxy
 * reports (its momentum changes by it, within 1 % over the tick), leaves
 * at (1 + e) times the proxy's speed as a body of its mass would off an
 * immovable one, and the proxy keeps its velocity. */
START_TEST(test_infinite_proxy_pushes_car_as_its_mass)
{
    rig r;
    rig_open_on(&r, "flat", "midsize_sedan", 4, ICE);
    pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 0.0);
    for (int k = 0; k < TICKS_PER_S; k++) {
        pdk_world_step(r.w); /* settle on its springs */
    }
    pdk_proxy_def d = proxy_def(1.0, 1.0, 0.6, 0.0);
    pdk_proxy_pose p = proxy_pose(hull_x(&r, car, 0) - 1.0 - 0.3, 0.0, 0.7, 2.0);
    pdk_proxy_id px;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &px), PDK_OK);
    const double m = r.def.chassis.mass_kg;
    double v0[2], ke;
    int hit = 0;
    for (int k = 0; k < TICKS_PER_S && !hit; k++) {
        car_motion(&r, car, v0, &ke);
        pdk_world_step(r.w);
        pdk_proxy_contact c;
        ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, NULL, &c), PDK_OK);
        if (c.points > 0 && hypot(c.impulse_ns[0], c.impulse_ns[1]) > 0.0) {
            hit = 1;
            double v1[2];
            car_motion(&r, car, v1, &ke);
            /* The car's momentum change over the tick against the
             * impulse: the proxy's is minus the car's. */
            const double dp = m * (v1[0] - v0[0]);
            ck_assert_msg(fabs(dp + c.impulse_ns[0]) <= 0.01 * fabs(c.impulse_ns[0]),
                          "car's momentum changed by %.2f N s, the proxy reports %.2f", dp,
                          -c.impulse_ns[0]);
            const double e = pdk_contact_material_car_body().restitution;
            ck_assert_double_eq_tol(v1[0], (1.0 + e) * 2.0, 0.02 * 2.0);
        }
    }
    ck_assert_int_eq(hit, 1);
    pdk_proxy_pose now;
    ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, &now, NULL), PDK_OK);
    ck_assert_double_eq(now.vel_mps[0], 2.0);
    rig_close(&r);
}
END_TEST

/* The infinite-mass proxy of the test above, at approach speed 2 m/s
 * (above the bounce threshold) into the free-rolling car on ice, with the
 * car's and the proxy's restitution set apart: the pair's is the larger of
 * the two (pdk_contact_material_combine), measured as the parting speed
 * over the approach speed, (v_car - 2) / 2, whichever body has it. */
START_TEST(test_restitution_is_the_pairs_larger)
{
    static const double car_e[] = {0.6, 0.0};
    static const double proxy_e[] = {0.2, 0.35};
    for (int c = 0; c < 2; c++) {
        rig r;
        rig_open_on(&r, "flat", "midsize_sedan", 4, ICE);
        r.def.contact.restitution = car_e[c];
        pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 0.0);
        for (int k = 0; k < TICKS_PER_S; k++) {
            pdk_world_step(r.w);
        }
        pdk_proxy_def d = proxy_def(1.0, 1.0, 0.6, 0.0);
        d.material.restitution = proxy_e[c];
        pdk_proxy_pose p = proxy_pose(hull_x(&r, car, 0) - 1.0 - 0.3, 0.0, 0.7, 2.0);
        pdk_proxy_id px;
        ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &px), PDK_OK);
        int hit = 0;
        for (int k = 0; k < TICKS_PER_S && !hit; k++) {
            pdk_world_step(r.w);
            pdk_proxy_contact pc;
            ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, NULL, &pc), PDK_OK);
            if (pc.points > 0 && fabs(pc.impulse_ns[0]) > 0.0) {
                hit = 1;
                double v[2], ke;
                car_motion(&r, car, v, &ke);
                const double e = fmax(car_e[c], proxy_e[c]);
                const double measured = (v[0] - 2.0) / 2.0;
                ck_assert_msg(fabs(measured - e) <= 0.02,
                              "car e %.2f, proxy e %.2f: measured %.4f, expected the larger",
                              car_e[c], proxy_e[c], measured);
            }
        }
        ck_assert_int_eq(hit, 1);
        rig_close(&r);
    }
}
END_TEST

/* The proxy meets the car at 2 m/s along x while sliding past it at 2 m/s
 * along y: the contact's friction saturates (a sliding contact), so the
 * friction impulse over the normal impulse the event reports is the pair's
 * friction coefficient, the geometric mean of the two bodies' (0.2 and
 * 0.05 give 0.1; the car's own 0.2 against a car body's 0.5 gives 0.316). */
START_TEST(test_sliding_friction_is_the_geometric_mean)
{
    static const double car_mu[] = {0.2, 0.2};
    static const double proxy_mu[] = {0.05, 0.5};
    for (int c = 0; c < 2; c++) {
        rig r;
        rig_open_on(&r, "flat", "midsize_sedan", 4, ICE);
        r.def.contact.friction = car_mu[c];
        pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 0.0);
        for (int k = 0; k < TICKS_PER_S; k++) {
            pdk_world_step(r.w);
        }
        pdk_proxy_def d = proxy_def(1.0, 1.0, 0.6, 0.0);
        d.material.friction = proxy_mu[c];
        pdk_proxy_pose p = proxy_pose(hull_x(&r, car, 0) - 1.0 - 0.3, 0.0, 0.7, 2.0);
        p.vel_mps[1] = 2.0;
        pdk_proxy_id px;
        ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &px), PDK_OK);
        int hit = 0;
        for (int k = 0; k < TICKS_PER_S && !hit; k++) {
            pdk_world_step(r.w);
            int n = 0;
            const pdk_contact_event *ev = pdk_world_contact_events(r.w, &n, NULL);
            if (n == 0) {
                continue;
            }
            ck_assert_int_eq(n, 1);
            hit = 1;
            double t[3];
            for (int j = 0; j < 3; j++) {
                t[j] = ev[0].impulse_ns[j] - ev[0].normal_impulse_ns * ev[0].normal[j];
            }
            const double ratio =
                sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) / ev[0].normal_impulse_ns;
            const double mu = sqrt(car_mu[c] * proxy_mu[c]);
            ck_assert_double_gt(ev[0].normal_impulse_ns, 1000.0);
            ck_assert_msg(fabs(ratio - mu) <= 0.01 * mu,
                          "car mu %.2f, proxy mu %.2f: impulse ratio %.4f, expected %.4f",
                          car_mu[c], proxy_mu[c], ratio, mu);
        }
        ck_assert_int_eq(hit, 1);
        rig_close(&r);
    }
}
END_TEST

/* The preset keys contact.friction and contact.restitution: a preset
 * without them keeps a car body's material (the values every test and
 * golden ran with), given ones land in the definition, and one out of its
 * bounds is refused by the params naming the key and by sim naming the
 * field, so no world can spawn it. */
START_TEST(test_vehicle_material_keys)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def d;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan", NULL, &d, NULL, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.contact.friction, pdk_contact_material_car_body().friction);
    ck_assert_double_eq(d.contact.restitution, pdk_contact_material_car_body().restitution);
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan",
                                          "contact.friction=0.3;contact.restitution=0.4", &d, NULL,
                                          err, sizeof err) == PDK_OK,
                  "%s", err);
    ck_assert_double_eq(d.contact.friction, 0.3);
    ck_assert_double_eq(d.contact.restitution, 0.4);

    static const struct {
        const char *override, *key;
    } bad[] = {{"contact.friction=2.5", "contact.friction"},
               {"contact.friction=-0.1", "contact.friction"},
               {"contact.restitution=1.2", "contact.restitution"},
               {"contact.restitution=-1", "contact.restitution"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_ne(pdk_params_vehicle_load(PRESETS, "midsize_sedan", bad[k].override, &d,
                                                 NULL, err, sizeof err),
                         PDK_OK);
        ck_assert_msg(strstr(err, bad[k].key) != NULL, "%s: %s", bad[k].override, err);
    }

    rig r;
    rig_open(&r, "flat", "midsize_sedan", 2);
    static const pdk_contact_material wrong[] = {{2.5, 0.1}, {-0.1, 0.1}, {NAN, 0.1},
                                                 {0.5, 1.5}, {0.5, -0.2}, {0.5, NAN}};
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
        pdk_vehicle_def b = r.def;
        b.contact = wrong[k];
        ck_assert_int_eq(pdk_vehicle_def_check(&b), PDK_ERR_OUT_OF_RANGE);
        const char *why = pdk_vehicle_def_problem(&b);
        const char *key = k < 3 ? "contact.friction" : "contact.restitution";
        ck_assert_msg(why != NULL && strstr(why, key) != NULL, "%zu: %s", k, why);
        pdk_pose pose = {0.0, 0.0, 0.0};
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_world_spawn(r.w, &b, &pose, 0.0, PDK_GEAR_PARK, &id),
                         PDK_ERR_OUT_OF_RANGE);
    }
    rig_close(&r);
}
END_TEST

/* pdk_vehicle_def_hull_box: the box a proxy standing for a car takes is
 * the box that car has when spawned (its four-wheel constants' hull
 * corners), in half extents and centre from the CG, for the sedan and the
 * UTV; the single-track model, a NULL and a refused definition are errors
 * (the last naming its field). */
START_TEST(test_hull_box_is_the_spawned_cars)
{
    static const char *const presets[] = {"midsize_sedan", "polaris_ranger"};
    for (int k = 0; k < 2; k++) {
        rig r;
        rig_open(&r, "flat", presets[k], 2);
        pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 0.0);
        const uint32_t slot = (car & 0xFFFFu) - 1u;
        const pdk_fw_consts *c =
            &((const pdk_fw_consts *)pdk_world_model_array_(r.w, PDK_MODEL_FOUR_WHEEL, 2))[slot];
        const double *lo = &c->hull_pts_m[0], *hi = &c->hull_pts_m[3 * 7];
        double half_m[3], centre_m[3];
        ck_assert_int_eq(pdk_vehicle_def_hull_box(&r.def, half_m, centre_m), PDK_OK);
        for (int j = 0; j < 3; j++) {
            ck_assert_double_eq_tol(half_m[j], 0.5 * (hi[j] - lo[j]), 1e-12);
            ck_assert_double_eq_tol(centre_m[j], 0.5 * (hi[j] + lo[j]), 1e-12);
        }
        ck_assert_double_gt(half_m[0], 1.0); /* a car, not a point */
        ck_assert_int_eq(pdk_vehicle_def_hull_box(NULL, half_m, centre_m),
                         PDK_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(pdk_vehicle_def_hull_box(&r.def, NULL, centre_m),
                         PDK_ERR_INVALID_ARGUMENT);
        pdk_vehicle_def st = r.def;
        st.model = PDK_MODEL_SINGLE_TRACK;
        ck_assert_int_eq(pdk_vehicle_def_hull_box(&st, half_m, centre_m), PDK_ERR_INVALID_ARGUMENT);
        pdk_vehicle_def bad = r.def;
        bad.chassis.body_width_m = 0.5; /* narrower than the track */
        ck_assert_int_eq(pdk_vehicle_def_hull_box(&bad, half_m, centre_m), PDK_ERR_OUT_OF_RANGE);
        ck_assert_ptr_nonnull(strstr(pdk_vehicle_def_problem(&bad), "chassis.body_width_m"));
        rig_close(&r);
    }
}
END_TEST

/* The same infinite-mass proxy into a parked car, in P with 40 bar of
 * brake, on tarmac: the proxy is moved, never pushed (its velocity stays
 * 2 m/s bit for bit), and it shoves the car along at its own speed, the
 * car's locked tyres sliding, without sinking into it (the overlap stays
 * within a few cm) and every tick reporting the impulse it gives. */
START_TEST(test_infinite_proxy_shoves_parked_car)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 4);
    pdk_pose pose = {0.0, 0.0, 0.0};
    pdk_vehicle_id car;
    ck_assert_int_eq(pdk_world_spawn(r.w, &r.def, &pose, 0.0, PDK_GEAR_PARK, &car), PDK_OK);
    pdk_dbw_cmd cmd = {.fields = PDK_DBW_BRAKE, .brake_bar = 40.0};
    ck_assert_int_eq(pdk_world_command(r.w, car, &cmd), PDK_OK);
    for (int k = 0; k < TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    pdk_proxy_def d = proxy_def(1.0, 1.2, 0.6, 0.0);
    pdk_proxy_pose p = proxy_pose(hull_x(&r, car, 0) - 1.0 - 0.1, 0.0, 0.7, 2.0);
    pdk_proxy_id px;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &px), PDK_OK);
    double deepest = 0.0;
    int pushing = 0;
    for (int k = 0; k < 3 * TICKS_PER_S; k++) {
        pdk_world_step(r.w);
        int n = 0;
        const pdk_contact_event *ev = pdk_world_contact_events(r.w, &n, NULL);
        for (int i = 0; i < n; i++) {
            deepest = fmax(deepest, ev[i].depth_m);
        }
        pdk_proxy_contact c;
        ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, NULL, &c), PDK_OK);
        pushing += c.points > 0;
    }
    pdk_proxy_pose now;
    ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, &now, NULL), PDK_OK);
    ck_assert_double_eq(now.vel_mps[0], 2.0);
    ck_assert_double_eq(now.pos_m[1], 0.0);
    double v[2], ke;
    car_motion(&r, car, v, &ke);
    ck_assert_double_eq_tol(v[0], 2.0, 0.1);
    ck_assert_double_lt(deepest, 0.03);
    ck_assert_int_gt(pushing, 2 * TICKS_PER_S);
    rig_close(&r);
}
END_TEST

/* A finite-mass proxy of the car's mass struck by the car: momentum
 * passes to it within the tick (as between two bodies) and its velocity
 * is kept for the next tick's move. */
START_TEST(test_finite_proxy_is_pushed)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 4);
    pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 5.0);
    pdk_proxy_def d = proxy_def(2.3, 0.9, 0.6, r.def.chassis.mass_kg);
    pdk_proxy_pose p = proxy_pose(8.0, 0.0, 0.75, 0.0);
    pdk_proxy_id px;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &px), PDK_OK);
    for (int k = 0; k < 2 * TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    pdk_proxy_pose now;
    ck_assert_int_eq(pdk_world_proxy_get(r.w, px, NULL, &now, NULL), PDK_OK);
    ck_assert_double_gt(now.vel_mps[0], 2.0);
    ck_assert_double_gt(now.pos_m[0], 8.0);
    ck_assert_double_lt(car_x(&r, car) + hull_x(&r, car, 1), now.pos_m[0] - 2.3 + 0.05);
    rig_close(&r);
}
END_TEST

/* Events and channels: the head-on's event names both cars, its normal
 * points from a to b, its impulse on b is along +x... the car b faces -x so
 * the impulse on b pushes it +x; and the cars' ContactImpulse agree with
 * it. */
START_TEST(test_events_and_channels)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 4);
    pdk_vehicle_id a = rolling(&r, 0.0, 0.0, 0.0, 10.0);
    pdk_vehicle_id b = rolling(&r, 6.0, 0.0, PI, 0.0);
    ck_assert_int_eq(pdk_world_contact_capacity(r.w), 64);
    int seen = 0;
    for (int k = 0; k < TICKS_PER_S && !seen; k++) {
        pdk_world_step(r.w);
        int n = 0, dropped = -1;
        const pdk_contact_event *ev = pdk_world_contact_events(r.w, &n, &dropped);
        ck_assert_int_eq(dropped, 0);
        ck_assert_int_eq(pdk_world_contact_missed(r.w), 0);
        if (n == 0) {
            continue;
        }
        seen = 1;
        ck_assert_int_eq(n, 1);
        ck_assert_uint_eq(ev[0].a_kind, PDK_CONTACT_BODY_VEHICLE);
        ck_assert_uint_eq(ev[0].a_id, a);
        ck_assert_uint_eq(ev[0].b_id, b);
        ck_assert_double_gt(ev[0].normal[0], 0.99);
        ck_assert_double_gt(ev[0].impulse_ns[0], 0.0);
        ck_assert_double_gt(ev[0].approach_mps, 0.0);
        ck_assert_double_gt(ev[0].normal_impulse_ns, 0.0);
        ck_assert_int_ge(ev[0].points, 1);
        const double *cha = pdk_world_channels(r.w, a), *chb = pdk_world_channels(r.w, b);
        ck_assert_double_eq(cha[PDK_CH_CONTACT_COUNT], 1.0);
        ck_assert_double_eq(chb[PDK_CH_CONTACT_COUNT], 1.0);
        ck_assert_double_eq_tol(
            chb[PDK_CH_CONTACT_IMPULSE],
            hypot(hypot(ev[0].impulse_ns[0], ev[0].impulse_ns[1]), ev[0].impulse_ns[2]),
            1e-9 * chb[PDK_CH_CONTACT_IMPULSE]);
    }
    ck_assert_int_eq(seen, 1);
    ck_assert_ptr_nonnull(pdk_channel_get(PDK_CH_CONTACT_IMPULSE));
    ck_assert_int_eq(pdk_channel_find("ContactImpulse"), (int)PDK_CH_CONTACT_IMPULSE);
    rig_close(&r);
}
END_TEST

/* ---- determinism ------------------------------------------------------------ */

/* A pile-up of four cars and a moving proxy: two runs give the same hash
 * every tick; every build of the hash agrees; a byte copy taken mid-impact
 * steps on to the same hashes. */
static void pileup(rig *r, pdk_proxy_id *px)
{
    rig_open(r, "flat", "midsize_sedan", 8);
    (void)rolling(r, 0.0, 0.0, 0.0, 12.0);
    (void)rolling(r, 6.0, 0.3, 0.1, 0.0);
    (void)rolling(r, 12.0, -0.3, 0.0, 0.0);
    (void)rolling(r, 9.0, 3.0, -PI / 2.0, 6.0);
    pdk_proxy_def d = proxy_def(2.0, 0.9, 0.7, 0.0);
    pdk_proxy_pose p = proxy_pose(20.0, 0.0, 0.75, -3.0);
    ck_assert_int_eq(pdk_world_proxy_add(r->w, &d, &p, px), PDK_OK);
}

START_TEST(test_pileup_is_deterministic)
{
    rig r1, r2;
    pdk_proxy_id p1, p2;
    pileup(&r1, &p1);
    pileup(&r2, &p2);
    int contacts = 0;
    void *copy = NULL;
    size_t bytes = pdk_world_mem_size(&r1.wd);
    for (int k = 0; k < 3 * TICKS_PER_S; k++) {
        pdk_world_step(r1.w);
        pdk_world_step(r2.w);
        int n;
        (void)pdk_world_contact_events(r1.w, &n, NULL);
        contacts += n;
        ck_assert_uint_eq(pdk_world_hash(r1.w), pdk_world_hash(r2.w));
        if (n > 0 && copy == NULL) {
            copy = aligned_alloc(64, (bytes + 63u) / 64u * 64u);
            ck_assert_ptr_nonnull(copy);
            memcpy(copy, r1.w, bytes);
        }
    }
    ck_assert_int_gt(contacts, 10);
    const uint64_t h = pdk_world_hash_build(r1.w, PDK_FW_BUILD_BASELINE);
    ck_assert_uint_eq(pdk_world_hash_build(r1.w, PDK_FW_BUILD_AVX2), h);
    ck_assert_uint_eq(pdk_world_hash_build(r1.w, PDK_FW_BUILD_AVX512), h);
    /* The copy, stepped to the same tick, hashes the same. */
    pdk_world *c = copy;
    ck_assert_ptr_nonnull(c);
    while (pdk_world_tick(c) < pdk_world_tick(r1.w)) {
        pdk_world_step(c);
    }
    ck_assert_uint_eq(pdk_world_hash(c), pdk_world_hash(r1.w));
    free(copy);
    rig_close(&r1);
    rig_close(&r2);
}
END_TEST

/* The proxies enter the hash only once there is one: a world that never had
 * one hashes as if proxies did not exist; adding one changes the hash,
 * moving it changes it, and removing it leaves the slot's generation in it. */
START_TEST(test_proxies_in_hash)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 4);
    (void)rolling(&r, 0.0, 0.0, 0.0, 0.0);
    const uint64_t h0 = pdk_world_hash(r.w);
    pdk_proxy_def d = proxy_def(1.0, 1.0, 1.0, 0.0);
    pdk_proxy_pose p = proxy_pose(50.0, 0.0, 1.0, 0.0);
    pdk_proxy_id id;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &id), PDK_OK);
    const uint64_t h1 = pdk_world_hash(r.w);
    ck_assert_uint_ne(h1, h0);
    p.pos_m[0] = 51.0;
    ck_assert_int_eq(pdk_world_proxy_set_pose(r.w, id, &p), PDK_OK);
    ck_assert_uint_ne(pdk_world_hash(r.w), h1);
    ck_assert_int_eq(pdk_world_proxy_remove(r.w, id), PDK_OK);
    ck_assert_uint_ne(pdk_world_hash(r.w), h0);
    ck_assert_int_eq(pdk_world_proxy_count(r.w), 0);
    /* The next proxy takes the slot with its new generation. */
    pdk_proxy_id again;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &again), PDK_OK);
    ck_assert_uint_eq(again & 0xFFFFu, id & 0xFFFFu);
    ck_assert_uint_eq(again >> 16, (id >> 16) + 1u);
    ck_assert_int_eq(pdk_world_proxy_count(r.w), 1);
    ck_assert_uint_eq(pdk_world_proxy_at(r.w, 0), again);
    ck_assert_uint_eq(pdk_world_proxy_at(r.w, 1), 0u);
    rig_close(&r);
}
END_TEST

/* A proxy moves on by its velocities over a tick; a turning one keeps a
 * unit quaternion; a snapshot of its generations and pose restores it
 * into a staging world whose hash matches. */
START_TEST(test_proxy_moves_and_restores)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 4);
    pdk_vehicle_id car = rolling(&r, 0.0, 0.0, 0.0, 0.0);
    pdk_proxy_def d = proxy_def(1.0, 0.5, 0.5, 800.0);
    pdk_proxy_pose p = proxy_pose(30.0, 5.0, 1.0, 3.0);
    p.omega_radps[2] = 0.5;
    pdk_proxy_id id, gone;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &gone), PDK_OK);
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &id), PDK_OK);
    ck_assert_int_eq(pdk_world_proxy_remove(r.w, gone), PDK_OK);
    for (int k = 0; k < TICKS_PER_S; k++) {
        pdk_world_step(r.w);
    }
    pdk_proxy_pose now;
    pdk_proxy_def dnow;
    ck_assert_int_eq(pdk_world_proxy_get(r.w, id, &dnow, &now, NULL), PDK_OK);
    ck_assert_double_eq_tol(now.pos_m[0], 33.0, 1e-9);
    const double yaw = 2.0 * atan2(now.quat[3], now.quat[0]);
    ck_assert_double_eq_tol(yaw, 0.5, 1e-3);
    ck_assert_double_eq_tol(hypot(now.quat[0], now.quat[3]), 1.0, 1e-12);

    /* Restore: head, vehicle, proxy generations, proxy, end. */
    pdk_world_snapshot_head head;
    pdk_world_snapshot_head_get(r.w, &head);
    uint32_t gens[4], pgens[4];
    ck_assert_int_eq(pdk_world_snapshot_generations(r.w, gens, 4), PDK_OK);
    ck_assert_int_eq(pdk_world_proxy_generations(r.w, pgens, 4), PDK_OK);
    ck_assert_int_eq(pdk_world_proxy_generations(r.w, pgens, 3), PDK_ERR_CAPACITY);
    ck_assert_int_eq(pdk_world_proxy_generations(NULL, pgens, 4), PDK_ERR_INVALID_ARGUMENT);
    size_t rb = pdk_snapshot_vehicle_bytes();
    void *rec = malloc(rb);
    ck_assert_int_eq(pdk_world_snapshot_vehicle(r.w, car, rec, rb), PDK_OK);
    rig s;
    rig_open(&s, "flat", "midsize_sedan", 4);
    /* Outside a restore, a proxy is refused. */
    ck_assert_int_eq(pdk_world_restore_proxy(s.w, id, &dnow, &now), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(pdk_world_restore_proxy_problem(s.w, id, &dnow, &now),
                                 "between pdk_world_restore_head"));
    ck_assert_int_eq(pdk_world_restore_proxy_generations(s.w, pgens, 4), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_restore_head(s.w, &head, gens, 4), PDK_OK);
    ck_assert_int_eq(pdk_world_restore_vehicle(s.w, car, &r.def, rec, rb), PDK_OK);
    ck_assert_int_eq(pdk_world_restore_proxy_generations(s.w, pgens, 3), PDK_ERR_OUT_OF_RANGE);
    uint32_t bad[4] = {0, 70000u, 0, 0};
    ck_assert_int_eq(pdk_world_restore_proxy_generations(s.w, bad, 4), PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(pdk_world_restore_proxy_generations(s.w, pgens, 4), PDK_OK);
    ck_assert_int_eq(pdk_world_restore_proxy(s.w, 0u, &dnow, &now), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(
        strstr(pdk_world_restore_proxy_problem(s.w, 0u, &dnow, &now), "slot is zero"));
    ck_assert_int_eq(pdk_world_restore_proxy(s.w, id, &dnow, &now), PDK_OK);
    ck_assert_int_eq(pdk_world_restore_proxy(s.w, id, &dnow, &now), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(
        strstr(pdk_world_restore_proxy_problem(s.w, id, &dnow, &now), "already holds"));
    ck_assert_int_eq(pdk_world_restore_proxy_generations(s.w, pgens, 4), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_restore_end(s.w), PDK_OK);
    ck_assert_uint_eq(pdk_world_hash(s.w), pdk_world_hash(r.w));
    for (int k = 0; k < 10; k++) {
        pdk_world_step(s.w);
        pdk_world_step(r.w);
    }
    ck_assert_uint_eq(pdk_world_hash(s.w), pdk_world_hash(r.w));
    free(rec);
    rig_close(&s);
    rig_close(&r);
}
END_TEST

/* ---- errors ---------------------------------------------------------------- */

/* Every refusal of the proxy API, each with the sentence that names it. */
START_TEST(test_proxy_errors)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 2);
    pdk_proxy_def d = proxy_def(1.0, 1.0, 1.0, 0.0);
    pdk_proxy_pose p = proxy_pose(0.0, 0.0, 1.0, 0.0);
    pdk_proxy_id id = 7;
    ck_assert_int_eq(pdk_world_proxy_add(NULL, &d, &p, &id), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_add(r.w, NULL, &p, &id), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, NULL, &id), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(pdk_world_proxy_problem(NULL, &d, &p), "the world is NULL");
    ck_assert_str_eq(pdk_world_proxy_problem(r.w, NULL, &p), "the proxy definition is NULL");
    ck_assert_str_eq(pdk_world_proxy_problem(r.w, &d, NULL), "the proxy pose is NULL");
    static const struct {
        int field;
        double value;
        const char *names;
    } defs[] = {
        {0, 0.01, "half_extent_m"}, {0, NAN, "half_extent_m"}, {1, 0.5, "mass_kg"},
        {1, -1.0, "mass_kg"},       {1, INFINITY, "mass_kg"},  {2, -0.1, "friction"},
        {2, 2.5, "friction"},       {3, 1.5, "restitution"},   {3, NAN, "restitution"},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        pdk_proxy_def bad = d;
        double *f[] = {&bad.half_extent_m[1], &bad.mass_kg, &bad.material.friction,
                       &bad.material.restitution};
        *f[defs[i].field] = defs[i].value;
        ck_assert_int_eq(pdk_world_proxy_add(r.w, &bad, &p, &id), PDK_ERR_OUT_OF_RANGE);
        ck_assert_uint_eq(id, 0u);
        const char *why = pdk_world_proxy_problem(r.w, &bad, &p);
        ck_assert_msg(why != NULL && strstr(why, defs[i].names) != NULL, "case %zu: %s", i,
                      why ? why : "(null)");
    }
    static const struct {
        int field;
        double value;
        const char *names;
    } poses[] = {
        {0, NAN, "pos_m"},     {0, 2e7, "pos_m"},        {1, 0.9, "unit length"}, {1, NAN, "quat"},
        {2, 151.0, "vel_mps"}, {2, INFINITY, "vel_mps"}, {3, 21.0, "omega"},      {3, NAN, "omega"},
    };
    for (size_t i = 0; i < sizeof poses / sizeof poses[0]; i++) {
        pdk_proxy_pose bad = p;
        double *f[] = {&bad.pos_m[2], &bad.quat[0], &bad.vel_mps[1], &bad.omega_radps[0]};
        *f[poses[i].field] = poses[i].value;
        ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &bad, &id), PDK_ERR_OUT_OF_RANGE);
        const char *why = pdk_world_proxy_problem(r.w, &d, &bad);
        ck_assert_msg(why != NULL && strstr(why, poses[i].names) != NULL, "case %zu: %s", i,
                      why ? why : "(null)");
    }
    ck_assert_ptr_null(pdk_world_proxy_problem(r.w, &d, &p));
    /* A quaternion off unit by less than 1e-6 is taken and normalised. */
    pdk_proxy_pose near = p;
    near.quat[0] = 1.0 + 5e-7;
    pdk_proxy_id a, b;
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &near, &a), PDK_OK);
    pdk_proxy_pose kept;
    ck_assert_int_eq(pdk_world_proxy_get(r.w, a, NULL, &kept, NULL), PDK_OK);
    ck_assert_double_eq(kept.quat[0], 1.0);
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &b), PDK_OK);
    /* Full: max_vehicles proxies. */
    ck_assert_int_eq(pdk_world_proxy_add(r.w, &d, &p, &id), PDK_ERR_CAPACITY);
    ck_assert_ptr_nonnull(strstr(pdk_world_proxy_problem(r.w, &d, &p), "max_vehicles"));
    /* set_pose. */
    ck_assert_int_eq(pdk_world_proxy_set_pose(NULL, a, &p), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_set_pose(r.w, a, NULL), PDK_ERR_INVALID_ARGUMENT);
    pdk_proxy_pose fast = p;
    fast.vel_mps[0] = 200.0;
    ck_assert_int_eq(pdk_world_proxy_set_pose(r.w, a, &fast), PDK_ERR_OUT_OF_RANGE);
    ck_assert_ptr_nonnull(strstr(pdk_world_proxy_pose_problem(r.w, a, &fast), "vel_mps"));
    ck_assert_str_eq(pdk_world_proxy_pose_problem(NULL, a, &p), "the world is NULL");
    ck_assert_ptr_null(pdk_world_proxy_pose_problem(r.w, a, &p));
    /* Stale and never-given ids. */
    ck_assert_int_eq(pdk_world_proxy_remove(r.w, a), PDK_OK);
    ck_assert_int_eq(pdk_world_proxy_remove(r.w, a), PDK_ERR_STALE_ID);
    ck_assert_int_eq(pdk_world_proxy_remove(NULL, a), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_set_pose(r.w, a, &p), PDK_ERR_STALE_ID);
    ck_assert_ptr_nonnull(strstr(pdk_world_proxy_pose_problem(r.w, a, &p), "not a live proxy"));
    ck_assert_int_eq(pdk_world_proxy_get(r.w, a, NULL, NULL, NULL), PDK_ERR_STALE_ID);
    ck_assert_int_eq(pdk_world_proxy_get(NULL, b, NULL, NULL, NULL), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_world_proxy_get(r.w, 0u, NULL, NULL, NULL), PDK_ERR_STALE_ID);
    ck_assert_int_eq(pdk_world_proxy_get(r.w, 0x00000009u, NULL, NULL, NULL), PDK_ERR_STALE_ID);
    ck_assert_int_eq(pdk_world_proxy_count(NULL), 0);
    ck_assert_uint_eq(pdk_world_proxy_at(NULL, 0), 0u);
    int n = 5, dropped = 5;
    ck_assert_ptr_null(pdk_world_contact_events(NULL, &n, &dropped));
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(dropped, 0);
    ck_assert_int_eq(pdk_world_contact_capacity(NULL), 0);
    ck_assert_int_eq(pdk_world_contact_missed(NULL), 0);
    rig_close(&r);
}
END_TEST

/* A world packed past its buffers counts what it could not solve: 40
 * cars stacked 1 cm apart in a world of 40 slots overlap pairwise (780
 * pairs, against 8 per slot: 320), the pairs beyond the buffers are
 * counted as missed and the events beyond theirs as dropped, and the cars
 * are pushed apart without a fault. */
START_TEST(test_buffers_full_are_counted)
{
    rig r;
    rig_open(&r, "flat", "midsize_sedan", 40);
    for (int i = 0; i < 40; i++) {
        (void)rolling(&r, 0.01 * i, 0.0, 0.0, 0.0);
    }
    pdk_world_step(r.w);
    ck_assert_int_gt(pdk_world_contact_missed(r.w), 0);
    int n = 0, dropped = 0;
    (void)pdk_world_contact_events(r.w, &n, &dropped);
    /* 96 manifolds (2 per slot and 16) touch; 64 events fit. */
    ck_assert_int_eq(n, pdk_world_contact_capacity(r.w));
    ck_assert_int_eq(dropped, 2 * 40 + 16 - 64);
    for (int k = 0; k < 10; k++) {
        pdk_world_step(r.w);
    }
    for (int i = 0; i < pdk_world_vehicle_count(r.w); i++) {
        const double *ch = pdk_world_channels(r.w, pdk_world_vehicle_at(r.w, i));
        ck_assert_msg(ch[PDK_CH_FAULTED] == 0.0, "car %d faulted, code %g, at %g %g %g", i,
                      ch[PDK_CH_FAULT_CODE], ch[PDK_CH_POS_X], ch[PDK_CH_POS_Y], ch[PDK_CH_POS_Z]);
    }
    rig_close(&r);
}
END_TEST

static Suite *contact_suite(void)
{
    Suite *s = suite_create("contact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_box_box_face_overlap);
    tcase_add_test(tc, test_box_box_corner_into_face);
    tcase_add_test(tc, test_broad_phase_sweeps_the_long_axis);
    tcase_add_test(tc, test_solve_head_on_conserves);
    tcase_add_test(tc, test_head_on_50_kmh_conserves_momentum);
    tcase_add_test(tc, test_side_impact_50_kmh_conserves_momentum);
    tcase_add_test(tc, test_250_kmh_does_not_tunnel);
    tcase_add_test(tc, test_parked_against_car_on_30_pct_stays);
    tcase_add_test(tc, test_infinite_proxy_pushes_car_as_its_mass);
    tcase_add_test(tc, test_restitution_is_the_pairs_larger);
    tcase_add_test(tc, test_sliding_friction_is_the_geometric_mean);
    tcase_add_test(tc, test_vehicle_material_keys);
    tcase_add_test(tc, test_hull_box_is_the_spawned_cars);
    tcase_add_test(tc, test_infinite_proxy_shoves_parked_car);
    tcase_add_test(tc, test_finite_proxy_is_pushed);
    tcase_add_test(tc, test_events_and_channels);
    tcase_add_test(tc, test_pileup_is_deterministic);
    tcase_add_test(tc, test_proxies_in_hash);
    tcase_add_test(tc, test_proxy_moves_and_restores);
    tcase_add_test(tc, test_proxy_errors);
    tcase_add_test(tc, test_buffers_full_are_counted);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(contact_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
