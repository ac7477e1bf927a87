/*
 * The shm transport's own header: the context and the ring slots' tags and
 * contents that its files share, and the helpers they call across files.
 * shm.c holds the segment, the packets and the waits; shm_cma.c the
 * single-copy reads and writes (process_vm_readv / _writev), shared reads
 * included; shm_placement.c the probe of where the pair's cores sit.
 * Nothing outside src/transport/shm includes it: the rest of the library
 * sees the transport through hc_transport_shm_ops only.
 */
#ifndef HC_TRANSPORT_SHM_IMPL_H
#define HC_TRANSPORT_SHM_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport/shm/shm_fastbox.h"
#include "transport/shm/shm_layout.h"
#include "transport/shm/shm_pool.h"
#include "transport/shm/shm_ring.h"
#include "transport/transport.h"
#include "util/shmseg.h"

#define SHM_NAME_MAX HC_SHMSEG_NAME_MAX

/* Payload bytes of a ring slot: a packet header and a small message fit,
 * and a slot with its 16-byte header is four cache lines. */
#define SHM_INLINE_MAX ((size_t)240)

/* Ring tag of a slot that names a pool cell instead of holding a packet. */
#define SHM_TAG_POOL 1u

/* Ring tag of a slot that asks its reader to help with a CMA read of its
 * memory (struct shm_help_ask). */
#define SHM_TAG_HELP 2u

/* A CMA read of at least HCMPI_SHM_CMA_HELP_MIN bytes is shared: the
 * reader asks the peer it reads from, through their ring, to write chunks
 * of SHM_HELP_CHUNK bytes from the front (process_vm_writev) while it reads
 * chunks from the back; each chunk is claimed in the reader's slot, so
 * whichever process holds a core copies, and two cores copy at once where
 * both have one.  Two processes copying 4 MiB so: 24-27 GB/s against
 * 10-12 for one read (bench/NOTES.md, bw17b).  Only between ranks that do
 * not wait for a core (SHM_DEFAULT_RUNQ_MAX): the reader cannot end its
 * read while the helper's chunk is in flight.  The default of
 * HCMPI_SHM_CMA_HELP_MIN is the processor's (util/cpu_profile.c). */
#define SHM_HELP_CHUNK ((size_t)256 << 10)

/* A rank whose memory a local peer reads with CMA waits for that peer's
 * FIN: had it slept, every message of a window cost the reader a futex
 * wake and the sleeper a membarrier, whose interrupt lands on the reader's
 * core mid-copy (strace of 1 MiB windows: one of each per message, the
 * sender's 4000 polls ~60 us against a read of ~50-80 us).  So the reader
 * publishes how long its read may take, at SHM_READ_POLL_BYTES_PER_NS, at
 * most SHM_READ_POLL_MAX_NS, and the owner polls rather than sleep until
 * then; never between ranks that wait for a core (SHM_DEFAULT_RUNQ_MAX),
 * where polling would take the reader's core share. */
#define SHM_READ_POLL_BYTES_PER_NS 4
#define SHM_READ_POLL_MAX_NS 2000000ull

/* The claims word: generation (16 bits), front and back (24 bits each, in
 * chunks). */
#define SHM_HELP_CHUNKS_MAX ((1u << 24) - 1)

/* Tests only (HCMPI_TEST_SHM_READ_DIE): the first CMA read of at most
 * this many bytes, the lone reads' sizes, is cut half-way by a death. */
#define SHM_TEST_READ_DIE_MAX ((size_t)32 << 10)

/* Which end of a CMA read HCMPI_TEST_SHM_READ_DIE kills half-way. */
enum shm_test_read_die {
  SHM_TEST_READ_DIE_OFF,
  SHM_TEST_READ_DIE_READER, /* the reader itself: no FIN ever leaves */
  SHM_TEST_READ_DIE_OWNER,  /* the rank read from: the rest is gone */
};

/* What a SHM_TAG_HELP ring slot carries: the reader's destination, the
 * helper's source, the length, and the generation of the reader's claims
 * word that the request belongs to. */
struct shm_help_ask {
  uint64_t reader_addr;
  uint64_t source_addr;
  uint64_t len;
  uint32_t gen;
  uint32_t pad;
};

/* What a SHM_TAG_POOL ring slot carries. */
struct shm_pool_ref {
  uint32_t index;
  uint32_t len;
};

/* shm_push_slot leaves the size check to its callers. */
_Static_assert(sizeof(struct shm_help_ask) <= SHM_INLINE_MAX &&
                   sizeof(struct shm_pool_ref) <= SHM_INLINE_MAX,
               "a ring slot holds what the rings carry");

/* What shm_eager_max_now last saw of a peer: the packets sent to it and
 * taken from it then, whether it had answered (a packet taken) since the
 * ask before, and its verdict, kept until the next packet goes: the short
 * path (hc_proto_send_now) and the request path behind it ask about one
 * send twice. */
struct shm_turn {
  uint64_t sent_at_ask;
  uint64_t taken_at_ask;
  unsigned char answered;
  unsigned char lone;
};

/* What the engine measured of the large rendezvous received from one
 * local peer by one path (rndv_measured), for the choice between reading
 * them and streaming them (shm_placement.c): MB/s of its best recent
 * measure (0: none yet), when that was taken, and when a rendezvous was
 * last sent down the path to take one (hc_shm_now_ns). */
struct shm_path_rate {
  uint32_t mbps;
  uint64_t measured_ns, tried_ns;
};

/* A local peer's two paths: [0] streamed through the cells, [1] read. */
struct shm_rates {
  struct shm_path_rate path[2];
  int chosen; /* 1 + the path last chosen by the rates (0: none yet) */
};

typedef struct shm_ctx {
  int world_rank;
  int local_rank;
  int local_size;
  int *local_world_ranks;
  hc_transport_recv_cb recv_cb;
  hc_transport_peer_failed_cb peer_failed_cb;
  void *engine;
  char name[SHM_NAME_MAX];
  int linked; /* this rank created the name and has not unlinked it */
  /* Local rank 0's anonymous segment (memfd), open until every local rank
   * mapped it through /proc/<pid>/fd/<n>; no name ever exists, so nothing
   * can leak whoever dies when.  -1 with a named segment. */
  int memfd;
  /* Liveness of local peers: pidfds (-1: none, kill(pid, 0) instead),
   * polled when a wait is about to sleep; deaths found there are reported
   * through peer_failed_cb by the next progress, under the engine lock. */
  int *pidfd;
  _Atomic unsigned char *dead; /* 1 found dead, 2 reported */
  _Atomic int deaths_pending;
  _Atomic long next_liveness_ms;
  long liveness_ms; /* HCMPI_SHM_LIVENESS_MS */
  unsigned char *base;
  size_t seg_size;
  struct hc_shm_seg_hdr *hdr;
  struct hc_shm_slot *slots;
  hc_shm_ring_t *in;             /* [local peer]: ring peer -> me */
  hc_shm_ring_t *out;            /* [local peer]: ring me -> peer */
  hc_shm_fastbox_end_t *box_in;  /* [local peer]: box peer -> me */
  hc_shm_fastbox_end_t *box_out; /* [local peer]: box me -> peer */
  /* The largest packet the boxes take: HC_SHM_FASTBOX_MAX, or less where
   * cells are smaller, since no packet may pass max_packet (the cell). */
  size_t box_max;
  hc_shm_pool_t *pools; /* [local rank]: its pool; mine sends */
  /* Set by send under the engine lock, read and cleared by a thread about
   * to sleep without it: atomic, relaxed (a stale value only costs a poll
   * or a 1 ms turn). */
  _Atomic unsigned char *out_blocked; /* send found out[peer] full */
  _Atomic int pool_blocked;           /* send found my pool full */
  unsigned char *box_skips;  /* [local peer]: sends left past the box */
  struct shm_turn *turns;    /* [local peer]: shm_eager_max_now's memory */
  unsigned char *cma_off;    /* CMA refused for this peer */
  unsigned char *cma_worked; /* a read from this peer succeeded */
  unsigned char *in_corrupt; /* in[peer] held garbage: no longer read */
  int cma_enabled;
  size_t cma_min;       /* HCMPI_SHM_CMA_MIN: smaller rendezvous stream */
  size_t lone_read_min; /* HCMPI_SHM_LONE_READ_MIN: lone ones read */
  /* HCMPI_SHM_FAR_READ_MIN, and whether this rank's cores and its peer's
   * are far apart (shm_probe_placement): then rendezvous from there on
   * are read. */
  size_t far_read_min;
  /* HCMPI_SHM_FAR_CELL_STREAM_MIN: where far, my pool's fills of this many
   * bytes or more bypass my cache (hc_shm_pool_set_stream_min). */
  size_t far_cell_stream_min;
  /* The pair's placement (hc_shm_placement_choose; UNKNOWN where not
   * judged), which the placement op gives layers above. */
  hc_transport_placement_t placement;
  /* The placement was probed, not forced nor left unknown: the read or
   * stream choice of large rendezvous then follows what each path
   * delivers (rates, [local peer]), from the probe's verdict on. */
  int rates_on;
  struct shm_rates *rates;
  /* The peer's far_now my pool's fills last followed (shm_fills_follow;
   * 0: the start-up verdict's). */
  uint32_t fills_far;
  /* The processor's shm_prefetch_next, off on a crowded node: the out
   * rings' prefetch_next, the in rings' read_published (both measured on
   * the AMD EPYC only: amdp2p23, amdrecv23), and whether an empty poll
   * after a sparse pooled send asks for the pool's next cell (else it
   * demotes the one sent). */
  int prefetch_next;
  /* Waiting for a core (SHM_DEFAULT_RUNQ_MAX): the schedstat of the thread
   * that initialised (-1: none), HCMPI_SHM_STREAM_RUNQ_MAX, and the last
   * sample, taken by one thread at a time (runq_busy). */
  int runq_fd;
  long runq_max;
  atomic_flag runq_busy;
  long runq_next_ms;
  uint64_t runq_run_ns, runq_delay_ns;
  size_t help_min;       /* HCMPI_SHM_CMA_HELP_MIN; 0: never shared */
  size_t eager_max;      /* the processor profile's largest eager message */
  size_t eager_busy_max; /* HCMPI_SHM_EAGER_BUSY_MAX */
  uint32_t help_gen;     /* generation of my last shared read */
  int test_help_die;     /* HCMPI_TEST_SHM_HELP_DIE */
  enum shm_test_read_die test_read_die; /* HCMPI_TEST_SHM_READ_DIE */
  /* Before the segment is mapped, max_packet answers with the shape this
   * rank's environment would choose; a smaller shape found at mapping time
   * then fails connect instead of failing sends later. */
  size_t cell_size_hint;
  size_t cell_size_promised;
  /* The last lookup of shm_local_of: the world rank in the high half,
   * its local rank in the low one, one word so that any thread reads a
   * pair.  Sends go to one peer many times in a row. */
  _Atomic uint64_t last_lookup;
  int *peers; /* the local ranks but mine, ascending */
  int npeers; /* entries of peers; 0 until the segment is mapped */
  /* The peers an empty poll looks at: npeers, or 0 on a crowded node,
   * whose polls read this rank's marks instead (shm_mark_sent). */
  int look_npeers;
  _Atomic uint64_t *sent_marks; /* my slot's sent_mask when crowded */
  uint64_t marks_quiet; /* marked bits whose peers had nothing last look */
  int rr;               /* index in peers of the first one progress polls */
  unsigned idle_polls;  /* progress calls that found nothing, mod 2^32 */
  int bell_fd;          /* my pollable doorbell (eventfd); -1 none */
  int *peer_bell_fd;    /* [local rank]: my copy of its doorbell; -1 none */
  int bell_announced;   /* the debug log said it is used */
  /* More local ranks than online processors: ranks take turns on cores. */
  int crowded;
  /* The cell of my last sparse pooled send, demoted at my next empty poll
   * (demote_len 0: none); with prefetch_next, its length is the guess of
   * the next one's instead. */
  uint32_t demote_index;
  uint32_t demote_len;
  /* HCMPI_SHM_LIGHT_FENCE on this rank and the node not crowded. */
  int light_wanted;
  /* The segment's choice (local rank 0's light_wanted): sleepers run
   * membarrier; and where this rank wants it too and is registered for
   * membarrier's global expedited command, its sends fence against the
   * compiler only (see the top of shm.c).  Taken from the segment so
   * that a rank whose environment differs cannot send light to a peer
   * that sleeps without membarrier. */
  int light_fences;
  int light_send_fence;
} shm_ctx_t;

/* shm.c: what the other files call. */
uint64_t hc_shm_now_ns(void);
/* shm_local_of past its remembered pair: a binary search. */
int hc_shm_local_search(shm_ctx_t *shm, int world_rank);
/* shm_wake's work once p was seen asleep or polling. */
void hc_shm_wake_sleeper(shm_ctx_t *shm, int p);
/* 1 once local rank p's process exited. */
int hc_shm_peer_gone(shm_ctx_t *shm, int p);

/* The local rank of a world rank, -1 when it has none here.  The
 * remembered pair inline: every send asks, and the call was ~6
 * instructions of each (bench/NOTES.md, lat27). */
__attribute__((always_inline)) static inline int shm_local_of(shm_ctx_t *shm,
                                                              int world_rank) {
  uint64_t last = atomic_load_explicit(&shm->last_lookup, memory_order_relaxed);
  if ((uint32_t)(last >> 32) == (uint32_t)world_rank)
    return (int)(uint32_t)last;
  return hc_shm_local_search(shm, world_rank);
}

/* On a crowded node, tells local rank p that this rank published a packet
 * for it: sets this rank's bit in p's slot (sent_mask; the sleeping word
 * the wake-up reads is on that line too) unless it is set already, which
 * while this rank keeps sending it stays (shm_progress_marked): a
 * fetch-or on every send cost 4 ranks on 2 cores ~5 % of their message
 * rate.  The caller has
 * published and fenced: a bit seen set was cleared, if at all, after the
 * packet was visible, and the clearer looks again after clearing.  A mark
 * late or missing delays a packet, never loses it (see the top). */
__attribute__((always_inline)) static inline void shm_mark_sent(shm_ctx_t *shm,
                                                                int p) {
  if (!shm->crowded)
    return;
  _Atomic uint64_t *mask = &shm->slots[p].sent_mask;
  uint64_t bit = (uint64_t)1 << (shm->local_rank & 63);
  if (!(atomic_load_explicit(mask, memory_order_relaxed) & bit))
    atomic_fetch_or_explicit(mask, bit, memory_order_release);
}

/* Wakes local rank p however it sleeps; the caller has published and
 * fenced.  Inline: every send asks, and an awake peer costs the two loads
 * (where the call cost a frame, ~25 instructions a send). */
__attribute__((always_inline)) static inline void shm_wake(shm_ctx_t *shm,
                                                           int p) {
  struct hc_shm_slot *slot = &shm->slots[p];
  if ((atomic_load_explicit(&slot->sleeping, memory_order_relaxed) |
       atomic_load_explicit(&slot->polling, memory_order_relaxed)) != 0)
    hc_shm_wake_sleeper(shm, p);
}

/* Pushes one slot of total bytes (the pieces' sum, at most SHM_INLINE_MAX,
 * the rings' cell size) to peer's ring; on a full ring raises the waiting
 * flag and looks once more, since the consumer may have drained it before
 * it could see the flag.  Inlined: called, its frame cost ~20
 * instructions of every small send. */
__attribute__((always_inline)) static inline hc_status_t
shm_push_slot(shm_ctx_t *shm, int peer, uint32_t tag, const struct iovec *iov,
              int iovcnt, size_t total) {
  hc_shm_ring_t *ring = &shm->out[peer];
  hc_status_t rc = hc_shm_ring_push_sized(ring, tag, iov, iovcnt, total);
  if (rc == HC_ERR_AGAIN) {
    hc_shm_ring_set_waiting(ring);
    rc = hc_shm_ring_push_sized(ring, tag, iov, iovcnt, total);
  }
  atomic_store_explicit(&shm->out_blocked[peer], rc == HC_ERR_AGAIN,
                        memory_order_relaxed);
  return rc;
}

/* 1 while this rank or local rank p lately waited for a core too long. */
static inline int shm_pair_contended(shm_ctx_t *shm, int p) {
  return atomic_load_explicit(&shm->slots[shm->local_rank].runq_contended,
                              memory_order_relaxed) ||
         atomic_load_explicit(&shm->slots[p].runq_contended,
                              memory_order_relaxed);
}

/* shm_cma.c */
/* Serves a SHM_TAG_HELP slot from local rank p (a shared read of my
 * memory): writes the chunks this rank claims into p's memory. */
void hc_shm_cma_help(shm_ctx_t *shm, int p, const void *slot, size_t len);
/* 1 while a local peer reads this rank's memory: a wait polls, not sleeps. */
int hc_shm_cma_being_read(const shm_ctx_t *shm);
/* The transport ops' get and put. */
hc_status_t hc_shm_cma_get(void *ctx, int peer_world_rank, void *local,
                           uint64_t remote_addr, size_t len);
hc_status_t hc_shm_cma_put(void *ctx, int peer_world_rank, const void *local,
                           uint64_t remote_addr, size_t len);

/* shm_placement.c */
/* The pair's placement, forced, probed or unknown; at connect, by both
 * local ranks together. */
hc_transport_placement_t hc_shm_placement_choose(shm_ctx_t *shm);
/* The rndv_measured op: keeps the rates of rendezvous from the far-read
 * threshold on. */
void hc_shm_rndv_measured(void *ctx, int peer_world_rank, size_t bytes,
                          uint64_t ns, int read);
/* Who asks hc_shm_far_reads. */
enum shm_far_choose {
  SHM_FAR_ASK,        /* a sender's question, which changes nothing */
  SHM_FAR_CHOOSE,     /* a rendezvous about to move (get_min): it may take
                         the other way, to measure that way again */
  SHM_FAR_CHOOSE_BUSY /* the same while streams from p still land: it may
                         take the stream way, not the read way, whose
                         measure would share the cores with them */
};
/* 1 when rendezvous from local rank p of far_read_min bytes or more are
 * to be read: the far verdict, or, once measured, the path that delivers
 * more now.  choose: enum shm_far_choose. */
int hc_shm_far_reads(shm_ctx_t *shm, int p, int choose);

#endif
