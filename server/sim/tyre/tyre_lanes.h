/* The tyre laws on four lanes (tyre.h): one tyre per lane, lanes FL FR RL
 * RR, evaluated with the deterministic functions of vmath.h. Everything is
 * static and always inlined, so that the AVX build of the four-wheel step
 * compiles it for AVX; tyre.c runs the same code on one lane for the
 * scalar pdk_tyre_eval, so the two give the same bits. */
#ifndef PDK_TYRE_LANES_H
#define PDK_TYRE_LANES_H

#include <stdint.h>

#include "math/lanes.h" /* v4, m4, VEC, splat, sel, ... */
#include "math/vmath.h" /* pdk_v_sin, pdk_v_atan, pdk_v_exp, pdk_v_pow, pdk_v_tanh */
#include "tyre/tyre.h"

/* The Magic Formula coefficients the laws read, by name (tyre.h
 * pdk_mf_coeffs). */
/* clang-format off */
#define PDK_TYRE_MF_LIST(X)                                                                        \
    X(pcx1) X(pdx1) X(pdx2) X(pdx3) X(pex1) X(pex2) X(pex3) X(pex4) X(pkx1) X(pkx2) X(pkx3)       \
    X(phx1) X(phx2) X(pvx1) X(pvx2) X(ppx1) X(ppx2) X(ppx3) X(ppx4)                                \
    X(pcy1) X(pdy1) X(pdy2) X(pdy3) X(pey1) X(pey2) X(pey3) X(pey4) X(pey5)                        \
    X(pky1) X(pky2) X(pky3) X(pky4) X(pky5) X(pky6) X(pky7)                                        \
    X(phy1) X(phy2) X(phy3) X(pvy1) X(pvy2) X(pvy3) X(pvy4)                                        \
    X(ppy1) X(ppy2) X(ppy3) X(ppy4) X(ppy5)                                                        \
    X(rbx1) X(rbx2) X(rbx3) X(rcx1) X(rex1) X(rex2) X(rhx1)                                        \
    X(rby1) X(rby2) X(rby3) X(rby4) X(rcy1) X(rey1) X(rey2) X(rhy1) X(rhy2)                        \
    X(rvy1) X(rvy2) X(rvy3) X(rvy4) X(rvy5) X(rvy6)                                                \
    X(qbz1) X(qbz2) X(qbz3) X(qbz4) X(qbz5) X(qbz9) X(qbz10) X(qcz1)                               \
    X(qdz1) X(qdz2) X(qdz3) X(qdz4) X(qdz6) X(qdz7) X(qdz8) X(qdz9)                                \
    X(qez1) X(qez2) X(qez3) X(qez4) X(qez5) X(qhz1) X(qhz2) X(qhz3) X(qhz4)                        \
    X(ssz1) X(ssz2) X(ssz3) X(ssz4) X(ptx1) X(ptx2) X(ptx3) X(pty1) X(pty2)
/* clang-format on */

typedef struct pdk_tyre_mf4 {
#define PDK_TYRE_MF_FIELD_(name) double name[4];
    PDK_TYRE_MF_LIST(PDK_TYRE_MF_FIELD_)
#undef PDK_TYRE_MF_FIELD_
    double fz0[4];         /* Fz0' = FNOMIN LFZO */
    double inv_fz0[4];     /* 1 / Fz0' */
    double r0[4];          /* R0 */
    double inv_p0[4];      /* 1 / NOMPRES, 0 where the set has no pressure terms */
    double r0_lfzo[4];     /* R0 LFZO, for sigma_alpha */
    double mf61_camber[4]; /* 1 for MF6.1 camber sets (PKY6, PKY7), 0 for MF5.2 ones (PHY3) */
    int64_t ky_pac[4];     /* -1 where PKY4 is 2: sin(2 atan x) taken as 2 x / (1 + x^2) */
    int64_t sig_k[4];      /* -1 where the lane takes sigma_kappa from PTX1..3 */
    int64_t sig_a[4];      /* -1 where the lane takes sigma_alpha from PTY1, PTY2 */
} pdk_tyre_mf4;

/* A vehicle's four tyres' constants: lanes 0, 1 from the front axle's
 * definition, 2, 3 from the rear's (pdk_tyre_consts4_init). Arrays of four
 * doubles rather than v4 members, so that the struct needs no more than
 * double alignment wherever it is embedded; load4 reads them unaligned. */
typedef struct pdk_tyre_consts4 {
    uint32_t laws;     /* bit (1 << law) for each law some lane uses */
    uint32_t flags;    /* PDK_TYRE_F_* below: terms some lane needs */
    int64_t is_utv[4]; /* lane masks, -1 where the lane's law is that one */
    int64_t is_magic[4];
    int64_t mirror[4]; /* -1 on a right wheel's Magic Formula lane (1, 3): the set
                        * is mirrored there (pdk_tyre_eval4_at_pressure) */
    /* every law */
    double fz_nom[4];      /* Fz_nom */
    double load_sens[4];   /* load_sensitivity */
    double slide_grip[4];  /* slide_grip */
    double slip_loss[4];   /* combined_slip_loss */
    double sigma_kappa[4]; /* relaxation lengths at Fz_nom */
    double sigma_alpha[4];
    double sigma_floor_kappa[4]; /* a tenth of the lengths at Fz_nom (Fz0' for PTX, PTY) */
    double sigma_floor_alpha[4];
    /* grip and UTV laws */
    double mu_x[4], mu_y[4]; /* UTV: mu_y = mu_x (a circle) */
    double long_stiff[4];    /* grip: Ck/Fz; UTV: k_s */
    double lat_stiff[4];     /* Ca/Fz (both) */
    double camber_shift[4];  /* camber_per_load / (Ca/Fz): tan(alpha) shift per rad */
    double trail_m[4];
    /* Magic Formula: the coefficients (PDK_TYRE_MF_LIST) and what is
     * derived from the set's constants. Lanes of another law hold the
     * road205 set, so that their (discarded) arithmetic stays finite. */
    pdk_tyre_mf4 mf;
} pdk_tyre_consts4;

/* flags */
#define PDK_TYRE_F_LOAD_SENS 1u /* some lane has load_sensitivity != 0 */
#define PDK_TYRE_F_SLIP_LOSS 2u /* some lane has combined_slip_loss != 0 */
/* Magic Formula terms some Magic Formula lane's set has (non-zero
 * coefficients); a term no lane has is skipped, which gives the same bits
 * as evaluating it with zero coefficients. */
#define PDK_TYRE_F_MF_EXP 4u        /* PKX3: exp(PKX3 dfz) */
#define PDK_TYRE_F_MF_KY_GEN 8u     /* a PKY4 other than 2 */
#define PDK_TYRE_F_MF_GXA_E 16u     /* REX1, REX2 */
#define PDK_TYRE_F_MF_GYK_E 32u     /* REY1, REY2 */
#define PDK_TYRE_F_MF_GXA_SH 64u    /* RHX1 */
#define PDK_TYRE_F_MF_GYK_SH 128u   /* RHY1, RHY2 */
#define PDK_TYRE_F_MF_SVYK 256u     /* RVY1..RVY3 */
#define PDK_TYRE_F_MF_PRESSURE 512u /* NOMPRES > 0 */

/* Fills c from the front (lanes 0, 1) and rear (lanes 2, 3) definitions,
 * which pdk_tyre_law_def_problem accepts. In tyre.c. */
void pdk_tyre_consts4_init(pdk_tyre_consts4 *c, const pdk_tyre_law_def *front,
                           const pdk_tyre_law_def *rear);

/* Four tyres' inputs, outputs and ground scales, lane by lane as
 * pdk_tyre_in, pdk_tyre_out and pdk_tyre_ground (tyre.h). */
typedef struct pdk_tyre_in4 {
    v4 fz_n, kappa, tan_alpha, gamma_rad, vx_mps;
} pdk_tyre_in4;

typedef struct pdk_tyre_ground4 {
    v4 grip, stiffness, slide;
} pdk_tyre_ground4;

typedef struct pdk_tyre_out4 {
    v4 fx_n, fy_n, mz_nm, dfx_dkappa_n, dfy_dalpha_n, peak_n;
    /* The longitudinal curve's slope where it falls past its peak (<= 0;
     * dfx_dkappa_n is 0 there), 0 where the law does not give it. */
    v4 dfx_fall_n;
} pdk_tyre_out4;

#define PDK_TYRE_L(c, f) load4((c)->f)

/* The shape of the falling branch of the grip and UTV laws: the share of
 * (peak - slide) left at progress x (0 at the peak, 1 at full sliding),
 * (1 - x) / (1 + c x). c = 1.27 puts half of it at 20 degrees for a tyre
 * peaking at 3 degrees (a road tyre's sideways grip peaks at about 3
 * degrees, is halfway to its sliding grip at 20 and there by 90), with
 * progress measured as below. */
#define PDK_TYRE_FALL_SHAPE 1.27

/* The friction-circle loss: the lateral force's factor at slip kappa, 1 - loss
 * clamp((|kappa| - 0.1) / 0.6, 0, 1). */
VEC v4 tyre_slip_loss4(v4 kappa, v4 loss)
{
    v4 t = (abs4(kappa) - splat(0.1)) * splat(1.0 / 0.6);
    t = max4(t, splat(0.0));
    t = sel(gt4(t, splat(1.0)), splat(1.0), t);
    return splat(1.0) - loss * t;
}

/* The load-sensitivity factor (Fz / Fz_nom)^(-e), 1 where e is 0. */
VEC v4 tyre_load_factor4(const pdk_tyre_consts4 *c, v4 fz)
{
    v4 e = PDK_TYRE_L(c, load_sens);
    if (!(c->flags & PDK_TYRE_F_LOAD_SENS)) {
        return splat(1.0);
    }
    v4 x = max4(fz / PDK_TYRE_L(c, fz_nom), splat(1e-6));
    return sel((m4)(e == splat(0.0)), splat(1.0), pdk_v_pow(x, -e));
}

/* The grip and UTV laws (tyre.h), on every lane; the caller keeps the
 * lanes whose law is one of them. Both are written in forces normalised by
 * the friction limits mu_x Fz and mu_y Fz:
 *   a_lin = Ck kappa / (mu_x Fz)  (grip)   or  k_s kappa  (UTV),
 *   a     = a_lin                 (grip)   or  tanh(a_lin) (UTV),
 *   b     = Ca (tan(alpha) + camber shift) / (mu_y Fz),
 * the demanded vector (a, b) is scaled back onto the unit circle where it
 * leaves it (the friction ellipse in forces), and past the peak
 * (|(a_lin, b)| > 1, where the linearised law meets the ellipse) it is
 * multiplied by the falling branch h = r + (1 - r) (1 - x) / (1 + c x),
 * with r = min(1, slide_grip ground.slide) and x the progress from the peak
 * to full sliding, measured by the sliding measure
 * rho = sqrt(kappa^2 + sin^2(alpha)), which is 1 at |kappa| = 1 or
 * alpha = 90 degrees: x = (rho - rho_peak) / (1 - rho_peak), rho_peak being
 * rho at the peak along the same slip direction. */
VEC void tyre_simple4(const pdk_tyre_consts4 *c, const pdk_tyre_in4 *in, const pdk_tyre_ground4 *g,
                      v4 fz, v4 lsf, int want_mz, pdk_tyre_out4 *out)
{
    const v4 one = splat(1.0);
    const v4 zero = splat(0.0);
    m4 utv = load_mask(c->is_utv);
    v4 mux = max4(PDK_TYRE_L(c, mu_x) * g->grip * lsf, splat(1e-9));
    v4 muy = max4(PDK_TYRE_L(c, mu_y) * g->grip * lsf, splat(1e-9));
    v4 kappa = in->kappa;
    /* Camber thrust acts toward the side the wheel's top leans to
     * (Pacejka, Tire and Vehicle Dynamics, 3rd ed., sections 1.3 and 4.3;
     * Milliken and Milliken, Race Car Vehicle Dynamics, ch. 2). A positive
     * ISO inclination leans the top toward -y, so the thrust is
     * Fy = -camber_per_load gamma Fz, the sign a Magic Formula set's camber
     * terms give: the same as the force of a slip angle tan(alpha) =
     * camber_per_load gamma / (Ca / Fz), which is the shift added here. */
    v4 t = in->tan_alpha + PDK_TYRE_L(c, camber_shift) * in->gamma_rad;
    /* slopes of a_lin and b per unit kappa and tan(alpha) */
    v4 da_lin = PDK_TYRE_L(c, long_stiff) * g->stiffness / sel(utv, one, mux);
    v4 db = PDK_TYRE_L(c, lat_stiff) * g->stiffness / muy;
    v4 a_lin = da_lin * kappa;
    v4 b = db * t;
    v4 a = a_lin;
    v4 da = da_lin;
    if (c->laws & (1u << PDK_TYRE_UTV)) {
        v4 th = pdk_v_tanh(a_lin);
        a = sel(utv, th, a_lin);
        da = sel(utv, da_lin * (one - th * th), da_lin);
    }
    v4 s2 = a * a + b * b;
    v4 s = sqrt4(s2);
    m4 sat = gt4(s, one);
    v4 m = sel(sat, one / s, one);
    v4 s_lin = sqrt4(a_lin * a_lin + b * b);
    m4 past = gt4(s_lin, one);
    /* The falling branch. */
    v4 r = PDK_TYRE_L(c, slide_grip) * g->slide;
    r = sel(gt4(r, one), one, r);
    v4 t2 = t * t;
    v4 rho = sqrt4(kappa * kappa + t2 / (one + t2));
    v4 inv_s = one / sel(past, s_lin, one);
    v4 kp = kappa * inv_s;
    v4 tp = t * inv_s;
    v4 tp2 = tp * tp;
    v4 rho_p = sqrt4(kp * kp + tp2 / (one + tp2));
    v4 x = (rho - rho_p) / max4(one - rho_p, splat(1e-12));
    x = max4(x, zero);
    x = sel(gt4(x, one), one, x);
    x = sel(lt4(rho_p, one), x, zero);
    v4 h = r + (one - r) * (one - x) / (one + splat(PDK_TYRE_FALL_SHAPE) * x);
    h = sel(past, h, one);
    v4 dx = mux * fz;
    v4 dy = muy * fz;
    out->fx_n = dx * (a * m * h);
    v4 fy = -(dy * (b * m * h));
    v4 loss = one;
    if (c->flags & PDK_TYRE_F_SLIP_LOSS) {
        loss = tyre_slip_loss4(kappa, PDK_TYRE_L(c, slip_loss));
    }
    out->fy_n = fy * loss;
    /* dF/d(slip) of the force on the ellipse at the present h: inside it
     * the slope of the demanded force, on it da b^2 / s^3 (and db a^2 /
     * s^3), the component of the slope along the ellipse. */
    v4 inv_s3 = m * m * m;
    v4 kx = sel(sat, b * b * inv_s3, one);
    v4 ky = sel(sat, a * a * inv_s3, one);
    out->dfx_dkappa_n = max4(dx * h * da * kx, zero);
    /* The slope above holds the falling branch's share h as it stands:
     * the fall's own slope is not formed. */
    out->dfx_fall_n = zero;
    out->dfy_dalpha_n = max4(dy * h * db * ky * loss, zero);
    out->peak_n = max4(dx, dy);
    if (want_mz) {
        /* Pneumatic trail falling linearly to zero at the peak, where the
         * brush model's contact slides entirely (Pacejka, ch. 3). */
        v4 tr = PDK_TYRE_L(c, trail_m) * max4(one - s_lin, zero);
        /* rolling backward the trail is ahead of the contact centre */
        tr = sel(lt4(in->vx_mps, zero), -tr, tr);
        out->mz_nm = -(tr * out->fy_n);
    } else {
        out->mz_nm = zero;
    }
}

/* ---- The Magic Formula (Pacejka, Tyre and Vehicle Dynamics, 2nd ed. 2006
 * section 4.3.2 and 3rd ed. 2012 eqs. 4.E1-4.E78) ---- */

#define PDK_TYRE_M(c, f) load4((c)->mf.f)

/* -1 below zero, else +1. */
VEC v4 tyre_sgn4(v4 x)
{
    return sel(lt4(x, splat(0.0)), splat(-1.0), splat(1.0));
}

/* min(x, 1): the Magic Formula's curvature factor E must not exceed 1, or the
 * curve folds back past its peak. */
VEC v4 tyre_cap1(v4 x)
{
    return sel(gt4(x, splat(1.0)), splat(1.0), x);
}

/* phi = C atan(bx - E (bx - atan bx)) for bx = B x (4.E17). with_e 0
 * (every lane's E is 0) skips the inner atan: bx - 0 (...) is bx. */
VEC v4 mf_phi0(v4 bx, v4 c, v4 e, int with_e)
{
    v4 u = bx;
    if (with_e) {
        u = bx - e * (bx - pdk_v_atan(bx));
    }
    return c * pdk_v_atan(u);
}

/* slide_grip on the Magic Formula's falling branch (tyre.h). Past the
 * peak of sin, |phi| > pi/2, the curve's value on the side of phi is
 * y_s = sin|phi|, falling from 1 toward y_full = sin|phi_full| at full
 * sliding (which a set with C > 2 takes below 0). It is mapped linearly,
 * y_s' = 1 - (1 - y_s) k with k = (1 - r) / (1 - y_full), so that full
 * sliding gives r of the peak, and held at r beyond full sliding. Lanes
 * where remap is 0, and the rising branch, keep y. Returns y', with *k the
 * factor on the curve's slope. */
VEC v4 mf_remap(m4 remap, v4 y, v4 phi, v4 y_full, v4 r, v4 *k)
{
    const v4 one = splat(1.0);
    m4 sign = (m4)phi & INT64_MIN;
    v4 ys = (v4)((m4)y ^ sign);
    m4 falling = remap & gt4(abs4(phi), splat(1.5707963267948966));
    v4 kk = (one - r) / max4(one - y_full, splat(1e-12));
    v4 yr = one - (one - ys) * kk;
    m4 held = lt4(yr, r);
    yr = sel(held, r, yr);
    *k = sel(falling, keep(~held, kk), one);
    return sel(falling, (v4)((m4)yr ^ sign), y);
}

/* The Magic Formula on every lane; the caller keeps the Magic Formula lanes.
 * fz > 0 is the load (the caller zeroes unloaded lanes), lsf the
 * load-sensitivity factor on top of the set's own, pressure_pa the gauge
 * pressure (0: nominal). ISO signs throughout: the sets hold negative PDY1 and
 * PKY1 (pdk_mf_problem checks), so Dy < 0, By > 0 and Fy0 < 0 for alpha > 0.
 * The lateral slip is alpha* = tan(alpha) (Pacejka 2006/2012 eq. 4.E3: alpha*
 * = tan(alpha) sgn(Vcx); the slips are taken with |Vx|, so sgn(Vcx) is 1),
 * camber enters as gamma* = sin(gamma), and the lambda scaling factors are 1
 * except lambda_mu (ground grip times the load-sensitivity factor: mu_x, mu_y,
 * SVx, SVy, Dr) and lambda_K (ground stiffness: Kx, Ky, and Bt, Br through
 * lambda_K / lambda_mu). */
VEC void tyre_mf4(const pdk_tyre_consts4 *c, const pdk_tyre_in4 *in, const pdk_tyre_ground4 *g,
                  v4 fz, v4 lsf, v4 pressure_pa, int want_mz, pdk_tyre_out4 *out)
{
    const v4 one = splat(1.0);
    const v4 zero = splat(0.0);
    const uint32_t fl = c->flags;
    fz = max4(fz, splat(1e-6));
    v4 fz0 = PDK_TYRE_M(c, fz0);
    v4 dfz = (fz - fz0) * PDK_TYRE_M(c, inv_fz0);
    v4 kappa = in->kappa;
    v4 ta = in->tan_alpha;   /* alpha* */
    v4 grip = g->grip * lsf; /* lambda_mu */
    v4 stiff = g->stiffness; /* lambda_K */
    /* gamma* = sin(gamma); sin(+-0) is +-0, so lanes at zero camber give
     * the same bits whether or not another lane has camber. */
    v4 gs = in->gamma_rad;
    if (any4((m4)(gs != zero))) {
        gs = pdk_v_sin_near0(gs); /* a camber is small: the short path */
    }
    v4 gs2 = gs * gs;
    v4 ags = abs4(gs);
    /* dpi = (p - p0) / p0 within +-0.5 (the range MF6.1 files' PRESMIN,
     * PRESMAX usually span); 0 at nominal, for a pressure of 0 and for a set
     * without pressure terms. */
    v4 dpi = zero;
    if (fl & PDK_TYRE_F_MF_PRESSURE) {
        dpi = (pressure_pa - splat(1.0) / max4(PDK_TYRE_M(c, inv_p0), splat(1e-300))) *
              PDK_TYRE_M(c, inv_p0);
        dpi = keep(gt4(pressure_pa, zero), dpi);
        dpi = max4(dpi, splat(-0.5));
        dpi = sel(gt4(dpi, splat(0.5)), splat(0.5), dpi);
    }
    v4 dpi2 = dpi * dpi;

    /* ---- pure longitudinal, Fx0(kappa) (4.E9-4.E18): per-load terms ---- */
    v4 cx = PDK_TYRE_M(c, pcx1);
    v4 mux = (PDK_TYRE_M(c, pdx1) + PDK_TYRE_M(c, pdx2) * dfz) *
             (one + PDK_TYRE_M(c, ppx3) * dpi + PDK_TYRE_M(c, ppx4) * dpi2) *
             (one - PDK_TYRE_M(c, pdx3) * gs2) * grip;
    v4 dx = mux * fz;
    v4 kx = fz * (PDK_TYRE_M(c, pkx1) + PDK_TYRE_M(c, pkx2) * dfz) *
            (one + PDK_TYRE_M(c, ppx1) * dpi + PDK_TYRE_M(c, ppx2) * dpi2) * stiff;
    if (fl & PDK_TYRE_F_MF_EXP) {
        kx = kx * pdk_v_exp(PDK_TYRE_M(c, pkx3) * dfz);
    }
    v4 dx_safe = sel(lt4(abs4(dx), splat(1e-9)), splat(1e-9), dx);
    v4 bx = kx / (cx * dx_safe);
    v4 shx = PDK_TYRE_M(c, phx1) + PDK_TYRE_M(c, phx2) * dfz;
    v4 svx = fz * (PDK_TYRE_M(c, pvx1) + PDK_TYRE_M(c, pvx2) * dfz) * grip;
    v4 kappa_x = kappa + shx;
    v4 ex = (PDK_TYRE_M(c, pex1) + PDK_TYRE_M(c, pex2) * dfz + PDK_TYRE_M(c, pex3) * dfz * dfz) *
            (one - PDK_TYRE_M(c, pex4) * tyre_sgn4(kappa_x));
    ex = tyre_cap1(ex);

    /* ---- pure lateral, Fy0(alpha) (4.E19-4.E30): per-load terms ---- */
    v4 cy = PDK_TYRE_M(c, pcy1);
    v4 muy = (PDK_TYRE_M(c, pdy1) + PDK_TYRE_M(c, pdy2) * dfz) *
             (one + PDK_TYRE_M(c, ppy3) * dpi + PDK_TYRE_M(c, ppy4) * dpi2) *
             (one - PDK_TYRE_M(c, pdy3) * gs2) * grip;
    v4 dy = muy * fz;
    /* Ky = PKY1 Fz0' (1 + PPY1 dpi)(1 - PKY3 |gamma*|) sin(PKY4 atan(Fz / q)),
     * q = (PKY2 + PKY5 gamma*^2)(1 + PPY2 dpi) Fz0'; with PKY4 = 2,
     * sin(2 atan(Fz / q)) = 2 Fz q / (q^2 + Fz^2) exactly. */
    v4 kyq =
        (PDK_TYRE_M(c, pky2) + PDK_TYRE_M(c, pky5) * gs2) * (one + PDK_TYRE_M(c, ppy2) * dpi) * fz0;
    v4 kys = splat(2.0) * fz * kyq / (kyq * kyq + fz * fz);
    if (fl & PDK_TYRE_F_MF_KY_GEN) {
        v4 gen = pdk_v_sin(PDK_TYRE_M(c, pky4) * pdk_v_atan(fz / kyq));
        kys = sel(load_mask(c->mf.ky_pac), kys, gen);
    }
    v4 ky = PDK_TYRE_M(c, pky1) * fz0 * (one + PDK_TYRE_M(c, ppy1) * dpi) *
            (one - PDK_TYRE_M(c, pky3) * ags) * kys * stiff;
    v4 ky_safe = sel(lt4(abs4(ky), splat(1e-9)), splat(-1e-9), ky);
    v4 kyg0 =
        fz * (PDK_TYRE_M(c, pky6) + PDK_TYRE_M(c, pky7) * dfz) * (one + PDK_TYRE_M(c, ppy5) * dpi);
    v4 svyg = fz * (PDK_TYRE_M(c, pvy3) + PDK_TYRE_M(c, pvy4) * dfz) * gs * grip;
    v4 svy = fz * (PDK_TYRE_M(c, pvy1) + PDK_TYRE_M(c, pvy2) * dfz) * grip + svyg;
    /* Camber: MF6.1 shifts by (Kyg0 gamma* - SVyg) / Ky (4.E27, so that
     * the camber thrust at zero slip is Kyg0 gamma*), MF5.2 / Pac2002 by
     * PHY3 gamma (and keeps SVyg); a set is one or the other
     * (mf61_camber). */
    v4 shy = PDK_TYRE_M(c, phy1) + PDK_TYRE_M(c, phy2) * dfz + PDK_TYRE_M(c, phy3) * gs +
             (kyg0 * gs - PDK_TYRE_M(c, mf61_camber) * svyg) / ky_safe;
    v4 alpha_y = ta + shy;
    v4 ey = (PDK_TYRE_M(c, pey1) + PDK_TYRE_M(c, pey2) * dfz) *
            (one + PDK_TYRE_M(c, pey5) * gs2 -
             (PDK_TYRE_M(c, pey3) + PDK_TYRE_M(c, pey4) * gs) * tyre_sgn4(alpha_y));
    ey = tyre_cap1(ey);
    v4 dy_safe = sel(lt4(abs4(dy), splat(1e-9)), splat(-1e-9), dy);
    v4 by = ky / (cy * dy_safe);

    /* ---- combined slip (4.E50-4.E67): per-load terms ---- */
    int gxa_sh = (fl & PDK_TYRE_F_MF_GXA_SH) != 0;
    int gyk_sh = (fl & PDK_TYRE_F_MF_GYK_SH) != 0;
    int exa_on = (fl & PDK_TYRE_F_MF_GXA_E) != 0;
    int eyk_on = (fl & PDK_TYRE_F_MF_GYK_E) != 0;
    int svyk_on = (fl & PDK_TYRE_F_MF_SVYK) != 0;
    /* cos(atan(x)) = 1 / sqrt(1 + x^2) */
    v4 t1 = PDK_TYRE_M(c, rbx2) * kappa;
    v4 bxa = (PDK_TYRE_M(c, rbx1) + PDK_TYRE_M(c, rbx3) * gs2) / sqrt4(one + t1 * t1);
    v4 cxa = PDK_TYRE_M(c, rcx1);
    v4 exa = tyre_cap1(PDK_TYRE_M(c, rex1) + PDK_TYRE_M(c, rex2) * dfz);
    v4 shxa = PDK_TYRE_M(c, rhx1);
    v4 t2 = PDK_TYRE_M(c, rby2) * (ta - PDK_TYRE_M(c, rby3));
    v4 byk = (PDK_TYRE_M(c, rby1) + PDK_TYRE_M(c, rby4) * gs2) / sqrt4(one + t2 * t2);
    v4 cyk = PDK_TYRE_M(c, rcy1);
    v4 eyk = tyre_cap1(PDK_TYRE_M(c, rey1) + PDK_TYRE_M(c, rey2) * dfz);
    v4 shyk = PDK_TYRE_M(c, rhy1) + PDK_TYRE_M(c, rhy2) * dfz;

    /* ---- the aligning moment's per-load terms and its first two atans
     * (4.E31-4.E49, combined 4.E71-4.E78), beside the curves' ---- */
    v4 at_t = zero, at_e = zero, xt = zero, ct = zero, ar_eq = zero, k_over_mu = zero;
    v4 cos_a = zero;
    if (want_mz) {
        v4 sht = PDK_TYRE_M(c, qhz1) + PDK_TYRE_M(c, qhz2) * dfz +
                 (PDK_TYRE_M(c, qhz3) + PDK_TYRE_M(c, qhz4) * dfz) * gs;
        v4 alpha_t = ta + sht;
        v4 alpha_r = ta + shy + svy / ky_safe;
        /* combined: alpha_eq = sqrt(alpha^2 + (Kx / Ky)^2 kappa^2) sgn(alpha)
         * (4.E77, 4.E78 with alpha* = tan alpha) */
        v4 kk = kx / ky_safe * kappa;
        v4 kk2 = kk * kk;
        v4 at_eq = sqrt4(alpha_t * alpha_t + kk2) * tyre_sgn4(alpha_t);
        ar_eq = sqrt4(alpha_r * alpha_r + kk2) * tyre_sgn4(alpha_r);
        k_over_mu = stiff / max4(grip, splat(1e-9)); /* lambda_K / lambda_mu */
        cos_a = one / sqrt4(one + ta * ta);
        v4 bt =
            (PDK_TYRE_M(c, qbz1) + PDK_TYRE_M(c, qbz2) * dfz + PDK_TYRE_M(c, qbz3) * dfz * dfz) *
            (one + PDK_TYRE_M(c, qbz4) * gs + PDK_TYRE_M(c, qbz5) * ags) * k_over_mu;
        ct = PDK_TYRE_M(c, qcz1);
        xt = bt * at_eq;
        at_t = pdk_v_atan(xt);
        at_e = pdk_v_atan(bt * ct * at_eq);
    }

    /* ---- the curves: the independent chains side by side (the first
     * atans, then the second, then the sines and cosines), so that the
     * processor overlaps them; each is sin or cos of C atan(B x - E (B x
     * - atan(B x))), 4.E17, 4.E28, 4.E52, 4.E61. ---- */
    v4 xx = bx * kappa_x;
    v4 xy = by * alpha_y;
    v4 xa = bxa * (ta + shxa);
    v4 xa0 = bxa * shxa;
    v4 xk = byk * (kappa + shyk);
    v4 xk0 = byk * shyk;
    v4 at_x = pdk_v_atan(xx);
    v4 at_y = pdk_v_atan(xy);
    v4 at_a = pdk_v_atan(xa);
    v4 at_k = pdk_v_atan(xk);
    v4 at_a0 = gxa_sh ? pdk_v_atan(xa0) : zero;
    v4 at_k0 = gyk_sh ? pdk_v_atan(xk0) : zero;
    v4 at_v = svyk_on ? pdk_v_atan(PDK_TYRE_M(c, rvy6) * kappa) : zero;
    v4 ux = xx - ex * (xx - at_x);
    v4 uy = xy - ey * (xy - at_y);
    v4 phix = cx * pdk_v_atan(ux);
    v4 phiy = cy * pdk_v_atan(uy);
    /* with E = 0 in every lane, u is B x itself and its atan is at hand */
    v4 pha = cxa * (exa_on ? pdk_v_atan(xa - exa * (xa - at_a)) : at_a);
    v4 pha0 = cxa * (exa_on && gxa_sh ? pdk_v_atan(xa0 - exa * (xa0 - at_a0)) : at_a0);
    v4 phk = cyk * (eyk_on ? pdk_v_atan(xk - eyk * (xk - at_k)) : at_k);
    v4 phk0 = cyk * (eyk_on && gyk_sh ? pdk_v_atan(xk0 - eyk * (xk0 - at_k0)) : at_k0);
    /* At the slips of most driving each angle is within the kernels'
     * range (|phi| <= 0.78, the tyre short of its peak) on all four wheels,
     * where the near-zero forms skip the reduction: the same bits either
     * way (vmath.h). */
    v4 yx, cphix, yy, cphiy;
    pdk_v_sincos_near0(phix, &yx, &cphix);
    pdk_v_sincos_near0(phiy, &yy, &cphiy);
    v4 gxa = pdk_v_cos_near0(pha);
    v4 gyk = pdk_v_cos_near0(phk);
    if (gxa_sh) {
        gxa = gxa / pdk_v_cos_near0(pha0); /* C atan(B SH): small */
    }
    if (gyk_sh) {
        gyk = gyk / pdk_v_cos_near0(phk0);
    }
    v4 svyk = zero;
    if (svyk_on) {
        v4 t3 = PDK_TYRE_M(c, rvy4) * ta;
        v4 dvyk = muy * fz *
                  (PDK_TYRE_M(c, rvy1) + PDK_TYRE_M(c, rvy2) * dfz + PDK_TYRE_M(c, rvy3) * gs) /
                  sqrt4(one + t3 * t3);
        svyk = dvyk * pdk_v_sin_near0(PDK_TYRE_M(c, rvy5) * at_v);
    }
    /* dphi/d(B x) = C (1 - E + E / (1 + (B x)^2)) / (1 + u^2), one division */
    v4 qx = one + xx * xx;
    v4 dphix = cx * ((one - ex) * qx + ex) / (qx * (one + ux * ux));
    v4 qy = one + xy * xy;
    v4 dphiy = cy * ((one - ey) * qy + ey) / (qy * (one + uy * uy));

    /* ---- slide_grip and the ground's slide scale on the falling branch ---- */
    v4 sgx = one;
    v4 sgy = one;
    v4 r_law = PDK_TYRE_L(c, slide_grip);
    m4 remap = (m4)(r_law != zero) | (m4)(g->slide != one) | (m4)(stiff != one);
    /* mf_remap changes only a lane past its curve's peak, |phi| > pi/2: at
     * the slips of most driving no lane is, and the full-sliding shares
     * below (four atans and three sines) would go unused. The same bits. */
    const v4 half_pi = splat(1.5707963267948966);
    if (any4(remap & (gt4(abs4(phix), half_pi) | gt4(abs4(phiy), half_pi)))) {
        /* Full sliding: |kappa| = 1 on the side of kappa_x, and alpha =
         * 90 degrees, where alpha* is infinite and the inner argument u
         * infinite (E < 1) or atan of infinity, pi/2 (E = 1). */
        v4 kf = tyre_sgn4(kappa_x) + shx;
        v4 exf = tyre_cap1(
            (PDK_TYRE_M(c, pex1) + PDK_TYRE_M(c, pex2) * dfz + PDK_TYRE_M(c, pex3) * dfz * dfz) *
            (one - PDK_TYRE_M(c, pex4) * tyre_sgn4(kf)));
        v4 yxf = pdk_v_sin(abs4(mf_phi0(bx * kf, cx, exf, 1)));
        /* The set's own sliding share is the one it was measured with, at
         * unit ground scales. A ground's grip and stiffness scale Bx by
         * lambda_K / lambda_mu, which compresses the curve along kappa (the
         * similarity method, Pacejka,
         * Tire and Vehicle Dynamics, ch. 4): on ice (grip 0.1,
         * stiffness 0.5) full sliding would sit five times further down the
         * falling branch, and the share would not be the one the surface
         * table's sliding ratio is relative to. So the share is taken at
         * the reference Bx, and the falling branch of the present curve is
         * mapped onto it. */
        v4 bx_ref = bx * (g->grip / max4(stiff, splat(1e-9)));
        v4 yxf_ref = pdk_v_sin(abs4(mf_phi0(bx_ref * kf, cx, exf, 1)));
        v4 atan_inf = sel(lt4(ey, one), splat(1.5707963267948966), splat(1.0038848218538872));
        v4 yyf = pdk_v_sin(cy * atan_inf);
        /* r: slide_grip, or the set's own share where it is 0, times the
         * ground's slide scale, within 0..1 */
        v4 rx = sel((m4)(r_law != zero), r_law, yxf_ref) * g->slide;
        v4 ry = sel((m4)(r_law != zero), r_law, yyf) * g->slide;
        rx = max4(sel(gt4(rx, one), one, rx), zero);
        ry = max4(sel(gt4(ry, one), one, ry), zero);
        yx = mf_remap(remap, yx, phix, yxf, rx, &sgx);
        yy = mf_remap(remap, yy, phiy, yyf, ry, &sgy);
    }
    v4 fx0 = dx * yx + svx;
    v4 fy0 = dy * yy + svy;
    /* slopes of the pure-slip curves, d/dkappa and d/dalpha* */
    v4 dfx0 = dx * cphix * dphix * bx * sgx;
    v4 dfy0 = dy * cphiy * dphiy * by * sgy;
    v4 fx = gxa * fx0;
    v4 fy = gyk * fy0 + svyk;
    v4 loss = one;
    if (fl & PDK_TYRE_F_SLIP_LOSS) {
        loss = tyre_slip_loss4(kappa, PDK_TYRE_L(c, slip_loss));
    }
    out->fx_n = fx;
    out->fy_n = fy * loss;
    const v4 dfx = gxa * dfx0;
    out->dfx_dkappa_n = max4(dfx, zero);
    out->dfx_fall_n = sel(lt4(dfx, zero), dfx, zero);
    out->dfy_dalpha_n = max4(-(gyk * dfy0 * loss), zero);
    out->peak_n = max4(abs4(dx), abs4(dy));
    if (!want_mz) {
        out->mz_nm = zero;
        return;
    }

    /* ---- the aligning moment's chain and residual ---- */
    v4 r0 = PDK_TYRE_M(c, r0);
    v4 sgn_v = tyre_sgn4(in->vx_mps); /* the trail and Mzr turn with the rolling direction */
    v4 dt = fz * (r0 * PDK_TYRE_M(c, inv_fz0)) * (PDK_TYRE_M(c, qdz1) + PDK_TYRE_M(c, qdz2) * dfz) *
            (one + PDK_TYRE_M(c, qdz3) * gs + PDK_TYRE_M(c, qdz4) * gs2) * sgn_v;
    v4 et = (PDK_TYRE_M(c, qez1) + PDK_TYRE_M(c, qez2) * dfz + PDK_TYRE_M(c, qez3) * dfz * dfz) *
            (one +
             (PDK_TYRE_M(c, qez4) + PDK_TYRE_M(c, qez5) * gs) * splat(0.63661977236758134) * at_e);
    et = tyre_cap1(et);
    v4 trail = dt * pdk_v_cos(ct * pdk_v_atan(xt - et * (xt - at_t))) * cos_a;
    v4 br = PDK_TYRE_M(c, qbz9) * k_over_mu + PDK_TYRE_M(c, qbz10) * by * cy;
    v4 dr = fz * r0 *
            ((PDK_TYRE_M(c, qdz6) + PDK_TYRE_M(c, qdz7) * dfz) +
             (PDK_TYRE_M(c, qdz8) + PDK_TYRE_M(c, qdz9) * dfz) * gs) *
            grip * sgn_v;
    v4 t4 = br * ar_eq;
    v4 mzr = dr / sqrt4(one + t4 * t4) * cos_a;
    v4 s_arm =
        r0 * (PDK_TYRE_M(c, ssz1) + PDK_TYRE_M(c, ssz2) * (out->fy_n * PDK_TYRE_M(c, inv_fz0)) +
              (PDK_TYRE_M(c, ssz3) + PDK_TYRE_M(c, ssz4) * dfz) * gs);
    out->mz_nm = -(trail * (out->fy_n - svyk)) + mzr + s_arm * fx;
}

/* Evaluates the four tyres' laws (tyre.h pdk_tyre_eval, lane by lane) at
 * the tyres' gauge pressures (Magic Formula sets with pressure terms; 0 is
 * the set's nominal pressure). want_mz 0 leaves mz_nm 0 and skips its
 * cost. A lane with no load gives zeros. */
VEC void pdk_tyre_eval4_at_pressure(const pdk_tyre_consts4 *c, const pdk_tyre_in4 *in,
                                    v4 pressure_pa, const pdk_tyre_ground4 *g, int want_mz,
                                    pdk_tyre_out4 *out)
{
    const v4 zero = splat(0.0);
    v4 fz = max4(in->fz_n, zero);
    m4 loaded = gt4(fz, zero);
    v4 lsf = tyre_load_factor4(c, fz);
    pdk_tyre_out4 o = {zero, zero, zero, zero, zero, zero, zero};
    if (c->laws & ((1u << PDK_TYRE_GRIP) | (1u << PDK_TYRE_UTV))) {
        tyre_simple4(c, in, g, fz, lsf, want_mz, &o);
    }
    if (c->laws & (1u << PDK_TYRE_MAGIC)) {
        /* A coefficient set describes a tyre mounted on the left of the
         * car; on the right the same tyre turns the other way round, so
         * its lateral offsets (conicity, ply steer: SHy, SVy, the
         * residual Mz) change side. The right wheels see the mirror
         * image: Fy(alpha, gamma) -> -Fy(-alpha, -gamma), and Mz likewise
         * (as MF tools do for the side opposite the measured one, e.g.
         * projectchrono/chrono ChPac02Tire's measured-side handling).
         * Without it a symmetric car on a fully locked set drifts sideways
         * off a straight stop. Flipping a sign bit is exact. */
        const m4 mirror = load_mask(c->mirror);
        const m4 sign_bit = mirror & (m4){INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
        pdk_tyre_in4 mi = *in;
        mi.tan_alpha = (v4)((m4)in->tan_alpha ^ sign_bit);
        mi.gamma_rad = (v4)((m4)in->gamma_rad ^ sign_bit);
        pdk_tyre_out4 m;
        tyre_mf4(c, &mi, g, fz, lsf, pressure_pa, want_mz, &m);
        m.fy_n = (v4)((m4)m.fy_n ^ sign_bit);
        m.mz_nm = (v4)((m4)m.mz_nm ^ sign_bit);
        if (c->laws == (1u << PDK_TYRE_MAGIC)) {
            o = m;
        } else {
            m4 mf = load_mask(c->is_magic);
            o.fx_n = sel(mf, m.fx_n, o.fx_n);
            o.fy_n = sel(mf, m.fy_n, o.fy_n);
            o.mz_nm = sel(mf, m.mz_nm, o.mz_nm);
            o.dfx_dkappa_n = sel(mf, m.dfx_dkappa_n, o.dfx_dkappa_n);
            o.dfx_fall_n = sel(mf, m.dfx_fall_n, o.dfx_fall_n);
            o.dfy_dalpha_n = sel(mf, m.dfy_dalpha_n, o.dfy_dalpha_n);
            o.peak_n = sel(mf, m.peak_n, o.peak_n);
        }
    }
    out->fx_n = keep(loaded, o.fx_n);
    out->fy_n = keep(loaded, o.fy_n);
    out->mz_nm = keep(loaded, o.mz_nm);
    out->dfx_dkappa_n = keep(loaded, o.dfx_dkappa_n);
    out->dfx_fall_n = keep(loaded, o.dfx_fall_n);
    out->dfy_dalpha_n = keep(loaded, o.dfy_dalpha_n);
    out->peak_n = keep(loaded, o.peak_n);
}

VEC void pdk_tyre_eval4(const pdk_tyre_consts4 *c, const pdk_tyre_in4 *in,
                        const pdk_tyre_ground4 *g, int want_mz, pdk_tyre_out4 *out)
{
    pdk_tyre_eval4_at_pressure(c, in, splat(0.0), g, want_mz, out);
}

/* The relaxation lengths at load fz_n (tyre.h pdk_tyre_relaxation), lane by
 * lane. Magic Formula sets with PTX1 and PTY1 give Pac2002's lengths (Pacejka,
 * ch. 7, as projectchrono/chrono's ChPac02Tire codes them in CalcSigmaK,
 * CalcSigmaA):
 *   sigma_kappa = Fz (PTX1 + PTX2 dfz) exp(PTX3 dfz) R0 / Fz0',
 *   sigma_alpha = PTY1 sin(2 atan(Fz / (PTY2 Fz0'))) R0 LFZO
 * (at zero camber: the (1 - PKY3 |gamma|) factor is left out, the call
 * has no camber). Otherwise the def's lengths (at Fz_nom) are scaled with
 * load by the same lateral form with PTY2 = 2, sin(2 atan(Fz / (2
 * Fz_nom))) / sin(2 atan(1/2)). Each is floored at a tenth of its value
 * at nominal load, so that a lightly loaded tyre's relaxation does not
 * vanish. */
VEC void pdk_tyre_relaxation4(const pdk_tyre_consts4 *c, v4 fz_n, v4 *sigma_kappa_m,
                              v4 *sigma_alpha_m)
{
    const v4 one = splat(1.0);
    v4 fz = max4(fz_n, splat(0.0));
    const int magic = (c->laws & (1u << PDK_TYRE_MAGIC)) != 0;
    const m4 mk = magic ? load_mask(c->mf.sig_k) : (m4){0, 0, 0, 0};
    const m4 ma = magic ? load_mask(c->mf.sig_a) : (m4){0, 0, 0, 0};
    v4 sk = splat(0.0), sa = splat(0.0);
    if (any4(~(mk & ma))) { /* some lane takes the def's lengths */
        v4 x = fz / (splat(2.0) * PDK_TYRE_L(c, fz_nom));
        v4 f = (splat(2.0) * x / (one + x * x)) * splat(1.0 / 0.8);
        sk = PDK_TYRE_L(c, sigma_kappa) * f;
        sa = PDK_TYRE_L(c, sigma_alpha) * f;
    }
    if (any4(mk | ma)) {
        v4 fz0 = PDK_TYRE_M(c, fz0);
        v4 dfz = (fz - fz0) * PDK_TYRE_M(c, inv_fz0);
        v4 skm = fz * (PDK_TYRE_M(c, ptx1) + PDK_TYRE_M(c, ptx2) * dfz) *
                 pdk_v_exp(PDK_TYRE_M(c, ptx3) * dfz) * PDK_TYRE_M(c, r0) * PDK_TYRE_M(c, inv_fz0);
        v4 xa = fz / (PDK_TYRE_M(c, pty2) * fz0);
        v4 sam = PDK_TYRE_M(c, pty1) * (splat(2.0) * xa / (one + xa * xa)) * PDK_TYRE_M(c, r0_lfzo);
        sk = sel(mk, skm, sk);
        sa = sel(ma, sam, sa);
    }
    *sigma_kappa_m = max4(sk, PDK_TYRE_L(c, sigma_floor_kappa));
    *sigma_alpha_m = max4(sa, PDK_TYRE_L(c, sigma_floor_alpha));
}

#endif
