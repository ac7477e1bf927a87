/*
 * Shared-memory collectives of one node's ranks (see shmcoll.h and, for
 * the segment, shmcoll_impl.h).  Each rank announces its progress by
 * raising its own sequence numbers; nobody else writes them, so no atomic
 * read-modify-write is needed on the fast path.
 *   barrier:   raise done, wait until every rank's done reached it;
 *   bcast:     the root copies a chunk into the shared area (a large one
 *              on into every rank's slot) and raises posted; the others
 *              copy it out in parallel and raise done; chunks alternate
 *              between the two halves (a pipeline);
 *   reduce, allreduce: every rank copies its input into its slot and
 *              raises posted; small vectors (and a reduce's on two ranks
 *              or more ranks than CPUs) are then combined whole by
 *              every rank that needs the result, larger ones slice by
 *              slice (each rank combines its slice of every slot in place
 *              in the last rank's slot, and raises reduced), then copied
 *              out.  Slots are combined from the highest rank down, src
 *              the lower rank, so a non-commutative op sees rank order;
 *   allgather: every rank copies (a chunk of) its block into its slot and
 *              raises posted, then copies every other rank's out;
 *   alltoall:  every rank copies its block for peer j into part j of its
 *              slot, then peer j copies it out (blocks too large for a
 *              part are left to the schedule's messages, or in a
 *              blocking alltoallv on more than two ranks read by their
 *              receivers from the senders' buffers, a failed read then
 *              sent as a message between that pair alone);
 *   reduce_scatter: every rank copies (a chunk of) its vector into its
 *              slot, then combines its own block of every slot, in rank
 *              order, straight into its result;
 *   pair read: on two ranks, large allgather and alltoall blocks: each
 *              rank names where its block for the other lies, reads the
 *              other's straight from its memory (the transport's
 *              single-copy get: CMA on shm), and keeps its buffer until
 *              the other read it.
 *   bcast read: large bcasts: every rank names its buffer, the others
 *              read the root's straight from its memory (on two ranks the
 *              root writes half of it meanwhile, the single-copy put),
 *              and the root keeps its buffer until they did.
 *   reduce read: large reduces on two ranks: the other rank names its
 *              input, the root reads it piece by piece straight from its
 *              memory and combines each piece while it is in its cache;
 *              the other rank keeps its input until the root did.  An
 *              allreduce (not in place) likewise, each rank over its half
 *              of the vector, writing each combined piece into both
 *              results.
 * A communicator that spans nodes runs them over its node and leader
 * communicators instead (shmcoll_hier.c).
 * A wait polls the flag and the engine's progress, yields and sleeps as
 * point-to-point waits do (hc_idle_poll_locked), sleeping on a futex in the
 * segment that every publication rings while someone sleeps; it fails
 * with the peer's failure when a member of the communicator is lost.
 */

#include "config.h" /* _GNU_SOURCE, for sched_getcpu */

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll_impl.h"
#include "util/copy.h"
#include "util/fence.h"
#include "util/smallmem.h"


static int shmcoll_ready(const hc_shmcoll_t *sc, int kind, int who,
                         uint32_t want) {
  if (who != SHMCOLL_ALL)
    return shmcoll_reached(
        atomic_load_explicit(&sc->lines[who].flag[kind], memory_order_acquire),
        want);
  for (int r = 0; r < sc->size; r++)
    if (!shmcoll_reached(atomic_load_explicit(&sc->lines[r].flag[kind],
                                              memory_order_acquire),
                         want))
      return 0;
  return 1;
}

void hc_shmcoll_note_cpu(hc_shmcoll_t *sc) {
  atomic_store_explicit(&sc->lines[sc->rank].cpu,
                        (uint32_t)(sched_getcpu() + 1), memory_order_relaxed);
}

void hc_shmcoll_ring(hc_shmcoll_t *sc) {
  shmcoll_hdr_t *hdr = sc->hdr;
  atomic_fetch_add_explicit(&hdr->bell, 1, memory_order_seq_cst);
  syscall(SYS_futex, (uint32_t *)&hdr->bell, FUTEX_WAKE, INT_MAX, NULL, NULL,
          0);
  /* Those asleep on their transports (shmcoll_wait): the transport wakes
   * only one that sleeps, so the others cost a load each. */
  if (sc->world_ranks != NULL)
    for (int r = 0; r < sc->size; r++)
      if (r != sc->rank)
        hc_engine_wake_peer_locked(sc->world_ranks[r]);
}

/* Sleeps until a publication or ms (the blocking forms: the engine's
 * longest sleep, so progress and the failure checks still run now and
 * then). */
static void shmcoll_sleep(hc_shmcoll_t *sc, int kind, int who, uint32_t want,
                          int ms) {
  shmcoll_hdr_t *hdr = sc->hdr;
  uint32_t bell = atomic_load_explicit(&hdr->bell, memory_order_seq_cst);
  atomic_fetch_add_explicit(&hdr->sleepers, 1, memory_order_seq_cst);
  if (!hc_fence_sleeper(sc->light_sleep))
    ms = 1; /* a light publication may go unseen: a short sleep */
  if (!shmcoll_ready(sc, kind, who, want)) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    syscall(SYS_futex, (uint32_t *)&hdr->bell, FUTEX_WAIT, bell, &ts, NULL, 0);
  }
  atomic_fetch_sub_explicit(&hdr->sleepers, 1, memory_order_relaxed);
}

typedef struct shmcoll_sleeper {
  hc_shmcoll_t *sc;
  int kind, who;
  uint32_t want;
} shmcoll_sleeper_t;

/* Asked once the transports are readied to sleep, this rank counted
 * among the sleepers (Dekker with shmcoll_publish, as shmcoll_sleep). */
static int shmcoll_sleeper_ready(void *arg) {
  const shmcoll_sleeper_t *w = arg;
  /* Unfenced, a light publication may go unseen: do not sleep now. */
  return !hc_fence_sleeper(w->sc->light_sleep) ||
         shmcoll_ready(w->sc, w->kind, w->who, w->want);
}

/* Sleeps on the transports (under the lock, dropped while asleep) until
 * a publication, a message or ms: a rank in a blocking collective still
 * serves what reaches it meanwhile, such as one-sided operations on its
 * windows, which its progress alone applies. */
static void shmcoll_sleep_on_transports(hc_shmcoll_t *sc, int kind, int who,
                                        uint32_t want, int ms) {
  shmcoll_hdr_t *hdr = sc->hdr;
  shmcoll_sleeper_t w = {sc, kind, who, want};
  atomic_fetch_add_explicit(&hdr->sleepers, 1, memory_order_seq_cst);
  hc_idle_sleep_unless_locked(shmcoll_sleeper_ready, &w, ms);
  atomic_fetch_sub_explicit(&hdr->sleepers, 1, memory_order_relaxed);
}

static int shmcoll_owed_here(const hc_shmcoll_t *sc, int kind, int who,
                             uint32_t want);

/* 1 when a blocking wait of a crowded segment that polled (and yielded)
 * polls times should sleep now: no rank it waits for last published from
 * this CPU, so a yield hands the core to none of them, and the core kept
 * busy is one that the scheduler cannot pull a waiting rank onto from the
 * other CPUs' queues until their next tick (4 ranks on 2 cores, Alltoall
 * 64 KiB: iterations of ~1 ms where the sleep came after 2000 yields;
 * bench/NOTES.md, pair24).  HCMPI_COLL_SHM_CROWDED_YIELDS (the
 * processor's; 0: as any other wait). */
static int shmcoll_sleep_soon(const hc_shmcoll_t *sc, long polls, int kind,
                              int who, uint32_t want) {
  long most = (long)hc_shmcoll_tuning.crowded_yields;
  return sc->crowded && most > 0 && polls >= most &&
         !shmcoll_owed_here(sc, kind, who, want);
}

/* Until flag kind of rank who (or of every rank) reached want. */
static hc_status_t shmcoll_wait(hc_shmcoll_t *sc, hcomm_comm_t *comm, int kind,
                                int who, uint32_t want) {
  long spins = 0;
  int slept = 0;
  while (!shmcoll_ready(sc, kind, who, want)) {
    hc_engine_lock();
    int moved = hc_progress_locked();
    hc_status_t why = hc_comm_failure_locked(comm);
    if (moved == 0 && shmcoll_sleep_soon(sc, spins, kind, who, want))
      spins = hc_engine.spin; /* the spin spent: the poll below sleeps */
    int poll = why != HC_OK || moved > 0 || hc_idle_poll_locked(&spins);
    if (!poll && sc->wake_by_transport < 0)
      sc->wake_by_transport =
          sc->world_ranks != NULL &&
          hc_engine_can_wake_peers_locked(sc->world_ranks, sc->size);
    if (!poll && sc->wake_by_transport == 1) {
      shmcoll_sleep_on_transports(sc, kind, who, want, hc_engine.wait_ms);
      poll = 1; /* slept */
      slept = 1;
    }
    hc_engine_unlock();
    if (why != HC_OK)
      return why;
    if (moved > 0)
      spins = 0;
    if (!poll)
      shmcoll_sleep(sc, kind, who, want, hc_engine.wait_ms);
    slept |= !poll;
  }
  if (slept) { /* no request completes here for the watchdog to see */
    hc_engine_lock();
    hc_watchdog_feed_locked();
    hc_engine_unlock();
  }
  return HC_OK;
}

/* The segment for this collective, or NULL (*rc: HC_ERR_NOT_SUPPORTED, or
 * the failure met while making it).  A lost member is found by
 * hc_shmcoll_run, under the lock it takes anyway. */
hc_shmcoll_t *hc_shmcoll_enter(hcomm_comm_t *comm, size_t bytes,
                               hc_status_t *rc) {
  *rc = HC_ERR_NOT_SUPPORTED;
  if (comm == NULL)
    return NULL;
  hc_status_t setup;
  hc_shmcoll_t *sc = hc_shmcoll_get(comm, bytes, &setup);
  if (setup != HC_OK)
    *rc = setup;
  return sc;
}

/* ---- one collective as a sequence of chunks, each in phases ------------- */

int hc_shmcoll_need(hc_shmcoll_t *sc, int kind, int who, uint32_t want) {
  if (kind == SHMCOLL_DONE && who == SHMCOLL_ALL
          ? shmcoll_all_done(sc, want)
          : shmcoll_ready(sc, kind, who, want))
    return 1;
  sc->wait_kind = kind;
  sc->wait_who = who;
  sc->wait_want = want;
  return 0;
}

static int shmcoll_barrier_step(hc_shmcoll_op_t *op, uint32_t s) {
  if (op->phase == 0) {
    shmcoll_publish(op->sc, SHMCOLL_DONE, s);
    op->phase = 1;
  }
  return hc_shmcoll_need(op->sc, SHMCOLL_DONE, SHMCOLL_ALL, s);
}

/* Whether op copies n bytes into the segment for other cores to read
 * past this core's cache (a bcast's
 * chunk, an allgather's block, a large reduction's input: 2 ranks beside
 * other jobs, Allreduce 1 MiB 120-147 us streaming against 359-9423
 * copying; bench/NOTES.md, coll16e).  From HCMPI_COLL_SHM_STREAM_MIN bytes on,
 * past this core's cache (non-temporal stores): readers then fetch the
 * lines from the shared cache or memory instead of from this core's, and
 * the next fill needs no line back from theirs.  Where other processes
 * share the cores those transfers between the cores' caches are what the
 * collective waits for (bench/collective on 2 ranks beside other jobs'
 * compilers, 64 KiB: bcast 30-350 us copying, 4.6-6.7 us streaming;
 * allgather 14-297 us against 12.0-12.3 us).  Not on two ranks in a
 * collective of HCMPI_COLL_SHM_PAIR_CACHED_MIN bytes or more (blocks or
 * vector), whose chunks come back to the same two buffers of each rank:
 * where the processor keeps them in a cache both cores reach (Zen 4), the
 * next chunk's lines are at hand for both sides; nor, on a node with
 * more ranks than CPUs, in a Reduce or Allreduce of
 * HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN bytes or more, whose inputs a
 * rank on the same core then finds in its cache (cpu_profile.c). */
static int shmcoll_streams(const hc_shmcoll_op_t *op, size_t n) {
  const hc_shmcoll_tuning_t *t = &hc_shmcoll_tuning;
  if (!HC_COPY_STREAMS || t->stream_min == 0 || n < t->stream_min)
    return 0;
  int reduction =
      op->what == SHMCOLL_OP_REDUCE || op->what == SHMCOLL_OP_REDUCE_SCATTER;
  /* (a reduction's takes bound its elements times their size) */
  size_t bytes = reduction ? op->size * op->op.elem_size : op->size;
  size_t cached_min = 0;
  if (op->sc->size == 2)
    cached_min = t->pair_cached_min;
  else if (op->sc->crowded && op->what == SHMCOLL_OP_REDUCE)
    cached_min = t->crowded_reduce_cached_min;
  return cached_min == 0 || bytes < cached_min;
}

/* Copies n bytes of op into the segment: streamed or not as
 * shmcoll_streams says. */
static void shmcoll_copy_in(const hc_shmcoll_op_t *op, unsigned char *dst,
                            const unsigned char *src, size_t n) {
  if (shmcoll_streams(op, n)) {
    hc_copy_stream(dst, src, n);
    hc_copy_stream_fence(); /* before the flag that publishes them */
    return;
  }
  memcpy(dst, src, n);
}

/* Chunk at of a bcast, collective number s: the root copies it into the
 * buffers of s once every rank finished with their last use, the others
 * copy it out once the root posted it.  A chunk larger than one buffer
 * spreads over large buffers of its parity, the shared area's and then
 * each rank's from the last down (no rank posts its own in a bcast), up
 * to HCMPI_COLL_SHM_BCAST_BUFS of them per synchronisation. */
static int shmcoll_bcast_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  size_t at = (size_t)(op->at - (uint32_t)op->read_first) * op->step;
  size_t len = op->size - at < op->step ? op->size - at : op->step;
  int root = sc->rank == op->root;
  if (root &&
      !hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL, shmcoll_reuse(sc, s, len)))
    return 0;
  if (!root && !hc_shmcoll_need(sc, SHMCOLL_POSTED, op->root, s))
    return 0;
  size_t piece;
  for (size_t done = 0, k = 0; done < len; done += piece, k++) {
    piece = len - done < sc->chunk ? len - done : sc->chunk;
    unsigned char *buf = shmcoll_buf(sc, sc->size - (int)k, s, len);
    if (op->acc != NULL && root)
      op->acc->pack(op->acc->ctx, at + done, buf, piece);
    else if (op->acc != NULL)
      op->acc->unpack(op->acc->ctx, at + done, buf, piece);
    else if (root)
      shmcoll_copy_in(op, buf, op->out + at + done, piece);
    else
      memcpy(op->out + at + done, buf, piece);
  }
  if (root)
    atomic_store_explicit(&sc->lines[sc->rank].flag[SHMCOLL_DONE], s,
                          memory_order_relaxed);
  shmcoll_publish(sc, root ? SHMCOLL_POSTED : SHMCOLL_DONE, s);
  return 1;
}

void hc_shmcoll_combine(const hc_shmcoll_t *sc, uint32_t s, size_t len,
                        void *dst, size_t first, size_t count,
                        const hcomm_reduce_op_t *op, const unsigned char *own,
                        int where) {
  size_t off = first * op->elem_size;
  if (count == 0)
    return;
  const unsigned char *last =
      sc->rank == sc->size - 1 && own != NULL
          ? own
          : shmcoll_posted_at(sc, sc->size - 1, s, len, where) + off;
  hc_copy_small(dst, last, count * op->elem_size);
  for (int r = sc->size - 2; r >= 0; r--)
    op->fn(r == sc->rank && own != NULL
               ? own
               : shmcoll_posted_at(sc, r, s, len, where) + off,
           dst, count, op->ctx);
}

/* The rank whose slot holds rank r's reduced slice of a sliced reduction.
 * Each rank combines its slice in place in posted data that only it
 * reads: the last rank's slot; the last rank, whose own slice is a hole
 * in its slot (it posts the rest), in rank size - 2's slot when the op is
 * commutative (its own input is then the first operand rather than the
 * last, which MPI allows), else in that hole, after copying its input
 * there.  No copy of the slice into a result area: a pass over the slice
 * less per chunk (bench/NOTES.md, coll16e). */
static int shmcoll_slice_home(const hc_shmcoll_t *sc, int r,
                              const hcomm_reduce_op_t *op) {
  int last = sc->size - 1;
  return r == last && op->commutative && last > 0 ? last - 1 : last;
}

/* This rank's slice, count elements from element first on, of collective
 * number s, combined in place in its home (above); own: this rank's
 * input at the slice. */
static void shmcoll_combine_slice(const hc_shmcoll_t *sc, uint32_t s,
                                  size_t len, size_t first, size_t count,
                                  const hcomm_reduce_op_t *op,
                                  const unsigned char *own) {
  size_t off = first * op->elem_size;
  int home = shmcoll_slice_home(sc, sc->rank, op);
  unsigned char *dst = shmcoll_buf(sc, home, s, len) + off;
  if (count == 0)
    return;
  if (home == sc->rank) /* the last rank's hole */
    hc_copy_small(dst, own, count * op->elem_size);
  else if (home < sc->rank) /* commutative: own op slot[home] */
    op->fn(own, dst, count, op->ctx);
  for (int r = home - 1; r >= 0; r--)
    op->fn(r == sc->rank ? own : shmcoll_buf(sc, r, s, len) + off, dst, count,
           op->ctx);
}

/* The reduced vector of collective number s (count elements, every
 * rank's slice at its home) into out. */
static void shmcoll_copy_result(const hc_shmcoll_t *sc, uint32_t s, size_t len,
                                unsigned char *out, size_t count,
                                const hcomm_reduce_op_t *op) {
  int last = sc->size - 1;
  size_t first = 0, n = 0, es = op->elem_size;
  hc_coll_block(count, sc->size, last, &first, &n);
  memcpy(out, shmcoll_buf(sc, last, s, len), first * es);
  memcpy(out + first * es,
         shmcoll_buf(sc, shmcoll_slice_home(sc, last, op), s, len) + first * es,
         n * es);
}

/* Phase 0 of collective number s whose slots take slot bytes: once every
 * rank finished with these buffers' last use, copies n bytes of src into
 * this rank's slot, except the hole bytes from hole_at that no other rank
 * reads, and raises posted as how says.  0: not yet. */
static int shmcoll_post_around(hc_shmcoll_op_t *op, uint32_t s, size_t slot,
                               const unsigned char *src, size_t n,
                               size_t hole_at, size_t hole, int how) {
  hc_shmcoll_t *sc = op->sc;
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL, shmcoll_reuse(sc, s, slot)))
    return 0;
  unsigned char *mine = shmcoll_buf(sc, sc->rank, s, slot);
  if (n > 0 && op->what == SHMCOLL_OP_ALLGATHER) { /* every other rank reads */
    shmcoll_copy_in(op, mine, src, n);
  } else if (how != SHMCOLL_POST_QUIET && shmcoll_streams(op, n)) {
    /* A large reduction's slices, which other ranks combine (a quiet
     * post is read by this rank alone: cached). */
    shmcoll_copy_in(op, mine, src, hole_at);
    if (hole_at + hole < n)
      shmcoll_copy_in(op, mine + hole_at + hole, src + hole_at + hole,
                      n - hole_at - hole);
  } else if (n > 0) { /* else src may be NULL */
    hc_copy_small(mine, src, hole_at);
    if (hole_at + hole < n)
      hc_copy_small(mine + hole_at + hole, src + hole_at + hole,
                    n - hole_at - hole);
  }
  shmcoll_post_raise(sc, s, how);
  op->phase = 1;
  return 1;
}

/* Phase 0 of collective number s whose posts go in the boxes or the post
 * lines (where): once every rank finished with this rank's box or line of
 * that number, n bytes of src into it, raised as how says.  0: not
 * yet. */
static int shmcoll_post_boxed(hc_shmcoll_op_t *op, uint32_t s,
                              const unsigned char *src, size_t n, int where,
                              int how) {
  hc_shmcoll_t *sc = op->sc;
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL,
                       shmcoll_box_reuse(sc, s, where)))
    return 0;
  shmcoll_box_post(sc, s, src, n, where);
  shmcoll_post_raise(sc, s, how);
  op->phase = 1;
  return 1;
}

static int shmcoll_post(hc_shmcoll_op_t *op, uint32_t s, size_t slot,
                        const unsigned char *src, size_t n, int how) {
  return shmcoll_post_around(op, s, slot, src, n, n, 0, how);
}

/* Chunk at of a reduction, collective number s.  Phase 0 posts this
 * rank's input in its slot; small vectors are then combined whole by
 * every rank that gets the result (phase 1), larger ones slice by slice
 * in place in the slots (phase 1) and copied out (phase 2).  A rank
 * reduces its own slice from its own input, so it posts only the rest. */
static int shmcoll_reduce_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  const hcomm_reduce_op_t *rop = &op->op;
  size_t es = rop->elem_size;
  size_t at = (size_t)(op->at - (uint32_t)op->read_first) * op->step;
  size_t count = op->size - at < op->step ? op->size - at : op->step;
  size_t bytes = count * es;
  unsigned char *out = op->out != NULL ? op->out + at * es : NULL;
  const unsigned char *in = op->in + at * es;
  /* A reduce on two ranks, or on more ranks than CPUs: the root combines
   * the others' slots with its own input, which it need not post (no one
   * else reads it, unless it is the result buffer itself: in place).  The
   * others post and are done: one wait, the root's, where slices take two
   * on every rank, which ranks sharing a core pay in switches (4 ranks on
   * 2 cores, 256 KiB 149-292 us against 182-477; bench/NOTES.md, coll16h
   * and coll16j). */
  int whole = bytes <= SHMCOLL_WHOLE_MAX ||
              (op->root >= 0 && (sc->size == 2 || sc->crowded));
  const unsigned char *own =
      whole && op->root >= 0 && out != NULL && out != in ? in : NULL;
  size_t first = 0, mine = 0;
  if (!whole)
    hc_coll_block(count, sc->size, sc->rank, &first, &mine);
  /* A rooted whole reduction: only the root waits for the posts. */
  int how = whole ? shmcoll_reduce_how(op->root, out) : SHMCOLL_POST_ANNOUNCED;
  int where =
      whole ? shmcoll_reduce_where(sc, op->root, bytes) : SHMCOLL_IN_BUFFER;
  switch (op->phase) {
  case 0:
    /* A root not in place posts nothing but its flag, boxed or not. */
    if (where != SHMCOLL_IN_BUFFER && own == NULL) {
      if (!shmcoll_post_boxed(op, s, in, bytes, where, how))
        return 0;
    } else if (!(whole ? shmcoll_post(op, s, bytes, in, own != NULL ? 0 : bytes,
                                      how)
                       : shmcoll_post_around(op, s, bytes, in, bytes,
                                             first * es, mine * es, how))) {
      return 0;
    }
    if (how == SHMCOLL_POST_FINAL)
      return 1;
    /* fall through */
  case 1:
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
      return 0;
    if (whole) {
      hc_shmcoll_combine(sc, s, bytes, out, 0, count, rop, own, where);
      if (where != SHMCOLL_IN_BUFFER)
        shmcoll_box_seen(sc, s);
      break;
    }
    shmcoll_combine_slice(sc, s, bytes, first, mine, rop, in + first * es);
    shmcoll_publish(sc, SHMCOLL_REDUCED, s);
    op->phase = 2;
    /* fall through */
  default:
    if (out == NULL)
      break;
    if (!hc_shmcoll_need(sc, SHMCOLL_REDUCED, SHMCOLL_ALL, s))
      return 0;
    shmcoll_copy_result(sc, s, bytes, out, count, rop);
  }
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* Bytes of each rank's slot that chunk at of op takes: the same on every
 * rank, so that all of them pick the same buffers. */
size_t hc_shmcoll_slot_bytes(const hc_shmcoll_op_t *op, uint32_t at) {
  size_t from = (size_t)at * op->step;
  size_t n = op->size - from < op->step ? op->size - from : op->step;
  switch (op->what) {
  case SHMCOLL_OP_REDUCE:
  case SHMCOLL_OP_REDUCE_SCATTER:
    return n * op->op.elem_size;
  case SHMCOLL_OP_ALLTOALL:
    return (size_t)op->sc->size * op->step;
  case SHMCOLL_OP_GATHER:
  case SHMCOLL_OP_SCATTER:
    return op->sc->small;
  default:
    return n;
  }
}

/* The bytes of a block of len that fall in [from, from + step). */
static size_t shmcoll_part(size_t len, size_t from, size_t step) {
  if (len <= from)
    return 0;
  return len - from < step ? len - from : step;
}

/* Chunk at of an allgather, collective number s: bytes [at x step, +step)
 * of every rank's block. */
static int shmcoll_allgather_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  size_t from = (size_t)op->at * op->step;
  size_t slot = hc_shmcoll_slot_bytes(op, op->at);
  int boxed = shmcoll_box_fits(slot);
  if (op->phase == 0) {
    size_t n = shmcoll_part(hc_shmcoll_block_len(op->counts, op->each, sc->rank),
                            from, op->step);
    const unsigned char *mine = n > 0 ? op->in + from : NULL;
    if (!(boxed ? shmcoll_post_boxed(op, s, mine, n, SHMCOLL_IN_BOX,
                                     SHMCOLL_POST_ANNOUNCED)
                : shmcoll_post(op, s, slot, mine, n, SHMCOLL_POST_ANNOUNCED)))
      return 0;
    unsigned char *own =
        op->out + hc_shmcoll_block_at(op->displs, op->each, sc->rank) + from;
    if (n > 0 && own != mine) /* not in place */
      memcpy(own, mine, n);
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
    return 0;
  for (int r = 0; r < sc->size; r++) {
    size_t n = shmcoll_part(hc_shmcoll_block_len(op->counts, op->each, r), from,
                            op->step);
    if (r != sc->rank && n > 0)
      memcpy(op->out + hc_shmcoll_block_at(op->displs, op->each, r) + from,
             shmcoll_posted_at(sc, r, s, slot, boxed), n);
  }
  if (boxed)
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* The large blocks' reads of an alltoall: this rank reads each from its
 * sender (starting after itself, so that the reads spread over the
 * sources); one that fails is marked in its entry, for the sender to send
 * it as a message after the collective.  0: this rank reads none (and
 * no sender waits for it). */
static int shmcoll_alltoall_read_large(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int me = sc->rank, reads = 0;
  shmcoll_read_block_t *mine = shmcoll_large_table(sc, me, s);
  for (int k = 1; k < sc->size; k++) {
    int r = (me + k) % sc->size;
    size_t n = hc_shmcoll_block_len(op->counts, op->each, r);
    if (!shmcoll_block_read(op, n))
      continue;
    const shmcoll_read_block_t *theirs = shmcoll_large_table(sc, r, s) + me;
    int ok = theirs->len == n &&
             hc_shmcoll_read_peer(sc->world_ranks[r],
                               op->out + hc_shmcoll_block_at(op->displs, op->each, r),
                               theirs->addr, n);
    mine[r].failed = !ok;
    op->read_failed |= !ok;
    reads = 1;
  }
  return reads;
}

/* 1 when every rank that reads a large block of this rank's finished its
 * reads (this rank's buffer may change from then on); else 0, op's
 * next_peer the one awaited. */
static int shmcoll_alltoall_readers_done(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  for (; op->next_peer < sc->size; op->next_peer++) {
    int j = op->next_peer;
    if (j != sc->rank &&
        shmcoll_block_read(op, hc_shmcoll_block_len(op->scounts, op->each, j)) &&
        !hc_shmcoll_need(sc, SHMCOLL_REDUCED, j, s))
      return 0;
  }
  return 1;
}

/* An alltoall, collective number s: part j (step bytes) of each rank's
 * slot holds its block for rank j; blocks larger than a part are the
 * schedule's (both ends of a block know its size), or with op->read_large
 * read by their receivers from the senders' buffers, which the table in
 * the small buffer names: every rank that reads some then raises reduced
 * once it read them, and each raises done only once its own readers
 * raised theirs. */
static int shmcoll_alltoall_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  size_t slot = hc_shmcoll_slot_bytes(op, 0);
  /* Equal blocks (parts of op->step = the block, as the straight step's) */
  int boxed = op->counts == NULL && op->scounts == NULL && !op->read_large &&
              shmcoll_box_fits(slot);
  if (op->phase == 0) {
    if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL,
                         boxed ? shmcoll_box_reuse(sc, s, SHMCOLL_IN_BOX)
                               : shmcoll_reuse(sc, s, slot)))
      return 0;
    unsigned char *mine = boxed ? shmcoll_box(sc, sc->rank, s)->data
                                : shmcoll_buf(sc, sc->rank, s, slot);
    shmcoll_read_block_t *table =
        op->read_large ? shmcoll_large_table(sc, sc->rank, s) : NULL;
    for (int j = 0; j < sc->size; j++) {
      size_t n = hc_shmcoll_block_len(op->scounts, op->each, j);
      /* the buffer may be NULL where this rank's blocks are empty */
      const unsigned char *from =
          n > 0 ? op->in + hc_shmcoll_block_at(op->sdispls, op->each, j) : NULL;
      if (table != NULL)
        table[j] = (shmcoll_read_block_t){.addr = (uint64_t)(uintptr_t)from,
                                          .len = n};
      if (n == 0 || (j != sc->rank && n > op->step))
        continue; /* nothing, or the schedule's or its reader's */
      unsigned char *to =
          j != sc->rank ? mine + (size_t)j * op->step
                        : op->out + hc_shmcoll_block_at(op->displs, op->each, j);
      if (to != from) /* the own block in place stays */
        memcpy(to, from, n);
    }
    if (boxed)
      shmcoll_box_seal(sc, s, SHMCOLL_IN_BOX);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    op->phase = 1;
  }
  if (op->phase == 1) {
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
      return 0;
    for (int r = 0; r < sc->size; r++) {
      size_t n = hc_shmcoll_block_len(op->counts, op->each, r);
      if (r != sc->rank && n > 0 && n <= op->step)
        memcpy(op->out + hc_shmcoll_block_at(op->displs, op->each, r),
               shmcoll_posted_at(sc, r, s, slot, boxed) +
                   (size_t)sc->rank * op->step,
               n);
    }
    if (!op->read_large) {
      if (boxed)
        shmcoll_box_seen(sc, s);
      shmcoll_publish(sc, SHMCOLL_DONE, s);
      return 1;
    }
    /* Raised only where a sender waits for it: a publication rings
     * every sleeper. */
    if (shmcoll_alltoall_read_large(op, s))
      shmcoll_publish(sc, SHMCOLL_REDUCED, s);
    op->next_peer = 0;
    op->phase = 2;
  }
  if (!shmcoll_alltoall_readers_done(op, s))
    return 0;
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* Chunk at of a reduce_scatter, collective number s: elements [at x
 * step, +step) of the vector.  This rank combines the part of its block
 * that falls in the chunk; in place, what it writes (below the chunk's
 * end) was posted already. */
static int shmcoll_reduce_scatter_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  size_t es = op->op.elem_size, first = (size_t)op->at * op->step;
  size_t count = op->size - first < op->step ? op->size - first : op->step;
  size_t bytes = count * es;
  int boxed = shmcoll_box_fits(bytes);
  if (op->phase == 0 &&
      !(boxed ? shmcoll_post_boxed(op, s, op->in + first * es, bytes,
                                   SHMCOLL_IN_BOX, SHMCOLL_POST_ANNOUNCED)
              : shmcoll_post(op, s, bytes, op->in + first * es, bytes,
                             SHMCOLL_POST_ANNOUNCED)))
    return 0;
  if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
    return 0;
  size_t lo = first > op->slice_at ? first : op->slice_at;
  size_t end = op->slice_at + op->slice_n;
  size_t hi = first + count < end ? first + count : end;
  if (lo < hi)
    hc_shmcoll_combine(sc, s, bytes, op->out + (lo - op->slice_at) * es,
                       lo - first, hi - lo, &op->op, NULL, boxed);
  if (boxed)
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* Rank r's block of n bytes of rooted op in the buffers of number s (the
 * last of its span, shmcoll_span_piece): out of them to the op's output
 * at at (to_op), or from its input at at into them. */
static void shmcoll_rooted_block_move(const hc_shmcoll_op_t *op, uint32_t s,
                                      int r, size_t at, size_t n, int to_op) {
  for (size_t i = 0, moved = 0; moved < n; i++) {
    size_t len = shmcoll_span_piece_len(op->sc, op->nchunks, i, n);
    unsigned char *piece = shmcoll_span_piece(op->sc, r, s, op->nchunks, i, n);
    if (to_op)
      hc_shmcoll_rooted_put(op, at + moved, piece, len);
    else
      hc_shmcoll_rooted_get(op, at + moved, piece, len);
    moved += len;
  }
}

/* The chunk (the only one, or a span's last) of a gather(v), collective
 * number s: every block of up to SHMCOLL_ROOTED_BUFFERED_MAX goes through
 * its sender's buffer of number s (or its span's), larger ones are read
 * in place (hc_shmcoll_rooted_reads; their senders wait for the root),
 * the others follow as messages
 * (shmcoll_rooted_messages).  A sender of a small block is done once it
 * posted: the root's done guards the buffer's next use, so senders run
 * ahead of the root as far as the small buffers go. */
static int shmcoll_gather_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  size_t small = sc->small;
  int me = sc->rank;
  if (op->at + 1 < op->nchunks) /* a span's numbers meet at its last */
    return 1;
  if (me != op->root && hc_shmcoll_rooted_reads(op, op->size))
    return hc_shmcoll_gather_read_send(op, s);
  if (me != op->root &&
      (op->nchunks > 1 || (sc->medium != NULL && op->size > small &&
                           shmcoll_rooted_buffered(sc, op->size)))) {
    /* A span, or a medium buffer (FINAL, as below) */
    if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL,
                         op->nchunks > 1
                             ? shmcoll_reuse(sc, s, small)
                             : shmcoll_rooted_reuse(sc, s, op->size)))
      return 0;
    shmcoll_rooted_block_move(op, s, me, 0, op->size, 0); /* fits its span */
    atomic_store_explicit(&sc->lines[me].flag[SHMCOLL_DONE], s,
                          memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    return 1;
  }
  if (me != op->root) {
    size_t n = shmcoll_rooted_buffered(sc, op->size) ? op->size : 0;
    unsigned char packed[SHMCOLL_ROOTED_BUFFERED_MAX];
    const unsigned char *block = op->in;
    if (op->in_acc != NULL && n > 0) {
      hc_shmcoll_rooted_get(op, 0, packed, n);
      block = packed;
    }
    if (shmcoll_rooted_boxed(sc, n))
      return shmcoll_post_boxed(op, s, block, n, SHMCOLL_IN_POST_LINE,
                                SHMCOLL_POST_FINAL);
    return shmcoll_post(op, s, n > 0 ? n : small, n > 0 ? block : NULL, n,
                        SHMCOLL_POST_FINAL);
  }
  if (op->phase == 0) { /* the root posts nothing: it only reads */
    hc_shmcoll_rooted_own(op, 0, hc_shmcoll_block_at(op->displs, op->each, me),
                          hc_shmcoll_block_len(op->counts, op->each, me));
    op->phase = 1;
  }
  for (int r = 0; r < sc->size; r++)
    if (r != me && !hc_shmcoll_need(sc, SHMCOLL_POSTED, r, s))
      return 0;
  int boxes = 0;
  for (int r = 0; r < sc->size; r++) {
    size_t n = hc_shmcoll_block_len(op->counts, op->each, r);
    size_t at = hc_shmcoll_block_at(op->displs, op->each, r);
    if (r == me)
      continue;
    if (shmcoll_rooted_boxed(sc, n)) {
      hc_shmcoll_rooted_put(op, at, shmcoll_post_line(sc, r, s)->data, n);
      boxes++;
    } else if (hc_shmcoll_rooted_reads(op, n)) {
      hc_shmcoll_gather_read_block(op, s, r, at, n);
    } else if (shmcoll_rooted_spanned(sc, op->nchunks, n)) {
      shmcoll_rooted_block_move(op, s, r, at, n, 1);
    }
  }
  if (boxes > 0) /* every rank's post seen: each finished s - 1 */
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* The mirror for a scatter(v): the root writes each block of up to
 * SHMCOLL_ROOTED_BUFFERED_MAX into its receiver's buffer of number s (a
 * boxed one into its post line, shmcoll_scatter_block) and is done; each
 * receiver copies
 * its block out once the root posted (the others follow as messages:
 * read in place by their receivers they were slower, bench/NOTES.md,
 * root16c). */
static int shmcoll_scatter_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int me = sc->rank;
  if (op->at + 1 < op->nchunks) /* a span's numbers meet at its last */
    return 1;
  if (me != op->root) {
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, op->root, s))
      return 0;
    if (op->nchunks == 1 && shmcoll_rooted_buffered(sc, op->size))
      hc_shmcoll_rooted_put(op, 0, shmcoll_scatter_block(sc, me, s, op->size),
                            op->size);
    else if (shmcoll_rooted_spanned(sc, op->nchunks, op->size))
      shmcoll_rooted_block_move(op, s, me, 0, op->size, 1);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
    return 1;
  }
  size_t widest = 0;
  for (int r = 0; r < sc->size; r++) {
    size_t n = hc_shmcoll_block_len(op->counts, op->each, r);
    if (r != me && shmcoll_rooted_buffered(sc, n) && n > widest)
      widest = n;
  }
  uint32_t reuse = op->nchunks > 1 ? shmcoll_reuse(sc, s, sc->small)
                                   : shmcoll_rooted_reuse(sc, s, widest);
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL, reuse))
    return 0;
  for (int r = 0; r < sc->size; r++) {
    size_t n = hc_shmcoll_block_len(op->counts, op->each, r);
    size_t at = hc_shmcoll_block_at(op->displs, op->each, r);
    int buffered = r != me && shmcoll_rooted_spanned(sc, op->nchunks, n);
    if (buffered && op->nchunks > 1)
      shmcoll_rooted_block_move(op, s, r, at, n, 0);
    else if (buffered && op->in_acc != NULL)
      hc_shmcoll_rooted_get(op, at, shmcoll_scatter_block(sc, r, s, n), n);
    else if (buffered)
      hc_copy_small(shmcoll_scatter_block(sc, r, s, n), op->in + at, n);
    else if (r == me)
      hc_shmcoll_rooted_own(op, at, 0, n);
    if (buffered && op->nchunks == 1)
      shmcoll_scatter_post(sc, r, s);
  }
  atomic_store_explicit(&sc->lines[me].flag[SHMCOLL_DONE], s,
                        memory_order_relaxed); /* published below */
  shmcoll_publish(sc, SHMCOLL_POSTED, s);
  return 1;
}

static int shmcoll_step(hc_shmcoll_op_t *op, uint32_t s) {
  switch (op->what) {
  case SHMCOLL_OP_BARRIER:
    return shmcoll_barrier_step(op, s);
  case SHMCOLL_OP_BCAST:
    return op->read_first && op->at == 0 ? hc_shmcoll_bcast_read_step(op, s)
                                         : shmcoll_bcast_step(op, s);
  case SHMCOLL_OP_REDUCE: /* an I-form allreduce may read first */
    return op->read_first && op->at == 0 ? hc_shmcoll_allreduce_read_step(op, s)
                                         : shmcoll_reduce_step(op, s);
  case SHMCOLL_OP_ALLGATHER:
    return shmcoll_allgather_step(op, s);
  case SHMCOLL_OP_ALLTOALL:
    return shmcoll_alltoall_step(op, s);
  case SHMCOLL_OP_READ_EXCHANGE:
    return hc_shmcoll_read_exchange_step(op, s);
  case SHMCOLL_OP_BCAST_READ:
    return hc_shmcoll_bcast_read_step(op, s);
  case SHMCOLL_OP_REDUCE_READ:
    return op->root < 0 ? hc_shmcoll_allreduce_read_step(op, s)
                        : hc_shmcoll_reduce_read_step(op, s);
  case SHMCOLL_OP_REDUCE_SCATTER_READ:
    return hc_shmcoll_allreduce_read_step(op, s);
  case SHMCOLL_OP_GATHER:
    return shmcoll_gather_step(op, s);
  case SHMCOLL_OP_SCATTER:
    return shmcoll_scatter_step(op, s);
  default:
    return shmcoll_reduce_scatter_step(op, s);
  }
}

void hc_shmcoll_op_start(hc_shmcoll_op_t *op) {
  op->first = op->sc->seq + 1;
  op->sc->seq += op->nchunks;
  op->at = 0;
  op->phase = 0;
  op->looked_phase = -1;
  op->read_failed = 0; /* a persistent op's read is tried at each start */
}

/* An I-form bcast or allreduce whose read (its first chunk) worked on
 * every rank: the pipeline's chunks after it are not needed.  This rank is done
 * with their numbers at once (every rank skips them alike), so that a buffer
 * they would have used is free for the next collective. */
static void shmcoll_skip_pipeline(hc_shmcoll_op_t *op) {
  hc_shmcoll_t *sc = op->sc;
  uint32_t last = op->first + op->nchunks - 1;
  if (op->nchunks > 1)
    shmcoll_publish(sc, SHMCOLL_DONE, last);
  sc->turn = last;
  op->at = op->nchunks;
}

/* 1 when this rank is crowded (more ranks than CPUs) and a rank that
 * still owes flag kind (of who, or of every rank) last published from
 * the CPU this rank runs on: it then cannot write the flag before this
 * rank gives the core up.  Unbound ranks that wait by yielding gather on
 * one core (4 ranks on 2 cores, 8 B Alltoall: every rank published from
 * one CPU, and every wait was for a rank that last ran there; bench/NOTES.md,
 * osub16). */
static int shmcoll_owed_here(const hc_shmcoll_t *sc, int kind, int who,
                             uint32_t want) {
  if (!sc->crowded)
    return 0;
  uint32_t here = (uint32_t)(sched_getcpu() + 1);
  if (here == 0) /* not known */
    return 0;
  int from = who == SHMCOLL_ALL ? 0 : who;
  int to = who == SHMCOLL_ALL ? sc->size : who + 1;
  for (int r = from; r < to; r++) {
    const shmcoll_line_t *l = &sc->lines[r];
    if (!shmcoll_reached(
            atomic_load_explicit(&l->flag[kind], memory_order_acquire), want) &&
        atomic_load_explicit(&l->cpu, memory_order_relaxed) == here)
      return 1;
  }
  return 0;
}

/* 1 when what op's step last waited for came within SHMCOLL_FLAG_LOOKS;
 * 0 at once when this step spent its looks already (a wait's later polls
 * look once, as the blocking forms' wait does). */
static int shmcoll_flag_soon(hc_shmcoll_op_t *op) {
  if (op->looked_at == op->at && op->looked_phase == op->phase)
    return 0;
  op->looked_at = op->at;
  op->looked_phase = op->phase;
  const hc_shmcoll_t *sc = op->sc;
  if (shmcoll_owed_here(sc, sc->wait_kind, sc->wait_who, sc->wait_want))
    return 0; /* its looks would all fail: yield at once */
  for (int i = 0; i < SHMCOLL_FLAG_LOOKS; i++)
    if (shmcoll_ready(sc, sc->wait_kind, sc->wait_who, sc->wait_want))
      return 1;
  return 0;
}

int hc_shmcoll_op_poll(hc_shmcoll_op_t *op, hc_status_t *rc) {
  hc_shmcoll_t *sc = op->sc;
  *rc = HC_OK;
  if (op->nchunks == 0)
    return 1;
  uint32_t from = op->at;
  int looked = 0;
  while (sc->turn == op->first - 1 + op->at && op->at < op->nchunks) {
    uint32_t s = op->first + op->at;
    if (!shmcoll_step(op, s)) {
      if (looked || !shmcoll_flag_soon(op))
        break;
      looked = 1; /* once per poll: a test returns soon */
      continue;
    }
    sc->turn = s;
    op->at++;
    op->phase = 0;
    if (op->read_first && op->at == 1 && !op->read_failed)
      shmcoll_skip_pipeline(op);
  }
  if (op->at != from) /* no request completes here for the watchdog */
    hc_watchdog_feed_locked();
  if (op->at == op->nchunks)
    return 1;
  *rc = hc_comm_failure_locked(op->comm);
  return *rc != HC_OK;
}

void hc_shmcoll_op_sleep(const hc_shmcoll_op_t *op, int ms) {
  hc_shmcoll_t *sc = op->sc;
  shmcoll_sleep(sc, sc->wait_kind, sc->wait_who, sc->wait_want, ms);
}

/* The rest of the blocking form op, started (its numbers taken) and under
 * the lock, which it drops. */
hc_status_t hc_shmcoll_finish_locked(hc_shmcoll_op_t *op) {
  hc_shmcoll_t *sc = op->sc;
  hc_status_t rc = HC_OK;
  for (;;) {
    if (sc->turn != op->first - 1 + op->at)
      hc_progress_locked();
    if (hc_shmcoll_op_poll(op, &rc))
      break;
    int kind = sc->wait_kind, who = sc->wait_who;
    uint32_t want = sc->wait_want;
    hc_engine_unlock();
    rc = shmcoll_wait(sc, op->comm, kind, who, want);
    hc_engine_lock();
    if (rc != HC_OK)
      break;
  }
  hc_engine_unlock();
  return rc;
}

/* The blocking forms: start op and wait for it, behind the I-forms
 * started before it on this communicator (progress moves those). */
hc_status_t hc_shmcoll_run(hc_shmcoll_op_t *op) {
  hc_engine_lock();
  /* A member already lost: fail before taking a turn of the segment. */
  hc_status_t rc = hc_comm_failure_locked(op->comm);
  if (rc != HC_OK) {
    hc_engine_unlock();
    return rc;
  }
  /* Ranks with a large alltoallv block run it as the I-form's schedule,
   * which takes the communicator's next collective tag: so does this, so
   * that the tags stay alike on every rank.  A gather's or scatter's
   * blocks above a small buffer move as messages on that tag too. */
  if ((op->what == SHMCOLL_OP_ALLTOALL && op->counts != NULL) ||
      op->what == SHMCOLL_OP_GATHER || op->what == SHMCOLL_OP_SCATTER)
    op->comm->coll_seq++;
  hc_shmcoll_op_start(op);
  return hc_shmcoll_finish_locked(op);
}
