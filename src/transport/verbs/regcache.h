/*
 * The verbs transport's registration cache: memory regions by address
 * range, most recently used first, at most a fixed number kept.  A lookup
 * takes a reference on the entry; put gives it back.  Entries in use are
 * never evicted.
 *
 * With on-demand paging (IBV_ACCESS_ON_DEMAND) the kernel keeps the
 * device's view of a region in step with the page tables (its MMU
 * notifier): a range freed, unmapped or mapped anew is read and written
 * as it is now, so a cached region cannot go stale.  A pinned region (no
 * ODP) keeps the pages it pinned: after free() returns a block to the
 * kernel and malloc() maps fresh pages at the same address it would serve
 * the old pages.  So a cache of pinned regions watches releases
 * (util/memhooks.h): every entry overlapping a released range is
 * forgotten, never handed out again, and deregistered by the next call
 * into the cache (or when its last user puts it back).  Invalidation runs
 * in whatever thread releases memory and only unlinks; the rest of the API
 * is for one thread at a time (the transport's).  docs/verbs.md says what the
 * hooks cannot see.
 */
#ifndef HC_TRANSPORT_VERBS_REGCACHE_H
#define HC_TRANSPORT_VERBS_REGCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

typedef struct hc_vb_rentry hc_vb_rentry_t;
typedef struct hc_vb_rcache hc_vb_rcache_t;

typedef struct hc_vb_rcache_stats {
  long hits, misses;
  long released; /* deregistered: evicted, invalidated, or not kept */
  long failures;
  long invalidated; /* entries whose memory was released under them */
} hc_vb_rcache_stats_t;

typedef struct ibv_mr *(*hc_vb_reg_fn)(struct ibv_pd *, void *, size_t, int);
typedef int (*hc_vb_dereg_fn)(struct ibv_mr *);

/* A cache of at most max unreferenced entries whose registrations carry
 * extra_access (IBV_ACCESS_ON_DEMAND) besides what each lookup asks.
 * watch: forget entries whose memory is released (pinned regions); when
 * no memory hook can be had the cache keeps nothing (capacity 0). */
hc_vb_rcache_t *hc_vb_rcache_new(struct ibv_pd *pd, hc_vb_reg_fn reg,
                                 hc_vb_dereg_fn dereg, int extra_access,
                                 int max, int watch);
/* How many unreferenced entries it keeps (0: none, every put
 * deregisters). */
int hc_vb_rcache_capacity(const hc_vb_rcache_t *c);
/* A region covering [addr, addr + len) with at least access, registered
 * (page-aligned) on a miss; NULL when that registration failed.  *ref is
 * the entry to put back. */
struct ibv_mr *hc_vb_rcache_get(hc_vb_rcache_t *c, void *addr, size_t len,
                                int access, hc_vb_rentry_t **ref);
/* Gives back a reference from get; safe on NULL. */
void hc_vb_rcache_put(hc_vb_rcache_t *c, hc_vb_rentry_t *ref);
/* The figures so far (a copy: the release hook may be counting). */
hc_vb_rcache_stats_t hc_vb_rcache_stats(hc_vb_rcache_t *c);
/* Deregisters everything (references or not); safe on NULL. */
void hc_vb_rcache_free(hc_vb_rcache_t *c);

#endif /* HC_TRANSPORT_VERBS_REGCACHE_H */
