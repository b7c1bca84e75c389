/* A job's rows and traces. */
#include "job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pdk_row *pdk_job_row(pdk_job *job, const char *maneuver, const char *figure, const char *unit)
{
    if (job->n_rows >= PDK_JOB_MAX_ROWS) {
        snprintf(job->error, sizeof job->error, "more than %d rows for one preset",
                 PDK_JOB_MAX_ROWS);
        return NULL;
    }
    pdk_row *r = &job->rows[job->n_rows++];
    memset(r, 0, sizeof *r);
    snprintf(r->maneuver, sizeof r->maneuver, "%s", maneuver);
    snprintf(r->figure, sizeof r->figure, "%s", figure);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->value = NAN;
    r->reference = NAN;
    r->rule = PDK_ROW_INFO;
    return r;
}

pdk_trace *pdk_job_trace(pdk_job *job, const char *name, const char *cols)
{
    if (!job->keep_traces || job->n_traces >= PDK_JOB_MAX_TRACES) {
        return NULL;
    }
    pdk_trace *t = &job->traces[job->n_traces++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    const char *p = cols;
    while (*p && t->n_cols < PDK_TRACE_MAX_COLS) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= sizeof t->cols[0]) {
            len = sizeof t->cols[0] - 1;
        }
        memcpy(t->cols[t->n_cols], p, len);
        t->cols[t->n_cols][len] = '\0';
        t->n_cols++;
        p = end ? end + 1 : p + len;
    }
    return t;
}

void pdk_trace_add(pdk_trace *trace, const double *values)
{
    if (!trace) {
        return;
    }
    if (trace->n == trace->cap) {
        size_t cap = trace->cap ? 2 * trace->cap : 1024;
        double *d = realloc(trace->data, cap * (size_t)trace->n_cols * sizeof *d);
        if (!d) {
            return; /* a trace cut short is only a shorter plot */
        }
        trace->data = d;
        trace->cap = cap;
    }
    memcpy(trace->data + trace->n * (size_t)trace->n_cols, values,
           (size_t)trace->n_cols * sizeof *values);
    trace->n++;
}

void pdk_job_free(pdk_job *job)
{
    for (int i = 0; i < job->n_traces; i++) {
        free(job->traces[i].data);
        job->traces[i].data = NULL;
    }
    job->n_traces = 0;
}
