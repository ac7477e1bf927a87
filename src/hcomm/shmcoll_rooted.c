/*
 * Gather and scatter (their v-forms too) through one node's segment
 * (shmcoll_impl.h): every block of up to SHMCOLL_ROOTED_BUFFERED_MAX
 * moves through its sender's or receiver's buffer in one chunk (the
 * steps, shmcoll.c); a gather's blocks from HCMPI_COLL_SHM_ROOTED_READ_MIN up
 * to 64 KiB are read in place by the root from their senders' buffers
 * (shmcoll_read.c) where reads work; the others as messages between their
 * rank and the root, on the tag the collective took (a block whose read
 * failed after the chunk).
 */
#include <stdlib.h>
#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll_impl.h"

void hc_shmcoll_rooted_get(const hc_shmcoll_op_t *op, size_t off, void *to,
                           size_t n) {
  if (op->in_acc != NULL)
    op->in_acc->pack(op->in_acc->ctx, off, to, n);
  else
    memcpy(to, op->in + off, n);
}

void hc_shmcoll_rooted_put(const hc_shmcoll_op_t *op, size_t off,
                           const void *from, size_t n) {
  if (op->out_acc != NULL)
    op->out_acc->unpack(op->out_acc->ctx, off, from, n);
  else
    memcpy(op->out + off, from, n);
}

/* Bytes of the root's own block that move at a time between two sides
 * of which one is an accessor's stream. */
#define SHMCOLL_ROOTED_OWN_CHUNK ((size_t)4 << 10)

void hc_shmcoll_rooted_own(const hc_shmcoll_op_t *op, size_t from, size_t to,
                           size_t n) {
  int has_in = op->in != NULL || op->in_acc != NULL;
  int has_out = op->out != NULL || op->out_acc != NULL;
  if (n == 0 || !has_in || !has_out) /* in place */
    return;
  if (op->in_acc == NULL && op->out_acc == NULL) {
    if (op->in + from != op->out + to)
      memcpy(op->out + to, op->in + from, n);
    return;
  }
  unsigned char chunk[SHMCOLL_ROOTED_OWN_CHUNK];
  for (size_t at = 0; at < n; at += sizeof chunk) {
    size_t len = n - at < sizeof chunk ? n - at : sizeof chunk;
    hc_shmcoll_rooted_get(op, from + at, chunk, len);
    hc_shmcoll_rooted_put(op, to + at, chunk, len);
  }
}

/* A block of a side through an accessor: its bytes from off of the
 * side's stream, as one message's accessor. */
typedef struct shmcoll_rooted_slice {
  const hcomm_accessor_t *whole;
  size_t off;
} shmcoll_rooted_slice_t;

static void shmcoll_rooted_slice_pack(void *ctx, size_t off, void *dst,
                                      size_t len) {
  const shmcoll_rooted_slice_t *sl = ctx;
  sl->whole->pack(sl->whole->ctx, sl->off + off, dst, len);
}

static void shmcoll_rooted_slice_unpack(void *ctx, size_t off, const void *src,
                                        size_t len) {
  const shmcoll_rooted_slice_t *sl = ctx;
  sl->whole->unpack(sl->whole->ctx, sl->off + off, src, len);
}

/* The block of len bytes at at of op's side (send: its input, else its
 * output) as a message to or from peer, through the side's accessor where
 * it has one (*slice, which must last until the message completes). */
static hc_status_t shmcoll_rooted_post(const hc_shmcoll_op_t *op, int send,
                                       size_t at, size_t len, int peer, int tag,
                                       shmcoll_rooted_slice_t *slice,
                                       hcomm_request_t **req) {
  hcomm_comm_t *comm = op->comm;
  const hcomm_accessor_t *whole = send ? op->in_acc : op->out_acc;
  hc_status_t rc;
  hc_engine_lock();
  if (whole != NULL) {
    *slice = (shmcoll_rooted_slice_t){whole, at};
    hcomm_accessor_t acc = {shmcoll_rooted_slice_pack,
                            shmcoll_rooted_slice_unpack, slice};
    rc = send ? hc_isend_acc_locked(&acc, len, peer, tag, comm, 1, req)
              : hc_irecv_acc_locked(&acc, len, peer, tag, comm, 1, req);
  } else {
    rc = send ? hc_isend_locked(op->in + at, len, peer, tag, comm,
                                HCOMM_SEND_STANDARD, 1, req)
              : hc_irecv_locked(op->out + at, len, peer, tag, comm, 1, req);
  }
  hc_engine_unlock();
  return rc;
}

/* Ranks up to which a rooted op reads its large blocks in place (the
 * bits of its failed reads on the stack); on more they are messages. */
#define SHMCOLL_ROOTED_READ_RANKS 1024

/* Whether op's block of len bytes for rank r (where this rank is the
 * root; else its own) moves as a message: before its turn of the
 * segment (after 0), or after it (after 1).  Blocks through buffers
 * (shmcoll_rooted_spanned) never do; those not read in place always
 * before; a gather's read in place (hc_shmcoll_rooted_reads) where its
 * sender's side is an accessor's, which names no address (the sender
 * posts before, the root after), or where the read failed (after, at both
 * ends). */
static int shmcoll_rooted_by_message(const hc_shmcoll_op_t *op, int r,
                                     size_t len, int after) {
  if (len == 0 || shmcoll_rooted_spanned(op->sc, op->nchunks, len))
    return 0;
  if (!hc_shmcoll_rooted_reads(op, len))
    return !after;
  int root = op->sc->rank == op->root;
  int bit = root ? r : 0;
  int failed = (op->rooted_failed[bit / 64] >> (bit % 64)) & 1;
  if (root)
    return after && failed;
  return after ? op->in_acc == NULL && failed : op->in_acc != NULL;
}

/* The messages of a rooted op: its blocks larger than a buffer's,
 * each between its rank and the root (each end knows the block's size:
 * the sender's count matches the root's), those that
 * shmcoll_rooted_by_message picks for before or after the op's turn. */
/* Messages a rooted op keeps on the stack; more take the heap. */
#define SHMCOLL_ROOTED_MSGS_ON_STACK 8

typedef struct shmcoll_rooted_msgs {
  hcomm_request_t **reqs;
  shmcoll_rooted_slice_t *slices; /* the accessors' slices, by request */
  int n;
  hcomm_request_t *reqs_here[SHMCOLL_ROOTED_MSGS_ON_STACK];
  shmcoll_rooted_slice_t slices_here[SHMCOLL_ROOTED_MSGS_ON_STACK];
} shmcoll_rooted_msgs_t;

/* Posts op's messages on tag (before its turn of the segment, so that
 * they move while the ranks meet there, or after), adding to m. */
static hc_status_t shmcoll_rooted_messages(const hc_shmcoll_op_t *op, int tag,
                                           int after,
                                           shmcoll_rooted_msgs_t *m) {
  hc_shmcoll_t *sc = op->sc;
  int me = sc->rank, gather = op->what == SHMCOLL_OP_GATHER;
  hc_status_t rc = HC_OK;
  for (int r = 0; r < sc->size && rc == HC_OK; r++) {
    int peer = me == op->root ? r : op->root;
    size_t len = me == op->root ? hc_shmcoll_block_len(op->counts, op->each, r)
                                : op->size;
    if (r == op->root || (me != op->root && r != me) ||
        !shmcoll_rooted_by_message(op, r, len, after))
      continue;
    if (m->n == SHMCOLL_ROOTED_MSGS_ON_STACK &&
        m->reqs == m->reqs_here) { /* only the root's */
      m->reqs = calloc((size_t)sc->size, sizeof *m->reqs);
      m->slices = calloc((size_t)sc->size, sizeof *m->slices);
      if (m->reqs == NULL || m->slices == NULL) {
        free(m->reqs);
        free(m->slices);
        m->reqs = m->reqs_here;
        m->slices = m->slices_here;
        return HC_ERR_NOMEM;
      }
      memcpy(m->reqs, m->reqs_here, sizeof m->reqs_here);
      memcpy(m->slices, m->slices_here, sizeof m->slices_here);
    }
    size_t at =
        me == op->root ? hc_shmcoll_block_at(op->displs, op->each, r) : 0;
    int send = (me == op->root) != gather;
    rc = shmcoll_rooted_post(op, send, at, len, peer, tag, &m->slices[m->n],
                             &m->reqs[m->n]);
    m->n += rc == HC_OK;
  }
  return rc;
}

/* Waits for the messages posted (rc: the op's result so far) and frees
 * what they took. */
static hc_status_t shmcoll_rooted_messages_wait(shmcoll_rooted_msgs_t *m,
                                                hc_status_t rc) {
  for (int i = 0; i < m->n; i++) {
    hc_status_t got = hcomm_wait_free(m->reqs[i], NULL);
    rc = rc == HC_OK ? got : rc;
  }
  if (m->reqs != m->reqs_here) {
    free(m->reqs);
    free(m->slices);
  }
  return rc;
}

/* The fixed forms' blocks of all the ranks together, at most: the MPI
 * face streams a derived type's blocks above 64 KiB (at the root: all of
 * them) as messages, and no rank may do so while the others run here. */
#define SHMCOLL_ROOTED_TOTAL_MAX ((size_t)64 << 10)

/* The largest block of a gather whose straight step goes before the takes
 * test: at 8-32 B it won (Gatherv 16 B 0.12-0.14 -> 0.07 us), at 48-256 B
 * it lost 10-20 % (bench/NOTES.md, scat18b and gath18). */
#define SHMCOLL_GATHER_FIRST_MAX ((size_t)32)

/* Whether a gather or scatter on comm runs here: the v-forms always (each
 * block's size is known to both its ends), the others where a block goes
 * through buffers (shmcoll_rooted_buffered, shmcoll_rooted_span) or
 * would be read in place (HCMPI_COLL_SHM_ROOTED_READ_MIN; in between the
 * schedule's messages are as fast as the segment's) and all of them
 * SHMCOLL_ROOTED_TOTAL_MAX (the same on every rank); where comm has a
 * segment of its own, made now if not yet. */
int hc_shmcoll_rooted_takes(hcomm_comm_t *comm, int vform, size_t bytes) {
  hc_status_t rc;
  size_t read_min = hc_shmcoll_tuning.rooted_read_min;
  int read = read_min > 0 && bytes >= read_min;
  if (comm == NULL ||
      (!vform && ((bytes > SHMCOLL_ROOTED_BUFFERED_MAX && !read) ||
                  bytes * (size_t)comm->size > SHMCOLL_ROOTED_TOTAL_MAX)))
    return 0;
  hc_shmcoll_t *sc = hc_shmcoll_enter(comm, 0, &rc);
  return sc != NULL && (vform || read || bytes <= sc->small ||
                        shmcoll_rooted_buffered(sc, bytes) ||
                        shmcoll_rooted_span(sc, vform, bytes) > 1);
}

/* The sides of a gather or scatter: buffers, or accessors' streams. */
typedef struct shmcoll_rooted_sides {
  const void *in;
  void *out;
  const hcomm_accessor_t *in_acc, *out_acc;
} shmcoll_rooted_sides_t;

static hc_status_t shmcoll_rooted(int what, int vform,
                                  const shmcoll_rooted_sides_t *sides,
                                  size_t mine, const size_t *counts,
                                  const size_t *displs, int root,
                                  hcomm_comm_t *comm) {
  if (comm == NULL || root < 0 || root >= comm->size ||
      (vform && comm->rank == root && (counts == NULL || displs == NULL)))
    return HC_ERR_NOT_SUPPORTED;
  const size_t *my_counts = comm->rank == root ? counts : NULL;
  const size_t *my_displs = comm->rank == root ? displs : NULL;
  int buffers = sides->in_acc == NULL && sides->out_acc == NULL;
  /* The straight step before hc_shmcoll_rooted_takes where the segment is
   * made: it takes only blocks through a buffer, which that test would
   * take too (a fixed form's within the total), so the call spares the
   * test and the segment's look-up (~80 of a 2-rank 8-byte Scatter's ~800
   * instructions; bench/NOTES.md, scat18b).  A gather's only up to
   * SHMCOLL_GATHER_FIRST_MAX: above it the root, so much earlier, finds its
   * senders' posts not there yet in half the calls and pays the op's path
   * (bench/NOTES.md, gath18).  Else the test first, which makes the
   * segment. */
  int straight_first =
      buffers &&
      (what != SHMCOLL_OP_GATHER || mine <= SHMCOLL_GATHER_FIRST_MAX) &&
      hc_shmcoll_made(comm, 0) != NULL &&
      (vform || mine * (size_t)comm->size <= SHMCOLL_ROOTED_TOTAL_MAX);
  if (!straight_first && !hc_shmcoll_rooted_takes(comm, vform, mine))
    return HC_ERR_NOT_SUPPORTED;
  if (buffers) {
    int gather = what == SHMCOLL_OP_GATHER;
    uint32_t span = shmcoll_rooted_span(comm->shmcoll, vform, mine);
    hc_status_t now =
        span == 1
            ? hc_shmcoll_rooted_now(comm->shmcoll, comm, gather, sides->in,
                                    sides->out, mine, my_counts, my_displs,
                                    root)
            : hc_shmcoll_rooted_span_now(comm->shmcoll, comm, gather, sides->in,
                                         sides->out, mine, root, span);
    if (now != HC_ERR_NOT_SUPPORTED)
      return now;
  }
  if (straight_first && !hc_shmcoll_rooted_takes(comm, vform, mine))
    return HC_ERR_NOT_SUPPORTED;
  hc_shmcoll_op_t op;
  hc_shmcoll_op_init(&op, comm->shmcoll, comm, what,
                     shmcoll_rooted_span(comm->shmcoll, vform, mine));
  op.root = root;
  op.in = sides->in;
  op.out = sides->out;
  op.in_acc = sides->in_acc;
  op.out_acc = sides->out_acc;
  op.counts = my_counts;
  op.displs = my_displs;
  op.each = mine;
  op.size = mine;
  /* Every rank alike: reads worked so far on the segment, and its size. */
  uint64_t failed[SHMCOLL_ROOTED_READ_RANKS / 64] = {0};
  if (comm->size <= SHMCOLL_ROOTED_READ_RANKS &&
      hc_shmcoll_tuning.rooted_read_min > 0 && hc_shmcoll_reads_work(op.sc))
    op.rooted_failed = failed;
  /* The tag hc_shmcoll_run takes for the op (it counts one more). */
  hc_engine_lock();
  int tag = HC_NBC_TAG_BASE + (int)(comm->coll_seq % HC_NBC_SEQS);
  hc_engine_unlock();
  shmcoll_rooted_msgs_t msgs;
  msgs.reqs = msgs.reqs_here;
  msgs.slices = msgs.slices_here;
  msgs.n = 0;
  hc_status_t posted = shmcoll_rooted_messages(&op, tag, 0, &msgs);
  hc_status_t rc = hc_shmcoll_run(&op); /* the others wait for its turn */
  if (posted == HC_OK && rc == HC_OK && op.rooted_failed != NULL)
    posted = shmcoll_rooted_messages(&op, tag, 1, &msgs);
  return shmcoll_rooted_messages_wait(&msgs, posted != HC_OK ? posted : rc);
}

hc_status_t hc_shmcoll_gather(int vform, const void *sendbuf, size_t sbytes,
                              void *recvbuf, const size_t *rbytes,
                              const size_t *rdispls, int root,
                              hcomm_comm_t *comm) {
  shmcoll_rooted_sides_t sides = {sendbuf == HCOMM_IN_PLACE ? NULL : sendbuf,
                                  recvbuf, NULL, NULL};
  return shmcoll_rooted(SHMCOLL_OP_GATHER, vform, &sides, sbytes, rbytes,
                        rdispls, root, comm);
}

hc_status_t hc_shmcoll_scatter(int vform, const void *sendbuf,
                               const size_t *sbytes, const size_t *sdispls,
                               void *recvbuf, size_t rbytes, int root,
                               hcomm_comm_t *comm) {
  shmcoll_rooted_sides_t sides = {
      sendbuf, recvbuf == HCOMM_IN_PLACE ? NULL : recvbuf, NULL, NULL};
  return shmcoll_rooted(SHMCOLL_OP_SCATTER, vform, &sides, rbytes, sbytes,
                        sdispls, root, comm);
}

hc_status_t hc_shmcoll_gatherv_acc(const hcomm_accessor_t *sacc, size_t sbytes,
                                   const hcomm_accessor_t *racc,
                                   const size_t *rbytes, const size_t *roffs,
                                   int root, hcomm_comm_t *comm) {
  shmcoll_rooted_sides_t sides = {NULL, NULL, sacc, racc};
  return shmcoll_rooted(SHMCOLL_OP_GATHER, 1, &sides, sbytes, rbytes, roffs,
                        root, comm);
}

hc_status_t hc_shmcoll_scatterv_acc(const hcomm_accessor_t *sacc,
                                    const size_t *sbytes, const size_t *soffs,
                                    const hcomm_accessor_t *racc, size_t rbytes,
                                    int root, hcomm_comm_t *comm) {
  shmcoll_rooted_sides_t sides = {NULL, NULL, sacc, racc};
  return shmcoll_rooted(SHMCOLL_OP_SCATTER, 1, &sides, rbytes, sbytes, soffs,
                        root, comm);
}
