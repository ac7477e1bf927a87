/*
 * The lock area of one target of a shared window (rma_direct.c), in the
 * mapping every member shares, hc_winlock_bytes(members) long:
 *
 *   word 0  the atomic word, held around one accumulate's apply: 0 free,
 *           else the holder's rank + 1
 *   word 1  the epoch word of passive-target locks: the number of shared
 *           holders, or HC_WINLOCK_EXCLUSIVE | the exclusive holder's
 *           rank + 1
 *   then    a byte per member, 1 while it holds a shared lock
 *
 * and, from the next cache line on, the words of post/start/complete/wait
 * where the window uses them (rma_sync.c):
 *
 *   word 0  completions: how many MPI_Win_complete calls ended an access
 *           epoch towards this target (every origin adds one)
 *   then    a word per member: how many times that member posted to this
 *           one (the area's owner as origin); only that member writes it
 *
 * Counters, never reset: a waiter compares them with how many it took
 * already, so one epoch's notice is never taken for the next one's.
 *
 * Every word names or marks its holders so that, once a member's process
 * is gone, the survivors can take back what it held
 * (hc_winlock_free_dead): a dead process never unlocks.  A byte, not a
 * bit, per shared holder: only its owner sets or clears it while it
 * lives, so a plain store does, where a bit would take one more atomic
 * read-modify-write at each shared lock and unlock.
 */
#ifndef HC_RMA_LOCKS_H
#define HC_RMA_LOCKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef _Atomic uint32_t hc_winlock_t;

#define HC_WINLOCK_EXCLUSIVE 0x80000000u
/* Words before the holder bytes. */
#define HC_WINLOCK_HEADER_WORDS 2
/* Each target's area starts a cache line of its own. */
#define HC_WINLOCK_ALIGN 64

static inline size_t hc_winlock_round(size_t bytes) {
  return (bytes + HC_WINLOCK_ALIGN - 1) / HC_WINLOCK_ALIGN * HC_WINLOCK_ALIGN;
}

/* Bytes of the locks' part of one target's area, where the words of
 * post/start/complete/wait begin. */
static inline size_t hc_winlock_sync_offset(int members) {
  return hc_winlock_round(HC_WINLOCK_HEADER_WORDS * sizeof(uint32_t) +
                          (size_t)members);
}

/* Bytes of one target's area in a window of members members. */
static inline size_t hc_winlock_bytes(int members) {
  return hc_winlock_sync_offset(members) +
         hc_winlock_round((1 + (size_t)members) * sizeof(uint32_t));
}

/* The completions word of an area (members: the window's size). */
static inline hc_winlock_t *hc_winlock_completions(hc_winlock_t *area,
                                                   int members) {
  return (hc_winlock_t *)(void *)((unsigned char *)area +
                                  hc_winlock_sync_offset(members));
}

/* The word counting target's posts to the area's owner. */
static inline hc_winlock_t *hc_winlock_posts(hc_winlock_t *area, int members,
                                             int target) {
  return hc_winlock_completions(area, members) + 1 + target;
}

/* Takes the atomic word for rank me; 0 when another holds it. */
static inline int hc_winlock_atomic_try(hc_winlock_t *area, int me) {
  uint32_t v = 0;
  return atomic_compare_exchange_strong_explicit(&area[0], &v, (uint32_t)me + 1,
                                                 memory_order_acquire,
                                                 memory_order_relaxed);
}

static inline void hc_winlock_atomic_release(hc_winlock_t *area) {
  atomic_store_explicit(&area[0], 0, memory_order_release);
}

/* The atomic word's holder, or -1 when free. */
static inline int hc_winlock_atomic_holder(hc_winlock_t *area) {
  return (int)atomic_load_explicit(&area[0], memory_order_relaxed) - 1;
}

/* rank's shared-holder byte. */
static inline _Atomic uint8_t *hc_winlock_holder(hc_winlock_t *area, int rank) {
  return (_Atomic uint8_t *)(void *)(area + HC_WINLOCK_HEADER_WORDS) + rank;
}

/* Takes the passive-target lock of type (exclusive: 1, shared: 0) for
 * rank me; 0 when a holder excludes it. */
static inline int hc_winlock_epoch_try(hc_winlock_t *area, int exclusive,
                                       int me) {
  hc_winlock_t *word = &area[1];
  uint32_t v = 0;
  if (exclusive)
    return atomic_compare_exchange_strong_explicit(
        word, &v, HC_WINLOCK_EXCLUSIVE | ((uint32_t)me + 1),
        memory_order_acquire, memory_order_relaxed);
  v = atomic_load_explicit(word, memory_order_relaxed);
  while (!(v & HC_WINLOCK_EXCLUSIVE))
    if (atomic_compare_exchange_weak_explicit(
            word, &v, v + 1, memory_order_acquire, memory_order_relaxed)) {
      atomic_store_explicit(hc_winlock_holder(area, me), 1,
                            memory_order_relaxed);
      return 1;
    }
  return 0;
}

static inline void hc_winlock_epoch_release(hc_winlock_t *area, int exclusive,
                                            int me) {
  if (exclusive) {
    atomic_store_explicit(&area[1], 0, memory_order_release);
    return;
  }
  /* The release below orders it before the count drops. */
  atomic_store_explicit(hc_winlock_holder(area, me), 0, memory_order_relaxed);
  atomic_fetch_sub_explicit(&area[1], 1, memory_order_release);
}

/* Frees what the members for which dead(ctx, rank) is true hold of this
 * area (members: the window's size); returns how many holds it freed.
 * Survivors may race here: of them, the one whose compare-and-swap or
 * exchange takes a dead holder's mark away frees its hold.  A holder that
 * died between counting itself a shared holder and setting its byte (or
 * the reverse at release) leaves its count: the two instructions this
 * cannot tell. */
int hc_winlock_free_dead(hc_winlock_t *area, int members,
                         int (*dead)(void *ctx, int rank), void *ctx);

#endif /* HC_RMA_LOCKS_H */
