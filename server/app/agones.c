/* The Agones SDK agent: one thread, plain HTTP/1.1 over blocking sockets to
 * the sidecar on 127.0.0.1, a watch parsed as it streams (chunked or not),
 * and a uv_async to hand the loop what it must act on. */
#include "agones.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

/* Each of a request's connect, send and receive: the sidecar is local, and
 * a stop waits for the request under way. */
#define IO_TIMEOUT_MS 500
#define RETRY_FIRST_MS 200       /* then doubling, up to the health period */
#define REPLY_MAX 65536          /* a reply's bytes kept (only its status is read) */
#define WATCH_LINE_MAX (1 << 20) /* a GameServer is a few KB */

struct pdk_agones {
    pdk_agones_config cfg;
    uv_async_t async;
    pthread_t thread;
    bool started;
    int wake[2]; /* a byte on wake[1] ends the thread's wait */
    atomic_bool stop;
    atomic_uint_fast64_t beats;
    atomic_bool want_shutdown;
    /* What the thread hands the loop, under mu. */
    pthread_mutex_t mu;
    bool allocated_new, shutdown_new;
    char session[PDK_AGONES_NAME_LEN + 1], world[PDK_AGONES_NAME_LEN + 1];
    /* The thread's own. */
    bool allocated_seen;
    int watch_fd;
    uint64_t watch_retry_ms; /* monotonic ms before which the watch is not opened again */
    bool watch_chunked, watch_headers_done;
    char *in; /* bytes of the watch not yet parsed */
    size_t in_len, in_cap;
    char *line; /* the body's current line */
    size_t line_len;
    uint64_t chunk_left; /* bytes of the current chunk still to come (chunked) */
    int chunk_state;     /* 0: size line next, 1: data, 2: the CRLF after it */
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void
say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One call, so that a line of the loop's never lands inside it. */
    printf("paddockd: agones: %s\n", line);
    fflush(stdout);
}

/* ---- one request ---------------------------------------------------------- */

static int connect_sdk(const pdk_agones *a)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = IO_TIMEOUT_MS / 1000, .tv_usec = (IO_TIMEOUT_MS % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)a->cfg.port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/* POSTs {} to path and returns the reply's HTTP status, or -1 when the
 * sidecar could not be reached or did not answer in time. */
static int post(const pdk_agones *a, const char *path)
{
    int fd = connect_sdk(a);
    if (fd < 0)
        return -1;
    char req[256];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     "Content-Length: 2\r\nConnection: close\r\n\r\n{}",
                     path);
    int status = -1;
    if (send_all(fd, req, (size_t)n)) {
        char reply[REPLY_MAX];
        size_t got = 0;
        ssize_t r;
        while (got < sizeof reply - 1 && (r = recv(fd, reply + got, sizeof reply - 1 - got, 0)) > 0)
            got += (size_t)r;
        reply[got] = '\0';
        int code;
        if (sscanf(reply, "HTTP/1.%*d %d", &code) == 1)
            status = code;
    }
    close(fd);
    return status;
}

/* ---- the watch -------------------------------------------------------------- */

bool pdk_agones_parse_gameserver(const char *line, bool *allocated,
                                 char session[PDK_AGONES_NAME_LEN + 1],
                                 char world[PDK_AGONES_NAME_LEN + 1], char *err, size_t err_len)
{
    *allocated = false;
    session[0] = world[0] = '\0';
    json_error_t je;
    json_t *root = json_loads(line, 0, &je);
    if (!root) {
        snprintf(err, err_len, "not JSON: %s", je.text);
        return false;
    }
    /* The gateway wraps each streamed object in "result"; GET /gameserver
     * does not. Field names come snake_case or camelCase. */
    json_t *gs = json_object_get(root, "result");
    if (!json_is_object(gs))
        gs = root;
    json_t *meta = json_object_get(gs, "object_meta");
    if (!meta)
        meta = json_object_get(gs, "objectMeta");
    json_t *status = json_object_get(gs, "status");
    if (!json_is_object(meta) || !json_is_object(status)) {
        snprintf(err, err_len, "not a GameServer: no object_meta and status objects");
        json_decref(root);
        return false;
    }
    const char *state = json_string_value(json_object_get(status, "state"));
    *allocated = state && strcmp(state, "Allocated") == 0;
    json_t *labels = json_object_get(meta, "labels");
    const char *s = json_string_value(json_object_get(labels, PDK_AGONES_LABEL_SESSION));
    const char *w = json_string_value(json_object_get(labels, PDK_AGONES_LABEL_WORLD));
    bool ok = true;
    if ((s && strlen(s) > PDK_AGONES_NAME_LEN) || (w && strlen(w) > PDK_AGONES_NAME_LEN)) {
        snprintf(err, err_len, "a %s or %s label longer than %d bytes", PDK_AGONES_LABEL_SESSION,
                 PDK_AGONES_LABEL_WORLD, PDK_AGONES_NAME_LEN);
        ok = false;
    } else {
        snprintf(session, PDK_AGONES_NAME_LEN + 1, "%s", s ? s : "");
        snprintf(world, PDK_AGONES_NAME_LEN + 1, "%s", w ? w : "");
    }
    json_decref(root);
    return ok;
}

static void watch_close(pdk_agones *a)
{
    if (a->watch_fd >= 0)
        close(a->watch_fd);
    a->watch_fd = -1;
    a->in_len = a->line_len = 0;
    a->watch_headers_done = a->watch_chunked = false;
    a->chunk_state = 0;
}

static bool watch_open(pdk_agones *a)
{
    int fd = connect_sdk(a);
    if (fd < 0)
        return false;
    static const char req[] = "GET /watch/gameserver HTTP/1.1\r\nHost: localhost\r\n"
                              "Accept: application/json\r\n\r\n";
    if (!send_all(fd, req, sizeof req - 1)) {
        close(fd);
        return false;
    }
    a->watch_fd = fd;
    return true;
}

/* One whole line of the watch's body. */
static void watch_line(pdk_agones *a, const char *line)
{
    if (line[0] == '\0' || a->allocated_seen)
        return;
    bool allocated;
    char session[PDK_AGONES_NAME_LEN + 1], world[PDK_AGONES_NAME_LEN + 1], err[160];
    if (!pdk_agones_parse_gameserver(line, &allocated, session, world, err, sizeof err)) {
        say("a watch line was not understood (%s); waiting for the next", err);
        return;
    }
    if (!allocated)
        return;
    a->allocated_seen = true;
    pthread_mutex_lock(&a->mu);
    memcpy(a->session, session, sizeof a->session);
    memcpy(a->world, world, sizeof a->world);
    a->allocated_new = true;
    pthread_mutex_unlock(&a->mu);
    uv_async_send(&a->async);
}

static void body_bytes(pdk_agones *a, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            a->line[a->line_len] = '\0';
            watch_line(a, a->line);
            a->line_len = 0;
        } else if (a->line_len < WATCH_LINE_MAX) {
            a->line[a->line_len++] = p[i];
        }
    }
}

/* Parses what the watch has sent so far: the headers, then the body,
 * de-chunked, line by line (a line past WATCH_LINE_MAX is cut there). false
 * when the reply is not a 200 or its headers never end. */
static bool watch_parse(pdk_agones *a)
{
    size_t off = 0;
    if (!a->watch_headers_done) {
        char *end = memmem(a->in, a->in_len, "\r\n\r\n", 4);
        if (!end)
            return a->in_len < REPLY_MAX; /* headers past 64 KiB: not the sidecar */
        *end = '\0';
        int code = 0;
        if (sscanf(a->in, "HTTP/1.%*d %d", &code) != 1 || code != 200)
            return false;
        for (char *h = a->in; *h; h++)
            *h = (char)(*h >= 'A' && *h <= 'Z' ? *h - 'A' + 'a' : *h);
        a->watch_chunked = strstr(a->in, "transfer-encoding: chunked") != NULL;
        a->watch_headers_done = true;
        off = (size_t)(end - a->in) + 4;
    }
    while (off < a->in_len) {
        if (!a->watch_chunked) {
            body_bytes(a, a->in + off, a->in_len - off);
            off = a->in_len;
        } else if (a->chunk_state == 0) {
            char *eol = memmem(a->in + off, a->in_len - off, "\r\n", 2);
            if (!eol)
                break;
            a->chunk_left = strtoull(a->in + off, NULL, 16);
            off = (size_t)(eol - a->in) + 2;
            a->chunk_state = a->chunk_left ? 1 : 2;
        } else if (a->chunk_state == 1) {
            size_t take = a->in_len - off < a->chunk_left ? a->in_len - off : a->chunk_left;
            body_bytes(a, a->in + off, take);
            off += take;
            a->chunk_left -= take;
            if (a->chunk_left == 0)
                a->chunk_state = 2;
        } else {
            if (a->in_len - off < 2)
                break;
            off += 2;
            a->chunk_state = 0;
        }
    }
    memmove(a->in, a->in + off, a->in_len - off);
    a->in_len -= off;
    return true;
}

/* Reads what the watch has; false when it ended or failed. */
static bool watch_read(pdk_agones *a)
{
    if (a->in_cap - a->in_len < 4096) {
        size_t cap = a->in_cap * 2;
        char *p = realloc(a->in, cap);
        if (!p)
            return false;
        a->in = p;
        a->in_cap = cap;
    }
    ssize_t n = recv(a->watch_fd, a->in + a->in_len, a->in_cap - a->in_len - 1, 0);
    if (n <= 0)
        return false;
    a->in_len += (size_t)n;
    return watch_parse(a);
}

/* ---- the thread ------------------------------------------------------------- */

/* Waits up to ms, or until woken or the watch has bytes; true when the
 * watch has. */
static bool wait_for(pdk_agones *a, uint64_t ms)
{
    struct pollfd fds[2] = {{.fd = a->wake[0], .events = POLLIN},
                            {.fd = a->watch_fd, .events = POLLIN}};
    int n = poll(fds, a->watch_fd >= 0 ? 2 : 1, (int)ms);
    if (n > 0 && (fds[0].revents & POLLIN)) {
        char drain[64];
        while (read(a->wake[0], drain, sizeof drain) > 0) {
        }
    }
    return n > 0 && a->watch_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR));
}

static void *agent_main(void *arg)
{
    pdk_agones *a = arg;
    uint64_t period_ms = (uint64_t)(a->cfg.health_s * 1000.0 + 0.5);
    uint64_t retry_ms = RETRY_FIRST_MS;
    bool ready = false, shutdown_said = false, waiting_said = false;
    uint64_t last_beat = 0, next_health = 0;
    while (!atomic_load(&a->stop)) {
        if (!ready) {
            int code = post(a, "/ready");
            if (code == 200) {
                ready = true;
                retry_ms = RETRY_FIRST_MS;
                say("ready");
                continue;
            }
            if (!waiting_said)
                say("waiting for the SDK sidecar on 127.0.0.1:%d (/ready: %s)", a->cfg.port,
                    code < 0 ? "no answer" : "refused");
            waiting_said = true;
            wait_for(a, retry_ms);
            retry_ms = retry_ms * 2 < period_ms ? retry_ms * 2 : period_ms;
            continue;
        }
        if (atomic_load(&a->want_shutdown) && !shutdown_said) {
            if (post(a, "/shutdown") == 200) {
                shutdown_said = true;
                say("shutdown said");
                pthread_mutex_lock(&a->mu);
                a->shutdown_new = true;
                pthread_mutex_unlock(&a->mu);
                uv_async_send(&a->async);
            } else {
                wait_for(a, retry_ms);
            }
            continue;
        }
        uint64_t now = now_ms();
        if (a->watch_fd < 0 && !a->allocated_seen && !shutdown_said && now >= a->watch_retry_ms &&
            !watch_open(a)) {
            a->watch_retry_ms = now + retry_ms;
        }
        if (now >= next_health) {
            uint64_t beat = atomic_load(&a->beats);
            if (beat != last_beat && post(a, "/health") == 200)
                last_beat = beat;
            next_health = now + period_ms;
        }
        now = now_ms();
        if (wait_for(a, next_health > now ? next_health - now : 0) && !watch_read(a)) {
            /* The watch ended or was refused (the sidecar restarted): open
             * it again after a while. */
            watch_close(a);
            a->watch_retry_ms = now_ms() + retry_ms;
        }
    }
    watch_close(a);
    return NULL;
}

/* ---- the loop's side ---------------------------------------------------------- */

static void on_async(uv_async_t *h)
{
    pdk_agones *a = h->data;
    pthread_mutex_lock(&a->mu);
    bool allocated = a->allocated_new, shutdown = a->shutdown_new;
    char session[sizeof a->session], world[sizeof a->world];
    memcpy(session, a->session, sizeof session);
    memcpy(world, a->world, sizeof world);
    a->allocated_new = a->shutdown_new = false;
    pthread_mutex_unlock(&a->mu);
    if (allocated && a->cfg.on_allocated)
        a->cfg.on_allocated(a->cfg.ud, session, world);
    if (shutdown && a->cfg.on_shutdown)
        a->cfg.on_shutdown(a->cfg.ud);
}

pdk_error pdk_agones_start(uv_loop_t *loop, const pdk_agones_config *cfg, pdk_agones **out,
                           char *err, size_t err_len)
{
    *out = NULL;
    if (cfg->port < 1 || cfg->port > 65535 || !(cfg->health_s >= 0.1)) {
        snprintf(err, err_len, "the SDK port %d or the health period %g s is out of range",
                 cfg->port, cfg->health_s);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_agones *a = calloc(1, sizeof *a);
    char *in = malloc(8192), *line = malloc(WATCH_LINE_MAX + 1);
    if (!a || !in || !line || pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(a);
        free(in);
        free(line);
        snprintf(err, err_len, "out of memory or descriptors");
        return PDK_ERR_NO_MEMORY;
    }
    a->cfg = *cfg;
    a->in = in;
    a->in_cap = 8192;
    a->line = line;
    a->watch_fd = -1;
    pthread_mutex_init(&a->mu, NULL);
    uv_async_init(loop, &a->async, on_async);
    a->async.data = a;
    if (pthread_create(&a->thread, NULL, agent_main, a) != 0) {
        snprintf(err, err_len, "cannot start the agent thread");
        uv_close((uv_handle_t *)&a->async, NULL);
        a->started = false;
        *out = a;
        return PDK_ERR_NO_MEMORY;
    }
    a->started = true;
    *out = a;
    return PDK_OK;
}

void pdk_agones_beat(pdk_agones *a)
{
    if (a)
        atomic_fetch_add(&a->beats, 1);
}

static void wake(pdk_agones *a)
{
    char b = 1;
    ssize_t n = write(a->wake[1], &b, 1);
    (void)n; /* a full pipe already wakes it */
}

void pdk_agones_shutdown(pdk_agones *a)
{
    if (!a)
        return;
    atomic_store(&a->want_shutdown, true);
    wake(a);
}

void pdk_agones_stop(pdk_agones *a)
{
    if (!a || !a->started)
        return;
    atomic_store(&a->stop, true);
    wake(a);
    pthread_join(a->thread, NULL);
    a->started = false;
    uv_close((uv_handle_t *)&a->async, NULL);
}

void pdk_agones_free(pdk_agones *a)
{
    if (!a)
        return;
    close(a->wake[0]);
    close(a->wake[1]);
    pthread_mutex_destroy(&a->mu);
    free(a->in);
    free(a->line);
    free(a);
}
