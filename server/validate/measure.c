/* The fits and step-response figures of measure.h. */
#include "measure.h"

#include <math.h>

size_t pdk_fit_line(const double *x, const double *y, size_t n, double x_lo, double x_hi,
                    double *slope, double *intercept)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] >= x_lo && x[i] <= x_hi) || !isfinite(y[i])) {
            continue;
        }
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
        used++;
    }
    const double k = (double)used;
    const double den = k * sxx - sx * sx;
    if (used < 2 || !(fabs(den) > 1e-12 * fmax(1.0, k * sxx))) {
        *slope = *intercept = NAN;
        return 0;
    }
    *slope = (k * sxy - sx * sy) / den;
    *intercept = (sy - *slope * sx) / k;
    return used;
}

/* The first time r / steady reaches level, interpolated, from index from;
 * NAN when it never does. */
static double crossing_s(const double *t, const double *r, size_t n, size_t from, double steady,
                         double level)
{
    for (size_t i = from + 1; i < n; i++) {
        const double a = r[i - 1] / steady, b = r[i] / steady;
        if (a < level && b >= level) {
            return t[i - 1] + (level - a) / (b - a) * (t[i] - t[i - 1]);
        }
    }
    return NAN;
}

int pdk_step_figures_of(const double *t, const double *r, size_t n, double t_input50_s,
                        double settle_s, pdk_step_figures *out)
{
    if (n < 2) {
        return -1;
    }
    const double t_end = t[n - 1];
    double sum = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] >= t_end - settle_s) {
            sum += r[i];
            k++;
        }
    }
    if (k == 0 || sum == 0.0) {
        return -1;
    }
    const double steady = sum / (double)k;
    size_t start = 0;
    while (start + 1 < n && t[start + 1] <= t_input50_s) {
        start++;
    }
    double peak = steady, peak_t = NAN, spread = 0.0;
    for (size_t i = start; i < n; i++) {
        if (r[i] / steady > peak / steady) {
            peak = r[i];
            peak_t = t[i];
        }
        if (t[i] >= t_end - settle_s) {
            spread = fmax(spread, fabs(r[i] - steady) / fabs(steady));
        }
    }
    /* The response may pass 10 % before the input's 50 % point: the
     * crossings are searched from the trace's start. */
    const double t10 = crossing_s(t, r, n, 0, steady, 0.1);
    const double t90 = crossing_s(t, r, n, 0, steady, 0.9);
    out->steady = steady;
    out->rise_time_s = t90 - t10;
    out->response_time_s = t90 - t_input50_s;
    out->peak = peak;
    out->peak_time_s = isfinite(peak_t) ? peak_t - t_input50_s : NAN;
    out->overshoot = (peak - steady) / steady;
    out->settle_spread = spread;
    return 0;
}
