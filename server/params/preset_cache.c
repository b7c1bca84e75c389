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

/* A file's identity when it was read. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} file_id;

typedef struct cache_entry {
    char *name;      /* NULL: the entry is free */
    char *overrides; /* "" for none */
    file_id file;
    pdk_vehicle_def *def;
    char *json;
} cache_entry;

/* A preset file prepared for loads with overrides not seen before
 * (pdk_params_vehicle_doc): reading, parsing and checking the file is
 * most of a load. */
typedef struct doc_entry {
    char *name; /* NULL: the entry is free */
    file_id file;
    pdk_params_doc *doc;
} doc_entry;

/* Preset files kept prepared: a fleet uses a few presets. */
#define DOC_ENTRIES 8

struct pdk_preset_cache {
    cache_entry *entries;
    size_t n;
    size_t next; /* the entry replaced next */
    doc_entry docs[DOC_ENTRIES];
    size_t next_doc;
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

static void doc_clear(doc_entry *d)
{
    free(d->name);
    pdk_params_doc_free(d->doc);
    memset(d, 0, sizeof *d);
}

void pdk_preset_cache_free(pdk_preset_cache *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        entry_clear(&c->entries[i]);
    }
    for (size_t i = 0; i < DOC_ENTRIES; i++) {
        doc_clear(&c->docs[i]);
    }
    free(c->entries);
    free(c);
}

static bool same_file(const file_id *f, const struct stat *st)
{
    return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
           f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static file_id file_of(const struct stat *st)
{
    return (file_id){st->st_dev, st->st_ino, st->st_size, st->st_mtim};
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
    e->file = file_of(st);
}

/* The prepared file name of this identity: kept, or prepared now and kept
 * (replacing the oldest); NULL with the loader's error in err when the file
 * does not prepare, or out of memory (then *owned is the caller's to free). */
static const pdk_params_doc *doc_for(pdk_preset_cache *c, const char *presets_dir, const char *name,
                                     const struct stat *st, pdk_params_doc **owned, pdk_error *rc,
                                     char *err, size_t err_len)
{
    *owned = NULL;
    for (size_t i = 0; i < DOC_ENTRIES; i++) {
        const doc_entry *d = &c->docs[i];
        if (d->name != NULL && strcmp(d->name, name) == 0 && same_file(&d->file, st)) {
            return d->doc;
        }
    }
    pdk_params_doc *doc = NULL;
    c->stats.prepared++;
    *rc = pdk_params_vehicle_doc(presets_dir, name, &doc, err, err_len);
    if (*rc != PDK_OK) {
        return NULL;
    }
    doc_entry *d = &c->docs[c->next_doc];
    char *copy = strdup(name);
    if (copy == NULL) {
        *owned = doc; /* not kept: used once and freed */
        return doc;
    }
    c->next_doc = (c->next_doc + 1) % DOC_ENTRIES;
    doc_clear(d);
    *d = (doc_entry){copy, file_of(st), doc};
    return doc;
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
                !same_file(&e->file, &st)) {
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
    pdk_error rc = PDK_OK;
    if (present) {
        /* From the file prepared once: only the overrides are new. */
        pdk_params_doc *owned = NULL;
        const pdk_params_doc *doc = doc_for(c, presets_dir, name, &st, &owned, &rc, err, err_len);
        if (doc != NULL) {
            rc = pdk_params_vehicle_from_doc(doc, overrides, out, &json, err, err_len);
        }
        pdk_params_doc_free(owned);
    } else {
        rc = pdk_params_vehicle_load(presets_dir, name, overrides, out, &json, err, err_len);
    }
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
