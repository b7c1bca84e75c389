/* The four-wheel model's powertrain (internal to the four-wheel model): the
 * UTV's engine, CVT, gear lever and drive modes around the implicit driveline
 * (docs/powertrain.md: StepUtvPowertrain, then the driveline solve), once per
 * substep before the chassis solve. Scalar code in its own translation unit,
 * compiled once, so that every build of the step (four_wheel.c,
 * four_wheel_avx.c, four_wheel_avx512.c) calls the same instructions and gets
 * the same bits.
 *
 * The coupling to the chassis: the driveline solves the wheels' end spins
 * with the chassis' contact velocities held at the substep's start and the
 * tyres linearised as the chassis solve linearises them (ADR 0008), and
 * hands the chassis solve each wheel's shaft torque, which it applies as
 * the wheel's drive torque (ADR 0010). */
#ifndef PDK_FOUR_WHEEL_POWERTRAIN_H
#define PDK_FOUR_WHEEL_POWERTRAIN_H

#include "powertrain/driveline.h"
#include "powertrain/engine.h"
#include "vehicle/four_wheel.h"

/* What a substep's powertrain gives the chassis solve and the channels. */
typedef struct pdk_fwpt_out {
    double shaft_nm[PDK_WHEELS]; /* the driveline's torque on each wheel */
    double pawl_nm[PDK_WHEELS];  /* the park pawl's holding capacity at each wheel */
    double brake_nm[PDK_WHEELS]; /* the brakes' capacity at each wheel, after ABS */
    double engine_nm;            /* T_e less the accessories, at the crank */
    double clutch_slip_radps;    /* omega_e - R c at the end */
    double fuel_rate_lph;        /* the Willans line's fuel flow */
    double ratio;                /* R, engine speed over carrier speed, signed */
    int evaluations;             /* of the driveline's balance */
} pdk_fwpt_out;

/* Once per tick, before its substeps: the UTV's lever is asked for the
 * command's gear, when it differs from the one last asked for, at the
 * vehicle's speed speed_mps (the Polaris model's shift rule), and a change
 * under way advances by tick_s; a geared box advances its shift and takes
 * its gear from its shift program (consts->full_upshift_rpm). */
void pdk_fwpt_tick(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_powertrain_def *pt,
                   const pdk_fw_consts *consts, double tick_s, double speed_mps);

/* A geared powertrain's upshift speed at full pedal in each gear but the
 * top, rev/min of the engine in that gear: the lowest speed, from the
 * light-load upshift speed on, at which the next gear gives at least this
 * one's full-load power at the same road speed (found to well under 1
 * rev/min). The top gear's, and every gear's of another kind of
 * powertrain, is the limiter's speed. */
void pdk_fwpt_full_upshift_rpm(const pdk_powertrain_def *pt, double rpm_out[PDK_GEARS_MAX]);

/* A substep's powertrain between its two halves: the driveline's problem
 * (pdk_dl_solve's arguments, solve 0 in park, where there is none), its
 * result for the second half, and what that half needs of the first. The
 * step solves the problems of a group's vehicles together
 * (driveline_lanes.h), or one alone with pdk_dl_solve. */
typedef struct pdk_fwpt_mid {
    pdk_dl_layout layout;
    pdk_dl_engine side;
    pdk_dl_wheel wheels[PDK_WHEELS]; /* with the carrier's share of inertia on the primary */
    pdk_dl_result res;               /* the solve's, filled between the halves */
    pdk_engine_torque et;            /* the engine's at the substep's start */
    double omega_start, carrier_start, j_sec;
    int solve;
} pdk_fwpt_mid;

/* One substep of consts->h_s (consts also gives the lags' factors), in
 * two halves around the driveline's solve. The first: ABS on the brakes
 * (brake_nm, each wheel's from the line pressure), the engine's request
 * and free speed, the clutch's capacities and the belt's ratio, and the
 * driveline's problem in mid, over the wheels the caller put in
 * mid->wheels (each wheel's own spin inertia, its Coulomb torque without
 * the brakes: they are added there, and the secondary's share of inertia
 * too). Their vx_mps are the contacts' speeds at the substep's start, and
 * dvx_mps their predicted change over it: the driveline's tyres take the
 * end's (ADR 0010). In park there is no problem (mid->solve 0): the engine
 * runs free and the pawl holds. */
void pdk_fwpt_substep_begin(pdk_fw_state *state, const pdk_fw_cmd *cmd,
                            const pdk_powertrain_def *pt, const pdk_fw_consts *consts,
                            const double brake_nm[PDK_WHEELS], double dvx_mps, pdk_fwpt_out *out,
                            pdk_fwpt_mid *mid);

/* The second half, from mid->res when mid->solve: the shaft torques, the
 * engine's, clutch's and carrier's end state, the ledger and the fuel.
 * Between them the two halves update state->pt and fill out. */
void pdk_fwpt_substep_end(pdk_fw_state *state, const pdk_powertrain_def *pt,
                          const pdk_fw_consts *consts, const pdk_fwpt_mid *mid, pdk_fwpt_out *out);

/* The chassis', wheels' and tyres' terms of the energy ledger are added
 * by the step itself, each substep (four_wheel_step.h energy_ledger). */

/* Writes the powertrain's channels for the tick's end from its last
 * substep's out: engine, belt, clutch, drive mode, fuel, the lever's
 * position (Gear) and its last refusal. */
void pdk_fwpt_channels(const pdk_fw_state *state, const pdk_powertrain_def *pt,
                       const pdk_fwpt_out *out, double *channels);

#endif
