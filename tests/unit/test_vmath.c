/* Tests of the deterministic elementary functions (vmath.h) against the
 * long double libm (64-bit significands, so its error is about 0.001 of a
 * double ulp): the largest error in double ulps over 2^17 points per
 * function (random with a fixed seed, plus the edge cases: zeros, tiny,
 * subnormal, huge, inf, NaN, the doubles nearest multiples of pi/2, the
 * neighbours of 1 for log, the ends of exp's range), each printed to
 * stderr and held to the bound the header states; exact special values;
 * exact symmetry; each lane computed on its own; and the AVX build of the
 * same code giving the same bits as the baseline build. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "math/trig.h"
#include "math/vmath.h"

#define N_RANDOM (1 << 17)

/* xorshift64: the same points on every run. */
static uint64_t rng_state;

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64() >> 11) * 0x1p-53);
}

/* +-2^u with u uniform in [lo2, hi2): magnitudes spread over binades. */
static double log_uniform(double lo2, double hi2)
{
    double m = exp2(uniform(lo2, hi2));
    return (next_u64() & 1u) != 0 ? -m : m;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* |got - ref| in units of the last place of the double nearest ref
 * (2^-1074 in the subnormal range). Infinite or NaN references must be
 * matched exactly (NaN by NaN); a mismatch counts as 1e9 ulp.
 * The long double work is kept in functions of its own (never inlined):
 * GCC 12 at -O2 lost track of the stack in a caller that mixed x87
 * arguments with 32-byte vectors. */
__attribute__((noinline)) static double ulp_error(double got, long double ref)
{
    if (isnan(ref) || isnan(got)) {
        return isnan(ref) && isnan(got) ? 0.0 : 1e9;
    }
    if (isinf(ref) || isinf(got)) {
        return got == (double)ref ? 0.0 : 1e9;
    }
    int e;
    (void)frexpl(ref, &e);
    if (e - 53 < -1074) {
        e = -1074 + 53;
    }
    return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - 53));
}

typedef enum { F_SIN, F_COS, F_ATAN, F_EXP, F_LOG, F_POW, F_TANH } fn;

__attribute__((noinline)) static double error_of(fn f, double got, double x, double y)
{
    long double lx = x;
    switch (f) {
    case F_SIN:
        return ulp_error(got, sinl(lx));
    case F_COS:
        return ulp_error(got, cosl(lx));
    case F_ATAN:
        return ulp_error(got, atanl(lx));
    case F_EXP:
        return ulp_error(got, expl(lx));
    case F_LOG:
        return ulp_error(got, logl(lx));
    case F_POW:
        return ulp_error(got, powl(lx, (long double)y));
    default:
        return ulp_error(got, tanhl(lx));
    }
}

/* The function under test at (x, y), through the vector function with x
 * in lane `lane` and other values in the other lanes, so that the lanes'
 * independence is exercised too. */
static double call(fn f, double x, double y, int lane)
{
    v4 vx = {0.5, -2.0, 3.0, 7.0};
    v4 vy = {1.5, 2.5, -0.5, 3.0};
    vx[lane] = x;
    vy[lane] = y;
    switch (f) {
    case F_SIN:
        return pdk_v_sin(vx)[lane];
    case F_COS:
        return pdk_v_cos(vx)[lane];
    case F_ATAN:
        return pdk_v_atan(vx)[lane];
    case F_EXP:
        return pdk_v_exp(vx)[lane];
    case F_LOG:
        return pdk_v_log(vx)[lane];
    case F_POW:
        return pdk_v_pow(vx, vy)[lane];
    default:
        return pdk_v_tanh(vx)[lane];
    }
}

/* The call on one value, which must equal the vector function bit for bit. */
static double call_scalar(fn f, double x, double y)
{
    switch (f) {
    case F_SIN:
        return pdk_sin(x);
    case F_COS:
        return pdk_cos(x);
    case F_ATAN:
        return pdk_atan(x);
    case F_EXP:
        return pdk_exp(x);
    case F_LOG:
        return pdk_log(x);
    case F_POW:
        return pdk_pow(x, y);
    default:
        return pdk_tanh(x);
    }
}

typedef struct worst {
    double ulp;
    double x, y;
    long n;
} worst;

static void check_point(fn f, double x, double y, worst *w)
{
    int lane = (int)(w->n & 3);
    double got = call(f, x, y, lane);
    double scalar = call_scalar(f, x, y);
    ck_assert_msg(same_bits(got, scalar), "lane %d and scalar differ at x = %a y = %a", lane, x, y);
    double e = error_of(f, got, x, y);
    if (e > w->ulp) {
        w->ulp = e;
        w->x = x;
        w->y = y;
    }
    w->n++;
}

static void report(const char *name, const worst *w, double bound)
{
    fprintf(stderr, "vmath %-5s max error %.3f ulp (bound %.1f) over %ld points, at x = %.17g",
            name, w->ulp, bound, w->n, w->x);
    if (w->y != 0.0) {
        fprintf(stderr, " y = %.17g", w->y);
    }
    fprintf(stderr, "\n");
    ck_assert_msg(w->ulp <= bound, "%s: %.3f ulp at x = %a y = %a exceeds %.1f", name, w->ulp, w->x,
                  w->y, bound);
    ck_assert_int_ge(w->n, 100000);
}

/* The double nearest k pi/2 and its neighbours: the arguments whose
 * reduction cancels most. */
static void near_half_pis(fn f, worst *w, long k_max, long step)
{
    for (long k = 1; k <= k_max; k += step) {
        double x = (double)((long double)k * 1.57079632679489661923132169163975144L);
        for (int d = -2; d <= 2; d++) {
            double xd = x;
            for (int i = 0; i < (d < 0 ? -d : d); i++) {
                xd = nextafter(xd, d < 0 ? 0.0 : (double)INFINITY);
            }
            check_point(f, xd, 0.0, w);
            check_point(f, -xd, 0.0, w);
        }
    }
}

static void sin_cos_points(fn f, worst *w)
{
    static const double edges[] = {0.0,
                                   -0.0,
                                   0x1p-1074,
                                   -0x1p-1074,
                                   0x1p-1022,
                                   1e-300,
                                   1e-8,
                                   0.78539816339744828,
                                   0.78539816339744839,
                                   1e5,
                                   -1e5,
                                   99999.999999999985};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(f, edges[i], 0.0, w);
    }
    near_half_pis(f, w, 2000, 1);
    near_half_pis(f, w, 63600, 97);
    for (long i = 0; i < N_RANDOM; i++) {
        double x;
        switch (i & 3) {
        case 0:
            x = uniform(-4.0, 4.0);
            break;
        case 1:
            x = uniform(-100.0, 100.0);
            break;
        case 2:
            x = uniform(-1e5, 1e5);
            break;
        default:
            x = log_uniform(-40.0, 16.6);
            break;
        }
        check_point(f, x, 0.0, w);
    }
}

START_TEST(test_sin_accuracy)
{
    rng_state = 0x9E3779B97F4A7C15u;
    worst w = {0};
    sin_cos_points(F_SIN, &w);
    report("sin", &w, 1.0);
}
END_TEST

START_TEST(test_cos_accuracy)
{
    rng_state = 0xD1B54A32D192ED03u;
    worst w = {0};
    sin_cos_points(F_COS, &w);
    report("cos", &w, 1.0);
}
END_TEST

START_TEST(test_atan_accuracy)
{
    rng_state = 0x8CB92BA72F3D8DD7u;
    worst w = {0};
    static const double edges[] = {0.0,    -0.0,    0x1p-1074, -0x1p-1074, 0x1p-1022, 1e-300, 1e-10,
                                   0.4375, 0.6875,  1.1875,    2.4375,     1.0,       -1.0,   1e16,
                                   -1e16,  DBL_MAX, -DBL_MAX,  INFINITY,   -INFINITY, NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(F_ATAN, edges[i], 0.0, &w);
        check_point(F_ATAN, nextafter(edges[i], 0.0), 0.0, &w);
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double x;
        switch (i % 3) {
        case 0:
            x = uniform(-3.0, 3.0);
            break;
        case 1:
            x = uniform(-30.0, 30.0);
            break;
        default:
            x = log_uniform(-60.0, 80.0);
            break;
        }
        check_point(F_ATAN, x, 0.0, &w);
    }
    report("atan", &w, 1.0);
}
END_TEST

START_TEST(test_exp_accuracy)
{
    rng_state = 0x2545F4914F6CDD1Du;
    worst w = {0};
    worst normal = {0}; /* the points whose result is normal */
    static const double edges[] = {0.0,
                                   -0.0,
                                   0x1p-1074,
                                   -0x1p-1074,
                                   1e-300,
                                   1.0,
                                   -1.0,
                                   0.34657359027997264, /* ln2 / 2 */
                                   -0.34657359027997264,
                                   709.782712893384,
                                   709.7827128933841, /* first to overflow */
                                   710.0,
                                   1000.0,
                                   -708.39641853226408, /* about DBL_MIN */
                                   -745.13321910194110, /* about 2^-1074 */
                                   -745.2,
                                   -1000.0,
                                   INFINITY,
                                   -INFINITY,
                                   NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(F_EXP, edges[i], 0.0, &w);
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double x;
        switch (i & 3) {
        case 0:
            x = uniform(-745.2, 709.78);
            break;
        case 1:
            x = uniform(-5.0, 5.0);
            break;
        case 2:
            x = log_uniform(-60.0, 0.0);
            break;
        default:
            x = uniform(-745.2, -700.0); /* subnormal results */
            break;
        }
        check_point(F_EXP, x, 0.0, &w);
        if (x > -708.39) {
            check_point(F_EXP, x, 0.0, &normal);
        }
    }
    report("exp", &w, 1.0);
    fprintf(stderr, "vmath exp   max error %.3f ulp where the result is normal\n", normal.ulp);
}
END_TEST

START_TEST(test_log_accuracy)
{
    rng_state = 0x94D049BB133111EBu;
    worst w = {0};
    static const double edges[] = {1.0,
                                   0x1p-1074,
                                   0x1p-1073,
                                   0x1p-1022,
                                   DBL_MAX,
                                   0.5,
                                   2.0,
                                   1.4142135623730949,
                                   1.4142135623730951,
                                   0.70710678118654746,
                                   0.70710678118654757,
                                   INFINITY,
                                   0.0,
                                   -0.0,
                                   -1.0,
                                   -INFINITY,
                                   NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(F_LOG, edges[i], 0.0, &w);
    }
    double up = 1.0;
    double down = 1.0;
    for (int i = 0; i < 64; i++) {
        up = nextafter(up, 2.0);
        down = nextafter(down, 0.0);
        check_point(F_LOG, up, 0.0, &w);
        check_point(F_LOG, down, 0.0, &w);
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double x;
        switch (i & 3) {
        case 0:
            x = exp2(uniform(-1074.0, 1024.0));
            break;
        case 1:
            x = uniform(0.5, 2.0);
            break;
        case 2:
            x = 1.0 + fabs(log_uniform(-50.0, -2.0)) * ((next_u64() & 1u) != 0 ? -1.0 : 1.0);
            break;
        default:
            x = exp2(uniform(-1074.0, -1020.0)); /* subnormal arguments */
            break;
        }
        check_point(F_LOG, x, 0.0, &w);
    }
    report("log", &w, 1.0);
}
END_TEST

START_TEST(test_pow_accuracy)
{
    rng_state = 0xBF58476D1CE4E5B9u;
    worst w = {0};
    static const double edges[][2] = {{2.0, 10.0},          {2.0, 0.5},           {10.0, -3.0},
                                      {1e-6, 10.0},         {1e6, 10.0},          {1e6, -10.0},
                                      {1e-6, -10.0},        {0.5, 1.0},           {3.0, 1e-20},
                                      {1.0 + 0x1p-52, 7.5}, {1.0 - 0x1p-53, -9.0}};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(F_POW, edges[i][0], edges[i][1], &w);
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double x = exp2(uniform(-19.93, 19.93)); /* [1e-6, 1e6] */
        double y = uniform(-10.0, 10.0);
        switch (i & 3) {
        case 1:
            y = log_uniform(-30.0, 0.0);
            break;
        case 2:
            x = 1.0 + log_uniform(-40.0, -1.0);
            break;
        case 3:
            y = (double)(int)uniform(-10.0, 11.0);
            break;
        default:
            break;
        }
        check_point(F_POW, x, y, &w);
    }
    report("pow", &w, 1.0);
}
END_TEST

START_TEST(test_tanh_accuracy)
{
    rng_state = 0x6A09E667F3BCC909u;
    worst w = {0};
    static const double edges[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074, 1e-300, 1e-9, 0.55, -0.55,
                                   0.54999999999999993, 19.0, 19.1, 20.0, -20.0, 710.0, DBL_MAX,
                                   /* where the call on one value changes path */
                                   0.25, -0.25, 0x1.fffffffffffffp-3, 0x1.3ffffffffffffp+4,
                                   0x1.4000000000001p+4, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_point(F_TANH, edges[i], 0.0, &w);
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double x;
        switch (i % 3) {
        case 0:
            x = uniform(-20.0, 20.0);
            break;
        case 1:
            x = uniform(-1.0, 1.0);
            break;
        default:
            x = log_uniform(-60.0, 3.0);
            break;
        }
        check_point(F_TANH, x, 0.0, &w);
    }
    report("tanh", &w, 1.0);
}
END_TEST

/* Values that must be exact (or exactly libm's special values). */
START_TEST(test_special_values)
{
    const double pio2 = 1.5707963267948966;
    ck_assert(same_bits(pdk_exp(0.0), 1.0));
    ck_assert(same_bits(pdk_exp(-0.0), 1.0));
    ck_assert(same_bits(pdk_exp(INFINITY), INFINITY));
    ck_assert(same_bits(pdk_exp(-INFINITY), 0.0));
    ck_assert(same_bits(pdk_exp(1000.0), INFINITY));
    ck_assert(same_bits(pdk_exp(-1000.0), 0.0));
    ck_assert(same_bits(pdk_exp(-745.13321910194110), 0x1p-1074));
    ck_assert(isnan(pdk_exp(NAN)));
    ck_assert(same_bits(pdk_log(1.0), 0.0));
    ck_assert(same_bits(pdk_log(0.0), -INFINITY));
    ck_assert(same_bits(pdk_log(-0.0), -INFINITY));
    ck_assert(same_bits(pdk_log(INFINITY), INFINITY));
    ck_assert(isnan(pdk_log(-1.0)));
    ck_assert(isnan(pdk_log(-INFINITY)));
    ck_assert(isnan(pdk_log(NAN)));
    ck_assert(same_bits(pdk_log(2.0), 0.69314718055994531));
    ck_assert(same_bits(pdk_sin(0.0), 0.0));
    ck_assert(same_bits(pdk_sin(-0.0), -0.0));
    ck_assert(same_bits(pdk_cos(0.0), 1.0));
    ck_assert(same_bits(pdk_cos(-0.0), 1.0));
    ck_assert(same_bits(pdk_sin(0x1p-1074), 0x1p-1074));
    /* Outside the domain |x| <= 1e5, and for inf and NaN: NaN. */
    ck_assert(isnan(pdk_sin(INFINITY)));
    ck_assert(isnan(pdk_cos(-INFINITY)));
    ck_assert(isnan(pdk_sin(NAN)));
    ck_assert(isnan(pdk_sin(1.0000000000000001e5)));
    ck_assert(isnan(pdk_cos(-2e5)));
    ck_assert(!isnan(pdk_sin(1e5)) && !isnan(pdk_cos(-1e5)));
    ck_assert(same_bits(pdk_atan(0.0), 0.0));
    ck_assert(same_bits(pdk_atan(-0.0), -0.0));
    ck_assert(same_bits(pdk_atan(INFINITY), pio2));
    ck_assert(same_bits(pdk_atan(-INFINITY), -pio2));
    ck_assert(same_bits(pdk_atan(1.0), 0.78539816339744831));
    ck_assert(isnan(pdk_atan(NAN)));
    ck_assert(same_bits(pdk_tanh(0.0), 0.0));
    ck_assert(same_bits(pdk_tanh(-0.0), -0.0));
    ck_assert(same_bits(pdk_tanh(INFINITY), 1.0));
    ck_assert(same_bits(pdk_tanh(-INFINITY), -1.0));
    ck_assert(same_bits(pdk_tanh(30.0), 1.0));
    ck_assert(same_bits(pdk_tanh(0x1p-1074), 0x1p-1074));
    ck_assert(isnan(pdk_tanh(NAN)));
    ck_assert(same_bits(pdk_pow(3.7, 0.0), 1.0));
    ck_assert(same_bits(pdk_pow(1.0, 123.4), 1.0));
    ck_assert(same_bits(pdk_pow(2.0, 10.0), 1024.0));
    ck_assert(same_bits(pdk_pow(4.0, 0.5), 2.0));
    ck_assert(same_bits(pdk_pow(INFINITY, 2.0), INFINITY));
    ck_assert(same_bits(pdk_pow(INFINITY, -2.0), 0.0));
    ck_assert(same_bits(pdk_pow(0.0, 2.0), 0.0));
    ck_assert(same_bits(pdk_pow(0.0, -2.0), INFINITY));
    ck_assert(same_bits(pdk_pow(10.0, 400.0), INFINITY));
    ck_assert(same_bits(pdk_pow(10.0, -400.0), 0.0));
    ck_assert(same_bits(pdk_pow(1.0 + 0x1p-52, 1e300), INFINITY));
    ck_assert(isnan(pdk_pow(-2.0, 2.0))); /* x < 0 is outside the domain */
    ck_assert(isnan(pdk_pow(NAN, 2.0)));
    ck_assert(isnan(pdk_pow(2.0, NAN)));
}
END_TEST

/* sin, atan and tanh are odd and cos is even, bit for bit. */
START_TEST(test_symmetry)
{
    rng_state = 0x510E527FADE682D1u;
    for (long i = 0; i < 20000; i++) {
        double x = i % 2 == 0 ? uniform(0.0, 100.0) : fabs(log_uniform(-30.0, 16.0));
        ck_assert_msg(same_bits(pdk_sin(-x), -pdk_sin(x)), "sin at %a", x);
        ck_assert_msg(same_bits(pdk_cos(-x), pdk_cos(x)), "cos at %a", x);
        ck_assert_msg(same_bits(pdk_atan(-x), -pdk_atan(x)), "atan at %a", x);
        ck_assert_msg(same_bits(pdk_tanh(-x), -pdk_tanh(x)), "tanh at %a", x);
    }
}
END_TEST

/* The near-0 variants are the full functions, bit for bit, whether every
 * lane is near 0 (their short path) or some lane is not (the full path):
 * at 0, -0, the smallest values, both sides of the 0.78 limit, pi/4, and
 * random arguments, in every lane, next to a small or a large neighbour. */
static void check_near0(v4 x)
{
    v4 s, c, s0, c0;
    pdk_v_sincos(x, &s, &c);
    pdk_v_sincos_near0(x, &s0, &c0);
    v4 sn = pdk_v_sin_near0(x);
    v4 cn = pdk_v_cos_near0(x);
    for (int l = 0; l < PDK_LANES; l++) {
        ck_assert_msg(same_bits(s0[l], s[l]) && same_bits(sn[l], s[l]),
                      "sin near 0 differs at lane %d x = %a: %a, %a, full %a", l, x[l], s0[l],
                      sn[l], s[l]);
        ck_assert_msg(same_bits(c0[l], c[l]) && same_bits(cn[l], c[l]),
                      "cos near 0 differs at lane %d x = %a: %a, %a, full %a", l, x[l], c0[l],
                      cn[l], c[l]);
    }
}

START_TEST(test_near0_same_bits)
{
    rng_state = 0x5851F42D4C957F2Du;
    static const double edges[] = {
        0.0,   -0.0,       0x1p-1074,   -0x1p-1074,          0x1p-1022,  1e-300, 1e-8, 0.78,
        -0.78, 0.78000001, -0.78000001, 0.78539816339744828, -0.7853982, 2.0,    1e5,  NAN};
    const int n_edges = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < n_edges; i++) {
        for (int j = 0; j < n_edges; j++) {
            check_near0((v4){edges[i], edges[j], edges[i], -edges[j]});
            check_near0((v4){0.1, edges[i], 0.3, edges[j]});
        }
    }
    for (long i = 0; i < N_RANDOM; i++) {
        double a = uniform(-0.78, 0.78);
        double b = i & 1 ? uniform(-0.78, 0.78) : uniform(-1.2, 1.2);
        double d = log_uniform(-40.0, -0.36);
        check_near0((v4){a, b, d, -d});
    }
}
END_TEST

/* ---- the AVX build against the baseline build ---- */

#define N_BITS 4096

typedef struct outputs {
    double v[12][N_BITS];
} outputs;

static double in_x[N_BITS];
static double in_y[N_BITS];
static outputs out_base;
static outputs out_avx;

/* Every function over the inputs, four at a time; compiled twice below. */
#define RUN_ALL(o)                                                                                 \
    for (int i = 0; i < N_BITS; i += 4) {                                                          \
        v4 x = load4(&in_x[i]);                                                                    \
        v4 y = load4(&in_y[i]);                                                                    \
        v4 s, c;                                                                                   \
        pdk_v_sincos(x, &s, &c);                                                                   \
        store4(&(o)->v[0][i], s);                                                                  \
        store4(&(o)->v[1][i], c);                                                                  \
        store4(&(o)->v[2][i], pdk_v_sin(x));                                                       \
        store4(&(o)->v[3][i], pdk_v_cos(x));                                                       \
        store4(&(o)->v[4][i], pdk_v_atan(x));                                                      \
        store4(&(o)->v[5][i], pdk_v_exp(x));                                                       \
        store4(&(o)->v[6][i], pdk_v_log(abs4(x)));                                                 \
        store4(&(o)->v[7][i], pdk_v_pow(abs4(x), y));                                              \
        store4(&(o)->v[8][i], pdk_v_tanh(x));                                                      \
        v4 xs = x * splat(0.1); /* mostly near 0, so that both paths run */                        \
        pdk_v_sincos_near0(xs, &s, &c);                                                            \
        store4(&(o)->v[9][i], s);                                                                  \
        store4(&(o)->v[10][i], c);                                                                 \
        store4(&(o)->v[11][i], pdk_v_sin_near0(xs) + pdk_v_cos_near0(xs));                         \
    }

static void run_base(outputs *o)
{
    RUN_ALL(o)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void run_avx(outputs *o){RUN_ALL(o)}
#endif

START_TEST(test_avx_same_bits)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx")) {
        fprintf(stderr, "test_vmath: no AVX on this processor; AVX build not compared\n");
        return;
    }
    rng_state = 0x1F83D9ABFB41BD6Bu;
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < N_BITS; i++) {
            switch ((i + round) % 4) {
            case 0:
                in_x[i] = uniform(-10.0, 10.0);
                break;
            case 1:
                in_x[i] = log_uniform(-40.0, 10.0);
                break;
            case 2:
                in_x[i] = uniform(-745.0, 709.0);
                break;
            default:
                in_x[i] = uniform(-1e5, 1e5);
                break;
            }
            in_y[i] = uniform(-10.0, 10.0);
        }
        run_base(&out_base);
        run_avx(&out_avx);
        for (int f = 0; f < 12; f++) {
            for (int i = 0; i < N_BITS; i++) {
                ck_assert_msg(same_bits(out_base.v[f][i], out_avx.v[f][i]),
                              "output %d at x = %a y = %a: baseline %a, AVX %a", f, in_x[i],
                              in_y[i], out_base.v[f][i], out_avx.v[f][i]);
            }
        }
    }
#else
    fprintf(stderr, "test_vmath: not x86-64; no AVX build to compare\n");
#endif
}
END_TEST

/* The distance from got to the long double want in units of the last place
 * of want rounded to double (the smallest subnormal at zero). */
static double ulps_from(double got, long double want)
{
    double w = fabs((double)want);
    double ulp = nextafter(w, INFINITY) - w;
    return (double)(fabsl((long double)got - want) / (long double)ulp);
}

/* trig.h's sincos, each lane of sincos4 and the scalar call (lane 0 of the
 * two-lane build of the same formula): within one ulp of 1 (2^-52) of the
 * long double sine and cosine up to PDK_TRIG_MAX_ARG, at the camber
 * angles, the headings and the reduction's edge; 0 and 1 at +-0; NaN for NaN
 * and the infinities; and the scalar call gives each lane's bits. */
START_TEST(test_sincos4_within_an_ulp_of_sinl)
{
    enum { N = 4096 };
    static double x[N];
    rng_state = 0x243F6A8885A308D3u;
    const double fixed[] = {
        0.0,  -0.0,         1e-300,   -1e-300, M_PI / 4, -M_PI / 4,       M_PI / 2,
        M_PI, 3 * M_PI / 2, 2 * M_PI, 1e5,     -1e5,     PDK_TRIG_MAX_ARG};
    const int n_fixed = (int)(sizeof fixed / sizeof fixed[0]);
    for (int i = 0; i < N; i++) {
        if (i < n_fixed) {
            x[i] = fixed[i];
        } else if (i % 3 == 0) {
            x[i] = uniform(-0.3, 0.3); /* camber angles */
        } else if (i % 3 == 1) {
            x[i] = uniform(-10.0, 10.0);
        } else {
            x[i] = uniform(-1e5, 1e5);
        }
    }
    const long double one_ulp = 0x1p-52L;
    for (int i = 0; i < N; i += 4) {
        v4 s4, c4;
        sincos4((v4){x[i], x[i + 1], x[i + 2], x[i + 3]}, &s4, &c4);
        for (int k = 0; k < 4; k++) {
            long double xl = x[i + k];
            ck_assert_msg(fabsl(s4[k] - sinl(xl)) <= one_ulp, "sin at %a: %a, sinl %La", x[i + k],
                          s4[k], sinl(xl));
            ck_assert_msg(fabsl(c4[k] - cosl(xl)) <= one_ulp, "cos at %a: %a, cosl %La", x[i + k],
                          c4[k], cosl(xl));
            double s, c;
            pdk_trig_sincos(x[i + k], &s, &c);
            ck_assert_msg(same_bits(s, s4[k]) && same_bits(c, c4[k]),
                          "at %a: scalar (%a, %a), lane (%a, %a)", x[i + k], s, c, s4[k], c4[k]);
        }
    }
    v4 s0, c0;
    sincos4((v4){0.0, -0.0, 0.0, -0.0}, &s0, &c0);
    ck_assert(s0[0] == 0.0 && s0[1] == 0.0 && c0[0] == 1.0 && c0[1] == 1.0);
    v4 sn, cn;
    sincos4((v4){NAN, INFINITY, -INFINITY, NAN}, &sn, &cn);
    for (int k = 0; k < 4; k++) {
        ck_assert(isnan(sn[k]) && isnan(cn[k]));
    }
}
END_TEST

/* trig.h's atan2, each lane of atan2_4 and the scalar call: within three
 * ulp of the long double atan2l over the slip velocities and all four
 * quadrants (the formula's bound is about two); C's value and sign on the
 * axes, at the origin with either sign of zero and for the infinities; NaN
 * for NaN; and the scalar call gives each lane's bits. The slip-angle
 * channels of both models take it. */
START_TEST(test_atan2_4_within_three_ulp_of_atan2l)
{
    enum { N = 4096 };
    static double y[N], x[N];
    rng_state = 0x13198A2E03707344u;
    const double fixed[] = {0.0, -0.0,     1.0,       -1.0, 1e-300, -1e-300, 1e300,
                            0.5, INFINITY, -INFINITY, NAN,  3.0,    -7.5,    1e-5};
    const int n_fixed = (int)(sizeof fixed / sizeof fixed[0]);
    for (int i = 0; i < N; i++) {
        if (i < n_fixed * n_fixed) {
            y[i] = fixed[i / n_fixed];
            x[i] = fixed[i % n_fixed];
        } else if (i % 2 == 0) {
            y[i] = uniform(-5.0, 5.0); /* slip velocities */
            x[i] = uniform(0.5, 60.0);
        } else {
            y[i] = uniform(-1e3, 1e3);
            x[i] = uniform(-1e3, 1e3);
        }
    }
    for (int i = 0; i < N; i += 4) {
        v4 r4 = atan2_4((v4){y[i], y[i + 1], y[i + 2], y[i + 3]},
                        (v4){x[i], x[i + 1], x[i + 2], x[i + 3]});
        for (int k = 0; k < 4; k++) {
            double yk = y[i + k];
            double xk = x[i + k];
            long double want = atan2l(yk, xk);
            if (isnan(yk) || isnan(xk)) {
                ck_assert_msg(isnan(r4[k]), "atan2 at (%a, %a): %a, not NaN", yk, xk, r4[k]);
            } else {
                ck_assert_msg(ulps_from(r4[k], want) <= 3.0 && !signbit(r4[k]) == !signbit(want),
                              "atan2 at (%a, %a): %a, atan2l %La", yk, xk, r4[k], want);
            }
            double r = pdk_trig_atan2(yk, xk);
            ck_assert_msg((isnan(r) && isnan(r4[k])) || same_bits(r, r4[k]),
                          "atan2 at (%a, %a): scalar %a, lane %a", yk, xk, r, r4[k]);
        }
    }
}
END_TEST

static Suite *vmath_suite(void)
{
    Suite *s = suite_create("vmath");
    TCase *acc = tcase_create("accuracy");
    tcase_set_timeout(acc, 60);
    tcase_add_test(acc, test_sin_accuracy);
    tcase_add_test(acc, test_cos_accuracy);
    tcase_add_test(acc, test_atan_accuracy);
    tcase_add_test(acc, test_exp_accuracy);
    tcase_add_test(acc, test_log_accuracy);
    tcase_add_test(acc, test_pow_accuracy);
    tcase_add_test(acc, test_tanh_accuracy);
    suite_add_tcase(s, acc);
    TCase *exact = tcase_create("exact");
    tcase_add_test(exact, test_special_values);
    tcase_add_test(exact, test_symmetry);
    tcase_add_test(exact, test_near0_same_bits);
    tcase_add_test(exact, test_avx_same_bits);
    tcase_add_test(exact, test_sincos4_within_an_ulp_of_sinl);
    tcase_add_test(exact, test_atan2_4_within_three_ulp_of_atan2l);
    suite_add_tcase(s, exact);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(vmath_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
