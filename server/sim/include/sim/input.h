/* The drive-by-wire command a vehicle takes at a tick boundary. */
#ifndef PDK_INPUT_H
#define PDK_INPUT_H

#include <stdint.h>

/* Gear values are the DBW2 kit's numeric Gear enum (Dataspeed's
 * ds_dbw_msgs/Gear). */
typedef enum pdk_gear {
    PDK_GEAR_NONE = 0, /* "no change" in a command */
    PDK_GEAR_PARK = 1,
    PDK_GEAR_REVERSE = 2,
    PDK_GEAR_NEUTRAL = 3,
    PDK_GEAR_DRIVE = 4,
    PDK_GEAR_LOW = 5,
} pdk_gear;

/* Which fields of a pdk_dbw_cmd are set; an unset field keeps its value. */
enum {
    PDK_DBW_THROTTLE = 1u << 0,
    PDK_DBW_BRAKE = 1u << 1,
    PDK_DBW_STEER = 1u << 2,
    PDK_DBW_GEAR = 1u << 3,
    PDK_DBW_GEAR_NUMBER = 1u << 4,
};

typedef struct pdk_dbw_cmd {
    uint32_t fields;        /* PDK_DBW_* bits */
    double throttle_pct;    /* 0..100 */
    double brake_bar;       /* 0..brake.max_line_bar */
    double steer_wheel_deg; /* positive turns left, within steering lock */
    pdk_gear gear;          /* PARK..LOW */
    int32_t gear_number;    /* a manual gearbox's forward gear in D, 1..its gears */
} pdk_dbw_cmd;

/* A pose in the world frame (ISO 8855: x forward, y left, z up). */
typedef struct pdk_pose {
    double x_m;
    double y_m;
    double yaw_rad;
} pdk_pose;

#endif
