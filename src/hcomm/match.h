/*
 * Tag matching: per matching context a posted-receive queue and an
 * unexpected-message queue, oldest first.  Pure: no transport, no
 * allocation.  Entries are intrusive and owned by the caller (a receive
 * request or an unexpected-message descriptor).
 *
 * Sources are world ranks (the engine translates); a posted entry may carry
 * HCOMM_ANY_SOURCE and HCOMM_ANY_TAG, an unexpected entry never does.
 * Searching from the head in arrival/post order gives MPI's non-overtaking
 * order per (source, tag, context).
 */
#ifndef HC_MATCH_H
#define HC_MATCH_H

#include <stddef.h>

typedef struct hc_match_entry {
  struct hc_match_entry *prev;
  struct hc_match_entry *next;
  int source;
  int tag;
} hc_match_entry_t;

typedef struct hc_match_queue {
  hc_match_entry_t *head;
  hc_match_entry_t *tail;
  size_t length;
} hc_match_queue_t;

typedef struct hc_match_context {
  hc_match_queue_t posted;
  hc_match_queue_t unexpected;
} hc_match_context_t;

void hc_match_context_init(hc_match_context_t *ctx);

/* Links entry, with its source and tag, at the tail of q.  Inline: every
 * MPI_Irecv that finds nothing unexpected posts, and as a call it cost a
 * frame per receive (bench/NOTES.md, recv17). */
static inline void hc_match_append(hc_match_queue_t *q,
                                   hc_match_entry_t *entry, int source,
                                   int tag) {
  entry->source = source;
  entry->tag = tag;
  entry->next = NULL;
  entry->prev = q->tail;
  if (q->tail != NULL)
    q->tail->next = entry;
  else
    q->head = entry;
  q->tail = entry;
  q->length++;
}

/* Appends a receive (source/tag may be wildcards). */
static inline void hc_match_post(hc_match_context_t *ctx,
                                 hc_match_entry_t *entry, int source,
                                 int tag) {
  hc_match_append(&ctx->posted, entry, source, tag);
}
/* Appends an arrived message nobody was waiting for (concrete source/tag). */
static inline void hc_match_add_unexpected(hc_match_context_t *ctx,
                                           hc_match_entry_t *entry, int source,
                                           int tag) {
  hc_match_append(&ctx->unexpected, entry, source, tag);
}

/* An arriving message (concrete source, tag): removes and returns the oldest
 * posted receive that accepts it, or NULL. */
hc_match_entry_t *hc_match_take_posted(hc_match_context_t *ctx, int source,
                                       int tag);
/* A new receive or probe (wildcards allowed): the oldest unexpected message
 * it accepts, or NULL.  take != 0 removes it from the queue. */
hc_match_entry_t *hc_match_find_unexpected(hc_match_context_t *ctx, int source,
                                           int tag, int take);

/* Removes an entry known to be in q (cancel of a posted receive). */
void hc_match_remove(hc_match_queue_t *q, hc_match_entry_t *entry);
/* 1 when entry is linked in q. */
int hc_match_contains(const hc_match_queue_t *q, const hc_match_entry_t *entry);

/* 1 when a receive for (want_source, want_tag) accepts (source, tag). */
int hc_match_accepts(int want_source, int want_tag, int source, int tag);

#endif /* HC_MATCH_H */
