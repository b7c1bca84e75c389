/* The four-wheel step's scalar per-wheel helpers (four_wheel_ground.h): the
 * surface under a wheel, the tyre on deformable soil, and the tyres' life
 * once a tick. */
#include "vehicle/four_wheel_ground.h"

#include <math.h>
#include <stddef.h>

#include "math/vmath.h"
#include "tyre/tyre.h"

#define PI 3.14159265358979323846

/* The soil model's slope dFx/dkappa by a central difference over this step in
 * slip (the thrust is smooth in the slip). */
#define SOIL_SLOPE_STEP 1.0e-4

/* The Polaris model's smooth sign of the motion resistance, tanh(v / 0.1
 * m/s). */
#define SOIL_RESIST_SPEED_MPS 0.1

/* How fast a wheel's sinkage follows the soil: as fast as the tyre's own
 * deflection follows its load, the wheel bouncing on its tyre near 10 Hz on
 * a car (Gillespie, Fundamentals of Vehicle Dynamics, 1992, ch. 5, the
 * wheel-hop resonance), omega = 2 pi 10 rad/s. The sinkage relaxes toward
 * Bekker's value with the time constant 1 / omega, and moves no faster than
 * omega times the tyre's deflection at the load. Both are rates in time: a
 * sinkage that moved a quarter of the deflection per substep moved four
 * times as fast at four times as many substeps, and a locked stop on sand
 * moved 3 % between 2 and 8 substeps. */
#define SINKAGE_RAD_PER_S (2.0 * PI * 10.0)

/* The least inflation the soil model is given: a flat tyre's gas pressure
 * falls to nothing, and its carcass (p_c, which may be 0) then carries the
 * load alone; 1 kPa keeps the membrane's area N / (p_i + p_c) finite. */
#define SOIL_MIN_INFLATION_PA 1000.0

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

void pdk_fw_ground_of(int surface_id, pdk_fw_ground *out)
{
    const pdk_surface *s = pdk_surface_get(surface_id);
    if (s == NULL) {
        surface_id = PDK_SURFACE_TARMAC;
        s = pdk_surface_get(surface_id);
    }
    pdk_tyre_ground g;
    pdk_surface_ground(surface_id, 1.0, &g);
    out->grip = g.grip;
    out->stiffness = g.stiffness;
    out->slide = g.slide;
    out->rolling_coeff = s->rolling_coeff;
    out->deformable = s->deformable;
}

/* The axle's soil tyre at the law's radius and the tyre's pressure now. */
static pdk_soil_tyre soil_tyre_at(const pdk_soil_tyre *tyre, double radius_m, double pressure_pa)
{
    pdk_soil_tyre t = *tyre;
    t.radius_m = radius_m;
    t.inflation_pa = pressure_pa > SOIL_MIN_INFLATION_PA ? pressure_pa : SOIL_MIN_INFLATION_PA;
    return t;
}

void pdk_fw_soil(const pdk_fw_soil_in *in, pdk_fw_soil_out *out)
{
    const pdk_soil_tyre t = soil_tyre_at(in->tyre, in->radius_m, in->pressure_pa);
    pdk_soil_contact sc;
    pdk_soil_static(in->soil, &t, in->load_n, &sc);

    /* Janosi-Hanamoto thrust at the slip (Wong, Theory of Ground Vehicles, ch.
     * 2), and its slope, which the implicit wheel-spin solve linearises with;
     * held beyond full slip, where the slope is 0. */
    double k = clamp(in->kappa, -1.0, 1.0);
    out->fx_n = pdk_soil_thrust_n(in->soil, &t, &sc, k);
    out->dfx_dkappa_n = 0.0;
    if (fabs(in->kappa) < 1.0) {
        double lo = clamp(k - SOIL_SLOPE_STEP, -1.0, 1.0);
        double hi = clamp(k + SOIL_SLOPE_STEP, -1.0, 1.0);
        double slope =
            (pdk_soil_thrust_n(in->soil, &t, &sc, hi) - pdk_soil_thrust_n(in->soil, &t, &sc, lo)) /
            (hi - lo);
        out->dfx_dkappa_n = slope > 0.0 ? slope : 0.0;
    }
    out->traction_limit_n = sc.traction_limit_n;

    /* Motion resistance, compaction and bulldozing, of the rut the wheel is
     * in now: Bekker's closed forms at the wheel's own sinkage (state), which
     * follows its static value at a rate (pdk_fw_sinkage_at), not at the
     * static sinkage for this load. Compaction is the work of making the rut
     * (Wong, ch. 2), so a load that swings faster than the rut follows does
     * not swing the resistance with it; at a steady load the sinkage is its
     * static value and so are these. Applied along the wheel's heading as the
     * Polaris model's SettleWheels does: F = -clamp(F_mr tanh(v / 0.1), -m
     * |v| / dt, m |v| / dt) with m the corner's static mass, so that one
     * substep of it can at most stop the corner, never reverse it. */
    const double z = in->sinkage_m;
    double f_mr = pdk_soil_compaction_n(in->soil, t.width_m, z) +
                  pdk_soil_bulldozing_n(in->soil, t.width_m, 2.0 * t.radius_m, z);
    double lim = in->corner_mass_kg * fabs(in->vx_mps) / in->substep_s;
    out->resistance_n = -clamp(f_mr * pdk_tanh(in->vx_mps / SOIL_RESIST_SPEED_MPS), -lim, lim);
    out->rolling_coeff = sc.rolling_coeff;
}

void pdk_fw_sinkage_at(const pdk_soil *soil, const pdk_soil_tyre *tyre, double radius_m,
                       double pressure_pa, double load_n, double substep_s, double *target_m,
                       double *step_m)
{
    const pdk_soil_tyre t = soil_tyre_at(tyre, radius_m, pressure_pa);
    pdk_soil_contact sc;
    pdk_soil_static(soil, &t, load_n, &sc);
    /* Sinkage moves toward Bekker's static value no faster than the tyre's
     * own deflection moves (SINKAGE_RAD_PER_S), so that the stiff soil never
     * acts as a spring faster than the tyre's own. */
    *target_m = sc.sinkage_m;
    *step_m = SINKAGE_RAD_PER_S * sc.tyre_deflection_m * substep_s;
}

double pdk_fw_sinkage_step_m(const pdk_soil_tyre *tyre, double radius_m, double static_load_n,
                             double substep_s)
{
    /* The inflated membrane's stiffness k = 2 pi (p_i + p_c) sqrt(R b / 2)
     * (Wong, ch. 2: a tyre's vertical stiffness from its inflation). */
    double p = tyre->inflation_pa + tyre->carcass_pa;
    double k = 2.0 * PI * p * sqrt(0.5 * radius_m * tyre->width_m);
    return k > 0.0 ? SINKAGE_RAD_PER_S * static_load_n / k * substep_s : 0.0;
}

double pdk_fw_sinkage_share(double substep_s)
{
    /* The exact step of dz/dt = omega (z_static - z) with z_static held
     * over the substep (at the substep's end load: pdk_fw_sinkage_at). */
    return 1.0 - pdk_exp(-SINKAGE_RAD_PER_S * substep_s);
}

void pdk_fw_life_effects(const pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[2],
                         const double r0_m[4], pdk_tyre_effect out[4])
{
    for (int i = 0; i < 4; i++) {
        pdk_tyre_life_effect(&lives[i], defs[i >> 1], r0_m[i], &out[i]);
    }
}

void pdk_fw_life_steps(pdk_tyre_life lives[4], const pdk_tyre_life_def *const defs[2],
                       const double slide_power_w[4], const double load_n[4],
                       const double roll_speed_mps[4], const double contact[4], double air_c,
                       double road_c, double dt_s)
{
    pdk_tyre_work w[4];
    const pdk_tyre_life_def *d[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (pdk_tyre_work){slide_power_w[i], load_n[i], roll_speed_mps[i],
                               contact[i],       air_c,     road_c};
        d[i] = defs[i >> 1];
    }
    pdk_tyre_life_step4(lives, d, w, dt_s);
}
