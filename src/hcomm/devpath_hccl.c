/*
 * The hccl data path: per-pair HcclComms, ordered HcclSend/HcclRecv on
 * hcmpi streams, completion by event query; and the hccl path's ops.
 * See devpath_hccl.h.
 */
#include "hcomm/devpath_hccl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/hccl.h"
#include "hcomm/core.h"
#include "hcomm/devpath_impl.h"
#include "util/env.h"
#include "util/log.h"

enum { PAIR_NONE = 0, PAIR_INIT = 1, PAIR_READY = 2, PAIR_FAILED = 3 };
enum { DIR_SEND = 0, DIR_RECV = 1 };

struct hc_hccl_op {
  hc_hccl_op_t *next; /* in the pair's queue of ops not yet issued */
  int dir;
  int peer;
  uint64_t seq;
  void *buf;
  size_t bytes;
  int issued;
  void *event;
  hc_status_t failed; /* HC_OK unless issuing failed */
};

typedef struct hccl_pair {
  int state;
  int device;
  int have_root;
  unsigned char root[HC_HCCL_ROOT_BYTES];
  pthread_t thread;
  atomic_int init_done;
  hc_status_t init_rc;
  void *comm;
  void *stream[2];      /* hc_device_acl_ops streams, per direction */
  uint64_t claimed;     /* receives numbered so far (receiver) */
  uint64_t next[2];     /* seq of the next op to issue, per direction */
  hc_hccl_op_t *queue[2]; /* not yet issued, by seq */
} hccl_pair_t;

static struct {
  int tried, ok;
  hccl_pair_t **pairs;
  int npairs;
} hx;

int hc_hccl_usable(void) {
  if (!hx.tried) {
    hx.tried = 1;
    hx.pairs = hc_device_hccl_loaded()
                   ? calloc((size_t)hc_engine.world_size, sizeof *hx.pairs)
                   : NULL;
    hx.npairs = hx.pairs != NULL ? hc_engine.world_size : 0;
    hx.ok = hx.pairs != NULL;
  }
  return hx.ok;
}

static hccl_pair_t *hccl_pair(int peer) {
  if (!hc_hccl_usable() || peer < 0 || peer >= hx.npairs)
    return NULL;
  if (hx.pairs[peer] == NULL) {
    hx.pairs[peer] = calloc(1, sizeof(hccl_pair_t));
    if (hx.pairs[peer] != NULL)
      hx.pairs[peer]->device = -1;
  }
  return hx.pairs[peer];
}

static int hccl_is_root(int peer) { return hc_engine.world_rank < peer; }

/* The root makes the blob once, on the device the pair will use. */
static int hccl_make_root(hccl_pair_t *p, int device) {
  if (p->have_root)
    return 1;
  if (hc_device_hccl_root_info(device, p->root) != HC_OK)
    return 0;
  p->have_root = 1;
  p->device = device;
  return 1;
}

const void *hc_hccl_rts_root(int peer, int device) {
  hccl_pair_t *p = hccl_pair(peer);
  if (p == NULL || !hccl_is_root(peer) || p->state != PAIR_NONE)
    return NULL;
  return hccl_make_root(p, device) ? p->root : NULL;
}

void hc_hccl_note_root(int peer, const void *root) {
  hccl_pair_t *p = hccl_pair(peer);
  if (p == NULL || hccl_is_root(peer) || p->have_root)
    return;
  memcpy(p->root, root, sizeof p->root);
  p->have_root = 1;
}

typedef struct hccl_init_arg {
  hccl_pair_t *pair;
  uint32_t rank;
} hccl_init_arg_t;

/* HcclCommInitRootInfo blocks until the peer joins: off the engine lock,
 * on its own thread (bound to the device, as every ACL caller must be). */
static void *hccl_init_main(void *arg) {
  hccl_init_arg_t a = *(hccl_init_arg_t *)arg;
  free(arg);
  hccl_pair_t *p = a.pair;
  p->init_rc = hc_device_hccl_comm_init(p->device, 2, p->root, a.rank, &p->comm);
  atomic_store(&p->init_done, 1);
  return NULL;
}

static int hccl_start_init(hccl_pair_t *p, int peer, int device) {
  if (p->state != PAIR_NONE)
    return p->state != PAIR_FAILED;
  if (hccl_is_root(peer) && !hccl_make_root(p, device))
    return 0;
  if (!p->have_root)
    return 0;
  if (p->device < 0)
    p->device = device;
  hccl_init_arg_t *a = malloc(sizeof *a);
  if (a == NULL)
    return 0;
  a->pair = p;
  a->rank = hccl_is_root(peer) ? 0 : 1;
  if (pthread_create(&p->thread, NULL, hccl_init_main, a) != 0) {
    free(a);
    return 0;
  }
  p->state = PAIR_INIT;
  return 1;
}

static hc_hccl_op_t *hccl_op_new(int dir, int peer, uint64_t seq, void *buf,
                                 size_t bytes) {
  hc_hccl_op_t *op = calloc(1, sizeof *op);
  if (op == NULL)
    return NULL;
  op->dir = dir;
  op->peer = peer;
  op->seq = seq;
  op->buf = buf;
  op->bytes = bytes;
  return op;
}

/* Queued by seq: CTS packets may arrive in any order. */
static void hccl_enqueue(hccl_pair_t *p, hc_hccl_op_t *op) {
  hc_hccl_op_t **l = &p->queue[op->dir];
  while (*l != NULL && (*l)->seq < op->seq)
    l = &(*l)->next;
  op->next = *l;
  *l = op;
}

hc_hccl_op_t *hc_hccl_recv_claim(int peer, int device, void *buf,
                                 size_t bytes, const void **root) {
  hccl_pair_t *p = hccl_pair(peer);
  *root = NULL;
  if (p == NULL || (p->state != PAIR_NONE && p->device != device))
    return NULL;
  hc_hccl_op_t *op = hccl_op_new(DIR_RECV, peer, p->claimed, buf, bytes);
  if (op == NULL)
    return NULL;
  if (!hccl_start_init(p, peer, device)) {
    free(op);
    return NULL;
  }
  p->claimed++;
  hccl_enqueue(p, op);
  if (hccl_is_root(peer) && p->state != PAIR_READY)
    *root = p->root;
  return op;
}

hc_hccl_op_t *hc_hccl_send_accept(int peer, int device, uint64_t seq,
                                  void *buf, size_t bytes) {
  hccl_pair_t *p = hccl_pair(peer);
  if (p == NULL || !hccl_start_init(p, peer, device))
    return NULL;
  hc_hccl_op_t *op = hccl_op_new(DIR_SEND, peer, seq, buf, bytes);
  if (op != NULL)
    hccl_enqueue(p, op);
  return op;
}

uint64_t hc_hccl_op_seq(const hc_hccl_op_t *op) { return op->seq; }

static void hccl_init_finish(hccl_pair_t *p, int peer) {
  pthread_join(p->thread, NULL);
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  int ok = p->init_rc == HC_OK &&
           ops->stream_create(p->device, &p->stream[DIR_SEND]) == HC_OK &&
           ops->stream_create(p->device, &p->stream[DIR_RECV]) == HC_OK;
  if (ok) {
    p->state = PAIR_READY;
    hc_log(HC_LOG_DEBUG, "device", "rank %d: HcclComm with rank %d ready",
           hc_engine.world_rank, peer);
    return;
  }
  p->state = PAIR_FAILED;
  hc_log(HC_LOG_ERROR, "device", "HcclComm with rank %d: %s", peer,
         p->init_rc == HC_OK ? "no stream" : hcomm_strerror(p->init_rc));
}

static hc_status_t hccl_issue(hccl_pair_t *p, hc_hccl_op_t *op) {
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  void *stream = p->stream[op->dir];
  uint32_t peer_rank = hccl_is_root(op->peer) ? 1 : 0;
  hc_status_t rc =
      op->dir == DIR_SEND
          ? hc_device_hccl_send(op->buf, op->bytes, peer_rank, p->comm, stream)
          : hc_device_hccl_recv(op->buf, op->bytes, peer_rank, p->comm, stream);
  /* The call bound this thread to the stream's device, where the event
   * that tells its completion must live. */
  if (rc == HC_OK)
    rc = ops->event_create(&op->event);
  if (rc == HC_OK)
    rc = ops->event_record(op->event, stream);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "hccl %s rank %d: %s",
           op->dir == DIR_SEND ? "send to" : "receive from", op->peer,
           hcomm_strerror(rc));
  return rc;
}

/* Issues queued ops in seq order, per direction. */
static void hccl_pump(hccl_pair_t *p) {
  for (int dir = 0; dir < 2; dir++) {
    hc_hccl_op_t *op;
    while ((op = p->queue[dir]) != NULL && op->seq == p->next[dir]) {
      p->queue[dir] = op->next;
      op->next = NULL;
      op->issued = 1;
      op->failed = hccl_issue(p, op);
      p->next[dir]++;
    }
  }
}

hc_status_t hc_hccl_op_poll(hc_hccl_op_t *op) {
  hccl_pair_t *p = hx.pairs[op->peer];
  if (p->state == PAIR_INIT && atomic_load(&p->init_done))
    hccl_init_finish(p, op->peer);
  if (p->state == PAIR_FAILED)
    return HC_ERR_TRANSPORT;
  if (p->state == PAIR_READY)
    hccl_pump(p);
  if (!op->issued)
    return HC_ERR_AGAIN;
  if (op->failed != HC_OK)
    return op->failed;
  return hc_device_backend(HC_MEM_ACL)->event_query(op->event);
}

void hc_hccl_op_free(hc_hccl_op_t *op) {
  if (op == NULL)
    return;
  hccl_pair_t *p = hx.pairs[op->peer];
  for (hc_hccl_op_t **l = &p->queue[op->dir]; *l != NULL; l = &(*l)->next)
    if (*l == op) {
      *l = op->next;
      break;
    }
  if (op->event != NULL)
    hc_device_backend(HC_MEM_ACL)->event_destroy(op->event);
  free(op);
}

static void hccl_pair_free(hccl_pair_t *p) {
  const hc_device_ops_t *ops = hc_device_backend(HC_MEM_ACL);
  if (p->state == PAIR_INIT)
    pthread_join(p->thread, NULL);
  for (int dir = 0; dir < 2; dir++)
    if (p->stream[dir] != NULL && ops != NULL)
      ops->stream_destroy(p->stream[dir]);
  if (p->init_rc == HC_OK)
    hc_device_hccl_comm_destroy(p->device, p->comm);
  free(p);
}

void hc_hccl_fini(void) {
  for (int i = 0; i < hx.npairs; i++)
    if (hx.pairs[i] != NULL)
      hccl_pair_free(hx.pairs[i]);
  free(hx.pairs);
  memset(&hx, 0, sizeof hx);
  hc_device_hccl_unload();
}

/* ---- the hccl path's ops (devpath_impl.h) -------------------------------- */

/* Sender: the pair's root info rides the first device RTS its root sends;
 * transports with packets too small for it get none, and the receiver
 * then stages. */
static void hccl_rts_fill(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (d->info.kind != HC_MEM_ACL || !hc_hccl_usable())
    return;
  size_t total = sizeof d->rts + HC_HCCL_ROOT_BYTES;
  if (hc_engine.peers[req->peer].max_packet < sizeof(hc_pkt_hdr_t) + total)
    return;
  const void *root = hc_hccl_rts_root(req->peer, d->info.device);
  if (root != NULL) {
    d->rts_tail = root;
    d->rts_tail_len = HC_HCCL_ROOT_BYTES;
  }
}

static void hccl_rts_tail_seen(int peer, const void *tail, size_t len) {
  if (len == HC_HCCL_ROOT_BYTES && hc_hccl_usable())
    hc_hccl_note_root(peer, tail);
}

/* Receiver, both buffers ACL device memory: claims the next HcclRecv from
 * the peer and tells the sender its number in our own CTS (flagged
 * DEVICE), which may have to carry the root info. */
static int hccl_recv_try(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (!d->peer_device || d->info.kind != HC_MEM_ACL ||
      d->rts.kind != HC_MEM_ACL || !hc_hccl_usable() ||
      hc_engine.peers[req->peer].max_packet <
          sizeof(hc_pkt_hdr_t) + HC_HCCL_ROOT_BYTES)
    return HC_DEVPATH_HOST;
  const void *root;
  d->hop = hc_hccl_recv_claim(req->peer, d->info.device, req->recv_buf,
                              req->take, &root);
  if (d->hop == NULL)
    return HC_DEVPATH_HOST;
  size_t root_len = root != NULL ? HC_HCCL_ROOT_BYTES : 0;
  hc_devpath_send_cts(req, HC_PKT_FLAG_DEVICE, hc_hccl_op_seq(d->hop), root,
                      root_len);
  hc_devpath_note(&hc_devpath_hccl_ops, req);
  hc_devpath_activate(d, &hc_devpath_hccl_ops, 0);
  return HC_DEVPATH_STARTED;
}

/* Sender, on an hccl CTS: the receiver issued (or will issue) HcclRecv
 * number hdr->offset; our HcclSend takes that place in the pair's order. */
static void hccl_send_cts(hcomm_request_t *req, int peer,
                          const hc_pkt_hdr_t *hdr, const void *payload) {
  hc_devreq_t *d = req->dev;
  hccl_rts_tail_seen(peer, payload, hdr->payload_bytes);
  size_t bytes = hdr->total_bytes < req->bytes ? hdr->total_bytes : req->bytes;
  d->hop = d->info.kind == HC_MEM_ACL && hc_hccl_usable()
               ? hc_hccl_send_accept(peer, d->info.device, hdr->offset,
                                     (void *)(uintptr_t)req->send_buf, bytes)
               : NULL;
  if (d->hop == NULL) {
    hc_log(HC_LOG_ERROR, "device", "hccl send to rank %d impossible", peer);
    hc_request_complete(req, HC_ERR_TRANSPORT);
    return;
  }
  d->to = peer;
  hc_devpath_activate(d, &hc_devpath_hccl_ops, 1);
}

/* Either side: done when its stream got past its call. */
static int hccl_step(hc_devreq_t *d) {
  hc_status_t rc = hc_hccl_op_poll(d->hop);
  if (rc == HC_ERR_AGAIN)
    return 0;
  hcomm_request_t *req = d->req;
  int recv = !d->sending;
  hc_devpath_deactivate(d);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "hccl %s rank %d: %s",
           recv ? "receive from" : "send to", recv ? req->peer : d->to,
           hcomm_strerror(rc));
  if (recv && rc == HC_OK) {
    req->landed = req->take;
    hc_proto_finish_recv(req);
  } else {
    if (recv)
      req->status.bytes = 0;
    hc_request_complete(req, rc);
  }
  return 1;
}

static void hccl_stop(hc_devreq_t *d) {
  hc_hccl_op_free(d->hop);
  d->hop = NULL;
}

const hc_devpath_ops_t hc_devpath_hccl_ops = {
    .name = "hccl",
    .trace = HC_TRACE_PATH_HCCL,
    .remote_only_in_auto = 1,
    .rts_fill = hccl_rts_fill,
    .rts_tail_seen = hccl_rts_tail_seen,
    .recv_try = hccl_recv_try,
    .send_cts = hccl_send_cts,
    .step = hccl_step,
    .stop = hccl_stop,
};
