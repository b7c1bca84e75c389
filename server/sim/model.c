/* The list of vehicle models (model.h): the one place a model kind is
 * named beside its table. */
#include "model.h"

const pdk_model_ops *const pdk_models[PDK_MODEL_COUNT] = {&pdk_model_four_wheel,
                                                          &pdk_model_single_track};

const pdk_model_ops *const pdk_model_by_kind[PDK_MODEL_KIND_END] = {
    [PDK_MODEL_SINGLE_TRACK] = &pdk_model_single_track,
    [PDK_MODEL_FOUR_WHEEL] = &pdk_model_four_wheel,
};

_Static_assert(PDK_MODEL_SINGLE_TRACK < PDK_MODEL_KIND_END &&
                   PDK_MODEL_FOUR_WHEEL < PDK_MODEL_KIND_END,
               "PDK_MODEL_KIND_END must lie above every pdk_model value");
