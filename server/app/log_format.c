/* stdout and stderr as streams of structured events (log_format.h). */
#include "log_format.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096 /* a longer line is cut here */

bool pdk_log_format_parse(const char *name, pdk_log_format *out)
{
    static const struct {
        const char *name;
        pdk_log_format format;
    } names[] = {{"text", PDK_LOG_TEXT}, {"logfmt", PDK_LOG_LOGFMT}, {"json", PDK_LOG_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].format;
            return true;
        }
    }
    return false;
}

/* ---- one line ---------------------------------------------------------------- */

typedef struct out_buf {
    char *p;
    size_t len, cap;
} out_buf;

static void put_bytes(out_buf *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n && o->len + 1 < o->cap; i++)
        o->p[o->len++] = s[i];
}

static void put_str(out_buf *o, const char *s)
{
    put_bytes(o, s, strlen(s));
}

/* The length of the valid UTF-8 sequence at s (of at most n bytes), 0 if
 * there is none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t want = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
                                 : (s[0] & 0xf8) == 0xf0                          ? 4
                                                                                  : 0;
    if (want == 0 || want > n || (want == 2 && s[0] < 0xc2))
        return 0;
    for (size_t i = 1; i < want; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return want;
}

/* The message quoted as both formats want it: backslash and double quote
 * escaped, control characters as \n, \t or \u00XX, bytes that are not
 * UTF-8 as '?'. */
static void put_quoted(out_buf *o, const char *msg, size_t len)
{
    put_str(o, "\"");
    const unsigned char *s = (const unsigned char *)msg;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put_bytes(o, e, 2);
            i++;
        } else if (c == '\n' || c == '\t') {
            put_str(o, c == '\n' ? "\\n" : "\\t");
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            put_str(o, e);
            i++;
        } else {
            size_t n = utf8_len(s + i, len - i);
            if (n == 0) {
                put_str(o, "?");
                i++;
            } else {
                put_bytes(o, msg + i, n);
                i += n;
            }
        }
    }
    put_str(o, "\"");
}

/* Whether a stderr line says something failed (any case). */
static bool says_failure(const char *line, size_t len)
{
    static const char *const words[] = {"cannot", "could not", "failed", "lost"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t n = strlen(words[w]);
        for (size_t i = 0; i + n <= len; i++)
            if (strncasecmp(line + i, words[w], n) == 0)
                return true;
    }
    return false;
}

size_t pdk_log_format_line(pdk_log_format format, bool from_stderr, const char *ts,
                           const char *line, size_t len, char *out, size_t cap)
{
    static const struct {
        const char *prefix, *component;
    } prefixes[] = {
        {"paddockd net: ", "net"},
        {"paddock store: ", "store"},
        {"paddockd: agones: ", "agones"},
        {"paddockd: ", "server"},
    };
    if (cap == 0)
        return 0;
    out_buf o = {.p = out, .cap = cap};
    if (format == PDK_LOG_TEXT) {
        put_bytes(&o, line, len);
        o.p[o.len] = '\0';
        return o.len;
    }
    const char *component = "server";
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (len >= n && memcmp(line, prefixes[i].prefix, n) == 0) {
            component = prefixes[i].component;
            line += n;
            len -= n;
            break;
        }
    }
    const char *level = !from_stderr ? "info" : says_failure(line, len) ? "error" : "warn";
    if (format == PDK_LOG_JSON) {
        put_str(&o, "{\"ts\":\"");
        put_str(&o, ts);
        put_str(&o, "\",\"level\":\"");
        put_str(&o, level);
        put_str(&o, "\",\"component\":\"");
        put_str(&o, component);
        put_str(&o, "\",\"msg\":");
        put_quoted(&o, line, len);
        put_str(&o, "}");
    } else {
        put_str(&o, "ts=");
        put_str(&o, ts);
        put_str(&o, " level=");
        put_str(&o, level);
        put_str(&o, " component=");
        put_str(&o, component);
        put_str(&o, " msg=");
        put_quoted(&o, line, len);
    }
    o.p[o.len] = '\0';
    return o.len;
}

/* ---- the streams --------------------------------------------------------------- */

/* One stream's state: used under the stream's lock, one thread at a time,
 * so its buffers need no thread's stack. */
typedef struct sink {
    int fd;
    bool from_stderr;
    pdk_log_format format;
    char line[LINE_MAX_BYTES];
    size_t len;
    char out[LINE_MAX_BYTES * 6 + 128]; /* escapes take at most six bytes a byte */
} sink;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* nowhere to say it */
        p += w;
        n -= (size_t)w;
    }
}

static void emit(sink *s)
{
    if (s->len == 0)
        return; /* a blank line is no event */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    char ts[40];
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
    size_t m = pdk_log_format_line(s->format, s->from_stderr, ts, s->line, s->len, s->out,
                                   sizeof s->out - 1);
    s->out[m++] = '\n';
    write_all(s->fd, s->out, m);
    s->len = 0;
}

/* stdio hands over what was printed (under the stream's lock, so one
 * thread at a time); whole lines go out as events. */
static ssize_t sink_write(void *cookie, const char *data, size_t n)
{
    sink *s = cookie;
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n' || data[i] == '\r')
            emit(s);
        else if (s->len < sizeof s->line)
            s->line[s->len++] = data[i];
    }
    return (ssize_t)n;
}

/* The two streams' state, for the life of the process; held here too, as
 * LeakSanitizer finds no pointer to it inside glibc's cookie stream. */
static sink *sinks[2];

static int sink_close(void *cookie)
{
    emit(cookie);
    for (int i = 0; i < 2; i++)
        if (sinks[i] == cookie)
            sinks[i] = NULL;
    free(cookie);
    return 0;
}

bool pdk_log_format_install(pdk_log_format format, char *err, size_t err_len)
{
    if (format == PDK_LOG_TEXT)
        return true;
    fflush(stdout);
    fflush(stderr);
    FILE **streams[2] = {&stdout, &stderr};
    for (int i = 0; i < 2; i++) {
        sink *s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(err, err_len, "out of memory");
            return false;
        }
        s->fd = i == 0 ? STDOUT_FILENO : STDERR_FILENO;
        s->from_stderr = i == 1;
        s->format = format;
        cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
        FILE *f = fopencookie(s, "w", io);
        if (!f) {
            free(s);
            snprintf(err, err_len, "cannot make the log stream: %s", strerror(errno));
            return false;
        }
        setvbuf(f, NULL, _IOLBF, 0);
        sinks[i] = s;
        *streams[i] = f;
    }
    return true;
}
