/* The rules between a vehicle's keys that their bounds cannot state
 * (params_schema.h, the vehicle schema's cross_check): the centre of
 * gravity between the axles, the steering's lock, the least yaw inertia,
 * each axle's curves and tyre sizes, a lumped or geared vehicle's payload
 * (and the chassis that carries it within the chassis keys' bounds), and a
 * powertrain's keys (a utv's, and what follows from them within a lumped
 * vehicle's bounds; a geared car's) and the drive-by-wire kit's, each with
 * a message naming the keys and their values. */
#include "params_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "params_internal.h"

/* Degrees to radians as the presets convert them: rad = deg * PI / 180. */
#define PI 3.14159265358979323846

/* The powertrain kinds' bits in pdk_param_key.only_for. */
#define ONLY_LUMPED (1u << PDK_POWERTRAIN_LUMPED)
#define ONLY_UTV (1u << PDK_POWERTRAIN_UTV)

/* Whether key lands in sim's chassis, one of the fields a utv derives
 * from its parts and a car's payload changes. */
static bool is_chassis_field(const pdk_param_key *key)
{
    const size_t at = offsetof(pdk_vehicle_work, def.chassis);
    return key->type == PDK_KEY_NUMBER && key->offset >= at &&
           key->offset < at + sizeof(pdk_chassis_def);
}

/* Whether a lumped vehicle's number key that a utv derives from its own
 * keys (chassis, corners, tyre loads) is one to hold a utv's values to. */
static bool is_derived_for_utv(const pdk_param_key *key)
{
    return key->type == PDK_KEY_NUMBER && (key->only_for & ONLY_LUMPED) != 0 &&
           (key->only_for & ONLY_UTV) == 0 && key->offset < sizeof(pdk_vehicle_def);
}

/* The first key select() takes whose value in w, in its preset unit, lies
 * outside the key's bounds: PDK_OK when there is none, else the error
 * saying the value follows from origin (and, with the key's otherwise,
 * what it follows from instead). */
static pdk_error derived_within_bounds(const pdk_vehicle_work *w,
                                       bool (*select)(const pdk_param_key *), const char *origin,
                                       bool with_otherwise, char *why, size_t why_len)
{
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    const pdk_schema *vs = pdk_schema_for(PDK_PRESET_VEHICLE);
    for (size_t i = 0; i < vs->n_keys; i++) {
        const pdk_param_key *key = &vs->keys[i];
        if (!select(key)) {
            continue;
        }
        double si;
        memcpy(&si, (const char *)w + key->offset, sizeof si);
        double v = si * key->si_div / key->si_mul;
        if (v >= key->min && v <= key->max) {
            continue;
        }
        pdk_params_format_number(v, a);
        pdk_params_format_number(v < key->min ? key->min : key->max, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s follows from %s as %s %s, %s the %s %s %s that it allows%s%s",
                               key->path, origin, a, key->unit, v < key->min ? "below" : "above",
                               v < key->min ? "minimum" : "maximum", b, key->unit,
                               with_otherwise ? ": " : "",
                               with_otherwise && key->otherwise ? key->otherwise : "");
    }
    return PDK_OK;
}

#define MAX_ROAD_WHEEL_LOCK_DEG 80.0

/* Every point of a curve, added to its static key, within the static key's
 * bounds; in preset units, from the resolved JSON. */
static pdk_error check_curve_sums(const pdk_schema *s, const pdk_param_key *key, json_t *resolved,
                                  char *why, size_t why_len)
{
    const pdk_param_key *stat = pdk_schema_find_key(s, key->static_path);
    PDK_ASSERT(stat != NULL);
    double base = json_number_value(pdk_json_get_dotted(resolved, stat->path));
    const json_t *curve = pdk_json_get_dotted(resolved, key->path);
    size_t i;
    const json_t *p;
    json_array_foreach(curve, i, p)
    {
        double v = json_number_value(json_array_get(p, 1));
        double sum = base + v;
        if (sum >= stat->min && sum <= stat->max) {
            continue;
        }
        char bt[PDK_PARAMS_NUM_LEN];
        char vt[PDK_PARAMS_NUM_LEN];
        char lt[PDK_PARAMS_NUM_LEN];
        pdk_params_format_number(base, bt);
        pdk_params_format_number(v, vt);
        pdk_params_format_number(sum < stat->min ? stat->min : stat->max, lt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "%s[%zu]: %s (%s %s) + %s = %.6g %s is %s the %s %s %s that %s "
                               "allows",
                               key->path, i, stat->path, bt, stat->unit, vt, sum, stat->unit,
                               sum < stat->min ? "below" : "above",
                               sum < stat->min ? "minimum" : "maximum", lt, stat->unit, stat->path);
    }
    return PDK_OK;
}

/* An axle's tyre sizes in their physical order (four-wheel model): the
 * lugs within the section, the section inside the radius, and an intact
 * tyre above a flat one, a flat one above its rim and the rim no lower than
 * the hub (tyre_life.h's conditions). */
static pdk_error check_tyre(const pdk_axle_tyre_def *t, const char *name, char *why, size_t why_len)
{
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    double radius = t->law.radius_m;
    const pdk_tyre_life_def *life = &t->life;
    if (!(t->soil.section_height_m < radius)) {
        pdk_params_format_number(t->soil.section_height_m, a);
        pdk_params_format_number(radius, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.sectionHeight (%s m) must be less than tyres.%s.radius "
                               "(%s m)",
                               name, a, name, b);
    }
    if (!(t->soil.lug_height_m < t->soil.section_height_m)) {
        pdk_params_format_number(t->soil.lug_height_m, a);
        pdk_params_format_number(t->soil.section_height_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.lugHeight (%s m) must be less than tyres.%s.sectionHeight "
                               "(%s m)",
                               name, a, name, b);
    }
    if (!(radius - life->flat_drop_m > life->rim_radius_m)) {
        pdk_params_format_number(life->flat_drop_m, a);
        pdk_params_format_number(life->rim_radius_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.radius - tyres.%s.life.flatDrop = %.6g m must be above "
                               "tyres.%s.life.rimRadius (%s m): a flat tyre still stands on its "
                               "sidewalls, above the rim (flatDrop %s m)",
                               name, name, radius - life->flat_drop_m, name, b, a);
    }
    if (!(life->hub_radius_m <= life->rim_radius_m)) {
        pdk_params_format_number(life->hub_radius_m, a);
        pdk_params_format_number(life->rim_radius_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "tyres.%s.life.hubRadius (%s m) must be at most "
                               "tyres.%s.life.rimRadius (%s m)",
                               name, a, name, b);
    }
    return PDK_OK;
}

/* The rules of one axle that its keys' bounds cannot state. */
static pdk_error check_axle(const pdk_vehicle_def *def, int axle, json_t *resolved, char *why,
                            size_t why_len)
{
    const pdk_suspension_def *sd = axle == 0 ? &def->susp_front : &def->susp_rear;
    const char *name = axle == 0 ? "front" : "rear";
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (sd->track_width_m != 0 && sd->track_width_m < PDK_SCHEMA_MIN_TRACK_M) {
        pdk_params_format_number(sd->track_width_m, a);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.%s.trackWidth (%s m) must be 0 (use chassis.trackWidth) "
                               "or at least %g m",
                               name, a, PDK_SCHEMA_MIN_TRACK_M);
    }
    if (sd->kind == PDK_AXLE_SOLID) {
        const char *curve = sd->kinematics.toe_rad.n_points > 0      ? "toeDeg"
                            : sd->kinematics.camber_rad.n_points > 0 ? "camberDeg"
                                                                     : NULL;
        if (curve != NULL) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "suspension.%s.kinematics.%s: not allowed on a solid axle "
                                   "(suspension.%s.kind is \"solid\"): the beam sets the wheels' "
                                   "toe and camber; remove the curve or make the axle "
                                   "independent",
                                   name, curve, name);
        }
    }
    const pdk_schema *vs = pdk_schema_for(PDK_PRESET_VEHICLE);
    for (size_t i = 0; i < vs->n_keys; i++) {
        const pdk_param_key *key = &vs->keys[i];
        char prefix[32];
        snprintf(prefix, sizeof prefix, "suspension.%s.", name);
        if (key->type == PDK_KEY_CURVE && strncmp(key->path, prefix, strlen(prefix)) == 0) {
            pdk_error rc = check_curve_sums(vs, key, resolved, why, why_len);
            if (rc != PDK_OK) {
                return rc;
            }
        }
    }
    /* Matches sim's check on the four-wheel model: the geometric share
     * h_rc / h_cg of the transfer stays at most PDK_MAX_ROLL_CENTER_RATIO
     * (vehicle_def.h says why). */
    if (def->model == PDK_MODEL_FOUR_WHEEL &&
        !(sd->roll_center_height_m <= PDK_MAX_ROLL_CENTER_RATIO * def->chassis.cg_height_m)) {
        pdk_params_format_number(sd->roll_center_height_m, a);
        pdk_params_format_number(def->chassis.cg_height_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.%s.rollCenterHeight (%s m) must be at most 0.9 "
                               "chassis.cgHeight (%s m) on the fourWheel model",
                               name, a, b);
    }
    return PDK_OK;
}

/* Fails with "<lo key> (<lo> <unit>) must be <less than | at most> <hi key>
 * (<hi> <unit>)" unless lo < hi (strict) or lo <= hi; unit may be "". */
static pdk_error check_order(double lo, double hi, bool strict, const char *lo_key,
                             const char *hi_key, const char *unit, char *why, size_t why_len)
{
    if (strict ? lo < hi : lo <= hi) {
        return PDK_OK;
    }
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    pdk_params_format_number(lo, a);
    pdk_params_format_number(hi, b);
    const char *sp = unit[0] != '\0' ? " " : "";
    return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len, "%s (%s%s%s) must be %s %s (%s%s%s)",
                           lo_key, a, sp, unit, strict ? "less than" : "at most", hi_key, b, sp,
                           unit);
}

/* The drive-by-wire kit's rules (dbw_def.h): a default rate limit within
 * the actuator's own (as sim checks it, dbw_def.c), and the pressures the
 * kit reads or holds within the brakes' full scale, where an override
 * threshold must leave the driver room above it. */
static pdk_error check_dbw(const pdk_vehicle_def *def, char *why, size_t why_len)
{
    const pdk_dbw_def *k = &def->dbw;
    const double full = def->brake.max_line_bar;
    pdk_error rc = check_order(k->steer_rate_degps, k->steer_rate_max_degps, false,
                               "dbw.steering.rate", "dbw.steering.rateMax", "deg/s", why, why_len);
    if (rc == PDK_OK) {
        rc = check_order(k->steer_accel_degps2, k->steer_accel_max_degps2, false,
                         "dbw.steering.accel", "dbw.steering.accelMax", "deg/s^2", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(k->brake_rate_barps, k->brake_rate_max_barps, false, "dbw.brake.rate",
                         "dbw.brake.rateMax", "bar/s", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(k->brake_override_bar, full, true, "dbw.brake.overrideBar",
                         "brakes.maxLineBar", "bar", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(k->gear_brake_hold_bar, full, false, "dbw.gear.brakeHoldBar",
                         "brakes.maxLineBar", "bar", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(k->comms_loss_hold_bar, full, false, "dbw.commsLoss.holdBar",
                         "brakes.maxLineBar", "bar", why, why_len);
    }
    return rc;
}

/* The least travel from ride height to a UTV's bump stop, as the UTV
 * model places its stop: x_b = max(x_0 + 0.01, travel - bump stop
 * length). */
#define UTV_MIN_TRAVEL_TO_STOP_M 0.01

/* The rules of an engine's keys (a utv's or a geared car's, kind naming
 * it) and the four-wheel model they need. */
static pdk_error check_engine(const pdk_vehicle_def *def, const char *kind, char *why,
                              size_t why_len)
{
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "powertrain.kind \"%s\" needs simulation.model \"fourWheel\": "
                               "the singleTrack model has no engine or driveline",
                               kind);
    }
    const pdk_engine_def *e = &def->powertrain.engine;
    pdk_error rc = check_order(e->idle_rpm, e->max_rpm, true, "engine.idleRpm", "engine.maxRpm",
                               "rev/min", why, why_len);
    if (rc != PDK_OK) {
        return rc;
    }
    if (e->n_curve < 2) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "engine.torqueCurve has %d point%s; it needs 2 to %d", e->n_curve,
                               e->n_curve == 1 ? "" : "s", PDK_ENGINE_CURVE_MAX);
    }
    for (int i = 1; i < e->n_curve; i++) {
        if (!(e->curve_rpm[i] > e->curve_rpm[i - 1])) {
            pdk_params_format_number(e->curve_rpm[i], a);
            pdk_params_format_number(e->curve_rpm[i - 1], b);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "engine.torqueCurve[%d].rpm (%s rev/min) must be above "
                                   "engine.torqueCurve[%d].rpm (%s rev/min): the speeds rise",
                                   i, a, i - 1, b);
        }
    }
    return PDK_OK;
}

/* The rules between a geared car's keys (sim's, vehicle_def.c, with the
 * values): the gears fall from first to top, the shift speeds lie between
 * idle and the limiter, the box cannot hunt, the clutch grips above idle. */
static pdk_error check_geared(const pdk_vehicle_def *def, char *why, size_t why_len)
{
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    pdk_error rc = check_engine(def, "geared", why, why_len);
    if (rc != PDK_OK) {
        return rc;
    }
    const pdk_engine_def *e = &def->powertrain.engine;
    const pdk_gearbox_def *g = &def->powertrain.geared;
    if (g->n_gears < 1) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "transmission.ratios has no gears; it needs 1 to %d", PDK_GEARS_MAX);
    }
    for (int i = 1; i < g->n_gears; i++) {
        if (!(g->ratio[i] < g->ratio[i - 1])) {
            pdk_params_format_number(g->ratio[i], a);
            pdk_params_format_number(g->ratio[i - 1], b);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "transmission.ratios[%d] (%s) must be less than "
                                   "transmission.ratios[%d] (%s): the ratios fall from first to "
                                   "top",
                                   i, a, i - 1, b);
        }
    }
    const double light = g->upshift_rpm_light;
    rc = check_order(e->idle_rpm, light, true, "engine.idleRpm", "transmission.upshiftRpmLight",
                     "rev/min", why, why_len);
    if (rc == PDK_OK) {
        rc = check_order(light, g->upshift_rpm_full, false, "transmission.upshiftRpmLight",
                         "transmission.upshiftRpmFull", "rev/min", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(g->upshift_rpm_full, e->max_rpm, false, "transmission.upshiftRpmFull",
                         "engine.maxRpm", "rev/min", why, why_len);
    }
    if (rc != PDK_OK) {
        return rc;
    }
    /* After an upshift at the light-load speed the engine turns slower by
     * the gears' step; below the downshift speed the box would go back. */
    for (int i = 0; i + 1 < g->n_gears; i++) {
        double after = light * g->ratio[i + 1] / g->ratio[i];
        if (!(g->downshift_rpm < after)) {
            pdk_params_format_number(g->downshift_rpm, a);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "transmission.downshiftRpm (%s rev/min) must be below "
                                   "transmission.upshiftRpmLight times the step from gear %d to "
                                   "%d, %.6g rev/min, the speed after an upshift at the "
                                   "light-load speed, or the box hunts between the two gears",
                                   a, i + 1, i + 2, after);
        }
    }
    rc = check_order(e->idle_rpm, g->clutch_engage_rpm, true, "engine.idleRpm", "clutch.engageRpm",
                     "rev/min", why, why_len);
    if (rc == PDK_OK) {
        rc = check_order(g->clutch_engage_rpm, g->clutch_full_rpm, true, "clutch.engageRpm",
                         "clutch.fullRpm", "rev/min", why, why_len);
    }
    return rc;
}

/* The rules between a utv's own keys, and the fields that follow from them
 * (vehicle_complete) within the bounds of the keys a lumped vehicle gives
 * them by. */
static pdk_error check_utv(const pdk_vehicle_work *w, char *why, size_t why_len)
{
    const pdk_vehicle_def *def = &w->def;
    const pdk_powertrain_def *pt = &def->powertrain;
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    /* mass.occupants is bounded by the most seats a car may list; the
     * crew cab has PDK_UTV_SEATS. */
    if (w->mass.occupants > PDK_UTV_SEATS) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "mass.occupants (%d) must be at most %d on a utv, the seats of "
                               "the Polaris Ranger CREW's cab",
                               w->mass.occupants, PDK_UTV_SEATS);
    }
    pdk_error rc = check_engine(def, "utv", why, why_len);
    if (rc != PDK_OK) {
        return rc;
    }
    const pdk_cvt_def *c = &pt->cvt;
    rc = check_order(c->high_ratio, c->low_ratio, false, "cvt.highRatio", "cvt.lowRatio", "", why,
                     why_len);
    if (rc == PDK_OK) {
        rc = check_order(c->engage_rpm, c->full_engage_rpm, true, "cvt.engageRpm",
                         "cvt.fullEngageRpm", "rev/min", why, why_len);
    }
    if (rc == PDK_OK) {
        rc = check_order(c->shift_rpm_light, c->shift_rpm_full, false, "cvt.shiftRpmLight",
                         "cvt.shiftRpmFull", "rev/min", why, why_len);
    }
    if (rc != PDK_OK) {
        return rc;
    }
    const pdk_utv_suspension_def *s = &w->suspension;
    double to_stop = s->travel_m - s->droop_m - s->bump_stop_length_m;
    if (!(to_stop >= UTV_MIN_TRAVEL_TO_STOP_M)) {
        pdk_params_format_number(s->travel_m, a);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "suspension.travel (%s m) - suspension.droop - "
                               "suspension.bumpStopLength = %.6g m, the travel from ride height "
                               "to the bump stop; it must be at least %g m",
                               a, to_stop, UTV_MIN_TRAVEL_TO_STOP_M);
    }
    /* The centre of mass the parts give lies between the axles. */
    double cg_x = def->chassis.wheelbase_m - def->chassis.cg_to_front_axle_m;
    if (!(cg_x > 0 && cg_x < def->chassis.wheelbase_m)) {
        pdk_params_format_number(def->chassis.wheelbase_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "the mass.* parts put the centre of mass %.4g m forward of the "
                               "rear axle; it must lie between the axles, within "
                               "chassis.wheelbase (%s m)",
                               cg_x, b);
    }
    /* What follows from the keys (chassis, corners, tyre loads) within the
     * bounds a lumped vehicle's keys for the same fields have; a lumped
     * key that a utv does not derive keeps its default, within them. */
    return derived_within_bounds(w, is_derived_for_utv, "this utv's keys", true, why, why_len);
}

/* A lumped or geared vehicle's payload (payload.h) on its chassis as its
 * keys give it: the occupants within the seats, the cargo within the load
 * space, a chassis that can carry them (the driver taken away leaves a
 * mass; the centre of mass stays between the axles), and the chassis that
 * follows within the bounds of the keys that give it. */
static pdk_error check_payload(const pdk_vehicle_work *w, char *why, size_t why_len)
{
    const pdk_payload_def *p = &w->payload;
    const pdk_chassis_def *given = &w->chassis_given;
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (p->n_seats == 0 && p->occupants != 1) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "mass.occupants (%d) must be 1 on a vehicle without mass.seats: "
                               "its chassis carries its driver, and with no seat positions no "
                               "occupant can be added or taken away",
                               p->occupants);
    }
    if (p->n_seats > 0 && p->occupants > p->n_seats) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "mass.occupants (%d) must be within 0..%d, the %d seat%s that "
                               "mass.seats gives",
                               p->occupants, p->n_seats, p->n_seats, p->n_seats == 1 ? "" : "s");
    }
    if (p->cargo_kg > p->cargo_max_kg) {
        pdk_params_format_number(p->cargo_kg, a);
        pdk_params_format_number(p->cargo_max_kg, b);
        if (p->cargo_max_kg == 0) {
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "mass.cargoKg (%s kg) must be 0: this vehicle has no load "
                                   "space (mass.cargoMaxKg is 0)",
                                   a);
        }
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "mass.cargoKg (%s kg) must be at most mass.cargoMaxKg (%s kg), "
                               "what the load space takes",
                               a, b);
    }
    const char *problem = pdk_payload_problem(given, p);
    if (problem != NULL) {
        pdk_payload_mass m;
        pdk_payload_of(given, p, &m);
        if (!(m.mass_kg > 0)) {
            pdk_params_format_number(p->occupant_kg, a);
            pdk_params_format_number(given->mass_kg, b);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "mass.occupants 0 takes the driver's mass.occupantKg (%s kg) "
                                   "from chassis.mass (%s kg), which leaves %.6g kg",
                                   a, b, m.mass_kg);
        }
        if (!(m.cg_m[0] > 0 && m.cg_m[0] < given->wheelbase_m)) {
            pdk_params_format_number(given->wheelbase_m, b);
            return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                                   "the mass.* payload puts the centre of mass %.4g m forward "
                                   "of the rear axle; it must lie between the axles, within "
                                   "chassis.wheelbase (%s m)",
                                   m.cg_m[0], b);
        }
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len, "%s", problem);
    }
    return derived_within_bounds(w, is_chassis_field, "the chassis.* keys with the mass.* payload",
                                 false, why, why_len);
}

pdk_error pdk_vehicle_cross_check(const void *vdef, json_t *resolved, char *why, size_t why_len)
{
    const pdk_vehicle_def *def = vdef;
    char a[PDK_PARAMS_NUM_LEN];
    char b[PDK_PARAMS_NUM_LEN];
    if (def->powertrain.kind != PDK_POWERTRAIN_UTV) {
        pdk_error rc = check_payload(vdef, why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    if (def->powertrain.kind != PDK_POWERTRAIN_LUMPED) {
        pdk_error rc = def->powertrain.kind == PDK_POWERTRAIN_UTV ? check_utv(vdef, why, why_len)
                                                                  : check_geared(def, why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    pdk_error dbw_rc = check_dbw(def, why, why_len);
    if (dbw_rc != PDK_OK) {
        return dbw_rc;
    }
    if (!(def->chassis.cg_to_front_axle_m < def->chassis.wheelbase_m)) {
        pdk_params_format_number(def->chassis.cg_to_front_axle_m, a);
        pdk_params_format_number(def->chassis.wheelbase_m, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "chassis.cgToFrontAxle (%s m) must be less than chassis.wheelbase "
                               "(%s m): the centre of gravity lies between the axles",
                               a, b);
    }
    /* The single-track model needs the front axle to point forward; real
     * steering stops far short of this (about 35 deg on a car, 50 on a
     * kart). Matches sim's own check (vehicle_def.c). */
    double road_wheel_lock_deg = def->steering.lock_deg / def->steering.ratio;
    if (!(road_wheel_lock_deg < MAX_ROAD_WHEEL_LOCK_DEG)) {
        pdk_params_format_number(def->steering.lock_deg, a);
        pdk_params_format_number(def->steering.ratio, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.lockDeg / steering.ratio = %s / %s gives a road-wheel "
                               "lock of %.1f deg; it must be below %.0f deg",
                               a, b, road_wheel_lock_deg, MAX_ROAD_WHEEL_LOCK_DEG);
    }
    /* Yaw inertia at least PDK_MIN_YAW_INERTIA_RATIO m a b (vehicle_def.h:
     * the dynamic index Iz / (m a b) is 0.8-1.1 for real cars, Milliken ch. 5,
     * and a uniform bar between the axles has 1/3). Matches sim's own check. */
    double least_iz = pdk_vehicle_def_min_yaw_inertia_kgm2(def);
    if (!(def->chassis.yaw_inertia_kgm2 >= least_iz)) {
        pdk_params_format_number(def->chassis.yaw_inertia_kgm2, a);
        pdk_params_format_number(def->chassis.mass_kg, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "chassis.yawInertia (%s kg*m^2) must be at least %.1f * "
                               "chassis.mass (%s kg) * a * b = %.6g kg*m^2, a = cgToFrontAxle and "
                               "b = wheelbase - cgToFrontAxle: real vehicles have 0.8-1.1 m*a*b",
                               a, PDK_MIN_YAW_INERTIA_RATIO, b, least_iz);
    }
    for (int axle = 0; axle < 2; axle++) {
        pdk_error rc = check_axle(def, axle, resolved, why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    /* A power assist has a gain and a most torque, or neither (sim's own
     * check, vehicle_def.c): a gain with no torque to give, or the other way
     * round, is a half-written assist. */
    const pdk_steering_def *feel = &def->steering;
    if ((feel->assist_gain > 0) != (feel->assist_max_nm > 0)) {
        pdk_params_format_number(feel->assist_gain, a);
        pdk_params_format_number(feel->assist_max_nm, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.assistGain (%s) and steering.assistMaxTorque (%s N*m) "
                               "must be both above 0 (a power assist) or both 0 (none)",
                               a, b);
    }
    if (def->model != PDK_MODEL_FOUR_WHEEL) {
        return PDK_OK;
    }
    for (int axle = 0; axle < 2; axle++) {
        pdk_error rc = check_tyre(axle == 0 ? &def->tyre_front : &def->tyre_rear,
                                  axle == 0 ? "front" : "rear", why, why_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    /* The four-wheel model's steering, as sim checks it (vehicle_def.c). */
    const pdk_steering_def *st = &def->steering;
    if (!(fabs(st->center_offset_deg) <= st->lock_deg)) {
        pdk_params_format_number(st->center_offset_deg, a);
        pdk_params_format_number(st->lock_deg, b);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.centerOffsetDeg (%s deg) must be within the lock, "
                               "steering.lockDeg (%s deg), either way",
                               a, b);
    }
    /* Ideal Ackermann steers the inner wheel to atan(L tan d / (L - t/2
     * tan d)) for a bicycle angle d; at full lock it must stay below 80 deg
     * and the denominator positive. */
    double lock_rad = road_wheel_lock_deg * (PI / 180.0);
    double len = def->chassis.wheelbase_m;
    double t = pdk_vehicle_def_track_m(def, 0);
    double den = len - 0.5 * t * tan(lock_rad);
    double inner_deg = den > 0 ? atan(len * tan(lock_rad) / den) * (180.0 / PI) : 180.0;
    if (st->ackermann > 0 && !(den > 0 && inner_deg < MAX_ROAD_WHEEL_LOCK_DEG)) {
        char inner[48];
        if (den > 0) {
            snprintf(inner, sizeof inner, "to %.1f deg", inner_deg);
        } else {
            snprintf(inner, sizeof inner, "past 90 deg");
        }
        pdk_params_format_number(st->ackermann, a);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, why, why_len,
                               "steering.ackermann (%s) is above 0 and the road-wheel lock "
                               "steering.lockDeg / steering.ratio = %.1f deg turns the inner "
                               "front wheel %s at full lock with ideal Ackermann (this "
                               "chassis.wheelbase and front track); it must stay below %.0f deg: "
                               "reduce the lock or set steering.ackermann to 0",
                               a, road_wheel_lock_deg, inner, MAX_ROAD_WHEEL_LOCK_DEG);
    }
    return PDK_OK;
}
