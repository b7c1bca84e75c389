/* Drive scripts: JSON files of timed DBW commands (docs/drive-scripts.md).
 *   {"initial": {"speed_mps": 15, "gear": "D", "x_m": 0, "y_m": 0, "yaw_deg": 0},
 *    "steps": [{"t": 0, "throttle_pct": 40}, {"t": 5, "brake_bar": 30}]}
 * Each field holds until changed. An unknown field is an error. */
#ifndef PDK_SCRIPT_H
#define PDK_SCRIPT_H

#include <stddef.h>

#include "sim/error.h"
#include "sim/input.h"
#include "sim/vehicle_def.h"

enum {
    PDK_SCRIPT_INIT_SPEED = 1u << 0,
    PDK_SCRIPT_INIT_GEAR = 1u << 1,
    PDK_SCRIPT_INIT_X = 1u << 2,
    PDK_SCRIPT_INIT_Y = 1u << 3,
    PDK_SCRIPT_INIT_YAW = 1u << 4,
};

typedef struct pdk_script_step {
    double t_s;      /* seconds from the script's start, >= 0, non-decreasing */
    pdk_dbw_cmd cmd; /* only the fields the step names are set */
} pdk_script_step;

typedef struct pdk_script {
    unsigned initial_fields; /* PDK_SCRIPT_INIT_* bits */
    double initial_speed_mps;
    pdk_gear initial_gear;
    pdk_pose initial_pose;   /* yaw in rad, from initial_yaw_deg by pdk_script_deg_to_rad */
    double initial_yaw_deg;  /* as written, so a client can send it on unchanged */
    pdk_script_step *steps;  /* malloc'd, n_steps long */
    size_t n_steps;
} pdk_script;

/* Parses a script file. Errors: PDK_ERR_IO (missing, unreadable, over
 * 64 MiB), PDK_ERR_PARSE (not JSON, "t" missing, negative or decreasing, no
 * "steps", a step with no command), PDK_ERR_UNKNOWN_KEY, PDK_ERR_WRONG_TYPE,
 * PDK_ERR_OUT_OF_RANGE (throttle outside 0..100, negative brake, unknown
 * gear letter, non-finite numbers); err names the file, the path
 * (steps[3].throttle_pct) and the reason. On error *out is empty. */
pdk_error pdk_script_load(const char *path, pdk_script *out, char *err, size_t err_len);
pdk_error pdk_script_parse(const char *json_text, const char *origin, pdk_script *out, char *err,
                           size_t err_len);

/* Whether def's vehicle (vehicle names it in the message, e.g. its preset)
 * takes step (index, counted from 0 as in the parser's steps[N]) of a
 * script: the one check a command gets when it is applied
 * (pdk_vehicle_def_command_problem), made before any tick runs so that a
 * refused step is never dropped in the middle of a run. On a refusal
 * PDK_ERR_OUT_OF_RANGE and err names the step, its time, the field's value
 * and the vehicle's limit under its preset key ("step 3 (t=2.000 s):
 * brake_bar 180 is above midsize_sedan's brakes.maxLineBar 150");
 * PDK_ERR_INVALID_ARGUMENT for NULL. pdk_script_check checks every step
 * and names the first refused. */
pdk_error pdk_script_step_check(const pdk_script_step *step, size_t index,
                                const pdk_vehicle_def *def, const char *vehicle, char *err,
                                size_t err_len);
pdk_error pdk_script_check(const pdk_script *script, const pdk_vehicle_def *def,
                           const char *vehicle, char *err, size_t err_len);

/* Degrees to radians, the one conversion every path uses (scripts, the
 * server's VehicleSpawn.yaw_deg), so a spawn from a script lands on the same
 * bits whether `paddockd run` or `paddock drive --preset` made it. */
double pdk_script_deg_to_rad(double deg);

/* Releases the steps; accepts a zeroed or NULL script. */
void pdk_script_free(pdk_script *script);

/* Parses a gear letter: P R N D L, and H as D (either case).
 * PDK_ERR_OUT_OF_RANGE otherwise; PDK_ERR_INVALID_ARGUMENT for NULL. */
pdk_error pdk_script_gear_parse(const char *text, pdk_gear *out);

/* The overrides paddockd --demo spawns its car with: tyre heat and wear
 * off. The demo loops an open-loop route (presets/scripts/demo_route.json)
 * from wherever the last pass stopped; with heat on, the tyres warm pass
 * over pass, their grip rises a few per cent and each pass turns a little
 * tighter than the last (0.9 deg and 1.2 m a pass once warm), so the loop
 * would wander off. With a constant grip every pass is the same and ends
 * 6 mm from where it began. */
#define PDK_SCRIPT_DEMO_OVERRIDES                                                                  \
    "tyres.front.life.heatScale=0;tyres.rear.life.heatScale=0;"                                    \
    "tyres.front.life.wearScale=0;tyres.rear.life.wearScale=0"

#endif
