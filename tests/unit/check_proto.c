/* Packet decoding and request ids: the checks that keep a malformed or
 * stale packet from touching memory.  The receive path tests set the engine
 * up by hand (4 ranks, a transport that records what is sent) and check
 * that a peer breaking the protocol is marked failed and the request it
 * named is left alone. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm/core.h"
#include "hcomm/counters.h"
#include "hcomm/proto.h"
#include "hcomm/request.h"

START_TEST(decode_accepts_header_plus_payload) {
  unsigned char pkt[sizeof(hc_pkt_hdr_t) + 5];
  hc_pkt_hdr_t hdr = {0}, out;
  hdr.type = HC_PKT_EAGER;
  hdr.context = 3;
  hdr.tag = 9;
  hdr.payload_bytes = 5;
  hdr.total_bytes = 5;
  memcpy(pkt, &hdr, sizeof hdr);
  memcpy(pkt + sizeof hdr, "hello", 5);
  const void *payload;
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload), HC_OK);
  ck_assert_int_eq(out.tag, 9);
  ck_assert_uint_eq(out.context, 3);
  ck_assert_mem_eq(payload, "hello", 5);
}
END_TEST

/* The short header of hc_proto_send_now: decoded as a whole EAGER header
 * whose lengths are the packet's, with nobody to answer (sreq 0). */
START_TEST(decode_expands_short_eager_header) {
  unsigned char pkt[sizeof(hc_pkt_short_hdr_t) + 5];
  hc_pkt_short_hdr_t head = {
      .type = HC_PKT_EAGER_SHORT, .context = 3, .tag = 93};
  memcpy(pkt, &head, sizeof head);
  memcpy(pkt + sizeof head, "hello", 5);
  hc_pkt_hdr_t out;
  memset(&out, 0xff, sizeof out);
  const void *payload;
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload), HC_OK);
  ck_assert_uint_eq(out.type, HC_PKT_EAGER);
  ck_assert_uint_eq(out.flags, 0);
  ck_assert_uint_eq(out.context, 3);
  ck_assert_int_eq(out.tag, 93);
  ck_assert_uint_eq(out.payload_bytes, 5);
  ck_assert_uint_eq(out.total_bytes, 5);
  ck_assert_uint_eq(out.sreq, 0);
  ck_assert_mem_eq(payload, "hello", 5);
  /* No payload at all is a message of 0 bytes. */
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof head, &out, &payload), HC_OK);
  ck_assert_uint_eq(out.total_bytes, 0);
  /* Too short for the header, or a context out of range. */
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof head - 1, &out, &payload),
                   HC_ERR_TRANSPORT);
  head.context = HC_MATCH_CONTEXTS;
  memcpy(pkt, &head, sizeof head);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload),
                   HC_ERR_TRANSPORT);
}
END_TEST

/* hc_pkt_decode refuses len bytes of pkt as malformed. */
static void expect_malformed(const void *pkt, size_t len) {
  hc_pkt_hdr_t out;
  const void *payload;
  ck_assert_int_eq(hc_pkt_decode(pkt, len, &out, &payload), HC_ERR_TRANSPORT);
}

START_TEST(decode_expands_compact_fin_and_ack) {
  hc_pkt_done_hdr_t done = {
      .type = HC_PKT_DONE_SHORT, .done = HC_PKT_FIN, .sreq = 0x1234567890ull};
  unsigned char pkt[sizeof done + 1];
  memcpy(pkt, &done, sizeof done);
  hc_pkt_hdr_t out;
  memset(&out, 0xff, sizeof out);
  const void *payload;
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof done, &out, &payload), HC_OK);
  ck_assert_uint_eq(out.type, HC_PKT_FIN);
  ck_assert_uint_eq(out.sreq, 0x1234567890ull);
  ck_assert_uint_eq(out.flags, 0);
  ck_assert_uint_eq(out.context, 0);
  ck_assert_uint_eq(out.payload_bytes, 0);
  ck_assert_uint_eq(out.total_bytes, 0);
  done.done = HC_PKT_ACK;
  memcpy(pkt, &done, sizeof done);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof done, &out, &payload), HC_OK);
  ck_assert_uint_eq(out.type, HC_PKT_ACK);
  /* Another length, or a type other than FIN and ACK, is malformed. */
  expect_malformed(pkt, sizeof done - 1);
  expect_malformed(pkt, sizeof pkt);
  done.done = HC_PKT_CTS;
  memcpy(pkt, &done, sizeof done);
  expect_malformed(pkt, sizeof done);
}
END_TEST

START_TEST(decode_rejects_malformed) {
  unsigned char pkt[sizeof(hc_pkt_hdr_t) + 8];
  hc_pkt_hdr_t hdr = {0}, out;
  const void *payload;
  hdr.type = HC_PKT_DATA;
  hdr.payload_bytes = 8;
  memcpy(pkt, &hdr, sizeof hdr);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload), HC_OK);
  /* Short packet, wrong length, bad type, context out of range. */
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof hdr - 1, &out, &payload),
                   HC_ERR_TRANSPORT);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt - 1, &out, &payload),
                   HC_ERR_TRANSPORT);
  hdr.type = 0;
  memcpy(pkt, &hdr, sizeof hdr);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload),
                   HC_ERR_TRANSPORT);
  hdr.type = HC_PKT_TYPE_MAX + 1;
  memcpy(pkt, &hdr, sizeof hdr);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload),
                   HC_ERR_TRANSPORT);
  hdr.type = HC_PKT_EAGER;
  hdr.context = HC_MATCH_CONTEXTS;
  memcpy(pkt, &hdr, sizeof hdr);
  ck_assert_int_eq(hc_pkt_decode(pkt, sizeof pkt, &out, &payload),
                   HC_ERR_TRANSPORT);
}
END_TEST

START_TEST(request_ids_go_stale_on_reuse) {
  hcomm_request_t *a = hc_request_alloc(HC_REQ_RECV);
  ck_assert_ptr_nonnull(a);
  uint64_t id = hc_request_id(a);
  ck_assert_ptr_eq(hc_request_lookup(id), a);
  hc_request_complete(a, HC_OK);
  ck_assert_ptr_null(hc_request_lookup(id)); /* completed: no more packets */
  hc_request_release(a);
  hcomm_request_t *b = hc_request_alloc(HC_REQ_RECV);
  ck_assert_ptr_eq(a, b); /* the freelist reuses the object ... */
  ck_assert_ptr_null(hc_request_lookup(id)); /* ... under a new generation */
  ck_assert_ptr_eq(hc_request_lookup(hc_request_id(b)), b);
  ck_assert_ptr_null(hc_request_lookup(((uint64_t)1 << 32) | 999999u));
  hc_request_complete(b, HC_OK);
  hc_request_release(b);
}
END_TEST

START_TEST(many_requests_are_distinct_and_recycled) {
  enum { N = 10000 };
  hcomm_request_t **r = malloc(N * sizeof *r);
  for (int i = 0; i < N; i++) {
    r[i] = hc_request_alloc(HC_REQ_SEND);
    ck_assert_ptr_nonnull(r[i]);
  }
  ck_assert_int_eq(hc_request_active_sends(), N);
  for (int i = 0; i < N; i++)
    ck_assert_ptr_eq(hc_request_lookup(hc_request_id(r[i])), r[i]);
  for (int i = 0; i < N; i++) {
    r[i]->user_freed = 1; /* freed while active: released at completion */
    hc_request_complete(r[i], HC_OK);
    ck_assert(r[i]->released);
  }
  ck_assert_int_eq(hc_request_active_sends(), 0);
  free(r);
}
END_TEST

/* ---- the receive path against a hand-built engine ---- */

#define PT_RANKS 4
#define PT_BIG 20000 /* above any eager limit of pt_ops */

static size_t pt_data_bytes; /* DATA payload bytes the transport was given */
static int pt_sends;

static hc_status_t pt_send(void *ctx, int peer, const struct iovec *iov,
                           int iovcnt) {
  (void)ctx, (void)peer;
  hc_pkt_hdr_t hdr;
  memcpy(&hdr, iov[0].iov_base, sizeof hdr);
  pt_sends++;
  if (hdr.type == HC_PKT_DATA && iovcnt > 1)
    pt_data_bytes += iov[1].iov_len;
  return HC_OK;
}

static size_t pt_max_packet(void *ctx) {
  (void)ctx;
  return 8192;
}

static const hc_transport_ops_t pt_ops = {
    .name = "unit",
    .send = pt_send,
    .max_packet = pt_max_packet,
    .get = hc_transport_get_not_supported,
};
/* The peers' engine entry; not on the engine's list, so never polled. */
static hc_engine_transport_t pt_via = {.ops = &pt_ops};

/* Each test runs in its own forked process, so this state starts fresh. */
static void pt_engine(void) {
  hc_engine.world_size = PT_RANKS;
  hc_engine.npeers = PT_RANKS; /* no run-time peers */
  hc_engine.world_rank = 0;
  hc_engine.contexts = calloc(HC_MATCH_CONTEXTS, sizeof(hc_match_context_t));
  hc_engine.peers = calloc(PT_RANKS, sizeof(hc_peer_t));
  ck_assert(hc_engine.contexts != NULL && hc_engine.peers != NULL);
  for (int c = 0; c < HC_MATCH_CONTEXTS; c++)
    hc_match_context_init(&hc_engine.contexts[c]);
  for (int r = 0; r < PT_RANKS; r++) {
    hc_engine.peers[r].world_rank = r;
    hc_engine.peers[r].ops = &pt_ops;
    hc_engine.peers[r].via = &pt_via;
    hc_proto_peer_setup(&hc_engine.peers[r]);
  }
  hc_engine.initialized = 1;
}

static void pt_deliver(int src, hc_pkt_hdr_t *hdr, const void *payload) {
  unsigned char pkt[sizeof *hdr + 64];
  ck_assert_uint_le(hdr->payload_bytes, 64);
  memcpy(pkt, hdr, sizeof *hdr);
  if (hdr->payload_bytes > 0)
    memcpy(pkt + sizeof *hdr, payload, hdr->payload_bytes);
  hc_proto_recv_cb(&hc_engine, src, pkt, sizeof *hdr + hdr->payload_bytes);
}

/* Only rank bad (or none, -1) is marked failed. */
static void pt_expect_failed(int bad) {
  for (int r = 0; r < PT_RANKS; r++)
    ck_assert_msg(hc_engine.peers[r].failed == (r == bad),
                  "rank %d failed=%d, want %d", r, hc_engine.peers[r].failed,
                  r == bad);
}

static hcomm_request_t *pt_send_req(int peer, size_t bytes, int mode) {
  static unsigned char buf[PT_BIG];
  hcomm_request_t *req = hc_request_alloc(HC_REQ_SEND);
  ck_assert_ptr_nonnull(req);
  req->peer = peer;
  req->send_buf = buf;
  req->bytes = bytes;
  req->mode = mode;
  /* The protocol hc_proto_send chose for it. */
  req->rndv = bytes > hc_engine.peers[peer].eager_limit;
  return req;
}

/* A matched rendezvous receive from peer waiting for 16 DATA bytes. */
static hcomm_request_t *pt_recv_req(int peer, unsigned char *buf) {
  hcomm_request_t *req = hc_request_alloc(HC_REQ_RECV);
  ck_assert_ptr_nonnull(req);
  req->peer = peer;
  req->recv_buf = buf;
  req->bytes = req->total = req->take = 16;
  req->remote_id = 77;
  return req;
}

static hc_pkt_hdr_t pt_hdr(hc_pkt_type_t type, uint64_t sreq, uint64_t rreq) {
  hc_pkt_hdr_t hdr = {0};
  hdr.type = (uint8_t)type;
  hdr.sreq = sreq;
  hdr.rreq = rreq;
  return hdr;
}

START_TEST(malformed_header_fails_that_peer) {
  pt_engine();
  unsigned char junk[sizeof(hc_pkt_hdr_t)] = {0};
  hc_proto_recv_cb(&hc_engine, 2, junk, 3); /* shorter than a header */
  pt_expect_failed(2);
  ck_assert_int_eq(hc_engine.failed_peers, 1);
  ck_assert_int_eq(hc_engine.failures_pending, 1);
  /* A bad type from another peer fails that one too. */
  junk[0] = HC_PKT_TYPE_MAX + 1;
  hc_proto_recv_cb(&hc_engine, 3, junk, sizeof junk);
  ck_assert_int_eq(hc_engine.peers[3].failed, 1);
  /* An impossible source names nobody: nothing marked, no crash. */
  hc_proto_recv_cb(&hc_engine, PT_RANKS, junk, 3);
  hc_proto_recv_cb(&hc_engine, -1, junk, 3);
  ck_assert_int_eq(hc_engine.failed_peers, 2);
}
END_TEST

START_TEST(cts_must_come_from_the_destination) {
  pt_engine();
  hcomm_request_t *req = pt_send_req(1, PT_BIG, HCOMM_SEND_STANDARD);
  hc_pkt_hdr_t cts = pt_hdr(HC_PKT_CTS, hc_request_id(req), 55);
  cts.total_bytes = PT_BIG;
  pt_deliver(2, &cts, NULL);
  pt_expect_failed(2);
  ck_assert_int_eq(pt_sends, 0);
  ck_assert_int_eq(atomic_load(&req->done), 0);
  /* From its own peer the whole buffer streams and the send completes. */
  pt_deliver(1, &cts, NULL);
  ck_assert_uint_eq(pt_data_bytes, PT_BIG);
  ck_assert_int_eq(atomic_load(&req->done), 1);
  ck_assert_int_eq(hc_engine.peers[1].failed, 0);
}
END_TEST

START_TEST(cts_for_an_eager_send_or_too_many_bytes_is_refused) {
  pt_engine();
  hcomm_request_t *eager = pt_send_req(1, 100, HCOMM_SEND_SYNC);
  hc_pkt_hdr_t cts = pt_hdr(HC_PKT_CTS, hc_request_id(eager), 55);
  cts.total_bytes = 100;
  pt_deliver(1, &cts, NULL);
  pt_expect_failed(1);
  ck_assert_int_eq(atomic_load(&eager->done), 0);
  hcomm_request_t *big = pt_send_req(2, PT_BIG, HCOMM_SEND_STANDARD);
  cts = pt_hdr(HC_PKT_CTS, hc_request_id(big), 56);
  cts.total_bytes = PT_BIG + 1; /* would stream past the send buffer */
  pt_deliver(2, &cts, NULL);
  ck_assert_int_eq(hc_engine.peers[2].failed, 1);
  ck_assert_int_eq(pt_sends, 0);
  ck_assert_int_eq(atomic_load(&big->done), 0);
}
END_TEST

START_TEST(data_must_match_owner_state_and_bounds) {
  pt_engine();
  unsigned char buf[16] = {0}, zero[16] = {0};
  hcomm_request_t *req = pt_recv_req(1, buf);
  hc_pkt_hdr_t data = pt_hdr(HC_PKT_DATA, 0, hc_request_id(req));
  data.payload_bytes = 8;
  pt_deliver(3, &data, "AAAAAAAA"); /* another peer's receive */
  pt_expect_failed(3);
  data.offset = 12; /* 12 + 8 > 16 */
  pt_deliver(1, &data, "BBBBBBBB");
  ck_assert_int_eq(hc_engine.peers[1].failed, 1);
  ck_assert_mem_eq(buf, zero, sizeof buf);
  ck_assert_uint_eq(req->landed, 0);
  /* A receive still posted (no match, so no rendezvous yet). */
  unsigned char buf2[16] = {0};
  hcomm_request_t *posted = pt_recv_req(2, buf2);
  posted->posted = 1;
  data = pt_hdr(HC_PKT_DATA, 0, hc_request_id(posted));
  data.payload_bytes = 8;
  pt_deliver(2, &data, "CCCCCCCC");
  ck_assert_int_eq(hc_engine.peers[2].failed, 1);
  ck_assert_mem_eq(buf2, zero, sizeof buf2);
  ck_assert_int_eq(atomic_load(&posted->done), 0);
}
END_TEST

START_TEST(data_from_the_owner_lands_and_completes) {
  pt_engine();
  unsigned char buf[16] = {0};
  hcomm_request_t *req = pt_recv_req(1, buf);
  hc_pkt_hdr_t data = pt_hdr(HC_PKT_DATA, 0, hc_request_id(req));
  data.payload_bytes = 8;
  data.offset = 8;
  pt_deliver(1, &data, "01234567");
  ck_assert_int_eq(atomic_load(&req->done), 0);
  data.offset = 0;
  pt_deliver(1, &data, "abcdefgh");
  ck_assert_mem_eq(buf, "abcdefgh01234567", 16);
  ck_assert_int_eq(atomic_load(&req->done), 1);
  ck_assert_int_eq(req->status.error, HC_OK);
  pt_expect_failed(-1);
}
END_TEST

START_TEST(fin_and_ack_must_fit_the_send) {
  pt_engine();
  hcomm_request_t *rndv = pt_send_req(1, PT_BIG, HCOMM_SEND_SYNC);
  hcomm_request_t *eager = pt_send_req(2, 10, HCOMM_SEND_SYNC);
  hc_pkt_hdr_t fin = pt_hdr(HC_PKT_FIN, hc_request_id(rndv), 0);
  pt_deliver(3, &fin, NULL); /* not rndv's destination */
  pt_expect_failed(3);
  hc_pkt_hdr_t ack = pt_hdr(HC_PKT_ACK, hc_request_id(rndv), 0);
  pt_deliver(1, &ack, NULL); /* ACK is for eager synchronous sends */
  ck_assert_int_eq(hc_engine.peers[1].failed, 1);
  fin = pt_hdr(HC_PKT_FIN, hc_request_id(eager), 0);
  pt_deliver(2, &fin, NULL); /* FIN is for rendezvous sends */
  ck_assert_int_eq(hc_engine.peers[2].failed, 1);
  ck_assert_int_eq(atomic_load(&rndv->done), 0);
  ck_assert_int_eq(atomic_load(&eager->done), 0);
  /* The right packet from the right peer finishes each. */
  ack = pt_hdr(HC_PKT_ACK, hc_request_id(eager), 0);
  pt_deliver(2, &ack, NULL);
  fin = pt_hdr(HC_PKT_FIN, hc_request_id(rndv), 0);
  pt_deliver(1, &fin, NULL);
  ck_assert_int_eq(atomic_load(&rndv->done), 1);
  ck_assert_int_eq(atomic_load(&eager->done), 1);
}
END_TEST

/* The compact FIN and ACK (16 bytes, HC_PKT_DONE_SHORT) finish sends as
 * the full ones do, and are checked against the send as strictly. */
START_TEST(compact_fin_and_ack_finish_their_sends) {
  pt_engine();
  hcomm_request_t *rndv = pt_send_req(1, PT_BIG, HCOMM_SEND_STANDARD);
  hcomm_request_t *eager = pt_send_req(2, 10, HCOMM_SEND_SYNC);
  hc_pkt_done_hdr_t fin = {.type = HC_PKT_DONE_SHORT,
                           .done = HC_PKT_FIN,
                           .sreq = hc_request_id(eager)};
  hc_proto_recv_cb(&hc_engine, 2, &fin, sizeof fin); /* FIN for eager */
  pt_expect_failed(2);
  ck_assert_int_eq(atomic_load(&eager->done), 0);
  fin.sreq = hc_request_id(rndv);
  hc_proto_recv_cb(&hc_engine, 1, &fin, sizeof fin);
  ck_assert_int_eq(atomic_load(&rndv->done), 1);
  ck_assert_int_eq(rndv->status.error, HC_OK);
  hcomm_request_t *sync = pt_send_req(3, 10, HCOMM_SEND_SYNC);
  hc_pkt_done_hdr_t ack = {.type = HC_PKT_DONE_SHORT,
                           .done = HC_PKT_ACK,
                           .sreq = hc_request_id(sync)};
  hc_proto_recv_cb(&hc_engine, 3, &ack, sizeof ack);
  ck_assert_int_eq(atomic_load(&sync->done), 1);
  ck_assert_int_eq(hc_engine.peers[1].failed, 0);
  ck_assert_int_eq(hc_engine.peers[3].failed, 0);
}
END_TEST

START_TEST(stale_request_id_is_dropped_quietly) {
  pt_engine();
  hcomm_request_t *req = pt_send_req(1, PT_BIG, HCOMM_SEND_STANDARD);
  uint64_t id = hc_request_id(req);
  hc_request_complete(req, HC_ERR_PEER_DEAD);
  hc_pkt_hdr_t fin = pt_hdr(HC_PKT_FIN, id, 0);
  pt_deliver(1, &fin, NULL);
  /* A late packet for a request that already ended is no violation. */
  pt_expect_failed(-1);
  ck_assert_int_eq(req->status.error, HC_ERR_PEER_DEAD);
}
END_TEST

/* The eager limit may change (MPI_T's HCMPI_EAGER_LIMIT) while sends are
 * in flight: each keeps the protocol it left with, so the answers it gets
 * are no violation. */
START_TEST(sends_keep_their_protocol_when_the_eager_limit_changes) {
  pt_engine();
  hcomm_request_t *eager = pt_send_req(1, 100, HCOMM_SEND_SYNC);
  hcomm_request_t *rndv = pt_send_req(2, 4000, HCOMM_SEND_STANDARD);
  ck_assert_int_eq(rndv->rndv, 0); /* 4000 fits the default limit */
  rndv->rndv = 1;                  /* as if it left while the limit was low */
  hc_proto_set_eager_limit(50);
  ck_assert_uint_eq(hc_engine.peers[1].eager_limit, 50);
  hc_pkt_hdr_t ack = pt_hdr(HC_PKT_ACK, hc_request_id(eager), 0);
  pt_deliver(1, &ack, NULL);
  hc_proto_set_eager_limit(8000);
  hc_pkt_hdr_t cts = pt_hdr(HC_PKT_CTS, hc_request_id(rndv), 57);
  cts.total_bytes = 4000;
  pt_deliver(2, &cts, NULL);
  pt_expect_failed(-1);
  ck_assert_int_eq(atomic_load(&eager->done), 1);
  ck_assert_int_eq(atomic_load(&rndv->done), 1);
  ck_assert_uint_eq(pt_data_bytes, 4000);
}
END_TEST

int main(void) {
  Suite *s = suite_create("proto");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, decode_accepts_header_plus_payload);
  tcase_add_test(tc, decode_expands_short_eager_header);
  tcase_add_test(tc, decode_expands_compact_fin_and_ack);
  tcase_add_test(tc, decode_rejects_malformed);
  tcase_add_test(tc, request_ids_go_stale_on_reuse);
  tcase_add_test(tc, many_requests_are_distinct_and_recycled);
  tcase_add_test(tc, malformed_header_fails_that_peer);
  tcase_add_test(tc, cts_must_come_from_the_destination);
  tcase_add_test(tc, cts_for_an_eager_send_or_too_many_bytes_is_refused);
  tcase_add_test(tc, data_must_match_owner_state_and_bounds);
  tcase_add_test(tc, data_from_the_owner_lands_and_completes);
  tcase_add_test(tc, fin_and_ack_must_fit_the_send);
  tcase_add_test(tc, compact_fin_and_ack_finish_their_sends);
  tcase_add_test(tc, stale_request_id_is_dropped_quietly);
  tcase_add_test(tc, sends_keep_their_protocol_when_the_eager_limit_changes);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
