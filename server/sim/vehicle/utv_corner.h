/* The UTV's corners as springs and dampers (docs/powertrain.md): the tyre's
 * inflated membrane in series with the suspension's wheel rate, and the damper
 * that gives a damping ratio on the mass the corner carries.
 *
 *   k_tyre = 2 pi (p_i + p_c) sqrt(R_t b / 2)   (the membrane of width b,
 *            radius R_t, inflation p_i and carcass pressure p_c)
 *   1 / k  = 1 / k_tyre + 1 / k_wheel
 *   c      = 2 zeta sqrt(k N0 / g)               (N0 the corner's static load) */
#ifndef PDK_UTV_CORNER_H
#define PDK_UTV_CORNER_H

/* The inflated membrane's vertical rate, N/m (pressures in Pa). */
double pdk_utv_tyre_rate(double inflation_pa, double carcass_pa, double radius_m, double width_m);

/* The corner's rate: tyre and wheel rate in series, N/m. */
double pdk_utv_corner_rate(double tyre_rate_npm, double wheel_rate_npm);

/* The damper that gives damping ratio zeta on the corner's sprung share of
 * the weight, static_load_n / g, N s/m. */
double pdk_utv_corner_damping(double corner_rate_npm, double static_load_n, double zeta,
                              double gravity_mps2);

#endif
