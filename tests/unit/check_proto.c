/* Packet decoding and request ids: the checks that keep a malformed or
 * stale packet from touching memory. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  Suite *s = suite_create("proto");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, decode_accepts_header_plus_payload);
  tcase_add_test(tc, decode_rejects_malformed);
  tcase_add_test(tc, request_ids_go_stale_on_reuse);
  tcase_add_test(tc, many_requests_are_distinct_and_recycled);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
