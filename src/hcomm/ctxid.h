/*
 * Context ids: which ones this process uses, and the agreement through which
 * the members of a new communicator pick one that is free at all of them.
 *
 * An agreement goes in rounds of two steps, each an AND over its members
 * (how the bits travel is the caller's: a parent communicator, a group, two
 * groups over a bridge, a schedule).  First every member offers the ids it
 * has free (hc_ctxid_offer); then every member checks that the lowest id of
 * the AND is still free here, reserves it and says so (hc_ctxid_vote); when
 * every member reserved it, all take it (hc_ctxid_decide), else all let it
 * go and run another round.  An agreement holds nothing while it waits for
 * its members, so agreements running at once in one process (threads that
 * create communicators, non-blocking dups) never wait for each other: each
 * waits only for its own members.  Two that reach for the same id are told
 * apart by their keys: the id voted for by the agreement of lower key stays
 * out of the offers and votes of higher ones until it ends.
 */
#ifndef HC_CTXID_H
#define HC_CTXID_H

#include <stdint.h>

#include "hcomm.h"

#define HC_CTXID_WORDS 64 /* HC_CONTEXT_IDS / 32 (core.h) */

/* The sets start with every id free; take marks one used (a communicator
 * made on it), put frees it (the communicator destroyed, or an agreed id
 * the caller made nothing on).  Caller holds the engine lock. */
void hc_ctxid_init(void);
void hc_ctxid_take(int id);
void hc_ctxid_put(int id);

/* One agreement in flight in this process.  key orders agreements and
 * must be the same at every member (parent's context id, then a tag or a
 * sequence number); nids ids are agreed at once (1 or 2). */
typedef struct hc_ctxid_agreement {
  uint64_t key;
  int nids;
  int claim[2]; /* the ids of its latest vote, -1 when none */
  int reserved; /* claim[] is reserved here by that vote */
  int open;     /* the latest offers held nothing back anywhere */
  struct hc_ctxid_agreement *next;
} hc_ctxid_agreement_t;

/* Vote bit: the ids of the AND are reserved at this member. */
#define HC_CTXID_VOTE_YES 1u

void hc_ctxid_begin(hc_ctxid_agreement_t *a, uint64_t key, int nids);
/* Writes this member's offer, HC_CTXID_WORDS words to be ANDed; bit 0
 * (id 0 is the world's, never free) says that nothing was held back for
 * another agreement. */
void hc_ctxid_offer(hc_ctxid_agreement_t *a, uint32_t *mask);
/* From the AND of the offers (modified): this member's vote word, to be
 * ANDed. */
uint32_t hc_ctxid_vote(hc_ctxid_agreement_t *a, uint32_t *agreed);
/* From the AND of the votes: HC_OK and the agreed ids in ids[] (taken);
 * HC_ERR_AGAIN: run another round; HC_ERR_NO_CONTEXT: none is free at
 * every member. */
hc_status_t hc_ctxid_decide(hc_ctxid_agreement_t *a, uint32_t votes, int *ids);
/* Ends an agreement (a reservation left by a failed round goes). */
void hc_ctxid_end(hc_ctxid_agreement_t *a);

/* An in-place AND of n words over the members of an agreement. */
typedef hc_status_t (*hc_ctxid_and_cb)(void *arg, uint32_t *words, size_t n);
/* A whole agreement with blocking ANDs; the engine lock is let go between
 * rounds that must run again.  ids[0..nids-1] are taken on HC_OK. */
hc_status_t hc_ctxid_agree_locked(uint64_t key, int nids,
                                  hc_ctxid_and_cb and_cb, void *arg, int *ids);

/* Ids held for an agreement that cannot vote (ft.c's shrink agrees once
 * over a fault-tolerant agreement): hold writes the offer as
 * hc_ctxid_offer does and keeps those ids out of every other offer until
 * unhold, from the same thread.  Only the lower three quarters of the ids
 * are ever held, so that the others always have some to agree on. */
void hc_ctxid_hold(uint32_t *mask);
void hc_ctxid_unhold(void);

#endif /* HC_CTXID_H */
