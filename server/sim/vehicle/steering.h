/* The steering of the four-wheel model: from the steering wheel's angle to
 * each road wheel's, and back from the front tyres to the steering wheel.
 * The rack: the wheel's angle, less its centre offset and within its lock,
 * over the steering ratio, is the bicycle road-wheel angle. Ackermann
 * (docs/vehicle-model.md): each front wheel runs a share (ackermann) of the
 * way from parallel steer to the angle that rolls it about the rear axle's
 * line; static toe-in turns each wheel toward the centreline, and in each
 * substep a toe curve against the travel turns it further. The column's
 * torque (SteeringTorque) is the front tyres' aligning moments about their
 * steering axes over the ratio. The feel (SteeringWheelTorque) adds the
 * mechanical trail of caster and takes off the power assist
 * (docs/vehicle-model.md "Steering feel"); kingpin inclination, scrub
 * radius, friction and compliance are not modelled. Neither feeds the
 * motion: both are outputs.
 *
 * steer_cmd runs when a command is held (four_wheel_setup.c,
 * pdk_fw_cmd_set): it reads the definition's steering and static toe and
 * writes the command's cached angles (steer_rad, wheel_steer_rad and their
 * sines and cosines). wheel_angles runs in each substep (four_wheel.c's
 * step 2): it reads those, the constants' toe curves and the wheels'
 * travel, and writes the wheels' angles, sines, cosines and toe.
 * steering_torque runs for the tick's channels (four_wheel_tick.h): it
 * reads the last substep's aligning moments and normals. Static and
 * inlined, so that each build of the step compiles it for its own
 * instruction set. */
#ifndef PDK_STEERING_H
#define PDK_STEERING_H

#include "math/trig.h"
#include "sim/vehicle_def.h"
#include "vehicle/curve.h"
#include "vehicle/four_wheel.h"
#include "vehicle/four_wheel_substep.h"

#define PI 3.14159265358979323846

/* The command's road-wheel angles for the steering wheel at
 * steer_wheel_deg (pdk_fw_cmd_set). */
static inline void steer_cmd(pdk_fw_cmd *cmd, const pdk_vehicle_def *def, double steer_wheel_deg)
{
    /* The bicycle road-wheel angle: the steering wheel, less its centre
     * offset, within lock, over the ratio (as pdk_st_cmd_set). */
    const pdk_steering_def *sd = &def->steering;
    double lock = sd->lock_deg;
    double wheel_deg = clamp(steer_wheel_deg - sd->center_offset_deg, -lock, lock);
    double delta = wheel_deg * ((PI / 180.0) / sd->ratio);
    cmd->steer_rad = delta;

    /* Ackermann (docs/vehicle-model.md): the ideal angle of front wheel i
     * rolls about the rear axle's line, tan(d_i) = L tan(d) / (L - s_i (t/2)
     * tan(d)), written with sin and cos (both sides times cos d > 0) so that
     * it has no division; the wheel runs ackermann of the way from parallel
     * steer to it. Static toe-in turns each wheel toward the centreline. */
    double sin_d, cos_d;
    pdk_trig_sincos(delta, &sin_d, &cos_d);
    double len = def->chassis.wheelbase_m;
    double half_t = 0.5 * pdk_vehicle_def_track_m(def, 0);
    for (int i = 0; i < PDK_WHEELS; i++) {
        int front = i < PDK_RL;
        double side = (i & 1) ? -1.0 : 1.0;
        double d = 0.0;
        if (front) {
            double ideal = pdk_trig_atan2(len * sin_d, len * cos_d - side * half_t * sin_d);
            d = delta + sd->ackermann * (ideal - delta);
        }
        double toe = front ? def->susp_front.static_toe_rad : def->susp_rear.static_toe_rad;
        d -= side * toe;
        cmd->wheel_steer_rad[i] = d;
        pdk_trig_sincos(d, &cmd->wheel_sin[i], &cmd->wheel_cos[i]);
    }
}

/* 2. of a substep, the wheels' angles: Ackermann and static toe from the
 * command, the toe curve where there is one (toe-in turns the left wheel
 * right and the right wheel left). */
VEC void wheel_angles(const fw_vehicle *restrict vh, wheels *restrict q)
{
    const pdk_fw_cmd *restrict cmd = vh->cmd;
    const pdk_fw_consts *cr = vh->p;
    const pdk_kinematics_def *const kin[2] = {vh->kin[0], vh->kin[1]};
    const v4 side = (v4){1.0, -1.0, 1.0, -1.0}; /* +1 left, -1 right */
    v4 sd = load4(cmd->wheel_sin);
    v4 cd = load4(cmd->wheel_cos);
    v4 delta = load4(cmd->wheel_steer_rad);
    v4 toe = load4(cr->static_toe_rad);
    if (cr->toe_curve != 0u) {
        for (int i = 0; i < PDK_WHEELS; i++) {
            if ((cr->toe_curve >> i) & 1u) {
                double toe_c = pdk_curve_at(&kin[i >> 1]->toe_rad, q->travel[i]);
                toe[i] += toe_c;
                delta[i] -= side[i] * toe_c;
                double s_i, c_i;
                pdk_trig_sincos(delta[i], &s_i, &c_i);
                sd[i] = s_i;
                cd[i] = c_i;
            }
        }
    }
    q->delta = delta;
    q->sin_d = sd;
    q->cos_d = cd;
    q->toe = toe;
}

/* The steering column's torque at the steering wheel, from the last
 * substep's aligning moments mz (keep(loaded, q->mz)): the front tyres'
 * aligning moments about their steering axes (body z: Mz n_z), over the
 * steering ratio; positive turning the wheel left. Caster and kingpin
 * geometry (mechanical trail, scrub radius) are not modelled. */
VEC double steering_torque(const wheels *restrict q, v4 mz, const pdk_fw_consts *restrict p)
{
    return (mz[PDK_FL] * q->nz[PDK_FL] + mz[PDK_FR] * q->nz[PDK_FR]) / p->steering_ratio;
}

/* The torque a force-feedback wheel applies to the driver's hands, from the
 * last substep's aligning moments mz and lateral forces fy (wheel frame,
 * loaded wheels only); positive turning the wheel left.
 *
 * The column torque: about each front wheel's steering axis the tyre's
 * aligning moment (its pneumatic trail) plus the lateral force acting at
 * the mechanical trail t_m behind the axis, Mz - t_m Fy (Gillespie,
 * Fundamentals of Vehicle Dynamics, 1992, ch. 8 "Steering systems";
 * Milliken and Milliken, Race Car Vehicle Dynamics, 1995, ch. 19), taken
 * about body z (n_z) and over the steering ratio:
 *   T_c = sum_front (Mz_i - t_m Fy_i) n_z,i / ratio.
 * The assist (a boost law, as hydraulic and electric assists are tuned):
 * the driver's torque T_d and the assist's T_a = min(g |T_d|, T_max) hold
 * T_c together, so |T_d| = |T_c| / (1 + g) while g |T_d| <= T_max, and
 * |T_c| - T_max beyond; the wheel pushes the hands with T_d's reaction, of
 * T_c's sign. With no assist (g = 0) it is T_c. */
VEC double steering_wheel_torque(const wheels *restrict q, v4 mz, v4 fy,
                                 const pdk_fw_consts *restrict p)
{
    const double trail = p->steering_trail_m;
    double column = ((mz[PDK_FL] - trail * fy[PDK_FL]) * q->nz[PDK_FL] +
                     (mz[PDK_FR] - trail * fy[PDK_FR]) * q->nz[PDK_FR]) /
                    p->steering_ratio;
    const double gain = p->assist_gain;
    if (!(gain > 0.0)) {
        return column;
    }
    double held = fabs(column);
    double boosted = held / (1.0 + gain);
    double driver = gain * boosted <= p->assist_max_nm ? boosted : held - p->assist_max_nm;
    return column < 0.0 ? -driver : driver;
}

#endif
