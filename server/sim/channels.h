/* The telemetry channel registry: every channel a vehicle reports, with its
 * unit and meaning. A vehicle writes one value per channel every tick; the
 * CSV writer, subscribers and `paddockd channels` all read this one list. */
#ifndef PDK_CHANNELS_H
#define PDK_CHANNELS_H

#include <stddef.h>

/* X(enum, name, unit, description). Append only: the index is the order. */
#define PDK_CHANNEL_LIST(X)                                                             \
    X(PDK_CH_POS_X, "PosX", "m", "CG position, world x")                                \
    X(PDK_CH_POS_Y, "PosY", "m", "CG position, world y")                                \
    X(PDK_CH_POS_Z, "PosZ", "m", "CG height above the world origin")                    \
    X(PDK_CH_YAW, "Yaw", "rad", "heading, counter-clockwise from world x")              \
    X(PDK_CH_SPEED, "Speed", "m/s", "magnitude of the CG velocity")                     \
    X(PDK_CH_VEL_X, "VelX", "m/s", "CG velocity, body x (forward)")                     \
    X(PDK_CH_VEL_Y, "VelY", "m/s", "CG velocity, body y (left)")                        \
    X(PDK_CH_YAW_RATE, "YawRate", "rad/s", "yaw rate, positive turning left")           \
    X(PDK_CH_ACCEL_X, "AccelX", "m/s^2", "CG acceleration, body x")                     \
    X(PDK_CH_ACCEL_Y, "AccelY", "m/s^2", "CG acceleration, body y")                     \
    X(PDK_CH_STEER_ANGLE, "SteerAngle", "rad", "road-wheel angle of the bicycle front") \
    X(PDK_CH_STEER_WHEEL, "SteerWheel", "deg", "steering-wheel angle")                  \
    X(PDK_CH_THROTTLE, "Throttle", "%", "pedal position")                               \
    X(PDK_CH_BRAKE, "BrakePressure", "bar", "brake line pressure")                      \
    X(PDK_CH_GEAR, "Gear", "enum", "gear (DBW2 Gear values: 1 P, 2 R, 3 N, 4 D, 5 L)")  \
    X(PDK_CH_TYRE_LOAD_F, "TyreLoad_F", "N", "front axle normal load")                  \
    X(PDK_CH_TYRE_LOAD_R, "TyreLoad_R", "N", "rear axle normal load")                   \
    X(PDK_CH_SLIP_ANGLE_F, "SlipAngle_F", "rad", "front axle slip angle")               \
    X(PDK_CH_SLIP_ANGLE_R, "SlipAngle_R", "rad", "rear axle slip angle")                \
    X(PDK_CH_FORCE_X_F, "TyreForceX_F", "N", "front axle longitudinal force, wheel frame") \
    X(PDK_CH_FORCE_X_R, "TyreForceX_R", "N", "rear axle longitudinal force, wheel frame")  \
    X(PDK_CH_FORCE_Y_F, "TyreForceY_F", "N", "front axle lateral force, wheel frame")      \
    X(PDK_CH_FORCE_Y_R, "TyreForceY_R", "N", "rear axle lateral force, wheel frame")       \
    X(PDK_CH_DRAG, "DragForce", "N", "aerodynamic drag along body x (opposes motion)")     \
    X(PDK_CH_ROLLING, "RollingResistance", "N", "rolling resistance along body x")      \
    X(PDK_CH_FAULTED, "Faulted", "bool",                                                 \
      "1 once the state went non-finite and the vehicle was stopped, else 0")

typedef enum pdk_channel {
#define PDK_CHANNEL_ENUM_(id, name, unit, desc) id,
    PDK_CHANNEL_LIST(PDK_CHANNEL_ENUM_)
#undef PDK_CHANNEL_ENUM_
    PDK_CH_COUNT
} pdk_channel;

typedef struct pdk_channel_info {
    const char *name;
    const char *unit;
    const char *description;
} pdk_channel_info;

/* Info for channel index ch, or NULL when ch >= PDK_CH_COUNT. */
const pdk_channel_info *pdk_channel_get(size_t ch);

/* Index of the channel named name (exact, case-sensitive), or -1. */
int pdk_channel_find(const char *name);

#endif
