/* The rows' pass logic and their criteria as sentences. */
#include "rows.h"

#include <math.h>
#include <stdio.h>

void pdk_row_judge(pdk_row *row)
{
    row->miss = 0.0;
    if (row->rule == PDK_ROW_INFO) {
        row->verdict = PDK_VERDICT_INFO;
        return;
    }
    if (row->rule == PDK_ROW_NOT_APPLICABLE) {
        row->verdict = PDK_VERDICT_NOT_APPLICABLE;
        return;
    }
    const double v = row->value, ref = row->reference;
    if (!isfinite(v) || !isfinite(ref)) {
        row->verdict = PDK_VERDICT_FAIL;
        row->miss = INFINITY;
        return;
    }
    const double magnitude =
        row->rule == PDK_ROW_WITHIN ? fmax(fabs(ref), row->tol_scale) : fabs(ref);
    const double scale = magnitude > 0.0 ? magnitude : 1.0;
    double over = 0.0; /* how far outside the allowed band, in the value's unit */
    switch (row->rule) {
    case PDK_ROW_WITHIN:
        over = fabs(v - ref) - row->tol * magnitude;
        break;
    case PDK_ROW_AT_LEAST:
        over = ref - v;
        break;
    case PDK_ROW_AT_MOST:
        over = v - ref;
        break;
    case PDK_ROW_ABOVE_WITHIN:
        over = fmax(ref - v, v - (1.0 + row->tol) * ref);
        break;
    default:
        break;
    }
    row->verdict = over > 0.0 ? PDK_VERDICT_FAIL : PDK_VERDICT_PASS;
    row->miss = over > 0.0 ? over / scale : 0.0;
}

void pdk_row_criterion(const pdk_row *row, char *buf, size_t len)
{
    switch (row->rule) {
    case PDK_ROW_WITHIN:
        if (row->tol_scale > fabs(row->reference)) {
            snprintf(buf, len, "within %g %% of the reference's largest share, %.3g %s",
                     100.0 * row->tol, row->tol_scale, row->unit);
        } else {
            snprintf(buf, len, "within %g %% of the reference", 100.0 * row->tol);
        }
        break;
    case PDK_ROW_AT_LEAST:
        snprintf(buf, len, "at least the reference");
        break;
    case PDK_ROW_AT_MOST:
        snprintf(buf, len, "at most the reference");
        break;
    case PDK_ROW_ABOVE_WITHIN:
        snprintf(buf, len, "no less than the reference, within %g %% above it", 100.0 * row->tol);
        break;
    case PDK_ROW_INFO:
        snprintf(buf, len, "informational");
        break;
    default:
        snprintf(buf, len, "does not apply");
        break;
    }
}

const char *pdk_row_verdict_name(pdk_row_verdict verdict)
{
    switch (verdict) {
    case PDK_VERDICT_PASS:
        return "pass";
    case PDK_VERDICT_FAIL:
        return "FAIL";
    case PDK_VERDICT_INFO:
        return "info";
    default:
        return "n/a";
    }
}

double pdk_row_relative_difference(double a, double b)
{
    if (!isfinite(a) || !isfinite(b)) {
        return INFINITY;
    }
    const double scale = fmax(fabs(a), fabs(b));
    return scale > 0.0 ? fabs(a - b) / scale : 0.0;
}
