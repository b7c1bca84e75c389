/* A car's payload on a chassis given with its driver (payload.h; issue 5). */
#include "sim/payload.h"

#include <stddef.h>
#include <string.h>

/* The Polaris model's occupant, the mass the shipped presets' chassis carry
 * for their driver. */
#define OCCUPANT_KG 85.0

pdk_payload_def pdk_payload_def_default(void)
{
    pdk_payload_def d;
    memset(&d, 0, sizeof d);
    d.occupant_kg = OCCUPANT_KG;
    d.occupants = 1;
    return d;
}

static int in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

/* utv_mass.c's bounds on a part's position. */
static int position_ok(const double p[3])
{
    return in_range(p[0], -10.0, 10.0) && in_range(p[1], -5.0, 5.0) && in_range(p[2], -1.0, 5.0);
}

const char *pdk_payload_def_problem(const pdk_payload_def *d)
{
    if (d == NULL) {
        return "mass is NULL";
    }
    if (!in_range(d->occupant_kg, 0.0, 300.0)) {
        return "mass.occupantKg must be within 0..300 kg";
    }
    if (d->n_seats < 0 || d->n_seats > PDK_PAYLOAD_SEATS_MAX) {
        return "mass.seats must list 0 to 9 seats";
    }
    if (d->n_seats == 0 && d->occupants != 1) {
        return "mass.occupants must be 1 without mass.seats: the chassis carries its driver, "
               "and there is no seat to add an occupant to or take the driver from";
    }
    if (d->n_seats > 0 && (d->occupants < 0 || d->occupants > d->n_seats)) {
        return "mass.occupants must be within 0..the number of mass.seats";
    }
    for (int k = 0; k < d->n_seats; k++) {
        if (!position_ok(d->seat_m[k])) {
            return "mass.seats[].x, y, z must be within -10..10, -5..5, -1..5 m";
        }
    }
    if (!in_range(d->cargo_max_kg, 0.0, 1e4)) {
        return "mass.cargoMaxKg must be within 0..1e4 kg";
    }
    if (!in_range(d->cargo_kg, 0.0, d->cargo_max_kg)) {
        return "mass.cargoKg must be within 0..mass.cargoMaxKg (0: the vehicle has no load "
               "space)";
    }
    if (!position_ok(d->cargo_m)) {
        return "mass.cargoX, cargoY, cargoZ must be within -10..10, -5..5, -1..5 m";
    }
    return NULL;
}

enum { MAX_POINTS = PDK_PAYLOAD_SEATS_MAX + 1 };

/* The point masses def adds to the chassis (negative: the driver taken
 * away), those of no mass left out; their count. */
static int payload_points(const pdk_payload_def *d, double m[MAX_POINTS], double r[MAX_POINTS][3])
{
    int n = 0;
    if (d->occupants == 0 && d->n_seats > 0 && d->occupant_kg != 0.0) {
        m[n] = -d->occupant_kg;
        memcpy(r[n], d->seat_m[0], sizeof r[n]);
        n++;
    }
    for (int k = 1; k < d->occupants && k < d->n_seats && d->occupant_kg != 0.0; k++) {
        m[n] = d->occupant_kg;
        memcpy(r[n], d->seat_m[k], sizeof r[n]);
        n++;
    }
    if (d->cargo_kg != 0.0) {
        m[n] = d->cargo_kg;
        memcpy(r[n], d->cargo_m, sizeof r[n]);
        n++;
    }
    return n;
}

/* The moments of m at r about c: roll (y, z), pitch (x, z), yaw (x, y). */
static void add_parallel_axis(double m, const double r[3], const double c[3], double inertia[3])
{
    const double dx = r[0] - c[0], dy = r[1] - c[1], dz = r[2] - c[2];
    inertia[0] += m * (dy * dy + dz * dz);
    inertia[1] += m * (dx * dx + dz * dz);
    inertia[2] += m * (dx * dx + dy * dy);
}

void pdk_payload_of(const pdk_chassis_def *given, const pdk_payload_def *def, pdk_payload_mass *out)
{
    const double body_m[3] = {given->wheelbase_m - given->cg_to_front_axle_m, 0.0,
                              given->cg_height_m};
    const double body_kg = given->mass_kg;
    double inertia[3] = {given->roll_inertia_kgm2, given->pitch_inertia_kgm2,
                         given->yaw_inertia_kgm2};
    double m[MAX_POINTS], r[MAX_POINTS][3];
    const int n = payload_points(def, m, r);

    double total = body_kg, moment[3];
    for (int j = 0; j < 3; j++) {
        moment[j] = body_kg * body_m[j];
    }
    for (int i = 0; i < n; i++) {
        total += m[i];
        for (int j = 0; j < 3; j++) {
            moment[j] += m[i] * r[i][j];
        }
    }
    double cg[3];
    for (int j = 0; j < 3; j++) {
        cg[j] = n > 0 ? moment[j] / total : body_m[j];
    }
    /* The body's own inertia moves from its centre of mass to the new one
     * (Steiner), and each point mass adds (or, taken away, removes) its
     * own about the new one: the inertia about any point is the sum of
     * the parts' about it. */
    if (n > 0) {
        add_parallel_axis(body_kg, body_m, cg, inertia);
    }
    for (int i = 0; i < n; i++) {
        add_parallel_axis(m[i], r[i], cg, inertia);
    }
    out->mass_kg = total;
    for (int j = 0; j < 3; j++) {
        out->cg_m[j] = cg[j];
        out->inertia_kgm2[j] = inertia[j];
    }
}

const char *pdk_payload_problem(const pdk_chassis_def *given, const pdk_payload_def *def)
{
    const char *why = pdk_payload_def_problem(def);
    if (why != NULL) {
        return why;
    }
    if (given == NULL) {
        return "chassis is NULL";
    }
    double m[MAX_POINTS], r[MAX_POINTS][3];
    if (payload_points(def, m, r) == 0) {
        return NULL; /* the chassis as given, which is not the payload's to judge */
    }
    pdk_payload_mass p;
    pdk_payload_of(given, def, &p);
    if (!(p.mass_kg > 0.0)) {
        return "mass.occupants 0 takes mass.occupantKg from chassis.mass, which must stay above "
               "0";
    }
    if (!(p.cg_m[0] > 0.0 && p.cg_m[0] < given->wheelbase_m)) {
        return "the mass.* payload must leave the centre of mass between the axles";
    }
    if (!(p.inertia_kgm2[0] > 0.0 && p.inertia_kgm2[1] > 0.0 && p.inertia_kgm2[2] > 0.0)) {
        return "the mass.* payload must leave the chassis' inertias above 0";
    }
    return NULL;
}

pdk_error pdk_payload_apply(pdk_chassis_def *chassis, const pdk_payload_def *def)
{
    if (chassis == NULL || def == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_payload_problem(chassis, def) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    double m[MAX_POINTS], r[MAX_POINTS][3];
    if (payload_points(def, m, r) == 0) {
        return PDK_OK; /* the chassis as given, to the bit */
    }
    pdk_payload_mass p;
    pdk_payload_of(chassis, def, &p);
    chassis->mass_kg = p.mass_kg;
    chassis->roll_inertia_kgm2 = p.inertia_kgm2[0];
    chassis->pitch_inertia_kgm2 = p.inertia_kgm2[1];
    chassis->yaw_inertia_kgm2 = p.inertia_kgm2[2];
    chassis->cg_to_front_axle_m = chassis->wheelbase_m - p.cg_m[0];
    chassis->cg_height_m = p.cg_m[2];
    return PDK_OK;
}
