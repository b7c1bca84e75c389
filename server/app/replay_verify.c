/* Verify (a recording re-simulated against every recorded state hash, and
 * what differs where it first diverges) and fork (a new recorded session
 * from any tick of a recording) (replay.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "channels.h"
#include "replay_internal.h"
#include "snapshot.h"
#include "wire_snapshot.h"

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
 * world (a keyframe restored) and the replayed one: its pose first, then
 * its channels. False when both show the same pose and channels. */
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
    const double *ca = pdk_world_channels(recorded, id);
    const double *cb = pdk_world_channels(replayed, id);
    if (ca && cb) {
        for (size_t c = 0; c < PDK_CH_COUNT; c++) {
            if (!same_bits(ca[c], cb[c])) {
                snprintf(field, field_len, "%s (%s): recorded %.17g, replayed %.17g",
                         pdk_channel_get(c)->name, pdk_channel_get(c)->unit, ca[c], cb[c]);
                return true;
            }
        }
    }
    return false;
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
                         "state not shown by its pose or channels: vehicle hash recorded "
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
    free(mem);
}

pdk_error pdk_verify(pdk_store *store, uint64_t session_id, uint64_t to_tick,
                     const char *this_build, pdk_verify_result *result, char *err, size_t err_len)
{
    memset(result, 0, sizeof(*result));
    double t0 = wall_s();
    pdk_recording *rec = NULL;
    pdk_error e = pdk_recording_load(store, session_id, &rec, err, err_len);
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
    pdk_session *s = NULL;
    pdk_player *p = NULL;
    e = pdk_rec_scratch_session(rec, &s, err, err_len);
    if (e == PDK_OK)
        e = pdk_player_create(rec, s, &p, err, err_len);
    if (e == PDK_OK)
        pdk_session_set_publishing(s, false);
    while (e == PDK_OK && !p->has_diverged && pdk_player_tick(p) < to) {
        e = pdk_player_step(p);
        if (e != PDK_OK)
            pdk_rec_errf(err, err_len, "session %llu: the replay failed at tick %llu: %s",
                         (unsigned long long)session_id, (unsigned long long)pdk_player_tick(p),
                         pdk_error_message(e));
    }
    if (e == PDK_OK) {
        result->match = !p->has_diverged;
        result->hashes_checked = p->hashes_checked;
        result->last_tick = pdk_player_tick(p);
        if (p->has_diverged) {
            result->first_divergent_tick = p->diverged;
            diagnose(p, result);
        } else {
            pdk_rec_errf(result->message, sizeof(result->message),
                         "session %llu matches its recording: %llu state hashes from tick %llu to "
                         "%llu%s",
                         (unsigned long long)session_id, (unsigned long long)result->hashes_checked,
                         (unsigned long long)rec->start_tick, (unsigned long long)result->last_tick,
                         result->same_build ? "" : " (recorded by another build)");
        }
    }
    pdk_player_free(p);
    pdk_session_destroy(s);
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
