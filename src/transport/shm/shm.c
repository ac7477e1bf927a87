/*
 * The shm transport: ranks of one node exchange packets through one POSIX
 * shared segment, and read each other's memory directly with
 * process_vm_readv (CMA) for rendezvous of HCMPI_SHM_CMA_MIN bytes or more,
 * and lone ones of HCMPI_SHM_LONE_READ_MIN or more (smaller ones stream
 * through the pools: shm_get_min).
 *
 * Segment layout (offsets from the mapping's base):
 *   0                 struct hc_shm_seg_hdr (magic, version, shape)
 *   HC_SHM_SLOTS_OFFSET  local_size x struct hc_shm_slot (pid, doorbell,
 *                     sleeping), one cache line each, after the header's
 *                     last one
 *   ring_offset       local_size x (local_size - 1) SPSC rings of small
 *                     slots, one per ordered pair (i -> j, i != j),
 *                     ring_bytes apart, in the order
 *                     i * (local_size - 1) + (j < i ? j : j - 1)
 *   box_offset        local_size x (local_size - 1) fast boxes, one per
 *                     ordered pair, box_bytes apart, same order
 *   pool_offset       local_size pools of cell_size cells, pool_bytes apart,
 *                     one per sending rank
 * ring_offset, box_offset and pool_offset are page aligned; every ring and pool
 * is cache-line aligned (shm_layout.c places them).
 *
 * A packet of up to SHM_INLINE_MAX bytes travels in its pair's ring slot;
 * a larger one in a cell of the sender's pool, whose index travels in the
 * ring (tag SHM_TAG_POOL), so order per pair stays the ring's.  Bulk memory
 * is per sender and the per-pair part shrinks as ranks grow, so the segment
 * grows linearly with local ranks, not with pairs.
 *
 * A packet that fits the pair's fast box (box_bytes less its header: up to
 * 1 KiB and a header with few local ranks, 112 bytes with many) goes there
 * instead when the box is free and the ring is empty (every packet of the
 * ring was taken), which the receiver polls before the ring: one word to
 * look at, only the lines the packet covers to copy.  Since the box is filled
 * only behind an empty ring, a packet in it is older than any in the ring, so
 * the receiver takes the box first whenever it holds one, also between
 * two packets of the ring.
 *
 * Sleeping without lost wake-ups (a Dekker pattern on both sides):
 *   sleeper: read doorbell; sleeping = 1; fence; re-check its rings;
 *            FUTEX_WAIT(doorbell, value read); sleeping = 0
 *   waker:   publish (push, or free cells); fence; if sleeping:
 *            doorbell++, FUTEX_WAKE
 * Either the sleeper's re-check sees the publication, or the waker sees
 * sleeping = 1 and bumps the doorbell, which makes a FUTEX_WAIT that has
 * not yet started return at once.
 *
 * A send's fence is the costly half: it waits until the slot's store,
 * whose line the receiver last read, has crossed to this core, once per
 * message in a stream.  Where the kernel has membarrier's global
 * expedited command, every rank registers for it and a send fences only
 * against the compiler; the sleeper, about to make a system call anyway,
 * runs membarrier after raising sleeping, which makes each registered
 * process's core pass a full barrier: a send whose push it does not see
 * then sees sleeping = 1.  A sleeper whose membarrier fails sleeps in
 * short turns, so a send it cannot answer for costs a turn, not a hang.
 * Only while the node's ranks are no more than its online processors
 * (the same answer on every rank): there ranks seldom sleep, while
 * crowded ranks sleep often and each membarrier interrupts the other
 * cores (8 ranks on 2 cores: 8-byte latency 2.1 -> 3.9 us).
 *
 * On a crowded node (more local ranks than online processors, the same
 * answer on every rank) a sender also sets its bit in the receiver's slot
 * (sent_mask, after the packet and the fence, unless it is set), and the
 * receiver's poll reads that word instead of every peer's box and ring,
 * then drains only the peers marked, clearing a bit once that peer had
 * nothing at two looks in a row and looking at it once more.  The marks only
 * steer polls: every wake-up still goes through the pattern above, a sleeper's
 * re-check and every 64th empty poll still look at every peer, so a mark late
 * or missing delays a packet, never loses it.
 *
 * A futex cannot be polled, so beside a transport that sleeps on a
 * descriptor (tcp to other nodes) the two would sleep in turns.  There
 * each rank offers a pollable doorbell instead: its eventfd, which every
 * local peer copies at connect (pidfd_getfd, the same permission as CMA).
 * Same pattern, polling in place of sleeping and a write to the eventfd
 * in place of FUTEX_WAKE; used only once every local peer holds a copy
 * (bell_holders), so no waker can miss it.
 */
#include "config.h" /* _GNU_SOURCE, for process_vm_readv */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm/shm_impl.h"
#include "util/cpu_profile.h"
#include "util/env.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/shmseg.h"

#define SHM_MAGIC 0x68636d7069736567ULL /* "hcmpiseg" */
/* 14: far_now in the slots; 13: placement_probe in the slots; 12: read_until_ns
 * on a line of its own; 11: read_until_ns in the slots; 10: sent_mask in the
 * slots; 8: fast boxes of 2-18 lines (box_bytes); 7: shared CMA reads; 6:
 * runq_contended in the slots; 5: pollable doorbell; 4: fast boxes */
#define SHM_VERSION 14
#define SHM_DEFAULT_CELL_SIZE ((size_t)16 << 10)
#define SHM_DEFAULT_CELLS 64
#define SHM_MIN_CELL_SIZE ((size_t)256)
#define SHM_MAX_CELL_SIZE ((size_t)16 << 20)
#define SHM_MIN_SCALED_CELL_SIZE ((size_t)4 << 10)
#define SHM_MIN_SCALED_CELLS 8
/* What the pools of a node may take by default before cells shrink; tmpfs
 * pages are allocated on first touch, so this bounds the worst case. */
#define SHM_POOL_BUDGET ((size_t)256 << 20)
/* Slots per pair ring: at most this many, fewer as local ranks grow so
 * one rank's incoming rings stay within SHM_RING_BYTES_PER_RANK. */
#define SHM_RING_SLOTS_MAX 64u
#define SHM_RING_SLOTS_MIN 8u
#define SHM_RING_BYTES_PER_RANK ((size_t)256 << 10)
/* A rank's incoming fast boxes together: each box as large as this allows
 * (between HC_SHM_FASTBOX_BYTES_MIN and _MAX), so boxes, like rings, grow
 * linearly with local ranks: 18 lines (a 1 KiB message) up to 57 local
 * ranks, 2 lines from 343. */
#define SHM_BOX_BYTES_PER_RANK ((size_t)64 << 10)
/* Rendezvous of fewer bytes than HCMPI_SHM_CMA_MIN stream through the
 * pools: the sender's copy into a cell overlaps the receiver's copy out of
 * the one before, which on some processors outruns one process_vm_readv
 * (pinning and mapping the peer's pages as it goes) and on others does
 * not; its default is the processor's (util/cpu_profile.c). */
/* Streaming needs both ranks on a core at the same moment: the pool holds
 * 1 MiB, so while one end waits for its core the other moves at most that
 * much, then waits in turn.  With two busy loops beside two ranks on two
 * cores, 1 MiB windows fell from ~20 GB/s to 0.1-0.3, while one CMA read,
 * which needs the receiver alone, kept 0.6-2 (bench/NOTES.md, bw17b).  So
 * a rank measures the share of its runnable time it spent waiting for a
 * core (the run delay of /proc/thread-self/schedstat) over intervals of
 * SHM_RUNQ_SAMPLE_MS, and while either end of a pair is above
 * HCMPI_SHM_STREAM_RUNQ_MAX percent, every rendezvous between them is read
 * with CMA.  A quiet machine waits well below 1%, one with some other
 * work a few percent (where streaming still won: 1 MiB 19 GB/s at load 8),
 * a rank beside a busy loop on its core about 50%. */
#define SHM_DEFAULT_RUNQ_MAX 25
#define SHM_RUNQ_SAMPLE_MS 10
/* An interval with less runnable time than this (a rank that slept) keeps
 * the last verdict: too little to tell. */
#define SHM_RUNQ_MIN_NS 2000000ull
/* Shortest interval between two checks of whether local peers still live
 * (HCMPI_SHM_LIVENESS_MS): with a wait's sleep, the bound on how long a
 * local peer's death goes unnoticed.  A peer that lives but hangs is never
 * taken for dead: only its process's exit counts. */
#define SHM_DEFAULT_LIVENESS_MS 100
/* Empty progress calls between two looks at the clock for that check. */
#define SHM_IDLE_POLLS_PER_LIVENESS 64
/* Packets one progress call delivers from one ring, and in all. */
#define SHM_BATCH_PER_RING 32
#define SHM_BATCH_TOTAL 128

static size_t shm_align(size_t n, size_t to) { return (n + to - 1) / to * to; }

static size_t shm_ring_index(int from, int to, int n) {
  return (size_t)from * (size_t)(n - 1) + (size_t)(to < from ? to : to - 1);
}

static uint64_t shm_lookup_pair(int world_rank, int local_rank) {
  return (uint64_t)(uint32_t)world_rank << 32 | (uint32_t)local_rank;
}

/* shm_local_of past its remembered pair: a binary search. */
__attribute__((noinline)) int hc_shm_local_search(shm_ctx_t *shm,
                                                  int world_rank) {
  int lo = 0, hi = shm->local_size - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int w = shm->local_world_ranks[mid];
    if (w == world_rank) {
      atomic_store_explicit(&shm->last_lookup, shm_lookup_pair(world_rank, mid),
                            memory_order_relaxed);
      return mid;
    }
    if (w < world_rank)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static uint32_t shm_round_pow2(long value) {
  uint32_t p = 2;
  if (value < 2)
    return p;
  while (p < (uint32_t)value && p < (1u << 16))
    p <<= 1;
  return p;
}

/* Chooses the cell shape.  Explicit settings win; defaults shrink (first
 * the count, then the size) so many local ranks do not ask for gigabytes. */
static void shm_choose_shape(int n, size_t *cell_size, uint32_t *ncells) {
  const char *size_env = hc_env_string("HCMPI_SHM_CELL_SIZE", NULL);
  const char *cells_env = hc_env_string("HCMPI_SHM_CELLS", NULL);
  size_t size = hc_env_size("HCMPI_SHM_CELL_SIZE", SHM_DEFAULT_CELL_SIZE);
  long count = hc_env_long("HCMPI_SHM_CELLS", SHM_DEFAULT_CELLS);
  if (size < SHM_MIN_CELL_SIZE)
    size = SHM_MIN_CELL_SIZE;
  if (size > SHM_MAX_CELL_SIZE)
    size = SHM_MAX_CELL_SIZE;
  size = shm_align(size, HC_SHM_RING_ALIGN);
  uint32_t cells = shm_round_pow2(count);
  size_t pools = (size_t)n;
  while (cells_env == NULL && cells > SHM_MIN_SCALED_CELLS &&
         pools * hc_shm_pool_bytes(size, cells) > SHM_POOL_BUDGET)
    cells >>= 1;
  while (size_env == NULL && size > SHM_MIN_SCALED_CELL_SIZE &&
         pools * hc_shm_pool_bytes(size, cells) > SHM_POOL_BUDGET)
    size >>= 1;
  *cell_size = size;
  *ncells = cells;
}

/* Slots per pair ring: the per-rank budget spread over the peers, so the
 * rings grow linearly with ranks; an explicit HCMPI_SHM_CELLS caps them
 * too, which is how tests make every queue short. */
static uint32_t shm_ring_slots(int n) {
  size_t per_ring = SHM_RING_BYTES_PER_RANK / (size_t)(n > 1 ? n - 1 : 1);
  uint32_t slots = SHM_RING_SLOTS_MAX;
  while (slots > SHM_RING_SLOTS_MIN &&
         hc_shm_ring_bytes(SHM_INLINE_MAX, slots) > per_ring)
    slots >>= 1;
  if (hc_env_string("HCMPI_SHM_CELLS", NULL) != NULL) {
    uint32_t cap = shm_round_pow2(hc_env_long("HCMPI_SHM_CELLS", 2));
    if (cap < slots)
      slots = cap < 2 ? 2 : cap;
  }
  return slots;
}

/* One fast box's size for n local ranks (SHM_BOX_BYTES_PER_RANK). */
static size_t shm_box_bytes(int n) {
  size_t per_box = SHM_BOX_BYTES_PER_RANK / (size_t)(n > 1 ? n - 1 : 1);
  per_box -= per_box % HC_SHM_RING_ALIGN;
  if (per_box < HC_SHM_FASTBOX_BYTES_MIN)
    return HC_SHM_FASTBOX_BYTES_MIN;
  return per_box > HC_SHM_FASTBOX_BYTES_MAX ? HC_SHM_FASTBOX_BYTES_MAX
                                            : per_box;
}

static hc_status_t shm_alloc_arrays(shm_ctx_t *shm, const int *ranks) {
  size_t n = (size_t)shm->local_size;
  shm->local_world_ranks = malloc(n * sizeof(int));
  shm->in = calloc(n, sizeof(hc_shm_ring_t));
  shm->out = calloc(n, sizeof(hc_shm_ring_t));
  shm->box_in = calloc(n, sizeof(hc_shm_fastbox_end_t));
  shm->box_out = calloc(n, sizeof(hc_shm_fastbox_end_t));
  shm->pools = calloc(n, sizeof(hc_shm_pool_t));
  shm->out_blocked = calloc(n, sizeof *shm->out_blocked);
  shm->box_skips = calloc(n, 1);
  shm->turns = calloc(n, sizeof *shm->turns);
  shm->rates = calloc(n, sizeof *shm->rates);
  shm->cma_off = calloc(n, 1);
  shm->cma_worked = calloc(n, 1);
  shm->in_corrupt = calloc(n, 1);
  shm->dead = calloc(n, sizeof *shm->dead);
  shm->pidfd = malloc(n * sizeof(int));
  shm->peer_bell_fd = malloc(n * sizeof(int));
  shm->peers = malloc(n * sizeof(int));
  if (shm->local_world_ranks == NULL || shm->in == NULL || shm->out == NULL ||
      shm->box_in == NULL || shm->box_out == NULL || shm->pools == NULL ||
      shm->out_blocked == NULL || shm->box_skips == NULL ||
      shm->turns == NULL || shm->rates == NULL || shm->cma_off == NULL ||
      shm->cma_worked == NULL || shm->in_corrupt == NULL || shm->dead == NULL ||
      shm->pidfd == NULL || shm->peer_bell_fd == NULL || shm->peers == NULL)
    return HC_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    shm->pidfd[i] = shm->peer_bell_fd[i] = -1;
  for (int p = 0, k = 0; p < shm->local_size; p++)
    if (p != shm->local_rank)
      shm->peers[k++] = p;
  memcpy(shm->local_world_ranks, ranks, n * sizeof(int));
  /* A first send to a peer counts as a ping-pong's turn. */
  for (size_t q = 0; q < n; q++)
    shm->turns[q] = (struct shm_turn){.sent_at_ask = UINT64_MAX, .answered = 1};
  atomic_store(&shm->last_lookup, shm_lookup_pair(-1, -1)); /* no rank */
  return HC_OK;
}

/* Maps fd and points the context at the segment's pieces. */
static hc_status_t shm_map(shm_ctx_t *shm, int fd, size_t size) {
  void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    hc_log(HC_LOG_ERROR, "shm", "mmap of %zu bytes: %s", size, strerror(errno));
    return HC_ERR_SYSTEM;
  }
  shm->base = base;
  shm->seg_size = size;
  shm->hdr = base;
  shm->slots = (struct hc_shm_slot *)(shm->base + HC_SHM_SLOTS_OFFSET);
  return HC_OK;
}

/* Forgets a mapping that turned out unusable, so later calls see none. */
static void shm_unmap(shm_ctx_t *shm) {
  munmap(shm->base, shm->seg_size);
  shm->base = NULL;
  shm->hdr = NULL;
  shm->slots = NULL;
  shm->seg_size = 0;
  shm->look_npeers = 0;
  shm->sent_marks = NULL;
}

/* The fences this rank uses, from the segment's choice (shm_ctx_t). */
static void shm_adopt_fences(shm_ctx_t *shm) {
  shm->light_fences = shm->hdr->light_fences != 0;
  shm->light_send_fence =
      shm->light_fences && shm->light_wanted && hc_fence_light_register();
  hc_log(HC_LOG_DEBUG, "shm", "light fences: sleepers %s, sends %s",
         shm->light_fences ? "membarrier" : "fence only",
         shm->light_send_fence ? "light" : "fenced");
}

static hc_status_t shm_attach_rings(shm_ctx_t *shm) {
  int n = shm->local_size, me = shm->local_rank;
  shm_adopt_fences(shm);
  size_t box_bytes = shm->hdr->box_bytes;
  shm->box_max = box_bytes - HC_SHM_FASTBOX_HDR;
  if (shm->hdr->cell_size < shm->box_max)
    shm->box_max = shm->hdr->cell_size;
  for (int p = 0; p < n; p++) {
    unsigned char *pool =
        shm->base + shm->hdr->pool_offset + (size_t)p * shm->hdr->pool_bytes;
    if (hc_shm_pool_attach(&shm->pools[p], pool) != HC_OK)
      return HC_ERR_TRANSPORT;
    if (p == me)
      continue;
    unsigned char *rings = shm->base + shm->hdr->ring_offset;
    size_t rb = shm->hdr->ring_bytes;
    if (hc_shm_ring_attach(&shm->in[p],
                           rings + shm_ring_index(p, me, n) * rb) != HC_OK ||
        hc_shm_ring_attach(&shm->out[p],
                           rings + shm_ring_index(me, p, n) * rb) != HC_OK)
      return HC_ERR_TRANSPORT;
    shm->out[p].prefetch_next = shm->prefetch_next;
    shm->in[p].read_published = shm->prefetch_next;
    unsigned char *boxes = shm->base + shm->hdr->box_offset;
    hc_shm_fastbox_attach(
        &shm->box_in[p],
        (struct hc_shm_fastbox *)(boxes + shm_ring_index(p, me, n) * box_bytes),
        box_bytes);
    hc_shm_fastbox_attach(
        &shm->box_out[p],
        (struct hc_shm_fastbox *)(boxes + shm_ring_index(me, p, n) * box_bytes),
        box_bytes);
    shm->box_out[p].demote = !shm->crowded;
  }
  atomic_store_explicit(&shm->slots[me].bell_fd, shm->bell_fd,
                        memory_order_relaxed);
  /* 0: every rank waits "too long" from the start (how tests force CMA). */
  atomic_store_explicit(&shm->slots[me].runq_contended, shm->runq_max <= 0,
                        memory_order_relaxed);
  atomic_store_explicit(&shm->slots[me].pid, (int32_t)getpid(),
                        memory_order_release);
  shm->npeers = n - 1;
  shm->look_npeers = shm->crowded ? 0 : shm->npeers;
  shm->sent_marks = shm->crowded ? &shm->slots[me].sent_mask : NULL;
  return HC_OK;
}

/* Where the rings and pools of a node's segment go, and its size. */
typedef struct shm_shape {
  size_t cell_size;
  uint32_t ncells;
  uint32_t ring_slots;
  size_t ring_offset, ring_bytes;
  size_t box_offset, box_bytes;
  size_t pool_offset, pool_bytes;
  size_t seg_size;
} shm_shape_t;

static void shm_plan(int n, shm_shape_t *sh) {
  shm_choose_shape(n, &sh->cell_size, &sh->ncells);
  sh->ring_slots = shm_ring_slots(n);
  sh->ring_bytes = hc_shm_ring_bytes(SHM_INLINE_MAX, sh->ring_slots);
  sh->pool_bytes = hc_shm_pool_bytes(sh->cell_size, sh->ncells);
  hc_shm_layout_t at;
  sh->box_bytes = shm_box_bytes(n);
  hc_shm_layout_plan(n, sh->ring_bytes, sh->box_bytes, sh->pool_bytes, &at);
  sh->ring_offset = at.ring_offset;
  sh->box_offset = at.box_offset;
  sh->pool_offset = at.pool_offset;
  sh->seg_size = at.seg_size;
}

static void shm_format(shm_ctx_t *shm, const shm_shape_t *sh) {
  int n = shm->local_size;
  struct hc_shm_seg_hdr *hdr = shm->hdr;
  hdr->version = SHM_VERSION;
  hdr->local_size = (uint32_t)n;
  hdr->seg_size = shm->seg_size;
  hdr->ring_offset = sh->ring_offset;
  hdr->ring_bytes = sh->ring_bytes;
  hdr->pool_offset = sh->pool_offset;
  hdr->pool_bytes = sh->pool_bytes;
  hdr->cell_size = sh->cell_size;
  hdr->ncells = sh->ncells;
  hdr->ring_slots = sh->ring_slots;
  hdr->box_offset = sh->box_offset;
  hdr->box_bytes = sh->box_bytes;
  hdr->light_fences = (uint32_t)shm->light_wanted;
  unsigned char *boxes = shm->base + sh->box_offset;
  for (size_t i = 0; i < (size_t)n * (size_t)(n - 1); i++) {
    hc_shm_ring_format(shm->base + sh->ring_offset + i * sh->ring_bytes,
                       SHM_INLINE_MAX, sh->ring_slots);
    hc_shm_fastbox_format((struct hc_shm_fastbox *)(boxes + i * sh->box_bytes),
                          0);
  }
  for (int p = 0; p < n; p++)
    hc_shm_pool_format(shm->base + sh->pool_offset + (size_t)p * sh->pool_bytes,
                       sh->cell_size, sh->ncells);
  atomic_thread_fence(memory_order_release);
  hdr->magic = SHM_MAGIC;
}

/* The node's segment, made as every hcmpi segment is (util/shmseg.h). */
static int shm_create_fd(shm_ctx_t *shm) {
  int memfd;
  int fd = hc_shmseg_create(shm->name, sizeof shm->name, &memfd);
  if (fd >= 0 && memfd)
    shm->memfd = fd;
  else if (fd >= 0)
    shm->linked = 1;
  return fd;
}

/* Local rank 0: creates, sizes, maps and formats the node's segment. */
static hc_status_t shm_create(shm_ctx_t *shm) {
  int n = shm->local_size;
  shm_shape_t sh;
  shm_plan(n, &sh);
  size_t size = sh.seg_size;
  if (size == 0) {
    hc_log(HC_LOG_ERROR, "shm", "a segment for %d local ranks overflows", n);
    return HC_ERR_TRANSPORT;
  }
  int fd = shm_create_fd(shm);
  if (fd < 0)
    return HC_ERR_SYSTEM;
  hc_status_t rc = hc_shmseg_reserve(fd, shm->name, size);
  if (rc == HC_OK)
    rc = shm_map(shm, fd, size);
  if (fd != shm->memfd)
    close(fd);
  if (rc != HC_OK)
    return rc;
  shm_format(shm, &sh);
  hc_log(HC_LOG_DEBUG, "shm",
         "segment %s: %zu bytes, %d ranks, pools of %u x %zu B, rings of %u "
         "x %zu B",
         shm->name, size, n, sh.ncells, sh.cell_size, sh.ring_slots,
         SHM_INLINE_MAX);
  return shm_attach_rings(shm);
}

static hc_status_t shm_init(const hc_transport_init_args_t *args, void **ctx) {
  shm_ctx_t *shm = calloc(1, sizeof *shm);
  *ctx = shm;
  if (shm == NULL)
    return HC_ERR_NOMEM;
  shm->runq_fd = -1;
  shm->bell_fd = hc_env_bool("HCMPI_SHM_POLLABLE", 1)
                     ? eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)
                     : -1;
  shm->memfd = -1;
  if (args->local_size < 1 || args->local_rank < 0 ||
      args->local_rank >= args->local_size)
    return HC_ERR_ARG;
  shm->world_rank = args->world_rank;
  shm->local_rank = args->local_rank;
  shm->local_size = args->local_size;
  shm->recv_cb = args->recv_cb;
  shm->peer_failed_cb = args->peer_failed_cb;
  shm->engine = args->engine;
  shm->cma_enabled = hc_env_bool("HCMPI_SHM_CMA", 1);
  const hc_cpu_profile_t *cpu = hc_cpu_profile();
  shm->cma_min = hc_env_size("HCMPI_SHM_CMA_MIN", cpu->shm_cma_min);
  shm->lone_read_min =
      hc_env_size("HCMPI_SHM_LONE_READ_MIN", cpu->shm_lone_read_min);
  shm->far_read_min =
      hc_env_size("HCMPI_SHM_FAR_READ_MIN", cpu->shm_far_read_min);
  shm->far_cell_stream_min = hc_env_size("HCMPI_SHM_FAR_CELL_STREAM_MIN",
                                         cpu->shm_far_cell_stream_min);
  shm->runq_max =
      hc_env_long("HCMPI_SHM_STREAM_RUNQ_MAX", SHM_DEFAULT_RUNQ_MAX);
  atomic_flag_clear(&shm->runq_busy);
  shm->help_min = hc_env_size("HCMPI_SHM_CMA_HELP_MIN", cpu->shm_cma_help_min);
  shm->eager_max = cpu->shm_eager_max;
  shm->eager_busy_max =
      hc_env_size("HCMPI_SHM_EAGER_BUSY_MAX", cpu->shm_eager_busy_max);
  shm->test_help_die = hc_env_bool("HCMPI_TEST_SHM_HELP_DIE", 0);
  const char *read_die = hc_env_string("HCMPI_TEST_SHM_READ_DIE", "");
  shm->test_read_die =
      strcmp(read_die, "reader") == 0  ? SHM_TEST_READ_DIE_READER
      : strcmp(read_die, "owner") == 0 ? SHM_TEST_READ_DIE_OWNER
                                       : SHM_TEST_READ_DIE_OFF;
  shm->crowded = args->local_size > sysconf(_SC_NPROCESSORS_ONLN);
  shm->prefetch_next = cpu->shm_prefetch_next && !shm->crowded;
  shm->light_wanted = hc_env_bool("HCMPI_SHM_LIGHT_FENCE", 1) && !shm->crowded;
  shm->runq_fd = shm->runq_max < 100
                     ? open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
                     : -1;
  shm->liveness_ms =
      hc_env_long("HCMPI_SHM_LIVENESS_MS", SHM_DEFAULT_LIVENESS_MS);
  uint32_t ncells_hint;
  shm_choose_shape(shm->local_size, &shm->cell_size_hint, &ncells_hint);
  hc_status_t rc = shm_alloc_arrays(shm, args->local_world_ranks);
  if (rc != HC_OK)
    return rc;
  /* A rank alone on its node has no peer to share with. */
  if (shm->local_rank != 0 || shm->local_size == 1)
    return HC_OK;
  return shm_create(shm);
}

static hc_status_t shm_address(void *ctx, char *buf, size_t len) {
  shm_ctx_t *shm = ctx;
  int w;
  if (shm->local_rank == 0 && shm->base != NULL && shm->memfd >= 0)
    w = snprintf(buf, len, "%s:%zu", shm->name, shm->seg_size);
  else if (shm->local_rank == 0 && shm->base != NULL)
    /* Skip the leading '/': the address is text without slashes. */
    w = snprintf(buf, len, "%s:%zu", shm->name + 1, shm->seg_size);
  else
    w = snprintf(buf, len, "peer:%d", (int)getpid());
  return (w < 0 || (size_t)w >= len) ? HC_ERR_ARG : HC_OK;
}

/* Parses "hcmpi-<hex>:<size>" into a shm_open name and a size, or
 * "memfd-<pid>-<fd>:<size>" into the same with the name "memfd-<pid>-<fd>". */
static int shm_parse_address(const char *addr, char *name, size_t *size) {
  const char *colon = strchr(addr, ':');
  int memfd = strncmp(addr, "memfd-", 6) == 0;
  if ((strncmp(addr, "hcmpi-", 6) != 0 && !memfd) || colon == NULL ||
      (size_t)(colon - addr) + 2 > SHM_NAME_MAX)
    return 0;
  name[0] = '/';
  memcpy(name + !memfd, addr, (size_t)(colon - addr));
  name[colon - addr + !memfd] = '\0';
  char *end;
  unsigned long long value = strtoull(colon + 1, &end, 10);
  if (end == colon + 1 || *end != '\0')
    return 0;
  *size = (size_t)value;
  return 1;
}

static hc_status_t shm_check_header(shm_ctx_t *shm) {
  struct hc_shm_seg_hdr *hdr = shm->hdr;
  if (hdr->magic != SHM_MAGIC || hdr->version != SHM_VERSION ||
      hdr->local_size != (uint32_t)shm->local_size ||
      hdr->seg_size != shm->seg_size ||
      !hc_shm_fastbox_size_ok(hdr->box_bytes)) {
    hc_log(HC_LOG_ERROR, "shm", "segment %s is not ours or has another shape",
           shm->name);
    return HC_ERR_TRANSPORT;
  }
  if (hdr->cell_size < shm->cell_size_promised) {
    hc_log(HC_LOG_ERROR, "shm",
           "cells of %zu B, but %zu B were promised before mapping: is "
           "HCMPI_SHM_CELL_SIZE the same on every rank?",
           (size_t)hdr->cell_size, shm->cell_size_promised);
    return HC_ERR_TRANSPORT;
  }
  atomic_thread_fence(memory_order_acquire);
  return HC_OK;
}

static hc_status_t shm_open_segment(shm_ctx_t *shm, const char *name,
                                    size_t size) {
  int fd = hc_shmseg_open(name);
  if (fd < 0) {
    hc_log(HC_LOG_ERROR, "shm", "opening segment %s: %s", name,
           strerror(errno));
    return HC_ERR_SYSTEM;
  }
  struct stat st;
  hc_status_t rc = HC_ERR_TRANSPORT;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size == size)
    rc = shm_map(shm, fd, size);
  close(fd);
  if (rc != HC_OK)
    return rc;
  snprintf(shm->name, sizeof shm->name, "%s", name);
  rc = shm_check_header(shm);
  if (rc == HC_OK)
    rc = shm_attach_rings(shm);
  if (rc != HC_OK)
    shm_unmap(shm);
  return rc;
}

static hc_status_t shm_connect(void *ctx, int peer_world_rank,
                               const char *peer_address) {
  shm_ctx_t *shm = ctx;
  int peer = shm_local_of(shm, peer_world_rank);
  if (peer < 0 || peer == shm->local_rank)
    return HC_ERR_RANK;
  if (peer != 0 || shm->base != NULL)
    return HC_OK;
  char name[SHM_NAME_MAX];
  size_t size;
  if (!shm_parse_address(peer_address, name, &size)) {
    hc_log(HC_LOG_ERROR, "shm", "bad address of local rank 0: %s",
           peer_address);
    return HC_ERR_ARG;
  }
  return shm_open_segment(shm, name, size);
}

/* Every local rank attached (it wrote its pid) before the launcher barrier
 * that precedes connected. */
static void shm_open_pidfds(shm_ctx_t *shm) {
  for (int p = 0; p < shm->local_size; p++) {
    pid_t pid = atomic_load_explicit(&shm->slots[p].pid, memory_order_acquire);
    if (p == shm->local_rank || pid <= 0)
      continue;
#ifdef SYS_pidfd_open
    shm->pidfd[p] = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
  }
}

/* After the pidfds: a copy of each local peer's doorbell.  A peer whose
 * copy fails (no pidfd_getfd, or no permission) keeps everyone on the
 * futex for that one's sleeps. */
static void shm_copy_bells(shm_ctx_t *shm) {
#ifdef SYS_pidfd_getfd
  for (int p = 0; p < shm->local_size; p++) {
    int theirs =
        atomic_load_explicit(&shm->slots[p].bell_fd, memory_order_relaxed);
    if (p == shm->local_rank || shm->pidfd[p] < 0 || theirs < 0)
      continue;
    shm->peer_bell_fd[p] =
        (int)syscall(SYS_pidfd_getfd, shm->pidfd[p], theirs, 0);
    if (shm->peer_bell_fd[p] >= 0)
      atomic_fetch_add_explicit(&shm->slots[p].bell_holders, 1,
                                memory_order_release);
    else
      hc_log(HC_LOG_DEBUG, "shm", "doorbell of local rank %d: %s", p,
             strerror(errno));
  }
#else
  (void)shm;
#endif
}

static hc_status_t shm_connected(void *ctx) {
  shm_ctx_t *shm = ctx;
  if (shm->local_size > 1 && shm->base == NULL)
    return HC_ERR_STATE;
  if (shm->memfd >= 0) {
    close(shm->memfd);
    shm->memfd = -1;
  }
  shm_open_pidfds(shm);
  shm_copy_bells(shm);
  if (shm->local_size > 1)
    shm->placement = hc_shm_placement_choose(shm);
  /* Far, the destination's copy out of a cell this core just wrote pulls
   * each line across the slow link, and so does the next fill of the
   * cell, from the destination's core; written past the cache, both go to
   * memory instead (bench/NOTES.md, nt29). */
  if (shm->placement == HC_TRANSPORT_PLACEMENT_FAR && shm->pools != NULL)
    hc_shm_pool_set_stream_min(&shm->pools[shm->local_rank],
                               shm->far_cell_stream_min);
  if (shm->linked) {
    if (shm_unlink(shm->name) != 0)
      hc_log(HC_LOG_WARN, "shm", "shm_unlink(%s): %s", shm->name,
             strerror(errno));
    shm->linked = 0;
  }
  return HC_OK;
}

static size_t shm_max_packet(void *ctx) {
  shm_ctx_t *shm = ctx;
  if (shm->hdr != NULL)
    return shm->hdr->cell_size;
  shm->cell_size_promised = shm->cell_size_hint;
  return shm->cell_size_hint;
}

static void shm_futex_wake(_Atomic uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Wakes local rank p if it sleeps; the caller has published and fenced. */
static void shm_ring_doorbell(shm_ctx_t *shm, int p) {
  struct hc_shm_slot *slot = &shm->slots[p];
  if (atomic_load_explicit(&slot->sleeping, memory_order_relaxed) == 0)
    return;
  atomic_fetch_add_explicit(&slot->doorbell, 1, memory_order_seq_cst);
  shm_futex_wake(&slot->doorbell);
}

/* The same for a peer polling on its pollable doorbell. */
static void shm_ring_bell(shm_ctx_t *shm, int p) {
  if (atomic_load_explicit(&shm->slots[p].polling, memory_order_relaxed) == 0 ||
      shm->peer_bell_fd[p] < 0)
    return;
  uint64_t one = 1;
  /* EAGAIN: the counter is full of unread wake-ups, which wake it too. */
  if (write(shm->peer_bell_fd[p], &one, sizeof one) < 0 && errno != EAGAIN)
    hc_log(HC_LOG_DEBUG, "shm", "doorbell of local rank %d: %s", p,
           strerror(errno));
}

/* shm_wake's work once p was seen asleep or polling: out of line, since
 * a stream's sends find their peer awake. */
__attribute__((noinline)) void hc_shm_wake_sleeper(shm_ctx_t *shm, int p) {
  shm_ring_doorbell(shm, p);
  shm_ring_bell(shm, p);
}

static void shm_wake_op(void *ctx, int peer_world_rank) {
  shm_ctx_t *shm = ctx;
  int p = shm->base != NULL ? shm_local_of(shm, peer_world_rank) : -1;
  if (p >= 0 && p != shm->local_rank)
    shm_wake(shm, p);
}

/* Where the rates rule (shm_placement.c): my cell fills bypass the cache
 * (HCMPI_SHM_FAR_CELL_STREAM_MIN) while the peer takes our cores for far
 * apart, as its far_now says, not as the start-up verdict said: fills of
 * plain stores to a far core, or streamed past the cache to a near one,
 * each halved mid-size bandwidth (bench/NOTES.md, nt29).  One load of a
 * word its owner rarely writes. */
static void shm_fills_follow(shm_ctx_t *shm, int peer) {
  uint32_t far =
      atomic_load_explicit(&shm->slots[peer].far_now, memory_order_relaxed);
  if (far == 0 || far == shm->fills_far)
    return;
  shm->fills_far = far;
  hc_shm_pool_set_stream_min(&shm->pools[shm->local_rank],
                             far == 2 ? shm->far_cell_stream_min : 0);
}

/* A packet too large for a slot: into a cell of my pool, its index into
 * the ring.  A full ring gives the cell back at once (peer never saw it).
 * With demote, the cell's lines go to the cache the cores share, as a
 * fast box's (hc_shm_demote_line), at this rank's next empty poll: the
 * receiver's copy out then reads them there (4 KiB one way 1.27 -> 1.10
 * us).  Demoted at once, a stream of 4 KiB sends lost half its rate to the
 * 64 CLDEMOTEs on each send (bench/NOTES.md, mid18); so only sparse sends
 * ask (shm_ring_idle), and the demotes wait until the rank has nothing
 * else to do. */
static hc_status_t shm_push_pooled(shm_ctx_t *shm, int peer,
                                   const struct iovec *iov, int iovcnt,
                                   int demote) {
  hc_shm_pool_t *pool = &shm->pools[shm->local_rank];
  struct shm_pool_ref ref;
  if (shm->rates_on)
    shm_fills_follow(shm, peer);
  hc_status_t rc =
      hc_shm_pool_fill(pool, (uint32_t)peer, iov, iovcnt, &ref.index);
  if (rc == HC_ERR_AGAIN) {
    hc_shm_pool_set_waiting(pool);
    rc = hc_shm_pool_fill(pool, (uint32_t)peer, iov, iovcnt, &ref.index);
  }
  atomic_store_explicit(&shm->pool_blocked, rc == HC_ERR_AGAIN,
                        memory_order_relaxed);
  if (rc != HC_OK)
    return rc;
  ref.len = 0;
  for (int i = 0; i < iovcnt; i++)
    ref.len += (uint32_t)iov[i].iov_len;
  struct iovec slot = {&ref, sizeof ref};
  rc = shm_push_slot(shm, peer, SHM_TAG_POOL, &slot, 1, sizeof ref);
  if (rc != HC_OK)
    hc_shm_pool_release(pool, ref.index);
  else if (demote) {
    shm->demote_index = ref.index;
    shm->demote_len = ref.len;
  }
  return rc;
}

/* Sends to a peer that go to its ring without asking whether the ring
 * drained, once a send found it busy.  The ask reads the ring's head,
 * which the consumer writes after every packet: during a stream of small
 * sends each ask moved that cache line between the two cores twice per
 * message (the read here, the consumer's next write), for a box the ring
 * keeps it from using anyway.  A send that skips the box goes through the
 * ring, which is always in order; after this many the ask is made again,
 * so sparse traffic (a ping-pong) finds its box again within as many
 * sends. */
#define SHM_BOX_SKIPS 16

/* Whether the ring to peer is empty (peer took every packet), asked as
 * SHM_BOX_SKIPS says: a send that finds it so is sparse traffic (a
 * ping-pong), one that does not is part of a stream. */
__attribute__((always_inline)) static inline int shm_ring_idle(shm_ctx_t *shm,
                                                               int peer) {
  if (shm->box_skips[peer] > 0) {
    shm->box_skips[peer]--;
    return 0;
  }
  if (!hc_shm_ring_drained(&shm->out[peer])) {
    shm->box_skips[peer] = SHM_BOX_SKIPS;
    return 0;
  }
  return 1;
}

/* Whether a small packet for peer goes into its fast box: only while the
 * ring to peer is empty (so the box's packet is older than the ring's)
 * and the box free. */
static int shm_box_takes(shm_ctx_t *shm, int peer) {
  return shm_ring_idle(shm, peer) && hc_shm_fastbox_free(&shm->box_out[peer]);
}

static hc_status_t shm_send(void *ctx, int peer_world_rank,
                            const struct iovec *iov, int iovcnt) {
  shm_ctx_t *shm = ctx;
  int peer = shm_local_of(shm, peer_world_rank);
  if (peer < 0 || peer == shm->local_rank)
    return HC_ERR_RANK;
  if (shm->base == NULL)
    return HC_ERR_STATE;
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  hc_status_t rc;
  if (total <= shm->box_max && shm_box_takes(shm, peer)) {
    hc_shm_fastbox_put(&shm->box_out[peer], iov, iovcnt, total);
    rc = HC_OK;
  } else if (total <= SHM_INLINE_MAX) {
    rc = shm_push_slot(shm, peer, 0, iov, iovcnt, total);
  } else {
    rc = shm_push_pooled(shm, peer, iov, iovcnt,
                         !shm->crowded && shm_ring_idle(shm, peer));
  }
  /* A dead reader never frees its ring or cells: fail instead of queueing. */
  if (rc == HC_ERR_AGAIN &&
      atomic_load_explicit(&shm->dead[peer], memory_order_relaxed))
    return HC_ERR_PEER_DEAD;
  if (rc != HC_OK)
    return rc;
  /* A crowded node never has light fences (shm_init), so the mark's test
   * stays off the light path. */
  if (shm->light_send_fence) {
    atomic_signal_fence(memory_order_seq_cst);
  } else {
    atomic_thread_fence(memory_order_seq_cst);
    shm_mark_sent(shm, peer);
  }
  shm_wake(shm, peer);
  return HC_OK;
}

/* A peer's ring holds an impossible length or index, or a slot names a
 * pool cell that peer never sent me: that connection is lost (the peer is
 * reported failed, so what waits on it ends with an error) and the ring is
 * not read again. */
static void shm_ring_corrupt(shm_ctx_t *shm, int p, const char *what) {
  hc_log(HC_LOG_ERROR, "shm", "%s from local rank %d; dropping its ring", what,
         shm->local_world_ranks[p]);
  shm->in_corrupt[p] = 1;
  if (shm->peer_failed_cb != NULL)
    shm->peer_failed_cb(shm->engine, shm->local_world_ranks[p],
                        HC_ERR_PEER_CORRUPT);
}

/* Delivers one pool slot's packet and gives the cell back; 0 when bad. */
static int shm_deliver_pooled(shm_ctx_t *shm, int p, const void *slot,
                              size_t len) {
  struct shm_pool_ref ref;
  if (len != sizeof ref)
    return 0;
  memcpy(&ref, slot, sizeof ref);
  hc_shm_pool_t *pool = &shm->pools[p];
  const void *data =
      hc_shm_pool_data(pool, ref.index, (uint32_t)shm->local_rank, ref.len);
  if (data == NULL)
    return 0;
  shm->recv_cb(shm->engine, shm->local_world_ranks[p], data, ref.len);
  hc_shm_pool_release(pool, ref.index);
  return 1;
}

/* Delivers the packet in p's fast box, if one waits; 1 when it did.
 * Inlined, as the compiler did before shm_drain_peer had two callers. */
__attribute__((always_inline)) static inline int shm_take_box(shm_ctx_t *shm,
                                                              int p) {
  size_t len;
  const void *data = hc_shm_fastbox_peek(&shm->box_in[p], &len);
  if (data == NULL) {
    if (len == HC_SHM_FASTBOX_CORRUPT)
      shm_ring_corrupt(shm, p, "a corrupt fast box");
    return 0;
  }
  /* A one-line packet: my answer, if one comes, goes into my box to p.
   * Not after longer packets: there the ask cost a far 64-byte ping-pong
   * ~0.1 us a one way, for a reason not found (bench/NOTES.md, lat29). */
  if (len <= HC_SHM_FASTBOX_ONE_LINE)
    hc_shm_fastbox_expect_put(&shm->box_out[p]);
  shm->recv_cb(shm->engine, shm->local_world_ranks[p], data, len);
  hc_shm_fastbox_release(&shm->box_in[p]);
  return 1;
}

/* Delivers up to max packets from p's fast box and ring, oldest first;
 * wakes p if it waits for ring space or for the pool cells handed back.
 * Inlined into both its callers, as it was into the one before
 * shm_progress_marked (a call cost a 2-rank round trip ~25 instructions). */
__attribute__((always_inline)) static inline int
shm_drain_peer(shm_ctx_t *shm, int p, int max) {
  hc_shm_ring_t *ring = &shm->in[p];
  int done = 0, pooled = 0;
  const void *data = NULL;
  size_t len = 0;
  uint32_t tag;
  while (done < max && !shm->in_corrupt[p]) {
    /* The box's packet is older than the ring's; seeing the ring's packet
     * (an acquire of its index) made a box filled before it visible. */
    if (hc_shm_fastbox_holds(&shm->box_in[p])) {
      done += shm_take_box(shm, p);
      continue;
    }
    data = hc_shm_ring_peek_tagged(ring, &len, &tag);
    if (data == NULL)
      break;
    if (hc_shm_fastbox_holds(&shm->box_in[p]))
      continue;
    if (tag == SHM_TAG_HELP)
      hc_shm_cma_help(shm, p, data, len);
    else if (tag != SHM_TAG_POOL)
      shm->recv_cb(shm->engine, shm->local_world_ranks[p], data, len);
    else if (shm_deliver_pooled(shm, p, data, len))
      pooled++;
    else
      shm_ring_corrupt(shm, p, "a bad pool reference");
    hc_shm_ring_release(ring);
    done++;
  }
  if (data == NULL && len == HC_SHM_RING_CORRUPT && !shm->in_corrupt[p])
    shm_ring_corrupt(shm, p, "a corrupt ring");
  if (done > 0) {
    atomic_thread_fence(memory_order_seq_cst);
    if (hc_shm_ring_take_waiting(ring) |
        (pooled > 0 && hc_shm_pool_take_waiting(&shm->pools[p])))
      shm_wake(shm, p);
  }
  return done;
}

/* Under the engine lock (progress): tells the engine of deaths that a
 * wait found. */
static int shm_report_deaths(shm_ctx_t *shm) {
  int found = 0;
  atomic_store(&shm->deaths_pending, 0);
  for (int p = 0; p < shm->local_size; p++) {
    unsigned char one = 1;
    if (!atomic_compare_exchange_strong(&shm->dead[p], &one, 2))
      continue;
    hc_log(HC_LOG_INFO, "shm", "local peer rank %d died",
           shm->local_world_ranks[p]);
    hc_shm_pool_reclaim(&shm->pools[shm->local_rank], (uint32_t)p);
    if (shm->peer_failed_cb != NULL)
      shm->peer_failed_cb(shm->engine, shm->local_world_ranks[p],
                          HC_ERR_PEER_DEAD);
    found++;
  }
  return found;
}

static void shm_check_liveness(shm_ctx_t *shm);
static void shm_sample_runq(shm_ctx_t *shm);

/* 1 when p's fast box or ring may hold a packet for me: a load or three. */
static inline int shm_peer_may_have_sent(shm_ctx_t *shm, int p) {
  return hc_shm_fastbox_holds(&shm->box_in[p]) ||
         hc_shm_ring_may_hold(&shm->in[p]);
}

/* Delivers what the peers sent, each peer in turn from where the last
 * call stopped, and reports deaths. */
static int shm_progress_deliver(shm_ctx_t *shm) {
  int n = shm->local_size;
  if (shm->base == NULL || n < 2)
    return 0;
  int total = 0;
  if (atomic_load_explicit(&shm->deaths_pending, memory_order_relaxed))
    total += shm_report_deaths(shm);
  int i = shm->rr;
  for (int k = 0; k < n - 1 && total < SHM_BATCH_TOTAL; k++) {
    int p = shm->peers[i];
    if (shm_peer_may_have_sent(shm, p))
      total += shm_drain_peer(shm, p, SHM_BATCH_PER_RING);
    i = (i + 2 == n) ? 0 : i + 1;
  }
  shm->rr = i;
  return total;
}

/* On a crowded node, the poll that found marks (shm_mark_sent): delivers
 * from the peers whose bit (local rank mod 64) is set and reads no other
 * peer's box or ring.  A bit is cleared only when its peers had nothing
 * at two looks in a row, and they are looked at once more after the
 * clearing (a send that saw the bit still set published before it was
 * cleared): a peer that keeps sending (a stream, or a ping-pong's partner)
 * keeps its bit, so neither side writes the line per message (clearing at
 * every empty look cost 8 ranks on 2 cores ~13 % of their message rate).
 * 8 ranks on 2 cores: every switch to a rank makes its look cold, and the
 * 7 boxes and 7 ring heads of a full one were ~30 % of a round trip's
 * instructions and most of its misses in user code (bench/NOTES.md,
 * osub18). */
static __attribute__((noinline)) int shm_progress_marked(shm_ctx_t *shm) {
  _Atomic uint64_t *mask = shm->sent_marks;
  uint64_t marks = atomic_load_explicit(mask, memory_order_acquire);
  int total = 0;
  while (marks != 0) {
    int bit = __builtin_ctzll(marks);
    uint64_t one = (uint64_t)1 << bit;
    marks &= marks - 1;
    int found = 0;
    for (int p = bit; p < shm->local_size; p += 64) {
      if (p == shm->local_rank || !shm_peer_may_have_sent(shm, p))
        continue;
      total += shm_drain_peer(shm, p, SHM_BATCH_PER_RING);
      found = 1;
    }
    if (found) {
      shm->marks_quiet &= ~one;
      continue;
    }
    if (!(shm->marks_quiet & one)) {
      shm->marks_quiet |= one; /* empty once: the bit stays */
      continue;
    }
    shm->marks_quiet &= ~one;
    atomic_fetch_and_explicit(mask, ~one, memory_order_seq_cst);
    for (int p = bit; p < shm->local_size; p += 64) {
      if (p == shm->local_rank || !shm_peer_may_have_sent(shm, p))
        continue;
      total += shm_drain_peer(shm, p, SHM_BATCH_PER_RING);
      atomic_fetch_or_explicit(mask, one, memory_order_relaxed);
    }
  }
  return total;
}

/* The empty poll, most polls of a wait, is a look at each peer's box and
 * ring and no call; only what finds something goes on to deliver.  On a
 * crowded node it is a look at this rank's marks (shm_mark_sent). */
static int shm_progress(void *ctx) {
  shm_ctx_t *shm = ctx;
  if (atomic_load_explicit(&shm->deaths_pending, memory_order_relaxed))
    return shm_progress_deliver(shm);
  for (int k = 0; k < shm->look_npeers; k++) {
    int p = shm->peers[k];
    if (shm_peer_may_have_sent(shm, p))
      return shm_progress_deliver(shm);
  }
  /* After the look, which a crowded node skips: a poll that finds a
   * packet on a node that is not crowded pays nothing for the marks.  A
   * mark left set over an empty peer makes an empty poll, which goes on. */
  if (shm->sent_marks != NULL &&
      atomic_load_explicit(shm->sent_marks, memory_order_relaxed) != 0) {
    int got = shm_progress_marked(shm);
    if (got > 0)
      return got;
  }
  if (shm->demote_len != 0) {
    /* With prefetch_next the next sparse send copies into lines this core
     * holds: 2-8 KiB ping-pong 10-15 % quicker on AMD (amdp2p23), where
     * the demote is a NOP. */
    if (shm->prefetch_next)
      hc_shm_pool_prefetch_next(&shm->pools[shm->local_rank], shm->demote_len);
    else
      hc_shm_pool_demote(&shm->pools[shm->local_rank], shm->demote_index,
                         shm->demote_len);
    shm->demote_len = 0;
  }
  /* A loop of MPI_Test never sleeps, so the check a wait makes before
   * sleeping would never run: empty polls look too, now and then (the
   * check itself is rate-limited by the clock). */
  if (++shm->idle_polls % SHM_IDLE_POLLS_PER_LIVENESS != 0)
    return 0;
  shm_check_liveness(shm);
  shm_sample_runq(shm);
  return shm_progress_deliver(shm);
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t hc_shm_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The smallest rendezvous with local rank p read with CMA when it is one
 * of a stream (others behind it): every one while the pair waits for a
 * core, else from cma_min, or from far_read_min where the two cores are
 * far apart: there the cells' two copies each pull every line across the
 * slow link, one read pulls them once (bench/NOTES.md, far25), which
 * hc_shm_far_reads tells as the host moves the cores.  choose: as
 * there (enum shm_far_choose). */
static size_t shm_stream_read_min(shm_ctx_t *shm, int p, int choose) {
  shm_sample_runq(shm);
  if (shm_pair_contended(shm, p))
    return 0;
  if (shm->far_read_min < shm->cma_min && shm->cma_enabled &&
      !shm->cma_off[p] && hc_shm_far_reads(shm, p, choose))
    return shm->far_read_min;
  return shm->cma_min;
}

/* The same for a lone rendezvous, nothing behind it: from lone_read_min
 * too, where the pair may read at all.  Streamed through cells, a lone
 * message's two copies (the receiver's pulling every line from the
 * sender's core) took 2-5x one read (bench/NOTES.md, lat19: 16 KiB 4
 * against 1.7 us); a stream's copies overlap, which one read after
 * another does not (mid18: reading from 8 KiB cost windows at 12-24 KiB
 * ~25 %). */
static size_t shm_lone_read_min(shm_ctx_t *shm, int p, int choose) {
  size_t min = shm_stream_read_min(shm, p, choose);
  if (!shm->cma_enabled || shm->cma_off[p])
    return min;
  return shm->lone_read_min < min ? shm->lone_read_min : min;
}

/* At the receiver, when it answers an RTS: lone while the ring from the
 * sender holds nothing behind it. */
static size_t shm_get_min(void *ctx, int peer_world_rank, int streams_landing) {
  shm_ctx_t *shm = ctx;
  int p = shm->base != NULL ? shm_local_of(shm, peer_world_rank) : -1;
  if (p < 0 || p == shm->local_rank)
    return shm->cma_min;
  int choose = streams_landing > 0 ? SHM_FAR_CHOOSE_BUSY : SHM_FAR_CHOOSE;
  return hc_shm_ring_holds_at_most_one(&shm->in[p])
             ? shm_lone_read_min(shm, p, choose)
             : shm_stream_read_min(shm, p, choose);
}

static size_t shm_eager_max(void *ctx) {
  shm_ctx_t *shm = ctx;
  return shm->eager_max;
}

/* Whether a send to local rank p is a ping-pong's turn: p answered (I took
 * a packet of its) since my last ask, and had answered before that ask
 * too.  The first message of a window (message rate, window bandwidth)
 * finds an answer (the last window's acknowledgement) as well, but the ask
 * before it found none, and the ones after it find none.  Counts are this
 * rank's own: the packets it put into its ring and box to p, and took
 * from p's. */
static int shm_lone_turn(shm_ctx_t *shm, int p) {
  struct shm_turn *turn = &shm->turns[p];
  uint64_t sent =
      atomic_load_explicit(shm->out[p].tail_word, memory_order_relaxed) +
      shm->box_out[p].last;
  if (sent == turn->sent_at_ask)
    return turn->lone; /* the same send asking again */
  uint64_t taken =
      atomic_load_explicit(shm->in[p].head_word, memory_order_relaxed) +
      shm->box_in[p].last;
  int answered = taken != turn->taken_at_ask;
  turn->lone = (unsigned char)(answered && turn->answered);
  turn->answered = (unsigned char)answered;
  turn->sent_at_ask = sent;
  turn->taken_at_ask = taken;
  return turn->lone;
}

/* Above eager_max a rendezvous is quicker for a lone message only because
 * the pair reads it with CMA, one copy (eager17).  Behind packets the peer
 * has not read yet, behind our unfinished rendezvous (in_stream), or when
 * the peer did not answer between our sends (shm_lone_turn), this message
 * is one of a stream, where a handshake and a read each fall behind the
 * eager copies (mid17, bench/NOTES.md: 8193 B, window 64, 12.7k against
 * 9.0k MB/s, ping-pong latency unchanged; lat22: 6-8 KiB windows lost
 * ~10 % when only a drained ring told); so eager up to eager_busy_max
 * then.  A lone message the receiver would stream through its cells
 * instead of reading it (below shm_lone_read_min) goes eager too: that
 * stream less its RTS and CTS.  Eager pieces of a message, copied out
 * while the next is copied in, did no better than whole ones here
 * (mid17), so a message goes whole. */
static size_t shm_eager_max_now(void *ctx, int peer_world_rank, int in_stream) {
  shm_ctx_t *shm = ctx;
  int p = shm->base != NULL ? shm_local_of(shm, peer_world_rank) : -1;
  if (p < 0 || p == shm->local_rank || shm->eager_busy_max == 0)
    return 0;
  int lone = shm_lone_turn(shm, p);
  if (in_stream || !lone || !hc_shm_ring_drained(&shm->out[p]))
    return shm->eager_busy_max;
  size_t read_min = shm_lone_read_min(shm, p, SHM_FAR_ASK);
  if (read_min <= shm->eager_max + 1)
    return 0;
  return read_min - 1 < shm->eager_busy_max ? read_min - 1
                                            : shm->eager_busy_max;
}

/* Nonzero when progress or send would now find something to do. */
static int shm_pending(shm_ctx_t *shm) {
  for (int p = 0; p < shm->local_size; p++) {
    if (p == shm->local_rank)
      continue;
    if (!shm->in_corrupt[p] && (hc_shm_fastbox_readable(shm->box_in[p].box) ||
                                hc_shm_ring_readable(&shm->in[p])))
      return 1;
    if (atomic_load_explicit(&shm->out_blocked[p], memory_order_relaxed) &&
        hc_shm_ring_writable(&shm->out[p])) {
      atomic_store_explicit(&shm->out_blocked[p], 0, memory_order_relaxed);
      return 1;
    }
  }
  if (atomic_load_explicit(&shm->pool_blocked, memory_order_relaxed) &&
      hc_shm_pool_has_free(&shm->pools[shm->local_rank])) {
    atomic_store_explicit(&shm->pool_blocked, 0, memory_order_relaxed);
    return 1;
  }
  return 0;
}

static long shm_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the run time and run delay (ns) of the schedstat file; 0 when it
 * does not hold them. */
static int shm_read_schedstat(int fd, uint64_t *run_ns, uint64_t *delay_ns) {
  char text[96];
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0)
    return 0;
  text[n] = '\0';
  unsigned long long run, delay;
  if (sscanf(text, "%llu %llu", &run, &delay) != 2)
    return 0;
  *run_ns = run;
  *delay_ns = delay;
  return 1;
}

/* At most every SHM_RUNQ_SAMPLE_MS: whether this rank waited for a core
 * more than runq_max percent of its runnable time since the last sample,
 * published in its slot for its peers (SHM_DEFAULT_RUNQ_MAX). */
static void shm_sample_runq(shm_ctx_t *shm) {
  if (shm->slots == NULL ||
      atomic_flag_test_and_set_explicit(&shm->runq_busy, memory_order_acquire))
    return;
  long now = shm_now_ms();
  uint64_t run, delay;
  if (shm->runq_fd >= 0 && now >= shm->runq_next_ms) {
    shm->runq_next_ms = now + SHM_RUNQ_SAMPLE_MS;
    if (!shm_read_schedstat(shm->runq_fd, &run, &delay)) {
      close(shm->runq_fd); /* the thread is gone, or no schedstat */
      shm->runq_fd = -1;
    } else if (run - shm->runq_run_ns + (delay - shm->runq_delay_ns) >=
               SHM_RUNQ_MIN_NS) {
      uint64_t waited = delay - shm->runq_delay_ns;
      uint64_t runnable = run - shm->runq_run_ns + waited;
      uint32_t contended = waited * 100 >= (uint64_t)shm->runq_max * runnable;
      _Atomic uint32_t *mine = &shm->slots[shm->local_rank].runq_contended;
      if (atomic_exchange_explicit(mine, contended, memory_order_relaxed) !=
              contended &&
          hc_log_level() >= HC_LOG_DEBUG)
        hc_log(HC_LOG_DEBUG, "shm",
               "waited for a core %llu of %llu us: rendezvous %s",
               (unsigned long long)(waited / 1000),
               (unsigned long long)(runnable / 1000),
               contended ? "read with CMA" : "stream again");
      shm->runq_run_ns = run;
      shm->runq_delay_ns = delay;
    }
  }
  atomic_flag_clear_explicit(&shm->runq_busy, memory_order_release);
}

int hc_shm_peer_gone(shm_ctx_t *shm, int p) {
  if (shm->pidfd[p] >= 0) {
    struct pollfd pfd = {.fd = shm->pidfd[p], .events = POLLIN};
    return poll(&pfd, 1, 0) > 0;
  }
  pid_t pid = atomic_load_explicit(&shm->slots[p].pid, memory_order_acquire);
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/* A blocked rank is about to sleep: at most every liveness_ms, look
 * whether a local peer exited (a pidfd turns readable even while the
 * launcher has not reaped it; kill(pid, 0) is the fallback). */
static void shm_check_liveness(shm_ctx_t *shm) {
  long now = shm_now_ms();
  long due = atomic_load_explicit(&shm->next_liveness_ms, memory_order_relaxed);
  if (now < due || !atomic_compare_exchange_strong(&shm->next_liveness_ms, &due,
                                                   now + shm->liveness_ms))
    return;
  for (int p = 0; p < shm->local_size; p++) {
    if (p == shm->local_rank || atomic_load(&shm->dead[p]) != 0)
      continue;
    if (hc_shm_peer_gone(shm, p)) {
      atomic_store(&shm->dead[p], 1);
      atomic_store(&shm->deaths_pending, 1);
    }
  }
}

/* The sleeper's half of the fences (see the top of the file); 0 when a
 * light send may still go unseen, so the sleep must be short. */
static int shm_sleeper_fence(const shm_ctx_t *shm) {
  return hc_fence_sleeper(shm->light_fences);
}

static void shm_wait(void *ctx, int timeout_ms) {
  shm_ctx_t *shm = ctx;
  if (shm->base == NULL || shm->local_size < 2 || timeout_ms == 0)
    return;
  shm_check_liveness(shm);
  shm_sample_runq(shm);
  if (atomic_load_explicit(&shm->deaths_pending, memory_order_relaxed) ||
      hc_shm_cma_being_read(shm))
    return;
  struct hc_shm_slot *slot = &shm->slots[shm->local_rank];
  uint32_t bell = atomic_load_explicit(&slot->doorbell, memory_order_seq_cst);
  atomic_fetch_add_explicit(&slot->sleeping, 1, memory_order_seq_cst);
  if (!shm_sleeper_fence(shm) && (timeout_ms < 0 || timeout_ms > 1))
    timeout_ms = 1;
  if (!shm_pending(shm)) {
    struct timespec ts = {timeout_ms / 1000,
                          (long)(timeout_ms % 1000) * 1000000L};
    /* EAGAIN (a wake came first), EINTR and ETIMEDOUT all mean "look
     * again", which is the caller's job. */
    syscall(SYS_futex, (uint32_t *)&slot->doorbell, FUTEX_WAIT, bell,
            timeout_ms < 0 ? NULL : &ts, NULL, 0);
  }
  atomic_fetch_sub_explicit(&slot->sleeping, 1, memory_order_relaxed);
}

/* Beside transports that sleep on descriptors: the pollable doorbell,
 * once every local peer holds a copy (else the futex, in turns). */
static int shm_wait_pollfd(void *ctx, int *timeout_ms) {
  shm_ctx_t *shm = ctx;
  if (shm->base == NULL || shm->local_size < 2 || shm->bell_fd < 0)
    return HC_TRANSPORT_WAIT_OWN;
  struct hc_shm_slot *slot = &shm->slots[shm->local_rank];
  if (atomic_load_explicit(&slot->bell_holders, memory_order_acquire) !=
      (uint32_t)shm->local_size - 1)
    return HC_TRANSPORT_WAIT_OWN;
  if (!shm->bell_announced) {
    shm->bell_announced = 1;
    hc_log(HC_LOG_DEBUG, "shm",
           "sleeping on the pollable doorbell beside "
           "other transports");
  }
  shm_check_liveness(shm);
  atomic_fetch_add_explicit(&slot->polling, 1, memory_order_seq_cst);
  if (!shm_sleeper_fence(shm) && (*timeout_ms < 0 || *timeout_ms > 1))
    *timeout_ms = 1;
  if (atomic_load_explicit(&shm->deaths_pending, memory_order_relaxed) ||
      shm_pending(shm) || hc_shm_cma_being_read(shm))
    return HC_TRANSPORT_WAIT_NOW;
  return shm->bell_fd;
}

/* Ends shm_wait_pollfd: takes the doorbell's wake-ups.  Another thread
 * polling beside may lose one it had not yet seen; its poll then ends at
 * the engine's timeout, which is short. */
static void shm_wait_done(void *ctx) {
  shm_ctx_t *shm = ctx;
  uint64_t wakes;
  atomic_fetch_sub_explicit(&shm->slots[shm->local_rank].polling, 1,
                            memory_order_relaxed);
  while (read(shm->bell_fd, &wakes, sizeof wakes) > 0)
    ;
}

static void shm_fini(void *ctx) {
  shm_ctx_t *shm = ctx;
  if (shm == NULL)
    return;
  if (shm->base != NULL)
    munmap(shm->base, shm->seg_size);
  if (shm->linked)
    shm_unlink(shm->name);
  if (shm->memfd >= 0)
    close(shm->memfd);
  for (int p = 0; shm->pidfd != NULL && p < shm->local_size; p++)
    if (shm->pidfd[p] >= 0)
      close(shm->pidfd[p]);
  for (int p = 0; shm->peer_bell_fd != NULL && p < shm->local_size; p++)
    if (shm->peer_bell_fd[p] >= 0)
      close(shm->peer_bell_fd[p]);
  if (shm->bell_fd >= 0)
    close(shm->bell_fd);
  if (shm->runq_fd >= 0)
    close(shm->runq_fd);
  free(shm->pidfd);
  free(shm->peer_bell_fd);
  free(shm->peers);
  free((void *)shm->dead);
  free(shm->local_world_ranks);
  free(shm->in);
  free(shm->out);
  free(shm->box_in);
  free(shm->box_out);
  free(shm->pools);
  free((void *)shm->out_blocked);
  free(shm->box_skips);
  free(shm->turns);
  free(shm->rates);
  free(shm->cma_off);
  free(shm->cma_worked);
  free(shm->in_corrupt);
  free(shm);
}

/* The tool interface's view of this rank's send pool. */
static hc_status_t shm_counter(void *ctx, hc_transport_counter_t which,
                               uint64_t *value) {
  shm_ctx_t *shm = ctx;
  if (which != HC_TRANSPORT_COUNTER_POOL_CELLS_IN_USE)
    return HC_ERR_NOT_SUPPORTED;
  const hc_shm_pool_t *mine =
      shm->pools != NULL ? &shm->pools[shm->local_rank] : NULL;
  *value = mine != NULL && mine->cells != NULL ? hc_shm_pool_in_use(mine) : 0;
  return HC_OK;
}

/* The verdict shm_connected took for the pair, for any other rank here. */
static hc_transport_placement_t shm_placement(void *ctx, int peer_world_rank) {
  shm_ctx_t *shm = ctx;
  int p = shm_local_of(shm, peer_world_rank);
  if (p < 0 || p == shm->local_rank)
    return HC_TRANSPORT_PLACEMENT_UNKNOWN;
  return shm->placement;
}

const hc_transport_ops_t hc_transport_shm_ops = {
    .name = "shm",
    .reach = HC_TRANSPORT_REACH_NODE,
    .flags = HC_TRANSPORT_PEER_MEMORY,
    .trace_path = HC_TRACE_PATH_SHM,
    .trace_get_path = HC_TRACE_PATH_CMA,
    .init = shm_init,
    .address = shm_address,
    .connect = shm_connect,
    .connected = shm_connected,
    .max_packet = shm_max_packet,
    .send = shm_send,
    .progress = shm_progress,
    .get = hc_shm_cma_get,
    .get_min = shm_get_min,
    .rndv_measured = hc_shm_rndv_measured,
    .eager_max = shm_eager_max,
    .eager_max_now = shm_eager_max_now,
    .put = hc_shm_cma_put,
    .wake = shm_wake_op,
    .wait = shm_wait,
    /* Alone, the doorbell is a futex in the segment: no descriptor. */
    .wait_fd = hc_transport_wait_fd_not_supported,
    .wait_pollfd = shm_wait_pollfd,
    .wait_done = shm_wait_done,
    .set_secret = hc_transport_set_secret_not_supported,
    .watch = hc_transport_watch_nothing,
    .fini = shm_fini,
    .counter = shm_counter,
    .placement = shm_placement,
};
