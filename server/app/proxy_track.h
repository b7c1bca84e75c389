/* A hosted proxy's track: the poses its owner streamed, on the session's
 * sim time, and the pose the server gives the kinematic body at a tick's
 * time. Between two samples the position follows the cubic Hermite curve
 * through their positions and velocities and the attitude the slerp of
 * their quaternions; past the newest sample it is extrapolated at the
 * sample's velocities for at most PDK_PROXY_EXTRAPOLATE_MAX_S, then held.
 * The track also keeps when its owner was last heard, which decides the
 * freeze and the removal (docs/multiplayer.md "Hosting a proxy", ADR 0028).
 * Plain data, no clock: the session passes sim time in; nothing here is
 * state of the world (the pose it gives is recorded as an input). */
#ifndef PDK_PROXY_TRACK_H
#define PDK_PROXY_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/contact.h"
#include "sim/error.h"
#include "sim/world.h"

#define PDK_PROXY_SAMPLES 16             /* the newest samples a track keeps */
#define PDK_PROXY_EXTRAPOLATE_MAX_S 0.25 /* past the newest sample, then held */
#define PDK_PROXY_FREEZE_S 0.5           /* owner silent this long: frozen */
#define PDK_PROXY_REMOVE_S 5.0           /* owner silent this long: removed */
#define PDK_PROXY_QUAT_NORM_TOL 0.01     /* | |q| - 1 | an owner's pose may have */

/* A sample and what the track gives are sim/contact.h's pdk_proxy_pose:
 * the hull's centre and velocities in the world frame (ISO 8855, z up),
 * attitude body to world as a unit quaternion (w, x, y, z). */

/* How the pose at a time was made. */
typedef enum pdk_proxy_mode {
    PDK_PROXY_MODE_INTERPOLATED = 0, /* between two samples */
    PDK_PROXY_MODE_EXTRAPOLATED,     /* past the newest, within the cap */
    PDK_PROXY_MODE_HELD,             /* past the cap, or before the oldest: still */
    PDK_PROXY_MODE_FROZEN,           /* its owner is silent: still */
} pdk_proxy_mode;

typedef struct pdk_proxy_track {
    int64_t offset_ns;             /* sim time in ns = owner time in ns + this */
    uint64_t newest_owner_ns;      /* the newest sample's owner time */
    double t_s[PDK_PROXY_SAMPLES]; /* sample times on sim time, ascending */
    pdk_proxy_pose pose[PDK_PROXY_SAMPLES];
    int n;          /* samples held, oldest first */
    double heard_s; /* sim time the newest sample arrived */
    bool frozen;
    pdk_proxy_pose frozen_pose; /* where it stands while frozen */
} pdk_proxy_track;

/* NULL when p may be an owner's sample, else what is wrong with it (a
 * static string naming the field and its bound): a non-finite number, a
 * position past PDK_WORLD_MAX_POSITION_M, a speed or angular rate past the
 * world's proxy bounds (sim/contact.h), a quaternion whose norm is off 1 by
 * more than PDK_PROXY_QUAT_NORM_TOL (the track normalises it). */
const char *pdk_proxy_pose_problem(const pdk_proxy_pose *p);

/* p's quaternion scaled to unit length (what the world takes). */
void pdk_proxy_pose_normalise(pdk_proxy_pose *p);

/* A track whose first sample is first (checked by pdk_proxy_pose_problem,
 * its quaternion normalised here), taken at owner time owner_ns when the
 * session's sim time is now_s: that pair fixes the offset between the two
 * clocks for the track's life. */
void pdk_proxy_track_start(pdk_proxy_track *t, uint64_t owner_ns, const pdk_proxy_pose *first,
                           double now_s);

/* Adds sample p (checked, normalised here) of owner time owner_ns that
 * arrived at sim time now_s. False, and nothing kept, when it is not newer
 * than the newest sample (reordered on the way: latest wins). A taken
 * sample unfreezes a frozen track; *resumed says so. */
bool pdk_proxy_track_push(pdk_proxy_track *t, uint64_t owner_ns, const pdk_proxy_pose *p,
                          double now_s, bool *resumed);

/* The pose for sim time at_s (see the file's comment), and how it was
 * made; its speed and angular rate within the world's bounds (a Hermite
 * curve between two samples may overshoot them slightly: clamped). */
pdk_proxy_mode pdk_proxy_track_at(const pdk_proxy_track *t, double at_s, pdk_proxy_pose *out);

/* What the owner's silence at sim time now_s asks for. */
typedef enum pdk_proxy_silence {
    PDK_PROXY_HEARD = 0,
    PDK_PROXY_FREEZE, /* freeze now (once: the track is marked frozen) */
    PDK_PROXY_REMOVE, /* silent past PDK_PROXY_REMOVE_S */
} pdk_proxy_silence;

/* Checks the owner's silence at now_s; a freeze holds the track at its pose
 * at now_s from then on. */
pdk_proxy_silence pdk_proxy_track_silence(pdk_proxy_track *t, double now_s);

#endif
