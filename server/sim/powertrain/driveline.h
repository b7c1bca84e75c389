/* The implicit driveline (docs/powertrain.md, generalised to the layouts of
 * every preset): over one substep of h seconds, the speed c of the primary
 * axle's carrier at the substep's end, and from it each wheel's end spin, the
 * torque the driveline puts on each wheel's shaft, the clutch's torque and the
 * engine's end speed, all by backward Euler and solved together.
 *
 * Each wheel is linear in its end spin w over the substep, as the chassis
 * solve linearises its tyre (ADR 0008): the shaft torque the wheel needs to
 * end the substep at spin w is
 *
 *   T_j(w) = J (w - w0) / h + R clamp(F_e + k (w R - V_x), -F_max, F_max)
 *            + B tanh(w / 0.1 rad/s)
 *
 * (the Polaris model's WheelShaftTorqueNm: the inertia, the tyre's force at
 * that spin, the Coulomb torques of brakes and rolling resistance smoothed
 * over 0.1 rad/s), rising with w. A locked axle turns both wheels at c; a
 * differential (open, or limited slip with a torque bias ratio and a preload)
 * lets them differ, w_L = c + d, w_R = c - d, with the torque difference its
 * friction allows: |T_L - T_R| <= k_b |T_L + T_R| + preload, k_b = (TBR - 1) /
 * (TBR + 1), the larger torque on the slower wheel (open: TBR 1; spool:
 * locked). A secondary axle turns at K c (K the secondary ring's speed over
 * the primary carrier's) through a locked coupling and its own differential (a
 * part-time 4WD), or through an overrunning clutch per wheel (the UTV's demand
 * drive: a wheel is driven while it needs torque in the ring's direction,
 * sign(c), or sign(R) at c = 0, to turn at K c; or both ways, where the caller
 * locks it), or not at all.
 *
 * The engine side: a clutch that holds puts the engine at R c at the end,
 * T_c(c) = J_e (w_free - R c) / h, within -cap_rev..cap_fwd; the carrier
 * receives D(T_c) = R eta T_c while the engine drives (T_c >= 0) and R T_c /
 * eta while it is driven, times a torque converter's ratio where there is one
 * and it slips (pdk_dl_engine). The balance is T_need(c) = D(T_c(c)), and
 * T_need(c) - D(T_c(c)) rises in c (T_need rises, D falls), so its root is
 * unique; with the clutch open (ratio 0 or no capacity) it is T_need(c) = 0.
 * (With overrunning clutches T_need may jump up at c = 0, where the ring's
 * direction turns; if the root falls in that jump, c comes out within about
 * 1e-24 rad/s of 0, after some 80 evaluations, and the balance is not met
 * there.) Each equation is solved by a bracketing root finder (the Polaris
 * model's RisingRoot: a bracket around a first estimate, doubled until the
 * sign changes) with Newton steps on the function's slope inside the bracket,
 * bisection where a step would leave it, to the last bits of c.
 *
 * Park is not solved here: the pawl holds the wheels as a Coulomb torque in
 * the chassis solve (four_wheel.c), which holds a parked car exactly still.
 *
 * Pure: no state, no allocation, no I/O; the same bits on every build. */
#ifndef PDK_DRIVELINE_H
#define PDK_DRIVELINE_H

#include "sim/driveline_def.h"

#include <stdint.h>

/* The smoothing speed of the Coulomb torques inside the solve (the Polaris
 * model). */
#define PDK_DL_COULOMB_RADPS 0.1

/* One wheel over the substep, as above. Wheels are FL, FR, RL, RR. */
typedef struct pdk_dl_wheel {
    double spin0_radps;  /* w0, the spin at the substep's start */
    double inertia_kgm2; /* J, the wheel and what turns with it alone */
    double radius_m;     /* R */
    double fx_e_n;       /* F_e, the tyre's force at zero end slip velocity */
    double kx_nspm;      /* k >= 0, its slope in the end slip velocity w R - V_x */
    double vx_mps;       /* V_x, the contact's forward speed */
    double fx_max_n;     /* F_max >= 0, the most longitudinal force the tyre gives */
    double coulomb_nm;   /* B >= 0: brakes, pawl and rolling resistance */
    /* The wheel takes the tyre's force over the substep as s F_0 + (1 - s)
     * F_1, F_0 its force at the start and F_1 the bounded linear one at the
     * end: s = 0 is backward Euler, 1/2 the trapezoidal rule. */
    double fx0_n;       /* F_0 */
    double start_share; /* s, in [0, 1/2] */
} pdk_dl_wheel;

/* The layout, fixed for a substep. */
typedef struct pdk_dl_layout {
    int primary;              /* the axle the clutch drives: 0 front, 1 rear */
    pdk_dl_diff primary_diff;
    pdk_dl_coupling coupling; /* of the other axle */
    pdk_dl_diff secondary_diff; /* with PDK_COUPLING_LOCKED or _CENTRE */
    double secondary_k;         /* K: the secondary ring's speed over the carrier's, > 0 */
    pdk_dl_diff centre_diff;    /* with PDK_COUPLING_CENTRE */
} pdk_dl_layout;

/* The engine side over the substep. */
typedef struct pdk_dl_engine {
    double free_radps;   /* w_free: the engine's end speed with no clutch torque */
    double inertia_kgm2; /* J_e > 0 */
    double ratio;        /* R: engine speed over carrier speed, signed; 0 for neutral */
    double efficiency;   /* eta in 0.05..1 */
    double cap_fwd_nm;   /* the clutch's capacity while the engine drives, >= 0 */
    double cap_rev_nm;   /* and while the wheels drive it, >= 0 */
    /* A torque converter in place of a plain slipping clutch: while the
     * engine drives and the clutch slips at its capacity (the pump's torque),
     * the turbine gives the pump's torque times TR = TR_s - (TR_s - 1) SR /
     * SR_c for the speed ratio SR = R c / w_e (w_e the engine's end speed)
     * from 0 to SR_c, TR_s below 0, 1 from SR_c on (the converter's
     * characteristic, Gillespie, Fundamentals of Vehicle Dynamics, ch. 2:
     * about 2 at stall, 1 at the coupling point near 0.85-0.9). TR_s 0 or 1
     * is a plain clutch. */
    double converter_stall_ratio; /* TR_s >= 1, or 0 */
    double converter_coupling;    /* SR_c in (0, 1] */
} pdk_dl_engine;

typedef struct pdk_dl_result {
    double carrier_radps;  /* c at the end */
    double spin_radps[4];  /* each wheel's end spin (undriven wheels: 0, see driven) */
    double shaft_nm[4];    /* the driveline's torque on each wheel's shaft */
    double clutch_nm;      /* T_c, positive while the engine drives */
    double delivered_nm;   /* D(T_c), at the carrier */
    double torque_ratio;   /* the converter's TR (1 for a plain clutch, or one that holds) */
    double engine_radps;   /* max(0, w_free - h T_c / J_e) */
    uint32_t driven;       /* bit j: wheel j is coupled to the carrier this substep */
    int clutch_slips;      /* T_c is at a capacity (or the clutch is open) */
    int evaluations;       /* of the balance, for the benchmark */
} pdk_dl_result;

/* T_j(w) of one wheel, as above, and its slope dT_j/dw in *slope (which
 * may be NULL); on the force bound the tyre adds nothing to the slope. */
double pdk_dl_wheel_torque(const pdk_dl_wheel *wheel, double h_s, double spin_radps,
                           double *slope);

/* Solves one substep of h_s seconds. Wheels neither on the primary axle nor
 * coupled to it get shaft torque 0 and spin 0 in out (the caller's chassis
 * solve moves them). */
void pdk_dl_solve(const pdk_dl_layout *layout, const pdk_dl_engine *engine,
                  const pdk_dl_wheel wheels[4], double h_s, pdk_dl_result *out);

#endif
