/* What replay's files share: the recording and the player as they are in
 * memory (replay.c loads and plays; replay_verify.c verifies, diagnoses and
 * forks; replay_csv.c exports CSV and metadata; replay_mcap.c exports
 * MCAP). */
#ifndef PDK_REPLAY_INTERNAL_H
#define PDK_REPLAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "replay.h"

/* One vehicle row, its recorded parameters parsed. */
typedef struct rec_vehicle {
    pdk_vehicle_id id;
    uint64_t spawn_tick;
    bool removed;
    uint64_t removed_tick;
    char *preset;
    char *overrides;
    char *params_json;
    size_t params_len; /* of params_json: equal texts parse once */
    pdk_vehicle_def def;
} rec_vehicle;

/* One recorded input, decoded once at load (the tick first:
 * pdk_rec_first_at searches by it). */
typedef struct rec_input {
    uint64_t tick;
    uint32_t seq;
    pdk_input in; /* a spawn's preset and overrides are the recording's */
} rec_input;

typedef struct rec_hash {
    uint64_t tick;
    uint64_t hash;
} rec_hash;

typedef struct rec_keyframe {
    uint64_t tick;
    uint64_t hash;
    uint64_t layout;
    size_t blob_len;
} rec_keyframe;

struct pdk_recording {
    pdk_store *store;
    pdk_store_session_info info;
    pdk_world_def world;
    uint64_t start_tick;
    uint64_t end_tick;     /* the last tick a replay reaches */
    rec_vehicle *vehicles; /* in (spawn_tick, id) order */
    size_t n_vehicles;
    rec_input *inputs; /* in (tick, seq) order */
    size_t n_inputs;
    /* The indices of the inputs that may own text (the spawns, with
     * their preset and overrides), in no order: what freeing the
     * recording walks, where walking every input would read the whole
     * array again, megabytes long and cold by then. */
    size_t *text_inputs;
    size_t n_text_inputs;
    rec_hash *hashes; /* in tick order */
    size_t n_hashes;
    rec_keyframe *keyframes; /* in tick order */
    size_t n_keyframes;
};

struct pdk_player {
    const pdk_recording *rec;
    pdk_session *s;
    size_t next_input; /* the first input at or after the session's tick */
    uint64_t diverged; /* the first tick whose hash differed, with has_diverged */
    bool has_diverged;
    bool *bad_keyframe;      /* one per keyframe: refused once, never tried again */
    uint32_t *generations;   /* spawn ids: one per slot of the world */
    bool *alive;
    int capacity;
};

/* The index of the first of the n items at items, each size bytes and in
 * tick order, whose tick is tick or later (n when none): rec_input,
 * rec_hash and rec_keyframe each begin with their tick. */
_Static_assert(offsetof(rec_input, tick) == 0 && offsetof(rec_hash, tick) == 0 &&
                   offsetof(rec_keyframe, tick) == 0,
               "a recorded item begins with its tick");
static inline size_t pdk_rec_first_at(const void *items, size_t n, size_t size, uint64_t tick)
{
    const unsigned char *base = items;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t t;
        memcpy(&t, base + mid * size, sizeof t);
        if (t < tick)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The row of vehicle id alive in the state at tick (spawned before it, not
 * removed before it), or NULL. */
const rec_vehicle *pdk_rec_vehicle_at(const pdk_recording *rec, pdk_vehicle_id id, uint64_t tick);

/* The recorded hash at tick (*found false when none). */
uint64_t pdk_rec_hash_at(const pdk_recording *rec, uint64_t tick, bool *found);

/* Restores keyframe k into a scratch world laid out from rec's world
 * definition in *mem (world_mem.h's: the caller frees it with
 * pdk_world_mem_free and pdk_world_mem_size of that definition, also on
 * error, when it is not NULL). Errors name the keyframe and why. */
pdk_error pdk_rec_keyframe_world(const pdk_recording *rec, size_t k, void **mem, pdk_world **out,
                                 char *err, size_t err_len);

/* A player of rec into s positioned nowhere yet: pdk_rec_player_start or
 * pdk_rec_player_restore places it (verify's workers each hold one).
 * Errors: PDK_ERR_NO_MEMORY. */
pdk_error pdk_rec_player_new(const pdk_recording *rec, pdk_session *s, pdk_player **out);

/* Positions p at the recording's start as pdk_player_create does (a fresh
 * world, a fork's first keyframe or its parent's replay) and compares the
 * start tick's hash; what was compared before is forgotten. Errors as
 * pdk_player_create. */
pdk_error pdk_rec_player_start(pdk_player *p, char *err, size_t err_len);

/* Restores keyframe k into p's session as the start of a stretch to
 * re-simulate, what was compared before forgotten. It must be of this
 * build's layout, its carried hash must equal the state hash recorded at
 * its tick (one must be recorded there), and the restored world must hash
 * to it; otherwise PDK_ERR_VERSION. Read and restore errors as
 * pdk_session_restore's, err naming the keyframe. On error the session's
 * world may have been replaced: start or restore again before stepping. */
pdk_error pdk_rec_player_restore(pdk_player *p, size_t k, char *err, size_t err_len);

/* A session for replaying rec: not recorded, no hooks, rec's world. */
pdk_error pdk_rec_scratch_session(const pdk_recording *rec, pdk_session **out, char *err,
                                  size_t err_len);

/* Called by pdk_rec_replay_range with the replaying session at a tick;
 * PDK_OK goes on, another value stops the replay and is returned. */
typedef pdk_error (*pdk_rec_visit_fn)(void *ctx, pdk_session *s);

/* Re-simulates rec from from_tick to to_tick (both within its recording;
 * the caller checks) in a scratch session that publishes nothing, and
 * calls visit at from_tick and every every_ticks (at least 1) ticks after
 * it up to to_tick: the session's world then holds the state and channels
 * of the step that reached that tick, as a subscriber saw them. What CSV
 * and MCAP export share. Errors: the scratch session's and the player's
 * (err naming the session and, for a failed step, its tick), or visit's. */
pdk_error pdk_rec_replay_range(const pdk_recording *rec, uint64_t from_tick, uint64_t to_tick,
                               uint64_t every_ticks, pdk_rec_visit_fn visit, void *ctx, char *err,
                               size_t err_len);

/* Formats into err, like snprintf, when err is not NULL. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void pdk_rec_errf(char *err, size_t err_len, const char *fmt, ...);

#endif
