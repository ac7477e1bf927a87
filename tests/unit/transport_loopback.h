/*
 * A test-only transport (test builds only: the registration list names it
 * under HC_TRANSPORT_LOOPBACK).  It reaches this rank alone, after self,
 * so it carries nothing; it counts what the engine asks of it, and its
 * wait_fd is an eventfd the test can ring to wake a sleeping engine.
 */
#ifndef HC_TEST_TRANSPORT_LOOPBACK_H
#define HC_TEST_TRANSPORT_LOOPBACK_H

#include <stdatomic.h>

#include "transport/transport.h" /* hc_transport_placement_t */

typedef struct loopback_counts {
  atomic_int inits, connects, connecteds, progresses;
  atomic_int wait_fds, wait_dones, fini_calls;
  atomic_int connected_rank; /* the rank connect named; -1 none */
  atomic_int fd;             /* the eventfd wait_fd hands out; -1 none */
  void *ctx;                 /* what init gave */
  void *fini_ctx;            /* what fini got */
  atomic_int placements;     /* calls of its placement op */
  atomic_int placement_rank; /* the rank the last one named; -1 none */
  void *placement_ctx;       /* the ctx it got */
} loopback_counts_t;

/* What the loopback's placement op answers: far, which no transport
 * without the op (UNKNOWN) and no forced shm verdict of a test gives by
 * chance. */
#define LOOPBACK_PLACEMENT HC_TRANSPORT_PLACEMENT_FAR

extern loopback_counts_t loopback_counts;

/* Makes the loopback's descriptor readable, as a packet arriving would. */
void loopback_ring(void);

#endif
