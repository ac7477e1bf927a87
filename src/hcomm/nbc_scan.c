/*
 * The schedules of Barrier, Scan and Exscan, and their I- and persistent
 * forms (hcomm_i*, hcomm_*_init).
 * Each builder appends its rounds to a schedule of nbc.c (nbc_impl.h);
 * the builders pick pointers at build time, e.g. swapping two temporaries
 * instead of copying one into the other.  Everything here runs with the
 * engine lock held, or on a schedule no other thread sees yet.
 */
#include "hcomm/nbc.h"

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/nbc_impl.h"

/* ---- barrier ------------------------------------------------------------- */

/* Dissemination: ceil(log2 p) rounds for any p, no power-of-two fold-in. */
static void nbc_build_barrier(hc_nbc_sched_t *s) {
  for (int dist = 1; dist < s->size; dist <<= 1) {
    hc_nbc_add_recv(s, NULL, 0, (s->rank - dist + s->size) % s->size);
    hc_nbc_add_send(s, NULL, 0, (s->rank + dist) % s->size);
    hc_nbc_end_round(s);
  }
}

static hc_status_t nbc_coll_barrier(hcomm_comm_t *comm, hcomm_request_t **req,
                                    enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check(comm, req);
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, NULL, &s);
  if (rc != HC_OK)
    return rc;
  hc_shmcoll_op_t shm;
  if (!hc_nbc_use_shmcoll(s, &shm, hc_shmcoll_ibarrier_prepare(&shm, comm),
                          mode))
    nbc_build_barrier(s);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

/* ---- scan / exscan ------------------------------------------------------- */

/*
 * Recursive doubling: partial holds the combination of this rank's aligned
 * block of 2^k ranks and is swapped with the partner block's; contributions
 * of lower blocks are folded into the result on the left.  exclusive: the
 * result starts empty (rank 0's stays untouched).
 */
static void nbc_build_scan(hc_nbc_sched_t *s, const void *mine, void *out,
                           size_t count, int exclusive) {
  size_t bytes = count * s->op.elem_size;
  int have = !exclusive;
  void *partial = hc_nbc_tmp(s, bytes), *tmp = hc_nbc_tmp(s, bytes);
  if (tmp == NULL)
    return;
  hc_nbc_add_copy(s, mine, partial, bytes);
  if (!exclusive)
    hc_nbc_add_copy(s, mine, out, bytes);
  for (int mask = 1; mask < s->size; mask <<= 1) {
    int partner = s->rank ^ mask;
    if (partner >= s->size)
      continue;
    hc_nbc_add_recv(s, tmp, bytes, partner);
    hc_nbc_add_send(s, partial, bytes, partner);
    hc_nbc_end_round(s);
    if (partner < s->rank) {
      hc_nbc_add_combine(s, tmp, partial, count);
      if (have)
        hc_nbc_add_combine(s, tmp, out, count);
      else
        hc_nbc_add_copy(s, tmp, out, bytes);
      have = 1;
    } else {
      hc_nbc_add_combine(s, partial, tmp, count);
      void *swap = partial;
      partial = tmp;
      tmp = swap;
    }
  }
}

static hc_status_t nbc_scan(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                            hcomm_request_t **req, int exclusive,
                            enum hc_nbc_mode mode) {
  hc_nbc_sched_t *s;
  hc_status_t rc = hc_nbc_check_op(comm, op, req);
  if (rc == HC_OK)
    rc = hc_nbc_new(comm, op, &s);
  if (rc != HC_OK)
    return rc;
  const void *mine = sendbuf == HCOMM_IN_PLACE ? recvbuf : sendbuf;
  if (count > 0)
    nbc_build_scan(s, mine, recvbuf, count, exclusive);
  return hc_nbc_launch(s, mode == HC_NBC_PLAN, req);
}

hc_status_t hcomm_iscan(const void *sendbuf, void *recvbuf, size_t count,
                        const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                        hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 0, HC_NBC_START);
}

hc_status_t hcomm_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                          const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                          hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 1, HC_NBC_START);
}

/* ---- the public forms: started now (hcomm_i*) or kept (hcomm_*_init) ---- */

hc_status_t hcomm_ibarrier(hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_barrier(comm, req, HC_NBC_START);
}

hc_status_t hcomm_barrier_init(hcomm_comm_t *comm, hcomm_request_t **req) {
  return nbc_coll_barrier(comm, req, HC_NBC_PLAN);
}

hc_status_t hcomm_scan_init(const void *sendbuf, void *recvbuf, size_t count,
                            const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                            hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 0, HC_NBC_PLAN);
}

hc_status_t hcomm_exscan_init(const void *sendbuf, void *recvbuf, size_t count,
                              const hcomm_reduce_op_t *op, hcomm_comm_t *comm,
                              hcomm_request_t **req) {
  return nbc_scan(sendbuf, recvbuf, count, op, comm, req, 1, HC_NBC_PLAN);
}

/* ---- building blocks of other schedules (nbc.h) ------------------------- */

void hc_nbc_add_barrier(hc_nbc_sched_t *s) {
  hc_nbc_end_round(s);
  nbc_build_barrier(s);
  hc_nbc_end_round(s);
}
