/* wire: the recorded bodies of the session inputs that have no command
 * struct in sim (a spawn, a removal, a reset or reseed): each input kind's
 * encode and decode (the session's input table names them), so that only
 * wire calls protobuf-c. DBW commands, tyre commands and kit messages have
 * theirs in wire.c and wire_dbw.c. */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

pdk_error pdk_wire_spawn_encode(uint64_t session_id, const pdk_wire_spawn *in, pdk_buf *out)
{
    if (in == NULL || out == NULL)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__VehicleSpawn msg = PADDOCK__V1__VEHICLE_SPAWN__INIT;
    msg.session_id = session_id;
    msg.preset = (char *)(in->preset ? in->preset : "");
    msg.overrides = (char *)(in->overrides ? in->overrides : "");
    msg.x_m = in->x_m;
    msg.y_m = in->y_m;
    msg.yaw_deg = in->yaw_deg;
    msg.speed_mps = in->speed_mps;
    msg.gear = (Paddock__V1__Gear)in->gear;
    return pdk_wire_pack_append(out, &msg.base);
}

pdk_error pdk_wire_spawn_decode(const uint8_t *body, size_t len, pdk_wire_spawn *out)
{
    if (out == NULL || (body == NULL && len > 0))
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__VehicleSpawn *m = paddock__v1__vehicle_spawn__unpack(NULL, len, body);
    if (!m)
        return PDK_ERR_PARSE;
    out->x_m = m->x_m;
    out->y_m = m->y_m;
    out->yaw_deg = m->yaw_deg;
    out->speed_mps = m->speed_mps;
    out->gear = (pdk_gear)m->gear;
    out->preset = strdup(m->preset ? m->preset : "");
    out->overrides = strdup(m->overrides ? m->overrides : "");
    paddock__v1__vehicle_spawn__free_unpacked(m, NULL);
    if (!out->preset || !out->overrides) {
        free(out->preset);
        free(out->overrides);
        out->preset = out->overrides = NULL;
        return PDK_ERR_NO_MEMORY;
    }
    return PDK_OK;
}

pdk_error pdk_wire_remove_encode(uint64_t session_id, pdk_vehicle_id id, pdk_buf *out)
{
    if (out == NULL)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__VehicleRemove msg = PADDOCK__V1__VEHICLE_REMOVE__INIT;
    msg.session_id = session_id;
    msg.vehicle_id = id;
    return pdk_wire_pack_append(out, &msg.base);
}

pdk_error pdk_wire_remove_decode(const uint8_t *body, size_t len, pdk_vehicle_id *id)
{
    if (id == NULL || (body == NULL && len > 0))
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__VehicleRemove *m = paddock__v1__vehicle_remove__unpack(NULL, len, body);
    if (!m)
        return PDK_ERR_PARSE;
    *id = m->vehicle_id;
    paddock__v1__vehicle_remove__free_unpacked(m, NULL);
    return PDK_OK;
}

pdk_error pdk_wire_reset_encode(uint64_t session_id, pdk_buf *out)
{
    if (out == NULL)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__SessionControl msg = PADDOCK__V1__SESSION_CONTROL__INIT;
    msg.session_id = session_id;
    msg.action_case = PADDOCK__V1__SESSION_CONTROL__ACTION_RESET;
    msg.reset = 1;
    return pdk_wire_pack_append(out, &msg.base);
}

pdk_error pdk_wire_reseed_encode(uint64_t session_id, uint64_t seed, pdk_buf *out)
{
    if (out == NULL)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__SessionControl msg = PADDOCK__V1__SESSION_CONTROL__INIT;
    msg.session_id = session_id;
    msg.action_case = PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED;
    msg.reseed = seed;
    return pdk_wire_pack_append(out, &msg.base);
}

/* A SessionControl body whose action is want; its reseed when seed is set. */
static pdk_error control_decode(const uint8_t *body, size_t len,
                                Paddock__V1__SessionControl__ActionCase want, uint64_t *seed)
{
    if (body == NULL && len > 0)
        return PDK_ERR_INVALID_ARGUMENT;
    Paddock__V1__SessionControl *m = paddock__v1__session_control__unpack(NULL, len, body);
    if (!m)
        return PDK_ERR_PARSE;
    pdk_error e = m->action_case == want ? PDK_OK : PDK_ERR_PARSE;
    if (seed)
        *seed = m->reseed;
    paddock__v1__session_control__free_unpacked(m, NULL);
    return e;
}

pdk_error pdk_wire_reset_decode(const uint8_t *body, size_t len)
{
    return control_decode(body, len, PADDOCK__V1__SESSION_CONTROL__ACTION_RESET, NULL);
}

pdk_error pdk_wire_reseed_decode(const uint8_t *body, size_t len, uint64_t *seed)
{
    if (seed == NULL)
        return PDK_ERR_INVALID_ARGUMENT;
    return control_decode(body, len, PADDOCK__V1__SESSION_CONTROL__ACTION_RESEED, seed);
}
