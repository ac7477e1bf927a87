/*
 * Accumulates by the network device's 8-byte atomics (docs/rma.md, "NIC
 * atomics").
 *
 * A device's atomics are atomic against each other only, never against a
 * processor that applies an accumulate to the same word, and a target
 * cannot tell which words an origin will touch.  So the choice is made
 * per window at creation, by every member at once, and binds every
 * member for every target, its own window included (the transport loops
 * back to this rank).  The face declares for each member that every
 * accumulate kind on the window will be one the device can do (an
 * hcomm_rma_op_t.nic); the window takes atomics only when every member
 * declared it and every member reaches every member, itself included,
 * through one transport's atomics into a registered window.  From then
 * on every accumulate, get_accumulate, fetch_and_op and compare_and_swap
 * on it is one device atomic per 8-byte element, complete when the call
 * returns, and nothing else ever combines into its memory.  One origin's
 * atomics to one target go one at a time, so they apply in issue order.
 */
#include <stdlib.h>
#include <string.h>

#include "hcomm/coll.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "hcomm/rma.h"
#include "util/log.h"

/* The transport entry that registered this rank's window, when it does
 * atomics. */
static const hc_engine_transport_t *nic_transport(const hcomm_win_t *win) {
  if (win->rdma_slot < 0 || win->rdma_device)
    return NULL;
  const hc_engine_transport_t *t = &hc_engine.transports[win->rdma_slot];
  return t->ops->rdma_atomic != NULL && t->ops->rdma_atomic_reach != NULL
             ? t
             : NULL;
}

/* 1 when this rank reaches every member's window, its own included,
 * through the atomics of the transport that registered its own (every
 * member's key is of that kind of transport: the peer's ops match). */
static int nic_able(const hcomm_win_t *win) {
  const hc_engine_transport_t *t = nic_transport(win);
  if (t == NULL || win->mem.kind != HC_MEM_HOST)
    return 0;
  for (int r = 0; r < win->size; r++) {
    int world = hc_comm_world_of_rank(win->comm, r);
    int own = r == win->rank;
    if ((own ? win->via[r] != HC_RMA_VIA_SELF
             : win->via[r] != HC_RMA_VIA_RDMA ||
                   hc_engine.peers[world].ops != t->ops) ||
        win->device[r] || win->rdma_keys[r] == HC_RMA_NO_KEY ||
        t->ops->rdma_atomic_reach(t->ctx, world) != HC_OK)
      return 0;
  }
  return 1;
}

hc_status_t hcomm_win_nic_atomics(hcomm_win_t *win, int *granted) {
  if (win == NULL || granted == NULL)
    return HC_ERR_ARG;
  *granted = 0;
  if (!win->nic_wanted) /* some member did not declare it: no collective */
    return HC_OK;
  hc_engine_lock();
  /* The largest "cannot" of every member: 0 when all can. */
  int32_t cannot = !nic_able(win), any_cannot = 1;
  hc_engine_unlock();
  hc_status_t rc =
      hcomm_allreduce(&cannot, &any_cannot, 1, &hc_coll_max_int32, win->comm);
  if (rc != HC_OK)
    return rc;
  int every = !any_cannot;
  hc_engine_lock();
  win->nic_atomics = every;
  hc_engine_unlock();
  hc_log(HC_LOG_DEBUG, "rma", "rank %d: window accumulates by %s", win->rank,
         every ? "NIC atomics" : "active messages (not every member can)");
  *granted = every;
  return HC_OK;
}

/* REPLACE: compare-and-swap until the word read is the word swapped. */
static hc_status_t nic_replace(const hc_engine_transport_t *t, int world,
                               uint64_t at, uint64_t key, uint64_t value,
                               uint64_t *old) {
  uint64_t seen = 0;
  hc_status_t rc = t->ops->rdma_atomic(
      t->ctx, world, HC_TRANSPORT_ATOMIC_FETCH_ADD, at, key, 0, 0, &seen);
  for (;;) {
    uint64_t was = 0;
    if (rc == HC_OK)
      rc = t->ops->rdma_atomic(t->ctx, world, HC_TRANSPORT_ATOMIC_COMPARE_SWAP,
                               at, key, value, seen, &was);
    if (rc != HC_OK || was == seen) {
      *old = seen;
      return rc;
    }
    seen = was;
  }
}

/* One element: the word at `at` combined with in (NULL: add 0), its old
 * value into *old. */
static hc_status_t nic_element(const hc_engine_transport_t *t, int world,
                               const hcomm_rma_op_t *op, uint64_t at,
                               uint64_t key, const unsigned char *in,
                               uint64_t *old) {
  uint64_t value = 0, compare = 0;
  if (in != NULL)
    memcpy(&value, in, sizeof value);
  if (op->nic == HCOMM_RMA_NIC_CAS) {
    memcpy(&compare, (const unsigned char *)op->data + sizeof value,
           sizeof compare);
    return t->ops->rdma_atomic(t->ctx, world, HC_TRANSPORT_ATOMIC_COMPARE_SWAP,
                               at, key, value, compare, old);
  }
  if (op->nic == HCOMM_RMA_NIC_REPLACE)
    return nic_replace(t, world, at, key, value, old);
  return t->ops->rdma_atomic(t->ctx, world, HC_TRANSPORT_ATOMIC_FETCH_ADD, at,
                             key, value, 0, old);
}

/* 1 when every piece is whole aligned words inside the target's window. */
static int nic_in_contract(const hcomm_win_t *win, const hcomm_rma_op_t *op) {
  size_t limit = win->sizes[op->target];
  uint64_t base = win->remote_bases[op->target] + op->disp;
  for (size_t i = 0; i < op->nsegs; i++) {
    size_t off = op->disp + op->segs[i].off, len = op->segs[i].len;
    if (off < op->disp || off + len < off || off + len > limit ||
        (base + op->segs[i].off) % 8 != 0 || len % 8 != 0)
      return 0;
  }
  return 1;
}

hc_status_t hc_rma_nic_move(hcomm_win_t *win, const hcomm_rma_op_t *op) {
  const hc_engine_transport_t *t = nic_transport(win);
  int cas = op->kind == HCOMM_RMA_CAS;
  if (t == NULL || op->nic == 0 || (cas && op->nic != HCOMM_RMA_NIC_CAS) ||
      (op->kind == HCOMM_RMA_GET && op->nic != HCOMM_RMA_NIC_ADD) ||
      !nic_in_contract(win, op))
    return HC_ERR_ARG; /* the face checks the contract first */
  int world = hc_comm_world_of_rank(win->comm, op->target);
  uint64_t at = win->remote_bases[op->target] + op->disp;
  uint64_t key = win->rdma_keys[op->target];
  const unsigned char *in = op->kind == HCOMM_RMA_GET ? NULL : op->data;
  unsigned char *result = op->result;
  for (size_t i = 0; i < op->nsegs; i++)
    for (size_t k = 0; k < op->segs[i].len; k += 8) {
      uint64_t old = 0;
      hc_status_t rc =
          nic_element(t, world, op, at + op->segs[i].off + k, key, in, &old);
      if (rc != HC_OK)
        return rc == HC_ERR_NOT_SUPPORTED ? HC_ERR_TRANSPORT : rc;
      if (result != NULL) {
        memcpy(result, &old, sizeof old);
        result += sizeof old;
      }
      if (in != NULL && !cas)
        in += sizeof old;
    }
  return HC_OK;
}
