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

#include <stdint.h>

/* Values are stable (state, recordings, the wire). */
typedef enum pdk_tyre_condition {
    PDK_TYRE_INTACT = 0,
    PDK_TYRE_FLAT = 1,
    PDK_TYRE_RIM = 2,
    PDK_TYRE_DETACHED = 3,
} pdk_tyre_condition;

/* A tyre's life parameters (one per axle), SI; temperatures in deg C. */
typedef struct pdk_tyre_life_def {
    double cold_pressure_kpa;   /* gauge, set at cold_temp_c */
    double cold_temp_c;         /* the temperature the cold pressure is set at, 20 */
    double optimal_temp_c;      /* grip window centre (default 80) */
    double window_c;            /* half width (default 55) */
    double window_loss;         /* grip lost at the window's edge, 0..1 */
    double min_temp_grip;       /* the window's grip never falls below this, 0..1 */
    double best_pressure_ratio; /* the gauge pressure with the best grip over the cold
                                 * setting; the default is the gas law's at
                                 * optimal_temp_c (1.30 for 2.2 bar) */
    double pressure_grip_slope; /* grip lost per unit of |p/p_best - 1| */
    double surface_heat_capacity_jpk;  /* C_s */
    double carcass_heat_capacity_jpk;  /* C_c */
    double gas_heat_capacity_jpk;      /* C_g */
    double slide_heat_share;    /* a_f: share of sliding power into the tread */
    double surface_carcass_wpk; /* G_sc */
    double carcass_gas_wpk;     /* G_cg */
    double road_wpk;            /* G_road: surface to road while on the ground, the patch's
                                 * share of the tread already in it (times contact) */
    double air_wpk;             /* h A at rest, surface and carcass each */
    double air_wpk_per_mps;     /* h A's growth with speed: + this * v^0.8 (v in m/s) */
    double hysteresis_coeff;    /* f_rr in P_hyst = f_rr Fz |Vx| */
    double heat_scale;          /* 0 turns heating off */
    double tread_depth_m;       /* new */
    double wear_m_per_j;        /* k_w: depth lost per J of sliding work */
    double wear_scale;          /* 0 turns wear off */
    double worn_grip;           /* grip at zero tread, 0..1 */
    double leak_per_s;          /* the leak rate for a puncture given without one (params),
                                 * share of the air per second */
    double flat_drop_m;         /* radius lost when flat */
    double rim_radius_m;        /* radius on the rim */
    double hub_radius_m;        /* the hub's height when the wheel is off */
    double flat_to_rim_m;       /* distance run flat before the tyre shreds (default 1500) */
} pdk_tyre_life_def;

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

/* The inputs that change a tyre (recorded; applied at tick boundaries). */
typedef enum pdk_tyre_action {
    PDK_TYRE_PUNCTURE = 1,      /* value: leak rate, share of the air per second (0..1; 0
                                 * for the def's leak_per_s) */
    PDK_TYRE_SET_CONDITION = 2, /* value: a pdk_tyre_condition */
    PDK_TYRE_REPLACE = 3,       /* a fresh tyre at the ambient temperature (value ignored) */
    PDK_TYRE_SET_TEMPERATURE = 4, /* value: deg C, all three layers (tyre warmers) */
    PDK_TYRE_SET_GRIP_SCALE = 5,  /* value: 0..2 */
    PDK_TYRE_SET_POWER_SCALE = 6, /* value: 0..1, the vehicle's engine power scale (the
                                   * world applies it; not a tyre's) */
} pdk_tyre_action;

/* Why (action, value) is refused for a tyre, naming the bound ("value
 * must be a tyre condition 0..3"), or NULL. */
const char *pdk_tyre_action_problem(int action, double value);

/* Applies an accepted action. */
void pdk_tyre_life_apply(pdk_tyre_life *life, const pdk_tyre_life_def *def, int action,
                         double value, double ambient_c);

#endif
