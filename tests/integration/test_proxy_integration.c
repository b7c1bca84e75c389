/* Issue 29's hosted proxies end to end (docs/multiplayer.md "Hosting a
 * proxy"): a client registers a proxy in a lockstep session and streams
 * poses that drive it into a parked car; the car moves, the proxy's owner
 * hears the impulses, a silent owner's proxy is frozen and then removed
 * with events to the owner and a viewer, every refusal names what was
 * wrong, and the recording verifies bit for bit. The real paddockd on
 * loopback, the real client library and CLI, a real SQLite file. Lockstep
 * makes every tick the test's own: nothing here depends on timing. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "paddock_client.h"
#include "params.h"
#include "sim/vehicle_def.h"

#define CLI PDK_PADDOCK " --server %s "

static char out[1 << 16];
static char log_text[1 << 16];
static paddock_v1_Frame req, rep;

/* What the pushed frames told a client. */
typedef struct seen {
    int contacts;        /* ProxyContact frames */
    int impulses;        /* their impulses, from the car */
    double impulse_x_ns; /* the sum of those impulses' x parts, on the proxy */
    double normal_x_min; /* their normals' smallest x part */
    uint32_t car;        /* the car's id (set by the test) */
    uint32_t state_sub;
    double car_x_m;    /* the car's x in the newest StateBatch */
    double car_vx_mps; /* and its forward speed */
    bool car_seen;
    int frozen, resumed, removed;
    char removed_reason[160];
    uint64_t frozen_tick, removed_tick;
} seen;

static void collect(const paddock_v1_Frame *f, void *ud)
{
    seen *s = ud;
    if (f->which_body == paddock_v1_Frame_proxy_contact_tag) {
        const paddock_v1_ProxyContact *c = &f->body.proxy_contact;
        s->contacts++;
        for (pb_size_t i = 0; i < c->impulses_count; i++) {
            if (c->impulses[i].other_vehicle_id != s->car)
                continue;
            s->impulses++;
            s->impulse_x_ns += c->impulses[i].ix_ns;
            if (c->impulses[i].nx < s->normal_x_min)
                s->normal_x_min = c->impulses[i].nx;
        }
    } else if (f->which_body == paddock_v1_Frame_proxy_event_tag) {
        const paddock_v1_ProxyEvent *e = &f->body.proxy_event;
        if (e->kind == paddock_v1_ProxyEventKind_PROXY_EVENT_FROZEN) {
            s->frozen++;
            s->frozen_tick = e->tick;
        } else if (e->kind == paddock_v1_ProxyEventKind_PROXY_EVENT_RESUMED) {
            s->resumed++;
        } else if (e->kind == paddock_v1_ProxyEventKind_PROXY_EVENT_REMOVED) {
            s->removed++;
            s->removed_tick = e->tick;
            snprintf(s->removed_reason, sizeof(s->removed_reason), "%s", e->reason);
        }
    } else if (f->which_body == paddock_v1_Frame_state_batch_tag &&
               f->body.state_batch.subscription_id == s->state_sub) {
        for (pb_size_t i = 0; i < f->body.state_batch.vehicles_count; i++)
            if (f->body.state_batch.vehicles[i].vehicle_id == s->car) {
                s->car_x_m = f->body.state_batch.vehicles[i].x_m;
                s->car_vx_mps = f->body.state_batch.vehicles[i].vx_mps;
                s->car_seen = true;
            }
    }
}

static void drain(pdk_client *c, seen *s)
{
    static paddock_v1_Frame f;
    while (pdk_client_recv(c, &f, 50) == PDK_CLIENT_OK)
        if (f.request_id == 0)
            collect(&f, s);
}

static void call_ok(pdk_client *c, seen *s)
{
    ck_assert_msg(pdk_client_call(c, &req, &rep, collect, s) == PDK_CLIENT_OK, "%s: %s",
                  pdk_client_body_name(req.which_body), c->error);
}

/* The call is refused with code, its message holding text. */
static void call_refused(pdk_client *c, seen *s, paddock_v1_ErrorCode code, const char *text)
{
    ck_assert_int_eq(pdk_client_call(c, &req, &rep, collect, s), PDK_CLIENT_ESERVER);
    ck_assert_msg(c->server_code == code, "code %d, not %d: %s", (int)c->server_code, (int)code,
                  c->error);
    ck_assert_msg(strstr(c->error, text) != NULL, "'%s' does not say '%s'", c->error, text);
}

static uint64_t create_lockstep(pdk_client *c, const char *name)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    snprintf(req.body.session_create.name, sizeof(req.body.session_create.name), "%s", name);
    call_ok(c, NULL);
    return rep.body.session_created.session.session_id;
}

static void step(pdk_client *c, seen *s, uint64_t sid, uint32_t n)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_step_tag;
    req.body.session_control.action.step = n;
    call_ok(c, s);
}

/* A pose of the proxy's box moving along x at vx_mps, upright. */
static paddock_v1_ProxyPose pose_at(uint64_t sid, uint32_t proxy, uint64_t owner_ns, double x_m,
                                    double vx_mps)
{
    paddock_v1_ProxyPose p = paddock_v1_ProxyPose_init_zero;
    p.session_id = sid;
    p.proxy_id = proxy;
    p.owner_time_ns = owner_ns;
    p.x_m = x_m;
    p.z_m = 0.75;
    p.qw = 1.0;
    p.vx_mps = vx_mps;
    return p;
}

/* A ProxyRegister in req: a box of a car's size, infinite mass, at x_m. */
static void register_req(uint64_t sid, double x_m, uint64_t owner_ns, const char *label)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_proxy_register_tag;
    paddock_v1_ProxyRegister *m = &req.body.proxy_register;
    m->session_id = sid;
    m->half_length_m = 2.4;
    m->half_width_m = 0.95;
    m->half_height_m = 0.7;
    m->infinite_mass = true;
    snprintf(m->label, sizeof(m->label), "%s", label);
    m->has_initial = true;
    m->initial = pose_at(0, 0, owner_ns, x_m, 0.0);
}

static void pose_req(const paddock_v1_ProxyPose *p)
{
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_proxy_pose_tag;
    req.body.proxy_pose = *p;
}

#define OWNER_T0_NS 7000000000ull /* the owner's clock at registration: any origin */
#define TICK_NS 8333333ull        /* 1/120 s, near enough for the owner's stamps */

/* The proxy drives into a parked car at 2 m/s and pushes it; then its owner
 * falls silent. Every step is the test's, so the ticks are exact. */
START_TEST(proxy_pushes_a_parked_car_and_goes_silent)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client owner, stranger, viewer;
    static seen os, xs, vs;
    memset(&os, 0, sizeof(os));
    memset(&xs, 0, sizeof(xs));
    memset(&vs, 0, sizeof(vs));
    ck_assert_int_eq(pdk_client_connect_as(&owner, srv.addr, 10000, "owner", NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_client_connect_as(&stranger, srv.addr, 10000, "stranger", NULL),
                     PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_test_connect_viewer(&viewer, srv.port, 10000, "viewer"), 0);
    uint64_t sid = create_lockstep(&owner, "proxy-push");

    /* A car in neutral at the origin, facing +x. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_vehicle_spawn_tag;
    req.body.vehicle_spawn.session_id = sid;
    strcpy(req.body.vehicle_spawn.preset, "midsize_sedan");
    req.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_NEUTRAL;
    call_ok(&owner, &os);
    uint32_t car = rep.body.vehicle_spawned.vehicle_id;
    os.car = vs.car = car;
    os.normal_x_min = 1.0;

    /* The viewer watches the session: it hears the proxy's events too. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 10;
    call_ok(&viewer, &vs);
    vs.state_sub = rep.body.subscribed.subscription_id;

    /* Refusals before a proxy exists. */
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    call_refused(&viewer, &vs, paddock_v1_ErrorCode_PROTOCOL, "viewer");
    register_req(sid + 1000, -8.0, OWNER_T0_NS, "ghost");
    call_refused(&owner, &os, paddock_v1_ErrorCode_NOT_FOUND, "does not exist");
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    req.body.proxy_register.has_initial = false;
    call_refused(&owner, &os, paddock_v1_ErrorCode_INVALID_ARGUMENT, "initial pose");
    register_req(sid, NAN, OWNER_T0_NS, "ghost");
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "position");
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    req.body.proxy_register.initial.qw = 0.5;
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "quaternion");
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    req.body.proxy_register.infinite_mass = false;
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "mass_kg");
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    req.body.proxy_register.half_width_m = 0.001; /* the world's bound */
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "half");
    register_req(sid, -8.0, OWNER_T0_NS, "ghost");
    strcpy(req.body.proxy_register.preset, "midsize_sedan");
    call_refused(&owner, &os, paddock_v1_ErrorCode_INVALID_ARGUMENT, "not both");

    /* The proxy: 8 m behind the car, a gap of about 3 m. */
    register_req(sid, -8.0, OWNER_T0_NS, "remote-car");
    call_ok(&owner, &os);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_proxy_registered_tag);
    uint32_t proxy = rep.body.proxy_registered.proxy_id;
    ck_assert_uint_ne(proxy, 0);
    uint64_t t0 = rep.body.proxy_registered.tick;

    /* Refusals of its poses and removal. */
    paddock_v1_ProxyPose p = pose_at(sid, proxy, OWNER_T0_NS + 1, -8.0, 0.0);
    pose_req(&p);
    call_refused(&stranger, &xs, paddock_v1_ErrorCode_BUSY, "belongs to another connection");
    p.proxy_id = proxy + 1000;
    pose_req(&p);
    call_refused(&owner, &os, paddock_v1_ErrorCode_STALE_ID, "is not in session");
    p = pose_at(sid, proxy, OWNER_T0_NS + 1, -8.0, NAN);
    pose_req(&p);
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "velocity");
    p = pose_at(sid, proxy, OWNER_T0_NS + 1, -8.0, 400.0);
    pose_req(&p);
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "speed");
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_proxy_remove_tag;
    req.body.proxy_remove.session_id = sid;
    req.body.proxy_remove.proxy_id = proxy;
    call_refused(&stranger, &xs, paddock_v1_ErrorCode_BUSY, "another connection");
    /* More than four poses between two ticks: the fifth is refused. */
    for (int k = 1; k <= 4; k++) {
        p = pose_at(sid, proxy, OWNER_T0_NS + (uint64_t)k, -8.0, 0.0);
        pose_req(&p);
        ck_assert_int_eq(pdk_client_send(&owner, &req), PDK_CLIENT_OK);
    }
    p = pose_at(sid, proxy, OWNER_T0_NS + 5, -8.0, 0.0);
    pose_req(&p);
    call_refused(&owner, &os, paddock_v1_ErrorCode_BUSY, "more than 4 poses");

    /* Drive: a pose every tick, stamped on the owner's clock, the proxy at
     * 2 m/s along x from tick t0 on until the owner hears of the first
     * contact; from then on it stands where it is. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.body.session_control.action.take_step_lease.deadline_ms = 60000;
    call_ok(&owner, &os);
    uint64_t tick = t0;
    const double v_mps = 2.0;
    double x_m = -8.0, v_now = v_mps;
    for (int k = 0; k < 480 && !(os.contacts > 0 && v_now == 0.0 && tick > t0 + 10); k++) {
        if (os.contacts > 0)
            v_now = 0.0;
        p = pose_at(sid, proxy, OWNER_T0_NS + (tick - t0) * TICK_NS + 10, x_m, v_now);
        pose_req(&p);
        ck_assert_int_eq(pdk_client_send(&owner, &req), PDK_CLIENT_OK);
        step(&owner, &os, sid, 1);
        tick += 1;
        x_m += v_now / 120.0;
    }
    ck_assert_msg(os.contacts > 0, "the proxy never touched the car (it is at x %.3f m)", x_m);
    /* Half a second on, standing: the car rolls away in neutral. */
    for (int k = 0; k < 60; k++) {
        p = pose_at(sid, proxy, OWNER_T0_NS + (tick - t0) * TICK_NS + 10, x_m, 0.0);
        pose_req(&p);
        ck_assert_int_eq(pdk_client_send(&owner, &req), PDK_CLIENT_OK);
        step(&owner, &os, sid, 1);
        tick += 1;
    }
    drain(&owner, &os);
    drain(&viewer, &vs);
    ck_assert_msg(vs.car_seen, "no state of the car");
    /* The impulses the owner heard are the car's: they push the proxy back
     * (-x) along a normal into it. An infinite mass gave the car all of
     * them: its momentum m v is their sum (the chassis' 1500 kg; the
     * wheels it spins up and half a second of rolling resistance take a
     * few per cent), and it left faster than the proxy came, by the
     * restitution. */
    ck_assert_int_gt(os.impulses, 0);
    ck_assert_double_lt(os.normal_x_min, -0.9);
    const double m_kg = 1500.0;
    fprintf(stderr, "proxy push: impulse %.2f N s over %d contacts, car at %.3f m/s, x %.3f m\n",
            os.impulse_x_ns, os.impulses, vs.car_vx_mps, vs.car_x_m);
    ck_assert_double_gt(vs.car_vx_mps, v_mps);
    ck_assert_double_lt(vs.car_vx_mps, 2.0 * v_mps);
    ck_assert_double_gt(-os.impulse_x_ns, 0.9 * m_kg * vs.car_vx_mps);
    ck_assert_double_lt(-os.impulse_x_ns, 1.1 * m_kg * vs.car_vx_mps);
    ck_assert_msg(vs.car_x_m > x_m + 2.4, "the car is at x %.3f m, the proxy's front at %.3f m",
                  vs.car_x_m, x_m + 2.4);
    ck_assert_int_eq(xs.contacts, 0);

    /* Silence: frozen after 0.5 s without a pose (the newest came at the
     * last boundary stepped), removed after 5 s, each told to the owner
     * and the viewer. */
    step(&owner, &os, sid, 50);
    drain(&owner, &os);
    ck_assert_int_eq(os.frozen, 0);
    step(&owner, &os, sid, 20);
    drain(&owner, &os);
    drain(&viewer, &vs);
    ck_assert_int_eq(os.frozen, 1);
    ck_assert_int_eq(vs.frozen, 1);
    ck_assert_int_eq(os.removed, 0);
    step(&owner, &os, sid, 540);
    drain(&owner, &os);
    drain(&viewer, &vs);
    ck_assert_int_eq(os.removed, 1);
    ck_assert_int_eq(vs.removed, 1);
    ck_assert_msg(strstr(os.removed_reason, "sent no pose for 5.0 s"), "%s", os.removed_reason);
    ck_assert_uint_gt(os.removed_tick, os.frozen_tick + 500);
    p = pose_at(sid, proxy, OWNER_T0_NS + 10 * 1000000000ull, 0.0, 0.0);
    pose_req(&p);
    call_refused(&owner, &os, paddock_v1_ErrorCode_STALE_ID, "is not in session");

    /* A proxy its owner removes: Ok, then the event. */
    register_req(sid, -30.0, OWNER_T0_NS, "second");
    call_ok(&owner, &os);
    uint32_t second = rep.body.proxy_registered.proxy_id;
    step(&owner, &os, sid, 3);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_proxy_remove_tag;
    req.body.proxy_remove.session_id = sid;
    req.body.proxy_remove.proxy_id = second;
    ck_assert_int_eq(pdk_client_send(&owner, &req), PDK_CLIENT_OK);
    step(&owner, &os, sid, 2);
    drain(&owner, &os);
    ck_assert_int_eq(os.removed, 2);
    ck_assert_msg(strstr(os.removed_reason, "its owner removed it"), "%s", os.removed_reason);

    /* The recording verifies bit for bit: every pose the proxy took is a
     * recorded input. */
    pdk_client_close(&stranger);
    pdk_client_close(&viewer);
    pdk_client_close(&owner);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, sid) == 0, "%s",
                  out);
    ck_assert_msg(strstr(out, "match:            yes"), "%s", out);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

/* A proxy registered by preset (docs/multiplayer.md "Hosting a proxy"):
 * midsize_sedan's proxy takes that car's chassis hull, its mass and its
 * contact material, ProxyRegistered tells the box and its centre from the
 * car's CG (what pdk_vehicle_def_hull_box gives for the preset loaded
 * here through the params, as the server loads it), a material given
 * overrides the preset's, and the refusals name what was wrong: an unknown
 * preset, a single-track preset (no hull), a material out of its bounds.
 * The recording, which holds the resolved box and the material, verifies. */
START_TEST(proxy_from_a_preset)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client owner;
    static seen os;
    memset(&os, 0, sizeof(os));
    ck_assert_int_eq(pdk_client_connect_as(&owner, srv.addr, 10000, "owner", NULL), PDK_CLIENT_OK);
    uint64_t sid = create_lockstep(&owner, "proxy-preset");

    register_req(sid, 0.0, OWNER_T0_NS, "unknown");
    req.body.proxy_register.half_length_m = 0.0;
    req.body.proxy_register.half_width_m = 0.0;
    req.body.proxy_register.half_height_m = 0.0;
    paddock_v1_Frame bare = req;
    strcpy(req.body.proxy_register.preset, "no_such_car");
    call_refused(&owner, &os, paddock_v1_ErrorCode_NOT_FOUND, "no_such_car");
    req = bare;
    strcpy(req.body.proxy_register.preset, "traffic_sedan");
    call_refused(&owner, &os, paddock_v1_ErrorCode_INVALID_ARGUMENT, "no chassis hull");
    req = bare;
    strcpy(req.body.proxy_register.preset, "midsize_sedan");
    req.body.proxy_register.has_material = true;
    req.body.proxy_register.material.friction = 2.5;
    req.body.proxy_register.material.restitution = 0.1;
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "material.friction");
    req.body.proxy_register.material.friction = 0.5;
    req.body.proxy_register.material.restitution = -0.5;
    call_refused(&owner, &os, paddock_v1_ErrorCode_OUT_OF_RANGE, "material.restitution");

    /* The sedan's box, as sim gives it for the preset. */
    char err[PDK_PARAMS_ERR_LEN];
    pdk_vehicle_def sedan;
    ck_assert_msg(pdk_params_vehicle_load(PDK_SOURCE_DIR "/presets", "midsize_sedan", NULL, &sedan,
                                          NULL, err, sizeof(err)) == PDK_OK,
                  "%s", err);
    double half_m[3], centre_m[3];
    ck_assert_int_eq(pdk_vehicle_def_hull_box(&sedan, half_m, centre_m), PDK_OK);

    req = bare;
    strcpy(req.body.proxy_register.preset, "midsize_sedan");
    req.body.proxy_register.infinite_mass = false;
    call_ok(&owner, &os);
    ck_assert_int_eq(rep.which_body, paddock_v1_Frame_proxy_registered_tag);
    const paddock_v1_ProxyRegistered *r = &rep.body.proxy_registered;
    ck_assert_uint_ne(r->proxy_id, 0);
    ck_assert_double_eq(r->half_length_m, half_m[0]);
    ck_assert_double_eq(r->half_width_m, half_m[1]);
    ck_assert_double_eq(r->half_height_m, half_m[2]);
    ck_assert_double_eq(r->centre_x_m, centre_m[0]);
    ck_assert_double_eq(r->centre_y_m, 0.0);
    ck_assert_double_eq(r->centre_z_m, centre_m[2]);
    ck_assert_double_eq(r->mass_kg, sedan.chassis.mass_kg);
    ck_assert(r->has_material);
    ck_assert_double_eq(r->material.friction, sedan.contact.friction);
    ck_assert_double_eq(r->material.restitution, sedan.contact.restitution);

    /* A material given, and a mass: they override the preset's. */
    req = bare;
    strcpy(req.body.proxy_register.preset, "midsize_sedan");
    req.body.proxy_register.initial.y_m = 20.0;
    req.body.proxy_register.infinite_mass = false;
    req.body.proxy_register.mass_kg = 900.0;
    req.body.proxy_register.has_material = true;
    req.body.proxy_register.material.friction = 0.8;
    req.body.proxy_register.material.restitution = 0.3;
    call_ok(&owner, &os);
    ck_assert_double_eq(rep.body.proxy_registered.mass_kg, 900.0);
    ck_assert_double_eq(rep.body.proxy_registered.material.friction, 0.8);
    ck_assert_double_eq(rep.body.proxy_registered.material.restitution, 0.3);
    ck_assert_double_eq(rep.body.proxy_registered.half_length_m, half_m[0]);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.body.session_control.action.take_step_lease.deadline_ms = 60000;
    call_ok(&owner, &os);
    step(&owner, &os, sid, 3);

    pdk_client_close(&owner);
    ck_assert_int_eq(pdk_test_sh(out, sizeof(out), CLI "close --session %" PRIu64, srv.addr, sid),
                     0);
    ck_assert_msg(pdk_test_sh(out, sizeof(out), CLI "verify %" PRIu64, srv.addr, sid) == 0, "%s",
                  out);
    ck_assert_msg(strstr(out, "match:            yes"), "%s", out);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

/* The limits: eight proxies per connection in a session, 64 in a session;
 * a closed connection's proxies leave the world, each with an event. */
START_TEST(proxy_limits_and_closed_owner)
{
    pdk_test_server srv;
    ck_assert_msg(pdk_test_server_start(&srv, NULL, NULL, log_text, sizeof(log_text)) == 0,
                  "paddockd did not start: %s", log_text);
    static pdk_client owner, other;
    static seen os, ts;
    memset(&os, 0, sizeof(os));
    memset(&ts, 0, sizeof(ts));
    ck_assert_int_eq(pdk_client_connect_as(&owner, srv.addr, 10000, "owner", NULL), PDK_CLIENT_OK);
    ck_assert_int_eq(pdk_client_connect_as(&other, srv.addr, 10000, "other", NULL), PDK_CLIENT_OK);
    uint64_t sid = create_lockstep(&owner, "proxy-limits");
    /* Nobody steps it: inputs apply at once. */
    for (int k = 0; k < 8; k++) {
        register_req(sid, -10.0 * (k + 1), OWNER_T0_NS, "many");
        call_ok(&owner, &os);
    }
    register_req(sid, -100.0, OWNER_T0_NS, "one too many");
    call_refused(&owner, &os, paddock_v1_ErrorCode_CAPACITY, "limit of 8 proxies");
    /* Another connection has its own eight; it watches the session. */
    register_req(sid, 50.0, OWNER_T0_NS, "other's");
    call_ok(&other, &ts);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_subscribe_tag;
    req.body.subscribe.session_id = sid;
    req.body.subscribe.rate_hz = 10;
    call_ok(&other, &ts);
    /* The owner leaves: its proxies go at a tick after the server sees the
     * connection close, each with an event. */
    pdk_client_close(&owner);
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_control_tag;
    req.body.session_control.session_id = sid;
    req.body.session_control.which_action = paddock_v1_SessionControl_take_step_lease_tag;
    req.body.session_control.action.take_step_lease.deadline_ms = 60000;
    call_ok(&other, &ts);
    for (int k = 0; k < 100 && ts.removed < 8; k++) {
        step(&other, &ts, sid, 1);
        drain(&other, &ts);
    }
    ck_assert_int_eq(ts.removed, 8);
    ck_assert_msg(strstr(ts.removed_reason, "connection closed"), "%s", ts.removed_reason);
    for (int k = 0; k < 8; k++) {
        register_req(sid, 60.0 + 10.0 * k, OWNER_T0_NS, "refill");
        if (k < 7)
            call_ok(&other, &ts);
        else
            call_refused(&other, &ts, paddock_v1_ErrorCode_CAPACITY, "limit of 8 proxies");
    }
    /* Seven more connections of eight fill the session's 64; the next
     * connection's first is refused. */
    static pdk_client fill[8];
    for (int c = 0; c < 8; c++) {
        char name[24];
        snprintf(name, sizeof(name), "fill-%d", c);
        ck_assert_int_eq(pdk_client_connect_as(&fill[c], srv.addr, 10000, name, NULL),
                         PDK_CLIENT_OK);
        for (int k = 0; k < 8 && c < 7; k++) {
            register_req(sid, 200.0 + 10.0 * (8 * c + k), OWNER_T0_NS, name);
            call_ok(&fill[c], &ts);
        }
    }
    register_req(sid, -500.0, OWNER_T0_NS, "sixty-fifth");
    call_refused(&fill[7], &ts, paddock_v1_ErrorCode_CAPACITY, "limit of 64 proxies");
    /* A world holds as many proxies as vehicles: a world of two is full at
     * the third, whatever the session's limit. */
    memset(&req, 0, sizeof(req));
    req.which_body = paddock_v1_Frame_session_create_tag;
    req.body.session_create.timing = paddock_v1_TimingMode_TIMING_MODE_LOCKSTEP;
    strcpy(req.body.session_create.world_overrides, "maxVehicles=2");
    call_ok(&fill[7], &ts);
    uint64_t small = rep.body.session_created.session.session_id;
    for (int k = 0; k < 3; k++) {
        register_req(small, 10.0 * k, OWNER_T0_NS, "small");
        if (k < 2)
            call_ok(&fill[7], &ts);
        else
            call_refused(&fill[7], &ts, paddock_v1_ErrorCode_CAPACITY, "is full (2 proxies)");
    }
    for (int c = 0; c < 8; c++)
        pdk_client_close(&fill[c]);
    pdk_client_close(&other);
    ck_assert_int_eq(pdk_test_server_stop(&srv, log_text, sizeof(log_text)), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("proxy_integration");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, proxy_pushes_a_parked_car_and_goes_silent);
    tcase_add_test(tc, proxy_limits_and_closed_owner);
    tcase_add_test(tc, proxy_from_a_preset);
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
