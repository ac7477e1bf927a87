/*
 * One-sided operations that move without the target's help.
 *
 * At window creation each target gets a way in (hcomm_win_t.via):
 *   - SHARED: every member's memory is one mapping of this node
 *     (hcomm_win_share).  Every operation is a load and store here; the
 *     ones that must be atomic (accumulate, get_accumulate, compare and
 *     swap) hold the target's atomic word (rma_locks.h) while they apply.
 *     The choice is collective (all members or none), so no accumulate to
 *     the window ever runs in a target's progress beside one under the
 *     word, and accumulates from one origin apply in issue order because
 *     each is done before the call returns.
 *   - SELF, PEER_MEMORY and RDMA: the origin's own memory, another local
 *     rank's through a transport that reaches it without the peer's help
 *     (HC_TRANSPORT_PEER_MEMORY: CMA), or memory the target registered at
 *     creation (host_reg) and whose key every member published, written
 *     and read with the transport's rdma_write and rdma_read (verbs RDMA
 *     WRITE and READ).  Only puts and gets go these ways;
 *     accumulates keep to active messages, where the target applies them
 *     one at a time, so their atomicity and order are those of rma.c.
 *     The standard orders no put or get against another operation, and a
 *     put or get that conflicts with an accumulate in one epoch is
 *     erroneous, so the two paths need no ordering between them.  A
 *     device window is registered from its dma-buf (mem_reg) where the
 *     runtime and the transport can, and is never reached by CMA.
 *   - DEVICE_IPC: another local rank's device window imported here: puts
 *     and gets are device copies through the import (from and to device
 *     memory queued on hcmpi's stream, see below); accumulates too,
 *     under the target's atomic word in the lock areas every member maps
 *     when all run on one node (direct_device_locks), which the target
 *     also holds while its progress applies an operation
 *     (hc_rma_direct_hold), so they stay atomic whoever applies them.
 *
 * A direct operation is complete when it returns, except a DEVICE_IPC
 * put or get whose origin buffer is device memory: its copy is queued on
 * hcmpi's stream of that device and the window counts it (per target);
 * the completing calls (flush, unlock, fence, complete, free) wait for
 * the stream once where copies are queued, a request (MPI_Rput, MPI_Rget)
 * completes when a mark recorded after its copy is reached, and any other
 * operation towards that target waits for them first (rma.c), so
 * accumulates find their bytes.  It marks nothing dirty, so a flush or
 * fence that follows only direct operations sends no message.
 *
 * An origin waits for its targets' post notices before any access
 * (rma_sync.c), so a direct access stays inside the epoch that allows it;
 * on a shared window they are counters in the lock areas (rma_locks.h),
 * else messages.  Passive-target locks are messages too, except on a
 * shared window, where every member takes them in the mapping (the epoch
 * word of the target's lock area), so a lock, its operations and the
 * unlock touch no other process.
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/devpath.h"
#include "hcomm/rma.h"
#include "hcomm/rma_locks.h"
#include "util/copy.h"
#include "util/env.h"
#include "util/log.h"
#include "util/shmseg.h"

/* Pieces of one operation through the transport: past it, one active
 * message costs less than that many system calls. */
#define RMA_DIRECT_SEGS_MAX 64
/* Pieces whose (offset, length) pairs live on the stack. */
#define RMA_DIRECT_PAIRS_STACK 16

static int direct_enabled(void) { return hc_env_bool("HCMPI_RMA_DIRECT", 1); }

/* A device window: its whole allocation as a dma-buf, registered with
 * the first transport that registers device memory for RDMA (verbs); the
 * window's own addresses are the region's, so peers write and read it at
 * base + displacement. */
static uint64_t direct_register_device(hcomm_win_t *win) {
  for (int i = 0; i < hc_engine.ntransports; i++) {
    const hc_engine_transport_t *t = &hc_engine.transports[i];
    if (t->ops->mem_reg == NULL || t->ops->rdma_write == NULL)
      continue;
    hc_transport_mem_t mem = {.addr = win->mem.base, .window = 1};
    uint64_t key = HC_RMA_NO_KEY;
    if (hc_device_dmabuf_export(&win->mem, &mem.dmabuf_fd, &mem.dmabuf_offset,
                                &mem.len) != HC_OK)
      return HC_RMA_NO_KEY; /* the runtime cannot: no transport could */
    hc_status_t rc = t->ops->mem_reg(t->ctx, &mem, &win->rdma_handle, &key);
    close(mem.dmabuf_fd); /* the registration holds the memory now */
    if (rc != HC_OK)
      continue;
    win->rdma_slot = i;
    win->rdma_device = 1;
    return key;
  }
  return HC_RMA_NO_KEY;
}

uint64_t hc_rma_direct_register(hcomm_win_t *win) {
  if (!direct_enabled() || win->dynamic || win->bytes == 0 ||
      !hc_engine.initialized)
    return HC_RMA_NO_KEY;
  if (win->mem.kind != HC_MEM_HOST)
    return direct_register_device(win);
  for (int i = 0; i < hc_engine.ntransports; i++) {
    const hc_engine_transport_t *t = &hc_engine.transports[i];
    uint64_t key = HC_RMA_NO_KEY;
    if (t->ops->host_reg == NULL || t->ops->rdma_write == NULL ||
        t->ops->host_reg(t->ctx, win->base, win->bytes, &win->rdma_handle,
                         &key) != HC_OK)
      continue;
    win->rdma_slot = i;
    return key;
  }
  return HC_RMA_NO_KEY;
}

void hc_rma_direct_deregister(hcomm_win_t *win) {
  if (win->rdma_slot < 0)
    return;
  const hc_engine_transport_t *t = &hc_engine.transports[win->rdma_slot];
  if (win->rdma_device)
    t->ops->mem_dereg(t->ctx, win->rdma_handle);
  else
    t->ops->host_dereg(t->ctx, win->rdma_handle);
  win->rdma_slot = -1;
  win->rdma_device = 0;
  win->rdma_handle = NULL;
}

/* The direct way to target t other than this rank, or MESSAGE.  A device
 * window is never reached by CMA; by RDMA where the device path policy
 * lets it, and on this node only where it forbids IPC (which
 * hc_rma_direct_import then tries for what stays MESSAGE). */
static int direct_way_to_peer(const hcomm_win_t *win, int t) {
  int world = hc_comm_world_of_rank(win->comm, t);
  const hc_peer_t *peer = &hc_engine.peers[world];
  if (peer->ops == NULL)
    return HC_RMA_VIA_MESSAGE;
  if (win->device[t] &&
      (!hc_devpath_rma_permits(world, 1) ||
       (hc_engine_is_local(world) && hc_devpath_rma_permits(world, 0))))
    return HC_RMA_VIA_MESSAGE;
  if (!win->device[t] && (peer->ops->flags & HC_TRANSPORT_PEER_MEMORY) &&
      peer->ops->put != NULL)
    return HC_RMA_VIA_PEER_MEMORY;
  /* Its key is for the same kind of transport as the one reaching it. */
  if (peer->ops->rdma_write != NULL && peer->ops->rdma_read != NULL &&
      win->rdma_keys[t] != HC_RMA_NO_KEY)
    return HC_RMA_VIA_RDMA;
  return HC_RMA_VIA_MESSAGE;
}

void hc_rma_direct_choose(hcomm_win_t *win) {
  int on = direct_enabled();
  for (int t = 0; t < win->size; t++) {
    if (!on || win->dynamic)
      win->via[t] = HC_RMA_VIA_MESSAGE;
    else if (t == win->rank) /* device memory: staged by hc_rma_apply_at */
      win->via[t] = HC_RMA_VIA_SELF;
    else
      win->via[t] = (unsigned char)direct_way_to_peer(win, t);
  }
}

/* ---- device windows of other local ranks -------------------------------- */

/* What each member publishes of its device window. */
typedef struct direct_ipc_card {
  hc_ipc_handle_t handle;
  uint64_t offset; /* of the window's base in the export */
  uint64_t ok;     /* exported */
} direct_ipc_card_t;

/* What rank 0 offers of the device windows' lock areas. */
typedef struct direct_locks_offer {
  char name[HC_SHMSEG_NAME_MAX];
  uint64_t size; /* 0: none */
} direct_locks_offer_t;

/* 1 when every member runs on this node (the same answer on every
 * member: either all are local to each other or each sees one that is
 * not). */
static int direct_one_node(const hcomm_win_t *win) {
  for (int t = 0; t < win->size; t++)
    if (t != win->rank &&
        !hc_engine_is_local(hc_comm_world_of_rank(win->comm, t)))
      return 0;
  return 1;
}

/* Maps the node's lock areas that rank 0 offered (made there first). */
static unsigned char *direct_locks_map(const direct_locks_offer_t *offer,
                                       int fd) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size != offer->size)
    return NULL;
  void *map = mmap(NULL, (size_t)offer->size, PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
  return map == MAP_FAILED ? NULL : map;
}

/* Device windows on one node (collective): every member maps one file of
 * lock areas (rank 0 makes it, zeroed, so every word starts free), whose
 * atomic words then serialise the accumulates that local ranks apply by
 * IPC with those the target applies itself.  Without it (members on
 * several nodes, direct paths off, a failure anywhere) accumulates stay
 * active messages. */
static hc_status_t direct_device_locks(hcomm_win_t *win) {
  direct_locks_offer_t offer = {{0}, 0};
  size_t stride = hc_winlock_bytes(win->size);
  size_t size = stride * (size_t)win->size;
  int want = direct_enabled() && direct_one_node(win), fd = -1, memfd = 0;
  if (win->rank == 0 && want &&
      (fd = hc_shmseg_create(offer.name, sizeof offer.name, &memfd)) >= 0 &&
      hc_shmseg_reserve(fd, offer.name, size) == HC_OK)
    offer.size = size;
  hc_status_t rc = hcomm_bcast(&offer, sizeof offer, 0, win->comm);
  unsigned char *map = NULL;
  if (rc == HC_OK && want && offer.size == size) {
    int mine = win->rank == 0 ? fd : hc_shmseg_open(offer.name);
    map = direct_locks_map(&offer, mine);
    if (mine >= 0 && mine != fd)
      close(mine);
  }
  int32_t mine_failed = map == NULL, failed = 1;
  hc_status_t vote =
      hcomm_allreduce(&mine_failed, &failed, 1, &hc_coll_max_int32, win->comm);
  if (rc == HC_OK)
    rc = vote;
  int ok = !failed;
  if (fd >= 0)
    close(fd);
  if (win->rank == 0 && offer.size > 0 && !memfd)
    shm_unlink(offer.name);
  if (rc != HC_OK || !ok) {
    if (map != NULL)
      munmap(map, size);
    return rc;
  }
  hc_engine_lock();
  win->shared_locks = map;
  win->lock_stride = stride;
  win->device_locks_len = size;
  hc_engine_unlock();
  return HC_OK;
}

/* One round of the exchange (collective): every member's card, and the
 * imports of those this rank can reach.  stale[t] becomes 1 where an
 * import of t's export was tried and failed: a key that died with a
 * freed allocation whose address a new one took (a runtime that cannot
 * tell the two apart keeps the old export cached). */
static hc_status_t direct_import_round(hcomm_win_t *win, int32_t *stale) {
  direct_ipc_card_t mine = {0};
  size_t off = 0;
  if (direct_enabled() && !win->dynamic && win->mem.kind != HC_MEM_HOST &&
      win->mem.size > 0 &&
      hc_device_ipc_export(win->base, &win->mem, &mine.handle, &off) == HC_OK) {
    mine.offset = off;
    mine.ok = 1;
  }
  direct_ipc_card_t *cards = calloc((size_t)win->size, sizeof *cards);
  if (cards == NULL)
    return HC_ERR_NOMEM;
  hc_status_t rc = hcomm_allgather(&mine, sizeof mine, cards, win->comm);
  hc_engine_lock();
  for (int t = 0; rc == HC_OK && t < win->size; t++) {
    const direct_ipc_card_t *c = &cards[t];
    void *at = NULL;
    /* Only a device window that nothing else reaches, of a runtime
     * loaded here, on this node, whose export covers the window. */
    int world = hc_comm_world_of_rank(win->comm, t);
    if (t == win->rank || !c->ok || win->via[t] != HC_RMA_VIA_MESSAGE ||
        !win->device[t] || !hc_devpath_rma_permits(world, 0) ||
        hc_device_backend((hc_mem_kind_t)c->handle.kind) == NULL ||
        !hc_engine_is_local(world) || c->offset > c->handle.size ||
        win->sizes[t] > c->handle.size - c->offset)
      continue;
    if (hc_device_ipc_import(&c->handle, &at) != HC_OK) {
      stale[t] = 1;
      continue;
    }
    win->ipc_bases[t] = (char *)at + c->offset;
    win->ipc_imports[t] = c->handle;
    /* The device the import lives on, for copies with host memory; a
     * runtime that cannot say leaves it to device-to-device copies. */
    if (hc_device_classify(win->ipc_bases[t], &win->ipc_mem[t]) !=
        (hc_mem_kind_t)c->handle.kind)
      win->ipc_mem[t] = hc_rma_host_mem;
    win->via[t] = HC_RMA_VIA_DEVICE_IPC;
    hc_log(HC_LOG_DEBUG, "rma",
           "rank %d reaches rank %d's device window by ipc", win->rank, t);
  }
  hc_engine_unlock();
  free(cards);
  return rc;
}

hc_status_t hc_rma_direct_import(hcomm_win_t *win) {
  size_t n = (size_t)win->size;
  int32_t *stale = calloc(n, sizeof *stale), *any = calloc(n, sizeof *any);
  if (stale == NULL || any == NULL) {
    free(stale);
    free(any);
    return HC_ERR_NOMEM;
  }
  hc_status_t rc = direct_import_round(win, stale);
  /* Members whose export some importer could not open export afresh
   * (as point-to-point does on a stale RTS), once, and everyone tries
   * again: each member learns the same from the reduction. */
  if (rc == HC_OK)
    rc = hcomm_allreduce(stale, any, n, &hc_coll_max_int32, win->comm);
  int again = 0;
  for (size_t t = 0; rc == HC_OK && t < n; t++)
    again |= any[t];
  if (again) {
    if (any[win->rank])
      hc_device_forget(win->base);
    memset(stale, 0, n * sizeof *stale);
    rc = direct_import_round(win, stale);
  }
  free(stale);
  free(any);
  if (rc == HC_OK)
    rc = direct_device_locks(win);
  return rc;
}

void hc_rma_direct_release(hcomm_win_t *win) {
  for (int t = 0; t < win->size; t++) {
    if (win->via[t] != HC_RMA_VIA_DEVICE_IPC)
      continue;
    hc_device_forget(win->ipc_bases[t]);
    hc_device_ipc_release(&win->ipc_imports[t]);
    win->ipc_bases[t] = NULL;
    win->via[t] = HC_RMA_VIA_MESSAGE;
  }
  /* The caller drained the queue; nothing is queued through it again. */
  if (win->dev_drain != NULL)
    hc_devpath_mark_free(win->dev_drain);
  win->dev_drain = NULL;
}

/* What a member says of itself in hcomm_win_share. */
enum {
  DIRECT_SHARE_MAPPED = 1, /* it loads and stores through the mapping */
  DIRECT_SHARE_WAKES = 2   /* its transport wakes every other member */
};

hc_status_t hcomm_win_share(hcomm_win_t *win, char *const *bases, void *locks) {
  if (win == NULL || locks == NULL || win->dynamic || win->size <= 0)
    return HC_ERR_ARG;
  size_t n = (size_t)win->size;
  int mine = bases != NULL && direct_enabled() ? DIRECT_SHARE_MAPPED : 0;
  int *all = malloc(n * sizeof *all);
  char **copy = malloc(n * sizeof *copy);
  uint32_t *posts_taken = calloc(n, sizeof *posts_taken);
  if (all == NULL || copy == NULL)
    mine = 0; /* still take part: the others wait for this rank */
  /* Post and complete as words of the lock areas need every waiter to be
   * woken when they change (rma_sync.c). */
  hc_engine_lock();
  if (mine && posts_taken != NULL &&
      hc_engine_can_wake_peers_locked(win->comm->world_ranks, win->size))
    mine |= DIRECT_SHARE_WAKES;
  hc_engine_unlock();
  hc_status_t rc = hcomm_allgather(&mine, sizeof mine, all, win->comm);
  int every = all != NULL && copy != NULL && rc == HC_OK ? mine : 0;
  for (size_t i = 0; every && i < n; i++)
    every &= all[i];
  free(all);
  if (!(every & DIRECT_SHARE_MAPPED)) {
    free(copy);
    free(posts_taken);
    return rc;
  }
  memcpy(copy, bases, n * sizeof *copy);
  hc_engine_lock();
  if (every & DIRECT_SHARE_WAKES) {
    win->pscw_flags = 1;
    win->posts_taken = posts_taken;
    posts_taken = NULL;
  }
  free(posts_taken);
  win->shared_bases = copy;
  win->shared_locks = locks;
  win->lock_stride = hc_winlock_bytes(win->size);
  win->test_die_holding = hc_env_long("HCMPI_TEST_RMA_DIE_HOLDING", 0);
  memset(win->via, HC_RMA_VIA_SHARED, n);
  hc_engine_unlock();
  return HC_OK;
}

/* 1 when every piece lies inside the target's window. */
static int direct_in_range(const hcomm_win_t *win, const hcomm_rma_op_t *op) {
  size_t limit = win->sizes[op->target];
  for (size_t i = 0; i < op->nsegs; i++) {
    size_t off = op->disp + op->segs[i].off;
    if (off < op->disp || off + op->segs[i].len < off ||
        off + op->segs[i].len > limit)
      return 0;
  }
  return 1;
}

static int direct_is_atomic(int kind) {
  return kind == HCOMM_RMA_ACC || kind == HCOMM_RMA_GET_ACC ||
         kind == HCOMM_RMA_CAS;
}

size_t hcomm_win_lock_bytes(int members) { return hc_winlock_bytes(members); }

/* Tests only (HCMPI_TEST_RMA_DIE_HOLDING=n, read at hcomm_win_share): this
 * process kills itself inside its n-th hold of a shared window's atomic
 * word, so that the survivors' recovery of the word runs on demand. */
static void direct_test_die_holding(hcomm_win_t *win) {
  if (win->test_die_holding > 0 && --win->test_die_holding == 0)
    raise(SIGKILL);
}

/* Waits between progress polls while the atomic word is held: the holder
 * holds it for one apply, so a longer wait means a descheduled or dead
 * holder, and only a poll learns of a death (hc_rma_progress_locked then
 * frees the word, hc_rma_direct_release_dead). */
#define DIRECT_SPINS_PER_POLL 1024

/* Holds the atomic word of a target's lock area for one operation's copy
 * and combine; yields now and then so an oversubscribed node lets the
 * holder run. */
static void direct_lock(hcomm_win_t *win, hc_winlock_t *area) {
  unsigned spins = 0;
  while (!hc_winlock_atomic_try(area, win->rank))
    while (hc_winlock_atomic_holder(area) >= 0)
      if (++spins % 64 == 0) {
        sched_yield();
        if (spins % DIRECT_SPINS_PER_POLL == 0)
          hc_progress_locked();
      }
  direct_test_die_holding(win);
}

int hc_rma_direct_hold(hcomm_win_t *win, int kind) {
  if (win->device_locks_len == 0 || kind == HCOMM_RMA_PUT)
    return 0;
  /* A wait here progresses; the operations queued behind this one wait
   * for it (win->applying), so each origin's still apply in order. */
  win->applying = 1;
  direct_lock(win, hc_rma_lock_area(win, win->rank));
  return 1;
}

void hc_rma_direct_unhold(hcomm_win_t *win, int held) {
  if (!held)
    return;
  hc_winlock_atomic_release(hc_rma_lock_area(win, win->rank));
  win->applying = 0;
}

/* ---- passive-target locks of shared windows ------------------------------ */

static int direct_rank_dead(void *win, int rank) {
  return rank >= 0 && rank < ((hcomm_win_t *)win)->size &&
         hc_rma_target_failure(win, rank) != HC_OK;
}

int hc_winlock_free_dead(hc_winlock_t *area, int members,
                         int (*dead)(void *ctx, int rank), void *ctx) {
  int freed = 0;
  uint32_t v = atomic_load_explicit(&area[0], memory_order_relaxed);
  if (v != 0 && dead(ctx, (int)v - 1) &&
      atomic_compare_exchange_strong_explicit(
          &area[0], &v, 0, memory_order_relaxed, memory_order_relaxed))
    freed++;
  v = atomic_load_explicit(&area[1], memory_order_relaxed);
  if (v & HC_WINLOCK_EXCLUSIVE) {
    if (dead(ctx, (int)(v & ~HC_WINLOCK_EXCLUSIVE) - 1) &&
        atomic_compare_exchange_strong_explicit(
            &area[1], &v, 0, memory_order_relaxed, memory_order_relaxed))
      freed++;
    return freed;
  }
  for (int r = 0; v != 0 && r < members; r++) {
    _Atomic uint8_t *mark = hc_winlock_holder(area, r);
    if (atomic_load_explicit(mark, memory_order_relaxed) && dead(ctx, r) &&
        atomic_exchange_explicit(mark, 0, memory_order_relaxed)) {
      atomic_fetch_sub_explicit(&area[1], 1, memory_order_release);
      freed++;
    }
  }
  return freed;
}

int hc_rma_direct_release_dead(hcomm_win_t *win) {
  if (win->shared_locks == NULL)
    return 0;
  int freed = 0;
  for (int t = 0; t < win->size; t++)
    freed += hc_winlock_free_dead(hc_rma_lock_area(win, t), win->size,
                                  direct_rank_dead, win);
  return freed;
}

hc_status_t hc_rma_direct_lock(hcomm_win_t *win, int type, int target) {
  hc_winlock_t *area = hc_rma_lock_area(win, target);
  int exclusive = type == HCOMM_LOCK_EXCLUSIVE;
  long spins = 0;
  /* Progress while waiting: the holder may need this rank's answers, and
   * a dead holder's share is freed there (hc_rma_direct_release_dead).
   * Releasing the lock word rings no doorbell: a flag's wait. */
  while (!hc_winlock_epoch_try(area, exclusive, win->rank)) {
    hc_status_t rc = hc_rma_target_failure(win, target);
    if (rc != HC_OK)
      return rc;
    if (hc_progress_locked() > 0)
      spins = 0;
    else
      hc_idle_flag_locked(&spins);
  }
  return HC_OK;
}

hc_status_t hc_rma_direct_unlock(hcomm_win_t *win, int type, int target) {
  hc_winlock_epoch_release(hc_rma_lock_area(win, target),
                           type == HCOMM_LOCK_EXCLUSIVE, win->rank);
  return hc_rma_target_failure(win, target);
}

/* Applies op at addr, a target's memory as this process maps it. */
static hc_status_t direct_apply(hcomm_win_t *win, const hcomm_rma_op_t *op,
                                char *addr, const uint64_t *pairs) {
  hc_rma_wire_t w = hc_rma_wire_of(op);
  int atomic = direct_is_atomic(op->kind) || op->atomic_read;
  /* Without a shared mapping (this rank's own memory) the engine lock,
   * which the target's accumulates also run under, keeps them apart. */
  hc_winlock_t *area = atomic && win->shared_locks != NULL
                           ? hc_rma_lock_area(win, op->target)
                           : NULL;
  if (area != NULL)
    direct_lock(win, area);
  hc_status_t rc = hc_rma_apply_at(win, &w, addr, pairs, op->data, op->result);
  if (area != NULL)
    hc_winlock_atomic_release(area);
  return rc;
}

/* The element's update under the target's lock word: elem is a constant
 * where the caller knows it, so that the copies compile to loads and
 * stores. */
static inline void direct_atomic_apply(const hcomm_rma_atomic_t *a, char *at,
                                       size_t elem) {
  if (a->old != NULL)
    memcpy(a->old, at, elem);
  if (a->kernel != NULL)
    a->kernel->fn(a->in, at, 1, a->kernel->ctx);
  else if (memcmp(at, a->compare, elem) == 0)
    memcpy(at, a->in, elem);
}

/* The single-element case needs none of the general path's shape: one
 * check that the element is in reach and in an epoch, then the target's
 * lock word around a copy and one kernel call (or a compare). */
hc_status_t hcomm_rma_atomic(hcomm_win_t *win, const hcomm_rma_atomic_t *a) {
  if (win == NULL || a == NULL || a->target < 0 || a->target >= win->size ||
      a->elem == 0 || a->elem > 16)
    return HC_ERR_ARG;
  int t = a->target;
  size_t disp;
  hc_engine_lock();
  if (win->via[t] != HC_RMA_VIA_SHARED || !hc_rma_may_access(win, t) ||
      __builtin_mul_overflow(a->disp, (size_t)win->disp_units[t], &disp) ||
      disp > win->sizes[t] || a->elem > win->sizes[t] - disp) {
    hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  char *at = win->shared_bases[t] + disp;
  /* The kernel reads the element in place: aligned as its size asks (a
   * power of two divides both), else the general path copies it out. */
  size_t align = a->elem & (~a->elem + 1);
  if (((uintptr_t)at & (align - 1)) != 0) {
    hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  hc_winlock_t *area = hc_rma_lock_area(win, t);
  if (win->test_die_holding > 0 || !hc_winlock_atomic_try(area, win->rank))
    direct_lock(win, area);        /* held by another, or a test's death */
  if (a->elem == sizeof(uint64_t)) /* long, double, int64_t: the common one */
    direct_atomic_apply(a, at, sizeof(uint64_t));
  else
    direct_atomic_apply(a, at, a->elem);
  hc_winlock_atomic_release(area);
  hc_counters.rma_direct.messages++; /* as the general path counts */
  hc_counters.rma_direct.bytes +=
      a->elem * ((a->kernel != NULL ? 1 : 2) + (a->old != NULL ? 1 : 0));
  hc_engine_unlock();
  return HC_OK;
}

/* ---- device copies queued until a completing call ----------------------- */

/* A request (MPI_Rput, MPI_Rget) whose copy is queued: complete once the
 * mark recorded after the copy is reached. */
typedef struct hc_rma_devreq {
  hcomm_request_t *req;
  hc_devmark_t *mark;
  struct hc_rma_devreq *next;
} hc_rma_devreq_t;

static void direct_devreq_finish(hc_rma_devreq_t **link, hc_status_t st) {
  hc_rma_devreq_t *d = *link;
  *link = d->next;
  hc_devpath_mark_free(d->mark);
  d->req->status.error = st;
  hc_request_complete(d->req, st);
  free(d);
}

hc_status_t hc_rma_device_drain(hcomm_win_t *win) {
  /* Every queued copy is on the one stream (direct_queue), so one wait
   * covers them all.  A failure is the first queued copy's that failed;
   * the window's count starts again either way (a runtime that failed a
   * copy does not run the rest). */
  hc_status_t rc = win->dev_queued > 0
                       ? hc_devpath_drain(win->dev_drain, win->dev_device)
                       : HC_OK;
  while (win->dev_reqs != NULL)
    direct_devreq_finish(&win->dev_reqs, rc);
  memset(win->dev_pending, 0, (size_t)win->size * sizeof *win->dev_pending);
  win->dev_queued = 0;
  return rc;
}

int hc_rma_device_poll(hcomm_win_t *win) {
  int done = 0;
  for (hc_rma_devreq_t **link = &win->dev_reqs; *link != NULL;) {
    hc_status_t st = hc_devpath_mark_test((*link)->mark);
    if (st == HC_ERR_AGAIN) {
      link = &(*link)->next;
      continue;
    }
    direct_devreq_finish(link, st);
    done++;
  }
  return done;
}

/* Queues the copy of len bytes from src to dst (one of them device memory
 * lmem of this process, the other the target's import) on hcmpi's stream
 * of lmem's device; with user, the request that completes with it, else
 * the caller's completing call waits for it.  HC_OK when queued (and user
 * then belongs to the window), or when a mark could not be had and the
 * copy was waited for here (user is then the caller's to complete);
 * HC_ERR_NOT_SUPPORTED when nothing could be queued. */
static hc_status_t direct_queue(hcomm_win_t *win, int target, void *dst,
                                const void *src, size_t len,
                                const hc_mem_info_t *lmem,
                                hcomm_request_t *user, int *owned) {
  *owned = 0;
  /* One stream per window at a time: a copy from another device's
   * memory first waits for those queued on the other stream. */
  if (win->dev_queued > 0 &&
      (win->dev_kind != lmem->kind || win->dev_device != lmem->device)) {
    hc_status_t rc = hc_rma_device_drain(win);
    if (rc != HC_OK)
      return rc;
  }
  /* The drain's mark is of dev_kind (set as it is reserved). */
  if (win->dev_drain != NULL && win->dev_kind != lmem->kind) {
    hc_devpath_mark_free(win->dev_drain); /* drained above */
    win->dev_drain = NULL;
  }
  if (win->dev_drain == NULL) {
    if (hc_devpath_mark_reserve(lmem->kind, &win->dev_drain) != HC_OK)
      return hc_devpath_copy_d2d(dst, src, len, lmem->kind, lmem->device);
    win->dev_kind = lmem->kind;
  }
  hc_rma_devreq_t *d = NULL;
  if (user != NULL && (d = malloc(sizeof *d)) == NULL)
    return hc_devpath_copy_d2d(dst, src, len, lmem->kind, lmem->device);
  hc_status_t rc =
      hc_devpath_copy_d2d_queue(dst, src, len, lmem->kind, lmem->device);
  if (rc != HC_OK) {
    free(d);
    return rc;
  }
  win->dev_kind = lmem->kind;
  win->dev_device = lmem->device;
  win->dev_pending[target]++;
  win->dev_queued++;
  if (d == NULL)
    return HC_OK;
  if (hc_devpath_mark(lmem->kind, lmem->device, &d->mark) != HC_OK) {
    free(d);
    return hc_rma_device_drain(win);
  }
  d->req = user;
  d->next = win->dev_reqs;
  win->dev_reqs = d;
  *owned = 1;
  return HC_OK;
}

/* Copies len bytes between local (memory lmem) and the target's window
 * at remote, reached by via (target memory wmem), waited for here. */
static hc_status_t direct_copy(int via, char *remote, const hc_mem_info_t *wmem,
                               void *local, const hc_mem_info_t *lmem,
                               size_t len, int put) {
  if (via == HC_RMA_VIA_DEVICE_IPC)
    return hc_devpath_copy_import(remote, wmem, local, len, put);
  if (lmem->kind == HC_MEM_HOST && wmem->kind == HC_MEM_HOST) {
    /* A memmove: the origin's buffer may lie in this process's own
     * window. */
    if (put)
      hc_copy_host(remote, local, len);
    else
      hc_copy_host(local, remote, len);
    return HC_OK;
  }
  return put ? hc_device_copy(remote, wmem, local, lmem, len)
             : hc_device_copy(local, lmem, remote, wmem, len);
}

/* hcomm_rma_copy's common case, a peer's window in a shared mapping and
 * local in host memory: no memory kinds to weigh, only the epoch and the
 * range to check before the copy. */
static hc_status_t direct_copy_shared(hcomm_win_t *win, int target, size_t disp,
                                      void *local, size_t len, int put) {
  hc_engine_lock();
  size_t size = win->sizes[target];
  char *base = win->shared_bases[target];
  if (base == NULL || !hc_rma_may_access(win, target) || disp > size ||
      len > size - disp) {
    hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  char *remote = base + disp;
  /* A memmove: local may lie in the same mapping (a shared window). */
  if (put)
    hc_copy_host(remote, local, len);
  else
    hc_copy_host(local, remote, len);
  hc_counters.rma_direct.messages++; /* as the general path counts */
  hc_counters.rma_direct.bytes += len;
  hc_engine_unlock();
  return HC_OK;
}

/* hcomm_rma_copy under the lock, with remote the target's memory as this
 * process reaches it and user the request to complete (or NULL). */
static hc_status_t direct_copy_at(hcomm_win_t *win, int target, char *remote,
                                  const hc_mem_info_t *wmem, void *local,
                                  const hc_mem_info_t *lmem, size_t len,
                                  int put, hcomm_request_t *user) {
  int via = win->via[target], owned = 0;
  hc_status_t rc;
  if (via == HC_RMA_VIA_DEVICE_IPC && lmem->kind != HC_MEM_HOST)
    rc = direct_queue(win, target, put ? remote : local, put ? local : remote,
                      len, lmem, user, &owned);
  else if ((rc = hc_rma_device_complete(win, target)) == HC_OK)
    rc = direct_copy(via, remote, wmem, local, lmem, len, put);
  if (rc == HC_OK && user != NULL && !owned) {
    user->status.error = HC_OK;
    hc_request_complete(user, HC_OK);
  }
  return rc;
}

hc_status_t hcomm_rma_copy(hcomm_win_t *win, int target, size_t disp,
                           void *local, const hcomm_mem_info_t *local_mem,
                           size_t len, int put, hcomm_request_t **req) {
  if (win == NULL || target < 0 || target >= win->size || len == 0)
    return HC_ERR_ARG;
  if (local_mem == NULL && req == NULL && win->via[target] == HC_RMA_VIA_SHARED)
    return direct_copy_shared(win, target, disp, local, len, put);
  hc_mem_info_t lmem = hc_rma_host_mem;
  if (local_mem != NULL)
    lmem = (hc_mem_info_t){(hc_mem_kind_t)local_mem->kind, local_mem->device,
                           local_mem->base, local_mem->size, 0};
  hc_engine_lock();
  int via = win->via[target];
  const hc_mem_info_t *wmem = via == HC_RMA_VIA_SELF ? &win->mem
                              : via == HC_RMA_VIA_DEVICE_IPC
                                  ? &win->ipc_mem[target]
                                  : &hc_rma_host_mem;
  /* A peer's device window takes device-to-device copies from device
   * memory of the runtime that exported it, and copies with host memory
   * where the import says on which device it lives. */
  int ipc_ok = via == HC_RMA_VIA_DEVICE_IPC &&
               (lmem.kind == HC_MEM_HOST
                    ? win->ipc_mem[target].kind != HC_MEM_HOST
                    : (uint32_t)lmem.kind == win->ipc_imports[target].kind);
  char *base = via == HC_RMA_VIA_SHARED ? win->shared_bases[target]
               : via == HC_RMA_VIA_SELF ? win->base
               : ipc_ok                 ? win->ipc_bases[target]
                                        : NULL;
  hcomm_request_t *user = NULL;
  if (base == NULL || !hc_rma_may_access(win, target) ||
      disp > win->sizes[target] || len > win->sizes[target] - disp ||
      (req != NULL && (user = hc_request_alloc(HC_REQ_USER)) == NULL)) {
    hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  hc_status_t rc = direct_copy_at(win, target, base + disp, wmem, local, &lmem,
                                  len, put, user);
  if (rc != HC_OK) {
    if (user != NULL)
      hc_request_release(user);
    hc_engine_unlock();
    hc_log(HC_LOG_DEBUG, "rma", "device copy with rank %d's window: %s", target,
           hcomm_strerror(rc));
    return rc;
  }
  hc_counters.rma_direct.messages++; /* as the general path counts */
  hc_counters.rma_direct.bytes += len;
  if (req != NULL)
    *req = user;
  hc_engine_unlock();
  return HC_OK;
}

/* One piece of a put or get through the peer's transport. */
static hc_status_t direct_piece(const hc_peer_t *peer, int via, uint64_t key,
                                int put, void *local, uint64_t remote,
                                size_t len) {
  void *ctx = peer->tctx;
  int p = peer->world_rank;
  if (via == HC_RMA_VIA_RDMA)
    return put ? peer->ops->rdma_write(ctx, p, local, remote, len, key)
               : peer->ops->rdma_read(ctx, p, local, remote, len, key);
  return put ? peer->ops->put(ctx, p, local, remote, len)
             : peer->ops->get(ctx, p, local, remote, len);
}

/* Puts and gets through the transport, one call per piece.  A refusal
 * (HC_ERR_NOT_SUPPORTED) at any piece leaves the whole operation to an
 * active message, which rewrites or rereads every piece. */
static hc_status_t direct_peer_memory(hcomm_win_t *win,
                                      const hcomm_rma_op_t *op) {
  const hc_peer_t *peer =
      &hc_engine.peers[hc_comm_world_of_rank(win->comm, op->target)];
  int via = win->via[op->target], put = op->kind == HCOMM_RMA_PUT;
  uint64_t at = win->remote_bases[op->target] + op->disp;
  char *local = put ? (char *)(uintptr_t)op->data : (char *)op->result;
  for (size_t i = 0; i < op->nsegs; i++) {
    const hcomm_rma_seg_t *seg = &op->segs[i];
    hc_status_t rc = direct_piece(peer, via, win->rdma_keys[op->target], put,
                                  local, at + seg->off, seg->len);
    if (rc != HC_OK)
      return rc;
    local += seg->len;
  }
  return HC_OK;
}

/* op's pieces as (offset, length) pairs, in stack (2 *
 * RMA_DIRECT_PAIRS_STACK) when they fit, else allocated (free them when
 * they are not stack); NULL without memory. */
static uint64_t *direct_pairs(const hcomm_rma_op_t *op, uint64_t *stack) {
  uint64_t *pairs = stack;
  if (op->nsegs > RMA_DIRECT_PAIRS_STACK &&
      (pairs = malloc(op->nsegs * 2 * sizeof *pairs)) == NULL)
    return NULL;
  for (size_t i = 0; i < op->nsegs; i++) {
    pairs[2 * i] = op->segs[i].off;
    pairs[2 * i + 1] = op->segs[i].len;
  }
  return pairs;
}

/* Copies or applies op in memory this process maps (SELF, SHARED). */
static hc_status_t direct_mapped(hcomm_win_t *win, const hcomm_rma_op_t *op,
                                 char *base) {
  uint64_t stack[2 * RMA_DIRECT_PAIRS_STACK];
  uint64_t *pairs = direct_pairs(op, stack);
  if (pairs == NULL)
    return HC_ERR_NOT_SUPPORTED; /* the message path copes */
  hc_status_t rc = direct_apply(win, op, base + op->disp, pairs);
  if (pairs != stack)
    free(pairs);
  return rc;
}

/* Copies between a peer's imported device window and the host (an
 * hc_rma_copy_fn; ctx: the import's memory info). */
static hc_status_t direct_import_copy(void *ctx, char *at, unsigned char *host,
                                      size_t len, int to_window) {
  return hc_devpath_copy_import(at, ctx, host, len, to_window);
}

/* An operation on a peer's device window imported here, its origin data
 * and result in host memory (the face staged device buffers): each piece
 * is a copy through the import; an accumulate holds the target's atomic
 * word while its data goes to the host, combines and comes back, as the
 * target's own accumulates do (hc_rma_direct_hold). */
static hc_status_t direct_device_ipc(hcomm_win_t *win,
                                     const hcomm_rma_op_t *op) {
  int t = op->target;
  int atomic = direct_is_atomic(op->kind) || op->atomic_read;
  /* Without lock areas only the target applies accumulates; and one sent
   * as a message before, not yet flushed, must apply before this one. */
  if (win->ipc_mem[t].kind == HC_MEM_HOST ||
      (atomic && (win->device_locks_len == 0 || win->dirty[t])))
    return HC_ERR_NOT_SUPPORTED;
  uint64_t stack[2 * RMA_DIRECT_PAIRS_STACK];
  uint64_t *pairs = direct_pairs(op, stack);
  if (pairs == NULL)
    return HC_ERR_NOT_SUPPORTED; /* the message path copes */
  hc_rma_wire_t w = hc_rma_wire_of(op);
  hc_winlock_t *area = atomic ? hc_rma_lock_area(win, t) : NULL;
  if (area != NULL)
    direct_lock(win, area);
  hc_status_t rc = hc_rma_apply_staged(win, &w, win->ipc_bases[t] + op->disp,
                                       pairs, op->data, op->result,
                                       direct_import_copy, &win->ipc_mem[t]);
  if (area != NULL)
    hc_winlock_atomic_release(area);
  if (pairs != stack)
    free(pairs);
  if (rc != HC_OK && rc != HC_ERR_NOT_SUPPORTED)
    hc_log(HC_LOG_DEBUG, "rma", "device copy with rank %d's window: %s", t,
           hcomm_strerror(rc));
  return rc;
}

static hc_status_t direct_move(hcomm_win_t *win, const hcomm_rma_op_t *op) {
  int via = win->via[op->target];
  /* Nothing but the device may combine into such a window's memory. */
  if (win->nic_atomics && (direct_is_atomic(op->kind) || op->atomic_read))
    return hc_rma_nic_move(win, op);
  if (via == HC_RMA_VIA_MESSAGE || !direct_in_range(win, op))
    return HC_ERR_NOT_SUPPORTED;
  if (via == HC_RMA_VIA_DEVICE_IPC)
    return direct_device_ipc(win, op);
  if (via == HC_RMA_VIA_SHARED)
    return direct_mapped(win, op, win->shared_bases[op->target]);
  /* Only the target applies accumulates to memory not mapped here, so an
   * atomic read must be applied there too, in turn with them. */
  if ((op->kind != HCOMM_RMA_PUT && op->kind != HCOMM_RMA_GET) ||
      (op->atomic_read && via != HC_RMA_VIA_SELF))
    return HC_ERR_NOT_SUPPORTED;
  if (via == HC_RMA_VIA_SELF)
    return direct_mapped(win, op, win->base);
  if (op->nsegs > RMA_DIRECT_SEGS_MAX)
    return HC_ERR_NOT_SUPPORTED;
  return direct_peer_memory(win, op);
}

hc_status_t hc_rma_direct_issue(hcomm_win_t *win, const hcomm_rma_op_t *op,
                                hcomm_request_t *user) {
  hc_status_t rc = direct_move(win, op);
  if (rc != HC_OK)
    return rc;
  hc_counters.rma_direct.messages++;
  hc_counters.rma_direct.bytes += op->bytes + op->result_bytes;
  if (op->done != NULL)
    op->done(op->arg, HC_OK);
  if (user != NULL) {
    user->status.error = HC_OK;
    hc_request_complete(user, HC_OK);
  }
  return HC_OK;
}
