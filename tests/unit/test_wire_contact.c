/* Unit tests for server/wire/wire_contact.c: a tick's contact events as
 * ContactEvents frames. Forty sedans stacked 1 cm apart overflow every
 * contact buffer in one step (64 events reported, the rest dropped, pairs
 * missed); the frames written in two parts decode, through protobuf-c, to
 * the world's events bit for bit with the tick's counts, and every refusal
 * leaves the buffer as it was. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sim/contact.h"
#include "sim/world.h"
#include "wire.h"
#include "wire_test_util.h"

#define PRESETS PDK_SOURCE_DIR "/presets"

/* The flat world with 40 slots, 40 sedans 1 cm apart, stepped once. */
static pdk_world *packed_world(void)
{
    char err[PDK_PARAMS_ERR_LEN];
    pdk_world_def wd;
    pdk_vehicle_def def;
    ck_assert_msg(pdk_params_world_load(PRESETS, "flat", NULL, &wd, NULL, err, sizeof err) ==
                      PDK_OK,
                  "%s", err);
    wd.max_vehicles = 40;
    ck_assert_msg(pdk_params_vehicle_load(PRESETS, "midsize_sedan", NULL, &def, NULL, err,
                                          sizeof err) == PDK_OK,
                  "%s", err);
    size_t bytes = (pdk_world_mem_size(&wd) + 63u) / 64u * 64u;
    void *mem = aligned_alloc(64, bytes);
    ck_assert_ptr_nonnull(mem);
    pdk_world *w = NULL;
    ck_assert_int_eq(pdk_world_init(mem, bytes, &wd, &w), PDK_OK);
    for (int i = 0; i < 40; i++) {
        pdk_pose pose = {0.01 * i, 0.0, 0.0};
        pdk_vehicle_id id = 0;
        ck_assert_int_eq(pdk_world_spawn(w, &def, &pose, 0.0, PDK_GEAR_NEUTRAL, &id), PDK_OK);
    }
    pdk_world_step(w);
    return w;
}

static uint32_t vehicle_or_0(uint32_t kind, uint32_t id)
{
    return kind == PDK_CONTACT_BODY_VEHICLE ? id : 0u;
}

START_TEST(frames_hold_the_world_events_bit_for_bit)
{
    pdk_world *w = packed_world();
    int count = 0, dropped = 0;
    const pdk_contact_event *ev = pdk_world_contact_events(w, &count, &dropped);
    int missed = pdk_world_contact_missed(w);
    ck_assert_int_eq(count, 64);
    ck_assert_int_gt(dropped, 0);
    ck_assert_int_gt(missed, 0);
    /* Two frames, as a subscriber gets a tick of more than a frame holds:
     * events 0..39, then 40..63. */
    const size_t parts[2][2] = {{0, 40}, {40, 24}};
    for (int p = 0; p < 2; p++) {
        pdk_buf out = {0};
        ck_assert_int_eq(pdk_wire_contact_frame_append(&out, 7, 9, w, parts[p][0], parts[p][1]),
                         PDK_OK);
        size_t len = 0;
        const uint8_t *data = frame_body(&out, &len);
        pdk_error derr = PDK_OK;
        Paddock__V1__Frame *f = pdk_wire_frame_decode(data, len, &derr);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(f->body_case, PADDOCK__V1__FRAME__BODY_CONTACT_EVENTS);
        const Paddock__V1__ContactEvents *m = f->contact_events;
        ck_assert_uint_eq(m->subscription_id, 7);
        ck_assert_uint_eq(m->session_id, 9);
        ck_assert_uint_eq(m->tick, pdk_world_tick(w));
        ck_assert(m->sim_time_s == pdk_world_time_s(w));
        ck_assert_uint_eq(m->total, 64);
        ck_assert_uint_eq(m->first, parts[p][0]);
        ck_assert_uint_eq(m->dropped, (uint32_t)dropped);
        ck_assert_uint_eq(m->missed, (uint32_t)missed);
        ck_assert_uint_eq(m->n_events, parts[p][1]);
        for (size_t i = 0; i < m->n_events; i++) {
            const Paddock__V1__ContactEvent *o = m->events[i];
            const pdk_contact_event *e = &ev[parts[p][0] + i];
            ck_assert_uint_eq(o->a_vehicle_id, vehicle_or_0(e->a_kind, e->a_id));
            ck_assert_uint_eq(o->b_vehicle_id, vehicle_or_0(e->b_kind, e->b_id));
            ck_assert_uint_eq(o->a_proxy_id, 0);
            ck_assert_uint_eq(o->b_proxy_id, 0);
            const double got[13] = {
                o->x_m,          o->y_m,     o->z_m,           o->nx,    o->ny,
                o->nz,           o->ix_ns,   o->iy_ns,         o->iz_ns, o->normal_impulse_ns,
                o->approach_mps, o->depth_m, (double)o->points};
            const double want[13] = {e->point_m[0],        e->point_m[1],    e->point_m[2],
                                     e->normal[0],         e->normal[1],     e->normal[2],
                                     e->impulse_ns[0],     e->impulse_ns[1], e->impulse_ns[2],
                                     e->normal_impulse_ns, e->approach_mps,  e->depth_m,
                                     (double)e->points};
            ck_assert_msg(memcmp(got, want, sizeof got) == 0, "event %zu differs", parts[p][0] + i);
        }
        pdk_wire_frame_free(f);
        pdk_buf_free(&out);
    }
    free(w);
}
END_TEST

START_TEST(refuses_ranges_beyond_the_tick_and_the_frame)
{
    pdk_world *w = packed_world();
    pdk_buf out = {0};
    /* More than a frame holds; a start past the tick's events; a range
     * running past them; no world; no buffer. */
    ck_assert_int_eq(pdk_wire_contact_frame_append(&out, 1, 1, w, 0, 65), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_contact_frame_append(&out, 1, 1, w, 65, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_contact_frame_append(&out, 1, 1, w, 40, 25),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_contact_frame_append(&out, 1, 1, NULL, 0, 0),
                     PDK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(pdk_wire_contact_frame_append(NULL, 1, 1, w, 0, 0), PDK_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(out.len, 0);
    pdk_buf_free(&out);
    free(w);
}
END_TEST

static Suite *wire_contact_suite(void)
{
    Suite *s = suite_create("wire_contact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, frames_hold_the_world_events_bit_for_bit);
    tcase_add_test(tc, refuses_ranges_beyond_the_tick_and_the_frame);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wire_contact_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
