/* The preset cache (preset_cache.h): a small table replaced oldest first;
 * a file's identity is looked at (stat) on every use, so an edited preset
 * is loaded again at its next spawn. */
#include "preset_cache.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct cache_entry {
    char *name;      /* NULL: the entry is free */
    char *overrides; /* "" for none */
    dev_t dev;       /* the file's identity when it was loaded */
    ino_t ino;
    off_t size;
    struct timespec mtime;
    pdk_vehicle_def *def;
    char *json;
} cache_entry;

struct pdk_preset_cache {
    cache_entry *entries;
    size_t n;
    size_t next; /* the entry replaced next */
    pdk_preset_cache_stats stats;
};

pdk_preset_cache *pdk_preset_cache_new(size_t entries)
{
    if (entries == 0) {
        entries = 1;
    }
    pdk_preset_cache *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    c->entries = calloc(entries, sizeof *c->entries);
    if (c->entries == NULL) {
        free(c);
        return NULL;
    }
    c->n = entries;
    return c;
}

static void entry_clear(cache_entry *e)
{
    free(e->name);
    free(e->overrides);
    free(e->def);
    free(e->json);
    memset(e, 0, sizeof *e);
}

void pdk_preset_cache_free(pdk_preset_cache *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        entry_clear(&c->entries[i]);
    }
    free(c->entries);
    free(c);
}

static bool same_file(const cache_entry *e, const struct stat *st)
{
    return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Keeps a load's output in the next entry; out of memory keeps nothing. */
static void keep(pdk_preset_cache *c, const char *name, const char *overrides,
                 const struct stat *st, const pdk_vehicle_def *def, const char *json)
{
    cache_entry *e = &c->entries[c->next];
    c->next = (c->next + 1) % c->n;
    entry_clear(e);
    e->name = strdup(name);
    e->overrides = strdup(overrides);
    e->def = malloc(sizeof *e->def);
    e->json = json != NULL ? strdup(json) : NULL;
    if (e->name == NULL || e->overrides == NULL || e->def == NULL ||
        (json != NULL && e->json == NULL)) {
        entry_clear(e);
        return;
    }
    memcpy(e->def, def, sizeof *def);
    e->dev = st->st_dev;
    e->ino = st->st_ino;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
}

pdk_error pdk_preset_cache_vehicle(pdk_preset_cache *c, const char *presets_dir, const char *name,
                                   const char *overrides, pdk_vehicle_def *out,
                                   char **resolved_json, char *err, size_t err_len)
{
    if (resolved_json != NULL) {
        *resolved_json = NULL;
    }
    const char *ovr = overrides != NULL ? overrides : "";
    char path[PATH_MAX];
    struct stat st;
    /* The loader checks the name, the folder and the file and says what is
     * wrong; only a file that is there is looked up. A name with a '/' is
     * the loader's to refuse, never a path to stat. */
    bool present =
        c != NULL && presets_dir != NULL && out != NULL && name != NULL &&
        strchr(name, '/') == NULL &&
        snprintf(path, sizeof path, "%s/vehicles/%s.json", presets_dir, name) < (int)sizeof path &&
        stat(path, &st) == 0;
    if (present) {
        for (size_t i = 0; i < c->n; i++) {
            const cache_entry *e = &c->entries[i];
            if (e->name == NULL || strcmp(e->name, name) != 0 || strcmp(e->overrides, ovr) != 0 ||
                !same_file(e, &st)) {
                continue;
            }
            char *json = NULL;
            if (resolved_json != NULL && e->json != NULL) {
                json = strdup(e->json);
                if (json == NULL) {
                    snprintf(err, err_len, "vehicle preset \"%s\": out of memory", name);
                    return PDK_ERR_NO_MEMORY;
                }
            }
            memcpy(out, e->def, sizeof *out);
            if (resolved_json != NULL) {
                *resolved_json = json;
            }
            c->stats.hits++;
            return PDK_OK;
        }
    }
    if (c != NULL) {
        c->stats.loads++;
    }
    char *json = NULL;
    pdk_error rc = pdk_params_vehicle_load(presets_dir, name, overrides, out, &json, err, err_len);
    if (rc == PDK_OK && present) {
        keep(c, name, ovr, &st, out, json);
    }
    if (resolved_json != NULL) {
        *resolved_json = json;
    } else {
        free(json);
    }
    return rc;
}

pdk_preset_cache_stats pdk_preset_cache_stats_get(const pdk_preset_cache *c)
{
    pdk_preset_cache_stats none = {0};
    return c != NULL ? c->stats : none;
}
