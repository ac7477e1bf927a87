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
 * Queue pairs are made on first use (conn.c).  At init each rank makes
 * one UD QP and publishes a per-peer-independent address,
 * "<lid>.<gid>.<ud qpn>" (verbs.h); connect only records it.  The first
 * send toward a peer creates the RC QP (INIT, receives posted) and sends
 * CONN_REQ (rank, RC QPN, PSN) to the peer's UD QP; the peer creates its
 * own RC QP, takes it to RTS against ours and answers CONN_REP with its
 * QPN/PSN; ours then goes to RTS.  Simultaneous first contact needs no
 * tie-break: a rank has at most one RC QP per peer and every REQ/REP names
 * it, so whichever message arrives first, both sides connect that same
 * pair; the later ones are duplicates and are ignored.  UD may drop: an
 * unanswered REQ is repeated every VB_CONN_RETRY_MS, and a peer silent for
 * VB_CONN_TIMEOUT_MS fails.  Data the peer sends before our QP reached RTR
 * is retransmitted by the peer's RC retry (retry_cnt), as RC does for a QP
 * not yet ready.  One CQ with a completion channel for all QPs.
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
 * forgets pinned regions whose memory is released (util/memhooks.h).  A
 * destination that cannot be registered is read through a registered
 * bounce buffer and copied; a refused source registration answers
 * HC_ERR_NOT_SUPPORTED: the engine then pipelines the data through send.
 * (The REG_REQ round trip stays: only the engine's RTS could carry the
 * rkey, and the engine knows no transport.)  Device memory the engine
 * registered through mem_reg (dma-buf regions, devmem.c) is found first at
 * either end and never goes near the host cache or the bounce buffer.  While
 * get() waits it keeps serving the CQ; engine packets that arrive meanwhile are
 * copied aside and delivered, in order, by the next progress.
 *
 * A completion with an error (retries exceeded, remote access) marks the
 * peer failed through peer_failed_cb; get() then returns HC_ERR_PEER_DEAD.
 */
#include "config.h"

#include "transport/transport.h"
#include "util/log.h"

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

#include "transport/verbs/verbs_impl.h"
#include "util/env.h"
#include "util/memhooks.h"

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
  /* Optional: device memory stages where the library predates it. */
  void *dmabuf = dlsym(v->dl, "ibv_reg_dmabuf_mr");
  memcpy(&f->reg_dmabuf_mr, &dmabuf, sizeof dmabuf);
  /* Optional: without it the device is taken to do no atomics. */
  void *query = dlsym(v->dl, "ibv_query_device");
  memcpy(&f->query_device, &query, sizeof query);
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
  struct ibv_device_attr da;
  v->atomics = hc_env_bool("HCMPI_VERBS_ATOMICS", 1) &&
               v->f.query_device != NULL &&
               v->f.query_device(v->ibctx, &da) == 0 &&
               da.atomic_cap != IBV_ATOMIC_NONE && da.max_qp_rd_atom > 0;
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

/* With on-demand paging regions are cached as they are (sound:
 * regcache.h).  Without it the cache watches releases of memory and
 * forgets the regions over them, which is sound only where the hooks are
 * in the program (libhcmpi, not an engine linked statically) and the
 * allocator can be kept from releasing memory unseen (glibc's malloc,
 * not ASan's):
 * HCMPI_VERBS_REGCACHE=auto (the default) caches pinned regions only
 * there, =1 everywhere, =0 nowhere (each rendezvous registers afresh).
 * ODP needs the device's word that RC READs work on such regions, where
 * it gives one, and a registration that asks for it and is not refused. */
static hc_status_t vb_rcache_init(vb_ctx_t *v) {
  int wanted = hc_env_bool("HCMPI_VERBS_REGCACHE", -1); /* -1: auto */
  struct ibv_mr *probe =
      wanted == 0 || vb_odp_rc_read(v) == 0
          ? NULL
          : v->f.reg_mr(v->pd, v->ubuf, VB_UD_SLOT,
                        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
  int odp = probe != NULL;
  if (probe != NULL)
    v->f.dereg_mr(probe);
  int held = wanted != 0 && !odp && hc_memhooks_hold_allocator();
  int keep = odp ? wanted != 0 : wanted == 1 || (wanted == -1 && held);
  v->rcache = hc_vb_rcache_new(v->pd, v->f.reg_mr, v->f.dereg_mr,
                               odp ? IBV_ACCESS_ON_DEMAND : 0,
                               keep ? VB_RCACHE_MAX : 0, !odp);
  if (v->rcache == NULL)
    return HC_ERR_NOMEM;
  const char *how = "off";
  if (hc_vb_rcache_capacity(v->rcache) > 0)
    how = odp    ? "on (on-demand paging)"
          : held ? "on (pinned, invalidated by the memory hooks)"
                 : "on (pinned, forced: the allocator may release memory "
                   "unseen)";
  else if (wanted != 0 && !odp)
    how = "off (pinned regions need the memory hooks and an allocator "
          "that keeps its memory: HCMPI_VERBS_REGCACHE=1 forces it)";
  hc_log(HC_LOG_DEBUG, "verbs", "rank %d: registration cache %s", v->world_rank,
         how);
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
  hc_status_t rc = vb_alloc_bufs(v);
  if (rc == HC_OK)
    rc = hc_vb_ud_init(v);
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

static hc_status_t vb_connected(void *ctx) {
  (void)ctx;
  return HC_OK;
}

static size_t vb_max_packet(void *ctx) {
  vb_ctx_t *v = ctx;
  return v->buf_size - sizeof(vb_hdr_t);
}

/* ---- failure ---------------------------------------------------------- */

void hc_vb_peer_fail(vb_ctx_t *v, int p, const char *why) {
  vb_peer_t *peer = &v->peers[p];
  if (peer->state == VB_PEER_FAILED)
    return;
  if (p == v->world_rank) { /* the loopback: this rank is not gone */
    hc_log(HC_LOG_WARN, "verbs", "loopback queue pair: %s", why);
    peer->state = VB_PEER_FAILED;
    return;
  }
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
    v->peer_failed_cb(v->engine, p, HC_ERR_PEER_DEAD);
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
    hc_vb_peer_fail(v, p, "post_send failed");
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
    hc_vb_contact(v, p); /* the engine retries after progress */
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

/* The source region of a peer's get: device memory the engine registered
 * (no cache reference), else host memory through the cache. */
static struct ibv_mr *vb_source_region(vb_ctx_t *v, const vb_reg_msg_t *req,
                                       hc_vb_rentry_t **ref) {
  struct ibv_mr *mr = hc_vb_devmem_find(v, req->addr, req->len);
  if (mr != NULL) {
    v->dev_served++;
    return mr;
  }
  return hc_vb_rcache_get(v->rcache, (void *)(uintptr_t)req->addr, req->len,
                          IBV_ACCESS_REMOTE_READ, ref);
}

static void vb_on_reg_req(vb_ctx_t *v, int p, const vb_reg_msg_t *req) {
  vb_reg_msg_t ack = {.token = req->token, .ok = 0};
  vb_reg_t *r = calloc(1, sizeof *r);
  struct ibv_mr *mr = r == NULL ? NULL : vb_source_region(v, req, &r->ref);
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
    hc_vb_peer_fail(v, p, "no memory to hold a packet");
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
    hc_vb_peer_fail(v, p, "short message");
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
    if (hc_vb_post_recv(v, p, idx) != HC_OK) {
      hc_vb_peer_fail(v, p, "post_recv failed");
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
  if (wc->wr_id & VB_WR_UD) {
    hc_vb_on_ud(v, wc);
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
      hc_vb_peer_fail(v, p, why);
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
      hc_vb_contact(v, p);
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
  double now = hc_vb_now_ms();
  if (v->keepalive_ms <= 0 || now - v->last_ping < (double)v->keepalive_ms)
    return;
  v->last_ping = now;
  for (int p = 0; p < v->world_size; p++) {
    vb_peer_t *peer = &v->peers[p];
    if (peer->state != VB_PEER_UP || peer->sq_used >= v->sq_depth - 1 ||
        p == v->world_rank) /* the loopback QP: nobody to lose */
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

/* Arms the completion channel: its descriptor turns readable on the next
 * completion.  What completed before the arm raises no event, so it is
 * taken now (held for the next progress) and the sleep is skipped. */
static int vb_wait_fd(void *ctx, int *timeout_ms) {
  vb_ctx_t *v = ctx;
  if (v == NULL || v->cq == NULL)
    return HC_TRANSPORT_WAIT_NONE;
  if (v->stash_head != NULL || v->nheld > 0)
    return HC_TRANSPORT_WAIT_NOW;
  vb_keepalive(v);
  if (v->nconnecting > 0 && (*timeout_ms < 0 || *timeout_ms > VB_CONN_RETRY_MS))
    *timeout_ms = VB_CONN_RETRY_MS; /* an unanswered REQ is repeated */
  ibv_req_notify_cq(v->cq, 0);
  v->nheld = ibv_poll_cq(v->cq, VB_HELD_MAX, v->held);
  if (v->nheld < 0)
    v->nheld = 0;
  return v->nheld > 0 ? HC_TRANSPORT_WAIT_NOW : v->chan->fd;
}

/* Takes the channel's events (it is non-blocking), so that it reads empty
 * until the next arm. */
static void vb_wait_done(void *ctx) {
  vb_ctx_t *v = ctx;
  struct ibv_cq *cq;
  void *cq_ctx;
  unsigned events = 0;
  while (v->f.get_cq_event(v->chan, &cq, &cq_ctx) == 0)
    events++;
  if (events > 0)
    v->f.ack_cq_events(v->cq, events);
}

static void vb_wait(void *ctx, int timeout_ms) {
  if (timeout_ms == 0)
    return;
  int fd = vb_wait_fd(ctx, &timeout_ms);
  if (fd == HC_TRANSPORT_WAIT_NONE)
    return;
  if (fd >= 0) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    poll(&pfd, 1, timeout_ms);
  }
  vb_wait_done(ctx);
}

/* ---- get (RDMA READ) -------------------------------------------------- */

double hc_vb_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Serves the CQ without delivering until *flag is set, the peer failed or
 * the deadline passed. */
hc_status_t hc_vb_wait_flag(vb_ctx_t *v, int p, const int *flag) {
  double deadline = hc_vb_now_ms() + VB_GET_TIMEOUT_MS;
  struct ibv_wc wc;
  while (!*flag) {
    if (v->peers[p].state != VB_PEER_UP)
      return HC_ERR_PEER_DEAD;
    if (vb_poll_one(v, &wc)) {
      vb_on_wc(v, &wc, 0);
      continue;
    }
    vb_flush_ctl(v, p);
    if (hc_vb_now_ms() > deadline)
      return HC_ERR_TRANSPORT;
    vb_wait(v, 1);
  }
  return HC_OK;
}

void hc_vb_serve_once(vb_ctx_t *v) {
  struct ibv_wc wc;
  if (vb_poll_one(v, &wc))
    vb_on_wc(v, &wc, 0);
  else
    vb_wait(v, 1);
}

/* One RDMA READ or WRITE (opcode) of n bytes between the registered local
 * (lkey) and remote, waited for (its completion is a VB_WR_READ one). */
static hc_status_t vb_rdma_one(vb_ctx_t *v, int p, enum ibv_wr_opcode opcode,
                               uint32_t lkey, void *local, uint64_t remote,
                               size_t n, uint32_t rkey) {
  struct ibv_sge sge = {
      .addr = (uint64_t)(uintptr_t)local, .length = (uint32_t)n, .lkey = lkey};
  struct ibv_send_wr wr = {.wr_id =
                               VB_WR_READ | ((uint64_t)p << 32) | VB_WR_NOBUF,
                           .sg_list = &sge,
                           .num_sge = 1,
                           .opcode = opcode,
                           .send_flags = IBV_SEND_SIGNALED};
  wr.wr.rdma.remote_addr = remote;
  wr.wr.rdma.rkey = rkey;
  struct ibv_send_wr *bad;
  v->read_done = 0;
  if (ibv_post_send(v->peers[p].qp, &wr, &bad) != 0) {
    hc_vb_peer_fail(v, p, opcode == IBV_WR_RDMA_READ
                              ? "post RDMA READ failed"
                              : "post RDMA WRITE failed");
    return HC_ERR_PEER_DEAD;
  }
  v->peers[p].sq_used++;
  hc_status_t rc = hc_vb_wait_flag(v, p, &v->read_done);
  if (rc == HC_OK && v->read_status != IBV_WC_SUCCESS)
    rc = HC_ERR_PEER_DEAD;
  return rc;
}

/* One RDMA READ of n bytes at remote into the registered local (lkey). */
static hc_status_t vb_read_one(vb_ctx_t *v, int p, uint32_t lkey, void *local,
                               uint64_t remote, size_t n, uint32_t rkey) {
  return vb_rdma_one(v, p, IBV_WR_RDMA_READ, lkey, local, remote, n, rkey);
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
 * destination cannot be registered (the locked-memory limit, say);
 * *device says it is a device region. */
static struct ibv_mr *vb_get_dest(vb_ctx_t *v, void *local, size_t len,
                                  hc_vb_rentry_t **ref, int *device,
                                  hc_status_t *rc) {
  *rc = HC_OK;
  /* Device memory: its own region, never the cache or the bounce. */
  struct ibv_mr *mr = hc_vb_devmem_find(v, (uint64_t)(uintptr_t)local, len);
  *device = mr != NULL;
  if (mr != NULL)
    return mr;
  mr = hc_vb_rcache_get(v->rcache, local, len, IBV_ACCESS_LOCAL_WRITE, ref);
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

/* HC_OK when one-sided transfers of len bytes with p may start now. */
static hc_status_t vb_rdma_ready(const vb_ctx_t *v, int p, size_t len) {
  if (p < 0 || p >= v->world_size || p == v->world_rank ||
      !hc_env_bool("HCMPI_VERBS_RDMA", 1))
    return HC_ERR_NOT_SUPPORTED;
  if (v->peers[p].state == VB_PEER_FAILED)
    return HC_ERR_PEER_DEAD;
  if (v->peers[p].state != VB_PEER_UP || len == 0)
    return HC_ERR_NOT_SUPPORTED;
  return HC_OK;
}

/* The destination's region of a read from p (vb_get_dest), once p is
 * ready for one; *rc says why not. */
static struct ibv_mr *vb_read_dest(vb_ctx_t *v, int p, void *local, size_t len,
                                   hc_vb_rentry_t **ref, int *device,
                                   hc_status_t *rc) {
  *device = 0;
  *rc = vb_rdma_ready(v, p, len);
  return *rc == HC_OK ? vb_get_dest(v, local, len, ref, device, rc) : NULL;
}

static hc_status_t vb_get(void *ctx, int p, void *local, uint64_t remote_addr,
                          size_t len) {
  vb_ctx_t *v = ctx;
  hc_vb_rentry_t *ref = NULL;
  int device;
  hc_status_t rc;
  struct ibv_mr *mr = vb_read_dest(v, p, local, len, &ref, &device, &rc);
  if (rc != HC_OK)
    return rc;
  vb_reg_msg_t req = {
      .token = ++v->next_token, .addr = remote_addr, .len = len};
  v->want_token = req.token;
  v->got_ack = 0;
  rc = vb_send_ctl(v, p, VB_REG_REQ, &req);
  if (rc == HC_OK)
    rc = hc_vb_wait_flag(v, p, &v->got_ack);
  v->want_token = 0;
  if (rc == HC_OK && !v->ack.ok)
    rc = HC_ERR_NOT_SUPPORTED;
  if (rc == HC_OK) {
    rc = vb_read(v, p, mr, local, remote_addr, len, v->ack.rkey);
    /* Counted once read: a get the peer refused moved nothing. */
    if (rc == HC_OK && device)
      v->dev_gets++;
    vb_reg_msg_t done = {.token = req.token, .rkey = v->ack.rkey};
    if (v->peers[p].state == VB_PEER_UP)
      vb_send_ctl(v, p, VB_REG_DONE, &done);
  }
  hc_vb_rcache_put(v->rcache, ref);
  return rc;
}

/* One-sided window access: the peer registered the target with host_reg
 * and published key, so no REG_REQ round trip is needed. */
static hc_status_t vb_rdma_write(void *ctx, int p, const void *local,
                                 uint64_t remote_addr, size_t len,
                                 uint64_t key) {
  vb_ctx_t *v = ctx;
  hc_status_t rc = vb_rdma_ready(v, p, len);
  if (rc != HC_OK)
    return rc;
  unsigned char *src = (unsigned char *)(uintptr_t)local; /* only read */
  hc_vb_rentry_t *ref = NULL;
  struct ibv_mr *mr = hc_vb_rcache_get(v->rcache, src, len, 0, &ref);
  if (mr == NULL)
    return HC_ERR_NOT_SUPPORTED;
  for (size_t off = 0; off < len && rc == HC_OK; off += VB_READ_CHUNK) {
    size_t n = len - off < VB_READ_CHUNK ? len - off : VB_READ_CHUNK;
    rc = vb_rdma_one(v, p, IBV_WR_RDMA_WRITE, mr->lkey, src + off,
                     remote_addr + off, n, (uint32_t)key);
  }
  hc_vb_rcache_put(v->rcache, ref);
  return rc;
}

static hc_status_t vb_rdma_read(void *ctx, int p, void *local,
                                uint64_t remote_addr, size_t len,
                                uint64_t key) {
  vb_ctx_t *v = ctx;
  hc_vb_rentry_t *ref = NULL;
  int device;
  hc_status_t rc;
  struct ibv_mr *mr = vb_read_dest(v, p, local, len, &ref, &device, &rc);
  if (rc == HC_OK)
    rc = vb_read(v, p, mr, local, remote_addr, len, (uint32_t)key);
  hc_vb_rcache_put(v->rcache, ref);
  return rc;
}

/* ---- fini ------------------------------------------------------------- */

/* Sends in flight get a bounded chance to complete before the QPs go. */
static void vb_fini_drain(vb_ctx_t *v) {
  double deadline = hc_vb_now_ms() + VB_FINI_DRAIN_MS;
  for (int p = 0; p < v->world_size; p++) {
    while ((v->peers[p].sq_used > 0 || v->peers[p].ctl_head != NULL) &&
           v->peers[p].state == VB_PEER_UP && hc_vb_now_ms() < deadline) {
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
    hc_vb_rcache_stats_t st = hc_vb_rcache_stats(v->rcache);
    hc_log(HC_LOG_DEBUG, "verbs",
           "rank %d: registrations: %ld hits, %ld misses, %ld released, %ld "
           "refused, %ld invalidated; %ld gets bounced",
           v->world_rank, st.hits, st.misses, st.released, st.failures,
           st.invalidated, v->bounced);
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
  hc_vb_devmem_fini(v);
  if (v->atomics_done > 0)
    hc_log(HC_LOG_DEBUG, "verbs", "rank %d: %ld atomics", v->world_rank,
           v->atomics_done);
  if (v->amr != NULL)
    v->f.dereg_mr(v->amr);
  free(v->aslot);
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

/* The tool interface's view of the registration cache. */
/* MPI_Alloc_mem's and windows' memory: a reference on its cache entry
 * keeps the registration (entries in use are never evicted) until
 * host_dereg, with the access every later lookup asks (a get's
 * destination, a peer's get's source) and peers' RDMA WRITE. */
static hc_status_t vb_host_reg(void *ctx, void *addr, size_t len,
                               void **handle, uint64_t *key) {
  vb_ctx_t *v = ctx;
  hc_vb_rentry_t *ref = NULL;
  int access =
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
  if (v->atomics) /* windows whose words change by the device's atomics */
    access |= IBV_ACCESS_REMOTE_ATOMIC;
  struct ibv_mr *mr = hc_vb_rcache_get(v->rcache, addr, len, access, &ref);
  if (mr == NULL)
    return HC_ERR_NOT_SUPPORTED;
  *handle = ref;
  *key = mr->rkey;
  return HC_OK;
}

static void vb_host_dereg(void *ctx, void *handle) {
  vb_ctx_t *v = ctx;
  hc_vb_rcache_put(v->rcache, handle);
}

static hc_status_t vb_counter(void *ctx, hc_transport_counter_t which,
                              uint64_t *value) {
  vb_ctx_t *v = ctx;
  if (which != HC_TRANSPORT_COUNTER_REGCACHE_HITS &&
      which != HC_TRANSPORT_COUNTER_REGCACHE_MISSES)
    return HC_ERR_NOT_SUPPORTED;
  hc_vb_rcache_stats_t s = {0};
  if (v != NULL && v->rcache != NULL)
    s = hc_vb_rcache_stats(v->rcache);
  long n = which == HC_TRANSPORT_COUNTER_REGCACHE_HITS ? s.hits : s.misses;
  *value = n > 0 ? (uint64_t)n : 0;
  return HC_OK;
}

const hc_transport_ops_t hc_transport_verbs_ops = {
    .name = "verbs",
    .reach = HC_TRANSPORT_REACH_ANY,
    .flags = HC_TRANSPORT_OPTIONAL,
    .trace_path = HC_TRACE_PATH_VERBS,
    .trace_get_path = HC_TRACE_PATH_VERBS,
    .init = vb_init,
    .address = vb_address,
    .connect = vb_connect,
    .connected = vb_connected,
    .max_packet = vb_max_packet,
    .send = vb_send,
    .progress = vb_progress,
    .get = vb_get,
    .mem_reg = hc_vb_mem_reg,
    .mem_dereg = hc_vb_mem_dereg,
    .host_reg = vb_host_reg,
    .host_dereg = vb_host_dereg,
    .rdma_write = vb_rdma_write,
    .rdma_read = vb_rdma_read,
    .rdma_atomic_reach = hc_vb_rdma_atomic_reach,
    .rdma_atomic = hc_vb_rdma_atomic,
    .wait = vb_wait,
    .wait_fd = vb_wait_fd,
    .wait_pollfd = hc_transport_wait_fd_not_supported,
    .wait_done = vb_wait_done,
    .set_secret = hc_transport_set_secret_not_supported,
    .watch = hc_transport_watch_nothing,
    .fini = vb_fini,
    .counter = vb_counter,
};
