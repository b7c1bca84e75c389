/* A vehicle's parameters: the resolved, validated, SI definition a vehicle is
 * spawned from. Immutable after spawn. params/ fills it from a preset; sim
 * only reads it. Every field carries its unit in its name. */
#ifndef PDK_VEHICLE_DEF_H
#define PDK_VEHICLE_DEF_H

#include "error.h"

/* Which vehicle model steps the vehicle. Values are stable (recorded). */
typedef enum pdk_model {
    PDK_MODEL_SINGLE_TRACK = 1, /* seed 000: planar bicycle model */
} pdk_model;

/* Chassis of the single-track model: a planar rigid body. */
typedef struct pdk_chassis_def {
    double mass_kg;               /* total mass */
    double yaw_inertia_kgm2;      /* about the vertical axis through the CG */
    double wheelbase_m;           /* front axle to rear axle */
    double cg_to_front_axle_m;    /* CG to front axle, 0 < a < wheelbase */
    double cg_height_m;           /* above ground; longitudinal load transfer */
} pdk_chassis_def;

/* A linear tyre saturating at the friction limit, per axle (both tyres). */
typedef struct pdk_axle_tyre_def {
    double cornering_stiffness_n_per_rad; /* axle total, dFy/d(slip) at 0 */
    double friction_coeff;                /* peak mu on a surface of friction 1 */
} pdk_axle_tyre_def;

typedef struct pdk_steering_def {
    double ratio;               /* steering-wheel angle / road-wheel angle */
    double lock_deg;            /* steering-wheel lock, each side */
} pdk_steering_def;

/* A lumped longitudinal drive: force from pedal, limited by power. */
typedef struct pdk_drive_def {
    double max_force_n;         /* at the contact patches, full pedal, low speed */
    double max_power_w;         /* at the contact patches */
    double front_fraction;      /* share of drive force on the front axle, 0..1 */
    double max_reverse_speed_mps; /* reverse gear governor */
    double max_low_speed_mps;   /* LOW gear governor */
} pdk_drive_def;

typedef struct pdk_brake_def {
    double force_per_bar_n;     /* total brake force at the contacts per bar of line pressure */
    double front_fraction;      /* brake balance, share on the front axle */
    double max_line_bar;        /* line pressure limit */
    double park_hold_force_n;   /* the parking pawl's holding force at the contacts */
} pdk_brake_def;

typedef struct pdk_resist_def {
    double rolling_coeff;       /* rolling-resistance coefficient, F = c * m * g */
    double drag_area_m2;        /* Cd * A */
} pdk_resist_def;

typedef struct pdk_vehicle_def {
    pdk_model model;
    pdk_chassis_def chassis;
    pdk_axle_tyre_def tyre_front;
    pdk_axle_tyre_def tyre_rear;
    pdk_steering_def steering;
    pdk_drive_def drive;
    pdk_brake_def brake;
    pdk_resist_def resist;
} pdk_vehicle_def;

/* The least yaw inertia a definition may have, as a multiple of m a b (a, b:
 * CG to the front and rear axle). Iz / (m a b) is the dynamic index: 1 for
 * a body whose mass sits at its axles, 0.8-1.1 for real cars (Milliken and
 * Milliken, Race Car Vehicle Dynamics, ch. 5), above 1 with long overhangs.
 * A uniform bar reaching from axle to axle has 1/3, the least a body whose
 * mass is spread between its axles can have; 0.3 admits that and refuses
 * what can only be a mistake (inertia in the wrong unit, a typo: 20 kg m^2
 * for a 38 t truck is 3e-4). */
#define PDK_MIN_YAW_INERTIA_RATIO 0.3

/* A mid-size road car; every field valid. Presets start from here. */
pdk_vehicle_def pdk_vehicle_def_default(void);

/* Checks invariants between fields that params' per-field bounds cannot
 * (e.g. cg_to_front_axle_m < wheelbase_m, yaw_inertia_kgm2 >=
 * PDK_MIN_YAW_INERTIA_RATIO m a b). Returns PDK_OK or
 * PDK_ERR_OUT_OF_RANGE / PDK_ERR_INVALID_ARGUMENT. */
pdk_error pdk_vehicle_def_check(const pdk_vehicle_def *def);

/* The least yaw inertia pdk_vehicle_def_check accepts for def's mass and
 * geometry: PDK_MIN_YAW_INERTIA_RATIO m a b, less 1e-9 of it so that the
 * bound itself, printed and typed back, passes despite rounding. params
 * quotes it in its own message. */
double pdk_vehicle_def_min_yaw_inertia_kgm2(const pdk_vehicle_def *def);

/* Why def fails pdk_vehicle_def_check: a sentence naming the first field that
 * fails and the bound it breaks (e.g. "chassis.cg_to_front_axle_m must be
 * above 0 and below chassis.wheelbase_m"), or NULL when def passes. The
 * string is static; nothing is allocated. */
const char *pdk_vehicle_def_problem(const pdk_vehicle_def *def);

#endif
