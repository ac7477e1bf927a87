/*
 * Stream-ordered operations (MPICH's MPIX_*_enqueue) on a communicator with
 * one stream attached.
 *
 * Host stream: the operation runs at the call; the calling thread is the
 * stream.  Device stream, device buffer of the stream's device, flag mode
 * (HCMPI_STREAM_DIRECT; the default on Ascend, not on CUDA, where closing
 * the IPC import would wait for the held stream): the call queues a host
 * function that marks the stream's arrival and the wait on the flag; the
 * watcher then starts the operation on the user's buffer as it is (the engine
 * moves it by its device paths: HCCL between Ascend ranks, IPC, ...; a
 * host function could not, as they call the runtime).  Otherwise the
 * call queues, on the application's stream,
 *   - a copy of the device data into pinned host staging (the kernels
 *     queued before it have then finished writing it),
 *   - a host function that starts the operation through the MPI face when
 *     the stream reaches it, and a wait on the stream's flag for the
 *     value the operation was given (its ticket), which the watcher
 *     thread raises once the operation completed: the stream holds later
 *     work without a host function holding the stream;
 *   - for data received, a copy from staging back into device memory, so
 *     the kernels queued after it see the bytes,
 * and returns at once.  Where the runtime has no stream flag (or
 * HCMPI_STREAM_WAIT=hostfn), and for MPIX_Allreduce_enqueue (a
 * nonblocking collective would not match the blocking one another rank's
 * stream runs), the host function runs the whole operation instead and
 * blocks the stream meanwhile.  Host buffers are used as they are.  A
 * host function may not call the runtime, so the staging is freed later,
 * by the application's thread, once a last host function marked the
 * operation done (hc_mpi_enq_reclaim, at each enqueue call and
 * MPIX_Stream_free).
 *
 * The watcher raises a stream's flag in ticket order: to the ticket of
 * the last operation of an unbroken run of completed ones, so a stream
 * never passes an operation that has not completed although a later one
 * did.
 *
 * MPIX_Isend/Irecv_enqueue hand out a generalized request; only
 * MPIX_Wait_enqueue / MPIX_Waitall_enqueue complete it, in stream order.
 * An error of an operation run by the stream goes through the
 * communicator's error handler on that thread; when it returns, the next
 * enqueue call on the stream (or MPIX_Wait_enqueue) reports it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/stream.h"
#include "util/lock.h"

enum enq_kind { ENQ_SEND, ENQ_RECV, ENQ_ISEND, ENQ_IRECV, ENQ_ALLREDUCE };

/* One side of an operation's data: the user's buffer, or its staging. */
typedef struct enq_data {
  void *user;   /* the user's buffer (MPI_IN_PLACE allowed for reduce) */
  void *stage;  /* pinned copy of the span; NULL: the user's is used */
  MPI_Count lb; /* the span starts at user + lb */
  size_t span;  /* bytes from the true lower to the true upper bound */
} enq_data_t;

struct hc_mpi_enq {
  hc_mpi_enq_t *next; /* in the stream's pending list */
  hc_mpi_enq_t *next_waiting;
  hc_mpi_stream_t *stream;
  int kind;
  MPI_Comm comm;
  MPI_Count count;
  MPI_Datatype type; /* a derived type is our own duplicate (own_type) */
  int own_type;
  MPI_Op op;
  int peer, tag;
  enq_data_t data;   /* sent or received data (allreduce: the result) */
  enq_data_t input;  /* allreduce: the contribution */
  MPI_Status status; /* the operation's own */
  MPI_Status *status_out;
  MPI_Request inner; /* I-forms: the operation the stream started */
  MPI_Request greq;  /* I-forms: what the user holds */
  atomic_int done;   /* the stream is past the operation's last piece */
  /* Flag mode: the flag value the stream waits for, and the operation's
   * course as the host function (started) and the watcher (finished,
   * watched: still on the stream's watch list) see it. */
  uint64_t ticket;
  atomic_int started, finished, watched;
  hc_mpi_enq_t *next_watch;
  /* Direct (the user's device buffer, started by the watcher): the
   * stream reached the operation. */
  int direct;
  atomic_int arrived;
  hc_mpi_enq_t *next_start;
};

/* I-form operations whose MPIX_Wait_enqueue has not come yet. */
static pthread_mutex_t enq_waiting_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_mpi_enq_t *enq_waiting;

/* The watcher: one thread that completes the operations streams wait for
 * and raises their flags.  It runs from the first such operation to
 * MPI_Finalize and sleeps while none is watched. */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  hc_mpi_stream_t *streams; /* those with operations watched */
  int running, stop;
  pthread_t thread;
  /* Raising flags: a stream let go by a raise may be freed while the
   * runtime call that raised it has not returned yet (raised: its end). */
  int raising;
  unsigned long raise_rounds; /* raise loops ended */
  pthread_cond_t raised;
} enq_watch = {.lock = PTHREAD_MUTEX_INITIALIZER,
               .wake = PTHREAD_COND_INITIALIZER,
               .raised = PTHREAD_COND_INITIALIZER};

/* Streams whose flags one pass of the watcher raises, at most. */
#define ENQ_WATCH_BATCH 64

/* ---- staging ------------------------------------------------------------ */

/* Where count elements of type at buf lie: *lb and *span in bytes. */
static void enq_span(MPI_Count count, MPI_Datatype type, MPI_Count *lb,
                     size_t *span) {
  MPI_Count tlb = 0, text = 0, elb = 0, ext = 0;
  *lb = 0;
  *span = 0;
  if (count <= 0)
    return;
  PMPI_Type_get_true_extent_x(type, &tlb, &text);
  PMPI_Type_get_extent_x(type, &elb, &ext);
  *lb = tlb;
  *span = (size_t)((count - 1) * ext + text);
}

/* The buffer the operation itself reads or writes. */
static void *enq_buf(const enq_data_t *d) {
  if (d->stage == NULL)
    return d->user;
  return (void *)((uintptr_t)d->stage - (uintptr_t)d->lb);
}

static void *enq_user_span(const enq_data_t *d) {
  return (void *)((uintptr_t)d->user + (uintptr_t)d->lb);
}

/* Stages d when it lies in memory of the stream's device: allocates the
 * staging and queues the copy of the device bytes into it (holes of the
 * type included, so a copy back leaves them as they were). */
static int enq_stage(const char *fn, hc_mpi_comm_t *c, hc_mpi_stream_t *s,
                     enq_data_t *d, MPI_Count count, MPI_Datatype type) {
  hcomm_mem_info_t info;
  if (d->user == MPI_IN_PLACE || d->user == NULL ||
      !hcomm_mem_classify(d->user, &info))
    return MPI_SUCCESS;
  if (info.kind != s->kind)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "buffer %p is memory of another device than the "
                        "communicator's stream",
                        d->user);
  enq_span(count, type, &d->lb, &d->span);
  if (d->span == 0)
    return MPI_SUCCESS;
  hc_status_t st = hcomm_stream_host_alloc(s->engine, d->span, &d->stage);
  if (st == HC_OK)
    st = hcomm_stream_copy(s->engine, d->stage, enq_user_span(d), d->span, 0);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(c, fn, st);
}

/* Queues the copy of received staging back into device memory. */
static int enq_unstage(const char *fn, hc_mpi_comm_t *c, hc_mpi_stream_t *s,
                       const enq_data_t *d) {
  if (d->stage == NULL)
    return MPI_SUCCESS;
  hc_status_t st =
      hcomm_stream_copy(s->engine, enq_user_span(d), d->stage, d->span, 1);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(c, fn, st);
}

static void enq_free(hc_mpi_enq_t *e) {
  if (e->own_type)
    PMPI_Type_free(&e->type);
  if (e->data.stage != NULL)
    hcomm_stream_host_free(e->stream->engine, e->data.stage);
  if (e->input.stage != NULL)
    hcomm_stream_host_free(e->stream->engine, e->input.stage);
  free(e);
}

void hc_mpi_enq_reclaim(hc_mpi_stream_t *s) {
  hc_mpi_enq_t *done = NULL;
  pthread_mutex_lock(&s->lock);
  for (hc_mpi_enq_t **p = &s->pending; *p != NULL;) {
    hc_mpi_enq_t *e = *p;
    if (atomic_load(&e->done)) {
      *p = e->next;
      e->next = done;
      done = e;
    } else {
      p = &e->next;
    }
  }
  pthread_mutex_unlock(&s->lock);
  while (done != NULL) {
    hc_mpi_enq_t *e = done;
    done = e->next;
    enq_free(e);
  }
}

int hc_mpi_enq_drain(hc_mpi_stream_t *s) {
  hc_status_t st = hcomm_stream_drain(s->engine);
  /* The raise that let the stream go may still be in its runtime call. */
  pthread_mutex_lock(&enq_watch.lock);
  unsigned long round = enq_watch.raise_rounds;
  while (enq_watch.raising && enq_watch.raise_rounds == round)
    pthread_cond_wait(&enq_watch.raised, &enq_watch.lock);
  pthread_mutex_unlock(&enq_watch.lock);
  hc_mpi_enq_reclaim(s);
  int err = atomic_exchange(&s->error, MPI_SUCCESS);
  if (st != HC_OK)
    return hc_mpi_raise_status(NULL, "MPIX_Stream_free", st);
  return err;
}

/* ---- host functions (run by the stream) --------------------------------- */

static void enq_note(hc_mpi_enq_t *e, int rc) {
  int none = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    atomic_compare_exchange_strong(&e->stream->error, &none, rc);
}

static void enq_status_out(hc_mpi_enq_t *e) {
  if (e->status_out != MPI_STATUS_IGNORE)
    *e->status_out = e->status;
}

static void enq_mark_done(void *arg) {
  hc_mpi_enq_t *e = arg;
  atomic_store(&e->done, 1);
}

static int enq_sends(int kind) { return kind == ENQ_SEND || kind == ENQ_ISEND; }

/* Starts a point-to-point operation: e->inner. */
static int enq_begin(hc_mpi_enq_t *e) {
  if (enq_sends(e->kind))
    return PMPI_Isend_c(enq_buf(&e->data), e->count, e->type, e->peer, e->tag,
                        e->comm, &e->inner);
  return PMPI_Irecv_c(enq_buf(&e->data), e->count, e->type, e->peer, e->tag,
                      e->comm, &e->inner);
}

static void enq_watch_kick(void);

/* Flag mode, and every I-form: starts the operation and returns. */
static void enq_start(void *arg) {
  hc_mpi_enq_t *e = arg;
  int rc = enq_begin(e);
  if (rc != MPI_SUCCESS) {
    enq_note(e, rc);
    e->inner = MPI_REQUEST_NULL; /* the watcher finds it finished */
  }
  atomic_store(&e->started, 1);
  enq_watch_kick();
}

/* Direct operations: the stream reached it; the watcher starts it (a
 * host function may not call the runtime, which the engine's device
 * paths do). */
static void enq_arrive(void *arg) {
  hc_mpi_enq_t *e = arg;
  atomic_store(&e->arrived, 1);
  enq_watch_kick();
}

/* A blocking operation where the stream has no flag: runs it whole. */
static void enq_run(void *arg) {
  hc_mpi_enq_t *e = arg;
  int rc = MPI_SUCCESS;
  if (e->kind == ENQ_ALLREDUCE) {
    rc = PMPI_Allreduce_c(e->input.user == MPI_IN_PLACE ? MPI_IN_PLACE
                                                        : enq_buf(&e->input),
                          enq_buf(&e->data), e->count, e->type, e->op, e->comm);
  } else {
    rc = enq_begin(e);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Wait(&e->inner, &e->status);
    if (e->kind == ENQ_RECV)
      enq_status_out(e);
  }
  enq_note(e, rc);
}

static void enq_run_wait(void *arg) {
  hc_mpi_enq_t *e = arg;
  enq_note(e, PMPI_Wait(&e->inner, &e->status));
  enq_status_out(e);
  if (e->kind == ENQ_ISEND || e->data.stage == NULL) {
    PMPI_Grequest_complete(e->greq);
    atomic_store(&e->done, 1);
  }
}

static void enq_run_complete(void *arg) {
  hc_mpi_enq_t *e = arg;
  PMPI_Grequest_complete(e->greq);
  atomic_store(&e->done, 1);
}

/* ---- the watcher: completes operations, raises stream flags ------------- */

static void enq_watch_kick(void) {
  pthread_mutex_lock(&enq_watch.lock);
  pthread_cond_signal(&enq_watch.wake);
  pthread_mutex_unlock(&enq_watch.lock);
}

/* A started operation completed?  Then its status is out, its error
 * noted, and it is marked finished.  The watcher's thread only. */
static int enq_watch_test(hc_mpi_enq_t *e) {
  int complete = 1, rc = MPI_SUCCESS;
  if (e->inner != MPI_REQUEST_NULL)
    rc = PMPI_Test(&e->inner, &complete, &e->status);
  if (rc != MPI_SUCCESS)
    complete = 1;
  if (!complete)
    return 0;
  enq_note(e, rc);
  enq_status_out(e);
  atomic_store(&e->finished, 1);
  return 1;
}

typedef struct enq_raise {
  hc_mpi_stream_t *stream;
  uint64_t value;
} enq_raise_t;

/* Under the watcher's lock: takes each stream's unbroken run of finished
 * operations off its list, noting in raise[] the flag value that lets
 * the stream past them; streams left with none leave the watcher's list.
 * Returns how many raises were noted.  Once off the list an operation is
 * the application thread's again, and the stream object stays until its
 * flag was raised (its release drains it first). */
static int enq_watch_collect(enq_raise_t *raise) {
  int n = 0;
  for (hc_mpi_stream_t **p = &enq_watch.streams; *p != NULL;) {
    hc_mpi_stream_t *s = *p;
    uint64_t value = 0;
    while (n < ENQ_WATCH_BATCH && s->watch_head != NULL &&
           atomic_load(&s->watch_head->finished)) {
      hc_mpi_enq_t *e = s->watch_head;
      s->watch_head = e->next_watch;
      if (s->watch_head == NULL)
        s->watch_tail = NULL;
      value = e->ticket;
      atomic_store(&e->watched, 0);
    }
    if (value != 0)
      raise[n++] = (enq_raise_t){s, value};
    if (s->watch_head == NULL && s->start_head == NULL) {
      *p = s->next_watched;
      s->next_watched = NULL;
      s->in_watch = 0;
    } else {
      p = &s->next_watched;
    }
  }
  return n;
}

/* Under the watcher's lock: takes off the streams' start lists, in
 * order, the direct operations the streams reached (at most max). */
static int enq_watch_arrivals(hc_mpi_enq_t **out, int max) {
  int n = 0;
  for (hc_mpi_stream_t *s = enq_watch.streams; s != NULL && n < max;
       s = s->next_watched)
    while (n < max && s->start_head != NULL &&
           atomic_load(&s->start_head->arrived)) {
      out[n++] = s->start_head;
      s->start_head = s->start_head->next_start;
      if (s->start_head == NULL)
        s->start_tail = NULL;
    }
  return n;
}

/* One pass: starts the direct operations streams reached, tests the first
 * operation each stream waits for, then raises the flags of the streams
 * that got past some.  1 when anything moved. */
static int enq_watch_pass(void) {
  hc_mpi_enq_t *heads[ENQ_WATCH_BATCH];
  pthread_mutex_lock(&enq_watch.lock);
  int n = enq_watch_arrivals(heads, ENQ_WATCH_BATCH);
  pthread_mutex_unlock(&enq_watch.lock);
  for (int i = 0; i < n; i++)
    enq_start(heads[i]);
  int started = n;
  n = 0;
  pthread_mutex_lock(&enq_watch.lock);
  for (hc_mpi_stream_t *s = enq_watch.streams; s != NULL && n < ENQ_WATCH_BATCH;
       s = s->next_watched) {
    hc_mpi_enq_t *e = s->watch_head;
    if (e != NULL && atomic_load(&e->started) && !atomic_load(&e->finished))
      heads[n++] = e;
  }
  pthread_mutex_unlock(&enq_watch.lock);
  /* Outside the lock: a test may call an error handler, which may
   * enqueue. */
  int moved = 0;
  for (int i = 0; i < n; i++)
    moved |= enq_watch_test(heads[i]);
  enq_raise_t raise[ENQ_WATCH_BATCH];
  pthread_mutex_lock(&enq_watch.lock);
  int nraise = enq_watch_collect(raise);
  enq_watch.raising = nraise > 0;
  pthread_mutex_unlock(&enq_watch.lock);
  hc_status_t failed = HC_OK;
  for (int i = 0; i < nraise; i++) {
    hc_status_t st =
        hcomm_stream_flag_raise(raise[i].stream->engine, raise[i].value);
    if (st != HC_OK)
      failed = st;
  }
  if (nraise > 0) {
    pthread_mutex_lock(&enq_watch.lock);
    enq_watch.raising = 0;
    enq_watch.raise_rounds++;
    pthread_cond_broadcast(&enq_watch.raised);
    pthread_mutex_unlock(&enq_watch.lock);
  }
  if (failed != HC_OK) /* a stream stays held: say why */
    hc_mpi_raise_status(NULL, "MPIX stream watcher", failed);
  return moved || nraise > 0 || started > 0;
}

static void *enq_watch_main(void *arg) {
  (void)arg;
  long spins = 0;
  pthread_mutex_lock(&enq_watch.lock);
  while (!enq_watch.stop) {
    if (enq_watch.streams == NULL) {
      pthread_cond_wait(&enq_watch.wake, &enq_watch.lock);
      continue;
    }
    pthread_mutex_unlock(&enq_watch.lock);
    if (enq_watch_pass())
      spins = 0;
    else
      hcomm_progress_idle(&spins);
    pthread_mutex_lock(&enq_watch.lock);
  }
  pthread_mutex_unlock(&enq_watch.lock);
  return NULL;
}

/* Under the watcher's lock: its thread runs (started on first use), and
 * s is on its list.  0, or -1 without a thread. */
static int enq_watch_enter_locked(hc_mpi_stream_t *s) {
  if (!enq_watch.running) {
    enq_watch.stop = 0;
    if (pthread_create(&enq_watch.thread, NULL, enq_watch_main, NULL) != 0)
      return -1;
    enq_watch.running = 1;
  }
  if (!s->in_watch) {
    s->in_watch = 1;
    s->next_watched = enq_watch.streams;
    enq_watch.streams = s;
  }
  pthread_cond_signal(&enq_watch.wake);
  return 0;
}

/* A direct operation whose arrival host function is queued: the watcher
 * starts it once the stream reached it.  MPI_SUCCESS, or MPI_ERR_OTHER
 * without a thread. */
static int enq_watch_start_later(hc_mpi_enq_t *e) {
  hc_mpi_stream_t *s = e->stream;
  pthread_mutex_lock(&enq_watch.lock);
  int rc = enq_watch_enter_locked(s);
  if (rc == 0) {
    e->next_start = NULL;
    if (s->start_tail != NULL)
      s->start_tail->next_start = e;
    else
      s->start_head = e;
    s->start_tail = e;
  }
  pthread_mutex_unlock(&enq_watch.lock);
  return rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* Gives e the next ticket of its stream and watches it (starting the
 * watcher on first use).  MPI_SUCCESS, or MPI_ERR_OTHER without a
 * thread. */
static int enq_watch_add(hc_mpi_enq_t *e) {
  hc_mpi_stream_t *s = e->stream;
  pthread_mutex_lock(&enq_watch.lock);
  if (enq_watch_enter_locked(s) != 0) {
    pthread_mutex_unlock(&enq_watch.lock);
    return MPI_ERR_OTHER;
  }
  e->ticket = ++s->tickets;
  atomic_store(&e->watched, 1);
  e->next_watch = NULL;
  if (s->watch_tail != NULL)
    s->watch_tail->next_watch = e;
  else
    s->watch_head = e;
  s->watch_tail = e;
  pthread_mutex_unlock(&enq_watch.lock);
  return MPI_SUCCESS;
}

void hc_mpi_enq_shutdown(void) {
  pthread_mutex_lock(&enq_watch.lock);
  int running = enq_watch.running;
  enq_watch.stop = 1;
  pthread_cond_signal(&enq_watch.wake);
  pthread_mutex_unlock(&enq_watch.lock);
  if (running)
    pthread_join(enq_watch.thread, NULL);
  enq_watch.running = 0;
}

/* ---- queuing ------------------------------------------------------------ */

/* The stream of an enqueue call's communicator, its reported error first. */
static int enq_enter(const char *fn, MPI_Comm comm, hc_mpi_comm_t **c,
                     hc_mpi_stream_t **s) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_stream_attach_t *a = (*c)->streams;
  if (a == NULL || a->nlocal != 1 || a->local[0] == NULL)
    return hc_mpi_raise(*c, fn, MPI_ERR_COMM,
                        "the communicator has no stream: make it with "
                        "MPIX_Stream_comm_create and a stream");
  *s = a->local[0];
  if ((*s)->kind == HCOMM_MEM_HOST)
    return MPI_SUCCESS;
  hc_mpi_enq_reclaim(*s);
  int err = atomic_exchange(&(*s)->error, MPI_SUCCESS);
  if (err != MPI_SUCCESS)
    return hc_mpi_raise(*c, fn, err,
                        "an operation the stream ran earlier failed");
  return MPI_SUCCESS;
}

static hc_mpi_enq_t *enq_new(hc_mpi_stream_t *s, int kind, MPI_Comm comm,
                             void *buf, MPI_Count count, MPI_Datatype type,
                             int peer, int tag) {
  hc_mpi_enq_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return NULL;
  e->stream = s;
  e->kind = kind;
  e->comm = comm;
  e->data.user = buf;
  e->count = count;
  e->type = type;
  /* The application may free a derived type once the call returned; the
   * stream uses it later.  Predefined types need no copy. */
  int ni, na, nd, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED) {
    if (PMPI_Type_dup(type, &e->type) != MPI_SUCCESS) {
      free(e);
      return NULL;
    }
    e->own_type = 1;
  }
  e->peer = peer;
  e->tag = tag;
  e->status_out = MPI_STATUS_IGNORE;
  e->inner = MPI_REQUEST_NULL;
  e->greq = MPI_REQUEST_NULL;
  atomic_init(&e->done, 0);
  atomic_init(&e->started, 0);
  atomic_init(&e->finished, 0);
  atomic_init(&e->watched, 0);
  return e;
}

/* Hands e to the stream's pending list (its staging is freed from there). */
static void enq_track(hc_mpi_enq_t *e) {
  hc_mpi_stream_t *s = e->stream;
  pthread_mutex_lock(&s->lock);
  e->next = s->pending;
  s->pending = e;
  pthread_mutex_unlock(&s->lock);
}

static int enq_launch(const char *fn, hc_mpi_comm_t *c, hc_mpi_enq_t *e,
                      void (*run)(void *arg)) {
  hc_status_t st = hcomm_stream_launch(e->stream->engine, run, e);
  if (st == HC_OK)
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn,
                      st == HC_ERR_NOT_SUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION
                                                 : hc_mpi_class_of_status(st),
                      "cannot queue a host function on the stream (%s)",
                      hcomm_strerror(st));
}

/* An operation that could not be queued whole: whatever was queued runs
 * out, and the watcher lets go of it, before its staging goes. */
static int enq_abandon(hc_mpi_enq_t *e, int rc) {
  hcomm_stream_drain(e->stream->engine);
  while (atomic_load(&e->watched))
    hcomm_progress();
  enq_free(e);
  return rc;
}

/* Flag mode: the stream waits, at this point, until the watcher saw e
 * complete. */
static int enq_wait_flag(const char *fn, hc_mpi_comm_t *c, hc_mpi_enq_t *e) {
  if (enq_watch_add(e) != MPI_SUCCESS)
    return hc_mpi_raise(c, fn, MPI_ERR_OTHER,
                        "cannot start the thread that completes enqueued "
                        "operations");
  hc_status_t st = hcomm_stream_flag_wait(e->stream->engine, e->ticket);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(c, fn, st);
}

/* Whether the stream waits on its flag for e, rather than a host function
 * running e whole (see the top of the file). */
static int enq_flagged(const hc_mpi_enq_t *e) {
  return e->kind != ENQ_ALLREDUCE && hcomm_stream_has_flag(e->stream->engine);
}

/* Whether e's data is the stream's device memory, handed to the engine
 * as it is (see the top of the file). */
static int enq_direct(const hc_mpi_enq_t *e) {
  hcomm_mem_info_t info;
  return e->stream->direct && enq_flagged(e) && e->data.user != NULL &&
         hcomm_mem_classify(e->data.user, &info) &&
         info.kind == e->stream->kind;
}

/* Queues the piece that starts e: a host function that starts it, or
 * runs it whole, or (direct) tells the watcher to start it. */
static int enq_queue_start(const char *fn, hc_mpi_comm_t *c, hc_mpi_enq_t *e,
                           int blocking, int flagged) {
  if (!e->direct)
    return enq_launch(fn, c, e, blocking && !flagged ? enq_run : enq_start);
  int rc = enq_launch(fn, c, e, enq_arrive);
  if (rc == MPI_SUCCESS && enq_watch_start_later(e) != MPI_SUCCESS)
    rc = hc_mpi_raise(c, fn, MPI_ERR_OTHER,
                      "cannot start the thread that completes enqueued "
                      "operations");
  return rc;
}

/* Queues e's pieces: staging in, the operation (started, and the flag
 * waited for; or run whole), staging out (blocking forms), and tracks
 * it. */
static int enq_queue(const char *fn, hc_mpi_comm_t *c, hc_mpi_enq_t *e) {
  hc_mpi_stream_t *s = e->stream;
  int blocking =
      e->kind == ENQ_SEND || e->kind == ENQ_RECV || e->kind == ENQ_ALLREDUCE;
  int flagged = enq_flagged(e);
  e->direct = enq_direct(e);
  int rc = e->direct ? MPI_SUCCESS
                     : enq_stage(fn, c, s, &e->data, e->count, e->type);
  if (rc == MPI_SUCCESS && e->kind == ENQ_ALLREDUCE)
    rc = enq_stage(fn, c, s, &e->input, e->count, e->type);
  if (rc == MPI_SUCCESS)
    rc = enq_queue_start(fn, c, e, blocking, flagged);
  if (rc == MPI_SUCCESS && blocking && flagged)
    rc = enq_wait_flag(fn, c, e);
  if (rc == MPI_SUCCESS && blocking && e->kind != ENQ_SEND)
    rc = enq_unstage(fn, c, s, &e->data);
  if (rc == MPI_SUCCESS && blocking)
    rc = enq_launch(fn, c, e, enq_mark_done);
  if (rc != MPI_SUCCESS)
    return enq_abandon(e, rc);
  enq_track(e);
  return MPI_SUCCESS;
}

/* ---- the grequest the I-forms hand out ---------------------------------- */

/* Only MPIX_Wait_enqueue reads the operation's status; a host wait on the
 * handle sees an empty one. */
static int enq_greq_query(void *extra, MPI_Status *status) {
  (void)extra;
  PMPI_Status_set_elements_x(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

/* The operation belongs to its stream's pending list, not to the handle. */
static int enq_greq_free(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}

static int enq_greq_cancel(void *extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS;
}

static void enq_wait_push(hc_mpi_enq_t *e) {
  hc_lock(&enq_waiting_lock);
  e->next_waiting = enq_waiting;
  enq_waiting = e;
  hc_unlock(&enq_waiting_lock);
}

/* Takes the operation behind an I-form handle off the waiting list. */
static hc_mpi_enq_t *enq_wait_take(MPI_Request handle) {
  hc_lock(&enq_waiting_lock);
  hc_mpi_enq_t *found = NULL;
  for (hc_mpi_enq_t **p = &enq_waiting; *p != NULL; p = &(*p)->next_waiting)
    if ((*p)->greq == handle) {
      found = *p;
      *p = found->next_waiting;
      break;
    }
  hc_unlock(&enq_waiting_lock);
  return found;
}

/* ---- point-to-point ----------------------------------------------------- */

static int enq_host_p2p(int kind, void *buf, MPI_Count count, MPI_Datatype type,
                        int peer, int tag, MPI_Comm comm, MPI_Status *status,
                        MPI_Request *request) {
  switch (kind) {
  case ENQ_SEND:
    return PMPI_Send_c(buf, count, type, peer, tag, comm);
  case ENQ_RECV:
    return PMPI_Recv_c(buf, count, type, peer, tag, comm, status);
  case ENQ_ISEND:
    return PMPI_Isend_c(buf, count, type, peer, tag, comm, request);
  default:
    return PMPI_Irecv_c(buf, count, type, peer, tag, comm, request);
  }
}

/* An I-form's request: a generalized request the stream completes. */
static int enq_start_request(const char *fn, hc_mpi_comm_t *c, hc_mpi_enq_t *e,
                             MPI_Request *request) {
  int rc = PMPI_Grequest_start(enq_greq_query, enq_greq_free, enq_greq_cancel,
                               e, &e->greq);
  if (rc != MPI_SUCCESS) {
    enq_free(e);
    return rc;
  }
  MPI_Request greq = e->greq;
  rc = enq_queue(fn, c, e);
  if (rc != MPI_SUCCESS) {
    PMPI_Grequest_complete(greq);
    PMPI_Request_free(&greq);
    return rc;
  }
  enq_wait_push(e);
  *request = greq;
  return MPI_SUCCESS;
}

static int enq_p2p(const char *fn, int kind, void *buf, MPI_Count count,
                   MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                   MPI_Status *status, MPI_Request *request) {
  hc_mpi_comm_t *c = NULL;
  hc_mpi_stream_t *s = NULL;
  int sends = kind == ENQ_SEND || kind == ENQ_ISEND;
  size_t bytes = 0;
  int rc = enq_enter(fn, comm, &c, &s);
  if (rc == MPI_SUCCESS && sends)
    rc = hc_mpi_check_send(fn, c, buf, count, type, peer, tag, &bytes);
  else if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_recv(fn, c, buf, count, type, peer, tag, &bytes);
  if (rc == MPI_SUCCESS && (kind == ENQ_ISEND || kind == ENQ_IRECV))
    rc = hc_mpi_check_ptr(fn, c, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  if (s->kind == HCOMM_MEM_HOST)
    return enq_host_p2p(kind, buf, count, type, peer, tag, comm, status,
                        request);
  hc_mpi_enq_t *e = enq_new(s, kind, comm, buf, count, type, peer, tag);
  if (e == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  e->status_out = status;
  if (kind == ENQ_ISEND || kind == ENQ_IRECV)
    return enq_start_request(fn, c, e, request);
  return enq_queue(fn, c, e);
}

int PMPIX_Send_enqueue_c(const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  return enq_p2p("MPIX_Send_enqueue", ENQ_SEND, (void *)buf, count, datatype,
                 dest, tag, comm, MPI_STATUS_IGNORE, NULL);
}
HC_WEAK_ALIAS(MPIX_Send_enqueue_c, PMPIX_Send_enqueue_c);

int PMPIX_Recv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm,
                         MPI_Status *status) {
  return enq_p2p("MPIX_Recv_enqueue", ENQ_RECV, buf, count, datatype, source,
                 tag, comm, status, NULL);
}
HC_WEAK_ALIAS(MPIX_Recv_enqueue_c, PMPIX_Recv_enqueue_c);

int PMPIX_Isend_enqueue_c(const void *buf, MPI_Count count,
                          MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  return enq_p2p("MPIX_Isend_enqueue", ENQ_ISEND, (void *)buf, count, datatype,
                 dest, tag, comm, MPI_STATUS_IGNORE, request);
}
HC_WEAK_ALIAS(MPIX_Isend_enqueue_c, PMPIX_Isend_enqueue_c);

int PMPIX_Irecv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                          int source, int tag, MPI_Comm comm,
                          MPI_Request *request) {
  return enq_p2p("MPIX_Irecv_enqueue", ENQ_IRECV, buf, count, datatype, source,
                 tag, comm, MPI_STATUS_IGNORE, request);
}
HC_WEAK_ALIAS(MPIX_Irecv_enqueue_c, PMPIX_Irecv_enqueue_c);

int PMPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm) {
  return PMPIX_Send_enqueue_c(buf, count, datatype, dest, tag, comm);
}
HC_WEAK_ALIAS(MPIX_Send_enqueue, PMPIX_Send_enqueue);

int PMPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source,
                       int tag, MPI_Comm comm, MPI_Status *status) {
  return PMPIX_Recv_enqueue_c(buf, count, datatype, source, tag, comm, status);
}
HC_WEAK_ALIAS(MPIX_Recv_enqueue, PMPIX_Recv_enqueue);

int PMPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm,
                        MPI_Request *request) {
  return PMPIX_Isend_enqueue_c(buf, count, datatype, dest, tag, comm, request);
}
HC_WEAK_ALIAS(MPIX_Isend_enqueue, PMPIX_Isend_enqueue);

int PMPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source,
                        int tag, MPI_Comm comm, MPI_Request *request) {
  return PMPIX_Irecv_enqueue_c(buf, count, datatype, source, tag, comm,
                               request);
}
HC_WEAK_ALIAS(MPIX_Irecv_enqueue, PMPIX_Irecv_enqueue);

/* ---- waits -------------------------------------------------------------- */

int PMPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status) {
  static const char fn[] = "MPIX_Wait_enqueue";
  int rc = hc_mpi_check_ptr(fn, NULL, request, "request");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_enq_t *e = enq_wait_take(*request);
  if (e == NULL) /* a host stream's request, or an ordinary one */
    return PMPI_Wait(request, status);
  hc_mpi_comm_t *c = hc_mpi_comm_get(e->comm);
  hc_mpi_stream_t *s = NULL;
  rc = enq_enter(fn, e->comm, &c, &s);
  e->status_out = status;
  /* Read before the stream may finish e (another thread may free it). */
  int copy_back = e->kind == ENQ_IRECV && e->data.stage != NULL;
  int flagged = enq_flagged(e);
  if (rc == MPI_SUCCESS)
    rc = flagged ? enq_wait_flag(fn, c, e) : enq_launch(fn, c, e, enq_run_wait);
  if (rc == MPI_SUCCESS && copy_back)
    rc = enq_unstage(fn, c, s, &e->data);
  if (rc == MPI_SUCCESS && (copy_back || flagged))
    rc = enq_launch(fn, c, e, enq_run_complete);
  if (rc != MPI_SUCCESS) {
    enq_wait_push(e); /* still the caller's to wait for */
    return rc;
  }
  /* The handle goes now; the request itself when the stream completes it. */
  PMPI_Request_free(request);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Wait_enqueue, PMPIX_Wait_enqueue);

int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                          MPI_Status *array_of_statuses) {
  static const char fn[] = "MPIX_Waitall_enqueue";
  if (count < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_COUNT, "count %d", count);
  if (count > 0 && array_of_requests == NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "array_of_requests is NULL");
  for (int i = 0; i < count; i++) {
    MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE
                         ? MPI_STATUS_IGNORE
                         : &array_of_statuses[i];
    int rc = PMPIX_Wait_enqueue(&array_of_requests[i], st);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPIX_Waitall_enqueue, PMPIX_Waitall_enqueue);

/* ---- collectives -------------------------------------------------------- */

int PMPIX_Allreduce_enqueue_c(const void *sendbuf, void *recvbuf,
                              MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  static const char fn[] = "MPIX_Allreduce_enqueue";
  hc_mpi_comm_t *c = NULL;
  hc_mpi_stream_t *s = NULL;
  size_t bytes = 0;
  int rc = enq_enter(fn, comm, &c, &s);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_data(fn, c, recvbuf, count, datatype, &bytes);
  if (rc != MPI_SUCCESS)
    return rc;
  if (s->kind == HCOMM_MEM_HOST)
    return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
  hc_mpi_enq_t *e = enq_new(s, ENQ_ALLREDUCE, comm, recvbuf, count, datatype,
                            MPI_PROC_NULL, 0);
  if (e == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  e->op = op;
  e->input.user = (void *)sendbuf;
  return enq_queue(fn, c, e);
}
HC_WEAK_ALIAS(MPIX_Allreduce_enqueue_c, PMPIX_Allreduce_enqueue_c);

int PMPIX_Allreduce_enqueue(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return PMPIX_Allreduce_enqueue_c(sendbuf, recvbuf, count, datatype, op, comm);
}
HC_WEAK_ALIAS(MPIX_Allreduce_enqueue, PMPIX_Allreduce_enqueue);
