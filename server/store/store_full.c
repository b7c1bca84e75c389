/* The store's writer while the disk is full (store.h, "A write that fails
 * for want of space"): a mark waiting is answered, the records it could not
 * write are kept in memory in order, trimmed past --max-kept-bytes into
 * gaps that name each session's lost ticks, and given up, said and counted,
 * when the store closes on a disk still full; between attempts it waits
 * PDK_STORE_FULL_RETRY_MS. Called by the writer thread (store.c) under mu. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_internal.h"

/* Under mu, the disk full: a pdk_store_mark_interrupted waiting is
 * answered now (refused, why), since its caller's flush returns after this
 * attempt; the record itself stays queued and marks the sessions once space
 * returns. Only sessions from before it are marked then: records are
 * written in order, and it is queued at start-up, before any session. */
void pdk_store_answer_marks_(pdk_store_record *list, const char *why)
{
    for (pdk_store_record *r = list; r; r = r->next) {
        if (r->kind == REC_MARK_INTERRUPTED && r->state == REC_PENDING && r->reply) {
            r->reply->refused = 1;
            snprintf(r->reply->why, sizeof r->reply->why, "%s", why);
            r->reply = NULL;
        }
    }
}

/* The first and last tick a record holds (a tick's record: its hashes'
 * first tick and its inputs' tick). */
static void record_ticks(const pdk_store_record *r, uint64_t *first, uint64_t *last)
{
    *first = *last = r->tick;
    if (r->kind == REC_TICK && r->number > 0) {
        uint64_t hash_last = r->value + (uint64_t)r->number - 1;
        *first = r->value;
        *last = r->blob_len > (size_t)r->number * sizeof(uint64_t) && r->tick > hash_last
                    ? r->tick
                    : hash_last;
    }
}

#define LOST_SESSIONS_LOGGED 8u

/* What a session records as it runs, and may be given up past the bound:
 * its row, end and vehicles stay (small, and what later rows refer to). */
static int droppable(const pdk_store_record *r)
{
    return r->state == REC_PENDING && (r->kind == REC_TICK || r->kind == REC_HASH ||
                                       r->kind == REC_INPUT || r->kind == REC_SNAPSHOT);
}

static size_t kept_bytes(const pdk_store_record *r)
{
    return sizeof *r + pdk_store_record_bytes(r);
}

/* The gaps a trim has seen, one per session. */
typedef struct gap_list {
    pdk_store_record **items;
    size_t n, cap;
} gap_list;

static pdk_store_record *gap_of(const gap_list *g, uint64_t session_id)
{
    for (size_t i = 0; i < g->n; i++) {
        if (g->items[i]->session_id == session_id) {
            return g->items[i];
        }
    }
    return NULL;
}

/* 0 when there is no memory for one more. */
static int gap_add(gap_list *g, pdk_store_record *r)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        pdk_store_record **more = realloc(g->items, cap * sizeof *more);
        if (!more) {
            return 0;
        }
        g->items = more;
        g->cap = cap;
    }
    g->items[g->n++] = r;
    return 1;
}

/* Under mu, the disk full: when the records kept (*taken) and queued hold
 * more than kept_limit bytes, each one past the bound that droppable allows
 * is given up. The first given up of a session becomes, in its place, the
 * REC_GAP naming the session's lost ticks; the others widen that gap and
 * are freed. A session's records past the bound are its newest, so its
 * lost ticks are one run. Given-up records count as finished (flushed).
 * Returns how many were given up now. */
uint64_t pdk_store_trim_kept_(pdk_store *s, pdk_store_record **taken)
{
    uint64_t total = 0;
    pdk_store_record *lists[2] = {*taken, s->head};
    for (int l = 0; l < 2; l++) {
        for (const pdk_store_record *r = lists[l]; r; r = r->next) {
            total += r->state == REC_PENDING ? kept_bytes(r) : 0;
        }
    }
    if (total <= s->kept_limit) {
        return 0;
    }
    gap_list gaps = {0};
    uint64_t seen = 0;
    uint64_t dropped = 0;
    pdk_store_record **heads[2] = {taken, &s->head};
    for (int l = 0; l < 2; l++) {
        pdk_store_record **pp = heads[l];
        pdk_store_record *last = NULL;
        while (*pp) {
            pdk_store_record *r = *pp;
            pdk_store_record *gap = gap_of(&gaps, r->session_id);
            int keep = !droppable(r) || seen + kept_bytes(r) <= s->kept_limit;
            if (r->kind == REC_GAP && r->state == REC_PENDING && !gap) {
                keep = 1;
                gap_add(&gaps, r); /* an earlier trim's gap, widened now */
            } else if (!keep && !gap) {
                /* This record becomes the session's gap, where its first
                 * loss is; without memory to note it, it is kept for now. */
                keep = !gap_add(&gaps, r);
                if (!keep) {
                    uint64_t first, last_tick;
                    record_ticks(r, &first, &last_tick);
                    r->kind = REC_GAP;
                    r->tick = first;
                    r->value = last_tick;
                    r->aux = 1;
                    r->blob = NULL;
                    r->blob_len = 0;
                    memset(r->text_len, 0, sizeof r->text_len);
                    dropped++;
                    keep = 1;
                }
            } else if (!keep) {
                uint64_t first, last_tick;
                record_ticks(r, &first, &last_tick);
                gap->tick = first < gap->tick ? first : gap->tick;
                gap->value = last_tick > gap->value ? last_tick : gap->value;
                gap->aux++;
                dropped++;
                *pp = r->next;
                pdk_store_record_free_(r);
                s->flushed_seq++;
                if (l == 0) {
                    s->in_flight--;
                } else {
                    s->queue_len--;
                }
                continue;
            }
            seen += r->state == REC_PENDING ? kept_bytes(r) : 0;
            last = r;
            pp = &r->next;
        }
        if (l == 1) {
            s->tail = last;
        }
    }
    if (dropped > 0 && s->gave_up == 0) {
        fprintf(stderr,
                "paddock store: %s: the records kept while the disk is full passed %llu bytes "
                "(--max-kept-bytes): the newest inputs, state hashes and keyframes are given up, "
                "and the ticks each session lost are marked in recording_gaps once space "
                "returns\n",
                s->path, (unsigned long long)s->kept_limit);
        for (size_t k = 0; k < gaps.n; k++) {
            fprintf(stderr, "paddock store: %s: session %llu loses ticks %llu..%llu so far\n",
                    s->path, (unsigned long long)gaps.items[k]->session_id,
                    (unsigned long long)gaps.items[k]->tick,
                    (unsigned long long)gaps.items[k]->value);
        }
    }
    free(gaps.items);
    s->gave_up += dropped;
    return dropped;
}

/* Under mu, closing on a full disk: the kept records (list) and the queue
 * are given up, counted in lost and logged with each session's tick range,
 * so that the loss is said, not silent. */
void pdk_store_give_up_(pdk_store *s, pdk_store_record *list)
{
    struct {
        uint64_t session_id, first, last, records;
    } per[LOST_SESSIONS_LOGGED];
    size_t n_per = 0;
    uint64_t count = 0;
    uint64_t others = 0;
    pdk_store_record *lists[2] = {list, s->head};
    for (int l = 0; l < 2; l++) {
        pdk_store_record *r = lists[l];
        while (r) {
            pdk_store_record *next = r->next;
            if (r->state == REC_PENDING && r->session_id != 0) {
                uint64_t first, last;
                record_ticks(r, &first, &last);
                size_t i = 0;
                while (i < n_per && per[i].session_id != r->session_id) {
                    i++;
                }
                if (i == n_per && n_per < LOST_SESSIONS_LOGGED) {
                    per[n_per].session_id = r->session_id;
                    per[n_per].first = first;
                    per[n_per].last = last;
                    per[n_per].records = 0;
                    n_per++;
                }
                if (i < n_per) {
                    per[i].first = first < per[i].first ? first : per[i].first;
                    per[i].last = last > per[i].last ? last : per[i].last;
                    per[i].records++;
                } else {
                    others++;
                }
            }
            count += r->state == REC_PENDING;
            pdk_store_record_free_(r);
            r = next;
        }
    }
    s->flushed_seq += s->in_flight + s->queue_len;
    s->in_flight = 0;
    s->head = s->tail = NULL;
    s->queue_len = 0;
    s->lost += count;
    fprintf(stderr,
            "paddock store: %s: closing with the disk still full (%s): %llu records kept in "
            "memory could not be written and are lost\n",
            s->path, s->disk_reason, (unsigned long long)count);
    for (size_t i = 0; i < n_per; i++) {
        fprintf(stderr,
                "paddock store: %s: session %llu: %llu records of ticks %llu..%llu not written\n",
                s->path, (unsigned long long)per[i].session_id, (unsigned long long)per[i].records,
                (unsigned long long)per[i].first, (unsigned long long)per[i].last);
    }
    if (others) {
        fprintf(stderr, "paddock store: %s: and %llu records of other sessions\n", s->path,
                (unsigned long long)others);
    }
}

/* Under mu: waits PDK_STORE_FULL_RETRY_MS, or less when the store closes. */
void pdk_store_wait_for_space_(pdk_store *s)
{
    uint64_t until = pdk_store_monotonic_ns() + (uint64_t)PDK_STORE_FULL_RETRY_MS * 1000000u;
    struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
    while (!s->closing && pdk_store_monotonic_ns() < until) {
        pthread_cond_timedwait(&s->work_cv, &s->mu, &ts);
    }
}
