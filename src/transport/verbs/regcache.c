/*
 * Registration cache of the verbs transport (contract in regcache.h).  A
 * short list searched linearly: it holds at most a few dozen regions, and
 * a lookup happens once per rendezvous, next to a network round trip.
 *
 * A spin lock guards the list against the release hook, which may run in
 * any thread, inside malloc or free: under the lock only pointers move
 * (no allocation, no registration, no call that could release memory), so
 * the hook never waits for long and never re-enters itself.  An entry is
 * on the list from before its registration starts, so a release during
 * ibv_reg_mr marks it too.
 */
#include "config.h"


#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "transport/verbs/regcache.h"
#include "util/memhooks.h"

struct hc_vb_rentry {
  hc_vb_rentry_t *prev, *next; /* most recently used first */
  uintptr_t start, end;
  int access;
  int refs;
  int stale;         /* its memory was released: never handed out again */
  struct ibv_mr *mr; /* NULL while being registered */
};

struct hc_vb_rcache {
  struct ibv_pd *pd;
  hc_vb_reg_fn reg;
  hc_vb_dereg_fn dereg;
  int extra_access;
  int max, count;
  int hook_slot; /* -1: not watching releases */
  atomic_flag lock;
  hc_vb_rentry_t *head, *tail;
  hc_vb_rentry_t *dead; /* unlinked by the hook, awaiting deregistration */
  hc_vb_rcache_stats_t stats;
};

static void rcache_lock(hc_vb_rcache_t *c) {
  while (atomic_flag_test_and_set_explicit(&c->lock, memory_order_acquire))
    sched_yield();
}

static void rcache_unlock(hc_vb_rcache_t *c) {
  atomic_flag_clear_explicit(&c->lock, memory_order_release);
}

static void rcache_unlink(hc_vb_rcache_t *c, hc_vb_rentry_t *e) {
  if (e->prev != NULL)
    e->prev->next = e->next;
  else
    c->head = e->next;
  if (e->next != NULL)
    e->next->prev = e->prev;
  else
    c->tail = e->prev;
  e->prev = e->next = NULL;
  c->count--;
}

static void rcache_push_front(hc_vb_rcache_t *c, hc_vb_rentry_t *e) {
  e->prev = NULL;
  e->next = c->head;
  if (c->head != NULL)
    c->head->prev = e;
  else
    c->tail = e;
  c->head = e;
  c->count++;
}

/* Moves an unlinked entry to the list of those to deregister. */
static void rcache_bury(hc_vb_rcache_t *c, hc_vb_rentry_t *e) {
  e->next = c->dead;
  c->dead = e;
}

/* The release hook: entries over [start, start + len) are forgotten. */
static void rcache_on_release(void *arg, void *start, size_t len) {
  hc_vb_rcache_t *c = arg;
  uintptr_t lo = (uintptr_t)start;
  uintptr_t hi = len > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + len;
  rcache_lock(c);
  for (hc_vb_rentry_t *e = c->head; e != NULL;) {
    hc_vb_rentry_t *next = e->next;
    if (!e->stale && e->start < hi && lo < e->end) {
      e->stale = 1;
      c->stats.invalidated++;
      if (e->refs == 0) {
        rcache_unlink(c, e);
        rcache_bury(c, e);
      }
    }
    e = next;
  }
  rcache_unlock(c);
}

hc_vb_rcache_t *hc_vb_rcache_new(struct ibv_pd *pd, hc_vb_reg_fn reg,
                                 hc_vb_dereg_fn dereg, int extra_access,
                                 int max, int watch) {
  hc_vb_rcache_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->pd = pd;
  c->reg = reg;
  c->dereg = dereg;
  c->extra_access = extra_access;
  c->max = max;
  c->hook_slot = -1;
  atomic_flag_clear(&c->lock);
  if (watch && max > 0) {
    c->hook_slot = hc_memhooks_add(rcache_on_release, c);
    if (c->hook_slot < 0)
      c->max = 0;
  }
  return c;
}

int hc_vb_rcache_capacity(const hc_vb_rcache_t *c) { return c->max; }

/* Deregisters what was buried (the caller's thread, no lock held). */
static void rcache_reap(hc_vb_rcache_t *c, hc_vb_rentry_t *dead) {
  while (dead != NULL) {
    hc_vb_rentry_t *next = dead->next;
    if (dead->mr != NULL) {
      c->dereg(dead->mr);
      c->stats.released++;
    }
    free(dead);
    dead = next;
  }
}

/* Takes the buried entries and buries the least recently used entries
 * nobody holds until max remain; the caller reaps what it returns. */
static hc_vb_rentry_t *rcache_trim_locked(hc_vb_rcache_t *c) {
  for (hc_vb_rentry_t *e = c->tail; e != NULL && c->count > c->max;) {
    hc_vb_rentry_t *prev = e->prev;
    if (e->refs == 0) {
      rcache_unlink(c, e);
      rcache_bury(c, e);
    }
    e = prev;
  }
  hc_vb_rentry_t *dead = c->dead;
  c->dead = NULL;
  return dead;
}

static void rcache_trim(hc_vb_rcache_t *c) {
  rcache_lock(c);
  hc_vb_rentry_t *dead = rcache_trim_locked(c);
  rcache_unlock(c);
  rcache_reap(c, dead);
}

static hc_vb_rentry_t *rcache_lookup(hc_vb_rcache_t *c, uintptr_t a, size_t len,
                                     int access) {
  for (hc_vb_rentry_t *e = c->head; e != NULL; e = e->next)
    if (!e->stale && e->mr != NULL && e->start <= a && a + len <= e->end &&
        (e->access & access) == access)
      return e;
  return NULL;
}

/* A hit: the entry, referenced and first; NULL on a miss. */
static hc_vb_rentry_t *rcache_take(hc_vb_rcache_t *c, uintptr_t a, size_t len,
                                   int access) {
  rcache_lock(c);
  hc_vb_rentry_t *e = rcache_lookup(c, a, len, access);
  if (e != NULL) {
    c->stats.hits++;
    rcache_unlink(c, e);
    rcache_push_front(c, e);
    e->refs++;
  }
  rcache_unlock(c);
  return e;
}

/* A miss: a new entry, listed (referenced, no region yet) before it is
 * registered, so that a release meanwhile marks it; NULL when the
 * registration failed. */
static hc_vb_rentry_t *rcache_register(hc_vb_rcache_t *c, uintptr_t a,
                                       size_t len, int access) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  hc_vb_rentry_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return NULL;
  e->start = a & ~(page - 1);
  e->end = (a + len + page - 1) & ~(page - 1);
  e->access = access;
  e->refs = 1;
  rcache_lock(c);
  rcache_push_front(c, e);
  rcache_unlock(c);
  struct ibv_mr *mr = c->reg(c->pd, (void *)e->start, e->end - e->start,
                             access | c->extra_access);
  rcache_lock(c);
  e->mr = mr;
  if (mr == NULL)
    rcache_unlink(c, e);
  rcache_unlock(c);
  if (mr == NULL) {
    c->stats.failures++;
    free(e);
    return NULL;
  }
  c->stats.misses++;
  return e;
}

struct ibv_mr *hc_vb_rcache_get(hc_vb_rcache_t *c, void *addr, size_t len,
                                int access, hc_vb_rentry_t **ref) {
  uintptr_t a = (uintptr_t)addr;
  hc_vb_rentry_t *e = rcache_take(c, a, len, access);
  if (e == NULL)
    e = rcache_register(c, a, len, access);
  rcache_trim(c);
  if (e == NULL)
    return NULL;
  *ref = e;
  return e->mr;
}

void hc_vb_rcache_put(hc_vb_rcache_t *c, hc_vb_rentry_t *ref) {
  if (ref == NULL)
    return;
  rcache_lock(c);
  if (--ref->refs == 0 && ref->stale) {
    rcache_unlink(c, ref);
    rcache_bury(c, ref);
  }
  hc_vb_rentry_t *dead = rcache_trim_locked(c);
  rcache_unlock(c);
  rcache_reap(c, dead);
}

hc_vb_rcache_stats_t hc_vb_rcache_stats(hc_vb_rcache_t *c) {
  rcache_lock(c);
  hc_vb_rcache_stats_t copy = c->stats;
  rcache_unlock(c);
  return copy;
}

void hc_vb_rcache_free(hc_vb_rcache_t *c) {
  if (c == NULL)
    return;
  hc_memhooks_remove(c->hook_slot); /* no hook runs on c after this */
  while (c->head != NULL) {
    hc_vb_rentry_t *e = c->head;
    rcache_unlink(c, e);
    rcache_bury(c, e);
  }
  rcache_reap(c, c->dead);
  free(c);
}
