/*
 * Small blocking collectives whose turn has come (shmcoll_impl.h): the
 * step of a Bcast, Reduce, Allreduce, Allgather, Alltoall or
 * Reduce_scatter_block of one buffer (SHMCOLL_NOW_MAX) run straight from the
 * arguments, without an op.  Their ops and the paths that take over
 * where a flag is not there yet are in shmcoll.c.
 */

#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/shmcoll_impl.h"
#include "util/fence.h"
#include "util/smallmem.h"

/* A blocking Bcast, Reduce or Allreduce of up to SHMCOLL_NOW_MAX bytes
 * (one chunk, combined whole) that no I-form on this communicator still
 * precedes, and whose flags are already where its step needs them (a root or a
 * Reduce's other rank running ahead within the ring, a reader whose root
 * ran ahead): the step's work straight from the arguments, under the
 * lock, on the numbers, buffers and flags the op would use, so that it
 * stays ordered with every other collective of the communicator.  Where
 * a flag is not there, nothing is done (an Allreduce: its post is) and
 * the op's path takes over with its waits, sleeps and failure checks.
 * What it spares an 8-byte call on two ranks: the op's set-up, the step's
 * dispatch and the poll loop, ~400 of ~730 instructions (bench/NOTES.md,
 * two16). */

/* The most bytes a straight step posts (a small buffer's, or above
 * SHMCOLL_SMALL one large buffer's, as its op's single chunk would):
 * what the op's path adds, ~300-400 instructions, is still a fifth of a
 * 1 KiB Alltoall's or Allgather's on two ranks.  At 4 KiB it lost instead
 * (Allgather 1.24-1.30 -> 1.36-1.39 us, Bcast 0.59-0.60 -> 0.62-0.63, the
 * fastest of 4-5 interleaved rounds): a reader that gives up its look
 * while the other rank still copies pays the op's path on top
 * (bench/NOTES.md, small16b). */
#define SHMCOLL_NOW_MAX ((size_t)2 << 10)

/* 1 when a post of slot bytes fits the straight steps: one buffer, which
 * the op's single chunk would use too. */
static int shmcoll_now_fits(const hc_shmcoll_t *sc, size_t slot) {
  return slot > 0 && slot <= SHMCOLL_NOW_MAX && slot <= sc->chunk;
}

/* Locks the engine and returns 1 when the next collective of this rank
 * may run now: no member lost, every one it started finished. */
static int shmcoll_now_enter(hc_shmcoll_t *sc, hcomm_comm_t *comm) {
  hc_engine_lock();
  if (sc->turn == sc->seq && hc_comm_failure_locked(comm) == HC_OK)
    return 1;
  hc_engine_unlock();
  return 0;
}

/* Collective number s, started and finished here; the lock held. */
static void shmcoll_now_finished(hc_shmcoll_t *sc, uint32_t s) {
  sc->seq = s;
  sc->turn = s;
  if (hc_engine.hang_timeout > 0) /* the watchdog's, not worth a call */
    hc_watchdog_feed_locked();
}

/* The same, and the lock dropped. */
static void shmcoll_now_leave(hc_shmcoll_t *sc, uint32_t s) {
  shmcoll_now_finished(sc, s);
  hc_engine_unlock();
}

/* The least flag kind of the ranks other than this one (who -1), or of
 * rank who. */
static uint32_t shmcoll_now_least(const hc_shmcoll_t *sc, int kind, int who) {
  if (who != SHMCOLL_ALL)
    return atomic_load_explicit(&sc->lines[who].flag[kind],
                                memory_order_acquire);
  int first = sc->rank == 0 ? 1 : 0;
  uint32_t least =
      atomic_load_explicit(&sc->lines[first].flag[kind], memory_order_acquire);
  for (int r = first + 1; r < sc->size; r++) {
    uint32_t f =
        atomic_load_explicit(&sc->lines[r].flag[kind], memory_order_acquire);
    if (r != sc->rank && !shmcoll_reached(f, least))
      least = f;
  }
  return least;
}

/* 1 when flag kind of who (of every other rank: -1) reaches want, as
 * last seen or within a few looks (one on a crowded node, where the
 * owing rank may need this core). */
static int shmcoll_now_ready(hc_shmcoll_t *sc, int kind, int who,
                             uint32_t want) {
  if (sc->seen_kind == kind + 1 && sc->seen_who == who &&
      want - sc->seen_from <= sc->seen_flag - sc->seen_from)
    return 1;
  int looks = sc->crowded ? 1 : SHMCOLL_FLAG_LOOKS;
  for (int i = 0; i < looks; i++) {
    uint32_t least = shmcoll_now_least(sc, kind, who);
    if (shmcoll_reached(least, want)) {
      sc->seen_kind = kind + 1;
      sc->seen_who = who;
      sc->seen_from = want;
      sc->seen_flag = least;
      return 1;
    }
  }
  return 0;
}

/* This rank's buffer for a post of slot bytes (shmcoll_now_fits) in
 * collective number *s, the next, once every rank finished with the
 * buffer's last use; the lock held.  NULL, unlocked, when the small path
 * does not take it. */
static unsigned char *shmcoll_now_slot(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                       size_t slot, uint32_t *s) {
  if (!shmcoll_now_fits(sc, slot) || !shmcoll_now_enter(sc, comm))
    return NULL; /* empty: the op's path, which knows whether it is numbered */
  *s = sc->seq + 1;
  if (shmcoll_all_done(sc, shmcoll_reuse(sc, *s, slot)))
    return shmcoll_buf(sc, sc->rank, *s, slot);
  hc_engine_unlock();
  return NULL;
}

/* The next collective's number *s, once its turn came and every rank
 * finished with this rank's box or post line (where) of that number; the
 * lock held.  0, unlocked, when the small path does not take it. */
static int shmcoll_now_box(hc_shmcoll_t *sc, hcomm_comm_t *comm, uint32_t *s,
                           int where) {
  if (!shmcoll_now_enter(sc, comm))
    return 0;
  *s = sc->seq + 1;
  if (shmcoll_all_done(sc, shmcoll_box_reuse(sc, *s, where)))
    return 1;
  hc_engine_unlock();
  return 0;
}

/* 1 when every other rank's block of a gatherv of counts, number s, is
 * there: in its post line where the block is boxed
 * (shmcoll_rooted_boxed), else behind its posted flag. */
static int shmcoll_gathered(const hc_shmcoll_t *sc, uint32_t s,
                            const size_t *counts) {
  for (int r = 0; r < sc->size; r++) {
    if (r == sc->rank)
      continue;
    _Atomic uint32_t *posted = &sc->lines[r].flag[SHMCOLL_POSTED];
    if (shmcoll_rooted_boxed(sc, counts[r])
            ? !shmcoll_box_posted(sc, r, s, SHMCOLL_IN_POST_LINE)
            : !shmcoll_reached(
                  atomic_load_explicit(posted, memory_order_acquire), s))
      return 0;
  }
  return 1;
}

/* 1 when every other rank's box or post line (where) holds number s
 * within a few looks (one on a crowded node), as shmcoll_now_ready for
 * flags; counts (not NULL): a gatherv's, whose blocks not boxed are
 * behind their flags (shmcoll_gathered).  A pause between looks: back to
 * back, they took the box's line from its writer between its data and
 * its number, and the box was slower than the flag it replaces (2-rank
 * Allreduce 8 B, fastest of 7 reps: 0.33 us against 0.29 with the flag,
 * 0.20 with the pause; bench/NOTES.md, box22). */
static int shmcoll_now_boxes(const hc_shmcoll_t *sc, uint32_t s, int where,
                             const size_t *counts) {
  int looks = sc->crowded ? 1 : SHMCOLL_FLAG_LOOKS;
  for (int i = 0; i < looks; i++) {
    if (counts != NULL ? shmcoll_gathered(sc, s, counts)
                       : shmcoll_boxes_posted(sc, s, where))
      return 1;
    hc_spin_pause();
  }
  return 0;
}

/* 1 when every rank's post of number s is there, in its box or post line
 * or behind its flag, where the post was made. */
static int shmcoll_now_posts(hc_shmcoll_t *sc, uint32_t s, int where) {
  return where != SHMCOLL_IN_BUFFER
             ? shmcoll_now_boxes(sc, s, where, NULL)
             : shmcoll_now_ready(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s);
}

/* A gather's root: 1 when every other rank's block of number s is there
 * within a few looks, boxes of them in their post lines (all of them
 * where counts is NULL: a Gather's), as shmcoll_now_boxes; none boxed: as
 * shmcoll_now_ready. */
static int shmcoll_now_gathered(hc_shmcoll_t *sc, uint32_t s,
                                const size_t *counts, int boxes) {
  if (boxes == 0)
    return shmcoll_now_ready(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s);
  return shmcoll_now_boxes(sc, s, SHMCOLL_IN_POST_LINE, counts);
}

/* With the lock held: 1 when the Bcast ran here, 0 when nothing was done
 * (not its turn, a member lost, the buffer or the root's post not there
 * yet). */
static int shmcoll_bcast_now_locked(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                    unsigned char *buf, size_t bytes,
                                    int root) {
  if (sc->turn != sc->seq || hc_comm_failure_locked(comm) != HC_OK)
    return 0;
  uint32_t s = sc->seq + 1;
  int is_root = sc->rank == root;
  if (is_root ? !shmcoll_all_done(sc, shmcoll_reuse(sc, s, bytes))
              : !shmcoll_now_ready(sc, SHMCOLL_POSTED, root, s))
    return 0;
  unsigned char *shared = shmcoll_buf(sc, sc->size, s, bytes);
  if (is_root) {
    hc_copy_small(shared, buf, bytes);
    atomic_store_explicit(&sc->lines[sc->rank].flag[SHMCOLL_DONE], s,
                          memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
  } else {
    hc_copy_small(buf, shared, bytes);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
  }
  shmcoll_now_finished(sc, s);
  return 1;
}

int hc_shmcoll_bcast_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                         unsigned char *buf, size_t bytes, int root) {
  if (!shmcoll_now_fits(sc, bytes))
    return -1; /* 0 bytes take no number */
  hc_engine_lock();
  int ran = shmcoll_bcast_now_locked(sc, comm, buf, bytes, root);
  hc_engine_unlock();
  return ran ? 1 : -1;
}

/* Two ranks' boxed posts of number s, combined whole into dst: rank 1's
 * copied, rank 0's combined into it, as hc_shmcoll_combine orders them,
 * without its loop over the ranks nor its call. */
static inline void shmcoll_combine_pair(const hc_shmcoll_t *sc, uint32_t s,
                                        void *dst, size_t count,
                                        const hcomm_reduce_op_t *rop) {
  hc_copy_small(dst, shmcoll_box(sc, 1, s)->data, count * rop->elem_size);
  rop->fn(shmcoll_box(sc, 0, s)->data, dst, count, rop->ctx);
}

/* root -1: an Allreduce.  As shmcoll_reduce_step's whole reduction: the
 * rank posts its input (in) as collective number s, a Reduce's other rank
 * (out NULL) is then done; the others combine into out once every rank
 * posted, or leave that to the op's path (0, nothing finished).  The lock
 * held throughout.  Inline: the blocking form's path and the persistent
 * form's each take it with their own constants; pair 1 (a constant): an
 * Allreduce of two ranks whose post is boxed, which a persistent one's
 * start tells from its op in two compares. */
__attribute__((always_inline)) static inline int
shmcoll_reduce_post_locked(hc_shmcoll_t *sc, uint32_t s, unsigned char *mine,
                           const unsigned char *in, unsigned char *out,
                           size_t count, const hcomm_reduce_op_t *rop, int root,
                           int pair) {
  size_t bytes = count * rop->elem_size;
  /* mine NULL where the post is boxed */
  int where = pair ? SHMCOLL_IN_BOX : shmcoll_reduce_where(sc, root, bytes);
  /* A root that is not in place combines its input where it lies. */
  const unsigned char *own = root >= 0 && out != NULL && out != in ? in : NULL;
  if (own == NULL && where != SHMCOLL_IN_BUFFER)
    shmcoll_box_post(sc, s, in, bytes, where);
  else if (own == NULL)
    hc_copy_small(mine, in, bytes);
  shmcoll_post_raise(sc, s, shmcoll_reduce_how(root, out));
  if (out == NULL) { /* no result: done with the post, which published it */
    shmcoll_now_finished(sc, s);
    return 1;
  }
  if (!shmcoll_now_posts(sc, s, where))
    return 0;
  if (pair)
    shmcoll_combine_pair(sc, s, out, count, rop);
  else
    hc_shmcoll_combine(sc, s, bytes, out, 0, count, rop, own, where);
  if (where != SHMCOLL_IN_BUFFER)
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  /* The other rank posted s, so it is done reading this rank's box of
   * s - 1, which is the box of s + 1: asked for back now, in a state to
   * write, its line crosses before the next call, whose post then need
   * not wait for the other core's copy to be invalidated.  Far apart
   * only (two ranks), in the blocking form too: far, the persistent
   * form's call read ~0.39 -> 0.33-0.35 us and the blocking one's
   * 0.37-0.38 -> 0.36; near, the ask cost ~0.01-0.03 us a call
   * (bench/NOTES.md, ainit29, gate30). */
  if (where == SHMCOLL_IN_BOX && sc->pair_far)
    hc_prefetch_write(shmcoll_box(sc, sc->rank, s + 1));
  shmcoll_now_finished(sc, s);
  return 1;
}

int hc_shmcoll_reduce_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                          const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *rop, int root) {
  size_t bytes = count * rop->elem_size;
  uint32_t s;
  unsigned char *mine = NULL;
  int where = shmcoll_reduce_where(sc, root, bytes);
  if (where != SHMCOLL_IN_BUFFER) {
    if (!shmcoll_now_box(sc, comm, &s, where))
      return -1;
  } else if (bytes > SHMCOLL_WHOLE_MAX ||
             (mine = shmcoll_now_slot(sc, comm, bytes, &s)) == NULL) {
    return -1;
  }
  const unsigned char *in = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  unsigned char *out = root < 0 || root == sc->rank ? recvbuf : NULL;
  int ran =
      shmcoll_reduce_post_locked(sc, s, mine, in, out, count, rop, root, 0);
  if (ran)
    hc_engine_unlock();
  return ran;
}

/* The step of an exchange (below) as collective number s, through this
 * rank's buffer mine, an Alltoall's block for rank j in its part j of part
 * bytes: the post and, where every rank posted within a few looks, the
 * copies out; the lock held.  1: done; 0: posted only. */
__attribute__((always_inline)) static inline int
shmcoll_exchange_post_locked(hc_shmcoll_t *sc, uint32_t s, unsigned char *mine,
                             const unsigned char *in, unsigned char *out,
                             size_t bytes, size_t part, const size_t *counts,
                             const size_t *displs, int alltoall) {
  size_t slot = alltoall ? (size_t)sc->size * part : bytes;
  int me = sc->rank;
  size_t stride = alltoall ? bytes : 0; /* between the blocks a rank sends */
  size_t own_n = hc_shmcoll_block_len(counts, bytes, me);
  int boxed = shmcoll_box_fits(slot); /* mine: this rank's box then */
  if (!alltoall)
    hc_copy_small(mine, in, own_n);
  for (int j = 0; alltoall && j < sc->size; j++)
    if (j != me)
      hc_copy_small(mine + (size_t)j * part, in + (size_t)j * bytes, bytes);
  const unsigned char *own = in + (size_t)me * stride;
  unsigned char *own_out = out + hc_shmcoll_block_at(displs, bytes, me);
  if (own != own_out) /* not in place */
    hc_copy_small(own_out, own, own_n);
  if (boxed)
    shmcoll_box_seal(sc, s, SHMCOLL_IN_BOX);
  shmcoll_publish(sc, SHMCOLL_POSTED, s);
  if (!shmcoll_now_posts(sc, s, boxed))
    return 0;
  size_t theirs = alltoall ? (size_t)me * part : 0; /* in their slots */
  for (int r = 0; r < sc->size; r++)
    if (r != me)
      hc_copy_small(out + hc_shmcoll_block_at(displs, bytes, r),
                    shmcoll_posted_at(sc, r, s, slot, boxed) + theirs,
                    hc_shmcoll_block_len(counts, bytes, r));
  if (boxed)
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  shmcoll_now_finished(sc, s);
  return 1;
}

/* The small path of an Allgather(v), or an Alltoall (alltoall 1),
 * of blocks of up to bytes that fit one buffer (shmcoll_now_fits; an
 * Alltoall's every block): as their steps, each rank posts its block (its
 * blocks), then copies the others' out once they posted.  counts and
 * displs: an Allgatherv's (bytes its largest block, every rank's slot, as
 * its op's single chunk), else NULL.  1, -1, 0: as every *_now
 * (shmcoll_impl.h). */
int hc_shmcoll_exchange_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                            const unsigned char *in, unsigned char *out,
                            size_t bytes, const size_t *counts,
                            const size_t *displs, int alltoall) {
  size_t slot = alltoall ? (size_t)sc->size * bytes : bytes;
  uint32_t s;
  unsigned char *mine = NULL;
  if (shmcoll_box_fits(slot)) {
    if (!shmcoll_now_box(sc, comm, &s, SHMCOLL_IN_BOX))
      return -1;
    mine = shmcoll_box(sc, sc->rank, s)->data;
  } else if ((mine = shmcoll_now_slot(sc, comm, slot, &s)) == NULL) {
    return -1;
  }
  int ran = shmcoll_exchange_post_locked(sc, s, mine, in, out, bytes, bytes,
                                         counts, displs, alltoall);
  if (ran)
    hc_engine_unlock();
  return ran;
}

/* This rank's buffer of slot bytes in op's lane for the op's next run,
 * number *s, once every rank finished with its last use; NULL where the
 * straight start does not take it (a post of more than a lane buffer, not
 * its turn, a member lost, the buffer still read). */
static unsigned char *shmcoll_op_now_slot(hc_shmcoll_op_t *op, size_t slot,
                                          uint32_t *s) {
  hc_shmcoll_t *sc = op->sc;
  if (slot > sc->small || sc->turn != sc->seq ||
      hc_comm_failure_locked(op->comm) != HC_OK)
    return NULL;
  *s = sc->seq + 1;
  return shmcoll_all_done(sc, shmcoll_reuse(sc, *s, slot))
             ? shmcoll_buf(sc, sc->rank, *s, slot)
             : NULL;
}

/* As shmcoll_op_now_slot for a post in this rank's box or post line
 * (where): 1 when it may be filled as number *s. */
static int shmcoll_op_now_box(hc_shmcoll_op_t *op, uint32_t *s, int where) {
  hc_shmcoll_t *sc = op->sc;
  if (sc->turn != sc->seq || hc_comm_failure_locked(op->comm) != HC_OK)
    return 0;
  *s = sc->seq + 1;
  return shmcoll_all_done(sc, shmcoll_box_reuse(sc, *s, where));
}

/* A straight start that ran whole (ran 1) or made only this rank's post,
 * as number sc->seq + 1: op then started, at its step's next phase. */
static int shmcoll_op_now_end(hc_shmcoll_op_t *op, int ran) {
  if (ran)
    return HC_SHMCOLL_NOW_DONE;
  hc_shmcoll_op_start(op); /* takes that number */
  op->phase = 1;
  return HC_SHMCOLL_NOW_POSTED;
}

/* A persistent Reduce or Allreduce whose vector fits one lane buffer,
 * combined whole: its start as the blocking form's straight step
 * (hc_shmcoll_reduce_now), on the lane's numbers. */
static int shmcoll_reduce_op_now_locked(hc_shmcoll_op_t *op) {
  size_t bytes = op->size * op->op.elem_size;
  uint32_t s;
  unsigned char *mine = NULL;
  int where = shmcoll_reduce_where(op->sc, op->root, bytes);
  if (where != SHMCOLL_IN_BUFFER) {
    if (!shmcoll_op_now_box(op, &s, where))
      return HC_SHMCOLL_NOW_NONE;
  } else if (bytes == 0 || bytes > SHMCOLL_WHOLE_MAX ||
             (mine = shmcoll_op_now_slot(op, bytes, &s)) == NULL) {
    return HC_SHMCOLL_NOW_NONE;
  }
  /* A two-rank Allreduce (boxed: as every rank's post): the step compiled
   * for it, so that its post, its wait and its combine test nothing more
   * of root, place or ranks, and the combine is shmcoll_combine_pair's
   * (2 ranks, 8 B: ~100 instructions less per start; bench/NOTES.md,
   * ainit28). */
  if (where == SHMCOLL_IN_BOX && op->sc->size == 2)
    return shmcoll_op_now_end(
        op, shmcoll_reduce_post_locked(op->sc, s, NULL, op->in, op->out,
                                       op->size, &op->op, -1, 1));
  return shmcoll_op_now_end(
      op, shmcoll_reduce_post_locked(op->sc, s, mine, op->in, op->out, op->size,
                                     &op->op, op->root, 0));
}

/* A persistent Allgather or Alltoall of equal blocks, of one lane buffer
 * and not read from their senders: its start as the blocking form's
 * straight step (hc_shmcoll_exchange_now), on the lane's numbers and in
 * its op's layout (an Alltoall's parts of op->step bytes). */
static int shmcoll_exchange_op_now_locked(hc_shmcoll_op_t *op) {
  int alltoall = op->what == SHMCOLL_OP_ALLTOALL;
  uint32_t s;
  size_t slot = hc_shmcoll_slot_bytes(op, 0);
  unsigned char *mine = NULL;
  if (op->counts != NULL || op->scounts != NULL || op->read_large ||
      op->each == 0 || op->each > op->step ||
      (!alltoall && op->size != op->each))
    return HC_SHMCOLL_NOW_NONE;
  if (shmcoll_box_fits(slot)) {
    if (!shmcoll_op_now_box(op, &s, SHMCOLL_IN_BOX))
      return HC_SHMCOLL_NOW_NONE;
    mine = shmcoll_box(op->sc, op->sc->rank, s)->data;
  } else if ((mine = shmcoll_op_now_slot(op, slot, &s)) == NULL) {
    return HC_SHMCOLL_NOW_NONE;
  }
  return shmcoll_op_now_end(op, shmcoll_exchange_post_locked(
                                    op->sc, s, mine, op->in, op->out, op->each,
                                    op->step, NULL, NULL, alltoall));
}

/* A persistent Barrier: raises its done and, where every other rank's
 * is there already, is through. */
static int shmcoll_barrier_op_now_locked(hc_shmcoll_op_t *op) {
  hc_shmcoll_t *sc = op->sc;
  if (sc->turn != sc->seq || hc_comm_failure_locked(op->comm) != HC_OK)
    return HC_SHMCOLL_NOW_NONE;
  uint32_t s = sc->seq + 1;
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  /* One look: where the others are not there yet, the op's first poll
   * spends the step's looks.  (shmcoll_now_ready's callers all wait for
   * posts, which its out-of-line copy is specialised for.) */
  int ran = shmcoll_all_done(sc, s);
  if (ran)
    shmcoll_now_finished(sc, s);
  return shmcoll_op_now_end(op, ran); /* phase 1: after the publication */
}

/* A persistent collective of one small buffer alone in its lane (pinit16,
 * ainit18): its start as the blocking form's straight step, on the lane's
 * numbers. */
int hc_shmcoll_op_now_locked(hc_shmcoll_op_t *op) {
  if (op->nchunks != 1 || op->read_first)
    return HC_SHMCOLL_NOW_NONE;
  switch (op->what) {
  case SHMCOLL_OP_BCAST:
    if (op->acc != NULL || op->size == 0 || op->size > op->sc->small)
      return HC_SHMCOLL_NOW_NONE;
    return shmcoll_bcast_now_locked(op->sc, op->comm, op->out, op->size,
                                    op->root)
               ? HC_SHMCOLL_NOW_DONE
               : HC_SHMCOLL_NOW_NONE;
  case SHMCOLL_OP_REDUCE:
    return shmcoll_reduce_op_now_locked(op);
  case SHMCOLL_OP_BARRIER:
    return shmcoll_barrier_op_now_locked(op);
  case SHMCOLL_OP_ALLGATHER:
  case SHMCOLL_OP_ALLTOALL:
    return shmcoll_exchange_op_now_locked(op);
  default:
    return HC_SHMCOLL_NOW_NONE;
  }
}

/* n bytes of src into rank's block of collective number s, the last of
 * span (shmcoll_span_piece), and back out of it into dst.  A span of one
 * (every small block's) first, in one copy. */
static inline void shmcoll_span_store(const hc_shmcoll_t *sc, int rank,
                                      uint32_t s, uint32_t span,
                                      const unsigned char *src, size_t n) {
  if (span == 1) {
    hc_copy_small(shmcoll_rooted_buf(sc, rank, s, n), src, n);
    return;
  }
  for (size_t i = 0; i * sc->small < n; i++)
    memcpy(shmcoll_span_piece(sc, rank, s, span, i, n), src + i * sc->small,
           shmcoll_span_piece_len(sc, span, i, n));
}

static inline void shmcoll_span_load(const hc_shmcoll_t *sc, int rank,
                                     uint32_t s, uint32_t span,
                                     unsigned char *dst, size_t n) {
  if (span == 1) {
    hc_copy_small(dst, shmcoll_rooted_buf(sc, rank, s, n), n);
    return;
  }
  for (size_t i = 0; i * sc->small < n; i++)
    memcpy(dst + i * sc->small, shmcoll_span_piece(sc, rank, s, span, i, n),
           shmcoll_span_piece_len(sc, span, i, n));
}

/* hc_shmcoll_rooted_now and hc_shmcoll_rooted_span_now: one step, twice
 * compiled; a span of one a constant there, so that a small gather's or
 * scatter's path gains no instruction (a root a few instructions slower
 * than its readers falls into lockstep with them: 2-rank Scatter 8 B
 * 0.08 -> 0.14 us; bench/NOTES.md, scat18 and coll8). */
__attribute__((always_inline)) static inline hc_status_t
shmcoll_rooted_now(hc_shmcoll_t *sc, hcomm_comm_t *comm, int gather,
                   const unsigned char *in, unsigned char *out, size_t mine,
                   const size_t *counts, const size_t *displs, int root,
                   uint32_t span) {
  int me = sc->rank, is_root = me == root;
  size_t widest = mine; /* the largest block through a buffer of this rank */
  /* Blocks in boxes (shmcoll_rooted_boxed, span one): this sender's, or
   * how many of the others' at a gather's root. */
  int boxes = span == 1 && gather && shmcoll_rooted_boxed(sc, mine)
                  ? (is_root ? sc->size - 1 : 1)
                  : 0;
  if (is_root && counts != NULL) {
    widest = 0;
    boxes = 0;
    for (int r = 0; r < sc->size; r++) {
      if (r != me && counts[r] > widest)
        widest = counts[r];
      boxes +=
          gather && r != me && span == 1 && shmcoll_rooted_boxed(sc, counts[r]);
    }
    if (widest > 0 && !shmcoll_rooted_spanned(sc, span, widest))
      return HC_ERR_NOT_SUPPORTED; /* a message's */
  } else if (!shmcoll_rooted_spanned(sc, span, mine)) {
    return HC_ERR_NOT_SUPPORTED; /* empty, or a message */
  }
  if (!shmcoll_now_enter(sc, comm))
    return HC_ERR_NOT_SUPPORTED;
  uint32_t s = sc->seq + span; /* the flags' number: the span's last */
  uint32_t reuse = boxes > 0  ? shmcoll_box_reuse(sc, s, SHMCOLL_IN_POST_LINE)
                   : span > 1 ? shmcoll_reuse(sc, s, sc->small)
                              : shmcoll_rooted_reuse(sc, s, widest);
  /* Senders (a gather) and the root (a scatter) fill buffers; the others
   * read what was posted. */
  /* A scatter's reader at its post word first (shmcoll_scatter_post). */
  int ready = gather != is_root ? shmcoll_all_done(sc, reuse)
              : gather          ? shmcoll_now_gathered(sc, s, counts, boxes)
                       : (span == 1 && shmcoll_scatter_posted(sc, s)) ||
                             shmcoll_now_ready(sc, SHMCOLL_POSTED, root, s);
  if (!ready) {
    hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  comm->coll_seq++; /* as hc_shmcoll_run: the tag the op would take */
  _Atomic uint32_t *flag = sc->lines[me].flag;
  if (gather && !is_root) {
    if (boxes > 0)
      shmcoll_box_post(sc, s, in, mine, SHMCOLL_IN_POST_LINE);
    else
      shmcoll_span_store(sc, me, s, span, in, mine);
    atomic_store_explicit(&flag[SHMCOLL_DONE], s, memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
  } else if (gather) {
    for (int r = 0; r < sc->size; r++) {
      unsigned char *block = out + hc_shmcoll_block_at(displs, mine, r);
      size_t n = hc_shmcoll_block_len(counts, mine, r);
      if (r != me && boxes > 0 && shmcoll_rooted_boxed(sc, n))
        hc_copy_small(block, shmcoll_post_line(sc, r, s)->data, n);
      else if (r != me && n > 0)
        shmcoll_span_load(sc, r, s, span, block, n);
      else if (r == me && in != NULL && in != block) /* not in place */
        memcpy(block, in, n);
    }
    if (boxes > 0) /* every rank's post seen: each finished s - 1 */
      shmcoll_box_seen(sc, s);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
  } else if (is_root) {
    for (int r = 0; r < sc->size; r++) {
      size_t n = hc_shmcoll_block_len(counts, mine, r);
      if (r != me && n > 0) {
        const unsigned char *block = in + hc_shmcoll_block_at(displs, mine, r);
        if (span == 1) {
          hc_copy_small(shmcoll_scatter_block(sc, r, s, n), block, n);
          shmcoll_scatter_post(sc, r, s);
        } else {
          shmcoll_span_store(sc, r, s, span, block, n);
        }
      }
    }
    atomic_store_explicit(&flag[SHMCOLL_DONE], s, memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    /* Its own block once the others may go on: they wait for the root,
     * the slower side of a small scatter (bench/NOTES.md, scat18b). */
    if (out != NULL) /* not in place */
      memcpy(out, in + hc_shmcoll_block_at(displs, mine, me),
             hc_shmcoll_block_len(counts, mine, me));
  } else {
    if (span == 1)
      hc_copy_small(out, shmcoll_scatter_block(sc, me, s, mine), mine);
    else
      shmcoll_span_load(sc, me, s, span, out, mine);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
  }
  shmcoll_now_leave(sc, s);
  return HC_OK;
}

hc_status_t hc_shmcoll_rooted_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                  int gather, const unsigned char *in,
                                  unsigned char *out, size_t mine,
                                  const size_t *counts, const size_t *displs,
                                  int root) {
  return shmcoll_rooted_now(sc, comm, gather, in, out, mine, counts, displs,
                            root, 1);
}

hc_status_t hc_shmcoll_rooted_span_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                       int gather, const unsigned char *in,
                                       unsigned char *out, size_t mine,
                                       int root, uint32_t span) {
  return shmcoll_rooted_now(sc, comm, gather, in, out, mine, NULL, NULL, root,
                            span);
}

/* The small path of an Alltoallv whose blocks to and from this rank are
 * each within a part of the slot and together within SHMCOLL_NOW_MAX: as
 * its step, in the op's layout (part j of the rank's large buffer holds its
 * block for rank j), so that a rank whose blocks are larger, or whose look
 * found a flag not there yet, meets it on the op's path.  The caller takes
 * it only where the op would not read large blocks (its table is in the
 * small buffer).  1, -1, 0: as every *_now (shmcoll_impl.h). */
int hc_shmcoll_alltoallv_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                             const unsigned char *in, const size_t *sbytes,
                             const size_t *sdispls, unsigned char *out,
                             const size_t *rbytes, const size_t *rdispls,
                             size_t part) {
  int me = sc->rank;
  size_t moved = 0;
  for (int r = 0; r < sc->size; r++) {
    if (r == me)
      continue;
    if (sbytes[r] > part || rbytes[r] > part)
      return -1;
    moved += sbytes[r] + rbytes[r];
  }
  size_t slot = (size_t)sc->size * part;
  if (moved > SHMCOLL_NOW_MAX || slot > sc->chunk ||
      !shmcoll_now_enter(sc, comm))
    return -1;
  uint32_t s = sc->seq + 1;
  if (!shmcoll_all_done(sc, shmcoll_reuse(sc, s, slot))) {
    hc_engine_unlock();
    return -1;
  }
  comm->coll_seq++; /* as hc_shmcoll_run: the tag the I-form would take */
  unsigned char *mine = shmcoll_buf(sc, me, s, slot);
  for (int j = 0; j < sc->size; j++) {
    size_t n = sbytes[j];
    if (n == 0) /* the buffer may be NULL */
      continue;
    const unsigned char *from = in + sdispls[j];
    unsigned char *to = j != me ? mine + (size_t)j * part : out + rdispls[me];
    if (to != from) /* the own block in place stays */
      hc_copy_small(to, from, n);
  }
  shmcoll_publish(sc, SHMCOLL_POSTED, s);
  if (!shmcoll_now_ready(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
    return 0;
  for (int r = 0; r < sc->size; r++)
    if (r != me && rbytes[r] > 0)
      hc_copy_small(out + rdispls[r],
                    shmcoll_buf(sc, r, s, slot) + (size_t)me * part, rbytes[r]);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  shmcoll_now_leave(sc, s);
  return 1;
}

/* The small path of a Reduce_scatter_block of each elements a rank, or a
 * Reduce_scatter of counts (NULL: each), whose whole vector of total
 * elements fits one buffer: as its step, each rank posts its vector, then
 * combines its own block of every rank's once all posted.  1, -1, 0: as
 * every *_now (shmcoll_impl.h). */
int hc_shmcoll_reduce_scatter_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                  const void *sendbuf, void *recvbuf,
                                  const size_t *counts, size_t each,
                                  size_t total, const hcomm_reduce_op_t *rop) {
  size_t bytes = total * rop->elem_size;
  uint32_t s;
  int boxed = shmcoll_box_fits(bytes);
  unsigned char *mine = NULL;
  if (boxed) {
    if (!shmcoll_now_box(sc, comm, &s, SHMCOLL_IN_BOX))
      return -1;
    shmcoll_box_post(sc, s, sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf,
                     bytes, SHMCOLL_IN_BOX);
  } else {
    if ((mine = shmcoll_now_slot(sc, comm, bytes, &s)) == NULL)
      return -1;
    hc_copy_small(mine, sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf, bytes);
  }
  shmcoll_publish(sc, SHMCOLL_POSTED, s);
  if (!shmcoll_now_posts(sc, s, boxed))
    return 0;
  size_t first = counts == NULL ? (size_t)sc->rank * each : 0;
  for (int r = 0; counts != NULL && r < sc->rank; r++)
    first += counts[r];
  hc_shmcoll_combine(sc, s, bytes, recvbuf, first,
                     hc_shmcoll_block_len(counts, each, sc->rank), rop, NULL,
                     boxed);
  if (boxed)
    shmcoll_box_seen(sc, s);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  shmcoll_now_leave(sc, s);
  return 1;
}
