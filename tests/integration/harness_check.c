/* The Check assertions the integration suites share (harness_check.h). */
#include "harness_check.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "paddock_client.h"

void pdk_test_start_ok(pdk_test_server *srv, const char *const *extra, char *log, size_t log_len)
{
    ck_assert_msg(pdk_test_server_start(srv, NULL, extra, log, log_len) == 0,
                  "paddockd did not start: %s", log);
}

void pdk_test_stop_ok(pdk_test_server *srv, char *log, size_t log_len, bool want_clean_line)
{
    int rc = pdk_test_server_stop(srv, log, log_len);
    size_t n = strlen(log);
    const char *tail = n > 2000 ? log + n - 2000 : log;
    ck_assert_msg(rc == 0, "paddockd exited %d: ...%s", rc, tail);
    if (want_clean_line)
        ck_assert_msg(strstr(log, "stopped cleanly") != NULL, "no clean stop: ...%s", tail);
}

void pdk_test_connect_ok(pdk_client *c, const pdk_test_server *srv, const char *name,
                         int timeout_ms)
{
    ck_assert_msg(pdk_client_connect_as(c, srv->addr, timeout_ms, name, NULL) == PDK_CLIENT_OK,
                  "connecting as %s: %s", name, c->error);
}

void pdk_test_call_ok(pdk_client *c, void *req, void *rep, const char *what)
{
    ck_assert_msg(pdk_client_call(c, req, rep, NULL, NULL) == PDK_CLIENT_OK, "%s: %s", what,
                  c->error);
}

void pdk_test_session_info(pdk_client *c, void *req, void *rep, uint64_t sid, void *info)
{
    paddock_v1_Frame *q = req;
    paddock_v1_Frame *r = rep;
    memset(q, 0, sizeof(*q));
    q->which_body = paddock_v1_Frame_session_list_tag;
    pdk_test_call_ok(c, q, r, "SessionList");
    for (pb_size_t i = 0; i < r->body.session_list_reply.sessions_count; i++) {
        if (r->body.session_list_reply.sessions[i].session_id == sid) {
            *(paddock_v1_SessionInfo *)info = r->body.session_list_reply.sessions[i];
            return;
        }
    }
    ck_abort_msg("session %" PRIu64 " is not in SessionList", sid);
}

void pdk_test_fill_spawn(void *req, uint64_t sid, const char *preset, unsigned i,
                         unsigned per_row)
{
    paddock_v1_Frame *q = req;
    memset(q, 0, sizeof(*q));
    q->which_body = paddock_v1_Frame_vehicle_spawn_tag;
    q->body.vehicle_spawn.session_id = sid;
    snprintf(q->body.vehicle_spawn.preset, sizeof(q->body.vehicle_spawn.preset), "%s", preset);
    q->body.vehicle_spawn.x_m = 8.0 * (double)(i % per_row);
    q->body.vehicle_spawn.y_m = 8.0 * (double)(i / per_row);
}
