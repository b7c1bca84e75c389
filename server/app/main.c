/* paddockd: the command line. `paddockd [serve]` runs the server, `run` the
 * offline runner, `validate` the validation suite (server/validate),
 * `channels` and `presets` list what the simulation offers. */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_file.h"
#include "log_format.h"
#include "sim/channels.h"
#include "params.h"
#include "replay.h"
#include "run.h"
#include "validate.h"
#include "server.h"
#include "store.h"
#include "sim/surface_def.h"

#ifndef PDK_BUILD_ID
#define PDK_BUILD_ID "unknown"
#endif

static void usage(FILE *to)
{
    fprintf(to,
            "usage: paddockd [serve] [--config FILE] [--listen HOST:PORT] [--db PATH]\n"
            "                [--demo [SCRIPT]]\n"
            "                [--demo-vehicle PRESET] [--max-sessions N] [--max-world-mb MB]\n"
            "                [--max-fast-ticks N] [--max-frame BYTES] [--tick-spin-us US]\n"
            "                [--max-import-mb MB] [--max-conns-per-host N]\n"
            "                [--retain-bytes N[K|M|G]] [--retain-days D]\n"
            "                [--max-kept-bytes N[K|M|G]] [--drain-seconds S]\n"
            "                [--log-format text|logfmt|json] [--rt-priority N]\n"
            "                [--agones [--agones-export DIR] [--agones-health-s S]]\n"
            "                [--http HOST:PORT] [--web-root DIR] [--hello-timeout S]\n"
            "                [--frame-timeout S] [--max-partial-mb MB] [--max-queued-jobs N]\n"
            "                [--max-spawns-per-tick N] [--max-inputs-per-tick N]\n"
            "                [--step-threads N] [--step-threshold-us US] [--step-split N]\n"
            "                [--step-poll-us US]\n"
            "                [--auth KEYS.json] [--tls-cert FILE --tls-key FILE\n"
            "                [--tls-client-ca FILE] [--tls-require-client-cert]]\n"
            "       paddockd run --vehicle PRESET [--set 'k=v;...'] [--world PRESET]\n"
            "                [--world-set 'k=v;...'] [--script FILE.json] [--duration S]\n"
            "                [--csv OUT.csv] [--channels A,B,...] [--db PATH | --no-record]\n"
            "       paddockd verify [--db PATH] [--to-tick T] SESSION\n"
            "       paddockd validate [--preset P]... [--fast] [--jobs N] [--out DIR]\n"
            "                [--substeps A,B,...]\n"
            "       paddockd channels\n"
            "       paddockd presets [list | describe [vehicle|world]]\n"
            "       paddockd version\n"
            "common: --presets DIR (default ./presets, else $PADDOCK_PRESETS, else the source\n"
            "        tree's), --migrations DIR (likewise). Defaults: --listen 127.0.0.1:7420,\n"
            "        --db data/paddock.db, no HTTP unless --http (web root: $PADDOCK_WEB_ROOT,\n"
            "        else the build's staged web/). See docs/paddockd.md.\n");
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A folder from the flag, else ./name, else $env, else the source tree's. */
static const char *find_dir(const char *flag, const char *name, const char *env,
                            const char *builtin)
{
    if (flag)
        return flag;
    const char *e = getenv(env);
    if (e && *e)
        return e;
    if (is_dir(name))
        return name;
    return builtin;
}

static bool parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}

/* A flag's value that is a time in [lo, hi] seconds into *out; false after
 * saying on stderr what was wrong, naming the flag. */
static bool parse_seconds(const char *flag, const char *text, double lo, double hi, double *out)
{
    double v;
    if (!parse_double(text, &v) || !(v >= lo) || v > hi) {
        fprintf(stderr, "paddockd: %s: '%s' is not a time in [%g, %g] s\n", flag, text, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

static bool parse_int(const char *text, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
        return false;
    *out = (int)v;
    return true;
}

/* A flag's value that is a whole number in [lo, hi] into *out; false after
 * saying on stderr what was wrong, naming the flag. */
static bool parse_whole(const char *flag, const char *text, int lo, int hi, int *out)
{
    if (!parse_int(text, lo, hi, out)) {
        fprintf(stderr, "paddockd: %s: '%s' is not a whole number %d..%d\n", flag, text, lo, hi);
        return false;
    }
    return true;
}

/* The value after a flag, or an error naming the flag. */
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (i + 1 >= argc) {                                                                       \
            fprintf(stderr, "paddockd: %s needs a value\n", arg);                                  \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

/* serve's options as a configuration file names them (config_file.h). */
static const pdk_config_option serve_options[] = {
    {"listen", PDK_CONFIG_VALUE},
    {"db", PDK_CONFIG_VALUE},
    {"presets", PDK_CONFIG_VALUE},
    {"migrations", PDK_CONFIG_VALUE},
    {"demo", PDK_CONFIG_OPTIONAL},
    {"demo-vehicle", PDK_CONFIG_VALUE},
    {"max-sessions", PDK_CONFIG_VALUE},
    {"max-world-mb", PDK_CONFIG_VALUE},
    {"max-fast-ticks", PDK_CONFIG_VALUE},
    {"max-frame", PDK_CONFIG_VALUE},
    {"tick-spin-us", PDK_CONFIG_VALUE},
    {"max-import-mb", PDK_CONFIG_VALUE},
    {"max-conns-per-host", PDK_CONFIG_VALUE},
    {"retain-bytes", PDK_CONFIG_VALUE},
    {"retain-days", PDK_CONFIG_VALUE},
    {"max-kept-bytes", PDK_CONFIG_VALUE},
    {"drain-seconds", PDK_CONFIG_VALUE},
    {"log-format", PDK_CONFIG_VALUE},
    {"rt-priority", PDK_CONFIG_VALUE},
    {"agones", PDK_CONFIG_SWITCH},
    {"agones-export", PDK_CONFIG_VALUE},
    {"agones-health-s", PDK_CONFIG_VALUE},
    {"http", PDK_CONFIG_VALUE},
    {"web-root", PDK_CONFIG_VALUE},
    {"hello-timeout", PDK_CONFIG_VALUE},
    {"frame-timeout", PDK_CONFIG_VALUE},
    {"max-partial-mb", PDK_CONFIG_VALUE},
    {"max-queued-jobs", PDK_CONFIG_VALUE},
    {"max-spawns-per-tick", PDK_CONFIG_VALUE},
    {"max-inputs-per-tick", PDK_CONFIG_VALUE},
    {"step-threads", PDK_CONFIG_VALUE},
    {"step-threshold-us", PDK_CONFIG_VALUE},
    {"step-split", PDK_CONFIG_VALUE},
    {"step-poll-us", PDK_CONFIG_VALUE},
    {"auth", PDK_CONFIG_VALUE},
    {"tls-cert", PDK_CONFIG_VALUE},
    {"tls-key", PDK_CONFIG_VALUE},
    {"tls-client-ca", PDK_CONFIG_VALUE},
    {"tls-require-client-cert", PDK_CONFIG_SWITCH},
};

/* What --config read, and the arguments it made: kept for the life of the
 * process (their strings are the configuration's), freed at exit. */
static pdk_config_args config_args;
static char **config_argv;

static void free_config(void)
{
    free(config_argv);
    pdk_config_args_free(&config_args);
}

/* Splices --config FILE's flags in before the command line's (from index
 * first on), so that the command line's override them; *argc and *argv
 * then name the whole list. 2 after saying why on stderr, else 0. */
static int read_config(int *argc, char ***argv, int first)
{
    int at = -1;
    for (int k = first; k < *argc; k++) {
        if (strcmp((*argv)[k], "--config") != 0)
            continue;
        if (at >= 0) {
            fprintf(stderr, "paddockd: --config is given twice; one file holds the options\n");
            return 2;
        }
        if (k + 1 >= *argc) {
            fprintf(stderr, "paddockd: --config needs a value\n");
            return 2;
        }
        at = k;
    }
    if (at < 0)
        return 0;
    char err[512];
    if (pdk_config_file_read((*argv)[at + 1], serve_options,
                             sizeof serve_options / sizeof serve_options[0], &config_args, err,
                             sizeof err) != PDK_OK) {
        fprintf(stderr, "paddockd: --config: %s\n", err);
        return 2;
    }
    atexit(free_config);
    int n = *argc - 2 + config_args.argc;
    config_argv = calloc((size_t)n + 1, sizeof *config_argv);
    if (!config_argv) {
        fprintf(stderr, "paddockd: --config: out of memory\n");
        return 2;
    }
    int j = 0;
    for (int k = 0; k < first; k++)
        config_argv[j++] = (*argv)[k];
    for (int k = 0; k < config_args.argc; k++)
        config_argv[j++] = config_args.argv[k];
    for (int k = first; k < *argc; k++)
        if (k != at && k != at + 1)
            config_argv[j++] = (*argv)[k];
    *argc = n;
    *argv = config_argv;
    return 0;
}

static void print_preset(const char *name, const char *description, void *ud)
{
    (void)ud;
    printf("  %-20s %s\n", name, description);
}

/* One key of `presets describe`: path, unit, bounds (blank for text, choice,
 * list and curve keys, whose descriptions give their rules), default and
 * description. */
static void print_key(const char *path, const char *unit, double min, double max,
                      const char *default_text, const char *description, void *ud)
{
    (void)ud;
    char bounds[64] = "";
    if (!isnan(min) && !isnan(max))
        snprintf(bounds, sizeof(bounds), "[%g, %g]", min, max);
    printf("  %-46s %-9s %-18s %-14s %s\n", path, unit, bounds, default_text, description);
}

static void print_key_header(const char *what)
{
    printf("%s keys:\n  %-46s %-9s %-18s %-14s %s\n", what, "key", "unit", "bounds", "default",
           "description");
}

/* The surfaces a world's terrain keys name (surface.h), with their
 * friction, rolling resistance and source. */
static void print_surfaces(void)
{
    printf("surfaces (terrain.surface, terrain.patches[].surface, terrain.field.materials):\n"
           "  %-10s %-5s %-5s %-7s %-10s %s\n",
           "name", "peak", "slide", "rolling", "kind", "source");
    for (int id = 0; id < PDK_SURFACE_COUNT; id++) {
        const pdk_surface *sf = pdk_surface_get(id);
        printf("  %-10s %-5.2f %-5.2f %-7.3f %-10s %s\n", sf->name, sf->mu_peak, sf->mu_slide,
               sf->rolling_coeff,
               sf->deformable ? "deformable" : sf->loose ? "loose" : "firm",
               pdk_surface_source(id));
    }
}

static int cmd_presets(int argc, char **argv, const char *presets_dir)
{
    if (argc == 0 || strcmp(argv[0], "list") == 0) {
        if (argc > 1) {
            fprintf(stderr, "paddockd presets list: unexpected '%s'\n", argv[1]);
            return 2;
        }
        printf("vehicles (%s/vehicles):\n", presets_dir);
        if (pdk_params_list(presets_dir, PDK_PRESET_VEHICLE, print_preset, NULL) != PDK_OK) {
            fprintf(stderr, "paddockd: no presets folder at %s/vehicles\n", presets_dir);
            return 1;
        }
        printf("worlds (%s/worlds):\n", presets_dir);
        if (pdk_params_list(presets_dir, PDK_PRESET_WORLD, print_preset, NULL) != PDK_OK) {
            fprintf(stderr, "paddockd: no presets folder at %s/worlds\n", presets_dir);
            return 1;
        }
        return 0;
    }
    if (strcmp(argv[0], "describe") == 0) {
        bool vehicle = argc < 2 || strcmp(argv[1], "vehicle") == 0;
        bool world = argc < 2 || strcmp(argv[1], "world") == 0;
        if (!vehicle && !world) {
            fprintf(stderr, "paddockd presets describe: '%s' is neither vehicle nor world\n",
                    argv[1]);
            return 2;
        }
        if (argc > 2) {
            fprintf(stderr, "paddockd presets describe: unexpected '%s' (one kind at most)\n",
                    argv[2]);
            return 2;
        }
        if (vehicle) {
            print_key_header("vehicle");
            pdk_params_describe(PDK_PRESET_VEHICLE, print_key, NULL);
        }
        if (world) {
            print_key_header("world");
            pdk_params_describe(PDK_PRESET_WORLD, print_key, NULL);
            print_surfaces();
        }
        return 0;
    }
    fprintf(stderr, "paddockd presets: unknown subcommand '%s' (list, describe)\n", argv[0]);
    return 2;
}

static int cmd_channels(void)
{
    printf("%-22s %-8s %s\n", "channel", "unit", "description");
    for (size_t i = 0; i < PDK_CH_COUNT; i++) {
        const pdk_channel_info *c = pdk_channel_get(i);
        printf("%-22s %-8s %s\n", c->name, c->unit, c->description);
    }
    return 0;
}

/* paddockd verify: the recorded session re-simulated against every state
 * hash, offline, printed as `paddock verify` prints it. 0 on a match, 1 on a
 * mismatch or a failure, 2 for bad arguments. */
static int cmd_verify(const char *db_path, const char *migrations_dir, uint64_t session_id,
                      uint64_t to_tick)
{
    char err[PDK_REPLAY_ERR_LEN];
    pdk_store *store = NULL;
    if (pdk_store_open(db_path, migrations_dir, &store, err, sizeof(err)) != PDK_OK) {
        fprintf(stderr, "paddockd verify: %s\n", err);
        return 1;
    }
    pdk_verify_result v;
    memset(&v, 0, sizeof(v));
    pdk_error e = pdk_verify(store, session_id, to_tick, PDK_BUILD_ID, &v, err, sizeof(err));
    pdk_store_close(store);
    if (e != PDK_OK) {
        fprintf(stderr, "paddockd verify: %s: %s\n", pdk_error_name(e), err);
        return 1;
    }
    char divergent[24] = "-", vehicle[16] = "-";
    if (!v.match && v.first_divergent_tick != 0)
        snprintf(divergent, sizeof(divergent), "%llu", (unsigned long long)v.first_divergent_tick);
    if (v.vehicle_id != 0)
        snprintf(vehicle, sizeof(vehicle), "%u", (unsigned)v.vehicle_id);
    char hole[96] = "-";
    if (v.missing_ticks != 0)
        snprintf(hole, sizeof(hole), "%llu..%llu (%llu ticks without a hash, not checked)",
                 (unsigned long long)v.hole_first_tick, (unsigned long long)v.hole_last_tick,
                 (unsigned long long)v.missing_ticks);
    printf("session:          %llu\n"
           "match:            %s\n"
           "hashes_checked:   %llu\n"
           "last_tick:        %llu\n"
           "recorded:         %llu..%llu (hashes %016llx..%016llx)\n"
           "hole:             %s\n"
           "live_tick:        -\n"
           "first_divergent:  %s\n"
           "vehicle:          %s\n"
           "field:            %s\n"
           "recorded_build:   %s\n"
           "this_build:       %s\n"
           "same_build:       %s\n"
           "interrupted:      %s\n"
           "seconds:          %.3f\n"
           "message:          %s\n",
           (unsigned long long)session_id, v.match ? "yes" : "no",
           (unsigned long long)v.hashes_checked, (unsigned long long)v.last_tick,
           (unsigned long long)v.first_tick, (unsigned long long)v.last_tick,
           (unsigned long long)v.first_hash, (unsigned long long)v.last_hash, hole, divergent,
           vehicle, v.field[0] ? v.field : "-", v.recorded_build[0] ? v.recorded_build : "-",
           PDK_BUILD_ID, v.same_build ? "yes" : "no", v.interrupted ? "yes" : "no", v.seconds,
           v.message[0] ? v.message : "-");
    return v.match ? 0 : 1;
}

static bool parse_u64(const char *text, uint64_t min, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v < min)
        return false;
    *out = v;
    return true;
}

/* A byte count with an optional binary suffix (K, M, G: 2^10, 2^20, 2^30),
 * at least 1 and at most 2^60. */
static bool parse_bytes(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || text[0] == '-' || v == 0)
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift != 0)
        end++;
    if (*end != '\0' || v > (1ull << 60) >> shift)
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

int main(int argc, char **argv)
{
    const char *cmd = "serve";
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') {
        cmd = argv[1];
        i = 2;
    }
    const char *presets_flag = NULL, *migrations_flag = NULL, *web_root_flag = NULL;
    pdk_server_config scfg = pdk_server_config_default();
    pdk_run_config rcfg;
    memset(&rcfg, 0, sizeof(rcfg));
    rcfg.db_path = "data/paddock.db";
    int rest = argc;
    bool demo_default = false;
    pdk_log_format log_format = PDK_LOG_TEXT;
    bool serve = strcmp(cmd, "serve") == 0, run = strcmp(cmd, "run") == 0;
    bool verify = strcmp(cmd, "verify") == 0;
    uint64_t to_tick = 0;
    if (strcmp(cmd, "validate") == 0) {
        /* validate reads its own options, --presets among them. */
        return pdk_validate_main(argc - i, argv + i,
                                 find_dir(NULL, "presets", "PADDOCK_PRESETS",
                                          PDK_DEFAULT_PRESETS_DIR));
    }

    if (serve) {
        int rc = read_config(&argc, &argv, i);
        if (rc != 0)
            return rc;
        rest = argc;
    }
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--presets") == 0) {
            NEED_VALUE();
            presets_flag = argv[++i];
        } else if (strcmp(arg, "--migrations") == 0) {
            NEED_VALUE();
            migrations_flag = argv[++i];
        } else if (verify && strcmp(arg, "--to-tick") == 0) {
            NEED_VALUE();
            if (!parse_u64(argv[++i], 1, &to_tick)) {
                fprintf(stderr, "paddockd verify: --to-tick: '%s' is not a tick 1..\n", argv[i]);
                return 2;
            }
        } else if (strcmp(arg, "--db") == 0 && (serve || run || verify)) {
            NEED_VALUE();
            scfg.db_path = rcfg.db_path = argv[++i];
        } else if (serve && strcmp(arg, "--listen") == 0) {
            NEED_VALUE();
            scfg.listen = argv[++i];
        } else if (serve && strcmp(arg, "--http") == 0) {
            NEED_VALUE();
            scfg.http_listen = argv[++i];
        } else if (serve && strcmp(arg, "--auth") == 0) {
            NEED_VALUE();
            scfg.auth_path = argv[++i];
        } else if (serve && strcmp(arg, "--tls-cert") == 0) {
            NEED_VALUE();
            scfg.tls_cert = argv[++i];
        } else if (serve && strcmp(arg, "--tls-key") == 0) {
            NEED_VALUE();
            scfg.tls_key = argv[++i];
        } else if (serve && strcmp(arg, "--tls-client-ca") == 0) {
            NEED_VALUE();
            scfg.tls_client_ca = argv[++i];
        } else if (serve && strcmp(arg, "--tls-require-client-cert") == 0) {
            scfg.tls_require_client_cert = true;
        } else if (serve && strcmp(arg, "--web-root") == 0) {
            NEED_VALUE();
            web_root_flag = argv[++i];
        } else if (serve && strcmp(arg, "--demo") == 0) {
            demo_default = true;
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                scfg.demo_script = argv[++i];
                demo_default = false;
            }
        } else if (serve && strcmp(arg, "--demo-vehicle") == 0) {
            NEED_VALUE();
            scfg.demo_vehicle = argv[++i];
        } else if (serve && strcmp(arg, "--max-sessions") == 0) {
            NEED_VALUE();
            if (!parse_whole(arg, argv[++i], 1, 100000, &scfg.max_sessions))
                return 2;
        } else if (serve && strcmp(arg, "--max-world-mb") == 0) {
            NEED_VALUE();
            int mb;
            if (!parse_whole(arg, argv[++i], 1, 1 << 20, &mb))
                return 2;
            scfg.max_world_bytes = (size_t)mb << 20;
        } else if (serve && strcmp(arg, "--max-import-mb") == 0) {
            NEED_VALUE();
            int mb;
            if (!parse_whole(arg, argv[++i], 1, 1 << 20, &mb))
                return 2;
            scfg.max_import_bytes = (uint64_t)mb << 20;
        } else if (serve && strcmp(arg, "--max-fast-ticks") == 0) {
            NEED_VALUE();
            double v;
            if (!parse_double(argv[++i], &v) || !(v >= 1.0) || v > 1e15 || v != floor(v)) {
                fprintf(stderr,
                        "paddockd: --max-fast-ticks: '%s' is not a whole number of "
                        "ticks 1..1e15\n",
                        argv[i]);
                return 2;
            }
            scfg.max_fast_ticks = (uint64_t)v;
        } else if (serve && strcmp(arg, "--retain-bytes") == 0) {
            NEED_VALUE();
            if (!parse_bytes(argv[++i], &scfg.retain_bytes)) {
                fprintf(stderr,
                        "paddockd: --retain-bytes: '%s' is not a byte count 1..2^60 (a whole "
                        "number, K, M or G after it for KiB, MiB, GiB)\n",
                        argv[i]);
                return 2;
            }
        } else if (serve && strcmp(arg, "--max-kept-bytes") == 0) {
            NEED_VALUE();
            if (!parse_bytes(argv[++i], &scfg.max_kept_bytes)) {
                fprintf(stderr,
                        "paddockd: --max-kept-bytes: '%s' is not a byte count 1..2^60 (a whole "
                        "number, K, M or G after it for KiB, MiB, GiB)\n",
                        argv[i]);
                return 2;
            }
        } else if (serve && strcmp(arg, "--retain-days") == 0) {
            NEED_VALUE();
            int days;
            if (!parse_whole(arg, argv[++i], 1, 36500, &days))
                return 2;
            scfg.retain_days = (uint32_t)days;
        } else if (serve && strcmp(arg, "--tick-spin-us") == 0) {
            NEED_VALUE();
            int us;
            if (!parse_whole(arg, argv[++i], 0, 2000, &us))
                return 2;
            scfg.tick_spin_ns = (uint64_t)us * 1000u;
        } else if (serve && strcmp(arg, "--max-frame") == 0) {
            NEED_VALUE();
            int v;
            if (!parse_int(argv[++i], 1024, 64 << 20, &v)) {
                fprintf(stderr, "paddockd: --max-frame: '%s' is not a byte count 1024..%d\n",
                        argv[i], 64 << 20);
                return 2;
            }
            scfg.limits.max_frame_bytes = (size_t)v;
            /* A connection must be able to queue a few whole frames. */
            if (scfg.limits.out_hard_bytes < 4 * scfg.limits.max_frame_bytes)
                scfg.limits.out_hard_bytes = 4 * scfg.limits.max_frame_bytes;
            if (scfg.limits.out_soft_bytes < scfg.limits.max_frame_bytes)
                scfg.limits.out_soft_bytes = scfg.limits.max_frame_bytes;
        } else if (serve && strcmp(arg, "--drain-seconds") == 0) {
            NEED_VALUE();
            if (!parse_seconds(arg, argv[++i], 0.0, 3600.0, &scfg.drain_seconds))
                return 2;
        } else if (serve && strcmp(arg, "--rt-priority") == 0) {
            NEED_VALUE();
            if (!parse_whole(arg, argv[++i], 0, 99, &scfg.rt_priority))
                return 2;
        } else if (serve && strcmp(arg, "--log-format") == 0) {
            NEED_VALUE();
            if (!pdk_log_format_parse(argv[++i], &log_format)) {
                fprintf(stderr, "paddockd: --log-format: '%s' is not text, logfmt or json\n",
                        argv[i]);
                return 2;
            }
        } else if (serve && strcmp(arg, "--agones") == 0) {
            scfg.agones = true;
        } else if (serve && strcmp(arg, "--agones-export") == 0) {
            NEED_VALUE();
            scfg.agones_export_dir = argv[++i];
        } else if (serve && strcmp(arg, "--agones-health-s") == 0) {
            NEED_VALUE();
            if (!parse_seconds(arg, argv[++i], 0.1, 60.0, &scfg.agones_health_s))
                return 2;
        } else if (serve && strcmp(arg, "--hello-timeout") == 0) {
            NEED_VALUE();
            if (!parse_seconds(arg, argv[++i], 0.1, 3600.0, &scfg.hello_timeout_s))
                return 2;
        } else if (serve && strcmp(arg, "--max-queued-jobs") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_whole(arg, argv[++i], 1, 1 << 16, &n))
                return 2;
            scfg.max_queued_jobs = (uint32_t)n;
        } else if (serve && strcmp(arg, "--max-spawns-per-tick") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_whole(arg, argv[++i], 1, 4096, &n))
                return 2;
            scfg.max_spawns_per_tick = (uint32_t)n;
        } else if (serve && strcmp(arg, "--step-threads") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_whole(arg, argv[++i], 0, 256, &n))
                return 2;
            scfg.step_threads = (uint32_t)n;
        } else if (serve && strcmp(arg, "--step-threshold-us") == 0) {
            NEED_VALUE();
            int us;
            if (!parse_whole(arg, argv[++i], 0, 1000000, &us))
                return 2;
            scfg.step_threshold_ns = (uint64_t)us * 1000u;
        } else if (serve && strcmp(arg, "--step-split") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_whole(arg, argv[++i], 0, 65535, &n))
                return 2;
            scfg.step_split_vehicles = (uint32_t)n;
        } else if (serve && strcmp(arg, "--step-poll-us") == 0) {
            NEED_VALUE();
            int us;
            if (!parse_whole(arg, argv[++i], 0, 8333, &us))
                return 2;
            scfg.step_poll_ns = (uint64_t)us * 1000u;
        } else if (serve && strcmp(arg, "--max-inputs-per-tick") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_whole(arg, argv[++i], 1, 65536, &n))
                return 2;
            scfg.max_inputs_per_tick = (uint32_t)n;
        } else if (serve && strcmp(arg, "--frame-timeout") == 0) {
            NEED_VALUE();
            if (!parse_seconds(arg, argv[++i], 0.1, 3600.0, &scfg.limits.frame_timeout_seconds))
                return 2;
        } else if (serve && strcmp(arg, "--max-partial-mb") == 0) {
            NEED_VALUE();
            int mb;
            if (!parse_whole(arg, argv[++i], 1, 1 << 20, &mb))
                return 2;
            scfg.limits.max_partial_bytes = (size_t)mb << 20;
        } else if (serve && strcmp(arg, "--max-conns-per-host") == 0) {
            NEED_VALUE();
            int n;
            if (!parse_int(argv[++i], 0, 1 << 16, &n)) {
                fprintf(stderr,
                        "paddockd: --max-conns-per-host: '%s' is not a whole number 0..%d (0: no "
                        "limit)\n",
                        argv[i], 1 << 16);
                return 2;
            }
            scfg.limits.max_connections_per_host = n;
        } else if (run && strcmp(arg, "--vehicle") == 0) {
            NEED_VALUE();
            rcfg.vehicle = argv[++i];
        } else if (run && strcmp(arg, "--set") == 0) {
            NEED_VALUE();
            rcfg.vehicle_set = argv[++i];
        } else if (run && strcmp(arg, "--world") == 0) {
            NEED_VALUE();
            rcfg.world = argv[++i];
        } else if (run && strcmp(arg, "--world-set") == 0) {
            NEED_VALUE();
            rcfg.world_set = argv[++i];
        } else if (run && strcmp(arg, "--script") == 0) {
            NEED_VALUE();
            rcfg.script_path = argv[++i];
        } else if (run && strcmp(arg, "--duration") == 0) {
            NEED_VALUE();
            if (!parse_double(argv[++i], &rcfg.duration_s) || !(rcfg.duration_s > 0) ||
                rcfg.duration_s > 86400.0) {
                fprintf(stderr, "paddockd run: --duration: '%s' is not a time in (0, 86400] s\n",
                        argv[i]);
                return 2;
            }
        } else if (run && strcmp(arg, "--csv") == 0) {
            NEED_VALUE();
            rcfg.csv_path = argv[++i];
        } else if (run && strcmp(arg, "--channels") == 0) {
            NEED_VALUE();
            rcfg.channels = argv[++i];
        } else if (run && strcmp(arg, "--no-record") == 0) {
            rcfg.db_path = NULL;
        } else if (arg[0] == '-') {
            fprintf(stderr, "paddockd %s: unknown option '%s' (paddockd --help)\n", cmd, arg);
            return 2;
        } else {
            rest = i;
            break;
        }
    }
    const char *presets_dir =
        find_dir(presets_flag, "presets", "PADDOCK_PRESETS", PDK_DEFAULT_PRESETS_DIR);
    const char *migrations_dir =
        find_dir(migrations_flag, "migrations", "PADDOCK_MIGRATIONS", PDK_DEFAULT_MIGRATIONS_DIR);
    if (serve) {
        if (rest < argc) {
            fprintf(stderr, "paddockd: unexpected argument '%s'\n", argv[rest]);
            return 2;
        }
        /* Partial frames together must have room for at least one whole
         * frame, or a frame of the largest size could never arrive. */
        if (scfg.limits.max_partial_bytes < scfg.limits.max_frame_bytes) {
            fprintf(stderr,
                    "paddockd: --max-partial-mb: %zu MiB is less than one frame of --max-frame "
                    "%zu bytes\n",
                    scfg.limits.max_partial_bytes >> 20, scfg.limits.max_frame_bytes);
            return 2;
        }
        scfg.presets_dir = presets_dir;
        scfg.migrations_dir = migrations_dir;
        /* The web root is the build's staged copy of clients/web: the page
         * with its libraries, the contract and the catalog
         * (clients/web/CMakeLists.txt). The source folder alone cannot be
         * served, so no folder under the working directory is guessed. */
        const char *web_env = getenv("PADDOCK_WEB_ROOT");
        scfg.web_root = web_root_flag               ? web_root_flag
                        : (web_env && *web_env)     ? web_env
                                                    : PDK_DEFAULT_WEB_ROOT;
        if (web_root_flag && !scfg.http_listen) {
            fprintf(stderr, "paddockd: --web-root needs --http HOST:PORT\n");
            return 2;
        }
        static char demo[PATH_MAX];
        if (demo_default) {
            snprintf(demo, sizeof(demo), "%s/scripts/demo_route.json", presets_dir);
            scfg.demo_script = demo;
        }
        char err[160];
        if (!pdk_log_format_install(log_format, err, sizeof err)) {
            fprintf(stderr, "paddockd: --log-format: %s\n", err);
            return 1;
        }
        return pdk_server_run(&scfg);
    }
    if (run) {
        if (rest < argc) {
            fprintf(stderr, "paddockd run: unexpected argument '%s'\n", argv[rest]);
            return 2;
        }
        rcfg.presets_dir = presets_dir;
        rcfg.migrations_dir = migrations_dir;
        return pdk_run(&rcfg);
    }
    if (verify) {
        uint64_t session_id = 0;
        if (rest >= argc || !parse_u64(argv[rest], 1, &session_id)) {
            fprintf(stderr, "paddockd verify: give the session id (paddockd verify --db PATH "
                            "SESSION)\n");
            return 2;
        }
        for (int k = rest + 1; k < argc; k++) {
            if (strcmp(argv[k], "--db") == 0 && k + 1 < argc) {
                scfg.db_path = argv[++k];
            } else if (strcmp(argv[k], "--to-tick") == 0 && k + 1 < argc &&
                       parse_u64(argv[k + 1], 1, &to_tick)) {
                k++;
            } else {
                fprintf(stderr, "paddockd verify: unexpected argument '%s'\n", argv[k]);
                return 2;
            }
        }
        return cmd_verify(scfg.db_path, migrations_dir, session_id, to_tick);
    }
    if (strcmp(cmd, "channels") == 0)
        return cmd_channels();
    if (strcmp(cmd, "presets") == 0)
        return cmd_presets(argc - rest, argv + rest, presets_dir);
    if (strcmp(cmd, "version") == 0) {
        printf("paddockd 0.1.0 (build %s)\n", PDK_BUILD_ID);
        return 0;
    }
    fprintf(stderr, "paddockd: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
