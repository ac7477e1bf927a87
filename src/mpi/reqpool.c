/* The face request pool; reqpool.h gives the handle layout and the caches. */
#include "mpi/reqpool.h"

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"
#include "mpi/reqpool_slot.h"
#include "util/lock.h"
#include "util/smallmem.h"


/* reqpool_slot.h: each slab written once, under reqpool_lock. */
_Atomic(hc_reqpool_slot_t *) hc_reqpool_slabs[HC_REQPOOL_MAX_SLABS];
static pthread_mutex_t reqpool_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_reqpool_slot_t *reqpool_shared; /* free slots; under reqpool_lock */
static uint32_t reqpool_nslabs;        /* under reqpool_lock */
/* Caches of threads that ended.  Pushed without reqpool_lock, because a
 * thread may end while another is inside hcmpi below
 * MPI_THREAD_MULTIPLE, where that lock is no lock (util/lock.h); taken
 * whole by a refill that found the shared list empty. */
static _Atomic(hc_reqpool_slot_t *) reqpool_orphans;

/* reqpool_slot.h: initial-exec, a plain offset from the thread pointer,
 * not a call to __tls_get_addr on every allocation. */
__thread hc_reqpool_cache_t hc_reqpool_cache
    __attribute__((tls_model("initial-exec")));

static void reqpool_home_drop(hcomm_request_home_t *home);

static pthread_key_t reqpool_exit_key;
static pthread_once_t reqpool_exit_once = PTHREAD_ONCE_INIT;
static int reqpool_exit_ok;

/* Adds one slab of free slots to the shared list.  Caller holds the lock. */
static int reqpool_grow_locked(void) {
  if (reqpool_nslabs == HC_REQPOOL_MAX_SLABS)
    return -1;
  hc_reqpool_slot_t *slab = calloc(HC_REQPOOL_SLAB, sizeof(*slab));
  if (slab == NULL)
    return -1;
  uint32_t base = reqpool_nslabs * HC_REQPOOL_SLAB;
  for (int i = (int)HC_REQPOOL_SLAB - 1; i >= 0; i--) {
    slab[i].index = base + (uint32_t)i;
    atomic_init(&slab[i].live, 0);
    atomic_init(&slab[i].engine_holds, 0);
    atomic_init(&slab[i].face_gone, 0);
    hcomm_request_home_init(&slab[i].home, reqpool_home_drop);
    slab[i].next = reqpool_shared;
    reqpool_shared = &slab[i];
  }
  atomic_store_explicit(&hc_reqpool_slabs[reqpool_nslabs], slab,
                        memory_order_release);
  reqpool_nslabs++;
  return 0;
}

/* Gives every slot of c past its newest keep back to the shared list: the
 * ones kept are the likeliest still in this core's cache.  The walk is
 * outside the lock; the splice under it is two stores. */
static void reqpool_drain(hc_reqpool_cache_t *c, int keep) {
  hc_reqpool_slot_t **cut = &c->head;
  for (int i = 0; i < keep && *cut != NULL; i++)
    cut = &(*cut)->next;
  hc_reqpool_slot_t *first = *cut;
  if (first == NULL)
    return;
  hc_reqpool_slot_t *last = first;
  while (last->next != NULL)
    last = last->next;
  *cut = NULL;
  c->len = keep;
  hc_lock(&reqpool_lock);
  last->next = reqpool_shared;
  reqpool_shared = first;
  hc_unlock(&reqpool_lock);
}

/* A thread ends: its cache goes to the orphans whole (the slots outlive
 * it). */
static void reqpool_cache_exit(void *arg) {
  hc_reqpool_cache_t *c = arg;
  hc_reqpool_slot_t *first = c->head;
  c->head = NULL;
  c->len = 0;
  c->registered = 0;
  if (first == NULL)
    return;
  hc_reqpool_slot_t *last = first;
  while (last->next != NULL)
    last = last->next;
  hc_reqpool_slot_t *old =
      atomic_load_explicit(&reqpool_orphans, memory_order_relaxed);
  do
    last->next = old;
  while (!atomic_compare_exchange_weak_explicit(&reqpool_orphans, &old, first,
                                                memory_order_release,
                                                memory_order_relaxed));
}

/* The shared list is empty: adopt the orphans, else add a slab.  Caller
 * holds the lock. */
static void reqpool_restock_locked(void) {
  hc_reqpool_slot_t *orphans =
      atomic_exchange_explicit(&reqpool_orphans, NULL, memory_order_acquire);
  if (orphans != NULL)
    reqpool_shared = orphans;
  else
    (void)reqpool_grow_locked();
}

static void reqpool_exit_key_make(void) {
  reqpool_exit_ok =
      pthread_key_create(&reqpool_exit_key, reqpool_cache_exit) == 0;
}

/* c's slots go back to the pool when its thread ends. */
static void reqpool_register(hc_reqpool_cache_t *c) {
  pthread_once(&reqpool_exit_once, reqpool_exit_key_make);
  if (reqpool_exit_ok)
    (void)pthread_setspecific(reqpool_exit_key, c);
  c->registered = 1;
}

/* Moves a batch of free slots from the shared list (grown when empty) to
 * c.  Returns 0 when c has one. */
static int reqpool_refill(hc_reqpool_cache_t *c) {
  if (!c->registered)
    reqpool_register(c);
  hc_lock(&reqpool_lock);
  if (reqpool_shared == NULL)
    reqpool_restock_locked();
  for (int i = 0; i < HC_REQPOOL_BATCH && reqpool_shared != NULL; i++) {
    hc_reqpool_slot_t *s = reqpool_shared;
    reqpool_shared = s->next;
    s->next = c->head;
    c->head = s;
    c->len++;
  }
  hc_unlock(&reqpool_lock);
  return c->head != NULL ? 0 : -1;
}

hc_mpi_request_t *hc_reqpool_alloc_refilled(void) {
  if (reqpool_refill(&hc_reqpool_cache) != 0)
    return NULL;
  return hc_reqpool_alloc();
}

int hc_reqpool_renew(hc_mpi_request_t *r) {
  hc_reqpool_slot_t *s = (hc_reqpool_slot_t *)r;
  s->generation++;
  r->handle = hc_reqpool_handle(s);
  atomic_store_explicit(&s->live, r->handle, memory_order_relaxed);
  return r->handle;
}

void hc_reqpool_recycle_rare(hc_reqpool_cache_t *c) {
  if (!c->registered)
    reqpool_register(c);
  if (c->len > 2 * HC_REQPOOL_BATCH)
    reqpool_drain(c, HC_REQPOOL_BATCH);
}

void hc_reqpool_clear_rare(hc_mpi_request_t *r) {
  memset((char *)r + HC_MPI_REQUEST_RARE, 0, sizeof *r - HC_MPI_REQUEST_RARE);
}

void hc_reqpool_free_held(hc_reqpool_slot_t *s) {
  atomic_store(&s->face_gone, 1); /* the drop recycles it */
  if (!atomic_load(&s->engine_holds) && atomic_exchange(&s->face_gone, 0))
    hc_reqpool_recycle(s); /* the drop came in between and left it */
}

/* The engine is done with the request in home (hcomm_request_drop_fn). */
static void reqpool_home_drop(hcomm_request_home_t *home) {
  hc_reqpool_slot_t *s =
      (hc_reqpool_slot_t *)(void *)((char *)home - offsetof(hc_reqpool_slot_t, home));
  atomic_store(&s->engine_holds, 0);
  /* Still 0 when the face has it (a persistent request, a wait). */
  if (atomic_load(&s->face_gone) && atomic_exchange(&s->face_gone, 0))
    hc_reqpool_recycle(s);
}
