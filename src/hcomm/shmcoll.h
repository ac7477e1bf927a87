/*
 * Collectives of the ranks of one node through one shared segment per
 * communicator (shmcoll.c, shmcoll_seg.c), and of communicators that span
 * nodes through a node communicator of each node and the node leaders'
 * schedules (shmcoll_hier.c), for the blocking Barrier, Bcast, Reduce and
 * Allreduce of the engine (coll.c), whose arguments the MPI face has
 * already made contiguous host bytes; and, on one node only, Allgather(v),
 * Alltoall(v) and Reduce_scatter(_block).  The I-forms run the same
 * algorithms as one step of their schedule (hc_shmcoll_i*_prepare below).
 * The persistent forms of at most HCMPI_COLL_SHM_LANE_MAX bytes run in a
 * lane of the segment of their own, chunk by chunk through its buffers,
 * larger ones (and those above one lane buffer, while any is left) in a
 * wide lane, the segment's layout again, in its chunks
 * (hc_shmcoll_op_claim_lane, shmcoll_impl.h says why); the others stay
 * point-to-point schedules, whose tag, fixed at their _init, keeps their
 * messages apart.
 *
 * Each call either runs the collective and returns its status, or returns
 * HC_ERR_NOT_SUPPORTED and does nothing, and then the caller runs the
 * schedule.  Which one happens depends only on what every rank has alike
 * (the communicator, the byte count, the op's element size, the
 * environment), so every rank takes the same path.  Invalid arguments are
 * HC_ERR_NOT_SUPPORTED too: the schedule's checks report them.
 */
#ifndef HC_SHMCOLL_H
#define HC_SHMCOLL_H

#include <stddef.h>

#include "hcomm.h"

/* The defaults of the tunables (HCMPI_COLL_SHM*). */
#define HC_SHMCOLL_MAX ((size_t)4 << 20)
#define HC_SHMCOLL_CHUNK ((size_t)256 << 10)
/* Allgather: the segment (one copy in, n - 1 out, per rank) against the
 * schedule's messages, which the shm transport streams through a pair's
 * cells (both ways at once on two ranks) and which collapse beside other
 * jobs.  bench/collective -c allgather, interleaved (2 ranks 5 rounds,
 * 4 ranks 3, 8 ranks 2), load 18-23 (coll16e, 3 December 2026), us,
 * segment / messages / Open MPI:
 * 2 ranks 256 KiB 33-43 / 25-446 / 34-55, 1 MiB 109-195 / 95-6504 /
 * 107-32006, 4 MiB 1496-17200 / 13951-22467 / 24237-28229; 4 ranks
 * 1 MiB 10.4-12.3 / 13.7-42.2 / 19.6-26.0 ms; 8 ranks 1 MiB 44-58 /
 * 58-116 / 59-78 ms; so the segment up to HCMPI_COLL_SHM_MAX. */
#define HC_SHMCOLL_ALLGATHER_MAX ((size_t)4 << 20)
/* Two ranks: the segment's pipeline of two copies (the root's in,
 * streaming, the reader's out, overlapped chunk by chunk) against one
 * point-to-point message, which the shm transport streams through its
 * pair's cells below HCMPI_SHM_CMA_MIN.  bench/collective -c bcast on 2
 * ranks, interleaved, quiet machine (3 December 2026): 64 KiB 5.6-6.7
 * (segment) against 8.6-9.6 us (message), 128 KiB 11-14 against 9-17,
 * 256 KiB 24-26 against 15-21, 1 MiB 73-92 against 47-49; so the segment
 * up to 64 KiB. */
#define HC_SHMCOLL_PAIR_BCAST_MAX ((size_t)64 << 10)
/* Two ranks again, from this size: the segment, where one message is a
 * CMA read (HCMPI_SHM_CMA_MIN, 4 MiB on AMD), which waits whole for
 * a core beside other jobs while the pipeline's chunks go on.  2 ranks,
 * interleaved, 4 MiB, us: beside other jobs' builds (load 8, coll16e)
 * segment 295-504 / message 641-4953 / Open MPI 1017-5380; load 15
 * (coll16g) 236-4563 / 8992-16610 / 17446-28001; quiet (lead, f27d8fe)
 * 280-400 / 406-441 / 403. */
#define HC_SHMCOLL_PAIR_BCAST_SEG_MIN ((size_t)4 << 20)
/* A bcast's chunk spans this many large buffers of its parity (0: all,
 * ranks + 1): fewer synchronisations against a finer pipeline.  2 ranks,
 * 64 KiB buffers, interleaved beside other jobs' compilers, 1 MiB: 55-64
 * us over 2, 60-81 over 1, 83-86 over all 3; 4 MiB 247-312, 294-2802,
 * 320-1751 (shmcoll.c). */
#define HC_SHMCOLL_BCAST_BUFS 2
#define HC_SHMCOLL_ALLTOALL_MAX ((size_t)16 << 10)
/* Two ranks, Allgather and Alltoall(v) blocks of this many bytes or more:
 * each rank reads the other's block once, straight from its buffer
 * (process_vm_readv), instead of copying it into the segment and out, or
 * streaming both ways at once through the shm cells (the schedule's
 * messages).  bench/collective on 2 ranks, interleaved, load 14 (coll16g,
 * 3 December 2026), us, read / old path / Open MPI: Allgather 16 KiB
 * 4.1-5.0 / 3.4-4.0 / 5.3-6.4, 32 KiB 5.8-8.2 / 5.9-7.6 / 7.1-8.3, 64 KiB
 * 8.7-11.5 / 10.8-14.4 / 10.4-12.9; Alltoallv 64 KiB 9.1-11.8 /
 * 12.8-15.8 / 10.0-13.2; so from 64 KiB (Alltoall(v) would gain from 16
 * KiB too: bench/NOTES.md, coll16g).  The default is the processor
 * profile's (util/cpu_profile.c: 64 KiB, as measured here; never on AMD
 * family 26, whose CMA copies run at a quarter of its memcpy's speed). */
/* Gather(v) blocks of this many bytes or more (below 64 KiB) are read in
 * place by the root (process_vm_readv), smaller ones above a small
 * buffer move as messages.  2 ranks, interleaved, us: a read costs ~1 us
 * at 1-4 KiB where messages take 0.32-0.50 (through the segment's large
 * buffers, straight: 0.35-0.62); at 16 KiB reads 1.30-1.48 against
 * messages' 1.59-7 (bench/NOTES.md, root16c).  The default is the
 * processor profile's (16 KiB, as measured here; never on AMD family
 * 26). */
/* More ranks, Alltoall blocks of this many bytes or more (above
 * HC_SHMCOLL_ALLTOALL_MAX they would be messages): each rank reads its
 * block from every other rank's buffer in the same way.  bench/collective
 * -c alltoall on 4 ranks (on 2 cores), interleaved (coll16h, 4 December
 * 2026), us, read / before / Open MPI: 16 KiB 11.5-15.7 / 10.4-10.6 (the
 * segment) / 14.4-20.6; 64 KiB 23-38 / 154-214 / 29-83; 256 KiB 189-322 /
 * 401-521 / 203-472; 1 MiB 865-907 / 1290-1329 / 868-3880. */
#define HC_SHMCOLL_ALLTOALL_READ_MIN ((size_t)32 << 10)
/* Bcasts of this many bytes or more (two ranks; more ranks), up to
 * HC_SHMCOLL_BCAST_READ_MAX (0: any): each reader copies the root's
 * buffer straight from its memory (the transport's single-copy get; on
 * two ranks the root writes half with put meanwhile) instead of the
 * segment's two copies or the one message; where reads fail, those paths
 * as below.  bench/collective -c bcast, interleaved (coll16h, 4 December
 * 2026), us, read / before / Open MPI: 2 ranks 16 KiB 1.48-1.51 /
 * 1.81-1.86 / 1.37-1.46, 64 KiB 2.36-2.47 / 7.24-7.45 / 3.12-3.27,
 * 1 MiB 18-20 / 45-48 / 47-53, 4 MiB 166-171 / 773-2381 / 356-6919;
 * 4 ranks (on 2 cores) 32 KiB 9.6-10.2 / 6.7-9.9, 64 KiB 12.4-13.0 /
 * 13.7-16.6, 256 KiB 30-31 / 56-164 (bench/NOTES.md).  On two ranks
 * the default is the processor profile's (16 KiB, as measured here; never
 * on AMD family 26). */
#define HC_SHMCOLL_BCAST_READ_MIN ((size_t)64 << 10)
#define HC_SHMCOLL_BCAST_READ_MAX ((size_t)0)
/* Reduces of this many bytes or more on two ranks, up to
 * HC_SHMCOLL_PAIR_REDUCE_READ_MAX: the root reads the other rank's input
 * straight from its memory (the transport's single-copy get) 64 KiB at a
 * time and combines each piece at once, instead of the other rank copying
 * its input into the segment and the root copying it out.  Above the
 * maximum the root alone copying and combining loses to the segment's
 * pipeline, where the other rank copies the next chunk in meanwhile.
 * bench/collective -c reduce, 2 ranks (Intel, 2 cores), interleaved
 * (coll16k, 4 December 2026), us, read / segment
 * (HCMPI_COLL_SHM_STREAM_MIN=0) / Open MPI: 16 KiB 1.6-1.9 / 2.0-2.3 /
 * 1.7-1.8; 64 KiB 4.6-5.3 / 6.5-6.9 / 5.2-5.4; 256 KiB 17-19 / 20-23 /
 * 16-18; 384 KiB 26-30 / 34-36 / 25; 512 KiB 78-106 / 42-49 / 34-44. */
/* Allreduces (not in place) from the same size, with no upper bound:
 * each rank reads the other's input over its half of the vector, combines
 * it and writes each piece into both results; 64 KiB 5.2-5.4 / 11.0-11.2
 * / 17-18, 1 MiB 115-126 / 158 / 277-282.  The default is the processor
 * profile's (16 KiB, as measured here; never on AMD Zen 4 and family 26).
 * Reduce_scatter(_block)s (not in place) from their own threshold: each
 * rank reads the other's input over its own block, where the segment
 * would copy the whole vector in; that read still won on AMD family 26
 * (2 ranks, us, read / segment: 64 KiB kept 8.3 / 13.8, 1 MiB 165 / 254;
 * bench/NOTES.md, "Lead, twenty-seventh session"). */
#define HC_SHMCOLL_PAIR_REDUCE_READ_MAX ((size_t)384 << 10)
#define HC_SHMCOLL_PAIR_REDUCE_SCATTER_READ_MIN ((size_t)16 << 10)
/* A lane's chunks up to SHMCOLL_WHOLE_MAX (shmcoll.c) are reduced whole,
 * one synchronisation each. */
#define HC_SHMCOLL_LANE_BUF ((size_t)4 << 10)
#define HC_SHMCOLL_LANE_MAX ((size_t)16 << 10)
/* Wide lanes per communicator's segment: the persistent collectives that
 * fit no lane run the blocking forms' pipeline in one of these instead
 * (shmcoll_impl.h).  Each holds the large buffers of the segment again
 * (2.3-2.5 MiB on 4 and 8 ranks), so only a few. */
#define HC_SHMCOLL_WIDE_LANES 2
/* Small buffers per rank in a segment: how many small collectives a
 * Bcast root (or a Reduce's other ranks) may run ahead of the slowest
 * rank before it waits (fewer on many ranks: all of them within 2 MiB).
 * Ranks that share a core run in bursts of a time slice, so the deeper
 * the fewer waits (bench/collective, 8 bytes, 4 ranks on 2 cores, depth
 * 16 / 64 / 256: Bcast 0.51 / 0.30 / 0.23-0.27 us, Reduce 0.65-1.09 /
 * 0.43-0.79 / 0.33-0.55; 8 ranks Bcast 1.41-1.50 / 1.44-1.80 /
 * 0.49-0.79; bench/NOTES.md, small16).  A power of two, so that the
 * buffer a number picks (s % depth) keeps its turn across the numbers'
 * wrap. */
#define HC_SHMCOLL_DEPTH 256
/* Where communicators come and go, the collectives a new one runs by the
 * schedules before it makes a segment (HCMPI_COLL_SHM_AFTER). */
#define HC_SHMCOLL_AFTER 8

typedef struct hc_shmcoll_tuning {
  int enabled;               /* HCMPI_COLL_SHM: 0 leaves every collective to
                                schedules */
  size_t max;                /* larger messages take the schedule */
  size_t chunk;              /* bytes of one rank's slot: the pipeline's step */
  size_t allgather_max;      /* allgathers of larger blocks take the schedule */
  size_t pair_bcast_max;     /* bcasts of two ranks above this: a message */
  size_t pair_bcast_seg_min; /* ... up to this (0: none) */
  size_t bcast_bufs;         /* large buffers a bcast chunk spans (0: all) */
  size_t stream_min;         /* copies in that other ranks read bypass the
                                cache from this size on (0: never) */
  size_t alltoall_max;       /* alltoall blocks above this take messages */
  size_t pair_read_min;      /* 2 ranks: blocks from this read from the peer */
  size_t alltoall_read_min;  /* more ranks: the same (0: never) */
  size_t rooted_read_min;    /* gather blocks from this are read in place
                                (0: never) */
  int alltoallv_read; /* more ranks: alltoallv blocks above a part are read */
  size_t cpus;        /* the node's CPUs a segment assumes (0: online ones) */
  size_t pair_bcast_read_min;  /* 2 ranks: bcasts from this read the root */
  size_t bcast_read_min;       /* more ranks: the same (0: never) */
  size_t bcast_read_max;       /* ... up to this (0: any) */
  size_t crowded_bcast_read_min; /* more ranks than CPUs: bcasts read the
                                    root from this too (0: never) */
  size_t crowded_yields;       /* more ranks than CPUs: polls a blocking wait
                                  yields before it sleeps, where no rank
                                  owed last ran on its CPU (0: the engine's) */
  size_t pair_reduce_read_min; /* 2 ranks: reduces from this read the
                                  other's input (0: never) */
  size_t pair_reduce_read_max; /* ... up to this (0: any) */
  size_t pair_reduce_scatter_read_min; /* 2 ranks: reduce_scatters from
                                        * this read the peer (0: never) */
  /* 2 ranks: collectives of blocks or vectors from this neither read the
   * peer nor stream into the segment (0: never). */
  size_t pair_cached_min;
  /* More ranks than CPUs: reduces and allreduces from this copy their
   * inputs into the segment cached (0: never). */
  size_t crowded_reduce_cached_min;
  size_t lane_buf;             /* bytes of a lane's buffer (at most: smaller on
                                  many ranks) */
  size_t lane_max;             /* persistent forms of more bytes take no lane */
  int wide_lanes;              /* wide lanes per segment (at most) */
  int depth;                   /* small buffers per rank: a power of two */
  unsigned after;              /* a communicator's collectives before its
                                  segment is made (HC_SHMCOLL_AFTER) */
} hc_shmcoll_tuning_t;

extern hc_shmcoll_tuning_t hc_shmcoll_tuning;
/* Reads HCMPI_COLL_SHM* (engine init, with hc_coll_tuning_load). */
void hc_shmcoll_tuning_load(void);

/* comm makes its segment at its next blocking collective without a vote
 * on deferring it (shmcoll_seg.c): a communicator made to serve many (a
 * persistent collective's, MPI_COMM_WORLD, a node's part of a
 * hierarchy).  Every rank of comm calls it at the same point. */
void hc_shmcoll_wanted_now(hcomm_comm_t *comm);

hc_status_t hc_shmcoll_barrier(hcomm_comm_t *comm);
hc_status_t hc_shmcoll_bcast(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm);
/* sendbuf HCOMM_IN_PLACE: the input is in recvbuf (the root's, for
 * reduce); recvbuf is written at the root only for reduce. */
hc_status_t hc_shmcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm);
hc_status_t hc_shmcoll_allreduce(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm);
/* Every rank's block of bytes lands at recvbuf + r x bytes, or (rbytes,
 * rdispls not NULL: allgatherv) rbytes[r] bytes at recvbuf + rdispls[r];
 * sendbuf HCOMM_IN_PLACE: this rank's block is in recvbuf already. */
hc_status_t hc_shmcoll_allgather(const void *sendbuf, size_t bytes,
                                 void *recvbuf, const size_t *rbytes,
                                 const size_t *rdispls, hcomm_comm_t *comm);
/* Block r of sendbuf goes to rank r: bytes each at r x bytes, or (tables
 * not NULL: alltoallv) as the tables say; sendbuf HCOMM_IN_PLACE: the
 * input is in recvbuf.  An alltoallv on more than two ranks whose ranks
 * read each other reads its blocks too large for the segment from their
 * senders' buffers (each pair of ranks agrees on the size of the blocks
 * between them), and a block whose read failed follows as a message.
 * Otherwise one whose blocks to or from this rank are not all small
 * enough for the segment is HC_ERR_NOT_SUPPORTED, after the segment was
 * made: its I-form then moves the small blocks through the segment and
 * the others by messages. */
hc_status_t hc_shmcoll_alltoall(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                const size_t *rbytes, const size_t *rdispls,
                                size_t bytes, hcomm_comm_t *comm);
/* The vector of sum(counts) elements combined in rank order, rank r
 * getting block r (counts[r] elements; counts NULL: each elements);
 * sendbuf HCOMM_IN_PLACE: the input is in recvbuf. */
hc_status_t hc_shmcoll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                      const size_t *counts, size_t each,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm);
/* Gather(v) and Scatter(v) on one node: one collective number whose
 * blocks of at most a small buffer of the segment (SHMCOLL_SMALL) go
 * through it, the larger ones as messages between their rank and the root
 * afterwards (vform 0: every block is sbytes (rbytes) bytes, block r at r
 * x that, and the call takes only blocks that fit a small buffer).  The
 * tables are the root's, NULL elsewhere (rbytes[r] bytes of rank r at
 * recvbuf + rdispls[r]; the mirror for scatter); sendbuf (gather) or
 * recvbuf (scatter) HCOMM_IN_PLACE at the root: its block is in place. */
hc_status_t hc_shmcoll_gather(int vform, const void *sendbuf, size_t sbytes,
                              void *recvbuf, const size_t *rbytes,
                              const size_t *rdispls, int root,
                              hcomm_comm_t *comm);
hc_status_t hc_shmcoll_scatter(int vform, const void *sendbuf,
                               const size_t *sbytes, const size_t *sdispls,
                               void *recvbuf, size_t rbytes, int root,
                               hcomm_comm_t *comm);
/* The v-forms with each side of this rank through an accessor (as
 * hcomm_gatherv_acc's: block r at byte roffs[r] of the root's stream; the
 * root's own side NULL: in place); they run on every rank where the
 * calls above run theirs, whatever side each rank has. */
hc_status_t hc_shmcoll_gatherv_acc(const hcomm_accessor_t *sacc, size_t sbytes,
                                   const hcomm_accessor_t *racc,
                                   const size_t *rbytes, const size_t *roffs,
                                   int root, hcomm_comm_t *comm);
hc_status_t hc_shmcoll_scatterv_acc(const hcomm_accessor_t *sacc,
                                    const size_t *sbytes, const size_t *soffs,
                                    const hcomm_accessor_t *racc, size_t rbytes,
                                    int root, hcomm_comm_t *comm);
/* 1 when the calls above run a gather or scatter (vform: with tables;
 * bytes: the fixed form's block) on comm, whose segment this makes if it
 * has none yet (a collective call: every rank asks alike). */
int hc_shmcoll_rooted_takes(hcomm_comm_t *comm, int vform, size_t bytes);

/* One shared-memory collective that a schedule advances (or a blocking
 * call waits on); its fields are shmcoll.c's.  It lives in the schedule's
 * memory: set up by an hc_shmcoll_i*_prepare, started when the schedule
 * reaches its step, polled by the engine's progress. */
struct hc_shmcoll;
typedef struct hc_shmcoll_op {
  hcomm_comm_t *comm;
  struct hc_shmcoll *sc;
  int what;                    /* enum shmcoll_what (shmcoll_impl.h) */
  int root;                    /* bcast, reduce: the root; allreduce: -1 */
  unsigned char *out;          /* bcast: the buffer; reductions: the result,
                                  NULL on a rank that gets none */
  const unsigned char *in;     /* reductions: this rank's input */
  const hcomm_accessor_t *acc; /* bcast through an accessor: its stream
                                  (out NULL); it must outlive op */
  /* gather, scatter: a side of this rank's through an accessor instead
   * (in or out NULL), block r at byte displs[r] of its stream */
  const hcomm_accessor_t *in_acc, *out_acc;
  size_t size;                 /* bcast, allgather: bytes (allgather: of
                                  the largest block); reductions:
                                  elements (reduce_scatter: of the whole
                                  vector); alltoall: as step */
  size_t step;                 /* of one chunk, in the same unit; alltoall:
                                  the bytes each rank's slot holds for each
                                  peer, the largest block it moves (larger
                                  ones are the schedule's messages) */
  hcomm_reduce_op_t op;
  /* allgather, alltoall: the blocks by rank, in bytes; NULL tables: every
   * block is each bytes, block r at r x each */
  const size_t *counts, *displs;   /* received (allgather: every rank's) */
  const size_t *scounts, *sdispls; /* alltoall: sent */
  size_t each;
  size_t slice_at, slice_n; /* reduce_scatter: this rank's block (elements) */
  uint32_t first;           /* sequence number of the first chunk */
  uint32_t nchunks;         /* chunks, each a collective number of its own */
  uint32_t at;              /* the chunk under way */
  int phase;                /* how far that chunk got */
  /* The step (chunk looked_at, phase looked_phase; -1: none yet) whose
   * flag looks were spent: the loop of a wait polls the op again and
   * again, and 64 looks at each poll read the lines that the other ranks
   * are writing, on their cores' time where ranks share them. */
  uint32_t looked_at;
  int looked_phase;
  int one_block;   /* read exchange: one block for every rank (allgather) */
  int read_failed; /* reads: some rank's read of another failed (an
                      alltoallv's large blocks: one of this rank's) */
  /* A blocking alltoallv on more than two ranks: blocks above step are
   * read from their senders' buffers, not left to messages. */
  int read_large;
  int next_peer; /* read_large: the reader whose read the step awaits */
  /* An I-form bcast or allreduce: its first chunk is a read between the
   * ranks' buffers; the segment's pipeline, in the chunks after it, runs
   * only where a read failed. */
  int read_first;
  /* A gather whose large blocks may be read in place (shmcoll_read.c)
   * rather than sent: the blocks whose read failed or could not be done,
   * which move as messages after the op (bit r at the root, bit 0 at
   * another rank: its own).  NULL: all are messages. */
  uint64_t *rooted_failed;
} hc_shmcoll_op_t;

/* Set *op up for the I-form when comm already has a segment (made by an
 * earlier blocking collective: making one is an agreement that waits, so
 * an I-form never makes it) that takes these arguments; the answer is the
 * same on every rank.  HC_ERR_NOT_SUPPORTED: use the point-to-point
 * schedule.  sendbuf, recvbuf as for the blocking forms; root -1 in
 * hc_shmcoll_ireduce_prepare: allreduce. */
hc_status_t hc_shmcoll_ibarrier_prepare(hc_shmcoll_op_t *op,
                                        hcomm_comm_t *comm);
hc_status_t hc_shmcoll_ibcast_prepare(hc_shmcoll_op_t *op, void *buf,
                                      size_t bytes, int root,
                                      hcomm_comm_t *comm);
/* As hc_shmcoll_ibcast_prepare, the buffer reached through acc (the root
 * packs each chunk into the segment, the others unpack it from there):
 * the same choice as for a plain buffer of bytes, so ranks whose
 * datatypes differ in layout but not in signature take one path. */
hc_status_t hc_shmcoll_ibcast_acc_prepare(hc_shmcoll_op_t *op,
                                          const hcomm_accessor_t *acc,
                                          size_t bytes, int root,
                                          hcomm_comm_t *comm);
hc_status_t hc_shmcoll_ireduce_prepare(hc_shmcoll_op_t *op, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       const hcomm_reduce_op_t *rop, int root,
                                       hcomm_comm_t *comm);
/* sendbuf, recvbuf, tables as for the blocking forms; the tables must
 * outlive *op (an I-form copies them into its schedule first). */
hc_status_t hc_shmcoll_iallgather_prepare(hc_shmcoll_op_t *op,
                                          const void *sendbuf, size_t bytes,
                                          void *recvbuf, const size_t *rbytes,
                                          const size_t *rdispls,
                                          hcomm_comm_t *comm);
/* An alltoallv is always prepared where the segment exists: the blocks
 * above op->step are left to the caller's messages. */
hc_status_t hc_shmcoll_ialltoall_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, const size_t *sbytes,
    const size_t *sdispls, void *recvbuf, const size_t *rbytes,
    const size_t *rdispls, size_t bytes, hcomm_comm_t *comm);
/* After hc_shmcoll_ialltoall_prepare with tables: 1 when op reads its
 * blocks above op->step from their senders' buffers, as the blocking
 * Alltoallv does (more than two ranks, not in place, reads working on the
 * segment; alike on every rank), rather than leaving them to messages. */
int hc_shmcoll_alltoall_reads(hc_shmcoll_op_t *op, const void *sendbuf);
/* After such an op ran: 1 when the block this rank sends to peer (send)
 * or receives from it failed to be read, so that it moves as a message
 * between the two (both ends see the same). */
int hc_shmcoll_alltoall_unread(const hc_shmcoll_op_t *op, int peer, int send);
hc_status_t hc_shmcoll_ireduce_scatter_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, void *recvbuf,
    const size_t *counts, const hcomm_reduce_op_t *rop, hcomm_comm_t *comm);
/* A persistent collective's claim of a lane (shmcoll_impl.h, "Lanes
 * given back"); it lives in the schedule's memory. */
typedef struct hc_shmcoll_claim {
  struct hc_shmcoll *lane; /* NULL once the segment is gone */
  uint32_t gen;            /* the lane's claims before this one */
  uint32_t starts;         /* starts decided while it waited */
  int in_lane;             /* 1: op runs in the lane at every start */
  struct hc_shmcoll_claim *prev, *next; /* the lane's held claims, oldest
                                           first */
  hc_shmcoll_op_t op; /* what runs in the lane */
} hc_shmcoll_claim_t;

/* For a persistent form, at its _init, after a prepare above: claims a
 * lane for *op, so that its starts take that lane's numbers, not the
 * communicator's, in chunks of the lane's buffers; one that fits no lane
 * (above HCMPI_COLL_SHM_LANE_MAX, an alltoall's slot or an element larger
 * than a lane buffer) claims a wide lane, where it runs in the segment's
 * own chunks.  HC_OK with claim->in_lane: claim->op runs in the lane now
 * (and *op is moved there); HC_OK without: build the point-to-point
 * schedule, which runs until hc_shmcoll_claim_start moves claim->op into
 * the lane.  HC_ERR_NOT_SUPPORTED: no lane to claim; the schedule for
 * good.  Every answer is the same on every rank. */
hc_status_t hc_shmcoll_op_claim_lane(hc_shmcoll_op_t *op,
                                     hc_shmcoll_claim_t *claim);
/* With the engine lock held, at each start of a claim that waits (the
 * schedule's starts, every rank equally many): 1 when claim->op runs in
 * the lane from this start on, the same on every rank at the same start;
 * 0: this start runs the schedule. */
int hc_shmcoll_claim_start(hc_shmcoll_claim_t *claim);
/* With the engine lock held, when the persistent request is freed (after
 * its last run here): gives the claim up on this rank. */
void hc_shmcoll_claim_release(hc_shmcoll_claim_t *claim);
/* With the engine lock held, when the collective starts (every rank
 * starts its collectives on comm in one order): takes its sequence
 * numbers. */
void hc_shmcoll_op_start(hc_shmcoll_op_t *op);
/* With the engine lock held: advances op as far as it goes without
 * waiting.  0: not finished; 1: finished, *rc its status (a lost member
 * of the communicator fails it). */
int hc_shmcoll_op_poll(hc_shmcoll_op_t *op, hc_status_t *rc);
/* What hc_shmcoll_op_now_locked did. */
enum hc_shmcoll_now {
  HC_SHMCOLL_NOW_NONE,  /* nothing: hc_shmcoll_op_start and its polls run it */
  HC_SHMCOLL_NOW_DONE,  /* ran whole: numbers taken, finished */
  HC_SHMCOLL_NOW_POSTED /* started (hc_shmcoll_op_start) and this rank's
                           post made: its polls go on from there */
};
/* With the engine lock held, at a start of a persistent op of one small
 * buffer in its own lane (a Bcast, Reduce, Allreduce, Barrier, Allgather or
 * Alltoall): its step as the blocking form's straight one, as far as the
 * flags already allow (enum hc_shmcoll_now). */
int hc_shmcoll_op_now_locked(hc_shmcoll_op_t *op);
/* Without the engine lock: sleeps at most ms until another rank of op's
 * segment publishes (op is not finished, and its memory stays while this
 * runs: the engine lock is no real lock, so no other thread frees it). */
void hc_shmcoll_op_sleep(const hc_shmcoll_op_t *op, int ms);

/* Unmaps comm's segment, if it has one (the communicator is going away). */
void hc_shmcoll_free(hcomm_comm_t *comm);

#endif /* HC_SHMCOLL_H */
