/* Who may do what to which session: the owners of the sessions and the
 * join tokens handed out (with --auth both recorded and read again at
 * start), the one check the dispatcher makes before every request (its
 * table's needs), and the requests that share a session (SessionShare) and
 * join one (SessionJoin). The role decisions themselves are auth.c's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>

#include "server_internal.h"
#include "server_request.h"

/* Join tokens a server holds, those recorded by earlier runs included:
 * enough for every session at its cap to be shared a few times, and a
 * bound on a client asking again and again. */
#define MAX_JOIN_TOKENS 16384

/* Where session_id's owner is in a's owners, which are in session id
 * order, or where it would go: every request's check looks its session's
 * owner up, however many sessions and recordings the server holds. */
static size_t owner_at(const pdk_server_access *a, uint64_t session_id)
{
    size_t lo = 0, hi = a->n_owners;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->owners[mid].session_id < session_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sets session_id's owner in memory (replacing an earlier one); false when
 * out of memory. */
static bool add_owner(pdk_server_access *a, uint64_t session_id, const char *owner,
                      const char *name)
{
    size_t at = owner_at(a, session_id);
    if (at == a->n_owners || a->owners[at].session_id != session_id) {
        if (a->n_owners == a->cap_owners) {
            size_t cap = a->cap_owners ? a->cap_owners * 2 : 16;
            pdk_session_owner *p = realloc(a->owners, cap * sizeof(*p));
            if (!p)
                return false;
            a->owners = p;
            a->cap_owners = cap;
        }
        memmove(&a->owners[at + 1], &a->owners[at], (a->n_owners - at) * sizeof(a->owners[0]));
        a->n_owners++;
    }
    pdk_session_owner *o = &a->owners[at];
    o->session_id = session_id;
    snprintf(o->owner, sizeof(o->owner), "%s", owner ? owner : "");
    snprintf(o->name, sizeof(o->name), "%s", name ? name : "");
    return true;
}

/* Appends a join token in memory; false when out of memory. */
static bool add_token(pdk_server_access *a, uint64_t session_id, const uint8_t digest[32],
                      pdk_role role)
{
    if (a->n_tokens == a->cap_tokens) {
        size_t cap = a->cap_tokens ? a->cap_tokens * 2 : 16;
        pdk_join_token *p = realloc(a->tokens, cap * sizeof(*p));
        if (!p)
            return false;
        a->tokens = p;
        a->cap_tokens = cap;
    }
    pdk_join_token *t = &a->tokens[a->n_tokens++];
    memcpy(t->token_sha256, digest, sizeof(t->token_sha256));
    t->session_id = session_id;
    t->role = role;
    return true;
}

void pdk_server_access_own(pdk_server *srv, const pdk_server_slot *slot, const char *owner)
{
    if (!add_owner(&srv->access, slot->id, owner, pdk_session_name(slot->session)))
        return;
    /* Without --auth every client is "local": naming it the owner in the
     * file would hand the recording to a key of that name later. */
    if (srv->access.auth && owner && owner[0] && pdk_session_recorded(slot->session)) {
        pdk_error e = pdk_store_record_owner(srv->store, slot->id, owner);
        if (e != PDK_OK)
            fprintf(stderr,
                    "paddockd: session %" PRIu64 ": its owner '%s' could not be recorded (%s); "
                    "after a restart only admins and operators reach its recording\n",
                    slot->id, owner, pdk_error_name(e));
    }
}

static pdk_error load_owner(void *ctx, uint64_t session_id, const char *owner,
                            const char *session_name)
{
    pdk_server *srv = ctx;
    return add_owner(&srv->access, session_id, owner, session_name) ? PDK_OK : PDK_ERR_NO_MEMORY;
}

static pdk_error load_token(void *ctx, uint64_t session_id, const uint8_t token_sha256[32],
                            int role)
{
    pdk_server *srv = ctx;
    return add_token(&srv->access, session_id, token_sha256, (pdk_role)role) ? PDK_OK
                                                                             : PDK_ERR_NO_MEMORY;
}

int pdk_server_access_load(pdk_server *srv)
{
    if (!srv->access.auth)
        return 0;
    char err[PDK_STORE_ERR_LEN];
    if (pdk_store_read_access(srv->store, load_owner, load_token, srv, err, sizeof(err)) !=
        PDK_OK) {
        fprintf(stderr, "paddockd: reading the recorded owners and join tokens: %s\n", err);
        return -1;
    }
    if (srv->access.n_owners || srv->access.n_tokens)
        fprintf(stderr, "paddockd: %zu recorded session owner%s and %zu join token%s read\n",
                srv->access.n_owners, srv->access.n_owners == 1 ? "" : "s", srv->access.n_tokens,
                srv->access.n_tokens == 1 ? "" : "s");
    return 0;
}

static const pdk_session_owner *owner_of(const pdk_server_access *a, uint64_t session_id)
{
    size_t at = owner_at(a, session_id);
    return at < a->n_owners && a->owners[at].session_id == session_id ? &a->owners[at] : NULL;
}

void pdk_server_access_forget(pdk_server *srv, uint64_t session_id)
{
    pdk_server_access *a = &srv->access;
    size_t at = owner_at(a, session_id);
    if (at < a->n_owners && a->owners[at].session_id == session_id) {
        memmove(&a->owners[at], &a->owners[at + 1], (a->n_owners - at - 1) * sizeof(a->owners[0]));
        a->n_owners--;
    }
    size_t kept = 0;
    for (size_t i = 0; i < a->n_tokens; i++)
        if (a->tokens[i].session_id != session_id)
            a->tokens[kept++] = a->tokens[i];
    a->n_tokens = kept;
    for (size_t k = 0; k < srv->n_conns; k++) {
        pdk_server_conn *c = srv->conns[k];
        for (int i = 0; i < c->n_grants;) {
            if (c->grants[i].session_id == session_id)
                c->grants[i] = c->grants[--c->n_grants];
            else
                i++;
        }
    }
}

static pdk_role granted_on(const pdk_server_conn *c, uint64_t session_id)
{
    for (int i = 0; i < c->n_grants; i++)
        if (c->grants[i].session_id == session_id)
            return c->grants[i].role;
    return PDK_ROLE_NONE;
}

/* The role c has on session_id: its identity's, capped at viewer when its
 * Hello said viewer. use_grant: whether a join token counts. */
static pdk_role role_on(const pdk_server *srv, const pdk_server_conn *c, uint64_t session_id,
                        bool use_grant)
{
    const pdk_session_owner *o = owner_of(&srv->access, session_id);
    pdk_role r = pdk_auth_role_on(c->who, o ? o->name : "", o ? o->owner : "",
                                  use_grant ? granted_on(c, session_id) : PDK_ROLE_NONE);
    if (c->viewer && r != PDK_ROLE_NONE)
        r = pdk_auth_role_min(r, PDK_ROLE_VIEWER);
    return r;
}

bool pdk_server_access_sees(const pdk_server *srv, const pdk_server_conn *c, uint64_t session_id)
{
    return role_on(srv, c, session_id, true) != PDK_ROLE_NONE;
}

struct pdk_access_view {
    const pdk_identity *who; /* the --auth file's, alive as long as the server */
    uint64_t *owned;         /* the sessions whose owner is who */
    size_t n_owned;
    pdk_grant grants[PDK_SERVER_CONN_MAX_GRANTS];
    int n_grants;
};

bool pdk_server_access_view_make(const pdk_server *srv, const pdk_server_conn *c,
                                 pdk_access_view **out)
{
    *out = NULL;
    const pdk_identity *who = c->who;
    if (who->n_patterns == 0 && (who->role == PDK_ROLE_ADMIN || who->role == PDK_ROLE_OPERATOR))
        return true;
    const pdk_server_access *a = &srv->access;
    pdk_access_view *v = calloc(1, sizeof(*v));
    if (!v)
        return false;
    v->who = who;
    size_t n = 0;
    for (size_t i = 0; i < a->n_owners; i++)
        n += strcmp(a->owners[i].owner, who->name) == 0;
    v->owned = calloc(n ? n : 1, sizeof(*v->owned));
    if (!v->owned) {
        free(v);
        return false;
    }
    for (size_t i = 0; i < a->n_owners; i++)
        if (strcmp(a->owners[i].owner, who->name) == 0)
            v->owned[v->n_owned++] = a->owners[i].session_id;
    memcpy(v->grants, c->grants, sizeof(v->grants));
    v->n_grants = c->n_grants;
    *out = v;
    return true;
}

bool pdk_server_access_view_sees(void *ctx, uint64_t session_id, const char *name)
{
    const pdk_access_view *v = ctx;
    /* owned is in session id order, as the owners it was copied from. */
    size_t lo = 0, hi = v->n_owned;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->owned[mid] < session_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    const char *owner = lo < v->n_owned && v->owned[lo] == session_id ? v->who->name : "";
    pdk_role granted = PDK_ROLE_NONE;
    for (int i = 0; i < v->n_grants; i++)
        if (v->grants[i].session_id == session_id)
            granted = v->grants[i].role;
    return pdk_auth_role_on(v->who, name, owner, granted) != PDK_ROLE_NONE;
}

void pdk_server_access_view_free(pdk_access_view *view)
{
    if (view)
        free(view->owned);
    free(view);
}

bool pdk_server_access_lease_ok(pdk_buf *out, pdk_server_conn *c, uint64_t rid, uint32_t vehicle,
                                int source)
{
    /* Not a source at all: the lease's own check refuses it by name. */
    if (source != PDK_SOURCE_DRIVER && source != PDK_SOURCE_AUTONOMY && source != PDK_SOURCE_AI)
        return true;
    pdk_role role = c->who->role;
    bool ok;
    const char *may;
    switch (role) {
    case PDK_ROLE_DRIVER:
        ok = source == PDK_SOURCE_DRIVER;
        may = "a driver drives through the DRIVER lease only";
        break;
    case PDK_ROLE_AUTONOMY:
        ok = source == PDK_SOURCE_AUTONOMY || source == PDK_SOURCE_AI;
        may = "an autonomy key drives through the AUTONOMY and AI leases only";
        break;
    case PDK_ROLE_ADMIN:
    case PDK_ROLE_OPERATOR:
        return true;
    default:
        ok = false;
        may = "it drives nothing";
        break;
    }
    if (!ok)
        pdk_server_refuse(out, c, rid, PDK_ERR_PERMISSION_DENIED,
                          "identity '%s' has the role %s and may not take the %s lease of vehicle "
                          "%" PRIu32 ": %s (docs/security.md)",
                          c->who->name, pdk_auth_role_name(role), pdk_control_source_name(source),
                          vehicle, may);
    return ok;
}

/* A viewer by its own Hello keeps the refusal it always had. */
static bool refuse_changes(pdk_server *srv, pdk_server_conn *c, const Paddock__V1__Frame *f,
                           pdk_role role, const char *on)
{
    const char *body = pdk_wire_frame_body_name(f->body_case);
    if (c->viewer) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "this connection said Hello as a viewer: a viewer watches and may not send %s",
                 body);
        pdk_server_send_error(&srv->out, c->conn, f->request_id, PDK_ERR_PROTOCOL, msg);
    } else {
        pdk_server_refuse(&srv->out, c, f->request_id, PDK_ERR_PERMISSION_DENIED,
                          "identity '%s' has the role %s%s: a %s may not send %s", c->who->name,
                          pdk_auth_role_name(role), on, pdk_auth_role_name(role), body);
    }
    return false;
}

bool pdk_server_access_check(pdk_server *srv, pdk_server_conn *c, const pdk_server_request *r,
                             const Paddock__V1__Frame *f)
{
    if (r->needs == PDK_NEEDS_NOTHING)
        return true;
    pdk_role own = c->viewer ? pdk_auth_role_min(c->who->role, PDK_ROLE_VIEWER) : c->who->role;
    if ((r->needs == PDK_NEEDS_CREATE || r->needs == PDK_NEEDS_READ_CREATE) &&
        !pdk_auth_role_changes(own))
        return refuse_changes(srv, c, f, own, "");
    if (r->needs == PDK_NEEDS_CREATE)
        return true;
    uint64_t sid = 0;
    bool has = pdk_wire_frame_session_id(f, &sid);
    PDK_ASSERT(has); /* every request that needs a session names it */
    pdk_role on = role_on(srv, c, sid, r->needs != PDK_NEEDS_SHARE);
    char where[48];
    snprintf(where, sizeof(where), " on session %" PRIu64, sid);
    if (on == PDK_ROLE_NONE) {
        const pdk_session_owner *o = owner_of(&srv->access, sid);
        char whose[PDK_AUTH_NAME_LEN + 32];
        if (o && o->owner[0])
            snprintf(whose, sizeof(whose), "it belongs to '%s'", o->owner);
        else
            snprintf(whose, sizeof(whose), "it has no owner here");
        pdk_server_refuse(&srv->out, c, f->request_id, PDK_ERR_PERMISSION_DENIED,
                          "identity '%s' (%s) may not send %s for session %" PRIu64 ": %s; %s",
                          c->who->name, pdk_auth_role_name(c->who->role),
                          pdk_wire_frame_body_name(f->body_case), sid, whose,
                          r->needs == PDK_NEEDS_SHARE
                              ? "only its owner, an operator or an admin shares it"
                              : "its owner, an operator or an admin can share it (SessionShare)");
        return false;
    }
    if ((r->needs == PDK_NEEDS_CHANGE || r->needs == PDK_NEEDS_SHARE) && !pdk_auth_role_changes(on))
        return refuse_changes(srv, c, f, on, where);
    return true;
}

void pdk_server_access_free(pdk_server_access *access)
{
    pdk_auth_free(access->auth);
    free(access->owners);
    free(access->tokens);
    memset(access, 0, sizeof(*access));
}

/* ---- SessionShare and SessionJoin ------------------------------------------ */

static pdk_role role_from_wire(Paddock__V1__Role r)
{
    switch (r) {
    case PADDOCK__V1__ROLE__ROLE_ADMIN:
        return PDK_ROLE_ADMIN;
    case PADDOCK__V1__ROLE__ROLE_OPERATOR:
        return PDK_ROLE_OPERATOR;
    case PADDOCK__V1__ROLE__ROLE_DRIVER:
        return PDK_ROLE_DRIVER;
    case PADDOCK__V1__ROLE__ROLE_AUTONOMY:
        return PDK_ROLE_AUTONOMY;
    case PADDOCK__V1__ROLE__ROLE_VIEWER:
        return PDK_ROLE_VIEWER;
    default:
        break;
    }
    return PDK_ROLE_NONE;
}

static void hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The sender shares a session it owns (or any, as an operator or admin):
 * the dispatcher checked that (PDK_NEEDS_SHARE); here, that the role asked
 * for is a role and not above the sender's own on the session. */
static void pdk_server_handle_share(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const Paddock__V1__SessionShare *m = f->session_share;
    pdk_role want = role_from_wire(m->role);
    if (want == PDK_ROLE_NONE) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_INVALID_ARGUMENT,
                          "role %d is not a role: ROLE_ADMIN 1 .. ROLE_VIEWER 5", (int)m->role);
        return;
    }
    const pdk_server_slot *slot =
        pdk_server_need_session(rq->table, rq->out, c->conn, f->request_id, m->session_id);
    if (!slot)
        return;
    pdk_role mine = role_on(srv, c, m->session_id, false);
    if (pdk_auth_role_min(mine, want) != want) {
        pdk_server_refuse(
            rq->out, c, f->request_id, PDK_ERR_PERMISSION_DENIED,
            "identity '%s' has the role %s on session %" PRIu64 " and cannot share it as %s",
            c->who->name, pdk_auth_role_name(mine), m->session_id, pdk_auth_role_name(want));
        return;
    }
    pdk_server_access *a = &srv->access;
    if (a->n_tokens >= MAX_JOIN_TOKENS) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_CAPACITY,
                          "the server has handed out its maximum of %d join tokens",
                          MAX_JOIN_TOKENS);
        return;
    }
    /* 128 random bits: a token cannot be guessed, only given. */
    uint8_t secret[16];
    if (getrandom(secret, sizeof(secret), 0) != (ssize_t)sizeof(secret)) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_IO,
                          "the system's random source failed");
        return;
    }
    char token[2 * sizeof(secret) + 1];
    hex(secret, sizeof(secret), token);
    uint8_t digest[32];
    pdk_auth_sha256(token, strlen(token), digest);
    if (!add_token(a, m->session_id, digest, want)) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_NO_MEMORY, "out of memory");
        return;
    }
    /* Recorded with the session, so that the token still opens its
     * recording after a restart; only the digest is written. */
    if (a->auth && pdk_session_recorded(slot->session)) {
        pdk_error e = pdk_store_record_join_token(srv->store, m->session_id, digest, (int)want);
        if (e != PDK_OK)
            fprintf(stderr,
                    "paddockd: session %" PRIu64 ": a join token could not be recorded (%s); "
                    "it works until the server stops\n",
                    m->session_id, pdk_error_name(e));
    }
    Paddock__V1__SessionShareReply sr = PADDOCK__V1__SESSION_SHARE_REPLY__INIT;
    sr.token = token;
    sr.session_id = m->session_id;
    sr.role = m->role;
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_SHARE_REPLY;
    r.session_share_reply = &sr;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

static void pdk_server_handle_join(pdk_server *srv, const pdk_request *rq)
{
    pdk_server_conn *c = rq->c;
    const Paddock__V1__Frame *f = rq->f;
    const char *token = f->session_join->token;
    uint8_t digest[32];
    pdk_auth_sha256(token, strlen(token), digest);
    const pdk_join_token *found = NULL;
    for (size_t i = 0; i < srv->access.n_tokens; i++)
        if (CRYPTO_memcmp(digest, srv->access.tokens[i].token_sha256, 32) == 0)
            found = &srv->access.tokens[i];
    if (!found) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_PERMISSION_DENIED,
                          "the join token is not one this server handed out (SessionShare)");
        return;
    }
    pdk_grant *g = NULL;
    for (int i = 0; i < c->n_grants; i++)
        if (c->grants[i].session_id == found->session_id)
            g = &c->grants[i];
    if (!g && c->n_grants == PDK_SERVER_CONN_MAX_GRANTS) {
        pdk_server_refuse(rq->out, c, f->request_id, PDK_ERR_CAPACITY,
                          "this connection has joined its maximum of %d sessions",
                          PDK_SERVER_CONN_MAX_GRANTS);
        return;
    }
    if (!g)
        g = &c->grants[c->n_grants++];
    g->session_id = found->session_id;
    g->role = found->role;
    Paddock__V1__SessionJoined sj = PADDOCK__V1__SESSION_JOINED__INIT;
    sj.session_id = found->session_id;
    sj.role = (Paddock__V1__Role)role_on(srv, c, found->session_id, true);
    Paddock__V1__Frame r = PADDOCK__V1__FRAME__INIT;
    r.request_id = f->request_id;
    r.body_case = PADDOCK__V1__FRAME__BODY_SESSION_JOINED;
    r.session_joined = &sj;
    pdk_server_send_frame(rq->out, c->conn, &r);
}

/* This file's requests (server.c dispatches them). Both see the whole
 * server: the tokens and owners are the server's, not a session's. */
const pdk_server_request pdk_server_access_requests[] = {
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_SHARE,
     .handle_server = pdk_server_handle_share,
     .needs = PDK_NEEDS_SHARE},
    {.body = PADDOCK__V1__FRAME__BODY_SESSION_JOIN,
     .handle_server = pdk_server_handle_join,
     .needs = PDK_NEEDS_NOTHING},
    {0},
};
