/* The retention rule of --retain-bytes and --retain-days: the oldest
 * finished recordings beyond the size or the age are deleted on libuv's
 * thread pool, at start and after each recorded session closes, and each
 * deletion is logged. One run at a time: closes during a run ask for one
 * more after it, which sees every recording they finished. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "server_internal.h"

/* One run of the rule: what it must keep, what it deleted, and what went
 * wrong. */
typedef struct retention {
    uv_work_t req;
    pdk_server *srv;
    uint64_t *keep;
    size_t n_keep;
    uint64_t *deleted; /* grown on the pool, read back on the loop */
    size_t n_deleted, cap_deleted;
    pdk_error err;
    char msg[PDK_STORE_ERR_LEN];
} retention;

/* On the pool: stdout is locked per call, so a line is never torn. */
static void retired(void *ctx, uint64_t session_id, uint64_t size_bytes, const char *why)
{
    retention *r = ctx;
    printf("paddockd: retention deleted recording %" PRIu64 " (%" PRIu64 " bytes): %s\n",
           session_id, size_bytes, why);
    fflush(stdout);
    if (r->n_deleted == r->cap_deleted) {
        size_t cap = r->cap_deleted ? r->cap_deleted * 2 : 16;
        uint64_t *p = realloc(r->deleted, cap * sizeof(*p));
        if (!p)
            return; /* its owner stays in memory, unreachable: no harm beyond the bytes */
        r->deleted = p;
        r->cap_deleted = cap;
    }
    r->deleted[r->n_deleted++] = session_id;
}

static void retain_work(uv_work_t *req)
{
    retention *r = req->data;
    const pdk_server_config *cfg = &r->srv->cfg;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    pdk_store_retention rule = {
        .max_bytes = cfg->retain_bytes,
        .max_age_ms = (int64_t)cfg->retain_days * 86400000,
        .now_unix_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000,
        .keep = r->keep,
        .n_keep = r->n_keep,
    };
    r->err = pdk_store_retain(r->srv->store, &rule, retired, r, r->msg, sizeof(r->msg));
}

static void retain_done(uv_work_t *req, int status)
{
    (void)status;
    retention *r = req->data;
    pdk_server *srv = r->srv;
    if (r->err != PDK_OK)
        fprintf(stderr, "paddockd: retention stopped: %s\n", r->msg);
    for (size_t i = 0; i < r->n_deleted; i++)
        pdk_server_access_forget(srv, r->deleted[i]);
    free(r->deleted);
    free(r->keep);
    free(r);
    srv->retain_running = false;
    if (srv->retain_again && !srv->stopping) {
        srv->retain_again = false;
        pdk_server_retain(srv);
    }
}

void pdk_server_retain(pdk_server *srv)
{
    if (srv->cfg.retain_bytes == 0 && srv->cfg.retain_days == 0)
        return;
    if (srv->retain_running) {
        srv->retain_again = true;
        return;
    }
    retention *r = calloc(1, sizeof(*r));
    /* Each slot's id, and a replay's recording too. */
    uint64_t *keep = calloc(srv->table.n * 2 + 1, sizeof(*keep));
    if (!r || !keep) {
        fprintf(stderr, "paddockd: retention skipped: out of memory\n");
        free(r);
        free(keep);
        return;
    }
    r->srv = srv;
    r->req.data = r;
    r->keep = keep;
    for (size_t i = 0; i < srv->table.n; i++) {
        const pdk_server_slot *slot = &srv->table.items[i];
        keep[r->n_keep++] = slot->id;
        if (slot->replay.player != NULL)
            keep[r->n_keep++] = slot->replay.of;
    }
    int rc = uv_queue_work(&srv->loop, &r->req, retain_work, retain_done);
    if (rc != 0) {
        fprintf(stderr, "paddockd: retention skipped: %s\n", uv_strerror(rc));
        free(keep);
        free(r);
        return;
    }
    srv->retain_running = true;
}
