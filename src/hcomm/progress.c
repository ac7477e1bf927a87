/* Progress and the blocking waits: spin on progress, then sleep on the shm
 * doorbell with the engine lock dropped, so ranks > cores stays prompt. */
#include <sched.h>
#include <time.h>

#include "hcomm/core.h"
#include "hcomm/proto.h"

int hc_progress_locked(void) {
  int moved = 0;
  if (hc_engine.self_ctx != NULL)
    moved += hc_transport_self_ops.progress(hc_engine.self_ctx);
  if (hc_engine.shm_ctx != NULL)
    moved += hc_transport_shm_ops.progress(hc_engine.shm_ctx);
  moved += hc_proto_progress();
  return moved;
}

void hc_idle_locked(long *spins) {
  if (++*spins < hc_engine.spin)
    return;
  *spins = 0;
  hc_engine_unlock();
  if (hc_engine.shm_ctx != NULL) {
    hc_transport_shm_ops.wait(hc_engine.shm_ctx, hc_engine.wait_ms);
  } else {
    /* Only this process (or another of its threads) can make progress. */
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
  }
  hc_engine_lock();
}

void hc_wait_locked(hcomm_request_t *req) {
  long spins = 0;
  while (!atomic_load(&req->done)) {
    if (hc_progress_locked() > 0) {
      spins = 0;
      continue;
    }
    if (!atomic_load(&req->done))
      hc_idle_locked(&spins);
  }
}

void hcomm_progress(void) {
  hc_engine_lock();
  if (hc_engine_check() == HC_OK)
    hc_progress_locked();
  hc_engine_unlock();
}

int hcomm_request_done(const hcomm_request_t *req) {
  return req != NULL && atomic_load(&req->done);
}

hc_status_t hcomm_test(hcomm_request_t *req, int *done,
                       hcomm_status_t *status) {
  if (req == NULL || done == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  if (!atomic_load(&req->done) && hc_engine_check() == HC_OK)
    hc_progress_locked();
  *done = atomic_load(&req->done);
  hc_status_t rc = HC_OK;
  if (*done) {
    if (status != NULL)
      *status = req->status;
    rc = req->status.error;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_wait(hcomm_request_t *req, hcomm_status_t *status) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  if (!atomic_load(&req->done)) {
    hc_status_t rc = hc_engine_check();
    if (rc != HC_OK) {
      hc_engine_unlock();
      return rc;
    }
    hc_wait_locked(req);
  }
  if (status != NULL)
    *status = req->status;
  hc_status_t rc = req->status.error;
  hc_engine_unlock();
  return rc;
}

static int progress_count_done(int n, hcomm_request_t *const *reqs,
                               int *active) {
  int done = 0;
  *active = 0;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == NULL)
      continue;
    (*active)++;
    done += atomic_load(&reqs[i]->done) != 0;
  }
  return done;
}

hc_status_t hcomm_wait_some(int n, hcomm_request_t *const *reqs, int min_done) {
  if (n < 0 || (n > 0 && reqs == NULL))
    return HC_ERR_ARG;
  hc_engine_lock();
  long spins = 0;
  int active;
  int done = progress_count_done(n, reqs, &active);
  int want = min_done < active ? min_done : active;
  unsigned long seen = hc_request_completions();
  hc_status_t rc = HC_OK;
  while (done < want) {
    rc = hc_engine_check();
    if (rc != HC_OK)
      break;
    if (hc_progress_locked() > 0)
      spins = 0;
    else
      hc_idle_locked(&spins);
    /* Rescanning n requests on every spin would make large waits
     * quadratic; only a completion somewhere can change the count. */
    if (hc_request_completions() != seen) {
      seen = hc_request_completions();
      done = progress_count_done(n, reqs, &active);
    }
  }
  hc_engine_unlock();
  return rc;
}

void hcomm_request_free(hcomm_request_t *req) {
  if (req == NULL)
    return;
  hc_engine_lock();
  if (atomic_load(&req->done))
    hc_request_release(req);
  else
    req->user_freed = 1;
  hc_engine_unlock();
}

hc_status_t hcomm_cancel(hcomm_request_t *req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_proto_cancel(req);
  hc_engine_unlock();
  return HC_OK;
}

hc_status_t hcomm_request_new_completed(const hcomm_status_t *status,
                                        hcomm_request_t **req) {
  if (req == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hcomm_request_t *r = hc_request_alloc(HC_REQ_USER);
  if (r == NULL) {
    hc_engine_unlock();
    return HC_ERR_NOMEM;
  }
  if (status != NULL)
    r->status = *status;
  atomic_store(&r->done, 1);
  hc_engine_unlock();
  *req = r;
  return HC_OK;
}
