/* The offline runner behind `paddockd run`: one vehicle in one session,
 * stepped as fast as the CPU allows, driven by a script, recorded like any
 * session, with an optional CSV of chosen channels, one row per tick. */
#ifndef PDK_RUN_H
#define PDK_RUN_H

#include <stdbool.h>

#include "script.h"
#include "session.h"

typedef struct pdk_run_config {
    const char *vehicle;          /* preset name (required) */
    const char *vehicle_set;      /* overrides, may be NULL */
    const char *world;            /* preset name, "flat" when NULL */
    const char *world_set;
    const char *script_path;      /* may be NULL: the car sits in its initial state */
    double duration_s;            /* <= 0: the script's last step + 5 s, or 10 s */
    const char *csv_path;         /* may be NULL */
    const char *channels;         /* "A,B,C" or NULL for every channel */
    const char *db_path;          /* NULL: not recorded */
    const char *presets_dir;
    const char *migrations_dir;
} pdk_run_config;

/* The spawn a script's initial block describes: its pose, speed and gear,
 * at the origin, parked, where it says nothing. */
pdk_spawn_place pdk_run_place_from_script(const pdk_script *script);

/* Runs and prints a summary (ticks, wall time, final state hash). Returns a
 * process exit code: 0 ok, 1 runtime failure, 2 bad input (named on stderr). */
int pdk_run(const pdk_run_config *cfg);

#endif
