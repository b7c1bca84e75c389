/* A tick's contact events (sim/contact.h's pdk_contact_event) as the
 * protocol's ContactEvents frames (docs/protocol.md "Contact events"). */
#include "wire.h"

static void body_ids(uint32_t kind, uint32_t id, uint32_t *vehicle, uint32_t *proxy)
{
    *vehicle = kind == PDK_CONTACT_BODY_VEHICLE ? id : 0u;
    *proxy = kind == PDK_CONTACT_BODY_PROXY ? id : 0u;
}

pdk_error pdk_wire_contact_frame_append(pdk_buf *out, uint32_t subscription_id, uint64_t session_id,
                                        const pdk_world *world, size_t first, size_t n)
{
    if (!out || !world)
        return PDK_ERR_INVALID_ARGUMENT;
    int count = 0, dropped = 0;
    const pdk_contact_event *events = pdk_world_contact_events(world, &count, &dropped);
    size_t total = count > 0 ? (size_t)count : 0u;
    if (n > PDK_WIRE_CONTACT_EVENTS_PER_FRAME || first > total || n > total - first)
        return PDK_ERR_INVALID_ARGUMENT;
    int missed = pdk_world_contact_missed(world);
    Paddock__V1__ContactEvent items[PDK_WIRE_CONTACT_EVENTS_PER_FRAME];
    Paddock__V1__ContactEvent *ptrs[PDK_WIRE_CONTACT_EVENTS_PER_FRAME];
    for (size_t i = 0; i < n; i++) {
        const pdk_contact_event *e = &events[first + i];
        Paddock__V1__ContactEvent *o = &items[i];
        paddock__v1__contact_event__init(o);
        body_ids(e->a_kind, e->a_id, &o->a_vehicle_id, &o->a_proxy_id);
        body_ids(e->b_kind, e->b_id, &o->b_vehicle_id, &o->b_proxy_id);
        o->x_m = e->point_m[0];
        o->y_m = e->point_m[1];
        o->z_m = e->point_m[2];
        o->nx = e->normal[0];
        o->ny = e->normal[1];
        o->nz = e->normal[2];
        o->ix_ns = e->impulse_ns[0];
        o->iy_ns = e->impulse_ns[1];
        o->iz_ns = e->impulse_ns[2];
        o->normal_impulse_ns = e->normal_impulse_ns;
        o->approach_mps = e->approach_mps;
        o->depth_m = e->depth_m;
        o->points = e->points > 0 ? (uint32_t)e->points : 0u;
        ptrs[i] = o;
    }
    Paddock__V1__ContactEvents m = PADDOCK__V1__CONTACT_EVENTS__INIT;
    m.subscription_id = subscription_id;
    m.session_id = session_id;
    m.tick = pdk_world_tick(world);
    m.sim_time_s = pdk_world_time_s(world);
    m.total = (uint32_t)total;
    m.first = (uint32_t)first;
    m.dropped = dropped > 0 ? (uint32_t)dropped : 0u;
    m.missed = missed > 0 ? (uint32_t)missed : 0u;
    m.n_events = n;
    m.events = ptrs;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.body_case = PADDOCK__V1__FRAME__BODY_CONTACT_EVENTS;
    f.contact_events = &m;
    return pdk_wire_frame_append(out, &f);
}
