/*
 * Buffered-send pools (bsend_pool.h).  Each buffered send takes a block of
 * its pool (MPI_BSEND_OVERHEAD + message bytes, first fit), copies the
 * message there and sends from the copy, so the call returns as soon as
 * the copy is made.  A block is reclaimed once its send completes; detach
 * waits for all of them.  Bookkeeping lives outside the user's region, so
 * an unaligned region loses nothing and exactly count*size +
 * MPI_BSEND_OVERHEAD bytes fit one message, as the standard's sizing rule
 * promises.  An automatic pool (MPI_BUFFER_AUTOMATIC, MPI-4.1) gives each
 * block heap memory of its own instead.
 *
 * Every pool is on one list until it is both out of its slot and empty,
 * so a pool dropped with sends in flight (its communicator freed) is
 * still reclaimed, and MPI_Finalize waits for all of them.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/bsend_pool.h"

typedef struct bsend_block {
  size_t offset;            /* from the start of the attached region */
  size_t length;            /* overhead + message bytes */
  char *heap;               /* an automatic pool's block: its own room */
  uint64_t seq;             /* the pool's count of sends before this one */
  hcomm_request_t *req;     /* NULL while the send is being started */
  struct bsend_block *next; /* blocks in offset order */
} bsend_block_t;

struct hc_mpi_bsend_pool {
  void *attached; /* what the caller attached, for detach */
  char *base;     /* the region blocks lie in; NULL for automatic */
  size_t size;
  int automatic;
  int refs;          /* the slot's, and each holder's */
  uint64_t next_seq; /* sends started through the pool */
  bsend_block_t *blocks;
  struct hc_mpi_bsend_pool *next; /* bsend_pools */
};

static pthread_mutex_t bsend_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_mpi_bsend_pool_t *bsend_pools;

/* Drops blocks whose sends finished.  Caller holds the lock. */
static void bsend_reclaim(hc_mpi_bsend_pool_t *pool) {
  bsend_block_t **link = &pool->blocks;
  while (*link) {
    bsend_block_t *b = *link;
    if (b->req && hcomm_request_done(b->req)) {
      *link = b->next;
      hcomm_request_free(b->req);
      free(b->heap);
      free(b);
    } else {
      link = &b->next;
    }
  }
}

/* Frees pools out of their slots whose sends all finished.  Caller holds
 * the lock. */
static void bsend_sweep(void) {
  hc_mpi_bsend_pool_t **link = &bsend_pools;
  while (*link) {
    hc_mpi_bsend_pool_t *pool = *link;
    if (pool->refs == 0)
      bsend_reclaim(pool);
    if (pool->refs == 0 && !pool->blocks) {
      *link = pool->next;
      free(pool);
    } else {
      link = &pool->next;
    }
  }
}

/* A fresh block of need bytes linked into the pool (first fit), or NULL.
 * Caller holds the lock. */
static bsend_block_t *bsend_reserve(hc_mpi_bsend_pool_t *pool, size_t need) {
  size_t start = 0;
  bsend_block_t **link = &pool->blocks;
  if (!pool->automatic) {
    for (;;) {
      bsend_block_t *next = *link;
      size_t end = next ? next->offset : pool->size;
      if (end >= start && end - start >= need)
        break;
      if (!next)
        return NULL;
      start = next->offset + next->length;
      link = &next->next;
    }
  }
  bsend_block_t *b = calloc(1, sizeof(*b));
  if (!b)
    return NULL;
  if (pool->automatic && !(b->heap = malloc(need))) {
    free(b);
    return NULL;
  }
  b->offset = start;
  b->length = need;
  b->seq = pool->next_seq++;
  b->next = *link;
  *link = b;
  return b;
}

static void bsend_unlink(hc_mpi_bsend_pool_t *pool, bsend_block_t *victim) {
  for (bsend_block_t **link = &pool->blocks; *link; link = &(*link)->next) {
    if (*link == victim) {
      *link = victim->next;
      free(victim->heap);
      free(victim);
      return;
    }
  }
}

static size_t bsend_in_use(const hc_mpi_bsend_pool_t *pool) {
  size_t n = 0;
  for (const bsend_block_t *b = pool->blocks; b; b = b->next)
    n += b->length;
  return n;
}

/* Waits for every send of the pool (blocks taken one at a time, so sends
 * started meanwhile are waited for too). */
static void bsend_pool_drain(hc_mpi_bsend_pool_t *pool) {
  for (;;) {
    pthread_mutex_lock(&bsend_lock);
    bsend_block_t *b = pool->blocks;
    if (b)
      pool->blocks = b->next;
    pthread_mutex_unlock(&bsend_lock);
    if (!b)
      return;
    if (b->req) {
      hcomm_wait(b->req, NULL);
      hcomm_request_free(b->req);
    }
    free(b->heap);
    free(b);
  }
}

int hc_mpi_bsend_slot_attach(hc_mpi_bsend_pool_t **slot, void *buffer,
                             size_t size) {
  hc_mpi_bsend_pool_t *pool = calloc(1, sizeof(*pool));
  if (!pool)
    return MPI_ERR_NO_MEM;
  pool->attached = buffer;
  pool->automatic = buffer == MPI_BUFFER_AUTOMATIC;
  pool->base = pool->automatic ? NULL : buffer;
  pool->size = pool->automatic ? 0 : size;
  pool->refs = 1;
  pthread_mutex_lock(&bsend_lock);
  int busy = *slot != NULL;
  if (!busy) {
    *slot = pool;
    pool->next = bsend_pools;
    bsend_pools = pool;
  }
  pthread_mutex_unlock(&bsend_lock);
  if (busy) {
    free(pool);
    return MPI_ERR_BUFFER;
  }
  return MPI_SUCCESS;
}

hc_mpi_bsend_pool_t *hc_mpi_bsend_slot_get(hc_mpi_bsend_pool_t **slot) {
  pthread_mutex_lock(&bsend_lock);
  hc_mpi_bsend_pool_t *pool = *slot;
  if (pool)
    pool->refs++;
  pthread_mutex_unlock(&bsend_lock);
  return pool;
}

void hc_mpi_bsend_pool_release(hc_mpi_bsend_pool_t *pool) {
  pthread_mutex_lock(&bsend_lock);
  if (--pool->refs == 0)
    bsend_sweep();
  pthread_mutex_unlock(&bsend_lock);
}

/* Takes the pool out of its slot (NULL when none was there). */
static hc_mpi_bsend_pool_t *bsend_slot_take(hc_mpi_bsend_pool_t **slot) {
  pthread_mutex_lock(&bsend_lock);
  hc_mpi_bsend_pool_t *pool = *slot;
  *slot = NULL;
  pthread_mutex_unlock(&bsend_lock);
  return pool;
}

void hc_mpi_bsend_slot_detach(hc_mpi_bsend_pool_t **slot, void **buffer,
                              size_t *size) {
  hc_mpi_bsend_pool_t *pool = bsend_slot_take(slot);
  if (buffer)
    *buffer = pool ? pool->attached : NULL;
  if (size)
    *size = pool ? pool->size : 0;
  if (!pool)
    return;
  bsend_pool_drain(pool);
  hc_mpi_bsend_pool_release(pool);
}

void hc_mpi_bsend_slot_drop(hc_mpi_bsend_pool_t **slot) {
  hc_mpi_bsend_pool_t *pool = bsend_slot_take(slot);
  if (pool)
    hc_mpi_bsend_pool_release(pool);
}

void hc_mpi_bsend_slot_flush(hc_mpi_bsend_pool_t **slot) {
  hc_mpi_bsend_pool_t *pool = hc_mpi_bsend_slot_get(slot);
  if (!pool)
    return;
  bsend_pool_drain(pool);
  hc_mpi_bsend_pool_release(pool);
}

void hc_mpi_bsend_drain(void) {
  pthread_mutex_lock(&bsend_lock);
  for (hc_mpi_bsend_pool_t *pool = bsend_pools; pool; pool = pool->next)
    pool->refs++; /* kept while drained without the lock */
  pthread_mutex_unlock(&bsend_lock);
  for (hc_mpi_bsend_pool_t *pool = bsend_pools; pool; pool = pool->next)
    bsend_pool_drain(pool);
  pthread_mutex_lock(&bsend_lock);
  for (hc_mpi_bsend_pool_t *pool = bsend_pools; pool; pool = pool->next)
    pool->refs--;
  bsend_sweep();
  pthread_mutex_unlock(&bsend_lock);
}

int hc_mpi_bsend_pool_send(const char *fn, hc_mpi_comm_t *c,
                           hc_mpi_bsend_pool_t *pool, const void *buf,
                           MPI_Count count, const hc_mpi_type_t *type, int dest,
                           int tag) {
  size_t bytes = (size_t)(count * type->size);
  size_t need = bytes + MPI_BSEND_OVERHEAD;
  pthread_mutex_lock(&bsend_lock);
  bsend_reclaim(pool);
  bsend_block_t *b = bsend_reserve(pool, need);
  /* Full: earlier buffered sends may be done but not yet known to be
   * (their last packets wait for a poll).  Poll and look again, twice, as
   * MPICH does, before calling the buffer too small. */
  for (int pass = 0; !b && !pool->automatic && pass < 2 && pool->blocks;
       pass++) {
    pthread_mutex_unlock(&bsend_lock);
    hcomm_progress();
    pthread_mutex_lock(&bsend_lock);
    bsend_reclaim(pool);
    b = bsend_reserve(pool, need);
  }
  if (!b) {
    size_t size = pool->size, used = bsend_in_use(pool);
    int automatic = pool->automatic;
    pthread_mutex_unlock(&bsend_lock);
    if (automatic)
      return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM,
                          "out of memory for a buffered send of %zu bytes",
                          bytes);
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "attached buffer of %zu bytes (%zu in use) cannot "
                        "hold %zu bytes plus %d bytes overhead",
                        size, used, bytes, MPI_BSEND_OVERHEAD);
  }
  char *payload = b->heap ? b->heap + MPI_BSEND_OVERHEAD
                          : pool->base + b->offset + MPI_BSEND_OVERHEAD;
  pthread_mutex_unlock(&bsend_lock);

  /* The block is ours (req NULL keeps it from reclaim): copy and send
   * without the lock, since the engine call may take a while. */
  hc_mpi_type_pack(type, buf, count, payload);
  hcomm_request_t *req = NULL;
  hc_status_t st = hcomm_isend(payload, bytes, dest, tag, c->engine,
                               HCOMM_SEND_STANDARD, &req);
  pthread_mutex_lock(&bsend_lock);
  if (st == HC_OK)
    b->req = req;
  else
    bsend_unlink(pool, b);
  pthread_mutex_unlock(&bsend_lock);
  return hc_mpi_raise_status(c, fn, st);
}

/* ---- nonblocking flush: an MPIX generalized request --------------------- */

typedef struct bsend_iflush {
  hc_mpi_bsend_pool_t *pool; /* held */
  uint64_t before;           /* the sends to wait for: seq < before */
  MPI_Request request;
} bsend_iflush_t;

/* Completes the request once no send it waits for is left. */
static int bsend_iflush_poll(void *extra_state, MPI_Status *status) {
  (void)status;
  bsend_iflush_t *f = extra_state;
  pthread_mutex_lock(&bsend_lock);
  bsend_reclaim(f->pool);
  int pending = 0;
  for (const bsend_block_t *b = f->pool->blocks; b && !pending; b = b->next)
    pending = b->seq < f->before;
  pthread_mutex_unlock(&bsend_lock);
  return pending ? MPI_SUCCESS : PMPI_Grequest_complete(f->request);
}

static int bsend_iflush_query(void *extra_state, MPI_Status *status) {
  (void)extra_state;
  hc_mpi_status_empty(status);
  status->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}

static int bsend_iflush_free(void *extra_state) {
  bsend_iflush_t *f = extra_state;
  hc_mpi_bsend_pool_release(f->pool);
  free(f);
  return MPI_SUCCESS;
}

static int bsend_iflush_cancel(void *extra_state, int complete) {
  (void)extra_state;
  (void)complete;
  return MPI_SUCCESS; /* a flush cannot be cancelled: it just completes */
}

int hc_mpi_bsend_slot_iflush(const char *fn, hc_mpi_bsend_pool_t **slot,
                             MPI_Request *request) {
  hc_mpi_bsend_pool_t *pool = hc_mpi_bsend_slot_get(slot);
  if (!pool) {
    hcomm_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, HC_OK};
    return hc_mpi_request_new_done(fn, hc_mpi_comm_world(), &st, request);
  }
  bsend_iflush_t *f = malloc(sizeof(*f));
  if (!f) {
    hc_mpi_bsend_pool_release(pool);
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  f->pool = pool;
  pthread_mutex_lock(&bsend_lock);
  f->before = pool->next_seq;
  pthread_mutex_unlock(&bsend_lock);
  int rc = PMPIX_Grequest_start(bsend_iflush_query, bsend_iflush_free,
                                bsend_iflush_cancel, bsend_iflush_poll, NULL, f,
                                &f->request);
  if (rc != MPI_SUCCESS) {
    bsend_iflush_free(f);
    return rc;
  }
  *request = f->request;
  return MPI_SUCCESS;
}
