/* The pure parts of the paddock command-line client: option parsing, value
 * parsing (numbers, gears, timing modes), the fixed-width output rows, and
 * the translation of drive-script steps into protocol messages. Nothing here
 * touches a socket, a clock or stdout, so the unit tests drive it directly.
 * Functions that can fail return 0 on success and -1 with a message in err
 * that names the option and the value. */
#ifndef PDK_CLI_UTIL_H
#define PDK_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "paddock_client.h"
#include "script.h"

/* Exit codes of `paddock`, documented in docs/cli.md. */
enum {
    PDK_CLI_EXIT_OK = 0,
    PDK_CLI_EXIT_FAILED = 1,  /* the server refused (Error reply), or a bad script file */
    PDK_CLI_EXIT_USAGE = 2,   /* bad command line */
    PDK_CLI_EXIT_CONNECT = 3, /* cannot connect: address, refused, no Welcome */
    PDK_CLI_EXIT_LOST = 4,    /* connected, then the connection failed or timed out */
};

/* Exit code for a failed request on an established connection. */
int pdk_cli_exit_for(pdk_client_status st);

/* --- options ------------------------------------------------------------ */

/* One long option, named without its dashes ("session"). id > 0. The
 * option named "help" also answers to -h. */
typedef struct pdk_cli_opt {
    const char *name;
    int id;
    int takes_value;
} pdk_cli_opt;

typedef struct pdk_cli_args {
    int argc;
    char **argv;
    int next; /* index of the next argument to look at */
    const pdk_cli_opt *opts;
    size_t n_opts;
} pdk_cli_args;

enum { PDK_CLI_ARGS_END = 0, PDK_CLI_ARGS_ERROR = -1 };

/* Starts parsing argv[first..argc). */
pdk_cli_args pdk_cli_args_begin(int argc, char **argv, int first, const pdk_cli_opt *opts,
                                size_t n_opts);

/* The next option: its id (> 0) with *value set for options that take one
 * ("--x 5" and "--x=5" both work; a value may start with one dash, as "-5",
 * never with two). PDK_CLI_ARGS_END at the first argument that is not an
 * option (a->next then indexes it) or after "--". PDK_CLI_ARGS_ERROR with
 * err naming the option: unknown, missing value, or a value given to a
 * flag. */
int pdk_cli_args_next(pdk_cli_args *a, const char **value, char *err, size_t err_len);

/* --- values ------------------------------------------------------------- */

/* A whole decimal number within [min, max]; opt names the option in err. */
int pdk_cli_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                      char *err, size_t err_len);

/* "A,B,C", the value of --opt, appended to a request's fixed array of
 * names: max rows of size bytes at names, *count of them used. -1 with err
 * naming the option for an empty or too long name, or more than max. */
int pdk_cli_parse_names(const char *opt, const char *text, char *names, size_t size, size_t max,
                        pb_size_t *count, char *err, size_t err_len);

/* A session id from --session or an operand, into *session (0 until
 * given): -1 with err when it was given already or is not an id. */
int pdk_cli_take_session(const char *value, uint64_t *session, char *err, size_t err_len);

/* A finite decimal number within [min, max]. */
int pdk_cli_parse_double(const char *opt, const char *text, double min, double max, double *out,
                         char *err, size_t err_len);

/* Copies text into a fixed nanopb string field of dst_size bytes; too long
 * is an error naming the option and the limit. */
int pdk_cli_copy_text(const char *opt, const char *text, char *dst, size_t dst_size, char *err,
                      size_t err_len);

/* Gear letters P R N D L (either case) as the DBW gear enum. */
int pdk_cli_parse_gear(const char *opt, const char *text, paddock_v1_Gear *out, char *err,
                       size_t err_len);

/* The letter of a gear: 'P' 'R' 'N' 'D' 'L', '-' for GEAR_NONE, '?' for a
 * value this client does not know. */
char pdk_cli_gear_letter(paddock_v1_Gear gear);

/* Wheels as a TyreCommand's wheel_mask: "all", or a comma-separated list
 * of FL FR RL RR (either case, each at most once), e.g. "FL,RR" (bits 0
 * and 3: 9). */
int pdk_cli_parse_wheels(const char *opt, const char *text, uint32_t *mask, char *err,
                         size_t err_len);

/* The wheels of a mask as text: "FL,RR", "all" for 15, "-" for 0. */
void pdk_cli_format_wheels(uint32_t mask, char *out, size_t out_len);

/* A tyre condition by name (intact, flat, rim, detached) as the
 * TyreCondition number a SET_CONDITION carries in its value. */
int pdk_cli_parse_tyre_condition(const char *opt, const char *text, paddock_v1_TyreCondition *out,
                                 char *err, size_t err_len);

/* "realtime", "fast" or "lockstep" (a lockstep session ticks only when
 * the holder of its step lease steps it). */
int pdk_cli_parse_timing(const char *opt, const char *text, paddock_v1_TimingMode *out, char *err,
                         size_t err_len);

/* "realtime", "fast", "lockstep", "default" (unspecified) or "unknown". */
const char *pdk_cli_timing_name(paddock_v1_TimingMode mode);

/* An angle in degrees brought into (-180, 180]. */
double pdk_cli_wrap_deg(double deg);

/* --- output rows -------------------------------------------------------- */

/* Each header is exactly as wide as the rows its formatter writes (while the
 * values fit their columns). Rows carry no newline. */
#define PDK_CLI_ROW_LEN 256

void pdk_cli_format_sessions_header(char *out, size_t out_len);
void pdk_cli_format_session(char *out, size_t out_len, const paddock_v1_SessionInfo *s);

/* recordings: id, name, world, vehicles (count and presets), start time
 * (UTC), ticks, duration (s), size (bytes), state (done, live,
 * interrupted), build. */
void pdk_cli_format_recordings_header(char *out, size_t out_len);
void pdk_cli_format_recording(char *out, size_t out_len, const paddock_v1_RecordingInfo *r);

/* ns since the Unix epoch as ISO 8601 UTC to the millisecond
 * ("2026-12-05T03:59:01.123Z"). */
void pdk_cli_format_wall_ns(char *out, size_t out_len, uint64_t wall_ns);

/* An ISO 8601 UTC date or time ("2026-12-05", "2026-12-05T03:59",
 * "2026-12-05T03:59:01", each with an optional "Z") as ns since the Unix
 * epoch, from 1970 to 2262. */
int pdk_cli_parse_iso8601(const char *opt, const char *text, uint64_t *wall_ns, char *err,
                          size_t err_len);

/* watch: tick, sim time, vehicle id, x, y, yaw (deg), speed (km/h), yaw rate
 * (deg/s), road-wheel steer angle (deg), ax, ay (m/s^2, body frame). */
void pdk_cli_format_state_header(char *out, size_t out_len);
void pdk_cli_format_state(char *out, size_t out_len, uint64_t tick, double sim_time_s,
                          const paddock_v1_VehicleState *v);

/* drive: pass, when (seconds into the pass, or a word such as "init" or
 * "hold"), the server's tick, and the command's fields ('-' when unset). */
void pdk_cli_format_drive_header(char *out, size_t out_len);
void pdk_cli_format_drive(char *out, size_t out_len, unsigned pass, const char *when, uint64_t tick,
                          const paddock_v1_DbwCommand *cmd);

/* stats: tick, sim time, real-time factor, state (running, paused or the
 * timing mode), the step lease's holder (connection id) and time left, overruns,
 * dropped deadlines, the writer's queue, then the pause or timing reason
 * ('-' when none), which may hold spaces and ends the row. */
void pdk_cli_format_stats_header(char *out, size_t out_len);
void pdk_cli_format_stats(char *out, size_t out_len, const paddock_v1_SessionStats *s);

/* verify's report (and `paddockd verify`'s, which prints the same): one
 * "key: value" line per VerifyReply field, newline-terminated. */
void pdk_cli_format_verify(char *out, size_t out_len, const paddock_v1_VerifyReply *v);

/* --- drive scripts ------------------------------------------------------ */

/* The protocol command for a script step's command (only its set fields). */
void pdk_cli_dbw_from_step(paddock_v1_DbwCommand *out, uint64_t session_id, uint32_t vehicle_id,
                           const pdk_dbw_cmd *cmd);

/* Non-zero when the script's initial block sets speed or pose, which only a
 * spawn can honour; keys then lists them ("speed_mps, x_m"). */
int pdk_cli_initial_places_vehicle(unsigned initial_fields, char *keys, size_t keys_len);

/* Fills the pose, speed and gear of a spawn from the script's initial block;
 * fields the block does not set are left as they are. */
void pdk_cli_spawn_from_initial(paddock_v1_VehicleSpawn *spawn, const pdk_script *script);

#endif
