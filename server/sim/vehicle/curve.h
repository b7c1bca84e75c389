/* A kinematic curve's value at a suspension travel (sim/vehicle_def.h
 * pdk_curve): the one formula, inline where the four-wheel step reads
 * its curves each substep; pdk_curve_eval is it for everyone else. */
#ifndef PDK_CURVE_H
#define PDK_CURVE_H

#include "sim/vehicle_def.h"

/* Linear between points, held at the end values beyond them; 0 for an
 * absent curve (no points). */
static inline double pdk_curve_at(const pdk_curve *c, double travel_m)
{
    int n = c->n_points;
    if (n <= 0) {
        return 0.0;
    }
    if (travel_m <= c->travel_m[0]) {
        return c->value[0];
    }
    if (travel_m >= c->travel_m[n - 1]) {
        return c->value[n - 1];
    }
    int i = 1;
    while (travel_m > c->travel_m[i]) {
        i++;
    }
    double x0 = c->travel_m[i - 1];
    double y0 = c->value[i - 1];
    return y0 + (travel_m - x0) * ((c->value[i] - y0) / (c->travel_m[i] - x0));
}

#endif
