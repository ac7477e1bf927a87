/*
 * Where independent non-blocking file accesses (MPI_File_iread, iwrite,
 * _at, _shared) move their bytes: on the kernel's io_uring where it is
 * there (io_ring.c), many in flight at once, else on one worker thread.
 *
 * The access is started, moved and ended by the one access code
 * (io_access.c): hc_io_start checks, prepares the memory side (so device
 * buffers are staged by the calling thread, as everywhere else) and moves
 * the individual or shared file pointer by the amount requested; then
 * hc_io_async_push hands the op here.  The worker moves it with
 * hc_io_op_move, as a blocking access would; the ring moves the same view
 * runs in the kernel.  Either completes op->req (a generalized request,
 * so every wait and test works on it), and the thread that completes the
 * request ends the op (lands a read, reports a failure).
 *
 * The worker starts with the first such access; the engine's and the
 * library's locks are turned on before it (hcomm_threads_enable), since
 * from then on two threads may be inside the library.  It sleeps on a
 * condition variable when the queue is empty.  Collective non-blocking
 * accesses (iread_all, ...) go on their file's own queue (io_collq.c).
 */
#include <pthread.h>
#include <stdlib.h>

#include "hcomm.h"
#include "io/io_access.h"
#include "io/io_ring.h"

/* A view cutting an access into more runs than this, averaging fewer
 * bytes than RING_SMALL_RUN, goes to the worker, which sieves. */
enum { RING_MANY_RUNS = 64, RING_SMALL_RUN = 4096 };

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

/* The engine's and the library's locks become real, once, before the
 * first thread of ours that calls into the library starts (once it runs
 * it reads the switch, so turning it on again would race). */
void hc_io_threads_on(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, hcomm_threads_enable);
}
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static hc_io_op_t *queue_head, *queue_tail;
static int worker_started;

static void *worker_main(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&queue_lock);
    while (!queue_head)
      pthread_cond_wait(&queue_cond, &queue_lock);
    hc_io_op_t *op = queue_head;
    queue_head = op->next;
    if (!queue_head)
      queue_tail = NULL;
    pthread_mutex_unlock(&queue_lock);
    hc_io_op_move(op);
    PMPI_Grequest_complete(op->req);
  }
  return NULL;
}

/* Queues op, starting the worker the first time; 0 or -1. */
static int queue_push(hc_io_op_t *op) {
  pthread_mutex_lock(&queue_lock);
  int rc = 0;
  if (!worker_started) {
    hc_io_threads_on();
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&t, &attr, worker_main, NULL) == 0 ? 0 : -1;
    pthread_attr_destroy(&attr);
    worker_started = rc == 0;
  }
  if (rc == 0) {
    op->next = NULL;
    if (queue_tail)
      queue_tail->next = op;
    else
      queue_head = op;
    queue_tail = op;
    pthread_cond_signal(&queue_cond);
  }
  pthread_mutex_unlock(&queue_lock);
  return rc;
}

/* ---- on the ring --------------------------------------------------------- */

static int ring_count_run(void *ctx, MPI_Offset off, MPI_Offset len,
                          MPI_Offset at) {
  (void)off;
  (void)len;
  (void)at;
  ++*(size_t *)ctx;
  return 0;
}

static int ring_add_run(void *ctx, MPI_Offset off, MPI_Offset len,
                        MPI_Offset at) {
  hc_io_ring_add(ctx, off, len, at);
  return 0;
}

/* On the ring's thread, once every run of op is done: the outcome
 * hc_io_op_move would have given. */
static void ring_op_done(void *arg) {
  hc_io_op_t *op = arg;
  MPI_Offset moved = 0;
  op->err = hc_io_ring_result(op->ring, &moved);
  op->done = op->how.write ? (op->err ? 0 : op->n) : moved;
  hc_io_ring_free(op->ring);
  op->ring = NULL;
  PMPI_Grequest_complete(op->req);
}

/* Puts op's runs on the ring; 0, or -1 when op is for the worker. */
static int ring_push(hc_io_op_t *op) {
  MPI_File f = op->f;
  if (f->atomic || !hc_io_ring_usable())
    return -1;
  size_t runs = 0;
  (void)hc_io_view_walk(f, op->pos, op->n, ring_count_run, &runs);
  if (runs > RING_MANY_RUNS && op->n / (MPI_Offset)runs < RING_SMALL_RUN)
    return -1;
  hc_io_ring_op_t *ring = hc_io_ring_new(f->fd, op->how.write, op->m.stream,
                                         runs, ring_op_done, op);
  if (!ring)
    return -1;
  (void)hc_io_view_walk(f, op->pos, op->n, ring_add_run, ring);
  hc_io_threads_on(); /* the ring's thread completes requests */
  op->ring = ring;
  if (hc_io_ring_start(ring) != 0) {
    op->ring = NULL;
    hc_io_ring_free(ring);
    return -1;
  }
  return 0;
}

void hc_io_async_push(hc_io_op_t *op) {
  if (ring_push(op) == 0 || queue_push(op) == 0)
    return;
  /* No thread: the bytes move here and the request completes now. */
  hc_io_op_move(op);
  PMPI_Grequest_complete(op->req);
}
