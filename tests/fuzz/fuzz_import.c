/* Fuzz target: any bytes as an uploaded session file. They go through
 * pdk_import_check, the open-and-check the server runs on every upload
 * (a hardened read-only connection, the schema against the migrations',
 * quick_check, the export's rows), and a file that passes is imported
 * into a real store. Nothing may crash, leak or hang; a refusal always
 * names what was wrong, and a pass names a level the migrations know. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import_check.h"
#include "store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pdk_import_schema *ref;
static pdk_store *store;
static char dir[64];
static char file[128];

static void cleanup(void)
{
    pdk_store_close(store);
    pdk_import_schema_free(ref);
    char db[128];
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(db, sizeof db, "%s/store.db%s", dir, suffix[i]);
        unlink(db);
    }
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* A RAM-backed folder where there is one: every input is a file. */
    snprintf(dir, sizeof dir, "%s/fuzz-import-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(file, sizeof file, "%s/upload.db", dir);
    char err[PDK_STORE_ERR_LEN];
    if (pdk_import_schema_make(PDK_SOURCE_DIR "/migrations", &ref, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "fuzz_import: %s\n", err);
        abort();
    }
    char db[128];
    snprintf(db, sizeof db, "%s/store.db", dir);
    if (pdk_store_open(db, PDK_SOURCE_DIR "/migrations", &store, err, sizeof err) != PDK_OK) {
        fprintf(stderr, "fuzz_import: %s\n", err);
        abort();
    }
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    pdk_import_facts facts;
    char err[PDK_STORE_ERR_LEN];
    err[0] = '\0';
    pdk_error e = pdk_import_check(ref, file, &facts, err, sizeof err);
    if (e != PDK_OK) {
        if (err[0] == '\0' || facts.schema_version != 0 || facts.original_session_id != 0)
            abort();
        return 0;
    }
    if (facts.schema_version < 1 || facts.schema_version > pdk_import_schema_newest(ref))
        abort();
    uint64_t id = 0;
    e = pdk_store_import_session(store, file, &id, NULL, err, sizeof err);
    if (e == PDK_OK ? id == 0 : err[0] == '\0' || id != 0)
        abort();
    /* The store stays small over a long run (a recording without an end
     * is refused and stays: that is the store's rule, not a finding). */
    if (e == PDK_OK)
        (void)pdk_store_delete_recording(store, id, err, sizeof err);
    return 0;
}
