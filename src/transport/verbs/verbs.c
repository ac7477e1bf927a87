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
 * One RC QP per peer, created at connect and brought to RTS by the engine's
 * second KVS round (verbs.h).  One CQ with a completion channel for all.
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
 * Rendezvous: get() asks the peer's transport to register the source
 * buffer (REG_REQ), receives the rkey (REG_ACK), registers the destination,
 * RDMA READs, and releases the peer's registration (REG_DONE, sent before
 * the engine's FIN on the same QP, so it is processed first).  A refused
 * registration answers HC_ERR_NOT_SUPPORTED: the engine then pipelines the
 * data through send.  While get() waits it keeps serving the CQ; engine
 * packets that arrive meanwhile are copied aside and delivered, in order,
 * by the next progress.
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

#include "util/env.h"

#define VB_DEFAULT_RECVS 32
#define VB_CREDIT_BUFS 8
#define VB_DEFAULT_BUF ((size_t)16 << 10)
#define VB_SEND_BUFS 256
#define VB_INLINE_MAX 128
#define VB_POLL_BUDGET 256
#define VB_HELD_MAX 16
#define VB_READ_CHUNK ((size_t)1 << 30)
/* A get whose peer stays silent this long gives up (the peer is stuck). */
#define VB_GET_TIMEOUT_MS 60000
#define VB_FINI_DRAIN_MS 1000
#define VB_DEFAULT_KEEPALIVE_MS 1000

enum vb_kind { VB_PKT = 1, VB_CREDIT, VB_REG_REQ, VB_REG_ACK, VB_REG_DONE };

typedef struct vb_hdr {
  uint8_t kind;
  uint8_t pad;
  uint16_t credits; /* receive buffers the sender reposted for us */
  uint32_t pad2;
} vb_hdr_t;

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
} vb_fns_t;

typedef struct vb_reg { /* a registration lent to a peer's get */
  struct vb_reg *next;
  struct ibv_mr *mr;
} vb_reg_t;

typedef struct vb_ctl { /* a control message waiting for a credit */
  struct vb_ctl *next;
  int kind;
  vb_reg_msg_t msg;
} vb_ctl_t;

enum vb_peer_state { VB_PEER_NONE, VB_PEER_INIT, VB_PEER_UP, VB_PEER_FAILED };

typedef struct vb_peer {
  int state;
  struct ibv_qp *qp;
  uint16_t lid;
  union ibv_gid gid;
  uint32_t psn;
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
         vb_sym(v, &f->destroy_qp, "ibv_destroy_qp");
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
  int cqe = v->world_size * (v->sq_depth + v->recvs + VB_CREDIT_BUFS) + 16;
  v->chan = v->f.create_comp_channel(v->ibctx);
  v->cq = v->chan ? v->f.create_cq(v->ibctx, cqe, v, v->chan, 0) : NULL;
  v->sbuf = malloc((size_t)VB_SEND_BUFS * v->buf_size);
  v->sfree = malloc(VB_SEND_BUFS * sizeof(int));
  if (v->cq == NULL || v->sbuf == NULL || v->sfree == NULL)
    return HC_ERR_NOMEM;
  int fl = fcntl(v->chan->fd, F_GETFL);
  fcntl(v->chan->fd, F_SETFL, fl | O_NONBLOCK);
  v->smr = v->f.reg_mr(v->pd, v->sbuf, (size_t)VB_SEND_BUFS * v->buf_size,
                       IBV_ACCESS_LOCAL_WRITE);
  if (v->smr == NULL)
    return HC_ERR_TRANSPORT;
  for (int i = 0; i < VB_SEND_BUFS; i++)
    v->sfree[v->nsfree++] = i;
  return HC_OK;
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
  return vb_alloc_bufs(v);
}

static hc_status_t vb_address(void *ctx, char *buf, size_t len) {
  vb_ctx_t *v = ctx;
  if (v->cq == NULL)
    return HC_ERR_STATE;
  int w = snprintf(buf, len, "%u.", (unsigned)v->lid);
  for (int i = 0; i < 16 && w > 0 && (size_t)w < len; i++)
    w += snprintf(buf + w, len - (size_t)w, "%02x", v->gid.raw[i]);
  return (w < 0 || (size_t)w >= len) ? HC_ERR_ARG : HC_OK;
}

static int vb_parse_gid(const char *hex, union ibv_gid *gid) {
  if (strlen(hex) != 32)
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

static hc_status_t vb_qp_create(vb_ctx_t *v, int p) {
  vb_peer_t *peer = &v->peers[p];
  int nbuf = v->recvs + VB_CREDIT_BUFS;
  peer->rbuf = malloc((size_t)nbuf * v->buf_size);
  if (peer->rbuf == NULL)
    return HC_ERR_NOMEM;
  peer->rmr = v->f.reg_mr(v->pd, peer->rbuf, (size_t)nbuf * v->buf_size,
                          IBV_ACCESS_LOCAL_WRITE);
  struct ibv_qp_init_attr ia = {.send_cq = v->cq,
                                .recv_cq = v->cq,
                                .cap = {.max_send_wr = (uint32_t)v->sq_depth,
                                        .max_recv_wr = (uint32_t)nbuf,
                                        .max_send_sge = 1,
                                        .max_recv_sge = 1,
                                        .max_inline_data = VB_INLINE_MAX},
                                .qp_type = IBV_QPT_RC};
  peer->qp = peer->rmr ? v->f.create_qp(v->pd, &ia) : NULL;
  if (peer->qp == NULL) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: create QP: %s", p, strerror(errno));
    return HC_ERR_TRANSPORT;
  }
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
                          .pkey_index = 0,
                          .port_num = v->port,
                          .qp_access_flags = IBV_ACCESS_REMOTE_READ};
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
  return HC_OK;
}

/* Records the peer's device address and creates the QP toward it. */
static hc_status_t vb_connect(void *ctx, int p, const char *addr) {
  vb_ctx_t *v = ctx;
  if (p < 0 || p >= v->world_size || p == v->world_rank)
    return HC_ERR_RANK;
  vb_peer_t *peer = &v->peers[p];
  char *dot;
  unsigned long lid = strtoul(addr, &dot, 10);
  if (*dot != '.' || lid > 0xffff || !vb_parse_gid(dot + 1, &peer->gid)) {
    hc_log(HC_LOG_ERROR, "verbs", "bad address of rank %d: %s", p, addr);
    return HC_ERR_ARG;
  }
  peer->lid = (uint16_t)lid;
  return vb_qp_create(v, p);
}

hc_status_t hc_verbs_pair_address(void *ctx, int p, char *buf, size_t len) {
  vb_ctx_t *v = ctx;
  if (v == NULL || p < 0 || p >= v->world_size ||
      v->peers[p].state != VB_PEER_INIT)
    return HC_ERR_STATE;
  int w = snprintf(buf, len, "%u.%u", (unsigned)v->peers[p].qp->qp_num,
                   (unsigned)v->peers[p].psn);
  return (w < 0 || (size_t)w >= len) ? HC_ERR_ARG : HC_OK;
}

static int vb_to_rtr(vb_ctx_t *v, vb_peer_t *peer, uint32_t qpn, uint32_t psn) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR,
                          .path_mtu = v->mtu,
                          .dest_qp_num = qpn,
                          .rq_psn = psn,
                          .max_dest_rd_atomic = 4,
                          .min_rnr_timer = 12};
  a.ah_attr.dlid = peer->lid;
  a.ah_attr.port_num = v->port;
  if (v->roce || peer->lid == 0) {
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = peer->gid;
    a.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
    a.ah_attr.grh.hop_limit = 64;
  }
  return v->f.modify_qp(peer->qp, &a,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                            IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

hc_status_t hc_verbs_pair_connect(void *ctx, int p, const char *pair_addr) {
  vb_ctx_t *v = ctx;
  unsigned qpn, psn;
  if (v == NULL || p < 0 || p >= v->world_size ||
      v->peers[p].state != VB_PEER_INIT)
    return HC_ERR_STATE;
  if (sscanf(pair_addr, "%u.%u", &qpn, &psn) != 2)
    return HC_ERR_ARG;
  vb_peer_t *peer = &v->peers[p];
  int rc = vb_to_rtr(v, peer, qpn, psn);
  if (rc == 0) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS,
                            .timeout = 14,
                            .retry_cnt = 7,
                            .rnr_retry = 7,
                            .sq_psn = peer->psn,
                            .max_rd_atomic = 4};
    rc = v->f.modify_qp(peer->qp, &a,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                            IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                            IBV_QP_MAX_QP_RD_ATOMIC);
  }
  if (rc != 0) {
    hc_log(HC_LOG_ERROR, "verbs", "rank %d: QP to RTR/RTS: %s", p,
           strerror(rc));
    return HC_ERR_TRANSPORT;
  }
  peer->state = VB_PEER_UP;
  return HC_OK;
}

int hc_verbs_ready(void *ctx, int p) {
  vb_ctx_t *v = ctx;
  return v != NULL && p >= 0 && p < v->world_size &&
         v->peers[p].state == VB_PEER_UP;
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
  int inl = total <= VB_INLINE_MAX;
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
  if (peer->state == VB_PEER_FAILED)
    return HC_ERR_PEER_DEAD;
  if (peer->state != VB_PEER_UP)
    return HC_ERR_STATE;
  /* Control messages first: a REG_DONE must precede the engine's FIN. */
  if (!vb_flush_ctl(v, p) || !vb_can_post(v, peer, VB_PKT))
    return HC_ERR_AGAIN;
  return vb_post(v, p, VB_PKT, iov, iovcnt);
}

/* ---- completions ------------------------------------------------------ */

static void vb_on_reg_req(vb_ctx_t *v, int p, const vb_reg_msg_t *req) {
  vb_reg_msg_t ack = {.token = req->token, .ok = 0};
  vb_reg_t *r = calloc(1, sizeof *r);
  if (r != NULL)
    r->mr = v->f.reg_mr(v->pd, (void *)(uintptr_t)req->addr, req->len,
                        IBV_ACCESS_REMOTE_READ);
  if (r != NULL && r->mr != NULL) {
    r->next = v->peers[p].lent;
    v->peers[p].lent = r;
    ack.rkey = r->mr->rkey;
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
    if ((*link)->mr->rkey != rkey)
      continue;
    vb_reg_t *r = *link;
    *link = r->next;
    v->f.dereg_mr(r->mr);
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

static int vb_on_wc(vb_ctx_t *v, const struct ibv_wc *wc, int deliver) {
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
  struct ibv_wc wc;
  /* One at a time: a delivery may run get(), which polls the CQ itself. */
  for (int i = 0; i < VB_POLL_BUDGET && vb_poll_one(v, &wc); i++) {
    moved += vb_on_wc(v, &wc, 1);
    moved += vb_stash_deliver(v);
  }
  return moved;
}

/* ---- wait ------------------------------------------------------------- */

static double vb_now_ms(void);

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

static hc_status_t vb_read(vb_ctx_t *v, int p, struct ibv_mr *mr,
                           unsigned char *local, uint64_t remote, size_t len,
                           uint32_t rkey) {
  for (size_t off = 0; off < len; off += VB_READ_CHUNK) {
    size_t n = len - off < VB_READ_CHUNK ? len - off : VB_READ_CHUNK;
    struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)(local + off),
                          .length = (uint32_t)n,
                          .lkey = mr->lkey};
    struct ibv_send_wr wr = {.wr_id =
                                 VB_WR_READ | ((uint64_t)p << 32) | VB_WR_NOBUF,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_RDMA_READ,
                             .send_flags = IBV_SEND_SIGNALED};
    wr.wr.rdma.remote_addr = remote + off;
    wr.wr.rdma.rkey = rkey;
    struct ibv_send_wr *bad;
    v->read_done = 0;
    if (ibv_post_send(v->peers[p].qp, &wr, &bad) != 0) {
      vb_peer_fail(v, p, "post RDMA READ failed");
      return HC_ERR_PEER_DEAD;
    }
    v->peers[p].sq_used++;
    hc_status_t rc = vb_get_wait(v, p, &v->read_done);
    if (rc != HC_OK)
      return rc;
    if (v->read_status != IBV_WC_SUCCESS)
      return HC_ERR_PEER_DEAD;
  }
  return HC_OK;
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
  struct ibv_mr *mr = v->f.reg_mr(v->pd, local, len, IBV_ACCESS_LOCAL_WRITE);
  if (mr == NULL)
    return HC_ERR_NOT_SUPPORTED; /* the engine pipelines through send */
  vb_reg_msg_t req = {
      .token = ++v->next_token, .addr = remote_addr, .len = len};
  v->want_token = req.token;
  v->got_ack = 0;
  hc_status_t rc = vb_send_ctl(v, p, VB_REG_REQ, &req);
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
  v->f.dereg_mr(mr);
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
    v->f.dereg_mr(r->mr);
    free(r);
  }
  while (peer->ctl_head != NULL) {
    vb_ctl_t *c = peer->ctl_head;
    peer->ctl_head = c->next;
    free(c);
  }
  if (peer->qp != NULL)
    v->f.destroy_qp(peer->qp);
  if (peer->rmr != NULL)
    v->f.dereg_mr(peer->rmr);
  free(peer->rbuf);
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

hc_status_t hc_verbs_pair_address(void *ctx, int peer, char *buf, size_t len) {
  (void)ctx;
  (void)peer;
  (void)buf;
  (void)len;
  return HC_ERR_STATE;
}

hc_status_t hc_verbs_pair_connect(void *ctx, int peer, const char *pair_addr) {
  (void)ctx;
  (void)peer;
  (void)pair_addr;
  return HC_ERR_STATE;
}

int hc_verbs_ready(void *ctx, int peer) {
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
