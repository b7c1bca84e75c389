/* One tick of the four-wheel model (docs/vehicle-model.md; its set-up,
 * constants and command cache are in four_wheel_setup.c, its scalar per-wheel
 * helpers in four_wheel_ground.c). The step is a header per part of the car,
 * each static and inlined so that the step's AVX2 and AVX-512 builds,
 * four_wheel_avx.c and four_wheel_avx512.c, compile it too: suspension.h
 * (steps 1 to 3 below, and the struts' kinks of 6), steering.h (the wheels'
 * angles of 2), four_wheel_tyres.h (4, and the wheels' part of 7), brakes.h
 * (the wheels' Coulomb torques of 4) and chassis.h (5 to 7 for the body), on
 * the substep's working values (four_wheel_substep.h) and the linear system
 * (four_wheel_solve.h); four_wheel_tick.h has the tick's start and end, and
 * four_wheel_step.h runs the phases in order: per tick the tyres' state of
 * life; per substep the struts' rays (or cylinder sweeps), the wheel angles
 * and contact frames, the strut and link loads, the tyres' laws linearised
 * about their deflections with each wheel's spin eliminated, one 6x6 linearly
 * implicit velocity solve for the chassis, the wheels' spins and deflections
 * from its end velocities, and the rigid-body integration; then the tyres'
 * life and the vehicle's telemetry channels. The wheels' arithmetic runs four
 * wheels at once in vectors (four_wheel_lanes.h, tyre_lanes.h), pdk_fw_step
 * takes an AVX2 build of it where the processor has AVX2, with the same bits
 * as the baseline build, and pdk_fw_step_batch steps vehicles four side by
 * side (PDK_FW_GROUP), phase by phase of each substep (struct sub), so that
 * the processor overlaps their latencies.
 *
 * The scheme, per substep of length h. The unknowns are the CG velocity v
 * and the angular velocity w at the END of the substep, both in the body
 * frame as it stands at the substep's start (R, frozen over the substep;
 * the velocity is stored in the world frame and rotated in and out).
 *  0. Each tyre's life (tyre_life.h, advanced every PDK_FW_LIFE_TICKS
 *     ticks with what the tyre did meanwhile) gives its grip, the drop of
 *     its wheel centre (flat, rim, hub), its rolling-resistance scale and
 *     its pressure. The rolling radius is R = R0 - drop: the unloaded
 *     radius less the condition's drop. A loaded tyre's effective rolling
 *     radius is a little below R0 (about R0 - delta/3 for a radial
 *     deflection delta, Pacejka ch. 7); the struts stand for that
 *     deflection and the model takes R0, the radius the laws' slips are
 *     referred to (tyre.h).
 *  1. Each corner's ray runs from ride_ray_top_m above its static contact
 *     point down the body's z axis (or, where the terrain asks for it, a
 *     cylinder of the tyre's radius and width sweeps down it, so that a
 *     kerb under the tyre's shoulder is met); the hit gives the travel x
 *     (positive in bump), the contact point r and normal n, the surface and
 *     the water depth. The wheel centre sits lower by the tyre's radius drop
 *     and by its sinkage into soil: both add to the hit's distance. x <
 *     -droop: the wheel is in the air. The compression rate xdot = -(n .
 *     v_c) / (z_b . n), with v_c = v + w x r the contact's velocity at the
 *     start. A strut meets the ground only below the ray's origin (the top
 *     of its travel): a wheel whose ray starts behind a vertical face, or
 *     is tilted into a face's side, stands on the ground at the face's foot
 *     (terrain.h pdk_terrain_face), and where the travel would pass the
 *     ray's top the strut takes nothing; the face, or the ground, then
 *     holds the wheel by a hard contact (PDK_FW_HARD_DAMPING: a damper in
 *     the solve along the face's or ground's normal, toward a bounded speed
 *     out, that never pulls; docs/vehicle-model.md, "Faces and the end of
 *     the travel").
 *  2. Wheel angles: Ackermann and static toe from the command, plus the toe
 *     curve; the wheel's heading projected on the contact plane gives the
 *     tyre frame (e_x, e_y, n). Camber from the spin axis tilted about body
 *     x by static camber plus curve, or on a solid axle by the beam through
 *     the two contacts (the four-wheel model (docs/vehicle-model.md), "Solid axles").
 *  3. Struts (docs/vehicle-model.md): S_exp = k (s0 + x) + arb (x - x_other) +
 *     k_bs max(0, x - bump), damper c (bump or rebound by the sign of xdot).
 *     Link loads from the previous substep's contact forces: the roll-centre
 *     couple F_y h_rc / t, or per wheel F_y,i 2 h_rc,i / t with a roll-centre
 *     curve (Milliken and Milliken, Race Car Vehicle Dynamics, ch. 17 and 18),
 *     and the anti-dive/anti-squat/anti-lift loads anti F_x h_cg / L (ibid.
 *     ch. 17; Gillespie, Fundamentals of Vehicle Dynamics, ch. 9). They load
 *     the tyre and push the body at the contact without moving the spring. The
 *     ground never pulls: a strut or tyre load that would be negative leaves
 *     the wheel unloaded.
 *  4. Tyres and wheels (ADR 0008). Each tyre carries its deflections u_x,
 *     u_y (Pacejka, Tire and Vehicle Dynamics, 3rd ed., section 7.2, the
 *     single contact point transient model):
 *       du_x/dt = (Omega R - V_x) - |V_x| u_x / sigma_kappa,
 *       du_y/dt = V_y - |V_x| u_y / sigma_alpha,
 *     and its law (tyre.h) is evaluated at kappa' = u_x / sigma_kappa and
 *     tan(alpha') = u_y / sigma_alpha (sigma at the load, tyre_lanes.h), with
 *     no division by |V_x|: at standstill a deflection is a spring, the
 *     bristle that holds a parked car. Camber and the law's own forces at zero
 *     slip come with the rolling (PDK_FW_ROLLING_SPEED_MPS), and the slips a
 *     deflection stores are bounded, down to the law's peak slip at rest
 *     (PDK_FW_KAPPA_MAX). Over the substep, with the slip velocity s1 held at
 *     its end value, the exact solution is u1 = u0 e + g s1, e = exp(-|V_x| h
 *     / sigma), g = sigma (1 - e) / |V_x| = h phi(|V_x| h / sigma) (-> h at
 *     rest; phi by its series near 0), so the force builds over the relaxation
 *     length whatever the step. Laterally the input moves linearly from the
 *     start's V_y0 to the end's V_y1 (a first-order hold), whose exact
 *     solution is u1 = u0 e + g0 V_y0 + g1 V_y1 with g0 = h psi(z)
 *     (relax_g0_4) and g1 = g - g0; held at its end value it would apply the end's slip over
 *     the whole substep, an error of the first order in h that slowed the
 *     yaw rate's build-up after a steering step. Longitudinally the input,
 *     the slip velocity Omega R - V_x, moves the same way at speed, u1 =
 *     u0 e + g0 s0 + g1 s1, and is the end's alone at rest (g0 faded out
 *     with the carcass damper below), where the deflection is a stiff
 *     spring that backward Euler damps. The solve's frame is the
 *     start's, so V_y1 also holds that frame's turn over the substep, T =
 *     e_y . h (w0 x v0), which the tyre's own frame, turning with the body,
 *     does not see: the tyre's input at the end is V_y1 - T, and u1 = u0 e
 *     + g0 V_y0 + g1 (V_y1 - T). In a steady turn V_y1 - T = V_y0, so the
 *     steady deflection, sigma V_y / |V_x|, does not depend on h. The law
 *     is linearised in the deflection, F1 = F0 + K (u1 - u0) / sigma with K
 *     its slope (>= 0; past the peak 0, since a negative stiffness would
 *     let a wheel's spin run away within the solve: there a Magic Formula
 *     tyre's longitudinal end force takes its fall, F0 + K' (u1* - u0) /
 *     sigma with K' < 0 the falling slope and u1* the end deflection the
 *     start's slip gives, of which the wheel and the chassis take the
 *     share th_x below, rather than the start's F0, which held a locking
 *     wheel back the more the longer the substep), plus the carcass
 *     damper d (u1 - u0) / h at low speed (PDK_FW_CARCASS_DAMPING_S).
 *     The chassis takes the lateral force by the trapezoidal rule, the
 *     mean F0 + (F1 - F0) / 2 of the start's and the end's, with the weight
 *     th_y on the end rising from 1/2 to backward Euler's 1 as the carcass
 *     damper fades in (step 5). Laterally that is a damper on the end
 *     lateral velocity, c_y = th_y k_y g1 with k_y = K_a / sigma_a + d_y /
 *     h, and the explicit force F_y0 - th_y k_y (u_y0 (e_y - 1) + g0 V_y0 -
 *     g1 T). Longitudinally the wheel and the chassis both take the
 *     force by the same rule, F_x0 + th_x (F_x1 - F_x0) = F_m + k_m s1
 *     with F_m = F_x0 + th_x (F_e - F_x0) and k_m = th_x k_x, F_e + k_x s1
 *     the end force (F_e = F_x0 + k_x' (u_x0 (e_x - 1) + g0 s0), k_x =
 *     (K_k / sigma_k + d_x / h) g1), and the wheel's spin is eliminated
 *     from I (Omega1 - Omega0) / h = T_drive + T_b - R (F_m + k_m s1)
 *     (T_b the Coulomb torque of brakes, pawl and rolling resistance, f Fz
 *     R with f from the surface, the tyre and its life, at most 0.45 as
 *     the Polaris model): with a = h R^2 k_m / I, the end slip velocity is
 *     s1 = (W0 - V_x1) / (1 + a), W0 = Omega0 R + (h R / I)(T_drive + T_b
 *     - R F_m) the rim speed the wheel would reach on the explicit force,
 *     so the contact sees the damper c_x = k_m / (1 + a) = 1 / (1 / k_m +
 *     h R^2 / I), the tyre and the wheel's inertia in series, and the
 *     explicit force F_m + c_x W0. A wheel is free (T_b = -B
 *     sign(Omega0), explicit) or locked (Omega1 = 0 exactly: c_x = k_m,
 *     explicit F_m; T_b whatever holds it). The driveline's solve takes
 *     its driven wheels' force by the same rule (pdk_dl_wheel's
 *     start_share = 1 - th_x). On deformable
 *     ground the soil replaces the longitudinal law by Janosi-Hanamoto's
 *     thrust and scales the lateral to the soil's traction limit, and its
 *     motion resistance and water's drag are explicit forces at the
 *     contact (four_wheel_ground.c).
 *  5. The solve. The struts (springs, dampers, bump stops) and the bars
 *     take the trapezoidal rule: their force is evaluated at the mean of the
 *     start and end travel and rate, x_avg = x + h (xdot + xdot_end) / 4 and
 *     xdot_avg = (xdot + xdot_end) / 2, so S = S_exp + c_n (xdot + xdot_end)
 *     with c_n = c / 2 + h k / 4 (bars: h arb / 4 on the travel
 *     difference), and the position and orientation are advanced with the
 *     mean of the start and end velocities (step 7). The lateral tyre forces
 *     take the trapezoidal rule too (step 4: the start's force and half its
 *     linearised change, so the yaw rate's build-up after a steering step
 *     is of the second order in h), and backward Euler (the end's force,
 *     L-stable) where the carcass damper works, below
 *     PDK_FW_CARCASS_FADE_MPS, blended between: at rest the tyres' springs
 *     hold the car with the numerical damping that keeps a parked car from
 *     ringing (the theta method, whose factor for a stiff mode goes to -1
 *     at theta 1/2 and to 0 at 1: Hairer and Wanner, Solving Ordinary
 *     Differential Equations II, 2nd ed., section IV.3). The longitudinal
 *     tyre forces (with the wheels' spin, a stiff
 *     mode on a light wheel) and the air drag stay implicit at the END
 *     velocity (backward Euler, L-stable). A tyre's force lies along its
 *     wheel's heading, which turns with the body about the contact's
 *     normal n over the substep, while the solve holds it in the start's
 *     frame: each tyre adds (h / 2) (w0 . n) n x F0 to the explicit force
 *     (F0 its law's force at the start's deflections), the turn's share of
 *     the impulse to the second order. Without it a car cornering at
 *     constant throttle gained speed at the longer substep. The
 *     gyroscopic torque is taken at the mean rate, -(w_avg x L0) with L0 =
 *     I w0, half in the matrix and half explicit. With the coefficients and
 *     the contact geometry frozen at the start, this is one linear system
 *     (Baraff and Witkin, "Large steps in cloth simulation", SIGGRAPH 1998,
 *     section 4, for the linearly implicit form; the single-track model
 *     uses the same idea):
 *       (M/h + sum_k c_k J_k' J_k - G) q1 = M q0 / h + F_explicit,
 *     q = (v, w), M = diag(m, m, m, Ixx, Iyy, Izz), every damper k (each
 *     loaded wheel's n with c_n, e_x and e_y with the tyre's, each axle's
 *     bar, the air drag on body x and each hard contact's normal at its
 *     point) with J_k = [d', (r x d)']
 *     (build_system); F_explicit holds the explicit halves (S_exp + c_n
 *     xdot on the normal, the bar's, the gyroscopic one, the tyres' explicit
 *     forces, and their aligning moments where MZ_ON_CHASSIS). It is solved
 *     by Gaussian elimination without pivoting in 3x3 blocks
 *     (solve_system).
 *  6. Events, then solve again (check_pass): a wheel whose normal force
 *     would be negative is unloaded; a free wheel whose spin would cross
 *     zero against its Coulomb torque is locked; a locked wheel whose
 *     holding torque would exceed B is freed with B turned against it; a
 *     tyre whose linearised end force would leave its friction circle (the
 *     law's peak) takes the force on the circle, explicitly; a hard
 *     contact whose force would pull lets go; and a strut
 *     that crosses a kink of its force within the substep takes that part
 *     of its force at the END travel x1 = x + h (xdot + xdot_end) / 2: a
 *     loaded strut entering its bump stop takes k_bs (x1 - bump), a wheel in
 *     contact but unloaded whose strut would push at the end is loaded with
 *     its spring and stop at x1. Each happens to a wheel at most once a
 *     substep.
 *  7. The wheels' spins and deflections from the end velocities (the
 *     formulas of 4.), the sinkage toward Bekker's static value at a
 *     limited rate; position by the mean velocity, orientation by q <- q
 *     exp(h w_avg / 2) (the exact rotation by the mean body rate over the
 *     substep, the zeroth-order quaternion integrator of Sola, Quaternion
 *     kinematics for the error-state Kalman filter, 2017), renormalised once
 *     a tick.
 * Why the matrix is always solvable without pivoting, what the step
 * conserves, why a kink is taken at the end travel (a force at the mean
 * travel would gain the energy of the kink's far side: a stiff bump stop
 * rang up without bound) and what is not passive (the lagged link loads):
 * docs/vehicle-model.md, "The step's energy balance"; the wheels and
 * tyres: docs/adr/0008-tyres-spin-and-standstill.md. */
#include "vehicle/four_wheel.h"

#include "vehicle/four_wheel_step.h"

void pdk_fw_euler(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad)
{
    euler_of(q, yaw_rad, pitch_rad, roll_rad);
}

void pdk_fw_body_velocity(const pdk_fw_state *s, double out[3])
{
    mat3 rm;
    rotation_of(s->quat, &rm);
    rot_apply_t(&rm, s->vel_mps, out);
}

int pdk_fw_build_available(pdk_fw_build build)
{
    switch (build) {
    case PDK_FW_BUILD_BEST:
    case PDK_FW_BUILD_BASELINE:
        return 1;
#if defined(__x86_64__) && defined(__GNUC__)
    case PDK_FW_BUILD_AVX2:
        return __builtin_cpu_supports("avx2");
    case PDK_FW_BUILD_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#endif
    default:
        return 0;
    }
}

/* The build BEST stands for: the widest one the processor has. */
static pdk_fw_build best_build(void)
{
    return pdk_fw_build_available(PDK_FW_BUILD_AVX512) ? PDK_FW_BUILD_AVX512
           : pdk_fw_build_available(PDK_FW_BUILD_AVX2) ? PDK_FW_BUILD_AVX2
                                                       : PDK_FW_BUILD_BASELINE;
}

pdk_fw_build pdk_fw_build_resolve(pdk_fw_build build)
{
    if (build == PDK_FW_BUILD_BEST) {
        return best_build();
    }
    return pdk_fw_build_available(build) ? build : PDK_FW_BUILD_BASELINE;
}

/* Steps vs[0..n), n 1 or PDK_FW_GROUP, by build (from pdk_fw_build_resolve): the
 * baseline build here, the others in their own files. */
static void group_step(const fw_vehicle *vs, int n, const pdk_terrain_def *terrain,
                       const terrain_kind *tk, int substeps, pdk_fw_build build)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (build == PDK_FW_BUILD_AVX512) {
        pdk_fw_group_avx512(vs, n, terrain, tk, substeps);
        return;
    }
    if (build == PDK_FW_BUILD_AVX2) {
        pdk_fw_group_avx2(vs, n, terrain, tk, substeps);
        return;
    }
#endif
    step_group_n(vs, n, terrain, tk, substeps);
}

/* One vehicle of pdk_fw_step: its constants and their axles' parts. */
static fw_vehicle vehicle_of(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                             double *ch)
{
    const fw_vehicle v = {s,
                          cmd,
                          &p->c,
                          &p->tyre,
                          {&p->axle[0].kin, &p->axle[1].kin},
                          {&p->axle[0].life, &p->axle[1].life},
                          {&p->axle[0].soil, &p->axle[1].soil},
                          p->powertrain.kind != PDK_POWERTRAIN_LUMPED ? &p->powertrain : NULL,
                          ch};
    return v;
}

void pdk_fw_step(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                 const pdk_terrain_def *terrain, int substeps, double *ch)
{
    pdk_fw_step_build(s, cmd, p, terrain, substeps, ch, PDK_FW_BUILD_BEST);
}

void pdk_fw_step_build(pdk_fw_state *s, const pdk_fw_cmd *cmd, const pdk_fw_params *p,
                       const pdk_terrain_def *terrain, int substeps, double *ch, pdk_fw_build build)
{
    const fw_vehicle v = vehicle_of(s, cmd, p, ch);
    terrain_kind tk;
    terrain_kind_of(terrain, &tk);
    group_step(&v, 1, terrain, &tk, substeps, pdk_fw_build_resolve(build));
}

/* Asks the cache for a vehicle's state and command, which the next group
 * steps: a fleet's states outgrow the second-level cache (1.5 KB each,
 * 4.5 MB at 3,000 cars), and each group's first touches of them (its
 * tick's start, the tyres' life) would otherwise wait on the third. Only
 * a hint: no result changes. */
static void prefetch_vehicle(const pdk_fw_state *s, const pdk_fw_cmd *cmd)
{
    /* Every 64-byte line of each, its last included. */
    const char *a = (const char *)s;
    for (size_t k = 0; k < sizeof *s; k += 64) {
        __builtin_prefetch(a + k, 1, 3);
    }
    __builtin_prefetch(a + sizeof *s - 1, 1, 3);
    const char *c = (const char *)cmd;
    for (size_t k = 0; k < sizeof *cmd; k += 64) {
        __builtin_prefetch(c + k, 0, 3);
    }
    __builtin_prefetch(c + sizeof *cmd - 1, 0, 3);
}

static int step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts, const pdk_tyre_consts4 *const *tyres,
                      const pdk_vehicle_def *const *defs, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps, pdk_fw_build build)
{
    int faults = 0;
    terrain_kind tk;
    terrain_kind_of(terrain, &tk);
    build = pdk_fw_build_resolve(build);
    for (int i = 0, n = 0; i < count; i += n) {
        n = count - i >= PDK_FW_GROUP ? PDK_FW_GROUP : 1;
        fw_vehicle vs[PDK_FW_GROUP];
        for (int j = 0; j < n; j++) {
            const pdk_vehicle_def *d = defs[i + j];
            const fw_vehicle v = {states[i + j],
                                  cmds[i + j],
                                  consts[i + j],
                                  tyres[i + j],
                                  {&d->susp_front.kinematics, &d->susp_rear.kinematics},
                                  {&d->tyre_front.life, &d->tyre_rear.life},
                                  {&d->tyre_front.soil, &d->tyre_rear.soil},
                                  d->powertrain.kind != PDK_POWERTRAIN_LUMPED ? &d->powertrain
                                                                              : NULL,
                                  channels[i + j]};
            vs[j] = v;
        }
        for (int j = i + n; j < i + n + PDK_FW_GROUP && j < count; j++) {
            prefetch_vehicle(states[j], cmds[j]);
        }
        group_step(vs, n, terrain, &tk, substeps, build);
        for (int j = 0; j < n; j++) {
            faults += states[i + j]->faulted != 0u;
        }
    }
    return faults;
}

int pdk_fw_step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts, const pdk_tyre_consts4 *const *tyres,
                      const pdk_vehicle_def *const *defs, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps)
{
    return step_batch(states, cmds, consts, tyres, defs, channels, count, terrain, substeps,
                      PDK_FW_BUILD_BEST);
}

int pdk_fw_step_batch_build(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                            const pdk_fw_consts *const *consts,
                            const pdk_tyre_consts4 *const *tyres,
                            const pdk_vehicle_def *const *defs, double *const *channels, int count,
                            const pdk_terrain_def *terrain, int substeps, pdk_fw_build build)
{
    return step_batch(states, cmds, consts, tyres, defs, channels, count, terrain, substeps, build);
}
