/* The channel table behind channels.h: names, units and descriptions in
 * index order, generated from PDK_CHANNEL_LIST so they cannot drift. */
#include "sim/channels.h"

#include <string.h>

static const pdk_channel_info channel_table[PDK_CH_COUNT] = {
#define PDK_CHANNEL_INFO_(id, name, unit, desc) [id] = {name, unit, desc},
    PDK_CHANNEL_LIST(PDK_CHANNEL_INFO_)
#undef PDK_CHANNEL_INFO_
};

const pdk_channel_info *pdk_channel_get(size_t ch)
{
    if (ch >= (size_t)PDK_CH_COUNT) {
        return NULL;
    }
    return &channel_table[ch];
}

int pdk_channel_find(const char *name)
{
    if (name == NULL) {
        return -1;
    }
    for (int i = 0; i < (int)PDK_CH_COUNT; i++) {
        if (strcmp(channel_table[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}
