/* Fuzz target: whole request sequences against a real server in the
 * process. The input is a list of frames for up to four connections, each
 * delivered through the in-process transport (server/net/local.h) to a
 * pdk_server on a real SQLite file, the way a TCP client's would be, with
 * the loop run after each so that ticks, fast steps, replies, recording
 * and the recording jobs on the pool happen between them. Nothing may
 * crash, leak or trip a sanitizer; every frame the server sends must
 * decode, and every Error it sends must say what was wrong.
 *
 * The input, record after record (a short last one is taken as it is):
 *
 *   op:u8  len:u16le  frame:len bytes (one Frame, no length prefix)
 *
 * op's low two bits pick the connection; one not open yet (or closed) is
 * opened first and, unless op has 0x20, greeted with a valid Hello so the
 * fuzzer need not find one before reaching the requests. op 0x80 hangs the
 * connection up after its frame, as a client going away. Session ids are
 * the server's and keep counting from input to input, so a request's
 * session_id 1..8 means the first to eighth session this input was told of
 * (SessionCreated, SessionImported): a frame that decodes and names one is
 * re-encoded with the real id; any other id, and any frame that does not
 * decode, goes as it is. The loop runs
 * after every frame (UV_RUN_NOWAIT, a few times: what is ready runs, the
 * loop never waits for the wall clock, so real-time ticks come only when
 * their deadline has passed).
 *
 * One server serves every input (starting one, migrations and all, would
 * cost more than the input). Each input gets fresh connections, and when
 * it ends its connections hang up and every session is closed, so no
 * session, lease, subscription or queued job outlives it. Shared between
 * inputs, and so not reset: the database and its finished recordings (an
 * input may list, verify, export or delete what an earlier one recorded),
 * the session and connection ids, which keep counting, and the preset
 * cache. No step threads: every tick runs on the loop. A crash that
 * depends on an earlier input's recording reproduces by running the inputs
 * of the run again in order (-runs over the corpus), not always from the
 * crash file alone.
 *
 * The server's presets are the tree's, except that each world preset holds
 * at most FUZZ_MAX_VEHICLES vehicles: a world is then about 280 KB, not the
 * 5.6 MB of 256 vehicles, whose zeroing took most of an input. A world
 * full of vehicles is a few records away. */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "local.h"
#include "server.h"
#include "wire.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CONNS 4
#define FUZZ_OP_CONN 0x03u
#define FUZZ_OP_NO_HELLO 0x20u
#define FUZZ_OP_HANG_UP 0x80u
/* UV_RUN_NOWAIT passes after each frame: a reply that a pool job or the
 * writer sends back through the loop's async handle needs a pass or two. */
#define FUZZ_LOOP_PASSES 4
/* Sessions of one input a request can name by number. */
#define FUZZ_SESSIONS 8
/* maxVehicles of every world preset the fuzz server reads. */
#define FUZZ_MAX_VEHICLES 8
#define FUZZ_PRESETS PDK_SOURCE_DIR "/presets"

/* One connection's client side. */
typedef struct fuzz_client {
    pdk_conn *conn; /* NULL: not open */
    bool closed;    /* the server closed it: hang up at the next chance */
} fuzz_client;

static pdk_server *srv;
static pdk_listener *local;
static fuzz_client clients[FUZZ_CONNS];
static char dir[64];
static char presets[96];
static uint64_t sessions[FUZZ_SESSIONS]; /* this input's, in the order it was told of them */
static size_t n_sessions;

static void session_told(uint64_t id)
{
    if (n_sessions < FUZZ_SESSIONS)
        sessions[n_sessions++] = id;
}

/* A frame the server sent: it must decode, and an Error must name what
 * was wrong (a non-empty message). */
static pdk_error peer_frame(void *ud, const uint8_t *frame, size_t len, bool state, uint32_t key)
{
    (void)ud;
    (void)state;
    (void)key;
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
    if (!f) {
        fprintf(stderr, "fuzz_requests: the server sent a frame that does not decode\n");
        abort();
    }
    if (f->body_case == PADDOCK__V1__FRAME__BODY_ERROR &&
        (!f->error->message || f->error->message[0] == '\0')) {
        fprintf(stderr, "fuzz_requests: an Error (code %d) without a message\n",
                (int)f->error->code);
        abort();
    }
    if (f->body_case == PADDOCK__V1__FRAME__BODY_SESSION_CREATED && f->session_created->session)
        session_told(f->session_created->session->session_id);
    if (f->body_case == PADDOCK__V1__FRAME__BODY_SESSION_IMPORTED)
        session_told(f->session_imported->session_id);
    pdk_wire_frame_free(f);
    return PDK_OK;
}

/* The server closes a connection: hang up later, outside its call. */
static void peer_close(void *ud)
{
    fuzz_client *cl = ud;
    cl->closed = true;
}

static void hang_up_closed(void)
{
    for (int i = 0; i < FUZZ_CONNS; i++) {
        if (clients[i].conn && clients[i].closed) {
            pdk_local_hangup(clients[i].conn);
            clients[i].conn = NULL;
            clients[i].closed = false;
        }
    }
}

static void run_loop(void)
{
    for (int i = 0; i < FUZZ_LOOP_PASSES; i++) {
        uv_run(pdk_server_loop(srv), UV_RUN_NOWAIT);
        hang_up_closed();
    }
}

/* The request's session_id field, if its body has one (every request on a
 * session names it so, as field session_id). */
static uint64_t *session_id_field(Paddock__V1__Frame *f)
{
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field(&paddock__v1__frame__descriptor, f->body_case);
    if (!fd || fd->type != PROTOBUF_C_TYPE_MESSAGE)
        return NULL;
    ProtobufCMessage *body = *(ProtobufCMessage **)((char *)f + fd->offset);
    if (!body)
        return NULL;
    const ProtobufCFieldDescriptor *sd =
        protobuf_c_message_descriptor_get_field_by_name(body->descriptor, "session_id");
    if (!sd || sd->type != PROTOBUF_C_TYPE_UINT64 || sd->label == PROTOBUF_C_LABEL_REPEATED)
        return NULL;
    return (uint64_t *)((char *)body + sd->offset);
}

/* Delivers frame to conn, its session_id 1..n_sessions made the real one. */
static void deliver(pdk_conn *conn, const uint8_t *frame, size_t len)
{
    if (n_sessions > 0) {
        pdk_error err = PDK_OK;
        Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
        uint64_t *id = f ? session_id_field(f) : NULL;
        if (id && *id >= 1 && *id <= n_sessions) {
            *id = sessions[*id - 1];
            pdk_buf buf = {0};
            if (pdk_wire_frame_append(&buf, f) != PDK_OK)
                abort();
            pdk_local_write(conn, buf.data, buf.len);
            pdk_buf_free(&buf);
            pdk_wire_frame_free(f);
            return;
        }
        pdk_wire_frame_free(f);
    }
    pdk_local_write(conn, frame, len);
}

static void send_hello(pdk_conn *conn)
{
    Paddock__V1__Hello hello = PADDOCK__V1__HELLO__INIT;
    hello.protocol_version = PADDOCK__V1__PROTOCOL_VERSION__PROTOCOL_VERSION_1;
    hello.client_name = "fuzz_requests";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = 1;
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &hello;
    pdk_buf buf = {0};
    if (pdk_wire_frame_append(&buf, &f) != PDK_OK)
        abort();
    pdk_local_write(conn, buf.data, buf.len);
    pdk_buf_free(&buf);
}

/* Copies the tree's world preset name into presets/worlds/ with its
 * maxVehicles made FUZZ_MAX_VEHICLES. */
static void copy_world(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/worlds/%s", FUZZ_PRESETS, name);
    FILE *in = fopen(path, "rb");
    static char text[1 << 16];
    size_t n = in ? fread(text, 1, sizeof text - 1, in) : 0;
    if (!in || ferror(in) || !feof(in)) {
        fprintf(stderr, "fuzz_requests: cannot read %s whole\n", path);
        abort();
    }
    fclose(in);
    text[n] = '\0';
    /* "maxVehicles": 256, becomes "maxVehicles": 8, */
    char *num = strstr(text, "\"maxVehicles\"");
    num = num ? strchr(num, ':') : NULL;
    if (!num) {
        fprintf(stderr, "fuzz_requests: %s has no maxVehicles to lower\n", path);
        abort();
    }
    num++;
    num += strspn(num, " ");
    const char *end = num + strspn(num, "0123456789");
    snprintf(path, sizeof path, "%s/worlds/%s", presets, name);
    FILE *out = fopen(path, "wb");
    if (!out || fprintf(out, "%.*s%d%s", (int)(num - text), text, FUZZ_MAX_VEHICLES, end) < 0 ||
        fclose(out) != 0) {
        fprintf(stderr, "fuzz_requests: cannot write %s\n", path);
        abort();
    }
}

/* presets/ in the run's folder: links to the tree's vehicles and scripts,
 * and its worlds copied with a small maxVehicles. */
static void make_presets(void)
{
    snprintf(presets, sizeof presets, "%s/presets", dir);
    char worlds_dir[128], vehicles[128], scripts[128];
    snprintf(worlds_dir, sizeof worlds_dir, "%s/worlds", presets);
    snprintf(vehicles, sizeof vehicles, "%s/vehicles", presets);
    snprintf(scripts, sizeof scripts, "%s/scripts", presets);
    if (mkdir(presets, 0700) != 0 || mkdir(worlds_dir, 0700) != 0 ||
        symlink(FUZZ_PRESETS "/vehicles", vehicles) != 0 ||
        symlink(FUZZ_PRESETS "/scripts", scripts) != 0) {
        fprintf(stderr, "fuzz_requests: cannot make %s\n", presets);
        abort();
    }
    DIR *worlds = opendir(FUZZ_PRESETS "/worlds");
    if (!worlds)
        abort();
    for (struct dirent *e; (e = readdir(worlds)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            copy_world(e->d_name);
    }
    closedir(worlds);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(void)
{
    for (int i = 0; i < FUZZ_CONNS; i++)
        if (clients[i].conn)
            pdk_local_hangup(clients[i].conn);
    pdk_server_stop(srv);
    uv_run(pdk_server_loop(srv), UV_RUN_DEFAULT);
    if (pdk_server_finish(srv) != 0)
        fprintf(stderr, "fuzz_requests: the server did not stop cleanly\n");
    /* The folder and all in it; the links, not what they point to. */
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* A RAM-backed folder where there is one: recording writes are many. */
    snprintf(dir, sizeof dir, "%s/fuzz-requests-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir))
        abort();
    static char db[128];
    snprintf(db, sizeof db, "%s/paddock.db", dir);
    pdk_server_config cfg = pdk_server_config_default();
    cfg.listen = "127.0.0.1:0";
    cfg.db_path = db;
    make_presets();
    cfg.presets_dir = presets;
    cfg.migrations_dir = PDK_SOURCE_DIR "/migrations";
    /* Bounds that keep one input quick and small: a fast session pauses
     * after a second of sim time, worlds share 256 MiB, and retention
     * deletes the oldest recordings past 128 KiB (some hundred short
     * ones), so that a long run's listings do not grow without end. */
    cfg.max_sessions = 8;
    cfg.max_world_bytes = (size_t)256 << 20;
    cfg.max_fast_ticks = 120;
    cfg.retain_bytes = (uint64_t)128 << 10;
    cfg.tick_spin_ns = 0;
    cfg.hello_timeout_s = 3600.0;
    /* Every tick on the loop: sessions are closed between inputs, which a
     * session a step thread is ticking cannot be (server.h). */
    cfg.step_threads = 0;
    /* The server takes SIGINT and SIGTERM (libuv's handlers), and
     * libFuzzer, which installs its own after this, leaves a signal that
     * has one alone. Put back what was there, so a Ctrl-C ends the run as
     * libFuzzer ends it (its figures, then exit) instead of stopping the
     * server under the harness. */
    struct sigaction before_int, before_term;
    if (sigaction(SIGINT, NULL, &before_int) != 0 || sigaction(SIGTERM, NULL, &before_term) != 0)
        abort();
    srv = pdk_server_start(&cfg);
    if (!srv)
        abort();
    if (sigaction(SIGINT, &before_int, NULL) != 0 || sigaction(SIGTERM, &before_term, NULL) != 0)
        abort();
    char err[256];
    local = pdk_server_local_listener(srv, err, sizeof err);
    if (!local) {
        fprintf(stderr, "fuzz_requests: %s\n", err);
        abort();
    }
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const pdk_local_peer peer = {.on_frame = peer_frame, .on_close = peer_close};
    size_t at = 0;
    while (at < size) {
        uint8_t op = data[at++];
        size_t len = 0;
        if (at < size)
            len = data[at++];
        if (at < size)
            len |= (size_t)data[at++] << 8;
        if (len > size - at)
            len = size - at;
        fuzz_client *cl = &clients[op & FUZZ_OP_CONN];
        if (!cl->conn) {
            cl->conn = pdk_local_open(local, &peer, cl, "fuzz");
            if (!cl->conn)
                abort();
            if (!(op & FUZZ_OP_NO_HELLO))
                send_hello(cl->conn);
        }
        deliver(cl->conn, data + at, len);
        at += len;
        if (op & FUZZ_OP_HANG_UP)
            cl->closed = true;
        run_loop();
    }
    /* Nothing of this input outlives it: its connections go, then every
     * session (with its leases, subscriptions and owed steps). */
    for (int i = 0; i < FUZZ_CONNS; i++)
        if (clients[i].conn)
            clients[i].closed = true;
    hang_up_closed();
    pdk_server_close_sessions(srv);
    run_loop();
    n_sessions = 0;
    return 0;
}
