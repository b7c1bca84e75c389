/* Unit tests for the step threads' shared work (server/app/step_pool.h):
 * pdk_step_pool_share runs every chunk exactly once and returns only when
 * all have run, whichever threads took them; with every step thread busy,
 * the sharer runs them all itself; pdk_step_pool_current names the pool on
 * its threads only. ADR 0033. */
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "step_pool.h"

enum { CHUNKS = 64 };

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
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 3, on_done, &done), 0);
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
    ck_assert_int_eq(pdk_step_pool_start(&pool, &loop, 2, on_done, &done), 0);
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

int main(void)
{
    Suite *s = suite_create("step_pool");
    TCase *tc = tcase_create("share");
    tcase_add_test(tc, share_runs_every_chunk_once);
    tcase_add_test(tc, a_busy_pool_leaves_the_sharer_all_chunks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
