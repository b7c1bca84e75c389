/* One vehicle on a world of its own (vrun.h). */
#include "vrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

int pdk_vrun_vehicle(pdk_job *job, const char *overrides, pdk_vehicle_def *out)
{
    char err[PDK_PARAMS_ERR_LEN];
    if (pdk_params_vehicle_load(job->presets_dir, job->preset, overrides, out, NULL, err,
                                sizeof err) != PDK_OK) {
        snprintf(job->error, sizeof job->error, "vehicle %s (%.200s): %.600s", job->preset,
                 overrides ? overrides : "as shipped", err);
        return -1;
    }
    return 0;
}

int pdk_vrun_world(pdk_job *job, const char *name, const char *overrides, pdk_world_def *out)
{
    char err[PDK_PARAMS_ERR_LEN];
    if (pdk_params_world_load(job->presets_dir, name, overrides, out, NULL, err, sizeof err) !=
        PDK_OK) {
        snprintf(job->error, sizeof job->error, "world %s (%.200s): %.600s", name,
                 overrides ? overrides : "as shipped", err);
        return -1;
    }
    out->substeps = job->substeps;
    out->max_vehicles = 1;
    return 0;
}

int pdk_vrun_start(pdk_job *job, pdk_vrun *run, const pdk_world_def *wdef,
                   const pdk_vehicle_def *vdef, double x_m, double y_m, double yaw_rad,
                   double speed_mps, pdk_gear gear)
{
    memset(run, 0, sizeof *run);
    run->def = *vdef;
    const size_t bytes = pdk_world_mem_size(wdef);
    const char *why = pdk_world_def_problem(wdef);
    if (bytes == 0 || why) {
        snprintf(job->error, sizeof job->error, "%s: world: %s", job->preset,
                 why ? why : "no size");
        return -1;
    }
    run->mem = aligned_alloc(16, (bytes + 15) / 16 * 16);
    if (!run->mem || pdk_world_init(run->mem, bytes, wdef, &run->world) != PDK_OK) {
        snprintf(job->error, sizeof job->error, "%s: world: out of memory", job->preset);
        free(run->mem);
        run->mem = NULL;
        return -1;
    }
    const pdk_pose pose = {x_m, y_m, yaw_rad};
    why = pdk_world_spawn_problem(run->world, vdef, &pose, speed_mps, gear);
    if (why || pdk_world_spawn(run->world, vdef, &pose, speed_mps, gear, &run->id) != PDK_OK) {
        snprintf(job->error, sizeof job->error, "%s: spawn: %s", job->preset,
                 why ? why : "refused");
        pdk_vrun_end(run);
        return -1;
    }
    pdk_vrun_warm_tyres(run);
    run->cmd.gear = gear;
    run->ch = pdk_world_channels(run->world, run->id);
    pdk_world_vehicle_pose(run->world, run->id, &run->pose);
    return 0;
}

void pdk_vrun_warm_tyres(pdk_vrun *run)
{
    if (run->def.model == PDK_MODEL_FOUR_WHEEL) {
        const pdk_tyre_input front = {0x3u, PDK_TYRE_SET_TEMPERATURE,
                                      run->def.tyre_front.life.optimal_temp_c};
        const pdk_tyre_input rear = {0xcu, PDK_TYRE_SET_TEMPERATURE,
                                     run->def.tyre_rear.life.optimal_temp_c};
        pdk_world_tyre_input(run->world, run->id, &front);
        pdk_world_tyre_input(run->world, run->id, &rear);
    }
}

void pdk_vrun_drive(pdk_vrun *run, double throttle_pct, double brake_bar, double steer_wheel_deg)
{
    const double lock = run->def.steering.lock_deg;
    pdk_dbw_cmd c = {0};
    c.fields = PDK_DBW_THROTTLE | PDK_DBW_BRAKE | PDK_DBW_STEER;
    c.throttle_pct = fmin(100.0, fmax(0.0, throttle_pct));
    c.brake_bar = fmin(run->def.brake.max_line_bar, fmax(0.0, brake_bar));
    c.steer_wheel_deg =
        fmin(lock, fmax(-lock, run->def.steering.center_offset_deg + steer_wheel_deg));
    pdk_world_command(run->world, run->id, &c);
    run->cmd.throttle_pct = c.throttle_pct;
    run->cmd.brake_bar = c.brake_bar;
    run->cmd.steer_wheel_deg = c.steer_wheel_deg;
}

void pdk_vrun_gear(pdk_vrun *run, pdk_gear gear)
{
    pdk_dbw_cmd c = {0};
    c.fields = PDK_DBW_GEAR;
    c.gear = gear;
    pdk_world_command(run->world, run->id, &c);
    run->cmd.gear = gear;
}

void pdk_vrun_tick(pdk_vrun *run)
{
    pdk_world_step(run->world);
    run->ch = pdk_world_channels(run->world, run->id);
    pdk_world_vehicle_pose(run->world, run->id, &run->pose);
}

double pdk_vrun_time_s(const pdk_vrun *run)
{
    return pdk_world_time_s(run->world);
}

void pdk_vrun_end(pdk_vrun *run)
{
    free(run->mem);
    run->mem = NULL;
    run->world = NULL;
}
