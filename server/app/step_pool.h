/* Step threads: a real-time session's tick run off the loop (ADR 0031).
 * The loop pushes a job naming a session; one of n threads runs it; the
 * loop hears it is done through a uv_async. One job per session at a time
 * is the caller's rule (its slot is busy meanwhile), so a session is never
 * stepped by two threads at once and its ticks stay in order. */
#ifndef PDK_STEP_POOL_H
#define PDK_STEP_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct pdk_step_job pdk_step_job;

/* Runs on a step thread: only the job's session may be touched. */
typedef void (*pdk_step_run_fn)(pdk_step_job *job);
/* Runs on the loop once the job is done. */
typedef void (*pdk_step_done_fn)(pdk_step_job *job, void *ud);

struct pdk_step_job {
    pdk_step_job *next; /* the pool's queues */
    pdk_step_run_fn run;
};

/* Work a step thread shares with the pool's idle threads while it runs
 * (pdk_step_pool_share): n_chunks pieces, each run once by chunk(sh, i) on
 * whichever thread takes it, at the same time as the others. A step
 * thread's waiting jobs go before it: a session's tick waiting for a thread
 * is late, a shared chunk is not. So an idle thread helps only while no
 * job waits, and leaves after its chunk in hand when one is pushed. */
typedef struct pdk_step_share pdk_step_share;
struct pdk_step_share {
    void (*chunk)(pdk_step_share *sh, int i);
    int n_chunks;
    atomic_int next_chunk; /* the next chunk to take */
    int helpers;           /* pool threads running its chunks now (under the pool's lock) */
    pdk_step_share *next;  /* the pool's open shares */
};

typedef struct pdk_step_pool {
    uv_thread_t *threads;
    unsigned n_threads;
    uv_mutex_t lock;
    uv_cond_t wake;
    pdk_step_job *todo_first, *todo_last;
    atomic_uint waiting; /* jobs in todo: a helper leaves its share for them */
    pdk_step_job *done_first, *done_last;
    pdk_step_share *shares;    /* open to idle threads */
    atomic_uint shares_posted; /* shares ever opened: a polling thread's news */
    uint64_t poll_ns;          /* a thread's wait by polling (pdk_step_pool_start) */
    atomic_uint polls;         /* waits by polling begun */
    atomic_uint poll_hits;     /* of them, those that work ended */
    bool stopping;
    unsigned in_flight; /* pushed and not yet handed to done (the loop's count) */
    uv_async_t done_async;
    pdk_step_done_fn done;
    void *ud;
} pdk_step_pool;

/* Lowers the calling thread below the loop's priority (nice 10): for
 * threads whose work may wait when the cores are short, so that the loop
 * does not (step threads, recording jobs on libuv's pool). */
void pdk_thread_yield_to_loop(void);

/* Starts n_threads threads (n_threads > 0). A thread that has run a job
 * and whose next one has lately come within poll_ns waits for it by
 * polling, for up to poll_ns, before it sleeps (0: it always sleeps; ADR
 * 0041). Non-zero: a libuv error. */
int pdk_step_pool_start(pdk_step_pool *pool, uv_loop_t *loop, unsigned n_threads, uint64_t poll_ns,
                        pdk_step_done_fn done, void *ud);
/* Queues job (on the loop). */
void pdk_step_pool_push(pdk_step_pool *pool, pdk_step_job *job);
/* Waits, on the loop, for every pushed job to be run and hands each to
 * done: shutdown, or a caller that must have every session back. */
void pdk_step_pool_drain(pdk_step_pool *pool);
/* Drains, stops the threads and closes the async handle (its close
 * callback runs on the loop's next turn). */
void pdk_step_pool_stop(pdk_step_pool *pool);

/* On a step thread of pool (pdk_step_pool_current): runs sh's chunks with
 * whichever of the pool's threads are idle, itself taking chunks too, and
 * returns once every chunk has run. With no thread idle it runs them all
 * itself. */
void pdk_step_pool_share(pdk_step_pool *pool, pdk_step_share *sh);
/* The pool whose step thread calls it; NULL on any other thread. */
pdk_step_pool *pdk_step_pool_current(void);

#endif
