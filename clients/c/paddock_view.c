/* The proxy view (paddock_view.h; docs/multiplayer.md "The proxy view"):
 * jitter buffer, adaptive delay, cubic Hermite and slerp, bounded
 * extrapolation, eased corrections, snaps and teleports. Arithmetic only:
 * no clock, no I/O, no allocation. */
#include "paddock_view.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S 1e9
/* Gain of the running means of latency and jitter: RFC 3550's 1/16. */
#define STATS_GAIN (1.0 / 16.0)
/* Until this many send intervals are known the delay jumps to its target
 * instead of sliding to it: nothing smooth has been drawn yet. */
#define WARMUP_INTERVALS 3u

static const double IDENTITY[4] = {1.0, 0.0, 0.0, 0.0};

static pdk_view_status fail(pdk_view *v, pdk_view_status st, const char *fmt, ...)
{
    if (v != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->error, sizeof(v->error), fmt, ap);
        va_end(ap);
    }
    return st;
}

void pdk_view_settings_default(pdk_view_settings *s)
{
    if (s == NULL) {
        return;
    }
    *s = (pdk_view_settings){.send_intervals = 3.0,
                             .jitter_scale = 2.0,
                             .delay_floor_s = 0.05,
                             .delay_max_s = 1.0,
                             .delay_slew = 0.02,
                             .extrapolate_max_s = 0.25,
                             .snap_distance_m = 4.0,
                             .blend_time_s = 0.1,
                             .forget_after_s = 2.0};
}

pdk_view_status pdk_view_settings_check(const pdk_view_settings *s, char *why, size_t why_len)
{
    if (s == NULL) {
        if (why != NULL && why_len > 0) {
            snprintf(why, why_len, "no settings (NULL)");
        }
        return PDK_VIEW_EINVAL;
    }
    /* Each setting with its admissible range; a NaN fails every test. */
    const struct {
        const char *name;
        double value, lo, hi;
    } rows[] = {
        {"send_intervals", s->send_intervals, 0.0, 100.0},
        {"jitter_scale", s->jitter_scale, 0.0, 100.0},
        {"delay_floor_s", s->delay_floor_s, 0.0, 10.0},
        {"delay_max_s", s->delay_max_s, 0.0, 10.0},
        {"delay_slew", s->delay_slew, 0.0, 1.0},
        {"extrapolate_max_s", s->extrapolate_max_s, 0.0, 10.0},
        {"snap_distance_m", s->snap_distance_m, 0.0, 1e6},
        {"blend_time_s", s->blend_time_s, 0.0, 10.0},
        {"forget_after_s", s->forget_after_s, 0.0, 3600.0},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (!(rows[i].value >= rows[i].lo && rows[i].value <= rows[i].hi)) {
            if (why != NULL && why_len > 0) {
                snprintf(why, why_len, "%s is %g; it must lie in [%g, %g]", rows[i].name,
                         rows[i].value, rows[i].lo, rows[i].hi);
            }
            return PDK_VIEW_EINVAL;
        }
    }
    if (s->delay_max_s < s->delay_floor_s) {
        if (why != NULL && why_len > 0) {
            snprintf(why, why_len, "delay_max_s (%g s) is below delay_floor_s (%g s)",
                     s->delay_max_s, s->delay_floor_s);
        }
        return PDK_VIEW_EINVAL;
    }
    return PDK_VIEW_OK;
}

pdk_view_status pdk_view_init(pdk_view *v, pdk_view_track *tracks, size_t n_tracks,
                              const pdk_view_settings *settings)
{
    if (v == NULL) {
        return PDK_VIEW_EINVAL;
    }
    memset(v, 0, sizeof(*v));
    if (tracks == NULL || n_tracks == 0) {
        return fail(v, PDK_VIEW_EINVAL, "the view needs at least one track (got %s, %zu)",
                    tracks == NULL ? "NULL" : "an array", n_tracks);
    }
    if (settings != NULL) {
        char why[PDK_VIEW_ERR_LEN - 16];
        if (pdk_view_settings_check(settings, why, sizeof(why)) != PDK_VIEW_OK) {
            return fail(v, PDK_VIEW_EINVAL, "settings: %s", why);
        }
        v->set = *settings;
    } else {
        pdk_view_settings_default(&v->set);
    }
    memset(tracks, 0, n_tracks * sizeof(*tracks));
    v->tracks = tracks;
    v->n_tracks = n_tracks;
    return PDK_VIEW_OK;
}

/* ---- quaternions (w, x, y, z) -------------------------------------------- */

static void quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(out, r, sizeof(r));
}

static void quat_conj(const double q[4], double out[4])
{
    out[0] = q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = -q[3];
}

static void quat_normalise(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0) {
        for (int i = 0; i < 4; i++) {
            q[i] /= n;
        }
    } else {
        memcpy(q, IDENTITY, sizeof(IDENTITY));
    }
}

/* Spherical linear interpolation along the shorter arc (Shoemake,
 * "Animating rotation with quaternion curves", SIGGRAPH 1985); ends closer
 * than 3e-5 rad fall back to a normalised lerp, where slerp's sin(angle)
 * vanishes (the lerp's error there is below 1e-14 rad). */
static void quat_slerp(const double a[4], const double b[4], double u, double out[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double bb[4] = {b[0], b[1], b[2], b[3]};
    if (d < 0.0) {
        d = -d;
        for (int i = 0; i < 4; i++) {
            bb[i] = -bb[i];
        }
    }
    double wa, wb;
    if (d > 1.0 - 1e-10) {
        wa = 1.0 - u;
        wb = u;
    } else {
        double th = acos(d);
        double s = sin(th);
        wa = sin((1.0 - u) * th) / s;
        wb = sin(u * th) / s;
    }
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * bb[i];
    }
    quat_normalise(out);
}

void pdk_view_quat_from_euler(double yaw_rad, double pitch_rad, double roll_rad, double q[4])
{
    /* q = qz(yaw) qy(pitch) qx(roll): ZYX, right-handed about ISO 8855's
     * axes, so positive pitch is nose down and positive roll right side
     * down, as VehicleState reports them. */
    double cy = cos(0.5 * yaw_rad), sy = sin(0.5 * yaw_rad);
    double cp = cos(0.5 * pitch_rad), sp = sin(0.5 * pitch_rad);
    double cr = cos(0.5 * roll_rad), sr = sin(0.5 * roll_rad);
    q[0] = cy * cp * cr + sy * sp * sr;
    q[1] = cy * cp * sr - sy * sp * cr;
    q[2] = cy * sp * cr + sy * cp * sr;
    q[3] = sy * cp * cr - cy * sp * sr;
}

void pdk_view_euler_from_quat(const double q[4], double *yaw_rad, double *pitch_rad,
                              double *roll_rad)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double sp = 2.0 * (w * y - z * x);
    sp = sp > 1.0 ? 1.0 : (sp < -1.0 ? -1.0 : sp);
    *yaw_rad = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
    *pitch_rad = asin(sp);
    *roll_rad = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
}

static void sample_quat(const pdk_view_sample *s, double q[4])
{
    pdk_view_quat_from_euler(s->yaw_rad, s->pitch_rad, s->roll_rad, q);
}

/* ---- clock and delay ------------------------------------------------------ */

pdk_view_status pdk_view_clock_sample(pdk_view *v, int64_t offset_ns, uint64_t round_trip_ns)
{
    if (v == NULL) {
        return PDK_VIEW_EINVAL;
    }
    if (round_trip_ns == 0) {
        return fail(v, PDK_VIEW_EINVAL,
                    "a clock sample with a round trip of 0 ns was not measured");
    }
    v->clock_offsets_ns[v->n_clocks % PDK_VIEW_CLOCKS] = offset_ns;
    v->clock_rtts_ns[v->n_clocks % PDK_VIEW_CLOCKS] = round_trip_ns;
    v->n_clocks++;
    uint32_t n = v->n_clocks < PDK_VIEW_CLOCKS ? v->n_clocks : PDK_VIEW_CLOCKS;
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (v->clock_rtts_ns[i] < v->clock_rtts_ns[best]) {
            best = i;
        }
    }
    offset_ns = v->clock_offsets_ns[best];
    round_trip_ns = v->clock_rtts_ns[best];
    /* The transit the view measures includes the offset's error, and the
     * delay follows the transit: move both by the change, so the drawn time
     * (now + offset - delay) does not jump. */
    double change_s = (double)(offset_ns - v->offset_ns) / NS_PER_S;
    if (v->arrivals > 0) {
        v->latency_s += change_s;
        v->last_transit_s += change_s;
        v->delay_s += change_s;
        v->delay_target_s += change_s;
    }
    v->offset_ns = offset_ns;
    v->round_trip_ns = round_trip_ns;
    return PDK_VIEW_OK;
}

static double median_interval(const pdk_view *v)
{
    double sorted[PDK_VIEW_INTERVALS];
    uint32_t n = v->n_intervals < PDK_VIEW_INTERVALS ? v->n_intervals : PDK_VIEW_INTERVALS;
    memcpy(sorted, v->intervals_s, n * sizeof(double));
    for (uint32_t i = 1; i < n; i++) {
        double x = sorted[i];
        uint32_t j = i;
        for (; j > 0 && sorted[j - 1] > x; j--) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = x;
    }
    return n % 2u ? sorted[n / 2u] : 0.5 * (sorted[n / 2u - 1u] + sorted[n / 2u]);
}

/* Moves the delay toward its target by at most delay_slew per second of the
 * caller's clock since the last move. */
static void advance_delay(pdk_view *v, int64_t now_ns)
{
    double dt_s = (double)(now_ns - v->delay_at_ns) / NS_PER_S;
    if (dt_s <= 0.0) {
        return;
    }
    v->delay_at_ns = now_ns;
    double step = v->set.delay_slew * dt_s;
    double gap = v->delay_target_s - v->delay_s;
    v->delay_s += gap > step ? step : (gap < -step ? -step : gap);
}

pdk_view_status pdk_view_arrival(pdk_view *v, int64_t server_ns, int64_t arrival_ns)
{
    if (v == NULL) {
        return PDK_VIEW_EINVAL;
    }
    if (server_ns == 0) {
        return fail(v, PDK_VIEW_EINVAL,
                    "the batch has no wall_time_ns stamp: the server is too old for the view");
    }
    /* Transit: arrival minus the stamp on this machine's clock. */
    double transit_s = (double)(arrival_ns - (server_ns - v->offset_ns)) / NS_PER_S;
    if (v->arrivals == 0) {
        v->latency_s = transit_s;
        v->jitter_s = 0.0;
        v->last_server_ns = server_ns;
        v->delay_at_ns = arrival_ns;
    } else {
        v->jitter_s += (fabs(transit_s - v->last_transit_s) - v->jitter_s) * STATS_GAIN;
        v->latency_s += (transit_s - v->latency_s) * STATS_GAIN;
        if (server_ns > v->last_server_ns) {
            v->intervals_s[v->n_intervals % PDK_VIEW_INTERVALS] =
                (double)(server_ns - v->last_server_ns) / NS_PER_S;
            v->n_intervals++;
            v->interval_s = median_interval(v);
            v->last_server_ns = server_ns;
        }
    }
    v->last_transit_s = transit_s;
    v->last_arrival_ns = arrival_ns;
    v->arrivals++;

    double buffer_s = v->set.send_intervals * v->interval_s + v->set.jitter_scale * v->jitter_s;
    if (buffer_s < v->set.delay_floor_s) {
        buffer_s = v->set.delay_floor_s;
    }
    if (buffer_s > v->set.delay_max_s) {
        buffer_s = v->set.delay_max_s;
    }
    v->delay_target_s = v->latency_s + buffer_s;
    if (v->n_intervals < WARMUP_INTERVALS) {
        v->delay_s = v->delay_target_s;
        v->delay_at_ns = arrival_ns;
    } else {
        advance_delay(v, arrival_ns);
    }
    return PDK_VIEW_OK;
}

/* ---- samples -------------------------------------------------------------- */

void pdk_view_sample_from_state(const paddock_v1_VehicleState *vs, int64_t server_ns,
                                double sim_time_s, pdk_view_sample *out)
{
    memset(out, 0, sizeof(*out));
    out->vehicle_id = vs->vehicle_id;
    out->server_ns = server_ns;
    out->sim_time_s = sim_time_s;
    out->pos_m[0] = vs->x_m;
    out->pos_m[1] = vs->y_m;
    out->pos_m[2] = vs->z_m;
    /* vx, vy are in the body frame, vz in the world frame; turning the
     * horizontal part by the yaw alone leaves out pitch and roll, whose
     * cosines differ from 1 by under 0.2 % at 3 degrees. */
    double c = cos(vs->yaw_rad), s = sin(vs->yaw_rad);
    out->vel_mps[0] = c * vs->vx_mps - s * vs->vy_mps;
    out->vel_mps[1] = s * vs->vx_mps + c * vs->vy_mps;
    out->vel_mps[2] = vs->vz_mps;
    /* The extrapolation's acceleration is the velocity turning at the yaw
     * rate (a car in a steady turn: a = r x v), not the accelerometer's
     * ax, ay, which hold gravity's share along a tilted body. */
    out->acc_mps2[0] = -vs->yaw_rate_radps * out->vel_mps[1];
    out->acc_mps2[1] = vs->yaw_rate_radps * out->vel_mps[0];
    out->yaw_rad = vs->yaw_rad;
    out->pitch_rad = vs->pitch_rad;
    out->roll_rad = vs->roll_rad;
    out->yaw_rate_radps = vs->yaw_rate_radps;
    out->teleport_count = vs->teleport_count;
}

static const char *non_finite_field(const pdk_view_sample *s)
{
    static const char *const axes[3] = {"x", "y", "z"};
    static char name[32];
    for (int i = 0; i < 3; i++) {
        if (!isfinite(s->pos_m[i])) {
            snprintf(name, sizeof(name), "pos_m[%s]", axes[i]);
            return name;
        }
        if (!isfinite(s->vel_mps[i])) {
            snprintf(name, sizeof(name), "vel_mps[%s]", axes[i]);
            return name;
        }
        if (!isfinite(s->acc_mps2[i])) {
            snprintf(name, sizeof(name), "acc_mps2[%s]", axes[i]);
            return name;
        }
    }
    if (!isfinite(s->yaw_rad)) {
        return "yaw_rad";
    }
    if (!isfinite(s->pitch_rad)) {
        return "pitch_rad";
    }
    if (!isfinite(s->roll_rad)) {
        return "roll_rad";
    }
    if (!isfinite(s->yaw_rate_radps)) {
        return "yaw_rate_radps";
    }
    if (!isfinite(s->sim_time_s)) {
        return "sim_time_s";
    }
    return NULL;
}

static pdk_view_track *find_track(const pdk_view *v, uint32_t vehicle_id)
{
    for (size_t i = 0; i < v->n_tracks; i++) {
        if (v->tracks[i].used && v->tracks[i].vehicle_id == vehicle_id) {
            return &v->tracks[i];
        }
    }
    return NULL;
}

const pdk_view_track *pdk_view_track_of(const pdk_view *v, uint32_t vehicle_id)
{
    return v != NULL ? find_track(v, vehicle_id) : NULL;
}

/* A free track, or the one silent longest if that is over forget_after_s. */
static pdk_view_track *claim_track(pdk_view *v, int64_t arrival_ns)
{
    pdk_view_track *oldest = NULL;
    for (size_t i = 0; i < v->n_tracks; i++) {
        pdk_view_track *t = &v->tracks[i];
        if (!t->used) {
            return t;
        }
        if (oldest == NULL || t->last_arrival_ns < oldest->last_arrival_ns) {
            oldest = t;
        }
    }
    if (oldest != NULL &&
        (double)(arrival_ns - oldest->last_arrival_ns) / NS_PER_S > v->set.forget_after_s) {
        return oldest;
    }
    return NULL;
}

/* Empties a track's buffer and correction: its vehicle jumps to the next
 * sample. */
static void restart_track(pdk_view_track *t)
{
    t->n = 0;
    t->drawn = 0;
    memset(t->err_pos_m, 0, sizeof(t->err_pos_m));
    memcpy(t->err_quat, IDENTITY, sizeof(IDENTITY));
}

/* Cubic Hermite between samples a and b at fraction u (Hermite basis, e.g.
 * Kochanek and Bartels 1984): positions and tangents, the tangents being the
 * velocities times the sim time between the samples (velocities are per
 * sim second; a replay at another speed keeps them right). */
static void hermite(const pdk_view_sample *a, const pdk_view_sample *b, double u, double out[3])
{
    double h_s = b->sim_time_s - a->sim_time_s;
    if (!(h_s > 0.0)) {
        h_s = (double)(b->server_ns - a->server_ns) / NS_PER_S;
    }
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
    double h10 = u3 - 2.0 * u2 + u;
    double h01 = -2.0 * u3 + 3.0 * u2;
    double h11 = u3 - u2;
    for (int i = 0; i < 3; i++) {
        out[i] = h00 * a->pos_m[i] + h10 * h_s * a->vel_mps[i] + h01 * b->pos_m[i] +
                 h11 * h_s * b->vel_mps[i];
    }
}

pdk_view_mode pdk_view_track_eval(const pdk_view_track *t, const pdk_view_settings *set,
                                  int64_t t_ns, double pos_m[3], double quat[4])
{
    if (t->n <= 0) {
        memset(pos_m, 0, 3 * sizeof(double));
        memcpy(quat, IDENTITY, sizeof(IDENTITY));
        return PDK_VIEW_WAITING;
    }
    const pdk_view_sample *first = &t->s[0];
    const pdk_view_sample *last = &t->s[t->n - 1];
    if (t_ns <= first->server_ns) {
        memcpy(pos_m, first->pos_m, 3 * sizeof(double));
        sample_quat(first, quat);
        return t_ns == first->server_ns && t->n == 1 ? PDK_VIEW_INTERPOLATING : PDK_VIEW_WAITING;
    }
    for (int i = 0; i + 1 < t->n; i++) {
        const pdk_view_sample *a = &t->s[i], *b = &t->s[i + 1];
        if (t_ns <= b->server_ns) {
            double u = (double)(t_ns - a->server_ns) / (double)(b->server_ns - a->server_ns);
            double qa[4], qb[4];
            hermite(a, b, u, pos_m);
            sample_quat(a, qa);
            sample_quat(b, qb);
            quat_slerp(qa, qb, u, quat);
            return PDK_VIEW_INTERPOLATING;
        }
    }
    /* Past the newest sample: the motion continues on the arc the velocity
     * and yaw rate describe, for at most extrapolate_max_s, then holds. */
    double ahead_s = (double)(t_ns - last->server_ns) / NS_PER_S;
    pdk_view_mode mode = PDK_VIEW_EXTRAPOLATING;
    if (ahead_s > set->extrapolate_max_s) {
        ahead_s = set->extrapolate_max_s;
        mode = PDK_VIEW_HOLDING;
    }
    /* Sim seconds per wall second from the last two samples (1 live; a
     * replay may run faster or slower). */
    double rate = 1.0;
    if (t->n >= 2) {
        const pdk_view_sample *prev = &t->s[t->n - 2];
        double wall_s = (double)(last->server_ns - prev->server_ns) / NS_PER_S;
        double sim_s = last->sim_time_s - prev->sim_time_s;
        if (wall_s > 0.0 && sim_s > 0.0) {
            rate = sim_s / wall_s;
        }
    }
    double e = ahead_s * rate;
    for (int i = 0; i < 3; i++) {
        pos_m[i] = last->pos_m[i] + last->vel_mps[i] * e + 0.5 * last->acc_mps2[i] * e * e;
    }
    double q_last[4], turn[4];
    sample_quat(last, q_last);
    double half = 0.5 * last->yaw_rate_radps * e;
    turn[0] = cos(half);
    turn[1] = 0.0;
    turn[2] = 0.0;
    turn[3] = sin(half);
    quat_mul(turn, q_last, quat);
    return mode;
}

pdk_view_status pdk_view_push(pdk_view *v, const pdk_view_sample *s, int64_t arrival_ns)
{
    if (v == NULL || s == NULL) {
        return fail(v, PDK_VIEW_EINVAL, "no sample (NULL)");
    }
    const char *bad = non_finite_field(s);
    if (bad != NULL) {
        v->dropped++;
        return fail(v, PDK_VIEW_EINVAL, "vehicle %u's sample has a non-finite %s", s->vehicle_id,
                    bad);
    }
    pdk_view_track *t = find_track(v, s->vehicle_id);
    if (t == NULL) {
        t = claim_track(v, arrival_ns);
        if (t == NULL) {
            v->dropped++;
            return fail(v, PDK_VIEW_EFULL,
                        "no track free for vehicle %u: all %zu hold vehicles heard from in the "
                        "last %g s (give the view more tracks)",
                        s->vehicle_id, v->n_tracks, v->set.forget_after_s);
        }
        memset(t, 0, sizeof(*t));
        t->used = 1;
        t->vehicle_id = s->vehicle_id;
        t->teleport_count = s->teleport_count;
        restart_track(t);
    } else if ((int32_t)(s->teleport_count - t->teleport_count) < 0) {
        /* The counter only grows (modulo 2^32): a late sample from before
         * the jump is not drawn. */
        v->dropped++;
        return fail(v, PDK_VIEW_ESTALE,
                    "vehicle %u's sample has teleport_count %u, older than the %u drawn",
                    s->vehicle_id, s->teleport_count, t->teleport_count);
    } else if (s->teleport_count != t->teleport_count) {
        /* A reset or a seek moved the vehicle without travelling: drop what
         * came before and jump. */
        restart_track(t);
        t->teleport_count = s->teleport_count;
        t->teleports++;
    }
    /* Insert in stamp order; a sample older than all kept, or a duplicate,
     * comes too late to be drawn. */
    int at = t->n;
    while (at > 0 && t->s[at - 1].server_ns > s->server_ns) {
        at--;
    }
    if ((at > 0 && t->s[at - 1].server_ns == s->server_ns) || (at == 0 && t->n > 0)) {
        v->dropped++;
        return fail(v, PDK_VIEW_ESTALE,
                    "vehicle %u's sample stamped %lld ns is older than every sample kept "
                    "or repeats one",
                    s->vehicle_id, (long long)s->server_ns);
    }
    if (t->n == PDK_VIEW_SAMPLES) {
        memmove(&t->s[0], &t->s[1], (size_t)(PDK_VIEW_SAMPLES - 1) * sizeof(t->s[0]));
        t->n--;
        at--;
    }
    memmove(&t->s[at + 1], &t->s[at], (size_t)(t->n - at) * sizeof(t->s[0]));
    t->s[at] = *s;
    t->n++;
    t->last_arrival_ns = arrival_ns;

    /* What was drawn last stays where it was: the difference between it and
     * what the samples now say for that moment becomes the correction to
     * ease out, unless it is a snap. */
    if (t->drawn) {
        double raw_pos[3], raw_q[4], inv[4];
        pdk_view_track_eval(t, &v->set, t->drawn_server_ns, raw_pos, raw_q);
        double d2 = 0.0;
        for (int i = 0; i < 3; i++) {
            t->err_pos_m[i] = t->drawn_pos_m[i] - raw_pos[i];
            d2 += t->err_pos_m[i] * t->err_pos_m[i];
        }
        quat_conj(raw_q, inv);
        quat_mul(t->drawn_quat, inv, t->err_quat);
        quat_normalise(t->err_quat);
        if (sqrt(d2) > v->set.snap_distance_m) {
            memset(t->err_pos_m, 0, sizeof(t->err_pos_m));
            memcpy(t->err_quat, IDENTITY, sizeof(IDENTITY));
            t->snaps++;
        }
    }
    return PDK_VIEW_OK;
}

pdk_view_status pdk_view_push_batch(pdk_view *v, const paddock_v1_StateBatch *b,
                                    int64_t arrival_ns)
{
    if (v == NULL || b == NULL) {
        return fail(v, PDK_VIEW_EINVAL, "no batch (NULL)");
    }
    /* A tick split into parts (StateBatch.part) has one wall time: its
     * first part's arrival stands for the tick's. */
    pdk_view_status st =
        b->part == 0u ? pdk_view_arrival(v, (int64_t)b->wall_time_ns, arrival_ns) : PDK_VIEW_OK;
    if (st != PDK_VIEW_OK) {
        return st;
    }
    pdk_view_status first = PDK_VIEW_OK;
    char first_error[PDK_VIEW_ERR_LEN] = "";
    for (pb_size_t i = 0; i < b->vehicles_count; i++) {
        pdk_view_sample s;
        pdk_view_sample_from_state(&b->vehicles[i], (int64_t)b->wall_time_ns, b->sim_time_s,
                                   &s);
        st = pdk_view_push(v, &s, arrival_ns);
        if (st != PDK_VIEW_OK && first == PDK_VIEW_OK) {
            first = st;
            memcpy(first_error, v->error, sizeof(first_error));
        }
    }
    if (first != PDK_VIEW_OK) {
        memcpy(v->error, first_error, sizeof(first_error));
    }
    return first;
}

pdk_view_status pdk_view_draw(pdk_view *v, uint32_t vehicle_id, int64_t now_ns,
                              pdk_view_pose *out)
{
    if (v == NULL || out == NULL) {
        return fail(v, PDK_VIEW_EINVAL, "no view or pose (NULL)");
    }
    pdk_view_track *t = find_track(v, vehicle_id);
    if (t == NULL || t->n == 0) {
        return fail(v, PDK_VIEW_ENOTFOUND, "the view has no sample of vehicle %u", vehicle_id);
    }
    advance_delay(v, now_ns);
    int64_t drawn_ns = now_ns + v->offset_ns - (int64_t)llround(v->delay_s * NS_PER_S);
    double raw_pos[3], raw_q[4];
    pdk_view_mode mode = pdk_view_track_eval(t, &v->set, drawn_ns, raw_pos, raw_q);
    if (t->drawn) {
        /* The correction decays with time constant blend_time_s. */
        double dt_s = (double)(now_ns - t->drawn_at_ns) / NS_PER_S;
        double keep = v->set.blend_time_s > 0.0 && dt_s >= 0.0 ? exp(-dt_s / v->set.blend_time_s)
                                                               : 0.0;
        for (int i = 0; i < 3; i++) {
            t->err_pos_m[i] *= keep;
        }
        quat_slerp(IDENTITY, t->err_quat, keep, t->err_quat);
    }
    memset(out, 0, sizeof(*out));
    out->vehicle_id = vehicle_id;
    for (int i = 0; i < 3; i++) {
        out->pos_m[i] = raw_pos[i] + t->err_pos_m[i];
    }
    quat_mul(t->err_quat, raw_q, out->quat);
    quat_normalise(out->quat);
    pdk_view_euler_from_quat(out->quat, &out->yaw_rad, &out->pitch_rad, &out->roll_rad);
    out->mode = mode;
    out->drawn_server_ns = drawn_ns;

    t->drawn = 1;
    t->drawn_at_ns = now_ns;
    t->drawn_server_ns = drawn_ns;
    memcpy(t->drawn_pos_m, out->pos_m, sizeof(t->drawn_pos_m));
    memcpy(t->drawn_quat, out->quat, sizeof(t->drawn_quat));
    return PDK_VIEW_OK;
}

pdk_view_status pdk_view_forget(pdk_view *v, uint32_t vehicle_id)
{
    if (v == NULL) {
        return PDK_VIEW_EINVAL;
    }
    pdk_view_track *t = find_track(v, vehicle_id);
    if (t == NULL) {
        return fail(v, PDK_VIEW_ENOTFOUND, "the view has no track of vehicle %u", vehicle_id);
    }
    memset(t, 0, sizeof(*t));
    return PDK_VIEW_OK;
}

const char *pdk_view_status_name(pdk_view_status st)
{
    switch (st) {
    case PDK_VIEW_OK:
        return "ok";
    case PDK_VIEW_EINVAL:
        return "invalid argument";
    case PDK_VIEW_EFULL:
        return "no free track";
    case PDK_VIEW_ESTALE:
        return "stale sample";
    case PDK_VIEW_ENOTFOUND:
        return "no such vehicle";
    }
    return "unknown status";
}
