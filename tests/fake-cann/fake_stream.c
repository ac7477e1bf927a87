/*
 * TEST DOUBLE of libascendcl.so: streams and events.  Each stream has a
 * worker thread that runs its queued work in order, so asynchronous copies
 * really are asynchronous and an event completes only when the work queued
 * before it has run.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_acl_int.h"

typedef struct fake_event {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned long recorded; /* records issued */
  unsigned long reached;  /* records the stream got to */
  int failed;             /* the stream had failed when it got there */
} fake_event_t;

typedef struct fake_task {
  struct fake_task *next;
  fake_copy_t copy;
  fake_event_t *event; /* non-NULL: an event record, not a copy */
  int (*fn)(void *);   /* non-NULL: a call (fakecann_stream_call) */
  void *arg;
  unsigned long ticket;
  int h2d;  /* an async host-to-device copy (the test hooks act on these) */
  int fail; /* FAKE_CANN_FAIL_H2D picked this copy */
  struct timespec not_before; /* FAKE_CANN_ASYNC_LAG_US: runs no earlier */
} fake_task_t;

typedef struct fake_stream {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  fake_task_t *head, *tail;
  int running; /* a task is being executed */
  int stop;
  int failed;      /* a queued call failed: the stream is broken */
  int h2d_pending; /* host-to-device copies queued or running */
  int device;
  pthread_t worker;
  int subscribed;    /* aclrtSubscribeReport named a thread for callbacks */
  uint64_t reporter; /* that thread */
} fake_stream_t;

/* ---- test hooks (fake_acl.h): held and failing host-to-device copies */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int read;             /* environment read */
  long fail_at;         /* FAKE_CANN_FAIL_H2D; 0: none */
  int hold;             /* FAKE_CANN_HOLD_H2D and not yet released */
  unsigned long issued; /* async host-to-device copies so far */
  unsigned long overlaps;
} fake_hook = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void fake_hook_env_locked(void) {
  if (fake_hook.read)
    return;
  const char *fail = getenv("FAKE_CANN_FAIL_H2D");
  const char *hold = getenv("FAKE_CANN_HOLD_H2D");
  fake_hook.fail_at = fail != NULL ? atol(fail) : 0;
  fake_hook.hold = hold != NULL && atoi(hold) != 0;
  fake_hook.read = 1;
}

/* Marks t (an async host-to-device copy being queued on s). */
static void fake_hook_h2d(fake_stream_t *s, fake_task_t *t) {
  pthread_mutex_lock(&fake_hook.mu);
  fake_hook_env_locked();
  t->h2d = 1;
  t->fail = ++fake_hook.issued == (unsigned long)fake_hook.fail_at;
  if (s->h2d_pending > 0)
    fake_hook.overlaps++;
  pthread_mutex_unlock(&fake_hook.mu);
}

static void fake_hook_wait_release(void) {
  pthread_mutex_lock(&fake_hook.mu);
  while (fake_hook.hold)
    pthread_cond_wait(&fake_hook.cv, &fake_hook.mu);
  pthread_mutex_unlock(&fake_hook.mu);
}

void fakecann_release_h2d(void) {
  pthread_mutex_lock(&fake_hook.mu);
  fake_hook_env_locked();
  fake_hook.hold = 0;
  pthread_cond_broadcast(&fake_hook.cv);
  pthread_mutex_unlock(&fake_hook.mu);
}

unsigned long fakecann_h2d_overlaps(void) {
  pthread_mutex_lock(&fake_hook.mu);
  unsigned long n = fake_hook.overlaps;
  pthread_mutex_unlock(&fake_hook.mu);
  return n;
}

/* Runs one queued copy; 0, or -1 when a test hook makes it fail. */
/* FAKE_CANN_ASYNC_LAG_US=n: an asynchronous copy runs no earlier than n
 * microseconds after the call that queued it (default 0), so that a
 * caller which forgot to wait for it sees the old bytes. */
static long fake_async_lag_us(void) {
  static atomic_long lag = -1;
  long v = atomic_load(&lag);
  if (v < 0) {
    const char *s = getenv("FAKE_CANN_ASYNC_LAG_US");
    v = s != NULL && atol(s) > 0 ? atol(s) : 0;
    atomic_store(&lag, v);
  }
  return v;
}

static int fake_task_copy(fake_task_t *t) {
  if (t->not_before.tv_sec != 0)
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t->not_before,
                           NULL) == EINTR)
      ;
  if (t->h2d)
    fake_hook_wait_release();
  if (t->fail)
    return -1;
  if (t->copy.n > 0)
    memmove(t->copy.dst, t->copy.src, t->copy.n);
  return 0;
}

static void fake_event_reach(fake_event_t *e, unsigned long ticket,
                             int failed) {
  pthread_mutex_lock(&e->mu);
  if (ticket > e->reached)
    e->reached = ticket;
  e->failed = failed;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

static void *fake_stream_main(void *arg) {
  fake_stream_t *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->head == NULL && !s->stop)
      pthread_cond_wait(&s->cv, &s->mu);
    if (s->head == NULL)
      break;
    fake_task_t *t = s->head;
    s->head = t->next;
    if (s->head == NULL)
      s->tail = NULL;
    s->running = 1;
    pthread_mutex_unlock(&s->mu);
    if (t->event != NULL) {
      fake_event_reach(t->event, t->ticket, s->failed);
    } else if (t->fn != NULL) {
      if (t->fn(t->arg) != 0)
        s->failed = 1;
    } else if (fake_task_copy(t) != 0) {
      s->failed = 1;
    }
    int h2d = t->h2d;
    free(t);
    pthread_mutex_lock(&s->mu);
    s->h2d_pending -= h2d;
    s->running = 0;
    pthread_cond_broadcast(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (stream == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  fake_stream_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  s->device = fake_current_device();
  if (pthread_create(&s->worker, NULL, fake_stream_main, s) != 0) {
    free(s);
    return fake_fail(ACL_ERROR_RT_INTERNAL_ERROR, "no stream thread");
  }
  *stream = s;
  return ACL_SUCCESS;
}

static void fake_stream_drain(fake_stream_t *s) {
  pthread_mutex_lock(&s->mu);
  while (s->head != NULL || s->running)
    pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

/* Host synchronisations the application asked for (fakecann_host_syncs). */
static atomic_ulong fake_host_syncs;

unsigned long fakecann_host_syncs(void) {
  return atomic_load(&fake_host_syncs);
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
  atomic_fetch_add(&fake_host_syncs, 1);
  fake_stream_drain(s);
  return s->failed ? fake_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                               "a task on the stream failed")
                   : ACL_SUCCESS;
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
  fake_stream_t *s = stream;
  if (s == NULL || status == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  pthread_mutex_lock(&s->mu);
  int busy = s->head != NULL || s->running;
  pthread_mutex_unlock(&s->mu);
  *status = busy ? ACL_STREAM_STATUS_NOT_READY : ACL_STREAM_STATUS_COMPLETE;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
  pthread_mutex_lock(&s->mu);
  s->stop = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->worker, NULL);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
  return ACL_SUCCESS;
}

static void fake_stream_push(fake_stream_t *s, fake_task_t *t) {
  pthread_mutex_lock(&s->mu);
  s->h2d_pending += t->h2d;
  if (s->tail != NULL)
    s->tail->next = t;
  else
    s->head = t;
  s->tail = t;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
                          size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (stream == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
  fake_copy_t c;
  err = fake_resolve_copy(dst, destMax, src, count, kind, 1, &c);
  if (err != ACL_SUCCESS)
    return err;
  int host_side =
      kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_HOST;
  if (host_side && !c.pinned) {
    /* Documented: with pageable host memory the call returns after the
     * copy (in stream order): the host waits for the stream. */
    atomic_fetch_add(&fake_host_syncs, 1);
    fake_stream_drain(stream);
    if (count > 0)
      memmove(c.dst, c.src, count);
    return ACL_SUCCESS;
  }
  fake_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  t->copy = c;
  long lag = fake_async_lag_us();
  if (lag > 0) {
    clock_gettime(CLOCK_MONOTONIC, &t->not_before);
    t->not_before.tv_nsec += lag % 1000000 * 1000;
    t->not_before.tv_sec += lag / 1000000 + t->not_before.tv_nsec / 1000000000;
    t->not_before.tv_nsec %= 1000000000;
  }
  if (kind == ACL_MEMCPY_HOST_TO_DEVICE) {
    pthread_mutex_lock(&((fake_stream_t *)stream)->mu);
    fake_hook_h2d(stream, t);
    pthread_mutex_unlock(&((fake_stream_t *)stream)->mu);
  }
  fake_stream_push(stream, t);
  return ACL_SUCCESS;
}

aclError fakecann_stream_call(aclrtStream stream, int (*fn)(void *arg),
                              void *arg) {
  if (stream == NULL || fn == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  fake_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  t->fn = fn;
  t->arg = arg;
  fake_stream_push(stream, t);
  return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent *event) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (event == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  fake_event_t *e = calloc(1, sizeof *e);
  if (e == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  *event = e;
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  fake_event_t *e = event;
  if (e == NULL || stream == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  fake_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  pthread_mutex_lock(&e->mu);
  t->ticket = ++e->recorded;
  pthread_mutex_unlock(&e->mu);
  t->event = e;
  fake_stream_push(stream, t);
  return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event,
                               aclrtEventRecordedStatus *status) {
  fake_event_t *e = event;
  if (e == NULL || status == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  pthread_mutex_lock(&e->mu);
  int done = e->reached >= e->recorded;
  int failed = done && e->failed;
  pthread_mutex_unlock(&e->mu);
  if (failed)
    return fake_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                     "a task before the event failed");
  *status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                 : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

static aclError fake_event_wait(fake_event_t *e) {
  pthread_mutex_lock(&e->mu);
  while (e->reached < e->recorded)
    pthread_cond_wait(&e->cv, &e->mu);
  int failed = e->failed;
  pthread_mutex_unlock(&e->mu);
  return failed ? fake_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                            "a task before the event failed")
                : ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  if (event == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  atomic_fetch_add(&fake_host_syncs, 1);
  return fake_event_wait(event);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  fake_event_t *e = event;
  if (e == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  /* A record still queued would touch freed memory: wait it out. */
  fake_event_wait(e);
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
  return ACL_SUCCESS;
}

/* ---- host callbacks: aclrtLaunchCallback, run by subscribed threads ----- */

/* Callbacks running now (fakecann_host_fns_running). */
static atomic_int fake_host_fns_running;

int fakecann_host_fns_running(void) {
  return atomic_load(&fake_host_fns_running);
}

typedef struct fake_callback {
  struct fake_callback *next;
  uint64_t thread; /* the subscribed thread that must run it */
  aclrtCallback fn;
  void *arg;
  int block; /* the stream waits until it ran */
  int done;
} fake_callback_t;

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  fake_callback_t *head, *tail;
} fake_reports = {.mu = PTHREAD_MUTEX_INITIALIZER,
                  .cv = PTHREAD_COND_INITIALIZER};

/* The stream reached a callback: hand it to its thread, and with
 * ACL_CALLBACK_BLOCK hold the stream until it returned. */
static int fake_callback_task(void *arg) {
  fake_callback_t *cb = arg;
  int block = cb->block;
  pthread_mutex_lock(&fake_reports.mu);
  if (fake_reports.tail != NULL)
    fake_reports.tail->next = cb;
  else
    fake_reports.head = cb;
  fake_reports.tail = cb;
  pthread_cond_broadcast(&fake_reports.cv);
  while (block && !cb->done)
    pthread_cond_wait(&fake_reports.cv, &fake_reports.mu);
  pthread_mutex_unlock(&fake_reports.mu);
  if (block)
    free(cb);
  return 0;
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
  pthread_mutex_lock(&s->mu);
  int taken = s->subscribed;
  if (!taken) {
    s->subscribed = 1;
    s->reporter = threadId;
  }
  pthread_mutex_unlock(&s->mu);
  return taken ? fake_fail(ACL_ERROR_RT_PARAM_INVALID,
                           "the stream already has a subscribed thread")
               : ACL_SUCCESS;
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
  pthread_mutex_lock(&s->mu);
  int ours = s->subscribed && s->reporter == threadId;
  if (ours)
    s->subscribed = 0;
  pthread_mutex_unlock(&s->mu);
  return ours ? ACL_SUCCESS
              : fake_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "that thread is not subscribed to the stream");
}

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                             aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL || fn == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "bad block type");
  pthread_mutex_lock(&s->mu);
  int subscribed = s->subscribed;
  uint64_t thread = s->reporter;
  pthread_mutex_unlock(&s->mu);
  if (!subscribed)
    return fake_fail(
        ACL_ERROR_RT_PARAM_INVALID,
        "no thread subscribed to the stream (aclrtSubscribeReport)");
  fake_callback_t *cb = calloc(1, sizeof *cb);
  if (cb == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  cb->thread = thread;
  cb->fn = fn;
  cb->arg = userData;
  cb->block = blockType == ACL_CALLBACK_BLOCK;
  return fakecann_stream_call(stream, fake_callback_task, cb);
}

/* The first callback queued for the calling thread, unlinked; NULL. */
static fake_callback_t *fake_report_take_locked(uint64_t self) {
  fake_callback_t *prev = NULL;
  for (fake_callback_t *cb = fake_reports.head; cb != NULL;
       prev = cb, cb = cb->next) {
    if (cb->thread != self)
      continue;
    if (prev != NULL)
      prev->next = cb->next;
    else
      fake_reports.head = cb->next;
    if (fake_reports.tail == cb)
      fake_reports.tail = prev;
    cb->next = NULL;
    return cb;
  }
  return NULL;
}

aclError aclrtProcessReport(int32_t timeout) {
  if (timeout == 0 || timeout < -1)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "timeout must be -1 or > 0");
  uint64_t self = (uint64_t)pthread_self();
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += timeout / 1000;
  until.tv_nsec += (long)(timeout % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&fake_reports.mu);
  fake_callback_t *cb;
  int timed_out = 0;
  while ((cb = fake_report_take_locked(self)) == NULL && !timed_out) {
    if (timeout == -1)
      pthread_cond_wait(&fake_reports.cv, &fake_reports.mu);
    else
      timed_out = pthread_cond_timedwait(&fake_reports.cv, &fake_reports.mu,
                                         &until) == ETIMEDOUT;
  }
  pthread_mutex_unlock(&fake_reports.mu);
  if (cb == NULL)
    return ACL_ERROR_WAIT_CALLBACK_TIMEOUT;
  atomic_fetch_add(&fake_host_fns_running, 1);
  cb->fn(cb->arg);
  atomic_fetch_sub(&fake_host_fns_running, 1);
  pthread_mutex_lock(&fake_reports.mu);
  int block = cb->block;
  cb->done = 1;
  pthread_cond_broadcast(&fake_reports.cv);
  pthread_mutex_unlock(&fake_reports.mu);
  if (!block)
    free(cb);
  return ACL_SUCCESS;
}

/* ---- "kernels" (test hook) ---------------------------------------------- */

typedef struct fake_kernel {
  int32_t *dst;
  const int32_t *src;
  size_t n;
  int32_t add;
  unsigned delay_us;
} fake_kernel_t;

static int fake_kernel_run(void *arg) {
  fake_kernel_t *k = arg;
  if (k->delay_us > 0)
    usleep(k->delay_us); /* a slow kernel: later work must still wait */
  for (size_t i = 0; i < k->n; i++) {
    int32_t v;
    memcpy(&v, k->src + i, sizeof v);
    v += k->add;
    memcpy(k->dst + i, &v, sizeof v);
  }
  free(k);
  return 0;
}

aclError fakecann_launch_add(aclrtStream stream, void *dst, const void *src,
                             size_t n, int32_t add, unsigned delay_us) {
  void *dshadow, *sshadow;
  int fd;
  uint64_t off;
  size_t bytes = n * sizeof(int32_t);
  aclError err = fakecann_device_span(dst, bytes, &dshadow, &fd, &off);
  if (err == ACL_SUCCESS)
    err = fakecann_device_span(src, bytes, &sshadow, &fd, &off);
  if (err != ACL_SUCCESS)
    return err;
  fake_kernel_t *k = calloc(1, sizeof *k);
  if (k == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  k->dst = dshadow;
  k->src = sshadow;
  k->n = n;
  k->add = add;
  k->delay_us = delay_us;
  err = fakecann_stream_call(stream, fake_kernel_run, k);
  if (err != ACL_SUCCESS)
    free(k);
  return err;
}

/* ---- stream memory operations: aclrtValueWait / aclrtValueWrite --------- */

/* Waits on a value holding their stream now (fakecann_value_waits_holding). */
static atomic_int fake_value_waits_holding;

int fakecann_value_waits_holding(void) {
  return atomic_load(&fake_value_waits_holding);
}

typedef struct fake_value_op {
  _Atomic uint64_t *word; /* the double's mapping of the device word */
  uint64_t value;
  uint32_t flag;
} fake_value_op_t;

static int fake_value_reached(uint64_t v, const fake_value_op_t *w) {
  switch (w->flag) {
  case ACL_VALUE_WAIT_GEQ:
    return (int64_t)(v - w->value) >= 0;
  case ACL_VALUE_WAIT_EQ:
    return v == w->value;
  case ACL_VALUE_WAIT_AND:
    return (v & w->value) != 0;
  default: /* ACL_VALUE_WAIT_NOR */
    return ~(v | w->value) != 0;
  }
}

/* The stream's worker polls the word in device memory (writes come from
 * other streams' workers, which the double does not tie to waiters). */
static int fake_value_wait_run(void *arg) {
  fake_value_op_t *w = arg;
  atomic_fetch_add(&fake_value_waits_holding, 1);
  while (!fake_value_reached(atomic_load(w->word), w)) {
    struct timespec ts = {0, 20 * 1000};
    nanosleep(&ts, NULL);
  }
  atomic_fetch_sub(&fake_value_waits_holding, 1);
  free(w);
  return 0;
}

static int fake_value_write_run(void *arg) {
  fake_value_op_t *w = arg;
  atomic_store(w->word, w->value);
  free(w);
  return 0;
}

/* devAddr: 8 bytes, 8-aligned, of an owned device allocation. */
static aclError fake_value_op(void *devAddr, uint64_t value, uint32_t flag,
                              aclrtStream stream, int (*run)(void *)) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (stream == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM,
                     "the double has no default stream");
  if ((uintptr_t)devAddr % 8 != 0)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "devAddr not 8-byte aligned");
  void *shadow;
  int fd;
  uint64_t off;
  err = fakecann_device_span(devAddr, sizeof(uint64_t), &shadow, &fd, &off);
  if (err != ACL_SUCCESS)
    return err;
  fake_value_op_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  w->word = shadow;
  w->value = value;
  w->flag = flag;
  err = fakecann_stream_call(stream, run, w);
  if (err != ACL_SUCCESS)
    free(w);
  return err;
}

aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
                        aclrtStream stream) {
  if (flag > ACL_VALUE_WAIT_NOR)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "bad wait flag");
  return fake_value_op(devAddr, value, flag, stream, fake_value_wait_run);
}

aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
                         aclrtStream stream) {
  if (flag != 0)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "flag is reserved: must be 0");
  return fake_value_op(devAddr, value, flag, stream, fake_value_write_run);
}
