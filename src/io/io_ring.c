/*
 * io_uring without liburing: the three system calls and the two shared
 * rings, which is all this needs (liburing's helpers are inline functions
 * over the same kernel ABI, and linking it would make every program load
 * one more library for a path most never take).
 *
 * One ring per process, made at first use.  Each run of an op is one
 * READV / WRITEV entry (these two exist since io_uring's first kernel);
 * its user_data names the run.  A run the kernel moved only in part (a
 * short transfer, or the 1 GiB cap on one entry) goes back in for the
 * rest; a read that returns 0 met the end of the file and ends short.
 * Runs wait in the op until the submission queue has room and fewer runs
 * are in flight than the completion queue holds, so no completion can be
 * dropped.
 *
 * Threads: the caller of hc_io_ring_start fills the submission ring; one
 * reaper thread sleeps in io_uring_enter for completions, collects them
 * and calls each finished op's done_fn outside the lock.  One mutex covers
 * the rings' shared indexes and the op lists; the reaper sleeps without
 * it, which is safe because no other thread reads the completion ring.
 */
#define _GNU_SOURCE
#include "io/io_ring.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/env.h"

enum { RING_ENTRIES = 64 };
#define RING_MAX_ENTRY ((MPI_Offset)1 << 30) /* bytes one entry may ask */

typedef struct ring_run {
  hc_io_ring_op_t *op;
  MPI_Offset off, len, at;
  MPI_Offset moved; /* bytes done so far */
  struct iovec iov; /* what the entry in flight asks */
  int finished;
} ring_run_t;

struct hc_io_ring_op {
  int fd;
  int write;
  char *buf;
  size_t nruns, added;
  size_t next;      /* first run not yet handed to the kernel */
  size_t finished;  /* runs done */
  int err;          /* first errno */
  int queued;       /* on the waiting list */
  hc_io_ring_op_t *queue_next;
  hc_io_ring_op_t *live_prev, *live_next; /* started, not finished */
  hc_io_ring_op_t *done_next;             /* finished, not yet told */
  void (*done_fn)(void *arg);
  void *done_arg;
  ring_run_t runs[];
};

static struct {
  int fd;
  /* submission ring */
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
  struct io_uring_sqe *sqes;
  /* completion ring */
  unsigned *cq_head, *cq_tail, *cq_mask;
  struct io_uring_cqe *cqes;
  unsigned sq_entries, cq_entries;
  unsigned in_flight;
  hc_io_ring_op_t *queue_head, *queue_tail; /* ops with runs to hand in */
  hc_io_ring_op_t *live;      /* ops started and not finished */
  hc_io_ring_op_t *done_head; /* finished ops the reaper has to tell */
  int reaper_started;
} ring = {.fd = -1};

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static int sys_setup(unsigned entries, struct io_uring_params *p) {
  return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(unsigned submit, unsigned min_complete, unsigned flags) {
  return (int)syscall(__NR_io_uring_enter, ring.fd, submit, min_complete,
                      flags, NULL, 0);
}

static void *ring_map(size_t len, off_t what) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_POPULATE, ring.fd, what);
  return p == MAP_FAILED ? NULL : p;
}

/* Maps the rings of a new ring fd; 0 or -1 (the fd is closed). */
static int ring_map_all(const struct io_uring_params *p) {
  size_t sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
  size_t cq_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
  int single = (p->features & IORING_FEAT_SINGLE_MMAP) != 0;
  if (single && cq_len > sq_len)
    sq_len = cq_len;
  char *sq = ring_map(sq_len, IORING_OFF_SQ_RING);
  char *cq = single || !sq ? sq : ring_map(cq_len, IORING_OFF_CQ_RING);
  void *sqes = cq ? ring_map(p->sq_entries * sizeof(struct io_uring_sqe),
                             IORING_OFF_SQES)
                  : NULL;
  if (!sqes) {
    if (cq && cq != sq)
      munmap(cq, cq_len);
    if (sq)
      munmap(sq, sq_len);
    close(ring.fd);
    ring.fd = -1;
    return -1;
  }
  ring.sq_head = (unsigned *)(sq + p->sq_off.head);
  ring.sq_tail = (unsigned *)(sq + p->sq_off.tail);
  ring.sq_mask = (unsigned *)(sq + p->sq_off.ring_mask);
  ring.sq_array = (unsigned *)(sq + p->sq_off.array);
  ring.cq_head = (unsigned *)(cq + p->cq_off.head);
  ring.cq_tail = (unsigned *)(cq + p->cq_off.tail);
  ring.cq_mask = (unsigned *)(cq + p->cq_off.ring_mask);
  ring.cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);
  ring.sqes = sqes;
  ring.sq_entries = p->sq_entries;
  ring.cq_entries = p->cq_entries;
  return 0;
}

/* The ring lives until the process ends: the kernel drops it with the
 * fd, and an op still in flight at exit has nothing left to tell. */
static void ring_make(void) {
  if (!hc_env_bool("HCMPI_IO_URING", 1))
    return;
  struct io_uring_params p;
  memset(&p, 0, sizeof(p));
  ring.fd = sys_setup(RING_ENTRIES, &p);
  if (ring.fd < 0) {
    ring.fd = -1;
    return;
  }
  (void)ring_map_all(&p);
}

int hc_io_ring_usable(void) {
  pthread_once(&ring_once, ring_make);
  return ring.fd >= 0;
}

hc_io_ring_op_t *hc_io_ring_new(int fd, int write, char *buf, size_t nruns,
                                void (*done_fn)(void *arg), void *done_arg) {
  hc_io_ring_op_t *op = calloc(1, sizeof(*op) + nruns * sizeof(ring_run_t));
  if (!op)
    return NULL;
  op->fd = fd;
  op->write = write;
  op->buf = buf;
  op->nruns = nruns;
  op->done_fn = done_fn;
  op->done_arg = done_arg;
  return op;
}

void hc_io_ring_add(hc_io_ring_op_t *op, MPI_Offset off, MPI_Offset len,
                    MPI_Offset at) {
  op->runs[op->added++] = (ring_run_t){.op = op, .off = off, .len = len,
                                       .at = at};
}

/* Puts one entry for the rest of run r in the submission ring (the caller
 * checked there is room). */
static void ring_put(ring_run_t *r) {
  MPI_Offset ask = r->len - r->moved;
  if (ask > RING_MAX_ENTRY)
    ask = RING_MAX_ENTRY;
  r->iov.iov_base = r->op->buf + r->at + r->moved;
  r->iov.iov_len = (size_t)ask;
  unsigned tail = *ring.sq_tail;
  unsigned slot = tail & *ring.sq_mask;
  struct io_uring_sqe *e = &ring.sqes[slot];
  memset(e, 0, sizeof(*e));
  e->opcode = r->op->write ? IORING_OP_WRITEV : IORING_OP_READV;
  e->fd = r->op->fd;
  e->addr = (uint64_t)(uintptr_t)&r->iov;
  e->len = 1;
  e->off = (uint64_t)(r->off + r->moved);
  e->user_data = (uint64_t)(uintptr_t)r;
  ring.sq_array[slot] = slot;
  __atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
  ring.in_flight++;
}

/* Entries in the submission ring the kernel has not taken yet. */
static unsigned ring_unsubmitted(void) {
  return *ring.sq_tail - __atomic_load_n(ring.sq_head, __ATOMIC_ACQUIRE);
}

/* Hands every unsubmitted entry to the kernel and, with min_complete,
 * sleeps until that many completions are there; what io_uring_enter
 * returns (a refused submission stays in the ring for the next call). */
static int ring_enter(unsigned min_complete, unsigned flags) {
  int n;
  do
    n = sys_enter(ring_unsubmitted(), min_complete, flags);
  while (n < 0 && errno == EINTR);
  return n;
}

static int ring_has_room(void) {
  return ring_unsubmitted() < ring.sq_entries && ring.in_flight < ring.cq_entries;
}

static void queue_push(hc_io_ring_op_t *op) {
  if (op->queued)
    return;
  op->queued = 1;
  op->queue_next = NULL;
  if (ring.queue_tail)
    ring.queue_tail->queue_next = op;
  else
    ring.queue_head = op;
  ring.queue_tail = op;
}

/* Moves queued runs into the submission ring while it has room and hands
 * them to the kernel.  What the kernel refuses now stays in the ring and
 * goes with the next call. */
static void ring_feed(void) {
  while (ring.queue_head && ring_has_room()) {
    hc_io_ring_op_t *op = ring.queue_head;
    ring_put(&op->runs[op->next++]);
    if (op->next == op->nruns) {
      op->queued = 0;
      ring.queue_head = op->queue_next;
      if (!ring.queue_head)
        ring.queue_tail = NULL;
    }
  }
  if (ring_unsubmitted() > 0)
    (void)ring_enter(0, 0);
}

/* Every run of op is done: it goes on the list the reaper reports. */
static void op_finished(hc_io_ring_op_t *op) {
  if (op->live_prev)
    op->live_prev->live_next = op->live_next;
  else
    ring.live = op->live_next;
  if (op->live_next)
    op->live_next->live_prev = op->live_prev;
  op->done_next = ring.done_head;
  ring.done_head = op;
}

/* A run is done (or failed): counts it towards its op. */
static void run_finish(ring_run_t *r, int err) {
  if (r->finished)
    return;
  r->finished = 1;
  if (err && !r->op->err)
    r->op->err = err;
  if (++r->op->finished == r->op->nruns)
    op_finished(r->op);
}

/* One completion: the run is done, failed, or goes back in for the rest
 * (short transfer; a write that moved nothing is a full device). */
static void ring_complete(const struct io_uring_cqe *c) {
  ring_run_t *r = (ring_run_t *)(uintptr_t)c->user_data;
  ring.in_flight--;
  if (c->res < 0 && c->res != -EINTR && c->res != -EAGAIN) {
    run_finish(r, -c->res);
    return;
  }
  if (c->res == 0) {
    run_finish(r, r->op->write ? ENOSPC : 0);
    return;
  }
  r->moved += c->res > 0 ? c->res : 0;
  if (r->moved >= r->len) {
    run_finish(r, 0);
    return;
  }
  /* The rest of this run (or all of it again, after EINTR / EAGAIN)
   * goes in now: this completion just freed its place. */
  if (ring_unsubmitted() >= ring.sq_entries)
    (void)ring_enter(0, 0);
  if (ring_unsubmitted() >= ring.sq_entries)
    run_finish(r, EAGAIN); /* the kernel takes nothing: give up the run */
  else
    ring_put(r);
}

/* Fails every run the kernel holds or that waits in the queue. */
static void ring_fail_all(int err) {
  for (hc_io_ring_op_t *op = ring.queue_head; op; op = op->queue_next)
    while (op->next < op->nruns)
      run_finish(&op->runs[op->next++], err);
  ring.queue_head = ring.queue_tail = NULL;
  while (ring.live) {
    hc_io_ring_op_t *op = ring.live;
    for (size_t i = 0; i < op->nruns; i++)
      run_finish(&op->runs[i], err); /* the last one unlinks op */
  }
  ring.in_flight = 0;
}

/* Empties the completion ring. */
static void ring_collect(void) {
  unsigned head = *ring.cq_head;
  while (head != __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE)) {
    struct io_uring_cqe c = ring.cqes[head & *ring.cq_mask];
    head++;
    __atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
    ring_complete(&c);
  }
}

/* The reaper: sleeps until ops are live, then in the kernel until
 * completions come, collects them and tells each op that finished.  The
 * only thread that reads the completion ring, so its sleep needs no lock:
 * nobody else can take the completion it waits for. */
static void *ring_reaper(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&ring_lock);
    while (!ring.live && !ring.done_head)
      pthread_cond_wait(&ring_cond, &ring_lock);
    int sleep = ring.done_head == NULL;
    pthread_mutex_unlock(&ring_lock);
    int n = sleep ? sys_enter(0, 1, IORING_ENTER_GETEVENTS) : 0;
    pthread_mutex_lock(&ring_lock);
    if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
      ring_fail_all(errno); /* the kernel will not wait for us any more */
    ring_collect();
    ring_feed();
    hc_io_ring_op_t *done = ring.done_head;
    ring.done_head = NULL;
    pthread_mutex_unlock(&ring_lock);
    while (done) {
      hc_io_ring_op_t *next = done->done_next;
      done->done_fn(done->done_arg);
      done = next;
    }
  }
  return NULL;
}

/* Starts the reaper the first time; 0 or -1. */
static int reaper_start(void) {
  if (ring.reaper_started)
    return 0;
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, ring_reaper, NULL) == 0 ? 0 : -1;
  pthread_attr_destroy(&attr);
  ring.reaper_started = rc == 0;
  return rc;
}

int hc_io_ring_start(hc_io_ring_op_t *op) {
  op->nruns = op->added;
  pthread_mutex_lock(&ring_lock);
  int rc = reaper_start();
  if (rc == 0) {
    op->live_next = ring.live;
    if (ring.live)
      ring.live->live_prev = op;
    ring.live = op;
    if (op->nruns > 0)
      queue_push(op);
    else
      op_finished(op);
    ring_feed();
    pthread_cond_signal(&ring_cond);
  }
  pthread_mutex_unlock(&ring_lock);
  return rc;
}

int hc_io_ring_result(const hc_io_ring_op_t *op, MPI_Offset *moved) {
  MPI_Offset total = 0;
  for (size_t i = 0; i < op->nruns; i++) {
    total += op->runs[i].moved;
    if (op->runs[i].moved < op->runs[i].len)
      break;
  }
  *moved = total;
  return op->err;
}

void hc_io_ring_free(hc_io_ring_op_t *op) { free(op); }
