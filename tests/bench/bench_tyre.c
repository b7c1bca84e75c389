/* Measures the tyre laws alone (server/sim/tyre.h, tyre_lanes.h):
 * nanoseconds per tyre evaluation for each law (the grip law, the UTV law,
 * the Magic Formula with the 205/60R15 road set and with the kart set),
 * with and without the aligning moment, three ways: the four-lane
 * pdk_tyre_eval4 compiled for the baseline x86-64 (SSE2) and compiled for
 * AVX (as four_wheel.c's AVX build inlines it), both per tyre (the
 * four-lane call's time / 4), and the scalar pdk_tyre_eval (one tyre a
 * call, the constants built each call). The inputs cycle through 1024
 * four-tyre sets with loads, slips and camber spread over a car's range
 * (rising branch, peak and sliding), on the reference ground. Each figure
 * is the best of five runs, timed by the thread's CPU clock. It prints; it
 * never fails on a time.
 * Usage: bench_tyre [seconds per run, default 0.2]. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tyre/tyre.h"
#include "tyre/tyre_lanes.h"

#define N_SETS 1024

/* The thread's CPU time, so that a run that the scheduler preempts on a
 * busy machine is not charged for the time it waited. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double unit(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (double)(uint32_t)(rng_state >> 33) / 2147483648.0;
}

static pdk_tyre_in4 inputs[N_SETS];
static pdk_tyre_ground4 ground;
static volatile double sink;

static void make_inputs(double fz_nom)
{
    for (int s = 0; s < N_SETS; s++) {
        for (int i = 0; i < 4; i++) {
            /* mostly the rising branch, a fifth of them past the peak */
            double sliding = unit() < 0.2 ? 1.0 : 0.0;
            inputs[s].fz_n[i] = fz_nom * (0.3 + 1.4 * unit());
            inputs[s].kappa[i] = (unit() - 0.5) * (sliding ? 0.8 : 0.12);
            inputs[s].tan_alpha[i] = (unit() - 0.5) * (sliding ? 0.6 : 0.15);
            inputs[s].gamma_rad[i] = (unit() - 0.5) * 0.04;
            inputs[s].vx_mps[i] = 5.0 + 40.0 * unit();
        }
    }
    ground.grip = splat(1.0);
    ground.stiffness = splat(1.0);
    ground.slide = splat(1.0);
}

static double consume(const pdk_tyre_out4 *o)
{
    return o->fx_n[0] + o->fy_n[1] + o->mz_nm[2] + o->dfx_dkappa_n[3] + o->dfy_dalpha_n[0] +
           o->peak_n[1];
}

static __attribute__((noinline)) double run_base(const pdk_tyre_consts4 *c, long n, int want_mz)
{
    double acc = 0.0;
    pdk_tyre_out4 o;
    for (long k = 0; k < n; k++) {
        pdk_tyre_eval4(c, &inputs[k & (N_SETS - 1)], &ground, want_mz, &o);
        acc += consume(&o);
    }
    return acc;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"), noinline)) static double run_avx(const pdk_tyre_consts4 *c, long n,
                                                               int want_mz)
{
    double acc = 0.0;
    pdk_tyre_out4 o;
    for (long k = 0; k < n; k++) {
        pdk_tyre_eval4(c, &inputs[k & (N_SETS - 1)], &ground, want_mz, &o);
        acc += consume(&o);
    }
    return acc;
}
#endif

static __attribute__((noinline)) double run_scalar(const pdk_tyre_law_def *d, long n, int want_mz)
{
    double acc = 0.0;
    const pdk_tyre_ground g = {1.0, 1.0, 1.0};
    for (long k = 0; k < n; k++) {
        const pdk_tyre_in4 *v = &inputs[k & (N_SETS - 1)];
        int i = (int)((k >> 10) & 3);
        pdk_tyre_in in = {v->fz_n[i], v->kappa[i], v->tan_alpha[i], v->gamma_rad[i], v->vx_mps[i]};
        pdk_tyre_out o;
        pdk_tyre_eval(d, &g, &in, want_mz, &o);
        acc += o.fx_n + o.fy_n + o.mz_nm;
    }
    return acc;
}

typedef enum variant { BASE, AVX, SCALAR } variant;

/* ns per tyre, best of five runs of about seconds each. */
static double measure(variant v, const pdk_tyre_law_def *d, const pdk_tyre_consts4 *c, int want_mz,
                      double seconds)
{
    long n = 1 << 14;
    for (;;) { /* calibrate */
        double t0 = now_s();
        if (v == BASE) {
            sink = run_base(c, n, want_mz);
        } else if (v == AVX) {
#if defined(__x86_64__) && defined(__GNUC__)
            sink = run_avx(c, n, want_mz);
#endif
        } else {
            sink = run_scalar(d, n, want_mz);
        }
        double t = now_s() - t0;
        if (t > seconds * 0.25 || n > (1L << 34)) {
            n = (long)((double)n * seconds / t);
            break;
        }
        n *= 4;
    }
    double best = 1e300;
    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        if (v == BASE) {
            sink = run_base(c, n, want_mz);
        } else if (v == AVX) {
#if defined(__x86_64__) && defined(__GNUC__)
            sink = run_avx(c, n, want_mz);
#endif
        } else {
            sink = run_scalar(d, n, want_mz);
        }
        double t = now_s() - t0;
        if (t < best) {
            best = t;
        }
    }
    double tyres = v == SCALAR ? (double)n : 4.0 * (double)n;
    return best / tyres * 1e9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.2;
    if (!(seconds > 0.0)) {
        fprintf(stderr, "usage: bench_tyre [seconds per run]\n");
        return 2;
    }
    int have_avx = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    have_avx = __builtin_cpu_supports("avx");
#endif
    struct {
        const char *name;
        pdk_tyre_law_def def;
    } laws[4];
    laws[0].name = "grip";
    laws[0].def = pdk_tyre_law_def_default();
    laws[1].name = "utv";
    laws[1].def = pdk_tyre_law_def_default();
    laws[1].def.law = PDK_TYRE_UTV;
    laws[1].def.mu_x = 0.8;
    laws[1].def.cornering_per_load = 8.0;
    laws[1].def.slide_grip = 1.0;
    laws[2].name = "magic road205";
    laws[3].name = "magic kart";
    for (int i = 2; i < 4; i++) {
        pdk_mf_set set = i == 2 ? PDK_MF_ROAD_205_60R15 : PDK_MF_KART;
        laws[i].def = pdk_tyre_law_def_default();
        laws[i].def.law = PDK_TYRE_MAGIC;
        laws[i].def.mf_set = set;
        laws[i].def.mf = *pdk_mf_set_coeffs(set);
        /* The road set keeps its own falling branch; the kart set's shape
         * factor is above 2, so its own curve turns negative before full
         * sliding and the law needs a slide_grip (tyre.c
         * pdk_tyre_law_def_problem): the kart preset's, 0.6. */
        laws[i].def.slide_grip = set == PDK_MF_KART ? 0.6 : 0.0;
        laws[i].def.nominal_load_n = laws[i].def.mf.fnomin_n * laws[i].def.mf.lfzo;
    }
    printf("bench_tyre: ns per tyre evaluation (four-lane call / 4; scalar: one call), "
           "best of 5, %.2f s per run%s\n",
           seconds, have_avx ? "" : " (no AVX on this processor)");
    printf("%-15s %-8s %12s %12s %12s\n", "law", "Mz", "lanes SSE2", "lanes AVX", "scalar");
    for (int i = 0; i < 4; i++) {
        const char *problem = pdk_tyre_law_def_problem(&laws[i].def);
        if (problem != NULL) {
            fprintf(stderr, "bench_tyre: %s: %s\n", laws[i].name, problem);
            return 1;
        }
        pdk_tyre_consts4 c;
        pdk_tyre_consts4_init(&c, &laws[i].def, &laws[i].def);
        make_inputs(laws[i].def.nominal_load_n);
        for (int want = 0; want < 2; want++) {
            double b = measure(BASE, &laws[i].def, &c, want, seconds);
            double a = have_avx ? measure(AVX, &laws[i].def, &c, want, seconds) : 0.0;
            double s = measure(SCALAR, &laws[i].def, &c, want, seconds);
            printf("%-15s %-8s %12.1f %12.1f %12.1f\n", laws[i].name, want ? "with" : "without", b,
                   a, s);
        }
    }
    printf("sizeof(pdk_tyre_consts4) = %zu bytes\n", sizeof(pdk_tyre_consts4));
    return 0;
}
