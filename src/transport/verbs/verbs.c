/*
 * The verbs transport: ranks reach each other over InfiniBand or RoCE
 * reliable-connected queue pairs through libibverbs, dlopen()ed at init
 * (HCMPI_VERBS_LIB overrides "libibverbs.so.1"), so one build runs on nodes
 * with and without RDMA.  No device, no library: init fails with "no verbs
 * devices" and the engine uses tcp.
 *
 * Device and port: HCMPI_IB_DEVICE / HCMPI_IB_PORT, else the first active
 * port of the first device.  GID: HCMPI_IB_GID_INDEX, else on Ethernet
 * (RoCE) the first RoCE v2 entry listed in sysfs, else index 0.
 *
 * Queue pairs are made on first use.  At init each rank makes one UD QP
 * and publishes a per-peer-independent address, "<lid>.<gid>.<ud qpn>"
 * (verbs.h); connect only records it.  The first send toward a peer
 * creates the RC QP (INIT, receives posted) and sends CONN_REQ (rank, RC
 * QPN, PSN) to the peer's UD QP; the peer creates its own RC QP, takes it
 * to RTS against ours and answers CONN_REP with its QPN/PSN; ours then goes
 * to RTS.  Simultaneous first contact needs no tie-break: a rank has at
 * most one RC QP per peer and every REQ/REP names it, so whichever message
 * arrives first, both sides connect that same pair; the later ones are
 * duplicates and are ignored.  UD may drop: an unanswered REQ is repeated
 * every VB_CONN_RETRY_MS, and a peer silent for VB_CONN_TIMEOUT_MS fails.
 * Data the peer sends before our QP reached RTR is retransmitted by the
 * peer's RC retry (retry_cnt), as RC does for a QP not yet ready.  One CQ
 * with a completion channel for all QPs.
 *
 * Messages: [vb_hdr][body] in registered buffers.  Every peer has
 * VB_RECVS (HCMPI_VERBS_RECVS) receive buffers for packets and control
 * messages and VB_CREDIT_BUFS more for credit messages.  A sender spends a
 * credit per packet and has none to start with beyond VB_RECVS; returned
 * credits ride in every header, or in an explicit credit message once a
 * quarter of VB_RECVS waits to go back (at most four such messages are
 * ever unconsumed, which VB_CREDIT_BUFS covers).  send returns HC_ERR_AGAIN
 * without credit or without a free send buffer; tiny packets go inline.
 *
 * Rendezvous: get() registers the destination, asks the peer's transport
 * to register the source buffer (REG_REQ), receives the rkey (REG_ACK),
 * RDMA READs, and releases the peer's registration (REG_DONE, sent before
 * the engine's FIN on the same QP, so it is processed first).  Both
 * registrations go through the registration cache (regcache.h), which
 * keeps regions only where on-demand paging makes that sound.  A
 * destination that cannot be registered is read through a registered
 * bounce buffer and copied; a refused source registration answers
 * HC_ERR_NOT_SUPPORTED: the engine then pipelines the data through send.
 * (The REG_REQ round trip stays: only the engine's RTS could carry the
 * rkey, and the engine knows no transport.)  While get() waits it keeps serving
 * the CQ; engine packets that arrive meanwhile are copied aside and delivered,
 * in order, by the next progress.
 *
 * A completion with an error (retries exceeded, remote access) marks the
 * peer failed through peer_failed_cb; get() then returns HC_ERR_PEER_DEAD.
 */
#include "config.h"

#include "transport/transport.h"
#include "transport/verbs/verbs.h"
#include "util/log.h"

#if defined(__has_include) && __has_include(<infiniband/verbs.h>)

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "transport/verbs/regcache.h"
#include "util/env.h"

#define VB_DEFAULT_RECVS 32
#define VB_CREDIT_BUFS 8
#define VB_DEFAULT_BUF ((size_t)16 << 10)
#define VB_SEND_BUFS 256
#define VB_INLINE_MAX 128
#define VB_POLL_BUDGET 256
#define VB_HELD_MAX 16
#define VB_READ_CHUNK ((size_t)1 << 30)
/* Regions kept by the registration cache (ODP only, regcache.h). */
#define VB_RCACHE_MAX 64
/* Where a get whose destination cannot be registered lands, chunk by
 * chunk, before it is copied out. */
#define VB_BOUNCE_SIZE ((size_t)1 << 20)
/* A get whose peer stays silent this long gives up (the peer is stuck). */
#define VB_GET_TIMEOUT_MS 60000
#define VB_FINI_DRAIN_MS 1000
#define VB_DEFAULT_KEEPALIVE_MS 1000
/* Connection set-up over UD: slots hold the 40-byte GRH UD receives start
 * with, then a vb_conn_msg. */
#define VB_UD_RECVS 64
#define VB_UD_SENDS 16
#define VB_UD_SLOT 128
#define VB_UD_GRH 40
#define VB_QKEY 0x11a5c0deu
#define VB_CONN_RETRY_MS 100
#define VB_CONN_TIMEOUT_MS 15000

enum vb_kind { VB_PKT = 1, VB_CREDIT, VB_REG_REQ, VB_REG_ACK, VB_REG_DONE };

typedef struct vb_hdr {
  uint8_t kind;
  uint8_t pad;
  uint16_t credits; /* receive buffers the sender reposted for us */
  uint32_t pad2;
} vb_hdr_t;

enum vb_conn_kind { VB_CONN_REQ = 1, VB_CONN_REP };

typedef struct vb_conn_msg { /* over UD: "my RC QP toward you" */
  uint32_t kind;
  int32_t rank;
  uint32_t qpn;
  uint32_t psn;
} vb_conn_msg_t;

typedef struct vb_reg_msg {
  uint64_t token;
  uint64_t addr;
  uint64_t len;
  uint32_t rkey;
  int32_t ok;
} vb_reg_msg_t;

/* Functions resolved from the library; the post/poll/notify calls are
 * verbs.h's inline wrappers over the context's ops table. */
typedef struct vb_fns {
  struct ibv_device **(*get_device_list)(int *);
  void (*free_device_list)(struct ibv_device **);
  const char *(*get_device_name)(struct ibv_device *);
  struct ibv_context *(*open_device)(struct ibv_device *);
  int (*close_device)(struct ibv_context *);
  int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *);
  int (*query_gid)(struct ibv_context *, uint8_t, int, union ibv_gid *);
  struct ibv_pd *(*alloc_pd)(struct ibv_context *);
  int (*dealloc_pd)(struct ibv_pd *);
  struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int);
  int (*dereg_mr)(struct ibv_mr *);
  struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *);
  int (*destroy_comp_channel)(struct ibv_comp_channel *);
  struct ibv_cq *(*create_cq)(struct ibv_context *, int, void *,
                              struct ibv_comp_channel *, int);
  int (*destroy_cq)(struct ibv_cq *);
  int (*get_cq_event)(struct ibv_comp_channel *, struct ibv_cq **, void **);
  void (*ack_cq_events)(struct ibv_cq *, unsigned int);
  struct ibv_qp *(*create_qp)(struct ibv_pd *, struct ibv_qp_init_attr *);
  int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int);
  int (*destroy_qp)(struct ibv_qp *);
  struct ibv_ah *(*create_ah)(struct ibv_pd *, struct ibv_ah_attr *);
  int (*destroy_ah)(struct ibv_ah *);
} vb_fns_t;

typedef struct vb_reg { /* a registration lent to a peer's get */
  struct vb_reg *next;
  hc_vb_rentry_t *ref;
  uint32_t rkey;
} vb_reg_t;

typedef struct vb_ctl { /* a control message waiting for a credit */
  struct vb_ctl *next;
  int kind;
  vb_reg_msg_t msg;
} vb_ctl_t;

/* NONE: not served by verbs; IDLE: address known, no QP yet; INIT: our
 * QP exists and our CONN_REQ awaits an answer; UP: RTS both ways. */
enum vb_peer_state {
  VB_PEER_NONE,
  VB_PEER_IDLE,
  VB_PEER_INIT,
  VB_PEER_UP,
  VB_PEER_FAILED
};

typedef struct vb_peer {
  int state;
  struct ibv_qp *qp;
  uint16_t lid;
  union ibv_gid gid;
  uint32_t ud_qpn;   /* the peer's UD QP, for CONN_REQ/CONN_REP */
  struct ibv_ah *ah; /* toward that UD QP, made on first use */
  uint32_t rqpn;     /* the peer's RC QP toward us, once known */
  uint32_t psn;
  uint32_t max_inline; /* what create_qp granted, not what we asked */
  double conn_sent_ms, conn_deadline_ms;
  int credits;   /* packets we may still send */
  int to_return; /* buffers reposted, not yet announced */
  int sq_used;   /* send-queue entries in flight */
  unsigned char *rbuf;
  struct ibv_mr *rmr;
  vb_reg_t *lent;
  vb_ctl_t *ctl_head, *ctl_tail;
} vb_peer_t;

typedef struct vb_stash { /* an engine packet that arrived inside get() */
  struct vb_stash *next;
  int peer;
  size_t len;
  unsigned char data[];
} vb_stash_t;

typedef struct vb_ctx {
  int world_rank, world_size;
  hc_transport_recv_cb recv_cb;
  hc_transport_peer_failed_cb peer_failed_cb;
  void *engine;
  void *dl;
  vb_fns_t f;
  struct ibv_context *ibctx;
  struct ibv_pd *pd;
  struct ibv_comp_channel *chan;
  struct ibv_cq *cq;
  uint8_t port;
  int gid_index;
  int roce;
  uint16_t lid;
  union ibv_gid gid;
  enum ibv_mtu mtu;
  int recvs;
  size_t buf_size;
  int sq_depth;
  vb_peer_t *peers;
  hc_vb_rcache_t *rcache;
  unsigned char *bounce; /* VB_BOUNCE_SIZE, registered on first need */
  struct ibv_mr *bmr;
  long bounced;    /* gets that went through it */
  int nconnecting; /* peers in VB_PEER_INIT */
  struct ibv_qp *ud;
  unsigned char *ubuf; /* VB_UD_RECVS receive slots, then VB_UD_SENDS */
  struct ibv_mr *umr;
  int ud_sfree[VB_UD_SENDS];
  int nud_sfree;
  unsigned char *sbuf;
  struct ibv_mr *smr;
  int *sfree;
  int nsfree;
  struct ibv_wc held[VB_HELD_MAX];
  int nheld;
  vb_stash_t *stash_head, *stash_tail;
  uint64_t next_token;
  /* The get in progress. */
  uint64_t want_token;
  int got_ack;
  vb_reg_msg_t ack;
  int read_done;
  enum ibv_wc_status read_status;
  long keepalive_ms;
  double last_ping;
} vb_ctx_t;

/* wr_id layout: bit 63 send side; bits 32..47 peer; low bits the buffer
 * (VB_WR_NOBUF for inline and RDMA work requests). */
#define VB_WR_SEND (1ull << 63)
#define VB_WR_READ (1ull << 62)
#define VB_WR_PING (1ull << 61)
#define VB_WR_UD (1ull << 60)
#define VB_WR_NOBUF 0xffffffffu

/* ---- library and device ----------------------------------------------- */

static int vb_sym(vb_ctx_t *v, void *slot, const char *name) {
  void *p = dlsym(v->dl, name);
  if (p == NULL) {
    hc_log(HC_LOG_WARN, "verbs", "%s lacks %s", "libibverbs", name);
    return 0;
  }
  memcpy(slot, &p, sizeof p);
  return 1;
}

static int vb_load(vb_ctx_t *v) {
  const char *path = hc_env_string("HCMPI_VERBS_LIB", "libibverbs.so.1");
  v->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (v->dl == NULL) {
    hc_log(HC_LOG_INFO, "verbs", "no verbs devices (cannot load %s: %s)", path,
           dlerror());
    return 0;
  }
  vb_fns_t *f = &v->f;
  return vb_sym(v, &f->get_device_list, "ibv_get_device_list") &&
         vb_sym(v, &f->free_device_list, "ibv_free_device_list") &&
         vb_sym(v, &f->get_device_name, "ibv_get_device_name") &&
         vb_sym(v, &f->open_device, "ibv_open_device") &&
         vb_sym(v, &f->close_device, "ibv_close_device") &&
         vb_sym(v, &f->query_port, "ibv_query_port") &&
         vb_sym(v, &f->query_gid, "ibv_query_gid") &&
         vb_sym(v, &f->alloc_pd, "ibv_alloc_pd") &&
         vb_sym(v, &f->dealloc_pd, "ibv_dealloc_pd") &&
         vb_sym(v, &f->reg_mr, "ibv_reg_mr") &&
         vb_sym(v, &f->dereg_mr, "ibv_dereg_mr") &&
         vb_sym(v, &f->create_comp_channel, "ibv_create_comp_channel") &&
         vb_sym(v, &f->destroy_comp_channel, "ibv_destroy_comp_channel") &&
         vb_sym(v, &f->create_cq, "ibv_create_cq") &&
         vb_sym(v, &f->destroy_cq, "ibv_destroy_cq") &&
         vb_sym(v, &f->get_cq_event, "ibv_get_cq_event") &&
         vb_sym(v, &f->ack_cq_events, "ibv_ack_cq_events") &&
         vb_sym(v, &f->create_qp, "ibv_create_qp") &&
         vb_sym(v, &f->modify_qp, "ibv_modify_qp") &&
         vb_sym(v, &f->destroy_qp, "ibv_destroy_qp") &&
         vb_sym(v, &f->create_ah, "ibv_create_ah") &&
         vb_sym(v, &f->destroy_ah, "ibv_destroy_ah");
}

/* The first active port (or HCMPI_IB_PORT) of an open device. */
static int vb_pick_port(vb_ctx_t *v, struct ibv_port_attr *pa) {
  long want = hc_env_long("HCMPI_IB_PORT", 0);
  for (int p = want > 0 ? (int)want : 1; p <= (want > 0 ? want : 4); p++) {
    memset(pa, 0, sizeof *pa);
    if (v->f.query_port(v->ibctx, (uint8_t)p, pa) != 0)
      continue;
    if (pa->state == IBV_PORT_ACTIVE) {
      v->port = (uint8_t)p;
      return 1;
    }
  }
  return 0;
}

/* RoCE: the first GID sysfs lists as RoCE v2, else index 0. */
static int vb_default_gid_index(vb_ctx_t *v, const char *dev) {
  for (int i = 0; v->roce && i < 16; i++) {
    char path[256], type[32] = "";
    snprintf(path, sizeof path,
             "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d", dev,
             (unsigned)v->port, i);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
      continue;
    int got = fgets(type, sizeof type, fp) != NULL;
    fclose(fp);
    if (got && strncmp(type, "RoCE v2", 7) == 0)
      return i;
  }
  return 0;
}

static int vb_open_device(vb_ctx_t *v, struct ibv_device *d) {
  struct ibv_port_attr pa;
  v->ibctx = v->f.open_device(d);
  if (v->ibctx == NULL)
    return 0;
  if (!vb_pick_port(v, &pa)) {
    v->f.close_device(v->ibctx);
    v->ibctx = NULL;
    return 0;
  }
  const char *name = v->f.get_device_name(d);
  v->lid = pa.lid;
  v->mtu = pa.active_mtu;
  v->roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
  v->gid_index =
      (int)hc_env_long("HCMPI_IB_GID_INDEX", vb_default_gid_index(v, name));
  if (v->f.query_gid(v->ibctx, v->port, v->gid_index, &v->gid) != 0)
    memset(&v->gid, 0, sizeof v->gid);
  hc_log(HC_LOG_DEBUG, "verbs", "device %s port %u lid %u gid index %d%s", name,
         (unsigned)v->port, (unsigned)v->lid, v->gid_index,
         v->roce ? " (RoCE)" : "");
  return 1;
}

static int vb_find_device(vb_ctx_t *v) {
  int n = 0;
  struct ibv_device **list = v->f.get_device_list(&n);
  if (list == NULL || n == 0) {
    /* Debian's library without a kernel driver: NULL and ENOSYS. */
    hc_log(HC_LOG_INFO, "verbs", "no verbs devices (%s)",
           list == NULL ? strerror(errno) : "empty list");
    if (list != NULL)
      v->f.free_device_list(list);
    return 0;
  }
  const char *want = hc_env_string("HCMPI_IB_DEVICE", NULL);
  int found = 0;
  for (int i = 0; i < n && !found; i++) {
    if (want != NULL && strcmp(v->f.get_device_name(list[i]), want) != 0)
      continue;
    found = vb_open_device(v, list[i]);
  }
  v->f.free_device_list(list);
  if (!found)
    hc_log(HC_LOG_INFO, "verbs", "no verbs devices (%s%s has no active port)",
           want ? "HCMPI_IB_DEVICE=" : "no device", want ? want : "");
  return found;
}

/* ---- init ------------------------------------------------------------- */

static hc_status_t vb_alloc_bufs(vb_ctx_t *v) {
  int cqe = v->world_size * (v->sq_depth + v->recvs + VB_CREDIT_BUFS) +
            VB_UD_RECVS + VB_UD_SENDS + 16;
  v->chan = v->f.create_comp_channel(v->ibctx);
  v->cq = v->chan ? v->f.create_cq(v->ibctx, cqe, v, v->chan, 0) : NULL;
  v->sbuf = malloc((size_t)VB_SEND_BUFS * v->buf_size);
  v->sfree = malloc(VB_SEND_BUFS * sizeof(int));
  v->ubuf = calloc(VB_UD_RECVS + VB_UD_SENDS, VB_UD_SLOT);
  if (v->cq == NULL || v->sbuf == NULL || v->sfree == NULL || v->ubuf == NULL)
    return HC_ERR_NOMEM;
  int fl = fcntl(v->chan->fd, F_GETFL);
  fcntl(v->chan->fd, F_SETFL, fl | O_NONBLOCK);
  v->smr = v->f.reg_mr(v->pd, v->sbuf, (size_t)VB_SEND_BUFS * v->buf_size,
                       IBV_ACCESS_LOCAL_WRITE);
  v->umr = v->f.reg_mr(v->pd, v->ubuf, (VB_UD_RECVS + VB_UD_SENDS) * VB_UD_SLOT,
                       IBV_ACCESS_LOCAL_WRITE);
  if (v->smr == NULL || v->umr == NULL)
    return HC_ERR_TRANSPORT;
  for (int i = 0; i < VB_SEND_BUFS; i++)
    v->sfree[v->nsfree++] = i;
  for (int i = 0; i < VB_UD_SENDS; i++)
    v->ud_sfree[v->nud_sfree++] = i;
  return HC_OK;
}

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
static hc_status_t vb_ud_init(vb_ctx_t *v) {
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

/* 0 when the device says its RC QPs cannot READ from or into ODP
 * regions, 1 when it says they can, -1 when it does not say (no extended
 * context: the query is the context's op, not a library symbol). */
static int vb_odp_rc_read(vb_ctx_t *v) {
  struct verbs_context *vctx = verbs_get_ctx_op(v->ibctx, query_device_ex);
  struct ibv_device_attr_ex attr;
  memset(&attr, 0, sizeof attr);
  if (vctx == NULL ||
      vctx->query_device_ex(v->ibctx, NULL, &attr, sizeof attr) != 0)
    return -1;
  return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
         (attr.odp_caps.per_transport_caps.rc_odp_caps & IBV_ODP_SUPPORT_READ);
}

/* With on-demand paging regions are cached (sound: regcache.h); without
 * it the same cache keeps nothing, so each rendezvous registers afresh.
 * ODP needs the device's word that RC READs work on such regions, where
 * it gives one, and a registration that asks for it and is not refused. */
static hc_status_t vb_rcache_init(vb_ctx_t *v) {
  struct ibv_mr *probe =
      vb_odp_rc_read(v) == 0
          ? NULL
          : v->f.reg_mr(v->pd, v->ubuf, VB_UD_SLOT,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
  int odp = probe != NULL;
  if (probe != NULL)
    v->f.dereg_mr(probe);
  v->rcache =
      hc_vb_rcache_new(v->pd, v->f.reg_mr, v->f.dereg_mr,
                       odp ? IBV_ACCESS_ON_DEMAND : 0, odp ? VB_RCACHE_MAX : 0);
  hc_log(HC_LOG_DEBUG, "verbs", "rank %d: registration cache %s", v->world_rank,
         odp ? "on (on-demand paging)" : "off (no on-demand paging)");
  return v->rcache != NULL ? HC_OK : HC_ERR_NOMEM;
}

static hc_status_t vb_init(const hc_transport_init_args_t *args, void **ctx) {
  vb_ctx_t *v = calloc(1, sizeof *v);
  *ctx = v;
  if (v == NULL)
    return HC_ERR_NOMEM;
  v->world_rank = args->world_rank;
  v->world_size = args->world_size;
  v->recv_cb = args->recv_cb;
  v->peer_failed_cb = args->peer_failed_cb;
  v->engine = args->engine;
  v->recvs = (int)hc_env_long("HCMPI_VERBS_RECVS", VB_DEFAULT_RECVS);
  if (v->recvs < 4)
    v->recvs = 4;
  v->buf_size = hc_env_size("HCMPI_VERBS_BUF", VB_DEFAULT_BUF);
  if (v->buf_size < 1024)
    v->buf_size = 1024;
  v->sq_depth = v->recvs + VB_CREDIT_BUFS + 8;
  v->keepalive_ms =
      hc_env_long("HCMPI_VERBS_KEEPALIVE_MS", VB_DEFAULT_KEEPALIVE_MS);
  v->peers = calloc((size_t)v->world_size, sizeof *v->peers);
  if (v->peers == NULL)
    return HC_ERR_NOMEM;
  if (!vb_load(v) || !vb_find_device(v))
    return HC_ERR_NOT_SUPPORTED;
  v->pd = v->f.alloc_pd(v->ibctx);
  if (v->pd == NULL)
    return HC_ERR_TRANSPORT;
  srand48((long)getpid() ^ (long)time(NULL));
  hc_status_t rc = vb_alloc_bufs(v);
  if (rc == HC_OK)
    rc = vb_ud_init(v);
  return rc == HC_OK ? vb_rcache_init(v) : rc;
}

/* "<lid>.<gid, 32 hex digits>.<UD QPN>": the same for every peer. */
static hc_status_t vb_address(void *ctx, char *buf, size_t len) {
  vb_ctx_t *v = ctx;
  if (v->ud == NULL)
    return HC_ERR_STATE;
  int w = snprintf(buf, len, "%u.", (unsigned)v->lid);
  for (int i = 0; i < 16 && w > 0 && (size_t)w < len; i++)
    w += snprintf(buf + w, len - (size_t)w, "%02x", v->gid.raw[i]);
  if (w > 0 && (size_t)w < len)
    w += snprintf(buf + w, len - (size_t)w, ".%u", (unsigned)v->ud->qp_num);
  return (w < 0 || (size_t)w >= len) ? HC_ERR_ARG : HC_OK;
}

static int vb_parse_gid(const char *hex, union ibv_gid *gid) {
  if (strlen(hex) < 33 || hex[32] != '.')
    return 0;
  for (int i = 0; i < 16; i++) {
    unsigned x;
    if (sscanf(hex + 2 * i, "%2x", &x) != 1)
      return 0;
    gid->raw[i] = (uint8_t)x;
  }
  return 1;
}

static hc_status_t vb_post_recv(vb_ctx_t *v, int p, int idx) {
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
  /* Remote write too: the keepalive is a zero-length RDMA WRITE, which
   * needs no rkey but an enabled operation.  No region is ever registered
   * for remote write, so nothing can be written. */
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                          .pkey_index = 0,
                          .port_num = v->port,
                          .qp_access_flags =
                              IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE};
  int rc = v->f.modify_qp(peer->qp, &a,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                              IBV_QP_ACCESS_FLAGS);
  if (rc != 0) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: QP to INIT: %s", p, strerror(rc));
    return HC_ERR_TRANSPORT;
  }
  for (int i = 0; i < nbuf; i++)
    if (vb_post_recv(v, p, i) != HC_OK)
      return HC_ERR_TRANSPORT;
  peer->psn = (uint32_t)lrand48() & 0xffffff;
  peer->credits = v->recvs;
  peer->state = VB_PEER_INIT;
  hc_log(HC_LOG_DEBUG, "verbs",
         "rank %d: queue pair %u to rank %d, %u B inline", v->world_rank,
         (unsigned)peer->qp->qp_num, p, (unsigned)peer->max_inline);
  return HC_OK;
}

/* Records the peer's address; its QP is made on first use. */
static hc_status_t vb_connect(void *ctx, int p, const char *addr) {
  vb_ctx_t *v = ctx;
  if (p < 0 || p >= v->world_size || p == v->world_rank)
    return HC_ERR_RANK;
  vb_peer_t *peer = &v->peers[p];
  char *dot, *end;
  unsigned long lid = strtoul(addr, &dot, 10);
  if (*dot != '.' || lid > 0xffff || !vb_parse_gid(dot + 1, &peer->gid)) {
    hc_log(HC_LOG_ERROR, "verbs", "bad address of rank %d: %s", p, addr);
    return HC_ERR_ARG;
  }
  unsigned long qpn = strtoul(dot + 34, &end, 10);
  if (*end != '\0' || qpn == 0 || qpn > 0xffffff) {
    hc_log(HC_LOG_ERROR, "verbs", "bad address of rank %d: %s", p, addr);
    return HC_ERR_ARG;
  }
  peer->lid = (uint16_t)lid;
  peer->ud_qpn = (uint32_t)qpn;
  peer->state = VB_PEER_IDLE;
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

static void vb_peer_fail(vb_ctx_t *v, int p, const char *why);

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
    vb_peer_fail(v, p, "queue pair set-up failed");
    return HC_ERR_TRANSPORT;
  }
  peer->rqpn = qpn;
  peer->state = VB_PEER_UP;
  return HC_OK;
}

static double vb_now_ms(void);

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
    peer->conn_sent_ms = vb_now_ms();
}

/* First use of p by this rank (IDLE), or a REQ still unanswered (INIT):
 * make the QP and ask, ask again, or give up. */
static void vb_contact(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  double now = vb_now_ms();
  if (peer->state == VB_PEER_IDLE) {
    if (vb_qp_create(v, p) != HC_OK) {
      vb_peer_fail(v, p, "cannot create a queue pair");
      return;
    }
    v->nconnecting++;
    peer->conn_deadline_ms = now + VB_CONN_TIMEOUT_MS;
    vb_conn_send(v, p, VB_CONN_REQ);
  } else if (peer->state == VB_PEER_INIT &&
             now - peer->conn_sent_ms >= VB_CONN_RETRY_MS) {
    if (now > peer->conn_deadline_ms)
      vb_peer_fail(v, p, "no answer to the queue pair request");
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
    vb_peer_fail(v, p, "cannot create a queue pair");
    return;
  }
  if (peer->state == VB_PEER_INIT && vb_qp_up(v, p, m->qpn, m->psn) != HC_OK)
    return;
  if (peer->state == VB_PEER_UP && m->kind == VB_CONN_REQ &&
      m->qpn == peer->rqpn)
    vb_conn_send(v, p, VB_CONN_REP);
}

/* Served by verbs: the peer published a device address. */
int hc_verbs_serves(void *ctx, int p) {
  vb_ctx_t *v = ctx;
  return v != NULL && p >= 0 && p < v->world_size &&
         v->peers[p].state != VB_PEER_NONE;
}

static hc_status_t vb_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t vb_max_packet(void *ctx) {
  vb_ctx_t *v = ctx;
  return v->buf_size - sizeof(vb_hdr_t);
}

/* ---- failure ---------------------------------------------------------- */

static void vb_peer_fail(vb_ctx_t *v, int p, const char *why) {
  vb_peer_t *peer = &v->peers[p];
  if (peer->state == VB_PEER_FAILED)
    return;
  hc_log(HC_LOG_WARN, "verbs", "rank %d: %s", p, why);
  if (peer->state == VB_PEER_INIT && peer->conn_deadline_ms > 0)
    v->nconnecting--;
  peer->state = VB_PEER_FAILED;
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
  if (peer->qp != NULL)
    v->f.modify_qp(peer->qp, &a, IBV_QP_STATE);
  while (peer->ctl_head != NULL) {
    vb_ctl_t *c = peer->ctl_head;
    peer->ctl_head = c->next;
    free(c);
  }
  peer->ctl_tail = NULL;
  if (v->peer_failed_cb != NULL)
    v->peer_failed_cb(v->engine, p);
}

/* ---- sending ---------------------------------------------------------- */

static uint16_t vb_take_credits(vb_peer_t *peer) {
  int n = peer->to_return > 0xffff ? 0xffff : peer->to_return;
  peer->to_return -= n;
  return (uint16_t)n;
}

/* Posts one message; the caller checked credit and send-queue room. */
static hc_status_t vb_post(vb_ctx_t *v, int p, int kind,
                           const struct iovec *iov, int iovcnt) {
  vb_peer_t *peer = &v->peers[p];
  size_t total = sizeof(vb_hdr_t);
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (v->nsfree == 0)
    return HC_ERR_AGAIN;
  int idx = v->sfree[--v->nsfree];
  unsigned char *b = v->sbuf + (size_t)idx * v->buf_size;
  vb_hdr_t h = {.kind = (uint8_t)kind, .credits = vb_take_credits(peer)};
  memcpy(b, &h, sizeof h);
  size_t at = sizeof h;
  for (int i = 0; i < iovcnt; i++) {
    memcpy(b + at, iov[i].iov_base, iov[i].iov_len);
    at += iov[i].iov_len;
  }
  struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)b,
                        .length = (uint32_t)total,
                        .lkey = v->smr->lkey};
  int inl = total <= peer->max_inline;
  struct ibv_send_wr wr = {
      .wr_id = VB_WR_SEND | ((uint64_t)p << 32) | (uint32_t)idx,
      .sg_list = &sge,
      .num_sge = 1,
      .opcode = IBV_WR_SEND,
      .send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0)};
  struct ibv_send_wr *bad;
  int rc = ibv_post_send(peer->qp, &wr, &bad);
  if (rc != 0) {
    v->sfree[v->nsfree++] = idx;
    peer->to_return += h.credits;
    vb_peer_fail(v, p, "post_send failed");
    return HC_ERR_PEER_DEAD;
  }
  peer->sq_used++;
  if (kind != VB_CREDIT)
    peer->credits--;
  return HC_OK;
}

static int vb_can_post(const vb_ctx_t *v, const vb_peer_t *peer, int kind) {
  return peer->sq_used < v->sq_depth - 1 && v->nsfree > 0 &&
         (kind == VB_CREDIT || peer->credits > 0);
}

/* Sends queued control messages; 1 when none is left. */
static int vb_flush_ctl(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  while (peer->ctl_head != NULL && peer->state == VB_PEER_UP &&
         vb_can_post(v, peer, peer->ctl_head->kind)) {
    vb_ctl_t *c = peer->ctl_head;
    struct iovec iov = {&c->msg, sizeof c->msg};
    if (vb_post(v, p, c->kind, &iov, 1) != HC_OK)
      return 0;
    peer->ctl_head = c->next;
    if (peer->ctl_head == NULL)
      peer->ctl_tail = NULL;
    free(c);
  }
  return peer->ctl_head == NULL;
}

static hc_status_t vb_send_ctl(vb_ctx_t *v, int p, int kind,
                               const vb_reg_msg_t *msg) {
  vb_ctl_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return HC_ERR_NOMEM;
  c->kind = kind;
  c->msg = *msg;
  vb_peer_t *peer = &v->peers[p];
  if (peer->ctl_tail != NULL)
    peer->ctl_tail->next = c;
  else
    peer->ctl_head = c;
  peer->ctl_tail = c;
  vb_flush_ctl(v, p);
  return HC_OK;
}

static void vb_maybe_return_credits(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  if (peer->to_return < v->recvs / 4 || peer->state != VB_PEER_UP ||
      !vb_can_post(v, peer, VB_CREDIT))
    return;
  vb_post(v, p, VB_CREDIT, NULL, 0);
}

static hc_status_t vb_send(void *ctx, int p, const struct iovec *iov,
                           int iovcnt) {
  vb_ctx_t *v = ctx;
  if (p < 0 || p >= v->world_size || p == v->world_rank)
    return HC_ERR_RANK;
  vb_peer_t *peer = &v->peers[p];
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++)
    total += iov[i].iov_len;
  if (total > vb_max_packet(v))
    return HC_ERR_ARG;
  if (peer->state == VB_PEER_IDLE || peer->state == VB_PEER_INIT)
    vb_contact(v, p); /* the engine retries after progress */
  if (peer->state == VB_PEER_FAILED)
    return HC_ERR_PEER_DEAD;
  if (peer->state != VB_PEER_UP)
    return peer->state == VB_PEER_NONE ? HC_ERR_STATE : HC_ERR_AGAIN;
  /* Control messages first: a REG_DONE must precede the engine's FIN. */
  if (!vb_flush_ctl(v, p) || !vb_can_post(v, peer, VB_PKT))
    return HC_ERR_AGAIN;
  return vb_post(v, p, VB_PKT, iov, iovcnt);
}

/* ---- completions ------------------------------------------------------ */

static void vb_on_reg_req(vb_ctx_t *v, int p, const vb_reg_msg_t *req) {
  vb_reg_msg_t ack = {.token = req->token, .ok = 0};
  vb_reg_t *r = calloc(1, sizeof *r);
  struct ibv_mr *mr =
      r == NULL ? NULL
                : hc_vb_rcache_get(v->rcache, (void *)(uintptr_t)req->addr,
                                   req->len, IBV_ACCESS_REMOTE_READ, &r->ref);
  if (mr != NULL) {
    r->rkey = mr->rkey;
    r->next = v->peers[p].lent;
    v->peers[p].lent = r;
    ack.rkey = mr->rkey;
    ack.ok = 1;
  } else {
    hc_log(HC_LOG_DEBUG, "verbs", "register %zu B for rank %d failed",
           (size_t)req->len, p);
    free(r);
  }
  vb_send_ctl(v, p, VB_REG_ACK, &ack);
}

static void vb_on_reg_done(vb_ctx_t *v, int p, uint32_t rkey) {
  for (vb_reg_t **link = &v->peers[p].lent; *link != NULL;
       link = &(*link)->next) {
    if ((*link)->rkey != rkey)
      continue;
    vb_reg_t *r = *link;
    *link = r->next;
    hc_vb_rcache_put(v->rcache, r->ref);
    free(r);
    return;
  }
}

static void vb_stash_push(vb_ctx_t *v, int p, const void *data, size_t len) {
  vb_stash_t *s = malloc(sizeof *s + len);
  if (s == NULL) {
    vb_peer_fail(v, p, "no memory to hold a packet");
    return;
  }
  s->next = NULL;
  s->peer = p;
  s->len = len;
  memcpy(s->data, data, len);
  if (v->stash_tail != NULL)
    v->stash_tail->next = s;
  else
    v->stash_head = s;
  v->stash_tail = s;
}

/* A received message.  deliver=0 (inside get) copies engine packets aside.
 * Returns 1 when an engine packet was delivered or stashed. */
static int vb_on_recv(vb_ctx_t *v, const struct ibv_wc *wc, int deliver) {
  int p = (int)(wc->wr_id >> 32);
  int idx = (int)(uint32_t)wc->wr_id;
  vb_peer_t *peer = &v->peers[p];
  const unsigned char *b = peer->rbuf + (size_t)idx * v->buf_size;
  vb_hdr_t h;
  if (wc->byte_len < sizeof h) {
    vb_peer_fail(v, p, "short message");
    return 0;
  }
  memcpy(&h, b, sizeof h);
  peer->credits += h.credits;
  const unsigned char *body = b + sizeof h;
  size_t len = wc->byte_len - sizeof h;
  vb_reg_msg_t msg = {0};
  if (h.kind != VB_PKT && h.kind != VB_CREDIT)
    memcpy(&msg, body, len < sizeof msg ? len : sizeof msg);
  int pkt = h.kind == VB_PKT;
  if (pkt && deliver && v->stash_head == NULL)
    v->recv_cb(v->engine, p, body, len);
  else if (pkt)
    vb_stash_push(v, p, body, len);
  else if (h.kind == VB_REG_REQ)
    vb_on_reg_req(v, p, &msg);
  else if (h.kind == VB_REG_ACK && msg.token == v->want_token) {
    v->ack = msg;
    v->got_ack = 1;
  } else if (h.kind == VB_REG_DONE)
    vb_on_reg_done(v, p, msg.rkey);
  if (peer->state == VB_PEER_UP) {
    if (vb_post_recv(v, p, idx) != HC_OK) {
      vb_peer_fail(v, p, "post_recv failed");
      return pkt;
    }
    if (h.kind != VB_CREDIT)
      peer->to_return++;
    vb_flush_ctl(v, p);
    vb_maybe_return_credits(v, p);
  }
  return pkt;
}

/* A completion on the UD QP: a send slot back, or a REQ/REP to act on
 * (its receive slot reposted).  Malformed datagrams are dropped. */
static void vb_on_ud(vb_ctx_t *v, const struct ibv_wc *wc) {
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

static int vb_on_wc(vb_ctx_t *v, const struct ibv_wc *wc, int deliver) {
  if (wc->wr_id & VB_WR_UD) {
    vb_on_ud(v, wc);
    return 0;
  }
  int send = (wc->wr_id & (VB_WR_SEND | VB_WR_PING)) != 0;
  int read = (wc->wr_id & VB_WR_READ) != 0;
  int p = (int)((wc->wr_id >> 32) & 0xffff);
  if (p >= v->world_size)
    return 0;
  if (send || read) {
    uint32_t idx = (uint32_t)wc->wr_id;
    if (idx != VB_WR_NOBUF)
      v->sfree[v->nsfree++] = (int)idx;
    v->peers[p].sq_used--;
  }
  if (read) {
    v->read_done = 1;
    v->read_status = wc->status;
  }
  if (wc->status != IBV_WC_SUCCESS) {
    if (wc->status != IBV_WC_WR_FLUSH_ERR || v->peers[p].state == VB_PEER_UP) {
      char why[96];
      snprintf(why, sizeof why, "completion error: %s (%d)",
               wc->status == IBV_WC_REM_ACCESS_ERR ? "remote access error"
               : wc->status == IBV_WC_RETRY_EXC_ERR
                   ? "transport retry counter exceeded"
                   : "work request failed",
               (int)wc->status);
      vb_peer_fail(v, p, why);
    }
    return 0;
  }
  if (send || read) {
    vb_flush_ctl(v, p);
    return 0;
  }
  return vb_on_recv(v, wc, deliver);
}

/* One completion: a held one first (taken while arming), else the CQ's. */
static int vb_poll_one(vb_ctx_t *v, struct ibv_wc *wc) {
  if (v->nheld > 0) {
    *wc = v->held[0];
    memmove(&v->held[0], &v->held[1], (size_t)--v->nheld * sizeof *wc);
    return 1;
  }
  return ibv_poll_cq(v->cq, 1, wc) > 0;
}

static int vb_stash_deliver(vb_ctx_t *v) {
  int n = 0;
  while (v->stash_head != NULL) {
    vb_stash_t *s = v->stash_head;
    v->stash_head = s->next;
    if (v->stash_head == NULL)
      v->stash_tail = NULL;
    /* recv_cb may run get(), which may stash newer packets behind. */
    v->recv_cb(v->engine, s->peer, s->data, s->len);
    free(s);
    n++;
  }
  return n;
}

static int vb_progress(void *ctx) {
  vb_ctx_t *v = ctx;
  if (v == NULL || v->cq == NULL)
    return 0;
  int moved = vb_stash_deliver(v);
  for (int p = 0; v->nconnecting > 0 && p < v->world_size; p++)
    if (v->peers[p].state == VB_PEER_INIT)
      vb_contact(v, p);
  struct ibv_wc wc;
  /* One at a time: a delivery may run get(), which polls the CQ itself. */
  for (int i = 0; i < VB_POLL_BUDGET && vb_poll_one(v, &wc); i++) {
    moved += vb_on_wc(v, &wc, 1);
    moved += vb_stash_deliver(v);
  }
  return moved;
}

/* ---- wait ------------------------------------------------------------- */

/* An idle rank learns of a dead peer only by sending to it: every
 * keepalive_ms of waiting, a zero-length RDMA WRITE to each peer (no rkey
 * checked, no receive buffer used) ends in retries exceeded if the peer's
 * QP is gone. */
static void vb_keepalive(vb_ctx_t *v) {
  double now = vb_now_ms();
  if (v->keepalive_ms <= 0 || now - v->last_ping < (double)v->keepalive_ms)
    return;
  v->last_ping = now;
  for (int p = 0; p < v->world_size; p++) {
    vb_peer_t *peer = &v->peers[p];
    if (peer->state != VB_PEER_UP || peer->sq_used >= v->sq_depth - 1)
      continue;
    struct ibv_send_wr wr = {.wr_id =
                                 VB_WR_PING | ((uint64_t)p << 32) | VB_WR_NOBUF,
                             .num_sge = 0,
                             .opcode = IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_SIGNALED};
    struct ibv_send_wr *bad;
    if (ibv_post_send(peer->qp, &wr, &bad) == 0)
      peer->sq_used++;
  }
}

static void vb_wait(void *ctx, int timeout_ms) {
  vb_ctx_t *v = ctx;
  if (v == NULL || v->cq == NULL || timeout_ms == 0 || v->stash_head != NULL ||
      v->nheld > 0)
    return;
  vb_keepalive(v);
  if (v->nconnecting > 0 && (timeout_ms < 0 || timeout_ms > VB_CONN_RETRY_MS))
    timeout_ms = VB_CONN_RETRY_MS; /* an unanswered REQ is repeated */
  ibv_req_notify_cq(v->cq, 0);
  /* What completed before the arm raises no event: take it now. */
  v->nheld = ibv_poll_cq(v->cq, VB_HELD_MAX, v->held);
  if (v->nheld < 0)
    v->nheld = 0;
  if (v->nheld > 0)
    return;
  struct pollfd pfd = {.fd = v->chan->fd, .events = POLLIN};
  if (poll(&pfd, 1, timeout_ms) <= 0)
    return;
  struct ibv_cq *cq;
  void *cq_ctx;
  unsigned events = 0;
  while (v->f.get_cq_event(v->chan, &cq, &cq_ctx) == 0)
    events++;
  if (events > 0)
    v->f.ack_cq_events(v->cq, events);
}

/* ---- get (RDMA READ) -------------------------------------------------- */

static double vb_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Serves the CQ without delivering until *flag is set, the peer failed or
 * the deadline passed. */
static hc_status_t vb_get_wait(vb_ctx_t *v, int p, const int *flag) {
  double deadline = vb_now_ms() + VB_GET_TIMEOUT_MS;
  struct ibv_wc wc;
  while (!*flag) {
    if (v->peers[p].state != VB_PEER_UP)
      return HC_ERR_PEER_DEAD;
    if (vb_poll_one(v, &wc)) {
      vb_on_wc(v, &wc, 0);
      continue;
    }
    vb_flush_ctl(v, p);
    if (vb_now_ms() > deadline)
      return HC_ERR_TRANSPORT;
    vb_wait(v, 1);
  }
  return HC_OK;
}

/* One RDMA READ of n bytes at remote into the registered local (lkey). */
static hc_status_t vb_read_one(vb_ctx_t *v, int p, uint32_t lkey, void *local,
                               uint64_t remote, size_t n, uint32_t rkey) {
  struct ibv_sge sge = {
      .addr = (uint64_t)(uintptr_t)local, .length = (uint32_t)n, .lkey = lkey};
  struct ibv_send_wr wr = {.wr_id =
                               VB_WR_READ | ((uint64_t)p << 32) | VB_WR_NOBUF,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = IBV_WR_RDMA_READ,
                           .send_flags = IBV_SEND_SIGNALED};
  wr.wr.rdma.remote_addr = remote;
  wr.wr.rdma.rkey = rkey;
  struct ibv_send_wr *bad;
  v->read_done = 0;
  if (ibv_post_send(v->peers[p].qp, &wr, &bad) != 0) {
    vb_peer_fail(v, p, "post RDMA READ failed");
    return HC_ERR_PEER_DEAD;
  }
  v->peers[p].sq_used++;
  hc_status_t rc = vb_get_wait(v, p, &v->read_done);
  if (rc == HC_OK && v->read_status != IBV_WC_SUCCESS)
    rc = HC_ERR_PEER_DEAD;
  return rc;
}

/* Reads len bytes into local: straight into it through mr, or (mr NULL)
 * through the bounce buffer, a chunk at a time. */
static hc_status_t vb_read(vb_ctx_t *v, int p, struct ibv_mr *mr,
                           unsigned char *local, uint64_t remote, size_t len,
                           uint32_t rkey) {
  size_t chunk = mr != NULL ? VB_READ_CHUNK : VB_BOUNCE_SIZE;
  hc_status_t rc = HC_OK;
  for (size_t off = 0; off < len && rc == HC_OK; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    if (mr != NULL)
      rc = vb_read_one(v, p, mr->lkey, local + off, remote + off, n, rkey);
    else if ((rc = vb_read_one(v, p, v->bmr->lkey, v->bounce, remote + off, n,
                               rkey)) == HC_OK)
      memcpy(local + off, v->bounce, n);
  }
  return rc;
}

/* The destination's region, or NULL with the bounce buffer ready when the
 * destination cannot be registered (the locked-memory limit, say). */
static struct ibv_mr *vb_get_dest(vb_ctx_t *v, void *local, size_t len,
                                  hc_vb_rentry_t **ref, hc_status_t *rc) {
  *rc = HC_OK;
  struct ibv_mr *mr =
      hc_vb_rcache_get(v->rcache, local, len, IBV_ACCESS_LOCAL_WRITE, ref);
  if (mr != NULL)
    return mr;
  if (v->bounce == NULL)
    v->bounce = malloc(VB_BOUNCE_SIZE);
  if (v->bounce != NULL && v->bmr == NULL)
    v->bmr =
        v->f.reg_mr(v->pd, v->bounce, VB_BOUNCE_SIZE, IBV_ACCESS_LOCAL_WRITE);
  if (v->bmr == NULL)
    *rc = HC_ERR_NOT_SUPPORTED; /* the engine pipelines through send */
  else
    v->bounced++;
  return NULL;
}

static hc_status_t vb_get(void *ctx, int p, void *local, uint64_t remote_addr,
                          size_t len) {
  vb_ctx_t *v = ctx;
  if (p < 0 || p >= v->world_size || p == v->world_rank ||
      !hc_env_bool("HCMPI_VERBS_RDMA", 1))
    return HC_ERR_NOT_SUPPORTED;
  if (v->peers[p].state == VB_PEER_FAILED)
    return HC_ERR_PEER_DEAD;
  if (v->peers[p].state != VB_PEER_UP || len == 0)
    return HC_ERR_NOT_SUPPORTED;
  hc_vb_rentry_t *ref = NULL;
  hc_status_t rc;
  struct ibv_mr *mr = vb_get_dest(v, local, len, &ref, &rc);
  if (rc != HC_OK)
    return rc;
  vb_reg_msg_t req = {
      .token = ++v->next_token, .addr = remote_addr, .len = len};
  v->want_token = req.token;
  v->got_ack = 0;
  rc = vb_send_ctl(v, p, VB_REG_REQ, &req);
  if (rc == HC_OK)
    rc = vb_get_wait(v, p, &v->got_ack);
  v->want_token = 0;
  if (rc == HC_OK && !v->ack.ok)
    rc = HC_ERR_NOT_SUPPORTED;
  if (rc == HC_OK) {
    rc = vb_read(v, p, mr, local, remote_addr, len, v->ack.rkey);
    vb_reg_msg_t done = {.token = req.token, .rkey = v->ack.rkey};
    if (v->peers[p].state == VB_PEER_UP)
      vb_send_ctl(v, p, VB_REG_DONE, &done);
  }
  hc_vb_rcache_put(v->rcache, ref);
  return rc;
}

/* ---- fini ------------------------------------------------------------- */

/* Sends in flight get a bounded chance to complete before the QPs go. */
static void vb_fini_drain(vb_ctx_t *v) {
  double deadline = vb_now_ms() + VB_FINI_DRAIN_MS;
  for (int p = 0; p < v->world_size; p++) {
    while ((v->peers[p].sq_used > 0 || v->peers[p].ctl_head != NULL) &&
           v->peers[p].state == VB_PEER_UP && vb_now_ms() < deadline) {
      struct ibv_wc wc;
      if (vb_poll_one(v, &wc))
        vb_on_wc(v, &wc, 0);
      else
        vb_flush_ctl(v, p);
    }
  }
}

static void vb_fini_peer(vb_ctx_t *v, vb_peer_t *peer) {
  while (peer->lent != NULL) {
    vb_reg_t *r = peer->lent;
    peer->lent = r->next;
    hc_vb_rcache_put(v->rcache, r->ref);
    free(r);
  }
  while (peer->ctl_head != NULL) {
    vb_ctl_t *c = peer->ctl_head;
    peer->ctl_head = c->next;
    free(c);
  }
  if (peer->qp != NULL)
    v->f.destroy_qp(peer->qp);
  if (peer->ah != NULL)
    v->f.destroy_ah(peer->ah);
  if (peer->rmr != NULL)
    v->f.dereg_mr(peer->rmr);
  free(peer->rbuf);
}

static void vb_fini_rcache(vb_ctx_t *v) {
  if (v->rcache != NULL) {
    const hc_vb_rcache_stats_t *st = hc_vb_rcache_stats(v->rcache);
    hc_log(HC_LOG_DEBUG, "verbs",
           "rank %d: registrations: %ld hits, %ld misses, %ld released, %ld "
           "refused; %ld gets bounced",
           v->world_rank, st->hits, st->misses, st->released, st->failures,
           v->bounced);
  }
  hc_vb_rcache_free(v->rcache);
  if (v->bmr != NULL)
    v->f.dereg_mr(v->bmr);
  free(v->bounce);
}

static void vb_fini(void *ctx) {
  vb_ctx_t *v = ctx;
  if (v == NULL)
    return;
  v->peer_failed_cb = NULL; /* no news to an engine going away */
  if (v->cq != NULL && v->peers != NULL)
    vb_fini_drain(v);
  while (v->stash_head != NULL) {
    vb_stash_t *s = v->stash_head;
    v->stash_head = s->next;
    free(s);
  }
  for (int p = 0; v->peers != NULL && p < v->world_size; p++)
    vb_fini_peer(v, &v->peers[p]);
  vb_fini_rcache(v);
  if (v->ud != NULL)
    v->f.destroy_qp(v->ud);
  if (v->umr != NULL)
    v->f.dereg_mr(v->umr);
  if (v->smr != NULL)
    v->f.dereg_mr(v->smr);
  if (v->cq != NULL)
    v->f.destroy_cq(v->cq);
  if (v->chan != NULL)
    v->f.destroy_comp_channel(v->chan);
  if (v->pd != NULL)
    v->f.dealloc_pd(v->pd);
  if (v->ibctx != NULL)
    v->f.close_device(v->ibctx);
  /* The library stays loaded: its provider may have registered atexit
   * handlers or threads. */
  free(v->sbuf);
  free(v->ubuf);
  free(v->sfree);
  free(v->peers);
  free(v);
}

#else /* no infiniband/verbs.h at build time */

static hc_status_t vb_init(const hc_transport_init_args_t *args, void **ctx) {
  (void)args;
  *ctx = NULL;
  hc_log(HC_LOG_INFO, "verbs",
         "no verbs devices (built without infiniband/verbs.h)");
  return HC_ERR_NOT_SUPPORTED;
}

static hc_status_t vb_address(void *ctx, char *buf, size_t len) {
  (void)ctx;
  (void)buf;
  (void)len;
  return HC_ERR_STATE;
}

static hc_status_t vb_connect(void *ctx, int p, const char *addr) {
  (void)ctx;
  (void)p;
  (void)addr;
  return HC_ERR_STATE;
}

static hc_status_t vb_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t vb_max_packet(void *ctx) {
  (void)ctx;
  return 0;
}

static hc_status_t vb_send(void *ctx, int p, const struct iovec *iov,
                           int iovcnt) {
  (void)ctx;
  (void)p;
  (void)iov;
  (void)iovcnt;
  return HC_ERR_STATE;
}

static int vb_progress(void *ctx) {
  (void)ctx;
  return 0;
}

static void vb_wait(void *ctx, int timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
}

static void vb_fini(void *ctx) { (void)ctx; }

int hc_verbs_serves(void *ctx, int peer) {
  (void)ctx;
  (void)peer;
  return 0;
}

static hc_status_t vb_get(void *ctx, int p, void *local, uint64_t remote_addr,
                          size_t len) {
  return hc_transport_get_not_supported(ctx, p, local, remote_addr, len);
}

#endif

const hc_transport_ops_t hc_transport_verbs_ops = {
    .name = "verbs",
    .init = vb_init,
    .address = vb_address,
    .connect = vb_connect,
    .connected = vb_connected,
    .max_packet = vb_max_packet,
    .send = vb_send,
    .progress = vb_progress,
    .get = vb_get,
    .wait = vb_wait,
    .fini = vb_fini,
};
