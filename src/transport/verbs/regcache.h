/*
 * The verbs transport's registration cache: memory regions by address
 * range, most recently used first, at most a fixed number kept.  A lookup
 * takes a reference on the entry; put gives it back.  Entries in use are
 * never evicted.
 *
 * It is used only with on-demand paging (IBV_ACCESS_ON_DEMAND): the kernel
 * then keeps the device's view of a region in step with the page tables
 * (its MMU notifier), so a range freed, unmapped or mapped anew is read
 * and written as it is now, and a cached region can never go stale.  A
 * pinned region (no ODP) keeps the pages it pinned: after free() returns
 * a large block to the kernel and malloc() maps fresh pages at the same
 * address, it would serve the old pages.  No cheap check from user space
 * tells that case apart (/proc/self/maps shows the same anonymous range,
 * pagemap hides frame numbers from the unprivileged), so without ODP every
 * rendezvous registers and deregisters (docs/verbs.md).
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
  long released; /* deregistered: evicted, or at once without caching */
  long failures;
} hc_vb_rcache_stats_t;

typedef struct ibv_mr *(*hc_vb_reg_fn)(struct ibv_pd *, void *, size_t, int);
typedef int (*hc_vb_dereg_fn)(struct ibv_mr *);

/* A cache of at most max unreferenced entries whose registrations carry
 * extra_access (IBV_ACCESS_ON_DEMAND) besides what each lookup asks. */
hc_vb_rcache_t *hc_vb_rcache_new(struct ibv_pd *pd, hc_vb_reg_fn reg,
                                 hc_vb_dereg_fn dereg, int extra_access,
                                 int max);
/* A region covering [addr, addr + len) with at least access, registered
 * (page-aligned) on a miss; NULL when that registration failed.  *ref is
 * the entry to put back. */
struct ibv_mr *hc_vb_rcache_get(hc_vb_rcache_t *c, void *addr, size_t len,
                                int access, hc_vb_rentry_t **ref);
/* Gives back a reference from get; safe on NULL. */
void hc_vb_rcache_put(hc_vb_rcache_t *c, hc_vb_rentry_t *ref);
const hc_vb_rcache_stats_t *hc_vb_rcache_stats(const hc_vb_rcache_t *c);
/* Deregisters everything (references or not); safe on NULL. */
void hc_vb_rcache_free(hc_vb_rcache_t *c);

#endif /* HC_TRANSPORT_VERBS_REGCACHE_H */
