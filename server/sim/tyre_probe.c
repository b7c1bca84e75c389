/* An axle's tyre law on its own (sim/tyre_probe.h): the law resolved as the
 * four-wheel model resolves it at spawn (pdk_fw_law_of), the surface's
 * scales as the model takes them (pdk_surface_ground) and the law's own
 * evaluation (pdk_tyre_eval), mirrored for a right wheel as the model's
 * right lanes are; the relaxation lengths the model's deflection states
 * use at the load (pdk_tyre_relaxation). */
#include "sim/tyre_probe.h"

#include <math.h>
#include <stddef.h>

#include "ground/surface.h"
#include "tyre/tyre.h"
#include "vehicle/four_wheel.h"

const char *pdk_tyre_probe_problem(const pdk_vehicle_def *def, const pdk_tyre_probe_in *in)
{
    if (def == NULL || in == NULL) {
        return "tyre probe: the definition and the input must not be NULL";
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        return "tyre probe: the definition must be a four-wheel one (the single-track "
               "model's tyre is its axle's cornering stiffness and friction)";
    }
    if (in->axle != 0 && in->axle != 1) {
        return "tyre probe: axle must be 0 (front) or 1 (rear)";
    }
    if (pdk_surface_get(in->surface_id) == NULL) {
        return "tyre probe: surface_id is not a surface (0..PDK_SURFACE_COUNT - 1)";
    }
    if (!isfinite(in->grip_scale) || in->grip_scale < 0.0) {
        return "tyre probe: grip_scale must be finite and >= 0";
    }
    if (!isfinite(in->gravity_mps2) || !(in->gravity_mps2 > 0.0)) {
        return "tyre probe: gravity_mps2 must be finite and above 0";
    }
    if (!isfinite(in->fz_n) || in->fz_n < 0.0) {
        return "tyre probe: fz_n must be finite and >= 0";
    }
    if (!isfinite(in->kappa) || !isfinite(in->tan_alpha) || !isfinite(in->gamma_rad)) {
        return "tyre probe: kappa, tan_alpha and gamma_rad must be finite";
    }
    return NULL;
}

pdk_error pdk_tyre_probe(const pdk_vehicle_def *def, const pdk_tyre_probe_in *in,
                         pdk_tyre_probe_out *out)
{
    if (def == NULL || in == NULL || out == NULL || def->model != PDK_MODEL_FOUR_WHEEL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (pdk_tyre_probe_problem(def, in) != NULL) {
        return PDK_ERR_OUT_OF_RANGE;
    }
    /* The static load per tyre the model resolves the law at (four_wheel_setup.c). */
    const pdk_chassis_def *c = &def->chassis;
    const double b = c->wheelbase_m - c->cg_to_front_axle_m;
    const double static_load_n = c->mass_kg * in->gravity_mps2 *
                                 (in->axle == 0 ? b : c->cg_to_front_axle_m) /
                                 (2.0 * c->wheelbase_m);
    pdk_tyre_law_def law;
    pdk_fw_law_of(def, in->axle, static_load_n, &law);
    pdk_tyre_ground ground;
    pdk_surface_ground(in->surface_id, in->grip_scale, &ground);
    /* A right wheel is the left one's mirror image (tyre.h pdk_tyre_eval). */
    const double side = in->right ? -1.0 : 1.0;
    const pdk_tyre_in tin = {in->fz_n, in->kappa, side * in->tan_alpha, side * in->gamma_rad,
                             10.0};
    pdk_tyre_out t;
    pdk_tyre_eval(&law, &ground, &tin, 0, &t);
    out->fx_n = t.fx_n;
    out->fy_n = side * t.fy_n;
    out->dfx_dkappa_n = t.dfx_dkappa_n;
    out->dfy_dalpha_n = t.dfy_dalpha_n;
    out->peak_n = t.peak_n;
    pdk_tyre_relaxation(&law, in->fz_n, &out->sigma_kappa_m, &out->sigma_alpha_m);
    return PDK_OK;
}
