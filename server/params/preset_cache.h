/* A cache of loaded vehicle presets: the definition and resolved JSON that
 * pdk_params_vehicle_load made for a (preset, overrides) pair, kept while
 * the preset's file is unchanged (its device, inode, size and modification
 * time), so that a server spawning the same preset many times reads, parses
 * and checks it once; and each preset file prepared for overrides not seen
 * yet (pdk_params_vehicle_doc), so that those skip the file's reading,
 * parsing and checking. It holds what the loader made, never a formula of
 * its own: a hit is a copy of a load's output, a load from a prepared file
 * what the loader gives. Not thread-safe: one loop owns it. */
#ifndef PDK_PRESET_CACHE_H
#define PDK_PRESET_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

typedef struct pdk_preset_cache pdk_preset_cache;

/* NULL when out of memory. entries: how many pairs it keeps (at least 1);
 * the oldest is replaced when full. */
pdk_preset_cache *pdk_preset_cache_new(size_t entries);
void pdk_preset_cache_free(pdk_preset_cache *c);

/* As pdk_params_vehicle_load, the same arguments, results and errors
 * (*resolved_json is the caller's to free); only loads that succeed are
 * kept, so an error is always the loader's, fresh. */
pdk_error pdk_preset_cache_vehicle(pdk_preset_cache *c, const char *presets_dir, const char *name,
                                   const char *overrides, pdk_vehicle_def *out,
                                   char **resolved_json, char *err, size_t err_len);

/* Loads it answered from memory, loads it made (from a prepared file, or
 * by the loader when the file is not there), and preset files it prepared
 * (read, parsed and checked) for them. */
typedef struct pdk_preset_cache_stats {
    uint64_t hits;
    uint64_t loads;
    uint64_t prepared;
} pdk_preset_cache_stats;
pdk_preset_cache_stats pdk_preset_cache_stats_get(const pdk_preset_cache *c);

#endif
