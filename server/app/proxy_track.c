/* A hosted proxy's track (proxy_track.h): samples kept in time order, the
 * pose at a time by cubic Hermite interpolation of position (Foley, van
 * Dam, Feiner and Hughes, "Computer Graphics: Principles and Practice",
 * 2nd ed., §11.2.1, Hermite curves) and slerp of attitude (Shoemake,
 * "Animating Rotation with Quaternion Curves", SIGGRAPH 1985), bounded
 * extrapolation, and the owner's silence. */
#include <math.h>
#include <string.h>

#include "proxy_track.h"

static bool finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static double quat_norm(const double q[4])
{
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

static void quat_normalise(double q[4])
{
    double n = quat_norm(q);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
}

const char *pdk_proxy_pose_problem(const pdk_proxy_pose *p)
{
    if (!finite3(p->pos_m))
        return "the position (x_m, y_m, z_m) is not finite";
    if (!isfinite(p->quat[0]) || !isfinite(p->quat[1]) || !isfinite(p->quat[2]) ||
        !isfinite(p->quat[3]))
        return "the attitude quaternion (qw, qx, qy, qz) is not finite";
    if (!finite3(p->vel_mps))
        return "the velocity (vx_mps, vy_mps, vz_mps) is not finite";
    if (!finite3(p->omega_radps))
        return "the angular velocity (wx_radps, wy_radps, wz_radps) is not finite";
    for (int i = 0; i < 3; i++)
        if (fabs(p->pos_m[i]) > PDK_WORLD_MAX_POSITION_M)
            return "the position is beyond the world's bound (|x|, |y|, |z| at most 1e7 m)";
    if (fabs(quat_norm(p->quat) - 1.0) > PDK_PROXY_QUAT_NORM_TOL)
        return "the attitude quaternion's norm is not 1 (within 0.01)";
    if (norm3(p->vel_mps) > PDK_PROXY_MAX_SPEED_MPS)
        return "the speed is above the proxy bound (150 m/s)";
    if (norm3(p->omega_radps) > PDK_PROXY_MAX_RATE_RADPS)
        return "the angular rate is above the proxy bound (20 rad/s)";
    return NULL;
}

void pdk_proxy_pose_normalise(pdk_proxy_pose *p)
{
    quat_normalise(p->quat);
}

/* The sim time in s of owner time owner_ns on track t. */
static double sim_time_of(const pdk_proxy_track *t, uint64_t owner_ns)
{
    return (double)((int64_t)owner_ns + t->offset_ns) * 1e-9;
}

void pdk_proxy_track_start(pdk_proxy_track *t, uint64_t owner_ns, const pdk_proxy_pose *first,
                           double now_s)
{
    memset(t, 0, sizeof(*t));
    t->offset_ns = (int64_t)llround(now_s * 1e9) - (int64_t)owner_ns;
    t->newest_owner_ns = owner_ns;
    t->t_s[0] = sim_time_of(t, owner_ns);
    t->pose[0] = *first;
    pdk_proxy_pose_normalise(&t->pose[0]);
    t->n = 1;
    t->heard_s = now_s;
}

bool pdk_proxy_track_push(pdk_proxy_track *t, uint64_t owner_ns, const pdk_proxy_pose *p,
                          double now_s, bool *resumed)
{
    *resumed = false;
    if (owner_ns <= t->newest_owner_ns)
        return false;
    if (t->n == PDK_PROXY_SAMPLES) {
        memmove(&t->t_s[0], &t->t_s[1], (PDK_PROXY_SAMPLES - 1) * sizeof(t->t_s[0]));
        memmove(&t->pose[0], &t->pose[1], (PDK_PROXY_SAMPLES - 1) * sizeof(t->pose[0]));
        t->n--;
    }
    t->t_s[t->n] = sim_time_of(t, owner_ns);
    t->pose[t->n] = *p;
    pdk_proxy_pose_normalise(&t->pose[t->n]);
    t->n++;
    t->newest_owner_ns = owner_ns;
    t->heard_s = now_s;
    if (t->frozen) {
        t->frozen = false;
        *resumed = true;
    }
    return true;
}

/* The shorter-arc slerp from a to b at s in [0, 1] (Shoemake 1985). The
 * angle between them comes from atan2 of |a - b| and |a + b|, exact at
 * small angles where acos of the dot product loses digits; at a zero angle,
 * a. */
static void slerp(const double a[4], const double b[4], double s, double out[4])
{
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sign = dot < 0.0 ? -1.0 : 1.0;
    double d2 = 0.0, s2 = 0.0;
    for (int i = 0; i < 4; i++) {
        double bi = sign * b[i];
        d2 += (a[i] - bi) * (a[i] - bi);
        s2 += (a[i] + bi) * (a[i] + bi);
    }
    double theta = 2.0 * atan2(sqrt(d2), sqrt(s2)); /* the angle between a and +-b in R^4 */
    double wa = 1.0 - s, wb = s * sign;
    if (theta > 1e-12) {
        double st = sin(theta);
        wa = sin((1.0 - s) * theta) / st;
        wb = sign * sin(s * theta) / st;
    }
    for (int i = 0; i < 4; i++)
        out[i] = wa * a[i] + wb * b[i];
    quat_normalise(out);
}

/* q turned by the world-frame angular velocity omega for dt seconds:
 * exp(omega dt / 2) * q. */
static void quat_advance(const double q[4], const double omega[3], double dt, double out[4])
{
    double w = norm3(omega);
    double half = 0.5 * w * dt;
    double c = cos(half), k = w > 0.0 ? sin(half) / w : 0.5 * dt;
    double r[4] = {c, k * omega[0], k * omega[1], k * omega[2]};
    out[0] = r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3];
    out[1] = r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2];
    out[2] = r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1];
    out[3] = r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0];
    quat_normalise(out);
}

/* p extrapolated dt seconds at its velocities (constant). */
static void extrapolate(const pdk_proxy_pose *p, double dt, pdk_proxy_pose *out)
{
    *out = *p;
    for (int i = 0; i < 3; i++)
        out->pos_m[i] = p->pos_m[i] + p->vel_mps[i] * dt;
    quat_advance(p->quat, p->omega_radps, dt, out->quat);
}

static void still(pdk_proxy_pose *p)
{
    memset(p->vel_mps, 0, sizeof(p->vel_mps));
    memset(p->omega_radps, 0, sizeof(p->omega_radps));
}

/* Between samples a (at ta) and b (at tb > ta), at t: position and
 * velocity on the cubic Hermite curve, attitude by slerp, angular velocity
 * linear. */
static void interpolate(const pdk_proxy_pose *a, const pdk_proxy_pose *b, double ta, double tb,
                        double t, pdk_proxy_pose *out)
{
    double h = tb - ta, s = (t - ta) / h;
    double s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s;
    double h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1;
    double d01 = -6 * s2 + 6 * s, d11 = 3 * s2 - 2 * s;
    for (int i = 0; i < 3; i++) {
        out->pos_m[i] = h00 * a->pos_m[i] + h10 * h * a->vel_mps[i] + h01 * b->pos_m[i] +
                        h11 * h * b->vel_mps[i];
        out->vel_mps[i] =
            (d00 * a->pos_m[i] + d01 * b->pos_m[i]) / h + d10 * a->vel_mps[i] + d11 * b->vel_mps[i];
        out->omega_radps[i] = (1 - s) * a->omega_radps[i] + s * b->omega_radps[i];
    }
    slerp(a->quat, b->quat, s, out->quat);
}

/* v scaled down to length max when it is longer. */
static void clamp3(double v[3], double max)
{
    double n = norm3(v);
    if (n > max)
        for (int i = 0; i < 3; i++)
            v[i] *= max / n;
}

static pdk_proxy_mode track_at(const pdk_proxy_track *t, double at_s, pdk_proxy_pose *out)
{
    if (t->frozen) {
        *out = t->frozen_pose;
        return PDK_PROXY_MODE_FROZEN;
    }
    if (at_s <= t->t_s[0]) {
        *out = t->pose[0];
        if (at_s == t->t_s[0])
            return PDK_PROXY_MODE_INTERPOLATED;
        still(out);
        return PDK_PROXY_MODE_HELD;
    }
    int last = t->n - 1;
    if (at_s >= t->t_s[last]) {
        double dt = at_s - t->t_s[last];
        if (dt <= PDK_PROXY_EXTRAPOLATE_MAX_S) {
            extrapolate(&t->pose[last], dt, out);
            return PDK_PROXY_MODE_EXTRAPOLATED;
        }
        extrapolate(&t->pose[last], PDK_PROXY_EXTRAPOLATE_MAX_S, out);
        still(out);
        return PDK_PROXY_MODE_HELD;
    }
    int i = last - 1;
    while (t->t_s[i] > at_s)
        i--;
    interpolate(&t->pose[i], &t->pose[i + 1], t->t_s[i], t->t_s[i + 1], at_s, out);
    return PDK_PROXY_MODE_INTERPOLATED;
}

pdk_proxy_mode pdk_proxy_track_at(const pdk_proxy_track *t, double at_s, pdk_proxy_pose *out)
{
    pdk_proxy_mode mode = track_at(t, at_s, out);
    clamp3(out->vel_mps, PDK_PROXY_MAX_SPEED_MPS);
    clamp3(out->omega_radps, PDK_PROXY_MAX_RATE_RADPS);
    return mode;
}

pdk_proxy_silence pdk_proxy_track_silence(pdk_proxy_track *t, double now_s)
{
    double silent_s = now_s - t->heard_s;
    if (silent_s > PDK_PROXY_REMOVE_S)
        return PDK_PROXY_REMOVE;
    if (silent_s > PDK_PROXY_FREEZE_S && !t->frozen) {
        pdk_proxy_pose p;
        pdk_proxy_track_at(t, now_s, &p);
        still(&p);
        t->frozen_pose = p;
        t->frozen = true;
        return PDK_PROXY_FREEZE;
    }
    return PDK_PROXY_HEARD;
}
