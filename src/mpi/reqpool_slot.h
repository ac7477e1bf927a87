/*
 * The request pool's slots and slabs (reqpool.c owns them), for the inline
 * calls of reqpool.h: every point-to-point operation takes and gives back
 * its home, and every array wait looks up each handle.  Included at the
 * end of mpi_impl.h, where hc_mpi_request_t is complete.
 */
#ifndef HC_MPI_REQPOOL_SLOT_H
#define HC_MPI_REQPOOL_SLOT_H

#include <stdatomic.h>
#include <stdint.h>

#include "hcomm.h"
#include "mpi/handle.h"
#include "mpi/reqpool.h"
#include "util/smallmem.h"

#define HC_REQPOOL_SLAB_SHIFT 8
#define HC_REQPOOL_SLAB (1u << HC_REQPOOL_SLAB_SHIFT)
#define HC_REQPOOL_MAX_SLABS (HC_REQPOOL_CAPACITY / HC_REQPOOL_SLAB)
#define HC_REQPOOL_INDEX_MASK (HC_REQPOOL_CAPACITY - 1u)
#define HC_REQPOOL_GEN_MASK ((1u << HC_REQPOOL_GEN_BITS) - 1u)
/* Slots a thread's cache takes from the shared list at a time; a cache
 * that grows past two batches keeps one and gives the rest back, so a
 * thread that only frees (requests made elsewhere) does not hoard. */
#define HC_REQPOOL_BATCH 32

typedef struct hc_reqpool_slot {
  struct hc_mpi_request req; /* first: the object the face sees */
  /* The engine request of a point-to-point operation (hcomm_isend_at):
   * one object serves both layers. */
  hcomm_request_home_t home;
  atomic_int live; /* its handle while allocated, 0 while free */
  /* The engine holds home (from hc_reqpool_home_take until its drop), and
   * the face is gone (hc_reqpool_free came while the engine held home):
   * whichever of the free and the drop comes second recycles the slot.
   * Each side stores its flag, then reads the other's (sequentially
   * consistent, so at least one sees both); an exchange of face_gone
   * decides who recycles when both do.  The usual case (the engine done
   * before the face is freed) costs the drop one store and one load and
   * the free one load. */
  atomic_int engine_holds;
  atomic_int face_gone;
  uint32_t index;
  uint32_t generation;
  struct hc_reqpool_slot *next; /* in a cache or the shared list */
} hc_reqpool_slot_t;

/* Slabs by index / HC_REQPOOL_SLAB, read by lookups without a lock. */
extern _Atomic(hc_reqpool_slot_t *) hc_reqpool_slabs[HC_REQPOOL_MAX_SLABS];

/* A thread's free slots (reqpool.h: the caches). */
typedef struct hc_reqpool_cache {
  hc_reqpool_slot_t *head;
  int len;
  int registered; /* the thread-exit destructor will drain it */
} hc_reqpool_cache_t;

extern __thread hc_reqpool_cache_t hc_reqpool_cache
    __attribute__((tls_model("initial-exec")));

/* The handle of live slot s: its index and generation (reqpool.h). */
static inline int hc_reqpool_handle(const hc_reqpool_slot_t *s) {
  unsigned gen = s->generation & HC_REQPOOL_GEN_MASK;
  return (int)((HC_HANDLE_KIND_DIRECT << HC_HANDLE_KIND_SHIFT) |
               ((unsigned)HC_OBJ_REQUEST << HC_HANDLE_OBJECT_SHIFT) |
               (gen << HC_REQPOOL_INDEX_BITS) | s->index);
}

/* hc_reqpool_alloc when this thread's cache is empty: refills it from
 * the shared list (out of line, cold) and allocates. */
__attribute__((cold)) struct hc_mpi_request *hc_reqpool_alloc_refilled(void);

/* The cache is named, not reached through a pointer: UBSan's null check
 * of a pointer to an initial-exec TLS variable fired on a valid one. */
static inline struct hc_mpi_request *hc_reqpool_alloc(void) {
  hc_reqpool_slot_t *s = hc_reqpool_cache.head;
  if (s == NULL)
    return hc_reqpool_alloc_refilled();
  hc_reqpool_cache.head = s->next;
  hc_reqpool_cache.len--;
  hc_zero_small(&s->req, HC_MPI_REQUEST_RARE); /* the rest is zero already */
  s->req.handle = hc_reqpool_handle(s);
  atomic_store_explicit(&s->live, s->req.handle, memory_order_relaxed);
  return &s->req;
}

/* hc_reqpool_recycle's rare steps, after its push: the first free of a
 * thread that frees but never allocates, and a cache grown past two
 * batches.  Out of line and cold, and called last: nothing of the free
 * lives across it, so the free saves no registers. */
__attribute__((cold)) void hc_reqpool_recycle_rare(hc_reqpool_cache_t *c);

/* Puts a slot nobody holds in this thread's cache. */
static inline void hc_reqpool_recycle(hc_reqpool_slot_t *s) {
  s->next = hc_reqpool_cache.head;
  hc_reqpool_cache.head = s;
  hc_reqpool_cache.len++;
  if (!hc_reqpool_cache.registered ||
      hc_reqpool_cache.len > 2 * HC_REQPOOL_BATCH)
    hc_reqpool_recycle_rare(&hc_reqpool_cache);
}

/* hc_reqpool_free's rare steps, out of line: clearing the rare fields of
 * a request that is not plain (see hc_mpi_request_t), and the free of a
 * slot whose home the engine still holds. */
__attribute__((cold)) void hc_reqpool_clear_rare(struct hc_mpi_request *r);
__attribute__((cold)) void hc_reqpool_free_held(hc_reqpool_slot_t *s);

static inline void hc_reqpool_free(struct hc_mpi_request *r) {
  hc_reqpool_slot_t *s = (hc_reqpool_slot_t *)r;
  if (r->kind != HC_REQ_PLAIN || r->greq != NULL)
    hc_reqpool_clear_rare(r);
  atomic_store_explicit(&s->live, 0, memory_order_relaxed);
  s->generation++;
  if (!atomic_load(&s->engine_holds))
    hc_reqpool_recycle(s);
  else
    hc_reqpool_free_held(s);
}

static inline hcomm_request_home_t *
hc_reqpool_home_take(struct hc_mpi_request *r) {
  hc_reqpool_slot_t *s = (hc_reqpool_slot_t *)r;
  atomic_store_explicit(&s->engine_holds, 1, memory_order_relaxed);
  return &s->home;
}

static inline void hc_reqpool_home_unused(struct hc_mpi_request *r) {
  hc_reqpool_slot_t *s = (hc_reqpool_slot_t *)r;
  atomic_store_explicit(&s->engine_holds, 0, memory_order_relaxed);
}

/* No lock: slabs never move, and a handle is valid only while the object
 * holds it.  The caller's own ordering (it got the handle from the thread
 * that made it) makes the object's contents visible; the relaxed load only
 * keeps a stale handle read concurrently with a reuse well defined. */
static inline struct hc_mpi_request *hc_reqpool_get(int handle) {
  if (!hc_handle_is(handle, HC_HANDLE_KIND_DIRECT, HC_OBJ_REQUEST))
    return NULL;
  uint32_t index = (uint32_t)handle & HC_REQPOOL_INDEX_MASK;
  hc_reqpool_slot_t *slab = atomic_load_explicit(
      &hc_reqpool_slabs[index / HC_REQPOOL_SLAB], memory_order_acquire);
  if (slab == NULL)
    return NULL;
  hc_reqpool_slot_t *s = &slab[index % HC_REQPOOL_SLAB];
  if (atomic_load_explicit(&s->live, memory_order_relaxed) != handle)
    return NULL;
  return &s->req;
}

#endif /* HC_MPI_REQPOOL_SLOT_H */
