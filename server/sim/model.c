/* The list of vehicle models (model.h): the one place a model kind is
 * named beside its table; and a definition's check, the rules every model
 * shares and then its model's own. */
#include "model.h"

#include "vehicle/vehicle_rules.h"

const pdk_model_ops *const pdk_models[PDK_MODEL_COUNT] = {&pdk_model_four_wheel,
                                                          &pdk_model_single_track};

const pdk_model_ops *const pdk_model_by_kind[PDK_MODEL_KIND_END] = {
    [PDK_MODEL_SINGLE_TRACK] = &pdk_model_single_track,
    [PDK_MODEL_FOUR_WHEEL] = &pdk_model_four_wheel,
};

_Static_assert(PDK_MODEL_SINGLE_TRACK < PDK_MODEL_KIND_END &&
                   PDK_MODEL_FOUR_WHEEL < PDK_MODEL_KIND_END,
               "PDK_MODEL_KIND_END must lie above every pdk_model value");

static pdk_error check_def(const pdk_vehicle_def *def, const char **why)
{
    *why = NULL;
    if (def == NULL) {
        *why = "vehicle definition is NULL";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    uint32_t kind = (uint32_t)def->model;
    if (kind >= PDK_MODEL_KIND_END || pdk_model_by_kind[kind] == NULL) {
        *why = "model must be PDK_MODEL_SINGLE_TRACK (1) or PDK_MODEL_FOUR_WHEEL (2)";
        return PDK_ERR_INVALID_ARGUMENT;
    }
    pdk_error err = pdk_vehicle_def_common_check(def, why);
    if (err == PDK_OK) {
        err = pdk_model_by_kind[kind]->def_check(def, why);
    }
    return err;
}

pdk_error pdk_vehicle_def_check(const pdk_vehicle_def *def)
{
    const char *why;
    return check_def(def, &why);
}

const char *pdk_vehicle_def_problem(const pdk_vehicle_def *def)
{
    const char *why;
    (void)check_def(def, &why);
    return why;
}
