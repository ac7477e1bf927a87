/*
 * The file's queue of collective accesses: non-blocking (iread_all, ...)
 * and split collective ones move their bytes in the background, on a
 * thread of the file's own, while the application computes.
 *
 * MPI-4.0 14.6.4 has every rank of a file start its collective accesses
 * in the same order, so one thread per file that moves them one at a time
 * in that order meets the same access on every rank.  One thread for all
 * files would not do: two files of the same ranks may see their
 * collectives started in different orders on different ranks (legal on
 * different communicators), and a single thread would wait on one file
 * while a peer's waits on the other.  The thread talks over the file's
 * coll_comm only, which no other thread uses while the queue is not
 * empty, so its messages never meet the application's or those of the
 * file's other collectives (set_view, sync, ... on f->comm).
 *
 * A blocking collective goes through the queue too, so it moves after
 * those started before it; with an empty queue it moves on the calling
 * thread and no thread is made.  The thread starts with the first
 * background access, after the library's locks are turned on
 * (hc_io_threads_on), and ends when the file is closed.
 */
#include <pthread.h>
#include <stdlib.h>

#include "io/io_access.h"

struct hc_io_collq {
  pthread_mutex_t lock;
  pthread_cond_t work;  /* the thread: something queued, or stop */
  pthread_cond_t moved; /* waiters: an access has moved */
  hc_io_op_t *head, *tail;
  int busy; /* an access is moving (on the thread or a caller) */
  int stop;
  int thread_started;
  pthread_t thread;
};

/* f's queue, made on first use (by the thread that starts collectives on
 * f, so without a race); NULL when out of memory. */
static struct hc_io_collq *collq_of(MPI_File f) {
  if (f->collq)
    return f->collq;
  struct hc_io_collq *q = calloc(1, sizeof(*q));
  if (!q)
    return NULL;
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->moved, NULL);
  f->collq = q;
  return q;
}

/* Marks op moved and wakes its waiters; returns the request to complete
 * (op may be gone once the lock is released, if it has none). */
static MPI_Request collq_mark_moved(struct hc_io_collq *q, hc_io_op_t *op) {
  pthread_mutex_lock(&q->lock);
  MPI_Request req = op->req;
  op->moved = 1;
  q->busy = 0;
  pthread_cond_broadcast(&q->moved);
  pthread_mutex_unlock(&q->lock);
  return req;
}

static void *collq_main(void *arg) {
  struct hc_io_collq *q = arg;
  pthread_mutex_lock(&q->lock);
  for (;;) {
    while (!q->head && !q->stop)
      pthread_cond_wait(&q->work, &q->lock);
    if (!q->head)
      break;
    hc_io_op_t *op = q->head;
    q->head = op->next;
    if (!q->head)
      q->tail = NULL;
    q->busy = 1;
    pthread_mutex_unlock(&q->lock);
    hc_io_op_move(op);
    MPI_Request req = collq_mark_moved(q, op);
    if (req != MPI_REQUEST_NULL)
      PMPI_Grequest_complete(req);
    pthread_mutex_lock(&q->lock);
  }
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

/* Moves op on the calling thread and completes it. */
static void collq_move_here(hc_io_op_t *op) {
  hc_io_op_move(op);
  op->moved = 1;
  if (op->req != MPI_REQUEST_NULL)
    PMPI_Grequest_complete(op->req);
}

void hc_io_collq_push(hc_io_op_t *op) {
  struct hc_io_collq *q = collq_of(op->f);
  if (!q) {
    collq_move_here(op);
    return;
  }
  pthread_mutex_lock(&q->lock);
  if (!q->thread_started) {
    hc_io_threads_on(); /* two threads may be inside the library now */
    q->thread_started = pthread_create(&q->thread, NULL, collq_main, q) == 0;
  }
  if (!q->thread_started) {
    /* No thread: in order after what is queued (nothing is), here. */
    pthread_mutex_unlock(&q->lock);
    collq_move_here(op);
    return;
  }
  op->next = NULL;
  op->moved = 0;
  if (q->tail)
    q->tail->next = op;
  else
    q->head = op;
  q->tail = op;
  pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->lock);
}

void hc_io_collq_wait(hc_io_op_t *op) {
  struct hc_io_collq *q = op->f->collq;
  if (!q) /* no queue: it moved in the call that started it */
    return;
  pthread_mutex_lock(&q->lock);
  while (!op->moved)
    pthread_cond_wait(&q->moved, &q->lock);
  pthread_mutex_unlock(&q->lock);
}

void hc_io_collq_run(hc_io_op_t *op) {
  struct hc_io_collq *q = op->f->collq;
  if (q) {
    pthread_mutex_lock(&q->lock);
    int idle = !q->head && !q->busy;
    q->busy |= idle; /* the thread leaves coll_comm to us meanwhile */
    pthread_mutex_unlock(&q->lock);
    if (!idle) {
      hc_io_collq_push(op);
      hc_io_collq_wait(op);
      return;
    }
  }
  hc_io_op_move(op);
  if (q)
    (void)collq_mark_moved(q, op);
}

void hc_io_collq_drain(MPI_File f) {
  struct hc_io_collq *q = f->collq;
  if (!q)
    return;
  pthread_mutex_lock(&q->lock);
  while (q->head || q->busy)
    pthread_cond_wait(&q->moved, &q->lock);
  pthread_mutex_unlock(&q->lock);
}

void hc_io_collq_close(MPI_File f) {
  struct hc_io_collq *q = f->collq;
  if (!q)
    return;
  hc_io_collq_drain(f);
  pthread_mutex_lock(&q->lock);
  q->stop = 1;
  pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->lock);
  if (q->thread_started)
    pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->work);
  pthread_cond_destroy(&q->moved);
  pthread_mutex_destroy(&q->lock);
  free(q);
  f->collq = NULL;
}
