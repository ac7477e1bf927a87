/*
 * Shared machinery of the face's collectives (coll_ctx.c): one call's
 * temporaries, the packing of non-contiguous datatypes around the engine's
 * byte collectives, and the common ending (wait, or wrap into a request).
 */
#ifndef HC_MPI_COLL_IMPL_H
#define HC_MPI_COLL_IMPL_H

#include "mpi/mpi_impl.h"

#include <stdint.h>

/* One block of a collective's buffer: count elements of type, disp bytes
 * from the buffer's start. */
typedef struct hc_mpi_coll_block {
  const hc_mpi_type_t *type;
  MPI_Count count;
  MPI_Aint disp;
} hc_mpi_coll_block_t;

/* The state of one collective call, alive until it completes. */
typedef struct hc_mpi_coll hc_mpi_coll_t;

/* NULL when memory ran out. */
hc_mpi_coll_t *hc_mpi_coll_new(void);
/* persistent 1: the state of an MPI_*_init call, whose inputs are packed
 * or copied in at every MPI_Start rather than now (the views below record
 * those loads instead of doing them). */
hc_mpi_coll_t *hc_mpi_coll_new_mode(int persistent);
void hc_mpi_coll_free(hc_mpi_coll_t *cx);
/* A temporary freed with cx; NULL when memory ran out. */
void *hc_mpi_coll_tmp(hc_mpi_coll_t *cx, size_t bytes);

/* The packed stream of buf's elements of type (host memory) as an
 * accessor the engine packs and unpacks fragment by fragment
 * (hcomm_ibcast_acc): no whole-message temporary.  type is held until cx
 * is freed; two streams per cx at most (a send and a receive side); NULL
 * when memory ran out. */
const hcomm_accessor_t *hc_mpi_coll_stream(hc_mpi_coll_t *cx, void *buf,
                                           const hc_mpi_type_t *type);

/* The engine's view of n blocks of buf (NULL on no memory): buf itself when
 * every block's type is dense (contiguous, size == extent), else a packed
 * temporary.  Fills bytes[i] (count * size) and offs[i] (where block i
 * starts in the view).  send: the data is packed now.  recv: the view is
 * unpacked into buf when the collective succeeds; load: packed now too
 * (MPI_IN_PLACE, where the buffer is also input). */
const void *hc_mpi_coll_send_view(hc_mpi_coll_t *cx, const void *buf, int n,
                                  const hc_mpi_coll_block_t *blocks,
                                  size_t *bytes, size_t *offs);
void *hc_mpi_coll_recv_view(hc_mpi_coll_t *cx, void *buf, int n,
                            const hc_mpi_coll_block_t *blocks, int load,
                            size_t *bytes, size_t *offs);

/* 1 when the engine may take buf of type as it is: host memory, a dense
 * type (what hc_mpi_coll_send_view would hand it without a temporary). */
int hc_mpi_coll_direct(const void *buf, const hc_mpi_type_t *type);
/* The type half of that: contiguous, size == extent, nothing before 0. */
int hc_mpi_coll_dense(const hc_mpi_type_t *type);

/* Device buffers (see coll_ctx.c): the views above stage them through host
 * temporaries on their own.  hc_mpi_coll_stage does the same for a raw
 * byte buffer: when *buf is device memory it becomes a host temporary of
 * bytes bytes whose first load bytes are copied from the device now and
 * whose first back bytes are copied to the device when the collective
 * succeeds; host memory (and NULL, HCOMM_IN_PLACE) is left as it is.
 * 0, or -1 (no memory, or a failed copy that hc_mpi_coll_nomem reports). */
int hc_mpi_coll_stage(hc_mpi_coll_t *cx, void **buf, size_t bytes, size_t load,
                      size_t back);
/* A reduction's kernel and datatype as hc_mpi_op_resolve gave them:
 * packed 0: the engine reduces the user's buffers as they are (count
 * elements of op.elem_size bytes); packed > 0: it reduces packed views of
 * them (hc_mpi_coll_send_view), packed kernel elements per element of
 * type. */
typedef struct hc_mpi_red {
  hcomm_reduce_op_t op;
  const hc_mpi_type_t *type;
  size_t packed;
} hc_mpi_red_t;

/* Kernel elements in n elements of the reduction's datatype. */
size_t hc_mpi_red_elems(const hc_mpi_red_t *red, size_t n);
/* One buffer of a reduction: *buf becomes what the kernel reads and
 * writes for n elements of red's datatype (a packed view, or device memory
 * staged; else *buf itself).  load: the first load elements are input
 * now; back: the first back elements are the result, written to the
 * user's buffer when the collective succeeds (packed views write all n).
 * load and back 0: *buf is left as it is.  0 or -1 as hc_mpi_coll_stage. */
int hc_mpi_coll_red_buf(hc_mpi_coll_t *cx, const hc_mpi_red_t *red, void **buf,
                        size_t n, size_t load, size_t back);
/* Both buffers of a reduction: *send (unless HCOMM_IN_PLACE) holds in
 * elements; *recv receives out elements, and holds the in elements of
 * input when *send is HCOMM_IN_PLACE; significant 0: recvbuf is not a
 * result here (nothing copied back).  cx holds red's op and datatype (and
 * every unpack job its datatype) until it is freed, so they survive
 * MPI_Op_free / MPI_Type_free while the collective is pending.  0 or -1 as
 * hc_mpi_coll_stage. */
int hc_mpi_coll_red_stage(hc_mpi_coll_t *cx, const hc_mpi_red_t *red,
                          const void **send, void **recv, size_t in, size_t out,
                          int significant);
/* Ends a blocking collective run by the engine's blocking call with result
 * rc: on success the receive jobs run (unpacking, copies to device
 * memory).  Frees cx; returns rc or the status of a failed copy. */
hc_status_t hc_mpi_coll_end(hc_mpi_coll_t *cx, hc_status_t rc);

/* Ends a collective whose engine start returned rc with request eng:
 * request NULL (blocking) waits, unpacks and frees cx; otherwise cx stays
 * alive until eng completes and *request wraps eng.  A persistent cx
 * (hcomm_*_init gave eng): *request is an inactive persistent request
 * that keeps eng and cx until it is freed.  Raises errors through c.
 * Always takes cx. */
int hc_mpi_coll_finish(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx,
                       hc_status_t rc, hcomm_request_t *eng,
                       MPI_Request *request);

/* Entry checks shared by the collectives: comm valid, and request not NULL
 * for the non-blocking forms (request != NULL means non-blocking; pass
 * nb = 1 then). */
int hc_mpi_coll_enter(const char *fn, MPI_Comm comm, int nb,
                      MPI_Request *request, hc_mpi_comm_t **c);
/* hc_mpi_coll_enter for a rooted collective (request NULL: blocking), then
 * root checked against the communicator (coll_check.c).  Under
 * HCMPI_CHECK_COLL=1 the root, and the signature size of count elements of
 * type unless type is MPI_DATATYPE_NULL, are first agreed across the
 * communicator (MPI_ERR_ROOT / MPI_ERR_TRUNCATE on every rank when they
 * differ). */
int hc_mpi_coll_enter_rooted(const char *fn, MPI_Comm comm, int root,
                             MPI_Count count, MPI_Datatype type,
                             MPI_Request *request, hc_mpi_comm_t **c);
/* Intercommunicators (MPI 4.0 section 6.2.2): whether c is one; whether
 * this rank is the root of a rooted collective (its rank on an
 * intracommunicator, MPI_ROOT on an intercommunicator); whether it takes
 * no part (MPI_PROC_NULL, in the root's group of an intercommunicator).
 * The engine's calls take root as MPI names it. */
int hc_mpi_coll_inter(const hc_mpi_comm_t *c);
int hc_mpi_coll_is_root(const hc_mpi_comm_t *c, int root);
int hc_mpi_coll_idle(const hc_mpi_comm_t *c, int root);
/* MPI_ERR_COMM on an intercommunicator (scan, exscan). */
int hc_mpi_coll_intra_only(const char *fn, hc_mpi_comm_t *c);
/* count >= 0 and a usable committed datatype. */
int hc_mpi_coll_type(const char *fn, hc_mpi_comm_t *c, MPI_Count count,
                     MPI_Datatype type, const hc_mpi_type_t **t);
/* n counts, every one >= 0 (counts not NULL). */
int hc_mpi_coll_counts(const char *fn, hc_mpi_comm_t *c, hc_mpi_vec_t counts,
                       int n, const char *what);
/* Count, datatype and op of a reduction (coll.c); *red ready for the
 * engine. */
int hc_mpi_coll_reduce_args(const char *fn, hc_mpi_comm_t *c, MPI_Count count,
                            MPI_Datatype type, MPI_Op mpi_op,
                            hc_mpi_red_t *red);
/* Buffers of a reduction of count elements of t: present where count > 0
 * (MPI_BOTTOM allowed when t has absolute addresses), and sendbuf not
 * recvbuf (need_recv: recvbuf is used). */
int hc_mpi_coll_reduce_bufs(const char *fn, hc_mpi_comm_t *c,
                            const void *sendbuf, const void *recvbuf,
                            MPI_Count count, int need_recv,
                            const hc_mpi_type_t *t);
/* The info argument of an MPI_*_init call on comm: MPI_INFO_NULL or a
 * valid info (no hints are used), else MPI_ERR_INFO raised on comm. */
int hc_mpi_coll_info(const char *fn, MPI_Comm comm, MPI_Info info);
/* A user buffer: MPI_IN_PLACE is not one, NULL only when data moves
 * (moves_data) and t, the buffer's one datatype or NULL, has no absolute
 * addresses (MPI_BOTTOM).  Both are MPI_ERR_BUFFER, as for point-to-point;
 * what names the argument. */
int hc_mpi_coll_buf_check(const char *fn, hc_mpi_comm_t *c, const void *buf,
                          int moves_data, const hc_mpi_type_t *t,
                          const char *what);
/* 1 when both buffers are host memory (NULL and HCOMM_IN_PLACE are): one
 * load in a process without a device runtime, which keeps no answer per
 * communicator or buffer (a device buffer may follow host ones). */
int hc_mpi_coll_host_classify(const void *a, const void *b);
static inline int hc_mpi_coll_host(const void *a, const void *b) {
  return !hcomm_mem_any_device() || hc_mpi_coll_host_classify(a, b);
}
/* Whether HCMPI_CHECK_COLL=1 (coll_check.c). */
int hc_mpi_coll_check_on(void);

/* The fast path of the blocking collectives: what can be decided once per
 * communicator is kept in c->coll_fast, so that a call of the common case
 * (an intracommunicator, a predefined datatype and op, host memory, good
 * arguments) goes to the engine's blocking call after a few loads and
 * tests.  A call the fast path does not take goes the general way, which
 * checks and raises exactly as before; the fast path only chooses, the
 * algorithms stay in the engine.
 * hc_mpi_coll_fast: c's decisions, or NULL when c's calls take the general
 * path (an intercommunicator, HCCL's collectives on, HCMPI_CHECK_COLL=1). */
hc_mpi_coll_fast_t *hc_mpi_coll_fast_decide(hc_mpi_comm_t *c);
static inline hc_mpi_coll_fast_t *hc_mpi_coll_fast(hc_mpi_comm_t *c) {
  return c->coll_fast.ready ? &c->coll_fast : hc_mpi_coll_fast_decide(c);
}
/* type's object when a Bcast moves its elements as they are (predefined,
 * dense), else NULL. */
const hc_mpi_type_t *hc_mpi_coll_fast_move_decide(hc_mpi_coll_fast_t *f,
                                                  MPI_Datatype type);
static inline const hc_mpi_type_t *
hc_mpi_coll_fast_move(hc_mpi_coll_fast_t *f, MPI_Datatype type) {
  return f->move_type != NULL && f->move_handle == type
             ? f->move_type
             : hc_mpi_coll_fast_move_decide(f, type);
}
/* The fast path of a blocking exchange with one block per rank:
 * Allgather (alltoall 0) or Alltoall (1), where both sides are the same
 * positive number of bytes of predefined dense types in host buffers on
 * an intracommunicator.  Its result, or -1 when the call goes the general
 * way (which checks and raises).  Blocks above HC_MPI_COLL_FAST_BLOCK_MAX
 * elements are left to the general path (no overflow below it). */
#define HC_MPI_COLL_FAST_BLOCK_MAX ((MPI_Count)1 << 24)
int hc_mpi_coll_fast_exchange(const char *fn, int alltoall,
                              const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm);
/* The bytes of one side of a collective's fast path: count elements of a
 * predefined dense type in a buffer that is there (or MPI_IN_PLACE where
 * in_place_ok: 0); -1: the general path decides.  Always inline: the
 * rooted fast path calls it twice, and as a call it cost the 8-byte
 * Gather and Scatter about 4 ns. */
__attribute__((always_inline)) static inline long long
hc_mpi_coll_fast_side(hc_mpi_coll_fast_t *f, const void *buf, MPI_Count count,
                      MPI_Datatype type, int in_place_ok) {
  if (buf == MPI_IN_PLACE)
    return in_place_ok ? 0 : -1;
  const hc_mpi_type_t *t = hc_mpi_coll_fast_move(f, type);
  if (t == NULL || count < 0 || count > HC_MPI_COLL_FAST_BLOCK_MAX ||
      (buf == NULL && count > 0))
    return -1;
  return (long long)count * (long long)t->size;
}
/* A v-form's table for its fast path: sizes and offsets in bytes of the
 * blocks of counts and displs elements of a predefined dense type in buf,
 * one per rank of f.  0, or -1 when the general path decides. */
int hc_mpi_coll_fast_table(hc_mpi_coll_fast_t *f, const void *buf,
                           hc_mpi_vec_t counts, hc_mpi_vec_t displs,
                           MPI_Datatype type, size_t *sizes, size_t *offs);
/* The engine's kernel of op on type when the engine reduces the user's
 * buffers as they are (a predefined op on a predefined type), else NULL. */
const hcomm_reduce_op_t *hc_mpi_coll_fast_red_decide(hc_mpi_coll_fast_t *f,
                                                     MPI_Datatype type,
                                                     MPI_Op op);
static inline const hcomm_reduce_op_t *
hc_mpi_coll_fast_red(hc_mpi_coll_fast_t *f, MPI_Datatype type, MPI_Op op) {
  return f->red_type != NULL && f->red_handle == type && f->red_op == op
             ? &f->red_kernel
             : hc_mpi_coll_fast_red_decide(f, type, op);
}

/* Communicators up to this size take the blocking v-forms' direct paths
 * (Alltoallv, Allgatherv) with their byte tables on the stack. */
#define HC_MPI_COLL_STACK_RANKS 16

/* Above this many packed bytes an I- or persistent Bcast, Gather(v) or
 * Scatter(v) side of a derived type in host memory streams through the
 * engine (hcomm_ibcast_acc, hcomm_gatherv_acc, hcomm_scatterv_acc):
 * every message moves in packed fragments, and no rank holds a packed
 * copy of the whole buffer, as point-to-point does (xfer.c). */
#define HC_MPI_COLL_STREAM_MIN ((size_t)64 << 10)

/* The bytes of count elements of t (count checked >= 0). */
static inline size_t hc_mpi_coll_bytes(const hc_mpi_type_t *t,
                                       MPI_Count count) {
  return (size_t)count * (size_t)t->size;
}
/* n blocks of counts[i] elements of t at displs[i] extents (displs NULL:
 * consecutive blocks of counts[0]), in cx; NULL on no memory. */
hc_mpi_coll_block_t *hc_mpi_coll_blocks(hc_mpi_coll_t *cx,
                                        const hc_mpi_type_t *t, int n,
                                        hc_mpi_vec_t counts,
                                        hc_mpi_vec_t displs);
/* What a rank sends must be what the receiver expects: MPI_ERR_TRUNCATE
 * when sbytes is more than rbytes, MPI_ERR_COUNT when less (coll.c). */
int hc_mpi_coll_match(const char *fn, hc_mpi_comm_t *c, size_t sbytes,
                      size_t rbytes);
/* This rank's one block of a gather, scatter or allgather (the send side
 * of a gather, the receive side of a scatter): count and type checked,
 * *t set, and buf unless it is MPI_IN_PLACE, which is allowed only where
 * in_place_ok (the root; an allgather on an intracommunicator). */
int hc_mpi_coll_one_side(const char *fn, hc_mpi_comm_t *c, int in_place_ok,
                         const void *buf, MPI_Count count, MPI_Datatype type,
                         const hc_mpi_type_t **t);
/* The side of a gather, scatter or allgather with a block per rank:
 * counts and displs checked in the v-forms (vform), *t with counts[0]
 * elements in the others; what names the counts argument. */
int hc_mpi_coll_per_rank(const char *fn, hc_mpi_comm_t *c, int size,
                         hc_mpi_vec_t counts, hc_mpi_vec_t displs, int vform,
                         MPI_Datatype type, const char *what,
                         const hc_mpi_type_t **t);

/* Whether any of n counts is positive. */
int hc_mpi_coll_any(hc_mpi_vec_t counts, int n);

/* Whether [a, a + alen) and [b, b + blen) share a byte.  A send block that
 * overlaps the receive blocks is erroneous (MPI_IN_PLACE is how one buffer
 * serves both), and a root that went ahead with it would wait for ranks
 * that returned the error, so the checks refuse it before any data moves. */
static inline int hc_mpi_coll_overlap(const void *a, size_t alen,
                                      const void *b, size_t blen) {
  /* a - b in (-alen, blen), in one unsigned compare: it sits in the
   * fast paths of 8-byte collectives. */
  uintptr_t d = (uintptr_t)a - (uintptr_t)b + alen - 1;
  return __builtin_expect(alen > 0 && blen > 0 && d < alen + blen - 1, 0);
}
/* The bytes from offs' lowest to its highest block end (n blocks of
 * sizes[i] bytes at offs[i]; empty blocks do not count), at *lo. */
size_t hc_mpi_coll_span(const size_t *sizes, const size_t *offs, int n,
                        size_t *lo);
/* MPI_ERR_BUFFER when this rank's one block (count elements of ot at one)
 * overlaps the blocks of the other side (per-rank counts and, in the
 * v-forms, displs of mt at many): by the byte ranges where both types are
 * dense, else when the two start at the same address (gather and scatter
 * at the root; allgather everywhere). */
int hc_mpi_coll_alias(const char *fn, hc_mpi_comm_t *c, const void *one,
                      const hc_mpi_type_t *ot, MPI_Count count,
                      const void *many, const hc_mpi_type_t *mt, int size,
                      hc_mpi_vec_t counts, hc_mpi_vec_t displs, int vform);
/* 2 * n sizes in cx (bytes and offsets of n blocks); NULL on no memory. */
size_t *hc_mpi_coll_sizes(hc_mpi_coll_t *cx, int n);
/* Raises MPI_ERR_NO_MEM. */
int hc_mpi_coll_nomem(const char *fn, hc_mpi_comm_t *c, hc_mpi_coll_t *cx);

/* Collectives on an intracommunicator that HCCL may run instead
 * (coll_hccl.c): called at every rank alike, after the argument checks,
 * with hx's form set (request NULL: blocking; persist: an MPI_*_init).
 * 1 when the call is over (*rc is the MPI result): HCCL ran the blocking
 * form, or *request is the persistent form that runs through HCCL at each
 * start.  0: the caller goes on with its own path; then, where hx->defer
 * is set (a non-blocking form whose path the ranks choose while it runs),
 * the caller builds that path as a plan (the _init form's engine call)
 * whose state hc_mpi_coll_hccl_defer marked, and hc_mpi_coll_finish hands
 * both to the engine.  kind: HCOMM_HCCL_ALLREDUCE, _REDUCE or
 * _REDUCE_SCATTER (count per rank); root is used by _REDUCE only. */
typedef struct hc_mpi_hccl {
  MPI_Request *request; /* in: NULL for the blocking form */
  int persist;          /* in: the MPI_*_init form */
  int defer;            /* out: see above */
  hcomm_hccl_coll_t a;  /* with defer: what HCCL would run */
  int usable, device;
  uint64_t *vec; /* with defer: a's alltoallv vectors (malloc'ed) */
} hc_mpi_hccl_t;

int hc_mpi_hccl_reduce(const char *fn, hc_mpi_comm_t *c, int kind,
                       const void *sendbuf, void *recvbuf, MPI_Count count,
                       const hc_mpi_type_t *t, MPI_Op op, int root,
                       hc_mpi_hccl_t *hx, int *rc);
int hc_mpi_hccl_bcast(const char *fn, hc_mpi_comm_t *c, void *buf,
                      MPI_Count count, const hc_mpi_type_t *t, int root,
                      hc_mpi_hccl_t *hx, int *rc);
int hc_mpi_hccl_allgather(const char *fn, hc_mpi_comm_t *c, const void *sendbuf,
                          MPI_Count sendcount, const hc_mpi_type_t *st,
                          void *recvbuf, MPI_Count recvcount,
                          const hc_mpi_type_t *rt, hc_mpi_hccl_t *hx, int *rc);
/* Alltoall and Alltoallv, blocks as move_side_check gives them (not
 * MPI_IN_PLACE). */
int hc_mpi_hccl_alltoallv(const char *fn, hc_mpi_comm_t *c, const void *sendbuf,
                          const hc_mpi_coll_block_t *sb, void *recvbuf,
                          const hc_mpi_coll_block_t *rb, hc_mpi_hccl_t *hx,
                          int *rc);
/* With hx->defer: cx (made by hc_mpi_coll_new_mode, no view made yet)
 * becomes the state of the plan: its inputs are loaded when the plan runs
 * rather than now, and hc_mpi_coll_finish gives the plan and hx to the
 * engine (hcomm_hccl_icoll).  Takes hx->vec.  0, or -1 when memory ran
 * out. */
int hc_mpi_coll_hccl_defer(hc_mpi_coll_t *cx, hc_mpi_hccl_t *hx);
/* Right before the engine's _init call that builds a deferred plan
 * (hc_mpi_coll_finish, which follows it, ends what this begins). */
void hc_mpi_coll_hccl_plan_next(const hc_mpi_coll_t *cx, hc_mpi_comm_t *c);

#endif /* HC_MPI_COLL_IMPL_H */
