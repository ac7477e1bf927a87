#include "hcomm/request.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/devpath.h"
#include "hcomm/nbc.h"
#include "hcomm/part.h"
#include "util/smallmem.h"

/* Slabs keep 10,000 outstanding requests cheap: one malloc per slab and an
 * O(1) freelist pop per request. */
#define REQUEST_SLAB 256

typedef struct request_pool {
  hcomm_request_t **table; /* index -> object, fixed for the object's life */
  uint32_t count;
  uint32_t capacity;
  hcomm_request_t *freelist;
  void **slabs;
  size_t nslabs;
  unsigned long completions;
} request_pool_t;

static request_pool_t request_pool;
/* Starts at 1, since a fresh home reads 0 (request.h). */
uint32_t hc_request_epoch = 1;
long hc_request_sends_active;

_Static_assert(sizeof(hcomm_request_t) <= sizeof(hcomm_request_home_t),
               "HCOMM_REQUEST_HOME_BYTES must hold an hcomm_request_t");
_Static_assert(_Alignof(hcomm_request_t) <= _Alignof(hcomm_request_home_t),
               "a home must be aligned for an hcomm_request_t");

/* Room in the table for n more objects. */
static int request_table_reserve(uint32_t n) {
  request_pool_t *p = &request_pool;
  if (p->count + n <= p->capacity)
    return 0;
  uint32_t cap = p->capacity ? p->capacity * 2 : 4 * REQUEST_SLAB;
  while (cap < p->count + n)
    cap *= 2;
  hcomm_request_t **t = realloc(p->table, cap * sizeof *t);
  if (t == NULL)
    return -1;
  p->table = t;
  p->capacity = cap;
  return 0;
}

static int request_grow(void) {
  request_pool_t *p = &request_pool;
  if (request_table_reserve(REQUEST_SLAB) != 0)
    return -1;
  void **slabs = realloc(p->slabs, (p->nslabs + 1) * sizeof *slabs);
  if (slabs == NULL)
    return -1;
  p->slabs = slabs;
  hcomm_request_t *slab = calloc(REQUEST_SLAB, sizeof *slab);
  if (slab == NULL)
    return -1;
  p->slabs[p->nslabs++] = slab;
  for (int i = REQUEST_SLAB - 1; i >= 0; i--) {
    slab[i].index = p->count + (uint32_t)i;
    slab[i].released = 1;
    p->table[slab[i].index] = &slab[i];
    slab[i].next = p->freelist;
    p->freelist = &slab[i];
  }
  p->count += REQUEST_SLAB;
  return 0;
}

hcomm_request_t *hc_request_alloc(hc_request_kind_t kind) {
  request_pool_t *p = &request_pool;
  if (p->freelist == NULL && request_grow() != 0)
    return NULL;
  hcomm_request_t *req = p->freelist;
  p->freelist = req->next;
  return hc_request_reset(req, kind);
}

void hcomm_request_home_init(hcomm_request_home_t *home,
                             hcomm_request_drop_fn drop) {
  memset(home, 0, sizeof *home);
  hcomm_request_t *req = (hcomm_request_t *)(void *)home;
  req->home_drop = drop;
  req->released = 1;
}

/* A home gets its table index at its first use in this pool's life and
 * keeps it, as a slab's objects do: requests found by id or walked
 * (hc_request_foreach_active) are found in homes too.  0 when it has one.
 * Out of line and cold: inlined, it made every hc_request_alloc_at save
 * and restore three registers. */
static __attribute__((noinline, cold)) int
request_home_index(hcomm_request_t *req) {
  request_pool_t *p = &request_pool;
  if (request_table_reserve(1) != 0)
    return -1;
  req->index = p->count++;
  req->table_epoch = hc_request_epoch;
  p->table[req->index] = req;
  return 0;
}

hcomm_request_t *hc_request_alloc_at_first(hcomm_request_home_t *home,
                                           hc_request_kind_t kind) {
  hcomm_request_t *req = (hcomm_request_t *)(void *)home;
  if (request_home_index(req) != 0)
    return NULL;
  return hc_request_reset(req, kind);
}

/* Frees what the rare fields hold and zeroes them all, so that the next
 * allocation can leave them alone. */
static void request_clear_rare(hcomm_request_t *req) {
  if (req->dev != NULL) /* device path state (devpath.c) */
    hc_devpath_release(req);
  free(req->acc_buf); /* accessor eager send (proto.c) */
  if (req->plan != NULL) /* a persistent collective's schedule (nbc.c) */
    hc_nbc_plan_free(req->plan);
  if (req->part != NULL) /* a partitioned channel (part.c) */
    hc_part_free(req->part);
  memset(&req->rare, 0, sizeof *req - offsetof(hcomm_request_t, rare));
}

/* What every release does; 1 when req lives in a home (whose owner is
 * then to be told), 0 when it went back to the freelist. */
static int request_release_parts(hcomm_request_t *req) {
  if (req->rare)
    request_clear_rare(req);
  req->released = 1;
  req->generation++;
  if (req->home_drop != NULL)
    return 1;
  req->next = request_pool.freelist;
  request_pool.freelist = req;
  return 0;
}

void hc_request_release(hcomm_request_t *req) {
  if (request_release_parts(req)) /* its owner reuses the memory from now */
    req->home_drop((hcomm_request_home_t *)(void *)req);
}

void hc_request_release_to_owner(hcomm_request_t *req) {
  (void)request_release_parts(req);
}

/* A part of a joined request has finished: the joined one takes its
 * status (the receive) and error, and completes with the last part. */
static void request_join_absorb(hcomm_request_t *joined,
                                const hcomm_request_t *part) {
  if (part->join_reports)
    joined->status = part->status;
  if (joined->join_error == HC_OK)
    joined->join_error = part->status.error;
}

static void request_join_finish(hcomm_request_t *joined) {
  if (joined->join_done_fn != NULL)
    joined->join_done_fn(joined->join_arg);
  hc_request_complete(joined, joined->join_error);
}

int hcomm_request_done_status(const hcomm_request_t *req,
                              hcomm_status_t *status) {
  if (req == NULL || !atomic_load_explicit(&req->done, memory_order_acquire))
    return 0;
  *status = req->status;
  return 1;
}

int hcomm_request_done_error(const hcomm_request_t *req, hc_status_t *error) {
  if (req == NULL || !atomic_load_explicit(&req->done, memory_order_acquire))
    return 0;
  *error = req->status.error;
  return 1;
}

void hc_request_complete(hcomm_request_t *req, hc_status_t error) {
  hcomm_comm_t *comm = req->comm;
  /* Stored only where it changes: a persistent collective's MPI_Wait reads
   * the status back at once in wide loads, which wait for the store
   * buffer to drain where they cover a narrower store (nbc.c). */
  if (req->status.error != error)
    req->status.error = error;
  hcomm_request_t *joined = req->join_parent;
  if (joined != NULL)
    request_join_absorb(joined, req);
  if (req->kind == HC_REQ_SEND)
    hc_request_sends_active--;
  request_pool.completions++;
  atomic_store_explicit(&req->done, 1, memory_order_release);
  if (req->user_freed)
    hc_request_release(req);
  if (joined != NULL && --joined->join_pending == 0)
    request_join_finish(joined);
  if (comm != NULL)
    hc_comm_op_end(comm);
}

void hc_request_complete_started(hcomm_request_t *req) {
  request_pool.completions++;
  atomic_store_explicit(&req->done, 1, memory_order_release);
}

/* Hooks a part onto joined; a part already finished is absorbed now. */
static void request_join_part(hcomm_request_t *joined, hcomm_request_t *part,
                              int reports) {
  if (part == NULL)
    return;
  hc_request_mark_rare(part);
  part->join_reports = reports;
  if (atomic_load(&part->done)) {
    request_join_absorb(joined, part);
    hc_request_release(part);
    return;
  }
  part->join_parent = joined;
  part->user_freed = 1; /* released by hc_request_complete */
  joined->join_pending++;
}

void hc_request_join_track(hcomm_request_t *joined, hcomm_request_t *part) {
  hc_request_mark_rare(part);
  part->join_reports = 0;
  if (atomic_load(&part->done)) {
    request_join_absorb(joined, part);
    return;
  }
  part->join_parent = joined;
  joined->join_pending++;
}

void hc_request_join_drop(hcomm_request_t *joined) {
  if (--joined->join_pending == 0)
    request_join_finish(joined);
}

/* hcomm_request_join, the joined request kept in home when not NULL. */
static hc_status_t request_join(hcomm_request_home_t *home,
                                hcomm_request_t *send, hcomm_request_t *recv,
                                void (*done_fn)(void *arg), void *arg,
                                hcomm_request_t **req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hcomm_request_t *joined = home != NULL
                                ? hc_request_alloc_at(home, HC_REQ_USER)
                                : hc_request_alloc(HC_REQ_USER);
  if (joined == NULL) {
    hc_engine_unlock();
    return HC_ERR_NOMEM;
  }
  joined->status.source = HCOMM_PROC_NULL;
  joined->status.tag = HCOMM_ANY_TAG;
  joined->join_done_fn = done_fn;
  joined->join_arg = arg;
  /* Counted as pending until both are hooked, so neither can finish it. */
  joined->join_pending = 1;
  request_join_part(joined, send, 0);
  request_join_part(joined, recv, 1);
  if (--joined->join_pending == 0)
    request_join_finish(joined);
  hc_engine_unlock();
  *req = joined;
  return HC_OK;
}

hc_status_t hcomm_request_join(hcomm_request_t *send, hcomm_request_t *recv,
                               void (*done_fn)(void *arg), void *arg,
                               hcomm_request_t **req) {
  return request_join(NULL, send, recv, done_fn, arg, req);
}

hc_status_t hcomm_request_join_at(hcomm_request_home_t *home,
                                  hcomm_request_t *send, hcomm_request_t *recv,
                                  void (*done_fn)(void *arg), void *arg,
                                  hcomm_request_t **req) {
  if (home == NULL)
    return HC_ERR_ARG;
  return request_join(home, send, recv, done_fn, arg, req);
}

uint64_t hc_request_id(const hcomm_request_t *req) {
  return ((uint64_t)req->generation << 32) | req->index;
}

hcomm_request_t *hc_request_lookup(uint64_t id) {
  uint32_t index = (uint32_t)id;
  if (index >= request_pool.count)
    return NULL;
  hcomm_request_t *req = request_pool.table[index];
  if (req->released || req->generation != (uint32_t)(id >> 32) ||
      atomic_load(&req->done))
    return NULL;
  return req;
}

long hc_request_active_sends(void) { return hc_request_sends_active; }

unsigned long hc_request_completions(void) { return request_pool.completions; }

void hc_request_foreach_active(void (*fn)(hcomm_request_t *req, void *arg),
                               void *arg) {
  for (uint32_t i = 0; i < request_pool.count; i++) {
    hcomm_request_t *req = request_pool.table[i];
    if (!req->released && !atomic_load(&req->done))
      fn(req, arg);
  }
}

void hc_request_pool_fini(void) {
  request_pool_t *p = &request_pool;
  for (size_t i = 0; i < p->nslabs; i++)
    free(p->slabs[i]);
  free(p->slabs);
  free(p->table);
  memset(p, 0, sizeof *p);
  hc_request_sends_active = 0;
  hc_request_epoch++;
}
