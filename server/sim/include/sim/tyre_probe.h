/* An axle's tyre law evaluated on its own, outside a world: the force a
 * vehicle definition's tyre gives at a load, slips and camber on a surface,
 * with the law resolved exactly as the four-wheel model resolves it at spawn
 * and the surface's scales applied as the model applies them. It is how code
 * outside sim (the validation's analytic references) asks the law for a
 * cornering stiffness or a friction coefficient without a second copy of the
 * tyre's formulas. Pure, deterministic; nothing is allocated. */
#ifndef PDK_SIM_TYRE_PROBE_H
#define PDK_SIM_TYRE_PROBE_H

#include "sim/error.h"
#include "sim/vehicle_def.h"

/* Where the tyre is and what it sees. Slips are the steady practical slips
 * of tyre.h (kappa positive driving, tan(alpha) positive when the contact
 * slides to the left, ISO 8855); gamma is the ISO inclination, positive
 * when the wheel's top leans toward -y (docs/vehicle-model.md, Camber). */
typedef struct pdk_tyre_probe_in {
    int axle;           /* 0 front, 1 rear */
    int right;          /* 0 the left wheel, 1 the right (a Magic Formula set is mirrored) */
    int surface_id;     /* pdk_surface_id */
    double grip_scale;  /* the world's surface_friction times the tyre's own grip
                         * scale (tyre_life.h); 1 on the reference surface with warm tyres */
    double gravity_mps2; /* the world's, for the static load the law is resolved at */
    double fz_n;        /* the load, >= 0 */
    double kappa;
    double tan_alpha;
    double gamma_rad;
} pdk_tyre_probe_in;

typedef struct pdk_tyre_probe_out {
    double fx_n, fy_n;   /* along the wheel heading and to its left */
    double dfx_dkappa_n; /* the slopes of tyre.h's pdk_tyre_out, >= 0 */
    double dfy_dalpha_n;
    double peak_n;       /* the friction limit here (tyre.h's peak_n) */
    /* The relaxation lengths at fz_n (tyre.h pdk_tyre_relaxation): the
     * four-wheel model carries the tyre's deflections u_x = sigma_kappa
     * kappa and u_y = sigma_alpha tan(alpha) as state, so a tyre holding a
     * steady force Fy stands deflected sideways by sigma_alpha tan(alpha). */
    double sigma_kappa_m;
    double sigma_alpha_m;
} pdk_tyre_probe_out;

/* Evaluates def's tyre law on axle in->axle at *in. The definition must be
 * a four-wheel one (the single-track model's tyre is a line to its friction
 * limit, pdk_axle_tyre_def's first fields). Errors: PDK_ERR_INVALID_ARGUMENT
 * for NULL or a single-track definition, PDK_ERR_OUT_OF_RANGE for an axle
 * other than 0 or 1, an unknown surface id, a negative or non-finite load,
 * grip scale or gravity, or a non-finite slip or camber; *out is then
 * untouched. */
pdk_error pdk_tyre_probe(const pdk_vehicle_def *def, const pdk_tyre_probe_in *in,
                         pdk_tyre_probe_out *out);

/* Why pdk_tyre_probe with these arguments fails: a static sentence naming
 * the field ("tyre probe: axle must be 0 (front) or 1 (rear)"), or NULL. */
const char *pdk_tyre_probe_problem(const pdk_vehicle_def *def, const pdk_tyre_probe_in *in);

#endif
