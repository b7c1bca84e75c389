/* Geometry of the four-wheel model (docs/vehicle-model.md), calling pdk_fw_*
 * directly on fw_test_util.h's test car: Ackermann and static toe; the
 * kinematic toe, camber and roll-centre curves read at each wheel's own
 * travel, jacking and the per-wheel link form; a kerb strike; solid axles on a
 * kerb, in a turn and with a wheel in the air. The suspension's response to
 * load (static loads, ride, load transfer and roll, dive and squat, the
 * single-track limit, convergence) is test_fw_validation.c's. Every tolerance
 * is argued beside its assertion. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/channels.h"
#include "vehicle/four_wheel.h"
#include "ground/terrain.h"
#include "sim/vehicle_def.h"

#include "fw_test_util.h"

/* ---- curves and wheel angles --------------------------------------------- */

static pdk_curve curve2(double x0, double v0, double x1, double v1)
{
    pdk_curve c;
    memset(&c, 0, sizeof c);
    c.n_points = 2;
    c.travel_m[0] = x0;
    c.value[0] = v0;
    c.travel_m[1] = x1;
    c.value[1] = v1;
    return c;
}

static pdk_curve curve3(double x0, double v0, double x1, double v1, double x2, double v2)
{
    pdk_curve c = curve2(x0, v0, x1, v1);
    c.n_points = 3;
    c.travel_m[2] = x2;
    c.value[2] = v2;
    return c;
}

/* The four-wheel model's curve rule, written out here independently of
 * vehicle_def.c: linear between points, held beyond the ends, 0 without
 * points. */
static double curve_at(const pdk_curve *c, double x)
{
    int n = c->n_points;
    if (n == 0) {
        return 0.0;
    }
    if (x <= c->travel_m[0]) {
        return c->value[0];
    }
    if (x >= c->travel_m[n - 1]) {
        return c->value[n - 1];
    }
    int k = 1;
    while (x > c->travel_m[k]) {
        k++;
    }
    double u = (x - c->travel_m[k - 1]) / (c->travel_m[k] - c->travel_m[k - 1]);
    return c->value[k - 1] + u * (c->value[k] - c->value[k - 1]);
}

/* Side of wheel i: +1 left, -1 right (the scheme's s_i). */
static double side(int wheel)
{
    return (wheel == PDK_FL || wheel == PDK_RL) ? 1.0 : -1.0;
}

/* The inclination of wheel i to a level ground, ISO tyre sign, for a body at
 * roll phi and pitch theta (ZYX Euler, the Roll and Pitch channels), the
 * wheel steered by delta about body z and tilted by gamma about body x
 * relative to the body (positive top toward -y). The spin axis in the body
 * is a = (-sin delta, cos delta cos gamma, cos delta sin gamma); its world z
 * component is the third row of Ry(theta) Rx(phi),
 * (-sin theta, cos theta sin phi, cos theta cos phi), times a. */
static double camber_on_level(double phi, double theta, double delta, double gamma)
{
    double az = sin(theta) * sin(delta) + cos(theta) * cos(delta) * sin(phi + gamma);
    return asin(az);
}

/* ---- 1. Ackermann and toe -------------------------------------------------- */

/* At 3 m/s with 360 deg on the steering wheel (24 deg at the road wheels):
 * with ackermann 1 the front wheels roll about one centre,
 * cot(delta_outer) - cot(delta_inner) = t_front / L, with the front axle's
 * own track (the rear is set narrower to tell them apart); with 0 they are
 * parallel. Pure trigonometry of the command: 1e-9. Static toe-in adds to
 * each wheel's angle toward the centreline (left negative, right positive
 * when straight) and to Toe_*, never to SteerAngle. */
START_TEST(test_ackermann_and_toe)
{
    for (int ack = 0; ack < 2; ack++) {
        pdk_vehicle_def d = test_car();
        d.susp_front.track_width_m = 1.60;
        d.susp_rear.track_width_m = 1.50;
        d.steering.ackermann = (double)ack;
        fw_run r;
        run_init(&r, &d, 2, 3.0, PDK_GEAR_DRIVE);
        run_command(&r, 0.0, 0.0, 360.0);
        run_for(&r, 0.5);
        assert_channels_finite(&r);
        double steer = r.ch[PDK_CH_STEER_ANGLE];
        double inner = r.ch[PDK_CH_WHEEL_STEER_FL];
        double outer = r.ch[PDK_CH_WHEEL_STEER_FR];
        ck_assert_double_le(rel_err(steer, 360.0 / 15.0 * DEG), 1e-12);
        if (ack == 1) {
            double lhs = 1.0 / tan(outer) - 1.0 / tan(inner);
            ck_assert_double_le(fabs(lhs - 1.60 / d.chassis.wheelbase_m), 1e-9);
            ck_assert_double_gt(inner, steer);
            ck_assert_double_lt(outer, steer);
        } else {
            ck_assert_double_eq(inner, steer);
            ck_assert_double_eq(outer, steer);
        }
        ck_assert_double_eq(r.ch[PDK_CH_WHEEL_STEER_RL], 0.0);
        ck_assert_double_eq(r.ch[PDK_CH_WHEEL_STEER_RR], 0.0);
    }

    pdk_vehicle_def d = test_car();
    d.steering.ackermann = 1.0;
    d.susp_front.static_toe_rad = 0.25 * DEG;
    d.susp_rear.static_toe_rad = 0.15 * DEG;
    fw_run r;
    run_init(&r, &d, 2, 10.0, PDK_GEAR_DRIVE);
    run_for(&r, 0.5);
    ck_assert_double_eq(r.ch[PDK_CH_STEER_ANGLE], 0.0);
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_FL] + 0.25 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_FR] - 0.25 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_RL] + 0.15 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_RR] - 0.15 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TOE_FL] - 0.25 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TOE_FR] - 0.25 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TOE_RL] - 0.15 * DEG), 1e-15);
    ck_assert_double_le(fabs(r.ch[PDK_CH_TOE_RR] - 0.15 * DEG), 1e-15);
    /* Driving straight with toe-in each front tyre, pointing toward the
     * centreline, pushes the body toward it: the left tyre to the right,
     * the right tyre to the left, equal and opposite (mirror images: to
     * rounding). */
    double fyl = r.ch[PDK_CH_FORCE_Y_FL];
    double fyr = r.ch[PDK_CH_FORCE_Y_FR];
    ck_assert_double_lt(fyl, 0.0);
    ck_assert_double_gt(fyr, 0.0);
    ck_assert_double_le(fabs(fyl + fyr), 1e-9 * fabs(fyl));
    run_command(&r, 0.0, 0.0, 90.0);
    run_for(&r, 0.1);
    double steer = r.ch[PDK_CH_STEER_ANGLE];
    ck_assert_double_le(rel_err(steer, 90.0 / 15.0 * DEG), 1e-12);
    double t = track_m(&d, 0);
    double len = d.chassis.wheelbase_m;
    double ideal_l = atan(len * tan(steer) / (len - 0.5 * t * tan(steer)));
    double ideal_r = atan(len * tan(steer) / (len + 0.5 * t * tan(steer)));
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_FL] - (ideal_l - 0.25 * DEG)), 1e-12);
    ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_FR] - (ideal_r + 0.25 * DEG)), 1e-12);
}
END_TEST

/* ---- 2. kinematic curves, jacking ----------------------------------------- */

/* A left turn at 15 m/s, 60 deg of steering: about 0.5 g and 2 deg of roll,
 * the outer (right) wheels 2.5 cm in bump, the inner in droop. Each wheel
 * reads its curves at its own travel: Toe_* = static + toe(x_i), the wheel's
 * angle is the steering angle minus (left) or plus (right) that toe, and
 * Camber_* is the inclination of a wheel tilted by its alignment camber,
 * static + camber(x_i), mirrored for the right wheel, on the rolled and
 * pitched body (camber_on_level). Toe and steer are read from the same
 * travel the channels report: 1e-9. Camber uses the end-of-tick Roll and
 * Pitch, the model the attitude it computed the wheel from, at most a
 * substep earlier in a steady turn: 1e-5 rad (0.0006 deg). */
START_TEST(test_kinematic_curves_follow_travel)
{
    pdk_vehicle_def d = test_car();
    d.tyre_front.camber_stiffness_n_per_rad = 5000.0;
    d.tyre_rear.camber_stiffness_n_per_rad = 5000.0;
    d.susp_front.static_toe_rad = 0.1 * DEG;
    d.susp_front.static_camber_rad = -0.8 * DEG;
    d.susp_rear.static_toe_rad = 0.2 * DEG;
    d.susp_rear.static_camber_rad = -1.2 * DEG;
    pdk_kinematics_def *kf = &d.susp_front.kinematics;
    pdk_kinematics_def *kr = &d.susp_rear.kinematics;
    kf->toe_rad = curve3(-0.08, 0.3 * DEG, 0.0, 0.0, 0.08, -0.4 * DEG);
    kf->camber_rad = curve3(-0.08, 1.0 * DEG, 0.0, 0.0, 0.08, -1.5 * DEG);
    kr->toe_rad = curve3(-0.08, -0.2 * DEG, 0.0, 0.0, 0.08, 0.2 * DEG);
    kr->camber_rad = curve3(-0.08, 0.8 * DEG, 0.0, 0.0, 0.08, -1.0 * DEG);
    fw_run r;
    run_init(&r, &d, 2, 15.0, PDK_GEAR_DRIVE);
    drive_steady(&r, 15.0, 60.0, 4.0);
    assert_channels_finite(&r);
    double phi = r.ch[PDK_CH_ROLL];
    double theta = r.ch[PDK_CH_PITCH];
    double steer = r.ch[PDK_CH_STEER_ANGLE];
    ck_assert_double_gt(phi, 1.0 * DEG);
    for (int w = 0; w < PDK_WHEELS; w++) {
        int axle = w < 2 ? 0 : 1;
        const pdk_suspension_def *s = axle == 0 ? &d.susp_front : &d.susp_rear;
        double x = r.ch[PDK_CH_SUSP_TRAVEL_FL + w];
        /* Outer wheels in bump, inner in droop, well inside the curves. */
        ck_assert_double_gt(-side(w) * x, 0.01);
        double toe = s->static_toe_rad + curve_at(&s->kinematics.toe_rad, x);
        double alignment_camber = s->static_camber_rad + curve_at(&s->kinematics.camber_rad, x);
        double delta = (axle == 0 ? steer : 0.0) - side(w) * toe;
        double gamma = -side(w) * alignment_camber;
        double camber = camber_on_level(phi, theta, r.ch[PDK_CH_WHEEL_STEER_FL + w], gamma);
        printf("fw_geometry curves wheel %d: travel %+.4f m, toe %+.4f deg (want %+.4f), "
               "camber %+.4f deg (want %+.4f)\n",
               w, x, r.ch[PDK_CH_TOE_FL + w] / DEG, toe / DEG, r.ch[PDK_CH_CAMBER_FL + w] / DEG,
               camber / DEG);
        ck_assert_double_le(fabs(r.ch[PDK_CH_TOE_FL + w] - toe), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_WHEEL_STEER_FL + w] - delta), 1e-9);
        ck_assert_double_le(fabs(r.ch[PDK_CH_CAMBER_FL + w] - camber), 1e-5);
    }
    /* Front: the outer wheel toes out in bump, the inner toes in in droop. */
    ck_assert_double_lt(r.ch[PDK_CH_TOE_FR], d.susp_front.static_toe_rad);
    ck_assert_double_gt(r.ch[PDK_CH_TOE_FL], d.susp_front.static_toe_rad);
}
END_TEST

/* The per-wheel link form (docs/vehicle-model.md; scheme: link_i = -s_i Fy_i 2
 * h_rc_i / t, h_rc_i = h_rc + curve(x_i), from the previous substep's
 * body-frame tyre forces): JackingForce is the sum over the axle and
 * GeometricTransfer (link_R - link_L) / 2. Checked against that hand
 * calculation from the state's forces and the reported travels in a steady
 * left turn: the last two substeps' forces agree to far below the 0.5 % of the
 * axle's link scale Fy_axle 2 h_rc / t allowed. A roll centre that falls in
 * bump (front) moves the outer wheel's link down and the inner's up; a flat
 * curve (rear) jacks the body up by 2 h (Fy_R - Fy_L) / t because the outer
 * tyre carries more force. Without curves (couple form) the same roll centres
 * never jack. */
START_TEST(test_jacking_per_wheel_form)
{
    pdk_vehicle_def d = test_car();
    d.susp_front.roll_center_height_m = 0.1;
    d.susp_rear.roll_center_height_m = 0.12;
    pdk_vehicle_def couple = d;
    d.susp_front.kinematics.roll_center_height_m = curve3(-0.08, 0.06, 0.0, 0.0, 0.08, -0.06);
    d.susp_rear.kinematics.roll_center_height_m = curve2(-0.1, 0.0, 0.1, 0.0);

    fw_run r;
    run_init(&r, &d, 2, 15.0, PDK_GEAR_DRIVE);
    drive_steady(&r, 15.0, 60.0, 4.0);
    assert_channels_finite(&r);
    for (int axle = 0; axle < 2; axle++) {
        const pdk_suspension_def *s = axle == 0 ? &d.susp_front : &d.susp_rear;
        double t = track_m(&d, axle);
        int wl = axle == 0 ? PDK_FL : PDK_RL;
        double link[2];
        for (int k = 0; k < 2; k++) {
            int w = wl + k;
            double x = r.ch[PDK_CH_SUSP_TRAVEL_FL + w];
            double hrc = s->roll_center_height_m + curve_at(&s->kinematics.roll_center_height_m, x);
            link[k] = -side(w) * r.state.prev_fy_n[w] * 2.0 * hrc / t;
        }
        double jack = link[0] + link[1];
        double geo = 0.5 * (link[1] - link[0]);
        double scale = fabs(r.state.prev_fy_n[wl] + r.state.prev_fy_n[wl + 1]) * 2.0 *
                       s->roll_center_height_m / t;
        double got_jack = r.ch[axle == 0 ? PDK_CH_JACKING_FORCE_F : PDK_CH_JACKING_FORCE_R];
        double got_geo =
            r.ch[axle == 0 ? PDK_CH_GEOMETRIC_TRANSFER_F : PDK_CH_GEOMETRIC_TRANSFER_R];
        printf("fw_geometry jacking axle %d: Fy L/R %.1f / %.1f N, JackingForce %.2f N (hand "
               "%.2f), GeometricTransfer %.2f N (hand %.2f)\n",
               axle, r.state.prev_fy_n[wl], r.state.prev_fy_n[wl + 1], got_jack, jack, got_geo,
               geo);
        ck_assert_double_le(fabs(got_jack - jack), 0.005 * scale);
        ck_assert_double_le(fabs(got_geo - geo), 0.005 * scale);
        /* The hand calculation is not trivially small. */
        ck_assert_double_gt(fabs(jack), 0.05 * scale);
    }
    /* Flat curve at the rear: the outer force is larger, so it lifts. */
    ck_assert_double_gt(r.state.prev_fy_n[PDK_RR], r.state.prev_fy_n[PDK_RL]);
    ck_assert_double_gt(r.ch[PDK_CH_JACKING_FORCE_R], 0.0);

    fw_run c;
    run_init(&c, &couple, 2, 15.0, PDK_GEAR_DRIVE);
    drive_steady(&c, 15.0, 60.0, 4.0);
    ck_assert_double_eq(c.ch[PDK_CH_JACKING_FORCE_F], 0.0);
    ck_assert_double_eq(c.ch[PDK_CH_JACKING_FORCE_R], 0.0);
    double fy_r = c.state.prev_fy_n[PDK_RL] + c.state.prev_fy_n[PDK_RR];
    double geo_r = fy_r * couple.susp_rear.roll_center_height_m / track_m(&couple, 1);
    ck_assert_double_le(rel_err(c.ch[PDK_CH_GEOMETRIC_TRANSFER_R], geo_r), 0.005);
}
END_TEST

/* A definition whose curves all have n_points 0 runs byte for byte as one
 * whose kinematics block is zero, even with stale points behind the zero
 * counts: "n_points 0 means no curve" (vehicle_def.h), so no curve code may
 * read the arrays. 5 s of driving with throttle, steering and braking;
 * memcmp of the states (zeroed with their padding before init) and of every
 * channel. */
START_TEST(test_empty_kinematics_is_identical)
{
    pdk_vehicle_def plain = test_car();
    plain.susp_front.roll_center_height_m = 0.08;
    plain.susp_rear.anti_brake = 0.3;
    pdk_vehicle_def stale = plain;
    for (int axle = 0; axle < 2; axle++) {
        pdk_curve *cs[5] = {
            &susp(&stale, axle)->kinematics.toe_rad, &susp(&stale, axle)->kinematics.camber_rad,
            &susp(&stale, axle)->kinematics.roll_center_height_m,
            &susp(&stale, axle)->kinematics.anti_brake, &susp(&stale, axle)->kinematics.anti_drive};
        for (int k = 0; k < 5; k++) {
            for (int p = 0; p < PDK_CURVE_MAX_POINTS; p++) {
                cs[k]->travel_m[p] = -0.1 + 0.01 * p;
                cs[k]->value[p] = 0.05 + 0.01 * p;
            }
            cs[k]->n_points = 0;
        }
    }
    fw_run a;
    fw_run b;
    run_init(&a, &plain, 2, 10.0, PDK_GEAR_DRIVE);
    run_init(&b, &stale, 2, 10.0, PDK_GEAR_DRIVE);
    for (int t = 0; t < 5 * TICKS_PER_S; t++) {
        double sec = (double)t / TICKS_PER_S;
        double throttle = sec < 2.0 ? 40.0 : 0.0;
        double brake = sec > 3.5 ? 30.0 : 0.0;
        double steer = 90.0 * sin(2.0 * sec);
        run_command(&a, throttle, brake, steer);
        run_command(&b, throttle, brake, steer);
        run_tick(&a);
        run_tick(&b);
    }
    assert_channels_finite(&a);
    ck_assert_int_eq(memcmp(&a.state, &b.state, sizeof a.state), 0);
    ck_assert_int_eq(memcmp(a.ch, b.ch, sizeof a.ch), 0);
    /* The run did something. */
    ck_assert_double_gt(fabs(a.state.pos_m[1]), 1.0);
}
END_TEST

/* ---- 3. kerb strike, solid axles ----------------------------------------- */

static pdk_bump bump_at(double x_m, double y_m, double length_m, double width_m, double height_m)
{
    pdk_bump b = {.x_m = x_m,
                  .y_m = y_m,
                  .yaw_rad = 0.0,
                  .length_m = length_m,
                  .width_m = width_m,
                  .height_m = height_m};
    return b;
}

/* The front-left wheel crosses a 4 cm, 0.8 m raised-cosine kerb under the
 * left track at 5 m/s (0.16 s over it; the rear-left follows 0.54 s later).
 * The contact is where the ray meets the ground, so the wheel's travel is the
 * kerb's height under it less the corner's own rise (ride 1.5 Hz: the body
 * follows only partly in 0.16 s): asserted at the peak against
 * height - (dZ + y phi - x theta) of that corner within 2 mm (the corner's
 * rise from the small-angle pose, and the ray's 3 mm slide along a slope of
 * at most 0.16: 0.5 mm). The other wheels move far less (the body's heave,
 * roll and pitch only). The body rolls toward the right (positive roll)
 * and settles; every channel is finite at every tick. */
START_TEST(test_kerb_strike)
{
    pdk_vehicle_def d = test_car();
    double tf = track_m(&d, 0);
    double len = d.chassis.wheelbase_m;
    double a = d.chassis.cg_to_front_axle_m;
    double h = d.chassis.cg_height_m;
    const double bump_h = 0.04;
    pdk_terrain_def terrain;
    memset(&terrain, 0, sizeof terrain);
    terrain.n_bumps = 1;
    terrain.bumps[0] = bump_at(5.0, 0.5 * tf, 0.8, 0.4, bump_h);
    fw_run r;
    run_init_at(&r, &d, &terrain, DT, 2, 0.0, 0.0, 5.0, PDK_GEAR_NEUTRAL);
    double max_fl = 0.0;
    double max_other = 0.0;
    int other_wheel = 0;
    double other_sec = 0.0;
    double max_roll = 0.0;
    double min_roll = 0.0;
    double at_peak_rise = 0.0;
    double at_peak_ground = 0.0;
    double t_rear = (5.0 - 0.4 + (len - a)) / 5.0;
    for (int t = 1; t <= 5 * TICKS_PER_S; t++) {
        run_tick(&r);
        assert_channels_finite(&r);
        double sec = (double)t / TICKS_PER_S;
        if (sec < t_rear) {
            double x = r.ch[PDK_CH_SUSP_TRAVEL_FL];
            if (x > max_fl) {
                max_fl = x;
                double phi = r.ch[PDK_CH_ROLL];
                double theta = r.ch[PDK_CH_PITCH];
                at_peak_rise = (r.ch[PDK_CH_POS_Z] - h) + 0.5 * tf * sin(phi) - a * sin(theta);
                double nrm[3];
                at_peak_ground = pdk_terrain_height(&terrain, r.ch[PDK_CH_POS_X] + a,
                                                    r.ch[PDK_CH_POS_Y] + 0.5 * tf, nrm);
            }
            for (int w = PDK_FR; w <= PDK_RR; w++) {
                double o = fabs(r.ch[PDK_CH_SUSP_TRAVEL_FL + w]);
                if (o > max_other) {
                    max_other = o;
                    other_wheel = w;
                    other_sec = sec;
                }
            }
            double phi = r.ch[PDK_CH_ROLL];
            max_roll = phi > max_roll ? phi : max_roll;
            min_roll = phi < min_roll ? phi : min_roll;
        }
    }
    printf("fw_geometry kerb: FL travel peak %.4f m (ground %.4f, corner rise %.4f), other "
           "wheels %.4f m (wheel %d at %.3f s), roll %+.3f / %+.3f deg\n",
           max_fl, at_peak_ground, at_peak_rise, max_other, other_wheel, other_sec, max_roll / DEG,
           min_roll / DEG);
    ck_assert_double_gt(max_fl, 0.5 * bump_h);
    ck_assert_double_le(max_fl, bump_h);
    ck_assert_double_le(fabs(max_fl - (at_peak_ground - at_peak_rise)), 0.002);
    ck_assert_double_le(max_other, 0.3 * max_fl);
    /* Rolls toward the right first, more than it rebounds. */
    ck_assert_double_gt(max_roll, 0.1 * DEG);
    ck_assert_double_gt(max_roll, -min_roll);
    /* Settled 3.6 s after the rear crossing (modes decay at 2.8 /s or
     * faster: below 1e-4 of a centimetre-sized motion). */
    ck_assert_double_le(fabs(r.ch[PDK_CH_ROLL]), 1e-5);
    ck_assert_double_le(fabs(r.ch[PDK_CH_PITCH]), 1e-5);
    for (int w = 0; w < PDK_WHEELS; w++) {
        ck_assert_double_le(fabs(r.ch[PDK_CH_SUSP_TRAVEL_FL + w]), 1e-5);
    }
}
END_TEST

/* A car whose rear axle is a beam (or not), stiffer (2.5 Hz) so that it can
 * stand on three wheels. */
static pdk_vehicle_def beam_car(pdk_axle_kind rear)
{
    pdk_vehicle_def d = test_car();
    set_ride(&d, 2.5, 0.4);
    d.susp_rear.kind = rear;
    d.susp_rear.static_camber_rad = -0.5 * DEG;
    return d;
}

/* Parked with the rear-left wheel on the crest of a 4 cm kerb (flat there,
 * and flat across its width). A solid axle stands both rear wheels square
 * to the beam through the two contacts, which climbs 4 cm over the track:
 * both Camber_RL and Camber_RR are the beam's inclination, about
 * asin(0.04 / t), plus each wheel's static camber (the normals at both
 * contacts are vertical). The beam's inclination is asserted within 2 %
 * (the contacts' horizontal spacing is t / cos(phi) plus pitch terms, below
 * 0.1 %). An independent axle in the same place leans its wheels with the
 * body: Camber = roll + static (camber_on_level), a fraction of the beam's.
 * Then rolling over the kerb at 5 m/s: on the solid axle, while the
 * rear-left wheel is on it, both rear cambers less the static camber keep
 * the same sign and size within 5 % (the rear-left normal tilts along x by
 * at most atan(pi 0.04 / 0.8) = 9 deg, cos = 0.988). */
START_TEST(test_solid_axle_one_wheel_bump)
{
    const double bump_h = 0.04;
    for (int kind = 0; kind < 2; kind++) {
        pdk_vehicle_def d = beam_car(kind == 1 ? PDK_AXLE_SOLID : PDK_AXLE_INDEPENDENT);
        double tr = track_m(&d, 1);
        double b_m = d.chassis.wheelbase_m - d.chassis.cg_to_front_axle_m;
        double gamma_l = -d.susp_rear.static_camber_rad; /* ISO, left wheel */
        pdk_terrain_def terrain;
        memset(&terrain, 0, sizeof terrain);
        terrain.n_bumps = 1;
        terrain.bumps[0] = bump_at(-b_m, 0.5 * tr, 0.8, 0.4, bump_h);
        fw_run r;
        run_init_at(&r, &d, &terrain, DT, 2, 0.0, 0.0, 0.0, PDK_GEAR_PARK);
        run_for(&r, 3.0);
        assert_channels_finite(&r);
        double phi = r.ch[PDK_CH_ROLL];
        double theta = r.ch[PDK_CH_PITCH];
        double cl = r.ch[PDK_CH_CAMBER_RL];
        double cr = r.ch[PDK_CH_CAMBER_RR];
        double beam = asin(bump_h / hypot(tr, bump_h));
        printf("fw_geometry parked on kerb, %s rear: Camber_RL %+.4f deg, Camber_RR %+.4f "
               "deg, roll %+.4f deg, beam %.4f deg, travel RL %.4f m\n",
               kind ? "solid" : "independent", cl / DEG, cr / DEG, phi / DEG, beam / DEG,
               r.ch[PDK_CH_SUSP_TRAVEL_RL]);
        ck_assert_double_gt(r.ch[PDK_CH_SUSP_TRAVEL_RL], 0.01);
        if (kind == 1) {
            /* Both wheels square to one beam, each with its static camber:
             * Camber = asin(cos(theta) sin(beta +- gamma)) for the beam's
             * inclination beta in the body's y-z plane, which the left
             * wheel's camber gives and the right wheel's must match. 1e-6:
             * the rear-left's ray meets the kerb a few millimetres off its
             * crest as the body pitches, where the ground's normal tilts by
             * up to 0.004 rad along x; through the wheel's small x
             * component (sin(theta) sin(beta), 2e-4) and the cosine that
             * moves its camber by < 1e-6 rad. The beam's own inclination to the
             * ground, asin(cos(theta) sin(beta)), is the kerb's 4 cm over
             * the track (2 %). */
            double beta = asin(sin(cl) / cos(theta)) - gamma_l;
            ck_assert_double_le(fabs(cr - asin(cos(theta) * sin(beta - gamma_l))), 1e-6);
            ck_assert_double_le(rel_err(asin(cos(theta) * sin(beta)), beam), 0.02);
            ck_assert_double_gt(cl - gamma_l, 0.0);
            ck_assert_double_gt(cr + gamma_l, 0.0);
        } else {
            ck_assert_double_le(fabs(cl - camber_on_level(phi, theta, 0.0, gamma_l)), 1e-6);
            ck_assert_double_le(fabs(cr - camber_on_level(phi, theta, 0.0, -gamma_l)), 1e-6);
            ck_assert_double_lt(fabs(phi), 0.5 * beam);
        }
    }

    pdk_vehicle_def d = beam_car(PDK_AXLE_SOLID);
    double gamma_l = -d.susp_rear.static_camber_rad;
    double tr = track_m(&d, 1);
    pdk_terrain_def terrain;
    memset(&terrain, 0, sizeof terrain);
    terrain.n_bumps = 1;
    /* Behind the front axle, ahead of the rear: only the rear-left crosses. */
    terrain.bumps[0] = bump_at(-0.7, 0.5 * tr, 0.8, 0.4, bump_h);
    fw_run r;
    run_init_at(&r, &d, &terrain, DT, 2, 0.0, 0.0, 5.0, PDK_GEAR_NEUTRAL);
    int on_bump = 0;
    for (int t = 0; t < TICKS_PER_S; t++) {
        run_tick(&r);
        assert_channels_finite(&r);
        ck_assert_double_le(fabs(r.ch[PDK_CH_SUSP_TRAVEL_FL]), 0.01);
        if (r.ch[PDK_CH_SUSP_TRAVEL_RL] > 0.01) {
            on_bump++;
            double cl = r.ch[PDK_CH_CAMBER_RL] - gamma_l;
            double cr = r.ch[PDK_CH_CAMBER_RR] + gamma_l;
            ck_assert_double_gt(cl, 0.0);
            ck_assert_double_gt(cr, 0.0);
            ck_assert_double_le(rel_err(cl, cr), 0.05);
        }
    }
    ck_assert_int_ge(on_bump, 5);
}
END_TEST

/* On level ground a solid axle's beam lies on the ground whatever the body
 * does, so body roll does not change its wheels' camber: in a left turn
 * with 2 deg of roll, Camber_RL and Camber_RR stay at their static values
 * (-+ static alignment camber in the ISO sign; the body's pitch enters as
 * cos(theta), 1e-6: 1e-6 rad). The independent axle in the same turn leans
 * its wheels with the body (camber_on_level, 1e-5 as in the curves test). */
START_TEST(test_solid_axle_ignores_body_roll)
{
    for (int kind = 0; kind < 2; kind++) {
        pdk_vehicle_def d = test_car();
        d.susp_rear.kind = kind == 1 ? PDK_AXLE_SOLID : PDK_AXLE_INDEPENDENT;
        d.susp_rear.static_camber_rad = -0.5 * DEG;
        double gamma_l = -d.susp_rear.static_camber_rad;
        fw_run r;
        run_init(&r, &d, 2, 15.0, PDK_GEAR_DRIVE);
        drive_steady(&r, 15.0, 60.0, 4.0);
        assert_channels_finite(&r);
        double phi = r.ch[PDK_CH_ROLL];
        double theta = r.ch[PDK_CH_PITCH];
        ck_assert_double_gt(phi, 1.5 * DEG);
        double cl = r.ch[PDK_CH_CAMBER_RL];
        double cr = r.ch[PDK_CH_CAMBER_RR];
        printf("fw_geometry turn, %s rear: roll %.3f deg, Camber_RL %+.4f deg, Camber_RR "
               "%+.4f deg\n",
               kind ? "solid" : "independent", phi / DEG, cl / DEG, cr / DEG);
        if (kind == 1) {
            ck_assert_double_le(fabs(cl - gamma_l), 1e-6);
            ck_assert_double_le(fabs(cr + gamma_l), 1e-6);
        } else {
            ck_assert_double_le(fabs(cl - camber_on_level(phi, theta, 0.0, gamma_l)), 1e-5);
            ck_assert_double_le(fabs(cr - camber_on_level(phi, theta, 0.0, -gamma_l)), 1e-5);
        }
    }
}
END_TEST

/* Parked with the rear-left wheel over a 15 cm pothole (1 m long): the car
 * settles on three wheels and the rear-left hangs at full droop, unloaded. A
 * solid axle without both contacts has no beam, so both rear wheels fall back
 * to the body's axis: the rear-right's Camber = roll + static, as on an
 * independent axle (camber_on_level; static pose on level ground: 1e-6). A
 * beam through the rear-left's ray hit, 10 cm lower than the right, would lean
 * it 4 deg the other way. (The airborne wheel's own Camber_RL has no contact
 * normal to be measured against; the model does not say what it reports, so it
 * is only required to be finite.) */
START_TEST(test_solid_axle_wheel_in_air)
{
    pdk_vehicle_def d = beam_car(PDK_AXLE_SOLID);
    d.susp_rear.travel_droop_m = 0.05;
    double tr = track_m(&d, 1);
    double b_m = d.chassis.wheelbase_m - d.chassis.cg_to_front_axle_m;
    double gamma_l = -d.susp_rear.static_camber_rad;
    pdk_terrain_def terrain;
    memset(&terrain, 0, sizeof terrain);
    terrain.n_bumps = 1;
    terrain.bumps[0] = bump_at(-b_m, 0.5 * tr, 1.0, 0.4, -0.15);
    fw_run r;
    run_init_at(&r, &d, &terrain, DT, 2, 0.0, 0.0, 0.0, PDK_GEAR_PARK);
    /* 5 s: the body drops into the pothole and then rests on its tyres'
     * lateral springs (their deflections, ADR 0008), damped by the carcass,
     * which settles the roll to some 1e-5 rad/s by then (at 3 s it still
     * rolls at 5e-4 rad/s, which moves the roll by 2e-6 rad between the
     * last substep's start, where Camber is taken, and the tick's end). */
    run_for(&r, 5.0);
    assert_channels_finite(&r);
    double phi = r.ch[PDK_CH_ROLL];
    double theta = r.ch[PDK_CH_PITCH];
    printf("fw_geometry rear-left in a pothole, solid rear: travel RL %.4f, load RL %.1f, roll "
           "%+.3f deg, pitch %+.3f deg, Camber_RL %+.4f deg, Camber_RR %+.4f deg\n",
           r.ch[PDK_CH_SUSP_TRAVEL_RL], r.ch[PDK_CH_TYRE_LOAD_RL], phi / DEG, theta / DEG,
           r.ch[PDK_CH_CAMBER_RL] / DEG, r.ch[PDK_CH_CAMBER_RR] / DEG);
    ck_assert_double_eq(r.ch[PDK_CH_TYRE_LOAD_RL], 0.0);
    ck_assert_double_eq(r.ch[PDK_CH_SUSP_TRAVEL_RL], -d.susp_rear.travel_droop_m);
    ck_assert_double_gt(r.ch[PDK_CH_TYRE_LOAD_FR], 0.0);
    /* The body leans toward the missing corner: left side down. */
    ck_assert_double_lt(phi, -0.2 * DEG);
    double want_r = camber_on_level(phi, theta, 0.0, -gamma_l);
    ck_assert_double_le(fabs(r.ch[PDK_CH_CAMBER_RR] - want_r), 1e-6);
    /* Not a beam's: that would lean the right wheel the other way. */
    ck_assert_double_lt(r.ch[PDK_CH_CAMBER_RR], 0.0);
}
END_TEST

/* ---- camber thrust at the wheel in the car -------------------------------- */

/* The test car on a Magic Formula set (the passenger-car road205, MF6.1
 * camber terms) in place of the grip law, at both ends. */
static void use_mf(pdk_vehicle_def *d)
{
    for (int axle = 0; axle < 2; axle++) {
        pdk_tyre_law_def *l = axle == 0 ? &d->tyre_front.law : &d->tyre_rear.law;
        l->law = PDK_TYRE_MAGIC;
        l->mf_set = PDK_MF_ROAD_205_60R15;
        l->mf = *pdk_mf_set_coeffs(PDK_MF_ROAD_205_60R15);
        l->slide_grip = 0.0;
        l->nominal_load_n = l->mf.fnomin_n * l->mf.lfzo;
        l->radius_m = l->mf.unloaded_radius_m;
    }
}

/* The test car coasting straight at 20 m/s for 2 s with every wheel at a
 * static camber of static_deg (alignment sign) and the default car's
 * camber stiffnesses, 8 and 9 kN/rad per axle. */
static void coast_cambered(fw_run *r, int mf, double static_deg)
{
    pdk_vehicle_def d = test_car();
    if (mf) {
        use_mf(&d);
    }
    d.tyre_front.camber_stiffness_n_per_rad = 8000.0;
    d.tyre_rear.camber_stiffness_n_per_rad = 9000.0;
    d.susp_front.static_camber_rad = static_deg * DEG;
    d.susp_rear.static_camber_rad = static_deg * DEG;
    run_init(r, &d, 2, 20.0, PDK_GEAR_DRIVE);
    run_command(r, 0.0, 0.0, 0.0);
    run_for(r, 2.0);
    assert_channels_finite(r);
}

/* Camber thrust acts toward the side the wheel's top leans to (Pacejka,
 * Tire and Vehicle Dynamics, 3rd ed., sections 1.3 and 4.3; Milliken and
 * Milliken, Race Car Vehicle Dynamics, ch. 2). With 2 deg of negative
 * static camber (tops in) a left wheel leans its top toward -y, ISO
 * Camber_FL +2 deg, and a right wheel toward +y, Camber_FR -2 deg; going
 * straight at zero slip angle each tyre must push toward its lean: the left
 * ones toward -y, the right ones toward +y.
 *  - The grip law: each tyre's thrust is camber_per_load |gamma| Fz, its
 *    axle's camber stiffness / 2 per rad at the static load (1 %: the
 *    deflections the lateral dynamics leave are 1e-6 of it), and the left
 *    and right thrusts cancel: the car runs straight, VelY and YawRate
 *    within 1e-6 (a symmetric car; the four laterals sum to < 1e-6 of one).
 *  - The Magic Formula in the same car: the same directions, taken as the
 *    change from the upright car (its conicity and ply steer are in both).
 * Before the grip law's sign was put right, its thrust pointed away from
 * the lean, opposite to the Magic Formula's. */
START_TEST(test_camber_thrust_toward_the_lean_in_the_car)
{
    fw_run r, up;
    coast_cambered(&r, 0, -2.0);
    const double cam[4] = {r.ch[PDK_CH_CAMBER_FL], r.ch[PDK_CH_CAMBER_FR], r.ch[PDK_CH_CAMBER_RL],
                           r.ch[PDK_CH_CAMBER_RR]};
    double sum = 0.0;
    for (int w = 0; w < 4; w++) {
        const double fy = r.ch[PDK_CH_FORCE_Y_FL + w];
        const double fz = r.ch[PDK_CH_TYRE_LOAD_FL + w];
        const double c_axle = w < 2 ? 8000.0 : 9000.0;
        const double fz_static = corner_mass_kg(&r.def, w >> 1) * G;
        const double want = -0.5 * c_axle * cam[w] * fz / fz_static;
        printf("fw_geometry camber grip %d: Camber %+.3f deg, Fy %+.2f N (want %+.2f N)\n", w,
               cam[w] / DEG, fy, want);
        ck_assert_double_le(fabs(cam[w] - side(w) * 2.0 * DEG), 0.01 * DEG);
        ck_assert_double_lt(side(w) * fy, 0.0);
        ck_assert_double_le(fabs(fy - want), 0.01 * fabs(want));
        sum += fy;
    }
    ck_assert_double_le(fabs(sum), 1e-6 * fabs(r.ch[PDK_CH_FORCE_Y_FL]));
    ck_assert_double_le(fabs(r.ch[PDK_CH_VEL_Y]), 1e-6);
    ck_assert_double_le(fabs(r.ch[PDK_CH_YAW_RATE]), 1e-6);

    coast_cambered(&r, 1, -2.0);
    coast_cambered(&up, 1, 0.0);
    for (int w = 0; w < 4; w++) {
        const double dfy = r.ch[PDK_CH_FORCE_Y_FL + w] - up.ch[PDK_CH_FORCE_Y_FL + w];
        printf("fw_geometry camber MF %d: thrust %+.2f N\n", w, dfy);
        ck_assert_double_lt(side(w) * dfy, -1.0);
    }
}
END_TEST

/* In a steady left turn the body rolls right side down and leans every
 * wheel's top toward -y, the outer (right) ones outward: with no static
 * camber, Camber_FR > 0. Their camber thrust then acts toward -y, against
 * the cornering force, and takes grip from the axle. On the test car with
 * camber stiffness at the front only (8 kN/rad), that is understeer: at
 * the same speed and steering-wheel angle the car yaws slower than the same
 * car without camber stiffness. The linear estimate of the loss, camber
 * stiffness times roll over the front axle's cornering stiffness, is about
 * 3 % of the front slip angle; the test asks for a lower yaw rate by more
 * than 0.3 % (the runs are otherwise identical, bit for bit up to the
 * thrust). Before the sign was put right, the thrust helped the front and
 * the car yawed faster. */
START_TEST(test_roll_camber_takes_grip_in_a_turn)
{
    double yaw[2], roll = 0.0, cam_fr = 0.0;
    for (int k = 0; k < 2; k++) {
        pdk_vehicle_def d = test_car();
        d.tyre_front.camber_stiffness_n_per_rad = k == 1 ? 8000.0 : 0.0;
        fw_run r;
        run_init(&r, &d, 2, 15.0, PDK_GEAR_DRIVE);
        drive_steady(&r, 15.0, 60.0, 4.0);
        assert_channels_finite(&r);
        yaw[k] = r.ch[PDK_CH_YAW_RATE];
        roll = r.ch[PDK_CH_ROLL];
        cam_fr = r.ch[PDK_CH_CAMBER_FR];
    }
    printf("fw_geometry roll camber: roll %.3f deg, Camber_FR %+.3f deg, yaw rate %.5f rad/s "
           "without camber thrust, %.5f with\n",
           roll / DEG, cam_fr / DEG, yaw[0], yaw[1]);
    ck_assert_double_gt(roll, 1.5 * DEG);
    ck_assert_double_gt(cam_fr, 1.0 * DEG);
    ck_assert_double_lt(yaw[1], (1.0 - 0.003) * yaw[0]);
}
END_TEST

static Suite *fw_geometry_suite(void)
{
    Suite *s = suite_create("fw_geometry");
    TCase *kin = tcase_create("kinematics");
    tcase_add_test(kin, test_kinematic_curves_follow_travel);
    tcase_add_test(kin, test_jacking_per_wheel_form);
    tcase_add_test(kin, test_empty_kinematics_is_identical);
    tcase_add_test(kin, test_ackermann_and_toe);
    tcase_add_test(kin, test_camber_thrust_toward_the_lean_in_the_car);
    tcase_add_test(kin, test_roll_camber_takes_grip_in_a_turn);
    suite_add_tcase(s, kin);

    TCase *ground = tcase_create("kerbs and solid axles");
    tcase_add_test(ground, test_kerb_strike);
    tcase_add_test(ground, test_solid_axle_one_wheel_bump);
    tcase_add_test(ground, test_solid_axle_ignores_body_roll);
    tcase_add_test(ground, test_solid_axle_wheel_in_air);
    suite_add_tcase(s, ground);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fw_geometry_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
