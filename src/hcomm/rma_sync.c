/*
 * One-sided synchronisation: fence, post/start/complete/wait, and passive
 * target locks and flushes.
 *
 * Everything rests on two facts of rma.c: a target applies one origin's
 * active messages in the order they were sent, and answers a FLUSH (or an
 * UNLOCK) only when it reaches it, after everything sent before.  So a
 * flush is one round trip per target that saw operations since the last
 * one; a fence is that, towards every such target, then a barrier; an
 * unlock is a flush that also releases the lock.  A lock is granted by the
 * target (queued there, first come first served, while it cannot be), and
 * the origin waits for the grant before sending operations, so operations
 * only reach a target inside the epoch that allows them.  On a shared
 * window, whose operations all complete at issue (rma_direct.c), locks are
 * words in the mapping instead and an unlock sends nothing.  Device copies
 * queued towards a target (rma_direct.c) complete in each completing call
 * first, before any message or lock word says the epoch ended; where none
 * is queued, that costs one comparison.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/rma.h"

/* What a completing call (flush, unlock, fence, complete) whose own result
 * is rc returns: rc, else the failure a target reported meanwhile (taken:
 * each is returned once). */
static hc_status_t sync_completed(hcomm_win_t *win, hc_status_t rc) {
  hc_status_t remote = win->remote_error;
  win->remote_error = HC_OK;
  return rc != HC_OK ? rc : remote;
}

/* Flushes every target in ranks (NULL: all) that saw operations since its
 * last flush: sends each its FLUSH, then waits for every answer. */
static hc_status_t sync_flush_dirty(hcomm_win_t *win, const int *ranks, int n) {
  hc_status_t rc = HC_OK;
  for (int i = 0; i < n; i++) {
    int t = ranks != NULL ? ranks[i] : i;
    if (!win->dirty[t])
      continue;
    hc_status_t st = hc_rma_send_ctl(win, t, HC_RMA_FLUSH, 0, 1);
    if (rc == HC_OK)
      rc = st;
    win->dirty[t] = 0;
  }
  hc_status_t st = hc_rma_wait(win, NULL, -1);
  return sync_completed(win, rc != HC_OK ? rc : st);
}

/* A fence without MPI_MODE_NOSUCCEED opens an access epoch only for the
 * operations that follow it; a lock, lock_all or start that follows
 * instead ends it, so after their unlock or complete an operation with
 * no epoch is MPI_ERR_RMA_SYNC rather than a fence-epoch access. */
static void sync_close_fence(hcomm_win_t *win) { win->fence_open = 0; }

hc_status_t hcomm_win_fence(hcomm_win_t *win, int assert) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (win->lock_all || win->started)
    rc = HC_ERR_RMA_SYNC;
  if (rc != HC_OK) {
    hc_engine_unlock();
    return rc;
  }
  /* An operation that failed at its target fails this rank's fence, but
   * the others are in the barrier already: it is still entered, and the
   * window stays usable for the next epoch. */
  rc = hc_rma_device_complete(win, -1);
  if (!(assert &HCOMM_RMA_MODE_NOPRECEDE)) {
    hc_status_t st = sync_flush_dirty(win, NULL, win->size);
    if (rc == HC_OK)
      rc = st;
  }
  /* A target that issues nothing waits here through the origins' whole
   * epoch; epochs tend to repeat, so the wait policy judges how long by
   * the last one. */
  hc_progress_recurring_begin(&win->fence_wait);
  hc_engine_unlock();
  /* Even with nothing to complete, the barrier orders the targets' own
   * stores before the next epoch's accesses. */
  hc_status_t st = hcomm_barrier(win->comm);
  hc_engine_lock();
  hc_progress_recurring_end(&win->fence_wait);
  win->fence_open = !(assert &HCOMM_RMA_MODE_NOSUCCEED);
  hc_engine_unlock();
  return rc != HC_OK ? rc : st;
}

/* ---- post / start / complete / wait ------------------------------------- */

/* Where the window has pscw_flags, a post and a complete are counters in
 * the lock areas (rma_locks.h) instead of messages: a target adds one to
 * its word in each origin's area, an origin one to each target's
 * completions, and the waiter compares the counter with how many it took.
 * A target posts to an origin again only after its wait took that
 * origin's completion, which follows the start that took the post, so
 * each origin's word runs at most one ahead; and only origins a target
 * posted to can complete towards it, so one counter of completions per
 * target cannot take another epoch's.  The counters are raised with
 * release order after every store of the epoch (a shared window's
 * operations are complete at issue; any that went as messages are
 * flushed first), and taken with acquire order, so the origins' puts are
 * visible once the wait returns, as the target's own stores are once a
 * start does.  The waiter polls, then sleeps on its transports; the
 * publisher fences and rings each waiter's wake-up (either the sleeper's
 * last look sees the counter, or the publisher sees it asleep). */

/* The word counting target's posts to origin. */
static hc_winlock_t *sync_posts_word(const hcomm_win_t *win, int origin,
                                     int target) {
  return hc_winlock_posts(hc_rma_lock_area(win, origin), win->size, target);
}

static hc_winlock_t *sync_completions_word(const hcomm_win_t *win, int target) {
  return hc_winlock_completions(hc_rma_lock_area(win, target), win->size);
}

/* After raising counters for ranks[0..n): the full fence of the Dekker
 * pattern above, then each one's wake-up (a load where it is awake). */
static void sync_wake(const hcomm_win_t *win, const int *ranks, int n) {
  atomic_thread_fence(memory_order_seq_cst);
  for (int i = 0; i < n; i++)
    if (ranks[i] != win->rank)
      hc_engine_wake_peer_locked(hc_comm_world_of_rank(win->comm, ranks[i]));
}

/* 1 when every target of the access epoch being started posted since
 * this rank last took its post. */
static int sync_posts_arrived(void *arg) {
  const hcomm_win_t *win = arg;
  for (int i = 0; i < win->naccess; i++) {
    int t = win->access[i];
    if (atomic_load_explicit(sync_posts_word(win, win->rank, t),
                             memory_order_acquire) == win->posts_taken[t])
      return 0;
  }
  return 1;
}

/* 1 when every origin of the exposure epoch completed towards this rank. */
static int sync_completions_arrived(void *arg) {
  const hcomm_win_t *win = arg;
  uint32_t got = atomic_load_explicit(sync_completions_word(win, win->rank),
                                      memory_order_acquire) -
                 win->completes_taken;
  return got >= (uint32_t)win->post_count;
}

/* Waits until arrived(win), progressing (the rank serves what reaches it
 * meanwhile), or until a member of ranks[0..n) is gone: polls as a wait
 * on flags, then sleeps on the transports, whose wake-up the counters'
 * publisher rings (sync_wake). */
static hc_status_t sync_flag_wait(hcomm_win_t *win, int (*arrived)(void *),
                                  const int *ranks, int n) {
  long spins = 0;
  int slept = 0;
  hc_status_t rc = HC_OK;
  while (!arrived(win)) {
    if (hc_progress_locked() > 0) {
      spins = 0;
      continue;
    }
    rc = hc_rma_ranks_failure(win, ranks, n);
    if (rc != HC_OK)
      break;
    if (hc_idle_poll_locked(&spins))
      continue;
    /* A collective step on a segment's bell or a device event wakes no
     * transport: then the sleep is kept short. */
    hc_idle_sleep_unless_locked(
        arrived, win,
        hc_nbc_nshm > 0 || hc_nbc_npoll > 0 ? 1 : hc_engine.wait_ms);
    slept = 1;
  }
  if (slept) /* no request completes here for the watchdog to see */
    hc_watchdog_feed_locked();
  return rc;
}

hc_status_t hcomm_win_post(hcomm_win_t *win, int n, const int *ranks,
                           int assert) {
  if (win == NULL || n < 0 || (n > 0 && ranks == NULL))
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->posted ? HC_ERR_RMA_SYNC : HC_OK;
  for (int i = 0; rc == HC_OK && i < n; i++)
    if (ranks[i] < 0 || ranks[i] >= win->size)
      rc = HC_ERR_RANK;
  if (rc == HC_OK) {
    win->posted = 1;
    win->post_count = n;
    memcpy(win->exposed, ranks, (size_t)n * sizeof *ranks);
  }
  /* NOCHECK: the origins' starts skip the notice (the standard asks for
   * NOCHECK on both sides or neither). */
  int notify = rc == HC_OK && !(assert &HCOMM_RMA_MODE_NOCHECK);
  for (int i = 0; notify && win->pscw_flags && i < n; i++) {
    hc_winlock_t *word = sync_posts_word(win, ranks[i], win->rank);
    /* Only this rank writes it. */
    atomic_store_explicit(word,
                          atomic_load_explicit(word, memory_order_relaxed) + 1,
                          memory_order_release);
  }
  if (notify && win->pscw_flags)
    sync_wake(win, ranks, n);
  for (int i = 0; notify && !win->pscw_flags && rc == HC_OK && i < n; i++) {
    hcomm_request_t *req = NULL;
    rc = hc_isend_locked(NULL, 0, ranks[i], HC_RMA_TAG_POST, win->comm,
                         HCOMM_SEND_STANDARD, 0, &req);
    if (rc == HC_OK) {
      hc_wait_locked(req); /* a zero-byte eager send leaves at once */
      rc = req->status.error;
      hc_request_release(req);
    }
  }
  hc_engine_unlock();
  return rc;
}

/* Waits for the post notice of every target of the access epoch being
 * started (win->access), by messages. */
static hc_status_t sync_posts_by_message(hcomm_win_t *win) {
  hc_status_t rc = HC_OK;
  for (int i = 0; rc == HC_OK && i < win->naccess; i++) {
    hcomm_request_t *req = NULL;
    rc = hc_irecv_locked(NULL, 0, win->access[i], HC_RMA_TAG_POST, win->comm, 0,
                         &req);
    if (rc == HC_OK) {
      hc_wait_locked(req);
      rc = req->status.error;
      hc_request_release(req);
    }
  }
  return rc;
}

hc_status_t hcomm_win_start(hcomm_win_t *win, int n, const int *ranks,
                            int assert) {
  if (win == NULL || n < 0 || (n > 0 && ranks == NULL))
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->started || win->lock_all ? HC_ERR_RMA_SYNC : HC_OK;
  for (int i = 0; rc == HC_OK && i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= win->size) {
      rc = HC_ERR_RANK;
      break;
    }
    win->access[i] = ranks[i];
  }
  if (rc == HC_OK)
    win->naccess = n;
  /* Wait for every target's post notice, unless the user vouches for it.
   * In a loop of epochs the targets post once they are done with the
   * last one, so this wait recurs like the fence's barrier. */
  int check = rc == HC_OK && !(assert &HCOMM_RMA_MODE_NOCHECK);
  hc_progress_recurring_begin(&win->start_wait);
  if (check && win->pscw_flags) {
    rc = sync_flag_wait(win, sync_posts_arrived, win->access, n);
    for (int i = 0; rc == HC_OK && i < n; i++)
      win->posts_taken[win->access[i]]++;
  } else if (check) {
    rc = sync_posts_by_message(win);
  }
  hc_progress_recurring_end(&win->start_wait);
  if (rc == HC_OK) {
    win->started = 1;
    sync_close_fence(win);
  } else if (!win->started)
    win->naccess = 0;
  hc_engine_unlock();
  return rc;
}

/* The complete's notices by counters: operations that went as messages
 * (out of the direct path's reach) flushed first, then each target's
 * completions raised, also after a failure, so no live target waits for
 * an epoch that ended. */
static hc_status_t sync_complete_by_flags(hcomm_win_t *win, hc_status_t rc) {
  hc_status_t st = sync_flush_dirty(win, win->access, win->naccess);
  for (int i = 0; i < win->naccess; i++)
    atomic_fetch_add_explicit(sync_completions_word(win, win->access[i]), 1,
                              memory_order_release);
  sync_wake(win, win->access, win->naccess);
  return rc != HC_OK ? rc : st;
}

hc_status_t hcomm_win_complete(hcomm_win_t *win) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->started ? HC_OK : HC_ERR_RMA_SYNC;
  if (rc == HC_OK)
    rc = hc_rma_device_complete(win, -1);
  if (win->started && win->pscw_flags)
    rc = sync_complete_by_flags(win, rc);
  for (int i = 0; rc == HC_OK && !win->pscw_flags && i < win->naccess; i++) {
    rc = hc_rma_send_ctl(win, win->access[i], HC_RMA_COMPLETE, 0, 0);
    win->dirty[win->access[i]] = 0;
  }
  if (win->started) {
    hc_status_t st = hc_rma_wait(win, NULL, -1);
    rc = sync_completed(win, rc != HC_OK ? rc : st);
    /* A dead target's operations may have gone nowhere without an error
     * (a direct store, a message still queued). */
    if (rc == HC_OK)
      rc = hc_rma_ranks_failure(win, win->access, win->naccess);
    win->started = 0;
    win->naccess = 0;
  }
  hc_engine_unlock();
  return rc;
}

static void sync_exposure_end(hcomm_win_t *win) {
  win->posted = 0;
  win->post_count = 0;
}

/* Takes the completions of the exposure epoch when all came. */
static int sync_exposure_done(hcomm_win_t *win) {
  if (win->pscw_flags) {
    if (!sync_completions_arrived(win))
      return 0;
    win->completes_taken += (uint32_t)win->post_count;
  } else {
    if (win->completes_got < win->post_count)
      return 0;
    win->completes_got -= win->post_count;
  }
  sync_exposure_end(win);
  return 1;
}

/* Not done yet, and an origin it was posted to is dead: its completion
 * may never come, so the epoch ends with that failure (what the window
 * holds is undefined from then on, as ULFM says). */
static hc_status_t sync_exposure_failure(hcomm_win_t *win) {
  hc_status_t why = hc_rma_ranks_failure(win, win->exposed, win->post_count);
  if (why != HC_OK) {
    win->completes_got = 0;
    sync_exposure_end(win);
  }
  return why;
}

hc_status_t hcomm_win_wait(hcomm_win_t *win) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->posted ? HC_OK : HC_ERR_RMA_SYNC;
  long spins = 0;
  /* A target that issues nothing waits here through the origins' whole
   * epoch, as in the fence's barrier. */
  hc_progress_recurring_begin(&win->exposure_wait);
  if (rc == HC_OK && win->pscw_flags &&
      sync_flag_wait(win, sync_completions_arrived, win->exposed,
                     win->post_count) != HC_OK)
    rc = sync_exposure_failure(win);
  while (rc == HC_OK && !sync_exposure_done(win)) {
    int moved = hc_progress_locked();
    if (moved == 0 && (rc = sync_exposure_failure(win)) != HC_OK)
      break;
    if (moved > 0)
      spins = 0;
    else
      hc_idle_locked(&spins);
  }
  hc_progress_recurring_end(&win->exposure_wait);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_win_test(hcomm_win_t *win, int *flag) {
  if (win == NULL || flag == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->posted ? HC_OK : HC_ERR_RMA_SYNC;
  if (rc == HC_OK) {
    hc_progress_locked();
    *flag = sync_exposure_done(win);
    if (!*flag)
      rc = sync_exposure_failure(win);
  }
  hc_engine_unlock();
  return rc;
}

/* ---- passive target ------------------------------------------------------ */

static int sync_any_locked(const hcomm_win_t *win) {
  for (int i = 0; i < win->size; i++)
    if (win->locked[i])
      return 1;
  return 0;
}

static int sync_any_dirty(const hcomm_win_t *win) {
  for (int i = 0; i < win->size; i++)
    if (win->dirty[i])
      return 1;
  return 0;
}

/* Asks target for a lock and waits for the grant. */
static hc_status_t sync_lock_by_message(hcomm_win_t *win, int type,
                                        int target) {
  hc_status_t rc = hc_rma_send_ctl(win, target, HC_RMA_LOCK, type, 1);
  return rc == HC_OK ? hc_rma_wait(win, NULL, target) : rc;
}

/* Ends the lock epoch on target: its operations done there, the lock
 * released (in the mapping, or by an UNLOCK answered once the target
 * applied everything before it). */
static hc_status_t sync_unlock(hcomm_win_t *win, int type, int target) {
  hc_status_t queued = hc_rma_device_complete(win, target);
  hc_status_t rc = hc_rma_direct_locks(win, target)
                       ? hc_rma_direct_unlock(win, type, target)
                       : hc_rma_send_ctl(win, target, HC_RMA_UNLOCK, 0, 1);
  win->dirty[target] = 0;
  return queued != HC_OK ? queued : rc;
}

hc_status_t hcomm_win_lock(hcomm_win_t *win, int type, int rank) {
  if (win == NULL || rank < 0 || rank >= win->size ||
      (type != HCOMM_LOCK_SHARED && type != HCOMM_LOCK_EXCLUSIVE))
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (win->locked[rank] || win->lock_all || win->started)
    rc = HC_ERR_RMA_SYNC;
  if (rc == HC_OK && hc_rma_direct_locks(win, rank))
    rc = hc_rma_direct_lock(win, type, rank);
  else if (rc == HC_OK)
    rc = sync_lock_by_message(win, type, rank);
  if (rc == HC_OK) {
    win->locked[rank] = (unsigned char)type;
    sync_close_fence(win);
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_win_unlock(hcomm_win_t *win, int rank) {
  if (win == NULL || rank < 0 || rank >= win->size)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->locked[rank] ? HC_OK : HC_ERR_RMA_SYNC;
  if (rc == HC_OK) {
    rc = sync_unlock(win, win->locked[rank], rank);
    hc_status_t st = hc_rma_quiet(win) ? HC_OK : hc_rma_wait(win, NULL, -1);
    rc = sync_completed(win, rc != HC_OK ? rc : st);
    if (rc == HC_OK) /* see hcomm_win_complete */
      rc = hc_rma_target_failure(win, rank);
    win->locked[rank] = 0;
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_win_lock_all(hcomm_win_t *win) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (win->lock_all || win->started || sync_any_locked(win))
    rc = HC_ERR_RMA_SYNC;
  for (int i = 0; rc == HC_OK && i < win->size; i++)
    rc = hc_rma_direct_locks(win, i)
             ? hc_rma_direct_lock(win, HCOMM_LOCK_SHARED, i)
             : hc_rma_send_ctl(win, i, HC_RMA_LOCK, HCOMM_LOCK_SHARED, 1);
  if (rc == HC_OK)
    rc = hc_rma_wait(win, NULL, -1);
  if (rc == HC_OK) {
    win->lock_all = 1;
    sync_close_fence(win);
  }
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_win_unlock_all(hcomm_win_t *win) {
  if (win == NULL)
    return HC_ERR_ARG;
  hc_engine_lock();
  hc_status_t rc = win->lock_all ? HC_OK : HC_ERR_RMA_SYNC;
  for (int i = 0; win->lock_all && i < win->size; i++) {
    hc_status_t st = sync_unlock(win, HCOMM_LOCK_SHARED, i);
    if (rc == HC_OK)
      rc = st;
  }
  if (win->lock_all) {
    hc_status_t st = hc_rma_wait(win, NULL, -1);
    rc = sync_completed(win, rc != HC_OK ? rc : st);
    if (rc == HC_OK)
      rc = hc_rma_ranks_failure(win, NULL, win->size);
    win->lock_all = 0;
  }
  hc_engine_unlock();
  return rc;
}

int hcomm_win_flush_done(const hcomm_win_t *win, int rank) {
  /* On one thread no other touches the window meanwhile; the full test of
   * hcomm_win_flush decides the same. */
  return !hc_engine.locking && win != NULL && rank >= 0 && rank < win->size &&
         (win->lock_all || win->locked[rank]) && !win->dirty[rank] &&
         win->dev_pending[rank] == 0 && hc_rma_quiet(win) &&
         hc_engine.failed_peers == 0;
}

hc_status_t hcomm_win_flush(hcomm_win_t *win, int rank, int local) {
  if (win == NULL || rank < -1 || rank >= win->size)
    return HC_ERR_ARG;
  if (hcomm_win_flush_done(win, rank))
    return HC_OK;
  hc_engine_lock();
  hc_status_t rc = HC_OK;
  if (!win->lock_all &&
      (rank >= 0 ? !win->locked[rank] : !sync_any_locked(win)))
    rc = HC_ERR_RMA_SYNC;
  /* Queued device copies are one operation for a local flush too: the
   * copy reads the origin's buffer and writes the target's together. */
  if (rc == HC_OK)
    rc = hc_rma_device_complete(win, rank);
  /* Only direct operations since the last flush (nothing in flight,
   * nothing sent): every one is complete already. */
  int done =
      rc != HC_OK || (hc_rma_quiet(win) &&
                      (rank >= 0 ? !win->dirty[rank] : !sync_any_dirty(win)));
  if (!done && local) /* data is copied at issue: only gets wait */
    rc = sync_completed(win, hc_rma_wait(win, NULL, rank));
  else if (!done && rank >= 0)
    rc = sync_flush_dirty(win, &rank, 1);
  else if (!done)
    rc = sync_flush_dirty(win, NULL, win->size);
  /* A dead target's operations may have gone nowhere without an error. */
  for (int i = rank < 0 ? 0 : rank;
       rc == HC_OK && hc_engine.failed_peers > 0 && i < win->size; i++) {
    if (win->lock_all || win->locked[i])
      rc = hc_rma_target_failure(win, i);
    if (rank >= 0)
      break;
  }
  hc_engine_unlock();
  return rc;
}
