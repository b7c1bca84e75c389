/* Measures the deterministic elementary functions of vmath.h: nanoseconds
 * per call on four lanes, for each function as compiled by default
 * (baseline x86-64: two SSE2 halves) and as compiled for AVX (one
 * register, as the four-wheel step's AVX build sees them), beside four
 * calls of the libm function for reference. The calls are independent
 * (throughput, as in the tyre loop over many vehicles), over inputs in the
 * ranges the tyre laws use. Each figure is the best of five runs, timed
 * by the thread's CPU clock. It prints; it never fails on a time.
 * Usage: bench_vmath [seconds per run, default 0.1]. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "math/vmath.h"

#define N_VEC 1024

/* The thread's CPU time, so that a busy machine's preemptions do not
 * count. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

/* Uniform in [lo, hi). */
static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1p-53;
}

static v4 in_a[N_VEC];
static v4 in_b[N_VEC];
static v4 out[N_VEC];

enum { F_SIN, F_COS, F_SINCOS, F_ATAN, F_EXP, F_LOG, F_POW, F_TANH, F_COUNT };

static const char *const names[F_COUNT] = {"sin", "cos", "sincos", "atan",
                                           "exp", "log", "pow",    "tanh"};

/* The inputs of function f: angles below 10 rad, slip-like atan arguments,
 * load exponents, positive bases and exponents for pow. */
static void fill(int f)
{
    for (int i = 0; i < N_VEC; i++) {
        for (int l = 0; l < PDK_LANES; l++) {
            double a;
            double b = 0.0;
            switch (f) {
            case F_ATAN:
                a = uniform(-30.0, 30.0);
                break;
            case F_EXP:
                a = uniform(-50.0, 50.0);
                break;
            case F_LOG:
                a = exp(uniform(-10.0, 10.0));
                break;
            case F_POW:
                a = exp(uniform(-5.0, 5.0));
                b = uniform(-3.0, 3.0);
                break;
            case F_TANH:
                a = uniform(-5.0, 5.0);
                break;
            default:
                a = uniform(-10.0, 10.0);
                break;
            }
            in_a[i][l] = a;
            in_b[i][l] = b;
        }
    }
}

/* One pass over the inputs; the same body is compiled twice below. */
#define PASS_BODY                                                                                  \
    for (int i = 0; i < N_VEC; i++) {                                                              \
        v4 a = in_a[i];                                                                            \
        v4 r;                                                                                      \
        switch (f) {                                                                               \
        case F_SIN:                                                                                \
            r = pdk_v_sin(a);                                                                      \
            break;                                                                                 \
        case F_COS:                                                                                \
            r = pdk_v_cos(a);                                                                      \
            break;                                                                                 \
        case F_SINCOS: {                                                                           \
            v4 s, c;                                                                               \
            pdk_v_sincos(a, &s, &c);                                                               \
            r = s + c;                                                                             \
            break;                                                                                 \
        }                                                                                          \
        case F_ATAN:                                                                               \
            r = pdk_v_atan(a);                                                                     \
            break;                                                                                 \
        case F_EXP:                                                                                \
            r = pdk_v_exp(a);                                                                      \
            break;                                                                                 \
        case F_LOG:                                                                                \
            r = pdk_v_log(a);                                                                      \
            break;                                                                                 \
        case F_POW:                                                                                \
            r = pdk_v_pow(a, in_b[i]);                                                             \
            break;                                                                                 \
        default:                                                                                   \
            r = pdk_v_tanh(a);                                                                     \
            break;                                                                                 \
        }                                                                                          \
        out[i] = r;                                                                                \
    }

/* The switch is outside the loop after unswitching; f is constant per
 * pass either way. */
static void pass_base(int f)
{
    PASS_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX_BUILD 1
__attribute__((target("avx"))) static void pass_avx(int f)
{
    PASS_BODY
}
#endif

/* Four libm calls per vector, for reference. */
static void pass_libm(int f)
{
    for (int i = 0; i < N_VEC; i++) {
        for (int l = 0; l < PDK_LANES; l++) {
            double a = in_a[i][l];
            double r;
            switch (f) {
            case F_SIN:
                r = sin(a);
                break;
            case F_COS:
                r = cos(a);
                break;
            case F_SINCOS:
                r = sin(a) + cos(a);
                break;
            case F_ATAN:
                r = atan(a);
                break;
            case F_EXP:
                r = exp(a);
                break;
            case F_LOG:
                r = log(a);
                break;
            case F_POW:
                r = pow(a, in_b[i][l]);
                break;
            default:
                r = tanh(a);
                break;
            }
            out[i][l] = r;
        }
    }
}

/* Best of five runs of about `seconds` each: ns per four-lane call. */
static double measure(void (*pass)(int), int f, double seconds)
{
    double best = INFINITY;
    for (int run = 0; run < 5; run++) {
        long passes = 0;
        double t0 = now_s();
        double t;
        do {
            pass(f);
            passes++;
            t = now_s();
        } while (t - t0 < seconds);
        double ns = (t - t0) * 1e9 / ((double)passes * N_VEC);
        if (ns < best) {
            best = ns;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.1;
    if (!(seconds > 0.0)) {
        fprintf(stderr, "usage: bench_vmath [seconds per run > 0]\n");
        return 2;
    }
#ifdef HAVE_AVX_BUILD
    __builtin_cpu_init();
    int avx = __builtin_cpu_supports("avx");
#else
    int avx = 0;
#endif
    printf("vmath: ns per 4-lane call (best of 5, %.2f s each)\n", seconds);
    printf("%-8s %10s %10s %14s\n", "function", "baseline", "avx", "libm x4 (ref)");
    double sink = 0.0;
    for (int f = 0; f < F_COUNT; f++) {
        fill(f);
        double base = measure(pass_base, f, seconds);
        sink += out[0][0];
        double vavx = NAN;
#ifdef HAVE_AVX_BUILD
        if (avx) {
            vavx = measure(pass_avx, f, seconds);
            sink += out[0][0];
        }
#endif
        double lib = measure(pass_libm, f, seconds);
        sink += out[0][0];
        printf("%-8s %10.2f %10.2f %14.2f\n", names[f], base, vavx, lib);
    }
    if (!avx) {
        printf("(no AVX on this processor)\n");
    }
    /* Keeps the results observable. */
    return sink == 12345.678 ? 1 : 0;
}
