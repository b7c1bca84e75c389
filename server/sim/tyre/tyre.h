/* The tyre: one interface over three force laws, each turning slip into force
 * (Pacejka, Tyre and Vehicle Dynamics, ch. 1-4).
 *
 * Given a wheel's normal load, its slips, camber, the surface under it and
 * the tyre's own grip state, a law returns the longitudinal force Fx, the
 * lateral force Fy, the aligning moment Mz and the slopes the vehicle's
 * implicit step needs. The rolling-resistance torque, f Fz R with the
 * surface's coefficient scaled by the tyre's rolling_coeff relative to dry
 * tarmac's, is the vehicle model's (four_wheel.c), not a law's.
 *
 * Axes and signs are ISO 8855 / TYDEX: x forward along the wheel heading, y
 * left, z up. The slip velocities are Vsx = Vx - Omega R and Vsy = Vy; the
 * practical slips are kappa = -Vsx / |Vx| (positive when driving: the tread
 * moves backward faster than the ground) and tan(alpha) = Vsy / |Vx| (positive
 * when the contact slides to the left, which makes Fy negative). The
 * four-wheel model does not divide by |Vx|: it carries the tyre's deflections
 * as state, kappa' = u_x / sigma_kappa and tan(alpha') = u_y / sigma_alpha
 * (Pacejka, Tire and Vehicle Dynamics, 3rd ed., section 7.2, single contact
 * point transient model), which are finite at standstill; the laws take those
 * slips.
 *
 * The laws (pdk_tyre_law), selectable per axle in the preset:
 *  - PDK_TYRE_GRIP: the grip-limited baseline. Linear stiffness, Fx = Ck kappa
 *    and Fy = -Ca tan(alpha) - camber_per_load gamma Fz (the camber thrust,
 *    toward the side the wheel's top leans to), with Ck and Ca in proportion
 *    to the load, up to a friction ellipse mu_x Fz, mu_y Fz: the demanded
 *    vector is scaled back onto it, keeping its direction (the friction
 *    ellipse), so the peak of pure slip is at kappa = mu_x Fz / Ck and
 *    tan(alpha) = mu_y Fz / Ca. Beyond the peak the force falls toward
 *    slide_grip of the peak at full sliding (tyre_lanes.h tyre_simple4).
 *    Aligning moment -t Fy by a pneumatic trail t that falls linearly from
 *    trail_m at zero slip to zero at the peak, where the brush model's contact
 *    slides entirely (Pacejka, ch. 3).
 *  - PDK_TYRE_MAGIC: the Magic Formula, Pac2002 / MF6.1 structure (Pacejka
 *    2012, eqs. 4.E1-4.E78): pure slip Fx0(kappa) and Fy0(alpha) with the dfz
 *    load terms, camber, Mz with pneumatic trail and residual moment, and the
 *    combined-slip weighting functions Gxa and Gyk. Coefficient sets are
 *    shipped in tyre_sets.c, each with its source (pdk_mf_set).
 *  - PDK_TYRE_UTV: the UTV's hard-surface law (docs/tyres.md): Fx = mu N
 *    tanh(k_s kappa) and Fy = -C_alpha N tan(alpha), then the friction circle
 *    mu N (mu = mu_x). The Polaris model has no load sensitivity, camber or
 *    aligning torque; here the common parameters below apply to it as to every
 *    law (slide_grip 1 and load_sensitivity 0 give the Polaris model's law
 *    exactly), camber_per_load too, and trail_m gives it the grip law's
 *    aligning moment (Paddock's addition, so that a remote driver feels the
 *    wheel; trail_m 0 is the Polaris model's law).
 *
 * Parameters every law honours:
 *  - load_sensitivity: the peak friction falls with load as
 *    mu(Fz) = mu (Fz / Fz_nom)^(-load_sensitivity) (a power law, as BeamNG's
 *    wheel documentation gives it); 0 turns it off. The Magic Formula has
 *    its own (PDX2, PDY2) and applies this on top only when it is non-zero.
 *  - slide_grip: the share of the peak left when the tyre slides fully
 *    (|kappa| = 1 or alpha = 90 degrees) on the reference surface, and
 *    beyond. The grip and UTV laws build their falling branch from it
 *    (0 means no force when sliding: use 0 for neither); the Magic Formula
 *    keeps its own shape when slide_grip is 0 and otherwise maps its falling
 *    branch linearly so that full sliding gives slide_grip of the peak; the
 *    rising branch is never touched.
 *  - combined_slip_loss: a friction-circle loss: past 10 % of wheelspin or
 *    lock the lateral force fades, linearly in |kappa|, by up to this share,
 *    reached at 70 %. The Magic Formula's own combined-slip functions already
 *    do this; it applies on top only when non-zero.
 *
 * The surface (surface.h) scales a law: its peak friction relative to the
 * reference surface (dry tarmac, on which every coefficient set and preset
 * friction is quoted) multiplies the peak forces (the Magic Formula's
 * mu_x, mu_y: lambda_mu); its stiffness scale multiplies the slip
 * stiffnesses (Kx, Ky: lambda_K; loose ground is softer); its sliding
 * ratio relative to the reference's multiplies the sliding share, capped at
 * 1 (on loose ground a sliding tyre keeps nearly all of its peak). The
 * tyre's own grip state (tyre_life.h: temperature window, pressure, wear,
 * condition, a damage scale) multiplies the peak forces the same way.
 *
 * docs/tyres.md has the laws' formulas, the sets, the sign conventions and
 * the figures the tests check.
 *
 * The vectorised evaluation (tyre_lanes.h) computes four tyres at once, one
 * per lane, with the deterministic functions of vmath.h; the scalar
 * functions here are that code on one lane, so both give the same bits. */
#ifndef PDK_TYRE_H
#define PDK_TYRE_H

#include <stdint.h>

#include "sim/error.h"
#include "sim/tyre_def.h"

/* Why a coefficient set cannot be used (a divisor that is 0, a
 * non-finite value), naming the coefficient, or NULL. */
const char *pdk_mf_problem(const pdk_mf_coeffs *mf);

/* What a law needs from the ground under the wheel, from surface.h's
 * table, already relative to the reference surface. */
typedef struct pdk_tyre_ground {
    double grip;      /* peak friction scale: surface mu / reference mu, times the
                       * tyre's own grip scale (tyre_life.h) */
    double stiffness; /* slip-stiffness scale, 1 on the reference */
    double slide;     /* sliding-ratio scale, 1 on the reference; the law's
                       * slide share becomes min(1, slide_share * slide) */
} pdk_tyre_ground;

/* One tyre's inputs: the load, the slips (as the file comment says), the
 * camber and the contact's forward speed (its sign turns the pneumatic
 * trail and the residual moment when rolling backward: Pacejka's
 * sgn(Vcx) in Dt, Dr). */
typedef struct pdk_tyre_in {
    double fz_n;      /* >= 0; 0 gives no force */
    double kappa;     /* longitudinal slip */
    double tan_alpha; /* tan of the slip angle, ISO sign */
    double gamma_rad; /* camber: ISO inclination angle */
    double vx_mps;
} pdk_tyre_in;

typedef struct pdk_tyre_out {
    double fx_n, fy_n; /* along the wheel heading and to its left, on the contact plane */
    double mz_nm;      /* aligning moment about the contact normal, positive turning left */
    /* The slopes an implicit step linearises with: dFx/dkappa and
     * -dFy/dtan(alpha) at the inputs, each >= 0 (a falling branch gives 0:
     * the step must not use a negative stiffness), with the other slip and
     * the load held. Exact on the rising branch of pure slip. Under
     * combined slip the Magic Formula's is the pure-slip curve's slope
     * times the weighting Gxa (Gyk), leaving out the weighting's own
     * dependence on the slip; the grip and UTV laws' is the slope along
     * the friction ellipse, leaving out the falling shape's. */
    double dfx_dkappa_n;
    double dfy_dalpha_n;
    double peak_n; /* the friction limit this tyre has here: the larger of
                    * mu_x Fz and mu_y Fz with every scale applied (the
                    * Magic Formula: max(|Dx|, |Dy|)) */
} pdk_tyre_out;

/* Evaluates the law for a tyre on the left of the car. want_mz 0 skips the
 * aligning moment (mz_nm 0). Pure, deterministic; the same bits as
 * tyre_lanes.h's pdk_tyre_eval4 in a left lane (0, 2). In a right lane (1,
 * 3) a Magic Formula set is mirrored: the result there is this function's
 * at (-tan_alpha, -gamma) with fy_n and mz_nm negated. */
void pdk_tyre_eval(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                   const pdk_tyre_in *in, int want_mz, pdk_tyre_out *out);

/* pdk_tyre_eval at the tyre's gauge pressure pressure_pa, for Magic
 * Formula sets with pressure terms (NOMPRES and PPX*, PPY*): dpi =
 * (p - p0) / p0, held within +-0.5. 0 means the set's nominal pressure;
 * pdk_tyre_eval is this with 0. The other laws ignore it. */
void pdk_tyre_eval_at_pressure(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                               const pdk_tyre_in *in, double pressure_pa, int want_mz,
                               pdk_tyre_out *out);

/* The relaxation lengths at load fz_n: the Magic Formula's Pac2002 lengths
 * (PTX*, PTY*) when the set has them, else the def's lengths (given at
 * nominal_load_n) scaled with load by Pac2002's lateral form sin(2 atan(Fz / 2
 * Fz_nom)) / sin(2 atan(1/2)); each floored at a tenth of its value at nominal
 * load (tyre_lanes.h pdk_tyre_relaxation4 has the formulas). */
void pdk_tyre_relaxation(const pdk_tyre_law_def *def, double fz_n, double *sigma_kappa_m,
                         double *sigma_alpha_m);

/* A law definition with every field valid: the grip law of a road car
 * (mu 1.0, Ca/Fz 12, Ck/Fz 18, slide_grip 0.75, relaxation 0.15 / 0.45 m,
 * R0 0.31 m, Fz_nom 4000 N, f 0.011). */
pdk_tyre_law_def pdk_tyre_law_def_default(void);

/* The least slide_grip the grip and utv laws take (and the Magic Formula
 * when it is not 0): below it a sliding tyre has next to no friction. A
 * slide_grip of 0 on those laws left a locked wheel frictionless. */
#define PDK_TYRE_SLIDE_GRIP_MIN 0.1

/* The most combined_slip_loss a law takes: 1 would leave a wheel locked
 * or spinning past 70 % slip no side force at all. */
#define PDK_TYRE_SLIP_LOSS_MAX 0.9

/* Why def cannot be used, naming the field and its bound ("tyre.slide_grip
 * must be within 0..1"), or NULL: every parameter that could make a law
 * frictionless, non-finite or push the wrong way is refused. For the Magic
 * Formula it also checks the coefficients (pdk_mf_problem). */
const char *pdk_tyre_law_def_problem(const pdk_tyre_law_def *def);

/* The longitudinal force as a function of the wheel's spin, for a driveline
 * that solves wheel spins implicitly on the law's curve (the Polaris model's
 * backward-Euler driveline solve; Paddock's, driveline.h, takes the chassis
 * solve's linearisation instead, ADR 0010). Over a step of h_s with the
 * contact's forward speed vx_mps held, the tyre's longitudinal deflection
 * advances exactly as the four-wheel step advances it (ADR 0008, Pacejka 2012
 * sec. 7.2):
 *   u1 = u0 e + g (omega R - vx),  e = exp(-|vx| h / sigma_kappa),
 *   g = sigma_kappa (1 - e) / |vx|  (h at rest),
 * and the law is evaluated at kappa = u1 / sigma_kappa (bounded to
 * +-PDK_TYRE_SPIN_KAPPA_MAX) with the lateral slip, camber and load held.
 * With h large against sigma / |vx| this is the steady law at the
 * practical slip (omega R - vx) / |vx|. */
typedef struct pdk_tyre_spin_in {
    double fz_n;
    double vx_mps;     /* the contact's forward speed */
    double tan_alpha;  /* the lateral slip, held */
    double gamma_rad;
    double defl_x_m;   /* u0, the deflection at the step's start */
    double h_s;        /* > 0 */
} pdk_tyre_spin_in;

#define PDK_TYRE_SPIN_KAPPA_MAX 1.5

/* Fx at the end spin omega_radps; *dfx_domega (may be NULL) gets
 * dFx/domega = slope g R / sigma_kappa, >= 0 (0 where kappa is bounded or
 * past the peak), and *defl_x_m (may be NULL) the end deflection u1. */
double pdk_tyre_fx_at_spin(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                           const pdk_tyre_spin_in *in, double omega_radps, double *dfx_domega,
                           double *defl_x_m);

#endif
