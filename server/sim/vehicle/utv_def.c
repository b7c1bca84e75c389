/* The Polaris Ranger CREW XP 1000's definition: utv_def.h. The numbers are the
 * Polaris model's (docs/powertrain.md); its wheelbase, tracks and tyre sizes
 * are the owner's manual's specifications (Polaris, RANGER CREW XP 1000
 * Owner's Manual, 2022). */
#include "sim/utv_def.h"

#include <math.h>
#include <string.h>

#include "tyre/tyre.h"
#include "tyre/tyre_life.h"
#include "vehicle/utv_corner.h"

#define PI 3.14159265358979323846

/* The Polaris model (docs/powertrain.md): wheelbase 2.8702 m, both tracks 1.31
 * m. */
#define WHEELBASE_M 2.8702
#define TRACK_M 1.31

/* The Polaris model (docs/tyres.md): 27 x 9-14 front and 27 x 11-14 rear. The
 * nominal load and the cornering stiffness follow from the static load
 * (pdk_utv_def_complete). */
static pdk_axle_tyre_def utv_tyre(double width_m, double inflation_kpa)
{
    pdk_axle_tyre_def t;
    memset(&t, 0, sizeof t);
    t.law = pdk_tyre_law_def_default();
    t.law.law = PDK_TYRE_UTV;
    t.law.radius_m = 0.3429;
    t.law.hard_slip_stiffness = 12.0;
    /* The Polaris model's hard-surface tyre has no load sensitivity, no camber
     * effect and no aligning torque ("Limitations"). */
    t.law.load_sensitivity = 0.0;
    t.law.combined_slip_loss = 0.0;
    t.law.trail_m = 0.0;
    t.law.relaxation_lat_m = 0.3;
    /* The Polaris model gives no longitudinal relaxation length; its slip is
     * instantaneous. A tenth of the lateral one makes the force build up
     * within 3 cm of travel. */
    t.law.relaxation_long_m = 0.03;
    t.friction_coeff = 1.0;
    t.camber_stiffness_n_per_rad = 0.0;
    t.life = pdk_tyre_life_def_default(t.law.radius_m, inflation_kpa);
    t.soil.radius_m = t.law.radius_m;
    t.soil.width_m = width_m;
    t.soil.section_height_m = 0.1651;
    t.soil.inflation_pa = 1000.0 * inflation_kpa;
    t.soil.carcass_pa = 15000.0;
    t.soil.lug_height_m = 0.012;
    t.soil.lug_area_ratio = 0.35;
    t.soil.tread_k_m = 0.008;
    t.soil.hysteresis = 0.12;
    t.spin_inertia_kgm2 = 1.0;
    return t;
}

/* The Polaris model's table of suspension.* parameters. */
pdk_utv_suspension_def pdk_utv_suspension_def_polaris(void)
{
    pdk_utv_suspension_def s = {
        .front_wheel_rate_npm = 20000.0,
        .rear_wheel_rate_npm = 28000.0,
        .damping_ratio = 0.35,
        .travel_m = 0.2794,
        .droop_m = 0.1,
        .bump_stop_length_m = 0.03,
        .bump_stop_rate_npm2 = 2.0e6,
    };
    return s;
}

/* The Polaris model (docs/powertrain.md): the corner rate is the tyre's
 * membrane in series with the wheel rate, damped at the damping ratio of
 * critical on the corner's static mass; the droop of the travel below the
 * static position, the bump stop's length at its top end. */
static void utv_corner(pdk_suspension_def *s, double wheel_rate_npm, const pdk_axle_tyre_def *tyre,
                       double corner_load_n, const pdk_utv_suspension_def *susp,
                       double gravity_mps2)
{
    double k_tyre = pdk_utv_tyre_rate(tyre->soil.inflation_pa, tyre->soil.carcass_pa,
                                      tyre->law.radius_m, tyre->soil.width_m);
    double k = pdk_utv_corner_rate(k_tyre, wheel_rate_npm);
    double c = pdk_utv_corner_damping(k, corner_load_n, susp->damping_ratio, gravity_mps2);
    s->spring_rate_npm = k;
    s->bump_damping_nspm = c;
    s->rebound_damping_nspm = c;
    s->travel_droop_m = susp->droop_m;
    s->travel_bump_m = susp->travel_m - susp->droop_m - susp->bump_stop_length_m;
    /* The Polaris model's stop is quadratic, k_b (x - x_b)^2; the four-wheel
     * model's is linear: the rate that gives the same force at the end of the
     * stop's length. */
    s->bump_stop_npm = susp->bump_stop_rate_npm2 * susp->bump_stop_length_m;
}

/* An axle with no anti-roll bar and no geometry change with travel
 * ("Limitations"); the wheel forces act at the contacts, a roll centre on
 * the ground. Its spring, damper and travel are pdk_utv_def_complete's. */
static pdk_suspension_def utv_axle(void)
{
    pdk_suspension_def s;
    memset(&s, 0, sizeof s);
    s.kind = PDK_AXLE_INDEPENDENT;
    return s;
}

void pdk_utv_def_complete(pdk_vehicle_def *def, const pdk_utv_mass_def *mass,
                          const pdk_utv_suspension_def *susp, const double cornering_per_load[2],
                          double gravity_mps2)
{
    const double wheelbase_m = def->chassis.wheelbase_m;
    pdk_utv_mass m;
    pdk_utv_mass_of(mass, wheelbase_m, pdk_vehicle_def_track_m(def, 0),
                    pdk_vehicle_def_track_m(def, 1), gravity_mps2, &m);
    /* The four-wheel model's chassis has its centre of mass on the centre
     * line: the Polaris model's 14 mm to the left (its loads' split) is left
     * out. */
    def->chassis.mass_kg = m.mass_kg;
    def->chassis.roll_inertia_kgm2 = m.inertia_kgm2[0];
    def->chassis.pitch_inertia_kgm2 = m.inertia_kgm2[1];
    def->chassis.yaw_inertia_kgm2 = m.inertia_kgm2[2];
    def->chassis.cg_to_front_axle_m = wheelbase_m - m.cg_m[0];
    def->chassis.cg_height_m = m.cg_m[2];
    const double front_n = 0.5 * m.axle_load_n[0], rear_n = 0.5 * m.axle_load_n[1];
    /* The nominal load is the static load: the Polaris model's tyre has no
     * load sensitivity. C_alpha / N per tyre: the axle's stiffness at its
     * static load, which spawn turns back into the law's cornering_per_load
     * (pdk_fw_law_of). */
    def->tyre_front.law.nominal_load_n = front_n;
    def->tyre_front.cornering_stiffness_n_per_rad = cornering_per_load[0] * 2.0 * front_n;
    def->tyre_rear.law.nominal_load_n = rear_n;
    def->tyre_rear.cornering_stiffness_n_per_rad = cornering_per_load[1] * 2.0 * rear_n;
    utv_corner(&def->susp_front, susp->front_wheel_rate_npm, &def->tyre_front, front_n, susp,
               gravity_mps2);
    utv_corner(&def->susp_rear, susp->rear_wheel_rate_npm, &def->tyre_rear, rear_n, susp,
               gravity_mps2);
    /* The lumped drive's pawl is not the UTV's (gearbox.park_hold_nm). */
    def->brake.park_hold_force_n = 0.0;
}

pdk_vehicle_def pdk_vehicle_def_polaris(const pdk_utv_mass_def *mass, double gravity_mps2)
{
    pdk_vehicle_def def = pdk_vehicle_def_default();
    def.model = PDK_MODEL_FOUR_WHEEL;
    def.chassis.wheelbase_m = WHEELBASE_M;
    def.chassis.track_width_m = TRACK_M;
    def.tyre_front = utv_tyre(0.2286, 124.0);
    def.tyre_rear = utv_tyre(0.2794, 138.0);
    def.susp_front = utv_axle();
    def.susp_rear = utv_axle();
    /* The Polaris model (docs/powertrain.md): the fitted ratio and centre,
     * ideal Ackermann, the servo's +-487 deg. */
    def.steering.ratio = 11.9764;
    def.steering.center_offset_deg = 12.5314;
    def.steering.lock_deg = 487.0;
    def.dbw = pdk_dbw_def_polaris();
    def.steering.ackermann = 1.0;
    /* The feel only (docs/presets.md, polaris_ranger): estimates, as the
     * preset's, of a light truck's caster trail and an electric assist. */
    def.steering.trail_m = 0.03;
    def.steering.assist_gain = 3.0;
    def.steering.assist_max_nm = 25.0;
    /* The Polaris model (docs/powertrain.md): 80 bar full scale, C_d A 2.5
     * m^2; the powertrain's brakes are torques (force_per_bar_n is not
     * read). */
    def.brake.max_line_bar = 80.0;
    def.resist.drag_area_m2 = 2.5;
    /* The Polaris model (docs/powertrain.md): the chassis' angular damping,
     * omega <- omega max(0, 1 - 0.08 dt), its game engine's body damping. */
    def.chassis.angular_damping_per_s = 0.08;
    def.powertrain = pdk_powertrain_def_polaris();
    /* The Polaris model (docs/tyres.md): tyres.cornering_per_load, 8 /rad on
     * both axles. */
    const pdk_utv_suspension_def susp = pdk_utv_suspension_def_polaris();
    const double cornering_per_load[2] = {8.0, 8.0};
    pdk_utv_def_complete(&def, mass, &susp, cornering_per_load, gravity_mps2);
    return def;
}
