/* A car's payload (issue 5): occupants in its seats and cargo in its load
 * space, each a point mass, on a chassis given with its driver aboard (a
 * lumped or geared vehicle's: its mass, inertias and centre of mass are the
 * vehicle's with the driver). Occupants beyond the first and the cargo are
 * added at their positions; with no occupant, the driver is taken away from
 * the first seat. The total mass, the centre of mass and the inertias about
 * it follow by the parallel-axis theorem; the UTV builds its whole chassis
 * from parts instead (utv_mass.h).
 *
 * Positions are the Polaris model's body axes, as utv_mass.h's: from the
 * ground under the middle of the rear axle, x forward, y left, z up (ISO
 * 8855). The given chassis' centre of mass is on the centre line, at x =
 * wheelbase - cg_to_front_axle and z = cg_height. The four-wheel chassis keeps
 * its centre of mass on the centre line: the lateral offset a payload gives it
 * (an occupant on one side) is computed, counted in the inertias, and left out
 * of the chassis, as the UTV's 14 mm are. */
#ifndef PDK_PAYLOAD_H
#define PDK_PAYLOAD_H

#include "sim/vehicle_def.h"

/* Most seats: a car's (EU category M1: at most eight seats besides the
 * driver's). */
#define PDK_PAYLOAD_SEATS_MAX 9

typedef struct pdk_payload_def {
    /* Each occupant's mass, the driver the chassis carries included. */
    double occupant_kg;
    /* 0..n_seats, seated in the seats' order; 1: the driver alone. */
    int occupants;
    /* 0..PDK_PAYLOAD_SEATS_MAX; with none, occupants stays 1. */
    int n_seats;
    /* Where an occupant's centre of mass is in each seat, the driver's
     * first. */
    double seat_m[PDK_PAYLOAD_SEATS_MAX][3];
    /* In the load space, 0..cargo_max_kg. */
    double cargo_kg;
    /* What the load space takes; 0: the vehicle has none. */
    double cargo_max_kg;
    /* The cargo's centre of mass. */
    double cargo_m[3];
} pdk_payload_def;

/* The driver alone in a vehicle with no seat positions and no load space: 85
 * kg an occupant (the Polaris model's), no cargo. It leaves any chassis as
 * given. */
pdk_payload_def pdk_payload_def_default(void);

/* NULL when the definition can be used, else what is wrong with it, naming
 * the key ("mass.occupantKg must be within 0..300 kg"). */
const char *pdk_payload_def_problem(const pdk_payload_def *def);

typedef struct pdk_payload_mass {
    double mass_kg;
    double cg_m[3];         /* forward of the rear axle, left, height */
    double inertia_kgm2[3]; /* about the centre of mass: roll, pitch, yaw */
} pdk_payload_mass;

/* The mass properties of the chassis given (with its driver) carrying def,
 * whose problem must be NULL. Without a point mass to add or take away
 * (one occupant, no cargo) they are the chassis' own. */
void pdk_payload_of(const pdk_chassis_def *given, const pdk_payload_def *def,
                    pdk_payload_mass *out);

/* NULL when the chassis can carry def: def has no problem and, when it
 * adds or takes away a point mass, the result has a positive mass and
 * inertias and its centre of mass between the axles (the chassis as given
 * is vehicle_def.c's to check); else what is wrong, naming the keys. */
const char *pdk_payload_problem(const pdk_chassis_def *given, const pdk_payload_def *def);

/* Makes chassis carry def: its mass, inertias, cg_to_front_axle_m and
 * cg_height_m become pdk_payload_of's (the centre of mass on the centre
 * line). With one occupant and no cargo the chassis is left as it is, to
 * the bit. PDK_ERR_OUT_OF_RANGE, chassis untouched, when
 * pdk_payload_problem refuses; PDK_ERR_INVALID_ARGUMENT for NULL. */
pdk_error pdk_payload_apply(pdk_chassis_def *chassis, const pdk_payload_def *def);

#endif
