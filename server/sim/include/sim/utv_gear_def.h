/* A UTV gearbox's definition, its gears and the lever's rejects; the
 * lever itself is sim's (powertrain/utv_gear.h). */
#ifndef PDK_SIM_UTV_GEAR_DEF_H
#define PDK_SIM_UTV_GEAR_DEF_H

typedef enum pdk_utv_gear {
    PDK_UTV_GEAR_NONE = 0, /* a request of no change */
    PDK_UTV_GEAR_PARK = 1,
    PDK_UTV_GEAR_REVERSE = 2,
    PDK_UTV_GEAR_NEUTRAL = 3,
    PDK_UTV_GEAR_HIGH = 4,
    PDK_UTV_GEAR_LOW = 5
} pdk_utv_gear;

/* ds_dbw_msgs/GearReject. */
typedef enum pdk_gear_reject {
    PDK_GEAR_REJECT_NONE = 0,
    PDK_GEAR_REJECT_FAULT = 1,
    PDK_GEAR_REJECT_UNSUPPORTED = 2,
    PDK_GEAR_REJECT_SHIFT_IN_PROGRESS = 3,
    PDK_GEAR_REJECT_OVERRIDE = 4,
    PDK_GEAR_REJECT_BRAKE_HOLD = 5,
    PDK_GEAR_REJECT_VEHICLE_SPEED = 6,
    PDK_GEAR_REJECT_VEHICLE = 7
} pdk_gear_reject;

typedef struct pdk_utv_gearbox_def {
    double rear_low, rear_high, rear_reverse;    /* reductions to the rear wheels */
    double front_low, front_high, front_reverse; /* to the front prop shaft */
    double front_drive;                          /* the front drive's ratio */
    double park_hold_nm;                         /* the park pawl's most torque at the carrier */
    double shift_below_mps;                      /* a change happens only below this speed */
    double shift_time_s;                         /* and lasts this long, in neutral */
} pdk_utv_gearbox_def;

#endif
