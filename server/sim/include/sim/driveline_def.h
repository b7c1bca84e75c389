/* The driveline's differentials and couplings as a vehicle definition
 * names them; the implicit driveline is sim's (powertrain/driveline.h). */
#ifndef PDK_SIM_DRIVELINE_DEF_H
#define PDK_SIM_DRIVELINE_DEF_H

typedef enum pdk_diff_kind {
    PDK_DIFF_OPEN = 0,
    PDK_DIFF_LOCKED = 1, /* a spool, or a locker engaged */
    PDK_DIFF_LSD = 2     /* torque bias ratio and preload */
} pdk_diff_kind;

typedef struct pdk_dl_diff {
    pdk_diff_kind kind;
    double bias_ratio; /* LSD: TBR >= 1 */
    double preload_nm; /* LSD: >= 0 */
} pdk_dl_diff;

/* The most torque difference between a differential's two outputs that its
 * friction holds at an input torque of sum_nm (their sum): k_b |sum| + P,
 * k_b = (TBR - 1) / (TBR + 1) and P the preload, for a limited slip one;
 * 0 for an open one; any (HUGE_VAL) for a locked one. Beyond it the
 * outputs turn apart, the slower taking the larger torque (the driveline's
 * solve, powertrain/driveline.h; the torque bias ratio's definition,
 * Milliken and Milliken, Race Car Vehicle Dynamics, 1995, ch. 20). */
double pdk_dl_diff_hold_nm(const pdk_dl_diff *diff, double sum_nm);

typedef enum pdk_dl_coupling {
    PDK_COUPLING_NONE = 0,    /* the secondary axle is not driven */
    PDK_COUPLING_LOCKED = 1,  /* turns at K c through its own differential */
    PDK_COUPLING_OVERRUN = 2, /* an overrunning clutch per wheel, driving in sign(c) */
    PDK_COUPLING_BOTH = 3,    /* the overrunning clutches locked both ways */
    PDK_COUPLING_CENTRE = 4   /* full-time AWD: a centre differential (centre_diff) between
                               * the primary carrier and the secondary ring's K-scaled speed */
} pdk_dl_coupling;

#endif
