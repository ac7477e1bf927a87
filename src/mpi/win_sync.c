/*
 * One-sided synchronisation calls of the MPI face: argument checks, then
 * the engine's epochs (src/hcomm/rma_sync.c).  A call out of turn (an
 * unlock without a lock, a complete without a start, a flush outside a
 * passive epoch) is MPI_ERR_RMA_SYNC on the window's handler.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "mpi/win.h"

/* The assertion bits MPI_Win_* accept. */
#define WIN_MODES                                                              \
  (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | \
   MPI_MODE_NOSUCCEED)

static int win_sync_result(const char *fn, hc_mpi_win_t *w, hc_status_t st,
                           const char *out_of_turn) {
  if (st == HC_OK)
    return MPI_SUCCESS;
  if (st == HC_ERR_RMA_SYNC)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RMA_SYNC, "%s", out_of_turn);
  return hc_mpi_raise_status(w->errcomm, fn, st);
}

static int win_sync_enter(const char *fn, MPI_Win win, int assert,
                          hc_mpi_win_t **w) {
  int rc = hc_mpi_win_enter(fn, win, w);
  if (rc == MPI_SUCCESS && (assert & ~WIN_MODES) != 0)
    rc = hc_mpi_raise((*w)->errcomm, fn, MPI_ERR_ASSERT,
                      "unknown assertion bits 0x%x", (unsigned)assert);
  return rc;
}

int PMPI_Win_fence(int assert, MPI_Win win) {
  static const char fn[] = "MPI_Win_fence";
  hc_mpi_win_t *w = NULL;
  int rc = win_sync_enter(fn, win, assert, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  /* A window synchronised by fences barriers at each: from the first on,
   * its communicator's segment is worth making (win_begin deferred it). */
  hcomm_coll_shm_defer(w->errcomm->engine, 0);
  return win_sync_result(fn, w, hcomm_win_fence(w->engine, assert),
                         "a passive-target or start epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_fence, PMPI_Win_fence);

/* The window ranks of group's members; MPI_ERR_GROUP when one is not in
 * the window. */
static int win_group_ranks(const char *fn, hc_mpi_win_t *w, MPI_Group group,
                           int **ranks, int *n) {
  const int *world = NULL;
  int rc = hc_mpi_group_members(fn, w->errcomm, group, n, &world);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *e = w->errcomm->engine;
  int size = hcomm_comm_size(e);
  *ranks = malloc((size_t)(*n > 0 ? *n : 1) * sizeof **ranks);
  if (*ranks == NULL)
    return hc_mpi_raise(w->errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
  for (int i = 0; i < *n; i++) {
    int r = 0;
    while (r < size && hcomm_comm_world_rank(e, r) != world[i])
      r++;
    if (r == size) {
      free(*ranks);
      return hc_mpi_raise(w->errcomm, fn, MPI_ERR_GROUP,
                          "world rank %d is not in the window", world[i]);
    }
    (*ranks)[i] = r;
  }
  return MPI_SUCCESS;
}

typedef hc_status_t (*win_group_fn)(hcomm_win_t *, int, const int *, int);

static int win_group_call(const char *fn, MPI_Group group, int assert,
                          MPI_Win win, win_group_fn call,
                          const char *out_of_turn) {
  hc_mpi_win_t *w = NULL;
  int *ranks = NULL, n = 0;
  int rc = win_sync_enter(fn, win, assert, &w);
  if (rc == MPI_SUCCESS)
    rc = win_group_ranks(fn, w, group, &ranks, &n);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = call(w->engine, n, ranks, assert);
  free(ranks);
  return win_sync_result(fn, w, st, out_of_turn);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  return win_group_call("MPI_Win_post", group, assert, win, hcomm_win_post,
                        "an exposure epoch is already open");
}
HC_WEAK_ALIAS(MPI_Win_post, PMPI_Win_post);

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  return win_group_call("MPI_Win_start", group, assert, win, hcomm_win_start,
                        "an access epoch is already open");
}
HC_WEAK_ALIAS(MPI_Win_start, PMPI_Win_start);

/* Calls on a window alone. */
static int win_plain_call(const char *fn, MPI_Win win,
                          hc_status_t (*call)(hcomm_win_t *),
                          const char *out_of_turn) {
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  return win_sync_result(fn, w, call(w->engine), out_of_turn);
}

int PMPI_Win_complete(MPI_Win win) {
  return win_plain_call("MPI_Win_complete", win, hcomm_win_complete,
                        "no MPI_Win_start epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_complete, PMPI_Win_complete);

int PMPI_Win_wait(MPI_Win win) {
  return win_plain_call("MPI_Win_wait", win, hcomm_win_wait,
                        "no MPI_Win_post epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_wait, PMPI_Win_wait);

int PMPI_Win_test(MPI_Win win, int *flag) {
  static const char fn[] = "MPI_Win_test";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, w->errcomm, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  return win_sync_result(fn, w, hcomm_win_test(w->engine, flag),
                         "no MPI_Win_post epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_test, PMPI_Win_test);

/* MPI_PROC_NULL passes: lock, unlock and flush of it do nothing. */
static int win_check_target(const char *fn, hc_mpi_win_t *w, int rank) {
  int n = w->nranks;
  if ((rank >= 0 && rank < n) || rank == MPI_PROC_NULL)
    return MPI_SUCCESS;
  return hc_mpi_raise(w->errcomm, fn, MPI_ERR_RANK,
                      "invalid rank %d for a window of %d", rank, n);
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  static const char fn[] = "MPI_Win_lock";
  hc_mpi_win_t *w = NULL;
  int rc = win_sync_enter(fn, win, assert, &w);
  if (rc == MPI_SUCCESS && lock_type != MPI_LOCK_SHARED &&
      lock_type != MPI_LOCK_EXCLUSIVE)
    rc = hc_mpi_raise(w->errcomm, fn, MPI_ERR_LOCKTYPE, "invalid lock type %d",
                      lock_type);
  if (rc == MPI_SUCCESS)
    rc = win_check_target(fn, w, rank);
  if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
    return rc;
  int type =
      lock_type == MPI_LOCK_SHARED ? HCOMM_LOCK_SHARED : HCOMM_LOCK_EXCLUSIVE;
  return win_sync_result(fn, w, hcomm_win_lock(w->engine, type, rank),
                         "this rank already holds a lock on that target, or "
                         "another epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_lock, PMPI_Win_lock);

int PMPI_Win_unlock(int rank, MPI_Win win) {
  static const char fn[] = "MPI_Win_unlock";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS)
    rc = win_check_target(fn, w, rank);
  if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
    return rc;
  return win_sync_result(fn, w, hcomm_win_unlock(w->engine, rank),
                         "this rank holds no lock on that target");
}
HC_WEAK_ALIAS(MPI_Win_unlock, PMPI_Win_unlock);

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  static const char fn[] = "MPI_Win_lock_all";
  hc_mpi_win_t *w = NULL;
  int rc = win_sync_enter(fn, win, assert, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  return win_sync_result(fn, w, hcomm_win_lock_all(w->engine),
                         "a lock or another epoch is already open");
}
HC_WEAK_ALIAS(MPI_Win_lock_all, PMPI_Win_lock_all);

int PMPI_Win_unlock_all(MPI_Win win) {
  return win_plain_call("MPI_Win_unlock_all", win, hcomm_win_unlock_all,
                        "no MPI_Win_lock_all epoch is open");
}
HC_WEAK_ALIAS(MPI_Win_unlock_all, PMPI_Win_unlock_all);

/* all: every target (rank unused); local: only the origin's buffers. */
static int win_flush_call(const char *fn, MPI_Win win, int rank, int all,
                          int local) {
  hc_mpi_win_t *w = NULL;
  /* The common flush, to a target with nothing outstanding on a window
   * this thread used last, before anything is checked twice. */
  if (!all && hc_mpi_is_ready() && (w = hc_mpi_win_lookup(win)) != NULL &&
      hcomm_win_flush_done(w->engine, rank))
    return MPI_SUCCESS;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc == MPI_SUCCESS && !all)
    rc = win_check_target(fn, w, rank);
  if (rc != MPI_SUCCESS || (!all && rank == MPI_PROC_NULL))
    return rc;
  hc_status_t st = hcomm_win_flush(w->engine, all ? -1 : rank, local);
  return win_sync_result(fn, w, st, "no passive-target epoch is open");
}

int PMPI_Win_flush(int rank, MPI_Win win) {
  return win_flush_call("MPI_Win_flush", win, rank, 0, 0);
}
HC_WEAK_ALIAS(MPI_Win_flush, PMPI_Win_flush);

int PMPI_Win_flush_all(MPI_Win win) {
  return win_flush_call("MPI_Win_flush_all", win, 0, 1, 0);
}
HC_WEAK_ALIAS(MPI_Win_flush_all, PMPI_Win_flush_all);

int PMPI_Win_flush_local(int rank, MPI_Win win) {
  return win_flush_call("MPI_Win_flush_local", win, rank, 0, 1);
}
HC_WEAK_ALIAS(MPI_Win_flush_local, PMPI_Win_flush_local);

int PMPI_Win_flush_local_all(MPI_Win win) {
  return win_flush_call("MPI_Win_flush_local_all", win, 0, 1, 1);
}
HC_WEAK_ALIAS(MPI_Win_flush_local_all, PMPI_Win_flush_local_all);

int PMPI_Win_sync(MPI_Win win) {
  static const char fn[] = "MPI_Win_sync";
  hc_mpi_win_t *w = NULL;
  int rc = hc_mpi_win_enter(fn, win, &w);
  if (rc != MPI_SUCCESS)
    return rc;
  /* The unified model: the window's public and private copies are one
   * memory; a full fence orders this rank's loads and stores against
   * the other processes' on the shared mapping. */
  atomic_thread_fence(memory_order_seq_cst);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Win_sync, PMPI_Win_sync);
