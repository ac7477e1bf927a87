/*
 * Wire format and protocols (eager, synchronous, rendezvous by CMA get or by
 * pipelined DATA packets, per-peer backlog).  See docs/engine.md.
 */
#ifndef HC_PROTO_H
#define HC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "hcomm.h"
#include "hcomm/core.h"

typedef enum hc_pkt_type {
  HC_PKT_EAGER = 1, /* envelope + the whole message */
  HC_PKT_RTS = 2,   /* envelope + size + sender address + sender request */
  HC_PKT_CTS = 3,   /* receiver takes total_bytes; stream them as DATA */
  HC_PKT_DATA = 4,  /* one fragment at offset for receiver request rreq */
  HC_PKT_FIN = 5,   /* receiver finished its get: sender request done */
  HC_PKT_ACK = 6,   /* synchronous eager send matched */
  HC_PKT_FT = 7,    /* fault tolerance (ft.c): revoke, agreement votes */
  HC_PKT_TYPE_MAX = 7
} hc_pkt_type_t;

#define HC_PKT_FLAG_SYNC 0x1

/* An eager standard send that nobody answers (hc_proto_send_now) travels
 * with this short header instead, so that a small message fits a
 * transport's smallest slot (shm's fast box): the source is the one the
 * transport reports, both lengths are what follows the header, sreq is 0.
 * Its type byte lies outside hc_pkt_type_t, and decoding turns it into an
 * HC_PKT_EAGER header, so nothing past hc_pkt_decode sees it, but for the
 * receive callback, which lands it in a posted host receive without
 * decoding (proto.c, proto_on_short). */
#define HC_PKT_EAGER_SHORT 0x81
typedef struct hc_pkt_short_hdr {
  uint8_t type; /* HC_PKT_EAGER_SHORT */
  uint8_t reserved[3];
  uint32_t context;
  int32_t tag;
  uint32_t reserved2; /* keeps the payload 8-byte aligned */
} hc_pkt_short_hdr_t;

/* A FIN or an ACK whole: it names only the send it ends, so 16 bytes
 * instead of a full header's 64 (with the shm fast box's header, one cache
 * line to cross instead of two). */
#define HC_PKT_DONE_SHORT 0x82
typedef struct hc_pkt_done_hdr {
  uint8_t type; /* HC_PKT_DONE_SHORT */
  uint8_t done; /* HC_PKT_FIN or HC_PKT_ACK */
  uint8_t reserved[6];
  uint64_t sreq;
} hc_pkt_done_hdr_t;

typedef struct hc_pkt_hdr {
  uint8_t type;
  uint8_t flags;
  uint16_t reserved;
  uint32_t context; /* matching context index */
  int32_t source;   /* sender's world rank */
  int32_t tag;
  uint64_t payload_bytes; /* bytes after the header in this packet */
  uint64_t total_bytes;   /* whole message (RTS/EAGER); bytes taken (CTS) */
  uint64_t sreq;          /* sender request id */
  uint64_t rreq;          /* receiver request id */
  uint64_t addr;          /* sender buffer address (RTS) */
  uint64_t offset;        /* fragment offset (DATA) */
} hc_pkt_hdr_t;

/* Checks a received packet and copies its header out (a short header
 * expanded; its source left 0); HC_ERR_TRANSPORT when it is malformed.
 * *payload points into packet. */
hc_status_t hc_pkt_decode(const void *packet, size_t len, hc_pkt_hdr_t *hdr,
                          const void **payload);

/* An unexpected message; also the hcomm_message_t of a matched probe. */
struct hcomm_message {
  hc_match_entry_t entry;
  hc_pkt_hdr_t hdr;
  int proc_null; /* from a probe of HCOMM_PROC_NULL */
  int lost;      /* no memory held the payload: its receive fails (NOMEM) */
  hcomm_comm_t *comm;
  size_t len; /* eager bytes stored in data */
  unsigned char data[];
};

/* Per-peer limits from the peer's transport. */
void hc_proto_peer_setup(hc_peer_t *peer);
/* The transport receive callback. */
void hc_proto_recv_cb(void *engine, int src_world_rank, const void *packet,
                      size_t len);
/* The transport's place_cb and placed_cb (see transport.h): DATA payloads
 * for host receive buffers read in place; the head is an hc_pkt_hdr_t. */
int hc_proto_place_cb(void *engine, int src_world_rank, const void *head,
                      size_t packet_len, void **dst);
void hc_proto_placed_cb(void *engine, int src_world_rank, const void *head);
/* Starts a send request (fields filled); completes it on error. */
void hc_proto_send(hcomm_request_t *req);
/* An eager standard send without a request, to world rank peer: HC_OK when
 * the packet left at once, HC_ERR_AGAIN when the request path must run
 * (too large, queued packets ahead of it, full queue, dead peer). */
hc_status_t hc_proto_send_now(int peer, uint32_t match_ctx, int tag,
                              const void *buf, size_t bytes);
/* A receive without a request from world rank source_world (or
 * HCOMM_ANY_SOURCE): HC_OK when the oldest unexpected message it accepts
 * is eager and fits in bytes; it is then copied to buf, answered if
 * synchronous, and gone (status source is the world rank).  HC_ERR_AGAIN
 * otherwise, with nothing changed. */
hc_status_t hc_proto_recv_now(uint32_t match_ctx, int source_world, int tag,
                              void *buf, size_t bytes, hcomm_status_t *status);
/* Receives a message taken by a matched probe; frees msg. */
void hc_proto_recv_message(hcomm_request_t *req, hcomm_message_t *msg);
/* Posts a receive to ctx (its matching context) that no unexpected
 * message matched. */
static inline void hc_proto_recv_post(hc_match_context_t *ctx,
                                      hcomm_request_t *req, int source_world) {
  hc_match_post(ctx, &req->entry, source_world, req->tag);
  req->posted = 1;
}
/* Starts a receive: matches an unexpected message or posts it.  Inline:
 * called, it cost every MPI_Irecv a frame (bench/NOTES.md, recv17). */
static inline void hc_proto_recv(hcomm_request_t *req, int source_world) {
  hc_match_context_t *ctx = &hc_engine.contexts[req->match_ctx];
  /* An empty unexpected queue (the usual case when receives are posted
   * ahead) is seen without the search's call. */
  hc_match_entry_t *e =
      ctx->unexpected.head == NULL
          ? NULL
          : hc_match_find_unexpected(ctx, source_world, req->tag, 1);
  if (e != NULL) {
    hc_proto_recv_message(req, (hcomm_message_t *)e);
    return;
  }
  hc_proto_recv_post(ctx, req, source_world);
}
/* Drains backlogs and starts matched rendezvous receives; returns how much
 * moved. */
int hc_proto_progress(void);
/* Cancels req if still possible (see hcomm_cancel). */
void hc_proto_cancel(hcomm_request_t *req);
/* 1 while any peer still has queued packets. */
int hc_proto_backlogged(void);
/* Device path (devpath.c) hooks: FIN for sender request sreq on world rank
 * peer; completion of a receive whose bytes all landed. */
void hc_proto_send_fin(int peer, uint64_t sreq);
/* Device path: sends a control packet built by the caller (hdr->type, flags
 * and fields set; source and payload_bytes filled here), queued behind the
 * peer's backlog like any other; payload must stay valid until sent. */
void hc_proto_send_ctl(int peer, hc_pkt_hdr_t *hdr, const void *payload,
                       size_t len);
void hc_proto_finish_recv(hcomm_request_t *req);
/* Fault tolerance (ft.c): a header-only packet built like
 * hc_proto_send_ctl's, whose payload is copied when it has to wait in the
 * backlog (the caller's buffer may go at once); dropped for a failed peer. */
void hc_proto_send_ft(int peer, hc_pkt_hdr_t *hdr, const void *payload,
                      size_t len);
/* Frees unexpected messages and backlogs (finalize). */
void hc_proto_fini(void);

#endif /* HC_PROTO_H */
