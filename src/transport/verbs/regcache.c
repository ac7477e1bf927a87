/*
 * Registration cache of the verbs transport (contract in regcache.h).  A
 * short list searched linearly: it holds at most a few dozen regions, and
 * a lookup happens once per rendezvous, next to a network round trip.
 */
#include "config.h"

#if defined(__has_include) && __has_include(<infiniband/verbs.h>)

#include <stdlib.h>
#include <unistd.h>

#include "transport/verbs/regcache.h"

struct hc_vb_rentry {
  hc_vb_rentry_t *prev, *next; /* most recently used first */
  uintptr_t start, end;
  int access;
  int refs;
  struct ibv_mr *mr;
};

struct hc_vb_rcache {
  struct ibv_pd *pd;
  hc_vb_reg_fn reg;
  hc_vb_dereg_fn dereg;
  int extra_access;
  int max, count;
  hc_vb_rentry_t *head, *tail;
  hc_vb_rcache_stats_t stats;
};

hc_vb_rcache_t *hc_vb_rcache_new(struct ibv_pd *pd, hc_vb_reg_fn reg,
                                 hc_vb_dereg_fn dereg, int extra_access,
                                 int max) {
  hc_vb_rcache_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->pd = pd;
  c->reg = reg;
  c->dereg = dereg;
  c->extra_access = extra_access;
  c->max = max;
  return c;
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
}

static void rcache_push_front(hc_vb_rcache_t *c, hc_vb_rentry_t *e) {
  e->prev = NULL;
  e->next = c->head;
  if (c->head != NULL)
    c->head->prev = e;
  else
    c->tail = e;
  c->head = e;
}

static void rcache_drop(hc_vb_rcache_t *c, hc_vb_rentry_t *e) {
  rcache_unlink(c, e);
  c->dereg(e->mr);
  free(e);
  c->count--;
}

/* Least recently used entries nobody holds go until max remain. */
static void rcache_trim(hc_vb_rcache_t *c) {
  for (hc_vb_rentry_t *e = c->tail; e != NULL && c->count > c->max;) {
    hc_vb_rentry_t *prev = e->prev;
    if (e->refs == 0) {
      rcache_drop(c, e);
      c->stats.released++;
    }
    e = prev;
  }
}

static hc_vb_rentry_t *rcache_lookup(hc_vb_rcache_t *c, uintptr_t a, size_t len,
                                     int access) {
  for (hc_vb_rentry_t *e = c->head; e != NULL; e = e->next)
    if (e->start <= a && a + len <= e->end && (e->access & access) == access)
      return e;
  return NULL;
}

struct ibv_mr *hc_vb_rcache_get(hc_vb_rcache_t *c, void *addr, size_t len,
                                int access, hc_vb_rentry_t **ref) {
  uintptr_t a = (uintptr_t)addr;
  hc_vb_rentry_t *e = rcache_lookup(c, a, len, access);
  if (e != NULL) {
    c->stats.hits++;
    rcache_unlink(c, e);
  } else {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    e = calloc(1, sizeof *e);
    if (e == NULL)
      return NULL;
    e->start = a & ~(page - 1);
    e->end = (a + len + page - 1) & ~(page - 1);
    e->access = access;
    e->mr = c->reg(c->pd, (void *)e->start, e->end - e->start,
                   access | c->extra_access);
    if (e->mr == NULL) {
      c->stats.failures++;
      free(e);
      return NULL;
    }
    c->stats.misses++;
    c->count++;
  }
  rcache_push_front(c, e);
  e->refs++;
  rcache_trim(c);
  *ref = e;
  return e->mr;
}

void hc_vb_rcache_put(hc_vb_rcache_t *c, hc_vb_rentry_t *ref) {
  if (ref == NULL)
    return;
  ref->refs--;
  rcache_trim(c);
}

const hc_vb_rcache_stats_t *hc_vb_rcache_stats(const hc_vb_rcache_t *c) {
  return &c->stats;
}

void hc_vb_rcache_free(hc_vb_rcache_t *c) {
  if (c == NULL)
    return;
  while (c->head != NULL)
    rcache_drop(c, c->head);
  free(c);
}

#endif
