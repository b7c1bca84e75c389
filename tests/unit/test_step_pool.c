/* Unit tests for the step threads' shared work (server/app/step_pool.h):
 * pdk_step_pool_share runs every chunk exactly once and returns only when
 * all have run, whichever threads took them; with every step thread busy,
 * the sharer runs them all itself; a tick pushed meanwhile takes a helper
 * from the share; pdk_step_pool_current names the pool on its threads
 * only (ADR 0033). A thread waits for a job that has lately come soon by
 * polling, and sleeps when its jobs come far apart (ADR 0041). */
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "step_pool.h"

enum { CHUNKS = 64 };

/* The threads wait for work by polling as a server's do by default
 * (server.h step_poll_ns), so that a share or a job must end a poll too. */
#define POLL_NS 2000000u

typedef struct counted {
    pdk_step_share base;
    atomic_int runs[CHUNKS];
    atomic_int finished;
    atomic_int by_sharer;
    uv_thread_t sharer;
} counted;

static void count_chunk(pdk_step_share *sh, int i)
{
    counted *c = (counted *)sh;
    usleep(200); /* long enough that idle threads join */
    atomic_fetch_add(&c->runs[i], 1);
    uv_thread_t self = uv_thread_self();
    if (uv_thread_equal(&self, &c->sharer))
        atomic_fetch_add(&c->by_sharer, 1);
    atomic_fetch_add(&c->finished, 1);
}

static void on_done(pdk_step_job *job, void *ud)
{
    (void)job;
    atomic_fetch_add((atomic_int *)ud, 1);
}

typedef struct blocker {
    pdk_step_job base;
    atomic_int *release;
    atomic_int *started;
    pdk_step_pool *seen_pool;
} blocker;

static void block_run(pdk_step_job *job)
{
    blocker *b = (blocker *)job;
    b->seen_pool = pdk_step_pool_current();
    atomic_fetch_add(b->started, 1);
    while (atomic_load(b->release) == 0)
        usleep(100);
}

static void counted_init(counted *c)
{
    memset(c, 0, sizeof(*c));
    c->base.chunk = count_chunk;
    c->base.n_chunks = CHUNKS;
    c->sharer = uv_thread_self();
}

/* Every chunk once, all finished when share returns, however many times it
 * is shared on the same pool. */
START_TEST(share_runs_every_chunk_once)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    static pdk_step_pool pool;
    atomic_int done = 0;
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 3, POLL_NS, on_done, &done), 0);
    ck_assert_ptr_null(pdk_step_pool_current());
    for (int round = 0; round < 20; round++) {
        static counted c;
        counted_init(&c);
        pdk_step_pool_share(&pool, &c.base);
        ck_assert_int_eq(atomic_load(&c.finished), CHUNKS);
        for (int i = 0; i < CHUNKS; i++)
            ck_assert_int_eq(atomic_load(&c.runs[i]), 1);
    }
    pdk_step_pool_stop(&pool);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Every step thread busy with a tick (a job that waits): the sharer runs
 * every chunk itself and returns, and the jobs still end. A job's thread
 * is the pool's. */
START_TEST(a_busy_pool_leaves_the_sharer_all_chunks)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    static pdk_step_pool pool;
    atomic_int done = 0, release = 0, started = 0;
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 2, POLL_NS, on_done, &done), 0);
    static blocker jobs[2];
    for (int i = 0; i < 2; i++) {
        jobs[i] = (blocker){.base = {.run = block_run}, .release = &release, .started = &started};
        pdk_step_pool_push(&pool, &jobs[i].base);
    }
    while (atomic_load(&started) < 2)
        usleep(100);
    static counted c;
    counted_init(&c);
    pdk_step_pool_share(&pool, &c.base);
    ck_assert_int_eq(atomic_load(&c.by_sharer), CHUNKS);
    for (int i = 0; i < CHUNKS; i++)
        ck_assert_int_eq(atomic_load(&c.runs[i]), 1);
    atomic_store(&release, 1);
    pdk_step_pool_drain(&pool);
    ck_assert_int_eq(atomic_load(&done), 2);
    ck_assert_ptr_eq(jobs[0].seen_pool, &pool);
    ck_assert_ptr_eq(jobs[1].seen_pool, &pool);
    pdk_step_pool_stop(&pool);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* A share of slow chunks whose sharer is a step thread's job. */
typedef struct slow_share {
    pdk_step_share base;
    atomic_int started;
} slow_share;

static void slow_chunk(pdk_step_share *sh, int i)
{
    (void)i;
    atomic_fetch_add(&((slow_share *)sh)->started, 1);
    usleep(1000);
}

typedef struct sharer {
    pdk_step_job base;
    slow_share share;
} sharer;

static void share_job(pdk_step_job *job)
{
    sharer *j = (sharer *)job;
    pdk_step_pool_share(pdk_step_pool_current(), &j->share.base);
}

typedef struct late_tick {
    pdk_step_job base;
    const atomic_int *started; /* the share's */
    atomic_int started_then;   /* its chunks started when this job began */
} late_tick;

static void late_run(pdk_step_job *job)
{
    late_tick *t = (late_tick *)job;
    atomic_store(&t->started_then, atomic_load(t->started));
}

/* A session's tick pushed while the other step thread helps a share: that
 * thread leaves the share after its chunk in hand and runs the tick, whose
 * wait is a chunk, not the rest of the share; the sharer still runs every
 * chunk. */
START_TEST(a_waiting_tick_takes_a_helper_from_its_share)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    static pdk_step_pool pool;
    atomic_int done = 0;
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 2, POLL_NS, on_done, &done), 0);
    static sharer big;
    memset(&big, 0, sizeof(big));
    big.base.run = share_job;
    big.share.base.chunk = slow_chunk;
    big.share.base.n_chunks = CHUNKS;
    pdk_step_pool_push(&pool, &big.base);
    while (atomic_load(&big.share.started) < 6) /* both threads in it */
        usleep(100);
    static late_tick tick;
    memset(&tick, 0, sizeof(tick));
    tick.base.run = late_run;
    tick.started = &big.share.started;
    atomic_store(&tick.started_then, -1);
    pdk_step_pool_push(&pool, &tick.base);
    pdk_step_pool_drain(&pool);
    ck_assert_int_eq(atomic_load(&done), 2);
    ck_assert_int_eq(atomic_load(&big.share.started), CHUNKS);
    int then = atomic_load(&tick.started_then);
    ck_assert_msg(then >= 6 && then < CHUNKS - 8, "the tick began with %d of %d chunks started",
                  then, CHUNKS);
    pdk_step_pool_stop(&pool);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static void quick_run(pdk_step_job *job)
{
    (void)job;
}

/* Runs rounds jobs one after another on pool, each pushed gap_us after the
 * last one was done (the test's thread is the loop). */
static void jobs_apart(pdk_step_pool *pool, int rounds, unsigned gap_us)
{
    static pdk_step_job job = {.run = quick_run};
    for (int i = 0; i < rounds; i++) {
        pdk_step_pool_push(pool, &job);
        pdk_step_pool_drain(pool);
        usleep(gap_us);
    }
}

/* Jobs 0.2 ms apart find their thread polling (it ran the last one within
 * the 20 ms it polls for); once they come 60 ms apart it sleeps instead
 * and begins no poll; a pool that does not poll never does. */
START_TEST(a_thread_polls_only_for_jobs_that_come_soon)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    static pdk_step_pool pool;
    atomic_int done = 0;
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 1, 20000000u, on_done, &done), 0);
    jobs_apart(&pool, 40, 200);
    unsigned soon = atomic_load(&pool.poll_hits);
    ck_assert_msg(soon > 0, "no job 0.2 ms after the last found its thread polling");
    jobs_apart(&pool, 4, 60000); /* the smoothed gap passes 20 ms */
    unsigned settled = atomic_load(&pool.polls);
    jobs_apart(&pool, 6, 60000);
    unsigned after = atomic_load(&pool.polls);
    ck_assert_msg(after == settled, "%u polls begun between jobs 60 ms apart", after - settled);
    ck_assert_int_eq(atomic_load(&done), 50);
    pdk_step_pool_stop(&pool);
    uv_run(&loop, UV_RUN_DEFAULT);

    static pdk_step_pool still;
    ck_assert_int_eq(pdk_step_pool_start(&still, &loop, 1, 0, on_done, &done), 0);
    jobs_apart(&still, 20, 200);
    unsigned still_polls = atomic_load(&still.polls);
    ck_assert_uint_eq(still_polls, 0u);
    pdk_step_pool_stop(&still);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("step_pool");
    TCase *tc = tcase_create("share");
    tcase_add_test(tc, share_runs_every_chunk_once);
    tcase_add_test(tc, a_busy_pool_leaves_the_sharer_all_chunks);
    tcase_add_test(tc, a_waiting_tick_takes_a_helper_from_its_share);
    tcase_add_test(tc, a_thread_polls_only_for_jobs_that_come_soon);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
