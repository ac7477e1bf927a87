/*
 * Buffered mode.  MPI_Buffer_attach hands the library a region; each
 * MPI_Bsend (and MPI_Ibsend, and each start of an MPI_Bsend_init request)
 * takes a block of it (MPI_BSEND_OVERHEAD + message bytes, first fit),
 * copies the message there and sends from the copy, so the call returns
 * as soon as the copy is made.  A block is reclaimed once its send
 * completes; detach waits for all of them.  Bookkeeping lives outside the
 * user's region, so an unaligned region loses nothing and exactly
 * count*size + MPI_BSEND_OVERHEAD bytes fit one message, as the
 * standard's sizing rule promises.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "mpi/mpi_trace.h"

typedef struct bsend_block {
  size_t offset;            /* from the start of the attached region */
  size_t length;            /* overhead + message bytes */
  hcomm_request_t *req;     /* NULL while the send is being started */
  struct bsend_block *next; /* blocks in offset order */
} bsend_block_t;

static pthread_mutex_t bsend_lock = PTHREAD_MUTEX_INITIALIZER;
static char *bsend_base;
static size_t bsend_size;
static bsend_block_t *bsend_blocks;

/* Drops blocks whose sends finished.  Caller holds the lock. */
static void bsend_reclaim(void) {
  bsend_block_t **link = &bsend_blocks;
  while (*link) {
    bsend_block_t *b = *link;
    if (b->req && hcomm_request_done(b->req)) {
      *link = b->next;
      hcomm_request_free(b->req);
      free(b);
    } else {
      link = &b->next;
    }
  }
}

/* First fit of need bytes; links a fresh block or returns NULL.  Caller
 * holds the lock. */
static bsend_block_t *bsend_reserve(size_t need) {
  size_t start = 0;
  bsend_block_t **link = &bsend_blocks;
  for (;;) {
    bsend_block_t *next = *link;
    size_t end = next ? next->offset : bsend_size;
    if (end >= start && end - start >= need)
      break;
    if (!next)
      return NULL;
    start = next->offset + next->length;
    link = &next->next;
  }
  bsend_block_t *b = malloc(sizeof(*b));
  if (!b)
    return NULL;
  b->offset = start;
  b->length = need;
  b->req = NULL;
  b->next = *link;
  *link = b;
  return b;
}

static void bsend_unlink(bsend_block_t *victim) {
  for (bsend_block_t **link = &bsend_blocks; *link; link = &(*link)->next) {
    if (*link == victim) {
      *link = victim->next;
      free(victim);
      return;
    }
  }
}

static size_t bsend_in_use(void) {
  size_t n = 0;
  for (bsend_block_t *b = bsend_blocks; b; b = b->next)
    n += b->length;
  return n;
}

int hc_mpi_bsend(const char *fn, hc_mpi_comm_t *c, const void *buf,
                 size_t bytes, int dest, int tag) {
  return hc_mpi_bsend_typed(fn, c, buf, (MPI_Count)bytes,
                            hc_mpi_type_get(MPI_BYTE), dest, tag);
}

int hc_mpi_bsend_typed(const char *fn, hc_mpi_comm_t *c, const void *buf,
                       MPI_Count count, const hc_mpi_type_t *type, int dest,
                       int tag) {
  size_t bytes = (size_t)(count * type->size);
  size_t need = bytes + MPI_BSEND_OVERHEAD;
  pthread_mutex_lock(&bsend_lock);
  if (!bsend_base) {
    pthread_mutex_unlock(&bsend_lock);
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "no buffer attached for a buffered send of %zu bytes",
                        bytes);
  }
  bsend_reclaim();
  bsend_block_t *b = bsend_reserve(need);
  /* Full: earlier buffered sends may be done but not yet known to be
   * (their last packets wait for a poll).  Poll and look again, twice, as
   * MPICH does, before calling the buffer too small. */
  for (int pass = 0; !b && pass < 2 && bsend_blocks; pass++) {
    pthread_mutex_unlock(&bsend_lock);
    hcomm_progress();
    pthread_mutex_lock(&bsend_lock);
    bsend_reclaim();
    b = bsend_reserve(need);
  }
  if (!b) {
    size_t size = bsend_size, used = bsend_in_use();
    pthread_mutex_unlock(&bsend_lock);
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "attached buffer of %zu bytes (%zu in use) cannot "
                        "hold %zu bytes plus %d bytes overhead",
                        size, used, bytes, MPI_BSEND_OVERHEAD);
  }
  char *payload = bsend_base + b->offset + MPI_BSEND_OVERHEAD;
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
    bsend_unlink(b);
  pthread_mutex_unlock(&bsend_lock);
  return hc_mpi_raise_status(c, fn, st);
}

void hc_mpi_bsend_drain(void) {
  for (;;) {
    pthread_mutex_lock(&bsend_lock);
    bsend_block_t *b = bsend_blocks;
    if (b)
      bsend_blocks = b->next;
    pthread_mutex_unlock(&bsend_lock);
    if (!b)
      return;
    if (b->req) {
      hcomm_wait(b->req, NULL);
      hcomm_request_free(b->req);
    }
    free(b);
  }
}

static int buffer_attach(const char *fn, void *buffer, MPI_Count size) {
  int rc = hc_mpi_check_ready(fn);
  if (rc != MPI_SUCCESS)
    return rc;
  if (size < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid size %lld",
                        (long long)size);
  if (!buffer && size > 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_BUFFER, "buffer is NULL");
  pthread_mutex_lock(&bsend_lock);
  if (bsend_base) {
    pthread_mutex_unlock(&bsend_lock);
    return hc_mpi_raise(NULL, fn, MPI_ERR_BUFFER,
                        "a buffer is already attached; detach it first");
  }
  /* A zero-sized region is still "attached" (it just holds nothing). */
  bsend_base = buffer ? buffer : (char *)&bsend_size;
  bsend_size = (size_t)size;
  pthread_mutex_unlock(&bsend_lock);
  return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size) {
  return buffer_attach("MPI_Buffer_attach", buffer, size);
}
HC_WEAK_ALIAS(MPI_Buffer_attach, PMPI_Buffer_attach);

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size) {
  return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
HC_WEAK_ALIAS(MPI_Buffer_attach_c, PMPI_Buffer_attach_c);

/* size_arg: the caller's size argument, checked; *size: the result. */
static int buffer_detach(const char *fn, void *buffer_addr,
                         const void *size_arg, MPI_Count *size) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, buffer_addr, "buffer_addr");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, size_arg, "size");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_bsend_drain();
  pthread_mutex_lock(&bsend_lock);
  void *base = bsend_base == (char *)&bsend_size ? NULL : bsend_base;
  MPI_Count n = (MPI_Count)bsend_size;
  bsend_base = NULL;
  bsend_size = 0;
  pthread_mutex_unlock(&bsend_lock);
  *(void **)buffer_addr = base;
  *size = base || n ? n : 0;
  return MPI_SUCCESS;
}

/* A region too large for an int is still detached; its size reads
 * MPI_UNDEFINED, as MPI has sizes that int cannot hold reported. */
int PMPI_Buffer_detach(void *buffer_addr, int *size) {
  MPI_Count n = 0;
  int rc = buffer_detach("MPI_Buffer_detach", buffer_addr, size, &n);
  if (rc == MPI_SUCCESS)
    *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
  return rc;
}
HC_WEAK_ALIAS(MPI_Buffer_detach, PMPI_Buffer_detach);

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) {
  return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size, size);
}
HC_WEAK_ALIAS(MPI_Buffer_detach_c, PMPI_Buffer_detach_c);

/* MPI_Bsend: the checks of a send, then the copy into the attached
 * buffer, from which the engine sends. */
static int bsend_body(const char *fn, const void *buf, MPI_Count count,
                      MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
    return rc;
  return hc_mpi_bsend_typed(
      fn, c, buf, count, hc_mpi_type_get(hc_mpi_message_type(datatype, count)),
      dest, tag);
}

/* Traced entry (mpi_trace.h). */
static int bsend_traced(const char *fn, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = bsend_body(fn, buf, count, datatype, dest, tag, comm);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_BSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm) {
  return bsend_traced("MPI_Bsend", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend, PMPI_Bsend);

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm) {
  return bsend_traced("MPI_Bsend_c", buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPI_Bsend_c, PMPI_Bsend_c);

/* MPI_Ibsend: MPI_Bsend's work, then a request already complete. */
static int ibsend_body(const char *fn, const void *buf, MPI_Count count,
                       MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  size_t bytes = 0;
  int rc = hc_mpi_comm_enter(fn, comm, &c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_send(fn, c, buf, count, datatype, dest, tag, &bytes);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
    rc = hc_mpi_bsend_typed(
        fn, c, buf, count,
        hc_mpi_type_get(hc_mpi_message_type(datatype, count)), dest, tag);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The data now sits in the attached buffer: the send is complete. */
  hcomm_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, HC_OK};
  return hc_mpi_request_new_done(fn, c, &st, request);
}

/* Traced entry (mpi_trace.h). */
static int ibsend_traced(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = ibsend_body(fn, buf, count, datatype, dest, tag, comm, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IBSEND, t0, dest, tag,
                               hc_mpi_trace_bytes(count, datatype))
            : rc;
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request) {
  return ibsend_traced("MPI_Ibsend", buf, count, datatype, dest, tag, comm,
                       request);
}
HC_WEAK_ALIAS(MPI_Ibsend, PMPI_Ibsend);

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return ibsend_traced("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm,
                       request);
}
HC_WEAK_ALIAS(MPI_Ibsend_c, PMPI_Ibsend_c);
