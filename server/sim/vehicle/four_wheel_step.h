/* The four-wheel step's orchestration (internal to the four-wheel model):
 * the order of a substep's phases, each made of the functions of the parts
 * of the car, and step_group, which runs them for one vehicle or
 * PDK_FW_GROUP side by side. The parts are headers named for what they
 * model: suspension.h (the rays, the wheels' geometry and camber, the
 * struts, bars and links, their kinks, the hard contacts at the end of the
 * travel), steering.h (the road-wheel angles and the column's torque),
 * four_wheel_tyres.h (the tyres and the wheels' spin), brakes.h (the
 * wheels' Coulomb hold, and the lumped drive), hull_contact.h (the body's
 * collision hull against the ground) and chassis.h (the rigid body: the
 * solve's passes, the integration, the energy ledger), on the
 * substep's working values (four_wheel_substep.h) and the linear system
 * (four_wheel_solve.h); four_wheel_tick.h has the tick's start and end,
 * the telemetry and the fault. Included by four_wheel.c (the baseline
 * build), four_wheel_avx.c (AVX2) and four_wheel_avx512.c (AVX-512), whose
 * lane primitives in lanes.h and vmath.h take those instruction sets with
 * the same bits; everything here and in the parts is static, so each build
 * has its own copy. */
#ifndef PDK_FOUR_WHEEL_STEP_H
#define PDK_FOUR_WHEEL_STEP_H

#include <math.h>

#include "math/vmath.h"
#include "powertrain/driveline_lanes.h"
#include "vehicle/brakes.h"
#include "vehicle/chassis.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_substep.h"
#include "vehicle/four_wheel_tick.h"
#include "vehicle/four_wheel_tyres.h"
#include "vehicle/hull_contact.h"
#include "vehicle/steering.h"
#include "vehicle/suspension.h"

/* 1. and 2. of a substep: the body's velocity in its frame (chassis.h),
 * each corner's ray or sweep and what it meets (suspension.h), the ground
 * under each wheel (four_wheel_tyres.h), the drive (brakes.h) and the
 * wheels' angles (steering.h). Then frame (suspension.h): the tyre frame,
 * the contacts' velocities and the camber. */
VEC void geometry(PHASE_ARGS, const pdk_terrain_def *restrict terrain)
{
    body_start(vh, sv);
    wheel_rays(vh, sv, q, terrain);
    if (sv->plane && hull_clear_of_plane(vh, sv)) {
        /* What hull_find would find: no point. */
        sv->hull.n = 0;
        sv->hull.on = 0u;
        sv->hull.tried = 0u;
        sv->hull.face = PDK_HULL_FACE_NONE;
    } else {
        hull_find(vh, sv, terrain);
    }
    ground_under(vh, sv, q, terrain);
    drive_governed(vh, sv);
    wheel_angles(vh, q);
}

/* 3. and 4. of a substep: the struts, the links and which wheels are
 * loaded (suspension.h); what the passes of the solve start from
 * (chassis.h); the tyres' laws, linearised about their deflections
 * (four_wheel_tyres.h), and a powertrain's first half. */
VEC void struts(PHASE_ARGS)
{
    strut_forces(vh, sv, q);
    solve_start(vh, sv, q);
    tyre_law(vh, sv, q);
    if (vh->pt != NULL) {
        powertrain_begin(vh, sv, q); /* its driveline solved by solve_drivelines */
    }
}

/* The rest of 4., once the group's drivelines are solved
 * (solve_drivelines): a powertrain's second half, each wheel's drive and
 * holding torques and its linearised tyre; then the hard contacts' start. */
VEC void struts_end(PHASE_ARGS)
{
    if (vh->pt != NULL) {
        powertrain_end(vh, sv, q);
    }
    wheel_hold(vh, sv, q);
    wheel_coeffs(vh, sv, q);
    if (any4(q->hard)) {
        hard_start(vh, sv, q);
    }
    if (sv->hull.n > 0) {
        hull_start(vh, sv);
    }
}

/* 5. and 6. of a substep are the passes of the solve, build_pass,
 * solve_pass and check_pass (chassis.h). 7.: the wheels' spins and
 * deflections at the end (four_wheel_tyres.h), then the body's integration
 * and a powertrain's energy ledger (chassis.h). */
VEC void integrate(PHASE_ARGS)
{
    const v4 om0 = load4(vh->st->spin_radps);
    const double vz0 = vh->st->vel_mps[2];
    wheels_end(vh, sv, q);
    hull_sum(sv);
    body_integrate(vh, sv);
    if (vh->pt != NULL) {
        energy_ledger(vh, sv, q, om0, vz0);
    }
}

_Static_assert(PDK_FW_GROUP <= PDK_LANES, "a group's drivelines fit the lanes of one solve");

/* The drivelines of the group's powertrains for this substep (each
 * vehicle's problem in its sv->ptm, from powertrain_begin): two or more
 * that driveline_lanes.h takes side by side in its lanes, the rest one by
 * one. The same bits either way. */
VEC void solve_drivelines(const fw_vehicle *vs, sub *svs, int n)
{
    const pdk_dl_layout *layouts[PDK_FW_GROUP];
    const pdk_dl_engine *engines[PDK_FW_GROUP];
    const pdk_dl_wheel *axles[PDK_FW_GROUP];
    double h_s[PDK_FW_GROUP];
    pdk_dl_result *out[PDK_FW_GROUP];
    int lanes = 0;
    for (int j = 0; j < n; j++) {
        pdk_fwpt_mid *m = &svs[j].ptm;
        if (vs[j].pt == NULL || !m->solve) {
            continue;
        }
        if (n > 1 && pdk_dl_lanes_take(&m->layout)) {
            layouts[lanes] = &m->layout;
            engines[lanes] = &m->side;
            axles[lanes] = m->wheels;
            h_s[lanes] = vs[j].p->h_s;
            out[lanes] = &m->res;
            lanes++;
        } else {
            pdk_dl_solve(&m->layout, &m->side, m->wheels, vs[j].p->h_s, &m->res);
        }
    }
    if (lanes == 1) {
        pdk_dl_solve(layouts[0], engines[0], axles[0], h_s[0], out[0]);
    } else if (lanes > 1) {
        pdk_dl_solve4(layouts, engines, axles, h_s, lanes, out);
    }
}

/* Steps the n vehicles of vs_in (1..PDK_FW_GROUP) by one tick: each phase
 * of a substep (sub) for every one of them in turn, then each one's tick's
 * end. Inlined into the step's builds below, each for one n. */
VEC void step_group(const fw_vehicle *vs_in, int n, const pdk_terrain_def *terrain,
                    const terrain_kind *tk, int substeps)
{
    /* The pointers in a copy of its own, which the compiler can see no store
     * reach (else it reloads them after every store to a state). */
    fw_vehicle vs[PDK_FW_GROUP];
    sub svs[PDK_FW_GROUP];
    wheels qs[PDK_FW_GROUP];
    for (int j = 0; j < n; j++) {
        vs[j] = vs_in[j];
        for (int k = 0; k < 3; k++) {
            svs[j].start.pos_m[k] = vs[j].st->pos_m[k];
        }
        for (int k = 0; k < 4; k++) {
            svs[j].start.quat[k] = vs[j].st->quat[k];
        }
        tick_begin(&vs[j], &svs[j], tk);
        if (vs[j].pt != NULL) {
            const double *vel = vs[j].st->vel_mps;
            pdk_fwpt_tick(vs[j].st, vs[j].cmd, vs[j].pt, vs[j].p, vs[j].p->h_s * (double)substeps,
                          sqrt(vel[0] * vel[0] + vel[1] * vel[1]));
        }
    }
    for (int k = 0; k < substeps; k++) {
        for (int j = 0; j < n; j++) {
            svs[j].last = k == substeps - 1;
            /* The moment feeds the chassis only where MZ_ON_CHASSIS; else only
             * the channels (telemetry), so a vehicle without them this tick (a
             * verify, pdk_world_set_telemetry) skips it: the same state for
             * less work (ADR 0020; test_snapshot's
             * telemetry_off_changes_no_state). */
            svs[j].want_mz = MZ_ON_CHASSIS || (svs[j].last && vs[j].ch != NULL);
            geometry(&vs[j], &svs[j], &qs[j], terrain);
        }
        for (int j = 0; j < n; j++) {
            frame(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            struts(&vs[j], &svs[j], &qs[j]);
        }
        solve_drivelines(vs, svs, n);
        for (int j = 0; j < n; j++) {
            struts_end(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            build_pass(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            solve_pass(&vs[j], &svs[j], &qs[j]);
        }
        for (int j = 0; j < n; j++) {
            check_pass(&vs[j], &svs[j], &qs[j], 0);
        }
        /* The rare further passes, one vehicle at a time. */
        for (int j = 0; j < n; j++) {
            for (int pass = 1; svs[j].more; pass++) {
                build_pass(&vs[j], &svs[j], &qs[j]);
                solve_pass(&vs[j], &svs[j], &qs[j]);
                check_pass(&vs[j], &svs[j], &qs[j], pass);
            }
        }
        for (int j = 0; j < n; j++) {
            integrate(&vs[j], &svs[j], &qs[j]);
        }
    }
    int faulted[PDK_FW_GROUP];
    for (int j = 0; j < n; j++) {
        tick_life(&vs[j], &svs[j], terrain, substeps);
        const pose7 start = svs[j].start; /* fault takes its address, not svs's */
        faulted[j] = settle(&vs[j], &start, terrain, svs[j].plane);
    }
    for (int j = 0; j < n; j++) {
        if (!faulted[j] && vs[j].ch != NULL) {
            telemetry(&vs[j], &svs[j], &qs[j], substeps);
        }
    }
}

/* step_group for n 1 or PDK_FW_GROUP, each a copy of its own with the
 * count a constant in it: the body of each build's group function. */
VEC void step_group_n(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                      const terrain_kind *tk, int substeps)
{
    if (n == 1) {
        step_group(vs, 1, terrain, tk, substeps);
    } else {
        step_group(vs, PDK_FW_GROUP, terrain, tk, substeps);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* step_group_n compiled for AVX2 (four_wheel_avx.c) and for AVX-512
 * (four_wheel_avx512.c). */
void pdk_fw_group_avx2(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                       const terrain_kind *tk, int substeps);
void pdk_fw_group_avx512(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                         const terrain_kind *tk, int substeps);
#endif

#endif
