/* The maneuvers of a car standing or going straight on its own power: the
 * launch and top speed, creep on a slope, the tilt table and the energy
 * ledger over a mixed drive. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "maneuvers.h"
#include "reference.h"
#include "vrun.h"

#define TICKS_PER_S 120
#define KMH (1.0 / 3.6)
#define PI 3.14159265358979323846

static const char *const SINGLE_TRACK_NO_TERRAIN =
    "the single-track model is planar: it has no wheels on the terrain and no roll, so a "
    "slope or a tilted ground cannot act on it";

static void not_applicable(pdk_job *job, const char *maneuver, const char *figure, const char *why)
{
    pdk_row *r = pdk_job_row(job, maneuver, figure, "");
    if (r) {
        r->rule = PDK_ROW_NOT_APPLICABLE;
        snprintf(r->note, sizeof r->note, "%s", why);
        pdk_row_judge(r);
    }
}

/* ---- launch and top speed ---------------------------------------------- */

/* The power-limited top speed (reference.h), m/s, with what limits it in
 * why. */
static double power_limited_top_mps(const pdk_vehicle_def *d, double rho, double g, char *why,
                                    size_t why_len)
{
    int gear = 0, governed = 0;
    const double v = pdk_ref_power_limited_top_mps(d, rho, g, &gear, &governed);
    if (governed) {
        snprintf(why, why_len, "the engine's governor");
    } else if (gear > 0) {
        snprintf(why, why_len, "full-load power through gear %d meets drag and rolling", gear);
    } else {
        snprintf(why, why_len, "peak power %.0f kW meets drag and rolling",
                 pdk_ref_peak_power_w(d, NULL) * 1e-3);
    }
    return v;
}

/* The shortest time to v_mps with at most mu (m g + downforce) of
 * traction (Gillespie ch. 2, "Traction-limited acceleration"): the
 * integral of dv / (mu (g + 1/2 rho C_L A v^2 / m)). */
static double traction_bound_s(const pdk_vehicle_def *d, double mu, double g, double rho,
                               double v_mps)
{
    const double m = d->chassis.mass_kg, q = 0.5 * rho * d->resist.downforce_area_m2;
    const int n = 2000;
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = (i + 0.5) * v_mps / n;
        t += (v_mps / n) / (mu * (g + q * v * v / m));
    }
    return t;
}

void pdk_maneuver_launch(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    pdk_vrun run;
    if (pdk_vrun_vehicle(job, NULL, &d) || pdk_vrun_world(job, "flat", NULL, &w) ||
        pdk_vrun_start(job, &run, &w, &d, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE)) {
        return;
    }
    char why[128];
    const double g = w.gravity_mps2, rho = w.air_density_kgpm3;
    const double v_top_ref = power_limited_top_mps(&d, rho, g, why, sizeof why);
    /* A car that cannot pass 100 km/h by a margin launches to 60 km/h. */
    const double v_launch = v_top_ref > 110.0 * KMH ? 100.0 * KMH : 60.0 * KMH;
    pdk_trace *tr = pdk_job_trace(job, "launch", "t_s,speed_mps,gear,engine_rpm");
    pdk_vrun_drive(&run, 100.0, 0.0, 0.0);
    double before = 0.0, t_launch = NAN, last = 0.0;
    int shifts = 0, gear_was = 0;
    const int max_s = 200; /* the fast subset too: a top speed cut short is no figure */
    for (int k = 1; k <= max_s * TICKS_PER_S; k++) {
        pdk_vrun_tick(&run);
        const double v = run.ch[PDK_CH_SPEED];
        const int gear = (int)run.ch[PDK_CH_GEAR_NUMBER];
        if (gear != gear_was && k > 1) {
            shifts++;
        }
        gear_was = gear;
        if (k % 6 == 0) {
            const double row[4] = {k / (double)TICKS_PER_S, v, gear, run.ch[PDK_CH_ENGINE_RPM]};
            pdk_trace_add(tr, row);
        }
        if (isnan(t_launch) && v >= v_launch) {
            t_launch = (k - 1 + (v_launch - before) / (v - before)) / TICKS_PER_S;
        }
        before = v;
        if (k % TICKS_PER_S == 0) {
            if (k >= 10 * TICKS_PER_S && fabs(v - last) < 0.01 && !isnan(t_launch)) {
                break;
            }
            last = v;
        }
    }
    const double v_top = run.ch[PDK_CH_SPEED];
    const double t_run = pdk_vrun_time_s(&run);
    pdk_vrun_end(&run);

    const double m = d.chassis.mass_kg, p = pdk_ref_peak_power_w(&d, NULL);
    char fig[64];
    snprintf(fig, sizeof fig, "0-%.0f km/h, full throttle in D", v_launch / KMH);
    pdk_row *r = pdk_job_row(job, "launch", fig, "s");
    if (r) {
        r->value = t_launch;
        r->reference = 0.5 * m * v_launch * v_launch / p;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "energy bound 1/2 m v^2 / P_peak (P_peak %.0f kW)", p * 1e-3);
        r->rule = PDK_ROW_AT_LEAST;
        r->converges = 1;
        if (v_launch < 99.0 * KMH) {
            snprintf(r->note, sizeof r->note,
                     "to 60 km/h: the car's power-limited top speed, %.0f km/h, is too close to "
                     "100 km/h for a 0-100 figure",
                     v_top_ref / KMH);
        }
        pdk_row_judge(r);
    }
    /* The driven tyres' peak friction on tarmac, the law's own (both axles'
     * better one when all four drive). */
    const pdk_ref_world rw = {g, w.surface_friction};
    pdk_ref_friction fr;
    double mu = NAN;
    if (pdk_ref_friction_on(&d, &rw, PDK_SURFACE_TARMAC, &fr) == PDK_OK) {
        const pdk_layout_def *l = &d.powertrain.layout;
        const int awd =
            d.powertrain.kind == PDK_POWERTRAIN_UTV ||
            (d.powertrain.kind == PDK_POWERTRAIN_GEARED && l->coupling != PDK_COUPLING_NONE) ||
            (d.powertrain.kind == PDK_POWERTRAIN_LUMPED && d.drive.front_fraction > 0.0);
        const int axle = d.powertrain.kind == PDK_POWERTRAIN_GEARED ? l->driven_axle
                         : d.drive.front_fraction >= 1.0            ? 0
                                                                    : 1;
        mu = awd ? fmax(fr.peak_mu[0], fr.peak_mu[1]) : fr.peak_mu[axle];
    }
    r = pdk_job_row(job, "launch", fig, "s");
    if (r) {
        snprintf(r->figure, sizeof r->figure, "0-%.0f km/h against traction", v_launch / KMH);
        r->value = t_launch;
        r->reference = traction_bound_s(&d, mu, g, rho, v_launch);
        snprintf(r->reference_text, sizeof r->reference_text,
                 "traction bound: the driven tyres' peak mu %.2f on tarmac", mu);
        r->rule = PDK_ROW_AT_LEAST;
        r->converges = 0; /* the same figure as the row above */
        pdk_row_judge(r);
    }
    r = pdk_job_row(job, "launch", "top speed from rest", "km/h");
    if (r) {
        r->value = v_top / KMH;
        r->reference = v_top_ref / KMH;
        snprintf(r->reference_text, sizeof r->reference_text, "power-limited: %.80s", why);
        r->rule = PDK_ROW_WITHIN;
        r->tol = 0.03;
        r->converges = 1;
        snprintf(r->note, sizeof r->note, "%d gear changes in %.0f s", shifts, t_run);
        pdk_row_judge(r);
    }
}

/* ---- creep on the hill world's 30 % slope ------------------------------ */

/* The 30 % lane of presets/worlds/hill.json: y = 20 m, its slope from x =
 * 20 m to 35 m, the constant grade from 22 to 33 m (2 m transitions). */
#define HILL_LANE_Y_M 20.0
#define HILL_SLOPE_MID_X_M 27.5

#define CREEP_SETTLE_S 5.0
#define CREEP_SPAN_S 60.0
#define CREEP_LIMIT_M 1e-3
/* The braked case's line pressure, bar (or the car's highest, if lower). */
#define CREEP_BRAKE_BAR 40.0

void pdk_maneuver_creep(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    if (pdk_vrun_vehicle(job, NULL, &d) || pdk_vrun_world(job, "hill", NULL, &w)) {
        return;
    }
    static const char *const names[4] = {"parked, nose up", "parked, nose down", "braked, nose up",
                                         "braked, nose down"};
    for (int c = 0; c < 4; c++) {
        if (d.model != PDK_MODEL_FOUR_WHEEL) {
            not_applicable(job, "creep 30 %", names[c], SINGLE_TRACK_NO_TERRAIN);
            continue;
        }
        const int parked = c < 2, down = c % 2;
        pdk_vrun run;
        if (pdk_vrun_start(job, &run, &w, &d, HILL_SLOPE_MID_X_M, HILL_LANE_Y_M, down ? PI : 0.0,
                           0.0, parked ? PDK_GEAR_PARK : PDK_GEAR_NEUTRAL)) {
            return;
        }
        pdk_vrun_drive(&run, 0.0, parked ? 0.0 : CREEP_BRAKE_BAR, 0.0);
        char name[64];
        snprintf(name, sizeof name, "creep_%s_%s", parked ? "parked" : "braked",
                 down ? "down" : "up");
        pdk_trace *tr = pdk_job_trace(job, name, "t_s,displacement_m");
        double p0[3] = {0};
        const int n_settle = (int)(CREEP_SETTLE_S * TICKS_PER_S);
        const int n = (int)((CREEP_SETTLE_S + CREEP_SPAN_S) * TICKS_PER_S);
        double moved = 0.0;
        for (int k = 1; k <= n; k++) {
            pdk_vrun_tick(&run);
            if (k == n_settle) {
                p0[0] = run.pose.x_m;
                p0[1] = run.pose.y_m;
                p0[2] = run.pose.z_m;
            }
            if (k > n_settle) {
                const double now = sqrt((run.pose.x_m - p0[0]) * (run.pose.x_m - p0[0]) +
                                        (run.pose.y_m - p0[1]) * (run.pose.y_m - p0[1]) +
                                        (run.pose.z_m - p0[2]) * (run.pose.z_m - p0[2]));
                moved = fmax(moved, now);
                if (k % 30 == 0) {
                    const double row[2] = {(k - n_settle) / (double)TICKS_PER_S, now};
                    pdk_trace_add(tr, row);
                }
            }
        }
        const double final_m = sqrt((run.pose.x_m - p0[0]) * (run.pose.x_m - p0[0]) +
                                    (run.pose.y_m - p0[1]) * (run.pose.y_m - p0[1]) +
                                    (run.pose.z_m - p0[2]) * (run.pose.z_m - p0[2]));
        pdk_vrun_end(&run);
        pdk_row *r = pdk_job_row(job, "creep 30 %", names[c], "mm");
        if (r) {
            snprintf(r->figure, sizeof r->figure, "%s: the most the CG moved in %.0f s", names[c],
                     CREEP_SPAN_S);
            r->value = moved * 1e3;
            r->reference = CREEP_LIMIT_M * 1e3;
            snprintf(r->reference_text, sizeof r->reference_text, "a held car does not move (%s)",
                     parked ? "in P" : "in N at 40 bar or the car's highest line pressure");
            r->rule = PDK_ROW_AT_MOST;
            snprintf(r->note, sizeof r->note,
                     "from where it stood after %.0f s to settle on its springs; %.3f mm at "
                     "the end",
                     CREEP_SETTLE_S, 1e3 * final_m);
            pdk_row_judge(r);
        }
    }
}

/* ---- the tilt table ----------------------------------------------------- */

/* A plane tilted by angle_rad about the line y = axis_y_m on the level
 * ground (parallel to the world x axis), rising to +y (the car's left, at
 * yaw 0): a 2 x 2 heightfield (bilinear is exact for a plane), 200 m
 * square about the origin. */
static void tilt_plane(pdk_heightfield *f, double angle_rad, double axis_y_m)
{
    memset(f, 0, sizeof *f);
    f->nx = f->ny = 2;
    f->has_heights = 1;
    f->origin_x_m = f->origin_y_m = -100.0;
    f->cell_m = 200.0;
    f->height_m[0] = f->height_m[1] = (float)((-100.0 - axis_y_m) * tan(angle_rad));
    f->height_m[2] = f->height_m[3] = (float)((100.0 - axis_y_m) * tan(angle_rad));
}

/* The table is turned as ISO 16333 (and SAE J2180 before it) turns it:
 * slowly from level, so that the car stays in its static balance, until
 * the wheels of one side leave it. A car set down on a table already at
 * the angle, with its tyres undeflected, would meet the side force as a
 * step, and its roll would overshoot the static balance and tip it early
 * (by several degrees on the UTV's soft tyres), by a margin that depends
 * on the substep. The sim's contacts take the ground as standing still
 * (pdk_world_set_terrain), so the table turns in steps, each a half-cosine
 * in angle over TILT_MOVE_S, and the car is read once it has rested
 * TILT_REST_S at the step's angle: the uphill wheels' load then is the
 * static one. The table turns about the line under the uphill wheels, so
 * that the ground under the wheels whose load is read barely moves while
 * it turns (their dampers would take a moving ground for the car moving).
 * TILT_COARSE_DEG steps while that load is above TILT_FINE_SHARE of what it
 * was on the level, then TILT_FINE_DEG. */
#define TILT_SETTLE_S 1.0
#define TILT_MOVE_S 2.0
#define TILT_REST_S 2.0
#define TILT_COARSE_DEG 2.0
#define TILT_FINE_DEG 0.5
#define TILT_FINE_SHARE 0.15
#define TILT_MAX_DEG 80.0
#define TILT_TABLE_FRICTION 3.0
/* A car whose body slides down the table faster than this at rest has
 * lost its grip rather than tipped. */
#define TILT_SLIDE_MPS 0.01

/* The uphill (left) wheels' load, N. */
static double uphill_n(const pdk_vrun *run)
{
    return run->ch[PDK_CH_TYRE_LOAD_FL] + run->ch[PDK_CH_TYRE_LOAD_RL];
}

/* The table's angle, rad, at which the uphill wheels of d, parked with the
 * brakes on, leave it: the zero of the line through the last two angles
 * at which they still carried a load at rest (the load falls smoothly
 * with the angle, so the line's error is of the order of the step
 * squared), rather than the step at which they were found off it. *steps
 * is the number of steps the table turned. NAN with the job's error set
 * when the car slides, does not tip by TILT_MAX_DEG, tips before two
 * loads at rest were read, or its world does not start. */
static double tilt_angle_rad(pdk_job *job, const pdk_vehicle_def *d, const pdk_world_def *w0,
                             int *steps)
{
    pdk_world_def w = *w0;
    const double axis_y_m = 0.25 * (pdk_vehicle_def_track_m(d, 0) + pdk_vehicle_def_track_m(d, 1));
    tilt_plane(&w.terrain.field, 0.0, axis_y_m);
    pdk_vrun run;
    if (pdk_vrun_start(job, &run, &w, d, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_PARK)) {
        return NAN;
    }
    pdk_vrun_drive(&run, 0.0, d->brake.max_line_bar, 0.0);
    pdk_terrain_def table = w.terrain;
    const int settle = (int)(TILT_SETTLE_S * TICKS_PER_S);
    const int move = (int)(TILT_MOVE_S * TICKS_PER_S), rest = (int)(TILT_REST_S * TICKS_PER_S);
    for (int k = 0; k < settle; k++) {
        pdk_vrun_tick(&run);
    }
    const double level_n = uphill_n(&run);
    double at_deg[2] = {0.0, 0.0}, load_n[2] = {level_n, level_n}, last_n = level_n;
    double angle_deg = 0.0;
    int tipped = 0, held = 0, slid = 0;
    *steps = 0;
    while (!tipped && !slid && angle_deg < TILT_MAX_DEG) {
        const int fine = !(level_n * TILT_FINE_SHARE < last_n);
        const double step = fine ? TILT_FINE_DEG : TILT_COARSE_DEG;
        const double from_deg = angle_deg;
        angle_deg += step;
        for (int k = 0; k < move + rest && !tipped; k++) {
            if (k < move) {
                const double s = 0.5 * (1.0 - cos(PI * (k + 1) / move));
                tilt_plane(&table.field, (from_deg + s * step) * PI / 180.0, axis_y_m);
                (void)pdk_world_set_terrain(run.world, &table); /* a plane: never refused */
            }
            pdk_vrun_tick(&run);
            tipped = !(uphill_n(&run) > 0.0);
        }
        (*steps)++;
        last_n = uphill_n(&run);
        slid = !tipped && !(fabs(run.ch[PDK_CH_VEL_Y]) < TILT_SLIDE_MPS);
        if (!tipped && !slid) {
            at_deg[0] = at_deg[1];
            load_n[0] = load_n[1];
            at_deg[1] = angle_deg;
            load_n[1] = last_n;
            held++;
        }
    }
    pdk_vrun_end(&run);
    if (slid) {
        snprintf(job->error, sizeof job->error,
                 "%s: tilt table: the car slid down the table at %.1f deg with its uphill "
                 "wheels still on it (table friction %.1f)",
                 job->preset, angle_deg, TILT_TABLE_FRICTION);
        return NAN;
    }
    if (!tipped) {
        snprintf(job->error, sizeof job->error,
                 "%s: tilt table: the uphill wheels did not leave the table by %.0f deg",
                 job->preset, TILT_MAX_DEG);
        return NAN;
    }
    if (held < 2 || !(load_n[0] > load_n[1])) {
        snprintf(job->error, sizeof job->error,
                 "%s: tilt table: the uphill wheels left the table at %.1f deg before two "
                 "falling loads at rest were read",
                 job->preset, angle_deg);
        return NAN;
    }
    const double zero_deg =
        at_deg[1] + load_n[1] * (at_deg[1] - at_deg[0]) / (load_n[0] - load_n[1]);
    return zero_deg * PI / 180.0;
}

/* The stiff variant's springs and bars, N/m: ten times the stiffest
 * road car's, so the body rolls a fraction of a degree at the tipping
 * point and the rigid body's t / (2 h) applies. */
#define STIFF_SPRING_NPM 1.0e6
#define STIFF_BAR_NPM 1.0e6

void pdk_maneuver_tilt_table(pdk_job *job)
{
    pdk_vehicle_def base;
    if (pdk_vrun_vehicle(job, NULL, &base)) {
        return;
    }
    if (base.model != PDK_MODEL_FOUR_WHEEL) {
        not_applicable(job, "tilt table", "rollover angle", SINGLE_TRACK_NO_TERRAIN);
        return;
    }
    /* Dampers at 0.3 of critical for half the car's mass on a corner, so
     * that every corner is damped at least that much (ADR 0007's floor is
     * 0.1). */
    const double c = 0.3 * 2.0 * sqrt(STIFF_SPRING_NPM * 0.5 * base.chassis.mass_kg);
    char set[512];
    if (base.powertrain.kind == PDK_POWERTRAIN_UTV) {
        /* A utv's corners follow from its wheel rates and damping ratio;
         * it has no bars. Its tyres' vertical rate stays in series with the
         * wheel rate (utv_corner.h), so its body still rolls about a degree
         * on them at the verge. */
        snprintf(set, sizeof set, "suspension.frontWheelRate=%g;suspension.rearWheelRate=%g",
                 STIFF_SPRING_NPM, STIFF_SPRING_NPM);
    } else
        snprintf(set, sizeof set,
                 "suspension.front.springRate=%g;suspension.rear.springRate=%g;"
                 "suspension.front.antiRollStiffness=%g;suspension.rear.antiRollStiffness=%g;"
                 "suspension.front.bumpDamping=%.0f;suspension.front.reboundDamping=%.0f;"
                 "suspension.rear.bumpDamping=%.0f;suspension.rear.reboundDamping=%.0f",
                 STIFF_SPRING_NPM, STIFF_SPRING_NPM, STIFF_BAR_NPM, STIFF_BAR_NPM, c, c, c, c);
    pdk_vehicle_def d;
    pdk_world_def w;
    if (pdk_vrun_vehicle(job, set, &d) || pdk_vrun_world(job, "flat", NULL, &w)) {
        return;
    }
    /* The table's grip holds the car, as the standard's blocks at the
     * downhill wheels do, so that it tips rather than slides: at the verge
     * the downhill tyres carry the whole weight and a side force SSF times
     * their load, up to 2.4 on an open wheeler. Set on the world's
     * definition, past the world preset's own range (pdk_world_def_check
     * allows it). */
    w.surface_friction = TILT_TABLE_FRICTION;
    int steps = 0;
    const double angle_rad = tilt_angle_rad(job, &d, &w, &steps);
    if (!isfinite(angle_rad)) {
        return;
    }
    pdk_ref_rollover ro;
    if (pdk_ref_rollover_of(&base, &ro) != PDK_OK) {
        snprintf(job->error, sizeof job->error, "%s: no rollover reference", job->preset);
        return;
    }
    const double ssf = ro.ssf;
    pdk_row *r = pdk_job_row(job, "tilt table", "rollover angle, stiff variant", "deg");
    if (r) {
        r->value = angle_rad * 180.0 / PI;
        r->reference = atan(ssf) * 180.0 / PI;
        snprintf(r->reference_text, sizeof r->reference_text, "atan(SSF), SSF = t / (2 h) = %.3f",
                 ssf);
        r->rule = PDK_ROW_WITHIN;
        r->tol = 0.10;
        r->converges = 1;
        snprintf(r->note, sizeof r->note,
                 "springs and bars %.0f kN/m (--set overrides); the table turned from level in "
                 "%d steps of %.1f then %.1f deg, each over %.0f s and rested %.0f s; the angle "
                 "at which the uphill wheels' load at rest reaches zero (ISO 16333)",
                 STIFF_SPRING_NPM * 1e-3, steps, TILT_COARSE_DEG, TILT_FINE_DEG, TILT_MOVE_S,
                 TILT_REST_S);
        pdk_row_judge(r);
    }
    /* The tyres' own lateral deflection, which the stiff variant keeps.
     * The four-wheel model's deflection states hold the side force but
     * apply each wheel's load at the ground point under its strut, not at
     * the deflected patch, so its table angle sits between this and
     * atan(SSF) (reference.h). */
    const pdk_ref_world rw = {w.gravity_mps2, w.surface_friction};
    pdk_ref_tilt tilt;
    r = pdk_job_row(job, "tilt table", "rollover angle against the tyres' deflection", "deg");
    if (r && pdk_ref_tilt_with_tyres(&d, &rw, &tilt) == PDK_OK) {
        r->value = angle_rad * 180.0 / PI;
        r->reference = tilt.tilt_angle_rad * 180.0 / PI;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "rigid but for the tyres' lateral deflection, %.3f m at the angle", tilt.shift_m);
        r->rule = PDK_ROW_INFO;
        pdk_row_judge(r);
    }
}

/* ---- the energy ledger over a mixed drive -------------------------------- */

/* One minute of the mixed drive at t_s into it: accelerate, a +-60 deg
 * steering-wheel weave, coast, brake, accelerate again. */
static void mixed_drive(pdk_vrun *run, double t_s)
{
    const double s = fmod(t_s, 60.0);
    const double brake = 0.25 * run->def.brake.max_line_bar;
    if (s < 12.0) {
        pdk_vrun_drive(run, 70.0, 0.0, 0.0);
    } else if (s < 32.0) {
        pdk_vrun_drive(run, 25.0, 0.0, 60.0 * sin(2.0 * PI * 0.25 * (s - 12.0)));
    } else if (s < 42.0) {
        pdk_vrun_drive(run, 0.0, 0.0, 0.0);
    } else if (s < 50.0) {
        pdk_vrun_drive(run, 0.0, brake, 0.0);
    } else {
        pdk_vrun_drive(run, 40.0, 0.0, 0.0);
    }
}

void pdk_maneuver_energy_ledger(pdk_job *job)
{
    pdk_vehicle_def d;
    pdk_world_def w;
    pdk_vrun run;
    if (pdk_vrun_vehicle(job, NULL, &d)) {
        return;
    }
    if (d.model != PDK_MODEL_FOUR_WHEEL || d.powertrain.kind == PDK_POWERTRAIN_LUMPED) {
        not_applicable(job, "energy ledger", "residual over the mixed drive",
                       d.model != PDK_MODEL_FOUR_WHEEL
                           ? "the single-track model keeps no energy ledger (its Energy* "
                             "channels are the four-wheel model's)"
                           : "the lumped drive keeps no energy ledger: the ledger starts at an "
                             "engine's fuel, and a lumped drive has none");
        return;
    }
    if (pdk_vrun_world(job, "flat", NULL, &w) ||
        pdk_vrun_start(job, &run, &w, &d, 0.0, 0.0, 0.0, 0.0, PDK_GEAR_DRIVE)) {
        return;
    }
    const double span_s = job->fast ? 60.0 : 600.0;
    pdk_trace *tr = pdk_job_trace(job, "ledger", "t_s,speed_mps,energy_in_j,residual_j");
    const int n = (int)(span_s * TICKS_PER_S);
    for (int k = 0; k < n; k++) {
        mixed_drive(&run, k / (double)TICKS_PER_S);
        pdk_vrun_tick(&run);
        if (k % TICKS_PER_S == 0) {
            const double row[4] = {pdk_vrun_time_s(&run), run.ch[PDK_CH_SPEED],
                                   run.ch[PDK_CH_ENERGY_FUEL], run.ch[PDK_CH_ENERGY_RESIDUAL]};
            pdk_trace_add(tr, row);
        }
    }
    const double in = run.ch[PDK_CH_ENERGY_FUEL], residual = run.ch[PDK_CH_ENERGY_RESIDUAL];
    const int faulted = pdk_world_vehicle_faulted(run.world, run.id);
    pdk_vrun_end(&run);
    pdk_row *r = pdk_job_row(job, "energy ledger", "", "%");
    if (r) {
        snprintf(r->figure, sizeof r->figure, "|EnergyResidual| / energy in, %.0f min mixed drive",
                 span_s / 60.0);
        r->value = in > 0.0 ? 100.0 * fabs(residual) / in : NAN;
        r->reference = 0.1;
        snprintf(r->reference_text, sizeof r->reference_text,
                 "conservation: the ledger balances (energy in %.2f MJ)", in * 1e-6);
        r->rule = PDK_ROW_AT_MOST;
        snprintf(r->note, sizeof r->note,
                 "each minute: 12 s at 70 %% throttle, 20 s at 25 %% with a +-60 deg weave at "
                 "0.25 Hz, 10 s coasting, 8 s braking at a quarter of the line pressure, 10 s "
                 "at 40 %%%s",
                 faulted ? "; the vehicle faulted" : "");
        pdk_row_judge(r);
    }
}
