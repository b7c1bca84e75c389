/* bench_view: the proxy view's error through a simulated network, printed
 * per case (docs/multiplayer.md "The proxy view", docs/perf/README.md).
 *
 * Each case passes a 120 Hz drive (tests/common/view_network.h: the 0.5 g
 * turn at 30 m/s and a mixed slalom, in closed form; and the simulator's
 * own drives recorded in process, tests/common/view_drive.h: the default
 * car on a 0.5 g circle at 30 m/s, and a mixed drive of throttle, braking
 * and a weave) through a subscription at 20, 30 or
 * 60 Hz, a one-way delay of 50 ms with +-20 ms jitter and 2 % or 5 % loss,
 * with a seeded PRNG, into a proxy view with default settings drawing at
 * 60 Hz, and compares the drawn pose with the true pose at the time drawn.
 * The network is simulated, not timed, so the figures are the same on any
 * machine; the last line is the view's own cost per draw, which is not.
 *
 * Usage: bench_view [seconds per case, default 60] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "paddock_view.h"
#include "view_drive.h"
#include "view_network.h"

static vd_recording recs[2];

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 60.0;
    if (!(seconds >= 5.0 && seconds <= 60.0)) {
        fprintf(stderr, "bench_view: seconds per case must lie in [5, 60] (got %s)\n",
                argc > 1 ? argv[1] : "");
        return 2;
    }
    const char *names[] = {"turn 0.5 g 30 m/s", "mixed slalom", "sim turn 0.5 g", "sim mixed"};
    /* The simulator's drives, recorded once for every case that reads
     * them (not timed). */
    for (int d = 0; d < 2; d++) {
        if (vd_record((vd_drive)d, seconds, &recs[d]) != 0) {
            fprintf(stderr, "bench_view: the simulator refused or faulted the %s drive\n",
                    names[2 + d]);
            return 1;
        }
    }
    const int rates[] = {20, 30, 60};
    const double losses[] = {0.02, 0.05};
    printf("proxy view: 50 ms +- 20 ms one-way, draws at %d Hz, %.0f s per case, "
           "default settings\n",
           VN_DRAW_HZ, seconds);
    printf("%-18s %5s %5s %9s %9s %10s %10s %8s %7s %6s %6s %6s\n", "drive", "rate", "loss",
           "pos p95", "pos max", "head p95", "head max", "behind", "lost", "extrap", "snaps",
           "jumps");
    printf("%-18s %5s %5s %9s %9s %10s %10s %8s %7s %6s %6s %6s\n", "", "Hz", "%", "cm", "cm",
           "deg", "deg", "ms", "", "draws", "", "");
    double t0 = wall_s();
    unsigned long draws = 0;
    int failed = 0;
    for (int d = 0; d < 4; d++) {
        for (int r = 0; r < 3; r++) {
            for (int l = 0; l < 2; l++) {
                vn_case c = {.drive = (vn_drive)(d % 2),
                             .rec = d >= 2 ? &recs[d - 2] : NULL,
                             .rate_hz = rates[r],
                             .delay_s = 0.05,
                             .jitter_s = 0.02,
                             .loss = losses[l],
                             .duration_s = seconds,
                             .seed = 29};
                vn_result res;
                if (vn_run(&c, NULL, &res) != 0) {
                    fprintf(stderr, "bench_view: the case does not fit the fixed arrays\n");
                    failed = 1;
                    continue;
                }
                draws += res.draws;
                printf("%-18s %5d %5.0f %9.3f %9.3f %10.4f %10.4f %8.1f %3u/%-3u %6u %6u %6u\n",
                       names[d], rates[r], 100.0 * losses[l], 100.0 * res.pos_p95_m,
                       100.0 * res.pos_max_m, res.heading_p95_deg, res.heading_max_deg,
                       1000.0 * res.delay_mean_s, res.lost, res.batches, res.extrapolated,
                       res.snaps, res.jumps);
            }
        }
    }
    double spent = wall_s() - t0;
    printf("behind: how far behind the server's clock the view drew, mean; jumps: frames whose "
           "step departed from the true step by more than %.0f cm\n",
           100.0 * VN_JUMP_M);
    printf("cost: %.2f us per draw with its share of pushes (this machine, %lu draws)\n",
           draws > 0 ? 1e6 * spent / (double)draws : 0.0, draws);
    return failed;
}
