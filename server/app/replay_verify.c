/* Verify (a recording re-simulated against every recorded state hash, its
 * keyframe segments by worker threads, and what differs where it first
 * diverges) and fork (a new recorded session from any tick of a
 * recording) (replay.h). */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay_internal.h"
#include "sim/snapshot.h"
#include "wire_snapshot.h"
#include "world_mem.h"

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Two doubles are the same state when their bits are (a NaN equals itself). */
static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

typedef struct pose_field {
    const char *name;
    size_t offset;
} pose_field;

#define POSE_FIELD(f)                                                                              \
    {                                                                                              \
#f, offsetof(pdk_vehicle_pose, f)                                                          \
    }
static const pose_field pose_fields[] = {
    POSE_FIELD(x_m),
    POSE_FIELD(y_m),
    POSE_FIELD(z_m),
    POSE_FIELD(yaw_rad),
    POSE_FIELD(pitch_rad),
    POSE_FIELD(roll_rad),
    POSE_FIELD(vx_mps),
    POSE_FIELD(vy_mps),
    POSE_FIELD(vz_mps),
    POSE_FIELD(roll_rate_radps),
    POSE_FIELD(pitch_rate_radps),
    POSE_FIELD(yaw_rate_radps),
    POSE_FIELD(steer_angle_rad),
    POSE_FIELD(speed_mps),
    POSE_FIELD(ax_mps2),
    POSE_FIELD(ay_mps2),
};
#undef POSE_FIELD

static double pose_value(const pdk_vehicle_pose *pose, size_t i)
{
    double v;
    memcpy(&v, (const char *)pose + pose_fields[i].offset, sizeof(v));
    return v;
}

/* Names the first field of vehicle id that differs between the recorded
 * world (a keyframe restored) and the replayed one: a member of its pose
 * first, then the first word of its state record that differs, with the
 * part of the record that holds it (pdk_snapshot_record_part). A keyframe
 * holds no channels (ADR 0040), so no channel is compared. False when both
 * show the same pose and record. */
static bool field_differs(const pdk_world *recorded, const pdk_world *replayed, pdk_vehicle_id id,
                          char *field, size_t field_len)
{
    pdk_vehicle_pose a, b;
    if (pdk_world_vehicle_pose(recorded, id, &a) == PDK_OK &&
        pdk_world_vehicle_pose(replayed, id, &b) == PDK_OK) {
        for (size_t i = 0; i < sizeof(pose_fields) / sizeof(pose_fields[0]); i++) {
            double ra = pose_value(&a, i), rb = pose_value(&b, i);
            if (!same_bits(ra, rb)) {
                snprintf(field, field_len, "pose.%s: recorded %.17g, replayed %.17g",
                         pose_fields[i].name, ra, rb);
                return true;
            }
        }
        if (a.faulted != b.faulted) {
            snprintf(field, field_len, "pose.faulted: recorded %d, replayed %d", a.faulted,
                     b.faulted);
            return true;
        }
    }
    const size_t words = pdk_snapshot_vehicle_bytes() / sizeof(uint64_t);
    uint64_t *ra = malloc(words * sizeof(uint64_t)), *rb = malloc(words * sizeof(uint64_t));
    bool found = false;
    if (ra && rb &&
        pdk_world_snapshot_vehicle(recorded, id, ra, words * sizeof(uint64_t)) == PDK_OK &&
        pdk_world_snapshot_vehicle(replayed, id, rb, words * sizeof(uint64_t)) == PDK_OK) {
        for (size_t i = 0; i < words && !found; i++) {
            if (ra[i] == rb[i])
                continue;
            size_t at = 0;
            const char *part = pdk_snapshot_record_part(i * sizeof(uint64_t), &at);
            double da, db;
            memcpy(&da, &ra[i], sizeof da);
            memcpy(&db, &rb[i], sizeof db);
            snprintf(field, field_len,
                     "%s, its bytes %zu..%zu: recorded %016" PRIx64 " (%.17g as a double), "
                     "replayed %016" PRIx64 " (%.17g)",
                     part, at, at + sizeof(uint64_t) - 1, ra[i], da, rb[i], db);
            found = true;
        }
    }
    free(ra);
    free(rb);
    return found;
}

static bool holds(const pdk_world *w, pdk_vehicle_id id)
{
    return pdk_world_vehicle_pose(w, id, &(pdk_vehicle_pose){0}) == PDK_OK;
}

/* Compares the replayed world with the recorded one at a keyframe's tick
 * and writes what differs into r (vehicle_id, field, message). */
static void compare_worlds(const pdk_world *recorded, const pdk_world *replayed, uint64_t tick,
                           uint64_t divergent, pdk_verify_result *r)
{
    char what[256];
    for (int pass = 0; pass < 2; pass++) {
        const pdk_world *w = pass == 0 ? recorded : replayed;
        const pdk_world *other = pass == 0 ? replayed : recorded;
        for (int i = 0; i < pdk_world_vehicle_count(w); i++) {
            pdk_vehicle_id id = pdk_world_vehicle_at(w, i);
            if (holds(other, id))
                continue;
            r->vehicle_id = id;
            pdk_rec_errf(r->field, sizeof(r->field), "presence at tick %llu: %s",
                         (unsigned long long)tick,
                         pass == 0 ? "in the recording, not in the replay"
                                   : "in the replay, not in the recording");
            pdk_rec_errf(r->message, sizeof(r->message),
                         "diverged at tick %llu; at the keyframe of tick %llu vehicle %u is %s",
                         (unsigned long long)divergent, (unsigned long long)tick, id,
                         pass == 0 ? "in the recording but not in the replay"
                                   : "in the replay but not in the recording");
            return;
        }
    }
    for (int i = 0; i < pdk_world_vehicle_count(recorded); i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(recorded, i);
        uint64_t ha = pdk_world_vehicle_hash(recorded, id);
        uint64_t hb = pdk_world_vehicle_hash(replayed, id);
        if (ha == hb)
            continue;
        r->vehicle_id = id;
        if (field_differs(recorded, replayed, id, what, sizeof(what))) {
            pdk_rec_errf(r->field, sizeof(r->field), "%s", what);
        } else {
            pdk_rec_errf(r->field, sizeof(r->field),
                         "state not shown by its pose or state record: vehicle hash recorded "
                         "%016" PRIx64 ", replayed %016" PRIx64,
                         ha, hb);
        }
        pdk_rec_errf(
            r->message, sizeof(r->message),
            "diverged at tick %llu; at the keyframe of tick %llu vehicle %u differs first: "
            "%s",
            (unsigned long long)divergent, (unsigned long long)tick, id, r->field);
        return;
    }
    if (pdk_world_hash(recorded) == pdk_world_hash(replayed)) {
        pdk_rec_errf(r->message, sizeof(r->message),
                     "diverged at tick %llu, but the replay matches the keyframe of tick %llu "
                     "exactly: the hash recorded at tick %llu may itself be damaged",
                     (unsigned long long)divergent, (unsigned long long)tick,
                     (unsigned long long)divergent);
        return;
    }
    pdk_rec_errf(r->field, sizeof(r->field),
                 "the world's own state (its seed, PRNG or slot generations) at tick %llu",
                 (unsigned long long)tick);
    pdk_rec_errf(r->message, sizeof(r->message),
                 "diverged at tick %llu; at the keyframe of tick %llu every vehicle matches but %s "
                 "differs",
                 (unsigned long long)divergent, (unsigned long long)tick, r->field);
}

/* After a divergence at the player's tick: steps on to the first keyframe
 * at or after it and compares each vehicle there. */
static void diagnose(pdk_player *p, pdk_verify_result *r)
{
    const pdk_recording *rec = p->rec;
    uint64_t d = r->first_divergent_tick;
    size_t k = 0;
    while (k < rec->n_keyframes &&
           (rec->keyframes[k].tick < d || rec->keyframes[k].layout != pdk_snapshot_layout()))
        k++;
    size_t other_layout = 0;
    for (size_t i = 0; i < rec->n_keyframes; i++)
        other_layout += rec->keyframes[i].tick >= d && rec->keyframes[i].tick <= rec->end_tick &&
                        rec->keyframes[i].layout != pdk_snapshot_layout();
    if ((k == rec->n_keyframes || rec->keyframes[k].tick > rec->end_tick) && other_layout > 0) {
        pdk_rec_errf(r->message, sizeof(r->message),
                     "diverged at tick %llu; the %zu keyframes after it hold another state layout "
                     "than this build's (build %s recorded them), so none can show what differs",
                     (unsigned long long)d, other_layout, r->recorded_build);
        return;
    }
    if (k == rec->n_keyframes || rec->keyframes[k].tick > rec->end_tick) {
        pdk_rec_errf(r->message, sizeof(r->message),
                     "diverged at tick %llu; no keyframe follows it to show what differs (%zu "
                     "keyframes recorded, the last at tick %llu)",
                     (unsigned long long)d, rec->n_keyframes,
                     rec->n_keyframes
                         ? (unsigned long long)rec->keyframes[rec->n_keyframes - 1].tick
                         : 0ull);
        return;
    }
    uint64_t kt = rec->keyframes[k].tick;
    pdk_session_set_publishing(p->s, false);
    pdk_error e = PDK_OK;
    while (e == PDK_OK && pdk_player_tick(p) < kt)
        e = pdk_player_step(p);
    if (e != PDK_OK) {
        pdk_rec_errf(r->message, sizeof(r->message),
                     "diverged at tick %llu; replaying on to the keyframe of tick %llu failed at "
                     "tick %llu: %s",
                     (unsigned long long)d, (unsigned long long)kt,
                     (unsigned long long)pdk_player_tick(p), pdk_error_message(e));
        return;
    }
    void *mem = NULL;
    pdk_world *recorded = NULL;
    char why[PDK_REPLAY_ERR_LEN];
    e = pdk_rec_keyframe_world(rec, k, &mem, &recorded, why, sizeof(why));
    if (e != PDK_OK) {
        pdk_rec_errf(
            r->message, sizeof(r->message),
            "diverged at tick %llu; the keyframe that follows cannot show what differs: %s",
            (unsigned long long)d, why);
    } else {
        compare_worlds(recorded, pdk_session_world(p->s), kt, d, r);
    }
    pdk_world_mem_free(mem, pdk_world_mem_size(pdk_recording_world_def(rec)));
}

/* ---- verify, keyframe segment by keyframe segment ----------------------------
 *
 * The state at tick t + 1 follows from the state at t and t's inputs, so
 * the stretch from one usable keyframe to the next (a segment) can be
 * re-simulated from the first one restored, by a worker thread with a
 * scratch session of its own (the recording is shared, read only; blobs
 * come from the store, whose reads are serialized). The pieces make one
 * sound chain: each segment's last tick is compared with the hash recorded
 * there, and a keyframe starts a segment only when its carried hash is the
 * one recorded at its tick (and the world it restores hashes to it).
 *
 * A keyframe of another layout or hash starts no segment. One that does
 * not read or restore is found out by the worker that tries it: the worker
 * that ends the segment before goes on through it, its state exact there.
 * A worker ending a segment also goes on into the next when nobody has
 * taken it: one worker re-simulates start to end without a restore.
 *
 * Events (a hash that differs, a step that fails) are ordered as a serial
 * replay meets them (event keys below) and the earliest wins, however many
 * workers ran it and whenever each got there: every segment before the
 * one holding it ran to its end without one. A worker meeting an event
 * stops and keeps its player for the diagnosis; work that can only find
 * later events is given up. */

/* Workers by default: one per online CPU, at most this many; the
 * environment's PADDOCK_VERIFY_THREADS (1: serial) may ask for up to
 * VERIFY_MAX_THREADS. Never more than there are segments. */
#define VERIFY_DEFAULT_MAX_THREADS 8
#define VERIFY_MAX_THREADS 64

typedef enum seg_state {
    SEG_PENDING,   /* nobody has taken it */
    SEG_RESTORING, /* a worker is restoring its keyframe */
    SEG_RUNNING,   /* a worker re-simulates it */
    SEG_UNUSABLE,  /* its keyframe did not restore: the worker that ends the one before goes on */
    SEG_DONE,      /* ended without an event, or given up as after the earliest event */
} seg_state;

typedef struct segment {
    size_t keyframe; /* the keyframe at start_tick (not for the first segment) */
    uint64_t start_tick;
    uint64_t end_tick; /* the next segment's start, or the tick verify goes to */
    seg_state state;   /* under verify_job.mu */
} segment;

struct verify_job;

typedef struct verify_worker {
    struct verify_job *job;
    pdk_session *s;
    pdk_player *p;
    pthread_t thread;
    bool threaded;
    /* Its event, written by the worker itself, read after it was joined. */
    pdk_error event_err; /* PDK_OK: the hash at event_tick differed */
    uint64_t event_tick;
    char err[PDK_REPLAY_ERR_LEN];
} verify_worker;

typedef struct verify_job {
    const pdk_recording *rec;
    segment *segs;
    size_t n_segs;
    pthread_mutex_t mu;
    pthread_cond_t changed;     /* a segment left SEG_RESTORING */
    verify_worker *first;       /* under mu: the worker holding the earliest event */
    _Atomic uint64_t first_key; /* stored under mu, read without it: first's key */
    const atomic_bool *cancel;  /* NULL, or set by another thread to stop every worker */
} verify_job;

/* Event keys, in the order a serial replay meets events: the hash at tick
 * t differs (2t) before the step from t fails queueing t's inputs
 * (2t + 1), and both before anything at t + 1. The first segment failing
 * to start is key 0: nothing comes before it. Ticks stay far below 2^63. */
static uint64_t diverged_key(uint64_t tick)
{
    return 2u * tick;
}

static uint64_t failed_key(uint64_t tick)
{
    return 2u * tick + 1u;
}

/* The earliest event segment k can hold. */
static uint64_t segment_min_key(const verify_job *job, size_t k)
{
    return k == 0 ? 0 : failed_key(job->segs[k].start_tick);
}

static uint64_t earliest_key(verify_job *job)
{
    return atomic_load_explicit(&job->first_key, memory_order_relaxed);
}

static bool cancelled(const verify_job *job)
{
    return job->cancel && atomic_load_explicit(job->cancel, memory_order_relaxed);
}

/* Under mu. */
static void record_event(verify_job *job, verify_worker *w, uint64_t key, pdk_error e,
                         uint64_t tick)
{
    w->event_err = e;
    w->event_tick = tick;
    if (key < earliest_key(job)) {
        job->first = w;
        atomic_store_explicit(&job->first_key, key, memory_order_relaxed);
    }
}

/* Under mu: whether a worker will go on into segment k from the one
 * before it (running or restoring, with only unusable ones between). */
static bool reached(const verify_job *job, size_t k)
{
    while (k-- > 0) {
        seg_state st = job->segs[k].state;
        if (st == SEG_RUNNING || st == SEG_RESTORING)
            return true;
        if (st != SEG_UNUSABLE)
            return false;
    }
    return false;
}

/* Under mu: the segment a worker without one takes, or n_segs. A restore
 * (a keyframe read, decoded and restored) costs what re-simulating
 * several ticks does, and a worker going on into the next segment needs none, so segments are
 * not dealt out one by one: the first pending one that no worker will
 * reach is taken at its start (the first segment, first of all); else the
 * longest run of pending segments that a worker will reach (two or more)
 * is split, its second half taken from its middle. Nothing is taken that
 * can only hold events after the earliest found. */
static size_t claim(verify_job *job)
{
    size_t n = job->n_segs, best = n, best_len = 0;
    uint64_t earliest = earliest_key(job);
    for (size_t a = 0; a < n;) {
        if (job->segs[a].state != SEG_PENDING) {
            a++;
            continue;
        }
        size_t b = a;
        while (b < n && job->segs[b].state == SEG_PENDING)
            b++;
        if (segment_min_key(job, a) >= earliest)
            break; /* nor can any after it */
        if (!reached(job, a))
            return a;
        size_t mid = a + (b - a) / 2;
        if (b - a >= 2 && b - a > best_len && segment_min_key(job, mid) < earliest) {
            best = mid;
            best_len = b - a;
        }
        a = b;
    }
    return best;
}

/* Re-simulates segment k, from the state w's player holds at its start,
 * and goes on into the next segment while it is unusable or not taken.
 * Called and returns under mu (released while stepping). True when w met
 * an event: it then keeps its player as it is and takes no more work. */
static bool run_segments(verify_job *job, verify_worker *w, size_t k)
{
    pdk_player *p = w->p;
    for (;;) {
        uint64_t end = job->segs[k].end_tick;
        pthread_mutex_unlock(&job->mu);
        pdk_error e = PDK_OK;
        bool given_up = false;
        while (e == PDK_OK && !p->has_diverged && pdk_player_tick(p) < end) {
            /* Every tick is a check point: a cancelled verify stops within
             * one step of each worker. */
            if (cancelled(job)) {
                e = PDK_ERR_CLOSED;
                break;
            }
            if (failed_key(pdk_player_tick(p)) >= earliest_key(job)) {
                given_up = true; /* all it could still meet comes after the earliest */
                break;
            }
            e = pdk_player_step(p);
        }
        pthread_mutex_lock(&job->mu);
        if (e == PDK_ERR_CLOSED && cancelled(job)) {
            uint64_t tick = pdk_player_tick(p);
            pdk_rec_errf(
                w->err, sizeof(w->err), "session %llu: the verify was cancelled at tick %llu",
                (unsigned long long)job->rec->info.session.session_id, (unsigned long long)tick);
            record_event(job, w, failed_key(tick), e, tick);
            return true;
        }
        if (e != PDK_OK) {
            uint64_t tick = pdk_player_tick(p);
            pdk_rec_errf(w->err, sizeof(w->err), "session %llu: the replay failed at tick %llu: %s",
                         (unsigned long long)job->rec->info.session.session_id,
                         (unsigned long long)tick, pdk_error_message(e));
            record_event(job, w, failed_key(tick), e, tick);
            return true;
        }
        if (p->has_diverged) {
            record_event(job, w, diverged_key(p->diverged), PDK_OK, p->diverged);
            return true;
        }
        job->segs[k].state = SEG_DONE;
        if (given_up || k + 1 == job->n_segs)
            return false;
        segment *next = &job->segs[k + 1];
        while (next->state == SEG_RESTORING)
            pthread_cond_wait(&job->changed, &job->mu);
        if ((next->state != SEG_PENDING && next->state != SEG_UNUSABLE) ||
            segment_min_key(job, k + 1) >= earliest_key(job))
            return false;
        next->state = SEG_RUNNING;
        k++;
    }
}

/* A worker: takes segments until none is left that can matter. */
static void work(verify_worker *w)
{
    verify_job *job = w->job;
    pthread_mutex_lock(&job->mu);
    for (;;) {
        size_t k = claim(job);
        if (k == job->n_segs)
            break;
        segment *seg = &job->segs[k];
        seg->state = SEG_RESTORING;
        pthread_mutex_unlock(&job->mu);
        pdk_error e = k == 0 ? pdk_rec_player_start(w->p, w->err, sizeof(w->err))
                             : pdk_rec_player_restore(w->p, seg->keyframe, NULL, 0);
        pthread_mutex_lock(&job->mu);
        seg->state = e == PDK_OK ? SEG_RUNNING : k == 0 ? SEG_DONE : SEG_UNUSABLE;
        pthread_cond_broadcast(&job->changed);
        if (e != PDK_OK && k == 0) {
            record_event(job, w, 0, e, job->rec->start_tick);
            break;
        }
        if (e == PDK_OK && run_segments(job, w, k))
            break;
    }
    pthread_mutex_unlock(&job->mu);
}

/* A worker's scratch session and player: it publishes nothing, and reads
 * no channels (its diagnosis compares state records), so its steps skip
 * them (ADR 0020). */
static pdk_error worker_open(verify_worker *w, char *err, size_t err_len)
{
    const pdk_recording *rec = w->job->rec;
    pdk_error e = pdk_rec_scratch_session(rec, &w->s, err, err_len);
    if (e == PDK_OK)
        e = pdk_rec_player_new(rec, w->s, &w->p);
    if (e == PDK_OK) {
        pdk_session_set_publishing(w->s, false);
        pdk_session_set_channels(w->s, PDK_CHANNELS_AS_READ);
    }
    return e;
}

/* A worker of its own thread lays out its session there, beside the
 * others; one that cannot only leaves the work to the rest. */
static void *worker_main(void *arg)
{
    verify_worker *w = arg;
    if (worker_open(w, NULL, 0) == PDK_OK)
        work(w);
    return NULL;
}

/* The segments of start..to: the first from the recording's start, one
 * more from each keyframe strictly between of this build's layout whose
 * carried hash is the one recorded at its tick. */
static pdk_error make_segments(const pdk_recording *rec, uint64_t to, segment **out, size_t *n_out)
{
    segment *segs = calloc(rec->n_keyframes + 1, sizeof(*segs));
    if (!segs)
        return PDK_ERR_NO_MEMORY;
    size_t n = 0;
    segs[n++] = (segment){.start_tick = rec->start_tick, .state = SEG_PENDING};
    uint64_t layout = pdk_snapshot_layout();
    for (size_t k = 0; k < rec->n_keyframes; k++) {
        const rec_keyframe *kf = &rec->keyframes[k];
        bool found;
        uint64_t h = pdk_rec_hash_at(rec, kf->tick, &found);
        if (kf->tick <= segs[n - 1].start_tick || kf->tick >= to || kf->layout != layout ||
            !found || h != kf->hash)
            continue;
        segs[n - 1].end_tick = kf->tick;
        segs[n++] = (segment){.keyframe = k, .start_tick = kf->tick, .state = SEG_PENDING};
    }
    segs[n - 1].end_tick = to;
    *out = segs;
    *n_out = n;
    return PDK_OK;
}

/* Workers for n_segs segments: PADDOCK_VERIFY_THREADS, else one per core
 * up to VERIFY_DEFAULT_MAX_THREADS; never more than max_threads (0: no
 * such bound) nor than segments. */
static size_t verify_threads(size_t n_segs, unsigned max_threads)
{
    long n = 0;
    const char *env = getenv("PADDOCK_VERIFY_THREADS");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v > 0)
            n = v < VERIFY_MAX_THREADS ? v : VERIFY_MAX_THREADS;
    }
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
        if (n > VERIFY_DEFAULT_MAX_THREADS)
            n = VERIFY_DEFAULT_MAX_THREADS;
    }
    if (max_threads > 0 && n > (long)max_threads)
        n = (long)max_threads;
    return (size_t)n < n_segs ? (size_t)n : n_segs;
}

/* The recorded hashes of ticks from..to. */
static uint64_t hashes_between(const pdk_recording *rec, uint64_t from, uint64_t to)
{
    size_t lo = pdk_rec_first_at(rec->hashes, rec->n_hashes, sizeof(rec_hash), from);
    size_t n = 0;
    while (lo + n < rec->n_hashes && rec->hashes[lo + n].tick <= to)
        n++;
    return n;
}

/* The recorded range from the start to last: its end hashes and its holes
 * (a hash is recorded every tick, so a tick without one is missing). */
static void recorded_range(const pdk_recording *rec, uint64_t last, pdk_verify_result *result)
{
    size_t lo = pdk_rec_first_at(rec->hashes, rec->n_hashes, sizeof(rec_hash), rec->start_tick);
    result->first_tick = rec->start_tick;
    uint64_t expect = rec->start_tick;
    for (size_t i = lo; i < rec->n_hashes && rec->hashes[i].tick <= last; i++) {
        const rec_hash *h = &rec->hashes[i];
        if (h->tick == rec->start_tick)
            result->first_hash = h->hash;
        if (h->tick == last)
            result->last_hash = h->hash;
        if (h->tick > expect) {
            if (result->missing_ticks == 0) {
                result->hole_first_tick = expect;
                result->hole_last_tick = h->tick - 1;
            }
            result->missing_ticks += h->tick - expect;
        }
        expect = h->tick + 1;
    }
    if (last >= expect) {
        if (result->missing_ticks == 0) {
            result->hole_first_tick = expect;
            result->hole_last_tick = last;
        }
        result->missing_ticks += last - expect + 1;
    }
}

/* Re-simulates rec from its start to to with up to verify_threads workers
 * (the calling thread is the first) and writes the outcome into result, a
 * divergence diagnosed. */
static pdk_error verify_recording(const pdk_recording *rec, uint64_t to, const atomic_bool *cancel,
                                  unsigned max_threads, pdk_verify_result *result, char *err,
                                  size_t err_len)
{
    unsigned long long sid = (unsigned long long)rec->info.session.session_id;
    verify_job job = {.rec = rec, .cancel = cancel};
    pdk_error e = make_segments(rec, to, &job.segs, &job.n_segs);
    if (e != PDK_OK)
        return e;
    size_t n = verify_threads(job.n_segs, max_threads);
    verify_worker *workers = calloc(n, sizeof(*workers));
    if (!workers) {
        free(job.segs);
        return PDK_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        workers[i].job = &job;
    /* The calling thread's worker must have its session (a serial replay
     * needs one too); the others make theirs in their threads. */
    e = worker_open(&workers[0], err, err_len);
    if (e != PDK_OK) {
        pdk_player_free(workers[0].p);
        pdk_session_destroy(workers[0].s);
        free(workers);
        free(job.segs);
        return e;
    }
    pthread_mutex_init(&job.mu, NULL);
    pthread_cond_init(&job.changed, NULL);
    atomic_init(&job.first_key, UINT64_MAX);
    for (size_t i = 1; i < n; i++)
        workers[i].threaded =
            pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0;
    work(&workers[0]);
    result->threads = 1;
    for (size_t i = 1; i < n; i++) {
        if (workers[i].threaded) {
            pthread_join(workers[i].thread, NULL);
            result->threads++;
        }
    }
    verify_worker *first = job.first;
    if (!first) {
        for (size_t k = 0; k < job.n_segs; k++)
            PDK_ASSERT(job.segs[k].state == SEG_DONE);
    }
    if (first && first->event_err != PDK_OK) {
        e = first->event_err;
        pdk_rec_errf(err, err_len, "%s", first->err);
    } else {
        uint64_t last = first ? first->event_tick : to;
        result->match = first == NULL;
        result->hashes_checked = hashes_between(rec, rec->start_tick, last);
        result->last_tick = last;
        recorded_range(rec, last, result);
        if (first) {
            result->first_divergent_tick = last;
            diagnose(first->p, result);
        } else if (result->missing_ticks > 0) {
            pdk_rec_errf(result->message, sizeof(result->message),
                         "session %llu matches its recording where it holds hashes: %llu state "
                         "hashes from tick %llu to %llu, but %llu ticks have none and were not "
                         "checked (a hole, first ticks %llu..%llu)%s",
                         sid, (unsigned long long)result->hashes_checked,
                         (unsigned long long)rec->start_tick, (unsigned long long)last,
                         (unsigned long long)result->missing_ticks,
                         (unsigned long long)result->hole_first_tick,
                         (unsigned long long)result->hole_last_tick,
                         result->same_build ? "" : " (recorded by another build)");
        } else {
            pdk_rec_errf(result->message, sizeof(result->message),
                         "session %llu matches its recording: %llu state hashes from tick %llu to "
                         "%llu%s",
                         sid, (unsigned long long)result->hashes_checked,
                         (unsigned long long)rec->start_tick, (unsigned long long)last,
                         result->same_build ? "" : " (recorded by another build)");
        }
    }
    pthread_cond_destroy(&job.changed);
    pthread_mutex_destroy(&job.mu);
    for (size_t i = 0; i < n; i++) {
        pdk_player_free(workers[i].p);
        pdk_session_destroy(workers[i].s);
    }
    free(workers);
    free(job.segs);
    return e;
}

/* The recording names ticks it lost while the disk was full: the verify
 * stopped before them (pdk_recording_load), and the reply says so, the
 * marked run counted as missing and named as the hole when it is the
 * first. */
static void marked_gap(const pdk_recording *rec, pdk_verify_result *result)
{
    const pdk_store_session_info *in = &rec->info;
    if (result->missing_ticks == 0) {
        result->hole_first_tick = in->gap_first_tick;
        result->hole_last_tick = in->gap_last_tick;
    }
    result->missing_ticks += in->gap_last_tick - in->gap_first_tick + 1;
    size_t len = strlen(result->message);
    snprintf(result->message + len, sizeof(result->message) - len,
             "; ticks %llu..%llu were lost when the disk was full (marked in the recording%s): "
             "nothing from tick %llu on was checked",
             (unsigned long long)in->gap_first_tick, (unsigned long long)in->gap_last_tick,
             in->gaps > 1 ? ", with later runs" : "", (unsigned long long)in->gap_first_tick);
}

pdk_error pdk_verify(pdk_store *store, uint64_t session_id, uint64_t to_tick,
                     const char *this_build, pdk_verify_result *result, char *err, size_t err_len)
{
    return pdk_verify_cancellable(store, session_id, to_tick, this_build, NULL, 0, result, err,
                                  err_len);
}

pdk_error pdk_verify_cancellable(pdk_store *store, uint64_t session_id, uint64_t to_tick,
                                 const char *this_build, const atomic_bool *cancel,
                                 unsigned max_threads, pdk_verify_result *result, char *err,
                                 size_t err_len)
{
    memset(result, 0, sizeof(*result));
    double t0 = wall_s();
    pdk_recording *rec = NULL;
    pdk_error e = pdk_recording_load_cancellable(store, session_id, cancel, &rec, err, err_len);
    if (e == PDK_ERR_CLOSED)
        pdk_rec_errf(err, err_len, "session %llu: the verify was cancelled loading its recording",
                     (unsigned long long)session_id);
    if (e != PDK_OK)
        return e;
    snprintf(result->recorded_build, sizeof(result->recorded_build), "%s",
             rec->info.session.build_id);
    result->same_build = this_build && strcmp(this_build, rec->info.session.build_id) == 0;
    result->interrupted = rec->info.interrupted != 0;
    uint64_t to = to_tick ? to_tick : rec->end_tick;
    if (to < rec->start_tick || to > rec->end_tick) {
        pdk_rec_errf(err, err_len, "session %llu: tick %llu is outside its recording (%llu..%llu)",
                     (unsigned long long)session_id, (unsigned long long)to,
                     (unsigned long long)rec->start_tick, (unsigned long long)rec->end_tick);
        pdk_recording_free(rec);
        return PDK_ERR_OUT_OF_RANGE;
    }
    e = verify_recording(rec, to, cancel, max_threads, result, err, err_len);
    if (e == PDK_OK && rec->info.gaps > 0 && !result->first_divergent_tick)
        marked_gap(rec, result);
    pdk_recording_free(rec);
    result->seconds = wall_s() - t0;
    return e;
}

/* ---- fork ------------------------------------------------------------------- */

pdk_error pdk_fork(const pdk_recording *rec, uint64_t tick, uint64_t new_id,
                   const pdk_session_def *def, const pdk_session_hooks *hooks, pdk_session **out,
                   char *err, size_t err_len)
{
    *out = NULL;
    pdk_session *scratch = NULL;
    pdk_player *p = NULL;
    pdk_buf snap = {0};
    pdk_session_vehicle *vehicles = NULL;
    pdk_error e = pdk_rec_scratch_session(rec, &scratch, err, err_len);
    if (e == PDK_OK)
        e = pdk_player_create(rec, scratch, &p, err, err_len);
    if (e == PDK_OK)
        e = pdk_player_seek(p, tick, err, err_len);
    if (e == PDK_OK) {
        e = pdk_wire_snapshot_encode(pdk_session_world(scratch), def->build_id, &snap);
        if (e != PDK_OK)
            pdk_rec_errf(err, err_len, "session %llu at tick %llu: its snapshot: %s",
                         (unsigned long long)rec->info.session.session_id, (unsigned long long)tick,
                         pdk_error_message(e));
    }
    const pdk_world *w = scratch ? pdk_session_world(scratch) : NULL;
    int n = e == PDK_OK ? pdk_world_vehicle_count(w) : 0;
    if (e == PDK_OK && n > 0) {
        vehicles = calloc((size_t)n, sizeof(*vehicles));
        if (!vehicles)
            e = PDK_ERR_NO_MEMORY;
    }
    for (int i = 0; e == PDK_OK && i < n; i++) {
        pdk_vehicle_id id = pdk_world_vehicle_at(w, i);
        const rec_vehicle *v = pdk_rec_vehicle_at(rec, id, tick);
        if (!v) {
            pdk_rec_errf(err, err_len,
                         "session %llu: vehicle %u is in its world at tick %llu but no vehicle "
                         "row says where it came from",
                         (unsigned long long)rec->info.session.session_id, id,
                         (unsigned long long)tick);
            e = PDK_ERR_NOT_FOUND;
            break;
        }
        vehicles[i] = (pdk_session_vehicle){.id = id,
                                            .spawn_tick = v->spawn_tick,
                                            .def = &v->def,
                                            .preset = v->preset,
                                            .overrides = v->overrides,
                                            .params_json = v->params_json};
    }
    if (e == PDK_OK) {
        pdk_session_def sdef = *def;
        sdef.world = rec->world;
        sdef.world_json = rec->info.session.world_json;
        sdef.world_preset = rec->info.session.world_preset;
        sdef.parent_session_id = rec->info.session.session_id;
        sdef.parent_tick = tick;
        e = pdk_session_create_from_snapshot(new_id, &sdef, hooks, snap.data, snap.len, vehicles,
                                             (size_t)n, out, err, err_len);
    }
    free(vehicles);
    pdk_buf_free(&snap);
    pdk_player_free(p);
    pdk_session_destroy(scratch);
    return e;
}
