/* Unit tests for the ground materials and the tyre on soil
 * (server/sim/surface.h): the surface table's invariants and the scales it
 * gives a tyre law; the static sinkage against Bekker's closed forms, computed
 * here independently with libm, in both modes and for a UTV wheel on every
 * soil of Wong's Table 2.3 that the table below lists; motion resistance
 * growing with sinkage; the sinkage limit; bulldozing against Wong's formula
 * written with acos and tan; the Janosi-Hanamoto thrust; the Polaris model's
 * rolling coefficient and water drag; every check of a soil tyre. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ground/surface.h"
#include "tyre/tyre.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define G 9.80665

/* A soil from Wong's Table 2.3 units (kN/m^(n+1), kN/m^(n+2), kPa, deg). */
static pdk_soil wong(double n, double kc, double kphi, double c_kpa, double phi_deg, double k_m)
{
    return (pdk_soil){.n = n,
                      .kc = kc * 1000.0,
                      .kphi = kphi * 1000.0,
                      .cohesion_pa = c_kpa * 1000.0,
                      .phi_rad = phi_deg * DEG,
                      .shear_k_m = k_m,
                      .density_kgpm3 = 1600.0};
}

/* A UTV wheel on soil: b = 0.23 m, D = 0.69 m, with p_i + p_c = 110 kPa. */
static pdk_soil_tyre utv_tyre(void)
{
    return (pdk_soil_tyre){.radius_m = 0.345,
                           .width_m = 0.23,
                           .section_height_m = 0.1651,
                           .inflation_pa = 95000.0,
                           .carcass_pa = 15000.0,
                           .lug_height_m = 0.0,
                           .lug_area_ratio = 0.0,
                           .tread_k_m = 0.008,
                           .hysteresis = 0.12};
}

static int rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fabs(b);
}

/* ---- the table ---- */

START_TEST(test_table_invariants)
{
    for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
        const pdk_surface *s = pdk_surface_get(id);
        ck_assert_ptr_nonnull(s);
        ck_assert_ptr_nonnull(s->name);
        ck_assert(isfinite(s->mu_peak) && isfinite(s->mu_slide) && isfinite(s->rolling_coeff) &&
                  isfinite(s->stiffness_scale));
        ck_assert(s->mu_peak > 0.0 && s->mu_peak <= 1.0);
        ck_assert(s->mu_slide > 0.0 && s->mu_slide <= s->mu_peak);
        ck_assert(s->rolling_coeff > 0.0 && s->rolling_coeff <= 0.45);
        ck_assert(s->stiffness_scale > 0.0 && s->stiffness_scale <= 1.0);
        if (s->loose) {
            /* Loose ground keeps nearly all of its peak when sliding. */
            ck_assert_double_ge(s->mu_slide / s->mu_peak, 0.9);
        } else {
            ck_assert_double_ge(s->mu_slide / s->mu_peak, 0.6);
        }
        const pdk_soil *o = &s->soil;
        double v[7] = {o->n,       o->kc,        o->kphi,         o->cohesion_pa,
                       o->phi_rad, o->shear_k_m, o->density_kgpm3};
        for (int k = 0; k < 7; k++) {
            ck_assert(isfinite(v[k]));
            if (!s->deformable) {
                ck_assert(v[k] == 0.0); /* hard rows carry no soil */
            }
        }
        if (s->deformable) {
            ck_assert(s->loose);
            ck_assert(o->n > 0.0 && o->n < 3.0);
            ck_assert(o->kc >= 0.0 && o->kphi > 0.0 && o->cohesion_pa >= 0.0);
            ck_assert(o->phi_rad > 0.0 && o->phi_rad < PI / 2.0);
            ck_assert(o->shear_k_m > 0.0 && o->density_kgpm3 > 0.0);
        }
        /* The name round-trips and is unique; the source is one sentence. */
        ck_assert_int_eq(pdk_surface_by_name(s->name), id);
        const char *src = pdk_surface_source(id);
        ck_assert_ptr_nonnull(src);
        size_t len = strlen(src);
        ck_assert(len > 20 && src[len - 1] == '.');
    }
    /* Dry tarmac is the reference. */
    const pdk_surface *t = pdk_surface_get(PDK_SURFACE_TARMAC);
    ck_assert_double_eq(t->mu_peak, 1.0);
    ck_assert_double_eq(t->stiffness_scale, 1.0);
    ck_assert_str_eq(t->name, "tarmac");
    ck_assert_int_eq(pdk_surface_by_name("siltLoam"), PDK_SURFACE_SILT_LOAM);
    ck_assert_int_eq(pdk_surface_by_name("tarmacWet"), PDK_SURFACE_TARMAC_WET);
    /* Unknown names and ids. */
    ck_assert_int_eq(pdk_surface_by_name("lava"), -1);
    ck_assert_int_eq(pdk_surface_by_name("Tarmac"), -1);
    ck_assert_int_eq(pdk_surface_by_name(""), -1);
    ck_assert_int_eq(pdk_surface_by_name(NULL), -1);
    ck_assert_ptr_null(pdk_surface_get(-1));
    ck_assert_ptr_null(pdk_surface_get(PDK_SURFACE_COUNT));
    ck_assert_ptr_null(pdk_surface_source(-1));
    ck_assert_ptr_null(pdk_surface_source(PDK_SURFACE_COUNT));
}
END_TEST

/* The rows are what the sources say: friction ordered as the tables order
 * it, Wong's soil rows converted to SI, packed snow hard. */
START_TEST(test_table_values)
{
    const pdk_surface *tar = pdk_surface_get(PDK_SURFACE_TARMAC);
    const pdk_surface *wet = pdk_surface_get(PDK_SURFACE_TARMAC_WET);
    const pdk_surface *snow = pdk_surface_get(PDK_SURFACE_SNOW);
    const pdk_surface *ice = pdk_surface_get(PDK_SURFACE_ICE);
    const pdk_surface *gravel = pdk_surface_get(PDK_SURFACE_GRAVEL);
    ck_assert(tar->mu_peak > wet->mu_peak && wet->mu_peak > snow->mu_peak &&
              snow->mu_peak > ice->mu_peak);
    ck_assert(gravel->loose && !tar->loose && !snow->deformable && !snow->loose);
    /* The loose figures: gravel 0.8, mud 0.9 of tarmac's sliding loss taken
     * away: slide ratios 0.95 and 0.975 (to the table's two decimals). */
    ck_assert_double_le(fabs(gravel->mu_slide / gravel->mu_peak - 0.95), 0.01);
    const pdk_surface *mud = pdk_surface_get(PDK_SURFACE_MUD);
    ck_assert_double_le(fabs(mud->mu_slide / mud->mu_peak - 0.975), 0.01);
    /* Wong's rows in SI. */
    const pdk_surface *sand = pdk_surface_get(PDK_SURFACE_SAND);
    ck_assert(sand->deformable);
    ck_assert_double_eq(sand->soil.n, 1.1);
    ck_assert(rel_close(sand->soil.kc, 990.0, 1e-15));
    ck_assert(rel_close(sand->soil.kphi, 1528430.0, 1e-15));
    ck_assert(rel_close(sand->soil.cohesion_pa, 1040.0, 1e-15));
    ck_assert(rel_close(sand->soil.phi_rad, 28.0 * DEG, 1e-15));
    ck_assert(rel_close(mud->soil.kphi, 692150.0, 1e-15)); /* clayey soil 38 % */
    const pdk_surface *silt = pdk_surface_get(PDK_SURFACE_SILT_LOAM);
    ck_assert(rel_close(silt->soil.kc, 41600.0, 1e-15)); /* North Gower clayey loam */
    ck_assert(rel_close(silt->soil.kphi, 2471000.0, 1e-15));
    /* On deformable rows mu_peak is the proxy soil's traction limit for the
     * UTV example, to about 0.03. */
    const int soils[3] = {PDK_SURFACE_MUD, PDK_SURFACE_SAND, PDK_SURFACE_SILT_LOAM};
    pdk_soil_tyre t = utv_tyre();
    for (int i = 0; i < 3; i++) {
        const pdk_surface *s = pdk_surface_get(soils[i]);
        pdk_soil_contact c;
        pdk_soil_static(&s->soil, &t, 2500.0, &c);
        ck_assert_double_le(fabs(c.traction_limit_n / 2500.0 - s->mu_peak), 0.03);
    }
}
END_TEST

START_TEST(test_ground_scales)
{
    const pdk_surface *ref = pdk_surface_get(PDK_SURFACE_TARMAC);
    for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
        const pdk_surface *s = pdk_surface_get(id);
        pdk_tyre_ground g;
        pdk_surface_ground(id, 0.8, &g);
        ck_assert_double_eq(g.grip, s->mu_peak / ref->mu_peak * 0.8);
        ck_assert_double_eq(g.stiffness, s->stiffness_scale);
        double slide = (s->mu_slide / s->mu_peak) / (ref->mu_slide / ref->mu_peak);
        ck_assert_double_eq(g.slide, slide);
        if (s->loose) {
            /* A law with tarmac's slide share keeps >= 90 % when sliding. */
            ck_assert_double_gt(g.slide, 1.0);
            ck_assert_double_ge(0.75 * g.slide, 0.9);
        }
    }
    pdk_tyre_ground g;
    pdk_surface_ground(PDK_SURFACE_TARMAC, 1.0, &g);
    ck_assert(g.grip == 1.0 && g.stiffness == 1.0 && g.slide == 1.0);
    pdk_surface_ground(PDK_SURFACE_ICE, 1.0, &g);
    ck_assert_double_eq(g.grip, 0.1);
}
END_TEST

/* The largest braking force of law on ground at load fz_n (a scan of
 * kappa in [0, 1], steps of 5e-4, then 1e-5 around the best) and the force
 * of the locked wheel, kappa = -1. */
static double peak_braking_n(const pdk_tyre_law_def *law, const pdk_tyre_ground *g, double fz_n,
                             double *locked_n, double *at_kappa)
{
    double best = 0.0, at = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        const double lo = pass == 0 ? 0.0 : fmax(0.0, at - 5e-4);
        const double step = pass == 0 ? 5e-4 : 1e-5;
        const int n = pass == 0 ? 2000 : 100;
        for (int k = 1; k <= n; k++) {
            pdk_tyre_in in = {fz_n, -(lo + k * step), 0.0, 0.0, 20.0};
            pdk_tyre_out o;
            pdk_tyre_eval(law, g, &in, 0, &o);
            if (-o.fx_n > best) {
                best = -o.fx_n;
                at = lo + k * step;
            }
        }
    }
    pdk_tyre_in in = {fz_n, -1.0, 0.0, 0.0, 20.0};
    pdk_tyre_out o;
    pdk_tyre_eval(law, g, &in, 0, &o);
    *locked_n = -o.fx_n;
    *at_kappa = at;
    return best;
}

/* Every law keeps the surface table's ratios: on each surface its peak
 * braking friction is its own peak on tarmac times the row's mu_peak over
 * tarmac's, and its locked-wheel friction its own on tarmac times the row's
 * mu_slide over tarmac's (at most its peak there: on loose ground a sliding
 * tyre keeps nearly all of it), within 2 %. The Magic Formula sets' own
 * sliding share is the one they have on tarmac; before it was taken from
 * the curve the surface had compressed, ice left road205 locked at 0.058
 * (0.48 of its 0.121 peak) where the table's ratio gives 0.074. The UTV law
 * keeps the locked ratio; its peak, where tanh meets the falling branch,
 * moves with the surface's stiffness scale (docs/tyres.md), so only its
 * locked friction is checked here. The curve's peak slip moves by the
 * surface's grip over its stiffness scale: about 3 % on ice for road205. */
START_TEST(test_law_friction_on_every_surface)
{
    pdk_tyre_law_def laws[6];
    laws[0] = pdk_tyre_law_def_default();
    laws[1] = pdk_tyre_law_def_default();
    laws[1].law = PDK_TYRE_UTV;
    laws[1].hard_slip_stiffness = 12.0;
    laws[1].cornering_per_load = 8.0;
    const pdk_mf_set sets[4] = {PDK_MF_ROAD_205_60R15, PDK_MF_SPORT, PDK_MF_SLICK, PDK_MF_KART};
    for (int i = 0; i < 4; i++) {
        pdk_tyre_law_def d = pdk_tyre_law_def_default();
        d.law = PDK_TYRE_MAGIC;
        d.mf_set = sets[i];
        d.mf = *pdk_mf_set_coeffs(sets[i]);
        d.slide_grip = 0.0;
        d.nominal_load_n = d.mf.fnomin_n * d.mf.lfzo;
        d.radius_m = d.mf.unloaded_radius_m;
        laws[2 + i] = d;
    }
    const pdk_surface *ref = pdk_surface_get(PDK_SURFACE_TARMAC);
    for (int l = 0; l < 6; l++) {
        const double fz = laws[l].nominal_load_n;
        pdk_tyre_ground g;
        pdk_surface_ground(PDK_SURFACE_TARMAC, 1.0, &g);
        double locked_t, at_t;
        const double peak_t = peak_braking_n(&laws[l], &g, fz, &locked_t, &at_t);
        for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
            const pdk_surface *s = pdk_surface_get(id);
            pdk_surface_ground(id, 1.0, &g);
            double locked, at;
            const double peak = peak_braking_n(&laws[l], &g, fz, &locked, &at);
            const double want_locked = fmin(locked_t * s->mu_slide / ref->mu_slide, peak);
            ck_assert_msg(fabs(locked / want_locked - 1.0) < 0.02, "law %d on %s: locked %g, want %g",
                          l, s->name, locked / fz, want_locked / fz);
            if (laws[l].law != PDK_TYRE_UTV) {
                const double want_peak = peak_t * s->mu_peak / ref->mu_peak;
                ck_assert_msg(fabs(peak / want_peak - 1.0) < 0.02, "law %d on %s: peak %g, want %g",
                              l, s->name, peak / fz, want_peak / fz);
            }
            if (l == 2 && id == PDK_SURFACE_ICE) {
                /* road205's peak slip, 0.143 on tarmac, times 0.1 / 0.5 */
                ck_assert_double_lt(fabs(at - at_t * s->mu_peak / s->stiffness_scale), 2e-3);
                ck_assert_double_lt(fabs(at - 0.03), 0.005);
            }
        }
    }
}
END_TEST

/* ---- soil: Bekker's closed forms ---- */

typedef struct utv_row {
    const char *name;
    double n, kc, kphi, c, phi;
    double z_cm, rc_per_w; /* a rigid UTV wheel's sinkage and Rc / W on each soil,
                            * worked out by hand from Wong's Table 2.3 */
} utv_row;

static const utv_row utv_rows[] = {
    {"dry sand", 1.1, 0.99, 1528.43, 1.04, 28.0, 6.8, 0.24},
    {"sandy loam 15", 0.7, 5.27, 1515.04, 1.72, 29.0, 2.3, 0.14},
    {"sandy loam 22", 0.2, 2.56, 43.12, 1.38, 38.0, 14.5, 0.41},
    {"clayey soil 38", 0.5, 13.19, 692.15, 4.14, 13.0, 2.1, 0.14},
    {"LETE", 0.79, 102.0, 5301.0, 1.3, 31.1, 1.1, 0.10},
};

/* Every row of the UTV example: z0 = [3W / ((3-n) b sqrt(D) k)]^(2/(2n+1)) and
 * Rc in Bekker's combined closed form (Wong, ch. 2),
 * (3W/sqrt(D))^((2n+2)/(2n+1)) / [(3-n)^((2n+2)/(2n+1)) (n+1) (kc + b
 * kphi)^(1/(2n+1))], a different expression from the module's b k z^(n+1) /
 * (n+1). A very stiff tyre forces the rigid mode. */
START_TEST(test_rigid_closed_form)
{
    const double w = 2500.0, b = 0.23, d = 0.69;
    pdk_soil_tyre t = utv_tyre();
    t.inflation_pa = 5.0e6;
    for (size_t i = 0; i < sizeof utv_rows / sizeof utv_rows[0]; i++) {
        const utv_row *r = &utv_rows[i];
        pdk_soil s = wong(r->n, r->kc, r->kphi, r->c, r->phi, 0.02);
        double n = r->n;
        double k = s.kc / b + s.kphi;
        double z0 = pow(3.0 * w / ((3.0 - n) * b * sqrt(d) * k), 2.0 / (2.0 * n + 1.0));
        double e = (2.0 * n + 2.0) / (2.0 * n + 1.0);
        double rc = pow(3.0 * w / sqrt(d), e) /
                    (pow(3.0 - n, e) * (n + 1.0) * pow(s.kc + b * s.kphi, 1.0 / (2.0 * n + 1.0)));
        double pgcr = pow(k, 1.0 / (2.0 * n + 1.0)) *
                      pow(3.0 * w / ((3.0 - n) * b * sqrt(d)), 2.0 * n / (2.0 * n + 1.0));
        pdk_soil_contact c;
        pdk_soil_static(&s, &t, w, &c);
        ck_assert_msg(c.rigid, "%s", r->name);
        ck_assert_msg(rel_close(c.sinkage_m, z0, 1e-12), "%s z %.17g vs %.17g", r->name,
                      c.sinkage_m, z0);
        ck_assert_msg(rel_close(c.compaction_n, rc, 1e-12), "%s Rc", r->name);
        ck_assert_msg(rel_close(c.critical_pressure_pa, pgcr, 1e-12), "%s p_gcr", r->name);
        /* The published figures, to their rounding. */
        ck_assert_msg(fabs(c.sinkage_m * 100.0 - r->z_cm) <= 0.06, "%s z %.3f cm", r->name,
                      c.sinkage_m * 100.0);
        ck_assert_msg(fabs(c.compaction_n / w - r->rc_per_w) <= 0.006, "%s Rc/W %.4f", r->name,
                      c.compaction_n / w);
        /* The contact is the chord sqrt(D z) of the sunk front arc. */
        ck_assert(rel_close(c.contact_length_m, sqrt(d * z0), 1e-12));
        ck_assert(rel_close(c.contact_area_m2, b * sqrt(d * z0), 1e-12));
        ck_assert(rel_close(c.ground_pressure_pa, w / (b * sqrt(d * z0)), 1e-12));
        /* Shallow (z / D <= 0.15, all but sandy loam 22 %): no bulldozing. */
        if (z0 <= 0.15 * d) {
            ck_assert_double_eq(c.bulldozing_n, 0.0);
        } else {
            ck_assert_double_gt(c.bulldozing_n, 0.0);
        }
    }
}
END_TEST

/* The mode follows p_i + p_c against p_gcr (with 110 kPa sandy loam 15 %
 * (p_gcr 111) and LETE (167) are flexible, dry sand (79) is rigid). Flexible:
 * z = (p_g / k)^(1/n), Rc = b p_g^((n+1)/n) / ((n+1) k^(1/n)), A = N / p_g;
 * LETE gives 0.7 cm and Rc/W 0.04. */
START_TEST(test_flexible_closed_form)
{
    const double w = 2500.0, b = 0.23, pg = 110000.0;
    pdk_soil_tyre t = utv_tyre();
    const double expect_pgcr_kpa[5] = {79.4, 111.3, 36.9, 108.5, 166.8};
    const int expect_rigid[5] = {1, 0, 1, 1, 0};
    for (size_t i = 0; i < 5; i++) {
        const utv_row *r = &utv_rows[i];
        pdk_soil s = wong(r->n, r->kc, r->kphi, r->c, r->phi, 0.02);
        pdk_soil_contact c;
        pdk_soil_static(&s, &t, w, &c);
        ck_assert_msg(fabs(c.critical_pressure_pa / 1000.0 - expect_pgcr_kpa[i]) < 0.1,
                      "%s p_gcr %.2f kPa", r->name, c.critical_pressure_pa / 1000.0);
        ck_assert_int_eq(c.rigid, expect_rigid[i]);
        if (c.rigid) {
            continue;
        }
        double n = r->n;
        double k = s.kc / b + s.kphi;
        double z = pow(pg / k, 1.0 / n);
        double rc = b * pow(pg, (n + 1.0) / n) / ((n + 1.0) * pow(k, 1.0 / n));
        ck_assert(rel_close(c.sinkage_m, z, 1e-12));
        ck_assert(rel_close(c.compaction_n, rc, 1e-12));
        ck_assert(rel_close(c.contact_area_m2, w / pg, 1e-15));
        ck_assert_double_eq(c.ground_pressure_pa, pg);
        /* The membrane (Wong, ch. 2): delta = A / (2 pi sqrt(R b / 2)), the
         * ellipse's length 2 sqrt(2 R delta - delta^2). */
        double delta = (w / pg) / (2.0 * PI * sqrt(0.345 * b / 2.0));
        ck_assert(rel_close(c.tyre_deflection_m, delta, 1e-12));
        ck_assert(
            rel_close(c.contact_length_m, 2.0 * sqrt(2.0 * 0.345 * delta - delta * delta), 1e-12));
    }
    pdk_soil lete = wong(0.79, 102.0, 5301.0, 1.3, 31.1, 0.012);
    pdk_soil_contact c;
    pdk_soil_static(&lete, &t, w, &c);
    ck_assert(!c.rigid);
    ck_assert_double_le(fabs(c.sinkage_m * 100.0 - 0.7), 0.05);
    ck_assert_double_le(fabs(c.compaction_n / w - 0.04), 0.005);
    /* In flexible mode the sinkage does not depend on the load (the patch
     * grows instead); in rigid mode it grows as W^(2/(2n+1)). */
    pdk_soil_contact c2;
    pdk_soil_static(&lete, &t, 1.2 * w, &c2);
    ck_assert(!c2.rigid);
    ck_assert_double_eq(c2.sinkage_m, c.sinkage_m);
    ck_assert(rel_close(c2.contact_area_m2, 1.2 * c.contact_area_m2, 1e-12));
}
END_TEST

/* More load or softer soil: more sinkage, and more compaction resistance;
 * the total motion resistance grows with the sinkage through the
 * bulldozing onset up to the cap. A tyre much stiffer than the soil stays
 * rigid; a soft one (110 kPa) sinks as a rigid wheel until p_gcr reaches
 * its pressure, where the two modes' sinkages meet, and then flattens
 * instead of sinking further. */
START_TEST(test_resistance_grows_with_sinkage)
{
    pdk_soil_tyre t = utv_tyre();
    t.inflation_pa = 5.0e6;
    const pdk_surface *sand = pdk_surface_get(PDK_SURFACE_SAND);
    double last_z = 0.0, last_rc = 0.0, last_total = 0.0;
    for (int i = 1; i <= 60; i++) {
        double load = 500.0 * (double)i; /* 0.5 .. 30 kN: through the onset and the cap */
        pdk_soil_contact c;
        pdk_soil_static(&sand->soil, &t, load, &c);
        ck_assert(c.rigid);
        double total = c.compaction_n + c.bulldozing_n;
        ck_assert_double_ge(total, last_total);
        if (c.sinkage_m < PDK_SOIL_SINKAGE_LIMIT_M) {
            ck_assert_double_gt(c.sinkage_m, last_z);
            ck_assert_double_gt(c.compaction_n, last_rc);
            ck_assert_double_gt(total, last_total);
        } else {
            ck_assert_double_eq(c.sinkage_m, PDK_SOIL_SINKAGE_LIMIT_M);
        }
        last_z = c.sinkage_m;
        last_rc = c.compaction_n;
        last_total = total;
    }
    ck_assert_double_eq(last_z, PDK_SOIL_SINKAGE_LIMIT_M);
    /* The 110 kPa tyre on the same sand. */
    t = utv_tyre();
    double k = sand->soil.kc / 0.23 + sand->soil.kphi;
    double z_flex = pow(110000.0 / k, 1.0 / 1.1);
    int was_rigid = 1;
    last_z = 0.0;
    for (int i = 1; i <= 200; i++) {
        double load = 100.0 * (double)i;
        pdk_soil_contact c;
        pdk_soil_static(&sand->soil, &t, load, &c);
        ck_assert_double_ge(c.sinkage_m, last_z);
        ck_assert_double_le(c.sinkage_m, z_flex * (1.0 + 1e-12));
        if (!c.rigid) {
            ck_assert(rel_close(c.sinkage_m, z_flex, 1e-12));
        } else {
            ck_assert(was_rigid); /* rigid, then flexible, never back */
        }
        was_rigid = c.rigid;
        last_z = c.sinkage_m;
    }
    ck_assert(!was_rigid);
    /* Softer soil (both moduli scaled down), same load, both tyres. */
    const double p_tyre[2] = {110000.0, 5.0e6};
    for (int m = 0; m < 2; m++) {
        t.inflation_pa = p_tyre[m] - t.carcass_pa;
        pdk_soil s = pdk_surface_get(PDK_SURFACE_SILT_LOAM)->soil;
        double prev_z = 0.0, prev_rc = 0.0;
        for (int j = 0; j < 6; j++) {
            pdk_soil_contact c;
            pdk_soil_static(&s, &t, 2500.0, &c);
            if (m == 1) {
                ck_assert(c.rigid);
            } else if (j == 0) {
                ck_assert(!c.rigid); /* firm: flexible, then rigid as it softens */
            }
            ck_assert_double_gt(c.sinkage_m, prev_z);
            ck_assert_double_gt(c.compaction_n, prev_rc);
            prev_z = c.sinkage_m;
            prev_rc = c.compaction_n;
            s.kc *= 0.7;
            s.kphi *= 0.7;
        }
    }
}
END_TEST

/* A soil far too soft for the load: the sinkage stops at 0.2 m, the
 * resistances and the contact are those of that depth, bulldozing is in
 * full. */
START_TEST(test_sinkage_limit)
{
    pdk_soil snow = wong(1.6, 4.37, 196.72, 1.03, 19.7, 0.03); /* snow (US): 38 cm */
    pdk_soil_tyre t = utv_tyre();
    pdk_soil_contact c;
    pdk_soil_static(&snow, &t, 2500.0, &c);
    ck_assert(c.rigid);
    ck_assert_double_eq(c.sinkage_m, PDK_SOIL_SINKAGE_LIMIT_M);
    double k = snow.kc / 0.23 + snow.kphi;
    ck_assert(rel_close(c.compaction_n, 0.23 * k * pow(0.2, 2.6) / 2.6, 1e-12));
    ck_assert(rel_close(c.contact_length_m, sqrt(0.69 * 0.2), 1e-15));
    ck_assert_double_gt(c.bulldozing_n, 0.0);
    ck_assert(rel_close(c.bulldozing_n, pdk_soil_bulldozing_n(&snow, 0.23, 0.69, 0.2), 1e-15));
    /* Twice the load changes nothing once capped. */
    pdk_soil_contact c2;
    pdk_soil_static(&snow, &t, 5000.0, &c2);
    ck_assert_double_eq(c2.sinkage_m, c.sinkage_m);
    ck_assert_double_eq(c2.compaction_n, c.compaction_n);
}
END_TEST

/* Wong's bulldozing formula written as printed (acos, tan, Terzaghi's
 * factors with cos^2): the module matches it where it applies in full
 * (z / D >= 0.25), is zero up to z / D = 0.15 and at z = 0, and rises
 * monotonically in between. */
static double wong_bulldozing(const pdk_soil *s, double b, double d, double z)
{
    double phi = s->phi_rad;
    double alpha = acos(1.0 - 2.0 * z / d);
    double l0 = z * pow(tan(PI / 4.0 - phi / 2.0), 2.0);
    double nq = exp((1.5 * PI - phi) * tan(phi)) / (2.0 * pow(cos(PI / 4.0 + phi / 2.0), 2.0));
    double nc = (nq - 1.0) / tan(phi);
    double ng = 2.0 * (nq + 1.0) * tan(phi);
    double kc = (nc - tan(phi)) * pow(cos(phi), 2.0);
    double kg = (2.0 * ng / tan(phi) + 1.0) * pow(cos(phi), 2.0);
    double gs = s->density_kgpm3 * G;
    return b * sin(alpha + phi) / (2.0 * sin(alpha) * cos(phi)) *
               (2.0 * z * s->cohesion_pa * kc + gs * z * z * kg) +
           pow(l0, 3.0) * gs / 3.0 * (PI / 2.0 - phi) +
           s->cohesion_pa * l0 * l0 * (1.0 + tan(PI / 4.0 + phi / 2.0));
}

START_TEST(test_bulldozing)
{
    const double b = 0.23, d = 0.69;
    for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
        const pdk_surface *s = pdk_surface_get(id);
        if (!s->deformable) {
            continue;
        }
        ck_assert_double_eq(pdk_soil_bulldozing_n(&s->soil, b, d, 0.0), 0.0);
        ck_assert_double_eq(pdk_soil_bulldozing_n(&s->soil, b, d, 0.15 * d), 0.0);
        for (double zd = 0.25; zd <= 0.5; zd += 0.05) {
            double z = zd * d;
            ck_assert_msg(rel_close(pdk_soil_bulldozing_n(&s->soil, b, d, z),
                                    wong_bulldozing(&s->soil, b, d, z), 1e-12),
                          "%s at z/D %.2f", s->name, zd);
        }
        double prev = 0.0;
        for (int i = 1; i <= 100; i++) {
            double rb = pdk_soil_bulldozing_n(&s->soil, b, d, 0.003 * (double)i);
            ck_assert_double_ge(rb, prev);
            prev = rb;
        }
        ck_assert_double_gt(prev, 0.0);
    }
}
END_TEST

/* ---- thrust, traction limit, rolling coefficient, water ---- */

START_TEST(test_traction_limit)
{
    pdk_soil_tyre t = utv_tyre();
    const pdk_surface *silt = pdk_surface_get(PDK_SURFACE_SILT_LOAM);
    pdk_soil_contact c;
    pdk_soil_static(&silt->soil, &t, 2500.0, &c);
    double base = silt->soil.cohesion_pa * c.contact_area_m2 + 2500.0 * tan(silt->soil.phi_rad);
    ck_assert(rel_close(c.traction_limit_n, base, 1e-12));
    /* The lugs: (1 + 2 h_l r_l / b). */
    t.lug_height_m = 0.012;
    t.lug_area_ratio = 0.35;
    pdk_soil_static(&silt->soil, &t, 2500.0, &c);
    ck_assert(rel_close(c.traction_limit_n, base * (1.0 + 2.0 * 0.012 * 0.35 / 0.23), 1e-12));
    ck_assert_double_gt(c.traction_limit_n, base);
    /* No load, no contact. */
    pdk_soil_static(&silt->soil, &t, 0.0, &c);
    ck_assert(c.sinkage_m == 0.0 && c.traction_limit_n == 0.0 && c.compaction_n == 0.0 &&
              c.contact_area_m2 == 0.0 && c.rigid == 0);
}
END_TEST

/* Janosi-Hanamoto integrated over the patch: F = F_max (1 - K/(s l)
 * (1 - exp(-s l / K))), K the soil's plus the tread's; odd in the slip,
 * rising monotonically toward F_max, with the small-slip slope
 * F_max l / (2 K). */
START_TEST(test_janosi_thrust)
{
    pdk_soil_tyre t = utv_tyre();
    const pdk_surface *sand = pdk_surface_get(PDK_SURFACE_SAND);
    pdk_soil_contact c;
    pdk_soil_static(&sand->soil, &t, 2500.0, &c);
    double kk = sand->soil.shear_k_m + t.tread_k_m;
    double l = c.contact_length_m;
    double fmax = c.traction_limit_n;
    ck_assert_double_eq(pdk_soil_thrust_n(&sand->soil, &t, &c, 0.0), 0.0);
    double prev = 0.0;
    for (int i = 1; i <= 1000; i++) {
        double s = 0.001 * (double)i;
        double f = pdk_soil_thrust_n(&sand->soil, &t, &c, s);
        ck_assert_double_gt(f, prev);
        ck_assert_double_lt(f, fmax);
        ck_assert_double_eq(pdk_soil_thrust_n(&sand->soil, &t, &c, -s), -f);
        double x = s * l / kk;
        ck_assert_msg(rel_close(f, fmax * (1.0 - (1.0 - exp(-x)) / x), 1e-11), "s %g", s);
        prev = f;
    }
    /* Beyond full slip it holds. */
    ck_assert_double_eq(pdk_soil_thrust_n(&sand->soil, &t, &c, 3.0),
                        pdk_soil_thrust_n(&sand->soil, &t, &c, 1.0));
    /* Small slip: the slope, through the series branch. */
    double s = 1e-7;
    ck_assert(
        rel_close(pdk_soil_thrust_n(&sand->soil, &t, &c, s) / s, fmax * l / (2.0 * kk), 1e-6));
    /* Continuous across the series' edge at s l / K = 0.01. */
    double se = 0.01 * kk / l;
    double below = pdk_soil_thrust_n(&sand->soil, &t, &c, se * (1.0 - 1e-12));
    double above = pdk_soil_thrust_n(&sand->soil, &t, &c, se * (1.0 + 1e-12));
    ck_assert(above >= below && rel_close(above, below, 1e-10));
    /* A long patch reaches the limit at full slip. */
    pdk_soil_contact longc = c;
    longc.contact_length_m = 100.0 * kk;
    ck_assert_double_ge(pdk_soil_thrust_n(&sand->soil, &t, &longc, 1.0), 0.99 * fmax);
}
END_TEST

/* The Polaris model: f = h delta_t / h_s, at most 0.45; flexible mode's
 * deflection is the membrane's on hard ground, rigid mode's scaled by p_gcr /
 * p. */
START_TEST(test_rolling_coeff)
{
    pdk_soil_tyre t = utv_tyre();
    const double w = 2500.0, p = 110000.0;
    double delta = w / (2.0 * PI * p * sqrt(0.345 * 0.23 / 2.0));
    pdk_soil lete = wong(0.79, 102.0, 5301.0, 1.3, 31.1, 0.012);
    pdk_soil_contact c;
    pdk_soil_static(&lete, &t, w, &c);
    ck_assert(!c.rigid);
    ck_assert(rel_close(c.rolling_coeff, 0.12 * delta / 0.1651, 1e-12));
    const pdk_surface *sand = pdk_surface_get(PDK_SURFACE_SAND);
    pdk_soil_static(&sand->soil, &t, w, &c);
    ck_assert(c.rigid);
    ck_assert(rel_close(c.tyre_deflection_m, delta * c.critical_pressure_pa / p, 1e-12));
    ck_assert(rel_close(c.rolling_coeff, 0.12 * c.tyre_deflection_m / 0.1651, 1e-12));
    t.hysteresis = 10.0;
    pdk_soil_static(&lete, &t, w, &c);
    ck_assert_double_eq(c.rolling_coeff, 0.45);
}
END_TEST

/* The Polaris model: F = -1/2 1000 Cd_w b min(2R, h_w) |v| v. */
START_TEST(test_water_drag)
{
    const double v[2] = {3.0, -4.0};
    double f[2];
    pdk_water_drag(0.3, 0.23, 0.345, v, f);
    double k = 0.5 * 1000.0 * PDK_WATER_DRAG_COEFF * 0.23 * 0.3 * 5.0;
    ck_assert(rel_close(f[0], -k * 3.0, 1e-15) && rel_close(f[1], k * 4.0, 1e-15));
    ck_assert_double_lt(f[0] * v[0] + f[1] * v[1], 0.0);
    /* Deeper than the wheel: the wheel's height. */
    pdk_water_drag(2.0, 0.23, 0.345, v, f);
    double k2 = 0.5 * 1000.0 * PDK_WATER_DRAG_COEFF * 0.23 * 0.69 * 5.0;
    ck_assert(rel_close(f[0], -k2 * 3.0, 1e-15));
    /* Quadratic in speed. */
    const double v2[2] = {6.0, -8.0};
    double f2[2];
    pdk_water_drag(0.3, 0.23, 0.345, v2, f2);
    pdk_water_drag(0.3, 0.23, 0.345, v, f);
    ck_assert(rel_close(f2[0], 4.0 * f[0], 1e-15));
    /* Dry ground. */
    pdk_water_drag(0.0, 0.23, 0.345, v, f);
    ck_assert(f[0] == 0.0 && f[1] == 0.0);
    pdk_water_drag(-1.0, 0.23, 0.345, v, f);
    ck_assert(f[0] == 0.0 && f[1] == 0.0);
}
END_TEST

/* ---- checks ---- */

typedef struct bad_tyre {
    size_t offset;
    double value;
    const char *field;
} bad_tyre;

#define BT(f, v)                                                                                   \
    {                                                                                              \
        offsetof(pdk_soil_tyre, f), (v), "tyre.soil." #f " "                                       \
    }

START_TEST(test_soil_tyre_problems)
{
    pdk_soil_tyre ok = utv_tyre();
    ok.lug_height_m = 0.012;
    ok.lug_area_ratio = 0.35;
    ck_assert_ptr_null(pdk_soil_tyre_problem(&ok));
    ck_assert_str_eq(pdk_soil_tyre_problem(NULL), "tyre.soil is NULL");
    const bad_tyre cases[] = {
        BT(radius_m, 0.0),         BT(radius_m, NAN),       BT(radius_m, 6.0),
        BT(width_m, -0.1),         BT(width_m, INFINITY),   BT(section_height_m, 0.0),
        BT(section_height_m, 0.5), BT(inflation_pa, 0.0),   BT(inflation_pa, 2e7),
        BT(carcass_pa, -1.0),      BT(carcass_pa, NAN),     BT(lug_height_m, -0.001),
        BT(lug_height_m, 0.2),     BT(lug_area_ratio, 1.5), BT(lug_area_ratio, -0.1),
        BT(tread_k_m, -0.01),      BT(tread_k_m, 2.0),      BT(hysteresis, -1.0),
        BT(hysteresis, 11.0),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdk_soil_tyre t = ok;
        memcpy((char *)&t + cases[i].offset, &cases[i].value, sizeof(double));
        const char *msg = pdk_soil_tyre_problem(&t);
        ck_assert_msg(msg != NULL, "case %zu (%s) accepted", i, cases[i].field);
        ck_assert_msg(strncmp(msg, cases[i].field, strlen(cases[i].field)) == 0,
                      "case %zu: \"%s\" does not name %s", i, msg, cases[i].field);
    }
}
END_TEST

static Suite *surface_suite(void)
{
    Suite *s = suite_create("surface");
    TCase *table = tcase_create("table");
    tcase_add_test(table, test_table_invariants);
    tcase_add_test(table, test_table_values);
    tcase_add_test(table, test_ground_scales);
    tcase_add_test(table, test_law_friction_on_every_surface);
    suite_add_tcase(s, table);
    TCase *soil = tcase_create("soil");
    tcase_add_test(soil, test_rigid_closed_form);
    tcase_add_test(soil, test_flexible_closed_form);
    tcase_add_test(soil, test_resistance_grows_with_sinkage);
    tcase_add_test(soil, test_sinkage_limit);
    tcase_add_test(soil, test_bulldozing);
    tcase_add_test(soil, test_traction_limit);
    tcase_add_test(soil, test_janosi_thrust);
    tcase_add_test(soil, test_rolling_coeff);
    tcase_add_test(soil, test_water_drag);
    tcase_add_test(soil, test_soil_tyre_problems);
    suite_add_tcase(s, soil);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(surface_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
