/* bench_import: what checking a file from elsewhere costs an import
 * (docs/security.md "Files from elsewhere: imports"). For an export given
 * on the command line: pdk_import_check alone (hardened open, schema
 * against the migrations', quick_check, the export's rows), then whole
 * imports into a fresh store, and the same file's quick_check and
 * integrity_check through a plain connection for comparison. Prints;
 * never fails on a time.
 *
 *   bench_import EXPORT.db [RUNS]   (build Release; run from the source tree) */
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "import_check.h"
#include "store.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double pragma_s(const char *path, const char *pragma)
{
    sqlite3 *db = NULL;
    double t0 = now_s();
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_exec(db, pragma, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_import: %s: %s\n", pragma, sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_import EXPORT.db [RUNS]\n");
        return 2;
    }
    const char *file = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    char err[PDK_STORE_ERR_LEN];
    pdk_import_schema *ref = NULL;
    if (pdk_import_schema_make(PDK_SOURCE_DIR "/migrations", &ref, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "bench_import: %s\n", err);
        return 1;
    }
    char dir[] = "/tmp/bench-import-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char db[64];
    snprintf(db, sizeof db, "%s/store.db", dir);
    pdk_store *store = NULL;
    if (pdk_store_open(db, PDK_SOURCE_DIR "/migrations", &store, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "bench_import: %s\n", err);
        return 1;
    }
    for (int r = 0; r < runs; r++) {
        pdk_import_facts facts;
        double t0 = now_s();
        if (pdk_import_check(ref, file, &facts, err, sizeof err) != PDK_OK) {
            fprintf(stderr, "bench_import: %s\n", err);
            return 1;
        }
        double t1 = now_s();
        uint64_t id = 0;
        if (pdk_store_import_session(store, file, &id, NULL, err, sizeof err) != PDK_OK) {
            fprintf(stderr, "bench_import: %s\n", err);
            return 1;
        }
        double t2 = now_s();
        double quick = pragma_s(file, "PRAGMA quick_check");
        double whole = pragma_s(file, "PRAGMA integrity_check");
        printf("run %d: check %.3f s, whole import (check and copy) %.3f s; plain quick_check "
               "%.3f s, integrity_check %.3f s\n",
               r + 1, t1 - t0, t2 - t1, quick, whole);
    }
    pdk_store_close(store);
    pdk_import_schema_free(ref);
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char p[80];
        snprintf(p, sizeof p, "%s%s", db, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}
