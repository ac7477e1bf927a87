/*
 * Internals shared by the verbs transport's files: verbs.c (device, init,
 * eager sends and credits, completions, waits, RDMA READ rendezvous, fini),
 * conn.c (queue pairs made on first use, negotiated over UD), devmem.c
 * (device memory registered from dma-bufs) and atomic.c (8-byte atomics).  Only
 * those include it, and only where infiniband/verbs.h exists.
 */
#ifndef HC_TRANSPORT_VERBS_IMPL_H
#define HC_TRANSPORT_VERBS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "transport/transport.h"
#include "transport/verbs/regcache.h"

#define VB_DEFAULT_RECVS 32
#define VB_CREDIT_BUFS 8
#define VB_DEFAULT_BUF ((size_t)16 << 10)
#define VB_SEND_BUFS 256
#define VB_INLINE_MAX 128
#define VB_POLL_BUDGET 256
#define VB_HELD_MAX 16
#define VB_READ_CHUNK ((size_t)1 << 30)
/* Unreferenced regions the registration cache keeps (regcache.h). */
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
  /* Optional (rdma-core >= 34): NULL where the library lacks it. */
  struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *, uint64_t, size_t, uint64_t,
                                  int, int);
  int (*query_device)(struct ibv_context *, struct ibv_device_attr *);
} vb_fns_t;

typedef struct vb_devmem vb_devmem_t; /* devmem.c */

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
  int atomics;       /* the device does atomics (and HCMPI_VERBS_ATOMICS) */
  long atomics_done; /* logged at fini */
  void *aslot;       /* where atomics' old values land (atomic.c) */
  struct ibv_mr *amr;
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
  long bounced;        /* gets that went through it */
  vb_devmem_t *devmem; /* device memory the engine registered (devmem.c) */
  long dev_regs, dev_refused, dev_gets, dev_served;
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
#define VB_WR_READ (1ull << 62) /* an RDMA READ or WRITE, waited for */
#define VB_WR_PING (1ull << 61)
#define VB_WR_UD (1ull << 60)
#define VB_WR_NOBUF 0xffffffffu

/* conn.c: the UD QP (at init), the RC QP toward a peer on first use, a
 * REQ/REP datagram's completion, one receive buffer reposted. */
hc_status_t hc_vb_ud_init(vb_ctx_t *v);
void hc_vb_contact(vb_ctx_t *v, int p);
void hc_vb_on_ud(vb_ctx_t *v, const struct ibv_wc *wc);
hc_status_t hc_vb_post_recv(vb_ctx_t *v, int p, int idx);
/* devmem.c: the transport's mem_reg/mem_dereg; the device region holding
 * [addr, addr+len) or NULL; the counts logged and every region released
 * at fini. */
hc_status_t hc_vb_mem_reg(void *ctx, const hc_transport_mem_t *mem,
                          void **handle, uint64_t *key);
void hc_vb_mem_dereg(void *ctx, void *handle);
struct ibv_mr *hc_vb_devmem_find(const vb_ctx_t *v, uint64_t addr, size_t len);
void hc_vb_devmem_fini(vb_ctx_t *v);
/* conn.c: the RC QP toward p made now if need be, waited for until it is
 * up (HC_OK) or failed; p may be this rank (a loopback QP). */
hc_status_t hc_vb_connect_now(vb_ctx_t *v, int p);
/* atomic.c: the transport's rdma_atomic_reach and rdma_atomic. */
hc_status_t hc_vb_rdma_atomic_reach(void *ctx, int p);
hc_status_t hc_vb_rdma_atomic(void *ctx, int p, int op, uint64_t remote_addr,
                              uint64_t key, uint64_t operand, uint64_t compare,
                              uint64_t *old);
/* verbs.c: marks peer p failed (once) and tells the engine (the loopback
 * only fails); a clock; serves the CQ without delivering until *flag is
 * set, p failed or the deadline passed. */
void hc_vb_peer_fail(vb_ctx_t *v, int p, const char *why);
double hc_vb_now_ms(void);
hc_status_t hc_vb_wait_flag(vb_ctx_t *v, int p, const int *flag);
/* Takes one completion without delivering (packets wait in the stash),
 * or sleeps up to a millisecond for one. */
void hc_vb_serve_once(vb_ctx_t *v);

#endif /* HC_TRANSPORT_VERBS_IMPL_H */
