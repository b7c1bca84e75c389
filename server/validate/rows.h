/* The validation's rows: one figure a maneuver measured, the reference it
 * is held to, the criterion that decides it and whether it passed. The
 * pass logic lives here once, so that the table, results.json and the
 * report all read the same verdict. */
#ifndef PDK_VALIDATE_ROWS_H
#define PDK_VALIDATE_ROWS_H

#include <stddef.h>

/* How a row's value is held to its reference. */
typedef enum pdk_row_rule {
    PDK_ROW_WITHIN = 0,         /* |value - reference| <= tol max(|reference|, tol_scale) */
    PDK_ROW_AT_LEAST = 1,       /* value >= reference */
    PDK_ROW_AT_MOST = 2,        /* value <= reference */
    PDK_ROW_ABOVE_WITHIN = 3,   /* reference <= value <= (1 + tol) reference */
    PDK_ROW_INFO = 4,           /* printed beside the others, decides nothing */
    PDK_ROW_NOT_APPLICABLE = 5, /* the maneuver does not apply to this model; the note says why */
} pdk_row_rule;

typedef enum pdk_row_verdict {
    PDK_VERDICT_PASS = 0,
    PDK_VERDICT_FAIL = 1,
    PDK_VERDICT_INFO = 2,
    PDK_VERDICT_NOT_APPLICABLE = 3,
} pdk_row_verdict;

#define PDK_ROW_TEXT 96
#define PDK_ROW_NOTE 512

typedef struct pdk_row {
    char maneuver[48];         /* "circle", "brake locked tarmac", ... */
    char figure[PDK_ROW_TEXT]; /* what was measured, e.g. "understeer gradient" */
    char unit[16];
    double value;                      /* NAN when the maneuver produced no figure */
    double reference;                  /* NAN for an INFO row without one */
    char reference_text[PDK_ROW_TEXT]; /* where the reference comes from */
    pdk_row_rule rule;
    double tol;              /* relative, for WITHIN and ABOVE_WITHIN */
    /* WITHIN: the magnitude tol is taken of where it exceeds |reference|,
     * for a reference that is a small difference of larger shares (a near
     * neutral car's understeer gradient); 0: |reference|. */
    double tol_scale;
    int converges;           /* 1: the value is compared across substeps */
    char note[PDK_ROW_NOTE]; /* why a row does not apply, what a failure means */
    /* Set by pdk_row_judge. */
    pdk_row_verdict verdict;
    double miss; /* by how much a failed row missed, relative to its
                  * reference (0 when it passed) */
} pdk_row;

/* Judges row by its rule: sets verdict and miss. A value that is not
 * finite fails every rule that decides (a maneuver that produced no figure
 * has failed), with miss INFINITY. */
void pdk_row_judge(pdk_row *row);

/* The criterion as a sentence, e.g. "within 10 % of the reference",
 * written into buf (always terminated). */
void pdk_row_criterion(const pdk_row *row, char *buf, size_t len);

/* The verdict's name: "pass", "FAIL", "info", "n/a". */
const char *pdk_row_verdict_name(pdk_row_verdict verdict);

/* The relative difference |a - b| / max(|a|, |b|), 0 when both are 0, for
 * comparing a figure across substep counts; INFINITY when either is not
 * finite. */
double pdk_row_relative_difference(double a, double b);

#endif
