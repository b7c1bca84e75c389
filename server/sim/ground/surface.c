/* The ground-material table and the tyre-on-soil relations (surface.h): one
 * row per surface id with its friction, rolling resistance, curve shape and
 * soil values, each number with its source; the static state of a tyre pressed
 * on soil (Bekker), its thrust (Janosi-Hanamoto) and the drag of a wheel in
 * water.
 *
 * Source keys:
 *  W  Wong, Theory of Ground Vehicles, ch. 3, average coefficients of road
 *     adhesion (peak and sliding);
 *  Bo Bosch Automotive Handbook rolling resistance, as Wong Table 1.1;
 *  ET engineeringtoolbox.com; C Carvill 1993; N Noon 1994 (sliding mu);
 *  T  TORCS / Speed Dreams surfaces.xml (a game calibration);
 *  Bu Burckhardt's mu(s) curves (Kiencke and Nielsen), whose slope at zero
 *     slip, c1 c2 - c3, gives the stiffness scales of wet tarmac, concrete,
 *     snow and ice relative to dry asphalt's 30.19;
 *  S Wong, Table 2.3 terrain values, converted to SI
 *     (kc kN/m^(n+1) -> N/m^(n+1), kphi kN/m^(n+2) -> N/m^(n+2), c kPa ->
 *     Pa, phi deg -> rad).
 *
 * Conventions of the table:
 *  - mu_peak is the road tyre's peak on the surface. Dry tarmac is 1.0, the
 *    modern-tyre value of W (1.0-1.2) and the friction every tyre preset
 *    quotes, so the other rows are ratios to it.
 *  - On loose ground a sliding tyre keeps nearly all of its peak: loose
 *    material piles in front of a sliding tyre. A loose figure L (gravel 0.8,
 *    mud 0.9) is read as the share of tarmac's sliding loss that the surface
 *    takes away: mu_slide / mu_peak = r + L (1 - r), with r = 0.75 / 1.0
 *    tarmac's ratio: gravel 0.95, mud and the other deformable soils (L 0.9:
 *    the Janosi shear curve has no peak) 0.975.
 *  - stiffness_scale on loose ground is 30 to 60 % below tarmac's (est.): a
 *    loose layer shears before the tread does.
 *  - On deformable rows, mu_peak is the Mohr-Coulomb traction limit (c A + W
 *    tan phi) / W of the proxy soil for a UTV wheel (W 2.5 kN, 110 kPa; A
 *    0.02-0.05 m^2 from pdk_soil_static), checked against the published ranges
 *    for the surface where there are some; rolling_coeff is the table's value
 *    for a tyre that does not run the soil model (a vehicle that does uses
 *    pdk_soil_static's resistances instead).
 *  - The soils. Sand is Wong's dry sand (LLL). Mud is a clayey soil: the Thai
 *    clay at 38 % moisture, plastic and sticky, whose traction limit (0.28 of
 *    the load) sits in the middle of the 0.2-0.4 usually quoted for mud; the
 *    55 % row is a near-liquid slurry (0.2) that a UTV could barely move in.
 *    Silt loam, the Polaris model's default soil class, has no row in Wong's
 *    table; of the loams that have one we take North Gower clayey loam (46 %):
 *    silt loam is a fine-textured loam (USDA: mostly silt, with up to about a
 *    quarter clay), and of the three loams North Gower is the fine-textured
 *    one (Rubicon sandy loam is coarse, Grenville loam at 24 % dry and firm).
 *    Its kphi lies between theirs; it has the most cohesion and the least
 *    friction angle of the three, as a finer soil does. The UTV wheel (W 2.5
 *    kN, 110 kPa) stays flexible on it and sinks 1.3 cm, with a traction limit
 *    of 0.58 of the load: a firm field. The cone-index route (Brixius) would
 *    need a cone index per cell and does not give the Bekker values the rest
 *    of the model uses.
 *  - Shear moduli K, which Wong's table does not give: loose sand 0.025 m;
 *    other soils 0.02 m (the value of Project Chrono's SCM soil table). Bulk
 *    densities are estimates: dry sand 1600, wet clay 1800, silt loam 1600
 *    kg/m^3. */
#include "ground/surface.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "math/vmath.h"
#include "sim/error.h"
#include "tyre/tyre.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define KILO 1000.0
#define GRAVITY_MPS2 9.80665

/* Bulldozing is phased in between these sinkage ratios z / D (see
 * bulldozing_weight). */
#define BULLDOZE_ONSET_Z_PER_D 0.15
#define BULLDOZE_FULL_Z_PER_D 0.25

/* The rolling coefficient never exceeds 0.45: past that a tyre is ploughing,
 * which the compaction and bulldozing terms carry. */
#define ROLLING_COEFF_MAX 0.45

/* Sliding friction of loose ground from its loose figure L (the file comment):
 * peak (r + L (1 - r)) with tarmac's ratio r = 0.75. */
#define LOOSE_SLIDE(peak, l) ((peak) * (0.75 + (l) * (1.0 - 0.75)))

static const pdk_surface surfaces[PDK_SURFACE_COUNT] = {
    [PDK_SURFACE_TARMAC] = {.name = "tarmac",
                            .mu_peak = 1.0,
                            .mu_slide = 0.75,
                            .rolling_coeff = 0.011,
                            .stiffness_scale = 1.0},
    [PDK_SURFACE_TARMAC_WET] = {.name = "tarmacWet",
                                .mu_peak = 0.7,
                                .mu_slide = 0.5,
                                .rolling_coeff = 0.015,
                                .stiffness_scale = 0.95},
    [PDK_SURFACE_CONCRETE] = {.name = "concrete",
                              .mu_peak = 0.95,
                              .mu_slide = 0.75,
                              .rolling_coeff = 0.011,
                              .stiffness_scale = 0.98},
    [PDK_SURFACE_GRAVEL] = {.name = "gravel",
                            .mu_peak = 0.45,
                            .mu_slide = LOOSE_SLIDE(0.45, 0.8),
                            .rolling_coeff = 0.06,
                            .stiffness_scale = 0.55,
                            .loose = 1},
    [PDK_SURFACE_DIRT] = {.name = "dirt",
                          .mu_peak = 0.68,
                          .mu_slide = 0.65,
                          .rolling_coeff = 0.05,
                          .stiffness_scale = 0.7},
    [PDK_SURFACE_GRASS] = {.name = "grass",
                           .mu_peak = 0.45,
                           .mu_slide = 0.38,
                           .rolling_coeff = 0.08,
                           .stiffness_scale = 0.6},
    [PDK_SURFACE_MUD] = {.name = "mud",
                         .mu_peak = 0.28,
                         .mu_slide = LOOSE_SLIDE(0.28, 0.9),
                         .rolling_coeff = 0.2,
                         .stiffness_scale = 0.4,
                         .loose = 1,
                         .deformable = 1,
                         .soil = {.n = 0.5,
                                  .kc = 13.19 * KILO,
                                  .kphi = 692.15 * KILO,
                                  .cohesion_pa = 4.14 * KILO,
                                  .phi_rad = 13.0 * DEG,
                                  .shear_k_m = 0.02,
                                  .density_kgpm3 = 1800.0}},
    [PDK_SURFACE_SNOW] = {.name = "snow",
                          .mu_peak = 0.2,
                          .mu_slide = 0.15,
                          .rolling_coeff = 0.03,
                          .stiffness_scale = 0.6},
    [PDK_SURFACE_ICE] = {.name = "ice",
                         .mu_peak = 0.1,
                         .mu_slide = 0.07,
                         .rolling_coeff = 0.015,
                         .stiffness_scale = 0.5},
    [PDK_SURFACE_SAND] = {.name = "sand",
                          .mu_peak = 0.55,
                          .mu_slide = LOOSE_SLIDE(0.55, 0.9),
                          .rolling_coeff = 0.15,
                          .stiffness_scale = 0.4,
                          .loose = 1,
                          .deformable = 1,
                          .soil = {.n = 1.1,
                                   .kc = 0.99 * KILO,
                                   .kphi = 1528.43 * KILO,
                                   .cohesion_pa = 1.04 * KILO,
                                   .phi_rad = 28.0 * DEG,
                                   .shear_k_m = 0.025,
                                   .density_kgpm3 = 1600.0}},
    [PDK_SURFACE_SILT_LOAM] = {.name = "siltLoam",
                               .mu_peak = 0.55,
                               .mu_slide = LOOSE_SLIDE(0.55, 0.9),
                               .rolling_coeff = 0.1,
                               .stiffness_scale = 0.5,
                               .loose = 1,
                               .deformable = 1,
                               .soil = {.n = 0.73,
                                        .kc = 41.6 * KILO,
                                        .kphi = 2471.0 * KILO,
                                        .cohesion_pa = 6.1 * KILO,
                                        .phi_rad = 26.6 * DEG,
                                        .shear_k_m = 0.02,
                                        .density_kgpm3 = 1600.0}},
};

static const char *const sources[PDK_SURFACE_COUNT] = {
    [PDK_SURFACE_TARMAC] =
        "Dry asphalt, the reference: peak 1.0 (W, modern tyres 1.0-1.2), sliding 0.75 (W), "
        "rolling 0.011 (Bo, concrete/asphalt), stiffness 1 by definition.",
    [PDK_SURFACE_TARMAC_WET] =
        "Wet asphalt: peak 0.7 (W 0.5-0.7; Bu wet/dry peak 0.68), sliding 0.5 (W 0.45-0.6, N "
        "0.50), rolling 0.015 (W, Bo 0.012-0.02), stiffness 0.95 (Bu slope 28.64 / 30.19).",
    [PDK_SURFACE_CONCRETE] =
        "Dry concrete: peak 0.95 (Bu dry concrete/asphalt peak 1.09 / 1.17, within W's shared "
        "row), sliding 0.75 (W's shared asphalt/concrete value; N puts concrete above asphalt, "
        "Bu below), rolling 0.011 (Bo), stiffness 0.98 (Bu slope 29.60 / 30.19).",
    [PDK_SURFACE_GRAVEL] =
        "Loose gravel: peak 0.45 (N, C, ET 0.35-0.5), sliding 0.43 (loose 0.8: 0.95 of "
        "the peak, within 0.3-0.45), rolling 0.06 (C, ET 0.04-0.08), stiffness 0.55 (est., 30-60 "
        "% below tarmac).",
    [PDK_SURFACE_DIRT] =
        "Dry dirt road: peak 0.68 and sliding 0.65 (W), rolling 0.05 (Bo, unpaved road), "
        "stiffness 0.7 (est., compact ground at the soft end's 30 %).",
    [PDK_SURFACE_GRASS] =
        "Dry grass or turf: peak 0.45 (est. 0.35-0.55; T 0.4), sliding 0.38 (0.3-0.45), rolling "
        "0.08 (T), stiffness 0.6 (est.).",
    [PDK_SURFACE_MUD] =
        "Mud: soil of Wong's clayey soil at 38 % moisture (Thailand; S), K 0.02 m; peak 0.28 = "
        "its traction limit for the UTV example (0.2-0.4 quoted for mud), sliding 0.27 ("
        "loose 0.9: 0.975 of the peak), rolling 0.2 (Bo field 0.1-0.35), stiffness 0.4 (est.).",
    [PDK_SURFACE_SNOW] =
        "Packed snow, a hard surface (fresh snow would be a soil): peak 0.2 (W, N; Bu 0.19), "
        "sliding 0.15 (W), rolling 0.03 (0.02-0.05), stiffness 0.6 (Bu slope 18.25 / 30.19).",
    [PDK_SURFACE_ICE] =
        "Ice: peak 0.1 (W; wet ice at 0 C about 0.05, Bu), sliding 0.07 (W), rolling 0.015 "
        "(0.01-0.02), stiffness 0.5 (Bu slope 15.32 / 30.19).",
    [PDK_SURFACE_SAND] =
        "Loose dry sand: soil of Wong's dry sand (LLL; S), K 0.025 m (loose sand); peak 0.55 = "
        "its traction limit for the UTV example (C, ET, T 0.5-0.6), sliding 0.54 (0.975 of the "
        "peak as mud: shear-limited, no peak), rolling 0.15 (C, ET 0.1-0.4; T 0.12), stiffness "
        "0.4 (est.).",
    [PDK_SURFACE_SILT_LOAM] =
        "Silt loam, the Polaris model's default soil class, which Wong's table lacks: soil of "
        "North Gower "
        "clayey loam at 46 % (S), the fine-textured loam between Grenville loam (dry, firm) and "
        "Rubicon sandy loam (coarse), K 0.02 m; peak 0.55 = its traction limit for the UTV "
        "example, sliding 0.54 (0.975 of the peak: no peak), rolling 0.1 (Bo field, firm end), "
        "stiffness 0.5 (est.).",
};

const pdk_surface *pdk_surface_get(int id)
{
    if (id < 0 || id >= PDK_SURFACE_COUNT) {
        return NULL;
    }
    return &surfaces[id];
}

int pdk_surface_by_name(const char *name)
{
    if (name == NULL) {
        return -1;
    }
    for (int i = 0; i < PDK_SURFACE_COUNT; i++) {
        if (strcmp(surfaces[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

const char *pdk_surface_source(int id)
{
    if (id < 0 || id >= PDK_SURFACE_COUNT) {
        return NULL;
    }
    return sources[id];
}

void pdk_surface_ground(int id, double tyre_grip, struct pdk_tyre_ground *out)
{
    const pdk_surface *s = pdk_surface_get(id);
    PDK_ASSERT(s != NULL);
    const pdk_surface *ref = &surfaces[PDK_SURFACE_TARMAC];
    out->grip = s->mu_peak / ref->mu_peak * tyre_grip;
    out->stiffness = s->stiffness_scale;
    out->slide = (s->mu_slide / s->mu_peak) / (ref->mu_slide / ref->mu_peak);
}

/* ---- the tyre on soil ---- */

const char *pdk_soil_tyre_problem(const pdk_soil_tyre *t)
{
    if (t == NULL) {
        return "tyre.soil is NULL";
    }
    if (!isfinite(t->radius_m) || !(t->radius_m > 0.0) || t->radius_m > 5.0) {
        return "tyre.soil.radius_m must be above 0 and at most 5 m";
    }
    if (!isfinite(t->width_m) || !(t->width_m > 0.0) || t->width_m > 5.0) {
        return "tyre.soil.width_m must be above 0 and at most 5 m";
    }
    if (!isfinite(t->section_height_m) || !(t->section_height_m > 0.0) ||
        !(t->section_height_m < t->radius_m)) {
        return "tyre.soil.section_height_m must be above 0 and below radius_m";
    }
    if (!isfinite(t->inflation_pa) || !(t->inflation_pa > 0.0) || t->inflation_pa > 1.0e7) {
        return "tyre.soil.inflation_pa must be above 0 and at most 1e7 Pa";
    }
    if (!isfinite(t->carcass_pa) || t->carcass_pa < 0.0 || t->carcass_pa > 1.0e7) {
        return "tyre.soil.carcass_pa must be within 0..1e7 Pa";
    }
    if (!isfinite(t->lug_height_m) || t->lug_height_m < 0.0 ||
        !(t->lug_height_m < t->section_height_m)) {
        return "tyre.soil.lug_height_m must be at least 0 and below section_height_m";
    }
    if (!isfinite(t->lug_area_ratio) || t->lug_area_ratio < 0.0 || t->lug_area_ratio > 1.0) {
        return "tyre.soil.lug_area_ratio must be within 0..1";
    }
    if (!isfinite(t->tread_k_m) || t->tread_k_m < 0.0 || t->tread_k_m > 1.0) {
        return "tyre.soil.tread_k_m must be within 0..1 m";
    }
    if (!isfinite(t->hysteresis) || t->hysteresis < 0.0 || t->hysteresis > 10.0) {
        return "tyre.soil.hysteresis must be within 0..10";
    }
    return NULL;
}

/* Bekker's bulldozing resistance (Wong, Theory of Ground Vehicles, ch. 2):
 *   Rb = b sin(a + phi) / (2 sin a cos phi) (2 z c Kc + gs z^2 Kg)
 *        + (l0^3 gs / 3)(pi/2 - phi) + c l0^2 (1 + tan(pi/4 + phi/2))
 * with a = acos(1 - 2 z / D), l0 = z tan^2(pi/4 - phi/2), Kc = (Nc - tan
 * phi) cos^2 phi, Kg = (2 Ng / tan phi + 1) cos^2 phi and gs the soil's
 * unit weight. Terzaghi's bearing-capacity factors as Bekker used them:
 * Nq = exp((3 pi/2 - phi) tan phi) / (2 cos^2(pi/4 + phi/2)),
 * Nc = (Nq - 1) / tan phi (3 pi/2 + 1 at phi = 0), Ng = 2 (Nq + 1) tan phi,
 * so 2 Ng / tan phi = 4 (Nq + 1) stays finite at phi = 0. Half-angle forms
 * avoid acos and tan: with x = cos a = 1 - 2 z / D,
 * sin(a + phi) / (2 sin a cos phi) = 1/2 + x tan phi / (2 sin a),
 * tan^2(pi/4 - phi/2) = (1 - sin phi) / (1 + sin phi),
 * tan(pi/4 + phi/2) = (1 + sin phi) / cos phi, and
 * 2 cos^2(pi/4 + phi/2) = 1 - sin phi. */
static double bulldozing_formula_n(const pdk_soil *soil, double b, double d, double z)
{
    double phi = soil->phi_rad;
    double sphi = pdk_sin(phi);
    double cphi = pdk_cos(phi);
    double tphi = sphi / cphi;
    double x = 1.0 - 2.0 * z / d;
    if (x < 0.0) {
        x = 0.0; /* sunk past the axle: the face is vertical */
    }
    double sa = sqrt(1.0 - x * x);
    double wedge = 0.5 + x * tphi / (2.0 * sa);
    double nq = pdk_exp((1.5 * PI - phi) * tphi) / (1.0 - sphi);
    double nc = phi > 1.0e-6 ? (nq - 1.0) / tphi : 1.5 * PI + 1.0;
    double kc = (nc - tphi) * cphi * cphi;
    double kg = (4.0 * (nq + 1.0) + 1.0) * cphi * cphi;
    double gs = soil->density_kgpm3 * GRAVITY_MPS2;
    double c = soil->cohesion_pa;
    double l0 = z * (1.0 - sphi) / (1.0 + sphi);
    return b * wedge * (2.0 * z * c * kc + gs * z * z * kg) +
           l0 * l0 * l0 * gs / 3.0 * (0.5 * PI - phi) + c * l0 * l0 * (1.0 + (1.0 + sphi) / cphi);
}

/* The share of the bulldozing formula that applies at sinkage ratio z / D. The
 * formula's wedge factor grows as 1 / sin a ~ sqrt(D / z) as the sinkage
 * shrinks, so on its own it would make Rb rise like sqrt(z) from zero and
 * exceed the compaction resistance tenfold at a couple of centimetres (dry
 * sand, UTV wheel), which no field measurement shows: at shallow sinkage the
 * soil under the front arc is compacted, not pushed ahead (the wheel climbs
 * over it), and the compaction closed forms hold up to z / D of about 0.15
 * (Wong, ch. 2). Bulldozing is therefore phased in with a smoothstep from z /
 * D = 0.15, where those closed forms stop, to 0.25, where the sunk wheel
 * pushes a bow wave (our choice, est.: bulldozing matters only when the
 * sinkage is large). */
static double bulldozing_weight(double z_per_d)
{
    double t =
        (z_per_d - BULLDOZE_ONSET_Z_PER_D) / (BULLDOZE_FULL_Z_PER_D - BULLDOZE_ONSET_Z_PER_D);
    if (!(t > 0.0)) {
        return 0.0;
    }
    if (t >= 1.0) {
        return 1.0;
    }
    return t * t * (3.0 - 2.0 * t);
}

double pdk_soil_bulldozing_n(const pdk_soil *soil, double width_m, double diameter_m,
                             double sinkage_m)
{
    if (!(sinkage_m > 0.0)) {
        return 0.0;
    }
    double w = bulldozing_weight(sinkage_m / diameter_m);
    if (w == 0.0) {
        return 0.0;
    }
    return w * bulldozing_formula_n(soil, width_m, diameter_m, sinkage_m);
}

double pdk_soil_compaction_n(const pdk_soil *soil, double width_m, double sinkage_m)
{
    /* Compaction: the work of pressing a rut of depth z per unit length, Rc =
     * b k z^(n+1) / (n+1), p = k z^n being Bekker's pressure-sinkage law
     * (both of Bekker's closed forms, Wong, ch. 2: in flexible mode k z^n =
     * p_g gives b p_g^((n+1)/n) / ((n+1) k^(1/n))). */
    if (!(sinkage_m > 0.0)) {
        return 0.0;
    }
    double n = soil->n;
    double k = soil->kc / width_m + soil->kphi;
    return width_m * k * pdk_pow(sinkage_m, n + 1.0) / (n + 1.0);
}

void pdk_soil_static(const pdk_soil *soil, const pdk_soil_tyre *tyre, double load_n,
                     pdk_soil_contact *out)
{
    memset(out, 0, sizeof *out);
    PDK_ASSERT(soil->n > 0.0 && soil->n < 3.0);
    PDK_ASSERT(tyre->width_m > 0.0 && tyre->radius_m > 0.0);
    if (!(load_n > 0.0)) {
        return;
    }
    double n = soil->n;
    double b = tyre->width_m;
    double r = tyre->radius_m;
    double d = 2.0 * r;
    double k = soil->kc / b + soil->kphi; /* Bekker: p = (kc / b + kphi) z^n */
    double p_tyre = tyre->inflation_pa + tyre->carcass_pa;

    /* Rigid wheel (Bekker; Wong, ch. 2): z0 = [3 W / ((3 - n) b sqrt(D) k)]^(2
     * / (2n + 1)), and the pressure under it, p_gcr = k z0^n, which is the
     * closed form k^(1/(2n+1)) [3 W / ((3 - n) b sqrt(D))]^(2n/(2n+1)). */
    double w3 = 3.0 * load_n / ((3.0 - n) * b * sqrt(d));
    double z_rigid = pdk_pow(w3 / k, 2.0 / (2.0 * n + 1.0));
    double p_gcr = k * pdk_pow(z_rigid, n);
    out->critical_pressure_pa = p_gcr;

    /* The inflated membrane (Wong, Theory of Ground Vehicles, ch. 2): on a
     * flat ground it carries the load at p_i + p_c over A = N / (p_i + p_c),
     * deflected by delta = A / (2 pi sqrt(R b / 2)) = N / k_tyre. */
    double membrane_a = p_tyre > 0.0 ? load_n / p_tyre : 0.0;
    double membrane_delta = membrane_a / (2.0 * PI * sqrt(r * b / 2.0));
    if (membrane_delta > r) {
        membrane_delta = r;
    }

    double z;
    double deflection;
    out->rigid = !(p_tyre < p_gcr);
    if (out->rigid) {
        /* Stiffer than the soil: the tyre sinks like a rigid wheel and
         * hardly flattens. Its deflection is the membrane's scaled by
         * p_gcr / (p_i + p_c), the share of its own pressure the soil can
         * push back with: equal to the flexible value at the switch, zero
         * for a tyre far stiffer than the soil. */
        z = z_rigid;
        deflection = p_tyre > 0.0 ? membrane_delta * (p_gcr / p_tyre) : 0.0;
    } else {
        /* Flexible: the flattened tyre presses the soil at p_g = p_i + p_c,
         * z = (p_g / k)^(1/n). */
        z = pdk_pow(p_tyre / k, 1.0 / n);
        deflection = membrane_delta;
    }
    if (z > PDK_SOIL_SINKAGE_LIMIT_M) {
        z = PDK_SOIL_SINKAGE_LIMIT_M; /* a firm layer below carries the rest */
    }
    out->sinkage_m = z;
    out->tyre_deflection_m = deflection;

    if (out->rigid) {
        /* The front arc from the lowest point to where the wheel enters the
         * soil: its chord is sqrt(2 R z - z^2 + z^2) = sqrt(D z). */
        out->contact_length_m = sqrt(d * z);
        out->contact_area_m2 = b * out->contact_length_m;
        out->ground_pressure_pa = load_n / out->contact_area_m2;
    } else {
        /* The membrane's patch: area N / p_g, length that of the intersection
         * ellipse, 2 sqrt(2 R delta - delta^2) (the exact chord of a
         * circle). */
        out->contact_area_m2 = membrane_a;
        out->contact_length_m =
            2.0 * sqrt(2.0 * r * membrane_delta - membrane_delta * membrane_delta);
        out->ground_pressure_pa = p_tyre;
    }

    /* The rut's resistances at the static sinkage. */
    out->compaction_n = pdk_soil_compaction_n(soil, b, z);
    out->bulldozing_n = pdk_soil_bulldozing_n(soil, b, d, z);

    /* The carcass's hysteresis over its relative deflection, f = h delta_t /
     * h_s, at most 0.45. */
    double f =
        tyre->section_height_m > 0.0 ? tyre->hysteresis * deflection / tyre->section_height_m : 0.0;
    out->rolling_coeff = f < ROLLING_COEFF_MAX ? f : ROLLING_COEFF_MAX;

    /* Mohr-Coulomb limit of the shear under the patch, c A + N tan phi (Wong,
     * ch. 2), and the lugs (tyre.soil lug height and area ratio): a lug drags
     * a slab of soil and shears it on its base and on its two vertical sides,
     * h_l deep. With the sides carrying the base's shear stress, the shearing
     * area grows from b l to (b + 2 h_l) l, the factor (1 + 2 h / b) of
     * Bekker's grousered track (Wong, ToGV ch. 2; recalled, not re-read). Only
     * the share r_l of the patch that the lugs fill drags a slab, so the
     * factor here is (1 + 2 h_l r_l / b): 1.04 for the UTV's 12 mm lugs at
     * 0.35. The tread's compliance enters the thrust's K instead
     * (tread_k_m). */
    double base = soil->cohesion_pa * out->contact_area_m2 +
                  load_n * pdk_sin(soil->phi_rad) / pdk_cos(soil->phi_rad);
    out->traction_limit_n = base * (1.0 + 2.0 * tyre->lug_height_m * tyre->lug_area_ratio / b);
}

/* 1 - (1 - exp(-x)) / x for x >= 0, without the cancellation near 0: below
 * x = 0.01 its series x/2 - x^2/6 + x^3/24 - x^4/120 + x^5/720, whose next
 * term, x^6 / 5040, is below 1e-16 of the value there. */
static double janosi_shape(double x)
{
    if (x < 0.01) {
        return x * (1.0 / 2.0 -
                    x * (1.0 / 6.0 - x * (1.0 / 24.0 - x * (1.0 / 120.0 - x * (1.0 / 720.0)))));
    }
    return 1.0 - (1.0 - pdk_exp(-x)) / x;
}

double pdk_soil_thrust_n(const pdk_soil *soil, const pdk_soil_tyre *tyre,
                         const pdk_soil_contact *contact, double slip)
{
    double s = fabs(slip);
    if (s > 1.0) {
        s = 1.0;
    }
    double kk = soil->shear_k_m + tyre->tread_k_m;
    double l = contact->contact_length_m;
    if (!(s > 0.0) || !(l > 0.0) || !(kk > 0.0) || !(contact->traction_limit_n > 0.0)) {
        return 0.0;
    }
    double f = contact->traction_limit_n * janosi_shape(s * l / kk);
    return slip < 0.0 ? -f : f;
}

void pdk_water_drag(double depth_m, double width_m, double radius_m, const double v_mps[2],
                    double out_n[2])
{
    out_n[0] = 0.0;
    out_n[1] = 0.0;
    if (!(depth_m > 0.0)) {
        return;
    }
    double h = depth_m < 2.0 * radius_m ? depth_m : 2.0 * radius_m;
    double area = width_m * h;
    double speed = sqrt(v_mps[0] * v_mps[0] + v_mps[1] * v_mps[1]);
    double k = -0.5 * 1000.0 * PDK_WATER_DRAG_COEFF * area * speed;
    out_n[0] = k * v_mps[0];
    out_n[1] = k * v_mps[1];
}
