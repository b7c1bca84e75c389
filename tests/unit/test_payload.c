/* Unit tests for a car's payload (server/sim/payload.h; issue 5): the
 * driver alone leaves a chassis as given to the bit; occupants and cargo
 * give the mass, centre of mass and inertias of an independent sum taken
 * about the origin (Steiner); taking the driver away and seating one again
 * where the driver sat gives the chassis back; a lateral offset counts in
 * the inertias and stays out of the chassis; and every check of a
 * definition and of a chassis that cannot carry it. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "def_problem_util.h"
#include "sim/payload.h"

/* A chassis with its driver: 1000 kg, 2.5 m between the axles, the centre
 * of mass 1.5 m ahead of the rear axle and 0.5 m up. */
static pdk_chassis_def chassis(void)
{
    pdk_chassis_def c;
    memset(&c, 0, sizeof c);
    c.mass_kg = 1000.0;
    c.roll_inertia_kgm2 = 400.0;
    c.pitch_inertia_kgm2 = 1500.0;
    c.yaw_inertia_kgm2 = 1600.0;
    c.wheelbase_m = 2.5;
    c.cg_to_front_axle_m = 1.0;
    c.cg_height_m = 0.5;
    c.track_width_m = 1.5;
    c.angular_damping_per_s = 0.05;
    return c;
}

/* Four seats, the driver's front left; a boot behind the rear axle that
 * takes 200 kg. */
static pdk_payload_def four_seats(void)
{
    pdk_payload_def p = pdk_payload_def_default();
    const double seats[4][3] = {
        {1.5, 0.4, 0.7}, {1.5, -0.4, 0.7}, {0.5, 0.4, 0.75}, {0.5, -0.4, 0.75}};
    p.occupant_kg = 80.0;
    p.n_seats = 4;
    memcpy(p.seat_m, seats, sizeof seats);
    p.cargo_max_kg = 200.0;
    p.cargo_m[0] = -0.5;
    p.cargo_m[2] = 0.6;
    ck_assert_ptr_null(pdk_payload_def_problem(&p));
    return p;
}

/* The reference: the parts' (the body with its own inertia, then point
 * masses, negative for one taken away) inertia about the origin, less the
 * whole mass' about it at the centre of mass: a different route from the
 * module's sum about the new centre of mass. */
typedef struct part {
    double kg;
    double r[3];
} part;

static void reference(const pdk_chassis_def *c, const part *parts, int n, pdk_payload_mass *out)
{
    const double body[3] = {c->wheelbase_m - c->cg_to_front_axle_m, 0.0, c->cg_height_m};
    double total = c->mass_kg, first[3], origin[3];
    origin[0] = c->roll_inertia_kgm2 + c->mass_kg * (body[1] * body[1] + body[2] * body[2]);
    origin[1] = c->pitch_inertia_kgm2 + c->mass_kg * (body[0] * body[0] + body[2] * body[2]);
    origin[2] = c->yaw_inertia_kgm2 + c->mass_kg * (body[0] * body[0] + body[1] * body[1]);
    for (int j = 0; j < 3; j++) {
        first[j] = c->mass_kg * body[j];
    }
    for (int i = 0; i < n; i++) {
        const double *r = parts[i].r;
        total += parts[i].kg;
        for (int j = 0; j < 3; j++) {
            first[j] += parts[i].kg * r[j];
        }
        origin[0] += parts[i].kg * (r[1] * r[1] + r[2] * r[2]);
        origin[1] += parts[i].kg * (r[0] * r[0] + r[2] * r[2]);
        origin[2] += parts[i].kg * (r[0] * r[0] + r[1] * r[1]);
    }
    double *g = out->cg_m;
    for (int j = 0; j < 3; j++) {
        g[j] = first[j] / total;
    }
    out->mass_kg = total;
    out->inertia_kgm2[0] = origin[0] - total * (g[1] * g[1] + g[2] * g[2]);
    out->inertia_kgm2[1] = origin[1] - total * (g[0] * g[0] + g[2] * g[2]);
    out->inertia_kgm2[2] = origin[2] - total * (g[0] * g[0] + g[1] * g[1]);
}

static void assert_mass_eq(const pdk_payload_mass *a, const pdk_payload_mass *b)
{
    ck_assert_double_eq_tol(a->mass_kg, b->mass_kg, 1e-9);
    for (int j = 0; j < 3; j++) {
        ck_assert_double_eq_tol(a->cg_m[j], b->cg_m[j], 1e-12);
        ck_assert_double_eq_tol(a->inertia_kgm2[j], b->inertia_kgm2[j], 1e-9);
    }
}

/* The driver alone, with or without seats and a load space, leaves the
 * chassis exactly as given; so does an occupant or cargo of no mass. */
START_TEST(the_driver_alone_leaves_the_chassis_as_given)
{
    const pdk_chassis_def given = chassis();
    pdk_payload_def cases[4] = {pdk_payload_def_default(), four_seats(), four_seats(),
                                four_seats()};
    cases[2].occupant_kg = 0.0;
    cases[2].occupants = 4;
    cases[3].occupant_kg = 0.0;
    cases[3].occupants = 0;
    for (int k = 0; k < 4; k++) {
        pdk_chassis_def c = given;
        ck_assert_int_eq(pdk_payload_apply(&c, &cases[k]), PDK_OK);
        ck_assert_int_eq(memcmp(&c, &given, sizeof c), 0);
        pdk_payload_mass m;
        pdk_payload_of(&given, &cases[k], &m);
        ck_assert_double_eq(m.mass_kg, 1000.0);
        ck_assert_double_eq(m.cg_m[0], 1.5);
        ck_assert_double_eq(m.cg_m[2], 0.5);
        ck_assert_double_eq(m.inertia_kgm2[2], 1600.0);
    }
    const pdk_payload_def d = pdk_payload_def_default();
    ck_assert_double_eq(d.occupant_kg, 85.0);
    ck_assert_int_eq(d.occupants, 1);
    ck_assert_int_eq(d.n_seats, 0);
    ck_assert_double_eq(d.cargo_kg, 0.0);
    ck_assert_double_eq(d.cargo_max_kg, 0.0);
}
END_TEST

/* Three occupants (two beyond the driver, in seats 2 and 3) and 100 kg of
 * cargo: 1260 kg, the first moments balanced (1610 kg m forward of the
 * rear axle, 676 kg m up, the two added occupants' y cancelling), and the
 * inertias of the reference; the chassis takes them, its track, wheelbase
 * and damping untouched. */
START_TEST(occupants_and_cargo_add_their_parallel_axis_terms)
{
    const pdk_chassis_def given = chassis();
    pdk_payload_def p = four_seats();
    p.occupants = 3;
    p.cargo_kg = 100.0;
    pdk_payload_mass got, want;
    pdk_payload_of(&given, &p, &got);
    const part parts[] = {
        {80.0, {1.5, -0.4, 0.7}}, {80.0, {0.5, 0.4, 0.75}}, {100.0, {-0.5, 0.0, 0.6}}};
    reference(&given, parts, 3, &want);
    assert_mass_eq(&got, &want);
    ck_assert_double_eq_tol(got.mass_kg, 1260.0, 1e-12);
    ck_assert_double_eq_tol(got.cg_m[0], 1610.0 / 1260.0, 1e-15);
    ck_assert_double_eq_tol(got.cg_m[1], 0.0, 1e-15);
    ck_assert_double_eq_tol(got.cg_m[2], 676.0 / 1260.0, 1e-15);
    /* Heavier at the back and low: more pitch and yaw inertia. */
    ck_assert(got.inertia_kgm2[1] > given.pitch_inertia_kgm2);
    ck_assert(got.inertia_kgm2[2] > given.yaw_inertia_kgm2);

    pdk_chassis_def c = given;
    ck_assert_int_eq(pdk_payload_apply(&c, &p), PDK_OK);
    ck_assert_double_eq(c.mass_kg, got.mass_kg);
    ck_assert_double_eq(c.roll_inertia_kgm2, got.inertia_kgm2[0]);
    ck_assert_double_eq(c.pitch_inertia_kgm2, got.inertia_kgm2[1]);
    ck_assert_double_eq(c.yaw_inertia_kgm2, got.inertia_kgm2[2]);
    ck_assert_double_eq(c.cg_to_front_axle_m, 2.5 - got.cg_m[0]);
    ck_assert_double_eq(c.cg_height_m, got.cg_m[2]);
    ck_assert_double_eq(c.wheelbase_m, 2.5);
    ck_assert_double_eq(c.track_width_m, 1.5);
    ck_assert_double_eq(c.angular_damping_per_s, 0.05);
}
END_TEST

/* No occupant takes the driver away from the first seat: 920 kg, as the
 * reference has it. Seating one again where the driver sat (a chassis
 * without its driver, its first seat anywhere, its second the driver's)
 * gives the chassis back, when the driver sits on the centre line (a
 * single-seater's): off it, the chassis without the driver would have
 * kept its centre of mass off the centre line, which it does not. */
START_TEST(taking_the_driver_away_is_the_inverse_of_seating_one)
{
    const pdk_chassis_def given = chassis();
    pdk_payload_def p = four_seats();
    p.occupants = 0;
    pdk_payload_mass got, want;
    pdk_payload_of(&given, &p, &got);
    const part driver_out[] = {{-80.0, {1.5, 0.4, 0.7}}};
    reference(&given, driver_out, 1, &want);
    assert_mass_eq(&got, &want);
    ck_assert_double_eq_tol(got.mass_kg, 920.0, 1e-12);

    p.seat_m[0][1] = 0.0;
    pdk_chassis_def empty = given;
    ck_assert_int_eq(pdk_payload_apply(&empty, &p), PDK_OK);
    pdk_payload_def back = four_seats();
    back.occupants = 2;
    memcpy(back.seat_m[1], p.seat_m[0], sizeof back.seat_m[1]);
    pdk_chassis_def again = empty;
    ck_assert_int_eq(pdk_payload_apply(&again, &back), PDK_OK);
    ck_assert_double_eq_tol(again.mass_kg, given.mass_kg, 1e-9);
    ck_assert_double_eq_tol(again.cg_to_front_axle_m, given.cg_to_front_axle_m, 1e-12);
    ck_assert_double_eq_tol(again.cg_height_m, given.cg_height_m, 1e-12);
    ck_assert_double_eq_tol(again.roll_inertia_kgm2, given.roll_inertia_kgm2, 1e-9);
    ck_assert_double_eq_tol(again.pitch_inertia_kgm2, given.pitch_inertia_kgm2, 1e-9);
    ck_assert_double_eq_tol(again.yaw_inertia_kgm2, given.yaw_inertia_kgm2, 1e-9);
    ck_assert(empty.mass_kg == 920.0 && empty.roll_inertia_kgm2 < given.roll_inertia_kgm2);
}
END_TEST

/* One passenger on the right: the centre of mass moves right, which the
 * four-wheel chassis does not keep (its centre of mass is on the centre
 * line), and the roll and yaw inertias count the offset about the true
 * centre of mass. */
START_TEST(a_lateral_offset_counts_in_the_inertias_only)
{
    const pdk_chassis_def given = chassis();
    pdk_payload_def p = four_seats();
    p.occupants = 2;
    pdk_payload_mass got, want;
    pdk_payload_of(&given, &p, &got);
    const part parts[] = {{80.0, {1.5, -0.4, 0.7}}};
    reference(&given, parts, 1, &want);
    assert_mass_eq(&got, &want);
    ck_assert_double_eq_tol(got.cg_m[1], -32.0 / 1080.0, 1e-15);
    /* About the true centre of mass: the passenger at 0.4 - 0.0296 m, the
     * body at 0.0296 m. */
    const double y = 32.0 / 1080.0, dz_body = 0.5 - got.cg_m[2], dz_p = 0.7 - got.cg_m[2];
    const double roll =
        400.0 + 1000.0 * (y * y + dz_body * dz_body) + 80.0 * ((0.4 - y) * (0.4 - y) + dz_p * dz_p);
    ck_assert_double_eq_tol(got.inertia_kgm2[0], roll, 1e-9);
    pdk_chassis_def c = given;
    ck_assert_int_eq(pdk_payload_apply(&c, &p), PDK_OK);
    ck_assert_double_eq(c.roll_inertia_kgm2, got.inertia_kgm2[0]);
}
END_TEST

/* A chassis that cannot carry the payload is refused and left alone: the
 * driver taken from a lighter chassis, a load that puts the centre of mass
 * behind the rear axle, a driver whose removal leaves a negative roll
 * inertia (a chassis given with too little), NULL. */
START_TEST(a_chassis_that_cannot_carry_it_is_refused)
{
    pdk_chassis_def light = chassis();
    light.mass_kg = 60.0;
    pdk_payload_def p = four_seats();
    p.occupants = 0;
    const char *why = pdk_payload_problem(&light, &p);
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "chassis.mass"));
    pdk_chassis_def c = light;
    ck_assert_int_eq(pdk_payload_apply(&c, &p), PDK_ERR_OUT_OF_RANGE);
    ck_assert_int_eq(memcmp(&c, &light, sizeof c), 0);

    pdk_payload_def far = four_seats();
    far.cargo_max_kg = 1e4;
    far.cargo_kg = 5000.0;
    far.cargo_m[0] = -5.0;
    const pdk_chassis_def given = chassis();
    why = pdk_payload_problem(&given, &far);
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "between the axles"));

    pdk_chassis_def thin = chassis();
    thin.mass_kg = 200.0;
    thin.roll_inertia_kgm2 = 1.0;
    why = pdk_payload_problem(&thin, &p);
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "inertias"));

    ck_assert_ptr_nonnull(pdk_payload_problem(NULL, &p));
    ck_assert_ptr_nonnull(pdk_payload_problem(&given, NULL));
    ck_assert_int_eq(pdk_payload_apply(NULL, &p), PDK_ERR_INVALID_ARGUMENT);
    c = given;
    ck_assert_int_eq(pdk_payload_apply(&c, NULL), PDK_ERR_INVALID_ARGUMENT);
    /* A chassis that sim refuses on its own is not the payload's to judge
     * when nothing is added. */
    pdk_chassis_def odd = chassis();
    odd.cg_to_front_axle_m = 3.0;
    pdk_payload_def alone = four_seats();
    ck_assert_ptr_null(pdk_payload_problem(&odd, &alone));
}
END_TEST

static const char *const fields[] = {
    "mass.occupantKg", "mass.seats",   "mass.occupants", "mass.occupants",
    "mass.occupants",  "mass.seats",   "mass.seats",     "mass.cargoMaxKg",
    "mass.cargoKg",    "mass.cargoKg", "mass.cargoX",
};

static void spoil(void *def, int k)
{
    pdk_payload_def *p = def;
    switch (k) {
    case 0:
        p->occupant_kg = 301.0;
        break;
    case 1:
        p->n_seats = PDK_PAYLOAD_SEATS_MAX + 1;
        break;
    case 2:
        p->n_seats = 0;
        p->occupants = 2;
        break;
    case 3:
        p->occupants = 5;
        break;
    case 4:
        p->occupants = -1;
        break;
    case 5:
        p->seat_m[3][2] = 9.0;
        break;
    case 6:
        p->seat_m[0][0] = NAN;
        break;
    case 7:
        p->cargo_max_kg = -1.0;
        break;
    case 8:
        p->cargo_kg = 250.0;
        break;
    case 9:
        p->cargo_kg = -1.0;
        break;
    default:
        p->cargo_m[1] = 7.0;
        break;
    }
}

static const char *problem(const void *def)
{
    return pdk_payload_def_problem(def);
}

/* Every field out of its range is refused, the message naming its key;
 * without seats only the driver the chassis carries is allowed. */
START_TEST(definition_problems_name_the_key)
{
    const pdk_payload_def good = four_seats();
    assert_problems_name_fields(&good, sizeof good, spoil, problem, fields,
                                (int)(sizeof fields / sizeof fields[0]));
    pdk_payload_def none = pdk_payload_def_default();
    none.occupants = 0;
    ck_assert_ptr_nonnull(pdk_payload_def_problem(&none));
    none.occupants = 1;
    none.cargo_kg = 1.0;
    ck_assert_ptr_nonnull(strstr(pdk_payload_def_problem(&none), "no load space"));
}
END_TEST

static Suite *payload_suite(void)
{
    Suite *s = suite_create("payload");
    TCase *tc = tcase_create("payload");
    tcase_add_test(tc, the_driver_alone_leaves_the_chassis_as_given);
    tcase_add_test(tc, occupants_and_cargo_add_their_parallel_axis_terms);
    tcase_add_test(tc, taking_the_driver_away_is_the_inverse_of_seating_one);
    tcase_add_test(tc, a_lateral_offset_counts_in_the_inertias_only);
    tcase_add_test(tc, a_chassis_that_cannot_carry_it_is_refused);
    tcase_add_test(tc, definition_problems_name_the_key);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(payload_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
