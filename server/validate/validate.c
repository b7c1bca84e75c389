/* `paddockd validate`: the command line, the jobs over presets and substep
 * counts on worker threads (each job its own worlds: the sim is reentrant
 * per world), the tables, results.json and the traces' CSVs. */
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "maneuvers.h"
#include "params.h"

#define MAX_PRESETS 32
#define MAX_SUBSTEPS 4
#define CONVERGENCE_TOL_PCT 0.5

/* ---- jobs ---------------------------------------------------------------- */

/* Turns a maneuver's load error into a failed row, so that nothing is
 * skipped in silence. */
static void error_row(pdk_job *job, const char *maneuver)
{
    if (!job->error[0]) {
        return;
    }
    char why[sizeof job->error];
    snprintf(why, sizeof why, "%s", job->error);
    job->error[0] = '\0';
    pdk_row *r = pdk_job_row(job, maneuver, "could not run", "");
    if (r) {
        r->rule = PDK_ROW_AT_MOST;
        snprintf(r->note, sizeof r->note, "%.500s", why);
        pdk_row_judge(r);
    }
}

void pdk_validate_job(pdk_job *job)
{
    static const struct {
        const char *name;
        void (*run)(pdk_job *);
        int fast;
    } maneuvers[] = {
        {"circle", pdk_maneuver_circle, 1},
        {"step steer", pdk_maneuver_step_steer, 1},
        {"braking", pdk_maneuver_braking, 1},
        {"launch", pdk_maneuver_launch, 1},
        {"tilt table", pdk_maneuver_tilt_table, 1},
        {"creep", pdk_maneuver_creep, 1},
        {"energy ledger", pdk_maneuver_energy_ledger, 1},
        {"lane change", pdk_maneuver_lane_change, 1},
    };
    for (size_t i = 0; i < sizeof maneuvers / sizeof maneuvers[0]; i++) {
        if (job->fast && !maneuvers[i].fast) {
            continue;
        }
        maneuvers[i].run(job);
        error_row(job, maneuvers[i].name);
    }
}

void pdk_validate_convergence(pdk_job *base, const pdk_job *fine)
{
    const int n = base->n_rows;
    for (int i = 0; i < n; i++) {
        const pdk_row *a = &base->rows[i];
        if (!a->converges) {
            continue;
        }
        pdk_row *r = pdk_job_row(base, "convergence", "", "%");
        if (!r) {
            return;
        }
        /* The maneuver and its figure together; a name too long for the
         * row ends in "..." rather than silently cut. */
        if (snprintf(r->figure, sizeof r->figure, "%s: %s", a->maneuver, a->figure) >=
            (int)sizeof r->figure) {
            memcpy(r->figure + sizeof r->figure - 4, "...", 4);
        }
        r->reference = CONVERGENCE_TOL_PCT;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "the figure at %d substeps against %d", base->substeps, fine->substeps);
        r->rule = PDK_ROW_AT_MOST;
        const pdk_row *b = i < fine->n_rows ? &fine->rows[i] : NULL;
        if (!b || strcmp(a->figure, b->figure) != 0) {
            snprintf(r->note, sizeof r->note,
                     "the run at %d substeps has no such row: its maneuvers went otherwise",
                     fine->substeps);
        } else {
            r->value = 100.0 * pdk_row_relative_difference(a->value, b->value);
            snprintf(r->note, sizeof r->note, "%.6g at %d substeps, %.6g at %d", a->value,
                     base->substeps, b->value, fine->substeps);
        }
        pdk_row_judge(r);
    }
}

/* ---- the command line ---------------------------------------------------- */

typedef struct options {
    const char *presets_dir;
    char presets[MAX_PRESETS][64];
    int n_presets;
    int fast;
    int jobs;
    const char *out_dir;
    int substeps[MAX_SUBSTEPS];
    int n_substeps;
} options;

static void add_preset(const char *name, const char *description, void *ud)
{
    options *o = ud;
    (void)description;
    if (o->n_presets < MAX_PRESETS) {
        snprintf(o->presets[o->n_presets++], sizeof o->presets[0], "%s", name);
    }
}

static int parse_substeps(const char *text, options *o)
{
    o->n_substeps = 0;
    const char *p = text;
    while (*p) {
        char *end = NULL;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1 || v > 64 || o->n_substeps == MAX_SUBSTEPS ||
            (*end != ',' && *end != '\0')) {
            return -1;
        }
        o->substeps[o->n_substeps++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    return o->n_substeps >= 1 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        if (strcmp(a, "--fast") == 0) {
            o->fast = 1;
        } else if (strcmp(a, "--preset") == 0 && has_value) {
            if (o->n_presets == MAX_PRESETS) {
                fprintf(stderr, "paddockd validate: more than %d --preset\n", MAX_PRESETS);
                return -1;
            }
            snprintf(o->presets[o->n_presets++], sizeof o->presets[0], "%s", argv[++i]);
        } else if (strcmp(a, "--jobs") == 0 && has_value) {
            char *end = NULL;
            const long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 64) {
                fprintf(stderr, "paddockd validate: --jobs: '%s' is not a count 1..64\n", argv[i]);
                return -1;
            }
            o->jobs = (int)v;
        } else if (strcmp(a, "--out") == 0 && has_value) {
            o->out_dir = argv[++i];
        } else if (strcmp(a, "--substeps") == 0 && has_value) {
            if (parse_substeps(argv[++i], o)) {
                fprintf(stderr,
                        "paddockd validate: --substeps: '%s' is not a list of up to %d "
                        "counts 1..64 (e.g. 2,8)\n",
                        argv[i], MAX_SUBSTEPS);
                return -1;
            }
        } else if (strcmp(a, "--presets") == 0 && has_value) {
            o->presets_dir = argv[++i];
        } else {
            fprintf(stderr, "paddockd validate: unexpected '%s' (paddockd --help)\n", a);
            return -1;
        }
    }
    return 0;
}

/* ---- workers ------------------------------------------------------------- */

typedef struct pool {
    pdk_job *jobs;
    int n;
    int next;
    pthread_mutex_t lock;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const int i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) {
            return NULL;
        }
        pdk_validate_job(&p->jobs[i]);
    }
}

/* ---- output -------------------------------------------------------------- */

static void print_table(FILE *to, const pdk_job *job)
{
    fprintf(to, "\n%s (%d substeps)\n", job->preset, job->substeps);
    for (int i = 0; i < job->n_rows; i++) {
        const pdk_row *r = &job->rows[i];
        char crit[PDK_ROW_TEXT];
        pdk_row_criterion(r, crit, sizeof crit);
        fprintf(to, "  %-4s %-18s %-58s %12.4g %-6s ref %10.4g  %s",
                pdk_row_verdict_name(r->verdict), r->maneuver, r->figure, r->value, r->unit,
                r->reference, crit);
        if (r->verdict == PDK_VERDICT_FAIL) {
            fprintf(to, " (missed by %.3g %%)", 100.0 * r->miss);
        }
        if (r->verdict == PDK_VERDICT_NOT_APPLICABLE || r->verdict == PDK_VERDICT_FAIL) {
            if (r->note[0]) {
                fprintf(to, "\n         %s", r->note);
            }
        }
        fputc('\n', to);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) {
        fprintf(f, "%.9g", v);
    } else {
        fputs("null", f);
    }
}

static int write_trace(const char *dir, const char *preset, const pdk_trace *t, FILE *json,
                       int first)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.csv", dir, preset, t->name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "paddockd validate: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int c = 0; c < t->n_cols; c++) {
        fprintf(f, "%s%s", c ? "," : "", t->cols[c]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->n; i++) {
        for (int c = 0; c < t->n_cols; c++) {
            fprintf(f, "%s%.9g", c ? "," : "", t->data[i * (size_t)t->n_cols + (size_t)c]);
        }
        fputc('\n', f);
    }
    const int bad = ferror(f) | fclose(f);
    if (bad) {
        fprintf(stderr, "paddockd validate: %s: write failed\n", path);
        return -1;
    }
    fprintf(json, "%s{\"name\": ", first ? "" : ", ");
    json_str(json, t->name);
    fprintf(json, ", \"file\": \"%s_%s.csv\"}", preset, t->name);
    return 0;
}

/* results.json and the CSVs: per preset its rows at the first substep
 * count, each with its value at every count, and its traces. */
static int write_out(const options *o, pdk_job *jobs, double wall_s)
{
    if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "paddockd validate: --out %s: %s\n", o->out_dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/results.json", o->out_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "paddockd validate: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    fprintf(f, "{\"fast\": %s, \"wall_s\": %.1f, \"substeps\": [", o->fast ? "true" : "false",
            wall_s);
    for (int s = 0; s < o->n_substeps; s++) {
        fprintf(f, "%s%d", s ? ", " : "", o->substeps[s]);
    }
    fprintf(f, "],\n \"presets\": [\n");
    for (int p = 0; p < o->n_presets; p++) {
        const pdk_job *base = &jobs[p * o->n_substeps];
        fprintf(f, "%s  {\"name\": ", p ? ",\n" : "");
        json_str(f, base->preset);
        fprintf(f, ", \"rows\": [\n");
        for (int i = 0; i < base->n_rows; i++) {
            const pdk_row *r = &base->rows[i];
            char crit[PDK_ROW_TEXT];
            pdk_row_criterion(r, crit, sizeof crit);
            fprintf(f, "%s   {\"maneuver\": ", i ? ",\n" : "");
            json_str(f, r->maneuver);
            fprintf(f, ", \"figure\": ");
            json_str(f, r->figure);
            fprintf(f, ", \"unit\": ");
            json_str(f, r->unit);
            fprintf(f, ", \"value\": ");
            json_num(f, r->value);
            fprintf(f, ", \"reference\": ");
            json_num(f, r->reference);
            fprintf(f, ", \"reference_text\": ");
            json_str(f, r->reference_text);
            fprintf(f, ", \"criterion\": ");
            json_str(f, crit);
            fprintf(f, ", \"verdict\": \"%s\", \"miss\": ", pdk_row_verdict_name(r->verdict));
            json_num(f, r->miss);
            fprintf(f, ", \"note\": ");
            json_str(f, r->note);
            fprintf(f, ", \"by_substeps\": {");
            for (int s = 0; s < o->n_substeps; s++) {
                const pdk_job *j = &jobs[p * o->n_substeps + s];
                fprintf(f, "%s\"%d\": ", s ? ", " : "", j->substeps);
                const int same = i < j->n_rows && strcmp(j->rows[i].figure, r->figure) == 0;
                json_num(f, same ? j->rows[i].value : NAN);
            }
            fprintf(f, "}}");
        }
        fprintf(f, "],\n   \"traces\": [");
        for (int t = 0; t < base->n_traces; t++) {
            if (write_trace(o->out_dir, base->preset, &base->traces[t], f, t == 0)) {
                rc = -1;
            }
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n ]\n}\n");
    if ((ferror(f) | fclose(f)) != 0) {
        fprintf(stderr, "paddockd validate: %s: write failed\n", path);
        rc = -1;
    }
    return rc;
}

static double wall_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pdk_validate_main(int argc, char **argv, const char *presets_dir)
{
    options o;
    memset(&o, 0, sizeof o);
    o.presets_dir = presets_dir;
    o.jobs = 2;
    o.substeps[0] = 2;
    o.substeps[1] = 8;
    o.n_substeps = 2;
    if (parse_options(argc, argv, &o)) {
        return 2;
    }
    if (o.n_presets == 0 &&
        pdk_params_list(o.presets_dir, PDK_PRESET_VEHICLE, add_preset, &o) != PDK_OK) {
        fprintf(stderr, "paddockd validate: no vehicle presets in %s/vehicles\n", o.presets_dir);
        return 2;
    }
    const int n = o.n_presets * o.n_substeps;
    pdk_job *jobs = calloc((size_t)n, sizeof *jobs);
    if (!jobs) {
        fprintf(stderr, "paddockd validate: out of memory\n");
        return 2;
    }
    for (int p = 0; p < o.n_presets; p++) {
        for (int s = 0; s < o.n_substeps; s++) {
            pdk_job *j = &jobs[p * o.n_substeps + s];
            j->presets_dir = o.presets_dir;
            snprintf(j->preset, sizeof j->preset, "%s", o.presets[p]);
            j->substeps = o.substeps[s];
            j->fast = o.fast;
            j->keep_traces = s == 0 && o.out_dir != NULL;
        }
    }
    const double t0 = wall_now_s();
    pool pl = {jobs, n, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t threads[64];
    int started = 0;
    for (int t = 0; t < o.jobs - 1 && t < n - 1; t++) {
        if (pthread_create(&threads[started], NULL, worker, &pl) == 0) {
            started++;
        }
    }
    worker(&pl);
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t], NULL);
    }
    const double wall_s = wall_now_s() - t0;

    int failed = 0, rows = 0;
    for (int p = 0; p < o.n_presets; p++) {
        pdk_job *base = &jobs[p * o.n_substeps];
        /* The default count against four times it, when both ran. */
        for (int s = 1; s < o.n_substeps; s++) {
            if (jobs[p * o.n_substeps + s].substeps == 4 * base->substeps) {
                pdk_validate_convergence(base, &jobs[p * o.n_substeps + s]);
            }
        }
        print_table(stdout, base);
        for (int i = 0; i < base->n_rows; i++) {
            rows++;
            failed += base->rows[i].verdict == PDK_VERDICT_FAIL;
        }
    }
    printf("\npaddockd validate: %d presets, %d rows, %d failed, %.1f s wall with %d jobs\n",
           o.n_presets, rows, failed, wall_s, o.jobs);
    int rc = failed ? 1 : 0;
    if (o.out_dir && write_out(&o, jobs, wall_s)) {
        rc = 2;
    }
    for (int i = 0; i < n; i++) {
        pdk_job_free(&jobs[i]);
    }
    free(jobs);
    return rc;
}
