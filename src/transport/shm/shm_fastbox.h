/*
 * A fast box: one small packet in flight from one local rank to another,
 * in 2 to 18 cache lines of the shared segment (shm.c chooses, fewer as
 * local ranks grow), ahead of the pair's ring.  At 18 lines a 1 KiB
 * message with its full header fits, so a ping-pong of up to 1 KiB reuses
 * the same lines every time instead of a 16 KiB pool cell and a ring slot;
 * only the lines a packet covers are written or read, so an 8-byte message
 * costs what it does in a box of two lines.
 *
 * The sender writes the bytes and then a release store of the box's
 * sequence number; the receiver polls that one word, reads the bytes and
 * hands the box back with a release store of the same number in ack.  Each
 * side keeps the number it last wrote or took in its own view, so a poll
 * of an empty box is one load and one compare.  Numbers are 32-bit and
 * wrap; only equality and "one more" are ever asked of them.
 *
 * A packet of more than one line would cross one line at a time (the
 * receiver asks for the next line only once it has read the sequence
 * word): so the sender pushes the lines it wrote out to the cache the
 * cores share (CLDEMOTE), and the receiver, once it sees the number, asks
 * for every further line at once.  The ack shares the sequence word's
 * line on purpose: in its own line, or in the box the other way, an
 * 8-byte ping-pong was slower (bench/NOTES.md, box18).
 *
 * The box holds one packet: a sender that finds it taken sends through the
 * ring.  Order between the two is the caller's (shm.c): it fills the box
 * only while the ring to that peer is empty, so a packet in the box is
 * always older than every packet in the ring.
 */
#ifndef HC_SHM_FASTBOX_H
#define HC_SHM_FASTBOX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport/shm/shm_ring.h" /* HC_SHM_RING_ALIGN */

/* A box's size in bytes, header included: whole cache lines between these. */
#define HC_SHM_FASTBOX_BYTES_MIN (2 * HC_SHM_RING_ALIGN)
#define HC_SHM_FASTBOX_BYTES_MAX (18 * HC_SHM_RING_ALIGN)
#define HC_SHM_FASTBOX_HDR 16
/* The largest packet a box of the largest size holds. */
#define HC_SHM_FASTBOX_MAX (HC_SHM_FASTBOX_BYTES_MAX - HC_SHM_FASTBOX_HDR)

struct hc_shm_fastbox {
  _Alignas(HC_SHM_RING_ALIGN) _Atomic uint32_t seq; /* sender: last put */
  _Atomic uint32_t ack;                             /* receiver: last taken */
  uint32_t len;
  uint32_t pad;
  unsigned char data[]; /* to the box's size less HC_SHM_FASTBOX_HDR */
};

/* The most lines past the sequence word's that a poll asks for. */
#define HC_SHM_FASTBOX_POLL_AHEAD 3

/* One side's view: the box, its capacity (from the size this side was
 * given, never from the shared words) and the number this side last put
 * (sender) or took (receiver). */
typedef struct hc_shm_fastbox_end {
  struct hc_shm_fastbox *box;
  uint32_t max; /* the largest packet it holds */
  uint32_t last;
  /* Sender: 1 (attach's default) to push each packet's lines to the cache
   * the cores share; 0 where the receiver likely runs next on this very
   * core (more ranks than processors), which the push would only slow. */
  int demote;
  /* Receiver: the lines past the sequence word's that the last packet
   * taken covered, at most HC_SHM_FASTBOX_POLL_AHEAD; the polls ask for
   * them too (see _holds). */
  int spill;
} hc_shm_fastbox_end_t;

/* 1 when bytes is a box size: whole cache lines from _MIN to _MAX. */
int hc_shm_fastbox_size_ok(size_t bytes);

/* Formats an empty box whose numbers start after first - 1 (0 in a
 * segment; tests start near the wrap).  Before either side attaches. */
void hc_shm_fastbox_format(struct hc_shm_fastbox *box, uint32_t first);

/* Fills end with a view of a formatted box of bytes bytes (a size
 * _size_ok accepts), for either side. */
void hc_shm_fastbox_attach(hc_shm_fastbox_end_t *end,
                           struct hc_shm_fastbox *box, size_t bytes);

/* Sender: 1 when the receiver took the last packet put (the box is free).
 * Inline: every small send asks it, and called it cost 6 instructions
 * where inline it is two (bench/NOTES.md, lat27). */
static inline int hc_shm_fastbox_free(const hc_shm_fastbox_end_t *end) {
  return atomic_load_explicit(&end->box->ack, memory_order_acquire) ==
         end->last;
}

/* The largest packet that fits the sequence word's line. */
#define HC_SHM_FASTBOX_ONE_LINE (HC_SHM_RING_ALIGN - HC_SHM_FASTBOX_HDR)

/* Sender: asks, without waiting, for the box's first line (where the ack
 * is) in a state this side may write.  A ping-pong's answer follows the
 * packet just taken from the peer, and its _free read the ack that the
 * peer wrote when it took the last packet: a miss across the cores, in
 * the far placement ~0.07 us of an 8-byte one way, on the send's path
 * (bench/NOTES.md, lat29).  Asked for at the take, the line crosses while
 * the packet is delivered. */
static inline void hc_shm_fastbox_expect_put(const hc_shm_fastbox_end_t *end) {
  hc_prefetch_write(end->box);
}

/* Sender: copies total bytes (the iov pieces, total <= end->max)
 * into a free box and publishes them.  Call only after _free said 1. */
void hc_shm_fastbox_put(hc_shm_fastbox_end_t *end, const struct iovec *iov,
                        int iovcnt, size_t total);

/* Receiver: nonzero when a packet waits.  Inline and a load or two, since
 * every poll asks it of every peer; an impossible number counts as waiting
 * so that peek reports it. */
static inline int hc_shm_fastbox_holds(const hc_shm_fastbox_end_t *end) {
  if (atomic_load_explicit(&end->box->seq, memory_order_acquire) != end->last)
    return 1;
  /* A ping-pong of packets of two lines or more: the lines past the
   * sequence word's are asked for while the box is polled, so that when
   * the sender writes them they cross together instead of one after the
   * other.  Only on the empty poll and out of the way of one-line packets:
   * with the asks ahead of the load in every poll a far 8-byte ping-pong
   * was 7 % slower (bench/NOTES.md, lat29). */
  if (__builtin_expect(end->spill != 0, 0))
    for (int line = 1; line <= end->spill; line++)
      __builtin_prefetch((const unsigned char *)end->box +
                         (size_t)line * HC_SHM_RING_ALIGN);
  return 0;
}

/* Receiver: as _holds, from the box's shared words only (the sender's
 * number against the receiver's ack), so a thread that does not own the
 * receiving view (one about to sleep) may ask it. */
int hc_shm_fastbox_readable(const struct hc_shm_fastbox *box);

/* What hc_shm_fastbox_peek leaves in *len for a corrupt box. */
#define HC_SHM_FASTBOX_CORRUPT SIZE_MAX

/* Receiver: the waiting packet's bytes (valid until _release) and length,
 * or NULL when none waits.  NULL with *len == HC_SHM_FASTBOX_CORRUPT when
 * the sender's words are impossible (a number that skipped, a length past
 * the box). */
const void *hc_shm_fastbox_peek(hc_shm_fastbox_end_t *end, size_t *len);

/* Receiver: hands the packet of the last peek back to the sender. */
void hc_shm_fastbox_release(hc_shm_fastbox_end_t *end);

#endif /* HC_SHM_FASTBOX_H */
