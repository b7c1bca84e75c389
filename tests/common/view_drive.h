/* A recorded 120 Hz drive of the real simulator for the proxy view's
 * measured error (issue 29, ADR 0029's amendment): the sim library, in
 * process, steps the default car (pdk_vehicle_def_default, the four-wheel
 * model) through a drive script at 120 Hz, and every tick's
 * pdk_vehicle_pose is kept, as the server would send it in a StateBatch
 * (server/wire/wire.c, pdk_wire_state_from_pose). The sim is
 * deterministic, so every run records the same drive, bit for bit.
 *
 * The drives (a driver in the loop: speed on throttle and brake, yaw rate
 * on the steering wheel, each a PI controller):
 *  - turn: 30 m/s on a 0.5 g circle (yaw rate 0.5 g / v), the issue's
 *    case; the car settles for 5 s before the recording starts;
 *  - mixed: full throttle from 20 m/s to 35 m/s and braking back, every
 *    8 s, under a weave whose lateral acceleration swings +-0.35 g with a
 *    4 s period.
 *
 * The true pose between two ticks is a cubic Hermite of the two recorded
 * poses and their recorded velocities (position: the world-frame velocity;
 * heading: the yaw rate), the reference's own error is vd_reference_error_m
 * (below): it is small against the errors measured (micrometres against
 * centimetres).
 *
 * Shared by tests/unit/test_view.c and tests/bench/bench_view.c through
 * view_network.h; the includer links pdk_sim. */
#ifndef PDK_VIEW_DRIVE_H
#define PDK_VIEW_DRIVE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world.h"

#define VD_TICK_HZ 120
#define VD_G_MPS2 9.80665
#define VD_SETTLE_S 5.0
/* Ticks a recording holds: 60 s, bench_view's longest case, and one. */
#define VD_MAX_TICKS (60 * VD_TICK_HZ + 1)

typedef enum vd_drive { VD_TURN = 0, VD_MIXED = 1 } vd_drive;

/* One tick of a recording: the pose the server would send, and its
 * world-frame horizontal velocity (the body-frame vx, vy turned by the
 * heading, as the proxy view turns them). */
typedef struct vd_tick {
    pdk_vehicle_pose pose;
    double vel_mps[3];
} vd_tick;

typedef struct vd_recording {
    vd_drive drive;
    uint32_t n; /* ticks held: tick k is at k / 120 s */
    vd_tick ticks[VD_MAX_TICKS];
} vd_recording;

/* The driver's targets at t_s seconds into the script (negative during the
 * settling before the recording). */
static inline void vd_targets(vd_drive drive, double t_s, double speed_mps, double *target_mps,
                              double *yaw_rate_radps)
{
    double v = fmax(speed_mps, 5.0);
    if (drive == VD_TURN) {
        *target_mps = 30.0;
        *yaw_rate_radps = 0.5 * VD_G_MPS2 / v;
        return;
    }
    /* 8 s at 35 m/s, 8 s at 20 m/s: the car accelerates and brakes
     * between them. */
    double phase = fmod(t_s + 16.0, 16.0);
    *target_mps = phase < 8.0 ? 35.0 : 20.0;
    *yaw_rate_radps = 0.35 * VD_G_MPS2 * sin(2.0 * M_PI * t_s / 4.0) / v;
}

static inline double vd_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* Records duration_s of the drive into rec. Returns 0, or -1 when the sim
 * refuses the world or the car, the drive does not fit, or the car
 * faults. */
static inline int vd_record(vd_drive drive, double duration_s, vd_recording *rec)
{
    uint32_t n = (uint32_t)lround(duration_s * VD_TICK_HZ) + 1u;
    if (n > VD_MAX_TICKS) {
        return -1;
    }
    pdk_world_def wd = pdk_world_def_default();
    wd.max_vehicles = 1;
    size_t bytes = pdk_world_mem_size(&wd);
    bytes = (bytes + 15u) & ~(size_t)15u;
    void *mem = aligned_alloc(16, bytes);
    pdk_world *w = NULL;
    if (mem == NULL || pdk_world_init(mem, bytes, &wd, &w) != PDK_OK) {
        free(mem);
        return -1;
    }
    pdk_vehicle_def def = pdk_vehicle_def_default();
    pdk_pose start = {0.0, 0.0, 0.0};
    pdk_vehicle_id id = 0;
    double v0 = drive == VD_TURN ? 30.0 : 20.0;
    if (pdk_world_spawn(w, &def, &start, v0, PDK_GEAR_DRIVE, &id) != PDK_OK) {
        free(mem);
        return -1;
    }
    /* Feedforward of the steering wheel for a yaw rate: the kinematic
     * (Ackermann) road-wheel angle L r / v times the steering ratio; the
     * integral takes up the car's understeer. */
    const double wheelbase_m = def.chassis.wheelbase_m, ratio = def.steering.ratio;
    const double dt_s = 1.0 / VD_TICK_HZ;
    const int settle = (int)lround(VD_SETTLE_S * VD_TICK_HZ);
    double speed_int = 0.0, yaw_int_deg = 0.0;
    int rc = 0;
    rec->drive = drive;
    rec->n = 0;
    for (int k = -settle; k < (int)n; k++) {
        pdk_vehicle_pose p;
        if (pdk_world_vehicle_pose(w, id, &p) != PDK_OK || p.faulted != 0) {
            rc = -1;
            break;
        }
        if (k >= 0) {
            vd_tick *t = &rec->ticks[rec->n++];
            t->pose = p;
            double c = cos(p.yaw_rad), s = sin(p.yaw_rad);
            t->vel_mps[0] = c * p.vx_mps - s * p.vy_mps;
            t->vel_mps[1] = s * p.vx_mps + c * p.vy_mps;
            t->vel_mps[2] = p.vz_mps;
        }
        if (k == (int)n - 1) {
            break;
        }
        double target_mps, target_radps;
        vd_targets(drive, (double)k * dt_s, p.speed_mps, &target_mps, &target_radps);
        double ev = target_mps - p.speed_mps;
        speed_int = vd_clamp(speed_int + ev * dt_s, -10.0, 10.0);
        double pull = 40.0 * ev + 20.0 * speed_int;
        pdk_dbw_cmd cmd;
        memset(&cmd, 0, sizeof(cmd));
        cmd.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER;
        cmd.throttle_pct = vd_clamp(pull, 0.0, 100.0);
        cmd.brake_bar = vd_clamp(-pull, 0.0, 40.0);
        double er = target_radps - p.yaw_rate_radps;
        yaw_int_deg = vd_clamp(yaw_int_deg + 60.0 * er * dt_s * 180.0 / M_PI, -90.0, 90.0);
        double ff_deg =
            ratio * atan(wheelbase_m * target_radps / fmax(p.speed_mps, 5.0)) * 180.0 / M_PI;
        cmd.steer_wheel_deg =
            vd_clamp(ff_deg + yaw_int_deg + 20.0 * er * 180.0 / M_PI, -400.0, 400.0);
        if (pdk_world_command(w, id, &cmd) != PDK_OK) {
            rc = -1;
            break;
        }
        pdk_world_step(w);
    }
    free(mem);
    return rc;
}

/* Cubic Hermite between (p0, v0) at s = 0 and (p1, v1) at s = 1 over h
 * seconds (Burden & Faires, Numerical Analysis, 3.5). */
static inline double vd_hermite(double p0, double v0, double p1, double v1, double h, double s)
{
    double s2 = s * s, s3 = s2 * s;
    return (2.0 * s3 - 3.0 * s2 + 1.0) * p0 + (s3 - 2.0 * s2 + s) * h * v0 +
           (-2.0 * s3 + 3.0 * s2) * p1 + (s3 - s2) * h * v1;
}

/* The true position and heading at t_s between recorded ticks a and b
 * (b > a), from theirs and their rates. */
static inline void vd_between(const vd_recording *rec, uint32_t a, uint32_t b, double t_s,
                              double pos_m[3], double *yaw_rad)
{
    const vd_tick *ta = &rec->ticks[a], *tb = &rec->ticks[b];
    double h = (double)(b - a) / VD_TICK_HZ;
    double s = (t_s - (double)a / VD_TICK_HZ) / h;
    const double pa[3] = {ta->pose.x_m, ta->pose.y_m, ta->pose.z_m};
    const double pb[3] = {tb->pose.x_m, tb->pose.y_m, tb->pose.z_m};
    for (int i = 0; i < 3; i++) {
        pos_m[i] = vd_hermite(pa[i], ta->vel_mps[i], pb[i], tb->vel_mps[i], h, s);
    }
    /* The heading unwrapped across +-pi; the yaw rate stands for the
     * heading's rate (they differ by the roll and pitch, a few degrees:
     * under 0.2 %). */
    double yb = ta->pose.yaw_rad + remainder(tb->pose.yaw_rad - ta->pose.yaw_rad, 2.0 * M_PI);
    *yaw_rad =
        vd_hermite(ta->pose.yaw_rad, ta->pose.yaw_rate_radps, yb, tb->pose.yaw_rate_radps, h, s);
}

/* The true position, heading and (from the nearer tick) the rest at t_s,
 * clamped to the recording. */
static inline void vd_truth_at(const vd_recording *rec, double t_s, double pos_m[3],
                               double *yaw_rad, const vd_tick **nearest)
{
    double k = t_s * VD_TICK_HZ;
    uint32_t a;
    if (!(k > 0.0)) {
        a = 0;
        t_s = 0.0;
    } else if (k >= (double)(rec->n - 1u)) {
        a = rec->n - 2u;
        t_s = (double)(rec->n - 1u) / VD_TICK_HZ;
    } else {
        a = (uint32_t)floor(k);
    }
    vd_between(rec, a, a + 1u, t_s, pos_m, yaw_rad);
    *nearest = &rec->ticks[k - (double)a < 0.5 ? a : a + 1u];
}

/* The reference's own error: each odd tick's recorded position against
 * the Hermite of its neighbours two ticks apart, the largest over the
 * recording, divided by 16 (a cubic Hermite's error grows as h^4, so the
 * 120 Hz reference's is a sixteenth of the 60 Hz one's). */
static inline double vd_reference_error_m(const vd_recording *rec)
{
    double worst = 0.0;
    for (uint32_t k = 1; k + 1u < rec->n; k += 2u) {
        double pos[3], yaw;
        vd_between(rec, k - 1u, k + 1u, (double)k / VD_TICK_HZ, pos, &yaw);
        const pdk_vehicle_pose *p = &rec->ticks[k].pose;
        double dx = pos[0] - p->x_m, dy = pos[1] - p->y_m, dz = pos[2] - p->z_m;
        worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz));
    }
    return worst / 16.0;
}

#endif
