/* The broad phase (contact.h pdk_contact_broad): sweep and prune along x
 * (Baraff's sort and sweep, as Bullet's and Box2D's early broad phases
 * did it): the bodies sorted by their bounds' low x, each paired with the
 * bodies that start before its bounds end and overlap it in y and z. The
 * sort is an insertion sort of the last tick's order, so a car park where
 * little moves costs a pass, and ties go by index, so the order, and every
 * result, does not depend on the order it started from. */
#include <stdint.h>

#include "contact/contact.h"

/* a before b in the sweep: lower low x, ties by index. */
static int before(const pdk_cbody *bodies, uint32_t a, uint32_t b)
{
    const double xa = bodies[a].lo_m[0], xb = bodies[b].lo_m[0];
    return xa < xb || (xa == xb && a < b);
}

/* Sorts keys[0..n) ascending in place (heapsort: no allocation, n log n
 * at worst). Keys are distinct, so the result is the one order. */
static void sift(uint64_t *keys, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) {
            return;
        }
        if (child + 1 < n && keys[child + 1] > keys[child]) {
            child++;
        }
        if (keys[root] >= keys[child]) {
            return;
        }
        uint64_t t = keys[root];
        keys[root] = keys[child];
        keys[child] = t;
        root = child;
    }
}

static void sort_keys(uint64_t *keys, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--) {
        sift(keys, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
        uint64_t t = keys[0];
        keys[0] = keys[end];
        keys[end] = t;
        sift(keys, 0, end);
    }
}

int pdk_contact_broad(const pdk_cbody *bodies, int n, uint32_t *order, int order_valid,
                      uint64_t *pairs, int cap, int *missed)
{
    /* A new count of bodies starts the order over from the identity. */
    if (!order_valid) {
        for (int i = 0; i < n; i++) {
            order[i] = (uint32_t)i;
        }
    }
    for (int i = 1; i < n; i++) {
        uint32_t v = order[i];
        int j = i;
        while (j > 0 && before(bodies, v, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int np = 0;
    int over = 0;
    for (int i = 0; i < n; i++) {
        const pdk_cbody *a = &bodies[order[i]];
        for (int j = i + 1; j < n; j++) {
            const pdk_cbody *b = &bodies[order[j]];
            if (b->lo_m[0] > a->hi_m[0]) {
                break;
            }
            if (b->lo_m[1] > a->hi_m[1] || a->lo_m[1] > b->hi_m[1] || b->lo_m[2] > a->hi_m[2] ||
                a->lo_m[2] > b->hi_m[2]) {
                continue;
            }
            if (np == cap) {
                over++;
                continue;
            }
            uint32_t lo = order[i] < order[j] ? order[i] : order[j];
            uint32_t hi = order[i] < order[j] ? order[j] : order[i];
            pairs[np++] = ((uint64_t)lo << 32) | hi;
        }
    }
    sort_keys(pairs, np);
    *missed = over;
    return np;
}
