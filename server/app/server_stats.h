/* The stats stream's subscriptions (server_stats.c), as the requests
 * that add and end them see them: the list and the timer of the earliest
 * one due. Sending the frames needs the whole server (server_internal.h
 * pdk_server_on_stats_timer). */
#ifndef PDK_SERVER_STATS_H
#define PDK_SERVER_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

/* A stats subscription: SessionStats at rate_hz from the stats timer. */
typedef struct pdk_stats_sub {
    uint64_t conn_id;
    uint32_t sub_id;
    uint64_t session_id;
    uint64_t period_ns;
    uint64_t due_ns;
    uint64_t last_ns; /* when the last frame went out, for the real-time factor */
    double last_sim_s;
} pdk_stats_sub;

typedef struct pdk_server_stats {
    pdk_stats_sub *subs;
    size_t n, cap;
    uv_timer_t timer;     /* its data is the server, for the frames */
    const bool *stopping; /* the server's: no timer once it stops */
} pdk_server_stats;

/* Ends a stats subscription of conn_id; false when it has none of that id. */
bool pdk_server_stats_unsubscribe(pdk_server_stats *st, uint64_t conn_id, uint32_t sub_id);

#endif
