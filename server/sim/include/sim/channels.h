/* The telemetry channel registry: every channel a vehicle reports, with its
 * unit and meaning. A vehicle writes one value per channel every tick; the
 * CSV writer, subscribers and `paddockd channels` all read this one list. */
#ifndef PDK_CHANNELS_H
#define PDK_CHANNELS_H

#include <stddef.h>

/* Four channels of one kind, one per wheel, FL FR RL RR in a row (the
 * four-wheel step stores a kind's four values at once). */
#define PDK_CHANNEL_WHEELS_(X, id, name, unit, what)                                               \
    X(id##_FL, name "_FL", unit, "front left, " what)                                              \
    X(id##_FR, name "_FR", unit, "front right, " what)                                             \
    X(id##_RL, name "_RL", unit, "rear left, " what)                                               \
    X(id##_RR, name "_RR", unit, "rear right, " what)

/* X(enum, name, unit, description). Append only: the index is the order. */
#define PDK_CHANNEL_LIST(X)                                                                        \
    X(PDK_CH_POS_X, "PosX", "m", "CG position, world x")                                           \
    X(PDK_CH_POS_Y, "PosY", "m", "CG position, world y")                                           \
    X(PDK_CH_POS_Z, "PosZ", "m", "CG height above the world origin")                               \
    X(PDK_CH_YAW, "Yaw", "rad", "heading, counter-clockwise from world x")                         \
    X(PDK_CH_SPEED, "Speed", "m/s", "magnitude of the CG velocity over the ground (horizontal)")   \
    X(PDK_CH_VEL_X, "VelX", "m/s", "CG velocity, body x (forward)")                                \
    X(PDK_CH_VEL_Y, "VelY", "m/s", "CG velocity, body y (left)")                                   \
    X(PDK_CH_YAW_RATE, "YawRate", "rad/s", "yaw rate, positive turning left")                      \
    X(PDK_CH_ACCEL_X, "AccelX", "m/s^2",                                                           \
      "CG acceleration along body x as an accelerometer reads it (gravity's reaction included)")   \
    X(PDK_CH_ACCEL_Y, "AccelY", "m/s^2",                                                           \
      "CG acceleration along body y as an accelerometer reads it (gravity's reaction included)")   \
    X(PDK_CH_STEER_ANGLE, "SteerAngle", "rad", "road-wheel angle of the bicycle front")            \
    X(PDK_CH_STEER_WHEEL, "SteerWheel", "deg", "steering-wheel angle")                             \
    X(PDK_CH_THROTTLE, "Throttle", "%", "pedal position")                                          \
    X(PDK_CH_BRAKE, "BrakePressure", "bar", "brake line pressure")                                 \
    X(PDK_CH_GEAR, "Gear", "enum", "gear (DBW2 Gear values: 1 P, 2 R, 3 N, 4 D, 5 L)")             \
    X(PDK_CH_TYRE_LOAD_F, "TyreLoad_F", "N", "front axle normal load")                             \
    X(PDK_CH_TYRE_LOAD_R, "TyreLoad_R", "N", "rear axle normal load")                              \
    X(PDK_CH_SLIP_ANGLE_F, "SlipAngle_F", "rad", "front axle slip angle")                          \
    X(PDK_CH_SLIP_ANGLE_R, "SlipAngle_R", "rad", "rear axle slip angle")                           \
    X(PDK_CH_FORCE_X_F, "TyreForceX_F", "N", "front axle longitudinal force, wheel frame")         \
    X(PDK_CH_FORCE_X_R, "TyreForceX_R", "N", "rear axle longitudinal force, wheel frame")          \
    X(PDK_CH_FORCE_Y_F, "TyreForceY_F", "N", "front axle lateral force, wheel frame")              \
    X(PDK_CH_FORCE_Y_R, "TyreForceY_R", "N", "rear axle lateral force, wheel frame")               \
    X(PDK_CH_DRAG, "DragForce", "N", "aerodynamic drag along body x (opposes motion)")             \
    X(PDK_CH_ROLLING, "RollingResistance", "N", "rolling resistance along body x")                 \
    X(PDK_CH_FAULTED, "Faulted", "bool",                                                           \
      "1 once the state became impossible and the vehicle was held (FaultCode says why), else 0")  \
    X(PDK_CH_ROLL, "Roll", "rad", "body roll angle (ZYX Euler), positive right side down")         \
    X(PDK_CH_PITCH, "Pitch", "rad", "body pitch angle (ZYX Euler), positive nose down")            \
    X(PDK_CH_ROLL_RATE, "RollRate", "rad/s", "angular velocity about body x")                      \
    X(PDK_CH_PITCH_RATE, "PitchRate", "rad/s", "angular velocity about body y")                    \
    X(PDK_CH_VEL_Z, "VelZ", "m/s", "CG velocity, world z (up)")                                    \
    X(PDK_CH_ACCEL_Z, "AccelZ", "m/s^2",                                                           \
      "CG acceleration along body z as an accelerometer reads it: +g at rest")                     \
    X(PDK_CH_SUSP_TRAVEL_FL, "SuspTravel_FL", "m",                                                 \
      "front left, strut travel from the static ride position, positive in bump")                  \
    X(PDK_CH_SUSP_TRAVEL_FR, "SuspTravel_FR", "m",                                                 \
      "front right, strut travel from the static ride position, positive in bump")                 \
    X(PDK_CH_SUSP_TRAVEL_RL, "SuspTravel_RL", "m",                                                 \
      "rear left, strut travel from the static ride position, positive in bump")                   \
    X(PDK_CH_SUSP_TRAVEL_RR, "SuspTravel_RR", "m",                                                 \
      "rear right, strut travel from the static ride position, positive in bump")                  \
    X(PDK_CH_SUSP_FORCE_FL, "SuspForce_FL", "N",                                                   \
      "front left, strut force: spring, damper, anti-roll bar and bump stop, never negative")      \
    X(PDK_CH_SUSP_FORCE_FR, "SuspForce_FR", "N",                                                   \
      "front right, strut force: spring, damper, anti-roll bar and bump stop, never negative")     \
    X(PDK_CH_SUSP_FORCE_RL, "SuspForce_RL", "N",                                                   \
      "rear left, strut force: spring, damper, anti-roll bar and bump stop, never negative")       \
    X(PDK_CH_SUSP_FORCE_RR, "SuspForce_RR", "N",                                                   \
      "rear right, strut force: spring, damper, anti-roll bar and bump stop, never negative")      \
    X(PDK_CH_WHEEL_STEER_FL, "WheelSteer_FL", "rad",                                               \
      "front left, road-wheel angle about body z, positive left; Ackermann, static toe and toe "   \
      "curve included")                                                                            \
    X(PDK_CH_WHEEL_STEER_FR, "WheelSteer_FR", "rad",                                               \
      "front right, road-wheel angle about body z, positive left; Ackermann, static toe and toe "  \
      "curve included")                                                                            \
    X(PDK_CH_WHEEL_STEER_RL, "WheelSteer_RL", "rad",                                               \
      "rear left, road-wheel angle about body z, positive left; Ackermann, static toe and toe "    \
      "curve included")                                                                            \
    X(PDK_CH_WHEEL_STEER_RR, "WheelSteer_RR", "rad",                                               \
      "rear right, road-wheel angle about body z, positive left; Ackermann, static toe and toe "   \
      "curve included")                                                                            \
    X(PDK_CH_CAMBER_FL, "Camber_FL", "rad",                                                        \
      "front left, inclination to the contact normal in the ISO tyre convention: positive when "   \
      "the top leans toward -y (right)")                                                           \
    X(PDK_CH_CAMBER_FR, "Camber_FR", "rad",                                                        \
      "front right, inclination to the contact normal in the ISO tyre convention: positive when "  \
      "the top leans toward -y (right)")                                                           \
    X(PDK_CH_CAMBER_RL, "Camber_RL", "rad",                                                        \
      "rear left, inclination to the contact normal in the ISO tyre convention: positive when "    \
      "the top leans toward -y (right)")                                                           \
    X(PDK_CH_CAMBER_RR, "Camber_RR", "rad",                                                        \
      "rear right, inclination to the contact normal in the ISO tyre convention: positive when "   \
      "the top leans toward -y (right)")                                                           \
    X(PDK_CH_TOE_FL, "Toe_FL", "rad", "front left, toe, static plus curve, positive toe-in")       \
    X(PDK_CH_TOE_FR, "Toe_FR", "rad", "front right, toe, static plus curve, positive toe-in")      \
    X(PDK_CH_TOE_RL, "Toe_RL", "rad", "rear left, toe, static plus curve, positive toe-in")        \
    X(PDK_CH_TOE_RR, "Toe_RR", "rad", "rear right, toe, static plus curve, positive toe-in")       \
    X(PDK_CH_TYRE_LOAD_FL, "TyreLoad_FL", "N",                                                     \
      "front left, tyre vertical load along the contact normal")                                   \
    X(PDK_CH_TYRE_LOAD_FR, "TyreLoad_FR", "N",                                                     \
      "front right, tyre vertical load along the contact normal")                                  \
    X(PDK_CH_TYRE_LOAD_RL, "TyreLoad_RL", "N",                                                     \
      "rear left, tyre vertical load along the contact normal")                                    \
    X(PDK_CH_TYRE_LOAD_RR, "TyreLoad_RR", "N",                                                     \
      "rear right, tyre vertical load along the contact normal")                                   \
    X(PDK_CH_SLIP_ANGLE_FL, "SlipAngle_FL", "rad",                                                 \
      "front left, tyre slip angle the force law sees (four-wheel: the lateral deflection's, "     \
      "atan(u_y / sigma_alpha)), steady: atan of lateral over longitudinal contact speed")         \
    X(PDK_CH_SLIP_ANGLE_FR, "SlipAngle_FR", "rad",                                                 \
      "front right, tyre slip angle the force law sees (four-wheel: the lateral deflection's, "    \
      "atan(u_y / sigma_alpha)), steady: atan of lateral over longitudinal contact speed")         \
    X(PDK_CH_SLIP_ANGLE_RL, "SlipAngle_RL", "rad",                                                 \
      "rear left, tyre slip angle the force law sees (four-wheel: the lateral deflection's, "      \
      "atan(u_y / sigma_alpha)), steady: atan of lateral over longitudinal contact speed")         \
    X(PDK_CH_SLIP_ANGLE_RR, "SlipAngle_RR", "rad",                                                 \
      "rear right, tyre slip angle the force law sees (four-wheel: the lateral deflection's, "     \
      "atan(u_y / sigma_alpha)), steady: atan of lateral over longitudinal contact speed")         \
    X(PDK_CH_FORCE_X_FL, "TyreFx_FL", "N", "front left, tyre longitudinal force, wheel frame")     \
    X(PDK_CH_FORCE_X_FR, "TyreFx_FR", "N", "front right, tyre longitudinal force, wheel frame")    \
    X(PDK_CH_FORCE_X_RL, "TyreFx_RL", "N", "rear left, tyre longitudinal force, wheel frame")      \
    X(PDK_CH_FORCE_X_RR, "TyreFx_RR", "N", "rear right, tyre longitudinal force, wheel frame")     \
    X(PDK_CH_FORCE_Y_FL, "TyreFy_FL", "N", "front left, tyre lateral force, wheel frame")          \
    X(PDK_CH_FORCE_Y_FR, "TyreFy_FR", "N", "front right, tyre lateral force, wheel frame")         \
    X(PDK_CH_FORCE_Y_RL, "TyreFy_RL", "N", "rear left, tyre lateral force, wheel frame")           \
    X(PDK_CH_FORCE_Y_RR, "TyreFy_RR", "N", "rear right, tyre lateral force, wheel frame")          \
    X(PDK_CH_GEOMETRIC_TRANSFER_F, "GeometricTransfer_F", "N",                                     \
      "front axle load moved from the left to the right tyre by the roll-centre links")            \
    X(PDK_CH_GEOMETRIC_TRANSFER_R, "GeometricTransfer_R", "N",                                     \
      "rear axle load moved from the left to the right tyre by the roll-centre links")             \
    X(PDK_CH_PITCH_LINK_LOAD_F, "PitchLinkLoad_F", "N",                                            \
      "front axle anti-dive/anti-squat link force on the body, positive up")                       \
    X(PDK_CH_PITCH_LINK_LOAD_R, "PitchLinkLoad_R", "N",                                            \
      "rear axle anti-dive/anti-squat link force on the body, positive up")                        \
    X(PDK_CH_JACKING_FORCE_F, "JackingForce_F", "N",                                               \
      "front axle net vertical force of the lateral links on the body, positive up")               \
    X(PDK_CH_JACKING_FORCE_R, "JackingForce_R", "N",                                               \
      "rear axle net vertical force of the lateral links on the body, positive up")                \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_SLIP_RATIO, "SlipRatio", "1",                                    \
                        "tyre longitudinal slip kappa the force law sees (the deflection's, "      \
                        "u_x / sigma_kappa), positive driving, -1 locked")                         \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_TYRE_MZ, "TyreMz", "N m",                                        \
                        "tyre aligning moment about the contact normal, positive turning left")    \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_WHEEL_SPEED, "WheelSpeed", "rad/s",                              \
                        "wheel spin, positive rolling forward")                                    \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_SURFACE_TEMP, "SurfaceTemp", "degC",                             \
                        "tyre tread surface temperature")                                          \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_CORE_TEMP, "CoreTemp", "degC",                                   \
                        "tyre carcass (core) temperature")                                         \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_PRESSURE, "Pressure", "kPa", "tyre inflation pressure, gauge")   \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_WEAR, "Wear", "1",                                               \
                        "share of the new tread depth worn away, 0 new .. 1 worn out")             \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_GRIP, "Grip", "1",                                               \
                        "the tyre's own grip scale: temperature window, pressure, wear, "          \
                        "condition and damage together, 1 nominal")                                \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_SINKAGE, "Sinkage", "m", "wheel sinkage into deformable soil")   \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_SURFACE, "Surface", "enum",                                      \
                        "surface id under the tyre (0 tarmac, 1 tarmacWet, 2 concrete, 3 gravel, " \
                        "4 dirt, 5 grass, 6 mud, 7 snow, 8 ice, 9 sand, 10 siltLoam)")             \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_SLIDE_POWER, "SlidePower", "W",                                  \
                        "tyre sliding power |Fx Vsx| + |Fy Vsy|, mean over the tick")              \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_CONDITION, "Condition", "enum",                                  \
                        "tyre condition (0 intact, 1 flat, 2 on the rim, 3 wheel detached)")       \
    X(PDK_CH_STEERING_TORQUE, "SteeringTorque", "N m",                                             \
      "steering-column torque at the steering wheel from the front tyres' aligning moments, "      \
      "positive turning the wheel left (the driver feels its opposite)")                           \
    X(PDK_CH_ENGINE_RPM, "EngineRPM", "rev/min", "engine speed (0 without a powertrain)")          \
    X(PDK_CH_ENGINE_TORQUE, "EngineTorque", "N m",                                                 \
      "engine brake torque less the accessories' drag, at the crank; negative motoring")           \
    X(PDK_CH_CVT_RATIO, "CvtRatio", "1", "CVT belt ratio, primary over secondary speed")           \
    X(PDK_CH_CLUTCH_TORQUE, "ClutchTorque", "N m",                                                 \
      "torque through the primary clutch, positive while the engine drives")                       \
    X(PDK_CH_CLUTCH_SLIP, "ClutchSlip", "rad/s",                                                   \
      "primary clutch slip: engine speed less the overall ratio times the carrier speed")          \
    X(PDK_CH_DRIVE_MODE, "DriveMode", "enum", "AWD switch (0 Turf, 1 2WD, 2 AWD)")                 \
    X(PDK_CH_FUEL_RATE, "FuelRate", "L/h", "fuel flow of the engine's Willans line")               \
    X(PDK_CH_FUEL_USED, "FuelUsed", "L", "fuel burnt since spawn")                                 \
    X(PDK_CH_FUEL_LEVEL, "FuelLevel", "L", "fuel left in the tank")                                \
    X(PDK_CH_GEAR_REJECT, "GearReject", "enum",                                                    \
      "why the last gear request was refused (DBW2 GearReject: 0 none, 2 unsupported, 3 shift "    \
      "in progress, 6 vehicle speed)")                                                             \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_WHEEL_TORQUE, "WheelTorque", "N m",                              \
                        "driveline torque on the wheel's shaft, positive driving forward")         \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_BRAKE_TORQUE, "BrakeTorque", "N m",                              \
                        "brake torque capacity at the wheel from the line pressure (and the "      \
                        "park pawl's in P)")                                                       \
    X(PDK_CH_ENERGY_FUEL, "EnergyFuel", "J", "ledger: the fuel's energy burnt since spawn")        \
    X(PDK_CH_ENERGY_ENGINE_LOSS, "EnergyEngineLoss", "J",                                          \
      "ledger: the engine's heat, friction and pumping, fuel less brake work")                     \
    X(PDK_CH_ENERGY_PARASITIC, "EnergyParasitic", "J", "ledger: the accessories' drag")            \
    X(PDK_CH_ENERGY_ENGINE_KINETIC, "EnergyEngineKinetic", "J",                                    \
      "ledger: the engine's spin energy gained since spawn")                                       \
    X(PDK_CH_ENERGY_CLUTCH, "EnergyClutch", "J", "ledger: the primary clutch's slip heat")         \
    X(PDK_CH_ENERGY_DRIVELINE, "EnergyDriveline", "J", "ledger: the belt's and gears' losses")     \
    X(PDK_CH_ENERGY_BRAKE, "EnergyBrake", "J", "ledger: the brakes' and park pawl's work")         \
    X(PDK_CH_ENERGY_TYRE_SLIP, "EnergyTyreSlip", "J",                                              \
      "ledger: the tyres' forces times their slip velocities")                                     \
    X(PDK_CH_ENERGY_ROLLING, "EnergyRolling", "J", "ledger: the tyres' rolling resistance")        \
    X(PDK_CH_ENERGY_AERO, "EnergyAero", "J", "ledger: the air's drag")                             \
    X(PDK_CH_ENERGY_SOIL, "EnergySoil", "J",                                                       \
      "ledger: soil's motion resistance, water's drag and the body's friction on the ground")      \
    X(PDK_CH_ENERGY_SUSPENSION, "EnergySuspension", "J",                                           \
      "ledger: into the struts, their springs' energy and their dampers' heat, and the ground's "  \
      "hold on the struts' tops and the body")                                                     \
    X(PDK_CH_ENERGY_KINETIC, "EnergyKinetic", "J",                                                 \
      "ledger: the car's kinetic energy gained (body, wheels, secondary clutch)")                  \
    X(PDK_CH_ENERGY_POTENTIAL, "EnergyPotential", "J", "ledger: the car's m g z gained")           \
    X(PDK_CH_ENERGY_RESIDUAL, "EnergyResidual", "J",                                               \
      "ledger: the fuel's energy less every term above, what the ledger cannot place")             \
    X(PDK_CH_GEAR_NUMBER, "GearNumber", "1",                                                       \
      "a geared powertrain's forward gear engaged (0 while shifting, and out of D and L)")         \
    X(PDK_CH_STEERING_WHEEL_TORQUE, "SteeringWheelTorque", "N m",                                  \
      "torque a force-feedback wheel applies to the driver's hands: the front tyres' aligning "    \
      "moments and lateral forces times the mechanical trail, over the ratio, less the power "     \
      "assist; positive turning the wheel left, self-centring in a steady turn")                   \
    PDK_CHANNEL_WHEELS_(X, PDK_CH_WHEEL_ANGLE, "WheelAngle", "rad",                                \
                        "wheel's rotation about its axle for drawing, [0, 2 pi), positive "        \
                        "rolling forward: each tick adds the wheel speed times the tick; "         \
                        "0 at spawn, no state (docs/vehicle-model.md)")                            \
    X(PDK_CH_BODY_CONTACT, "BodyContact", "count",                                                 \
      "points of the collision hull held by the ground or a face at the tick's last substep "      \
      "(0: the body touches nothing; docs/vehicle-model.md)")                                      \
    X(PDK_CH_BODY_CONTACT_FORCE, "BodyContactForce", "N",                                          \
      "the ground's normal force on the collision hull, summed over its points")                   \
    X(PDK_CH_BODY_CONTACT_FACE, "BodyContactFace", "enum",                                         \
      "the hull's face at its deepest contact: 0 none, 1 bottom, 2 roof, 3 left, 4 right, "        \
      "5 front, 6 rear")                                                                           \
    X(PDK_CH_FAULT_CODE, "FaultCode", "enum",                                                      \
      "why the vehicle is held (pdk_vehicle_fault): 0 none, 1 a non-finite state, 2 a speed "      \
      "above the bound, 3 the body below the ground; a reset clears it")                           \
    X(PDK_CH_CONTACT_IMPULSE, "ContactImpulse", "N s",                                             \
      "magnitude of the impulse other bodies (cars, proxies) gave the body at the tick's start "   \
      "(docs/multiplayer.md)")                                                                     \
    X(PDK_CH_CONTACT_COUNT, "ContactCount", "count",                                               \
      "bodies (cars, proxies) the body touched at the tick's start")

/* Why a vehicle is held (the FaultCode channel, VehicleState.fault_code):
 * its state became impossible and it stopped where that tick began, at
 * rest, until a reset (pdk_world_vehicle_right). Values are stable. */
typedef enum pdk_vehicle_fault {
    PDK_VEHICLE_FAULT_NONE = 0,
    PDK_VEHICLE_FAULT_NON_FINITE = 1,   /* a state value went infinite or NaN */
    PDK_VEHICLE_FAULT_OVER_SPEED = 2,   /* the CG faster than the model's bound */
    PDK_VEHICLE_FAULT_BELOW_GROUND = 3, /* the whole body under the ground */
    PDK_VEHICLE_FAULT_MAX = 3
} pdk_vehicle_fault;

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
