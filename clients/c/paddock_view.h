/* The proxy view: draws Paddock's vehicles smoothly on another machine from
 * the state stream (docs/multiplayer.md "The proxy view").
 *
 * State batches come over a network at 20-60 Hz, late by a varying amount,
 * some lost, some out of order. The view keeps each vehicle's recent
 * samples in a jitter buffer and draws the vehicle as it was a little in the
 * past (the view's delay), where it has a sample on each side: cubic Hermite
 * interpolation of position from the positions and velocities, slerp of the
 * attitude. When the samples run out it extrapolates for a bounded time
 * (extrapolate_max_s) and then holds. The delay adapts to the arrivals: the
 * measured one-way latency plus about three send intervals and the arrival
 * jitter, never less than a configurable floor above the latency.
 *
 * Corrections (a sample that disagrees with what was drawn while
 * extrapolating, one that came late) are eased out over blend_time_s; one
 * larger than snap_distance_m is a snap: the vehicle jumps. A change of the
 * state's teleport_count (a vehicle reset, a replay seek) makes the vehicle
 * jump at once rather than slide across the world.
 *
 * Memory is the caller's: the view works in a pdk_view_track array it is
 * given, PDK_VIEW_SAMPLES samples per vehicle, and never allocates, so it
 * fits a microcontroller beside libpaddock-client. Every function but
 * pdk_view_push_batch is plain arithmetic on its arguments, so the view is
 * tested without a network. Times: the caller's clock in ns (any clock, but
 * the same one for arrivals and draws, and the one the clock offset is
 * measured against: pdk_client_clock_sample measures CLOCK_REALTIME);
 * server stamps are StateBatch.wall_time_ns. Not thread-safe. */
#ifndef PDK_VIEW_H
#define PDK_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "paddock/v1/paddock.pb.h"

/* Samples kept per vehicle: 16 is 0.27 s at 60 Hz and 0.8 s at 20 Hz, more
 * than the delay and the extrapolation need. A build may choose more. */
#ifndef PDK_VIEW_SAMPLES
#define PDK_VIEW_SAMPLES 16
#endif
/* Send intervals remembered for their median (a lost batch doubles one). */
#define PDK_VIEW_INTERVALS 9
/* Clock samples remembered for the shortest round trip. */
#define PDK_VIEW_CLOCKS 8
#define PDK_VIEW_ERR_LEN 160

typedef enum pdk_view_status {
    PDK_VIEW_OK = 0,
    PDK_VIEW_EINVAL,   /* a NULL, a setting out of range or a non-finite number */
    PDK_VIEW_EFULL,    /* every track holds a live vehicle: the sample was dropped */
    PDK_VIEW_ESTALE,   /* the sample is older than every one kept: dropped */
    PDK_VIEW_ENOTFOUND /* the view has no sample of that vehicle */
} pdk_view_status;

/* The view's settings; pdk_view_settings_default gives the defaults below. */
typedef struct pdk_view_settings {
    /* The buffer above the measured latency: send_intervals times the
     * measured send interval plus jitter_scale times the measured jitter,
     * never less than delay_floor_s, and the whole delay never more than
     * delay_max_s. Defaults 3, 2, 0.05 s, 1 s. */
    double send_intervals;
    double jitter_scale;
    double delay_floor_s;
    double delay_max_s;
    /* How fast the delay may follow its target, in seconds per second of
     * the caller's clock: the drawn time runs this much fast or slow at
     * most. Default 0.02 (2 %). */
    double delay_slew;
    /* Extrapolation past the newest sample, then hold. Default 0.25 s. */
    double extrapolate_max_s;
    /* A correction larger than this jumps; smaller ones ease out with time
     * constant blend_time_s. Defaults 4 m, 0.1 s. */
    double snap_distance_m;
    double blend_time_s;
    /* A vehicle with no sample for this long frees its track for another.
     * Default 2 s. */
    double forget_after_s;
} pdk_view_settings;

/* One vehicle's state at one server time, in the world frame (ISO 8855: x
 * forward, y left, z up; attitude as ZYX Euler angles). */
typedef struct pdk_view_sample {
    uint32_t vehicle_id;
    int64_t server_ns;         /* StateBatch.wall_time_ns */
    double sim_time_s;         /* StateBatch.sim_time_s: velocities are per sim second */
    double pos_m[3];
    double vel_mps[3];         /* world frame */
    double acc_mps2[3];        /* world frame; used by extrapolation only */
    double yaw_rad, pitch_rad, roll_rad;
    double yaw_rate_radps;     /* used by extrapolation only */
    uint32_t teleport_count;   /* VehicleState.teleport_count */
} pdk_view_sample;

/* Where the view was when it drew a vehicle. */
typedef enum pdk_view_mode {
    PDK_VIEW_WAITING = 0,     /* the drawn time is before the first sample: held there */
    PDK_VIEW_INTERPOLATING,   /* between two samples */
    PDK_VIEW_EXTRAPOLATING,   /* past the newest sample, within extrapolate_max_s */
    PDK_VIEW_HOLDING          /* past the extrapolation limit: held */
} pdk_view_mode;

typedef struct pdk_view_pose {
    uint32_t vehicle_id;
    double pos_m[3];
    double quat[4];            /* w, x, y, z: body to world */
    double yaw_rad, pitch_rad, roll_rad;
    pdk_view_mode mode;
    int64_t drawn_server_ns;   /* the server time drawn: now + offset - delay */
} pdk_view_pose;

/* One vehicle's buffer; the caller provides an array of them. */
typedef struct pdk_view_track {
    int used;
    uint32_t vehicle_id;
    uint32_t teleport_count;
    int n;                                 /* samples kept, oldest first */
    pdk_view_sample s[PDK_VIEW_SAMPLES];
    int64_t last_arrival_ns;               /* caller clock */
    int drawn;                             /* has been drawn since its last jump */
    int64_t drawn_at_ns;                   /* caller clock of the last draw */
    int64_t drawn_server_ns;
    double drawn_pos_m[3];
    double drawn_quat[4];
    double err_pos_m[3];                   /* correction being eased out */
    double err_quat[4];
    uint32_t snaps;                        /* corrections above snap_distance_m */
    uint32_t teleports;                    /* teleport_count changes seen */
} pdk_view_track;

typedef struct pdk_view {
    pdk_view_settings set;
    pdk_view_track *tracks;
    size_t n_tracks;
    int64_t offset_ns;          /* server clock minus the caller's clock */
    uint64_t round_trip_ns;     /* of the clock sample the offset came from */
    int64_t clock_offsets_ns[PDK_VIEW_CLOCKS];
    uint64_t clock_rtts_ns[PDK_VIEW_CLOCKS];
    uint32_t n_clocks;
    /* Arrival statistics, over batches. */
    uint32_t arrivals;
    int64_t last_server_ns;     /* newest batch stamp seen */
    int64_t last_arrival_ns;
    double last_transit_s;
    double latency_s;           /* mean one-way transit (arrival - stamp + offset) */
    double jitter_s;            /* mean |change of transit| (RFC 3550 section 6.4.1) */
    double intervals_s[PDK_VIEW_INTERVALS];
    uint32_t n_intervals;
    double interval_s;          /* median send interval */
    double delay_s;             /* the delay in use */
    double delay_target_s;
    int64_t delay_at_ns;        /* caller clock when delay_s was last moved */
    uint32_t dropped;           /* samples refused (stale or no free track) */
    char error[PDK_VIEW_ERR_LEN];
} pdk_view;

void pdk_view_settings_default(pdk_view_settings *s);

/* PDK_VIEW_OK, or PDK_VIEW_EINVAL with why (may be NULL) naming the setting
 * that is out of range and its value. */
pdk_view_status pdk_view_settings_check(const pdk_view_settings *s, char *why, size_t why_len);

/* Starts a view over tracks[0..n_tracks) (one per vehicle drawn at once);
 * settings NULL takes the defaults. EINVAL (v->error says why, when v is
 * not NULL) for NULL v or tracks, n_tracks 0, or a setting out of range. */
pdk_view_status pdk_view_init(pdk_view *v, pdk_view_track *tracks, size_t n_tracks,
                              const pdk_view_settings *settings);

/* A clock sample: server clock minus the caller's and the round trip it was
 * measured over (pdk_client_clock_sample). Of the last PDK_VIEW_CLOCKS
 * samples the view uses the one with the shortest round trip, whose offset
 * is bounded best (NTP's clock filter, RFC 5905 section 10). The view keeps
 * the drawn time where it was when the offset changes: a better offset
 * changes the latency figure, not the picture. EINVAL for a NULL v or a
 * zero round trip. */
pdk_view_status pdk_view_clock_sample(pdk_view *v, int64_t offset_ns, uint64_t round_trip_ns);

/* A batch stamped server_ns (StateBatch.wall_time_ns) arrived at
 * arrival_ns: updates latency, jitter, send interval and the delay's
 * target. Call it once per batch, before pushing its vehicles. EINVAL for a
 * NULL v or a zero stamp (a server too old to stamp its batches). */
pdk_view_status pdk_view_arrival(pdk_view *v, int64_t server_ns, int64_t arrival_ns);

/* Adds one vehicle's sample. ESTALE when it is older than every sample
 * kept for the vehicle (or a duplicate), EFULL when the vehicle is new and
 * every track holds a vehicle heard from within forget_after_s, EINVAL for
 * NULL or a non-finite number (v->error names the field); the view is
 * unchanged then. A teleport_count different from the vehicle's last one
 * empties the vehicle's buffer first: it jumps. */
pdk_view_status pdk_view_push(pdk_view *v, const pdk_view_sample *s, int64_t arrival_ns);

/* A VehicleState of a StateBatch as a sample (velocities and accelerations
 * turned from the body to the world frame by the yaw). */
void pdk_view_sample_from_state(const paddock_v1_VehicleState *vs, int64_t server_ns,
                                double sim_time_s, pdk_view_sample *out);

/* pdk_view_arrival and pdk_view_push for every vehicle of a batch. The
 * first error is returned after the rest of the batch went in. */
pdk_view_status pdk_view_push_batch(pdk_view *v, const paddock_v1_StateBatch *b,
                                    int64_t arrival_ns);

/* The pose to draw vehicle_id at the caller's time now_ns. ENOTFOUND when
 * the view has no sample of it. */
pdk_view_status pdk_view_draw(pdk_view *v, uint32_t vehicle_id, int64_t now_ns,
                              pdk_view_pose *out);

/* The track of vehicle_id, or NULL (for its snaps and teleports counts). */
const pdk_view_track *pdk_view_track_of(const pdk_view *v, uint32_t vehicle_id);

/* Frees vehicle_id's track (the vehicle was removed). ENOTFOUND if none. */
pdk_view_status pdk_view_forget(pdk_view *v, uint32_t vehicle_id);

/* The pose of the samples alone at server time t_ns (no correction
 * blending, no delay): what the view would draw without corrections. */
pdk_view_mode pdk_view_track_eval(const pdk_view_track *t, const pdk_view_settings *set,
                                  int64_t t_ns, double pos_m[3], double quat[4]);

/* ZYX Euler angles (ISO 8855) to a unit quaternion (w, x, y, z) and back. */
void pdk_view_quat_from_euler(double yaw_rad, double pitch_rad, double roll_rad, double q[4]);
void pdk_view_euler_from_quat(const double q[4], double *yaw_rad, double *pitch_rad,
                              double *roll_rad);

/* A short name of a status ("stale sample"); never NULL. */
const char *pdk_view_status_name(pdk_view_status st);

#endif
