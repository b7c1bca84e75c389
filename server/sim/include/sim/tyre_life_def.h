/* A tyre's life definition (wear, heat, pressure, punctures), its
 * conditions and the tyre inputs a client sends; the life itself is
 * sim's (tyre/tyre_life.h). */
#ifndef PDK_SIM_TYRE_LIFE_DEF_H
#define PDK_SIM_TYRE_LIFE_DEF_H

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

#endif
