/*
 * The verbs transport's 8-byte atomics (rdma_atomic_reach, rdma_atomic):
 * IBV_WR_ATOMIC_FETCH_AND_ADD and IBV_WR_ATOMIC_CMP_AND_SWP on a word of
 * memory a peer registered with host_reg (with remote atomic access where
 * the device does atomics), through the RC QP toward that peer, or for
 * this rank's own memory through a loopback QP.  A device's atomics are
 * atomic against each other only, not against any processor, so a word
 * that one rank changes through the device must change through it for
 * every rank, its owner included: hence the loopback.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "transport/verbs/verbs_impl.h"
#include "util/log.h"

hc_status_t hc_vb_rdma_atomic_reach(void *ctx, int p) {
  vb_ctx_t *v = ctx;
  if (v == NULL || !v->atomics || p < 0 || p >= v->world_size ||
      (p != v->world_rank && v->peers[p].state == VB_PEER_NONE))
    return HC_ERR_NOT_SUPPORTED;
  return hc_vb_connect_now(v, p) == HC_OK ? HC_OK : HC_ERR_NOT_SUPPORTED;
}

/* The registered 8 bytes every atomic's old value lands in (atomics are
 * waited for one at a time). */
static uint64_t *vb_atomic_slot(vb_ctx_t *v) {
  if (v->aslot == NULL && posix_memalign(&v->aslot, 64, 64) != 0)
    v->aslot = NULL;
  if (v->aslot != NULL && v->amr == NULL)
    v->amr = v->f.reg_mr(v->pd, v->aslot, 64, IBV_ACCESS_LOCAL_WRITE);
  return v->amr != NULL ? v->aslot : NULL;
}

hc_status_t hc_vb_rdma_atomic(void *ctx, int p, int op, uint64_t remote_addr,
                              uint64_t key, uint64_t operand, uint64_t compare,
                              uint64_t *old) {
  vb_ctx_t *v = ctx;
  if (v == NULL || !v->atomics || p < 0 || p >= v->world_size ||
      remote_addr % 8 != 0 ||
      (op != HC_TRANSPORT_ATOMIC_FETCH_ADD &&
       op != HC_TRANSPORT_ATOMIC_COMPARE_SWAP))
    return HC_ERR_ARG;
  if (hc_vb_connect_now(v, p) != HC_OK)
    return HC_ERR_PEER_DEAD;
  uint64_t *slot = vb_atomic_slot(v);
  if (slot == NULL)
    return HC_ERR_TRANSPORT;
  int fetch_add = op == HC_TRANSPORT_ATOMIC_FETCH_ADD;
  struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)slot,
                        .length = sizeof *slot,
                        .lkey = v->amr->lkey};
  /* Completes as a VB_WR_READ work request: read_done, read_status. */
  struct ibv_send_wr wr = {.wr_id =
                               VB_WR_READ | ((uint64_t)p << 32) | VB_WR_NOBUF,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = fetch_add ? IBV_WR_ATOMIC_FETCH_AND_ADD
                                               : IBV_WR_ATOMIC_CMP_AND_SWP,
                           .send_flags = IBV_SEND_SIGNALED};
  wr.wr.atomic.remote_addr = remote_addr;
  wr.wr.atomic.compare_add = fetch_add ? operand : compare;
  wr.wr.atomic.swap = operand;
  wr.wr.atomic.rkey = (uint32_t)key;
  struct ibv_send_wr *bad;
  v->read_done = 0;
  if (ibv_post_send(v->peers[p].qp, &wr, &bad) != 0) {
    hc_vb_peer_fail(v, p, "post atomic failed");
    return HC_ERR_PEER_DEAD;
  }
  v->peers[p].sq_used++;
  hc_status_t rc = hc_vb_wait_flag(v, p, &v->read_done);
  if (rc == HC_OK && v->read_status != IBV_WC_SUCCESS)
    rc = HC_ERR_TRANSPORT;
  if (rc != HC_OK)
    return rc;
  *old = *slot;
  v->atomics_done++;
  return HC_OK;
}
