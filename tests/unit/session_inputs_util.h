/* Test helpers: one input of each kind queued on a session, as the request
 * handlers queue them (a pdk_input through pdk_session_queue_input, which
 * goes through the kind's entry in the input table, input_kind.h). */
#ifndef PDK_SESSION_INPUTS_UTIL_H
#define PDK_SESSION_INPUTS_UTIL_H

#include "session.h"

static inline pdk_error queue_remove(pdk_session *s, pdk_vehicle_id id, pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_REMOVE, .vehicle = id};
    return pdk_session_queue_input(s, &in, to);
}

static inline pdk_error queue_dbw(pdk_session *s, pdk_vehicle_id id, const pdk_dbw_cmd *cmd,
                                  pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_DBW, .vehicle = id, .u.cmd = *cmd};
    return pdk_session_queue_input(s, &in, to);
}

static inline pdk_error queue_tyre(pdk_session *s, pdk_vehicle_id id, const pdk_tyre_input *tyre,
                                   pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_TYRE, .vehicle = id, .u.tyre = *tyre};
    return pdk_session_queue_input(s, &in, to);
}

static inline pdk_error queue_dbw_kit(pdk_session *s, pdk_vehicle_id id, const pdk_dbw_msg *msg,
                                      pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_DBW_KIT, .vehicle = id, .u.kit = *msg};
    return pdk_session_queue_input(s, &in, to);
}

static inline pdk_error queue_reset(pdk_session *s, pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_RESET};
    return pdk_session_queue_input(s, &in, to);
}

static inline pdk_error queue_reseed(pdk_session *s, uint64_t seed, pdk_reply_to to)
{
    pdk_input in = {.kind = PDK_INPUT_RESEED, .u.seed = seed};
    return pdk_session_queue_input(s, &in, to);
}

#endif
