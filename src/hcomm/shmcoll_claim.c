/*
 * Lanes given back (shmcoll_impl.h): what each rank publishes of its
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
