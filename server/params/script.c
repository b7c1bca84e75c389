/* Drive scripts: JSON files of timed DBW commands, checked field by field
 * into a pdk_script (docs/drive-scripts.md is the user's manual). */
#include "script.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params_internal.h"

/* Bounds that catch typing errors without second-guessing the vehicle: the
 * vehicle's own limits (brake line pressure, steering lock) are the sim's to
 * check when the command is applied. */
#define SCRIPT_T_MAX_S 1e6         /* about 11.6 days */
#define SCRIPT_SPEED_MAX_MPS 150.0 /* 540 km/h */
#define SCRIPT_POSITION_MAX_M 1e6  /* 1000 km from the origin */
#define SCRIPT_YAW_MAX_DEG 360.0
#define PI 3.14159265358979323846

static const char *const top_keys[] = {"description", "initial", "steps"};
static const char *const initial_keys[] = {"speed_mps", "gear", "x_m", "y_m", "yaw_deg"};
static const char *const step_keys[] = {"t", "throttle_pct", "brake_bar", "steer_wheel_deg",
                                        "gear"};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

pdk_error pdk_script_gear_parse(const char *text, pdk_gear *out)
{
    if (text == NULL || out == NULL) {
        return PDK_ERR_INVALID_ARGUMENT;
    }
    if (text[0] == '\0' || text[1] != '\0') {
        return PDK_ERR_OUT_OF_RANGE;
    }
    switch (text[0]) {
    case 'P':
    case 'p':
        *out = PDK_GEAR_PARK;
        return PDK_OK;
    case 'R':
    case 'r':
        *out = PDK_GEAR_REVERSE;
        return PDK_OK;
    case 'N':
    case 'n':
        *out = PDK_GEAR_NEUTRAL;
        return PDK_OK;
    case 'D':
    case 'd':
    case 'H': /* "high" on a lever with H and L is the drive position */
    case 'h':
        *out = PDK_GEAR_DRIVE;
        return PDK_OK;
    case 'L':
    case 'l':
        *out = PDK_GEAR_LOW;
        return PDK_OK;
    default:
        return PDK_ERR_OUT_OF_RANGE;
    }
}

void pdk_script_free(pdk_script *script)
{
    if (script == NULL) {
        return;
    }
    free(script->steps);
    memset(script, 0, sizeof *script);
}

/* An unknown key, with the closest allowed name when one is close (two
 * edits, or the name without its unit suffix), else the allowed names. */
static pdk_error unknown(const char *origin, const char *path, const char *name,
                         const char *const *allowed, size_t n_allowed, char *err, size_t err_len)
{
    const char *best = NULL;
    size_t best_d = 3; /* at most two edits away */
    char list[200] = "";
    size_t used = 0;
    for (size_t i = 0; i < n_allowed; i++) {
        size_t d = pdk_params_edit_distance(name, allowed[i], 2);
        size_t nlen = strlen(name);
        if (nlen > 0 && strncmp(allowed[i], name, nlen) == 0 && allowed[i][nlen] == '_') {
            d = 0; /* the name without its unit suffix: "throttle" */
        }
        if (d < best_d) {
            best_d = d;
            best = allowed[i];
        }
        int n = snprintf(list + used, sizeof list - used, "%s%s", i > 0 ? ", " : "", allowed[i]);
        if (n > 0 && (size_t)n < sizeof list - used) {
            used += (size_t)n;
        }
    }
    if (best != NULL) {
        return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                               "%s: %s%.64s: unknown key (did you mean %s?)", origin, path, name,
                               best);
    }
    return pdk_params_fail(PDK_ERR_UNKNOWN_KEY, err, err_len,
                           "%s: %s%.64s: unknown key (allowed: %s)", origin, path, name, list);
}

static bool is_one_of(const char *name, const char *const *allowed, size_t n_allowed)
{
    for (size_t i = 0; i < n_allowed; i++) {
        if (strcmp(name, allowed[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* A number in [min, max]; path names it in messages ("steps[3].brake_bar"). */
static pdk_error number(const json_t *v, const char *origin, const char *path, double min,
                        double max, const char *unit, double *out, char *err, size_t err_len)
{
    if (!json_is_number(v)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a number, got %s", origin, path,
                               pdk_params_json_type(v));
    }
    double x = json_number_value(v);
    char xt[PDK_PARAMS_NUM_LEN];
    char bt[PDK_PARAMS_NUM_LEN];
    pdk_params_format_number(x, xt);
    if (!isfinite(x)) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len, "%s: %s: %s is not finite",
                               origin, path, xt);
    }
    if (x < min) {
        pdk_params_format_number(min, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s is below the minimum %s (%s)", origin, path, xt, bt,
                               unit);
    }
    if (x > max) {
        pdk_params_format_number(max, bt);
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: %s is above the maximum %s (%s)", origin, path, xt, bt,
                               unit);
    }
    *out = x;
    return PDK_OK;
}

static pdk_error gear(const json_t *v, const char *origin, const char *path, pdk_gear *out,
                      char *err, size_t err_len)
{
    if (!json_is_string(v)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: %s: expected a gear letter (a string), got %s", origin, path,
                               pdk_params_json_type(v));
    }
    if (pdk_script_gear_parse(json_string_value(v), out) != PDK_OK) {
        return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len,
                               "%s: %s: \"%.32s\" is not a gear (use P, R, N, D or L; H means D)",
                               origin, path, json_string_value(v));
    }
    return PDK_OK;
}

static pdk_error parse_initial(const json_t *initial, const char *origin, pdk_script *s, char *err,
                               size_t err_len)
{
    if (!json_is_object(initial)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: initial: expected an object, got %s", origin,
                               pdk_params_json_type(initial));
    }
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)initial, name, v)
    {
        if (!is_one_of(name, initial_keys, N_ELEMS(initial_keys))) {
            return unknown(origin, "initial.", name, initial_keys, N_ELEMS(initial_keys), err,
                           err_len);
        }
    }
    pdk_error rc = PDK_OK;
    if ((v = json_object_get(initial, "speed_mps")) != NULL) {
        rc = number(v, origin, "initial.speed_mps", 0, SCRIPT_SPEED_MAX_MPS, "m/s",
                    &s->initial_speed_mps, err, err_len);
        s->initial_fields |= PDK_SCRIPT_INIT_SPEED;
    }
    if (rc == PDK_OK && (v = json_object_get(initial, "gear")) != NULL) {
        rc = gear(v, origin, "initial.gear", &s->initial_gear, err, err_len);
        s->initial_fields |= PDK_SCRIPT_INIT_GEAR;
    }
    if (rc == PDK_OK && (v = json_object_get(initial, "x_m")) != NULL) {
        rc = number(v, origin, "initial.x_m", -SCRIPT_POSITION_MAX_M, SCRIPT_POSITION_MAX_M, "m",
                    &s->initial_pose.x_m, err, err_len);
        s->initial_fields |= PDK_SCRIPT_INIT_X;
    }
    if (rc == PDK_OK && (v = json_object_get(initial, "y_m")) != NULL) {
        rc = number(v, origin, "initial.y_m", -SCRIPT_POSITION_MAX_M, SCRIPT_POSITION_MAX_M, "m",
                    &s->initial_pose.y_m, err, err_len);
        s->initial_fields |= PDK_SCRIPT_INIT_Y;
    }
    if (rc == PDK_OK && (v = json_object_get(initial, "yaw_deg")) != NULL) {
        double yaw_deg = 0;
        rc = number(v, origin, "initial.yaw_deg", -SCRIPT_YAW_MAX_DEG, SCRIPT_YAW_MAX_DEG, "deg",
                    &yaw_deg, err, err_len);
        s->initial_yaw_deg = yaw_deg;
        s->initial_pose.yaw_rad = pdk_script_deg_to_rad(yaw_deg);
        s->initial_fields |= PDK_SCRIPT_INIT_YAW;
    }
    return rc;
}

static pdk_error parse_step(const json_t *step, size_t i, double t_prev, const char *origin,
                            pdk_script_step *out, char *err, size_t err_len)
{
    char path[64];
    if (!json_is_object(step)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: steps[%zu]: expected an object, got %s", origin, i,
                               pdk_params_json_type(step));
    }
    const char *name;
    const json_t *v;
    snprintf(path, sizeof path, "steps[%zu].", i);
    json_object_foreach((json_t *)step, name, v)
    {
        if (!is_one_of(name, step_keys, N_ELEMS(step_keys))) {
            return unknown(origin, path, name, step_keys, N_ELEMS(step_keys), err, err_len);
        }
    }

    memset(out, 0, sizeof *out);
    v = json_object_get(step, "t");
    if (v == NULL) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                               "%s: steps[%zu].t: missing (every step needs its time in "
                               "seconds from the start)",
                               origin, i);
    }
    if (!json_is_number(v)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: steps[%zu].t: expected a number, got %s", origin, i,
                               pdk_params_json_type(v));
    }
    double t = json_number_value(v);
    char tt[PDK_PARAMS_NUM_LEN];
    char pt[PDK_PARAMS_NUM_LEN];
    pdk_params_format_number(t, tt);
    if (!isfinite(t) || t < 0 || t > SCRIPT_T_MAX_S) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                               "%s: steps[%zu].t: %s s is outside 0 to %g s", origin, i, tt,
                               SCRIPT_T_MAX_S);
    }
    if (t < t_prev) {
        pdk_params_format_number(t_prev, pt);
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                               "%s: steps[%zu].t: %s s is earlier than steps[%zu].t = %s s; "
                               "times must not decrease",
                               origin, i, tt, i - 1, pt);
    }
    out->t_s = t;

    pdk_dbw_cmd *cmd = &out->cmd;
    pdk_error rc = PDK_OK;
    if ((v = json_object_get(step, "throttle_pct")) != NULL) {
        snprintf(path, sizeof path, "steps[%zu].throttle_pct", i);
        rc = number(v, origin, path, 0, 100, "%", &cmd->throttle_pct, err, err_len);
        cmd->fields |= PDK_DBW_THROTTLE;
    }
    if (rc == PDK_OK && (v = json_object_get(step, "brake_bar")) != NULL) {
        snprintf(path, sizeof path, "steps[%zu].brake_bar", i);
        rc = number(v, origin, path, 0, HUGE_VAL, "bar", &cmd->brake_bar, err, err_len);
        cmd->fields |= PDK_DBW_BRAKE;
    }
    if (rc == PDK_OK && (v = json_object_get(step, "steer_wheel_deg")) != NULL) {
        snprintf(path, sizeof path, "steps[%zu].steer_wheel_deg", i);
        rc = number(v, origin, path, -HUGE_VAL, HUGE_VAL, "deg", &cmd->steer_wheel_deg, err,
                    err_len);
        cmd->fields |= PDK_DBW_STEER;
    }
    if (rc == PDK_OK && (v = json_object_get(step, "gear")) != NULL) {
        snprintf(path, sizeof path, "steps[%zu].gear", i);
        rc = gear(v, origin, path, &cmd->gear, err, err_len);
        cmd->fields |= PDK_DBW_GEAR;
    }
    if (rc == PDK_OK && cmd->fields == 0) {
        rc = pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                             "%s: steps[%zu]: no command (give at least one of throttle_pct, "
                             "brake_bar, steer_wheel_deg, gear)",
                             origin, i);
    }
    return rc;
}

static pdk_error parse_doc(const json_t *doc, const char *origin, pdk_script *s, char *err,
                           size_t err_len)
{
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)doc, name, v)
    {
        if (!is_one_of(name, top_keys, N_ELEMS(top_keys))) {
            return unknown(origin, "", name, top_keys, N_ELEMS(top_keys), err, err_len);
        }
    }
    v = json_object_get(doc, "description");
    if (v != NULL && !json_is_string(v)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: description: expected a string, got %s", origin,
                               pdk_params_json_type(v));
    }
    v = json_object_get(doc, "initial");
    if (v != NULL) {
        pdk_error rc = parse_initial(v, origin, s, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    const json_t *steps = json_object_get(doc, "steps");
    if (steps == NULL) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                               "%s: steps: missing (a script is a list of timed steps)", origin);
    }
    if (!json_is_array(steps)) {
        return pdk_params_fail(PDK_ERR_WRONG_TYPE, err, err_len,
                               "%s: steps: expected an array, got %s", origin,
                               pdk_params_json_type(steps));
    }
    size_t n = json_array_size(steps);
    if (n == 0) {
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len,
                               "%s: steps: empty (a script needs at least one step)", origin);
    }
    s->steps = calloc(n, sizeof *s->steps);
    if (s->steps == NULL) {
        return pdk_params_fail(PDK_ERR_NO_MEMORY, err, err_len, "%s: out of memory", origin);
    }
    double t_prev = 0;
    for (size_t i = 0; i < n; i++) {
        pdk_error rc =
            parse_step(json_array_get(steps, i), i, t_prev, origin, &s->steps[i], err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
        t_prev = s->steps[i].t_s;
        s->n_steps = i + 1;
    }
    return PDK_OK;
}

pdk_error pdk_script_parse(const char *json_text, const char *origin, pdk_script *out, char *err,
                           size_t err_len)
{
    if (origin == NULL) {
        origin = "(text)";
    }
    if (out == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "%s: no output script given",
                               origin);
    }
    memset(out, 0, sizeof *out);
    if (json_text == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len, "%s: no JSON text given",
                               origin);
    }
    json_t *doc = NULL;
    pdk_error rc = pdk_params_load_object(json_text, strlen(json_text), origin, &doc, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    rc = parse_doc(doc, origin, out, err, err_len);
    json_decref(doc);
    if (rc != PDK_OK) {
        pdk_script_free(out);
    }
    return rc;
}

pdk_error pdk_script_load(const char *path, pdk_script *out, char *err, size_t err_len)
{
    if (out == NULL || path == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "no script path or no output script given");
    }
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    pdk_error rc = pdk_params_read_file(path, PDK_PARAMS_SCRIPT_MAX_BYTES, PDK_ERR_IO, &text, &len,
                                        err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    if (strlen(text) != len) {
        free(text);
        return pdk_params_fail(PDK_ERR_PARSE, err, err_len, "%s: contains a NUL byte", path);
    }
    rc = pdk_script_parse(text, path, out, err, err_len);
    free(text);
    return rc;
}

double pdk_script_deg_to_rad(double deg)
{
    return deg * (PI / 180.0);
}

/* The sentence for the first field of cmd that def refuses (why is the
 * vehicle's own reason, pdk_vehicle_def_command_problem): the field's value
 * and the vehicle's limit under its preset key, so that a user can see at
 * once which of the two to change. */
static void refusal(const pdk_dbw_cmd *cmd, const pdk_vehicle_def *def, const char *vehicle,
                    const char *why, char *out, size_t out_len)
{
    static const uint32_t order[] = {PDK_DBW_THROTTLE, PDK_DBW_BRAKE, PDK_DBW_STEER, PDK_DBW_GEAR,
                                     PDK_DBW_GEAR_NUMBER};
    uint32_t field = 0u;
    for (size_t k = 0; k < N_ELEMS(order) && field == 0u; k++) {
        pdk_dbw_cmd one = *cmd;
        one.fields = cmd->fields & order[k];
        if (one.fields != 0u && pdk_vehicle_def_command_problem(def, &one) != NULL) {
            field = order[k];
        }
    }
    switch (field) {
    case PDK_DBW_THROTTLE:
        snprintf(out, out_len, "throttle_pct %g is outside 0..100", cmd->throttle_pct);
        break;
    case PDK_DBW_BRAKE:
        if (cmd->brake_bar > def->brake.max_line_bar) {
            snprintf(out, out_len, "brake_bar %g is above %s's brakes.maxLineBar %g",
                     cmd->brake_bar, vehicle, def->brake.max_line_bar);
        } else {
            snprintf(out, out_len, "brake_bar %g is outside 0..%s's brakes.maxLineBar %g",
                     cmd->brake_bar, vehicle, def->brake.max_line_bar);
        }
        break;
    case PDK_DBW_STEER:
        snprintf(out, out_len, "steer_wheel_deg %g is beyond %s's steering.lockDeg %g either way",
                 cmd->steer_wheel_deg, vehicle, def->steering.lock_deg);
        break;
    case PDK_DBW_GEAR_NUMBER:
        snprintf(out, out_len, "gear_number %d: %s (%s)", (int)cmd->gear_number, why, vehicle);
        break;
    default: /* the gear, whose bound is the same for every vehicle */
        snprintf(out, out_len, "%s (%s)", why, vehicle);
        break;
    }
}

pdk_error pdk_script_step_check(const pdk_script_step *step, size_t index,
                                const pdk_vehicle_def *def, const char *vehicle, char *err,
                                size_t err_len)
{
    if (step == NULL || def == NULL || vehicle == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "script step check: step, vehicle definition or name is NULL");
    }
    const char *why = pdk_vehicle_def_command_problem(def, &step->cmd);
    if (why == NULL) {
        return PDK_OK;
    }
    char what[256];
    refusal(&step->cmd, def, vehicle, why, what, sizeof what);
    return pdk_params_fail(PDK_ERR_OUT_OF_RANGE, err, err_len, "step %zu (t=%.3f s): %s", index,
                           step->t_s, what);
}

pdk_error pdk_script_check(const pdk_script *script, const pdk_vehicle_def *def,
                           const char *vehicle, char *err, size_t err_len)
{
    if (script == NULL) {
        return pdk_params_fail(PDK_ERR_INVALID_ARGUMENT, err, err_len,
                               "script check: script is NULL");
    }
    for (size_t i = 0; i < script->n_steps; i++) {
        pdk_error rc = pdk_script_step_check(&script->steps[i], i, def, vehicle, err, err_len);
        if (rc != PDK_OK) {
            return rc;
        }
    }
    return PDK_OK;
}
