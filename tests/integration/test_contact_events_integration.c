/* Issue 29's contact events end to end (docs/multiplayer.md "Contact
 * events"): two cars in neutral roll head-on into each other in a lockstep
 * session; a client subscribed with ContactSubscribe receives each tick's
 * ContactEvents with the two cars as bodies, the point between them, the
 * normal along the line of travel, the impulses that conserve their
 * momentum and the closing speed. A subscription to a session that does
 * not exist is refused by name. The real paddockd on loopback and the real
 * client library; lockstep makes every tick the test's own. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "paddock_client.h"

#define CLI PDK_PADDOCK " --server %s "

static char log_text[1 << 16];
static char out[1 << 16];
static paddock_v1_Frame req, rep;

#define MAX_TICKS 240

/* What the pushed frames told the client. */
typedef struct seen {
    uint32_t contact_sub, state_sub;
    uint32_t car_a, car_b;
    int frames, events;
    bool bad_frame; /* a frame whose first/total/count disagree */
    char why[200];
    uint64_t first_tick, last_tick;
    double first_approach_mps; /* the first event's closing speed */
    double impulse_b_x_ns;     /* the sum of the impulses on b, x */
    double impulse_b_y_ns;
    double max_point_abs_x_m, max_point_abs_y_m, min_point_z_m, max_point_z_m;
    double min_normal_x;
    double max_normal_err;         /* | |n| - 1 | */
    double max_normal_part_err_ns; /* | n . impulse - normal_impulse_ns | */
    uint32_t dropped, missed;
    /* World-frame x velocity of each car by tick, from the state stream. */
    double vx_a[MAX_TICKS + 1], vx_b[MAX_TICKS + 1];
    bool have[MAX_TICKS + 1];
} seen;

static void on_events(seen *s, const paddock_v1_ContactEvents *m)
{
    s->frames++;
    if (m->first != 0 || m->total != m->events_count) {
        s->bad_frame = true;
        snprintf(s->why, sizeof(s->why), "tick %llu: first %u total %u count %u",
                 (unsigned long long)m->tick, (unsigned)m->first, (unsigned)m->total,
                 (unsigned)m->events_count);
    }
    s->dropped += m->dropped;
    s->missed += m->missed;
    for (pb_size_t i = 0; i < m->events_count; i++) {
        const paddock_v1_ContactEvent *e = &m->events[i];
        if (e->a_vehicle_id != s->car_a || e->b_vehicle_id != s->car_b || e->a_proxy_id != 0 ||
            e->b_proxy_id != 0) {
            s->bad_frame = true;
            snprintf(s->why, sizeof(s->why), "bodies a %u/%u b %u/%u, not cars %u and %u",
                     e->a_vehicle_id, e->a_proxy_id, e->b_vehicle_id, e->b_proxy_id, s->car_a,
                     s->car_b);
        }
        if (s->events == 0) {
            s->first_tick = m->tick;
            s->first_approach_mps = e->approach_mps;
        }
        s->last_tick = m->tick;
        s->events++;
        s->impulse_b_x_ns += e->ix_ns;
        s->impulse_b_y_ns += e->iy_ns;
        s->max_point_abs_x_m = fmax(s->max_point_abs_x_m, fabs(e->x_m));
        s->max_point_abs_y_m = fmax(s->max_point_abs_y_m, fabs(e->y_m));
        s->min_point_z_m = fmin(s->min_point_z_m, e->z_m);
        s->max_point_z_m = fmax(s->max_point_z_m, e->z_m);
        s->min_normal_x = fmin(s->min_normal_x, e->nx);
        double n = sqrt(e->nx * e->nx + e->ny * e->ny + e->nz * e->nz);
        s->max_normal_err = fmax(s->max_normal_err, fabs(n - 1.0));
        double along = e->nx * e->ix_ns + e->ny * e->iy_ns + e->nz * e->iz_ns;
        s->max_normal_part_err_ns =
            fmax(s->max_normal_part_err_ns, fabs(along - e->normal_impulse_ns));
    }
}

static void collect(const paddock_v1_Frame *f, void *ud)
{
    seen *s = ud;
    if (!s || f->request_id != 0)
        return;
    if (f->which_body == paddock_v1_Frame_contact_events_tag &&
        f->body.contact_events.subscription_id == s->contact_sub) {
        on_events(s, &f->body.contact_events);
    } else if (f->which_body == paddock_v1_Frame_state_batch_tag &&
               f->body.state_batch.subscription_id == s->state_sub) {
        const paddock_v1_StateBatch *b = &f->body.state_batch;
        if (b->tick > MAX_TICKS)
            return;
        for (pb_size_t i = 0; i < b->vehicles_count; i++) {
            const paddock_v1_VehicleState *v = &b->vehicles[i];
            double vx = v->vx_mps * cos(v->yaw_rad) - v->vy_mps * sin(v->yaw_rad);
            if (v->vehicle_id == s->car_a)
                s->vx_a[b->tick] = vx;
            else if (v->vehicle_id == s->car_b)
                s->vx_b[b->tick] = vx;
        }
        s->have[b->tick] = true;
    }
}

static void call_ok(pdk_client *c, seen *s)
{
    ck_assert_msg(pdk_client_call(c, &req, &rep, collect, s) == PDK_CLIENT_OK, "%s: %s",
                  pdk_client_body_name(req.which_body), c->error);
}

static uint32_t spawn(pdk_client *c, uint64_t sid, double x_m, double yaw_deg, double speed_mps)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    req.body.vehicle_spawn.x_m = x_m;
    req.body.vehicle_spawn.yaw_deg = yaw_deg;
    req.body.vehicle_spawn.speed_mps = speed_mps;
    req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_NEUTRAL;
    call_ok(c, NULL);
    return rep.body.vehicle_spawned.vehicle_id;
}

/* The session's subscriber count, as SessionList tells it (-1 when absent). */
static int subscribers(pdk_client *c, uint64_t sid)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_list_tag;
    call_ok(c, NULL);
    for (pb_size_t i = 0; i < rep.body.session_list_reply.sessions_count; i++)
        if (rep.body.session_list_reply.sessions[i].session_id == sid)
            return (int)rep.body.session_list_reply.sessions[i].subscriber_count;
    return -1;
}

static uint64_t head_on_session(pdk_client *c, const char *name, seen *s)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    call_ok(c, NULL);
    uint64_t sid = rep.body.session_created.session.session_id;
    /* Two sedans 8 m apart, centre to centre, rolling at each other at
     * 5 m/s each: 10 m/s closing, their noses meet at x = 0. */
    s->car_a = spawn(c, sid, -4.0, 0.0, 5.0);
    s->car_b = spawn(c, sid, 4.0, 180.0, 5.0);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.body.session_control.action.take_step_lease.deadline_ms = 60000;
    call_ok(c, NULL);
    return sid;
}

START_TEST(head_on_cars_tell_their_contact)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client c;
    static seen s;
    memset(&s, 0, sizeof(s));
    s.min_point_z_m = 1e9;
    s.min_normal_x = 1.0;
    ck_assert_int_eq(pdk_client_connect_as(&c, srv.addr, 10000, "events", NULL), PDK_CLIENT_OK);

    uint64_t sid = head_on_session(&c, "contact-events", &s);

    /* A subscription to a session that does not exist is refused by name. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_contact_subscribe_tag;
    req.body.contact_subscribe.session_id = sid + 1000;
    ck_assert_int_eq(pdk_client_call(&c, &req, &rep, collect, &s), PDK_CLIENT_ESERVER);
    ck_assert_int_eq(c.server_code, paddock_v1_ErrorCode_NOT_FOUND);
    ck_assert_msg(strstr(c.error, "does not exist") != NULL, "%s", c.error);

    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_contact_subscribe_tag;
    req.body.contact_subscribe.session_id = sid;
    call_ok(&c, &s);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_subscribed_tag);
    ck_assert_uint_eq(rep.body.subscribed.rate_hz, 120);
    s.contact_sub = rep.body.subscribed.subscription_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 120;
    call_ok(&c, &s);
    s.state_sub = rep.body.subscribed.subscription_id;

    /* One tick a call: each tick's pushed frames come before its reply. */
    for (int t = 0; t < MAX_TICKS; t++) {
        memset(&req, 0, sizeof(req));
        req.which_body = paddock_v1_Frame_session_control_tag;
        req.body.session_control.session_id = sid;
        req.body.session_control.which_action = paddock_v1_SessionControl_step_tag;
        req.body.session_control.action.step = 1;
        call_ok(&c, &s);
    }
    static paddock_v1_Frame f;
    while (pdk_client_recv(&c, &f, 100) == PDK_CLIENT_OK)
        collect(&f, &s);

    ck_assert_msg(s.events > 0, "no contact events in %d ticks", MAX_TICKS);
    ck_assert_msg(!s.bad_frame, "%s", s.why);
    ck_assert_uint_eq(s.dropped, 0);
    ck_assert_uint_eq(s.missed, 0);
    /* The noses (4.8 m sedans) meet after about 3.2 m / 10 m/s = 0.32 s. */
    ck_assert_msg(s.first_tick > 20 && s.first_tick < 60, "first contact at tick %llu",
                  (unsigned long long)s.first_tick);
    /* Closing speed: 10 m/s less what rolling in neutral took, and a
     * speculative contact's approach is the closing speed. */
    ck_assert_msg(s.first_approach_mps > 9.0 && s.first_approach_mps < 10.2,
                  "first approach %.3f m/s, not about 10", s.first_approach_mps);
    /* The point lies between the cars (x near 0, within the width and the
     * body's height); the normal points from a (at -x) to b (at +x). */
    ck_assert_msg(s.max_point_abs_x_m < 0.5, "a contact point at |x| %.3f m", s.max_point_abs_x_m);
    ck_assert_msg(s.max_point_abs_y_m < 1.2, "a contact point at |y| %.3f m", s.max_point_abs_y_m);
    ck_assert_msg(s.min_point_z_m > 0.0 && s.max_point_z_m < 2.0, "contact z %.3f..%.3f m",
                  s.min_point_z_m, s.max_point_z_m);
    ck_assert_msg(s.min_normal_x > 0.95, "a normal's x %.4f", s.min_normal_x);
    ck_assert_msg(s.max_normal_err < 1e-9, "a normal off unit length by %.3g", s.max_normal_err);
    ck_assert_msg(s.max_normal_part_err_ns < 1e-6 * fabs(s.impulse_b_x_ns) + 1e-9,
                  "normal_impulse_ns differs from n . impulse by %.3g N s",
                  s.max_normal_part_err_ns);

    /* The impulses pushed b back along +x (it was moving along -x), and
     * a took their opposite: the cars' momentum changes are equal and
     * opposite (equal masses) and match the impulses at a car's mass. */
    ck_assert_msg(s.impulse_b_x_ns > 0.0, "impulse on b %.1f N s", s.impulse_b_x_ns);
    uint64_t before = s.first_tick - 1, after = s.last_tick + 1;
    ck_assert(s.have[before] && s.have[after]);
    double dva = s.vx_a[after] - s.vx_a[before];
    double dvb = s.vx_b[after] - s.vx_b[before];
    ck_assert_msg(dva < -5.0 && dvb > 5.0, "velocity changes a %.3f b %.3f m/s", dva, dvb);
    ck_assert_msg(fabs(dva + dvb) < 0.05 * fabs(dvb), "momentum: dv a %.4f, b %.4f m/s", dva, dvb);
    double mass_kg = s.impulse_b_x_ns / dvb;
    fprintf(stderr,
            "contact events: %d in %d frames, ticks %llu..%llu, first approach %.3f m/s, "
            "impulse on b %.1f N s, dv a %.4f b %.4f m/s, %.0f kg\n",
            s.events, s.frames, (unsigned long long)s.first_tick, (unsigned long long)s.last_tick,
            s.first_approach_mps, s.impulse_b_x_ns, dva, dvb, mass_kg);
    ck_assert_msg(mass_kg > 1000.0 && mass_kg < 2500.0,
                  "impulse %.1f N s over dv %.3f m/s is a %.0f kg car", s.impulse_b_x_ns, dvb,
                  mass_kg);

    /* Unsubscribed, the events stop: a step of the resting cars sends no
     * ContactEvents (and the cars are apart by now anyway). */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_unsubscribe_tag;
    req.body.unsubscribe.subscription_id = s.contact_sub;
    call_ok(&c, &s);

    pdk_client_close(&c);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

/* `paddock contacts` prints the head-on's contact as a line naming both
 * cars, and refuses a session that does not exist by name. */
START_TEST(cli_prints_contacts)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client c;
    static seen s;
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(pdk_client_connect_as(&c, srv.addr, 10000, "stepper", NULL), PDK_CLIENT_OK);
    uint64_t sid = head_on_session(&c, "contact-cli", &s);

    ck_assert_int_ne(pdk_test_sh(out, sizeof(out), CLI "contacts --session 99999", srv.addr), 0);
    ck_assert_msg(strstr(out, "NOT_FOUND") && strstr(out, "does not exist"), "%s", out);

    char cmd[512];
    snprintf(cmd, sizeof(cmd), CLI "contacts --session %llu --count 1 --duration 60 2>&1", srv.addr,
             (unsigned long long)sid);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    /* The CLI's subscription shows in the session's subscriber count; the
     * cars stand still until then (lockstep), so no contact is missed. */
    int subs = 0;
    for (int k = 0; k < 1000 && subs < 1; k++) {
        subs = subscribers(&c, sid);
        if (subs < 1)
            pdk_test_sh(out, sizeof(out), "sleep 0.01");
    }
    ck_assert_int_eq(subs, 1);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_step_tag;
    req.body.session_control.action.step = 120;
    call_ok(&c, NULL);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    char a[16], b[16];
    snprintf(a, sizeof(a), " v%u ", s.car_a);
    snprintf(b, sizeof(b), " v%u ", s.car_b);
    ck_assert_msg(strstr(out, "TICK") && strstr(out, "APPR_MPS"), "no header: %s", out);
    ck_assert_msg(strstr(out, a) && strstr(out, b), "no line with %s and %s: %s", a, b, out);

    pdk_client_close(&c);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

/* What the frames of one tick told, for a_packed_tick_comes_in_frames. */
typedef struct packed {
    uint32_t sub;
    int frames;
    uint32_t next_first; /* the first the next frame must have */
    uint32_t total, dropped, missed;
    int events;
    bool bad;
    char why[160];
} packed;

static void collect_packed(const paddock_v1_Frame *f, void *ud)
{
    packed *p = ud;
    if (f->request_id != 0 || f->which_body != paddock_v1_Frame_contact_events_tag ||
        f->body.contact_events.subscription_id != p->sub)
        return;
    const paddock_v1_ContactEvents *m = &f->body.contact_events;
    if (m->tick != 1) /* the later ticks as the cars fly apart: not this test's */
        return;
    if (m->first != p->next_first || m->events_count > 64 ||
        (p->frames > 0 && (m->total != p->total || m->dropped != p->dropped))) {
        p->bad = true;
        snprintf(p->why, sizeof(p->why), "frame %d: first %u (wanted %u), %u events, total %u",
                 p->frames, (unsigned)m->first, (unsigned)p->next_first, (unsigned)m->events_count,
                 (unsigned)m->total);
    }
    p->frames++;
    p->total = m->total;
    p->dropped = m->dropped;
    p->missed = m->missed;
    p->events += (int)m->events_count;
    p->next_first = m->first + (uint32_t)m->events_count;
}

/* Thirty sedans spawned 1 cm apart all overlap: 435 touching pairs in the
 * first tick, more than the world's event buffer (256, the flat world's
 * maxVehicles) holds. The subscriber gets the 256 in four frames of 64,
 * in order, each with the tick's total and the 179 dropped. */
START_TEST(a_packed_tick_comes_in_frames)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client c;
    static packed p;
    memset(&p, 0, sizeof(p));
    ck_assert_int_eq(pdk_client_connect_as(&c, srv.addr, 10000, "packed", NULL), PDK_CLIENT_OK);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    strcpy(req.body.session_create.name, "contact-packed");
    call_ok(&c, NULL);
    uint64_t sid = rep.body.session_created.session.session_id;
    for (int i = 0; i < 30; i++)
        (void)spawn(&c, sid, 0.01 * i, 0.0, 0.0);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_contact_subscribe_tag;
    req.body.contact_subscribe.session_id = sid;
    call_ok(&c, NULL);
    p.sub = rep.body.subscribed.subscription_id;
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.body.session_control.action.take_step_lease.deadline_ms = 60000;
    call_ok(&c, NULL);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_step_tag;
    req.body.session_control.action.step = 1;
    ck_assert_msg(pdk_client_call(&c, &req, &rep, collect_packed, &p) == PDK_CLIENT_OK, "%s",
                  c.error);
    static paddock_v1_Frame f;
    while (pdk_client_recv(&c, &f, 100) == PDK_CLIENT_OK)
        collect_packed(&f, &p);
    ck_assert_msg(!p.bad, "%s", p.why);
    ck_assert_int_eq(p.frames, 4);
    ck_assert_uint_eq(p.total, 256);
    ck_assert_int_eq(p.events, 256);
    ck_assert_uint_eq(p.dropped, 30 * 29 / 2 - 256);
    ck_assert_uint_eq(p.missed, 0);
    pdk_client_close(&c);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("contact_events_integration");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, head_on_cars_tell_their_contact);
    tcase_add_test(tc, cli_prints_contacts);
    tcase_add_test(tc, a_packed_tick_comes_in_frames);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
