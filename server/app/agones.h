/* agones: paddockd's side of the Agones SDK (docs/deploy.md "A fleet on
 * Agones"). Agones runs an SDK sidecar beside each game server and serves
 * its REST API on localhost (AGONES_SDK_HTTP_PORT, 9358 by default): POST
 * /ready, /health and /shutdown, GET /watch/gameserver (one JSON object a
 * line, {"result": GameServer}, each time the GameServer changes).
 *
 * An agent thread speaks that API with blocking sockets and short
 * time-outs, so the loop never waits on the sidecar: it says /ready
 * (retrying while the sidecar has not started), keeps a watch open, says
 * /health each period in which the loop has beaten (pdk_agones_beat: a
 * stuck loop stops the pings, and Agones marks the server unhealthy), and
 * says /shutdown when asked. What the loop must act on (an allocation, the
 * shutdown said) it hands over through a uv_async on the loop. */
#ifndef PDK_AGONES_H
#define PDK_AGONES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sim/error.h"

#define PDK_AGONES_LABEL_SESSION "paddock.dev/session" /* the session to create */
#define PDK_AGONES_LABEL_WORLD "paddock.dev/world"     /* its world preset */
#define PDK_AGONES_NAME_LEN 64

typedef struct pdk_agones pdk_agones;

typedef struct pdk_agones_config {
    int port;        /* the SDK's REST port on 127.0.0.1 */
    double health_s; /* the /health period, and the retry interval's cap */
    /* On the loop: the GameServer was allocated. session is its
     * PDK_AGONES_LABEL_SESSION label ("" when it has none), world its
     * PDK_AGONES_LABEL_WORLD ("" when none). Once per process. */
    void (*on_allocated)(void *ud, const char *session, const char *world);
    /* On the loop: /shutdown was accepted. */
    void (*on_shutdown)(void *ud);
    void *ud;
} pdk_agones_config;

/* Starts the agent thread. PDK_ERR_INVALID_ARGUMENT (err says why) or
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_agones_start(uv_loop_t *loop, const pdk_agones_config *cfg, pdk_agones **out,
                           char *err, size_t err_len);

/* The loop is alive: the next /health goes out. Call from a loop timer. */
void pdk_agones_beat(pdk_agones *a);

/* Asks the agent to say /shutdown (retrying until the sidecar accepts). */
void pdk_agones_shutdown(pdk_agones *a);

/* Stops the agent thread and waits for it; the uv_async is closed (its
 * close completes on the loop). pdk_agones_free after the loop has run. */
void pdk_agones_stop(pdk_agones *a);
void pdk_agones_free(pdk_agones *a);

/* The agent's parse of one watch line: whether the GameServer it holds is
 * Allocated, and its two labels ("" when absent). false when the line is
 * not a GameServer (err says why). Pure: exposed for the unit test. */
bool pdk_agones_parse_gameserver(const char *line, bool *allocated,
                                 char session[PDK_AGONES_NAME_LEN + 1],
                                 char world[PDK_AGONES_NAME_LEN + 1], char *err, size_t err_len);

#endif
