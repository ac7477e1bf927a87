/*
 * Alltoall, alltoallv and alltoallw in their blocking, I- and _init forms,
 * int and large-count: each side's blocks (one per rank of the other
 * group on an intercommunicator) become the engine's byte views through
 * coll_ctx.c, as for the other data-moving collectives (coll_bcast.c,
 * coll_rooted.c, coll_allgather.c).
 */
#include "mpi/coll_impl.h"
#include "mpi/mpi_trace.h"

#include <string.h>

/* ---- alltoall ------------------------------------------------------------ */

/* Tracing: the bytes this rank sends in an alltoallv/w (types NULL: one
 * type); in place, the receive side says how many. */
static size_t move_trace_bytes_v(const void *sendbuf, hc_mpi_vec_t scounts,
                                 MPI_Datatype stype, const MPI_Datatype *stypes,
                                 hc_mpi_vec_t rcounts, MPI_Datatype rtype,
                                 const MPI_Datatype *rtypes, MPI_Comm comm) {
  if (sendbuf == MPI_IN_PLACE)
    return hc_mpi_trace_bytes_v(rcounts, rtype, rtypes, comm);
  return hc_mpi_trace_bytes_v(scounts, stype, stypes, comm);
}

/* Blocks of one side of an alltoall: counts[i] elements of types[i] (or of
 * one type) at byte displacement disps[i] (or displs[i] extents, or
 * consecutive when both are NULL). */
typedef struct move_side {
  hc_mpi_vec_t counts;
  hc_mpi_vec_t displs;       /* in extents, or none */
  hc_mpi_vec_t byte_displs;  /* alltoallw */
  const MPI_Datatype *types; /* alltoallw */
  MPI_Datatype type;
} move_side_t;

static int move_side_check(const char *fn, hc_mpi_comm_t *c, int size,
                           const move_side_t *sd, int vform, const char *what,
                           hc_mpi_coll_block_t *b) {
  int rc = hc_mpi_coll_counts(fn, c, sd->counts, vform ? size : 1, what);
  if (rc == MPI_SUCCESS && vform)
    rc = hc_mpi_check_ptr(
        fn, c, hc_mpi_vec_ptr(sd->types ? sd->byte_displs : sd->displs),
        "displs");
  if (rc == MPI_SUCCESS && sd->types != NULL)
    rc = hc_mpi_check_ptr(fn, c, sd->types, "datatypes");
  for (int i = 0; rc == MPI_SUCCESS && i < size; i++) {
    const hc_mpi_type_t *t = NULL;
    MPI_Datatype h = sd->types != NULL ? sd->types[i] : sd->type;
    MPI_Count n = hc_mpi_vec_at(sd->counts, vform ? i : 0);
    if (i == 0 || sd->types != NULL)
      rc = hc_mpi_coll_type(fn, c, n, h, &t);
    else
      t = b[0].type;
    if (rc != MPI_SUCCESS)
      break;
    b[i].type = t;
    b[i].count = n;
    if (sd->types != NULL)
      b[i].disp = hc_mpi_vec_at(sd->byte_displs, i);
    else
      b[i].disp = (vform ? hc_mpi_vec_at(sd->displs, i) : i * n) * t->extent;
  }
  return rc;
}

/* A blocking alltoall of equal blocks of dense types in host memory: the
 * engine takes the user's buffers as they are (no views, nothing
 * allocated).  0: not such a call, nothing done; 1: done, *rc its result
 * (a check that failed here too). */
static int move_alltoall_direct(const char *fn, hc_mpi_comm_t *c,
                                const void *sendbuf, const move_side_t *ss,
                                void *recvbuf, const move_side_t *rs, int *rc) {
  const hc_mpi_type_t *st = NULL, *rt = NULL;
  int in_place = sendbuf == MPI_IN_PLACE;
  MPI_Count sn = hc_mpi_vec_at(ss->counts, 0),
            rn = hc_mpi_vec_at(rs->counts, 0);
  *rc = in_place ? MPI_SUCCESS : hc_mpi_coll_type(fn, c, sn, ss->type, &st);
  if (*rc == MPI_SUCCESS)
    *rc = hc_mpi_coll_type(fn, c, rn, rs->type, &rt);
  if (*rc != MPI_SUCCESS)
    return 1;
  size_t bytes = (size_t)rn * (size_t)rt->size;
  if (bytes == 0 || !hc_mpi_coll_direct(recvbuf, rt) ||
      (!in_place && (!hc_mpi_coll_direct(sendbuf, st) ||
                     (size_t)sn * (size_t)st->size != bytes)))
    return 0;
  *rc = hc_mpi_coll_buf_check(fn, c, recvbuf, 1, NULL, "recvbuf");
  if (*rc == MPI_SUCCESS && !in_place)
    *rc = hc_mpi_coll_buf_check(fn, c, sendbuf, 1, NULL, "sendbuf");
  if (*rc == MPI_SUCCESS)
    *rc =
        hc_mpi_raise_status(c, fn,
                            hcomm_alltoall(in_place ? HCOMM_IN_PLACE : sendbuf,
                                           bytes, recvbuf, c->engine));
  return 1;
}

/* h's type when it is committed and dense, else NULL (alltoallw's types
 * after the first). */
static const hc_mpi_type_t *move_dense_type(MPI_Datatype h) {
  const hc_mpi_type_t *t = hc_mpi_type_get(h);
  return t != NULL && t->committed && hc_mpi_coll_dense(t) ? t : NULL;
}

/* One side of a blocking alltoallv or alltoallw as the engine takes it,
 * its counts and displacements read once, each type looked up once: the
 * byte sizes and offsets of buf's blocks.  -1: not a side the engine may
 * take as it is (a NULL array, a negative count or displacement, a type
 * not committed or not dense, device memory); the caller's general path
 * then checks the arguments one by one and names the first one wrong, or
 * packs the blocks.  Else whether any block holds data.  typed: alltoallw
 * (a type and a byte displacement per block); a constant where it is
 * inlined, so alltoallv's loop has no test of it. */
__attribute__((always_inline)) static inline int
move_v_side_table(const move_side_t *sd, int typed, const void *buf, int size,
                  size_t *bytes, size_t *offs) {
  hc_mpi_vec_t displs = typed ? sd->byte_displs : sd->displs;
  if (hc_mpi_vec_ptr(sd->counts) == NULL || hc_mpi_vec_ptr(displs) == NULL ||
      (typed && sd->types == NULL))
    return -1;
  /* buf's memory is classified with the first type only */
  const hc_mpi_type_t *t = hc_mpi_type_get(typed ? sd->types[0] : sd->type);
  if (t == NULL || !t->committed || !hc_mpi_coll_direct(buf, t))
    return -1;
  MPI_Aint unit = typed ? 1 : t->extent; /* of a displacement */
  MPI_Count any = 0;
  for (int i = 0; i < size; i++) {
    if (typed && i > 0 && (t = move_dense_type(sd->types[i])) == NULL)
      return -1;
    MPI_Count n = hc_mpi_vec_at(sd->counts, i);
    MPI_Count d = hc_mpi_vec_at(displs, i);
    if (n < 0 || d < 0)
      return -1;
    any |= n;
    bytes[i] = (size_t)n * (size_t)t->size;
    offs[i] = (size_t)(d * unit);
  }
  return any != 0;
}

/* A blocking alltoallv or alltoallw of dense types in host memory on a
 * small communicator: the engine takes the user's buffers as they are, with
 * tables on the stack (no views, nothing allocated).  Each side is read
 * once and its type looked up once (move_v_side_table); any argument it
 * does not take leaves the call to the general path, whose checks raise
 * what is wrong.  0: not such a call, nothing raised; 1: done, *rc its
 * result. */
__attribute__((always_inline)) static inline int
move_alltoallv_direct(const char *fn, hc_mpi_comm_t *c, int size, int typed,
                      const void *sendbuf, const move_side_t *ss, void *recvbuf,
                      const move_side_t *rs, int *rc) {
  size_t t[4 * HC_MPI_COLL_STACK_RANKS]; /* receive sizes, offsets; send ... */
  int in_place = sendbuf == MPI_IN_PLACE, n = size;
  if (recvbuf == MPI_IN_PLACE)
    return 0;
  int recv_any = move_v_side_table(rs, typed, recvbuf, size, t, t + n);
  int send_any = in_place ? 0
                          : move_v_side_table(ss, typed, sendbuf, size,
                                              t + 2 * n, t + 3 * n);
  if (recv_any < 0 || send_any < 0 || (recv_any && recvbuf == NULL) ||
      (send_any && sendbuf == NULL))
    return 0;
  if (in_place) /* the engine reads the send tables too */
    memcpy(t + 2 * n, t, 2 * (size_t)n * sizeof *t);
  *rc = hc_mpi_raise_status(c, fn,
                            hcomm_alltoallv(in_place ? HCOMM_IN_PLACE : sendbuf,
                                            t + 2 * n, t + 3 * n, recvbuf, t,
                                            t + n, c->engine));
  return 1;
}

static int move_alltoall(const char *fn, const void *sendbuf,
                         const move_side_t *ss, void *recvbuf,
                         const move_side_t *rs, int vform, MPI_Comm comm,
                         MPI_Request *request, int persist) {
  hc_mpi_comm_t *c = NULL;
  hcomm_request_t *eng = NULL;
  int rc = hc_mpi_coll_enter(fn, comm, request != NULL, request, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  /* size: the blocks, one per rank of the other group on an
   * intercommunicator (where MPI_IN_PLACE is not allowed). */
  int size = hcomm_comm_peer_size(c->engine), inter = hc_mpi_coll_inter(c);
  int in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && inter)
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "MPI_IN_PLACE is not allowed on an intercommunicator");
  /* One buffer on both sides is erroneous (hc_mpi_coll_overlap's comment);
   * MPI_BOTTOM on both is not, the blocks being absolute addresses. */
  if (!in_place && sendbuf == recvbuf && sendbuf != NULL &&
      hc_mpi_coll_any(ss->counts, vform ? size : 1))
    return hc_mpi_raise(c, fn, MPI_ERR_BUFFER,
                        "sendbuf and recvbuf are the same buffer (use "
                        "MPI_IN_PLACE)");
  if (request == NULL && !persist && !inter && !vform && ss->types == NULL &&
      move_alltoall_direct(fn, c, sendbuf, ss, recvbuf, rs, &rc))
    return rc;
  if (request == NULL && !persist && !inter && vform &&
      size <= HC_MPI_COLL_STACK_RANKS &&
      (rs->types != NULL /* alltoallw */
           ? move_alltoallv_direct(fn, c, size, 1, sendbuf, ss, recvbuf, rs,
                                   &rc)
           : move_alltoallv_direct(fn, c, size, 0, sendbuf, ss, recvbuf, rs,
                                   &rc)))
    return rc;
  hc_mpi_coll_t *cx = hc_mpi_coll_new_mode(persist);
  hc_mpi_coll_block_t *sb = NULL, *rb = NULL;
  size_t *ssz = NULL, *rsz = NULL;
  if (cx != NULL) {
    sb = hc_mpi_coll_tmp(cx, (size_t)size * sizeof *sb);
    rb = hc_mpi_coll_tmp(cx, (size_t)size * sizeof *rb);
    ssz = hc_mpi_coll_sizes(cx, size);
    rsz = hc_mpi_coll_sizes(cx, size);
  }
  if (rsz == NULL || rb == NULL || sb == NULL || ssz == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  if (!in_place)
    rc = move_side_check(fn, c, size, ss, vform, "sendcounts", sb);
  if (rc == MPI_SUCCESS)
    rc = move_side_check(fn, c, size, rs, vform, "recvcounts", rb);
  if (rc == MPI_SUCCESS && !in_place)
    rc = hc_mpi_coll_buf_check(fn, c, sendbuf,
                               hc_mpi_coll_any(ss->counts, vform ? size : 1),
                               NULL, "sendbuf");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_coll_buf_check(fn, c, recvbuf,
                               hc_mpi_coll_any(rs->counts, vform ? size : 1),
                               NULL, "recvbuf");
  hc_mpi_hccl_t hx = {.request = request, .persist = persist};
  if (rc == MPI_SUCCESS && !inter && !in_place && ss->types == NULL &&
      hc_mpi_hccl_alltoallv(fn, c, sendbuf, sb, recvbuf, rb, &hx, &rc)) {
    hc_mpi_coll_free(cx);
    return rc;
  }
  if (rc == MPI_SUCCESS && hx.defer && hc_mpi_coll_hccl_defer(cx, &hx) != 0)
    return hc_mpi_coll_nomem(fn, c, cx);
  if (rc != MPI_SUCCESS) {
    hc_mpi_coll_free(cx);
    return rc;
  }
  const void *sview = HCOMM_IN_PLACE;
  if (!in_place)
    sview = hc_mpi_coll_send_view(cx, sendbuf, size, sb, ssz, ssz + size);
  void *rview =
      hc_mpi_coll_recv_view(cx, recvbuf, size, rb, in_place, rsz, rsz + size);
  if (sview == NULL || rview == NULL)
    return hc_mpi_coll_nomem(fn, c, cx);
  if (inter)
    rc = hcomm_inter_alltoallv(sview, ssz, ssz + size, rview, rsz, rsz + size,
                                c->engine, persist, &eng);
  else if (request == NULL && !persist) /* blocking: may use shared memory */
    return hc_mpi_raise_status(
        c, fn,
        hc_mpi_coll_end(
            cx, vform ? hcomm_alltoallv(sview, ssz, ssz + size, rview, rsz,
                                        rsz + size, c->engine)
                      : hcomm_alltoall(sview, rsz[0], rview, c->engine)));
  else if (vform && (persist || hx.defer)) {
    hc_mpi_coll_hccl_plan_next(cx, c);
    rc = hcomm_alltoallv_init(sview, ssz, ssz + size, rview, rsz, rsz + size,
                              c->engine, &eng);
  } else if (vform)
    rc = hcomm_ialltoallv(sview, ssz, ssz + size, rview, rsz, rsz + size,
                          c->engine, &eng);
  else if (persist || hx.defer) {
    hc_mpi_coll_hccl_plan_next(cx, c);
    rc = hcomm_alltoall_init(sview, rsz[0], rview, c->engine, &eng);
  } else
    rc = hcomm_ialltoall(sview, rsz[0], rview, c->engine, &eng);
  return hc_mpi_coll_finish(fn, c, cx, rc, eng, request);
}

static int move_alltoall_eq(const char *fn, const void *sendbuf,
                            MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request, int persist) {
  move_side_t ss = {
      hc_mpi_vec_wide(&sendcount), {NULL, NULL}, {NULL, NULL}, NULL, sendtype};
  move_side_t rs = {
      hc_mpi_vec_wide(&recvcount), {NULL, NULL}, {NULL, NULL}, NULL, recvtype};
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 0, comm, request,
                       persist);
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_alltoall_entry(const char *fn, const void *sendbuf,
                               MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = hc_mpi_coll_fast_exchange(fn, 1, sendbuf, sendcount, sendtype,
                                     recvbuf, recvcount, recvtype, comm);
  if (rc < 0)
    rc = move_alltoall_eq(fn, sendbuf, sendcount, sendtype, recvbuf,
                          recvcount, recvtype, comm, NULL, 0);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_ALLTOALL, t0, -1, -1,
                  hc_mpi_trace_bytes(sendcount, sendtype));
  return rc;
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  return move_alltoall_entry("MPI_Alltoall", sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Alltoall, PMPI_Alltoall);

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  return move_alltoall_entry("MPI_Alltoall_c", sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Alltoall_c, PMPI_Alltoall_c);

static int move_ialltoall_entry(const char *fn, const void *sendbuf,
                                MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_alltoall_eq(fn, sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, recvtype, comm, request, 0);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLTOALL, t0, -1, -1,
                               hc_mpi_trace_bytes(sendcount, sendtype))
            : rc;
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request) {
  return move_ialltoall_entry("MPI_Ialltoall", sendbuf, sendcount, sendtype,
                              recvbuf, recvcount, recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoall, PMPI_Ialltoall);

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
  return move_ialltoall_entry("MPI_Ialltoall_c", sendbuf, sendcount, sendtype,
                              recvbuf, recvcount, recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoall_c, PMPI_Ialltoall_c);

static int move_alltoallv_body(const char *fn, const void *sendbuf,
                               hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                               MPI_Datatype sendtype, void *recvbuf,
                               hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                               MPI_Datatype recvtype, MPI_Comm comm) {
  move_side_t ss = {sendcounts, sdispls, {NULL, NULL}, NULL, sendtype};
  move_side_t rs = {recvcounts, rdispls, {NULL, NULL}, NULL, recvtype};
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, NULL, 0);
}

/* The fast path of a blocking Alltoallv on an intracommunicator
 * (hc_mpi_coll_fast), as Allgatherv's: both sides of predefined dense types
 * in host memory, their tables on the stack.  Its result, or -1 when the
 * call goes the general way (which checks and raises). */
static int move_alltoallv_fast(const char *fn, const void *sendbuf,
                               hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                               MPI_Datatype sendtype, void *recvbuf,
                               hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                               MPI_Datatype recvtype, MPI_Comm comm) {
  hc_mpi_comm_t *c = hc_mpi_comm_try(comm);
  hc_mpi_coll_fast_t *f = c != NULL ? hc_mpi_coll_fast(c) : NULL;
  if (f == NULL || f->size > HC_MPI_COLL_STACK_RANKS)
    return -1;
  size_t t[4 * HC_MPI_COLL_STACK_RANKS]; /* receive sizes, offsets; send ... */
  int n = f->size, in_place = sendbuf == MPI_IN_PLACE;
  if (hc_mpi_coll_fast_table(f, recvbuf, recvcounts, rdispls, recvtype, t,
                             t + n) != 0 ||
      (!in_place &&
       hc_mpi_coll_fast_table(f, sendbuf, sendcounts, sdispls, sendtype,
                              t + 2 * n, t + 3 * n) != 0) ||
      (!in_place && sendbuf == recvbuf) || /* refused the general way */
      !hc_mpi_coll_host(in_place ? NULL : sendbuf, recvbuf))
    return -1;
  if (in_place) /* the engine reads the send tables too */
    memcpy(t + 2 * n, t, 2 * (size_t)n * sizeof *t);
  return hc_mpi_raise_status(
      c, fn,
      hcomm_alltoallv(in_place ? HCOMM_IN_PLACE : sendbuf, t + 2 * n, t + 3 * n,
                      recvbuf, t, t + n, c->engine));
}

/* Traced entry: one test of hc_trace_on when tracing is off. */
static int move_alltoallv_entry(const char *fn, const void *sendbuf,
                                hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                MPI_Datatype sendtype, void *recvbuf,
                                hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                MPI_Datatype recvtype, MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_alltoallv_fast(fn, sendbuf, sendcounts, sdispls, sendtype,
                               recvbuf, recvcounts, rdispls, recvtype, comm);
  if (rc < 0)
    rc = move_alltoallv_body(fn, sendbuf, sendcounts, sdispls, sendtype,
                             recvbuf, recvcounts, rdispls, recvtype, comm);
  if (hc_trace_on)
    hc_trace_call(HC_TRACE_MPI_ALLTOALLV, t0, -1, -1,
                  move_trace_bytes_v(sendbuf, sendcounts, sendtype, NULL,
                                     recvcounts, recvtype, NULL, comm));
  return rc;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return move_alltoallv_entry(
      "MPI_Alltoallv", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Alltoallv, PMPI_Alltoallv);

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  return move_alltoallv_entry(
      "MPI_Alltoallv_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtype, comm);
}
HC_WEAK_ALIAS(MPI_Alltoallv_c, PMPI_Alltoallv_c);

static int move_ialltoallv_body(const char *fn, const void *sendbuf,
                                hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                MPI_Datatype sendtype, void *recvbuf,
                                hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request) {
  move_side_t ss = {sendcounts, sdispls, {NULL, NULL}, NULL, sendtype};
  move_side_t rs = {recvcounts, rdispls, {NULL, NULL}, NULL, recvtype};
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, request, 0);
}

/* Traced entry (mpi_trace.h). */
static int move_ialltoallv_entry(const char *fn, const void *sendbuf,
                                 hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc =
      move_ialltoallv_body(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, comm, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLTOALLV, t0, -1, -1,
                               move_trace_bytes_v(sendbuf, sendcounts, sendtype,
                                                  NULL, recvcounts, recvtype,
                                                  NULL, comm))
            : rc;
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
  return move_ialltoallv_entry(
      "MPI_Ialltoallv", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoallv, PMPI_Ialltoallv);

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Request *request) {
  return move_ialltoallv_entry(
      "MPI_Ialltoallv_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtype, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoallv_c, PMPI_Ialltoallv_c);

static int move_alltoallw_body(const char *fn, const void *sendbuf,
                               hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                               const MPI_Datatype sendtypes[], void *recvbuf,
                               hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                               const MPI_Datatype recvtypes[], MPI_Comm comm) {
  move_side_t ss = {
      sendcounts, {NULL, NULL}, sdispls, sendtypes, MPI_DATATYPE_NULL};
  move_side_t rs = {
      recvcounts, {NULL, NULL}, rdispls, recvtypes, MPI_DATATYPE_NULL};
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, NULL, 0);
}

/* Traced entry (mpi_trace.h). */
static int move_alltoallw_entry(const char *fn, const void *sendbuf,
                                hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                const MPI_Datatype sendtypes[], void *recvbuf,
                                hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                const MPI_Datatype recvtypes[], MPI_Comm comm) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc = move_alltoallw_body(fn, sendbuf, sendcounts, sdispls, sendtypes,
                               recvbuf, recvcounts, rdispls, recvtypes, comm);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_ALLTOALLW, t0, -1, -1,
                               move_trace_bytes_v(sendbuf, sendcounts,
                                                  MPI_DATATYPE_NULL, sendtypes,
                                                  recvcounts, MPI_DATATYPE_NULL,
                                                  recvtypes, comm))
            : rc;
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return move_alltoallw_entry(
      "MPI_Alltoallw", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtypes, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtypes, comm);
}
HC_WEAK_ALIAS(MPI_Alltoallw, PMPI_Alltoallw);

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                     void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm) {
  return move_alltoallw_entry(
      "MPI_Alltoallw_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtypes, comm);
}
HC_WEAK_ALIAS(MPI_Alltoallw_c, PMPI_Alltoallw_c);

static int move_ialltoallw_body(const char *fn, const void *sendbuf,
                                hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                const MPI_Datatype sendtypes[], void *recvbuf,
                                hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Request *request) {
  move_side_t ss = {
      sendcounts, {NULL, NULL}, sdispls, sendtypes, MPI_DATATYPE_NULL};
  move_side_t rs = {
      recvcounts, {NULL, NULL}, rdispls, recvtypes, MPI_DATATYPE_NULL};
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, request, 0);
}

/* Traced entry (mpi_trace.h). */
static int move_ialltoallw_entry(const char *fn, const void *sendbuf,
                                 hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                                 const MPI_Datatype sendtypes[], void *recvbuf,
                                 hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                                 const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Request *request) {
  uint64_t t0 = hc_trace_on ? hc_trace_now() : 0;
  int rc =
      move_ialltoallw_body(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, request);
  return t0 ? hc_mpi_trace_end(rc, HC_TRACE_MPI_IALLTOALLW, t0, -1, -1,
                               move_trace_bytes_v(sendbuf, sendcounts,
                                                  MPI_DATATYPE_NULL, sendtypes,
                                                  recvcounts, MPI_DATATYPE_NULL,
                                                  recvtypes, comm))
            : rc;
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request) {
  return move_ialltoallw_entry(
      "MPI_Ialltoallw", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtypes, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtypes, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoallw, PMPI_Ialltoallw);

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                      void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                      MPI_Comm comm, MPI_Request *request) {
  return move_ialltoallw_entry(
      "MPI_Ialltoallw_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtypes, comm, request);
}
HC_WEAK_ALIAS(MPI_Ialltoallw_c, PMPI_Ialltoallw_c);

static int move_alltoall_init_entry(const char *fn, const void *sendbuf,
                                    MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request) {
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_alltoall_eq(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm, request, 1);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  return move_alltoall_init_entry("MPI_Alltoall_init", sendbuf, sendcount,
                                  sendtype, recvbuf, recvcount, recvtype, comm,
                                  info, request);
}
HC_WEAK_ALIAS(MPI_Alltoall_init, PMPI_Alltoall_init);

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_alltoall_init_entry("MPI_Alltoall_init_c", sendbuf, sendcount,
                                  sendtype, recvbuf, recvcount, recvtype, comm,
                                  info, request);
}
HC_WEAK_ALIAS(MPI_Alltoall_init_c, PMPI_Alltoall_init_c);

static int move_alltoallv_init_entry(
    const char *fn, const void *sendbuf, hc_mpi_vec_t sendcounts,
    hc_mpi_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
    hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls, MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  move_side_t ss = {sendcounts, sdispls, {NULL, NULL}, NULL, sendtype};
  move_side_t rs = {recvcounts, rdispls, {NULL, NULL}, NULL, recvtype};
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, request, 1);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_alltoallv_init_entry(
      "MPI_Alltoallv_init", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtype, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Alltoallv_init, PMPI_Alltoallv_init);

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_alltoallv_init_entry(
      "MPI_Alltoallv_init_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtype, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtype, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Alltoallv_init_c, PMPI_Alltoallv_init_c);

static int
move_alltoallw_init_entry(const char *fn, const void *sendbuf,
                          hc_mpi_vec_t sendcounts, hc_mpi_vec_t sdispls,
                          const MPI_Datatype sendtypes[], void *recvbuf,
                          hc_mpi_vec_t recvcounts, hc_mpi_vec_t rdispls,
                          const MPI_Datatype recvtypes[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *request) {
  move_side_t ss = {
      sendcounts, {NULL, NULL}, sdispls, sendtypes, MPI_DATATYPE_NULL};
  move_side_t rs = {
      recvcounts, {NULL, NULL}, rdispls, recvtypes, MPI_DATATYPE_NULL};
  int rc = hc_mpi_coll_info(fn, comm, info);
  if (rc != MPI_SUCCESS)
    return rc;
  return move_alltoall(fn, sendbuf, &ss, recvbuf, &rs, 1, comm, request, 1);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const MPI_Datatype sendtypes[],
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[],
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  return move_alltoallw_init_entry(
      "MPI_Alltoallw_init", sendbuf, hc_mpi_vec_int(sendcounts),
      hc_mpi_vec_int(sdispls), sendtypes, recvbuf, hc_mpi_vec_int(recvcounts),
      hc_mpi_vec_int(rdispls), recvtypes, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Alltoallw_init, PMPI_Alltoallw_init);

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *request) {
  return move_alltoallw_init_entry(
      "MPI_Alltoallw_init_c", sendbuf, hc_mpi_vec_wide(sendcounts),
      hc_mpi_vec_wide(sdispls), sendtypes, recvbuf, hc_mpi_vec_wide(recvcounts),
      hc_mpi_vec_wide(rdispls), recvtypes, comm, info, request);
}
HC_WEAK_ALIAS(MPI_Alltoallw_init_c, PMPI_Alltoallw_init_c);
