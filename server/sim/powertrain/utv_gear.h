/* The UTV's gear lever (docs/powertrain.md): five positions with the values of
 * Dataspeed's ds_dbw_msgs/Gear, each with its direction, rear and front
 * reductions and the front ring's ratio K to the rear carrier, and the shift
 * rule: a change happens only below 0.3 m/s and takes 1 s in neutral. A
 * refused request gets the drive-by-wire kit's GearReject code, so that issue
 * 6's reports carry it as the kit does.
 *
 *   position  value  direction  rear    front (i_f i_d)  K
 *   P         1      0          0       0                0.925 (L's)
 *   R         2      -1         27.39   9.16 x 3.23      0.926
 *   N         3      0          0       0                0.925 (L's)
 *   H         4      +1         13.01   4.35 x 3.23      0.926
 *   L         5      +1         28.84   9.65 x 3.23      0.925
 *
 * (The kit calls 4 DRIVE; the UTV's lever calls it H.) */
#ifndef PDK_UTV_GEAR_H
#define PDK_UTV_GEAR_H

#include "sim/utv_gear_def.h"

/* The Polaris model's gearbox.* defaults and its shift rule (0.3 m/s, 1 s). */
pdk_utv_gearbox_def pdk_utv_gearbox_def_polaris(void);

/* NULL when the definition can be used, else what is wrong, naming the
 * field. */
const char *pdk_utv_gearbox_def_problem(const pdk_utv_gearbox_def *def);

/* A position's direction d (-1, 0, +1), rear reduction i_r, front
 * reduction i_f i_d and ring ratio K = i_r / (i_f i_d) (P and N use L's
 * K). gear must be PARK..LOW. */
typedef struct pdk_utv_ratios {
    int direction;
    double rear;
    double front;
    double ring;
} pdk_utv_ratios;

void pdk_utv_gear_ratios(const pdk_utv_gearbox_def *def, pdk_utv_gear gear, pdk_utv_ratios *out);

/* The lever: the position engaged, and while a change is under way the
 * position it goes to and the time left (the transmission is in neutral
 * meanwhile). */
typedef struct pdk_utv_lever {
    pdk_utv_gear engaged;
    pdk_utv_gear target;
    double shift_left_s; /* > 0 while shifting */
} pdk_utv_lever;

/* A lever engaged in gear (PARK..LOW). */
pdk_utv_lever pdk_utv_lever_in(pdk_utv_gear gear);

/* A request for gear at vehicle speed speed_mps (either sign): starts the
 * change and returns NONE, or changes nothing and returns why: UNSUPPORTED
 * (not PARK..LOW; NONE asks for nothing and is no refusal),
 * SHIFT_IN_PROGRESS, VEHICLE_SPEED (at or above the shift speed). A request
 * for the engaged position changes nothing. */
pdk_gear_reject pdk_utv_lever_request(pdk_utv_lever *lever, const pdk_utv_gearbox_def *def,
                                      int gear, double speed_mps);

/* Advances the lever by dt_s: a change under way ends when its time is up. */
void pdk_utv_lever_step(pdk_utv_lever *lever, double dt_s);

/* The position the transmission is in: NEUTRAL while shifting. */
pdk_utv_gear pdk_utv_lever_gear(const pdk_utv_lever *lever);

#endif
