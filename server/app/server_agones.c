/* paddockd as an Agones game server (--agones; docs/deploy.md "A fleet on
 * Agones"): the life of one GameServer. Ready once listening; /health from
 * a loop timer; on allocation, the session its labels name is created; when
 * that session ends (its clients close it), its recording is exported as a
 * standalone file into --agones-export, then /shutdown is said and paddockd
 * stops as on SIGTERM. */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The export of the allocated session, on the pool. */
typedef struct agones_export {
    uv_work_t req;
    pdk_server *srv;
    uint64_t session_id;
    char path[PATH_MAX];
    pdk_error err;
    char msg[PDK_STORE_ERR_LEN];
} agones_export;

static void export_work(uv_work_t *req)
{
    agones_export *x = req->data;
    pdk_server *srv = x->srv;
    /* Its end and last hashes are queued behind the writer: written first. */
    pdk_store_flush(srv->store);
    x->err = pdk_store_export_session(srv->store, x->session_id, x->path, srv->cfg.migrations_dir,
                                      x->msg, sizeof x->msg);
}

static void export_done(uv_work_t *req, int status)
{
    agones_export *x = req->data;
    pdk_server *srv = x->srv;
    if (status == 0 && x->err == PDK_OK)
        printf("paddockd: agones: session %" PRIu64 " exported to %s\n", x->session_id, x->path);
    else
        fprintf(stderr, "paddockd: agones: session %" PRIu64 " could not be exported to %s: %s\n",
                x->session_id, x->path, status ? uv_strerror(status) : x->msg);
    fflush(stdout);
    free(x);
    /* The recording stays in the database either way; the GameServer's
     * work is done. */
    pdk_agones_shutdown(srv->agones.agent);
}

/* The allocated session is gone: its recording goes out, then shutdown. */
static void session_ended(pdk_server *srv)
{
    uint64_t id = srv->agones.session_id;
    srv->agones.session_id = 0;
    srv->agones.ended = true;
    printf("paddockd: agones: session %" PRIu64 " ended\n", id);
    agones_export *x = calloc(1, sizeof *x);
    const char *why = !x ? "out of memory"
                      : mkdir(srv->cfg.agones_export_dir, 0750) != 0 && errno != EEXIST
                          ? strerror(errno)
                          : NULL;
    if (why) {
        fprintf(stderr,
                "paddockd: agones: cannot export into %s: %s; session %" PRIu64
                " stays in the database only\n",
                srv->cfg.agones_export_dir, why, id);
        free(x);
        pdk_agones_shutdown(srv->agones.agent);
        return;
    }
    x->srv = srv;
    x->session_id = id;
    x->req.data = x;
    snprintf(x->path, sizeof x->path, "%s/session-%" PRIu64 ".db", srv->cfg.agones_export_dir, id);
    if (uv_queue_work(&srv->loop, &x->req, export_work, export_done) != 0) {
        free(x);
        pdk_agones_shutdown(srv->agones.agent);
    }
}

static void on_health_timer(uv_timer_t *t)
{
    pdk_server *srv = t->data;
    pdk_agones_beat(srv->agones.agent);
    if (srv->agones.session_id && !pdk_server_session_find(&srv->table, srv->agones.session_id))
        session_ended(srv);
}

static void on_allocated(void *ud, const char *session, const char *world)
{
    pdk_server *srv = ud;
    if (srv->stopping)
        return;
    if (!session[0]) {
        printf("paddockd: agones: allocated without a %s label: no session is made; clients "
               "make their own\n",
               PDK_AGONES_LABEL_SESSION);
        fflush(stdout);
        return;
    }
    char err[PDK_STORE_ERR_LEN];
    pdk_server_slot *slot = NULL;
    pdk_error e = pdk_server_session_open(srv, session, world[0] ? world : NULL, NULL,
                                          PDK_TIMING_REALTIME, true, 0, err, sizeof err, &slot);
    if (e != PDK_OK) {
        fprintf(stderr,
                "paddockd: agones: allocated, but session \"%s\" (world %s) cannot be "
                "made: %s; shutting down\n",
                session, world[0] ? world : "flat", err);
        pdk_agones_shutdown(srv->agones.agent);
        return;
    }
    srv->agones.session_id = slot->id;
    printf("paddockd: agones: allocated: session %" PRIu64 " \"%s\" on world %s\n", slot->id,
           session, world[0] ? world : "flat");
    fflush(stdout);
}

/* The sidecar took /shutdown: paddockd stops as on SIGTERM (draining what
 * is left, if --drain-seconds says so). */
static void on_shutdown(void *ud)
{
    (void)ud;
    raise(SIGTERM);
}

int pdk_server_agones_start(pdk_server *srv)
{
    const char *env = getenv("AGONES_SDK_HTTP_PORT");
    int port = 9358;
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 1 || v > 65535) {
            fprintf(stderr, "paddockd: --agones: AGONES_SDK_HTTP_PORT '%s' is not a port\n", env);
            return -1;
        }
        port = (int)v;
    }
    pdk_agones_config ac = {
        .port = port,
        .health_s = srv->cfg.agones_health_s,
        .on_allocated = on_allocated,
        .on_shutdown = on_shutdown,
        .ud = srv,
    };
    uv_timer_init(&srv->loop, &srv->agones.health_timer);
    srv->agones.health_timer.data = srv;
    char err[160];
    if (pdk_agones_start(&srv->loop, &ac, &srv->agones.agent, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "paddockd: --agones: %s\n", err);
        return -1;
    }
    uint64_t ms = (uint64_t)(srv->cfg.agones_health_s * 1000.0 + 0.5);
    uv_timer_start(&srv->agones.health_timer, on_health_timer, 0, ms);
    printf("paddockd: agones: the SDK on 127.0.0.1:%d, /health every %.3g s, exports to %s\n", port,
           srv->cfg.agones_health_s, srv->cfg.agones_export_dir);
    fflush(stdout);
    return 0;
}

void pdk_server_agones_stop(pdk_server *srv)
{
    if (!srv->agones.agent)
        return;
    uv_timer_stop(&srv->agones.health_timer);
    pdk_agones_stop(srv->agones.agent);
}
