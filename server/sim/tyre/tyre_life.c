/* Tyre life (tyre_life.h): the tyre's heat, pressure, wear and condition,
 * stepped once per tick per wheel, and what they do to its grip, radius and
 * rolling drag; the inputs that change them (tyre_life.h gives the model and
 * its sources). */
#include "tyre/tyre_life.h"

#include <math.h>
#include <stddef.h>

#include "math/vmath.h"
#include "sim/error.h"

#define ATM_KPA 101.325
#define KELVIN 273.15

/* The default's sizes are for a road car tyre of this radius (205/60R15, 0.31
 * m); other radii scale masses, areas and the tread's area with the square of
 * the radius (a kart tyre of 0.14 m gets 3 kJ/K of carcass, in the 2-4 kJ/K a
 * kart tyre's rubber mass gives). */
#define REF_RADIUS_M 0.31

/* Wear is three times faster above 120 C: the tread degrades thermally. */
#define HOT_WEAR_TEMP_C 120.0
#define HOT_WEAR_FACTOR 3.0

/* A puncture leaks until a quarter of the air is left; then the tyre is
 * flat. */
#define FLAT_AIR_SHARE 0.25

/* Condition grips (flat: half the grip; rim 0.3; detached: the hub on the
 * road, about 0.2, steel sliding on asphalt). */
#define FLAT_GRIP 0.5
#define RIM_GRIP 0.3
#define DETACHED_GRIP 0.2

/* Rolling-drag scales (six times the drag flat, est.). A rim gouging the road
 * with tyre remains drags about ten times a tyre (est.); a hub does not roll,
 * it slides: 18 times a road tyre's f of 0.011 makes the drag 0.2 Fz, its
 * sliding friction. */
#define FLAT_ROLLING_SCALE 6.0
#define RIM_ROLLING_SCALE 10.0
#define DETACHED_ROLLING_SCALE 18.0

/* The Engineering Toolbox, "Rolling Resistance": a car tyre's rolling
 * coefficient at low speed is f = 0.005 + 0.01 / p with p in bar. */
#define RR_BASE 0.005
#define RR_PER_INV_BAR 0.01
#define RR_MIN_BAR 0.01

pdk_tyre_life_def pdk_tyre_life_def_default(double radius_m, double cold_pressure_kpa)
{
    double s = radius_m / REF_RADIUS_M;
    s = s * s;
    pdk_tyre_life_def d = {0};
    d.cold_pressure_kpa = cold_pressure_kpa;
    d.cold_temp_c = 20.0;
    /* The window is 55 C either side of the optimum. An optimum of 80 C is a
     * performance tyre's; a road tyre works best at 40-70 C (est.): 60 C. A
     * road tyre loses 5-10 % of its grip cold or hot (est.): 5 % at the
     * window's edge, so 2.6 % at 20 C; cooked, no less than 60 % (est.).
     * Presets for slicks and karts set their own (slick 80-100 C, kart 40-60
     * C). */
    d.optimal_temp_c = 60.0;
    d.window_c = 55.0;
    d.window_loss = 0.05;
    d.min_temp_grip = 0.6;
    /* Grip is best a little above the cold setting: at the pressure the cold
     * setting reaches at the optimal temperature (a hot pressure target, as
     * tyres are set up), falling 0.5 % per 10 % away from it (est.): a new
     * tyre at 20 C is 2.2 bar against 2.64 at 60 C, 0.8 % down; with the
     * window, 3.4 % below its best. */
    d.best_pressure_ratio =
        ((cold_pressure_kpa + ATM_KPA) * (d.optimal_temp_c + KELVIN) / (d.cold_temp_c + KELVIN) -
         ATM_KPA) /
        cold_pressure_kpa;
    d.pressure_grip_slope = 0.05;
    /* Sizes for a car tyre (est., from rubber's heat capacity of about 2
     * kJ/kgK): a surface layer of about 1.3 mm over the 0.39 m^2 tread (0.5 kg
     * of rubber at 2 kJ/kgK), an 8-10 kg carcass, 0.1 kg of air at 718
     * J/kgK. */
    d.surface_heat_capacity_jpk = 1000.0 * s;
    d.carcass_heat_capacity_jpk = 15000.0 * s;
    d.gas_heat_capacity_jpk = 70.0 * s;
    /* a_f 0.5-0.9 (est.): 0.7. */
    d.slide_heat_share = 0.7;
    /* Conductances (est.): tread rubber, 0.25 W/mK over 4 mm across the 0.39
     * m^2 tread, 25 W/K; the inner liner to the air, about 15 W/m^2K over 0.5
     * m^2, 8 W/K (the gas follows the carcass in about 9 s); the patch on the
     * road, a contact conductance of about 3 kW/m^2K over 0.03 m^2, 90 W/K;
     * the air, h = 15 + 5 v^0.8 W/m^2K over 0.39 m^2 each for the tread and
     * the sidewalls. At 30 m/s the carcass then has about 55 W/K to its
     * surroundings: 1.4 kW of flexing warms it by 25 K with a time constant of
     * about 4.5 minutes (a rough estimate of a car tyre's gives 40 W/K and 6
     * min). A burnout (80 kW of sliding, 56 kW into the tread) takes the
     * surface past 150 C in under 3 s. */
    d.surface_carcass_wpk = 25.0 * s;
    d.carcass_gas_wpk = 8.0 * s;
    d.road_wpk = 90.0 * s;
    d.air_wpk = 6.0 * s;
    d.air_wpk_per_mps = 2.0 * s;
    /* Flexing heat P_hyst = f_rr Fz |Vx| with a car tyre's f_rr of 0.012 (1.4
     * kW at 4 kN, 30 m/s). */
    d.hysteresis_coeff = 0.012;
    d.heat_scale = 1.0;
    /* Wear (Archard / Schallamach, calibrated to a road tyre's life of about 1
     * mm per 8-12 thousand km): normal driving is taken as 0.12 g rms each way
     * on a 3.5 kN corner with the grip law's default stiffnesses (Ck 18 Fz, Ca
     * 12 Fz), so the sliding work per metre is F^2 / Ck + F^2 / Ca = 420^2 /
     * 63000 + 420^2 / 42000 = 7.0 J/m, and 1 mm per 10 000 km is 1e-3 / 7e7 =
     * 1.4e-11 m/J: 8 mm of tread reach 1.6 mm after about 65 000 km. */
    d.tread_depth_m = 0.008;
    d.wear_m_per_j = 1.4e-11 / s;
    d.wear_scale = 1.0;
    /* Speed Dreams' wear grip falls to 0.85 at 3 % of the tread (Speed Dreams'
     * simuv4 wheel.cpp); here linearly from 1 new to 0.85 at zero. */
    d.worn_grip = 0.85;
    /* A nail: flat in 75 s (est.). */
    d.leak_per_s = 0.01;
    /* A 205/60R15 (rim radius 0.19 m = 0.62 R) sits on its folded
     * sidewalls and rim flange about 4-5 cm up when flat, 0.25 R lower;
     * with the wheel off, a car rests on its hub and disc, about 0.45 R up
     * (est.). */
    d.flat_drop_m = 0.25 * radius_m;
    d.rim_radius_m = 0.62 * radius_m;
    d.hub_radius_m = 0.45 * radius_m;
    d.flat_to_rim_m = 1500.0;
    return d;
}

static int bad_range(double v, double lo, double hi)
{
    return !isfinite(v) || v < lo || v > hi;
}

static int bad_positive(double v, double hi)
{
    return !isfinite(v) || !(v > 0.0) || v > hi;
}

const char *pdk_tyre_life_def_problem(const pdk_tyre_life_def *d)
{
    if (d == NULL) {
        return "tyre.life is NULL";
    }
    if (bad_positive(d->cold_pressure_kpa, 10000.0)) {
        return "tyre.life.cold_pressure_kpa must be above 0 and at most 10000";
    }
    if (bad_range(d->cold_temp_c, -60.0, 100.0)) {
        return "tyre.life.cold_temp_c must be within -60..100";
    }
    if (bad_range(d->optimal_temp_c, -60.0, 300.0)) {
        return "tyre.life.optimal_temp_c must be within -60..300";
    }
    if (bad_positive(d->window_c, 1000.0)) {
        return "tyre.life.window_c must be above 0 and at most 1000";
    }
    if (bad_range(d->window_loss, 0.0, 1.0)) {
        return "tyre.life.window_loss must be within 0..1";
    }
    if (bad_range(d->min_temp_grip, 0.0, 1.0)) {
        return "tyre.life.min_temp_grip must be within 0..1";
    }
    if (bad_positive(d->best_pressure_ratio, 10.0)) {
        return "tyre.life.best_pressure_ratio must be above 0 and at most 10";
    }
    if (bad_range(d->pressure_grip_slope, 0.0, 10.0)) {
        return "tyre.life.pressure_grip_slope must be within 0..10";
    }
    if (bad_positive(d->surface_heat_capacity_jpk, 1.0e7)) {
        return "tyre.life.surface_heat_capacity_jpk must be above 0 and at most 1e7";
    }
    if (bad_positive(d->carcass_heat_capacity_jpk, 1.0e7)) {
        return "tyre.life.carcass_heat_capacity_jpk must be above 0 and at most 1e7";
    }
    if (bad_positive(d->gas_heat_capacity_jpk, 1.0e7)) {
        return "tyre.life.gas_heat_capacity_jpk must be above 0 and at most 1e7";
    }
    if (bad_range(d->slide_heat_share, 0.0, 1.0)) {
        return "tyre.life.slide_heat_share must be within 0..1";
    }
    if (bad_range(d->surface_carcass_wpk, 0.0, 1.0e6)) {
        return "tyre.life.surface_carcass_wpk must be within 0..1e6";
    }
    if (bad_range(d->carcass_gas_wpk, 0.0, 1.0e6)) {
        return "tyre.life.carcass_gas_wpk must be within 0..1e6";
    }
    if (bad_range(d->road_wpk, 0.0, 1.0e6)) {
        return "tyre.life.road_wpk must be within 0..1e6";
    }
    if (bad_range(d->air_wpk, 0.0, 1.0e6)) {
        return "tyre.life.air_wpk must be within 0..1e6";
    }
    if (bad_range(d->air_wpk_per_mps, 0.0, 1.0e6)) {
        return "tyre.life.air_wpk_per_mps must be within 0..1e6";
    }
    if (bad_range(d->hysteresis_coeff, 0.0, 1.0)) {
        return "tyre.life.hysteresis_coeff must be within 0..1";
    }
    if (bad_range(d->heat_scale, 0.0, 100.0)) {
        return "tyre.life.heat_scale must be within 0..100";
    }
    if (bad_positive(d->tread_depth_m, 0.1)) {
        return "tyre.life.tread_depth_m must be above 0 and at most 0.1 m";
    }
    if (bad_range(d->wear_m_per_j, 0.0, 1.0e-3)) {
        return "tyre.life.wear_m_per_j must be within 0..1e-3";
    }
    if (bad_range(d->wear_scale, 0.0, 1.0e6)) {
        return "tyre.life.wear_scale must be within 0..1e6";
    }
    if (bad_range(d->worn_grip, 0.0, 1.0)) {
        return "tyre.life.worn_grip must be within 0..1";
    }
    if (bad_range(d->leak_per_s, 0.0, 1.0)) {
        return "tyre.life.leak_per_s must be within 0..1";
    }
    if (bad_range(d->flat_drop_m, 0.0, 5.0)) {
        return "tyre.life.flat_drop_m must be within 0..5 m";
    }
    if (bad_positive(d->rim_radius_m, 5.0)) {
        return "tyre.life.rim_radius_m must be above 0 and at most 5 m";
    }
    if (bad_positive(d->hub_radius_m, 5.0) || d->hub_radius_m > d->rim_radius_m) {
        return "tyre.life.hub_radius_m must be above 0 and at most rim_radius_m";
    }
    if (bad_range(d->flat_to_rim_m, 0.0, 1.0e7)) {
        return "tyre.life.flat_to_rim_m must be within 0..1e7 m";
    }
    return NULL;
}

void pdk_tyre_life_init(pdk_tyre_life *life, const pdk_tyre_life_def *def, double ambient_c)
{
    *life = (pdk_tyre_life){0};
    life->surface_temp_c = ambient_c;
    life->carcass_temp_c = ambient_c;
    life->gas_temp_c = ambient_c;
    life->air_share = 1.0;
    life->tread_m = def->tread_depth_m;
    life->grip_scale = 1.0;
    life->condition = PDK_TYRE_INTACT;
}

/* Gauge pressure: the gas law at constant volume for the full charge,
 * p_abs = (p_cold + p_atm) T_gas / T_cold, times the air left. */
static double gauge_kpa(const pdk_tyre_life *life, const pdk_tyre_life_def *def)
{
    if (life->condition == PDK_TYRE_RIM || life->condition == PDK_TYRE_DETACHED) {
        return 0.0;
    }
    double full = (def->cold_pressure_kpa + ATM_KPA) * (life->gas_temp_c + KELVIN) /
                      (def->cold_temp_c + KELVIN) -
                  ATM_KPA;
    double p = full * life->air_share;
    return p > 0.0 ? p : 0.0;
}

static double rr_coeff(double p_kpa)
{
    double bar = p_kpa / 100.0;
    if (bar < RR_MIN_BAR) {
        bar = RR_MIN_BAR;
    }
    return RR_BASE + RR_PER_INV_BAR / bar;
}

static double rolling_scale(const pdk_tyre_life *life, const pdk_tyre_life_def *def)
{
    switch (life->condition) {
    case PDK_TYRE_FLAT:
        return FLAT_ROLLING_SCALE;
    case PDK_TYRE_RIM:
        return RIM_ROLLING_SCALE;
    case PDK_TYRE_DETACHED:
        return DETACHED_ROLLING_SCALE;
    default:
        break;
    }
    double scale = rr_coeff(gauge_kpa(life, def)) / rr_coeff(def->cold_pressure_kpa);
    return scale < FLAT_ROLLING_SCALE ? scale : FLAT_ROLLING_SCALE;
}

/* The rolling speed that drives the convection to the air, >= 0. */
static double air_speed(const pdk_tyre_work *w)
{
    return w->roll_speed_mps > 0.0 ? w->roll_speed_mps : 0.0;
}

/* The three nodes' balances (a two-layer tyre plus its gas):
 *   C_s dTs/dt = a_f P_slide + G_road chi (T_road - Ts) + hA(v) (T_air - Ts)
 *                + G_sc (Tc - Ts)
 *   C_c dTc/dt = P_hyst + G_sc (Ts - Tc) + G_cg (Tg - Tc) + hA(v) (T_air - Tc)
 *   C_g dTg/dt = G_cg (Tc - Tg)
 * advanced by one backward Euler step of the whole system. Its matrix is
 * tridiagonal (s - c - g), symmetric and strictly diagonally dominant with
 * positive diagonal and non-positive off-diagonals (an M-matrix), so the
 * step is stable for any dt, never overshoots (each new temperature is a
 * weighted mean of the old ones, the air, the road and the heat inputs'
 * equilibrium) and tends to the steady state as dt grows. */
static void heat_step(pdk_tyre_life *life, const pdk_tyre_life_def *def, const pdk_tyre_work *w,
                      double v_pow, double p_surface_w, double p_carcass_w, double dt)
{
    /* hA(v) = air_wpk + air_wpk_per_mps v^0.8, v_pow = air_speed(w)^0.8 */
    double g_air = def->air_wpk + def->air_wpk_per_mps * v_pow;
    double chi = w->contact < 0.0 ? 0.0 : (w->contact > 1.0 ? 1.0 : w->contact);
    double g_road = def->road_wpk * chi;
    double g_sc = def->surface_carcass_wpk;
    double g_cg = def->carcass_gas_wpk;
    double cs = def->surface_heat_capacity_jpk / dt;
    double cc = def->carcass_heat_capacity_jpk / dt;
    double cg = def->gas_heat_capacity_jpk / dt;

    double a_s = cs + g_road + g_air + g_sc;
    double a_c = cc + g_sc + g_cg + g_air;
    double a_g = cg + g_cg;
    double r_s =
        cs * life->surface_temp_c + p_surface_w + g_road * w->road_temp_c + g_air * w->air_temp_c;
    double r_c = cc * life->carcass_temp_c + p_carcass_w + g_air * w->air_temp_c;
    double r_g = cg * life->gas_temp_c;

    /* Eliminate the gas, then the carcass. */
    double a_c2 = a_c - g_cg * g_cg / a_g;
    double r_c2 = r_c + g_cg * r_g / a_g;
    double ts = (r_s + g_sc * r_c2 / a_c2) / (a_s - g_sc * g_sc / a_c2);
    double tc = (r_c2 + g_sc * ts) / a_c2;
    double tg = (r_g + g_cg * tc) / a_g;
    life->surface_temp_c = ts;
    life->carcass_temp_c = tc;
    life->gas_temp_c = tg;
}

static void go_flat(pdk_tyre_life *life)
{
    life->condition = PDK_TYRE_FLAT;
    life->flat_run_m = 0.0;
}

/* pdk_tyre_life_step with the convection's power of the speed given:
 * v_pow = air_speed(work)^0.8. */
static void life_step(pdk_tyre_life *life, const pdk_tyre_life_def *def, const pdk_tyre_work *work,
                      double v_pow, double dt_s)
{
    int cond = life->condition;
    int has_tyre = cond == PDK_TYRE_INTACT || cond == PDK_TYRE_FLAT;
    double slide_w = work->slide_power_w > 0.0 ? work->slide_power_w : 0.0;
    double load_n = work->load_n > 0.0 ? work->load_n : 0.0;
    double speed = work->roll_speed_mps > 0.0 ? work->roll_speed_mps : 0.0;

    /* Heat inputs: none once the tyre is gone (the nodes then relax to the
     * air and the road). Flexing grows with the rolling drag (a soft tyre,
     * a flat one). */
    double p_surface = 0.0;
    double p_carcass = 0.0;
    if (has_tyre) {
        p_surface = def->heat_scale * def->slide_heat_share * slide_w;
        p_carcass =
            def->heat_scale * def->hysteresis_coeff * rolling_scale(life, def) * load_n * speed;
    }
    heat_step(life, def, work, v_pow, p_surface, p_carcass, dt_s);

    /* Wear from sliding work, three times faster above 120 C at the surface;
     * the tyre blows when the tread is gone. */
    if (cond == PDK_TYRE_INTACT) {
        double rate = def->wear_scale * def->wear_m_per_j * slide_w;
        if (life->surface_temp_c > HOT_WEAR_TEMP_C) {
            rate *= HOT_WEAR_FACTOR;
        }
        life->tread_m -= rate * dt_s;
        if (life->tread_m <= 0.0) {
            life->tread_m = 0.0;
            life->air_share = 0.0;
            life->leak_per_s = 0.0;
            go_flat(life);
        }
    }

    /* A puncture's leak; flat at a quarter of the air. */
    if (life->condition == PDK_TYRE_INTACT || life->condition == PDK_TYRE_FLAT) {
        if (life->leak_per_s > 0.0) {
            life->air_share -= life->leak_per_s * dt_s;
            if (life->air_share <= 0.0) {
                life->air_share = 0.0;
                life->leak_per_s = 0.0;
            }
        }
        if (life->condition == PDK_TYRE_INTACT && life->air_share <= FLAT_AIR_SHARE) {
            go_flat(life);
        }
    }

    /* Running flat shreds the tyre to the rim (after about 1.5 km). The
     * distance counts only what rolled on the ground. */
    if (cond == PDK_TYRE_FLAT) {
        double chi = work->contact < 0.0 ? 0.0 : (work->contact > 1.0 ? 1.0 : work->contact);
        life->flat_run_m += speed * chi * dt_s;
        if (life->flat_run_m >= def->flat_to_rim_m) {
            life->condition = PDK_TYRE_RIM;
            life->air_share = 0.0;
            life->leak_per_s = 0.0;
        }
    }
}

void pdk_tyre_life_step(pdk_tyre_life *life, const pdk_tyre_life_def *def,
                        const pdk_tyre_work *work, double dt_s)
{
    if (!(dt_s > 0.0)) {
        return;
    }
    life_step(life, def, work, pdk_pow(air_speed(work), 0.8), dt_s);
}

void pdk_tyre_life_step4(pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[4],
                         const pdk_tyre_work works[4], double dt_s)
{
    if (!(dt_s > 0.0)) {
        return;
    }
    /* Each lane of the vector pow is pdk_pow of that lane's speed (vmath.h). */
    v4 v = {air_speed(&works[0]), air_speed(&works[1]), air_speed(&works[2]), air_speed(&works[3])};
    v4 v_pow = pdk_v_pow(v, splat(0.8));
    for (int i = 0; i < 4; i++) {
        life_step(&lives[i], defs[i], &works[i], v_pow[i], dt_s);
    }
}

/* Peak grip against the tread surface temperature: a parabola through 1 at
 * the optimum and 1 - window_loss at optimum +- window, floored. */
static double window_grip(const pdk_tyre_life *life, const pdk_tyre_life_def *def)
{
    double d = (life->surface_temp_c - def->optimal_temp_c) / def->window_c;
    double g = 1.0 - def->window_loss * d * d;
    return g > def->min_temp_grip ? g : def->min_temp_grip;
}

static double wear_grip(const pdk_tyre_life *life, const pdk_tyre_life_def *def)
{
    double share = life->tread_m / def->tread_depth_m;
    share = share < 0.0 ? 0.0 : (share > 1.0 ? 1.0 : share);
    return def->worn_grip + (1.0 - def->worn_grip) * share;
}

void pdk_tyre_life_effect(const pdk_tyre_life *life, const pdk_tyre_life_def *def, double radius_m,
                          pdk_tyre_effect *out)
{
    double p = gauge_kpa(life, def);
    double grip;
    double drop;
    switch (life->condition) {
    case PDK_TYRE_FLAT:
        grip = FLAT_GRIP * window_grip(life, def) * wear_grip(life, def);
        drop = def->flat_drop_m;
        break;
    case PDK_TYRE_RIM:
        grip = RIM_GRIP;
        drop = radius_m - def->rim_radius_m;
        break;
    case PDK_TYRE_DETACHED:
        grip = DETACHED_GRIP;
        drop = radius_m - def->hub_radius_m;
        break;
    default: {
        double best = def->cold_pressure_kpa * def->best_pressure_ratio;
        double gp = 1.0 - def->pressure_grip_slope * fabs(p / best - 1.0);
        grip = window_grip(life, def) * wear_grip(life, def) * (gp > 0.0 ? gp : 0.0);
        drop = 0.0;
        break;
    }
    }
    out->grip = grip * life->grip_scale;
    out->radius_drop_m = drop > 0.0 ? drop : 0.0;
    out->rolling_scale = rolling_scale(life, def);
    out->pressure_kpa = p;
}

const char *pdk_tyre_action_problem(int action, double value)
{
    switch (action) {
    case PDK_TYRE_PUNCTURE:
        if (!isfinite(value) || !(value >= 0.0) || value > 1.0) {
            return "value must be a leak rate within 0..1 (share of the air per second; 0 for "
                   "the tyre's own life.leak_per_s)";
        }
        return NULL;
    case PDK_TYRE_SET_CONDITION:
        if (!(value == 0.0 || value == 1.0 || value == 2.0 || value == 3.0)) {
            return "value must be a tyre condition 0..3 (intact, flat, rim, detached)";
        }
        return NULL;
    case PDK_TYRE_REPLACE:
        return NULL;
    case PDK_TYRE_SET_TEMPERATURE:
        if (bad_range(value, -50.0, 250.0)) {
            return "value must be a temperature within -50..250 C";
        }
        return NULL;
    case PDK_TYRE_SET_GRIP_SCALE:
        if (bad_range(value, 0.0, 2.0)) {
            return "value must be a grip scale within 0..2";
        }
        return NULL;
    case PDK_TYRE_SET_POWER_SCALE:
        if (bad_range(value, 0.0, 1.0)) {
            return "value must be a power scale within 0..1";
        }
        return NULL;
    default:
        return "action must be a tyre action 1..6";
    }
}

void pdk_tyre_life_apply(pdk_tyre_life *life, const pdk_tyre_life_def *def, int action,
                         double value, double ambient_c)
{
    PDK_ASSERT(pdk_tyre_action_problem(action, value) == NULL);
    switch (action) {
    case PDK_TYRE_PUNCTURE:
        /* Only a tyre with air in it can leak. */
        if (life->condition == PDK_TYRE_INTACT || life->condition == PDK_TYRE_FLAT) {
            life->leak_per_s = value > 0.0 ? value : def->leak_per_s;
        }
        break;
    case PDK_TYRE_SET_CONDITION: {
        int c = (int)value;
        life->condition = c;
        life->leak_per_s = 0.0;
        life->flat_run_m = 0.0;
        /* Intact: repaired and inflated to the full charge (the tread stays
         * as it is: a worn-out one blows again). Otherwise empty. */
        life->air_share = c == PDK_TYRE_INTACT ? 1.0 : 0.0;
        break;
    }
    case PDK_TYRE_REPLACE: {
        /* A fresh tyre; the damage scale belongs to the corner (a bent
         * wheel), not the tyre, and stays. */
        double scale = life->grip_scale;
        pdk_tyre_life_init(life, def, ambient_c);
        life->grip_scale = scale;
        break;
    }
    case PDK_TYRE_SET_TEMPERATURE:
        life->surface_temp_c = value;
        life->carcass_temp_c = value;
        life->gas_temp_c = value;
        break;
    case PDK_TYRE_SET_GRIP_SCALE:
        life->grip_scale = value;
        break;
    default:
        /* PDK_TYRE_SET_POWER_SCALE: the world applies it to the vehicle. */
        break;
    }
}
