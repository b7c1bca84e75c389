/* paddockd's network server: one libuv loop hosting many sessions. It owns
 * the listener, the connections' protocol state, the session table, the
 * real-time tick scheduler (absolute deadlines on a timerfd) and the fast
 * sessions' slices, and shuts down cleanly on SIGINT/SIGTERM. */
#ifndef PDK_SERVER_H
#define PDK_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "net.h"

typedef struct pdk_server_config {
    const char *listen;      /* "127.0.0.1:7420"; port 0 picks one */
    const char *http_listen; /* HTTP and WebSocket ("127.0.0.1:7421"); NULL: none */
    const char *web_root;    /* the dashboard's static files, served under --http */
    const char *db_path; /* SQLite file */
    /* The API keys' file (docs/security.md); NULL: only loopback listens,
     * every client the admin-equivalent identity "local". */
    const char *auth_path;
    /* TLS on the TCP listener (docs/security.md "TLS"): the server's PEM
     * certificate chain and key (both, or neither: plain TCP), and the CA
     * that client certificates are verified against (NULL: none asked
     * for); with require_client_cert a client without one is refused at
     * the handshake. */
    const char *tls_cert;
    const char *tls_key;
    const char *tls_client_ca;
    bool tls_require_client_cert;
    const char *presets_dir;
    const char *migrations_dir;
    const char *demo_script;  /* non-NULL: host a demo session driving it */
    const char *demo_vehicle; /* preset for the demo car */
    int max_sessions;
    size_t max_world_bytes;  /* all sessions' worlds together; default 4 GiB */
    int max_catchup_ticks;   /* ticks run per wake-up before deadlines are dropped */
    uint64_t tick_spin_ns;   /* wake this early and spin to the deadline; 0: no spin */
    uint64_t max_fast_ticks; /* a fast session pauses after this many ticks */
    /* Temporary files of ImportChunk uploads, all connections together
     * (each one at most 1 GiB besides); default 1 GiB. */
    uint64_t max_import_bytes;
    /* Retention of finished recordings, applied at start and after each
     * recorded session closes: the oldest are deleted beyond either limit
     * (0: none). */
    uint64_t retain_bytes;
    uint32_t retain_days;
    /* While the disk is full: the bytes of records kept in memory past
     * which the newest are given up and their ticks marked lost
     * (pdk_store_set_kept_limit); 0: PDK_STORE_DEFAULT_KEPT_BYTES. */
    uint64_t max_kept_bytes;
    /* A connection that has not said Hello this long after opening gets
     * Error TIMEOUT and is closed, freeing its slot; default 10 s. */
    double hello_timeout_s;
    /* Recording jobs (verify, export, CSV, MCAP, metadata, listing, replay
     * and fork loads, deletes, imports) one connection may have waiting or
     * running; one more is refused BUSY. Default 16. */
    uint32_t max_queued_jobs;
    /* SIGTERM begins a drain of this long: no new sessions, clients told
     * (ServerDraining), the running sessions ended at its end (or once
     * their clients closed them all), then the stop. 0 (the default):
     * SIGTERM stops at once, as SIGINT always does. */
    double drain_seconds;
    /* The loop thread (the ticks) at SCHED_FIFO of this priority, 1..99,
     * every other thread at the ordinary policy; 0 (the default): none. */
    int rt_priority;
    /* --agones: speak the Agones SDK (server_agones.c): /ready, /health
     * every agones_health_s, the allocated session made from the
     * GameServer's labels, exported into agones_export_dir when it ends,
     * then /shutdown. */
    bool agones;
    double agones_health_s;        /* default 2 s */
    const char *agones_export_dir; /* default "exports" */
    /* Costly requests (a VehicleSpawn) one connection may have handled per
     * tick (1/120 s); after the last of them its further frames wait,
     * unread, for the next tick (docs/security.md "Fair shares"). Default 4. */
    uint32_t max_spawns_per_tick;
    /* Threads that step real-time sessions whose tick costs more than
     * step_threshold_ns, so that one heavy session delays no other's tick
     * (ADR 0031). Default: one per core; 0: every tick on the loop. */
    uint32_t step_threads;
    uint64_t step_threshold_ns; /* default 250 us; 0: every real-time session */
    /* A step thread whose next tick has lately come within this long of
     * its last one's end waits for it by polling, up to this long, before
     * it sleeps (ADR 0041). Default 2 ms; 0: it always sleeps. */
    uint64_t step_poll_ns;
    /* A session on a step thread whose world holds at least twice this
     * many vehicles shares its step with the idle step threads, in slices
     * of about this many (ADR 0033). Default 512; 0: never. */
    uint32_t step_split_vehicles;
    /* Inputs (DbwCommand, DbwMessage, TyreCommand, VehicleReset: the requests whose table
     * entry is .input) one connection may have handled per tick; held the
     * same way past it. Default 64: a client driving one car at 120 Hz
     * sends one a tick. */
    uint32_t max_inputs_per_tick;
    pdk_net_limits limits;
} pdk_server_config;

pdk_server_config pdk_server_config_default(void);

/* Runs the server until SIGINT or SIGTERM. Prints "listening on HOST:PORT"
 * on stdout once ready. Returns a process exit code (0 after a clean stop). */
int pdk_server_run(const pdk_server_config *config);

/* pdk_server_run in parts, for code in the process that runs the loop
 * itself between its own steps (tests/fuzz/fuzz_requests.c). */
typedef struct pdk_server pdk_server;

/* Everything pdk_server_run does before it runs the loop: the store, the
 * listeners, the scheduler, the signals. NULL, after saying why on stderr,
 * when the server cannot start. */
pdk_server *pdk_server_start(const pdk_server_config *config);
/* The loop srv runs on (uv_run it to serve). */
uv_loop_t *pdk_server_loop(pdk_server *srv);
/* A listener for connections from code in the process (server/net/local.h),
 * served exactly as TCP clients are (same callbacks and limits), made on
 * the first call; the server closes it when it stops. NULL and err when
 * the server is stopping or out of memory. */
pdk_listener *pdk_server_local_listener(pdk_server *srv, char *err, size_t err_len);
/* Closes every session as a stop does: subscribers told, recordings
 * ended and kept. Only on a server without step threads (step_threads 0):
 * a session a step thread is ticking is not the loop's to close. */
void pdk_server_close_sessions(pdk_server *srv);
/* Stops as on SIGTERM: uv_run then returns once everything has closed. */
void pdk_server_stop(pdk_server *srv);
/* After uv_run has returned: flushes the store, frees srv, and returns
 * pdk_server_run's exit code. */
int pdk_server_finish(pdk_server *srv);

#endif
