/* `paddockd validate`: every preset through the standard maneuvers at the
 * default substep count and four times it, a table per preset, and with
 * --out a results.json and one CSV per trace. docs/paddockd.md describes
 * the rows and their criteria. */
#ifndef PDK_VALIDATE_H
#define PDK_VALIDATE_H

#include "job.h"

/* The command line after `validate`: [--preset P]... [--fast] [--jobs N]
 * [--out DIR] [--substeps A,B,...]. presets_dir is where presets live.
 * Returns the process's exit code: 0 when every row passes, 1 when a row
 * fails (the table names it and by how much), 2 for a bad command line or
 * an output that cannot be written. */
int pdk_validate_main(int argc, char **argv, const char *presets_dir);

/* Runs every maneuver of the job's preset at its substep count (the fast
 * subset when job->fast), filling its rows; a preset or world that fails to
 * load is a failed row naming it. */
void pdk_validate_job(pdk_job *job);

/* Appends to base (the default substep count's job) one convergence row
 * per figure that converges: its relative difference to the same figure
 * in fine (four times the substeps), at most 0.5 %. Rows are matched by
 * position and must name the same figure; one that does not is a failed
 * row. */
void pdk_validate_convergence(pdk_job *base, const pdk_job *fine);

#endif
