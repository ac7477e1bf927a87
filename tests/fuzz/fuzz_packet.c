/* libFuzzer target: packets from a peer, whole receive path.  The engine is
 * set up by hand (4 ranks, a transport that swallows sends), with one live
 * send and one live receive request whose ids the fuzzer can hit, so CTS,
 * DATA, FIN and ACK reach real requests; EAGER and RTS land unexpected.
 * Input: byte 0 picks the source rank (5 values: one is out of range) and
 * whether to fix the header's length up, the rest is the packet. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/core.h"
#include "hcomm/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_RANKS 4

/* Above the eager limit of fz_ops, so CTS and FIN are what it waits for. */
static unsigned char fz_sendbuf[12000];
static unsigned char fz_recvbuf[1000];
static hcomm_request_t *fz_send_req, *fz_recv_req;

static hc_status_t fz_send(void *ctx, int peer, const struct iovec *iov,
                           int iovcnt) {
  (void)ctx, (void)peer, (void)iov, (void)iovcnt;
  return HC_OK;
}

static size_t fz_max_packet(void *ctx) {
  (void)ctx;
  return 8192;
}

static const hc_transport_ops_t fz_ops = {
    .name = "fuzz",
    .send = fz_send,
    .max_packet = fz_max_packet,
    .get = hc_transport_get_not_supported,
};
/* The peers' engine entry; not on the engine's list, so never polled. */
static hc_engine_transport_t fz_via = {.ops = &fz_ops};

static void fz_setup(void) {
  hc_engine.world_size = FZ_RANKS;
  hc_engine.world_rank = 0;
  hc_engine.contexts = calloc(HC_MATCH_CONTEXTS, sizeof(hc_match_context_t));
  hc_engine.peers = calloc(FZ_RANKS, sizeof(hc_peer_t));
  if (hc_engine.contexts == NULL || hc_engine.peers == NULL)
    abort();
  for (int c = 0; c < HC_MATCH_CONTEXTS; c++)
    hc_match_context_init(&hc_engine.contexts[c]);
  for (int r = 0; r < FZ_RANKS; r++) {
    hc_engine.peers[r].world_rank = r;
    hc_engine.peers[r].ops = &fz_ops;
    hc_engine.peers[r].via = &fz_via;
    hc_proto_peer_setup(&hc_engine.peers[r]);
  }
  hc_engine.initialized = 1;
}

/* Live requests in a known state: a rendezvous send to rank 1 waiting for
 * CTS/FIN, a matched receive from rank 1 waiting for DATA. */
static void fz_requests(void) {
  if (fz_send_req == NULL || atomic_load(&fz_send_req->done)) {
    if (fz_send_req != NULL)
      hc_request_release(fz_send_req);
    fz_send_req = hc_request_alloc(HC_REQ_SEND);
    fz_send_req->peer = 1;
    fz_send_req->send_buf = fz_sendbuf;
    fz_send_req->bytes = sizeof fz_sendbuf;
  }
  if (fz_recv_req == NULL || atomic_load(&fz_recv_req->done)) {
    if (fz_recv_req != NULL)
      hc_request_release(fz_recv_req);
    fz_recv_req = hc_request_alloc(HC_REQ_RECV);
    fz_recv_req->peer = 1;
    fz_recv_req->recv_buf = fz_recvbuf;
    fz_recv_req->bytes = sizeof fz_recvbuf;
    fz_recv_req->total = sizeof fz_recvbuf;
    fz_recv_req->take = sizeof fz_recvbuf;
    fz_recv_req->remote_id = 1; /* matched to a rendezvous: DATA may land */
  }
}

/* Unexpected messages would pile up across inputs; only the context the
 * packet named can hold one. */
static void fz_drop_unexpected(const uint8_t *packet, size_t len) {
  hc_pkt_hdr_t hdr;
  if (len < sizeof hdr)
    return;
  memcpy(&hdr, packet, sizeof hdr);
  if (hdr.context >= HC_MATCH_CONTEXTS)
    return;
  hc_match_entry_t *e;
  while ((e = hc_match_find_unexpected(&hc_engine.contexts[hdr.context],
                                       HCOMM_ANY_SOURCE, HCOMM_ANY_TAG, 1)))
    free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  if (!ready) {
    setenv("HCMPI_LOG", "none", 1); /* malformed input is the normal case */
    fz_setup();
    ready = 1;
  }
  if (size < 1)
    return 0;
  fz_requests();
  int src = (data[0] & 0x7f) % (FZ_RANKS + 1);
  static uint8_t packet[1 << 16];
  size_t len = size - 1 < sizeof packet ? size - 1 : sizeof packet;
  memcpy(packet, data + 1, len);
  /* Bit 7: make payload_bytes agree with the length, which lets the
   * fuzzer past the first check and into each packet type's own. */
  hc_pkt_hdr_t hdr;
  if ((data[0] & 0x80) && len >= sizeof hdr) {
    memcpy(&hdr, packet, sizeof hdr);
    hdr.payload_bytes = len - sizeof hdr;
    memcpy(packet, &hdr, sizeof hdr);
  }
  hc_proto_recv_cb(&hc_engine, src, packet, len);
  hc_proto_progress();
  fz_drop_unexpected(packet, len);
  return 0;
}
