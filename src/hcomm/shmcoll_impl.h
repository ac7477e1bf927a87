/*
 * The shared segment of one communicator's shared-memory collectives,
 * between shmcoll_seg.c (which makes, agrees on and frees it) and the
 * algorithms: shmcoll.c (the ops and their steps), shmcoll_entry.c (which
 * calls the segment takes, and how they run), shmcoll_small.c (small
 * blocking collectives whose turn has come), shmcoll_rooted.c (gather and
 * scatter) and shmcoll_lanes.c (the persistent forms' lanes).
 *
 * Layout (offsets from the mapping's base):
 *   0                 shmcoll_hdr_t: shape, and the futex the waiters
 *                     sleep on
 *   SHMCOLL_LINE      n x shmcoll_line_t, four cache lines per rank: the
 *                     sequence numbers of the last collective for which
 *                     that rank posted its data, reduced its slice, and
 *                     finished reading everything of it; a spare line;
 *                     the two boxes of a small Allreduce's post (below)
 *   data_offset       the small buffers: (n + 1) x depth of
 *                     SHMCOLL_SMALL bytes (rank r's number d at
 *                     (r x depth + d) x SHMCOLL_SMALL; "rank" n is
 *                     the shared area: the broadcast data), then the
 *                     large ones: (n + 1) x 2 of chunk bytes, alike;
 *                     where the node is crowded, then the medium ones:
 *                     n x SHMCOLL_MEDIUM_DEPTH of
 *                     SHMCOLL_ROOTED_BUFFERED_MAX bytes (a gather's or
 *                     scatter's blocks, below)
 *   lanes_offset      nlanes lanes, each n x shmcoll_line_t and then
 *                     (n + 1) x SHMCOLL_LANE_DEPTH small buffers of the
 *                     lane's own size (lane_small, up to
 *                     HCMPI_COLL_SHM_LANE_BUF): the same layout in small,
 *                     for one persistent collective each (below)
 *   wide_offset       nwide wide lanes (page-aligned, each padded to a
 *                     page; not reserved with the segment: each takes its
 *                     pages at its first claim, hc_shmcoll_wide_pages),
 *                     each n x shmcoll_line_t, then (n + 1) x
 *                     SHMCOLL_LANE_DEPTH small buffers of SHMCOLL_SMALL
 *                     bytes, then (n + 1) x 2 large ones of chunk bytes:
 *                     the segment's own layout, for one persistent
 *                     collective each that fits no lane
 * Collective number s (every chunk of a long one is a number of its own)
 * of at most SHMCOLL_SMALL bytes uses small buffer s % depth, a
 * larger one large buffer s % 2 (a bcast's, every rank's and the shared
 * one of that parity; in a lane every chunk fits a small
 * buffer, s % SHMCOLL_LANE_DEPTH): the next ones fill other buffers while
 * readers still copy out of this one, and a buffer is filled again only
 * once every rank finished the collective that used it before.
 */
#ifndef HC_SHMCOLL_IMPL_H
#define HC_SHMCOLL_IMPL_H

#include <stdatomic.h>
#include <stdint.h>

#include "hcomm/shmcoll.h"
#include "util/shmseg.h"
#include "util/smallmem.h"

#define SHMCOLL_LINE 64
#define SHMCOLL_MAGIC 0x68636d7069636f6cULL /* "hcmpicol" */
/* The first collective's number minus one.  Near the wrap on purpose, so
 * that every job's 256th collective on a communicator crosses it. */
#define SHMCOLL_SEQ0 0xffffff00u

/* A root can run as many small collectives ahead of slow readers as
 * there are small buffers per rank (HCMPI_COLL_SHM_DEPTH): ranks that
 * share a core get there in bursts. */
#define SHMCOLL_SMALL 512

/* Lanes.  A persistent collective cannot take the communicator's numbers
 * when it starts, as the I-forms do: MPI_Startall starts its requests in
 * an order of its own on each rank.  One whose data is at most
 * HCMPI_COLL_SHM_LANE_MAX bytes gets a lane of its own at its _init
 * instead (the _init calls are ordered alike on every rank, so every rank
 * picks the same lane), with its own lines, buffers and numbers; its
 * starts, which every rank makes equally often, number its runs, each
 * run as many numbers as it has chunks of a lane buffer (a pipeline
 * through the lane's SHMCOLL_LANE_DEPTH buffers per rank).  A lane is
 * never given again: a freed request is freed on each rank at a time of
 * its own, so no rank could tell when every rank let go of it.  The first
 * SHMCOLL_LANES persistent collectives of a communicator get lanes; later
 * ones are point-to-point schedules.  The lanes fit SHMCOLL_LANES_BUDGET
 * bytes: on a larger communicator their buffers shrink (halving, from
 * HCMPI_COLL_SHM_LANE_BUF down to SHMCOLL_SMALL, so that data of a few
 * KiB takes a few chunks rather than a schedule), and only then are there
 * fewer lanes.
 *
 * Wide lanes.  A persistent collective that fits no lane (more data than
 * HCMPI_COLL_SHM_LANE_MAX, which in a lane's small buffers would take a
 * synchronisation per few KiB) takes a wide lane at its _init, in the
 * same order as lanes, if one is left: its op, built as the I-form's
 * against the segment, runs unchanged there (the same chunk, the same
 * small buffers' size), on the wide lane's lines and numbers, so it is
 * the blocking form's pipeline, and several persistent collectives active
 * at once never share buffers.  HCMPI_COLL_SHM_WIDE_LANES of them, fewer
 * where they would pass SHMCOLL_WIDE_BUDGET; later ones are point-to-point
 * schedules. */
#define SHMCOLL_LANES 16
/*
 * Lanes given back.  Every persistent collective in a lane holds a claim
 * of it (hc_shmcoll_claim_t), numbered by the lane's claims so far, alike
 * on every rank since the _init calls are ordered alike.  The first claim
 * of each lane moves in at its _init.  Once every lane of its kind has
 * been claimed, a later _init claims the one claimed least (lowest
 * first): that claim waits, its collective running as the point-to-point
 * schedule, until every rank has released the claims before it (freed
 * their requests, in any order and at any time of its own).  Each rank
 * publishes in its line of the lane its first claim not released and how
 * many starts of that claim it has decided; at a start of a waiting
 * claim that is first everywhere, a rank closes the lane's switch word,
 * reads every rank's count and sets the start from which the claim runs
 * in the lane: the largest count of the others (their starts before it
 * went to the schedule) or its own start.  A rank that saw the word open
 * when deciding a start had published its count first, so that start is
 * below the switch; one that saw it closing waits the few loads until it
 * is set, or sets it itself if the closer keeps it closed for long
 * (shmcoll_lanes.c).  From that start on the claim runs in the lane for good, taking
 * the lane's numbers where its last holder left them (every rank started
 * that one equally often).  A claim that some rank released while waiting
 * never moves (SHMCOLL_CLAIM_NEVER): that rank's starts all went to the
 * schedule.  The schedule keeps the steps that run in the lane behind
 * its own and moves them to the front at the switch (nbc.c,
 * hc_nbc_lane_begin).  An alltoallv that leaves its large blocks to
 * messages never waits (those are steps of its schedule beside the
 * lane's); one that reads them does, its repair behind the lane's step.
 */
#define SHMCOLL_CLAIM_NEVER 0xffffffffu
/* The switch word closed by rank r, which is a few loads from setting it.
 * A rank that finds it closed for long (r descheduled, or killed in those
 * loads) sets it itself from the same counts (shmcoll_lanes.c): whichever
 * of the two writes first decides, and both decide alike. */
#define SHMCOLL_CLAIM_CLOSING_FIRST 0xfffe0000u
#define SHMCOLL_CLAIM_CLOSING(r) (SHMCOLL_CLAIM_CLOSING_FIRST + (uint32_t)(r))
/* Two buffers per rank, as the large ones: an Allreduce's run never
 * waits for them (every rank finished the run before last when it starts
 * the next), a Bcast root or a Reduce's other ranks run at most one start
 * ahead of the slowest rank (three with four buffers), and chunks still
 * pipeline; what the budget saves on depth goes to larger buffers, so
 * fewer chunks, each a synchronisation (bench/collective -c
 * allreduce_init on 4 ranks, 4 KiB: 27-28 us through 4 buffers of 2 KiB,
 * 15-18 us through 2 of 4 KiB). */
#define SHMCOLL_LANE_DEPTH 2
/* Deep lanes.  A persistent Bcast or Reduce of a few bytes runs as far
 * ahead of its slowest rank as its lane has buffers, and two are not
 * enough where ranks share a core (4 ranks on 2 cores, 8 B Bcast_init:
 * 3.3x the blocking Bcast, whose ring is 256 deep; bench/NOTES.md,
 * small16, pinit16).  So SHMCOLL_DEEP_LANES more lanes, behind the
 * others, each the bytes of SHMCOLL_DEEP_SPAN lanes, lay them out as
 * cells of SHMCOLL_DEEP_CELL: a ring of SHMCOLL_DEEP_SPAN x 2 x lane_small
 * / SHMCOLL_DEEP_CELL buffers per rank (a power of two, at most
 * SHMCOLL_DEEP_MAX; 256 of 4 KiB lane buffers).  A ring of 128 left a
 * 4-rank Bcast_init 8 B on 2 cores at 1.35x the blocking Bcast, which
 * itself took 1.24x with its ring cut to 128 (bench/NOTES.md, ainit24).
 * Only persistent Bcasts, Reduces, Allreduces, Allgathers and Alltoalls
 * of at most a cell claim them (the last three for the reuse test's sake,
 * shmcoll_lanes.c), and only while one is fresh: every holder of a deep
 * lane has the same geometry. */
#define SHMCOLL_DEEP_LANES 4
#define SHMCOLL_DEEP_CELL SHMCOLL_LINE
#define SHMCOLL_DEEP_MAX 256
#define SHMCOLL_DEEP_SPAN 2
#define SHMCOLL_LANES_BUDGET ((size_t)1 << 20)
/* Two wide lanes of the largest segments (their large buffers near
 * 4 MiB each) fit. */
#define SHMCOLL_WIDE_BUDGET ((size_t)10 << 20)

enum shmcoll_flag { SHMCOLL_POSTED, SHMCOLL_REDUCED, SHMCOLL_DONE };

typedef struct shmcoll_hdr {
  uint64_t magic;
  uint32_t nranks;
  uint32_t chunk;
  uint64_t data_offset;
  uint64_t seg_size;
  uint32_t nlanes;
  uint32_t lane_small;       /* bytes of one small buffer of a lane */
  uint32_t cpus;             /* the node's CPUs, as rank 0 counted them */
  uint32_t depth;            /* small buffers per rank, as rank 0 set it */
  _Atomic uint32_t bell;     /* bumped to wake the sleepers */
  _Atomic uint32_t sleepers; /* ranks asleep, or about to be, on bell */
  uint16_t nwide;            /* wide lanes, as rank 0 made them */
  /* Rank 0's HCMPI_SHM_LIGHT_FENCE, neither the communicator nor the node
   * crowded: every sleeper runs membarrier, so publications may be light
   * (hc_shmcoll_t). */
  uint16_t light;
  /* Wide lane w's pages, bits 2w and 2w + 1 (enum shmcoll_pages): a wide
   * lane takes memory at its first claim, not with the segment. */
  _Atomic uint32_t wide_pages;
} shmcoll_hdr_t;
/* The header is the segment's first line; the lines follow it. */
_Static_assert(sizeof(shmcoll_hdr_t) <= SHMCOLL_LINE,
               "the collectives' header outgrew its line");

enum shmcoll_pages {
  SHMCOLL_PAGES_NONE,
  SHMCOLL_PAGES_TAKING, /* a rank is reserving them */
  SHMCOLL_PAGES_READY,
  SHMCOLL_PAGES_FAILED /* none left: the wide lanes end before this one */
};

/* Which collective an op (hc_shmcoll_op_t.what) runs. */
enum shmcoll_what {
  SHMCOLL_OP_BARRIER,
  SHMCOLL_OP_BCAST,
  SHMCOLL_OP_REDUCE,
  SHMCOLL_OP_ALLGATHER,
  SHMCOLL_OP_ALLTOALL,
  SHMCOLL_OP_REDUCE_SCATTER,
  SHMCOLL_OP_READ_EXCHANGE,
  SHMCOLL_OP_BCAST_READ,
  SHMCOLL_OP_REDUCE_READ,
  SHMCOLL_OP_REDUCE_SCATTER_READ,
  SHMCOLL_OP_GATHER, /* rooted: one number, or a span (shmcoll_rooted_span) */
  SHMCOLL_OP_SCATTER
};

/* Boxes.  A collective in which every rank waits for every post (an
 * Allreduce, Allgather(v), Alltoall, Reduce_scatter) of at most
 * SHMCOLL_BOX_MAX bytes a rank posts its input
 * in a line of its own with the number beside it: a rank that waits for
 * the post then reads one line, which the poster wrote in one go, where a
 * post in a small buffer and a flag in another line cost two lines
 * crossing between the cores one after the other.  Two boxes per rank,
 * by the number's parity: every rank finished number s - 1 when it posts
 * s (the collectives run in their order, one at a time), so a rank that
 * saw every post of s may refill the boxes of s - 1 (shmcoll_box_seen)
 * without reading any rank's done.  The posted flag is still raised after
 * the box, for the waits that sleep (bench/NOTES.md, box22).  A Reduce's
 * and a gather's small posts go in the boxes too (shmcoll_rooted_boxed),
 * read by the root alone: their posters see no post, so each refills a
 * box once every rank's done reached s - 2 (shmcoll_all_done, whose least
 * done is kept: read again only when it is behind). */
#define SHMCOLL_BOX_MAX (SHMCOLL_LINE - sizeof(uint64_t))

typedef struct shmcoll_box {
  /* First, on the line's boundary, as a buffer's data. */
  unsigned char data[SHMCOLL_BOX_MAX];
  _Atomic uint32_t seq; /* the number whose post data holds */
  uint32_t unused;
} shmcoll_box_t;
_Static_assert(sizeof(shmcoll_box_t) == SHMCOLL_LINE, "a box is one line");

typedef struct shmcoll_line {
  _Atomic uint32_t flag[3]; /* by enum shmcoll_flag */
  /* The CPU this rank last published from, plus one (0: not known): a
   * crowded waiter tells from it whether a rank it waits for shares its
   * core (shmcoll.c, shmcoll_owed_here). */
  _Atomic uint32_t cpu;
  /* A bcast or reduction read (shmcoll_entry.c): where this rank's buffer lies
   * (a reduction's input), in the line its posted flag brings along; an
   * allreduce read's result, which the other rank writes half of. */
  uint64_t read_addr, read_len, write_addr;
  /* In a lane's lines (lanes given back, above): this rank's first claim
   * of the lane not yet released and how many of its starts this rank
   * decided (claim << 32 | starts); in rank 0's line, the start from
   * which that claim runs in the lane (claim << 32 | start, or
   * SHMCOLL_CLAIM_CLOSING(r) / SHMCOLL_CLAIM_NEVER). */
  _Atomic uint64_t lane_front, lane_switch;
  unsigned char pad[SHMCOLL_LINE - 4 * sizeof(uint32_t) - 5 * sizeof(uint64_t)];
  /* A line apart from the flags' (which the adjacent-line prefetcher
   * pairs with it), then the boxes, a pair of their own. */
  unsigned char spare[SHMCOLL_LINE];
  _Alignas(SHMCOLL_LINE) shmcoll_box_t box[2];
} shmcoll_line_t;
_Static_assert(sizeof(shmcoll_line_t) == 4 * SHMCOLL_LINE,
               "a rank's lines: flags, spare, two boxes");

/* A communicator that spans nodes: its node and leader communicators
 * (shmcoll_hier.c). */
typedef struct hc_shmcoll_hier hc_shmcoll_hier_t;

typedef struct hc_shmcoll {
  int usable;              /* 0: no segment of its own (maybe a hierarchy) */
  hc_shmcoll_hier_t *hier; /* NULL unless it spans nodes, usefully */
  int rank, size;
  /* The members' world ranks (the communicator's array): whom a
   * publication wakes through their transports. */
  const int *world_ranks;
  /* 1: every member's transport can wake it, so a blocking wait sleeps
   * on the transports, where messages (one-sided traffic its progress
   * serves meanwhile) wake it too; 0: on the segment's bell alone.  -1:
   * not yet known. */
  int wake_by_transport;
  uint32_t seq;  /* the number of the last collective started */
  uint32_t turn; /* the number of the last one this rank finished: the
                    collectives run here in their order, one at a time */
  /* Every rank's done had reached this when this rank last read their
   * lines: a buffer's reuse that it covers needs no other rank's line,
   * which would pull that line over while its owner writes it. */
  uint32_t done_seen;
  /* The small path's (shmcoll_now_ready) last look that found flag
   * seen_kind - 1 (0: none yet) of rank seen_who (or the least of every
   * other rank's) at seen_flag, which it needed at seen_from: the numbers
   * between need no look, so a rank behind another that runs ahead reads
   * that rank's line once per many collectives, not at each. */
  int seen_kind, seen_who;
  uint32_t seen_from, seen_flag;
  /* A read of another rank's memory failed (a pair read, a bcast's;
   * seen by every rank alike): reading it is not allowed here. */
  int reads_off;
  /* More ranks than the node has CPUs (as rank 0 counted them, so alike
   * on every rank): ranks that wait for each other then wait for the
   * scheduler too. */
  int crowded;
  /* Two ranks whose cores the transport judged far apart
   * (hc_engine_peer_placement, asked once at set-up): an Allreduce whose
   * post is boxed then asks for its next box back early
   * (shmcoll_reduce_post_locked). */
  int pair_far;
  /* Where crowded (and on up to 16 ranks), the communicator's segment
   * only: its medium buffers (SHMCOLL_MEDIUM_DEPTH per rank); else NULL. */
  unsigned char *medium;
  /* The segment's light (rank 0's choice, so that ranks whose
   * environments differ still agree): sleepers on the segment's bell run
   * membarrier (util/fence.h); and where this rank's HCMPI_SHM_LIGHT_FENCE
   * is on too and it registered for membarrier, its publications fence
   * against the compiler only. */
  int light_sleep;
  int light_publish;
  /* What the collective under way waits for (flag kind of rank who, or
   * of every rank, to reach want): where a waiter behind it sleeps. */
  int wait_kind, wait_who;
  uint32_t wait_want;
  size_t chunk;
  int depth;          /* small buffers per rank: HCMPI_COLL_SHM_DEPTH, a
                         lane's SHMCOLL_LANE_DEPTH */
  size_t small;       /* bytes of one: SHMCOLL_SMALL, a lane's lane_small */
  size_t small_bytes; /* of all small buffers: where the large ones start */
  unsigned char *base;
  size_t seg_size;
  shmcoll_hdr_t *hdr;
  shmcoll_line_t *lines;
  /* After the lines, the communicator's segment only (NULL in a lane):
   * per rank and small buffer's place in the ring, a line whose first
   * word holds the number of the last scatter whose root posted a block
   * to the rank there (shmcoll_scatter_post), or of the rank's last
   * gather or Reduce post of up to 56 bytes, its data after the word
   * (shmcoll_post_line, shmcoll_rooted_boxed). */
  _Atomic uint32_t *posts;
  unsigned char *data;
  struct hc_shmcoll *lanes; /* the communicator's segment: its lanes */
  int nlanes, lanes_taken; /* all of them, the ordinary ones claimed */
  int ndeep, deep_taken;   /* the last ndeep lanes are deep: claimed */
  size_t lane_small; /* the communicator's segment: its lanes' small */
  struct hc_shmcoll *wide; /* the communicator's segment: its wide lanes */
  int nwide, wide_taken;
  /* A lane: claims made of it (the same count on every rank), and those
   * this rank has not released, oldest first. */
  uint32_t claims;
  hc_shmcoll_claim_t *held, *held_last;
} hc_shmcoll_t;

/* ---- what the algorithms' files share (shmcoll.c, shmcoll_small.c) ----- */

/* Vectors of at most this many bytes are combined whole by each rank
 * that needs the result: one synchronisation instead of two, at a cost of
 * (size - 1) combinations of a few cache lines. */
#define SHMCOLL_WHOLE_MAX ((size_t)4 << 10)

/* Every rank: -1 as the rank a wait names. */
#define SHMCOLL_ALL (-1)

/* Loads of the flag a step waits for before the step gives up: the
 * flag a small collective waits for is often on its way, and a poll of
 * every transport between two looks (the waits' loop, ~100 ns) would be
 * added to its latency. */
#define SHMCOLL_FLAG_LOOKS 64

/* The helpers below are on every small collective's path, several times
 * per call: inline, so that the split into files costs no call. */

/* flag has reached want, modulo 2^32 (sequence numbers wrap). */
static inline int shmcoll_reached(uint32_t flag, uint32_t want) {
  return (int32_t)(flag - want) >= 0;
}

/* Rank's buffer (rank == size: the shared one) for collective number s
 * of len bytes (see above). */
static inline unsigned char *shmcoll_buf(const hc_shmcoll_t *sc, int rank,
                                         uint32_t s, size_t len) {
  if (len <= sc->small)
    return sc->data + ((size_t)rank * (size_t)sc->depth +
                       (s & ((uint32_t)sc->depth - 1))) * /* a power of two */
                          sc->small;
  return sc->data + sc->small_bytes + (2 * (size_t)rank + (s & 1)) * sc->chunk;
}

/* The collective that last used the buffers of collective s of len bytes:
 * every rank must have finished it before they are filled again. */
static inline uint32_t shmcoll_reuse(const hc_shmcoll_t *sc, uint32_t s,
                                     size_t len) {
  return s - (len <= sc->small ? (uint32_t)sc->depth : 2);
}

/* Blocks of a gather or scatter (either form) of up to this many bytes
 * move through a buffer of the collective's number: the sender's (a
 * gather) or the receiver's (a scatter), a small one up to sc->small, a
 * large one above where the segment is not crowded.  As messages, 1 KiB
 * blocks on 2 ranks went through the schedule, the matching and an
 * unexpected message's heap copy (~2,200-2,900 instructions a call
 * against ~800 at 8 bytes): 0.42-0.47 us against 0.35-0.39 through the
 * buffers; at 2 KiB alike, at 4 KiB the messages won (0.48-0.51 against
 * 0.55-0.64).  On a crowded node the large buffers' two numbers pace the
 * senders to the root, who share its cores: 4 ranks on 2 cores, 1 KiB,
 * 2.2-2.6 us against the messages' 1.0-1.2 (bench/NOTES.md, scat18); a
 * fixed form's blocks there span small buffers (shmcoll_rooted_span).
 * Larger ones are messages, or read in place by a gather's root
 * (hc_shmcoll_rooted_reads). */
#define SHMCOLL_ROOTED_BUFFERED_MAX ((size_t)2 << 10)

/* Medium buffers: where the node is crowded (sc->medium), a gather's or
 * scatter's blocks above a small buffer and up to
 * SHMCOLL_ROOTED_BUFFERED_MAX go through a ring of SHMCOLL_MEDIUM_DEPTH
 * buffers of that size per rank: one number a call, the writer waiting
 * for every rank's done of s - SHMCOLL_MEDIUM_DEPTH (only the writer and
 * the reader need to know the block's size, so the v-forms' blocks too).
 * The large buffers' two numbers paced the senders to a root that shares
 * their cores (2.2-2.6 us against messages' 1.0-1.2, 4 ranks on 2 cores,
 * 1 KiB), and messages hand the core over per block (bench/NOTES.md,
 * scat18, coll8 and coll22). */
#define SHMCOLL_MEDIUM_DEPTH 64

/* 1 when a block of len bytes moves through the buffer
 * shmcoll_rooted_buf(sc, its rank, s, len); both of its ends know len,
 * and sc->crowded and sc->medium are alike on every rank (the header's
 * CPUs). */
static inline int shmcoll_rooted_buffered(const hc_shmcoll_t *sc, size_t len) {
  return len > 0 &&
         (len <= sc->small ||
          (len <= SHMCOLL_ROOTED_BUFFERED_MAX &&
           (sc->medium != NULL || (!sc->crowded && len <= sc->chunk))));
}

/* Rank's buffer for a gather's or scatter's block of len bytes of
 * collective number s (shmcoll_rooted_buffered): a small one, a medium
 * one where the node is crowded, else a large one. */
static inline unsigned char *
shmcoll_rooted_buf(const hc_shmcoll_t *sc, int rank, uint32_t s, size_t len) {
  if (len <= sc->small || sc->medium == NULL)
    return shmcoll_buf(sc, rank, s, len);
  return sc->medium + ((size_t)rank * SHMCOLL_MEDIUM_DEPTH +
                       (s & (SHMCOLL_MEDIUM_DEPTH - 1))) *
                          SHMCOLL_ROOTED_BUFFERED_MAX;
}

/* Numbers a gather or scatter takes: one, but on a crowded node a fixed
 * form's blocks above a small buffer and up to SHMCOLL_ROOTED_BUFFERED_MAX
 * take a span of consecutive numbers whose small buffers hold them piece
 * by piece (shmcoll_span_piece), the flags raised at the last number.
 * The large buffers' two numbers paced the senders to a root that shares
 * their cores, and messages cost hand-offs of the core per block; the
 * small buffers' ring lets senders run ahead by depth / span collectives
 * (4 ranks on 2 cores, Gather 1 KiB 1.7-2.6 -> 0.30-0.42 us, Scatter
 * 1.0-1.2 -> 0.24-0.42; bench/NOTES.md, coll8).  Not a v-form: a rank
 * does not know the others' blocks, so every v-form would take the
 * widest span, and its small blocks the shallower ring (Gatherv 8 B
 * 0.15 -> 0.22 us, as with HCMPI_COLL_SHM_DEPTH=64); its blocks take the
 * medium buffers instead (above).  The fixed forms keep their spans: through
 * the medium buffers (64, 128 or 256 deep) they were slower at 1 KiB, 4
 * ranks on 2 cores: Gather 0.34 -> 0.38-0.49 us, Scatter 0.24 -> 0.43-0.49
 * (bench/NOTES.md, coll22). */
static inline uint32_t shmcoll_rooted_span(const hc_shmcoll_t *sc, int vform,
                                           size_t len) {
  if (len <= sc->small || vform || !sc->crowded || /* the usual first */
      len > SHMCOLL_ROOTED_BUFFERED_MAX)
    return 1;
  return (uint32_t)((len + sc->small - 1) / sc->small);
}

/* Piece i (sc->small bytes, the last one shorter) of rank's block of len
 * bytes of a gather or scatter whose span of numbers ends at s: the small
 * buffer of number s - span + 1 + i; with a span of one, the block's
 * buffer, whole. */
static inline unsigned char *shmcoll_span_piece(const hc_shmcoll_t *sc,
                                                int rank, uint32_t s,
                                                uint32_t span, size_t i,
                                                size_t len) {
  if (span == 1)
    return shmcoll_rooted_buf(sc, rank, s, len);
  return shmcoll_buf(sc, rank, s - span + 1 + (uint32_t)i, sc->small);
}

/* The bytes of piece i (i x sc->small below len) of a block of len. */
static inline size_t shmcoll_span_piece_len(const hc_shmcoll_t *sc,
                                            uint32_t span, size_t i,
                                            size_t len) {
  if (span == 1)
    return len;
  size_t from = i * sc->small;
  return len - from < sc->small ? len - from : sc->small;
}

/* 1 when a block of len bytes of a gather or scatter whose span is span
 * moves through buffers: its span's, or one (shmcoll_rooted_buffered). */
static inline int shmcoll_rooted_spanned(const hc_shmcoll_t *sc, uint32_t span,
                                         size_t len) {
  if (span > 1)
    return len > 0 && len <= (size_t)span * sc->small;
  return shmcoll_rooted_buffered(sc, len);
}

/* The collective every rank must have finished before blocks of up to
 * widest bytes fill their buffers of number s: the later of the small
 * buffers' and the large (or medium) ones' (a v-form's blocks may take
 * both). */
static inline uint32_t shmcoll_rooted_reuse(const hc_shmcoll_t *sc, uint32_t s,
                                            size_t widest) {
  uint32_t small = shmcoll_reuse(sc, s, sc->small);
  uint32_t large = widest > sc->small && sc->medium != NULL
                       ? s - SHMCOLL_MEDIUM_DEPTH
                       : shmcoll_reuse(sc, s, widest);
  return shmcoll_reached(large, small) ? large : small;
}

/* How a post raises this rank's flags.  Each publication that others
 * may wait on costs a fence, and the line's transfer to them; so a post
 * that no other rank waits on is not announced, and a rank that reads
 * nothing of the collective raises done with its post, in one. */
enum shmcoll_post_how {
  SHMCOLL_POST_ANNOUNCED, /* posted, for the others to wait on */
  SHMCOLL_POST_QUIET,     /* posted, for this rank alone: a rooted whole
                             reduction's root, which alone combines */
  SHMCOLL_POST_FINAL      /* posted and done: a rooted whole reduction's
                             other ranks, a gather's senders, which get no
                             result */
};

/* How a whole reduction's post of this rank is raised (root -1: an
 * Allreduce; out NULL: no result here). */
static inline int shmcoll_reduce_how(int root, const void *out) {
  return root < 0      ? SHMCOLL_POST_ANNOUNCED
         : out != NULL ? SHMCOLL_POST_QUIET
                       : SHMCOLL_POST_FINAL;
}

/* Wakes the ranks asleep on the segment (shmcoll_publish saw some). */
void hc_shmcoll_ring(hc_shmcoll_t *sc);

/* Notes in this rank's line the CPU it runs on (a crowded node's waiters
 * ask it, shmcoll.c). */
void hc_shmcoll_note_cpu(hc_shmcoll_t *sc);

/* Raises this rank's flag to s and wakes the sleepers (Dekker with
 * shmcoll.c's sleeps, light where sc->light_publish: either the sleeper
 * sees the flag, or this sees it counted and rings). */
static inline void shmcoll_publish(hc_shmcoll_t *sc, int kind, uint32_t s) {
  if (sc->crowded) /* in the line that the flag takes along anyway */
    hc_shmcoll_note_cpu(sc);
  atomic_store_explicit(&sc->lines[sc->rank].flag[kind], s,
                        memory_order_release);
  /* A full fence waits here for the flag's line, which the waiter last
   * read, to cross to this core, once per collective (2-rank Reduce 8 B
   * 0.12-0.15 -> 0.07-0.10 us, bench/NOTES.md, reduce16). */
  if (sc->light_publish)
    atomic_signal_fence(memory_order_seq_cst);
  else
    atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&sc->hdr->sleepers, memory_order_relaxed) != 0)
    hc_shmcoll_ring(sc);
}

/* Raises this rank's flags for its post of number s, as how says. */
static inline void shmcoll_post_raise(hc_shmcoll_t *sc, uint32_t s, int how) {
  _Atomic uint32_t *flag = sc->lines[sc->rank].flag;
  if (how == SHMCOLL_POST_QUIET) {
    atomic_store_explicit(&flag[SHMCOLL_POSTED], s, memory_order_relaxed);
    return;
  }
  if (how == SHMCOLL_POST_FINAL) /* published by the store below */
    atomic_store_explicit(&flag[SHMCOLL_DONE], s, memory_order_relaxed);
  shmcoll_publish(sc, SHMCOLL_POSTED, s);
}

/* 1 when every rank's done reached want.  The least of them is kept
 * (sc->done_seen, it only grows): a root that runs ahead of its readers,
 * testing whether they finished with a buffer several collectives back,
 * then reads their lines once per few collectives rather than at each,
 * and those lines stay in their owners' caches while they write them. */
static inline int shmcoll_all_done(hc_shmcoll_t *sc, uint32_t want) {
  if (shmcoll_reached(sc->done_seen, want))
    return 1;
  uint32_t least = atomic_load_explicit(&sc->lines[0].flag[SHMCOLL_DONE],
                                        memory_order_acquire);
  for (int r = 1; r < sc->size; r++) {
    uint32_t f = atomic_load_explicit(&sc->lines[r].flag[SHMCOLL_DONE],
                                      memory_order_acquire);
    if (!shmcoll_reached(f, least))
      least = f;
  }
  if (shmcoll_reached(least, sc->done_seen))
    sc->done_seen = least;
  return shmcoll_reached(least, want);
}

/* 1 when a post of bytes (a chunk's slot: the same on every rank) of a
 * collective in which every rank waits for every post (an Allreduce
 * combined whole, an Allgather(v), an Alltoall of equal blocks, a
 * Reduce_scatter(_block)) goes in the boxes. */
static inline int shmcoll_box_fits(size_t bytes) {
  return bytes > 0 && bytes <= SHMCOLL_BOX_MAX;
}

/* Where a post lies: a buffer (shmcoll_buf), the poster's box (one of
 * two, by the number's parity), or the line of the poster's post word of
 * its number (shmcoll_post_word: a ring as deep as the small buffers,
 * whose words only numbers ever fill).  A post in a box or a post line
 * (a "boxed" one) holds its data and its number in one line. */
enum shmcoll_where { SHMCOLL_IN_BUFFER, SHMCOLL_IN_BOX, SHMCOLL_IN_POST_LINE };

/* 1 when a rooted post of len bytes (a Reduce's vector, a gather's
 * block; its poster and the root both know len) goes in the line of the
 * poster's post word, which the root alone reads (a scatter's block the
 * other way, in its reader's, shmcoll_scatter_block): the root then polls a
 * line its poster writes once per post, where a root that looked at the
 * poster's flag line and then its buffer fell into lockstep with it on
 * Intel, a call taking twice as long by the library's code layout alone
 * (2-rank Reduce and Gather 8 B 0.05 or 0.09 us, LTO or not).  Not in a
 * box: posters then run ahead of the root by two numbers only, and on
 * AMD that lost (Reduce 8 B 0.055 -> 0.071 us, Gather 0.055 -> 0.079);
 * the post lines are as deep as the ring (bench/NOTES.md, rooted23).  Not
 * in a lane (no post words) nor on a crowded node (crowd23's). */
static inline int shmcoll_rooted_boxed(const hc_shmcoll_t *sc, size_t len) {
  return shmcoll_box_fits(len) && sc->posts != NULL && !sc->crowded;
}

/* Where a reduction's chunk of bytes, combined whole, is posted: an
 * Allreduce's (root -1) in the boxes, a Reduce's in the buffers.  A
 * Reduce's post in the post lines (as a gather's) was slower on AMD: 2
 * ranks, 8 B, LTO, 4 interleaved rounds, 0.13-0.16 us against 0.10 in
 * the buffers (bench/NOTES.md, "Lead, fourteenth session"); the post
 * lines' path takes any post, so a Reduce could use them again where
 * they win. */
static inline int shmcoll_reduce_where(const hc_shmcoll_t *sc, int root,
                                       size_t bytes) {
  (void)sc;
  if (root < 0)
    return shmcoll_box_fits(bytes) ? SHMCOLL_IN_BOX : SHMCOLL_IN_BUFFER;
  return SHMCOLL_IN_BUFFER;
}

/* Rank's box for collective number s. */
static inline shmcoll_box_t *shmcoll_box(const hc_shmcoll_t *sc, int rank,
                                         uint32_t s) {
  return &sc->lines[rank].box[s & 1];
}

/* Words apart of two posts (shmcoll_scatter_post): a line, so that a
 * reader waiting for one does not hold the line that the root writes the
 * next one in.  Packed words (1 apart) brought the lockstep back: 2-rank
 * Scatterv 8 B 0.09 -> 0.13 us (bench/NOTES.md, scat19). */
#define SHMCOLL_POST_STRIDE (SHMCOLL_LINE / sizeof(uint32_t))

/* Rank's post word for collective number s. */
static inline _Atomic uint32_t *shmcoll_post_word(const hc_shmcoll_t *sc,
                                                  int rank, uint32_t s) {
  size_t at = (size_t)rank * (size_t)sc->depth +
              (s & ((uint32_t)sc->depth - 1)); /* a power of two */
  return sc->posts + at * SHMCOLL_POST_STRIDE;
}

/* A post word's line: the word, then a boxed post's data. */
typedef struct shmcoll_post_line {
  _Atomic uint32_t seq;
  uint32_t unused;
  unsigned char data[SHMCOLL_BOX_MAX];
} shmcoll_post_line_t;
_Static_assert(sizeof(shmcoll_post_line_t) ==
                   SHMCOLL_POST_STRIDE * sizeof(uint32_t),
               "a post line is the post words' stride");

static inline shmcoll_post_line_t *shmcoll_post_line(const hc_shmcoll_t *sc,
                                                     int rank, uint32_t s) {
  return (shmcoll_post_line_t *)shmcoll_post_word(sc, rank, s);
}

/* Where a scatter's block of len bytes for rank, of collective number s
 * (one number, not a span), lies: where it is boxed
 * (shmcoll_rooted_boxed, which both its ends decide alike), in the data
 * of rank's post line, beside the word the root posts it with
 * (shmcoll_scatter_post), so that its reader takes one line from the root
 * rather than the word's and the buffer's; else in rank's buffer. */
static inline unsigned char *shmcoll_scatter_block(const hc_shmcoll_t *sc,
                                                   int rank, uint32_t s,
                                                   size_t len) {
  return shmcoll_rooted_boxed(sc, len) ? shmcoll_post_line(sc, rank, s)->data
                                       : shmcoll_rooted_buf(sc, rank, s, len);
}

/* The number word and the data of rank's boxed post of number s (where:
 * SHMCOLL_IN_BOX or SHMCOLL_IN_POST_LINE). */
static inline _Atomic uint32_t *
shmcoll_boxed_seq(const hc_shmcoll_t *sc, int rank, uint32_t s, int where) {
  return where == SHMCOLL_IN_BOX ? &shmcoll_box(sc, rank, s)->seq
                                 : &shmcoll_post_line(sc, rank, s)->seq;
}

static inline unsigned char *
shmcoll_boxed_data(const hc_shmcoll_t *sc, int rank, uint32_t s, int where) {
  return where == SHMCOLL_IN_BOX ? shmcoll_box(sc, rank, s)->data
                                 : shmcoll_post_line(sc, rank, s)->data;
}

/* Where rank r's post of collective number s of len bytes lies (where:
 * as it was posted). */
static inline const unsigned char *shmcoll_posted_at(const hc_shmcoll_t *sc,
                                                     int r, uint32_t s,
                                                     size_t len, int where) {
  return where != SHMCOLL_IN_BUFFER ? shmcoll_boxed_data(sc, r, s, where)
                                    : shmcoll_buf(sc, r, s, len);
}

/* The collective every rank must have finished before this rank's box or
 * post line of number s is filled again: the last one to use it. */
static inline uint32_t shmcoll_box_reuse(const hc_shmcoll_t *sc, uint32_t s,
                                         int where) {
  return where == SHMCOLL_IN_BOX ? s - 2 : s - (uint32_t)sc->depth;
}

/* Marks this rank's boxed post of number s, its data written, as that
 * number's post (before the flag that announces it). */
static inline void shmcoll_box_seal(hc_shmcoll_t *sc, uint32_t s, int where) {
  atomic_store_explicit(shmcoll_boxed_seq(sc, sc->rank, s, where), s,
                        memory_order_release);
}

/* This rank's post of bytes of in as number s, in its box or post line
 * (the reuse tested). */
static inline void shmcoll_box_post(hc_shmcoll_t *sc, uint32_t s,
                                    const unsigned char *in, size_t bytes,
                                    int where) {
  if (bytes > 0) /* an Allgatherv's empty block: in may be NULL */
    hc_copy_small(shmcoll_boxed_data(sc, sc->rank, s, where), in, bytes);
  shmcoll_box_seal(sc, s, where);
}

/* 1 when rank r's box or post line holds its post of number s.  It holds
 * s or a number before it (shmcoll_box_reuse), never a later one nor data:
 * hence the equality, which a word formatted SHMCOLL_SEQ0 fails too. */
static inline int shmcoll_box_posted(const hc_shmcoll_t *sc, int r, uint32_t s,
                                     int where) {
  return atomic_load_explicit(shmcoll_boxed_seq(sc, r, s, where),
                              memory_order_acquire) == s;
}

/* 1 when every other rank's boxed post of number s is there. */
static inline int shmcoll_boxes_posted(const hc_shmcoll_t *sc, uint32_t s,
                                       int where) {
  for (int r = 0; r < sc->size; r++)
    if (r != sc->rank && !shmcoll_box_posted(sc, r, s, where))
      return 0;
  return 1;
}

/* Every rank's post of number s was seen: every rank finished s - 1
 * before it posted (the collectives run in their order), which is what
 * its done would say. */
static inline void shmcoll_box_seen(hc_shmcoll_t *sc, uint32_t s) {
  if (shmcoll_reached(s - 1, sc->done_seen))
    sc->done_seen = s - 1;
}

/* A scatter's root, once rank's block of collective number s (one
 * number, not a span) is in rank's buffer: posts it in a word of its
 * own, beside the flags it publishes after.  A reader that waits there
 * (shmcoll_scatter_posted) rather than at the root's posted flag leaves
 * that line with the root: a root a few instructions slower than its
 * reader otherwise fell into lockstep with it, each publication waiting
 * for the flag's line to come back (2-rank Scatterv 8 B 0.15 against
 * Scatter's 0.06 us; bench/NOTES.md, scat19). */
static inline void shmcoll_scatter_post(hc_shmcoll_t *sc, int rank,
                                        uint32_t s) {
  if (sc->posts != NULL)
    atomic_store_explicit(shmcoll_post_word(sc, rank, s), s,
                          memory_order_release);
}

/* 1 when this rank's block of scatter number s was posted (within a few
 * looks, one on a crowded node; as shmcoll_now_ready).  Its own word
 * holds only s or an older scatter's number (the ring: a root posts
 * number s here only once this rank finished s - depth). */
static inline int shmcoll_scatter_posted(const hc_shmcoll_t *sc, uint32_t s) {
  if (sc->posts == NULL)
    return 0;
  _Atomic uint32_t *word = shmcoll_post_word(sc, sc->rank, s);
  int looks = sc->crowded ? 1 : SHMCOLL_FLAG_LOOKS;
  for (int i = 0; i < looks; i++)
    if (atomic_load_explicit(word, memory_order_acquire) == s)
      return 1;
  return 0;
}

/* dst = slot[0] op (slot[1] op (... slot[size-1])) over count elements from
 * element first on, of collective number s; own (not NULL, not dst): this
 * rank's input, read instead of its slot.  where: where the posts lie
 * (enum shmcoll_where). */
void hc_shmcoll_combine(const hc_shmcoll_t *sc, uint32_t s, size_t len,
                        void *dst, size_t first, size_t count,
                        const hcomm_reduce_op_t *op, const unsigned char *own,
                        int boxed);

/* Small blocking collectives whose turn has come (shmcoll_small.c): a
 * call of one buffer (up to 2 KiB, shmcoll_small.c) that no I-form of the
 * communicator still precedes, whose flags are already where its step needs
 * them, does the step's work straight from the arguments, under the lock, on
 * the numbers, buffers and flags its op would use.  Each returns 1: done; -1:
 * not taken, nothing done, unlocked; 0: this rank posted (its op's phase 0, as
 * collective number sc->seq + 1), the lock held, for the op's path to go on
 * from its next phase. */
/* Bcast (never 0: a root that posted is done). */
int hc_shmcoll_bcast_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                         unsigned char *buf, size_t bytes, int root);
/* Reduce, root -1: Allreduce. */
int hc_shmcoll_reduce_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                          const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *rop, int root);
/* Allgather (in: this rank's block), Allgatherv (counts and displs; bytes
 * the largest block), or Alltoall (alltoall 1; in: its blocks), of
 * blocks of bytes. */
int hc_shmcoll_exchange_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                            const unsigned char *in, unsigned char *out,
                            size_t bytes, const size_t *counts,
                            const size_t *displs, int alltoall);
/* Alltoallv of the tables, blocks in parts of part bytes of the large
 * buffer (sbytes, sdispls: rbytes, rdispls in place). */
int hc_shmcoll_alltoallv_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                             const unsigned char *in, const size_t *sbytes,
                             const size_t *sdispls, unsigned char *out,
                             const size_t *rbytes, const size_t *rdispls,
                             size_t part);
/* Reduce_scatter_block of each elements a rank, or Reduce_scatter of
 * counts; total: the elements of the whole vector. */
int hc_shmcoll_reduce_scatter_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                  const void *sendbuf, void *recvbuf,
                                  const size_t *counts, size_t each,
                                  size_t total, const hcomm_reduce_op_t *rop);

/* Reserves (and formats) the pages of sc's wide lane w at its first
 * claim, once for every rank (the others wait for the first); 1 when they
 * are there, 0 (on every rank alike) when memory ran out. */
int hc_shmcoll_wide_pages(hc_shmcoll_t *sc, int w);

/* Bytes of each rank's slot that chunk at of op takes: the same on every
 * rank, so that all of them pick the same buffers (shmcoll.c). */
size_t hc_shmcoll_slot_bytes(const hc_shmcoll_op_t *op, uint32_t at);

/* Publishes in lane this rank's first claim not released and its starts
 * decided so far (none held: the number of the lane's next claim). */
void hc_shmcoll_lane_publish(hc_shmcoll_t *lane);

/* comm's segment for a collective of bytes (the largest message one rank
 * puts in, or 0), made at the first that may use one (or, where
 * communicators come and go, after HCMPI_COLL_SHM_AFTER such); NULL: this one
 * takes the schedule.  *rc is HC_OK, or the failure met while agreeing on
 * a new segment (this collective then fails with it). */
hc_shmcoll_t *hc_shmcoll_get(hcomm_comm_t *comm, size_t bytes, hc_status_t *rc);

/* comm's segment when it has one already and a collective of bytes may
 * use it (the I-forms: they never make one); else NULL. */
hc_shmcoll_t *hc_shmcoll_made(hcomm_comm_t *comm, size_t bytes);

/* Where a rank's block for others to read lies (a pair's block for the
 * other, a bcast root's buffer), in its small buffer of the collective;
 * a reader's failed is raised before its done. */
typedef struct shmcoll_read_block {
  int32_t failed;
  uint64_t addr;
  uint64_t len;
} shmcoll_read_block_t;

/* Bytes of the other rank's input a two-rank reduce's root reads at a
 * time: each piece is combined while it is still in this core's cache,
 * and each read is a system call of its own (2 ranks, 64 KiB vector, in
 * pieces of 4 / 16 / 64 / 256 KiB: 9.6-10.0 / 5.3-5.6 / 4.5 / 4.9-5.0
 * us; 256 KiB vector 287-330 / 21-22 / 17 / 17 us; bench/NOTES.md,
 * coll16k). */
#define SHMCOLL_REDUCE_READ_PIECE ((size_t)64 << 10)

/* op->read_failed when a read failed after the root's in-place result
 * was partly combined: its input is gone, so no other path can run. */
#define SHMCOLL_READ_FAILED_ALTERED 2

/* 1 when flag kind of who (or of every rank: SHMCOLL_ALL) reached want;
 * else 0, and the condition is what the segment's waiters sleep on. */
int hc_shmcoll_need(hc_shmcoll_t *sc, int kind, int who, uint32_t want);

/* Reads of other ranks' memory worked so far on sc (the same on every
 * rank: a failed read turns them off on all alike). */
int hc_shmcoll_reads_work(const hc_shmcoll_t *sc);

/* Reads len bytes at from in world rank's memory into to, through the
 * transport that reaches it (its single-copy get).  0: it cannot (another
 * transport, no permission to read another process, the process gone). */
int hc_shmcoll_read_peer(int world, unsigned char *to, uint64_t from,
                         size_t len);

/* The read paths' steps of collective number s (shmcoll_read.c): 1 when
 * op's chunk is done, 0 when it waits (sc->wait_* say for what). */
int hc_shmcoll_read_exchange_step(hc_shmcoll_op_t *op, uint32_t s);
int hc_shmcoll_bcast_read_step(hc_shmcoll_op_t *op, uint32_t s);
int hc_shmcoll_reduce_read_step(hc_shmcoll_op_t *op, uint32_t s);
int hc_shmcoll_allreduce_read_step(hc_shmcoll_op_t *op, uint32_t s);

/* A gather's blocks of HCMPI_COLL_SHM_ROOTED_READ_MIN and more (up to
 * 64 KiB) read in place by the root (op->rooted_failed; shmcoll_read.c),
 * collective number s.  Each sender names its block in its small buffer
 * of number s and keeps it until the root is done; the root reads it from
 * there, or marks it failed there before its done, so that both ends move
 * it as a message after the op.  A sender through an accessor names none
 * (SHMCOLL_ROOTED_NO_ADDR): its block is a message, posted before the op
 * by the sender, after it by the root. */
#define SHMCOLL_ROOTED_NO_ADDR UINT64_MAX
int hc_shmcoll_rooted_reads(const hc_shmcoll_op_t *op, size_t len);
/* A sender of a block read in place: names it, and keeps it until the
 * root is done.  1 when done, 0 when it waits. */
int hc_shmcoll_gather_read_send(hc_shmcoll_op_t *op, uint32_t s);
/* The root, every rank posted: reads block r (len bytes at at of its
 * output) from where its sender named it. */
void hc_shmcoll_gather_read_block(hc_shmcoll_op_t *op, uint32_t s, int r,
                                  size_t at, size_t len);

/* The segment for a blocking collective of bytes, or NULL (*rc:
 * HC_ERR_NOT_SUPPORTED, or the failure met while making it).  A lost
 * member is found by hc_shmcoll_run, under the lock it takes anyway. */
hc_shmcoll_t *hc_shmcoll_enter(hcomm_comm_t *comm, size_t bytes,
                               hc_status_t *rc);

/* op as a blocking collective what of nchunks chunks on sc, its other
 * fields zero. */
void hc_shmcoll_op_init(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                        hcomm_comm_t *comm, int what, uint32_t nchunks);

/* The blocking forms: starts op and waits for it, behind the I-forms
 * started before it on this communicator (progress moves those). */
hc_status_t hc_shmcoll_run(hc_shmcoll_op_t *op);

/* The rest of a blocking op, started (its numbers taken) and under the
 * engine lock, which it drops. */
hc_status_t hc_shmcoll_finish_locked(hc_shmcoll_op_t *op);

/* The table of an alltoall that reads its large blocks (op->read_large),
 * in the rank's small buffer of the collective (its slot is in a large
 * one): entry j names where this rank's block for rank j lies, and says
 * whether this rank's read of its block from rank j failed. */
static inline shmcoll_read_block_t *
shmcoll_large_table(const hc_shmcoll_t *sc, int rank, uint32_t s) {
  return (shmcoll_read_block_t *)shmcoll_buf(sc, rank, s, 0);
}

/* 1 when an alltoall's block of len to or from another rank is read
 * straight from its sender's buffer rather than moved through a part. */
static inline int shmcoll_block_read(const hc_shmcoll_op_t *op, size_t len) {
  return op->read_large && len > op->step;
}

/* Rank r's block in a table of sizes or displacements (NULL: blocks of
 * each bytes, back to back).  Inline: a small gather's or scatter's root
 * asks them for every rank on its straight step (a call each, ~24 of its
 * ~800 instructions on two ranks; bench/NOTES.md, scat18b). */
static inline size_t hc_shmcoll_block_len(const size_t *counts, size_t each,
                                          int r) {
  return counts != NULL ? counts[r] : each;
}

static inline size_t hc_shmcoll_block_at(const size_t *displs, size_t each,
                                         int r) {
  return displs != NULL ? displs[r] : (size_t)r * each;
}

/* A gather's or scatter's sides (shmcoll_rooted.c): n bytes at off of
 * op's input into to, or from from into op's output at off, through the
 * side's accessor where it has one; the root's own block of n bytes from
 * from of its input to to of its output (nothing in place). */
void hc_shmcoll_rooted_get(const hc_shmcoll_op_t *op, size_t off, void *to,
                           size_t n);
void hc_shmcoll_rooted_put(const hc_shmcoll_op_t *op, size_t off,
                           const void *from, size_t n);
void hc_shmcoll_rooted_own(const hc_shmcoll_op_t *op, size_t from, size_t to,
                           size_t n);

/* A blocking Gather(v) (gather) or Scatter(v) whose turn has come on sc
 * and whose blocks at this rank all go through buffers
 * (shmcoll_rooted_buffered; shmcoll_small.c): the op's steps in one go,
 * straight from the arguments.  in, out, mine (this rank's block, or
 * every block where counts is NULL), counts and displs as the op's (NULL
 * in or out at the root: in place).  HC_ERR_NOT_SUPPORTED, nothing done,
 * where a flag it needs is not there yet, a rank's block is a message's
 * (above SHMCOLL_ROOTED_BUFFERED_MAX) or a sender's is empty: the op's path
 * then runs it. */
hc_status_t hc_shmcoll_rooted_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                  int gather, const unsigned char *in,
                                  unsigned char *out, size_t mine,
                                  const size_t *counts, const size_t *displs,
                                  int root);
/* The same for a fixed form whose blocks take a span of span numbers
 * (shmcoll_rooted_span, above one). */
hc_status_t hc_shmcoll_rooted_span_now(hc_shmcoll_t *sc, hcomm_comm_t *comm,
                                       int gather, const unsigned char *in,
                                       unsigned char *out, size_t mine,
                                       int root, uint32_t span);

/* *failed: 1 on every rank of comm when it was 1 on any (a schedule
 * allreduce). */
hc_status_t hc_shmcoll_vote(hcomm_comm_t *comm, int32_t *failed);

/* On a communicator that spans nodes (every member calls it alike): its
 * state with a hierarchy, or NULL (no node holds two of its members, or
 * *rc says what failed). */
hc_shmcoll_t *hc_shmcoll_hier_setup(hcomm_comm_t *comm, hc_status_t *rc);
/* With the engine lock held (the communicator is being destroyed). */
void hc_shmcoll_hier_free(hc_shmcoll_hier_t *h);
/* As the hc_shmcoll_* calls, over the hierarchy (root -1: allreduce). */
hc_status_t hc_shmcoll_hier_barrier(hcomm_comm_t *comm);
hc_status_t hc_shmcoll_hier_bcast(void *buf, size_t bytes, int root,
                                  hcomm_comm_t *comm);
hc_status_t hc_shmcoll_hier_reduce(const void *sendbuf, void *recvbuf,
                                   size_t count, const hcomm_reduce_op_t *op,
                                   int root, hcomm_comm_t *comm);

#endif /* HC_SHMCOLL_IMPL_H */
