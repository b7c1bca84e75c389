/* The four-wheel vehicle model (docs/vehicle-model.md): one rigid chassis with
 * six degrees of freedom on four massless struts, each a ray (or a cylinder
 * sweep) from the top of its travel down the body's z axis against the
 * terrain; Ackermann steering with toe, camber, roll centres, anti-dive and
 * anti-squat, kinematic curves against travel, per-axle track and solid axles;
 * four wheels whose spin is state, each with a tyre (tyre.h: the grip law, the
 * Magic Formula or the UTV law) whose deflections are state (Pacejka's single
 * contact point transient model), on the surface under it, with its life
 * (tyre_life.h: heat, pressure, wear, damage), on deformable soil and in water
 * (surface.h); a powertrain's shaft torques (four_wheel_powertrain.h, ADR
 * 0010) or the lumped drive as a wheel torque, brakes, parking pawl and
 * rolling resistance as Coulomb torques on the wheels, and drag. It owns one
 * vehicle's state, held command and per-vehicle constants and steps them by
 * one tick; four_wheel.c states the scheme, ADR 0007 and ADR 0008 the
 * decisions. The step is written by part of the car, in headers that
 * four_wheel_step.h runs in order: suspension.h, steering.h,
 * four_wheel_tyres.h, brakes.h and chassis.h. Sources are cited where each
 * formula lives. Axes are ISO 8855: body x forward, y left, z up; world z up;
 * positive roll puts the right side down, positive pitch the nose down,
 * positive yaw and steering turn left. Wheels are PDK_FL, PDK_FR, PDK_RL,
 * PDK_RR. The world calls this module; nothing else should. */
#ifndef PDK_FOUR_WHEEL_H
#define PDK_FOUR_WHEEL_H

#include <stdint.h>

#include "ground/terrain.h"
#include "powertrain/utv_gear.h"
#include "sim/builds.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/vehicle_def.h"
#include "tyre/tyre_lanes.h"
#include "tyre/tyre_life.h"
#include "vehicle/hull.h"

/* The governors' fade band, as PDK_ST_GOVERNOR_BAND_MPS. */
#define PDK_FW_GOVERNOR_BAND_MPS 0.5

/* Camber thrust, and a law's forces and moment at zero slip (a Magic
 * Formula set's ply steer, conicity and residual aligning moment: PHY, PVY,
 * PHX, PVX, QDZ6 ...), come from rolling: the camber a tyre law sees grows
 * with the contact's rolling speed |Vx| up to this and is whole above it,
 * and below it the law's value at zero slip is taken off in the same
 * proportion, so that a tyre at rest pushes nowhere (a constant push would
 * move a parked car against its tyres' deflection springs). */
#define PDK_FW_ROLLING_SPEED_MPS 0.5

/* The bounds of the slips a tyre's deflections give its law, |kappa'| and
 * |tan(alpha')| (tan 80 degrees): a locked or spinning wheel's deflection
 * grows toward kappa' = -1 or beyond (sliding faster than rolling) and no
 * further than this, so that a burnout's deflection stays bounded and its
 * law is evaluated where the curves are defined. Slower than the carcass
 * damper's fade (PDK_FW_CARCASS_FADE_MPS, in the contact's speed |Vx| plus
 * its slip speed) the bound falls linearly to the slip of the law's peak,
 * reached at PDK_FW_CARCASS_FULL_MPS: at speed the deflection is the
 * slip's memory over the relaxation length, but a tyre that stops sliding
 * holds no more than its peak deflection (a LuGre bristle saturates at its
 * physical limit the same way), so a car braked to a stop on locked wheels
 * does not spring back on a slide's worth of stored slip. */
#define PDK_FW_KAPPA_MAX 1.5
#define PDK_FW_TAN_ALPHA_MAX 5.671281819617709

/* The tyre carcass's damping at low speed (the LuGre bristle's sigma_1:
 * Canudas de Wit et al., IEEE Trans. Automatic Control 40(3), 1995): a damper
 * on each deflection's rate of PDK_FW_CARCASS_DAMPING_S times the deflection's
 * stiffness (the law's slope over the relaxation length), so that a parked car
 * does not ring on its tyres' springs. 0.05 s is sigma_1 / sigma_0 of Chrono's
 * ChPac02Tire bristle (5e3 N s/m over 1e5 N/m); on a road car's corner it is
 * about 0.4 of critical laterally and 0.8 longitudinally. It is whole while
 * the contact's speed |Vx| + |slip velocity| is below PDK_FW_CARCASS_FULL_MPS
 * and fades linearly to nothing at PDK_FW_CARCASS_FADE_MPS (Chrono blends its
 * bristle into the steady law between 1 and 3 m/s), so that at speed the
 * relaxation alone shapes the force's build-up; a sliding tyre (slope 0) has
 * none, as a LuGre bristle in full slip has none. */
#define PDK_FW_CARCASS_DAMPING_S 0.05
#define PDK_FW_CARCASS_FULL_MPS 1.0
#define PDK_FW_CARCASS_FADE_MPS 3.0

/* A vehicle held by brakes or pawl whose CG speed is below this, and whose
 * angular velocity is below PDK_FW_REST_RATE_RADPS, has its horizontal
 * velocity and yaw rate set to exactly zero at the end of the tick (the
 * suspension keeps moving until it settles): its tyres' deflections hold
 * it where it stands, and this only ends the last micrometres a second of
 * their springs' ringing, so that a held car reports exactly zero. */
#define PDK_FW_REST_SPEED_MPS 1.0e-3
#define PDK_FW_REST_RATE_RADPS 1.0e-3

/* Faces and the end of the travel (docs/vehicle-model.md): a strut meets
 * the ground only below the top of its ray. A wheel whose ray starts behind
 * a face (terrain.h pdk_terrain_face), within PDK_FW_FACE_REACH_M of it,
 * ran into the face's side: its strut stands on the ground at the face's
 * foot, and the face holds the wheel. A wheel whose ray starts below the
 * ground elsewhere has run out of travel: its strut takes nothing, and the
 * ground holds the body there. Either hold is a hard contact along the
 * normal out of the face or ground, at the wheel's centre for a face and at
 * the ray's origin for the ground: a damper of PDK_FW_HARD_DAMPING times
 * the car's mass over the substep on the point's velocity along the
 * normal, so that the speed into the ground is
 * all but gone at the substep's end (a plastic impact, restitution 0, as
 * Stewart and Trinkle's time-stepping contact takes one: "An implicit
 * time-stepping scheme for rigid body dynamics with inelastic collisions
 * and Coulomb friction", Int. J. Numer. Meth. Eng. 39, 1996), toward a
 * speed out of it of at most PDK_FW_HARD_OUT_MPS (or the depth in one
 * substep), as a rigid-body engine lets a body out of penetration at a
 * bounded speed (PhysX's maxDepenetrationVelocity). It never pulls. The
 * reach is what a wheel crosses in a substep at 120 m/s at the default
 * 1/240 s. */
#define PDK_FW_FACE_REACH_M 0.5
#define PDK_FW_HARD_DAMPING 10.0
#define PDK_FW_HARD_OUT_MPS 0.5

/* The body meets the ground (docs/vehicle-model.md, "The body on the
 * ground"): each point of the collision hull (hull.h) below the ground or
 * behind a face is held as a strut's top is, by a damper of
 * PDK_FW_HARD_DAMPING times the car's mass over the substep along the
 * normal toward a speed out of at most PDK_FW_HARD_OUT_MPS (a plastic
 * impact: a body panel does not bounce), and rubs along the ground with
 * Coulomb friction. A car's body sliding on its side or roof over asphalt
 * slows at 0.3 to 0.5 g (Fricke and Baker, "Drag Factor and Coefficient of
 * Friction in Traffic Accident Reconstruction", Topic 862 of the Traffic
 * Accident Investigation Manual, Northwestern University Traffic Institute,
 * 1990, section 9, "Drag factors after a collision"): PDK_FW_HULL_MU, the
 * middle of that range, on dry asphalt, scaled on other surfaces by their
 * locked-wheel friction over asphalt's. The friction is a damper across
 * the normal, mu F_n / max(|v_t|, PDK_FW_HULL_SLIP_MPS) at the start's
 * sliding speed v_t with F_n from a pass of the solve without it, so that
 * it never exceeds mu F_n while the body slows and holds it at rest below
 * that slip speed (the regularised Coulomb law
 * of Oden and Martins, "Models and computational methods for dynamic
 * friction phenomena", Comput. Methods Appl. Mech. Eng. 52, 1985). */
#define PDK_FW_HULL_MU 0.4
#define PDK_FW_HULL_SLIP_MPS 0.01
/* A hull point within PDK_FW_HULL_SKIN_M above the ground is a contact
 * that may close its gap in the substep and no more (a speculative
 * contact: Catto, "Continuous Collision", Game Developers Conference
 * 2013; it lets go when the point moves away), so that a body at rest on
 * the ground stays on it instead of falling in and being pushed out again
 * every other substep. */
#define PDK_FW_HULL_SKIN_M 0.02

/* An impossible state (pdk_vehicle_fault): a CG speed above
 * PDK_FW_FAULT_SPEED_MPS (twice the fastest spawn, well past any preset's
 * top speed), or the CG lower under the ground than the hull reaches
 * (pdk_fw_consts.hull_reach_m) by PDK_FW_FAULT_DEPTH_M: no point of the
 * body could be above it, which the hull's contact never lets happen. */
#define PDK_FW_FAULT_SPEED_MPS 300.0
#define PDK_FW_FAULT_DEPTH_M 0.5

/* The tyres' life (heat, pressure, wear, condition) is advanced every this
 * many ticks (15 Hz at 120 Hz) with the means of what they did meanwhile:
 * its fastest node, the tread surface, has a time constant of some
 * seconds (tyre_life.c: 1 kJ/K against about 120 W/K), which the backward
 * Euler step of 1/15 s follows within half a percent, at an eighth of the
 * cost of a step every tick. A car's first period is shorter by a place
 * in the eight drawn from where it was placed (pdk_fw_state_init), so that
 * a fleet placed at one tick advances an eighth of its tyres' lives a tick
 * rather than all of them every eighth (docs/adr/0038). */
#define PDK_FW_LIFE_TICKS 8

/* Velocity and acceleration components below this magnitude are stored as
 * exactly zero at the end of a tick (PDK_ST_NEGLIGIBLE). */
#define PDK_FW_NEGLIGIBLE 1.0e-100

/* The energy ledger's terms (docs/powertrain.md, with the chassis' own: its
 * struts), each the energy in J since spawn: what the fuel gave, where it
 * went, and what the car holds. The residual, fuel less all the others, is
 * what the ledger cannot place (ADR 0010). */
enum pdk_ledger {
    PDK_LEDGER_FUEL = 0,       /* the fuel's energy burnt: P_fuel dt */
    PDK_LEDGER_ENGINE_LOSS,    /* (P_fuel - P_b) dt: heat, friction and pumping */
    PDK_LEDGER_PARASITIC,      /* the accessories, T_acc omega_e dt */
    PDK_LEDGER_ENGINE_KINETIC, /* the engine's spin, 1/2 J_e omega_e^2, held */
    PDK_LEDGER_CLUTCH,         /* T_c (omega_e - R c) dt: the clutch's slip heat */
    PDK_LEDGER_DRIVELINE,      /* (T_c R - D(T_c)) c dt and the differentials' and
                                * couplings' friction: the belt's and gears' losses */
    PDK_LEDGER_BRAKE,          /* the brakes' and the pawl's work */
    PDK_LEDGER_TYRE_SLIP,      /* the tyres' force times their slip velocities */
    PDK_LEDGER_ROLLING,        /* the tyres' rolling resistance */
    PDK_LEDGER_AERO,           /* the air's drag */
    PDK_LEDGER_SOIL,           /* soil's motion resistance, water's drag, the body's friction */
    PDK_LEDGER_SUSPENSION,     /* into the struts (springs held, dampers) and hard contacts */
    PDK_LEDGER_KINETIC,        /* the car's: body, wheels, secondary clutch, held */
    PDK_LEDGER_POTENTIAL,      /* m g z, held */
    PDK_LEDGER_COUNT
};

/* The powertrain's state (a vehicle with a powertrain, PDK_POWERTRAIN_UTV;
 * all 0 for the lumped drive): the engine, the belt, the clutch's last
 * torque, the lever, the tank. Plain data. */
typedef struct pdk_fw_powertrain {
    double engine_radps;  /* omega_e */
    double request;       /* u, the engine's torque request 0..1 */
    double cvt_ratio;     /* r, the belt's ratio */
    double clutch_nm;     /* T_c of the last substep, positive while the engine drives */
    double carrier_radps; /* c, the rear carrier's speed at the last substep's end */
    double fuel_l;        /* in the tank */
    double fuel_used_l;   /* since spawn */
    pdk_utv_lever lever;  /* the position engaged, and a change under way */
    int32_t requested;    /* the gear the command last asked for (pdk_gear) */
    int32_t reject;       /* pdk_gear_reject of that request */
    int32_t drive_mode;   /* pdk_drive_mode */
    int32_t kind;         /* pdk_powertrain_kind: 0 (lumped) leaves all of this 0 */
    double ledger_j[PDK_LEDGER_COUNT]; /* since spawn */
    /* A geared powertrain's gear: the forward gear engaged (1..n_gears),
     * and while it shifts the gear it goes to and the time left (negative:
     * the time left of the new gear's clutch take-up). */
    int32_t gear_index;
    int32_t gear_target;
    double shift_left_s;
    /* The shift program's memory (four_wheel_powertrain.c): the last
     * shift's direction (+1 up, -1 down, 0 none yet), the time in gear since
     * its take-up ended, and the kickdown's state (0 pedal below full, 1
     * pushed to full and armed, 2 spent by an upshift). */
    int32_t last_shift;
    int32_t kickdown;
    double in_gear_s;
    /* ABS (powertrain.abs, four_wheel_powertrain.c), per wheel: the share
     * of the line pressure its brake has (1 unless the controller has let
     * some off) and whether the controller works (0 idle); the target slip
     * (the peak it has found) and the modulator's rate until the next
     * control cycle (per second: of the whole pressure while it builds,
     * relative while it falls); since the last cycle's end the time, the
     * pressure share integrated over it (s) and the wheel's rim speed then
     * along the direction of travel; the time the controller has worked;
     * the tyre's braking force and the slip at the last cycle's end; and
     * the filtered product of their changes and their variances, for the
     * peak's search. */
    double abs_scale[PDK_WHEELS];
    int32_t abs_active[PDK_WHEELS];
    double abs_peak_slip[PDK_WHEELS];
    double abs_rate_per_s[PDK_WHEELS];
    double abs_since_s[PDK_WHEELS];
    double abs_dose_s[PDK_WHEELS];
    double abs_wheel_mps[PDK_WHEELS];
    double abs_time_s[PDK_WHEELS];
    double abs_fx_n[PDK_WHEELS];
    double abs_slip[PDK_WHEELS];
    double abs_cov_n[PDK_WHEELS];
    double abs_var_fx_n2[PDK_WHEELS];
    double abs_var_slip[PDK_WHEELS];
} pdk_fw_powertrain;

/* The dynamic state: everything that carries from one substep to the next.
 * Plain data, no pointers: a copy is a snapshot. */
typedef struct pdk_fw_state {
    double pos_m[3];       /* CG, world */
    double quat[4];        /* orientation, body to world: w, x, y, z; unit */
    double vel_mps[3];     /* CG velocity, world frame */
    double omega_radps[3]; /* angular velocity, body frame (p, q, r) */
    /* The previous substep's contact forces on the body, body x and y, per
     * wheel: the roll-centre couples, pitch links and jacking use them (the
     * lag keeps the load-force loop explicit, as the four-wheel model
     * specifies). Part of the state so that a replay is exact. */
    double prev_fx_n[PDK_WHEELS];
    double prev_fy_n[PDK_WHEELS];
    double accel_mps2[3]; /* last substep's CG acceleration, body frame, without gravity */
    /* The wheels (ADR 0008). Spin about the axle, positive rolling forward;
     * exactly 0 for a wheel its brakes, pawl or rolling resistance hold. */
    double spin_radps[PDK_WHEELS];
    /* The tyre's deflections (Pacejka, Tire and Vehicle Dynamics, 3rd ed.,
     * section 7.2): along the wheel heading, u_x = sigma_kappa kappa', and
     * to its left, u_y = sigma_alpha tan(alpha'), where kappa' and
     * tan(alpha') are the slips the force law sees. */
    double defl_x_m[PDK_WHEELS];
    double defl_y_m[PDK_WHEELS];
    double sinkage_m[PDK_WHEELS]; /* into deformable soil, >= 0 */
    pdk_tyre_life life[PDK_WHEELS];
    /* What each tyre's life gives the step (pdk_tyre_life_effect of life),
     * renewed whenever life changes. */
    pdk_tyre_effect effect[PDK_WHEELS];
    /* The tyres' work since their life was last advanced (every
     * PDK_FW_LIFE_TICKS ticks): sums over those ticks' substeps of the
     * sliding power, load, rolling speed and contact (1 or 0), and the
     * ticks they hold, below life_ticks: the ticks of this period, at the
     * end of which the life advances (PDK_FW_LIFE_TICKS, or 1 to that for
     * the first after a spawn). */
    double work_power_w[PDK_WHEELS], work_load_n[PDK_WHEELS];
    double work_speed_mps[PDK_WHEELS], work_contact[PDK_WHEELS];
    uint32_t work_ticks;
    uint32_t life_ticks;
    double power_scale; /* the engine's damage scale, 0..1 (PDK_TYRE_SET_POWER_SCALE) */
    uint32_t faulted;   /* as pdk_st_state.faulted */
    pdk_fw_powertrain pt;
} pdk_fw_state;

/* The held command and what follows from it alone (cached per command). */
typedef struct pdk_fw_cmd {
    double throttle_pct;
    double brake_bar;
    double steer_wheel_deg;
    double steer_rad;                   /* bicycle road-wheel angle: SteerAngle */
    double wheel_steer_rad[PDK_WHEELS]; /* Ackermann + static toe, before toe curves */
    double wheel_sin[PDK_WHEELS];       /* sin and cos of wheel_steer_rad */
    double wheel_cos[PDK_WHEELS];
    double drive_gain;   /* signed share of the available drive force */
    double governor_mps; /* speed limit in the drive direction, 0 for none */
    double governor_fade_mps;
    double hold_n[PDK_WHEELS]; /* brake + parking pawl capacity per wheel, as a force at the
                                * contact (the step takes it times the rolling radius) */
    double brake_nm[PDK_WHEELS]; /* a powertrain's brakes, as torques (hold_n 0 then) */
    double brake_n[PDK_WHEELS];  /* the brakes' part of hold_n (the rest is the pawl's): the
                                  * share whose reaction the pitch links take as braking */
    double pedal_map;            /* a powertrain's: the engine's map of the pedal */
    int32_t gear_number;         /* a manual gearbox's gear in D, 1..n (0: none named yet) */
    int32_t park_brake;          /* 1: the DBW kit holds the parking brake on (world.c) */
    double gear_code;
    int32_t gear;
} pdk_fw_cmd;

/* The per-vehicle constants the step reads, resolved at spawn: per corner,
 * one entry per wheel (FL, FR, RL, RR) for the substep's four-wide
 * arithmetic (four_wheel.c), then the body's, the tyres' laws on four lanes,
 * then which wheels take a rarer path (bit i for wheel i) and what only
 * those paths read. The kinematic curves, the tyres' life and soil
 * parameters are not in it: the step reads them from the definition
 * (pdk_fw_step_batch takes them apart). */
typedef struct pdk_fw_consts {
    double x_m[PDK_WHEELS], y_m[PDK_WHEELS]; /* static contact point, body */
    double droop_m[PDK_WHEELS], bump_m[PDK_WHEELS];
    double static_load_n[PDK_WHEELS], spring_npm[PDK_WHEELS], bump_stop_npm[PDK_WHEELS];
    double bump_nspm[PDK_WHEELS], rebound_nspm[PDK_WHEELS];
    double arb_npm[PDK_WHEELS], arb_quarter_h[PDK_WHEELS];
    double static_toe_rad[PDK_WHEELS];
    double drive_share[PDK_WHEELS];
    double rc_per_track[PDK_WHEELS];
    double pitch_arm[PDK_WHEELS], anti_brake[PDK_WHEELS], anti_drive[PDK_WHEELS];
    double sin_camber[PDK_WHEELS], cos_camber[PDK_WHEELS]; /* -side sin, cos of static camber */
    /* The wheels: unloaded radius R0, spin inertia and its inverse, the tyre's
     * rolling coefficient over the reference surface's, the corner's static
     * mass (static load / g: the Polaris model's clamp of the soil's motion
     * resistance), how fast a sinkage recovers off soil
     * (pdk_fw_sinkage_step_m) and whether its law reads camber (-1) or not
     * (0). */
    double radius_m[PDK_WHEELS];
    double spin_inertia_kgm2[PDK_WHEELS], inv_spin_inertia[PDK_WHEELS];
    double rolling_ratio[PDK_WHEELS];
    double corner_mass_kg[PDK_WHEELS];
    double sinkage_step_m[PDK_WHEELS]; /* the sinkage's most in a substep off soil */
    /* The slips at which the tyre's law peaks (pure slip, nominal load,
     * reference surface): the most slip a tyre keeps stored at rest
     * (PDK_FW_KAPPA_MAX). */
    double kappa_rest[PDK_WHEELS], tan_alpha_rest[PDK_WHEELS];
    int64_t camber_law[PDK_WHEELS];
    double h_s;              /* substep */
    double inv_h;            /* 1 / h */
    double mass_per_h;       /* m / h */
    double sinkage_share;    /* the share of its way to its target a sinkage moves in
                              * a substep (pdk_fw_sinkage_share) */
    double inertia_per_h[3]; /* Ixx / h, Iyy / h, Izz / h */
    double mass_kg;
    double inertia_kgm2[3]; /* Ixx, Iyy, Izz */
    double gravity_mps2;
    double cg_height_m;
    double ride_ray_top_m;   /* how far above the static contact a ray starts */
    double hard_nspm;        /* a hard contact's damper (PDK_FW_HARD_DAMPING) */
    /* The collision hull (vehicle/hull.h): its points in the body frame
     * and the radius about the CG that holds it. */
    double hull_pts_m[3 * PDK_HULL_POINTS];
    double hull_reach_m;
    double surface_friction; /* the world's, on every tyre's grip */
    double steering_ratio;   /* for SteeringTorque */
    /* For SteeringWheelTorque: the mechanical trail, the assist's boost and
     * its most torque (pdk_steering_def). */
    double steering_trail_m, assist_gain, assist_max_nm;
    double drag_n_per_mps2;  /* 0.5 rho CdA */
    /* Downforce at the front and rear axle, 0.5 rho C_L A times each
     * axle's share, and the axles' x from the CG; lift 1 where there is
     * any. */
    double lift_n_per_mps2[2];
    double lift_x_m[2];
    int32_t lift;
    /* A powertrain's lags over a substep: the engine's request's and the
     * CVT's ratio's exp(-h / tau); its idle governor's feed-forward
     * (pdk_engine_idle_feed). */
    double engine_lag, cvt_lag, idle_feed;
    /* A geared powertrain's full-load upshift speeds, rev/min of the engine
     * in each gear (pdk_fwpt_full_upshift_rpm). */
    double full_upshift_rpm[PDK_GEARS_MAX];
    /* The body's angular damping over a substep, max(0, 1 - c h); 1 for
     * none (chassis.angular_damping_per_s 0). */
    double spin_keep;
    double drive_force_n;
    double drive_power_w;
    uint32_t toe_curve, camber_curve, solid, rc_curve, anti_brake_curve, anti_drive_curve;
    int32_t per_wheel_any; /* 1 when an axle has a roll-centre curve */
    /* Read only where an axle has a curve or is solid. */
    int64_t per_wheel_links[PDK_WHEELS]; /* -1 where the axle has a roll-centre curve, else 0 */
    double rc_height_m[PDK_WHEELS], two_per_track[PDK_WHEELS];
    double static_camber_rad[2]; /* front, rear */
} pdk_fw_consts;

/* Per-axle constants resolved at spawn (the step reads their per-wheel
 * copies in pdk_fw_consts). */
typedef struct pdk_fw_axle {
    double track_m;
    double x_m;                  /* axle position along body x from the CG (a or -b) */
    double static_load_n;        /* per wheel */
    double static_compression_m; /* static_load / spring rate */
    double spring_npm, arb_npm, bump_stop_npm;
    double travel_bump_m, travel_droop_m;
    double static_camber_rad;
    int32_t solid;          /* 1 for a solid axle */
    pdk_kinematics_def kin; /* the curves, n_points 0 where absent */
    pdk_tyre_law_def law;   /* the tyre's law as the step runs it (grip law derived) */
    pdk_tyre_life_def life; /* the tyre's life */
    pdk_soil_tyre soil;     /* its size and pressures on soil */
} pdk_fw_axle;

/* A vehicle's constants whole: what the step reads, and per axle the same
 * with its kinematic curves and tyre parameters (which pdk_fw_step reads
 * from here). */
typedef struct pdk_fw_params {
    pdk_fw_consts c;
    /* The tyres' force laws, lanes FL FR RL RR (tyre_lanes.h); the grip
     * law's stiffnesses and friction derived from the axle's fields at spawn
     * (vehicle_def.h). Apart from c, so that the vehicles of a world that
     * were spawned from one definition share one copy (world.c). */
    pdk_tyre_consts4 tyre;
    pdk_fw_axle axle[2]; /* front, rear */
    pdk_powertrain_def powertrain; /* the definition's */
} pdk_fw_params;

/* The law definitions the step runs for def's axles: the axle's own, with
 * the grip and UTV laws' cornering_per_load, mu_x and mu_y (and the grip
 * law's camber_per_load) derived from the axle's
 * cornering_stiffness_n_per_rad, friction_coeff (and
 * camber_stiffness_n_per_rad): each tyre half the axle's at its static
 * load static_load_n, in proportion to its load. */
void pdk_fw_law_of(const pdk_vehicle_def *def, int axle, double static_load_n,
                   pdk_tyre_law_def *out);

/* How far above each static contact point def's struts' rays start
 * (pdk_fw_consts.ride_ray_top_m): the larger axle's bump travel and a
 * margin beyond it (half the travel, at least MIN_RAY_MARGIN_M). */
double pdk_fw_ray_top_m(const pdk_vehicle_def *def);

/* Resolves def (already checked, model PDK_MODEL_FOUR_WHEEL) for a world with
 * these constants. */
void pdk_fw_params_init(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                        double gravity_mps2, double air_density_kgpm3, double surface_friction);

/* The same, with the tyres' peak slips and an automatic box's full-load
 * upshift speeds (the scans of each law and of the engine's curve that
 * are most of the resolve's cost) taken from same: the constants resolved before
 * from a definition byte for byte equal to def, with the same world
 * constants, which give the same peaks. A fleet of one preset spawns at a
 * fraction of the cost. */
void pdk_fw_params_init_like(pdk_fw_params *params, const pdk_vehicle_def *def, double substep_s,
                             double gravity_mps2, double air_density_kgpm3, double surface_friction,
                             const pdk_fw_consts *same);

/* A vehicle at rest on its springs at pose (CG at cg_height_m above the
 * ground under it, level), moving forward at speed_mps along its heading,
 * its wheels rolling at that speed without slip, its tyres new at the
 * terrain's air temperature, the engine whole. The tyres' life first
 * advances after 1 to PDK_FW_LIFE_TICKS ticks, a number drawn from the
 * pose's bits: the same pose gives the same tick, so a car's motion depends
 * on its own placement alone, and a fleet placed at one tick spreads its
 * tyres' lives over the eight. */
void pdk_fw_state_init(pdk_fw_state *state, const pdk_fw_params *params,
                       const pdk_terrain_def *terrain, const pdk_pose *pose, double speed_mps);

/* Resets the powertrain of a vehicle spawned with pt (nothing for the lumped
 * drive) as the Polaris model's: the lever in gear, the engine at idle and the
 * belt at its low ratio, or for a moving start at speed_mps the belt gripping
 * at its light-load shift speed; the tank full, the drive mode the
 * definition's. rear_radius_m is the rear tyres' radius. */
void pdk_fw_powertrain_init(pdk_fw_state *state, const pdk_powertrain_def *pt, pdk_gear gear,
                            double speed_mps, double rear_radius_m);

/* Holds a new command (values already range-checked against def) and
 * recomputes its cached part. gear is PARK..LOW. */
void pdk_fw_cmd_set(pdk_fw_cmd *cmd, const pdk_vehicle_def *def, double throttle_pct,
                    double brake_bar, double steer_wheel_deg, pdk_gear gear);

/* Applies a tyre action (tyre_life.h; already validated with
 * pdk_tyre_action_problem) to the wheels of wheel_mask (bit i for wheel i),
 * or for PDK_TYRE_SET_POWER_SCALE to the vehicle spawned from def. ambient_c
 * is the air temperature (a replaced tyre's). */
void pdk_fw_tyre_action(pdk_fw_state *state, const pdk_vehicle_def *def, uint32_t wheel_mask,
                        int action, double value, double ambient_c);

/* Steps one vehicle by one tick of substeps substeps of params->h_s each on
 * terrain, and writes every channel (PDK_CH_COUNT values) for the tick's end.
 * A step that produces a non-finite value faults the vehicle exactly as
 * pdk_st_step does (pose held where the tick began, velocities zeroed,
 * state->faulted set, PDK_CH_FAULTED 1). channels may be NULL: the step then
 * writes no channel and its state is the same bits (no step reads a channel; a
 * verify, which compares state hashes, needs none of them and is spared their
 * cost). */
void pdk_fw_step(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_fw_params *params,
                 const pdk_terrain_def *terrain, int substeps, double *channels);

/* How many vehicles pdk_fw_step_batch steps side by side: while one waits
 * on a long chain of dependent operations (a substep has several: square
 * roots and divisions in the tyre frame, the tyres and the solve), the
 * processor works on the others', and the group's drivelines fill the four
 * lanes of one solve (driveline_lanes.h). Four took some 10 % off a fleet
 * of 100 midsize sedans against two, less at 3,000 (docs/perf/README.md);
 * a group's working values are some 7.5 KB a vehicle. A batch's last
 * vehicles short of a group go alone (a copy of the step for groups of two
 * as well made the whole function half as large again and the fleets no
 * faster). */
#define PDK_FW_GROUP 4

/* Most vehicles pdk_fw_step_batch takes at once. */
#define PDK_FW_BATCH 16

/* Steps count (1..PDK_FW_BATCH) independent vehicles, PDK_FW_GROUP of them
 * side by side: vehicle i as pdk_fw_step would with a pdk_fw_params whose c
 * is *consts[i], whose tyre is *tyres[i] and whose axles' curves and tyre
 * life and soil parameters are those of *defs[i] (the definition it was
 * spawned from; the step reads a curve only where consts says the axle has
 * one), so that a world keeps the small consts per vehicle, the tyres'
 * constants once per definition and the rest in the definitions it holds
 * anyway. Each vehicle's result, state and channels, is
 * bit-identical to pdk_fw_step on it alone, on any processor; a vehicle
 * whose channels pointer is NULL has none written. Returns how many of
 * them faulted in this tick. */
int pdk_fw_step_batch(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                      const pdk_fw_consts *const *consts, const pdk_tyre_consts4 *const *tyres,
                      const pdk_vehicle_def *const *defs, double *const *channels, int count,
                      const pdk_terrain_def *terrain, int substeps);

/* The builds of the step (builds.h pdk_fw_build): pdk_fw_step and
 * pdk_fw_step_batch take BEST. */

/* pdk_fw_step and pdk_fw_step_batch by the given build, or by the baseline
 * where the processor does not have it: for the tests that check the
 * builds agree, and the benchmarks that compare them. */
void pdk_fw_step_build(pdk_fw_state *state, const pdk_fw_cmd *cmd, const pdk_fw_params *params,
                       const pdk_terrain_def *terrain, int substeps, double *channels,
                       pdk_fw_build build);
int pdk_fw_step_batch_build(pdk_fw_state *const *states, const pdk_fw_cmd *const *cmds,
                            const pdk_fw_consts *const *consts,
                            const pdk_tyre_consts4 *const *tyres,
                            const pdk_vehicle_def *const *defs, double *const *channels, int count,
                            const pdk_terrain_def *terrain, int substeps, pdk_fw_build build);

/* The CG velocity in the body frame (x forward, y left, z up). */
void pdk_fw_body_velocity(const pdk_fw_state *state, double out[3]);

/* Yaw, pitch and roll (ZYX Euler, rad) of the unit quaternion q. */
void pdk_fw_euler(const double q[4], double *yaw_rad, double *pitch_rad, double *roll_rad);

#endif
