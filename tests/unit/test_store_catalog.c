/* Unit tests of the store's catalogue of recordings (store_catalog.c):
 * listing under each filter and a page at a time, deleting one recording's
 * rows and no other's, and retention by size and by age, oldest first and
 * never a recording still being made; on real SQLite files. */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql_test_util.h"
#include "store.h"

#define MIGRATIONS PDK_SOURCE_DIR "/migrations"
#define WORLD_JSON "{\"gravity_mps2\":9.81}"
#define T0_MS INT64_C(1700000000000)

static char g_tmp[256];
static char g_db[300];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void tmp_setup(void)
{
    snprintf(g_tmp, sizeof g_tmp, "/tmp/pdk-test-catalog-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_tmp));
    snprintf(g_db, sizeof g_db, "%s/paddock.db", g_tmp);
}

static void tmp_teardown(void)
{
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static pdk_store *open_ok(void)
{
    pdk_store *s = NULL;
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc = pdk_store_open(g_db, MIGRATIONS, &s, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "open: %s", err);
    return s;
}

/* A session: name, world, start time, one vehicle per preset in presets
 * (NULL-terminated), n_hashes state hashes from tick 1, an input of
 * input_bytes at tick 1 when > 0, and an end at its last hash when ended. */
static void record(pdk_store *s, uint64_t id, const char *name, const char *world,
                   int64_t created_ms, const char *const *presets, uint64_t n_hashes,
                   size_t input_bytes, int ended)
{
    pdk_store_session d = {
        .session_id = id,
        .name = name,
        .timing = "realtime",
        .world_preset = world,
        .world_json = WORLD_JSON,
        .build_id = "0.1.0+test",
        .dt_s = 1.0 / 120.0,
        .substeps = 4,
        .created_unix_ms = created_ms,
    };
    ck_assert_int_eq(pdk_store_record_session(s, &d), PDK_OK);
    for (uint32_t v = 0; presets && presets[v]; v++)
        ck_assert_int_eq(pdk_store_record_vehicle(s, id, v + 1, 0, presets[v], "", "{\"p\":1}"),
                         PDK_OK);
    if (input_bytes > 0) {
        unsigned char payload[4096];
        ck_assert_uint_le(input_bytes, sizeof payload);
        memset(payload, 0xab, input_bytes);
        ck_assert_int_eq(pdk_store_record_input(s, id, 1, 0, 1, payload, input_bytes), PDK_OK);
    }
    for (uint64_t t = 1; t <= n_hashes; t++)
        ck_assert_int_eq(pdk_store_record_hash(s, id, t, t * 7), PDK_OK);
    if (ended)
        ck_assert_int_eq(
            pdk_store_record_session_end(s, id, n_hashes, n_hashes * 7, created_ms + 1000), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
}

/* What record() makes a recording take: its input, one vehicle's
 * parameters ("{\"p\":1}", 7 bytes) each, 8 bytes a hash, the world. */
static uint64_t size_of(size_t n_vehicles, uint64_t n_hashes, size_t input_bytes)
{
    return input_bytes + 7 * n_vehicles + 8 * n_hashes + strlen(WORLD_JSON);
}

typedef struct listed {
    uint64_t ids[16];
    pdk_store_recording rows[16];
    char presets[16][2][64];
    size_t n;
} listed;

static pdk_error keep_row(void *ctx, const pdk_store_recording *r)
{
    listed *l = ctx;
    ck_assert_uint_lt(l->n, 16);
    l->ids[l->n] = r->session_id;
    l->rows[l->n] = *r;
    for (size_t v = 0; v < r->n_vehicles && v < 2; v++)
        snprintf(l->presets[l->n][v], 64, "%s", r->vehicles[v].preset);
    l->rows[l->n].vehicles = NULL; /* valid only during the call */
    l->rows[l->n].name = l->rows[l->n].world_preset = NULL;
    l->rows[l->n].build_id = l->rows[l->n].timing = NULL;
    l->n++;
    return PDK_OK;
}

static listed list(pdk_store *s, const pdk_store_list_filter *f, uint64_t offset, uint64_t limit,
                   uint64_t *total)
{
    listed l;
    memset(&l, 0, sizeof l);
    char err[PDK_STORE_ERR_LEN];
    pdk_error rc =
        pdk_store_list_recordings(s, f, offset, limit, total, keep_row, &l, err, sizeof err);
    ck_assert_msg(rc == PDK_OK, "list: %s", err);
    return l;
}

static const char *const KART[] = {"kart", NULL};
static const char *const SEDAN_UTV[] = {"midsize_sedan", "utv", NULL};

/* Five recordings: 1 and 2 interrupted, 3 and 4 ended, 5 still recording. */
static pdk_store *five(void)
{
    pdk_store *s = open_ok();
    record(s, 1, "lap one", "flat", T0_MS, KART, 3, 0, 0);
    record(s, 2, "skidpad", "hills", T0_MS + 60000, SEDAN_UTV, 0, 0, 0);
    ck_assert_int_eq(pdk_store_mark_interrupted(s, NULL, NULL, 0), PDK_OK);
    record(s, 3, "lap two", "flat", T0_MS + 120000, SEDAN_UTV, 10, 100, 1);
    record(s, 4, "brake test", "hills", T0_MS + 180000, KART, 5, 0, 1);
    record(s, 5, "lap three", "flat", T0_MS + 240000, KART, 4, 0, 0);
    return s;
}

START_TEST(test_list_all_with_ticks_vehicles_and_sizes)
{
    pdk_store *s = five();
    pdk_store_list_filter all = {0};
    uint64_t total = 0;
    listed l = list(s, &all, 0, 0, &total);
    ck_assert_uint_eq(total, 5);
    ck_assert_uint_eq(l.n, 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(l.ids[i], i + 1);
    /* Interrupted: its last committed hash; never hashed: tick 0. */
    ck_assert_int_eq(l.rows[0].interrupted, 1);
    ck_assert_uint_eq(l.rows[0].last_tick, 3);
    ck_assert_int_eq(l.rows[1].interrupted, 1);
    ck_assert_uint_eq(l.rows[1].last_tick, 0);
    ck_assert_uint_eq(l.rows[1].n_vehicles, 2);
    ck_assert_str_eq(l.presets[1][0], "midsize_sedan");
    ck_assert_str_eq(l.presets[1][1], "utv");
    /* Ended: its final tick, and what its rows hold. */
    ck_assert_int_eq(l.rows[2].ended, 1);
    ck_assert_int_eq(l.rows[2].interrupted, 0);
    ck_assert_uint_eq(l.rows[2].last_tick, 10);
    ck_assert_uint_eq(l.rows[2].size_bytes, size_of(2, 10, 100));
    ck_assert_int_eq(l.rows[2].created_unix_ms, T0_MS + 120000);
    ck_assert_double_eq_tol(l.rows[2].dt_s, 1.0 / 120.0, 1e-15);
    /* Still recording: neither ended nor interrupted, its last hash so far. */
    ck_assert_int_eq(l.rows[4].ended, 0);
    ck_assert_int_eq(l.rows[4].interrupted, 0);
    ck_assert_uint_eq(l.rows[4].last_tick, 4);
    ck_assert_uint_eq(l.rows[4].size_bytes, size_of(1, 4, 0));
    pdk_store_close(s);
}
END_TEST

START_TEST(test_list_filters)
{
    pdk_store *s = five();
    uint64_t total = 0;
    pdk_store_list_filter f = {.name_contains = "lap"};
    listed l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 3);
    ck_assert_uint_eq(l.ids[0], 1);
    ck_assert_uint_eq(l.ids[1], 3);
    ck_assert_uint_eq(l.ids[2], 5);

    f = (pdk_store_list_filter){.world_preset = "hills"};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 4);

    f = (pdk_store_list_filter){.vehicle_preset = "utv"};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 3);

    f = (pdk_store_list_filter){.started_after_unix_ms = T0_MS + 60000,
                                .started_before_unix_ms = T0_MS + 180000};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 3);

    f = (pdk_store_list_filter){.interrupted_only = 1};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(l.ids[0], 1);
    ck_assert_uint_eq(l.ids[1], 2);

    /* Filters together: a lap on flat with a kart. */
    f = (pdk_store_list_filter){
        .name_contains = "lap", .vehicle_preset = "kart", .world_preset = "flat"};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 2);
    ck_assert_uint_eq(l.ids[0], 1);
    ck_assert_uint_eq(l.ids[1], 5);

    f = (pdk_store_list_filter){.name_contains = "no such"};
    l = list(s, &f, 0, 0, &total);
    ck_assert_uint_eq(total, 0);
    ck_assert_uint_eq(l.n, 0);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_list_pages)
{
    pdk_store *s = five();
    pdk_store_list_filter all = {0};
    uint64_t total = 0;
    listed l = list(s, &all, 1, 2, &total);
    ck_assert_uint_eq(total, 5);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 3);
    l = list(s, &all, 4, 2, &total);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_uint_eq(l.ids[0], 5);
    l = list(s, &all, 9, 0, &total);
    ck_assert_uint_eq(total, 5);
    ck_assert_uint_eq(l.n, 0);
    pdk_store_close(s);
}
END_TEST

static int64_t rows_of(uint64_t id, const char *table)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s WHERE session_id = %llu", table,
             (unsigned long long)id);
    return file_int(g_db, sql);
}

static const char *const TABLES[] = {"sessions", "vehicles", "inputs", "state_hashes", "snapshots"};

START_TEST(test_delete_removes_that_recording_only)
{
    pdk_store *s = five();
    unsigned char blob[50] = {0};
    ck_assert_int_eq(pdk_store_record_snapshot(s, 3, 5, 35, 1, blob, sizeof blob), PDK_OK);
    ck_assert_int_eq(pdk_store_record_snapshot(s, 4, 5, 35, 1, blob, sizeof blob), PDK_OK);
    ck_assert_int_eq(pdk_store_flush(s), PDK_OK);
    int64_t before4[5];
    for (size_t t = 0; t < 5; t++) {
        ck_assert_int_gt(rows_of(3, TABLES[t]), 0);
        before4[t] = rows_of(4, TABLES[t]);
    }
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_delete_recording(s, 3, err, sizeof err), PDK_OK);
    ck_assert_str_eq(err, "");
    for (size_t t = 0; t < 5; t++) {
        ck_assert_msg(rows_of(3, TABLES[t]) == 0, "%s still holds session 3", TABLES[t]);
        ck_assert_int_eq(rows_of(4, TABLES[t]), before4[t]);
    }
    /* An interrupted one goes too. */
    ck_assert_int_eq(pdk_store_delete_recording(s, 1, err, sizeof err), PDK_OK);
    uint64_t total = 0;
    pdk_store_list_filter all = {0};
    listed l = list(s, &all, 0, 0, &total);
    ck_assert_uint_eq(total, 3);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 4);
    ck_assert_uint_eq(l.ids[2], 5);
    pdk_store_close(s);
    /* The file still opens, its ids still continue. */
    s = open_ok();
    ck_assert_uint_eq(pdk_store_next_session_id(s), 6);
    pdk_store_close(s);
}
END_TEST

START_TEST(test_delete_refusals)
{
    pdk_store *s = five();
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_delete_recording(s, 42, err, sizeof err), PDK_ERR_NOT_FOUND);
    ck_assert_str_eq(err, "no recording 42");
    ck_assert_int_eq(pdk_store_delete_recording(s, 5, err, sizeof err), PDK_ERR_BUSY);
    ck_assert_msg(strstr(err, "recording 5 is still being recorded") != NULL, "%s", err);
    ck_assert_int_eq(rows_of(5, "state_hashes"), 4);
    ck_assert_int_eq(pdk_store_delete_recording(s, 4, err, sizeof err), PDK_OK);
    ck_assert_int_eq(pdk_store_delete_recording(s, 4, err, sizeof err), PDK_ERR_NOT_FOUND);
    ck_assert_int_eq(pdk_store_delete_recording(NULL, 4, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_store_list_filter all = {0};
    ck_assert_int_eq(
        pdk_store_list_recordings(s, NULL, 0, 0, NULL, keep_row, NULL, err, sizeof err),
        PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_list_recordings(s, &all, 0, 0, NULL, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_store_retain(s, NULL, NULL, NULL, err, sizeof err),
                     PDK_ERR_INVALID_ARGUMENT);
    pdk_store_close(s);
}
END_TEST

/* A callback's error stops the listing and comes back. */
static pdk_error stop_at_once(void *ctx, const pdk_store_recording *r)
{
    (void)r;
    (*(int *)ctx)++;
    return PDK_ERR_CAPACITY;
}

START_TEST(test_list_callback_stops)
{
    pdk_store *s = five();
    int calls = 0;
    char err[PDK_STORE_ERR_LEN];
    pdk_store_list_filter all = {0};
    ck_assert_int_eq(
        pdk_store_list_recordings(s, &all, 0, 0, NULL, stop_at_once, &calls, err, sizeof err),
        PDK_ERR_CAPACITY);
    ck_assert_int_eq(calls, 1);
    ck_assert_msg(strstr(err, "PDK_ERR_CAPACITY") != NULL, "%s", err);
    pdk_store_close(s);
}
END_TEST

typedef struct retired {
    uint64_t ids[16];
    char why[16][160];
    size_t n;
} retired;

static void on_retired(void *ctx, uint64_t id, uint64_t size_bytes, const char *why)
{
    retired *r = ctx;
    (void)size_bytes;
    r->ids[r->n] = id;
    snprintf(r->why[r->n], 160, "%s", why);
    r->n++;
}

/* Four finished recordings of known sizes and a live one larger than all:
 * a limit that holds the newest two deletes the oldest two, in order, and
 * never the live one, even though it alone is over the limit. */
START_TEST(test_retention_by_size_oldest_first)
{
    pdk_store *s = open_ok();
    record(s, 1, "a", "flat", T0_MS, KART, 10, 1000, 1);
    record(s, 2, "b", "flat", T0_MS + 1000, KART, 10, 1000, 1);
    record(s, 3, "c", "flat", T0_MS + 2000, KART, 10, 1000, 1);
    record(s, 4, "d", "flat", T0_MS + 3000, KART, 10, 1000, 1);
    record(s, 5, "live", "flat", T0_MS + 4000, KART, 10, 4000, 0);
    uint64_t one = size_of(1, 10, 1000), live = size_of(1, 10, 4000);
    pdk_store_retention rule = {.max_bytes = live + 2 * one, .now_unix_ms = T0_MS + 5000};
    retired r = {0};
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_retain(s, &rule, on_retired, &r, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_uint_eq(r.ids[0], 1);
    ck_assert_uint_eq(r.ids[1], 2);
    ck_assert_msg(strstr(r.why[0], "more than") != NULL, "%s", r.why[0]);
    uint64_t total = 0;
    pdk_store_list_filter all = {0};
    listed l = list(s, &all, 0, 0, &total);
    ck_assert_uint_eq(total, 3);
    ck_assert_uint_eq(l.ids[0], 3);
    /* A limit below the live one alone deletes every finished one and
     * leaves the live one. */
    rule.max_bytes = 1;
    r.n = 0;
    ck_assert_int_eq(pdk_store_retain(s, &rule, on_retired, &r, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(r.n, 2);
    l = list(s, &all, 0, 0, &total);
    ck_assert_uint_eq(total, 1);
    ck_assert_uint_eq(l.ids[0], 5);
    pdk_store_close(s);
}
END_TEST

/* An age limit deletes the finished recordings started before it, except
 * those the caller keeps (a replay open of it) and the live ones. */
START_TEST(test_retention_by_age_keeps_live_and_kept)
{
    pdk_store *s = open_ok();
    int64_t day = 86400000;
    record(s, 1, "old", "flat", T0_MS, KART, 3, 0, 1);
    record(s, 2, "old, replayed", "flat", T0_MS + 1000, KART, 3, 0, 1);
    record(s, 3, "old, live", "flat", T0_MS + 2000, KART, 3, 0, 0);
    record(s, 4, "new", "flat", T0_MS + 9 * day, KART, 3, 0, 1);
    uint64_t keep[] = {2};
    pdk_store_retention rule = {
        .max_age_ms = 7 * day, .now_unix_ms = T0_MS + 10 * day, .keep = keep, .n_keep = 1};
    retired r = {0};
    char err[PDK_STORE_ERR_LEN];
    ck_assert_int_eq(pdk_store_retain(s, &rule, on_retired, &r, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.ids[0], 1);
    ck_assert_str_eq(r.why[0], "started 864000 s ago, older than 604800 s");
    uint64_t total = 0;
    pdk_store_list_filter all = {0};
    listed l = list(s, &all, 0, 0, &total);
    ck_assert_uint_eq(total, 3);
    ck_assert_uint_eq(l.ids[0], 2);
    ck_assert_uint_eq(l.ids[1], 3);
    ck_assert_uint_eq(l.ids[2], 4);
    /* No limit at all: nothing happens. */
    pdk_store_retention none = {.now_unix_ms = T0_MS + 100 * day};
    r.n = 0;
    ck_assert_int_eq(pdk_store_retain(s, &none, on_retired, &r, err, sizeof err), PDK_OK);
    ck_assert_uint_eq(r.n, 0);
    pdk_store_close(s);
}
END_TEST

static Suite *catalog_suite(void)
{
    Suite *s = suite_create("store_catalog");
    TCase *tc = tcase_create("catalog");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_list_all_with_ticks_vehicles_and_sizes);
    tcase_add_test(tc, test_list_filters);
    tcase_add_test(tc, test_list_pages);
    tcase_add_test(tc, test_list_callback_stops);
    tcase_add_test(tc, test_delete_removes_that_recording_only);
    tcase_add_test(tc, test_delete_refusals);
    tcase_add_test(tc, test_retention_by_size_oldest_first);
    tcase_add_test(tc, test_retention_by_age_keeps_live_and_kept);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(catalog_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
