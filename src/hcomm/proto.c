#include "hcomm/proto.h"

#include <stdlib.h>
#include <string.h>

#include "hcomm/comm.h"
#include "hcomm/counters.h"
#include "hcomm/devpath.h"
#include "hcomm/ft.h"
#include "hcomm/trace.h"
#include "util/clock.h"
#include "util/copy.h"
#include "util/env.h"
#include "util/log.h"
#include "util/smallmem.h"

/* Default largest eager payload; HCMPI_EAGER_LIMIT overrides, and a peer's
 * transport caps it at its max_packet minus the header, and while no limit
 * is set at its eager_max. */
#define PROTO_EAGER_DEFAULT 16384

enum { ITEM_PACKET = 0, ITEM_STREAM = 1 };

/* One queued packet (or a stream of DATA packets) for a peer whose transport
 * said HC_ERR_AGAIN.  The payload is not copied: it is the sender's buffer,
 * which stays valid until the send request completes. */
struct hc_backlog_item {
  hc_backlog_item_t *next;
  int kind;
  int complete_on_send; /* the owner completes once this item is sent */
  hc_pkt_hdr_t hdr;
  const void *payload;
  size_t len;
  hcomm_request_t *req; /* owning send request, or NULL (control packet) */
  size_t offset;        /* stream: next byte to send */
  size_t end;           /* stream: bytes to send in all */
  /* accessor stream (req->acc.pack): the fragment at offset, packed once
   * even when the transport refuses it and the drain retries */
  unsigned char *packed;
  int packed_ready;
  void *owned; /* a payload copied for the backlog (ft.c's packets) */
};

/* Small blocks set aside while memory is plentiful, for what must not fail
 * when an arrival or a queued packet meets a malloc that does: the
 * envelope of an unexpected message (so its receive learns the payload was
 * lost, instead of waiting for it forever) and a backlog item (so a CTS,
 * FIN or ACK still leaves).  Each block is malloc'ed: whoever ends up with
 * one frees it with free().  Refilled by hc_proto_progress. */
#define PROTO_SPARES 16
#define PROTO_SPARE_BYTES                                                      \
  (sizeof(hcomm_message_t) > sizeof(hc_backlog_item_t)                         \
       ? sizeof(hcomm_message_t)                                               \
       : sizeof(hc_backlog_item_t))
static void *proto_spare[PROTO_SPARES];
static int proto_nspare;

static void proto_spares_refill(void) {
  while (proto_nspare < PROTO_SPARES) {
    void *block = malloc(PROTO_SPARE_BYTES);
    if (block == NULL)
      return;
    proto_spare[proto_nspare++] = block;
  }
}

/* malloc(bytes), else a spare block when bytes fit one; NULL if neither. */
static void *proto_alloc_small(size_t bytes) {
  void *p = malloc(bytes);
  if (p == NULL && bytes <= PROTO_SPARE_BYTES && proto_nspare > 0)
    p = proto_spare[--proto_nspare];
  return p;
}

static hc_backlog_item_t *proto_item_alloc(void) {
  hc_backlog_item_t *item = proto_alloc_small(sizeof *item);
  if (item != NULL)
    memset(item, 0, sizeof *item);
  return item;
}

static hc_status_t pkt_decode_short(const void *packet, size_t len,
                                    hc_pkt_hdr_t *hdr, const void **payload) {
  hc_pkt_short_hdr_t head;
  memcpy(&head, packet, sizeof head);
  if (head.context >= HC_MATCH_CONTEXTS)
    return HC_ERR_TRANSPORT;
  memset(hdr, 0, sizeof *hdr);
  hdr->type = HC_PKT_EAGER;
  hdr->context = head.context;
  hdr->tag = head.tag;
  hdr->payload_bytes = len - sizeof head;
  hdr->total_bytes = len - sizeof head;
  *payload = (const unsigned char *)packet + sizeof head;
  return HC_OK;
}

static hc_status_t pkt_decode_done(const void *packet, size_t len,
                                   hc_pkt_hdr_t *hdr, const void **payload) {
  hc_pkt_done_hdr_t head;
  if (len != sizeof head)
    return HC_ERR_TRANSPORT;
  memcpy(&head, packet, sizeof head);
  if (head.done != HC_PKT_FIN && head.done != HC_PKT_ACK)
    return HC_ERR_TRANSPORT;
  memset(hdr, 0, sizeof *hdr);
  hdr->type = head.done;
  hdr->sreq = head.sreq;
  *payload = (const unsigned char *)packet + len;
  return HC_OK;
}

hc_status_t hc_pkt_decode(const void *packet, size_t len, hc_pkt_hdr_t *hdr,
                          const void **payload) {
  if (len >= sizeof(hc_pkt_short_hdr_t) &&
      *(const uint8_t *)packet == HC_PKT_EAGER_SHORT)
    return pkt_decode_short(packet, len, hdr, payload);
  if (len > 0 && *(const uint8_t *)packet == HC_PKT_DONE_SHORT)
    return pkt_decode_done(packet, len, hdr, payload);
  if (len < sizeof *hdr)
    return HC_ERR_TRANSPORT;
  memcpy(hdr, packet, sizeof *hdr);
  if (hdr->type < HC_PKT_EAGER || hdr->type > HC_PKT_TYPE_MAX)
    return HC_ERR_TRANSPORT;
  if (hdr->payload_bytes != len - sizeof *hdr)
    return HC_ERR_TRANSPORT;
  if (hdr->context >= HC_MATCH_CONTEXTS)
    return HC_ERR_TRANSPORT;
  *payload = (const unsigned char *)packet + sizeof *hdr;
  return HC_OK;
}

/* The eager limit the tool interface set (MPI_T cvar HCMPI_EAGER_LIMIT),
 * once it did; until then the environment's applies. */
static size_t proto_eager_setting;
static int proto_eager_set;

size_t hc_proto_eager_limit(void) {
  return proto_eager_set
             ? proto_eager_setting
             : hc_env_size("HCMPI_EAGER_LIMIT", PROTO_EAGER_DEFAULT);
}

/* The limit for peer: the setting, capped by its transport's packets; unset,
 * the default capped by what its transport wants too. */
static void proto_peer_eager_limit(hc_peer_t *peer) {
  size_t room = 0;
  if (peer->max_packet > sizeof(hc_pkt_hdr_t))
    room = peer->max_packet - sizeof(hc_pkt_hdr_t);
  size_t limit = hc_proto_eager_limit();
  int limit_set =
      proto_eager_set || hc_env_string("HCMPI_EAGER_LIMIT", NULL) != NULL;
  if (!limit_set && peer->ops->eager_max != NULL) {
    size_t wanted = peer->ops->eager_max(peer->tctx);
    if (wanted < limit)
      limit = wanted;
  }
  peer->eager_limit = limit < room ? limit : room;
  peer->eager_ask = !limit_set && peer->ops->eager_max_now != NULL;
}

void hc_proto_set_eager_limit(size_t bytes) {
  hc_engine_lock();
  proto_eager_setting = bytes;
  proto_eager_set = 1;
  for (int i = 0; hc_engine.peers != NULL && i < hc_engine.npeers; i++)
    if (hc_engine.peers[i].ops != NULL)
      proto_peer_eager_limit(&hc_engine.peers[i]);
  hc_engine_unlock();
}

void hc_proto_peer_setup(hc_peer_t *peer) {
  proto_spares_refill();
  peer->max_packet = peer->ops->max_packet(peer->tctx);
  size_t room = 0;
  if (peer->max_packet > sizeof(hc_pkt_hdr_t))
    room = peer->max_packet - sizeof(hc_pkt_hdr_t);
  proto_peer_eager_limit(peer);
  if (room == 0) {
    hc_log(HC_LOG_ERROR, "engine", "transport %s packets too small for rank %d",
           peer->ops->name, peer->world_rank);
    peer->ops = NULL;
  }
}

/* The tool interface's count of one message (counters.h), in the entry of
 * the peer's transport. */
static void proto_count(hc_counters_flow_t *flow, uint64_t bytes) {
  flow->messages++;
  flow->bytes += bytes;
}

/* One packet: head_len bytes of header at head, then len of payload.
 * Inlined into its two callers: every eager send goes through it. */
__attribute__((always_inline)) static inline hc_status_t
proto_transmit_head(hc_peer_t *peer, const void *head, size_t head_len,
                    const void *payload, size_t len) {
  struct iovec iov[2];
  iov[0].iov_base = (void *)head;
  iov[0].iov_len = head_len;
  iov[1].iov_base = (void *)payload;
  iov[1].iov_len = len;
  hc_status_t rc =
      peer->ops->send(peer->tctx, peer->world_rank, iov, len > 0 ? 2 : 1);
  if (rc == HC_OK)
    hc_engine_sent_to(peer);
  return rc;
}

static hc_status_t proto_transmit(hc_peer_t *peer, const hc_pkt_hdr_t *hdr,
                                  const void *payload, size_t len) {
  return proto_transmit_head(peer, hdr, sizeof *hdr, payload, len);
}

static void proto_enqueue(hc_peer_t *peer, hc_backlog_item_t *item) {
  item->next = NULL;
  if (peer->backlog_tail != NULL)
    peer->backlog_tail->next = item;
  else
    peer->backlog_head = item;
  peer->backlog_tail = item;
  if (!peer->backlogged) {
    peer->backlogged = 1;
    peer->next_backlogged = hc_engine.backlogged;
    hc_engine.backlogged = peer;
  }
}

/* Sends at once when nothing waits for this peer, else (or on AGAIN) queues
 * behind what waits, so packets leave strictly in order.  *queued says
 * which happened. */
static hc_status_t proto_post(hc_peer_t *peer, const hc_pkt_hdr_t *hdr,
                              const void *payload, size_t len,
                              hcomm_request_t *req, int complete_on_send,
                              int *queued) {
  *queued = 0;
  if (peer->backlog_head == NULL) {
    hc_status_t rc = proto_transmit(peer, hdr, payload, len);
    if (rc != HC_ERR_AGAIN)
      return rc;
  }
  hc_backlog_item_t *item = proto_item_alloc();
  if (item == NULL)
    return HC_ERR_NOMEM;
  item->kind = ITEM_PACKET;
  item->hdr = *hdr;
  item->payload = payload;
  item->len = len;
  item->req = req;
  item->complete_on_send = complete_on_send;
  if (req != NULL)
    req->backlog_item = item;
  proto_enqueue(peer, item);
  *queued = 1;
  return HC_OK;
}

static void proto_control(int peer_rank, hc_pkt_type_t type, uint64_t sreq,
                          uint64_t rreq, uint64_t bytes) {
  hc_peer_t *peer = &hc_engine.peers[peer_rank];
  hc_status_t rc = HC_ERR_AGAIN;
  /* A FIN or ACK leaves compact when nothing waits before it; queued, it
   * takes the full header the backlog holds. */
  if ((type == HC_PKT_FIN || type == HC_PKT_ACK) &&
      peer->backlog_head == NULL) {
    hc_pkt_done_hdr_t done = {
        .type = HC_PKT_DONE_SHORT, .done = (uint8_t)type, .sreq = sreq};
    rc = proto_transmit_head(peer, &done, sizeof done, NULL, 0);
  }
  if (rc == HC_ERR_AGAIN) {
    hc_pkt_hdr_t hdr = {0};
    hdr.type = (uint8_t)type;
    hdr.source = hc_engine.world_rank;
    hdr.sreq = sreq;
    hdr.rreq = rreq;
    hdr.total_bytes = bytes;
    int queued;
    rc = proto_post(peer, &hdr, NULL, 0, NULL, 0, &queued);
  }
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "engine", "control packet %d to rank %d: %s", type,
           peer_rank, hcomm_strerror(rc));
}

/* ---- accessor hook: the bytes of the stream fragment at item->offset */
static const void *proto_fragment(hc_backlog_item_t *item, size_t n) {
  if (item->packed == NULL)
    return (const unsigned char *)item->payload + item->offset;
  if (!item->packed_ready) {
    hcomm_accessor_t *acc = &item->req->acc;
    acc->pack(acc->ctx, item->offset, item->packed, n);
    item->packed_ready = 1;
  }
  return item->packed;
}

/* The most one drain of a peer streams before it returns.  A receiver that
 * drains the ring as fast as it fills (its own core, spinning) would
 * otherwise let one progress call move a whole 256 MiB message, holding
 * the caller - an MPI_Test, another peer's traffic - for all of it. */
#define PROTO_STREAM_BURST ((size_t)4 << 20)

static hc_status_t proto_stream(hc_peer_t *peer, hc_backlog_item_t *item,
                                size_t *burst_left, int *moved) {
  size_t frag = peer->max_packet - sizeof(hc_pkt_hdr_t);
  while (item->offset < item->end) {
    if (*burst_left == 0)
      return HC_ERR_AGAIN;
    size_t n = item->end - item->offset;
    if (n > frag)
      n = frag;
    item->hdr.offset = item->offset;
    item->hdr.payload_bytes = n;
    hc_status_t rc =
        proto_transmit(peer, &item->hdr, proto_fragment(item, n), n);
    if (rc != HC_OK)
      return rc;
    item->packed_ready = 0;
    item->offset += n;
    *burst_left -= n < *burst_left ? n : *burst_left;
    (*moved)++;
  }
  return HC_OK;
}

static void proto_item_free(hc_backlog_item_t *item) {
  free(item->packed);
  free(item->owned);
  free(item);
}

static void proto_item_done(hc_backlog_item_t *item, hc_status_t rc) {
  hcomm_request_t *req = item->req;
  if (req != NULL) {
    if (req->backlog_item == item)
      req->backlog_item = NULL;
    if (rc != HC_OK)
      hc_request_complete(req, rc);
    else if (item->complete_on_send)
      hc_request_complete(req, HC_OK);
  } else if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "engine", "queued packet lost: %s",
           hcomm_strerror(rc));
  }
  proto_item_free(item);
}

static int proto_drain_peer(hc_peer_t *peer) {
  int moved = 0;
  size_t burst_left = PROTO_STREAM_BURST;
  while (peer->backlog_head != NULL) {
    hc_backlog_item_t *item = peer->backlog_head;
    hc_status_t rc;
    if (item->kind == ITEM_STREAM) {
      rc = proto_stream(peer, item, &burst_left, &moved);
    } else {
      rc = proto_transmit(peer, &item->hdr, item->payload, item->len);
      if (rc == HC_OK)
        moved++;
    }
    if (rc == HC_ERR_AGAIN)
      break;
    peer->backlog_head = item->next;
    if (peer->backlog_head == NULL)
      peer->backlog_tail = NULL;
    proto_item_done(item, rc);
  }
  return moved;
}

/* Tracing only: the path a message to or from peer takes when it is not
 * a rendezvous (eager, control) - the peer's transport.  Device buffers
 * are traced by devpath.c, which knows ipc, hccl or staging. */
static hc_trace_path_t proto_trace_path(const hc_peer_t *peer) {
  return peer->ops->trace_path;
}

/* A host rendezvous: a get that worked is single-copy, one that was
 * refused streams DATA packets (where the transport traces them apart). */
static hc_trace_path_t proto_trace_rndv_path(const hc_peer_t *peer,
                                             hc_status_t get_rc) {
  const hc_transport_ops_t *ops = peer->ops;
  if (ops->trace_get_path == ops->trace_path)
    return ops->trace_path;
  return get_rc == HC_OK ? ops->trace_get_path : HC_TRACE_PATH_PIPELINED;
}

static void proto_trace_recv(const hcomm_request_t *req, uint64_t key,
                             hc_trace_path_t path) {
  hc_trace_engine(HC_TRACE_ENG_RECV, req->peer, req->status.tag, req->total,
                  key, req->dev != NULL, path);
}

/* ---- accessor hook: an eager accessor send packs the whole (small)
 * message once; the copy lives until the request is released. */
static hc_status_t proto_acc_pack_all(hcomm_request_t *req) {
  if (req->bytes == 0)
    return HC_OK;
  hc_request_mark_rare(req);
  req->acc_buf = malloc(req->bytes);
  if (req->acc_buf == NULL)
    return HC_ERR_NOMEM;
  req->acc.pack(req->acc.ctx, 0, req->acc_buf, req->bytes);
  req->send_buf = req->acc_buf;
  return HC_OK;
}

/* ---- accessor hook: received bytes [offset, offset + n) of req. */
static void proto_copy_in(hcomm_request_t *req, size_t offset, const void *src,
                          size_t n) {
  if (req->acc.unpack != NULL)
    req->acc.unpack(req->acc.ctx, offset, src, n);
  else /* memcpy for host; a failed device copy is remembered by the
        * device path, which ends the request with it once every fragment
        * landed (proto_finish_recv), so no later DATA names a completed
        * request */
    (void)hc_devpath_copy_in(req, offset, src, n);
}

/* A send above the eager limit that the transport takes eagerly now (see
 * eager_max_now), within one packet: larger ones never ask. */
static int proto_eager_now(const hc_peer_t *peer, size_t bytes) {
  if (bytes + sizeof(hc_pkt_hdr_t) > peer->max_packet)
    return 0;
  hcomm_request_t *last = peer->rndv_sent_last != 0
                              ? hc_request_lookup(peer->rndv_sent_last)
                              : NULL;
  int in_stream = last != NULL && !atomic_load(&last->done);
  size_t now =
      peer->ops->eager_max_now(peer->tctx, peer->world_rank, in_stream);
  return bytes <= now;
}

void hc_proto_send(hcomm_request_t *req) {
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  req->status.bytes = req->bytes;
  req->status.tag = req->tag;
  if (peer->ops == NULL) {
    hc_request_complete(req, HC_ERR_NOT_SUPPORTED);
    return;
  }
  int sync = req->mode == HCOMM_SEND_SYNC;
  hc_pkt_hdr_t hdr = {0};
  hdr.context = (uint32_t)req->match_ctx;
  hdr.source = hc_engine.world_rank;
  hdr.tag = req->tag;
  hdr.total_bytes = req->bytes;
  hdr.sreq = hc_request_id(req);
  int queued;
  hc_status_t rc;
  int eager = req->bytes <= peer->eager_limit && req->dev == NULL;
  if (!eager && peer->eager_ask && req->dev == NULL)
    eager = proto_eager_now(peer, req->bytes);
  req->rndv = !eager;
  if (hc_trace_on)
    hc_trace_engine(HC_TRACE_ENG_SEND, req->peer, req->tag, req->bytes,
                    hdr.sreq, req->dev != NULL,
                    eager ? proto_trace_path(peer) : HC_TRACE_PATH_RNDV);
  if (eager && req->acc.pack != NULL && proto_acc_pack_all(req) != HC_OK) {
    hc_request_complete(req, HC_ERR_NOMEM);
    return;
  }
  if (eager) {
    proto_count(&peer->via->counts.sent[0], req->bytes);
    hdr.type = HC_PKT_EAGER;
    hdr.flags = sync ? HC_PKT_FLAG_SYNC : 0;
    hdr.payload_bytes = req->bytes;
    rc = proto_post(peer, &hdr, req->send_buf, req->bytes, req, !sync, &queued);
    if (rc != HC_OK)
      hc_request_complete(req, rc);
    else if (!queued && !sync)
      hc_request_complete(req, HC_OK);
    return;
  }
  proto_count(&peer->via->counts.sent[1], req->bytes);
  peer->rndv_sent_last = hdr.sreq;
  hdr.type = HC_PKT_RTS;
  /* 0 for an accessor send: nothing to get, so the receiver sends CTS. */
  hdr.addr = (uint64_t)(uintptr_t)req->send_buf;
  const void *rts_payload = NULL; /* device path: buffer descriptor */
  size_t rts_len = 0;
  if (req->dev != NULL) {
    rts_payload = hc_devpath_rts_payload(req, &rts_len);
    hdr.flags = HC_PKT_FLAG_DEVICE;
    hdr.payload_bytes = rts_len;
  }
  rc = proto_post(peer, &hdr, rts_payload, rts_len, req, 0, &queued);
  if (rc != HC_OK)
    hc_request_complete(req, rc);
  else if (hdr.addr != 0 && req->dev == NULL)
    hc_progress_peer_reads(req->bytes);
}

hc_status_t hc_proto_send_now(int peer_rank, uint32_t match_ctx, int tag,
                              const void *buf, size_t bytes) {
  hc_peer_t *peer = &hc_engine.peers[peer_rank];
  /* Packets waiting for this peer go first: order is per pair.  Above the
   * eager limit the transport says whether this one goes eager now (a
   * stream's) or as a rendezvous (a lone one it reads): the request path
   * asks again and gets the same answer (eager_max_now). */
  if (peer->ops == NULL || peer->failed || peer->backlog_head != NULL)
    return HC_ERR_AGAIN;
  if (__builtin_expect(bytes > peer->eager_limit, 0) &&
      !(peer->eager_ask && proto_eager_now(peer, bytes)))
    return HC_ERR_AGAIN;
  /* Nothing answers a standard eager send: the short header will do. */
  hc_pkt_short_hdr_t hdr = {
      .type = HC_PKT_EAGER_SHORT, .context = match_ctx, .tag = tag};
  if (proto_transmit_head(peer, &hdr, sizeof hdr, buf, bytes) != HC_OK)
    return HC_ERR_AGAIN;
  proto_count(&peer->via->counts.sent[0], bytes);
  return HC_OK;
}

void hc_proto_send_ft(int peer_rank, hc_pkt_hdr_t *hdr, const void *payload,
                      size_t len) {
  hc_peer_t *peer = &hc_engine.peers[peer_rank];
  if (peer->ops == NULL || peer->failed)
    return;
  hdr->type = HC_PKT_FT;
  hdr->source = hc_engine.world_rank;
  hdr->payload_bytes = len;
  void *copy = NULL;
  if (peer->backlog_head != NULL ||
      proto_transmit(peer, hdr, payload, len) == HC_ERR_AGAIN) {
    copy = len > 0 ? malloc(len) : NULL;
    hc_backlog_item_t *item = proto_item_alloc();
    if (item == NULL || (len > 0 && copy == NULL)) {
      free(item);
      free(copy);
      hc_log(HC_LOG_ERROR, "engine", "no memory to queue a packet to rank %d",
             peer_rank);
      return;
    }
    if (len > 0)
      hc_copy_payload(copy, payload, len);
    item->kind = ITEM_PACKET;
    item->hdr = *hdr;
    item->payload = copy;
    item->len = len;
    item->owned = copy;
    proto_enqueue(peer, item);
  }
}

static void proto_finish_recv(hcomm_request_t *req) {
  /* Copies into a device buffer may still be queued (or have failed). */
  if (hc_devpath_recv_landed(req))
    return;
  req->status.bytes = req->take;
  hc_request_complete(req, req->total > req->bytes ? HC_ERR_TRUNCATE : HC_OK);
}

void hc_proto_finish_recv(hcomm_request_t *req) { proto_finish_recv(req); }

void hc_proto_send_fin(int peer, uint64_t sreq) {
  proto_control(peer, HC_PKT_FIN, sreq, 0, 0);
}

void hc_proto_send_ctl(int peer, hc_pkt_hdr_t *hdr, const void *payload,
                       size_t len) {
  hdr->source = hc_engine.world_rank;
  hdr->payload_bytes = len;
  int queued;
  hc_status_t rc =
      proto_post(&hc_engine.peers[peer], hdr, payload, len, NULL, 0, &queued);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "engine", "control packet %d to rank %d: %s",
           hdr->type, peer, hcomm_strerror(rc));
}

static void proto_count_pipelined(size_t bytes) {
  hc_counters.rndv_pipelined.messages++;
  hc_counters.rndv_pipelined.bytes += bytes;
}

/* The first single-copy get of each size class from peer, at debug level
 * (hc_peer_t.gets_logged); the rest are counted in rndv_get. */
static void proto_log_get(hc_peer_t *peer, size_t bytes) {
  /* bytes > 0: an empty rendezvous finishes without a get. */
  int size_class = 63 - __builtin_clzll((unsigned long long)bytes);
  uint64_t bit = (uint64_t)1 << size_class;
  if (peer->gets_logged & bit)
    return;
  peer->gets_logged |= bit;
  size_t low = (size_t)1 << size_class;
  hc_log(HC_LOG_DEBUG, "engine",
         "single-copy get of %zu B from rank %d (the first of %zu-%zu B from "
         "it; the rest are counted in rndv_get)",
         bytes, peer->world_rank, low, low + (low - 1));
}

/* 1 when the transport of peer is told how long req's rendezvous took
 * (rndv_measured): a host receive of HC_RNDV_MEASURE_MIN bytes or more
 * into a plain buffer (an unpacking accessor's stream would time the
 * unpacking too). */
static int proto_rndv_timed(const hc_peer_t *peer, const hcomm_request_t *req) {
  return peer->ops->rndv_measured != NULL && req->take >= HC_RNDV_MEASURE_MIN &&
         req->dev == NULL && req->acc.unpack == NULL;
}

/* n more bytes of a timed streamed receive (proto_rndv_timed) landed.
 * Its time runs from its first DATA, not its CTS: in a window the sender
 * streams one message after another, and a message's wait for those
 * before it is not what its path costs.  Told at the last byte, scaled
 * from the bytes after the first DATA to the whole message. */
static void proto_stream_timed(hcomm_request_t *req, size_t n) {
  if (req->rndv_data_ns == 0) {
    req->rndv_data_ns = hc_clock_ns();
    req->rndv_data_first = n;
    return;
  }
  if (req->landed != req->take)
    return;
  uint64_t ns = hc_clock_ns() - req->rndv_data_ns;
  size_t timed = req->take - req->rndv_data_first;
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  peer->ops->rndv_measured(
      peer->tctx, peer->world_rank, req->take,
      (uint64_t)((double)ns * (double)req->take / (double)timed), 0);
}

/* A matched rendezvous receive: single-copy get when the transport can,
 * else ask the sender to stream DATA packets (CTS). */
static void proto_rndv_start(hcomm_request_t *req) {
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  if (req->take == 0) {
    if (hc_trace_on)
      proto_trace_recv(req, req->remote_id, proto_trace_path(peer));
    proto_control(req->peer, HC_PKT_FIN, req->remote_id, 0, 0);
    proto_finish_recv(req);
    return;
  }
  int dev = hc_devpath_recv_start(req); /* device buffers: never a CMA get */
  if (dev == HC_DEVPATH_STARTED)
    return;
  /* accessor hook: either end without one address streams (no get);
   * so does a message below the transport's get minimum, which it moves
   * faster as a stream. */
  int stream = req->acc.unpack != NULL || req->remote_addr == 0 ||
               (peer->ops->get_min != NULL &&
                req->take < peer->ops->get_min(peer->tctx, peer->world_rank,
                                               peer->streams_landing));
  if (hc_trace_on && stream && dev != HC_DEVPATH_CTS)
    proto_trace_recv(req, req->remote_id, HC_TRACE_PATH_PIPELINED);
  int timed = dev != HC_DEVPATH_CTS && proto_rndv_timed(peer, req);
  if (dev == HC_DEVPATH_CTS || stream) {
    if (dev != HC_DEVPATH_CTS) {
      proto_count_pipelined(req->take);
      hc_request_mark_rare(req);
      req->rndv_landing = 1;
      req->rndv_timed = timed;
      peer->streams_landing++;
    }
    proto_control(req->peer, HC_PKT_CTS, req->remote_id, hc_request_id(req),
                  req->take);
    return;
  }
  uint64_t get_ns = timed ? hc_clock_ns() : 0;
  hc_status_t rc = peer->ops->get(peer->tctx, peer->world_rank, req->recv_buf,
                                  req->remote_addr, req->take);
  if (timed && rc == HC_OK)
    peer->ops->rndv_measured(peer->tctx, peer->world_rank, req->take,
                             hc_clock_ns() - get_ns, 1);
  if (hc_trace_on && rc != HC_ERR_PEER_DEAD)
    proto_trace_recv(req, req->remote_id, proto_trace_rndv_path(peer, rc));
  if (rc == HC_OK) {
    hc_counters.rndv_get.messages++;
    hc_counters.rndv_get.bytes += req->take;
    if (hc_log_level() >= HC_LOG_DEBUG)
      proto_log_get(peer, req->take);
    proto_control(req->peer, HC_PKT_FIN, req->remote_id, 0, 0);
    req->landed = req->take;
    proto_finish_recv(req);
    return;
  }
  if (rc == HC_ERR_PEER_DEAD) {
    req->status.bytes = 0;
    hc_request_complete(req, rc);
    return;
  }
  /* Refused (or failed part-way): the pipelined path rewrites every byte. */
  proto_count_pipelined(req->take);
  if (hc_log_level() >= HC_LOG_DEBUG)
    hc_log(HC_LOG_DEBUG, "engine", "get from rank %d: %s; pipelining %zu B",
           req->peer, hcomm_strerror(rc), req->take);
  proto_control(req->peer, HC_PKT_CTS, req->remote_id, hc_request_id(req),
                req->take);
}

static void proto_pending_push(hcomm_request_t *req) {
  req->next = NULL;
  if (hc_engine.pending_tail != NULL)
    hc_engine.pending_tail->next = req;
  else
    hc_engine.pending_head = req;
  hc_engine.pending_tail = req;
}

/* What receive req learns from the envelope it matched: the sender, the
 * tag, and the message's size and how much of it will land. */
static inline void proto_matched(hcomm_request_t *req, int src, int tag,
                                 size_t total) {
  req->peer = src;
  req->status.source = hc_comm_rank_of_world(req->comm, src);
  req->status.tag = tag;
  req->total = total;
  req->take = total < req->bytes ? total : req->bytes;
}

/* Hands a matched message (eager data or RTS) to receive req.  Inside the
 * transport callback a rendezvous is deferred to hc_proto_progress, so the
 * callback never blocks on a copy. */
static void proto_deliver(hcomm_request_t *req, int src,
                          const hc_pkt_hdr_t *hdr, const void *payload,
                          int in_callback) {
  proto_matched(req, src, hdr->tag, hdr->total_bytes);
  if (hdr->type == HC_PKT_EAGER) {
    if (hc_trace_on)
      proto_trace_recv(req, hdr->sreq, proto_trace_path(&hc_engine.peers[src]));
    if (req->take > 0)
      proto_copy_in(req, 0, payload, req->take);
    if (hdr->flags & HC_PKT_FLAG_SYNC)
      proto_control(src, HC_PKT_ACK, hdr->sreq, 0, 0);
    proto_finish_recv(req);
    return;
  }
  req->remote_id = hdr->sreq;
  req->remote_addr = hdr->addr;
  hc_devpath_on_rts(req, hdr, payload);
  if (in_callback)
    proto_pending_push(req);
  else
    proto_rndv_start(req);
}

/* An unexpected message with room for len payload bytes.  Without memory
 * for them, the envelope alone (a spare block at worst) keeps the
 * message's place in the queue, *lost set: the payload is dropped, and the
 * receive that matches it fails rather than waiting for it. */
static hcomm_message_t *proto_envelope_alloc(size_t len, int *lost) {
  hcomm_message_t *msg = malloc(sizeof *msg + len);
  *lost = 0;
  if (msg != NULL)
    return msg;
  *lost = len > 0;
  return proto_alloc_small(sizeof *msg);
}

static void proto_store_unexpected(hc_match_context_t *ctx, int src,
                                   const hc_pkt_hdr_t *hdr,
                                   const void *payload) {
  /* EAGER data, or the device descriptor of a device RTS. */
  size_t len = hdr->payload_bytes;
  int lost;
  hcomm_message_t *msg = proto_envelope_alloc(len, &lost);
  if (msg == NULL) {
    /* Not even an envelope: nothing could tell the receive about this
     * message, so the peer's traffic ends here, as if it had failed. */
    hc_log(HC_LOG_ERROR, "engine",
           "no memory for the envelope of a message from rank %d; treating "
           "the peer as failed",
           src);
    hc_engine_peer_failed(&hc_engine, src, HC_ERR_NOMEM);
    return;
  }
  if (lost)
    hc_log(HC_LOG_WARN, "engine",
           "no memory for a message of %zu B from rank %d: its receive fails "
           "with out of memory",
           len, src);
  msg->hdr = *hdr;
  msg->hdr.source = src;
  msg->proc_null = 0;
  msg->lost = lost;
  msg->comm = NULL;
  msg->len = lost ? 0 : len;
  if (msg->len > 0)
    hc_copy_payload(msg->data, payload, len);
  hc_match_add_unexpected(ctx, &msg->entry, src, hdr->tag);
  hc_counters.unexpected++;
  if (ctx->unexpected.length > hc_counters.unexpected_hwm)
    hc_counters.unexpected_hwm = ctx->unexpected.length;
  hc_counters_unexpected_event(src, hdr->tag, (int)hdr->context,
                               hdr->total_bytes);
}

static void proto_on_envelope(int src, const hc_pkt_hdr_t *hdr,
                              const void *payload) {
  hc_match_context_t *ctx = &hc_engine.contexts[hdr->context];
  hc_engine_transport_t *via = hc_engine.peers[src].via;
  if (via != NULL)
    proto_count(&via->counts.received[hdr->type != HC_PKT_EAGER],
                hdr->total_bytes);
  hc_match_entry_t *e = hc_match_take_posted(ctx, src, hdr->tag);
  if (e == NULL) {
    proto_store_unexpected(ctx, src, hdr, payload);
    return;
  }
  hcomm_request_t *req = (hcomm_request_t *)e;
  req->posted = 0;
  proto_deliver(req, src, hdr, payload, 1);
}

/* A peer broke the protocol (a header that does not decode, a packet
 * naming a live request that is not its own or not in the state the packet
 * needs): its connection is treated as lost, through the same path as a
 * transport's report, so what waits on it completes with an error. */
static void proto_violation(int src, const char *what) {
  hc_log(HC_LOG_ERROR, "engine", "rank %d: %s; treating the peer as failed",
         src, what);
  hc_engine_peer_failed(&hc_engine, src, HC_ERR_PEER_CORRUPT);
}

/* The live request a CTS/DATA/FIN/ACK from src names.  A stale id (the
 * request completed, e.g. failed with a peer, before the packet came) is
 * dropped quietly; a live one of the wrong kind or another peer's is a
 * violation. */
static hcomm_request_t *proto_lookup(int src, uint64_t id,
                                     hc_request_kind_t kind) {
  hcomm_request_t *req = hc_request_lookup(id);
  if (req == NULL) {
    hc_log(HC_LOG_DEBUG, "engine", "packet from rank %d names a stale request",
           src);
    return NULL;
  }
  if (req->kind != kind || req->peer != src) {
    proto_violation(src, "packet names a request that is not its own");
    return NULL;
  }
  return req;
}

/* The sends that wait for a CTS or a FIN: rendezvous ones (see
 * hc_proto_send; recorded there, as the tool interface may change the
 * eager limit while they are in flight). */
static int proto_send_is_rndv(const hcomm_request_t *req) { return req->rndv; }

/* The host send's DATA stream of req->take bytes to receive
 * req->remote_id.  Without memory for it the send waits on the pending
 * list, and hc_proto_progress tries again: the receiver, which asked for
 * the data, would otherwise wait for it for ever. */
static void proto_stream_begin(hcomm_request_t *req) {
  hc_peer_t *peer = &hc_engine.peers[req->peer];
  hc_backlog_item_t *item = proto_item_alloc();
  /* accessor hook: each fragment is packed into item->packed */
  if (item != NULL && req->acc.pack != NULL) {
    item->packed = malloc(peer->max_packet);
    if (item->packed == NULL) {
      free(item);
      item = NULL;
    }
  }
  if (item == NULL) {
    proto_pending_push(req);
    return;
  }
  item->kind = ITEM_STREAM;
  item->complete_on_send = 1;
  item->req = req;
  item->payload = req->send_buf;
  item->end = req->take;
  item->hdr.type = HC_PKT_DATA;
  item->hdr.source = hc_engine.world_rank;
  item->hdr.rreq = req->remote_id;
  proto_enqueue(peer, item);
  proto_drain_peer(peer);
}

/* The host send's DATA stream, once per CTS. */
static void proto_stream_start(hcomm_request_t *req, const hc_pkt_hdr_t *hdr) {
  req->remote_id = hdr->rreq; /* ids are never 0: marks the stream begun */
  req->take = hdr->total_bytes;
  proto_stream_begin(req);
}

static void proto_on_cts(int src, const hc_pkt_hdr_t *hdr,
                         const void *payload) {
  hcomm_request_t *req = proto_lookup(src, hdr->sreq, HC_REQ_SEND);
  if (req == NULL)
    return;
  if (!proto_send_is_rndv(req) || hdr->total_bytes > req->bytes) {
    proto_violation(src, "CTS for an eager send, or for more than it holds");
    return;
  }
  if (hdr->total_bytes == 0) {
    hc_request_complete(req, HC_OK);
    return;
  }
  if (hc_devpath_on_cts(req, src, hdr, payload))
    return; /* device send buffer: the staging pipeline streams it */
  if (req->remote_id != 0) {
    proto_violation(src, "second CTS for one send");
    return;
  }
  proto_stream_start(req, hdr);
}

/* DATA goes only to a matched rendezvous receive (remote_id set at the
 * match), within the bytes it takes: that receive, else NULL. */
static hcomm_request_t *proto_data_target(int src, const hc_pkt_hdr_t *hdr) {
  hcomm_request_t *req = proto_lookup(src, hdr->rreq, HC_REQ_RECV);
  if (req == NULL)
    return NULL;
  if (req->posted || req->remote_id == 0) {
    proto_violation(src, "DATA for a receive that is not a matched rendezvous");
    return NULL;
  }
  if (hdr->offset > req->take || hdr->payload_bytes > req->take - hdr->offset ||
      hdr->payload_bytes > req->take - req->landed) {
    proto_violation(src, "DATA fragment out of bounds");
    return NULL;
  }
  return req;
}

static void proto_data_landed(hcomm_request_t *req, size_t n) {
  req->landed += n;
  if (req->rndv_timed)
    proto_stream_timed(req, n);
  if (req->landed != req->take)
    return;
  if (req->rndv_landing)
    hc_engine.peers[req->peer].streams_landing--;
  proto_finish_recv(req);
}

static void proto_on_data(int src, const hc_pkt_hdr_t *hdr,
                          const void *payload) {
  hcomm_request_t *req = proto_data_target(src, hdr);
  if (req == NULL)
    return;
  proto_copy_in(req, hdr->offset, payload, hdr->payload_bytes);
  proto_data_landed(req, hdr->payload_bytes);
}

/* A DATA payload for a plain host receive buffer is read by the transport
 * straight into place; anything else (device memory, an unpacking
 * accessor, other packet types, a header that will not check) takes the
 * recv_cb path, which reports what is wrong with it. */
int hc_proto_place_cb(void *engine, int src_world_rank, const void *head,
                      size_t packet_len, void **dst) {
  (void)engine;
  hc_pkt_hdr_t hdr;
  const void *payload;
  if (src_world_rank < 0 || src_world_rank >= hc_engine.npeers ||
      hc_pkt_decode(head, packet_len, &hdr, &payload) != HC_OK ||
      hdr.type != HC_PKT_DATA)
    return 0;
  hcomm_request_t *req = proto_data_target(src_world_rank, &hdr);
  if (req == NULL || req->dev != NULL || req->acc.unpack != NULL)
    return 0;
  *dst = (unsigned char *)req->recv_buf + hdr.offset;
  return 1;
}

/* The payload hc_proto_place_cb accepted is in place.  Only the peer's
 * failure ends its receive before then, and the transport stops reading
 * from a failed peer, so the request is still the one placed into. */
void hc_proto_placed_cb(void *engine, int src_world_rank, const void *head) {
  (void)engine;
  hc_pkt_hdr_t hdr;
  memcpy(&hdr, head, sizeof hdr);
  hcomm_request_t *req = hc_request_lookup(hdr.rreq);
  if (req != NULL && req->kind == HC_REQ_RECV && req->peer == src_world_rank)
    proto_data_landed(req, hdr.payload_bytes);
}

/* FIN ends a rendezvous send, ACK a synchronous eager one. */
static void proto_on_done(int src, const hc_pkt_hdr_t *hdr) {
  hcomm_request_t *req = proto_lookup(src, hdr->sreq, HC_REQ_SEND);
  if (req == NULL)
    return;
  int rndv = proto_send_is_rndv(req);
  if (hdr->type == HC_PKT_FIN && !rndv) {
    proto_violation(src, "FIN for an eager send");
    return;
  }
  if (hdr->type == HC_PKT_ACK && (rndv || req->mode != HCOMM_SEND_SYNC)) {
    proto_violation(src, "ACK for a send that is not synchronous eager");
    return;
  }
  hc_request_complete(req, HC_OK);
}

/* A short eager packet (hc_proto_send_now): proto_on_envelope's work.  When
 * a posted receive of a host buffer takes it (most small messages), it
 * lands without the short header being expanded into a full one. */
static void proto_on_short(int src, const void *packet, size_t len) {
  hc_pkt_short_hdr_t head;
  memcpy(&head, packet, sizeof head);
  if (head.context >= HC_MATCH_CONTEXTS) {
    proto_violation(src, "malformed packet header");
    return;
  }
  size_t bytes = len - sizeof head;
  const unsigned char *data = (const unsigned char *)packet + sizeof head;
  hc_engine_transport_t *via = hc_engine.peers[src].via;
  if (via != NULL)
    proto_count(&via->counts.received[0], bytes);
  hc_match_context_t *ctx = &hc_engine.contexts[head.context];
  hcomm_request_t *req =
      (hcomm_request_t *)hc_match_take_posted(ctx, src, head.tag);
  if (req != NULL && req->dev == NULL && req->acc.unpack == NULL &&
      !hc_trace_on) {
    req->posted = 0;
    proto_matched(req, src, head.tag, bytes);
    hc_copy_payload(req->recv_buf, data, req->take); /* 8 bytes, often */
    /* proto_finish_recv, less the device path's question (no device). */
    req->status.bytes = req->take;
    hc_request_complete(req, bytes > req->bytes ? HC_ERR_TRUNCATE : HC_OK);
    return;
  }
  hc_pkt_hdr_t hdr;
  const void *payload = data;
  (void)pkt_decode_short(packet, len, &hdr, &payload); /* checked above */
  if (req == NULL) {
    proto_store_unexpected(ctx, src, &hdr, payload);
    return;
  }
  req->posted = 0;
  proto_deliver(req, src, &hdr, payload, 1);
}

void hc_proto_recv_cb(void *engine, int src_world_rank, const void *packet,
                      size_t len) {
  (void)engine;
  hc_pkt_hdr_t hdr;
  const void *payload;
  if (src_world_rank < 0 || src_world_rank >= hc_engine.npeers) {
    hc_log(HC_LOG_ERROR, "engine", "packet from unknown rank %d",
           src_world_rank);
    return;
  }
  if (len >= sizeof(hc_pkt_short_hdr_t) &&
      *(const uint8_t *)packet == HC_PKT_EAGER_SHORT) {
    proto_on_short(src_world_rank, packet, len);
    return;
  }
  if (hc_pkt_decode(packet, len, &hdr, &payload) != HC_OK) {
    proto_violation(src_world_rank, "malformed packet header");
    return;
  }
  switch (hdr.type) {
  case HC_PKT_EAGER:
  case HC_PKT_RTS:
    proto_on_envelope(src_world_rank, &hdr, payload);
    break;
  case HC_PKT_CTS:
    proto_on_cts(src_world_rank, &hdr, payload);
    break;
  case HC_PKT_DATA:
    proto_on_data(src_world_rank, &hdr, payload);
    break;
  case HC_PKT_FT:
    hc_ft_on_packet(src_world_rank, &hdr, payload);
    break;
  default: /* FIN and ACK both finish the sender */
    proto_on_done(src_world_rank, &hdr);
    break;
  }
}

hc_status_t hc_proto_recv_now(uint32_t match_ctx, int source_world, int tag,
                              void *buf, size_t bytes, hcomm_status_t *status) {
  hc_match_context_t *ctx = &hc_engine.contexts[match_ctx];
  hcomm_message_t *msg =
      (hcomm_message_t *)hc_match_find_unexpected(ctx, source_world, tag, 0);
  /* Rendezvous, truncation and traced receives keep the request path. */
  if (msg == NULL || msg->hdr.type != HC_PKT_EAGER || msg->lost ||
      msg->hdr.total_bytes > bytes || hc_trace_on)
    return HC_ERR_AGAIN;
  hc_match_remove(&ctx->unexpected, &msg->entry);
  if (msg->len > 0)
    hc_copy_payload(buf, msg->data, msg->len);
  status->source = msg->hdr.source;
  status->tag = msg->hdr.tag;
  status->bytes = msg->len;
  status->cancelled = 0;
  status->error = HC_OK;
  if (msg->hdr.flags & HC_PKT_FLAG_SYNC)
    proto_control(msg->hdr.source, HC_PKT_ACK, msg->hdr.sreq, 0, 0);
  free(msg);
  return HC_OK;
}

/* The receive that matched a message whose payload found no memory fails
 * with HC_ERR_NOMEM; the sender is answered as if it had landed (ACK for a
 * synchronous send, FIN for a rendezvous one: the RTS of a device buffer
 * lost its descriptor), so it does not wait for ever either. */
static void proto_deliver_lost(hcomm_request_t *req,
                               const hcomm_message_t *msg) {
  int src = msg->hdr.source;
  req->peer = src;
  req->status.source = hc_comm_rank_of_world(req->comm, src);
  req->status.tag = msg->hdr.tag;
  req->status.bytes = 0;
  if (msg->hdr.type == HC_PKT_RTS)
    proto_control(src, HC_PKT_FIN, msg->hdr.sreq, 0, 0);
  else if (msg->hdr.flags & HC_PKT_FLAG_SYNC)
    proto_control(src, HC_PKT_ACK, msg->hdr.sreq, 0, 0);
  hc_request_complete(req, HC_ERR_NOMEM);
}

void hc_proto_recv_message(hcomm_request_t *req, hcomm_message_t *msg) {
  if (msg->proc_null) {
    req->status.source = HCOMM_PROC_NULL;
    req->status.tag = HCOMM_ANY_TAG;
    req->status.bytes = 0;
    hc_request_complete(req, HC_OK);
    free(msg);
    return;
  }
  if (msg->lost) {
    proto_deliver_lost(req, msg);
    free(msg);
    return;
  }
  proto_deliver(req, msg->hdr.source, &msg->hdr, msg->data, 0);
  free(msg);
}

/* Starts the matched rendezvous receives and the streams that waited for
 * memory.  A stream that still finds none goes back on the list for the
 * next call, so the list is taken whole first. */
static int proto_pending_run(void) {
  int moved = 0;
  hcomm_request_t *todo = hc_engine.pending_head;
  hc_engine.pending_head = hc_engine.pending_tail = NULL;
  while (todo != NULL) {
    hcomm_request_t *req = todo;
    todo = req->next;
    if (req->kind == HC_REQ_SEND) {
      proto_stream_begin(req);
      moved += hc_engine.pending_tail != req; /* else it waits again */
    } else {
      proto_rndv_start(req);
      moved++;
    }
  }
  return moved;
}

int hc_proto_progress(void) {
  int moved = 0;
  if (proto_nspare < PROTO_SPARES)
    proto_spares_refill();
  hc_peer_t **link = &hc_engine.backlogged;
  while (*link != NULL) {
    hc_peer_t *peer = *link;
    moved += proto_drain_peer(peer);
    if (peer->backlog_head == NULL) {
      *link = peer->next_backlogged;
      peer->backlogged = 0;
    } else {
      link = &peer->next_backlogged;
    }
  }
  moved += proto_pending_run();
  if (hc_devpath_nactive > 0)
    moved += hc_devpath_progress();
  return moved;
}

static void proto_unlink_item(hc_peer_t *peer, hc_backlog_item_t *item) {
  hc_backlog_item_t *prev = NULL;
  for (hc_backlog_item_t *it = peer->backlog_head; it != NULL; it = it->next) {
    if (it == item) {
      if (prev != NULL)
        prev->next = it->next;
      else
        peer->backlog_head = it->next;
      if (peer->backlog_tail == it)
        peer->backlog_tail = prev;
      return;
    }
    prev = it;
  }
}

void hc_proto_cancel(hcomm_request_t *req) {
  if (atomic_load(&req->done))
    return;
  if (req->kind == HC_REQ_RECV && req->posted) {
    hc_match_remove(&hc_engine.contexts[req->match_ctx].posted, &req->entry);
    req->posted = 0;
  } else if (req->kind == HC_REQ_SEND && req->backlog_item != NULL) {
    hc_backlog_item_t *item = req->backlog_item;
    proto_unlink_item(&hc_engine.peers[req->peer], item);
    req->backlog_item = NULL;
    proto_item_free(item);
  } else {
    return;
  }
  req->status.cancelled = 1;
  req->status.bytes = 0;
  hc_request_complete(req, HC_OK);
}

int hc_proto_backlogged(void) { return hc_engine.backlogged != NULL; }

void hc_proto_fini(void) {
  for (int c = 0; hc_engine.contexts != NULL && c < HC_MATCH_CONTEXTS; c++) {
    hc_match_context_t *ctx = &hc_engine.contexts[c];
    hc_match_entry_t *e;
    while ((e = hc_match_find_unexpected(ctx, HCOMM_ANY_SOURCE, HCOMM_ANY_TAG,
                                         1)) != NULL)
      free(e);
  }
  for (int r = 0; hc_engine.peers != NULL && r < hc_engine.npeers; r++) {
    hc_peer_t *peer = &hc_engine.peers[r];
    while (peer->backlog_head != NULL) {
      hc_backlog_item_t *item = peer->backlog_head;
      peer->backlog_head = item->next;
      proto_item_free(item);
    }
    peer->backlog_tail = NULL;
  }
  hc_engine.backlogged = NULL;
  while (proto_nspare > 0)
    free(proto_spare[--proto_nspare]);
  hc_devpath_fini();
}
