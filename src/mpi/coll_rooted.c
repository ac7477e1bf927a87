/*
 * Gather, scatter and their v-forms, in their blocking, I- and persistent
 * (MPI_*_init) forms, int and large-count: the collectives with one root
 * and a block per rank at it (Bcast: coll_bcast.c).  One function serves
 * each collective's three forms.  Beside the general way through
 * coll_ctx.c's byte views: the blocking fast path (predefined dense types
 * in host memory), the user's buffers as they are in the node's shared
 * segment, and streams for large derived types.
 */
#include "mpi/coll_impl.h"
#include "mpi/devstage.h"
#include "mpi/mpi_trace.h"

#include <stdint.h>

/* ---- gather and scatter of derived types, streamed ----------------------- */

/* What the streamed forms return when this rank moves its blocks as
 * packed views instead (the path below them). */
#define MOVE_PLAIN (-1)

/* A side of bytes packed bytes of type t at buf: 1 when it is a derived
 * type in host memory large enough to stream (above
 * HC_MPI_COLL_STREAM_MIN, as Bcast does), so no packed copy of it is
 * made. */
static int move_streams(const void *buf, const hc_mpi_type_t *t, size_t bytes) {
  hcomm_mem_info_t info;
  return t != NULL && !hc_mpi_type_dense(t) && bytes > HC_MPI_COLL_STREAM_MIN &&
         !hc_mpi_dev_classify(buf, &info);
}

/* A side the engine may reach through an accessor: host memory, or none. */
static int move_host(const void *buf) {
  hcomm_mem_info_t info;
  return buf == MPI_IN_PLACE || !hc_mpi_dev_classify(buf, &info);
}

/* The root's table of n blocks of t: bytes, and offsets in the stream of
 * t's elements at the buffer (displs in extents are element indices);
 * NULL when a displacement is negative (no stream offset) or on no
 * memory (*nomem). */
static size_t *move_stream_table(hc_mpi_coll_t *cx, const hc_mpi_type_t *t,
                                 int n, hc_mpi_vec_t counts,
                                 hc_mpi_vec_t displs, int *nomem) {
  size_t *tab = hc_mpi_coll_sizes(cx, n);
  *nomem = tab == NULL;
  for (int r = 0; tab != NULL && r < n; r++) {
    MPI_Count d = hc_mpi_vec_at(displs, r);
    if (d < 0)
      return NULL;
    tab[r] = (size_t)hc_mpi_vec_at(counts, r) * (size_t)t->size;
    tab[n + r] = (size_t)d * (size_t)t->size;
  }
  return tab;
}

/* Gather(v) (gather) or Scatter(v) on an intracommunicator where this
 * rank has a side worth streaming: its sides go to the engine as
 * accessors (hcomm_gatherv_acc, hcomm_scatterv_acc; in_segment, a blocking
 * v-form in the segment: hcomm_gatherv_stream, hcomm_scatterv_stream).
 * "one" is this rank's block (the send side of a gather, the receive side
 * of a scatter; MPI_IN_PLACE at the root), "many" the root's per-rank
 * blocks.  MOVE_PLAIN when this rank has no such side, or the engine's
 * pattern there would not be linear, or a fixed form in the segment. */
static int move_rooted_stream(const char *fn, hc_mpi_comm_t *c, int gather,
                              int is_root, void *one, const hc_mpi_type_t *ot,
                              MPI_Count one_count, void *many,
                              const hc_mpi_type_t *mt, hc_mpi_vec_t counts,
                              hc_mpi_vec_t displs, int vform, int root,
                              MPI_Request *request, int persist,
                              int in_segment) {
  if (in_segment && !vform) /* its blocks are too small to stream */
    return MOVE_PLAIN;
  int size = hcomm_comm_size(c->engine), in_place = one == MPI_IN_PLACE;
  size_t block = is_root ? hc_mpi_coll_bytes(mt, hc_mpi_vec_at(counts, 0))
                         : hc_mpi_coll_bytes(ot, one_count);
  size_t one_bytes = in_place ? 0 : hc_mpi_coll_bytes(ot, one_count), total = 0;
  for (int r = 0; is_root && r < size; r++)
    total += hc_mpi_coll_bytes(mt, hc_mpi_vec_at(counts, vform ? r : 0));
  if (!(move_streams(one, ot, one_bytes) ||
        (is_root && move_streams(many, mt, total))) ||
      !move_host(one) || (is_root && !move_host(many)))
    return MOVE_PLAIN;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  const hcomm_accessor_t *oacc =
      in_place ? NULL : hc_mpi_coll_stream(cx, one, ot);
  const hcomm_accessor_t *macc =
      is_root ? hc_mpi_coll_stream(cx, many, mt) : NULL;
  size_t *tab = NULL;
  int nomem = 0;
  if (is_root && vform)
    tab = move_stream_table(cx, mt, size, counts, displs, &nomem);
  if ((!in_place && oacc == NULL) || (is_root && macc == NULL) || nomem)
    return hc_mpi_coll_nomem(fn, c, cx);
  hcomm_request_t *eng = NULL;
  hc_status_t st = HC_ERR_NOT_SUPPORTED;
  size_t *offs = tab != NULL ? tab + size : NULL,
         bytes = vform ? one_bytes : block;
  if (is_root && vform && tab == NULL)
    ; /* a negative displacement: no stream offset for it */
  else if (in_segment)
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(
            cx, gather ? hcomm_gatherv_stream(oacc, bytes, macc, tab, offs,
                                              root, c->engine)
                       : hcomm_scatterv_stream(macc, tab, offs, oacc, bytes,
                                               root, c->engine)));
  else if (gather)
    st = hcomm_gatherv_acc(oacc, bytes, macc, vform, tab, offs, root, c->engine,
                           persist, &eng);
  else
    st = hcomm_scatterv_acc(macc, vform, tab, offs, oacc, bytes, root,
                            c->engine, persist, &eng);
  if (st == HC_ERR_NOT_SUPPORTED) {
    hc_mpi_coll_free(cx);
    return MOVE_PLAIN;
  }
  return hc_mpi_coll_finish(fn, c, cx, st, eng, request);
}

/* ---- gather -------------------------------------------------------------- */

/* A blocking Gather(v) or Scatter(v) (on an intracommunicator) that the
 * engine runs in the node's shared segment (the same answer on every
 * rank; block: the fixed form's block in bytes): then every rank hands it
 * packed views, or in the v-forms its sides' streams where it has a side
 * worth streaming (move_rooted_stream), and every rank takes the
 * segment's turn alike.  The fixed forms' blocks there are too small to
 * stream. */
static int move_rooted_in_segment(hc_mpi_comm_t *c, const MPI_Request *request,
                                  int persist, int vform, size_t block) {
  return request == NULL && !persist &&
         hcomm_rooted_in_segment(c->engine, vform, block);
}

/* A blocking Gatherv (gather) or Scatterv in the segment, its arguments
 * checked, whose sides on this rank are dense types in host memory on a
 * small communicator: the engine takes the user's buffers as they are,
 * the root's table on the stack (no views, nothing allocated; as
 * coll_allgather.c's move_allgatherv_direct).  "one" and "many" as
 * move_rooted_stream's.
 * 0: not such a call, nothing done; 1: done, *rc its result. */
static int move_rooted_direct(const char *fn, hc_mpi_comm_t *c, int gather,
                              int is_root, int size, void *one,
                              const hc_mpi_type_t *ot, MPI_Count one_count,
                              void *many, const hc_mpi_type_t *mt,
                              hc_mpi_vec_t counts, hc_mpi_vec_t displs,
                              int root, int *rc) {
  size_t bytes[HC_MPI_COLL_STACK_RANKS], offs[HC_MPI_COLL_STACK_RANKS];
  int in_place = one == MPI_IN_PLACE;
  if (size > HC_MPI_COLL_STACK_RANKS ||
      (!in_place && !hc_mpi_coll_direct(one, ot)) ||
      (is_root && !hc_mpi_coll_direct(many, mt)))
    return 0;
  for (int i = 0; is_root && i < size; i++) {
    MPI_Count d = hc_mpi_vec_at(displs, i);
    if (d < 0)
      return 0;
    bytes[i] = hc_mpi_coll_bytes(mt, hc_mpi_vec_at(counts, i));
    offs[i] = (size_t)(d * mt->extent);
  }
  void *mine = in_place ? HCOMM_IN_PLACE : one;
  size_t mine_bytes = in_place ? 0 : hc_mpi_coll_bytes(ot, one_count);
  const size_t *tb = is_root ? bytes : NULL, *to = is_root ? offs : NULL;
  *rc = hc_mpi_raise_status(
      c, fn,
      gather ? hcomm_gatherv(mine, mine_bytes, many, tb, to, root, c->engine)
             : hcomm_scatterv(many, tb, to, mine, mine_bytes, root, c->engine));
  return 1;
}

static int move_gather(const char *fn, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       hc_mpi_vec_t recvcounts, hc_mpi_vec_t displs, int vform,
                       MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *st = NULL, *rt = NULL;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter_rooted(fn, comm, root, 0, MPI_DATATYPE_NULL,
                                    request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* size: the blocks at the root, one per rank of the sending group. */
  int size = hcomm_comm_peer_size(c->engine), inter = hc_mpi_coll_inter(c);
  /* An intercommunicator's root group sends nothing. */
  int is_root = hc_mpi_coll_is_root(c, root), sends = !inter || root >= 0;
  int in_place = sends && sendbuf == MPI_IN_PLACE;
  if (sends)
    rc =
        hc_mpi_coll_one_side(fn, c, is_root, sendbuf, sendcount, sendtype, &st);
  if (rc == MPI_SUCCESS && is_root)
    rc = hc_mpi_coll_per_rank(fn, c, size, recvcounts, displs, vform, recvtype,
                              "recvcounts", &rt);
  if (rc == MPI_SUCCESS && is_root && sends && !in_place)
    rc = hc_mpi_coll_match(
        fn, c, hc_mpi_coll_bytes(st, sendcount),
        hc_mpi_coll_bytes(rt, hc_mpi_vec_at(recvcounts, vform ? root : 0)));
  if (rc == MPI_SUCCESS && is_root && !inter && !in_place)
    rc = hc_mpi_coll_alias(fn, c, sendbuf, st, sendcount, recvbuf, rt, size,
                           recvcounts, displs, vform);
  if (rc != MPI_SUCCESS)
    return rc;
  /* (an intercommunicator's side may have no type) */
  int in_segment =
      !inter &&
      move_rooted_in_segment(
          c, request, persist, vform,
          is_root ? hc_mpi_coll_bytes(rt, hc_mpi_vec_at(recvcounts, 0))
                  : hc_mpi_coll_bytes(st, sendcount));
  if (in_segment && vform &&
      move_rooted_direct(fn, c, 1, is_root, size, (void *)sendbuf, st,
                         sendcount, recvbuf, rt, recvcounts, displs, root, &rc))
    return rc;
  if (!inter) {
    rc = move_rooted_stream(fn, c, 1, is_root, (void *)sendbuf, st, sendcount,
                            recvbuf, rt, recvcounts, displs, vform, root,
                            request, persist, in_segment);
    if (rc != MOVE_PLAIN)
      return rc;
  }

  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t sbytes = 0, soff, *sz = hc_mpi_coll_sizes(cx, size);
  const void *sview = HCOMM_IN_PLACE;
  void *rview = NULL;
  hc_mpi_coll_block_t sb = {st, sendcount, 0};
  if (sends && !in_place)
    sview = hc_mpi_coll_send_view(cx, sendbuf, 1, &sb, &sbytes, &soff);
  if (is_root && sz != NULL) {
    hc_mpi_coll_block_t *rb =
        hc_mpi_coll_blocks(cx, rt, size, recvcounts, displs);
    if (rb != NULL)
      rview =
          hc_mpi_coll_recv_view(cx, recvbuf, size, rb, in_place, sz, sz + size);
  }
  if (sz == NULL || sview == NULL || (is_root && rview == NULL))
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t bytes = is_root ? sz[0] : sbytes;
  if (in_segment)
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(
            cx, vform ? hcomm_gatherv(sview, sbytes, rview, sz, sz + size, root,
                                      c->engine)
                      : hcomm_gather(sview, bytes, rview, root, c->engine)));
  if (inter && vform)
    rc = hcomm_inter_gatherv(sview, sbytes, rview, sz, sz + size, root,
                             c->engine, persist, &eng);
  else if (inter)
    rc =
        hcomm_inter_gather(sview, bytes, rview, root, c->engine, persist, &eng);
  else if (vform && persist)
    rc = hcomm_gatherv_init(sview, sbytes, rview, sz, sz + size, root,
                            c->engine, &eng);
  else if (vform)
    rc = hcomm_igatherv(sview, sbytes, rview, sz, sz + size, root, c->engine,
                        &eng);
  else if (persist)
    rc = hcomm_gather_init(sview, bytes, rview, root, c->engine, &eng);
  else
    rc = hcomm_igather(sview, bytes, rview, root, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, rc, eng, request);
}

/* The fast path of a blocking Gather(v) (gather) or Scatter(v) on an
 * intracommunicator (hc_mpi_coll_fast): "one" is this rank's block (the
 * send side of a gather), "many" the root's blocks (counts, and in the
 * v-forms displs, elements; the root's table on the stack); both of
 * predefined dense types in host memory, the root's two sides alike in
 * bytes.  Its result, or -1 when the call goes the general way (which
 * checks and raises).  The engine chooses the segment or the schedule. */
static int move_rooted_fast(const char *fn, int gather, const void *one,
                            MPI_Count one_count, MPI_Datatype one_type,
                            const void *many, hc_mpi_vec_t counts,
                            hc_mpi_vec_t displs, int vform,
                            MPI_Datatype many_type, int root, MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  if (f == NULL || root < 0 || root >= f->size ||
      (vform && f->size > HC_MPI_COLL_STACK_RANKS))
    return -1;
  int is_root = f->rank == root;
  long long bytes = hc_mpi_coll_fast_side(f, one, one_count, one_type, is_root);
  size_t sizes[HC_MPI_COLL_STACK_RANKS], offs[HC_MPI_COLL_STACK_RANKS];
  if (is_root) {
    if (vform && hc_mpi_coll_fast_table(f, many, counts, displs, many_type,
                                        sizes, offs) != 0)
      return -1;
    long long each =
        vform ? (long long)sizes[root]
              : hc_mpi_coll_fast_side(f, many, hc_mpi_vec_at(counts, 0),
                                      many_type, 0);
    if (each < 0 || (one != MPI_IN_PLACE && bytes != each))
      return -1;
    /* The root's one block inside its many: the general way refuses it. */
    size_t lo = 0, span = vform ? hc_mpi_coll_span(sizes, offs, f->size, &lo)
                                : (size_t)each * (size_t)f->size;
    if (one != MPI_IN_PLACE &&
        hc_mpi_coll_overlap(one, (size_t)each, (const char *)many + lo, span))
      return -1;
    bytes = each;
  }
  if (bytes < 0 || !hc_mpi_coll_host(one == MPI_IN_PLACE ? NULL : one,
                                     is_root ? many : NULL))
    return -1;
  const void *in = one == MPI_IN_PLACE ? HCOMM_IN_PLACE : one;
  const size_t *tb = is_root ? sizes : NULL, *to = is_root ? offs : NULL;
  hc_status_t st;
  if (vform)
    st = gather ? hcomm_gatherv(in, (size_t)bytes, (void *)many, tb, to, root,
                                c->engine)
                : hcomm_scatterv(many, tb, to, (void *)in, (size_t)bytes, root,
                                 c->engine);
  else
    st = gather
             ? hcomm_gather(in, (size_t)bytes, (void *)many, root, c->engine)
             : hcomm_scatter(many, (size_t)bytes, (void *)in, root, c->engine);
  return hc_mpi_raise_status(c, fn, st);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_gather_entry(const char *fn, const void *sendbuf,
                             MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_rooted_fast(fn, 1, sendbuf, sendcount, sendtype, recvbuf,
                            hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL),
                            0, recvtype, root, comm);
  if (rc < 0)
    rc = move_gather(fn, sendbuf, sendcount, sendtype, recvbuf,
                     hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                     recvtype, root, comm, NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_GATHER, t0, root, -1,
                  hc_mpi_trace_bytes(sendcount, sendtype));
  return rc;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return move_gather_entry("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Gather, PMPI_Gather);

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return move_gather_entry("MPI_Gather_c", sendbuf, sendcount, sendtype,
                           recvbuf, recvcount, recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Gather_c, PMPI_Gather_c);

static int move_igather_entry(const char *fn, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_gather(fn, sendbuf, sendcount, sendtype, recvbuf,
                       hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                       recvtype, root, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IGATHER, t0, root, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
  return move_igather_entry("MPI_Igather", sendbuf, sendcount, sendtype,
                            recvbuf, recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Igather, PMPI_Igather);

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
  return move_igather_entry("MPI_Igather_c", sendbuf, sendcount, sendtype,
                            recvbuf, recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Igather_c, PMPI_Igather_c);

static int move_gatherv_entry(const char *fn, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, hc_mpi_vec_t recvcounts,
                              hc_mpi_vec_t displs, MPI_Datatype recvtype,
                              int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_rooted_fast(fn, 1, sendbuf, sendcount, sendtype, recvbuf,
                            recvcounts, displs, 1, recvtype, root, comm);
  if (rc < 0)
    rc = move_gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                     displs, 1, recvtype, root, comm, NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_GATHERV, t0, root, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return move_gatherv_entry("MPI_Gatherv", sendbuf, sendcount, sendtype,
                            recvbuf, hc_mpi_vec_int(recvcounts),
                            hc_mpi_vec_int(displs), recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Gatherv, PMPI_Gatherv);

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return move_gatherv_entry("MPI_Gatherv_c", sendbuf, sendcount, sendtype,
                            recvbuf, hc_mpi_vec_wide(recvcounts),
                            hc_mpi_vec_wide(displs), recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Gatherv_c, PMPI_Gatherv_c);

static int move_igatherv_entry(const char *fn, const void *sendbuf,
                               MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, hc_mpi_vec_t recvcounts,
                               hc_mpi_vec_t displs, MPI_Datatype recvtype,
                               int root, MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, 1, recvtype, root, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IGATHERV, t0, root, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  return move_igatherv_entry("MPI_Igatherv", sendbuf, sendcount, sendtype,
                             recvbuf, hc_mpi_vec_int(recvcounts),
                             hc_mpi_vec_int(displs), recvtype, root, comm,
                             request);
}
HC_WEAK_ALIAS(MPI_Igatherv, PMPI_Igatherv);

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                    MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request) {
  return move_igatherv_entry("MPI_Igatherv_c", sendbuf, sendcount, sendtype,
                             recvbuf, hc_mpi_vec_wide(recvcounts),
                             hc_mpi_vec_wide(displs), recvtype, root, comm,
                             request);
}
HC_WEAK_ALIAS(MPI_Igatherv_c, PMPI_Igatherv_c);

static int move_gather_init_entry(const char *fn, const void *sendbuf,
                                  MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount,
                                  MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_gather(fn, sendbuf, sendcount, sendtype, recvbuf,
                     hc_mpi_vec_wide(&recvcount), hc_mpi_vec_int(NULL), 0,
                     recvtype, root, comm, request, 1);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
  return move_gather_init_entry("MPI_Gather_init", sendbuf, sendcount, sendtype,
                                recvbuf, recvcount, recvtype, root, comm, info,
                                request);
}
HC_WEAK_ALIAS(MPI_Gather_init, PMPI_Gather_init);

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_gather_init_entry("MPI_Gather_init_c", sendbuf, sendcount,
                                sendtype, recvbuf, recvcount, recvtype, root,
                                comm, info, request);
}
HC_WEAK_ALIAS(MPI_Gather_init_c, PMPI_Gather_init_c);

static int move_gatherv_init_entry(const char *fn, const void *sendbuf,
                                   MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, hc_mpi_vec_t recvcounts,
                                   hc_mpi_vec_t displs, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                     displs, 1, recvtype, root, comm, request, 1);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request) {
  return move_gatherv_init_entry("MPI_Gatherv_init", sendbuf, sendcount,
                                 sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
                                 hc_mpi_vec_int(displs), recvtype, root, comm,
                                 info, request);
}
HC_WEAK_ALIAS(MPI_Gatherv_init, PMPI_Gatherv_init);

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request) {
  return move_gatherv_init_entry("MPI_Gatherv_init_c", sendbuf, sendcount,
                                 sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
                                 hc_mpi_vec_wide(displs), recvtype, root, comm,
                                 info, request);
}
HC_WEAK_ALIAS(MPI_Gatherv_init_c, PMPI_Gatherv_init_c);

/* ---- scatter ------------------------------------------------------------- */

static int move_scatter(const char *fn, const void *sendbuf,
                        hc_mpi_vec_t sendcounts, hc_mpi_vec_t displs, int vform,
                        MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  const hc_mpi_type_t *st = NULL, *rt = NULL;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter_rooted(fn, comm, root, 0, MPI_DATATYPE_NULL,
                                    request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* size: the blocks at the root, one per rank of the receiving group. */
  int size = hcomm_comm_peer_size(c->engine), inter = hc_mpi_coll_inter(c);
  /* An intercommunicator's root group receives nothing. */
  int is_root = hc_mpi_coll_is_root(c, root), receives = !inter || root >= 0;
  int in_place = receives && recvbuf == MPI_IN_PLACE;
  /* MPI_IN_PLACE is the receive buffer here. */
  if (receives)
    rc =
        hc_mpi_coll_one_side(fn, c, is_root, recvbuf, recvcount, recvtype, &rt);
  if (rc == MPI_SUCCESS && is_root)
    rc = hc_mpi_coll_per_rank(fn, c, size, sendcounts, displs, vform, sendtype,
                              "sendcounts", &st);
  if (rc == MPI_SUCCESS && is_root && receives && !in_place)
    rc = hc_mpi_coll_match(
        fn, c,
        hc_mpi_coll_bytes(st, hc_mpi_vec_at(sendcounts, vform ? root : 0)),
        hc_mpi_coll_bytes(rt, recvcount));
  if (rc == MPI_SUCCESS && is_root && !inter && !in_place)
    rc = hc_mpi_coll_alias(fn, c, recvbuf, rt, recvcount, sendbuf, st, size,
                           sendcounts, displs, vform);
  if (rc != MPI_SUCCESS)
    return rc;
  int in_segment =
      !inter &&
      move_rooted_in_segment(
          c, request, persist, vform,
          is_root ? hc_mpi_coll_bytes(st, hc_mpi_vec_at(sendcounts, 0))
                  : hc_mpi_coll_bytes(rt, recvcount));
  if (in_segment && vform &&
      move_rooted_direct(fn, c, 0, is_root, size, recvbuf, rt, recvcount,
                         (void *)sendbuf, st, sendcounts, displs, root, &rc))
    return rc;
  if (!inter) {
    rc = move_rooted_stream(fn, c, 0, is_root, recvbuf, rt, recvcount,
                            (void *)sendbuf, st, sendcounts, displs, vform,
                            root, request, persist, in_segment);
    if (rc != MOVE_PLAIN)
      return rc;
  }

  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  if (cx == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t rbytes = 0, roff, *sz = hc_mpi_coll_sizes(cx, size);
  const void *sview = NULL;
  void *rview = HCOMM_IN_PLACE;
  hc_mpi_coll_block_t rb = {rt, recvcount, 0};
  if (receives && !in_place)
    rview = hc_mpi_coll_recv_view(cx, recvbuf, 1, &rb, 0, &rbytes, &roff);
  if (is_root && sz != NULL) {
    hc_mpi_coll_block_t *sb =
        hc_mpi_coll_blocks(cx, st, size, sendcounts, displs);
    if (sb != NULL)
      sview = hc_mpi_coll_send_view(cx, sendbuf, size, sb, sz, sz + size);
  }
  if (sz == NULL || rview == NULL || (is_root && sview == NULL))
    return hc_mpi_coll_nomem(fn, c, cx);
  size_t bytes = is_root ? sz[0] : rbytes;
  if (in_segment)
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(
            cx, vform ? hcomm_scatterv(sview, sz, sz + size, rview, rbytes,
                                       root, c->engine)
                      : hcomm_scatter(sview, bytes, rview, root, c->engine)));
  if (inter && vform)
    rc = hcomm_inter_scatterv(sview, sz, sz + size, rview, rbytes, root,
                              c->engine, persist, &eng);
  else if (inter)
    rc = hcomm_inter_scatter(sview, bytes, rview, root, c->engine, persist,
                             &eng);
  else if (vform && persist)
    rc = hcomm_scatterv_init(sview, sz, sz + size, rview, rbytes, root,
                             c->engine, &eng);
  else if (vform)
    rc = hcomm_iscatterv(sview, sz, sz + size, rview, rbytes, root, c->engine,
                         &eng);
  else if (persist)
    rc = hcomm_scatter_init(sview, bytes, rview, root, c->engine, &eng);
  else
    rc = hcomm_iscatter(sview, bytes, rview, root, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, rc, eng, request);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_scatter_entry(const char *fn, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_rooted_fast(fn, 0, recvbuf, recvcount, recvtype, sendbuf,
                            hc_mpi_vec_wide(&sendcount), hc_mpi_vec_int(NULL),
                            0, sendtype, root, comm);
  if (rc < 0)
    rc = move_scatter(fn, sendbuf, hc_mpi_vec_wide(&sendcount),
                      hc_mpi_vec_int(NULL), 0, sendtype, recvbuf, recvcount,
                      recvtype, root, comm, NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_SCATTER, t0, root, -1,
                  hc_mpi_trace_bytes(recvcount, recvtype));
  return rc;
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return move_scatter_entry("MPI_Scatter", sendbuf, sendcount, sendtype,
                            recvbuf, recvcount, recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Scatter, PMPI_Scatter);

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return move_scatter_entry("MPI_Scatter_c", sendbuf, sendcount, sendtype,
                            recvbuf, recvcount, recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Scatter_c, PMPI_Scatter_c);

static int move_iscatter_entry(const char *fn, const void *sendbuf,
                               MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_scatter(fn, sendbuf, hc_mpi_vec_wide(&sendcount),
                        hc_mpi_vec_int(NULL), 0, sendtype, recvbuf, recvcount,
                        recvtype, root, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_ISCATTER, t0, root, -1,
                               hc_mpi_trace_bytes(recvcount, recvtype))
            : rc;
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request) {
  return move_iscatter_entry("MPI_Iscatter", sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Iscatter, PMPI_Iscatter);

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request) {
  return move_iscatter_entry("MPI_Iscatter_c", sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Iscatter_c, PMPI_Iscatter_c);

static int move_scatterv_entry(const char *fn, const void *sendbuf,
                               hc_mpi_vec_t sendcounts, hc_mpi_vec_t displs,
                               MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_rooted_fast(fn, 0, recvbuf, recvcount, recvtype, sendbuf,
                            sendcounts, displs, 1, sendtype, root, comm);
  if (rc < 0)
    rc = move_scatter(fn, sendbuf, sendcounts, displs, 1, sendtype, recvbuf,
                      recvcount, recvtype, root, comm, NULL, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_SCATTERV, t0, root, -1,
                               hc_mpi_trace_bytes(recvcount, recvtype))
            : rc;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  return move_scatterv_entry("MPI_Scatterv", sendbuf,
                             hc_mpi_vec_int(sendcounts), hc_mpi_vec_int(displs),
                             sendtype, recvbuf, recvcount, recvtype, root,
                             comm);
}
HC_WEAK_ALIAS(MPI_Scatterv, PMPI_Scatterv);

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint displs[], MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
  return move_scatterv_entry("MPI_Scatterv_c", sendbuf,
                             hc_mpi_vec_wide(sendcounts),
                             hc_mpi_vec_wide(displs), sendtype, recvbuf,
                             recvcount, recvtype, root, comm);
}
HC_WEAK_ALIAS(MPI_Scatterv_c, PMPI_Scatterv_c);

static int move_iscatterv_entry(const char *fn, const void *sendbuf,
                                hc_mpi_vec_t sendcounts, hc_mpi_vec_t displs,
                                MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_scatter(fn, sendbuf, sendcounts, displs, 1, sendtype, recvbuf,
                        recvcount, recvtype, root, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_ISCATTERV, t0, root, -1,
                               hc_mpi_trace_bytes(recvcount, recvtype))
            : rc;
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request) {
  return move_iscatterv_entry("MPI_Iscatterv", sendbuf,
                              hc_mpi_vec_int(sendcounts),
                              hc_mpi_vec_int(displs), sendtype, recvbuf,
                              recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Iscatterv, PMPI_Iscatterv);

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint displs[], MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request *request) {
  return move_iscatterv_entry("MPI_Iscatterv_c", sendbuf,
                              hc_mpi_vec_wide(sendcounts),
                              hc_mpi_vec_wide(displs), sendtype, recvbuf,
                              recvcount, recvtype, root, comm, request);
}
HC_WEAK_ALIAS(MPI_Iscatterv_c, PMPI_Iscatterv_c);

static int move_scatter_init_entry(const char *fn, const void *sendbuf,
                                   MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_scatter(fn, sendbuf, hc_mpi_vec_wide(&sendcount),
                      hc_mpi_vec_int(NULL), 0, sendtype, recvbuf, recvcount,
                      recvtype, root, comm, request, 1);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request) {
  return move_scatter_init_entry("MPI_Scatter_init", sendbuf, sendcount,
                                 sendtype, recvbuf, recvcount, recvtype, root,
                                 comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scatter_init, PMPI_Scatter_init);

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_scatter_init_entry("MPI_Scatter_init_c", sendbuf, sendcount,
                                 sendtype, recvbuf, recvcount, recvtype, root,
                                 comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scatter_init_c, PMPI_Scatter_init_c);

static int move_scatterv_init_entry(const char *fn, const void *sendbuf,
                                    hc_mpi_vec_t sendcounts,
                                    hc_mpi_vec_t displs, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_scatter(fn, sendbuf, sendcounts, displs, 1, sendtype, recvbuf,
                      recvcount, recvtype, root, comm, request, 1);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_scatterv_init_entry(
      "MPI_Scatterv_init", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
      comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scatterv_init, PMPI_Scatterv_init);

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request) {
  return move_scatterv_init_entry(
      "MPI_Scatterv_init_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(displs), sendtype, recvbuf, recvcount, recvtype, root,
      comm, info, request);
}
HC_WEAK_ALIAS(MPI_Scatterv_init_c, PMPI_Scatterv_init_c);
