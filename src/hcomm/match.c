#include "hcomm/match.h"

#include "hcomm.h"

void hc_match_context_init(hc_match_context_t *ctx) {
  ctx->posted.head = ctx->posted.tail = NULL;
  ctx->posted.length = 0;
  ctx->unexpected.head = ctx->unexpected.tail = NULL;
  ctx->unexpected.length = 0;
}

void hc_match_remove(hc_match_queue_t *q, hc_match_entry_t *entry) {
  if (entry->prev != NULL)
    entry->prev->next = entry->next;
  else
    q->head = entry->next;
  if (entry->next != NULL)
    entry->next->prev = entry->prev;
  else
    q->tail = entry->prev;
  entry->prev = entry->next = NULL;
  q->length--;
}

int hc_match_contains(const hc_match_queue_t *q,
                      const hc_match_entry_t *entry) {
  for (const hc_match_entry_t *e = q->head; e != NULL; e = e->next)
    if (e == entry)
      return 1;
  return 0;
}

int hc_match_accepts(int want_source, int want_tag, int source, int tag) {
  if (want_source != HCOMM_ANY_SOURCE && want_source != source)
    return 0;
  return want_tag == HCOMM_ANY_TAG || want_tag == tag;
}

hc_match_entry_t *hc_match_take_posted(hc_match_context_t *ctx, int source,
                                       int tag) {
  /* The newest posted receive first, when it is also the oldest (a
   * blocking receive, a ping-pong): it alone decides, and leaving it empties
   * the queue.  Behind older receives, one of those may accept the message
   * first, so the walk from the oldest decides. */
  hc_match_entry_t *newest = ctx->posted.tail;
  if (newest != NULL && newest == ctx->posted.head) {
    if (!hc_match_accepts(newest->source, newest->tag, source, tag))
      return NULL;
    ctx->posted.head = ctx->posted.tail = NULL;
    ctx->posted.length = 0;
    newest->prev = newest->next = NULL;
    return newest;
  }
  for (hc_match_entry_t *e = ctx->posted.head; e != NULL; e = e->next) {
    if (hc_match_accepts(e->source, e->tag, source, tag)) {
      hc_match_remove(&ctx->posted, e);
      return e;
    }
  }
  return NULL;
}

hc_match_entry_t *hc_match_find_unexpected(hc_match_context_t *ctx, int source,
                                           int tag, int take) {
  for (hc_match_entry_t *e = ctx->unexpected.head; e != NULL; e = e->next) {
    if (hc_match_accepts(source, tag, e->source, e->tag)) {
      if (take)
        hc_match_remove(&ctx->unexpected, e);
      return e;
    }
  }
  return NULL;
}
