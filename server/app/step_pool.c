/* Step threads: a fixed set of threads taking session ticks from one
 * queue, each done job handed back to the loop in the order it finished. */
#include "step_pool.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Step threads, and libuv's pool threads once they ran a recording job,
 * run below the loop's priority: when the cores are all busy, the loop
 * (every light session's tick, every reply) goes first and a heavy
 * session's tick or a verify waits, not the other way round. */
#define STEP_THREAD_NICE 10

void pdk_thread_yield_to_loop(void)
{
    /* Linux: a thread's own nice value, by its thread id (no privilege is
     * needed to lower one's priority). */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), STEP_THREAD_NICE);
}

static _Thread_local pdk_step_pool *current_pool;

pdk_step_pool *pdk_step_pool_current(void)
{
    return current_pool;
}

/* Takes sh's chunks until none is left. */
static void share_run(pdk_step_share *sh)
{
    for (int i; (i = atomic_fetch_add(&sh->next_chunk, 1)) < sh->n_chunks;)
        sh->chunk(sh, i);
}

/* A helper's share_run: it leaves the share (its sharer takes the rest)
 * as soon as a job waits, so that another session's tick waits at most
 * for the chunk in hand. */
static void help_run(pdk_step_pool *pool, pdk_step_share *sh)
{
    for (int i; atomic_load(&pool->waiting) == 0 &&
                (i = atomic_fetch_add(&sh->next_chunk, 1)) < sh->n_chunks;)
        sh->chunk(sh, i);
}

/* Under the lock: an open share with a chunk left to take, or NULL. */
static pdk_step_share *share_open(pdk_step_pool *pool)
{
    for (pdk_step_share *sh = pool->shares; sh; sh = sh->next)
        if (atomic_load(&sh->next_chunk) < sh->n_chunks)
            return sh;
    return NULL;
}

void pdk_step_pool_share(pdk_step_pool *pool, pdk_step_share *sh)
{
    atomic_store(&sh->next_chunk, 0);
    sh->helpers = 0;
    uv_mutex_lock(&pool->lock);
    sh->next = pool->shares;
    pool->shares = sh;
    atomic_fetch_add(&pool->shares_posted, 1u);
    uv_cond_broadcast(&pool->wake);
    uv_mutex_unlock(&pool->lock);
    share_run(sh);
    /* Closed to newcomers, then the threads still in it finish theirs. */
    uv_mutex_lock(&pool->lock);
    pdk_step_share **at = &pool->shares;
    while (*at != sh)
        at = &(*at)->next;
    *at = sh->next;
    while (sh->helpers > 0)
        uv_cond_wait(&pool->wake, &pool->lock);
    uv_mutex_unlock(&pool->lock);
}

/* A thread's wait for work, from the end of its last job. gap_ns is the
 * idle time before its jobs lately, smoothed over some four of them. */
typedef struct thread_wait {
    uint64_t job_end_ns; /* 0: no job run yet */
    uint64_t gap_ns;     /* UINT64_MAX: none measured */
} thread_wait;

static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Without the lock: when the next job has lately come within poll_ns of
 * the last one's end, waits for it (or for a share, or for poll_ns to
 * pass) by polling rather than sleeping. A sleeping virtual core is given
 * to other work, and the tick after the sleep ran some 10 % slower on
 * cold caches (ADR 0041); a thread that polls stays on its core. The
 * step threads' low priority lets the loop take the core whenever it
 * wakes. */
static void poll_for_work(pdk_step_pool *pool, const thread_wait *tw)
{
    if (pool->poll_ns == 0 || tw->job_end_ns == 0 || tw->gap_ns > pool->poll_ns)
        return;
    const unsigned shares = atomic_load(&pool->shares_posted);
    const uint64_t until = tw->job_end_ns + pool->poll_ns;
    atomic_fetch_add(&pool->polls, 1u);
    for (;;) {
        if (atomic_load(&pool->waiting) != 0 || atomic_load(&pool->shares_posted) != shares) {
            atomic_fetch_add(&pool->poll_hits, 1u);
            return;
        }
        if (uv_hrtime() >= until)
            return;
        for (int i = 0; i < 16; i++)
            spin_pause();
    }
}

static void thread_main(void *arg)
{
    pdk_step_pool *pool = arg;
    current_pool = pool;
    pdk_thread_yield_to_loop();
    thread_wait tw = {.job_end_ns = 0, .gap_ns = UINT64_MAX};
    uv_mutex_lock(&pool->lock);
    for (;;) {
        if (!pool->todo_first && !pool->stopping && !share_open(pool)) {
            uv_mutex_unlock(&pool->lock);
            poll_for_work(pool, &tw);
            uv_mutex_lock(&pool->lock);
        }
        while (!pool->todo_first && !pool->stopping && !share_open(pool))
            uv_cond_wait(&pool->wake, &pool->lock);
        pdk_step_share *sh = pool->todo_first ? NULL : share_open(pool);
        if (sh) {
            sh->helpers++;
            uv_mutex_unlock(&pool->lock);
            help_run(pool, sh);
            uv_mutex_lock(&pool->lock);
            sh->helpers--;
            uv_cond_broadcast(&pool->wake); /* its sharer may wait for it */
            continue;
        }
        pdk_step_job *job = pool->todo_first;
        if (!job)
            break; /* stopping with nothing left */
        pool->todo_first = job->next;
        if (!pool->todo_first)
            pool->todo_last = NULL;
        atomic_fetch_sub(&pool->waiting, 1u);
        uv_mutex_unlock(&pool->lock);
        const uint64_t start_ns = uv_hrtime();
        if (tw.job_end_ns != 0) {
            const uint64_t gap = start_ns - tw.job_end_ns;
            tw.gap_ns = tw.gap_ns == UINT64_MAX ? gap : tw.gap_ns - tw.gap_ns / 4 + gap / 4;
        }
        job->run(job);
        tw.job_end_ns = uv_hrtime();
        uv_mutex_lock(&pool->lock);
        job->next = NULL;
        if (pool->done_last)
            pool->done_last->next = job;
        else
            pool->done_first = job;
        pool->done_last = job;
        uv_cond_broadcast(&pool->wake); /* a drain waits on it too */
        uv_async_send(&pool->done_async);
    }
    uv_mutex_unlock(&pool->lock);
}

/* Hands the finished jobs to done, in the order they finished. */
static void take_done(pdk_step_pool *pool)
{
    uv_mutex_lock(&pool->lock);
    pdk_step_job *job = pool->done_first;
    pool->done_first = pool->done_last = NULL;
    uv_mutex_unlock(&pool->lock);
    while (job) {
        pdk_step_job *next = job->next;
        pool->in_flight--;
        pool->done(job, pool->ud);
        job = next;
    }
}

static void on_done_async(uv_async_t *handle)
{
    take_done(handle->data);
}

int pdk_step_pool_start(pdk_step_pool *pool, uv_loop_t *loop, unsigned n_threads, uint64_t poll_ns,
                        pdk_step_done_fn done, void *ud)
{
    *pool = (pdk_step_pool){.done = done, .ud = ud, .poll_ns = poll_ns};
    int rc = uv_mutex_init(&pool->lock);
    if (rc)
        return rc;
    rc = uv_cond_init(&pool->wake);
    if (rc) {
        uv_mutex_destroy(&pool->lock);
        return rc;
    }
    rc = uv_async_init(loop, &pool->done_async, on_done_async);
    if (rc) {
        uv_cond_destroy(&pool->wake);
        uv_mutex_destroy(&pool->lock);
        return rc;
    }
    pool->done_async.data = pool;
    pool->threads = calloc(n_threads, sizeof(*pool->threads));
    if (!pool->threads) {
        pdk_step_pool_stop(pool);
        return UV_ENOMEM;
    }
    for (unsigned i = 0; i < n_threads; i++) {
        rc = uv_thread_create(&pool->threads[i], thread_main, pool);
        if (rc) {
            pdk_step_pool_stop(pool);
            return rc;
        }
        pool->n_threads++;
    }
    return 0;
}

void pdk_step_pool_push(pdk_step_pool *pool, pdk_step_job *job)
{
    job->next = NULL;
    pool->in_flight++;
    uv_mutex_lock(&pool->lock);
    if (pool->todo_last)
        pool->todo_last->next = job;
    else
        pool->todo_first = job;
    pool->todo_last = job;
    atomic_fetch_add(&pool->waiting, 1u);
    uv_cond_signal(&pool->wake);
    uv_mutex_unlock(&pool->lock);
}

void pdk_step_pool_drain(pdk_step_pool *pool)
{
    /* done may push again (a session catching up): drain until none is out. */
    while (pool->in_flight > 0) {
        uv_mutex_lock(&pool->lock);
        while (!pool->done_first)
            uv_cond_wait(&pool->wake, &pool->lock);
        uv_mutex_unlock(&pool->lock);
        take_done(pool);
    }
}

void pdk_step_pool_stop(pdk_step_pool *pool)
{
    if (pool->threads) {
        pdk_step_pool_drain(pool);
        uv_mutex_lock(&pool->lock);
        pool->stopping = true;
        uv_cond_broadcast(&pool->wake);
        uv_mutex_unlock(&pool->lock);
        for (unsigned i = 0; i < pool->n_threads; i++)
            uv_thread_join(&pool->threads[i]);
        free(pool->threads);
        pool->threads = NULL;
    }
    uv_close((uv_handle_t *)&pool->done_async, NULL);
    uv_cond_destroy(&pool->wake);
    uv_mutex_destroy(&pool->lock);
}
