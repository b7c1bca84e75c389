/* The Check assertions the integration suites share: starting, stopping,
 * connecting and calling, each failing the running test with the server's
 * log (or the client's error) in its message. Apart from harness.c, which
 * the benchmarks link without Check. */
#ifndef PDK_HARNESS_CHECK_H
#define PDK_HARNESS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/* pdk_test_server_start with no db_path, asserting that it started. */
void pdk_test_start_ok(pdk_test_server *srv, const char *const *extra, char *log, size_t log_len);

/* pdk_test_server_stop, asserting exit status 0 and, when want_clean_line,
 * that the log says "stopped cleanly". A failure shows the log's last
 * 2,000 characters: a server that saw hundreds of connections logged a line
 * for each. */
void pdk_test_stop_ok(pdk_test_server *srv, char *log, size_t log_len, bool want_clean_line);

/* pdk_client_connect_as srv->addr as name, asserting PDK_CLIENT_OK. */
void pdk_test_connect_ok(struct pdk_client *c, const pdk_test_server *srv, const char *name,
                         int timeout_ms);

/* pdk_client_call(c, req, rep), asserting PDK_CLIENT_OK; what names the
 * request in the message. Frames are void * here so that this header needs
 * no generated nanopb header: they are paddock_v1_Frame. */
void pdk_test_call_ok(struct pdk_client *c, void *req, void *rep, const char *what);

/* A VehicleSpawn of preset into session sid as *req (a paddock_v1_Frame),
 * the i-th car of a grid per_row cars wide and 8 m apart, so that no two
 * touch. */
void pdk_test_fill_spawn(void *req, uint64_t sid, const char *preset, unsigned i,
                         unsigned per_row);

/* Session sid's row of SessionList into *info (a paddock_v1_SessionInfo),
 * through req and rep; fails the test when it is not listed. */
void pdk_test_session_info(struct pdk_client *c, void *req, void *rep, uint64_t sid, void *info);

#endif
