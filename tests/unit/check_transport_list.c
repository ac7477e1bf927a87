/*
 * One transport table: a transport that only the registration list names
 * (the test-only loopback, registered under HC_TRANSPORT_LOOPBACK) is
 * initialised, connected, polled, slept on through its wait_fd and torn
 * down by the engine, with no other code knowing it; and the engine's own
 * descriptor beside the transports' (the user bell) is watched only while
 * a wait may need it, and closed at finalize.  Each test runs in its own
 * forked process, a singleton job.
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
#include "hcomm/core.h" /* hc_engine, hc_engine_peer_placement */
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

/* A peer's placement is what the transport that reaches it answers, for
 * that peer and with that transport's context; self, which has no op,
 * and ranks out of range read unknown.  Self reaches the singleton's rank
 * 0, so the test hands that peer to the loopback for the question, and
 * back before finalize. */
START_TEST(test_peer_placement_is_its_transports_answer) {
  singleton_env();
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_SINGLE, NULL), HC_OK);
  ck_assert_ptr_eq(hc_engine.peers[0].ops, &hc_transport_self_ops);
  ck_assert_int_eq(hc_engine_peer_placement(0), HC_TRANSPORT_PLACEMENT_UNKNOWN);
  ck_assert_int_eq(hc_engine_peer_placement(-1),
                   HC_TRANSPORT_PLACEMENT_UNKNOWN);
  ck_assert_int_eq(hc_engine_peer_placement(hc_engine.npeers),
                   HC_TRANSPORT_PLACEMENT_UNKNOWN);
  ck_assert_int_eq(atomic_load(&loopback_counts.placements), 0);
  const hc_transport_ops_t *const *list;
  int n = hc_transport_registered(&list);
  hc_peer_t saved = hc_engine.peers[0];
  hc_engine.peers[0].ops = list[n - 1];
  hc_engine.peers[0].tctx = loopback_counts.ctx;
  hc_transport_placement_t got = hc_engine_peer_placement(0);
  hc_engine.peers[0] = saved;
  ck_assert_int_eq(got, LOOPBACK_PLACEMENT);
  ck_assert_int_eq(atomic_load(&loopback_counts.placements), 1);
  ck_assert_int_eq(atomic_load(&loopback_counts.placement_rank), 0);
  ck_assert_ptr_eq(loopback_counts.placement_ctx, loopback_counts.ctx);
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
}
END_TEST

/* 1 while thread tid is blocked in poll (or ppoll) on a set that holds
 * descriptor want: the kernel shows the call and its arguments in /proc,
 * and the set lies in this process. */
static int polls_on(pid_t tid, int want) {
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
  for (unsigned long i = 0; i < nfds; i++)
    if (set[i].fd == want && (set[i].events & POLLIN))
      return 1;
  return 0;
}

static int polls_on_loopback(pid_t tid) {
  return polls_on(tid, atomic_load(&loopback_counts.fd));
}

/* What the waker sees of the main thread's sleep, and what it sends. */
typedef struct sleep_probe {
  uint32_t value; /* sent to wake the sleeper */
  int watch_fd;   /* a descriptor to look for in the sleep's poll; -1 none */
  int watched;    /* the poll held watch_fd */
} sleep_probe_t;

static pid_t sleeper_tid;

/* Once the main thread sleeps in poll on the loopback's descriptor, notes
 * whether that poll also watches probe->watch_fd, sends probe->value to
 * this rank and rings the loopback's descriptor: the only thing that can
 * end the sleep before HCMPI_WAIT_MS (ten minutes, past the test's
 * timeout). */
static void *sleep_waker(void *arg) {
  sleep_probe_t *probe = arg;
  while (!polls_on_loopback(sleeper_tid))
    sched_yield();
  probe->watched =
      probe->watch_fd >= 0 && polls_on(sleeper_tid, probe->watch_fd);
  hcomm_request_t *req = NULL;
  hc_status_t rc = hcomm_isend(&probe->value, sizeof probe->value, 0, 7,
                               hcomm_comm_world(), HCOMM_SEND_STANDARD, &req);
  loopback_ring();
  if (rc == HC_OK)
    rc = hcomm_wait(req, NULL);
  hcomm_request_free(req);
  return (void *)(intptr_t)rc;
}

/* A blocking receive on the main thread, which sleeps until sleep_waker
 * sends; checks the message and returns its status. */
static hcomm_status_t receive_asleep(sleep_probe_t *probe) {
  uint32_t got = 0;
  hcomm_request_t *req = NULL;
  ck_assert_int_eq(
      hcomm_irecv(&got, sizeof got, 0, 7, hcomm_comm_world(), &req), HC_OK);
  sleeper_tid = (pid_t)syscall(SYS_gettid);
  pthread_t waker;
  ck_assert_int_eq(pthread_create(&waker, NULL, sleep_waker, probe), 0);
  hcomm_status_t st;
  ck_assert_int_eq(hcomm_wait(req, &st), HC_OK);
  void *waker_rc = NULL;
  ck_assert_int_eq(pthread_join(waker, &waker_rc), 0);
  ck_assert_int_eq((int)(intptr_t)waker_rc, HC_OK);
  hcomm_request_free(req);
  ck_assert_uint_eq(got, probe->value);
  return st;
}

/* A singleton engine whose waits sleep at once, for ten minutes. */
static void init_sleepy(void) {
  singleton_env();
  setenv("HCMPI_SPIN", "1", 1); /* sleep at the first empty poll */
  setenv("HCMPI_WAIT_MS", "600000", 1);
  int provided = -1;
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_MULTIPLE, &provided), HC_OK);
  ck_assert_int_eq(provided, HCOMM_THREAD_MULTIPLE);
}

START_TEST(test_sleeping_engine_wakes_on_registered_wait_fd) {
  init_sleepy();
  sleep_probe_t probe = {0x5eed1e55u, -1, 0};
  hcomm_status_t st = receive_asleep(&probe);
  ck_assert_uint_eq(st.bytes, sizeof probe.value);
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

/* The eventfds this process holds, as a flag per descriptor below 1024. */
typedef struct eventfd_set {
  unsigned char open[1024];
  int n;
} eventfd_set_t;

static void eventfds_list(eventfd_set_t *set) {
  memset(set, 0, sizeof *set);
  for (int fd = 0; fd < (int)sizeof set->open; fd++) {
    char path[64], target[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len <= 0)
      continue;
    target[len] = '\0';
    if (strcmp(target, "anon_inode:[eventfd]") == 0) {
      set->open[fd] = 1;
      set->n++;
    }
  }
}

/* The one eventfd in after that is not in before; -1 none. */
static int eventfd_new(const eventfd_set_t *before,
                       const eventfd_set_t *after) {
  for (int fd = 0; fd < (int)sizeof after->open; fd++)
    if (after->open[fd] && !before->open[fd])
      return fd;
  return -1;
}

/* The user bell (the eventfd hcomm_request_new_pending makes, which a
 * completion from another thread rings) is closed by finalize, with no
 * other eventfd the engine opened left behind. */
START_TEST(test_user_bell_closed_at_finalize) {
  singleton_env();
  eventfd_set_t before, started, during, after;
  eventfds_list(&before);
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_MULTIPLE, NULL), HC_OK);
  eventfds_list(&started);
  hcomm_request_t *req = NULL;
  ck_assert_int_eq(hcomm_request_new_pending(&req), HC_OK);
  eventfds_list(&during);
  ck_assert_int_ge(eventfd_new(&started, &during), 0);
  int freed = -1;
  ck_assert_int_eq(hcomm_request_user_complete(req, NULL, &freed), HC_OK);
  ck_assert_int_eq(freed, 0);
  ck_assert_int_eq(hcomm_wait(req, NULL), HC_OK);
  ck_assert_int_eq(hcomm_request_free(req), 1);
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
  eventfds_list(&after);
  ck_assert_int_eq(after.n, before.n);
  ck_assert_int_eq(eventfd_new(&before, &after), -1);
}
END_TEST

/* With one request of hcomm_request_new_pending outstanding (freed by its
 * owner first when free_first), a blocking receive sleeps; returns
 * whether that sleep watched the user bell.  The request is never
 * completed: finalize must not wait for it. */
static int sleep_watches_bell(int free_first) {
  init_sleepy();
  eventfd_set_t before, after;
  eventfds_list(&before);
  hcomm_request_t *pending = NULL;
  ck_assert_int_eq(hcomm_request_new_pending(&pending), HC_OK);
  eventfds_list(&after);
  sleep_probe_t probe = {0x0be11u, eventfd_new(&before, &after), -1};
  ck_assert_int_ge(probe.watch_fd, 0);
  if (free_first)
    ck_assert_int_eq(hcomm_request_free(pending), 0);
  (void)receive_asleep(&probe);
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
  return probe.watched;
}

/* A pending request that a wait may be waiting for keeps the bell in the
 * sleep (the control for the next test: the probe sees the bell). */
START_TEST(test_pending_user_request_keeps_sleeps_on_bell) {
  ck_assert_int_eq(sleep_watches_bell(0), 1);
}
END_TEST

/* One freed before completion has no waiter (MPI_Request_free of a
 * generalized request): it no longer keeps every later sleep on the bell,
 * and, never completed, it does not hold finalize up. */
START_TEST(test_freed_pending_user_request_leaves_bell) {
  ck_assert_int_eq(sleep_watches_bell(1), 0);
}
END_TEST

/* Completing one freed before says so, and releases it. */
START_TEST(test_user_complete_after_free_reports_freed) {
  singleton_env();
  ck_assert_int_eq(hcomm_init(HCOMM_THREAD_SINGLE, NULL), HC_OK);
  hcomm_request_t *req = NULL;
  ck_assert_int_eq(hcomm_request_new_pending(&req), HC_OK);
  ck_assert_int_eq(hcomm_request_free(req), 0);
  int freed = -1;
  ck_assert_int_eq(hcomm_request_user_complete(req, NULL, &freed), HC_OK);
  ck_assert_int_eq(freed, 1);
  ck_assert_int_eq(hcomm_finalize(), HC_OK);
}
END_TEST

static Suite *transport_list_suite(void) {
  Suite *s = suite_create("transport_list");
  TCase *tc = tcase_create("loopback");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_registered_transport_is_listed_last);
  tcase_add_test(tc, test_registered_transport_initialised_polled_torn_down);
  tcase_add_test(tc, test_peer_placement_is_its_transports_answer);
  tcase_add_test(tc, test_sleeping_engine_wakes_on_registered_wait_fd);
  tcase_add_test(tc, test_user_bell_closed_at_finalize);
  tcase_add_test(tc, test_pending_user_request_keeps_sleeps_on_bell);
  tcase_add_test(tc, test_freed_pending_user_request_leaves_bell);
  tcase_add_test(tc, test_user_complete_after_free_reports_freed);
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
