/* Files from elsewhere (docs/security.md "Files from elsewhere: imports"):
 * real SQLite files crafted from a real export, uploaded through the real
 * paddockd on loopback with the real C client and the real `paddock`. Each
 * is refused with an error naming what is wrong, leaves no temporary file
 * and no row behind, and a live session next to it keeps ticking; the
 * export itself imports, replays to its recorded final hash and verifies
 * bit for bit; the overall cap on upload space (--max-import-mb) holds
 * across two connections and comes back when an upload ends. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

#define CLI PDK_PADDOCK " --server %s "

static char log_text[1 << 16];
static char out[1 << 16];
static paddock_v1_Frame req, rep;

/* The server's temporary folder (its TMPDIR), where uploads are written. */
static char server_tmp[256];

static void start(pdk_test_server *srv, const char *const *extra)
{
    pdk_test_tmpdir(server_tmp, sizeof(server_tmp));
    ck_assert_int_eq(setenv("TMPDIR", server_tmp, 1), 0);
    ck_assert_msg(pdk_test_server_start(srv, NULL, extra, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    unsetenv("TMPDIR");
}

/* Entries in the server's temporary folder: its uploads in progress. */
static int temp_entries(void)
{
    DIR *d = opendir(server_tmp);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static int64_t sql_int(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *st = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void sql_exec(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    char *e = NULL;
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &e) == SQLITE_OK, "%s: %s", sql, e);
    sqlite3_close(db);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    FILE *o = fopen(to, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(o);
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), in)) > 0;)
        ck_assert_uint_eq(fwrite(buf, 1, n, o), n);
    fclose(in);
    ck_assert_int_eq(fclose(o), 0);
}

static uint64_t new_session(pdk_client *c, const char *name)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    uint64_t sid = rep.body.session_created.session.session_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    snprintf(req.body.vehicle_spawn.preset, sizeof(req.body.vehicle_spawn.preset), "%s",
             "midsize_sedan");
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    return sid;
}

/* The session's SessionInfo from SessionList (fails when it is not listed). */
static paddock_v1_SessionInfo session_info(pdk_client *c, uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    ck_assert_msg(pdk_client_call(c, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", c->error);
    const paddock_v1_SessionListReply *l = &rep.body.session_list_reply;
    for (pb_size_t i = 0; i < l->sessions_count; i++)
        if (l->sessions[i].session_id == sid)
            return l->sessions[i];
    ck_abort_msg("session %" PRIu64 " is not listed", sid);
    paddock_v1_SessionInfo none = paddock_v1_SessionInfo_init_zero;
    return none;
}

static long file_source(uint8_t *buf, size_t cap, void *ud)
{
    size_t n = fread(buf, 1, cap, ud);
    return ferror((FILE *)ud) ? -1 : (long)n;
}

/* Uploads path through c: the server's reply (PDK_CLIENT_OK or ESERVER). */
static pdk_client_status upload(pdk_client *c, const char *path)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    pdk_client_status st = pdk_client_upload(c, &rep, file_source, fp, NULL, NULL);
    fclose(fp);
    return st;
}

/* One ImportChunk of n bytes at offset through c. */
static pdk_client_status send_chunk(pdk_client *c, uint64_t offset, size_t n, bool last)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_import_chunk_tag;
    req.body.import_chunk.offset = offset;
    memset(req.body.import_chunk.data.bytes, 'x', n);
    req.body.import_chunk.data.size = (pb_size_t)n;
    req.body.import_chunk.last = last;
    return pdk_client_call(c, &req, &rep, NULL, NULL);
}

typedef struct crafted {
    const char *what;
    const char *sql; /* run on a copy of the export; NULL: see the test */
    paddock_v1_ErrorCode code;
    const char *needle; /* in the error */
} crafted;

static const crafted crafted_files[] = {
    {"a trigger", "CREATE TRIGGER evil AFTER INSERT ON build BEGIN SELECT 1; END",
     paddock_v1_ErrorCode_PARSE, "trigger \"evil\" is not in Paddock's schema"},
    {"a view", "CREATE VIEW peek AS SELECT * FROM sessions", paddock_v1_ErrorCode_PARSE,
     "view \"peek\" is not in Paddock's schema"},
    {"an extra column", "ALTER TABLE vehicles ADD COLUMN evil TEXT", paddock_v1_ErrorCode_PARSE,
     "table vehicles has an unexpected column \"evil\""},
    {"an extra table", "CREATE TABLE notes (t TEXT)", paddock_v1_ErrorCode_PARSE,
     "table \"notes\" is not in Paddock's schema"},
    {"a wrong user_version", "PRAGMA user_version = 7", paddock_v1_ErrorCode_PARSE,
     "user_version is 7 where Paddock's is 0"},
    {"a newer migration level",
     "INSERT INTO schema_migrations (version, name, applied_unix_ms) "
     "SELECT MAX(version) + 1, 'future', 0 FROM schema_migrations",
     paddock_v1_ErrorCode_DB_TOO_NEW, "is newer than this server's"},
    {"a renamed migration", "UPDATE schema_migrations SET name = 'mine' WHERE version = 1",
     paddock_v1_ErrorCode_PARSE, "its migration 1 is \"mine\" where Paddock's is \"initial\""},
    {"a table defined otherwise",
     "DROP TABLE build; CREATE TABLE build (build_id TEXT PRIMARY KEY, "
     "first_seen_unix_ms INTEGER NOT NULL CHECK (first_seen_unix_ms > 0))",
     paddock_v1_ErrorCode_PARSE,
     "the definition of table build differs from what Paddock's migrations make"},
    {"a missing table", "DROP TABLE snapshots", paddock_v1_ErrorCode_PARSE,
     "not a Paddock session export: no snapshots table"},
    {"a corrupted page", NULL, paddock_v1_ErrorCode_PARSE, "damaged SQLite file"},
    {"not SQLite", NULL, paddock_v1_ErrorCode_PARSE, "not an SQLite file"},
};

/* Overwrites the first bytes of table's root page in path with garbage. */
static void corrupt_root_page(const char *path, const char *table)
{
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT rootpage FROM sqlite_schema WHERE name = '%s'", table);
    int64_t page = sql_int(path, sql);
    int64_t page_bytes = sql_int(path, "PRAGMA page_size");
    ck_assert_int_gt(page, 1);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, (long)((page - 1) * page_bytes), SEEK_SET), 0);
    static const uint8_t junk[64] = {0x0d, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x7f, 0x7f,
                                     0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03};
    ck_assert_uint_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
    ck_assert_int_eq(fclose(f), 0);
}

/* A recorded session exported; every crafted copy of it refused through
 * the real server, naming what is wrong, with nothing left behind and the
 * live session next to it ticking on; then the export itself imported,
 * replayed to its recorded final hash and verified bit for bit. */
START_TEST(crafted_files_are_refused_and_the_export_imports)
{
    pdk_test_server srv;
    start(&srv, NULL);
    static pdk_client a;
    pdk_test_connect_ok(&a, &srv, "recorder", 10000);
    uint64_t sid = new_session(&a, "exported");
    uint64_t live = new_session(&a, "bystander");
    usleep(300 * 1000);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);
    char good[400];
    snprintf(good, sizeof(good), "%s/export.db", srv.dir);
    ck_assert_msg(
        pdk_test_sh(out, sizeof(out), CLI "export %" PRIu64 " --out %s", srv.addr, sid, good) == 0,
        "%s", out);
    int64_t sessions_before = sql_int(srv.db, "SELECT COUNT(*) FROM sessions");
    uint64_t live_tick = session_info(&a, live).tick;

    static pdk_client up;
    pdk_test_connect_ok(&up, &srv, "stranger", 10000);
    for (size_t i = 0; i < sizeof(crafted_files) / sizeof(crafted_files[0]); i++) {
        const crafted *t = &crafted_files[i];
        char bad[400];
        snprintf(bad, sizeof(bad), "%s/crafted_%zu.db", srv.dir, i);
        if (strcmp(t->what, "not SQLite") == 0) {
            pdk_test_write_file(bad, "id,tick,hash\n1,0,42\nthis is a CSV file, not a database\n");
        } else {
            copy_file(good, bad);
            if (t->sql)
                sql_exec(bad, t->sql);
            else
                corrupt_root_page(bad, "state_hashes");
        }
        ck_assert_msg(upload(&up, bad) == PDK_CLIENT_ESERVER, "%s: accepted", t->what);
        ck_assert_msg(up.server_code == t->code, "%s: code %d, wanted %d: %s", t->what,
                      (int)up.server_code, (int)t->code, up.error);
        ck_assert_msg(strstr(up.error, t->needle) != NULL, "%s: '%s' not in: %s", t->what,
                      t->needle, up.error);
        /* It names the upload, never the server's own paths. */
        ck_assert_msg(strstr(up.error, "the uploaded file") != NULL && !strchr(up.error, '/'),
                      "%s: %s", t->what, up.error);
        ck_assert_msg(temp_entries() == 0, "%s: its temporary file was left", t->what);
        ck_assert_int_eq(sql_int(srv.db, "SELECT COUNT(*) FROM sessions"), sessions_before);
    }
    /* The CLI says the same. */
    char bad[400];
    snprintf(bad, sizeof(bad), "%s/crafted_0.db", srv.dir);
    ck_assert_int_ne(pdk_test_sh(out, sizeof(out), CLI "import %s 2>&1", srv.addr, bad), 0);
    ck_assert_msg(strstr(out, "trigger \"evil\" is not in Paddock's schema") != NULL, "%s", out);
    /* The session beside it never stopped. */
    paddock_v1_SessionInfo li = session_info(&a, live);
    ck_assert_uint_gt(li.tick, live_tick);
    ck_assert(!li.paused);

    /* The export itself: imported, verified bit for bit, replayed to the
     * original's final hash. */
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "import %s 2>/dev/null", srv.addr, good) == 0,
                  "%s", out);
    uint64_t imported = strtoull(out, NULL, 10);
    ck_assert_uint_gt(imported, live);
    ck_assert_int_eq(temp_entries(), 0);
    int64_t hashes = sql_int(good, "SELECT COUNT(*) FROM state_hashes");
    ck_assert_int_gt(hashes, 10);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, imported) == 0,
                  "%s", out);
    char checked[64];
    snprintf(checked, sizeof(checked), "hashes_checked:   %" PRId64, hashes);
    ck_assert_msg(strstr(out, "match:            yes") && strstr(out, checked), "%s (%s)", out,
                  checked);
    char sql[200];
    snprintf(sql, sizeof(sql), "SELECT final_tick FROM sessions WHERE session_id = %" PRIu64, sid);
    uint64_t final_tick = (uint64_t)sql_int(srv.db, sql);
    snprintf(sql, sizeof(sql), "SELECT final_hash FROM sessions WHERE session_id = %" PRIu64, sid);
    uint64_t final_hash = (uint64_t)sql_int(srv.db, sql);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_replay_open_tag;
    req.body.replay_open.session_id = imported;
    req.body.replay_open.speed = 16.0;
    ck_assert_msg(pdk_client_call(&a, &req, &rep, NULL, NULL) == PDK_CLIENT_OK, "%s", a.error);
    uint64_t replay = rep.body.session_created.session.session_id;
    paddock_v1_SessionInfo ri = session_info(&a, replay);
    for (int i = 0; i < 500 && !ri.paused; i++) {
        usleep(20 * 1000);
        ri = session_info(&a, replay);
    }
    ck_assert_msg(ri.paused, "the replay did not reach its end: tick %" PRIu64, ri.tick);
    ck_assert_uint_eq(ri.tick, final_tick);
    ck_assert_uint_eq(ri.state_hash, final_hash);
    pdk_client_close(&up);
    pdk_client_close(&a);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

/* --max-import-mb 1: one connection's upload in progress holds most of
 * it, so a second connection's upload is refused with CAPACITY naming the
 * cap (and dropped, giving its own bytes back); when the first connection
 * closes its space comes back and the export imports; after an import
 * finishes, and after one fails, the space is free again. */
START_TEST(upload_space_is_capped_across_connections)
{
    static const char *const extra[] = {"--max-import-mb", "1", NULL};
    pdk_test_server srv;
    start(&srv, extra);
    static pdk_client a, b;
    pdk_test_connect_ok(&a, &srv, "holder", 10000);
    pdk_test_connect_ok(&b, &srv, "latecomer", 10000);
    uint64_t sid = new_session(&a, "small");
    usleep(200 * 1000);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);
    char good[400];
    snprintf(good, sizeof(good), "%s/export.db", srv.dir);
    ck_assert_msg(
        pdk_test_sh(out, sizeof(out), CLI "export %" PRIu64 " --out %s", srv.addr, sid, good) == 0,
        "%s", out);
    struct stat st;
    ck_assert_int_eq(stat(good, &st), 0);
    const uint64_t cap = 1u << 20, chunk = 16384;
    ck_assert_msg((uint64_t)st.st_size < cap - 2 * chunk, "the export is %lld bytes",
                  (long long)st.st_size);

    /* a holds all but the export's size less one chunk. */
    uint64_t held = 0;
    while (held + chunk <= cap - (uint64_t)st.st_size + chunk) {
        ck_assert_msg(send_chunk(&a, held, chunk, false) == PDK_CLIENT_OK, "%s", a.error);
        held += chunk;
    }
    ck_assert_int_eq(temp_entries(), 1);
    ck_assert_int_eq(upload(&b, good), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(b.server_code, paddock_v1_ErrorCode_CAPACITY);
    ck_assert_msg(strstr(b.error, "--max-import-mb") && strstr(b.error, "of 1.0 MiB"), "%s",
                  b.error);
    ck_assert_int_eq(temp_entries(), 1); /* b's dropped, a's kept */
    /* a can go on up to the cap itself, never past it. */
    while (held + chunk <= cap) {
        ck_assert_msg(send_chunk(&a, held, chunk, false) == PDK_CLIENT_OK, "%s", a.error);
        held += chunk;
    }
    ck_assert_int_eq(send_chunk(&a, held, 1, false), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(a.server_code, paddock_v1_ErrorCode_CAPACITY);
    ck_assert_int_eq(temp_entries(), 0); /* a's upload is dropped with it */
    held = 0;
    while (held + chunk <= cap - (uint64_t)st.st_size + chunk) {
        ck_assert_msg(send_chunk(&a, held, chunk, false) == PDK_CLIENT_OK, "%s", a.error);
        held += chunk;
    }
    ck_assert_int_eq(upload(&b, good), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(b.server_code, paddock_v1_ErrorCode_CAPACITY);

    /* a goes: its space comes back. */
    pdk_client_close(&a);
    for (int i = 0; i < 200 && temp_entries() != 0; i++)
        usleep(10 * 1000);
    ck_assert_int_eq(temp_entries(), 0);
    ck_assert_msg(upload(&b, good) == PDK_CLIENT_OK, "%s", b.error);
    /* Finished imports and failed ones give their space back: the cap
     * holds less than two exports, yet these follow one another. */
    char bad[400];
    snprintf(bad, sizeof(bad), "%s/trigger.db", srv.dir);
    copy_file(good, bad);
    sql_exec(bad, "CREATE TRIGGER evil AFTER INSERT ON build BEGIN SELECT 1; END");
    for (int round = 0; round < 3; round++) {
        ck_assert_msg(upload(&b, good) == PDK_CLIENT_OK, "round %d: %s", round, b.error);
        ck_assert_int_eq(upload(&b, bad), PDK_CLIENT_ESERVER);
        ck_assert_msg(b.server_code == paddock_v1_ErrorCode_PARSE, "%s", b.error);
    }
    ck_assert_int_eq(temp_entries(), 0);
    pdk_client_close(&b);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), false);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("integration_import");
    TCase *tc = tcase_create("import");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, crafted_files_are_refused_and_the_export_imports);
    tcase_add_test(tc, upload_space_is_capped_across_connections);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(import_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
