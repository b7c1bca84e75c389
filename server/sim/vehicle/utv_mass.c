/* The UTV's mass model (utv_mass.h; docs/powertrain.md). */
#include "sim/utv_mass.h"

#include <stddef.h>

/* The Polaris model's table of mass.* parameters. */
pdk_utv_mass_def pdk_utv_mass_def_polaris(void)
{
    pdk_utv_mass_def d = {
        .dry_kg = 1063.0,
        .dry_cg_m = {1.205, 0.0, 0.62},
        .dry_gyration_m = {0.5, 1.1, 1.15},
        .fluids_kg = 40.0,
        .fluids_m = {0.9, 0.0, 0.45},
        .roof_kg = 15.0,
        .roof_m = {2.3, 0.0, 1.95},
        .bay_kg = 30.0,
        .bay_m = {0.95, -0.45, 0.7},
        .occupant_kg = 85.0,
        .occupants = 1,
        .front_seat_x_m = 1.8,
        .rear_seat_x_m = 0.85,
        .seat_lateral_m = 0.36,
        .seat_z_m = 0.95,
        .cargo_kg = 0.0,
        .cargo_x_m = -0.2,
        .cargo_z_m = 0.9,
    };
    return d;
}

static int in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

static int position_ok(const double p[3])
{
    return in_range(p[0], -10.0, 10.0) && in_range(p[1], -5.0, 5.0) && in_range(p[2], -1.0, 5.0);
}

const char *pdk_utv_mass_def_problem(const pdk_utv_mass_def *d)
{
    if (d == NULL) {
        return "mass is NULL";
    }
    if (!in_range(d->dry_kg, 10.0, 1e5)) {
        return "mass.dry_kg must be within 10..1e5 kg";
    }
    if (!position_ok(d->dry_cg_m)) {
        return "mass.dry_cg_forward_m, dry_cg_left_m, dry_cg_height_m must be within -10..10, "
               "-5..5, -1..5 m";
    }
    for (int i = 0; i < 3; i++) {
        if (!in_range(d->dry_gyration_m[i], 0.0, 10.0)) {
            return "mass.dry_gyration_roll_m, pitch_m, yaw_m must be within 0..10 m";
        }
    }
    if (!in_range(d->fluids_kg, 0.0, 1e4) || !position_ok(d->fluids_m)) {
        return "mass.fluids_kg must be within 0..1e4 kg and mass.fluids_x_m, y_m, z_m within "
               "-10..10, -5..5, -1..5 m";
    }
    if (!in_range(d->roof_kg, 0.0, 1e4) || !position_ok(d->roof_m)) {
        return "mass.roof_equipment_kg must be within 0..1e4 kg and mass.roof_x_m, y_m, z_m "
               "within -10..10, -5..5, -1..5 m";
    }
    if (!in_range(d->bay_kg, 0.0, 1e4) || !position_ok(d->bay_m)) {
        return "mass.bay_equipment_kg must be within 0..1e4 kg and mass.bay_x_m, y_m, z_m within "
               "-10..10, -5..5, -1..5 m";
    }
    if (!in_range(d->occupant_kg, 0.0, 300.0)) {
        return "mass.occupant_kg must be within 0..300 kg";
    }
    if (d->occupants < 0 || d->occupants > PDK_UTV_SEATS) {
        return "mass.occupants must be within 0..6";
    }
    if (!in_range(d->front_seat_x_m, -10.0, 10.0) || !in_range(d->rear_seat_x_m, -10.0, 10.0) ||
        !in_range(d->seat_lateral_m, 0.0, 5.0) || !in_range(d->seat_z_m, -1.0, 5.0)) {
        return "mass.front_seat_x_m, rear_seat_x_m, seat_lateral_m, seat_z_m must be within "
               "-10..10, -10..10, 0..5, -1..5 m";
    }
    if (!in_range(d->cargo_kg, 0.0, 1e4)) {
        return "mass.cargo_kg must be within 0..1e4 kg";
    }
    if (!in_range(d->cargo_x_m, -10.0, 10.0) || !in_range(d->cargo_z_m, -1.0, 5.0)) {
        return "mass.cargo_x_m, cargo_z_m must be within -10..10, -1..5 m";
    }
    return NULL;
}

void pdk_utv_seat(const pdk_utv_mass_def *d, int k, double pos_m[3])
{
    /* the Polaris model (docs/powertrain.md): the order the seats fill in */
    static const struct {
        int front;
        double side; /* of seat_lateral_m, left positive */
    } seats[PDK_UTV_SEATS] = {{1, 1.0}, {1, -1.0}, {0, 1.0}, {0, -1.0}, {0, 0.0}, {1, 0.0}};
    const int s = k < 0 ? 0 : (k >= PDK_UTV_SEATS ? PDK_UTV_SEATS - 1 : k);
    pos_m[0] = seats[s].front ? d->front_seat_x_m : d->rear_seat_x_m;
    pos_m[1] = seats[s].side * d->seat_lateral_m;
    pos_m[2] = d->seat_z_m;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

void pdk_utv_mass_of(const pdk_utv_mass_def *d, double wheelbase_m, double track_front_m,
                     double track_rear_m, double gravity_mps2, pdk_utv_mass *out)
{
    enum { MAX_PARTS = 5 + PDK_UTV_SEATS };
    double m[MAX_PARTS], r[MAX_PARTS][3];
    int n = 0;
    const double *fixed[4] = {d->dry_cg_m, d->fluids_m, d->roof_m, d->bay_m};
    const double fixed_kg[4] = {d->dry_kg, d->fluids_kg, d->roof_kg, d->bay_kg};
    for (int i = 0; i < 4; i++, n++) {
        m[n] = fixed_kg[i];
        for (int j = 0; j < 3; j++) {
            r[n][j] = fixed[i][j];
        }
    }
    for (int k = 0; k < d->occupants && k < PDK_UTV_SEATS; k++, n++) {
        m[n] = d->occupant_kg;
        pdk_utv_seat(d, k, r[n]);
    }
    m[n] = d->cargo_kg;
    r[n][0] = d->cargo_x_m;
    r[n][1] = 0.0;
    r[n][2] = d->cargo_z_m;
    n++;

    double total = 0.0, moment[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        total += m[i];
        for (int j = 0; j < 3; j++) {
            moment[j] += m[i] * r[i][j];
        }
    }
    double cg[3];
    for (int j = 0; j < 3; j++) {
        cg[j] = moment[j] / total;
    }
    /* the dry vehicle's own inertia, then every part's parallel-axis term
     * (the dry vehicle's included) */
    double inertia[3];
    for (int j = 0; j < 3; j++) {
        inertia[j] = d->dry_kg * d->dry_gyration_m[j] * d->dry_gyration_m[j];
    }
    for (int i = 0; i < n; i++) {
        const double dx = r[i][0] - cg[0], dy = r[i][1] - cg[1], dz = r[i][2] - cg[2];
        inertia[0] += m[i] * (dy * dy + dz * dz);
        inertia[1] += m[i] * (dx * dx + dz * dz);
        inertia[2] += m[i] * (dx * dx + dy * dy);
    }

    const double weight = total * gravity_mps2;
    const double share = clamp(cg[0] / wheelbase_m, 0.05, 0.95);
    const double nf = weight * share, nr = weight - nf;
    const double sf = clamp(0.5 + cg[1] / track_front_m, 0.05, 0.95);
    const double sr = clamp(0.5 + cg[1] / track_rear_m, 0.05, 0.95);
    out->mass_kg = total;
    for (int j = 0; j < 3; j++) {
        out->cg_m[j] = cg[j];
        out->inertia_kgm2[j] = inertia[j];
    }
    out->front_share = share;
    out->axle_load_n[0] = nf;
    out->axle_load_n[1] = nr;
    out->corner_load_n[0] = nf * sf;
    out->corner_load_n[1] = nf * (1.0 - sf);
    out->corner_load_n[2] = nr * sr;
    out->corner_load_n[3] = nr * (1.0 - sr);
}
