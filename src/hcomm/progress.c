/* Progress and the blocking waits: spin on progress, then sleep on the shm
 * doorbell or the tcp epoll set with the engine lock dropped, so ranks >
 * cores stays prompt.  Peer failures reported by a transport fail the
 * requests that need the peer here, outside any transport call. */
#include <sched.h>
#include <time.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/proto.h"

/* With both shm and tcp active neither wait sees the other's wake-ups, so
 * each sleeps this long at most and they take turns. */
#define PROGRESS_SHARED_WAIT_MS 1

void hc_engine_peer_failed(void *engine, int world_rank) {
  (void)engine;
  if (hc_engine.peers == NULL || world_rank < 0 ||
      world_rank >= hc_engine.world_size || hc_engine.peers[world_rank].failed)
    return;
  hc_engine.peers[world_rank].failed = 1;
  hc_engine.failed_peers++;
  hc_engine.failures_pending = 1;
}

static int progress_peer_failed(int world_rank) {
  return world_rank >= 0 && world_rank < hc_engine.world_size &&
         hc_engine.peers[world_rank].failed;
}

/* A send waiting for the failed peer's FIN/ACK/CTS, or a matched receive
 * waiting for its DATA.  Sends still in a backlog fail as it drains. */
static void progress_fail_one(hcomm_request_t *req, void *arg) {
  (void)arg;
  if ((req->kind != HC_REQ_SEND && req->kind != HC_REQ_RECV) || req->posted ||
      !progress_peer_failed(req->peer))
    return;
  if (req->kind == HC_REQ_SEND &&
      (req->backlog_item != NULL ||
       hc_engine.peers[req->peer].backlog_head != NULL))
    return;
  if (req->kind == HC_REQ_RECV)
    req->status.bytes = 0;
  hc_request_complete(req, HC_ERR_PEER_DEAD);
}

/* Posted receives naming a failed peer as their source (ANY_SOURCE ones
 * may still match someone else). */
static void progress_fail_posted(void) {
  for (int c = 0; c < HC_MATCH_CONTEXTS; c++) {
    hc_match_queue_t *q = &hc_engine.contexts[c].posted;
    hc_match_entry_t *e = q->head;
    while (e != NULL) {
      hc_match_entry_t *next = e->next;
      if (progress_peer_failed(e->source)) {
        hcomm_request_t *req = (hcomm_request_t *)e;
        hc_match_remove(q, e);
        req->posted = 0;
        req->status.source = hc_comm_rank_of_world(req->comm, e->source);
        req->status.bytes = 0;
        hc_request_complete(req, HC_ERR_PEER_DEAD);
      }
      e = next;
    }
  }
}

/* Rerun while failures exist (from a wait about to sleep): a receive may
 * match a message of the failed peer, or be posted for it, later on. */
static void progress_apply_failures(void) {
  hc_engine.failures_pending = 0;
  if (hc_engine.peers == NULL || hc_engine.contexts == NULL)
    return;
  hc_request_foreach_active(progress_fail_one, NULL);
  progress_fail_posted();
}

int hc_progress_locked(void) {
  int moved = 0;
  if (hc_engine.self_ctx != NULL)
    moved += hc_transport_self_ops.progress(hc_engine.self_ctx);
  if (hc_engine.shm_ctx != NULL)
    moved += hc_transport_shm_ops.progress(hc_engine.shm_ctx);
  if (hc_engine.tcp_ctx != NULL)
    moved += hc_transport_tcp_ops.progress(hc_engine.tcp_ctx);
  moved += hc_proto_progress();
  moved += hc_nbc_progress_locked(); /* non-blocking collectives */
  if (hc_engine.failures_pending) {
    progress_apply_failures();
    moved++;
  }
  return moved;
}

void hc_idle_locked(long *spins) {
  if (++*spins < hc_engine.spin)
    return;
  *spins = 0;
  if (hc_engine.failed_peers > 0)
    progress_apply_failures();
  hc_engine_unlock();
  if (hc_engine.shm_ctx != NULL && hc_engine.tcp_ctx != NULL) {
    int ms = hc_engine.wait_ms < PROGRESS_SHARED_WAIT_MS
                 ? hc_engine.wait_ms
                 : PROGRESS_SHARED_WAIT_MS;
    hc_transport_tcp_ops.wait(hc_engine.tcp_ctx, ms);
    hc_transport_shm_ops.wait(hc_engine.shm_ctx, ms);
  } else if (hc_engine.tcp_ctx != NULL) {
    hc_transport_tcp_ops.wait(hc_engine.tcp_ctx, hc_engine.wait_ms);
  } else if (hc_engine.shm_ctx != NULL) {
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
