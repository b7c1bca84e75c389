/* Tyre life: what a tyre carries beyond its force law, updated once per tick
 * per wheel from what the tick's substeps did to it, and fed back into the
 * next tick's grip, radius and rolling drag.
 *
 *  - Heat in two layers plus the gas: the tread surface heats in seconds from
 *    the sliding power |Fx Vsx| + |Fy Vsy| (a share a_f of it) and cools into
 *    the air (faster with speed), into the road while in contact and into the
 *    carcass; the carcass warms in minutes from flexing (hysteresis power f_rr
 *    Fz |Vx|, more for a soft tyre) and exchanges with the gas, which follows
 *    it. Each node is advanced by the backward Euler step of its linear
 *    balance, so it is stable at any tick length.
 *  - Grip window: peak grip is 1 at optimal_temp_c and falls as a parabola
 *    to (1 - window_loss) at optimal_temp_c +- window_c, and no lower than
 *    min_temp_grip beyond (cold tyres slide, cooked ones go greasy).
 *    Pressure: grip is best a little above the cold setting
 *    (pressure_grip_slope per relative pressure deviation from the best).
 *    A FLAT tyre has half of its window-and-wear grip, whatever its
 *    pressure.
 *  - Pressure from the gas law at constant volume: p_abs = p_abs,cold T_gas /
 *    T_cold (2.2 bar gauge cold at 20 C is 2.86 bar at 80 C; a real tyre's
 *    volume grows a little with pressure, so measured rises are somewhat
 *    smaller). The gauge pressure scales with the share of air left, which a
 *    puncture lowers at its leak rate (a share of the full charge per second,
 *    linearly).
 *  - Rolling drag and flexing heat: an intact tyre's rolling coefficient
 *    follows its pressure as f = 0.005 + 0.01 / p[bar] does (the usual
 *    empirical fit for car tyres at low speed, e.g. The Engineering
 *    Toolbox's "Rolling Resistance"), relative to its cold setting.
 *  - Wear (Archard's law, as Schallamach applied it to rubber): tread depth
 *    falls in proportion to sliding work, three times faster above 120 C; grip
 *    falls with wear; a worn-out tyre blows (condition FLAT at once).
 *  - Conditions: INTACT; FLAT (on its sidewalls: lower by the deflated drop,
 *    half the grip, six times the rolling drag; after flat_to_rim_m of running
 *    flat it shreds to RIM); RIM (metal on the road: rim radius, grip 0.3, ten
 *    times the drag, est.); DETACHED (the wheel is off, the car sits on its
 *    hub: hub radius, grip 0.2, 18 times the drag, which with a road tyre's f
 *    of 0.011 is the hub's sliding friction 0.2). A puncture leaks until a
 *    quarter of the air is left, then the tyre is FLAT. A tyre without air or
 *    tread takes no heat in. SET_CONDITION INTACT refills the tyre (the tread
 *    stays as it was); REPLACE fits a new one and keeps the corner's damage
 *    grip scale.
 *  - Damage scales: a per-wheel grip scale and the vehicle's engine power
 *    scale, set by input.
 *
 * Everything is plain data and a pure function of state, definition and
 * the tick's inputs, so a recording replays it exactly; the inputs that
 * change it (puncture, set condition, replace tyres, set temperature,
 * grip and power scales) are pdk_tyre_action values applied at tick
 * boundaries by the world. */
#ifndef PDK_TYRE_LIFE_H
#define PDK_TYRE_LIFE_H

#include "sim/tyre_life_def.h"

#include <stdint.h>

/* A road tyre's life parameters (the defaults, sized for a car tyre) for a
 * tyre of radius_m at cold_pressure_kpa. */
pdk_tyre_life_def pdk_tyre_life_def_default(double radius_m, double cold_pressure_kpa);

/* Why def cannot be used, naming the field ("tyre.life.window_c must be
 * above 0"), or NULL. */
const char *pdk_tyre_life_def_problem(const pdk_tyre_life_def *def);

/* One tyre's life state: plain data, part of the vehicle state and hash. */
typedef struct pdk_tyre_life {
    double surface_temp_c;
    double carcass_temp_c;
    double gas_temp_c;
    double air_share;      /* air left, 1 intact .. 0 */
    double leak_per_s;     /* 0 without a puncture */
    double tread_m;        /* tread depth left */
    double flat_run_m;     /* distance run while FLAT */
    double grip_scale;     /* the damage scale set by input, 1 */
    int32_t condition;     /* pdk_tyre_condition */
    int32_t pad;
} pdk_tyre_life;

/* A new tyre at ambient_c throughout. */
void pdk_tyre_life_init(pdk_tyre_life *life, const pdk_tyre_life_def *def, double ambient_c);

/* What the tick did to the tyre: its means over the tick's substeps. */
typedef struct pdk_tyre_work {
    double slide_power_w;  /* |Fx Vsx| + |Fy Vsy| */
    double load_n;         /* Fz */
    double roll_speed_mps; /* |Vx|, the contact's forward speed */
    double contact;        /* share of the tick in contact, 0..1 */
    double air_temp_c;
    double road_temp_c;
} pdk_tyre_work;

/* Advances the tyre by dt_s. */
void pdk_tyre_life_step(pdk_tyre_life *life, const pdk_tyre_life_def *def,
                        const pdk_tyre_work *work, double dt_s);

/* Advances four tyres by dt_s, tyre i as pdk_tyre_life_step(&lives[i],
 * defs[i], &works[i], dt_s) does, bit for bit: their convection's powers
 * of the speed taken in one vector call instead of four. */
void pdk_tyre_life_step4(pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[4],
                         const pdk_tyre_work works[4], double dt_s);

/* What the tyre gives the force law and the strut now. */
typedef struct pdk_tyre_effect {
    double grip;           /* multiplies the law's peak forces: window, pressure, wear,
                            * condition and the damage scale together */
    double radius_drop_m;  /* how much lower the wheel centre sits than on an intact,
                            * inflated tyre (flat, rim, hub) */
    double rolling_scale;  /* multiplies the rolling resistance (6 when flat) */
    double pressure_kpa;   /* gauge, now */
} pdk_tyre_effect;

void pdk_tyre_life_effect(const pdk_tyre_life *life, const pdk_tyre_life_def *def,
                          double radius_m, pdk_tyre_effect *out);

/* Why (action, value) is refused for a tyre, naming the bound ("value
 * must be a tyre condition 0..3"), or NULL. */
const char *pdk_tyre_action_problem(int action, double value);

/* Applies an accepted action. */
void pdk_tyre_life_apply(pdk_tyre_life *life, const pdk_tyre_life_def *def, int action,
                         double value, double ambient_c);

#endif
