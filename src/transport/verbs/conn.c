/*
 * Queue pairs of the verbs transport, made on first use (the scheme is
 * described at the top of verbs.c and in docs/verbs.md): one UD QP per
 * rank carries CONN_REQ/CONN_REP datagrams naming each side's RC QP toward
 * the other; the RC QP is created in INIT with its receives posted and
 * goes to RTS once the peer's QPN and PSN are known.
 */
#include "config.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport/verbs/verbs_impl.h"
#include "util/log.h"

static hc_status_t vb_ud_post_recv(vb_ctx_t *v, int slot) {
  struct ibv_sge sge = {
      .addr = (uint64_t)(uintptr_t)(v->ubuf + (size_t)slot * VB_UD_SLOT),
      .length = VB_UD_SLOT,
      .lkey = v->umr->lkey};
  struct ibv_recv_wr wr = {
      .wr_id = VB_WR_UD | (uint32_t)slot, .sg_list = &sge, .num_sge = 1};
  struct ibv_recv_wr *bad;
  return ibv_post_recv(v->ud, &wr, &bad) == 0 ? HC_OK : HC_ERR_TRANSPORT;
}

/* The one UD QP through which every RC QP is negotiated: RESET to RTS at
 * once (UD needs no remote side), receives posted. */
hc_status_t hc_vb_ud_init(vb_ctx_t *v) {
  struct ibv_qp_init_attr ia = {.send_cq = v->cq,
                                .recv_cq = v->cq,
                                .cap = {.max_send_wr = VB_UD_SENDS,
                                        .max_recv_wr = VB_UD_RECVS,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1},
                                .qp_type = IBV_QPT_UD};
  v->ud = v->f.create_qp(v->pd, &ia);
  if (v->ud == NULL) {
    hc_log(HC_LOG_ERROR, "verbs", "create UD QP: %s", strerror(errno));
    return HC_ERR_TRANSPORT;
  }
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                          .pkey_index = 0,
                          .port_num = v->port,
                          .qkey = VB_QKEY};
  int rc = v->f.modify_qp(
      v->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
  a.qp_state = IBV_QPS_RTR;
  if (rc == 0)
    rc = v->f.modify_qp(v->ud, &a, IBV_QP_STATE);
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = 0;
  if (rc == 0)
    rc = v->f.modify_qp(v->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
  for (int i = 0; rc == 0 && i < VB_UD_RECVS; i++)
    rc = vb_ud_post_recv(v, i) == HC_OK ? 0 : EIO;
  if (rc != 0) {
    hc_log(HC_LOG_ERROR, "verbs", "UD QP to RTS: %s", strerror(rc));
    return HC_ERR_TRANSPORT;
  }
  return HC_OK;
}

hc_status_t hc_vb_post_recv(vb_ctx_t *v, int p, int idx) {
  vb_peer_t *peer = &v->peers[p];
  struct ibv_sge sge = {
      .addr = (uint64_t)(uintptr_t)(peer->rbuf + (size_t)idx * v->buf_size),
      .length = (uint32_t)v->buf_size,
      .lkey = peer->rmr->lkey};
  struct ibv_recv_wr wr = {.wr_id = ((uint64_t)p << 32) | (uint32_t)idx,
                           .sg_list = &sge,
                           .num_sge = 1};
  struct ibv_recv_wr *bad;
  return ibv_post_recv(peer->qp, &wr, &bad) == 0 ? HC_OK : HC_ERR_TRANSPORT;
}

/* An RC QP asking for VB_INLINE_MAX inline bytes; a device that offers
 * fewer refuses the request (EINVAL), so ask again for none.  What it
 * grants comes back in cap.max_inline_data, and that (or less), not our
 * wish, bounds every inline send (vb_post). */
static struct ibv_qp *vb_rc_create(vb_ctx_t *v, int nbuf, uint32_t *inl) {
  struct ibv_qp_init_attr ia = {.send_cq = v->cq,
                                .recv_cq = v->cq,
                                .cap = {.max_send_wr = (uint32_t)v->sq_depth,
                                        .max_recv_wr = (uint32_t)nbuf,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1,
                                        .max_inline_data = VB_INLINE_MAX},
                                .qp_type = IBV_QPT_RC};
  struct ibv_qp *qp = v->f.create_qp(v->pd, &ia);
  if (qp == NULL && errno == EINVAL) {
    ia.cap.max_inline_data = 0;
    qp = v->f.create_qp(v->pd, &ia);
  }
  *inl = qp == NULL                               ? 0
         : ia.cap.max_inline_data < VB_INLINE_MAX ? ia.cap.max_inline_data
                                                  : VB_INLINE_MAX;
  return qp;
}

/* An RC QP to INIT.  Remote write too: the keepalive is a zero-length
 * RDMA WRITE, which needs no rkey but an enabled operation; only windows
 * are registered for remote write (and atomics, where the device does
 * them). */
static int vb_qp_init(vb_ctx_t *v, struct ibv_qp *qp) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                          .pkey_index = 0,
                          .port_num = v->port,
                          .qp_access_flags =
                              IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                              (v->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0)};
  return v->f.modify_qp(qp, &a,
                        IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                            IBV_QP_ACCESS_FLAGS);
}

/* The RC QP toward p, in INIT with its receives posted. */
static hc_status_t vb_qp_create(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  int nbuf = v->recvs + VB_CREDIT_BUFS;
  peer->rbuf = malloc((size_t)nbuf * v->buf_size);
  if (peer->rbuf == NULL)
    return HC_ERR_NOMEM;
  peer->rmr = v->f.reg_mr(v->pd, peer->rbuf, (size_t)nbuf * v->buf_size,
                          IBV_ACCESS_LOCAL_WRITE);
  peer->qp = peer->rmr ? vb_rc_create(v, nbuf, &peer->max_inline) : NULL;
  if (peer->qp == NULL) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: create QP: %s", p, strerror(errno));
    return HC_ERR_TRANSPORT;
  }
  int rc = vb_qp_init(v, peer->qp);
  if (rc != 0) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: QP to INIT: %s", p, strerror(rc));
    return HC_ERR_TRANSPORT;
  }
  for (int i = 0; i < nbuf; i++)
    if (hc_vb_post_recv(v, p, i) != HC_OK)
      return HC_ERR_TRANSPORT;
  peer->psn = (uint32_t)lrand48() & 0xffffff;
  peer->credits = v->recvs;
  peer->state = VB_PEER_INIT;
  hc_log(HC_LOG_DEBUG, "verbs",
         "rank %d: queue pair %u to rank %d, %u B inline", v->world_rank,
         (unsigned)peer->qp->qp_num, p, (unsigned)peer->max_inline);
  return HC_OK;
}

/* The route to the peer's port, for its RC QP and for its UD QP. */
static void vb_fill_ah(const vb_ctx_t *v, const vb_peer_t *peer,
                       struct ibv_ah_attr *ah) {
  memset(ah, 0, sizeof *ah);
  ah->dlid = peer->lid;
  ah->port_num = v->port;
  if (v->roce || peer->lid == 0) {
    ah->is_global = 1;
    ah->grh.dgid = peer->gid;
    ah->grh.sgid_index = (uint8_t)v->gid_index;
    ah->grh.hop_limit = 64;
  }
}

static int vb_to_rtr(vb_ctx_t *v, vb_peer_t *peer, uint32_t qpn, uint32_t psn) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR,
                          .path_mtu = v->mtu,
                          .dest_qp_num = qpn,
                          .rq_psn = psn,
                          .max_dest_rd_atomic = 4,
                          .min_rnr_timer = 12};
  vb_fill_ah(v, peer, &a.ah_attr);
  return v->f.modify_qp(peer->qp, &a,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                            IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

/* Our QP in INIT goes to RTR and RTS against the peer's QPN and PSN.
 * rnr_retry 0: with credit flow control a receive is always posted, so a
 * receiver-not-ready NAK is a bug to surface, not to retry forever. */
static hc_status_t vb_qp_up(vb_ctx_t *v, int p, uint32_t qpn, uint32_t psn) {
  vb_peer_t *peer = &v->peers[p];
  int rc = vb_to_rtr(v, peer, qpn, psn);
  if (rc == 0) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS,
                            .timeout = 14,
                            .retry_cnt = 7,
                            .rnr_retry = 0,
                            .sq_psn = peer->psn,
                            .max_rd_atomic = 4};
    rc = v->f.modify_qp(peer->qp, &a,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                            IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                            IBV_QP_MAX_QP_RD_ATOMIC);
  }
  if (peer->state == VB_PEER_INIT && peer->conn_deadline_ms > 0)
    v->nconnecting--;
  peer->conn_deadline_ms = 0;
  if (rc != 0) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: QP to RTR/RTS: %s", p,
           strerror(rc));
    hc_vb_peer_fail(v, p, "queue pair set-up failed");
    return HC_ERR_TRANSPORT;
  }
  peer->rqpn = qpn;
  peer->state = VB_PEER_UP;
  return HC_OK;
}

/* A CONN_REQ or CONN_REP naming our QP toward p, over UD.  Without a free
 * slot or an address handle nothing goes: the REQ is repeated by the
 * timer, a REP by the peer's repeated REQ. */
static void vb_conn_send(vb_ctx_t *v, int p, uint32_t kind) {
  vb_peer_t *peer = &v->peers[p];
  if (peer->ah == NULL) {
    struct ibv_ah_attr ah;
    vb_fill_ah(v, peer, &ah);
    peer->ah = v->f.create_ah(v->pd, &ah);
  }
  if (peer->ah == NULL || v->nud_sfree == 0)
    return;
  int slot = v->ud_sfree[--v->nud_sfree];
  unsigned char *b = v->ubuf + (size_t)(VB_UD_RECVS + slot) * VB_UD_SLOT;
  vb_conn_msg_t m = {kind, v->world_rank, peer->qp->qp_num, peer->psn};
  memcpy(b, &m, sizeof m);
  struct ibv_sge sge = {
      .addr = (uint64_t)(uintptr_t)b, .length = sizeof m, .lkey = v->umr->lkey};
  struct ibv_send_wr wr = {.wr_id = VB_WR_UD | VB_WR_SEND | (uint32_t)slot,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = IBV_WR_SEND,
                           .send_flags = IBV_SEND_SIGNALED};
  wr.wr.ud.ah = peer->ah;
  wr.wr.ud.remote_qpn = peer->ud_qpn;
  wr.wr.ud.remote_qkey = VB_QKEY;
  struct ibv_send_wr *bad;
  if (ibv_post_send(v->ud, &wr, &bad) != 0)
    v->ud_sfree[v->nud_sfree++] = slot;
  if (kind == VB_CONN_REQ)
    peer->conn_sent_ms = hc_vb_now_ms();
}

/* First use of p by this rank (IDLE), or a REQ still unanswered (INIT):
 * make the QP and ask, ask again, or give up. */
void hc_vb_contact(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  double now = hc_vb_now_ms();
  if (peer->state == VB_PEER_IDLE) {
    if (vb_qp_create(v, p) != HC_OK) {
      hc_vb_peer_fail(v, p, "cannot create a queue pair");
      return;
    }
    v->nconnecting++;
    peer->conn_deadline_ms = now + VB_CONN_TIMEOUT_MS;
    vb_conn_send(v, p, VB_CONN_REQ);
  } else if (peer->state == VB_PEER_INIT &&
             now - peer->conn_sent_ms >= VB_CONN_RETRY_MS) {
    if (now > peer->conn_deadline_ms)
      hc_vb_peer_fail(v, p, "no answer to the queue pair request");
    else
      vb_conn_send(v, p, VB_CONN_REQ);
  }
}

/* A REQ makes our side if need be and answers; a REP completes ours.
 * Either names the sender's one QP toward us, so duplicates and crossed
 * requests change nothing once we are up. */
static void vb_on_conn(vb_ctx_t *v, const vb_conn_msg_t *m, uint32_t src_qp) {
  int p = m->rank;
  if (p < 0 || p >= v->world_size || p == v->world_rank)
    return;
  vb_peer_t *peer = &v->peers[p];
  if (peer->state == VB_PEER_NONE || peer->state == VB_PEER_FAILED ||
      src_qp != peer->ud_qpn)
    return; /* not from that rank's UD QP */
  if (peer->state == VB_PEER_IDLE && m->kind == VB_CONN_REQ &&
      vb_qp_create(v, p) != HC_OK) {
    hc_vb_peer_fail(v, p, "cannot create a queue pair");
    return;
  }
  if (peer->state == VB_PEER_INIT && vb_qp_up(v, p, m->qpn, m->psn) != HC_OK)
    return;
  if (peer->state == VB_PEER_UP && m->kind == VB_CONN_REQ &&
      m->qpn == peer->rqpn)
    vb_conn_send(v, p, VB_CONN_REP);
}

/* A completion on the UD QP: a send slot back, or a REQ/REP to act on
 * (its receive slot reposted).  Malformed datagrams are dropped. */
void hc_vb_on_ud(vb_ctx_t *v, const struct ibv_wc *wc) {
  int slot = (int)(uint32_t)wc->wr_id;
  if (wc->wr_id & VB_WR_SEND) {
    v->ud_sfree[v->nud_sfree++] = slot;
    return;
  }
  vb_conn_msg_t m;
  const unsigned char *b = v->ubuf + (size_t)slot * VB_UD_SLOT;
  if (wc->status == IBV_WC_SUCCESS && wc->byte_len >= VB_UD_GRH + sizeof m) {
    memcpy(&m, b + VB_UD_GRH, sizeof m);
    vb_on_conn(v, &m, wc->src_qp);
  }
  if (wc->status != IBV_WC_WR_FLUSH_ERR && vb_ud_post_recv(v, slot) != HC_OK)
    hc_log(HC_LOG_WARN, "verbs", "UD receive not reposted");
}

/* This rank's own QP toward itself, for atomics on its own window: they
 * must go through the device too, since its atomics are atomic only
 * against each other.  It takes no SENDs, so it posts no receives. */
static hc_status_t vb_loopback(vb_ctx_t *v) {
  vb_peer_t *peer = &v->peers[v->world_rank];
  peer->lid = v->lid;
  peer->gid = v->gid;
  peer->qp = vb_rc_create(v, 1, &peer->max_inline);
  if (peer->qp == NULL || vb_qp_init(v, peer->qp) != 0) {
    hc_log(HC_LOG_INFO, "verbs", "no loopback queue pair: %s", strerror(errno));
    peer->state = VB_PEER_FAILED;
    return HC_ERR_NOT_SUPPORTED;
  }
  peer->psn = (uint32_t)lrand48() & 0xffffff;
  peer->state = VB_PEER_INIT;
  if (vb_qp_up(v, v->world_rank, peer->qp->qp_num, peer->psn) != HC_OK)
    return HC_ERR_NOT_SUPPORTED;
  hc_log(HC_LOG_DEBUG, "verbs", "rank %d: loopback queue pair %u",
         v->world_rank, (unsigned)peer->qp->qp_num);
  return HC_OK;
}

hc_status_t hc_vb_connect_now(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  if (p == v->world_rank && peer->state == VB_PEER_NONE)
    return vb_loopback(v);
  /* hc_vb_contact resends the request and gives up at its deadline. */
  while (peer->state == VB_PEER_IDLE || peer->state == VB_PEER_INIT) {
    hc_vb_contact(v, p);
    hc_vb_serve_once(v);
  }
  return peer->state == VB_PEER_UP ? HC_OK : HC_ERR_PEER_DEAD;
}
