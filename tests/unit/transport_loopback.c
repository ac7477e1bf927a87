/* The test-only loopback transport: see transport_loopback.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "transport/transport.h"
#include "transport_loopback.h"

loopback_counts_t loopback_counts = {
    .connected_rank = -1, .fd = -1, .placement_rank = -1};

typedef struct loopback_ctx {
  int world_rank;
  int fd;
} loopback_ctx_t;

static hc_status_t loopback_init(const hc_transport_init_args_t *args,
                                 void **ctx) {
  loopback_ctx_t *lb = calloc(1, sizeof *lb);
  *ctx = lb;
  atomic_fetch_add(&loopback_counts.inits, 1);
  if (lb == NULL)
    return HC_ERR_NOMEM;
  lb->world_rank = args->world_rank;
  lb->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  loopback_counts.ctx = lb;
  atomic_store(&loopback_counts.fd, lb->fd);
  return lb->fd >= 0 ? HC_OK : HC_ERR_SYSTEM;
}

static hc_status_t loopback_address(void *ctx, char *buf, size_t len) {
  (void)ctx;
  return snprintf(buf, len, "loopback") < (int)len ? HC_OK : HC_ERR_ARG;
}

static hc_status_t loopback_connect(void *ctx, int peer_world_rank,
                                    const char *peer_address) {
  loopback_ctx_t *lb = ctx;
  atomic_fetch_add(&loopback_counts.connects, 1);
  atomic_store(&loopback_counts.connected_rank, peer_world_rank);
  if (peer_world_rank != lb->world_rank ||
      strcmp(peer_address, "loopback") != 0)
    return HC_ERR_RANK;
  return HC_OK;
}

static hc_status_t loopback_connected(void *ctx) {
  (void)ctx;
  atomic_fetch_add(&loopback_counts.connecteds, 1);
  return HC_OK;
}

static size_t loopback_max_packet(void *ctx) {
  (void)ctx;
  return 4096;
}

/* Never chosen for a peer (self reaches this rank first). */
static hc_status_t loopback_send(void *ctx, int peer_world_rank,
                                 const struct iovec *iov, int iovcnt) {
  (void)ctx;
  (void)peer_world_rank;
  (void)iov;
  (void)iovcnt;
  return HC_ERR_NOT_SUPPORTED;
}

static int loopback_progress(void *ctx) {
  (void)ctx;
  atomic_fetch_add(&loopback_counts.progresses, 1);
  return 0;
}

static void loopback_wait(void *ctx, int timeout_ms) {
  (void)ctx;
  (void)timeout_ms;
}

static int loopback_wait_fd(void *ctx, int *timeout_ms) {
  loopback_ctx_t *lb = ctx;
  (void)timeout_ms;
  atomic_fetch_add(&loopback_counts.wait_fds, 1);
  return lb->fd;
}

static void loopback_wait_done(void *ctx) {
  loopback_ctx_t *lb = ctx;
  uint64_t rings;
  atomic_fetch_add(&loopback_counts.wait_dones, 1);
  if (read(lb->fd, &rings, sizeof rings) < 0)
    rings = 0; /* EAGAIN: the sleep ended otherwise */
}

static void loopback_fini(void *ctx) {
  loopback_ctx_t *lb = ctx;
  atomic_fetch_add(&loopback_counts.fini_calls, 1);
  loopback_counts.fini_ctx = lb;
  if (lb == NULL)
    return;
  if (lb->fd >= 0)
    close(lb->fd);
  atomic_store(&loopback_counts.fd, -1);
  free(lb);
}

static hc_transport_placement_t loopback_placement(void *ctx,
                                                   int peer_world_rank) {
  atomic_fetch_add(&loopback_counts.placements, 1);
  atomic_store(&loopback_counts.placement_rank, peer_world_rank);
  loopback_counts.placement_ctx = ctx;
  return LOOPBACK_PLACEMENT;
}

void loopback_ring(void) {
  uint64_t one = 1;
  int fd = atomic_load(&loopback_counts.fd);
  if (fd >= 0 && write(fd, &one, sizeof one) < 0)
    abort();
}

const hc_transport_ops_t hc_transport_loopback_ops = {
    .name = "loopback",
    .reach = HC_TRANSPORT_REACH_SELF,
    .flags = 0,
    .init = loopback_init,
    .address = loopback_address,
    .connect = loopback_connect,
    .connected = loopback_connected,
    .max_packet = loopback_max_packet,
    .send = loopback_send,
    .progress = loopback_progress,
    .get = hc_transport_get_not_supported,
    .wait = loopback_wait,
    .wait_fd = loopback_wait_fd,
    .wait_pollfd = hc_transport_wait_fd_not_supported,
    .wait_done = loopback_wait_done,
    .set_secret = hc_transport_set_secret_not_supported,
    .watch = hc_transport_watch_nothing,
    .fini = loopback_fini,
    .placement = loopback_placement,
};
