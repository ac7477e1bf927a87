/*
 * THREAD_MULTIPLE: several threads per rank exchange messages on their own
 * tags at once (eager and rendezvous sizes), each checking every byte.
 * Needs exactly the ranks 0 and 1 to talk; other ranks only init/finalize.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcomm.h"

enum { THREADS = 4, ROUNDS = 200 };

static int rank, size;
static hcomm_comm_t *world;

static void fail(const char *what, hc_status_t rc) {
  fprintf(stderr, "rank %d: %s: %s\n", rank, what, hcomm_strerror(rc));
  hcomm_abort(1, what);
}

static unsigned char fill(int t, int r, size_t i) {
  return (unsigned char)(t * 31 + r * 7 + (int)i);
}

static void *thread_main(void *arg) {
  int t = (int)(long)arg;
  int peer = 1 - rank;
  size_t cap = 70000;
  unsigned char *out = malloc(cap), *in = malloc(cap);
  for (int r = 0; r < ROUNDS; r++) {
    size_t len = (r % 4 == 3) ? cap : (size_t)(r * 13 % 2000);
    for (size_t i = 0; i < len; i++)
      out[i] = fill(t + rank * THREADS, r, i);
    hcomm_request_t *reqs[2];
    hcomm_status_t st;
    hc_status_t rc = hcomm_irecv(in, cap, peer, t, world, &reqs[0]);
    if (rc == HC_OK)
      rc = hcomm_isend(out, len, peer, t, world,
                       r % 2 ? HCOMM_SEND_SYNC : HCOMM_SEND_STANDARD, &reqs[1]);
    if (rc == HC_OK)
      rc = hcomm_wait(reqs[1], NULL);
    if (rc == HC_OK)
      rc = hcomm_wait(reqs[0], &st);
    if (rc != HC_OK)
      fail("exchange", rc);
    hcomm_request_free(reqs[0]);
    hcomm_request_free(reqs[1]);
    if (st.bytes != len || st.tag != t || st.source != peer)
      fail("status", HC_ERR_INTERNAL);
    for (size_t i = 0; i < len; i++)
      if (in[i] != fill(t + peer * THREADS, r, i))
        fail("bytes", HC_ERR_INTERNAL);
  }
  free(out);
  free(in);
  return NULL;
}

int main(void) {
  int provided;
  hc_status_t rc = hcomm_init(HCOMM_THREAD_MULTIPLE, &provided);
  if (rc != HC_OK)
    fail("init", rc);
  world = hcomm_comm_world();
  rank = hcomm_comm_rank(world);
  size = hcomm_comm_size(world);
  if (provided != HCOMM_THREAD_MULTIPLE)
    fail("provided", HC_ERR_INTERNAL);
  if (size < 2) {
    hcomm_finalize();
    return 77;
  }
  if (rank < 2) {
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
      pthread_create(&th[t], NULL, thread_main, (void *)t);
    for (int t = 0; t < THREADS; t++)
      pthread_join(th[t], NULL);
  }
  rc = hcomm_finalize();
  if (rc != HC_OK)
    fail("finalize", rc);
  if (rank == 0)
    printf("engine_threads: %d threads x %d rounds OK\n", THREADS, ROUNDS);
  return 0;
}
