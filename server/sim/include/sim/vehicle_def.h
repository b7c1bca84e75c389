/* A vehicle's parameters: the resolved, validated, SI definition a vehicle is
 * spawned from. Immutable after spawn. params/ fills it from a preset; sim
 * only reads it. Every field carries its unit in its name. */
#ifndef PDK_VEHICLE_DEF_H
#define PDK_VEHICLE_DEF_H

#include "sim/contact.h"
#include "sim/cvt_def.h"
#include "sim/dbw_def.h"
#include "sim/driveline_def.h"
#include "sim/engine_def.h"
#include "sim/error.h"
#include "sim/input.h"
#include "sim/surface_def.h"
#include "sim/tyre_def.h"
#include "sim/tyre_life_def.h"
#include "sim/utv_gear_def.h"

/* Which vehicle model steps the vehicle. Values are stable (recorded). */
typedef enum pdk_model {
    PDK_MODEL_SINGLE_TRACK = 1, /* planar single-track (bicycle) model */
    PDK_MODEL_FOUR_WHEEL = 2,   /* rigid 6-DOF chassis on four struts (the default) */
} pdk_model;

/* Wheel indices, ISO order: front left, front right, rear left, rear right. */
enum { PDK_FL = 0, PDK_FR = 1, PDK_RL = 2, PDK_RR = 3, PDK_WHEELS = 4 };

/* The chassis: one rigid body. The single-track model reads mass, yaw
 * inertia, wheelbase, a and the CG height; the four-wheel model reads all.
 * The inertia tensor is diagonal in body axes (x forward, y left, z up
 * through the CG): the products of inertia of a car are small against the
 * principal moments and no preset data sheet quotes them. */
typedef struct pdk_chassis_def {
    double mass_kg;               /* total mass */
    double yaw_inertia_kgm2;      /* Izz, about the vertical axis through the CG */
    double roll_inertia_kgm2;     /* Ixx, about the longitudinal axis through the CG */
    double pitch_inertia_kgm2;    /* Iyy, about the lateral axis through the CG */
    double wheelbase_m;           /* front axle to rear axle */
    double cg_to_front_axle_m;    /* CG to front axle, 0 < a < wheelbase */
    double cg_height_m;           /* above ground at rest; the car sits there whatever its springs */
    double track_width_m;         /* both axles' track unless an axle sets its own */
    /* The body's angular velocity decays by this share per second, omega <-
     * omega max(0, 1 - c dt) each substep (four-wheel model only): the game
     * engine's body damping that the Polaris model's chassis carries (0.08
     * /s); 0, the default, for none. */
    double angular_damping_per_s;
    /* The body's overall length, width and height (four-wheel model: its
     * collision hull, vehicle/hull.h), bumper to bumper, widest point and
     * ground to roof at rest; 0, the default, for each derived from the
     * wheelbase, track, tyres and CG height as hull.h says. */
    double body_length_m;
    double body_width_m;
    double body_height_m;
} pdk_chassis_def;

/* An axle's tyres (both alike). The single-track model reads only the
 * first three fields: a linear tyre saturating at the friction limit. The
 * four-wheel model reads the rest: the force law (tyre.h), where the grip
 * and UTV laws take their cornering stiffness and friction from the first
 * fields (each tyre half the axle's stiffness at its static load, in
 * proportion to its load: law.cornering_per_load, law.mu_x, law.mu_y and,
 * for the grip law, law.camber_per_load are derived at spawn), the tyre's life (heat,
 * pressure, wear, tyre_life.h), its size and pressures on soil (surface.h)
 * and the wheel's spin inertia. */
typedef struct pdk_axle_tyre_def {
    double cornering_stiffness_n_per_rad; /* axle total, dFy/d(slip) at 0 */
    double friction_coeff;                /* peak mu on the reference surface (dry tarmac) */
    double camber_stiffness_n_per_rad;    /* axle total, camber thrust per rad of
                                           * inclination at static load; four-wheel only */
    pdk_tyre_law_def law;                 /* four-wheel only, as above */
    pdk_tyre_life_def life;               /* four-wheel only */
    pdk_soil_tyre soil;                   /* four-wheel only: radius, width, pressures */
    double spin_inertia_kgm2;             /* one wheel: tyre, rim, hub, brake disc */
} pdk_axle_tyre_def;

typedef struct pdk_steering_def {
    double ratio;               /* steering-wheel angle / road-wheel angle */
    double lock_deg;            /* steering-wheel lock, each side */
    double center_offset_deg;   /* steering-wheel angle at which the road wheels point
                                 * straight ahead (a misaligned wheel); four-wheel only */
    double ackermann;           /* 0 parallel steer .. 1 ideal Ackermann; four-wheel only */
    /* The feel at the steering wheel (docs/vehicle-model.md "Steering
     * feel"), outputs only: they shape the SteeringWheelTorque channel and
     * nothing the state reads. Four-wheel only. */
    double trail_m;       /* mechanical trail from caster: how far the contact centre
                           * is behind the steering axis' meeting with the ground, 0..0.3 */
    double assist_gain;   /* power assist's boost: assist torque per driver's torque, 0 none */
    double assist_max_nm; /* the assist's most torque at the steering wheel; 0 exactly
                           * when assist_gain is 0 */
} pdk_steering_def;

/* Kinematic curves (docs/vehicle-model.md): a value against the wheel's own
 * travel (m from the static ride position, positive in bump), linear between
 * points and held beyond the end points. It describes the left wheel; the
 * right wheel mirrors it. The value is an offset from the static field, in SI
 * (rad for toe and camber, m for the roll-centre height, a plain fraction for
 * anti). n_points 0 means no curve; otherwise 2..PDK_CURVE_MAX_POINTS, travel
 * strictly increasing, and the curve is 0 at travel 0. */
#define PDK_CURVE_MAX_POINTS 16

typedef struct pdk_curve {
    int n_points;
    double travel_m[PDK_CURVE_MAX_POINTS];
    double value[PDK_CURVE_MAX_POINTS];
} pdk_curve;

typedef struct pdk_kinematics_def {
    pdk_curve toe_rad;              /* adds to static_toe_rad; independent axles only */
    pdk_curve camber_rad;           /* adds to static_camber_rad; independent axles only */
    pdk_curve roll_center_height_m; /* adds to roll_center_height_m; switches the
                                     * axle to the per-wheel link form (jacking) */
    pdk_curve anti_brake;           /* adds to anti_brake */
    pdk_curve anti_drive;           /* adds to anti_drive */
} pdk_kinematics_def;

typedef enum pdk_axle_kind {
    PDK_AXLE_INDEPENDENT = 0, /* each wheel stands on the body */
    PDK_AXLE_SOLID = 1,       /* the wheels stand on the beam through the two contacts */
} pdk_axle_kind;

/* One axle's suspension: two corner struts and their geometry
 * (docs/vehicle-model.md). Four-wheel model only. Alignment angles are quoted
 * as alignment sheets quote them: negative camber leans the top of the wheel
 * toward the centreline, positive toe points the wheel toward the centreline
 * ahead. */
typedef struct pdk_suspension_def {
    pdk_axle_kind kind;
    double track_width_m;          /* 0: chassis.track_width_m */
    double spring_rate_npm;        /* per corner, at the wheel */
    double bump_damping_nspm;      /* per corner, compression rate > 0 */
    double rebound_damping_nspm;   /* per corner, compression rate < 0 */
    double anti_roll_npm;          /* per wheel, N per m of travel difference to the other */
    double travel_bump_m;          /* from the static ride position to the bump stop */
    double travel_droop_m;         /* from the static ride position to full extension */
    double bump_stop_npm;          /* per corner, beyond travel_bump_m */
    double roll_center_height_m;   /* above the ground at ride height */
    double anti_brake;             /* tan(theta) L / h_cg for the axle's braking force */
    double anti_drive;             /* tan(theta) L / h_cg for the axle's driving force */
    double static_camber_rad;      /* negative: top toward the centreline */
    double static_toe_rad;         /* positive: toe-in */
    pdk_kinematics_def kinematics;
} pdk_suspension_def;

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
    /* Downforce, four-wheel model only: 1/2 rho C_L A v^2 with v the body's
     * forward speed, pressing the body down along its z axis, the share
     * downforce_front at the front axle and the rest at the rear (the
     * aerodynamic balance). 0 for none. */
    double downforce_area_m2; /* C_L * A, positive pressing down */
    double downforce_front;   /* 0..1 */
} pdk_resist_def;

/* Which powertrain turns the wheels. Values are stable (recorded). */
typedef enum pdk_powertrain_kind {
    PDK_POWERTRAIN_LUMPED = 0, /* pdk_drive_def's drive force, no engine (the default) */
    PDK_POWERTRAIN_UTV = 1,    /* the Polaris model: engine, CVT, gear lever, demand drive */
    PDK_POWERTRAIN_GEARED = 2, /* engine, launch clutch, gearbox of fixed ratios, diffs */
} pdk_powertrain_kind;

/* Most forward gears of a geared powertrain. */
#define PDK_GEARS_MAX 8

/* How a geared powertrain chooses its gear in D. */
typedef enum pdk_shift_kind {
    PDK_SHIFT_AUTOMATIC = 0,  /* up at a shift speed rising with the pedal, down at
                               * downshift_rpm; the clutch open for shift_time_s */
    PDK_SHIFT_SEQUENTIAL = 1, /* the same schedule with the full-pedal speed always (a
                               * driver or controller shifting near the limiter) */
    PDK_SHIFT_MANUAL = 2,     /* the gear the command names (pdk_dbw_cmd.gear_number); the
                               * clutch open for shift_time_s, the engine free to over-rev
                               * to its limiter or to stall against the clutch's slip */
} pdk_shift_kind;

/* A gearbox of fixed ratios behind a launch clutch (a torque converter, a
 * centrifugal clutch or an automated one: its capacity grows with the square
 * of the engine's speed between engage_rpm and full_rpm, as the CVT's
 * primary clutch, cvt.h), a final drive and, for a part-time 4WD, a low
 * range that L selects. One forward gear is a single-speed drive (a kart). */
typedef struct pdk_gearbox_def {
    pdk_shift_kind shift;
    int n_gears;                 /* forward, 1..PDK_GEARS_MAX */
    double ratio[PDK_GEARS_MAX]; /* first to top, falling */
    double reverse_ratio;        /* magnitude */
    double final_drive;
    double low_range;          /* the transfer case's reduction in L; 1 without one */
    double efficiency;         /* gears and final drive, 0.05..1 */
    double upshift_rpm_light;  /* D's upshift speed with the pedal shut */
    double upshift_rpm_full;   /* and at full pedal */
    double downshift_rpm;      /* a gear down below this (never below first) */
    double shift_time_s;       /* the clutch is open while it shifts */
    double clutch_capacity_nm; /* C_max of the launch clutch, either way */
    double clutch_engage_rpm;  /* it starts to grip */
    double clutch_full_rpm;    /* and has its full capacity */
    double park_hold_nm;       /* P's pawl, at the carrier */
    double handbrake_nm;       /* P's parking brake at each rear wheel */
    /* A torque converter in the launch clutch's place (pdk_dl_engine): its
     * torque ratio at stall, 0 for a plain clutch, and the speed ratio at
     * which it reaches 1. The clutch's capacity law stands for the pump's
     * absorption. */
    double converter_stall_ratio;
    double converter_coupling;
} pdk_gearbox_def;

/* Which wheels a geared powertrain drives and through what: the primary
 * axle behind the gearbox and its differential, and the other axle's
 * coupling (driveline.h): none, locked through its own differential
 * (part-time 4WD, secondary_ratio its ring's speed over the carrier's), or
 * a centre differential between the two axles (full-time AWD). */
typedef struct pdk_layout_def {
    int driven_axle; /* 0 front, 1 rear */
    pdk_dl_diff diff;
    pdk_dl_coupling coupling; /* PDK_COUPLING_NONE, _LOCKED or _CENTRE */
    pdk_dl_diff secondary_diff;
    double secondary_ratio;
    pdk_dl_diff centre_diff; /* PDK_COUPLING_CENTRE: a full-time AWD's */
} pdk_layout_def;

/* The UTV's AWD switch (docs/powertrain.md); values are the switch's. */
typedef enum pdk_drive_mode {
    PDK_DRIVE_TURF = 0, /* open rear differential, front not driven */
    PDK_DRIVE_2WD = 1,  /* locked rear, front not driven */
    PDK_DRIVE_AWD = 2,  /* locked rear, the front's overrunning clutches */
} pdk_drive_mode;

/* A powertrain of engine, clutch, transmission and differentials, driven
 * through the implicit driveline (driveline.h). With kind
 * PDK_POWERTRAIN_LUMPED the vehicle drives with drive and brake instead and
 * nothing here is read. Four-wheel model only. */
typedef struct pdk_powertrain_def {
    pdk_powertrain_kind kind;
    pdk_engine_def engine;
    pdk_cvt_def cvt;
    pdk_utv_gearbox_def gearbox;
    pdk_drive_mode drive_mode;      /* the switch's position at spawn */
    pdk_gearbox_def geared;         /* PDK_POWERTRAIN_GEARED */
    pdk_layout_def layout;          /* PDK_POWERTRAIN_GEARED */
    double output_inertia_kgm2;     /* geared: gearbox output and shafts, at the carrier */
    double brake_front_nm_per_bar;  /* G_f: torque at each front wheel per bar */
    double brake_rear_nm_per_bar;   /* G_r: at each rear wheel */
    double brake_bias_bar;          /* added to the line pressure, P_out within 0..max_line_bar */
    int32_t abs;                    /* 1: the brakes have ABS (four_wheel_powertrain.c) */
    double fuel_tank_l;             /* full at spawn */
    double fuel_heating_value_jpkg; /* H_u, lower heating value */
    double fuel_density_kgpl;       /* rho_f */
} pdk_powertrain_def;

/* The Polaris Ranger CREW XP 1000 powertrain: the ProStar engine, the CVT with
 * its EBS, the gear lever, AWD, the brakes' gains, a 43.5 L tank of petrol. */
pdk_powertrain_def pdk_powertrain_def_polaris(void);

/* NULL when def can run, else what is wrong, naming the field. */
const char *pdk_powertrain_def_problem(const pdk_powertrain_def *def);

typedef struct pdk_vehicle_def {
    pdk_model model;
    pdk_chassis_def chassis;
    pdk_axle_tyre_def tyre_front;
    pdk_axle_tyre_def tyre_rear;
    pdk_steering_def steering;
    pdk_suspension_def susp_front;
    pdk_suspension_def susp_rear;
    pdk_drive_def drive;
    pdk_brake_def brake;
    pdk_resist_def resist;
    pdk_powertrain_def powertrain;
    pdk_dbw_def dbw;
    /* The body's surface against other bodies (four-wheel model: contact
     * between bodies, sim/contact.h): friction within 0..2, restitution
     * within 0..1; pdk_vehicle_def_default gives the car body's
     * (pdk_contact_material_car_body). */
    pdk_contact_material contact;
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

/* Rules the four-wheel model adds (pdk_vehicle_def_check). Its roll-centre and
 * pitch links are lagged one substep, as the four-wheel model specifies, and a
 * lagged link can feed energy into roll through the tyres' slip damping
 * (docs/vehicle-model.md, "The step's energy balance"); the struts' own
 * damping must outweigh it. A sweep of the worst corners of the parameter
 * space (the same section) found a self-excited roll only beyond these
 * limits:
 *  - every strut damper, bump and rebound, at least PDK_MIN_DAMPING_RATIO of
 *    critical for its corner, 2 sqrt(k m_corner) (real cars run 0.2 to 0.7);
 *  - the roll centre, with its curve at every point, at most
 *    PDK_MAX_ROLL_CENTER_RATIO of the CG height;
 *  - the roll inertia at least PDK_MIN_ROLL_INERTIA_RATIO m (t/2)^2 with t
 *    the chassis track (a uniform slab as wide as the track has 1/3; cars
 *    0.5 to 0.6, a kart 0.3). */
#define PDK_MIN_DAMPING_RATIO 0.1
#define PDK_MAX_ROLL_CENTER_RATIO 0.9
#define PDK_MIN_ROLL_INERTIA_RATIO 0.1

/* A mid-size road car on the four-wheel model, without kinematic curves;
 * every field valid. Presets start from here. */
pdk_vehicle_def pdk_vehicle_def_default(void);

/* The track of the front (axle 0) or rear (axle 1) axle: its own
 * track_width_m, or the chassis' when that is 0. */
double pdk_vehicle_def_track_m(const pdk_vehicle_def *def, int axle);

/* The road wheels' steer angles, FL FR RL RR (rad, positive to the left),
 * that the four-wheel model sets for a steering wheel at steer_wheel_deg:
 * the bicycle angle, each front wheel its Ackermann share, static toe
 * (steering.h; the toe curves, which go with each wheel's travel, are not
 * in it). Pure; for code outside sim that needs the steering's geometry,
 * as the validation's references do. */
void pdk_vehicle_def_wheel_steer(const pdk_vehicle_def *def, double steer_wheel_deg,
                                 double out_rad[4]);

/* What a drive-by-wire command asks of the drive and the brakes, the same
 * for every model: the signed share of the available drive force, the gear's
 * governor (0 for none) and where its fade starts (governor_band_mps below
 * it), and the holding force of brakes and parking pawl per axle. */
typedef struct pdk_demand {
    double drive_gain;
    double governor_mps;
    double governor_fade_mps;
    double hold_front_n;
    double hold_rear_n;
    double brake_front_n; /* the brakes' part of each hold (the rest is the pawl's) */
    double brake_rear_n;
} pdk_demand;

/* The demand of throttle_pct, brake_bar and gear (PARK..LOW) on def: D and L
 * drive forward, R backward, P and N not at all; L and R are governed; the
 * brake force splits by the brake balance and the pawl, which locks the
 * transmission, holds the driven axles in the drive split. */
pdk_demand pdk_vehicle_def_demand(const pdk_vehicle_def *def, double throttle_pct,
                                  double brake_bar, pdk_gear gear, double governor_band_mps);

/* Why def's vehicle refuses the fields cmd names (the others are not
 * looked at): a static sentence naming the field and its bound (e.g.
 * "brake_bar must be within 0..brake.max_line_bar of the vehicle"), or NULL
 * when it takes them. Throttle 0..100 %, brake 0..brake.max_line_bar,
 * steering within +-steering.lock_deg, gear PARK..LOW or NONE, gear_number
 * only on a manual gearbox and within its forward gears. The one check
 * pdk_world_command applies and a drive script's check (script.h) reuses;
 * the fields' bits are not checked here. */
const char *pdk_vehicle_def_command_problem(const pdk_vehicle_def *def, const pdk_dbw_cmd *cmd);

/* A curve's value at travel_m: linear between points, held beyond the ends,
 * 0 for an absent curve (n_points 0). */
double pdk_curve_eval(const pdk_curve *curve, double travel_m);

/* Why the curve breaks the rules above, as a static sentence without the
 * curve's name ("must have 2 to 16 points", "travel must be strictly
 * increasing", "must be 0 at travel 0", "must be finite"), or NULL when it is
 * valid or absent. */
const char *pdk_curve_problem(const pdk_curve *curve);

/* Checks invariants between fields that params' per-field bounds cannot
 * (e.g. cg_to_front_axle_m < wheelbase_m, yaw_inertia_kgm2 >=
 * PDK_MIN_YAW_INERTIA_RATIO m a b). Returns PDK_OK or
 * PDK_ERR_OUT_OF_RANGE / PDK_ERR_INVALID_ARGUMENT. */
pdk_error pdk_vehicle_def_check(const pdk_vehicle_def *def);

/* The four-wheel model's collision hull of def (the box its body fills and
 * contact between bodies pushes, docs/vehicle-model.md "The body on the
 * ground"): half_extent_m its half length, width and height along the
 * body's x, y and z, centre_m the box's centre from the CG in the body
 * frame (ISO 8855: ahead by half the front and rear overhangs' difference,
 * up by half the roof's height above the CG less the floor's below). What
 * a kinematic proxy standing for a car of this definition takes: its pose
 * is the box's centre, the CG's position plus the body's rotation of
 * centre_m. Errors: PDK_ERR_INVALID_ARGUMENT (NULL, or the single-track
 * model, which has no hull), or pdk_vehicle_def_check's for a definition
 * it refuses (pdk_vehicle_def_problem names the field). */
pdk_error pdk_vehicle_def_hull_box(const pdk_vehicle_def *def, double half_extent_m[3],
                                   double centre_m[3]);

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
