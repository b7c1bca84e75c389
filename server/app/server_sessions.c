/* The session table: room for a session's world, a session made here from
 * a world preset or elsewhere (a replay, a fork) put in it, and a session
 * closed with everyone who waited on it told. */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "spread.h"
#include "world_mem.h"

pdk_error pdk_server_session_room(pdk_server *srv, size_t bytes, char *err, size_t err_len)
{
    if (srv->draining) {
        snprintf(err, err_len,
                 "paddockd is draining (SIGTERM): it starts no new session; connect to another "
                 "server");
        return PDK_ERR_CLOSED;
    }
    if ((int)srv->table.n + srv->table.reserved >= srv->cfg.max_sessions) {
        snprintf(err, err_len, "the server hosts its maximum of %d sessions",
                 srv->cfg.max_sessions);
        return PDK_ERR_CAPACITY;
    }
    if (bytes > srv->cfg.max_world_bytes - srv->table.world_bytes ||
        srv->table.world_bytes > srv->cfg.max_world_bytes) {
        snprintf(err, err_len,
                 "a world of this size needs %zu bytes; the server's world memory budget has "
                 "%zu of %zu bytes left (lower maxVehicles or raise --max-world-mb)",
                 bytes,
                 srv->table.world_bytes > srv->cfg.max_world_bytes
                     ? (size_t)0
                     : srv->cfg.max_world_bytes - srv->table.world_bytes,
                 srv->cfg.max_world_bytes);
        return PDK_ERR_CAPACITY;
    }
    return PDK_OK;
}

pdk_error pdk_server_session_adopt(pdk_server *srv, pdk_session *s, pdk_timing timing,
                                   size_t world_bytes, pdk_server_slot **out)
{
    if (srv->table.n == srv->table.cap) {
        size_t cap = srv->table.cap ? srv->table.cap * 2 : 8;
        pdk_server_slot *p = realloc(srv->table.items, cap * sizeof(*p));
        if (!p)
            return PDK_ERR_NO_MEMORY;
        srv->table.items = p;
        srv->table.cap = cap;
    }
    pdk_server_slot *slot = &srv->table.items[srv->table.n++];
    memset(slot, 0, sizeof(*slot));
    slot->session = s;
    slot->id = pdk_session_id(s);
    /* The server reads a session's channels only through the session (its
     * keyframes, state, telemetry and DBW report streams): the ticks that
     * nothing reads skip writing them. */
    pdk_session_set_channels(s, PDK_CHANNELS_AS_READ);
    slot->sched.timing = timing;
    slot->world_bytes = world_bytes;
    slot->replay.speed = 1.0;
    pdk_server_rebase(srv, slot);
    *out = slot;
    pdk_server_reschedule(srv);
    return PDK_OK;
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b != 0) {
        uint32_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Where in each keyframe interval of every ticks a new recorded session's
 * keyframes fall: in the middle of the widest stretch that the other
 * recorded sessions' next keyframes leave free, their ticks taken to run
 * on together with the new one's (ADR 0037). A keyframe tick is a
 * session's heaviest (10,000 cars: some 40 MB of its world read), and two
 * at once share the machine's memory bandwidth. With whole seconds
 * between keyframes, the nearest tick at or before that whose number
 * shares no factor with 120: no subscription slower than 120 Hz publishes
 * on it (they publish where the tick is a multiple of 120 / rate), so a
 * keyframe tick carries no state batch but those at 120 Hz. */
static uint32_t keyframe_offset(const pdk_server *srv, uint32_t every)
{
    pdk_spread sp;
    pdk_spread_init(&sp, every);
    for (size_t i = 0; i < srv->table.n; i++) {
        const pdk_server_slot *slot = &srv->table.items[i];
        if (slot->replay.player)
            continue;
        uint64_t tick = slot->worker.busy ? slot->worker.view.tick
                                          : pdk_world_tick(pdk_session_world(slot->session));
        uint32_t ahead = pdk_session_keyframe_ahead(slot->session, tick);
        if (ahead > 0)
            pdk_spread_add(&sp, ahead);
    }
    uint32_t offset = (uint32_t)pdk_spread_pick(&sp);
    if (every % PDK_TICK_HZ == 0) {
        /* A new session starts at tick 0, so its keyframes' ticks are the
         * offset modulo 120; one within 7 ticks shares no factor with it. */
        while (gcd(offset % PDK_TICK_HZ, PDK_TICK_HZ) != 1)
            offset = (offset + every - 1) % every;
    }
    return offset;
}

pdk_error pdk_server_session_open(pdk_server *srv, const char *name, const char *world_preset,
                                  const char *world_overrides, pdk_timing timing, bool record,
                                  uint32_t keyframe_every_ticks, char *err, size_t err_len,
                                  pdk_server_slot **out)
{
    if (!world_preset || !*world_preset)
        world_preset = "flat";
    if (record && srv->sched.disk_full) {
        snprintf(err, err_len, "a recorded session cannot start: %s (no_record sessions can)",
                 srv->sched.disk_reason);
        return PDK_ERR_IO;
    }
    pdk_world_def wdef;
    char *world_json = NULL;
    pdk_error e = pdk_params_world_load(srv->cfg.presets_dir, world_preset, world_overrides, &wdef,
                                        &world_json, err, err_len);
    if (e != PDK_OK)
        return e;
    size_t bytes = pdk_world_mem_size(&wdef);
    e = pdk_server_session_room(srv, bytes, err, err_len);
    if (e != PDK_OK) {
        free(world_json);
        return e;
    }
    uint64_t id = pdk_store_next_session_id(srv->store);
    char default_name[32];
    if (!name || !*name) {
        snprintf(default_name, sizeof(default_name), "session-%" PRIu64, id);
        name = default_name;
    }
    pdk_session_def def = {
        .name = name,
        .world_preset = world_preset,
        .world_json = world_json,
        .world = wdef,
        .timing = timing,
        .build_id = PDK_BUILD_ID,
        .store = record ? srv->store : NULL,
        .keyframe_every_ticks = keyframe_every_ticks,
        .keyframe_offset_ticks =
            record ? keyframe_offset(srv, keyframe_every_ticks ? keyframe_every_ticks
                                                               : PDK_SESSION_KEYFRAME_EVERY)
                   : 0u,
    };
    pdk_session_hooks hooks = pdk_server_hooks(srv);
    pdk_session *s = NULL;
    e = pdk_session_create(id, &def, &hooks, &s);
    free(world_json);
    if (e != PDK_OK) {
        snprintf(err, err_len, "session could not be created: %s", pdk_error_message(e));
        return e;
    }
    e = pdk_server_session_adopt(srv, s, timing, bytes, out);
    if (e != PDK_OK) {
        pdk_session_destroy(s);
        snprintf(err, err_len, "out of memory");
        return e;
    }
    srv->table.world_bytes += bytes;
    return PDK_OK;
}

void pdk_server_session_close(pdk_server *srv, pdk_server_slot *slot)
{
    char why[160];
    snprintf(why, sizeof(why), "session %" PRIu64 " closed", slot->id);
    pdk_server_steps_abort(srv, slot, PDK_ERR_CLOSED, why);
    pdk_server_stats_forget_session(srv, slot);
    memset(&slot->lease, 0, sizeof(slot->lease));
    pdk_server_arm_lease_timer(srv);
    srv->table.world_bytes -= slot->world_bytes;
    /* Nothing of a session without a recording is left to reach. */
    bool forget = !pdk_session_recorded(slot->session);
    if (!slot->worker.busy) {
        /* A busy slot's session, player and recording are its worker's to
         * free once it is done (server_recording.c). */
        pdk_player_free(slot->replay.player);
        pdk_session_destroy(slot->session);
        pdk_recording_free(slot->replay.rec);
    }
    free(slot->worker.forget);
    if (slot->stepping.job && !slot->stepping.out) {
        /* One out on a thread is freed when it comes back. */
        pdk_server_outbox_free(&slot->stepping.job->out);
        free(slot->stepping.job);
    }
    bool recorded = slot->replay.player == NULL;
    uint64_t id = slot->id;
    size_t i = (size_t)(slot - srv->table.items);
    memmove(&srv->table.items[i], &srv->table.items[i + 1],
            (srv->table.n - i - 1) * sizeof(srv->table.items[0]));
    srv->table.n--;
    if (forget)
        pdk_server_access_forget(srv, id);
    pdk_server_reschedule(srv);
    /* A recording just finished: the retention rule weighs it with the rest. */
    if (recorded && !srv->stopping)
        pdk_server_retain(srv);
}
