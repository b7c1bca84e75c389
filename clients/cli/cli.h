/* What the paddock subcommands share: the command table entry, option
 * handling common to every command (--help, --server, --timeout), the one
 * connection and the one Frame of the program, error reporting with the
 * documented exit codes, and the Ctrl-C flag. */
#ifndef PDK_CLI_H
#define PDK_CLI_H

#include <signal.h>

#include "cli_util.h"
#include "paddock_client.h"

#define PDK_CLI_DEFAULT_TIMEOUT_MS PDK_CLIENT_DEFAULT_TIMEOUT_MS
#define PDK_CLI_ERR_LEN 512
#define PDK_CLI_N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Option ids every command accepts; a command's own ids start at
 * PDK_CLI_OPT_FIRST. */
enum {
    PDK_CLI_OPT_HELP = 1,
    PDK_CLI_OPT_SERVER,
    PDK_CLI_OPT_TIMEOUT,
    PDK_CLI_OPT_OPERAND, /* pdk_cli_next_arg: an argument that is not an option */
    PDK_CLI_OPT_API_KEY,
    PDK_CLI_OPT_TLS_CA,
    PDK_CLI_OPT_TLS_CERT,
    PDK_CLI_OPT_TLS_KEY,
    PDK_CLI_OPT_FIRST = 10,
};
#define PDK_CLI_COMMON_OPTS                                                                        \
    {"help", PDK_CLI_OPT_HELP, 0}, {"server", PDK_CLI_OPT_SERVER, 1},                              \
        {"timeout", PDK_CLI_OPT_TIMEOUT, 1}, {"api-key", PDK_CLI_OPT_API_KEY, 1},                  \
        {"tls-ca", PDK_CLI_OPT_TLS_CA, 1}, {"tls-cert", PDK_CLI_OPT_TLS_CERT, 1},                  \
    {                                                                                              \
        "tls-key", PDK_CLI_OPT_TLS_KEY, 1                                                          \
    }

typedef struct pdk_cli pdk_cli;

typedef struct pdk_cli_command {
    const char *name;
    const char *synopsis; /* the arguments after the command's name */
    const char *summary;  /* one line for `paddock --help` */
    const char *details;  /* the option list for `paddock CMD --help` */
    const pdk_cli_opt *opts;
    size_t n_opts;
    int (*run)(pdk_cli *cli, const struct pdk_cli_command *cmd, pdk_cli_args *args);
} pdk_cli_command;

/* The program's state. The client (64 KiB of buffers) and the Frame (about
 * 45 KiB) have static storage in main.c; every request and reply goes
 * through that one Frame. */
struct pdk_cli {
    const char *server;  /* --server, or NULL for $PADDOCK_SERVER or the default */
    const char *api_key; /* --api-key, or NULL for $PADDOCK_API_KEY (or none) */
    /* --tls-ca, --tls-cert, --tls-key; with no --tls-ca, $PADDOCK_TLS_CA and
     * its fellows (libpaddock-client reads them). */
    pdk_client_tls tls;
    int timeout_ms;
    int timeout_set; /* --timeout was given (long commands otherwise wait longer) */
    pdk_client *client;
    paddock_v1_Frame *frame;
    paddock_v1_Welcome welcome;
};

/* Set by SIGINT and SIGTERM once pdk_cli_catch_stop() has run. */
extern volatile sig_atomic_t pdk_cli_stop_requested;
void pdk_cli_catch_stop(void);

/* The next command-specific option (> 0, *value set when it takes one).
 * Handles the common options itself. Returns 0 at the end of a clean
 * command line, -1 when the command must stop with *exit_code (after
 * --help, 0; after a usage error, which it prints, 2). */
int pdk_cli_next_option(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                        const char **value, int *exit_code);

/* pdk_cli_next_option for a command that takes operands (words and
 * numbers, negative ones too, among its options): an operand comes back as
 * PDK_CLI_OPT_OPERAND with *value set. */
int pdk_cli_next_arg(pdk_cli *cli, const pdk_cli_command *cmd, pdk_cli_args *args,
                     const char **value, int *exit_code);

/* Prints "paddock CMD: MESSAGE", the synopsis and a hint; returns 2. */
int pdk_cli_usage_error(const pdk_cli_command *cmd, const char *message);

/* Connects (printing "paddock: cannot connect to ADDR: reason" on failure).
 * Returns 0 or PDK_CLI_EXIT_CONNECT. */
int pdk_cli_open(pdk_cli *cli);

/* Zeroes the Frame and sets its body tag; the caller fills the body. */
paddock_v1_Frame *pdk_cli_request(pdk_cli *cli, pb_size_t body_tag);

/* Sends the Frame and waits for the reply into the same Frame, checking its
 * body tag. Returns 0, or prints the failure and returns its exit code. */
int pdk_cli_call(pdk_cli *cli, pb_size_t reply_tag);

/* Prints a failed call ("paddock: NOT_FOUND: ..." for a server error,
 * "paddock: timeout: ..." otherwise) and returns its exit code. */
int pdk_cli_report(pdk_cli *cli, pdk_client_status st);

/* The sessions a reply holds at most (paddock.options sizes the array). */
#define PDK_CLI_SESSION_PAGE                                                                  \
    (sizeof(((paddock_v1_SessionListReply *)0)->sessions) /                                   \
     sizeof(((paddock_v1_SessionListReply *)0)->sessions[0]))

/* Asks for the page of sessions from offset on (SessionList offset/limit);
 * the reply is in cli->frame. Frames pushed meanwhile go to on_push. Returns
 * 0, or prints the failure and returns its exit code. */
int pdk_cli_list_page(pdk_cli *cli, uint32_t offset, pdk_client_push_fn on_push, void *ud);

/* pdk_cli_find_session's answer when the server has no such session. */
#define PDK_CLI_SESSION_MISSING (-1)

/* Finds session id by walking the pages; *out gets its info. Returns 0 when
 * found, PDK_CLI_SESSION_MISSING when the server has no such session, or the
 * exit code of a failed request (printed). */
int pdk_cli_find_session(pdk_cli *cli, uint64_t id, paddock_v1_SessionInfo *out,
                         pdk_client_push_fn on_push, void *ud);

/* Required option missing: a usage error naming it. */
int pdk_cli_missing(const pdk_cli_command *cmd, const char *option);

/* The long-running commands, defined in drive.c, dbw.c, watch.c and
 * telemetry.c, and those of session control (control.c) and recordings
 * (recording.c). */
extern const pdk_cli_command pdk_cli_drive_command;
extern const pdk_cli_command pdk_cli_dbw_command;
extern const pdk_cli_command pdk_cli_watch_command;
extern const pdk_cli_command pdk_cli_telemetry_command;
extern const pdk_cli_command pdk_cli_control_command;
extern const pdk_cli_command pdk_cli_stepper_command;
extern const pdk_cli_command pdk_cli_stats_command;
extern const pdk_cli_command pdk_cli_replay_command;
extern const pdk_cli_command pdk_cli_verify_command;
extern const pdk_cli_command pdk_cli_fork_command;
extern const pdk_cli_command pdk_cli_export_command;
extern const pdk_cli_command pdk_cli_import_command;
extern const pdk_cli_command pdk_cli_csv_command;
extern const pdk_cli_command pdk_cli_meta_command;
extern const pdk_cli_command pdk_cli_recordings_command;
extern const pdk_cli_command pdk_cli_contacts_command; /* contacts.c */

/* On an open connection: subscribes to sub, prints the state header and
 * one line per vehicle per batch (as `paddock watch`) until count batches
 * (0: no limit), duration_s (0: none), Ctrl-C or the session's end, then
 * unsubscribes. Returns the exit code. */
int pdk_cli_watch_session(pdk_cli *cli, const paddock_v1_Subscribe *sub, uint64_t count,
                          double duration_s);

/* The reply wait of a command whose work can take long on the server (a
 * verify, an export): --timeout when given, else this many ms. */
#define PDK_CLI_LONG_TIMEOUT_MS 600000
void pdk_cli_long_wait(pdk_cli *cli);

/* Seconds on the monotonic clock. */
double pdk_cli_now_s(void);

#endif
