/*
 * The self transport: FIFO order, gathering of iov pieces, a send from
 * inside recv_cb delivered by a later progress call (no recursion), get,
 * and the limits it reports.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

#define SELF_RANK 3

typedef struct self_probe {
  void *ctx;
  int calls;
  int depth;     /* recv_cb nesting right now */
  int max_depth; /* deepest nesting seen */
  int echo_left; /* packets recv_cb still sends to itself */
  uint32_t seen[64];
  int bad_src;
} self_probe_t;

static void self_probe_cb(void *engine, int src, const void *packet,
                          size_t len) {
  self_probe_t *probe = engine;
  probe->depth++;
  if (probe->depth > probe->max_depth)
    probe->max_depth = probe->depth;
  if (src != SELF_RANK || len != sizeof(uint32_t))
    probe->bad_src++;
  uint32_t value;
  memcpy(&value, packet, sizeof value);
  if (probe->calls < 64)
    probe->seen[probe->calls] = value;
  probe->calls++;
  if (probe->echo_left > 0) {
    probe->echo_left--;
    uint32_t next = value + 1000;
    struct iovec iov = {&next, sizeof next};
    hc_transport_self_ops.send(probe->ctx, SELF_RANK, &iov, 1);
  }
  probe->depth--;
}

static void *self_open(self_probe_t *probe) {
  int ranks[1] = {SELF_RANK};
  hc_transport_init_args_t args = {.world_rank = SELF_RANK,
                                   .world_size = 8,
                                   .local_rank = 0,
                                   .local_size = 1,
                                   .local_world_ranks = ranks,
                                   .recv_cb = self_probe_cb,
                                   .engine = probe};
  memset(probe, 0, sizeof *probe);
  ck_assert_int_eq(hc_transport_self_ops.init(&args, &probe->ctx), HC_OK);
  return probe->ctx;
}

static void self_send_u32(void *ctx, uint32_t value) {
  struct iovec iov[2] = {{&value, 1}, {(char *)&value + 1, 3}};
  ck_assert_int_eq(hc_transport_self_ops.send(ctx, SELF_RANK, iov, 2), HC_OK);
}

START_TEST(test_self_delivers_in_send_order) {
  self_probe_t probe;
  void *ctx = self_open(&probe);
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 0);
  for (uint32_t i = 0; i < 40; i++)
    self_send_u32(ctx, i);
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 40);
  ck_assert_int_eq(probe.calls, 40);
  ck_assert_int_eq(probe.bad_src, 0);
  for (uint32_t i = 0; i < 40; i++)
    ck_assert_uint_eq(probe.seen[i], i);
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 0);
  hc_transport_self_ops.fini(ctx);
}
END_TEST

START_TEST(test_self_send_inside_callback_waits_for_next_progress) {
  self_probe_t probe;
  void *ctx = self_open(&probe);
  probe.echo_left = 2;
  self_send_u32(ctx, 1);
  self_send_u32(ctx, 2);
  /* Both queued packets go now; their echoes come on the next call. */
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 2);
  ck_assert_int_eq(probe.max_depth, 1);
  ck_assert_uint_eq(probe.seen[0], 1);
  ck_assert_uint_eq(probe.seen[1], 2);
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 2);
  ck_assert_uint_eq(probe.seen[2], 1001);
  ck_assert_uint_eq(probe.seen[3], 1002);
  ck_assert_int_eq(probe.max_depth, 1);
  ck_assert_int_eq(hc_transport_self_ops.progress(ctx), 0);
  hc_transport_self_ops.fini(ctx);
}
END_TEST

START_TEST(test_self_get_limits_and_other_ranks) {
  self_probe_t probe;
  void *ctx = self_open(&probe);
  char src[100], dst[100];
  for (int i = 0; i < 100; i++)
    src[i] = (char)(i * 3);
  ck_assert_int_eq(hc_transport_self_ops.get(ctx, SELF_RANK, dst,
                                             (uint64_t)(uintptr_t)src, 100),
                   HC_OK);
  ck_assert_mem_eq(dst, src, 100);
  size_t max = hc_transport_self_ops.max_packet(ctx);
  ck_assert_uint_ge(max, (size_t)1 << 20);
  void *big = calloc(1, max + 1);
  struct iovec iov = {big, max + 1};
  ck_assert_int_eq(hc_transport_self_ops.send(ctx, SELF_RANK, &iov, 1),
                   HC_ERR_ARG);
  iov.iov_len = max;
  ck_assert_int_eq(hc_transport_self_ops.send(ctx, SELF_RANK, &iov, 1), HC_OK);
  free(big);
  iov.iov_len = 4;
  iov.iov_base = src;
  ck_assert_int_eq(hc_transport_self_ops.send(ctx, SELF_RANK + 1, &iov, 1),
                   HC_ERR_RANK);
  char addr[HC_TRANSPORT_ADDRESS_MAX];
  ck_assert_int_eq(hc_transport_self_ops.address(ctx, addr, sizeof addr),
                   HC_OK);
  ck_assert_ptr_null(strchr(addr, ' '));
  /* wait must return at once whether or not anything is queued. */
  hc_transport_self_ops.wait(ctx, 100000);
  /* fini frees the big packet still queued. */
  hc_transport_self_ops.fini(ctx);
  hc_transport_self_ops.fini(NULL);
}
END_TEST

static Suite *self_suite(void) {
  Suite *s = suite_create("self");
  TCase *tc = tcase_create("self");
  tcase_add_test(tc, test_self_delivers_in_send_order);
  tcase_add_test(tc, test_self_send_inside_callback_waits_for_next_progress);
  tcase_add_test(tc, test_self_get_limits_and_other_ranks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(self_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
