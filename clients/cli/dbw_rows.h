/* The pure parts of `paddock dbw`: the names its arguments take (report
 * kinds, fault kinds and targets, buttons, sync modes, on/off) and the one
 * line it prints per DbwReport. Nothing here touches a socket or stdout.
 * Parsers return 0, or -1 with a message in err that starts with arg as the
 * caller names the argument ("--kinds", "fault KIND") and quotes the value. */
#ifndef PDK_CLI_DBW_ROWS_H
#define PDK_CLI_DBW_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "paddock_client.h"

/* Report kinds as a comma-separated list of their proto names without the
 * prefix ("steering,system,ulc"), each at most once; "all" is every kind
 * (*n 0, which DbwSubscribe reads as every kind). */
int pdk_cli_parse_dbw_kinds(const char *arg, const char *text, paddock_v1_DbwReportKind *kinds,
                            size_t cap, size_t *n, char *err, size_t err_len);

/* A fault kind by name ("stuck", "report_drop"; '-' may stand for '_') or
 * as a number, which is sent as it is so the server can name one it does
 * not know. */
int pdk_cli_parse_fault_kind(const char *arg, const char *text, uint32_t *kind, char *err,
                             size_t err_len);

/* A fault's target, by name as the kind reads it: a channel (steer, brake,
 * throttle, gear) for clear, stuck, saturated, latency, channel,
 * power_cycle and module_restart; a
 * report kind for report_drop, report_delay and report_missing; a sensor
 * axis (accel_x .. gyro_z, gnss) for sensor_noise and sensor_bias. A number
 * is taken for any kind. */
int pdk_cli_parse_fault_target(const char *arg, uint32_t kind, const char *text, uint32_t *target,
                               char *err, size_t err_len);

/* enable, disable, external_brake, external_brake_release. */
int pdk_cli_parse_dbw_button(const char *arg, const char *text, uint32_t *button, char *err,
                             size_t err_len);

/* none, disengages, all_or_none, all_or_none_with_btn. */
int pdk_cli_parse_sync_mode(const char *arg, const char *text, uint32_t *mode, char *err,
                            size_t err_len);

/* on or off (also 1 / 0). */
int pdk_cli_parse_on_off(const char *arg, const char *text, int *on, char *err, size_t err_len);

/* A report line: TICK TIME_S ID KIND, fixed width, then the report's fields
 * as key=value, flags as a comma-separated list of those set ('-' for none).
 * No newline. */
#define PDK_CLI_DBW_ROW_LEN 512
void pdk_cli_format_dbw_header(char *out, size_t out_len);
void pdk_cli_format_dbw_report(char *out, size_t out_len, const paddock_v1_DbwReport *r);

#endif
