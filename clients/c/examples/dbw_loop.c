/* paddock-dbw-example: a 50 Hz drive-by-wire control loop on libpaddock-client,
 * as an autonomy stack would run one against a Dataspeed DBW2 kit. It takes
 * the AUTONOMY lease on a vehicle, enables the kit and, every 20 ms on
 * absolute monotonic deadlines, sends a steering angle (a gentle sine) and a
 * ULC velocity target (a step to --speed after one second), each with its
 * rolling counter. Twice a second it prints what the kit reports. On exit
 * (--duration, Ctrl-C or an error) it disables the kit.
 *
 *   paddock-dbw-example [--server HOST:PORT] [--session S --vehicle V]
 *                       [--preset P] [--speed MPS] [--duration S] [--crc]
 *
 * Without --session it creates a session; without --vehicle it spawns one
 * from --preset (default midsize_sedan) in drive. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paddock_client.h"
#include "paddock_dbw.h"

#define PERIOD_NS 20000000L /* 50 Hz */
#define PRINT_EVERY 25      /* periods: 2 Hz */
#define STEER_AMPLITUDE_DEG 30.0
#define STEER_PERIOD_S 5.0
#define SPEED_STEP_AT_S 1.0
#define TWO_PI 6.283185307179586

/* Large: static storage, not the stack. */
static pdk_client client;
static paddock_v1_Frame frame;
static pdk_dbw_link dbw;

/* The latest report of each kind the loop prints. */
static paddock_v1_SystemReport last_system;
static paddock_v1_UlcReport last_ulc;
static paddock_v1_SteeringReport last_steering;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void on_report(const paddock_v1_DbwReport *r, void *ud)
{
    (void)ud;
    if (r->which_report == paddock_v1_DbwReport_system_tag) {
        last_system = r->report.system;
    } else if (r->which_report == paddock_v1_DbwReport_ulc_tag) {
        last_ulc = r->report.ulc;
    } else if (r->which_report == paddock_v1_DbwReport_steering_tag) {
        last_steering = r->report.steering;
    }
}

static void on_event(const paddock_v1_ControlEvent *e, void *ud)
{
    (void)ud;
    fprintf(stderr, "control event: active source %d, pre-empted %d: %s\n", (int)e->active_source,
            (int)e->preempted, e->reason);
}

/* One request/reply on the plain client (session and vehicle set-up). */
static int request(pb_size_t body, pb_size_t reply, const char *what)
{
    frame.which_body = body;
    pdk_client_status st = pdk_client_call(&client, &frame, &frame, NULL, NULL);
    if (st == PDK_CLIENT_OK) {
        st = pdk_client_expect(&client, &frame, reply);
    }
    if (st != PDK_CLIENT_OK) {
        fprintf(stderr, "paddock-dbw-example: %s: %s\n", what, client.error);
        return -1;
    }
    return 0;
}

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static int usage(const char *why)
{
    fprintf(stderr,
            "paddock-dbw-example: %s\nusage: paddock-dbw-example [--server HOST:PORT] "
            "[--session S --vehicle V] [--preset P] [--speed MPS] [--duration S] [--crc]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    const char *server = NULL;
    const char *preset = "midsize_sedan";
    unsigned long long session = 0;
    unsigned long vehicle = 0;
    double speed_mps = 5.0;
    double duration_s = 10.0;
    int crc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--crc") == 0) {
            crc = 1;
            continue;
        }
        if (v == NULL) {
            return usage(strncmp(a, "--", 2) == 0 ? "an option lacks its value" : a);
        }
        i++;
        if (strcmp(a, "--server") == 0) {
            server = v;
        } else if (strcmp(a, "--session") == 0) {
            session = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--vehicle") == 0) {
            vehicle = strtoul(v, NULL, 10);
        } else if (strcmp(a, "--preset") == 0) {
            preset = v;
        } else if (strcmp(a, "--speed") == 0) {
            speed_mps = atof(v);
        } else if (strcmp(a, "--duration") == 0) {
            duration_s = atof(v);
        } else {
            return usage(a);
        }
    }
    if (vehicle != 0 && session == 0) {
        return usage("--vehicle needs --session");
    }

    const char *addr = pdk_client_server_address(server);
    if (pdk_client_connect_as(&client, addr, 0, "paddock-dbw-example", NULL) != PDK_CLIENT_OK) {
        fprintf(stderr, "paddock-dbw-example: cannot connect to %s: %s\n", addr, client.error);
        return 3;
    }
    if (session == 0) {
        memset(&frame, 0, sizeof frame);
        snprintf(frame.body.session_create.name, sizeof frame.body.session_create.name,
                 "dbw-example");
        if (request(paddock_v1_Frame_session_create_tag, paddock_v1_Frame_session_created_tag,
                    "create a session") != 0) {
            return 1;
        }
        session = frame.body.session_created.session.session_id;
    }
    if (vehicle == 0) {
        memset(&frame, 0, sizeof frame);
        frame.body.vehicle_spawn.session_id = session;
        snprintf(frame.body.vehicle_spawn.preset, sizeof frame.body.vehicle_spawn.preset, "%s",
                 preset);
        frame.body.vehicle_spawn.gear = paddock_v1_Gear_GEAR_DRIVE;
        if (request(paddock_v1_Frame_vehicle_spawn_tag, paddock_v1_Frame_vehicle_spawned_tag,
                    "spawn a vehicle") != 0) {
            return 1;
        }
        vehicle = frame.body.vehicle_spawned.vehicle_id;
    }
    printf("session %llu, vehicle %lu\n", session, vehicle);

    /* The link: the kit's messages for this one vehicle. */
    pdk_dbw_link_init(&dbw, &client, &frame, session, (uint32_t)vehicle);
    pdk_dbw_link_set_crc(&dbw, crc);
    pdk_dbw_link_on_report(&dbw, on_report, NULL);
    pdk_dbw_link_on_event(&dbw, on_event, NULL);
    static const paddock_v1_DbwReportKind kinds[] = {paddock_v1_DbwReportKind_DBW_REPORT_SYSTEM,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_ULC,
                                                     paddock_v1_DbwReportKind_DBW_REPORT_STEERING};
    if (pdk_dbw_link_take_lease(&dbw, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY, NULL) !=
            PDK_CLIENT_OK ||
        pdk_dbw_link_subscribe(&dbw, kinds, sizeof kinds / sizeof kinds[0]) != PDK_CLIENT_OK ||
        pdk_dbw_link_enable(&dbw) != PDK_CLIENT_OK) {
        fprintf(stderr, "paddock-dbw-example: %s\n", dbw.error);
        pdk_client_close(&client);
        return 1;
    }

    /* From here on the loop must not wait for replies: each send returns
     * once written, and pdk_dbw_link_poll takes the Oks and the reports. */
    pdk_dbw_link_set_async(&dbw, 1);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* The ULC may shift out of park on its own (a vehicle given by --vehicle). */
    const pdk_dbw_ulc_limits limits = {.enable_shift = 1};
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    const long periods = (long)(duration_s * 50.0);
    int rc = 0;
    for (long n = 0; n < periods && !stop; n++) {
        const double t = (double)n * PERIOD_NS * 1e-9;
        const double steer_deg = STEER_AMPLITUDE_DEG * sin(TWO_PI * t / STEER_PERIOD_S);
        const double target_mps = t < SPEED_STEP_AT_S ? 0.0 : speed_mps;
        if (pdk_dbw_link_steer_angle(&dbw, steer_deg, 0.0, 0.0) != PDK_CLIENT_OK ||
            pdk_dbw_link_ulc_velocity(&dbw, target_mps, &limits) != PDK_CLIENT_OK ||
            pdk_dbw_link_poll(&dbw, 0) != PDK_CLIENT_OK) {
            fprintf(stderr, "paddock-dbw-example: %s\n", dbw.error);
            rc = 1;
            break;
        }
        if (n % PRINT_EVERY == 0) {
            printf("t %5.2f s  state %-6s  disengage %-18s  not ready %-18s  speed %6.2f m/s  "
                   "steer %7.1f deg\n",
                   t, pdk_dbw_link_state_name(last_system.state),
                   last_system.reason_disengage_str[0] ? last_system.reason_disengage_str : "-",
                   last_system.reason_not_ready_str[0] ? last_system.reason_not_ready_str : "-",
                   (double)last_ulc.vel_meas, (double)last_steering.steering_wheel_angle);
            fflush(stdout);
        }
        add_ns(&next, PERIOD_NS);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }

    /* Hand the car back: disable, wait for every reply, let the lease go. */
    pdk_dbw_link_set_async(&dbw, 0);
    if (pdk_dbw_link_disable(&dbw) != PDK_CLIENT_OK ||
        pdk_dbw_link_release_lease(&dbw, paddock_v1_ControlSource_CONTROL_SOURCE_AUTONOMY) !=
            PDK_CLIENT_OK) {
        fprintf(stderr, "paddock-dbw-example: %s\n", dbw.error);
        rc = 1;
    }
    printf("sent %llu kit messages, %llu refused\n", (unsigned long long)(dbw.acked + dbw.refused),
           (unsigned long long)dbw.refused);
    pdk_client_close(&client);
    return rc;
}
