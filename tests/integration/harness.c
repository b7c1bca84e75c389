/* The integration-test harness: real processes, real sockets, real files. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paddock_client.h"

/* The folders pdk_test_tmpdir made, each with the process that made it,
 * removed with what is in them when that process exits: a forked Check
 * test's at its own exit, never its parent's. A run of the suite or of a
 * benchmark made some hundred of them, each with a database (hundreds of
 * MB for bench_server's 3,000 cars), and left them all in /tmp. Set
 * PDK_TEST_KEEP_TMP to keep them for a look. */
enum { MAX_TMPDIRS = 256 };
static struct {
    char path[256];
    pid_t pid;
} tmpdirs[MAX_TMPDIRS];
static int n_tmpdirs;
static bool cleanup_registered;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* what cannot go stays: a best effort */
    return 0;
}

static void remove_tmpdirs(void)
{
    if (getenv("PDK_TEST_KEEP_TMP"))
        return;
    pid_t me = getpid();
    for (int i = 0; i < n_tmpdirs; i++)
        if (tmpdirs[i].pid == me)
            nftw(tmpdirs[i].path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void pdk_test_tmpdir(char *out, size_t len)
{
    snprintf(out, len, "/tmp/paddock-it-XXXXXX");
    if (!mkdtemp(out)) {
        perror("mkdtemp");
        abort();
    }
    if (!cleanup_registered)
        cleanup_registered = atexit(remove_tmpdirs) == 0;
    if (n_tmpdirs < MAX_TMPDIRS) {
        snprintf(tmpdirs[n_tmpdirs].path, sizeof tmpdirs[n_tmpdirs].path, "%s", out);
        tmpdirs[n_tmpdirs++].pid = getpid();
    }
}

int pdk_test_server_start(pdk_test_server *srv, const char *db_path, const char *const *extra,
                          char *log, size_t log_len)
{
    memset(srv, 0, sizeof(*srv));
    pdk_test_tmpdir(srv->dir, sizeof(srv->dir));
    if (db_path)
        snprintf(srv->db, sizeof(srv->db), "%s", db_path);
    else
        snprintf(srv->db, sizeof(srv->db), "%s/paddock.db", srv->dir);
    /* The server writes its output to a file, never a pipe that nobody
     * drains while a test runs, so a chatty server cannot block. */
    snprintf(srv->log_path, sizeof(srv->log_path), "%s/paddockd.log", srv->dir);
    int out = open(srv->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return -1;
    const char *argv[32] = {PDK_PADDOCKD,   "serve",
                            "--listen",     "127.0.0.1:0",
                            "--db",         srv->db,
                            "--presets",    PDK_SOURCE_DIR "/presets",
                            "--migrations", PDK_SOURCE_DIR "/migrations"};
    int argc = 10;
    for (int i = 0; extra && extra[i] && argc < 31; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* If the test process dies (a failed assertion in a forked Check
         * test), the server goes with it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(out, 1);
        dup2(out, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out);
    srv->pid = pid;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char seen[8192];
    for (;;) {
        pdk_test_read_log(srv, seen, sizeof(seen));
        pdk_test_read_log(srv, log, log_len);
        /* Loopback unless extra gave another --listen (IPv4). */
        const char *l = strstr(seen, "listening on ");
        char addr[sizeof(srv->addr)];
        if (l && strchr(l, '\n') && sscanf(l, "listening on %63[^ \n]", addr) == 1 &&
            strrchr(addr, ':')) {
            srv->port = atoi(strrchr(addr, ':') + 1);
            snprintf(srv->addr, sizeof(srv->addr), "%s", addr);
            return 0;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            srv->pid = 0;
            pdk_test_read_log(srv, log, log_len);
            return -1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10)
            break;
        usleep(10 * 1000);
    }
    int status;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    srv->pid = 0;
    pdk_test_read_log(srv, log, log_len);
    return -1;
}

void pdk_test_read_log(const pdk_test_server *srv, char *log, size_t log_len)
{
    if (!log || log_len == 0)
        return;
    log[0] = '\0';
    FILE *f = fopen(srv->log_path, "r");
    if (!f)
        return;
    size_t n = fread(log, 1, log_len - 1, f);
    log[n] = '\0';
    fclose(f);
}

int pdk_test_server_stop(pdk_test_server *srv, char *log, size_t log_len)
{
    if (srv->pid <= 0)
        return -1;
    kill(srv->pid, SIGTERM);
    int status = 0;
    for (int i = 0;; i++) {
        if (waitpid(srv->pid, &status, WNOHANG) == srv->pid)
            break;
        if (i == 1000) { /* 10 s */
            kill(srv->pid, SIGKILL);
            waitpid(srv->pid, &status, 0);
            break;
        }
        usleep(10 * 1000);
    }
    srv->pid = 0;
    pdk_test_read_log(srv, log, log_len);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int pdk_test_sh(char *out, size_t out_len, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    char full[4200];
    snprintf(full, sizeof(full), "{ %s ; } 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t used = 0;
    if (out_len)
        out[0] = '\0';
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof(tmp), p)) > 0) {
        if (used + 1 < out_len) {
            size_t take = n < out_len - used - 1 ? n : out_len - used - 1;
            memcpy(out + used, tmp, take);
            used += take;
            out[used] = '\0';
        }
    }
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int pdk_test_raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int pdk_test_connect_viewer(pdk_client *c, int port, int timeout_ms, const char *name)
{
    static _Thread_local paddock_v1_Frame req, rep;
    memset(c, 0, sizeof(*c));
    c->fd = pdk_test_raw_connect(port);
    if (c->fd < 0)
        return -1;
    c->timeout_ms = timeout_ms;
    c->next_request_id = 2; /* what a connected client has after its Hello */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_hello_tag;
    req.body.hello.protocol_version = 1;
    req.body.hello.viewer = true;
    snprintf(req.body.hello.client_name, sizeof(req.body.hello.client_name), "%s", name);
    if (pdk_client_call(c, &req, &rep, NULL, NULL) != PDK_CLIENT_OK)
        return -1;
    return rep.which_body == paddock_v1_Frame_welcome_tag ? 0 : -1;
}

ssize_t pdk_test_read_all(int fd, uint8_t *buf, size_t cap, int timeout_ms)
{
    size_t used = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r <= 0)
            return r == 0 ? (ssize_t)used : -1;
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == ECONNRESET)
            return (ssize_t)used;
        if (n <= 0)
            return n == 0 ? (ssize_t)used : -1;
        used += (size_t)n;
        if (used == cap)
            return (ssize_t)used;
    }
}

void pdk_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        abort();
    }
    fputs(text, f);
    fclose(f);
}

double pdk_test_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pdk_test_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
