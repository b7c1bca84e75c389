/* A tyre's force-law definition: the laws, the shipped Magic Formula sets
 * and their coefficients, part of a vehicle definition. The laws
 * themselves are sim's (tyre/tyre.h). */
#ifndef PDK_SIM_TYRE_DEF_H
#define PDK_SIM_TYRE_DEF_H

/* Values are stable (recorded with a session's parameters). */
typedef enum pdk_tyre_law {
    PDK_TYRE_GRIP = 1,
    PDK_TYRE_MAGIC = 2,
    PDK_TYRE_UTV = 3,
} pdk_tyre_law;

/* The shipped Magic Formula coefficient sets (tyre_sets.c gives each one's
 * source). Values are stable. */
typedef enum pdk_mf_set {
    PDK_MF_ROAD_205_60R15 = 1, /* passenger car, Pacejka 2006 Table A3.1 */
    PDK_MF_SPORT = 2,          /* a sports/performance road tyre */
    PDK_MF_SLICK = 3,          /* a racing slick */
    PDK_MF_KART = 4,           /* a kart slick, Lot and Dal Bianco 2016 */
    PDK_MF_SET_COUNT = 5,      /* one past the last */
} pdk_mf_set;

/* Magic Formula coefficients, Pac2002 / MF6.1 names in lower case, ISO signs
 * in the form of Pacejka's book tables: negative PDY1 and PKY1, so that Dy <
 * 0, By > 0 and Fy < 0 for alpha > 0 (SAE-signed code expects them positive).
 * A TNO / ADAMS .tir file gives the same ISO forces with positive PDY1 and
 * negative PKY1; it is brought to this form by negating PDY1, PDY2, RVY1,
 * RVY2, RVY3 and QBZ10, which leaves every force and moment unchanged. A file
 * whose PKY1 is positive (Fy positive for positive alpha, as the kart set's
 * source) negates PDY1 and PKY1. Scaling factors lambda are all 1 and not
 * stored (a set's own LMUX, LMUY are folded into its coefficients). PDY3
 * enters as (1 - PDY3 gamma*^2) (MF6.1; Chrono's Pac02 has +, gotcha b).
 * Camber is MF6.1's (PKY6, PKY7: SHy = ... + (Kyg0 gamma* - SVyg) / Ky) when a
 * set has PKY6 or PKY7, else MF5.2's (PHY3 gamma*). A coefficient a set does
 * not give is 0, which turns its term off, except the ones pdk_mf_problem
 * requires (divisors, shape and peak factors, the combined-slip RBX1, RCX1,
 * RBY1, RCY1). */
typedef struct pdk_mf_coeffs {
    double fnomin_n;            /* nominal load FNOMIN */
    double unloaded_radius_m;   /* R0 */
    double nominal_pressure_pa; /* p0 (NOMPRES), gauge; 0: no pressure terms */
    double lfzo;                /* LFZO, Fz0' = FNOMIN LFZO; 1 where a set does not give it */
    /* pure longitudinal */
    double pcx1, pdx1, pdx2, pdx3, pex1, pex2, pex3, pex4, pkx1, pkx2, pkx3, phx1, phx2, pvx1, pvx2;
    double ppx1, ppx2, ppx3, ppx4;
    /* pure lateral (pky4 2 and pky5 0 give Pac2002's stiffness) */
    double pcy1, pdy1, pdy2, pdy3, pey1, pey2, pey3, pey4, pey5;
    double pky1, pky2, pky3, pky4, pky5, pky6, pky7;
    double phy1, phy2, phy3, pvy1, pvy2, pvy3, pvy4;
    double ppy1, ppy2, ppy3, ppy4, ppy5;
    /* combined slip */
    double rbx1, rbx2, rbx3, rcx1, rex1, rex2, rhx1;
    double rby1, rby2, rby3, rby4, rcy1, rey1, rey2, rhy1, rhy2;
    double rvy1, rvy2, rvy3, rvy4, rvy5, rvy6;
    /* aligning moment */
    double qbz1, qbz2, qbz3, qbz4, qbz5, qbz9, qbz10, qcz1;
    double qdz1, qdz2, qdz3, qdz4, qdz6, qdz7, qdz8, qdz9;
    double qez1, qez2, qez3, qez4, qez5, qhz1, qhz2, qhz3, qhz4;
    double ssz1, ssz2, ssz3, ssz4;
    /* rolling resistance moment (only QSY1 is used) */
    double qsy1;
    /* relaxation lengths (Pac2002; Pacejka, ch. 7) */
    double ptx1, ptx2, ptx3, pty1, pty2;
} pdk_mf_coeffs;

/* A shipped set's coefficients (NULL for an unknown set), its short name as
 * presets spell it ("road205", "sport", "slick", "kart") and its source. */
const pdk_mf_coeffs *pdk_mf_set_coeffs(pdk_mf_set set);

const char *pdk_mf_set_name(pdk_mf_set set);

const char *pdk_mf_set_source(pdk_mf_set set);

/* A tyre's force-law parameters, resolved at spawn (one per axle). */
typedef struct pdk_tyre_law_def {
    pdk_tyre_law law;
    double radius_m;       /* unloaded radius R0, the slip reference */
    double nominal_load_n; /* Fz_nom: load sensitivity and the grip law's stiffnesses */
    /* PDK_TYRE_GRIP */
    double cornering_per_load;      /* Ca / Fz, 1/rad */
    double slip_stiffness_per_load; /* Ck / Fz, per unit slip */
    double mu_x, mu_y;              /* peak friction, longitudinal and lateral, reference surface */
    double camber_per_load; /* camber thrust per rad per N of load: Fy = -c gamma Fz with
                             * gamma ISO (positive top toward -y), toward the lean for c > 0 */
    double trail_m;         /* pneumatic trail at zero slip (grip and UTV laws) */
    /* PDK_TYRE_UTV: mu_x is the wet-film friction mu, and */
    double hard_slip_stiffness; /* k_s in tanh(k_s kappa) */
    /* cornering_per_load is C_alpha / N */
    /* PDK_TYRE_MAGIC */
    pdk_mf_set mf_set;
    pdk_mf_coeffs mf; /* the set's coefficients, copied at spawn */
    /* every law */
    double load_sensitivity;   /* 0..0.5 */
    double slide_grip;         /* 0.1..1; 0 only for the Magic Formula: its own shape */
    double combined_slip_loss; /* 0..0.9 */
    double relaxation_long_m;  /* sigma_kappa at nominal load, > 0 */
    double relaxation_lat_m;   /* sigma_alpha at nominal load, > 0 */
    double rolling_coeff;      /* the tyre's own f on the reference surface */
} pdk_tyre_law_def;

#endif
