/* Large worlds on the wire (issue 27), against the real paddockd on
 * loopback: a session of 3,000 cars streams every car of a tick to the C
 * client, whose StateBatch holds 64, as parts 0..46 of one tick;
 * `paddock watch` prints all 3,000 of a tick, or those of an area of
 * interest, and names a bad area. */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "harness_check.h"
#include "paddock_client.h"

#define CARS 3000u
#define CLI PDK_PADDOCK " --server %s "

static char log_text[1 << 20];
static paddock_v1_Frame req, rep, got;
static pdk_test_server srv;
static pdk_client c;

/* A session made for CARS cars, not recorded (what is tested is the
 * stream), filled with CARS sedans on a grid: the spawns pipelined, every
 * reply a VehicleSpawned. */
static uint64_t full_session(void)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    strcpy(req.body.session_create.name, "large");
    snprintf(req.body.session_create.world_overrides,
             sizeof(req.body.session_create.world_overrides), "maxVehicles=%u", CARS);
    req.body.session_create.no_record = true;
    pdk_test_call_ok(&c, &req, &rep, "SessionCreate");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_session_created_tag);
    uint64_t sid = rep.body.session_created.session.session_id;
    for (unsigned i = 0; i < CARS; i++) {
        pdk_test_fill_spawn(&req, sid, "midsize_sedan", i, 60);
        ck_assert_msg(pdk_client_send(&c, &req) == PDK_CLIENT_OK, "spawn %u: %s", i, c.error);
    }
    for (unsigned i = 0; i < CARS; i++) {
        ck_assert_msg(pdk_client_recv(&c, &got, 30000) == PDK_CLIENT_OK, "reply %u: %s", i,
                      c.error);
        ck_assert_msg(got.which_body == paddock_v1_Frame_vehicle_spawned_tag, "reply %u: %s", i,
                      got.which_body == paddock_v1_Frame_error_tag ? got.body.error.message
                                                                   : "not VehicleSpawned");
    }
    return sid;
}

START_TEST(a_tick_of_3000_cars_reaches_the_c_client_and_watch)
{
    const char *const extra[] = {"--max-spawns-per-tick", "4096", NULL};
    pdk_test_start_ok(&srv, extra, log_text, sizeof(log_text));
    pdk_test_connect_ok(&c, &srv, "large", 5000);
    uint64_t sid = full_session();

    /* The C client asks for batches it can decode: 64 vehicles each. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 10;
    pdk_test_call_ok(&c, &req, &rep, "Subscribe");
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_subscribed_tag);
    ck_assert_uint_eq(req.body.subscribe.max_batch_vehicles, PDK_CLIENT_STATE_BATCH_VEHICLES);
    uint32_t sub = rep.body.subscribed.subscription_id;

    /* From the first part 0 on, one whole tick: its parts in order, all of
     * one tick, every car once. */
    const uint32_t parts = (CARS + 63u) / 64u;
    static bool seen[CARS + 1];
    memset(seen, 0, sizeof(seen));
    uint64_t tick = 0;
    uint32_t next = 0, cars = 0;
    for (int frames = 0; next < parts; frames++) {
        ck_assert_int_lt(frames, 4 * (int)parts);
        ck_assert_msg(pdk_client_recv(&c, &got, 10000) == PDK_CLIENT_OK, "%s", c.error);
        ck_assert_int_eq(got.which_body, paddock_v1_Frame_state_batch_tag);
        const paddock_v1_StateBatch *b = &got.body.state_batch;
        ck_assert_uint_eq(b->subscription_id, sub);
        ck_assert_uint_eq(b->parts, parts);
        if (next == 0 && b->part != 0)
            continue; /* the middle of a tick before ours */
        ck_assert_uint_eq(b->part, next);
        if (next == 0)
            tick = b->tick;
        ck_assert_uint_eq(b->tick, tick);
        ck_assert_uint_eq(b->vehicles_count, next + 1 < parts ? 64 : CARS - 64 * (parts - 1));
        for (pb_size_t i = 0; i < b->vehicles_count; i++) {
            uint32_t id = b->vehicles[i].vehicle_id & 0xffffu; /* the slot, below the generation */
            ck_assert_uint_le(id, CARS);
            ck_assert_msg(!seen[id], "vehicle %u twice in tick %" PRIu64, id, tick);
            seen[id] = true;
            cars++;
        }
        next++;
    }
    ck_assert_uint_eq(cars, CARS);
    pdk_client_close(&c);

    /* The CLI prints every car of a tick: a header, then one line each,
     * all of the same tick, no id twice. */
    char dir[256], out[4096];
    pdk_test_tmpdir(dir, sizeof(dir));
    int rc = pdk_test_sh(out, sizeof(out),
                         CLI "watch --session %" PRIu64 " --count 1 > %s/watch.txt", srv.addr,
                         sid, dir);
    ck_assert_msg(rc == 0, "watch exited %d: %s", rc, out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), "head -n 1 %s/watch.txt", dir), 0);
    ck_assert_msg(strstr(out, "TICK") != NULL, "no header: %s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), "tail -n +2 %s/watch.txt | wc -l", dir), 0);
    ck_assert_int_eq(atoi(out), (int)CARS);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "tail -n +2 %s/watch.txt | awk '{print $1}' | sort -u | wc -l",
                                 dir),
                     0);
    ck_assert_msg(atoi(out) == 1, "lines of more than one tick: %s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 "tail -n +2 %s/watch.txt | awk '{print $3}' | sort -u | wc -l",
                                 dir),
                     0);
    ck_assert_int_eq(atoi(out), (int)CARS);

    /* An area of interest: of a grid 8 m apart, the 8 cars within 20 m of
     * the first, by point and by vehicle. */
    const char *const centres[] = {"--at 0,0", "--around 1"};
    for (size_t i = 0; i < 2; i++) {
        rc = pdk_test_sh(out, sizeof(out),
                         CLI "watch --session %" PRIu64 " --count 1 --radius 20 %s 2>&1 >%s/near.txt",
                         srv.addr, sid, centres[i], dir);
        ck_assert_msg(rc == 0, "watch %s exited %d: %s", centres[i], rc, out);
        ck_assert_int_eq(pdk_test_sh(out, sizeof(out), "tail -n +2 %s/near.txt | wc -l", dir), 0);
        ck_assert_msg(atoi(out) == 8, "%s: %s rows", centres[i], out);
    }
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "watch --session %" PRIu64 " --radius 20 --at 3,x", srv.addr,
                                 sid),
                     2);
    ck_assert_msg(strstr(out, "--at: '3,x' is not X,Y in metres"), "%s", out);
    ck_assert_int_eq(
        pdk_test_sh(out, sizeof(out), CLI "watch --session %" PRIu64 " --around 7", srv.addr, sid),
        2);
    ck_assert_msg(strstr(out, "--at and --around go with --radius"), "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "watch --session %" PRIu64 " --radius -3", srv.addr, sid),
                     2);
    ck_assert_msg(strstr(out, "--radius: -3 is outside"), "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "create --keyframe-every 0", srv.addr), 2);
    ck_assert_msg(strstr(out, "--keyframe-every: 0 is outside"), "%s", out);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out),
                                 CLI "watch --session %" PRIu64 " --radius 5 --around 99999",
                                 srv.addr, sid),
                     1);
    ck_assert_msg(strstr(out, "aoi_vehicle_id 99999 is not a vehicle of session"), "%s", out);
    pdk_test_sh(out, sizeof(out), "rm -rf %s", dir);
    pdk_test_stop_ok(&srv, log_text, sizeof(log_text), true);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("large_world_integration");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_tick_of_3000_cars_reaches_the_c_client_and_watch);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
