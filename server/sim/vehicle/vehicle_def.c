/* The default vehicle definition and the checks every definition passes
 * before a vehicle is spawned from it. */
#include "sim/vehicle_def.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ground/surface.h"
#include "math/vmath.h"
#include "powertrain/cvt.h"
#include "powertrain/engine.h"
#include "powertrain/utv_gear.h"
#include "tyre/tyre.h"
#include "tyre/tyre_life.h"
#include "vehicle/curve.h"
#include "vehicle/vehicle_rules.h"

/* A mid-size front-wheel-drive road car on the four-wheel model. Mass, inertia
 * and geometry are those of a typical D-segment saloon (Gillespie,
 * Fundamentals of Vehicle Dynamics, ch. 6 uses the same class); the axle
 * cornering stiffnesses make it mildly understeering: K = (m/L)(b/C_f - a/C_r)
 * = 2.45e-3 rad/(m/s^2), about 1.4 deg/g, characteristic speed sqrt(L/K) = 33
 * m/s. Geometry and track follow REF-1, the reference car of the validation
 * cases (docs/drive-scripts.md). The roll and pitch inertias, 550 and 2300 kg
 * m^2, are typical of the class: about a third of m (t/2)^2 plus the body's
 * height, and near the yaw inertia. Suspension: ride 1.4 Hz front, 1.5 Hz rear
 * on the corner's share of the mass (the four-wheel model: f = sqrt(k /
 * m_corner) / 2 pi; front corner 416.7 kg, rear 333.3 kg), damping 0.3 of
 * critical in bump and 0.5 in rebound, roll centres 0.05 m front and 0.10 m
 * rear, half Ackermann, half a degree of negative camber, no toe and no
 * kinematic curves. Tyres: 205/60R15 on the grip law (tyre.h's default: R0
 * 0.31 m, Ck/Fz 18, relaxation 0.15 / 0.45 m, f 0.011), its stiffness and
 * friction from the axle's fields; the life of tyre_life.h's road tyre at 220
 * kPa cold; on soil a section 0.205 m wide and 0.123 m high (60 % of the
 * width) with the carcass pressure of a tyre of this size (30 kPa, est.), no
 * lugs, and the Polaris model's tread compliance (0.008 m) and hysteresis
 * (0.12); a wheel's spin inertia 1.0 kg m^2 (a car wheel's; the Polaris
 * model's tyres.wheel_inertia_kg_m2). */
static pdk_axle_tyre_def road_tyre(double cornering_n_per_rad, double camber_n_per_rad)
{
    pdk_axle_tyre_def t;
    memset(&t, 0, sizeof t);
    t.cornering_stiffness_n_per_rad = cornering_n_per_rad;
    t.friction_coeff = 1.0;
    t.camber_stiffness_n_per_rad = camber_n_per_rad;
    t.law = pdk_tyre_law_def_default();
    t.life = pdk_tyre_life_def_default(t.law.radius_m, 220.0);
    t.soil.radius_m = t.law.radius_m;
    t.soil.width_m = 0.205;
    t.soil.section_height_m = 0.123;
    t.soil.inflation_pa = 1000.0 * t.life.cold_pressure_kpa;
    t.soil.carcass_pa = 30000.0;
    t.soil.lug_height_m = 0.0;
    t.soil.lug_area_ratio = 0.0;
    t.soil.tread_k_m = 0.008;
    t.soil.hysteresis = 0.12;
    t.spin_inertia_kgm2 = 1.0;
    return t;
}

pdk_vehicle_def pdk_vehicle_def_default(void)
{
    pdk_suspension_def front = {
        .kind = PDK_AXLE_INDEPENDENT,
        .track_width_m = 0.0,
        .spring_rate_npm = 32250.0,
        .bump_damping_nspm = 2200.0,
        .rebound_damping_nspm = 3660.0,
        .anti_roll_npm = 15000.0,
        .travel_bump_m = 0.08,
        .travel_droop_m = 0.10,
        .bump_stop_npm = 200000.0,
        .roll_center_height_m = 0.05,
        .static_camber_rad = -0.5 * (3.14159265358979323846 / 180.0),
    };
    pdk_suspension_def rear = front;
    rear.spring_rate_npm = 29600.0;
    rear.bump_damping_nspm = 1880.0;
    rear.rebound_damping_nspm = 3140.0;
    rear.anti_roll_npm = 5000.0;
    rear.roll_center_height_m = 0.10;

    pdk_vehicle_def def = {
        .model = PDK_MODEL_FOUR_WHEEL,
        .chassis =
            {
                .mass_kg = 1500.0,
                .yaw_inertia_kgm2 = 2500.0,
                .roll_inertia_kgm2 = 550.0,
                .pitch_inertia_kgm2 = 2300.0,
                .wheelbase_m = 2.7,
                .cg_to_front_axle_m = 1.2,
                .cg_height_m = 0.55,
                .track_width_m = 1.60,
            },
        .tyre_front = road_tyre(110000.0, 8000.0),
        .tyre_rear = road_tyre(130000.0, 9000.0),
        .steering = {.ratio = 15.0, .lock_deg = 540.0, .center_offset_deg = 0.0, .ackermann = 0.5},
        .susp_front = front,
        .susp_rear = rear,
        .drive =
            {
                .max_force_n = 6000.0,
                .max_power_w = 110000.0,
                .front_fraction = 1.0,
                .max_reverse_speed_mps = 5.0,
                .max_low_speed_mps = 12.0,
            },
        .brake =
            {
                .force_per_bar_n = 150.0,
                .front_fraction = 0.65,
                .max_line_bar = 180.0,
                .park_hold_force_n = 8000.0,
            },
        .resist = {.rolling_coeff = 0.012, .drag_area_m2 = 0.65},
    };
    def.dbw = pdk_dbw_def_default();
    def.contact = pdk_contact_material_car_body();
    return def;
}

double pdk_vehicle_def_track_m(const pdk_vehicle_def *def, int axle)
{
    const pdk_suspension_def *s = axle == 0 ? &def->susp_front : &def->susp_rear;
    return s->track_width_m > 0.0 ? s->track_width_m : def->chassis.track_width_m;
}

pdk_demand pdk_vehicle_def_demand(const pdk_vehicle_def *def, double throttle_pct,
                                  double brake_bar, pdk_gear gear, double governor_band_mps)
{
    pdk_demand d = {0};
    double direction = 0.0;
    switch (gear) {
    case PDK_GEAR_DRIVE:
        direction = 1.0;
        break;
    case PDK_GEAR_LOW:
        direction = 1.0;
        d.governor_mps = def->drive.max_low_speed_mps;
        break;
    case PDK_GEAR_REVERSE:
        direction = -1.0;
        d.governor_mps = def->drive.max_reverse_speed_mps;
        break;
    default: /* PARK, NEUTRAL: no drive */
        break;
    }
    d.governor_fade_mps = d.governor_mps - governor_band_mps;
    d.drive_gain = direction * throttle_pct / 100.0;
    double brake_n = brake_bar * def->brake.force_per_bar_n;
    double brake_front = def->brake.front_fraction;
    double drive_front = def->drive.front_fraction;
    double park_n = gear == PDK_GEAR_PARK ? def->brake.park_hold_force_n : 0.0;
    d.brake_front_n = brake_n * brake_front;
    d.brake_rear_n = brake_n * (1.0 - brake_front);
    d.hold_front_n = d.brake_front_n + park_n * drive_front;
    d.hold_rear_n = d.brake_rear_n + park_n * (1.0 - drive_front);
    return d;
}

static int within(double v, double lo, double hi)
{
    return isfinite(v) && v >= lo && v <= hi;
}

const char *pdk_vehicle_def_command_problem(const pdk_vehicle_def *def, const pdk_dbw_cmd *cmd)
{
    if ((cmd->fields & PDK_DBW_THROTTLE) && !within(cmd->throttle_pct, 0.0, 100.0)) {
        return "throttle_pct must be within 0..100";
    }
    if ((cmd->fields & PDK_DBW_BRAKE) && !within(cmd->brake_bar, 0.0, def->brake.max_line_bar)) {
        return "brake_bar must be within 0..brake.max_line_bar of the vehicle";
    }
    if ((cmd->fields & PDK_DBW_STEER) &&
        !within(cmd->steer_wheel_deg, -def->steering.lock_deg, def->steering.lock_deg)) {
        return "steer_wheel_deg must be within -steering.lock_deg..+steering.lock_deg";
    }
    if ((cmd->fields & PDK_DBW_GEAR) && cmd->gear != PDK_GEAR_NONE &&
        (cmd->gear < PDK_GEAR_PARK || cmd->gear > PDK_GEAR_LOW)) {
        return "gear must be NONE (no change) or one of PARK, REVERSE, NEUTRAL, DRIVE, LOW";
    }
    if ((cmd->fields & PDK_DBW_GEAR_NUMBER) &&
        (def->powertrain.kind != PDK_POWERTRAIN_GEARED ||
         def->powertrain.geared.shift != PDK_SHIFT_MANUAL)) {
        return "gear_number applies only to a vehicle with a manual gearbox "
               "(transmission.shift manual)";
    }
    if ((cmd->fields & PDK_DBW_GEAR_NUMBER) &&
        (cmd->gear_number < 1 || cmd->gear_number > def->powertrain.geared.n_gears)) {
        return "gear_number must be within 1..the vehicle's forward gears (transmission.ratios)";
    }
    return NULL;
}

double pdk_curve_eval(const pdk_curve *c, double travel_m)
{
    return pdk_curve_at(c, travel_m);
}

/* Which of the curve rules c breaks first (an index into curve_rules), or
 * -1 when it is valid or absent. */
static int curve_rule(const pdk_curve *c)
{
    if (c->n_points == 0) {
        return -1;
    }
    if (c->n_points < 2 || c->n_points > PDK_CURVE_MAX_POINTS) {
        return 0;
    }
    double scale = 0.0;
    for (int i = 0; i < c->n_points; i++) {
        if (!isfinite(c->travel_m[i]) || !isfinite(c->value[i])) {
            return 1;
        }
        if (i > 0 && !(c->travel_m[i] > c->travel_m[i - 1])) {
            return 2;
        }
        scale = fmax(scale, fabs(c->value[i]));
    }
    /* Zero at zero travel, to rounding: (-0.08, 0.3)..(0.08, -0.3) gives 0
     * to within an ulp or two of its values. */
    if (fabs(pdk_curve_eval(c, 0.0)) > 1e-12 * scale) {
        return 3;
    }
    return -1;
}

static const char *const curve_rules[4] = {
    "must have 2 to 16 points",
    "must have finite travel and values",
    "travel must be strictly increasing",
    "must be 0 at travel 0 (the static field holds the ride-height value)",
};

const char *pdk_curve_problem(const pdk_curve *c)
{
    int rule = curve_rule(c);
    return rule < 0 ? NULL : curve_rules[rule];
}

static int positive(double v)
{
    return isfinite(v) && v > 0.0;
}

static int non_negative(double v)
{
    return isfinite(v) && v >= 0.0;
}

static int fraction(double v)
{
    return isfinite(v) && v >= 0.0 && v <= 1.0;
}

/* The road-wheel angle must stay below this so the front axle always points
 * forward (cos > 0); real steering stops well before it. */
#define MAX_ROAD_WHEEL_DEG 80.0

/* One rule per line: the first that fails names the field. */
#define REQUIRE(cond, err, msg)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            *why = (msg);                                                                          \
            return (err);                                                                          \
        }                                                                                          \
    } while (0)

double pdk_vehicle_def_min_yaw_inertia_kgm2(const pdk_vehicle_def *def)
{
    const pdk_chassis_def *c = &def->chassis;
    double a = c->cg_to_front_axle_m;
    return PDK_MIN_YAW_INERTIA_RATIO * c->mass_kg * a * (c->wheelbase_m - a) * (1.0 - 1e-9);
}

/* The largest static camber or toe a definition may have: 20 degrees is far
 * beyond any road or race car's alignment and still a small angle for the
 * tyre. */
#define MAX_ALIGNMENT_RAD 0.35

/* Messages for one axle's fields; the two axles get their own strings. */
typedef struct axle_msgs {
    const char *kind, *track, *spring, *damping, *arb, *travel, *bump_stop, *rc, *anti, *camber,
        *toe, *solid_curve, *rc_curve, *damping_floor;
    const char *curve[5][4]; /* toe, camber, rc, anti_brake, anti_drive x rule */
} axle_msgs;

#define CURVE_MSGS(axle, name)                                                                     \
    {                                                                                              \
        axle ".kinematics." name " must have 2 to 16 points",                                     \
            axle ".kinematics." name " must have finite travel and values",                       \
            axle ".kinematics." name " travel must be strictly increasing",                       \
            axle ".kinematics." name " must be 0 at travel 0 (the static field holds the "        \
                 "ride-height value)"                                                              \
    }

#define AXLE_MSGS(axle)                                                                            \
    {                                                                                              \
        axle ".kind must be PDK_AXLE_INDEPENDENT (0) or PDK_AXLE_SOLID (1)",                       \
            axle ".track_width_m must be finite and >= 0 (0: chassis.track_width_m)",              \
            axle ".spring_rate_npm must be finite and above 0",                                    \
            axle ".bump_damping_nspm and rebound_damping_nspm must be finite and >= 0",            \
            axle ".anti_roll_npm must be finite and >= 0",                                         \
            axle ".travel_bump_m and travel_droop_m must be finite and above 0",                   \
            axle ".bump_stop_npm must be finite and >= 0",                                         \
            axle ".roll_center_height_m must be finite and at most 0.9 chassis.cg_height_m",       \
            axle ".anti_brake and anti_drive must be finite and within -2..2",                     \
            axle ".static_camber_rad must be finite and within -0.35..0.35 (20 deg)",              \
            axle ".static_toe_rad must be finite and within -0.35..0.35 (20 deg)",                 \
            axle ".kinematics toe_rad and camber_rad curves are not allowed on a solid axle (the "  \
                 "beam sets the wheel angles)",                                                    \
            axle ".roll_center_height_m plus its kinematics curve must stay at most 0.9 "         \
                 "chassis.cg_height_m at every point",                                             \
            axle ".bump_damping_nspm and rebound_damping_nspm must each be at least 0.1 of "      \
                 "critical, 0.2 sqrt(spring_rate_npm * corner mass), on the four-wheel model "     \
                 "(ADR 0007)",                                                                     \
        {                                                                                          \
            CURVE_MSGS(axle, "toe_rad"), CURVE_MSGS(axle, "camber_rad"),                           \
                CURVE_MSGS(axle, "roll_center_height_m"), CURVE_MSGS(axle, "anti_brake"),          \
                CURVE_MSGS(axle, "anti_drive")                                                     \
        }                                                                                          \
    }

static const axle_msgs axle_messages[2] = {AXLE_MSGS("susp_front"), AXLE_MSGS("susp_rear")};

static pdk_error check_axle(const pdk_vehicle_def *def, int axle, const char **why)
{
    const pdk_error range = PDK_ERR_OUT_OF_RANGE;
    const pdk_suspension_def *s = axle == 0 ? &def->susp_front : &def->susp_rear;
    const axle_msgs *m = &axle_messages[axle];
    REQUIRE(s->kind == PDK_AXLE_INDEPENDENT || s->kind == PDK_AXLE_SOLID, range, m->kind);
    REQUIRE(non_negative(s->track_width_m), range, m->track);
    REQUIRE(positive(s->spring_rate_npm), range, m->spring);
    REQUIRE(non_negative(s->bump_damping_nspm) && non_negative(s->rebound_damping_nspm), range,
            m->damping);
    REQUIRE(non_negative(s->anti_roll_npm), range, m->arb);
    REQUIRE(positive(s->travel_bump_m) && positive(s->travel_droop_m), range, m->travel);
    REQUIRE(non_negative(s->bump_stop_npm), range, m->bump_stop);
    const double rc_max = PDK_MAX_ROLL_CENTER_RATIO * def->chassis.cg_height_m;
    REQUIRE(isfinite(s->roll_center_height_m) && s->roll_center_height_m <= rc_max, range, m->rc);
    REQUIRE(isfinite(s->anti_brake) && fabs(s->anti_brake) <= 2.0 && isfinite(s->anti_drive) &&
                fabs(s->anti_drive) <= 2.0,
            range, m->anti);
    REQUIRE(isfinite(s->static_camber_rad) && fabs(s->static_camber_rad) <= MAX_ALIGNMENT_RAD,
            range, m->camber);
    REQUIRE(isfinite(s->static_toe_rad) && fabs(s->static_toe_rad) <= MAX_ALIGNMENT_RAD, range,
            m->toe);
    const pdk_curve *curves[5] = {&s->kinematics.toe_rad, &s->kinematics.camber_rad,
                                  &s->kinematics.roll_center_height_m, &s->kinematics.anti_brake,
                                  &s->kinematics.anti_drive};
    for (int k = 0; k < 5; k++) {
        int rule = curve_rule(curves[k]);
        REQUIRE(rule < 0, range, m->curve[k][rule < 0 ? 0 : rule]);
    }
    REQUIRE(s->kind != PDK_AXLE_SOLID ||
                (s->kinematics.toe_rad.n_points == 0 && s->kinematics.camber_rad.n_points == 0),
            range, m->solid_curve);
    /* The curve is linear between points and held beyond them, so its
     * points bound it. */
    const pdk_curve *rc = &s->kinematics.roll_center_height_m;
    for (int i = 0; i < rc->n_points; i++) {
        REQUIRE(s->roll_center_height_m + rc->value[i] <= rc_max, range, m->rc_curve);
    }
    /* The corner's share of the mass: the axle's static load (moment
     * balance about the other axle) over two. */
    const pdk_chassis_def *c = &def->chassis;
    double a = c->cg_to_front_axle_m;
    double share = axle == 0 ? (c->wheelbase_m - a) / c->wheelbase_m : a / c->wheelbase_m;
    double critical = 2.0 * sqrt(s->spring_rate_npm * 0.5 * c->mass_kg * share);
    double least = PDK_MIN_DAMPING_RATIO * critical * (1.0 - 1e-9);
    REQUIRE(s->bump_damping_nspm >= least && s->rebound_damping_nspm >= least, range,
            m->damping_floor);
    return PDK_OK;
}

/* The most a wheel's spin inertia may be (as params' bound): a large
 * tractor wheel has some hundreds of kg m^2. */
#define MAX_SPIN_INERTIA_KGM2 1.0e4

/* A tyre module's message about one axle's tyre, its leading "tyre."
 * turned into "tyres.front." or "tyres.rear." (the field's path in the
 * presets). The tyre modules' messages are static sentences without the
 * axle; this one is composed into a buffer of the calling thread's own,
 * valid until the thread's next call of pdk_vehicle_def_problem or
 * pdk_vehicle_def_check (nothing is allocated). */
static _Thread_local char tyre_message[256];

static const char *tyre_prefixed(int axle, const char *msg)
{
    const char *prefix = axle == 0 ? "tyres.front." : "tyres.rear.";
    const char *rest = strncmp(msg, "tyre.", 5) == 0 ? msg + 5 : msg;
    size_t np = strlen(prefix);
    size_t nr = strlen(rest);
    if (nr > sizeof tyre_message - np - 1) {
        nr = sizeof tyre_message - np - 1;
    }
    memcpy(tyre_message, prefix, np);
    memcpy(tyre_message + np, rest, nr);
    tyre_message[np + nr] = '\0';
    return tyre_message;
}

/* One axle's tyre on the four-wheel model: its law (tyre.h), its life
 * (tyre_life.h), its size on soil (surface.h; the soil model takes the
 * law's radius and the life's inflation) and its wheel's spin inertia. */
static pdk_error check_tyre(const pdk_vehicle_def *def, int axle, const char **why)
{
    const pdk_axle_tyre_def *t = axle == 0 ? &def->tyre_front : &def->tyre_rear;
    const char *msg = pdk_tyre_law_def_problem(&t->law);
    if (msg == NULL) {
        msg = pdk_tyre_life_def_problem(&t->life);
    }
    if (msg == NULL) {
        pdk_soil_tyre soil = t->soil;
        soil.radius_m = t->law.radius_m;
        soil.inflation_pa = 1000.0 * t->life.cold_pressure_kpa;
        msg = pdk_soil_tyre_problem(&soil);
    }
    if (msg == NULL && !(isfinite(t->spin_inertia_kgm2) && t->spin_inertia_kgm2 > 0.0 &&
                         t->spin_inertia_kgm2 <= MAX_SPIN_INERTIA_KGM2)) {
        msg = "tyre.spin_inertia_kgm2 must be above 0 and at most 1e4 kg m^2";
    }
    if (msg != NULL) {
        *why = tyre_prefixed(axle, msg);
        return PDK_ERR_OUT_OF_RANGE;
    }
    return PDK_OK;
}

pdk_error pdk_fw_def_check(const pdk_vehicle_def *def, const char **why)
{
    const pdk_error range = PDK_ERR_OUT_OF_RANGE;
    const pdk_chassis_def *c = &def->chassis;
    REQUIRE(positive(c->roll_inertia_kgm2), range,
            "chassis.roll_inertia_kgm2 must be finite and above 0");
    REQUIRE(c->roll_inertia_kgm2 >= PDK_MIN_ROLL_INERTIA_RATIO * c->mass_kg * 0.25 *
                                         c->track_width_m * c->track_width_m * (1.0 - 1e-9),
            range,
            "chassis.roll_inertia_kgm2 must be at least 0.1 * mass_kg * (track_width_m / 2)^2 "
            "on the four-wheel model");
    REQUIRE(positive(c->pitch_inertia_kgm2), range,
            "chassis.pitch_inertia_kgm2 must be finite and above 0");
    REQUIRE(positive(c->cg_height_m), range,
            "chassis.cg_height_m must be above 0 on the four-wheel model");
    REQUIRE(positive(c->track_width_m), range, "chassis.track_width_m must be finite and above 0");
    REQUIRE(non_negative(def->tyre_front.camber_stiffness_n_per_rad), range,
            "tyre_front.camber_stiffness_n_per_rad must be finite and >= 0");
    REQUIRE(non_negative(def->tyre_rear.camber_stiffness_n_per_rad), range,
            "tyre_rear.camber_stiffness_n_per_rad must be finite and >= 0");
    const pdk_steering_def *st = &def->steering;
    REQUIRE(fraction(st->ackermann), range, "steering.ackermann must be within 0..1");
    REQUIRE(isfinite(st->center_offset_deg) && fabs(st->center_offset_deg) <= st->lock_deg, range,
            "steering.center_offset_deg must be finite and within the steering lock");
    /* Ideal Ackermann turns the inner wheel to atan(L tan d / (L - t/2 tan d));
     * at full lock it must stay below MAX_ROAD_WHEEL_DEG, which also keeps
     * the denominator positive. */
    double lock_rad = st->lock_deg / st->ratio * (3.14159265358979323846 / 180.0);
    double t = pdk_vehicle_def_track_m(def, 0);
    double len = c->wheelbase_m;
    double lock_sin, lock_cos;
    pdk_sincos(lock_rad, &lock_sin, &lock_cos);
    double tan_lock = lock_sin / lock_cos;
    double inner_tan = len * tan_lock / (len - 0.5 * t * tan_lock);
    REQUIRE(st->ackermann == 0.0 ||
                (len - 0.5 * t * tan_lock > 0.0 &&
                 pdk_atan(inner_tan) < MAX_ROAD_WHEEL_DEG * (3.14159265358979323846 / 180.0)),
            range,
            "steering.lock_deg / steering.ratio with steering.ackermann above 0 turns the inner "
            "front wheel past 80 deg at full lock (ideal Ackermann); reduce the lock");
    for (int axle = 0; axle < 2; axle++) {
        pdk_error err = check_axle(def, axle, why);
        if (err != PDK_OK) {
            return err;
        }
    }
    for (int axle = 0; axle < 2; axle++) {
        pdk_error err = check_tyre(def, axle, why);
        if (err != PDK_OK) {
            return err;
        }
    }
    return PDK_OK;
}

pdk_error pdk_vehicle_def_common_check(const pdk_vehicle_def *def, const char **why)
{
    const pdk_error range = PDK_ERR_OUT_OF_RANGE;
    *why = NULL;

    const pdk_chassis_def *c = &def->chassis;
    REQUIRE(positive(c->mass_kg), range, "chassis.mass_kg must be finite and above 0");
    REQUIRE(positive(c->yaw_inertia_kgm2), range,
            "chassis.yaw_inertia_kgm2 must be finite and above 0");
    REQUIRE(positive(c->wheelbase_m), range, "chassis.wheelbase_m must be finite and above 0");
    REQUIRE(positive(c->cg_to_front_axle_m) && c->cg_to_front_axle_m < c->wheelbase_m, range,
            "chassis.cg_to_front_axle_m must be above 0 and below chassis.wheelbase_m");
    REQUIRE(non_negative(c->cg_height_m), range, "chassis.cg_height_m must be finite and >= 0");
    REQUIRE(c->yaw_inertia_kgm2 >= pdk_vehicle_def_min_yaw_inertia_kgm2(def), range,
            "chassis.yaw_inertia_kgm2 must be at least 0.3 * mass_kg * a * b (a, b: CG to front "
            "and rear axle)");

    REQUIRE(positive(def->tyre_front.cornering_stiffness_n_per_rad), range,
            "tyre_front.cornering_stiffness_n_per_rad must be finite and above 0");
    REQUIRE(positive(def->tyre_front.friction_coeff), range,
            "tyre_front.friction_coeff must be finite and above 0");
    REQUIRE(positive(def->tyre_rear.cornering_stiffness_n_per_rad), range,
            "tyre_rear.cornering_stiffness_n_per_rad must be finite and above 0");
    REQUIRE(positive(def->tyre_rear.friction_coeff), range,
            "tyre_rear.friction_coeff must be finite and above 0");

    REQUIRE(positive(def->steering.ratio), range, "steering.ratio must be finite and above 0");
    REQUIRE(non_negative(def->steering.lock_deg), range,
            "steering.lock_deg must be finite and >= 0");
    REQUIRE(def->steering.lock_deg / def->steering.ratio < MAX_ROAD_WHEEL_DEG, range,
            "steering.lock_deg / steering.ratio (the largest road-wheel angle) must be below 80 deg");
    REQUIRE(non_negative(def->steering.trail_m) && def->steering.trail_m <= 0.3, range,
            "steering.trail_m must be within 0..0.3 m");
    REQUIRE(non_negative(def->steering.assist_gain), range,
            "steering.assist_gain must be finite and >= 0");
    REQUIRE(non_negative(def->steering.assist_max_nm), range,
            "steering.assist_max_nm must be finite and >= 0");
    REQUIRE((def->steering.assist_gain > 0.0) == (def->steering.assist_max_nm > 0.0), range,
            "steering.assist_gain and steering.assist_max_nm must be both above 0 (an assist) "
            "or both 0 (none)");

    const pdk_drive_def *d = &def->drive;
    REQUIRE(non_negative(d->max_force_n), range, "drive.max_force_n must be finite and >= 0");
    REQUIRE(positive(d->max_power_w), range, "drive.max_power_w must be finite and above 0");
    REQUIRE(fraction(d->front_fraction), range, "drive.front_fraction must be within 0..1");
    REQUIRE(positive(d->max_reverse_speed_mps), range,
            "drive.max_reverse_speed_mps must be finite and above 0");
    REQUIRE(positive(d->max_low_speed_mps), range,
            "drive.max_low_speed_mps must be finite and above 0");

    const pdk_brake_def *b = &def->brake;
    REQUIRE(non_negative(b->force_per_bar_n), range, "brake.force_per_bar_n must be finite and >= 0");
    REQUIRE(fraction(b->front_fraction), range, "brake.front_fraction must be within 0..1");
    REQUIRE(positive(b->max_line_bar), range, "brake.max_line_bar must be finite and above 0");
    REQUIRE(non_negative(b->park_hold_force_n), range,
            "brake.park_hold_force_n must be finite and >= 0");

    REQUIRE(non_negative(def->resist.rolling_coeff), range,
            "resist.rolling_coeff must be finite and >= 0");
    REQUIRE(non_negative(def->resist.drag_area_m2), range,
            "resist.drag_area_m2 must be finite and >= 0");
    REQUIRE(non_negative(def->chassis.angular_damping_per_s) &&
                def->chassis.angular_damping_per_s <= 10.0,
            range, "chassis.angular_damping_per_s must be within 0..10");
    {
        /* The body's dimensions (vehicle/hull.h): 0 derived; else at
         * least what the wheels and the CG take. */
        const pdk_chassis_def *body = &def->chassis;
        REQUIRE(body->body_length_m == 0.0 ||
                    (body->body_length_m >= body->wheelbase_m && body->body_length_m <= 30.0),
                range, "chassis.body_length_m must be 0 (derived) or within wheelbase_m..30");
        REQUIRE(body->body_width_m == 0.0 ||
                    (body->body_width_m >= body->track_width_m && body->body_width_m <= 6.0),
                range, "chassis.body_width_m must be 0 (derived) or within track_width_m..6");
        REQUIRE(body->body_height_m == 0.0 ||
                    (body->body_height_m > body->cg_height_m && body->body_height_m <= 10.0),
                range,
                "chassis.body_height_m must be 0 (derived) or above cg_height_m and at most 10");
    }
    REQUIRE(non_negative(def->contact.friction) && def->contact.friction <= PDK_PROXY_MAX_FRICTION,
            range, "contact.friction must be within 0..2");
    REQUIRE(non_negative(def->contact.restitution) && def->contact.restitution <= 1.0, range,
            "contact.restitution must be within 0..1");
    REQUIRE(non_negative(def->resist.downforce_area_m2), range,
            "resist.downforce_area_m2 must be finite and >= 0");
    REQUIRE(fraction(def->resist.downforce_front), range,
            "resist.downforce_front must be within 0..1");
    if (def->powertrain.kind != PDK_POWERTRAIN_LUMPED) {
        const char *pt = pdk_powertrain_def_problem(&def->powertrain);
        if (pt != NULL) {
            *why = pt;
            return PDK_ERR_OUT_OF_RANGE;
        }
    }
    const char *dbw = pdk_dbw_def_problem(&def->dbw);
    if (dbw != NULL) {
        *why = dbw;
        return PDK_ERR_OUT_OF_RANGE;
    }
    return PDK_OK;
}

pdk_error pdk_st_def_check(const pdk_vehicle_def *def, const char **why)
{
    *why = NULL;
    REQUIRE(def->powertrain.kind == PDK_POWERTRAIN_LUMPED, PDK_ERR_INVALID_ARGUMENT,
            "powertrain.kind other than lumped needs the fourWheel model");
    return PDK_OK;
}

/* The Polaris model (docs/powertrain.md): the brake gains (22 and 12 N m per
 * bar at each front and rear wheel, no bias), the tank (43.5 L of petrol, 43.4
 * MJ/kg at 0.745 kg/L), AWD as the switch's default, and the engine, CVT and
 * lever of engine.c, cvt.c and utv_gear.c. */
pdk_powertrain_def pdk_powertrain_def_polaris(void)
{
    pdk_powertrain_def pt = {
        .kind = PDK_POWERTRAIN_UTV,
        .engine = pdk_engine_def_prostar999(),
        .cvt = pdk_cvt_def_polaris(),
        .gearbox = pdk_utv_gearbox_def_polaris(),
        .drive_mode = PDK_DRIVE_AWD,
        .brake_front_nm_per_bar = 22.0,
        .brake_rear_nm_per_bar = 12.0,
        .brake_bias_bar = 0.0,
        .fuel_tank_l = 43.5,
        .fuel_heating_value_jpkg = 43.4e6,
        .fuel_density_kgpl = 0.745,
    };
    return pt;
}

/* Why a geared powertrain's gearbox and layout cannot run, naming the
 * field, or NULL. */
static const char *geared_problem(const pdk_powertrain_def *def)
{
    const pdk_gearbox_def *g = &def->geared;
    if (g->shift != PDK_SHIFT_AUTOMATIC && g->shift != PDK_SHIFT_SEQUENTIAL &&
        g->shift != PDK_SHIFT_MANUAL) {
        return "transmission.shift must be automatic, sequential or manual";
    }
    if (g->n_gears < 1 || g->n_gears > PDK_GEARS_MAX) {
        return "transmission.ratios must have 1 to 8 forward gears";
    }
    for (int i = 0; i < g->n_gears; i++) {
        if (!positive(g->ratio[i]) || (i > 0 && !(g->ratio[i] < g->ratio[i - 1]))) {
            return "transmission.ratios must be finite, above 0 and falling from first to top";
        }
    }
    if (!positive(g->reverse_ratio) || !positive(g->final_drive)) {
        return "transmission.reverseRatio and transmission.finalDrive must be finite and above 0";
    }
    if (!(isfinite(g->low_range) && g->low_range >= 1.0)) {
        return "transmission.lowRange must be finite and at least 1";
    }
    if (!(isfinite(g->efficiency) && g->efficiency >= 0.05 && g->efficiency <= 1.0)) {
        return "transmission.efficiency must be within 0.05..1";
    }
    const double idle = def->engine.idle_rpm, top = def->engine.max_rpm;
    if (!(g->upshift_rpm_light > idle && g->upshift_rpm_light <= g->upshift_rpm_full &&
          g->upshift_rpm_full <= top)) {
        return "transmission.upshiftRpmLight and upshiftRpmFull must rise from above "
               "engine.idleRpm to at most engine.maxRpm";
    }
    /* After an upshift at the light-load speed the engine turns slower by
     * the gears' step; it must stay above the downshift speed, or the box
     * would hunt between the two gears. */
    for (int i = 0; i + 1 < g->n_gears; i++) {
        if (!(g->downshift_rpm < g->upshift_rpm_light * g->ratio[i + 1] / g->ratio[i])) {
            return "transmission.downshiftRpm must be below transmission.upshiftRpmLight times "
                   "each gear's step (ratio[i+1] / ratio[i]), or the box hunts";
        }
    }
    if (!(isfinite(g->downshift_rpm) && g->downshift_rpm > 0.0)) {
        return "transmission.downshiftRpm must be finite and above 0";
    }
    if (!non_negative(g->shift_time_s) || g->shift_time_s > 2.0) {
        return "transmission.shiftTime must be within 0..2 s";
    }
    if (!positive(g->clutch_capacity_nm)) {
        return "clutch.capacity must be finite and above 0";
    }
    if (!(g->clutch_engage_rpm > idle && g->clutch_full_rpm > g->clutch_engage_rpm &&
          isfinite(g->clutch_full_rpm))) {
        return "clutch.engageRpm must be above engine.idleRpm and clutch.fullRpm above it";
    }
    if (!non_negative(g->park_hold_nm)) {
        return "transmission.parkHold must be finite and >= 0";
    }
    if (!non_negative(g->handbrake_nm)) {
        return "brakes.handbrake must be finite and >= 0";
    }
    if (!(g->converter_stall_ratio == 0.0 ||
          (isfinite(g->converter_stall_ratio) && g->converter_stall_ratio >= 1.0 &&
           g->converter_stall_ratio <= 4.0))) {
        return "clutch.converterStallRatio must be 0 (a plain clutch) or within 1..4";
    }
    if (g->converter_stall_ratio > 1.0 &&
        !(isfinite(g->converter_coupling) && g->converter_coupling > 0.0 &&
          g->converter_coupling <= 1.0)) {
        return "clutch.converterCoupling must be within 0..1 (above 0) with a converter";
    }
    if (!non_negative(def->output_inertia_kgm2)) {
        return "transmission.outputInertia must be finite and >= 0";
    }
    const pdk_layout_def *l = &def->layout;
    if (l->driven_axle != 0 && l->driven_axle != 1) {
        return "driveline.drivenAxle must be front or rear";
    }
    if (l->coupling != PDK_COUPLING_NONE && l->coupling != PDK_COUPLING_LOCKED &&
        l->coupling != PDK_COUPLING_CENTRE) {
        return "driveline.coupling must be none, locked or centre";
    }
    const pdk_dl_diff *diffs[3] = {&l->diff, &l->secondary_diff, &l->centre_diff};
    static const char *const kind_msg[3] = {"driveline.diff must be open, locked or lsd",
                                            "driveline.secondaryDiff must be open, locked or lsd",
                                            "driveline.centreDiff must be open, locked or lsd"};
    static const char *const lsd_msg[3] = {
        "driveline.biasRatio must be at least 1 and driveline.preload >= 0",
        "driveline.secondaryBiasRatio must be at least 1 and driveline.secondaryPreload >= 0",
        "driveline.centreBiasRatio must be at least 1 and driveline.centrePreload >= 0"};
    for (int k = 0; k < 3; k++) {
        const pdk_dl_diff *d = diffs[k];
        if ((k == 1 && l->coupling == PDK_COUPLING_NONE) ||
            (k == 2 && l->coupling != PDK_COUPLING_CENTRE)) {
            continue;
        }
        if (d->kind != PDK_DIFF_OPEN && d->kind != PDK_DIFF_LOCKED && d->kind != PDK_DIFF_LSD) {
            return kind_msg[k];
        }
        if (d->kind == PDK_DIFF_LSD &&
            !(isfinite(d->bias_ratio) && d->bias_ratio >= 1.0 && non_negative(d->preload_nm))) {
            return lsd_msg[k];
        }
    }
    if (l->coupling != PDK_COUPLING_NONE && !positive(l->secondary_ratio)) {
        return "driveline.secondaryRatio must be finite and above 0";
    }
    return NULL;
}

const char *pdk_powertrain_def_problem(const pdk_powertrain_def *def)
{
    if (def->kind != PDK_POWERTRAIN_LUMPED && def->kind != PDK_POWERTRAIN_UTV &&
        def->kind != PDK_POWERTRAIN_GEARED) {
        return "powertrain.kind must be lumped, utv or geared";
    }
    if (def->kind == PDK_POWERTRAIN_LUMPED) {
        return NULL;
    }
    const char *why = pdk_engine_def_problem(&def->engine);
    if (why == NULL && def->kind == PDK_POWERTRAIN_GEARED) {
        why = geared_problem(def);
    }
    if (why == NULL && def->kind == PDK_POWERTRAIN_UTV) {
        why = pdk_cvt_def_problem(&def->cvt);
        if (why == NULL) {
            why = pdk_utv_gearbox_def_problem(&def->gearbox);
        }
    }
    if (why != NULL) {
        return why;
    }
    if (def->kind == PDK_POWERTRAIN_UTV && def->drive_mode != PDK_DRIVE_TURF &&
        def->drive_mode != PDK_DRIVE_2WD && def->drive_mode != PDK_DRIVE_AWD) {
        return "powertrain.drive_mode must be turf, 2wd or awd";
    }
    if (!non_negative(def->brake_front_nm_per_bar) || !non_negative(def->brake_rear_nm_per_bar)) {
        return "brakes.front_nm_per_bar and brakes.rear_nm_per_bar must be finite and >= 0";
    }
    if (!isfinite(def->brake_bias_bar)) {
        return "brakes.bias_bar must be finite";
    }
    if (!non_negative(def->fuel_tank_l)) {
        return "fuel.tank_l must be finite and >= 0";
    }
    if (!positive(def->fuel_heating_value_jpkg) || !positive(def->fuel_density_kgpl)) {
        return "fuel.lhv_mj_kg and fuel.density_kg_l must be finite and above 0";
    }
    return NULL;
}

