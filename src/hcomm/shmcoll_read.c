/*
 * The read paths of the shared-memory collectives (shmcoll.c's header
 * comment: pair read, bcast read, reduce read): steps that move the data
 * straight between the ranks' own buffers through the transport's
 * single-copy get and put (CMA on shm), with only descriptors and flags
 * in the segment.  A failed read or write is told through the segment
 * before the step's done, so that every rank sees it and takes the
 * segment's own path alike (shmcoll.c).
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/core.h"
#include "hcomm/shmcoll_impl.h"

int hc_shmcoll_read_peer(int world, unsigned char *to, uint64_t from,
                         size_t len) {
  const hc_peer_t *p = &hc_engine.peers[world];
  return p->ops != NULL && p->ops->get != NULL &&
         p->ops->get(p->tctx, world, to, from, len) == HC_OK;
}

/* Where this rank's block for rank j of an exchange lies: an allgather's
 * one block for all (op->one_block), else an alltoall's block j. */
static const unsigned char *shmcoll_send_block(const hc_shmcoll_op_t *op, int j,
                                               size_t *len) {
  if (op->one_block) {
    *len = hc_shmcoll_block_len(op->counts, op->each, op->sc->rank);
    return op->in;
  }
  *len = hc_shmcoll_block_len(op->scounts, op->each, j);
  return op->in + hc_shmcoll_block_at(op->sdispls, op->each, j);
}

/* An exchange that each rank reads from the others' buffers, collective
 * number s (allgather, alltoall): every rank names where its block for
 * each rank lies, in a table of one entry per rank in its buffer of the
 * collective, and raises posted; then reads its block from every other
 * rank straight into its receive buffer (starting after itself, so that
 * the ranks' reads spread over the sources), copies its own, and raises
 * done; and keeps its buffer until every rank is done.  One copy per
 * block, and no byte of data through the segment.  A failed read, or
 * blocks whose sizes disagree, is told in the rank's own entry before
 * done, so that every rank sees it and takes another path alike. */
int hc_shmcoll_read_exchange_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int me = sc->rank;
  size_t table = (size_t)sc->size * sizeof(shmcoll_read_block_t);
  shmcoll_read_block_t *mine =
      (shmcoll_read_block_t *)shmcoll_buf(sc, me, s, table);
  if (op->phase == 0) {
    if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL,
                      shmcoll_reuse(sc, s, table)))
      return 0;
    for (int j = 0; j < sc->size; j++) {
      size_t len;
      const unsigned char *at = shmcoll_send_block(op, j, &len);
      mine[j] =
          (shmcoll_read_block_t){.addr = (uint64_t)(uintptr_t)at, .len = len};
    }
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    op->phase = 1;
  }
  if (op->phase == 1) {
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, SHMCOLL_ALL, s))
      return 0;
    size_t own_n;
    const unsigned char *own = shmcoll_send_block(op, me, &own_n);
    int ok = own_n == hc_shmcoll_block_len(op->counts, op->each, me);
    for (int k = 1; ok && k < sc->size; k++) {
      int j = (me + k) % sc->size;
      const shmcoll_read_block_t *theirs =
          (const shmcoll_read_block_t *)shmcoll_buf(sc, j, s, table) + me;
      size_t want = hc_shmcoll_block_len(op->counts, op->each, j);
      ok =
          theirs->len == want &&
          (want == 0 || hc_shmcoll_read_peer(
                            sc->world_ranks[j],
                            op->out + hc_shmcoll_block_at(op->displs, op->each, j),
                            theirs->addr, want));
    }
    unsigned char *to = op->out + hc_shmcoll_block_at(op->displs, op->each, me);
    if (ok && own_n > 0 && to != own) /* not in place */
      memcpy(to, own, own_n);
    mine[me].failed = !ok;
    shmcoll_publish(sc, SHMCOLL_DONE, s);
    op->phase = 2;
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL, s))
    return 0;
  for (int r = 0; r < sc->size; r++)
    if (((const shmcoll_read_block_t *)shmcoll_buf(sc, r, s, table))[r].failed)
      op->read_failed = 1;
  return 1;
}

/* Writes len bytes at from into to in world rank's memory, through the
 * transport that reaches it (its single-copy put); 0 where it cannot. */
static int shmcoll_write_peer(int world, const unsigned char *from, uint64_t to,
                              size_t len) {
  const hc_peer_t *p = &hc_engine.peers[world];
  return p->ops != NULL && p->ops->put != NULL &&
         p->ops->put(p->tctx, world, from, to, len) == HC_OK;
}

/* The bytes of a bcast of size that the root writes into the reader's
 * buffer (its front: whole cache lines) while the reader reads the rest.
 * On two ranks half, so that both cores copy at once: 64 KiB in 2.4 us
 * against 3.2 for the reader alone.  On more ranks none: the root's
 * writes to each reader in turn were slower than the readers reading all
 * at once (4 ranks on 2 cores, 64 KiB 13.5-14.4 us against 12.4-13.0;
 * bench/NOTES.md, coll16h). */
static size_t shmcoll_bcast_root_share(size_t size, int ranks) {
  return ranks == 2 ? size / 2 / SHMCOLL_LINE * SHMCOLL_LINE : 0;
}

/* A bcast straight between the root's buffer and the others', collective
 * number s: every rank names its buffer and raises posted; the root then
 * writes the front of the reader's buffer on two ranks while each reader
 * reads the rest from the root's (one copy of each byte, none through the
 * segment), and each raises done.  Every rank waits for every done: the root
 * keeps its buffer until the readers read it, a reader's buffer is complete
 * once the root wrote, and a failed copy (told in the descriptor, before
 * done) is seen by every rank alike, so that all take the other paths. */
int hc_shmcoll_bcast_read_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int root = sc->rank == op->root;
  size_t front = shmcoll_bcast_root_share(op->size, sc->size);
  shmcoll_line_t *mine = &sc->lines[sc->rank];
  if (op->phase == 0) {
    /* Every rank finished the last read (its done waits for all): none
     * reads these fields any more. */
    /* A rank whose buffer is an accessor's (an I-form of a strided type)
     * has none to read or write: it names a size no buffer has, so that
     * no rank copies, and every rank takes the pipeline behind. */
    mine->read_addr = (uint64_t)(uintptr_t)op->out;
    mine->read_len = op->acc != NULL ? UINT64_MAX : op->size;
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    op->phase = 1;
  }
  if (op->phase == 1) {
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, root ? SHMCOLL_ALL : op->root, s))
      return 0;
    int ok = op->acc == NULL;
    for (int r = 0; r < sc->size && root && ok && front > 0; r++)
      if (r != sc->rank)
        ok &= sc->lines[r].read_len == op->size &&
              shmcoll_write_peer(sc->world_ranks[r], op->out,
                                 sc->lines[r].read_addr, front);
    if (!root && ok) {
      const shmcoll_line_t *from = &sc->lines[op->root];
      ok = from->read_len == op->size &&
           (op->size == front ||
            hc_shmcoll_read_peer(sc->world_ranks[op->root], op->out + front,
                              from->read_addr + front, op->size - front));
    }
    if (!ok) /* reduced: this bcast's number tells the failure */
      atomic_store_explicit(&mine->flag[SHMCOLL_REDUCED], s,
                            memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
    op->phase = 2;
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL, s))
    return 0;
  for (int r = 0; r < sc->size; r++)
    if (atomic_load_explicit(&sc->lines[r].flag[SHMCOLL_REDUCED],
                             memory_order_relaxed) == s)
      op->read_failed = 1;
  return 1;
}

/* n bytes at out become the reduction, in rank order, of this rank's
 * input at in and the other's at address from in world rank's memory
 * (the same bytes of the vector), read one piece at a time; each piece
 * is then written to put_to on in that rank's memory too (0: not).  A
 * failed read or write (or no memory for a piece) sets op->read_failed
 * (to SHMCOLL_READ_FAILED_ALTERED where out is in, in place, and was
 * altered already). */
static void shmcoll_reduce_read_combine(hc_shmcoll_op_t *op, int world,
                                        uint64_t from, const unsigned char *in,
                                        unsigned char *out, size_t n_bytes,
                                        uint64_t put_to) {
  const hcomm_reduce_op_t *rop = &op->op;
  size_t es = rop->elem_size;
  size_t piece = SHMCOLL_REDUCE_READ_PIECE / es * es;
  int other_first = op->sc->rank == 1; /* the other is rank 0 */
  int in_place = out == in;
  /* fn(a, b) sets b = a op b.  Read straight into the result where this
   * rank's input is a separate buffer and may be the first operand; else
   * into a piece of its own: the result holds this rank's input and takes
   * the other's as first operand, or (rank 0, in place, an op that does
   * not commute) the piece takes the result and is copied back. */
  int into_out = !in_place && (!other_first || rop->commutative);
  int onto_out = !into_out && (other_first || rop->commutative);
  unsigned char *other = into_out ? NULL : malloc(piece);
  if (!into_out && other == NULL) {
    op->read_failed = 1;
    return;
  }
  size_t n;
  for (size_t at = 0; at < n_bytes; at += n) {
    n = n_bytes - at < piece ? n_bytes - at : piece;
    unsigned char *to = out + at;
    if (!hc_shmcoll_read_peer(world, into_out ? to : other, from + at, n)) {
      op->read_failed = in_place && at > 0 ? SHMCOLL_READ_FAILED_ALTERED : 1;
      break;
    }
    if (into_out) {
      rop->fn(in + at, to, n / es, rop->ctx);
    } else if (onto_out) {
      if (!in_place)
        memcpy(to, in + at, n);
      rop->fn(other, to, n / es, rop->ctx);
    } else {
      rop->fn(to, other, n / es, rop->ctx);
      memcpy(to, other, n);
    }
    if (put_to != 0 && !shmcoll_write_peer(world, to, put_to + at, n)) {
      op->read_failed = 1;
      break;
    }
  }
  free(other);
}

/* A reduce on two ranks straight from the other rank's input, collective
 * number s (no buffer of the segment): the other rank names its input in
 * its line and raises posted and done at once, then keeps its input until
 * the root's done; the root reads that input piece by piece and combines
 * each piece with its own while both are in its cache: one copy of the
 * other's vector and one pass over both, where the segment takes a copy
 * in, a copy out and the pass (2 ranks, 64 KiB 4.6-5.3 us against
 * 9.0-9.5 with the default streamed copy, 6.5-6.9 without;
 * bench/NOTES.md, coll16k).  A failed read is told by the root's
 * reduced flag at this number, before its done, so that both ranks take
 * the segment's path alike. */
int hc_shmcoll_reduce_read_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int other = 1 - sc->rank;
  shmcoll_line_t *mine = &sc->lines[sc->rank];
  size_t bytes = op->size * op->op.elem_size;
  if (sc->rank != op->root) {
    if (op->phase == 0) {
      /* The root read the last descriptor before its last done, which
       * this rank waited for. */
      mine->read_addr = (uint64_t)(uintptr_t)op->in;
      mine->read_len = bytes;
      atomic_store_explicit(&mine->flag[SHMCOLL_DONE], s, memory_order_relaxed);
      shmcoll_publish(sc, SHMCOLL_POSTED, s);
      op->phase = 1;
    }
    if (!hc_shmcoll_need(sc, SHMCOLL_DONE, op->root, s))
      return 0;
    if (atomic_load_explicit(&sc->lines[op->root].flag[SHMCOLL_REDUCED],
                             memory_order_relaxed) == s)
      op->read_failed = 1;
    return 1;
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, other, s))
    return 0;
  const shmcoll_line_t *theirs = &sc->lines[other];
  if (theirs->read_len != bytes)
    op->read_failed = 1;
  else
    shmcoll_reduce_read_combine(op, sc->world_ranks[other], theirs->read_addr,
                                op->in, op->out, bytes, 0);
  if (op->read_failed) /* reduced: this reduce's number tells the failure */
    atomic_store_explicit(&mine->flag[SHMCOLL_REDUCED], s,
                          memory_order_relaxed);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

/* An allreduce on two ranks straight between the buffers, collective
 * number s (not in place: a failed copy must leave the inputs for the
 * segment's path): each rank names its input and its result and raises
 * posted; then reads the other's input over its half of the vector (rank
 * 0 the front), combines it with its own piece by piece, writes each
 * piece into its own result and the other's (the single-copy put), and
 * raises done, a failure told by its reduced flag at this number; both
 * wait for both dones, so each input stays until it was read and each
 * result is whole.  Two copies of half the vector and half the passes on
 * each core, where the segment takes a copy in, a pass and a copy out of
 * the whole vector (2 ranks, 64 KiB 5.2-5.4 us against 11.0-11.2, or
 * 18.8-18.9 with the default streamed copy; Open MPI 17-18;
 * bench/NOTES.md, coll16k).  A reduce_scatter likewise over its own
 * block, into its result, writing nothing to the other. */
int hc_shmcoll_allreduce_read_step(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  int other = 1 - sc->rank;
  shmcoll_line_t *mine = &sc->lines[sc->rank];
  const shmcoll_line_t *theirs = &sc->lines[other];
  size_t bytes = op->size * op->op.elem_size;
  size_t half = op->size / 2 * op->op.elem_size;
  if (op->phase == 0) {
    /* The other rank read the last descriptor before its last done, which
     * this rank waited for. */
    mine->read_addr = (uint64_t)(uintptr_t)op->in;
    mine->read_len = bytes;
    mine->write_addr = (uint64_t)(uintptr_t)op->out;
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    op->phase = 1;
  }
  if (op->phase == 1) {
    if (!hc_shmcoll_need(sc, SHMCOLL_POSTED, other, s))
      return 0;
    size_t at = sc->rank == 0 ? 0 : half,
           n = sc->rank == 0 ? half : bytes - half;
    unsigned char *out = op->out + at;
    uint64_t put_to = theirs->write_addr + at;
    if (op->what == SHMCOLL_OP_REDUCE_SCATTER_READ) { /* its own block */
      at = op->slice_at * op->op.elem_size;
      n = op->slice_n * op->op.elem_size;
      out = op->out;
      put_to = 0;
    }
    if (theirs->read_len != bytes)
      op->read_failed = 1;
    else
      shmcoll_reduce_read_combine(op, sc->world_ranks[other],
                                  theirs->read_addr + at, op->in + at, out, n,
                                  put_to);
    if (op->read_failed) /* reduced: this number tells the failure */
      atomic_store_explicit(&mine->flag[SHMCOLL_REDUCED], s,
                            memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_DONE, s);
    op->phase = 2;
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, other, s))
    return 0;
  if (atomic_load_explicit(&theirs->flag[SHMCOLL_REDUCED],
                           memory_order_relaxed) == s)
    op->read_failed = 1;
  return 1;
}

/* ---- gather: blocks read in place by the root ---- */

/* Blocks of this many bytes and more are messages again: the shm
 * transport's rendezvous copies them through its ring on both cores at
 * once, where a read is one core's (2 ranks, Gatherv 64 KiB 3.8-4.1 us
 * both ways; bench/NOTES.md, root16c).  A scatter's blocks are always
 * messages: its receivers' reads lost to them (16 KiB 1.33 against 1.20
 * us, 32 KiB 2.55 against 1.9, 64 KiB 4.2-4.6 against 2.9-3.2). */
#define SHMCOLL_ROOTED_READ_BELOW ((size_t)64 << 10)

int hc_shmcoll_rooted_reads(const hc_shmcoll_op_t *op, size_t len) {
  return op->rooted_failed != NULL && op->what == SHMCOLL_OP_GATHER &&
         !shmcoll_rooted_spanned(op->sc, op->nchunks, len) &&
         len >= hc_shmcoll_tuning.rooted_read_min &&
         len < SHMCOLL_ROOTED_READ_BELOW;
}

/* Bytes a reader through an accessor reads at a time, then unpacks. */
#define SHMCOLL_ROOTED_READ_CHUNK ((size_t)16 << 10)

/* Reads the block that desc names, of len bytes, from world rank's
 * memory into op's output at at (through its accessor where it has
 * one).  0: not read (no address named, sizes that disagree, a failed
 * read). */
static int shmcoll_rooted_read(const hc_shmcoll_op_t *op, int world, size_t at,
                               const shmcoll_read_block_t *desc, size_t len) {
  if (desc->len != len)
    return 0;
  if (op->out_acc == NULL)
    return hc_shmcoll_read_peer(world, op->out + at, desc->addr, len);
  unsigned char chunk[SHMCOLL_ROOTED_READ_CHUNK];
  for (size_t done = 0; done < len; done += sizeof chunk) {
    size_t n = len - done < sizeof chunk ? len - done : sizeof chunk;
    if (!hc_shmcoll_read_peer(world, chunk, desc->addr + done, n))
      return 0;
    hc_shmcoll_rooted_put(op, at + done, chunk, n);
  }
  return 1;
}

static void shmcoll_rooted_mark(hc_shmcoll_op_t *op, int r) {
  op->rooted_failed[r / 64] |= (uint64_t)1 << (r % 64);
}

int hc_shmcoll_gather_read_send(hc_shmcoll_op_t *op, uint32_t s) {
  hc_shmcoll_t *sc = op->sc;
  shmcoll_read_block_t *mine =
      (shmcoll_read_block_t *)shmcoll_buf(sc, sc->rank, s, sc->small);
  if (op->phase == 0) {
    if (!hc_shmcoll_need(sc, SHMCOLL_DONE, SHMCOLL_ALL,
                         shmcoll_reuse(sc, s, sc->small)))
      return 0;
    *mine = op->in_acc != NULL /* no address to name */
                ? (shmcoll_read_block_t){.len = SHMCOLL_ROOTED_NO_ADDR}
                : (shmcoll_read_block_t){.addr = (uint64_t)(uintptr_t)op->in,
                                         .len = op->size};
    if (op->in_acc != NULL) /* its message carries it: done with the post */
      atomic_store_explicit(&sc->lines[sc->rank].flag[SHMCOLL_DONE], s,
                            memory_order_relaxed);
    shmcoll_publish(sc, SHMCOLL_POSTED, s);
    op->phase = 1;
    if (op->in_acc != NULL)
      return 1;
  }
  if (!hc_shmcoll_need(sc, SHMCOLL_DONE, op->root, s))
    return 0;
  if (mine->failed)
    shmcoll_rooted_mark(op, 0);
  shmcoll_publish(sc, SHMCOLL_DONE, s);
  return 1;
}

void hc_shmcoll_gather_read_block(hc_shmcoll_op_t *op, uint32_t s, int r,
                                  size_t at, size_t len) {
  hc_shmcoll_t *sc = op->sc;
  shmcoll_read_block_t *theirs =
      (shmcoll_read_block_t *)shmcoll_buf(sc, r, s, sc->small);
  theirs->failed =
      !shmcoll_rooted_read(op, sc->world_ranks[r], at, theirs, len);
  if (theirs->failed)
    shmcoll_rooted_mark(op, r);
}
