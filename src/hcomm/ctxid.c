/*
 * Context ids of this process and the agreement on new ones (ctxid.h).
 *
 * Why a vote: an offer made while a member waits for the others may be
 * stale by the time the AND comes back (another agreement of this process
 * took the id meanwhile), so the id is only taken once every member has
 * reserved it after seeing the AND.  Why no agreement holds its offer while
 * it waits: the members of one may be busy in another (two threads of a
 * process each duplicating a different communicator, in opposite orders on
 * two processes, or a blocking call waiting for a peer's duplicate); an
 * offer held over that wait would leave the other agreements nothing to
 * offer, and each would wait for the other.  Why claims: two agreements
 * that reach for the same id at once could each win the vote at one member
 * and lose at another, round after round; the one of lower key keeps its
 * id out of the others' way until it ends, so it wins the next round.
 *
 * Every function here runs with the engine lock held.
 */
#include "hcomm/ctxid.h"

#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "hcomm/core.h"
#include "hcomm/engine.h"

_Static_assert(HC_CTXID_WORDS * 32 == HC_CONTEXT_IDS, "ctxid.h names the size");

/* Ids a hold may take: the lower three quarters. */
#define CTXID_HOLD_WORDS (HC_CTXID_WORDS * 3 / 4)
/* Rounds an agreement runs before it gives up with HC_ERR_NO_CONTEXT: only
 * ever reached while ids stay held back (every member sees the same
 * rounds, so all give up together). */
#define CTXID_ROUNDS_MAX 1000000
#define CTXID_FLAG_OPEN 1u /* bit 0 of word 0 of an offer */

static uint32_t ctxid_free[HC_CTXID_WORDS];     /* no communicator uses it */
static uint32_t ctxid_reserved[HC_CTXID_WORDS]; /* voted for, not decided */
static uint32_t ctxid_held[HC_CTXID_WORDS];     /* by hc_ctxid_hold */
static _Thread_local uint32_t ctxid_my_hold[HC_CTXID_WORDS];
static hc_ctxid_agreement_t *ctxid_inflight;

static void ctxid_set(uint32_t *set, int id) {
  set[id / 32] |= 1u << (id % 32);
}

static void ctxid_clear(uint32_t *set, int id) {
  set[id / 32] &= ~(1u << (id % 32));
}

static int ctxid_has(const uint32_t *set, int id) {
  return (set[id / 32] >> (id % 32)) & 1u;
}

void hc_ctxid_init(void) {
  memset(ctxid_free, 0xff, sizeof ctxid_free);
  memset(ctxid_reserved, 0, sizeof ctxid_reserved);
  memset(ctxid_held, 0, sizeof ctxid_held);
  ctxid_inflight = NULL;
}

void hc_ctxid_take(int id) { ctxid_clear(ctxid_free, id); }

void hc_ctxid_put(int id) { ctxid_set(ctxid_free, id); }

/* Ids a's offers and votes leave alone: reserved by a vote, held, or
 * claimed by an agreement of lower key. */
static void ctxid_barred(const hc_ctxid_agreement_t *a, uint32_t *barred) {
  for (int w = 0; w < HC_CTXID_WORDS; w++)
    barred[w] = ctxid_reserved[w] | ctxid_held[w];
  for (const hc_ctxid_agreement_t *o = ctxid_inflight; o != NULL; o = o->next)
    if (o != a && o->key < a->key)
      for (int i = 0; i < o->nids; i++)
        if (o->claim[i] >= 0)
          ctxid_set(barred, o->claim[i]);
}

void hc_ctxid_begin(hc_ctxid_agreement_t *a, uint64_t key, int nids) {
  *a = (hc_ctxid_agreement_t){.key = key, .nids = nids, .claim = {-1, -1}};
  a->next = ctxid_inflight;
  ctxid_inflight = a;
}

/* The free ids outside barred into mask, its bit 0 set when barred kept
 * none of them back. */
static void ctxid_offer_from(const uint32_t *barred, int words,
                             uint32_t *mask) {
  uint32_t hindered = 0;
  for (int w = 0; w < words; w++) {
    mask[w] = ctxid_free[w] & ~barred[w];
    hindered |= ctxid_free[w] & barred[w];
  }
  memset(mask + words, 0, (size_t)(HC_CTXID_WORDS - words) * sizeof *mask);
  if (hindered == 0)
    mask[0] |= CTXID_FLAG_OPEN;
}

void hc_ctxid_offer(hc_ctxid_agreement_t *a, uint32_t *mask) {
  uint32_t barred[HC_CTXID_WORDS];
  ctxid_barred(a, barred);
  ctxid_offer_from(barred, HC_CTXID_WORDS, mask);
}

static int ctxid_lowest(const uint32_t *set) {
  for (int w = 0; w < HC_CTXID_WORDS; w++)
    if (set[w] != 0)
      return w * 32 + __builtin_ctz(set[w]);
  return -1;
}

uint32_t hc_ctxid_vote(hc_ctxid_agreement_t *a, uint32_t *agreed) {
  a->open = (int)(agreed[0] & CTXID_FLAG_OPEN);
  agreed[0] &= ~CTXID_FLAG_OPEN;
  for (int i = 0; i < a->nids; i++) {
    a->claim[i] = ctxid_lowest(agreed);
    if (a->claim[i] < 0)
      return 0;
    ctxid_clear(agreed, a->claim[i]);
  }
  uint32_t barred[HC_CTXID_WORDS];
  ctxid_barred(a, barred);
  for (int i = 0; i < a->nids; i++)
    if (!ctxid_has(ctxid_free, a->claim[i]) || ctxid_has(barred, a->claim[i]))
      return 0;
  for (int i = 0; i < a->nids; i++)
    ctxid_set(ctxid_reserved, a->claim[i]);
  a->reserved = 1;
  return HC_CTXID_VOTE_YES;
}

static void ctxid_unreserve(hc_ctxid_agreement_t *a) {
  if (!a->reserved)
    return;
  for (int i = 0; i < a->nids; i++)
    ctxid_clear(ctxid_reserved, a->claim[i]);
  a->reserved = 0;
}

hc_status_t hc_ctxid_decide(hc_ctxid_agreement_t *a, uint32_t votes, int *ids) {
  if (votes & HC_CTXID_VOTE_YES) {
    ctxid_unreserve(a);
    for (int i = 0; i < a->nids; i++) {
      hc_ctxid_take(a->claim[i]);
      ids[i] = a->claim[i];
      a->claim[i] = -1;
    }
    return HC_OK;
  }
  ctxid_unreserve(a);
  if (a->claim[a->nids - 1] < 0 && a->open)
    return HC_ERR_NO_CONTEXT; /* nothing held back, nothing in common */
  return HC_ERR_AGAIN;
}

void hc_ctxid_end(hc_ctxid_agreement_t *a) {
  ctxid_unreserve(a);
  for (hc_ctxid_agreement_t **p = &ctxid_inflight; *p != NULL; p = &(*p)->next)
    if (*p == a) {
      *p = a->next;
      break;
    }
}

/* Between rounds: the lock is let go a moment, longer once contention
 * lasts, so that the agreement that goes first can move. */
static void ctxid_pause(int round) {
  hc_engine_unlock();
  if (round < 100) {
    sched_yield();
  } else {
    struct timespec ts = {0, 100 * 1000};
    nanosleep(&ts, NULL);
  }
  hc_engine_lock();
}

hc_status_t hc_ctxid_agree_locked(uint64_t key, int nids,
                                  hc_ctxid_and_cb and_cb, void *arg, int *ids) {
  hc_ctxid_agreement_t a;
  uint32_t mask[HC_CTXID_WORDS];
  hc_status_t rc = HC_ERR_NO_CONTEXT;
  hc_ctxid_begin(&a, key, nids);
  for (int round = 0; round < CTXID_ROUNDS_MAX; round++) {
    if (round > 0)
      ctxid_pause(round);
    hc_ctxid_offer(&a, mask);
    rc = and_cb(arg, mask, HC_CTXID_WORDS);
    if (rc != HC_OK)
      break;
    uint32_t vote = hc_ctxid_vote(&a, mask);
    rc = and_cb(arg, &vote, 1);
    if (rc != HC_OK)
      break;
    rc = hc_ctxid_decide(&a, vote, ids);
    if (rc != HC_ERR_AGAIN)
      break;
    rc = HC_ERR_NO_CONTEXT;
  }
  hc_ctxid_end(&a);
  return rc;
}

void hc_ctxid_hold(uint32_t *mask) {
  uint32_t barred[HC_CTXID_WORDS];
  for (int w = 0; w < HC_CTXID_WORDS; w++)
    barred[w] = ctxid_reserved[w] | (ctxid_held[w] & ~ctxid_my_hold[w]);
  ctxid_offer_from(barred, CTXID_HOLD_WORDS, mask);
  for (int w = 0; w < CTXID_HOLD_WORDS; w++) {
    uint32_t ids = mask[w] & ~(w == 0 ? CTXID_FLAG_OPEN : 0u);
    ctxid_held[w] |= ids;
    ctxid_my_hold[w] |= ids;
  }
}

void hc_ctxid_unhold(void) {
  for (int w = 0; w < HC_CTXID_WORDS; w++) {
    ctxid_held[w] &= ~ctxid_my_hold[w];
    ctxid_my_hold[w] = 0;
  }
}
