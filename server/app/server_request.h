/* A request as its handler sees it: the frame, the connection it came
 * from, and pointers to just the services a handler may use (the reply
 * buffer, the configuration, the session table, the scheduler's state to
 * read). Each topic's file has a table of its requests, ended by an entry
 * with neither handler; server.c dispatches. */
#ifndef PDK_SERVER_REQUEST_H
#define PDK_SERVER_REQUEST_H

#include <stdbool.h>

#include "server.h"
#include "server_stats.h"
#include "server_table.h"
#include "wire.h"

/* Only the topics that must see the whole server or the scheduler's state
 * (server_internal.h) use these. */
typedef struct pdk_server pdk_server;
struct pdk_server_sched;

struct pdk_auth;
struct pdk_preset_cache;

typedef struct pdk_request {
    pdk_server_conn *c;                   /* the connection it came from */
    const Paddock__V1__Frame *f;          /* the request */
    pdk_buf *out;                         /* replies are encoded here */
    const pdk_server_config *cfg;         /* limits, presets, session caps */
    pdk_server_table *table;              /* the session table */
    const struct pdk_server_sched *sched; /* read only: the writer's stall, for session info */
    pdk_server_stats *stats;              /* the stats stream's subscriptions */
    const struct pdk_auth *auth;          /* the --auth keys; NULL: loopback clients, "local" */
    struct pdk_preset_cache *presets;     /* vehicle presets spawned before; NULL: none kept */
} pdk_request;

/* What a request needs of its connection's identity (docs/security.md
 * "Identities and roles"). The dispatcher checks it before any handler
 * runs (server_access.c), against the session the body's session_id
 * names, so no handler repeats it. */
typedef enum pdk_request_needs {
    PDK_NEEDS_NOTHING,     /* any connection that said Hello */
    PDK_NEEDS_CREATE,      /* a role that changes things (not a viewer): makes a session */
    PDK_NEEDS_READ,        /* any role on session_id's session or recording */
    PDK_NEEDS_READ_CREATE, /* READ, and a role that makes sessions (replay, fork) */
    PDK_NEEDS_CHANGE,      /* a role that changes session_id's session (not a viewer) */
    PDK_NEEDS_SHARE,       /* CHANGE as its owner, an operator or an admin: not by a join token */
} pdk_request_needs;

/* A key's role binds the control lease it may hold (docs/security.md
 * "Identities and roles"): driver keys the DRIVER lease, autonomy keys the
 * AUTONOMY and AI leases, admin and operator keys any; without --auth every
 * client is an admin. True when c may take (or command through) source's
 * lease of vehicle; else a PERMISSION_DENIED reply to rid naming the
 * identity, its role and the source, and false. Server_access.c. */
bool pdk_server_access_lease_ok(pdk_buf *out, pdk_server_conn *c, uint64_t rid, uint32_t vehicle,
                                int source);

/* A request a client may send: its handler, and what it needs of the
 * connection's identity (a viewer may send none that change). A request takes handle when the
 * context is all it needs. handle_server is for the few that change when
 * sessions tick or run work off the loop (opening and closing sessions,
 * SessionControl, recordings): the scheduler's timers, the
 * workers and the hooks that answer other connections are the loop's, so
 * those see the whole server; each says why beside its table entry. */
typedef struct pdk_server_request {
    Paddock__V1__Frame__BodyCase body;
    void (*handle)(const pdk_request *rq);
    void (*handle_server)(pdk_server *srv, const pdk_request *rq);
    pdk_request_needs needs;
    /* Costly on the loop (a spawn loads and checks a preset): counted in
     * the connection's budget per tick, --max-spawns-per-tick (server.c),
     * by the loop time it took where that is more than its count. */
    bool costly;
    /* A costly request counted by its count alone, whatever it took. */
    bool counted;
    /* An input that drives a vehicle: counted in the connection's other
     * budget per tick, --max-inputs-per-tick (server.c). */
    bool input;
    /* How much of its budget a request spends: a batch's entries; NULL:
     * one. */
    uint32_t (*units)(const Paddock__V1__Frame *f);
} pdk_server_request;

extern const pdk_server_request pdk_server_session_requests[];      /* server_requests.c */
extern const pdk_server_request pdk_server_vehicle_requests[];      /* server_vehicles.c */
extern const pdk_server_request pdk_server_subscription_requests[]; /* server_subscriptions.c */
extern const pdk_server_request pdk_server_control_requests[];      /* server_control.c */
extern const pdk_server_request pdk_server_stats_requests[];        /* server_stats.c */
extern const pdk_server_request pdk_server_recording_requests[];    /* server_recording.c */
extern const pdk_server_request pdk_server_proxy_requests[];        /* server_proxies.c */
extern const pdk_server_request pdk_server_access_requests[];       /* server_access.c */

/* The request a frame body asks for, from the topics' tables; NULL when a
 * client may not send it (server.c). */
const pdk_server_request *pdk_server_request_for(Paddock__V1__Frame__BodyCase bc);

#endif
