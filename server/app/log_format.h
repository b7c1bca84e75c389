/* log_format: paddockd's log lines as structured events (--log-format;
 * docs/paddockd.md "Logs"). paddockd writes one line per event, to stdout
 * (what happened: listening, sessions, exports, a drain) or to stderr (what
 * an operator should look at: refused connections, a full disk, a record
 * SQLite refused). With logfmt or json every such line becomes one event
 * with a time, a level, the component that wrote it and its message:
 *
 *   ts=2026-12-07T03:15:29.123Z level=info component=net msg="listening on ..."
 *   {"ts":"2026-12-07T03:15:29.123Z","level":"info","component":"net","msg":"listening on ..."}
 *
 * The level is the stream's, info for stdout and warn for stderr, error
 * for a stderr line that says something failed (cannot, could not, failed,
 * lost); the component is the line's prefix ("paddockd net:" is net,
 * "paddock store:" store, "paddockd: agones:" agones, any other server).
 * Done once, at start, by putting stdout and stderr behind streams that
 * format whole lines and write each with one write(2), so lines from
 * different threads never mix. */
#ifndef PDK_LOG_FORMAT_H
#define PDK_LOG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum pdk_log_format {
    PDK_LOG_TEXT, /* the lines as written (the default) */
    PDK_LOG_LOGFMT,
    PDK_LOG_JSON,
} pdk_log_format;

/* "text", "logfmt" or "json"; false for anything else. */
bool pdk_log_format_parse(const char *name, pdk_log_format *out);

/* Puts stdout and stderr behind format's streams (nothing for text).
 * false, with err saying why, when they cannot be made. */
bool pdk_log_format_install(pdk_log_format format, char *err, size_t err_len);

/* One line (no newline) as format writes it, into out (NUL-terminated,
 * cut to cap); from_stderr picks the level. Returns the length. Pure:
 * the streams use it, and the unit test. ts is the time stamp to use. */
size_t pdk_log_format_line(pdk_log_format format, bool from_stderr, const char *ts,
                           const char *line, size_t len, char *out, size_t cap);

#endif
