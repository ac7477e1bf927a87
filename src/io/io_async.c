/*
 * Independent non-blocking file accesses (MPI_File_iread, iwrite, _at,
 * _shared): on the kernel's io_uring where it is there (io_ring.c), many
 * in flight at once, else on one worker thread.
 *
 * The call does what must happen in order: it checks the arguments, packs
 * and converts the data of a write (so device buffers are staged by the
 * calling thread, as everywhere else), and moves the individual or shared
 * file pointer by the amount requested, as the standard asks.  The bytes
 * then move on the worker, which pwrites / preads the stream and completes
 * the request (a generalized request, so every wait and test works on it).
 * A read is finished (unpacked, converted) by the thread that completes
 * the request, in its query function, or when the request is freed.
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

typedef struct io_job {
  struct io_job *next;
  MPI_File f;
  const char *fn;
  int write;
  hc_io_mem_t m;
  MPI_Offset pos, n;
  MPI_Request req;
  hc_io_ring_op_t *ring; /* on the ring until its runs are done */
  /* set by the worker before it completes the request */
  int err;         /* errno */
  MPI_Offset done; /* stream bytes moved */
  /* set by the thread that finishes it */
  int finished;
  int cls;
  MPI_Offset mem_bytes;
} io_job_t;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

/* The engine's and the library's locks become real, once, before the
 * first thread of ours that calls into the library starts (once it runs
 * it reads the switch, so turning it on again would race). */
void hc_io_threads_on(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, hcomm_threads_enable);
}
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static io_job_t *queue_head, *queue_tail;
static int worker_started;

static void *worker_main(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&queue_lock);
    while (!queue_head)
      pthread_cond_wait(&queue_cond, &queue_lock);
    io_job_t *j = queue_head;
    queue_head = j->next;
    if (!queue_head)
      queue_tail = NULL;
    pthread_mutex_unlock(&queue_lock);
    if (j->write) {
      j->err = hc_io_stream_write(j->f, j->pos, j->m.stream, j->n);
      j->done = j->err ? 0 : j->n;
    } else {
      j->err = hc_io_stream_read(j->f, j->pos, j->m.stream, j->n, &j->done);
    }
    PMPI_Grequest_complete(j->req);
  }
  return NULL;
}

/* Queues j, starting the worker the first time; 0 or -1. */
static int queue_push(io_job_t *j) {
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
    j->next = NULL;
    if (queue_tail)
      queue_tail->next = j;
    else
      queue_head = j;
    queue_tail = j;
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

/* On the ring's thread, once every run of j is done. */
static void ring_job_done(void *arg) {
  io_job_t *j = arg;
  MPI_Offset moved = 0;
  j->err = hc_io_ring_result(j->ring, &moved);
  j->done = j->write ? (j->err ? 0 : j->n) : moved;
  hc_io_ring_free(j->ring);
  j->ring = NULL;
  PMPI_Grequest_complete(j->req);
}

/* Puts j's runs on the ring; 0, or -1 when j is for the worker. */
static int ring_push(io_job_t *j) {
  if (j->f->atomic || !hc_io_ring_usable())
    return -1;
  size_t runs = 0;
  (void)hc_io_view_walk(j->f, j->pos, j->n, ring_count_run, &runs);
  if (runs > RING_MANY_RUNS && j->n / (MPI_Offset)runs < RING_SMALL_RUN)
    return -1;
  hc_io_ring_op_t *op = hc_io_ring_new(j->f->fd, j->write, j->m.stream, runs,
                                       ring_job_done, j);
  if (!op)
    return -1;
  (void)hc_io_view_walk(j->f, j->pos, j->n, ring_add_run, op);
  hc_io_threads_on(); /* the ring's thread completes requests */
  j->ring = op;
  if (hc_io_ring_start(op) != 0) {
    j->ring = NULL;
    hc_io_ring_free(op);
    return -1;
  }
  return 0;
}

/* The outcome of a job whose bytes have moved: a read goes into the
 * user's buffer.  Runs once. */
static void job_finish(io_job_t *j) {
  if (j->finished)
    return;
  j->finished = 1;
  j->mem_bytes = j->write ? (MPI_Offset)(j->m.t->size * j->m.count) : 0;
  j->cls = j->err ? hc_io_class_of_errno(j->err) : MPI_SUCCESS;
  if (!j->write && j->cls == MPI_SUCCESS)
    j->cls = hc_io_mem_finish_read(j->f, &j->m, j->done, &j->mem_bytes);
}

static int job_query(void *extra, MPI_Status *status) {
  io_job_t *j = extra;
  int first = !j->finished;
  job_finish(j);
  hc_io_status_of(status, j->cls == MPI_SUCCESS ? j->mem_bytes : 0);
  if (j->cls != MPI_SUCCESS && first)
    return hc_io_raise(j->f, j->fn, j->cls, "%s %s at stream byte %ld",
                       j->write ? "writing" : "reading", j->f->path,
                       (long)j->pos);
  return j->cls;
}

static int job_free(void *extra) {
  io_job_t *j = extra;
  job_finish(j); /* a request freed before its wait still lands its data */
  hc_io_mem_free(&j->m);
  free(j);
  return MPI_SUCCESS;
}

/* The bytes of a started access cannot be called back. */
static int job_cancel(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

int hc_io_async_start(const char *fn, MPI_File f, const io_how_t *how,
                      MPI_Offset offset, void *buf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Request *request) {
  const hc_mpi_type_t *t = NULL;
  int rc = hc_io_access_check(fn, f, how, buf, count, datatype, &t);
  if (rc != MPI_SUCCESS)
    return rc;
  io_job_t *j = calloc(1, sizeof(*j));
  if (!j)
    return hc_io_raise(f, fn, MPI_ERR_NO_MEM, "out of memory");
  *j = (io_job_t){.f = f, .fn = fn, .write = how->write};
  j->m = (hc_io_mem_t){t, datatype, buf, count, 0, NULL, NULL, NULL};
  int cls = hc_io_mem_prepare(f, &j->m, how->write);
  if (cls != MPI_SUCCESS) {
    hc_io_mem_free(&j->m);
    free(j);
    return hc_io_raise(f, fn, cls, "preparing %ld elements", (long)count);
  }
  MPI_Offset start = 0, etypes = j->m.fbytes / f->esize;
  rc = hc_io_access_place(fn, f, how, offset, etypes, &start);
  if (rc == MPI_SUCCESS)
    rc = hc_io_request_new(job_query, job_free, job_cancel, j, &j->req);
  if (rc != MPI_SUCCESS) {
    hc_io_mem_free(&j->m);
    free(j);
    return rc;
  }
  /* The individual pointer moves by what was asked, now (MPI-4.0 14.4.3). */
  if (how->where == IO_AT_POINTER)
    f->fp = start + etypes;
  j->pos = start * f->esize;
  j->n = j->m.fbytes;
  *request = j->req;
  if (ring_push(j) != 0 && queue_push(j) != 0) {
    /* No thread: the bytes move here and the request completes now. */
    j->err = how->write
                 ? hc_io_stream_write(f, j->pos, j->m.stream, j->n)
                 : hc_io_stream_read(f, j->pos, j->m.stream, j->n, &j->done);
    j->done = how->write && !j->err ? j->n : j->done;
    PMPI_Grequest_complete(j->req);
  }
  return MPI_SUCCESS;
}
