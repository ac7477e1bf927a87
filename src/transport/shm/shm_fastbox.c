#include "transport/shm/shm_fastbox.h"

#include <string.h>

_Static_assert(offsetof(struct hc_shm_fastbox, data) == HC_SHM_FASTBOX_HDR,
               "the box's words fit its header");

int hc_shm_fastbox_size_ok(size_t bytes) {
  return bytes >= HC_SHM_FASTBOX_BYTES_MIN &&
         bytes <= HC_SHM_FASTBOX_BYTES_MAX && bytes % HC_SHM_RING_ALIGN == 0;
}

void hc_shm_fastbox_format(struct hc_shm_fastbox *box, uint32_t first) {
  atomic_init(&box->seq, first - 1);
  atomic_init(&box->ack, first - 1);
  box->len = 0;
  box->pad = 0;
}

void hc_shm_fastbox_attach(hc_shm_fastbox_end_t *end,
                           struct hc_shm_fastbox *box, size_t bytes) {
  end->box = box;
  end->max = (uint32_t)(bytes - HC_SHM_FASTBOX_HDR);
  end->demote = 1;
  end->spill = 0;
  end->last = atomic_load_explicit(&box->seq, memory_order_acquire);
}

void hc_shm_fastbox_put(hc_shm_fastbox_end_t *end, const struct iovec *iov,
                        int iovcnt, size_t total) {
  struct hc_shm_fastbox *box = end->box;
  hc_shm_iov_gather(box->data, iov, iovcnt);
  box->len = (uint32_t)total;
  end->last++;
  atomic_store_explicit(&box->seq, end->last, memory_order_release);
  /* Every line the packet covers, the sequence word's first; a packet of
   * one line gained nothing from it in a ping-pong and cost a stream of
   * 8-byte messages 3 % of its rate. */
  if (end->demote && total > HC_SHM_FASTBOX_ONE_LINE)
    for (size_t off = 0; off < HC_SHM_FASTBOX_HDR + total;
         off += HC_SHM_RING_ALIGN)
      hc_shm_demote_line((const unsigned char *)box + off);
}

int hc_shm_fastbox_readable(const struct hc_shm_fastbox *box) {
  return atomic_load_explicit(&box->seq, memory_order_seq_cst) !=
         atomic_load_explicit(&box->ack, memory_order_relaxed);
}

const void *hc_shm_fastbox_peek(hc_shm_fastbox_end_t *end, size_t *len) {
  struct hc_shm_fastbox *box = end->box;
  uint32_t seq = atomic_load_explicit(&box->seq, memory_order_acquire);
  *len = 0;
  if (seq == end->last)
    return NULL;
  /* The sender's words come from another process: a number that is not
   * the next one, or a length past the box, ends the box. */
  uint32_t box_len = box->len;
  if (seq != end->last + 1 || box_len > end->max) {
    *len = HC_SHM_FASTBOX_CORRUPT;
    return NULL;
  }
  /* The lines past the sequence word's are asked for at once, so they
   * cross while the caller reads the packet's header and finds where the
   * payload goes, not one by one as the copy reaches them: 64-128 B one
   * way -4 to -12 % (bench/NOTES.md, box18). */
  for (size_t off = HC_SHM_RING_ALIGN; off < HC_SHM_FASTBOX_HDR + box_len;
       off += HC_SHM_RING_ALIGN)
    __builtin_prefetch((const unsigned char *)box + off);
  size_t beyond =
      (HC_SHM_FASTBOX_HDR + box_len - 1) / HC_SHM_RING_ALIGN; /* lines */
  end->spill = beyond < HC_SHM_FASTBOX_POLL_AHEAD ? (int)beyond
                                                  : HC_SHM_FASTBOX_POLL_AHEAD;
  *len = box_len;
  return box->data;
}

void hc_shm_fastbox_release(hc_shm_fastbox_end_t *end) {
  end->last++;
  atomic_store_explicit(&end->box->ack, end->last, memory_order_release);
}
