/* Straight-line stops from 100 km/h on every surface of the surface table,
 * with the wheels locked (ABS off, the line pressure above lock-up) and
 * with ABS, against the stopping distance v^2 / (2 mu g) with the mu the
 * tyre's law actually has on that surface (reference.h). The car stops on
 * its tyres alone (drag, downforce and rolling resistance set to 0 by
 * overrides), which is what the formula describes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "maneuvers.h"
#include "reference.h"
#include "sim/surface_def.h"
#include "vrun.h"

#define TICKS_PER_S 120
#define KMH (1.0 / 3.6)
#define BRAKE_FROM_KMH 100.0
#define LOCKED_TOL 0.03
#define ABS_TOL 0.10
/* Stopped: below this speed, m/s. */
#define STOPPED_MPS 0.05

/* The longest stop waited for, s: a locked kart on ice needs minutes. */
#define STOP_MAX_S 600

/* A wheel is locked while its rim turns at under this share of the car's
 * speed. */
#define LOCKED_SHARE 0.02

/* One stop measured: its distance, m (NAN when the car never stops in
 * STOP_MAX_S); the share of its time with every braked wheel locked (NAN
 * on the single-track model, which has no wheels); and where they first
 * all locked: the speed then and the distance to there (NAN when they
 * never all locked). */
typedef struct stop {
    double distance_m;
    double locked_share;
    double lock_mps;
    double to_lock_m;
} stop;

/* One stop from v0_mps with the brakes at their highest line pressure in
 * N; braked[axle] says which axles have brakes (a kart's front has
 * none). */
static stop stop_run(pdk_job *job, const pdk_vehicle_def *d, const pdk_world_def *w, double v0_mps,
                     const int braked[2], pdk_trace *tr, int *error)
{
    stop out = {NAN, NAN, NAN, NAN};
    const double radius[4] = {d->tyre_front.law.radius_m, d->tyre_front.law.radius_m,
                              d->tyre_rear.law.radius_m, d->tyre_rear.law.radius_m};
    int ticks = 0, locked = 0;
    double lock_at_m = NAN;
    pdk_vrun run;
    if (pdk_vrun_start(job, &run, w, d, 0.0, 0.0, 0.0, v0_mps, PDK_GEAR_NEUTRAL)) {
        *error = 1;
        return out;
    }
    pdk_vrun_drive(&run, 0.0, d->brake.max_line_bar, 0.0);
    for (int k = 1; k <= STOP_MAX_S * TICKS_PER_S; k++) {
        pdk_vrun_tick(&run);
        const double dist = hypot(run.pose.x_m, run.pose.y_m);
        if (k % 4 == 0 && k < 60 * TICKS_PER_S) {
            const double row[3] = {k / (double)TICKS_PER_S, dist, run.ch[PDK_CH_SPEED]};
            pdk_trace_add(tr, row);
        }
        int all = 1;
        for (int i = 0; i < 4; i++) {
            all &= !braked[i / 2] || fabs(run.ch[PDK_CH_WHEEL_SPEED_FL + i]) * radius[i] <
                                         LOCKED_SHARE * run.ch[PDK_CH_SPEED];
        }
        if (all && isnan(lock_at_m)) {
            lock_at_m = dist;
            out.lock_mps = run.ch[PDK_CH_SPEED];
        }
        locked += all;
        ticks++;
        if (run.ch[PDK_CH_SPEED] < STOPPED_MPS) {
            out.distance_m = dist;
            out.to_lock_m = lock_at_m;
            break;
        }
    }
    pdk_vrun_end(&run);
    out.locked_share = d->model == PDK_MODEL_FOUR_WHEEL ? (double)locked / ticks : NAN;
    return out;
}

void pdk_maneuver_braking(pdk_job *job)
{
    pdk_vehicle_def shipped;
    if (pdk_vrun_vehicle(job, NULL, &shipped)) {
        return;
    }
    const int engined = shipped.powertrain.kind != PDK_POWERTRAIN_LUMPED;
    const int n_surfaces = job->fast ? 1 : PDK_SURFACE_COUNT;
    const double v0 = BRAKE_FROM_KMH * KMH;
    for (int sid = 0; sid < n_surfaces; sid++) {
        const pdk_surface *surf = pdk_surface_get(sid);
        char wset[96];
        snprintf(wset, sizeof wset, "surface=%s", surf->name);
        pdk_world_def w;
        if (pdk_vrun_world(job, "flat", wset, &w)) {
            return;
        }
        for (int with_abs = 0; with_abs < 2; with_abs++) {
            char maneuver[48], name[64];
            snprintf(maneuver, sizeof maneuver, "brake %s %s", with_abs ? "ABS" : "locked",
                     surf->name);
            snprintf(name, sizeof name, "brake_%s_%s", with_abs ? "abs" : "locked", surf->name);
            if (with_abs && !engined) {
                pdk_row *r = pdk_job_row(job, maneuver, "100-0 km/h stopping distance", "m");
                if (r) {
                    r->rule = PDK_ROW_NOT_APPLICABLE;
                    snprintf(r->note, sizeof r->note,
                             "the lumped drive's brakes have no ABS (brakes.abs is a key of the "
                             "engined powertrains only)");
                    pdk_row_judge(r);
                }
                continue;
            }
            /* Friction alone stops the car, so that v^2 / (2 mu g) is the
             * exact answer: no drag, downforce or rolling resistance (on ice
             * drag alone would shorten the stop by a seventh), and the
             * tread's temperature held where it starts, at the optimum (a
             * locked tread heated by its own sliding, 60 to 110 C in a stop
             * from 100 km/h, leaves its grip window and stops the car 5 %
             * longer: real, but the tyre's life, not its law, which is what
             * the formula checks). Holding it takes both halves of the
             * tread's heat balance: heatScale 0 stops the heating, and no
             * conductance to the road or the air stops the cooling. With
             * the cooling left on, the tread fell from its optimum toward
             * the 20 C road through the stop, and a slick's grip with it to
             * its floor (0.6 of its peak at 35 C): the open-wheeler's
             * locked stop on ice took 55 % longer than its law's mu gives,
             * and every long stop came out long. */
            char set[800];
            snprintf(set, sizeof set, "%s%s",
                     shipped.model == PDK_MODEL_FOUR_WHEEL
                         ? "resistance.dragArea=0;resistance.downforceArea=0;"
                           "tyres.front.rollingCoeff=0;tyres.rear.rollingCoeff=0;"
                           "tyres.front.life.heatScale=0;tyres.rear.life.heatScale=0;"
                           "tyres.front.life.roadConductance=0;"
                           "tyres.rear.life.roadConductance=0;"
                           "tyres.front.life.airConductance=0;"
                           "tyres.rear.life.airConductance=0;"
                           "tyres.front.life.airConductancePerSpeed=0;"
                           "tyres.rear.life.airConductancePerSpeed=0"
                         : "resistance.dragArea=0;resistance.rollingCoeff=0",
                     engined ? (with_abs ? ";brakes.abs=true" : ";brakes.abs=false") : "");
            pdk_vehicle_def d;
            if (pdk_vrun_vehicle(job, set, &d)) {
                return;
            }
            const pdk_ref_world rw = {w.gravity_mps2, w.surface_friction};
            pdk_ref_friction fr;
            const pdk_error e = pdk_ref_friction_on(&d, &rw, sid, &fr);
            const int all_braked[2] = {1, 1};
            pdk_trace *tr = pdk_job_trace(job, name, "t_s,distance_m,speed_mps");
            int error = 0;
            const stop st =
                stop_run(job, &d, &w, v0, e == PDK_OK ? fr.braked : all_braked, tr, &error);
            if (error) {
                return;
            }
            const double g = w.gravity_mps2;
            /* A locked stop's reference is the distance to the moment every
             * braked wheel has locked, as measured, and v^2 / (2 mu g) from
             * the speed there: before it the tyres pass their peak, which
             * the locked-wheel friction does not describe (an open-wheeler
             * on slicks brakes at over 1 g for a quarter second before its
             * wheels lock). The single-track model has no wheels to lock:
             * its reference is from 100 km/h. */
            const int from_lock = !with_abs && e == PDK_OK && d.model == PDK_MODEL_FOUR_WHEEL;
            pdk_row *r = pdk_job_row(job, maneuver, "100-0 km/h stopping distance", "m");
            if (!r) {
                return;
            }
            r->value = st.distance_m;
            const double locked_share = st.locked_share;
            r->converges = 1;
            if (e != PDK_OK && surf->deformable) {
                r->rule = PDK_ROW_INFO;
                snprintf(r->reference_text, sizeof r->reference_text,
                         "none in closed form on a deformable surface");
                snprintf(r->note, sizeof r->note,
                         "on %s the soil model's thrust, sinkage and bulldozing join the tyre's "
                         "law, so v^2 / (2 mu g) has no single mu to take",
                         surf->name);
                pdk_row_judge(r);
                continue;
            }
            if (e != PDK_OK) {
                snprintf(r->note, sizeof r->note, "no friction reference on %s: %s", surf->name,
                         pdk_error_message(e));
                r->rule = PDK_ROW_AT_MOST;
                pdk_row_judge(r);
                continue;
            }
            if (with_abs) {
                r->reference = pdk_ref_stopping_distance_m(v0, fr.peak_mu_car, g);
                snprintf(r->reference_text, sizeof r->reference_text,
                         "v^2 / (2 mu g), the law's peak mu %.3f on %s", fr.peak_mu_car,
                         surf->name);
                r->rule = PDK_ROW_ABOVE_WITHIN;
                r->tol = ABS_TOL;
                snprintf(r->note, sizeof r->note,
                         "ABS at the highest line pressure in N, tread temperature held, no "
                         "drag or rolling resistance%s; no shorter than the peak bound and "
                         "within 10 %% above it",
                         shipped.powertrain.abs ? ""
                                                : " (switched on for the test: the preset "
                                                  "ships without)");
            } else {
                const double from_mps = from_lock ? st.lock_mps : v0;
                r->reference = (from_lock ? st.to_lock_m : 0.0) +
                               pdk_ref_stopping_distance_m(from_mps, fr.locked_mu_car, g);
                snprintf(r->reference_text, sizeof r->reference_text,
                         "%sv^2 / (2 mu g), the law's locked-wheel mu %.3f on %s",
                         from_lock ? "to lock-up, then " : "", fr.locked_mu_car, surf->name);
                r->rule = PDK_ROW_WITHIN;
                r->tol = LOCKED_TOL;
                snprintf(r->note, sizeof r->note,
                         "%.0f bar in N%s, tread temperature held, no drag or rolling resistance",
                         d.brake.max_line_bar, engined ? ", ABS off" : "");
                if (isfinite(locked_share)) {
                    const size_t len = strlen(r->note);
                    snprintf(r->note + len, sizeof r->note - len,
                             "; every braked wheel locked for %.0f %% of the stop, from %.1f "
                             "km/h after %.3g m",
                             100.0 * locked_share, st.lock_mps / KMH, st.to_lock_m);
                }
            }
            pdk_row_judge(r);
        }
    }
}
