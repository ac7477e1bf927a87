/*
 * TEST DOUBLE of libascendcl.so: streams and events.  Each stream has a
 * worker thread that runs its queued work in order, so asynchronous copies
 * really are asynchronous and an event completes only when the work queued
 * before it has run.
 */
#include <stdlib.h>
#include <string.h>

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
static int fake_task_copy(fake_task_t *t) {
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

aclError aclrtSynchronizeStream(aclrtStream stream) {
  fake_stream_t *s = stream;
  if (s == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL stream");
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
     * copy (in stream order). */
    fake_stream_drain(stream);
    if (count > 0)
      memmove(c.dst, c.src, count);
    return ACL_SUCCESS;
  }
  fake_task_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return fake_fail(ACL_ERROR_BAD_ALLOC, "out of memory");
  t->copy = c;
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

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  fake_event_t *e = event;
  if (e == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  pthread_mutex_lock(&e->mu);
  while (e->reached < e->recorded)
    pthread_cond_wait(&e->cv, &e->mu);
  int failed = e->failed;
  pthread_mutex_unlock(&e->mu);
  return failed ? fake_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                            "a task before the event failed")
                : ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  fake_event_t *e = event;
  if (e == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL argument");
  /* A record still queued would touch freed memory: wait it out. */
  aclrtSynchronizeEvent(e);
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
  return ACL_SUCCESS;
}
