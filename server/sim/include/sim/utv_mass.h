/* The UTV's mass model from its parts (docs/powertrain.md,
 * "Occupants and Payload"): the dry vehicle with its own radii of gyration,
 * the fluids, the roof and bay equipment, 0 to 6 occupants in the Polaris
 * model's seat order and cargo in the bed, each a point mass. The total mass
 * and centre of mass are the sums; the inertia is the dry vehicle's own plus
 * every part's parallel-axis term about the combined centre of mass; the
 * static axle loads follow from the pitch balance and each is split left and
 * right by the lateral offset of the centre of mass, each share held within
 * 5..95 %.
 *
 * Positions are body axes with the origin on the ground under the middle
 * of the rear axle: x forward, y left, z up (ISO 8855). */
#ifndef PDK_UTV_MASS_H
#define PDK_UTV_MASS_H

/* Most occupants: the seats of a crew cab. */
#define PDK_UTV_SEATS 6

typedef struct pdk_utv_mass_def {
    double dry_kg;
    double dry_cg_m[3];       /* forward of the rear axle, left, height */
    double dry_gyration_m[3]; /* radii of gyration: roll, pitch, yaw */
    double fluids_kg, fluids_m[3];
    double roof_kg, roof_m[3]; /* roof rack with its sensors */
    double bay_kg, bay_m[3];   /* electronics bay */
    double occupant_kg;
    int occupants; /* 0..6, seated in the Polaris model's order */
    double front_seat_x_m, rear_seat_x_m, seat_lateral_m, seat_z_m;
    double cargo_kg, cargo_x_m, cargo_z_m; /* in the bed, on the centre line */
} pdk_utv_mass_def;

/* The Polaris model's mass.* defaults for the Polaris Ranger CREW XP 1000, one
 * occupant (the driver). */
pdk_utv_mass_def pdk_utv_mass_def_polaris(void);

/* NULL when the definition can be used, else what is wrong with it, naming
 * the field ("mass.occupants must be within 0..6"). */
const char *pdk_utv_mass_def_problem(const pdk_utv_mass_def *def);

/* Where occupant k (0-based) sits: driver front left, front right, rear
 * left, rear right, rear centre, front centre. */
void pdk_utv_seat(const pdk_utv_mass_def *def, int k, double pos_m[3]);

typedef struct pdk_utv_mass {
    double mass_kg;
    double cg_m[3];          /* forward of the rear axle, left, height */
    double inertia_kgm2[3];  /* about the centre of mass: roll, pitch, yaw */
    double front_share;      /* of the weight on the front axle, clamp(x_cg / L, 0.05, 0.95) */
    double axle_load_n[2];   /* front, rear */
    double corner_load_n[4]; /* FL, FR, RL, RR */
} pdk_utv_mass;

/* The mass properties of def on a vehicle of this wheelbase and tracks
 * under gravity g. */
void pdk_utv_mass_of(const pdk_utv_mass_def *def, double wheelbase_m, double track_front_m,
                     double track_rear_m, double gravity_mps2, pdk_utv_mass *out);

#endif
