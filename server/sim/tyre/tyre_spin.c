/* The tyre's longitudinal force as a function of wheel spin (tyre.h,
 * pdk_tyre_fx_at_spin): the four-wheel step's exact relaxation update of
 * the deflection (ADR 0008) on one tyre, and the law at the slip it
 * gives. */
#include <math.h>

#include "math/vmath.h"
#include "tyre/tyre.h"

double pdk_tyre_fx_at_spin(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                           const pdk_tyre_spin_in *in, double omega_radps, double *dfx_domega,
                           double *defl_x_m)
{
    double sigma_k, sigma_a;
    pdk_tyre_relaxation(def, in->fz_n, &sigma_k, &sigma_a);
    const double h = in->h_s;
    const double av = fabs(in->vx_mps);
    const double z = av * h / sigma_k;
    const double e = pdk_exp(-z);
    /* g = sigma (1 - e) / |vx| = h (1 - e) / z; below z = 0.05 by its
     * series h (1 - z/2 + z^2/6 - ...), as four_wheel_lanes.h's relax_g4,
     * which holds g to an ulp where 1 - e would cancel. */
    double g;
    if (z < 0.05) {
        double p = -1.0 / 40320.0;
        p = 1.0 / 5040.0 + z * p;
        p = -1.0 / 720.0 + z * p;
        p = 1.0 / 120.0 + z * p;
        p = -1.0 / 24.0 + z * p;
        p = 1.0 / 6.0 + z * p;
        p = -0.5 + z * p;
        p = 1.0 + z * p;
        g = h * p;
    } else {
        g = (1.0 - e) * sigma_k / av;
    }
    const double radius = def->radius_m;
    double u1 = in->defl_x_m * e + g * (omega_radps * radius - in->vx_mps);
    double kappa = u1 / sigma_k;
    int bounded = 0;
    if (kappa > PDK_TYRE_SPIN_KAPPA_MAX || kappa < -PDK_TYRE_SPIN_KAPPA_MAX) {
        kappa = kappa > 0.0 ? PDK_TYRE_SPIN_KAPPA_MAX : -PDK_TYRE_SPIN_KAPPA_MAX;
        u1 = kappa * sigma_k;
        bounded = 1;
    }
    pdk_tyre_in tin = {in->fz_n, kappa, in->tan_alpha, in->gamma_rad, in->vx_mps};
    pdk_tyre_out out;
    pdk_tyre_eval(def, ground, &tin, 0, &out);
    if (dfx_domega != NULL) {
        *dfx_domega = bounded ? 0.0 : out.dfx_dkappa_n * g * radius / sigma_k;
    }
    if (defl_x_m != NULL) {
        *defl_x_m = u1;
    }
    return out.fx_n;
}
