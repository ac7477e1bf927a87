/*
 * One transport table: a transport that only the registration list names
 * (the test-only loopback, registered under HC_TRANSPORT_LOOPBACK) is
 * initialised, connected, polled, slept on through its wait_fd and torn
 * down by the engine, with no other code knowing it.  Each test runs in
 * its own forked process, a singleton job.
 */
#include <check.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hcomm.h"
#include "transport/transport.h"
#include "transport_loopback.h"

static void singleton_env(void) {
  setenv("HCMPI_BOOTSTRAP", "singleton", 1);
  unsetenv("HCMPI_TRANSPORTS");
}

START_TEST(test_registered_transport_is_listed_last) {
  const hc_transport_ops_t *const *list;
  int n = hc_transport_registered(&list);
  ck_assert_int_ge(n, 2);
  ck_assert_str_eq(list[0]->name, "self");
  ck_assert_str_eq(list[n - 1]->name, "loopback");
}
END_TEST

START_TEST(test_registered_transport_initialised_polled_torn_down) {
  singleton_env();
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_SINGLE, NULL), HC_OK);
  ck_assert_int_eq(atomic_load(&loopback_counts.inits), 1);
  ck_assert_int_eq(atomic_load(&loopback_counts.connects), 1);
  ck_assert_int_eq(atomic_load(&loopback_counts.connected_rank), 0);
  ck_assert_int_eq(atomic_load(&loopback_counts.connecteds), 1);
  int polls = atomic_load(&loopback_counts.progresses);
  hcomm_progress();
  ck_assert_int_eq(atomic_load(&loopback_counts.progresses), polls + 1);
  hcomm_progress();
  ck_assert_int_eq(atomic_load(&loopback_counts.progresses), polls + 2);
  ck_assert_int_eq(atomic_load(&loopback_counts.fini_calls), 0);
  void *ctx = loopback_counts.ctx;
  ck_assert_ptr_nonnull(ctx);
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
  ck_assert_int_eq(atomic_load(&loopback_counts.fini_calls), 1);
  ck_assert_ptr_eq(loopback_counts.fini_ctx, ctx);
}
END_TEST

/* 1 while thread tid is blocked in poll (or ppoll) on a set that holds
 * the loopback's descriptor: the kernel shows the call and its arguments
 * in /proc, and the set lies in this process. */
static int polls_on_loopback(pid_t tid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot read %s", path);
  int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  long nr = -1;
  unsigned long fds = 0, nfds = 0;
  if (!got || sscanf(line, "%ld %lx %lx", &nr, &fds, &nfds) != 3 ||
      (nr != SYS_poll && nr != SYS_ppoll))
    return 0;
  const struct pollfd *set = (const struct pollfd *)(uintptr_t)fds;
  int want = atomic_load(&loopback_counts.fd);
  for (unsigned long i = 0; i < nfds; i++)
    if (set[i].fd == want && (set[i].events & POLLIN))
      return 1;
  return 0;
}

/* Once the main thread sleeps in poll on the loopback's descriptor, sends
 * to this rank and rings that descriptor: the only thing that can end the
 * sleep before HCMPI_WAIT_MS (ten minutes, past the test's timeout). */
static pid_t sleeper_tid;

static void *sleep_waker(void *arg) {
  const uint32_t *value = arg;
  while (!polls_on_loopback(sleeper_tid))
    sched_yield();
  hcomm_request_t *req = NULL;
  hc_status_t rc = hcomm_isend(value, sizeof *value, 0, 7, hcomm_comm_world(),
                               HCOMM_SEND_STANDARD, &req);
  loopback_ring();
  if (rc == HC_OK)
    rc = hcomm_wait(req, NULL);
  hcomm_request_free(req);
  return (void *)(intptr_t)rc;
}

START_TEST(test_sleeping_engine_wakes_on_registered_wait_fd) {
  singleton_env();
  setenv("HCMPI_SPIN", "1", 1); /* sleep at the first empty poll */
  setenv("HCMPI_WAIT_MS", "600000", 1);
  int provided = -1;
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_MULTIPLE, &provided), HC_OK);
  ck_assert_int_eq(provided, HCOMM_THREAD_MULTIPLE);
  uint32_t sent = 0x5eed1e55u, got = 0;
  hcomm_request_t *req = NULL;
  ck_assert_int_eq(
      hcomm_irecv(&got, sizeof got, 0, 7, hcomm_comm_world(), &req), HC_OK);
  sleeper_tid = (pid_t)syscall(SYS_gettid);
  pthread_t waker;
  ck_assert_int_eq(pthread_create(&waker, NULL, sleep_waker, &sent), 0);
  hcomm_status_t st;
  ck_assert_int_eq(hcomm_wait(req, &st), HC_OK);
  void *waker_rc = NULL;
  ck_assert_int_eq(pthread_join(waker, &waker_rc), 0);
  ck_assert_int_eq((int)(intptr_t)waker_rc, HC_OK);
  hcomm_request_free(req);
  ck_assert_uint_eq(got, sent);
  ck_assert_uint_eq(st.bytes, sizeof got);
  ck_assert_int_eq(st.source, 0);
  ck_assert_int_eq(st.tag, 7);
  /* Every sleep it readied was ended, by the same engine loop. */
  ck_assert_int_ge(atomic_load(&loopback_counts.wait_fds), 1);
  ck_assert_int_eq(atomic_load(&loopback_counts.wait_dones),
                   atomic_load(&loopback_counts.wait_fds));
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
  ck_assert_int_eq(atomic_load(&loopback_counts.fini_calls), 1);
}
END_TEST

static Suite *transport_list_suite(void) {
  Suite *s = suite_create("transport_list");
  TCase *tc = tcase_create("loopback");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_registered_transport_is_listed_last);
  tcase_add_test(tc, test_registered_transport_initialised_polled_torn_down);
  tcase_add_test(tc, test_sleeping_engine_wakes_on_registered_wait_fd);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(transport_list_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
