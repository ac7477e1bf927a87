/*
 * Collectives (the schedules of src/hcomm/nbc.c, the blocking forms of
 * src/hcomm/coll.c) against an in-process mock of the engine below them:
 * each rank is a thread, the engine lock is one mutex, and the locked
 * point-to-point the schedules post matches by MPI's rules (posted order,
 * non-overtaking per source/tag).  The mock runs in two modes: "eager"
 * (sends complete at once, payload copied) and "sync" (a send completes
 * only when matched and its buffer is read at match time), so an algorithm
 * that relies on buffering deadlocks and one that touches a send buffer
 * before completion delivers wrong bytes.  Linked with nbc.c and coll.c
 * alone, not with the rest of the engine.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm.h"
#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/part.h"
#include "hcomm/proto.h"
#include "hcomm/shmcoll.h"

/* ---- mock engine --------------------------------------------------------- */

#define MOCK_MAX_RANKS 32

/* An unmatched send in its destination's unexpected queue. */
typedef struct mock_msg {
  int source;
  int tag;
  void *copy;            /* eager mode: the payload */
  hcomm_request_t *sreq; /* sync mode: the send, read at match time */
  size_t bytes;
  struct mock_msg *next;
} mock_msg_t;

/* The engine lock is real (locking = 1): it is the mock's one mutex. */
hc_engine_t hc_engine = {
    .initialized = 1, .locking = 1, .lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_cond_t mock_cond = PTHREAD_COND_INITIALIZER;
static hcomm_request_t *mock_posted[MOCK_MAX_RANKS];
static mock_msg_t *mock_unexpected[MOCK_MAX_RANKS];
static int mock_sync;
static hc_status_t mock_fail_send; /* HC_OK, or what every isend returns */

static int mock_matches(int want_src, int want_tag, int src, int tag) {
  return (want_src == HCOMM_ANY_SOURCE || want_src == src) &&
         (want_tag == HCOMM_ANY_TAG || want_tag == tag);
}

static void mock_done(hcomm_request_t *req, hc_status_t error) {
  req->status.error = error;
  atomic_store(&req->done, 1);
  pthread_cond_broadcast(&mock_cond);
}

static void mock_deliver(hcomm_request_t *rreq, const void *data,
                         size_t bytes) {
  size_t n = bytes < rreq->bytes ? bytes : rreq->bytes;
  if (n > 0)
    memcpy(rreq->recv_buf, data, n);
  rreq->status.bytes = n;
  mock_done(rreq, bytes > rreq->bytes ? HC_ERR_TRUNCATE : HC_OK);
}

hcomm_request_t *hc_request_alloc(hc_request_kind_t kind) {
  hcomm_request_t *r = calloc(1, sizeof *r);
  r->kind = kind;
  atomic_init(&r->done, 0);
  return r;
}

void hc_request_release(hcomm_request_t *req) {
  if (req->plan != NULL)
    hc_nbc_plan_free(req->plan);
  free(req);
}

void hc_request_complete(hcomm_request_t *req, hc_status_t error) {
  mock_done(req, error);
  if (req->user_freed)
    hc_request_release(req);
}

/* A persistent run finished inside its start (nbc.c): no lane runs in
 * these tests, so never called; as hc_request_complete if it were. */
void hc_request_complete_started(hcomm_request_t *req) {
  mock_done(req, HC_OK);
}

/* No communicator of these tests is ever revoked. */
hc_status_t hc_comm_revoked_locked(const hcomm_comm_t *comm) {
  (void)comm;
  return HC_OK;
}

/* The schedules post only on the collective context (coll = 1). */
hc_status_t hc_isend_locked(const void *buf, size_t bytes, int dest, int tag,
                            hcomm_comm_t *comm, int mode, int coll,
                            hcomm_request_t **req) {
  (void)mode;
  if (mock_fail_send != HC_OK || !coll)
    return mock_fail_send != HC_OK ? mock_fail_send : HC_ERR_ARG;
  hcomm_request_t *s = hc_request_alloc(HC_REQ_SEND);
  s->comm = comm;
  s->peer = dest;
  s->tag = tag;
  s->send_buf = buf;
  s->bytes = bytes;
  hcomm_request_t **pp = &mock_posted[dest];
  while (*pp && !mock_matches((*pp)->peer, (*pp)->tag, comm->rank, tag))
    pp = &(*pp)->next;
  if (*pp) {
    hcomm_request_t *r = *pp;
    *pp = r->next;
    mock_deliver(r, buf, bytes);
    mock_done(s, HC_OK);
  } else {
    mock_msg_t *m = calloc(1, sizeof *m);
    m->source = comm->rank;
    m->tag = tag;
    m->bytes = bytes;
    if (mock_sync) {
      m->sreq = s;
    } else {
      m->copy = malloc(bytes ? bytes : 1);
      if (bytes > 0)
        memcpy(m->copy, buf, bytes);
      mock_done(s, HC_OK);
    }
    mock_msg_t **mp = &mock_unexpected[dest];
    while (*mp)
      mp = &(*mp)->next;
    *mp = m;
  }
  *req = s;
  return HC_OK;
}

hc_status_t hc_irecv_locked(void *buf, size_t bytes, int source, int tag,
                            hcomm_comm_t *comm, int coll,
                            hcomm_request_t **req) {
  if (!coll)
    return HC_ERR_ARG;
  hcomm_request_t *r = hc_request_alloc(HC_REQ_RECV);
  r->comm = comm;
  r->peer = source;
  r->tag = tag;
  r->recv_buf = buf;
  r->bytes = bytes;
  mock_msg_t **mp = &mock_unexpected[comm->rank];
  while (*mp && !mock_matches(source, tag, (*mp)->source, (*mp)->tag))
    mp = &(*mp)->next;
  if (*mp) {
    mock_msg_t *m = *mp;
    *mp = m->next;
    if (m->sreq) {
      mock_deliver(r, m->sreq->send_buf, m->bytes);
      mock_done(m->sreq, HC_OK);
    } else {
      mock_deliver(r, m->copy, m->bytes);
    }
    free(m->copy);
    free(m);
  } else {
    hcomm_request_t **pp = &mock_posted[comm->rank];
    while (*pp)
      pp = &(*pp)->next;
    *pp = r;
  }
  *req = r;
  return HC_OK;
}

/* A posted receive is withdrawn; anything else is left to complete. */
void hc_proto_cancel(hcomm_request_t *req) {
  if (req->kind != HC_REQ_RECV || atomic_load(&req->done))
    return;
  hcomm_request_t **pp = &mock_posted[req->comm->rank];
  while (*pp && *pp != req)
    pp = &(*pp)->next;
  if (*pp)
    *pp = req->next;
  req->status.cancelled = 1;
  mock_done(req, HC_OK);
}

/* hcomm_start hands partitioned requests to part.c; this test makes none. */
hc_status_t hc_part_start(hcomm_request_t *req) {
  (void)req;
  return HC_ERR_REQUEST;
}

/* Any waiting rank drives every rank's schedules; it sleeps only when a
 * pass moved nothing, and every match wakes the sleepers. */
hc_status_t hcomm_wait(hcomm_request_t *req, hcomm_status_t *status) {
  hc_engine_lock();
  while (!atomic_load(&req->done))
    if (hc_nbc_progress_locked() == 0 && !atomic_load(&req->done))
      pthread_cond_wait(&mock_cond, &hc_engine.lock);
  if (status)
    *status = req->status;
  hc_status_t rc = req->status.error;
  hc_engine_unlock();
  return rc;
}

int hcomm_request_free(hcomm_request_t *req) {
  hc_engine_lock();
  int released = atomic_load(&req->done);
  if (released)
    hc_request_release(req);
  else
    req->user_freed = 1;
  hc_engine_unlock();
  return released;
}

/* The wait policy (progress.c) has no say here: the ranks are threads
 * that always poll. */
void hc_progress_recurring_begin(hc_progress_recurring_t *wait) {
  hc_engine.recurring = wait;
}

void hc_progress_recurring_end(hc_progress_recurring_t *wait) {
  (void)wait;
  hc_engine.recurring = NULL;
}

/* The shared-memory collectives need processes (tests/mpi/coll_shm.c):
 * here every blocking collective takes its schedule. */
void hc_shmcoll_wanted_now(hcomm_comm_t *comm) { (void)comm; }

hc_status_t hc_shmcoll_barrier(hcomm_comm_t *comm) {
  (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_bcast(void *buf, size_t bytes, int root,
                             hcomm_comm_t *comm) {
  (void)buf, (void)bytes, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, int root,
                              hcomm_comm_t *comm) {
  (void)sendbuf, (void)recvbuf, (void)count, (void)op, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_allreduce(const void *sendbuf, void *recvbuf,
                                 size_t count, const hcomm_reduce_op_t *op,
                                 hcomm_comm_t *comm) {
  (void)sendbuf, (void)recvbuf, (void)count, (void)op, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_allgather(const void *sendbuf, size_t bytes,
                                 void *recvbuf, const size_t *rbytes,
                                 const size_t *rdispls, hcomm_comm_t *comm) {
  (void)sendbuf, (void)bytes, (void)recvbuf, (void)rbytes, (void)rdispls,
      (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_alltoall(const void *sendbuf, const size_t *sbytes,
                                const size_t *sdispls, void *recvbuf,
                                const size_t *rbytes, const size_t *rdispls,
                                size_t bytes, hcomm_comm_t *comm) {
  (void)sendbuf, (void)sbytes, (void)sdispls, (void)recvbuf, (void)rbytes,
      (void)rdispls, (void)bytes, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_gather(int vform, const void *sendbuf, size_t sbytes,
                              void *recvbuf, const size_t *rbytes,
                              const size_t *rdispls, int root,
                              hcomm_comm_t *comm) {
  (void)vform, (void)sendbuf, (void)sbytes, (void)recvbuf, (void)rbytes, (void)rdispls,
      (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_scatter(int vform, const void *sendbuf,
                               const size_t *sbytes, const size_t *sdispls,
                               void *recvbuf, size_t rbytes, int root,
                               hcomm_comm_t *comm) {
  (void)vform, (void)sendbuf, (void)sbytes, (void)sdispls, (void)recvbuf, (void)rbytes,
      (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_gatherv_acc(const hcomm_accessor_t *sacc, size_t sbytes,
                                   const hcomm_accessor_t *racc,
                                   const size_t *rbytes, const size_t *roffs,
                                   int root, hcomm_comm_t *comm) {
  (void)sacc, (void)sbytes, (void)racc, (void)rbytes, (void)roffs, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_scatterv_acc(const hcomm_accessor_t *sacc,
                                    const size_t *sbytes, const size_t *soffs,
                                    const hcomm_accessor_t *racc, size_t rbytes,
                                    int root, hcomm_comm_t *comm) {
  (void)sacc, (void)sbytes, (void)soffs, (void)racc, (void)rbytes, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

int hc_shmcoll_rooted_takes(hcomm_comm_t *comm, int vform, size_t bytes) {
  (void)comm, (void)vform, (void)bytes;
  return 0;
}

hc_status_t hc_shmcoll_reduce_scatter(const void *sendbuf, void *recvbuf,
                                      const size_t *counts, size_t each,
                                      const hcomm_reduce_op_t *op,
                                      hcomm_comm_t *comm) {
  (void)sendbuf, (void)recvbuf, (void)counts, (void)each, (void)op, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

/* ... and every I-form its point-to-point schedule: no step of theirs is
 * ever a shared-memory one, so the step calls below are never reached. */
hc_status_t hc_shmcoll_ibarrier_prepare(hc_shmcoll_op_t *op,
                                        hcomm_comm_t *comm) {
  (void)op, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_ibcast_prepare(hc_shmcoll_op_t *op, void *buf,
                                      size_t bytes, int root,
                                      hcomm_comm_t *comm) {
  (void)op, (void)buf, (void)bytes, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_ibcast_acc_prepare(hc_shmcoll_op_t *op,
                                          const hcomm_accessor_t *acc,
                                          size_t bytes, int root,
                                          hcomm_comm_t *comm) {
  (void)op, (void)acc, (void)bytes, (void)root, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_ireduce_prepare(hc_shmcoll_op_t *op, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       const hcomm_reduce_op_t *rop, int root,
                                       hcomm_comm_t *comm) {
  (void)op, (void)sendbuf, (void)recvbuf, (void)count, (void)rop, (void)root,
      (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_iallgather_prepare(hc_shmcoll_op_t *op,
                                          const void *sendbuf, size_t bytes,
                                          void *recvbuf, const size_t *rbytes,
                                          const size_t *rdispls,
                                          hcomm_comm_t *comm) {
  (void)op, (void)sendbuf, (void)bytes, (void)recvbuf, (void)rbytes,
      (void)rdispls, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_ialltoall_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, const size_t *sbytes,
    const size_t *sdispls, void *recvbuf, const size_t *rbytes,
    const size_t *rdispls, size_t bytes, hcomm_comm_t *comm) {
  (void)op, (void)sendbuf, (void)sbytes, (void)sdispls, (void)recvbuf,
      (void)rbytes, (void)rdispls, (void)bytes, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

hc_status_t hc_shmcoll_ireduce_scatter_prepare(
    hc_shmcoll_op_t *op, const void *sendbuf, void *recvbuf,
    const size_t *counts, const hcomm_reduce_op_t *rop, hcomm_comm_t *comm) {
  (void)op, (void)sendbuf, (void)recvbuf, (void)counts, (void)rop, (void)comm;
  return HC_ERR_NOT_SUPPORTED;
}

int hc_shmcoll_alltoall_reads(hc_shmcoll_op_t *op, const void *sendbuf) {
  (void)op, (void)sendbuf;
  abort();
}

int hc_shmcoll_alltoall_unread(const hc_shmcoll_op_t *op, int peer, int send) {
  (void)op, (void)peer, (void)send;
  abort();
}

hc_status_t hc_shmcoll_op_claim_lane(hc_shmcoll_op_t *op,
                                     hc_shmcoll_claim_t *claim) {
  (void)op, (void)claim;
  abort();
}

int hc_shmcoll_claim_start(hc_shmcoll_claim_t *claim) {
  (void)claim;
  abort();
}

void hc_shmcoll_claim_release(hc_shmcoll_claim_t *claim) {
  (void)claim;
  abort();
}

void hc_shmcoll_op_start(hc_shmcoll_op_t *op) {
  (void)op;
  abort();
}

int hc_shmcoll_op_poll(hc_shmcoll_op_t *op, hc_status_t *rc) {
  (void)op, (void)rc;
  abort();
}

void hc_shmcoll_op_sleep(const hc_shmcoll_op_t *op, int ms) {
  (void)op, (void)ms;
  abort();
}

int hc_shmcoll_op_now_locked(hc_shmcoll_op_t *op) {
  (void)op;
  abort();
}

/* The schedules of derived types (hcomm_ibcast_acc) need the MPI face's
 * datatypes: tests/mpi/coll_stream.c. */
hc_status_t hc_isend_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int dest, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req) {
  (void)acc, (void)bytes, (void)dest, (void)tag, (void)comm, (void)coll,
      (void)req;
  abort();
}

hc_status_t hc_irecv_acc_locked(const hcomm_accessor_t *acc, size_t bytes,
                                int source, int tag, hcomm_comm_t *comm,
                                int coll, hcomm_request_t **req) {
  (void)acc, (void)bytes, (void)source, (void)tag, (void)comm, (void)coll,
      (void)req;
  abort();
}

/* Nothing may be left behind by a collective that returned. */
static int mock_queues_empty(int size) {
  for (int r = 0; r < size; r++)
    if (mock_posted[r] || mock_unexpected[r])
      return 0;
  return 1;
}

/* ---- running ranks as threads -------------------------------------------- */

typedef int (*rank_fn)(hcomm_comm_t *comm, void *arg);

typedef struct {
  hcomm_comm_t comm;
  rank_fn fn;
  void *arg;
  int failures;
} rank_ctx_t;

static void *rank_main(void *p) {
  rank_ctx_t *c = p;
  c->failures = c->fn(&c->comm, c->arg);
  return NULL;
}

/* Runs fn on size ranks; returns the total of their failure counts. */
static int run_ranks(int size, rank_fn fn, void *arg) {
  rank_ctx_t ctx[MOCK_MAX_RANKS];
  pthread_t th[MOCK_MAX_RANKS];
  int failures = 0;
  for (int r = 0; r < size; r++) {
    ctx[r] = (rank_ctx_t){{.rank = r, .size = size}, fn, arg, 0};
    pthread_create(&th[r], NULL, rank_main, &ctx[r]);
  }
  for (int r = 0; r < size; r++) {
    pthread_join(th[r], NULL);
    failures += ctx[r].failures;
  }
  ck_assert_msg(mock_queues_empty(size), "messages left in the mock queues");
  return failures;
}

static const int test_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16};
#define N_SIZES ((int)(sizeof test_sizes / sizeof test_sizes[0]))

/* The "_i" loop index of a loop test selects eager (even) or sync (odd). */
static void set_mode(int i) { mock_sync = i % 2; }

/* ---- data patterns and ops ----------------------------------------------- */

static unsigned char pattern(int rank, size_t i, int salt) {
  return (unsigned char)(rank * 31 + (int)(i % 251) * 7 + salt);
}

static void op_sum_i64(const void *in, void *inout, size_t count, void *ctx) {
  const int64_t *a = in;
  int64_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    b[i] = a[i] + b[i];
}

/* 2x2 matrices of uint32 (wrapping): inout = in x inout, not commutative. */
typedef struct {
  uint32_t m[4];
} mat2_t;

static void mat2_mul(const mat2_t *a, const mat2_t *b, mat2_t *out) {
  mat2_t r;
  r.m[0] = a->m[0] * b->m[0] + a->m[1] * b->m[2];
  r.m[1] = a->m[0] * b->m[1] + a->m[1] * b->m[3];
  r.m[2] = a->m[2] * b->m[0] + a->m[3] * b->m[2];
  r.m[3] = a->m[2] * b->m[1] + a->m[3] * b->m[3];
  *out = r;
}

static void op_mat2(const void *in, void *inout, size_t count, void *ctx) {
  const mat2_t *a = in;
  mat2_t *b = inout;
  (void)ctx;
  for (size_t i = 0; i < count; i++)
    mat2_mul(&a[i], &b[i], &b[i]);
}

static mat2_t mat2_of(int rank, size_t i) {
  mat2_t x = {{(uint32_t)rank + 2, (uint32_t)(i % 5) + 1,
               (uint32_t)(rank * 3 + 1), (uint32_t)(i % 3)}};
  return x;
}

static const hcomm_reduce_op_t sum_op = {op_sum_i64, NULL, sizeof(int64_t), 1};
static const hcomm_reduce_op_t mat_op = {op_mat2, NULL, sizeof(mat2_t), 0};

static int64_t sum_of(int rank, size_t i) {
  return (int64_t)(rank + 1) * 1000003 + (int64_t)i;
}

/* ---- helper tests -------------------------------------------------------- */

START_TEST(block_partition_covers_range_in_order) {
  size_t totals[] = {0, 1, 5, 7, 100, 1001};
  for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
    for (int n = 1; n <= 17; n++) {
      size_t expect = 0, minlen = SIZE_MAX, maxlen = 0;
      for (int i = 0; i < n; i++) {
        size_t off, len;
        hc_coll_block(totals[t], n, i, &off, &len);
        ck_assert_uint_eq(off, expect);
        expect += len;
        minlen = len < minlen ? len : minlen;
        maxlen = len > maxlen ? len : maxlen;
      }
      ck_assert_uint_eq(expect, totals[t]);
      ck_assert_uint_le(maxlen - minlen, 1);
    }
}
END_TEST

START_TEST(span_clamps_to_total) {
  size_t lo, hi;
  hc_coll_span(10, 4, 0, 1, &lo, &hi);
  ck_assert_uint_eq(lo, 0);
  ck_assert_uint_eq(hi, 4);
  hc_coll_span(10, 4, 2, 4, &lo, &hi);
  ck_assert_uint_eq(lo, 8);
  ck_assert_uint_eq(hi, 10);
  hc_coll_span(10, 4, 5, 2, &lo, &hi);
  ck_assert_uint_eq(lo, 10);
  ck_assert_uint_eq(hi, 10);
}
END_TEST

START_TEST(pof2_floor_values) {
  ck_assert_int_eq(hc_coll_pof2_floor(1), 1);
  ck_assert_int_eq(hc_coll_pof2_floor(2), 2);
  ck_assert_int_eq(hc_coll_pof2_floor(3), 2);
  ck_assert_int_eq(hc_coll_pof2_floor(7), 4);
  ck_assert_int_eq(hc_coll_pof2_floor(8), 8);
  ck_assert_int_eq(hc_coll_pof2_floor(1000), 512);
}
END_TEST

START_TEST(algorithm_selection_by_size) {
  ck_assert_int_eq(hc_coll_bcast_alg(100, 1), HC_COLL_ALG_TRIVIAL);
  ck_assert_int_eq(hc_coll_bcast_alg(0, 8), HC_COLL_ALG_TRIVIAL);
  ck_assert_int_eq(hc_coll_bcast_alg(100, 8), HC_COLL_ALG_BINOMIAL);
  ck_assert_int_eq(hc_coll_bcast_alg(HC_COLL_BCAST_LARGE + 1, 8),
                   HC_COLL_ALG_SCATTER_RING);
  ck_assert_int_eq(hc_coll_bcast_alg(HC_COLL_BCAST_LARGE + 1, 2),
                   HC_COLL_ALG_BINOMIAL);
  ck_assert_int_eq(hc_coll_allreduce_alg(10, 8, 1, 5),
                   HC_COLL_ALG_RECURSIVE_DOUBLING);
  ck_assert_int_eq(hc_coll_allreduce_alg(1 << 20, 8, 1, 5), HC_COLL_ALG_RING);
  ck_assert_int_eq(hc_coll_allreduce_alg(1 << 20, 8, 1, 8),
                   HC_COLL_ALG_RABENSEIFNER);
  ck_assert_int_eq(hc_coll_alltoall_alg(HC_COLL_ALLTOALL_LINEAR, 8, 1),
                   HC_COLL_ALG_LINEAR);
  ck_assert_int_eq(hc_coll_alltoall_alg(HC_COLL_ALLTOALL_LINEAR + 1, 8, 1),
                   HC_COLL_ALG_PAIRWISE);
  ck_assert_int_eq(hc_coll_alltoall_alg(8, 8, 1), HC_COLL_ALG_BRUCK);
  ck_assert_int_eq(hc_coll_alltoall_alg(8, 8, 0), HC_COLL_ALG_LINEAR);
  ck_assert_int_eq(hc_coll_alltoall_alg(8, 4, 1), HC_COLL_ALG_LINEAR);
  ck_assert_int_eq(hc_coll_allreduce_alg(1 << 20, 8, 0, 5),
                   HC_COLL_ALG_REDUCE_BCAST);
  ck_assert_int_eq(hc_coll_allreduce_alg(0, 8, 1, 5), HC_COLL_ALG_TRIVIAL);
  ck_assert_int_eq(hc_coll_gather_alg(8, 3), HC_COLL_ALG_LINEAR);
  ck_assert_int_eq(hc_coll_gather_alg(8, 9), HC_COLL_ALG_BINOMIAL);
  ck_assert_int_eq(hc_coll_allgather_alg(8, 8), HC_COLL_ALG_RECURSIVE_DOUBLING);
  ck_assert_int_eq(hc_coll_allgather_alg(8, 6), HC_COLL_ALG_RING);
  ck_assert_int_eq(hc_coll_allgather_alg(HC_COLL_ALLGATHER_LARGE, 8),
                   HC_COLL_ALG_RING);
}
END_TEST

/* The thresholds follow hc_coll_tuning (HCMPI_COLL_* at engine init). */
START_TEST(algorithm_thresholds_tunable) {
  hc_coll_tuning_t saved = hc_coll_tuning;
  hc_coll_tuning.bcast_large = 100;
  hc_coll_tuning.allreduce_large = 0;
  hc_coll_tuning.allgather_large = 8;
  hc_coll_tuning.alltoall_linear = 0;
  hc_coll_tuning.gather_linear_max = 1;
  ck_assert_int_eq(hc_coll_bcast_alg(101, 8), HC_COLL_ALG_SCATTER_RING);
  ck_assert_int_eq(hc_coll_allreduce_alg(8, 8, 1, 4), HC_COLL_ALG_RABENSEIFNER);
  ck_assert_int_eq(hc_coll_allgather_alg(8, 2), HC_COLL_ALG_RING);
  ck_assert_int_eq(hc_coll_alltoall_alg(1, 2, 1), HC_COLL_ALG_PAIRWISE);
  ck_assert_int_eq(hc_coll_gather_alg(8, 2), HC_COLL_ALG_BINOMIAL);
  hc_coll_tuning = saved;
}
END_TEST

/* _i bit 2 of the loop tests: every threshold at its lowest, so the
 * large-message algorithms run on the small cases too. */
static void set_thresholds(int i) {
  static const hc_coll_tuning_t defaults = {
      .bcast_large = HC_COLL_BCAST_LARGE,
      .allreduce_large = HC_COLL_ALLREDUCE_LARGE,
      .allgather_large = HC_COLL_ALLGATHER_LARGE,
      .alltoall_linear = HC_COLL_ALLTOALL_LINEAR,
      .alltoall_bruck = HC_COLL_ALLTOALL_BRUCK,
      .gather_linear_max = HC_COLL_GATHER_LINEAR_MAX};
  static const hc_coll_tuning_t lowest = {.gather_linear_max = 1};
  hc_coll_tuning = i & 4 ? lowest : defaults;
}

/* ---- barrier ------------------------------------------------------------- */

static int barrier_counter;

static int rank_barrier(hcomm_comm_t *comm, void *arg) {
  int fails = 0, size = comm->size;
  (void)arg;
  for (int round = 1; round <= 5; round++) {
    __atomic_add_fetch(&barrier_counter, 1, __ATOMIC_SEQ_CST);
    fails += hcomm_barrier(comm) != HC_OK;
    /* Nobody may leave round k before everyone entered it. */
    fails += __atomic_load_n(&barrier_counter, __ATOMIC_SEQ_CST) < round * size;
    fails += hcomm_barrier(comm) != HC_OK;
  }
  return fails;
}

START_TEST(barrier_waits_for_every_rank) {
  set_mode(_i);
  for (int s = 0; s < N_SIZES; s++) {
    barrier_counter = 0;
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_barrier, NULL), 0);
  }
}
END_TEST

/* ---- bcast --------------------------------------------------------------- */

static const size_t bcast_bytes[] = {0,    1,      7,
                                     1000, 100000, HC_COLL_BCAST_LARGE + 4097};

static int rank_bcast(hcomm_comm_t *comm, void *arg) {
  int fails = 0;
  (void)arg;
  for (size_t k = 0; k < sizeof bcast_bytes / sizeof bcast_bytes[0]; k++) {
    size_t n = bcast_bytes[k];
    unsigned char *buf = malloc(n + 1);
    for (int root = 0; root < comm->size; root++) {
      for (size_t i = 0; i < n; i++)
        buf[i] = comm->rank == root ? pattern(root, i, 1) : 0xee;
      fails += hcomm_bcast(buf, n, root, comm) != HC_OK;
      for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(root, i, 1)) {
          fails++;
          break;
        }
    }
    free(buf);
  }
  return fails;
}

START_TEST(bcast_every_root_every_size) {
  set_mode(_i);
  set_thresholds(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_bcast, NULL), 0);
}
END_TEST

/* ---- reduce / allreduce -------------------------------------------------- */

static const size_t red_counts[] = {0, 1, 7, 1000, 20000};

static void fill_sum(int64_t *v, int rank, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = sum_of(rank, i);
}

static int check_sum(const int64_t *v, int size, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int64_t want = 0;
    for (int r = 0; r < size; r++)
      want += sum_of(r, i);
    if (v[i] != want)
      return 1;
  }
  return 0;
}

static void fill_mat(mat2_t *v, int rank, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = mat2_of(rank, i);
}

/* The serial reference M0 x M1 x ... x M(p-1). */
static int check_mat(const mat2_t *v, int size, size_t n) {
  for (size_t i = 0; i < n; i++) {
    mat2_t want = mat2_of(0, i);
    for (int r = 1; r < size; r++) {
      mat2_t m = mat2_of(r, i);
      mat2_mul(&want, &m, &want);
    }
    if (memcmp(&want, &v[i], sizeof want) != 0)
      return 1;
  }
  return 0;
}

/* arg: 0 plain, 1 root/all use HCOMM_IN_PLACE. */
static int rank_reduce(hcomm_comm_t *comm, void *arg) {
  int fails = 0, in_place = *(int *)arg;
  for (size_t k = 0; k < sizeof red_counts / sizeof red_counts[0]; k++) {
    size_t n = red_counts[k];
    int64_t *s = malloc(n * sizeof *s + 1), *r = malloc(n * sizeof *r + 1);
    mat2_t *ms = malloc(n * sizeof *ms + 1), *mr = malloc(n * sizeof *mr + 1);
    for (int root = 0; root < comm->size; root += 2) {
      int ip = in_place && comm->rank == root;
      fill_sum(ip ? r : s, comm->rank, n);
      fill_mat(ip ? mr : ms, comm->rank, n);
      fails += hcomm_reduce(ip ? HCOMM_IN_PLACE : s, r, n, &sum_op, root,
                            comm) != HC_OK;
      fails += hcomm_reduce(ip ? HCOMM_IN_PLACE : ms, mr, n, &mat_op, root,
                            comm) != HC_OK;
      if (comm->rank == root)
        fails += check_sum(r, comm->size, n) + check_mat(mr, comm->size, n);
    }
    free(s);
    free(r);
    free(ms);
    free(mr);
  }
  return fails;
}

static int rank_allreduce(hcomm_comm_t *comm, void *arg) {
  int fails = 0, ip = *(int *)arg;
  for (size_t k = 0; k < sizeof red_counts / sizeof red_counts[0]; k++) {
    size_t n = red_counts[k];
    int64_t *s = malloc(n * sizeof *s + 1), *r = malloc(n * sizeof *r + 1);
    mat2_t *ms = malloc(n * sizeof *ms + 1), *mr = malloc(n * sizeof *mr + 1);
    fill_sum(ip ? r : s, comm->rank, n);
    fill_mat(ip ? mr : ms, comm->rank, n);
    fails +=
        hcomm_allreduce(ip ? HCOMM_IN_PLACE : s, r, n, &sum_op, comm) != HC_OK;
    fails += hcomm_allreduce(ip ? HCOMM_IN_PLACE : ms, mr, n, &mat_op, comm) !=
             HC_OK;
    fails += check_sum(r, comm->size, n) + check_mat(mr, comm->size, n);
    free(s);
    free(r);
    free(ms);
    free(mr);
  }
  return fails;
}

/* _i: bit 0 sync mode, bit 1 in place. */
START_TEST(reduce_sum_and_rank_ordered_matmul) {
  int ip = (_i / 2) & 1;
  set_mode(_i);
  set_thresholds(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_reduce, &ip), 0);
}
END_TEST

START_TEST(allreduce_sum_and_rank_ordered_matmul) {
  int ip = (_i / 2) & 1;
  set_mode(_i);
  set_thresholds(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_allreduce, &ip), 0);
}
END_TEST

/* ---- gather / allgather -------------------------------------------------- */

static const size_t gather_bytes[] = {0, 1, 13, 5000, 70000};

static int check_blocks(const unsigned char *buf, int size, size_t n,
                        int salt) {
  for (int r = 0; r < size; r++)
    for (size_t i = 0; i < n; i++)
      if (buf[(size_t)r * n + i] != pattern(r, i, salt))
        return 1;
  return 0;
}

static int rank_gather(hcomm_comm_t *comm, void *arg) {
  int fails = 0, in_place = *(int *)arg, me = comm->rank;
  for (size_t k = 0; k < sizeof gather_bytes / sizeof gather_bytes[0]; k++) {
    size_t n = gather_bytes[k];
    unsigned char *s = malloc(n + 1), *r = malloc(n * comm->size + 1);
    for (int root = 0; root < comm->size; root++) {
      int ip = in_place && me == root;
      memset(r, 0xee, n * comm->size);
      for (size_t i = 0; i < n; i++)
        (ip ? r + (size_t)me * n : s)[i] = pattern(me, i, root);
      fails += hcomm_gather(ip ? HCOMM_IN_PLACE : s, n, r, root, comm) != HC_OK;
      if (me == root)
        fails += check_blocks(r, comm->size, n, root);
    }
    free(s);
    free(r);
  }
  return fails;
}

static int rank_allgather(hcomm_comm_t *comm, void *arg) {
  int fails = 0, ip = *(int *)arg, me = comm->rank;
  for (size_t k = 0; k < sizeof gather_bytes / sizeof gather_bytes[0]; k++) {
    size_t n = gather_bytes[k];
    unsigned char *s = malloc(n + 1), *r = malloc(n * comm->size + 1);
    memset(r, 0xee, n * comm->size);
    for (size_t i = 0; i < n; i++)
      (ip ? r + (size_t)me * n : s)[i] = pattern(me, i, 3);
    fails += hcomm_allgather(ip ? HCOMM_IN_PLACE : s, n, r, comm) != HC_OK;
    fails += check_blocks(r, comm->size, n, 3);
    free(s);
    free(r);
  }
  return fails;
}

START_TEST(gather_every_root_every_size) {
  int ip = (_i / 2) & 1;
  set_mode(_i);
  set_thresholds(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_gather, &ip), 0);
}
END_TEST

START_TEST(allgather_every_size) {
  int ip = (_i / 2) & 1;
  set_mode(_i);
  set_thresholds(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_allgather, &ip), 0);
}
END_TEST

/* ---- mixed sequence and errors ------------------------------------------- */

/* Different collectives back to back, no barrier between them: a fast rank's
 * next collective must not steal messages of the previous one. */
static int rank_mixed(hcomm_comm_t *comm, void *arg) {
  int fails = 0, size = comm->size, me = comm->rank;
  int64_t v[3], all[MOCK_MAX_RANKS];
  (void)arg;
  for (int it = 0; it < 20; it++) {
    int64_t x = me + it;
    fails += hcomm_bcast(&x, sizeof x, it % size, comm) != HC_OK;
    fails += x != (it % size) + it;
    fill_sum(v, me, 3);
    fails += hcomm_allreduce(HCOMM_IN_PLACE, v, 3, &sum_op, comm) != HC_OK;
    fails += check_sum(v, size, 3);
    x = me * 10 + it;
    fails += hcomm_allgather(&x, sizeof x, all, comm) != HC_OK;
    for (int r = 0; r < size; r++)
      fails += all[r] != r * 10 + it;
    fails += hcomm_gather(&x, sizeof x, all, 0, comm) != HC_OK;
    if (me == 0)
      for (int r = 0; r < size; r++)
        fails += all[r] != r * 10 + it;
  }
  return fails;
}

START_TEST(mixed_collectives_back_to_back) {
  set_mode(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_mixed, NULL), 0);
}
END_TEST

static int rank_failing(hcomm_comm_t *comm, void *arg) {
  int fails = 0;
  int64_t v = 1, all[MOCK_MAX_RANKS];
  (void)arg;
  fails += hcomm_barrier(comm) != HC_ERR_TRANSPORT;
  fails +=
      hcomm_allreduce(HCOMM_IN_PLACE, &v, 1, &sum_op, comm) != HC_ERR_TRANSPORT;
  fails += hcomm_allgather(&v, sizeof v, all, comm) != HC_ERR_TRANSPORT;
  return fails;
}

START_TEST(failed_send_is_returned_and_receives_withdrawn) {
  mock_fail_send = HC_ERR_TRANSPORT;
  ck_assert_int_eq(run_ranks(4, rank_failing, NULL), 0);
  mock_fail_send = HC_OK;
}
END_TEST

START_TEST(bad_arguments_rejected) {
  hcomm_comm_t c = {.rank = 0, .size = 3};
  int64_t v = 0;
  hcomm_reduce_op_t no_fn = {NULL, NULL, 8, 1};
  ck_assert_int_eq(hcomm_bcast(&v, 8, 3, &c), HC_ERR_RANK);
  ck_assert_int_eq(hcomm_bcast(&v, 8, -1, &c), HC_ERR_RANK);
  ck_assert_int_eq(hcomm_bcast(&v, 8, 0, NULL), HC_ERR_COMM);
  ck_assert_int_eq(hcomm_reduce(&v, &v, 1, &sum_op, 5, &c), HC_ERR_RANK);
  ck_assert_int_eq(hcomm_reduce(&v, &v, 1, NULL, 0, &c), HC_ERR_ARG);
  ck_assert_int_eq(hcomm_allreduce(&v, &v, 1, &no_fn, &c), HC_ERR_ARG);
  ck_assert_int_eq(hcomm_gather(&v, 8, &v, 7, &c), HC_ERR_RANK);
  ck_assert_int_eq(hcomm_barrier(NULL), HC_ERR_COMM);
  ck_assert_int_eq(hcomm_allgather(&v, 8, &v, NULL), HC_ERR_COMM);
  /* Only the root may pass HCOMM_IN_PLACE to reduce and gather. */
  c.rank = 1;
  ck_assert_int_eq(hcomm_reduce(HCOMM_IN_PLACE, &v, 1, &sum_op, 0, &c),
                   HC_ERR_ARG);
  ck_assert_int_eq(hcomm_gather(HCOMM_IN_PLACE, 8, &v, 0, &c), HC_ERR_ARG);
}
END_TEST

/* ---- persistent collectives --------------------------------------------- */

/* Built once, started 100 times with the inputs changed between starts. */
static int rank_persistent(hcomm_comm_t *comm, void *arg) {
  int fails = 0, me = comm->rank, size = comm->size, root = size - 1;
  int64_t v[7] = {0}, r[7] = {0}, x = 0;
  hcomm_request_t *ar = NULL, *bc = NULL;
  (void)arg;
  fails += hcomm_allreduce_init(v, r, 7, &sum_op, comm, &ar) != HC_OK;
  fails += hcomm_bcast_init(&x, sizeof x, root, comm, &bc) != HC_OK;
  for (int it = 0; it < 100 && fails == 0; it++) {
    for (size_t i = 0; i < 7; i++)
      v[i] = sum_of(me, i) + it;
    fails += hcomm_start(ar) != HC_OK;
    fails += hcomm_wait(ar, NULL) != HC_OK;
    for (size_t i = 0; i < 7; i++) {
      int64_t want = (int64_t)it * size;
      for (int q = 0; q < size; q++)
        want += sum_of(q, i);
      fails += r[i] != want;
    }
    x = me == root ? it * 7 + 1 : -1;
    fails += hcomm_start(bc) != HC_OK;
    fails += hcomm_wait(bc, NULL) != HC_OK;
    fails += x != it * 7 + 1;
  }
  hcomm_request_free(ar);
  hcomm_request_free(bc);
  return fails;
}

START_TEST(persistent_replayed_with_new_inputs) {
  set_mode(_i);
  for (int s = 0; s < N_SIZES; s++)
    ck_assert_int_eq(run_ranks(test_sizes[s], rank_persistent, NULL), 0);
}
END_TEST

static int second_start_tried;

/* Rank 0 starts twice before rank 1 starts at all, so its first run cannot
 * have finished: the second start is refused. */
static int rank_start_active(hcomm_comm_t *comm, void *arg) {
  int fails = 0;
  hcomm_request_t *b = NULL;
  (void)arg;
  fails += hcomm_barrier_init(comm, &b) != HC_OK;
  if (comm->rank == 0) {
    fails += hcomm_start(b) != HC_OK;
    fails += hcomm_start(b) != HC_ERR_REQUEST;
    __atomic_store_n(&second_start_tried, 1, __ATOMIC_SEQ_CST);
  } else {
    while (!__atomic_load_n(&second_start_tried, __ATOMIC_SEQ_CST))
      sched_yield();
    fails += hcomm_start(b) != HC_OK;
  }
  fails += hcomm_wait(b, NULL) != HC_OK;
  hcomm_request_free(b);
  return fails;
}

START_TEST(start_of_active_persistent_refused) {
  hcomm_request_t *plain = NULL;
  hcomm_comm_t c = {.rank = 0, .size = 1};
  second_start_tried = 0;
  ck_assert_int_eq(run_ranks(2, rank_start_active, NULL), 0);
  /* A request that is not a persistent collective cannot be started. */
  ck_assert_int_eq(hcomm_ibarrier(&c, &plain), HC_OK);
  ck_assert_int_eq(hcomm_wait(plain, NULL), HC_OK);
  ck_assert_int_eq(hcomm_start(plain), HC_ERR_REQUEST);
  hcomm_request_free(plain);
}
END_TEST

static Suite *coll_suite(void) {
  Suite *s = suite_create("coll");
  TCase *h = tcase_create("helpers");
  tcase_add_test(h, block_partition_covers_range_in_order);
  tcase_add_test(h, span_clamps_to_total);
  tcase_add_test(h, pof2_floor_values);
  tcase_add_test(h, algorithm_selection_by_size);
  tcase_add_test(h, algorithm_thresholds_tunable);
  tcase_add_test(h, bad_arguments_rejected);
  suite_add_tcase(s, h);

  TCase *t = tcase_create("mock-ranks");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, barrier_waits_for_every_rank, 0, 2);
  tcase_add_loop_test(t, bcast_every_root_every_size, 0, 8);
  tcase_add_loop_test(t, reduce_sum_and_rank_ordered_matmul, 0, 8);
  tcase_add_loop_test(t, allreduce_sum_and_rank_ordered_matmul, 0, 8);
  tcase_add_loop_test(t, gather_every_root_every_size, 0, 8);
  tcase_add_loop_test(t, allgather_every_size, 0, 8);
  tcase_add_loop_test(t, mixed_collectives_back_to_back, 0, 2);
  tcase_add_test(t, failed_send_is_returned_and_receives_withdrawn);
  tcase_add_loop_test(t, persistent_replayed_with_new_inputs, 0, 2);
  tcase_add_test(t, start_of_active_persistent_refused);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(coll_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
