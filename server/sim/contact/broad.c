/* The broad phase (contact.h pdk_contact_broad): sweep and prune (Baraff's
 * sort and sweep, as Bullet's and Box2D's early broad phases did it) along
 * whichever of x and y the bodies spread over more, the axis of larger
 * variance (Ericson, Real-Time Collision Detection, section 7.5.2): the
 * bodies sorted by their bounds' low end on it, each paired with the
 * bodies that start before its bounds end and overlap it on the other two
 * axes. A column of cars along y swept along x would test each against
 * the whole column. The sort is an insertion sort of the last tick's order
 * on the same axis, so a car park where little moves costs a pass, else a
 * heapsort; ties go by index, so the order, and every result, does not
 * depend on the order it started from. */
#include <stdint.h>

#include "contact/contact.h"

/* a before b in the sweep along axis: lower low end, ties by index. */
static int before(const pdk_cbody *bodies, int axis, uint32_t a, uint32_t b)
{
    const double xa = bodies[a].lo_m[axis], xb = bodies[b].lo_m[axis];
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

/* The same heapsort for the sweep's order, by before. */
static void sift_order(const pdk_cbody *bodies, int axis, uint32_t *order, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) {
            return;
        }
        if (child + 1 < n && before(bodies, axis, order[child], order[child + 1])) {
            child++;
        }
        if (!before(bodies, axis, order[root], order[child])) {
            return;
        }
        uint32_t t = order[root];
        order[root] = order[child];
        order[child] = t;
        root = child;
    }
}

static void sort_order(const pdk_cbody *bodies, int axis, uint32_t *order, int n)
{
    for (int i = 0; i < n; i++) {
        order[i] = (uint32_t)i;
    }
    for (int i = n / 2 - 1; i >= 0; i--) {
        sift_order(bodies, axis, order, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
        uint32_t t = order[0];
        order[0] = order[end];
        order[end] = t;
        sift_order(bodies, axis, order, 0, end);
    }
}

/* 0 (x) or 1 (y): the axis along which the bodies' bounds' centres have
 * the larger variance, x where they are equal. From the bodies alone, so
 * the same bodies always sweep alike. */
static int sweep_axis(const pdk_cbody *bodies, int n)
{
    /* About the first body's centre, so that a world far from its origin
     * loses no digits to the squares. */
    const double o[2] = {bodies[0].lo_m[0] + bodies[0].hi_m[0],
                         bodies[0].lo_m[1] + bodies[0].hi_m[1]};
    double sum[2] = {0.0, 0.0}, sum2[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            const double c = (bodies[i].lo_m[k] + bodies[i].hi_m[k]) - o[k]; /* twice the centre */
            sum[k] += c;
            sum2[k] += c * c;
        }
    }
    /* 4 n times each variance */
    const double var_x = sum2[0] - sum[0] * sum[0] / (double)n;
    const double var_y = sum2[1] - sum[1] * sum[1] / (double)n;
    return var_y > var_x ? 1 : 0;
}

int pdk_contact_broad(const pdk_cbody *bodies, int n, uint32_t *order, int *sorted_axis,
                      uint64_t *pairs, int cap, int *missed)
{
    const int axis = sweep_axis(bodies, n);
    if (*sorted_axis != axis) {
        sort_order(bodies, axis, order, n);
        *sorted_axis = axis;
    }
    for (int i = 1; i < n; i++) {
        uint32_t v = order[i];
        int j = i;
        while (j > 0 && before(bodies, axis, v, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    /* The other two axes, tested for each pair the sweep meets. */
    const int u = axis == 0 ? 1 : 0;
    int np = 0;
    int over = 0;
    for (int i = 0; i < n; i++) {
        const pdk_cbody *a = &bodies[order[i]];
        for (int j = i + 1; j < n; j++) {
            const pdk_cbody *b = &bodies[order[j]];
            if (b->lo_m[axis] > a->hi_m[axis]) {
                break;
            }
            if (b->lo_m[u] > a->hi_m[u] || a->lo_m[u] > b->hi_m[u] || b->lo_m[2] > a->hi_m[2] ||
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
