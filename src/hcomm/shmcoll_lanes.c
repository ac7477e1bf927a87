/*
 * The persistent forms' lanes (shmcoll_impl.h): which lane a persistent
 * collective claims at its _init, and how it moves in.
 *
 * Lanes given back: what each rank publishes of its
 * claims of a lane, and the switch word through which a waiting claim
 * moves into its lane at the same start on every rank.
 *
 * The word is closed by one rank while it reads every rank's count, so
 * that no start is decided between its read and its write.  The others
 * wait those few loads; one that waits for long sets the word itself from
 * the counts as they stand then, so a closer that lost its CPU, or was
 * killed inside the window, holds no rank for good.  Counts only grow
 * while the word is closed, by ranks that wait for it before deciding, so
 * either value is a start no rank has decided yet; the first written
 * decides for every rank.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hcomm/shmcoll_impl.h"

/* Yields a rank gives a closed switch word before it sets the word
 * itself: the closer is a few loads from setting it, so this many means
 * it was descheduled for long or died there. */
#define SHMCOLL_CLAIM_PATIENCE 256

static uint64_t claim_word(uint32_t claim, uint32_t n) {
  return (uint64_t)claim << 32 | n;
}

void hc_shmcoll_lane_publish(hc_shmcoll_t *lane) {
  const hc_shmcoll_claim_t *first = lane->held;
  atomic_store(&lane->lines[lane->rank].lane_front,
               first != NULL ? claim_word(first->gen, first->starts)
                             : claim_word(lane->claims, 0));
}

/* 1 when every rank's first held claim of lane is claim. */
static int claim_first_everywhere(const hc_shmcoll_t *lane, uint32_t claim) {
  for (int r = 0; r < lane->size; r++)
    if ((uint32_t)(atomic_load(&lane->lines[r].lane_front) >> 32) != claim)
      return 0;
  return 1;
}

/* With the word closed by rank closer: the start from which claim runs
 * in the lane.  Every other rank's starts below its count went to the
 * schedule; closer's own start (its count less one) is the one it
 * decides now.  SHMCOLL_CLAIM_NEVER when some rank released the claim
 * while it waited: that rank ran every start of it as the schedule. */
static uint32_t claim_switch_from(const hc_shmcoll_t *lane, uint32_t claim,
                                  int closer) {
  uint32_t from = 0;
  for (int r = 0; r < lane->size; r++) {
    uint64_t front = atomic_load(&lane->lines[r].lane_front);
    if ((uint32_t)(front >> 32) != claim)
      return SHMCOLL_CLAIM_NEVER;
    uint32_t decided = (uint32_t)front - (r == closer);
    if (decided > from)
      from = decided;
  }
  return from;
}

int hc_shmcoll_claim_start(hc_shmcoll_claim_t *claim) {
  hc_shmcoll_t *lane = claim->lane;
  uint32_t start = claim->starts++;
  /* A claim before it still held here: this rank's published count will
   * say so, and no rank moves it. */
  if (lane == NULL || lane->held != claim)
    return 0;
  atomic_store(&lane->lines[lane->rank].lane_front,
               claim_word(claim->gen, start + 1));
  _Atomic uint64_t *sw = &lane->lines[0].lane_switch;
  int patience = SHMCOLL_CLAIM_PATIENCE;
  for (;;) {
    uint64_t seen = atomic_load(sw);
    if ((uint32_t)(seen >> 32) == claim->gen) {
      uint32_t from = (uint32_t)seen;
      if (from >= SHMCOLL_CLAIM_CLOSING_FIRST && from != SHMCOLL_CLAIM_NEVER) {
        if (patience-- > 0) {
          sched_yield();
          continue;
        }
        int closer = (int)(from - SHMCOLL_CLAIM_CLOSING_FIRST);
        atomic_compare_exchange_strong(
            sw, &seen,
            claim_word(claim->gen, claim_switch_from(lane, claim->gen, closer)));
        continue;
      }
      if (start < from) /* SHMCOLL_CLAIM_NEVER too */
        return 0;
      claim->in_lane = 1;
      return 1;
    }
    if (!claim_first_everywhere(lane, claim->gen))
      return 0;
    uint64_t closed =
        claim_word(claim->gen, SHMCOLL_CLAIM_CLOSING(lane->rank));
    if (!atomic_compare_exchange_strong(sw, &seen, closed))
      continue;
    /* Closed: the counts read now hold every start decided without it.
     * A waiter that ran out of patience may have set the word already. */
    atomic_compare_exchange_strong(
        sw, &closed,
        claim_word(claim->gen,
                   claim_switch_from(lane, claim->gen, lane->rank)));
  }
}

void hc_shmcoll_claim_release(hc_shmcoll_claim_t *claim) {
  hc_shmcoll_t *lane = claim->lane;
  if (lane == NULL)
    return;
  int was_first = lane->held == claim;
  if (claim->prev != NULL)
    claim->prev->next = claim->next;
  else
    lane->held = claim->next;
  if (claim->next != NULL)
    claim->next->prev = claim->prev;
  else
    lane->held_last = claim->prev;
  claim->lane = NULL;
  if (was_first)
    hc_shmcoll_lane_publish(lane);
}

/* ---- the persistent forms' lanes ----------------------------------------- */

/* The bytes each rank puts in the segment for op, whole. */
static size_t shmcoll_op_bytes(const hc_shmcoll_op_t *op) {
  switch (op->what) {
  case SHMCOLL_OP_REDUCE:
  case SHMCOLL_OP_REDUCE_SCATTER:
    return op->size * op->op.elem_size;
  case SHMCOLL_OP_ALLTOALL:
    return hc_shmcoll_slot_bytes(op, 0);
  default:
    return op->size;
  }
}

/* 1 for a two-rank allreduce that reads the other rank's input first, or
 * a bcast read between the ranks' buffers (hc_shmcoll_ireduce_prepare,
 * hc_shmcoll_ibcast_prepare set them up as the blocking forms' reads): the
 * segment carries only the ranks' descriptors, in their lines, so a lane
 * takes them at any size; the pipeline, cut to the lane's buffers, runs
 * only where a read failed (2 ranks, 64 KiB: the blocking form's read
 * against a point-to-point schedule; bench/NOTES.md, persist16).  Not a
 * bcast through an accessor, which never reads: its pipeline would run
 * every time. */
static int shmcoll_lane_reads(const hc_shmcoll_op_t *op) {
  return op->read_first &&
         (op->what == SHMCOLL_OP_REDUCE ||
          (op->what == SHMCOLL_OP_BCAST && op->acc == NULL));
}

/* Cuts op into chunks of at most small bytes each (a lane's buffers),
 * behind its read where it reads first; 0 when it cannot be: an
 * alltoall's slot is one piece, and a reduction needs whole elements. */
static int shmcoll_op_rechunk(hc_shmcoll_op_t *op, size_t small) {
  size_t step = small;
  switch (op->what) {
  case SHMCOLL_OP_BARRIER:
    return 1;
  case SHMCOLL_OP_ALLTOALL:
    return hc_shmcoll_slot_bytes(op, 0) <= small;
  case SHMCOLL_OP_REDUCE:
  case SHMCOLL_OP_REDUCE_SCATTER:
    step = small / op->op.elem_size;
    if (step == 0)
      return 0;
    break;
  default:
    break;
  }
  /* Other reads are left to the lane's buffers, which take small data. */
  op->read_first = shmcoll_lane_reads(op);
  op->step = step;
  op->nchunks =
      (uint32_t)((op->size + step - 1) / step) + (uint32_t)op->read_first;
  return 1;
}

/* Claims a lane of lanes (n of them, *fresh never claimed yet) for op:
 * the next fresh one, moving in now; with wait, when none is fresh, the
 * one claimed least, to move in once given back.  In chunks of a lane
 * buffer with rechunk (an ordinary lane); 0 when none fits. */
static int shmcoll_claim_of(hc_shmcoll_op_t *op, hc_shmcoll_claim_t *claim,
                            hc_shmcoll_t *lanes, int n, int *fresh, int wait,
                            int rechunk) {
  if (lanes == NULL || n == 0 || (*fresh == n && !wait))
    return 0;
  hc_shmcoll_op_t mine = *op;
  if (rechunk && !shmcoll_op_rechunk(&mine, lanes[0].small))
    return 0;
  hc_shmcoll_t *lane = &lanes[0], *sc = op->sc;
  int in_lane = *fresh < n;
  if (in_lane && lanes == sc->wide && !hc_shmcoll_wide_pages(sc, *fresh)) {
    sc->nwide = *fresh; /* no memory for it: the wide lanes end here */
    return 0;
  }
  if (in_lane)
    lane = &lanes[(*fresh)++];
  else
    for (int l = 1; l < n; l++)
      if (lanes[l].claims < lane->claims)
        lane = &lanes[l];
  mine.sc = lane;
  *claim = (hc_shmcoll_claim_t){.lane = lane,
                                .gen = lane->claims++,
                                .in_lane = in_lane,
                                .prev = lane->held_last,
                                .op = mine};
  if (lane->held_last != NULL)
    lane->held_last->next = claim;
  else
    lane->held = claim;
  lane->held_last = claim;
  hc_shmcoll_lane_publish(lane);
  if (in_lane)
    *op = mine;
  return 1;
}

hc_status_t hc_shmcoll_op_claim_lane(hc_shmcoll_op_t *op,
                                     hc_shmcoll_claim_t *claim) {
  hc_shmcoll_t *sc = op->sc;
  size_t bytes = shmcoll_op_bytes(op);
  /* Data of one lane buffer, or a read (its descriptors): a lane.  More
   * than a lane buffer takes a wide lane while one is fresh, so that it
   * runs in the segment's chunks, one synchronisation per chunk rather
   * than per lane buffer (8 ranks, 16 KiB Allreduce_init: 101 us through
   * 2 KiB lane buffers against 19-24 for the blocking form; bench/NOTES.md,
   * pcoll16l); a lane up to HCMPI_COLL_SHM_LANE_MAX when none is. */
  int reads = shmcoll_lane_reads(op);
  int lane_fits = bytes <= hc_shmcoll_tuning.lane_max || reads;
  int small = bytes <= sc->lane_small || reads;
  int nordinary = sc->nlanes - sc->ndeep;
  /* A Bcast or Reduce of a few bytes: a deep lane first, to run ahead as
   * the blocking form does.  An Allreduce, Allgather or Alltoall too: they
   * wait for every rank anyway, but in two buffers their test that the
   * buffers are free reads the others' lines (shmcoll_all_done) at every
   * other start, in a deep ring once per many (2 ranks, 8 B
   * Allreduce_init: 0.32-0.37 -> 0.32 us; bench/NOTES.md, ainit18). */
  int deep = op->what == SHMCOLL_OP_BCAST || op->what == SHMCOLL_OP_REDUCE ||
             op->what == SHMCOLL_OP_ALLGATHER ||
             op->what == SHMCOLL_OP_ALLTOALL;
  if (deep && lane_fits && bytes <= SHMCOLL_DEEP_CELL && !reads &&
      sc->ndeep > 0 &&
      shmcoll_claim_of(op, claim, sc->lanes + nordinary, sc->ndeep,
                       &sc->deep_taken, 0, 1))
    return HC_OK;
  /* A wide lane has the segment's chunk and small buffers' size: op, as
   * prepared against the segment, runs there as it is (shmcoll_impl.h). */
  if ((lane_fits && small &&
       shmcoll_claim_of(op, claim, sc->lanes, nordinary, &sc->lanes_taken, 0,
                        1)) ||
      shmcoll_claim_of(op, claim, sc->wide, sc->nwide, &sc->wide_taken, 0,
                       0) ||
      (lane_fits && shmcoll_claim_of(op, claim, sc->lanes, nordinary,
                                     &sc->lanes_taken, 0, 1)))
    return HC_OK;
  /* Every lane it fits was claimed: it waits for one to be given back.
   * Not an alltoallv that leaves its large blocks to messages: they are
   * steps beside the lane's, which the schedule has no copy of. */
  if (op->what == SHMCOLL_OP_ALLTOALL && !op->read_large)
    return HC_ERR_NOT_SUPPORTED;
  if ((!small && shmcoll_claim_of(op, claim, sc->wide, sc->nwide,
                                  &sc->wide_taken, 1, 0)) ||
      (lane_fits && shmcoll_claim_of(op, claim, sc->lanes, nordinary,
                                     &sc->lanes_taken, 1, 1)))
    return HC_OK;
  return HC_ERR_NOT_SUPPORTED;
}
