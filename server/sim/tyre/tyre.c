/* The tyre module's scalar side (tyre.h): the four-lane constants from two
 * axles' definitions, the scalar evaluation as lane 0 of the vector code
 * (tyre_lanes.h), the default definition and the checks of a
 * definition. The coefficient sets are in tyre_sets.c. */
#include "tyre/tyre.h"

#include <math.h>
#include <string.h>

#include "tyre/tyre_lanes.h"

static void put2(double a[4], double front, double rear)
{
    a[0] = front;
    a[1] = front;
    a[2] = rear;
    a[3] = rear;
}

static void put_mask2(int64_t a[4], int front, int rear)
{
    a[0] = front ? -1 : 0;
    a[1] = front ? -1 : 0;
    a[2] = rear ? -1 : 0;
    a[3] = rear ? -1 : 0;
}

#define PUT(field, expr_f, expr_r) put2(c->field, (expr_f), (expr_r))

/* The lengths at nominal load and the lanes that take them from PTX, PTY
 * (tyre_lanes.h pdk_tyre_relaxation4). */
static void sigma_init(double *sk, double *sa, int *mk, int *ma, const pdk_tyre_law_def *d)
{
    const pdk_mf_coeffs *mf = &d->mf;
    *sk = d->relaxation_long_m;
    *sa = d->relaxation_lat_m;
    *mk = d->law == PDK_TYRE_MAGIC && mf->ptx1 != 0.0;
    *ma = d->law == PDK_TYRE_MAGIC && mf->pty1 != 0.0 && mf->pty2 != 0.0;
    if (*mk) {
        *sk = mf->ptx1 * mf->unloaded_radius_m;
    }
    if (*ma) {
        double x = 1.0 / mf->pty2;
        *sa = mf->pty1 * (2.0 * x / (1.0 + x * x)) * mf->unloaded_radius_m * mf->lfzo;
    }
}

/* The Magic Formula part of c. Lanes of another law get the road205 set,
 * which keeps their discarded arithmetic finite; the flags come from the
 * Magic Formula lanes only. */
static void mf_init(pdk_tyre_consts4 *c, const pdk_tyre_law_def *const d[2])
{
    const pdk_mf_coeffs *fallback = pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
    const pdk_mf_coeffs *m[2];
    for (int i = 0; i < 2; i++) {
        m[i] = d[i]->law == PDK_TYRE_MAGIC ? &d[i]->mf : fallback;
    }
#define MF_PUT_(name) put2(c->mf.name, m[0]->name, m[1]->name);
    PDK_TYRE_MF_LIST(MF_PUT_)
#undef MF_PUT_
    double fz0[2], p0inv[2];
    for (int i = 0; i < 2; i++) {
        double lfzo = m[i]->lfzo != 0.0 ? m[i]->lfzo : 1.0;
        fz0[i] = m[i]->fnomin_n * lfzo;
        p0inv[i] = m[i]->nominal_pressure_pa > 0.0 ? 1.0 / m[i]->nominal_pressure_pa : 0.0;
    }
    put2(c->mf.fz0, fz0[0], fz0[1]);
    put2(c->mf.inv_fz0, 1.0 / fz0[0], 1.0 / fz0[1]);
    put2(c->mf.r0, m[0]->unloaded_radius_m, m[1]->unloaded_radius_m);
    put2(c->mf.inv_p0, p0inv[0], p0inv[1]);
    put2(c->mf.r0_lfzo, m[0]->unloaded_radius_m * m[0]->lfzo, m[1]->unloaded_radius_m * m[1]->lfzo);
    put_mask2(c->mf.ky_pac, m[0]->pky4 == 2.0, m[1]->pky4 == 2.0);
    put2(c->mf.mf61_camber, m[0]->pky6 != 0.0 || m[0]->pky7 != 0.0 ? 1.0 : 0.0,
         m[1]->pky6 != 0.0 || m[1]->pky7 != 0.0 ? 1.0 : 0.0);
    double sk[2], sa[2];
    int mk[2], ma[2];
    for (int i = 0; i < 2; i++) {
        sigma_init(&sk[i], &sa[i], &mk[i], &ma[i], d[i]);
    }
    put_mask2(c->mf.sig_k, mk[0], mk[1]);
    put_mask2(c->mf.sig_a, ma[0], ma[1]);
    put2(c->sigma_floor_kappa, 0.1 * sk[0], 0.1 * sk[1]);
    put2(c->sigma_floor_alpha, 0.1 * sa[0], 0.1 * sa[1]);
    for (int i = 0; i < 2; i++) {
        if (d[i]->law != PDK_TYRE_MAGIC) {
            continue;
        }
        const pdk_mf_coeffs *f = m[i];
        if (f->pkx3 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_EXP;
        }
        if (f->pky4 != 2.0) {
            c->flags |= PDK_TYRE_F_MF_KY_GEN;
        }
        if (f->rex1 != 0.0 || f->rex2 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_GXA_E;
        }
        if (f->rey1 != 0.0 || f->rey2 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_GYK_E;
        }
        if (f->rhx1 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_GXA_SH;
        }
        if (f->rhy1 != 0.0 || f->rhy2 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_GYK_SH;
        }
        if (f->rvy1 != 0.0 || f->rvy2 != 0.0 || f->rvy3 != 0.0) {
            c->flags |= PDK_TYRE_F_MF_SVYK;
        }
        if (f->nominal_pressure_pa > 0.0) {
            c->flags |= PDK_TYRE_F_MF_PRESSURE;
        }
    }
}

void pdk_tyre_consts4_init(pdk_tyre_consts4 *c, const pdk_tyre_law_def *front,
                           const pdk_tyre_law_def *rear)
{
    /* Every field is written below (no memset: the scalar functions build
     * one per call). */
    const pdk_tyre_law_def *d[2] = {front, rear};
    c->laws = 0;
    c->flags = 0;
    for (int i = 0; i < 2; i++) {
        c->laws |= 1u << (unsigned)d[i]->law;
        if (d[i]->load_sensitivity != 0.0) {
            c->flags |= PDK_TYRE_F_LOAD_SENS;
        }
        if (d[i]->combined_slip_loss != 0.0) {
            c->flags |= PDK_TYRE_F_SLIP_LOSS;
        }
    }
    put_mask2(c->is_utv, front->law == PDK_TYRE_UTV, rear->law == PDK_TYRE_UTV);
    put_mask2(c->is_magic, front->law == PDK_TYRE_MAGIC, rear->law == PDK_TYRE_MAGIC);
    c->mirror[0] = 0;
    c->mirror[1] = front->law == PDK_TYRE_MAGIC ? -1 : 0;
    c->mirror[2] = 0;
    c->mirror[3] = rear->law == PDK_TYRE_MAGIC ? -1 : 0;
    PUT(fz_nom, front->nominal_load_n, rear->nominal_load_n);
    PUT(load_sens, front->load_sensitivity, rear->load_sensitivity);
    PUT(slide_grip, front->slide_grip, rear->slide_grip);
    PUT(slip_loss, front->combined_slip_loss, rear->combined_slip_loss);
    PUT(sigma_kappa, front->relaxation_long_m, rear->relaxation_long_m);
    PUT(sigma_alpha, front->relaxation_lat_m, rear->relaxation_lat_m);
    double v[2][6];
    for (int i = 0; i < 2; i++) {
        const pdk_tyre_law_def *e = d[i];
        int utv = e->law == PDK_TYRE_UTV;
        v[i][0] = e->mu_x;
        v[i][1] = utv ? e->mu_x : e->mu_y;
        v[i][2] = utv ? e->hard_slip_stiffness : e->slip_stiffness_per_load;
        v[i][3] = e->cornering_per_load;
        v[i][4] = e->cornering_per_load > 0.0 ? e->camber_per_load / e->cornering_per_load : 0.0;
        v[i][5] = e->trail_m;
    }
    PUT(mu_x, v[0][0], v[1][0]);
    PUT(mu_y, v[0][1], v[1][1]);
    PUT(long_stiff, v[0][2], v[1][2]);
    PUT(lat_stiff, v[0][3], v[1][3]);
    PUT(camber_shift, v[0][4], v[1][4]);
    PUT(trail_m, v[0][5], v[1][5]);
    mf_init(c, d);
}

void pdk_tyre_eval(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                   const pdk_tyre_in *in, int want_mz, pdk_tyre_out *out)
{
    pdk_tyre_eval_at_pressure(def, ground, in, 0.0, want_mz, out);
}

void pdk_tyre_eval_at_pressure(const pdk_tyre_law_def *def, const pdk_tyre_ground *ground,
                               const pdk_tyre_in *in, double pressure_pa, int want_mz,
                               pdk_tyre_out *out)
{
    pdk_tyre_consts4 c;
    pdk_tyre_consts4_init(&c, def, def);
    pdk_tyre_in4 in4 = {splat(in->fz_n), splat(in->kappa), splat(in->tan_alpha),
                        splat(in->gamma_rad), splat(in->vx_mps)};
    pdk_tyre_ground4 g4 = {splat(ground->grip), splat(ground->stiffness), splat(ground->slide)};
    pdk_tyre_out4 o;
    pdk_tyre_eval4_at_pressure(&c, &in4, splat(pressure_pa), &g4, want_mz, &o);
    out->fx_n = o.fx_n[0];
    out->fy_n = o.fy_n[0];
    out->mz_nm = o.mz_nm[0];
    out->dfx_dkappa_n = o.dfx_dkappa_n[0];
    out->dfy_dalpha_n = o.dfy_dalpha_n[0];
    out->peak_n = o.peak_n[0];
}

void pdk_tyre_relaxation(const pdk_tyre_law_def *def, double fz_n, double *sigma_kappa_m,
                         double *sigma_alpha_m)
{
    pdk_tyre_consts4 c;
    pdk_tyre_consts4_init(&c, def, def);
    v4 sk, sa;
    pdk_tyre_relaxation4(&c, splat(fz_n), &sk, &sa);
    *sigma_kappa_m = sk[0];
    *sigma_alpha_m = sa[0];
}

pdk_tyre_law_def pdk_tyre_law_def_default(void)
{
    pdk_tyre_law_def d;
    memset(&d, 0, sizeof d);
    d.law = PDK_TYRE_GRIP;
    d.radius_m = 0.31;
    d.nominal_load_n = 4000.0;
    d.cornering_per_load = 12.0;
    d.slip_stiffness_per_load = 18.0;
    d.mu_x = 1.0;
    d.mu_y = 1.0;
    d.camber_per_load = 0.0;
    d.trail_m = 0.03;
    d.hard_slip_stiffness = 12.0;
    d.mf_set = PDK_MF_ROAD_205_60R15;
    const pdk_mf_coeffs *mf = pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
    if (mf != NULL) {
        d.mf = *mf;
    }
    d.load_sensitivity = 0.0;
    d.slide_grip = 0.75;
    d.combined_slip_loss = 0.0;
    d.relaxation_long_m = 0.15;
    d.relaxation_lat_m = 0.45;
    d.rolling_coeff = 0.011;
    return d;
}

static int finite_in(double x, double lo, double hi)
{
    return isfinite(x) && x >= lo && x <= hi;
}

const char *pdk_tyre_law_def_problem(const pdk_tyre_law_def *def)
{
    if (def == NULL) {
        return "tyre: no definition";
    }
    if (def->law != PDK_TYRE_GRIP && def->law != PDK_TYRE_MAGIC && def->law != PDK_TYRE_UTV) {
        return "tyre.law must be grip, magic or utv";
    }
    if (!finite_in(def->radius_m, 0.05, 2.0)) {
        return "tyre.radius_m must be within 0.05..2 m";
    }
    if (!finite_in(def->nominal_load_n, 10.0, 1e6)) {
        return "tyre.nominal_load_n must be within 10..1e6 N";
    }
    if (!finite_in(def->load_sensitivity, 0.0, 0.5)) {
        return "tyre.load_sensitivity must be within 0..0.5";
    }
    if (!finite_in(def->slide_grip, 0.0, 1.0)) {
        return "tyre.slide_grip must be within 0..1";
    }
    if (!finite_in(def->combined_slip_loss, 0.0, PDK_TYRE_SLIP_LOSS_MAX)) {
        return "tyre.combined_slip_loss must be within 0..0.9 (1 leaves a locked wheel no side "
               "force)";
    }
    if (!finite_in(def->relaxation_long_m, 1e-3, 10.0)) {
        return "tyre.relaxation_long_m must be within 0.001..10 m";
    }
    if (!finite_in(def->relaxation_lat_m, 1e-3, 10.0)) {
        return "tyre.relaxation_lat_m must be within 0.001..10 m";
    }
    if (!finite_in(def->rolling_coeff, 0.0, 0.5)) {
        return "tyre.rolling_coeff must be within 0..0.5";
    }
    if (def->law == PDK_TYRE_GRIP || def->law == PDK_TYRE_UTV) {
        if (def->slide_grip < PDK_TYRE_SLIDE_GRIP_MIN) {
            return "tyre.slide_grip must be within 0.1..1 for the grip and utv laws (below, a "
                   "sliding tyre has next to no friction; 0 means the set's own falling branch "
                   "only on magic)";
        }
        if (!finite_in(def->mu_x, 0.01, 5.0)) {
            return "tyre.mu_x must be within 0.01..5";
        }
        if (def->law == PDK_TYRE_GRIP && !finite_in(def->mu_y, 0.01, 5.0)) {
            return "tyre.mu_y must be within 0.01..5";
        }
        if (!finite_in(def->cornering_per_load, 0.1, 200.0)) {
            return "tyre.cornering_per_load must be within 0.1..200 1/rad";
        }
        if (def->law == PDK_TYRE_GRIP && !finite_in(def->slip_stiffness_per_load, 0.1, 500.0)) {
            return "tyre.slip_stiffness_per_load must be within 0.1..500";
        }
        if (def->law == PDK_TYRE_UTV && !finite_in(def->hard_slip_stiffness, 0.1, 500.0)) {
            return "tyre.hard_slip_stiffness must be within 0.1..500";
        }
        if (!finite_in(def->camber_per_load, -50.0, 50.0)) {
            return "tyre.camber_per_load must be within -50..50 1/rad";
        }
        if (!finite_in(def->trail_m, 0.0, 0.5)) {
            return "tyre.trail_m must be within 0..0.5 m";
        }
    }
    if (def->law == PDK_TYRE_MAGIC) {
        if (pdk_mf_set_name(def->mf_set) == NULL) {
            return "tyre.mf_set must be road205, sport, slick or kart";
        }
        if (def->slide_grip != 0.0 && def->slide_grip < PDK_TYRE_SLIDE_GRIP_MIN) {
            return "tyre.slide_grip must be 0 (the set's own falling branch) or within 0.1..1 "
                   "on the magic law";
        }
        /* sin(C pi / 2), the curve's share at full sliding (E < 1), is
         * negative for a shape factor above 2: such a set's own falling
         * branch pushes the wrong way before full sliding. */
        if (def->slide_grip == 0.0 && (def->mf.pcx1 > 2.0 || def->mf.pcy1 > 2.0)) {
            return "tyre.slide_grip must be within 0.1..1 for a set whose pcx1 or pcy1 is above "
                   "2 (its own curve turns negative before full sliding)";
        }
        return pdk_mf_problem(&def->mf);
    }
    return NULL;
}
