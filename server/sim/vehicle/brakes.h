/* The brakes of the four-wheel model, as the wheels' Coulomb torques
 * (internal to the four-wheel step, four_wheel_step.h, which runs them;
 * four_wheel.c's step 4; ADR 0008). Each wheel's capacity B is what its
 * brakes and parking pawl can hold, times the rolling radius (the held
 * command's hold_n, or a powertrain's brake torques and pawl), plus its
 * rolling resistance f Fz R. A wheel standing still with some capacity is
 * held (locked) until a pass of the solve frees it (check_pass, chassis.h),
 * and a free wheel's Coulomb torque turns against its spin, so that one
 * step of it never reverses a wheel. The lumped drive's torque (the pedal's
 * share, faded by the governors, power-limited on the rim speed) is formed
 * here with the hold, since the wheel's spin equation takes the two
 * together; a powertrain's shaft torques come from four_wheel_powertrain.h.
 * The line pressure's torque is set when a command is held
 * (four_wheel_setup.c pdk_fw_cmd_set, vehicle_def.c
 * pdk_vehicle_def_demand).
 *
 * Reads the command, the state's spins, the power scale, the wheels' loads
 * and rolling coefficients, the tick's radii and a powertrain's substep
 * (sub's shaft, pawl, brake); writes sub's drive_gain and the wheels'
 * drive torque, capacity, rolling part and lock. Static and inlined, so
 * that each build of the step compiles it for its own instruction set. */
#ifndef PDK_BRAKES_H
#define PDK_BRAKES_H

#include "math/vmath.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_lanes.h"
#include "vehicle/four_wheel_substep.h"

/* The drive for this substep (geometry): the pedal's share, the governors
 * fading it over their band (pdk_st_step's law); wheel_hold makes it each
 * wheel's torque. */
VEC void drive_governed(const fw_vehicle *restrict vh, sub *restrict sv)
{
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const double *v = sv->v;
    double gain = cmd->drive_gain;
    if (cmd->governor_mps > 0.0) {
        double excess = (cmd->drive_gain < 0.0 ? -v[0] : v[0]) - cmd->governor_fade_mps;
        if (excess > 0.0) {
            gain *= max2(0.0, 1.0 - excess / PDK_FW_GOVERNOR_BAND_MPS);
        }
    }
    sv->drive_gain = gain;
}

/* Each wheel's drive torque (the lumped drive of the pedal's share, power
 * limited on the rim speed |Omega R|, on the wheel's share, times the engine's
 * power scale) and its Coulomb capacity B: brakes and pawl times R, and the
 * rolling resistance f Fz R. A wheel standing still with some capacity is
 * locked unless check_pass freed it. */
VEC void wheel_hold(PHASE_ARGS)
{
    const pdk_fw_consts *restrict p = vh->p;
    const pdk_fw_state *restrict st = vh->st;
    const v4 zero = splat(0.0);
    const v4 r = sv->radius;
    const v4 om0 = load4(st->spin_radps);
    if (vh->pt != NULL) {
        /* A powertrain's: the driveline's shaft torques (powertrain), its
         * brakes as torques and the pawl. */
        q->t_drive = sv->shaft;
        q->roll_t = keep(q->loaded, q->roll_f * q->fz0 * r);
        q->hold = (sv->brake + sv->pawl) + q->roll_t;
        const m4 still = (m4)(om0 == zero);
        q->lock |= still & gt4(q->hold, zero) & ~q->unlocked;
        return;
    }
    const v4 rim = abs4(om0 * r);
    const v4 fmax = splat(p->drive_force_n);
    const v4 pw = splat(p->drive_power_w);
    /* min(F, P / |Omega R|): the power's share where it is the less. */
    const m4 limited = lt4(pw, fmax * rim);
    const v4 avail = any4(limited) ? sel(limited, pw / rim, fmax) : fmax;
    q->t_drive = splat(sv->drive_gain * st->power_scale) * load4(p->drive_share) * avail * r;
    q->roll_t = keep(q->loaded, q->roll_f * q->fz0 * r);
    q->hold = load4(vh->cmd->hold_n) * r + q->roll_t;
    const m4 still = (m4)(om0 == zero);
    q->lock |= still & gt4(q->hold, zero) & ~q->unlocked;
}

#endif
