/* Unit tests of app's replay on recordings that are damaged or do not
 * load: a damaged keyframe skipped for an earlier one, a session that does
 * not exist, a recording without keyframes; inputs that do not decode and
 * rows that do not read, named, in a recording read in two halves. The
 * recording is replay_test_util.h's. */
#include "replay_test_util.h"

/* A keyframe whose blob was damaged is skipped for an earlier one (the
 * replay is still exact); a session that does not exist is named; a
 * recording without keyframes (as before migration 0002) replays and seeks
 * from tick 0. */
START_TEST(damage_and_errors)
{
    tmp_db t;
    tmp_make(&t);
    static live_run live;
    record_rich(&t, &live);
    /* Bytes in the middle of the keyframe at 240 flipped. */
    sql_exec(t.path, "UPDATE snapshots SET blob = substr(blob, 1, length(blob) / 2) || "
                     "randomblob(16) || substr(blob, length(blob) / 2 + 17) WHERE session_id = 5 "
                     "AND tick = 240");
    /* The one at 360 cut short. */
    sql_exec(t.path, "UPDATE snapshots SET blob = substr(blob, 1, 100) WHERE session_id = 5 AND "
                     "tick = 360");
    pdk_store *store = store_open(&t);
    char err[PDK_REPLAY_ERR_LEN];
    pdk_recording *rec = load(store, RICH_ID);
    pdk_session *s = replay_session(rec);
    pdk_player *p = NULL;
    ck_assert_int_eq(pdk_player_create(rec, s, &p, err, sizeof(err)), PDK_OK);
    ck_assert_msg(pdk_player_seek(p, 250, err, sizeof(err)) == PDK_OK, "%s", err);
    ck_assert_uint_eq(pdk_session_hash(s), live.hash[250]);
    ck_assert_uint_eq(pdk_player_diverged(p), 0);
    ck_assert_msg(pdk_player_seek(p, 370, err, sizeof(err)) == PDK_OK, "%s", err);
    ck_assert_uint_eq(pdk_session_hash(s), live.hash[370]);
    ck_assert_int_eq(pdk_player_seek(p, 245, err, sizeof(err)), PDK_OK);
    ck_assert_uint_eq(pdk_session_hash(s), live.hash[245]);
    pdk_player_free(p);
    pdk_session_destroy(s);
    pdk_recording_free(rec);

    pdk_verify_result r;
    ck_assert_int_eq(pdk_verify(store, RICH_ID, 0, BUILD, &r, err, sizeof(err)), PDK_OK);
    ck_assert_msg(r.match, "%s", r.message);

    ck_assert_int_eq(pdk_verify(store, 99, 0, BUILD, &r, err, sizeof(err)), PDK_ERR_NOT_FOUND);
    ck_assert_msg(strstr(err, "session 99 is not in the database"), "%s", err);
    ck_assert_int_eq(pdk_recording_load(store, 99, &rec, err, sizeof(err)), PDK_ERR_NOT_FOUND);
    ck_assert_ptr_null(rec);
    ck_assert_int_eq(pdk_verify(store, RICH_ID, 601, BUILD, &r, err, sizeof(err)),
                     PDK_ERR_OUT_OF_RANGE);
    ck_assert_msg(strstr(err, "tick 601 is outside its recording (0..600)"), "%s", err);
    pdk_store_close(store);

    /* No keyframes at all. */
    sql_exec(t.path, "DELETE FROM snapshots; UPDATE sessions SET keyframe_every_ticks = 0");
    store = store_open(&t);
    ck_assert_int_eq(pdk_verify(store, RICH_ID, 0, BUILD, &r, err, sizeof(err)), PDK_OK);
    ck_assert_msg(r.match, "%s", r.message);
    ck_assert_uint_eq(r.hashes_checked, RICH_TICKS + 1);
    rec = load(store, RICH_ID);
    s = replay_session(rec);
    ck_assert_int_eq(pdk_player_create(rec, s, &p, err, sizeof(err)), PDK_OK);
    ck_assert_int_eq(pdk_player_seek(p, 500, err, sizeof(err)), PDK_OK);
    ck_assert_uint_eq(pdk_session_hash(s), live.hash[500]);
    ck_assert_int_eq(pdk_player_seek(p, 100, err, sizeof(err)), PDK_OK);
    ck_assert_uint_eq(pdk_session_hash(s), live.hash[100]);
    pdk_player_free(p);
    pdk_session_destroy(s);
    pdk_recording_free(rec);

    /* A vehicle whose recorded parameters no longer parse: named. */
    pdk_store_close(store);
    sql_exec(t.path, "UPDATE vehicles SET params_json = '{\"model\": 5}' WHERE vehicle_id = 2");
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)) != PDK_OK, 1);
    ck_assert_msg(strstr(err, "session 5: vehicle 2 (preset polaris_ranger, spawned at tick 0) "
                              "no longer parses"),
                  "%s", err);
    pdk_store_close(store);
    tmp_remove(&t);
}
END_TEST

/* The rich recording's inputs, but for its spawns, copied 24 times at
 * the same ticks (new seqs): well over the load's threshold for decoding
 * on several threads. A load only; nothing replays them. */
static void inflate_inputs(const char *path)
{
    for (int k = 1; k <= 24; k++) {
        char sql[256];
        snprintf(sql, sizeof(sql),
                 "INSERT INTO inputs SELECT session_id, tick, seq + %d, kind, payload FROM inputs "
                 "WHERE session_id = 5 AND seq < 100000 AND kind != 1",
                 k * 100000);
        sql_exec(path, sql);
    }
}

/* An input that does not decode is named, the first of them in tick and
 * seq order whichever decoding thread met it, and so is one of a kind this
 * build does not know. */
START_TEST(inputs_that_do_not_decode_are_named)
{
    tmp_db t;
    tmp_make(&t);
    static live_run live;
    record_rich(&t, &live);
    inflate_inputs(t.path);
    int64_t n = sql_int(t.path, "SELECT count(*) FROM inputs WHERE session_id = 5");
    ck_assert_int_gt(n, 20000);
    pdk_store *store = store_open(&t);
    pdk_recording *rec = load(store, RICH_ID);
    pdk_recording_info info;
    pdk_recording_info_get(rec, &info);
    ck_assert_uint_eq(info.n_inputs, (size_t)n);
    pdk_recording_free(rec);
    pdk_store_close(store);

    /* The last DbwCommand of the recording broken: named. */
    const int64_t late_tick =
        sql_int(t.path, "SELECT max(tick) FROM inputs WHERE session_id = 5 AND kind = 3");
    char sql[256];
    snprintf(sql, sizeof(sql),
             "SELECT max(seq) FROM inputs WHERE session_id = 5 AND kind = 3 AND tick = %lld",
             (long long)late_tick);
    const int64_t late_seq = sql_int(t.path, sql);
    ck_assert_int_gt(late_tick, 300);
    snprintf(sql, sizeof(sql),
             "UPDATE inputs SET payload = x'ff' WHERE session_id = 5 AND tick = %lld AND seq = "
             "%lld",
             (long long)late_tick, (long long)late_seq);
    sql_exec(t.path, sql);
    char err[PDK_REPLAY_ERR_LEN];
    char want[160];
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)), PDK_ERR_PARSE);
    ck_assert_ptr_null(rec);
    snprintf(want, sizeof(want),
             "session 5: the input at tick %lld, seq %lld (kind 3) is not a valid DbwCommand "
             "(1 bytes)",
             (long long)late_tick, (long long)late_seq);
    ck_assert_msg(strstr(err, want), "%s", err);
    pdk_store_close(store);

    /* And one early too: the early one is named. */
    const int64_t early_seq = sql_int(t.path, "SELECT min(seq) FROM inputs WHERE session_id = 5 "
                                              "AND kind = 3 AND tick >= 12");
    const int64_t early_tick =
        sql_int(t.path, "SELECT min(tick) FROM inputs WHERE session_id = 5 AND kind = 3 AND "
                        "tick >= 12");
    snprintf(sql, sizeof(sql),
             "UPDATE inputs SET payload = x'ff' WHERE session_id = 5 AND tick = %lld AND seq = "
             "%lld",
             (long long)early_tick, (long long)early_seq);
    sql_exec(t.path, sql);
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)), PDK_ERR_PARSE);
    snprintf(want, sizeof(want), "the input at tick %lld, seq %lld (kind 3)", (long long)early_tick,
             (long long)early_seq);
    ck_assert_msg(strstr(err, want), "%s", err);
    pdk_store_close(store);

    /* A kind this build does not know. */
    snprintf(sql, sizeof(sql),
             "UPDATE inputs SET kind = 99 WHERE session_id = 5 AND tick = %lld AND seq = %lld",
             (long long)early_tick, (long long)early_seq);
    sql_exec(t.path, sql);
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)), PDK_ERR_PARSE);
    snprintf(want, sizeof(want),
             "the input at tick %lld, seq %lld has kind 99, which this build does not know",
             (long long)early_tick, (long long)early_seq);
    ck_assert_msg(strstr(err, want), "%s", err);
    pdk_store_close(store);
    tmp_remove(&t);
}
END_TEST

/* A recording's inputs are read in two halves by tick, side by side
 * (replay.c read_vehicles_and_inputs): it loads with every input in tick
 * and seq order across the seam, and a row that does not read (a seq out
 * of range, as a damaged or foreign file might hold) is named whichever
 * half holds it, the earlier one when both do. */
START_TEST(rows_that_do_not_read_are_named_in_either_half)
{
    tmp_db t;
    tmp_make(&t);
    static live_run live;
    record_rich(&t, &live);
    pdk_store *store = store_open(&t);
    pdk_recording *rec = load(store, RICH_ID);
    pdk_recording_info info;
    pdk_recording_info_get(rec, &info);
    ck_assert_uint_eq(info.n_inputs,
                      (size_t)sql_int(t.path, "SELECT count(*) FROM inputs WHERE session_id = 5"));
    pdk_recording_free(rec);
    pdk_store_close(store);
    const int64_t last = sql_int(t.path, "SELECT max(tick) FROM state_hashes WHERE session_id = 5");
    ck_assert_int_gt(last, 300);

    char err[PDK_REPLAY_ERR_LEN];
    /* In the later half: a row of the last hashed tick. */
    char sql[256];
    snprintf(sql, sizeof(sql),
             "INSERT INTO inputs(session_id, tick, seq, kind, payload) VALUES "
             "(5, %lld, 5000000000, 3, x'00')",
             (long long)last);
    sql_exec(t.path, sql);
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)), PDK_ERR_DB);
    ck_assert_ptr_null(rec);
    ck_assert_msg(strstr(err, "session 5") && strstr(err, "seq = 5000000000"), "%s", err);
    pdk_store_close(store);

    /* And in the earlier half too: that one is named. */
    sql_exec(t.path, "INSERT INTO inputs(session_id, tick, seq, kind, payload) VALUES "
                     "(5, 2, 6000000000, 3, x'00')");
    store = store_open(&t);
    ck_assert_int_eq(pdk_recording_load(store, RICH_ID, &rec, err, sizeof(err)), PDK_ERR_DB);
    ck_assert_msg(strstr(err, "seq = 6000000000"), "%s", err);
    pdk_store_close(store);
    tmp_remove(&t);
}
END_TEST

/* A load told to stop (its client left, the server stops) stops at its
 * first row: PDK_ERR_CLOSED naming the session, no recording; a verify
 * told to stop stops in its load, and says it is the verify. Never told,
 * it is the load. */
START_TEST(a_cancelled_load_stops)
{
    tmp_db t;
    tmp_make(&t);
    static live_run live;
    record_rich(&t, &live);
    pdk_store *store = store_open(&t);
    char err[PDK_REPLAY_ERR_LEN];
    atomic_bool cancel = false;
    pdk_recording *rec = NULL;
    ck_assert_int_eq(
        pdk_recording_load_cancellable(store, RICH_ID, &cancel, &rec, err, sizeof(err)), PDK_OK);
    pdk_recording_info info;
    pdk_recording_info_get(rec, &info);
    ck_assert_uint_eq(info.n_inputs,
                      (size_t)sql_int(t.path, "SELECT count(*) FROM inputs WHERE session_id = 5"));
    pdk_recording_free(rec);

    atomic_store(&cancel, true);
    ck_assert_int_eq(
        pdk_recording_load_cancellable(store, RICH_ID, &cancel, &rec, err, sizeof(err)),
        PDK_ERR_CLOSED);
    ck_assert_ptr_null(rec);
    ck_assert_msg(strstr(err, "session 5: the load of its recording was cancelled"), "%s", err);
    pdk_verify_result r;
    ck_assert_int_eq(
        pdk_verify_cancellable(store, RICH_ID, 0, BUILD, &cancel, 1, &r, err, sizeof(err)),
        PDK_ERR_CLOSED);
    ck_assert_msg(strstr(err, "session 5: the verify was cancelled loading its recording"), "%s",
                  err);
    pdk_store_close(store);
    tmp_remove(&t);
}
END_TEST

static Suite *replay_load_suite(void)
{
    Suite *s = suite_create("replay_load");
    TCase *tc = tcase_create("load");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, damage_and_errors);
    tcase_add_test(tc, inputs_that_do_not_decode_are_named);
    tcase_add_test(tc, rows_that_do_not_read_are_named_in_either_half);
    tcase_add_test(tc, a_cancelled_load_stops);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(replay_load_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
