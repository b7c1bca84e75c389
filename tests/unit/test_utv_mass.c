/* Unit tests for the UTV's mass model (server/sim/utv_mass.h;
 * docs/powertrain.md): the model's shipped configuration figures, conservation
 * of mass and of the first moment for every occupancy and a cargo, the inertia
 * against an independent computation about the origin (Steiner), the axle and
 * corner loads summing to the weight and balancing the pitch and roll moments,
 * the clamps, the seat order, and every check of a definition. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "def_problem_util.h"
#include "sim/utv_mass.h"

#define G 9.81
#define L 2.8702 /* the Polaris's geometry.wheelbase_m */
#define TRACK 1.31

static pdk_utv_mass_def polaris(void)
{
    pdk_utv_mass_def d = pdk_utv_mass_def_polaris();
    ck_assert_ptr_null(pdk_utv_mass_def_problem(&d));
    return d;
}

/* The Polaris model's table for the shipped configuration with one occupant:
 * 1233.0 kg, centre of mass 1.243 m forward, 0.014 m left, 0.655 m high, 43.3
 * % on the front axle, inertia 318, 1374 and 1475 kg m^2, to the digits it
 * gives. */
START_TEST(shipped_configuration_matches_the_seed)
{
    const pdk_utv_mass_def d = polaris();
    pdk_utv_mass o;
    pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &o);
    ck_assert_double_eq_tol(o.mass_kg, 1233.0, 0.05);
    ck_assert_double_eq_tol(o.cg_m[0], 1.243, 0.0005);
    ck_assert_double_eq_tol(o.cg_m[1], 0.014, 0.0005);
    ck_assert_double_eq_tol(o.cg_m[2], 0.655, 0.0005);
    ck_assert_double_eq_tol(100.0 * o.front_share, 43.3, 0.05);
    ck_assert_double_eq_tol(o.inertia_kgm2[0], 318.0, 0.5);
    ck_assert_double_eq_tol(o.inertia_kgm2[1], 1374.0, 0.5);
    ck_assert_double_eq_tol(o.inertia_kgm2[2], 1475.0, 0.5);
}
END_TEST

/* For 0..6 occupants, with and without 150 kg of cargo: the mass is the sum
 * of the parts, the centre of mass balances their first moments, the
 * inertia equals the one taken about the origin less m |cg|^2 terms
 * (Steiner, an independent sum), and the static loads sum to the weight,
 * with the pitch and roll moments about the centre of mass balanced where
 * no clamp acts. */
START_TEST(conservation_for_every_occupancy_and_cargo)
{
    for (int cargo = 0; cargo < 2; cargo++) {
        for (int n = 0; n <= PDK_UTV_SEATS; n++) {
            pdk_utv_mass_def d = polaris();
            d.occupants = n;
            d.cargo_kg = cargo ? 150.0 : 0.0;
            pdk_utv_mass o;
            pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &o);
            /* the parts, independently */
            double m[12], r[12][3];
            int k = 0;
            const double *pos[4] = {d.dry_cg_m, d.fluids_m, d.roof_m, d.bay_m};
            const double kg[4] = {d.dry_kg, d.fluids_kg, d.roof_kg, d.bay_kg};
            for (int i = 0; i < 4; i++, k++) {
                m[k] = kg[i];
                memcpy(r[k], pos[i], sizeof r[k]);
            }
            for (int s = 0; s < n; s++, k++) {
                m[k] = d.occupant_kg;
                pdk_utv_seat(&d, s, r[k]);
            }
            m[k] = d.cargo_kg;
            r[k][0] = d.cargo_x_m;
            r[k][1] = 0.0;
            r[k][2] = d.cargo_z_m;
            k++;
            double total = 0.0, first[3] = {0, 0, 0}, second[3] = {0, 0, 0};
            for (int i = 0; i < k; i++) {
                total += m[i];
                for (int j = 0; j < 3; j++) {
                    first[j] += m[i] * r[i][j];
                }
                second[0] += m[i] * (r[i][1] * r[i][1] + r[i][2] * r[i][2]);
                second[1] += m[i] * (r[i][0] * r[i][0] + r[i][2] * r[i][2]);
                second[2] += m[i] * (r[i][0] * r[i][0] + r[i][1] * r[i][1]);
            }
            ck_assert_double_eq_tol(o.mass_kg, 1148.0 + 85.0 * n + (cargo ? 150.0 : 0.0), 1e-9);
            ck_assert_double_eq_tol(o.mass_kg, total, 1e-9);
            for (int j = 0; j < 3; j++) {
                ck_assert_double_eq_tol(o.mass_kg * o.cg_m[j], first[j], 1e-9);
            }
            const double *c = o.cg_m;
            const double own[3] = {d.dry_kg * d.dry_gyration_m[0] * d.dry_gyration_m[0],
                                   d.dry_kg * d.dry_gyration_m[1] * d.dry_gyration_m[1],
                                   d.dry_kg * d.dry_gyration_m[2] * d.dry_gyration_m[2]};
            const double steiner[3] = {total * (c[1] * c[1] + c[2] * c[2]),
                                       total * (c[0] * c[0] + c[2] * c[2]),
                                       total * (c[0] * c[0] + c[1] * c[1])};
            for (int j = 0; j < 3; j++) {
                ck_assert_double_eq_tol(o.inertia_kgm2[j], own[j] + second[j] - steiner[j], 1e-7);
            }
            /* loads */
            const double *q = o.corner_load_n;
            ck_assert_double_eq_tol(q[0] + q[1] + q[2] + q[3], total * G, 1e-9);
            ck_assert_double_eq_tol(o.axle_load_n[0] + o.axle_load_n[1], total * G, 1e-9);
            /* pitch: the front axle at L, the rear at 0, about the CG */
            ck_assert_double_eq_tol(o.axle_load_n[0] * (L - c[0]), o.axle_load_n[1] * c[0], 1e-6);
            /* roll, each axle: left wheel at +T/2, right at -T/2 */
            ck_assert_double_eq_tol(q[0] * (0.5 * TRACK - c[1]), q[1] * (0.5 * TRACK + c[1]), 1e-6);
            ck_assert_double_eq_tol(q[2] * (0.5 * TRACK - c[1]), q[3] * (0.5 * TRACK + c[1]), 1e-6);
        }
    }
}
END_TEST

/* The Polaris model's example: four occupants and 150 kg of cargo
 * (-PolarisOccupants=4
 * -PolarisSet="mass.cargo_kg=150"): 1638 kg; the cargo behind the rear axle
 * and the rear seats move the weight back; the two front seats' symmetry
 * leaves only the bay off the centre line. */
START_TEST(occupants_and_cargo_move_the_centre_of_mass)
{
    pdk_utv_mass_def d = polaris();
    pdk_utv_mass one, four;
    pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &one);
    d.occupants = 4;
    d.cargo_kg = 150.0;
    pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &four);
    ck_assert_double_eq_tol(four.mass_kg, 1638.0, 1e-9);
    ck_assert(four.front_share < one.front_share);
    ck_assert(four.cg_m[2] > one.cg_m[2]);
    ck_assert(four.inertia_kgm2[1] > one.inertia_kgm2[1]);
    d.occupants = 2;
    d.cargo_kg = 0.0;
    pdk_utv_mass two;
    pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &two);
    ck_assert_double_eq_tol(two.mass_kg * two.cg_m[1], d.bay_kg * d.bay_m[1], 1e-9);
}
END_TEST

/* The seats fill driver, front right, rear left, rear right, rear centre,
 * front centre. */
START_TEST(seat_order)
{
    const pdk_utv_mass_def d = polaris();
    const double want[PDK_UTV_SEATS][2] = {{1.8, 0.36},   {1.8, -0.36}, {0.85, 0.36},
                                           {0.85, -0.36}, {0.85, 0.0},  {1.8, 0.0}};
    for (int k = 0; k < PDK_UTV_SEATS; k++) {
        double p[3];
        pdk_utv_seat(&d, k, p);
        ck_assert_double_eq(p[0], want[k][0]);
        ck_assert_double_eq(p[1], want[k][1]);
        ck_assert_double_eq(p[2], 0.95);
    }
}
END_TEST

/* A centre of mass beyond the front axle puts 95 % on it, not more; one far
 * to the left 95 % of each axle on the left wheel. */
START_TEST(load_shares_are_clamped)
{
    pdk_utv_mass_def d = polaris();
    d.dry_cg_m[0] = 4.0;
    d.dry_cg_m[1] = 2.0;
    pdk_utv_mass o;
    pdk_utv_mass_of(&d, L, TRACK, TRACK, G, &o);
    ck_assert_double_eq(o.front_share, 0.95);
    ck_assert_double_eq_tol(o.corner_load_n[0], 0.95 * o.axle_load_n[0], 1e-9);
    ck_assert_double_eq_tol(o.corner_load_n[2], 0.95 * o.axle_load_n[1], 1e-9);
}
END_TEST

static const char *const fields[] = {
    "mass.dry_kg",         "mass.dry_cg_forward_m",  "mass.dry_gyration_roll_m",
    "mass.fluids_kg",      "mass.roof_equipment_kg", "mass.bay_equipment_kg",
    "mass.occupant_kg",    "mass.occupants",         "mass.occupants",
    "mass.front_seat_x_m", "mass.cargo_kg",          "mass.cargo_x_m",
};

static void spoil(void *def, int k)
{
    pdk_utv_mass_def *m = def;
    switch (k) {
    case 0:
        m->dry_kg = 1.0;
        break;
    case 1:
        m->dry_cg_m[2] = 9.0;
        break;
    case 2:
        m->dry_gyration_m[1] = -0.1;
        break;
    case 3:
        m->fluids_m[0] = NAN;
        break;
    case 4:
        m->roof_kg = -1.0;
        break;
    case 5:
        m->bay_m[1] = 7.0;
        break;
    case 6:
        m->occupant_kg = 400.0;
        break;
    case 7:
        m->occupants = -1;
        break;
    case 8:
        m->occupants = 7;
        break;
    case 9:
        m->seat_lateral_m = -0.1;
        break;
    case 10:
        m->cargo_kg = -5.0;
        break;
    default:
        m->cargo_z_m = 9.0;
        break;
    }
}

static const char *problem(const void *def)
{
    return pdk_utv_mass_def_problem(def);
}

/* Every field out of its range is refused, the message naming it. */
START_TEST(definition_problems_name_the_field)
{
    const pdk_utv_mass_def good = polaris();
    assert_problems_name_fields(&good, sizeof good, spoil, problem, fields,
                                (int)(sizeof fields / sizeof fields[0]));
}
END_TEST

static Suite *utv_mass_suite(void)
{
    Suite *s = suite_create("utv_mass");
    TCase *tc = tcase_create("mass");
    tcase_add_test(tc, shipped_configuration_matches_the_seed);
    tcase_add_test(tc, conservation_for_every_occupancy_and_cargo);
    tcase_add_test(tc, occupants_and_cargo_move_the_centre_of_mass);
    tcase_add_test(tc, seat_order);
    tcase_add_test(tc, load_shares_are_clamped);
    tcase_add_test(tc, definition_problems_name_the_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(utv_mass_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
