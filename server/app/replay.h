/* Recordings played back: a recorded session loaded from the store and fed,
 * input by input at its recorded ticks, into a session that is not recorded
 * (docs/adr/0012-snapshots-and-exact-replay.md). The same machinery serves
 * replay (a read-only live session), verify (every state hash compared),
 * seek (the nearest keyframe restored, then fast-forward), fork (a new
 * recorded session from any tick), CSV export (telemetry re-simulated) and
 * MCAP export (state, telemetry and DBW reports re-simulated).
 *
 * Nothing here touches a socket or a clock (verify reads one to say how
 * long it took, and runs worker threads of its own for the time of a
 * call). Loading reads SQLite: call it off the loop thread of a live
 * server (uv_queue_work); so do verify, fork, CSV export and a player's
 * create and seek, which read keyframes; pdk_player_step reads nothing and
 * runs where the session runs. A recording is read-only once loaded: many
 * players may share it on one thread. */
#ifndef PDK_REPLAY_H
#define PDK_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcap.h"
#include "sim/error.h"
#include "session.h"
#include "store.h"

#define PDK_REPLAY_ERR_LEN 512

/* A recorded session in memory: its header, every vehicle's definition
 * (parsed from the recorded parameters: the resolved JSON parses to the
 * same bits, so a preset file changed since does not matter), every input
 * (decoded once), every state hash, and its keyframes' ticks (their blobs
 * are read from the store on demand). */
typedef struct pdk_recording pdk_recording;

/* Loads session_id. Its end tick (info.last_tick) is its last recorded
 * state hash's tick, or its recorded final tick when that is later (files
 * from before migration 0002 hashed every 12 ticks and have no keyframes:
 * they replay from tick 0 and an empty world). Errors, err
 * (PDK_REPLAY_ERR_LEN) naming the session and what was wrong:
 * PDK_ERR_NOT_FOUND (no such session), PDK_ERR_DB (SQLite), PDK_ERR_PARSE /
 * PDK_ERR_OUT_OF_RANGE / PDK_ERR_UNKNOWN_KEY (a world or vehicle whose
 * recorded parameters no longer parse: err names the vehicle and key),
 * PDK_ERR_PARSE (an input that is not what its kind says, with its tick
 * and seq; a spawn with no vehicle row; substeps that disagree),
 * PDK_ERR_NO_MEMORY. The recording keeps store for keyframe reads; store
 * must outlive it. */
pdk_error pdk_recording_load(pdk_store *store, uint64_t session_id, pdk_recording **out, char *err,
                             size_t err_len);
/* pdk_recording_load that stops when *cancel becomes true (set from any
 * thread): it looks at every vehicle and at every 1,024th row of inputs,
 * hashes and keyframes (the first included), and then returns
 * PDK_ERR_CLOSED, err naming the session. cancel may be NULL. */
pdk_error pdk_recording_load_cancellable(pdk_store *store, uint64_t session_id,
                                         const atomic_bool *cancel, pdk_recording **out, char *err,
                                         size_t err_len);
void pdk_recording_free(pdk_recording *rec);

typedef struct pdk_recording_info {
    uint64_t session_id;
    const char *name;
    const char *build_id; /* the build that recorded it */
    const char *world_preset;
    uint64_t start_tick;        /* its first tick (a fork starts at its parent's tick) */
    uint64_t last_tick;         /* its end: where a replay stops (see pdk_recording_load) */
    uint64_t parent_session_id; /* 0 unless forked */
    uint64_t parent_tick;
    bool ended;       /* closed cleanly */
    bool interrupted; /* paddockd died while it ran */
    /* Runs of ticks lost while the disk was full, and the first one's
     * ticks: last_tick stops before it (0, 0, 0: none). */
    uint64_t gaps, gap_first_tick, gap_last_tick;
    size_t n_inputs, n_hashes, n_keyframes, n_vehicles;
} pdk_recording_info;

void pdk_recording_info_get(const pdk_recording *rec, pdk_recording_info *out);

/* The world definition it ran with (parsed from the recorded world JSON). */
const pdk_world_def *pdk_recording_world_def(const pdk_recording *rec);

/* The recorded hash at tick, if one was recorded (*found false otherwise). */
uint64_t pdk_recording_hash_at(const pdk_recording *rec, uint64_t tick, bool *found);

/* ---- a player: a recording driving a session ---------------------------- */

typedef struct pdk_player pdk_player;

/* Creates a player feeding rec into session s (created by the caller from
 * pdk_recording_world_def, not recorded, with whatever hooks it serves
 * through) and positions it at the recording's start tick, publishing
 * nothing meanwhile: a fresh world at tick 0 (s's own, when it is still
 * fresh), or a fork's first keyframe; a fork whose first keyframe does not
 * restore (another build's layout) starts from its parent's replay up to
 * the tick it was forked at, when the parent is in the same store. The
 * start tick's hash is compared like any other. rec and s must outlive the
 * player, and nothing else may tick s while it plays. Errors as
 * pdk_player_seek, and PDK_ERR_NOT_FOUND when a fork can start neither
 * way (err says why). */
pdk_error pdk_player_create(const pdk_recording *rec, pdk_session *s, pdk_player **out, char *err,
                            size_t err_len);
void pdk_player_free(pdk_player *p);

/* One tick: queues the recorded inputs of the current tick in seq order
 * through the session's own queue functions (a spawn with its recorded
 * definition, the world's ids predicted from its slots), ticks the session
 * (which publishes to its subscribers unless publishing is off), and
 * compares the state hash when one was recorded for the new tick. Returns
 * PDK_ERR_CLOSED once the recording's last tick is reached (nothing is done
 * then), PDK_OK otherwise, also when the hash differs (see
 * pdk_player_diverged); a queue's refusal (PDK_ERR_BUSY, NO_MEMORY) as it
 * is. */
pdk_error pdk_player_step(pdk_player *p);

/* Moves to tick: restores the nearest keyframe at or before it through
 * pdk_session_restore (a staging world, swapped in only when it all
 * succeeded) unless stepping on from where the player is gets there
 * sooner, then steps without publishing up to tick. A keyframe of another
 * layout, whose hash differs from the state hash recorded at its tick, that
 * does not read or restore, or that restores to another hash, is skipped
 * for an earlier one or the start, and never tried again by this player;
 * the result is exact either way. Subscriptions survive (session.h says
 * what a DBW report subscription sees after a restore). Errors:
 * PDK_ERR_OUT_OF_RANGE (tick before the start or after the last tick),
 * PDK_ERR_NO_MEMORY, the start's (pdk_player_create); err says which. */
pdk_error pdk_player_seek(pdk_player *p, uint64_t tick, char *err, size_t err_len);

uint64_t pdk_player_tick(const pdk_player *p);
uint64_t pdk_player_end_tick(const pdk_player *p);
/* The first tick whose hash differed from the recording's since the player
 * was created or last seeked (0: none; a fresh world differing at tick 0
 * itself reads 0 too: pdk_verify tells that one apart). */
uint64_t pdk_player_diverged(const pdk_player *p);

/* ---- verify --------------------------------------------------------------- */

typedef struct pdk_verify_result {
    bool match;
    uint64_t hashes_checked;
    uint64_t last_tick;            /* the tick verification reached */
    uint64_t first_divergent_tick; /* 0 when match */
    uint32_t vehicle_id;           /* the first vehicle found to differ, 0: unknown */
    char field[256];               /* what differs on it, recorded and replayed values */
    char recorded_build[64];
    bool same_build;
    bool interrupted;
    /* What the recording holds from its start to last_tick, so that a match
     * claims no more than was checked: the first and last recorded hashes
     * (0: none at that tick), and the ticks in between with no recorded
     * hash (a hole, never checked), the first such run of ticks named. */
    uint64_t first_tick;
    uint64_t first_hash;
    uint64_t last_hash;
    uint64_t missing_ticks;
    uint64_t hole_first_tick; /* 0 and 0: no hole */
    uint64_t hole_last_tick;
    double seconds;    /* wall time spent */
    int threads;       /* worker threads that re-simulated it: never changes the rest */
    char message[512]; /* one line for a person */
} pdk_verify_result;

/* Re-simulates session_id from its start to to_tick (0: its last tick)
 * against every recorded hash (hashes_checked counts them, the start
 * tick's included: a whole recording of N ticks from tick 0 checks N + 1),
 * stopping at the first that differs. The stretches between keyframes are
 * re-simulated side by side by worker threads, a worker restoring the
 * keyframe where it takes up a stretch: one thread per online CPU, at most
 * 8, at most one per stretch, or as many as the environment's
 * PADDOCK_VERIFY_THREADS says (1: from the start to the end on the calling
 * thread, no keyframe restored). A keyframe of another layout, whose
 * carried hash is not the one recorded at its tick, or that does not
 * restore to it, starts no stretch: the one before runs on through it (a
 * recording of another build verifies from its start). The outcome is
 * that of one thread replaying from the start, whatever the number of
 * threads: the first divergence, counts and messages alike; a divergence
 * found in a later stretch never hides an earlier one.
 *
 * Then it finds what differs: it re-simulates on to the first keyframe at
 * or after the divergent tick, restores that keyframe into a scratch world
 * and compares the two worlds: the vehicles each holds, then vehicle by
 * vehicle in id order their pdk_world_vehicle_hash, and for the first that
 * differs its pose and every channel, naming the first field with both
 * values (field, e.g. "pose.x_m: recorded 12.5, replayed
 * 12.500000000000002"). When the replay matches the keyframe, the
 * recorded hash itself is said to be suspect; when no keyframe follows,
 * message says so. this_build is compared with the recording's build.
 * Usable offline: store may be opened on any file (pdk_store_open).
 * Errors: the loader's, PDK_ERR_OUT_OF_RANGE (to_tick outside the
 * recording; err gives its bounds); a mismatch is not an error
 * (result->match false). */
pdk_error pdk_verify(pdk_store *store, uint64_t session_id, uint64_t to_tick,
                     const char *this_build, pdk_verify_result *result, char *err, size_t err_len);
/* pdk_verify that stops when *cancel becomes true (set from any thread):
 * each worker looks before every tick it re-simulates, and the call then
 * returns PDK_ERR_CLOSED with err naming the tick it stopped at. cancel
 * may be NULL (never cancelled). At most max_threads threads re-simulate
 * (0: as pdk_verify, one per core up to its default). */
pdk_error pdk_verify_cancellable(pdk_store *store, uint64_t session_id, uint64_t to_tick,
                                 const char *this_build, const atomic_bool *cancel,
                                 unsigned max_threads, pdk_verify_result *result, char *err,
                                 size_t err_len);

/* ---- fork and CSV ----------------------------------------------------------- */

/* A new live session (new_id from pdk_store_next_session_id, def's name,
 * timing, build_id, keyframe interval, hooks and store: recorded when
 * def->store is set) holding the recording's state at tick (the state
 * before tick's inputs, the hash recorded at tick): the recording is
 * replayed there in a scratch session, snapshotted and restored into the
 * new one (pdk_session_create_from_snapshot). def's world fields are not
 * used: the fork runs in the recording's world. Its recording starts at
 * tick, names rec's session and tick as its parent, records every vehicle
 * alive at tick with its original spawn tick and parameters, and a
 * keyframe at tick, so it replays on its own. Errors as pdk_player_seek and
 * pdk_session_create_from_snapshot, err naming what was wrong; *out is
 * NULL on error. */
pdk_error pdk_fork(const pdk_recording *rec, uint64_t tick, uint64_t new_id,
                   const pdk_session_def *def, const pdk_session_hooks *hooks, pdk_session **out,
                   char *err, size_t err_len);

/* Telemetry of ticks from..to (to 0: the last) re-simulated, one CSV row per
 * live vehicle (of ids, all when n_ids is 0; in id order) at from and every
 * every_ticks (0 means 1) ticks after it: tick, time_s, vehicle, then
 * channels (names as channels.h; all when n_channels is 0), a header row
 * first. A row of tick t holds the channels of the step that reached t, as
 * a subscriber saw them then; values are written with 17 significant
 * digits, so they read back to the same bits. The text goes to write_fn in
 * chunks of about 64 KiB (return PDK_OK to go on; another value stops the
 * export and is returned). Errors: PDK_ERR_UNKNOWN_KEY (a channel name:
 * err names it), PDK_ERR_OUT_OF_RANGE (the range: err gives the
 * recording's bounds), PDK_ERR_NOT_FOUND (a vehicle id the recording never
 * held), pdk_player_seek's. */
typedef pdk_error (*pdk_csv_write_fn)(void *ctx, const char *text, size_t len);
pdk_error pdk_csv_export(const pdk_recording *rec, uint64_t from_tick, uint64_t to_tick,
                         uint32_t every_ticks, const char *const *channels, size_t n_channels,
                         const uint32_t *ids, size_t n_ids, pdk_csv_write_fn write_fn, void *ctx,
                         char *err, size_t err_len);

/* What an MCAP export wrote. */
typedef struct pdk_mcap_export_stats {
    uint64_t states, telemetry, reports; /* messages on each kind of channel */
    uint64_t messages;                   /* all of them */
    uint32_t chunks;
    uint64_t bytes;
} pdk_mcap_export_stats;

/* The whole recording re-simulated (as pdk_csv_export does) into an indexed
 * MCAP file (store/mcap.h) through write_fn: three protobuf schemas
 * (paddock.v1.VehicleState, TelemetryBatch and DbwReport, each carrying
 * paddock.proto's FileDescriptorSet) and, per vehicle once it is first
 * alive, the channels /session/<S>/vehicle/<id>/state (a VehicleState
 * with every part), .../telemetry (a TelemetryBatch of one row of the
 * chosen channels, all when n_channels is 0; the channel's metadata
 * "channels" names them in order) and, for a vehicle with the DBW kit,
 * .../dbw_report (each DbwReport kind at its period, as the kit made it:
 * injected report drops and delays are not applied). Every tick from the
 * recording's start to its end writes a message per live vehicle on state
 * and telemetry; log and publish time are the tick's sim time in ns.
 * Chunks are zstd-compressed when zstd is set. stats (may be NULL) says
 * what was written. Errors: PDK_ERR_UNKNOWN_KEY (a
 * channel name: err names it), write_fn's (err says what was being
 * written), the replay's (pdk_player_seek's), PDK_ERR_NO_MEMORY. */
pdk_error pdk_mcap_export(const pdk_recording *rec, const char *const *channels, size_t n_channels,
                          bool zstd, pdk_mcap_write_fn write_fn, void *ctx, pdk_mcap_export_stats *stats,
                          char *err, size_t err_len);

/* Session metadata as one compact JSON object: session_id, name, build_id,
 * timing, world_preset, dt_s, substeps, seed, created_unix_ms,
 * closed_unix_ms (null while open), ended, interrupted, start_tick,
 * last_tick, final_tick, final_hash (16 hex digits: a JSON number cannot
 * hold 64 bits), parent (null or {session_id, tick}), keyframe_every_ticks,
 * the counts inputs, hashes and keyframes, and vehicles: [{vehicle_id,
 * preset, overrides, model ("fourWheel" or "singleTrack"), spawn_tick,
 * removed_tick (null while alive)}]. Strings are escaped. Caller frees;
 * NULL when out of memory. */
char *pdk_recording_meta_json(const pdk_recording *rec);

#endif
