/* The UTV's corner rates and dampers (utv_corner.h; docs/powertrain.md). */
#include "vehicle/utv_corner.h"

#include <math.h>

#define PI 3.14159265358979323846

double pdk_utv_tyre_rate(double inflation_pa, double carcass_pa, double radius_m, double width_m)
{
    return 2.0 * PI * (inflation_pa + carcass_pa) * sqrt(radius_m * width_m / 2.0);
}

double pdk_utv_corner_rate(double tyre_rate_npm, double wheel_rate_npm)
{
    return 1.0 / (1.0 / tyre_rate_npm + 1.0 / wheel_rate_npm);
}

double pdk_utv_corner_damping(double corner_rate_npm, double static_load_n, double zeta,
                              double gravity_mps2)
{
    return 2.0 * zeta * sqrt(corner_rate_npm * static_load_n / gravity_mps2);
}
