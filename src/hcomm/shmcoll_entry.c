/*
 * The shared-memory collectives' entry points (shmcoll.h): for each
 * collective, whether the node's segment takes a call (its arguments,
 * sizes and the communicator), which way it runs (the op's steps of
 * shmcoll.c, the straight paths of shmcoll_small.c, or the single-copy
 * reads of shmcoll_read.c), the blocking forms that run it, and the
 * I-forms' prepare calls that leave it to the schedule.
 */

#include "config.h" /* _GNU_SOURCE, for sched_getcpu */

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll_impl.h"
#include "util/copy.h"
#include "util/fence.h"
#include "util/smallmem.h"

/* ---- the four collectives: which arguments they take, and their ops ---- */

void hc_shmcoll_op_init(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                        hcomm_comm_t *comm, int what, uint32_t nchunks) {
  *op = (hc_shmcoll_op_t){
      .comm = comm, .sc = sc, .what = what, .nchunks = nchunks};
}

static int shmcoll_bcast_args(const void *buf, size_t bytes, int root,
                              const hcomm_comm_t *comm) {
  return comm != NULL && root >= 0 && root < comm->size &&
         (buf != NULL || bytes == 0);
}

/* The segment's pipeline (two ranks: not between
 * HCMPI_COLL_SHM_PAIR_BCAST_MAX and _SEG_MIN, where one message goes). */
static int shmcoll_bcast_takes(const void *buf, size_t bytes, int root,
                               const hcomm_comm_t *comm) {
  size_t seg_min = hc_shmcoll_tuning.pair_bcast_seg_min;
  return shmcoll_bcast_args(buf, bytes, root, comm) &&
         (comm->size != 2 || bytes <= hc_shmcoll_tuning.pair_bcast_max ||
          (seg_min > 0 && bytes >= seg_min));
}

static void shmcoll_bcast_op(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                             hcomm_comm_t *comm, void *buf, size_t bytes,
                             int root) {
  /* See the step: at most HCMPI_COLL_SHM_BCAST_BUFS buffers (0: all). */
  size_t bufs = (size_t)sc->size + 1, most = hc_shmcoll_tuning.bcast_bufs;
  size_t step = (most > 0 && most < bufs ? most : bufs) * sc->chunk;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_BCAST,
                  (uint32_t)((bytes + step - 1) / step));
  op->root = root;
  op->out = buf;
  op->size = bytes;
  op->step = step;
}

/* root -1: every rank gets the result (allreduce). */
static int shmcoll_reduce_takes(const void *sendbuf, const void *recvbuf,
                                size_t count, const hcomm_reduce_op_t *op,
                                int root, const hcomm_comm_t *comm) {
  if (comm == NULL || op == NULL || op->fn == NULL || op->elem_size == 0 ||
      op->elem_size > hc_shmcoll_tuning.chunk || root >= comm->size ||
      count > SIZE_MAX / op->elem_size)
    return 0;
  int gets = root < 0 || root == comm->rank;
  return !((sendbuf == HCOMM_IN_PLACE && !gets) ||
           (count > 0 && (recvbuf == NULL || sendbuf == NULL) && gets));
}

static void shmcoll_reduce_op(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                              hcomm_comm_t *comm, const void *sendbuf,
                              void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *rop, int root) {
  size_t step = sc->chunk / rop->elem_size;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_REDUCE,
                  (uint32_t)((count + step - 1) / step));
  op->root = root;
  op->in = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  op->out = root < 0 || root == comm->rank ? recvbuf : NULL;
  op->size = count;
  op->step = step;
  op->op = *rop;
}

/* ---- small blocking collectives whose turn has come: shmcoll_small.c -- */

/* op, whose post (its phase 0) the small path made as collective number
 * sc->seq + 1: the op's path from its next phase on. */
static hc_status_t shmcoll_resume_locked(hc_shmcoll_op_t *op) {
  hc_shmcoll_op_start(op);
  op->phase = 1;
  return hc_shmcoll_finish_locked(op);
}

hc_status_t hc_shmcoll_barrier(hcomm_comm_t *comm) {
  hc_status_t rc;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, 0, &rc);
  if (sc == NULL)
    return rc == HC_ERR_NOT_SUPPORTED ? hc_shmcoll_hier_barrier(comm) : rc;
  hc_shmcoll_op_t op;
  hc_shmcoll_op_init(&op, sc, comm, SHMCOLL_OP_BARRIER, 1);
  return hc_shmcoll_run(&op);
}

/* 1 when a bcast of bytes on comm is of a size read from the root's
 * buffer (below). */
static int shmcoll_bcast_reads(size_t bytes, const hcomm_comm_t *comm);

/* A bcast that every other rank reads from the root's buffer (above);
 * HC_ERR_NOT_SUPPORTED, on every rank alike, where it does not run. */
static hc_status_t shmcoll_bcast_read(void *buf, size_t bytes, int root,
                                      hcomm_comm_t *comm);

hc_status_t hc_shmcoll_bcast(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm) {
  hc_status_t rc = shmcoll_bcast_read(buf, bytes, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED ||
      !shmcoll_bcast_takes(buf, bytes, root, comm))
    return rc;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, bytes, &rc);
  if (sc == NULL)
    return rc == HC_ERR_NOT_SUPPORTED
               ? hc_shmcoll_hier_bcast(buf, bytes, root, comm)
               : rc;
  if (hc_shmcoll_bcast_now(sc, comm, buf, bytes, root) > 0)
    return HC_OK;
  hc_shmcoll_op_t op;
  shmcoll_bcast_op(&op, sc, comm, buf, bytes, root);
  return hc_shmcoll_run(&op);
}

static hc_status_t shmcoll_reduction(const void *sendbuf, void *recvbuf,
                                     size_t count, const hcomm_reduce_op_t *op,
                                     int root, hcomm_comm_t *comm) {
  if (!shmcoll_reduce_takes(sendbuf, recvbuf, count, op, root, comm))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, count * op->elem_size, &rc);
  if (sc == NULL)
    return rc == HC_ERR_NOT_SUPPORTED
               ? hc_shmcoll_hier_reduce(sendbuf, recvbuf, count, op, root, comm)
               : rc;
  int now = hc_shmcoll_reduce_now(sc, comm, sendbuf, recvbuf, count, op, root);
  if (now > 0)
    return HC_OK;
  hc_shmcoll_op_t sop;
  shmcoll_reduce_op(&sop, sc, comm, sendbuf, recvbuf, count, op, root);
  return now == 0 ? shmcoll_resume_locked(&sop) : hc_shmcoll_run(&sop);
}

/* A two-rank reduce (root -1: allreduce) read from the other rank's
 * input (above); HC_ERR_NOT_SUPPORTED, on both ranks alike, where it does
 * not run. */
static hc_status_t shmcoll_reduce_read(const void *sendbuf, void *recvbuf,
                                       size_t count,
                                       const hcomm_reduce_op_t *op, int root,
                                       hcomm_comm_t *comm);

hc_status_t hc_shmcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm) {
  if (root < 0)
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc = shmcoll_reduce_read(sendbuf, recvbuf, count, op, root, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  return shmcoll_reduction(sendbuf, recvbuf, count, op, root, comm);
}

hc_status_t hc_shmcoll_allreduce(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm) {
  hc_status_t rc = shmcoll_reduce_read(sendbuf, recvbuf, count, op, -1, comm);
  if (rc != HC_ERR_NOT_SUPPORTED)
    return rc;
  return shmcoll_reduction(sendbuf, recvbuf, count, op, -1, comm);
}

/* ---- allgather, alltoall, reduce_scatter: one node's segment only ------- */

/* The largest of n blocks (NULL: each). */
static size_t shmcoll_most(const size_t *counts, size_t each, int n) {
  if (counts == NULL)
    return each;
  size_t most = 0;
  for (int r = 0; r < n; r++)
    most = counts[r] > most ? counts[r] : most;
  return most;
}

/* On an allgather, what every rank knows alike: the block sizes. */
static int shmcoll_allgather_takes(size_t most, const void *recvbuf,
                                   const hcomm_comm_t *comm) {
  return comm != NULL && most <= hc_shmcoll_tuning.allgather_max &&
         (most == 0 || recvbuf != NULL);
}

static void shmcoll_allgather_op(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                                 hcomm_comm_t *comm, const void *sendbuf,
                                 size_t bytes, void *recvbuf,
                                 const size_t *rbytes, const size_t *rdispls,
                                 size_t most) {
  size_t step = most <= sc->small ? sc->small : sc->chunk;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_ALLGATHER,
                  (uint32_t)((most + step - 1) / step));
  op->root = -1;
  op->out = recvbuf;
  op->counts = rbytes;
  op->displs = rdispls;
  op->each = bytes;
  op->in = sendbuf == HCOMM_IN_PLACE
               ? op->out + hc_shmcoll_block_at(rdispls, bytes, comm->rank)
               : sendbuf;
  op->size = most;
  op->step = step;
}

/* The largest alltoall block a rank's slot part holds on sc: the same on
 * every rank (v-forms use all of it; an alltoall of equal blocks packs
 * them, taking the small buffers where they fit). */
static size_t shmcoll_alltoall_part(const hc_shmcoll_t *sc) {
  size_t part = sc->chunk / (size_t)sc->size / SHMCOLL_LINE * SHMCOLL_LINE;
  return part < hc_shmcoll_tuning.alltoall_max ? part
                                               : hc_shmcoll_tuning.alltoall_max;
}

/* The part of a blocking alltoallv on two ranks whose larger block
 * between them is most bytes: both ranks know both of those blocks, so
 * where two of them fit a small buffer they agree to take one (its ring
 * lets a rank run ahead, a large buffer's by one collective only); else
 * the slot's part. */
static size_t shmcoll_pair_part(const hc_shmcoll_t *sc, size_t most) {
  return sc->size == 2 && most > 0 && 2 * most <= sc->small
             ? most
             : shmcoll_alltoall_part(sc);
}

/* Buffers may be NULL where this rank's blocks are empty (alltoallv). */
static int shmcoll_alltoall_takes(const void *sendbuf, const size_t *sbytes,
                                  const size_t *sdispls, const size_t *rbytes,
                                  const size_t *rdispls,
                                  const hcomm_comm_t *comm) {
  int vform = rbytes != NULL;
  return comm != NULL && (rbytes == NULL) == (rdispls == NULL) &&
         (sendbuf == HCOMM_IN_PLACE ||
          ((sbytes == NULL) == !vform && (sdispls == NULL) == !vform));
}

/* NULL tables: equal blocks of bytes (which the segment moves only up to
 * the part: HC_ERR_NOT_SUPPORTED above).  part: the v-forms' part of the
 * slot (shmcoll_alltoall_part, or a blocking pair's shmcoll_pair_part). */
static hc_status_t
shmcoll_alltoall_op(hc_shmcoll_op_t *op, hc_shmcoll_t *sc, hcomm_comm_t *comm,
                    const void *sendbuf, const size_t *sbytes,
                    const size_t *sdispls, void *recvbuf, const size_t *rbytes,
                    const size_t *rdispls, size_t bytes, size_t part) {
  if (rbytes == NULL && bytes > part)
    return HC_ERR_NOT_SUPPORTED;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_ALLTOALL, 1);
  op->root = -1;
  op->out = recvbuf;
  op->counts = rbytes;
  op->displs = rdispls;
  op->each = bytes;
  if (sendbuf == HCOMM_IN_PLACE) {
    op->in = recvbuf;
    op->scounts = rbytes;
    op->sdispls = rdispls;
  } else {
    op->in = sendbuf;
    op->scounts = sbytes;
    op->sdispls = sdispls;
  }
  op->step = rbytes == NULL ? bytes : part;
  op->size = op->step;
  return HC_OK;
}

/* 1 when every block to or from this rank fits a part of the slot. */
static int shmcoll_alltoall_whole(const hc_shmcoll_op_t *op) {
  for (int r = 0; r < op->sc->size; r++)
    if (r != op->sc->rank &&
        (hc_shmcoll_block_len(op->counts, op->each, r) > op->step ||
         hc_shmcoll_block_len(op->scounts, op->each, r) > op->step))
      return 0;
  return 1;
}

static int shmcoll_reduce_scatter_takes(
    const void *sendbuf, const void *recvbuf, const size_t *counts, size_t each,
    const hcomm_reduce_op_t *op, const hcomm_comm_t *comm, size_t *total) {
  if (comm == NULL || op == NULL || op->fn == NULL || op->elem_size == 0 ||
      op->elem_size > hc_shmcoll_tuning.chunk)
    return 0;
  *total = 0;
  for (int r = 0; r < comm->size; r++) {
    size_t n = hc_shmcoll_block_len(counts, each, r);
    if (n > SIZE_MAX / op->elem_size - *total)
      return 0;
    *total += n;
  }
  /* recvbuf may be NULL where this rank's block is empty */
  return *total == 0 ||
         (sendbuf != NULL && (sendbuf != HCOMM_IN_PLACE || recvbuf != NULL));
}

static void shmcoll_reduce_scatter_op(hc_shmcoll_op_t *op, hc_shmcoll_t *sc,
                                      hcomm_comm_t *comm, const void *sendbuf,
                                      void *recvbuf, const size_t *counts,
                                      size_t each, size_t total,
                                      const hcomm_reduce_op_t *rop) {
  size_t step =
      total * rop->elem_size <= sc->small ? total : sc->chunk / rop->elem_size;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_REDUCE_SCATTER,
                  total == 0 ? 0 : (uint32_t)((total + step - 1) / step));
  op->root = -1;
  op->out = recvbuf;
  op->in = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  op->size = total;
  op->step = step;
  op->op = *rop;
  for (int r = 0; r < comm->rank; r++)
    op->slice_at += hc_shmcoll_block_len(counts, each, r);
  op->slice_n = hc_shmcoll_block_len(counts, each, comm->rank);
}

int hc_shmcoll_reads_work(const hc_shmcoll_t *sc) {
  return !sc->reads_off && sc->world_ranks != NULL;
}

/* comm's segment for a collective whose ranks read each other's
 * memory, or NULL (*rc: HC_ERR_NOT_SUPPORTED where reads failed before on
 * it, alike on every rank, or what hc_shmcoll_enter says). */
static hc_shmcoll_t *shmcoll_enter_reads(hcomm_comm_t *comm, hc_status_t *rc) {
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, 0, rc);
  if (sc == NULL || hc_shmcoll_reads_work(sc))
    return sc;
  *rc = HC_ERR_NOT_SUPPORTED;
  return NULL;
}

/* Blocks of at least HCMPI_COLL_SHM_PAIR_READ_MIN and below
 * HCMPI_COLL_SHM_PAIR_CACHED_MIN on two ranks (the larger
 * of the two ways, the same on both), or alltoall blocks of at least
 * HCMPI_COLL_SHM_ALLTOALL_READ_MIN on more (an allgather there keeps the
 * segment, which copies each block in once for all the readers: 4 ranks,
 * 64 KiB, 70-217 us against 137-173 reading; bench/NOTES.md, coll16h),
 * where reads of the others worked so far on sc and a table of one entry
 * per rank fits a buffer of the segment. */
static int shmcoll_exchange_reads(const hc_shmcoll_t *sc, size_t most,
                                  int alltoall) {
  const hc_shmcoll_tuning_t *t = &hc_shmcoll_tuning;
  size_t min = sc->size == 2 ? t->pair_read_min
               : alltoall    ? t->alltoall_read_min
                             : 0;
  if (sc->size == 2 && t->pair_cached_min > 0 && most >= t->pair_cached_min)
    return 0;
  return hc_shmcoll_reads_work(sc) && min > 0 && most >= min &&
         (size_t)sc->size * sizeof(shmcoll_read_block_t) <= sc->chunk;
}

/* Runs op, whose ranks read each other's memory.  HC_ERR_NOT_SUPPORTED,
 * on every rank alike, when a read failed: sc then takes the other paths
 * for good. */
static hc_status_t shmcoll_run_reads(hc_shmcoll_op_t *op) {
  hc_status_t rc = hc_shmcoll_run(op);
  if (rc == HC_OK && op->read_failed) {
    op->sc->reads_off = 1;
    return HC_ERR_NOT_SUPPORTED;
  }
  return rc;
}

/* Bcasts of HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN (two ranks) or
 * HCMPI_COLL_SHM_BCAST_READ_MIN (more) bytes or more, up to
 * HCMPI_COLL_SHM_BCAST_READ_MAX (0: any), on a communicator of one node whose
 * reads of each other worked so far: the segment only carries the root's
 * descriptor (shmcoll_bcast_reads: the size is one of those). */
static int shmcoll_bcast_reads(size_t bytes, const hcomm_comm_t *comm) {
  const hc_shmcoll_tuning_t *t = &hc_shmcoll_tuning;
  size_t min = comm != NULL && comm->size == 2 ? t->pair_bcast_read_min
                                               : t->bcast_read_min;
  return min > 0 && bytes >= min &&
         (t->bcast_read_max == 0 || bytes <= t->bcast_read_max);
}

/* 1 unless sc has more than two ranks, more than its node's CPUs, and
 * bytes below HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN (the processor's):
 * there a root that waits until every reader read its buffer waits for
 * the scheduler to run them, where one that posts its chunks in the
 * segment goes on (AMD, 4 ranks on 2 cores, 64 KiB 31.8 against 11.2 us;
 * bench/NOTES.md, amdcoll23).  The same on every rank: sc->crowded counts
 * rank 0's CPUs. */
static int shmcoll_bcast_reads_crowded(const hc_shmcoll_t *sc, size_t bytes) {
  size_t min = hc_shmcoll_tuning.crowded_bcast_read_min;
  return !sc->crowded || sc->size == 2 || (min > 0 && bytes >= min);
}

static hc_status_t shmcoll_bcast_read(void *buf, size_t bytes, int root,
                                      hcomm_comm_t *comm) {
  if (!shmcoll_bcast_reads(bytes, comm) ||
      !shmcoll_bcast_args(buf, bytes, root, comm))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  hc_shmcoll_t *sc = shmcoll_enter_reads(comm, &rc);
  if (sc == NULL)
    return rc;
  if (!shmcoll_bcast_reads_crowded(sc, bytes))
    return HC_ERR_NOT_SUPPORTED;
  hc_shmcoll_op_t op;
  hc_shmcoll_op_init(&op, sc, comm, SHMCOLL_OP_BCAST_READ, 1);
  op.root = root;
  op.out = buf;
  op.size = bytes;
  return shmcoll_run_reads(&op);
}

/* 1 when a reduction of count elements on comm (root -1: allreduce) is
 * one that two ranks read from each other (below): the same on both
 * ranks.  The size first: most reductions are small. */
static int shmcoll_reduce_reads(const void *sendbuf, size_t count,
                                const hcomm_reduce_op_t *op, int root,
                                const hcomm_comm_t *comm) {
  size_t min = hc_shmcoll_tuning.pair_reduce_read_min;
  size_t max = hc_shmcoll_tuning.pair_reduce_read_max;
  return comm != NULL && comm->size == 2 && min > 0 && op != NULL &&
         op->elem_size > 0 && op->elem_size <= SHMCOLL_REDUCE_READ_PIECE &&
         count >= (min + op->elem_size - 1) / op->elem_size &&
         (root < 0 || max == 0 || count <= max / op->elem_size) &&
         (root >= 0 || sendbuf != HCOMM_IN_PLACE);
}

/* Reduces and allreduces (root -1; not in place) of
 * HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN bytes or more (reduces up to
 * HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX, 0: any; an allreduce's copies and
 * passes are spread over both ranks, and it gains at any size: 1 MiB
 * 115-126 us against 158 through the segment), on two ranks of one node
 * whose reads of each other worked so far, elements no larger than a
 * piece of the reads: the segment only carries the ranks' descriptors. */
static hc_status_t shmcoll_reduce_read(const void *sendbuf, void *recvbuf,
                                       size_t count,
                                       const hcomm_reduce_op_t *op, int root,
                                       hcomm_comm_t *comm) {
  if (!shmcoll_reduce_reads(sendbuf, count, op, root, comm) ||
      !shmcoll_reduce_takes(sendbuf, recvbuf, count, op, root, comm))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  hc_shmcoll_t *sc = shmcoll_enter_reads(comm, &rc);
  if (sc == NULL)
    return rc;
  hc_shmcoll_op_t sop;
  shmcoll_reduce_op(&sop, sc, comm, sendbuf, recvbuf, count, op, root);
  sop.what = SHMCOLL_OP_REDUCE_READ;
  sop.nchunks = 1;
  rc = shmcoll_run_reads(&sop);
  /* The root's own input was combined into in place before the read
   * failed: no other path has it any more. */
  return rc == HC_ERR_NOT_SUPPORTED &&
                 sop.read_failed == SHMCOLL_READ_FAILED_ALTERED
             ? HC_ERR_TRANSPORT
             : rc;
}

hc_status_t hc_shmcoll_allgather(const void *sendbuf, size_t bytes,
                                 void *recvbuf, const size_t *rbytes,
                                 const size_t *rdispls, hcomm_comm_t *comm) {
  size_t most =
      comm != NULL ? shmcoll_most(rbytes, bytes, comm->size) : (size_t)0;
  if (!shmcoll_allgather_takes(most, recvbuf, comm) ||
      (rbytes == NULL) != (rdispls == NULL))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, most, &rc);
  if (sc == NULL)
    return rc;
  int now = -1;
  if (!shmcoll_exchange_reads(sc, most, 0))
    now = hc_shmcoll_exchange_now(
        sc, comm,
        sendbuf == HCOMM_IN_PLACE
            ? (unsigned char *)recvbuf +
                  hc_shmcoll_block_at(rdispls, bytes, comm->rank)
            : sendbuf,
        recvbuf, most, rbytes, rdispls, 0);
  if (now > 0)
    return HC_OK;
  hc_shmcoll_op_t op;
  shmcoll_allgather_op(&op, sc, comm, sendbuf, bytes, recvbuf, rbytes, rdispls,
                       most);
  if (now == 0)
    return shmcoll_resume_locked(&op);
  if (shmcoll_exchange_reads(sc, most, 0)) {
    hc_shmcoll_op_t x = op;
    x.what = SHMCOLL_OP_READ_EXCHANGE;
    x.nchunks = 1;
    x.one_block = 1;
    rc = shmcoll_run_reads(&x);
    if (rc != HC_ERR_NOT_SUPPORTED)
      return rc;
  }
  return hc_shmcoll_run(&op);
}

/* Whether an alltoallv reads its blocks too large for the segment from
 * their senders (alike on every rank: the communicator's size, whether
 * reads worked on it so far, in place or not, the segment's shape): on
 * more than two ranks (two take the pair read of the larger way), not in
 * place (a block read could land on one not yet read), where the table
 * fits a small buffer and the slot does not. */
static int shmcoll_alltoallv_reads_large(const hc_shmcoll_t *sc,
                                         const void *sendbuf) {
  return sc->size > 2 && sendbuf != HCOMM_IN_PLACE &&
         hc_shmcoll_reads_work(sc) && hc_shmcoll_tuning.alltoallv_read &&
         (size_t)sc->size * sizeof(shmcoll_read_block_t) <= sc->small &&
         (size_t)sc->size * shmcoll_alltoall_part(sc) > sc->small;
}

int hc_shmcoll_alltoall_reads(hc_shmcoll_op_t *op, const void *sendbuf) {
  op->read_large =
      op->counts != NULL && shmcoll_alltoallv_reads_large(op->sc, sendbuf);
  return op->read_large;
}

int hc_shmcoll_alltoall_unread(const hc_shmcoll_op_t *op, int peer,
                               int send) {
  const hc_shmcoll_t *sc = op->sc;
  if (send)
    return shmcoll_block_read(
               op, hc_shmcoll_block_len(op->scounts, op->each, peer)) &&
           shmcoll_large_table(sc, peer, op->first)[sc->rank].failed;
  return shmcoll_block_read(op, hc_shmcoll_block_len(op->counts, op->each, peer)) &&
         shmcoll_large_table(sc, sc->rank, op->first)[peer].failed;
}

/* After an alltoallv that read its large blocks: each block whose read
 * failed (its reader marked it in its table, which stays until every rank
 * finished collectives far beyond this one) moves as a message between
 * the two ranks alone, on the tag this collective took. */
static hc_status_t shmcoll_alltoall_repair(const hc_shmcoll_op_t *op) {
  hc_shmcoll_t *sc = op->sc;
  hcomm_comm_t *comm = op->comm;
  int me = sc->rank;
  if (!op->read_failed) {
    int any = 0;
    for (int j = 0; j < sc->size && !any; j++)
      any = j != me && hc_shmcoll_alltoall_unread(op, j, 1);
    if (!any)
      return HC_OK;
  }
  int tag = HC_NBC_TAG_BASE + (int)((comm->coll_seq - 1) % HC_NBC_SEQS);
  hc_status_t rc = HC_OK;
  for (int k = 1; k < sc->size && rc == HC_OK; k++) {
    /* sends to the ranks after this one, receipts from those before, in
     * turn, so that no pair waits on another */
    int j = (me + k) % sc->size, r = (me - k + sc->size) % sc->size;
    hcomm_request_t *send = NULL, *recv = NULL;
    hc_engine_lock();
    if (hc_shmcoll_alltoall_unread(op, j, 1))
      rc = hc_isend_locked(op->in + hc_shmcoll_block_at(op->sdispls, op->each, j),
                           hc_shmcoll_block_len(op->scounts, op->each, j), j, tag,
                           comm, HCOMM_SEND_STANDARD, 1, &send);
    if (rc == HC_OK && hc_shmcoll_alltoall_unread(op, r, 0))
      rc = hc_irecv_locked(op->out + hc_shmcoll_block_at(op->displs, op->each, r),
                           hc_shmcoll_block_len(op->counts, op->each, r), r, tag,
                           comm, 1, &recv);
    hc_engine_unlock();
    hc_status_t sent = send != NULL ? hcomm_wait_free(send, NULL) : HC_OK;
    hc_status_t got = recv != NULL ? hcomm_wait_free(recv, NULL) : HC_OK;
    if (rc == HC_OK)
      rc = sent != HC_OK ? sent : got;
  }
  return rc;
}

hc_status_t hc_shmcoll_alltoall(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                const size_t *rbytes, const size_t *rdispls,
                                size_t bytes, hcomm_comm_t *comm) {
  if (!shmcoll_alltoall_takes(sendbuf, sbytes, sdispls, rbytes, rdispls, comm))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, 0, &rc);
  if (sc == NULL)
    return rc;
  /* Read from the others where every rank judges the blocks alike: equal
   * ones, or on two ranks the larger of the two ways.  In place, the block
   * another reads is where its block lands. */
  size_t most = bytes;
  if (rbytes != NULL && sc->size == 2) {
    size_t send_n = hc_shmcoll_block_len(sbytes, bytes, 1 - comm->rank);
    size_t recv_n = hc_shmcoll_block_len(rbytes, bytes, 1 - comm->rank);
    most = send_n > recv_n ? send_n : recv_n;
  }
  if (sendbuf != HCOMM_IN_PLACE && (rbytes == NULL || sc->size == 2) &&
      shmcoll_exchange_reads(sc, most, 1)) {
    hc_shmcoll_op_t x;
    hc_shmcoll_op_init(&x, sc, comm, SHMCOLL_OP_READ_EXCHANGE, 1);
    x.root = -1;
    x.in = sendbuf;
    x.out = recvbuf;
    x.counts = rbytes;
    x.displs = rdispls;
    x.scounts = sbytes;
    x.sdispls = sdispls;
    x.each = bytes;
    rc = shmcoll_run_reads(&x);
    if (rc != HC_ERR_NOT_SUPPORTED)
      return rc;
  }
  const unsigned char *in = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  int now;
  if (rbytes == NULL)
    now = hc_shmcoll_exchange_now(sc, comm, in, recvbuf, bytes, NULL, NULL, 1);
  else if (shmcoll_alltoallv_reads_large(sc, sendbuf))
    now = -1; /* the op's table of large blocks is in the small buffer */
  else
    now = hc_shmcoll_alltoallv_now(
        sc, comm, in, sendbuf == HCOMM_IN_PLACE ? rbytes : sbytes,
        sendbuf == HCOMM_IN_PLACE ? rdispls : sdispls, recvbuf, rbytes, rdispls,
        shmcoll_pair_part(sc, most));
  if (now > 0)
    return HC_OK;
  hc_shmcoll_op_t op;
  rc = shmcoll_alltoall_op(&op, sc, comm, sendbuf, sbytes, sdispls, recvbuf,
                           rbytes, rdispls, bytes, shmcoll_pair_part(sc, most));
  if (rc != HC_OK) { /* blocks over a part: never after a small post */
    if (now == 0)
      hc_engine_unlock();
    return HC_ERR_NOT_SUPPORTED;
  }
  if (now == 0)
    return shmcoll_resume_locked(&op);
  if (!hc_shmcoll_alltoall_reads(&op, sendbuf) && !shmcoll_alltoall_whole(&op))
    return HC_ERR_NOT_SUPPORTED;
  rc = hc_shmcoll_run(&op);
  if (rc == HC_OK && op.read_large)
    rc = shmcoll_alltoall_repair(&op);
  return rc;
}

hc_status_t hc_shmcoll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                      const size_t *counts, size_t each,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm) {
  size_t total;
  if (!shmcoll_reduce_scatter_takes(sendbuf, recvbuf, counts, each, op, comm,
                                    &total))
    return HC_ERR_NOT_SUPPORTED;
  hc_status_t rc;
  /* Two ranks, not in place (the result would overwrite the input the
   * other reads), from HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN bytes
   * of the whole vector: each rank reads the other's input over its own
   * block (hc_shmcoll_allreduce_read_step); the segment where that
   * fails. */
  size_t min = hc_shmcoll_tuning.pair_reduce_scatter_read_min;
  if (comm->size == 2 && min > 0 && total * op->elem_size >= min &&
      sendbuf != HCOMM_IN_PLACE && op->elem_size <= SHMCOLL_REDUCE_READ_PIECE) {
    hc_shmcoll_t *sc = shmcoll_enter_reads(comm, &rc);
    if (sc == NULL && rc != HC_ERR_NOT_SUPPORTED)
      return rc;
    if (sc != NULL) {
      hc_shmcoll_op_t sop;
      shmcoll_reduce_scatter_op(&sop, sc, comm, sendbuf, recvbuf, counts, each,
                                total, op);
      sop.what = SHMCOLL_OP_REDUCE_SCATTER_READ;
      sop.nchunks = 1;
      rc = shmcoll_run_reads(&sop);
      if (rc != HC_ERR_NOT_SUPPORTED)
        return rc;
    }
  }
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, total * op->elem_size, &rc);
  if (sc == NULL)
    return rc;
  int now = hc_shmcoll_reduce_scatter_now(sc, comm, sendbuf, recvbuf, counts,
                                          each, total, op);
  if (now > 0)
    return HC_OK;
  hc_shmcoll_op_t sop;
  shmcoll_reduce_scatter_op(&sop, sc, comm, sendbuf, recvbuf, counts, each,
                            total, op);
  return now == 0 ? shmcoll_resume_locked(&sop) : hc_shmcoll_run(&sop);
}

/* ---- the I-forms' steps -------------------------------------------------- */

hc_status_t hc_shmcoll_ibarrier_prepare(hc_shmcoll_op_t *op,
                                        hcomm_comm_t *comm) {
  hc_shmcoll_t *sc = comm != NULL ? hc_shmcoll_made(comm, 0) : NULL;
  if (sc == NULL)
    return HC_ERR_NOT_SUPPORTED;
  hc_shmcoll_op_init(op, sc, comm, SHMCOLL_OP_BARRIER, 1);
  return HC_OK;
}

hc_status_t hc_shmcoll_ibcast_prepare(hc_shmcoll_op_t *op, void *buf,
                                      size_t bytes, int root,
                                      hcomm_comm_t *comm) {
  /* Where the blocking form would read the root's buffer, so does this
   * (2 ranks, 64 KiB 2.8-4.5 us against 8.3-9.3 through the segment,
   * 256 KiB against one message; bench/NOTES.md, coll16k), with the
   * segment's pipeline behind it, whatever the size: a failed read is not
   * repaired by running again, as a blocking one is, and does not turn
   * reads off (its ranks learn of it at times of their own, so later
   * collectives could not choose alike by it). */
  int reads = shmcoll_bcast_args(buf, bytes, root, comm) &&
              shmcoll_bcast_reads(bytes, comm);
  hc_shmcoll_t *sc = reads || shmcoll_bcast_takes(buf, bytes, root, comm)
                         ? hc_shmcoll_made(comm, bytes)
                         : NULL;
  reads = reads && sc != NULL && hc_shmcoll_reads_work(sc) &&
          shmcoll_bcast_reads_crowded(sc, bytes);
  if (sc == NULL || (!reads && !shmcoll_bcast_takes(buf, bytes, root, comm)))
    return HC_ERR_NOT_SUPPORTED;
  shmcoll_bcast_op(op, sc, comm, buf, bytes, root);
  if (reads) {
    op->read_first = 1;
    op->nchunks++;
  }
  return HC_OK;
}

hc_status_t hc_shmcoll_ibcast_acc_prepare(hc_shmcoll_op_t *op,
                                          const hcomm_accessor_t *acc,
                                          size_t bytes, int root,
                                          hcomm_comm_t *comm) {
  hc_status_t rc =
      hc_shmcoll_ibcast_prepare(op, (void *)acc, bytes, root, comm);
  if (rc == HC_OK) {
    op->out = NULL;
    op->acc = acc;
  }
  return rc;
}

hc_status_t hc_shmcoll_ireduce_prepare(hc_shmcoll_op_t *op, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       const hcomm_reduce_op_t *rop, int root,
                                       hcomm_comm_t *comm) {
  hc_shmcoll_t *sc =
      shmcoll_reduce_takes(sendbuf, recvbuf, count, rop, root, comm)
          ? hc_shmcoll_made(comm, count * rop->elem_size)
          : NULL;
  if (sc == NULL)
    return HC_ERR_NOT_SUPPORTED;
  shmcoll_reduce_op(op, sc, comm, sendbuf, recvbuf, count, rop, root);
  /* An allreduce the blocking form would read, the segment's pipeline
   * behind it for a failed read, as an Ibcast's.  Not a rooted reduce:
   * a root in place (which the other rank cannot know) that fails a read
   * after combining has no input left for the pipeline. */
  if (root < 0 && shmcoll_reduce_reads(sendbuf, count, rop, root, comm) &&
      hc_shmcoll_reads_work(sc)) {
    op->read_first = 1;
    op->nchunks++;
  }
  return HC_OK;
}

hc_status_t hc_shmcoll_iallgather_prepare(hc_shmcoll_op_t *op,
                                          const void *sendbuf, size_t bytes,
                                          void *recvbuf, const size_t *rbytes,
                                          const size_t *rdispls,
                                          hcomm_comm_t *comm) {
  size_t most =
      comm != NULL ? shmcoll_most(rbytes, bytes, comm->size) : (size_t)0;
  hc_shmcoll_t *sc = shmcoll_allgather_takes(most, recvbuf, comm) &&
                             (rbytes == NULL) == (rdispls == NULL)
                         ? hc_shmcoll_made(comm, most)
                         : NULL;
  if (sc == NULL)
    return HC_ERR_NOT_SUPPORTED;
  shmcoll_allgather_op(op, sc, comm, sendbuf, bytes, recvbuf, rbytes, rdispls,
                       most);
  return HC_OK;
}

hc_status_t hc_shmcoll_ialltoall_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, const size_t *sbytes,
    const size_t *sdispls, void *recvbuf, const size_t *rbytes,
    const size_t *rdispls, size_t bytes, hcomm_comm_t *comm) {
  hc_shmcoll_t *sc =
      shmcoll_alltoall_takes(sendbuf, sbytes, sdispls, rbytes, rdispls, comm)
          ? hc_shmcoll_made(comm, 0)
          : NULL;
  if (sc == NULL)
    return HC_ERR_NOT_SUPPORTED;
  return shmcoll_alltoall_op(op, sc, comm, sendbuf, sbytes, sdispls, recvbuf,
                             rbytes, rdispls, bytes, shmcoll_alltoall_part(sc));
}

hc_status_t hc_shmcoll_ireduce_scatter_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, void *recvbuf,
    const size_t *counts, const hcomm_reduce_op_t *rop, hcomm_comm_t *comm) {
  size_t total;
  hc_shmcoll_t *sc =
      counts != NULL && shmcoll_reduce_scatter_takes(sendbuf, recvbuf, counts,
                                                     0, rop, comm, &total)
          ? hc_shmcoll_made(comm, total * rop->elem_size)
          : NULL;
  if (sc == NULL)
    return HC_ERR_NOT_SUPPORTED;
  shmcoll_reduce_scatter_op(op, sc, comm, sendbuf, recvbuf, counts, 0, total,
                            rop);
  return HC_OK;
}
