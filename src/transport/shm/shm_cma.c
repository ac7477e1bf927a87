/*
 * The shm transport's single copies: a rendezvous or an RMA get reads the
 * peer's memory with process_vm_readv, a put writes it with
 * process_vm_writev (CMA: the same permission as ptrace).  A read of
 * HCMPI_SHM_CMA_HELP_MIN bytes or more is shared with the rank read from,
 * which writes chunks from the front while the reader reads from the back
 * (SHM_TAG_HELP in the ring, claims in the reader's slot).  While it
 * reads, the reader tells the owner how long to poll rather than sleep
 * (read_until_ns).  Which messages are read at all is shm.c's choice
 * (shm_get_min, shm_eager_max_now).
 */
#include "config.h" /* _GNU_SOURCE, for process_vm_readv */

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/shm/shm_impl.h"
#include "util/log.h"

static uint64_t shm_claims(uint32_t gen, uint32_t front, uint32_t back) {
  return (uint64_t)(gen & 0xffffu) << 48 | (uint64_t)front << 24 | back;
}

static uint32_t shm_claims_gen(uint64_t w) { return (uint32_t)(w >> 48); }

static uint32_t shm_claims_front(uint64_t w) {
  return (uint32_t)(w >> 24) & SHM_HELP_CHUNKS_MAX;
}

static uint32_t shm_claims_back(uint64_t w) {
  return (uint32_t)w & SHM_HELP_CHUNKS_MAX;
}

/* A process_vm_readv (or, write, _writev) of len bytes between local and
 * remote in pid, looped over short counts and EINTR: the kernel may stop
 * short (it caps one call near 2 GiB).  0, or the errno (EIO: no byte
 * moved and no error either); *moved says how far it got. */
static int shm_cma_copy(pid_t pid, void *local, uint64_t remote, size_t len,
                        int write, size_t *moved) {
  size_t done = 0;
  *moved = 0;
  while (done < len) {
    struct iovec l = {(unsigned char *)local + done, len - done};
    struct iovec r = {(void *)(uintptr_t)(remote + done), len - done};
    ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                      : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? errno : EIO;
    done += (size_t)n;
    *moved = done;
  }
  return 0;
}

/* Local rank p asked me to help with its read of my memory: I claim chunks
 * from the front of its claims word, while it holds the generation asked
 * for, and write each into p's memory.  A write that fails is flagged, and
 * p reads the chunks I claimed itself. */
void hc_shm_cma_help(shm_ctx_t *shm, int p, const void *slot, size_t len) {
  struct shm_help_ask ask;
  if (len != sizeof ask)
    return;
  memcpy(&ask, slot, sizeof ask);
  struct hc_shm_slot *theirs = &shm->slots[p];
  pid_t pid = atomic_load_explicit(&theirs->pid, memory_order_acquire);
  uint64_t w = atomic_load_explicit(&theirs->help_claims, memory_order_acquire);
  while (pid > 0 && shm_claims_gen(w) == (ask.gen & 0xffffu) &&
         shm_claims_front(w) < shm_claims_back(w)) {
    uint32_t f = shm_claims_front(w);
    if (!atomic_compare_exchange_weak_explicit(
            &theirs->help_claims, &w,
            shm_claims(ask.gen, f + 1, shm_claims_back(w)),
            memory_order_acq_rel, memory_order_acquire))
      continue;
    if (shm->test_help_die) /* tests: a helper dies holding a claim */
      kill(getpid(), SIGKILL);
    uint64_t off = (uint64_t)f * SHM_HELP_CHUNK;
    size_t n = off + SHM_HELP_CHUNK <= ask.len ? SHM_HELP_CHUNK
                                               : (size_t)(ask.len - off);
    size_t moved;
    int err =
        off < ask.len
            ? shm_cma_copy(pid, (void *)(uintptr_t)(ask.source_addr + off),
                           ask.reader_addr + off, n, 1, &moved)
            : EINVAL;
    if (err != 0)
      atomic_store_explicit(&theirs->help_failed, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&theirs->help_done, 1, memory_order_release);
    if (err != 0)
      break;
    w = atomic_load_explicit(&theirs->help_claims, memory_order_acquire);
  }
}

/* EPERM and friends mean a policy (ptrace rules, seccomp, a kernel without
 * CMA); an EFAULT before any byte moved on a pair that never worked is
 * treated the same, since some policies report it that way. */
static hc_status_t shm_cma_error(shm_ctx_t *shm, int peer, int err,
                                 size_t done) {
  if (err == ESRCH)
    return HC_ERR_PEER_DEAD;
  int policy = err == EPERM || err == EACCES || err == ENOSYS ||
               (err == EFAULT && done == 0 && !shm->cma_worked[peer]);
  if (policy) {
    hc_log(HC_LOG_INFO, "shm", "CMA with local rank %d refused (%s): off", peer,
           strerror(err));
    shm->cma_off[peer] = 1;
    return HC_ERR_NOT_SUPPORTED;
  }
  hc_log(HC_LOG_WARN, "shm", "CMA with local rank %d: %s", peer, strerror(err));
  return err == EFAULT ? HC_ERR_NOT_SUPPORTED : HC_ERR_SYSTEM;
}

/* Before a read of len bytes of local rank p's memory: p polls, not
 * sleeps, for the read's expected time (SHM_READ_POLL_BYTES_PER_NS). */
static void shm_announce_read(shm_ctx_t *shm, int p, size_t len) {
  uint64_t span = len / SHM_READ_POLL_BYTES_PER_NS;
  if (span > SHM_READ_POLL_MAX_NS)
    span = SHM_READ_POLL_MAX_NS;
  atomic_store_explicit(&shm->slots[p].read_until_ns, hc_shm_now_ns() + span,
                        memory_order_relaxed);
}

/* 1 while a local peer reads this rank's memory (shm_announce_read). */
int hc_shm_cma_being_read(const shm_ctx_t *shm) {
  uint64_t until = atomic_load_explicit(
      &shm->slots[shm->local_rank].read_until_ns, memory_order_relaxed);
  return until != 0 && hc_shm_now_ns() < until;
}

/* A CMA read shared with local rank peer (HCMPI_SHM_CMA_HELP_MIN): asks it
 * through the ring, reads chunks from the back until the claims meet, then
 * waits for the chunks it claimed (its writes land in local, which must
 * stay ours until they did).  Any failure of mine closes the claims; a
 * failure of its leaves me the chunks.  HC_ERR_AGAIN: the ring was full,
 * nothing was asked or read. */
static hc_status_t shm_read_shared(shm_ctx_t *shm, int peer, pid_t pid,
                                   void *local, uint64_t remote_addr,
                                   size_t len) {
  struct hc_shm_slot *mine = &shm->slots[shm->local_rank];
  /* The generation advances only with an ask in the ring, which holds
   * fewer than 2^16 of them: a stale ask never names open claims. */
  uint32_t gen = (shm->help_gen + 1) & 0xffffu;
  uint32_t chunks = (uint32_t)((len + SHM_HELP_CHUNK - 1) / SHM_HELP_CHUNK);
  atomic_store_explicit(&mine->help_done, 0, memory_order_relaxed);
  atomic_store_explicit(&mine->help_failed, 0, memory_order_relaxed);
  atomic_store_explicit(&mine->help_claims, shm_claims(gen, 0, chunks),
                        memory_order_release);
  struct shm_help_ask ask = {(uint64_t)(uintptr_t)local, remote_addr, len, gen,
                             0};
  struct iovec iov = {&ask, sizeof ask};
  if (shm_push_slot(shm, peer, SHM_TAG_HELP, &iov, 1, sizeof ask) != HC_OK) {
    atomic_store_explicit(&mine->help_claims, shm_claims(gen, 0, 0),
                          memory_order_relaxed);
    return HC_ERR_AGAIN; /* the caller reads alone */
  }
  shm->help_gen = gen;
  atomic_thread_fence(memory_order_seq_cst);
  shm_mark_sent(shm, peer);
  shm_wake(shm, peer);
  int err = 0;
  size_t moved;
  uint64_t w = atomic_load_explicit(&mine->help_claims, memory_order_acquire);
  while (shm_claims_front(w) < shm_claims_back(w)) {
    uint32_t f = shm_claims_front(w), b = shm_claims_back(w);
    if (!atomic_compare_exchange_weak_explicit(
            &mine->help_claims, &w, shm_claims(gen, f, err ? f : b - 1),
            memory_order_acq_rel, memory_order_acquire))
      continue;
    if (err != 0)
      break;
    uint64_t off = (uint64_t)(b - 1) * SHM_HELP_CHUNK;
    size_t n = off + SHM_HELP_CHUNK <= len ? SHM_HELP_CHUNK : len - off;
    err = shm_cma_copy(pid, (unsigned char *)local + off, remote_addr + off, n,
                       0, &moved);
    w = atomic_load_explicit(&mine->help_claims, memory_order_acquire);
  }
  uint32_t helped = shm_claims_front(
      atomic_load_explicit(&mine->help_claims, memory_order_acquire));
  for (unsigned spins = 1;
       atomic_load_explicit(&mine->help_done, memory_order_acquire) < helped;
       spins++) {
    if (spins % 1024 != 0)
      continue;
    if (hc_shm_peer_gone(shm, peer))
      return HC_ERR_PEER_DEAD;
    sched_yield();
  }
  if (err == 0 && helped > 0 &&
      atomic_load_explicit(&mine->help_failed, memory_order_relaxed)) {
    uint64_t front = (uint64_t)helped * SHM_HELP_CHUNK;
    err = shm_cma_copy(pid, local, remote_addr, front < len ? front : len, 0,
                       &moved);
  }
  if (err == EIO)
    return HC_ERR_TRANSPORT;
  if (err != 0)
    return shm_cma_error(shm, peer, err, len);
  return HC_OK;
}

/* Tests only (HCMPI_TEST_SHM_READ_DIE), once: reads the first half of
 * the message, then SIGKILLs this process (the reader) or the owner of
 * the memory, and waits until the owner is gone, so that the caller's read
 * of the whole finds it gone however the scheduler runs the two. */
static void shm_test_die_mid_read(shm_ctx_t *shm, int peer, pid_t pid,
                                  void *local, uint64_t remote_addr,
                                  size_t len) {
  enum shm_test_read_die who = shm->test_read_die;
  shm->test_read_die = SHM_TEST_READ_DIE_OFF;
  size_t moved;
  (void)shm_cma_copy(pid, local, remote_addr, len / 2, 0, &moved);
  if (who == SHM_TEST_READ_DIE_READER) {
    hc_log(HC_LOG_DEBUG, "shm", "dying on purpose half-way through a read");
    kill(getpid(), SIGKILL);
  }
  hc_log(HC_LOG_DEBUG, "shm",
         "killing local rank %d half-way through a read of its memory", peer);
  kill(pid, SIGKILL);
  while (!hc_shm_peer_gone(shm, peer))
    sched_yield();
}

/* One single-copy transfer between local and the peer's remote_addr:
 * a read into local, or (write) a write from it. */
static hc_status_t shm_cma(shm_ctx_t *shm, int peer_world_rank, void *local,
                           uint64_t remote_addr, size_t len, int write) {
  int peer = shm_local_of(shm, peer_world_rank);
  if (peer < 0 || peer == shm->local_rank)
    return HC_ERR_RANK;
  if (!shm->cma_enabled || shm->cma_off[peer])
    return HC_ERR_NOT_SUPPORTED;
  if (shm->base == NULL)
    return HC_ERR_STATE;
  pid_t pid = atomic_load_explicit(&shm->slots[peer].pid, memory_order_acquire);
  if (pid <= 0)
    return HC_ERR_STATE;
  int contended = shm_pair_contended(shm, peer);
  if (!write && !contended)
    shm_announce_read(shm, peer, len);
  if (!write && shm->help_min > 0 && len >= shm->help_min &&
      shm->cma_worked[peer] && len / SHM_HELP_CHUNK < SHM_HELP_CHUNKS_MAX &&
      !contended) {
    hc_status_t rc = shm_read_shared(shm, peer, pid, local, remote_addr, len);
    if (rc != HC_ERR_AGAIN)
      return rc;
  }
  if (!write && shm->test_read_die != SHM_TEST_READ_DIE_OFF &&
      len <= SHM_TEST_READ_DIE_MAX)
    shm_test_die_mid_read(shm, peer, pid, local, remote_addr, len);
  size_t done;
  int err = shm_cma_copy(pid, local, remote_addr, len, write, &done);
  if (err == EIO)
    return HC_ERR_TRANSPORT;
  if (err != 0)
    return shm_cma_error(shm, peer, err, done);
  shm->cma_worked[peer] = 1;
  return HC_OK;
}

hc_status_t hc_shm_cma_get(void *ctx, int peer_world_rank, void *local,
                           uint64_t remote_addr, size_t len) {
  return shm_cma(ctx, peer_world_rank, local, remote_addr, len, 0);
}

hc_status_t hc_shm_cma_put(void *ctx, int peer_world_rank, const void *local,
                           uint64_t remote_addr, size_t len) {
  /* process_vm_writev only reads the local iovec's bytes. */
  return shm_cma(ctx, peer_world_rank, (void *)(uintptr_t)local, remote_addr,
                 len, 1);
}
