/* Names and messages of pdk_error, generated from PDK_ERROR_LIST, and the
 * always-on assert. */
#include "sim/error.h"

#include <stdlib.h>

const char *pdk_error_name(pdk_error err)
{
    switch (err) {
#define PDK_ERROR_NAME_(name, value, message)                                  \
    case name:                                                                 \
        return #name;
        PDK_ERROR_LIST(PDK_ERROR_NAME_)
#undef PDK_ERROR_NAME_
    }
    return "PDK_ERR_UNKNOWN";
}

const char *pdk_error_message(pdk_error err)
{
    switch (err) {
#define PDK_ERROR_MSG_(name, value, message)                                   \
    case name:                                                                 \
        return message;
        PDK_ERROR_LIST(PDK_ERROR_MSG_)
#undef PDK_ERROR_MSG_
    }
    return "unknown error";
}

/* sim may not do I/O, so a failed invariant simply aborts; the core dump and
 * the debugger carry the expression. The arguments are kept for them. */
void pdk_assert_fail(const char *expr, const char *file, int line)
{
    volatile const char *e = expr;
    volatile const char *f = file;
    volatile int l = line;
    (void)e;
    (void)f;
    (void)l;
    abort();
}
