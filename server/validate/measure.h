/* Figures taken from traces: the understeer gradient's straight-line fit
 * (ISO 4138's steer against lateral acceleration) and a step response's
 * times and overshoot (ISO 7401). Pure functions of the arrays given, so
 * that they are tested on synthetic traces. */
#ifndef PDK_VALIDATE_MEASURE_H
#define PDK_VALIDATE_MEASURE_H

#include <stddef.h>

/* The least-squares line y = slope x + intercept through the points whose
 * x lies in [x_lo, x_hi]. Returns the number of points used; with fewer
 * than 2 (or all at one x) it returns 0 and sets both to NAN. */
size_t pdk_fit_line(const double *x, const double *y, size_t n, double x_lo, double x_hi,
                    double *slope, double *intercept);

/* A step response as ISO 7401 defines its figures. */
typedef struct pdk_step_figures {
    double steady;          /* the mean over the trace's last settle_s */
    double rise_time_s;     /* from 10 % to 90 % of steady */
    double response_time_s; /* from the input's 50 % point to 90 % of steady */
    double peak;            /* the largest response, signed as steady */
    double peak_time_s;     /* from the input's 50 % point to the peak */
    double overshoot;       /* (peak - steady) / steady, 0 when it never exceeds steady */
    double settle_spread;   /* the largest |r - steady| / |steady| over the last settle_s */
} pdk_step_figures;

/* Figures of the response r(t) (n samples, t rising, r 0 before the input:
 * subtract what it was) to an input whose 50 % point is at t_input50_s;
 * settle_s is the tail taken as steady. Crossing times are the first from
 * the trace's start, interpolated between samples; the peak is sought from
 * t_input50_s on. A response that never reaches a
 * level leaves that time NAN. Returns 0, or -1 when n < 2, settle_s holds
 * no sample or the steady value is 0. */
int pdk_step_figures_of(const double *t, const double *r, size_t n, double t_input50_s,
                        double settle_s, pdk_step_figures *out);

#endif
