/* One preset's validation at one substep count: its rows and the traces
 * behind them, filled by the maneuvers (maneuvers.h) and read by the
 * output (validate.c). Owns its traces' memory. */
#ifndef PDK_VALIDATE_JOB_H
#define PDK_VALIDATE_JOB_H

#include <stddef.h>

#include "rows.h"

#define PDK_JOB_MAX_ROWS 128
#define PDK_JOB_MAX_TRACES 48
#define PDK_TRACE_MAX_COLS 6

/* A time series of up to PDK_TRACE_MAX_COLS columns, written as one CSV. */
typedef struct pdk_trace {
    char name[64]; /* "circle", "brake_locked_ice", ... */
    int n_cols;
    char cols[PDK_TRACE_MAX_COLS][24]; /* column names with units, e.g. "t_s" */
    double *data;                      /* n rows of n_cols, row-major */
    size_t n, cap;
} pdk_trace;

typedef struct pdk_job {
    const char *presets_dir;
    char preset[64];
    int substeps;
    int fast; /* 1: the CI subset of maneuvers */
    pdk_row rows[PDK_JOB_MAX_ROWS];
    int n_rows;
    pdk_trace traces[PDK_JOB_MAX_TRACES];
    int n_traces;
    int keep_traces;  /* 0: traces are not kept (a convergence rerun) */
    char error[1024]; /* a preset or world that failed to load */
} pdk_job;

/* A new row with its text fields set (printf-style figure), value and
 * reference NAN, appended to job; NULL when the table is full (the job's
 * error then says so). */
pdk_row *pdk_job_row(pdk_job *job, const char *maneuver, const char *figure, const char *unit);

/* A new empty trace named name with the given columns (comma-separated),
 * or NULL when traces are not kept or the job holds its most. */
pdk_trace *pdk_job_trace(pdk_job *job, const char *name, const char *cols);

/* Appends one row of values (n_cols of them) to trace; a NULL trace is
 * ignored, so a maneuver records without asking whether traces are kept. */
void pdk_trace_add(pdk_trace *trace, const double *values);

/* Frees the traces' memory. */
void pdk_job_free(pdk_job *job);

#endif
