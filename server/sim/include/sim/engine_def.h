/* An engine's definition, part of a vehicle definition; the engine's
 * torque and governor are sim's (powertrain/engine.h). */
#ifndef PDK_SIM_ENGINE_DEF_H
#define PDK_SIM_ENGINE_DEF_H

/* Most points of a full-load torque curve. */
#define PDK_ENGINE_CURVE_MAX 16

typedef struct pdk_engine_def {
    double idle_rpm;                        /* the idle governor's speed */
    double max_rpm;                         /* the rev limiter's: no fuel at or above it */
    int n_curve;                            /* points of the full-load curve, 2..16 */
    double curve_rpm[PDK_ENGINE_CURVE_MAX]; /* rising */
    double curve_nm[PDK_ENGINE_CURVE_MAX];  /* full-load torque at each, >= 0 */
    double inertia_kgm2;                    /* crank, flywheel, primary clutch */
    double accessory_drag_nm;               /* alternator, pumps */
    double displacement_l;                  /* swept volume */
    double indicated_efficiency;            /* the Willans line's */
    double fmep_bar;                        /* friction mean effective pressure: constant */
    double fmep_bar_per_krpm;               /* linear in n / 1000 rev/min */
    double fmep_bar_per_krpm2;              /* quadratic */
    double pumping_bar;                     /* pumping mean effective pressure, throttle shut */
    double torque_lag_s;                    /* time constant of the torque request */
    double idle_gain;                       /* proportional gain of the idle governor */
    double pedal_exponent;                  /* gamma of the pedal map p^max(0.1, gamma) */
    double max_speed_mps;                   /* governed top speed; 0: no governor */
} pdk_engine_def;

/* Full-load torque at speed rpm: the curve's linear interpolation, its
 * first value below its first point, its last one above its last, 0 at and
 * above max_rpm. Public so that an analytic check outside sim (the
 * validation's power-limited top speed) reads the engine the step runs. */
double pdk_engine_full_load_nm(const pdk_engine_def *def, double rpm);

#endif
