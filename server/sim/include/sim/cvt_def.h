/* A CVT's definition, part of a vehicle definition; its clutches and
 * ratio are sim's (powertrain/cvt.h). */
#ifndef PDK_SIM_CVT_DEF_H
#define PDK_SIM_CVT_DEF_H

#include <stdbool.h>

typedef struct pdk_cvt_def {
    double low_ratio;              /* the lowest belt ratio (largest number) */
    double high_ratio;             /* the overdrive ratio */
    double engage_rpm;             /* the clutch starts to grip */
    double full_engage_rpm;        /* and has its full capacity */
    double clutch_capacity_nm;     /* C_max */
    double ebs_capacity_nm;        /* C_ebs,max */
    double shift_rpm_light;        /* shift speed with no torque through the belt */
    double shift_rpm_full;         /* and at the engine's peak torque */
    double shift_tau_s;            /* time constant of the ratio */
    double belt_efficiency;        /* for the driveline */
    double gear_efficiency;        /* for the driveline */
    double secondary_inertia_kgm2; /* secondary clutch and gearbox, for the driveline */
    bool ebs;                      /* the Engine Braking System is on */
    bool adc;                      /* Active Descent Control is on (the driveline's) */
} pdk_cvt_def;

#endif
