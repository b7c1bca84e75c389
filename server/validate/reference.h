/* The validation's analytic references: what the textbooks say a vehicle
 * definition should do, computed from the definition alone, each formula
 * with its published source. The understeer gradient of the linear
 * single-track (bicycle) model and of a four-wheel car with its lateral load
 * transfer, camber, toe and roll steer; the static stability factor; the
 * friction the tyre law itself has on a surface and the stopping distance it
 * allows; the ISO 3888-1 double-lane-change course and whether a car's path
 * stays inside it. The tyre's forces come from sim's own law
 * (sim/tyre_probe.h), never a copy of it. Pure functions: no I/O, nothing
 * allocated. Angles in rad unless the name says deg; ISO 8855 axes (x
 * forward, y left, z up; a left turn is positive). */
#ifndef PDK_VALIDATE_REFERENCE_H
#define PDK_VALIDATE_REFERENCE_H

#include <stddef.h>

#include "sim/error.h"
#include "sim/vehicle_def.h"

/* The world a reference is taken in: g and the world's friction scale
 * (pdk_world_def's gravity_mps2 and surface_friction). */
typedef struct pdk_ref_world {
    double gravity_mps2;
    double surface_friction;
} pdk_ref_world;

/* 9.81 m/s^2 and friction 1, pdk_world_def_default's. */
pdk_ref_world pdk_ref_world_default(void);

/* ---- Understeer gradient ------------------------------------------------ */

/* An axle's cornering stiffness, both tyres together, dFy/dalpha at zero
 * slip and camber (N/rad), from the tyre law at a load per tyre of fz_n on
 * dry tarmac: the law's own slope (sim/tyre_probe.h). A single-track
 * definition's is its cornering_stiffness_n_per_rad, whatever the load.
 * Errors: PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_OUT_OF_RANGE (axle not
 * 0 or 1, load negative or not finite). */
pdk_error pdk_ref_axle_cornering_n_per_rad(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                           int axle, double fz_n, double *out);

/* The steady-state understeer of a car at a lateral acceleration, as the
 * road-wheel steer it needs beyond the Ackermann angle L / R, split into
 * its causes. Each *_rad field is that cause's share of delta - L/R at
 * ay_mps2; each *_rad_per_mps2 field is its share of the gradient
 * K = d(delta)/d(a_y) there (a central difference of the former). The
 * shares add up to the total. A positive share understeers. */
typedef struct pdk_ref_understeer {
    double ay_mps2; /* where it was taken */
    /* The linear single-track model, K = m/L (b/C_f - a/C_r) with each
     * axle's stiffness at its static load (Gillespie, Fundamentals of
     * Vehicle Dynamics, 1992, eq. 6-15; Milliken and Milliken, Race Car
     * Vehicle Dynamics, 1995, ch. 5). */
    double bicycle_rad, bicycle_rad_per_mps2;
    /* The stiffness each axle loses to lateral load transfer: the law
     * evaluated at the outer and inner loads, the axle's C their sum
     * (Gillespie ch. 6, "Lateral load transfer"). */
    double load_transfer_rad, load_transfer_rad_per_mps2;
    /* Camber thrust: static camber and its change with roll (the camber
     * curve at each wheel's travel, the body's roll on an independent
     * axle; a solid axle stays square to the road), through the law. */
    double camber_rad, camber_rad_per_mps2;
    /* Static toe under load transfer: the outer wheel's toe weighs more. */
    double toe_rad, toe_rad_per_mps2;
    /* Roll steer: the toe curve at each wheel's travel in roll. */
    double roll_steer_rad, roll_steer_rad_per_mps2;
    /* The tyres' curvature: each axle's slip solved through the law at its
     * wheels' loads, cambers and toe (the force falls below the slope's
     * line as the slip grows), less the five linear shares above
     * (Pacejka, Tire and Vehicle Dynamics, ch. 1.3: the handling diagram
     * from the axles' characteristics). */
    double curvature_rad, curvature_rad_per_mps2;
    /* Downforce (pdk_ref_understeer_on_circle only, 0 otherwise): the
     * stiffness each axle gains with its share of 1/2 rho C_L A v^2 at the
     * circle's speed, the axles' slips solved through the law at their
     * loads with it, less those without (Milliken and Milliken ch. 5, the
     * aerodynamic load on each axle). */
    double downforce_rad, downforce_rad_per_mps2;
    /* Tractive force (pdk_ref_understeer_on_circle only, 0 otherwise): the
     * drive force that holds the speed on the circle, the yaw moment of
     * its and the rolling resistance's differences between the sides (an
     * open differential splits the torque evenly, so only the loads moved
     * outward tell the sides apart; a locked axle turns both wheels at one
     * spin, so the inner, its contact slower by t/R, is driven harder; a
     * limited slip one is locked until its friction slips,
     * pdk_dl_diff_hold_nm, then the inner takes that much more), which
     * moves lateral force between the axles, the lateral stiffness each
     * driven and rolling-resisted wheel loses to the longitudinal slip it
     * takes, and the stiffness each axle loses or gains with the load the
     * tyres' forces along the body move from the front axle to the rear,
     * F_x h / L (Gillespie ch. 6, "Tractive force", and ch. 2, "Dynamic
     * axle loads"; Milliken and Milliken ch. 5 and ch. 20, differentials;
     * Pacejka ch. 4, combined slip). */
    double tractive_rad, tractive_rad_per_mps2;
    /* Ackermann (pdk_ref_understeer_on_circle only, 0 otherwise): each
     * front wheel's steer beyond the parallel steer at the circle's
     * road-wheel angle, as the model's steering sets it
     * (pdk_vehicle_def_wheel_steer), weighed by its tyre's stiffness at
     * its load: the inner wheel steers more, the outer, more loaded, less
     * (Milliken and Milliken ch. 19); and each wheel's heading over the
     * ground, atan(tan(d) cos(phi)) on the body rolled by phi, as the
     * model's tyre frame projects it. */
    double ackermann_rad, ackermann_rad_per_mps2;
    /* Body damping (pdk_ref_understeer_on_circle only, 0 otherwise): a
     * body whose angular velocity decays by c per second
     * (chassis.angular_damping_per_s, the Polaris model's) loses c I_z r of
     * yaw moment at the circle's yaw rate r = v / R, which the axles'
     * lateral forces make up, the front's more and the rear's less, at the
     * tyres' forces of the tractive share (Milliken and Milliken ch. 5, the
     * yaw moment balance): it understeers. */
    double damping_rad, damping_rad_per_mps2;
    double total_rad, total_rad_per_mps2;
    /* The totals in the units data sheets quote: road-wheel degrees per g,
     * and steering-wheel degrees per g (times the steering ratio). */
    double bicycle_deg_per_g, total_deg_per_g, steering_wheel_deg_per_g;
    /* What the shares were computed from. */
    double c_static_n_per_rad[2]; /* each axle's stiffness at static load */
    double c_loaded_n_per_rad[2]; /* and at ay_mps2, outer plus inner */
    double static_load_n[2];      /* per tyre */
    double transfer_n[2];         /* load moved from the inner to the outer tyre */
    double roll_stiffness_nm_per_rad[2]; /* springs and bar, (k/2 + bar) t^2 */
    double roll_rad;              /* body roll at ay_mps2, positive right side down */
    double drive_force_n;         /* the drive force on the circle (0 without one) */
    double downforce_n;           /* the downforce there, both axles (0 without a circle) */
    double pitch_transfer_n;      /* load the tyres' F_x move from each front tyre to each
                                   * rear one on the circle (0 without one) */
    double tractive_yaw_nm;       /* the yaw moment of the tyres' F_x differences there */
    double damping_yaw_nm;        /* the body damping's yaw moment there, -c I_z r (0 without
                                   * a circle or damping) */
    double fx_n[2][2];            /* the tyres' F_x there, [axle][0 left (inner), 1 right] */
} pdk_ref_understeer;

/* The understeer of def at a steady left turn of lateral acceleration
 * ay_mps2 (0..10 m/s^2; a right turn is its mirror), on dry tarmac. The
 * body rolls on its springs and bars, (k/2 + bar) t^2 per axle, about the
 * ground with the roll centres taking their geometric share F_y h_rc / t
 * of each axle's transfer, tan(phi) = m a_y (h - h_rc) / (K_phi - m g h)
 * (Milliken and Milliken ch. 18; the four-wheel model has no unsprung mass,
 * so the whole mass rolls; docs/vehicle-model.md, "The roll gradient").
 * Tractive force, rolling resistance, downforce and Ackermann, which go
 * with the speed or the radius, are left out here (the circle's reference
 * below has them), and so are aligning moments, which the four-wheel model
 * keeps off the chassis and out of a rigid steering. A single-track
 * definition has the bicycle share only. Errors: PDK_ERR_INVALID_ARGUMENT (NULL),
 * PDK_ERR_OUT_OF_RANGE (ay_mps2 outside 0..10, a world out of range, a
 * body that the roll stiffness cannot hold up: K_phi <= m g h, or an axle
 * whose law has no cornering stiffness). */
pdk_error pdk_ref_understeer_at(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                double ay_mps2, pdk_ref_understeer *out);

/* A steady-state circle (ISO 4138, constant radius): its radius, the air
 * the car drives through, and the rate the speed rises at, 0 for a steady
 * state, or the slow ramp of a measurement taken while speeding up (ISO
 * 4138's constant-radius method with the speed raised continuously), whose
 * m dv/dt the drive adds. */
typedef struct pdk_ref_circle {
    double radius_m;
    double air_density_kgpm3;
    double speed_rate_mps2;
} pdk_ref_circle;

/* pdk_ref_understeer_at on a circle of circle->radius_m, where the speed
 * is sqrt(R a_y): with the tractive-force share as well, which holds the
 * axle loads the tyres' forces along the body move as well as the forces.
 * Errors: those of pdk_ref_understeer_at; PDK_ERR_INVALID_ARGUMENT for a
 * NULL circle, PDK_ERR_OUT_OF_RANGE for a radius not above 0 or an air
 * density below 0, either not finite, or a speed rate not finite. */
pdk_error pdk_ref_understeer_on_circle(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                       const pdk_ref_circle *circle, double ay_mps2,
                                       pdk_ref_understeer *out);

/* ---- Rollover --------------------------------------------------------- */

/* The static stability factor SSF = t / (2 h), t the mean of the axles'
 * tracks and h the CG height of def as given (apply a payload first,
 * pdk_payload_apply, for the loaded car): the lateral acceleration in g at
 * which a rigid car lifts its inner wheels (Gillespie ch. 9, "Quasi-static
 * rollover of a rigid vehicle"; the figure NHTSA's rollover resistance
 * rating is built on), and the tilt-table angle at which it lifts its upper
 * wheels, atan(SSF). Errors: PDK_ERR_INVALID_ARGUMENT (NULL),
 * PDK_ERR_OUT_OF_RANGE (a track or CG height not above 0). */
typedef struct pdk_ref_rollover {
    double track_m;
    double cg_height_m;
    double ssf;
    double tilt_angle_rad;
} pdk_ref_rollover;

pdk_error pdk_ref_rollover_of(const pdk_vehicle_def *def, pdk_ref_rollover *out);

/* The tilt-table angle of a car that is rigid but for its tyres' lateral
 * deflection, as the four-wheel model has it (its deflection states hold a
 * steady side force Fy with the wheel u_y = sigma_alpha tan(alpha) beside
 * its contact patch). On the table at angle theta the side force is W sin
 * theta; at the verge of tipping the downhill tyres carry all of W cos
 * theta, each axle's in its static share, and the body stands u downhill of
 * their contact patches, u the deflection at which their forces add up to
 * W sin theta. The moment about the patches then balances at tan(theta) =
 * (t/2 - u) / h (the rigid car's t/2h less the patches' travel; TRB Special
 * Report 265, 2002, ch. 2: the tilt-table ratio falls below the SSF by the
 * tyres' and suspension's compliance). The stiff variant of the validation
 * removes the suspension's; this is what remains. The four-wheel model
 * itself applies each wheel's load at the ground point under its strut, not
 * at the deflected patch, so the angle it tips at on the table lies
 * between this and atan(SSF). For the UTV law, whose
 * side force is C_alpha N tan(alpha), it is tan(theta) = (t/2) / (h +
 * sigma_alpha / C_alpha). world is the table's (the validation doubles the
 * friction so that the car tips rather than slides). Errors: those of
 * pdk_ref_rollover_of; PDK_ERR_INVALID_ARGUMENT for a NULL world or a
 * single-track definition, PDK_ERR_OUT_OF_RANGE for a world out of range
 * or tyres that cannot hold the car on a table tilted by a degree. */
typedef struct pdk_ref_tilt {
    double rigid_rad;      /* atan(SSF) */
    double tilt_angle_rad; /* with the tyres' deflection */
    double shift_m;        /* u at that angle */
} pdk_ref_tilt;

pdk_error pdk_ref_tilt_with_tyres(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                  pdk_ref_tilt *out);

/* ---- Power and top speed ------------------------------------------------ */

/* The peak of the engine's full-load power, scanned every rev/min from idle
 * to the limiter, W, and in *at_rpm where (the lumped drive's max_power_w
 * and 0). at_rpm may be NULL. */
double pdk_ref_peak_power_w(const pdk_vehicle_def *def, double *at_rpm);

/* The power-limited top speed on flat ground (Gillespie, Fundamentals of
 * Vehicle Dynamics, 1992, ch. 2, "Power-limited operation"), m/s: for a
 * geared car, the best gear's speed where the full-load torque less the
 * accessories', through the gear and the gearbox's efficiency, meets drag
 * and rolling resistance on the weight and the downforce (bisection in
 * each gear; the curve falls to 0 at the limiter), and *gear that gear;
 * otherwise the peak power against the same resistance (a UTV's CVT taken
 * as lossless at the peak) and *gear 0. Held to the governor's speed where
 * there is one and it is lower (*governed 1). Each axle's tyres roll with
 * their own coefficient on their static share on the four-wheel model, the
 * chassis's on the single-track one. gear and governed may be NULL. */
double pdk_ref_power_limited_top_mps(const pdk_vehicle_def *def, double air_density_kgpm3,
                                     double gravity_mps2, int *gear, int *governed);

/* ---- Friction and stopping ---------------------------------------------- */

/* The friction the tyre law has in pure longitudinal slip on a hard
 * surface: the peak of |Fx| / Fz over braking slips (a geometric scan from
 * 0.1 % to full lock) and the locked wheel's (kappa = -1), with the
 * surface's scales applied as the model applies them and the world's
 * friction scale (the tyres warm: their own grip scale 1). The car's mu is
 * its braking force at the limit over its weight: each braked wheel at its
 * law's mu times its load, or at its brakes' capacity at the highest line
 * pressure where that is less, an unbraked axle (a kart's front) at
 * nothing; each axle's load where the stop's own deceleration puts it
 * (static plus m d h / L moved forward, Gillespie ch. 3: the braked axle's
 * dynamic load). That is what ABS (peak) or locked wheels (locked) get at
 * the line pressure's limit whatever the brake balance between braked
 * axles; the per-axle figures are at those loads. */
typedef struct pdk_ref_friction {
    double peak_mu[2];    /* per axle */
    double peak_kappa[2]; /* the slip at the peak, negative (braking) */
    double locked_mu[2];
    double peak_mu_car;   /* as above */
    double locked_mu_car;
    int braked[2];        /* 1: the axle has brakes */
    double brake_capacity_n[2]; /* one wheel's braking force at the highest line
                                 * pressure, N (infinite on a single-track definition) */
} pdk_ref_friction;

/* Errors: PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_OUT_OF_RANGE (an
 * unknown surface id, a deformable one, where the soil model's thrust
 * joins the law's, or a world out of range). A single-track definition's
 * is its axles' friction_coeff times the surface's and world's scales,
 * peak and locked alike, both axles braked. */
pdk_error pdk_ref_friction_on(const pdk_vehicle_def *def, const pdk_ref_world *world,
                              int surface_id, pdk_ref_friction *out);

/* The stopping distance v^2 / (2 mu g) from speed_mps at a constant
 * deceleration mu g (Gillespie ch. 3, "Braking performance"; without drag
 * and rolling resistance, which shorten a real stop). 0 for speed 0, an
 * infinite distance for mu 0. */
double pdk_ref_stopping_distance_m(double speed_mps, double mu, double gravity_mps2);

/* The stop of pdk_ref_friction_on's car (locked 1: locked wheels, 0: at
 * the law's peak) from speed_mps with its downforce: the lift 1/2 rho C_L
 * A v^2 (Gillespie ch. 4, "Lift"; resist.downforce_area_m2, its front share
 * downforce_front) adds to the axles' loads, so the deceleration d(v)
 * rises with speed and the distance is the integral of v dv / d(v) from 0
 * to speed_mps (Simpson's rule). Without downforce it is v^2 / (2 d).
 * Drag and rolling resistance are left out, as above. Infinite when the
 * car cannot brake. Errors: those of pdk_ref_friction_on, and
 * PDK_ERR_OUT_OF_RANGE for an air density or speed negative or not
 * finite. */
pdk_error pdk_ref_stop_with_lift_m(const pdk_vehicle_def *def, const pdk_ref_world *world,
                                   int surface_id, int locked, double air_density_kgpm3,
                                   double speed_mps, double *out_m);

/* ---- ISO 3888-1 double lane change ------------------------------------- */

/* The course of ISO 3888-1:2018 (Passenger cars, Test track for a severe
 * lane-change manoeuvre, Part 1: Double lane-change), table 1, for a car
 * of width w, as six sections along +x from x0:
 *   1 entry lane      15 m, width 1.1 w + 0.25 m
 *   2 transition      30 m (no cones)
 *   3 offset lane     25 m, width w + 1 m, shifted left by 3.5 m: the
 *                     offset is between section 1's right cone line and
 *                     section 3's
 *   4 transition      25 m (no cones)
 *   5 exit lane       15 m, width 1.3 w + 0.25 m
 *   6 exit lane       15 m, width 1.3 w + 0.25 m
 * Sections 5 and 6 are one exit lane 30 m long, cut in two as the table
 * does. Sections 1, 5 and 6 share their right cone line, y0 - (1.1 w +
 * 0.25) / 2, with y0 the entry lane's centre. The car changes lanes to the left; a
 * lane change to the right is the course mirrored about y0. */
#define PDK_DLC_SECTIONS 6
#define PDK_DLC_LANES 4 /* the coned sections: 1, 3, 5, 6 */

typedef struct pdk_dlc_lane {
    double x_start_m, x_end_m;  /* world x of the lane's first and last cones */
    double y_right_m, y_left_m; /* world y of its right and left cone lines */
} pdk_dlc_lane;

typedef struct pdk_dlc_course {
    double vehicle_width_m;
    double x0_m, y0_m;
    double section_length_m[PDK_DLC_SECTIONS]; /* 15, 30, 25, 25, 15, 15 */
    double section_end_x_m[PDK_DLC_SECTIONS];  /* world x where each ends */
    pdk_dlc_lane lane[PDK_DLC_LANES];          /* sections 1, 3, 5, 6 */
    double offset_m;                           /* 3.5 */
} pdk_dlc_course;

/* The course for a car vehicle_width_m wide (0.5..3 m) starting at x0_m
 * with its entry lane centred on y0_m. Errors: PDK_ERR_INVALID_ARGUMENT
 * (NULL), PDK_ERR_OUT_OF_RANGE (width outside 0.5..3 m, x0 or y0 not
 * finite). */
pdk_error pdk_dlc_course_make(double vehicle_width_m, double x0_m, double y0_m,
                              pdk_dlc_course *out);

/* The centre of the lane in force at x_m: the entry lane's centre before
 * section 2, section 3's in it, the exit lanes' after section 4, and in the
 * transitions a blend between them (not a cone line, the path a driver
 * aims along; driver.h draws its own smooth path through the same points). */
double pdk_dlc_lane_centre_y_m(const pdk_dlc_course *course, double x_m);

/* One sample of a car's path: its CG and heading, world frame. */
typedef struct pdk_dlc_point {
    double x_m, y_m, yaw_rad;
} pdk_dlc_point;

/* The first cone a car touched. */
typedef struct pdk_dlc_check {
    int passed;       /* 1: every body corner stayed inside every lane */
    int point_index;  /* the first sample out of a lane, -1 when passed */
    int lane;         /* which coned section (0..3: sections 1, 3, 5, 6), -1 */
    int corner;       /* which body corner: 0 front left, 1 front right, 2 rear
                       * left, 3 rear right, -1 */
    double miss_m;    /* how far that corner was past the cone line, m (0 when passed) */
    double least_margin_m; /* the closest any corner came to a cone line over the
                            * whole path (negative: past it) */
    int reached_end;  /* 1: the path's CG got past the last section's end */
} pdk_dlc_check;

/* The body's footprint: a rectangle length_m by width_m on the car's
 * centre line, its front cg_to_front_m ahead of the CG. */
typedef struct pdk_dlc_body {
    double length_m;
    double width_m;
    double cg_to_front_m; /* 0 < it < length_m */
} pdk_dlc_body;

/* The least footprint def's wheels give: the outer edges of its tyres, the
 * wider axle's track plus a tyre's width (tyre.soil.width_m) across, and
 * the wheelbase plus a tyre's diameter (2 law.radius_m) along. A real body
 * overhangs it; pass the body's own size where the preset knows it. */
pdk_dlc_body pdk_dlc_body_of_wheels(const pdk_vehicle_def *def);

/* Whether a car's path stays inside the lanes: at each sample the body's
 * four corners must be inside the cone lines of every coned section whose
 * x span the corner is in (a corner past a cone line has touched that
 * line's cones). The check is of the corners at the samples: sample every
 * tick. Errors: PDK_ERR_INVALID_ARGUMENT (NULL, or n 0),
 * PDK_ERR_OUT_OF_RANGE (length or width not above 0, cg_to_front_m not
 * within the length, a sample not finite). */
pdk_error pdk_dlc_check_path(const pdk_dlc_course *course, const pdk_dlc_body *body,
                             const pdk_dlc_point *path, size_t n, pdk_dlc_check *out);

#endif
