/* Test harness: starts the real paddockd on an ephemeral loopback port with
 * its own SQLite file, runs the real paddock CLI, and talks raw bytes. */
#ifndef PDK_HARNESS_H
#define PDK_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct pdk_test_server {
    pid_t pid;
    int port;
    char log_path[300];  /* the server's stdout+stderr */
    char dir[256];       /* temporary folder with the database */
    char db[320];
    char addr[64];       /* "127.0.0.1:PORT" */
} pdk_test_server;

/* A fresh temporary folder (mkdtemp) in out (>= 256 bytes), removed with
 * its contents when the process that made it exits (PDK_TEST_KEEP_TMP set:
 * kept). */
void pdk_test_tmpdir(char *out, size_t len);

/* Starts paddockd with --listen 127.0.0.1:0 and a database in a new folder
 * (or db_path when not NULL), plus extra arguments (NULL-terminated list).
 * Returns 0 when it printed its listening line, -1 otherwise (its output is
 * then in log, when log is not NULL). */
int pdk_test_server_start(pdk_test_server *srv, const char *db_path, const char *const *extra,
                          char *log, size_t log_len);

/* The server's output so far, into log (NUL-terminated). */
void pdk_test_read_log(const pdk_test_server *srv, char *log, size_t log_len);

/* SIGTERM, wait; returns the exit status (-1 when killed by a signal) and
 * the rest of the server's output in log. */
int pdk_test_server_stop(pdk_test_server *srv, char *log, size_t log_len);

/* Runs a command line through /bin/sh, capturing stdout and stderr (2>&1)
 * into out; returns the exit status. */
int pdk_test_sh(char *out, size_t out_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A connected raw TCP socket to 127.0.0.1:port (blocking, 5 s timeouts). */
int pdk_test_raw_connect(int port);

struct pdk_client;
/* Connects c to the server on port as a viewer named name: libpaddock-client
 * has no viewer option, so the Hello goes by hand on a raw socket that the
 * client then takes over (timeout_ms for every wait). 0 once welcomed; -1
 * when the socket, the call or the Welcome failed. */
int pdk_test_connect_viewer(struct pdk_client *c, int port, int timeout_ms, const char *name);

/* Reads until EOF or timeout; returns bytes read (or -1). */
ssize_t pdk_test_read_all(int fd, uint8_t *buf, size_t cap, int timeout_ms);

/* Writes a whole file. */
void pdk_test_write_file(const char *path, const char *text);

/* Seconds on the monotonic clock, for timing what a test waits for. */
double pdk_test_now_s(void);

/* Sleeps ms milliseconds, through signals. */
void pdk_test_sleep_ms(int ms);

#endif
